/* SPDX-License-Identifier: BSD-3-Clause */
/* Per-QP options set by the verbs layer (dpv_engine_opts.h). */
#include <errno.h>

#include "engine_int.h"
#include "dpv_engine_opts.h"

#define OPTS_KNOWN                                                             \
	(DPV_QP_OPT_SCAT_RESP | DPV_QP_OPT_SCAT_REQ | DPV_QP_OPT_CREDIT_PKT)

int
dpv_engine_qp_opts_set(struct dpv_engine *e, uint32_t qpn, uint32_t opts)
{
	struct dpv_eqp *qp;
	int ret = 0;

	if (e == NULL || (opts & ~OPTS_KNOWN))
		return -EINVAL;
	dpv_engine_lock(e);
	qp = dpv_engine_qp_lookup(e, qpn);
	if (qp == NULL)
		ret = -ENOENT;
	else
		qp->opts = opts;
	rte_spinlock_unlock(&e->lock);
	return ret;
}

int
dpv_engine_qp_udp_sport_set(struct dpv_engine *e, uint32_t qpn,
			    uint16_t sport)
{
	struct dpv_eqp *qp;
	int ret = 0;

	if (e == NULL || sport == 0)
		return -EINVAL;
	dpv_engine_lock(e);
	qp = dpv_engine_qp_lookup(e, qpn);
	if (qp == NULL) {
		ret = -ENOENT;
	} else if ((qp->type != IBV_QPT_RC && qp->type != IBV_QPT_UC) ||
		   qp->state != IBV_QPS_RTS) {
		ret = -EOPNOTSUPP;
	} else {
		/* the next frame built takes it (template and full path) */
		qp->path.udp_sport = sport;
		dpv_engine_tmpl_set(&qp->tmpl, &qp->path);
	}
	rte_spinlock_unlock(&e->lock);
	return ret;
}
