/* SPDX-License-Identifier: BSD-3-Clause */
/* mlx5 ring personality: receive queues, SRQ, completion queues (push /
 * poll / owner bit / overrun), flush and arm/notify. */

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <endian.h>

#include <rte_memory.h>

#include "dpv_test.h"
#include "mlx5_ring.h"

_Static_assert(sizeof(struct mlx5_cqe64) == 64, "");
_Static_assert(offsetof(struct mlx5_cqe64, srqn_uidx) == 32, "");
_Static_assert(offsetof(struct mlx5_cqe64, imm_inval_pkey) == 36, "");
_Static_assert(offsetof(struct mlx5_cqe64, byte_cnt) == 44, "");
_Static_assert(offsetof(struct mlx5_cqe64, timestamp) == 48, "");
_Static_assert(offsetof(struct mlx5_cqe64, sop_drop_qpn) == 56, "");
_Static_assert(offsetof(struct mlx5_cqe64, wqe_counter) == 60, "");
_Static_assert(offsetof(struct mlx5_cqe64, op_own) == 63, "");
_Static_assert(offsetof(struct mlx5_cqe64, flags_rqpn) == 24, "");
_Static_assert(offsetof(struct mlx5_cqe64, slid) == 22, "");
_Static_assert(offsetof(struct mlx5_err_cqe, srqn) == 32, "");
_Static_assert(offsetof(struct mlx5_err_cqe, vendor_err_synd) == 54, "");
_Static_assert(offsetof(struct mlx5_err_cqe, syndrome) == 55, "");
_Static_assert(offsetof(struct mlx5_err_cqe, s_wqe_opcode_qpn) == 56, "");

#define QPN  0x000321u
#define SRQN 0x77u

static struct dpv_mlx5_sq sq;
static struct dpv_mlx5_rq rq, srq;
static struct dpv_mlx5_cq cq;

static struct dpv_mlx5_wq *
lookup(void *arg, uint32_t qpn, bool recv)
{
	RTE_SET_USED(arg);
	if (qpn == (DPV_MLX5_LOOKUP_SRQ | SRQN))
		return recv ? &srq.wq : NULL;
	if (qpn != QPN)
		return NULL;
	return recv ? &rq.wq : &sq.wq;
}

/* A lookup that knows no SRQ numbers: the QP's receive side is its SRQ. */
static struct dpv_mlx5_wq *
lookup_qp_srq(void *arg, uint32_t qpn, bool recv)
{
	RTE_SET_USED(arg);
	if (qpn != QPN)
		return NULL;
	return recv ? &srq.wq : &sq.wq;
}

static int
suite_setup(void)
{
	return dpv_test_eal_init() == 0 ? TEST_SUCCESS : TEST_SKIPPED;
}

static int
setup(void)
{
	if (dpv_mlx5_sq_init(&sq, 8, 2, 32, SOCKET_ID_ANY) ||
	    dpv_mlx5_rq_init(&rq, 4, 3, SOCKET_ID_ANY) ||
	    dpv_mlx5_srq_init(&srq, 4, 2, SOCKET_ID_ANY) ||
	    dpv_mlx5_cq_init(&cq, 3, SOCKET_ID_ANY))
		return TEST_FAILED;
	dpv_mlx5_qp_link_dbrec(&sq, &rq);
	return TEST_SUCCESS;
}

static void
teardown(void)
{
	dpv_mlx5_sq_fini(&sq);
	dpv_mlx5_rq_fini(&rq);
	dpv_mlx5_rq_fini(&srq);
	dpv_mlx5_cq_fini(&cq);
}

static int
post_recv(struct dpv_mlx5_rq *q, uint64_t id, int nsge)
{
	struct ibv_sge sg[4] = {
		{0x1000 + id, 10, 1},
		{0x2000, 0, 2},
		{0x3000, 30, 3},
		{0x4000, 40, 4},
	};
	struct ibv_recv_wr wr = {.wr_id = id, .sg_list = sg, .num_sge = nsge};
	struct ibv_recv_wr *bad = NULL;

	return dpv_mlx5_post_recv(q, &wr, &bad);
}

static int
post_send(uint64_t id, unsigned int flags)
{
	struct ibv_sge sg = {0x9000, 16, 9};
	struct ibv_send_wr wr = {.wr_id = id,
				 .sg_list = &sg,
				 .num_sge = 1,
				 .opcode = IBV_WR_SEND,
				 .send_flags = flags};
	struct ibv_send_wr *bad = NULL;

	return dpv_mlx5_post_send(&sq, IBV_QPT_RC, QPN, &wr, &bad);
}

/*
 * The engine's direct CQE writers (dpv_mlx5_cq_push_req() and
 * dpv_mlx5_cq_push_recv()) write the bytes dpv_mlx5_cq_push() writes
 * for the same completion, owner bit in, over opcodes, flags, lengths,
 * SRQ numbers and the ring's laps; and both refuse a full ring alike.
 */
static int
test_cq_push_direct(void)
{
	static const enum ibv_wc_opcode req_ops[] = {
		IBV_WC_SEND,	 IBV_WC_RDMA_WRITE, IBV_WC_RDMA_READ,
		IBV_WC_COMP_SWAP, IBV_WC_FETCH_ADD, IBV_WC_LOCAL_INV,
		IBV_WC_BIND_MW};
	static const unsigned int recv_flags[] = {
		0, IBV_WC_WITH_IMM, IBV_WC_WITH_INV, IBV_WC_GRH,
		IBV_WC_WITH_IMM | IBV_WC_GRH};
	static const uint32_t lens[] = {0, 1, 64, 0x12345678};
	struct dpv_mlx5_cq g, d;
	unsigned int n = 0;
	int ret = TEST_FAILED;

	if (dpv_mlx5_cq_init(&g, 31, SOCKET_ID_ANY))
		return TEST_FAILED;
	if (dpv_mlx5_cq_init(&d, 31, SOCKET_ID_ANY)) {
		dpv_mlx5_cq_fini(&g);
		return TEST_FAILED;
	}
	for (int pass = 0; pass < 2; pass++) {
		for (unsigned int i = 0; i < 400; i++, n++) {
			struct dpv_cqe_info ci = {
				.status = IBV_WC_SUCCESS,
				.qpn = QPN + (i % 3) * 0x10000,
				.wqe_counter = (uint16_t)(i * 977),
				.byte_len = lens[i % RTE_DIM(lens)],
			};
			uint32_t idx = g.prod_index & (g.cqe_cnt - 1);
			int rg, rd;

			if (pass == 0) {
				ci.opcode = req_ops[i % RTE_DIM(req_ops)];
				ci.wc_flags = (i / 7) % 2 ? IBV_WC_WITH_IMM : 0;
				rg = dpv_mlx5_cq_push(&g, &ci);
				rd = dpv_mlx5_cq_push_req(&d, ci.qpn,
							  ci.wqe_counter,
							  ci.opcode,
							  ci.wc_flags,
							  ci.byte_len);
			} else {
				ci.is_recv = true;
				ci.wc_flags =
					recv_flags[i % RTE_DIM(recv_flags)];
				ci.opcode = (i / 5) % 3 == 0 &&
							    !(ci.wc_flags &
							      IBV_WC_WITH_INV)
						    ? IBV_WC_RECV_RDMA_WITH_IMM
						    : IBV_WC_RECV;
				if (ci.opcode == IBV_WC_RECV_RDMA_WITH_IMM)
					ci.wc_flags |= IBV_WC_WITH_IMM;
				ci.imm_data = 0xdeadbe00u + i;
				if (ci.wc_flags & IBV_WC_WITH_INV) {
					ci.invalidated_rkey = ci.imm_data;
					ci.imm_data = 0;
				}
				ci.src_qp = (i / 11) % 2 ? 0xabcdefu : 0;
				ci.srqn = (i / 13) % 2 ? SRQN : 0;
				ci.solicited = (i / 17) % 2;
				rg = dpv_mlx5_cq_push(&g, &ci);
				rd = dpv_mlx5_cq_push_recv(
					&d, ci.qpn, ci.wqe_counter, ci.opcode,
					ci.wc_flags, ci.byte_len,
					(ci.wc_flags & IBV_WC_WITH_INV)
						? ci.invalidated_rkey
						: ci.imm_data,
					ci.src_qp, ci.srqn, ci.solicited);
			}
			if (rg != 0 || rd != 0) {
				DPV_TEST_LOG("push %u: %d / %d", n, rg, rd);
				goto out;
			}
			if (memcmp(&g.buf[idx], &d.buf[idx],
				   sizeof(g.buf[idx])) != 0) {
				DPV_TEST_LOG("CQE %u (pass %d) differs", n,
					     pass);
				goto out;
			}
			/* consumed: the ring laps, the owner bit turns */
			g.dbrec[0] = htobe32(g.prod_index & 0xffffff);
			d.dbrec[0] = htobe32(d.prod_index & 0xffffff);
		}
	}
	/* a full ring: both refuse, neither moves */
	for (unsigned int i = 0; i < g.cqe_cnt; i++)
		if (dpv_mlx5_cq_push_req(&d, QPN, 0, IBV_WC_SEND, 0, 1) != 0)
			goto out;
	if (dpv_mlx5_cq_push_req(&d, QPN, 0, IBV_WC_SEND, 0, 1) != ENOSPC ||
	    dpv_mlx5_cq_push_recv(&d, QPN, 0, IBV_WC_RECV, 0, 1, 0, 0, 0,
				  false) != ENOSPC) {
		DPV_TEST_LOG("a full ring took a CQE");
		goto out;
	}
	ret = TEST_SUCCESS;
out:
	dpv_mlx5_cq_fini(&g);
	dpv_mlx5_cq_fini(&d);
	return ret;
}

static int
test_init_caps(void)
{
	struct dpv_mlx5_rq r;
	struct dpv_mlx5_cq c;

	TEST_ASSERT_EQUAL(dpv_mlx5_rq_init(&r, 0, 1, SOCKET_ID_ANY), EINVAL,
			  "");
	TEST_ASSERT_EQUAL(dpv_mlx5_rq_init(&r, 1, 0, SOCKET_ID_ANY), EINVAL,
			  "");
	TEST_ASSERT_EQUAL(dpv_mlx5_rq_init(&r, 1, 33, SOCKET_ID_ANY), EINVAL,
			  "");
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_init(&c, 0, SOCKET_ID_ANY), EINVAL, "");
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_init(&c, DPV_MLX5_MAX_CQE, SOCKET_ID_ANY),
			  EINVAL, "");
	TEST_ASSERT_EQUAL(rq.wq.max_post, 4, "");
	TEST_ASSERT_EQUAL(rq.wq.wqe_shift, 6, "3 sge -> 64-byte stride");
	TEST_ASSERT_EQUAL(rq.wq.max_gs, 4, "");
	TEST_ASSERT_EQUAL(srq.wq.wqe_cnt, 8, "");
	TEST_ASSERT_EQUAL(srq.wq.max_post, 7, "");
	TEST_ASSERT_EQUAL(cq.cqe_cnt, 4, "");
	TEST_ASSERT_EQUAL(cq.cqe, 3, "");
	TEST_ASSERT_EQUAL(cq.buf[0].op_own >> 4, MLX5_CQE_INVALID, "");
	/* one record block for the QP: [RCV]=RQ, [SND]=SQ */
	TEST_ASSERT(sq.wq.db == &rq.wq.dbrec[MLX5_SND_DBR], "");
	TEST_ASSERT(rq.wq.db == &rq.wq.dbrec[MLX5_RCV_DBR], "");
	return TEST_SUCCESS;
}

static int
test_rq_round_trip(void)
{
	struct dpv_recv_wr out;
	const struct mlx5_wqe_data_seg *d;
	struct ibv_sge sg = {1, 1, 1};
	struct ibv_recv_wr wr = {.sg_list = &sg, .num_sge = 5};
	struct ibv_recv_wr *bad = NULL;
	int i;

	TEST_ASSERT(!dpv_mlx5_rq_fetch(&rq, &out), "empty");
	TEST_ASSERT_EQUAL(post_recv(&rq, 1, 3), 0, "");
	TEST_ASSERT_EQUAL(post_recv(&rq, 2, 4), 0, "");
	TEST_ASSERT_EQUAL(be32toh(rq.wq.dbrec[MLX5_RCV_DBR]), 2, "");
	/* first WQE: 2 segments (zero-length skipped) + terminator */
	d = (const void *)rq.wq.buf;
	TEST_ASSERT_EQUAL(be32toh(d[2].lkey), MLX5_INVALID_LKEY, "");
	TEST_ASSERT_EQUAL(be32toh(d[0].byte_count), 10, "");
	TEST_ASSERT(dpv_mlx5_rq_fetch(&rq, &out), "");
	TEST_ASSERT_EQUAL(out.wqe_index, 0, "");
	TEST_ASSERT_EQUAL(out.num_sge, 2, "");
	TEST_ASSERT_EQUAL(out.sg_list[0].addr, 0x1001, "");
	TEST_ASSERT_EQUAL(out.sg_list[1].lkey, 3, "");
	TEST_ASSERT_EQUAL(out.total_len, 40, "");
	TEST_ASSERT(dpv_mlx5_rq_fetch(&rq, &out), "");
	TEST_ASSERT_EQUAL(out.num_sge, 3, "");
	TEST_ASSERT_EQUAL(out.total_len, 80, "");
	TEST_ASSERT(!dpv_mlx5_rq_fetch(&rq, &out), "");
	/* full and bad */
	TEST_ASSERT_EQUAL(post_recv(&rq, 3, 1), 0, "");
	TEST_ASSERT_EQUAL(post_recv(&rq, 4, 1), 0, "");
	TEST_ASSERT_EQUAL(post_recv(&rq, 5, 1), ENOMEM, "");
	rq.wq.tail = rq.wq.head - 2;
	TEST_ASSERT_EQUAL(dpv_mlx5_post_recv(&rq, &wr, &bad), EINVAL, "");
	TEST_ASSERT(bad == &wr, "");
	/* wrap: post and fetch many */
	for (i = 0; i < 20; i++) {
		rq.wq.tail = rq.wq.head;
		TEST_ASSERT_EQUAL(post_recv(&rq, 100 + i, 4), 0, "");
		TEST_ASSERT(dpv_mlx5_rq_fetch(&rq, &out), "");
		TEST_ASSERT(dpv_mlx5_rq_fetch(&rq, &out) || i > 0, "");
	}
	return TEST_SUCCESS;
}

static int
test_srq(void)
{
	struct dpv_recv_wr out[7];
	struct dpv_cqe_info ci = {.is_recv = true,
				  .opcode = IBV_WC_RECV,
				  .qpn = QPN,
				  .srqn = SRQN};
	struct ibv_wc wc;
	int i, round;

	for (i = 0; i < 7; i++)
		TEST_ASSERT_EQUAL(post_recv(&srq, 10 + i, 2), 0, "%d", i);
	TEST_ASSERT_EQUAL(post_recv(&srq, 99, 1), ENOMEM, "srq full");
	TEST_ASSERT_EQUAL(be32toh(srq.wq.dbrec[0]), 7, "srq counter");
	for (i = 0; i < 7; i++) {
		TEST_ASSERT(dpv_mlx5_rq_fetch(&srq, &out[i]), "");
		TEST_ASSERT_EQUAL(out[i].wqe_index, i, "list order");
		TEST_ASSERT_EQUAL(out[i].sg_list[0].addr, 0x1000 + 10 + i, "");
	}
	TEST_ASSERT(!dpv_mlx5_rq_fetch(&srq, &out[0]), "");
	/* complete out of order: 5, 2, 6 -> those slots come back */
	for (round = 0; round < 3; round++) {
		static const int pick[3] = {5, 2, 6};

		ci.wqe_counter = out[pick[round]].wqe_index;
		TEST_ASSERT_EQUAL(dpv_mlx5_cq_push(&cq, &ci), 0, "");
		TEST_ASSERT_EQUAL(
			dpv_mlx5_cq_poll(&cq, 1, &wc,
					 round == 2 ? lookup_qp_srq : lookup,
					 NULL),
			1, "");
		TEST_ASSERT_EQUAL(wc.wr_id, 10 + pick[round], "");
	}
	for (i = 0; i < 3; i++)
		TEST_ASSERT_EQUAL(post_recv(&srq, 50 + i, 1), 0, "%d", i);
	TEST_ASSERT_EQUAL(post_recv(&srq, 99, 1), ENOMEM, "");
	/* the engine follows the same links: slots 7 (the old tail), 5, 2 */
	TEST_ASSERT(dpv_mlx5_rq_fetch(&srq, &out[0]), "");
	TEST_ASSERT_EQUAL(out[0].wqe_index, 7, "");
	TEST_ASSERT_EQUAL(out[0].sg_list[0].addr, 0x1000 + 50, "");
	TEST_ASSERT(dpv_mlx5_rq_fetch(&srq, &out[0]), "");
	TEST_ASSERT_EQUAL(out[0].wqe_index, 5, "");
	TEST_ASSERT(dpv_mlx5_rq_fetch(&srq, &out[0]), "");
	TEST_ASSERT_EQUAL(out[0].wqe_index, 2, "");
	TEST_ASSERT_EQUAL(out[0].sg_list[0].addr, 0x1000 + 52, "");
	TEST_ASSERT(!dpv_mlx5_rq_fetch(&srq, &out[0]), "");
	/* SRQ WQEs are not flushed with a QP */
	TEST_ASSERT_EQUAL(dpv_mlx5_flush(&srq.wq, &cq, QPN), 0, "");
	return TEST_SUCCESS;
}

static int
test_cq_send_recv(void)
{
	struct dpv_wr w;
	struct dpv_recv_wr r;
	struct ibv_wc wc[4];
	struct dpv_cqe_info ci;
	const struct mlx5_cqe64 *c = &cq.buf[0];

	TEST_ASSERT_EQUAL(dpv_mlx5_cq_poll(&cq, 4, wc, lookup, NULL), 0,
			  "empty");
	/* unsignaled 1, signaled 2: one CQE retires both */
	TEST_ASSERT_EQUAL(post_send(1, 0), 0, "");
	TEST_ASSERT_EQUAL(post_send(2, IBV_SEND_SIGNALED), 0, "");
	TEST_ASSERT(dpv_mlx5_sq_fetch(&sq, &w), "");
	TEST_ASSERT(dpv_mlx5_sq_fetch(&sq, &w), "");
	memset(&ci, 0, sizeof(ci));
	ci.opcode = IBV_WC_SEND;
	ci.qpn = QPN;
	ci.wqe_counter = w.wqe_index;
	ci.byte_len = 16;
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_push(&cq, &ci), 0, "");
	TEST_ASSERT_EQUAL(c->op_own, MLX5_CQE_REQ << 4, "owner 0 on lap 0");
	TEST_ASSERT_EQUAL(be32toh(c->sop_drop_qpn),
			  (MLX5_OPCODE_SEND << 24) | QPN, "");
	TEST_ASSERT_EQUAL(be16toh(c->wqe_counter), w.wqe_index, "");
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_poll(&cq, 4, wc, lookup, NULL), 1, "");
	TEST_ASSERT_EQUAL(wc[0].wr_id, 2, "");
	TEST_ASSERT_EQUAL(wc[0].status, IBV_WC_SUCCESS, "");
	TEST_ASSERT_EQUAL(wc[0].opcode, IBV_WC_SEND, "");
	TEST_ASSERT_EQUAL(wc[0].qp_num, QPN, "");
	TEST_ASSERT_EQUAL(sq.wq.tail, 2, "both WRs retired");
	TEST_ASSERT_EQUAL(sq.bb_tail, sq.cur_post, "");
	TEST_ASSERT_EQUAL(be32toh(cq.dbrec[0]), 1, "consumer index");

	/* receive with immediate, GRH, source QP, SL */
	TEST_ASSERT_EQUAL(post_recv(&rq, 42, 1), 0, "");
	TEST_ASSERT(dpv_mlx5_rq_fetch(&rq, &r), "");
	memset(&ci, 0, sizeof(ci));
	ci.is_recv = true;
	ci.opcode = IBV_WC_RECV;
	ci.qpn = QPN;
	ci.wqe_counter = r.wqe_index;
	ci.byte_len = 7;
	ci.wc_flags = IBV_WC_WITH_IMM | IBV_WC_GRH;
	ci.imm_data = htobe32(0x01020304);
	ci.src_qp = 0xabcdef;
	ci.sl = 3;
	ci.solicited = true;
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_push(&cq, &ci), 0, "");
	TEST_ASSERT_EQUAL(cq.buf[1].op_own, (MLX5_CQE_RESP_SEND_IMM << 4) | 2,
			  "se");
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_poll(&cq, 4, wc, lookup, NULL), 1, "");
	TEST_ASSERT_EQUAL(wc[0].wr_id, 42, "");
	TEST_ASSERT_EQUAL(wc[0].opcode, IBV_WC_RECV, "");
	TEST_ASSERT_EQUAL(wc[0].byte_len, 7, "");
	TEST_ASSERT_EQUAL(wc[0].wc_flags, IBV_WC_WITH_IMM | IBV_WC_GRH, "");
	TEST_ASSERT_EQUAL(wc[0].imm_data, htobe32(0x01020304), "");
	TEST_ASSERT_EQUAL(wc[0].src_qp, 0xabcdef, "");
	TEST_ASSERT_EQUAL(wc[0].sl, 3, "");
	TEST_ASSERT_EQUAL(rq.wq.tail, 1, "");

	/* write-with-imm and send-with-invalidate, checksum flag */
	TEST_ASSERT_EQUAL(post_recv(&rq, 43, 1), 0, "");
	TEST_ASSERT_EQUAL(post_recv(&rq, 44, 1), 0, "");
	ci.opcode = IBV_WC_RECV_RDMA_WITH_IMM;
	ci.wc_flags = IBV_WC_WITH_IMM;
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_push(&cq, &ci), 0, "");
	ci.opcode = IBV_WC_RECV;
	ci.wc_flags = IBV_WC_WITH_INV | IBV_WC_IP_CSUM_OK;
	ci.invalidated_rkey = 0x5566;
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_push(&cq, &ci), 0, "");
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_poll(&cq, 4, wc, lookup, NULL), 2, "");
	TEST_ASSERT_EQUAL(wc[0].wr_id, 43, "");
	TEST_ASSERT_EQUAL(wc[0].opcode, IBV_WC_RECV_RDMA_WITH_IMM, "");
	TEST_ASSERT_EQUAL(wc[1].wr_id, 44, "");
	TEST_ASSERT_EQUAL(wc[1].wc_flags, IBV_WC_WITH_INV | IBV_WC_IP_CSUM_OK,
			  "");
	TEST_ASSERT_EQUAL(wc[1].invalidated_rkey, 0x5566, "");
	/* unknown QP */
	ci.qpn = 0x999;
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_push(&cq, &ci), 0, "");
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_poll(&cq, 4, wc, lookup, NULL), -EIO, "");
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_poll(&cq, -1, wc, lookup, NULL), -EINVAL,
			  "");
	return TEST_SUCCESS;
}

static int
test_cq_errors(void)
{
	static const enum ibv_wc_status st[] = {
		IBV_WC_LOC_LEN_ERR,    IBV_WC_LOC_QP_OP_ERR,
		IBV_WC_LOC_PROT_ERR,   IBV_WC_WR_FLUSH_ERR,
		IBV_WC_MW_BIND_ERR,    IBV_WC_BAD_RESP_ERR,
		IBV_WC_LOC_ACCESS_ERR, IBV_WC_REM_INV_REQ_ERR,
		IBV_WC_REM_ACCESS_ERR, IBV_WC_REM_OP_ERR,
		IBV_WC_RETRY_EXC_ERR,  IBV_WC_RNR_RETRY_EXC_ERR,
		IBV_WC_REM_ABORT_ERR,  IBV_WC_GENERAL_ERR,
		IBV_WC_FATAL_ERR,      IBV_WC_RESP_TIMEOUT_ERR,
	};
	struct dpv_cqe_info ci;
	struct ibv_wc wc;
	struct dpv_wr w;
	size_t i;

	for (i = 0; i < RTE_DIM(st); i++) {
		bool recv = i & 1;
		enum ibv_wc_status expect =
			st[i] == IBV_WC_FATAL_ERR ||
					st[i] == IBV_WC_RESP_TIMEOUT_ERR
				? IBV_WC_GENERAL_ERR
				: st[i];

		memset(&ci, 0, sizeof(ci));
		ci.status = st[i];
		ci.qpn = QPN;
		ci.is_recv = recv;
		ci.vendor_err = 0x40 + i;
		if (recv) {
			TEST_ASSERT_EQUAL(post_recv(&rq, 500 + i, 1), 0, "");
		} else {
			TEST_ASSERT_EQUAL(post_send(500 + i, 0), 0, "");
			TEST_ASSERT(dpv_mlx5_sq_fetch(&sq, &w), "");
			ci.wqe_counter = w.wqe_index;
			ci.opcode = IBV_WC_SEND;
		}
		TEST_ASSERT_EQUAL(dpv_mlx5_cq_push(&cq, &ci), 0, "");
		TEST_ASSERT_EQUAL(dpv_mlx5_cq_poll(&cq, 1, &wc, lookup, NULL),
				  1, "");
		TEST_ASSERT_EQUAL(wc.status, expect, "status %d", st[i]);
		TEST_ASSERT_EQUAL(wc.wr_id, 500 + i, "");
		TEST_ASSERT_EQUAL(wc.vendor_err, 0x40 + i, "");
		TEST_ASSERT_EQUAL(wc.qp_num, QPN, "");
	}
	TEST_ASSERT_EQUAL(sq.wq.tail, sq.wq.head, "");
	TEST_ASSERT_EQUAL(rq.wq.tail, rq.wq.head, "");
	return TEST_SUCCESS;
}

/* Owner bit over several laps, overrun, ibv_cq_ex next/readers. */
static int
test_cq_wrap_overrun(void)
{
	struct dpv_cqe_info ci = {.is_recv = true,
				  .opcode = IBV_WC_RECV,
				  .qpn = QPN,
				  .byte_len = 1};
	struct ibv_wc wc[4];
	uint64_t wr_id;
	enum ibv_wc_status status;
	unsigned int lap, i;

	for (lap = 0; lap < 6; lap++) {
		for (i = 0; i < cq.cqe_cnt; i++) {
			TEST_ASSERT_EQUAL(post_recv(&rq, lap * 10 + i, 1), 0,
					  "");
			ci.byte_len = lap * 10 + i;
			TEST_ASSERT_EQUAL(dpv_mlx5_cq_push(&cq, &ci), 0, "");
			TEST_ASSERT_EQUAL(cq.buf[i].op_own &
						  MLX5_CQE_OWNER_MASK,
					  lap & 1, "owner lap %u", lap);
		}
		/* the CQ is full: overrun is reported, nothing written */
		TEST_ASSERT_EQUAL(dpv_mlx5_cq_push(&cq, &ci), ENOSPC, "");
		if (lap & 1) {
			TEST_ASSERT_EQUAL(
				dpv_mlx5_cq_poll(&cq, 4, wc, lookup, NULL), 4,
				"");
			for (i = 0; i < 4; i++)
				TEST_ASSERT_EQUAL(wc[i].byte_len, lap * 10 + i,
						  "");
		} else {
			for (i = 0; i < 4; i++) {
				TEST_ASSERT_EQUAL(
					dpv_mlx5_cq_ex_next(&cq, lookup, NULL,
							    &wr_id, &status),
					0, "");
				TEST_ASSERT_EQUAL(wr_id, lap * 10 + i, "");
				TEST_ASSERT_EQUAL(status, IBV_WC_SUCCESS, "");
				TEST_ASSERT_EQUAL(
					dpv_mlx5_cq_read_byte_len(&cq),
					lap * 10 + i, "");
				TEST_ASSERT_EQUAL(dpv_mlx5_cq_read_opcode(&cq),
						  IBV_WC_RECV, "");
				TEST_ASSERT_EQUAL(dpv_mlx5_cq_read_qp_num(&cq),
						  QPN, "");
			}
			TEST_ASSERT_EQUAL(dpv_mlx5_cq_ex_next(&cq, lookup, NULL,
							      &wr_id, &status),
					  ENOENT, "");
			/* not yet published: still full for the engine */
			TEST_ASSERT_EQUAL(dpv_mlx5_cq_push(&cq, &ci), ENOSPC,
					  "");
			dpv_mlx5_cq_ex_end(&cq);
		}
		TEST_ASSERT_EQUAL(dpv_mlx5_cq_poll(&cq, 4, wc, lookup, NULL), 0,
				  "old lap CQEs are not ours");
	}
	TEST_ASSERT_EQUAL(be32toh(cq.dbrec[0]), 6 * 4, "");
	return TEST_SUCCESS;
}

static int
test_flush(void)
{
	struct dpv_wr w;
	struct dpv_recv_wr r;
	struct ibv_wc wc[4];
	int i;

	for (i = 0; i < 3; i++)
		TEST_ASSERT_EQUAL(post_send(10 + i, 0), 0, "");
	/* the engine finished the first one (unsignaled) */
	TEST_ASSERT(dpv_mlx5_sq_fetch(&sq, &w), "");
	dpv_mlx5_sq_retire(&sq, &w);
	/* it fetched the second one, the third was never fetched */
	TEST_ASSERT(dpv_mlx5_sq_fetch(&sq, &w), "");
	TEST_ASSERT_EQUAL(dpv_mlx5_flush(&sq.wq, &cq, QPN), 2, "");
	TEST_ASSERT(!dpv_mlx5_sq_fetch(&sq, &w), "flushed WQEs are consumed");
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_poll(&cq, 4, wc, lookup, NULL), 2, "");
	TEST_ASSERT_EQUAL(wc[0].wr_id, 11, "");
	TEST_ASSERT_EQUAL(wc[1].wr_id, 12, "");
	TEST_ASSERT_EQUAL(wc[0].status, IBV_WC_WR_FLUSH_ERR, "");
	TEST_ASSERT_EQUAL(wc[1].status, IBV_WC_WR_FLUSH_ERR, "");
	TEST_ASSERT_EQUAL(sq.wq.tail, sq.wq.head, "");
	TEST_ASSERT_EQUAL(dpv_mlx5_flush(&sq.wq, &cq, QPN), 0, "again: none");

	for (i = 0; i < 4; i++)
		TEST_ASSERT_EQUAL(post_recv(&rq, 20 + i, 1), 0, "");
	TEST_ASSERT(dpv_mlx5_rq_fetch(&rq, &r), "");
	dpv_mlx5_rq_retire(&rq, &r);
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_poll(&cq, 4, wc, lookup, NULL), 0, "");
	/* RQ: 3 outstanding, but the CQ has room for 4: all flushed */
	TEST_ASSERT_EQUAL(dpv_mlx5_flush(&rq.wq, &cq, QPN), 3, "");
	/* the retired WQE's completion would have come from the engine;
	 * emulate it to keep the RQ tail in step */
	rq.wq.tail++;
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_poll(&cq, 4, wc, lookup, NULL), 3, "");
	TEST_ASSERT_EQUAL(wc[0].wr_id, 21, "");
	TEST_ASSERT_EQUAL(wc[2].wr_id, 23, "");
	TEST_ASSERT_EQUAL(wc[2].status, IBV_WC_WR_FLUSH_ERR, "");
	/* flush stops at a full CQ */
	for (i = 0; i < 8; i++)
		TEST_ASSERT_EQUAL(post_send(30 + i, 0), 0, "");
	TEST_ASSERT_EQUAL(dpv_mlx5_flush(&sq.wq, &cq, QPN), 4, "CQ of 4");
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_poll(&cq, 4, wc, lookup, NULL), 4, "");
	TEST_ASSERT_EQUAL(dpv_mlx5_flush(&sq.wq, &cq, QPN), 4, "the rest");
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_poll(&cq, 4, wc, lookup, NULL), 4, "");
	TEST_ASSERT_EQUAL(wc[3].wr_id, 37, "");
	return TEST_SUCCESS;
}

#define QPB 0x000654u

static struct dpv_mlx5_rq rqb;

static struct dpv_mlx5_wq *
lookup_clean(void *arg, uint32_t qpn, bool recv)
{
	RTE_SET_USED(arg);
	if (qpn == QPB)
		return recv ? &rqb.wq : NULL;
	if (qpn == QPN)
		return recv ? &srq.wq : &sq.wq;
	return NULL;
}

static int
push_recv(struct dpv_mlx5_cq *c, uint32_t qpn, uint16_t ctr)
{
	struct dpv_cqe_info ci = {.is_recv = true,
				  .opcode = IBV_WC_RECV,
				  .qpn = qpn,
				  .byte_len = 7,
				  .wqe_counter = ctr};

	return dpv_mlx5_cq_push(c, &ci);
}

/* QP reset/destroy: its CQEs leave the CQ, the others stay in order
 * (across the ring's wrap), SRQ WQEs come back. */
static int
test_cq_clean(void)
{
	struct dpv_mlx5_cq c8;
	struct dpv_recv_wr r[3];
	struct dpv_cqe_info sci = {.opcode = IBV_WC_SEND, .qpn = QPN};
	struct ibv_wc wc[8];
	int i, n, rc = TEST_FAILED;

	if (dpv_mlx5_cq_init(&c8, 7, SOCKET_ID_ANY) ||
	    dpv_mlx5_rq_init(&rqb, 32, 1, SOCKET_ID_ANY))
		goto out;
	for (i = 0; i < 32; i++)
		if (post_recv(&rqb, 100 + i, 1))
			goto out;
	/* move the indexes so that the interesting part wraps */
	for (i = 0; i < 6; i++)
		push_recv(&c8, QPB, 0);
	if (dpv_mlx5_cq_poll(&c8, 8, wc, lookup_clean, NULL) != 6 ||
	    wc[5].wr_id != 105)
		goto out;
	for (i = 0; i < 3; i++)
		if (post_recv(&srq, 10 + i, 1) ||
		    !dpv_mlx5_rq_fetch(&srq, &r[i]))
			goto out;
	/* B, A(srq), B, A(srq), A(send), B */
	push_recv(&c8, QPB, 0);
	push_recv(&c8, QPN, r[0].wqe_index);
	push_recv(&c8, QPB, 0);
	push_recv(&c8, QPN, r[1].wqe_index);
	dpv_mlx5_cq_push(&c8, &sci);
	push_recv(&c8, QPB, 0);

	n = (int)dpv_mlx5_cq_clean(&c8, QPN, &srq);
	if (n != 3) {
		DPV_TEST_LOG("removed %d, want 3", n);
		goto out;
	}
	if (be32toh(c8.dbrec[0]) != (c8.cons_index & 0xffffff)) {
		DPV_TEST_LOG("consumer index not published");
		goto out;
	}
	n = dpv_mlx5_cq_poll(&c8, 8, wc, lookup_clean, NULL);
	if (n != 3) {
		DPV_TEST_LOG("polled %d, want 3", n);
		goto out;
	}
	for (i = 0; i < 3; i++)
		if (wc[i].wr_id != (uint64_t)(106 + i) ||
		    wc[i].status != IBV_WC_SUCCESS || wc[i].qp_num != QPB ||
		    wc[i].byte_len != 7) {
			DPV_TEST_LOG("wc %d: wr_id %" PRIu64 " qp 0x%x", i,
				     wc[i].wr_id, wc[i].qp_num);
			goto out;
		}
	if (dpv_mlx5_cq_poll(&c8, 8, wc, lookup_clean, NULL) != 0)
		goto out;
	/* nothing of the QP left: a second clean is a no-op */
	if (dpv_mlx5_cq_clean(&c8, QPN, &srq) != 0)
		goto out;
	/* the two consumed SRQ WQEs are free again: 4 + 2 slots */
	for (i = 0; i < 6; i++)
		if (post_recv(&srq, 60 + i, 1)) {
			DPV_TEST_LOG("SRQ WQE %d not given back", i);
			goto out;
		}
	if (post_recv(&srq, 99, 1) != ENOMEM)
		goto out;
	/* producer and consumer still agree: a full lap fits, no more */
	for (i = 0; i < 8; i++)
		if (push_recv(&c8, QPB, 0)) {
			DPV_TEST_LOG("push %d after clean failed", i);
			goto out;
		}
	if (push_recv(&c8, QPB, 0) != ENOSPC)
		goto out;
	n = dpv_mlx5_cq_poll(&c8, 8, wc, lookup_clean, NULL);
	if (n != 8 || wc[0].wr_id != 109 || wc[7].wr_id != 116) {
		DPV_TEST_LOG("after clean: %d, %" PRIu64, n, wc[0].wr_id);
		goto out;
	}
	rc = TEST_SUCCESS;
out:
	dpv_mlx5_cq_fini(&c8);
	dpv_mlx5_rq_fini(&rqb);
	return rc;
}

static int
test_arm_notify(void)
{
	struct dpv_cqe_info ci = {
		.is_recv = true, .opcode = IBV_WC_RECV, .qpn = QPN};
	struct ibv_wc wc[4];
	uint32_t w;

	TEST_ASSERT(!dpv_mlx5_cq_should_notify(&cq), "never armed");
	TEST_ASSERT_EQUAL(post_recv(&rq, 1, 1), 0, "");
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_push(&cq, &ci), 0, "");
	TEST_ASSERT(!dpv_mlx5_cq_should_notify(&cq), "not armed");
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_poll(&cq, 4, wc, lookup, NULL), 1, "");

	/* arm next: the dbrec arm word is sn << 28 | cmd | ci */
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_arm(&cq, 0), 0, "");
	w = be32toh(cq.dbrec[1]);
	TEST_ASSERT_EQUAL(w, (0u << 28) | MLX5_CQ_DB_REQ_NOT | 1, "");
	TEST_ASSERT(!dpv_mlx5_cq_should_notify(&cq), "no CQE yet");
	TEST_ASSERT_EQUAL(post_recv(&rq, 2, 1), 0, "");
	TEST_ASSERT_EQUAL(post_recv(&rq, 3, 1), 0, "");
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_push(&cq, &ci), 0, "");
	TEST_ASSERT(dpv_mlx5_cq_should_notify(&cq), "fires");
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_push(&cq, &ci), 0, "");
	TEST_ASSERT(!dpv_mlx5_cq_should_notify(&cq), "once per arm");
	dpv_mlx5_cq_event(&cq);

	/* arm while CQEs are waiting: fires right away */
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_arm(&cq, 0), 0, "");
	w = be32toh(cq.dbrec[1]);
	TEST_ASSERT_EQUAL(w >> 28, 1, "sn advanced by the event");
	TEST_ASSERT(dpv_mlx5_cq_should_notify(&cq), "pending CQEs");
	dpv_mlx5_cq_event(&cq);
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_poll(&cq, 4, wc, lookup, NULL), 2, "");

	/* solicited only: a plain CQE does not fire, a solicited one does */
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_arm(&cq, 1), 0, "");
	TEST_ASSERT_EQUAL(be32toh(cq.dbrec[1]) & (0xfu << 24),
			  MLX5_CQ_DB_REQ_NOT_SOL, "");
	TEST_ASSERT_EQUAL(post_recv(&rq, 4, 1), 0, "");
	TEST_ASSERT_EQUAL(post_recv(&rq, 5, 1), 0, "");
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_push(&cq, &ci), 0, "");
	TEST_ASSERT(!dpv_mlx5_cq_should_notify(&cq), "unsolicited");
	ci.solicited = true;
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_push(&cq, &ci), 0, "");
	TEST_ASSERT(dpv_mlx5_cq_should_notify(&cq), "solicited");
	dpv_mlx5_cq_event(&cq);
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_poll(&cq, 4, wc, lookup, NULL), 2, "");

	/* solicited only: an error completion fires too */
	ci.solicited = false;
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_arm(&cq, 1), 0, "");
	TEST_ASSERT_EQUAL(post_recv(&rq, 6, 1), 0, "");
	ci.status = IBV_WC_LOC_PROT_ERR;
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_push(&cq, &ci), 0, "");
	TEST_ASSERT(dpv_mlx5_cq_should_notify(&cq), "error");
	return TEST_SUCCESS;
}

/* Arms written straight to the doorbell (mlx5dv code), and the window
 * between our doorbell write and the arm_req bump. */
static int
test_arm_doorbell(void)
{
	struct dpv_cqe_info ci = {
		.is_recv = true, .opcode = IBV_WC_RECV, .qpn = QPN};
	struct ibv_wc wc[4];
	uint32_t w;

	TEST_ASSERT_EQUAL(be32toh(*(uint32_t *)(cq.uar + MLX5_CQ_DOORBELL)),
			  UINT32_MAX, "no arm yet");
	/* as mlx5dv code arms: dbrec[1] then the UAR doorbell */
	w = (0u << 28) | MLX5_CQ_DB_REQ_NOT | 0;
	cq.dbrec[1] = htobe32(w);
	*(uint32_t *)(cq.uar + MLX5_CQ_DOORBELL) = htobe32(w);
	TEST_ASSERT(!dpv_mlx5_cq_should_notify(&cq), "armed, no CQE");
	TEST_ASSERT_EQUAL(post_recv(&rq, 1, 1), 0, "");
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_push(&cq, &ci), 0, "");
	TEST_ASSERT(dpv_mlx5_cq_should_notify(&cq), "dv arm fires");
	TEST_ASSERT(!dpv_mlx5_cq_should_notify(&cq), "once");
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_poll(&cq, 4, wc, lookup, NULL), 1, "");
	dpv_mlx5_cq_event(&cq);

	/* our arm, seen by the engine between the doorbell write and the
	 * arm_req bump: one arm, one event */
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_arm(&cq, 0), 0, "");
	TEST_ASSERT_EQUAL(be32toh(*(uint32_t *)(cq.uar + MLX5_CQ_DOORBELL + 4)),
			  cq.cqn, "cqn in the doorbell");
	atomic_fetch_sub(&cq.arm_req, 1);
	TEST_ASSERT_EQUAL(post_recv(&rq, 2, 1), 0, "");
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_push(&cq, &ci), 0, "");
	TEST_ASSERT(dpv_mlx5_cq_should_notify(&cq), "fires from the doorbell");
	atomic_fetch_add(&cq.arm_req, 1);
	TEST_ASSERT_EQUAL(post_recv(&rq, 3, 1), 0, "");
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_push(&cq, &ci), 0, "");
	TEST_ASSERT(!dpv_mlx5_cq_should_notify(&cq), "same request, no 2nd");
	/* the same arm word again through our API still re-arms */
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_arm(&cq, 0), 0, "");
	TEST_ASSERT(dpv_mlx5_cq_should_notify(&cq), "re-armed, CQEs waiting");
	return TEST_SUCCESS;
}

/* An mlx5dv program: WQEs and CQEs through the mlx5dv_* views. */
static int
test_dv_views(void)
{
	struct mlx5dv_qp dq;
	struct mlx5dv_cq dc;
	struct mlx5dv_srq ds;
	struct mlx5_wqe_ctrl_seg *ctrl;
	struct mlx5_cqe64 *cqe;
	struct dpv_cqe_info ci = {.opcode = IBV_WC_RDMA_WRITE, .qpn = QPN};
	struct dpv_wr w;

	dpv_mlx5_sq_bind(&sq, IBV_QPT_RC, QPN);
	cq.cqn = 0x55;
	dpv_mlx5_qp_to_dv(&sq, &rq, &dq);
	dpv_mlx5_cq_to_dv(&cq, &dc);
	dpv_mlx5_srq_to_dv(&srq, &ds);
	TEST_ASSERT(dq.dbrec == rq.wq.dbrec, "");
	TEST_ASSERT_EQUAL(dq.sq.stride, 64, "");
	TEST_ASSERT_EQUAL(dq.sq.wqe_cnt, sq.wq.wqe_cnt, "");
	TEST_ASSERT_EQUAL(dq.rq.stride, 64, "");
	TEST_ASSERT(dq.bf.reg != NULL, "");
	TEST_ASSERT_EQUAL(dc.cqe_cnt, 4, "");
	TEST_ASSERT_EQUAL(dc.cqe_size, 64, "");
	TEST_ASSERT_EQUAL(dc.cqn, 0x55, "");
	TEST_ASSERT_EQUAL(ds.stride, 64, "");
	TEST_ASSERT_EQUAL(ds.tail, 7, "");

	/* RDMA write built by hand, as an mlx5dv program would */
	ctrl = dq.sq.buf;
	mlx5dv_set_ctrl_seg(ctrl, 0, MLX5_OPCODE_RDMA_WRITE, 0, QPN,
			    MLX5_WQE_CTRL_CQ_UPDATE, 3, 0, 0);
	((struct mlx5_wqe_raddr_seg *)(ctrl + 1))->raddr = htobe64(0xabc0);
	((struct mlx5_wqe_raddr_seg *)(ctrl + 1))->rkey = htobe32(0x31);
	mlx5dv_set_data_seg((struct mlx5_wqe_data_seg *)(ctrl + 2), 12, 0x41,
			    0x7000);
	dpv_barrier_before_doorbell();
	dq.dbrec[MLX5_SND_DBR] = htobe32(1);
	*(volatile uint64_t *)dq.bf.reg = 0; /* the doorbell "ring" */
	TEST_ASSERT(dpv_mlx5_sq_fetch(&sq, &w), "");
	TEST_ASSERT(!(w.flags & DPV_WR_F_MALFORMED), "");
	TEST_ASSERT_EQUAL(w.opcode, IBV_WR_RDMA_WRITE, "");
	TEST_ASSERT_EQUAL(w.remote_addr, 0xabc0, "");
	TEST_ASSERT_EQUAL(w.rkey, 0x31, "");
	TEST_ASSERT_EQUAL(w.num_sge, 1, "");
	TEST_ASSERT_EQUAL(w.sg_list[0].length, 12, "");
	TEST_ASSERT_EQUAL(w.sg_list[0].lkey, 0x41, "");
	TEST_ASSERT(w.flags & DPV_WR_F_SIGNALED, "");

	/* its CQE, read as an mlx5dv program reads it */
	ci.wqe_counter = w.wqe_index;
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_push(&cq, &ci), 0, "");
	cqe = dc.buf;
	TEST_ASSERT_EQUAL(mlx5dv_get_cqe_owner(cqe), 0, "");
	TEST_ASSERT_EQUAL(mlx5dv_get_cqe_opcode(cqe), MLX5_CQE_REQ, "");
	TEST_ASSERT_EQUAL(be32toh(cqe->sop_drop_qpn) >> 24,
			  MLX5_OPCODE_RDMA_WRITE, "");
	TEST_ASSERT_EQUAL(be16toh(cqe->wqe_counter), 0, "");
	return TEST_SUCCESS;
}

/* Resize: pending CQEs move in order, owner bits follow the new size. */
static struct dpv_mlx5_wq *
lookup_rq_arg(void *arg, uint32_t qpn, bool recv)
{
	struct dpv_mlx5_rq *q = arg;

	return (qpn == QPN && recv) ? &q->wq : NULL;
}

static int
resize_push(struct dpv_mlx5_cq *c, struct dpv_mlx5_rq *q, uint32_t id)
{
	struct dpv_cqe_info ci = {.is_recv = true,
				  .opcode = IBV_WC_RECV,
				  .qpn = QPN,
				  .byte_len = id};

	if (post_recv(q, id, 1) != 0)
		return -1;
	return dpv_mlx5_cq_push(c, &ci);
}

/* Poll exactly n completions with ids first, first + 1, ... */
static int
resize_poll(struct dpv_mlx5_cq *c, struct dpv_mlx5_rq *q, uint32_t first, int n)
{
	struct ibv_wc wc[32];
	int i, got = dpv_mlx5_cq_poll(c, 32, wc, lookup_rq_arg, q);

	if (got != n) {
		DPV_TEST_LOG("polled %d, expected %d", got, n);
		return -1;
	}
	for (i = 0; i < n; i++)
		if (wc[i].status != IBV_WC_SUCCESS ||
		    wc[i].wr_id != first + (uint32_t)i ||
		    wc[i].byte_len != first + (uint32_t)i) {
			DPV_TEST_LOG("wc %d: id %" PRIu64 " len %u, want %u", i,
				     wc[i].wr_id, wc[i].byte_len, first + i);
			return -1;
		}
	return 0;
}

/* Overrun check without posting a receive WQE. */
static int
resize_push_full(struct dpv_mlx5_cq *c)
{
	struct dpv_cqe_info ci = {
		.is_recv = true, .opcode = IBV_WC_RECV, .qpn = QPN};

	return dpv_mlx5_cq_push(c, &ci);
}

static int
cq_resize(struct dpv_mlx5_cq *c, unsigned int n)
{
	struct dpv_mlx5_cq_resize r;
	int rc = dpv_mlx5_cq_resize_prepare(c, n, &r);

	if (rc == 0)
		rc = dpv_mlx5_cq_resize_commit(c, &r);
	dpv_mlx5_cq_resize_release(&r);
	return rc;
}

static int
test_cq_resize(void)
{
	struct dpv_mlx5_cq c;
	struct dpv_mlx5_rq q;
	struct mlx5_cqe64 *oldbuf;
	__be32 *db;
	uint32_t id = 0, i;
	int rc = TEST_FAILED;

	if (dpv_mlx5_rq_init(&q, 32, 1, SOCKET_ID_ANY) ||
	    dpv_mlx5_cq_init(&c, 3, SOCKET_ID_ANY))
		goto out;
	db = c.dbrec;
	/* 3 polled, 3 pending across the wrap of the 4-entry ring */
	for (i = 0; i < 3; i++)
		TEST_ASSERT_EQUAL(resize_push(&c, &q, id++), 0, "");
	TEST_ASSERT_EQUAL(resize_poll(&c, &q, 0, 3), 0, "");
	for (i = 0; i < 3; i++)
		TEST_ASSERT_EQUAL(resize_push(&c, &q, id++), 0, "");

	/* argument checks and too small for the pending CQEs: unchanged */
	oldbuf = c.buf;
	TEST_ASSERT_EQUAL(cq_resize(&c, 0), EINVAL, "");
	TEST_ASSERT_EQUAL(cq_resize(&c, DPV_MLX5_MAX_CQE), EINVAL, "");
	TEST_ASSERT_EQUAL(cq_resize(&c, 2), EINVAL, "3 pending");
	TEST_ASSERT(c.buf == oldbuf && c.cqe_cnt == 4 && c.cqe == 3, "");

	/* up: 4 -> 16 entries, then fill it completely */
	TEST_ASSERT_EQUAL(cq_resize(&c, 9), 0, "");
	TEST_ASSERT(c.buf != oldbuf, "");
	TEST_ASSERT_EQUAL(c.cqe_cnt, 16, "");
	TEST_ASSERT_EQUAL(c.cqe, 15, "");
	TEST_ASSERT(c.dbrec == db, "doorbell record kept");
	for (i = 3; i < 6; i++)
		TEST_ASSERT_EQUAL(c.buf[i].op_own & MLX5_CQE_OWNER_MASK, 0,
				  "slot %u", i);
	TEST_ASSERT_EQUAL(c.buf[6].op_own >> 4, MLX5_CQE_INVALID, "");
	for (i = 0; i < 13; i++)
		TEST_ASSERT_EQUAL(resize_push(&c, &q, id++), 0, "");
	TEST_ASSERT_EQUAL(resize_push_full(&c), ENOSPC, "16 pending");
	TEST_ASSERT_EQUAL(resize_poll(&c, &q, 3, 16), 0, "in order");
	TEST_ASSERT_EQUAL(resize_poll(&c, &q, 0, 0), 0, "nothing left");

	/* down with pending CQEs: 16 -> 8 entries, owner bits of the new
	 * lap (indexes 19..23 are in lap 2 of 8) */
	for (i = 0; i < 5; i++)
		TEST_ASSERT_EQUAL(resize_push(&c, &q, id++), 0, "");
	TEST_ASSERT_EQUAL(cq_resize(&c, 4), EINVAL, "5 pending");
	/* an arm made before the resize still fires after it */
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_arm(&c, 0), 0, "");
	TEST_ASSERT_EQUAL(cq_resize(&c, 5), 0, "");
	TEST_ASSERT_EQUAL(c.cqe_cnt, 8, "");
	TEST_ASSERT_EQUAL(c.buf[19 & 7].op_own & MLX5_CQE_OWNER_MASK, 0, "");
	TEST_ASSERT(dpv_mlx5_cq_should_notify(&c), "arm kept");
	dpv_mlx5_cq_event(&c);
	for (i = 0; i < 3; i++)
		TEST_ASSERT_EQUAL(resize_push(&c, &q, id++), 0, "");
	TEST_ASSERT_EQUAL(resize_push_full(&c), ENOSPC, "8 pending");
	TEST_ASSERT_EQUAL(resize_poll(&c, &q, 19, 8), 0, "in order");

	/* armed with nothing pending: the next CQE after a resize fires */
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_arm(&c, 0), 0, "");
	TEST_ASSERT(!dpv_mlx5_cq_should_notify(&c), "no CQE yet");
	TEST_ASSERT_EQUAL(cq_resize(&c, 1), 0, "");
	TEST_ASSERT_EQUAL(c.cqe_cnt, 2, "");
	TEST_ASSERT(!dpv_mlx5_cq_should_notify(&c), "still no CQE");
	TEST_ASSERT_EQUAL(resize_push(&c, &q, id++), 0, "");
	TEST_ASSERT(dpv_mlx5_cq_should_notify(&c), "fires in the new ring");
	TEST_ASSERT_EQUAL(resize_push(&c, &q, id++), 0, "");
	TEST_ASSERT_EQUAL(resize_poll(&c, &q, 27, 2), 0, "");
	TEST_ASSERT_EQUAL(be32toh(c.dbrec[0]), 29, "consumer index kept");
	rc = TEST_SUCCESS;
out:
	dpv_mlx5_cq_fini(&c);
	dpv_mlx5_rq_fini(&q);
	return rc;
}

/* Entry i of a ring of 128-byte CQEs: its mlx5_cqe64 is the second half. */
static uint8_t *
ent128(const struct dpv_mlx5_cq *c, uint32_t i)
{
	return (uint8_t *)c->buf + (size_t)(i & (c->cqe_cnt - 1)) * 128;
}

/* 128-byte CQEs (mlx5dv_create_cq cqe_size 128): the mlx5_cqe64 sits in
 * the second half of each entry, every operation finds it there (push,
 * poll, clean, flush, resize, arm), and the first half is written only
 * with padding. */
static int
test_cq128(void)
{
	struct dpv_mlx5_cq c;
	struct dpv_mlx5_cq_resize r;
	struct dpv_cqe_info ci;
	struct dpv_recv_wr rw;
	struct dpv_wr w;
	struct ibv_wc wc[8];
	struct mlx5dv_cq dv;
	uint64_t id;
	int pad;

	TEST_ASSERT_EQUAL(dpv_mlx5_cq_init_sz(&c, 3, SOCKET_ID_ANY, 100,
					      false), EINVAL, "size 100");
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_init_sz(&c, 3, SOCKET_ID_ANY, 64, true),
			  EINVAL, "padding of 64-byte CQEs");
	for (pad = 0; pad < 2; pad++) {
		TEST_ASSERT_EQUAL(dpv_mlx5_cq_init_sz(&c, 3, SOCKET_ID_ANY, 128,
						      pad),
				  0, "init");
		TEST_ASSERT(c.ops == &dpv_mlx5_cqe128_ring_ops, "ops");
		dpv_mlx5_cq_to_dv(&c, &dv);
		TEST_ASSERT_EQUAL(dv.cqe_size, 128, "dv cqe_size");
		TEST_ASSERT_EQUAL(dv.cqe_cnt, 4, "");
		for (uint32_t i = 0; i < 4; i++) {
			TEST_ASSERT_EQUAL(ent128(&c, i)[127] >> 4,
					  MLX5_CQE_INVALID, "entry %u", i);
			TEST_ASSERT_EQUAL(ent128(&c, i)[63], 0, "first half");
		}
		/* the first halves hold garbage: padding clears them */
		for (uint32_t i = 0; i < 4; i++)
			memset(ent128(&c, i), 0xee, 64);
		/* a send and a receive CQE, polled through the table */
		TEST_ASSERT_EQUAL(post_send(7, IBV_SEND_SIGNALED), 0, "");
		TEST_ASSERT(dpv_mlx5_sq_fetch(&sq, &w), "");
		memset(&ci, 0, sizeof(ci));
		ci.opcode = IBV_WC_SEND;
		ci.qpn = QPN;
		ci.wqe_counter = w.wqe_index;
		ci.byte_len = 16;
		TEST_ASSERT_EQUAL(dpv_ring_cq_push(&c, &ci), 0, "");
		TEST_ASSERT_EQUAL(ent128(&c, 0)[127], MLX5_CQE_REQ << 4,
				  "op_own at byte 127");
		TEST_ASSERT_EQUAL(ent128(&c, 0)[64 + 59] /* sop_drop_qpn */,
				  QPN & 0xff, "qpn in the second half");
		TEST_ASSERT_EQUAL(ent128(&c, 0)[0], pad ? 0 : 0xee,
				  "first half %s", pad ? "padded" : "untouched");
		TEST_ASSERT_EQUAL(ent128(&c, 1)[127] >> 4, MLX5_CQE_INVALID,
				  "next entry untouched");
		TEST_ASSERT_EQUAL(post_recv(&rq, 42, 1), 0, "");
		TEST_ASSERT(dpv_mlx5_rq_fetch(&rq, &rw), "");
		memset(&ci, 0, sizeof(ci));
		ci.is_recv = true;
		ci.opcode = IBV_WC_RECV;
		ci.qpn = QPN;
		ci.wqe_counter = rw.wqe_index;
		ci.byte_len = 9;
		TEST_ASSERT_EQUAL(dpv_ring_cq_push(&c, &ci), 0, "");
		dpv_mlx5_rq_retire(&rq, &rw);
		TEST_ASSERT_EQUAL(dpv_ring_cq_poll(&c, 8, wc, lookup, NULL), 2,
				  "");
		TEST_ASSERT(wc[0].wr_id == 7 && wc[0].opcode == IBV_WC_SEND &&
				    wc[0].status == IBV_WC_SUCCESS,
			    "send wc");
		TEST_ASSERT(wc[1].wr_id == 42 && wc[1].opcode == IBV_WC_RECV &&
				    wc[1].byte_len == 9,
			    "recv wc");
		/* wrap into lap 1 (owner bit), through ibv_cq_ex's next */
		for (id = 0; id < 6; id++) {
			enum ibv_wc_status st;
			uint64_t got;

			TEST_ASSERT_EQUAL(post_recv(&rq, 100 + id, 1), 0, "");
			TEST_ASSERT(dpv_mlx5_rq_fetch(&rq, &rw), "");
			ci.wqe_counter = rw.wqe_index;
			TEST_ASSERT_EQUAL(dpv_ring_cq_push(&c, &ci), 0, "");
			dpv_mlx5_rq_retire(&rq, &rw);
			TEST_ASSERT_EQUAL(dpv_ring_cq_ex_next(&c, lookup, NULL,
							      &got, &st),
					  0, "%" PRIu64, id);
			TEST_ASSERT_EQUAL(got, 100 + id, "");
			dpv_mlx5_cq_ex_end(&c);
		}
		/* arm, then a CQE fires it */
		TEST_ASSERT_EQUAL(dpv_mlx5_cq_arm(&c, 0), 0, "");
		TEST_ASSERT(!dpv_ring_cq_should_notify(&c), "nothing yet");
		TEST_ASSERT_EQUAL(post_recv(&rq, 300, 1), 0, "");
		TEST_ASSERT(dpv_mlx5_rq_fetch(&rq, &rw), "");
		ci.wqe_counter = rw.wqe_index;
		TEST_ASSERT_EQUAL(dpv_ring_cq_push(&c, &ci), 0, "");
		dpv_mlx5_rq_retire(&rq, &rw);
		TEST_ASSERT(dpv_ring_cq_should_notify(&c), "armed CQE");
		/* resize keeps the pending CQE, in a 128-byte ring */
		TEST_ASSERT_EQUAL(dpv_mlx5_cq_resize_prepare(&c, 20, &r), 0, "");
		TEST_ASSERT_EQUAL(dpv_mlx5_cq_resize_commit(&c, &r), 0, "");
		dpv_mlx5_cq_resize_release(&r);
		TEST_ASSERT_EQUAL(c.cqe_cnt, 32, "");
		TEST_ASSERT_EQUAL(ent128(&c, c.cons_index)[127] >> 4,
				  MLX5_CQE_RESP_SEND, "moved CQE");
		TEST_ASSERT_EQUAL(dpv_ring_cq_poll(&c, 8, wc, lookup, NULL), 1,
				  "");
		TEST_ASSERT_EQUAL(wc[0].wr_id, 300, "");
		/* clean drops a QP's CQEs, flush writes 128-byte ones */
		TEST_ASSERT_EQUAL(post_recv(&rq, 200, 1), 0, "");
		TEST_ASSERT_EQUAL(post_recv(&rq, 201, 1), 0, "");
		TEST_ASSERT_EQUAL(dpv_ring_flush(&rq.wq, &c, QPN), 2, "flush");
		TEST_ASSERT_EQUAL(ent128(&c, c.prod_index - 1)[127] >> 4,
				  MLX5_CQE_RESP_ERR, "flush CQE");
		TEST_ASSERT_EQUAL(dpv_ring_cq_clean(&c, QPN, NULL), 2, "clean");
		TEST_ASSERT_EQUAL(dpv_ring_cq_poll(&c, 8, wc, lookup, NULL), 0,
				  "cleaned");
		dpv_mlx5_cq_fini(&c);
		/* the next round starts on fresh queues */
		teardown();
		TEST_ASSERT_EQUAL(setup(), TEST_SUCCESS, "");
	}
	return TEST_SUCCESS;
}

static struct dpv_test_suite mlx5_cq_suite = {
	.name = "mlx5 receive and completion rings",
	.setup = suite_setup,
	.cases =
		{
			TEST_CASE_ST(setup, teardown, test_init_caps),
			TEST_CASE_ST(setup, teardown, test_rq_round_trip),
			TEST_CASE_ST(setup, teardown, test_srq),
			TEST_CASE_ST(setup, teardown, test_cq_send_recv),
			TEST_CASE_ST(setup, teardown, test_cq_errors),
			TEST_CASE_ST(setup, teardown, test_cq_wrap_overrun),
			TEST_CASE_ST(setup, teardown, test_flush),
			TEST_CASE_ST(setup, teardown, test_cq_clean),
			TEST_CASE_ST(setup, teardown, test_arm_notify),
			TEST_CASE_ST(setup, teardown, test_arm_doorbell),
			TEST_CASE_ST(setup, teardown, test_dv_views),
			TEST_CASE(test_cq_resize),
			TEST_CASE_ST(setup, teardown, test_cq128),
			TEST_CASE(test_cq_push_direct),
			TEST_CASES_END(),
		},
};

static int
test_mlx5_cq(void)
{
	return dpv_test_run_suite(&mlx5_cq_suite);
}

DPV_TEST_REGISTER_FAST(mlx5_cq, test_mlx5_cq);
