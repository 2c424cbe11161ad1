/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The device limits hold together, and what a queue reports is accepted
 * again: a QP (RC, UC, UD, XRC_SEND, raw packet) created with
 * ibv_query_device's max_qp_wr and max_sge (and the largest inline size)
 * all at once exists; the caps ibv_create_qp writes back never exceed the
 * device limits and create the same QP again. The same for SRQs (basic
 * and XRC) with max_srq_wr and max_srq_sge, and for receive WQs.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>

#include <infiniband/verbs.h>

#include "dpv_test.h"
#include "verbs_caps.h"
#include "test_verbs_util.h"

#define DIM(a) (sizeof(a) / sizeof((a)[0]))

static struct ibv_device **devs;
static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_device_attr dattr;

static int
suite_setup(void)
{
	if (test_verbs_open_first(&devs, &ctx) != TEST_SUCCESS)
		return TEST_SKIPPED;
	if (ibv_query_device(ctx, &dattr) != 0)
		return TEST_FAILED;
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	return pd && cq ? TEST_SUCCESS : TEST_FAILED;
}

static void
suite_teardown(void)
{
	if (cq)
		ibv_destroy_cq(cq);
	cq = NULL;
	test_verbs_release(&devs, &ctx, &pd);
}

/* ibv_create_qp_ex of type t with *cap; the written-back caps in *cap.
 * 0 or the errno. */
static int
create_qp(enum ibv_qp_type t, struct ibv_qp_cap *cap)
{
	struct ibv_qp_init_attr_ex a = {
		.qp_type = t,
		.send_cq = cq,
		.recv_cq = t == IBV_QPT_XRC_SEND ? NULL : cq,
		.cap = *cap,
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = pd,
	};
	struct ibv_qp_init_attr qi;
	struct ibv_qp_attr qa;
	struct ibv_qp *qp;
	int rc = 0;

	errno = 0;
	qp = ibv_create_qp_ex(ctx, &a);
	if (qp == NULL)
		return errno ? errno : -1;
	*cap = a.cap;
	/* ibv_query_qp reports the same caps */
	if (ibv_query_qp(qp, &qa, IBV_QP_CAP, &qi) != 0 ||
	    memcmp(&qa.cap, cap, sizeof(*cap)) != 0 ||
	    memcmp(&qi.cap, cap, sizeof(*cap)) != 0)
		rc = -2;
	if (ibv_destroy_qp(qp) != 0)
		rc = -3;
	return rc;
}

/* The written-back caps cover the request and stay within the limits. */
static int
check_caps(enum ibv_qp_type t, const struct ibv_qp_cap *req,
	   const struct ibv_qp_cap *got)
{
	const bool rq = t != IBV_QPT_XRC_SEND;

	TEST_ASSERT(got->max_send_wr >= req->max_send_wr &&
			    got->max_send_wr <= (uint32_t)dattr.max_qp_wr,
		    "type %d: max_send_wr %u for %u", t, got->max_send_wr,
		    req->max_send_wr);
	TEST_ASSERT(got->max_send_sge >= req->max_send_sge &&
			    got->max_send_sge <= (uint32_t)dattr.max_sge,
		    "type %d: max_send_sge %u for %u", t, got->max_send_sge,
		    req->max_send_sge);
	TEST_ASSERT(got->max_inline_data >= req->max_inline_data &&
			    got->max_inline_data <= DPV_CAP_MAX_INLINE,
		    "type %d: max_inline_data %u for %u", t,
		    got->max_inline_data, req->max_inline_data);
	if (!rq)
		return TEST_SUCCESS;
	TEST_ASSERT(got->max_recv_wr >= req->max_recv_wr &&
			    got->max_recv_wr <= (uint32_t)dattr.max_qp_wr,
		    "type %d: max_recv_wr %u for %u", t, got->max_recv_wr,
		    req->max_recv_wr);
	TEST_ASSERT(got->max_recv_sge >= req->max_recv_sge &&
			    got->max_recv_sge <= (uint32_t)dattr.max_sge,
		    "type %d: max_recv_sge %u for %u", t, got->max_recv_sge,
		    req->max_recv_sge);
	return TEST_SUCCESS;
}

/* Create with req, check, create again with what came back: the same. */
static int
round_trip(enum ibv_qp_type t, const struct ibv_qp_cap *req)
{
	struct ibv_qp_cap got = *req, again;
	int rc;

	rc = create_qp(t, &got);
	TEST_ASSERT_EQUAL(rc, 0, "type %d: wr %u sge %u inline %u", t,
			  req->max_send_wr, req->max_send_sge,
			  req->max_inline_data);
	if (check_caps(t, req, &got) != TEST_SUCCESS)
		return TEST_FAILED;
	again = got;
	rc = create_qp(t, &again);
	TEST_ASSERT_EQUAL(rc, 0, "type %d: the written-back caps again", t);
	TEST_ASSERT(
		memcmp(&again, &got, sizeof(got)) == 0,
		"type %d: asked for what was reported (%u %u %u %u %u), got "
		"%u %u %u %u %u",
		t, got.max_send_wr, got.max_recv_wr, got.max_send_sge,
		got.max_recv_sge, got.max_inline_data, again.max_send_wr,
		again.max_recv_wr, again.max_send_sge, again.max_recv_sge,
		again.max_inline_data);
	return TEST_SUCCESS;
}

static int
case_qp_caps(void)
{
	static const enum ibv_qp_type types[] = {IBV_QPT_RC, IBV_QPT_UC,
						 IBV_QPT_UD, IBV_QPT_XRC_SEND,
						 IBV_QPT_RAW_PACKET};
	const uint32_t maxwr = (uint32_t)dattr.max_qp_wr;
	const uint32_t maxsge = (uint32_t)dattr.max_sge;
	/* around the WQE sizes: 1..4 blocks, 5, 6 */
	const uint32_t wrs[] = {1, 1000, maxwr / 2 + 1, maxwr};
	const uint32_t sges[] = {0, 1, 3, 11, 12, 13, maxsge};
	const uint32_t inls[] = {0, 60, 188, 189, 252, DPV_CAP_MAX_INLINE};
	struct ibv_qp_cap req, over;
	unsigned int i, w, s, n;

	TEST_ASSERT(dattr.max_qp_wr > 0 && dattr.max_sge > 0, "");
	for (i = 0; i < DIM(types); i++) {
		/* every device maximum at once */
		req = (struct ibv_qp_cap){maxwr, maxwr, maxsge, maxsge,
					  DPV_CAP_MAX_INLINE};
		if (types[i] == IBV_QPT_RAW_PACKET &&
		    create_qp(types[i], &req) == EOPNOTSUPP)
			continue; /* no raw packet on this port */
		req = (struct ibv_qp_cap){maxwr, maxwr, maxsge, maxsge,
					  DPV_CAP_MAX_INLINE};
		if (round_trip(types[i], &req) != TEST_SUCCESS)
			return TEST_FAILED;
		for (w = 0; w < DIM(wrs); w++)
			for (s = 0; s < DIM(sges); s++)
				for (n = 0; n < DIM(inls); n++) {
					req = (struct ibv_qp_cap){
						wrs[w], wrs[w], sges[s],
						sges[s] ? sges[s] : 1, inls[n]};
					if (round_trip(types[i], &req) !=
					    TEST_SUCCESS)
						return TEST_FAILED;
				}
		/* one above a limit is refused */
		req = (struct ibv_qp_cap){maxwr, maxwr, maxsge, maxsge,
					  DPV_CAP_MAX_INLINE};
		over = req;
		over.max_send_wr++;
		TEST_ASSERT_EQUAL(create_qp(types[i], &over), EINVAL, "");
		over = req;
		over.max_send_sge++;
		TEST_ASSERT_EQUAL(create_qp(types[i], &over), EINVAL, "");
		over = req;
		over.max_inline_data++;
		TEST_ASSERT_EQUAL(create_qp(types[i], &over), EINVAL, "");
		if (types[i] == IBV_QPT_XRC_SEND)
			continue;
		over = req;
		over.max_recv_wr++;
		TEST_ASSERT_EQUAL(create_qp(types[i], &over), EINVAL, "");
		over = req;
		over.max_recv_sge++;
		TEST_ASSERT_EQUAL(create_qp(types[i], &over), EINVAL, "");
	}
	return TEST_SUCCESS;
}

/* ibv_create_srq_ex of an SRQ (XRC if xrcd) with *a; written back in *a */
static int
create_srq(struct ibv_xrcd *xrcd, struct ibv_srq_attr *a)
{
	struct ibv_srq_init_attr_ex ia = {
		.attr = *a,
		.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD,
		.srq_type = IBV_SRQT_BASIC,
		.pd = pd,
	};
	struct ibv_srq_attr qa;
	struct ibv_srq *srq;
	int rc = 0;

	if (xrcd) {
		ia.srq_type = IBV_SRQT_XRC;
		ia.xrcd = xrcd;
		ia.cq = cq;
		ia.comp_mask |= IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ;
	}
	errno = 0;
	srq = ibv_create_srq_ex(ctx, &ia);
	if (srq == NULL)
		return errno ? errno : -1;
	*a = ia.attr;
	if (ibv_query_srq(srq, &qa) != 0 || qa.max_wr != a->max_wr ||
	    qa.max_sge != a->max_sge)
		rc = -2;
	if (ibv_destroy_srq(srq) != 0)
		rc = -3;
	return rc;
}

static int
srq_caps(struct ibv_xrcd *xrcd)
{
	const uint32_t maxwr = (uint32_t)dattr.max_srq_wr;
	const uint32_t maxsge = (uint32_t)dattr.max_srq_sge;
	const uint32_t wrs[] = {1, 100, maxwr / 2 + 1, maxwr};
	const uint32_t sges[] = {1, 2, 5, 9, maxsge};
	struct ibv_srq_attr req, got, again;
	unsigned int w, s;

	for (w = 0; w < DIM(wrs); w++)
		for (s = 0; s < DIM(sges); s++) {
			req = (struct ibv_srq_attr){.max_wr = wrs[w],
						    .max_sge = sges[s]};
			got = req;
			TEST_ASSERT_EQUAL(create_srq(xrcd, &got), 0,
					  "wr %u sge %u", req.max_wr,
					  req.max_sge);
			TEST_ASSERT(got.max_wr >= req.max_wr &&
					    got.max_wr <= maxwr,
				    "max_wr %u for %u", got.max_wr, req.max_wr);
			TEST_ASSERT(got.max_sge >= req.max_sge &&
					    got.max_sge <= maxsge,
				    "max_sge %u for %u", got.max_sge,
				    req.max_sge);
			again = got;
			TEST_ASSERT_EQUAL(create_srq(xrcd, &again), 0,
					  "the written-back attributes again");
			TEST_ASSERT(again.max_wr == got.max_wr &&
					    again.max_sge == got.max_sge,
				    "");
		}
	req = (struct ibv_srq_attr){.max_wr = maxwr + 1, .max_sge = 1};
	TEST_ASSERT_EQUAL(create_srq(xrcd, &req), EINVAL, "");
	req = (struct ibv_srq_attr){.max_wr = 1, .max_sge = maxsge + 1};
	TEST_ASSERT_EQUAL(create_srq(xrcd, &req), EINVAL, "");
	return TEST_SUCCESS;
}

static int
case_srq_caps(void)
{
	return srq_caps(NULL);
}

static int
case_xrc_srq_caps(void)
{
	struct ibv_xrcd_init_attr xa = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.fd = -1,
		.oflags = O_CREAT,
	};
	struct ibv_xrcd *xrcd;
	int rc;

	errno = 0;
	xrcd = ibv_open_xrcd(ctx, &xa);
	if (xrcd == NULL && errno == EOPNOTSUPP)
		return TEST_SKIPPED;
	TEST_ASSERT_NOT_NULL(xrcd, "errno %d", errno);
	rc = srq_caps(xrcd);
	TEST_ASSERT_EQUAL(ibv_close_xrcd(xrcd), 0, "");
	return rc;
}

/* Receive WQs (raw packet): max_wr/max_sge written back, and again. */
static int
case_wq_caps(void)
{
	const uint32_t maxwr = (uint32_t)dattr.max_qp_wr;
	const uint32_t maxsge = (uint32_t)dattr.max_sge;
	const uint32_t wrs[] = {1, 100, maxwr / 2 + 1, maxwr};
	struct ibv_wq_init_attr a;
	struct ibv_wq *wq;
	unsigned int w, k;

	for (w = 0; w < DIM(wrs); w++) {
		uint32_t want_wr = wrs[w], want_sge = maxsge;

		for (k = 0; k < 2; k++) {
			memset(&a, 0, sizeof(a));
			a.wq_type = IBV_WQT_RQ;
			a.max_wr = want_wr;
			a.max_sge = want_sge;
			a.pd = pd;
			a.cq = cq;
			errno = 0;
			wq = ibv_create_wq(ctx, &a);
			if (wq == NULL && errno == EOPNOTSUPP && w == 0)
				return TEST_SKIPPED; /* no raw packet */
			TEST_ASSERT_NOT_NULL(wq, "wr %u sge %u: errno %d",
					     want_wr, want_sge, errno);
			TEST_ASSERT(a.max_wr >= want_wr && a.max_wr <= maxwr,
				    "max_wr %u for %u", a.max_wr, want_wr);
			TEST_ASSERT(a.max_sge >= want_sge &&
					    a.max_sge <= maxsge,
				    "max_sge %u for %u", a.max_sge, want_sge);
			TEST_ASSERT(k == 0 || (a.max_wr == want_wr &&
					       a.max_sge == want_sge),
				    "the written-back attributes again");
			TEST_ASSERT_EQUAL(ibv_destroy_wq(wq), 0, "");
			want_wr = a.max_wr;
			want_sge = a.max_sge;
		}
	}
	return TEST_SUCCESS;
}

static struct dpv_test_suite qp_caps_suite = {
	.name = "qp_caps",
	.setup = suite_setup,
	.teardown = suite_teardown,
	.cases =
		{
			TEST_CASE(case_qp_caps),
			TEST_CASE(case_srq_caps),
			TEST_CASE(case_xrc_srq_caps),
			TEST_CASE(case_wq_caps),
			TEST_CASES_END(),
		},
};

static int
test_qp_caps(void)
{
	return dpv_test_run_suite(&qp_caps_suite);
}

DPV_TEST_REGISTER_FAST(qp_caps, test_qp_caps);
