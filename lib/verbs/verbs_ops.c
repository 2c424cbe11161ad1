/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The op tables of a context. Ops of features that do not exist stay NULL
 * in verbs_context (the inline wrappers of <infiniband/verbs.h> then answer
 * EOPNOTSUPP); the ibv_context ops, which are called without a NULL check,
 * always point somewhere.
 */
#include <errno.h>

#include "verbs_int.h"
#include "verbs_ops.h"
#include "verbs_raw.h"

static int
post_send_unsupported(struct ibv_qp *qp, struct ibv_send_wr *wr,
		      struct ibv_send_wr **bad_wr)
{
	*bad_wr = wr;
	return EOPNOTSUPP;
}

static int
post_recv_unsupported(struct ibv_qp *qp, struct ibv_recv_wr *wr,
		      struct ibv_recv_wr **bad_wr)
{
	*bad_wr = wr;
	return EOPNOTSUPP;
}

void
dpv_verbs_fill_ops(struct verbs_context *vctx)
{
	struct ibv_context_ops *o = &vctx->context.ops;

	o->alloc_mw = dpv_alloc_mw;
	o->dealloc_mw = dpv_dealloc_mw;
	o->bind_mw = dpv_bind_mw;
	o->poll_cq = dpv_poll_cq;
	o->req_notify_cq = dpv_req_notify_cq;
	o->post_srq_recv = dpv_post_srq_recv;
	o->post_send = post_send_unsupported;
	o->post_recv = post_recv_unsupported;

	vctx->query_port = dpv_query_port_op;
	vctx->query_device_ex = dpv_query_device_ex_op;
	vctx->create_cq_ex = dpv_create_cq_ex_op;
	vctx->modify_cq = dpv_modify_cq;
	vctx->create_srq_ex = dpv_create_srq_ex_op;
	vctx->get_srq_num = dpv_get_srq_num;
	vctx->post_srq_ops = dpv_post_srq_ops;
	vctx->open_xrcd = dpv_open_xrcd;
	vctx->close_xrcd = dpv_close_xrcd;
	vctx->alloc_parent_domain = dpv_alloc_parent_domain;
	vctx->alloc_td = dpv_alloc_td;
	vctx->dealloc_td = dpv_dealloc_td;
	vctx->query_rt_values = dpv_query_rt_values;
	vctx->advise_mr = dpv_advise_mr;
	dpv_wq_ops_init(vctx);
	dpv_flow_ops_init(vctx);
	dpv_dm_ops_init(vctx);
	dpv_raw_ops_init(vctx);
}
