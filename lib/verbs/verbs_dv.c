/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mlx5dv_init_obj for libmlx5.so.1: the mlx5 view of QPs, CQs, SRQs, AHs
 * and PDs, read from their mlx5-format rings; and the struct mlx5dv_qp_ex
 * of an ibv_qp_ex QP: indirect keys and raw WQEs work, the other
 * mlx5-only builders fail (verbs_dv.h).
 */
#include <errno.h>
#include <string.h>

#include "verbs_int.h"
#include "verbs_dv.h"
#include "qp.h"
#include "verbs_raw.h"

static int
dv_qp(struct ibv_qp *ibqp, struct mlx5dv_qp *out)
{
	struct dpv_qp *qp;

	if (ibqp == NULL || out == NULL)
		return EINVAL;
	qp = to_dqp(ibqp);
	if (qp->has_sq && qp->sq.wq.ops != &dpv_mlx5_ring_ops)
		return EOPNOTSUPP; /* "rings = mlx4": mlx4dv_init_obj */
	dpv_mlx5_qp_to_dv(qp->has_sq ? &qp->sq : NULL,
			  qp->has_rq ? &qp->rq : NULL, out);
	dpv_qp_rings_exposed(qp);
	/* none of the optional fields exists here */
	out->comp_mask = 0;
	return 0;
}

static int
dv_cq(struct ibv_cq *ibcq, struct mlx5dv_cq *out)
{
	if (ibcq == NULL || out == NULL)
		return EINVAL;
	if (to_dcq(ibcq)->ring.ops != &dpv_mlx5_ring_ops &&
	    to_dcq(ibcq)->ring.ops != &dpv_mlx5_cqe128_ring_ops)
		return EOPNOTSUPP; /* "rings = mlx4": mlx4dv_init_obj */
	dpv_mlx5_cq_to_dv(&to_dcq(ibcq)->ring, out);
	out->comp_mask = 0;
	return 0;
}

static int
dv_srq(struct ibv_srq *ibsrq, struct mlx5dv_srq *out)
{
	struct dpv_srq *srq;

	if (ibsrq == NULL || out == NULL)
		return EINVAL;
	srq = to_dsrq(ibsrq);
	dpv_mlx5_srq_to_dv(&srq->ring, out);
	if (out->comp_mask & MLX5DV_SRQ_MASK_SRQN) {
		out->srqn = srq->vsrq.srq_num;
		out->comp_mask = MLX5DV_SRQ_MASK_SRQN;
	} else {
		out->comp_mask = 0;
	}
	return 0;
}

/* The receive ring of a WQ (ibv_create_wq), as mlx5dv_rwq describes it:
 * its WQEs are the mlx5 RQ's, its record word dbrec[0] the receive
 * counter the engine reads. */
static int
dv_rwq(struct ibv_wq *ibwq, struct mlx5dv_rwq *out)
{
	struct dpv_mlx5_rq *rq;

	if (ibwq == NULL || out == NULL)
		return EINVAL;
	rq = dpv_wq_ring_of(ibwq);
	if (rq == NULL)
		return EINVAL;
	if (rq->wq.ops != &dpv_mlx5_ring_ops)
		return EOPNOTSUPP; /* rings = mlx4: mlx4dv_init_obj */
	out->buf = rq->wq.buf;
	out->dbrec = rq->wq.dbrec;
	out->wqe_cnt = rq->wq.wqe_cnt;
	out->stride = 1u << rq->wq.wqe_shift;
	out->comp_mask = 0;
	return 0;
}

static int
dv_ah(struct ibv_ah *ibah, struct mlx5dv_ah *out)
{
	if (ibah == NULL || out == NULL)
		return EINVAL;
	out->av = &to_dah(ibah)->mah.av;
	out->comp_mask = 0;
	return 0;
}

static int
dv_pd(struct ibv_pd *ibpd, struct mlx5dv_pd *out)
{
	if (ibpd == NULL || out == NULL)
		return EINVAL;
	out->pdn = dpv_pd_base(ibpd)->pdn;
	out->comp_mask = 0;
	return 0;
}

/* Device memory (verbs_dm.c): its memory, as a ConnectX's MEMIC mapping
 * gives it; no remote VA (peers reach it through zero-based regions). */
static int
dv_dm(struct ibv_dm *ibdm, struct mlx5dv_dm *out)
{
	if (ibdm == NULL || out == NULL)
		return EINVAL;
	out->buf = to_ddm(ibdm)->buf;
	out->length = to_ddm(ibdm)->length;
	out->comp_mask = 0;
	out->remote_va = 0;
	return 0;
}

int
dpv_mlx5dv_init_obj(struct mlx5dv_obj *obj, uint64_t obj_type)
{
	int rc = 0;

	if (obj == NULL)
		return EINVAL;
	if (obj_type & MLX5DV_OBJ_QP)
		rc = dv_qp(obj->qp.in, obj->qp.out);
	if (rc == 0 && (obj_type & MLX5DV_OBJ_CQ))
		rc = dv_cq(obj->cq.in, obj->cq.out);
	if (rc == 0 && (obj_type & MLX5DV_OBJ_SRQ))
		rc = dv_srq(obj->srq.in, obj->srq.out);
	if (rc == 0 && (obj_type & MLX5DV_OBJ_RWQ))
		rc = dv_rwq(obj->rwq.in, obj->rwq.out);
	if (rc == 0 && (obj_type & MLX5DV_OBJ_DM))
		rc = dv_dm(obj->dm.in, obj->dm.out);
	if (rc == 0 && (obj_type & MLX5DV_OBJ_AH))
		rc = dv_ah(obj->ah.in, obj->ah.out);
	if (rc == 0 && (obj_type & MLX5DV_OBJ_PD))
		rc = dv_pd(obj->pd.in, obj->pd.out);
	return rc;
}

int
dpv_mlx5dv_map_ah_to_qp(struct ibv_ah *ah, uint32_t qp_num)
{
	struct dpv_ah *a;
	uint32_t none = 0;

	if (ah == NULL || ah->context == NULL)
		return EINVAL;
	a = to_dah(ah);
	if (!a->attr.is_global)
		return EOPNOTSUPP; /* as rdma-core's provider */
	if (dpv_qp_lookup(dctx_dev(ah->context), qp_num & 0xffffff) == NULL ||
	    qp_num > 0xffffff)
		return EINVAL;
	/* the first mapping stays; a duplicate is ignored (man page) */
	__atomic_compare_exchange_n(&a->qp_map, &none,
				    DPV_AH_QP_MAPPED | qp_num, false,
				    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
	return 0;
}

uint32_t
dpv_mlx5dv_ah_qp_map(struct ibv_ah *ah)
{
	uint32_t m = __atomic_load_n(&to_dah(ah)->qp_map, __ATOMIC_RELAXED);

	return m & DPV_AH_QP_MAPPED ? m & 0xffffff : UINT32_MAX;
}

/*
 * The mlx5-specific builders of struct mlx5dv_qp_ex: the indirect key
 * ones and raw WQEs work (with the QP's send_ops_flags), the others record EOPNOTSUPP
 * in the open wr_start batch, the way the ring's own builders record an
 * error: the WQE being built is dropped and wr_complete returns the first
 * error with nothing posted.
 */
static void
dvx_fail_err(struct mlx5dv_qp_ex *mqp, int err)
{
	struct dpv_qp *qp = container_of(mqp, struct dpv_qp, dv_qpex);
	struct dpv_mlx5_sq *sq = &qp->sq;

	/* outside wr_start ... wr_complete there is no batch to fail */
	if (!qp->wr_active || !sq->bld.active)
		return;
	if (sq->bld.err == 0)
		sq->bld.err = err;
	sq->bld.open = false;
}

static void
dvx_fail(struct mlx5dv_qp_ex *mqp)
{
	dvx_fail_err(mqp, EOPNOTSUPP);
}

/* mlx5dv_wr_mr_list / _mr_interleaved: a WQE configuring mkey. */
static void
dvx_mkey(struct mlx5dv_qp_ex *mqp, uint64_t flag, struct mlx5dv_mkey *mkey,
	 uint32_t access, uint32_t repeat, uint16_t num,
	 const struct ibv_sge *sge, const struct mlx5dv_mr_interleaved *il)
{
	struct dpv_qp *qp = container_of(mqp, struct dpv_qp, dv_qpex);

	if (!qp->wr_active || !qp->sq.bld.active)
		return;
	if (!(qp->dv_send_ops & flag)) {
		dvx_fail(mqp);
		return;
	}
	if (mkey == NULL || (num && sge == NULL && il == NULL) ||
	    dpv_mlx5dv_mkey_pd(mkey)->context != qp->qpex.qp_base.context) {
		dvx_fail_err(mqp, EINVAL);
		return;
	}
	if (dpv_mlx5_wr_op(&qp->sq, qp->qpex.wr_id, qp->qpex.wr_flags,
			   IBV_WR_DRIVER1) == 0)
		dpv_mlx5_wr_mkey(&qp->sq, mkey->lkey,
				 dpv_mlx5dv_mkey_entries(mkey), access, repeat,
				 num, sge, il);
}

static void
dvx_set_dc_addr(struct mlx5dv_qp_ex *mqp, struct ibv_ah *ah,
		uint32_t remote_dctn, uint64_t remote_dc_key)
{
	struct dpv_qp *qp = container_of(mqp, struct dpv_qp, dv_qpex);

	if (qp->dc_type != MLX5DV_DCTYPE_DCI) {
		dvx_fail(mqp); /* no DC address on another QP type */
		return;
	}
	if (ah == NULL || ah->context != qp->qpex.qp_base.context) {
		dvx_fail_err(mqp, EINVAL);
		return;
	}
	dpv_mlx5_wr_dc_addr(&qp->sq, ah, remote_dctn, remote_dc_key);
}

static void
dvx_mr_interleaved(struct mlx5dv_qp_ex *mqp, struct mlx5dv_mkey *mkey,
		   uint32_t access_flags, uint32_t repeat_count,
		   uint16_t num_interleaved, struct mlx5dv_mr_interleaved *data)
{
	dvx_mkey(mqp, MLX5DV_QP_EX_WITH_MR_INTERLEAVED, mkey, access_flags,
		 repeat_count, num_interleaved, NULL, data);
}

static void
dvx_mr_list(struct mlx5dv_qp_ex *mqp, struct mlx5dv_mkey *mkey,
	    uint32_t access_flags, uint16_t num_sges, struct ibv_sge *sge)
{
	dvx_mkey(mqp, MLX5DV_QP_EX_WITH_MR_LIST, mkey, access_flags, 0,
		 num_sges, sge, NULL);
}

/* The open key configuration's setters: on a QP with the flag, inside a
 * batch (the ring records the other errors). */
static struct dpv_qp *
dvx_mkey_qp(struct mlx5dv_qp_ex *mqp)
{
	struct dpv_qp *qp = container_of(mqp, struct dpv_qp, dv_qpex);

	if (!qp->wr_active || !qp->sq.bld.active)
		return NULL;
	if (!(qp->dv_send_ops & MLX5DV_QP_EX_WITH_MKEY_CONFIGURE)) {
		dvx_fail(mqp);
		return NULL;
	}
	return qp;
}

/* mlx5dv_wr_mkey_configure: a UMR WQE (IBV_SEND_INLINE required, as with
 * rdma-core) that num_setters setters complete. */
static void
dvx_mkey_configure(struct mlx5dv_qp_ex *mqp, struct mlx5dv_mkey *mkey,
		   uint8_t num_setters, struct mlx5dv_mkey_conf_attr *attr)
{
	struct dpv_qp *qp = dvx_mkey_qp(mqp);

	if (qp == NULL)
		return;
	if (mkey == NULL || attr == NULL ||
	    dpv_mlx5dv_mkey_pd(mkey)->context != qp->qpex.qp_base.context) {
		dvx_fail_err(mqp, EINVAL);
		return;
	}
	if (!(qp->qpex.wr_flags & IBV_SEND_INLINE) || attr->comp_mask ||
	    (attr->conf_flags & ~(uint32_t)MLX5DV_MKEY_CONF_FLAG_RESET_SIG_ATTR)) {
		dvx_fail(mqp);
		return;
	}
	if (dpv_mlx5_wr_op(&qp->sq, qp->qpex.wr_id, qp->qpex.wr_flags,
			   IBV_WR_DRIVER1) == 0) {
		dpv_mlx5_wr_mkey_begin(&qp->sq, mkey->lkey, true, num_setters);
		qp->mkc_entries = dpv_mlx5dv_mkey_entries(mkey);
		qp->mkc_mkey = mkey;
		/* the reset: no signature staged, the WQE applies it (a
		 * mlx5dv_wr_set_mkey_sig_block after it stages its own) */
		if (attr->conf_flags & MLX5DV_MKEY_CONF_FLAG_RESET_SIG_ATTR) {
			dpv_mlx5dv_mkey_sig_stage(mkey, NULL);
			dpv_mlx5_wr_mkey_sig(&qp->sq, true);
		}
	}
}

static void
dvx_set_mkey_access_flags(struct mlx5dv_qp_ex *mqp, uint32_t access_flags)
{
	struct dpv_qp *qp = dvx_mkey_qp(mqp);

	if (qp != NULL)
		dpv_mlx5_wr_mkey_access(&qp->sq, access_flags);
}

static void
dvx_set_mkey_layout_list(struct mlx5dv_qp_ex *mqp, uint16_t num_sges,
			 const struct ibv_sge *sge)
{
	struct dpv_qp *qp = dvx_mkey_qp(mqp);

	if (qp != NULL)
		dpv_mlx5_wr_mkey_layout(&qp->sq, qp->mkc_entries, 0, num_sges,
					sge, NULL);
}

static void
dvx_set_mkey_layout_interleaved(struct mlx5dv_qp_ex *mqp, uint32_t repeat_count,
				uint16_t num_interleaved,
				const struct mlx5dv_mr_interleaved *data)
{
	struct dpv_qp *qp = dvx_mkey_qp(mqp);

	if (qp != NULL)
		dpv_mlx5_wr_mkey_layout(&qp->sq, qp->mkc_entries, repeat_count,
					num_interleaved, NULL, data);
}

static void
dvx_set_mkey_sig_block(struct mlx5dv_qp_ex *mqp,
		       const struct mlx5dv_sig_block_attr *attr)
{
	struct dpv_qp *qp = dvx_mkey_qp(mqp);
	int rc;

	if (qp == NULL || qp->sq.bld.err)
		return;
	if (attr == NULL) {
		dvx_fail_err(mqp, EINVAL);
		return;
	}
	/* the setter of the open configuration (its checks first), the
	 * attributes checked and staged now, applied when the WQE executes */
	dpv_mlx5_wr_mkey_sig(&qp->sq, false);
	if (qp->sq.bld.err)
		return;
	rc = dpv_mlx5dv_mkey_sig_stage(qp->mkc_mkey, attr);
	if (rc)
		dvx_fail_err(mqp, rc);
}

/* mlx5dv_wr_raw_wqe: the application's WQE, copied as it is. */
static void
dvx_raw_wqe(struct mlx5dv_qp_ex *mqp, const void *wqe)
{
	struct dpv_qp *qp = container_of(mqp, struct dpv_qp, dv_qpex);

	if (!qp->wr_active || !qp->sq.bld.active)
		return;
	if (!(qp->dv_send_ops & MLX5DV_QP_EX_WITH_RAW_WQE)) {
		dvx_fail(mqp);
		return;
	}
	if (wqe == NULL) {
		dvx_fail_err(mqp, EINVAL);
		return;
	}
	dpv_mlx5_wr_raw(&qp->sq, qp->qpex.wr_id, wqe);
}

static void
dvx_set_dc_addr_stream(struct mlx5dv_qp_ex *mqp, struct ibv_ah *ah,
		       uint32_t remote_dctn, uint64_t remote_dc_key,
		       uint16_t stream_id)
{
	struct dpv_qp *qp = container_of(mqp, struct dpv_qp, dv_qpex);

	if (qp->dc_type != MLX5DV_DCTYPE_DCI || !qp->dci_streams) {
		dvx_fail(mqp); /* no streams on this QP */
		return;
	}
	if (ah == NULL || ah->context != qp->qpex.qp_base.context) {
		dvx_fail_err(mqp, EINVAL);
		return;
	}
	dpv_mlx5_wr_dc_addr_stream(&qp->sq, ah, remote_dctn, remote_dc_key,
				   stream_id);
}

static void
dvx_memcpy(struct mlx5dv_qp_ex *mqp, uint32_t dest_lkey, uint64_t dest_addr,
	   uint32_t src_lkey, uint64_t src_addr, size_t length)
{
	RTE_SET_USED(dest_lkey);
	RTE_SET_USED(dest_addr);
	RTE_SET_USED(src_lkey);
	RTE_SET_USED(src_addr);
	RTE_SET_USED(length);
	dvx_fail(mqp);
}

static void
dvx_set_mkey_crypto(struct mlx5dv_qp_ex *mqp,
		    const struct mlx5dv_crypto_attr *attr)
{
	RTE_SET_USED(attr);
	dvx_fail(mqp);
}

int
dpv_qp_mlx5_send_ops(struct ibv_qp *ibqp, uint64_t flags)
{
	const uint64_t mkey = MLX5DV_QP_EX_WITH_MR_LIST |
			      MLX5DV_QP_EX_WITH_MR_INTERLEAVED |
			      MLX5DV_QP_EX_WITH_MKEY_CONFIGURE;
	struct dpv_qp *qp;

	if (ibqp == NULL)
		return EINVAL;
	qp = to_dqp(ibqp);
	if (!qp->is_ex || !qp->has_sq)
		return EINVAL;
	/* raw WQEs on every QP type with a send queue, as rdma-core's
	 * provider; indirect keys on RC only */
	if ((flags & ~(mkey | MLX5DV_QP_EX_WITH_RAW_WQE)) ||
	    ((flags & mkey) && ibqp->qp_type != IBV_QPT_RC))
		return EOPNOTSUPP;
	qp->dv_send_ops = flags;
	/* as rdma-core's provider: every builder of the type is set */
	dpv_qp_ex_all_ops(qp);
	return 0;
}

struct mlx5dv_qp_ex *
dpv_mlx5dv_qp_ex(struct ibv_qp_ex *qpex)
{
	struct mlx5dv_qp_ex *m;
	struct dpv_qp *qp;

	if (qpex == NULL) {
		errno = EINVAL;
		return NULL;
	}
	qp = to_dqp_ex(qpex);
	/* only QPs with the wr_* builders (and a send queue) have one */
	if (!qp->is_ex || !qp->has_sq) {
		errno = EINVAL;
		return NULL;
	}
	m = &qp->dv_qpex;
	pthread_mutex_lock(&qp->lock);
	m->comp_mask = 0;
	m->wr_set_dc_addr = dvx_set_dc_addr;
	m->wr_mr_interleaved = dvx_mr_interleaved;
	m->wr_mr_list = dvx_mr_list;
	m->wr_mkey_configure = dvx_mkey_configure;
	m->wr_set_mkey_access_flags = dvx_set_mkey_access_flags;
	m->wr_set_mkey_layout_list = dvx_set_mkey_layout_list;
	m->wr_set_mkey_layout_interleaved = dvx_set_mkey_layout_interleaved;
	m->wr_set_mkey_sig_block = dvx_set_mkey_sig_block;
	m->wr_raw_wqe = dvx_raw_wqe;
	m->wr_set_dc_addr_stream = dvx_set_dc_addr_stream;
	m->wr_memcpy = dvx_memcpy;
	m->wr_set_mkey_crypto = dvx_set_mkey_crypto;
	pthread_mutex_unlock(&qp->lock);
	return m;
}
