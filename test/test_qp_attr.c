/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The QP state machine (lib/verbs/qp_attr.c) against an expectation list
 * written here by hand from the IBTA "QP state transition properties"
 * tables, independently of the library's own table.
 */
#include <errno.h>
#include <stdbool.h>

#include "dpv_test.h"
#include "qp_attr.h"

#define DIM(a) (sizeof(a) / sizeof((a)[0]))

/* Spelled out in full on purpose (no shared macros with the library). */
struct expect_row {
	enum ibv_qp_type t;
	enum ibv_qp_state cur, next;
	int req;
	int opt; /* as the specification lists it, ALT_PATH included */
};

#define E(t, c, n, r, o) {IBV_QPT_##t, IBV_QPS_##c, IBV_QPS_##n, (r), (o)}

static const struct expect_row expect[] = {
	/* RC */
	E(RC, RESET, INIT, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS, 0),
	E(RC, INIT, INIT, 0, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS),
	E(RC, INIT, RTR,
	  IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
		  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER,
	  IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX),
	E(RC, RTR, RTS,
	  IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
		  IBV_QP_MAX_QP_RD_ATOMIC,
	  IBV_QP_CUR_STATE | IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS |
		  IBV_QP_MIN_RNR_TIMER | IBV_QP_PATH_MIG_STATE),
	E(RC, RTS, RTS, 0,
	  IBV_QP_CUR_STATE | IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS |
		  IBV_QP_MIN_RNR_TIMER | IBV_QP_PATH_MIG_STATE),
	E(RC, RTS, SQD, 0, IBV_QP_EN_SQD_ASYNC_NOTIFY),
	E(RC, SQD, RTS, 0,
	  IBV_QP_CUR_STATE | IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS |
		  IBV_QP_MIN_RNR_TIMER | IBV_QP_PATH_MIG_STATE),
	E(RC, SQD, SQD, 0,
	  IBV_QP_PORT | IBV_QP_AV | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
		  IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC |
		  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_ALT_PATH |
		  IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX |
		  IBV_QP_MIN_RNR_TIMER | IBV_QP_PATH_MIG_STATE),
	/* UC */
	E(UC, RESET, INIT, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS, 0),
	E(UC, INIT, INIT, 0, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS),
	E(UC, INIT, RTR,
	  IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN,
	  IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX),
	E(UC, RTR, RTS, IBV_QP_SQ_PSN,
	  IBV_QP_CUR_STATE | IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS |
		  IBV_QP_PATH_MIG_STATE),
	E(UC, RTS, RTS, 0,
	  IBV_QP_CUR_STATE | IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS |
		  IBV_QP_PATH_MIG_STATE),
	E(UC, RTS, SQD, 0, IBV_QP_EN_SQD_ASYNC_NOTIFY),
	E(UC, SQD, RTS, 0,
	  IBV_QP_CUR_STATE | IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS |
		  IBV_QP_PATH_MIG_STATE),
	E(UC, SQD, SQD, 0,
	  IBV_QP_AV | IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS |
		  IBV_QP_PKEY_INDEX | IBV_QP_PATH_MIG_STATE),
	E(UC, SQE, RTS, 0, IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS),
	/* UD */
	E(UD, RESET, INIT, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY, 0),
	E(UD, INIT, INIT, 0, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY),
	E(UD, INIT, RTR, 0, IBV_QP_PKEY_INDEX | IBV_QP_QKEY),
	E(UD, RTR, RTS, IBV_QP_SQ_PSN, IBV_QP_CUR_STATE | IBV_QP_QKEY),
	E(UD, RTS, RTS, 0, IBV_QP_CUR_STATE | IBV_QP_QKEY),
	E(UD, RTS, SQD, 0, IBV_QP_EN_SQD_ASYNC_NOTIFY),
	E(UD, SQD, RTS, 0, IBV_QP_CUR_STATE | IBV_QP_QKEY),
	E(UD, SQD, SQD, 0, IBV_QP_PKEY_INDEX | IBV_QP_QKEY),
	E(UD, SQE, RTS, 0, IBV_QP_CUR_STATE | IBV_QP_QKEY),
	/* RAW_PACKET */
	E(RAW_PACKET, RESET, INIT, IBV_QP_PORT, 0),
	E(RAW_PACKET, INIT, INIT, 0, 0),
	E(RAW_PACKET, INIT, RTR, 0, 0),
	E(RAW_PACKET, RTR, RTS, 0, IBV_QP_RATE_LIMIT),
	E(RAW_PACKET, RTS, RTS, 0, IBV_QP_RATE_LIMIT),
	E(RAW_PACKET, RTS, SQD, 0, 0),
	E(RAW_PACKET, SQD, RTS, 0, 0),
	E(RAW_PACKET, SQD, SQD, 0, 0),
	E(RAW_PACKET, SQE, RTS, 0, 0),
	/* XRC_SEND */
	E(XRC_SEND, RESET, INIT, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS, 0),
	E(XRC_SEND, INIT, INIT, 0, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS),
	E(XRC_SEND, INIT, RTR,
	  IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN,
	  IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX),
	E(XRC_SEND, RTR, RTS,
	  IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
		  IBV_QP_MAX_QP_RD_ATOMIC,
	  IBV_QP_CUR_STATE | IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS |
		  IBV_QP_PATH_MIG_STATE),
	E(XRC_SEND, RTS, RTS, 0,
	  IBV_QP_CUR_STATE | IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS |
		  IBV_QP_PATH_MIG_STATE),
	E(XRC_SEND, RTS, SQD, 0, IBV_QP_EN_SQD_ASYNC_NOTIFY),
	E(XRC_SEND, SQD, RTS, 0,
	  IBV_QP_CUR_STATE | IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS |
		  IBV_QP_PATH_MIG_STATE),
	E(XRC_SEND, SQD, SQD, 0,
	  IBV_QP_PORT | IBV_QP_AV | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
		  IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC | IBV_QP_ALT_PATH |
		  IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX |
		  IBV_QP_PATH_MIG_STATE),
	/* XRC_RECV */
	E(XRC_RECV, RESET, INIT, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS, 0),
	E(XRC_RECV, INIT, INIT, 0, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS),
	E(XRC_RECV, INIT, RTR,
	  IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
		  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER,
	  IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX),
	E(XRC_RECV, RTR, RTS, IBV_QP_SQ_PSN | IBV_QP_TIMEOUT,
	  IBV_QP_CUR_STATE | IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS |
		  IBV_QP_MIN_RNR_TIMER | IBV_QP_PATH_MIG_STATE),
	E(XRC_RECV, RTS, RTS, 0,
	  IBV_QP_CUR_STATE | IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS |
		  IBV_QP_MIN_RNR_TIMER | IBV_QP_PATH_MIG_STATE),
	E(XRC_RECV, RTS, SQD, 0, IBV_QP_EN_SQD_ASYNC_NOTIFY),
	E(XRC_RECV, SQD, RTS, 0,
	  IBV_QP_CUR_STATE | IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS |
		  IBV_QP_MIN_RNR_TIMER | IBV_QP_PATH_MIG_STATE),
	E(XRC_RECV, SQD, SQD, 0,
	  IBV_QP_PORT | IBV_QP_AV | IBV_QP_TIMEOUT |
		  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_ALT_PATH |
		  IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX |
		  IBV_QP_MIN_RNR_TIMER | IBV_QP_PATH_MIG_STATE),
};

#define N_EXPECT (sizeof(expect) / sizeof(expect[0]))
#define NO_APM (IBV_QP_ALT_PATH | IBV_QP_PATH_MIG_STATE)

static const enum ibv_qp_type types[] = {IBV_QPT_RC, IBV_QPT_UC, IBV_QPT_UD,
					 IBV_QPT_RAW_PACKET, IBV_QPT_XRC_SEND,
					 IBV_QPT_XRC_RECV};

static struct dpv_qp_limits lim;

static const struct expect_row *
find_expect(enum ibv_qp_type t, enum ibv_qp_state c, enum ibv_qp_state n)
{
	static struct expect_row any;
	size_t i;

	if (n == IBV_QPS_RESET || n == IBV_QPS_ERR) {
		any = (struct expect_row){t, c, n, 0, 0};
		return &any;
	}
	for (i = 0; i < N_EXPECT; i++)
		if (expect[i].t == t && expect[i].cur == c && expect[i].next == n)
			return &expect[i];
	return NULL;
}

/* Attributes with valid values for every field. */
static void
good_attr(struct ibv_qp_attr *a, enum ibv_qp_state cur, enum ibv_qp_state next)
{
	memset(a, 0, sizeof(*a));
	a->qp_state = next;
	a->cur_qp_state = cur;
	a->path_mtu = IBV_MTU_1024;
	a->qkey = 0x11111111;
	a->rq_psn = 0x123456;
	a->sq_psn = 0x654321;
	a->dest_qp_num = 0x1234;
	a->qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			     IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
	a->ah_attr.is_global = 1;
	a->ah_attr.grh.sgid_index = 1;
	a->ah_attr.grh.hop_limit = 64;
	a->ah_attr.port_num = 1;
	a->pkey_index = 0;
	a->en_sqd_async_notify = 1;
	a->max_rd_atomic = 4;
	a->max_dest_rd_atomic = 4;
	a->min_rnr_timer = 12;
	a->port_num = 1;
	a->timeout = 14;
	a->retry_cnt = 7;
	a->rnr_retry = 7;
	a->rate_limit = 1000;
}

static int
check(const struct expect_row *e, int mask)
{
	struct ibv_qp_attr a;

	good_attr(&a, e->cur, e->next);
	return dpv_qp_check_modify(e->t, e->cur, e->next, mask, &a, &lim);
}

static int
setup(void)
{
	dpv_qp_limits_default(&lim);
	return 0;
}

/* The library's table equals the hand-written list, row for row. */
static int
case_table_matches(void)
{
	unsigned ti, c, n, rows = 0;

	for (ti = 0; ti < DIM(types); ti++)
		for (c = 0; c <= IBV_QPS_ERR; c++)
			for (n = 0; n <= IBV_QPS_ERR; n++) {
				const struct expect_row *e =
					find_expect(types[ti], c, n);
				int req = -1, opt = -1;
				int rc = dpv_qp_transition_masks(types[ti], c, n,
								 &req, &opt);

				if (e == NULL) {
					TEST_ASSERT_EQUAL(rc, EINVAL, "%s %s->%s must not exist",
							  dpv_qp_type_str(types[ti]),
							  dpv_qp_state_str(c),
							  dpv_qp_state_str(n));
					continue;
				}
				rows++;
				TEST_ASSERT_EQUAL(rc, 0, "%s %s->%s must exist",
						  dpv_qp_type_str(types[ti]),
						  dpv_qp_state_str(c), dpv_qp_state_str(n));
				TEST_ASSERT_EQUAL(req, e->req, "required %s %s->%s",
						  dpv_qp_type_str(types[ti]),
						  dpv_qp_state_str(c), dpv_qp_state_str(n));
				TEST_ASSERT_EQUAL(opt, e->opt & ~NO_APM,
						  "optional %s %s->%s",
						  dpv_qp_type_str(types[ti]),
						  dpv_qp_state_str(c), dpv_qp_state_str(n));
			}
	/* 6 types x 7 states x (RESET, ERR) + the explicit rows */
	TEST_ASSERT_EQUAL(rows, 6 * 7 * 2 + N_EXPECT, "row count");
	return TEST_SUCCESS;
}

/* Per row: minimal mask passes, each missing required bit fails, each
 * optional bit passes (alternate-path bits fail), every other bit fails. */
static int
case_masks_per_row(void)
{
	unsigned ti, c, n, bit;

	for (ti = 0; ti < DIM(types); ti++)
		for (c = 0; c <= IBV_QPS_ERR; c++)
			for (n = 0; n <= IBV_QPS_ERR; n++) {
				const struct expect_row *e =
					find_expect(types[ti], c, n);
				int min;

				if (e == NULL)
					continue;
				min = IBV_QP_STATE | e->req;
				TEST_ASSERT_EQUAL(check(e, min), 0, "minimal %s %s->%s",
						  dpv_qp_type_str(e->t),
						  dpv_qp_state_str(c), dpv_qp_state_str(n));
				for (bit = 0; bit < 32; bit++) {
					int b = (int)(1u << bit);
					int want;

					if (b == IBV_QP_STATE)
						continue;
					if (e->req & b)
						want = EINVAL; /* dropped below */
					else if ((e->opt & b) && !(b & NO_APM))
						want = 0;
					else
						want = EINVAL;
					if (e->req & b) {
						TEST_ASSERT_EQUAL(check(e, min & ~b), want,
								  "missing bit %u %s %s->%s",
								  bit, dpv_qp_type_str(e->t),
								  dpv_qp_state_str(c),
								  dpv_qp_state_str(n));
						continue;
					}
					TEST_ASSERT_EQUAL(check(e, min | b), want,
							  "extra bit %u %s %s->%s", bit,
							  dpv_qp_type_str(e->t),
							  dpv_qp_state_str(c),
							  dpv_qp_state_str(n));
				}
				/* all supported optional bits at once */
				TEST_ASSERT_EQUAL(check(e, min | (e->opt & ~NO_APM)), 0,
						  "all optional %s %s->%s",
						  dpv_qp_type_str(e->t),
						  dpv_qp_state_str(c), dpv_qp_state_str(n));
			}
	return TEST_SUCCESS;
}

/* Transitions that do not exist fail whatever the mask. */
static int
case_invalid_transitions(void)
{
	unsigned ti, c, n, checked = 0;
	struct ibv_qp_attr a;

	for (ti = 0; ti < DIM(types); ti++)
		for (c = 0; c <= IBV_QPS_ERR; c++)
			for (n = 0; n <= IBV_QPS_ERR; n++) {
				if (find_expect(types[ti], c, n))
					continue;
				good_attr(&a, c, n);
				TEST_ASSERT_EQUAL(dpv_qp_check_modify(types[ti], c, n,
								      IBV_QP_STATE, &a, &lim),
						  EINVAL, "%s %s->%s",
						  dpv_qp_type_str(types[ti]),
						  dpv_qp_state_str(c), dpv_qp_state_str(n));
				TEST_ASSERT_EQUAL(dpv_qp_check_modify(types[ti], c, n,
								      0x3ffffff & ~NO_APM &
									      ~IBV_QP_CAP,
								      &a, &lim),
						  EINVAL, "%s %s->%s all bits",
						  dpv_qp_type_str(types[ti]),
						  dpv_qp_state_str(c), dpv_qp_state_str(n));
				checked++;
			}
	/* e.g. RESET->RTR, RESET->RTS, INIT->RTS, RTR->RTR, RC SQE->RTS */
	TEST_ASSERT(checked > 100, "only %u invalid transitions", checked);

	/* some by name */
	good_attr(&a, IBV_QPS_RESET, IBV_QPS_RTS);
	TEST_ASSERT_EQUAL(dpv_qp_check_modify(IBV_QPT_RC, IBV_QPS_RESET, IBV_QPS_RTS,
					      IBV_QP_STATE, &a, &lim), EINVAL, "");
	TEST_ASSERT_EQUAL(dpv_qp_check_modify(IBV_QPT_RC, IBV_QPS_SQE, IBV_QPS_RTS,
					      IBV_QP_STATE, &a, &lim), EINVAL,
			  "RC has no SQE state");
	TEST_ASSERT_EQUAL(dpv_qp_check_modify(IBV_QPT_UD, IBV_QPS_RTS, IBV_QPS_SQE,
					      IBV_QP_STATE, &a, &lim), EINVAL,
			  "SQE is entered by the device only");
	/* bad type or state */
	TEST_ASSERT_EQUAL(dpv_qp_check_modify(IBV_QPT_DRIVER, IBV_QPS_RESET, IBV_QPS_ERR,
					      IBV_QP_STATE, &a, &lim), EINVAL, "");
	TEST_ASSERT_EQUAL(dpv_qp_check_modify((enum ibv_qp_type)0, IBV_QPS_RESET,
					      IBV_QPS_ERR, IBV_QP_STATE, &a, &lim),
			  EINVAL, "");
	a.qp_state = IBV_QPS_UNKNOWN;
	TEST_ASSERT_EQUAL(dpv_qp_check_modify(IBV_QPT_RC, IBV_QPS_RESET, IBV_QPS_UNKNOWN,
					      IBV_QP_STATE, &a, &lim), EINVAL, "");
	TEST_ASSERT_EQUAL(dpv_qp_check_modify(IBV_QPT_RC, IBV_QPS_UNKNOWN, IBV_QPS_ERR,
					      0, &a, &lim), EINVAL, "");
	return TEST_SUCCESS;
}

/* The main rows, named one by one (as ibv_modify_qp(3) lists them). */
static int
case_named_rows(void)
{
	static const struct {
		enum ibv_qp_type t;
		enum ibv_qp_state c, n;
		int mask;
	} ok[] = {
		{IBV_QPT_RC, IBV_QPS_RESET, IBV_QPS_INIT,
		 IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS},
		{IBV_QPT_RC, IBV_QPS_INIT, IBV_QPS_RTR,
		 IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			 IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER},
		{IBV_QPT_RC, IBV_QPS_RTR, IBV_QPS_RTS,
		 IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			 IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC},
		{IBV_QPT_UD, IBV_QPS_RESET, IBV_QPS_INIT,
		 IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY},
		{IBV_QPT_UD, IBV_QPS_INIT, IBV_QPS_RTR, IBV_QP_STATE},
		{IBV_QPT_UD, IBV_QPS_RTR, IBV_QPS_RTS, IBV_QP_STATE | IBV_QP_SQ_PSN},
		{IBV_QPT_UC, IBV_QPS_INIT, IBV_QPS_RTR,
		 IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			 IBV_QP_RQ_PSN},
		{IBV_QPT_UC, IBV_QPS_RTR, IBV_QPS_RTS, IBV_QP_STATE | IBV_QP_SQ_PSN},
		{IBV_QPT_RAW_PACKET, IBV_QPS_RESET, IBV_QPS_INIT,
		 IBV_QP_STATE | IBV_QP_PORT},
		{IBV_QPT_RC, IBV_QPS_RTS, IBV_QPS_ERR, IBV_QP_STATE},
		{IBV_QPT_RC, IBV_QPS_ERR, IBV_QPS_RESET, IBV_QP_STATE},
		{IBV_QPT_RC, IBV_QPS_RESET, IBV_QPS_RESET, IBV_QP_STATE},
		{IBV_QPT_UD, IBV_QPS_RESET, IBV_QPS_ERR, IBV_QP_STATE},
		/* no IBV_QP_STATE: stay in the state and change attributes */
		{IBV_QPT_UD, IBV_QPS_RTS, IBV_QPS_RTS, IBV_QP_QKEY},
		{IBV_QPT_RC, IBV_QPS_INIT, IBV_QPS_INIT, IBV_QP_ACCESS_FLAGS},
		{IBV_QPT_RC, IBV_QPS_RESET, IBV_QPS_RESET, 0},
	};
	static const struct {
		enum ibv_qp_type t;
		enum ibv_qp_state c, n;
		int mask;
	} bad[] = {
		/* ACCESS_FLAGS belongs to RC, not UD; QKEY to UD, not RC */
		{IBV_QPT_RC, IBV_QPS_RESET, IBV_QPS_INIT,
		 IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY},
		{IBV_QPT_UD, IBV_QPS_RESET, IBV_QPS_INIT,
		 IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS},
		{IBV_QPT_RC, IBV_QPS_INIT, IBV_QPS_RTR,
		 IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			 IBV_QP_RQ_PSN},
		{IBV_QPT_RAW_PACKET, IBV_QPS_RESET, IBV_QPS_INIT,
		 IBV_QP_STATE | IBV_QP_PORT | IBV_QP_PKEY_INDEX},
		/* the QP capabilities cannot be resized */
		{IBV_QPT_RC, IBV_QPS_RTS, IBV_QPS_RTS, IBV_QP_STATE | IBV_QP_CAP},
		{IBV_QPT_RC, IBV_QPS_RTS, IBV_QPS_RTS, IBV_QP_CAP},
		/* APM is not supported even where the specification allows it */
		{IBV_QPT_RC, IBV_QPS_RTS, IBV_QPS_RTS,
		 IBV_QP_STATE | IBV_QP_PATH_MIG_STATE},
		{IBV_QPT_RC, IBV_QPS_INIT, IBV_QPS_RTR,
		 IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			 IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			 IBV_QP_MIN_RNR_TIMER | IBV_QP_ALT_PATH},
		/* no IBV_QP_STATE from a state without a self transition */
		{IBV_QPT_RC, IBV_QPS_RTR, IBV_QPS_RTR, IBV_QP_MIN_RNR_TIMER},
		/* CUR_STATE only from RTR/RTS/SQD/SQE */
		{IBV_QPT_RC, IBV_QPS_INIT, IBV_QPS_INIT, IBV_QP_STATE | IBV_QP_CUR_STATE},
		{IBV_QPT_RC, IBV_QPS_RTS, IBV_QPS_ERR, IBV_QP_STATE | IBV_QP_CUR_STATE},
		/* private / unknown bits */
		{IBV_QPT_UD, IBV_QPS_RTS, IBV_QPS_RTS, IBV_QP_STATE | (1 << 21)},
		{IBV_QPT_UD, IBV_QPS_RTS, IBV_QPS_RTS, IBV_QP_STATE | (1 << 26)},
		{IBV_QPT_UD, IBV_QPS_RTS, IBV_QPS_RTS, IBV_QP_STATE | (int)(1u << 31)},
		{IBV_QPT_RC, IBV_QPS_RTR, IBV_QPS_RTS,
		 IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			 IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC | IBV_QP_RATE_LIMIT},
	};
	struct ibv_qp_attr a;
	unsigned i;

	for (i = 0; i < DIM(ok); i++) {
		good_attr(&a, ok[i].c, ok[i].n);
		TEST_ASSERT_EQUAL(dpv_qp_check_modify(ok[i].t, ok[i].c, ok[i].n,
						      ok[i].mask, &a, &lim),
				  0, "ok[%u]", i);
	}
	for (i = 0; i < DIM(bad); i++) {
		good_attr(&a, bad[i].c, bad[i].n);
		TEST_ASSERT_EQUAL(dpv_qp_check_modify(bad[i].t, bad[i].c, bad[i].n,
						      bad[i].mask, &a, &lim),
				  EINVAL, "bad[%u]", i);
	}
	return TEST_SUCCESS;
}

/* Value ranges, each checked on a transition that carries the attribute. */
static int
case_values(void)
{
	const int rc_init = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			    IBV_QP_ACCESS_FLAGS;
	const int rc_rtr = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			   IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			   IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	const int rc_rts = IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
			   IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			   IBV_QP_MAX_QP_RD_ATOMIC;
	struct ibv_qp_attr a;
	struct dpv_qp_limits l2;

#define TRY(c, n, mask, stmt, want)                                            \
	do {                                                                   \
		good_attr(&a, IBV_QPS_##c, IBV_QPS_##n);                       \
		stmt;                                                          \
		TEST_ASSERT_EQUAL(dpv_qp_check_modify(IBV_QPT_RC, IBV_QPS_##c, \
						      IBV_QPS_##n, mask, &a,   \
						      &lim),                   \
				  want, "%s", #stmt);                          \
	} while (0)

	TRY(RESET, INIT, rc_init, a.port_num = 0, EINVAL);
	TRY(RESET, INIT, rc_init, a.port_num = 2, EINVAL);
	TRY(RESET, INIT, rc_init, a.port_num = 1, 0);
	TRY(RESET, INIT, rc_init, a.pkey_index = 1, EINVAL);
	TRY(RESET, INIT, rc_init, a.qp_access_flags = 0, 0);
	TRY(RESET, INIT, rc_init, a.qp_access_flags = IBV_ACCESS_MW_BIND, 0);
	TRY(RESET, INIT, rc_init, a.qp_access_flags = 1 << 5, EINVAL);
	TRY(RESET, INIT, rc_init, a.qp_access_flags = IBV_ACCESS_ON_DEMAND, 0);
	TRY(RESET, INIT, rc_init, a.qp_access_flags = IBV_ACCESS_ZERO_BASED,
	    EINVAL);
	TRY(RESET, INIT, rc_init, a.qp_access_flags = 1 << 8, EINVAL);
	TRY(RESET, INIT, rc_init, a.qp_access_flags = 1 << 30, EINVAL);
	TRY(RESET, INIT, rc_init,
	    a.qp_access_flags = IBV_ACCESS_REMOTE_READ | IBV_ACCESS_RELAXED_ORDERING, 0);

	TRY(INIT, RTR, rc_rtr, a.path_mtu = 0, EINVAL);
	TRY(INIT, RTR, rc_rtr, a.path_mtu = IBV_MTU_256, 0);
	TRY(INIT, RTR, rc_rtr, a.path_mtu = IBV_MTU_4096, 0);
	TRY(INIT, RTR, rc_rtr, a.path_mtu = 6, EINVAL);
	TRY(INIT, RTR, rc_rtr, a.max_dest_rd_atomic = 128, 0);
	TRY(INIT, RTR, rc_rtr, a.max_dest_rd_atomic = 129, EINVAL);
	TRY(INIT, RTR, rc_rtr, a.max_dest_rd_atomic = 0, 0);
	TRY(INIT, RTR, rc_rtr, a.min_rnr_timer = 31, 0);
	TRY(INIT, RTR, rc_rtr, a.min_rnr_timer = 32, EINVAL);
	TRY(INIT, RTR, rc_rtr, a.dest_qp_num = 0xffffff, 0);
	TRY(INIT, RTR, rc_rtr, a.dest_qp_num = 0x1000000, EINVAL);
	TRY(INIT, RTR, rc_rtr, a.rq_psn = 0xffffffff, 0); /* masked on apply */
	/* address vector */
	TRY(INIT, RTR, rc_rtr, a.ah_attr.is_global = 0, EINVAL);
	TRY(INIT, RTR, rc_rtr, a.ah_attr.grh.sgid_index = 15, 0);
	TRY(INIT, RTR, rc_rtr, a.ah_attr.grh.sgid_index = 16, EINVAL);
	TRY(INIT, RTR, rc_rtr, a.ah_attr.grh.sgid_index = 255, EINVAL);
	TRY(INIT, RTR, rc_rtr, a.ah_attr.port_num = 0, EINVAL);
	TRY(INIT, RTR, rc_rtr, a.ah_attr.port_num = 2, EINVAL);
	TRY(INIT, RTR, rc_rtr, a.ah_attr.sl = 15, 0);
	TRY(INIT, RTR, rc_rtr, a.ah_attr.sl = 16, EINVAL);
	TRY(INIT, RTR, rc_rtr, a.ah_attr.static_rate = IBV_RATE_100_GBPS, 0);
	TRY(INIT, RTR, rc_rtr, a.ah_attr.static_rate = 1, EINVAL);
	TRY(INIT, RTR, rc_rtr, a.ah_attr.static_rate = 25, EINVAL);

	TRY(RTR, RTS, rc_rts, a.timeout = 31, 0);
	TRY(RTR, RTS, rc_rts, a.timeout = 32, EINVAL);
	TRY(RTR, RTS, rc_rts, a.retry_cnt = 8, EINVAL);
	TRY(RTR, RTS, rc_rts, a.rnr_retry = 8, EINVAL);
	TRY(RTR, RTS, rc_rts, a.rnr_retry = 0, 0);
	TRY(RTR, RTS, rc_rts, a.max_rd_atomic = 128, 0);
	TRY(RTR, RTS, rc_rts, a.max_rd_atomic = 129, EINVAL);
	TRY(RTR, RTS, rc_rts, a.sq_psn = 0xffffffff, 0);
	/* state fields must agree with the transition */
	TRY(RTR, RTS, rc_rts, a.qp_state = IBV_QPS_RTR, EINVAL);
	TRY(RTR, RTS, rc_rts | IBV_QP_CUR_STATE, a.cur_qp_state = IBV_QPS_RTR, 0);
	TRY(RTR, RTS, rc_rts | IBV_QP_CUR_STATE, a.cur_qp_state = IBV_QPS_RTS, EINVAL);
	TRY(RTS, RTS, IBV_QP_STATE | IBV_QP_CUR_STATE, a.cur_qp_state = IBV_QPS_SQD,
	    EINVAL);
	/* values of attributes outside the mask are not looked at */
	TRY(RTR, RTS, rc_rts, a.path_mtu = 77, 0);
	TRY(RTR, RTS, rc_rts, a.ah_attr.is_global = 0, 0);
#undef TRY

	/* an empty GID slot; a device limit below the request */
	l2 = lim;
	l2.gid_valid = 0x3; /* only 0 and 1 */
	good_attr(&a, IBV_QPS_INIT, IBV_QPS_RTR);
	TEST_ASSERT_EQUAL(dpv_qp_check_modify(IBV_QPT_RC, IBV_QPS_INIT, IBV_QPS_RTR,
					      rc_rtr, &a, &l2), 0, "");
	a.ah_attr.grh.sgid_index = 2;
	TEST_ASSERT_EQUAL(dpv_qp_check_modify(IBV_QPT_RC, IBV_QPS_INIT, IBV_QPS_RTR,
					      rc_rtr, &a, &l2), EINVAL, "empty GID");
	/* on a non-RoCE port the GRH is optional */
	l2.roce = false;
	a.ah_attr.is_global = 0;
	TEST_ASSERT_EQUAL(dpv_qp_check_modify(IBV_QPT_RC, IBV_QPS_INIT, IBV_QPS_RTR,
					      rc_rtr, &a, &l2), 0, "");
	l2 = lim;
	l2.max_mtu = IBV_MTU_1024;
	good_attr(&a, IBV_QPS_INIT, IBV_QPS_RTR);
	a.path_mtu = IBV_MTU_2048;
	TEST_ASSERT_EQUAL(dpv_qp_check_modify(IBV_QPT_RC, IBV_QPS_INIT, IBV_QPS_RTR,
					      rc_rtr, &a, &l2), EINVAL, "mtu above port max");
	/* UD: qkey any value, port checked too */
	good_attr(&a, IBV_QPS_RESET, IBV_QPS_INIT);
	a.qkey = 0xffffffff;
	TEST_ASSERT_EQUAL(dpv_qp_check_modify(IBV_QPT_UD, IBV_QPS_RESET, IBV_QPS_INIT,
					      IBV_QP_STATE | IBV_QP_PKEY_INDEX |
						      IBV_QP_PORT | IBV_QP_QKEY,
					      &a, &lim), 0, "");
	a.port_num = 3;
	TEST_ASSERT_EQUAL(dpv_qp_check_modify(IBV_QPT_UD, IBV_QPS_RESET, IBV_QPS_INIT,
					      IBV_QP_STATE | IBV_QP_PKEY_INDEX |
						      IBV_QP_PORT | IBV_QP_QKEY,
					      &a, &lim), EINVAL, "");
	/* NULL arguments */
	TEST_ASSERT_EQUAL(dpv_qp_check_modify(IBV_QPT_UD, IBV_QPS_RESET, IBV_QPS_INIT,
					      IBV_QP_STATE, NULL, &lim), EINVAL, "");
	TEST_ASSERT_EQUAL(dpv_qp_check_modify(IBV_QPT_UD, IBV_QPS_RESET, IBV_QPS_ERR,
					      IBV_QP_STATE, &a, NULL), EINVAL, "");
	return TEST_SUCCESS;
}

static int
case_apply(void)
{
	struct ibv_qp_attr s, a;

	memset(&s, 0, sizeof(s));
	good_attr(&a, IBV_QPS_RTR, IBV_QPS_RTS);
	a.sq_psn = 0xff123456;
	a.rq_psn = 0x01abcdef;
	dpv_qp_apply_attr(&s, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT, &a);
	TEST_ASSERT_EQUAL(s.qp_state, IBV_QPS_RTS, "");
	TEST_ASSERT_EQUAL(s.cur_qp_state, IBV_QPS_RTS, "");
	TEST_ASSERT_EQUAL(s.sq_psn, 0x123456, "PSN masked to 24 bits");
	TEST_ASSERT_EQUAL(s.rq_psn, 0, "not in the mask");
	TEST_ASSERT_EQUAL(s.timeout, 14, "");
	TEST_ASSERT_EQUAL(s.retry_cnt, 0, "not in the mask");
	dpv_qp_apply_attr(&s, IBV_QP_RQ_PSN | IBV_QP_AV | IBV_QP_QKEY |
				      IBV_QP_DEST_QPN | IBV_QP_ACCESS_FLAGS,
			  &a);
	TEST_ASSERT_EQUAL(s.rq_psn, 0xabcdef, "");
	TEST_ASSERT_EQUAL(s.ah_attr.grh.sgid_index, 1, "");
	TEST_ASSERT_EQUAL(s.qkey, 0x11111111, "");
	TEST_ASSERT_EQUAL(s.dest_qp_num, 0x1234, "");
	TEST_ASSERT_EQUAL(s.qp_access_flags, a.qp_access_flags, "");
	TEST_ASSERT_EQUAL(s.qp_state, IBV_QPS_RTS, "state unchanged without the bit");
	return TEST_SUCCESS;
}

/* the bits Linux's uverbs drops per type (XRC only), and the table keeps
 * refusing them: the drop happens before the check */
static int
case_ignored(void)
{
	const int resp = IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	const int reqr =
		IBV_QP_MAX_QP_RD_ATOMIC | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY;
	static const enum ibv_qp_type others[] = {
		IBV_QPT_RC,	    IBV_QPT_UC,	 IBV_QPT_UD,
		IBV_QPT_RAW_PACKET, DPV_QPT_DCI, DPV_QPT_DCT};
	struct ibv_qp_attr a;
	int req;

	TEST_ASSERT_EQUAL(dpv_qp_ignored_attrs(IBV_QPT_XRC_SEND), resp, "");
	TEST_ASSERT_EQUAL(dpv_qp_ignored_attrs(IBV_QPT_XRC_RECV), reqr, "");
	for (size_t i = 0; i < DIM(others); i++)
		TEST_ASSERT_EQUAL(dpv_qp_ignored_attrs(others[i]), 0, "type %d",
				  others[i]);
	/* none of them is required where it is dropped */
	TEST_ASSERT_EQUAL(dpv_qp_transition_masks(IBV_QPT_XRC_SEND,
						  IBV_QPS_INIT, IBV_QPS_RTR,
						  &req, NULL),
			  0, "");
	TEST_ASSERT_EQUAL(req & resp, 0, "");
	TEST_ASSERT_EQUAL(dpv_qp_transition_masks(IBV_QPT_XRC_RECV, IBV_QPS_RTR,
						  IBV_QPS_RTS, &req, NULL),
			  0, "");
	TEST_ASSERT_EQUAL(req & reqr, 0, "");
	good_attr(&a, IBV_QPS_INIT, IBV_QPS_RTR);
	TEST_ASSERT_EQUAL(
		dpv_qp_check_modify(IBV_QPT_XRC_SEND, IBV_QPS_INIT, IBV_QPS_RTR,
				    IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
					    IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
					    resp,
				    &a, &lim),
		EINVAL, "the check itself still refuses them");
	return TEST_SUCCESS;
}

static const struct dpv_test_suite qp_attr_suite = {
	.name = "qp_attr",
	.setup = setup,
	.cases =
		{
			TEST_CASE(case_table_matches),
			TEST_CASE(case_masks_per_row),
			TEST_CASE(case_invalid_transitions),
			TEST_CASE(case_named_rows),
			TEST_CASE(case_values),
			TEST_CASE(case_apply),
			TEST_CASE(case_ignored),
			TEST_CASES_END(),
		},
};

static int
test_qp_attr(void)
{
	return dpv_test_run_suite(&qp_attr_suite);
}

DPV_TEST_REGISTER_FAST(qp_attr, test_qp_attr);
