/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Engine throughput on its internal loopback (one thread runs both QPs, so
 * every byte is built, checked, copied and acknowledged by the same core):
 * RC WRITE bandwidth, and RC SEND message rate over 1 to 4,096 QPs
 * (DPV_PERF_QPS=1,16,... picks the counts) with the DPDK memory each QP
 * takes. Prints RESULT lines (devtools/bench.py reads them).
 * DPV_PERF_TIMEOUT=n sets the QPs' ACK timeout exponent (14 by default):
 * 20 or so keeps a run under callgrind free of retransmissions.
 */
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "dpv_test.h"
#include "dpv_engine.h"
#include "dpv_roce_gid.h"
#include "mlx5_ring.h"

#define QBASE 0x100 /* requester i: QBASE + 2i, its responder + 1 */
#define SZ (64 * 1024)
#define WR_DEPTH 64

struct pq {
	struct dpv_mlx5_sq sq;
	struct dpv_mlx5_rq rq;
};

static struct pq *pqs;		 /* 2 * nqp entries, by (qpn - QBASE) */
static struct dpv_mlx5_cq cq[2]; /* requesters', responders' */

static struct dpv_mlx5_wq *
lookup(void *arg, uint32_t qpn, bool recv)
{
	struct pq *p = &pqs[qpn - QBASE];

	RTE_SET_USED(arg);
	return recv ? &p->rq.wq : &p->sq.wq;
}

static int
mkqp(struct dpv_engine *e, struct pq *p, uint32_t qpn, uint32_t peer,
     struct dpv_mlx5_cq *c)
{
	struct dpv_engine_qp_init in = {
		.qpn = qpn,
		.type = IBV_QPT_RC,
		.pdn = 1,
		.sq = &p->sq,
		.rq = &p->rq,
		.send_cq = c,
		.recv_cq = c,
		.max_send_wr = WR_DEPTH,
	};
	struct dpv_engine_path path = {0};
	struct ibv_qp_attr a = {0};

	if (dpv_mlx5_sq_init(&p->sq, WR_DEPTH, 1, 0, SOCKET_ID_ANY) ||
	    dpv_mlx5_rq_init(&p->rq, WR_DEPTH, 1, SOCKET_ID_ANY))
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
	/* DPV_PERF_TIMEOUT: a longer ACK timeout for runs under valgrind,
	 * whose pace would make the default retransmit */
	a.timeout = getenv("DPV_PERF_TIMEOUT")
			    ? (uint8_t)atoi(getenv("DPV_PERF_TIMEOUT"))
			    : 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	return dpv_engine_qp_modify(e, qpn, &a,
				    IBV_QP_STATE | IBV_QP_TIMEOUT |
					    IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY,
				    NULL);
}

static void
rmqps(struct dpv_engine *e, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		dpv_engine_qp_destroy(e, QBASE + i);
		dpv_mlx5_sq_fini(&pqs[i].sq);
		dpv_mlx5_rq_fini(&pqs[i].rq);
	}
}

static size_t
heap_used(void)
{
	struct rte_malloc_socket_stats st;
	size_t used = 0;

	for (int s = 0; s < RTE_MAX_NUMA_NODES; s++)
		if (rte_malloc_get_socket_stats(s, &st) == 0)
			used += st.heap_allocsz_bytes;
	/* rings and per-QP engine state are the process's memory */
	return used + dpv_mlx5_mem_in_use();
}

/*
 * Keep operations in flight on each of nqp requesters (posted round
 * robin) for about secs seconds; ops/s of all of them.
 */
/* messages completed by the last run() (instructions per message under
 * callgrind: the Ir of run() over this) */
static uint64_t last_done;

static int
run(struct dpv_engine *e, unsigned int nqp, enum ibv_wr_opcode op,
    uint32_t len, uint8_t *buf, uint32_t key, double secs, double *ops_s)
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
	uint64_t done = 0, posted = 0, end = t0 + (uint64_t)(secs * hz);
	/* 64 to 1,024 messages in flight in all (one per QP at least): more
	 * would only queue longer than the ACK timeout */
	unsigned int depth = RTE_MAX(64u, RTE_MIN(nqp * 16, 1024u)), next = 0;
	unsigned int per_qp = RTE_MAX(1u, depth / nqp);
	uint32_t *out = calloc(nqp, sizeof(*out));
	struct ibv_wc wc[32];

	if (out == NULL)
		return -1;
	wr.wr.rdma.remote_addr = (uintptr_t)buf + SZ;
	wr.wr.rdma.rkey = key;
	while (rte_get_timer_cycles() < end || done < posted) {
		for (unsigned int k = 0; k < nqp && posted - done < depth &&
					 rte_get_timer_cycles() < end;
		     k++, next = (next + 1) % nqp) {
			struct pq *a = &pqs[2 * next], *b = a + 1;

			if (out[next] >= per_qp)
				continue;
			if (op == IBV_WR_SEND &&
			    dpv_mlx5_post_recv(&b->rq, &rwr, &rbad)) {
				DPV_TEST_LOG("post_recv");
				goto fail;
			}
			wr.wr_id = next;
			if (dpv_mlx5_post_send(&a->sq, IBV_QPT_RC,
					       QBASE + 2 * next, &wr, &bad)) {
				DPV_TEST_LOG("post_send");
				goto fail;
			}
			if (dpv_engine_kick_wanted(e))
				dpv_engine_qp_kick(e, &a->sq);
			out[next]++;
			posted++;
		}
		dpv_engine_poll(e, 64);
		int n = dpv_mlx5_cq_poll(&cq[0], 32, wc, lookup, NULL);

		for (int i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS) {
				DPV_TEST_LOG("status %d", wc[i].status);
				goto fail;
			}
			out[wc[i].wr_id]--;
			done++;
		}
		/* the receiver's completions free its receive queue */
		while (dpv_mlx5_cq_poll(&cq[1], 32, wc, lookup, NULL) > 0)
			;
		if (rte_get_timer_cycles() > end + 5 * hz) {
			DPV_TEST_LOG("stuck: %" PRIu64 " of %" PRIu64, done,
				     posted);
			goto fail;
		}
	}
	free(out);
	*ops_s = (double)done * hz / (double)(rte_get_timer_cycles() - t0);
	last_done = done;
	return 0;
fail:
	free(out);
	return -1;
}

/* Builds nqp requester/responder pairs; runs op; tears them down. */
static int
run_qps(struct dpv_engine *e, unsigned int nqp, enum ibv_wr_opcode op,
	uint32_t len, uint8_t *buf, uint32_t key, double secs, double *ops_s,
	size_t *bytes_per_qp)
{
	size_t heap0 = heap_used();
	unsigned int made = 0;
	int ret = -1;

	pqs = calloc(2 * nqp, sizeof(*pqs));
	if (pqs == NULL)
		return -1;
	for (; made < 2 * nqp; made++) {
		uint32_t qpn = QBASE + made, peer = qpn ^ 1;

		if (mkqp(e, &pqs[made], qpn, peer, &cq[made & 1])) {
			DPV_TEST_LOG("QP %u of %u", made, 2 * nqp);
			made++;
			goto out;
		}
	}
	*bytes_per_qp = (heap_used() - heap0) / (2 * nqp);
	ret = run(e, nqp, op, len, buf, key, secs, ops_s);
out:
	rmqps(e, made);
	free(pqs);
	pqs = NULL;
	return ret;
}

static int
engine_perf(void)
{
	const char *qenv = getenv("DPV_PERF_QPS");
	double secs = getenv("DPV_PERF_QUICK") ? 0.3 : 1.0;
	const char *senv = getenv("DPV_PERF_SECS"); /* per case */
	struct dpv_engine_conf conf = {.max_keys = 16, .max_qps = 8192 + 64};
	char list[128], *tok, *save;
	struct rte_mempool *mp;
	struct dpv_engine *e;
	struct dpv_engine_key k = {0};
	uint32_t key = 1 << 8 | 0x11;
	size_t per_qp;
	uint8_t *buf;
	double w, s = 0;
	int ret;

	if (senv != NULL && atof(senv) > 0)
		secs = atof(senv);
	if (dpv_test_eal_init() != 0)
		return TEST_SKIPPED;
	/* 4,096 pairs need ~800 MB: devtools/bench.py asks with -m 2048 */
	snprintf(list, sizeof(list), "%s", qenv ? qenv : "1,16,256");
	mp = rte_pktmbuf_pool_create("eng_perf_mp", 8191, 256, 0,
				     RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	TEST_ASSERT_NOT_NULL(mp, "");
	conf.mp = mp;
	e = dpv_engine_create(NULL, &conf);
	TEST_ASSERT_NOT_NULL(e, "");
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_init(&cq[0], 1 << 16, SOCKET_ID_ANY), 0,
			  "");
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_init(&cq[1], 1 << 16, SOCKET_ID_ANY), 0,
			  "");
	buf = aligned_alloc(4096, 2 * SZ);
	TEST_ASSERT_NOT_NULL(buf, "");
	memset(buf, 1, 2 * SZ);
	k.addr = k.iova = (uintptr_t)buf;
	k.length = 2 * SZ;
	k.access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	k.pdn = 1;
	TEST_ASSERT_EQUAL(dpv_engine_key_set(e, key, &k), 0, "");
	/* DPV_PERF_NO_WRITE: only the 64 B SEND runs (for profiles) */
	ret = getenv("DPV_PERF_NO_WRITE")
		      ? 1
		      : run_qps(e, 1, IBV_WR_RDMA_WRITE, SZ, buf, key, secs,
				&w, &per_qp);
	if (ret == 1)
		ret = 0;
	else if (ret == 0)
		printf("RESULT engine_perf op=write size=%u qps=1 gbps=%.3f "
		       "msg_mps=%.4f\n",
		       SZ, w * SZ * 8 / 1e9, w / 1e6);
	for (tok = strtok_r(list, ",", &save); ret == 0 && tok != NULL;
	     tok = strtok_r(NULL, ",", &save)) {
		unsigned int n = (unsigned int)strtoul(tok, NULL, 0);

		if (n == 0 || n > 4096) {
			DPV_TEST_LOG("DPV_PERF_QPS: %s not in 1..4096", tok);
			ret = -1;
			break;
		}
		struct dpv_engine_stats st0, st1;

		dpv_engine_stats_get(e, &st0);
		ret = run_qps(e, n, IBV_WR_SEND, 64, buf, key, secs, &s,
			      &per_qp);
		dpv_engine_stats_get(e, &st1);
		printf("%s engine_perf op=send size=64 qps=%u "
		       "msg_mps=%.4f bytes_per_qp=%zu retransmits=%" PRIu64
		       " tx_drop_full=%" PRIu64 " msgs=%" PRIu64 "\n",
		       ret == 0 ? "RESULT" : "FAILED", n, s / 1e6, per_qp,
		       st1.retransmits - st0.retransmits,
		       st1.tx_drop_full - st0.tx_drop_full, last_done);
		fflush(stdout);
	}
	dpv_mlx5_cq_fini(&cq[0]);
	dpv_mlx5_cq_fini(&cq[1]);
	dpv_engine_destroy(e);
	free(buf);
	rte_mempool_free(mp);
	TEST_ASSERT_EQUAL(ret, 0, "a completion failed or timed out");
	return TEST_SUCCESS;
}

DPV_TEST_REGISTER_PERF(engine_perf, engine_perf);
