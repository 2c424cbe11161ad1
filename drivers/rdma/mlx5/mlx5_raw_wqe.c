/* SPDX-License-Identifier: BSD-3-Clause */
/* mlx5 ring personality: a WQE the application built (mlx5dv_wr_raw_wqe). */

#include <errno.h>

#include "mlx5_ring_priv.h"

void
dpv_mlx5_wr_raw(struct dpv_mlx5_sq *sq, uint64_t wr_id, const void *wqe)
{
	struct mlx5_wqe_ctrl_seg c;
	uint32_t ds, pos;
	int rc;

	bld_close(sq);
	if (sq->bld.err)
		return;
	memcpy(&c, wqe, sizeof(c));
	ds = be32toh(c.qpn_ds) & 0x3f;
	if (ds == 0) {
		bld_fail(sq, EINVAL);
		return;
	}
	if (!wr_room(sq)) {
		bld_fail(sq, ENOMEM);
		return;
	}
	rc = bld_room(sq, ds * 16);
	if (rc) {
		bld_fail(sq, rc);
		return;
	}
	pos = sq->cur_post << MLX5_SEND_WQE_SHIFT;
	mlx5r_copy_in(&sq->wq, pos, wqe, ds * 16);
	c.opmod_idx_opcode =
		htobe32((be32toh(c.opmod_idx_opcode) & 0xff0000ffu) |
			((sq->cur_post & 0xffff) << 8));
	mlx5r_copy_in(&sq->wq, pos, &c.opmod_idx_opcode,
		      sizeof(c.opmod_idx_opcode));
	wqe_commit(sq, wr_id, (ds * 16 + MLX5_SEND_WQE_BB - 1) / MLX5_SEND_WQE_BB,
		   IBV_WC_DRIVER2, false);
}
