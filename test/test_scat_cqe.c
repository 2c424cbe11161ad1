/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Scatter to CQE (mlx5dv_create_qp's DISABLE_ / ALLOW_SCATTER_TO_CQE,
 * through the private entry dpv_qp_mlx5_create_flags() that libmlx5 calls)
 * on RC QPs of the first device, over its loopback:
 *  - the mlx5dv reader's view: the 64-byte CQE flagged
 *    MLX5_INLINE_SCATTER_32 carries the data in its first 32 bytes and the
 *    buffer is untouched until the CQE is polled;
 *  - ibv_poll_cq puts the bytes into the receive buffer (RQ and SRQ) or
 *    the READ / atomic buffer;
 *  - what is not scattered: 33 bytes, DISABLE, MLX5_SCATTER_TO_CQE=0-like
 *    off switch, requester without sq_sig_all or ALLOW.
 * And the other create flag of this entry, PACKET_BASED_CREDIT_MODE: an
 * RC pair with it counts the packets of multi-packet SENDs against the
 * end-to-end credits; UD is refused.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "dpv_engine.h"
#include "dpv_test.h"
#include "qp.h"
#include "verbs_caps.h"
#include "verbs_dv.h"
#include "verbs_int.h"
#include "test_verbs_util.h"

#define BUFLEN 4096

static struct ibv_device **devs;
static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_mr *mr;
static uint8_t mem[4][BUFLEN]; /* send, receive, READ source, READ dest */
static int gid_index = -1;
static union ibv_gid gid;

static int
suite_setup(void)
{
	return test_verbs_loop_open(
		&devs, &ctx, &pd, &mr, mem, sizeof(mem),
		IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
			IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC,
		&gid, &gid_index);
}

static void
suite_teardown(void)
{
	test_verbs_loop_close(&devs, &ctx, &pd, &mr);
}

static int
modify(struct ibv_qp *qp, enum ibv_qp_state s, uint32_t dest)
{
	struct ibv_qp_attr a = {.qp_state = s, .port_num = 1};
	int mask = IBV_QP_STATE;

	if (s == IBV_QPS_INIT) {
		a.qp_access_flags = IBV_ACCESS_REMOTE_READ |
				    IBV_ACCESS_REMOTE_WRITE |
				    IBV_ACCESS_REMOTE_ATOMIC;
		mask |= IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
	} else if (s == IBV_QPS_RTR) {
		a.ah_attr.is_global = 1;
		a.ah_attr.grh.dgid = gid;
		a.ah_attr.grh.sgid_index = (uint8_t)gid_index;
		a.ah_attr.grh.hop_limit = 64;
		a.ah_attr.port_num = 1;
		a.path_mtu = IBV_MTU_1024;
		a.dest_qp_num = dest;
		a.max_dest_rd_atomic = 4;
		a.min_rnr_timer = 12;
		mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			IBV_QP_MIN_RNR_TIMER;
	} else {
		a.timeout = 14;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.max_rd_atomic = 4;
		mask |= IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
	}
	return ibv_modify_qp(qp, &a, mask);
}

/* a sends to / reads from b; each has its own CQ. */
struct pair {
	struct ibv_cq *acq, *bcq;
	struct ibv_srq *srq;
	struct ibv_qp *a, *b;
};

/* Options of a pair: create flags of a and b (-1: none given), a's
 * sq_sig_all, b with an SRQ. */
struct pair_opt {
	int aflags, bflags;
	int sig_all;
	bool srq;
};

static int
pair_open(struct pair *p, const struct pair_opt *o)
{
	struct ibv_qp_init_attr ia = {
		.cap = {.max_send_wr = 8,
			.max_recv_wr = 8,
			.max_send_sge = 1,
			.max_recv_sge = 2},
		.qp_type = IBV_QPT_RC,
	};

	memset(p, 0, sizeof(*p));
	p->acq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	p->bcq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	TEST_ASSERT(p->acq && p->bcq, "");
	ia.send_cq = ia.recv_cq = p->acq;
	ia.sq_sig_all = o->sig_all;
	p->a = ibv_create_qp(pd, &ia);
	if (o->srq) {
		struct ibv_srq_init_attr sa = {
			.attr = {.max_wr = 8, .max_sge = 2}};

		p->srq = ibv_create_srq(pd, &sa);
		TEST_ASSERT_NOT_NULL(p->srq, "");
		ia.srq = p->srq;
	}
	ia.send_cq = ia.recv_cq = p->bcq;
	ia.sq_sig_all = 0;
	p->b = ibv_create_qp(pd, &ia);
	TEST_ASSERT(p->a && p->b, "errno %d", errno);
	if (o->aflags >= 0)
		TEST_ASSERT_EQUAL(
			dpv_qp_mlx5_create_flags(p->a, (uint32_t)o->aflags), 0,
			"");
	if (o->bflags >= 0)
		TEST_ASSERT_EQUAL(
			dpv_qp_mlx5_create_flags(p->b, (uint32_t)o->bflags), 0,
			"");
	TEST_ASSERT_EQUAL(modify(p->a, IBV_QPS_INIT, 0), 0, "");
	TEST_ASSERT_EQUAL(modify(p->b, IBV_QPS_INIT, 0), 0, "");
	TEST_ASSERT_EQUAL(modify(p->a, IBV_QPS_RTR, p->b->qp_num), 0, "");
	TEST_ASSERT_EQUAL(modify(p->b, IBV_QPS_RTR, p->a->qp_num), 0, "");
	TEST_ASSERT_EQUAL(modify(p->a, IBV_QPS_RTS, 0), 0, "");
	TEST_ASSERT_EQUAL(modify(p->b, IBV_QPS_RTS, 0), 0, "");
	return TEST_SUCCESS;
}

static void
pair_close(struct pair *p)
{
	if (p->a)
		ibv_destroy_qp(p->a);
	if (p->b)
		ibv_destroy_qp(p->b);
	if (p->srq)
		ibv_destroy_srq(p->srq);
	if (p->acq)
		ibv_destroy_cq(p->acq);
	if (p->bcq)
		ibv_destroy_cq(p->bcq);
}

/* The CQE at the consumer index of cq, read as an mlx5dv program does
 * (NULL if none is owned by software yet). */
static const struct mlx5_cqe64 *
peek_cqe(struct ibv_cq *cq)
{
	struct mlx5dv_cq dv;
	struct mlx5dv_obj o = {.cq = {.in = cq, .out = &dv}};
	const struct mlx5_cqe64 *c;
	uint32_t ci;

	if (dpv_mlx5dv_init_obj(&o, MLX5DV_OBJ_CQ) != 0)
		return NULL;
	ci = be32toh(dv.dbrec[0]) & 0xffffff;
	c = (const void *)((uint8_t *)dv.buf +
			   (size_t)(ci & (dv.cqe_cnt - 1)) * dv.cqe_size);
	if ((c->op_own >> 4) == MLX5_CQE_INVALID ||
	    (c->op_own & MLX5_CQE_OWNER_MASK) != !!(ci & dv.cqe_cnt))
		return NULL;
	return c;
}

/* Post a receive of two SGEs (10 + rest) over mem[1]. */
static int
post_recv(struct pair *p)
{
	struct ibv_sge sge[2] = {
		{(uintptr_t)mem[1], 10, mr->lkey},
		{(uintptr_t)mem[1] + 10, 100, mr->lkey},
	};
	struct ibv_recv_wr wr = {.wr_id = 9, .sg_list = sge, .num_sge = 2};
	struct ibv_recv_wr *bad;

	return p->srq ? ibv_post_srq_recv(p->srq, &wr, &bad)
		      : ibv_post_recv(p->b, &wr, &bad);
}

static int
post_send(struct pair *p, enum ibv_wr_opcode op, uint32_t len, bool signal)
{
	struct ibv_sge sge = {(uintptr_t)(op == IBV_WR_SEND ? mem[0] : mem[3]),
			      len, mr->lkey};
	struct ibv_send_wr wr = {
		.wr_id = 1,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = op,
		.send_flags = signal ? IBV_SEND_SIGNALED : 0,
	};
	struct ibv_send_wr *bad;

	wr.wr.rdma.remote_addr = (uintptr_t)mem[2];
	wr.wr.rdma.rkey = mr->rkey;
	if (op == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		wr.wr.atomic.remote_addr = (uintptr_t)mem[2];
		wr.wr.atomic.rkey = mr->rkey;
		wr.wr.atomic.compare_add = 5;
	}
	return ibv_post_send(p->a, &wr, &bad);
}

/*
 * Send len bytes a -> b and check b's receive: whether its CQE carried
 * the data (scattered) with the buffer untouched until the poll, and that
 * ibv_poll_cq delivered every byte.
 */
static int
check_send(struct pair *p, uint32_t len, bool scattered)
{
	const struct mlx5_cqe64 *c;
	struct ibv_wc wc;

	for (uint32_t i = 0; i < len; i++)
		mem[0][i] = (uint8_t)(0x30 + i * 3);
	memset(mem[1], 0xee, 128);
	TEST_ASSERT_EQUAL(post_recv(p), 0, "");
	TEST_ASSERT_EQUAL(post_send(p, IBV_WR_SEND, len, true), 0, "");
	/* the sender's completion comes after b's receive CQE (ACK) */
	TEST_ASSERT_EQUAL(test_loop_wait_wc(p->acq, &wc, 1, 5000), 1, "");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "");
	c = peek_cqe(p->bcq);
	TEST_ASSERT_NOT_NULL(c, "b's CQE is there");
	TEST_ASSERT_EQUAL(c->op_own >> 4, MLX5_CQE_RESP_SEND, "");
	TEST_ASSERT_EQUAL(be32toh(c->byte_cnt), len, "");
	if (scattered) {
		TEST_ASSERT(c->op_own & MLX5_INLINE_SCATTER_32,
			    "MLX5_INLINE_SCATTER_32");
		TEST_ASSERT_BUFFERS_EQUAL((const uint8_t *)c, mem[0], len,
					  "data in the CQE");
		TEST_ASSERT_EQUAL(mem[1][0], 0xee, "buffer not written");
		TEST_ASSERT_EQUAL(mem[1][len - 1], 0xee, "");
	} else {
		TEST_ASSERT(!(c->op_own & MLX5_INLINE_SCATTER_32), "");
		TEST_ASSERT_BUFFERS_EQUAL(mem[1], mem[0], len,
					  "data in the buffer");
	}
	TEST_ASSERT_EQUAL(test_loop_wait_wc(p->bcq, &wc, 1, 5000), 1, "");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "%s",
			  ibv_wc_status_str(wc.status));
	TEST_ASSERT_EQUAL(wc.opcode, IBV_WC_RECV, "");
	TEST_ASSERT_EQUAL(wc.byte_len, len, "");
	TEST_ASSERT_EQUAL(wc.wr_id, 9, "");
	TEST_ASSERT_BUFFERS_EQUAL(mem[1], mem[0], len, "delivered");
	TEST_ASSERT_EQUAL(mem[1][len], 0xee, "nothing more");
	return TEST_SUCCESS;
}

/* READ len bytes (or FETCH_AND_ADD: len 8) into mem[3] and check where
 * the result went. */
static int
check_read(struct pair *p, enum ibv_wr_opcode op, uint32_t len, bool scattered)
{
	const struct mlx5_cqe64 *c = NULL;
	uint64_t before = 0, v;
	struct ibv_wc wc;

	for (uint32_t i = 0; i < 64; i++)
		mem[2][i] = (uint8_t)(0x71 + i * 5);
	memcpy(&before, mem[2], 8);
	memset(mem[3], 0xee, 64);
	TEST_ASSERT_EQUAL(post_send(p, op, len, true), 0, "");
	for (int i = 0; i < 5000 && c == NULL; i++) {
		/* progress without consuming a's CQE: poll b's CQ */
		ibv_poll_cq(p->bcq, 1, &wc);
		c = peek_cqe(p->acq);
		if (c == NULL)
			usleep(1000);
	}
	TEST_ASSERT_NOT_NULL(c, "a's CQE is there");
	TEST_ASSERT_EQUAL(c->op_own >> 4, MLX5_CQE_REQ, "");
	if (scattered) {
		TEST_ASSERT(c->op_own & MLX5_INLINE_SCATTER_32, "scattered");
		TEST_ASSERT_EQUAL(mem[3][0], 0xee, "buffer not written");
		if (op == IBV_WR_RDMA_READ)
			TEST_ASSERT_BUFFERS_EQUAL((const uint8_t *)c, mem[2],
						  len, "data in the CQE");
	} else {
		TEST_ASSERT(!(c->op_own & MLX5_INLINE_SCATTER_32), "");
	}
	TEST_ASSERT_EQUAL(test_loop_wait_wc(p->acq, &wc, 1, 5000), 1, "");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "%s",
			  ibv_wc_status_str(wc.status));
	if (op == IBV_WR_RDMA_READ) {
		TEST_ASSERT_BUFFERS_EQUAL(mem[3], mem[2], len, "READ data");
		TEST_ASSERT_EQUAL(mem[3][len], 0xee, "nothing more");
	} else {
		memcpy(&v, mem[3], 8);
		TEST_ASSERT_EQUAL(v, before, "atomic: the old value");
		memcpy(&v, mem[2], 8);
		TEST_ASSERT_EQUAL(v, before + 5, "added");
	}
	return TEST_SUCCESS;
}

#define RUN(x)                                                                 \
	do {                                                                   \
		if ((x) != TEST_SUCCESS) {                                     \
			pair_close(&p);                                        \
			return TEST_FAILED;                                    \
		}                                                              \
	} while (0)

/* Default (no flag): the responder scatters 1..32 bytes, not 33. */
static int
case_resp_default(void)
{
	const struct pair_opt o = {.aflags = -1, .bflags = -1};
	struct pair p;

	RUN(pair_open(&p, &o));
	RUN(check_send(&p, 20, true));
	RUN(check_send(&p, 32, true));
	RUN(check_send(&p, 33, false));
	RUN(check_send(&p, 1, true));
	pair_close(&p);
	return TEST_SUCCESS;
}

/* With an SRQ, and with ALLOW: scattered; DISABLE: not. */
static int
case_resp_flags(void)
{
	struct pair_opt o = {.aflags = -1,
			     .bflags = MLX5DV_QP_CREATE_ALLOW_SCATTER_TO_CQE,
			     .srq = true};
	struct pair p;

	RUN(pair_open(&p, &o));
	RUN(check_send(&p, 24, true));
	pair_close(&p);
	o.bflags = MLX5DV_QP_CREATE_DISABLE_SCATTER_TO_CQE;
	o.srq = false;
	RUN(pair_open(&p, &o));
	RUN(check_send(&p, 24, false));
	pair_close(&p);
	return TEST_SUCCESS;
}

/* Requester: with sq_sig_all, READ of <= 32 bytes and atomics are
 * scattered; a 33-byte READ is not. */
static int
case_req_sig_all(void)
{
	const struct pair_opt o = {.aflags = -1, .bflags = -1, .sig_all = 1};
	struct pair p;

	RUN(pair_open(&p, &o));
	RUN(check_read(&p, IBV_WR_RDMA_READ, 16, true));
	RUN(check_read(&p, IBV_WR_RDMA_READ, 33, false));
	RUN(check_read(&p, IBV_WR_ATOMIC_FETCH_AND_ADD, 8, true));
	pair_close(&p);
	return TEST_SUCCESS;
}

/* Requester without sq_sig_all: not scattered by default, scattered with
 * ALLOW, never with DISABLE (even with sq_sig_all). */
static int
case_req_flags(void)
{
	struct pair_opt o = {.aflags = -1, .bflags = -1};
	struct pair p;

	RUN(pair_open(&p, &o));
	RUN(check_read(&p, IBV_WR_RDMA_READ, 16, false));
	RUN(check_read(&p, IBV_WR_ATOMIC_FETCH_AND_ADD, 8, false));
	pair_close(&p);
	o.aflags = MLX5DV_QP_CREATE_ALLOW_SCATTER_TO_CQE;
	RUN(pair_open(&p, &o));
	RUN(check_read(&p, IBV_WR_RDMA_READ, 30, true));
	RUN(check_read(&p, IBV_WR_ATOMIC_FETCH_AND_ADD, 8, true));
	pair_close(&p);
	o.aflags = MLX5DV_QP_CREATE_DISABLE_SCATTER_TO_CQE;
	o.sig_all = 1;
	RUN(pair_open(&p, &o));
	RUN(check_read(&p, IBV_WR_RDMA_READ, 16, false));
	pair_close(&p);
	return TEST_SUCCESS;
}

/*
 * Packet-based credits: b has two receives; a sends two SENDs of 3
 * packets. After the first one's ACK (1 credit) the second goes only as
 * the probe (its packets are beyond the limit); message-based, it would be
 * within it. Both arrive.
 */
static int
case_credit_pkt(void)
{
	const struct pair_opt o = {
		.aflags = MLX5DV_QP_CREATE_PACKET_BASED_CREDIT_MODE,
		.bflags = MLX5DV_QP_CREATE_PACKET_BASED_CREDIT_MODE};
	struct dpv_engine_qp_stats st;
	struct ibv_recv_wr rw = {.num_sge = 1}, *rbad;
	struct ibv_send_wr sw = {.num_sge = 1,
				 .opcode = IBV_WR_SEND,
				 .send_flags = IBV_SEND_SIGNALED},
			   *sbad;
	struct ibv_sge sge;
	struct ibv_wc wc;
	struct pair p;

	RUN(pair_open(&p, &o));
	rw.sg_list = sw.sg_list = &sge;
	for (int i = 0; i < 2; i++) {
		sge = (struct ibv_sge){(uintptr_t)mem[1 + i], BUFLEN, mr->lkey};
		rw.wr_id = (uint64_t)i;
		TEST_ASSERT_EQUAL(ibv_post_recv(p.b, &rw, &rbad), 0, "");
	}
	for (int i = 0; i < 2500; i++)
		mem[0][i] = (uint8_t)(i * 5);
	sge = (struct ibv_sge){(uintptr_t)mem[0], 2500, mr->lkey};
	TEST_ASSERT_EQUAL(ibv_post_send(p.a, &sw, &sbad), 0, "");
	TEST_ASSERT_EQUAL(ibv_post_send(p.a, &sw, &sbad), 0, "");
	for (int i = 0; i < 2; i++) {
		TEST_ASSERT_EQUAL(test_loop_wait_wc(p.bcq, &wc, 1, 5000), 1,
				  "");
		TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "");
		TEST_ASSERT_EQUAL(wc.byte_len, 2500, "");
		TEST_ASSERT_BUFFERS_EQUAL(mem[1 + wc.wr_id], mem[0], 2500, "");
		TEST_ASSERT_EQUAL(test_loop_wait_wc(p.acq, &wc, 1, 5000), 1,
				  "");
		TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "");
	}
	TEST_ASSERT_EQUAL(dpv_engine_qp_stats_get(to_dqp(p.a)->engine,
						  p.a->qp_num, &st),
			  0, "");
	TEST_ASSERT_EQUAL(st.credit_probes, 2,
			  "the second SEND went as a probe (packets count)");
	pair_close(&p);
	return TEST_SUCCESS;
}

static int
case_errors(void)
{
	const struct pair_opt o = {.aflags = -1, .bflags = -1};
	struct pair p;

	RUN(pair_open(&p, &o));
	TEST_ASSERT_EQUAL(
		dpv_qp_mlx5_create_flags(
			p.a, MLX5DV_QP_CREATE_DISABLE_SCATTER_TO_CQE |
				     MLX5DV_QP_CREATE_ALLOW_SCATTER_TO_CQE),
		EINVAL, "both");
	TEST_ASSERT_EQUAL(dpv_qp_mlx5_create_flags(p.a, 1u << 20), EINVAL,
			  "unknown");
	TEST_ASSERT_EQUAL(dpv_qp_mlx5_create_flags(NULL, 0), EINVAL, "");
	pair_close(&p);
	{
		struct ibv_cq *cq = ibv_create_cq(ctx, 4, NULL, NULL, 0);
		struct ibv_qp_init_attr ia = {
			.send_cq = cq,
			.recv_cq = cq,
			.cap = {.max_send_wr = 1, .max_recv_wr = 1,
				.max_send_sge = 1, .max_recv_sge = 1},
			.qp_type = IBV_QPT_UD};
		struct ibv_qp *ud = cq ? ibv_create_qp(pd, &ia) : NULL;

		TEST_ASSERT_NOT_NULL(ud, "UD QP");
		TEST_ASSERT_EQUAL(
			dpv_qp_mlx5_create_flags(
				ud, MLX5DV_QP_CREATE_PACKET_BASED_CREDIT_MODE),
			EINVAL, "packet-based credits: RC only");
		ibv_destroy_qp(ud);
		ibv_destroy_cq(cq);
	}
	return TEST_SUCCESS;
}

static const struct dpv_test_suite scat_suite = {
	.name = "scatter to CQE",
	.setup = suite_setup,
	.teardown = suite_teardown,
	.cases =
		{
			TEST_CASE(case_resp_default),
			TEST_CASE(case_resp_flags),
			TEST_CASE(case_req_sig_all),
			TEST_CASE(case_req_flags),
			TEST_CASE(case_credit_pkt),
			TEST_CASE(case_errors),
			TEST_CASES_END(),
		},
};

static int
test_scat_cqe(void)
{
	return dpv_test_run_suite(&scat_suite);
}

DPV_TEST_REGISTER_FAST(scat_cqe, test_scat_cqe);
