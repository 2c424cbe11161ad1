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
#include <rte_launch.h>
#include <rte_lcore.h>
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
	struct dpv_mlx5_sq sq __rte_cache_aligned; /* as in struct dpv_qp */
	struct dpv_mlx5_rq rq __rte_cache_aligned;
};

/* The QPs one engine (one shard) runs, and their two CQs. */
struct pset {
	struct dpv_engine *e;
	uint32_t qbase;		 /* its first QPN */
	struct pq *pqs;		 /* 2 * nqp entries, by (qpn - qbase) */
	struct dpv_mlx5_cq cq[2]; /* requesters', responders' */
	uint64_t done;		 /* messages completed by its last run() */
	double ops_s;		 /* and their rate */
	int ret;
} __rte_cache_aligned; /* shards run side by side: no line in common */

static struct dpv_mlx5_wq *
lookup(void *arg, uint32_t qpn, bool recv)
{
	struct pset *ps = arg;
	struct pq *p = &ps->pqs[qpn - ps->qbase];

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
rmqps(struct pset *ps, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		dpv_engine_qp_destroy(ps->e, ps->qbase + i);
		dpv_mlx5_sq_fini(&ps->pqs[i].sq);
		dpv_mlx5_rq_fini(&ps->pqs[i].rq);
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
 * Keep operations in flight on each of nqp requesters of ps (posted round
 * robin, each QP's share of the depth filled at its turn) for about secs
 * seconds; ops/s of all of them in ps->ops_s and
 * their number in ps->done (instructions per message under callgrind: the
 * Ir of run() over this).
 */
static int
run(struct pset *ps, unsigned int nqp, enum ibv_wr_opcode op, uint32_t len,
    uint8_t *buf, uint32_t key, double secs)
{
	struct dpv_engine *e = ps->e;
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
	for (;;) {
		/* one clock read a pass, not one per QP visited (an rdtsc
		 * takes ~11 ns on this VM) */
		uint64_t now = rte_get_timer_cycles();

		if (now >= end && done >= posted)
			break;
		for (unsigned int k = 0;
		     now < end && k < nqp && posted - done < depth;
		     k++, next = (next + 1) % nqp) {
			struct pq *a = &ps->pqs[2 * next], *b = a + 1;

			/* the QP's whole share: one post a visit kept a lone
			 * QP at 3.5 messages in flight of its 64, a ping-pong
			 * through the engine rather than a full queue */
			while (out[next] < per_qp && posted - done < depth) {
				if (op == IBV_WR_SEND &&
				    dpv_mlx5_post_recv(&b->rq, &rwr, &rbad)) {
					DPV_TEST_LOG("post_recv");
					goto fail;
				}
				wr.wr_id = next;
				if (dpv_mlx5_post_send(&a->sq, IBV_QPT_RC,
						       ps->qbase + 2 * next,
						       &wr, &bad)) {
					DPV_TEST_LOG("post_send");
					goto fail;
				}
				if (dpv_engine_kick_wanted(e))
					dpv_engine_qp_kick(e, &a->sq);
				out[next]++;
				posted++;
			}
		}
		dpv_engine_poll(e, 64);
		int n = dpv_mlx5_cq_poll(&ps->cq[0], 32, wc, lookup, ps);

		for (int i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS) {
				DPV_TEST_LOG("status %d", wc[i].status);
				goto fail;
			}
			out[wc[i].wr_id]--;
			done++;
		}
		/* the receiver's completions free its receive queue */
		while (dpv_mlx5_cq_poll(&ps->cq[1], 32, wc, lookup, ps) > 0)
			;
		if (now > end + 5 * hz) {
			DPV_TEST_LOG("stuck: %" PRIu64 " of %" PRIu64, done,
				     posted);
			goto fail;
		}
	}
	free(out);
	ps->ops_s = (double)done * hz / (double)(rte_get_timer_cycles() - t0);
	ps->done = done;
	return 0;
fail:
	free(out);
	return -1;
}

/* Build nqp requester/responder pairs in ps (0 or -1). */
static int
mkpairs(struct pset *ps, unsigned int nqp, unsigned int *made)
{
	/* whole pages: the rings' application-side state of two shards
	 * (each written by its own lcore) shares no cache line; a calloc'ed
	 * array next to the other shard's cost each shard ~8 % */
	size_t sz = RTE_ALIGN_CEIL(2 * nqp * sizeof(*ps->pqs), 4096);

	ps->pqs = aligned_alloc(4096, sz);
	if (ps->pqs == NULL)
		return -1;
	memset(ps->pqs, 0, sz);
	for (*made = 0; *made < 2 * nqp; (*made)++) {
		uint32_t qpn = ps->qbase + *made, peer = qpn ^ 1;

		if (mkqp(ps->e, &ps->pqs[*made], qpn, peer,
			 &ps->cq[*made & 1])) {
			DPV_TEST_LOG("QP %u of %u", *made, 2 * nqp);
			(*made)++;
			return -1;
		}
	}
	return 0;
}

static void
rmpairs(struct pset *ps, unsigned int made)
{
	rmqps(ps, made);
	free(ps->pqs);
	ps->pqs = NULL;
}

/*
 * The cost of one poll of the engine once its QPs are idle (what a
 * progress thread or worker pays per poll beside an idle application):
 * ns per dpv_engine_poll() over 0.1 s, after 20 ms to settle.
 */
static double
idle_poll_ns(struct dpv_engine *e)
{
	uint64_t hz = rte_get_timer_hz(), t0 = rte_get_timer_cycles(), t1;
	uint64_t n = 0;

	while (rte_get_timer_cycles() - t0 < hz / 50)
		dpv_engine_poll(e, 64);
	t0 = rte_get_timer_cycles();
	do {
		for (int k = 0; k < 64; k++)
			dpv_engine_poll(e, 64);
		n += 64;
		t1 = rte_get_timer_cycles();
	} while (t1 - t0 < hz / 10);
	return (double)(t1 - t0) * 1e9 / (double)hz / (double)n;
}

/* Builds nqp requester/responder pairs; runs op; with idle_ns, measures an
 * idle poll (idle_poll_ns()), then (idle_ns[1]) the same once posts kick
 * (dpv_engine_set_posts_kick(): no doorbell scan, as under the verbs
 * library); tears them down. */
static int
run_qps(struct pset *ps, unsigned int nqp, enum ibv_wr_opcode op,
	uint32_t len, uint8_t *buf, uint32_t key, double secs,
	size_t *bytes_per_qp, double idle_ns[2])
{
	size_t heap0 = heap_used();
	unsigned int made = 0;
	int ret = -1;

	if (mkpairs(ps, nqp, &made) == 0) {
		*bytes_per_qp = (heap_used() - heap0) / (2 * nqp);
		ret = run(ps, nqp, op, len, buf, key, secs);
		if (ret == 0 && idle_ns != NULL) {
			idle_ns[0] = idle_poll_ns(ps->e);
			dpv_engine_set_posts_kick(ps->e, true);
			idle_ns[1] = idle_poll_ns(ps->e);
			dpv_engine_set_posts_kick(ps->e, false);
		}
	}
	rmpairs(ps, made);
	return ret;
}

/* ------------------------------------------------------------- shards */

#define MAX_SHARDS 4u
#define SHARD_QPNS 0x4000 /* QPNs of shard s: from QBASE + s * SHARD_QPNS */

static struct pset shards[MAX_SHARDS];
static unsigned int nshards;

/* the engines' conf.qp_owner: QPNs by range */
static struct dpv_engine *
shard_owner(void *arg, uint32_t qpn)
{
	uint32_t s = (qpn - QBASE) / SHARD_QPNS;

	RTE_SET_USED(arg);
	return qpn >= QBASE && s < nshards ? shards[s].e : NULL;
}

/* An engine (home: the home shard, NULL for the first or only one) with
 * its two CQs and the buffer's key. */
static int
pset_init(struct pset *ps, struct rte_mempool *mp, struct dpv_engine *home,
	  bool sharded, uint32_t qbase, uint8_t *buf, uint32_t key)
{
	struct dpv_engine_conf conf = {
		.max_keys = 16, .max_qps = 8192 + 64, .mp = mp, .home = home};
	struct dpv_engine_key k = {0};

	memset(ps, 0, sizeof(*ps));
	ps->qbase = qbase;
	if (sharded)
		conf.qp_owner = shard_owner;
	ps->e = dpv_engine_create(NULL, &conf);
	if (ps->e == NULL ||
	    dpv_mlx5_cq_init(&ps->cq[0], 1 << 16, SOCKET_ID_ANY) ||
	    dpv_mlx5_cq_init(&ps->cq[1], 1 << 16, SOCKET_ID_ANY))
		return -1;
	k.addr = k.iova = (uintptr_t)buf;
	k.length = 2 * SZ;
	k.access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	k.pdn = 1;
	return dpv_engine_key_set(ps->e, key, &k);
}

static void
pset_fini(struct pset *ps)
{
	dpv_mlx5_cq_fini(&ps->cq[0]);
	dpv_mlx5_cq_fini(&ps->cq[1]);
	dpv_engine_destroy(ps->e);
	ps->e = NULL;
}

struct shard_job {
	struct pset *ps;
	unsigned int nqp;
	uint8_t *buf;
	uint32_t key;
	double secs;
};

static int
shard_run(void *arg)
{
	struct shard_job *j = arg;

	j->ps->ret = run(j->ps, j->nqp, IBV_WR_SEND, 64, j->buf, j->key,
			 j->secs);
	return 0;
}

/* The l-th lcore (0: the main one, then the workers in order); false if
 * EAL has fewer. */
static bool
lcore_at(unsigned int l, unsigned int *lcore)
{
	unsigned int k = 0, w;

	*lcore = rte_get_main_lcore();
	if (l == 0)
		return true;
	RTE_LCORE_FOREACH_WORKER(w) {
		if (++k == l) {
			*lcore = w;
			return true;
		}
	}
	return false;
}

/* A warm-up round and a timed one of job on the l-th lcore (0 or -1). */
static int
solo_round(struct shard_job *job, unsigned int l, double secs)
{
	unsigned int lcore;

	if (!lcore_at(l, &lcore))
		return -1;
	for (unsigned int round = 0; round < 2; round++) {
		job->secs = round == 0 ? 1.0 : secs;
		if (lcore == rte_get_main_lcore()) {
			shard_run(job);
		} else {
			if (rte_eal_remote_launch(shard_run, job, lcore))
				return -1;
			rte_eal_wait_lcore(lcore);
		}
	}
	return 0;
}

/* The line of a shards case (RESULT, or FAILED if ret): the rate of all,
 * then each part's (label: per_shard or per_lcore), in M msg/s. */
static void
print_shards(int ret, unsigned int n, unsigned int qps, double total,
	     const char *label, const double *part, unsigned int nparts)
{
	printf("%s engine_perf op=send size=64 shards=%u qps=%u msg_mps=%.4f "
	       "%s=",
	       ret == 0 ? "RESULT" : "FAILED", n, qps, total / 1e6, label);
	for (unsigned int i = 0; i < nparts; i++)
		printf("%s%.4f", i ? "," : "", part[i] / 1e6);
	printf("\n");
	fflush(stdout);
}

/*
 * One device served by n shards, each run by its own lcore (the main one
 * and n - 1 EAL workers), each with nqp QP pairs of its own and its own
 * packet pool (as each worker has its own mempool cache) and its own
 * buffer (the applications of two cores do not receive into the same
 * bytes): the rate of all of them, printed as engine_perf op=send
 * shards=n. One shard (n = 1) runs on each of the first solo lcores in
 * turn and prints their mean, and each one's rate as per_lcore.
 */
static int
shards_case(unsigned int n, unsigned int solo, unsigned int nqp, uint32_t key,
	    double secs)
{
	struct rte_mempool *mp[MAX_SHARDS] = {0};
	uint8_t *buf[MAX_SHARDS] = {0};
	struct shard_job job[MAX_SHARDS];
	unsigned int made[MAX_SHARDS] = {0}, lcore, s;
	double total = 0, alone[MAX_SHARDS]; /* each shard's or lcore's */
	int rc;
	int ret = -1;

	if (n > MAX_SHARDS || rte_lcore_count() < n) {
		DPV_TEST_LOG("shards=%u: EAL has %u lcores (give -l 0-%u)", n,
			     rte_lcore_count(), n - 1);
		return -1;
	}
	nshards = n;
	for (s = 0; s < n; s++) {
		char name[32];

		snprintf(name, sizeof(name), "eng_shard_mp%u", s);
		mp[s] = rte_pktmbuf_pool_create(name, 8191, 256, 0,
						RTE_MBUF_DEFAULT_BUF_SIZE,
						SOCKET_ID_ANY);
		buf[s] = aligned_alloc(4096, 2 * SZ);
		if (mp[s] == NULL || buf[s] == NULL)
			goto out;
		memset(buf[s], 1, 2 * SZ);
		/* each shard's rings and QP state in an arena of its own, as
		 * the library places them (two shards' blocks in one page
		 * made 1.2x one lcore's rate, 1.7x in arenas of their own) */
		dpv_mlx5_mem_arena_set(s);
		rc = pset_init(&shards[s], mp[s], s ? shards[0].e : NULL, true,
			       QBASE + s * SHARD_QPNS, buf[s], key);
		if (rc == 0)
			rc = mkpairs(&shards[s], nqp, &made[s]);
		dpv_mlx5_mem_arena_set(0);
		if (rc)
			goto out;
		job[s] = (struct shard_job){&shards[s], nqp, buf[s], key, secs};
	}
	if (n == 1) {
		/* one shard: on each of the solo lcores in turn, their mean
		 * (a VM's vCPUs need not run at the same speed: the mean is
		 * what each of n lcores makes alone) */
		for (s = 0; s < solo && shards[0].ret == 0; s++) {
			if (solo_round(&job[0], s, secs))
				goto out;
			alone[s] = shards[0].ops_s;
			total += alone[s];
		}
		ret = shards[0].ret;
		print_shards(ret, 1, nqp, total / s, "per_lcore", alone, s);
		goto out;
	}
	/* a warm-up round first: on a VM an lcore that was idle runs at
	 * half speed for a second or so (its vCPU shares a core until the
	 * host moves it) */
	for (unsigned int round = 0; round < 2; round++) {
		for (s = 0; s < n; s++)
			job[s].secs = round == 0 ? 1.0 : secs;
		s = 1;
		RTE_LCORE_FOREACH_WORKER(lcore) {
			if (s == n)
				break;
			if (rte_eal_remote_launch(shard_run, &job[s], lcore))
				goto out;
			s++;
		}
		shard_run(&job[0]);
		rte_eal_mp_wait_lcore();
	}
	ret = 0;
	for (s = 0; s < n; s++) {
		ret |= shards[s].ret;
		alone[s] = shards[s].ops_s;
		total += alone[s];
	}
	print_shards(ret, n, n * nqp, total, "per_shard", alone, n);
out:
	for (s = 0; s < n; s++) {
		if (shards[s].e != NULL) {
			rmpairs(&shards[s], made[s]);
			pset_fini(&shards[s]);
		}
		rte_mempool_free(mp[s]);
		free(buf[s]);
	}
	nshards = 0;
	return ret;
}

static int
engine_perf(void)
{
	const char *qenv = getenv("DPV_PERF_QPS");
	double secs = getenv("DPV_PERF_QUICK") ? 0.3 : 1.0;
	const char *senv = getenv("DPV_PERF_SECS"); /* per case */
	/* DPV_PERF_SHARDS=N: also one device served by 1..N lcores (one
	 * lcore: each of EAL's first lcores in turn, their mean) */
	const char *shenv = getenv("DPV_PERF_SHARDS");
	char list[128], *tok, *save;
	struct rte_mempool *mp;
	struct pset *ps = &shards[0];
	uint32_t key = 1 << 8 | 0x11;
	size_t per_qp;
	uint8_t *buf;
	double w = 0;
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
	buf = aligned_alloc(4096, 2 * SZ);
	TEST_ASSERT_NOT_NULL(buf, "");
	memset(buf, 1, 2 * SZ);
	TEST_ASSERT_EQUAL(pset_init(ps, mp, NULL, false, QBASE, buf, key), 0,
			  "");
	/* DPV_PERF_NO_WRITE: only the 64 B SEND runs (for profiles) */
	ret = getenv("DPV_PERF_NO_WRITE")
		      ? 1
		      : run_qps(ps, 1, IBV_WR_RDMA_WRITE, SZ, buf, key, secs,
				&per_qp, NULL);
	w = ps->ops_s;
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
		double idle[2] = {0, 0};

		dpv_engine_stats_get(ps->e, &st0);
		ret = run_qps(ps, n, IBV_WR_SEND, 64, buf, key, secs, &per_qp,
			      idle);
		dpv_engine_stats_get(ps->e, &st1);
		printf("%s engine_perf op=send size=64 qps=%u "
		       "msg_mps=%.4f bytes_per_qp=%zu retransmits=%" PRIu64
		       " tx_drop_full=%" PRIu64 " msgs=%" PRIu64
		       " frames_per_msg=%.2f"
		       " idle_poll_ns=%.1f idle_poll_kick_ns=%.1f\n",
		       ret == 0 ? "RESULT" : "FAILED", n, ps->ops_s / 1e6,
		       per_qp, st1.retransmits - st0.retransmits,
		       st1.tx_drop_full - st0.tx_drop_full, ps->done,
		       /* requests and ACKs: both ends are this engine */
		       ps->done ? (double)(st1.tx_pkts - st0.tx_pkts) /
					  (double)ps->done
				: 0.0,
		       idle[0], idle[1]);
		fflush(stdout);
	}
	pset_fini(ps);
	rte_mempool_free(mp);
	if (ret == 0 && shenv != NULL) {
		unsigned int n = (unsigned int)strtoul(shenv, NULL, 0);

		for (unsigned int k = 1; ret == 0 && k <= n; k++)
			ret = shards_case(k, RTE_MIN(rte_lcore_count(),
						     MAX_SHARDS),
					  16, key, secs);
	}
	free(buf);
	TEST_ASSERT_EQUAL(ret, 0, "a completion failed or timed out");
	return TEST_SUCCESS;
}

DPV_TEST_REGISTER_PERF(engine_perf, engine_perf);
