/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Receive work queues, RWQ indirection tables and RSS QPs. A WQ is an
 * mlx5 receive ring plus a CQ; the engine fills it when an RSS QP's
 * Toeplitz hash picks it (lib/engine/engine_raw.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "verbs_int.h"
#include "verbs_raw.h"
#include "qp.h"
#include "dpv_engine.h"
#include "dpv_engine_raw.h"

struct dpv_wq {
	struct ibv_wq ibv;
	struct dpv_device *dev;
	struct dpv_pd *pd;
	struct dpv_cq *cq;
	atomic_int refcnt; /* indirection table entries */
	struct dpv_vlock post_lock;
	uint32_t max_wr, max_sge;
	struct dpv_mlx5_rq ring;
};

struct dpv_rwq_ind {
	struct ibv_rwq_ind_table ibv;
	atomic_int refcnt; /* RSS QPs */
	uint32_t log_size;
	struct dpv_wq **wqs;
};

#define RSS_FIELDS_KNOWN                                                       \
	(IBV_RX_HASH_SRC_IPV4 | IBV_RX_HASH_DST_IPV4 | IBV_RX_HASH_SRC_IPV6 |  \
	 IBV_RX_HASH_DST_IPV6 | IBV_RX_HASH_SRC_PORT_TCP |                     \
	 IBV_RX_HASH_DST_PORT_TCP | IBV_RX_HASH_SRC_PORT_UDP |                 \
	 IBV_RX_HASH_DST_PORT_UDP | IBV_RX_HASH_INNER)

_Static_assert(DPV_CAP_MAX_WQ_TYPE_RQ == DPV_WQ_MAX, "WQ cap");
_Static_assert(DPV_CAP_RSS_LOG_TBL_SIZE <= 16, "engine table limit");

static struct dpv_wq *_Atomic wq_tbl[DPV_WQ_MAX];
static pthread_mutex_t wq_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned int n_ind;
static uint32_t next_ind_num = 1;

bool
dpv_raw_supported(struct ibv_context *ctx)
{
	return ctx != NULL && dctx_dev(ctx)->engine != NULL;
}

struct dpv_mlx5_wq *
dpv_wq_ring_lookup(struct dpv_device *dev, uint32_t wqn)
{
	struct dpv_wq *wq;

	if (wqn < DPV_WQN_BASE || wqn >= DPV_WQN_BASE + DPV_WQ_MAX)
		return NULL;
	wq = atomic_load_explicit(&wq_tbl[wqn - DPV_WQN_BASE],
				  memory_order_acquire);
	if (wq == NULL || wq->dev != dev)
		return NULL;
	return &wq->ring.wq;
}

struct dpv_mlx5_rq *
dpv_wq_ring_of(struct ibv_wq *ibwq)
{
	struct dpv_wq *wq;

	if (ibwq == NULL || ibwq->wq_num < DPV_WQN_BASE ||
	    ibwq->wq_num >= DPV_WQN_BASE + DPV_WQ_MAX)
		return NULL;
	wq = atomic_load_explicit(&wq_tbl[ibwq->wq_num - DPV_WQN_BASE],
				  memory_order_acquire);
	return wq != NULL && &wq->ibv == ibwq ? &wq->ring : NULL;
}

static void
wq_engine_lock(struct dpv_wq *wq)
{
	dpv_engine_lock(wq->dev->engine);
}

static void
wq_engine_unlock(struct dpv_wq *wq)
{
	dpv_engine_unlock(wq->dev->engine);
}

int
dpv_wq_set_log_range(struct ibv_context *ctx, uint8_t log)
{
	struct dpv_context *c = to_dctx(ctx);

	if (log > DPV_CAP_RSS_LOG_TBL_SIZE)
		return EINVAL;
	pthread_mutex_lock(&wq_lock);
	c->wq_log_range = log;
	c->wq_range_next = c->wq_range_end = 0; /* the next WQ opens one */
	pthread_mutex_unlock(&wq_lock);
	return 0;
}

static bool
wq_slots_free(uint32_t first, uint32_t n)
{
	for (uint32_t j = first; j < first + n; j++)
		if (wq_tbl[j] != NULL)
			return false;
	return true;
}

/* A free WQ index for context c (wq_lock held): the next one of its open
 * range when that is free, else the start of the first wholly free range
 * aligned to its size (1 << c->wq_log_range; 1: the first free index).
 * DPV_WQ_MAX: none. */
static unsigned int
wq_slot_take(struct dpv_context *c)
{
	uint32_t n = 1u << c->wq_log_range;

	if (c->wq_range_next < c->wq_range_end &&
	    wq_tbl[c->wq_range_next] == NULL)
		return c->wq_range_next++;
	for (uint32_t b = 0; b + n <= DPV_WQ_MAX; b += n) {
		if (!wq_slots_free(b, n))
			continue;
		c->wq_range_next = b + 1;
		c->wq_range_end = b + n;
		return b;
	}
	return DPV_WQ_MAX;
}

/* ------------------------------------------------------------------ WQ */

static int
wq_post_recv(struct ibv_wq *ibwq, struct ibv_recv_wr *wr,
	     struct ibv_recv_wr **bad)
{
	struct dpv_wq *wq = container_of(ibwq, struct dpv_wq, ibv);
	int rc;

	dpv_vlock_lock(&wq->post_lock);
	rc = dpv_ring_post_recv(&wq->ring, wr, bad);
	dpv_vlock_unlock(&wq->post_lock);
	if (__atomic_load_n(&ibwq->state, __ATOMIC_ACQUIRE) == IBV_WQS_ERR) {
		wq_engine_lock(wq);
		dpv_ring_flush(&wq->ring.wq, &wq->cq->ring, ibwq->wq_num);
		wq_engine_unlock(wq);
	}
	return rc;
}

static struct ibv_wq *
wq_create(struct ibv_context *ctx, struct ibv_wq_init_attr *a)
{
	struct dpv_wq *wq;
	unsigned int i;
	int rc;

	if (a == NULL || (a->comp_mask & ~(uint32_t)IBV_WQ_INIT_ATTR_FLAGS) ||
	    a->wq_type != IBV_WQT_RQ || a->pd == NULL ||
	    a->pd->context != ctx || a->cq == NULL || a->cq->context != ctx ||
	    a->max_wr == 0 || a->max_wr > DPV_CAP_MAX_QP_WR ||
	    a->max_sge > DPV_CAP_MAX_SGE) {
		errno = EINVAL;
		return NULL;
	}
	/* end padding: no PCI write to pad, accepted with no effect; no
	 * VLAN stripping, FCS or delay drop on WQs */
	if ((a->comp_mask & IBV_WQ_INIT_ATTR_FLAGS) &&
	    (a->create_flags & ~(uint32_t)IBV_WQ_FLAGS_PCI_WRITE_END_PADDING)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!dpv_raw_supported(ctx) ||
	    !(dctx_dev(ctx)->ring_ops->caps & DPV_RING_CAP_RSS)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	wq = calloc(1, sizeof(*wq));
	if (wq == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	dpv_ring_alloc_begin(to_dctx(ctx));
	rc = dctx_dev(ctx)->ring_ops->rq_init(&wq->ring, a->max_wr,
					      RTE_MAX(a->max_sge, 1u),
					      SOCKET_ID_ANY);
	dpv_ring_alloc_end();
	if (rc) {
		free(wq);
		errno = rc;
		return NULL;
	}
	dpv_mlx5_rq_clamp(&wq->ring, DPV_CAP_MAX_QP_WR, DPV_CAP_MAX_SGE);
	pthread_mutex_lock(&wq_lock);
	i = wq_slot_take(to_dctx(ctx));
	if (i == DPV_WQ_MAX) {
		pthread_mutex_unlock(&wq_lock);
		dpv_mlx5_rq_fini(&wq->ring);
		free(wq);
		errno = ENOMEM;
		return NULL;
	}
	wq->dev = dctx_dev(ctx);
	wq->pd = to_dpd(a->pd);
	wq->cq = to_dcq(a->cq);
	/* raw-packet receive queues live on the home shard */
	dpv_shard_use_cq(wq->dev, &wq->cq->ring, 0);
	wq->max_wr = wq->ring.wq.max_post;
	wq->max_sge = wq->ring.wq.max_gs;
	dpv_vlock_init(&wq->post_lock, dpv_pd_single_threaded(a->pd));
	wq->ibv.context = ctx;
	wq->ibv.pd = a->pd;
	wq->ibv.cq = a->cq;
	wq->ibv.wq_num = DPV_WQN_BASE + i;
	wq->ibv.handle = wq->ibv.wq_num;
	wq->ibv.state = IBV_WQS_RESET;
	wq->ibv.wq_type = IBV_WQT_RQ;
	wq->ibv.post_recv = wq_post_recv;
	atomic_store_explicit(&wq_tbl[i], wq, memory_order_release);
	pthread_mutex_unlock(&wq_lock);
	dpv_ref_get(&wq->pd->refcnt);
	dpv_ref_get(&wq->cq->refcnt);
	a->max_wr = wq->max_wr;
	a->max_sge = wq->max_sge;
	return &wq->ibv;
}

static bool
wq_transition_ok(enum ibv_wq_state cur, enum ibv_wq_state next)
{
	switch (next) {
	case IBV_WQS_RESET:
		return cur <= IBV_WQS_ERR;
	case IBV_WQS_RDY:
		return cur == IBV_WQS_RESET || cur == IBV_WQS_RDY;
	case IBV_WQS_ERR:
		return cur == IBV_WQS_RDY || cur == IBV_WQS_ERR;
	default:
		return false;
	}
}

static int
wq_modify(struct ibv_wq *ibwq, struct ibv_wq_attr *attr)
{
	struct dpv_wq *wq = container_of(ibwq, struct dpv_wq, ibv);
	enum ibv_wq_state cur = ibwq->state, next;
	uint32_t known =
		IBV_WQ_ATTR_STATE | IBV_WQ_ATTR_CURR_STATE | IBV_WQ_ATTR_FLAGS;
	int rc = 0;

	if (attr == NULL || (attr->attr_mask & ~known))
		return EINVAL;
	if ((attr->attr_mask & IBV_WQ_ATTR_CURR_STATE) &&
	    attr->curr_wq_state != cur)
		return EINVAL;
	if ((attr->attr_mask & IBV_WQ_ATTR_FLAGS) && attr->flags_mask)
		return EOPNOTSUPP;
	if (!(attr->attr_mask & IBV_WQ_ATTR_STATE))
		return 0;
	next = attr->wq_state;
	if (!wq_transition_ok(cur, next))
		return EINVAL;
	dpv_vlock_lock(&wq->post_lock);
	wq_engine_lock(wq);
	if (next == IBV_WQS_RESET && cur != IBV_WQS_RESET) {
		struct dpv_mlx5_rq fresh;

		/* empty the ring: a fresh one of the same size, whose content
		 * and indices go onto the WQ's ring, which stays where it is
		 * (an application may hold it: mlx5dv_rwq) */
		dpv_ring_alloc_begin(to_dctx(ibwq->context));
		rc = wq->ring.wq.ops->rq_init(&fresh, wq->max_wr, wq->max_sge,
					      SOCKET_ID_ANY);
		dpv_ring_alloc_end();
		if (rc == 0) {
			dpv_mlx5_rq_clamp(&fresh, wq->max_wr, wq->max_sge);
			dpv_ring_cq_clean(&wq->cq->ring, ibwq->wq_num, NULL);
			if (dpv_mlx5_rq_refill(&wq->ring, &fresh) == 0) {
				dpv_mlx5_rq_fini(&fresh);
			} else {
				dpv_mlx5_rq_fini(&wq->ring);
				wq->ring = fresh;
			}
		}
	} else if (next == IBV_WQS_ERR) {
		dpv_ring_flush(&wq->ring.wq, &wq->cq->ring, ibwq->wq_num);
	}
	if (rc == 0)
		__atomic_store_n(&ibwq->state, next, __ATOMIC_RELEASE);
	wq_engine_unlock(wq);
	dpv_vlock_unlock(&wq->post_lock);
	return rc;
}

static int
wq_destroy(struct ibv_wq *ibwq)
{
	struct dpv_wq *wq = container_of(ibwq, struct dpv_wq, ibv);

	if (dpv_ref_busy(&wq->refcnt))
		return EBUSY;
	pthread_mutex_lock(&wq_lock);
	atomic_store_explicit(&wq_tbl[ibwq->wq_num - DPV_WQN_BASE], NULL,
			      memory_order_release);
	pthread_mutex_unlock(&wq_lock);
	wq_engine_lock(wq);
	dpv_ring_cq_clean(&wq->cq->ring, ibwq->wq_num, NULL);
	wq_engine_unlock(wq);
	dpv_mlx5_rq_fini(&wq->ring);
	dpv_ref_put(&wq->pd->refcnt);
	dpv_ref_put(&wq->cq->refcnt);
	dpv_vlock_fini(&wq->post_lock);
	pthread_cond_destroy(&ibwq->cond);
	pthread_mutex_destroy(&ibwq->mutex);
	free(wq);
	return 0;
}

/* -------------------------------------------------- indirection tables */

static struct ibv_rwq_ind_table *
ind_create(struct ibv_context *ctx, struct ibv_rwq_ind_table_init_attr *a)
{
	struct dpv_rwq_ind *t;
	uint32_t n;

	if (a == NULL || a->comp_mask || a->ind_tbl == NULL ||
	    a->log_ind_tbl_size > DPV_CAP_RSS_LOG_TBL_SIZE) {
		errno = EINVAL;
		return NULL;
	}
	n = 1u << a->log_ind_tbl_size;
	for (uint32_t i = 0; i < n; i++) {
		if (a->ind_tbl[i] == NULL || a->ind_tbl[i]->context != ctx ||
		    a->ind_tbl[i]->wq_type != IBV_WQT_RQ) {
			errno = EINVAL;
			return NULL;
		}
	}
	t = calloc(1, sizeof(*t));
	if (t != NULL)
		t->wqs = calloc(n, sizeof(*t->wqs));
	if (t == NULL || t->wqs == NULL) {
		free(t);
		errno = ENOMEM;
		return NULL;
	}
	pthread_mutex_lock(&wq_lock);
	if (n_ind >= DPV_CAP_RSS_MAX_TBLS) {
		pthread_mutex_unlock(&wq_lock);
		free(t->wqs);
		free(t);
		errno = ENOMEM;
		return NULL;
	}
	n_ind++;
	t->ibv.ind_tbl_num = next_ind_num++;
	pthread_mutex_unlock(&wq_lock);
	t->ibv.context = ctx;
	t->ibv.ind_tbl_handle = t->ibv.ind_tbl_num;
	t->log_size = a->log_ind_tbl_size;
	for (uint32_t i = 0; i < n; i++) {
		t->wqs[i] = container_of(a->ind_tbl[i], struct dpv_wq, ibv);
		dpv_ref_get(&t->wqs[i]->refcnt);
	}
	return &t->ibv;
}

static int
ind_destroy(struct ibv_rwq_ind_table *ibt)
{
	struct dpv_rwq_ind *t = container_of(ibt, struct dpv_rwq_ind, ibv);

	if (dpv_ref_busy(&t->refcnt))
		return EBUSY;
	for (uint32_t i = 0; i < 1u << t->log_size; i++)
		dpv_ref_put(&t->wqs[i]->refcnt);
	pthread_mutex_lock(&wq_lock);
	n_ind--;
	pthread_mutex_unlock(&wq_lock);
	free(t->wqs);
	free(t);
	return 0;
}

/* ------------------------------------------------------------- RSS QPs */

int
dpv_rss_qp_check(struct ibv_context *ctx, const struct ibv_qp_init_attr_ex *a,
		 bool tunnel)
{
	const struct ibv_rx_hash_conf *h = &a->rx_hash_conf;
	uint64_t f = h->rx_hash_fields_mask;
	uint32_t both = IBV_QP_INIT_ATTR_IND_TABLE | IBV_QP_INIT_ATTR_RX_HASH;

	if (a->qp_type != IBV_QPT_RAW_PACKET || (a->comp_mask & both) != both)
		return EINVAL;
	if (a->rwq_ind_tbl == NULL || a->rwq_ind_tbl->context != ctx ||
	    a->srq != NULL)
		return EINVAL;
	if (h->rx_hash_function != IBV_RX_HASH_FUNC_TOEPLITZ ||
	    h->rx_hash_key_len != DPV_ENGINE_RSS_KEY_LEN ||
	    h->rx_hash_key == NULL)
		return EINVAL;
	if (f & ~(uint64_t)RSS_FIELDS_KNOWN)
		return EINVAL; /* IPsec SPI: not supported */
	if ((f & (IBV_RX_HASH_SRC_IPV4 | IBV_RX_HASH_DST_IPV4)) &&
	    (f & (IBV_RX_HASH_SRC_IPV6 | IBV_RX_HASH_DST_IPV6)))
		return EINVAL;
	if ((f & (IBV_RX_HASH_SRC_PORT_TCP | IBV_RX_HASH_DST_PORT_TCP)) &&
	    (f & (IBV_RX_HASH_SRC_PORT_UDP | IBV_RX_HASH_DST_PORT_UDP)))
		return EINVAL;
	if (!dpv_raw_supported(ctx))
		return EOPNOTSUPP;
	/* inner hashing: ConnectX-3 Pro's RSS QPs have it as they are; an
	 * mlx5 one only with tunnel offloads (the kernel's mlx5 driver) */
	if ((f & IBV_RX_HASH_INNER) && !tunnel &&
	    dctx_dev(ctx)->ring_ops != &dpv_mlx4_ring_ops)
		return EOPNOTSUPP;
	return 0;
}

int
dpv_rss_qp_attach(struct dpv_qp *qp, const struct ibv_qp_init_attr_ex *a)
{
	struct dpv_rwq_ind *t =
		container_of(a->rwq_ind_tbl, struct dpv_rwq_ind, ibv);
	uint32_t n = 1u << t->log_size;
	struct dpv_engine_rss_wq *tbl;
	int rc;

	if (qp->engine == NULL)
		return EOPNOTSUPP;
	tbl = calloc(n, sizeof(*tbl));
	if (tbl == NULL)
		return ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		struct dpv_wq *wq = t->wqs[i];

		tbl[i].wqn = wq->ibv.wq_num;
		tbl[i].pdn = dpv_pd_base(wq->ibv.pd)->pdn;
		tbl[i].rq = &wq->ring;
		tbl[i].cq = &wq->cq->ring;
		tbl[i].state = (const volatile int *)&wq->ibv.state;
	}
	rc = dpv_engine_rss_set(qp->engine, qp->qpex.qp_base.qp_num,
				a->rx_hash_conf.rx_hash_fields_mask,
				a->rx_hash_conf.rx_hash_key, t->log_size, tbl);
	free(tbl);
	if (rc)
		return -rc;
	dpv_ref_get(&t->refcnt);
	qp->rss = t;
	return 0;
}

void
dpv_rss_qp_detach(struct dpv_qp *qp)
{
	struct dpv_rwq_ind *t = qp->rss;

	if (t == NULL)
		return;
	dpv_ref_put(&t->refcnt);
	qp->rss = NULL;
}

void
dpv_wq_ops_init(struct verbs_context *vctx)
{
	vctx->create_wq = wq_create;
	vctx->modify_wq = wq_modify;
	vctx->destroy_wq = wq_destroy;
	vctx->create_rwq_ind_table = ind_create;
	vctx->destroy_rwq_ind_table = ind_destroy;
}
