/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Scatter to CQE, application side: a CQE flagged MLX5_INLINE_SCATTER_32
 * carries its data (up to 32 bytes) in its first 32 bytes; ibv_poll_cq
 * copies it into the buffers of the WQE it completes, as rdma-core's mlx5
 * provider does: the receive WQE's data segments, or the data segments
 * that follow the remote-address (and atomic) segment of a READ / atomic
 * send WQE. Both WQEs are still in the application's rings when their
 * CQE is polled.
 */
#include "mlx5_ring_priv.h"

/* Copy len bytes into up to n data segments at seg; 0 or an ibv_wc
 * status. */
static int
to_segs(const struct mlx5_wqe_data_seg *seg, uint32_t n, const uint8_t *src,
	uint32_t len)
{
	for (uint32_t i = 0; i < n && len > 0; i++) {
		uint32_t c;

		if (be32toh(seg[i].lkey) == MLX5_INVALID_LKEY)
			break;
		c = RTE_MIN(len, be32toh(seg[i].byte_count));
		memcpy((void *)(uintptr_t)be64toh(seg[i].addr), src, c);
		src += c;
		len -= c;
	}
	return len == 0 ? IBV_WC_SUCCESS : IBV_WC_LOC_LEN_ERR;
}

int
dpv_mlx5_scat_to_recv(struct dpv_mlx5_wq *wq, uint16_t wqe_ctr, const void *src,
		      uint32_t len)
{
	const uint8_t *slot;

	if (wq == NULL || len > DPV_CQE_SCAT_MAX ||
	    (wq->kind != DPV_MLX5_WQ_RQ && wq->kind != DPV_MLX5_WQ_SRQ))
		return IBV_WC_GENERAL_ERR;
	slot = wq->buf +
	       ((uint32_t)(wqe_ctr & (wq->wqe_cnt - 1)) << wq->wqe_shift);
	if (wq->kind == DPV_MLX5_WQ_SRQ)
		slot += sizeof(struct mlx5_wqe_srq_next_seg);
	return to_segs((const void *)slot, wq->max_gs, src, len);
}

int
dpv_mlx5_scat_to_send(struct dpv_mlx5_wq *wq, uint16_t wqe_ctr, const void *src,
		      uint32_t len)
{
	struct dpv_mlx5_sq *sq = (struct dpv_mlx5_sq *)wq;
	struct mlx5_wqe_data_seg seg[DPV_MLX5_MAX_SEND_SGE];
	struct mlx5_wqe_ctrl_seg c;
	uint32_t base, off, ds, n;

	if (wq == NULL || wq->kind != DPV_MLX5_WQ_SQ || len > DPV_CQE_SCAT_MAX)
		return IBV_WC_GENERAL_ERR;
	base = (uint32_t)wqe_ctr << MLX5_SEND_WQE_SHIFT;
	mlx5r_copy_out(wq, base, &c, sizeof(c));
	ds = be32toh(c.qpn_ds) & 0x3f;
	switch (be32toh(c.opmod_idx_opcode) & 0xff) {
	case MLX5_OPCODE_RDMA_READ:
		off = sizeof(c) + sizeof(struct mlx5_wqe_raddr_seg);
		break;
	case MLX5_OPCODE_ATOMIC_CS:
	case MLX5_OPCODE_ATOMIC_FA:
		off = sizeof(c) + sizeof(struct mlx5_wqe_raddr_seg) +
		      sizeof(struct mlx5_wqe_atomic_seg);
		break;
	default:
		return IBV_WC_GENERAL_ERR;
	}
	if (sq->type == IBV_QPT_XRC_SEND)
		off += sizeof(struct dpv_mlx5_wqe_xrc_seg);
	if (ds * 16 <= off)
		return IBV_WC_LOC_LEN_ERR;
	n = RTE_MIN((ds * 16 - off) / 16, (uint32_t)DPV_MLX5_MAX_SEND_SGE);
	mlx5r_copy_out(wq, base + off, seg, n * sizeof(seg[0]));
	return to_segs(seg, n, src, len);
}
