/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared XRC_RECV QPs: ibv_open_qp handles, their lists and counts, and
 * the release of a handle on ibv_destroy_qp.
 */
#include <errno.h>
#include <stdlib.h>

#include "qp.h"

pthread_mutex_t dpv_qp_share_lock = PTHREAD_MUTEX_INITIALIZER;

/* A QP nobody can open any more: its last handle is being destroyed. */
static bool
qp_share_dead(const struct dpv_qp *qp)
{
	return qp->creator_gone && qp->n_open == 0;
}

struct ibv_qp *
dpv_qp_open_op(struct ibv_context *context, struct ibv_qp_open_attr *a)
{
	const uint32_t need = IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_XRCD |
			      IBV_QP_OPEN_ATTR_TYPE;
	struct dpv_qp *real, *h;
	struct ibv_qp *q;

	if (context == NULL || a == NULL ||
	    (a->comp_mask & ~(need | IBV_QP_OPEN_ATTR_CONTEXT)) ||
	    (a->comp_mask & need) != need || a->xrcd == NULL ||
	    a->qp_type != IBV_QPT_XRC_RECV ||
	    dctx_dev(a->xrcd->context) != dctx_dev(context)) {
		errno = EINVAL;
		return NULL;
	}
	h = calloc(1, sizeof(*h));
	if (h == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	pthread_mutex_lock(&dpv_qp_share_lock);
	real = dpv_qp_lookup(dctx_dev(context), a->qp_num);
	if (real == NULL || real->real != NULL ||
	    real->qpex.qp_base.qp_type != IBV_QPT_XRC_RECV ||
	    real->xrcd == NULL ||
	    real->xrcd->vxrcd.handle != to_dxrcd(a->xrcd)->vxrcd.handle ||
	    qp_share_dead(real)) {
		pthread_mutex_unlock(&dpv_qp_share_lock);
		free(h);
		errno = EINVAL; /* no XRC_RECV QP of this number and domain */
		return NULL;
	}
	h->real = real;
	h->ctx = to_dctx(context);
	h->dev = real->dev;
	q = &h->qpex.qp_base;
	q->context = context;
	q->qp_context = (a->comp_mask & IBV_QP_OPEN_ATTR_CONTEXT)
				? a->qp_context
				: NULL;
	q->qp_num = a->qp_num;
	q->qp_type = IBV_QPT_XRC_RECV;
	q->state = dpv_qp_state(real);
	pthread_mutex_init(&q->mutex, NULL);
	pthread_cond_init(&q->cond, NULL);
	h->next_open = real->next_open;
	real->next_open = h;
	real->n_open++;
	pthread_mutex_unlock(&dpv_qp_share_lock);
	return q;
}

bool
dpv_qp_share_release(struct dpv_qp *h)
{
	struct dpv_qp *real = h->real ? h->real : h, **pp;
	bool last;

	pthread_mutex_lock(&dpv_qp_share_lock);
	if (h->real) {
		for (pp = &real->next_open; *pp != NULL; pp = &(*pp)->next_open)
			if (*pp == h) {
				*pp = h->next_open;
				break;
			}
		real->n_open--;
	} else {
		real->creator_gone = true;
	}
	last = qp_share_dead(real);
	pthread_mutex_unlock(&dpv_qp_share_lock);
	if (h->real) {
		pthread_cond_destroy(&h->qpex.qp_base.cond);
		pthread_mutex_destroy(&h->qpex.qp_base.mutex);
		free(h);
	}
	return last;
}
