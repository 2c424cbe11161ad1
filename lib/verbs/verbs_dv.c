/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mlx5dv_init_obj for libmlx5.so.1: the mlx5 view of QPs, CQs, SRQs, AHs
 * and PDs, read from their mlx5-format rings (verbs_dv.h).
 */
#include <errno.h>
#include <string.h>

#include "verbs_int.h"
#include "verbs_dv.h"
#include "qp.h"

#ifdef DPV_HAVE_MLX5_RING
static int
dv_qp(struct ibv_qp *ibqp, struct mlx5dv_qp *out)
{
	struct dpv_qp *qp;

	if (ibqp == NULL || out == NULL)
		return EINVAL;
	qp = to_dqp(ibqp);
	dpv_mlx5_qp_to_dv(qp->has_sq ? &qp->sq : NULL,
			  qp->has_rq ? &qp->rq : NULL, out);
	/* none of the optional fields exists here */
	out->comp_mask = 0;
	return 0;
}

static int
dv_cq(struct ibv_cq *ibcq, struct mlx5dv_cq *out)
{
	if (ibcq == NULL || out == NULL)
		return EINVAL;
	dpv_mlx5_cq_to_dv(&to_dcq(ibcq)->ring, out);
	out->comp_mask = 0;
	return 0;
}

static int
dv_srq(struct ibv_srq *ibsrq, struct mlx5dv_srq *out)
{
	struct dpv_srq *srq;

	if (ibsrq == NULL || out == NULL)
		return EINVAL;
	srq = to_dsrq(ibsrq);
	dpv_mlx5_srq_to_dv(&srq->ring, out);
	if (out->comp_mask & MLX5DV_SRQ_MASK_SRQN) {
		out->srqn = srq->vsrq.srq_num;
		out->comp_mask = MLX5DV_SRQ_MASK_SRQN;
	} else {
		out->comp_mask = 0;
	}
	return 0;
}

static int
dv_ah(struct ibv_ah *ibah, struct mlx5dv_ah *out)
{
	if (ibah == NULL || out == NULL)
		return EINVAL;
	out->av = &to_dah(ibah)->mah.av;
	out->comp_mask = 0;
	return 0;
}

static int
dv_pd(struct ibv_pd *ibpd, struct mlx5dv_pd *out)
{
	if (ibpd == NULL || out == NULL)
		return EINVAL;
	out->pdn = dpv_pd_base(ibpd)->pdn;
	out->comp_mask = 0;
	return 0;
}

int
dpv_mlx5dv_init_obj(struct mlx5dv_obj *obj, uint64_t obj_type)
{
	int rc = 0;

	if (obj == NULL)
		return EINVAL;
	if (obj_type & MLX5DV_OBJ_QP)
		rc = dv_qp(obj->qp.in, obj->qp.out);
	if (rc == 0 && (obj_type & MLX5DV_OBJ_CQ))
		rc = dv_cq(obj->cq.in, obj->cq.out);
	if (rc == 0 && (obj_type & MLX5DV_OBJ_SRQ))
		rc = dv_srq(obj->srq.in, obj->srq.out);
	/* no WQ or device memory object can exist */
	if (rc == 0 && (obj_type & (MLX5DV_OBJ_RWQ | MLX5DV_OBJ_DM)))
		rc = EOPNOTSUPP;
	if (rc == 0 && (obj_type & MLX5DV_OBJ_AH))
		rc = dv_ah(obj->ah.in, obj->ah.out);
	if (rc == 0 && (obj_type & MLX5DV_OBJ_PD))
		rc = dv_pd(obj->pd.in, obj->pd.out);
	return rc;
}
#else
int
dpv_mlx5dv_init_obj(struct mlx5dv_obj *obj, uint64_t obj_type)
{
	RTE_SET_USED(obj_type);
	return obj == NULL ? EINVAL : EOPNOTSUPP;
}
#endif
