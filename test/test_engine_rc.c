/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Engine end-to-end tests without the verbs layer: two QPs of one engine
 * on its internal loopback wire (every frame sent is received again),
 * WQEs posted into the mlx5 rings, completions polled from the mlx5 CQs.
 */
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "dpv_test.h"
#include "test_engine_util.h"
#include "dpv_engine.h"
#include "dpv_roce_gid.h"
#include "mlx5_ring.h"
#include "dpv_port.h"
#include "engine_int.h" /* white-box: neighbour cache */

#define PDN	 1
#define QPN_A	 0x11
#define QPN_B	 0x12
#define BUF_SIZE 8192
#define MAX_ITER 20000

static struct rte_mempool *mp;
static struct dpv_engine *eng;
static struct test_engine_qp qa, qb;
static uint8_t mac[6] = {0x02, 0, 0, 0, 0, 0x01};
static struct dpv_port *port; /* NULL: the engine's internal loopback */
static uint32_t next_key = 1;

static struct dpv_mlx5_rq srq;
static bool use_srq;
static unsigned srq_sges = 2; /* SGEs of its WQEs */
#define SRQN 0x77

static struct dpv_mlx5_wq *
lookup(void *arg, uint32_t qpn, bool recv)
{
	if (recv && qpn == (DPV_MLX5_LOOKUP_SRQ | SRQN))
		return &srq.wq;
	static struct test_engine_qp *const pair[] = {&qa, &qb};

	RTE_SET_USED(arg);
	return test_engine_qp_wq(pair, RTE_DIM(pair), qpn, recv);
}

static int
suite_setup(void)
{
	return test_engine_pool_setup(&mp, "eng_test_mp");
}

static void
suite_teardown(void)
{
	test_engine_pool_free(&mp);
}

#define HOOK_KEYS 16
static bool use_hook;
static struct dpv_engine_key hook_keys[HOOK_KEYS];
static unsigned hook_calls;

static bool
hook_lookup(void *arg, uint32_t key, struct dpv_engine_key *out)
{
	struct dpv_engine_key *tbl = arg;
	uint32_t i = dpv_engine_key_index(key);

	hook_calls++;
	/* as the verbs layer's: false for an unbound window too */
	if (i >= HOOK_KEYS || !tbl[i].valid || tbl[i].key != key ||
	    (tbl[i].type != DPV_ENGINE_KEY_MR && !tbl[i].bound))
		return false;
	*out = tbl[i];
	return true;
}

/* the version words of hook_keys (the verbs layer's seqlock sequences:
 * even while an entry is stable) */
static uint32_t hook_ver[HOOK_KEYS];
static bool use_hook_ver;

static const uint32_t *
hook_version(void *arg, uint32_t key)
{
	uint32_t i = dpv_engine_key_index(key);

	RTE_SET_USED(arg);
	return i < HOOK_KEYS ? &hook_ver[i] : NULL;
}

static int
hook_invalidate(void *arg, uint32_t key, uint32_t pdn, uint32_t qpn,
		bool remote)
{
	struct dpv_engine_key *tbl = arg;
	uint32_t i = dpv_engine_key_index(key);

	if (i >= HOOK_KEYS ||
	    dpv_key_invalidate_check(&tbl[i], key, pdn, qpn, remote, true))
		return -ENOENT;
	if (tbl[i].type == DPV_ENGINE_KEY_MR)
		tbl[i].valid = 0;
	else
		tbl[i].bound = 0;
	return 0;
}

/* multicast membership: QPN_A and QPN_B are in group 239.0.2.1 */
#define MCAST_IP 0xef000201u
static bool block_self; /* QPN_A with IBV_QP_CREATE_BLOCK_SELF_MCAST_LB */

static unsigned
hook_mcast(void *arg, const uint8_t gid[16], uint32_t *qpns, unsigned max)
{
	uint8_t g[16];

	RTE_SET_USED(arg);
	dpv_roce_gid_from_ipv4(g, rte_cpu_to_be_32(MCAST_IP));
	if (memcmp(g, gid, 16) != 0 || max < 2)
		return 0;
	qpns[0] = QPN_A;
	qpns[1] = QPN_B;
	return 2;
}

static uint32_t
reg(void *addr, size_t len, uint32_t access)
{
	uint32_t key = (next_key++ << 8) | 0x42;
	struct dpv_engine_key k = {
		.addr = (uintptr_t)addr,
		.length = len,
		.iova = (uintptr_t)addr,
		.access = access,
		.pdn = PDN,
	};

	if (use_hook) {
		/* the verbs layer's own table, reached through the hook */
		if (next_key > HOOK_KEYS)
			return 0;
		k.valid = 1;
		k.key = key;
		hook_keys[dpv_engine_key_index(key)] = k;
		return key;
	}
	if (dpv_engine_key_set(eng, key, &k) != 0)
		return 0;
	return key;
}

static int
tqp_init(struct test_engine_qp *t, uint32_t qpn, enum ibv_qp_type type)
{
	struct dpv_engine_qp_init init = {
		.qpn = qpn,
		.type = type,
		.pdn = PDN,
		.sq = &t->sq,
		.rq = &t->rq,
		.send_cq = &t->scq,
		.recv_cq = &t->rcq,
		.max_send_wr = 64,
		.block_self_mcast = block_self && qpn == QPN_A,
	};

	if (use_srq && qpn == QPN_B) {
		init.rq = NULL;
		init.srq = &srq;
		init.srqn = SRQN;
	}
	if (test_engine_qp_rings_init(t, qpn, type, BUF_SIZE))
		return -1;
	t->key = reg(t->buf, BUF_SIZE,
		     IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			     IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC);
	if (t->key == 0)
		return -1;
	return dpv_engine_qp_create(eng, &init);
}

/* RESET -> INIT -> RTR -> RTS, connected to remote. */
static int
connect_qp(struct test_engine_qp *t, uint32_t remote, enum ibv_mtu mtu,
	   uint8_t rnr_retry, uint8_t timeout)
{
	struct dpv_engine_path path;
	struct test_engine_conn c = {
		.path = &path,
		.mtu = mtu,
		.dest_qpn = remote,
		.psn = 0xfffffe, /* PSNs wrap during the tests */
		.timeout = timeout,
		.rnr_retry = rnr_retry,
	};

	test_engine_loop_path(&path, mac, 0xc0000201);
	return test_engine_connect(eng, t->qpn, &c);
}

static int
case_setup_mtu(enum ibv_qp_type type, enum ibv_mtu mtu, uint8_t rnr_retry)
{
	struct dpv_engine_conf conf = {.mp = mp, .max_keys = 256};

	if (use_hook) {
		memset(hook_keys, 0, sizeof(hook_keys));
		conf.key_lookup = hook_lookup;
		conf.key_invalidate = hook_invalidate;
		conf.key_lookup_arg = hook_keys;
		if (use_hook_ver) {
			memset(hook_ver, 0, sizeof(hook_ver));
			conf.key_version = hook_version;
		}
	}

	conf.mcast_lookup = hook_mcast;
	memcpy(conf.mac, mac, 6);
	dpv_roce_gid_from_ipv4(conf.gid, rte_cpu_to_be_32(0xc0000201));
	next_key = 1;
	eng = dpv_engine_create(port, port ? NULL : &conf);
	if (eng == NULL)
		return -1;
	if (use_srq && dpv_mlx5_srq_init(&srq, 32, srq_sges, SOCKET_ID_ANY))
		return -1;
	if (tqp_init(&qa, QPN_A, type) || tqp_init(&qb, QPN_B, type))
		return -1;
	if (type == IBV_QPT_UD) {
		struct ibv_qp_attr a = {.qp_state = IBV_QPS_INIT,
					.qkey = 0x11111111};

		for (int i = 0; i < 2; i++) {
			uint32_t q = i ? QPN_B : QPN_A;

			a.qp_state = IBV_QPS_INIT;
			if (dpv_engine_qp_modify(eng, q, &a,
						 IBV_QP_STATE | IBV_QP_QKEY,
						 NULL))
				return -1;
			a.qp_state = IBV_QPS_RTR;
			if (dpv_engine_qp_modify(eng, q, &a, IBV_QP_STATE,
						 NULL))
				return -1;
			a.qp_state = IBV_QPS_RTS;
			a.sq_psn = 100;
			if (dpv_engine_qp_modify(eng, q, &a,
						 IBV_QP_STATE | IBV_QP_SQ_PSN,
						 NULL))
				return -1;
		}
		return 0;
	}
	if (connect_qp(&qa, QPN_B, mtu, rnr_retry, 14) ||
	    connect_qp(&qb, QPN_A, mtu, rnr_retry, 14))
		return -1;
	return 0;
}

static int
setup_rc(void)
{
	return case_setup_mtu(IBV_QPT_RC, IBV_MTU_1024, 7);
}

static int
setup_uc(void)
{
	return case_setup_mtu(IBV_QPT_UC, IBV_MTU_1024, 7);
}

static int
setup_ud(void)
{
	return case_setup_mtu(IBV_QPT_UD, IBV_MTU_1024, 7);
}

static int
setup_rc_fast_timeout(void)
{
	if (case_setup_mtu(IBV_QPT_RC, IBV_MTU_1024, 7))
		return -1;
	struct ibv_qp_attr a = {.timeout = 4}; /* 65 us */

	if (dpv_engine_qp_modify(eng, QPN_A, &a, IBV_QP_TIMEOUT, NULL) ||
	    dpv_engine_qp_modify(eng, QPN_B, &a, IBV_QP_TIMEOUT, NULL))
		return -1;
	return 0;
}

static int
setup_rc_rnr0(void)
{
	return case_setup_mtu(IBV_QPT_RC, IBV_MTU_1024, 0);
}

static int test_rc_write(void);
static int test_rc_read(void);
static int test_rc_local_inv(void);

static void
teardown(void)
{
	if (eng == NULL)
		return;
	test_engine_qp_fini(eng, &qa);
	test_engine_qp_fini(eng, &qb);
	dpv_engine_destroy(eng);
	eng = NULL;
	if (use_srq)
		dpv_mlx5_rq_fini(&srq);
	use_srq = false;
	srq_sges = 2;
	use_hook = false;
	use_hook_ver = false;
	block_self = false;
}

static int
setup_rc_hook(void)
{
	use_hook = true;
	hook_calls = 0;
	return case_setup_mtu(IBV_QPT_RC, IBV_MTU_1024, 7);
}

static int
setup_rc_hook_ver(void)
{
	use_hook = true;
	use_hook_ver = true;
	hook_calls = 0;
	return case_setup_mtu(IBV_QPT_RC, IBV_MTU_1024, 7);
}

/* Key entry i (slot i of the engine's table or of the hook's) set to k. */
static int
key_put(uint32_t i, const struct dpv_engine_key *k)
{
	if (use_hook) {
		/* as the verbs layer writes an entry: odd while it does */
		hook_ver[i]++;
		hook_keys[i] = *k;
		hook_ver[i]++;
		return 0;
	}
	return dpv_engine_key_set(eng, k->key, k);
}

/* dpv_engine_key_access_ind() against dpv_key_check_one() of entry k,
 * twice in a row: 1 both allowed it (same address), 0 both refused it
 * (same status), -1 they differ */
static int
access_same(struct dpv_eqp *qp, const struct dpv_engine_key *k, uint32_t key,
	    uint64_t va, uint64_t len, uint32_t need)
{
	void *want_host = NULL;
	enum dpv_key_status want =
		dpv_key_check_one(k->valid ? k : NULL, key, qp->pdn, qp->qpn,
				  va, len, need, &want_host);

	for (int t = 0; t < 2; t++) {
		void *host = NULL;
		enum dpv_key_status got = dpv_engine_key_access_ind(
			eng, qp, key, va, len, need, &host);

		if (got != want ||
		    (want == DPV_KEY_OK && host != want_host)) {
			DPV_TEST_LOG("try %d: status %d, want %d", t, got,
				     want);
			return -1;
		}
	}
	return want == DPV_KEY_OK;
}

/*
 * dpv_engine_key_access_ind() (a shortcut for memory regions, the
 * general check for everything else) answers what dpv_key_check_one()
 * says of the entry, for every kind of entry, bounds, access and key
 * variant, twice in a row (the second through the key cache when the
 * hook has versions), and again after an entry changes under it.
 */
static int
test_key_access_same(void)
{
	static const uint32_t needs[] = {
		0, IBV_ACCESS_LOCAL_WRITE, IBV_ACCESS_REMOTE_WRITE,
		IBV_ACCESS_REMOTE_READ, IBV_ACCESS_REMOTE_ATOMIC};
	static const int64_t offs[] = {0, -1, 1, 4095, 4096, 4097};
	static const uint64_t lens[] = {0, 1, 8, 4096, 4097, UINT64_MAX};
	struct dpv_eqp *qp = dpv_engine_qp_lookup(eng, QPN_A);
	uintptr_t a = (uintptr_t)qa.buf;
	struct dpv_engine_key ents[8];
	unsigned checks = 0, oks = 0;

	TEST_ASSERT(qp != NULL, "");
	for (uint32_t i = 0; i < RTE_DIM(ents); i++) {
		struct dpv_engine_key *k = &ents[i];

		*k = (struct dpv_engine_key){
			.addr = a,
			.iova = a,
			.length = 4096,
			.access = IBV_ACCESS_LOCAL_WRITE |
				  IBV_ACCESS_REMOTE_WRITE,
			.pdn = qp->pdn,
			.valid = 1,
			.key = (8 + i) << 8 | 0x33,
		};
		switch (i) {
		case 1: /* read-only, at another iova */
			k->iova = 0x100000;
			k->access = IBV_ACCESS_REMOTE_READ;
			break;
		case 2:
			k->pdn = qp->pdn + 1;
			break;
		case 3: /* a bound type 2 window of this QP */
			k->type = DPV_ENGINE_KEY_MW2;
			k->bound = 1;
			k->qpn = QPN_A;
			break;
		case 4: /* of another QP */
			k->type = DPV_ENGINE_KEY_MW2;
			k->bound = 1;
			k->qpn = QPN_B;
			break;
		case 5:
			k->type = DPV_ENGINE_KEY_MW1;
			k->bound = 0;
			break;
		case 6:
			k->access |= IBV_ACCESS_REMOTE_READ |
				     IBV_ACCESS_REMOTE_ATOMIC;
			break;
		default:
			break;
		}
		TEST_ASSERT_EQUAL(key_put(8 + i, k), 0, "");
	}
	for (int round = 0; round < 2; round++) {
		if (round == 1) {
			void *h;

			/* the cache holds each key (not its variant) */
			for (uint32_t i = 0; i < RTE_DIM(ents); i++)
				dpv_engine_key_access_ind(eng, qp, ents[i].key,
							  ents[i].iova, 1, 0,
							  &h);
			/* entries change under the cache: one region gone,
			 * one with less access, one shorter */
			ents[0].valid = 0;
			ents[6].access = IBV_ACCESS_LOCAL_WRITE;
			ents[7].length = 8;
			if (use_hook) {
				TEST_ASSERT_EQUAL(key_put(8, &ents[0]), 0, "");
			} else {
				TEST_ASSERT_EQUAL(dpv_engine_key_clear(
							  eng, ents[0].key),
						  0, "");
			}
			TEST_ASSERT_EQUAL(key_put(14, &ents[6]), 0, "");
			TEST_ASSERT_EQUAL(key_put(15, &ents[7]), 0, "");
		}
		for (uint32_t i = 0; i < RTE_DIM(ents); i++)
			for (uint32_t c = 0; c < 2 * RTE_DIM(offs) *
							 RTE_DIM(lens) *
							 RTE_DIM(needs);
			     c++) {
				uint32_t n = c % RTE_DIM(needs);
				uint32_t l = c / RTE_DIM(needs) % RTE_DIM(lens);
				uint32_t o = c / RTE_DIM(needs) /
					     RTE_DIM(lens) % RTE_DIM(offs);
				uint32_t variant = c / RTE_DIM(needs) /
						   RTE_DIM(lens) / RTE_DIM(offs);
				int ok = access_same(qp, &ents[i],
						     ents[i].key ^ variant,
						     ents[i].iova +
							     (uint64_t)offs[o],
						     lens[l], needs[n]);

				TEST_ASSERT(ok >= 0,
					    "round %d entry %u variant %u "
					    "off %u len %u need %#x",
					    round, i, variant, o, l, needs[n]);
				checks++;
				oks += ok;
			}
	}
	DPV_TEST_LOG("%u checks, %u allowed", checks, oks);
	TEST_ASSERT(oks > 0 && oks < checks, "both answers seen");
	return TEST_SUCCESS;
}

/* Keys from the verbs layer's table through dpv_engine_conf.key_lookup. */
static int
test_rc_key_hook(void)
{
	struct dpv_engine_key k = {.length = 1};
	int ret;

	TEST_ASSERT_EQUAL(dpv_engine_key_set(eng, 2 << 8, &k), -EOPNOTSUPP,
			  "no own table with a hook");
	ret = test_rc_write();
	if (ret != TEST_SUCCESS)
		return ret;
	TEST_ASSERT(hook_calls >= 2, "local and remote keys looked up");
	ret = test_rc_read();
	if (ret != TEST_SUCCESS)
		return ret;
	ret = test_rc_local_inv();
	if (ret != TEST_SUCCESS)
		return ret;
	return TEST_SUCCESS;
}

static int
setup_rc_srq(void)
{
	use_srq = true;
	return case_setup_mtu(IBV_QPT_RC, IBV_MTU_1024, 7);
}

/* an SRQ whose WQEs carry the most SGEs a receive WQE can */
static int
setup_rc_srq_wide(void)
{
	use_srq = true;
	srq_sges = DPV_WR_MAX_SGE;
	return case_setup_mtu(IBV_QPT_RC, IBV_MTU_1024, 7);
}

static int
post_send(struct test_engine_qp *t, enum ibv_wr_opcode op, uint64_t wr_id,
	  uint32_t off, uint32_t len, uint64_t raddr, uint32_t rkey)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)t->buf + off, .length = len, .lkey = t->key};
	struct ibv_send_wr wr =
				   {
					   .wr_id = wr_id,
					   .sg_list = &sge,
					   .num_sge = 1,
					   .opcode = op,
					   .send_flags = IBV_SEND_SIGNALED,
				   },
			   *bad;

	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	return dpv_mlx5_post_send(&t->sq, IBV_QPT_RC, t->qpn, &wr, &bad);
}

static int
post_recv(struct test_engine_qp *t, uint64_t wr_id, uint32_t off, uint32_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)t->buf + off, .length = len, .lkey = t->key};
	struct ibv_recv_wr wr = {.wr_id = wr_id, .sg_list = &sge, .num_sge = 1},
			   *bad;

	return dpv_mlx5_post_recv(&t->rq, &wr, &bad);
}

/* Run the engine until one completion is on cq (bounded: 3 s). */
static int
wait_wc(struct dpv_mlx5_cq *cq, struct ibv_wc *wc)
{
	return test_engine_wait_wc(eng, cq, wc, lookup, MAX_ITER);
}

/* The next completion on cq is wr_id's, with status st. */
static int
expect_wc(struct dpv_mlx5_cq *cq, uint64_t wr_id, enum ibv_wc_status st)
{
	struct ibv_wc wc;

	TEST_ASSERT_EQUAL(wait_wc(cq, &wc), 0, "no completion");
	TEST_ASSERT_EQUAL(wc.wr_id, wr_id, "wr_id");
	TEST_ASSERT_EQUAL(wc.status, st, "wr_id %" PRIu64 ": status %d",
			  wr_id, wc.status);
	return TEST_SUCCESS;
}

/* Requester and responder both in ERR (a fatal NAK ended it). */
static int
both_err(void)
{
	TEST_ASSERT_EQUAL(dpv_engine_qp_state(eng, QPN_A), IBV_QPS_ERR,
			  "requester in ERR");
	TEST_ASSERT_EQUAL(dpv_engine_qp_state(eng, QPN_B), IBV_QPS_ERR,
			  "responder in ERR");
	return TEST_SUCCESS;
}

static void
fill(uint8_t *p, size_t n, uint8_t seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(seed + i * 7);
}

static int
test_key_cmds(void)
{
	struct dpv_engine_key k = {.addr = 4096, .length = 64, .iova = 4096};
	uint32_t idx;

	TEST_ASSERT_EQUAL(dpv_engine_key_set(eng, 0x100, &k), -EINVAL,
			  "MLX5_INVALID_LKEY");
	TEST_ASSERT_EQUAL(dpv_engine_key_set(eng, 256u << 8, &k), -EINVAL,
			  "beyond max_keys");
	TEST_ASSERT_EQUAL(dpv_engine_key_set(eng, 5 << 8, NULL), -EINVAL, "");
	k.length = UINT64_MAX;
	TEST_ASSERT_EQUAL(dpv_engine_key_set(eng, 5 << 8, &k), -EINVAL,
			  "wraps");
	k.length = 64;
	TEST_ASSERT_EQUAL(dpv_engine_key_set(eng, 200 << 8 | 7, &k), 0, "");
	TEST_ASSERT_EQUAL(dpv_engine_key_clear(eng, 200 << 8 | 8), -ENOENT,
			  "other variant");
	TEST_ASSERT_EQUAL(dpv_engine_key_clear(eng, 200 << 8 | 7), 0, "");
	TEST_ASSERT_EQUAL(dpv_engine_key_clear(eng, 200 << 8 | 7), -ENOENT,
			  "twice");
	TEST_ASSERT_EQUAL(dpv_engine_key_alloc_index(eng, &idx), 0, "");
	TEST_ASSERT(idx >= 2 && idx < 256, "%u", idx);
	TEST_ASSERT_EQUAL(dpv_engine_key_alloc_index(eng, NULL), -EINVAL, "");
	/* QP commands: argument checks */
	struct dpv_engine_qp_init in = {.qpn = QPN_A, .type = IBV_QPT_RC};
	struct ibv_qp_attr a = {0};

	TEST_ASSERT_EQUAL(dpv_engine_qp_create(eng, &in), -EEXIST, "");
	in.qpn = 1u << 24;
	TEST_ASSERT_EQUAL(dpv_engine_qp_create(eng, &in), -EINVAL, "24 bits");
	in.qpn = 0x33;
	in.type = IBV_QPT_DRIVER;
	TEST_ASSERT_EQUAL(dpv_engine_qp_create(eng, &in), -EINVAL,
			  "unsupported type");
	in.type = IBV_QPT_RC;
	in.sq = &qa.sq;
	TEST_ASSERT_EQUAL(dpv_engine_qp_create(eng, &in), -EINVAL, "no CQ");
	TEST_ASSERT_EQUAL(
		dpv_engine_qp_modify(eng, 0x4444, &a, IBV_QP_STATE, NULL),
		-ENOENT, "");
	TEST_ASSERT_EQUAL(dpv_engine_qp_modify(eng, QPN_A, &a, IBV_QP_AV, NULL),
			  -EINVAL, "AV without a path");
	TEST_ASSERT_EQUAL(dpv_engine_qp_state(eng, 0x4444), -ENOENT, "");
	TEST_ASSERT_EQUAL(dpv_engine_qp_state(eng, QPN_A), IBV_QPS_RTS, "");
	return TEST_SUCCESS;
}

static int
test_rc_send(void)
{
	struct ibv_wc wc;

	fill(qa.buf, 64, 1);
	TEST_ASSERT_EQUAL(post_recv(&qb, 0xb0, 0, 256), 0, "");
	TEST_ASSERT_EQUAL(post_send(&qa, IBV_WR_SEND, 0xa0, 0, 64, 0, 0), 0,
			  "");
	TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc), 0, "send completion");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "status %d", wc.status);
	TEST_ASSERT_EQUAL(wc.wr_id, 0xa0, "");
	TEST_ASSERT_EQUAL(wc.opcode, IBV_WC_SEND, "");
	TEST_ASSERT_EQUAL(wait_wc(&qb.rcq, &wc), 0, "recv completion");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "");
	TEST_ASSERT_EQUAL(wc.wr_id, 0xb0, "");
	TEST_ASSERT_EQUAL(wc.opcode, IBV_WC_RECV, "");
	TEST_ASSERT_EQUAL(wc.byte_len, 64, "");
	TEST_ASSERT_BUFFERS_EQUAL(qb.buf, qa.buf, 64, "payload");
	return TEST_SUCCESS;
}

/*
 * The per-message counters keep their low 32 bits on the QP's hot lines
 * (hot_*) and carry into the QP's counters: one message across the wrap
 * reads 2^32 more than before it, on both sides (and the credit probe it
 * is).
 */
static int
test_rc_counter_carry(void)
{
	struct dpv_eqp *a = dpv_engine_qp_lookup(eng, QPN_A);
	struct dpv_eqp *b = dpv_engine_qp_lookup(eng, QPN_B);
	struct dpv_engine_qp_stats sa0, sb0, sa, sb;
	struct ibv_wc wc;

	TEST_ASSERT(a != NULL && b != NULL, "");
	TEST_ASSERT_EQUAL(post_recv(&qb, 0xb0, 0, 256), 0, "");
	TEST_ASSERT_EQUAL(post_send(&qa, IBV_WR_SEND, 0xa0, 0, 64, 0, 0), 0,
			  "");
	TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc), 0, "send completion");
	TEST_ASSERT_EQUAL(wait_wc(&qb.rcq, &wc), 0, "recv completion");
	/* now just below the wrap, as if 2^32 - 1 more had been counted */
	a->hot_rx_pkts = a->hot_acks_rcvd = a->hot_credit_probes = UINT32_MAX;
	b->hot_rx_pkts = b->hot_acks_sent = UINT32_MAX;
	TEST_ASSERT_EQUAL(dpv_engine_qp_stats_get(eng, QPN_A, &sa0), 0, "");
	TEST_ASSERT_EQUAL(dpv_engine_qp_stats_get(eng, QPN_B, &sb0), 0, "");
	TEST_ASSERT(sa0.acks_rcvd >= UINT32_MAX && sb0.acks_sent >= UINT32_MAX,
		    "the low words are read");
	TEST_ASSERT_EQUAL(post_recv(&qb, 0xb1, 0, 256), 0, "");
	TEST_ASSERT_EQUAL(post_send(&qa, IBV_WR_SEND, 0xa1, 0, 64, 0, 0), 0,
			  "");
	TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc), 0, "send completion");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "");
	TEST_ASSERT_EQUAL(wait_wc(&qb.rcq, &wc), 0, "recv completion");
	TEST_ASSERT_EQUAL(dpv_engine_qp_stats_get(eng, QPN_A, &sa), 0, "");
	TEST_ASSERT_EQUAL(dpv_engine_qp_stats_get(eng, QPN_B, &sb), 0, "");
	TEST_ASSERT_EQUAL(sa.acks_rcvd, sa0.acks_rcvd + 1, "%" PRIu64,
			  sa.acks_rcvd);
	TEST_ASSERT_EQUAL(sa.rx_pkts, sa0.rx_pkts + 1, "%" PRIu64, sa.rx_pkts);
	/* B's ACK of the first SEND said its receive queue was empty: the
	 * second goes as the credit probe */
	TEST_ASSERT_EQUAL(sa.credit_probes, sa0.credit_probes + 1, "%" PRIu64,
			  sa.credit_probes);
	TEST_ASSERT_EQUAL(sb.acks_sent, sb0.acks_sent + 1, "%" PRIu64,
			  sb.acks_sent);
	TEST_ASSERT_EQUAL(sb.rx_pkts, sb0.rx_pkts + 1, "%" PRIu64, sb.rx_pkts);
	TEST_ASSERT_EQUAL(a->hot_acks_rcvd, 0u, "wrapped");
	TEST_ASSERT_EQUAL(b->hot_rx_pkts, 0u, "wrapped");
	return TEST_SUCCESS;
}

/* 3000 bytes at MTU 1024: FIRST/MIDDLE/LAST, several messages, PSN wrap. */
static int
test_rc_send_seg(void)
{
	struct ibv_wc wc;
	struct dpv_engine_stats st;

	for (int m = 0; m < 3; m++) {
		fill(qa.buf, 3000, (uint8_t)(m + 3));
		TEST_ASSERT_EQUAL(post_recv(&qb, 0xb0 + m, 4096, 4000), 0, "");
		TEST_ASSERT_EQUAL(
			post_send(&qa, IBV_WR_SEND, 0xa0 + m, 0, 3000, 0, 0), 0,
			"");
		TEST_ASSERT_EQUAL(wait_wc(&qb.rcq, &wc), 0, "recv completion");
		TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "");
		TEST_ASSERT_EQUAL(wc.byte_len, 3000, "");
		TEST_ASSERT_EQUAL(wc.wr_id, 0xb0 + m, "");
		TEST_ASSERT_BUFFERS_EQUAL(qb.buf + 4096, qa.buf, 3000,
					  "message %d", m);
		TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc), 0, "send completion");
		TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "");
		TEST_ASSERT_EQUAL(wc.wr_id, 0xa0 + m, "");
	}
	dpv_engine_stats_get(eng, &st);
	/* 3 messages x 3 data packets + at most 3 ACKs, nothing resent */
	TEST_ASSERT(st.tx_pkts >= 10 && st.tx_pkts <= 12, "tx %" PRIu64,
		    st.tx_pkts);
	/* a message's three frames leave in one burst, each ACK in one */
	TEST_ASSERT(st.tx_bursts >= 3 && st.tx_bursts <= 6,
		    "tx bursts %" PRIu64, st.tx_bursts);
	TEST_ASSERT(st.rx_bursts >= 3 && st.rx_bursts <= st.rx_pkts,
		    "rx bursts %" PRIu64 " of %" PRIu64 " frames", st.rx_bursts,
		    st.rx_pkts);
	TEST_ASSERT_EQUAL(st.retransmits, 0, "");
	TEST_ASSERT_EQUAL(st.rx_drop_parse, 0, "every frame parsed (ICRC ok)");
	/* one engine on a loopback wire: every byte sent was received */
	TEST_ASSERT(st.tx_bytes > 9000 && st.tx_bytes == st.rx_bytes,
		    "tx %" PRIu64 " rx %" PRIu64 " bytes", st.tx_bytes,
		    st.rx_bytes);
	return TEST_SUCCESS;
}

static int
test_rc_write(void)
{
	struct ibv_wc wc;

	fill(qa.buf, 3000, 9);
	TEST_ASSERT_EQUAL(post_send(&qa, IBV_WR_RDMA_WRITE, 1, 0, 3000,
				    (uintptr_t)qb.buf + 100, qb.key),
			  0, "");
	TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc), 0, "");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "status %d", wc.status);
	TEST_ASSERT_EQUAL(wc.opcode, IBV_WC_RDMA_WRITE, "");
	TEST_ASSERT_BUFFERS_EQUAL(qb.buf + 100, qa.buf, 3000, "");
	TEST_ASSERT_EQUAL(qb.buf[99], 0, "no byte before");
	TEST_ASSERT_EQUAL(qb.buf[3100], 0, "no byte after");
	return TEST_SUCCESS;
}

static int
test_rc_read(void)
{
	struct ibv_wc wc;

	fill(qb.buf, 3000, 21);
	TEST_ASSERT_EQUAL(post_send(&qa, IBV_WR_RDMA_READ, 2, 1000, 3000,
				    (uintptr_t)qb.buf, qb.key),
			  0, "");
	TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc), 0, "");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "status %d", wc.status);
	TEST_ASSERT_EQUAL(wc.opcode, IBV_WC_RDMA_READ, "");
	TEST_ASSERT_EQUAL(wc.byte_len, 3000, "");
	TEST_ASSERT_BUFFERS_EQUAL(qa.buf + 1000, qb.buf, 3000, "");
	/* a SEND after the READ still works (PSNs stepped by 3) */
	return test_rc_send();
}

/*
 * SENDs, WRITEs and READs on one QP: a SEND and a WRITE that a plain ACK
 * completes, then the rest posted back to back. The ACKs and the READ
 * responses that follow them are taken in order, nothing is resent on a
 * link that loses nothing, and every byte lands where it was aimed.
 */
static int
test_rc_mixed(void)
{
	static const struct {
		enum ibv_wr_opcode op;
		uint32_t off, len, roff; /* A's bytes, B's */
	} m[] = {
		{IBV_WR_SEND, 0, 100, 0},
		{IBV_WR_RDMA_WRITE, 512, 200, 1024},
		{IBV_WR_RDMA_READ, 1024, 300, 2048},
		{IBV_WR_SEND, 1536, 64, 512},
		{IBV_WR_RDMA_WRITE, 2048, 1500, 4096}, /* two packets */
		{IBV_WR_RDMA_READ, 4096, 50, 6000},
		{IBV_WR_SEND, 4200, 10, 600},
	};
	struct dpv_engine_stats st0, st;
	struct ibv_wc wc;

	fill(qa.buf, BUF_SIZE, 5);
	fill(qb.buf, BUF_SIZE, 77);
	for (unsigned int i = 0; i < RTE_DIM(m); i++)
		if (m[i].op == IBV_WR_SEND)
			TEST_ASSERT_EQUAL(post_recv(&qb, 0xb0 + i, m[i].roff,
						    m[i].len),
					  0, "");
	dpv_engine_stats_get(eng, &st0);
	/* the first two alone (a plain ACK completes them), then the rest */
	for (unsigned int i = 0, end = 2; i < RTE_DIM(m); end = RTE_DIM(m)) {
		for (unsigned int j = i; j < end; j++)
			TEST_ASSERT_EQUAL(post_send(&qa, m[j].op, 0xa0 + j,
						    m[j].off, m[j].len,
						    (uintptr_t)qb.buf +
							    m[j].roff,
						    qb.key),
					  0, "post %u", j);
		for (; i < end; i++) {
			TEST_ASSERT_EQUAL(expect_wc(&qa.scq, 0xa0 + i,
						    IBV_WC_SUCCESS),
					  TEST_SUCCESS, "WQE %u", i);
			if (m[i].op == IBV_WR_SEND)
				TEST_ASSERT_EQUAL(expect_wc(&qb.rcq, 0xb0 + i,
							    IBV_WC_SUCCESS),
						  TEST_SUCCESS, "receive %u",
						  i);
		}
	}
	TEST_ASSERT(dpv_mlx5_cq_poll(&qa.scq, 1, &wc, lookup, NULL) == 0,
		    "no completion more");
	for (unsigned int i = 0; i < RTE_DIM(m); i++)
		TEST_ASSERT_BUFFERS_EQUAL(qa.buf + m[i].off,
					  qb.buf + m[i].roff, m[i].len,
					  "message %u", i);
	dpv_engine_stats_get(eng, &st);
	TEST_ASSERT_EQUAL(st.retransmits, st0.retransmits, "nothing resent");
	TEST_ASSERT_EQUAL(st.rx_drop_parse, st0.rx_drop_parse, "");
	return TEST_SUCCESS;
}

static int
test_rc_atomic(void)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)qa.buf, .length = 8, .lkey = qa.key};
	struct ibv_send_wr wr =
				   {
					   .wr_id = 7,
					   .sg_list = &sge,
					   .num_sge = 1,
					   .opcode =
						   IBV_WR_ATOMIC_FETCH_AND_ADD,
					   .send_flags = IBV_SEND_SIGNALED,
				   },
			   *bad;
	uint64_t v = 40, got;
	struct ibv_wc wc;

	memcpy(qb.buf + 64, &v, 8);
	wr.wr.atomic.remote_addr = (uintptr_t)qb.buf + 64;
	wr.wr.atomic.rkey = qb.key;
	wr.wr.atomic.compare_add = 2;
	TEST_ASSERT_EQUAL(
		dpv_mlx5_post_send(&qa.sq, IBV_QPT_RC, QPN_A, &wr, &bad), 0,
		"");
	TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc), 0, "");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "status %d", wc.status);
	TEST_ASSERT_EQUAL(wc.opcode, IBV_WC_FETCH_ADD, "");
	memcpy(&got, qa.buf, 8);
	TEST_ASSERT_EQUAL(got, 40, "original value returned");
	memcpy(&got, qb.buf + 64, 8);
	TEST_ASSERT_EQUAL(got, 42, "added");

	wr.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
	wr.wr.atomic.compare_add = 42;
	wr.wr.atomic.swap = 1000;
	TEST_ASSERT_EQUAL(
		dpv_mlx5_post_send(&qa.sq, IBV_QPT_RC, QPN_A, &wr, &bad), 0,
		"");
	TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc), 0, "");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "");
	TEST_ASSERT_EQUAL(wc.opcode, IBV_WC_COMP_SWAP, "");
	memcpy(&got, qa.buf, 8);
	TEST_ASSERT_EQUAL(got, 42, "");
	memcpy(&got, qb.buf + 64, 8);
	TEST_ASSERT_EQUAL(got, 1000, "swapped");

	/* compare fails: no swap, original returned */
	wr.wr.atomic.compare_add = 5;
	wr.wr.atomic.swap = 7;
	TEST_ASSERT_EQUAL(
		dpv_mlx5_post_send(&qa.sq, IBV_QPT_RC, QPN_A, &wr, &bad), 0,
		"");
	TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc), 0, "");
	memcpy(&got, qb.buf + 64, 8);
	TEST_ASSERT_EQUAL(got, 1000, "unchanged");
	memcpy(&got, qa.buf, 8);
	TEST_ASSERT_EQUAL(got, 1000, "");
	return TEST_SUCCESS;
}

static int
test_rc_rem_access_err(void)
{
	TEST_ASSERT_EQUAL(post_send(&qa, IBV_WR_RDMA_WRITE, 3, 0, 64,
				    (uintptr_t)qb.buf, qb.key ^ 0x100),
			  0, "");
	TEST_ASSERT_EQUAL(post_send(&qa, IBV_WR_SEND, 4, 0, 64, 0, 0), 0, "");
	TEST_ASSERT_EQUAL(expect_wc(&qa.scq, 3, IBV_WC_REM_ACCESS_ERR), 0,
			  "");
	TEST_ASSERT_EQUAL(expect_wc(&qa.scq, 4, IBV_WC_WR_FLUSH_ERR), 0, "");
	TEST_ASSERT_EQUAL(both_err(), 0, "");
	/* out of bounds is an access error too, checked before a byte moves */
	return TEST_SUCCESS;
}

static int
test_rc_rnr(void)
{
	struct ibv_wc wc;
	struct dpv_engine_stats st;

	fill(qa.buf, 64, 5);
	TEST_ASSERT_EQUAL(post_send(&qa, IBV_WR_SEND, 5, 0, 64, 0, 0), 0, "");
	for (int i = 0; i < 200; i++)
		dpv_engine_poll(eng, 32);
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_poll(&qa.scq, 1, &wc, lookup, NULL), 0,
			  "no completion while no receive is posted");
	dpv_engine_stats_get(eng, &st);
	TEST_ASSERT(st.rnr_naks_sent > 0, "RNR NAK sent");
	TEST_ASSERT_EQUAL(post_recv(&qb, 6, 0, 128), 0, "");
	TEST_ASSERT_EQUAL(wait_wc(&qb.rcq, &wc), 0, "");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "");
	TEST_ASSERT_EQUAL(wc.byte_len, 64, "");
	TEST_ASSERT_BUFFERS_EQUAL(qb.buf, qa.buf, 64, "");
	TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc), 0, "");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "status %d", wc.status);

	/* a 3-packet message: the whole message waits and is sent again */
	fill(qa.buf, 3000, 8);
	TEST_ASSERT_EQUAL(post_send(&qa, IBV_WR_SEND, 7, 0, 3000, 0, 0), 0, "");
	for (int i = 0; i < 200; i++)
		dpv_engine_poll(eng, 32);
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_poll(&qa.scq, 1, &wc, lookup, NULL), 0,
			  "");
	TEST_ASSERT_EQUAL(post_recv(&qb, 8, 4096, 4000), 0, "");
	TEST_ASSERT_EQUAL(wait_wc(&qb.rcq, &wc), 0, "");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "");
	TEST_ASSERT_EQUAL(wc.byte_len, 3000, "");
	TEST_ASSERT_BUFFERS_EQUAL(qb.buf + 4096, qa.buf, 3000, "");
	TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc), 0, "");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "status %d", wc.status);
	TEST_ASSERT_EQUAL(wc.wr_id, 7, "");
	return TEST_SUCCESS;
}

static int
test_rc_rnr_exceeded(void)
{
	struct ibv_wc wc;

	TEST_ASSERT_EQUAL(post_send(&qa, IBV_WR_SEND, 8, 0, 64, 0, 0), 0, "");
	TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc), 0, "");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_RNR_RETRY_EXC_ERR, "status %d",
			  wc.status);
	TEST_ASSERT_EQUAL(dpv_engine_qp_state(eng, QPN_A), IBV_QPS_ERR, "");
	return TEST_SUCCESS;
}

static int
test_uc_send_write(void)
{
	struct ibv_wc wc;

	fill(qa.buf, 3000, 11);
	TEST_ASSERT_EQUAL(post_recv(&qb, 1, 4096, 4000), 0, "");
	{
		struct ibv_sge sge = {.addr = (uintptr_t)qa.buf,
				      .length = 3000,
				      .lkey = qa.key};
		struct ibv_send_wr wr = {.wr_id = 2,
					 .sg_list = &sge,
					 .num_sge = 1,
					 .opcode = IBV_WR_SEND,
					 .send_flags = IBV_SEND_SIGNALED},
				   *bad;

		TEST_ASSERT_EQUAL(dpv_mlx5_post_send(&qa.sq, IBV_QPT_UC, QPN_A,
						     &wr, &bad),
				  0, "");
		wr.opcode = IBV_WR_RDMA_WRITE;
		wr.wr_id = 3;
		wr.wr.rdma.remote_addr = (uintptr_t)qb.buf;
		wr.wr.rdma.rkey = qb.key;
		TEST_ASSERT_EQUAL(dpv_mlx5_post_send(&qa.sq, IBV_QPT_UC, QPN_A,
						     &wr, &bad),
				  0, "");
	}
	TEST_ASSERT_EQUAL(wait_wc(&qb.rcq, &wc), 0, "");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "");
	TEST_ASSERT_EQUAL(wc.byte_len, 3000, "");
	TEST_ASSERT_BUFFERS_EQUAL(qb.buf + 4096, qa.buf, 3000, "send");
	TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc), 0, "");
	TEST_ASSERT_EQUAL(wc.wr_id, 2, "");
	TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc), 0, "");
	TEST_ASSERT_EQUAL(wc.wr_id, 3, "");
	for (int i = 0; i < 10; i++)
		dpv_engine_poll(eng, 32);
	TEST_ASSERT_BUFFERS_EQUAL(qb.buf, qa.buf, 3000, "write");
	return TEST_SUCCESS;
}

/* UC through a lossy wire: broken messages vanish, the others arrive
 * whole, every send completes. */
static int
test_uc_loss(void)
{
	struct ibv_sge sge = {.length = 3000, .lkey = qa.key};
	struct ibv_send_wr wr = {.sg_list = &sge,
				 .num_sge = 1,
				 .opcode = IBV_WR_SEND,
				 .send_flags = IBV_SEND_SIGNALED},
			   *bad;
	struct ibv_wc wc;
	int got = 0;

	for (int m = 0; m < 30; m++)
		TEST_ASSERT_EQUAL(post_recv(&qb, m, 4096, 4000), 0, "");
	dpv_engine_inject_tx_loss(eng, 5);
	for (int m = 0; m < 30; m++) {
		fill(qa.buf, 3000, (uint8_t)m);
		sge.addr = (uintptr_t)qa.buf;
		wr.wr_id = m;
		TEST_ASSERT_EQUAL(dpv_mlx5_post_send(&qa.sq, IBV_QPT_UC, QPN_A,
						     &wr, &bad),
				  0, "");
		TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc), 0, "send %d", m);
		TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "");
		for (int i = 0; i < 4; i++)
			dpv_engine_poll(eng, 32);
		while (dpv_mlx5_cq_poll(&qb.rcq, 1, &wc, lookup, NULL) == 1) {
			TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "");
			TEST_ASSERT_EQUAL(wc.byte_len, 3000,
					  "whole messages only");
			TEST_ASSERT_BUFFERS_EQUAL(qb.buf + 4096, qa.buf, 3000,
						  "message %d", m);
			got++;
		}
	}
	DPV_TEST_LOG("%d of 30 UC messages arrived", got);
	TEST_ASSERT(got > 0 && got < 30, "some lost, some delivered");
	return TEST_SUCCESS;
}

static int
test_ud_send(void)
{
	struct ibv_wc wc;
	struct dpv_mlx5_ah ah;
	struct dpv_mlx5_av_attr av = {.hop_limit = 64, .sgid_index = 1};
	struct ibv_sge sge = {
		.addr = (uintptr_t)qa.buf, .length = 512, .lkey = qa.key};
	struct ibv_send_wr wr = {.wr_id = 9,
				 .sg_list = &sge,
				 .num_sge = 1,
				 .opcode = IBV_WR_SEND_WITH_IMM,
				 .send_flags = IBV_SEND_SIGNALED,
				 .imm_data = rte_cpu_to_be_32(0xabcd)},
			   *bad;

	memset(&ah, 0, sizeof(ah));
	memcpy(av.dmac, mac, 6);
	/* UD takes packets sent to one of the device's addresses */
	if (port == NULL || dpv_port_gid(port, 1, av.dgid) != 0)
		dpv_roce_gid_from_ipv4(av.dgid, rte_cpu_to_be_32(0xc0000201));
	dpv_mlx5_av_build(&ah.av, &av);
	wr.wr.ud.ah = &ah.ibv_ah;
	wr.wr.ud.remote_qpn = QPN_B;
	wr.wr.ud.remote_qkey = 0x11111111;
	fill(qa.buf, 512, 13);
	TEST_ASSERT_EQUAL(post_recv(&qb, 1, 0, 40 + 512), 0, "");
	TEST_ASSERT_EQUAL(
		dpv_mlx5_post_send(&qa.sq, IBV_QPT_UD, QPN_A, &wr, &bad), 0,
		"");
	TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc), 0, "");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "");
	TEST_ASSERT_EQUAL(wait_wc(&qb.rcq, &wc), 0, "");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "");
	TEST_ASSERT_EQUAL(wc.byte_len, 40 + 512, "GRH + payload");
	TEST_ASSERT_EQUAL(wc.src_qp, QPN_A, "");
	TEST_ASSERT(wc.wc_flags & IBV_WC_GRH, "");
	TEST_ASSERT(wc.wc_flags & IBV_WC_WITH_IMM, "");
	TEST_ASSERT_EQUAL(rte_be_to_cpu_32(wc.imm_data), 0xabcd, "");
	TEST_ASSERT_EQUAL(qb.buf[20], 0x45,
			  "IPv4 header in the last 20 GRH bytes");
	TEST_ASSERT_BUFFERS_EQUAL(qb.buf + 40, qa.buf, 512, "");
	/* wrong Q_Key: dropped */
	wr.wr.ud.remote_qkey = 0x22222222;
	TEST_ASSERT_EQUAL(post_recv(&qb, 2, 0, 40 + 512), 0, "");
	TEST_ASSERT_EQUAL(
		dpv_mlx5_post_send(&qa.sq, IBV_QPT_UD, QPN_A, &wr, &bad), 0,
		"");
	TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc), 0, "");
	for (int i = 0; i < 20; i++)
		dpv_engine_poll(eng, 32);
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_poll(&qb.rcq, 1, &wc, lookup, NULL), 0,
			  "Q_Key mismatch is dropped");
	return TEST_SUCCESS;
}

static int
post_wr(struct test_engine_qp *t, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad;

	return dpv_mlx5_post_send(&t->sq, IBV_QPT_RC, t->qpn, wr, &bad);
}

static int
setup_ud_block_self(void)
{
	block_self = true;
	return case_setup_mtu(IBV_QPT_UD, IBV_MTU_1024, 7);
}

/* One UD send to a multicast group: every attached QP gets a copy (the
 * sender too, unless it blocks its own multicast loopback). */
static int
test_ud_mcast(void)
{
	struct ibv_wc wc;
	struct dpv_mlx5_ah ah;
	struct dpv_mlx5_av_attr av = {.hop_limit = 1, .sgid_index = 1};
	struct ibv_sge sge = {
		.addr = (uintptr_t)qa.buf, .length = 100, .lkey = qa.key};
	struct ibv_send_wr wr = {.wr_id = 19,
				 .sg_list = &sge,
				 .num_sge = 1,
				 .opcode = IBV_WR_SEND,
				 .send_flags = IBV_SEND_SIGNALED},
			   *bad;
	const uint8_t mmac[6] = {0x01, 0x00, 0x5e, 0x00, 0x02, 0x01};
	struct dpv_engine_stats st0, st1;
	int n;

	memset(&ah, 0, sizeof(ah));
	memcpy(av.dmac, mmac, 6);
	dpv_roce_gid_from_ipv4(av.dgid, rte_cpu_to_be_32(MCAST_IP));
	dpv_mlx5_av_build(&ah.av, &av);
	wr.wr.ud.ah = &ah.ibv_ah;
	wr.wr.ud.remote_qpn = DPV_ENGINE_QPN_MCAST;
	wr.wr.ud.remote_qkey = 0x11111111;
	fill(qa.buf, 100, 21);
	TEST_ASSERT_EQUAL(post_recv(&qa, 1, 4096, 40 + 100), 0, "");
	TEST_ASSERT_EQUAL(post_recv(&qb, 2, 0, 40 + 100), 0, "");
	TEST_ASSERT_EQUAL(
		dpv_mlx5_post_send(&qa.sq, IBV_QPT_UD, QPN_A, &wr, &bad), 0,
		"");
	TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc), 0, "");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "");
	TEST_ASSERT_EQUAL(wait_wc(&qb.rcq, &wc), 0, "member B");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "");
	TEST_ASSERT_EQUAL(wc.src_qp, QPN_A, "");
	TEST_ASSERT_EQUAL(wc.byte_len, 40 + 100, "");
	TEST_ASSERT_BUFFERS_EQUAL(qb.buf + 40, qa.buf, 100, "");
	if (block_self) {
		for (int i = 0; i < 50; i++)
			dpv_engine_poll(eng, 32);
		n = dpv_mlx5_cq_poll(&qa.rcq, 1, &wc, lookup, NULL);
		TEST_ASSERT_EQUAL(n, 0, "own multicast blocked");
	} else {
		TEST_ASSERT_EQUAL(wait_wc(&qa.rcq, &wc), 0,
				  "sender is a member");
		TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "");
		TEST_ASSERT_EQUAL(wc.src_qp, QPN_A, "");
		TEST_ASSERT_BUFFERS_EQUAL(qa.buf + 4096 + 40, qa.buf, 100, "");
	}
	/* a group nobody joined: dropped */
	dpv_roce_gid_from_ipv4(av.dgid, rte_cpu_to_be_32(MCAST_IP + 1));
	dpv_mlx5_av_build(&ah.av, &av);
	TEST_ASSERT_EQUAL(post_recv(&qb, 3, 0, 40 + 100), 0, "");
	TEST_ASSERT_EQUAL(dpv_engine_stats_get(eng, &st0), 0, "");
	TEST_ASSERT_EQUAL(
		dpv_mlx5_post_send(&qa.sq, IBV_QPT_UD, QPN_A, &wr, &bad), 0,
		"");
	TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc), 0, "");
	for (int i = 0; i < 50; i++)
		dpv_engine_poll(eng, 32);
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_poll(&qb.rcq, 1, &wc, lookup, NULL), 0,
			  "not a member");
	TEST_ASSERT_EQUAL(dpv_engine_stats_get(eng, &st1), 0, "");
	TEST_ASSERT(st1.rx_drop_noqp > st0.rx_drop_noqp, "counted");
	return TEST_SUCCESS;
}

static int
test_rc_imm_inline(void)
{
	uint8_t stackbuf[40];
	struct ibv_sge sge = {
		.addr = (uintptr_t)stackbuf, .length = 40, .lkey = 0};
	struct ibv_send_wr wr = {.wr_id = 1,
				 .sg_list = &sge,
				 .num_sge = 1,
				 .opcode = IBV_WR_SEND_WITH_IMM,
				 .send_flags =
					 IBV_SEND_SIGNALED | IBV_SEND_INLINE,
				 .imm_data = rte_cpu_to_be_32(0x1234)};
	struct ibv_wc wc;

	fill(stackbuf, sizeof(stackbuf), 50);
	TEST_ASSERT_EQUAL(post_recv(&qb, 10, 0, 256), 0, "");
	TEST_ASSERT_EQUAL(post_wr(&qa, &wr), 0,
			  "inline from unregistered memory");
	TEST_ASSERT_EQUAL(wait_wc(&qb.rcq, &wc), 0, "");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "");
	TEST_ASSERT_EQUAL(wc.byte_len, 40, "");
	TEST_ASSERT(wc.wc_flags & IBV_WC_WITH_IMM, "");
	TEST_ASSERT_EQUAL(rte_be_to_cpu_32(wc.imm_data), 0x1234, "");
	TEST_ASSERT_BUFFERS_EQUAL(qb.buf, stackbuf, 40, "");
	TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc), 0, "");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "");

	/* WRITE with immediate consumes a receive WQE */
	fill(qa.buf, 100, 60);
	TEST_ASSERT_EQUAL(post_recv(&qb, 11, 0, 0), 0, "");
	sge = (struct ibv_sge){
		.addr = (uintptr_t)qa.buf, .length = 100, .lkey = qa.key};
	wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.imm_data = rte_cpu_to_be_32(0x5678);
	wr.wr.rdma.remote_addr = (uintptr_t)qb.buf + 500;
	wr.wr.rdma.rkey = qb.key;
	TEST_ASSERT_EQUAL(post_wr(&qa, &wr), 0, "");
	TEST_ASSERT_EQUAL(wait_wc(&qb.rcq, &wc), 0, "");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "status %d", wc.status);
	TEST_ASSERT_EQUAL(wc.wr_id, 11, "");
	TEST_ASSERT_EQUAL(wc.opcode, IBV_WC_RECV_RDMA_WITH_IMM, "");
	TEST_ASSERT_EQUAL(rte_be_to_cpu_32(wc.imm_data), 0x5678, "");
	TEST_ASSERT_EQUAL(wc.byte_len, 100, "");
	TEST_ASSERT_BUFFERS_EQUAL(qb.buf + 500, qa.buf, 100, "");
	TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc), 0, "");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "");
	return TEST_SUCCESS;
}

/* Unsignaled WQEs complete silently; the ring slots are still reclaimed. */
static int
test_rc_unsignaled(void)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)qa.buf, .length = 8, .lkey = qa.key};
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE};
	struct ibv_wc wc;

	wr.wr.rdma.remote_addr = (uintptr_t)qb.buf;
	wr.wr.rdma.rkey = qb.key;
	for (int round = 0; round < 20; round++) {
		for (int i = 0; i < 9; i++) {
			wr.wr_id = round * 10 + i;
			wr.send_flags = i == 8 ? IBV_SEND_SIGNALED : 0;
			TEST_ASSERT_EQUAL(post_wr(&qa, &wr), 0, "round %d",
					  round);
		}
		TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc), 0, "");
		TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "");
		TEST_ASSERT_EQUAL(wc.wr_id, round * 10 + 8,
				  "only the signaled one");
	}
	for (int i = 0; i < 10; i++)
		dpv_engine_poll(eng, 32);
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_poll(&qa.scq, 1, &wc, lookup, NULL), 0,
			  "");
	return TEST_SUCCESS;
}

/* Posts a WRITE (wr_id id) of len bytes at offset off of A's buffer to
 * the same offset of B's. */
static int
write_span(uint32_t off, uint32_t len, uint64_t id, bool signaled)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)qa.buf + off, .length = len, .lkey = qa.key};
	struct ibv_send_wr wr = {.wr_id = id,
				 .sg_list = &sge,
				 .num_sge = 1,
				 .opcode = IBV_WR_RDMA_WRITE,
				 .send_flags =
					 signaled ? IBV_SEND_SIGNALED : 0};

	wr.wr.rdma.remote_addr = (uintptr_t)qb.buf + off;
	wr.wr.rdma.rkey = qb.key;
	return post_wr(&qa, &wr);
}

/* WRITE i of 8 bytes from A's buffer to B's at 8 * i; each posted, sent
 * and answered in polls of its own (a burst of its own at B, whose ACKs
 * would otherwise coalesce) */
static int
ackreq_write(uint32_t i, bool signaled)
{
	if (write_span(8 * i, 8, i, signaled) != 0)
		return -1;
	for (int k = 0; k < 3; k++)
		dpv_engine_poll(eng, 32);
	return 0;
}

/* A's WRITEs since A's, B's and the engine's counters were a0, b0 and e0:
 * B received pkts frames and answered acks of them, A took those ACKs,
 * with no probe and nothing sent again, and the first len bytes of A's
 * buffer landed in B's. */
static int
asks_seen(const struct dpv_engine_qp_stats *a0,
	  const struct dpv_engine_qp_stats *b0,
	  const struct dpv_engine_stats *e0, uint64_t pkts, uint64_t acks,
	  size_t len)
{
	struct dpv_engine_qp_stats a1, b1;
	struct dpv_engine_stats e1;

	TEST_ASSERT_EQUAL(dpv_engine_qp_stats_get(eng, QPN_A, &a1), 0, "");
	TEST_ASSERT_EQUAL(dpv_engine_qp_stats_get(eng, QPN_B, &b1), 0, "");
	dpv_engine_stats_get(eng, &e1);
	TEST_ASSERT_EQUAL(b1.rx_pkts - b0->rx_pkts, pkts, "B received them");
	TEST_ASSERT_EQUAL(b1.acks_sent - b0->acks_sent, acks,
			  "B's ACKs: %" PRIu64, b1.acks_sent - b0->acks_sent);
	TEST_ASSERT_EQUAL(a1.acks_rcvd - a0->acks_rcvd, acks, "");
	TEST_ASSERT_EQUAL(e1.ack_probes, e0->ack_probes, "no probe");
	TEST_ASSERT_EQUAL(a1.retransmits, a0->retransmits, "none sent again");
	TEST_ASSERT_BUFFERS_EQUAL(qb.buf, qa.buf, len, "all landed");
	return TEST_SUCCESS;
}

/* AckReq sparingly (DPV_ENGINE_ACKREQ_DIV): 48 unsignaled WRITEs and a
 * signaled one, each in a burst of its own, ask for an ACK every 16
 * messages (64 send slots) and at the signaled one; B answers those and
 * no more (one ACK a message before), and everything lands. */
static int
test_rc_ackreq_sparse(void)
{
	struct dpv_engine_qp_stats a0, b0;
	struct dpv_engine_stats e0;
	struct ibv_wc wc;

	/* no probe however slow the host: the asks alone are counted */
	eng->probe_cycles = rte_get_timer_hz() * 100;
	fill(qa.buf, 8 * 49, 0x3c);
	memset(qb.buf, 0, 8 * 49);
	TEST_ASSERT_EQUAL(dpv_engine_qp_stats_get(eng, QPN_A, &a0), 0, "");
	TEST_ASSERT_EQUAL(dpv_engine_qp_stats_get(eng, QPN_B, &b0), 0, "");
	dpv_engine_stats_get(eng, &e0);
	for (uint32_t i = 0; i < 49; i++)
		TEST_ASSERT_EQUAL(ackreq_write(i, i == 48), 0, "post %u", i);
	TEST_ASSERT_EQUAL(expect_wc(&qa.scq, 48, IBV_WC_SUCCESS), TEST_SUCCESS,
			  "");
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_poll(&qa.scq, 1, &wc, lookup, NULL), 0,
			  "the signaled one only");
	/* asked at messages 16, 32 and 48 (counting from 1) and at 49 */
	return asks_seen(&a0, &b0, &e0, 49, 4, 8 * 49);
}

/* Polls (budget frames a poll) until everything A sent is acknowledged
 * (1 s at most). */
static int
tail_acked(unsigned int budget)
{
	struct dpv_engine_qp_state st;
	uint64_t end = rte_get_timer_cycles() + rte_get_timer_hz();

	do {
		dpv_engine_poll(eng, budget);
		TEST_ASSERT_EQUAL(dpv_engine_qp_state_get(eng, QPN_A, &st), 0,
				  "");
	} while (st.sq_acked_psn != st.sq_psn && rte_get_timer_cycles() < end);
	TEST_ASSERT_EQUAL(st.sq_acked_psn, st.sq_psn, "acknowledged");
	return TEST_SUCCESS;
}

/* AckReq every so many packets as well (DPV_ENGINE_ACKREQ_PKTS, lowered
 * to 16 here): eight unsignaled 4 KiB WRITEs (4 packets each at a 1024
 * MTU), each in polls of its own, ask at the 4th and the 8th, long before
 * every 16th message would. Before, the message count alone decided: 32
 * messages of 4 MiB in flight between two asks outlasted a 67 ms ACK
 * timer at 2 GB/s, and perftest's ib_send_bw -a sent its 8 MiB messages
 * 3-4 times over (go-back-N at every timeout). */
static int
test_rc_ackreq_pkts(void)
{
	struct dpv_engine_qp_stats a0, b0;
	struct dpv_engine_stats e0;

	eng->probe_cycles = rte_get_timer_hz() * 100; /* no probe */
	eng->ackreq_pkts = 16;
	fill(qa.buf, BUF_SIZE, 0x2d);
	memset(qb.buf, 0, BUF_SIZE);
	TEST_ASSERT_EQUAL(dpv_engine_qp_stats_get(eng, QPN_A, &a0), 0, "");
	TEST_ASSERT_EQUAL(dpv_engine_qp_stats_get(eng, QPN_B, &b0), 0, "");
	dpv_engine_stats_get(eng, &e0);
	for (uint32_t i = 0; i < 8; i++) {
		TEST_ASSERT_EQUAL(write_span(4096 * (i % 2), 4096, i, false), 0,
				  "post %u", i);
		for (int k = 0; k < 3; k++)
			dpv_engine_poll(eng, 32);
	}
	/* the 8th asked: everything is acknowledged, nothing left to ask */
	if (tail_acked(32) != TEST_SUCCESS)
		return TEST_FAILED;
	return asks_seen(&a0, &b0, &e0, 32, 2, BUF_SIZE);
}

/* After an ACK timeout every message sent again asks for its ACK, also
 * when the ACKs move on before its last packet goes. A's signaled 2 KiB
 * WRITE and unsignaled 6 KiB one (2 and 6 packets) are lost; the timeout
 * sends both again, one packet a poll, so B's ACK of the first completes
 * it while the second is still going out. Before, a message of several
 * packets sent again asked only while no ACK had come since the timeout
 * (its go-back-N mark ended at its first packet): the second did not ask,
 * waited for another timeout and was sent a third time. With messages of
 * megabytes (ib_send_bw -a) every timeout then moved on by one or two
 * messages and sent the rest again. */
static int
test_rc_resend_asks(void)
{
	struct dpv_engine_qp_stats a0, a1;
	struct dpv_engine_qp_state st;

	fill(qa.buf, BUF_SIZE, 0x61);
	memset(qb.buf, 0, BUF_SIZE);
	TEST_ASSERT_EQUAL(dpv_engine_qp_stats_get(eng, QPN_A, &a0), 0, "");
	dpv_engine_inject_tx_loss(eng, 1);
	TEST_ASSERT_EQUAL(write_span(0, 2048, 1, true), 0, "");
	TEST_ASSERT_EQUAL(write_span(2048, 6144, 2, false), 0, "");
	for (int k = 0; k < 4; k++)
		dpv_engine_poll(eng, 32);
	dpv_engine_inject_tx_loss(eng, 0);
	/* the ACK timer alone from here (the second did not ask) */
	eng->probe_cycles = rte_get_timer_hz() * 100;
	TEST_ASSERT_EQUAL(dpv_engine_qp_state_get(eng, QPN_A, &st), 0, "");
	TEST_ASSERT_EQUAL(st.sq_sent, 2, "both went");
	TEST_ASSERT(st.sq_acked_psn != st.sq_psn, "and were lost");
	if (tail_acked(1) != TEST_SUCCESS)
		return TEST_FAILED;
	TEST_ASSERT_EQUAL(dpv_engine_qp_stats_get(eng, QPN_A, &a1), 0, "");
	TEST_ASSERT_EQUAL(a1.retransmits - a0.retransmits, 1,
			  "sent again once: %" PRIu64,
			  a1.retransmits - a0.retransmits);
	TEST_ASSERT(a1.acks_rcvd - a0.acks_rcvd >= 2,
		    "the first's ACK came before the second's");
	TEST_ASSERT_EQUAL(expect_wc(&qa.scq, 1, IBV_WC_SUCCESS), TEST_SUCCESS,
			  "");
	TEST_ASSERT_BUFFERS_EQUAL(qb.buf, qa.buf, BUF_SIZE, "both landed");
	return TEST_SUCCESS;
}

/* A's unsignaled tail of three 8-byte WRITEs (ackreq_write() 0..2), all
 * sent, none asking for its ACK, with the probe's timer (probe_cycles
 * 1 ms, 30 us by default) running: the posts take far less, unless the
 * host stops this thread in between (then again, what the earlier try
 * left acknowledged by a signaled WRITE 3). The counters of A, B and the
 * engine before the last try in a0, b0, e0; A's state after it in st. */
static int
post_tail(struct dpv_engine_qp_stats *a0, struct dpv_engine_qp_stats *b0,
	  struct dpv_engine_stats *e0, struct dpv_engine_qp_state *st)
{
	uint64_t t0, hz = rte_get_timer_hz();
	int tries = 0;

	eng->probe_cycles = hz / 1000;
	do {
		TEST_ASSERT(tries++ < 5, "the host kept stopping the test");
		if (tries > 1) {
			TEST_ASSERT_EQUAL(ackreq_write(3, true), 0, "");
			TEST_ASSERT_EQUAL(expect_wc(&qa.scq, 3, IBV_WC_SUCCESS),
					  TEST_SUCCESS, "");
		}
		TEST_ASSERT_EQUAL(dpv_engine_qp_stats_get(eng, QPN_A, a0), 0,
				  "");
		TEST_ASSERT_EQUAL(dpv_engine_qp_stats_get(eng, QPN_B, b0), 0,
				  "");
		dpv_engine_stats_get(eng, e0);
		t0 = rte_get_timer_cycles();
		for (uint32_t i = 0; i < 3; i++)
			TEST_ASSERT_EQUAL(ackreq_write(i, false), 0, "post %u",
					  i);
		TEST_ASSERT_EQUAL(dpv_engine_qp_state_get(eng, QPN_A, st), 0,
				  "");
	} while (rte_get_timer_cycles() - t0 > hz / 2000);
	TEST_ASSERT_EQUAL(st->sq_sent, st->sq_fetched, "all three sent");
	TEST_ASSERT(st->sq_acked_psn != st->sq_psn, "none asked for its ACK");
	return TEST_SUCCESS;
}

/* An unsignaled tail nothing asks after: the probe asks for its ACK
 * (its timer set from the last of it), once; B answers the duplicate;
 * every WQE is acknowledged and the QP goes on. */
static int
test_rc_ackreq_probe(void)
{
	struct dpv_engine_qp_stats a0, b0, a1, b1;
	struct dpv_engine_qp_state st;
	struct dpv_engine_stats e0, e1;

	fill(qa.buf, 8 * 4, 0x5a);
	memset(qb.buf, 0, 8 * 4);
	if (post_tail(&a0, &b0, &e0, &st) != TEST_SUCCESS)
		return TEST_FAILED;
	TEST_ASSERT(st.timer_us <= 1000,
		    "the probe's timer runs: %" PRIu64 " us", st.timer_us);
	if (tail_acked(32) != TEST_SUCCESS)
		return TEST_FAILED;
	for (int k = 0; k < 3; k++)
		dpv_engine_poll(eng, 32);
	TEST_ASSERT_EQUAL(dpv_engine_qp_state_get(eng, QPN_A, &st), 0, "");
	TEST_ASSERT_EQUAL(st.sq_done, st.sq_fetched, "all three done");
	TEST_ASSERT(st.timer_us == UINT64_MAX, "no timer left: %" PRIu64,
		    st.timer_us);
	TEST_ASSERT_EQUAL(dpv_engine_qp_stats_get(eng, QPN_A, &a1), 0, "");
	TEST_ASSERT_EQUAL(dpv_engine_qp_stats_get(eng, QPN_B, &b1), 0, "");
	dpv_engine_stats_get(eng, &e1);
	TEST_ASSERT_EQUAL(e1.ack_probes - e0.ack_probes, 1, "one probe");
	TEST_ASSERT_EQUAL(b1.dup_requests - b0.dup_requests, 1,
			  "B took it for a duplicate");
	TEST_ASSERT_EQUAL(b1.acks_sent - b0.acks_sent, 1, "and answered it");
	TEST_ASSERT_EQUAL(a1.retransmits, a0.retransmits, "not a retry");
	TEST_ASSERT_BUFFERS_EQUAL(qb.buf, qa.buf, 8 * 3, "landed once");
	/* the QP goes on: a signaled WRITE completes, with no probe */
	TEST_ASSERT_EQUAL(ackreq_write(3, true), 0, "");
	TEST_ASSERT_EQUAL(expect_wc(&qa.scq, 3, IBV_WC_SUCCESS), TEST_SUCCESS,
			  "");
	dpv_engine_stats_get(eng, &e0);
	TEST_ASSERT_EQUAL(e0.ack_probes, e1.ack_probes, "");
	return TEST_SUCCESS;
}

/* A's unsignaled tail (post_tail(), A's counters before it in a0); then
 * the port takes nothing and B's nine 8 KiB WRITEs (72 frames, wr_ids
 * 100..108, into A's buffer as it is) fill the engine's TX buffer (64). */
static int
tail_then_full_port(struct dpv_engine_qp_stats *a0)
{
	struct dpv_engine_qp_stats b0;
	struct dpv_engine_qp_state st;
	struct dpv_engine_stats e0;

	fill(qa.buf, 8 * 3, 0x6b);
	memset(qb.buf, 0, BUF_SIZE);
	if (post_tail(a0, &b0, &e0, &st) != TEST_SUCCESS)
		return TEST_FAILED;
	dpv_engine_inject_tx_stall(eng, true);
	for (int i = 0; i < 9; i++)
		TEST_ASSERT_EQUAL(post_send(&qb, IBV_WR_RDMA_WRITE, 100 + i, 0,
					    BUF_SIZE, (uintptr_t)qa.buf,
					    qa.key),
				  0, "");
	return TEST_SUCCESS;
}

/* Polls the engine until A's probes_refused is want more than in a0, or
 * for ms milliseconds; that count (a host that stops the test delays each
 * try, so the wait is for the count, not a time). */
static uint64_t
refusals(const struct dpv_engine_qp_stats *a0, uint64_t want, unsigned int ms)
{
	uint64_t end = rte_get_timer_cycles() + rte_get_timer_hz() / 1000 * ms;
	struct dpv_engine_qp_stats a;

	do {
		dpv_engine_poll(eng, 32);
		if (dpv_engine_qp_stats_get(eng, QPN_A, &a) != 0)
			return 0;
	} while (a.probes_refused - a0->probes_refused < want &&
		 rte_get_timer_cycles() < end);
	return a.probes_refused - a0->probes_refused;
}

/* Once the port takes frames again: A's tail acknowledged (within 1 s),
 * B's WRITEs completed, A's first 24 bytes in B's buffer. */
static int
tail_and_writes_done(void)
{
	dpv_engine_inject_tx_stall(eng, false);
	if (tail_acked(32) != TEST_SUCCESS)
		return TEST_FAILED;
	for (int i = 0; i < 9; i++)
		if (expect_wc(&qb.scq, 100 + i, IBV_WC_SUCCESS) != TEST_SUCCESS)
			return TEST_FAILED;
	TEST_ASSERT_BUFFERS_EQUAL(qb.buf, qa.buf, 8 * 3, "landed");
	return TEST_SUCCESS;
}

/*
 * The tail's probe finds no room in the port (B's frames fill the TX
 * buffer while the port takes nothing). Until it was refused twice: it is
 * tried again a probe's time later, not left to the ACK timeout (67 ms at
 * timeout 14) and a retransmission; once the port takes frames again, the
 * next try asks and the tail is acknowledged with nothing sent again.
 * Or (bound)
 * until DPV_ENGINE_PROBE_REFUSED tries, and 5 ms more: after that many
 * refusals in a row there are no more, the ACK timer covers the tail (a
 * port that never takes a frame still ends in a timeout), and the tail
 * completes once frames go.
 */
enum refused_case {
	REFUSED_TWICE, /* until two refusals */
	/* until DPV_ENGINE_PROBE_REFUSED, then the ACK timer, 5 ms more */
	REFUSED_BOUND,
	REFUSED_NO_ACK_TIMER, /* A's timeout 0: beyond that number */
};

static int
probe_refused(enum refused_case c)
{
	struct ibv_qp_attr none = {.timeout = 0};
	struct dpv_engine_qp_stats a0, a1;
	struct dpv_engine_qp_state st;
	uint64_t n, want = c == REFUSED_TWICE	? 2
			   : c == REFUSED_BOUND ? DPV_ENGINE_PROBE_REFUSED
						: DPV_ENGINE_PROBE_REFUSED + 4;

	if (c == REFUSED_NO_ACK_TIMER)
		TEST_ASSERT_EQUAL(dpv_engine_qp_modify(eng, QPN_A, &none,
						       IBV_QP_TIMEOUT, NULL),
				  0, "");
	if (tail_then_full_port(&a0) != TEST_SUCCESS)
		return TEST_FAILED;
	n = refusals(&a0, want, 2000);
	TEST_ASSERT_EQUAL(dpv_engine_qp_state_get(eng, QPN_A, &st), 0, "");
	if (c == REFUSED_BOUND) {
		/* the last try's time out: then the ACK timer, and no more
		 * tries (a try more ends the wait too) */
		uint64_t end = rte_get_timer_cycles() + rte_get_timer_hz() * 2;

		while (n == DPV_ENGINE_PROBE_REFUSED && st.timer_us <= 1000 &&
		       rte_get_timer_cycles() < end) {
			n = refusals(&a0, DPV_ENGINE_PROBE_REFUSED + 1, 1);
			TEST_ASSERT_EQUAL(
				dpv_engine_qp_state_get(eng, QPN_A, &st), 0,
				"");
		}
		n = refusals(&a0, DPV_ENGINE_PROBE_REFUSED + 1, 5);
		TEST_ASSERT_EQUAL(n, DPV_ENGINE_PROBE_REFUSED,
				  "%" PRIu64 " refusals", n);
		TEST_ASSERT(st.timer_us > 1000 && st.timer_us != UINT64_MAX,
			    "the ACK timer runs: %" PRIu64 " us", st.timer_us);
	} else {
		TEST_ASSERT(
			st.timer_us <= 1000,
			"the probe's timer runs, not the ACK timer: %" PRIu64
			" us",
			st.timer_us);
		TEST_ASSERT(n >= want,
			    "the probe tried again: %" PRIu64 " refusals", n);
	}
	if (tail_and_writes_done() != TEST_SUCCESS)
		return TEST_FAILED;
	TEST_ASSERT_EQUAL(dpv_engine_qp_stats_get(eng, QPN_A, &a1), 0, "");
	TEST_ASSERT(c == REFUSED_BOUND || a1.retransmits == a0.retransmits,
		    "A sent %" PRIu64 " again",
		    a1.retransmits - a0.retransmits);
	return TEST_SUCCESS;
}

static int
test_rc_ackreq_probe_refused(void)
{
	return probe_refused(REFUSED_TWICE);
}

static int
test_rc_ackreq_probe_refused_bound(void)
{
	return probe_refused(REFUSED_BOUND);
}

/* With no ACK timer (timeout 0) nothing else would ask for the tail's
 * ACK: the probe is tried for as long as the port has no room. */
static int
test_rc_ackreq_probe_refused_no_timer(void)
{
	return probe_refused(REFUSED_NO_ACK_TIMER);
}

/* Receive buffer too small: responder LOC_LEN_ERR, requester REM_INV_REQ. */
static int
test_rc_len_err(void)
{
	struct ibv_wc wc;

	TEST_ASSERT_EQUAL(post_recv(&qb, 20, 0, 32), 0, "");
	TEST_ASSERT_EQUAL(post_send(&qa, IBV_WR_SEND, 21, 0, 64, 0, 0), 0, "");
	TEST_ASSERT_EQUAL(wait_wc(&qb.rcq, &wc), 0, "");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_LOC_LEN_ERR, "status %d",
			  wc.status);
	TEST_ASSERT_EQUAL(wc.wr_id, 20, "");
	TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc), 0, "");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_REM_INV_REQ_ERR, "status %d",
			  wc.status);
	return TEST_SUCCESS;
}

/* A SEND into a receive WQE whose key is refused: the responder
 * completes it LOC_PROT_ERR and NAKs (remote operational error), both
 * QPs end in ERR, and no byte lands. */
static int
test_rc_recv_key_err(void)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)qb.buf, .length = 64, .lkey = qb.key ^ 0x100};
	struct ibv_recv_wr rwr = {.wr_id = 24, .sg_list = &sge, .num_sge = 1},
			   *bad;

	memset(qb.buf, 0, 64);
	fill(qa.buf, 64, 9);
	TEST_ASSERT_EQUAL(dpv_mlx5_post_recv(&qb.rq, &rwr, &bad), 0, "");
	TEST_ASSERT_EQUAL(post_send(&qa, IBV_WR_SEND, 25, 0, 64, 0, 0), 0, "");
	TEST_ASSERT_EQUAL(expect_wc(&qb.rcq, 24, IBV_WC_LOC_PROT_ERR), 0,
			  "");
	TEST_ASSERT_EQUAL(expect_wc(&qa.scq, 25, IBV_WC_REM_OP_ERR), 0, "");
	TEST_ASSERT_EQUAL(both_err(), 0, "");
	for (int i = 0; i < 64; i++)
		TEST_ASSERT_EQUAL(qb.buf[i], 0, "byte %d landed", i);
	return TEST_SUCCESS;
}

/* The SE bit of a SEND reaches the receive CQE: a CQ armed for
 * solicited completions only raises its event for a solicited SEND, not
 * for a plain one (rxe and the hardware do the same). */
static int
test_rc_solicited(void)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)qa.buf, .length = 16, .lkey = qa.key};
	struct ibv_send_wr wr = {.wr_id = 31,
				 .sg_list = &sge,
				 .num_sge = 1,
				 .opcode = IBV_WR_SEND,
				 .send_flags = IBV_SEND_SIGNALED};
	struct ibv_wc wc;

	TEST_ASSERT_EQUAL(post_recv(&qb, 30, 0, 64), 0, "");
	TEST_ASSERT_EQUAL(post_recv(&qb, 32, 64, 64), 0, "");
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_arm(&qb.rcq, 1), 0, "");
	TEST_ASSERT_EQUAL(post_wr(&qa, &wr), 0, "");
	TEST_ASSERT_EQUAL(expect_wc(&qb.rcq, 30, IBV_WC_SUCCESS), 0, "");
	TEST_ASSERT(!dpv_mlx5_cq_should_notify(&qb.rcq), "plain SEND fired");
	wr.wr_id = 33;
	wr.send_flags |= IBV_SEND_SOLICITED;
	TEST_ASSERT_EQUAL(post_wr(&qa, &wr), 0, "");
	TEST_ASSERT_EQUAL(expect_wc(&qb.rcq, 32, IBV_WC_SUCCESS), 0, "");
	TEST_ASSERT(dpv_mlx5_cq_should_notify(&qb.rcq),
		    "solicited SEND did not fire");
	while (dpv_mlx5_cq_poll(&qa.scq, 1, &wc, lookup, NULL) == 1)
		TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "send %" PRIu64,
				  wc.wr_id);
	return TEST_SUCCESS;
}

/* No peer: the ACK timeout fires retry_cnt times, then RETRY_EXC_ERR. */
static int
test_rc_retry_exceeded(void)
{
	struct ibv_qp_attr a = {.dest_qp_num = 0x999, .timeout = 1};
	struct dpv_engine_stats st;
	struct ibv_wc wc;

	TEST_ASSERT_EQUAL(dpv_engine_qp_modify(eng, QPN_A, &a,
					       IBV_QP_DEST_QPN | IBV_QP_TIMEOUT,
					       NULL),
			  0, "");
	TEST_ASSERT_EQUAL(post_send(&qa, IBV_WR_RDMA_WRITE, 30, 0, 64,
				    (uintptr_t)qb.buf, qb.key),
			  0, "");
	TEST_ASSERT_EQUAL(post_send(&qa, IBV_WR_RDMA_WRITE, 31, 0, 64,
				    (uintptr_t)qb.buf, qb.key),
			  0, "");
	TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc), 0, "");
	TEST_ASSERT_EQUAL(wc.wr_id, 30, "");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_RETRY_EXC_ERR, "status %d",
			  wc.status);
	TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc), 0, "");
	TEST_ASSERT_EQUAL(wc.wr_id, 31, "");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_WR_FLUSH_ERR, "status %d",
			  wc.status);
	dpv_engine_stats_get(eng, &st);
	TEST_ASSERT_EQUAL(st.retransmits, 7, "retry_cnt 7");
	TEST_ASSERT(st.rx_drop_noqp >= 8, "");
	return TEST_SUCCESS;
}

/* The shortest ACK timeout (1 ms, the engine's least), a port that takes
 * no frame, and ten WRITEs of BUF_SIZE, wr_ids first..first + 9: 10 x 8
 * packets, more than the 64 the engine's TX buffer holds. */
static int
stall_and_post(uint64_t first)
{
	struct ibv_qp_attr a = {.timeout = 1};

	TEST_ASSERT_EQUAL(
		dpv_engine_qp_modify(eng, QPN_A, &a, IBV_QP_TIMEOUT, NULL), 0,
		"");
	dpv_engine_inject_tx_stall(eng, true);
	for (int i = 0; i < 10; i++)
		TEST_ASSERT_EQUAL(post_send(&qa, IBV_WR_RDMA_WRITE, first + i,
					    0, BUF_SIZE, (uintptr_t)qb.buf,
					    qb.key),
				  0, "");
	return TEST_SUCCESS;
}

/*
 * The port takes no frame (a dead memif peer): with more in flight than the
 * engine's TX buffer holds, the requester stops for lack of room, yet the
 * ACK timer keeps running and expiring: RETRY_EXC_ERR, the rest flushed.
 */
static int
test_rc_retry_tx_stalled(void)
{
	struct ibv_wc wc;
	int i;

	if (stall_and_post(50) != TEST_SUCCESS)
		return TEST_FAILED;
	TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc), 0,
			  "no completion while the port takes nothing");
	dpv_engine_inject_tx_stall(eng, false);
	TEST_ASSERT_EQUAL(wc.wr_id, 50, "");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_RETRY_EXC_ERR, "status %d",
			  wc.status);
	for (i = 1; i < 10; i++) {
		TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc), 0, "");
		TEST_ASSERT_EQUAL(wc.wr_id, 50 + i, "");
		TEST_ASSERT_EQUAL(wc.status, IBV_WC_WR_FLUSH_ERR, "status %d",
				  wc.status);
	}
	return TEST_SUCCESS;
}

/*
 * The port takes no frame for 300 ms (a live memif peer that does not
 * drain its ring a while), far longer than the QP's seven retries of a
 * 1 ms ACK timeout take, and then takes frames again: the timeouts of
 * the stall keep the retries (tx_stall_timeouts), and every WRITE
 * completes with its bytes in place.
 */
static int
test_rc_tx_stall_grace(void)
{
	struct dpv_engine_stats st;
	struct ibv_wc wc;
	uint64_t end;
	int i;

	for (i = 0; i < BUF_SIZE; i++)
		qa.buf[i] = (uint8_t)(i * 7 + 1);
	memset(qb.buf, 0, BUF_SIZE);
	if (stall_and_post(70) != TEST_SUCCESS)
		return TEST_FAILED;
	end = rte_get_timer_cycles() + rte_get_timer_hz() * 3 / 10;
	while (rte_get_timer_cycles() < end) {
		TEST_ASSERT_EQUAL(
			dpv_mlx5_cq_poll(&qa.scq, 1, &wc, lookup, NULL), 0,
			"a completion (status %d) while the port "
			"takes nothing",
			wc.status);
		dpv_engine_poll(eng, 32);
	}
	dpv_engine_inject_tx_stall(eng, false);
	for (i = 0; i < 10; i++)
		if (expect_wc(&qa.scq, 70 + i, IBV_WC_SUCCESS) != TEST_SUCCESS)
			return TEST_FAILED;
	TEST_ASSERT_BUFFERS_EQUAL(qb.buf, qa.buf, BUF_SIZE, "payload");
	dpv_engine_stats_get(eng, &st);
	TEST_ASSERT(st.tx_stall_timeouts > 7,
		    "%" PRIu64 " timeouts kept the retries",
		    st.tx_stall_timeouts);
	return TEST_SUCCESS;
}

/*
 * dpv_engine_progress_post(): a lone post goes out at once; the next posts
 * of a burst are queued for the next poll (or the 16th post), and nothing
 * is lost.
 */
static int
test_rc_post_burst(void)
{
	struct ibv_wc wc;
	int i;

	rte_delay_us_block(20); /* no burst in progress */
	TEST_ASSERT_EQUAL(post_send(&qa, IBV_WR_RDMA_WRITE, 60, 0, 64,
				    (uintptr_t)qb.buf, qb.key),
			  0, "");
	dpv_engine_progress_post(eng);
	TEST_ASSERT_EQUAL(rte_ring_count(eng->loop), 1, "a lone post is sent");
	TEST_ASSERT(!dpv_engine_tx_pending(eng), "");
	TEST_ASSERT_EQUAL(post_send(&qa, IBV_WR_RDMA_WRITE, 61, 0, 64,
				    (uintptr_t)qb.buf, qb.key),
			  0, "");
	/* "right after the previous post", however slow this build runs */
	eng->last_post = dpv_engine_now();
	dpv_engine_progress_post(eng);
	TEST_ASSERT(dpv_engine_tx_pending(eng), "the second of a burst waits");
	TEST_ASSERT_EQUAL(rte_ring_count(eng->loop), 1, "");
	for (i = 62; i < 80; i++) {
		TEST_ASSERT_EQUAL(post_send(&qa, IBV_WR_RDMA_WRITE, i, 0, 64,
					    (uintptr_t)qb.buf, qb.key),
				  0, "");
		eng->last_post = dpv_engine_now();
		dpv_engine_progress_post(eng);
	}
	TEST_ASSERT(rte_ring_count(eng->loop) > 1, "every 16th post polls");
	for (i = 60; i < 80; i++) {
		TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc), 0, "");
		TEST_ASSERT_EQUAL(wc.wr_id, i, "");
		TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "status %d",
				  wc.status);
	}
	return TEST_SUCCESS;
}

/*
 * A post that finds the engine locked (here by this thread, standing for
 * another thread's poll) sends nothing and says so (post_missed); the
 * background poll after the holder lets go takes the flag (posts_busy)
 * and sends the WQE.
 */
static int
test_rc_post_busy(void)
{
	struct dpv_engine_stats s0, s1;
	struct ibv_wc wc;

	dpv_engine_stats_get(eng, &s0);
	TEST_ASSERT_EQUAL(post_send(&qa, IBV_WR_RDMA_WRITE, 90, 0, 64,
				    (uintptr_t)qb.buf, qb.key),
			  0, "");
	dpv_engine_lock(eng);
	TEST_ASSERT_EQUAL(dpv_engine_progress_post(eng), 0, "");
	TEST_ASSERT_EQUAL(__atomic_load_n(&eng->post_missed, __ATOMIC_RELAXED),
			  1, "a post that found the lock taken says so");
	dpv_engine_unlock(eng);
	dpv_engine_stats_get(eng, &s1);
	TEST_ASSERT_EQUAL(s1.tx_pkts, s0.tx_pkts, "nothing sent under the lock");
	dpv_engine_progress_bg(eng, false);
	dpv_engine_stats_get(eng, &s1);
	TEST_ASSERT_EQUAL(__atomic_load_n(&eng->post_missed, __ATOMIC_RELAXED),
			  0, "the poll took the flag");
	TEST_ASSERT_EQUAL(s1.posts_busy - s0.posts_busy, 1, "");
	TEST_ASSERT(s1.tx_pkts > s0.tx_pkts, "the poll sent the WRITE");
	TEST_ASSERT_EQUAL(s1.tx_bursts - s0.tx_bursts, 1, "in one burst");
	TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc), 0, "");
	TEST_ASSERT_EQUAL(wc.wr_id, 90, "");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "status %d", wc.status);
	/* a post with the lock free raises nothing */
	TEST_ASSERT_EQUAL(post_send(&qa, IBV_WR_RDMA_WRITE, 91, 0, 64,
				    (uintptr_t)qb.buf, qb.key),
			  0, "");
	dpv_engine_progress_post(eng);
	TEST_ASSERT_EQUAL(__atomic_load_n(&eng->post_missed, __ATOMIC_RELAXED),
			  0, "");
	TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc), 0, "");
	TEST_ASSERT_EQUAL(wc.wr_id, 91, "");
	dpv_engine_stats_get(eng, &s0);
	TEST_ASSERT_EQUAL(s0.posts_busy, s1.posts_busy, "");
	return TEST_SUCCESS;
}

/* modify to ERR flushes posted receives, and receives posted later. */
static int
test_qp_err_flush(void)
{
	struct ibv_qp_attr a = {.qp_state = IBV_QPS_ERR};
	struct ibv_wc wc[4];

	TEST_ASSERT_EQUAL(post_recv(&qb, 40, 0, 64), 0, "");
	TEST_ASSERT_EQUAL(post_recv(&qb, 41, 0, 64), 0, "");
	TEST_ASSERT_EQUAL(
		dpv_engine_qp_modify(eng, QPN_B, &a, IBV_QP_STATE, NULL), 0,
		"");
	TEST_ASSERT_EQUAL(dpv_engine_qp_state(eng, QPN_B), IBV_QPS_ERR, "");
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_poll(&qb.rcq, 4, wc, lookup, NULL), 2,
			  "");
	TEST_ASSERT_EQUAL(wc[0].wr_id, 40, "");
	TEST_ASSERT_EQUAL(wc[0].status, IBV_WC_WR_FLUSH_ERR, "");
	TEST_ASSERT_EQUAL(wc[1].wr_id, 41, "");
	TEST_ASSERT_EQUAL(post_recv(&qb, 42, 0, 64), 0, "");
	TEST_ASSERT_EQUAL(wait_wc(&qb.rcq, wc), 0, "");
	TEST_ASSERT_EQUAL(wc[0].wr_id, 42, "");
	TEST_ASSERT_EQUAL(wc[0].status, IBV_WC_WR_FLUSH_ERR, "");
	/* back to RESET and connected again: works */
	a.qp_state = IBV_QPS_RESET;
	TEST_ASSERT_EQUAL(
		dpv_engine_qp_modify(eng, QPN_B, &a, IBV_QP_STATE, NULL), 0,
		"");
	TEST_ASSERT_EQUAL(dpv_engine_qp_state(eng, QPN_B), IBV_QPS_RESET, "");
	TEST_ASSERT_EQUAL(dpv_engine_qp_destroy(eng, 0x4242), -ENOENT, "");
	return TEST_SUCCESS;
}

/* SEND with invalidate kills the responder's key; later use fails. */
static int
test_rc_send_inv(void)
{
	uint32_t k2 = reg(qb.buf, 256,
			  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	struct ibv_sge sge = {
		.addr = (uintptr_t)qa.buf, .length = 16, .lkey = qa.key};
	struct ibv_send_wr wr = {.wr_id = 50,
				 .sg_list = &sge,
				 .num_sge = 1,
				 .opcode = IBV_WR_SEND_WITH_INV,
				 .send_flags = IBV_SEND_SIGNALED};
	struct ibv_wc wc;

	TEST_ASSERT(k2 != 0, "");
	wr.invalidate_rkey = k2;
	TEST_ASSERT_EQUAL(post_recv(&qb, 51, 1024, 64), 0, "");
	TEST_ASSERT_EQUAL(post_wr(&qa, &wr), 0, "");
	TEST_ASSERT_EQUAL(wait_wc(&qb.rcq, &wc), 0, "");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "");
	TEST_ASSERT(wc.wc_flags & IBV_WC_WITH_INV, "flags 0x%x", wc.wc_flags);
	TEST_ASSERT_EQUAL(wc.invalidated_rkey, k2, "");
	TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc), 0, "");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "");
	TEST_ASSERT_EQUAL(post_send(&qa, IBV_WR_RDMA_WRITE, 52, 0, 8,
				    (uintptr_t)qb.buf, k2),
			  0, "");
	TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc), 0, "");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_REM_ACCESS_ERR, "invalidated key");
	return TEST_SUCCESS;
}

/* SEND with invalidate of a key that cannot be invalidated (none, or
 * another generation of a live key): both sides complete in error, the
 * live key stays valid (issue 12.3). */
static int
test_rc_send_inv_bad(void)
{
	uint32_t k2 = reg(qb.buf, 256,
			  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	uint32_t stale = (k2 & ~0xffu) | ((k2 + 1) & 0xffu);
	struct ibv_sge sge = {
		.addr = (uintptr_t)qa.buf, .length = 16, .lkey = qa.key};
	struct ibv_send_wr wr = {.wr_id = 53,
				 .sg_list = &sge,
				 .num_sge = 1,
				 .opcode = IBV_WR_SEND_WITH_INV,
				 .send_flags = IBV_SEND_SIGNALED};
	uint64_t kerr0 = eng->st.key_errors;
	struct ibv_wc wc;
	void *host = NULL;

	TEST_ASSERT(k2 != 0, "");
	wr.invalidate_rkey = stale;
	TEST_ASSERT_EQUAL(post_recv(&qb, 54, 1024, 64), 0, "");
	TEST_ASSERT_EQUAL(post_wr(&qa, &wr), 0, "");
	TEST_ASSERT_EQUAL(wait_wc(&qb.rcq, &wc), 0, "");
	TEST_ASSERT_EQUAL(wc.wr_id, 54, "");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_REM_INV_REQ_ERR, "receive: %s",
			  ibv_wc_status_str(wc.status));
	TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc), 0, "");
	TEST_ASSERT_EQUAL(wc.wr_id, 53, "");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_REM_INV_REQ_ERR, "send: %s",
			  ibv_wc_status_str(wc.status));
	TEST_ASSERT(eng->st.key_errors > kerr0, "counted");
	/* nothing was invalidated */
	TEST_ASSERT_EQUAL(dpv_engine_key_access(eng,
						dpv_engine_qp_lookup(eng, QPN_B),
						k2, (uintptr_t)qb.buf, 8,
						IBV_ACCESS_REMOTE_WRITE, &host),
			  DPV_KEY_OK, "the live key still works");
	return TEST_SUCCESS;
}

/* LOCAL_INV runs in the requester, in order; the key is then unusable. */
static int
test_rc_local_inv(void)
{
	uint32_t k2 = reg(qa.buf, 256, IBV_ACCESS_LOCAL_WRITE);
	struct ibv_send_wr wr = {.wr_id = 70,
				 .opcode = IBV_WR_LOCAL_INV,
				 .send_flags = IBV_SEND_SIGNALED};
	struct ibv_sge sge = {
		.addr = (uintptr_t)qa.buf, .length = 16, .lkey = k2};
	struct ibv_wc wc;

	wr.invalidate_rkey = k2;
	TEST_ASSERT_EQUAL(post_wr(&qa, &wr), 0, "");
	TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc), 0, "");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "status %d", wc.status);
	TEST_ASSERT_EQUAL(wc.opcode, IBV_WC_LOCAL_INV, "");
	wr = (struct ibv_send_wr){.wr_id = 71,
				  .opcode = IBV_WR_RDMA_WRITE,
				  .sg_list = &sge,
				  .num_sge = 1,
				  .send_flags = IBV_SEND_SIGNALED};
	wr.wr.rdma.remote_addr = (uintptr_t)qb.buf;
	wr.wr.rdma.rkey = qb.key;
	TEST_ASSERT_EQUAL(post_wr(&qa, &wr), 0, "");
	TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc), 0, "");
	TEST_ASSERT_EQUAL(wc.wr_id, 71, "");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_LOC_PROT_ERR, "status %d",
			  wc.status);
	return TEST_SUCCESS;
}

/* Type 2 memory window: bound by a send WQE of the responder's QP,
 * remote writes checked against the window, LOCAL_INV, then no access. */
static int
test_rc_mw(void)
{
	uint32_t mrk = reg(qb.buf, BUF_SIZE,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND);
	uint32_t mwk = (next_key++ << 8) | 0x10;
	struct dpv_engine_key wk = {.pdn = PDN, .type = DPV_ENGINE_KEY_MW2};
	struct ibv_mr ibmr = {.lkey = mrk};
	struct ibv_mw ibmw = {.rkey = mwk, .type = IBV_MW_TYPE_2};
	struct ibv_send_wr wr = {.wr_id = 80,
				 .opcode = IBV_WR_BIND_MW,
				 .send_flags = IBV_SEND_SIGNALED};
	uint32_t nk = ibv_inc_rkey(mwk);
	struct ibv_wc wc;

	TEST_ASSERT(mrk != 0, "");
	TEST_ASSERT_EQUAL(dpv_engine_key_set(eng, mwk, &wk), 0, "window");
	wr.bind_mw.mw = &ibmw;
	wr.bind_mw.rkey = nk;
	wr.bind_mw.bind_info.mr = &ibmr;
	wr.bind_mw.bind_info.addr = (uintptr_t)qb.buf + 1024;
	wr.bind_mw.bind_info.length = 512;
	wr.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_WRITE;
	TEST_ASSERT_EQUAL(post_wr(&qb, &wr), 0, "");
	TEST_ASSERT_EQUAL(wait_wc(&qb.scq, &wc), 0, "");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "bind: %d", wc.status);
	TEST_ASSERT_EQUAL(wc.opcode, IBV_WC_BIND_MW, "");
	fill(qa.buf, 512, 9);
	TEST_ASSERT_EQUAL(post_send(&qa, IBV_WR_RDMA_WRITE, 81, 0, 512,
				    (uintptr_t)qb.buf + 1024, nk),
			  0, "");
	TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc), 0, "");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "write: %d", wc.status);
	TEST_ASSERT(memcmp(qa.buf, qb.buf + 1024, 512) == 0, "data");
	/* a second bind of a bound type 2 window fails */
	wr.wr_id = 82;
	wr.bind_mw.rkey = ibv_inc_rkey(nk);
	TEST_ASSERT_EQUAL(post_wr(&qb, &wr), 0, "");
	TEST_ASSERT_EQUAL(wait_wc(&qb.scq, &wc), 0, "");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_MW_BIND_ERR, "rebind: %d",
			  wc.status);
	return TEST_SUCCESS;
}

/* Invalidated window: the requester's write fails with a remote access
 * error; a write past the window's end as well. */
static int
test_rc_mw_inv(void)
{
	uint32_t mrk = reg(qb.buf, BUF_SIZE,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND);
	uint32_t mwk = (next_key++ << 8) | 0x20;
	struct dpv_engine_key wk = {.pdn = PDN, .type = DPV_ENGINE_KEY_MW2};
	struct ibv_mr ibmr = {.lkey = mrk};
	struct ibv_mw ibmw = {.rkey = mwk, .type = IBV_MW_TYPE_2};
	struct ibv_send_wr wr = {.wr_id = 90,
				 .opcode = IBV_WR_BIND_MW,
				 .send_flags = IBV_SEND_SIGNALED};
	uint32_t nk = ibv_inc_rkey(mwk);
	struct ibv_wc wc;

	TEST_ASSERT_EQUAL(dpv_engine_key_set(eng, mwk, &wk), 0, "window");
	wr.bind_mw.mw = &ibmw;
	wr.bind_mw.rkey = nk;
	wr.bind_mw.bind_info.mr = &ibmr;
	wr.bind_mw.bind_info.addr = (uintptr_t)qb.buf;
	wr.bind_mw.bind_info.length = 64;
	wr.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_WRITE;
	TEST_ASSERT_EQUAL(post_wr(&qb, &wr), 0, "");
	TEST_ASSERT_EQUAL(wait_wc(&qb.scq, &wc), 0, "");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "bind: %d", wc.status);
	wr = (struct ibv_send_wr){.wr_id = 91,
				  .opcode = IBV_WR_LOCAL_INV,
				  .send_flags = IBV_SEND_SIGNALED};
	wr.invalidate_rkey = nk;
	TEST_ASSERT_EQUAL(post_wr(&qb, &wr), 0, "");
	TEST_ASSERT_EQUAL(wait_wc(&qb.scq, &wc), 0, "");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "inv: %d", wc.status);
	TEST_ASSERT_EQUAL(wc.opcode, IBV_WC_LOCAL_INV, "");
	TEST_ASSERT_EQUAL(post_send(&qa, IBV_WR_RDMA_WRITE, 92, 0, 8,
				    (uintptr_t)qb.buf, nk),
			  0, "");
	TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc), 0, "");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_REM_ACCESS_ERR, "after inv: %d",
			  wc.status);
	return TEST_SUCCESS;
}

/* Two messages into one SRQ. */
static int
test_rc_srq(void)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)qb.buf, .length = 128, .lkey = qb.key};
	struct ibv_recv_wr rwr = {.wr_id = 60, .sg_list = &sge, .num_sge = 1},
			   *bad;
	struct ibv_wc wc;

	TEST_ASSERT_EQUAL(dpv_mlx5_post_recv(&srq, &rwr, &bad), 0, "");
	sge.addr += 128;
	rwr.wr_id = 61;
	TEST_ASSERT_EQUAL(dpv_mlx5_post_recv(&srq, &rwr, &bad), 0, "");
	fill(qa.buf, 256, 70);
	TEST_ASSERT_EQUAL(post_send(&qa, IBV_WR_SEND, 62, 0, 100, 0, 0), 0, "");
	TEST_ASSERT_EQUAL(post_send(&qa, IBV_WR_SEND, 63, 128, 100, 0, 0), 0,
			  "");
	for (int i = 0; i < 2; i++) {
		TEST_ASSERT_EQUAL(wait_wc(&qb.rcq, &wc), 0, "");
		TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "status %d",
				  wc.status);
		TEST_ASSERT_EQUAL(wc.wr_id, 60 + i, "");
		TEST_ASSERT_EQUAL(wc.qp_num, QPN_B, "");
		TEST_ASSERT_BUFFERS_EQUAL(qb.buf + 128 * i, qa.buf + 128 * i,
					  100, "");
	}
	return TEST_SUCCESS;
}

/*
 * A SEND scattered over every SGE a receive WQE of qb's queue carries
 * (its RQ: 4, or an SRQ: 2 or DPV_WR_MAX_SGE), of uneven lengths with
 * gaps between them: each lands where its SGE says, the gaps untouched.
 * The engine keeps the SGEs' checked addresses beside them for a narrow
 * queue and in their own array for a wide one (rwqe_host()).
 */
static int
test_rc_recv_scatter(void)
{
	struct dpv_mlx5_rq *q = use_srq ? &srq : &qb.rq;
	unsigned n = q->wq.max_gs;
	struct ibv_sge sge[DPV_WR_MAX_SGE];
	struct ibv_recv_wr rwr = {.wr_id = 80, .sg_list = sge,
				  .num_sge = (int)n},
			   *bad;
	const uint32_t gap = 5;
	uint32_t off = 0, total = 0;
	struct ibv_wc wc;

	for (unsigned i = 0; i < n; i++) {
		sge[i] = (struct ibv_sge){.addr = (uintptr_t)qb.buf + off,
					  .length = 37 + 11 * i,
					  .lkey = qb.key};
		off += sge[i].length + gap;
		total += sge[i].length;
	}
	TEST_ASSERT(off < BUF_SIZE, "buffer too small");
	TEST_ASSERT_EQUAL(dpv_mlx5_post_recv(q, &rwr, &bad), 0, "");
	fill(qa.buf, total, 91);
	TEST_ASSERT_EQUAL(post_send(&qa, IBV_WR_SEND, 81, 0, total, 0, 0), 0,
			  "");
	TEST_ASSERT_EQUAL(wait_wc(&qb.rcq, &wc), 0, "");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "status %d", wc.status);
	TEST_ASSERT_EQUAL(wc.wr_id, 80, "");
	TEST_ASSERT_EQUAL(wc.byte_len, total, "");
	off = 0;
	for (unsigned i = 0; i < n; i++) {
		const uint8_t *at = (const uint8_t *)(uintptr_t)sge[i].addr;

		TEST_ASSERT_BUFFERS_EQUAL(at, qa.buf + off, sge[i].length,
					  "SGE %u of %u", i, n);
		for (uint32_t g = 0; g < gap; g++)
			TEST_ASSERT_EQUAL(at[sge[i].length + g], 0,
					  "gap after SGE %u written", i);
		off += sge[i].length;
	}
	TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc), 0, "");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "");
	return TEST_SUCCESS;
}

/* The progress thread moves data while the test only polls the CQ. */
static int
test_rc_thread(void)
{
	struct ibv_wc wc;
	int n = 0;

	TEST_ASSERT_EQUAL(dpv_engine_thread_start(eng, 20), 0, "");
	TEST_ASSERT_EQUAL(dpv_engine_thread_start(eng, 20), -EALREADY, "");
	fill(qa.buf, 3000, 17);
	TEST_ASSERT_EQUAL(post_recv(&qb, 1, 4096, 4000), 0, "");
	TEST_ASSERT_EQUAL(post_send(&qa, IBV_WR_SEND, 2, 0, 3000, 0, 0), 0, "");
	for (uint64_t end = rte_get_timer_cycles() + rte_get_timer_hz();
	     n == 0 && rte_get_timer_cycles() < end;)
		n = dpv_mlx5_cq_poll(&qb.rcq, 1, &wc, lookup, NULL);
	dpv_engine_thread_stop(eng);
	TEST_ASSERT_EQUAL(n, 1, "completion within 1 s");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "");
	TEST_ASSERT_BUFFERS_EQUAL(qb.buf + 4096, qa.buf, 3000, "");
	return TEST_SUCCESS;
}

/* A deep pipeline of multi-packet WRITEs through a lossy wire. */
static int
test_rc_loss_pipeline(void)
{
	struct dpv_engine_stats st;
	struct ibv_wc wc;

	dpv_engine_inject_tx_loss(eng, 7);
	fill(qa.buf, 3000, 33);
	for (int round = 0; round < 3; round++) {
		for (int m = 0; m < 60; m++)
			TEST_ASSERT_EQUAL(
				post_send(&qa, IBV_WR_RDMA_WRITE, m, 0, 3000,
					  (uintptr_t)qb.buf + 4096, qb.key),
				0, "");
		for (int m = 0; m < 60; m++) {
			TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc), 0, "write %d",
					  m);
			if (wc.status != IBV_WC_SUCCESS) {
				dpv_engine_stats_get(eng, &st);
				DPV_TEST_LOG("lost %" PRIu64
					     ", retransmits %" PRIu64
					     " seq naks %" PRIu64
					     " dup %" PRIu64 " round %d",
					     st.tx_drop_injected,
					     st.retransmits, st.seq_naks_sent,
					     st.dup_requests, round);
			}
			TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS,
					  "write %d status %d", m, wc.status);
			TEST_ASSERT_EQUAL(wc.wr_id, m, "in order");
		}
	}
	TEST_ASSERT_BUFFERS_EQUAL(qb.buf + 4096, qa.buf, 3000, "");
	dpv_engine_stats_get(eng, &st);
	DPV_TEST_LOG("lost %" PRIu64 ", retransmits %" PRIu64,
		     st.tx_drop_injected, st.retransmits);
	return TEST_SUCCESS;
}

/* Every 5th frame is lost: go-back-N on sequence NAKs and timeouts. */
static int
test_rc_loss(void)
{
	struct dpv_engine_stats st;
	struct ibv_wc wc;

	dpv_engine_inject_tx_loss(eng, 5);
	for (int m = 0; m < 12; m++) {
		fill(qa.buf, 3000, (uint8_t)(m * 3 + 1));
		TEST_ASSERT_EQUAL(post_recv(&qb, 0x100 + m, 4096, 4000), 0, "");
		TEST_ASSERT_EQUAL(post_send(&qa, IBV_WR_SEND, m, 0, 3000, 0, 0),
				  0, "");
		TEST_ASSERT_EQUAL(wait_wc(&qb.rcq, &wc), 0, "recv %d", m);
		TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "status %d",
				  wc.status);
		TEST_ASSERT_EQUAL(wc.wr_id, 0x100 + m, "");
		TEST_ASSERT_EQUAL(wc.byte_len, 3000, "");
		TEST_ASSERT_BUFFERS_EQUAL(qb.buf + 4096, qa.buf, 3000,
					  "message %d", m);
		TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc), 0, "send %d", m);
		TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "status %d",
				  wc.status);
		TEST_ASSERT_EQUAL(wc.wr_id, m, "");
	}
	/* pipelined WRITEs and READs */
	fill(qa.buf, 4096, 77);
	for (int m = 0; m < 4; m++)
		TEST_ASSERT_EQUAL(
			post_send(&qa, IBV_WR_RDMA_WRITE, 0x200 + m, m * 1024,
				  1024, (uintptr_t)qb.buf + m * 1024, qb.key),
			0, "");
	for (int m = 0; m < 4; m++) {
		TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc), 0, "write %d", m);
		TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "status %d",
				  wc.status);
		TEST_ASSERT_EQUAL(wc.wr_id, 0x200 + m, "in order");
	}
	TEST_ASSERT_BUFFERS_EQUAL(qb.buf, qa.buf, 4096, "writes");
	fill(qb.buf + 4096, 3000, 99);
	for (int m = 0; m < 3; m++)
		TEST_ASSERT_EQUAL(post_send(&qa, IBV_WR_RDMA_READ, 0x300 + m,
					    4096, 3000,
					    (uintptr_t)qb.buf + 4096, qb.key),
				  0, "");
	for (int m = 0; m < 3; m++) {
		TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc), 0, "read %d", m);
		TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "status %d",
				  wc.status);
		TEST_ASSERT_EQUAL(wc.wr_id, 0x300 + m, "in order");
	}
	TEST_ASSERT_BUFFERS_EQUAL(qa.buf + 4096, qb.buf + 4096, 3000, "reads");
	/* atomics executed exactly once although requests/ACKs get lost */
	{
		struct ibv_sge sge = {
			.addr = (uintptr_t)qa.buf, .length = 8, .lkey = qa.key};
		struct ibv_send_wr wr = {.sg_list = &sge,
					 .num_sge = 1,
					 .opcode = IBV_WR_ATOMIC_FETCH_AND_ADD,
					 .send_flags = IBV_SEND_SIGNALED},
				   *bad;
		uint64_t v = 0;

		memcpy(qb.buf + 8000, &v, 8);
		wr.wr.atomic.remote_addr = (uintptr_t)qb.buf + 8000;
		wr.wr.atomic.rkey = qb.key;
		wr.wr.atomic.compare_add = 1;
		for (int m = 0; m < 10; m++) {
			wr.wr_id = 0x400 + m;
			TEST_ASSERT_EQUAL(dpv_mlx5_post_send(&qa.sq, IBV_QPT_RC,
							     QPN_A, &wr, &bad),
					  0, "");
			TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc), 0, "atomic %d",
					  m);
			TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS,
					  "status %d", wc.status);
			memcpy(&v, qa.buf, 8);
			TEST_ASSERT_EQUAL(v, m, "fetched value");
		}
		memcpy(&v, qb.buf + 8000, 8);
		TEST_ASSERT_EQUAL(v, 10, "each add executed once");
	}
	dpv_engine_stats_get(eng, &st);
	TEST_ASSERT(st.tx_drop_injected > 5, "%" PRIu64 " lost",
		    st.tx_drop_injected);
	TEST_ASSERT(st.retransmits > 0, "go-back-N happened");
	DPV_TEST_LOG("lost %" PRIu64 ", retransmits %" PRIu64
		     ", seq NAKs %" PRIu64 ", duplicates %" PRIu64,
		     st.tx_drop_injected, st.retransmits, st.seq_naks_sent,
		     st.dup_requests);
	return TEST_SUCCESS;
}

/* QPN_A's ACK timeout 4.096 us << 12 (16.8 ms), QPN_B's RNR timer code
 * 20 (10.24 ms): timers much shorter than the sweeps' 100 ms bound */
#define TIMER_ACK_TIMEOUT 12
#define TIMER_RNR_CODE	  20

static int
setup_rc_timer(void)
{
	struct ibv_qp_attr a = {.timeout = TIMER_ACK_TIMEOUT,
				.min_rnr_timer = TIMER_RNR_CODE};

	if (case_setup_mtu(IBV_QPT_RC, IBV_MTU_1024, 7))
		return -1;
	if (dpv_engine_qp_modify(eng, QPN_A, &a, IBV_QP_TIMEOUT, NULL) ||
	    dpv_engine_qp_modify(eng, QPN_B, &a, IBV_QP_MIN_RNR_TIMER, NULL))
		return -1;
	return 0;
}

/* TSC cycles to microseconds, rounded up */
static unsigned int
cycles_us(uint64_t c)
{
	uint64_t hz = rte_get_timer_hz();

	return (unsigned int)((c * 1000000 + hz - 1) / hz);
}

/*
 * dpv_engine_timer_us() answers with the time to the timer of a QP:
 * max_us with no timer; the ACK timeout of a WRITE lost, the QP off the
 * run list (found by the scan of every poll, or, sweep set, by a sweep);
 * 0 once it has expired; the RNR wait of a QP on the run list. Between
 * t0, before the poll that set a timer, and t1, after the answer: the
 * answer is the timer less at most t1 - t0 (0 only if that is as long:
 * a test preempted a while).
 */
static int
timer_us_check(bool sweep)
{
	struct dpv_eqp *a = dpv_engine_qp_lookup(eng, QPN_A);
	unsigned int ack_us = cycles_us(dpv_engine_ack_cycles(a));
	unsigned int rnr_us = dpv_rnr_timer_us(TIMER_RNR_CODE), us, took;
	uint64_t t0, t1;
	struct ibv_wc wc;

	if (sweep)
		dpv_engine_set_posts_kick(eng, true);
	for (int i = 0; i < 4; i++)
		dpv_engine_poll(eng, 32); /* sweep: the first one */
	TEST_ASSERT_EQUAL(eng->scan_all, !sweep, "sweeps: %d", sweep);
	TEST_ASSERT_EQUAL(dpv_engine_timer_us(eng, 5000), 5000, "no timer");

	/* every frame lost: the WRITE's ACK timer runs */
	dpv_engine_inject_tx_loss(eng, 1);
	fill(qa.buf, 64, 21);
	TEST_ASSERT_EQUAL(post_send(&qa, IBV_WR_RDMA_WRITE, 1, 0, 64,
				    (uintptr_t)qb.buf, qb.key),
			  0, "");
	if (sweep)
		dpv_engine_qp_kick(eng, &qa.sq);
	t0 = rte_get_timer_cycles();
	for (int i = 0; i < 4; i++)
		dpv_engine_poll(eng, 32);
	us = dpv_engine_timer_us(eng, 1000000);
	t1 = rte_get_timer_cycles();
	TEST_ASSERT(a->comp.deadline != 0 && !a->active,
		    "the WRITE waits for its ACK off the run list");
	took = cycles_us(t1 - t0);
	TEST_ASSERT((us > 0 || took >= ack_us) && us <= ack_us &&
			    us + took + 1 >= ack_us,
		    "%u us to the ACK timeout of %u us (%u us later)", us,
		    ack_us, took);
	/* past the deadline (no later than t1 + the timeout) */
	rte_delay_us_sleep(ack_us + 1);
	TEST_ASSERT_EQUAL(dpv_engine_timer_us(eng, 1000000), 0, "timer due");
	dpv_engine_inject_tx_loss(eng, 0);
	TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc), 0, "");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "status %d", wc.status);
	TEST_ASSERT_BUFFERS_EQUAL(qb.buf, qa.buf, 64, "");
	/* all ACKed: no timer (after the next sweep, which forgets the
	 * bound the retransmission's timer left) */
	TEST_ASSERT_EQUAL(a->comp.deadline, 0, "");
	rte_delay_us_sleep(ack_us + 1);
	dpv_engine_poll(eng, 32);
	TEST_ASSERT_EQUAL(dpv_engine_timer_us(eng, 5000), 5000,
			  "no timer after the ACK");

	/* no receive WQE at QPN_B: RNR NAK, the QP waits on the run list */
	TEST_ASSERT_EQUAL(post_send(&qa, IBV_WR_SEND, 2, 0, 64, 0, 0), 0, "");
	if (sweep)
		dpv_engine_qp_kick(eng, &qa.sq);
	t0 = rte_get_timer_cycles();
	for (int i = 0; i < 100 && a->comp.rnr_until == 0; i++)
		dpv_engine_poll(eng, 32);
	us = dpv_engine_timer_us(eng, 1000000);
	t1 = rte_get_timer_cycles();
	TEST_ASSERT(a->comp.rnr_until != 0 && a->active,
		    "an RNR wait on the run list");
	took = cycles_us(t1 - t0);
	TEST_ASSERT((us > 0 || took >= rnr_us) && us <= rnr_us &&
			    us + took + 1 >= rnr_us,
		    "%u us to the RNR timer of %u us (%u us later)", us, rnr_us,
		    took);
	TEST_ASSERT_EQUAL(post_recv(&qb, 3, 0, 128), 0, "");
	TEST_ASSERT_EQUAL(wait_wc(&qb.rcq, &wc), 0, "");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "");
	TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc), 0, "");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "status %d", wc.status);
	return TEST_SUCCESS;
}

/* The doorbell scan checks both QPs every poll. */
static int
test_rc_timer_us(void)
{
	return timer_us_check(false);
}

/* Posts kick: the timers of QPs off the run list are found by sweeps. */
static int
test_rc_timer_us_sweep(void)
{
	return timer_us_check(true);
}

/* An engine with no QP, posts kicking (sweeps): no timer, whatever the
 * polls (an idle process's progress thread slept 0 us and spun). */
static int
test_timer_us_no_qps(void)
{
	struct dpv_engine_conf conf = {.mp = mp, .max_keys = 16};
	struct dpv_engine *e;
	unsigned int us[2];

	memcpy(conf.mac, mac, 6);
	e = dpv_engine_create(NULL, &conf);
	TEST_ASSERT_NOT_NULL(e, "dpv_engine_create");
	dpv_engine_set_posts_kick(e, true);
	us[0] = dpv_engine_timer_us(e, 5000);
	for (int i = 0; i < 4; i++)
		dpv_engine_poll(e, 32);
	us[1] = dpv_engine_timer_us(e, 5000);
	dpv_engine_destroy(e);
	TEST_ASSERT(us[0] == 5000 && us[1] == 5000,
		    "%u and %u us, not 5000, with no QP", us[0], us[1]);
	return TEST_SUCCESS;
}

static const struct dpv_test_suite engine_rc_suite = {
	.name = "engine_rc",
	.setup = suite_setup,
	.teardown = suite_teardown,
	.cases =
		{
			TEST_CASE_ST(setup_rc, teardown, test_key_cmds),
			TEST_CASE_ST(setup_rc, teardown, test_rc_send),
			TEST_CASE_ST(setup_rc, teardown, test_rc_counter_carry),
			TEST_CASE_ST(setup_rc, teardown, test_rc_send_seg),
			TEST_CASE_ST(setup_rc, teardown, test_rc_write),
			TEST_CASE_ST(setup_rc, teardown, test_rc_read),
			TEST_CASE_ST(setup_rc, teardown, test_rc_atomic),
			TEST_CASE_ST(setup_rc, teardown,
				     test_rc_rem_access_err),
			TEST_CASE_ST(setup_rc, teardown, test_rc_rnr),
			TEST_CASE_ST(setup_rc_rnr0, teardown,
				     test_rc_rnr_exceeded),
			TEST_CASE_ST(setup_rc_fast_timeout, teardown,
				     test_rc_loss),
			TEST_CASE_ST(setup_rc_fast_timeout, teardown,
				     test_rc_retry_tx_stalled),
			TEST_CASE_ST(setup_rc_fast_timeout, teardown,
				     test_rc_tx_stall_grace),
			TEST_CASE_ST(setup_rc_fast_timeout, teardown,
				     test_rc_loss_pipeline),
			TEST_CASE_ST(setup_rc, teardown, test_rc_imm_inline),
			TEST_CASE_ST(setup_rc, teardown, test_rc_unsignaled),
			TEST_CASE_ST(setup_rc, teardown, test_rc_ackreq_sparse),
			TEST_CASE_ST(setup_rc, teardown, test_rc_ackreq_pkts),
			TEST_CASE_ST(setup_rc_fast_timeout, teardown,
				     test_rc_resend_asks),
			TEST_CASE_ST(setup_rc, teardown, test_rc_ackreq_probe),
			TEST_CASE_ST(setup_rc, teardown,
				     test_rc_ackreq_probe_refused),
			TEST_CASE_ST(setup_rc, teardown,
				     test_rc_ackreq_probe_refused_bound),
			TEST_CASE_ST(setup_rc, teardown,
				     test_rc_ackreq_probe_refused_no_timer),
			TEST_CASE_ST(setup_rc, teardown, test_rc_post_burst),
			TEST_CASE_ST(setup_rc, teardown, test_rc_post_busy),
			TEST_CASE_ST(setup_rc, teardown, test_rc_len_err),
			TEST_CASE_ST(setup_rc, teardown, test_rc_recv_key_err),
			TEST_CASE_ST(setup_rc, teardown, test_rc_solicited),
			TEST_CASE_ST(setup_rc, teardown, test_rc_mixed),
			TEST_CASE_ST(setup_rc, teardown,
				     test_rc_retry_exceeded),
			TEST_CASE_ST(setup_rc, teardown, test_qp_err_flush),
			TEST_CASE_ST(setup_rc, teardown, test_rc_send_inv),
			TEST_CASE_ST(setup_rc, teardown, test_rc_send_inv_bad),
			TEST_CASE_ST(setup_rc, teardown, test_rc_local_inv),
			TEST_CASE_ST(setup_rc, teardown, test_rc_mw),
			TEST_CASE_ST(setup_rc, teardown, test_rc_mw_inv),
			TEST_CASE_ST(setup_rc_srq, teardown, test_rc_srq),
			TEST_CASE_ST(setup_rc, teardown, test_rc_recv_scatter),
			TEST_CASE_ST(setup_rc_srq, teardown,
				     test_rc_recv_scatter),
			TEST_CASE_ST(setup_rc_srq_wide, teardown,
				     test_rc_recv_scatter),
			TEST_CASE_ST(setup_rc_hook, teardown, test_rc_key_hook),
			TEST_CASE_ST(setup_rc, teardown, test_key_access_same),
			TEST_CASE_ST(setup_rc_hook, teardown,
				     test_key_access_same),
			TEST_CASE_ST(setup_rc_hook_ver, teardown,
				     test_key_access_same),
			TEST_CASE_ST(setup_rc_hook_ver, teardown,
				     test_rc_key_hook),
			TEST_CASE_ST(setup_rc, teardown, test_rc_thread),
			TEST_CASE_ST(setup_rc_timer, teardown,
				     test_rc_timer_us),
			TEST_CASE_ST(setup_rc_timer, teardown,
				     test_rc_timer_us_sweep),
			TEST_CASE(test_timer_us_no_qps),
			TEST_CASE_ST(setup_uc, teardown, test_uc_send_write),
			TEST_CASE_ST(setup_uc, teardown, test_uc_loss),
			TEST_CASE_ST(setup_ud, teardown, test_ud_send),
			TEST_CASE_ST(setup_ud, teardown, test_ud_mcast),
			TEST_CASE_ST(setup_ud_block_self, teardown,
				     test_ud_mcast),
			TEST_CASES_END(),
		},
};

static int
engine_rc(void)
{
	return dpv_test_run_suite(&engine_rc_suite);
}

DPV_TEST_REGISTER_FAST(engine_rc, engine_rc);

/* The same transports over lib/port's in-process loopback device (an
 * ethdev: frames really go through rte_eth_tx_burst / rx_burst). */
static int
port_suite_setup(void)
{
	struct dpv_port_info info;
	int ret = suite_setup();

	if (ret != 0)
		return ret;
	unsetenv("DPV_CONF");
	if (dpv_port_init() != 0)
		return TEST_SKIPPED;
	port = dpv_port_get(0);
	if (port == NULL || !dpv_port_is_loopback(port) ||
	    dpv_port_query(port, &info) != 0)
		return TEST_SKIPPED;
	memcpy(mac, info.mac, 6);
	return 0;
}

static void
port_suite_teardown(void)
{
	port = NULL;
	dpv_port_fini();
	suite_teardown();
}

/* ARP and ND through the loopback ethdev: we ask, we answer, we learn. */
static int
test_port_neigh(void)
{
	struct dpv_engine_stats st;
	uint8_t gid[16], got[6];

	for (unsigned idx = 0; idx < 2; idx++) {
		TEST_ASSERT_EQUAL(dpv_port_gid(port, idx, gid), 0, "");
		TEST_ASSERT(!dpv_engine_neigh_cached(eng, gid, got),
			    "not known yet");
		dpv_engine_lock(eng);
		TEST_ASSERT_EQUAL(dpv_engine_neigh_query(eng, gid), 0, "");
		for (int i = 0; i < 10; i++)
			dpv_engine_poll(eng, 32);
		dpv_engine_unlock(eng);
		TEST_ASSERT(dpv_engine_neigh_cached(eng, gid, got),
			    "%s learned", idx ? "ARP" : "ND");
		TEST_ASSERT_BUFFERS_EQUAL(got, mac, 6, "");
	}
	dpv_engine_stats_get(eng, &st);
	TEST_ASSERT(st.rx_neigh >= 4, "requests and replies seen: %" PRIu64,
		    st.rx_neigh);
	TEST_ASSERT_EQUAL(dpv_engine_neigh_resolve(eng, gid, got, 100), 0, "");
	TEST_ASSERT_BUFFERS_EQUAL(got, mac, 6, "");
	return TEST_SUCCESS;
}

static const struct dpv_test_suite engine_port_suite = {
	.name = "engine_port",
	.setup = port_suite_setup,
	.teardown = port_suite_teardown,
	.cases =
		{
			TEST_CASE_ST(setup_rc, teardown, test_rc_send_seg),
			TEST_CASE_ST(setup_rc, teardown, test_rc_write),
			TEST_CASE_ST(setup_rc, teardown, test_rc_read),
			TEST_CASE_ST(setup_rc, teardown, test_rc_atomic),
			TEST_CASE_ST(setup_rc, teardown, test_rc_rnr),
			TEST_CASE_ST(setup_ud, teardown, test_ud_send),
			TEST_CASE_ST(setup_rc, teardown, test_port_neigh),
			TEST_CASES_END(),
		},
};

static int
engine_port(void)
{
	return dpv_test_run_suite(&engine_port_suite);
}

DPV_TEST_REGISTER_FAST(engine_port, engine_port);
