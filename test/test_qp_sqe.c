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
	int i, n;

	if (dpv_test_eal_init() != 0)
		return TEST_SKIPPED;
	devs = ibv_get_device_list(&n);
	if (devs == NULL || n == 0)
		return TEST_SKIPPED;
	ctx = ibv_open_device(devs[0]);
	if (ctx == NULL)
		return TEST_FAILED;
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
	for (i = 0; i < DPV_CAP_GID_TBL_LEN; i++)
		if (ibv_query_gid(ctx, 1, i, &gid) == 0 &&
		    (gid.global.subnet_prefix || gid.global.interface_id)) {
			gid_index = i;
			break;
		}
	return mr && gid_index >= 0 ? TEST_SUCCESS : TEST_SKIPPED;
}

static void
suite_teardown(void)
{
	if (mr)
		ibv_dereg_mr(mr);
	if (pd)
		ibv_dealloc_pd(pd);
	if (ctx)
		ibv_close_device(ctx);
	if (devs)
		ibv_free_device_list(devs);
	mr = NULL;
	pd = NULL;
	ctx = NULL;
	devs = NULL;
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

/* Up to n completions of c, polling (which runs the engine) for about
 * ms milliseconds at most. */
static int
wait_wc(struct ibv_cq *c, struct ibv_wc *wc, int n, int ms)
{
	int got = 0, i, r;

	for (i = 0; i < ms * 10 && got < n; i++) {
		r = ibv_poll_cq(c, n - got, wc + got);
		if (r < 0)
			return r;
		got += r;
		if (r == 0)
			usleep(100);
	}
	return got;
}

static int
sqe_case(enum ibv_qp_type t, enum fault f)
{
	const bool ud = t == IBV_QPT_UD, rc = t == IBV_QPT_RC;
	const uint32_t grh = ud ? GRH : 0;
	const enum ibv_wc_status want =
		f == BAD_LKEY ? IBV_WC_LOC_PROT_ERR : IBV_WC_LOC_LEN_ERR;
	struct ibv_send_wr wr[3], *bad;
	struct ibv_sge sge[3];
	struct ibv_qp_attr qa;
	struct ibv_port_attr pa;
	struct ibv_wc wc[8];
	struct pair p;
	uint32_t big;
	int i, rcode;

	rcode = pair_open(&p, t);
	if (rcode != TEST_SUCCESS)
		return rcode;
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
	TEST_ASSERT_EQUAL(wait_wc(p.as, wc, 3, 2000), 3, "send completions");
	TEST_ASSERT_EQUAL(wc[0].wr_id, 1, "");
	TEST_ASSERT_EQUAL(wc[0].status, want, "%s",
			  ibv_wc_status_str(wc[0].status));
	TEST_ASSERT_EQUAL(wc[0].qp_num, p.a->qp_num, "");
	for (i = 1; i < 3; i++) {
		TEST_ASSERT_EQUAL(wc[i].wr_id, (uint64_t)i + 1, "in order");
		TEST_ASSERT_EQUAL(wc[i].status, IBV_WC_WR_FLUSH_ERR, "wr %d",
				  i + 1);
	}
	TEST_ASSERT_EQUAL(qstate(p.a), (rc ? IBV_QPS_ERR : IBV_QPS_SQE), "");
	TEST_ASSERT_EQUAL(p.a->state, (rc ? IBV_QPS_ERR : IBV_QPS_SQE), "");

	/* what is posted now is flushed */
	send_wr(&p, p.b, &wr[0], &sge[0], 4, 64, mr->lkey);
	TEST_ASSERT_EQUAL(ibv_post_send(p.a, wr, &bad), 0, "");
	TEST_ASSERT_EQUAL(wait_wc(p.as, wc, 1, 2000), 1, "");
	TEST_ASSERT_EQUAL(wc[0].wr_id, 4, "");
	TEST_ASSERT_EQUAL(wc[0].status, IBV_WC_WR_FLUSH_ERR, "");

	if (rc) {
		/* ERR: the receive queue is flushed, no way back to RTS */
		TEST_ASSERT_EQUAL(wait_wc(p.ar, wc, 1, 2000), 1, "");
		TEST_ASSERT_EQUAL(wc[0].wr_id, 500, "");
		TEST_ASSERT_EQUAL(wc[0].status, IBV_WC_WR_FLUSH_ERR, "");
		memset(&qa, 0, sizeof(qa));
		qa.qp_state = IBV_QPS_RTS;
		TEST_ASSERT_EQUAL(ibv_modify_qp(p.a, &qa, IBV_QP_STATE), EINVAL,
				  "ERR -> RTS");
		qa.cur_qp_state = IBV_QPS_SQE;
		TEST_ASSERT_EQUAL(
			ibv_modify_qp(p.a, &qa,
				      IBV_QP_STATE | IBV_QP_CUR_STATE),
			EINVAL, "cur_qp_state SQE in ERR");
		TEST_ASSERT_EQUAL(wait_wc(p.bcq, wc, 1, 100), 0,
				  "the peer received nothing");
		return pair_close(&p);
	}

	/* SQE: the receive queue still receives */
	send_wr(&p, p.a, &wr[0], &sge[0], 700, 100, mr->lkey);
	TEST_ASSERT_EQUAL(ibv_post_send(p.b, wr, &bad), 0, "");
	TEST_ASSERT_EQUAL(wait_wc(p.ar, wc, 1, 2000), 1, "receive in SQE");
	TEST_ASSERT_EQUAL(wc[0].wr_id, 500, "");
	TEST_ASSERT_EQUAL(wc[0].status, IBV_WC_SUCCESS, "%s",
			  ibv_wc_status_str(wc[0].status));
	TEST_ASSERT_EQUAL(wc[0].byte_len, 100 + grh, "");
	TEST_ASSERT_BUFFERS_EQUAL(rbuf[0] + grh, sbuf, 100, "");
	TEST_ASSERT_EQUAL(wait_wc(p.bcq, wc, 1, 2000), 1, "");
	TEST_ASSERT_EQUAL(wc[0].wr_id, 700, "nothing else reached b");
	TEST_ASSERT_EQUAL(wc[0].status, IBV_WC_SUCCESS, "");
	TEST_ASSERT_EQUAL(qstate(p.a), IBV_QPS_SQE, "");

	/* SQE -> RTS with a wrong current state is refused, the right one
	 * resumes sending */
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_RTS;
	qa.cur_qp_state = IBV_QPS_RTS;
	TEST_ASSERT_EQUAL(
		ibv_modify_qp(p.a, &qa, IBV_QP_STATE | IBV_QP_CUR_STATE),
		EINVAL, "");
	TEST_ASSERT_EQUAL(qstate(p.a), IBV_QPS_SQE, "a refused modify");
	qa.cur_qp_state = IBV_QPS_SQE;
	TEST_ASSERT_EQUAL(
		ibv_modify_qp(p.a, &qa, IBV_QP_STATE | IBV_QP_CUR_STATE), 0,
		"SQE -> RTS");
	TEST_ASSERT_EQUAL(qstate(p.a), IBV_QPS_RTS, "");
	send_wr(&p, p.b, &wr[0], &sge[0], 5, 200, mr->lkey);
	TEST_ASSERT_EQUAL(ibv_post_send(p.a, wr, &bad), 0, "");
	TEST_ASSERT_EQUAL(wait_wc(p.as, wc, 1, 2000), 1, "");
	TEST_ASSERT_EQUAL(wc[0].wr_id, 5, "");
	TEST_ASSERT_EQUAL(wc[0].status, IBV_WC_SUCCESS, "%s",
			  ibv_wc_status_str(wc[0].status));
	TEST_ASSERT_EQUAL(wait_wc(p.bcq, wc, 2, 500), 1, "one receive");
	TEST_ASSERT_EQUAL(wc[0].wr_id, 600, "");
	TEST_ASSERT_EQUAL(wc[0].status, IBV_WC_SUCCESS, "");
	TEST_ASSERT_EQUAL(wc[0].byte_len, 200 + grh, "the WR after recovery");
	TEST_ASSERT_BUFFERS_EQUAL(rbuf[1] + grh, sbuf, 200, "");

	/* a second error: SQE again, and back */
	send_wr(&p, p.b, &wr[0], &sge[0], 6, 64, dead_lkey);
	TEST_ASSERT_EQUAL(ibv_post_send(p.a, wr, &bad), 0, "");
	TEST_ASSERT_EQUAL(wait_wc(p.as, wc, 1, 2000), 1, "");
	TEST_ASSERT_EQUAL(wc[0].status, IBV_WC_LOC_PROT_ERR, "");
	TEST_ASSERT_EQUAL(qstate(p.a), IBV_QPS_SQE, "");
	TEST_ASSERT_EQUAL(ibv_modify_qp(p.a, &qa, IBV_QP_STATE), 0, "");
	send_wr(&p, p.b, &wr[0], &sge[0], 7, 32, mr->lkey);
	TEST_ASSERT_EQUAL(ibv_post_send(p.a, wr, &bad), 0, "");
	TEST_ASSERT_EQUAL(wait_wc(p.as, wc, 1, 2000), 1, "");
	TEST_ASSERT_EQUAL(wc[0].status, IBV_WC_SUCCESS, "");
	TEST_ASSERT_EQUAL(wait_wc(p.bcq, wc, 1, 2000), 1, "");
	TEST_ASSERT_EQUAL(wc[0].wr_id, 601, "");
	TEST_ASSERT_EQUAL(wc[0].byte_len, 32 + grh, "");
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
			TEST_CASES_END(),
		},
};

static int
test_qp_sqe(void)
{
	return dpv_test_run_suite(&qp_sqe_suite);
}

DPV_TEST_REGISTER_FAST(qp_sqe, test_qp_sqe);
