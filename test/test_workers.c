/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Embedded progress API (dpv_verbs.h) with the runner's EAL (embedded
 * mode): an RC RDMA WRITE between two QPs of the loopback device dpv0
 * lands only while the test drives the engine with dpv_device_poll();
 * argument errors; dpv_device_progress_get() says "application". And
 * with dpv_device_rx(): the test takes every frame off the loopback port's
 * queue itself (as an application's own RX loop would) and hands it to
 * the stack, so the WRITE and its ACK reach the engine only that way. The
 * worker-lcore mode needs an EAL the library starts itself: see
 * test/scripts/fast-workers.sh.
 */
#include <errno.h>
#include <string.h>

#include <infiniband/verbs.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "dpv_port.h"
#include "dpv_test.h"
#include "dpv_verbs.h"
#include "test_verbs_util.h"

#define WLEN 256

static int
qp_connect(struct ibv_qp *qp, uint32_t dest, const union ibv_gid *gid,
	   int gidx)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
					  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = *gid;
	a.ah_attr.grh.sgid_index = (uint8_t)gidx;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = 1;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dest;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
					  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
					  IBV_QP_MAX_DEST_RD_ATOMIC |
					  IBV_QP_MIN_RNR_TIMER))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
					     IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
					     IBV_QP_RNR_RETRY |
					     IBV_QP_MAX_QP_RD_ATOMIC);
}

/* Frames on the device's own queue, handed back through dpv_device_rx. */
static int
steal_and_inject(struct ibv_context *ctx, uint16_t ethdev, uint16_t qid)
{
	struct rte_mbuf *pkts[32];
	uint16_t n = rte_eth_rx_burst(ethdev, qid, pkts, 32);
	int r;

	if (n == 0)
		return 0;
	r = dpv_device_rx(ctx, pkts, n);
	if (r < 0)
		r = 0;
	for (uint16_t i = (uint16_t)r; i < n; i++)
		rte_pktmbuf_free(pkts[i]);
	return r == n ? r : -ENOSPC;
}

/*
 * inject: before each engine iteration, take the frames waiting on the
 * device's own RX queue and give them back through dpv_device_rx().
 */
static int
rdma_write(bool inject)
{
	static uint8_t src[WLEN], dst[WLEN];
	struct ibv_qp_init_attr qia;
	struct dpv_device_progress pr;
	struct ibv_device **devs;
	struct ibv_context *ctx = NULL;
	struct ibv_send_wr wr, *bad;
	struct ibv_qp *qa, *qb;
	struct ibv_mr *ms, *md;
	struct ibv_sge sge;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_wc wc;
	union ibv_gid gid;
	int i, n, r, gidx, got = 0;
	long work = 0, polls = 0, injected = 0;
	struct dpv_port_info pi;
	struct dpv_port *port;
	uint16_t qid = 0;

	if (dpv_test_eal_init() != 0)
		return TEST_SKIPPED;
	TEST_ASSERT_EQUAL(dpv_device_poll(NULL, 0), -EINVAL, "");
	TEST_ASSERT_EQUAL(dpv_device_progress_get(NULL, &pr), -EINVAL, "");
	devs = ibv_get_device_list(&n);
	for (i = 0; devs != NULL && i < n; i++)
		if (strcmp(ibv_get_device_name(devs[i]), "dpv0") == 0)
			ctx = ibv_open_device(devs[i]);
	if (devs != NULL)
		ibv_free_device_list(devs);
	if (ctx == NULL) {
		DPV_TEST_LOG("no device dpv0");
		return TEST_SKIPPED;
	}
	TEST_ASSERT_EQUAL(dpv_device_progress_get(ctx, NULL), -EINVAL, "");
	r = dpv_device_progress_get(ctx, &pr);
	if (r == -ENODEV) {
		ibv_close_device(ctx);
		return TEST_SKIPPED; /* no transport */
	}
	TEST_ASSERT_EQUAL(r, 0, "");
	/* the runner owns EAL: only the application makes progress */
	TEST_ASSERT_EQUAL(pr.mode, DPV_DEVICE_PROGRESS_APP, "");
	TEST_ASSERT_EQUAL(pr.worker_polls, 0, "");
	gidx = test_verbs_first_gid(ctx, &gid);
	TEST_ASSERT(gidx >= 0, "no GID");
	port = dpv_port_by_name("dpv0");
	TEST_ASSERT_NOT_NULL(port, "");
	TEST_ASSERT_EQUAL(dpv_port_query(port, &pi), 0, "");
	qid = dpv_port_queue_base(port);
	TEST_ASSERT_EQUAL(dpv_device_rx(ctx, NULL, 1), -EINVAL, "");
	TEST_ASSERT_EQUAL(dpv_device_rx(ctx, NULL, 0), 0, "");

	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	TEST_ASSERT(pd && cq, "");
	ms = ibv_reg_mr(pd, src, sizeof(src), IBV_ACCESS_LOCAL_WRITE);
	md = ibv_reg_mr(pd, dst, sizeof(dst),
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	TEST_ASSERT(ms && md, "");
	memset(&qia, 0, sizeof(qia));
	qia.qp_type = IBV_QPT_RC;
	qia.send_cq = qia.recv_cq = cq;
	qia.cap.max_send_wr = qia.cap.max_recv_wr = 4;
	qia.cap.max_send_sge = qia.cap.max_recv_sge = 1;
	qa = ibv_create_qp(pd, &qia);
	qb = ibv_create_qp(pd, &qia);
	TEST_ASSERT(qa && qb, "");
	TEST_ASSERT_EQUAL(qp_connect(qa, qb->qp_num, &gid, gidx), 0, "");
	TEST_ASSERT_EQUAL(qp_connect(qb, qa->qp_num, &gid, gidx), 0, "");

	for (i = 0; i < WLEN; i++)
		src[i] = (uint8_t)(i * 13 + 5);
	memset(dst, 0, sizeof(dst));
	sge.addr = (uintptr_t)src;
	sge.length = WLEN;
	sge.lkey = ms->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 7;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = (uintptr_t)dst;
	wr.wr.rdma.rkey = md->rkey;
	TEST_ASSERT_EQUAL(ibv_post_send(qa, &wr, &bad), 0, "");

	/* only dpv_device_poll() runs the engine until the bytes land */
	for (polls = 0; polls < 100000 && memcmp(src, dst, WLEN) != 0;
	     polls++) {
		if (inject) {
			r = steal_and_inject(ctx, pi.ethdev, qid);
			TEST_ASSERT(r >= 0, "dpv_device_rx: %d", r);
			injected += r;
		}
		r = dpv_device_poll(ctx, 0);
		TEST_ASSERT(r >= 0, "dpv_device_poll: %d", r);
		work += r;
	}
	TEST_ASSERT(memcmp(src, dst, WLEN) == 0,
		    "RDMA WRITE did not land after %ld polls", polls);
	TEST_ASSERT(work > 0, "dpv_device_poll reported no work");
	/* the ACK: the completion appears (poll_cq may drive too) */
	for (i = 0; i < 100000 && got == 0; i++) {
		if (inject) {
			r = steal_and_inject(ctx, pi.ethdev, qid);
			TEST_ASSERT(r >= 0, "dpv_device_rx: %d", r);
			injected += r;
		}
		r = dpv_device_poll(ctx, 16);
		TEST_ASSERT(r >= 0, "");
		got = ibv_poll_cq(cq, 1, &wc);
	}
	TEST_ASSERT_EQUAL(got, 1, "no completion");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "%s",
			  ibv_wc_status_str(wc.status));
	TEST_ASSERT_EQUAL(wc.wr_id, 7, "");
	DPV_TEST_LOG("write landed after %ld dpv_device_poll calls (work %ld, "
		     "%ld frames through dpv_device_rx)", polls, work, injected);
	/* the WRITE and its ACK at least */
	if (inject)
		TEST_ASSERT(injected >= 2, "only %ld frames injected", injected);

	TEST_ASSERT_EQUAL(ibv_destroy_qp(qa), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_qp(qb), 0, "");
	ibv_dereg_mr(ms);
	ibv_dereg_mr(md);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return TEST_SUCCESS;
}

static int
test_device_poll(void)
{
	return rdma_write(false);
}

static int
test_device_rx(void)
{
	return rdma_write(true);
}

DPV_TEST_REGISTER_FAST(workers_device_poll, test_device_poll);
DPV_TEST_REGISTER_FAST(workers_device_rx, test_device_rx);
