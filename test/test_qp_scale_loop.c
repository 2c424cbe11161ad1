/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * 10,000 RC QPs on one device, in loopback: created, connected in pairs
 * (QP 2k with QP 2k+1), then every QP RDMA-WRITEs 64 bytes into a slot of
 * its own and SENDs 64 bytes to its peer, and every byte is checked on the
 * other side; then all are destroyed and the memory they took comes back.
 * The memory per QP (driver rings, DPDK heap, resident set) and the time of
 * each phase are printed.
 *
 * DPV_SCALE_QPS=N sets the number of QPs (even, default 10,000, at most
 * the device's max_qp less those already there).
 *
 * qp_scale_loss: the same with 2,000 QPs and 1 % of the frames lost each
 * way (DPV_FAULT): the QPs whose request or ACK was lost wait off the
 * engine's run list, and only its timer sweep finds them due (a QP whose
 * retransmission timer is missed never completes: the case fails).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>

#include "dpv_test.h"
#include "mlx5_ring.h"
#include "test_loop_util.h"
#include "test_verbs_util.h"

#define MSG	 64
#define BATCH	 1000 /* QPs with traffic at once (even) */
#define LIMIT_S	 100  /* the whole case, at most */
#define WAIT_MS	 30000

static struct ibv_device **devs;
static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *scq, *rcq;
static struct ibv_mr *mr;
static struct ibv_qp **qps;
static uint8_t *mem; /* per QP: WRITE source, SEND source, WRITE target,
		      * receive buffer (MSG bytes each) */
static int nqp;
static int nqp_default = 10000;

enum { SL_WSRC, SL_SSRC, SL_WDST, SL_RECV, SL_NUM };

static uint8_t *
slot(int qp, int which)
{
	return mem + ((size_t)qp * SL_NUM + (size_t)which) * MSG;
}

static uint8_t
pat(int qp, int which, int k)
{
	return (uint8_t)(qp * 131 + which * 71 + k * 7 + (qp >> 8));
}

static double
secs(uint64_t since)
{
	return (double)(rte_get_timer_cycles() - since) / rte_get_timer_hz();
}

static int
suite_setup(void)
{
	const char *env = getenv("DPV_SCALE_QPS");

	nqp = env != NULL && atoi(env) > 1 ? atoi(env) & ~1 : nqp_default;
	if (test_verbs_open_first(&devs, &ctx) != TEST_SUCCESS)
		return TEST_SKIPPED;
	pd = ibv_alloc_pd(ctx);
	scq = ibv_create_cq(ctx, 2 * BATCH, NULL, NULL, 0);
	rcq = ibv_create_cq(ctx, BATCH, NULL, NULL, 0);
	mem = calloc((size_t)nqp * SL_NUM, MSG);
	qps = calloc((size_t)nqp, sizeof(*qps));
	if (pd == NULL || scq == NULL || rcq == NULL || mem == NULL ||
	    qps == NULL)
		return TEST_FAILED;
	mr = ibv_reg_mr(pd, mem, (size_t)nqp * SL_NUM * MSG,
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	return mr != NULL ? TEST_SUCCESS : TEST_FAILED;
}

static void
suite_teardown(void)
{
	for (int i = 0; qps != NULL && i < nqp; i++)
		if (qps[i] != NULL)
			ibv_destroy_qp(qps[i]);
	if (mr)
		ibv_dereg_mr(mr);
	if (scq)
		ibv_destroy_cq(scq);
	if (rcq)
		ibv_destroy_cq(rcq);
	test_verbs_release(&devs, &ctx, &pd);
	free(qps);
	free(mem);
	qps = NULL;
	mem = NULL;
	mr = NULL;
	scq = rcq = NULL;
}

static int
post(int i)
{
	struct ibv_sge rs = {(uintptr_t)slot(i, SL_RECV), MSG, mr->lkey};
	struct ibv_recv_wr rwr = {.wr_id = (uint64_t)i, .sg_list = &rs,
				  .num_sge = 1};
	struct ibv_sge ws = {(uintptr_t)slot(i, SL_WSRC), MSG, mr->lkey};
	struct ibv_sge ss = {(uintptr_t)slot(i, SL_SSRC), MSG, mr->lkey};
	struct ibv_send_wr swr = {.wr_id = (uint64_t)i << 1 | 1,
				  .sg_list = &ss,
				  .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED};
	struct ibv_send_wr wwr = {.wr_id = (uint64_t)i << 1,
				  .next = &swr,
				  .sg_list = &ws,
				  .num_sge = 1,
				  .opcode = IBV_WR_RDMA_WRITE,
				  .send_flags = IBV_SEND_SIGNALED};
	struct ibv_recv_wr *rbad;
	struct ibv_send_wr *sbad;

	for (int k = 0; k < MSG; k++) {
		slot(i, SL_WSRC)[k] = pat(i, SL_WSRC, k);
		slot(i, SL_SSRC)[k] = pat(i, SL_SSRC, k);
	}
	wwr.wr.rdma.remote_addr = (uintptr_t)slot(i, SL_WDST);
	wwr.wr.rdma.rkey = mr->rkey;
	if (ibv_post_recv(qps[i], &rwr, &rbad) != 0)
		return -1;
	return ibv_post_send(qps[i], &wwr, &sbad) != 0 ? -1 : 0;
}

/* Traffic on QPs [from, to): every completion good, every byte right. */
static int
traffic(int from, int to)
{
	struct ibv_wc wc[64];
	int want = to - from, sent = 0, recvd = 0, n;
	uint64_t end = rte_get_timer_cycles() +
		       rte_get_timer_hz() * WAIT_MS / 1000;

	for (int i = from; i < to; i++) {
		if (post(i) != 0) {
			DPV_TEST_LOG("QP %d: post: %s", i, strerror(errno));
			return -1;
		}
	}
	while ((sent < 2 * want || recvd < want) &&
	       rte_get_timer_cycles() < end) {
		n = ibv_poll_cq(scq, 64, wc);
		for (int k = 0; k < n; k++) {
			if (wc[k].status != IBV_WC_SUCCESS) {
				DPV_TEST_LOG("QP %lu: send: %s",
					     (unsigned long)(wc[k].wr_id >> 1),
					     ibv_wc_status_str(wc[k].status));
				return -1;
			}
			sent++;
		}
		n = ibv_poll_cq(rcq, 64, wc);
		for (int k = 0; k < n; k++) {
			int i = (int)wc[k].wr_id;

			if (wc[k].status != IBV_WC_SUCCESS ||
			    wc[k].byte_len != MSG ||
			    wc[k].qp_num != qps[i]->qp_num) {
				DPV_TEST_LOG("QP %d: receive: %s, %u bytes, "
					     "QP 0x%x",
					     i, ibv_wc_status_str(wc[k].status),
					     wc[k].byte_len, wc[k].qp_num);
				return -1;
			}
			recvd++;
		}
	}
	if (sent < 2 * want || recvd < want) {
		DPV_TEST_LOG("QPs %d..%d: %d of %d send and %d of %d receive "
			     "completions in %d ms",
			     from, to - 1, sent, 2 * want, recvd, want,
			     WAIT_MS);
		return -1;
	}
	for (int i = from; i < to; i++) {
		for (int k = 0; k < MSG; k++) {
			if (slot(i, SL_WDST)[k] != pat(i, SL_WSRC, k) ||
			    slot(i, SL_RECV)[k] != pat(i ^ 1, SL_SSRC, k)) {
				DPV_TEST_LOG("QP %d: byte %d wrong: WRITE %u "
					     "(want %u), SEND %u (want %u)",
					     i, k, slot(i, SL_WDST)[k],
					     pat(i, SL_WSRC, k),
					     slot(i, SL_RECV)[k],
					     pat(i ^ 1, SL_SSRC, k));
				return -1;
			}
		}
	}
	return 0;
}

static int
case_10k_loopback(void)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = scq,
		.recv_cq = rcq,
		.qp_type = IBV_QPT_RC,
		.cap = {.max_send_wr = 2,
			.max_recv_wr = 1,
			.max_send_sge = 1,
			.max_recv_sge = 1},
	};
	uint64_t mlx0 = dpv_mlx5_mem_in_use(), heap0 = test_loop_heap();
	uint64_t rss0 = test_loop_rss(), mlx1, heap1, rss1;
	uint64_t t0 = rte_get_timer_cycles(), t;
	double t_create, t_conn, t_traffic, t_destroy;
	union ibv_gid gid;
	int gi = test_loop_gid(ctx, &gid), err;

	TEST_ASSERT(gi >= 0, "no GID on dpv0");
	for (int i = 0; i < nqp; i++) {
		qps[i] = ibv_create_qp(pd, &ia);
		TEST_ASSERT_NOT_NULL(qps[i], "QP %d of %d: %s", i, nqp,
				     strerror(errno));
	}
	t_create = secs(t0);
	mlx1 = dpv_mlx5_mem_in_use();
	heap1 = test_loop_heap();
	t = rte_get_timer_cycles();
	for (int i = 0; i < nqp; i++) {
		struct test_loop_conn c = {
			.dest_qpn = qps[i ^ 1]->qp_num,
			.sq_psn = (uint32_t)i * 977 & 0xffffff,
			.rq_psn = (uint32_t)(i ^ 1) * 977 & 0xffffff,
			.mtu = IBV_MTU_1024,
			.timeout = 14,
			.rd_atomic = 1,
		};

		err = test_loop_connect(qps[i], gi, &c);
		TEST_ASSERT_EQUAL(err, 0, "connect QP %d: %s", i,
				  strerror(err));
		TEST_ASSERT(secs(t0) < LIMIT_S, "connecting: over %d s",
			    LIMIT_S);
	}
	t_conn = secs(t);
	rss1 = test_loop_rss();
	t = rte_get_timer_cycles();
	for (int i = 0; i < nqp; i += BATCH) {
		TEST_ASSERT_EQUAL(traffic(i, RTE_MIN(i + BATCH, nqp)), 0,
				  "traffic");
		TEST_ASSERT(secs(t0) < LIMIT_S, "traffic: over %d s", LIMIT_S);
	}
	t_traffic = secs(t);
	t = rte_get_timer_cycles();
	for (int i = 0; i < nqp; i++) {
		TEST_ASSERT_EQUAL(ibv_destroy_qp(qps[i]), 0, "destroy QP %d",
				  i);
		qps[i] = NULL;
	}
	t_destroy = secs(t);
	DPV_TEST_LOG("%d RC QPs: create %.2f s, connect %.2f s, traffic "
		     "%.2f s (%d WRITEs + %d SENDs of %d bytes, all checked), "
		     "destroy %.2f s",
		     nqp, t_create, t_conn, t_traffic, nqp, nqp, MSG,
		     t_destroy);
	DPV_TEST_LOG("memory per QP: %" PRIu64 " bytes of rings, %" PRIu64
		     " bytes of DPDK heap, %" PRIu64 " bytes of resident set "
		     "(connected)",
		     (mlx1 - mlx0) / nqp, (heap1 - heap0) / nqp,
		     rss1 > rss0 ? (rss1 - rss0) / nqp : 0);
	TEST_ASSERT_EQUAL(dpv_mlx5_mem_in_use(), mlx0,
			  "ring memory kept after destroy");
	TEST_ASSERT_EQUAL(test_loop_heap(), heap0,
			  "DPDK heap kept after destroy");
	return TEST_SUCCESS;
}

static struct dpv_test_suite qp_scale_loop_suite = {
	.name = "qp_scale_loop",
	.setup = suite_setup,
	.teardown = suite_teardown,
	.cases =
		{
			TEST_CASE(case_10k_loopback),
			TEST_CASES_END(),
		},
};

static int
qp_scale_loop(void)
{
	return dpv_test_run_suite(&qp_scale_loop_suite);
}

DPV_TEST_REGISTER_FAST(qp_scale_10k, qp_scale_loop);

static int
qp_scale_loss(void)
{
	/* read when the device list is made (suite_setup) */
	setenv("DPV_FAULT", "all:drop=1%", 1);
	nqp_default = 2000;
	return dpv_test_run_suite(&qp_scale_loop_suite);
}

DPV_TEST_REGISTER_FAST(qp_scale_loss, qp_scale_loss);
