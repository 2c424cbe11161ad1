/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Engine shards (several engines serving one device, dpv_engine_conf.home
 * and qp_owner): two engines on their own internal loopback wires, QP A
 * owned by the home shard, QP B by the other. Every frame A sends comes
 * back on the home shard's wire, which hands it to B's shard, and B's
 * answers come back the other way (rx_fwd / rx_fwd_in count them); a
 * frame for no QP of either goes home and is dropped there. Then two
 * threads each run one shard while the test posts SENDs both ways and
 * both QPs complete into one send CQ marked shared (its pushes take its
 * lock): every completion must arrive, none twice, none lost.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_mbuf.h>

#include "dpv_roce_gid.h"
#include "dpv_test.h"
#include "test_engine_util.h"

#define QPN_A	 0x40 /* on the home shard */
#define QPN_B	 0x41 /* on shard 1 */
#define PDN	 2
#define BUF_SIZE 16384
#define MAX_ITER 200000
#define N_SEND	 30000 /* each way, in the threaded case */

static struct rte_mempool *mp;
static struct dpv_engine *sh[2];
static struct test_engine_qp qa, qb;
static struct dpv_mlx5_cq shared_cq; /* both QPs' send CQ */
static uint8_t mac[6] = {0x02, 0, 0, 0, 0, 0x41};

static struct dpv_engine *
owner(void *arg, uint32_t qpn)
{
	RTE_SET_USED(arg);
	if (qpn == QPN_A)
		return sh[0];
	return qpn == QPN_B ? sh[1] : NULL;
}

static struct dpv_mlx5_wq *
lookup(void *arg, uint32_t qpn, bool recv)
{
	struct test_engine_qp *qps[] = {&qa, &qb};

	RTE_SET_USED(arg);
	return test_engine_qp_wq(qps, 2, qpn, recv);
}

static int
suite_setup(void)
{
	return test_engine_pool_setup(&mp, "shard_test_mp");
}

static void
suite_teardown(void)
{
	test_engine_pool_free(&mp);
}

static uint32_t
reg(uint32_t idx, void *addr)
{
	uint32_t key = idx << 8 | 0x21;
	struct dpv_engine_key k = {
		.addr = (uintptr_t)addr,
		.length = BUF_SIZE,
		.iova = (uintptr_t)addr,
		.access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			  IBV_ACCESS_REMOTE_READ,
		.pdn = PDN,
	};

	/* keys are the device's: every shard knows them */
	for (int i = 0; i < 2; i++)
		if (dpv_engine_key_set(sh[i], key, &k) != 0)
			return 0;
	return key;
}

/* QP t on shard e, completing its sends into send_cq */
static int
mkqp(struct dpv_engine *e, struct test_engine_qp *t, uint32_t qpn,
     uint32_t peer, struct dpv_mlx5_cq *send_cq)
{
	struct dpv_engine_qp_init in = {
		.qpn = qpn,
		.type = IBV_QPT_RC,
		.pdn = PDN,
		.sq = &t->sq,
		.rq = &t->rq,
		.send_cq = send_cq,
		.recv_cq = &t->rcq,
		.max_send_wr = 64,
	};
	struct dpv_engine_path path;
	struct test_engine_conn c = {
		.path = &path,
		.mtu = IBV_MTU_1024,
		.dest_qpn = peer,
		.psn = 0x100,
		.timeout = 14,
		.rnr_retry = 7,
	};

	if (test_engine_qp_rings_init(t, qpn, IBV_QPT_RC, BUF_SIZE) ||
	    dpv_engine_qp_create(e, &in))
		return -1;
	t->key = reg(qpn, t->buf);
	if (t->key == 0)
		return -1;
	test_engine_loop_path(&path, mac, 0xc0000241);
	return test_engine_connect(e, qpn, &c);
}

/* shared: both QPs complete their sends into shared_cq */
static int
setup_pair(bool shared)
{
	struct dpv_engine_conf conf = {
		.mp = mp, .max_keys = 1024, .qp_owner = owner};

	memcpy(conf.mac, mac, 6);
	dpv_roce_gid_from_ipv4(conf.gid, rte_cpu_to_be_32(0xc0000241));
	sh[0] = dpv_engine_create(NULL, &conf);
	conf.home = sh[0];
	sh[1] = sh[0] ? dpv_engine_create(NULL, &conf) : NULL;
	if (sh[1] == NULL)
		return -1;
	if (dpv_mlx5_cq_init(&shared_cq, 256, SOCKET_ID_ANY))
		return -1;
	shared_cq.eng_shared = shared;
	if (mkqp(sh[0], &qa, QPN_A, QPN_B, shared ? &shared_cq : &qa.scq) ||
	    mkqp(sh[1], &qb, QPN_B, QPN_A, shared ? &shared_cq : &qb.scq))
		return -1;
	return 0;
}

static int
setup_fwd(void)
{
	return setup_pair(false);
}

static int
setup_shared(void)
{
	return setup_pair(true);
}

static void
teardown_pair(void)
{
	if (sh[0] != NULL)
		test_engine_qp_fini(sh[0], &qa);
	if (sh[1] != NULL)
		test_engine_qp_fini(sh[1], &qb);
	dpv_engine_destroy(sh[1]);
	dpv_engine_destroy(sh[0]);
	sh[0] = sh[1] = NULL;
	dpv_mlx5_cq_fini(&shared_cq);
}

static int
post(struct test_engine_qp *t, enum ibv_wr_opcode op, uint64_t id,
     uint32_t len, uint64_t raddr, uint32_t rkey)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)t->buf, .length = len, .lkey = t->key};
	struct ibv_send_wr wr = {.wr_id = id,
				 .sg_list = &sge,
				 .num_sge = 1,
				 .opcode = op,
				 .send_flags = IBV_SEND_SIGNALED},
			   *bad;

	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	return dpv_ring_post_send(&t->sq, IBV_QPT_RC, t->qpn, &wr, &bad);
}

static int
post_recv(struct test_engine_qp *t, uint64_t id, uint32_t len)
{
	struct ibv_sge sge = {.addr = (uintptr_t)t->buf + BUF_SIZE / 2,
			      .length = len,
			      .lkey = t->key};
	struct ibv_recv_wr wr = {.wr_id = id, .sg_list = &sge, .num_sge = 1},
			   *bad;

	return dpv_ring_post_recv(&t->rq, &wr, &bad);
}

/* poll both shards (one thread) until cq has a completion */
static int
wait_wc(struct dpv_mlx5_cq *cq, struct ibv_wc *wc)
{
	for (unsigned int i = 0; i < MAX_ITER; i++) {
		if (dpv_mlx5_cq_poll(cq, 1, wc, lookup, NULL) == 1)
			return 0;
		dpv_engine_poll(sh[0], 0);
		dpv_engine_poll(sh[1], 0);
	}
	return -1;
}

static int
case_forward(void)
{
	struct dpv_engine_stats s0, s1;
	struct ibv_wc wc;
	for (uint32_t i = 0; i < 3000; i++)
		qa.buf[i] = (uint8_t)(i * 7 + 1);
	/* WRITE A -> B: three frames through the home shard's wire */
	TEST_ASSERT_EQUAL(post(&qa, IBV_WR_RDMA_WRITE, 1, 3000,
				 (uintptr_t)qb.buf, qb.key),
			  0, "post WRITE");
	TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc), 0, "no WRITE completion");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "WRITE: %s",
			  ibv_wc_status_str(wc.status));
	TEST_ASSERT_EQUAL(memcmp(qa.buf, qb.buf, 3000), 0, "WRITE data");
	/* SEND B -> A: the other way */
	memset(qb.buf, 0x5a, 100);
	TEST_ASSERT_EQUAL(post_recv(&qa, 7, 200), 0, "post recv");
	TEST_ASSERT_EQUAL(post(&qb, IBV_WR_SEND, 2, 100, 0, 0), 0, "post SEND");
	TEST_ASSERT_EQUAL(wait_wc(&qa.rcq, &wc), 0, "no receive completion");
	TEST_ASSERT(wc.status == IBV_WC_SUCCESS && wc.byte_len == 100 &&
			    wc.wr_id == 7,
		    "receive: status %d len %u", wc.status, wc.byte_len);
	TEST_ASSERT(qa.buf[BUF_SIZE / 2] == 0x5a &&
			    qa.buf[BUF_SIZE / 2 + 99] == 0x5a,
		    "SEND data");
	TEST_ASSERT_EQUAL(wait_wc(&qb.scq, &wc), 0, "no SEND completion");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "SEND status");
	dpv_engine_stats_get(sh[0], &s0);
	dpv_engine_stats_get(sh[1], &s1);
	/* A's 3 WRITE frames and B's SEND reach the other shard through
	 * the forward rings; so do the ACKs back */
	TEST_ASSERT(s0.rx_fwd >= 4 && s1.rx_fwd_in >= 4,
		    "home shard forwarded %" PRIu64 ", shard 1 took %" PRIu64,
		    s0.rx_fwd, s1.rx_fwd_in);
	TEST_ASSERT(s1.rx_fwd >= 2 && s0.rx_fwd_in >= 2,
		    "shard 1 forwarded %" PRIu64 ", home took %" PRIu64,
		    s1.rx_fwd, s0.rx_fwd_in);
	TEST_ASSERT(s0.rx_fwd_drop == 0 && s1.rx_fwd_drop == 0,
		    "forward drops");
	/* a frame for no QP of either shard, received by shard 1: home
	 * counts it, nobody loops it */
	TEST_ASSERT_EQUAL(post(&qb, IBV_WR_SEND, 3, 10, 0, 0), 0, "post");
	dpv_engine_qp_destroy(sh[0], QPN_A);
	for (int i = 0; i < 50; i++) {
		dpv_engine_poll(sh[1], 0);
		dpv_engine_poll(sh[0], 0);
	}
	dpv_engine_stats_get(sh[0], &s0);
	TEST_ASSERT(s0.rx_drop_noqp >= 1, "home dropped %" PRIu64,
		    s0.rx_drop_noqp);
	return TEST_SUCCESS;
}

/* ------------------------------------------- two threads, a shared CQ */

static volatile bool run_stop;

static void *
shard_loop(void *arg)
{
	struct dpv_engine *e = arg;
	uint64_t end = rte_get_timer_cycles() + 60 * rte_get_timer_hz();

	while (!run_stop && rte_get_timer_cycles() < end) {
		dpv_engine_lock(e);
		dpv_engine_poll(e, 0);
		dpv_engine_unlock(e);
	}
	return NULL;
}

static int
case_shared_cq(void)
{
	struct test_engine_qp *q[2] = {&qa, &qb};
	uint32_t sent[2] = {0, 0}, done[2] = {0, 0}, recvd[2] = {0, 0};
	uint32_t out[2] = {0, 0}; /* posted, not completed */
	uint32_t errors = 0, strays = 0;
	pthread_t th[2];
	bool started = false;
	uint64_t end;
	int rc = TEST_FAILED;

	for (int s = 0; s < 2; s++)
		for (uint64_t i = 0; i < 60; i++)
			if (post_recv(q[s], i, 64))
				goto out;
	run_stop = false;
	if (pthread_create(&th[0], NULL, shard_loop, sh[0]) ||
	    pthread_create(&th[1], NULL, shard_loop, sh[1]))
		goto out;
	started = true;
	end = rte_get_timer_cycles() + 60 * rte_get_timer_hz();
	while ((done[0] < N_SEND || done[1] < N_SEND ||
		recvd[0] < N_SEND || recvd[1] < N_SEND) &&
	       rte_get_timer_cycles() < end) {
		struct ibv_wc wc[16];
		int n;

		for (int s = 0; s < 2; s++) {
			while (sent[s] < N_SEND && out[s] < 48) {
				if (post(q[s], IBV_WR_SEND,
					 (uint64_t)s << 32 | sent[s], 16, 0,
					 0))
					break;
				sent[s]++;
				out[s]++;
			}
			n = dpv_mlx5_cq_poll(&q[s]->rcq, 16, wc, lookup, NULL);
			for (int i = 0; i < n; i++) {
				errors += wc[i].status != IBV_WC_SUCCESS;
				recvd[s]++;
				post_recv(q[s], wc[i].wr_id, 64);
			}
		}
		n = dpv_mlx5_cq_poll(&shared_cq, 16, wc, lookup, NULL);
		for (int i = 0; i < n; i++) {
			int s = (int)(wc[i].wr_id >> 32);

			errors += wc[i].status != IBV_WC_SUCCESS;
			if (s > 1 || (uint32_t)wc[i].wr_id != done[s]) {
				strays++; /* out of order, twice or lost */
				continue;
			}
			done[s]++;
			out[s]--;
		}
		if (n < 0)
			break;
	}
	run_stop = true;
	pthread_join(th[0], NULL);
	pthread_join(th[1], NULL);
	started = false;
	DPV_TEST_LOG("shared CQ: sends done %u/%u, received %u/%u, errors %u,"
		     " out of order %u",
		     done[0], done[1], recvd[0], recvd[1], errors, strays);
	if (done[0] == N_SEND && done[1] == N_SEND && recvd[0] == N_SEND &&
	    recvd[1] == N_SEND && errors == 0 && strays == 0)
		rc = TEST_SUCCESS;
out:
	if (started) {
		run_stop = true;
		pthread_join(th[0], NULL);
		pthread_join(th[1], NULL);
	}
	return rc;
}

static const struct dpv_test_suite engine_shard_suite = {
	.name = "engine_shard",
	.setup = suite_setup,
	.teardown = suite_teardown,
	.cases =
		{
			TEST_CASE_ST(setup_fwd, teardown_pair, case_forward),
			TEST_CASE_ST(setup_shared, teardown_pair,
				     case_shared_cq),
			TEST_CASES_END(),
		},
};

static int
engine_shard(void)
{
	return dpv_test_run_suite(&engine_shard_suite);
}

DPV_TEST_REGISTER_FAST(engine_shard, engine_shard);
