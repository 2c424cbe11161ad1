/* SPDX-License-Identifier: BSD-3-Clause */
/* mlx5 ring format: its operations table (struct dpv_ring_ops). */

#include "mlx5_ring_priv.h"

static bool
mlx5_wq_posted(const struct dpv_mlx5_wq *wq)
{
	return dpv_mlx5_wq_posted(wq);
}

/* The entries both mlx5 tables share: the queues, and the CQ resize
 * (which takes either CQE size). */
#define MLX5_QUEUE_OPS                                                         \
	.caps = DPV_RING_CAP_WR_EX | DPV_RING_CAP_SCATTER_CQE |                \
		DPV_RING_CAP_CQ_RESIZE | DPV_RING_CAP_XRC | DPV_RING_CAP_RAW | \
		DPV_RING_CAP_RSS,                                              \
	.cq_resize_prepare = dpv_mlx5_cq_resize_prepare,                       \
	.cq_resize_commit = dpv_mlx5_cq_resize_commit,                         \
	.sq_init = dpv_mlx5_sq_init_tso, .rq_init = dpv_mlx5_rq_init,          \
	.srq_init = dpv_mlx5_srq_init, .qp_join = NULL,                        \
	.post_send = dpv_mlx5_post_send, .post_recv = dpv_mlx5_post_recv,      \
	.wq_posted = mlx5_wq_posted, .sq_fetch = dpv_mlx5_sq_fetch,            \
	.flush = dpv_mlx5_flush

const struct dpv_ring_ops dpv_mlx5_ring_ops = {
	.name = "mlx5",
	MLX5_QUEUE_OPS,
	.cq_init = dpv_mlx5_cq_init,
	.cq_poll = dpv_mlx5_cq_poll,
	.cq_ex_next = dpv_mlx5_cq_ex_next,
	.cq_clean = dpv_mlx5_cq_clean,
	.cq_push = dpv_mlx5_cq_push,
	.cq_should_notify = dpv_mlx5_cq_should_notify,
};

static int
mlx5_cq128_init(struct dpv_mlx5_cq *cq, unsigned int min_cqe, int socket)
{
	return dpv_mlx5_cq_init_sz(cq, min_cqe, socket, 128, false);
}

/* The queue entries are the mlx5 ones: a queue never points here. */
const struct dpv_ring_ops dpv_mlx5_cqe128_ring_ops = {
	.name = "mlx5-cqe128",
	MLX5_QUEUE_OPS,
	.cq_init = mlx5_cq128_init,
	.cq_poll = dpv_mlx5_cq128_poll,
	.cq_ex_next = dpv_mlx5_cq128_ex_next,
	.cq_clean = dpv_mlx5_cq128_clean,
	.cq_push = dpv_mlx5_cq128_push,
	.cq_should_notify = dpv_mlx5_cq128_should_notify,
};
