/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DPV_ENGINE_H
#define DPV_ENGINE_H

/**
 * @file
 * The software HCA ("engine"): the RoCEv2 transports (RC, UC, UD, XRC) behind
 * the verbs front end, driven like a hardware device by commands.
 *
 * One engine per device (per dpv_port). The verbs layer talks to it the way
 * a hardware driver talks to firmware:
 *
 *   - **memory keys**: dpv_engine_key_set() / dpv_engine_key_clear() at
 *     ibv_reg_mr / ibv_dereg_mr (and MW alloc/bind); every local SGE and
 *     every remote access is checked against key, PD, bounds and access.
 *   - **QP contexts**: dpv_engine_qp_create() at ibv_create_qp (with the
 *     rings the application posts into), dpv_engine_qp_modify() at
 *     ibv_modify_qp (the same struct ibv_qp_attr / mask, plus the resolved
 *     path), dpv_engine_qp_destroy() at ibv_destroy_qp. Moving to ERR
 *     flushes the rings with IBV_WC_WR_FLUSH_ERR, RESET clears the
 *     transport state.
 *   - **doorbells**: none needed. The application posts into the rings
 *     (dpv_ring_post_send / dpv_ring_post_recv, in the device's ring
 *     format: drivers/rdma/mlx5/mlx5_ring.h, struct dpv_ring_ops) with
 *     release ordering; each poll iteration fetches new WQEs of every
 *     owned QP through the ring's operations table.
 *   - **progress**: dpv_engine_poll() runs one run-to-completion iteration:
 *     RX burst -> parse -> dispatch by destination QPN -> responder /
 *     completer; then every owned QP's send queue -> requester -> TX burst;
 *     then timers (retransmission, RNR wait) and the coalesced ACK flush.
 *     No locks inside: a QP is owned by exactly one engine.
 *     dpv_engine_progress() is the application-driven mode: it takes the
 *     engine's try-lock and polls once; the verbs hot paths call it.
 *
 * Control commands (key_set/clear, qp_create/modify/destroy) take the
 * engine lock, so they are serialized with dpv_engine_progress(); they can
 * be called from any thread.
 *
 * Integration points for the verbs layer (lib/verbs):
 *   - device open:     dpv_engine_create(port, &conf) (one per device), with
 *                      conf.key_lookup/key_invalidate/key_bind if the verbs
 *                      layer keeps the key table, conf.cq_event for
 *                      channels, conf.mcast_lookup for UD multicast,
 *                      conf.srq_lookup for XRC targets;
 *                      dpv_engine_thread_start() unless a worker lcore runs
 *                      dpv_engine_poll() (the passive side of RDMA
 *                      WRITE/READ/atomics makes no verbs calls)
 *   - device close:    dpv_engine_destroy() (stops the thread)
 *   - ibv_reg_mr:      dpv_engine_key_set(lkey) (and rkey if != lkey), or
 *                      nothing with key_lookup. Never hand out the key
 *                      0x100: it is MLX5_INVALID_LKEY, the end marker of
 *                      an mlx5 receive WQE
 *   - ibv_dereg_mr:    dpv_engine_key_clear()
 *   - ibv_create_qp:   dpv_engine_qp_create()
 *   - ibv_modify_qp:   dpv_engine_neigh_resolve() for the path's MAC at
 *                      RTR, then dpv_engine_qp_modify() after the attribute
 *                      check
 *   - ibv_create_ah:   dpv_engine_neigh_resolve() for the AV's MAC (a zero
 *                      MAC is resolved by the engine at send time instead,
 *                      holding the UD send queue meanwhile)
 *   - ibv_query_qp:    dpv_engine_qp_state() (the engine may have moved
 *                      the QP to ERR after an error completion)
 *   - ibv_destroy_qp:  dpv_engine_qp_destroy()
 *   - ibv_post_send/recv, ibv_poll_cq, ibv_get_cq_event:
 *                      post/poll the rings, then dpv_engine_progress()
 *
 * Errors: functions returning int answer 0 or a negative errno.
 */

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "dpv_roce_hdr.h" /* dpv_psn_cmp(), dpv_psn_add() */
#include "dpv_roce_pkt.h" /* enum dpv_roce_rx_status */

#ifdef __cplusplus
extern "C" {
#endif

struct dpv_port;
struct dpv_engine;
struct dpv_engine_key;
struct dpv_mlx5_sq;
struct dpv_mlx5_rq;
struct dpv_mlx5_cq;
struct dpv_wr_bind;
struct dpv_wr_umr;
struct dpv_klm;
struct rte_mempool;
struct rte_mbuf;

/** An XRC shared receive queue as the engine uses it. */
struct dpv_engine_srq {
	struct dpv_mlx5_rq *rq; /**< its receive ring */
	struct dpv_mlx5_cq *cq; /**< its completion queue */
	uint32_t pdn;		/**< its PD: keys of requests are checked
				     against it */
	uint32_t xrcdn;		/**< its XRC domain */
};

/** Engine creation options. All zero = defaults. */
struct dpv_engine_conf {
	uint16_t rx_queue; /**< port RX queue the engine polls (default 0) */
	uint16_t tx_queue; /**< port TX queue the engine sends on (default 0) */
	uint32_t max_keys; /**< key table slots (default 4096, max 1<<24) */
	uint32_t max_qps;  /**< QP contexts (default 1024) */
	/** mbuf pool; default: dpv_port_mempool(port) */
	struct rte_mempool *mp;
	/**
	 * Local MAC used in frames when there is no port (internal loopback):
	 * see dpv_engine_create().
	 */
	uint8_t mac[6];
	/** Source GID of UD sends when there is no port (internal loopback);
	 *  with a port, the GID table entry of the AH's sgid_index is used. */
	uint8_t gid[16];
	/**
	 * Optional key source: when set, the engine does not use its own key
	 * table (dpv_engine_key_set() answers -EOPNOTSUPP) and asks this hook
	 * for every key it checks; it must fill *out (valid = 1, key = the key)
	 * and return true if the key is live, false otherwise (a window it
	 * returns is taken as bound: answer false for an unbound window).
	 * Lets the verbs layer keep its own (seqlock protected) table.
	 */
	bool (*key_lookup)(void *arg, uint32_t key, struct dpv_engine_key *out);
	/**
	 * With key_lookup, optional: the version word of the table entry that
	 * holds key (NULL if none), which changes whenever the entry does and
	 * is odd while it changes (a seqlock's sequence number); it must stay
	 * readable as long as the engine exists. The engine then keeps what
	 * key_lookup answered in a small cache and asks again only when the
	 * word has moved.
	 */
	const uint32_t *(*key_version)(void *arg, uint32_t key);
	/** First argument of key_lookup, key_invalidate and key_bind. */
	void *key_lookup_arg;
	/**
	 * With key_lookup: invalidate a key for IBV_WR_LOCAL_INV (remote =
	 * false) and for a received SEND with invalidate (remote = true),
	 * called with key_lookup_arg by the QP qpn of PD pdn. The rules are
	 * dpv_key_invalidate_check()'s. Return 0, or non-zero if the key may
	 * not be invalidated (the WQE then completes with IBV_WC_MW_BIND_ERR /
	 * the SEND is still delivered). NULL: LOCAL_INV fails and SEND with
	 * invalidate does not invalidate.
	 */
	int (*key_invalidate)(void *arg, uint32_t key, uint32_t pdn,
			      uint32_t qpn, bool remote);
	/**
	 * With key_lookup: execute a memory window bind (IBV_WR_BIND_MW, type
	 * 1 from ibv_bind_mw or type 2 from a send WQE) posted on QP qpn of PD
	 * pdn, in send-queue order: apply the rules of dpv_key_bind_apply() to
	 * the window and the region and store the result. Return
	 * IBV_WC_SUCCESS (0) or the completion status (IBV_WC_MW_BIND_ERR).
	 * NULL: binds complete with IBV_WC_MW_BIND_ERR.
	 */
	int (*key_bind)(void *arg, const struct dpv_wr_bind *b, uint32_t pdn,
			uint32_t qpn);
	/**
	 * With key_lookup: configure an indirect key (mlx5dv_wr_mr_list /
	 * mlx5dv_wr_mr_interleaved, IBV_WR_DRIVER1) posted on QP qpn of PD
	 * pdn, in send-queue order: check u and its u->num entries ent[] with
	 * dpv_key_layout_check() and store the layout, so that key_lookup
	 * then returns the key with type DPV_ENGINE_KEY_INDIRECT, klm, nklm,
	 * repeat, block and length set (the entries must stay readable until
	 * the key is invalidated or destroyed). Return IBV_WC_SUCCESS (0) or
	 * the completion status. NULL: such WQEs complete with
	 * IBV_WC_LOC_QP_OP_ERR.
	 */
	int (*key_config)(void *arg, const struct dpv_wr_umr *u,
			  const struct dpv_klm *ent, uint32_t pdn, uint32_t qpn);
	/**
	 * Optional completion-event hook: called (under the engine lock, from
	 * the polling thread) when a CQ armed with ibv_req_notify_cq got a
	 * completion that fires the arm (dpv_ring_cq_should_notify()). The
	 * verbs layer signals the CQ's completion channel here. Only for CQs
	 * whose eng_events is set (the verbs layer sets it for CQs with a
	 * completion channel): the arm state of the others is not read.
	 */
	void (*cq_event)(void *arg, struct dpv_mlx5_cq *cq);
	/** First argument of cq_event. */
	void *cq_event_arg;
	/**
	 * Optional multicast membership: fill qpns with up to max numbers of
	 * the UD QPs attached to multicast GID gid (called with mcast_arg and
	 * the engine lock held, for each UD packet to destination QP
	 * DPV_ENGINE_QPN_MCAST) and return the number of members. NULL:
	 * multicast packets are dropped.
	 */
	unsigned (*mcast_lookup)(void *arg, const uint8_t gid[16],
				 uint32_t *qpns, unsigned max);
	/** First argument of mcast_lookup. */
	void *mcast_arg;
	/**
	 * XRC: find the shared receive queue named by the XRCETH of a request
	 * to an XRC_RECV QP (called with srq_arg and the engine lock held).
	 * Fill *out and return true if srqn is a live XRC SRQ; false
	 * otherwise (the request is answered with a NAK). NULL: XRC_RECV QPs
	 * refuse every request.
	 */
	bool (*srq_lookup)(void *arg, uint32_t srqn,
			   struct dpv_engine_srq *out);
	/** First argument of srq_lookup. */
	void *srq_arg;
	/**
	 * Optional: called (with event_arg and the engine lock held) each
	 * time the responder takes a receive WQE from a shared receive queue
	 * (basic or XRC SRQ); the verbs layer checks the SRQ limit here.
	 */
	void (*srq_fetched)(void *arg, struct dpv_mlx5_rq *srq);
	/**
	 * Optional: called (with event_arg and the engine lock held) once
	 * when a QP moved to SQD with en_sqd_async_notify has no fetched
	 * WQE left outstanding (the send queue is drained); the verbs layer
	 * raises IBV_EVENT_SQ_DRAINED.
	 */
	void (*sq_drained)(void *arg, uint32_t qpn);
	/** First argument of srq_fetched and sq_drained. */
	void *event_arg;
	/**
	 * Shards (several engines serving one device, each on its own port
	 * queue pair, each owning its own QPs): the shard that takes every
	 * frame not for a QP of the set (ARP/ND, multicast, raw-packet flows,
	 * the kernel interface, unknown QPNs). NULL for that shard itself and
	 * for a device with one engine.
	 */
	struct dpv_engine *home;
	/**
	 * Shards: the engine that owns QP qpn (NULL: none), called with
	 * qp_owner_arg from any shard's poll for a received frame whose QP
	 * the shard does not own, without the owner's lock: it must be safe
	 * against QPs created and destroyed meanwhile. The frame is then
	 * handed to the owner (dpv_engine_forward()). NULL: no forwarding.
	 */
	struct dpv_engine *(*qp_owner)(void *arg, uint32_t qpn);
	/** First argument of qp_owner. */
	void *qp_owner_arg;
};

/** Destination QP of UD multicast packets (IBA: the permissive QPN). */
#define DPV_ENGINE_QPN_MCAST 0xffffffu

/**
 * Hand a received frame to another shard of the same device (its poll
 * takes it in its next receive pass, as if its port queue had received
 * it). Any thread; lock-free.
 *
 * @param to
 *   The shard.
 * @param m
 *   The frame; taken on success.
 * @return 0; -ENOBUFS if the shard's forward ring is full (the caller
 *   still owns m).
 */
int dpv_engine_forward(struct dpv_engine *to, struct rte_mbuf *m);

/**
 * Create the engine of one device.
 *
 * @param port
 *   The port frames go out of and come in from. NULL creates an engine
 *   with an internal loopback wire (an rte_ring: every frame sent is
 *   received by the same engine), used by tests and by the loopback
 *   device; then conf->mp must be given.
 * @param conf
 *   Options, or NULL for the defaults.
 * @return
 *   The engine, or NULL with rte_errno set: EINVAL (bad conf, no mempool),
 *   ENOMEM.
 */
struct dpv_engine *dpv_engine_create(struct dpv_port *port,
				     const struct dpv_engine_conf *conf);

/**
 * Destroy an engine. Its QPs must have been destroyed; anything left is
 * dropped without completions. Stops its progress thread, frees queued
 * packets.
 *
 * @param e
 *   The engine; NULL is a no-op.
 */
void dpv_engine_destroy(struct dpv_engine *e);

/**
 * One run-to-completion iteration (see the file comment). Must not run
 * concurrently with itself or a control command on the same engine: the
 * caller owns the engine (a worker lcore holding the lock, or
 * dpv_engine_progress()).
 *
 * @param e
 *   The engine.
 * @param budget
 *   Upper bound on packets received and on packets sent in this iteration
 *   (0 = default 32).
 * @return
 *   Number of packets received + sent + completions generated (0 = idle).
 */
unsigned dpv_engine_poll(struct dpv_engine *e, unsigned budget);

/**
 * Application-driven progress: if the engine lock is free (and no
 * dpv_engine_lock() caller waits for it), take it, run dpv_engine_poll()
 * once and release it; otherwise return at once (some other thread is
 * making progress).
 *
 * @param e
 *   The engine (not NULL).
 * @return
 *   The dpv_engine_poll() result, or 0 if the lock was busy.
 */
unsigned dpv_engine_progress(struct dpv_engine *e);

/**
 * Whether posters should call dpv_engine_qp_kick(): the engine has more
 * QPs than its doorbell scan checks in one poll (64), or was told that
 * posts kick (dpv_engine_set_posts_kick()). Any thread (a relaxed read).
 *
 * @param e
 *   The engine (not NULL).
 * @return
 *   true if posts should kick their QP, false if the scan finds them.
 */
bool dpv_engine_kick_wanted(const struct dpv_engine *e);

/**
 * Ask the next poll to check the doorbells and timers of all the engine's
 * QPs (in slices): something changed that neither a kick nor a timer tells
 * it, e.g. receive WQEs posted to a QP in the error state (to be flushed).
 * Any thread, no lock.
 *
 * @param e
 *   The engine (not NULL).
 */
void dpv_engine_rescan(struct dpv_engine *e);

/**
 * Mark QP @p qpn as one whose rings the application holds (mlx5dv_init_obj,
 * mlx4dv_init_obj): it may write WQEs and ring the doorbell without
 * dpv_engine_qp_kick(), so the engine's doorbell scan visits a slice of
 * its QPs on every poll while it lives. Without such QPs and with more QPs
 * than one slice (64), the scan runs only when a timer of a QP may be due
 * (posts kick their QP). Takes the engine lock.
 *
 * @param e
 *   The engine (not NULL).
 * @param qpn
 *   The QP's number.
 * @return
 *   0, or -ENOENT if the engine has no such QP.
 */
int dpv_engine_qp_expose(struct dpv_engine *e, uint32_t qpn);

/**
 * Tell the engine that the SQ @p sq (of one of its QPs, sq->qpn) has new
 * WQEs, after the doorbell record was written: the next poll runs that QP
 * instead of finding the doorbell in its round-robin scan of all QPs
 * (which checks 64 per poll, and with kicks runs only when a timer may be
 * due). Any thread, no lock; a QP already told and not yet polled costs
 * one atomic exchange. If the engine's kick ring is full the QP is left to
 * a scan that the next poll starts (nothing is lost).
 *
 * @param e
 *   The engine that runs the QP (not NULL).
 * @param sq
 *   The QP's send ring (not NULL).
 */
void dpv_engine_qp_kick(struct dpv_engine *e, struct dpv_mlx5_sq *sq);

/**
 * Application-driven progress after a post (ibv_post_send, post_recv):
 * like dpv_engine_progress(), except that a post that follows another
 * within 5 us (a burst) only builds and queues its frames; the receive
 * side and the transmit burst are left to the next poll (the next
 * dpv_engine_progress(), every 16th post of a burst, or a full TX buffer),
 * so that a burst of posts leaves in bursts of frames.
 *
 * @param e
 *   The engine (not NULL).
 * @return
 *   Work done (as dpv_engine_poll() counts it), 0 if another thread holds
 *   the engine.
 */
unsigned dpv_engine_progress_post(struct dpv_engine *e);

/**
 * dpv_engine_progress_post() after a post to the SQ @p sq when
 * dpv_engine_kick_wanted() (NULL: the same as dpv_engine_progress_post()):
 * the caller, holding the engine, puts the SQ's QP on the run list itself
 * (no kick ring, no atomic operation); if another thread holds the
 * engine, the SQ is kicked (dpv_engine_qp_kick()).
 *
 * @param e
 *   The engine that runs the QP (not NULL).
 * @param sq
 *   The QP's send ring, or NULL.
 * @return
 *   As dpv_engine_progress_post().
 */
unsigned dpv_engine_progress_post_sq(struct dpv_engine *e,
				     struct dpv_mlx5_sq *sq);

/**
 * Every post to the engine's QPs kicks its QP (dpv_engine_qp_kick() or
 * dpv_engine_progress_post_sq()), however few QPs it has: its polls then
 * leave out the doorbell scan, which otherwise checks every QP off the run
 * list on every poll while there are no more than 64 (~4 ns a QP: a poll
 * of an engine with 32 idle QPs took ~150 ns instead of ~20); the timers
 * of QPs off the run list are then watched by sweeps, as with more QPs.
 * QPs whose rings the application holds (dpv_engine_qp_expose()) are still
 * scanned. The verbs library turns it on for its devices. Takes the
 * engine lock; the next poll sweeps once for doorbells rung before.
 *
 * @param e
 *   The engine (not NULL).
 * @param on
 *   true: posts kick; false: the scan finds them (the default).
 */
void dpv_engine_set_posts_kick(struct dpv_engine *e, bool on);

/**
 * Application-driven progress from a verbs call (poll CQ, ...): like
 * dpv_engine_progress(), but when dpv_engine_set_ack_hold() is on, an ACK
 * that becomes owed in this poll is held until the next poll, where it
 * leaves after that poll's new requests (dpv_engine_progress_post() holds
 * the same way). Whoever else drives the engine must then poll it when
 * the application stops calling: dpv_engine_acks_held_at() says since
 * when an ACK waits. A thread that polls while the application is
 * between two calls (the verbs library's progress thread) may poll this
 * way too, so that an ACK for what it lands leaves after the
 * application's next request.
 *
 * @param e
 *   The engine (not NULL).
 * @return
 *   The dpv_engine_poll() result, or 0 if the lock was busy.
 */
unsigned dpv_engine_progress_app(struct dpv_engine *e);

/**
 * Progress from a background thread that backs an application which
 * drives the engine itself (the verbs library's progress thread): like
 * dpv_engine_progress() (or dpv_engine_progress_app() with @p hold),
 * and it notices a burst of posts left waiting (dpv_engine_progress_post()
 * holds a post that follows another within 5 us for the next call): if
 * the burst's posts waited more than 20 us (counter bursts_late), two
 * such bursts in a row show an application that goes on without a verbs
 * call (it waits on memory), so bursts are not held back for the next
 * 100 ms. A post that found the engine locked by this poll may have rung
 * its doorbell after the poll looked (counter posts_busy): the call then
 * polls again, a few times at most, so that such a WQE does not wait for
 * the thread's next wake-up.
 *
 * @param e
 *   The engine (not NULL).
 * @param hold
 *   true: ACKs arising in this poll may be held as an application poll's
 *   are (dpv_engine_progress_app()).
 * @return
 *   The dpv_engine_poll() result, or 0 if the lock was busy.
 */
unsigned dpv_engine_progress_bg(struct dpv_engine *e, bool hold);

/**
 * Turn the ACK hold of application polls on or off (off by default; the
 * verbs library turns it on when a progress thread backs the
 * application). Takes effect at the next application poll.
 *
 * @param e
 *   The engine (not NULL).
 * @param on
 *   true: dpv_engine_progress_app() and dpv_engine_progress_post() hold
 *   owed ACKs until the next poll; false: every poll sends them.
 */
void dpv_engine_set_ack_hold(struct dpv_engine *e, bool on);

/**
 * Since when an ACK waits in the engine (a relaxed read, for a progress
 * thread deciding whether to poll).
 *
 * @param e
 *   The engine (not NULL).
 * @return
 *   The TSC of the last poll that held back an ACK, if no poll has run
 *   since; 0 if no ACK is held.
 */
uint64_t dpv_engine_acks_held_at(const struct dpv_engine *e);

/**
 * When the engine last looked for frames (a relaxed read, for a progress
 * thread deciding whether to poll: an application whose calls only post
 * leaves the receive side to it).
 *
 * @param e
 *   The engine (not NULL).
 * @return
 *   The TSC of the last dpv_engine_poll() (the posts' send-only passes
 *   do not count); 0 before the first.
 */
uint64_t dpv_engine_rx_at(const struct dpv_engine *e);

/**
 * dpv_engine_rx_at() counting only the polls that are not a background
 * thread's (dpv_engine_progress_bg()): when the application itself last
 * looked for frames.
 *
 * @param e
 *   The engine (not NULL).
 * @return
 *   The TSC of the last such poll; 0 before the first.
 */
uint64_t dpv_engine_app_rx_at(const struct dpv_engine *e);

/**
 * Whether the last dpv_engine_poll() wrote a completion and left an RDMA
 * WRITE half landed: the last data frame it received (ACKs aside) was
 * the FIRST or a MIDDLE frame of a WRITE. The application that polled may
 * stop polling now that it has its completion (ib_write_lat then spins on
 * memory until the peer's WRITE has landed), while the rest of that
 * WRITE, which raises no CQE it would poll for, is on its way: someone
 * else must poll for it.
 *
 * @param e
 *   The engine (not NULL).
 * @return
 *   true if so.
 */
bool dpv_engine_poll_left_mid(const struct dpv_engine *e);

/**
 * Whether built frames wait in the engine's TX buffer, or WQEs of a burst
 * of posts wait to be built (a racy read, for a progress thread deciding
 * whether to poll).
 *
 * @param e
 *   The engine (not NULL).
 * @return
 *   true if at least one frame or posted WQE waits to be sent, false
 *   otherwise.
 */
bool dpv_engine_tx_pending(const struct dpv_engine *e);

/**
 * Background progress: start a thread (a plain pthread, not an EAL lcore)
 * that calls dpv_engine_progress() in a loop; after 256 idle polls it
 * sleeps between polls, 1, 2, 4 ... up to idle_sleep_us microseconds.
 * Needed whenever the application does not call verbs while the peer
 * works on its memory: the passive side of RDMA WRITE/READ/atomics (e.g.
 * a perftest ib_write_bw server waits on its TCP socket), and programs
 * that block in ibv_get_cq_event(). Application-driven progress keeps
 * working alongside (both use the try-lock).
 *
 * The threads are stopped at process exit (atexit) before the ports are.
 *
 * @param e
 *   The engine.
 * @param idle_sleep_us
 *   Longest sleep when idle (0 = 200 us).
 * @return 0; -EALREADY if running; -EINVAL on NULL; -ENOSPC (32 engines
 *   with threads); -errno of pthread_create.
 */
int dpv_engine_thread_start(struct dpv_engine *e, unsigned idle_sleep_us);

/**
 * Stop the progress thread of dpv_engine_thread_start() and wait for it.
 *
 * @param e
 *   The engine; NULL, or an engine without a thread, is a no-op.
 */
void dpv_engine_thread_stop(struct dpv_engine *e);

/**
 * Take the engine lock: a worker loop holds it around dpv_engine_poll().
 * Do not call control commands (they take it too) while holding it.
 * @param e
 *   The engine.
 */
void dpv_engine_lock(struct dpv_engine *e);

/**
 * Take the engine lock only if it is free and no caller of
 * dpv_engine_lock() is waiting for it: what a poll loop should use, so
 * that it never starves control commands (create, modify, destroy).
 * @param e
 *   The engine.
 * @return
 *   true with the lock held; false (lock not taken) otherwise.
 */
bool dpv_engine_trylock(struct dpv_engine *e);

/**
 * Release the engine lock.
 * @param e
 *   The engine.
 */
void dpv_engine_unlock(struct dpv_engine *e);

/* ---------------------------------------------------- completion events */

/**
 * Raise cq's completion event through conf.cq_event if its arm fires now
 * (dpv_ring_cq_should_notify()); with event moderation
 * (dpv_mlx5_cq_moderate()) whose period runs, the engine watches the
 * period's end from then on and raises the event in the first poll after
 * it, whether or not more CQEs come. The engine calls it after writing
 * CQEs; the verbs layer after an arm, so that an arm over CQEs not polled
 * yet fires or starts its period. Nothing for a CQ without eng_events.
 * @param e
 *   An engine of the CQ's device, locked.
 * @param cq
 *   The CQ, its writer state held: e is the shard that writes it, or the
 *   CQ's eng_lock is held (dpv_ring_cq_lock(), a CQ shards share).
 */
void dpv_engine_cq_notify(struct dpv_engine *e, struct dpv_mlx5_cq *cq);

/**
 * A CQ is about to be freed: the engine that watches its moderation
 * period (if one does) forgets it. No QP may write to it any more.
 * @param cq
 *   The CQ.
 */
void dpv_engine_cq_forget(struct dpv_mlx5_cq *cq);

/**
 * Microseconds until the earliest end of a CQ moderation period the
 * engine watches, rounded up: what a thread that polls the engine may
 * sleep at most for the event to come on time. Any thread, lock-free.
 * @param e
 *   The engine.
 * @param max_us
 *   The longest answer (also the answer when no period runs).
 * @return
 *   0 if a period has ended, max_us if none ends sooner.
 */
unsigned int dpv_engine_cq_deadline_us(const struct dpv_engine *e,
				       unsigned int max_us);

/**
 * Microseconds until the earliest retransmission (ACK timeout) or RNR
 * timer of the engine's QPs, rounded up: what a thread that polls the
 * engine may sleep at most for a lost frame to be sent again on time.
 * For QPs off the run list, in sweeps (more than 64 QPs, or posts that
 * kick: dpv_engine_set_posts_kick()), it is the time until the next
 * sweep, which is no later than their earliest timer (and at most
 * 100 ms away); 0 while a sweep is under way or asked for. Takes the
 * engine lock with dpv_engine_trylock() and walks the QPs with work (all
 * QPs when the doorbell scan checks them every poll): meant for before
 * a sleep, not for every poll. Any thread.
 * @param e
 *   The engine, not locked by the caller.
 * @param max_us
 *   The longest answer (also the answer when no timer runs).
 * @return
 *   0 if a timer is due; max_us if none is due sooner; at most 100 if
 *   another thread holds the lock (it is looked at again soon).
 */
unsigned int dpv_engine_timer_us(struct dpv_engine *e, unsigned int max_us);

/* ---------------------------------------------------------------- keys */

/** What a key designates. */
enum dpv_engine_key_type {
	DPV_ENGINE_KEY_MR = 0, /**< memory region (lkey and/or rkey) */
	DPV_ENGINE_KEY_MW1,    /**< type 1 memory window */
	DPV_ENGINE_KEY_MW2,    /**< type 2 memory window (bound to qpn) */
	/** indirect key (mlx5dv mkey): offset o of its zero-based range is
	 *  byte o of a layout over other keys' memory (klm..block) */
	DPV_ENGINE_KEY_INDIRECT,
	/** implicit on-demand region (ibv_reg_mr(pd, NULL, SIZE_MAX)): the
	 *  whole address space, va = process address; each access is
	 *  checked against the process's mappings (dpv_engine_mem_fault()),
	 *  so an unmapped or protected page fails it. Counts as bound. */
	DPV_ENGINE_KEY_IMPLICIT,
};

/** One memory key: what the verbs layer registers at reg_mr / bind_mw. */
struct dpv_engine_key {
	uint64_t addr;	 /**< process virtual address of the first byte */
	uint64_t length; /**< bytes */
	uint64_t iova; /**< address remote peers use (= addr for ibv_reg_mr) */
	uint32_t access; /**< enum ibv_access_flags */
	uint32_t pdn;	 /**< protection domain number */
	uint32_t qpn;	 /**< MW2 only: the QP it is bound to */
	uint8_t type;	 /**< enum dpv_engine_key_type */
	uint8_t valid;	 /**< set by dpv_engine_key_set() */
	/** windows only: bound to a region (an unbound or invalidated
	 *  window grants no access; a type 2 window binds only when not) */
	uint8_t bound;
	uint32_t key; /**< the full 32-bit key (index << 8 | variant) */
	/** indirect keys only (bound = configured; iova 0, length =
	 *  block * repeat): the layout's entries, their number, how many
	 *  times the whole layout repeats (1 for a list) and the bytes one
	 *  repetition maps (the sum of the entries' len) */
	const struct dpv_klm *klm;
	uint32_t nklm;	/**< entries in klm */
	uint32_t repeat; /**< repetitions of the layout (at least 1) */
	uint64_t block; /**< bytes one repetition maps */
	/** indirect keys only: a SEND with invalidate may invalidate it
	 *  (MLX5DV_MKEY_INIT_ATTR_FLAGS_REMOTE_INVALIDATE) */
	uint8_t remote_inv;
	/** indirect keys only: the block signature the key transforms data
	 *  with (engine_sig.c); NULL: none, the key maps bytes as they are */
	struct dpv_sig *sig;
};

/** The signature of one block in one domain (enum values are the
 *  engine's, not mlx5dv's). */
enum dpv_sig_kind {
	DPV_SIG_NONE = 0,    /**< no signature in this domain */
	DPV_SIG_CRC32,	     /**< 4 bytes: CRC-32 (Ethernet), big-endian */
	DPV_SIG_CRC32C,	     /**< 4 bytes: CRC-32C (Castagnoli), big-endian */
	DPV_SIG_T10DIF_CRC,  /**< 8 bytes: T10-DIF, CRC-16 (0x8bb7) guard */
	DPV_SIG_T10DIF_CSUM, /**< 8 bytes: T10-DIF, IP checksum guard */
};

/** T10-DIF: increment the reference tag per block. */
#define DPV_SIG_DIF_REF_REMAP 0x1
/** T10-DIF: no check of a block whose application tag is 0xffff. */
#define DPV_SIG_DIF_APP_ESCAPE 0x2
/** T10-DIF: no check of a block whose application tag is 0xffff and
 *  reference tag 0xffffffff. */
#define DPV_SIG_DIF_APP_REF_ESCAPE 0x4

/** One domain (memory or wire) of a block signature. */
struct dpv_sig_domain {
	uint8_t kind;	  /**< enum dpv_sig_kind */
	uint8_t size;	  /**< bytes of the field after each block (0, 4, 8) */
	uint16_t flags;	  /**< T10-DIF: DPV_SIG_DIF_* */
	uint32_t block;	  /**< data bytes per block */
	uint32_t seed;	  /**< CRC: register seed; T10-DIF: guard seed */
	uint16_t app_tag; /**< T10-DIF application tag */
	uint32_t ref_tag; /**< T10-DIF reference tag of the key's block 0 */
};

/** No signature error. */
#define DPV_SIG_ERR_NONE 0
/** The guard (the CRC, or T10-DIF's guard) did not match the data. */
#define DPV_SIG_ERR_GUARD 1
/** T10-DIF: the reference tag did not match. */
#define DPV_SIG_ERR_REFTAG 2
/** T10-DIF: the application tag did not match. */
#define DPV_SIG_ERR_APPTAG 3

/**
 * A signature key's configuration and its first error. The verbs layer
 * owns it (with the key); the engine thread writes the configuration
 * (key_config) and the error, the application reads and clears the error
 * (mlx5dv_mkey_check) once err_type, written last, is set.
 *
 * A key's SGE addresses and lengths count protected data bytes
 * (multiples of the block size); the engine takes them as the wire bytes
 * they stand for.
 */
struct dpv_sig {
	struct dpv_sig_domain mem;  /**< the data as the memory holds it */
	struct dpv_sig_domain wire; /**< the data as the wire carries it */
	uint8_t check_mask; /**< bytes of the input field checked (bit 7 -
			     *   n: byte n) */
	uint8_t copy_mask;  /**< bytes copied from the input field to the
			     *   output one instead of computed */
	uint32_t err_type;  /**< DPV_SIG_ERR_*; first error kept */
	uint64_t err_actual;   /**< value computed from the data */
	uint64_t err_expected; /**< value the field carried */
	uint64_t err_offset;   /**< data offset in the key of the block */
	/** engine only: the wire field of the block being received */
	uint8_t stash[8];
};

/**
 * The process-address value dpv_key_check_one() gives for an indirect key
 * (its memory is not contiguous): the engine copies through such a key
 * piece by piece, never through the pointer.
 */
#define DPV_KEY_HOST_INDIRECT ((void *)UINTPTR_MAX)

/**
 * Key table index of a key (mlx5 style: the low 8 bits are the variant).
 *
 * @param key
 *   A 32-bit lkey or rkey.
 * @return
 *   Its 24 upper bits.
 */
static inline uint32_t
dpv_engine_key_index(uint32_t key)
{
	return key >> 8;
}

struct dpv_tm;
struct dpv_tm_op;

/**
 * Run one list operation of a tag matching SRQ (dpv_tm.h) now, under the
 * engine lock: add or remove a tagged buffer, take note of the
 * unexpected count software reports; its completion, if signaled, goes
 * to cq (the SRQ's) with srqn.
 *
 * @param e
 *   The engine of the SRQ's QPs (a device's home shard).
 * @param tm
 *   The SRQ's tag matching state.
 * @param cq
 *   The SRQ's CQ.
 * @param srqn
 *   The SRQ's number (its CQEs carry it).
 * @param op
 *   The operation (handle allocated by the caller for an ADD).
 * @return
 *   1 if a DEL removed the buffer (its handle is free again), 0
 *   otherwise (a DEL of a buffer taken meanwhile completes with
 *   IBV_WC_TM_ERR); -EINVAL for a handle out of range.
 */
int dpv_engine_tm_op(struct dpv_engine *e, struct dpv_tm *tm,
		     struct dpv_mlx5_cq *cq, uint32_t srqn,
		     const struct dpv_tm_op *op);

/**
 * Register (or replace) a memory key. The slot is
 * dpv_engine_key_index(key); the low 8 bits are the variant that must
 * match on access. A zero-length region is allowed.
 *
 * @param e
 *   The engine.
 * @param key
 *   The 32-bit lkey or rkey.
 * @param k
 *   The description (its key and valid fields are ignored).
 * @return
 *   0; -EINVAL if e or k is NULL, the index is beyond max_keys, addr +
 *   length wraps, or key is 0x100 (MLX5_INVALID_LKEY, unusable in receive
 *   WQEs); -EOPNOTSUPP if the engine uses a key_lookup hook.
 */
int dpv_engine_key_set(struct dpv_engine *e, uint32_t key,
		       const struct dpv_engine_key *k);

/**
 * Invalidate a memory key of the engine's own table (dereg_mr,
 * local/remote invalidate). Takes the engine lock.
 *
 * @param e
 *   The engine.
 * @param key
 *   The full 32-bit key (index and variant).
 * @return
 *   0; -EINVAL if e is NULL, the engine uses a key_lookup hook (no own
 *   table) or the index is beyond max_keys; -ENOENT if the slot does not
 *   hold key (other variant, or not valid).
 */
int dpv_engine_key_clear(struct dpv_engine *e, uint32_t key);

/**
 * Find a free key table index (a slot not holding a valid key), for a
 * verbs layer that lets the engine choose keys: key = index << 8 |
 * variant. Indexes 0 and 1 are never returned (0x100 is MLX5_INVALID_LKEY).
 * The slot stays free until dpv_engine_key_set() fills it.
 *
 * @param e
 *   The engine.
 * @param index
 *   Out: the lowest free index.
 * @return
 *   0 and *index; -ENOSPC if the table is full; -EINVAL if an argument is
 *   NULL or the engine has no own key table (key_lookup hook).
 */
int dpv_engine_key_alloc_index(struct dpv_engine *e, uint32_t *index);

/* ----------------------------------------------------------------- QPs */

/** What dpv_engine_qp_create() needs: the object and its rings. */
struct dpv_engine_qp_init {
	uint32_t qpn; /**< chosen by the verbs layer, < 1 << 24 */
	/** IBV_QPT_RC, UC, UD, RAW_PACKET, XRC_SEND (sq and send_cq only),
	 *  XRC_RECV (no rings: the SRQ comes with each request), DRIVER
	 *  (Dynamically Connected: dc_type says DCI or DCT) */
	enum ibv_qp_type type;
	uint32_t pdn;		     /**< protection domain number */
	struct dpv_mlx5_sq *sq;	     /**< send ring (may be NULL: no sends),
					  initialised: the engine keeps as
					  many SGEs per WQE as its
					  wq.max_gs, and at most 256 WQEs
					  in flight (more wait in the ring) */
	struct dpv_mlx5_rq *rq;	     /**< receive ring, NULL if srq is used */
	struct dpv_mlx5_rq *srq;     /**< shared receive ring, or NULL */
	uint32_t srqn;		     /**< its number (reported in CQEs) */
	struct dpv_mlx5_cq *send_cq; /**< required if sq */
	struct dpv_mlx5_cq *recv_cq; /**< required if rq or srq */
	bool sq_sig_all;	     /**< every send WQE completes */
	uint32_t max_send_wr;	     /**< in-flight depth (the SQ size) */
	/** UD: do not receive the multicast packets this QP sent itself
	 *  (IBV_QP_CREATE_BLOCK_SELF_MCAST_LB) */
	bool block_self_mcast;
	/** XRC_RECV: its XRC domain; requests name an SRQ of this domain */
	uint32_t xrcdn;
	/** IBV_QPT_DRIVER: DPV_ENGINE_DC_DCI (sq and send_cq; a receive
	 *  ring is ignored) or DPV_ENGINE_DC_DCT (srq and recv_cq, no sq) */
	uint8_t dc_type;
	/** DPV_ENGINE_DC_DCT: the DC access key every request must carry */
	uint64_t dct_key;
	/** DPV_ENGINE_DC_DCI: streams (mlx5dv dci_streams): a local error
	 *  of a WQE puts only its stream (dpv_wr::stream_id) in error */
	bool dci_streams;
	/** with dci_streams: the DCI goes to ERR when 2^dci_log_errored
	 *  streams are in error (0..DPV_ENGINE_DCI_MAX_LOG_ERRORED) */
	uint8_t dci_log_errored;
	/** UD, IBV_QP_CREATE_SOURCE_QPN: the QP sends with this number as
	 *  its DETH source QP (and UDP source port), takes no frame
	 *  addressed to qpn, and receives the frames addressed to
	 *  source_qpn that one of its flows (dpv_engine_flow_add, NORMAL)
	 *  matches (doc/guides/qp.rst, Source QPN) */
	bool use_source_qpn;
	/** with use_source_qpn: the number, < 1 << 24 */
	uint32_t source_qpn;
};

/** dpv_engine_qp_init::dc_type of a DC initiator (mlx5dv DCI). */
#define DPV_ENGINE_DC_DCI 1
/** dpv_engine_qp_init::dc_type of a DC target (mlx5dv DCT). */
#define DPV_ENGINE_DC_DCT 2
/** Largest dpv_engine_qp_init::dci_log_errored. */
#define DPV_ENGINE_DCI_MAX_LOG_ERRORED 4

/**
 * mlx5dv_dci_stream_id_reset(): take stream_id of a DCI with streams out
 * of error (its next WQEs execute again).
 *
 * @param e the engine
 * @param qpn the DCI
 * @param stream_id the stream
 * @return 0; -ENOENT no such QP; -EINVAL not a DCI with streams, or the
 *   stream is not in error.
 */
int dpv_engine_dci_stream_reset(struct dpv_engine *e, uint32_t qpn,
				uint16_t stream_id);
/** Initiators whose responder state one DCT keeps at once; the least
 *  recently used one is evicted for a new one (doc/guides/dc.rst). */
#define DPV_ENGINE_DCT_MAX_INI 32

/**
 * The resolved network path of an address vector (ah_attr of an RC/UC QP
 * at RTR, or of a UD address handle): what goes into the Ethernet, IP and
 * UDP headers. The verbs layer fills it from the GID table and neighbour
 * resolution.
 */
struct dpv_engine_path {
	uint8_t smac[6];       /**< source MAC (the port's) */
	uint8_t dmac[6];       /**< destination MAC (resolved neighbour) */
	uint8_t sgid[16];      /**< source GID (IPv4-mapped -> IPv4 packets) */
	uint8_t dgid[16];      /**< destination GID */
	uint8_t traffic_class; /**< IPv4 TOS / IPv6 traffic class */
	uint8_t hop_limit;     /**< TTL; 0 means 64 (what rxe sends) */
	uint32_t flow_label;   /**< IPv6 only */
	uint16_t udp_sport;    /**< 0: derived from the QPNs */
	uint16_t vlan;	       /**< 0: untagged; else the TCI */
};

/**
 * Create a QP context in RESET. Takes the engine lock.
 *
 * @param e
 *   The engine.
 * @param init
 *   The QP: number, type, PD, rings and CQs (copied; the rings must
 *   outlive the QP context).
 * @return
 *   0; -EINVAL (NULL argument, bad type, qpn >= 1 << 24, a send ring
 *   without send_cq, a receive ring or SRQ without recv_cq, both rq and
 *   srq, rings on an XRC_RECV QP, a receive ring on an XRC_SEND QP, a
 *   DRIVER QP without a valid dc_type, a DCI without a send ring, a DCT
 *   without an SRQ or with a send ring),
 *   -EEXIST (qpn in use), -ENOSPC (max_qps), -ENOMEM.
 */
int dpv_engine_qp_create(struct dpv_engine *e,
			 const struct dpv_engine_qp_init *init);

/**
 * Apply ibv_modify_qp attributes (already validated by the verbs layer's
 * state-machine check). The engine takes from attr, per mask: qp_state,
 * path_mtu, qkey, rq_psn, sq_psn, dest_qp_num, qp_access_flags, timeout,
 * retry_cnt, rnr_retry, min_rnr_timer, max_rd_atomic, max_dest_rd_atomic,
 * and with IBV_QP_AV the path.
 * max_dest_rd_atomic (default 128 until set, at most 128) sizes the ring of
 * saved READ/atomic responses answering duplicates; 0: READ/atomic
 * requests are answered with NAK Invalid Request. max_rd_atomic 0 counts
 * as 1 (as mlx5 does). Takes the engine lock.
 *
 * @param e
 *   The engine.
 * @param qpn
 *   The QP.
 * @param attr
 *   The attributes (struct ibv_qp_attr), read as mask says.
 * @param mask
 *   enum ibv_qp_attr_mask bits.
 * @param path
 *   Required when mask has IBV_QP_AV (RC/UC); ignored otherwise.
 * @return
 *   0; -ENOENT (no such qpn), -EINVAL (IBV_QP_AV without path).
 *   Moving to IBV_QPS_ERR flushes outstanding WQEs (IBV_WC_WR_FLUSH_ERR);
 *   moving to IBV_QPS_RESET clears PSNs, in-flight state and timers.
 */
int dpv_engine_qp_modify(struct dpv_engine *e, uint32_t qpn,
			 const struct ibv_qp_attr *attr, int mask,
			 const struct dpv_engine_path *path);

/**
 * Current state of a QP as the engine sees it (it moves a QP to ERR on an
 * error completion, or to SQE/SQD). Takes the engine lock.
 *
 * @param e
 *   The engine.
 * @param qpn
 *   The QP.
 * @return
 *   The enum ibv_qp_state (>= 0); -EINVAL if e is NULL; -ENOENT (no such
 *   QP).
 */
int dpv_engine_qp_state(struct dpv_engine *e, uint32_t qpn);

/**
 * Whether a QP has send WQEs fetched by the engine but not yet completed
 * (in SQD: the send queue is still draining). Takes the engine lock.
 *
 * @param e
 *   The engine.
 * @param qpn
 *   The QP.
 * @return
 *   1 (draining), 0 (nothing outstanding); -EINVAL if e is NULL; -ENOENT
 *   (no such QP).
 */
int dpv_engine_qp_sq_busy(struct dpv_engine *e, uint32_t qpn);

/**
 * Destroy a QP context: owed ACKs are sent first, its frames in flight
 * and timers are dropped. Nothing is flushed (the verbs layer destroys
 * the rings). Takes the engine lock.
 *
 * @param e
 *   The engine.
 * @param qpn
 *   The QP.
 * @return
 *   0; -EINVAL if e is NULL; -ENOENT (no such QP).
 */
int dpv_engine_qp_destroy(struct dpv_engine *e, uint32_t qpn);

/**
 * Fault injection for tests: drop on average one in every_n frames the
 * engine transmits (after building it, so PSNs advance as if it was lost
 * on the wire), chosen by a pseudo-random sequence restarted by each call.
 * @param e
 *   The engine.
 * @param every_n
 *   0 turns it off.
 */
void dpv_engine_inject_tx_loss(struct dpv_engine *e, uint32_t every_n);

/**
 * Fault injection for tests: while on, the engine's port takes no frame
 * (as a memif port whose peer died): built frames wait in the engine's TX
 * buffer and the requester stops for lack of room. Timers still run.
 * @param e
 *   The engine.
 * @param on
 *   true to stall, false to let frames go again.
 */
void dpv_engine_inject_tx_stall(struct dpv_engine *e, bool on);

/* ------------------------------------------------------------ neighbours */

/**
 * Resolve the MAC of an IP address (given as a GID: IPv4-mapped or IPv6)
 * for a path, as the kernel does for hardware RoCE at RTR time: the port's
 * static neighbours first, then what the engine learned from ARP / ND
 * traffic, else ARP requests / neighbour solicitations every 200 ms while
 * polling the engine, until timeout_ms. The engine always answers ARP
 * requests and solicitations for the device's own addresses.
 * Takes the engine lock: do not call with it held.
 *
 * @param e
 *   The engine.
 * @param gid
 *   The destination GID (IPv4-mapped or IPv6).
 * @param mac
 *   Out: the neighbour's MAC.
 * @param timeout_ms
 *   How long to keep asking (0: one request and one poll, no wait).
 * @return 0 and mac; -ETIMEDOUT; -EADDRNOTAVAIL (no source address of the
 *   GID's family); -EINVAL on NULL. Without a port (internal loopback) the
 *   answer is the engine's own MAC.
 */
int dpv_engine_neigh_resolve(struct dpv_engine *e, const uint8_t gid[16],
			     uint8_t mac[6], unsigned timeout_ms);

/* ----------------------------------------------------------- counters */

/**
 * Counters: one X-macro list, X(name, per_qp, description), so that names,
 * fields and their meaning stay together and every consumer (DPV_STATS,
 * rte_telemetry, the API reference) expands the same list. Every counter
 * is kept per engine (device); those with per_qp 1 are also kept per QP
 * (struct dpv_engine_qp_stats). The description is a string constant.
 */
#define DPV_ENGINE_COUNTERS(X)                                                 \
	X(rx_pkts, 1, "frames received (per QP: the frames dispatched to it)") \
	X(tx_pkts, 0, "frames sent")                                           \
	X(rx_bursts, 0, "receive bursts that brought frames")                  \
	X(tx_bursts, 0, "transmit bursts the port took frames from")           \
	X(rx_bytes, 0, "bytes of the frames received (whole frames)")          \
	X(tx_bytes, 0, "bytes of the frames sent (whole frames)")              \
	X(acks_sent, 1, "ACK and NAK frames sent")                             \
	X(acks_rcvd, 1, "ACK and NAK frames received")                         \
	X(rx_acks_fast, 0,                                                     \
	  "ACKs checked against their QP's last one instead of parsed")        \
	X(rx_reqs_fast, 0,                                                     \
	  "one-packet requests checked against their QP's last one")           \
	X(rx_drop_parse, 0,                                                    \
	  "dropped: bad frame or header (sum of rx_drop_parse_<reason>)")      \
	X(rx_drop_icrc, 0,                                                     \
	  "dropped: bad ICRC (also counted in rx_drop_parse)")                 \
	X(rx_neigh, 0, "ARP and neighbour discovery frames handled")           \
	X(rx_netdev, 0,                                                        \
	  "frames that are not RoCE handed to the kernel interface")           \
	X(rx_netdev_drop, 0,                                                   \
	  "frames for the kernel interface it did not take")                   \
	X(tx_netdev, 0, "frames the kernel interface sent on the port")        \
	X(tx_netdev_drop, 0,                                                   \
	  "frames from the kernel interface dropped: the TX buffer was full")  \
	X(rx_drop_pkey, 0,                                                     \
	  "dropped: BTH P_Key not in the P_Key table (0xffff)")                \
	X(rx_drop_noqp, 0, "dropped: no QP with the destination QP number")    \
	X(rx_fwd, 0,                                                           \
	  "frames handed to the shard that owns their QP (or to the home "     \
	  "shard)")                                                            \
	X(rx_fwd_in, 0, "frames received from another shard")                  \
	X(rx_fwd_drop, 0, "dropped: the owning shard's forward ring was full") \
	X(rx_drop_srcqpn, 0,                                                   \
	  "dropped: for the own number of a source-QPN QP (it receives "       \
	  "through its flows only)")                                           \
	X(rx_srcqpn, 1,                                                        \
	  "frames to a source QPN steered to a QP by one of its flows")        \
	X(rx_drop_addr, 1,                                                     \
	  "dropped: for another MAC, or (RC/UC) not from the QP's peer")       \
	X(rx_drop_dip, 1,                                                      \
	  "dropped: destination IP not the QP's / the device's")               \
	X(rx_drop_state, 1, "dropped: the QP's state takes no packets")        \
	X(rx_drop_len, 1,                                                      \
	  "payload length against the path MTU (RC requests: NAKed)")          \
	X(rx_drop_qkey, 1, "dropped: UD Q_Key violation")                      \
	X(tx_drop_nombuf, 0, "frames not built: no mbuf")                      \
	X(tx_drop_injected, 0,                                                 \
	  "frames dropped by dpv_engine_inject_tx_loss()")                     \
	X(tx_drop_full, 0, "frames dropped: the TX buffer was full")           \
	X(retransmits, 1, "requests sent again (timeout or NAK)")              \
	X(tx_stall_timeouts, 1,                                                \
	  "ACK timeouts whose retransmission the port refused (link up); "     \
	  "for a stall's first second they keep the QP's retries")             \
	X(probes_refused, 1,                                                   \
	  "ACK request probes the port had no room for (tried again "          \
	  "shortly, DPV_ENGINE_PROBE_REFUSED times in a row at most unless "   \
	  "the QP has no ACK timer)")                                          \
	X(rnr_naks_sent, 1, "receiver-not-ready NAKs sent")                    \
	X(rnr_naks_rcvd, 1, "receiver-not-ready NAKs received")                \
	X(seq_naks_sent, 1, "PSN sequence error NAKs sent")                    \
	X(seq_naks_rcvd, 1, "PSN sequence error NAKs received")                \
	X(inv_req_naks_sent, 1, "invalid request NAKs sent")                   \
	X(inv_req_naks_rcvd, 1, "invalid request NAKs received")               \
	X(rem_access_naks_sent, 1, "remote access error NAKs sent")            \
	X(rem_access_naks_rcvd, 1, "remote access error NAKs received")        \
	X(rem_op_naks_sent, 1, "remote operational error NAKs sent")           \
	X(rem_op_naks_rcvd, 1, "remote operational error NAKs received")       \
	X(dup_requests, 1, "duplicate requests answered")                      \
	X(dup_rd_atomic_dropped, 1,                                            \
	  "duplicate READ/atomic whose response is no longer held")            \
	X(rd_atomic_recycled, 1,                                               \
	  "saved READ/atomic responses overwritten by newer ones")             \
	X(rd_resp_waits, 1,                                                    \
	  "READ responses / atomics held for room in the port or the QP's "    \
	  "turn (sent later, in order)")                                       \
	X(rd_resp_dropped, 1,                                                  \
	  "READ responses not sent: the region went, or the entry was "        \
	  "reused before they left")                                           \
	X(credit_stalls, 1,                                                    \
	  "SEND / WRITE with immediate held back for end-to-end credits "      \
	  "(once per credit limit)")                                           \
	X(credit_probes, 1,                                                    \
	  "messages sent beyond the peer's end-to-end credits (the one "       \
	  "message allowed to ask)")                                           \
	X(dc_key_errors, 1,                                                    \
	  "DC requests dropped at a DCT: wrong DC access key")                 \
	X(dc_drops, 1,                                                         \
	  "DC packets dropped: not a DC request (DCT), or in the middle of "   \
	  "a connection whose state the DCT no longer holds")                  \
	X(dc_connects, 1,                                                      \
	  "DC connections opened (DCI: to a new target; DCT: an initiator's "  \
	  "new connection)")                                                   \
	X(dc_evictions, 1,                                                     \
	  "DCT initiator states evicted (least recently used) for new ones")   \
	X(key_errors, 0, "remote accesses refused by the key check")           \
	X(cqes, 0, "completions written")                                      \
	X(ack_probes, 0,                                                       \
	  "unsignaled messages whose last packet went again to ask for the "   \
	  "ACK nothing had asked for (ACK request probes)")                    \
	X(bursts_late, 0,                                                      \
	  "bursts of posts held back that a background thread found waiting "  \
	  "over 20 us (two in a row: holding back stops for 100 ms)")          \
	X(posts_busy, 0,                                                       \
	  "posts that found the engine in another thread's poll, taken up by " \
	  "a poll after it (a background thread's polls again at once)")

/** Prefix of the per-reason parse counters: "rx_drop_parse_" followed by
 * dpv_roce_rx_status_name() ("rx_drop_parse_tver"). */
#define DPV_ENGINE_PARSE_CNT_PREFIX "rx_drop_parse_"

/** The device counters: one field per DPV_ENGINE_COUNTERS entry, then the
 *  parse drops by reason. */
struct dpv_engine_stats {
/** A field of struct dpv_engine_stats for counter n (description d). */
#define DPV_ENGINE_CNT_FIELD(n, q, d) uint64_t n; /**< d */
	DPV_ENGINE_COUNTERS(DPV_ENGINE_CNT_FIELD)
#undef DPV_ENGINE_CNT_FIELD
	/** Frames lib/roce's parser rejected, by enum dpv_roce_rx_status
	 *  (their sum is rx_drop_parse; [DPV_ROCE_RX_OK] stays 0). */
	uint64_t rx_drop_parse_why[DPV_ROCE_RX_STATUS_NUM];
};

/** Helper of DPV_ENGINE_QP_CNT_FIELD: expands x for a per-QP counter. */
#define DPV_ENGINE_CNT_IF_1(x) x
/** Helper of DPV_ENGINE_QP_CNT_FIELD: nothing for a device-only counter. */
#define DPV_ENGINE_CNT_IF_0(x)

/** The per-QP counters (the entries of DPV_ENGINE_COUNTERS with per_qp 1). */
struct dpv_engine_qp_stats {
/** A field of struct dpv_engine_qp_stats for counter n if per_qp q is 1. */
#define DPV_ENGINE_QP_CNT_FIELD(n, q, d)                                       \
	DPV_ENGINE_CNT_IF_##q(uint64_t n; /**< d */)
	DPV_ENGINE_COUNTERS(DPV_ENGINE_QP_CNT_FIELD)
#undef DPV_ENGINE_QP_CNT_FIELD
};

/**
 * Copy one QP's counters (takes the engine lock briefly).
 *
 * @param e
 *   The engine.
 * @param qpn
 *   The QP (RC, UC, UD, XRC; raw-packet QPs keep none).
 * @param out
 *   Out: the counters.
 * @return
 *   0, -EINVAL (NULL argument), -ENOENT (no such QP).
 */
int dpv_engine_qp_stats_get(struct dpv_engine *e, uint32_t qpn,
			    struct dpv_engine_qp_stats *out);

/**
 * Where a QP's queues and sequence numbers stand (telemetry's
 * /dpverbs/qp): enough to tell a WQE the engine never took from one sent
 * and not acknowledged, or a request the peer never sent from one this
 * side refused. The counts run free (32 bits, wrapping); a QP without a
 * send or a receive queue of its own reads 0 there.
 */
struct dpv_engine_qp_state {
	uint32_t sq_posted;    /**< WRs posted through the verbs calls
				  (direct-verbs rings written by hand: 0) */
	uint32_t sq_fetched;   /**< WQEs the engine took from the ring */
	uint32_t sq_sent;      /**< WQEs whose requests all went out */
	uint32_t sq_done;      /**< WQEs the engine finished (CQE or not) */
	uint32_t sq_polled;    /**< WRs whose completion the application
				    polled */
	uint32_t sq_psn;       /**< next PSN to send */
	uint32_t sq_acked_psn; /**< next PSN an ACK or response must carry
				    (all before it acknowledged) */
	uint32_t rq_posted;    /**< receive WRs posted (own RQ) */
	uint32_t rq_taken;     /**< receive WQEs the engine took (own RQ) */
	uint32_t rq_psn;       /**< next request PSN expected */
	uint32_t rq_msn;       /**< MSN of the last message done */
	uint8_t retry_left;    /**< retries left for the oldest request */
	uint8_t rnr_left;      /**< RNR retries left */
	bool on_run_list;      /**< the engine looks at it each pass */
	/** the retransmission timer: microseconds until it fires (0: due),
	 *  UINT64_MAX when off */
	uint64_t timer_us;
};

/**
 * Copy where a QP stands (takes the engine lock briefly).
 *
 * @param e
 *   The engine.
 * @param qpn
 *   The QP (RC, UC, UD, XRC).
 * @param out
 *   Out: its state.
 * @return
 *   0, -EINVAL (NULL argument), -ENOENT (no such QP).
 */
int dpv_engine_qp_state_get(struct dpv_engine *e, uint32_t qpn,
			    struct dpv_engine_qp_state *out);

/**
 * Copy the device counters, without the engine lock (each counter is read
 * whole; the set is not a consistent snapshot while the engine runs).
 *
 * @param e
 *   The engine.
 * @param out
 *   Out: the counters.
 * @return
 *   0, or -EINVAL if an argument is NULL.
 */
int dpv_engine_stats_get(struct dpv_engine *e, struct dpv_engine_stats *out);

/** A device counter by name (dpv_engine_stats_list()). */
struct dpv_engine_counter {
	const char *name; /**< static string, e.g. "rx_drop_pkey" */
	uint64_t value;	  /**< its value in the snapshot */
};

/** Helper of DPV_ENGINE_N_COUNTERS: +1 for each DPV_ENGINE_COUNTERS entry. */
#define DPV_ENGINE_CNT_ONE_(n, q, d) +1

/** Number of counters dpv_engine_stats_list() names. */
#define DPV_ENGINE_N_COUNTERS                                                  \
	(0 DPV_ENGINE_COUNTERS(DPV_ENGINE_CNT_ONE_) + DPV_ROCE_RX_STATUS_NUM - 1)

/**
 * Name every device counter of a snapshot: the DPV_ENGINE_COUNTERS
 * entries in their order, then "rx_drop_parse_<reason>" for each reason
 * of enum dpv_roce_rx_status but OK. The one list that telemetry, dpv-cmd,
 * DPV_STATS and dpv_device_counters() show.
 *
 * @param st
 *   Snapshot (dpv_engine_stats_get()).
 * @param out
 *   Output, n entries (may be NULL when n is 0).
 * @param n
 *   Entries at out.
 * @return
 *   DPV_ENGINE_N_COUNTERS (entries beyond n are not written).
 */
unsigned dpv_engine_stats_list(const struct dpv_engine_stats *st,
			       struct dpv_engine_counter *out, unsigned n);

/* ------------------------------------------ pure helpers (unit tested) */

/**
 * The RNR timer encoded in 5 bits (IBA table "RNR NAK timer field"),
 * in microseconds: 0 -> 655.36 ms, 1 -> 0.01 ms ... 31 -> 491.52 ms.
 *
 * @param code
 *   The 5-bit code (min_rnr_timer, the AETH's timer field).
 * @return
 *   Microseconds, rounded up; codes >= 32 use code & 31.
 */
uint32_t dpv_rnr_timer_us(uint8_t code);

/**
 * Local ACK timeout of an RC QP: 4.096 us * 2^timeout, in nanoseconds
 * (the engine arms its timer with at least 1 ms).
 *
 * @param timeout
 *   The 5-bit exponent (ibv_qp_attr.timeout).
 * @return
 *   Nanoseconds; 0 for timeout == 0 (infinite, no retransmission timer);
 *   timeouts > 31 are clamped to 31.
 */
uint64_t dpv_ack_timeout_ns(uint8_t timeout);

/**
 * Bytes of an enum ibv_mtu.
 *
 * @param mtu
 *   IBV_MTU_256 (1) ... IBV_MTU_4096 (5).
 * @return
 *   256 ... 4096; 0 for any other value.
 */
uint32_t dpv_mtu_bytes(enum ibv_mtu mtu);

/**
 * Copy what a peer placed into application memory (RDMA WRITE data, READ
 * responses, received messages) as a NIC's DMA writes it: every
 * destination byte is stored once, in ascending order of address, and
 * the cache line of the last byte in a single store where the CPU has
 * AVX-512BW. An application that polls a byte of the buffer (the last
 * one of a WRITE, as ping-pongs over one buffer and riostream do) sees
 * the bytes before it in place once it changes, and may write into the
 * buffer then: no later store of the landing undoes its write. memcpy()
 * gives neither: glibc's AVX-512 copy of 64 bytes stores all 64 twice,
 * and larger copies store their first and last bytes after the middle.
 *
 * @param dst
 *   Destination (application memory).
 * @param src
 *   Source (a received frame's payload).
 * @param n
 *   Bytes.
 */
void dpv_engine_land(void *dst, const void *src, size_t n);

/**
 * Choose dpv_engine_land()'s code once EAL is up: stores as wide as the
 * CPU has (AVX-512BW, AVX2, else 16 bytes) and EAL allows
 * (--force-max-simd-bitwidth). dpv_engine_create() calls it; until then
 * dpv_engine_land() stores 16 bytes at a time.
 *
 * @return
 *   The width chosen, in bits: 512, 256 or 128.
 */
unsigned dpv_engine_land_select(void);

/**
 * dpv_engine_land() with stores of at most `bits` bits (the widest of
 * 512, 256 and 128 the CPU has up to it): for tests of each variant on a
 * machine with the widest.
 *
 * @param dst
 *   Destination (application memory).
 * @param src
 *   Source.
 * @param n
 *   Bytes.
 * @param bits
 *   512, 256 or 128.
 * @return
 *   The width used, in bits.
 */
unsigned dpv_engine_land_bits(void *dst, const void *src, size_t n,
			      unsigned bits);

/**
 * Number of packets a message takes (a zero-length message still takes
 * one packet).
 *
 * @param len
 *   Message length in bytes.
 * @param mtu
 *   Path MTU in bytes (not 0).
 * @return
 *   ceil(len / mtu), at least 1.
 */
static inline uint32_t
dpv_pkt_count(uint64_t len, uint32_t mtu)
{
	/* no 64-bit division (tens of cycles) for a one-packet message */
	if (len <= mtu)
		return 1;
	if ((mtu & (mtu - 1)) == 0) /* IBTA path MTUs are */
		return (uint32_t)((len + mtu - 1) >> __builtin_ctz(mtu));
	return (uint32_t)((len + mtu - 1) / mtu);
}

/** Result of a key check. */
enum dpv_key_status {
	DPV_KEY_OK = 0,
	DPV_KEY_BAD_KEY,    /**< no such key, wrong variant, or invalid */
	DPV_KEY_BAD_PD,	    /**< PD of key differs from the QP's */
	DPV_KEY_BAD_BOUNDS, /**< [va, va+len) not inside the region */
	DPV_KEY_BAD_ACCESS, /**< the access flag is missing */
	DPV_KEY_BAD_QP,	    /**< type 2 MW bound to another QP */
};

/**
 * Check one access against a key table (the check behind every SGE and
 * every RETH / AtomicETH). len 0 is always OK. va is in the key's iova
 * space (local SGEs and remote addresses alike, as with
 * ibv_reg_mr_iova): it is checked against [iova, iova + length) and
 * translated to addr + (va - iova).
 *
 * @param tbl
 *   The key table (max_keys entries).
 * @param max_keys
 *   Its size.
 * @param key, pdn, qpn
 *   The key used, the accessing QP's PD and number.
 * @param va, len
 *   The range accessed.
 * @param need
 *   The access required (0 = local read, IBV_ACCESS_LOCAL_WRITE,
 *   IBV_ACCESS_REMOTE_WRITE, IBV_ACCESS_REMOTE_READ,
 *   IBV_ACCESS_REMOTE_ATOMIC).
 * @param host
 *   Out: the process address of va (may be NULL).
 * @return a dpv_key_status.
 */
enum dpv_key_status dpv_key_check(const struct dpv_engine_key *tbl,
				  uint32_t max_keys, uint32_t key, uint32_t pdn,
				  uint32_t qpn, uint64_t va, uint64_t len,
				  uint32_t need, void **host);

/**
 * The same check as dpv_key_check() against one entry, e.g. a copy
 * returned by a dpv_engine_conf::key_lookup hook.
 *
 * @param k
 *   The entry of key, or NULL (no such key: DPV_KEY_BAD_KEY unless len
 *   is 0).
 * @param key, pdn, qpn
 *   The key used, the accessing QP's PD and number.
 * @param va, len
 *   The range accessed (in the key's iova space).
 * @param need
 *   The access required, as for dpv_key_check().
 * @param host
 *   Out: the process address of va (may be NULL).
 * @return
 *   A dpv_key_status: DPV_KEY_OK, or why the access is refused.
 */
enum dpv_key_status dpv_key_check_one(const struct dpv_engine_key *k,
				      uint32_t key, uint32_t pdn, uint32_t qpn,
				      uint64_t va, uint64_t len, uint32_t need,
				      void **host);

/**
 * Fault [va, va + len) of this process in as an access would, without
 * the risk of a signal: madvise(MADV_POPULATE_WRITE) over its pages if
 * write, else MADV_POPULATE_READ (Linux 5.14 on). The check of every
 * access through an implicit key (DPV_ENGINE_KEY_IMPLICIT), a system
 * call each; ibv_advise_mr's prefetch.
 *
 * @param va, len
 *   The range (len 0: nothing to do).
 * @param write
 *   The access writes (the pages must be writable).
 * @return
 *   0; ENOMEM if part of the range is not mapped; EINVAL, EFAULT or
 *   EHWPOISON if a page cannot be accessed so (protection, an I/O
 *   mapping, a file's hole past its end); EOPNOTSUPP if the kernel
 *   cannot populate (dpv_engine_mem_fault_supported()).
 */
int dpv_engine_mem_fault(uint64_t va, uint64_t len, bool write);

/**
 * Whether dpv_engine_mem_fault() works on this kernel; probed once.
 * Implicit keys are offered only where it does: without it an access
 * could not be checked.
 *
 * @return
 *   true if the kernel knows MADV_POPULATE_READ/WRITE (Linux 5.14 on).
 */
bool dpv_engine_mem_fault_supported(void);

/**
 * Memory window bind rules (IBA 10.6.7): compute the new state of window
 * *mw from the decoded bind b posted on QP qpn of PD pdn, with mr the
 * region named by b->mr_lkey (NULL if none). Checked: mw is a live window
 * of the bind's type and of PD pdn; a type 2 window is not bound already;
 * for a non-zero length: mr is a live region of key b->mr_lkey and PD pdn
 * with IBV_ACCESS_MW_BIND, [b->addr, b->addr + b->length) lies inside the
 * region (in its iova space), remote write / atomic access needs a
 * locally writable region. A zero length binds nothing (the window is
 * left unbound with the new key). On success the window gets the key
 * index(mw->key) << 8 | b->new_key, the remote access flags of the bind,
 * the region's process address of b->addr, iova b->addr (0 with
 * IBV_ACCESS_ZERO_BASED), and for type 2 qpn.
 *
 * @param mw
 *   The window's entry, updated on success.
 * @param mr
 *   The region's entry, or NULL if b->mr_lkey names none.
 * @param b
 *   The decoded bind work request.
 * @param pdn
 *   PD of the QP that posted the bind.
 * @param qpn
 *   That QP's number.
 * @return
 *   IBV_WC_SUCCESS and *mw updated; IBV_WC_MW_BIND_ERR and *mw untouched.
 */
enum ibv_wc_status dpv_key_bind_apply(struct dpv_engine_key *mw,
				      const struct dpv_engine_key *mr,
				      const struct dpv_wr_bind *b, uint32_t pdn,
				      uint32_t qpn);

/**
 * Map byte off of an indirect key's range to the entry that holds it.
 *
 * @param k
 *   A configured indirect key (type DPV_ENGINE_KEY_INDIRECT).
 * @param off
 *   Offset in the key's zero-based range.
 * @param lkey
 *   Out: the key of the memory holding that byte.
 * @param addr
 *   Out: its address in lkey's iova space.
 * @param run
 *   Out: bytes from there on that the same entry maps contiguously.
 * @return
 *   true; false if off is not inside the range.
 */
bool dpv_key_layout_map(const struct dpv_engine_key *k, uint64_t off,
			uint32_t *lkey, uint64_t *addr, uint64_t *run);

/**
 * Indirect-key configuration rules: may the configuration u with entries
 * ent[] (u->num of them) be applied to key entry mk, posted by a QP of PD
 * pdn? mk must be a live indirect key of key u->mkey and of PD pdn, not
 * configured already unless u has DPV_UMR_RECONF (mlx5dv_wr_mkey_configure
 * overrides; mlx5dv_wr_mr_list needs an invalidation first), the access
 * flags (DPV_UMR_SET_ACCESS) only LOCAL_WRITE and REMOTE_*; a layout
 * (DPV_UMR_SET_LAYOUT) must have u->num at least 1 fitting max_entries
 * (an interleaved layout takes one entry more, for its repetition
 * header) and map at least one byte. The entries' keys are not looked at
 * here: each access through the key checks them.
 *
 * @param mk
 *   The indirect key's entry, or NULL.
 * @param max_entries
 *   Entries the key was created for.
 * @param u
 *   The decoded configuration.
 * @param ent
 *   Its entries.
 * @param pdn
 *   PD of the posting QP.
 * @param block
 *   Out on success: bytes one repetition maps (0 without a layout).
 * @return
 *   IBV_WC_SUCCESS; IBV_WC_LOC_PROT_ERR if any rule refuses (as a
 *   ConnectX reports a UMR it cannot apply).
 */
enum ibv_wc_status dpv_key_layout_check(const struct dpv_engine_key *mk,
					uint32_t max_entries,
					const struct dpv_wr_umr *u,
					const struct dpv_klm *ent, uint32_t pdn,
					uint64_t *block);

/**
 * Invalidation rules (IBA 10.6.7.2): may key (entry k, NULL if none) be
 * invalidated by QP qpn of PD pdn? The key must be live and of PD pdn;
 * type 1 windows cannot be invalidated; a type 2 window must be bound,
 * and for a remote invalidation (SEND with invalidate) bound to qpn.
 * Regions are accepted only if allow_mr (the engine's own table treats
 * them as fast-register regions; the verbs layer has none). An indirect
 * key may be invalidated locally (configured or not), remotely only if it
 * was created for it (remote_inv).
 *
 * @param k
 *   The entry of key, or NULL.
 * @param key
 *   The key to invalidate (index and variant).
 * @param pdn
 *   PD of the invalidating QP.
 * @param qpn
 *   The invalidating QP (the local one for LOCAL_INV, the receiver for
 *   a SEND with invalidate).
 * @param remote
 *   true for a SEND with invalidate, false for a local invalidate.
 * @param allow_mr
 *   Whether a memory region may be invalidated.
 * @return
 *   0; -ENOENT (not live / other key); -EACCES (the rules refuse).
 */
int dpv_key_invalidate_check(const struct dpv_engine_key *k, uint32_t key,
			     uint32_t pdn, uint32_t qpn, bool remote,
			     bool allow_mr);

/**
 * Name of a key status, for logs.
 *
 * @param s
 *   The status.
 * @return
 *   A static string ("ok", "bad key", ...); "?" for a value out of range.
 */
const char *dpv_key_status_str(enum dpv_key_status s);

/**
 * Coalesced ACKs: the responder records the PSN of each request packet
 * that asks for an ACK (or completes a message) and sends one cumulative
 * ACK per poll iteration for the latest. These are the rules.
 */
struct dpv_ack_state {
	bool pending; /**< an ACK is owed */
	uint32_t psn; /**< PSN to acknowledge (cumulative) */
	uint32_t msn; /**< MSN to report */
};

/**
 * Note that a request packet (in sequence) must be acknowledged: the owed
 * ACK moves forward to psn, never back.
 *
 * @param a
 *   The QP's ACK state.
 * @param psn
 *   The packet's PSN.
 * @param msn
 *   The MSN to report with it.
 */
static inline void
dpv_ack_note(struct dpv_ack_state *a, uint32_t psn, uint32_t msn)
{
	if (!a->pending || dpv_psn_cmp(psn, a->psn) >= 0) {
		a->psn = psn;
		a->msn = msn;
	}
	a->pending = true;
}

/**
 * Take the owed ACK (at flush time) and clear it.
 *
 * @param a
 *   The QP's ACK state.
 * @param psn
 *   Out: the PSN to acknowledge (untouched if none is owed).
 * @param msn
 *   Out: the MSN to report (untouched if none is owed).
 * @return
 *   true if an ACK was owed, false otherwise.
 */
static inline bool
dpv_ack_take(struct dpv_ack_state *a, uint32_t *psn, uint32_t *msn)
{
	if (!a->pending)
		return false;
	*psn = a->psn;
	*msn = a->msn;
	a->pending = false;
	return true;
}

#ifdef __cplusplus
}
#endif

#endif
