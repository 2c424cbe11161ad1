/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Send-queue errors on the loopback device dpv0 (needs the device's
 * engine). A local error on a UD or UC send WR (a bad lkey, a UD message
 * larger than the path MTU) moves the QP to SQE: that WR completes in
 * error, the rest of the send queue and what is posted later are flushed,
 * the receive queue keeps receiving, and SQE -> RTS sends again. On RC the
 * same error moves the QP to ERR, which flushes the receive queue too.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "dpv_test.h"
#include "verbs_caps.h"
#include "verbs_int.h"
#include "test_verbs_util.h"

#define QKEY   0x11111111u
#define BUFLEN 8192
#define GRH    40

enum fault { BAD_LKEY, UD_TOO_LONG };

static struct ibv_device **devs;
static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_mr *mr;
static uint32_t dead_lkey;
static uint8_t mem[4][BUFLEN];
static uint8_t *const sbuf = mem[0];
static uint8_t (*const rbuf)[BUFLEN] = &mem[1];
static int gid_index = -1;
static union ibv_gid gid;

static int
suite_setup(void)
{
	struct ibv_mr *tmp;

	if (test_verbs_open_first(&devs, &ctx) != TEST_SUCCESS)
		return TEST_SKIPPED;
	if (to_dctx(ctx)->dev->engine == NULL)
		return TEST_SKIPPED;
	pd = ibv_alloc_pd(ctx);
	if (pd == NULL)
		return TEST_FAILED;
	mr = ibv_reg_mr(pd, mem, sizeof(mem), IBV_ACCESS_LOCAL_WRITE);
	tmp = ibv_reg_mr(pd, mem, sizeof(mem), IBV_ACCESS_LOCAL_WRITE);
	if (mr == NULL || tmp == NULL)
		return TEST_FAILED;
	/* the key of a deregistered MR: a local protection error */
	dead_lkey = tmp->lkey;
	ibv_dereg_mr(tmp);
	gid_index = test_verbs_first_gid(ctx, &gid);
	return gid_index >= 0 ? TEST_SUCCESS : TEST_SKIPPED;
}

static void
suite_teardown(void)
{
	if (mr)
		ibv_dereg_mr(mr);
	mr = NULL;
	test_verbs_release(&devs, &ctx, &pd);
}

/* QP a (its own send and receive CQs) and its peer b, both in RTS. */
struct pair {
	enum ibv_qp_type type;
	struct ibv_cq *as, *ar, *bcq;
	struct ibv_qp *a, *b;
	struct ibv_ah *ah; /* UD: the device's own GID */
	struct ibv_mr *rmr;
};

static int
modify(struct ibv_qp *qp, enum ibv_qp_state s, uint32_t dest)
{
	struct ibv_qp_attr a = {.qp_state = s, .port_num = 1};
	bool ud = qp->qp_type == IBV_QPT_UD, rc = qp->qp_type == IBV_QPT_RC;
	int mask = IBV_QP_STATE;

	switch (s) {
	case IBV_QPS_INIT:
		mask |= IBV_QP_PKEY_INDEX | IBV_QP_PORT;
		if (ud) {
			a.qkey = QKEY;
			mask |= IBV_QP_QKEY;
		} else {
			mask |= IBV_QP_ACCESS_FLAGS;
		}
		break;
	case IBV_QPS_RTR:
		if (ud)
			break;
		a.ah_attr.is_global = 1;
		a.ah_attr.grh.dgid = gid;
		a.ah_attr.grh.sgid_index = (uint8_t)gid_index;
		a.ah_attr.grh.hop_limit = 64;
		a.ah_attr.port_num = 1;
		a.path_mtu = IBV_MTU_1024;
		a.dest_qp_num = dest;
		a.max_dest_rd_atomic = 1;
		a.min_rnr_timer = 12;
		mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			IBV_QP_RQ_PSN;
		if (rc)
			mask |= IBV_QP_MAX_DEST_RD_ATOMIC |
				IBV_QP_MIN_RNR_TIMER;
		break;
	default:
		mask |= IBV_QP_SQ_PSN;
		if (rc) {
			a.timeout = 14;
			a.retry_cnt = 7;
			a.rnr_retry = 7;
			a.max_rd_atomic = 1;
			mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
		}
		break;
	}
	return ibv_modify_qp(qp, &a, mask);
}

static enum ibv_qp_state
qstate(struct ibv_qp *qp)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &ia))
		return IBV_QPS_UNKNOWN;
	return a.qp_state;
}

static struct ibv_qp *
mkqp(enum ibv_qp_type t, struct ibv_cq *s, struct ibv_cq *r)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = s,
		.recv_cq = r,
		.cap = {.max_send_wr = 8,
			.max_recv_wr = 8,
			.max_send_sge = 1,
			.max_recv_sge = 1},
		.qp_type = t,
	};

	return ibv_create_qp(pd, &ia);
}

static int
pair_open(struct pair *p, enum ibv_qp_type t)
{
	struct ibv_ah_attr aa = {
		.is_global = 1,
		.grh = {.dgid = gid,
			.sgid_index = (uint8_t)gid_index,
			.hop_limit = 64},
		.port_num = 1,
	};

	memset(p, 0, sizeof(*p));
	p->type = t;
	p->as = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	p->ar = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	p->bcq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	TEST_ASSERT(p->as && p->ar && p->bcq, "");
	p->a = mkqp(t, p->as, p->ar);
	p->b = mkqp(t, p->bcq, p->bcq);
	TEST_ASSERT(p->a && p->b, "errno %d", errno);
	TEST_ASSERT_EQUAL(modify(p->a, IBV_QPS_INIT, 0), 0, "");
	TEST_ASSERT_EQUAL(modify(p->b, IBV_QPS_INIT, 0), 0, "");
	TEST_ASSERT_EQUAL(modify(p->a, IBV_QPS_RTR, p->b->qp_num), 0, "");
	TEST_ASSERT_EQUAL(modify(p->b, IBV_QPS_RTR, p->a->qp_num), 0, "");
	TEST_ASSERT_EQUAL(modify(p->a, IBV_QPS_RTS, 0), 0, "");
	TEST_ASSERT_EQUAL(modify(p->b, IBV_QPS_RTS, 0), 0, "");
	if (t == IBV_QPT_UD) {
		p->ah = ibv_create_ah(pd, &aa);
		TEST_ASSERT_NOT_NULL(p->ah, "errno %d", errno);
	}
	return TEST_SUCCESS;
}

static int
pair_close(struct pair *p)
{
	if (p->ah)
		TEST_ASSERT_EQUAL(ibv_destroy_ah(p->ah), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_qp(p->a), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_qp(p->b), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_cq(p->as), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_cq(p->ar), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_cq(p->bcq), 0, "");
	return TEST_SUCCESS;
}

/* Fill wr/sge for a SEND of len bytes of sbuf from qp to dst. */
static void
send_wr(const struct pair *p, struct ibv_qp *dst, struct ibv_send_wr *wr,
	struct ibv_sge *sge, uint64_t id, uint32_t len, uint32_t lkey)
{
	sge->addr = (uintptr_t)sbuf;
	sge->length = len;
	sge->lkey = lkey;
	memset(wr, 0, sizeof(*wr));
	wr->wr_id = id;
	wr->sg_list = sge;
	wr->num_sge = 1;
	wr->opcode = IBV_WR_SEND;
	wr->send_flags = IBV_SEND_SIGNALED;
	if (p->type == IBV_QPT_UD) {
		wr->wr.ud.ah = p->ah;
		wr->wr.ud.remote_qpn = dst->qp_num;
		wr->wr.ud.remote_qkey = QKEY;
	}
}

static int
post_recv(struct ibv_qp *qp, uint64_t id, uint8_t *b)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)b, .length = BUFLEN, .lkey = mr->lkey};
	struct ibv_recv_wr wr = {.wr_id = id, .sg_list = &sge, .num_sge = 1};
	struct ibv_recv_wr *bad;

	return ibv_post_recv(qp, &wr, &bad);
}

/* One completion on c within 2 s: wr_id id with status st. */
static int
expect_wc(struct ibv_cq *c, uint64_t id, enum ibv_wc_status st,
	  struct ibv_wc *wc)
{
	TEST_ASSERT_EQUAL(test_loop_wait_wc(c, wc, 1, 2000), 1, "wr %llu",
			  (unsigned long long)id);
	TEST_ASSERT_EQUAL(wc->wr_id, id, "");
	TEST_ASSERT_EQUAL(wc->status, st, "wr %llu: %s", (unsigned long long)id,
			  ibv_wc_status_str(wc->status));
	return TEST_SUCCESS;
}

/* A SEND of len bytes from src to dst (lkey: of its SGE) that completes
 * on src's send CQ scq with status st. */
static int
send_one(const struct pair *p, struct ibv_qp *src, struct ibv_qp *dst,
	 struct ibv_cq *scq, uint64_t id, uint32_t len, uint32_t lkey,
	 enum ibv_wc_status st)
{
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge;
	struct ibv_wc wc;

	send_wr(p, dst, &wr, &sge, id, len, lkey);
	TEST_ASSERT_EQUAL(ibv_post_send(src, &wr, &bad), 0, "wr %llu",
			  (unsigned long long)id);
	return expect_wc(scq, id, st, &wc);
}

/* The next receive on c is wr_id id with len bytes of sbuf at b. */
static int
recv_one(struct ibv_cq *c, uint64_t id, uint32_t len, uint32_t grh,
	 const uint8_t *b)
{
	struct ibv_wc wc;

	if (expect_wc(c, id, IBV_WC_SUCCESS, &wc) != TEST_SUCCESS)
		return TEST_FAILED;
	TEST_ASSERT_EQUAL(wc.byte_len, len + grh, "wr %llu",
			  (unsigned long long)id);
	TEST_ASSERT_BUFFERS_EQUAL(b + grh, sbuf, len, "");
	return TEST_SUCCESS;
}

#define CHECK(x)                                                               \
	do {                                                                   \
		if ((x) != TEST_SUCCESS)                                       \
			return TEST_FAILED;                                    \
	} while (0)

/* RC after its error: ERR, the receive queue flushed, no way to RTS. */
static int
rc_in_err(struct pair *p)
{
	struct ibv_qp_attr qa = {.qp_state = IBV_QPS_RTS};
	struct ibv_wc wc;

	CHECK(expect_wc(p->ar, 500, IBV_WC_WR_FLUSH_ERR, &wc));
	TEST_ASSERT_EQUAL(ibv_modify_qp(p->a, &qa, IBV_QP_STATE), EINVAL,
			  "ERR -> RTS");
	qa.cur_qp_state = IBV_QPS_SQE;
	TEST_ASSERT_EQUAL(
		ibv_modify_qp(p->a, &qa, IBV_QP_STATE | IBV_QP_CUR_STATE),
		EINVAL, "cur_qp_state SQE in ERR");
	TEST_ASSERT_EQUAL(test_loop_wait_wc(p->bcq, &wc, 1, 100), 0,
			  "the peer received nothing");
	return TEST_SUCCESS;
}

/* UD/UC in SQE: receives, refuses a wrong cur_qp_state, SQE -> RTS
 * sends again, a second error goes to SQE again and back. */
static int
sqe_recover(struct pair *p, uint32_t grh)
{
	struct ibv_qp_attr qa = {.qp_state = IBV_QPS_RTS,
				 .cur_qp_state = IBV_QPS_RTS};
	const int mask = IBV_QP_STATE | IBV_QP_CUR_STATE;
	struct ibv_wc wc[2];

	CHECK(send_one(p, p->b, p->a, p->bcq, 700, 100, mr->lkey,
		       IBV_WC_SUCCESS));
	CHECK(recv_one(p->ar, 500, 100, grh, rbuf[0]));
	TEST_ASSERT_EQUAL(qstate(p->a), IBV_QPS_SQE, "");

	TEST_ASSERT_EQUAL(ibv_modify_qp(p->a, &qa, mask), EINVAL, "");
	TEST_ASSERT_EQUAL(qstate(p->a), IBV_QPS_SQE, "a refused modify");
	qa.cur_qp_state = IBV_QPS_SQE;
	TEST_ASSERT_EQUAL(ibv_modify_qp(p->a, &qa, mask), 0, "SQE -> RTS");
	TEST_ASSERT_EQUAL(qstate(p->a), IBV_QPS_RTS, "");
	CHECK(send_one(p, p->a, p->b, p->as, 5, 200, mr->lkey, IBV_WC_SUCCESS));
	/* the flushed WRs never reached b: its first receive is this one */
	CHECK(recv_one(p->bcq, 600, 200, grh, rbuf[1]));
	TEST_ASSERT_EQUAL(test_loop_wait_wc(p->bcq, wc, 2, 100), 0, "");

	CHECK(send_one(p, p->a, p->b, p->as, 6, 64, dead_lkey,
		       IBV_WC_LOC_PROT_ERR));
	TEST_ASSERT_EQUAL(qstate(p->a), IBV_QPS_SQE, "");
	TEST_ASSERT_EQUAL(ibv_modify_qp(p->a, &qa, IBV_QP_STATE), 0, "");
	CHECK(send_one(p, p->a, p->b, p->as, 7, 32, mr->lkey, IBV_WC_SUCCESS));
	CHECK(recv_one(p->bcq, 601, 32, grh, rbuf[2]));
	return TEST_SUCCESS;
}

static int
sqe_case(enum ibv_qp_type t, enum fault f)
{
	const bool rc = t == IBV_QPT_RC;
	const enum ibv_qp_state after = rc ? IBV_QPS_ERR : IBV_QPS_SQE;
	struct ibv_send_wr wr[3], *bad;
	struct ibv_sge sge[3];
	struct ibv_port_attr pa;
	struct ibv_wc wc[3];
	struct pair p;
	uint32_t big;
	int i, ret;

	ret = pair_open(&p, t);
	if (ret != TEST_SUCCESS)
		return ret;
	TEST_ASSERT_EQUAL(ibv_query_port(ctx, 1, &pa), 0, "");
	/* a UD message must fit one packet of the path MTU */
	big = (128u << pa.active_mtu) + 1;
	TEST_ASSERT(big + GRH <= BUFLEN, "mtu %d", pa.active_mtu);
	for (i = 0; i < BUFLEN; i++)
		sbuf[i] = (uint8_t)(i * 13 + 5);
	TEST_ASSERT_EQUAL(post_recv(p.a, 500, rbuf[0]), 0, "");
	TEST_ASSERT_EQUAL(post_recv(p.b, 600, rbuf[1]), 0, "");
	TEST_ASSERT_EQUAL(post_recv(p.b, 601, rbuf[2]), 0, "");

	/* a failing WR and two good ones behind it */
	if (f == BAD_LKEY)
		send_wr(&p, p.b, &wr[0], &sge[0], 1, 64, dead_lkey);
	else
		send_wr(&p, p.b, &wr[0], &sge[0], 1, big, mr->lkey);
	send_wr(&p, p.b, &wr[1], &sge[1], 2, 64, mr->lkey);
	send_wr(&p, p.b, &wr[2], &sge[2], 3, 64, mr->lkey);
	wr[0].next = &wr[1];
	wr[1].next = &wr[2];
	TEST_ASSERT_EQUAL(ibv_post_send(p.a, wr, &bad), 0, "");
	CHECK(expect_wc(
		p.as, 1,
		f == BAD_LKEY ? IBV_WC_LOC_PROT_ERR : IBV_WC_LOC_LEN_ERR, wc));
	TEST_ASSERT_EQUAL(wc[0].qp_num, p.a->qp_num, "");
	CHECK(expect_wc(p.as, 2, IBV_WC_WR_FLUSH_ERR, wc));
	CHECK(expect_wc(p.as, 3, IBV_WC_WR_FLUSH_ERR, wc));
	TEST_ASSERT_EQUAL(qstate(p.a), after, "");
	TEST_ASSERT_EQUAL(p.a->state, after, "");
	/* what is posted now is flushed */
	CHECK(send_one(&p, p.a, p.b, p.as, 4, 64, mr->lkey,
		       IBV_WC_WR_FLUSH_ERR));
	CHECK(rc ? rc_in_err(&p) : sqe_recover(&p, t == IBV_QPT_UD ? GRH : 0));
	return pair_close(&p);
}

#define SQE_CASE(name, type, fault)                                            \
	static int name(void)                                                  \
	{                                                                      \
		return sqe_case(type, fault);                                  \
	}

SQE_CASE(case_ud_bad_lkey, IBV_QPT_UD, BAD_LKEY)
SQE_CASE(case_ud_too_long, IBV_QPT_UD, UD_TOO_LONG)
SQE_CASE(case_uc_bad_lkey, IBV_QPT_UC, BAD_LKEY)
SQE_CASE(case_rc_bad_lkey_err, IBV_QPT_RC, BAD_LKEY)

/* An RDMA WRITE of 64 bytes from a into b's buffer through rkey, which
 * completes on a's send CQ with status st. */
static int
write_one(const struct pair *p, uint64_t id, uint32_t rkey,
	  enum ibv_wc_status st)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)sbuf, .length = 64, .lkey = mr->lkey};
	struct ibv_send_wr wr = {.wr_id = id,
				 .sg_list = &sge,
				 .num_sge = 1,
				 .opcode = IBV_WR_RDMA_WRITE,
				 .send_flags = IBV_SEND_SIGNALED,
				 .wr.rdma = {.remote_addr = (uintptr_t)rbuf[1],
					     .rkey = rkey}},
			   *bad;
	struct ibv_wc wc;

	TEST_ASSERT_EQUAL(ibv_post_send(p->a, &wr, &bad), 0, "");
	return expect_wc(p->as, id, st, &wc);
}

/*
 * The engine keeps the keys it looked up (a cache checked against each
 * key slot's version): a region used remotely, then re-registered without
 * remote write or deregistered, refuses the next WRITE through the same
 * rkey at once.
 */
static int
case_rc_stale_rkey(void)
{
	const int rw = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	struct ibv_mr *r;
	struct pair p;

	for (int how = 0; how < 2; how++) {
		if (pair_open(&p, IBV_QPT_RC) != TEST_SUCCESS)
			return TEST_FAILED;
		struct ibv_qp_attr qa = {.qp_access_flags =
						 IBV_ACCESS_REMOTE_WRITE};

		TEST_ASSERT_EQUAL(ibv_modify_qp(p.b, &qa, IBV_QP_ACCESS_FLAGS),
				  0, "");
		r = ibv_reg_mr(pd, rbuf[1], BUFLEN, rw);
		TEST_ASSERT_NOT_NULL(r, "errno %d", errno);
		for (uint64_t id = 1; id <= 3; id++)
			TEST_ASSERT_EQUAL(write_one(&p, id, r->rkey,
						    IBV_WC_SUCCESS),
					  TEST_SUCCESS, "write %u before",
					  (unsigned)id);
		if (how == 0) {
			TEST_ASSERT_EQUAL(
				ibv_rereg_mr(r, IBV_REREG_MR_CHANGE_ACCESS,
					     NULL, NULL, 0,
					     IBV_ACCESS_LOCAL_WRITE),
				0, "rereg");
		} else {
			TEST_ASSERT_EQUAL(ibv_dereg_mr(r), 0, "");
			r = NULL;
		}
		TEST_ASSERT_EQUAL(write_one(&p, 9, r ? r->rkey : 0,
					    IBV_WC_REM_ACCESS_ERR),
				  TEST_SUCCESS, "%s",
				  how ? "after dereg" : "after rereg");
		if (r != NULL)
			TEST_ASSERT_EQUAL(ibv_dereg_mr(r), 0, "");
		if (pair_close(&p) != TEST_SUCCESS)
			return TEST_FAILED;
	}
	return TEST_SUCCESS;
}

static struct dpv_test_suite qp_sqe_suite = {
	.name = "qp_sqe",
	.setup = suite_setup,
	.teardown = suite_teardown,
	.cases =
		{
			TEST_CASE(case_ud_bad_lkey),
			TEST_CASE(case_ud_too_long),
			TEST_CASE(case_uc_bad_lkey),
			TEST_CASE(case_rc_bad_lkey_err),
			TEST_CASE(case_rc_stale_rkey),
			TEST_CASES_END(),
		},
};

static int
test_qp_sqe(void)
{
	return dpv_test_run_suite(&qp_sqe_suite);
}

DPV_TEST_REGISTER_FAST(qp_sqe, test_qp_sqe);
