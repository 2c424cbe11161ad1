/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The engine: creation, the run-to-completion poll loop, the key table,
 * QP contexts and the helpers the requester, responder and completer share.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_pause.h>
#include <rte_errno.h>
#include <rte_hash.h>
#include <rte_jhash.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_ring.h>

#include "engine_int.h"
#include "engine_rxcheck.h"
#include "dpv_engine_raw.h"
#include "dpv_port.h"
#include "dpv_roce_gid.h"
#include "dpv_roce_icrc.h"
#include "mlx5_ring.h"

RTE_LOG_REGISTER(dpv_logtype_engine, dpv.engine, NOTICE);

#define LOOP_RING_SIZE 4096
#define FWD_RING_SIZE 2048 /* frames from other shards, waiting */
/* QPs off the run list whose doorbells one poll checks */
#define SCAN_SLICE 64
/* more QPs than this (their state beyond the L2's share): a receive burst
 * prefetches each frame's QP lines one frame ahead (rx_prefetch_qp), and
 * a kick the engine's WQE slot (take_kicks) */
#define PREFETCH_QPS 64
/* with kicks, a sweep of all QPs for timers at least every 1/SWEEP_DIV s
 * (those found due earlier are swept for when due) */
#define SWEEP_DIV 10
/* dpv_engine_progress_post(): posts less than 1/POST_BURST_DIV s apart
 * (5 us) are a burst; every POST_POLL_EVERY-th post of a burst polls.
 * Posts of a burst wait for the next call: a background thread's poll
 * that finds them waiting longer than 1/POST_LATE_DIV s (20 us) after the
 * burst's last timed post shows that no call came (the application waits
 * on memory instead, and the thread's nap sent them). After
 * POST_LATE_RUN such bursts in a row, bursts are not held back for
 * 1/POST_HOLD_OFF_DIV s (100 ms). */
#define POST_BURST_DIV 200000
#define POST_POLL_EVERY 16
/* a lone post sends up to this many passes' budgets of its message (a
 * MiB at a 1024 path MTU), as frames: with many QPs streaming, each pass
 * sends a budget on each */
#define LONE_POST_PASSES  32
/* ... and reads the receive side first if no poll has for 1/LONE_RX_DIV s
 * (1 ms): lone posts in a row, each sending for up to a millisecond, leave
 * it unread no longer. At 100 us, one post in 8 of ib_write_bw 64 KiB
 * polled, ~10 % of its rate (2 of 10 rounds won) */
#define LONE_RX_DIV	  1000
#define POST_LATE_DIV 50000
#define POST_LATE_RUN 2
#define POST_HOLD_OFF_DIV 10
/* an engine whose polls found nothing to do for 1/STASH_IDLE_DIV s
 * (1 ms) gives its mbuf stash back */
#define STASH_IDLE_DIV 1000
/* an ACK held back by an application's poll while requests of its QP
 * awaited their ACK stays held in the next polls that send nothing on
 * the QP, up to 1/ACK_REHOLD_DIV s (20 us, as long as the progress thread
 * lets an ACK held) (run_pass) */
#define ACK_REHOLD_DIV 50000
/* ... and, while the reply the application posted goes out in several
 * passes, until its last packet: up to 1/ACK_MSG_HOLD_FRAC of the QP's own
 * ACK timeout (a peer's is alike, and its timer must not expire for an
 * ACK held) and never longer than 1/ACK_MSG_HOLD_DIV s (1 ms) (run_pass) */
#define ACK_MSG_HOLD_FRAC 8
#define ACK_MSG_HOLD_DIV  1000
/* an af_xdp port is kicked at most every 1/KICK_DIV s (20 us) besides
 * its bursts (dpv_engine_poll) */
#define KICK_DIV 50000

bool dpv_engine_debug;

uint64_t
dpv_engine_now(void)
{
	return rte_get_timer_cycles();
}

/* The mbufs taken for frames not built yet go back to the pool (an idle
 * engine keeps none). */
static void
stash_return(struct dpv_engine *e)
{
	rte_pktmbuf_free_bulk(e->stash, e->nstash);
	e->nstash = 0;
}

struct dpv_engine *
dpv_engine_create(struct dpv_port *port, const struct dpv_engine_conf *conf)
{
	static const struct dpv_engine_conf defaults;
	struct rte_hash_parameters hp = {0};
	struct dpv_engine *e;
	char name[RTE_HASH_NAMESIZE];

	if (conf == NULL)
		conf = &defaults;
	if (conf->max_keys > (1u << 24) || (port == NULL && conf->mp == NULL)) {
		rte_errno = EINVAL;
		return NULL;
	}
	dpv_engine_land_select(); /* EAL is up: its SIMD width is known */
	e = rte_zmalloc("dpv_engine", sizeof(*e), RTE_CACHE_LINE_SIZE);
	if (e == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	rte_spinlock_init(&e->lock);
	e->cqmod_next = UINT64_MAX;
	TAILQ_INIT(&e->cqmod);
	e->scan_all = true; /* scan_mode_set() of no QP */
	e->port = port;
	e->port_kicks = port != NULL && dpv_port_tx_kicks(port);
	e->rxq = conf->rx_queue;
	e->txq = conf->tx_queue;
	e->mp = conf->mp;
	e->hz = rte_get_timer_hz();
	e->probe_cycles = e->hz * DPV_ENGINE_PROBE_US / 1000000;
	e->ackreq_pkts = DPV_ENGINE_ACKREQ_PKTS;
	e->resp_budget = DPV_ENGINE_RESP_BUDGET;
	e->kick_gap = e->hz / KICK_DIV;
	e->busy_gap = e->hz / 100;
	/* an engine made from a constructor may come before lib/roce's */
	dpv_roce_icrc_init();
	e->ack_k_psn = dpv_roce_icrc_word_factor(sizeof(struct dpv_aeth));
	e->ack_k_aeth = dpv_roce_icrc_word_factor(0);
	e->netdev_next = UINT64_MAX;
	e->conf = *conf; /* the verbs layer's hooks, called as they are */
	e->home = conf->home == NULL;
	if (e->home)
		e->conf.home = e;
	for (unsigned int i = 0; i < DPV_EKCACHE_SIZE; i++)
		e->kcache[i].snp = &dpv_ekcache_never;
	if (port != NULL) {
		struct dpv_port_info info;

		if (e->mp == NULL)
			e->mp = dpv_port_mempool(port);
		if (dpv_port_query(port, &info) == 0) {
			memcpy(e->mac, info.mac, 6);
			e->netdev = info.netdev_ifindex > 0;
		}
	} else {
		memcpy(e->mac, conf->mac, 6);
		memcpy(e->gid, conf->gid, 16);
		snprintf(name, sizeof(name), "dpv_lb_%p", (void *)e);
		e->loop = rte_ring_create(name, LOOP_RING_SIZE, SOCKET_ID_ANY,
					  RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (e->loop == NULL)
			goto fail;
	}
	if (e->mp == NULL) {
		rte_errno = EINVAL;
		goto fail;
	}
	if (e->netdev && e->home) /* shards: the home shard serves it */
		e->netdev_next = 0;
	e->mbuf_room = rte_pktmbuf_data_room_size(e->mp) - RTE_PKTMBUF_HEADROOM;

	e->max_keys = conf->max_keys ? conf->max_keys : 4096;
	if (e->conf.key_lookup == NULL) {
		e->keys = rte_zmalloc("dpv_engine_keys",
				      sizeof(*e->keys) * e->max_keys, 0);
		if (e->keys == NULL)
			goto nomem;
	}
	e->max_qps = conf->max_qps ? conf->max_qps : 1024;
	e->qpn_mask = rte_align32pow2(e->max_qps) - 1;
	e->qps = rte_zmalloc("dpv_engine_qps", sizeof(*e->qps) * e->max_qps, 0);
	e->run = rte_zmalloc("dpv_engine_run", sizeof(*e->run) * e->max_qps, 0);
	e->qpn_tab = rte_zmalloc("dpv_engine_qpn",
				 sizeof(*e->qpn_tab) * (e->qpn_mask + 1),
				 RTE_CACHE_LINE_SIZE);
	if (e->qps == NULL || e->run == NULL || e->qpn_tab == NULL)
		goto nomem;
	dpv_engine_debug =
		rte_log_can_log(dpv_logtype_engine, RTE_LOG_DEBUG);
	snprintf(name, sizeof(name), "dpv_qp_%p", (void *)e);
	hp.name = name;
	/* room to spare: a cuckoo table cannot fill to its last entry */
	hp.entries = e->max_qps < 8 ? 16 : 2 * e->max_qps;
	hp.key_len = sizeof(uint32_t);
	hp.hash_func = rte_jhash;
	hp.socket_id = SOCKET_ID_ANY;
	e->qp_hash = rte_hash_create(&hp);
	if (e->qp_hash == NULL)
		goto fail;
	snprintf(name, sizeof(name), "dpv_kk_%p", (void *)e);
	/* one entry per SQ at most (its kicked flag): never full */
	e->kick = rte_ring_create_elem(name, sizeof(uint32_t),
				       rte_align32pow2(e->max_qps + 1),
				       SOCKET_ID_ANY, RING_F_SC_DEQ);
	if (e->kick == NULL)
		goto fail;
	if (conf->qp_owner != NULL) {
		snprintf(name, sizeof(name), "dpv_fw_%p", (void *)e);
		e->fwd = rte_ring_create(name, FWD_RING_SIZE, SOCKET_ID_ANY,
					 RING_F_SC_DEQ);
		if (e->fwd == NULL)
			goto fail;
	}
	return e;
nomem:
	rte_errno = ENOMEM;
fail:
	ENGINE_LOG(ERR, "cannot create engine: %s", rte_strerror(rte_errno));
	dpv_engine_destroy(e);
	return NULL;
}

/* Per-QP state comes from the process, not the DPDK heap (which -m
 * bounds, and which keeps the pages of what it frees). */
static void
qp_free(struct dpv_eqp *qp)
{
	dpv_engine_dc_free(qp);
	dpv_mlx5_mem_free(qp->swqe);
	dpv_mlx5_mem_free(qp);
}

void
dpv_engine_destroy(struct dpv_engine *e)
{
	void *m = NULL;

	if (e == NULL)
		return;
	dpv_engine_thread_stop(e);
	dpv_engine_cqmod_fini(e);
	dpv_engine_raw_fini(e);
	for (uint32_t i = 0; i < e->nqps; i++)
		qp_free(e->qps[i]);
	for (uint16_t i = 0; i < e->ntx; i++)
		rte_pktmbuf_free(e->tx[i]);
	stash_return(e);
	if (e->loop != NULL) {
		while (rte_ring_dequeue(e->loop, &m) == 0)
			rte_pktmbuf_free(m);
		rte_ring_free(e->loop);
	}
	if (e->fwd != NULL) {
		while (rte_ring_dequeue(e->fwd, &m) == 0)
			rte_pktmbuf_free(m);
		rte_ring_free(e->fwd);
	}
	rte_hash_free(e->qp_hash);
	rte_ring_free(e->kick);
	rte_free(e->qps);
	rte_free(e->qpn_tab);
	rte_free(e->run);
	rte_free(e->keys);
	rte_free(e);
}

/*
 * The holder of the engine lock polls and lets go within microseconds,
 * unless it was preempted holding it, and on a machine with fewer cores
 * than busy threads the one that preempted it may be this very waiter:
 * an application thread woken from ibv_get_cq_event() onto the core of
 * its own progress thread, then arming its CQ (which takes this lock),
 * spun until the scheduler's tick gave the core back, 1-4 ms (the p99
 * of an event-driven ping-pong with 1 ms between pings). After
 * LOCK_SPIN_US a waiter yields its core between tries, so that a holder
 * queued on it runs. (Sleeping instead cost every contended wait the
 * timer's granularity: typical event round trips 26 -> 62 us.)
 */
#define LOCK_SPIN_US 10

void
dpv_engine_lock(struct dpv_engine *e)
{
	uint64_t end;

	if (rte_spinlock_trylock(&e->lock))
		return;
	__atomic_fetch_add(&e->lock_waiters, 1, __ATOMIC_RELAXED);
	end = rte_get_tsc_cycles() + rte_get_tsc_hz() / 1000000 * LOCK_SPIN_US;
	while (!rte_spinlock_trylock(&e->lock)) {
		if (rte_get_tsc_cycles() < end)
			rte_pause();
		else
			sched_yield();
	}
	__atomic_fetch_sub(&e->lock_waiters, 1, __ATOMIC_RELAXED);
}

bool
dpv_engine_trylock(struct dpv_engine *e)
{
	if (__atomic_load_n(&e->lock_waiters, __ATOMIC_RELAXED) != 0)
		return false;
	return rte_spinlock_trylock(&e->lock) != 0;
}

/* A release store: DPDK's x86 unlock is an xchg, a full barrier that
 * drained the store buffer at the end of every poll (~8 % of an idle
 * ib_send_lat server's time); taking the lock is the barrier. */
static inline void
unlock_fast(struct dpv_engine *e)
{
	__atomic_store_n(&e->lock.locked, 0, __ATOMIC_RELEASE);
}

void
dpv_engine_unlock(struct dpv_engine *e)
{
	if (unlikely(e->nheld != 0))
		dpv_engine_held_commit(e);
	unlock_fast(e);
}

static void
held_write(struct dpv_engine *e, struct dpv_mlx5_cq *cq)
{
	if (dpv_mlx5_cq_comp_commit(cq))
		dpv_engine_cq_notify(e, cq);
}

void
dpv_engine_held_note(struct dpv_engine *e, struct dpv_mlx5_cq *cq)
{
	for (unsigned int i = 0; i < e->nheld; i++)
		if (e->held[i] == cq)
			return;
	if (e->nheld == DPV_ENGINE_HELD_MAX)
		held_write(e, cq);
	else
		e->held[e->nheld++] = cq;
}

void
dpv_engine_held_commit(struct dpv_engine *e)
{
	while (e->nheld != 0)
		held_write(e, e->held[--e->nheld]);
}

/* ------------------------------------------------------------- TX / RX */

void
dpv_engine_tx_out(struct dpv_engine *e)
{
	uint16_t sent = 0, n = e->ntx;
	uint64_t bytes = 0;

	if (unlikely(e->tx_stall)) {
		e->tx_refused = true;
		return;
	}
	/* counted before the burst: the frames the port takes are its own
	 * (memif frees them as it copies) */
	for (uint16_t i = 0; i < n; i++)
		bytes += rte_pktmbuf_pkt_len(e->tx[i]);
	if (e->loop != NULL) {
		sent = (uint16_t)rte_ring_enqueue_burst(e->loop, (void **)e->tx,
							n, NULL);
	} else {
		for (int tries = 0; sent < n && tries < 4; tries++)
			sent += dpv_port_tx(e->port, e->txq, e->tx + sent,
					    n - sent);
	}
	e->st.tx_pkts += sent;
	e->st.tx_bursts += sent != 0;
	e->kick_at = e->now; /* a burst kicks (af_xdp) */
	for (uint16_t i = sent; i < n; i++)
		bytes -= rte_pktmbuf_pkt_len(e->tx[i]);
	e->st.tx_bytes += bytes;
	/* what the port did not take waits for the next flush */
	if (sent < n)
		memmove(e->tx, e->tx + sent, (n - sent) * sizeof(e->tx[0]));
	e->tx_refused = sent < n;
	e->ntx = n - sent;
}

void
dpv_engine_tx(struct dpv_engine *e, struct rte_mbuf *m)
{
	dpv_engine_finish(m);
	dpv_engine_tx_ready(e, m);
}

void
dpv_engine_tx_ready(struct dpv_engine *e, struct rte_mbuf *m)
{
	e->work++;
	/* fault injection: a fixed-seed LCG, so runs repeat but the losses
	 * do not fall in step with the retransmission rounds */
	if (e->loss_n && ((e->loss_cnt = e->loss_cnt * 1103515245u + 12345u) >>
			  16) % e->loss_n ==
				 0) {
		e->st.tx_drop_injected++;
		rte_pktmbuf_free(m);
		return;
	}
	if (!dpv_engine_tx_room(e)) {
		e->st.tx_drop_full++; /* RC recovers by retransmission */
		rte_pktmbuf_free(m);
		return;
	}
	e->tx[e->ntx++] = m;
}

void
dpv_engine_inject_tx_stall(struct dpv_engine *e, bool on)
{
	e->tx_stall = on;
}

void
dpv_engine_inject_tx_loss(struct dpv_engine *e, uint32_t every_n)
{
	e->loss_n = every_n;
	e->loss_cnt = 1;
}

static uint16_t
engine_rx(struct dpv_engine *e, struct rte_mbuf **pkts, uint16_t n)
{
	if (e->loop != NULL)
		return (uint16_t)rte_ring_dequeue_burst(e->loop, (void **)pkts,
							n, NULL);
	return dpv_port_rx(e->port, e->rxq, pkts, n);
}

/* ----------------------------------------------------------- poll loop */

int
dpv_engine_forward(struct dpv_engine *to, struct rte_mbuf *m)
{
	if (to->fwd == NULL || rte_ring_mp_enqueue(to->fwd, m) != 0)
		return -ENOBUFS;
	return 0;
}

/* Shards: hand m to shard to; true if it took it (a full ring drops). */
static bool
rx_forward(struct dpv_engine *e, struct dpv_engine *to,
	   struct rte_mbuf *m)
{
	if (dpv_engine_forward(to, m) != 0) {
		e->st.rx_fwd_drop++;
		return false;
	}
	e->st.rx_fwd++;
	return true;
}

/* Shards: a frame from the port that no QP of this shard takes goes to
 * the home shard (when this is another one). */
static inline bool
rx_homebound(const struct dpv_engine *e, bool handed)
{
	return !e->home && !handed;
}

/*
 * Shards: the frame is for QPN qpn, which this shard does not own. A frame
 * from the port goes to its owner (or home); one another shard handed
 * over goes on only from the home shard (two hops at most).
 */
static bool
rx_not_mine(struct dpv_engine *e, struct rte_mbuf *m, uint32_t qpn,
	    bool handed)
{
	struct dpv_engine *to;

	if (e->conf.qp_owner == NULL || (handed && !e->home))
		return false;
	to = e->conf.qp_owner(e->conf.qp_owner_arg, qpn);
	if (to == NULL || to == e)
		to = rx_homebound(e, handed) ? e->conf.home : NULL;
	return to != NULL && rx_forward(e, to, m);
}

/*
 * Whether a QP needs the run pass after the completer took an ACK: WQEs
 * still outstanding (their timer, the window or the credits the ACK
 * opened), an ACK or responses of its own owed, a state to act on. One
 * whose WQEs the ACK all completed is left off: with thousands of QPs,
 * one message each, that visit was a third of a message's (posts to come
 * are kicked, or found by the doorbell scan, as for any QP off the list;
 * a QP whose rings the application holds keeps its visit).
 */
static inline bool
ack_left_work(const struct dpv_eqp *qp)
{
	return qp->s_tail != qp->s_head || dpv_engine_ack_owed(qp) ||
	       dpv_engine_resp_owed(qp) || qp->sqd_notify || qp->exposed ||
	       qp->state != IBV_QPS_RTS;
}

/* Process a received frame; true if it was handed on (not to be freed). */
static bool
engine_rx_one(struct dpv_engine *e, struct rte_mbuf *m, bool handed)
{
	enum dpv_roce_rx_status why;
	struct dpv_epkt pkt;
	struct dpv_eqp *qp;

	/* a shard other than home leaves raw-packet flows and every frame
	 * that is not unicast RoCE to the home shard */
	if (unlikely(rx_homebound(e, handed)) &&
	    __atomic_load_n(&e->conf.home->raw_flows, __ATOMIC_RELAXED) != 0)
		return rx_forward(e, e->conf.home, m);
	/* raw_flows: this engine's count of them (no call when none) */
	if (__atomic_load_n(&e->raw_flows, __ATOMIC_RELAXED) != 0 &&
	    dpv_engine_raw_rx(e, m))
		return false; /* taken by a raw-packet flow */
	/* an ACK like the last one its QP took: checked by its ICRC's
	 * deltas, the rest of the parse and the checks below hold for it */
	if (dpv_engine_ack_len(m->data_len) && likely(e->n_srcqpn == 0) &&
	    (qp = dpv_engine_rx_ack_fast(e, m, &pkt)) != NULL) {
		e->st.rx_acks_fast++;
		DPV_EQP_INC_HOT(qp, rx_pkts);
		dpv_engine_completer(qp, &pkt);
		if (ack_left_work(qp))
			dpv_engine_qp_activate(qp);
		return false;
	}
	/* a one-packet request like the last one its QP took: the checks
	 * below held for that one and hold for it (struct dpv_erxreq) */
	if (likely(e->n_srcqpn == 0) &&
	    (qp = dpv_engine_rx_req_fast(e, m, &pkt)) != NULL) {
		e->st.rx_reqs_fast++;
		DPV_EQP_INC_HOT(qp, rx_pkts);
		dpv_engine_qp_activate(qp);
		dpv_engine_responder(qp, &pkt);
		return false;
	}
	why = dpv_engine_parse(m, &pkt); /* fills all of pkt */
	if (unlikely(why != DPV_ROCE_RX_OK)) {
		if (rx_homebound(e, handed))
			return rx_forward(e, e->conf.home, m);
		dpv_engine_rx_other(e, m, why);
		return false;
	}
	/* the P_Key table holds the default P_Key alone */
	if (unlikely(!dpv_roce_pkey_match(pkt.pkey, DPV_ROCE_PKEY_DEFAULT))) {
		e->st.rx_drop_pkey++;
		return false;
	}
	/* unicast frames for another MAC (promiscuous ports) are not ours */
	if (e->port != NULL && !(pkt.dmac[0] & 1) &&
	    memcmp(pkt.dmac, e->mac, 6) != 0) {
		e->st.rx_drop_addr++;
		return false;
	}
	if (pkt.dqpn == DPV_ENGINE_QPN_MCAST) {
		if (rx_homebound(e, handed))
			return rx_forward(e, e->conf.home, m);
		dpv_engine_rx_mcast(e, &pkt);
		return false;
	}
	/* a source-QPN QP's flow takes frames to its number first; the QP
	 * that owns the number gets the rest (engine_raw.c) */
	qp = NULL;
	if (unlikely(e->n_srcqpn != 0))
		qp = dpv_engine_srcqpn_steer(e, m, pkt.dqpn);
	if (qp == NULL) {
		qp = dpv_engine_qp_lookup(e, pkt.dqpn);
		if (qp == NULL) {
			if (rx_not_mine(e, m, pkt.dqpn, handed))
				return true;
			e->st.rx_drop_noqp++;
			return false;
		}
		if (unlikely(qp->srcqpn)) {
			e->st.rx_drop_srcqpn++; /* no address of its own */
			return false;
		}
	} else {
		DPV_EQP_COUNT(qp, rx_srcqpn);
	}
	/* a connected QP only takes packets from its peer's address */
	DPV_EQP_INC_HOT(qp, rx_pkts); /* the engine's: one add a burst */
	if (unlikely(qp->dc == DPV_ENGINE_DC_DCT) && qp->dct != NULL) {
		dpv_engine_dct_rx(qp, &pkt); /* from any DCI (engine_dc.c) */
		return false;
	}
	if (qp->type != IBV_QPT_UD &&
	    memcmp(pkt.sgid, qp->path.dgid, sizeof(pkt.sgid)) != 0) {
		DPV_EQP_COUNT(qp, rx_drop_addr);
		return false;
	}
	if (unlikely(!dpv_engine_rx_dip_ok(qp, &pkt) ||
		     !dpv_engine_rx_len_ok(qp, &pkt)))
		return false;
	dpv_engine_qp_activate(qp); /* an ACK may be owed, WQEs may finish */
	if (pkt.flags & DPV_OPF_REQ) {
		if (!dpv_engine_qp_takes_req(qp)) {
			DPV_EQP_COUNT(qp, rx_drop_state);
			return false;
		}
		dpv_engine_rx_req_note(qp, &pkt);
		dpv_engine_responder(qp, &pkt);
	} else {
		if (!dpv_engine_qp_takes_resp(qp)) {
			DPV_EQP_COUNT(qp, rx_drop_state);
			return false;
		}
		if (pkt.opcode == DPV_ROCE_OP_ACK)
			dpv_engine_rx_ack_note(qp, m);
		dpv_engine_completer(qp, &pkt);
	}
	return false;
}

/*
 * Whether a QP has work now and stays on the run list: an ACK owed, WQEs
 * posted but not fetched or fetched but not sent, an SQD event to raise,
 * WQEs not completed with no timer to watch them. In doubt, yes. A QP
 * whose requests are all sent and only wait for their responses (or for
 * the end of an RNR wait) leaves it: a response puts it back
 * (engine_rx_one), and so does its timer, through the scan.
 */
static inline bool
qp_has_work(const struct dpv_eqp *qp)
{
	if (dpv_engine_ack_owed(qp) || dpv_engine_resp_owed(qp) ||
	    qp->sqd_notify || qp->s_cur != qp->s_head)
		return true;
	if (qp->s_tail != qp->s_head &&
	    ((qp->comp.deadline == 0 && qp->comp.rnr_until == 0) ||
	     qp->state == IBV_QPS_ERR || qp->state == IBV_QPS_SQE))
		return true;
	if (qp->sq != NULL && dpv_ring_wq_posted(&qp->sq->wq))
		return true;
	/* a raw TSO WQE fetched, its segments not all queued yet */
	if (qp->type == IBV_QPT_RAW_PACKET && qp->sq != NULL &&
	    qp->sq->wq.eng_ci != qp->sq->wq.eng_pi)
		return true;
	/* in ERR, new receive WQEs are flushed by the poll loop */
	return qp->state == IBV_QPS_ERR && qp->rq != NULL && !qp->has_srq &&
	       dpv_ring_wq_posted(&qp->rq->wq);
}

/* Whether the requester has anything to do: WQEs fetched and not all
 * sent, an RNR wait to end, or WQEs posted and not fetched. A QP on the
 * run list for an ACK or its timers alone (a ping-pong's, after the
 * reply arrived) is not called for nothing. */
static inline bool
req_has_work(const struct dpv_eqp *qp)
{
	return qp->s_cur != qp->s_head || qp->comp.rnr_until != 0 ||
	       (qp->sq != NULL && dpv_ring_wq_posted(&qp->sq->wq));
}

/* A retransmission or RNR timer of a QP off the run list has expired. */
static inline bool
qp_timer_due(const struct dpv_eqp *qp, uint64_t now)
{
	return (qp->comp.deadline != 0 && now >= qp->comp.deadline) ||
	       (qp->comp.rnr_until != 0 && now >= qp->comp.rnr_until);
}

/* The earliest timer of a QP (UINT64_MAX: none). */
static inline uint64_t
qp_timer_next(const struct dpv_eqp *qp)
{
	uint64_t t = qp->comp.deadline != 0 ? qp->comp.deadline : UINT64_MAX;

	if (qp->comp.rnr_until != 0 && qp->comp.rnr_until < t)
		t = qp->comp.rnr_until;
	return t;
}

/* A QP off the run list (leaving it, or seen by a sweep): its timer
 * bounds the next sweep. */
static inline void
idle_timer_note(struct dpv_engine *e, const struct dpv_eqp *qp)
{
	uint64_t t = qp_timer_next(qp);

	if (t < e->sweep_at)
		e->sweep_at = t;
	if (t < e->sweep_min)
		e->sweep_min = t;
}

/* Whether every poll scans a slice: doorbells only the scan finds (few QPs,
 * whose posts do not kick, or QPs whose rings the application holds). */
static inline bool
scan_always(const struct dpv_engine *e)
{
	return e->scan_all;
}

/* scan_always() again, after a change of what it depends on (engine lock
 * held) */
static void
scan_mode_set(struct dpv_engine *e)
{
	e->scan_all =
		e->nexposed != 0 || (!e->posts_kick && e->nqps <= SCAN_SLICE);
}

/* A QP off the run list, as the scan finds it: onto the list if it has
 * work or a timer due (true), else left off (false). */
static inline bool
scan_one(struct dpv_engine *e, struct dpv_eqp *qp)
{
	if (!qp_has_work(qp) && !qp_timer_due(qp, e->now))
		return false;
	dpv_engine_qp_activate(qp);
	return true;
}

/* Check the doorbells and timers of up to max QPs off the run list, round
 * robin: every poll while scan_always(), else in sweeps when a timer may be
 * due (see struct dpv_engine's sweep_at). */
static void
scan_doorbells(struct dpv_engine *e, uint32_t max)
{
	uint32_t n = RTE_MIN(max, e->nqps);
	bool always = scan_always(e);

	/* few QPs (a latency test's one): all of them, every poll */
	if (always && n == e->nqps) {
		for (uint32_t k = 0; k < n; k++) {
			struct dpv_eqp *qp = e->qps[k];

			if (!qp->active)
				scan_one(e, qp);
		}
		return;
	}
	if (!always && e->sweep_left == 0) {
		bool rescan =
			unlikely(__atomic_load_n(&e->rescan,
						 __ATOMIC_RELAXED) != 0) &&
			__atomic_exchange_n(&e->rescan, 0, __ATOMIC_SEQ_CST);

		if (!rescan && e->now < e->sweep_at)
			return;
		e->sweep_left = e->nqps;
		e->sweep_min = UINT64_MAX;
	}
	for (uint32_t k = 0; k < n && (always || e->sweep_left != 0); k++) {
		struct dpv_eqp *qp;

		if (e->scan_pos >= e->nqps)
			e->scan_pos = 0;
		qp = e->qps[e->scan_pos++];
		if (!qp->active && !scan_one(e, qp) && !always)
			idle_timer_note(e, qp);
		if (!always && --e->sweep_left == 0)
			e->sweep_at = RTE_MIN(e->sweep_min,
					      e->now + e->hz / SWEEP_DIV);
	}
}

void
dpv_engine_rescan(struct dpv_engine *e)
{
	__atomic_store_n(&e->rescan, 1, __ATOMIC_SEQ_CST);
}

/* The earliest retransmission or RNR timer of the engine's QPs, a TSC
 * value, or a lower bound of it (engine lock held; UINT64_MAX: none).
 * QPs on the run list are looked at; those off it through what the scan
 * keeps: with scan_always() no bound is kept, and all QPs are looked at
 * (few, unless some are exposed: then each poll scans a slice of them
 * anyway); in sweeps, sweep_at bounds the timers of the QPs off the run
 * list. A sweep under way, or one asked for (dpv_engine_rescan(), which
 * also follows a switch from scans to sweeps, after which sweep_at is
 * stale), gives 0: the polls that complete it must come first. */
static uint64_t
timer_next(const struct dpv_engine *e)
{
	uint64_t t;

	if (scan_always(e)) {
		t = UINT64_MAX;
		for (uint32_t k = 0; k < e->nqps; k++)
			t = RTE_MIN(t, qp_timer_next(e->qps[k]));
		return t;
	}
	/* no QP: no timer, and no sweep ever moves sweep_at (0 at first:
	 * taken for a bound, an idle process's thread spun) */
	if (e->nqps == 0)
		return UINT64_MAX;
	if (e->sweep_left != 0 ||
	    __atomic_load_n(&e->rescan, __ATOMIC_RELAXED) != 0)
		return 0;
	t = e->sweep_at;
	for (uint32_t i = 0; i < e->nrun; i++)
		t = RTE_MIN(t, qp_timer_next(e->run[i]));
	return t;
}

/* dpv_engine_timer_us() with the lock taken by another thread: it polls
 * (and handles the timers due itself) or changes a QP, a short while.
 * Looking again this soon bounds how late a timer can be found, and
 * happens seldom (a sleeping caller has little company). */
#define TIMER_BUSY_US 100

unsigned int
dpv_engine_timer_us(struct dpv_engine *e, unsigned int max_us)
{
	uint64_t t, now, dt, us;

	if (!dpv_engine_trylock(e))
		return RTE_MIN(max_us, (unsigned int)TIMER_BUSY_US);
	t = timer_next(e);
	dpv_engine_unlock(e);
	if (t == UINT64_MAX)
		return max_us;
	/* the clock the timers were set with (e->now of a poll) */
	now = dpv_engine_now();
	if (t <= now)
		return 0;
	/* rounded up: a sleep that long ends with the timer due. In two
	 * parts: an ACK timeout can be hours of cycles, times 10^6 */
	dt = t - now;
	us = dt / e->hz * 1000000 + (dt % e->hz * 1000000 + e->hz - 1) / e->hz;
	return us < max_us ? (unsigned int)us : max_us;
}

int
dpv_engine_qp_expose(struct dpv_engine *e, uint32_t qpn)
{
	struct dpv_eqp *qp;

	rte_spinlock_lock(&e->lock);
	qp = dpv_engine_qp_lookup(e, qpn);
	if (qp == NULL) {
		rte_spinlock_unlock(&e->lock);
		return -ENOENT;
	}
	if (!qp->exposed) {
		qp->exposed = true;
		e->nexposed++;
		scan_mode_set(e);
	}
	rte_spinlock_unlock(&e->lock);
	return 0;
}

bool
dpv_engine_kick_wanted(const struct dpv_engine *e)
{
	return __atomic_load_n(&e->posts_kick, __ATOMIC_RELAXED) ||
	       __atomic_load_n(&e->nqps, __ATOMIC_RELAXED) > SCAN_SLICE;
}

void
dpv_engine_set_posts_kick(struct dpv_engine *e, bool on)
{
	rte_spinlock_lock(&e->lock);
	__atomic_store_n(&e->posts_kick, on, __ATOMIC_RELAXED);
	scan_mode_set(e);
	rte_spinlock_unlock(&e->lock);
	/* doorbells rung before, which no kick told */
	dpv_engine_rescan(e);
}

void
dpv_engine_qp_kick(struct dpv_engine *e, struct dpv_mlx5_sq *sq)
{
	uint32_t qpn = sq->qpn;

	/* the doorbell record is written before the flag is set; the poll
	 * that takes the flag back reads the doorbell after it */
	if (__atomic_exchange_n(&sq->kicked, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	if (rte_ring_mp_enqueue_elem(e->kick, &qpn, sizeof(qpn)) != 0) {
		__atomic_store_n(&sq->kicked, 0, __ATOMIC_RELEASE);
		dpv_engine_rescan(e); /* the scan finds it */
	}
}

/* Whether the engine has more QPs than PREFETCH_QPS: their state is beyond
 * the L2's share, and the passes prefetch it. */
static inline bool
prefetch_qps(const struct dpv_engine *e)
{
	return e->nqps > PREFETCH_QPS;
}

/* The QPs kicked since the last poll go on the run list. */
static void
take_kicks(struct dpv_engine *e)
{
	bool pf = prefetch_qps(e);
	uint32_t qpns[32];
	unsigned int n;

	if (rte_ring_empty(e->kick))
		return;
	do {
		n = rte_ring_sc_dequeue_burst_elem(e->kick, qpns,
						   sizeof(qpns[0]),
						   RTE_DIM(qpns), NULL);
		for (unsigned int i = 0; i < n; i++) {
			struct dpv_eqp *qp = dpv_engine_qp_lookup(e, qpns[i]);

			if (qp == NULL || qp->sq == NULL)
				continue; /* destroyed since */
			__atomic_exchange_n(&qp->sq->kicked, 0,
					    __ATOMIC_ACQ_REL);
			/* the receive pass runs before the QP's turn: its
			 * hot lines and its next WQE come in meanwhile
			 * (engine_perf with 4,096 QPs: +13 %) */
			rte_prefetch0((const uint8_t *)qp + 64);
			rte_prefetch0((const uint8_t *)qp + 128);
			if (pf)
				rte_prefetch0(&qp->tmpl); /* its frames' */
			rte_prefetch0(qp->sq->wq.buf +
				      ((qp->sq->wq.eng_pi &
					(qp->sq->wq.wqe_cnt - 1))
				       << qp->sq->wq.wqe_shift));
			/* and the engine's slot that WQE is decoded into: its
			 * first write was a miss the fetch waited for */
			if (pf && qp->s_head - qp->s_tail < qp->nswqe) {
				struct dpv_eswqe *w = swqe_at(qp, qp->s_head);

				rte_prefetch0_write(w);
				/* its SGE and host address (a line further
				 * on): the key check's first load of them
				 * was 9 % of 4,096 QPs' time */
				rte_prefetch0_write(&w->wr.sg_list[0]);
			}
			dpv_engine_qp_activate(qp);
		}
	} while (n == RTE_DIM(qpns));
}

static uint16_t rx_frames(struct dpv_engine *e, struct rte_mbuf **pkts,
			  uint16_t n, uint16_t max);

/* Receive a burst: responder and completer. Returns frames received. */
static __rte_always_inline uint16_t
rx_pass(struct dpv_engine *e, unsigned budget)
{
	struct rte_mbuf *pkts[DPV_ENGINE_TX_BURST];
	uint16_t max = (uint16_t)RTE_MIN(budget, (unsigned)DPV_ENGINE_TX_BURST);
	uint16_t n = engine_rx(e, pkts, max);

	/* most polls of a waiting application find nothing: no more */
	if (n == 0 && e->fwd == NULL)
		return 0;
	return rx_frames(e, pkts, n, max);
}

/* The BTH of an untagged IPv4 RoCE frame, NULL for any other (at the
 * offset the fast parse expects; not checked beyond that). */
static inline const struct dpv_bth *
rx_bth_ipv4(const struct rte_mbuf *m)
{
	const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);
	rte_be16_t et;

	if (m->data_len < DPV_ENGINE_BTH_OFF_IPV4 + sizeof(struct dpv_bth))
		return NULL;
	memcpy(&et, d + offsetof(struct rte_ether_hdr, ether_type), sizeof(et));
	if (et != RTE_BE16(RTE_ETHER_TYPE_IPV4))
		return NULL;
	return (const struct dpv_bth *)(d + DPV_ENGINE_BTH_OFF_IPV4);
}

/* The lines of the QP an untagged IPv4 RoCE frame is for that its
 * receive reads first: its first line, and its ACK reference (an ACK) or
 * its request reference and the responder's lines beside it. One frame
 * ahead of its turn, these misses of thousands of QPs overlap the work on
 * the frame before. */
static inline void
rx_prefetch_qp(struct dpv_engine *e, struct rte_mbuf *m)
{
	const struct dpv_bth *bth = rx_bth_ipv4(m);
	struct dpv_eqp *qp;

	if (bth == NULL)
		return;
	qp = e->qpn_tab[dpv_bth_qpn(bth) & e->qpn_mask];
	if (qp != NULL) {
		rte_prefetch0(qp);
		rte_prefetch0(bth->opcode == DPV_ROCE_OP_ACK
				      ? (const void *)&qp->rx_ack
				      : (const void *)&qp->rx_req);
	}
}

/* Whether the last data frame of a burst (ACKs after it do not count)
 * leaves an RDMA WRITE unfinished: its FIRST or a MIDDLE frame. A WRITE
 * tells the application nothing through a CQ (unless its last frame
 * carries an immediate), so an application waiting for one watches
 * memory, not a CQ, and does not poll for the rest. SENDs and READ
 * responses end in a CQE that their application polls for. Looks at the
 * last few frames only. */
static void
rx_note_mid(struct dpv_engine *e, struct rte_mbuf **pkts, uint16_t n)
{
	for (uint16_t k = 0; k < n && k < 4; k++) {
		const struct dpv_bth *bth = rx_bth_ipv4(pkts[n - 1 - k]);

		if (bth == NULL)
			continue;
		switch (bth->opcode & 0x1f) {
		case DPV_ROCE_OP_ACK:
		case DPV_ROCE_OP_ATOMIC_ACK:
			continue;
		case DPV_ROCE_OP_WRITE_FIRST:
		case DPV_ROCE_OP_WRITE_MIDDLE:
			e->rx_mid = true;
			return;
		default:
			e->rx_mid = false;
			return;
		}
	}
}

/* rx_pass() of the n frames at pkts, and of those other shards handed
 * over (up to max in all) */
static __rte_noinline uint16_t
rx_frames(struct dpv_engine *e, struct rte_mbuf **pkts, uint16_t n,
	  uint16_t max)
{
	bool pf = prefetch_qps(e);
	uint16_t nf = 0;

	e->st.rx_pkts += n;
	e->st.rx_bursts += n != 0;
	/* shards: then what the others handed over */
	if (e->fwd != NULL && n < max && !rte_ring_empty(e->fwd)) {
		nf = (uint16_t)rte_ring_sc_dequeue_burst(
			e->fwd, (void **)pkts + n, max - n, NULL);
		e->st.rx_fwd_in += nf;
	}
	e->work += n + nf;
	rx_note_mid(e, pkts, n + nf);
	if (pf && n + nf > 1)
		rx_prefetch_qp(e, pkts[0]);
	for (uint16_t i = 0; i < n + nf; i++) {
		if (pf && i + 1 < n + nf)
			rx_prefetch_qp(e, pkts[i + 1]);
		if (i < n)
			e->st.rx_bytes += rte_pktmbuf_pkt_len(pkts[i]);
		if (!engine_rx_one(e, pkts[i], i >= n))
			dpv_engine_mbuf_recycle(e, pkts[i]);
	}
	return n + nf;
}

/* An ACK that an earlier poll of the application held (late), after this
 * pass's requests of its QP (sent: some went): whether it stays held. */
static inline bool
ack_rehold(const struct dpv_engine *e, struct dpv_eqp *qp, uint64_t now,
	   bool sent)
{
	if (!e->ack_hold)
		return false;
	/* nothing of ours left in this poll, and requests of ours awaited
	 * their ACK when it was held: the application may wait for their
	 * completion before it posts the reply (the peer's ACK can follow
	 * its request in a burst of its own, e.g. over af_xdp), so the ACK
	 * stays held, a short while, for the reply */
	if (!sent)
		return qp->resp.ack_hold_req &&
		       now - qp->resp.ack_hold_at < e->hz / ACK_REHOLD_DIV;
	/* the reply goes out in passes, and the peer's poll that waits for
	 * the ACK lands what comes before it: the ACK after the reply's last
	 * packet, so that the peer's poll lands all of it. With the ACK
	 * after the first pass, ib_write_lat's peer returned from its poll
	 * and waited on memory for its progress thread to land the rest
	 * (512 KiB: ~350 us a round trip, p99 2.3 ms; now ~100 and 0.2) */
	return dpv_eqp_mid_message(qp) &&
	       now - qp->resp.ack_hold_at <
		       RTE_MIN(qp->ack_cycles / ACK_MSG_HOLD_FRAC,
			       e->hz / ACK_MSG_HOLD_DIV);
}

/*
 * Coalesced ACKs, timers and new work of the QPs that have work, starting
 * where the port's TX room ran out last time (so that every QP gets its
 * turn); then a QP with nothing left leaves the list.
 *
 * ACK hold (dpv_engine_progress_app with dpv_engine_set_ack_hold on): an
 * ACK that arose in an application's poll waits for the next poll, and
 * then leaves after that poll's new requests. An application that spins
 * on memory between its calls (ib_write_lat: post a WRITE, poll for its
 * completion, spin until the peer's WRITE lands) thus makes its peer
 * receive the WRITE before the ACK it polls for: the WRITE lands inside
 * the peer's own poll call, with no progress thread in the path.
 */
static void
run_pass(struct dpv_engine *e, unsigned budget, uint64_t now)
{
	uint32_t nrun = e->nrun, full_at = UINT32_MAX;
	/* the index wraps by a compare (a division per QP was ~20-40
	 * cycles); a list that shrank since starts over */
	uint32_t i = e->run_pos < nrun ? e->run_pos : 0;

	e->req_more = false;
	for (uint32_t k = 0; k < nrun; k++, i = i + 1 == nrun ? 0 : i + 1) {
		struct dpv_eqp *qp = e->run[i];
		unsigned b = budget;

		bool late = false;

		if (full_at == UINT32_MAX && !dpv_engine_tx_room(e))
			full_at = i;
		/* READ responses the port had no room for go first */
		if (unlikely(dpv_engine_resp_owed(qp)) &&
		    qp->state != IBV_QPS_ERR) {
			unsigned rb = e->resp_budget;

			dpv_engine_resp_output(qp, &rb);
		}
		if (!qp->resp_seen) {
			/* no ACK owed, none held */
		} else if (qp->resp.ack_hold_seq == 0 ||
			   !qp->resp.ack.pending) {
			qp->resp.ack_hold_seq = 0;
			dpv_engine_ack_flush(qp);
		} else if (qp->resp.ack_hold_seq == e->poll_seq) {
			e->acks_held_at = now; /* held by this poll */
		} else {
			late = true; /* held by an earlier one: after the SQ */
		}
		if (qp->state == IBV_QPS_ERR) {
			dpv_engine_sq_flush(qp);
			continue;
		}
		if (qp->state == IBV_QPS_SQE) {
			dpv_engine_sq_flush_send(qp); /* posted in SQE */
			continue;
		}
		dpv_engine_comp_timers(qp, now);
		if (qp->type == IBV_QPT_RAW_PACKET) {
			if (qp->state == IBV_QPS_RTS)
				dpv_engine_raw_send(qp, &b);
		} else if ((qp->state == IBV_QPS_RTS ||
			    qp->state == IBV_QPS_SQD) &&
			   req_has_work(qp)) {
			dpv_engine_requester(qp, &b);
			if (b == 0 && req_has_work(qp))
				e->req_more = true;
		}
		if (late && ack_rehold(e, qp, now, b != budget)) {
			qp->resp.ack_hold_seq = e->poll_seq;
			if (e->acks_held_at == 0 ||
			    qp->resp.ack_hold_at < e->acks_held_at)
				e->acks_held_at = qp->resp.ack_hold_at;
		} else if (late) {
			qp->resp.ack_hold_seq = 0;
			dpv_engine_ack_flush(qp);
		}
		dpv_engine_comp_drain(qp);
		/* a signature stop drains up to the WQE it stopped at */
		if (qp->sqd_notify && qp->state == IBV_QPS_SQD &&
		    (qp->s_tail == qp->s_head ||
		     ((qp->sigp & SIGP_HALT) && qp->s_tail == qp->s_cur))) {
			qp->sqd_notify = false;
			if (e->conf.sq_drained)
				e->conf.sq_drained(e->conf.event_arg, qp->qpn);
		}
	}
	e->run_pos = full_at == UINT32_MAX ? 0 : full_at;
	for (uint32_t i = 0; i < e->nrun;) {
		struct dpv_eqp *qp = e->run[i];

		if (qp_has_work(qp)) {
			i++;
			continue;
		}
		qp->active = false;
		if (!scan_always(e))
			idle_timer_note(e, qp);
		e->run[i] = e->run[--e->nrun];
	}
}

/* A poll finds posts of a burst waiting (see POST_LATE_DIV):
 * POST_LATE_RUN late ones in a row turn holding back off. One alone is
 * the application preempted in mid-burst (on a 2-core machine this
 * happens every few hundred ms), not an application that waits on
 * memory. */
static void
burst_check(struct dpv_engine *e)
{
	if (!e->poll_bg || e->now - e->last_post <= e->hz / POST_LATE_DIV) {
		e->bursts_late_run = 0;
		return;
	}
	e->st.bursts_late++;
	if (++e->bursts_late_run >= POST_LATE_RUN) {
		e->bursts_late_run = 0;
		e->burst_off_until = e->now + e->hz / POST_HOLD_OFF_DIV;
	}
}

/* A post that found the lock taken may have rung its doorbell after the
 * holder's scan (engine lock held, before this pass scans): the flag is
 * taken back with a full barrier, so the scan that follows sees the
 * doorbell of any post that set it before. */
static inline void
post_missed_take(struct dpv_engine *e)
{
	if (unlikely(__atomic_load_n(&e->post_missed, __ATOMIC_RELAXED) != 0) &&
	    __atomic_exchange_n(&e->post_missed, 0, __ATOMIC_SEQ_CST) != 0)
		e->st.posts_busy++;
}

/* a new poll number (never 0: 0 marks an ACK not held) */
static inline void
next_poll_seq(struct dpv_engine *e)
{
	if (++e->poll_seq == 0)
		e->poll_seq = 1;
}

unsigned
dpv_engine_poll(struct dpv_engine *e, unsigned budget)
{
	uint64_t cqes = e->st.cqes;
	uint16_t n;

	if (budget == 0)
		budget = DPV_ENGINE_DEF_BUDGET;
	e->work = 0;
	e->now = dpv_engine_now(); /* the clock of this whole poll */
	__atomic_store_n(&e->rx_at, e->now, __ATOMIC_RELAXED);
	if (!e->poll_bg)
		__atomic_store_n(&e->app_rx_at, e->now, __ATOMIC_RELAXED);
	if (unlikely(e->posts_unbuilt != 0))
		burst_check(e);
	e->posts_unpolled = 0;
	e->posts_unbuilt = 0;
	post_missed_take(e);
	next_poll_seq(e);
	e->acks_held_at = 0;
	/* frames that posts of a burst queued leave before the receive side
	 * runs (a latency test's request is not held up by the ACKs and
	 * completions that arrived meanwhile) */
	dpv_engine_tx_flush(e);
	take_kicks(e);
	/* a full burst: more waits; take up to four, so that the mbufs the
	 * receive side frees keep up with those the send side takes (cold
	 * ones from the pool's ring otherwise) */
	n = 0;
	for (int k = 0; k < 4; k++) {
		uint16_t r;

		/* a full burst of large frames takes microseconds: what it
		 * notes (an ACK held for the reply, timers) dates from the
		 * burst, not from the poll's start (4 bursts of 4 KiB frames
		 * took longer than ACK_REHOLD_DIV, and the ACK was sent
		 * before the reply) */
		if (k > 0)
			e->now = dpv_engine_now();
		r = rx_pass(e, budget);

		n += r;
		if (r < RTE_MIN(budget, (unsigned)DPV_ENGINE_TX_BURST))
			break;
	}
	if (unlikely(e->now >= e->netdev_next))
		dpv_engine_netdev_pass(e);
	/* doorbells rung on QPs off the run list: a slice per poll (all of
	 * them when there are few) */
	scan_doorbells(e, e->nrun == 0 && n == 0 ? 8 * SCAN_SLICE : SCAN_SLICE);
	if (e->nrun != 0)
		run_pass(e, budget, e->now);
	dpv_engine_tx_flush(e);
	/* af_xdp sends what its ring holds when kicked, and every burst
	 * kicks: kick at most every 20 us while there was work in the last
	 * 10 ms (a system call per poll made each poll of a latency test's
	 * wait ~1 us longer; the rest of the time, none) */
	if (e->port_kicks && e->now - e->kick_at >= e->kick_gap &&
	    (e->work != 0 || e->now - e->busy_at < e->busy_gap)) {
		dpv_port_tx_kick(e->port, e->txq);
		e->kick_at = e->now;
	}
	if (unlikely(e->nheld != 0))
		dpv_engine_held_commit(e);
	/* a CQ moderation period ended: its event, even with no CQE */
	if (unlikely(e->now >=
		     __atomic_load_n(&e->cqmod_next, __ATOMIC_RELAXED)))
		dpv_engine_cqmod_pass(e);
	__atomic_store_n(&e->mid_cqe, e->rx_mid && e->st.cqes != cqes,
			 __ATOMIC_RELAXED);
	if (e->work != 0)
		e->busy_at = e->now;
	else if (unlikely(e->nstash != 0) &&
		 e->now - e->busy_at > e->hz / STASH_IDLE_DIV)
		stash_return(e);
	return e->work;
}

/* The send side of a poll alone (engine lock held): what was posted is
 * built and sent, no receive burst. */
static void
send_pass(struct dpv_engine *e, uint64_t now)
{
	e->now = now;
	post_missed_take(e);
	next_poll_seq(e);
	take_kicks(e);
	scan_doorbells(e, SCAN_SLICE);
	run_pass(e, DPV_ENGINE_DEF_BUDGET, now);
	if (unlikely(e->nheld != 0))
		dpv_engine_held_commit(e);
	dpv_engine_tx_flush(e);
	e->posts_unbuilt = 0;
}

/* Build and send what posts of a burst left (engine lock held): before a
 * QP changes or goes, what was posted to it leaves as it would have. */
static void
build_posted(struct dpv_engine *e)
{
	if (e->posts_unbuilt != 0)
		send_pass(e, dpv_engine_now());
}

/* The QP of the SQ posted to onto the run list, by the poster holding
 * the engine: what its kick would have done at the next poll. */
static inline void
post_take(struct dpv_engine *e, const struct dpv_mlx5_sq *sq)
{
	struct dpv_eqp *qp = dpv_engine_qp_lookup(e, sq->qpn);

	if (qp != NULL && qp->sq == sq)
		dpv_engine_qp_activate(qp);
}

static inline unsigned
progress_post(struct dpv_engine *e, struct dpv_mlx5_sq *sq)
{
	uint64_t now;
	unsigned r;
	bool burst;

	if (!dpv_engine_trylock(e)) {
		/* the holder's poll may have looked before this post's
		 * doorbell: say so (a background poller polls again), then
		 * try once more, so that either the holder, once it has let
		 * go, sees the flag or this thread gets the lock */
		__atomic_exchange_n(&e->post_missed, 1, __ATOMIC_SEQ_CST);
		if (!dpv_engine_trylock(e)) {
			if (sq != NULL)
				dpv_engine_qp_kick(e, sq);
			return 0;
		}
	}
	if (sq != NULL)
		post_take(e, sq);
	if (e->posts_unbuilt != 0 && !e->polled &&
	    e->posts_unpolled + 1 < POST_POLL_EVERY) {
		/* the next of a burst whose first post was timed: no clock
		 * read (7-8 % of a 64 B ib_write_bw client's time) */
		e->posts_unpolled++;
		e->posts_unbuilt++;
		unlock_fast(e);
		return 0;
	}
	now = dpv_engine_now();
	/* posts in a row (no poll between them), less than 5 us apart, are
	 * a burst, unless a burst's posts waited too long lately */
	burst = now - e->last_post < e->hz / POST_BURST_DIV && !e->polled &&
		now >= e->burst_off_until;
	e->last_post = now;
	e->polled = false;
	if (++e->posts_unpolled < POST_POLL_EVERY && burst) {
		/* one of a burst: nothing yet. The next poll (or the 16th
		 * post since the last one) builds all its WQEs in one pass
		 * and sends them in one burst */
		e->posts_unbuilt++;
		unlock_fast(e);
		return 0;
	}
	e->ack_hold = e->ack_hold_on;
	if (e->posts_unpolled >= POST_POLL_EVERY) {
		r = dpv_engine_poll(e, 0);
	} else {
		/* a lone post (a latency test's request): what was posted is
		 * built and leaves at once; the receive side waits for the
		 * next poll (the reply cannot be there yet), unless no poll
		 * read it lately. ib_write_bw -q 4 -s 8388608 posts ~100
		 * WRs after each completion, each a lone post that sent 32
		 * passes on every QP (~3 ms): no poll came for up to 60 ms,
		 * and the ACKs waiting in the port let every QP's 67 ms ACK
		 * timer expire */
		if (now - dpv_engine_rx_at(e) >= e->hz / LONE_RX_DIV) {
			/* not the application's own receive: a progress
			 * thread still lands what it waits for on memory
			 * (dpv_engine_app_rx_at()) */
			e->poll_bg = true;
			dpv_engine_poll(e, 0);
			e->poll_bg = false;
		} else {
			e->work = 0;
			e->acks_held_at = 0;
			send_pass(e, now);
		}
		/* all of a message longer than one pass's budget: the rest
		 * left to the next poll waited for the progress thread's nap
		 * when the application spins on memory after posting */
		while (e->req_more &&
		       e->work < LONE_POST_PASSES * DPV_ENGINE_DEF_BUDGET &&
		       dpv_engine_tx_room(e))
			send_pass(e, dpv_engine_now());
		r = e->work;
	}
	e->ack_hold = false;
	unlock_fast(e);
	return r;
}

unsigned
dpv_engine_progress_post(struct dpv_engine *e)
{
	return progress_post(e, NULL);
}

unsigned
dpv_engine_progress_post_sq(struct dpv_engine *e, struct dpv_mlx5_sq *sq)
{
	return progress_post(e, sq);
}

bool
dpv_engine_tx_pending(const struct dpv_engine *e)
{
	/* frames queued, or WQEs of a burst of posts not built yet */
	return __atomic_load_n(&e->ntx, __ATOMIC_RELAXED) != 0 ||
	       __atomic_load_n(&e->posts_unbuilt, __ATOMIC_RELAXED) != 0;
}

/* one poll under the lock unless another thread holds it; hold: ACKs
 * arising in it may be held (an application's own poll); bg: a
 * background thread's poll, not the application's */
static unsigned
progress_locked(struct dpv_engine *e, bool hold, bool bg)
{
	unsigned r;

	if (!dpv_engine_trylock(e))
		return 0;
	e->ack_hold = hold && e->ack_hold_on;
	e->poll_bg = bg;
	r = dpv_engine_poll(e, 0);
	e->poll_bg = false;
	e->polled = true;
	e->ack_hold = false;
	unlock_fast(e);
	return r;
}

unsigned
dpv_engine_progress(struct dpv_engine *e)
{
	return progress_locked(e, false, false);
}

unsigned
dpv_engine_progress_app(struct dpv_engine *e)
{
	return progress_locked(e, true, false);
}

/* polls again for posts that found the lock taken (POST_MISSED_POLLS at
 * most) */
#define POST_MISSED_POLLS 4

unsigned
dpv_engine_progress_bg(struct dpv_engine *e, bool hold)
{
	unsigned r = progress_locked(e, hold, true);

	for (int i = 0; i < POST_MISSED_POLLS; i++) {
		/* the unlock before the look (see dpv_engine_progress_post) */
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		if (__atomic_load_n(&e->post_missed, __ATOMIC_RELAXED) == 0)
			break;
		r += progress_locked(e, hold, true);
	}
	return r;
}

void
dpv_engine_set_ack_hold(struct dpv_engine *e, bool on)
{
	__atomic_store_n(&e->ack_hold_on, on, __ATOMIC_RELAXED);
}

uint64_t
dpv_engine_acks_held_at(const struct dpv_engine *e)
{
	return __atomic_load_n(&e->acks_held_at, __ATOMIC_RELAXED);
}

uint64_t
dpv_engine_rx_at(const struct dpv_engine *e)
{
	return __atomic_load_n(&e->rx_at, __ATOMIC_RELAXED);
}

bool
dpv_engine_poll_left_mid(const struct dpv_engine *e)
{
	return __atomic_load_n(&e->mid_cqe, __ATOMIC_RELAXED);
}

uint64_t
dpv_engine_app_rx_at(const struct dpv_engine *e)
{
	return __atomic_load_n(&e->app_rx_at, __ATOMIC_RELAXED);
}

static void *
progress_thread(void *arg)
{
	struct dpv_engine *e = arg;
	unsigned idle = 0, sleep_us = 1;
	/* an lcore id: the mbuf pool's per-lcore cache serves this thread */
	bool lcore = rte_thread_register() == 0;

	while (!e->thread_stop) {
		if (dpv_engine_progress(e) != 0) {
			idle = 0;
			sleep_us = 1;
			continue;
		}
		if (++idle < 256) {
			rte_pause();
			continue;
		}
		/* back off: 1, 2, 4 ... idle_us microseconds, not past the
		 * end of a CQ moderation period */
		rte_delay_us_sleep(
			RTE_MAX(dpv_engine_cq_deadline_us(e, sleep_us), 1u));
		if (sleep_us < e->idle_us)
			sleep_us = RTE_MIN(sleep_us * 2, e->idle_us);
	}
	if (lcore)
		rte_thread_unregister();
	return NULL;
}

/*
 * Progress threads must stop before the ports do: the port library stops
 * them from a destructor at exit. atexit() handlers run before the
 * destructors of shared libraries, so one handler stops every thread.
 */
#define MAX_THREADS 32
static struct dpv_engine *threads[MAX_THREADS];
static pthread_mutex_t threads_lock = PTHREAD_MUTEX_INITIALIZER;
static bool atexit_done;

static void
stop_all_threads(void)
{
	pthread_mutex_lock(&threads_lock);
	for (unsigned i = 0; i < MAX_THREADS; i++) {
		struct dpv_engine *e = threads[i];

		if (e != NULL && e->thread_on) {
			e->thread_stop = true;
			pthread_join(e->thread, NULL);
			e->thread_on = false;
		}
		threads[i] = NULL;
	}
	pthread_mutex_unlock(&threads_lock);
}

int
dpv_engine_thread_start(struct dpv_engine *e, unsigned idle_sleep_us)
{
	unsigned slot;
	sigset_t sigs;
	int ret;

	if (e == NULL)
		return -EINVAL;
	pthread_mutex_lock(&threads_lock);
	if (e->thread_on) {
		ret = -EALREADY;
		goto out;
	}
	for (slot = 0; slot < MAX_THREADS && threads[slot] != NULL; slot++)
		;
	if (slot == MAX_THREADS) {
		ret = -ENOSPC;
		goto out;
	}
	if (!atexit_done && atexit(stop_all_threads) == 0)
		atexit_done = true;
	e->idle_us = idle_sleep_us ? idle_sleep_us : 200;
	e->thread_stop = false;
	dpv_port_signals_block(&sigs);
	ret = -pthread_create(&e->thread, NULL, progress_thread, e);
	dpv_port_signals_restore(&sigs);
	if (ret)
		goto out;
	pthread_setname_np(e->thread, "dpv-engine");
	e->thread_on = true;
	threads[slot] = e;
out:
	pthread_mutex_unlock(&threads_lock);
	return ret;
}

void
dpv_engine_thread_stop(struct dpv_engine *e)
{
	if (e == NULL)
		return;
	pthread_mutex_lock(&threads_lock);
	if (e->thread_on) {
		e->thread_stop = true;
		pthread_join(e->thread, NULL);
		e->thread_on = false;
	}
	for (unsigned i = 0; i < MAX_THREADS; i++)
		if (threads[i] == e)
			threads[i] = NULL;
	pthread_mutex_unlock(&threads_lock);
}

int
dpv_engine_stats_get(struct dpv_engine *e, struct dpv_engine_stats *out)
{
	if (e == NULL || out == NULL)
		return -EINVAL;
	*out = e->st;
	return 0;
}

int
dpv_engine_qp_stats_get(struct dpv_engine *e, uint32_t qpn,
			struct dpv_engine_qp_stats *out)
{
	struct dpv_eqp *qp;
	int rc = -ENOENT;

	if (e == NULL || out == NULL)
		return -EINVAL;
	dpv_engine_lock(e);
	qp = dpv_engine_qp_lookup(e, qpn);
	if (qp != NULL) {
		*out = qp->st;
		out->rx_pkts += qp->hot_rx_pkts;
		out->acks_sent += qp->hot_acks_sent;
		out->acks_rcvd += qp->hot_acks_rcvd;
		out->credit_probes += qp->hot_credit_probes;
		rc = 0;
	}
	dpv_engine_unlock(e);
	return rc;
}

int
dpv_engine_qp_state_get(struct dpv_engine *e, uint32_t qpn,
			struct dpv_engine_qp_state *out)
{
	struct dpv_eqp *qp;
	uint64_t now;
	int rc = -ENOENT;

	if (e == NULL || out == NULL)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	dpv_engine_lock(e);
	qp = dpv_engine_qp_lookup(e, qpn);
	if (qp != NULL) {
		if (qp->sq != NULL) {
			out->sq_posted = qp->sq->wq.head;
			out->sq_polled = qp->sq->wq.tail;
		}
		out->sq_fetched = qp->s_head;
		out->sq_sent = qp->s_cur;
		out->sq_done = qp->s_tail;
		out->sq_psn = qp->req.psn;
		out->sq_acked_psn = qp->comp.psn;
		if (qp->rq != NULL && !qp->has_srq) {
			out->rq_posted = qp->rq->wq.head;
			out->rq_taken = qp->rq->wq.eng_pi;
		}
		out->rq_psn = qp->resp.epsn;
		out->rq_msn = qp->resp.msn;
		out->retry_left = qp->comp.retry_left;
		out->rnr_left = qp->comp.rnr_left;
		out->on_run_list = qp->active;
		out->timer_us = UINT64_MAX;
		if (qp->comp.deadline != 0) {
			now = dpv_engine_now();
			out->timer_us =
				qp->comp.deadline <= now
					? 0
					: (qp->comp.deadline - now) /
						  RTE_MAX(e->hz / 1000000,
							  (uint64_t)1);
		}
		rc = 0;
	}
	dpv_engine_unlock(e);
	return rc;
}

/* ------------------------------------------------------------------ keys */

int
dpv_engine_key_set(struct dpv_engine *e, uint32_t key,
		   const struct dpv_engine_key *k)
{
	uint32_t idx = dpv_engine_key_index(key);

	if (e == NULL || k == NULL)
		return -EINVAL;
	if (e->keys == NULL)
		return -EOPNOTSUPP;
	if (idx >= e->max_keys || k->addr + k->length < k->addr ||
	    k->iova + k->length < k->iova || key == MLX5_INVALID_LKEY)
		return -EINVAL;
	dpv_engine_lock(e);
	e->keys[idx] = *k;
	e->keys[idx].key = key;
	e->keys[idx].valid = 1;
	rte_spinlock_unlock(&e->lock);
	return 0;
}

int
dpv_engine_key_clear(struct dpv_engine *e, uint32_t key)
{
	uint32_t idx = dpv_engine_key_index(key);
	int ret = 0;

	if (e == NULL || e->keys == NULL || idx >= e->max_keys)
		return -EINVAL;
	dpv_engine_lock(e);
	if (!e->keys[idx].valid || e->keys[idx].key != key)
		ret = -ENOENT;
	else
		e->keys[idx].valid = 0;
	rte_spinlock_unlock(&e->lock);
	return ret;
}

int
dpv_engine_key_alloc_index(struct dpv_engine *e, uint32_t *index)
{
	int ret = -ENOSPC;

	if (e == NULL || index == NULL || e->keys == NULL)
		return -EINVAL;
	dpv_engine_lock(e);
	for (uint32_t i = 2; i < e->max_keys; i++) {
		if (!e->keys[i].valid) {
			*index = i;
			ret = 0;
			break;
		}
	}
	rte_spinlock_unlock(&e->lock);
	return ret;
}

/* LOCAL_INV and SEND with invalidate (engine thread, lock held). */
int
dpv_engine_key_invalidate(struct dpv_engine *e, uint32_t key, uint32_t pdn,
			  uint32_t qpn, bool remote)
{
	struct dpv_engine_key *k;
	int rc;

	if (e->conf.key_lookup != NULL)
		return e->conf.key_invalidate
			       ? e->conf.key_invalidate(e->conf.key_lookup_arg, key, pdn,
						   qpn, remote)
			       : -EOPNOTSUPP;
	if (dpv_engine_key_index(key) >= e->max_keys)
		return -EINVAL;
	k = &e->keys[dpv_engine_key_index(key)];
	rc = dpv_key_invalidate_check(k, key, pdn, qpn, remote, true);
	if (rc != 0)
		return rc;
	if (k->type == DPV_ENGINE_KEY_MR || k->type == DPV_ENGINE_KEY_IMPLICIT)
		k->valid = 0;
	else
		k->bound = 0;
	return 0;
}

/* IBV_WR_BIND_MW in send-queue order (engine thread, lock held). */
enum ibv_wc_status
dpv_engine_key_bind(struct dpv_engine *e, struct dpv_eqp *qp,
		    const struct dpv_wr_bind *b)
{
	uint32_t wi = dpv_engine_key_index(b->mw_rkey);
	uint32_t ri = dpv_engine_key_index(b->mr_lkey);

	if (e->conf.key_lookup != NULL)
		return e->conf.key_bind
			       ? (enum ibv_wc_status)e->conf.key_bind(
					 e->conf.key_lookup_arg, b, qp->pdn, qp->qpn)
			       : IBV_WC_MW_BIND_ERR;
	if (wi >= e->max_keys)
		return IBV_WC_MW_BIND_ERR;
	return dpv_key_bind_apply(&e->keys[wi],
				  b->length && ri < e->max_keys ? &e->keys[ri]
								: NULL,
				  b, qp->pdn, qp->qpn);
}

/* ------------------------------------------------------------------- QPs */

struct dpv_eqp *
dpv_engine_qp_lookup_over(struct dpv_engine *e, uint32_t qpn)
{
	void *data;

	if (rte_hash_lookup_data(e->qp_hash, &qpn, &data) < 0)
		return NULL;
	return data;
}

/* Enter qp in the QPN table (its slot, or the hash if that is taken). */
static int
qpn_insert(struct dpv_engine *e, struct dpv_eqp *qp)
{
	struct dpv_eqp **slot = &e->qpn_tab[qp->qpn & e->qpn_mask];

	if (*slot == NULL) {
		*slot = qp;
		return 0;
	}
	if (rte_hash_add_key_data(e->qp_hash, &qp->qpn, qp) < 0)
		return -ENOSPC;
	e->n_over++;
	return 0;
}

static void
qpn_remove(struct dpv_engine *e, struct dpv_eqp *qp)
{
	struct dpv_eqp **slot = &e->qpn_tab[qp->qpn & e->qpn_mask];

	if (*slot == qp) {
		*slot = NULL;
	} else if (rte_hash_del_key(e->qp_hash, &qp->qpn) >= 0) {
		e->n_over--;
	}
}

int
dpv_engine_qp_create(struct dpv_engine *e,
		     const struct dpv_engine_qp_init *init)
{
	struct dpv_eqp *qp;
	uint32_t n = 1;
	int ret = 0;

	if (e == NULL || init == NULL || init->qpn > DPV_ROCE_QPN_MASK)
		return -EINVAL;
	if (init->type != IBV_QPT_RC && init->type != IBV_QPT_UC &&
	    init->type != IBV_QPT_UD && init->type != IBV_QPT_RAW_PACKET &&
	    init->type != IBV_QPT_XRC_SEND && init->type != IBV_QPT_XRC_RECV &&
	    init->type != IBV_QPT_DRIVER)
		return -EINVAL;
	if ((init->type == IBV_QPT_XRC_SEND && (init->rq || init->srq)) ||
	    (init->type == IBV_QPT_XRC_RECV &&
	     (init->sq || init->rq || init->srq)))
		return -EINVAL;
	if ((init->sq && !init->send_cq) ||
	    ((init->rq || init->srq) && !init->recv_cq) ||
	    (init->rq && init->srq))
		return -EINVAL;
	/* WQEs in flight: the rest wait in the send queue's ring */
	while (n < init->max_send_wr && n < DPV_ENGINE_MAX_SWQE)
		n <<= 1;
	qp = dpv_mlx5_mem_zalloc(sizeof(*qp));
	if (qp == NULL)
		return -ENOMEM;
	/* a slot holds as many SGEs as the ring lets a WQE carry */
	qp->max_sge = init->sq && init->sq->wq.max_gs ?
		RTE_MIN(init->sq->wq.max_gs, (uint32_t)DPV_WR_MAX_SGE) :
		DPV_WR_MAX_SGE;
	qp->swqe_size = RTE_ALIGN_CEIL(
		offsetof(struct dpv_eswqe, wr.sg_list) +
			qp->max_sge * (sizeof(struct dpv_sge) + sizeof(void *)) +
			DPV_CQE_SCAT_MAX,
		8);
	qp->nswqe = init->sq ? n : 1;
	qp->swqe = dpv_mlx5_mem_zalloc((size_t)qp->swqe_size * qp->nswqe);
	if (qp->swqe == NULL) {
		qp_free(qp);
		return -ENOMEM;
	}
	qp->e = e;
	qp->qpn = init->qpn;
	qp->type = init->type;
	qp->state = IBV_QPS_RESET;
	qp->pdn = init->pdn;
	qp->sq = init->sq;
	if (qp->sq != NULL) /* a kick of an earlier QP on this SQ is lost */
		__atomic_store_n(&qp->sq->kicked, 0, __ATOMIC_RELAXED);
	qp->rq = init->srq ? init->srq : init->rq;
	qp->has_srq = init->srq != NULL;
	qp->srqn = init->srqn;
	qp->scq = init->send_cq;
	qp->rcq = init->recv_cq;
	qp->sq_sig_all = init->sq_sig_all;
	qp->block_self_mcast = init->block_self_mcast;
	qp->xrcdn = init->xrcdn;
	qp->wire_qpn = qp->qpn;
	if (init->use_source_qpn) {
		if (init->type != IBV_QPT_UD ||
		    init->source_qpn > DPV_ROCE_QPN_MASK) {
			qp_free(qp);
			return -EINVAL;
		}
		qp->srcqpn = true;
		qp->wire_qpn = init->source_qpn;
	}
	if (qp->type == IBV_QPT_XRC_RECV)
		qp->has_srq = true; /* the SRQ of each request */
	qp->mtu = 1024;
	qp->max_rd_atomic = 1;
	qp->max_dest_rd_atomic = DPV_ENGINE_MAX_RD_ATOMIC;
	dpv_engine_credit_init(qp);
	if (qp->type == IBV_QPT_DRIVER) {
		ret = dpv_engine_dc_create(qp, init);
		if (ret) {
			qp_free(qp);
			return ret;
		}
		if (qp->dc == DPV_ENGINE_DC_DCI)
			qp->rq = NULL; /* a DCI receives nothing */
	}

	dpv_engine_lock(e);
	if (dpv_engine_qp_lookup(e, qp->qpn) != NULL)
		ret = -EEXIST;
	else if (e->nqps == e->max_qps)
		ret = -ENOSPC;
	else if (qpn_insert(e, qp) != 0)
		ret = -ENOSPC;
	else {
		e->qps[e->nqps++] = qp;
		scan_mode_set(e);
		e->sweep_at = 0; /* scans may turn to sweeps: one now */
	}
	if (ret == 0 && qp->srcqpn)
		e->n_srcqpn++;
	rte_spinlock_unlock(&e->lock);
	if (ret)
		qp_free(qp);
	return ret;
}

/* Forget every in-flight WQE and the transport state (to RESET). */
static void
qp_reset(struct dpv_eqp *qp)
{
	memset(qp->swqe, 0, (size_t)qp->swqe_size * qp->nswqe);
	qp->s_head = qp->s_cur = qp->s_tail = 0;
	memset(&qp->req, 0, sizeof(qp->req));
	dpv_engine_credit_init(qp);
	memset(&qp->comp, 0, sizeof(qp->comp));
	dpv_engine_resp_reset(qp);
	memset(&qp->resp, 0, sizeof(qp->resp));
	dpv_engine_dc_reset(qp);
	dpv_erxack_drop(&qp->rx_ack);
	qp->rx_req.len = 0;
}

/* Send the ACK the QP owes for what it accepted (coalesced ACKs go at the
 * end of a poll): an application that destroys the QP, or moves it to
 * ERR or RESET, right after its last receive completion must not leave
 * the peer retrying into a QP that is gone. */
static void
qp_ack_drain(struct dpv_eqp *qp)
{
	struct dpv_engine *e = qp->e;
	uint64_t end;

	/* READ responses still owed are not sent (the requester's retry
	 * finds the QP changed or gone) */
	dpv_engine_resp_drop_owed(qp);
	if (!qp->resp.ack.pending)
		return;
	dpv_engine_tx_flush(e); /* room for it */
	dpv_engine_ack_flush(qp);
	/* a port that is busy gets up to 1 ms */
	end = dpv_engine_now() + e->hz / 1000;
	do
		dpv_engine_tx_flush(e);
	while (e->ntx != 0 && dpv_engine_now() < end);
}

void
dpv_engine_qp_to_err(struct dpv_eqp *qp)
{
	if (qp->state == IBV_QPS_ERR)
		return;
	qp_ack_drain(qp);
	ENGINE_LOG(DEBUG, "qp %u: to ERR", qp->qpn);
	qp->state = IBV_QPS_ERR;
	dpv_engine_sq_flush(qp);
}

/*
 * A send WQE completed in error. UD and UC QPs go to SQE (the IBA state
 * for send-side errors of unreliable transports): the rest of the send
 * queue is flushed, the receive queue keeps working, and SQE -> RTS
 * resumes sending. Every other type goes to ERR.
 */
void
dpv_engine_qp_send_error(struct dpv_eqp *qp)
{
	if (qp->type != IBV_QPT_UD && qp->type != IBV_QPT_UC) {
		dpv_engine_qp_to_err(qp);
		return;
	}
	if (qp->state == IBV_QPS_ERR || qp->state == IBV_QPS_SQE)
		return;
	ENGINE_LOG(DEBUG, "qp %u: to SQE", qp->qpn);
	qp->state = IBV_QPS_SQE;
	dpv_engine_sq_flush_send(qp);
}

int
dpv_engine_qp_modify(struct dpv_engine *e, uint32_t qpn,
		     const struct ibv_qp_attr *attr, int mask,
		     const struct dpv_engine_path *path)
{
	struct dpv_eqp *qp;
	int ret = 0;

	if (e == NULL || attr == NULL)
		return -EINVAL;
	if ((mask & IBV_QP_AV) && path == NULL)
		return -EINVAL;
	dpv_engine_lock(e);
	build_posted(e);
	qp = dpv_engine_qp_lookup(e, qpn);
	if (qp == NULL) {
		ret = -ENOENT;
		goto out;
	}
	if ((mask & IBV_QP_STATE) && attr->qp_state == IBV_QPS_RESET) {
		qp_ack_drain(qp);
		qp_reset(qp);
		qp->state = IBV_QPS_RESET;
		goto out;
	}
	if (mask & IBV_QP_PATH_MTU) {
		uint32_t b = dpv_mtu_bytes(attr->path_mtu);

		if (b)
			qp->mtu = b;
	}
	if (mask & IBV_QP_QKEY)
		qp->qkey = attr->qkey;
	if (mask & IBV_QP_RQ_PSN)
		qp->resp.epsn = attr->rq_psn & DPV_ROCE_PSN_MASK;
	if (mask & IBV_QP_SQ_PSN) {
		qp->req.psn = attr->sq_psn & DPV_ROCE_PSN_MASK;
		qp->comp.psn = qp->req.psn;
	}
	if (mask & IBV_QP_DEST_QPN) {
		qp->dest_qpn = attr->dest_qp_num & DPV_ROCE_QPN_MASK;
		qp->resp.ack_len = 0; /* its ACK template names the old one */
	}
	if (mask & IBV_QP_ACCESS_FLAGS)
		qp->access = attr->qp_access_flags;
	if (mask & IBV_QP_TIMEOUT) {
		qp->timeout = attr->timeout;
		qp->ack_cycles = dpv_engine_ack_cycles_of(e, qp->timeout);
	}
	if (mask & IBV_QP_RETRY_CNT)
		qp->retry_cnt = attr->retry_cnt;
	if (mask & IBV_QP_RNR_RETRY)
		qp->rnr_retry = attr->rnr_retry;
	if (mask & IBV_QP_MIN_RNR_TIMER)
		qp->min_rnr_timer = attr->min_rnr_timer;
	if (mask & IBV_QP_MAX_QP_RD_ATOMIC)
		qp->max_rd_atomic =
			attr->max_rd_atomic ? attr->max_rd_atomic : 1;
	if (mask & IBV_QP_MAX_DEST_RD_ATOMIC)
		qp->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (mask & IBV_QP_AV) {
		qp->path = *path;
		if (qp->path.udp_sport == 0)
			qp->path.udp_sport = dpv_roce_udp_sport_rxe(qp->qpn);
		dpv_engine_qp_tmpl_set(qp);
	}
	/* a packet must fit one mbuf: worst case VLAN + IPv6 + RETH */
	if (qp->mtu > e->mbuf_room - 104) {
		uint32_t m = 256;

		while (m * 2 <= e->mbuf_room - 104)
			m *= 2;
		ENGINE_LOG(WARNING,
			   "qp %u: path MTU %u does not fit an mbuf, using %u",
			   qp->qpn, qp->mtu, m);
		qp->mtu = m;
	}
	if (mask & IBV_QP_STATE) {
		enum ibv_qp_state next = attr->qp_state;

		if (next == IBV_QPS_ERR) {
			dpv_engine_qp_to_err(qp);
		} else {
			if (next == IBV_QPS_RTS && qp->state != IBV_QPS_RTS &&
			    qp->state != IBV_QPS_SQD) {
				qp->comp.retry_left = qp->retry_cnt;
				qp->comp.rnr_left = qp->rnr_retry;
			}
			/* a connection starts: no end-to-end credits yet */
			if (next == IBV_QPS_RTS && qp->state == IBV_QPS_RTR)
				dpv_engine_credit_init(qp);
			if (next == IBV_QPS_SQD && qp->state != IBV_QPS_SQD)
				qp->sqd_notify =
					(mask & IBV_QP_EN_SQD_ASYNC_NOTIFY) &&
					attr->en_sqd_async_notify;
			else if (next != IBV_QPS_SQD)
				qp->sqd_notify = false;
			if (next != IBV_QPS_SQD)
				qp->sigp = 0;
			qp->state = next;
		}
	}
out:
	if (qp != NULL)
		dpv_engine_qp_activate(qp); /* new state, new work */
	rte_spinlock_unlock(&e->lock);
	return ret;
}

int
dpv_engine_qp_state(struct dpv_engine *e, uint32_t qpn)
{
	struct dpv_eqp *qp;
	int ret;

	if (e == NULL)
		return -EINVAL;
	dpv_engine_lock(e);
	qp = dpv_engine_qp_lookup(e, qpn);
	ret = qp ? (int)qp->state : -ENOENT;
	rte_spinlock_unlock(&e->lock);
	return ret;
}

int
dpv_engine_qp_sq_busy(struct dpv_engine *e, uint32_t qpn)
{
	struct dpv_eqp *qp;
	int ret;

	if (e == NULL)
		return -EINVAL;
	dpv_engine_lock(e);
	qp = dpv_engine_qp_lookup(e, qpn);
	ret = qp ? qp->s_tail != qp->s_head : -ENOENT;
	rte_spinlock_unlock(&e->lock);
	return ret;
}

int
dpv_engine_qp_destroy(struct dpv_engine *e, uint32_t qpn)
{
	struct dpv_eqp *qp;

	if (e == NULL)
		return -EINVAL;
	dpv_engine_lock(e);
	build_posted(e);
	qp = dpv_engine_qp_lookup(e, qpn);
	if (qp == NULL) {
		rte_spinlock_unlock(&e->lock);
		return -ENOENT;
	}
	qp_ack_drain(qp);
	qpn_remove(e, qp);
	if (dpv_eqp_tm(qp) != NULL)
		dpv_engine_tm_qp_gone(qp);
	if (qp->srcqpn)
		e->n_srcqpn--;
	dpv_engine_raw_qp_gone(e, qpn);
	for (uint32_t i = 0; i < e->nqps; i++) {
		if (e->qps[i] == qp) {
			e->qps[i] = e->qps[--e->nqps];
			break;
		}
	}
	/* a sweep under way may miss the QP moved into its place */
	e->sweep_min = 0;
	e->sweep_at = 0;
	if (qp->exposed)
		e->nexposed--;
	scan_mode_set(e);
	for (uint32_t i = 0; qp->active && i < e->nrun; i++) {
		if (e->run[i] == qp) {
			e->run[i] = e->run[--e->nrun];
			break;
		}
	}
	rte_spinlock_unlock(&e->lock);
	qp_free(qp);
	return 0;
}

/* ----------------------------------------------------------- completions */

/* A CQE was pushed to cq (push's return ret): counted and its event
 * raised; 0, or -ENOSPC (an overrun, logged) */
static inline int
cq_written(struct dpv_engine *e, struct dpv_mlx5_cq *cq, uint32_t qpn, int ret)
{
	if (ret) {
		ENGINE_LOG(WARNING, "qp %u: CQ overrun", qpn);
		return -ret;
	}
	e->st.cqes++;
	e->work++;
	if (cq->eng_events) /* an event may be due (no call otherwise) */
		dpv_engine_cq_notify(e, cq);
	return 0;
}

int
dpv_engine_cqe(struct dpv_eqp *qp, bool recv, uint16_t wqe_idx,
	       enum ibv_wc_status status, enum ibv_wc_opcode opcode,
	       uint32_t byte_len, uint32_t imm_be, uint32_t src_qp,
	       unsigned wc_flags)
{
	struct dpv_mlx5_cq *cq = recv ? qp->rcq : qp->scq;

	/* a completion without error, scatter or other flags into the
	 * 64-byte ring of one engine: written in place, field by field */
	if (likely(status == IBV_WC_SUCCESS && qp->cqe_scat_len == 0 &&
		   dpv_ring_cq_plain(cq) && !cq->eng_shared &&
		   (wc_flags & ~(IBV_WC_WITH_IMM | IBV_WC_WITH_INV |
				 IBV_WC_GRH | DPV_ENGINE_CQE_SOLICITED)) ==
			   0)) {
		int ret = recv ? dpv_mlx5_cq_push_recv(
					 cq, qp->qpn, wqe_idx, opcode,
					 wc_flags, byte_len, imm_be, src_qp,
					 qp->has_srq ? qp->srqn : 0,
					 wc_flags & DPV_ENGINE_CQE_SOLICITED)
			       : dpv_mlx5_cq_push_req(cq, qp->qpn, wqe_idx,
						      opcode, wc_flags,
						      byte_len);

		return cq_written(qp->e, cq, qp->qpn, ret);
	}
	struct dpv_cqe_info ci = {
		.status = status,
		.opcode = opcode,
		.is_recv = recv,
		.qpn = qp->qpn,
		.wqe_counter = wqe_idx,
		.byte_len = byte_len,
		.imm_data = imm_be,
		.invalidated_rkey = (wc_flags & IBV_WC_WITH_INV) ? imm_be : 0,
		.src_qp = src_qp,
		.wc_flags = wc_flags & ~DPV_ENGINE_CQE_SOLICITED,
		.solicited = recv && (wc_flags & DPV_ENGINE_CQE_SOLICITED),
	};

	if (recv && qp->has_srq)
		ci.srqn = qp->srqn;
	if (wc_flags & IBV_WC_WITH_INV)
		ci.imm_data = 0;
	if (qp->cqe_scat_len && status == IBV_WC_SUCCESS) {
		ci.scat = qp->cqe_scat; /* scatter to CQE */
		ci.scat_len = qp->cqe_scat_len;
	}
	qp->cqe_scat_len = 0;
	return dpv_engine_cq_write(qp->e, cq, &ci);
}

void
dpv_engine_cq_notify(struct dpv_engine *e, struct dpv_mlx5_cq *cq)
{
	/* the arm check is a full barrier: only where an event can go */
	if (e->conf.cq_event == NULL || !cq->eng_events)
		return;
	if (dpv_ring_cq_should_notify(cq))
		e->conf.cq_event(e->conf.cq_event_arg, cq);
	else if (unlikely(cq->eng_mod_run))
		dpv_engine_cqmod_watch(e, cq); /* a moderation period runs */
}

int
dpv_engine_cq_write(struct dpv_engine *e, struct dpv_mlx5_cq *cq,
		    const struct dpv_cqe_info *ci)
{
	bool shared = dpv_ring_cq_lock(cq);
	int ret = dpv_ring_cq_push(cq, ci);

	if (ret == 0 && unlikely(cq->comp != NULL)) {
		/* a shared CQ's compression session never spans shards */
		if (shared)
			held_write(e, cq);
		else
			dpv_engine_held_note(e, cq);
	}
	ret = cq_written(e, cq, ci->qpn, ret);
	dpv_ring_cq_unlock(cq, shared);
	return ret;
}
