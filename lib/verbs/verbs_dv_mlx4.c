/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mlx4dv_init_obj for libmlx4.so.1: the mlx4 view of QPs, CQs and SRQs of
 * a device configured "rings = mlx4", read from their ConnectX-3-format
 * rings (drivers/rdma/mlx4/mlx4_ring.h), and of their receive WQs.
 */
#include <errno.h>
#include <string.h>

#include "verbs_int.h"
#include "verbs_dv.h"
#include "qp.h"
#include "verbs_raw.h"

static bool
mlx4_ctx(const struct ibv_context *ctx)
{
	return ctx != NULL && dctx_dev((struct ibv_context *)ctx)->ring_ops ==
				      &dpv_mlx4_ring_ops;
}

int
dpv_mlx4dv_context_ok(struct ibv_context *ctx)
{
	return mlx4_ctx(ctx) ? 0 : EOPNOTSUPP;
}

int
dpv_mlx4dv_set_log_wqs_range(struct ibv_context *ctx, uint8_t log)
{
	return dpv_wq_set_log_range(ctx, log);
}

int
dpv_mlx4dv_set_buf_allocators(struct ibv_context *ctx,
			      void *(*alloc)(size_t size, void *data),
			      void (*free_fn)(void *ptr, void *data),
			      void *data)
{
	struct dpv_context *c = to_dctx(ctx);

	if (alloc != NULL && free_fn == NULL)
		return EINVAL;
	pthread_mutex_lock(&c->lock);
	c->ring_alloc.alloc = alloc;
	c->ring_alloc.free = alloc != NULL ? free_fn : NULL;
	c->ring_alloc.data = alloc != NULL ? data : NULL;
	pthread_mutex_unlock(&c->lock);
	return 0;
}

static int
dv_qp(struct ibv_qp *ibqp, struct mlx4dv_qp *out)
{
	struct dpv_qp *qp;
	uint64_t want;
	int rc;

	if (ibqp == NULL || out == NULL)
		return EINVAL;
	if (!mlx4_ctx(ibqp->context))
		return EOPNOTSUPP;
	qp = to_dqp(ibqp);
	want = out->comp_mask;
	rc = dpv_mlx4_qp_to_dv(qp->has_sq ? &qp->sq : NULL,
			       qp->has_rq ? &qp->rq : NULL, ibqp->qp_num, out);
	if (rc)
		return rc;
	dpv_qp_rings_exposed(qp);
	/* MLX4DV_QP_MASK_UAR_MMAP_OFFSET: no UAR page to mmap here */
	RTE_SET_USED(want);
	out->comp_mask = 0;
	return 0;
}

static int
dv_cq(struct ibv_cq *ibcq, struct mlx4dv_cq *out)
{
	uint64_t want;

	if (ibcq == NULL || out == NULL)
		return EINVAL;
	if (!mlx4_ctx(ibcq->context))
		return EOPNOTSUPP;
	want = out->comp_mask;
	dpv_mlx4_cq_to_dv(&to_dcq(ibcq)->ring, out);
	/* cq_uar (arm doorbell at cq_uar + MLX4_CQ_DOORBELL) when asked */
	out->comp_mask = want & MLX4DV_CQ_MASK_UAR;
	if (!(want & MLX4DV_CQ_MASK_UAR))
		out->cq_uar = NULL;
	return 0;
}

static int
dv_srq(struct ibv_srq *ibsrq, struct mlx4dv_srq *out)
{
	if (ibsrq == NULL || out == NULL)
		return EINVAL;
	if (!mlx4_ctx(ibsrq->context))
		return EOPNOTSUPP;
	dpv_mlx4_srq_to_dv(&to_dsrq(ibsrq)->ring, out);
	return 0;
}

static int
dv_rwq(struct ibv_wq *ibwq, struct mlx4dv_rwq *out)
{
	struct dpv_mlx5_rq *rq;

	if (ibwq == NULL || out == NULL)
		return EINVAL;
	if (!mlx4_ctx(ibwq->context))
		return EOPNOTSUPP;
	rq = dpv_wq_ring_of(ibwq);
	if (rq == NULL)
		return EINVAL;
	dpv_mlx4_rwq_to_dv(rq, out);
	return 0;
}

int
dpv_mlx4dv_init_obj(struct mlx4dv_obj *obj, uint64_t obj_type)
{
	int rc = 0;

	if (obj == NULL)
		return EINVAL;
	if (obj_type & MLX4DV_OBJ_QP)
		rc = dv_qp(obj->qp.in, obj->qp.out);
	if (rc == 0 && (obj_type & MLX4DV_OBJ_CQ))
		rc = dv_cq(obj->cq.in, obj->cq.out);
	if (rc == 0 && (obj_type & MLX4DV_OBJ_SRQ))
		rc = dv_srq(obj->srq.in, obj->srq.out);
	if (rc == 0 && (obj_type & MLX4DV_OBJ_RWQ))
		rc = dv_rwq(obj->rwq.in, obj->rwq.out);
	return rc;
}
