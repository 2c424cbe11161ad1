/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What only raw-packet QPs have: the create flags that act on their
 * frames (IBV_QP_CREATE_SCATTER_FCS, _CVLAN_STRIPPING,
 * _BLOCK_SELF_MCAST_LB, mlx5dv's TIR self-loopback flags), the TSO
 * header size (IBV_QP_INIT_ATTR_MAX_TSO_HEADER) and transmit
 * pacing (IBV_QP_RATE_LIMIT, ibv_modify_qp_rate_limit). The engine does
 * the work (lib/engine/dpv_engine_raw.h).
 */
#include <errno.h>
#include <stdbool.h>

#include "qp.h"
#include "verbs_caps.h"
#include "verbs_dv.h"
#include "verbs_raw.h"
#include "dpv_engine_raw.h"

int
dpv_raw_create_flags_check(const struct ibv_qp_init_attr_ex *a)
{
	uint32_t f = a->create_flags;
	bool raw = a->qp_type == IBV_QPT_RAW_PACKET;

	if ((f & IBV_QP_CREATE_BLOCK_SELF_MCAST_LB) && !raw &&
	    a->qp_type != IBV_QPT_UD)
		return EINVAL; /* multicast: UD and raw only */
	if (f & (IBV_QP_CREATE_SCATTER_FCS | IBV_QP_CREATE_CVLAN_STRIPPING)) {
		/* frames only; an RSS QP's WQs would carry them (WQ flags,
		 * not supported) */
		if (!raw || (a->comp_mask & IBV_QP_INIT_ATTR_RX_HASH))
			return EOPNOTSUPP;
	}
	/* padding of receive writes to the cache line: a raw QP's own RQ
	 * (as ConnectX's end_padding_mode; an RSS QP takes no create flags
	 * there); there is no PCI write to pad in software, so accepted
	 * with no effect */
	if ((f & IBV_QP_CREATE_PCI_WRITE_END_PADDING) &&
	    (!raw || (a->comp_mask & IBV_QP_INIT_ATTR_RX_HASH)))
		return EOPNOTSUPP;
	return 0;
}

_Static_assert(DPV_CAP_MAX_TSO_HEADER == DPV_MLX5_MAX_TSO_HEADER &&
		       DPV_CAP_MIN_TSO_HEADER == DPV_MLX5_ETH_INLINE_HDR &&
		       DPV_CAP_MAX_TSO == DPV_MLX5_MAX_TSO,
	       "TSO limits of the device and of the ring");

int
dpv_raw_tso_check(const struct ibv_qp_init_attr_ex *a)
{
	if (a->qp_type != IBV_QPT_RAW_PACKET ||
	    (a->comp_mask & IBV_QP_INIT_ATTR_RX_HASH))
		return EOPNOTSUPP;
	if (a->max_tso_header > DPV_CAP_MAX_TSO_HEADER)
		return EINVAL;
	return 0;
}

static int
raw_push(struct dpv_qp *qp)
{
	struct dpv_engine_raw_qp c = {
		.domain = qp->ctx->domain,
		.flags = qp->raw_flags,
	};
	int rc;

	if (qp->engine == NULL)
		return 0;
	rc = dpv_engine_raw_qp_set(qp->engine, qp->qpex.qp_base.qp_num, &c);
	return rc < 0 ? -rc : 0;
}

int
dpv_raw_qp_setup(struct dpv_qp *qp)
{
	uint32_t f = qp->create_flags;

	qp->raw_flags = DPV_RAW_QP_RX_CSUM;
	if (f & IBV_QP_CREATE_BLOCK_SELF_MCAST_LB)
		qp->raw_flags |= DPV_RAW_QP_BLOCK_SELF_MC;
	if (f & IBV_QP_CREATE_SCATTER_FCS)
		qp->raw_flags |= DPV_RAW_QP_SCATTER_FCS;
	if (f & IBV_QP_CREATE_CVLAN_STRIPPING)
		qp->raw_flags |= DPV_RAW_QP_CVLAN_STRIP;
	return raw_push(qp);
}

int
dpv_raw_qp_rate(struct dpv_qp *qp, uint32_t kbps, uint32_t max_burst)
{
	int rc;

	if (qp->engine == NULL)
		return 0;
	rc = dpv_engine_raw_rate_set(qp->engine, qp->qpex.qp_base.qp_num, kbps,
				     kbps ? max_burst : 0);
	if (rc == 0)
		qp->rl_burst = kbps ? max_burst : 0;
	return rc < 0 ? -rc : 0;
}

/* Change the options of raw QP ibqp: clear, then set those bits. */
static int
raw_flags_change(struct ibv_qp *ibqp, uint32_t clear, uint32_t set)
{
	struct dpv_qp *qp;
	uint32_t old;
	int rc;

	if (ibqp == NULL)
		return EINVAL;
	if (ibqp->qp_type != IBV_QPT_RAW_PACKET)
		return EOPNOTSUPP;
	qp = to_dqp(ibqp);
	pthread_mutex_lock(&qp->lock);
	old = qp->raw_flags;
	qp->raw_flags = (old & ~clear) | set;
	rc = raw_push(qp);
	if (rc)
		qp->raw_flags = old;
	pthread_mutex_unlock(&qp->lock);
	return rc;
}

int
dpv_qp_raw_self_loopback(struct ibv_qp *ibqp, int uc, int mc)
{
	return raw_flags_change(ibqp, DPV_RAW_QP_SELF_UC | DPV_RAW_QP_SELF_MC,
				(uc ? DPV_RAW_QP_SELF_UC : 0) |
					(mc ? DPV_RAW_QP_SELF_MC : 0));
}

int
dpv_qp_raw_tunnel_offloads(struct ibv_qp *ibqp)
{
	return raw_flags_change(ibqp, 0, DPV_RAW_QP_TUNNEL_CSUM);
}

/* ibv_modify_qp_rate_limit(): IBV_QP_RATE_LIMIT with a burst size. */
static int
raw_modify_rate_limit(struct ibv_qp *qp, struct ibv_qp_rate_limit_attr *attr)
{
	struct ibv_qp_attr a = {0};

	if (qp == NULL || attr == NULL || attr->comp_mask != 0)
		return EINVAL;
	/* a burst or packet size means nothing without a rate */
	if ((attr->max_burst_sz || attr->typical_pkt_sz) && !attr->rate_limit)
		return EINVAL;
	a.rate_limit = attr->rate_limit;
	return dpv_qp_modify(qp, &a, IBV_QP_RATE_LIMIT, attr->max_burst_sz);
}

void
dpv_raw_ops_init(struct verbs_context *vctx)
{
	vctx->modify_qp_rate_limit = raw_modify_rate_limit;
}
