/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The Dynamically Connected transport in the engine without the verbs
 * layer, on one engine's internal loopback wire: two DCIs (mlx5 SQs bound
 * to IBV_QPT_DRIVER, each WQE carrying a datagram segment with the DCT
 * number and key) and two DCTs (each on its own SRQ and CQ, with its own
 * access key). One DCI alternates between the DCTs with SEND, WRITE,
 * READ and atomics; two DCIs share one DCT; a wrong key is dropped and
 * counted; a DCT goes away under traffic.
 */
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_mempool.h>

#include "dpv_test.h"
#include "test_engine_util.h"
#include "dpv_engine.h"
#include "dpv_roce_gid.h"
#include "mlx5_ring.h"

#define QPN_I1	 0x31 /* DCIs */
#define QPN_I2	 0x32
#define QPN_A	 0x41 /* DCTs */
#define QPN_B	 0x42
#define SRQN_A	 0x51
#define SRQN_B	 0x52
#define KEY_A	 0x1122334455667788ull
#define KEY_B	 0x0badc0ffee000042ull
#define PDN	 3
#define BUF_SIZE 16384
#define MAX_ITER 20000
#define IP	 0xc0000202u

struct dci {
	uint32_t qpn;
	struct dpv_mlx5_sq sq;
	struct dpv_mlx5_cq cq;
};

struct dct {
	uint32_t qpn, srqn;
	uint64_t key;
	struct dpv_mlx5_rq srq;
	struct dpv_mlx5_cq cq;
	bool live;
};

static struct rte_mempool *mp;
static struct dpv_engine *eng;
static struct dci dci[2];
static struct dct dct[2];
static struct dpv_mlx5_ah ah;
static uint8_t *sbuf, *rbuf;
static uint32_t skey, rkey;
static const uint8_t mac[6] = {0x02, 0, 0, 0, 0, 0x03};

static struct dpv_mlx5_wq *
lookup(void *arg, uint32_t qpn, bool recv)
{
	RTE_SET_USED(arg);
	for (int i = 0; i < 2; i++) {
		if (!recv && qpn == dci[i].qpn)
			return &dci[i].sq.wq;
		if (recv && qpn == (DPV_MLX5_LOOKUP_SRQ | dct[i].srqn))
			return &dct[i].srq.wq;
	}
	return NULL;
}

static int
suite_setup(void)
{
	return test_engine_pool_setup(&mp, "dc_test_mp");
}

static void
suite_teardown(void)
{
	test_engine_pool_free(&mp);
}

static uint32_t
reg(uint32_t idx, void *addr)
{
	uint32_t key = idx << 8 | 0x22;
	struct dpv_engine_key k = {
		.addr = (uintptr_t)addr,
		.length = BUF_SIZE,
		.iova = (uintptr_t)addr,
		.access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			  IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC,
		.pdn = PDN,
	};

	return dpv_engine_key_set(eng, key, &k) == 0 ? key : 0;
}

/* DCI: RESET -> INIT -> RTR (MTU) -> RTS (timer, retries, PSN). */
static int
dci_up(uint32_t qpn, uint8_t timeout, uint8_t retry)
{
	struct ibv_qp_attr a = {.qp_state = IBV_QPS_INIT};
	int ret;

	ret = dpv_engine_qp_modify(eng, qpn, &a, IBV_QP_STATE, NULL);
	a = (struct ibv_qp_attr){.qp_state = IBV_QPS_RTR,
				 .path_mtu = IBV_MTU_1024};
	if (ret == 0)
		ret = dpv_engine_qp_modify(eng, qpn, &a,
					   IBV_QP_STATE | IBV_QP_PATH_MTU, NULL);
	a = (struct ibv_qp_attr){.qp_state = IBV_QPS_RTS,
				 .sq_psn = 0x100 * qpn,
				 .timeout = timeout,
				 .retry_cnt = retry,
				 .rnr_retry = 7,
				 .max_rd_atomic = 4};
	if (ret == 0)
		ret = dpv_engine_qp_modify(
			eng, qpn, &a,
			IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
				IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				IBV_QP_MAX_QP_RD_ATOMIC,
			NULL);
	return ret;
}

/* DCT: RESET -> INIT (access) -> RTR (AV, MTU, RNR timer). */
static int
dct_up(uint32_t qpn)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_ATOMIC,
	};
	struct dpv_engine_path path;
	int ret;

	test_engine_loop_path(&path, mac, IP);
	ret = dpv_engine_qp_modify(eng, qpn, &a,
				   IBV_QP_STATE | IBV_QP_ACCESS_FLAGS, NULL);
	a = (struct ibv_qp_attr){.qp_state = IBV_QPS_RTR,
				 .path_mtu = IBV_MTU_1024,
				 .min_rnr_timer = 1};
	if (ret == 0)
		ret = dpv_engine_qp_modify(eng, qpn, &a,
					   IBV_QP_STATE | IBV_QP_AV |
						   IBV_QP_PATH_MTU |
						   IBV_QP_MIN_RNR_TIMER,
					   &path);
	return ret;
}

static int
dct_create(struct dct *t, uint32_t qpn, uint32_t srqn, uint64_t key)
{
	struct dpv_engine_qp_init in = {
		.qpn = qpn,
		.type = IBV_QPT_DRIVER,
		.pdn = PDN,
		.srq = &t->srq,
		.srqn = srqn,
		.recv_cq = &t->cq,
		.dc_type = DPV_ENGINE_DC_DCT,
		.dct_key = key,
	};

	t->qpn = qpn;
	t->srqn = srqn;
	t->key = key;
	if (dpv_mlx5_cq_init(&t->cq, 128, SOCKET_ID_ANY) ||
	    dpv_mlx5_srq_init(&t->srq, 64, 2, SOCKET_ID_ANY) ||
	    dpv_engine_qp_create(eng, &in) || dct_up(qpn))
		return -1;
	t->live = true;
	return 0;
}

static int
dci_create(struct dci *c, uint32_t qpn, uint8_t timeout, uint8_t retry)
{
	struct dpv_engine_qp_init in = {
		.qpn = qpn,
		.type = IBV_QPT_DRIVER,
		.pdn = PDN,
		.sq = &c->sq,
		.send_cq = &c->cq,
		.max_send_wr = 64,
		.dc_type = DPV_ENGINE_DC_DCI,
	};

	c->qpn = qpn;
	if (dpv_mlx5_cq_init(&c->cq, 128, SOCKET_ID_ANY) ||
	    dpv_mlx5_sq_init(&c->sq, 64, 4, 64, SOCKET_ID_ANY))
		return -1;
	dpv_mlx5_qp_link_dbrec(&c->sq, NULL);
	dpv_mlx5_sq_bind(&c->sq, IBV_QPT_DRIVER, qpn);
	return dpv_engine_qp_create(eng, &in) || dci_up(qpn, timeout, retry)
		       ? -1
		       : 0;
}

static int
setup_with(uint8_t timeout, uint8_t retry)
{
	struct dpv_engine_conf conf = {.mp = mp, .max_keys = 64};
	struct dpv_mlx5_av_attr av = {.hop_limit = 64};

	memcpy(conf.mac, mac, 6);
	dpv_roce_gid_from_ipv4(conf.gid, rte_cpu_to_be_32(IP));
	eng = dpv_engine_create(NULL, &conf);
	if (eng == NULL)
		return -1;
	memcpy(av.dgid, conf.gid, 16);
	memcpy(av.dmac, mac, 6);
	dpv_mlx5_av_build(&ah.av, &av);
	sbuf = aligned_alloc(64, BUF_SIZE);
	rbuf = aligned_alloc(64, BUF_SIZE);
	if (sbuf == NULL || rbuf == NULL)
		return -1;
	memset(sbuf, 0, BUF_SIZE);
	memset(rbuf, 0, BUF_SIZE);
	skey = reg(2, sbuf);
	rkey = reg(3, rbuf);
	if (!skey || !rkey)
		return -1;
	if (dci_create(&dci[0], QPN_I1, timeout, retry) ||
	    dci_create(&dci[1], QPN_I2, timeout, retry) ||
	    dct_create(&dct[0], QPN_A, SRQN_A, KEY_A) ||
	    dct_create(&dct[1], QPN_B, SRQN_B, KEY_B))
		return -1;
	return 0;
}

static int
setup(void)
{
	return setup_with(14, 7);
}

/* Short ACK timer (the engine's 1 ms floor) and one retry. */
static int
setup_fast_fail(void)
{
	return setup_with(1, 1);
}

static void
teardown(void)
{
	if (eng == NULL)
		return;
	for (int i = 0; i < 2; i++) {
		dpv_engine_qp_destroy(eng, dci[i].qpn);
		dpv_mlx5_sq_fini(&dci[i].sq);
		dpv_mlx5_cq_fini(&dci[i].cq);
		if (dct[i].live)
			dpv_engine_qp_destroy(eng, dct[i].qpn);
		dpv_mlx5_rq_fini(&dct[i].srq);
		dpv_mlx5_cq_fini(&dct[i].cq);
	}
	memset(dci, 0, sizeof(dci));
	memset(dct, 0, sizeof(dct));
	dpv_engine_destroy(eng);
	eng = NULL;
	free(sbuf);
	free(rbuf);
	sbuf = rbuf = NULL;
}

static int
wait_wc(struct dpv_mlx5_cq *cq, struct ibv_wc *wc)
{
	return test_engine_wait_wc(eng, cq, wc, lookup, MAX_ITER);
}

/* One WQE on DCI c to DCT t with key: op of len bytes at sbuf + off
 * (remote: rbuf + roff). */
static int
post(struct dci *c, const struct dct *t, uint64_t key, enum ibv_wr_opcode op,
     uint64_t wr_id, uint32_t off, uint32_t len, uint32_t roff)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)sbuf + off, .length = len, .lkey = skey};
	uint64_t raddr = (uintptr_t)rbuf + roff;

	dpv_mlx5_wr_start(&c->sq, IBV_QPT_DRIVER, c->qpn);
	dpv_mlx5_wr_op(&c->sq, wr_id, IBV_SEND_SIGNALED, op);
	if (op == IBV_WR_RDMA_WRITE || op == IBV_WR_RDMA_READ)
		dpv_mlx5_wr_rdma(&c->sq, rkey, raddr);
	else if (op == IBV_WR_ATOMIC_FETCH_AND_ADD)
		dpv_mlx5_wr_atomic(&c->sq, rkey, raddr, 5, 0);
	dpv_mlx5_wr_dc_addr(&c->sq, &ah.ibv_ah, t->qpn, key);
	dpv_mlx5_wr_sge_list(&c->sq, 1, &sge);
	return dpv_mlx5_wr_complete(&c->sq);
}

static int
post_srq(struct dct *t, uint64_t wr_id, uint32_t roff, uint32_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)rbuf + roff, .length = len, .lkey = rkey};
	struct ibv_recv_wr wr = {.wr_id = wr_id, .sg_list = &sge, .num_sge = 1},
			   *bad;

	return dpv_mlx5_post_recv(&t->srq, &wr, &bad);
}

static uint64_t
qp_stat(uint32_t qpn, size_t off)
{
	struct dpv_engine_qp_stats st;

	if (dpv_engine_qp_stats_get(eng, qpn, &st) != 0)
		return UINT64_MAX;
	return *(const uint64_t *)((const uint8_t *)&st + off);
}
#define QP_STAT(qpn, f) qp_stat(qpn, offsetof(struct dpv_engine_qp_stats, f))

/* One DCI, two DCTs, the target changing with every WQE (all posted at
 * once: each waits for the one before to complete): SEND, WRITE, READ
 * and FETCH_ADD, bytes checked. */
static int
test_dc_two_targets(void)
{
	struct dci *c = &dci[0];
	struct ibv_wc wc;
	uint64_t wr;

	for (uint32_t i = 0; i < 4096; i++)
		sbuf[i] = (uint8_t)(i * 7 + 3);
	TEST_ASSERT_EQUAL(post_srq(&dct[0], 100, 0, 4096), 0, "");
	TEST_ASSERT_EQUAL(post_srq(&dct[1], 200, 4096, 4096), 0, "");
	/* SEND of 3 packets to A, 2 to B; WRITEs; READs back */
	TEST_ASSERT_EQUAL(post(c, &dct[0], KEY_A, IBV_WR_SEND, 1, 0, 3000, 0),
			  0, "");
	TEST_ASSERT_EQUAL(post(c, &dct[1], KEY_B, IBV_WR_SEND, 2, 100, 2000,
			       0),
			  0, "");
	TEST_ASSERT_EQUAL(post(c, &dct[0], KEY_A, IBV_WR_RDMA_WRITE, 3, 200,
			       1500, 8192),
			  0, "");
	TEST_ASSERT_EQUAL(post(c, &dct[1], KEY_B, IBV_WR_RDMA_WRITE, 4, 300,
			       1500, 10240),
			  0, "");
	TEST_ASSERT_EQUAL(post(c, &dct[0], KEY_A, IBV_WR_RDMA_READ, 5, 4096,
			       1500, 8192),
			  0, "");
	TEST_ASSERT_EQUAL(post(c, &dct[1], KEY_B, IBV_WR_RDMA_READ, 6, 6144,
			       1500, 10240),
			  0, "");
	*(uint64_t *)(rbuf + 12288) = 37;
	TEST_ASSERT_EQUAL(post(c, &dct[0], KEY_A, IBV_WR_ATOMIC_FETCH_AND_ADD,
			       7, 8192, 8, 12288),
			  0, "");
	for (wr = 1; wr <= 7; wr++) {
		TEST_ASSERT_EQUAL(wait_wc(&c->cq, &wc), 0, "wr %" PRIu64, wr);
		TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "wr %" PRIu64 ": %d",
				  wr, wc.status);
		TEST_ASSERT_EQUAL(wc.wr_id, wr, "in order");
	}
	TEST_ASSERT_EQUAL(wait_wc(&dct[0].cq, &wc), 0, "");
	TEST_ASSERT(wc.status == IBV_WC_SUCCESS && wc.wr_id == 100 &&
			    wc.byte_len == 3000 && wc.qp_num == QPN_A,
		    "A's receive: %d %u", wc.status, wc.byte_len);
	TEST_ASSERT_EQUAL(wait_wc(&dct[1].cq, &wc), 0, "");
	TEST_ASSERT(wc.status == IBV_WC_SUCCESS && wc.wr_id == 200 &&
			    wc.byte_len == 2000 && wc.qp_num == QPN_B,
		    "B's receive: %d %u", wc.status, wc.byte_len);
	TEST_ASSERT_BUFFERS_EQUAL(rbuf, sbuf, 3000, "SEND to A");
	TEST_ASSERT_BUFFERS_EQUAL(rbuf + 4096, sbuf + 100, 2000, "SEND to B");
	TEST_ASSERT_BUFFERS_EQUAL(rbuf + 8192, sbuf + 200, 1500, "WRITE A");
	TEST_ASSERT_BUFFERS_EQUAL(rbuf + 10240, sbuf + 300, 1500, "WRITE B");
	TEST_ASSERT_BUFFERS_EQUAL(sbuf + 4096, sbuf + 200, 1500, "READ A");
	TEST_ASSERT_BUFFERS_EQUAL(sbuf + 6144, sbuf + 300, 1500, "READ B");
	TEST_ASSERT_EQUAL(*(uint64_t *)(sbuf + 8192), 37, "original value");
	TEST_ASSERT_EQUAL(*(uint64_t *)(rbuf + 12288), 42, "added");
	/* every WQE changed the target: 7 connections; A saw 4, B 3 */
	TEST_ASSERT_EQUAL(QP_STAT(QPN_I1, dc_connects), 7, "");
	TEST_ASSERT_EQUAL(QP_STAT(QPN_A, dc_connects), 4, "");
	TEST_ASSERT_EQUAL(QP_STAT(QPN_B, dc_connects), 3, "");
	TEST_ASSERT_EQUAL(QP_STAT(QPN_A, dc_key_errors), 0, "");
	return TEST_SUCCESS;
}

/* Two DCIs into one DCT, their messages interleaved on the wire. */
static int
test_dc_two_initiators(void)
{
	struct ibv_wc wc;
	unsigned got[2] = {0, 0};

	for (uint32_t i = 0; i < 8192; i++)
		sbuf[i] = (uint8_t)(i * 11 + 5 + (i / 1024) * 37);
	for (uint32_t k = 0; k < 8; k++)
		TEST_ASSERT_EQUAL(post_srq(&dct[0], 300 + k, k * 1024, 1024),
				  0, "");
	for (uint32_t k = 0; k < 4; k++) {
		TEST_ASSERT_EQUAL(post(&dci[0], &dct[0], KEY_A, IBV_WR_SEND,
				       10 + k, k * 1024, 1024, 0),
				  0, "");
		TEST_ASSERT_EQUAL(post(&dci[1], &dct[0], KEY_A, IBV_WR_SEND,
				       20 + k, 4096 + k * 1024, 1024, 0),
				  0, "");
	}
	for (uint32_t k = 0; k < 4; k++) {
		TEST_ASSERT_EQUAL(wait_wc(&dci[0].cq, &wc), 0, "");
		TEST_ASSERT(wc.status == IBV_WC_SUCCESS && wc.wr_id == 10 + k,
			    "DCI 1: %d", wc.status);
		TEST_ASSERT_EQUAL(wait_wc(&dci[1].cq, &wc), 0, "");
		TEST_ASSERT(wc.status == IBV_WC_SUCCESS && wc.wr_id == 20 + k,
			    "DCI 2: %d", wc.status);
	}
	for (uint32_t k = 0; k < 8; k++) {
		const uint8_t *r;
		uint32_t from;

		TEST_ASSERT_EQUAL(wait_wc(&dct[0].cq, &wc), 0, "recv %u", k);
		TEST_ASSERT(wc.status == IBV_WC_SUCCESS && wc.byte_len == 1024,
			    "recv %d", wc.status);
		r = rbuf + (wc.wr_id - 300) * 1024;
		/* which message landed there: the one whose bytes match */
		for (from = 0; from < 8; from++)
			if (memcmp(r, sbuf + from * 1024, 1024) == 0)
				break;
		TEST_ASSERT(from < 8, "receive %" PRIu64 " holds a message",
			    wc.wr_id);
		got[from / 4] |= 1u << (from % 4);
	}
	TEST_ASSERT(got[0] == 0xf && got[1] == 0xf, "all 8 messages");
	TEST_ASSERT_EQUAL(QP_STAT(QPN_A, dc_connects), 2, "one per DCI");
	return TEST_SUCCESS;
}

/* A wrong key: dropped at the DCT and counted, nothing delivered; the DCI
 * retries and fails. The DCT keeps serving the right key. */
static int
test_dc_wrong_key(void)
{
	struct ibv_wc wc;

	memset(rbuf + 8192, 0, 64);
	memset(sbuf, 0x5a, 64);
	TEST_ASSERT_EQUAL(post_srq(&dct[0], 400, 0, 64), 0, "");
	TEST_ASSERT_EQUAL(post(&dci[0], &dct[0], KEY_B, IBV_WR_SEND, 1, 0, 64,
			       0),
			  0, "");
	TEST_ASSERT_EQUAL(post(&dci[1], &dct[0], KEY_A ^ 1,
			       IBV_WR_RDMA_WRITE, 2, 0, 64, 8192),
			  0, "");
	TEST_ASSERT_EQUAL(wait_wc(&dci[0].cq, &wc), 0, "");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_RETRY_EXC_ERR, "%d", wc.status);
	TEST_ASSERT_EQUAL(wait_wc(&dci[1].cq, &wc), 0, "");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_RETRY_EXC_ERR, "%d", wc.status);
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_poll(&dct[0].cq, 1, &wc, lookup, NULL), 0,
			  "nothing received");
	for (int i = 0; i < 64; i++)
		TEST_ASSERT_EQUAL(rbuf[8192 + i], 0, "nothing written");
	/* first try and one retry, from each DCI */
	TEST_ASSERT_EQUAL(QP_STAT(QPN_A, dc_key_errors), 4, "");
	TEST_ASSERT_EQUAL(QP_STAT(QPN_A, dc_connects), 0, "");
	TEST_ASSERT_EQUAL(dpv_engine_qp_state(eng, QPN_A), IBV_QPS_RTR,
			  "the DCT lives on");
	return TEST_SUCCESS;
}

/* The DCT is destroyed while WRITEs to it are in flight: the DCI's WQEs
 * complete (done before, or retries exhausted), nothing crashes, the
 * other DCT keeps working. */
static int
test_dc_dct_destroy(void)
{
	struct ibv_wc wc;
	unsigned ok = 0, failed = 0;

	for (uint32_t k = 0; k < 8; k++)
		TEST_ASSERT_EQUAL(post(&dci[0], &dct[0], KEY_A,
				       IBV_WR_RDMA_WRITE, k, 0, 1024,
				       k * 1024),
				  0, "");
	dpv_engine_poll(eng, 4);
	TEST_ASSERT_EQUAL(dpv_engine_qp_destroy(eng, QPN_A), 0, "");
	dct[0].live = false;
	for (uint32_t k = 0; k < 8; k++) {
		TEST_ASSERT_EQUAL(wait_wc(&dci[0].cq, &wc), 0, "wqe %u", k);
		if (wc.status == IBV_WC_SUCCESS)
			ok++;
		else
			failed++;
	}
	TEST_ASSERT(failed > 0, "%u done, %u failed", ok, failed);
	TEST_ASSERT_EQUAL(dpv_engine_qp_state(eng, QPN_I1), IBV_QPS_ERR, "");
	/* the other DCI reaches the other DCT */
	TEST_ASSERT_EQUAL(post(&dci[1], &dct[1], KEY_B, IBV_WR_RDMA_WRITE, 9,
			       0, 64, 0),
			  0, "");
	TEST_ASSERT_EQUAL(wait_wc(&dci[1].cq, &wc), 0, "");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "%d", wc.status);
	return TEST_SUCCESS;
}

static int
test_dc_create_checks(void)
{
	struct dpv_mlx5_sq *sq = &dci[0].sq;
	struct dpv_engine_qp_init in = {.qpn = 0x60,
					.type = IBV_QPT_DRIVER,
					.sq = sq,
					.send_cq = &dci[0].cq};

	TEST_ASSERT_EQUAL(dpv_engine_qp_create(eng, &in), -EINVAL,
			  "no dc_type");
	in.dc_type = DPV_ENGINE_DC_DCT;
	in.srq = &dct[0].srq;
	in.recv_cq = &dct[0].cq;
	TEST_ASSERT_EQUAL(dpv_engine_qp_create(eng, &in), -EINVAL,
			  "DCT with a send queue");
	in = (struct dpv_engine_qp_init){.qpn = 0x61,
					 .type = IBV_QPT_DRIVER,
					 .dc_type = DPV_ENGINE_DC_DCT};
	TEST_ASSERT_EQUAL(dpv_engine_qp_create(eng, &in), -EINVAL,
			  "DCT without an SRQ");
	in.dc_type = DPV_ENGINE_DC_DCI;
	TEST_ASSERT_EQUAL(dpv_engine_qp_create(eng, &in), -EINVAL,
			  "DCI without a send queue");
	in.dc_type = 3;
	TEST_ASSERT_EQUAL(dpv_engine_qp_create(eng, &in), -EINVAL,
			  "unknown dc_type");
	return TEST_SUCCESS;
}

static const struct dpv_test_suite engine_dc_suite = {
	.name = "engine_dc",
	.setup = suite_setup,
	.teardown = suite_teardown,
	.cases =
		{
			TEST_CASE_ST(setup, teardown, test_dc_two_targets),
			TEST_CASE_ST(setup, teardown, test_dc_two_initiators),
			TEST_CASE_ST(setup_fast_fail, teardown,
				     test_dc_wrong_key),
			TEST_CASE_ST(setup_fast_fail, teardown,
				     test_dc_dct_destroy),
			TEST_CASE_ST(setup, teardown, test_dc_create_checks),
			TEST_CASES_END(),
		},
};

static int
engine_dc(void)
{
	return dpv_test_run_suite(&engine_dc_suite);
}

DPV_TEST_REGISTER_FAST(engine_dc, engine_dc);
