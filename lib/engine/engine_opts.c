/* SPDX-License-Identifier: BSD-3-Clause */
/* Per-QP options set by the verbs layer (dpv_engine_opts.h). */
#include <errno.h>

#include "engine_int.h"
#include "dpv_engine_opts.h"

#define OPTS_KNOWN                                                             \
	(DPV_QP_OPT_SCAT_RESP | DPV_QP_OPT_SCAT_REQ | DPV_QP_OPT_CREDIT_PKT | \
	 DPV_QP_OPT_SIG_PIPE)

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
		dpv_engine_qp_tmpl_set(qp);
	}
	rte_spinlock_unlock(&e->lock);
	return ret;
}

int
dpv_engine_qp_cancel_send(struct dpv_engine *e, uint32_t qpn,
			  bool (*match)(void *arg, uint16_t wqe_index),
			  void *arg)
{
	struct dpv_eqp *qp;
	int ret = 0;

	if (e == NULL || match == NULL)
		return -EINVAL;
	dpv_engine_lock(e);
	qp = dpv_engine_qp_lookup(e, qpn);
	if (qp == NULL) {
		ret = -ENOENT;
	} else if (qp->state != IBV_QPS_SQD || qp->sq == NULL) {
		ret = -EINVAL;
	} else {
		/* stopped by a signature error: what was posted meanwhile
		 * is fetched (it cannot start before RTS) */
		if (qp->sigp & SIGP_HALT)
			dpv_engine_sq_fetch(qp);
		for (uint32_t i = qp->s_cur; i != qp->s_head; i++) {
			struct dpv_eswqe *w = swqe_at(qp, i);

			if (w->state == SWQE_PENDING && w->sent == 0 &&
			    !w->canceled && match(arg, w->wr.wqe_index)) {
				w->canceled = true;
				ret++;
			}
		}
		dpv_engine_qp_activate(qp);
	}
	rte_spinlock_unlock(&e->lock);
	return ret;
}
