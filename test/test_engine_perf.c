/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Engine throughput on its internal loopback (one thread runs both QPs, so
 * every byte is built, checked, copied and acknowledged by the same core):
 * RC WRITE bandwidth and RC SEND message rate. Prints numbers.
 */
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_mbuf.h>

#include "dpv_test.h"
#include "dpv_engine.h"
#include "dpv_roce_gid.h"
#include "mlx5_ring.h"

#define QA 0x21
#define QB 0x22
#define SZ (64 * 1024)

struct pq {
	struct dpv_mlx5_sq sq;
	struct dpv_mlx5_rq rq;
	struct dpv_mlx5_cq cq;
};

static struct pq pa, pb;

static struct dpv_mlx5_wq *
lookup(void *arg, uint32_t qpn, bool recv)
{
	struct pq *p = qpn == QA ? &pa : &pb;

	RTE_SET_USED(arg);
	return recv ? &p->rq.wq : &p->sq.wq;
}

static int
mkqp(struct dpv_engine *e, struct pq *p, uint32_t qpn, uint32_t peer)
{
	struct dpv_engine_qp_init in = {
		.qpn = qpn,
		.type = IBV_QPT_RC,
		.pdn = 1,
		.sq = &p->sq,
		.rq = &p->rq,
		.send_cq = &p->cq,
		.recv_cq = &p->cq,
		.max_send_wr = 256,
	};
	struct dpv_engine_path path = {0};
	struct ibv_qp_attr a = {0};

	if (dpv_mlx5_cq_init(&p->cq, 1024, SOCKET_ID_ANY) ||
	    dpv_mlx5_sq_init(&p->sq, 256, 1, 0, SOCKET_ID_ANY) ||
	    dpv_mlx5_rq_init(&p->rq, 256, 1, SOCKET_ID_ANY))
		return -1;
	dpv_mlx5_qp_link_dbrec(&p->sq, &p->rq);
	dpv_mlx5_sq_bind(&p->sq, IBV_QPT_RC, qpn);
	if (dpv_engine_qp_create(e, &in))
		return -1;
	dpv_roce_gid_from_ipv4(path.sgid, rte_cpu_to_be_32(0xc0000201));
	memcpy(path.dgid, path.sgid, 16);
	a.qp_state = IBV_QPS_INIT;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
	if (dpv_engine_qp_modify(e, qpn, &a, IBV_QP_STATE | IBV_QP_ACCESS_FLAGS,
				 NULL))
		return -1;
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = peer;
	if (dpv_engine_qp_modify(e, qpn, &a,
				 IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
					 IBV_QP_DEST_QPN,
				 &path))
		return -1;
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	return dpv_engine_qp_modify(e, qpn, &a,
				    IBV_QP_STATE | IBV_QP_TIMEOUT |
					    IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY,
				    NULL);
}

static void
rmqp(struct dpv_engine *e, struct pq *p, uint32_t qpn)
{
	dpv_engine_qp_destroy(e, qpn);
	dpv_mlx5_sq_fini(&p->sq);
	dpv_mlx5_rq_fini(&p->rq);
	dpv_mlx5_cq_fini(&p->cq);
}

/* Keep depth operations in flight for about a second. */
static int
run(struct dpv_engine *e, enum ibv_wr_opcode op, uint32_t len, uint8_t *buf,
    uint32_t key, double *ops_s)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)buf, .length = len, .lkey = key};
	struct ibv_send_wr wr = {.sg_list = &sge,
				 .num_sge = 1,
				 .opcode = op,
				 .send_flags = IBV_SEND_SIGNALED},
			   *bad;
	struct ibv_recv_wr rwr = {.sg_list = &sge, .num_sge = 1}, *rbad;
	uint64_t hz = rte_get_timer_hz(), t0 = rte_get_timer_cycles();
	uint64_t done = 0, posted = 0, end = t0 + hz;
	struct ibv_wc wc[32];
	const unsigned depth = 64;

	wr.wr.rdma.remote_addr = (uintptr_t)buf + SZ;
	wr.wr.rdma.rkey = key;
	while (rte_get_timer_cycles() < end || done < posted) {
		if (rte_get_timer_cycles() < end) {
			while (posted - done < depth) {
				if (op == IBV_WR_SEND &&
				    dpv_mlx5_post_recv(&pb.rq, &rwr, &rbad)) {
					DPV_TEST_LOG("post_recv");
					return -1;
				}
				if (dpv_mlx5_post_send(&pa.sq, IBV_QPT_RC, QA,
						       &wr, &bad)) {
					DPV_TEST_LOG("post_send");
					return -1;
				}
				posted++;
			}
		}
		dpv_engine_poll(e, 64);
		int n = dpv_mlx5_cq_poll(&pa.cq, 32, wc, lookup, NULL);

		for (int i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS) {
				DPV_TEST_LOG("status %d", wc[i].status);
				return -1;
			}
			done++;
		}
		/* the receiver's completions free its receive queue */
		while (dpv_mlx5_cq_poll(&pb.cq, 32, wc, lookup, NULL) > 0)
			;
		if (rte_get_timer_cycles() > end + 5 * hz) {
			DPV_TEST_LOG("stuck: %" PRIu64 " of %" PRIu64, done,
				     posted);
			return -1;
		}
	}
	*ops_s = (double)done * hz / (double)(rte_get_timer_cycles() - t0);
	return 0;
}

static int
engine_perf(void)
{
	struct dpv_engine_conf conf = {.max_keys = 16};
	struct rte_mempool *mp;
	struct dpv_engine *e;
	struct dpv_engine_key k = {0};
	uint8_t *buf;
	double w, s;
	int ret;

	if (dpv_test_eal_init() != 0)
		return TEST_SKIPPED;
	mp = rte_pktmbuf_pool_create("eng_perf_mp", 4095, 256, 0,
				     RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	TEST_ASSERT_NOT_NULL(mp, "");
	conf.mp = mp;
	e = dpv_engine_create(NULL, &conf);
	TEST_ASSERT_NOT_NULL(e, "");
	buf = aligned_alloc(4096, 2 * SZ);
	TEST_ASSERT_NOT_NULL(buf, "");
	memset(buf, 1, 2 * SZ);
	k.addr = k.iova = (uintptr_t)buf;
	k.length = 2 * SZ;
	k.access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	k.pdn = 1;
	TEST_ASSERT_EQUAL(dpv_engine_key_set(e, (1 << 8 | 0x11), &k), 0, "");
	TEST_ASSERT_EQUAL(mkqp(e, &pa, QA, QB), 0, "");
	TEST_ASSERT_EQUAL(mkqp(e, &pb, QB, QA), 0, "");
	ret = run(e, IBV_WR_RDMA_WRITE, SZ, buf, (1 << 8 | 0x11), &w);
	if (ret == 0)
		ret = run(e, IBV_WR_SEND, 64, buf, (1 << 8 | 0x11), &s);
	rmqp(e, &pa, QA);
	rmqp(e, &pb, QB);
	dpv_engine_destroy(e);
	free(buf);
	rte_mempool_free(mp);
	TEST_ASSERT_EQUAL(ret, 0, "a completion failed or timed out");
	printf("engine loopback, one core: RC WRITE 64 KiB %.2f Gbit/s (%.0f "
	       "ops/s); "
	       "RC SEND 64 B %.0f msg/s\n",
	       w * SZ * 8 / 1e9, w, s);
	return TEST_SUCCESS;
}

DPV_TEST_REGISTER_PERF(engine_perf, engine_perf);
