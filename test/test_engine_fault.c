/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The transports through a misbehaving network: two engines, each on its
 * own device, joined by crossed ring ports, with the fault layer dropping,
 * reordering, duplicating (and corrupting) the frames both send. RC must
 * deliver every message exactly once, in order, with the right bytes, and
 * apply every atomic exactly once, at 0.1 %, 1 % and 5 % loss with 5 %
 * reordering and 1 % duplication, for SEND, WRITE, READ and both atomics,
 * messages from 1 B to 1 MiB; UC must never deliver a corrupt or partial
 * message. Nothing may wait forever: a case fails when no message
 * completes for 20 s.
 *
 * DPV_FAULT_TEST_MB sets the MiB per case (default: 8 in the fast test
 * engine_fault, 256 in the slow test engine_fault_long; atomics: 200 per
 * MiB);
 * DPV_FAULT_TEST_ONLY=WRITE,READ (operation names) runs only those RC cases.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>

#include "dpv_engine.h"
#include "dpv_port.h"
#include "dpv_port_fault.h"
#include "dpv_roce_gid.h"
#include "dpv_test.h"
#include "mlx5_ring.h"
#include "test_engine_util.h"
#include "test_fault_util.h"

#define PDN	 1
#define QPN_A	 0x11
#define QPN_B	 0x12
#define QPN_A2	 0x21 /* a second pair (peer-gone cases) */
#define QPN_B2	 0x22
#define SLOT	 (1u << 20) /* the largest message */
#define NSLOT	 8
#define INFLIGHT NSLOT
#define STRIDE	 (SLOT + 4096) /* slots are this far apart */
#define BUF	 ((size_t)NSLOT * STRIDE + 4096)
#define ATOM_OFF (BUF - 64) /* the atomic target in B's buffer */
#define STALL_S	 20	    /* no completion for this long: failed */

static struct test_fault_pair pair;
static struct dpv_engine *ea, *eb;
static struct test_engine_qp qa, qb, qa2, qb2;
static unsigned mb_per_case;
static uint8_t rnr_retry_a = 7; /* rnr_retry of QPN_A */

static const uint32_t sizes[] = {1,	2,     3,      7,	64,
				 100,	1000,  4095,   4096,	4097,
				 12288, 65536, 200000, 1u << 20};

static struct dpv_mlx5_wq *
lookup(void *arg, uint32_t qpn, bool recv)
{
	static struct test_engine_qp *const all[] = {&qa, &qb, &qa2, &qb2};

	RTE_SET_USED(arg);
	return test_engine_qp_wq(all, RTE_DIM(all), qpn, recv);
}

static uint8_t
pat(uint64_t i, uint64_t off)
{
	return (uint8_t)(i * 37 + off + (off >> 8) * 3 + (off >> 16));
}

static void
fill(uint8_t *p, uint64_t i, uint32_t len)
{
	for (uint32_t k = 0; k < len; k++)
		p[k] = pat(i, k);
}

/* First offset where p differs from message i, or -1. */
static int64_t
check(const uint8_t *p, uint64_t i, uint32_t len)
{
	for (uint32_t k = 0; k < len; k++)
		if (p[k] != pat(i, k))
			return k;
	return -1;
}

static void
pump(void)
{
	dpv_engine_poll(ea, 32);
	dpv_engine_poll(eb, 32);
}

static uint32_t
reg(struct dpv_engine *e, uint8_t *buf, uint32_t idx)
{
	uint32_t key = (idx << 8) | 0x5a;
	struct dpv_engine_key k = {
		.addr = (uintptr_t)buf,
		.length = BUF,
		.iova = (uintptr_t)buf,
		.access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			  IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC,
		.pdn = PDN,
	};

	return dpv_engine_key_set(e, key, &k) == 0 ? key : 0;
}

static void
path_of(struct dpv_engine_path *p, int from)
{
	memset(p, 0, sizeof(*p));
	memcpy(p->smac, pair.mac[from], 6);
	memcpy(p->dmac, pair.mac[1 - from], 6);
	dpv_roce_gid_from_ipv4(p->sgid, rte_cpu_to_be_32(pair.ip[from]));
	dpv_roce_gid_from_ipv4(p->dgid, rte_cpu_to_be_32(pair.ip[1 - from]));
}

static int
qp_up(struct dpv_engine *e, struct test_engine_qp *t, uint32_t qpn,
      uint32_t peer, int side, enum ibv_qp_type type)
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
	};
	struct dpv_engine_path path;
	struct test_engine_conn c = {
		.path = &path,
		.mtu = IBV_MTU_4096,
		.dest_qpn = peer,
		.psn = 0xffff00, /* PSNs wrap in every case */
		.timeout = 4,	 /* 65 us, i.e. the engine's 1 ms floor */
		.rnr_retry = qpn == QPN_A ? rnr_retry_a : 7,
	};

	if (test_engine_qp_rings_init(t, qpn, type, BUF) != 0)
		return -1;
	t->key = reg(e, t->buf, (qpn >> 4) + 1);
	if (t->key == 0 || dpv_engine_qp_create(e, &init) != 0)
		return -1;
	path_of(&path, side);
	return test_engine_connect(e, qpn, &c);
}

static int
suite_setup(void)
{
	const char *mb = getenv("DPV_FAULT_TEST_MB");

	if (dpv_test_eal_init() != 0)
		return TEST_SKIPPED;
	if (mb_per_case == 0)
		mb_per_case = 8;
	if (mb != NULL && atoi(mb) > 0)
		mb_per_case = (unsigned)atoi(mb);
	return test_fault_pair_create(&pair, 4200) == 0 ? 0 : TEST_FAILED;
}

static void
suite_teardown(void)
{
	test_fault_pair_destroy(&pair);
}

static int
case_up(enum ibv_qp_type type)
{
	struct dpv_engine_conf conf = {.max_keys = 64, .max_qps = 16};

	ea = dpv_engine_create(pair.port[0], &conf);
	eb = dpv_engine_create(pair.port[1], &conf);
	if (ea == NULL || eb == NULL)
		return -1;
	if (qp_up(ea, &qa, QPN_A, QPN_B, 0, type) != 0 ||
	    qp_up(eb, &qb, QPN_B, QPN_A, 1, type) != 0)
		return -1;
	return 0;
}

static int
setup_rc(void)
{
	return case_up(IBV_QPT_RC);
}

static int
setup_uc(void)
{
	return case_up(IBV_QPT_UC);
}

static void
teardown(void)
{
	struct rte_mbuf *m[32];

	dpv_port_fault_set(pair.port[0], NULL);
	dpv_port_fault_set(pair.port[1], NULL);
	if (ea != NULL)
		test_engine_qp_fini(ea, &qa);
	if (eb != NULL)
		test_engine_qp_fini(eb, &qb);
	if (qa2.buf != NULL)
		test_engine_qp_fini(ea, &qa2);
	if (qb2.buf != NULL)
		test_engine_qp_fini(eb, &qb2);
	dpv_engine_destroy(ea);
	dpv_engine_destroy(eb);
	ea = eb = NULL;
	rnr_retry_a = 7;
	/* what is left on the wire (and held frames, once due) */
	for (uint64_t end = rte_get_timer_cycles() + rte_get_timer_hz() / 50;
	     rte_get_timer_cycles() < end;) {
		for (int i = 0; i < 2; i++) {
			uint16_t n = dpv_port_rx(pair.port[i], 0, m, 32);

			for (uint16_t k = 0; k < n; k++)
				rte_pktmbuf_free(m[k]);
		}
	}
}

/* The same faults on what both devices send (each frame meets them once):
 * loss and corruption as given, 5 % reordering and 1 % duplication, or
 * with heavy set 10 % and 2 %. */
static int
faults_on(double loss, double corrupt, bool heavy)
{
	struct dpv_fault_conf c;

	for (int i = 0; i < 2; i++) {
		dpv_fault_conf_init(&c);
		c.seed = 1000 + (uint64_t)i;
		c.dir[DPV_FAULT_TX].drop = loss;
		c.dir[DPV_FAULT_TX].reorder = heavy ? 0.1 : 0.05;
		c.dir[DPV_FAULT_TX].window = 8;
		c.dir[DPV_FAULT_TX].dup = heavy ? 0.02 : 0.01;
		c.dir[DPV_FAULT_TX].corrupt = corrupt;
		if (dpv_port_fault_set(pair.port[i], &c) != 0)
			return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------ RC */

enum op { OP_SEND, OP_WRITE, OP_READ, OP_FADD, OP_CAS, OP_READ64K };
static const char *const op_name[] = {"SEND",	   "WRITE",    "READ",
				      "FETCH_ADD", "CMP_SWAP", "READ64K"};

struct run {
	enum op op;
	uint64_t total;	 /* messages */
	uint64_t posted; /* by A */
	uint64_t a_done; /* A's completions checked */
	uint64_t b_done; /* B's receive completions checked */
	uint64_t bytes;
};

static bool is_atomic(enum op op);

static uint32_t
msg_len(enum op op, uint64_t i)
{
	if (op == OP_READ64K)
		return 65536;
	return is_atomic(op) ? 8 : sizes[i % RTE_DIM(sizes)];
}

static bool
is_read(enum op op)
{
	return op == OP_READ || op == OP_READ64K;
}

static bool
is_atomic(enum op op)
{
	return op == OP_FADD || op == OP_CAS;
}

/* Offset in B's buffer that READ i reads from. */
static uint64_t
read_off(uint64_t i, uint32_t len)
{
	return (i * 4099) % (BUF - 64 - len);
}

/* WRITE: every other one carries immediate data (a receive at B). */
static bool
write_imm(uint64_t i)
{
	return i & 1;
}

static int
post_recv_b(uint64_t i)
{
	struct ibv_sge sge = {.addr = (uintptr_t)qb.buf + (i % NSLOT) * STRIDE,
			      .length = SLOT,
			      .lkey = qb.key};
	struct ibv_recv_wr wr = {.wr_id = i, .sg_list = &sge, .num_sge = 1},
			   *bad;

	return dpv_mlx5_post_recv(&qb.rq, &wr, &bad);
}

static int
post_a(struct run *r)
{
	uint64_t i = r->posted;
	uint32_t len = msg_len(r->op, i);
	uint8_t *slot = qa.buf + (i % NSLOT) * STRIDE;
	struct ibv_sge sge = {
		.addr = (uintptr_t)slot, .length = len, .lkey = qa.key};
	struct ibv_send_wr wr = {.wr_id = i,
				 .sg_list = &sge,
				 .num_sge = 1,
				 .send_flags = IBV_SEND_SIGNALED},
			   *bad;

	switch (r->op) {
	case OP_SEND:
		fill(slot, i, len);
		wr.opcode = i & 1 ? IBV_WR_SEND : IBV_WR_SEND_WITH_IMM;
		wr.imm_data = rte_cpu_to_be_32((uint32_t)i);
		if (post_recv_b(i) != 0)
			return -1;
		break;
	case OP_WRITE:
		fill(slot, i, len);
		wr.opcode = write_imm(i) ? IBV_WR_RDMA_WRITE_WITH_IMM
					 : IBV_WR_RDMA_WRITE;
		wr.imm_data = rte_cpu_to_be_32((uint32_t)i);
		wr.wr.rdma.remote_addr =
			(uintptr_t)qb.buf + (i % NSLOT) * STRIDE;
		wr.wr.rdma.rkey = qb.key;
		if (write_imm(i) && post_recv_b(i) != 0)
			return -1;
		break;
	case OP_READ:
	case OP_READ64K:
		/* a sentinel after the range: nothing beyond it is written */
		memset(slot, 0xee, len + 1);
		wr.opcode = IBV_WR_RDMA_READ;
		wr.wr.rdma.remote_addr = (uintptr_t)qb.buf + read_off(i, len);
		wr.wr.rdma.rkey = qb.key;
		break;
	case OP_FADD:
	case OP_CAS:
		memset(slot, 0xee, 8);
		wr.opcode = r->op == OP_FADD ? IBV_WR_ATOMIC_FETCH_AND_ADD
					     : IBV_WR_ATOMIC_CMP_AND_SWP;
		wr.wr.atomic.remote_addr = (uintptr_t)qb.buf + ATOM_OFF;
		wr.wr.atomic.rkey = qb.key;
		/* FADD adds 1; CAS moves i to i + 1: both succeed once only */
		wr.wr.atomic.compare_add = r->op == OP_FADD ? 1 : i;
		wr.wr.atomic.swap = i + 1;
		break;
	}
	if (dpv_mlx5_post_send(&qa.sq, IBV_QPT_RC, QPN_A, &wr, &bad) != 0)
		return -1;
	r->posted++;
	return 0;
}

/* A's completion of message i. */
static int
check_a(struct run *r, const struct ibv_wc *wc)
{
	uint64_t i = r->a_done;
	uint32_t len = msg_len(r->op, i);
	uint8_t *slot = qa.buf + (i % NSLOT) * STRIDE;
	int64_t bad;
	uint64_t v;

	TEST_ASSERT_EQUAL(wc->status, IBV_WC_SUCCESS,
			  "%s %" PRIu64 ": status %d", op_name[r->op], i,
			  wc->status);
	TEST_ASSERT_EQUAL(wc->wr_id, i, "%s: completions in order",
			  op_name[r->op]);
	switch (r->op) {
	case OP_SEND:
		TEST_ASSERT_EQUAL(wc->opcode, IBV_WC_SEND, "");
		break;
	case OP_WRITE:
		TEST_ASSERT_EQUAL(wc->opcode, IBV_WC_RDMA_WRITE, "");
		/* acknowledged: the bytes are in B's memory */
		bad = check(qb.buf + (i % NSLOT) * STRIDE, i, len);
		TEST_ASSERT(bad < 0,
			    "WRITE %" PRIu64 " (%u bytes): byte %" PRId64
			    " wrong at the target",
			    i, len, bad);
		break;
	case OP_READ:
	case OP_READ64K:
		TEST_ASSERT_EQUAL(wc->opcode, IBV_WC_RDMA_READ, "");
		TEST_ASSERT_EQUAL(wc->byte_len, len, "");
		TEST_ASSERT(memcmp(slot, qb.buf + read_off(i, len), len) == 0,
			    "READ %" PRIu64 " (%u bytes): wrong bytes", i, len);
		TEST_ASSERT_EQUAL(slot[len], 0xee,
				  "READ %" PRIu64 ": byte after the range", i);
		break;
	case OP_FADD:
	case OP_CAS:
		TEST_ASSERT_EQUAL(wc->opcode,
				  r->op == OP_FADD ? IBV_WC_FETCH_ADD
						   : IBV_WC_COMP_SWAP,
				  "");
		memcpy(&v, slot, 8);
		TEST_ASSERT_EQUAL(v, i, "%s %" PRIu64 ": original value",
				  op_name[r->op], i);
		break;
	}
	r->a_done++;
	r->bytes += len;
	return TEST_SUCCESS;
}

/* The message B's next receive completion must be (UINT64_MAX: none). */
static uint64_t
next_recv(const struct run *r)
{
	uint64_t i = r->b_done;

	if (r->op == OP_SEND)
		return i;
	if (r->op != OP_WRITE)
		return UINT64_MAX;
	while (!write_imm(i))
		i++;
	return i;
}

static int
check_b(struct run *r, const struct ibv_wc *wc)
{
	uint64_t i = next_recv(r);
	uint32_t len = msg_len(r->op, i);
	int64_t bad;

	TEST_ASSERT(i < r->posted,
		    "receive completion %" PRIu64 " for a message not sent", i);
	TEST_ASSERT_EQUAL(wc->status, IBV_WC_SUCCESS,
			  "%s %" PRIu64 ": receive status %d", op_name[r->op],
			  i, wc->status);
	TEST_ASSERT_EQUAL(wc->wr_id, i, "%s: received once each, in order",
			  op_name[r->op]);
	if (r->op == OP_SEND) {
		TEST_ASSERT_EQUAL(wc->opcode, IBV_WC_RECV, "");
		TEST_ASSERT_EQUAL(wc->byte_len, len, "SEND %" PRIu64, i);
		TEST_ASSERT_EQUAL(!!(wc->wc_flags & IBV_WC_WITH_IMM), !(i & 1),
				  "");
		bad = check(qb.buf + (i % NSLOT) * STRIDE, i, len);
		TEST_ASSERT(bad < 0,
			    "SEND %" PRIu64 " (%u bytes): byte %" PRId64
			    " wrong",
			    i, len, bad);
	} else {
		TEST_ASSERT_EQUAL(wc->opcode, IBV_WC_RECV_RDMA_WITH_IMM, "");
		bad = check(qb.buf + (i % NSLOT) * STRIDE, i, len);
		TEST_ASSERT(bad < 0,
			    "WRITE %" PRIu64 " with immediate: byte %" PRId64
			    " wrong",
			    i, bad);
	}
	if (wc->wc_flags & IBV_WC_WITH_IMM)
		TEST_ASSERT_EQUAL(rte_be_to_cpu_32(wc->imm_data), i, "");
	r->b_done = i + 1;
	return TEST_SUCCESS;
}

/* Messages A may reuse the slot of: checked on both sides. */
static uint64_t
done(const struct run *r)
{
	uint64_t b = next_recv(r);

	return b == UINT64_MAX ? r->a_done : RTE_MIN(r->a_done, b);
}

static void
dump(const char *why)
{
	struct dpv_engine_stats s[2];
	struct dpv_fault_stats f[2];

	dpv_engine_stats_get(ea, &s[0]);
	dpv_engine_stats_get(eb, &s[1]);
	dpv_port_fault_stats_get(pair.port[0], &f[0]);
	dpv_port_fault_stats_get(pair.port[1], &f[1]);
	for (int i = 0; i < 2; i++)
		DPV_TEST_LOG("%s: %c: tx %" PRIu64 " rx %" PRIu64
			     " retransmits %" PRIu64 " seq NAKs sent %" PRIu64
			     " rcvd %" PRIu64 " dup req %" PRIu64
			     " icrc %" PRIu64 " tx_full %" PRIu64
			     " | fault drop %" PRIu64 " dup %" PRIu64
			     " reorder %" PRIu64 " corrupt %" PRIu64,
			     why, 'A' + i, s[i].tx_pkts, s[i].rx_pkts,
			     s[i].retransmits, s[i].seq_naks_sent,
			     s[i].seq_naks_rcvd, s[i].dup_requests,
			     s[i].rx_drop_icrc, s[i].tx_drop_full, f[i].tx_drop,
			     f[i].tx_dup, f[i].tx_reorder, f[i].tx_corrupt);
}

static int
rc_run(enum op op, double loss, double corrupt)
{
	struct run r = {.op = op};
	uint64_t hz = rte_get_timer_hz(), t0 = rte_get_timer_cycles(),
		 last = t0, a_last = UINT64_MAX, b_last = UINT64_MAX;
	uint64_t target = (uint64_t)mb_per_case << 20;
	struct dpv_engine_stats sa, sb;
	struct dpv_fault_stats fa, fb, fa0, fb0;
	struct ibv_wc wc[16];
	uint64_t v;
	int n, ret;

	if (getenv("DPV_FAULT_TEST_ONLY") != NULL &&
	    strstr(getenv("DPV_FAULT_TEST_ONLY"), op_name[op]) == NULL)
		return TEST_SKIPPED;
	dpv_port_fault_stats_get(pair.port[0], &fa0);
	dpv_port_fault_stats_get(pair.port[1], &fb0);
	/* enough messages for the bytes wanted (atomics: a count) */
	if (is_atomic(op)) {
		r.total = 200 * (uint64_t)mb_per_case;
		v = 0;
		memcpy(qb.buf + ATOM_OFF, &v, 8);
	} else {
		uint64_t b = 0;

		while (b < target)
			b += msg_len(op, r.total++);
		if (is_read(op))
			for (size_t k = 0; k < BUF; k++)
				qb.buf[k] = pat(7, k);
	}
	if (op == OP_READ64K) {
		/* as perftest: many READs outstanding */
		struct ibv_qp_attr a = {.max_rd_atomic = 16,
					.max_dest_rd_atomic = 16};

		TEST_ASSERT_EQUAL(dpv_engine_qp_modify(ea, QPN_A, &a,
						       IBV_QP_MAX_QP_RD_ATOMIC,
						       NULL),
				  0, "");
		TEST_ASSERT_EQUAL(
			dpv_engine_qp_modify(eb, QPN_B, &a,
					     IBV_QP_MAX_DEST_RD_ATOMIC, NULL),
			0, "");
	}
	if (faults_on(loss, corrupt, op == OP_READ64K) != 0)
		return TEST_FAILED;
	while (done(&r) < r.total) {
		while (r.posted < r.total && r.posted < done(&r) + INFLIGHT)
			TEST_ASSERT_EQUAL(post_a(&r), 0, "post");
		pump();
		n = dpv_mlx5_cq_poll(&qa.scq, 16, wc, lookup, NULL);
		for (int k = 0; k < n; k++) {
			ret = check_a(&r, &wc[k]);
			if (ret != TEST_SUCCESS) {
				dump("failed");
				return ret;
			}
		}
		n = dpv_mlx5_cq_poll(&qb.rcq, 16, wc, lookup, NULL);
		for (int k = 0; k < n; k++) {
			ret = check_b(&r, &wc[k]);
			if (ret != TEST_SUCCESS) {
				dump("failed");
				return ret;
			}
		}
		if (r.a_done != a_last || r.b_done != b_last) {
			a_last = r.a_done;
			b_last = r.b_done;
			last = rte_get_timer_cycles();
		} else if (rte_get_timer_cycles() - last > STALL_S * hz) {
			dump("stalled");
			TEST_ASSERT(false,
				    "%s: nothing completed for %d s (%" PRIu64
				    " of %" PRIu64 " done)",
				    op_name[op], STALL_S, done(&r), r.total);
		}
	}
	/* exactly once: nothing more arrives, even with receives posted */
	TEST_ASSERT_EQUAL(post_recv_b(r.total), 0, "");
	TEST_ASSERT_EQUAL(post_recv_b(r.total + 1), 0, "");
	for (uint64_t end = rte_get_timer_cycles() + hz / 20;
	     rte_get_timer_cycles() < end;)
		pump();
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_poll(&qa.scq, 16, wc, lookup, NULL), 0,
			  "no extra send completion");
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_poll(&qb.rcq, 16, wc, lookup, NULL), 0,
			  "no extra receive completion");
	if (is_atomic(op)) {
		memcpy(&v, qb.buf + ATOM_OFF, 8);
		TEST_ASSERT_EQUAL(v, r.total, "%s applied exactly once each",
				  op_name[op]);
	}
	if (op == OP_WRITE) /* no late duplicate rewrote a slot */
		for (uint64_t i = r.total - NSLOT; i < r.total; i++)
			TEST_ASSERT(check(qb.buf + (i % NSLOT) * STRIDE, i,
					  msg_len(op, i)) < 0,
				    "WRITE %" PRIu64 " overwritten later", i);
	dpv_engine_stats_get(ea, &sa);
	dpv_engine_stats_get(eb, &sb);
	dpv_port_fault_stats_get(pair.port[0], &fa);
	dpv_port_fault_stats_get(pair.port[1], &fb);
#define FDELTA(n, d)                                                           \
	fa.n -= fa0.n;                                                         \
	fb.n -= fb0.n;
	DPV_FAULT_COUNTERS(FDELTA)
#undef FDELTA
	DPV_TEST_LOG("RC %-9s loss %.1f%%%s: %" PRIu64 " messages, %.2f MB in "
		     "%.2f s; lost %" PRIu64 ", reordered %" PRIu64
		     ", duplicated %" PRIu64 "; retransmits %" PRIu64
		     ", seq NAKs %" PRIu64 ", duplicate requests %" PRIu64,
		     op_name[op], loss * 100, corrupt > 0 ? " corrupt 1%" : "",
		     r.total, r.bytes / 1e6,
		     (double)(rte_get_timer_cycles() - t0) / hz,
		     fa.tx_drop + fb.tx_drop, fa.tx_reorder + fb.tx_reorder,
		     fa.tx_dup + fb.tx_dup, sa.retransmits + sb.retransmits,
		     sa.seq_naks_sent + sb.seq_naks_sent,
		     sa.dup_requests + sb.dup_requests);
	/* the faults happened and the transport saw them */
	TEST_ASSERT(fa.tx_reorder + fb.tx_reorder > 0, "");
	TEST_ASSERT(fa.tx_dup + fb.tx_dup > 0, "");
	TEST_ASSERT(sa.dup_requests + sb.dup_requests > 0,
		    "duplicates reached the responder");
	if (is_read(op)) {
		/* every response out of order costs a re-request of the rest
		 * (go-back-N), but left-over responses must not set off a
		 * storm of re-requests: with 16 READs of 64 KiB outstanding
		 * the responder sent 20 times what was needed */
		uint64_t need = 0;

		for (uint64_t i = 0; i < r.total; i++)
			need += dpv_pkt_count(msg_len(op, i), 4096);
		DPV_TEST_LOG("READ responses: %" PRIu64 " sent for %" PRIu64
			     " needed",
			     sb.tx_pkts, need);
		if (op == OP_READ64K)
			TEST_ASSERT(sb.tx_pkts < 6 * need,
				    "%" PRIu64 " READ responses for %" PRIu64,
				    sb.tx_pkts, need);
	}
	if (corrupt > 0)
		TEST_ASSERT(sa.rx_drop_icrc + sb.rx_drop_icrc > 0,
			    "corrupt frames dropped by the ICRC check");
	if (loss >= 0.01) {
		TEST_ASSERT(fa.tx_drop + fb.tx_drop > 0, "");
		TEST_ASSERT(sa.retransmits > 0, "retransmissions counted");
		if (op == OP_SEND || op == OP_WRITE)
			TEST_ASSERT(sb.seq_naks_sent + sa.seq_naks_rcvd > 0,
				    "sequence NAKs counted");
	}
	return TEST_SUCCESS;
}

#define RC_CASE(name, op, loss)                                                \
	static int name(void)                                                  \
	{                                                                      \
		return rc_run(op, loss, 0);                                    \
	}
RC_CASE(rc_send_0_1, OP_SEND, 0.001)
RC_CASE(rc_send_1, OP_SEND, 0.01)
RC_CASE(rc_send_5, OP_SEND, 0.05)
RC_CASE(rc_write_0_1, OP_WRITE, 0.001)
RC_CASE(rc_write_1, OP_WRITE, 0.01)
RC_CASE(rc_write_5, OP_WRITE, 0.05)
RC_CASE(rc_read_0_1, OP_READ, 0.001)
RC_CASE(rc_read_1, OP_READ, 0.01)
RC_CASE(rc_read_5, OP_READ, 0.05)
RC_CASE(rc_fadd_0_1, OP_FADD, 0.001)
RC_CASE(rc_fadd_1, OP_FADD, 0.01)
RC_CASE(rc_fadd_5, OP_FADD, 0.05)
RC_CASE(rc_cas_0_1, OP_CAS, 0.001)
RC_CASE(rc_cas_1, OP_CAS, 0.01)
RC_CASE(rc_cas_5, OP_CAS, 0.05)

/* and 1 % of the frames corrupted (the receiver's ICRC check drops them) */
static int
rc_send_corrupt(void)
{
	return rc_run(OP_SEND, 0.01, 0.01);
}

static int
rc_read_corrupt(void)
{
	return rc_run(OP_READ, 0.01, 0.01);
}

/* 64 KiB READs, 16 outstanding, through 1 % loss, 10 % reordering and 2 %
 * duplication (what ib_read_bw against rxe failed with) */
static int
rc_read_heavy(void)
{
	return rc_run(OP_READ64K, 0.01, 0);
}

/* ------------------------------------------------------------------ UC */

/* UC messages are at most UC_REGION bytes; receive k (and WRITE i) uses
 * region k (i) % UC_REGIONS of B's buffer: 32 receives are outstanding. */
#define UC_REGION  70016
#define UC_REGIONS 96

static int
post_recv_uc(uint64_t k)
{
	struct ibv_sge sge = {.addr = (uintptr_t)qb.buf +
				      (k % UC_REGIONS) * UC_REGION,
			      .length = UC_REGION,
			      .lkey = qb.key};
	struct ibv_recv_wr wr = {.wr_id = k, .sg_list = &sge, .num_sge = 1},
			   *bad;

	return dpv_mlx5_post_recv(&qb.rq, &wr, &bad);
}

/*
 * UC SENDs and WRITEs with immediate through loss, reordering,
 * duplication and corruption: what is delivered is always a whole
 * message, byte for byte (each carries its number and length in its
 * first 8 bytes); the rest is lost, never partly there.
 */
static int
uc_run(bool write)
{
	const uint64_t total = 600;
	uint64_t hz = rte_get_timer_hz(), delivered = 0, posted = 0;
	uint64_t sent_done = 0;
	struct ibv_wc wc[16];
	int n;

	if (faults_on(0.02, 0.01, false) != 0)
		return TEST_FAILED;
	for (uint64_t k = 0; k < 32; k++)
		TEST_ASSERT_EQUAL(post_recv_uc(k), 0, "");
	while (sent_done < total) {
		while (posted < total && posted < sent_done + INFLIGHT) {
			uint64_t i = posted;
			uint32_t len = 8 + (uint32_t)((i * 7919) % 70000);
			uint8_t *slot = qa.buf + (i % NSLOT) * STRIDE;
			struct ibv_sge sge = {.addr = (uintptr_t)slot,
					      .length = len,
					      .lkey = qa.key};
			struct ibv_send_wr wr = {.wr_id = i,
						 .sg_list = &sge,
						 .num_sge = 1,
						 .send_flags =
							 IBV_SEND_SIGNALED},
					   *bad;
			uint32_t hdr[2] = {(uint32_t)i, len};

			fill(slot, i, len);
			memcpy(slot, hdr, 8);
			wr.opcode = write ? IBV_WR_RDMA_WRITE_WITH_IMM
					  : IBV_WR_SEND;
			wr.imm_data = rte_cpu_to_be_32((uint32_t)i);
			/* each WRITE to its own region */
			wr.wr.rdma.remote_addr = (uintptr_t)qb.buf +
						 (i % UC_REGIONS) * UC_REGION;
			wr.wr.rdma.rkey = qb.key;
			TEST_ASSERT_EQUAL(dpv_mlx5_post_send(&qa.sq, IBV_QPT_UC,
							     QPN_A, &wr, &bad),
					  0, "");
			posted++;
		}
		pump();
		n = dpv_mlx5_cq_poll(&qa.scq, 16, wc, lookup, NULL);
		for (int k = 0; k < n; k++) {
			TEST_ASSERT_EQUAL(wc[k].status, IBV_WC_SUCCESS, "");
			TEST_ASSERT_EQUAL(wc[k].wr_id, sent_done, "in order");
			sent_done++;
		}
		n = dpv_mlx5_cq_poll(&qb.rcq, 16, wc, lookup, NULL);
		for (int k = 0; k < n; k++) {
			uint32_t hdr[2];
			const uint8_t *p;
			uint64_t i;

			TEST_ASSERT_EQUAL(wc[k].status, IBV_WC_SUCCESS, "");
			i = rte_be_to_cpu_32(wc[k].imm_data);
			if (write) {
				TEST_ASSERT_EQUAL(wc[k].opcode,
						  IBV_WC_RECV_RDMA_WITH_IMM,
						  "");
				p = qb.buf + (i % UC_REGIONS) * UC_REGION;
			} else {
				p = qb.buf +
				    (wc[k].wr_id % UC_REGIONS) * UC_REGION;
				TEST_ASSERT(wc[k].byte_len >= 8, "");
				memcpy(hdr, p, 8);
				i = hdr[0];
				TEST_ASSERT_EQUAL(hdr[1], wc[k].byte_len,
						  "a whole message");
			}
			TEST_ASSERT(i < posted, "");
			memcpy(hdr, p, 8);
			TEST_ASSERT_EQUAL(hdr[0], i, "");
			TEST_ASSERT_EQUAL(
				hdr[1], 8 + (uint32_t)((i * 7919) % 70000), "");
			for (uint32_t b = 8; b < hdr[1]; b++)
				TEST_ASSERT_EQUAL(p[b], pat(i, b),
						  "message %" PRIu64
						  " byte %u of %u",
						  i, b, hdr[1]);
			delivered++;
			TEST_ASSERT_EQUAL(post_recv_uc(32 + delivered), 0, "");
		}
	}
	for (uint64_t end = rte_get_timer_cycles() + hz / 20;
	     rte_get_timer_cycles() < end;)
		pump();
	DPV_TEST_LOG("UC %s: %" PRIu64 " of %" PRIu64
		     " messages delivered whole, the others lost",
		     write ? "WRITE with immediate" : "SEND", delivered, total);
	TEST_ASSERT(delivered > total / 4 && delivered < total,
		    "some lost, most delivered");
	return TEST_SUCCESS;
}

static int
uc_send(void)
{
	return uc_run(false);
}

static int
uc_write(void)
{
	return uc_run(true);
}

/* ------------------------------------------------------------ peer gone */

/* Two RC pairs on the same two engines: A-B and A2-B2. */
static int
setup_two(void)
{
	if (case_up(IBV_QPT_RC) != 0)
		return -1;
	if (qp_up(ea, &qa2, QPN_A2, QPN_B2, 0, IBV_QPT_RC) != 0 ||
	    qp_up(eb, &qb2, QPN_B2, QPN_A2, 1, IBV_QPT_RC) != 0)
		return -1;
	return 0;
}

/* The same, QPN_A connected with rnr_retry 2. */
static int
setup_two_rnr2(void)
{
	rnr_retry_a = 2;
	return setup_two();
}

/* One completion on cq within 5 s of polling both engines. */
static int
wait_one(struct dpv_mlx5_cq *cq, struct ibv_wc *wc)
{
	uint64_t end = rte_get_timer_cycles() + 5 * rte_get_timer_hz();

	while (rte_get_timer_cycles() < end) {
		int n = dpv_mlx5_cq_poll(cq, 1, wc, lookup, NULL);

		if (n != 0)
			return n == 1 ? 0 : -1;
		pump();
	}
	return -1;
}

static int
post_on(struct test_engine_qp *t, uint32_t qpn, enum ibv_wr_opcode op,
	uint64_t id, struct test_engine_qp *peer)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)t->buf, .length = 3000, .lkey = t->key};
	struct ibv_send_wr wr = {.wr_id = id,
				 .sg_list = &sge,
				 .num_sge = 1,
				 .opcode = op,
				 .send_flags = IBV_SEND_SIGNALED},
			   *bad;

	wr.wr.rdma.remote_addr = (uintptr_t)peer->buf + 8192;
	wr.wr.rdma.rkey = peer->key;
	return dpv_mlx5_post_send(&t->sq, IBV_QPT_RC, qpn, &wr, &bad);
}

/* The other pair still carries a SEND, byte for byte. */
static int
pair2_works(uint64_t i)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)qb2.buf, .length = 4096, .lkey = qb2.key};
	struct ibv_recv_wr rwr = {.wr_id = i, .sg_list = &sge, .num_sge = 1},
			   *rbad;
	struct ibv_wc wc;

	fill(qa2.buf, i, 3000);
	TEST_ASSERT_EQUAL(dpv_mlx5_post_recv(&qb2.rq, &rwr, &rbad), 0, "");
	TEST_ASSERT_EQUAL(post_on(&qa2, QPN_A2, IBV_WR_SEND, i, &qb2), 0, "");
	TEST_ASSERT_EQUAL(wait_one(&qa2.scq, &wc), 0, "pair 2 send %" PRIu64,
			  i);
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "pair 2: status %d",
			  wc.status);
	TEST_ASSERT_EQUAL(wait_one(&qb2.rcq, &wc), 0, "pair 2 receive");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "");
	TEST_ASSERT_EQUAL(wc.byte_len, 3000, "");
	TEST_ASSERT(check(qb2.buf, i, 3000) < 0, "pair 2 bytes");
	return TEST_SUCCESS;
}

/*
 * The first WQE fails with status st; the two behind it are flushed; the
 * QP is in ERR and flushes what is posted later; the other pair keeps
 * working throughout.
 */
static int
expect_failed(enum ibv_wc_status st)
{
	struct ibv_wc wc;

	for (uint64_t i = 0; i < 3; i++) {
		TEST_ASSERT_EQUAL(pair2_works(i), TEST_SUCCESS, "");
		TEST_ASSERT_EQUAL(wait_one(&qa.scq, &wc), 0,
				  "completion %" PRIu64, i);
		TEST_ASSERT_EQUAL(wc.wr_id, i, "in order");
		TEST_ASSERT_EQUAL(wc.status, i == 0 ? st : IBV_WC_WR_FLUSH_ERR,
				  "WQE %" PRIu64 ": status %d", i, wc.status);
	}
	TEST_ASSERT_EQUAL(dpv_engine_qp_state(ea, QPN_A), IBV_QPS_ERR, "");
	TEST_ASSERT_EQUAL(post_on(&qa, QPN_A, IBV_WR_SEND, 9, &qb), 0, "");
	TEST_ASSERT_EQUAL(wait_one(&qa.scq, &wc), 0, "");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_WR_FLUSH_ERR, "posted in ERR");
	for (uint64_t i = 3; i < 6; i++)
		TEST_ASSERT_EQUAL(pair2_works(i), TEST_SUCCESS, "");
	TEST_ASSERT_EQUAL(dpv_engine_qp_state(ea, QPN_A2), IBV_QPS_RTS, "");
	return TEST_SUCCESS;
}

/* The peer QP is gone (every request to it lost): retry_cnt (7) runs out,
 * IBV_WC_RETRY_EXC_ERR. */
static int
peer_retry_exc(void)
{
	struct dpv_engine_qp_stats qs;
	struct dpv_fault_conf c;
	char err[128];
	int ret;

	dpv_fault_conf_init(&c);
	TEST_ASSERT_EQUAL(
		dpv_fault_parse("tx:drop=1,qp=0x12", &c, err, sizeof(err)), 0,
		"%s", err);
	TEST_ASSERT_EQUAL(dpv_port_fault_set(pair.port[0], &c), 0, "");
	TEST_ASSERT_EQUAL(post_on(&qa, QPN_A, IBV_WR_RDMA_WRITE, 0, &qb), 0,
			  "");
	TEST_ASSERT_EQUAL(post_on(&qa, QPN_A, IBV_WR_SEND, 1, &qb), 0, "");
	TEST_ASSERT_EQUAL(post_on(&qa, QPN_A, IBV_WR_RDMA_READ, 2, &qb), 0, "");
	ret = expect_failed(IBV_WC_RETRY_EXC_ERR);
	if (ret != TEST_SUCCESS)
		return ret;
	TEST_ASSERT_EQUAL(dpv_engine_qp_stats_get(ea, QPN_A, &qs), 0, "");
	DPV_TEST_LOG("retry_cnt 7: %" PRIu64 " retransmissions",
		     qs.retransmits);
	TEST_ASSERT(qs.retransmits >= 7, "%" PRIu64, qs.retransmits);
	return TEST_SUCCESS;
}

/* The peer posts no receive: rnr_retry (2) runs out,
 * IBV_WC_RNR_RETRY_EXC_ERR. */
static int
peer_rnr_exc(void)
{
	struct dpv_engine_qp_stats qs;
	int ret;

	for (uint64_t i = 0; i < 3; i++)
		TEST_ASSERT_EQUAL(post_on(&qa, QPN_A, IBV_WR_SEND, i, &qb), 0,
				  "");
	ret = expect_failed(IBV_WC_RNR_RETRY_EXC_ERR);
	if (ret != TEST_SUCCESS)
		return ret;
	TEST_ASSERT_EQUAL(dpv_engine_qp_stats_get(ea, QPN_A, &qs), 0, "");
	TEST_ASSERT_EQUAL(qs.rnr_naks_rcvd, 3, "the first and 2 retries");
	return TEST_SUCCESS;
}

#define CASE(fn) TEST_CASE_ST(setup_rc, teardown, fn)
#define CASES                                                                  \
	CASE(rc_send_0_1), CASE(rc_send_1), CASE(rc_send_5),                   \
		CASE(rc_write_0_1), CASE(rc_write_1), CASE(rc_write_5),        \
		CASE(rc_read_0_1), CASE(rc_read_1), CASE(rc_read_5),           \
		CASE(rc_fadd_0_1), CASE(rc_fadd_1), CASE(rc_fadd_5),           \
		CASE(rc_cas_0_1), CASE(rc_cas_1), CASE(rc_cas_5),              \
		CASE(rc_send_corrupt), CASE(rc_read_corrupt),                  \
		CASE(rc_read_heavy),                                           \
		TEST_CASE_ST(setup_uc, teardown, uc_send),                     \
		TEST_CASE_ST(setup_uc, teardown, uc_write),                    \
		TEST_CASE_ST(setup_two, teardown, peer_retry_exc),             \
		TEST_CASE_ST(setup_two_rnr2, teardown, peer_rnr_exc)

static const struct dpv_test_suite engine_fault_suite = {
	.name = "engine_fault",
	.setup = suite_setup,
	.teardown = suite_teardown,
	.cases = {CASES, TEST_CASES_END()},
};

static int
engine_fault(void)
{
	return dpv_test_run_suite(&engine_fault_suite);
}

static int
engine_fault_long(void)
{
	mb_per_case = 256;
	return dpv_test_run_suite(&engine_fault_suite);
}

DPV_TEST_REGISTER_FAST(engine_fault, engine_fault);
DPV_TEST_REGISTER_SLOW(engine_fault_long, engine_fault_long);
