/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * QP state machine: required/optional attributes per transition and QP
 * type (InfiniBand Architecture Specification vol. 1, "QP/EE state
 * transition properties"), and value checks. Pure: no global state.
 */
#include <stddef.h>
#include <string.h>
#include <errno.h>

#include "qp_attr.h"

#define A(x) IBV_QP_##x

/* The optional sets that repeat across types. */
#define CONN_PATH_OPT (A(ALT_PATH) | A(ACCESS_FLAGS) | A(PKEY_INDEX))
#define CONN_RTS_OPT                                                           \
	(A(CUR_STATE) | A(ALT_PATH) | A(ACCESS_FLAGS) | A(PATH_MIG_STATE))
#define INIT_CONN (A(PKEY_INDEX) | A(PORT) | A(ACCESS_FLAGS))
#define INIT_UD	  (A(PKEY_INDEX) | A(PORT) | A(QKEY))
#define RTR_CONN  (A(AV) | A(PATH_MTU) | A(DEST_QPN) | A(RQ_PSN))
#define RD_RESP	  (A(MAX_DEST_RD_ATOMIC) | A(MIN_RNR_TIMER))
#define RTS_REQ_RC                                                             \
	(A(TIMEOUT) | A(RETRY_CNT) | A(RNR_RETRY) | A(SQ_PSN) |                \
	 A(MAX_QP_RD_ATOMIC))

/*
 * One row per transition that exists for a type, besides "any state ->
 * RESET" and "any state -> ERR" (which exist for every type and take no
 * attribute but IBV_QP_STATE). The ALT_PATH/PATH_MIG_STATE bits are kept
 * here as the specification lists them and removed when the table is read.
 */
struct qp_trans_row {
	enum ibv_qp_type type;
	enum ibv_qp_state cur;
	enum ibv_qp_state next;
	int req;
	int opt;
};

#define ROW(t, c, n, r, o)                                                     \
	{                                                                      \
		IBV_QPT_##t, IBV_QPS_##c, IBV_QPS_##n, (r), (o)                \
	}

#define ROWT(t, c, n, r, o)                                                    \
	{                                                                      \
		(t), IBV_QPS_##c, IBV_QPS_##n, (r), (o)                        \
	}

static const struct qp_trans_row qp_trans_rows[] = {
	/* mlx5dv DC initiator (as pyverbs' Mlx5QP and the kernel's mlx5
	 * driver take it): an RC requester whose path comes per WR */
	ROWT(DPV_QPT_DCI, RESET, INIT, A(PKEY_INDEX) | A(PORT), 0),
	ROWT(DPV_QPT_DCI, INIT, INIT, 0, A(PKEY_INDEX) | A(PORT)),
	ROWT(DPV_QPT_DCI, INIT, RTR, A(PATH_MTU), A(AV) | A(PKEY_INDEX)),
	ROWT(DPV_QPT_DCI, RTR, RTS, RTS_REQ_RC, A(CUR_STATE)),
	ROWT(DPV_QPT_DCI, RTS, RTS, 0, A(CUR_STATE)),
	/* mlx5dv DC target: INIT and RTR only */
	ROWT(DPV_QPT_DCT, RESET, INIT, INIT_CONN, 0),
	ROWT(DPV_QPT_DCT, INIT, INIT, 0, INIT_CONN),
	ROWT(DPV_QPT_DCT, INIT, RTR, A(AV) | A(PATH_MTU) | A(MIN_RNR_TIMER),
	     A(PKEY_INDEX) | A(ACCESS_FLAGS)),

	/* RC */
	ROW(RC, RESET, INIT, INIT_CONN, 0),
	ROW(RC, INIT, INIT, 0, INIT_CONN),
	ROW(RC, INIT, RTR, RTR_CONN | RD_RESP, CONN_PATH_OPT),
	ROW(RC, RTR, RTS, RTS_REQ_RC, CONN_RTS_OPT | A(MIN_RNR_TIMER)),
	ROW(RC, RTS, RTS, 0, CONN_RTS_OPT | A(MIN_RNR_TIMER)),
	ROW(RC, RTS, SQD, 0, A(EN_SQD_ASYNC_NOTIFY)),
	ROW(RC, SQD, RTS, 0, CONN_RTS_OPT | A(MIN_RNR_TIMER)),
	ROW(RC, SQD, SQD, 0,
	    A(PORT) | A(AV) | A(TIMEOUT) | A(RETRY_CNT) | A(RNR_RETRY) |
		    A(MAX_QP_RD_ATOMIC) | A(MAX_DEST_RD_ATOMIC) | A(ALT_PATH) |
		    A(ACCESS_FLAGS) | A(PKEY_INDEX) | A(MIN_RNR_TIMER) |
		    A(PATH_MIG_STATE)),

	/* UC */
	ROW(UC, RESET, INIT, INIT_CONN, 0),
	ROW(UC, INIT, INIT, 0, INIT_CONN),
	ROW(UC, INIT, RTR, RTR_CONN, CONN_PATH_OPT),
	ROW(UC, RTR, RTS, A(SQ_PSN), CONN_RTS_OPT),
	ROW(UC, RTS, RTS, 0, CONN_RTS_OPT),
	ROW(UC, RTS, SQD, 0, A(EN_SQD_ASYNC_NOTIFY)),
	ROW(UC, SQD, RTS, 0, CONN_RTS_OPT),
	ROW(UC, SQD, SQD, 0,
	    A(AV) | A(ALT_PATH) | A(ACCESS_FLAGS) | A(PKEY_INDEX) |
		    A(PATH_MIG_STATE)),
	ROW(UC, SQE, RTS, 0, A(CUR_STATE) | A(ACCESS_FLAGS)),

	/* UD */
	ROW(UD, RESET, INIT, INIT_UD, 0),
	ROW(UD, INIT, INIT, 0, INIT_UD),
	ROW(UD, INIT, RTR, 0, A(PKEY_INDEX) | A(QKEY)),
	ROW(UD, RTR, RTS, A(SQ_PSN), A(CUR_STATE) | A(QKEY)),
	ROW(UD, RTS, RTS, 0, A(CUR_STATE) | A(QKEY)),
	ROW(UD, RTS, SQD, 0, A(EN_SQD_ASYNC_NOTIFY)),
	ROW(UD, SQD, RTS, 0, A(CUR_STATE) | A(QKEY)),
	ROW(UD, SQD, SQD, 0, A(PKEY_INDEX) | A(QKEY)),
	ROW(UD, SQE, RTS, 0, A(CUR_STATE) | A(QKEY)),

	/* RAW_PACKET: only the port, and a rate limit once sending */
	ROW(RAW_PACKET, RESET, INIT, A(PORT), 0),
	ROW(RAW_PACKET, INIT, INIT, 0, 0),
	ROW(RAW_PACKET, INIT, RTR, 0, 0),
	ROW(RAW_PACKET, RTR, RTS, 0, A(RATE_LIMIT)),
	ROW(RAW_PACKET, RTS, RTS, 0, A(RATE_LIMIT)),
	ROW(RAW_PACKET, RTS, SQD, 0, 0),
	ROW(RAW_PACKET, SQD, RTS, 0, 0),
	ROW(RAW_PACKET, SQD, SQD, 0, 0),
	ROW(RAW_PACKET, SQE, RTS, 0, 0),

	/* XRC initiator: an RC requester without a receive side */
	ROW(XRC_SEND, RESET, INIT, INIT_CONN, 0),
	ROW(XRC_SEND, INIT, INIT, 0, INIT_CONN),
	ROW(XRC_SEND, INIT, RTR, RTR_CONN, CONN_PATH_OPT),
	ROW(XRC_SEND, RTR, RTS, RTS_REQ_RC, CONN_RTS_OPT),
	ROW(XRC_SEND, RTS, RTS, 0, CONN_RTS_OPT),
	ROW(XRC_SEND, RTS, SQD, 0, A(EN_SQD_ASYNC_NOTIFY)),
	ROW(XRC_SEND, SQD, RTS, 0, CONN_RTS_OPT),
	ROW(XRC_SEND, SQD, SQD, 0,
	    A(PORT) | A(AV) | A(TIMEOUT) | A(RETRY_CNT) | A(RNR_RETRY) |
		    A(MAX_QP_RD_ATOMIC) | A(ALT_PATH) | A(ACCESS_FLAGS) |
		    A(PKEY_INDEX) | A(PATH_MIG_STATE)),

	/* XRC target: an RC responder without a send queue of its own */
	ROW(XRC_RECV, RESET, INIT, INIT_CONN, 0),
	ROW(XRC_RECV, INIT, INIT, 0, INIT_CONN),
	ROW(XRC_RECV, INIT, RTR, RTR_CONN | RD_RESP, CONN_PATH_OPT),
	ROW(XRC_RECV, RTR, RTS, A(TIMEOUT) | A(SQ_PSN),
	    CONN_RTS_OPT | A(MIN_RNR_TIMER)),
	ROW(XRC_RECV, RTS, RTS, 0, CONN_RTS_OPT | A(MIN_RNR_TIMER)),
	ROW(XRC_RECV, RTS, SQD, 0, A(EN_SQD_ASYNC_NOTIFY)),
	ROW(XRC_RECV, SQD, RTS, 0, CONN_RTS_OPT | A(MIN_RNR_TIMER)),
	ROW(XRC_RECV, SQD, SQD, 0,
	    A(PORT) | A(AV) | A(TIMEOUT) | A(MAX_DEST_RD_ATOMIC) | A(ALT_PATH) |
		    A(ACCESS_FLAGS) | A(PKEY_INDEX) | A(MIN_RNR_TIMER) |
		    A(PATH_MIG_STATE)),
};

static bool
qp_type_known(enum ibv_qp_type t)
{
	if (t == DPV_QPT_DCI || t == DPV_QPT_DCT)
		return true;
	switch (t) {
	case IBV_QPT_RC:
	case IBV_QPT_UC:
	case IBV_QPT_UD:
	case IBV_QPT_RAW_PACKET:
	case IBV_QPT_XRC_SEND:
	case IBV_QPT_XRC_RECV:
		return true;
	default:
		return false;
	}
}

static bool
qp_state_known(enum ibv_qp_state s)
{
	return (unsigned)s <= IBV_QPS_ERR;
}

void
dpv_qp_limits_default(struct dpv_qp_limits *lim)
{
	memset(lim, 0, sizeof(*lim));
	lim->phys_port_cnt = 1;
	lim->pkey_tbl_len = 1;
	lim->gid_tbl_len = 16;
	lim->gid_valid = 0xffff;
	lim->max_mtu = IBV_MTU_4096;
	lim->max_rd_atomic = 128;
	lim->max_dest_rd_atomic = 128;
	lim->roce = true;
	lim->rate_limit_min = 0;
	lim->rate_limit_max = UINT32_MAX;
}

int
dpv_qp_transition_masks(enum ibv_qp_type type, enum ibv_qp_state cur,
			enum ibv_qp_state next, int *req, int *opt)
{
	size_t i;

	if (req)
		*req = 0;
	if (opt)
		*opt = 0;
	if (!qp_type_known(type) || !qp_state_known(cur) ||
	    !qp_state_known(next))
		return EINVAL;
	if (next == IBV_QPS_RESET || next == IBV_QPS_ERR)
		return 0;
	for (i = 0; i < sizeof(qp_trans_rows) / sizeof(qp_trans_rows[0]); i++) {
		const struct qp_trans_row *r = &qp_trans_rows[i];

		if (r->type != type || r->cur != cur || r->next != next)
			continue;
		if (req)
			*req = r->req;
		if (opt)
			*opt = r->opt & ~DPV_QP_ATTR_UNSUPPORTED;
		return 0;
	}
	return EINVAL;
}

static bool
port_ok(unsigned port, const struct dpv_qp_limits *lim)
{
	return port >= 1 && port <= lim->phys_port_cnt;
}

static int
check_ah(const struct ibv_ah_attr *ah, const struct dpv_qp_limits *lim)
{
	if (!port_ok(ah->port_num, lim))
		return EINVAL;
	if (ah->sl > 15)
		return EINVAL;
	if ((unsigned)ah->static_rate > IBV_RATE_1200_GBPS ||
	    ah->static_rate == 1)
		return EINVAL;
	if (ah->is_global) {
		unsigned idx = ah->grh.sgid_index;

		if (idx >= lim->gid_tbl_len || idx >= 64 ||
		    !(lim->gid_valid & (UINT64_C(1) << idx)))
			return EINVAL;
	} else if (lim->roce) {
		return EINVAL;
	}
	return 0;
}

static int
check_values(int mask, const struct ibv_qp_attr *a,
	     const struct dpv_qp_limits *lim)
{
	if ((mask & A(PORT)) && !port_ok(a->port_num, lim))
		return EINVAL;
	if ((mask & A(PKEY_INDEX)) && a->pkey_index >= lim->pkey_tbl_len)
		return EINVAL;
	if ((mask & A(ACCESS_FLAGS)) &&
	    (a->qp_access_flags & ~(unsigned)DPV_QP_ACCESS_VALID))
		return EINVAL;
	if ((mask & A(PATH_MTU)) &&
	    (a->path_mtu < IBV_MTU_256 || a->path_mtu > lim->max_mtu ||
	     a->path_mtu > IBV_MTU_4096))
		return EINVAL;
	if ((mask & A(MAX_QP_RD_ATOMIC)) &&
	    a->max_rd_atomic > lim->max_rd_atomic)
		return EINVAL;
	if ((mask & A(MAX_DEST_RD_ATOMIC)) &&
	    a->max_dest_rd_atomic > lim->max_dest_rd_atomic)
		return EINVAL;
	if ((mask & A(TIMEOUT)) && a->timeout > 31)
		return EINVAL;
	if ((mask & A(MIN_RNR_TIMER)) && a->min_rnr_timer > 31)
		return EINVAL;
	if ((mask & A(RETRY_CNT)) && a->retry_cnt > 7)
		return EINVAL;
	if ((mask & A(RNR_RETRY)) && a->rnr_retry > 7)
		return EINVAL;
	if ((mask & A(DEST_QPN)) && a->dest_qp_num > DPV_QP_24BIT_MASK)
		return EINVAL;
	if ((mask & A(AV)) && check_ah(&a->ah_attr, lim))
		return EINVAL;
	if ((mask & A(RATE_LIMIT)) && a->rate_limit != 0 &&
	    (a->rate_limit < lim->rate_limit_min ||
	     a->rate_limit > lim->rate_limit_max))
		return EINVAL;
	return 0;
}

int
dpv_qp_ignored_attrs(enum ibv_qp_type type)
{
	switch (type) {
	case IBV_QPT_XRC_SEND:
		return RD_RESP;
	case IBV_QPT_XRC_RECV:
		return A(MAX_QP_RD_ATOMIC) | A(RETRY_CNT) | A(RNR_RETRY);
	default:
		return 0;
	}
}

int
dpv_qp_check_modify(enum ibv_qp_type type, enum ibv_qp_state cur,
		    enum ibv_qp_state next, int attr_mask,
		    const struct ibv_qp_attr *attr,
		    const struct dpv_qp_limits *lim)
{
	int req, opt;

	if (lim == NULL || (attr == NULL && attr_mask != 0))
		return EINVAL;
	if (dpv_qp_transition_masks(type, cur, next, &req, &opt))
		return EINVAL;
	if ((attr_mask & req) != req)
		return EINVAL;
	if (attr_mask & ~(req | opt | A(STATE)))
		return EINVAL;
	if (attr_mask == 0)
		return 0;
	if ((attr_mask & A(STATE)) && attr->qp_state != next)
		return EINVAL;
	if (!(attr_mask & A(STATE)) && next != cur)
		return EINVAL;
	if ((attr_mask & A(CUR_STATE)) && attr->cur_qp_state != cur)
		return EINVAL;
	return check_values(attr_mask, attr, lim);
}

void
dpv_qp_apply_attr(struct ibv_qp_attr *s, int m, const struct ibv_qp_attr *a)
{
	if (m & A(STATE)) {
		s->qp_state = a->qp_state;
		s->cur_qp_state = a->qp_state;
	}
	if (m & A(EN_SQD_ASYNC_NOTIFY))
		s->en_sqd_async_notify = a->en_sqd_async_notify;
	if (m & A(ACCESS_FLAGS))
		s->qp_access_flags = a->qp_access_flags;
	if (m & A(PKEY_INDEX))
		s->pkey_index = a->pkey_index;
	if (m & A(PORT))
		s->port_num = a->port_num;
	if (m & A(QKEY))
		s->qkey = a->qkey;
	if (m & A(AV))
		s->ah_attr = a->ah_attr;
	if (m & A(PATH_MTU))
		s->path_mtu = a->path_mtu;
	if (m & A(TIMEOUT))
		s->timeout = a->timeout;
	if (m & A(RETRY_CNT))
		s->retry_cnt = a->retry_cnt;
	if (m & A(RNR_RETRY))
		s->rnr_retry = a->rnr_retry;
	if (m & A(RQ_PSN))
		s->rq_psn = a->rq_psn & DPV_QP_24BIT_MASK;
	if (m & A(SQ_PSN))
		s->sq_psn = a->sq_psn & DPV_QP_24BIT_MASK;
	if (m & A(MAX_QP_RD_ATOMIC))
		s->max_rd_atomic = a->max_rd_atomic;
	if (m & A(MAX_DEST_RD_ATOMIC))
		s->max_dest_rd_atomic = a->max_dest_rd_atomic;
	if (m & A(MIN_RNR_TIMER))
		s->min_rnr_timer = a->min_rnr_timer;
	if (m & A(DEST_QPN))
		s->dest_qp_num = a->dest_qp_num;
	if (m & A(RATE_LIMIT))
		s->rate_limit = a->rate_limit;
}

const char *
dpv_qp_state_str(enum ibv_qp_state s)
{
	static const char *const names[] = {"RESET", "INIT", "RTR", "RTS",
					    "SQD",   "SQE",  "ERR"};

	return qp_state_known(s) ? names[s] : "?";
}

const char *
dpv_qp_type_str(enum ibv_qp_type t)
{
	switch (t) {
	case IBV_QPT_RC:
		return "RC";
	case IBV_QPT_UC:
		return "UC";
	case IBV_QPT_UD:
		return "UD";
	case IBV_QPT_RAW_PACKET:
		return "RAW_PACKET";
	case IBV_QPT_XRC_SEND:
		return "XRC_SEND";
	case IBV_QPT_XRC_RECV:
		return "XRC_RECV";
	case IBV_QPT_DRIVER:
		return "DRIVER";
	default:
		return "?";
	}
}
