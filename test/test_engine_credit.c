/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RC end-to-end credits (IBA 9.7.7.2) between two QPs of one engine on its
 * internal loopback wire: A sends, B receives. The frames on the wire are
 * read (and put back) between polls to see the credit field of B's ACKs.
 * White-box: the requester's limit is read from the engine's QP.
 *  - the AETH credit table, both ways;
 *  - B's ACKs advertise its receive WQEs (rounded down by the table) and
 *    A's limit is the ACK's MSN + that;
 *  - A stops at the limit (stalls counted, one probe at a time, not a
 *    stream of RNR-NAKed requests), resumes as B posts receives, and
 *    every message arrives once, in order;
 *  - B on an SRQ advertises nothing (0x1f, as rxe): no limit;
 *  - WRITE / READ / atomics are never held back, WRITE with immediate is;
 *  - packet-based credits count each packet of a multi-packet SEND.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "dpv_test.h"
#include "test_engine_util.h"
#include "dpv_engine.h"
#include "dpv_engine_opts.h"
#include "dpv_roce_gid.h"
#include "mlx5_ring.h"
#include "engine_int.h" /* white-box: the requester's credit limit */

#define PDN	 1
#define QPN_A	 0x21
#define QPN_B	 0x22
#define SRQN	 0x78
#define BUF_SIZE (64 * 1024)
#define POLLS	 20000 /* most polls a wait takes */

static struct rte_mempool *mp;
static struct dpv_engine *eng;
static struct test_engine_qp qa, qb;
static struct dpv_mlx5_rq srq;
static bool use_srq;
static uint8_t mac[6] = {0x02, 0, 0, 0, 0, 0x02};

/* What the wire carried (credit_sniff()). */
struct sniff {
	unsigned reqs;	    /* request packets to B */
	unsigned acks;	    /* ACK-type AETHs to A */
	uint8_t credit;	    /* credit field of the last one */
	uint32_t msn, psn;  /* its MSN and PSN */
	bool other_credits; /* an ACK's field was not 0x1f */
};

static struct dpv_mlx5_wq *
lookup(void *arg, uint32_t qpn, bool recv)
{
	static struct test_engine_qp *const pair[] = {&qa, &qb};

	RTE_SET_USED(arg);
	if (recv && qpn == (DPV_MLX5_LOOKUP_SRQ | SRQN))
		return &srq.wq;
	return test_engine_qp_wq(pair, RTE_DIM(pair), qpn, recv);
}

static int
suite_setup(void)
{
	return test_engine_pool_setup(&mp, "eng_credit_mp");
}

static void
suite_teardown(void)
{
	test_engine_pool_free(&mp);
}

static int
tqp_init(struct test_engine_qp *t, uint32_t qpn)
{
	struct dpv_engine_key k = {.length = BUF_SIZE,
				   .access = IBV_ACCESS_LOCAL_WRITE |
					     IBV_ACCESS_REMOTE_WRITE |
					     IBV_ACCESS_REMOTE_READ |
					     IBV_ACCESS_REMOTE_ATOMIC,
				   .pdn = PDN};
	int ret = test_engine_qp_create(eng, t, qpn, IBV_QPT_RC, PDN, BUF_SIZE,
					use_srq && qpn == QPN_B ? &srq : NULL,
					SRQN);

	if (ret != 0)
		return ret;
	t->key = ((qpn & 0xff) << 8) | 0x42;
	k.addr = k.iova = (uintptr_t)t->buf;
	return dpv_engine_key_set(eng, t->key, &k);
}

/* Engine, A and B connected (MTU 1024, RNR retries forever); opts of A
 * and B (DPV_QP_OPT_*) set before they reach RTS. */
static int
pair_setup(uint32_t opts)
{
	struct dpv_engine_conf conf = {.mp = mp, .max_keys = 256};
	struct dpv_engine_path path;
	struct test_engine_conn c = {
		.path = &path,
		.mtu = IBV_MTU_1024,
		.psn = 0xfffffe, /* PSNs wrap */
		.timeout = 14,
		.rnr_retry = 7,
	};

	memcpy(conf.mac, mac, 6);
	dpv_roce_gid_from_ipv4(conf.gid, rte_cpu_to_be_32(0xc0000202));
	eng = dpv_engine_create(NULL, &conf);
	if (eng == NULL)
		return -1;
	if (use_srq && dpv_mlx5_srq_init(&srq, 32, 1, SOCKET_ID_ANY))
		return -1;
	if (tqp_init(&qa, QPN_A) || tqp_init(&qb, QPN_B) ||
	    dpv_engine_qp_opts_set(eng, QPN_A, opts) ||
	    dpv_engine_qp_opts_set(eng, QPN_B, opts))
		return -1;
	test_engine_loop_path(&path, mac, 0xc0000202);
	c.dest_qpn = QPN_B;
	if (test_engine_connect(eng, QPN_A, &c))
		return -1;
	c.dest_qpn = QPN_A;
	return test_engine_connect(eng, QPN_B, &c);
}

static int
setup_msg(void)
{
	return pair_setup(0);
}

static int
setup_pkt(void)
{
	return pair_setup(DPV_QP_OPT_CREDIT_PKT);
}

static int
setup_srq(void)
{
	use_srq = true;
	return pair_setup(0);
}

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
}

/* Read the frames the last poll put on the loopback wire, then put them
 * back in the same order. */
static void
credit_sniff(struct sniff *s)
{
	void *objs[256];
	unsigned n = rte_ring_dequeue_burst(eng->loop, objs, RTE_DIM(objs),
					    NULL);

	for (unsigned i = 0; i < n; i++) {
		struct dpv_epkt p;

		if (dpv_engine_parse(objs[i], &p) != DPV_ROCE_RX_OK)
			continue;
		if (p.dqpn == QPN_B && (p.flags & DPV_OPF_REQ))
			s->reqs++;
		if (p.dqpn == QPN_A && (p.flags & DPV_OPF_AETH) &&
		    (p.syndrome & AETH_TYPE_MASK) == AETH_ACK) {
			s->acks++;
			s->credit = p.syndrome & 0x1f;
			s->msn = p.msn;
			s->psn = p.psn;
			if (s->credit != AETH_CREDIT_INVALID)
				s->other_credits = true;
		}
	}
	rte_ring_enqueue_burst(eng->loop, objs, n, NULL);
}

/* Poll the engine n times, reading the wire after each poll. */
static void
run(unsigned n, struct sniff *s)
{
	for (unsigned i = 0; i < n; i++) {
		dpv_engine_poll(eng, 32);
		credit_sniff(s);
	}
}

/* Poll until cq has a completion (bounded); 0 and *wc, or -1. */
static int
wait_wc(struct dpv_mlx5_cq *cq, struct ibv_wc *wc, struct sniff *s)
{
	for (unsigned i = 0; i < POLLS; i++) {
		int n = dpv_mlx5_cq_poll(cq, 1, wc, lookup, NULL);

		if (n != 0)
			return n == 1 ? 0 : -1;
		dpv_engine_poll(eng, 32);
		credit_sniff(s);
	}
	return -1;
}

static int
post_op(enum ibv_wr_opcode op, uint64_t wr_id, uint32_t off, uint32_t len,
	uint32_t roff)
{
	struct ibv_sge sge = {.addr = (uintptr_t)qa.buf + off,
			      .length = len,
			      .lkey = qa.key};
	struct ibv_send_wr wr = {.wr_id = wr_id,
				 .sg_list = &sge,
				 .num_sge = 1,
				 .opcode = op,
				 .send_flags = IBV_SEND_SIGNALED,
				 .imm_data = rte_cpu_to_be_32(0x1234)},
			   *bad;

	if (op == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		wr.wr.atomic.remote_addr = (uintptr_t)qb.buf + roff;
		wr.wr.atomic.rkey = qb.key;
		wr.wr.atomic.compare_add = 1;
	} else {
		wr.wr.rdma.remote_addr = (uintptr_t)qb.buf + roff;
		wr.wr.rdma.rkey = qb.key;
	}
	return dpv_mlx5_post_send(&qa.sq, IBV_QPT_RC, QPN_A, &wr, &bad);
}

/* B: a receive of len bytes at off of its buffer (its SRQ if it has
 * one). */
static int
post_recv(uint64_t wr_id, uint32_t off, uint32_t len)
{
	struct ibv_sge sge = {.addr = (uintptr_t)qb.buf + off,
			      .length = len,
			      .lkey = qb.key};
	struct ibv_recv_wr wr = {.wr_id = wr_id, .sg_list = &sge, .num_sge = 1},
			   *bad;

	return dpv_mlx5_post_recv(use_srq ? &srq : &qb.rq, &wr, &bad);
}

static void
fill(uint8_t *p, size_t n, uint8_t seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(seed + i * 7);
}

static struct dpv_eqp *
qp_a(void)
{
	return dpv_engine_qp_lookup(eng, QPN_A);
}

static void
stats(uint32_t qpn, struct dpv_engine_qp_stats *st)
{
	memset(st, 0, sizeof(*st));
	dpv_engine_qp_stats_get(eng, qpn, st);
}

/* The credit table of IBA 9.7.7.2, written out. */
static const uint32_t ibta_credits[31] = {
	0,    1,    2,	  3,	 4,	6,     8,     12,    16,    24,	   32,
	48,   64,   96,	  128,	 192,	256,   384,   512,   768,   1024,  1536,
	2048, 3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768,
};

static int
test_credit_table(void)
{
	for (uint8_t c = 0; c < 31; c++) {
		TEST_ASSERT_EQUAL(dpv_aeth_credit_decode(c), ibta_credits[c],
				  "code %u", c);
		TEST_ASSERT_EQUAL(dpv_aeth_credit_encode(ibta_credits[c]), c,
				  "value %u", ibta_credits[c]);
		/* the ACK type bits around it are not part of the count */
		TEST_ASSERT_EQUAL(dpv_aeth_credit_decode(AETH_ACK | c | 0x80),
				  ibta_credits[c], "");
	}
	TEST_ASSERT_EQUAL(dpv_aeth_credit_decode(0x1f), UINT32_MAX,
			  "invalid: no limit");
	for (uint32_t n = 0; n <= 70000; n++) {
		uint8_t c = dpv_aeth_credit_encode(n);

		TEST_ASSERT(c <= 30, "n %u: code %u", n, c);
		TEST_ASSERT(ibta_credits[c] <= n, "n %u: advertises %u", n,
			    ibta_credits[c]);
		TEST_ASSERT(c == 30 || ibta_credits[c + 1] > n,
			    "n %u: code %u not the largest", n, c);
	}
	TEST_ASSERT_EQUAL(dpv_aeth_credit_encode(UINT32_MAX), 30, "");
	return TEST_SUCCESS;
}

/*
 * Rounds of "B posts k receives, A sends one SEND": each ACK advertises
 * the receives left (rounded down by the table), and A's limit becomes
 * the ACK's MSN + that.
 */
static int
test_credit_adv(void)
{
	static const uint32_t k[] = {1, 3, 2, 10, 30};
	struct sniff s = {0};
	uint32_t left = 0, recvs = 0;
	struct ibv_wc wc;

	for (uint32_t r = 0; r < RTE_DIM(k); r++) {
		for (uint32_t i = 0; i < k[r]; i++, recvs++)
			TEST_ASSERT_EQUAL(post_recv(recvs, recvs * 64, 64), 0,
					  "");
		left += k[r];
		fill(qa.buf, 64, (uint8_t)r);
		TEST_ASSERT_EQUAL(post_op(IBV_WR_SEND, r, 0, 64, 0), 0, "");
		TEST_ASSERT_EQUAL(wait_wc(&qb.rcq, &wc, &s), 0, "round %u", r);
		TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "");
		TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc, &s), 0, "");
		TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "");
		left--;
		TEST_ASSERT_EQUAL(s.msn, r + 1, "MSN of the last ACK");
		TEST_ASSERT_EQUAL(s.credit, dpv_aeth_credit_encode(left),
				  "round %u: %u receives left, code %u", r,
				  left, s.credit);
		TEST_ASSERT(!qp_a()->req.credit_open, "limited");
		TEST_ASSERT_EQUAL(qp_a()->req.climit,
				  r + 1 + dpv_aeth_credit_decode(s.credit),
				  "round %u: limit", r);
	}
	return TEST_SUCCESS;
}

/* B has k receives and A 16 SENDs: A stops at the limit; B's receives come
 * in two more batches and every message arrives once, in order. */
static int
test_credit_stall_resume(void)
{
	enum { N = 16, K = 3 };
	struct dpv_engine_qp_stats sa, sb;
	struct sniff s = {0};
	struct ibv_wc wc;
	unsigned got = 0, posted = 0, sent = 0;

	for (unsigned i = 0; i < N; i++) {
		fill(qa.buf + i * 64, 64, (uint8_t)(i * 13));
		TEST_ASSERT_EQUAL(post_op(IBV_WR_SEND, 100 + i, i * 64, 64, 0),
				  0, "");
	}
	for (; posted < K; posted++)
		TEST_ASSERT_EQUAL(post_recv(posted, posted * 64, 64), 0, "");
	run(3000, &s);
	stats(QPN_A, &sa);
	stats(QPN_B, &sb);
	while (dpv_mlx5_cq_poll(&qb.rcq, 1, &wc, lookup, NULL) == 1) {
		TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "");
		TEST_ASSERT_EQUAL(wc.wr_id, got, "in order");
		got++;
	}
	TEST_ASSERT_EQUAL(got, K, "B received what it had receives for");
	TEST_ASSERT(sa.credit_stalls >= 1, "A stalled for credits");
	TEST_ASSERT(sa.credit_probes >= 1, "A probed");
	/* every request beyond B's receives was a lone probe, answered by
	 * an RNR NAK: not the rest of the queue after each one */
	TEST_ASSERT(s.reqs <= K + sb.rnr_naks_sent + 2,
		    "%u requests reached B, %" PRIu64 " RNR NAKs", s.reqs,
		    sb.rnr_naks_sent);
	while (dpv_mlx5_cq_poll(&qa.scq, 1, &wc, lookup, NULL) == 1) {
		TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "");
		TEST_ASSERT_EQUAL(wc.wr_id, 100 + sent, "");
		sent++;
	}
	TEST_ASSERT(sent <= K, "%u sends completed", sent);

	/* B posts the rest in two batches: A resumes */
	for (unsigned batch = 0; batch < 2; batch++) {
		unsigned upto = batch == 0 ? K + 5 : N;

		for (; posted < upto; posted++)
			TEST_ASSERT_EQUAL(post_recv(posted, posted * 64, 64),
					  0, "");
		while (got < upto) {
			TEST_ASSERT_EQUAL(wait_wc(&qb.rcq, &wc, &s), 0,
					  "message %u", got);
			TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "");
			TEST_ASSERT_EQUAL(wc.wr_id, got, "in order");
			TEST_ASSERT_EQUAL(wc.byte_len, 64, "");
			got++;
		}
	}
	while (sent < N) {
		TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc, &s), 0, "send %u",
				  sent);
		TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "");
		TEST_ASSERT_EQUAL(wc.wr_id, 100 + sent, "");
		sent++;
	}
	for (unsigned i = 0; i < N; i++)
		TEST_ASSERT_BUFFERS_EQUAL(qb.buf + i * 64, qa.buf + i * 64, 64,
					  "message %u", i);
	/* exactly once: nothing more comes */
	run(500, &s);
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_poll(&qb.rcq, 1, &wc, lookup, NULL), 0,
			  "no duplicate");
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_poll(&qa.scq, 1, &wc, lookup, NULL), 0,
			  "");
	TEST_ASSERT_EQUAL(dpv_engine_qp_state(eng, QPN_A), IBV_QPS_RTS, "");
	return TEST_SUCCESS;
}

/* B on an SRQ sends credit 0x1f (as rxe): after its first ACK A has no
 * limit. */
static int
test_credit_invalid_peer(void)
{
	struct dpv_engine_qp_stats st0, st1;
	struct sniff s = {0};
	struct ibv_wc wc;

	for (unsigned batch = 0; batch < 2; batch++) {
		stats(QPN_A, &st0);
		for (unsigned i = 0; i < 16; i++) {
			TEST_ASSERT_EQUAL(post_recv(i, i * 64, 64), 0, "");
			TEST_ASSERT_EQUAL(post_op(IBV_WR_SEND, i, i * 64, 64, 0),
					  0, "");
		}
		for (unsigned i = 0; i < 16; i++) {
			TEST_ASSERT_EQUAL(wait_wc(&qb.rcq, &wc, &s), 0, "");
			TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "");
			TEST_ASSERT_EQUAL(wc.wr_id, i, "");
		}
		for (unsigned i = 0; i < 16; i++) {
			TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc, &s), 0, "");
			TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "");
		}
		stats(QPN_A, &st1);
		if (batch == 1) {
			TEST_ASSERT_EQUAL(st1.credit_stalls, st0.credit_stalls,
					  "no limit");
			TEST_ASSERT_EQUAL(st1.credit_probes, st0.credit_probes,
					  "no probe");
		}
	}
	TEST_ASSERT(s.acks > 0, "");
	TEST_ASSERT(!s.other_credits, "every ACK said 0x1f");
	TEST_ASSERT(qp_a()->req.credit_open, "no limit");
	/* only the very first message went before any ACK was there */
	TEST_ASSERT(st1.credit_stalls <= 1 && st1.credit_probes == 1,
		    "stalls %" PRIu64 " probes %" PRIu64, st1.credit_stalls,
		    st1.credit_probes);
	return TEST_SUCCESS;
}

/* WRITE, READ and atomics take no receive WQE and are never held back;
 * WRITE with immediate is (it goes as the probe and waits for B). */
static int
test_credit_rdma_free(void)
{
	struct dpv_engine_qp_stats st;
	struct sniff s = {0};
	struct ibv_wc wc;

	fill(qa.buf, 4096, 3);
	for (unsigned i = 0; i < 8; i++)
		TEST_ASSERT_EQUAL(post_op(IBV_WR_RDMA_WRITE, i, 0, 2048,
					  8192 + i * 2048),
				  0, "");
	TEST_ASSERT_EQUAL(post_op(IBV_WR_RDMA_READ, 8, 32768, 1024, 8192), 0,
			  "");
	TEST_ASSERT_EQUAL(post_op(IBV_WR_ATOMIC_FETCH_AND_ADD, 9, 40000, 8, 0),
			  0, "");
	for (unsigned i = 0; i < 10; i++) {
		TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc, &s), 0, "wr %u", i);
		TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "wr %u", i);
		TEST_ASSERT_EQUAL(wc.wr_id, i, "");
	}
	stats(QPN_A, &st);
	TEST_ASSERT_EQUAL(st.credit_stalls, 0, "");
	TEST_ASSERT_EQUAL(st.credit_probes, 0, "");
	TEST_ASSERT(s.acks > 0 && s.credit == 0, "B advertises no receive");
	TEST_ASSERT_BUFFERS_EQUAL(qa.buf + 32768, qa.buf, 1024, "READ");

	/* two WRITEs with immediate, no receive: the first is the probe */
	TEST_ASSERT_EQUAL(post_op(IBV_WR_RDMA_WRITE_WITH_IMM, 10, 0, 64, 0), 0,
			  "");
	TEST_ASSERT_EQUAL(post_op(IBV_WR_RDMA_WRITE_WITH_IMM, 11, 0, 64, 64),
			  0, "");
	run(500, &s);
	stats(QPN_A, &st);
	TEST_ASSERT_EQUAL(st.credit_probes, 1, "");
	TEST_ASSERT_EQUAL(st.credit_stalls, 1, "the second waits");
	TEST_ASSERT(st.rnr_naks_rcvd > 0, "the probe found no receive");
	TEST_ASSERT_EQUAL(post_recv(1, 0, 64), 0, "");
	TEST_ASSERT_EQUAL(post_recv(2, 64, 64), 0, "");
	for (unsigned i = 0; i < 2; i++) {
		TEST_ASSERT_EQUAL(wait_wc(&qb.rcq, &wc, &s), 0, "");
		TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "");
		TEST_ASSERT_EQUAL(wc.opcode, IBV_WC_RECV_RDMA_WITH_IMM, "");
		TEST_ASSERT_EQUAL(wc.wr_id, 1 + i, "");
	}
	for (unsigned i = 0; i < 2; i++) {
		TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc, &s), 0, "");
		TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "");
		TEST_ASSERT_EQUAL(wc.wr_id, 10 + i, "");
	}
	return TEST_SUCCESS;
}

/*
 * B has 4 receives of 4 KiB, A sends 4 SENDs of 3 packets. Message-based,
 * the first ACK (3 credits) lets the other three go; packet-based, it lets
 * one message and one probe go, the fourth waits for more ACKs.
 */
static int
credit_multi_packet(bool pkt)
{
	struct dpv_engine_qp_stats sa, sb;
	struct sniff s = {0};
	struct ibv_wc wc;

	for (unsigned i = 0; i < 4; i++)
		TEST_ASSERT_EQUAL(post_recv(i, i * 4096, 4096), 0, "");
	for (unsigned i = 0; i < 4; i++) {
		fill(qa.buf + i * 4096, 2500, (uint8_t)(i + 1));
		TEST_ASSERT_EQUAL(
			post_op(IBV_WR_SEND, i, i * 4096, 2500, 0), 0, "");
	}
	for (unsigned i = 0; i < 4; i++) {
		TEST_ASSERT_EQUAL(wait_wc(&qb.rcq, &wc, &s), 0, "");
		TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "");
		TEST_ASSERT_EQUAL(wc.wr_id, i, "");
		TEST_ASSERT_EQUAL(wc.byte_len, 2500, "");
		TEST_ASSERT_BUFFERS_EQUAL(qb.buf + i * 4096, qa.buf + i * 4096,
					  2500, "");
	}
	for (unsigned i = 0; i < 4; i++) {
		TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc, &s), 0, "");
		TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "");
	}
	stats(QPN_A, &sa);
	stats(QPN_B, &sb);
	TEST_ASSERT_EQUAL(sb.rnr_naks_sent, 0, "never beyond B's receives");
	if (pkt) {
		TEST_ASSERT(sa.credit_stalls >= 2 && sa.credit_probes >= 2,
			    "packets count: stalls %" PRIu64
			    " probes %" PRIu64,
			    sa.credit_stalls, sa.credit_probes);
		TEST_ASSERT_EQUAL(qp_a()->req.climit,
				  dpv_psn_add(s.psn, dpv_aeth_credit_decode(
							     s.credit)),
				  "limit: the ACK's PSN + credits");
	} else {
		TEST_ASSERT(sa.credit_stalls == 1 && sa.credit_probes == 1,
			    "messages count: stalls %" PRIu64
			    " probes %" PRIu64,
			    sa.credit_stalls, sa.credit_probes);
		TEST_ASSERT_EQUAL(qp_a()->req.climit,
				  s.msn + dpv_aeth_credit_decode(s.credit),
				  "limit: the ACK's MSN + credits");
	}
	return TEST_SUCCESS;
}

static int
test_credit_msg_multi(void)
{
	return credit_multi_packet(false);
}

static int
test_credit_pkt_multi(void)
{
	return credit_multi_packet(true);
}

static const struct dpv_test_suite credit_suite = {
	.name = "engine end-to-end credits",
	.setup = suite_setup,
	.teardown = suite_teardown,
	.cases =
		{
			TEST_CASE(test_credit_table),
			TEST_CASE_ST(setup_msg, teardown, test_credit_adv),
			TEST_CASE_ST(setup_msg, teardown,
				     test_credit_stall_resume),
			TEST_CASE_ST(setup_srq, teardown,
				     test_credit_invalid_peer),
			TEST_CASE_ST(setup_msg, teardown,
				     test_credit_rdma_free),
			TEST_CASE_ST(setup_msg, teardown,
				     test_credit_msg_multi),
			TEST_CASE_ST(setup_pkt, teardown,
				     test_credit_pkt_multi),
			TEST_CASES_END(),
		},
};

static int
test_engine_credit(void)
{
	return dpv_test_run_suite(&credit_suite);
}

DPV_TEST_REGISTER_FAST(engine_credit, test_engine_credit);
