/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DPV_QP_H
#define DPV_QP_H

/**
 * @file
 * Queue pairs of the verbs front end: the object, its number table and the
 * functions the engine and the other verbs modules use.
 *
 * A QP embeds struct ibv_qp_ex first (which itself starts with struct
 * ibv_qp), so the pointer the application holds converts back with
 * to_dqp(). Its send and receive queues are rings in the device's format
 * (drivers/rdma/mlx5/mlx5_ring.h, reached through their struct
 * dpv_ring_ops); the application side posts into them (ibv_post_send,
 * ibv_post_recv, the ibv_qp_ex wr_* builders), the engine consumes them.
 *
 * An XRC_RECV QP can have more handles (ibv_open_qp): each is a struct
 * dpv_qp of its own whose `real` names the QP; modify, query and destroy
 * act through it, and the QP goes with its last handle.
 *
 * Locking: qp->lock serializes the control path of one QP (modify, query,
 * multicast attach, destroy); qp->sq_lock / qp->rq_lock serialize posters
 * of one queue. The device's QP number table has its own lock; lookups by
 * number (dpv_qp_lookup) are lock-free reads.
 *
 * Error convention: internal functions return 0 or a positive errno.
 */

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <pthread.h>

#include <infiniband/verbs.h>

#include "verbs_int.h"
#include "qp_attr.h"

extern int dpv_logtype_qp;
#define QP_LOG(level, fmt, ...)                                                \
	rte_log(RTE_LOG_##level, dpv_logtype_qp, "qp: " fmt "\n", ##__VA_ARGS__)

/** Largest multicast group count one QP can be attached to. */
#define DPV_QP_MAX_MCAST DPV_CAP_MAX_MCAST_QP_ATTACH

/** One multicast group a UD QP is attached to. */
struct dpv_qp_mcast {
	union ibv_gid gid;
	uint16_t lid;
};

struct dpv_qp {
	struct ibv_qp_ex qpex; /**< qpex.qp_base is the ibv_qp */
	struct dpv_context *ctx;
	struct dpv_device *dev;
	struct dpv_pd *pd;	  /**< NULL for XRC_RECV */
	struct dpv_cq *scq, *rcq; /**< NULL where the type has none */
	struct dpv_srq *srq;
	struct dpv_xrcd *xrcd; /**< XRC_RECV only */
	bool has_sq, has_rq;   /**< own rings (rq: false with an SRQ) */
	bool is_ex;	       /**< created with SEND_OPS_FLAGS */
	unsigned int shard;    /**< the engine shard it goes to (its rings
				    and state: that shard's memory arena) */
	void *engine;	       /**< struct dpv_engine * running this QP
				    (RC, UC, UD with a device engine),
				    else NULL */
	uint32_t create_flags; /**< accepted IBV_QP_CREATE_* bits */
	uint32_t source_qpn;   /**< IBV_QP_CREATE_SOURCE_QPN: the QPN it
				    sends with (and receives through its
				    flows) */
	uint8_t dc_type;       /**< IBV_QPT_DRIVER: MLX5DV_DCTYPE_DCT/DCI */
	uint64_t dct_key;      /**< DCT: its DC access key */
	uint32_t raw_flags;    /**< RAW_PACKET: DPV_RAW_QP_* (qp_raw.c) */
	uint32_t rl_burst;     /**< RAW_PACKET: max_burst_sz of the rate */
	uint32_t max_tso_header; /**< RAW_PACKET: IBV_WR_TSO header room */
	uint64_t send_ops_flags;
	/** mlx5dv_create_qp() send_ops_flags accepted (MLX5DV_QP_EX_WITH_*:
	 *  which mlx5dv_qp_ex builders work) */
	uint64_t dv_send_ops;
	/** mlx5dv_wr_mkey_configure: max_entries of the key being
	 *  configured (for its layout setter) */
	uint32_t mkc_entries;
	/** mlx5dv_wr_mkey_configure: the key being configured */
	struct mlx5dv_mkey *mkc_mkey;
	/** highest max_inline_data the QP may have (DPV_CAP_MAX_INLINE but
	 *  for dpv_qp_create_inline()) */
	uint32_t inline_cap;
	bool dci_streams;	 /**< DCI created with dci_streams */
	uint8_t dci_log_errored; /**< its log_num_errored */
	int sq_sig_all;
	struct ibv_qp_cap cap;	   /**< actual capacities */
	struct ibv_qp_cap req_cap; /**< requested (to rebuild at RESET) */

	pthread_mutex_t lock;	 /**< control path */
	struct ibv_qp_attr attr; /**< current attributes (ibv_query_qp) */
	struct dpv_vlock sq_lock;
	struct dpv_vlock rq_lock;

	unsigned int n_mcast;
	struct dpv_qp_mcast mcast[DPV_QP_MAX_MCAST];

	void *rss;	   /**< RSS QP: its indirection table (verbs_wq.c) */
	atomic_int flows;  /**< flows attached (verbs_flow.c): destroy EBUSY */

	bool wr_active; /**< ibv_qp_ex: between wr_start and
			     wr_complete/wr_abort (sq_lock held) */

	/* XRC_RECV sharing (ibv_open_qp); dpv_qp_share_lock */
	struct dpv_qp *real;	  /**< opened handle: the QP it names (the
				       handle has no state of its own);
				       NULL for the QP itself */
	struct dpv_qp *next_open; /**< QP: its opened handles, linked */
	unsigned int n_open;	  /**< QP: opened handles alive */
	bool creator_gone;	  /**< QP: the creating handle is destroyed
				       (the QP lives while n_open > 0) */
	/* each starts a cache line: a send post touches the first two of
	 * sq, a receive post the first of rq (mlx5_ring.h) */
	struct dpv_mlx5_sq sq __rte_cache_aligned;
	struct dpv_mlx5_rq rq __rte_cache_aligned;
	/** mlx5dv_qp_ex_from_ibv_qp_ex() view, filled on first use
	 *  (verbs_dv.c) */
	struct mlx5dv_qp_ex dv_qpex;
};

static inline struct dpv_qp *
to_dqp(struct ibv_qp *qp)
{
	return container_of(qp, struct dpv_qp, qpex.qp_base);
}

static inline struct dpv_qp *
to_dqp_ex(struct ibv_qp_ex *qpex)
{
	return container_of(qpex, struct dpv_qp, qpex);
}

/**
 * Whether XRC_SEND / XRC_RECV QPs can be created (default true: the
 * engine carries XRC). Tests set it to false to check that XRC QPs then
 * answer EOPNOTSUPP while the other types are unaffected.
 */
extern bool dpv_qp_xrc_enabled;

/**
 * Find a QP of a device by number (for the engine's receive dispatch and
 * the completion path). Lock-free; the QP stays valid only as long as the
 * caller's protocol guarantees it is not destroyed concurrently.
 *
 * @param dev
 *   Device.
 * @param qpn
 *   24-bit QP number.
 * @return
 *   The QP, or NULL if no QP has this number.
 */
struct dpv_qp *dpv_qp_lookup(struct dpv_device *dev, uint32_t qpn);

/** What dpv_qp_list() reports of a QP. */
struct dpv_qp_brief {
	uint32_t qpn;
	enum ibv_qp_type type;
	enum ibv_qp_state state;
};

/**
 * The device's QPs (a snapshot taken under the QP table lock), in slot order.
 * @param out
 *   Room for max entries.
 * @return
 *   The number of QPs the device has (may exceed max; only max are written).
 */
unsigned int dpv_qp_list(struct dpv_device *dev, struct dpv_qp_brief *out,
			 unsigned int max);

/**
 * The QPs of a device attached to a multicast group (ibv_attach_mcast),
 * for the engine's delivery of a UD packet sent to destination QP
 * 0xffffff and a multicast GID: each member gets a copy. Takes the
 * device's QP table lock (a mutex; never held while taking the engine
 * lock, so the engine may call this with its own lock held).
 *
 * @param dev
 *   Device.
 * @param gid
 *   Multicast GID (16 bytes, network order).
 * @param qpns
 *   Receives up to max QP numbers.
 * @param max
 *   Room in qpns.
 * @return
 *   Number of members (may exceed max; 0 for an unknown group).
 */
unsigned int dpv_qp_mcast_lookup(struct dpv_device *dev, const uint8_t gid[16],
				 uint32_t *qpns, unsigned int max);

/**
 * dpv_qp_mcast_lookup() in the shape of dpv_engine_conf::mcast_lookup
 * (arg = the struct dpv_device *).
 * @return Number of members of the group.
 */
unsigned int dpv_qp_mcast_hook(void *arg, const uint8_t gid[16],
			       uint32_t *qpns, unsigned int max);

/**
 * Engine hook (dpv_engine_conf.sq_drained, arg = the struct dpv_device *):
 * the QP numbered qpn, moved to SQD with en_sqd_async_notify, has no
 * fetched send WQE left outstanding. Queues IBV_EVENT_SQ_DRAINED on the
 * QP's context (ibv_get_async_event); for a shared XRC_RECV QP on the
 * context of every live handle (ibv_open_qp). Called with the engine lock
 * held.
 *
 * @param arg
 *   Device.
 * @param qpn
 *   QP number (an unknown number is ignored).
 */
void dpv_qp_sq_drained_hook(void *arg, uint32_t qpn);

/**
 * Complete every outstanding WQE of the QP's send queue and own receive
 * queue with IBV_WC_WR_FLUSH_ERR on its CQs. Called by ibv_modify_qp on a
 * move to ERR, by the post functions while the QP is in ERR, and by the
 * engine when it moves a QP to ERR itself.
 *
 * @param qp
 *   QP.
 * @return
 *   Number of completions written.
 */
unsigned int dpv_qp_flush(struct dpv_qp *qp);

/** Engine shards: the shard (index into dev->engines) that owns QP qpn,
 *  or -1; lock-free, any thread. */
int dpv_qp_shard_of(struct dpv_device *dev, uint32_t qpn);

/**
 * ibv_modify_qp() with the burst size of IBV_QP_RATE_LIMIT (bytes of
 * credit a paced RAW_PACKET QP keeps while idle; ibv_modify_qp uses 0).
 * @return as ibv_modify_qp().
 */
int dpv_qp_modify(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask,
		  uint32_t max_burst);

/**
 * After posting: let the device's engine make progress (it consumes the
 * new WQEs, and flushes them when the QP is in ERR; a send post also tells
 * it which SQ has new WQEs: the device's progress_post); without an
 * engine, flush at once when the QP is in ERR (or SQE).
 *
 * @param qp
 *   QP.
 */
void dpv_qp_after_post(struct dpv_qp *qp);

/* The application was given the QP's rings (mlx5dv/mlx4dv_init_obj): it may
 * post without calling us, so the engine scans its doorbell every poll. */
void dpv_qp_rings_exposed(struct dpv_qp *qp);

/**
 * Current state of a QP.
 *
 * @param qp
 *   QP.
 * @return
 *   enum ibv_qp_state.
 */
static inline enum ibv_qp_state
dpv_qp_state(const struct dpv_qp *qp)
{
	return __atomic_load_n(&qp->qpex.qp_base.state, __ATOMIC_ACQUIRE);
}

/**
 * Install the ibv_qp_ex wr_* builders selected by qp->send_ops_flags
 * (qp_ex.c). The builders write WQEs straight into the send ring; qp->sq_lock
 * is held from wr_start to wr_complete / wr_abort, as on mlx5.
 *
 * @param qp
 *   QP with qp_type, send_ops_flags and the send queue set up.
 * @return
 *   0.
 */
int dpv_qp_ex_init(struct dpv_qp *qp);

/**
 * Give an ibv_qp_ex QP every ibv_wr_* builder of its type, asked for or
 * not (a QP of mlx5dv_create_qp() with mlx5 send ops: rdma-core's mlx5
 * provider sets them all). Before the QP takes work requests.
 *
 * @param qp an ibv_qp_ex QP
 */
void dpv_qp_ex_all_ops(struct dpv_qp *qp);

/**
 * Guards the shared XRC_RECV handle lists and counts (dpv_qp.real,
 * next_open, n_open, creator_gone) and the removal of QPs from the number
 * table, so that a QP found by number under it stays valid. Lock order:
 * engine lock, then this lock, then the table lock.
 */
extern pthread_mutex_t dpv_qp_share_lock;

/**
 * Open a handle on an existing XRC_RECV QP (the ibv_context open_qp op).
 *
 * @param context
 *   Context of the new handle (same device as attr->xrcd).
 * @param attr
 *   QP number, XRC domain, type (IBV_QPT_XRC_RECV), optional qp_context.
 * @return
 *   The new handle; NULL with errno EINVAL (bad attributes, no XRC_RECV QP
 *   of that number and XRC domain, or one being destroyed) or ENOMEM.
 */
struct ibv_qp *dpv_qp_open_op(struct ibv_context *context,
			      struct ibv_qp_open_attr *attr);

/**
 * ibv_destroy_qp of an XRC_RECV handle: drop it (an opened handle is
 * freed here).
 *
 * @param h
 *   The handle being destroyed: the creating QP or an opened handle.
 * @return
 *   true if it was the last handle: the caller destroys the QP itself.
 */
bool dpv_qp_share_release(struct dpv_qp *h);

/**
 * Post a chain of send work requests (the ibv_context post_send op).
 *
 * @return
 *   0; EINVAL (QP state RESET, INIT or RTR, no send queue, bad WR);
 *   ENOMEM (send queue full). *bad is the first WR not posted.
 */
int dpv_qp_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
		     struct ibv_send_wr **bad);

/**
 * Post a chain of receive work requests (the ibv_context post_recv op).
 *
 * @return
 *   0; EINVAL (QP in RESET, QP with an SRQ or without a receive queue, bad
 *   WR); ENOMEM (receive queue full). *bad is the first WR not posted.
 */
int dpv_qp_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
		     struct ibv_recv_wr **bad);

#endif
