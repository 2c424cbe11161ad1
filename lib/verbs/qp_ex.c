/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ibv_qp_ex work-request builders (ibv_wr_post(3)) over the mlx5 send
 * ring's builder: wr_start takes the send-queue lock and opens a batch,
 * each wr_<opcode> starts a WQE that the wr_set_* calls complete,
 * wr_complete rings the doorbell (or returns the batch's first error with
 * nothing posted), wr_abort drops the batch.
 */
#include <errno.h>
#include <string.h>

#include "qp.h"

static inline struct dpv_mlx5_sq *
xsq(struct ibv_qp_ex *x)
{
	return &to_dqp_ex(x)->sq;
}

/* Start a WQE of opcode op; false if the ring refused it. */
static bool
op(struct ibv_qp_ex *x, enum ibv_wr_opcode o)
{
	return dpv_mlx5_wr_op(xsq(x), x->wr_id, x->wr_flags, o) == 0;
}

static void
wr_send(struct ibv_qp_ex *x)
{
	op(x, IBV_WR_SEND);
}

static void
wr_send_imm(struct ibv_qp_ex *x, __be32 imm)
{
	if (op(x, IBV_WR_SEND_WITH_IMM))
		dpv_mlx5_wr_imm(xsq(x), imm);
}

static void
wr_send_inv(struct ibv_qp_ex *x, uint32_t rkey)
{
	if (op(x, IBV_WR_SEND_WITH_INV))
		dpv_mlx5_wr_inv(xsq(x), rkey);
}

static void
wr_send_tso(struct ibv_qp_ex *x, void *hdr, uint16_t hdr_sz, uint16_t mss)
{
	if (op(x, IBV_WR_TSO))
		dpv_mlx5_wr_tso(xsq(x), hdr, hdr_sz, mss);
}

static void
wr_rdma_write(struct ibv_qp_ex *x, uint32_t rkey, uint64_t addr)
{
	if (op(x, IBV_WR_RDMA_WRITE))
		dpv_mlx5_wr_rdma(xsq(x), rkey, addr);
}

static void
wr_rdma_write_imm(struct ibv_qp_ex *x, uint32_t rkey, uint64_t addr, __be32 imm)
{
	if (op(x, IBV_WR_RDMA_WRITE_WITH_IMM)) {
		dpv_mlx5_wr_rdma(xsq(x), rkey, addr);
		dpv_mlx5_wr_imm(xsq(x), imm);
	}
}

static void
wr_rdma_read(struct ibv_qp_ex *x, uint32_t rkey, uint64_t addr)
{
	if (op(x, IBV_WR_RDMA_READ))
		dpv_mlx5_wr_rdma(xsq(x), rkey, addr);
}

static void
wr_atomic_cmp_swp(struct ibv_qp_ex *x, uint32_t rkey, uint64_t addr,
		  uint64_t compare, uint64_t swap)
{
	if (op(x, IBV_WR_ATOMIC_CMP_AND_SWP))
		dpv_mlx5_wr_atomic(xsq(x), rkey, addr, compare, swap);
}

static void
wr_atomic_fetch_add(struct ibv_qp_ex *x, uint32_t rkey, uint64_t addr,
		    uint64_t add)
{
	if (op(x, IBV_WR_ATOMIC_FETCH_AND_ADD))
		dpv_mlx5_wr_atomic(xsq(x), rkey, addr, add, 0);
}

static void
wr_atomic_write(struct ibv_qp_ex *x, uint32_t rkey, uint64_t addr,
		const void *val)
{
	if (op(x, IBV_WR_ATOMIC_WRITE))
		dpv_mlx5_wr_atomic_write(xsq(x), rkey, addr, val);
}

static void
wr_local_inv(struct ibv_qp_ex *x, uint32_t rkey)
{
	if (op(x, IBV_WR_LOCAL_INV))
		dpv_mlx5_wr_local_inv(xsq(x), rkey);
}

static void
wr_bind_mw(struct ibv_qp_ex *x, struct ibv_mw *mw, uint32_t rkey,
	   const struct ibv_mw_bind_info *info)
{
	if (mw == NULL || info == NULL) {
		/* let the ring record the error: an op it refuses */
		dpv_mlx5_wr_op(xsq(x), x->wr_id, x->wr_flags,
			       (enum ibv_wr_opcode) - 1);
		return;
	}
	if (op(x, IBV_WR_BIND_MW))
		dpv_mlx5_wr_bind_mw(xsq(x), mw->rkey, rkey, mw->type, info);
}

static void
wr_set_ud_addr(struct ibv_qp_ex *x, struct ibv_ah *ah, uint32_t qpn,
	       uint32_t qkey)
{
	dpv_mlx5_wr_ud_addr(xsq(x), ah, qpn, qkey);
}

static void
wr_set_xrc_srqn(struct ibv_qp_ex *x, uint32_t srqn)
{
	dpv_mlx5_wr_xrc_srqn(xsq(x), srqn);
}

static void
wr_set_sge(struct ibv_qp_ex *x, uint32_t lkey, uint64_t addr, uint32_t len)
{
	struct ibv_sge sge = {.addr = addr, .length = len, .lkey = lkey};

	dpv_mlx5_wr_sge_list(xsq(x), 1, &sge);
}

static void
wr_set_sge_list(struct ibv_qp_ex *x, size_t n, const struct ibv_sge *list)
{
	dpv_mlx5_wr_sge_list(xsq(x), n, list);
}

static void
wr_set_inline_data(struct ibv_qp_ex *x, void *addr, size_t len)
{
	struct ibv_data_buf buf = {.addr = addr, .length = len};

	dpv_mlx5_wr_inline_list(xsq(x), 1, &buf);
}

static void
wr_set_inline_data_list(struct ibv_qp_ex *x, size_t n,
			const struct ibv_data_buf *bufs)
{
	dpv_mlx5_wr_inline_list(xsq(x), n, bufs);
}

static void
wr_start(struct ibv_qp_ex *x)
{
	struct dpv_qp *qp = to_dqp_ex(x);

	dpv_vlock_lock(&qp->sq_lock);
	qp->wr_active = true;
	dpv_mlx5_wr_start(&qp->sq, x->qp_base.qp_type, x->qp_base.qp_num);
}

static int
wr_complete(struct ibv_qp_ex *x)
{
	struct dpv_qp *qp = to_dqp_ex(x);
	enum ibv_qp_state s = dpv_qp_state(qp);
	int rc;

	if (!qp->wr_active)
		return EINVAL;
	if (s == IBV_QPS_RESET || s == IBV_QPS_INIT || s == IBV_QPS_RTR) {
		/* as ibv_post_send: nothing is posted on a QP not yet RTS */
		dpv_mlx5_wr_abort(&qp->sq);
		rc = EINVAL;
	} else {
		rc = dpv_mlx5_wr_complete(&qp->sq);
	}
	qp->wr_active = false;
	dpv_vlock_unlock(&qp->sq_lock);
	if (rc == 0)
		dpv_qp_after_post(qp);
	return rc;
}

static void
wr_abort(struct ibv_qp_ex *x)
{
	struct dpv_qp *qp = to_dqp_ex(x);

	if (!qp->wr_active)
		return;
	dpv_mlx5_wr_abort(&qp->sq);
	qp->wr_active = false;
	dpv_vlock_unlock(&qp->sq_lock);
}

int
dpv_qp_ex_init(struct dpv_qp *qp)
{
	struct ibv_qp_ex *x = &qp->qpex;
	uint64_t f = qp->send_ops_flags;
	enum ibv_qp_type t = x->qp_base.qp_type;

	x->comp_mask = 0;
	if (f & IBV_QP_EX_WITH_SEND)
		x->wr_send = wr_send;
	if (f & IBV_QP_EX_WITH_SEND_WITH_IMM)
		x->wr_send_imm = wr_send_imm;
	if (f & IBV_QP_EX_WITH_SEND_WITH_INV)
		x->wr_send_inv = wr_send_inv;
	if (f & IBV_QP_EX_WITH_TSO)
		x->wr_send_tso = wr_send_tso;
	if (f & IBV_QP_EX_WITH_RDMA_WRITE)
		x->wr_rdma_write = wr_rdma_write;
	if (f & IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM)
		x->wr_rdma_write_imm = wr_rdma_write_imm;
	if (f & IBV_QP_EX_WITH_RDMA_READ)
		x->wr_rdma_read = wr_rdma_read;
	if (f & IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP)
		x->wr_atomic_cmp_swp = wr_atomic_cmp_swp;
	if (f & IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD)
		x->wr_atomic_fetch_add = wr_atomic_fetch_add;
	if (f & IBV_QP_EX_WITH_ATOMIC_WRITE)
		x->wr_atomic_write = wr_atomic_write;
	if (f & IBV_QP_EX_WITH_LOCAL_INV)
		x->wr_local_inv = wr_local_inv;
	if (f & IBV_QP_EX_WITH_BIND_MW)
		x->wr_bind_mw = wr_bind_mw;
	if (t == IBV_QPT_UD)
		x->wr_set_ud_addr = wr_set_ud_addr;
	if (t == IBV_QPT_XRC_SEND)
		x->wr_set_xrc_srqn = wr_set_xrc_srqn;
	x->wr_set_sge = wr_set_sge;
	x->wr_set_sge_list = wr_set_sge_list;
	x->wr_set_inline_data = wr_set_inline_data;
	x->wr_set_inline_data_list = wr_set_inline_data_list;
	x->wr_start = wr_start;
	x->wr_complete = wr_complete;
	x->wr_abort = wr_abort;
	return 0;
}
