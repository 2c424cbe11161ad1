/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Dynamically Connected QPs through the verbs front end, the way
 * mlx5dv_create_qp() makes them (dpv_qp_create_dc(), the private entry
 * libmlx5 calls): a DCI and two DCTs with different keys on the loopback
 * device, the DCI's WRs built with ibv_wr_* and mlx5dv_wr_set_dc_addr();
 * the DC modify rules; a wrong key; invalid create arguments.
 */
#include <errno.h>
#include <string.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "dpv_test.h"
#include "test_verbs_util.h"
#include "verbs_dv.h"
#include "verbs_int.h"

#define MEMLEN 4096
#define KEY_A  0xa5a5a5a500000001ull
#define KEY_B  0xa5a5a5a500000002ull

static struct ibv_device **devs;
static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_mr *mr;
static uint8_t mem[4][MEMLEN]; /* source, A's, B's, READ back */
static int gid_index = -1;
static union ibv_gid gid;

static int
suite_setup(void)
{
	return test_verbs_loop_open(&devs, &ctx, &pd, &mr, mem, sizeof(mem),
				    IBV_ACCESS_LOCAL_WRITE |
					    IBV_ACCESS_REMOTE_READ |
					    IBV_ACCESS_REMOTE_WRITE,
				    &gid, &gid_index);
}

static void
suite_teardown(void)
{
	test_verbs_loop_close(&devs, &ctx, &pd, &mr);
}

struct dc_set {
	struct ibv_cq *cq;
	struct ibv_srq *srq[2];
	struct ibv_qp *dci, *dct[2];
	struct ibv_ah *ah;
	struct ibv_qp_ex *x;
	struct mlx5dv_qp_ex *m;
	bool streams; /* the DCI with streams: 4 at once, 4 in error end it */
};

static struct ibv_qp *
dc_create(struct dc_set *s, int type, struct ibv_srq *srq, uint64_t key)
{
	struct ibv_qp_init_attr_ex ia = {
		.cap = {.max_send_wr = 16, .max_send_sge = 1},
		.qp_type = IBV_QPT_DRIVER,
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = pd,
		.send_cq = s->cq,
		.recv_cq = s->cq,
		.srq = srq,
	};

	if (type == MLX5DV_DCTYPE_DCI) {
		ia.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		ia.send_ops_flags = IBV_QP_EX_WITH_SEND |
				    IBV_QP_EX_WITH_RDMA_WRITE |
				    IBV_QP_EX_WITH_RDMA_READ;
	}
	if (type == MLX5DV_DCTYPE_DCI && s->streams)
		return dpv_qp_create_dci_streams(ctx, &ia, 2, 2);
	return dpv_qp_create_dc(ctx, &ia, type, key);
}

/* The DC transitions as pyverbs' Mlx5QP makes them. */
static int
dc_modify(struct ibv_qp *qp, bool dci, enum ibv_qp_state st)
{
	struct ibv_qp_attr a = {.qp_state = st, .port_num = 1};
	int mask = IBV_QP_STATE;

	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
	a.path_mtu = IBV_MTU_1024;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = gid;
	a.ah_attr.grh.sgid_index = (uint8_t)gid_index;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = 1;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 4;
	if (st == IBV_QPS_INIT)
		mask |= IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			(dci ? 0 : IBV_QP_ACCESS_FLAGS);
	else if (st == IBV_QPS_RTR)
		mask |= IBV_QP_PATH_MTU |
			(dci ? 0 : IBV_QP_AV | IBV_QP_MIN_RNR_TIMER);
	else
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC;
	return ibv_modify_qp(qp, &a, mask);
}

static int
dc_open(struct dc_set *s, bool streams)
{
	struct ibv_srq_init_attr sa = {.attr = {.max_wr = 16, .max_sge = 1}};
	struct ibv_ah_attr ah = {.is_global = 1, .port_num = 1};

	memset(s, 0, sizeof(*s));
	s->streams = streams;
	s->cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	TEST_ASSERT_NOT_NULL(s->cq, "");
	for (int i = 0; i < 2; i++) {
		s->srq[i] = ibv_create_srq(pd, &sa);
		TEST_ASSERT_NOT_NULL(s->srq[i], "");
		s->dct[i] = dc_create(s, MLX5DV_DCTYPE_DCT, s->srq[i],
				      i ? KEY_B : KEY_A);
		TEST_ASSERT_NOT_NULL(s->dct[i], "DCT: errno %d", errno);
		TEST_ASSERT_EQUAL(dc_modify(s->dct[i], false, IBV_QPS_INIT), 0,
				  "");
		TEST_ASSERT_EQUAL(dc_modify(s->dct[i], false, IBV_QPS_RTR), 0,
				  "");
		TEST_ASSERT_EQUAL(dc_modify(s->dct[i], false, IBV_QPS_RTS),
				  EINVAL, "a DCT has no RTS");
	}
	s->dci = dc_create(s, MLX5DV_DCTYPE_DCI, s->srq[0], 0);
	TEST_ASSERT_NOT_NULL(s->dci, "DCI: errno %d", errno);
	TEST_ASSERT_EQUAL(dc_modify(s->dci, true, IBV_QPS_INIT), 0, "");
	TEST_ASSERT_EQUAL(dc_modify(s->dci, true, IBV_QPS_RTR), 0, "");
	TEST_ASSERT_EQUAL(dc_modify(s->dci, true, IBV_QPS_RTS), 0, "");
	s->x = ibv_qp_to_qp_ex(s->dci);
	TEST_ASSERT_NOT_NULL(s->x, "");
	s->m = dpv_mlx5dv_qp_ex(s->x); /* what libmlx5 returns */
	TEST_ASSERT_NOT_NULL(s->m, "");
	ah.grh.dgid = gid;
	ah.grh.sgid_index = (uint8_t)gid_index;
	ah.grh.hop_limit = 64;
	s->ah = ibv_create_ah(pd, &ah);
	TEST_ASSERT_NOT_NULL(s->ah, "");
	return TEST_SUCCESS;
}

static void
dc_close(struct dc_set *s)
{
	if (s->dci)
		ibv_destroy_qp(s->dci);
	for (int i = 0; i < 2; i++) {
		if (s->dct[i])
			ibv_destroy_qp(s->dct[i]);
		if (s->srq[i])
			ibv_destroy_srq(s->srq[i]);
	}
	if (s->ah)
		ibv_destroy_ah(s->ah);
	if (s->cq)
		ibv_destroy_cq(s->cq);
}

/* One WR from the DCI to DCT i with key: 0 SEND, 1 WRITE, 2 READ of len
 * bytes. */
static int
dc_post(struct dc_set *s, int i, uint64_t key, int what, uint64_t wr_id,
	uint32_t len)
{
	ibv_wr_start(s->x);
	s->x->wr_id = wr_id;
	s->x->wr_flags = IBV_SEND_SIGNALED;
	if (what == 0)
		ibv_wr_send(s->x);
	else if (what == 1)
		ibv_wr_rdma_write(s->x, mr->rkey, (uintptr_t)mem[1 + i]);
	else
		ibv_wr_rdma_read(s->x, mr->rkey, (uintptr_t)mem[1 + i]);
	mlx5dv_wr_set_dc_addr(s->m, s->ah, s->dct[i]->qp_num, key);
	ibv_wr_set_sge(s->x, mr->lkey, (uintptr_t)(what == 2 ? mem[3] : mem[0]),
		       len);
	return ibv_wr_complete(s->x);
}

static int
dc_recv(struct dc_set *s, int i, uint64_t wr_id)
{
	struct ibv_sge sge = {.addr = (uintptr_t)mem[1 + i],
			      .length = MEMLEN,
			      .lkey = mr->lkey};
	struct ibv_recv_wr wr = {.wr_id = wr_id, .sg_list = &sge, .num_sge = 1},
			   *bad;

	return ibv_post_srq_recv(s->srq[i], &wr, &bad);
}

/* SEND to A and B, WRITE to both, READ back from B; then a wrong key. */
static int
test_verbs_dc_traffic(void)
{
	struct dc_set s;
	struct ibv_wc wc[4];
	int rc = dc_open(&s, false);

	if (rc != TEST_SUCCESS) {
		dc_close(&s);
		return rc;
	}
	for (int i = 0; i < MEMLEN; i++)
		mem[0][i] = (uint8_t)(i * 5 + 1);
	memset(mem[1], 0, sizeof(mem) - MEMLEN);
	TEST_ASSERT_EQUAL(dc_recv(&s, 0, 100), 0, "");
	TEST_ASSERT_EQUAL(dc_recv(&s, 1, 200), 0, "");
	TEST_ASSERT_EQUAL(dc_post(&s, 0, KEY_A, 0, 1, 1500), 0, "");
	TEST_ASSERT_EQUAL(dc_post(&s, 1, KEY_B, 0, 2, 2500), 0, "");
	/* each SEND: its send and its receive completion (one CQ) */
	TEST_ASSERT_EQUAL(test_loop_wait_wc(s.cq, wc, 4, 3000), 4, "");
	for (int k = 0; k < 4; k++) {
		TEST_ASSERT_EQUAL(wc[k].status, IBV_WC_SUCCESS, "wc %d", k);
		if (wc[k].wr_id == 100)
			TEST_ASSERT(wc[k].byte_len == 1500 &&
					    wc[k].qp_num == s.dct[0]->qp_num,
				    "A");
		if (wc[k].wr_id == 200)
			TEST_ASSERT(wc[k].byte_len == 2500 &&
					    wc[k].qp_num == s.dct[1]->qp_num,
				    "B");
	}
	TEST_ASSERT_BUFFERS_EQUAL(mem[1], mem[0], 1500, "");
	TEST_ASSERT_BUFFERS_EQUAL(mem[2], mem[0], 2500, "");
	memset(mem[1], 0, 2 * MEMLEN);
	TEST_ASSERT_EQUAL(dc_post(&s, 0, KEY_A, 1, 3, 3000), 0, "");
	TEST_ASSERT_EQUAL(dc_post(&s, 1, KEY_B, 1, 4, 1000), 0, "");
	TEST_ASSERT_EQUAL(dc_post(&s, 1, KEY_B, 2, 5, 1000), 0, "");
	TEST_ASSERT_EQUAL(test_loop_wait_wc(s.cq, wc, 3, 3000), 3, "");
	for (int k = 0; k < 3; k++)
		TEST_ASSERT(wc[k].status == IBV_WC_SUCCESS &&
				    wc[k].wr_id == (uint64_t)k + 3,
			    "wc %d: %d", k, wc[k].status);
	TEST_ASSERT_BUFFERS_EQUAL(mem[1], mem[0], 3000, "WRITE A");
	TEST_ASSERT_BUFFERS_EQUAL(mem[2], mem[0], 1000, "WRITE B");
	TEST_ASSERT_BUFFERS_EQUAL(mem[3], mem[0], 1000, "READ B");
	/* a WR builder for another QP type: the batch fails */
	ibv_wr_start(s.x);
	ibv_wr_send(s.x);
	mlx5dv_wr_set_dc_addr(s.m, NULL, s.dct[0]->qp_num, KEY_A);
	ibv_wr_set_sge(s.x, mr->lkey, (uintptr_t)mem[0], 8);
	TEST_ASSERT_EQUAL(ibv_wr_complete(s.x), EINVAL, "no AH");
	dc_close(&s);
	return TEST_SUCCESS;
}

/* A SEND of 64 bytes to DCT A on a stream, from lkey. */
static int
dc_send_stream(struct dc_set *s, uint16_t stream, uint32_t lkey,
	       uint64_t wr_id)
{
	ibv_wr_start(s->x);
	s->x->wr_id = wr_id;
	s->x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(s->x);
	mlx5dv_wr_set_dc_addr_stream(s->m, s->ah, s->dct[0]->qp_num, KEY_A,
				     stream);
	ibv_wr_set_sge(s->x, lkey, (uintptr_t)mem[0], 64);
	return ibv_wr_complete(s->x);
}

/* The send completion of wr_id (and the receive completion of a SEND that
 * arrived, which must succeed): its status, or -1 when none came. */
static int
dc_send_status(struct dc_set *s, uint64_t wr_id, bool received)
{
	struct ibv_wc wc[2];
	int n = test_loop_wait_wc(s->cq, wc, received ? 2 : 1, 3000), st = -1;

	for (int k = 0; k < n; k++) {
		if (wc[k].wr_id == wr_id)
			st = wc[k].status;
		else if (wc[k].status != IBV_WC_SUCCESS)
			return -2;
	}
	return n == (received ? 2 : 1) ? st : -1;
}

static enum ibv_qp_state
qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &ia) != 0)
		return IBV_QPS_UNKNOWN;
	return a.qp_state;
}

/* DCI streams (log_num_concurent 2, log_num_errored 2): a local error
 * puts only its stream in error (its next WQEs flushed, the others and
 * the DCI go on) until the stream is reset; the 4th stream in error is
 * the DCI's error. */
static int
test_verbs_dc_streams(void)
{
	uint32_t bad = mr->lkey ^ 0x5500;
	struct dc_set s;
	int rc = dc_open(&s, true);

	if (rc != TEST_SUCCESS) {
		dc_close(&s);
		return rc;
	}
	for (int i = 0; i < 8; i++)
		TEST_ASSERT_EQUAL(dc_recv(&s, 0, 100 + i), 0, "");
	TEST_ASSERT_EQUAL(dc_send_stream(&s, 1, bad, 1), 0, "");
	TEST_ASSERT_EQUAL(dc_send_status(&s, 1, false), IBV_WC_LOC_PROT_ERR,
			  "stream 1: bad lkey");
	TEST_ASSERT_EQUAL(qp_state(s.dci), IBV_QPS_RTS, "the DCI goes on");
	TEST_ASSERT_EQUAL(dc_send_stream(&s, 2, mr->lkey, 2), 0, "");
	TEST_ASSERT_EQUAL(dc_send_status(&s, 2, true), IBV_WC_SUCCESS,
			  "stream 2 unaffected");
	TEST_ASSERT_EQUAL(dc_send_stream(&s, 1, mr->lkey, 3), 0, "");
	TEST_ASSERT_EQUAL(dc_send_status(&s, 3, false), IBV_WC_WR_FLUSH_ERR,
			  "stream 1 in error: flushed");
	TEST_ASSERT_EQUAL(dpv_qp_dci_stream_reset(s.dci, 2), EINVAL,
			  "stream 2 is not in error");
	TEST_ASSERT_EQUAL(dpv_qp_dci_stream_reset(s.dci, 1), 0, "");
	TEST_ASSERT_EQUAL(dc_send_stream(&s, 1, mr->lkey, 4), 0, "");
	TEST_ASSERT_EQUAL(dc_send_status(&s, 4, true), IBV_WC_SUCCESS,
			  "stream 1 after its reset");
	/* streams 5, 6, 7 in error: the DCI goes on; an error on an 8th
	 * would be the 4th stream in error: the DCI's */
	for (uint16_t st = 5; st <= 7; st++) {
		TEST_ASSERT_EQUAL(dc_send_stream(&s, st, bad, st), 0, "");
		TEST_ASSERT_EQUAL(dc_send_status(&s, st, false),
				  IBV_WC_LOC_PROT_ERR, "stream %u", st);
		TEST_ASSERT_EQUAL(qp_state(s.dci), IBV_QPS_RTS, "");
	}
	TEST_ASSERT_EQUAL(dc_send_stream(&s, 8, bad, 8), 0, "");
	TEST_ASSERT_EQUAL(dc_send_status(&s, 8, false), IBV_WC_LOC_PROT_ERR,
			  "");
	TEST_ASSERT_EQUAL(qp_state(s.dci), IBV_QPS_ERR,
			  "the 4th stream in error ends the DCI");
	/* a DCI without streams has none to reset */
	TEST_ASSERT_EQUAL(dpv_qp_dci_stream_reset(s.dct[0], 1), EINVAL, "");
	dc_close(&s);
	return TEST_SUCCESS;
}

static int
test_verbs_dc_create_errors(void)
{
	struct ibv_cq *cq = ibv_create_cq(ctx, 8, NULL, NULL, 0);
	struct ibv_qp_init_attr_ex ia = {
		.cap = {.max_send_wr = 4, .max_send_sge = 1},
		.qp_type = IBV_QPT_DRIVER,
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = pd,
		.send_cq = cq,
		.recv_cq = cq,
	};

	TEST_ASSERT_NOT_NULL(cq, "");
	errno = 0;
	TEST_ASSERT_NULL(ibv_create_qp_ex(ctx, &ia), "");
	TEST_ASSERT_EQUAL(errno, EOPNOTSUPP, "DRIVER without mlx5dv");
	errno = 0;
	TEST_ASSERT_NULL(dpv_qp_create_dc(ctx, &ia, MLX5DV_DCTYPE_DCT, 1), "");
	TEST_ASSERT_EQUAL(errno, EINVAL, "DCT without an SRQ");
	ia.send_cq = NULL;
	errno = 0;
	TEST_ASSERT_NULL(dpv_qp_create_dc(ctx, &ia, MLX5DV_DCTYPE_DCI, 0), "");
	TEST_ASSERT_EQUAL(errno, EINVAL, "DCI without a send CQ");
	ibv_destroy_cq(cq);
	return TEST_SUCCESS;
}

static const struct dpv_test_suite verbs_dc_suite = {
	.name = "verbs_dc",
	.cases =
		{
			TEST_CASE(test_verbs_dc_traffic),
			TEST_CASE(test_verbs_dc_create_errors),
			TEST_CASE(test_verbs_dc_streams),
			TEST_CASES_END(),
		},
};

static int
verbs_dc_autotest(void)
{
	int rc = suite_setup();

	if (rc != TEST_SUCCESS) {
		suite_teardown();
		return rc;
	}
	rc = dpv_test_run_suite(&verbs_dc_suite);
	suite_teardown();
	return rc;
}

DPV_TEST_REGISTER_FAST(verbs_dc_autotest, verbs_dc_autotest);
