/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * QP options that ConnectX sets per QP at creation (lib/engine's
 * dpv_engine_opts.h): scatter to CQE and packet-based end-to-end credits
 * (RC, MLX5DV_QP_CREATE_PACKET_BASED_CREDIT_MODE; message-based without
 * it). As rdma-core's mlx5 provider and the kernel's mlx5 driver choose
 * scatter to CQE:
 *  - responder: on for RC and UC QPs unless MLX5_SCATTER_TO_CQE=0 is in
 *    the environment or mlx5dv_create_qp() gives
 *    MLX5DV_QP_CREATE_DISABLE_SCATTER_TO_CQE;
 *  - requester (RC): the same, and only if every WR is signalled
 *    (sq_sig_all) or MLX5DV_QP_CREATE_ALLOW_SCATTER_TO_CQE is given.
 * And the UDP source port of an RC / UC QP in RTS
 * (mlx5dv_modify_qp_udp_sport()).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mlx5dv.h>

#include "qp.h"
#include "verbs_dv.h"
#include "dpv_engine_opts.h"

static bool
scatter_default(void)
{
	const char *v = getenv("MLX5_SCATTER_TO_CQE");

	return v == NULL || strcmp(v, "0") != 0;
}

static uint32_t
opts_for(const struct dpv_qp *qp, bool scatter, bool allow, bool credit_pkt)
{
	enum ibv_qp_type t = qp->qpex.qp_base.qp_type;
	uint32_t o = credit_pkt ? DPV_QP_OPT_CREDIT_PKT : 0;

	/* a ring format without scatter to CQE: a 32-byte mlx4 CQE carries
	 * no data (ConnectX-3 has none) */
	if (!scatter || !(qp->dev->ring_ops->caps & DPV_RING_CAP_SCATTER_CQE) ||
	    (t != IBV_QPT_RC && t != IBV_QPT_UC))
		return 0;
	o |= DPV_QP_OPT_SCAT_RESP;
	if (t == IBV_QPT_RC && (allow || qp->sq_sig_all))
		o |= DPV_QP_OPT_SCAT_REQ;
	return o;
}

static int
opts_push(struct dpv_qp *qp, uint32_t o)
{
	int rc;

	if (qp->engine == NULL)
		return 0;
	rc = dpv_engine_qp_opts_set(qp->engine, qp->qpex.qp_base.qp_num, o);
	return rc < 0 ? -rc : 0;
}

int
dpv_qp_opts_setup(struct dpv_qp *qp)
{
	return opts_push(qp, opts_for(qp, scatter_default(), false, false));
}

int
dpv_qp_mlx5_create_flags(struct ibv_qp *ibqp, uint32_t flags)
{
	const uint32_t scat = MLX5DV_QP_CREATE_DISABLE_SCATTER_TO_CQE |
			      MLX5DV_QP_CREATE_ALLOW_SCATTER_TO_CQE;
	const uint32_t credit = MLX5DV_QP_CREATE_PACKET_BASED_CREDIT_MODE;
	const uint32_t sigp = MLX5DV_QP_CREATE_SIG_PIPELINING;
	struct dpv_qp *qp;
	bool scatter;
	int rc;

	if (ibqp == NULL || (flags & ~(scat | credit | sigp)) ||
	    (flags & scat) == scat ||
	    ((flags & (credit | sigp)) && ibqp->qp_type != IBV_QPT_RC))
		return EINVAL;
	qp = to_dqp(ibqp);
	scatter = (flags & MLX5DV_QP_CREATE_ALLOW_SCATTER_TO_CQE) ||
		  (!(flags & MLX5DV_QP_CREATE_DISABLE_SCATTER_TO_CQE) &&
		   scatter_default());
	pthread_mutex_lock(&qp->lock);
	rc = opts_push(qp,
		       opts_for(qp, scatter,
				flags & MLX5DV_QP_CREATE_ALLOW_SCATTER_TO_CQE,
				flags & credit) |
			       (flags & sigp ? DPV_QP_OPT_SIG_PIPE : 0));
	pthread_mutex_unlock(&qp->lock);
	return rc;
}

int
dpv_qp_mlx5_udp_sport(struct ibv_qp *ibqp, uint16_t sport)
{
	struct dpv_qp *qp;
	int rc;

	if (ibqp == NULL || sport == 0)
		return EINVAL;
	qp = to_dqp(ibqp);
	/* as rdma-core's provider: RC / UC in RTS, else EOPNOTSUPP */
	if ((ibqp->qp_type != IBV_QPT_RC && ibqp->qp_type != IBV_QPT_UC) ||
	    qp->engine == NULL)
		return EOPNOTSUPP;
	pthread_mutex_lock(&qp->lock);
	rc = dpv_engine_qp_udp_sport_set(qp->engine, ibqp->qp_num, sport);
	pthread_mutex_unlock(&qp->lock);
	return rc < 0 ? -rc : 0;
}

/* The SQ's wr_id of a WQE index (as its CQE would carry it). */
struct cancel_arg {
	const struct dpv_qp *qp;
	uint64_t wr_id;
};

static bool
cancel_match(void *arg, uint16_t wqe_index)
{
	const struct cancel_arg *a = arg;
	const struct dpv_mlx5_sq *sq = &a->qp->sq;

	return sq->slot[wqe_index & (sq->wq.wqe_cnt - 1)].wr_id == a->wr_id;
}

int
dpv_qp_mlx5_cancel_send(struct mlx5dv_qp_ex *mqp, uint64_t wr_id)
{
	struct dpv_qp *qp = container_of(mqp, struct dpv_qp, dv_qpex);
	struct cancel_arg a = { qp, wr_id };
	int rc;

	if (qp->engine == NULL)
		return -EOPNOTSUPP;
	pthread_mutex_lock(&qp->lock);
	rc = dpv_engine_qp_cancel_send(qp->engine, qp->qpex.qp_base.qp_num,
				       cancel_match, &a);
	pthread_mutex_unlock(&qp->lock);
	return rc;
}
