/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DPV_VERBS_INT_H
#define DPV_VERBS_INT_H

/**
 * @file
 * Internal object model of the verbs front end (libibverbs.so.1).
 *
 * Every verbs object embeds the public rdma-core structure first, so the
 * pointer handed to the application converts back with a to_d*() helper.
 * Objects that others depend on carry an atomic reference count: creating
 * a dependent takes a reference (dpv_ref_get), destroying it drops it
 * (dpv_ref_put); destroying an object whose count is not zero fails with
 * EBUSY and changes nothing.
 *
 * Error convention: internal functions return 0 or a positive errno; the
 * exported ibv_* functions follow the verbs man pages (int results are the
 * positive errno, pointer results are NULL with errno set).
 *
 * rdma-core's <infiniband/driver.h> is not installed, so the provider-side
 * types (verbs_device, verbs_cq, verbs_srq, verbs_xrcd) are dpv_ look-alikes
 * with the same leading layout.
 */

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pthread.h>
#include <sys/queue.h>
#include <sys/types.h>

#include <infiniband/verbs.h>
#include <rte_branch_prediction.h>
#include <rte_cycles.h>
#include <rte_log.h>
#include <rte_seqlock.h>

#include "verbs_caps.h"

#include "mlx5_ring.h"
#include "mlx4_ring.h"

extern int dpv_logtype_verbs;
#define VERBS_LOG(level, fmt, ...)                                             \
	rte_log(RTE_LOG_##level, dpv_logtype_verbs, "verbs: " fmt "\n",        \
		##__VA_ARGS__)

#ifndef container_of
#define container_of(ptr, type, member)                                        \
	((type *)((char *)(ptr)-offsetof(type, member)))
#endif

struct dpv_port;
struct dpv_xrcd;

/* ---------------------------------------------------------------------- */
/* Reference counts                                                        */

static inline void
dpv_ref_get(atomic_int *r)
{
	atomic_fetch_add_explicit(r, 1, memory_order_relaxed);
}

static inline void
dpv_ref_put(atomic_int *r)
{
	atomic_fetch_sub_explicit(r, 1, memory_order_release);
}

static inline bool
dpv_ref_busy(atomic_int *r)
{
	return atomic_load_explicit(r, memory_order_acquire) != 0;
}

/* ---------------------------------------------------------------------- */
/* Memory keys: one table per device shared by MRs and MWs                 */

enum dpv_mkey_type {
	DPV_MKEY_FREE = 0,
	DPV_MKEY_MR,
	DPV_MKEY_MW1,
	DPV_MKEY_MW2,
	DPV_MKEY_INDIRECT, /**< mlx5dv_create_mkey(); bound = configured */
	/** implicit on-demand region: addr 0, length SIZE_MAX, iova 0 */
	DPV_MKEY_IMPLICIT,
};

/**
 * One memory key as the engine sees it. Key = index << 8 | variant; the
 * variant byte changes each time an index is reused, so a stale key never
 * matches. Readers take a consistent copy with dpv_mkey_get().
 */
struct dpv_mkey {
	uint32_t key;  /**< full 32-bit key (lkey == rkey) */
	uint8_t type;  /**< enum dpv_mkey_type */
	uint8_t bound; /**< MW: bound to a region */
	uint32_t pdn;  /**< PD number the key belongs to */
	uint64_t addr; /**< process virtual address of byte 0 */
	uint64_t iova; /**< address remote peers use for byte 0 */
	uint64_t length;
	unsigned int access; /**< IBV_ACCESS_* */
	uint32_t qpn;	     /**< MW type 2: QP it is bound to */
	void *obj; /**< struct dpv_mr *, dpv_mw * or dpv_imkey * */
	struct dpv_mr *bound_mr; /**< MW: the region it is bound to */
	/** indirect key: its layout (see struct dpv_engine_key) */
	const struct dpv_klm *klm;
	uint32_t nklm, repeat;
	uint64_t block;
	uint8_t remote_inv; /**< indirect key: remotely invalidatable */
	struct dpv_sig *sig; /**< indirect key: its block signature, or NULL */
};

struct dpv_mkey_slot {
	rte_seqlock_t lock;
	struct dpv_mkey k;
	uint8_t next_variant;
};

/**
 * Look up a key (lkey or rkey) of @p dev. Safe against concurrent
 * registration changes (seqlock read).
 * @return true and a copy in @p out when the key is live, else false.
 */
struct dpv_device;
bool dpv_mkey_get(struct dpv_device *dev, uint32_t key, struct dpv_mkey *out);

/**
 * The sequence word of the seqlock of the slot that holds @p key (the
 * engine's key_version hook; @p arg is the device), or NULL if the key
 * has no slot. It moves on every change of the slot.
 */
const uint32_t *dpv_mkey_version(void *arg, uint32_t key);

/**
 * Rewrite the engine-visible fields of a live key (memory window bind and
 * invalidate from the datapath: new key variant, bound, addr, length,
 * access, qpn). @p key selects the slot (its index bits).
 * @return 0, ENOENT if the slot is free.
 */
int dpv_mkey_update(struct dpv_device *dev, uint32_t key,
		    const struct dpv_mkey *val);

struct dpv_wr_bind;
struct dpv_engine_key;
/**
 * The engine's view of a key of the table (what key_lookup returns).
 * @param m the key
 * @param k out: the engine entry
 */
void dpv_mkey_to_ekey(const struct dpv_mkey *m, struct dpv_engine_key *k);

struct dpv_wr_umr;
struct dpv_klm;
/**
 * Engine hook (dpv_engine_conf.key_config, arg = the dpv_device):
 * configure an indirect key (rules of dpv_key_layout_check()).
 * @return IBV_WC_SUCCESS or IBV_WC_LOC_PROT_ERR.
 */
int dpv_mkey_engine_config(void *arg, const struct dpv_wr_umr *u,
			   const struct dpv_klm *ent, uint32_t pdn,
			   uint32_t qpn);

/**
 * Engine hook (dpv_engine_conf.key_bind, arg = the dpv_device): execute a
 * memory window bind against the device's key table (rules of
 * dpv_key_bind_apply()). @return IBV_WC_SUCCESS or IBV_WC_MW_BIND_ERR.
 */
int dpv_mkey_engine_bind(void *arg, const struct dpv_wr_bind *b, uint32_t pdn,
			 uint32_t qpn);

/**
 * Engine hook (dpv_engine_conf.key_invalidate, arg = the dpv_device):
 * LOCAL_INV / SEND with invalidate of a type 2 window (regions and type 1
 * windows cannot be invalidated). @return 0, -ENOENT, -EACCES.
 */
int dpv_mkey_engine_invalidate(void *arg, uint32_t key, uint32_t pdn,
			       uint32_t qpn, bool remote);

/* ---------------------------------------------------------------------- */
/* Device and context                                                      */

/** Look-alike of rdma-core's verbs_device: room after ibv_device. */
struct dpv_verbs_device {
	struct ibv_device device;
	const void *ops; /**< real providers read a pointer here; NULL */
};

/** Most engine shards of a device (= DPV_SHARDS_MAX of lib/port). */
#define DPV_DEV_SHARDS_MAX 8
struct dpv_engine;
struct dpv_qp;

struct dpv_device {
	struct dpv_verbs_device vdev;
	struct dpv_port *port;
	unsigned int index;   /**< ibv_get_device_index() */
	uint64_t guid_be;     /**< node GUID, network order (EUI-64 of MAC) */
	pthread_mutex_t lock; /**< control path of device-wide tables */
	struct dpv_mkey_slot *mkeys; /**< DPV_CAP_MAX_MR slots, [0] unused */
	unsigned int mkey_hint;
	atomic_uint next_pdn;
	/** SRQ by number (index; [0] unused), written under lock */
	struct dpv_srq *_Atomic *srqs;
	unsigned int srq_hint;
	TAILQ_HEAD(, dpv_xrcd) xrcds; /**< XRC domains opened by file (lock) */
	atomic_size_t dm_used;	      /**< device memory allocated (bytes) */
	atomic_uint dm_handles;	      /**< the last ibv_dm handle given */
	void *qp_priv; /**< device-wide QP state, owned by qp.c */
	/**
	 * Application-driven progress of the device's engine (NULL until an
	 * engine is attached): run by poll_cq, get_cq_event and posting.
	 */
	void (*progress)(struct dpv_device *dev);
	/** The same after a post to qp's send queue: frames of a burst of
	 *  posts leave together (dpv_engine_progress_post_sq()), and the QP is
	 *  told to its engine (put on its run list, or kicked when the engine
	 *  is busy or a worker lcore owns it). NULL: progress is used. */
	void (*progress_post)(struct dpv_device *dev, struct dpv_qp *qp);
	void *engine;  /**< struct dpv_engine * of the device (its home
			    shard: engines[0]) */
	/** Engine shards (verbs_engine.c): nshards engines, each on its own
	 *  port queue pair and owning the QPs placed on it (qp.c) */
	struct dpv_engine *engines[DPV_DEV_SHARDS_MAX];
	unsigned int nshards;
	unsigned int shard_next; /**< round robin of QP placement */
	/**
	 * Background progress thread or worker lcore state (verbs_engine.c),
	 * NULL in application-driven mode (DPV_PROGRESS=app, embedded).
	 */
	struct dpv_progress_thr *progress_thr;
	/** ibv_get_cq_event() waits its polling window answered, and those
	 *  that slept (DPV_EVENT_POLL_US; verbs_cq.c) */
	atomic_uint_fast64_t event_waits_polled;
	atomic_uint_fast64_t event_waits_slept;
	/** events a polling waiter took from memory: no write() and read()
	 *  of the channel's fd (verbs_cq.c) */
	atomic_uint_fast64_t events_in_memory;
	/** events a waiter left in memory for its next wait (chan_leave()):
	 *  no write() there and no read() at the next */
	atomic_uint_fast64_t events_carried;
	/** the channels of the device's contexts (chan_lock) */
	pthread_mutex_t chan_lock;
	TAILQ_HEAD(, dpv_comp_channel) chans;
	/** TSC of the latest events left in memory by a waiter on one of
	 *  chans, 0 when none (dpv_cq_carry_flush()) */
	_Atomic uint64_t carry_at;
	/** TSC cycles a blocking ibv_get_cq_event() polls for its event
	 *  before it sleeps (DPV_EVENT_POLL_US, set with the engine) */
	uint64_t event_poll_cycles;
	int socket_id; /**< NUMA socket for rings */
	/** Identity in ibv_query_device and sysfs: ours, or an mlx5 device's
	 *  under "personality = mlx5" (verbs_device.c) */
	uint32_t vendor_id;
	uint32_t vendor_part_id;
	uint32_t hw_ver;
	bool mlx5_personality;
	/** Byte format of the device's rings ("rings" key): the table whose
	 *  init functions create every SQ, RQ, SRQ and CQ of the device;
	 *  each ring then points at it (struct dpv_ring_ops in
	 *  drivers/rdma/mlx5/mlx5_ring.h; dpv_mlx4_ring_ops for
	 *  "rings = mlx4", drivers/rdma/mlx4/mlx4_ring.h) */
	const struct dpv_ring_ops *ring_ops;
};

/* Engine shards (verbs_engine.c): the counters of all of a device's
 * engines summed (-ENODEV without an engine); the engine that owns QP qpn
 * (the home shard if none); every shard's lock taken and released (no
 * engine is still in a poll that began before). */
struct dpv_engine_stats;
int dpv_dev_engine_stats(struct dpv_device *dev, struct dpv_engine_stats *out);
struct dpv_engine *dpv_dev_qp_engine(struct dpv_device *dev, uint32_t qpn);
void dpv_dev_engines_barrier(struct dpv_device *dev);
/* Engine shards (qp.c): CQ ring cq gets completions from shard s from now
 * on (binds it, or makes it shared between shards). */
void dpv_shard_use_cq(struct dpv_device *dev, struct dpv_mlx5_cq *cq,
		      unsigned int s);

/* The application is about to block in a verbs call (a CQ or async
 * event): the progress thread stops napping and polls. */
void dpv_progress_app_blocks(struct dpv_device *dev);
/* The application armed a CQ of dev whose channel's fd is non-blocking
 * (ibv_req_notify_cq): it may wait for the event on the fd with a poll()
 * of its own next. */
void dpv_progress_app_arms(struct dpv_device *dev);
/* A QP of dev got local ACK timeout `timeout` (IBV_QP_TIMEOUT): the
 * progress thread's naps beside the application stay well below it. */
void dpv_progress_note_ack_timeout(struct dpv_device *dev, uint8_t timeout);
/* A sleep of us microseconds between polls of dev's engines, cut to end
 * no later than a CQ moderation period they watch (0: one has ended), and
 * no longer than DPV_CHAN_CARRY_US while events are left in memory. */
unsigned int dpv_progress_sleep_us(struct dpv_device *dev, unsigned int us);
/* dev has a background progress thread (DPV_DEVICE_PROGRESS_THREAD):
 * it writes to the fd the events a waiter left in memory. */
bool dpv_progress_carries(struct dpv_device *dev);
/* A waiter left events in memory on one of dev's channels: a long nap of
 * the progress thread ends (it writes them to the fd if no wait takes
 * them within DPV_CHAN_CARRY_US). */
void dpv_progress_carry_kick(struct dpv_device *dev);

static inline struct dpv_device *
to_ddev(struct ibv_device *d)
{
	return container_of(d, struct dpv_device, vdev.device);
}

/** One queued asynchronous event (ibv_get_async_event). */
struct dpv_async_ev {
	TAILQ_ENTRY(dpv_async_ev) next;
	struct ibv_async_event ev;
};
TAILQ_HEAD(dpv_async_list, dpv_async_ev);

struct dpv_mlx5_wq;

struct dpv_context {
	struct verbs_context vctx; /**< ends with the ibv_context handed out */
	struct dpv_device *dev;
	/** Transport domain, unique per context in the process: raw-packet
	 *  frames a context's QPs send are "self" for its raw QPs. */
	uint32_t domain;
	pthread_mutex_t lock;	       /**< protects the lists below */
	struct dpv_async_list async_q; /**< pending async events */
	/**
	 * Completion-to-work-queue lookup used by poll_cq (filled by qp.c in
	 * dpv_qp_ops_init): returns the SQ (recv false) or RQ/SRQ ring
	 * (recv true) of QP number @p qpn, or NULL. SRQ numbers
	 * (DPV_MLX5_LOOKUP_SRQ | srqn) are resolved by verbs_cq.c and never
	 * reach it.
	 */
	struct dpv_mlx5_wq *(*wq_lookup)(void *arg, uint32_t qpn, bool recv);
	void *wq_lookup_arg;
	void *qp_priv; /**< per-context QP state of qp.c */
	/** mlx4dv_set_context_attr(MLX4DV_SET_CTX_ATTR_LOG_WQS_RANGE_SZ):
	 *  WQs are numbered in aligned ranges of 1 << this (verbs_wq.c) */
	uint8_t wq_log_range;
	/** the open range: next WQ index to hand out, end of the range
	 *  (indexes from DPV_WQN_BASE; protected by verbs_wq.c's lock) */
	uint32_t wq_range_next, wq_range_end;
	/** mlx4dv_set_context_attr(MLX4DV_SET_CTX_ATTR_BUF_ALLOCATORS): the
	 *  application's allocator for the context's later ring buffers
	 *  (alloc NULL: ours) */
	struct {
		void *(*alloc)(size_t size, void *data);
		void (*free)(void *ptr, void *data);
		void *data;
	} ring_alloc;
};

static inline struct dpv_context *
to_dctx(struct ibv_context *c)
{
	return container_of(c, struct dpv_context, vctx.context);
}

/** Ring buffers created by this thread from now on come from the
 *  context's allocator, if the application gave one (mlx4dv); undone by
 *  dpv_ring_alloc_end(). */
static inline void
dpv_ring_alloc_begin(const struct dpv_context *ctx)
{
	if (ctx->ring_alloc.alloc != NULL)
		dpv_mlx5_mem_extern_set(ctx->ring_alloc.alloc,
					ctx->ring_alloc.free,
					ctx->ring_alloc.data);
}

/** End of dpv_ring_alloc_begin(). */
static inline void
dpv_ring_alloc_end(void)
{
	dpv_mlx5_mem_extern_set(NULL, NULL, NULL);
}

static inline struct dpv_device *
dctx_dev(struct ibv_context *c)
{
	return to_dctx(c)->dev;
}

/**
 * Queue an asynchronous event for ibv_get_async_event() on @p ctx and wake
 * its async_fd. @return 0 or ENOMEM.
 */
int dpv_async_event_post(struct dpv_context *ctx,
			 const struct ibv_async_event *ev);

/** Filled by qp.c: QP create/modify/... verbs_context ops and the
 *  ibv_context post_send/post_recv ops. Called once per opened context,
 *  after the defaults (which answer EOPNOTSUPP) are in place. */
void dpv_qp_ops_init(struct verbs_context *vctx);

/* A zeroed object on cache lines of its own (free() gives it back): QPs,
 * CQs and SRQs, whose application-side ring state the thread that posts
 * or polls writes, and which threads of their own use side by side */
void *dpv_zalloc_lines(size_t size);

/* ---------------------------------------------------------------------- */
/* PD, parent domain, TD                                                   */

struct dpv_td {
	struct ibv_td ibv;
	atomic_int refcnt;
};

struct dpv_pd {
	struct ibv_pd ibv;
	uint32_t pdn;
	atomic_int refcnt; /**< MRs, MWs, AHs, QPs, SRQs, parent domains */
	/* parent domain (alloc_parent_domain) bits: */
	struct dpv_pd *protection; /**< non-NULL for a parent domain */
	struct dpv_td *td;
	void *(*alloc)(struct ibv_pd *pd, void *pd_context, size_t size,
		       size_t alignment, uint64_t resource_type);
	void (*free)(struct ibv_pd *pd, void *pd_context, void *ptr,
		     uint64_t resource_type);
	void *pd_context;
};

static inline struct dpv_pd *
to_dpd(struct ibv_pd *pd)
{
	return container_of(pd, struct dpv_pd, ibv);
}

/** The protection domain proper (itself, or the PD under a parent domain). */
static inline struct dpv_pd *
dpv_pd_base(struct ibv_pd *pd)
{
	struct dpv_pd *p = to_dpd(pd);

	return p->protection ? p->protection : p;
}

/*
 * The lock of an object's posting or polling (QP send and receive queues,
 * CQ, SRQ, WQ). The application may waive it as mlx5's users do: the
 * environment variable MLX5_SINGLE_THREADED=1 waives every one, a parent
 * domain with a thread domain those of what is created on it, and
 * IBV_CREATE_CQ_ATTR_SINGLE_THREADED a CQ's. A waived lock costs a flag
 * (an uncontended spinlock is a locked instruction, ~20 cycles, several per
 * message) and catches a second thread inside the object where it can.
 */
struct dpv_vlock {
	pthread_spinlock_t l;
	bool on;     /* false: waived */
	bool in_use; /* waived: a call is inside */
};

/* MLX5_SINGLE_THREADED=1 in the environment (read once) */
bool dpv_single_threaded(void);
/* a second thread inside an object whose lock was waived: abort */
void dpv_vlock_violation(void) __attribute__((noreturn, cold));

/* An object created on pd (NULL: none) needs no lock. */
static inline bool
dpv_pd_single_threaded(struct ibv_pd *pd)
{
	return dpv_single_threaded() ||
	       (pd != NULL && to_dpd(pd)->protection != NULL &&
		to_dpd(pd)->td != NULL);
}

static inline void
dpv_vlock_init(struct dpv_vlock *k, bool waived)
{
	pthread_spin_init(&k->l, PTHREAD_PROCESS_PRIVATE);
	k->on = !waived;
	k->in_use = false;
}

static inline void
dpv_vlock_fini(struct dpv_vlock *k)
{
	pthread_spin_destroy(&k->l);
}

static inline void
dpv_vlock_lock(struct dpv_vlock *k)
{
	if (likely(k->on)) {
		pthread_spin_lock(&k->l);
		return;
	}
	if (unlikely(k->in_use))
		dpv_vlock_violation();
	k->in_use = true;
}

static inline void
dpv_vlock_unlock(struct dpv_vlock *k)
{
	if (likely(k->on))
		pthread_spin_unlock(&k->l);
	else
		k->in_use = false;
}

/* ---------------------------------------------------------------------- */
/* MR, MW                                                                  */

struct dpv_mr {
	struct ibv_mr ibv;
	uint64_t iova;
	unsigned int access;
	struct dpv_pd *pd;
	atomic_uint mw_binds; /**< windows bound to it: dereg gives EBUSY */
	void *host;	      /**< the memory at iova (ibv.addr, but for a
				   device-memory region, whose addr is NULL) */
	struct dpv_dm *dm;    /**< device memory it covers, or NULL */
	bool implicit; /**< implicit ODP: the whole address space (host NULL) */
};

/**
 * Device memory (ibv_alloc_dm, verbs_dm.c): memory the device's engine
 * owns, reached by the application only through ibv_memcpy_to/from_dm
 * and zero-based regions (ibv_reg_dm_mr). Here it is host memory like any
 * region's: what a ConnectX MEMIC buffer gives an RDMA peer (a region of
 * its own, its words written whole) without the PCI hop.
 */
struct dpv_dm {
	struct ibv_dm ibv;
	uint8_t *buf;	 /**< length bytes, aligned as asked */
	size_t length;	 /**< as allocated */
	size_t charged;	 /**< what it takes of the device's budget */
	atomic_uint mrs; /**< regions on it: ibv_free_dm gives EBUSY */
};

static inline struct dpv_dm *
to_ddm(struct ibv_dm *dm)
{
	return container_of(dm, struct dpv_dm, ibv);
}

/** The device clock (verbs_clock.c) is the CPU's time-stamp counter,
 *  which the engine writes into the CQEs of CQs that ask for time stamps:
 *  its rate, kHz (ibv_device_attr_ex.hca_core_clock). */
uint64_t dpv_clock_khz(void);
/** A reading of it as CLOCK_REALTIME nanoseconds. */
uint64_t dpv_clock_to_ns(uint64_t raw);
/** ibv_query_rt_values_ex(): the raw clock (in raw_clock.tv_nsec). */
int dpv_query_rt_values(struct ibv_context *context,
			struct ibv_values_ex *values);

/** ibv_reg_dm_mr() (verbs_mr.c): a zero-based region of length bytes of
 *  dm from offset on. */
struct ibv_mr *dpv_reg_dm_mr(struct ibv_pd *pd, struct ibv_dm *dm,
			     uint64_t offset, size_t length,
			     unsigned int access);
/** The device-memory ops of a context (verbs_dm.c). */
void dpv_dm_ops_init(struct verbs_context *vctx);

static inline struct dpv_mr *
to_dmr(struct ibv_mr *mr)
{
	return container_of(mr, struct dpv_mr, ibv);
}

struct dpv_mw {
	struct ibv_mw ibv;
	struct dpv_pd *pd;
};

static inline struct dpv_mw *
to_dmw(struct ibv_mw *mw)
{
	return container_of(mw, struct dpv_mw, ibv);
}

/* ---------------------------------------------------------------------- */
/* Completion channel, CQ                                                  */

struct dpv_cq;

struct dpv_comp_channel {
	struct ibv_comp_channel ibv; /**< fd: eventfd in semaphore mode */
	pthread_mutex_t lock;
	TAILQ_HEAD(, dpv_cq) ready; /**< CQs with an undelivered event */
	atomic_int refcnt;	    /**< CQs using this channel */
	atomic_int pending;	    /**< events written to fd, not yet read */
	/** events queued while a waiter polled in memory, not written to
	 *  the fd: a waiter takes one without a read(), and what it leaves
	 *  is its next wait's (verbs_cq.c, chan_leave()) */
	atomic_int mem;
	atomic_int pollers; /**< waiters polling in memory now */
	atomic_int waiters; /**< threads in ibv_get_cq_event() now */
	TAILQ_ENTRY(dpv_comp_channel) dev_next; /**< dpv_device.chans */
	/** TSC cycles ibv_get_cq_event() polls before it sleeps, adapted
	 *  per channel; at most the device's event_poll_cycles */
	_Atomic uint64_t poll_window;
	/** the window was last set to the whole of it by a slept wait
	 *  (poll_window_adapt()): the next wait tries it */
	atomic_bool tried;
	/** slept waits within the whole window that must pass before the
	 *  window is set to the whole of it again, and how many the next
	 *  failed try makes it (doubling, up to EVENT_TRY_BACKOFF_MAX) */
	atomic_uint try_skip, try_backoff;
	/** the fd's O_NONBLOCK as last seen (ibv_get_cq_event() looks each
	 *  call; an arm before any looks once): CHAN_FD_* */
	atomic_int fd_mode;
};

#define CHAN_FD_UNKNOWN	 0
#define CHAN_FD_BLOCKING 1
#define CHAN_FD_NONBLOCK 2

static inline struct dpv_comp_channel *
to_dchan(struct ibv_comp_channel *c)
{
	return container_of(c, struct dpv_comp_channel, ibv);
}

/** Look-alike of rdma-core's verbs_cq. */
struct dpv_verbs_cq {
	union {
		struct ibv_cq cq;
		struct ibv_cq_ex cq_ex;
	};
};

struct dpv_cq {
	struct dpv_verbs_cq vcq;
	atomic_int refcnt;	     /**< QPs and SRQs using the CQ */
	bool queued;		     /**< on its channel's ready list */
	unsigned int pending_events; /**< undelivered events (channel lock) */
	TAILQ_ENTRY(dpv_cq) chan_next;
	uint64_t wc_flags; /**< create_cq_ex wc_flags */
	struct dpv_pd *pd; /**< parent domain given to create_cq_ex, held */
	bool is_ex;
	struct dpv_vlock poll_lock; /**< serializes pollers of the ring */
	/** the queue of the last QP a send (0) and a receive (1) CQE named,
	 *  for the next CQE of the same QP (poll side, under poll_lock;
	 *  dpv_cq_lookup_forget() when a QP's CQEs are cleaned out) */
	struct {
		uint32_t qpn;
		struct dpv_mlx5_wq *wq;
	} last[2];
	struct dpv_mlx5_cq ring;
};

/** Forget the QP queues cq's poll remembers (poll_lock held). */
static inline void
dpv_cq_lookup_forget(struct dpv_cq *cq)
{
	cq->last[0].wq = NULL;
	cq->last[1].wq = NULL;
}

static inline struct dpv_cq *
to_dcq(struct ibv_cq *cq)
{
	return container_of(cq, struct dpv_cq, vcq.cq);
}

static inline struct dpv_cq *
to_dcq_ex(struct ibv_cq_ex *cq)
{
	return container_of(cq, struct dpv_cq, vcq.cq_ex);
}

/**
 * After writing completions to @p cq without an engine (tests): if the
 * CQ's arm (ibv_req_notify_cq, kept in the ring's arm doorbell) fires,
 * deliver one event on the CQ's completion channel. An engine calls
 * dpv_engine_cq_notify(), which also watches a moderation period.
 */
void dpv_cq_notify(struct dpv_cq *cq);

/**
 * Deliver one completion event for the CQ owning @p ring (the engine's
 * dpv_engine_conf.cq_event hook, called once dpv_mlx5_cq_should_notify()
 * said so).
 */
void dpv_cq_ring_event(struct dpv_mlx5_cq *ring);

/** DPV_EVENT_POLL_US in TSC cycles (its default when unset or bad,
 * logged). */
uint64_t dpv_event_poll_cycles_env(void);

/** Completion events this thread has written to channels (a progress
 * thread that wakes the application then gives it the core). */
uint64_t dpv_cq_events_written(void);

/** How long events a waiter left in memory for its next wait may stay
 * there before the progress thread writes them to the channel's fd, for
 * another thread that waits on it (a poll() of the program's own). The
 * thread's sleeps are no longer while some are left. */
#define DPV_CHAN_CARRY_US 1000

/** Background progress thread of dev: events left in memory on its
 * channels for DPV_CHAN_CARRY_US or more go to the channels' fds. */
void dpv_cq_carry_flush_slow(struct dpv_device *dev);

/** The TSC at which the events last left in memory on dev's channels are
 * due for the fds (DPV_CHAN_CARRY_US after), 0 when none are left. */
static inline uint64_t
dpv_cq_carry_due(struct dpv_device *dev)
{
	uint64_t at =
		atomic_load_explicit(&dev->carry_at, memory_order_relaxed);

	return likely(at == 0)
		       ? 0
		       : at + rte_get_tsc_hz() / 1000000 * DPV_CHAN_CARRY_US;
}

static inline void
dpv_cq_carry_flush(struct dpv_device *dev, uint64_t now)
{
	uint64_t due = dpv_cq_carry_due(dev);

	if (unlikely(due != 0) && (int64_t)(now - due) >= 0)
		dpv_cq_carry_flush_slow(dev);
}

/* ---------------------------------------------------------------------- */
/* XRCD, SRQ                                                               */

/** Look-alike of rdma-core's verbs_xrcd. */
struct dpv_verbs_xrcd {
	struct ibv_xrcd xrcd;
	uint32_t comp_mask;
	uint32_t handle;
};

struct dpv_xrcd {
	struct dpv_verbs_xrcd vxrcd;
	atomic_int refcnt; /**< XRC SRQs and XRC TGT QPs using it */
	/* sharing through a file (ibv_open_xrcd with fd != -1), device lock */
	TAILQ_ENTRY(dpv_xrcd) next;
	bool by_inode;
	dev_t st_dev;
	ino_t st_ino;
	unsigned int opens;
};

static inline struct dpv_xrcd *
to_dxrcd(struct ibv_xrcd *x)
{
	return container_of(x, struct dpv_xrcd, vxrcd.xrcd);
}

/** Look-alike of rdma-core's verbs_srq. */
struct dpv_verbs_srq {
	struct ibv_srq srq;
	enum ibv_srq_type srq_type;
	struct dpv_verbs_xrcd *xrcd;
	struct ibv_cq *cq;
	uint32_t srq_num;
};

struct dpv_srq {
	struct dpv_verbs_srq vsrq;
	atomic_int refcnt; /**< QPs attached to the SRQ */
	struct dpv_pd *pd;
	struct dpv_cq *cq;     /**< XRC SRQ only */
	struct dpv_xrcd *xrcd; /**< XRC SRQ only */
	uint32_t max_wr;
	uint32_t max_sge;
	atomic_uint srq_limit; /**< armed limit, 0 = not armed */
	atomic_uint completed; /**< receive completions polled */
	struct dpv_vlock post_lock;
	/* starts a cache line: a post touches its first (mlx5_ring.h) */
	struct dpv_mlx5_rq ring __rte_cache_aligned;
};

static inline struct dpv_srq *
to_dsrq(struct ibv_srq *s)
{
	return container_of(s, struct dpv_srq, vsrq.srq);
}

/** Whether the device has tag matching SRQs (an engine, mlx5 rings). */
bool dpv_tm_supported(const struct dpv_device *dev);

/**
 * SRQ of a device by its number (the srqn of XRC sends and of SRQ
 * completions, DPV_MLX5_LOOKUP_SRQ | srqn). Lock-free.
 * @return the SRQ or NULL.
 */
struct dpv_srq *dpv_srq_lookup(struct dpv_device *dev, uint32_t srqn);

/**
 * Called (by the engine) after it consumed a receive WQE of @p srq with
 * @p remaining WQEs still posted: fires IBV_EVENT_SRQ_LIMIT_REACHED once
 * when an armed limit is crossed (and disarms it).
 */
void dpv_srq_check_limit(struct dpv_srq *srq, uint32_t remaining);

struct dpv_mlx5_rq;
/**
 * Engine hook (dpv_engine_conf.srq_fetched, arg = the dpv_device): the
 * engine took a receive WQE from the SRQ ring @p ring; checks the armed
 * limit against the WQEs still posted (dpv_srq_check_limit()).
 */
void dpv_srq_engine_fetched(void *arg, struct dpv_mlx5_rq *ring);

struct dpv_engine_srq;
/**
 * Engine hook (dpv_engine_conf.srq_lookup, arg = the dpv_device): the
 * XRC SRQ numbered srqn. @return true and *out filled; false if srqn is
 * not a live XRC SRQ.
 */
bool dpv_srq_engine_lookup(void *arg, uint32_t srqn,
			   struct dpv_engine_srq *out);

/* ---------------------------------------------------------------------- */
/* AH                                                                      */

/**
 * Address handle. With the mlx5 rings it starts with struct dpv_mlx5_ah
 * (ibv_ah + the mlx5 address vector), which post_send finds from
 * wr.ud.ah.
 */
struct dpv_ah {
	struct dpv_mlx5_ah mah;
#define DPV_AH_IBV mah.ibv_ah
	struct dpv_pd *pd;
	struct ibv_ah_attr attr;
	uint8_t dmac[6]; /**< resolved destination MAC (0 if unresolved) */
	uint8_t sgid[16];
	/** mlx5dv_map_ah_to_qp(): DPV_AH_QP_MAPPED | the QP number whose
	 *  ECE the address follows, 0 if not mapped (set once) */
	uint32_t qp_map;
};
#define DPV_AH_QP_MAPPED (1u << 31)

static inline struct dpv_ah *
to_dah(struct ibv_ah *ah)
{
	return container_of(ah, struct dpv_ah, DPV_AH_IBV);
}

/* ---------------------------------------------------------------------- */
/* Shared helpers for qp.c                                                 */

/**
 * Check a port number and GID index of @p ctx and read the GID.
 * @return 0, EINVAL (bad port / index), ENODATA (empty GID slot).
 */
int dpv_gid_get(struct ibv_context *ctx, uint8_t port, unsigned int index,
		union ibv_gid *gid);

/** Path MTU limit of the device's port (active_mtu). */
enum ibv_mtu dpv_port_active_mtu(struct dpv_device *dev);

#endif
