/* SPDX-License-Identifier: BSD-3-Clause */
/* mlx5 ring format: its operations table (struct dpv_ring_ops). */

#include "mlx5_ring_priv.h"

static bool
mlx5_wq_posted(const struct dpv_mlx5_wq *wq)
{
	return dpv_mlx5_wq_posted(wq);
}

const struct dpv_ring_ops dpv_mlx5_ring_ops = {
	.name = "mlx5",
	.caps = DPV_RING_CAP_WR_EX | DPV_RING_CAP_SCATTER_CQE |
		DPV_RING_CAP_CQ_RESIZE | DPV_RING_CAP_XRC | DPV_RING_CAP_RAW,
	.sq_init = dpv_mlx5_sq_init_tso,
	.rq_init = dpv_mlx5_rq_init,
	.srq_init = dpv_mlx5_srq_init,
	.cq_init = dpv_mlx5_cq_init,
	.cq_resize_prepare = dpv_mlx5_cq_resize_prepare,
	.cq_resize_commit = dpv_mlx5_cq_resize_commit,
	.qp_join = NULL,
	.post_send = dpv_mlx5_post_send,
	.post_recv = dpv_mlx5_post_recv,
	.cq_poll = dpv_mlx5_cq_poll,
	.cq_ex_next = dpv_mlx5_cq_ex_next,
	.cq_clean = dpv_mlx5_cq_clean,
	.wq_posted = mlx5_wq_posted,
	.sq_fetch = dpv_mlx5_sq_fetch,
	.cq_push = dpv_mlx5_cq_push,
	.cq_should_notify = dpv_mlx5_cq_should_notify,
	.flush = dpv_mlx5_flush,
};
