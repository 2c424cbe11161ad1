/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Engine RC between two QPs on the loopback wire: READ/atomic credits (the
 * responder keeps max_dest_rd_atomic saved READ/atomic entries, 0: no
 * READ/atomic accepted, answers duplicates from them and never executes
 * an atomic twice), and the ACK hold of application polls.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_mbuf.h>

#include "dpv_engine.h"
#include "dpv_roce.h"
#include "dpv_test.h"
#include "engine_int.h" /* white-box: the responder's ring, dpv_ehdr */
#include "mlx5_ring.h"
#include "test_engine_util.h"

#define PDN	 1
#define QPN_A	 0x21
#define QPN_B	 0x22
#define BUF_SIZE 16384
#define MAX_ITER 20000

static struct rte_mempool *mp;
static struct dpv_engine *eng;
static struct test_engine_qp qa, qb;
/* a second pair, C (requester) and D, for the tests that need one */
#define QPN_C 0x23
#define QPN_D 0x24
static struct test_engine_qp qc, qd;
static bool use_cd;
static uint8_t mac[6] = {0x02, 0, 0, 0, 0, 0x03};

static struct dpv_mlx5_wq *
lookup(void *arg, uint32_t qpn, bool recv)
{
	static struct test_engine_qp *const pair[] = {&qa, &qb, &qc, &qd};

	RTE_SET_USED(arg);
	return test_engine_qp_wq(pair, RTE_DIM(pair), qpn, recv);
}

static int
suite_setup(void)
{
	/* 4,096: more frames than a lone post sends may wait in the loop
	 * ring (test_lone_post_frames) */
	return test_engine_pool_setup_n(&mp, "eng_rda_mp", 4096);
}

static void
suite_teardown(void)
{
	test_engine_pool_free(&mp);
}

static int
rqp_init(struct test_engine_qp *t, uint32_t qpn, uint32_t key)
{
	struct dpv_engine_qp_init init = {
		.qpn = qpn,
		.type = IBV_QPT_RC,
		.pdn = PDN,
		.sq = &t->sq,
		.rq = &t->rq,
		.send_cq = &t->scq,
		.recv_cq = &t->rcq,
		.max_send_wr = 64,
	};
	struct dpv_engine_key k = {
		.length = BUF_SIZE,
		.access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			  IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC,
		.pdn = PDN,
	};

	if (test_engine_qp_rings_init(t, qpn, IBV_QPT_RC, BUF_SIZE))
		return -1;
	k.addr = k.iova = (uintptr_t)t->buf;
	t->key = key;
	if (dpv_engine_key_set(eng, key, &k) != 0)
		return -1;
	return dpv_engine_qp_create(eng, &init);
}

/* the path MTU of the next setup (setup_2_2_mtu256 lowers it) */
static enum ibv_mtu setup_mtu = IBV_MTU_1024;

/* Connect requester x <-> responder y (local ACK timeout to), then set
 * x's max_rd_atomic and y's max_dest_rd_atomic. */
static int
connect_pair(uint32_t x, uint32_t y, uint8_t rd, uint8_t dest, uint8_t to)
{
	struct dpv_engine_path path;
	struct test_engine_conn c = {
		.path = &path,
		.mtu = setup_mtu,
		.psn = 0xfffff8, /* PSNs wrap during the tests */
		.timeout = to,
		.rnr_retry = 7,
	};
	struct ibv_qp_attr a = {0};

	test_engine_loop_path(&path, mac, 0xc0000203);
	c.dest_qpn = y;
	if (test_engine_connect(eng, x, &c))
		return -1;
	c.dest_qpn = x;
	if (test_engine_connect(eng, y, &c))
		return -1;
	a.max_rd_atomic = rd;
	a.max_dest_rd_atomic = dest;
	if (dpv_engine_qp_modify(eng, x, &a, IBV_QP_MAX_QP_RD_ATOMIC, NULL) ||
	    dpv_engine_qp_modify(eng, y, &a, IBV_QP_MAX_DEST_RD_ATOMIC, NULL))
		return -1;
	return 0;
}

/* Connect A <-> B (local ACK timeout to), then set A's max_rd_atomic and
 * B's max_dest_rd_atomic. */
static int
setup_credits_to(uint8_t rd, uint8_t dest, uint8_t to)
{
	struct dpv_engine_conf conf = {.mp = mp, .max_keys = 256};

	memcpy(conf.mac, mac, 6);
	dpv_roce_gid_from_ipv4(conf.gid, rte_cpu_to_be_32(0xc0000203));
	eng = dpv_engine_create(NULL, &conf);
	if (eng == NULL)
		return -1;
	if (rqp_init(&qa, QPN_A, 0x142) || rqp_init(&qb, QPN_B, 0x242))
		return -1;
	return connect_pair(QPN_A, QPN_B, rd, dest, to);
}

static int
setup_credits(uint8_t rd, uint8_t dest)
{
	return setup_credits_to(rd, dest, 4); /* 65 us */
}

/* 8 READ/atomic credits, a 1 s ACK timeout: a test that counts
 * retransmissions sees none that a slow machine caused */
static int
setup_8_8_slow(void)
{
	return setup_credits_to(8, 8, 18);
}

static int
setup_dest0(void)
{
	return setup_credits(1, 0);
}

static int
setup_2_2(void)
{
	return setup_credits(2, 2);
}

/* 256-byte frames: a message of more frames than a pass's budget fits
 * the test's buffers */
static int
setup_2_2_mtu256(void)
{
	int rc;

	setup_mtu = IBV_MTU_256;
	rc = setup_credits(2, 2);
	setup_mtu = IBV_MTU_1024;
	return rc;
}

/* A-B and C-D, 256-byte frames, 8 READ credits, a 1 s ACK timeout */
static int
setup_two_pairs(void)
{
	int rc;

	setup_mtu = IBV_MTU_256;
	rc = setup_credits_to(8, 8, 18);
	if (rc == 0) {
		use_cd = true;
		rc = rqp_init(&qc, QPN_C, 0x342) ||
				     rqp_init(&qd, QPN_D, 0x442) ||
				     connect_pair(QPN_C, QPN_D, 8, 8, 18)
			     ? -1
			     : 0;
	}
	setup_mtu = IBV_MTU_1024;
	return rc;
}

static void
teardown(void)
{
	if (eng == NULL)
		return;
	if (use_cd) {
		test_engine_qp_fini(eng, &qc);
		test_engine_qp_fini(eng, &qd);
		use_cd = false;
	}
	test_engine_qp_fini(eng, &qa);
	test_engine_qp_fini(eng, &qb);
	dpv_engine_destroy(eng);
	eng = NULL;
}

static int
post(enum ibv_wr_opcode op, uint64_t wr_id, uint32_t off, uint32_t len,
     uint64_t raddr, uint64_t add)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)qa.buf + off, .length = len, .lkey = qa.key};
	struct ibv_send_wr wr = {.wr_id = wr_id,
				 .sg_list = &sge,
				 .num_sge = 1,
				 .opcode = op,
				 .send_flags = IBV_SEND_SIGNALED},
			   *bad;

	if (op == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		wr.wr.atomic.remote_addr = raddr;
		wr.wr.atomic.rkey = qb.key;
		wr.wr.atomic.compare_add = add;
	} else {
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = qb.key;
	}
	return dpv_mlx5_post_send(&qa.sq, IBV_QPT_RC, QPN_A, &wr, &bad);
}

/* B: an RDMA WRITE of 64 bytes into A's buffer. */
static int
post_b_write(uint64_t wr_id)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)qb.buf, .length = 64, .lkey = qb.key};
	struct ibv_send_wr wr = {.wr_id = wr_id,
				 .sg_list = &sge,
				 .num_sge = 1,
				 .opcode = IBV_WR_RDMA_WRITE,
				 .send_flags = IBV_SEND_SIGNALED},
			   *bad;

	wr.wr.rdma.remote_addr = (uintptr_t)qa.buf + 256;
	wr.wr.rdma.rkey = qa.key;
	return dpv_mlx5_post_send(&qb.sq, IBV_QPT_RC, QPN_B, &wr, &bad);
}

static int
wait_wc(struct dpv_mlx5_cq *cq, struct ibv_wc *wc)
{
	return test_engine_wait_wc(eng, cq, wc, lookup, MAX_ITER);
}

/* max_dest_rd_atomic = 0: the responder answers NAK Invalid Request. */
static int
check_dest0(enum ibv_wr_opcode op)
{
	struct dpv_engine_qp_stats qs;
	struct dpv_engine_stats st;
	struct ibv_wc wc;
	uint64_t v = 5;

	memcpy(qb.buf, &v, 8);
	TEST_ASSERT_EQUAL(post(op, 9, 0, 8, (uintptr_t)qb.buf, 1), 0, "");
	TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc), 0, "no completion");
	TEST_ASSERT_EQUAL(wc.wr_id, 9, "");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_REM_INV_REQ_ERR, "status %d",
			  wc.status);
	memcpy(&v, qb.buf, 8);
	TEST_ASSERT_EQUAL(v, 5, "not executed");
	/* the NAK is counted by type, per device and per QP */
	dpv_engine_stats_get(eng, &st);
	TEST_ASSERT_EQUAL(st.inv_req_naks_sent, 1, "");
	TEST_ASSERT_EQUAL(st.inv_req_naks_rcvd, 1, "");
	TEST_ASSERT_EQUAL(st.rem_access_naks_sent + st.rem_op_naks_sent, 0, "");
	TEST_ASSERT_EQUAL(dpv_engine_qp_stats_get(eng, QPN_B, &qs), 0, "");
	TEST_ASSERT_EQUAL(qs.inv_req_naks_sent, 1, "responder QP");
	TEST_ASSERT_EQUAL(qs.inv_req_naks_rcvd, 0, "");
	TEST_ASSERT(qs.rx_pkts >= 1, "");
	TEST_ASSERT_EQUAL(dpv_engine_qp_stats_get(eng, QPN_A, &qs), 0, "");
	TEST_ASSERT_EQUAL(qs.inv_req_naks_rcvd, 1, "requester QP");
	TEST_ASSERT_EQUAL(qs.inv_req_naks_sent, 0, "");
	TEST_ASSERT_EQUAL(dpv_engine_qp_stats_get(eng, 0x999, &qs), -ENOENT,
			  "");
	return TEST_SUCCESS;
}

static int
test_dest0_read(void)
{
	return check_dest0(IBV_WR_RDMA_READ);
}

static int
test_dest0_atomic(void)
{
	return check_dest0(IBV_WR_ATOMIC_FETCH_AND_ADD);
}

/* Log what a lossy run did (and two counters of its own); the wire must
 * have lost frames. */
static int
loss_report(const struct dpv_engine_stats *st, const char *n1, uint64_t v1,
	    const char *n2, uint64_t v2)
{
	DPV_TEST_LOG("lost %" PRIu64 ", retransmits %" PRIu64 ", dup %" PRIu64
		     ", %s %" PRIu64 ", %s %" PRIu64,
		     st->tx_drop_injected, st->retransmits, st->dup_requests,
		     n1, v1, n2, v2);
	TEST_ASSERT(st->tx_drop_injected > 0, "the wire lost frames");
	return TEST_SUCCESS;
}

/*
 * The FETCH_ADDs of ops first, first + 2, ... 15, op m adding 1 << m to
 * word: each returned the sum of those before it (into orig, stride bytes
 * apart) and word holds them all, each added once.
 */
static int
check_fetch_adds(int first, const uint8_t *orig, size_t stride,
		 const uint8_t *word)
{
	uint64_t sum = 0, v;

	for (int m = first; m < 16; m += 2, orig += stride) {
		memcpy(&v, orig, 8);
		TEST_ASSERT_EQUAL(v, sum, "atomic %d original", m);
		sum += 1ull << m;
	}
	memcpy(&v, word, 8);
	TEST_ASSERT_EQUAL(v, sum, "each atomic executed once");
	return TEST_SUCCESS;
}

/*
 * 16 READs and atomics pipelined with 2 credits through a wire losing every
 * 5th frame: each atomic adds its own bit, so a second execution would show
 * in the final value and in the originals returned.
 */
static int
test_loss_pipeline(void)
{
	struct dpv_engine_stats st;
	struct ibv_wc wc;

	for (uint32_t i = 0; i < 8 * 1500; i++)
		qb.buf[4096 + i] = (uint8_t)(i * 7 + 3);
	dpv_engine_inject_tx_loss(eng, 5);
	for (int m = 0; m < 16; m++) {
		if (m & 1)
			TEST_ASSERT_EQUAL(post(IBV_WR_ATOMIC_FETCH_AND_ADD, m,
					       m * 8, 8, (uintptr_t)qb.buf,
					       1ull << m),
					  0, "");
		else
			TEST_ASSERT_EQUAL(
				post(IBV_WR_RDMA_READ, m, 4096 + m * 750, 1500,
				     (uintptr_t)qb.buf + 4096 + m * 750, 0),
				0, "");
	}
	for (int m = 0; m < 16; m++) {
		TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc), 0, "op %d", m);
		TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "op %d status %d",
				  m, wc.status);
		TEST_ASSERT_EQUAL(wc.wr_id, (uint64_t)m, "in order");
	}
	TEST_ASSERT_EQUAL(check_fetch_adds(1, qa.buf + 8, 16, qb.buf),
			  TEST_SUCCESS, "");
	TEST_ASSERT_BUFFERS_EQUAL(qa.buf + 4096, qb.buf + 4096, 16 * 750,
				  "reads");
	dpv_engine_stats_get(eng, &st);
	TEST_ASSERT_EQUAL(loss_report(&st, "recycled", st.rd_atomic_recycled,
				      "dup dropped", st.dup_rd_atomic_dropped),
			  TEST_SUCCESS, "");
	TEST_ASSERT(st.rd_atomic_recycled > 0, "the ring was recycled");
	return TEST_SUCCESS;
}

/* Send the request h with len bytes of payload as QP A would (a
 * duplicate, a malformed one) and run the engine; the number of frames
 * the engine sent. */
static int
inject_req(const struct dpv_ehdr *h, const void *payload, uint32_t len,
	   uint64_t *frames)
{
	struct dpv_eqp *a = dpv_engine_qp_lookup(eng, QPN_A);
	struct dpv_engine_stats s0, s1;
	struct rte_mbuf *m;
	uint8_t *pl;

	if (a == NULL)
		return -1;
	dpv_engine_stats_get(eng, &s0);
	m = dpv_engine_build(eng, &a->path, NULL, h, len, &pl);
	if (m == NULL)
		return -1;
	if (len != 0)
		memcpy(pl, payload, len);
	dpv_engine_tx(eng, m);
	dpv_engine_tx_flush(eng);
	for (int i = 0; i < 64; i++)
		dpv_engine_poll(eng, 32);
	dpv_engine_stats_get(eng, &s1);
	*frames = s1.tx_pkts - s0.tx_pkts;
	return 0;
}

/* A duplicate FETCH_ADD, as inject_req(). */
static int
dup_atomic(uint32_t psn, uint64_t *frames)
{
	struct dpv_ehdr h = {
		.opcode = DPV_ROCE_OP_FETCH_ADD,
		.ackreq = true,
		.dqpn = QPN_B,
		.psn = psn,
		.va = (uintptr_t)qb.buf,
		.rkey = qb.key,
		.dmalen = 8,
		.swap_add = 1000,
	};

	return inject_req(&h, NULL, 0, frames);
}

/*
 * Three atomics through a ring of 2: the first entry is recycled. A
 * duplicate of the second is answered from the ring without executing; a
 * duplicate of the first (no longer held) is dropped, not executed.
 */
static int
test_dup_after_recycle(void)
{
	struct dpv_eqp *b = dpv_engine_qp_lookup(eng, QPN_B);
	struct dpv_engine_stats st0, st1;
	struct ibv_wc wc;
	uint32_t psn[3] = {0};
	uint64_t v, frames;
	bool found[3] = {false};

	TEST_ASSERT_NOT_NULL(b, "");
	for (int m = 0; m < 3; m++)
		TEST_ASSERT_EQUAL(post(IBV_WR_ATOMIC_FETCH_AND_ADD, m, m * 8, 8,
				       (uintptr_t)qb.buf, 1),
				  0, "");
	for (int m = 0; m < 3; m++) {
		TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc), 0, "atomic %d", m);
		TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "status %d",
				  wc.status);
		memcpy(&v, qa.buf + m * 8, 8);
		TEST_ASSERT_EQUAL(v, (uint64_t)m, "original %d", m);
	}
	TEST_ASSERT_EQUAL(b->resp.res_n, 2, "ring of max_dest_rd_atomic");
	/* the two entries held are the atomics returning 1 and 2 */
	for (int i = 0; i < 2; i++) {
		struct dpv_eres *r = &b->resp.res[i];

		TEST_ASSERT_EQUAL(r->kind, 2, "atomic entry");
		TEST_ASSERT(r->orig == 1 || r->orig == 2, "orig %" PRIu64,
			    r->orig);
		psn[r->orig] = r->first;
		found[r->orig] = true;
	}
	TEST_ASSERT(found[1] && found[2], "");
	psn[0] = dpv_psn_add(psn[1], DPV_ROCE_PSN_MASK); /* psn[1] - 1 */

	dpv_engine_stats_get(eng, &st0);
	TEST_ASSERT(st0.rd_atomic_recycled >= 1, "recycled");
	TEST_ASSERT_EQUAL(dup_atomic(psn[1], &frames), 0, "");
	dpv_engine_stats_get(eng, &st1);
	TEST_ASSERT_EQUAL(st1.dup_requests, st0.dup_requests + 1, "");
	TEST_ASSERT_EQUAL(st1.dup_rd_atomic_dropped, st0.dup_rd_atomic_dropped,
			  "answered from the ring");
	TEST_ASSERT_EQUAL(frames, 2, "request + atomic ACK, got %" PRIu64,
			  frames);
	memcpy(&v, qb.buf, 8);
	TEST_ASSERT_EQUAL(v, 3, "not executed again");

	TEST_ASSERT_EQUAL(dup_atomic(psn[0], &frames), 0, "");
	dpv_engine_stats_get(eng, &st0);
	TEST_ASSERT_EQUAL(st0.dup_rd_atomic_dropped,
			  st1.dup_rd_atomic_dropped + 1, "recycled: dropped");
	TEST_ASSERT_EQUAL(frames, 1, "no answer, got %" PRIu64, frames);
	memcpy(&v, qb.buf, 8);
	TEST_ASSERT_EQUAL(v, 3, "not executed again");

	/* the QPs still work */
	TEST_ASSERT_EQUAL(post(IBV_WR_ATOMIC_FETCH_AND_ADD, 7, 64, 8,
			       (uintptr_t)qb.buf, 1),
			  0, "");
	TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc), 0, "");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "");
	memcpy(&v, qb.buf, 8);
	TEST_ASSERT_EQUAL(v, 4, "");
	return TEST_SUCCESS;
}

/* A: an ATOMIC WRITE of v (its bytes as they are in memory) at raddr of
 * key rkey, through the ibv_wr_* builder (struct ibv_send_wr has no place
 * for its 8 bytes). */
static int
post_aw_key(uint64_t wr_id, uint64_t raddr, uint32_t rkey, uint64_t v)
{
	int rc;

	dpv_mlx5_wr_start(&qa.sq, IBV_QPT_RC, QPN_A);
	rc = dpv_mlx5_wr_op(&qa.sq, wr_id, IBV_SEND_SIGNALED,
			    IBV_WR_ATOMIC_WRITE);
	if (rc == 0)
		dpv_mlx5_wr_atomic_write(&qa.sq, rkey, raddr, &v);
	rc = dpv_mlx5_wr_complete(&qa.sq);
	return rc;
}

static int
post_aw(uint64_t wr_id, uint64_t raddr, uint64_t v)
{
	return post_aw_key(wr_id, raddr, qb.key, v);
}

/* An ATOMIC WRITE, wait for its completion: its status (and opcode). */
static int
aw_status(uint64_t raddr, uint32_t rkey, uint64_t v, enum ibv_wc_opcode *op)
{
	struct ibv_wc wc;

	if (post_aw_key(77, raddr, rkey, v) != 0 ||
	    wait_wc(&qa.scq, &wc) != 0 || wc.wr_id != 77)
		return -1;
	if (op != NULL)
		*op = wc.opcode;
	return wc.status;
}

/*
 * ATOMIC WRITE: 64 bytes of data by RDMA WRITE, then an 8-byte flag by
 * ATOMIC WRITE: both land, the flag's bytes as they were, and the send
 * completion says IBV_WC_ATOMIC_WRITE. The request is one frame and its
 * answer an empty READ response; the ring keeps an entry for it.
 */
static int
test_atomic_write(void)
{
	struct dpv_eqp *b = dpv_engine_qp_lookup(eng, QPN_B);
	const uint64_t flag = 0x0102030405060708ull;
	struct dpv_engine_qp_stats qs;
	enum ibv_wc_opcode op = IBV_WC_SEND;
	struct ibv_wc wc;
	uint64_t v;
	bool held = false;

	TEST_ASSERT_NOT_NULL(b, "");
	for (int i = 0; i < 64; i++)
		qa.buf[1024 + i] = (uint8_t)(i * 5 + 1);
	TEST_ASSERT_EQUAL(post(IBV_WR_RDMA_WRITE, 1, 1024, 64,
			       (uintptr_t)qb.buf + 1024, 0),
			  0, "");
	TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc), 0, "");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "");
	TEST_ASSERT_EQUAL(
		aw_status((uintptr_t)qb.buf + 1088, qb.key, flag, &op),
		IBV_WC_SUCCESS, "");
	TEST_ASSERT_EQUAL(op, IBV_WC_ATOMIC_WRITE, "opcode %d", op);
	/* struct ibv_send_wr has no place for its 8 bytes */
	TEST_ASSERT_EQUAL(
		post(IBV_WR_ATOMIC_WRITE, 3, 0, 8, (uintptr_t)qb.buf + 1088, 0),
		EINVAL, "ibv_post_send");
	TEST_ASSERT_BUFFERS_EQUAL(qb.buf + 1024, qa.buf + 1024, 64, "data");
	memcpy(&v, qb.buf + 1088, 8);
	TEST_ASSERT_EQUAL(v, flag, "flag %" PRIx64, v);
	for (int i = 0; i < b->resp.res_n; i++)
		held |= b->resp.res[i].kind == 3;
	TEST_ASSERT(held, "an entry for duplicates");
	TEST_ASSERT_EQUAL(dpv_engine_qp_stats_get(eng, QPN_A, &qs), 0, "");
	TEST_ASSERT_EQUAL(qs.retransmits, 0, "");
	/* eight in a row, with 2 credits: each completes, in order */
	for (int m = 0; m < 8; m++)
		TEST_ASSERT_EQUAL(
			post_aw(m, (uintptr_t)qb.buf + 2048 + m * 8, 1000 + m),
			0, "");
	for (int m = 0; m < 8; m++) {
		TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc), 0, "%d", m);
		TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "");
		TEST_ASSERT_EQUAL(wc.wr_id, (uint64_t)m, "in order");
		memcpy(&v, qb.buf + 2048 + m * 8, 8);
		TEST_ASSERT_EQUAL(v, 1000u + m, "");
	}
	return TEST_SUCCESS;
}

/*
 * What the responder refuses, each ending the connection with a NAK and
 * nothing written: an address not 8-byte aligned (Invalid Request), a key
 * without remote write (Remote Access), a QP without remote write
 * (Invalid Request).
 */
static int
aw_refused(int which)
{
	struct dpv_engine_key k = {
		.length = BUF_SIZE,
		.access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
			  IBV_ACCESS_REMOTE_ATOMIC,
		.pdn = PDN,
	};
	uint64_t raddr = (uintptr_t)qb.buf + 512, v;
	uint32_t rkey = qb.key;
	int want = IBV_WC_REM_INV_REQ_ERR;

	memset(qb.buf + 500, 0x5a, 32);
	if (which == 0) {
		raddr += 4;
	} else if (which == 1) {
		k.addr = k.iova = (uintptr_t)qb.buf;
		rkey = 0x343;
		TEST_ASSERT_EQUAL(dpv_engine_key_set(eng, rkey, &k), 0, "");
		want = IBV_WC_REM_ACCESS_ERR;
	} else {
		struct ibv_qp_attr a = {.qp_access_flags =
						IBV_ACCESS_REMOTE_READ |
						IBV_ACCESS_REMOTE_ATOMIC};

		TEST_ASSERT_EQUAL(dpv_engine_qp_modify(eng, QPN_B, &a,
						       IBV_QP_ACCESS_FLAGS,
						       NULL),
				  0, "");
	}
	TEST_ASSERT_EQUAL(aw_status(raddr, rkey, 0x1111111111111111ull, NULL),
			  want, "case %d", which);
	for (int i = 0; i < 32; i += 8) {
		memcpy(&v, qb.buf + 500 + i, 8);
		TEST_ASSERT_EQUAL(v, 0x5a5a5a5a5a5a5a5aull, "written");
	}
	return TEST_SUCCESS;
}

static int
test_aw_misaligned(void)
{
	return aw_refused(0);
}

static int
test_aw_key(void)
{
	return aw_refused(1);
}

static int
test_aw_qp_access(void)
{
	return aw_refused(2);
}

/* max_dest_rd_atomic = 0: an ATOMIC WRITE is refused as a READ is. */
static int
test_dest0_atomic_write(void)
{
	uint64_t v;

	memset(qb.buf, 0, 8);
	TEST_ASSERT_EQUAL(aw_status((uintptr_t)qb.buf, qb.key, 42, NULL),
			  IBV_WC_REM_INV_REQ_ERR, "");
	memcpy(&v, qb.buf, 8);
	TEST_ASSERT_EQUAL(v, 0, "not written");
	return TEST_SUCCESS;
}

/* Send an ATOMIC WRITE of v as QP A would (a duplicate when psn is old),
 * or one whose payload is len bytes long, and run the engine; the frames
 * the engine sent. */
static int
raw_aw(uint32_t psn, uint64_t v, uint32_t len, uint64_t *frames)
{
	struct dpv_ehdr h = {
		.opcode = DPV_ROCE_OP_ATOMIC_WRITE,
		.ackreq = true,
		.dqpn = QPN_B,
		.psn = psn,
		.va = (uintptr_t)qb.buf,
		.rkey = qb.key,
		.dmalen = 8,
	};
	uint8_t val[16] = {0};

	memcpy(val, &v, 8);
	return inject_req(&h, val, len, frames);
}

/*
 * A duplicate ATOMIC WRITE is answered from the responder's ring and not
 * written again (the word holds what a later WRITE put there); one older
 * than the ring is dropped. An ATOMIC WRITE of 4 or 12 bytes is refused
 * (Invalid Request).
 */
static int
test_aw_dup(void)
{
	struct dpv_eqp *b = dpv_engine_qp_lookup(eng, QPN_B);
	struct dpv_engine_stats st0, st1;
	uint32_t psn = 0;
	uint64_t v, frames;
	struct ibv_wc wc;

	TEST_ASSERT_NOT_NULL(b, "");
	TEST_ASSERT_EQUAL(aw_status((uintptr_t)qb.buf, qb.key, 7, NULL),
			  IBV_WC_SUCCESS, "");
	for (int i = 0; i < b->resp.res_n; i++)
		if (b->resp.res[i].kind == 3)
			psn = b->resp.res[i].first;
	/* a WRITE over it, then the duplicate: the WRITE's bytes stay */
	memset(qa.buf, 0x33, 8);
	TEST_ASSERT_EQUAL(
		post(IBV_WR_RDMA_WRITE, 2, 0, 8, (uintptr_t)qb.buf, 0), 0, "");
	TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc), 0, "");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "");
	dpv_engine_stats_get(eng, &st0);
	TEST_ASSERT_EQUAL(raw_aw(psn, 9, 8, &frames), 0, "");
	dpv_engine_stats_get(eng, &st1);
	TEST_ASSERT_EQUAL(st1.dup_requests, st0.dup_requests + 1, "");
	TEST_ASSERT_EQUAL(st1.dup_rd_atomic_dropped, st0.dup_rd_atomic_dropped,
			  "answered from the ring");
	TEST_ASSERT_EQUAL(frames, 2,
			  "request + empty READ response, got %" PRIu64,
			  frames);
	memcpy(&v, qb.buf, 8);
	TEST_ASSERT_EQUAL(v, 0x3333333333333333ull, "not written again");
	/* older than anything the ring holds: dropped */
	TEST_ASSERT_EQUAL(raw_aw(dpv_psn_add(psn, 0xfffff0), 9, 8, &frames), 0,
			  "");
	dpv_engine_stats_get(eng, &st0);
	TEST_ASSERT_EQUAL(st0.dup_rd_atomic_dropped,
			  st1.dup_rd_atomic_dropped + 1, "dropped");
	TEST_ASSERT_EQUAL(frames, 1, "no answer");
	memcpy(&v, qb.buf, 8);
	TEST_ASSERT_EQUAL(v, 0x3333333333333333ull, "not written");
	/* the next PSN, but 4 bytes: Invalid Request, nothing written */
	TEST_ASSERT_EQUAL(raw_aw(b->resp.epsn, 9, 4, &frames), 0, "");
	dpv_engine_stats_get(eng, &st1);
	TEST_ASSERT_EQUAL(st1.inv_req_naks_sent, st0.inv_req_naks_sent + 1, "");
	memcpy(&v, qb.buf, 8);
	TEST_ASSERT_EQUAL(v, 0x3333333333333333ull, "not written");
	return TEST_SUCCESS;
}

/*
 * ATOMIC WRITEs and READs pipelined with 2 credits through a wire losing
 * every 5th frame: every one completes in order, each word holds its
 * value, the READs their data.
 */
static int
test_aw_loss(void)
{
	struct dpv_engine_stats st;
	struct ibv_wc wc;
	uint64_t v;

	for (uint32_t i = 0; i < 8 * 1500; i++)
		qb.buf[4096 + i] = (uint8_t)(i * 3 + 1);
	dpv_engine_inject_tx_loss(eng, 5);
	for (int m = 0; m < 16; m++) {
		if (m & 1)
			TEST_ASSERT_EQUAL(post_aw(m, (uintptr_t)qb.buf + m * 8,
						  0xa0a0a0a000000000ull + m),
					  0, "");
		else
			TEST_ASSERT_EQUAL(
				post(IBV_WR_RDMA_READ, m, 4096 + m * 750, 1500,
				     (uintptr_t)qb.buf + 4096 + m * 750, 0),
				0, "");
	}
	for (int m = 0; m < 16; m++) {
		TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc), 0, "op %d", m);
		TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "op %d status %d",
				  m, wc.status);
		TEST_ASSERT_EQUAL(wc.wr_id, (uint64_t)m, "in order");
		TEST_ASSERT_EQUAL(
			wc.opcode,
			(m & 1) ? IBV_WC_ATOMIC_WRITE : IBV_WC_RDMA_READ, "");
	}
	for (int m = 1; m < 16; m += 2) {
		memcpy(&v, qb.buf + m * 8, 8);
		TEST_ASSERT_EQUAL(v, 0xa0a0a0a000000000ull + m, "word %d", m);
	}
	TEST_ASSERT_BUFFERS_EQUAL(qa.buf + 4096, qb.buf + 4096, 16 * 750,
				  "reads");
	dpv_engine_stats_get(eng, &st);
	return loss_report(&st, "recycled", st.rd_atomic_recycled,
			   "dup dropped", st.dup_rd_atomic_dropped);
}

static int
setup_rd0(void)
{
	return setup_credits(0, 2);
}

/* max_rd_atomic = 0 counts as 1 (mlx5 keeps its minimum of 1): READs and
 * atomics still complete, one at a time. */
static int
test_rd0(void)
{
	struct dpv_eqp *a = dpv_engine_qp_lookup(eng, QPN_A);
	struct ibv_wc wc;
	uint64_t v;

	TEST_ASSERT_NOT_NULL(a, "");
	TEST_ASSERT_EQUAL(a->max_rd_atomic, 1, "");
	for (uint32_t i = 0; i < 2000; i++)
		qb.buf[4096 + i] = (uint8_t)(i + 9);
	TEST_ASSERT_EQUAL(post(IBV_WR_RDMA_READ, 1, 4096, 2000,
			       (uintptr_t)qb.buf + 4096, 0),
			  0, "");
	TEST_ASSERT_EQUAL(post(IBV_WR_ATOMIC_FETCH_AND_ADD, 2, 0, 8,
			       (uintptr_t)qb.buf, 5),
			  0, "");
	for (uint64_t m = 1; m <= 2; m++) {
		TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc), 0, "");
		TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "status %d",
				  wc.status);
		TEST_ASSERT_EQUAL(wc.wr_id, m, "");
	}
	TEST_ASSERT_BUFFERS_EQUAL(qa.buf + 4096, qb.buf + 4096, 2000, "");
	memcpy(&v, qb.buf, 8);
	TEST_ASSERT_EQUAL(v, 5, "");
	return TEST_SUCCESS;
}

static int
setup_128(void)
{
	return setup_credits(128, 128);
}

/*
 * rxe's credits (128 each way): 60 atomics are all in flight at once and the
 * responder holds every one of them in its ring, none recycled.
 */
static int
test_credits_128(void)
{
	struct dpv_eqp *a = dpv_engine_qp_lookup(eng, QPN_A);
	struct dpv_eqp *b = dpv_engine_qp_lookup(eng, QPN_B);
	struct dpv_engine_stats st;
	struct ibv_wc wc;
	uint32_t held = 0;
	uint64_t v = 0;

	TEST_ASSERT(a != NULL && b != NULL, "");
	TEST_ASSERT_EQUAL(a->max_rd_atomic, 128, "");
	TEST_ASSERT_EQUAL(b->max_dest_rd_atomic, 128, "");
	memcpy(qb.buf, &v, 8);
	for (int m = 0; m < 60; m++)
		TEST_ASSERT_EQUAL(post(IBV_WR_ATOMIC_FETCH_AND_ADD, m, 64 + m * 8,
				       8, (uintptr_t)qb.buf, 1),
				  0, "post %d", m);
	for (int m = 0; m < 60; m++) {
		TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc), 0, "atomic %d", m);
		TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "status %d",
				  wc.status);
		memcpy(&v, qa.buf + 64 + m * 8, 8);
		TEST_ASSERT_EQUAL(v, (uint64_t)m, "original %d", m);
	}
	memcpy(&v, qb.buf, 8);
	TEST_ASSERT_EQUAL(v, 60, "each executed once");
	TEST_ASSERT_EQUAL(b->resp.res_n, 128, "ring of 128");
	for (int i = 0; i < 128; i++)
		held += b->resp.res[i].kind == 2;
	TEST_ASSERT_EQUAL(held, 60, "all 60 held");
	dpv_engine_stats_get(eng, &st);
	TEST_ASSERT_EQUAL(st.rd_atomic_recycled, 0, "none recycled");
	return TEST_SUCCESS;
}

/* BTH opcode of a frame on the loopback wire (IPv4 GIDs: 14 + 20 + 8). */
static uint8_t
frame_opcode(struct rte_mbuf *m)
{
	return *rte_pktmbuf_mtod_offset(m, uint8_t *, 42);
}

/* Frames on the loopback wire, in order, put back after reading. */
static unsigned
wire_opcodes(uint8_t *ops, unsigned max)
{
	struct rte_mbuf *m[8];
	unsigned n = rte_ring_dequeue_burst(eng->loop, (void **)m,
					    RTE_MIN(max, 8u), NULL);

	for (unsigned i = 0; i < n; i++)
		ops[i] = frame_opcode(m[i]);
	rte_ring_enqueue_bulk(eng->loop, (void **)m, n, NULL);
	return n;
}

/* A's send completion a_id, then B's b_id, both successful: 0 or -1. */
static int
wait_ab(uint64_t a_id, uint64_t b_id)
{
	struct ibv_wc wc;

	if (wait_wc(&qa.scq, &wc) != 0 || wc.wr_id != a_id ||
	    wc.status != IBV_WC_SUCCESS)
		return -1;
	if (wait_wc(&qb.scq, &wc) != 0 || wc.wr_id != b_id ||
	    wc.status != IBV_WC_SUCCESS)
		return -1;
	return 0;
}

/*
 * ACK hold: with it on, an ACK that arises in an application poll
 * (dpv_engine_progress_app) is held until the next poll, where it leaves
 * after that poll's new request, so the peer of an application spinning
 * on memory gets the WRITE before the ACK it polls for. A thread's poll
 * (dpv_engine_progress) never holds, nor does anything with the hold off.
 */
static int
test_ack_hold(void)
{
	struct ibv_wc wc;
	uint8_t ops[8];

	dpv_engine_set_ack_hold(eng, true);
	TEST_ASSERT_EQUAL(post(IBV_WR_RDMA_WRITE, 1, 0, 64,
			       (uintptr_t)qb.buf, 0),
			  0, "");
	dpv_engine_progress(eng);
	TEST_ASSERT_EQUAL(wire_opcodes(ops, 8), 1, "A's WRITE is sent");
	TEST_ASSERT_EQUAL(ops[0], DPV_ROCE_OP_WRITE_ONLY, "");
	dpv_engine_progress_app(eng);
	TEST_ASSERT_EQUAL(rte_ring_count(eng->loop), 0,
			  "B's ACK is held by the application's poll");
	TEST_ASSERT(dpv_engine_acks_held_at(eng) != 0, "");
	/* B's next call posts: its WRITE, then the held ACK */
	TEST_ASSERT_EQUAL(post_b_write(2), 0, "");
	rte_delay_us_block(20); /* a lone post, not one of a burst */
	dpv_engine_progress_post(eng);
	TEST_ASSERT_EQUAL(wire_opcodes(ops, 8), 2, "");
	TEST_ASSERT_EQUAL(ops[0], DPV_ROCE_OP_WRITE_ONLY, "request first");
	TEST_ASSERT_EQUAL(ops[1], DPV_ROCE_OP_ACK, "then the ACK");
	TEST_ASSERT_EQUAL(dpv_engine_acks_held_at(eng), 0, "");
	TEST_ASSERT_EQUAL(wait_ab(1, 2), 0, "");
	TEST_ASSERT_EQUAL(rte_ring_count(eng->loop), 0, "");
	/* a held ACK also leaves with the next poll of any kind */
	TEST_ASSERT_EQUAL(post(IBV_WR_RDMA_WRITE, 3, 0, 64,
			       (uintptr_t)qb.buf, 0),
			  0, "");
	dpv_engine_progress(eng);
	dpv_engine_progress_app(eng);
	TEST_ASSERT_EQUAL(rte_ring_count(eng->loop), 0, "held");
	dpv_engine_progress(eng);
	TEST_ASSERT_EQUAL(wire_opcodes(ops, 8), 1, "");
	TEST_ASSERT_EQUAL(ops[0], DPV_ROCE_OP_ACK, "");
	TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc), 0, "");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "");
	/* a thread's poll does not hold */
	TEST_ASSERT_EQUAL(post(IBV_WR_RDMA_WRITE, 4, 0, 64,
			       (uintptr_t)qb.buf, 0),
			  0, "");
	dpv_engine_progress(eng);
	dpv_engine_progress(eng);
	TEST_ASSERT_EQUAL(wire_opcodes(ops, 8), 1, "");
	TEST_ASSERT_EQUAL(ops[0], DPV_ROCE_OP_ACK, "");
	TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc), 0, "");
	/* nor does an application poll with the hold off */
	dpv_engine_set_ack_hold(eng, false);
	TEST_ASSERT_EQUAL(post(IBV_WR_RDMA_WRITE, 5, 0, 64,
			       (uintptr_t)qb.buf, 0),
			  0, "");
	dpv_engine_progress(eng);
	dpv_engine_progress_app(eng);
	TEST_ASSERT_EQUAL(wire_opcodes(ops, 8), 1, "");
	TEST_ASSERT_EQUAL(ops[0], DPV_ROCE_OP_ACK, "");
	TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc), 0, "");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "");
	return TEST_SUCCESS;
}

/*
 * A lone post of a message longer than one pass's budget (40 frames of
 * 256 bytes; the budget is 32) sends all of it before it returns: the
 * rest left to the next poll waited for the progress thread's nap when
 * the application spins on memory after posting. The ACK of the peer's
 * message that the application's poll held goes after the last frame,
 * not after the first pass's 32: the peer's poll for that ACK then lands
 * the whole WRITE (ib_write_lat's peer waits on memory once it returns).
 */
static int
test_lone_post_long(void)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)qb.buf, .length = 40 * 256, .lkey = qb.key};
	struct ibv_send_wr wr = {.wr_id = 2,
				 .sg_list = &sge,
				 .num_sge = 1,
				 .opcode = IBV_WR_RDMA_WRITE,
				 .send_flags = IBV_SEND_SIGNALED},
			   *bad;
	struct rte_mbuf *m[64];
	unsigned int n;

	dpv_engine_set_ack_hold(eng, true);
	TEST_ASSERT_EQUAL(
		post(IBV_WR_RDMA_WRITE, 1, 0, 64, (uintptr_t)qb.buf + 12288, 0),
		0, "");
	dpv_engine_progress(eng);
	dpv_engine_progress_app(eng);
	TEST_ASSERT_EQUAL(rte_ring_count(eng->loop), 0,
			  "B's ACK is held by the application's poll");
	for (uint32_t i = 0; i < sge.length; i++)
		qb.buf[i] = (uint8_t)(i * 7 + 1);
	wr.wr.rdma.remote_addr = (uintptr_t)qa.buf;
	wr.wr.rdma.rkey = qa.key;
	TEST_ASSERT_EQUAL(
		dpv_mlx5_post_send(&qb.sq, IBV_QPT_RC, QPN_B, &wr, &bad), 0,
		"");
	rte_delay_us_block(20); /* a lone post, not one of a burst */
	dpv_engine_progress_post(eng);
	n = rte_ring_dequeue_burst(eng->loop, (void **)m, RTE_DIM(m), NULL);
	TEST_ASSERT_EQUAL(n, 41, "the post sent the whole WRITE and the ACK");
	for (unsigned int i = 0, w = 0, acks = 0; i < n; i++) {
		uint8_t op = frame_opcode(m[i]);

		if (op == DPV_ROCE_OP_ACK) {
			TEST_ASSERT_EQUAL(++acks, 1, "one ACK");
			TEST_ASSERT_EQUAL(i, n - 1,
					  "the held ACK after the last frame");
			continue;
		}
		TEST_ASSERT_EQUAL(op,
				  w == 0    ? DPV_ROCE_OP_WRITE_FIRST
				  : w == 39 ? DPV_ROCE_OP_WRITE_LAST
					    : DPV_ROCE_OP_WRITE_MIDDLE,
				  "frame %u", i);
		w++;
	}
	TEST_ASSERT_EQUAL(rte_ring_enqueue_bulk(eng->loop, (void **)m, n, NULL),
			  n, "");
	TEST_ASSERT_EQUAL(wait_ab(1, 2), 0, "");
	TEST_ASSERT_BUFFERS_EQUAL(qa.buf, qb.buf, sge.length, "");
	return TEST_SUCCESS;
}

/*
 * A lone post reads the receive side first when no poll has for 1 ms
 * (LONE_RX_DIV), and only then: ib_write_bw -q 4 -s 8388608 posts ~100
 * WRs after each completion, each a lone post that sends for ~3 ms, and
 * with no poll in between the ACKs waited in the port past every QP's ACK
 * timeout. B's ACK of A's first WRITE waits in the loop ring; a post 20 us
 * after the poll that left it there leaves it, one 1.2 ms after takes it
 * (A's first WRITE completes with no poll of the test's own).
 */
static int
test_lone_post_reads_rx(void)
{
	struct ibv_wc wc;
	unsigned int n;

	dpv_engine_set_ack_hold(eng, false);
	TEST_ASSERT_EQUAL(
		post(IBV_WR_RDMA_WRITE, 1, 0, 64, (uintptr_t)qb.buf, 0), 0, "");
	rte_delay_us_block(20); /* a lone post */
	dpv_engine_progress_post(eng);
	TEST_ASSERT_EQUAL(rte_ring_count(eng->loop), 1, "A's WRITE");
	dpv_engine_poll(eng, 32); /* B takes it; its ACK waits in the ring */
	TEST_ASSERT_EQUAL(rte_ring_count(eng->loop), 1, "B's ACK");
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_poll(&qa.scq, 1, &wc, lookup, NULL), 0,
			  "");
	TEST_ASSERT_EQUAL(
		post(IBV_WR_RDMA_WRITE, 2, 64, 64, (uintptr_t)qb.buf + 64, 0),
		0, "");
	rte_delay_us_block(20);
	dpv_engine_progress_post(eng);
	TEST_ASSERT_EQUAL(
		rte_ring_count(eng->loop), 2,
		"the ACK left in the ring, the second WRITE after it");
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_poll(&qa.scq, 1, &wc, lookup, NULL), 0,
			  "a post soon after a poll reads nothing");
	rte_delay_us_block(1200);
	TEST_ASSERT_EQUAL(
		post(IBV_WR_RDMA_WRITE, 3, 128, 64, (uintptr_t)qb.buf + 128, 0),
		0, "");
	rte_delay_us_block(20);
	dpv_engine_progress_post(eng);
	n = dpv_mlx5_cq_poll(&qa.scq, 1, &wc, lookup, NULL);
	TEST_ASSERT_EQUAL(n, 1, "the post 1.2 ms on took the ACK");
	TEST_ASSERT_EQUAL(wc.wr_id, 1, "");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "");
	TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc), 0, "");
	TEST_ASSERT_EQUAL(wc.wr_id, 2, "");
	TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc), 0, "");
	TEST_ASSERT_EQUAL(wc.wr_id, 3, "");
	TEST_ASSERT_BUFFERS_EQUAL(qb.buf, qa.buf, 192, "");
	return TEST_SUCCESS;
}

/* t: n unsignaled WRITEs of the whole buffer into r's, posted in a row
 * with no engine call (the doorbell only) */
static int
post_writes_on(struct test_engine_qp *t, uint32_t qpn, struct test_engine_qp *r,
	       unsigned int n)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)t->buf, .length = BUF_SIZE, .lkey = t->key};
	struct ibv_send_wr wr = {.sg_list = &sge,
				 .num_sge = 1,
				 .opcode = IBV_WR_RDMA_WRITE},
			   *bad;

	wr.wr.rdma.remote_addr = (uintptr_t)r->buf;
	wr.wr.rdma.rkey = r->key;
	for (unsigned int i = 0; i < n; i++) {
		wr.wr_id = i;
		if (dpv_mlx5_post_send(&t->sq, IBV_QPT_RC, qpn, &wr, &bad) != 0)
			return -1;
	}
	return 0;
}

/*
 * A lone post sends up to 32 passes' budgets of frames (1,024), not 32
 * passes: each pass sends a budget on every QP with something to send,
 * and with 16 QPs streaming 8 MiB WRITEs a lone post sent for ~13 ms
 * without reading the receive side. C owes 40 WRITEs of 64 frames (256
 * path MTU): a first lone post sends 1,024 of them (dropped here); then A
 * posts 20, and its lone post finds both QPs with frames to send: 32
 * passes would send 2,048.
 */
static int
test_lone_post_frames(void)
{
	struct rte_mbuf *m[256];
	unsigned int n, k;

	TEST_ASSERT_EQUAL(post_writes_on(&qc, QPN_C, &qd, 40), 0, "");
	rte_delay_us_block(20); /* a lone post */
	dpv_engine_progress_post_sq(eng, &qc.sq);
	TEST_ASSERT_EQUAL(rte_ring_count(eng->loop), 32 * 32, "C alone");
	while ((k = rte_ring_dequeue_burst(eng->loop, (void **)m, RTE_DIM(m),
					   NULL)) != 0)
		rte_pktmbuf_free_bulk(m, k);
	TEST_ASSERT_EQUAL(post_writes_on(&qa, QPN_A, &qb, 20), 0, "");
	rte_delay_us_block(20);
	dpv_engine_progress_post_sq(eng, &qa.sq);
	n = rte_ring_count(eng->loop);
	TEST_ASSERT(n >= 32 * 32 && n <= 32 * 32 + 2 * 32,
		    "%u frames, not 1,024 and a pass at most", n);
	return TEST_SUCCESS;
}

/*
 * An ACK held by an application's poll that received more than one full
 * burst dates from the burst that brought its request, not from the
 * poll's start: a poll of four bursts of 4 KiB frames took longer than
 * the 20 us an ACK stays held for the reply (ACK_REHOLD_DIV), and
 * ib_write_lat's ACK left before the reply that was to carry it. A's
 * 40-frame WRITE (256 path MTU) reaches B in a burst of 32 and one of 8.
 */
static int
test_ack_hold_long_poll(void)
{
	uint32_t len = 40 * 256;
	struct ibv_wc wc;
	uint64_t rx_at;

	dpv_engine_set_ack_hold(eng, true);
	for (uint32_t i = 0; i < len; i++)
		qa.buf[i] = (uint8_t)(i * 5 + 3);
	TEST_ASSERT_EQUAL(
		post(IBV_WR_RDMA_WRITE, 1, 0, len, (uintptr_t)qb.buf, 0), 0,
		"");
	rte_delay_us_block(20); /* a lone post: all 40 frames go */
	dpv_engine_progress_post(eng);
	TEST_ASSERT_EQUAL(rte_ring_count(eng->loop), 40, "");
	dpv_engine_progress_app(eng);
	TEST_ASSERT_EQUAL(rte_ring_count(eng->loop), 0,
			  "B's ACK is held by the application's poll");
	rx_at = dpv_engine_rx_at(eng);
	TEST_ASSERT(dpv_engine_acks_held_at(eng) > rx_at,
		    "held at the second burst (%" PRIu64 "), not at the "
		    "poll's start (%" PRIu64 ")",
		    dpv_engine_acks_held_at(eng), rx_at);
	TEST_ASSERT_BUFFERS_EQUAL(qb.buf, qa.buf, len, "");
	/* the next poll sends it */
	dpv_engine_progress(eng);
	TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc), 0, "");
	TEST_ASSERT_EQUAL(wc.wr_id, 1, "");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "");
	return TEST_SUCCESS;
}

/* A READ (wr_id) of len bytes by requester t (QPN qpn) from its
 * responder r's buffer at off into its own at off; the lone post sends
 * it. */
static int
post_read_on(struct test_engine_qp *t, uint32_t qpn, struct test_engine_qp *r,
	     uint64_t wr_id, uint32_t off, uint32_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)t->buf + off, .length = len, .lkey = t->key};
	struct ibv_send_wr wr = {.wr_id = wr_id,
				 .sg_list = &sge,
				 .num_sge = 1,
				 .opcode = IBV_WR_RDMA_READ,
				 .send_flags = IBV_SEND_SIGNALED},
			   *bad;

	wr.wr.rdma.remote_addr = (uintptr_t)r->buf + off;
	wr.wr.rdma.rkey = r->key;
	if (dpv_mlx5_post_send(&t->sq, IBV_QPT_RC, qpn, &wr, &bad) != 0)
		return -1;
	rte_delay_us_block(20); /* a lone post, not one of a burst */
	dpv_engine_progress_post(eng);
	return 0;
}

/*
 * READ responses take turns between QPs (DPV_ENGINE_RESP_BUDGET frames a
 * QP at a time, 16 here): A's two READs of 32 frames and then C's of 16
 * reach B and D in one burst; B answers 16 frames of A's first READ and
 * owes the rest, and D answers all of C's before B goes on. Before, B
 * sent both of A's READs whole while the port took frames: with 50 READs
 * of 8 MiB on each of 4 QPs (ib_read_bw -q 4), the last QPs' requesters
 * saw no response for longer than their 67 ms ACK timeout, sent their
 * READs again, and the responders answered them again.
 */
static int
test_read_resp_turns(void)
{
	struct rte_mbuf *m[128];
	unsigned n, last_c = 0, c_frames = 0;
	struct ibv_wc wc;

	eng->resp_budget = 16;
	for (uint32_t i = 0; i < BUF_SIZE; i++) {
		qb.buf[i] = (uint8_t)(i * 3 + 1);
		qd.buf[i] = (uint8_t)(i * 11 + 5);
	}
	TEST_ASSERT_EQUAL(post_read_on(&qa, QPN_A, &qb, 1, 0, 8192), 0, "");
	TEST_ASSERT_EQUAL(post_read_on(&qa, QPN_A, &qb, 2, 8192, 8192), 0, "");
	TEST_ASSERT_EQUAL(post_read_on(&qc, QPN_C, &qd, 3, 0, 4096), 0, "");
	TEST_ASSERT_EQUAL(rte_ring_count(eng->loop), 3, "three requests");
	dpv_engine_progress(eng);
	n = rte_ring_dequeue_burst(eng->loop, (void **)m, RTE_DIM(m), NULL);
	for (unsigned i = 0; i < n; i++) {
		/* the BTH where frame_opcode() reads it */
		const struct dpv_bth *bth = rte_pktmbuf_mtod_offset(
			m[i], const struct dpv_bth *, 42);

		if (dpv_bth_qpn(bth) == QPN_C) {
			c_frames++;
			last_c = i;
		}
	}
	TEST_ASSERT_EQUAL(c_frames, 16, "D answered C's READ whole");
	TEST_ASSERT(last_c < 32,
		    "D's responses among the first 32 frames (the last at "
		    "%u of %u): B's turn ended after 16",
		    last_c, n);
	TEST_ASSERT_EQUAL(rte_ring_enqueue_bulk(eng->loop, (void **)m, n, NULL),
			  n, "");
	for (uint64_t id = 1; id <= 2; id++) {
		TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc), 0, "");
		TEST_ASSERT_EQUAL(wc.wr_id, id, "");
		TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "");
	}
	TEST_ASSERT_EQUAL(wait_wc(&qc.scq, &wc), 0, "");
	TEST_ASSERT_EQUAL(wc.wr_id, 3, "");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "");
	TEST_ASSERT_BUFFERS_EQUAL(qa.buf, qb.buf, BUF_SIZE, "");
	TEST_ASSERT_BUFFERS_EQUAL(qc.buf, qd.buf, 4096, "");
	return TEST_SUCCESS;
}

/* A's WRITE wr_id of 64 bytes into B's buffer, and the engine's post
 * hook, as ibv_post_send runs them. */
static int
post_write_hook(uint64_t wr_id)
{
	int rc = post(IBV_WR_RDMA_WRITE, wr_id, 0, 64, (uintptr_t)qb.buf, 0);

	dpv_engine_progress_post(eng);
	return rc;
}

/*
 * Posts: one after a poll is built and sent at once; those that follow it
 * with no poll between (less than 5 us apart: a burst) are only counted,
 * and wait as work pending until the next poll sends them in one burst; a
 * QP modified first gets what was posted built and sent. A burst needs
 * three posts within 5 us: a run that was slower is tried again.
 */
static int
test_post_burst(void)
{
	uint64_t hz = rte_get_tsc_hz(), t0, t1 = 0;
	struct ibv_qp_attr a = {.max_rd_atomic = 2};
	uint64_t id = 1, done = 0;
	struct ibv_wc wc;
	uint8_t ops[8];
	int tries;

	/* B's ACKs wait in the application's polls: only requests below */
	dpv_engine_set_ack_hold(eng, true);
	for (tries = 0; tries < 50; tries++) {
		dpv_engine_progress(eng); /* a poll: the next post is lone */
		t0 = rte_rdtsc();
		TEST_ASSERT_EQUAL(post_write_hook(id++), 0, "");
		TEST_ASSERT_EQUAL(wire_opcodes(ops, 8), 1,
				  "a post after a poll leaves at once");
		TEST_ASSERT_EQUAL(post_write_hook(id++), 0, "");
		TEST_ASSERT_EQUAL(post_write_hook(id++), 0, "");
		t1 = rte_rdtsc();
		if (t1 - t0 < hz / 200000)
			break;
		/* too slow to be a burst: let it all finish, try again */
		while (done + 1 < id) {
			TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc), 0, "");
			TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "");
			done++;
		}
	}
	if (tries == 50) {
		DPV_TEST_LOG("no three posts within 5 us in 50 tries");
		return TEST_SKIPPED;
	}
	TEST_ASSERT_EQUAL(wire_opcodes(ops, 8), 1,
			  "the burst's posts are not built yet");
	TEST_ASSERT(dpv_engine_tx_pending(eng), "but pending");
	dpv_engine_progress_app(eng);
	TEST_ASSERT_EQUAL(wire_opcodes(ops, 8), 2,
			  "the poll sends both in one burst");
	TEST_ASSERT_EQUAL(ops[0], DPV_ROCE_OP_WRITE_ONLY, "");
	TEST_ASSERT_EQUAL(ops[1], DPV_ROCE_OP_WRITE_ONLY, "");
	/* a modify builds what a burst left */
	dpv_engine_progress(eng);
	for (tries = 0; tries < 50; tries++) {
		t0 = rte_rdtsc();
		TEST_ASSERT_EQUAL(post_write_hook(id++), 0, "");
		TEST_ASSERT_EQUAL(post_write_hook(id++), 0, "");
		t1 = rte_rdtsc();
		if (t1 - t0 < hz / 200000)
			break;
		dpv_engine_progress(eng);
	}
	TEST_ASSERT(tries < 50, "no two posts within 5 us in 50 tries");
	TEST_ASSERT_EQUAL(dpv_engine_qp_modify(eng, QPN_A, &a,
					       IBV_QP_MAX_QP_RD_ATOMIC, NULL),
			  0, "");
	TEST_ASSERT(!dpv_engine_tx_pending(eng), "built and sent");
	while (done + 1 < id) {
		TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc), 0, "");
		TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "");
		TEST_ASSERT_EQUAL(wc.wr_id, done + 1, "in order, none lost");
		done++;
	}
	return TEST_SUCCESS;
}

/* Path variant v of the loopback path: bit 0 a VLAN tag, bit 1 IPv6
 * (with a traffic class and a flow label). */
static void
path_variant(struct dpv_engine_path *path, int v)
{
	test_engine_loop_path(path, mac, 0xc0000203);
	if (v & 1)
		path->vlan = 0x2005;
	if (v & 2) {
		static const uint8_t g[16] = {0x20, 0x01, 0x0d, 0xb8,
					      [15] = 3};

		memcpy(path->sgid, g, 16);
		memcpy(path->dgid, g, 16);
		path->traffic_class = 0x28;
		path->flow_label = 0x12345;
	}
}

/* qp's ACK from its template against the one dpv_engine_build() makes
 * (identification 0 in both), byte for byte, ICRC in */
static int
ack_same(struct dpv_eqp *qp, uint8_t syndrome, uint32_t psn, uint32_t msn)
{
	struct dpv_ehdr h = {
		.opcode = DPV_ROCE_OP_ACK | DPV_ROCE_TR_RC,
		.dqpn = qp->dest_qpn,
		.psn = psn,
		.syndrome = syndrome,
		.msn = msn,
	};
	struct rte_mbuf *t, *b;
	bool no_tmpl;
	uint8_t *pl;
	int ret = -1;

	qp->resp.msn = msn;
	t = dpv_engine_build_ack(qp, syndrome, psn, &no_tmpl);
	eng->ip_id = 0;
	b = dpv_engine_build(eng, &qp->path, &qp->tmpl, &h, 0, &pl);
	if (t != NULL && b != NULL) {
		dpv_engine_finish(b);
		if (t->pkt_len == b->pkt_len && t->l2_len == b->l2_len &&
		    memcmp(rte_pktmbuf_mtod(t, void *),
			   rte_pktmbuf_mtod(b, void *), t->pkt_len) == 0 &&
		    dpv_roce_icrc_check(rte_pktmbuf_mtod_offset(t, void *,
								t->l2_len),
					t->pkt_len - t->l2_len))
			ret = 0;
		else
			DPV_TEST_LOG("ACK psn %#x msn %#x syndrome %#x: "
				     "template %u bytes, built %u",
				     psn, msn, syndrome, t->pkt_len,
				     b->pkt_len);
	} else {
		DPV_TEST_LOG("no ACK (template %p no_tmpl %d, built %p)",
			     (void *)t, no_tmpl, (void *)b);
	}
	rte_pktmbuf_free(t);
	rte_pktmbuf_free(b);
	return ret;
}

/*
 * ACKs from the QP's ACK template (a copy, the PSN and AETH words, their
 * ICRC deltas) are the frames the general builder makes, over IPv4 and
 * IPv6, with and without a VLAN tag, for PSNs, MSNs and syndromes across
 * their ranges; a new path, UDP source port or destination QP remakes the
 * template; a path too long for a frame template (VLAN + IPv6) has none.
 */
static int
test_ack_tmpl(void)
{
	static const uint32_t psns[] = {0, 1, 0x7fffff, 0x800000, 0xffffff,
					0x123456};
	static const uint8_t syns[] = {0x00, 0x1f, 0x20, 0x60, 0x7f, 0x9f};
	struct dpv_eqp *qp = dpv_engine_qp_lookup(eng, QPN_A);
	struct dpv_engine_path path;
	struct ibv_qp_attr a = {0};
	bool no_tmpl;

	TEST_ASSERT(qp != NULL, "");
	for (int v = 0; v < 4; v++) {
		path_variant(&path, v);
		TEST_ASSERT_EQUAL(dpv_engine_qp_modify(eng, QPN_A, &a,
						       IBV_QP_AV, &path),
				  0, "");
		if (v == 3) {
			/* 18 + 40 + 8 bytes: no frame template */
			TEST_ASSERT_EQUAL(qp->tmpl.len, 0, "");
			TEST_ASSERT(dpv_engine_build_ack(qp, 0, 1, &no_tmpl) ==
						    NULL &&
					    no_tmpl,
				    "no ACK template without a frame template");
			continue;
		}
		for (unsigned i = 0; i < RTE_DIM(psns); i++)
			for (unsigned j = 0; j < RTE_DIM(syns); j++)
				TEST_ASSERT_EQUAL(
					ack_same(qp, syns[j], psns[i],
						 psns[(i + j) % RTE_DIM(psns)]),
					0, "path %d", v);
		TEST_ASSERT(qp->resp.ack_len != 0, "");
		TEST_ASSERT_EQUAL(dpv_engine_qp_udp_sport_set(eng, QPN_A,
							      (uint16_t)(50000 + v)),
				  0, "");
		TEST_ASSERT_EQUAL(qp->resp.ack_len, 0,
				  "a new frame template drops the ACK's");
		/* the ACK made anew carries the new port (ack_same() checks
		 * it against the general builder's frame byte for byte) */
		TEST_ASSERT_EQUAL(ack_same(qp, 0x1f, 0x345, 7), 0, "");
		TEST_ASSERT(qp->resp.ack_len != 0, "and a new ACK template");
		/* a new destination QP number: the template names it */
		a.dest_qp_num = 0x5000 + (uint32_t)v;
		TEST_ASSERT_EQUAL(dpv_engine_qp_modify(eng, QPN_A, &a,
						       IBV_QP_DEST_QPN, NULL),
				  0, "");
		TEST_ASSERT_EQUAL(qp->resp.ack_len, 0,
				  "a new destination drops the ACK template");
		TEST_ASSERT_EQUAL(ack_same(qp, 0, 0x10, 3), 0, "");
	}
	return TEST_SUCCESS;
}

/* B: a receive WQE of BUF_SIZE / 2 bytes at the second half of its
 * buffer */
static int
post_b_recv(uint64_t wr_id)
{
	struct ibv_sge sge = {.addr = (uintptr_t)qb.buf + BUF_SIZE / 2,
			      .length = BUF_SIZE / 2,
			      .lkey = qb.key};
	struct ibv_recv_wr wr = {.wr_id = wr_id, .sg_list = &sge, .num_sge = 1},
			   *bad;

	return dpv_mlx5_post_recv(&qb.rq, &wr, &bad);
}

/*
 * One request of A as the requester's one-step path builds it against
 * the frame the general builder makes of the same fields (byte for byte,
 * ICRC in); then delivered and completed.
 */
static int
req_same(enum ibv_wr_opcode op, uint32_t len, bool sol, bool inl)
{
	struct dpv_eqp *qp = dpv_engine_qp_lookup(eng, QPN_A);
	bool imm = op == IBV_WR_SEND_WITH_IMM ||
		   op == IBV_WR_RDMA_WRITE_WITH_IMM;
	bool write = op == IBV_WR_RDMA_WRITE ||
		     op == IBV_WR_RDMA_WRITE_WITH_IMM;
	struct ibv_sge sge = {
		.addr = (uintptr_t)qa.buf + 3, .length = len, .lkey = qa.key};
	struct ibv_send_wr wr = {
		.wr_id = 77,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = op,
		.send_flags = IBV_SEND_SIGNALED |
			      (sol ? IBV_SEND_SOLICITED : 0) |
			      (inl ? IBV_SEND_INLINE : 0),
		.imm_data = rte_cpu_to_be_32(0xa1b2c3d4),
		.wr.rdma = {.remote_addr = (uintptr_t)qb.buf + 5,
			    .rkey = qb.key},
	},
			   *bad;
	struct dpv_ehdr h = {
		.opcode = (uint8_t)(write ? (imm ? DPV_ROCE_OP_WRITE_ONLY_IMM
						 : DPV_ROCE_OP_WRITE_ONLY)
					  : (imm ? DPV_ROCE_OP_SEND_ONLY_IMM
						 : DPV_ROCE_OP_SEND_ONLY)),
		.psn = qp->req.psn,
		.dqpn = QPN_B,
		.ackreq = true,
		.se = sol,
		.va = (uintptr_t)qb.buf + 5,
		.rkey = qb.key,
		.dmalen = len,
		.imm_be = rte_cpu_to_be_32(0xa1b2c3d4),
	};
	uint16_t ip_id = eng->ip_id;
	struct rte_mbuf *m = NULL, *b;
	struct ibv_wc wc;
	uint32_t blen;
	uint8_t *pl;
	bool same;

	for (uint32_t i = 0; i < len; i++)
		qa.buf[3 + i] = (uint8_t)(i * 7 + len);
	if (!write || imm)
		TEST_ASSERT_EQUAL(post_b_recv(78), 0, "");
	dpv_engine_progress(eng); /* a poll: the post below leaves at once */
	TEST_ASSERT_EQUAL(dpv_mlx5_post_send(&qa.sq, IBV_QPT_RC, QPN_A, &wr,
					     &bad),
			  0, "");
	dpv_engine_progress_post(eng);
	TEST_ASSERT_EQUAL(rte_ring_dequeue(eng->loop, (void **)&m), 0,
			  "a frame sent");
	TEST_ASSERT_EQUAL(rte_ring_count(eng->loop), 0, "only one");
	eng->ip_id = ip_id;
	b = dpv_engine_build(eng, &qp->path, &qp->tmpl, &h, len, &pl);
	TEST_ASSERT(b != NULL, "");
	memcpy(pl, qa.buf + 3, len);
	dpv_engine_finish(b);
	same = m->pkt_len == b->pkt_len && m->l2_len == b->l2_len &&
	       memcmp(rte_pktmbuf_mtod(m, void *), rte_pktmbuf_mtod(b, void *),
		      m->pkt_len) == 0 &&
	       dpv_roce_icrc_check(rte_pktmbuf_mtod_offset(m, void *,
							   m->l2_len),
				   m->pkt_len - m->l2_len);
	blen = b->pkt_len;
	rte_pktmbuf_free(b);
	if (!same)
		rte_pktmbuf_free(m);
	TEST_ASSERT(same, "op %d len %u sol %d inline %d: %u bytes sent, %u "
			  "built", op, len, sol, inl, m->pkt_len, blen);
	TEST_ASSERT_EQUAL(rte_ring_enqueue(eng->loop, m), 0, "");
	TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc), 0, "");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "");
	if (!write || imm) {
		TEST_ASSERT_EQUAL(wait_wc(&qb.rcq, &wc), 0, "");
		TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "");
		TEST_ASSERT_EQUAL(wc.byte_len, len, "");
	}
	TEST_ASSERT(memcmp(write ? qb.buf + 5 : qb.buf + BUF_SIZE / 2,
			   qa.buf + 3, len) == 0,
		    "the payload landed");
	return TEST_SUCCESS;
}

/*
 * Requests of one packet (SEND and WRITE, with and without immediate,
 * solicited or not, inline or not, payloads of every pad and up to the
 * path MTU) as the requester builds them in one step from the QP's header
 * template are the frames of the general builder, over IPv4 and IPv6,
 * with and without a VLAN tag (VLAN + IPv6: no template, the general
 * builder itself), PSNs wrapping.
 */
static int
test_req_tmpl(void)
{
	static const enum ibv_wr_opcode ops[] = {
		IBV_WR_SEND, IBV_WR_SEND_WITH_IMM, IBV_WR_RDMA_WRITE,
		IBV_WR_RDMA_WRITE_WITH_IMM};
	static const uint32_t lens[] = {0, 1, 2, 3, 4, 61, 200, 1024};
	struct dpv_engine_path path;
	struct ibv_qp_attr a = {0};

	for (int v = 0; v < 4; v++) {
		path_variant(&path, v);
		TEST_ASSERT_EQUAL(dpv_engine_qp_modify(eng, QPN_A, &a,
						       IBV_QP_AV, &path),
				  0, "");
		TEST_ASSERT_EQUAL(dpv_engine_qp_modify(eng, QPN_B, &a,
						       IBV_QP_AV, &path),
				  0, "");
		for (unsigned i = 0; i < RTE_DIM(ops); i++)
			for (unsigned j = 0; j < RTE_DIM(lens); j++)
				TEST_ASSERT_EQUAL(
					req_same(ops[i], lens[j], (i + j) & 1,
						 lens[j] <= 64 && (j & 1)),
					TEST_SUCCESS, "path %d", v);
	}
	return TEST_SUCCESS;
}

/*
 * READ responses the port has no room for wait and leave in order: six
 * 15 KiB READs (90 response frames at a 1 KiB MTU, more than the engine's
 * 64-frame transmit buffer) arrive while the port takes nothing, then a
 * FETCH_ADD on the first word they read. Nothing is dropped or sent again,
 * every READ returns the word as it was before the atomic, and the atomic
 * runs once, after them.
 */
static int
test_read_port_full(void)
{
	const uint32_t len = 15 * 1024;
	struct dpv_engine_qp_stats qs;
	struct dpv_engine_stats st;
	uint64_t v0 = 0x1111, v;
	uint8_t want[15 * 1024];
	struct ibv_wc wc;

	for (uint32_t i = 0; i < BUF_SIZE; i++)
		qb.buf[i] = (uint8_t)(i * 13 + 5);
	memcpy(qb.buf, &v0, 8);
	memcpy(want, qb.buf, len);
	memset(qa.buf, 0, BUF_SIZE);
	for (int m = 0; m < 6; m++)
		TEST_ASSERT_EQUAL(post(IBV_WR_RDMA_READ, m, 0, len,
				       (uintptr_t)qb.buf, 0),
				  0, "");
	TEST_ASSERT_EQUAL(post(IBV_WR_ATOMIC_FETCH_AND_ADD, 6, len, 8,
			       (uintptr_t)qb.buf, 1),
			  0, "");
	dpv_engine_poll(eng, 32); /* the requests leave */
	dpv_engine_inject_tx_stall(eng, true);
	dpv_engine_poll(eng, 32); /* and are answered: the port is full */
	dpv_engine_poll(eng, 32);
	dpv_engine_inject_tx_stall(eng, false);
	for (int m = 0; m < 7; m++) {
		TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc), 0, "op %d", m);
		TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "op %d status %d",
				  m, wc.status);
		TEST_ASSERT_EQUAL(wc.wr_id, (uint64_t)m, "in order");
	}
	TEST_ASSERT_BUFFERS_EQUAL(qa.buf, want, len,
				  "the READs ran before the atomic");
	memcpy(&v, qa.buf + len, 8);
	TEST_ASSERT_EQUAL(v, v0, "the atomic's original");
	memcpy(&v, qb.buf, 8);
	TEST_ASSERT_EQUAL(v, v0 + 1, "the atomic ran once");
	dpv_engine_stats_get(eng, &st);
	TEST_ASSERT_EQUAL(dpv_engine_qp_stats_get(eng, QPN_B, &qs), 0, "");
	DPV_TEST_LOG("responses waited %" PRIu64 " times, dropped %" PRIu64
		     "; frames dropped %" PRIu64 ", retransmits %" PRIu64,
		     qs.rd_resp_waits, qs.rd_resp_dropped, st.tx_drop_full,
		     st.retransmits);
	TEST_ASSERT(qs.rd_resp_waits >= 2, "a READ and the atomic waited");
	TEST_ASSERT_EQUAL(qs.rd_resp_dropped, 0, "");
	TEST_ASSERT_EQUAL(st.tx_drop_full, 0, "no frame dropped");
	TEST_ASSERT_EQUAL(st.retransmits, 0, "nothing sent again");
	return TEST_SUCCESS;
}

/* ops 5, 7, ... 15 of test_loss_port_full are atomics, the others READs */
#define ATOMIC_OP(m) ((m) >= 5 && ((m) & 1))

/*
 * Owed READ responses through a lossy wire: ten 15 KiB READs (the first
 * five 75 response frames, more than one poll's transmit buffer) and six
 * FETCH_ADDs among them, pipelined with 8 credits, answered first while
 * the port takes nothing and then while every 5th frame is lost. Duplicates of owed READs rewind them, atomics wait for their
 * turn: the data arrive whole, each atomic runs once and in order.
 */
static int
test_loss_port_full(void)
{
	const uint32_t len = 15 * 1024, w = 15 * 1024;
	struct dpv_engine_qp_stats qs;
	struct dpv_engine_stats st;
	uint64_t v = 0;
	struct ibv_wc wc;

	for (uint32_t i = 0; i < len; i++)
		qb.buf[i] = (uint8_t)(i * 11 + 1);
	memcpy(qb.buf + w, &v, 8);
	memset(qa.buf, 0, BUF_SIZE);
	for (int m = 0; m < 16; m++) {
		if (ATOMIC_OP(m))
			TEST_ASSERT_EQUAL(post(IBV_WR_ATOMIC_FETCH_AND_ADD, m,
					       w + (m - 5) / 2 * 8, 8,
					       (uintptr_t)qb.buf + w, 1ull << m),
					  0, "");
		else
			TEST_ASSERT_EQUAL(post(IBV_WR_RDMA_READ, m, 0, len,
					       (uintptr_t)qb.buf, 0),
					  0, "");
	}
	/* the first requests are answered while the port takes nothing:
	 * responses owed from the start; then the wire loses frames */
	dpv_engine_poll(eng, 32);
	dpv_engine_inject_tx_stall(eng, true);
	dpv_engine_poll(eng, 32);
	dpv_engine_inject_tx_stall(eng, false);
	dpv_engine_inject_tx_loss(eng, 5);
	for (int m = 0; m < 16; m++) {
		TEST_ASSERT_EQUAL(wait_wc(&qa.scq, &wc), 0, "op %d", m);
		TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "op %d status %d",
				  m, wc.status);
		TEST_ASSERT_EQUAL(wc.wr_id, (uint64_t)m, "in order");
	}
	TEST_ASSERT_BUFFERS_EQUAL(qa.buf, qb.buf, len, "reads");
	TEST_ASSERT_EQUAL(check_fetch_adds(5, qa.buf + w, 8, qb.buf + w),
			  TEST_SUCCESS, "");
	dpv_engine_stats_get(eng, &st);
	TEST_ASSERT_EQUAL(dpv_engine_qp_stats_get(eng, QPN_B, &qs), 0, "");
	TEST_ASSERT_EQUAL(loss_report(&st, "responses waited", qs.rd_resp_waits,
				      "dropped", qs.rd_resp_dropped),
			  TEST_SUCCESS, "");
	TEST_ASSERT(qs.rd_resp_waits > 0, "responses were owed");
	return TEST_SUCCESS;
}

static int
setup_8_8(void)
{
	return setup_credits(8, 8);
}

static const struct dpv_test_suite engine_rdatomic_suite = {
	.name = "engine_rdatomic",
	.setup = suite_setup,
	.teardown = suite_teardown,
	.cases =
		{
			TEST_CASE_ST(setup_dest0, teardown, test_dest0_read),
			TEST_CASE_ST(setup_dest0, teardown, test_dest0_atomic),
			TEST_CASE_ST(setup_dest0, teardown,
				     test_dest0_atomic_write),
			TEST_CASE_ST(setup_2_2, teardown, test_atomic_write),
			TEST_CASE_ST(setup_2_2, teardown, test_aw_misaligned),
			TEST_CASE_ST(setup_2_2, teardown, test_aw_key),
			TEST_CASE_ST(setup_2_2, teardown, test_aw_qp_access),
			TEST_CASE_ST(setup_2_2, teardown, test_aw_dup),
			TEST_CASE_ST(setup_2_2, teardown, test_aw_loss),
			TEST_CASE_ST(setup_2_2, teardown, test_loss_pipeline),
			TEST_CASE_ST(setup_2_2, teardown,
				     test_dup_after_recycle),
			TEST_CASE_ST(setup_rd0, teardown, test_rd0),
			TEST_CASE_ST(setup_128, teardown, test_credits_128),
			TEST_CASE_ST(setup_2_2, teardown, test_ack_hold),
			TEST_CASE_ST(setup_2_2_mtu256, teardown,
				     test_lone_post_long),
			TEST_CASE_ST(setup_2_2_mtu256, teardown,
				     test_ack_hold_long_poll),
			TEST_CASE_ST(setup_2_2, teardown,
				     test_lone_post_reads_rx),
			TEST_CASE_ST(setup_two_pairs, teardown,
				     test_lone_post_frames),
			TEST_CASE_ST(setup_two_pairs, teardown,
				     test_read_resp_turns),
			TEST_CASE_ST(setup_2_2, teardown, test_post_burst),
			TEST_CASE_ST(setup_2_2, teardown, test_ack_tmpl),
			TEST_CASE_ST(setup_2_2, teardown, test_req_tmpl),
			TEST_CASE_ST(setup_8_8_slow, teardown,
				     test_read_port_full),
			TEST_CASE_ST(setup_8_8, teardown, test_loss_port_full),
			TEST_CASES_END(),
		},
};

static int
engine_rdatomic(void)
{
	return dpv_test_run_suite(&engine_rdatomic_suite);
}

DPV_TEST_REGISTER_FAST(engine_rdatomic, engine_rdatomic);
