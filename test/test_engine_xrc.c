/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * XRC in the engine without the verbs layer: an XRC_SEND QP and an
 * XRC_RECV (target) QP of one engine on its internal loopback wire. The
 * requests name an XRC SRQ (XRCETH); the target finds it through the
 * srq_lookup hook, receives into it, completes on the SRQ's CQ and checks
 * keys against the SRQ's PD.
 */
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "dpv_test.h"
#include "test_engine_util.h"
#include "dpv_engine.h"
#include "dpv_roce_gid.h"
#include "mlx5_ring.h"

#define QPN_S	 0x21 /* XRC_SEND */
#define QPN_T	 0x22 /* XRC_RECV */
#define SRQN	 0x33 /* XRC SRQ of domain XRCDN */
#define SRQN_X	 0x34 /* XRC SRQ of another domain */
#define XRCDN	 5
#define PDN	 3
#define BUF_SIZE 8192
#define MAX_ITER 20000

static struct rte_mempool *mp;
static struct dpv_engine *eng;
static struct dpv_mlx5_sq sq;
static struct dpv_mlx5_cq scq, srq_cq;
static struct dpv_mlx5_rq srq, srq_x;
static uint8_t *sbuf, *rbuf;
static uint32_t skey, rkey;
static uint8_t mac[6] = {0x02, 0, 0, 0, 0, 0x02};

static struct dpv_mlx5_wq *
lookup(void *arg, uint32_t qpn, bool recv)
{
	RTE_SET_USED(arg);
	if (recv && qpn == (DPV_MLX5_LOOKUP_SRQ | SRQN))
		return &srq.wq;
	if (recv && qpn == (DPV_MLX5_LOOKUP_SRQ | SRQN_X))
		return &srq_x.wq;
	if (!recv && qpn == QPN_S)
		return &sq.wq;
	return NULL;
}

static bool
srq_lookup(void *arg, uint32_t srqn, struct dpv_engine_srq *out)
{
	RTE_SET_USED(arg);
	if (srqn != SRQN && srqn != SRQN_X)
		return false;
	out->rq = srqn == SRQN ? &srq : &srq_x;
	out->cq = &srq_cq;
	out->pdn = PDN;
	out->xrcdn = srqn == SRQN ? XRCDN : XRCDN + 1;
	return true;
}

static int
suite_setup(void)
{
	return test_engine_pool_setup(&mp, "xrc_test_mp");
}

static void
suite_teardown(void)
{
	test_engine_pool_free(&mp);
}

static uint32_t
reg(uint32_t idx, void *addr)
{
	uint32_t key = idx << 8 | 0x11;
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

static int
modify(uint32_t qpn, uint32_t dest)
{
	struct dpv_engine_path path;
	struct test_engine_conn c = {
		.path = &path,
		.mtu = IBV_MTU_1024,
		.dest_qpn = dest,
		.psn = 0x10,
		.timeout = 14,
		.rnr_retry = 7,
	};

	memset(&path, 0, sizeof(path));
	memcpy(path.smac, mac, 6);
	memcpy(path.dmac, mac, 6);
	dpv_roce_gid_from_ipv4(path.sgid, rte_cpu_to_be_32(0xc0000202));
	memcpy(path.dgid, path.sgid, 16);
	return test_engine_connect(eng, qpn, &c);
}

static int
setup(void)
{
	struct dpv_engine_conf conf = {.mp = mp, .max_keys = 64};
	struct dpv_engine_qp_init si = {.qpn = QPN_S,
					.type = IBV_QPT_XRC_SEND,
					.pdn = PDN,
					.sq = &sq,
					.send_cq = &scq,
					.max_send_wr = 64};
	struct dpv_engine_qp_init ti = {
		.qpn = QPN_T, .type = IBV_QPT_XRC_RECV, .xrcdn = XRCDN};

	conf.srq_lookup = srq_lookup;
	memcpy(conf.mac, mac, 6);
	dpv_roce_gid_from_ipv4(conf.gid, rte_cpu_to_be_32(0xc0000202));
	eng = dpv_engine_create(NULL, &conf);
	if (eng == NULL)
		return -1;
	if (dpv_mlx5_cq_init(&scq, 128, SOCKET_ID_ANY) ||
	    dpv_mlx5_cq_init(&srq_cq, 128, SOCKET_ID_ANY) ||
	    dpv_mlx5_sq_init(&sq, 64, 4, 64, SOCKET_ID_ANY) ||
	    dpv_mlx5_srq_init(&srq, 32, 2, SOCKET_ID_ANY) ||
	    dpv_mlx5_srq_init(&srq_x, 32, 2, SOCKET_ID_ANY))
		return -1;
	dpv_mlx5_qp_link_dbrec(&sq, NULL);
	dpv_mlx5_sq_bind(&sq, IBV_QPT_XRC_SEND, QPN_S);
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
	/* a target needs a PD-less create: no rings, no CQs */
	if (dpv_engine_qp_create(eng, &si) || dpv_engine_qp_create(eng, &ti))
		return -1;
	return modify(QPN_S, QPN_T) || modify(QPN_T, QPN_S) ? -1 : 0;
}

static void
teardown(void)
{
	if (eng == NULL)
		return;
	dpv_engine_qp_destroy(eng, QPN_S);
	dpv_engine_qp_destroy(eng, QPN_T);
	dpv_engine_destroy(eng);
	eng = NULL;
	dpv_mlx5_sq_fini(&sq);
	dpv_mlx5_rq_fini(&srq);
	dpv_mlx5_rq_fini(&srq_x);
	dpv_mlx5_cq_fini(&scq);
	dpv_mlx5_cq_fini(&srq_cq);
	free(sbuf);
	free(rbuf);
	sbuf = rbuf = NULL;
}

static int
wait_wc(struct dpv_mlx5_cq *cq, struct ibv_wc *wc)
{
	return test_engine_wait_wc(eng, cq, wc, lookup, MAX_ITER);
}

static int
post(enum ibv_wr_opcode op, uint64_t wr_id, uint32_t off, uint32_t len,
     uint64_t raddr, uint32_t srqn)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)sbuf + off, .length = len, .lkey = skey};
	struct ibv_send_wr wr = {.wr_id = wr_id,
				 .sg_list = &sge,
				 .num_sge = 1,
				 .opcode = op,
				 .send_flags = IBV_SEND_SIGNALED},
			   *bad;

	wr.qp_type.xrc.remote_srqn = srqn;
	if (op == IBV_WR_ATOMIC_FETCH_AND_ADD ||
	    op == IBV_WR_ATOMIC_CMP_AND_SWP) {
		wr.wr.atomic.remote_addr = raddr;
		wr.wr.atomic.rkey = rkey;
		wr.wr.atomic.compare_add = 5;
		if (op == IBV_WR_ATOMIC_CMP_AND_SWP) {
			wr.wr.atomic.compare_add = 42;
			wr.wr.atomic.swap = 7;
		}
	} else {
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = rkey;
	}
	return dpv_mlx5_post_send(&sq, IBV_QPT_XRC_SEND, QPN_S, &wr, &bad);
}

static int
post_srq(struct dpv_mlx5_rq *q, uint64_t wr_id, uint32_t off, uint32_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)rbuf + off, .length = len, .lkey = rkey};
	struct ibv_recv_wr wr = {.wr_id = wr_id, .sg_list = &sge, .num_sge = 1},
			   *bad;

	return dpv_mlx5_post_recv(q, &wr, &bad);
}

/* SEND (3 packets) into the SRQ, WRITE, READ and atomic through XRC. */
static int
test_xrc_ops(void)
{
	struct ibv_wc wc;

	for (uint32_t i = 0; i < 3000; i++)
		sbuf[i] = (uint8_t)(i * 13 + 1);
	TEST_ASSERT_EQUAL(post_srq(&srq, 100, 0, 4096), 0, "");
	TEST_ASSERT_EQUAL(post(IBV_WR_SEND, 1, 0, 3000, 0, SRQN), 0, "");
	TEST_ASSERT_EQUAL(wait_wc(&scq, &wc), 0, "");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "send %d", wc.status);
	TEST_ASSERT_EQUAL(wc.wr_id, 1, "");
	TEST_ASSERT_EQUAL(wait_wc(&srq_cq, &wc), 0, "");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "recv %d", wc.status);
	TEST_ASSERT_EQUAL(wc.wr_id, 100, "from the SRQ");
	TEST_ASSERT_EQUAL(wc.byte_len, 3000, "");
	TEST_ASSERT_EQUAL(wc.qp_num, QPN_T, "target QP");
	TEST_ASSERT_BUFFERS_EQUAL(rbuf, sbuf, 3000, "");

	TEST_ASSERT_EQUAL(post(IBV_WR_RDMA_WRITE, 2, 0, 2000,
			       (uintptr_t)rbuf + 4096, SRQN),
			  0, "");
	TEST_ASSERT_EQUAL(wait_wc(&scq, &wc), 0, "");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "write %d", wc.status);
	TEST_ASSERT_BUFFERS_EQUAL(rbuf + 4096, sbuf, 2000, "");

	memset(sbuf + 4096, 0, 2000);
	TEST_ASSERT_EQUAL(post(IBV_WR_RDMA_READ, 3, 4096, 2000,
			       (uintptr_t)rbuf + 4096, SRQN),
			  0, "");
	TEST_ASSERT_EQUAL(wait_wc(&scq, &wc), 0, "");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "read %d", wc.status);
	TEST_ASSERT_BUFFERS_EQUAL(sbuf + 4096, rbuf + 4096, 2000, "");

	*(uint64_t *)(rbuf + 7000) = 37;
	TEST_ASSERT_EQUAL(post(IBV_WR_ATOMIC_FETCH_AND_ADD, 4, 6000, 8,
			       (uintptr_t)rbuf + 7000, SRQN),
			  0, "");
	TEST_ASSERT_EQUAL(wait_wc(&scq, &wc), 0, "");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "atomic %d", wc.status);
	TEST_ASSERT_EQUAL(*(uint64_t *)(sbuf + 6000), 37, "original value");
	TEST_ASSERT_EQUAL(*(uint64_t *)(rbuf + 7000), 42, "added");
	TEST_ASSERT_EQUAL(post(IBV_WR_ATOMIC_CMP_AND_SWP, 6, 6008, 8,
			       (uintptr_t)rbuf + 7000, SRQN),
			  0, "");
	TEST_ASSERT_EQUAL(wait_wc(&scq, &wc), 0, "");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "cas %d", wc.status);
	TEST_ASSERT_EQUAL(*(uint64_t *)(sbuf + 6008), 42, "original value");
	TEST_ASSERT_EQUAL(*(uint64_t *)(rbuf + 7000), 7, "swapped");
	return TEST_SUCCESS;
}

/* An SRQ of another XRC domain, or no SRQ at all: NAK, error completion. */
static int
test_xrc_wrong_srq(void)
{
	struct ibv_wc wc;

	TEST_ASSERT_EQUAL(post_srq(&srq_x, 200, 0, 64), 0, "");
	TEST_ASSERT_EQUAL(post(IBV_WR_SEND, 5, 0, 16, 0, SRQN_X), 0, "");
	TEST_ASSERT_EQUAL(wait_wc(&scq, &wc), 0, "");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_REM_INV_REQ_ERR, "status %d",
			  wc.status);
	for (int i = 0; i < 20; i++)
		dpv_engine_poll(eng, 32);
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_poll(&srq_cq, 1, &wc, lookup, NULL), 0,
			  "nothing received");
	TEST_ASSERT_EQUAL(dpv_engine_qp_state(eng, QPN_S), IBV_QPS_ERR, "");
	return TEST_SUCCESS;
}

static int
test_xrc_create_checks(void)
{
	struct dpv_engine_qp_init in = {.qpn = 0x40,
					.type = IBV_QPT_XRC_RECV,
					.sq = &sq,
					.send_cq = &scq};

	TEST_ASSERT_EQUAL(dpv_engine_qp_create(eng, &in), -EINVAL,
			  "target with a send queue");
	in = (struct dpv_engine_qp_init){.qpn = 0x41,
					 .type = IBV_QPT_XRC_SEND,
					 .srq = &srq,
					 .recv_cq = &srq_cq};
	TEST_ASSERT_EQUAL(dpv_engine_qp_create(eng, &in), -EINVAL,
			  "XRC_SEND with a receive queue");
	return TEST_SUCCESS;
}

static const struct dpv_test_suite engine_xrc_suite = {
	.name = "engine_xrc",
	.setup = suite_setup,
	.teardown = suite_teardown,
	.cases =
		{
			TEST_CASE_ST(setup, teardown, test_xrc_ops),
			TEST_CASE_ST(setup, teardown, test_xrc_wrong_srq),
			TEST_CASE_ST(setup, teardown, test_xrc_create_checks),
			TEST_CASES_END(),
		},
};

static int
engine_xrc(void)
{
	return dpv_test_run_suite(&engine_xrc_suite);
}

DPV_TEST_REGISTER_FAST(engine_xrc, engine_xrc);
