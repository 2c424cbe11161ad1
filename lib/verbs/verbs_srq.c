/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared receive queues (basic and XRC) and XRC domains.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "dpv_engine.h"
#include "dpv_tm.h"
#include "verbs_int.h"
#include "verbs_ops.h"

/* ---------------------------------------------------------------------- */
/* XRC domains                                                             */

static struct dpv_xrcd *
xrcd_new(struct ibv_context *context)
{
	struct dpv_xrcd *x = calloc(1, sizeof(*x));

	if (x == NULL)
		return NULL;
	static atomic_uint next_xrcdn;

	x->vxrcd.xrcd.context = context;
	/* the number the engine matches XRC SRQs and target QPs by */
	x->vxrcd.handle = atomic_fetch_add(&next_xrcdn, 1) + 1;
	x->opens = 1;
	atomic_init(&x->refcnt, 0);
	return x;
}

struct ibv_xrcd *
dpv_open_xrcd(struct ibv_context *context, struct ibv_xrcd_init_attr *attr)
{
	const uint32_t known =
		IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS;
	struct dpv_device *dev = dctx_dev(context);
	struct dpv_xrcd *x;
	struct stat st;

	if (!DPV_CAP_XRC) {
		errno = EOPNOTSUPP; /* see verbs_caps.h */
		return NULL;
	}
	if (attr == NULL || (attr->comp_mask & ~known) ||
	    !(attr->comp_mask & IBV_XRCD_INIT_ATTR_FD) ||
	    !(attr->comp_mask & IBV_XRCD_INIT_ATTR_OFLAGS) ||
	    (attr->oflags & ~(O_CREAT | O_EXCL))) {
		errno = EINVAL;
		return NULL;
	}
	if (attr->fd == -1) {
		if (!(attr->oflags & O_CREAT)) {
			errno = EINVAL;
			return NULL;
		}
		x = xrcd_new(context);
		if (x == NULL) {
			errno = ENOMEM;
			return NULL;
		}
		return &x->vxrcd.xrcd;
	}
	/* Shared through a file: one domain per inode in this process. */
	if (fstat(attr->fd, &st) != 0) {
		errno = EBADF;
		return NULL;
	}
	pthread_mutex_lock(&dev->lock);
	TAILQ_FOREACH(x, &dev->xrcds, next)
	if (x->st_dev == st.st_dev && x->st_ino == st.st_ino)
		break;
	if (x != NULL) {
		if ((attr->oflags & O_CREAT) && (attr->oflags & O_EXCL)) {
			pthread_mutex_unlock(&dev->lock);
			errno = EEXIST;
			return NULL;
		}
		x->opens++;
	} else {
		if (!(attr->oflags & O_CREAT)) {
			pthread_mutex_unlock(&dev->lock);
			errno = ENOENT;
			return NULL;
		}
		x = xrcd_new(context);
		if (x == NULL) {
			pthread_mutex_unlock(&dev->lock);
			errno = ENOMEM;
			return NULL;
		}
		x->by_inode = true;
		x->st_dev = st.st_dev;
		x->st_ino = st.st_ino;
		TAILQ_INSERT_TAIL(&dev->xrcds, x, next);
	}
	pthread_mutex_unlock(&dev->lock);
	return &x->vxrcd.xrcd;
}

int
dpv_close_xrcd(struct ibv_xrcd *ibx)
{
	struct dpv_xrcd *x = to_dxrcd(ibx);
	struct dpv_device *dev = dctx_dev(ibx->context);

	pthread_mutex_lock(&dev->lock);
	if (x->opens == 1 && dpv_ref_busy(&x->refcnt)) {
		pthread_mutex_unlock(&dev->lock);
		return EBUSY;
	}
	if (--x->opens > 0) {
		pthread_mutex_unlock(&dev->lock);
		return 0;
	}
	if (x->by_inode)
		TAILQ_REMOVE(&dev->xrcds, x, next);
	pthread_mutex_unlock(&dev->lock);
	free(x);
	return 0;
}

/* ---------------------------------------------------------------------- */
/* SRQ                                                                     */

struct dpv_srq *
dpv_srq_lookup(struct dpv_device *dev, uint32_t srqn)
{
	if (srqn == 0 || srqn >= DPV_CAP_MAX_SRQ)
		return NULL;
	return atomic_load_explicit(&dev->srqs[srqn], memory_order_acquire);
}

/* Give srq a number: a free slot of the device's SRQ table. */
static int
srqn_alloc(struct dpv_device *dev, struct dpv_srq *srq)
{
	int rc = ENOMEM;

	pthread_mutex_lock(&dev->lock);
	for (unsigned int n = 0; n < DPV_CAP_MAX_SRQ - 1; n++) {
		unsigned int i = dev->srq_hint;

		dev->srq_hint = i + 1 >= DPV_CAP_MAX_SRQ ? 1 : i + 1;
		if (atomic_load(&dev->srqs[i]) == NULL) {
			srq->vsrq.srq_num = i;
			atomic_store_explicit(&dev->srqs[i], srq,
					      memory_order_release);
			rc = 0;
			break;
		}
	}
	pthread_mutex_unlock(&dev->lock);
	return rc;
}

static void
srqn_free(struct dpv_device *dev, struct dpv_srq *srq)
{
	pthread_mutex_lock(&dev->lock);
	atomic_store(&dev->srqs[srq->vsrq.srq_num], NULL);
	pthread_mutex_unlock(&dev->lock);
}

/*
 * The limits of an SRQ's size. max_sge 0 gets one SGE (as on rxe and
 * ConnectX). max_wr 0 is refused on the generic device (EINVAL, as rxe
 * does) and accepted under "personality = mlx5" as the mlx5 provider
 * accepts it: an SRQ of max_wr 0 that takes no receive WR.
 */
static int
srq_check_caps(const struct dpv_device *dev, const struct ibv_srq_attr *a)
{
	if ((a->max_wr == 0 && !dev->mlx5_personality) ||
	    a->max_wr > DPV_CAP_MAX_SRQ_WR || a->max_sge > DPV_CAP_MAX_SRQ_SGE ||
	    a->srq_limit > a->max_wr)
		return EINVAL;
	return 0;
}

/* Drop what an SRQ holds (references, ring, memory). */
static void
srq_release(struct dpv_srq *srq)
{
	dpv_tm_destroy(srq->ring.tm);
	srq->ring.tm = NULL;
	dpv_mlx5_rq_fini(&srq->ring);
	dpv_ref_put(&srq->pd->refcnt);
	if (srq->xrcd)
		dpv_ref_put(&srq->xrcd->refcnt);
	if (srq->cq)
		dpv_ref_put(&srq->cq->refcnt);
	dpv_vlock_fini(&srq->post_lock);
	pthread_cond_destroy(&srq->vsrq.srq.cond);
	pthread_mutex_destroy(&srq->vsrq.srq.mutex);
	free(srq);
}

static struct ibv_srq *
srq_create(struct ibv_context *context, struct ibv_pd *pd, void *srq_context,
	   struct ibv_srq_attr *a, enum ibv_srq_type type,
	   struct ibv_xrcd *xrcd, struct ibv_cq *cq, uint32_t max_tags)
{
	struct dpv_srq *srq;
	int rc;

	if (pd == NULL || pd->context != context) {
		errno = EINVAL;
		return NULL;
	}
	rc = srq_check_caps(dctx_dev(context), a);
	if (rc != 0) {
		errno = rc;
		return NULL;
	}
	srq = dpv_zalloc_lines(sizeof(*srq));
	if (srq == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	dpv_ring_alloc_begin(to_dctx(context));
	rc = dctx_dev(context)->ring_ops->srq_init(
		&srq->ring, a->max_wr, a->max_sge, dctx_dev(context)->socket_id);
	dpv_ring_alloc_end();
	if (rc != 0) {
		free(srq);
		errno = rc;
		return NULL;
	}
	/* report what the ring really holds, within the device limits */
	dpv_mlx5_rq_clamp(&srq->ring, DPV_CAP_MAX_SRQ_WR, DPV_CAP_MAX_SRQ_SGE);
	a->max_wr = srq->ring.wq.max_post;
	a->max_sge = srq->ring.wq.max_gs;
	struct ibv_srq *s = &srq->vsrq.srq;

	s->context = context;
	s->srq_context = srq_context;
	s->pd = pd;
	pthread_mutex_init(&s->mutex, NULL);
	pthread_cond_init(&s->cond, NULL);
	dpv_vlock_init(&srq->post_lock, dpv_pd_single_threaded(pd));
	atomic_init(&srq->refcnt, 0);
	srq->max_wr = a->max_wr;
	srq->max_sge = a->max_sge;
	atomic_init(&srq->srq_limit, a->srq_limit);
	srq->pd = to_dpd(pd);
	dpv_ref_get(&srq->pd->refcnt);
	srq->vsrq.srq_type = type;
	if (type == IBV_SRQT_XRC) {
		srq->xrcd = to_dxrcd(xrcd);
		srq->vsrq.xrcd = &srq->xrcd->vxrcd;
		dpv_ref_get(&srq->xrcd->refcnt);
	}
	if (type == IBV_SRQT_TM) {
		srq->ring.tm = dpv_tm_create(max_tags);
		if (srq->ring.tm == NULL) {
			srq_release(srq);
			errno = ENOMEM;
			return NULL;
		}
	}
	if (cq != NULL) {
		srq->cq = to_dcq(cq);
		srq->vsrq.cq = cq;
		dpv_ref_get(&srq->cq->refcnt);
		/* XRC targets and tag matching QPs live on the home shard */
		dpv_shard_use_cq(dctx_dev(context), &srq->cq->ring, 0);
	}
	/* publish last: the engine may look the SRQ up from now on */
	rc = srqn_alloc(dctx_dev(context), srq);
	if (rc != 0) {
		srq_release(srq);
		errno = rc;
		return NULL;
	}
	s->handle = srq->vsrq.srq_num;
	return s;
}

struct ibv_srq *
ibv_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *attr)
{
	if (pd == NULL || attr == NULL) {
		errno = EINVAL;
		return NULL;
	}
	return srq_create(pd->context, pd, attr->srq_context, &attr->attr,
			  IBV_SRQT_BASIC, NULL, NULL, 0);
}

struct ibv_srq *
dpv_create_srq_ex_op(struct ibv_context *context,
		     struct ibv_srq_init_attr_ex *a)
{
	const uint32_t known = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
			       IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ |
			       IBV_SRQ_INIT_ATTR_TM;
	enum ibv_srq_type type = IBV_SRQT_BASIC;
	struct ibv_srq *srq;

	if (a->comp_mask & ~known) {
		errno = EINVAL;
		return NULL;
	}
	if (a->comp_mask & IBV_SRQ_INIT_ATTR_TYPE)
		type = a->srq_type;
	if (type == IBV_SRQT_TM || (a->comp_mask & IBV_SRQ_INIT_ATTR_TM)) {
		if (!dpv_tm_supported(dctx_dev(context))) {
			errno = EOPNOTSUPP; /* mlx4 rings, no engine */
			return NULL;
		}
		/* a TM SRQ: its type, attributes, PD and CQ (list
		 * operations complete there) */
		if (type != IBV_SRQT_TM ||
		    !(a->comp_mask & IBV_SRQ_INIT_ATTR_TM) ||
		    !(a->comp_mask & IBV_SRQ_INIT_ATTR_PD) ||
		    !(a->comp_mask & IBV_SRQ_INIT_ATTR_CQ) || a->cq == NULL ||
		    a->cq->context != context || a->tm_cap.max_num_tags == 0 ||
		    a->tm_cap.max_num_tags > DPV_TM_MAX_TAGS ||
		    a->tm_cap.max_ops > DPV_TM_MAX_OPS) {
			errno = EINVAL;
			return NULL;
		}
		return srq_create(context, a->pd, a->srq_context, &a->attr,
				  IBV_SRQT_TM, NULL, a->cq,
				  a->tm_cap.max_num_tags);
	}
	if (type != IBV_SRQT_BASIC && type != IBV_SRQT_XRC) {
		errno = EINVAL;
		return NULL;
	}
	if (type == IBV_SRQT_XRC && !DPV_CAP_XRC) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!(a->comp_mask & IBV_SRQ_INIT_ATTR_PD)) {
		errno = EINVAL;
		return NULL;
	}
	if (type == IBV_SRQT_XRC &&
	    (!(a->comp_mask & IBV_SRQ_INIT_ATTR_XRCD) || a->xrcd == NULL ||
	     !(a->comp_mask & IBV_SRQ_INIT_ATTR_CQ) || a->cq == NULL ||
	     a->xrcd->context != context || a->cq->context != context)) {
		errno = EINVAL;
		return NULL;
	}
	srq = srq_create(context, a->pd, a->srq_context, &a->attr, type,
			 type == IBV_SRQT_XRC ? a->xrcd : NULL,
			 type == IBV_SRQT_XRC ? a->cq : NULL, 0);
	return srq;
}

int
dpv_get_srq_num(struct ibv_srq *ibsrq, uint32_t *srq_num)
{
	struct dpv_srq *srq = to_dsrq(ibsrq);

	if (srq->vsrq.srq_type != IBV_SRQT_XRC)
		return EINVAL;
	*srq_num = srq->vsrq.srq_num;
	return 0;
}

int
ibv_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr, int attr_mask)
{
	struct dpv_srq *srq = to_dsrq(ibsrq);

	if (attr_mask & ~(IBV_SRQ_MAX_WR | IBV_SRQ_LIMIT))
		return EINVAL;
	if (attr_mask & IBV_SRQ_MAX_WR)
		return EOPNOTSUPP; /* no resize (IBV_DEVICE_SRQ_RESIZE unset) */
	if (attr_mask & IBV_SRQ_LIMIT) {
		if (attr->srq_limit > srq->max_wr)
			return EINVAL;
		atomic_store(&srq->srq_limit, attr->srq_limit);
	}
	return 0;
}

int
ibv_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr)
{
	struct dpv_srq *srq = to_dsrq(ibsrq);

	attr->max_wr = srq->max_wr;
	attr->max_sge = srq->max_sge;
	attr->srq_limit = atomic_load(&srq->srq_limit);
	return 0;
}

int
ibv_destroy_srq(struct ibv_srq *ibsrq)
{
	struct dpv_srq *srq = to_dsrq(ibsrq);

	struct dpv_device *dev = dctx_dev(ibsrq->context);

	if (dpv_ref_busy(&srq->refcnt))
		return EBUSY;
	srqn_free(dev, srq);
	/* XRC SRQs are found per request: let the engine finish with it */
	if (srq->xrcd && dev->engine) {
		dpv_engine_lock(dev->engine);
		dpv_engine_unlock(dev->engine);
	}
	srq_release(srq);
	return 0;
}

bool
dpv_srq_engine_lookup(void *arg, uint32_t srqn, struct dpv_engine_srq *out)
{
	struct dpv_srq *srq = dpv_srq_lookup(arg, srqn);

	if (srq == NULL || srq->xrcd == NULL || srq->cq == NULL)
		return false;
	out->rq = &srq->ring;
	out->cq = &srq->cq->ring;
	out->pdn = dpv_pd_base(&srq->pd->ibv)->pdn;
	out->xrcdn = srq->xrcd->vxrcd.handle;
	return true;
}

int
dpv_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
		  struct ibv_recv_wr **bad_wr)
{
	struct dpv_srq *srq = to_dsrq(ibsrq);
	int rc;

	dpv_vlock_lock(&srq->post_lock);
	rc = dpv_ring_post_recv(&srq->ring, wr, bad_wr);
	dpv_vlock_unlock(&srq->post_lock);
	return rc;
}

/* ---------------------------------------------------------------------- */
/* Tag matching (dpv_tm.h)                                                 */

bool
dpv_tm_supported(const struct dpv_device *dev)
{
	return dev->engine != NULL && dev->ring_ops == &dpv_mlx5_ring_ops;
}

/* The engine's form of list operation w; 0 or the errno that refuses it
 * (nothing done). An ADD takes a handle (written back in w). */
static int
tm_op_of(struct dpv_srq *srq, struct ibv_ops_wr *w, struct dpv_tm_op *op)
{
	struct dpv_tm *tm = srq->ring.tm;
	int64_t h;

	memset(op, 0, sizeof(*op));
	op->opcode = w->opcode;
	op->wr_id = w->wr_id;
	op->signaled = (w->flags & IBV_OPS_SIGNALED) != 0;
	op->sync = (w->flags & IBV_OPS_TM_SYNC) != 0;
	op->unexpected_cnt = (uint16_t)w->tm.unexpected_cnt;
	if (w->flags & ~(IBV_OPS_SIGNALED | IBV_OPS_TM_SYNC))
		return EINVAL;
	switch (w->opcode) {
	case IBV_WR_TAG_ADD:
		if (w->tm.add.num_sge < 0 ||
		    w->tm.add.num_sge > DPV_TM_MAX_SGE ||
		    (w->tm.add.num_sge > 0 && w->tm.add.sg_list == NULL))
			return EINVAL;
		op->tag = w->tm.add.tag;
		op->mask = w->tm.add.mask;
		op->num_sge = (uint32_t)w->tm.add.num_sge;
		for (uint32_t i = 0; i < op->num_sge; i++) {
			op->sge[i].addr = w->tm.add.sg_list[i].addr;
			op->sge[i].length = w->tm.add.sg_list[i].length;
			op->sge[i].lkey = w->tm.add.sg_list[i].lkey;
		}
		h = dpv_tm_handle_get(tm);
		if (h < 0)
			return ENOMEM; /* max_num_tags listed or unread */
		tm->wrid[h] = w->tm.add.recv_wr_id;
		op->handle = (uint32_t)h;
		w->tm.handle = (uint32_t)h;
		return 0;
	case IBV_WR_TAG_DEL:
		if (w->tm.handle >= tm->ntags)
			return EINVAL;
		op->handle = w->tm.handle;
		return 0;
	case IBV_WR_TAG_SYNC:
		return 0;
	default:
		return EINVAL;
	}
}

int
dpv_post_srq_ops(struct ibv_srq *ibsrq, struct ibv_ops_wr *wr,
		 struct ibv_ops_wr **bad_wr)
{
	struct dpv_srq *srq = to_dsrq(ibsrq);
	struct dpv_device *dev = dctx_dev(ibsrq->context);
	int rc = 0;

	if (srq->ring.tm == NULL) {
		*bad_wr = wr;
		return EINVAL; /* not a tag matching SRQ */
	}
	dpv_vlock_lock(&srq->post_lock);
	for (; wr != NULL; wr = wr->next) {
		struct dpv_tm_op op;
		int r;

		rc = tm_op_of(srq, wr, &op);
		if (rc != 0)
			break;
		/* the home shard's engine: TM QPs live there (qp.c) */
		r = dpv_engine_tm_op(dev->engines[0], srq->ring.tm,
				     &srq->cq->ring, srq->vsrq.srq_num, &op);
		if (r < 0) {
			rc = -r;
			break;
		}
		if (r == 1) /* removed: no completion will name it */
			dpv_tm_handle_put(srq->ring.tm, op.handle);
	}
	dpv_vlock_unlock(&srq->post_lock);
	if (rc != 0)
		*bad_wr = wr;
	return rc;
}

void
dpv_srq_check_limit(struct dpv_srq *srq, uint32_t remaining)
{
	unsigned int limit = atomic_load(&srq->srq_limit);
	struct ibv_async_event ev;

	if (limit == 0 || remaining >= limit)
		return;
	if (!atomic_compare_exchange_strong(&srq->srq_limit, &limit, 0))
		return;
	memset(&ev, 0, sizeof(ev));
	ev.event_type = IBV_EVENT_SRQ_LIMIT_REACHED;
	ev.element.srq = &srq->vsrq.srq;
	dpv_async_event_post(to_dctx(srq->vsrq.srq.context), &ev);
}

void
dpv_srq_engine_fetched(void *arg, struct dpv_mlx5_rq *ring)
{
	RTE_SET_USED(arg);
	struct dpv_srq *srq = container_of(ring, struct dpv_srq, ring);
	uint32_t posted = __atomic_load_n(&ring->srq_counter, __ATOMIC_ACQUIRE);

	dpv_srq_check_limit(srq, posted - ring->wq.eng_pi);
}
