/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Queue pairs through the public verbs API on the loopback device dpv0:
 * create (caps, types, comp_mask, create flags, send ops), the state walk
 * of every type with ibv_query_qp, refused modifies that change nothing,
 * posting in each state, destroy ordering, multicast, flush on ERR.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <infiniband/verbs.h>

#include "dpv_test.h"
#include "verbs_caps.h"
#include "verbs_int.h"
#include "qp.h"
#include "test_verbs_util.h"

#define DIM(a) (sizeof(a) / sizeof((a)[0]))

static struct ibv_device **devs;
static struct ibv_context *ctx, *ctx2;
static struct ibv_pd *pd;
static struct ibv_cq *cq, *cq2, *cq_other;
static struct ibv_mr *mr;
static uint8_t buf[4096];
static int gid_index = -1;
static union ibv_gid gid;

static int
suite_setup(void)
{
	struct ibv_device *dev = NULL;
	int i, n;

	if (dpv_test_eal_init() != 0)
		return TEST_SKIPPED;
	devs = ibv_get_device_list(&n);
	if (devs == NULL || n == 0) {
		DPV_TEST_LOG("no verbs device");
		return TEST_SKIPPED;
	}
	for (i = 0; i < n; i++)
		if (strcmp(ibv_get_device_name(devs[i]), "dpv0") == 0)
			dev = devs[i];
	if (dev == NULL)
		dev = devs[0];
	ctx = ibv_open_device(dev);
	ctx2 = ibv_open_device(dev);
	if (ctx == NULL || ctx2 == NULL)
		return TEST_FAILED;
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 256, NULL, NULL, 0);
	cq2 = ibv_create_cq(ctx, 256, NULL, NULL, 0);
	cq_other = ibv_create_cq(ctx2, 16, NULL, NULL, 0);
	if (pd == NULL || cq == NULL || cq2 == NULL || cq_other == NULL)
		return TEST_FAILED;
	mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	if (mr == NULL)
		return TEST_FAILED;
	/* with XRC switched off, XRC QPs answer EOPNOTSUPP and nothing else
	 * changes */
	{
		struct ibv_qp_init_attr_ex a = {
			.qp_type = IBV_QPT_XRC_SEND, .send_cq = cq,
			.comp_mask = IBV_QP_INIT_ATTR_PD, .pd = pd};

		struct ibv_qp *qp;

		dpv_qp_xrc_enabled = false;
		errno = 0;
		if (ibv_create_qp_ex(ctx, &a) != NULL || errno != EOPNOTSUPP) {
			DPV_TEST_LOG("XRC must answer EOPNOTSUPP when off");
			return TEST_FAILED;
		}
		a.qp_type = IBV_QPT_RC; /* ... but not the other types */
		a.recv_cq = cq;
		qp = ibv_create_qp_ex(ctx, &a);
		if (qp == NULL || ibv_destroy_qp(qp) != 0) {
			DPV_TEST_LOG("RC must be created with XRC disabled");
			return TEST_FAILED;
		}
		dpv_qp_xrc_enabled = true;
	}
	gid_index = test_verbs_first_gid(ctx, &gid);
	return TEST_SUCCESS;
}

static void
suite_teardown(void)
{
	dpv_qp_xrc_enabled = true;
	if (mr)
		ibv_dereg_mr(mr);
	if (cq_other)
		ibv_destroy_cq(cq_other);
	if (cq2)
		ibv_destroy_cq(cq2);
	if (cq)
		ibv_destroy_cq(cq);
	if (pd)
		ibv_dealloc_pd(pd);
	if (ctx2)
		ibv_close_device(ctx2);
	if (ctx)
		ibv_close_device(ctx);
	if (devs)
		ibv_free_device_list(devs);
	mr = NULL;
	cq = cq2 = cq_other = NULL;
	pd = NULL;
	ctx = ctx2 = NULL;
	devs = NULL;
}

static void
init_attr(struct ibv_qp_init_attr_ex *a, enum ibv_qp_type t)
{
	memset(a, 0, sizeof(*a));
	a->qp_type = t;
	a->send_cq = cq;
	a->recv_cq = cq2;
	a->cap.max_send_wr = 10;
	a->cap.max_recv_wr = 10;
	a->cap.max_send_sge = 3;
	a->cap.max_recv_sge = 3;
	a->cap.max_inline_data = 60;
	a->comp_mask = IBV_QP_INIT_ATTR_PD;
	a->pd = pd;
}

/* create_qp_ex that reports errno (0 on success, the QP in *out) */
static int
create_ex(struct ibv_qp_init_attr_ex *a, struct ibv_qp **out)
{
	struct ibv_qp *qp;

	errno = 0;
	qp = ibv_create_qp_ex(ctx, a);
	if (out)
		*out = qp;
	else if (qp)
		ibv_destroy_qp(qp);
	return qp ? 0 : errno;
}

/* create_ex() of init_attr(t) with extra bits in comp_mask */
static int
create_masked(enum ibv_qp_type t, uint32_t extra_mask)
{
	struct ibv_qp_init_attr_ex a;

	init_attr(&a, t);
	a.comp_mask |= extra_mask;
	return create_ex(&a, NULL);
}

static int
case_create_caps(void)
{
	static const enum ibv_qp_type types[] = {IBV_QPT_RC, IBV_QPT_UC,
						 IBV_QPT_UD, IBV_QPT_XRC_SEND};
	struct ibv_qp_init_attr_ex a;
	struct ibv_qp_init_attr ia, qi;
	struct ibv_qp_attr qa;
	struct ibv_qp *qp;
	unsigned int i;

	for (i = 0; i < DIM(types); i++) {
		init_attr(&a, types[i]);
		TEST_ASSERT_EQUAL(create_ex(&a, &qp), 0, "type %d", types[i]);
		TEST_ASSERT(a.cap.max_send_wr >= 10, "send_wr %u", a.cap.max_send_wr);
		TEST_ASSERT(a.cap.max_send_sge >= 3, "");
		TEST_ASSERT(a.cap.max_inline_data >= 60, "");
		if (types[i] == IBV_QPT_XRC_SEND) {
			TEST_ASSERT_EQUAL(a.cap.max_recv_wr, 0, "XRC_SEND has no RQ");
			TEST_ASSERT_NULL(qp->recv_cq, "");
		} else {
			TEST_ASSERT(a.cap.max_recv_wr >= 10, "");
			TEST_ASSERT(a.cap.max_recv_sge >= 3, "");
		}
		TEST_ASSERT_EQUAL(qp->state, IBV_QPS_RESET, "");
		TEST_ASSERT_EQUAL(qp->qp_type, types[i], "");
		TEST_ASSERT(qp->qp_num > 1 && qp->qp_num < 0xffffff, "qpn %u",
			    qp->qp_num);
		TEST_ASSERT(qp->context == ctx && qp->pd == pd, "");
		TEST_ASSERT_EQUAL(ibv_query_qp(qp, &qa, IBV_QP_STATE | IBV_QP_CAP, &qi), 0, "");
		TEST_ASSERT_EQUAL(qa.qp_state, IBV_QPS_RESET, "");
		TEST_ASSERT_EQUAL(qi.cap.max_send_wr, a.cap.max_send_wr, "");
		TEST_ASSERT_EQUAL(qa.cap.max_recv_wr, a.cap.max_recv_wr, "");
		TEST_ASSERT_EQUAL(qi.qp_type, types[i], "");
		TEST_ASSERT(qi.send_cq == cq, "");
		TEST_ASSERT_EQUAL(ibv_destroy_qp(qp), 0, "");
	}

	/* the plain ibv_create_qp entry point, caps written back */
	memset(&ia, 0, sizeof(ia));
	ia.qp_type = IBV_QPT_RC;
	ia.send_cq = cq;
	ia.recv_cq = cq;
	ia.cap.max_send_wr = 5;
	ia.cap.max_recv_wr = 7;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	ia.sq_sig_all = 1;
	qp = ibv_create_qp(pd, &ia);
	TEST_ASSERT_NOT_NULL(qp, "errno %d", errno);
	TEST_ASSERT(ia.cap.max_send_wr >= 5 && ia.cap.max_recv_wr >= 7, "");
	TEST_ASSERT_EQUAL(ibv_query_qp(qp, &qa, 0, &qi), 0, "");
	TEST_ASSERT_EQUAL(qi.sq_sig_all, 1, "");
	TEST_ASSERT_NULL(ibv_qp_to_qp_ex(qp), "no send_ops_flags: no qp_ex");
	TEST_ASSERT_EQUAL(ibv_destroy_qp(qp), 0, "");
	errno = 0;
	TEST_ASSERT_NULL(ibv_create_qp(NULL, &ia), "");
	TEST_ASSERT_EQUAL(errno, EINVAL, "");

	/* zero-sized queues are allowed */
	init_attr(&a, IBV_QPT_RC);
	memset(&a.cap, 0, sizeof(a.cap));
	TEST_ASSERT_EQUAL(create_ex(&a, NULL), 0, "");
	return TEST_SUCCESS;
}

static int
case_create_limits(void)
{
	struct ibv_qp_init_attr_ex a;

#define LIMIT(field, val, want)                                                \
	do {                                                                   \
		init_attr(&a, IBV_QPT_RC);                                     \
		a.cap.field = (val);                                           \
		TEST_ASSERT_EQUAL(create_ex(&a, NULL), want, "%s = %u",        \
				  #field, (unsigned)(val));                    \
	} while (0)
	LIMIT(max_send_wr, DPV_CAP_MAX_QP_WR + 1, EINVAL);
	LIMIT(max_recv_wr, DPV_CAP_MAX_QP_WR + 1, EINVAL);
	LIMIT(max_send_sge, DPV_CAP_MAX_SGE + 1, EINVAL);
	LIMIT(max_recv_sge, DPV_CAP_MAX_SGE + 1, EINVAL);
	LIMIT(max_inline_data, DPV_CAP_MAX_INLINE + 1, EINVAL);
	LIMIT(max_send_sge, DPV_CAP_MAX_SGE, 0);
	LIMIT(max_inline_data, DPV_CAP_MAX_INLINE, 0);
	LIMIT(max_recv_wr, 1000, 0);
#undef LIMIT
	return TEST_SUCCESS;
}

static int
case_create_types_and_mask(void)
{
	struct ibv_qp_init_attr_ex a;

	/* raw packet QPs run on the device's engine (test/test_raw.c) */
	TEST_ASSERT_EQUAL(create_masked(IBV_QPT_RAW_PACKET, 0), 0,
			  "raw packet");
	TEST_ASSERT_EQUAL(create_masked(IBV_QPT_DRIVER, 0), EOPNOTSUPP,
			  "driver");
	TEST_ASSERT_EQUAL(create_masked((enum ibv_qp_type)99, 0), EINVAL,
			  "unknown type");
	TEST_ASSERT_EQUAL(create_masked((enum ibv_qp_type)0, 0), EINVAL,
			  "type 0");

	TEST_ASSERT_EQUAL(create_masked(IBV_QPT_RC, 1u << 20), EINVAL,
			  "unknown comp_mask bit");
	init_attr(&a, IBV_QPT_RC);
	a.comp_mask |= IBV_QP_INIT_ATTR_MAX_TSO_HEADER;
	a.max_tso_header = 64;
	TEST_ASSERT_EQUAL(create_ex(&a, NULL), EOPNOTSUPP, "TSO: raw only");
	TEST_ASSERT_EQUAL(create_masked(IBV_QPT_RC, IBV_QP_INIT_ATTR_RX_HASH),
			  EINVAL, "RSS: raw QPs only");
	TEST_ASSERT_EQUAL(create_masked(IBV_QPT_RC, IBV_QP_INIT_ATTR_IND_TABLE),
			  EINVAL, "ind table: raw only");
	init_attr(&a, IBV_QPT_RC);
	a.comp_mask = IBV_QP_INIT_ATTR_CREATE_FLAGS; /* no PD */
	TEST_ASSERT_EQUAL(create_ex(&a, NULL), EINVAL, "no PD");
	TEST_ASSERT_EQUAL(create_masked(IBV_QPT_RC, IBV_QP_INIT_ATTR_XRCD),
			  EINVAL, "XRCD on RC");
	init_attr(&a, IBV_QPT_XRC_RECV);
	a.comp_mask = IBV_QP_INIT_ATTR_PD;
	TEST_ASSERT_EQUAL(create_ex(&a, NULL), EINVAL, "XRC_RECV needs an XRCD");

	/* CQs: required, of this context */
	init_attr(&a, IBV_QPT_RC);
	a.send_cq = NULL;
	TEST_ASSERT_EQUAL(create_ex(&a, NULL), EINVAL, "no send CQ");
	init_attr(&a, IBV_QPT_UD);
	a.recv_cq = NULL;
	TEST_ASSERT_EQUAL(create_ex(&a, NULL), EINVAL, "no recv CQ");
	init_attr(&a, IBV_QPT_RC);
	a.recv_cq = cq_other;
	TEST_ASSERT_EQUAL(create_ex(&a, NULL), EINVAL, "CQ of another context");
	init_attr(&a, IBV_QPT_XRC_SEND);
	a.recv_cq = NULL;
	TEST_ASSERT_EQUAL(create_ex(&a, NULL), 0, "XRC_SEND needs no recv CQ");
	return TEST_SUCCESS;
}

static int
case_create_flags(void)
{
	static const struct {
		enum ibv_qp_type t;
		uint32_t flag;
		int want;
	} rows[] = {
		{IBV_QPT_UD, IBV_QP_CREATE_BLOCK_SELF_MCAST_LB, 0},
		{IBV_QPT_RC, IBV_QP_CREATE_BLOCK_SELF_MCAST_LB, EINVAL},
		{IBV_QPT_UD, IBV_QP_CREATE_SCATTER_FCS, EOPNOTSUPP},
		{IBV_QPT_RC, IBV_QP_CREATE_CVLAN_STRIPPING, EOPNOTSUPP},
		{IBV_QPT_RC, IBV_QP_CREATE_SOURCE_QPN, EINVAL}, /* UD only */
		{IBV_QPT_RC, IBV_QP_CREATE_PCI_WRITE_END_PADDING, EOPNOTSUPP},
		{IBV_QPT_RC, 1u << 0, EINVAL},
		{IBV_QPT_RC, 1u << 12, EINVAL},
		{IBV_QPT_RC, 0, 0},
	};
	struct ibv_qp_init_attr_ex a;
	unsigned int i;

	for (i = 0; i < DIM(rows); i++) {
		init_attr(&a, rows[i].t);
		a.comp_mask |= IBV_QP_INIT_ATTR_CREATE_FLAGS;
		a.create_flags = rows[i].flag;
		TEST_ASSERT_EQUAL(create_ex(&a, NULL), rows[i].want, "row %u", i);
	}
	return TEST_SUCCESS;
}

static int
case_send_ops(void)
{
	const uint64_t rc_ops =
		IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |
		IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |
		IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
		IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD | IBV_QP_EX_WITH_LOCAL_INV |
		IBV_QP_EX_WITH_BIND_MW | IBV_QP_EX_WITH_SEND_WITH_INV |
		IBV_QP_EX_WITH_ATOMIC_WRITE;
	struct ibv_qp_init_attr_ex a;
	struct ibv_qp_ex *x;
	struct ibv_qp *qp;

	init_attr(&a, IBV_QPT_RC);
	a.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	a.send_ops_flags = rc_ops;
	TEST_ASSERT_EQUAL(create_ex(&a, &qp), 0, "");
	x = ibv_qp_to_qp_ex(qp);
	TEST_ASSERT_NOT_NULL(x, "");
	TEST_ASSERT(&x->qp_base == qp, "");
	TEST_ASSERT(x->wr_send && x->wr_send_imm && x->wr_send_inv &&
			    x->wr_rdma_write && x->wr_rdma_write_imm &&
			    x->wr_rdma_read && x->wr_atomic_cmp_swp &&
			    x->wr_atomic_fetch_add && x->wr_local_inv &&
			    x->wr_bind_mw && x->wr_atomic_write,
		    "every requested op");
	TEST_ASSERT(x->wr_set_sge && x->wr_set_sge_list && x->wr_set_inline_data &&
			    x->wr_set_inline_data_list && x->wr_start &&
			    x->wr_complete && x->wr_abort,
		    "setters");
	TEST_ASSERT_NULL(x->wr_set_ud_addr, "RC has no UD address");
	TEST_ASSERT_NULL(x->wr_send_tso, "");
	TEST_ASSERT_EQUAL(ibv_destroy_qp(qp), 0, "");

	/* only what was asked for */
	init_attr(&a, IBV_QPT_UD);
	a.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	a.send_ops_flags = IBV_QP_EX_WITH_SEND;
	TEST_ASSERT_EQUAL(create_ex(&a, &qp), 0, "");
	x = ibv_qp_to_qp_ex(qp);
	TEST_ASSERT(x && x->wr_send && !x->wr_send_imm && x->wr_set_ud_addr, "");
	TEST_ASSERT_EQUAL(ibv_destroy_qp(qp), 0, "");

	init_attr(&a, IBV_QPT_UD);
	a.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	a.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE;
	TEST_ASSERT_EQUAL(create_ex(&a, NULL), EOPNOTSUPP, "RDMA on UD");
	init_attr(&a, IBV_QPT_UC);
	a.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	a.send_ops_flags = IBV_QP_EX_WITH_RDMA_READ;
	TEST_ASSERT_EQUAL(create_ex(&a, NULL), EOPNOTSUPP, "READ on UC");
	/* ATOMIC WRITE is an RC opcode only (IBA 1.5) */
	init_attr(&a, IBV_QPT_UC);
	a.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	a.send_ops_flags = IBV_QP_EX_WITH_ATOMIC_WRITE;
	TEST_ASSERT_EQUAL(create_ex(&a, NULL), EOPNOTSUPP, "atomic write, UC");
	init_attr(&a, IBV_QPT_RC);
	a.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	a.send_ops_flags = IBV_QP_EX_WITH_TSO;
	TEST_ASSERT_EQUAL(create_ex(&a, NULL), EOPNOTSUPP, "TSO: raw only");
	init_attr(&a, IBV_QPT_RC);
	a.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	a.send_ops_flags = 1u << 11;
	TEST_ASSERT_EQUAL(create_ex(&a, NULL), EINVAL, "unknown op bit");
	return TEST_SUCCESS;
}

/* ---- state walks ---- */

static int
modify(struct ibv_qp *qp, struct ibv_qp_attr *a, int mask)
{
	return ibv_modify_qp(qp, a, mask);
}

static void
av(struct ibv_qp_attr *a)
{
	a->ah_attr.is_global = 1;
	a->ah_attr.grh.dgid = gid;
	a->ah_attr.grh.sgid_index = (uint8_t)gid_index;
	a->ah_attr.grh.hop_limit = 64;
	a->ah_attr.port_num = 1;
}

static int
to_init(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {.qp_state = IBV_QPS_INIT, .port_num = 1};

	if (qp->qp_type == IBV_QPT_UD) {
		a.qkey = 0x11111111;
		return modify(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
					      IBV_QP_PORT | IBV_QP_QKEY);
	}
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
	return modify(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				      IBV_QP_ACCESS_FLAGS);
}

static int
to_rtr(struct ibv_qp *qp, uint32_t dest)
{
	struct ibv_qp_attr a = {.qp_state = IBV_QPS_RTR};
	int mask = IBV_QP_STATE;

	if (qp->qp_type == IBV_QPT_UD)
		return modify(qp, &a, mask);
	av(&a);
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dest;
	a.rq_psn = 0x1222222; /* above 24 bits: masked to the peer's SQ PSN */
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 12;
	mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;
	/* the responder's set on both XRC types too, as perftest passes it:
	 * an initiator drops it */
	if (qp->qp_type != IBV_QPT_UC)
		mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	return modify(qp, &a, mask);
}

static int
to_rts(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {.qp_state = IBV_QPS_RTS, .sq_psn = 0x222222};
	int mask = IBV_QP_STATE | IBV_QP_SQ_PSN;

	/* the requester's set on an XRC target too, as perftest passes it:
	 * the target drops it */
	if (qp->qp_type != IBV_QPT_UC && qp->qp_type != IBV_QPT_UD) {
		a.timeout = 14;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.max_rd_atomic = 2;
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_MAX_QP_RD_ATOMIC;
	}
	return modify(qp, &a, mask);
}

static enum ibv_qp_state
qstate(struct ibv_qp *qp)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &ia))
		return IBV_QPS_UNKNOWN;
	return a.qp_state;
}

/* A QP in INIT to RTR (peer dest) and RTS with to_rtr() / to_rts(), then
 * every attribute queried into *a (filled with 0xa5 first) and *qi. */
static int
rtr_rts_query(struct ibv_qp *qp, uint32_t dest, struct ibv_qp_attr *a,
	      struct ibv_qp_init_attr *qi)
{
	TEST_ASSERT_EQUAL(to_rtr(qp, dest), 0, "type %d RTR", qp->qp_type);
	TEST_ASSERT_EQUAL(to_rts(qp), 0, "type %d RTS", qp->qp_type);
	memset(a, 0xa5, sizeof(*a));
	TEST_ASSERT_EQUAL(ibv_query_qp(qp, a, ~0, qi), 0, "");
	TEST_ASSERT_EQUAL(a->qp_state, IBV_QPS_RTS, "");
	return TEST_SUCCESS;
}

static int
case_state_walk(void)
{
	static const enum ibv_qp_type types[] = {IBV_QPT_RC, IBV_QPT_UC,
						 IBV_QPT_UD, IBV_QPT_XRC_SEND};
	struct ibv_qp_init_attr_ex ia;
	struct ibv_qp_init_attr qi;
	struct ibv_qp_attr a;
	struct ibv_qp *qp;
	unsigned int i;

	if (gid_index < 0)
		return TEST_SKIPPED;
	for (i = 0; i < DIM(types); i++) {
		enum ibv_qp_type t = types[i];

		init_attr(&ia, t);
		TEST_ASSERT_EQUAL(create_ex(&ia, &qp), 0, "");
		TEST_ASSERT_EQUAL(to_init(qp), 0, "%d INIT", t);
		TEST_ASSERT_EQUAL(qstate(qp), IBV_QPS_INIT, "");
		TEST_ASSERT_EQUAL(qp->state, IBV_QPS_INIT, "ibv_qp.state follows");
		if (rtr_rts_query(qp, 0x1234, &a, &qi) != TEST_SUCCESS)
			return TEST_FAILED;
		TEST_ASSERT_EQUAL(a.port_num, 1, "");
		TEST_ASSERT_EQUAL(a.pkey_index, 0, "");
		TEST_ASSERT_EQUAL(a.sq_psn, 0x222222, "");
		if (t == IBV_QPT_UD) {
			TEST_ASSERT_EQUAL(a.qkey, 0x11111111, "");
		} else {
			TEST_ASSERT_EQUAL(a.qp_access_flags,
					  IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ, "");
			TEST_ASSERT_EQUAL(a.dest_qp_num, 0x1234, "");
			TEST_ASSERT_EQUAL(a.rq_psn, 0x222222, "PSN masked to 24 bits");
			TEST_ASSERT_EQUAL(a.path_mtu, IBV_MTU_1024, "");
			TEST_ASSERT_EQUAL(a.ah_attr.grh.sgid_index, gid_index, "");
			TEST_ASSERT_BUFFERS_EQUAL(a.ah_attr.grh.dgid.raw, gid.raw, 16, "");
		}
		if (t == IBV_QPT_RC) {
			TEST_ASSERT_EQUAL(a.timeout, 14, "");
			TEST_ASSERT_EQUAL(a.retry_cnt, 7, "");
			TEST_ASSERT_EQUAL(a.max_rd_atomic, 2, "");
			TEST_ASSERT_EQUAL(a.max_dest_rd_atomic, 4, "");
			TEST_ASSERT_EQUAL(a.min_rnr_timer, 12, "");
		}
		if (t == IBV_QPT_XRC_SEND) {
			TEST_ASSERT_EQUAL(a.max_rd_atomic, 2, "");
			TEST_ASSERT_EQUAL(a.max_dest_rd_atomic, 0,
					  "dropped, not applied");
			TEST_ASSERT_EQUAL(a.min_rnr_timer, 0,
					  "dropped, not applied");
		}
		TEST_ASSERT_EQUAL(a.sq_draining, 0, "");
		TEST_ASSERT_EQUAL(qi.qp_type, t, "");

		/* RTS -> SQD -> SQD -> RTS, RTS -> RTS */
		a.qp_state = IBV_QPS_SQD;
		a.en_sqd_async_notify = 0;
		TEST_ASSERT_EQUAL(modify(qp, &a, IBV_QP_STATE | IBV_QP_EN_SQD_ASYNC_NOTIFY),
				  0, "SQD");
		TEST_ASSERT_EQUAL(qstate(qp), IBV_QPS_SQD, "");
		TEST_ASSERT_EQUAL(modify(qp, &a, IBV_QP_STATE), 0, "SQD->SQD");
		a.qp_state = IBV_QPS_RTS;
		a.cur_qp_state = IBV_QPS_SQD;
		TEST_ASSERT_EQUAL(modify(qp, &a, IBV_QP_STATE | IBV_QP_CUR_STATE), 0,
				  "SQD->RTS");
		a.cur_qp_state = IBV_QPS_RTS;
		TEST_ASSERT_EQUAL(modify(qp, &a, IBV_QP_STATE | IBV_QP_CUR_STATE), 0,
				  "RTS->RTS");
		a.qp_state = IBV_QPS_ERR;
		TEST_ASSERT_EQUAL(modify(qp, &a, IBV_QP_STATE), 0, "ERR");
		TEST_ASSERT_EQUAL(qstate(qp), IBV_QPS_ERR, "");
		a.qp_state = IBV_QPS_RESET;
		TEST_ASSERT_EQUAL(modify(qp, &a, IBV_QP_STATE), 0, "RESET");
		TEST_ASSERT_EQUAL(qstate(qp), IBV_QPS_RESET, "");
		/* and again from the start: RESET forgot the attributes */
		TEST_ASSERT_EQUAL(to_init(qp), 0, "");
		TEST_ASSERT_EQUAL(ibv_destroy_qp(qp), 0, "");
	}
	return TEST_SUCCESS;
}

static int
case_modify_refused(void)
{
	struct ibv_qp_init_attr_ex ia;
	struct ibv_qp_init_attr qi;
	struct ibv_qp_attr a, q;
	struct ibv_qp *qp;

	if (gid_index < 0)
		return TEST_SKIPPED;
	init_attr(&ia, IBV_QPT_RC);
	TEST_ASSERT_EQUAL(create_ex(&ia, &qp), 0, "");
	/* RESET -> RTR does not exist */
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	TEST_ASSERT_EQUAL(modify(qp, &a, IBV_QP_STATE), EINVAL, "");
	TEST_ASSERT_EQUAL(qstate(qp), IBV_QPS_RESET, "");
	/* missing ACCESS_FLAGS */
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	TEST_ASSERT_EQUAL(modify(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT),
			  EINVAL, "");
	TEST_ASSERT_EQUAL(qstate(qp), IBV_QPS_RESET, "");
	/* bad port */
	a.port_num = 2;
	TEST_ASSERT_EQUAL(modify(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
						 IBV_QP_PORT | IBV_QP_ACCESS_FLAGS),
			  EINVAL, "port 2");
	TEST_ASSERT_EQUAL(qstate(qp), IBV_QPS_RESET, "");
	TEST_ASSERT_EQUAL(to_init(qp), 0, "");
	TEST_ASSERT_EQUAL(to_rtr(qp, 0x77), 0, "");
	/* RTR -> RTS with timeout 32: refused, and nothing of it applied */
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0x999;
	a.timeout = 32;
	a.retry_cnt = 1;
	a.rnr_retry = 1;
	a.max_rd_atomic = 1;
	TEST_ASSERT_EQUAL(modify(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
						 IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
						 IBV_QP_MAX_QP_RD_ATOMIC),
			  EINVAL, "");
	TEST_ASSERT_EQUAL(ibv_query_qp(qp, &q, ~0, &qi), 0, "");
	TEST_ASSERT_EQUAL(q.qp_state, IBV_QPS_RTR, "");
	TEST_ASSERT_EQUAL(q.sq_psn, 0, "SQ PSN not applied");
	TEST_ASSERT_EQUAL(q.retry_cnt, 0, "retry count not applied");
	TEST_ASSERT_EQUAL(q.dest_qp_num, 0x77, "");
	/* wrong CUR_STATE; IBV_QP_CAP; alternate path */
	a.timeout = 14;
	a.cur_qp_state = IBV_QPS_RTS;
	TEST_ASSERT_EQUAL(modify(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
						 IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
						 IBV_QP_MAX_QP_RD_ATOMIC | IBV_QP_CUR_STATE),
			  EINVAL, "cur state says RTS, QP is RTR");
	TEST_ASSERT_EQUAL(to_rts(qp), 0, "");
	a.cap.max_send_wr = 1;
	TEST_ASSERT_EQUAL(modify(qp, &a, IBV_QP_CAP), EINVAL, "no resize");
	TEST_ASSERT_EQUAL(modify(qp, &a, IBV_QP_ALT_PATH), EINVAL, "no APM");
	/* RoCE: an AV without GRH, an empty GID slot */
	a.qp_state = IBV_QPS_SQD;
	TEST_ASSERT_EQUAL(modify(qp, &a, IBV_QP_STATE), 0, "");
	memset(&a.ah_attr, 0, sizeof(a.ah_attr));
	a.ah_attr.port_num = 1;
	TEST_ASSERT_EQUAL(modify(qp, &a, IBV_QP_AV), EINVAL, "no GRH on RoCE");
	av(&a);
	a.ah_attr.grh.sgid_index = DPV_CAP_GID_TBL_LEN;
	TEST_ASSERT_EQUAL(modify(qp, &a, IBV_QP_AV), EINVAL, "GID index out of table");
	TEST_ASSERT_EQUAL(qstate(qp), IBV_QPS_SQD, "");
	TEST_ASSERT_EQUAL(ibv_destroy_qp(qp), 0, "");
	return TEST_SUCCESS;
}

/* ---- posting ---- */

static int
post1(struct ibv_qp *qp, uint64_t id)
{
	struct ibv_sge sge = {.addr = (uintptr_t)buf, .length = 64, .lkey = mr->lkey};
	struct ibv_send_wr wr = {.wr_id = id, .sg_list = &sge, .num_sge = 1,
				 .opcode = IBV_WR_SEND,
				 .send_flags = IBV_SEND_SIGNALED};
	struct ibv_send_wr *bad = NULL;
	int rc = ibv_post_send(qp, &wr, &bad);

	if (rc && bad != &wr)
		return -1;
	return rc;
}

static int
recv1(struct ibv_qp *qp, uint64_t id)
{
	struct ibv_sge sge = {.addr = (uintptr_t)buf, .length = 64, .lkey = mr->lkey};
	struct ibv_recv_wr wr = {.wr_id = id, .sg_list = &sge, .num_sge = 1};
	struct ibv_recv_wr *bad = NULL;
	int rc = ibv_post_recv(qp, &wr, &bad);

	if (rc && bad != &wr)
		return -1;
	return rc;
}

/* Poll until n completions or nothing more comes (bounded). */
static int
drain(struct ibv_cq *c, struct ibv_wc *wc, int max)
{
	int got = 0, i, r;

	for (i = 0; i < 1000 && got < max; i++) {
		r = ibv_poll_cq(c, max - got, wc + got);
		if (r < 0)
			return r;
		if (r == 0 && i > 10)
			break;
		got += r;
	}
	return got;
}

static int
case_post_states(void)
{
	struct ibv_qp_init_attr_ex ia;
	struct ibv_qp_attr a;
	struct ibv_wc wc[8];
	struct ibv_qp *qp;

	if (gid_index < 0)
		return TEST_SKIPPED;
	init_attr(&ia, IBV_QPT_RC);
	TEST_ASSERT_EQUAL(create_ex(&ia, &qp), 0, "");
	TEST_ASSERT_EQUAL(post1(qp, 1), EINVAL, "post_send in RESET");
	TEST_ASSERT_EQUAL(recv1(qp, 1), EINVAL, "post_recv in RESET");
	TEST_ASSERT_EQUAL(to_init(qp), 0, "");
	TEST_ASSERT_EQUAL(post1(qp, 1), EINVAL, "post_send in INIT");
	TEST_ASSERT_EQUAL(recv1(qp, 2), 0, "post_recv in INIT");
	TEST_ASSERT_EQUAL(to_rtr(qp, 5), 0, "");
	TEST_ASSERT_EQUAL(post1(qp, 1), EINVAL, "post_send in RTR");
	TEST_ASSERT_EQUAL(to_rts(qp), 0, "");
	TEST_ASSERT_EQUAL(post1(qp, 3), 0, "post_send in RTS");
	/* nothing completes without the engine */
	TEST_ASSERT_EQUAL(ibv_poll_cq(cq, 8, wc), 0, "");
	/* RESET empties the rings: no flush completions afterwards */
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RESET;
	TEST_ASSERT_EQUAL(modify(qp, &a, IBV_QP_STATE), 0, "");
	a.qp_state = IBV_QPS_ERR;
	TEST_ASSERT_EQUAL(modify(qp, &a, IBV_QP_STATE), 0, "");
	TEST_ASSERT_EQUAL(drain(cq, wc, 8), 0, "");
	TEST_ASSERT_EQUAL(drain(cq2, wc, 8), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_qp(qp), 0, "");
	return TEST_SUCCESS;
}

static int
case_flush_on_err(void)
{
	struct ibv_qp_init_attr_ex ia;
	struct ibv_qp_attr a;
	struct ibv_wc wc[16];
	struct ibv_qp *qp;
	int n, i;

	if (gid_index < 0)
		return TEST_SKIPPED;
	init_attr(&ia, IBV_QPT_RC);
	TEST_ASSERT_EQUAL(create_ex(&ia, &qp), 0, "");
	TEST_ASSERT_EQUAL(to_init(qp), 0, "");
	for (i = 0; i < 3; i++)
		TEST_ASSERT_EQUAL(recv1(qp, 100 + i), 0, "");
	TEST_ASSERT_EQUAL(to_rtr(qp, 5), 0, "");
	TEST_ASSERT_EQUAL(to_rts(qp), 0, "");
	for (i = 0; i < 2; i++)
		TEST_ASSERT_EQUAL(post1(qp, 200 + i), 0, "");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_ERR;
	TEST_ASSERT_EQUAL(modify(qp, &a, IBV_QP_STATE), 0, "");

	n = drain(cq, wc, 16);
	TEST_ASSERT_EQUAL(n, 2, "send flushes on the send CQ");
	for (i = 0; i < n; i++) {
		TEST_ASSERT_EQUAL(wc[i].status, IBV_WC_WR_FLUSH_ERR, "");
		TEST_ASSERT_EQUAL(wc[i].wr_id, 200 + i, "in order");
		TEST_ASSERT_EQUAL(wc[i].qp_num, qp->qp_num, "");
	}
	n = drain(cq2, wc, 16);
	TEST_ASSERT_EQUAL(n, 3, "recv flushes on the recv CQ");
	for (i = 0; i < n; i++) {
		TEST_ASSERT_EQUAL(wc[i].status, IBV_WC_WR_FLUSH_ERR, "");
		TEST_ASSERT_EQUAL(wc[i].wr_id, 100 + i, "");
	}
	/* posting in ERR is accepted and flushed at once */
	TEST_ASSERT_EQUAL(post1(qp, 300), 0, "");
	TEST_ASSERT_EQUAL(recv1(qp, 301), 0, "");
	TEST_ASSERT_EQUAL(drain(cq, wc, 16), 1, "");
	TEST_ASSERT_EQUAL(wc[0].wr_id, 300, "");
	TEST_ASSERT_EQUAL(wc[0].status, IBV_WC_WR_FLUSH_ERR, "");
	TEST_ASSERT_EQUAL(drain(cq2, wc, 16), 1, "");
	TEST_ASSERT_EQUAL(wc[0].wr_id, 301, "");
	TEST_ASSERT_EQUAL(ibv_destroy_qp(qp), 0, "");
	return TEST_SUCCESS;
}

static int
case_qp_ex_post(void)
{
	struct ibv_qp_init_attr_ex ia;
	struct ibv_qp_attr a;
	struct ibv_wc wc[8];
	struct ibv_qp_ex *x;
	struct ibv_qp *qp;

	if (gid_index < 0)
		return TEST_SKIPPED;
	init_attr(&ia, IBV_QPT_RC);
	ia.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	ia.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE;
	TEST_ASSERT_EQUAL(create_ex(&ia, &qp), 0, "");
	x = ibv_qp_to_qp_ex(qp);
	TEST_ASSERT_NOT_NULL(x, "");
	TEST_ASSERT_EQUAL(to_init(qp), 0, "");
	ibv_wr_start(x);
	x->wr_id = 7;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(x);
	ibv_wr_set_sge(x, mr->lkey, (uintptr_t)buf, 16);
	TEST_ASSERT_EQUAL(ibv_wr_complete(x), EINVAL, "QP in INIT");
	TEST_ASSERT_EQUAL(to_rtr(qp, 9), 0, "");
	TEST_ASSERT_EQUAL(to_rts(qp), 0, "");
	ibv_wr_start(x);
	x->wr_id = 8;
	ibv_wr_send(x);
	ibv_wr_set_inline_data(x, buf, 8);
	x->wr_id = 9;
	ibv_wr_rdma_write(x, 0x1234, 0x1000);
	ibv_wr_set_sge(x, mr->lkey, (uintptr_t)buf, 16);
	TEST_ASSERT_EQUAL(ibv_wr_complete(x), 0, "");
	/* an aborted batch leaves nothing behind */
	ibv_wr_start(x);
	x->wr_id = 10;
	ibv_wr_send(x);
	ibv_wr_abort(x);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_ERR;
	TEST_ASSERT_EQUAL(modify(qp, &a, IBV_QP_STATE), 0, "");
	TEST_ASSERT_EQUAL(drain(cq, wc, 8), 2, "");
	TEST_ASSERT_EQUAL(wc[0].wr_id, 8, "");
	TEST_ASSERT_EQUAL(wc[1].wr_id, 9, "");
	TEST_ASSERT_EQUAL(wc[1].status, IBV_WC_WR_FLUSH_ERR, "");
	TEST_ASSERT_EQUAL(ibv_destroy_qp(qp), 0, "");
	return TEST_SUCCESS;
}

/* ---- lifetime ---- */

/* CQEs of a destroyed QP that were not polled disappear with it. */
static int
case_destroy_cleans_cq(void)
{
	struct ibv_qp_init_attr_ex ia;
	struct ibv_qp_attr a;
	struct ibv_wc wc[4];
	struct ibv_cq *c;
	struct ibv_qp *qp, *keep;

	c = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	TEST_ASSERT_NOT_NULL(c, "");
	init_attr(&ia, IBV_QPT_UD);
	ia.send_cq = ia.recv_cq = c;
	TEST_ASSERT_EQUAL(create_ex(&ia, &qp), 0, "");
	TEST_ASSERT_EQUAL(create_ex(&ia, &keep), 0, "");
	TEST_ASSERT_EQUAL(to_init(qp), 0, "");
	TEST_ASSERT_EQUAL(to_init(keep), 0, "");
	TEST_ASSERT_EQUAL(recv1(qp, 1), 0, "");
	TEST_ASSERT_EQUAL(recv1(keep, 2), 0, "");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_ERR;
	TEST_ASSERT_EQUAL(modify(qp, &a, IBV_QP_STATE), 0, "");
	TEST_ASSERT_EQUAL(modify(keep, &a, IBV_QP_STATE), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_qp(qp), 0, "");
	TEST_ASSERT_EQUAL(drain(c, wc, 4), 1, "only the live QP's flush");
	TEST_ASSERT_EQUAL(wc[0].wr_id, 2, "");
	TEST_ASSERT_EQUAL(ibv_destroy_qp(keep), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_cq(c), 0, "");
	return TEST_SUCCESS;
}

/* A new CQ of cqe entries, and *ia for an RC QP with it on both sides. */
static struct ibv_cq *
rc_attr_new_cq(struct ibv_qp_init_attr_ex *ia, int cqe)
{
	struct ibv_cq *c = ibv_create_cq(ctx, cqe, NULL, NULL, 0);

	init_attr(ia, IBV_QPT_RC);
	ia->send_cq = ia->recv_cq = c;
	return c;
}

/* Drain c (want completions); each completion's wr_id names the QP it
 * must carry: 1xx A, 2xx B, 3xx C, with x0-x4 sends and x5-x9 receives,
 * each queue's in the order posted. */
static int
check_owners(struct ibv_cq *c, int want, const struct ibv_qp *const qps[3])
{
	uint64_t last[3][2] = {{0}};
	bool seen[3][2] = {{false}};
	struct ibv_wc wc[16];
	int n = drain(c, wc, 16);

	TEST_ASSERT_EQUAL(n, want, "completions");
	for (int i = 0; i < n; i++) {
		unsigned int who = (unsigned int)(wc[i].wr_id / 100) - 1;
		bool recv = wc[i].wr_id % 10 >= 5;

		TEST_ASSERT(who < 3 && qps[who] != NULL, "wr_id %" PRIu64,
			    wc[i].wr_id);
		TEST_ASSERT_EQUAL(wc[i].qp_num, qps[who]->qp_num,
				  "wr_id %" PRIu64, wc[i].wr_id);
		TEST_ASSERT_EQUAL(wc[i].status, IBV_WC_WR_FLUSH_ERR, "");
		/* the wr_id comes from the queue the CQE named: each id is
		 * seen once, in its queue's order */
		TEST_ASSERT(!seen[who][recv] ||
				    wc[i].wr_id > last[who][recv],
			    "wr_id %" PRIu64 " after %" PRIu64, wc[i].wr_id,
			    last[who][recv]);
		seen[who][recv] = true;
		last[who][recv] = wc[i].wr_id;
	}
	return TEST_SUCCESS;
}

/*
 * Completions of several QPs and of both directions on one CQ (whose poll
 * remembers the last QP queue of each direction) name the right QP and
 * work request, also after one QP is reset and after one is destroyed
 * and another created.
 */
static int
case_cq_owners(void)
{
	const struct ibv_qp *qps[3] = {NULL, NULL, NULL};
	struct ibv_qp_init_attr_ex ia;
	struct ibv_qp *qa, *qb, *qc;
	struct ibv_qp_attr a;
	struct ibv_cq *c;

	if (gid_index < 0)
		return TEST_SKIPPED;
	c = rc_attr_new_cq(&ia, 32);
	TEST_ASSERT_NOT_NULL(c, "");
	TEST_ASSERT_EQUAL(create_ex(&ia, &qa), 0, "");
	TEST_ASSERT_EQUAL(create_ex(&ia, &qb), 0, "");
	qps[0] = qa;
	qps[1] = qb;
	TEST_ASSERT_EQUAL(to_init(qa), 0, "");
	TEST_ASSERT_EQUAL(to_init(qb), 0, "");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_ERR;
	TEST_ASSERT_EQUAL(modify(qa, &a, IBV_QP_STATE), 0, "");
	TEST_ASSERT_EQUAL(modify(qb, &a, IBV_QP_STATE), 0, "");
	/* in ERR, each post is flushed at once: A and B, both directions,
	 * alternating */
	TEST_ASSERT_EQUAL(recv1(qa, 105), 0, "");
	TEST_ASSERT_EQUAL(recv1(qb, 205), 0, "");
	TEST_ASSERT_EQUAL(post1(qa, 100), 0, "");
	TEST_ASSERT_EQUAL(recv1(qa, 106), 0, "");
	TEST_ASSERT_EQUAL(post1(qb, 200), 0, "");
	TEST_ASSERT_EQUAL(check_owners(c, 5, qps), TEST_SUCCESS, "");
	/* A reset (new rings) and back in ERR */
	a.qp_state = IBV_QPS_RESET;
	TEST_ASSERT_EQUAL(modify(qa, &a, IBV_QP_STATE), 0, "");
	TEST_ASSERT_EQUAL(to_init(qa), 0, "");
	a.qp_state = IBV_QPS_ERR;
	TEST_ASSERT_EQUAL(modify(qa, &a, IBV_QP_STATE), 0, "");
	TEST_ASSERT_EQUAL(recv1(qa, 107), 0, "");
	TEST_ASSERT_EQUAL(post1(qa, 101), 0, "");
	TEST_ASSERT_EQUAL(check_owners(c, 2, qps), TEST_SUCCESS, "");
	/* A gone, C new */
	TEST_ASSERT_EQUAL(ibv_destroy_qp(qa), 0, "");
	qps[0] = NULL;
	TEST_ASSERT_EQUAL(create_ex(&ia, &qc), 0, "");
	qps[2] = qc;
	TEST_ASSERT_EQUAL(to_init(qc), 0, "");
	TEST_ASSERT_EQUAL(modify(qc, &a, IBV_QP_STATE), 0, "");
	TEST_ASSERT_EQUAL(recv1(qc, 305), 0, "");
	TEST_ASSERT_EQUAL(post1(qc, 300), 0, "");
	TEST_ASSERT_EQUAL(recv1(qb, 206), 0, "");
	TEST_ASSERT_EQUAL(check_owners(c, 3, qps), TEST_SUCCESS, "");
	TEST_ASSERT_EQUAL(ibv_destroy_qp(qc), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_qp(qb), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_cq(c), 0, "");
	return TEST_SUCCESS;
}

static int
case_destroy_order(void)
{
	struct ibv_srq_init_attr sa = {.attr = {.max_wr = 16, .max_sge = 1}};
	struct ibv_qp_init_attr_ex ia;
	struct ibv_pd *pd2;
	struct ibv_cq *c1, *c2;
	struct ibv_srq *srq;
	struct ibv_qp *qp;

	pd2 = ibv_alloc_pd(ctx);
	c1 = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	c2 = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	TEST_ASSERT(pd2 && c1 && c2, "");
	srq = ibv_create_srq(pd2, &sa);
	TEST_ASSERT_NOT_NULL(srq, "errno %d", errno);
	init_attr(&ia, IBV_QPT_RC);
	ia.pd = pd2;
	ia.send_cq = c1;
	ia.recv_cq = c2;
	ia.srq = srq;
	ia.cap.max_recv_wr = 1u << 30; /* ignored with an SRQ */
	ia.cap.max_recv_sge = 1000;
	TEST_ASSERT_EQUAL(create_ex(&ia, &qp), 0, "");
	TEST_ASSERT_EQUAL(ia.cap.max_recv_wr, 0, "");
	TEST_ASSERT_EQUAL(ia.cap.max_recv_sge, 0, "");
	TEST_ASSERT(qp->srq == srq, "");
	TEST_ASSERT_EQUAL(to_init(qp), 0, "");
	TEST_ASSERT_EQUAL(recv1(qp, 1), EINVAL, "post_recv on a QP with an SRQ");

	TEST_ASSERT_EQUAL(ibv_dealloc_pd(pd2), EBUSY, "");
	TEST_ASSERT_EQUAL(ibv_destroy_cq(c1), EBUSY, "");
	TEST_ASSERT_EQUAL(ibv_destroy_cq(c2), EBUSY, "");
	TEST_ASSERT_EQUAL(ibv_destroy_srq(srq), EBUSY, "");
	TEST_ASSERT_EQUAL(ibv_destroy_qp(qp), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_srq(srq), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_cq(c1), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_cq(c2), 0, "");
	TEST_ASSERT_EQUAL(ibv_dealloc_pd(pd2), 0, "");
	return TEST_SUCCESS;
}

static int
case_mcast(void)
{
	struct ibv_qp_init_attr_ex ia;
	struct dpv_device *dev = to_dctx(ctx)->dev;
	struct ibv_qp *ud, *ud2, *rc;
	union ibv_gid g6, g4, uni;
	uint32_t members[4];

	memset(&g6, 0, sizeof(g6));
	g6.raw[0] = 0xff;
	g6.raw[1] = 0x0e;
	g6.raw[15] = 1;
	memset(&g4, 0, sizeof(g4));
	g4.raw[10] = 0xff;
	g4.raw[11] = 0xff;
	g4.raw[12] = 239;
	g4.raw[13] = 1;
	g4.raw[14] = 1;
	g4.raw[15] = 1;
	uni = g4;
	uni.raw[12] = 192; /* 192.0.2.1: not multicast */
	uni.raw[13] = 0;
	uni.raw[14] = 2;

	init_attr(&ia, IBV_QPT_UD);
	TEST_ASSERT_EQUAL(create_ex(&ia, &ud), 0, "");
	TEST_ASSERT_EQUAL(create_ex(&ia, &ud2), 0, "");
	init_attr(&ia, IBV_QPT_RC);
	TEST_ASSERT_EQUAL(create_ex(&ia, &rc), 0, "");
	TEST_ASSERT_EQUAL(ibv_attach_mcast(rc, &g6, 0), EINVAL, "UD only");
	TEST_ASSERT_EQUAL(ibv_attach_mcast(ud, &uni, 0), EINVAL, "not multicast");
	TEST_ASSERT_EQUAL(ibv_attach_mcast(ud, &g6, 0), 0, "");
	TEST_ASSERT_EQUAL(ibv_attach_mcast(ud, &g6, 0), 0, "twice: no-op");
	TEST_ASSERT_EQUAL(ibv_attach_mcast(ud, &g4, 0), 0, "IPv4 group");
	TEST_ASSERT_EQUAL(ibv_attach_mcast(ud2, &g4, 0), 0, "");
	TEST_ASSERT_EQUAL(ibv_attach_mcast(ud2, &g4, 7), 0, "same group, other lid");
	/* the engine's view: members per group */
	TEST_ASSERT_EQUAL(dpv_qp_mcast_lookup(dev, g6.raw, members, 4), 1, "");
	TEST_ASSERT_EQUAL(members[0], ud->qp_num, "");
	TEST_ASSERT_EQUAL(dpv_qp_mcast_lookup(dev, g4.raw, members, 4), 2, "");
	TEST_ASSERT(members[0] != members[1], "");
	TEST_ASSERT_EQUAL(dpv_qp_mcast_lookup(dev, uni.raw, members, 4), 0, "");
	TEST_ASSERT_EQUAL(ibv_detach_mcast(ud2, &g4, 0), 0, "");
	TEST_ASSERT_EQUAL(dpv_qp_mcast_lookup(dev, g4.raw, members, 4), 2,
			  "ud2 still attached through lid 7");
	TEST_ASSERT_EQUAL(ibv_detach_mcast(ud2, &g4, 7), 0, "");
	TEST_ASSERT_EQUAL(dpv_qp_mcast_lookup(dev, g4.raw, members, 4), 1, "");
	TEST_ASSERT_EQUAL(members[0], ud->qp_num, "");
	TEST_ASSERT_EQUAL(ibv_destroy_qp(ud2), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_qp(ud), EBUSY, "attached");
	TEST_ASSERT_EQUAL(ibv_detach_mcast(ud, &g6, 0), 0, "");
	TEST_ASSERT_EQUAL(ibv_detach_mcast(ud, &g6, 0), EINVAL, "not attached");
	TEST_ASSERT_EQUAL(ibv_destroy_qp(ud), EBUSY, "still one group");
	TEST_ASSERT_EQUAL(ibv_detach_mcast(ud, &g4, 0), 0, "");
	TEST_ASSERT_EQUAL(dpv_qp_mcast_lookup(dev, g4.raw, members, 4), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_qp(ud), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_qp(rc), 0, "");
	return TEST_SUCCESS;
}

static int
case_qpn_unique(void)
{
	struct ibv_qp_init_attr_ex ia;
	struct ibv_qp *qps[64];
	unsigned int i, j;

	for (i = 0; i < DIM(qps); i++) {
		init_attr(&ia, i % 2 ? IBV_QPT_UD : IBV_QPT_RC);
		ia.cap.max_send_wr = 1;
		ia.cap.max_recv_wr = 1;
		TEST_ASSERT_EQUAL(create_ex(&ia, &qps[i]), 0, "qp %u", i);
	}
	for (i = 0; i < DIM(qps); i++) {
		TEST_ASSERT(qps[i]->qp_num > 1 && qps[i]->qp_num <= 0xfffffe, "");
		for (j = 0; j < i; j++)
			TEST_ASSERT_NOT_EQUAL(qps[i]->qp_num, qps[j]->qp_num, "");
	}
	/* a destroyed QP's number is not handed out again at once */
	j = qps[0]->qp_num;
	TEST_ASSERT_EQUAL(ibv_destroy_qp(qps[0]), 0, "");
	init_attr(&ia, IBV_QPT_RC);
	TEST_ASSERT_EQUAL(create_ex(&ia, &qps[0]), 0, "");
	TEST_ASSERT_NOT_EQUAL(qps[0]->qp_num, j, "");
	for (i = 0; i < DIM(qps); i++)
		TEST_ASSERT_EQUAL(ibv_destroy_qp(qps[i]), 0, "");
	return TEST_SUCCESS;
}

static int
case_xrc_recv(void)
{
	struct ibv_xrcd_init_attr xa = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.fd = -1,
		.oflags = O_CREAT,
	};
	struct ibv_qp_init_attr_ex ia;
	struct ibv_xrcd *xrcd;
	struct ibv_qp *qp;
	struct ibv_qp_attr a;

	errno = 0;
	xrcd = ibv_open_xrcd(ctx, &xa);
	if (xrcd == NULL && errno == EOPNOTSUPP)
		return TEST_SKIPPED;
	TEST_ASSERT_NOT_NULL(xrcd, "errno %d", errno);
	memset(&ia, 0, sizeof(ia));
	ia.qp_type = IBV_QPT_XRC_RECV;
	ia.comp_mask = IBV_QP_INIT_ATTR_XRCD;
	ia.xrcd = xrcd;
	TEST_ASSERT_EQUAL(create_ex(&ia, &qp), 0, "");
	TEST_ASSERT_EQUAL(ibv_close_xrcd(xrcd), EBUSY, "");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	TEST_ASSERT_EQUAL(modify(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
						 IBV_QP_ACCESS_FLAGS),
			  0, "");
	TEST_ASSERT_EQUAL(post1(qp, 1), EINVAL, "no send queue");
	TEST_ASSERT_EQUAL(recv1(qp, 1), EINVAL, "no receive queue");
	if (gid_index >= 0) {
		struct ibv_qp_init_attr qi;

		/* RC's attribute sets, as perftest passes them: the
		 * requester's bits are dropped on a target, not refused */
		if (rtr_rts_query(qp, 0x99, &a, &qi) != TEST_SUCCESS)
			return TEST_FAILED;
		TEST_ASSERT_EQUAL(a.timeout, 14, "");
		TEST_ASSERT_EQUAL(a.max_dest_rd_atomic, 4, "");
		TEST_ASSERT_EQUAL(a.retry_cnt, 0, "dropped, not applied");
		TEST_ASSERT_EQUAL(a.rnr_retry, 0, "dropped, not applied");
		TEST_ASSERT_EQUAL(a.max_rd_atomic, 0, "dropped, not applied");
	}
	TEST_ASSERT_EQUAL(ibv_destroy_qp(qp), 0, "");
	TEST_ASSERT_EQUAL(ibv_close_xrcd(xrcd), 0, "");
	return TEST_SUCCESS;
}

/*
 * Two QPs of the device connected to each other (needs the device's
 * engine): a SEND and, on RC/UC, an RDMA WRITE complete with the data in
 * place; on UD the receive carries the 40-byte GRH and the source QP.
 */
static int
loopback(enum ibv_qp_type t)
{
	const bool ud = t == IBV_QPT_UD;
	const unsigned int grh = ud ? 40 : 0;
	const int nsend = ud ? 1 : 2;
	struct ibv_qp_init_attr_ex ia;
	struct ibv_ah_attr aa;
	struct ibv_cq *ca, *cb;
	struct ibv_qp *qa, *qb;
	struct ibv_ah *ah = NULL;
	struct ibv_wc wc;
	struct ibv_sge sge;
	struct ibv_send_wr swr, *sbad;
	struct ibv_recv_wr rwr, *rbad;
	struct ibv_mr *rmr;
	static uint8_t dst[512];
	int i, got_a = 0, got_b = 0;

	if (gid_index < 0 || to_dctx(ctx)->dev->engine == NULL)
		return TEST_SKIPPED;
	rmr = ibv_reg_mr(pd, dst, sizeof(dst),
			 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	ca = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	cb = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	TEST_ASSERT(rmr && ca && cb, "");
	init_attr(&ia, t);
	ia.send_cq = ia.recv_cq = ca;
	TEST_ASSERT_EQUAL(create_ex(&ia, &qa), 0, "");
	ia.send_cq = ia.recv_cq = cb;
	TEST_ASSERT_EQUAL(create_ex(&ia, &qb), 0, "");
	TEST_ASSERT_EQUAL(to_init(qa), 0, "");
	TEST_ASSERT_EQUAL(to_init(qb), 0, "");
	for (i = 0; i < 64; i++)
		buf[i] = (uint8_t)(i * 7 + 1);
	memset(dst, 0, sizeof(dst));
	sge.addr = (uintptr_t)dst;
	sge.length = 128 + grh;
	sge.lkey = rmr->lkey;
	memset(&rwr, 0, sizeof(rwr));
	rwr.wr_id = 42;
	rwr.sg_list = &sge;
	rwr.num_sge = 1;
	TEST_ASSERT_EQUAL(ibv_post_recv(qb, &rwr, &rbad), 0, "");
	TEST_ASSERT_EQUAL(to_rtr(qa, qb->qp_num), 0, "");
	TEST_ASSERT_EQUAL(to_rtr(qb, qa->qp_num), 0, "");
	TEST_ASSERT_EQUAL(to_rts(qa), 0, "");
	TEST_ASSERT_EQUAL(to_rts(qb), 0, "");

	sge.addr = (uintptr_t)buf;
	sge.length = 64;
	sge.lkey = mr->lkey;
	memset(&swr, 0, sizeof(swr));
	swr.wr_id = 41;
	swr.sg_list = &sge;
	swr.num_sge = 1;
	swr.opcode = IBV_WR_SEND;
	swr.send_flags = IBV_SEND_SIGNALED;
	if (ud) {
		memset(&aa, 0, sizeof(aa));
		aa.is_global = 1;
		aa.grh.dgid = gid;
		aa.grh.sgid_index = (uint8_t)gid_index;
		aa.grh.hop_limit = 64;
		aa.port_num = 1;
		ah = ibv_create_ah(pd, &aa);
		TEST_ASSERT_NOT_NULL(ah, "errno %d", errno);
		swr.wr.ud.ah = ah;
		swr.wr.ud.remote_qpn = qb->qp_num;
		swr.wr.ud.remote_qkey = 0x11111111;
	}
	TEST_ASSERT_EQUAL(ibv_post_send(qa, &swr, &sbad), 0, "");
	if (!ud) {
		/* RDMA WRITE of 16 bytes at dst + 200 */
		sge.length = 16;
		swr.wr_id = 43;
		swr.opcode = IBV_WR_RDMA_WRITE;
		swr.wr.rdma.remote_addr = (uintptr_t)dst + 200;
		swr.wr.rdma.rkey = rmr->rkey;
		TEST_ASSERT_EQUAL(ibv_post_send(qa, &swr, &sbad), 0, "");
	}
	for (i = 0; i < 200000 && (got_a < nsend || got_b < 1); i++) {
		if (ibv_poll_cq(ca, 1, &wc) == 1) {
			TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "wr %lu",
					  (unsigned long)wc.wr_id);
			TEST_ASSERT_EQUAL(wc.wr_id, got_a ? 43 : 41, "");
			got_a++;
		}
		if (ibv_poll_cq(cb, 1, &wc) == 1) {
			TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "");
			TEST_ASSERT_EQUAL(wc.wr_id, 42, "");
			TEST_ASSERT_EQUAL(wc.byte_len, 64 + grh, "");
			TEST_ASSERT_EQUAL(wc.qp_num, qb->qp_num, "");
			TEST_ASSERT_EQUAL(wc.opcode, IBV_WC_RECV, "");
			if (ud) {
				TEST_ASSERT_EQUAL(wc.src_qp, qa->qp_num, "");
				TEST_ASSERT(wc.wc_flags & IBV_WC_GRH, "");
			}
			got_b++;
		}
		if (i % 1000 == 999)
			usleep(1000);
	}
	TEST_ASSERT_EQUAL(got_a, nsend, "send completions");
	TEST_ASSERT_EQUAL(got_b, 1, "receive completion");
	TEST_ASSERT_BUFFERS_EQUAL(dst + grh, buf, 64, "SEND payload");
	if (!ud)
		TEST_ASSERT_BUFFERS_EQUAL(dst + 200, buf, 16, "WRITE payload");
	if (ah)
		TEST_ASSERT_EQUAL(ibv_destroy_ah(ah), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_qp(qa), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_qp(qb), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_cq(ca), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_cq(cb), 0, "");
	TEST_ASSERT_EQUAL(ibv_dereg_mr(rmr), 0, "");
	return TEST_SUCCESS;
}

/*
 * UD multicast on the device: two QPs attached to a group, one SEND to the
 * group's GID and QPN 0xffffff reaches both (the sender too, unless it was
 * created with IBV_QP_CREATE_BLOCK_SELF_MCAST_LB); after detaching, nothing.
 */
static int
mcast_loopback(bool block_self)
{
	static uint8_t rbuf[2][256];
	static const uint8_t v4pfx[12] = {0, 0, 0, 0, 0, 0,
					  0, 0, 0, 0, 0xff, 0xff};
	struct ibv_qp_init_attr_ex ia;
	struct ibv_ah_attr aa;
	struct ibv_qp *q[2];
	struct ibv_cq *c[2];
	struct ibv_mr *rmr;
	struct ibv_ah *ah;
	struct ibv_sge sge;
	struct ibv_send_wr swr, *sbad;
	struct ibv_recv_wr rwr, *rbad;
	union ibv_gid mgid;
	struct ibv_wc wc;
	int got[2] = {0, 0}, sent = 0, i, k;

	if (gid_index < 0 || to_dctx(ctx)->dev->engine == NULL)
		return TEST_SKIPPED;
	memset(&mgid, 0, sizeof(mgid));
	if (memcmp(gid.raw, v4pfx, sizeof(v4pfx)) == 0) {
		memcpy(mgid.raw, v4pfx, sizeof(v4pfx));
		mgid.raw[12] = 239; /* 239.0.2.1 */
		mgid.raw[15] = 1;
		mgid.raw[14] = 2;
	} else {
		mgid.raw[0] = 0xff; /* ff0e::db8:1 */
		mgid.raw[1] = 0x0e;
		mgid.raw[13] = 0xb8;
		mgid.raw[12] = 0x0d;
		mgid.raw[15] = 1;
	}
	rmr = ibv_reg_mr(pd, rbuf, sizeof(rbuf), IBV_ACCESS_LOCAL_WRITE);
	TEST_ASSERT_NOT_NULL(rmr, "");
	for (k = 0; k < 2; k++) {
		c[k] = ibv_create_cq(ctx, 16, NULL, NULL, 0);
		TEST_ASSERT_NOT_NULL(c[k], "");
		init_attr(&ia, IBV_QPT_UD);
		ia.send_cq = ia.recv_cq = c[k];
		if (k == 0 && block_self) {
			ia.comp_mask |= IBV_QP_INIT_ATTR_CREATE_FLAGS;
			ia.create_flags = IBV_QP_CREATE_BLOCK_SELF_MCAST_LB;
		}
		TEST_ASSERT_EQUAL(create_ex(&ia, &q[k]), 0, "");
		TEST_ASSERT_EQUAL(to_init(q[k]), 0, "");
		TEST_ASSERT_EQUAL(to_rtr(q[k], 0), 0, "");
		TEST_ASSERT_EQUAL(to_rts(q[k]), 0, "");
		TEST_ASSERT_EQUAL(ibv_attach_mcast(q[k], &mgid, 0), 0, "");
		sge.addr = (uintptr_t)rbuf[k];
		sge.length = sizeof(rbuf[k]);
		sge.lkey = rmr->lkey;
		memset(&rwr, 0, sizeof(rwr));
		rwr.wr_id = 100 + k;
		rwr.sg_list = &sge;
		rwr.num_sge = 1;
		TEST_ASSERT_EQUAL(ibv_post_recv(q[k], &rwr, &rbad), 0, "");
	}
	memset(&aa, 0, sizeof(aa));
	aa.is_global = 1;
	aa.grh.dgid = mgid;
	aa.grh.sgid_index = (uint8_t)gid_index;
	aa.grh.hop_limit = 1;
	aa.port_num = 1;
	ah = ibv_create_ah(pd, &aa);
	TEST_ASSERT_NOT_NULL(ah, "errno %d", errno);
	for (i = 0; i < 32; i++)
		buf[i] = (uint8_t)(i * 5 + 3);
	sge.addr = (uintptr_t)buf;
	sge.length = 32;
	sge.lkey = mr->lkey;
	memset(&swr, 0, sizeof(swr));
	swr.wr_id = 7;
	swr.sg_list = &sge;
	swr.num_sge = 1;
	swr.opcode = IBV_WR_SEND;
	swr.send_flags = IBV_SEND_SIGNALED;
	swr.wr.ud.ah = ah;
	swr.wr.ud.remote_qpn = 0xffffff;
	swr.wr.ud.remote_qkey = 0x11111111;
	TEST_ASSERT_EQUAL(ibv_post_send(q[0], &swr, &sbad), 0, "");
	for (i = 0; i < 100000; i++) {
		for (k = 0; k < 2; k++) {
			if (ibv_poll_cq(c[k], 1, &wc) != 1)
				continue;
			TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "wr %lu",
					  (unsigned long)wc.wr_id);
			if (wc.opcode == IBV_WC_SEND) {
				sent++;
				continue;
			}
			TEST_ASSERT_EQUAL(wc.wr_id, 100 + k, "");
			TEST_ASSERT_EQUAL(wc.src_qp, q[0]->qp_num, "");
			TEST_ASSERT_EQUAL(wc.byte_len, 40 + 32, "");
			TEST_ASSERT_BUFFERS_EQUAL(rbuf[k] + 40, buf, 32, "");
			got[k]++;
		}
		/* wait a while longer for a copy that must not come */
		if (sent && got[1] && (got[0] || i > 20000))
			break;
		if (i % 1000 == 999)
			usleep(1000);
	}
	TEST_ASSERT_EQUAL(sent, 1, "send completion");
	TEST_ASSERT_EQUAL(got[1], 1, "the other member");
	TEST_ASSERT_EQUAL(got[0], block_self ? 0 : 1, "the sender itself");
	TEST_ASSERT_EQUAL(ibv_destroy_ah(ah), 0, "");
	for (k = 0; k < 2; k++) {
		TEST_ASSERT_EQUAL(ibv_detach_mcast(q[k], &mgid, 0), 0, "");
		TEST_ASSERT_EQUAL(ibv_destroy_qp(q[k]), 0, "");
		TEST_ASSERT_EQUAL(ibv_destroy_cq(c[k]), 0, "");
	}
	TEST_ASSERT_EQUAL(ibv_dereg_mr(rmr), 0, "");
	return TEST_SUCCESS;
}

/* Test cases that run a parametrized case with one argument. */
#define QP_CASE_WITH(name, fn, arg)                                            \
	static int name(void)                                                  \
	{                                                                      \
		return fn(arg);                                                \
	}

QP_CASE_WITH(case_ud_mcast, mcast_loopback, false)
QP_CASE_WITH(case_ud_mcast_block_self, mcast_loopback, true)
QP_CASE_WITH(case_rc_loopback, loopback, IBV_QPT_RC)
QP_CASE_WITH(case_uc_loopback, loopback, IBV_QPT_UC)
QP_CASE_WITH(case_ud_loopback, loopback, IBV_QPT_UD)

/* The engine moves a QP to ERR on its own (retries exhausted towards a QP
 * number nobody has): ibv_query_qp reports it, later posts are flushed. */
static int
case_engine_err(void)
{
	struct ibv_qp_init_attr_ex ia;
	struct ibv_qp_attr a;
	struct ibv_wc wc;
	struct ibv_cq *c;
	struct ibv_qp *qp;
	int i, n = 0;

	if (gid_index < 0 || to_dctx(ctx)->dev->engine == NULL)
		return TEST_SKIPPED;
	c = rc_attr_new_cq(&ia, 16);
	TEST_ASSERT_NOT_NULL(c, "");
	TEST_ASSERT_EQUAL(create_ex(&ia, &qp), 0, "");
	TEST_ASSERT_EQUAL(to_init(qp), 0, "");
	TEST_ASSERT_EQUAL(to_rtr(qp, 0xabcde), 0, "");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 8; /* ~1 ms */
	a.retry_cnt = 1;
	a.rnr_retry = 1;
	a.max_rd_atomic = 1;
	TEST_ASSERT_EQUAL(modify(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
						 IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
						 IBV_QP_MAX_QP_RD_ATOMIC),
			  0, "");
	TEST_ASSERT_EQUAL(post1(qp, 1), 0, "");
	for (i = 0; i < 200000 && n == 0; i++) {
		n = ibv_poll_cq(c, 1, &wc);
		if (i % 1000 == 999)
			usleep(1000);
	}
	TEST_ASSERT_EQUAL(n, 1, "no completion");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_RETRY_EXC_ERR, "");
	TEST_ASSERT_EQUAL(qstate(qp), IBV_QPS_ERR, "the engine moved it to ERR");
	TEST_ASSERT_EQUAL(post1(qp, 2), 0, "");
	n = drain(c, &wc, 1);
	TEST_ASSERT_EQUAL(n, 1, "");
	TEST_ASSERT_EQUAL(wc.wr_id, 2, "");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_WR_FLUSH_ERR, "");
	/* ERR -> RESET -> INIT works from the engine's ERR too */
	a.qp_state = IBV_QPS_RESET;
	TEST_ASSERT_EQUAL(modify(qp, &a, IBV_QP_STATE), 0, "");
	TEST_ASSERT_EQUAL(qstate(qp), IBV_QPS_RESET, "");
	TEST_ASSERT_EQUAL(to_init(qp), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_qp(qp), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_cq(c), 0, "");
	return TEST_SUCCESS;
}

/* Next async event of ctx within about ms milliseconds (polling the CQs
 * meanwhile, which runs the engine). 0 with *ev filled, else -1. */
static int
async_wait(struct ibv_cq *c1, struct ibv_cq *c2, struct ibv_async_event *ev,
	   int ms)
{
	struct ibv_wc wc;
	int i;

	for (i = 0; i < ms * 10; i++) {
		if (ibv_get_async_event(ctx, ev) == 0)
			return 0;
		/* CQEs are left for the test: peek with a zero-length poll */
		ibv_poll_cq(c1, 0, &wc);
		ibv_poll_cq(c2, 0, &wc);
		usleep(100);
	}
	return -1;
}

/*
 * RTS -> SQD with en_sqd_async_notify while two RC SENDs are in flight
 * (RNR: the peer has no receive WQE yet): sq_draining is 1 and no event
 * comes; once the peer posts receives, the SENDs complete and
 * IBV_EVENT_SQ_DRAINED arrives, once. A SEND posted in SQD is not started
 * before SQD -> RTS, then it goes. SQD without notify raises nothing.
 */
static int
case_sqd_drained(void)
{
	struct ibv_qp_init_attr_ex ia;
	struct ibv_qp_init_attr qi;
	struct ibv_async_event ev;
	struct ibv_qp_attr a;
	struct ibv_wc wc[4];
	struct ibv_cq *ca, *cb;
	struct ibv_qp *qa, *qb;
	int fl, i, n, rc = TEST_FAILED;

	if (gid_index < 0 || to_dctx(ctx)->dev->engine == NULL)
		return TEST_SKIPPED;
	fl = fcntl(ctx->async_fd, F_GETFL);
	fcntl(ctx->async_fd, F_SETFL, fl | O_NONBLOCK);
	while (ibv_get_async_event(ctx, &ev) == 0) /* left by other cases */
		ibv_ack_async_event(&ev);
	ca = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	cb = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	TEST_ASSERT(ca && cb, "");
	init_attr(&ia, IBV_QPT_RC);
	ia.send_cq = ia.recv_cq = ca;
	TEST_ASSERT_EQUAL(create_ex(&ia, &qa), 0, "");
	ia.send_cq = ia.recv_cq = cb;
	TEST_ASSERT_EQUAL(create_ex(&ia, &qb), 0, "");
	TEST_ASSERT_EQUAL(to_init(qa), 0, "");
	TEST_ASSERT_EQUAL(to_init(qb), 0, "");
	TEST_ASSERT_EQUAL(to_rtr(qa, qb->qp_num), 0, "");
	TEST_ASSERT_EQUAL(to_rtr(qb, qa->qp_num), 0, "");
	TEST_ASSERT_EQUAL(to_rts(qa), 0, "");
	TEST_ASSERT_EQUAL(to_rts(qb), 0, "");

	TEST_ASSERT_EQUAL(post1(qa, 1), 0, "");
	TEST_ASSERT_EQUAL(post1(qa, 2), 0, "");
	/* let the engine fetch and send them (RNR NAKed, retried forever) */
	TEST_ASSERT_EQUAL(test_loop_wait_wc(ca, wc, 1, 20), 0,
			  "no receive yet");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_SQD;
	a.en_sqd_async_notify = 1;
	TEST_ASSERT_EQUAL(
		modify(qa, &a, IBV_QP_STATE | IBV_QP_EN_SQD_ASYNC_NOTIFY), 0,
		"");
	TEST_ASSERT_EQUAL(ibv_query_qp(qa, &a, IBV_QP_STATE, &qi), 0, "");
	TEST_ASSERT_EQUAL(a.qp_state, IBV_QPS_SQD, "");
	TEST_ASSERT_EQUAL(a.sq_draining, 1, "SENDs still in flight");
	TEST_ASSERT_EQUAL(post1(qa, 3), 0, "posting in SQD is allowed");
	if (async_wait(ca, cb, &ev, 20) == 0) {
		DPV_TEST_LOG("event %d before the SQ drained", ev.event_type);
		ibv_ack_async_event(&ev);
		goto out;
	}
	for (i = 0; i < 3; i++)
		TEST_ASSERT_EQUAL(recv1(qb, 10 + i), 0, "");
	TEST_ASSERT_EQUAL(async_wait(ca, cb, &ev, 3000), 0, "no SQ_DRAINED");
	TEST_ASSERT_EQUAL(ev.event_type, IBV_EVENT_SQ_DRAINED, "");
	TEST_ASSERT(ev.element.qp == qa, "event names the QP");
	ibv_ack_async_event(&ev);
	TEST_ASSERT_EQUAL(ibv_query_qp(qa, &a, IBV_QP_STATE, &qi), 0, "");
	TEST_ASSERT_EQUAL(a.sq_draining, 0, "");
	n = test_loop_wait_wc(ca, wc, 4, 200);
	TEST_ASSERT_EQUAL(n, 2, "the two SENDs fetched before SQD");
	TEST_ASSERT(wc[0].wr_id == 1 && wc[1].wr_id == 2 &&
			    wc[0].status == IBV_WC_SUCCESS &&
			    wc[1].status == IBV_WC_SUCCESS,
		    "");
	TEST_ASSERT_EQUAL(test_loop_wait_wc(cb, wc, 4, 50), 2, "");
	TEST_ASSERT_EQUAL(async_wait(ca, cb, &ev, 20), -1, "one event only");

	/* back to RTS: the SEND posted in SQD goes */
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	TEST_ASSERT_EQUAL(modify(qa, &a, IBV_QP_STATE), 0, "SQD -> RTS");
	n = test_loop_wait_wc(ca, wc, 1, 3000);
	TEST_ASSERT(n == 1 && wc[0].wr_id == 3 &&
			    wc[0].status == IBV_WC_SUCCESS,
		    "SEND after RTS");
	TEST_ASSERT_EQUAL(test_loop_wait_wc(cb, wc, 1, 3000), 1, "");
	TEST_ASSERT_EQUAL(wc[0].wr_id, 12, "");

	/* SQD without notify: no event */
	a.qp_state = IBV_QPS_SQD;
	TEST_ASSERT_EQUAL(modify(qa, &a, IBV_QP_STATE), 0, "");
	TEST_ASSERT_EQUAL(async_wait(ca, cb, &ev, 20), -1, "no notify asked");
	rc = TEST_SUCCESS;
out:
	fcntl(ctx->async_fd, F_SETFL, fl);
	TEST_ASSERT_EQUAL(ibv_destroy_qp(qa), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_qp(qb), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_cq(ca), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_cq(cb), 0, "");
	return rc;
}

static const struct dpv_test_suite qp_suite = {
	.name = "qp",
	.setup = suite_setup,
	.teardown = suite_teardown,
	.cases = {
		TEST_CASE(case_create_caps),
		TEST_CASE(case_create_limits),
		TEST_CASE(case_create_types_and_mask),
		TEST_CASE(case_create_flags),
		TEST_CASE(case_send_ops),
		TEST_CASE(case_state_walk),
		TEST_CASE(case_modify_refused),
		TEST_CASE(case_post_states),
		TEST_CASE(case_flush_on_err),
		TEST_CASE(case_qp_ex_post),
		TEST_CASE(case_destroy_order),
		TEST_CASE(case_destroy_cleans_cq),
		TEST_CASE(case_cq_owners),
		TEST_CASE(case_mcast),
		TEST_CASE(case_qpn_unique),
		TEST_CASE(case_xrc_recv),
		TEST_CASE(case_rc_loopback),
		TEST_CASE(case_uc_loopback),
		TEST_CASE(case_ud_loopback),
		TEST_CASE(case_ud_mcast),
		TEST_CASE(case_ud_mcast_block_self),
		TEST_CASE(case_engine_err),
		TEST_CASE(case_sqd_drained),
		TEST_CASES_END(),
	},
};

static int
test_qp(void)
{
	return dpv_test_run_suite(&qp_suite);
}

DPV_TEST_REGISTER_FAST(qp, test_qp);
