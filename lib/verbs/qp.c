/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Queue pairs: create (ibv_create_qp, create_qp_ex), modify, query,
 * destroy, post_send/post_recv, and the per-device QP number table
 * (multicast attach/detach: qp_mcast.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_log.h>
#include <rte_memory.h>

#include "qp.h"
#include "qp_table.h"
#include "verbs_raw.h"
#include "verbs_port.h"
#include "verbs_dv.h"
#include "dpv_engine.h"

RTE_LOG_REGISTER(dpv_logtype_qp, dpv.qp, NOTICE);

bool dpv_qp_xrc_enabled = true;

/* ------------------------------------------------------------------ */
/* QP number table: one per device (qp_table.h).                      */

static struct qp_table *
qp_table_get(struct dpv_device *dev)
{
	struct qp_table *t;

	t = qp_table_peek(dev);
	if (t != NULL)
		return t;
	pthread_mutex_lock(&dev->lock);
	t = dev->qp_priv;
	if (t == NULL) {
		t = calloc(1, sizeof(*t));
		if (t != NULL) {
			pthread_mutex_init(&t->lock, NULL);
			t->hint =
				2; /* QPNs 0 and 1 come from slots 0/1 gen 0 */
			__atomic_store_n((struct qp_table **)&dev->qp_priv, t,
					 __ATOMIC_RELEASE);
		}
	}
	pthread_mutex_unlock(&dev->lock);
	return t;
}

static uint32_t
qpn_of(unsigned int slot, unsigned int gen)
{
	return (gen & DPV_QPN_GEN_MASK) << DPV_QPN_SLOT_BITS | slot;
}

static bool
qpn_reserved(uint32_t qpn)
{
	return qpn <= 1 || qpn == DPV_QP_24BIT_MASK;
}

/* Set by dpv_gsi_qp_create() around its ibv_create_qp(): number it 1. */
static __thread bool qp_want_gsi;
/* set around qp_create() by dpv_qp_create_dc(): the DC type
 * (MLX5DV_DCTYPE_*, 0: not DC) and the DCT's access key */
static __thread uint8_t qp_want_dc;
static __thread uint64_t qp_want_dct_key;
/* set around qp_create() by dpv_qp_create_inline(): a higher limit of
 * max_inline_data than DPV_CAP_MAX_INLINE (0: that one) */
static __thread uint32_t qp_want_inline;
/* set around qp_create() by dpv_qp_create_tunnel(): the raw QP is made
 * with tunnel offloads (dpv_rss_qp_check()'s IBV_RX_HASH_INNER on mlx5) */
static __thread bool qp_want_tunnel;
/* set around qp_create() by dpv_qp_create_dci_streams(): a DCI with
 * streams, 2^qp_want_log_errored of them in error at most */
static __thread bool qp_want_streams;
static __thread uint8_t qp_want_log_errored;

/* The ring format's XRC target bit (struct dpv_ring_ops.xrc_qpn_bit): set
 * in an XRC_RECV QP's number, clear in every other. */
static uint32_t
qpn_mark(const struct dpv_qp *qp, uint32_t qpn)
{
	uint32_t bit = qp->dev->ring_ops->xrc_qpn_bit;

	if (qp->qpex.qp_base.qp_type == IBV_QPT_XRC_RECV)
		return qpn | bit;
	return qpn & ~bit;
}

/* Give qp a number. 0, ENOMEM (table full) or EBUSY (QP1 exists). */
static int
qp_table_insert(struct qp_table *t, struct dpv_qp *qp)
{
	unsigned int i, s;
	uint32_t qpn;

	pthread_mutex_lock(&t->lock);
	if (t->count >= DPV_CAP_MAX_QP) {
		pthread_mutex_unlock(&t->lock);
		return ENOMEM;
	}
	if (qp_want_gsi) {
		int rc = EBUSY;

		if (!atomic_load_explicit(&t->slot[1], memory_order_relaxed)) {
			qp->qpex.qp_base.qp_num = 1;
			atomic_store_explicit(&t->slot[1], qp,
					      memory_order_release);
			t->count++;
			rc = 0;
		}
		pthread_mutex_unlock(&t->lock);
		return rc;
	}
	for (i = 0; i < DPV_QPN_SLOTS; i++) {
		s = (t->hint + i) % DPV_QPN_SLOTS;
		if (atomic_load_explicit(&t->slot[s], memory_order_relaxed))
			continue;
		qpn = qpn_mark(qp, qpn_of(s, t->gen[s]));
		while (qpn_reserved(qpn)) {
			t->gen[s]++;
			qpn = qpn_mark(qp, qpn_of(s, t->gen[s]));
		}
		qp->qpex.qp_base.qp_num = qpn;
		atomic_store_explicit(&t->slot[s], qp, memory_order_release);
		t->count++;
		t->hint = s + 1;
		pthread_mutex_unlock(&t->lock);
		return 0;
	}
	pthread_mutex_unlock(&t->lock);
	return ENOMEM;
}

static void
qp_table_remove(struct qp_table *t, struct dpv_qp *qp)
{
	unsigned int s = qp->qpex.qp_base.qp_num & (DPV_QPN_SLOTS - 1);

	pthread_mutex_lock(&t->lock);
	if (atomic_load_explicit(&t->slot[s], memory_order_relaxed) == qp) {
		atomic_store_explicit(&t->slot[s], NULL, memory_order_release);
		t->gen[s]++;
		t->count--;
	}
	pthread_mutex_unlock(&t->lock);
}

struct dpv_qp *
dpv_qp_lookup(struct dpv_device *dev, uint32_t qpn)
{
	struct qp_table *t;
	struct dpv_qp *qp;

	t = qp_table_peek(dev);
	if (t == NULL || qpn > DPV_QP_24BIT_MASK)
		return NULL;
	qp = atomic_load_explicit(&t->slot[qpn & (DPV_QPN_SLOTS - 1)],
				  memory_order_acquire);
	if (qp == NULL || qp->qpex.qp_base.qp_num != qpn)
		return NULL;
	return qp;
}

unsigned int
dpv_qp_list(struct dpv_device *dev, struct dpv_qp_brief *out, unsigned int max)
{
	struct qp_table *t;
	unsigned int n = 0;

	t = qp_table_peek(dev);
	if (t == NULL)
		return 0;
	pthread_mutex_lock(&t->lock);
	for (unsigned int i = 0; i < DPV_QPN_SLOTS; i++) {
		struct dpv_qp *qp = atomic_load_explicit(&t->slot[i],
							 memory_order_acquire);

		if (qp == NULL)
			continue;
		if (n < max) {
			out[n].qpn = qp->qpex.qp_base.qp_num;
			out[n].type = qp->qpex.qp_base.qp_type;
			out[n].state = qp->qpex.qp_base.state;
		}
		n++;
	}
	pthread_mutex_unlock(&t->lock);
	return n;
}

/* The QP a handle names: itself, or the QP an opened handle shares. */
static struct dpv_qp *
qp_real(struct ibv_qp *ibqp)
{
	struct dpv_qp *qp = to_dqp(ibqp);

	return qp->real ? qp->real : qp;
}

static void eng_lock(struct dpv_qp *qp);
static void eng_unlock(struct dpv_qp *qp);
static void ring_cq_clean(struct dpv_qp *qp);

/*
 * Keep the pollers of the QP's CQs out while its CQEs are removed. Lock
 * order: poll locks (lower address first, a shared CQ once), then the
 * QP's queue locks, then the engine lock, as in ibv_resize_cq.
 */
static void
cq_poll_lock(struct dpv_qp *qp)
{
	struct dpv_cq *a = qp->scq, *b = qp->rcq;

	if (a == b)
		b = NULL;
	if (a && b && (uintptr_t)b < (uintptr_t)a)
		RTE_SWAP(a, b);
	if (a)
		dpv_vlock_lock(&a->poll_lock);
	if (b)
		dpv_vlock_lock(&b->poll_lock);
}

static void
cq_poll_unlock(struct dpv_qp *qp)
{
	if (qp->rcq)
		dpv_vlock_unlock(&qp->rcq->poll_lock);
	if (qp->scq && qp->scq != qp->rcq)
		dpv_vlock_unlock(&qp->scq->poll_lock);
}

/* ------------------------------------------------------------------ */
/* Ring glue: the rings in the device's format (struct dpv_ring_ops,   */
/* drivers/rdma/mlx5/mlx5_ring.h).                                    */

/* Allocate rings for qp->has_sq / qp->has_rq and report their sizes. */
static int ring_alloc_rings(struct dpv_qp *qp, const struct ibv_qp_cap *req,
			    struct dpv_mlx5_sq *sq, struct dpv_mlx5_rq *rq,
			    struct ibv_qp_cap *cap);

/* The rings of a QP, from the application's allocator if it gave one. */
static int
ring_alloc(struct dpv_qp *qp, const struct ibv_qp_cap *req,
	   struct dpv_mlx5_sq *sq, struct dpv_mlx5_rq *rq,
	   struct ibv_qp_cap *cap)
{
	int rc;

	dpv_ring_alloc_begin(qp->ctx);
	rc = ring_alloc_rings(qp, req, sq, rq, cap);
	dpv_ring_alloc_end();
	return rc;
}

static int
ring_alloc_rings(struct dpv_qp *qp, const struct ibv_qp_cap *req,
		 struct dpv_mlx5_sq *sq, struct dpv_mlx5_rq *rq,
		 struct ibv_qp_cap *cap)
{
	const struct dpv_ring_ops *ops = qp->dev->ring_ops;
	int rc;

	memset(sq, 0, sizeof(*sq));
	memset(rq, 0, sizeof(*rq));
	memset(cap, 0, sizeof(*cap));
	if (qp->has_sq) {
		/* memory-window binds: the ring sizes for UMR WQEs itself */
		rc = ops->sq_init(sq, RTE_MAX(req->max_send_wr, 1u),
				  req->max_send_sge, req->max_inline_data,
				  qp->max_tso_header, SOCKET_ID_ANY);
		if (rc)
			return rc;
		/* what the QP reports is within the device limits, so that
		 * it is accepted when asked for again */
		dpv_mlx5_sq_clamp(sq, DPV_CAP_MAX_QP_WR, DPV_CAP_MAX_SGE,
				  qp->inline_cap);
		cap->max_send_wr = sq->wq.max_post;
		cap->max_send_sge = sq->wq.max_gs;
		cap->max_inline_data = sq->max_inline;
	}
	if (qp->has_rq) {
		rc = ops->rq_init(rq, RTE_MAX(req->max_recv_wr, 1u),
				  RTE_MAX(req->max_recv_sge, 1u), SOCKET_ID_ANY);
		if (rc) {
			dpv_mlx5_sq_fini(sq);
			return rc;
		}
		dpv_mlx5_rq_clamp(rq, DPV_CAP_MAX_QP_WR, DPV_CAP_MAX_SGE);
		cap->max_recv_wr = rq->wq.max_post;
		cap->max_recv_sge = rq->wq.max_gs;
		if (qp->has_sq)
			dpv_mlx5_qp_link_dbrec(sq, rq);
		/* e.g. mlx4dv_qp gives one buffer for both rings */
		if (qp->has_sq && ops->qp_join != NULL &&
		    (rc = ops->qp_join(sq, rq)) != 0) {
			dpv_mlx5_rq_fini(rq);
			dpv_mlx5_sq_fini(sq);
			return rc;
		}
	}
	return 0;
}

static int
ring_init(struct dpv_qp *qp, const struct ibv_qp_cap *req)
{
	int rc = ring_alloc(qp, req, &qp->sq, &qp->rq, &qp->cap);

	if (rc == 0)
		qp->req_cap = *req;
	return rc;
}

static void
ring_fini(struct dpv_qp *qp)
{
	dpv_mlx5_sq_fini(&qp->sq);
	dpv_mlx5_rq_fini(&qp->rq);
}

/* The fresh rings' content and state onto the QP's own memory (false:
 * they cannot go there, nothing changed). */
static bool
ring_refill(struct dpv_qp *qp, struct dpv_mlx5_sq *sq, struct dpv_mlx5_rq *rq)
{
	if ((qp->has_sq && !dpv_mlx5_sq_refill_fits(&qp->sq, sq)) ||
	    (qp->has_rq && !dpv_mlx5_wq_refill_fits(&qp->rq.wq, &rq->wq)))
		return false;
	if (qp->has_sq)
		(void)dpv_mlx5_sq_refill(&qp->sq, sq);
	if (qp->has_rq)
		(void)dpv_mlx5_rq_refill(&qp->rq, rq);
	return true;
}

/*
 * RESET empties the queues: fresh rings of the same size are set up
 * (first, so a failure leaves the QP as it was) and their content goes
 * onto the QP's rings, which stay where they are (ring_refill).
 */
static int
ring_reset(struct dpv_qp *qp)
{
	struct dpv_mlx5_sq sq;
	struct dpv_mlx5_rq rq;
	struct ibv_qp_cap cap;
	int rc;

	rc = ring_alloc(qp, &qp->req_cap, &sq, &rq, &cap);
	if (rc)
		return rc;
	cq_poll_lock(qp);
	dpv_vlock_lock(&qp->sq_lock);
	dpv_vlock_lock(&qp->rq_lock);
	eng_lock(qp);
	ring_cq_clean(qp);
	if (ring_refill(qp, &sq, &rq)) {
		/* the rings stay where they are, as mlx5 keeps a QP's buffers
		 * across RESET (an application may hold them: mlx5dv_qp);
		 * their content and indices are the fresh ones' */
		dpv_mlx5_sq_fini(&sq);
		dpv_mlx5_rq_fini(&rq);
	} else {
		ring_fini(qp);
		qp->sq = sq;
		qp->rq = rq;
	}
	if (qp->has_sq)
		dpv_mlx5_sq_bind(&qp->sq, qp->qpex.qp_base.qp_type,
				 qp->qpex.qp_base.qp_num);
	eng_unlock(qp);
	dpv_vlock_unlock(&qp->rq_lock);
	dpv_vlock_unlock(&qp->sq_lock);
	cq_poll_unlock(qp);
	return 0;
}

/*
 * Remove the CQEs of a QP that the application has not polled yet, as
 * mlx5 does at destroy and RESET (receive CQEs of an SRQ give their WQE
 * back to the SRQ).
 */
static void
ring_cq_clean(struct dpv_qp *qp)
{
	uint32_t qpn = qp->qpex.qp_base.qp_num;
	struct dpv_mlx5_rq *srq = qp->srq ? &qp->srq->ring : NULL;

	bool sh;

	/* the pollers (their locks held) forget the QP's queues */
	if (qp->rcq)
		dpv_cq_lookup_forget(qp->rcq);
	if (qp->scq)
		dpv_cq_lookup_forget(qp->scq);
	/* a CQ that QPs of other engine shards write into: under its lock */
	if (qp->rcq) {
		sh = dpv_ring_cq_lock(&qp->rcq->ring);
		dpv_ring_cq_clean(&qp->rcq->ring, qpn, srq);
		dpv_ring_cq_unlock(&qp->rcq->ring, sh);
	}
	if (qp->scq && qp->scq != qp->rcq) {
		sh = dpv_ring_cq_lock(&qp->scq->ring);
		dpv_ring_cq_clean(&qp->scq->ring, qpn, NULL);
		dpv_ring_cq_unlock(&qp->scq->ring, sh);
	}
}

static int
ring_post_send(struct dpv_qp *qp, struct ibv_send_wr *wr,
	       struct ibv_send_wr **bad)
{
	return dpv_ring_post_send(&qp->sq, qp->qpex.qp_base.qp_type,
				  qp->qpex.qp_base.qp_num, wr, bad);
}

static int
ring_post_recv(struct dpv_qp *qp, struct ibv_recv_wr *wr,
	       struct ibv_recv_wr **bad)
{
	return dpv_ring_post_recv(&qp->rq, wr, bad);
}

static unsigned int
ring_flush(struct dpv_qp *qp)
{
	uint32_t qpn = qp->qpex.qp_base.qp_num;
	unsigned int n = 0;
	bool sh;

	if (qp->has_sq && qp->scq) {
		sh = dpv_ring_cq_lock(&qp->scq->ring);
		n += dpv_ring_flush(&qp->sq.wq, &qp->scq->ring, qpn);
		dpv_ring_cq_unlock(&qp->scq->ring, sh);
	}
	if (qp->has_rq && qp->rcq) {
		sh = dpv_ring_cq_lock(&qp->rcq->ring);
		n += dpv_ring_flush(&qp->rq.wq, &qp->rcq->ring, qpn);
		dpv_ring_cq_unlock(&qp->rcq->ring, sh);
	}
	return n;
}

static struct dpv_mlx5_wq *
ring_wq_lookup(void *arg, uint32_t qpn, bool recv)
{
	struct dpv_context *ctx = arg;
	struct dpv_qp *qp;

	if (qpn & DPV_MLX5_LOOKUP_SRQ)
		return NULL; /* SRQ numbers: the SRQ module's table */
	qp = dpv_qp_lookup(ctx->dev, qpn);
	if (qp == NULL)
		return NULL;
	if (!recv)
		return qp->has_sq ? &qp->sq.wq : NULL;
	if (qp->srq)
		return &qp->srq->ring.wq;
	return qp->has_rq ? &qp->rq.wq : NULL;
}

/* ------------------------------------------------------------------ */
/* Engine glue: the software HCA that consumes the rings.             */

/* Resolve time of a destination MAC at RTR, like the kernel's for RoCE. */
#define QP_NEIGH_TIMEOUT_MS 3000

/*
 * Engine shards: the shard of the device that a CQ or SRQ is written by.
 * *bound is 1 + the shard of its first QP; when a QP of another shard
 * uses it too, it becomes shared (written under its own lock from then
 * on). The flag is set under the lock of the one shard that used it so
 * far: that shard's next push sees it, and the new shard has no QP yet.
 */
static pthread_mutex_t shard_mutex = PTHREAD_MUTEX_INITIALIZER;

static void
shard_use(struct dpv_device *dev, uint16_t *bound, bool *shared,
	  unsigned int s)
{
	struct dpv_engine *old;

	pthread_mutex_lock(&shard_mutex);
	if (*bound == 0) {
		*bound = (uint16_t)(s + 1);
	} else if (*bound != s + 1 && !*shared) {
		old = dev->engines[*bound - 1];
		dpv_engine_lock(old);
		__atomic_store_n(shared, true, __ATOMIC_RELEASE);
		dpv_engine_unlock(old);
		VERBS_LOG(DEBUG, "%s: a CQ or SRQ serves shards %u and %u",
			  dev->vdev.device.name, *bound - 1u, s);
	}
	pthread_mutex_unlock(&shard_mutex);
}

void
dpv_shard_use_cq(struct dpv_device *dev, struct dpv_mlx5_cq *cq,
		 unsigned int s)
{
	if (dev->nshards > 1 && cq != NULL)
		shard_use(dev, &cq->eng_shard, &cq->eng_shared, s);
}

/*
 * The shard a new QP goes to. RC and UC QPs are spread round robin; the
 * others need what the home shard keeps for the device (multicast
 * groups, raw-packet flows and RSS, source-QPN steering, XRC SRQ lookup,
 * DC targets) and stay there. Picked before its rings are made: they and
 * the engine's state of the QP come from that shard's memory arena
 * (dpv_mlx5_mem_arena_set), so that no page holds lines that two
 * shards' lcores write.
 */
static unsigned int
shard_pick(struct dpv_device *dev, enum ibv_qp_type t)
{
	if (dev->nshards <= 1 || (t != IBV_QPT_RC && t != IBV_QPT_UC))
		return 0;
	return __atomic_fetch_add(&dev->shard_next, 1, __ATOMIC_RELAXED) %
	       dev->nshards;
}

/* Its CQs and SRQ take note of the QP's shard: the shard it runs on. */
static unsigned int
shard_place(struct dpv_qp *qp)
{
	struct dpv_device *dev = qp->dev;
	unsigned int s = qp->shard;

	if (dev->nshards <= 1)
		return 0;
	dpv_shard_use_cq(dev, qp->scq ? &qp->scq->ring : NULL, s);
	dpv_shard_use_cq(dev, qp->rcq ? &qp->rcq->ring : NULL, s);
	if (qp->srq != NULL)
		shard_use(dev, &qp->srq->ring.eng_shard,
			  &qp->srq->ring.eng_shared, s);
	return s;
}

/* Shards: which engine owns QP qpn (-1: none), for any thread. */
int
dpv_qp_shard_of(struct dpv_device *dev, uint32_t qpn)
{
	struct qp_table *t = qp_table_peek(dev);
	uint32_t v;

	if (t == NULL)
		return -1;
	v = atomic_load_explicit(&t->owner[qpn & (DPV_QPN_SLOTS - 1)],
				 memory_order_acquire);
	if ((v >> 8) != (qpn & DPV_QP_24BIT_MASK) || (v & 0xff) == 0)
		return -1;
	return (int)(v & 0xff) - 1;
}

static void
shard_owner_set(struct dpv_qp *qp, unsigned int s, bool on)
{
	struct qp_table *t = qp_table_peek(qp->dev);
	uint32_t qpn = qp->qpex.qp_base.qp_num;

	if (t != NULL && qp->dev->nshards > 1)
		atomic_store_explicit(&t->owner[qpn & (DPV_QPN_SLOTS - 1)],
				      on ? (qpn & DPV_QP_24BIT_MASK) << 8 |
						   (s + 1)
					 : 0,
				      memory_order_release);
}

static int
eng_create(struct dpv_qp *qp)
{
	struct dpv_engine *e = qp->dev->engine;
	unsigned int shard, arena;
	struct dpv_engine_qp_init in;
	enum ibv_qp_type t = qp->qpex.qp_base.qp_type;
	int rc;

	if (e == NULL ||
	    (t != IBV_QPT_RC && t != IBV_QPT_UC && t != IBV_QPT_UD &&
	     t != IBV_QPT_RAW_PACKET && t != IBV_QPT_XRC_SEND &&
	     t != IBV_QPT_XRC_RECV && t != IBV_QPT_DRIVER))
		return 0; /* an object only: no traffic */
	memset(&in, 0, sizeof(in));
	in.qpn = qp->qpex.qp_base.qp_num;
	in.type = t;
	if (t == IBV_QPT_XRC_RECV)
		in.xrcdn = qp->xrcd->vxrcd.handle; /* PD: the SRQ's */
	else
		in.pdn = dpv_pd_base(qp->qpex.qp_base.pd)->pdn;
	in.sq = qp->has_sq ? &qp->sq : NULL; /* RSS QPs: none */
	in.rq = qp->has_rq ? &qp->rq : NULL;
	if (qp->srq && qp->dc_type != MLX5DV_DCTYPE_DCI) {
		in.srq = &qp->srq->ring;
		in.srqn = qp->srq->vsrq.srq_num;
	}
	if (t == IBV_QPT_DRIVER) {
		in.dc_type = qp->dc_type == MLX5DV_DCTYPE_DCI
				     ? DPV_ENGINE_DC_DCI
				     : DPV_ENGINE_DC_DCT;
		in.dct_key = qp->dct_key;
		in.dci_streams = qp->dci_streams;
		in.dci_log_errored = qp->dci_log_errored;
	}
	in.send_cq = qp->scq ? &qp->scq->ring : NULL;
	in.recv_cq = qp->rcq ? &qp->rcq->ring : NULL;
	in.sq_sig_all = qp->sq_sig_all != 0;
	in.block_self_mcast =
		(qp->create_flags & IBV_QP_CREATE_BLOCK_SELF_MCAST_LB) != 0;
	in.max_send_wr = qp->cap.max_send_wr;
	in.use_source_qpn =
		(qp->create_flags & IBV_QP_CREATE_SOURCE_QPN) != 0;
	in.source_qpn = qp->source_qpn;
	shard = shard_place(qp);
	e = qp->dev->engines[shard];
	/* frames for it that another shard receives find it from now on */
	shard_owner_set(qp, shard, true);
	arena = dpv_mlx5_mem_arena_set(shard);
	rc = dpv_engine_qp_create(e, &in);
	dpv_mlx5_mem_arena_set(arena);
	if (rc < 0) {
		shard_owner_set(qp, shard, false);
		return -rc == EEXIST || -rc == ENOSPC ? ENOMEM : -rc;
	}
	qp->engine = e;
	return 0;
}

/* Take the QP out of the engine and drop its unpolled CQEs. */
static void
eng_destroy(struct dpv_qp *qp)
{
	struct dpv_engine *e = qp->engine;

	if (e == NULL) {
		cq_poll_lock(qp);
		ring_cq_clean(qp);
		cq_poll_unlock(qp);
		return;
	}
	dpv_engine_qp_destroy(e, qp->qpex.qp_base.qp_num);
	shard_owner_set(qp, 0, false);
	cq_poll_lock(qp);
	dpv_engine_lock(e);
	ring_cq_clean(qp);
	dpv_engine_unlock(e);
	cq_poll_unlock(qp);
	qp->engine = NULL;
}

/* The network path of an RC/UC address vector. 0 or a positive errno. */
static int
eng_path(struct dpv_qp *qp, const struct ibv_ah_attr *ah,
	 struct dpv_engine_path *p)
{
	struct dpv_port_info info;
	union ibv_gid sgid;
	int rc;

	memset(p, 0, sizeof(*p));
	rc = dpv_gid_get(qp->qpex.qp_base.context, 1, ah->grh.sgid_index,
			 &sgid);
	if (rc)
		return EINVAL;
	memcpy(p->sgid, sgid.raw, 16);
	memcpy(p->dgid, ah->grh.dgid.raw, 16);
	p->traffic_class = ah->grh.traffic_class;
	p->hop_limit = ah->grh.hop_limit;
	p->flow_label = ah->grh.flow_label;
	if (qp->dev->port != NULL &&
	    dpv_port_query(qp->dev->port, &info) == 0)
		memcpy(p->smac, info.mac, 6);
	else if (dpv_engine_neigh_resolve(qp->dev->engine, p->sgid, p->smac,
					  0) < 0)
		return EINVAL;
	rc = dpv_engine_neigh_resolve(qp->dev->engine, p->dgid, p->dmac,
				      QP_NEIGH_TIMEOUT_MS);
	if (rc < 0) {
		bool down = qp->dev->port != NULL &&
			    dpv_port_query(qp->dev->port, &info) == 0 &&
			    !info.link_up;

		QP_LOG(NOTICE, "QP 0x%06x: no MAC for the destination: %s%s",
		       qp->qpex.qp_base.qp_num, strerror(-rc),
		       down ? " (the port's link is down: is the peer there? "
			      "on memif both ends need the same [dpverbs] "
			      "shards)"
			    : "");
		return -rc == ETIMEDOUT ? ETIMEDOUT : EINVAL;
	}
	return 0;
}

static int
eng_modify(struct dpv_qp *qp, const struct ibv_qp_attr *attr, int mask,
	   const struct dpv_engine_path *path)
{
	struct ibv_qp_attr ud;
	int rc;

	if (qp->engine == NULL)
		return 0;
	/* a UD message may be as large as the port's active MTU (no path
	 * MTU is set for UD), as on rdma-core's providers; the engine's
	 * default is 1024 */
	if (qp->qpex.qp_base.qp_type == IBV_QPT_UD && (mask & IBV_QP_STATE) &&
	    attr->qp_state != IBV_QPS_RESET && attr->qp_state != IBV_QPS_ERR) {
		ud = *attr;
		ud.path_mtu = dpv_port_active_mtu(
			dctx_dev(qp->qpex.qp_base.context));
		attr = &ud;
		mask |= IBV_QP_PATH_MTU;
	}
	rc = dpv_engine_qp_modify(qp->engine, qp->qpex.qp_base.qp_num, attr,
				  mask, path);
	if (rc == 0 && (mask & IBV_QP_TIMEOUT))
		dpv_progress_note_ack_timeout(
			dctx_dev(qp->qpex.qp_base.context), attr->timeout);
	return rc < 0 ? -rc : 0;
}

/* The engine moves a QP to ERR (or SQE) on its own: ask it. */
static enum ibv_qp_state
eng_state(struct dpv_qp *qp)
{
	int s;

	if (qp->engine == NULL)
		return dpv_qp_state(qp);
	s = dpv_engine_qp_state(qp->engine, qp->qpex.qp_base.qp_num);
	if (s < 0)
		return dpv_qp_state(qp);
	if ((enum ibv_qp_state)s != dpv_qp_state(qp))
		__atomic_store_n(&qp->qpex.qp_base.state, (enum ibv_qp_state)s,
				 __ATOMIC_RELEASE);
	return (enum ibv_qp_state)s;
}

/* SQD: fetched send WQEs still outstanding in the engine. */
static bool
eng_sq_busy(struct dpv_qp *qp)
{
	return qp->engine != NULL &&
	       dpv_engine_qp_sq_busy(qp->engine, qp->qpex.qp_base.qp_num) == 1;
}

static void
eng_lock(struct dpv_qp *qp)
{
	if (qp->engine)
		dpv_engine_lock(qp->engine);
}

static void
eng_unlock(struct dpv_qp *qp)
{
	if (qp->engine)
		dpv_engine_unlock(qp->engine);
}

/* Let the device's engine run in the caller's thread (posting is one of
 * the verbs calls that drive application-driven progress). */
static void
qp_progress(struct dpv_qp *qp)
{
	if (qp->dev->progress_post)
		qp->dev->progress_post(qp->dev, qp);
	else if (qp->dev->progress)
		qp->dev->progress(qp->dev);
}

unsigned int
dpv_qp_flush(struct dpv_qp *qp)
{
	struct qp_table *t = qp->dev->qp_priv;
	unsigned int n;

	/* one producer per CQ: the engine's lock when it runs the QP */
	if (qp->engine) {
		eng_lock(qp);
		n = ring_flush(qp);
		eng_unlock(qp);
		return n;
	}
	pthread_mutex_lock(&t->lock);
	n = ring_flush(qp);
	pthread_mutex_unlock(&t->lock);
	return n;
}

void
dpv_qp_after_post(struct dpv_qp *qp)
{
	enum ibv_qp_state s;

	if (qp->engine) {
		qp_progress(qp);
		return;
	}
	/* no engine consumes the queues of a QP in error: complete at once */
	s = dpv_qp_state(qp);
	if (s == IBV_QPS_ERR || s == IBV_QPS_SQE)
		dpv_qp_flush(qp);
}

void
dpv_qp_rings_exposed(struct dpv_qp *qp)
{
	/* its doorbells may be rung with no call of ours: the engine's
	 * scan watches them */
	if (qp->engine != NULL && qp->has_sq)
		dpv_engine_qp_expose(qp->engine, qp->qpex.qp_base.qp_num);
}

/* ------------------------------------------------------------------ */
/* Create                                                             */

#define QP_COMP_MASK_KNOWN                                                     \
	(IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_XRCD |                         \
	 IBV_QP_INIT_ATTR_CREATE_FLAGS | IBV_QP_INIT_ATTR_MAX_TSO_HEADER |     \
	 IBV_QP_INIT_ATTR_IND_TABLE | IBV_QP_INIT_ATTR_RX_HASH |               \
	 IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)

#define QP_CREATE_FLAGS_KNOWN                                                  \
	(IBV_QP_CREATE_BLOCK_SELF_MCAST_LB | IBV_QP_CREATE_SCATTER_FCS |       \
	 IBV_QP_CREATE_CVLAN_STRIPPING | IBV_QP_CREATE_SOURCE_QPN |            \
	 IBV_QP_CREATE_PCI_WRITE_END_PADDING)

#define QP_SEND_OPS_KNOWN                                                      \
	(IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |      \
	 IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |                  \
	 IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |        \
	 IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD | IBV_QP_EX_WITH_LOCAL_INV |      \
	 IBV_QP_EX_WITH_BIND_MW | IBV_QP_EX_WITH_SEND_WITH_INV |               \
	 IBV_QP_EX_WITH_TSO | IBV_QP_EX_WITH_ATOMIC_WRITE)

#define QP_SEND_OPS_UD (IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM)
#define QP_SEND_OPS_UC                                                         \
	(QP_SEND_OPS_UD | IBV_QP_EX_WITH_RDMA_WRITE |                          \
	 IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | IBV_QP_EX_WITH_LOCAL_INV |       \
	 IBV_QP_EX_WITH_BIND_MW)
#define QP_SEND_OPS_RC                                                         \
	(QP_SEND_OPS_UC | IBV_QP_EX_WITH_RDMA_READ |                           \
	 IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |                                   \
	 IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD | IBV_QP_EX_WITH_SEND_WITH_INV)

static uint64_t
send_ops_supported(enum ibv_qp_type t)
{
	switch (t) {
	case IBV_QPT_RC: /* ATOMIC WRITE is an RC opcode only */
		return QP_SEND_OPS_RC | IBV_QP_EX_WITH_ATOMIC_WRITE;
	case IBV_QPT_XRC_SEND:
	case IBV_QPT_DRIVER: /* a DCI */
		return QP_SEND_OPS_RC;
	case IBV_QPT_UC:
		return QP_SEND_OPS_UC;
	case IBV_QPT_UD:
		return QP_SEND_OPS_UD;
	case IBV_QPT_RAW_PACKET:
		return IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_TSO;
	default:
		return 0;
	}
}

void
dpv_qp_ex_all_ops(struct dpv_qp *qp)
{
	qp->send_ops_flags |= send_ops_supported(qp->qpex.qp_base.qp_type);
	dpv_qp_ex_init(qp);
}

static bool
cq_ok(struct ibv_cq *cq, struct ibv_context *ctx)
{
	return cq != NULL && cq->context == ctx;
}

/*
 * IBV_QP_CREATE_SOURCE_QPN (doc/guides/qp.rst, Source QPN): a UD QP only
 * (EINVAL otherwise, as the mlx5 provider answers), on a device whose
 * engine carries traffic (EOPNOTSUPP without one, and on "rings = mlx4":
 * mlx4 has no such QP); the number must be one a QP could have (not 0 or
 * 1, the special QPs, nor the multicast 0xffffff: EINVAL).
 */
static int
srcqpn_check(struct ibv_context *ctx, const struct ibv_qp_init_attr_ex *a)
{
	if (a->qp_type != IBV_QPT_UD)
		return EINVAL;
	if (!dpv_raw_supported(ctx) ||
	    !(dctx_dev(ctx)->ring_ops->caps & DPV_RING_CAP_WR_EX))
		return EOPNOTSUPP;
	if (a->source_qpn <= 1 || a->source_qpn >= DPV_QP_24BIT_MASK)
		return EINVAL;
	return 0;
}

/*
 * Whether the device's ring format carries a QP of this type and these
 * create options: a format without DPV_RING_CAP_WR_EX ("rings = mlx4")
 * has RC, UC and UD, XRC with DPV_RING_CAP_XRC, raw packets with
 * DPV_RING_CAP_RAW, RSS raw-packet QPs with DPV_RING_CAP_RSS, all through
 * ibv_post_send only (no ibv_wr_* builder, DC or TSO).
 */
static bool
ring_has(const struct dpv_ring_ops *ops, enum ibv_qp_type t, uint32_t cm)
{
	if (ops->caps & DPV_RING_CAP_WR_EX)
		return true;
	if (cm & (IBV_QP_INIT_ATTR_SEND_OPS_FLAGS |
		  IBV_QP_INIT_ATTR_MAX_TSO_HEADER))
		return false;
	if ((cm & (IBV_QP_INIT_ATTR_IND_TABLE | IBV_QP_INIT_ATTR_RX_HASH)) &&
	    !(ops->caps & DPV_RING_CAP_RSS))
		return false;
	switch (t) {
	case IBV_QPT_RC:
	case IBV_QPT_UC:
	case IBV_QPT_UD:
		return true;
	case IBV_QPT_XRC_SEND:
	case IBV_QPT_XRC_RECV:
		return ops->caps & DPV_RING_CAP_XRC;
	case IBV_QPT_RAW_PACKET:
		return ops->caps & DPV_RING_CAP_RAW;
	default:
		return false;
	}
}

/* Every argument check of create, before anything is allocated. */
static int
qp_create_check(struct ibv_context *ctx, const struct ibv_qp_init_attr_ex *a)
{
	uint32_t cm = a->comp_mask;
	bool sq, rq, rss;
	int rc;

	if (cm & ~QP_COMP_MASK_KNOWN)
		return EINVAL;
	switch (a->qp_type) {
	case IBV_QPT_RC:
	case IBV_QPT_UC:
	case IBV_QPT_UD:
		break;
	case IBV_QPT_XRC_SEND:
	case IBV_QPT_XRC_RECV:
		if (!dpv_qp_xrc_enabled)
			return EOPNOTSUPP; /* no XRC transport in the engine */
		break;
	case IBV_QPT_RAW_PACKET: /* frames through the device's engine */
		if (!dpv_raw_supported(ctx))
			return EOPNOTSUPP;
		break;
	case IBV_QPT_DRIVER: /* mlx5dv_create_qp() of a DCI or DCT only */
		if (!qp_want_dc)
			return EOPNOTSUPP;
		if (qp_want_dc == MLX5DV_DCTYPE_DCT &&
		    (a->srq == NULL || !cq_ok(a->recv_cq, ctx) ||
		     a->srq->context != ctx ||
		     to_dsrq(a->srq)->vsrq.srq_type != IBV_SRQT_BASIC ||
		     (cm & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)))
			return EINVAL;
		break;
	default:
		return EINVAL;
	}
	if (!ring_has(dctx_dev(ctx)->ring_ops, a->qp_type, cm))
		return EOPNOTSUPP;
	if ((cm & IBV_QP_INIT_ATTR_MAX_TSO_HEADER) &&
	    (rc = dpv_raw_tso_check(a)) != 0) /* qp_raw.c */
		return rc;
	rss = cm & (IBV_QP_INIT_ATTR_IND_TABLE | IBV_QP_INIT_ATTR_RX_HASH);
	if (rss && (rc = dpv_rss_qp_check(ctx, a, qp_want_tunnel)) != 0)
		return rc;

	if (a->qp_type == IBV_QPT_XRC_RECV) {
		if (!(cm & IBV_QP_INIT_ATTR_XRCD) || a->xrcd == NULL ||
		    a->xrcd->context != ctx)
			return EINVAL;
	} else {
		if (cm & IBV_QP_INIT_ATTR_XRCD)
			return EINVAL;
		if (!(cm & IBV_QP_INIT_ATTR_PD) || a->pd == NULL ||
		    a->pd->context != ctx)
			return EINVAL;
	}

	if (cm & IBV_QP_INIT_ATTR_CREATE_FLAGS) {
		if (a->create_flags & ~QP_CREATE_FLAGS_KNOWN)
			return EINVAL;
		rc = dpv_raw_create_flags_check(a); /* qp_raw.c */
		if (rc == 0 && (a->create_flags & IBV_QP_CREATE_SOURCE_QPN))
			rc = srcqpn_check(ctx, a);
		if (rc)
			return rc;
	}
	if (cm & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) {
		if (a->send_ops_flags & ~(uint64_t)QP_SEND_OPS_KNOWN)
			return EINVAL;
		if (a->send_ops_flags & ~send_ops_supported(a->qp_type))
			return EOPNOTSUPP;
	}

	sq = a->qp_type != IBV_QPT_XRC_RECV && !rss &&
	     qp_want_dc != MLX5DV_DCTYPE_DCT;
	rq = !rss && (a->qp_type == IBV_QPT_RC || a->qp_type == IBV_QPT_UC ||
		      a->qp_type == IBV_QPT_UD ||
		      a->qp_type == IBV_QPT_RAW_PACKET);
	if (sq && !cq_ok(a->send_cq, ctx))
		return EINVAL;
	if (rq && !cq_ok(a->recv_cq, ctx))
		return EINVAL;
	if (a->srq != NULL) {
		if (a->qp_type == IBV_QPT_XRC_SEND)
			return EINVAL;
		enum ibv_srq_type st = to_dsrq(a->srq)->vsrq.srq_type;

		/* tag matching SRQs serve RC QPs */
		if (rq && (a->srq->context != ctx ||
			   !(st == IBV_SRQT_BASIC ||
			     (st == IBV_SRQT_TM && a->qp_type == IBV_QPT_RC))))
			return EINVAL;
	}
	if (sq && (a->cap.max_send_wr > DPV_CAP_MAX_QP_WR ||
		   a->cap.max_send_sge > DPV_CAP_MAX_SGE ||
		   a->cap.max_inline_data >
			   (qp_want_inline ? qp_want_inline
					   : DPV_CAP_MAX_INLINE)))
		return EINVAL;
	if (rq && a->srq == NULL &&
	    (a->cap.max_recv_wr > DPV_CAP_MAX_QP_WR ||
	     a->cap.max_recv_sge > DPV_CAP_MAX_SGE))
		return EINVAL;
	return 0;
}

static void
qp_put_refs(struct dpv_qp *qp)
{
	if (qp->pd)
		dpv_ref_put(&qp->pd->refcnt);
	if (qp->scq)
		dpv_ref_put(&qp->scq->refcnt);
	if (qp->rcq)
		dpv_ref_put(&qp->rcq->refcnt);
	if (qp->srq)
		dpv_ref_put(&qp->srq->refcnt);
	if (qp->xrcd)
		dpv_ref_put(&qp->xrcd->refcnt);
}

static struct ibv_qp *
qp_create(struct ibv_context *ctx, struct ibv_qp_init_attr_ex *a)
{
	struct dpv_context *dctx;
	struct qp_table *t;
	struct ibv_qp_cap req;
	unsigned int arena;
	struct dpv_qp *qp;
	struct ibv_qp *ibqp;
	bool rss;
	int rc;

	if (ctx == NULL || a == NULL) {
		errno = EINVAL;
		return NULL;
	}
	rc = qp_create_check(ctx, a);
	if (rc) {
		QP_LOG(DEBUG, "create %s: %s", dpv_qp_type_str(a->qp_type),
		       strerror(rc));
		errno = rc;
		return NULL;
	}
	dctx = to_dctx(ctx);
	t = qp_table_get(dctx->dev);
	if (t == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	qp = dpv_zalloc_lines(sizeof(*qp));
	if (qp == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	qp->ctx = dctx;
	qp->dev = dctx->dev;
	qp->qpex.qp_base.qp_type = a->qp_type;
	rss = a->comp_mask & IBV_QP_INIT_ATTR_RX_HASH;
	if (a->qp_type == IBV_QPT_DRIVER) {
		qp->dc_type = qp_want_dc;
		qp->dct_key = qp_want_dct_key;
		qp->dci_streams = qp_want_streams;
		qp->dci_log_errored = qp_want_log_errored;
	}
	qp->has_sq = a->qp_type != IBV_QPT_XRC_RECV && !rss &&
		     qp->dc_type != MLX5DV_DCTYPE_DCT;
	qp->has_rq = (a->qp_type == IBV_QPT_RC || a->qp_type == IBV_QPT_UC ||
		      a->qp_type == IBV_QPT_UD ||
		      a->qp_type == IBV_QPT_RAW_PACKET) && !rss &&
		     a->srq == NULL;
	qp->sq_sig_all = a->sq_sig_all;
	qp->inline_cap = qp_want_inline ? qp_want_inline : DPV_CAP_MAX_INLINE;
	if (a->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS)
		qp->create_flags = a->create_flags;
	if (qp->create_flags & IBV_QP_CREATE_SOURCE_QPN)
		qp->source_qpn = a->source_qpn;
	/* smaller header room than the Ethernet segment's always-inline
	 * bytes is that room (hardware accepts any size its WQE holds) */
	if ((a->comp_mask & IBV_QP_INIT_ATTR_MAX_TSO_HEADER) &&
	    a->max_tso_header != 0)
		qp->max_tso_header = RTE_MAX((uint32_t)a->max_tso_header,
					     DPV_CAP_MIN_TSO_HEADER);
	if (a->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) {
		qp->is_ex = true;
		qp->send_ops_flags = a->send_ops_flags;
	}
	pthread_mutex_init(&qp->lock, NULL);
	dpv_vlock_init(&qp->sq_lock, dpv_pd_single_threaded(a->pd));
	dpv_vlock_init(&qp->rq_lock, dpv_pd_single_threaded(a->pd));

	memset(&req, 0, sizeof(req));
	if (qp->has_sq) {
		req.max_send_wr = a->cap.max_send_wr;
		req.max_send_sge = a->cap.max_send_sge;
		req.max_inline_data = a->cap.max_inline_data;
	}
	if (qp->has_rq) {
		req.max_recv_wr = a->cap.max_recv_wr;
		req.max_recv_sge = a->cap.max_recv_sge;
	}
	/* tag matching QPs: the home shard, whose engine runs the SRQ's
	 * list operations */
	qp->shard = a->srq != NULL && to_dsrq(a->srq)->ring.tm != NULL
			    ? 0
			    : shard_pick(qp->dev, a->qp_type);
	arena = dpv_mlx5_mem_arena_set(qp->shard);
	rc = ring_init(qp, &req);
	dpv_mlx5_mem_arena_set(arena);
	if (rc)
		goto err_free;
	if (qp->is_ex) {
		rc = dpv_qp_ex_init(qp);
		if (rc)
			goto err_ring;
	}

	ibqp = &qp->qpex.qp_base;
	ibqp->context = ctx;
	ibqp->qp_context = a->qp_context;
	ibqp->qp_type = a->qp_type;
	ibqp->state = IBV_QPS_RESET;
	pthread_mutex_init(&ibqp->mutex, NULL);
	pthread_cond_init(&ibqp->cond, NULL);
	if (a->qp_type == IBV_QPT_XRC_RECV) {
		qp->xrcd = to_dxrcd(a->xrcd);
	} else {
		ibqp->pd = a->pd;
		qp->pd = to_dpd(a->pd);
		ibqp->send_cq = a->send_cq;
		qp->scq = to_dcq(a->send_cq);
		if (a->qp_type != IBV_QPT_XRC_SEND) {
			ibqp->recv_cq = a->recv_cq;
			qp->rcq = to_dcq(a->recv_cq);
			if (a->srq) {
				ibqp->srq = a->srq;
				qp->srq = to_dsrq(a->srq);
			}
		}
	}
	qp->attr.qp_state = IBV_QPS_RESET;
	qp->attr.cur_qp_state = IBV_QPS_RESET;
	qp->attr.cap = qp->cap;

	rc = qp_table_insert(t, qp);
	if (rc)
		goto err_ex;
	ibqp->handle = ibqp->qp_num;
	if (qp->has_sq)
		dpv_mlx5_sq_bind(&qp->sq, a->qp_type, ibqp->qp_num);
	rc = eng_create(qp);
	if (rc == 0 && (rc = dpv_qp_opts_setup(qp)) != 0) /* qp_opts.c */
		eng_destroy(qp);
	if (rc == 0 && a->qp_type == IBV_QPT_RAW_PACKET) {
		rc = dpv_raw_qp_setup(qp);
		if (rc)
			eng_destroy(qp);
	}
	if (rc == 0 && rss) {
		rc = dpv_rss_qp_attach(qp, a);
		if (rc)
			eng_destroy(qp);
	}
	if (rc) {
		qp_table_remove(t, qp);
		goto err_ex;
	}
	if (qp->pd)
		dpv_ref_get(&qp->pd->refcnt);
	if (qp->scq)
		dpv_ref_get(&qp->scq->refcnt);
	if (qp->rcq)
		dpv_ref_get(&qp->rcq->refcnt);
	if (qp->srq)
		dpv_ref_get(&qp->srq->refcnt);
	if (qp->xrcd)
		dpv_ref_get(&qp->xrcd->refcnt);

	/* report what was really allocated; recv caps are 0 with an SRQ */
	a->cap = qp->cap;
	QP_LOG(DEBUG, "created %s QP 0x%06x sq %u/%u rq %u/%u inline %u",
	       dpv_qp_type_str(a->qp_type), ibqp->qp_num, qp->cap.max_send_wr,
	       qp->cap.max_send_sge, qp->cap.max_recv_wr, qp->cap.max_recv_sge,
	       qp->cap.max_inline_data);
	return ibqp;

err_ex:
	pthread_cond_destroy(&ibqp->cond);
	pthread_mutex_destroy(&ibqp->mutex);
err_ring:
	ring_fini(qp);
err_free:
	dpv_vlock_fini(&qp->rq_lock);
	dpv_vlock_fini(&qp->sq_lock);
	pthread_mutex_destroy(&qp->lock);
	free(qp);
	errno = rc;
	return NULL;
}

/* The GSI QP (QPN 1) of the device, for our librdmacm (verbs_dv.h). */
struct ibv_qp *
dpv_gsi_qp_create(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	struct ibv_qp *qp;

	if (pd == NULL || attr == NULL || attr->qp_type != IBV_QPT_UD) {
		errno = EINVAL;
		return NULL;
	}
	qp_want_gsi = true;
	qp = ibv_create_qp(pd, attr);
	qp_want_gsi = false;
	return qp;
}

/* A DC QP for mlx5dv_create_qp() (verbs_dv.h). */
struct ibv_qp *
dpv_qp_create_dc(struct ibv_context *ctx, struct ibv_qp_init_attr_ex *a,
		 int dc_type, uint64_t dct_key)
{
	struct ibv_qp *qp;

	qp_want_dc = (uint8_t)dc_type;
	qp_want_dct_key = dct_key;
	qp = qp_create(ctx, a);
	qp_want_dc = 0;
	qp_want_dct_key = 0;
	return qp;
}

/* A DCI with streams for mlx5dv_create_qp() (verbs_dv.h). */
struct ibv_qp *
dpv_qp_create_dci_streams(struct ibv_context *ctx,
			  struct ibv_qp_init_attr_ex *a, uint8_t log_concurrent,
			  uint8_t log_errored)
{
	struct ibv_qp *qp;

	if (log_concurrent > DPV_DCI_MAX_LOG_STREAMS ||
	    log_errored > DPV_ENGINE_DCI_MAX_LOG_ERRORED) {
		errno = EINVAL;
		return NULL;
	}
	qp_want_streams = true;
	qp_want_log_errored = log_errored;
	qp = dpv_qp_create_dc(ctx, a, MLX5DV_DCTYPE_DCI, 0);
	qp_want_streams = false;
	qp_want_log_errored = 0;
	return qp;
}

int
dpv_qp_dci_stream_reset(struct ibv_qp *ibqp, uint16_t stream_id)
{
	struct dpv_qp *qp;
	int rc;

	if (ibqp == NULL)
		return EINVAL;
	qp = to_dqp(ibqp);
	if (qp->dc_type != MLX5DV_DCTYPE_DCI || !qp->dci_streams ||
	    qp->dev->engine == NULL)
		return EINVAL;
	rc = dpv_engine_dci_stream_reset(qp->dev->engine, ibqp->qp_num,
					 stream_id);
	return rc == -ENOENT ? EINVAL : -rc;
}

/* A QP with more inline room for mlx5dv_create_qp() (verbs_dv.h). */
struct ibv_qp *
dpv_qp_create_inline(struct ibv_context *ctx, struct ibv_qp_init_attr_ex *a,
		     uint32_t max_inline)
{
	struct ibv_qp *qp;

	qp_want_inline = max_inline;
	qp = qp_create(ctx, a);
	qp_want_inline = 0;
	return qp;
}

/* A raw QP with tunnel offloads for mlx5dv_create_qp() (verbs_dv.h). */
struct ibv_qp *
dpv_qp_create_tunnel(struct ibv_context *ctx, struct ibv_qp_init_attr_ex *a)
{
	struct ibv_qp *qp;

	qp_want_tunnel = true;
	qp = qp_create(ctx, a);
	qp_want_tunnel = false;
	return qp;
}

static struct ibv_qp *
qp_create_ex_op(struct ibv_context *ctx, struct ibv_qp_init_attr_ex *a)
{
	return qp_create(ctx, a);
}

struct ibv_qp *
ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	struct ibv_qp_init_attr_ex ex;
	struct ibv_qp *qp;

	if (pd == NULL || attr == NULL) {
		errno = EINVAL;
		return NULL;
	}
	memset(&ex, 0, sizeof(ex));
	memcpy(&ex, attr, sizeof(*attr));
	ex.comp_mask = IBV_QP_INIT_ATTR_PD;
	ex.pd = pd;
	qp = qp_create(pd->context, &ex);
	if (qp)
		attr->cap = ex.cap;
	return qp;
}

struct ibv_qp_ex *
ibv_qp_to_qp_ex(struct ibv_qp *qp)
{
	struct dpv_qp *dqp;

	if (qp == NULL)
		return NULL;
	dqp = to_dqp(qp);
	return dqp->is_ex ? &dqp->qpex : NULL;
}

/* ------------------------------------------------------------------ */
/* Destroy                                                            */

int
ibv_destroy_qp(struct ibv_qp *ibqp)
{
	struct dpv_qp *qp;

	if (ibqp == NULL)
		return EINVAL;
	qp = qp_real(ibqp); /* before an opened handle is freed */
	if (ibqp->qp_type == IBV_QPT_XRC_RECV &&
	    !dpv_qp_share_release(to_dqp(ibqp)))
		return 0; /* other handles keep the QP */
	ibqp = &qp->qpex.qp_base;
	pthread_mutex_lock(&qp->lock);
	if (qp->n_mcast || dpv_ref_busy(&qp->flows)) {
		pthread_mutex_unlock(&qp->lock);
		return EBUSY;
	}
	eng_destroy(qp);
	dpv_rss_qp_detach(qp);
	pthread_mutex_lock(&dpv_qp_share_lock);
	qp_table_remove(qp->dev->qp_priv, qp);
	pthread_mutex_unlock(&dpv_qp_share_lock);
	pthread_mutex_unlock(&qp->lock);

	ring_fini(qp);
	qp_put_refs(qp);
	pthread_cond_destroy(&ibqp->cond);
	pthread_mutex_destroy(&ibqp->mutex);
	dpv_vlock_fini(&qp->rq_lock);
	dpv_vlock_fini(&qp->sq_lock);
	pthread_mutex_destroy(&qp->lock);
	free(qp);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Modify, query                                                      */

static void
qp_limits(struct dpv_qp *qp, int mask, struct dpv_qp_limits *lim)
{
	struct ibv_context *ctx = qp->qpex.qp_base.context;
	union ibv_gid gid;
	unsigned int i;

	dpv_qp_limits_default(lim);
	lim->phys_port_cnt = 1;
	lim->pkey_tbl_len = DPV_CAP_PKEY_TBL_LEN;
	lim->gid_tbl_len = DPV_CAP_GID_TBL_LEN;
	lim->max_rd_atomic = DPV_CAP_MAX_QP_INIT_RD_ATOM;
	lim->max_dest_rd_atomic = DPV_CAP_MAX_QP_RD_ATOM;
	lim->max_mtu = IBV_MTU_4096;
	lim->roce = true;
	lim->rate_limit_min = DPV_CAP_RATE_LIMIT_MIN;
	lim->rate_limit_max = DPV_CAP_RATE_LIMIT_MAX;
	lim->gid_valid = 0;
	if (!(mask & IBV_QP_AV))
		return;
	for (i = 0; i < DPV_CAP_GID_TBL_LEN && i < 64; i++)
		if (dpv_gid_get(ctx, 1, i, &gid) == 0)
			lim->gid_valid |= UINT64_C(1) << i;
}

int
ibv_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr, int mask)
{
	return dpv_qp_modify(ibqp, attr, mask, 0);
}

int
dpv_qp_modify(struct ibv_qp *ibqp, struct ibv_qp_attr *attr, int mask,
	      uint32_t max_burst)
{
	struct dpv_engine_path path;
	struct dpv_qp_limits lim;
	enum ibv_qp_state cur, next;
	struct ibv_qp *uh = ibqp; /* an opened handle acts on its QP */
	enum ibv_qp_type rule;
	struct dpv_qp *qp;
	int rc;

	if (ibqp == NULL || (attr == NULL && mask != 0))
		return EINVAL;
	qp = qp_real(ibqp);
	ibqp = &qp->qpex.qp_base;
	rule = dpv_qp_rule_type(ibqp->qp_type, qp->dc_type);
	mask &= ~dpv_qp_ignored_attrs(rule);
	pthread_mutex_lock(&qp->lock);
	cur = eng_state(qp);
	next = (mask & IBV_QP_STATE) ? attr->qp_state : cur;
	qp_limits(qp, mask, &lim);
	rc = dpv_qp_check_modify(rule, cur, next, mask, attr, &lim);
	if (rc) {
		QP_LOG(DEBUG, "modify QP 0x%06x %s->%s mask 0x%x refused",
		       ibqp->qp_num, dpv_qp_state_str(cur),
		       dpv_qp_state_str(next), mask);
		goto out;
	}
	/* what can fail comes first: a refused request changes nothing */
	if (qp->engine && (mask & IBV_QP_AV)) {
		rc = eng_path(qp, &attr->ah_attr, &path);
		if (rc)
			goto out;
	}
	if (next == IBV_QPS_RESET && cur != IBV_QPS_RESET) {
		/* the engine forgets the QP's transport state, then the
		 * rings are replaced by empty ones */
		rc = eng_modify(qp, attr, mask, NULL);
		if (rc == 0)
			rc = ring_reset(qp);
		if (rc)
			goto out;
		memset(&qp->attr, 0, sizeof(qp->attr));
		qp->attr.cap = qp->cap;
		if (ibqp->qp_type == IBV_QPT_RAW_PACKET)
			dpv_raw_qp_rate(qp, 0, 0); /* pacing starts over */
	} else {
		rc = eng_modify(qp, attr, mask, &path);
		if (rc)
			goto out;
	}
	if ((mask & IBV_QP_RATE_LIMIT) &&
	    (rc = dpv_raw_qp_rate(qp, attr->rate_limit, max_burst)) != 0)
		goto out;
	dpv_qp_apply_attr(&qp->attr, mask, attr);
	if (mask & IBV_QP_STATE) {
		qp->attr.qp_state = next;
		qp->attr.cur_qp_state = next;
		__atomic_store_n(&ibqp->state, next, __ATOMIC_RELEASE);
		if (uh != ibqp)
			__atomic_store_n(&uh->state, next, __ATOMIC_RELEASE);
	}
out:
	pthread_mutex_unlock(&qp->lock);
	/* to ERR: the engine flushed under its lock; without one, do it here */
	if (rc == 0 && next == IBV_QPS_ERR && qp->engine == NULL)
		dpv_qp_flush(qp);
	return rc;
}

int
ibv_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr, int mask,
	     struct ibv_qp_init_attr *init)
{
	struct dpv_qp *qp;

	if (ibqp == NULL || attr == NULL || init == NULL)
		return EINVAL;
	qp = qp_real(ibqp);
	pthread_mutex_lock(&qp->lock);
	*attr = qp->attr;
	attr->qp_state = eng_state(qp);
	attr->cur_qp_state = attr->qp_state;
	if (ibqp != &qp->qpex.qp_base)
		__atomic_store_n(&ibqp->state, attr->qp_state,
				 __ATOMIC_RELEASE);
	attr->cap = qp->cap;
	attr->sq_draining = 0;
	if (attr->qp_state == IBV_QPS_SQD && eng_sq_busy(qp))
		attr->sq_draining = 1; /* fetched WQEs still outstanding */
	memset(init, 0, sizeof(*init));
	init->qp_context = ibqp->qp_context;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->srq = ibqp->srq;
	init->cap = qp->cap;
	init->qp_type = ibqp->qp_type;
	init->sq_sig_all = qp->sq_sig_all;
	pthread_mutex_unlock(&qp->lock);
	return 0;
}

int
ibv_query_qp_data_in_order(struct ibv_qp *qp, enum ibv_wr_opcode op,
			   uint32_t flags)
{
	/* not guaranteed (the conservative answer is always correct) */
	return 0;
}

/* ------------------------------------------------------------------ */
/* QP events from the engine                                          */

static void
post_qp_event(struct dpv_qp *h, enum ibv_event_type type)
{
	struct ibv_async_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.event_type = type;
	ev.element.qp = &h->qpex.qp_base;
	if (dpv_async_event_post(h->ctx, &ev) != 0)
		QP_LOG(WARNING, "qp %u: event %d lost (no memory)",
		       h->qpex.qp_base.qp_num, type);
}

void
dpv_qp_sq_drained_hook(void *arg, uint32_t qpn)
{
	struct dpv_qp *qp, *h;

	/* every live handle of a shared XRC_RECV QP gets the event */
	pthread_mutex_lock(&dpv_qp_share_lock);
	qp = dpv_qp_lookup(arg, qpn);
	if (qp != NULL) {
		if (!qp->creator_gone)
			post_qp_event(qp, IBV_EVENT_SQ_DRAINED);
		for (h = qp->next_open; h != NULL; h = h->next_open)
			post_qp_event(h, IBV_EVENT_SQ_DRAINED);
	}
	pthread_mutex_unlock(&dpv_qp_share_lock);
}

/* ------------------------------------------------------------------ */
/* Post                                                               */

int
dpv_qp_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		 struct ibv_send_wr **bad)
{
	struct dpv_qp *qp = to_dqp(ibqp);
	enum ibv_qp_state s = dpv_qp_state(qp);
	int rc;

	if (!qp->has_sq || s == IBV_QPS_RESET || s == IBV_QPS_INIT ||
	    s == IBV_QPS_RTR) {
		*bad = wr;
		return EINVAL;
	}
	dpv_vlock_lock(&qp->sq_lock);
	rc = ring_post_send(qp, wr, bad);
	dpv_vlock_unlock(&qp->sq_lock);
	dpv_qp_after_post(qp);
	return rc;
}

int
dpv_qp_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		 struct ibv_recv_wr **bad)
{
	struct dpv_qp *qp = to_dqp(ibqp);
	int rc;

	if (!qp->has_rq || dpv_qp_state(qp) == IBV_QPS_RESET) {
		*bad = wr;
		return EINVAL;
	}
	dpv_vlock_lock(&qp->rq_lock);
	rc = ring_post_recv(qp, wr, bad);
	dpv_vlock_unlock(&qp->rq_lock);
	/* an engine takes new receive WQEs at its next poll (the caller's
	 * next poll or send post, or the progress thread), not here: an ACK
	 * that the last poll held then leaves with the next post's request,
	 * in one burst, and a ping-pong's post_recv costs no engine pass */
	if (qp->engine == NULL)
		dpv_qp_after_post(qp);
	else if (dpv_qp_state(qp) == IBV_QPS_ERR &&
		 dpv_engine_kick_wanted(qp->engine))
		dpv_engine_rescan(qp->engine); /* to flush: no kick finds RQs */
	return rc;
}

/* ------------------------------------------------------------------ */

void
dpv_qp_ops_init(struct verbs_context *vctx)
{
	struct dpv_context *dctx = to_dctx(&vctx->context);

	vctx->create_qp_ex = qp_create_ex_op;
	vctx->open_qp = dpv_qp_open_op;
	vctx->context.ops.post_send = dpv_qp_post_send;
	vctx->context.ops.post_recv = dpv_qp_post_recv;
	dctx->wq_lookup = ring_wq_lookup;
	dctx->wq_lookup_arg = dctx;
}
