/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IBV_QP_CREATE_SOURCE_QPN on the loopback device dpv0 (needs the
 * device's engine). A UD QP created with a source QPN sends with that
 * number (the receiver's WC src_qp), takes no frame addressed to its own
 * qp_num, and receives what is addressed to the source QPN when one of
 * its flows (ibv_create_flow, NORMAL) matches the frame; without a
 * matching flow the QP that owns the number gets it, or it is dropped and
 * counted. Bad attributes are refused with rdma-core's / mlx5's errno.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>
#include <infiniband/verbs.h>

#include "dpv_test.h"
#include "dpv_engine.h"
#include "verbs_int.h"
#include "test_verbs_util.h"

#define QKEY   0x22222222u
#define BUFLEN 256
#define GRH    40
#define FREE_QPN 0x5a5a5au /* a number no QP of the test owns */

static struct ibv_device **devs;
static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_mr *mr;
static struct ibv_cq *cq; /* every QP's send and receive CQ */
static struct ibv_ah *ah; /* the device's own GID */
static uint8_t mem[16][BUFLEN];
static int gid_index = -1;
static union ibv_gid gid;

static int
suite_setup(void)
{
	struct ibv_ah_attr aa = {.is_global = 1, .port_num = 1};

	if (test_verbs_open_first(&devs, &ctx) != TEST_SUCCESS)
		return TEST_SKIPPED;
	if (to_dctx(ctx)->dev->engine == NULL)
		return TEST_SKIPPED;
	gid_index = test_verbs_first_gid(ctx, &gid);
	if (gid_index < 0)
		return TEST_SKIPPED;
	pd = ibv_alloc_pd(ctx);
	if (pd == NULL)
		return TEST_FAILED;
	mr = ibv_reg_mr(pd, mem, sizeof(mem), IBV_ACCESS_LOCAL_WRITE);
	cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	aa.grh.dgid = gid;
	aa.grh.sgid_index = (uint8_t)gid_index;
	aa.grh.hop_limit = 64;
	ah = ibv_create_ah(pd, &aa);
	return mr && cq && ah ? TEST_SUCCESS : TEST_FAILED;
}

static void
suite_teardown(void)
{
	if (ah)
		ibv_destroy_ah(ah);
	if (cq)
		ibv_destroy_cq(cq);
	if (mr)
		ibv_dereg_mr(mr);
	ah = NULL;
	cq = NULL;
	mr = NULL;
	test_verbs_release(&devs, &ctx, &pd);
}

static void
init_attr(struct ibv_qp_init_attr_ex *a, enum ibv_qp_type t, uint32_t flags,
	  uint32_t source_qpn)
{
	memset(a, 0, sizeof(*a));
	a->send_cq = cq;
	a->recv_cq = cq;
	a->cap.max_send_wr = 8;
	a->cap.max_recv_wr = 8;
	a->cap.max_send_sge = 1;
	a->cap.max_recv_sge = 1;
	a->qp_type = t;
	a->comp_mask = IBV_QP_INIT_ATTR_PD;
	a->pd = pd;
	if (flags) {
		a->comp_mask |= IBV_QP_INIT_ATTR_CREATE_FLAGS;
		a->create_flags = flags;
	}
	a->source_qpn = source_qpn;
}

/* A UD QP in RTS (with a source QPN unless src is 0), or NULL. */
static struct ibv_qp *
ud_qp(uint32_t src)
{
	struct ibv_qp_init_attr_ex a;
	struct ibv_qp_attr qa = {.qp_state = IBV_QPS_INIT,
				 .port_num = 1,
				 .qkey = QKEY};
	struct ibv_qp *qp;

	init_attr(&a, IBV_QPT_UD, src ? IBV_QP_CREATE_SOURCE_QPN : 0, src);
	qp = ibv_create_qp_ex(ctx, &a);
	if (qp == NULL)
		return NULL;
	if (ibv_modify_qp(qp, &qa,
			  IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				  IBV_QP_QKEY) != 0)
		goto err;
	qa.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(qp, &qa, IBV_QP_STATE) != 0)
		goto err;
	qa.qp_state = IBV_QPS_RTS;
	if (ibv_modify_qp(qp, &qa, IBV_QP_STATE | IBV_QP_SQ_PSN) != 0)
		goto err;
	return qp;
err:
	ibv_destroy_qp(qp);
	return NULL;
}

static int
post_recv(struct ibv_qp *qp, uint64_t id)
{
	struct ibv_sge sge = {.addr = (uintptr_t)mem[id % 16],
			      .length = BUFLEN,
			      .lkey = mr->lkey};
	struct ibv_recv_wr wr = {.wr_id = id, .sg_list = &sge, .num_sge = 1};
	struct ibv_recv_wr *bad;

	return ibv_post_recv(qp, &wr, &bad);
}

/* Poll for the send completion send_id (up to 2 s) and a receive
 * completion, which may come first; once the send completed, ms without
 * a receive ends the wait. Returns the number of receive completions
 * seen, the last in *rwc; -1 if the send did not complete successfully. */
static int
drain(uint64_t send_id, int ms, struct ibv_wc *rwc)
{
	int got_send = 0, nrecv = 0, waited = 0, quiet = 0;
	struct ibv_wc wc;

	while (waited < 2000 + ms && !(got_send && nrecv)) {
		if (test_loop_wait_wc(cq, &wc, 1, 10) != 1) {
			waited += 10;
			if (got_send && (quiet += 10) >= ms)
				break;
			continue;
		}
		if (wc.opcode == IBV_WC_RECV) {
			*rwc = wc;
			nrecv++;
		} else if (wc.wr_id == send_id && wc.status == IBV_WC_SUCCESS) {
			got_send++;
		}
	}
	return got_send == 1 ? nrecv : -1;
}

/* A SEND of 16 bytes from src to the number dqpn (signalled, wr_id id);
 * what arrived: the count of receive completions within ~ms (-1: the
 * send did not complete), the last in *rwc. */
static int
send_to(struct ibv_qp *src, uint32_t dqpn, uint64_t id, int ms,
	struct ibv_wc *rwc)
{
	struct ibv_sge sge = {.addr = (uintptr_t)mem[0],
			      .length = 16,
			      .lkey = mr->lkey};
	struct ibv_send_wr wr = {.wr_id = id,
				 .sg_list = &sge,
				 .num_sge = 1,
				 .opcode = IBV_WR_SEND,
				 .send_flags = IBV_SEND_SIGNALED,
				 .wr.ud = {.ah = ah,
					   .remote_qpn = dqpn,
					   .remote_qkey = QKEY}},
			   *bad;

	memset(rwc, 0, sizeof(*rwc));
	if (ibv_post_send(src, &wr, &bad) != 0)
		return -1;
	return drain(id, ms, rwc);
}

/* A NORMAL flow matching UDP destination port 4791 (every RoCE frame),
 * or with miss a UDP source port RoCE never uses (rxe's are 0xc000 and
 * above). */
static struct ibv_flow *
flow_roce(struct ibv_qp *qp, enum ibv_flow_attr_type t, bool miss)
{
	struct {
		struct ibv_flow_attr attr;
		struct ibv_flow_spec_tcp_udp udp;
	} f;

	memset(&f, 0, sizeof(f));
	f.attr.type = t;
	f.attr.size = sizeof(f);
	f.attr.port = 1;
	f.attr.num_of_specs = 1;
	f.udp.type = IBV_FLOW_SPEC_UDP;
	f.udp.size = sizeof(f.udp);
	f.udp.val.dst_port = htons(4791);
	f.udp.mask.dst_port = 0xffff;
	if (miss) {
		f.udp.val.src_port = htons(1);
		f.udp.mask.src_port = 0xffff;
	}
	if (t != IBV_FLOW_ATTR_NORMAL) { /* default rules take no spec */
		f.attr.num_of_specs = 0;
		f.attr.size = sizeof(f.attr);
	}
	return ibv_create_flow(qp, &f.attr);
}

static uint64_t
dev_counter(bool srcqpn_drop)
{
	struct dpv_engine_stats st;

	if (dpv_engine_stats_get(to_dctx(ctx)->dev->engine, &st) != 0)
		return UINT64_MAX;
	return srcqpn_drop ? st.rx_drop_srcqpn : st.rx_drop_noqp;
}

static int
case_bad_attrs(void)
{
	static const uint32_t bad_qpn[] = {0, 1, 0xffffff, 0x1000000,
					   0xffffffffu};
	static const enum ibv_qp_type not_ud[] = {IBV_QPT_RC, IBV_QPT_UC,
						  IBV_QPT_RAW_PACKET};
	struct ibv_qp_init_attr_ex a;
	struct ibv_qp *qp;

	/* a UD flag (mlx5: EINVAL for any other type) */
	for (unsigned int i = 0; i < RTE_DIM(not_ud); i++) {
		init_attr(&a, not_ud[i], IBV_QP_CREATE_SOURCE_QPN, 0x1234);
		errno = 0;
		TEST_ASSERT_NULL(ibv_create_qp_ex(ctx, &a), "type %d",
				 not_ud[i]);
		TEST_ASSERT_EQUAL(errno, EINVAL, "type %d", not_ud[i]);
	}
	/* a number no QP can have */
	for (unsigned int i = 0; i < RTE_DIM(bad_qpn); i++) {
		init_attr(&a, IBV_QPT_UD, IBV_QP_CREATE_SOURCE_QPN,
			  bad_qpn[i]);
		errno = 0;
		TEST_ASSERT_NULL(ibv_create_qp_ex(ctx, &a), "qpn %#x",
				 bad_qpn[i]);
		TEST_ASSERT_EQUAL(errno, EINVAL, "qpn %#x", bad_qpn[i]);
	}
	/* source_qpn without the flag (or without the comp_mask bit that
	 * makes create_flags valid) is not read */
	init_attr(&a, IBV_QPT_UD, 0, 0xffffffffu);
	a.create_flags = IBV_QP_CREATE_SOURCE_QPN; /* comp_mask lacks it */
	qp = ibv_create_qp_ex(ctx, &a);
	TEST_ASSERT_NOT_NULL(qp, "errno %d", errno);
	/* flows: a plain UD QP has none; a source-QPN one NORMAL only */
	errno = 0;
	TEST_ASSERT_NULL(flow_roce(qp, IBV_FLOW_ATTR_NORMAL, false), "");
	TEST_ASSERT_EQUAL(errno, EOPNOTSUPP, "");
	TEST_ASSERT_EQUAL(ibv_destroy_qp(qp), 0, "");
	qp = ud_qp(FREE_QPN);
	TEST_ASSERT_NOT_NULL(qp, "errno %d", errno);
	errno = 0;
	TEST_ASSERT_NULL(flow_roce(qp, IBV_FLOW_ATTR_SNIFFER, false), "");
	TEST_ASSERT_EQUAL(errno, EOPNOTSUPP, "");
	TEST_ASSERT_EQUAL(ibv_destroy_qp(qp), 0, "");
	return TEST_SUCCESS;
}

/* Sends carry the source QPN; the QP keeps its own qp_num. */
static int
case_send(void)
{
	struct ibv_qp *s, *r, *plain;
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr qa;
	struct ibv_wc wc;

	s = ud_qp(FREE_QPN);
	r = ud_qp(0);
	TEST_ASSERT(s && r, "errno %d", errno);
	TEST_ASSERT(s->qp_num != FREE_QPN, "own number %#x", s->qp_num);
	TEST_ASSERT_EQUAL(ibv_query_qp(s, &qa, IBV_QP_STATE, &ia), 0, "");
	TEST_ASSERT_EQUAL(qa.qp_state, IBV_QPS_RTS, "");
	TEST_ASSERT_EQUAL(ia.qp_type, IBV_QPT_UD, "");
	for (uint64_t id = 1; id <= 3; id++) {
		TEST_ASSERT_EQUAL(post_recv(r, 100 + id), 0, "");
		TEST_ASSERT_EQUAL(send_to(s, r->qp_num, id, 200, &wc), 1,
				  "send %u", (unsigned)id);
		TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "");
		TEST_ASSERT_EQUAL(wc.qp_num, r->qp_num, "");
		TEST_ASSERT_EQUAL(wc.src_qp, FREE_QPN, "src_qp %#x",
				  wc.src_qp);
		TEST_ASSERT_EQUAL(wc.byte_len, 16 + GRH, "");
	}
	/* a QP without the flag sends with its own number */
	plain = ud_qp(0);
	TEST_ASSERT_NOT_NULL(plain, "");
	TEST_ASSERT_EQUAL(post_recv(r, 110), 0, "");
	TEST_ASSERT_EQUAL(send_to(plain, r->qp_num, 9, 200, &wc), 1, "");
	TEST_ASSERT_EQUAL(wc.src_qp, plain->qp_num, "");
	TEST_ASSERT_EQUAL(ibv_destroy_qp(plain), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_qp(s), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_qp(r), 0, "");
	return TEST_SUCCESS;
}

/*
 * Receive through flow steering. s shares the number of o (the owner);
 * s2 has a number nobody owns; t sends.
 */
static int
case_recv(void)
{
	struct ibv_qp *o, *s, *s2, *t;
	struct ibv_flow *f, *miss;
	struct ibv_wc wc;
	uint64_t c0;

	o = ud_qp(0);
	TEST_ASSERT_NOT_NULL(o, "");
	s = ud_qp(o->qp_num);
	s2 = ud_qp(FREE_QPN);
	t = ud_qp(0);
	TEST_ASSERT(s && s2 && t, "errno %d", errno);
	TEST_ASSERT_EQUAL(post_recv(o, 200), 0, "");
	for (uint64_t id = 300; id < 304; id++) {
		TEST_ASSERT_EQUAL(post_recv(s, id), 0, "");
		TEST_ASSERT_EQUAL(post_recv(s2, id + 10), 0, "");
	}

	/* s's own number is no address: dropped and counted */
	c0 = dev_counter(true);
	TEST_ASSERT_EQUAL(send_to(t, s->qp_num, 1, 100, &wc), 0, "");
	TEST_ASSERT_EQUAL(dev_counter(true), c0 + 1, "rx_drop_srcqpn");
	/* no flow: the owner of the number receives */
	TEST_ASSERT_EQUAL(send_to(t, o->qp_num, 2, 100, &wc), 1, "");
	TEST_ASSERT_EQUAL(wc.qp_num, o->qp_num, "to the owner");
	/* a free number with no flow: dropped and counted */
	c0 = dev_counter(false);
	TEST_ASSERT_EQUAL(send_to(t, FREE_QPN, 3, 100, &wc), 0, "");
	TEST_ASSERT_EQUAL(dev_counter(false), c0 + 1, "rx_drop_noqp");

	/* a flow that does not match takes nothing */
	miss = flow_roce(s, IBV_FLOW_ATTR_NORMAL, true);
	TEST_ASSERT_NOT_NULL(miss, "errno %d", errno);
	TEST_ASSERT_EQUAL(post_recv(o, 201), 0, "");
	TEST_ASSERT_EQUAL(send_to(t, o->qp_num, 4, 100, &wc), 1, "");
	TEST_ASSERT_EQUAL(wc.qp_num, o->qp_num, "missed flow: the owner");

	/* a matching flow steers the number's frames to s */
	f = flow_roce(s, IBV_FLOW_ATTR_NORMAL, false);
	TEST_ASSERT_NOT_NULL(f, "errno %d", errno);
	TEST_ASSERT_EQUAL(send_to(t, o->qp_num, 5, 100, &wc), 1, "");
	TEST_ASSERT_EQUAL(wc.qp_num, s->qp_num, "steered to %#x", wc.qp_num);
	TEST_ASSERT_EQUAL(wc.src_qp, t->qp_num, "");
	TEST_ASSERT_EQUAL(wc.wr_id, 300, "");
	/* a QP with flows is not destroyed (as rdma-core: EBUSY) */
	TEST_ASSERT_EQUAL(ibv_destroy_qp(s), EBUSY, "");
	TEST_ASSERT_EQUAL(ibv_destroy_flow(f), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_flow(miss), 0, "");
	/* the flow gone, the owner receives again */
	TEST_ASSERT_EQUAL(post_recv(o, 202), 0, "");
	TEST_ASSERT_EQUAL(send_to(t, o->qp_num, 6, 100, &wc), 1, "");
	TEST_ASSERT_EQUAL(wc.qp_num, o->qp_num, "");
	TEST_ASSERT_EQUAL(wc.wr_id, 202, "");

	/* a number nobody owns, with a flow */
	f = flow_roce(s2, IBV_FLOW_ATTR_NORMAL, false);
	TEST_ASSERT_NOT_NULL(f, "errno %d", errno);
	TEST_ASSERT_EQUAL(send_to(t, FREE_QPN, 7, 100, &wc), 1, "");
	TEST_ASSERT_EQUAL(wc.qp_num, s2->qp_num, "");
	TEST_ASSERT_EQUAL(wc.src_qp, t->qp_num, "");
	/* s2 answers: the reply goes to the source QPN it is known by */
	TEST_ASSERT_EQUAL(post_recv(t, 400), 0, "");
	TEST_ASSERT_EQUAL(send_to(s2, t->qp_num, 8, 100, &wc), 1, "");
	TEST_ASSERT_EQUAL(wc.src_qp, FREE_QPN, "");
	TEST_ASSERT_EQUAL(ibv_destroy_flow(f), 0, "");

	TEST_ASSERT_EQUAL(ibv_destroy_qp(s2), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_qp(s), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_qp(t), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_qp(o), 0, "");
	return TEST_SUCCESS;
}

static struct dpv_test_suite qp_srcqpn_suite = {
	.name = "qp_srcqpn",
	.setup = suite_setup,
	.teardown = suite_teardown,
	.cases =
		{
			TEST_CASE(case_bad_attrs),
			TEST_CASE(case_send),
			TEST_CASE(case_recv),
			TEST_CASES_END(),
		},
};

static int
test_qp_srcqpn(void)
{
	return dpv_test_run_suite(&qp_srcqpn_suite);
}

DPV_TEST_REGISTER_FAST(qp_srcqpn, test_qp_srcqpn);
