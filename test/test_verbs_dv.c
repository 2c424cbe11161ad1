/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Verbs front end: the mlx5dv view of objects (dpv_mlx5dv_init_obj, the
 * private entry behind libmlx5.so.1's mlx5dv_init_obj). What a verbs call
 * writes must appear where the view says the ring is. And the
 * mlx5dv_qp_ex view (dpv_mlx5dv_qp_ex): its builders fail the batch.
 */
#include <endian.h>
#include <errno.h>
#include <string.h>

#include <infiniband/verbs.h>
#include <infiniband/mlx5dv.h>

#include "dpv_test.h"
#include "test_verbs_util.h"
#include "verbs_int.h"
#include "verbs_dv.h"
#include "dv_mlx5.h"

static struct ibv_device **devs;
static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_mr *mr;
static char buf[4096];

static int
dv_setup(void)
{
	if (test_verbs_open_first(&devs, &ctx) != TEST_SUCCESS)
		return TEST_FAILED;
	pd = ibv_alloc_pd(ctx);
	cq = pd ? ibv_create_cq(ctx, 10, NULL, NULL, 0) : NULL;
	mr = cq ? ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE)
		: NULL;
	return mr ? TEST_SUCCESS : TEST_FAILED;
}

static void
dv_teardown(void)
{
	if (mr)
		ibv_dereg_mr(mr);
	if (cq)
		ibv_destroy_cq(cq);
	test_verbs_release(&devs, &ctx, &pd);
	mr = NULL;
	cq = NULL;
}

/* RESET (or a new QP) -> INIT on port 1. */
static int
qp_to_init(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {.qp_state = IBV_QPS_INIT, .port_num = 1};

	return ibv_modify_qp(qp, &a,
			     IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				     IBV_QP_ACCESS_FLAGS);
}

static struct ibv_qp *
make_qp(struct ibv_srq *srq)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = cq,
		.recv_cq = cq,
		.srq = srq,
		.cap = {.max_send_wr = 4,
			.max_recv_wr = 4,
			.max_send_sge = 1,
			.max_recv_sge = 2},
		.qp_type = IBV_QPT_RC,
	};
	struct ibv_qp *qp = ibv_create_qp(pd, &ia);

	if (qp != NULL && qp_to_init(qp) != 0) {
		ibv_destroy_qp(qp);
		qp = NULL;
	}
	return qp;
}

/* The 16-byte mlx5 data segment for (len, lkey, addr). */
static void
dseg(uint8_t out[16], uint32_t len, uint32_t lkey, void *addr)
{
	struct mlx5_wqe_data_seg d;

	mlx5dv_set_data_seg(&d, len, lkey, (uintptr_t)addr);
	memcpy(out, &d, 16);
}

static int
test_cq_view(void)
{
	struct mlx5dv_cq dcq;
	struct mlx5dv_obj o;

	memset(&o, 0, sizeof(o));
	memset(&dcq, 0xa5, sizeof(dcq));
	o.cq.in = cq;
	o.cq.out = &dcq;
	TEST_ASSERT_EQUAL(dpv_mlx5dv_init_obj(&o, MLX5DV_OBJ_CQ), 0, "cq");
	TEST_ASSERT(dcq.buf == to_dcq(cq)->ring.buf, "buf");
	TEST_ASSERT(dcq.dbrec == to_dcq(cq)->ring.dbrec, "dbrec");
	TEST_ASSERT_EQUAL(dcq.cqe_size, 64, "cqe_size");
	TEST_ASSERT((dcq.cqe_cnt & (dcq.cqe_cnt - 1)) == 0 &&
			    dcq.cqe_cnt >= (uint32_t)cq->cqe + 1,
		    "cqe_cnt %u for cqe %d", dcq.cqe_cnt, cq->cqe);
	TEST_ASSERT(dcq.cqn != 0 && dcq.cqn == to_dcq(cq)->ring.cqn, "cqn %u",
		    dcq.cqn);
	TEST_ASSERT_NOT_NULL(dcq.cq_uar, "uar");
	TEST_ASSERT_EQUAL(dcq.comp_mask, 0, "comp_mask");
	/* every CQE starts invalid: what a dv poller checks first */
	for (uint32_t i = 0; i < dcq.cqe_cnt; i++) {
		struct mlx5_cqe64 *c = (struct mlx5_cqe64 *)dcq.buf + i;

		TEST_ASSERT_EQUAL(mlx5dv_get_cqe_opcode(c), MLX5_CQE_INVALID,
				  "cqe %u", i);
	}
	/* an arm through verbs is visible in the dv doorbell record
	 * (dbrec[0] set_ci, dbrec[1] the arm word) */
	TEST_ASSERT_EQUAL(ibv_req_notify_cq(cq, 0), 0, "arm");
	TEST_ASSERT((be32toh(dcq.dbrec[1]) & (0xfu << 24)) ==
			    MLX5_CQ_DB_REQ_NOT,
		    "arm word 0x%x", be32toh(dcq.dbrec[1]));
	return TEST_SUCCESS;
}

static int
test_qp_view(void)
{
	struct ibv_sge sg[2] = {
		{(uintptr_t)buf, 100, mr->lkey},
		{(uintptr_t)(buf + 512), 200, mr->lkey},
	};
	struct ibv_recv_wr wr = {.wr_id = 1, .sg_list = sg, .num_sge = 2};
	struct ibv_recv_wr *bad = NULL;
	struct mlx5dv_qp dqp;
	struct mlx5dv_obj o;
	uint8_t want[16];
	struct ibv_qp *qp = make_qp(NULL);

	TEST_ASSERT_NOT_NULL(qp, "qp: %s", strerror(errno));
	memset(&o, 0, sizeof(o));
	memset(&dqp, 0, sizeof(dqp));
	dqp.comp_mask = MLX5DV_QP_MASK_UAR_MMAP_OFFSET;
	o.qp.in = qp;
	o.qp.out = &dqp;
	TEST_ASSERT_EQUAL(dpv_mlx5dv_init_obj(&o, MLX5DV_OBJ_QP), 0, "qp");
	TEST_ASSERT_EQUAL(dqp.comp_mask, 0, "no optional field offered");
	TEST_ASSERT_NOT_NULL(dqp.dbrec, "dbrec");
	TEST_ASSERT(dqp.rq.buf != NULL && dqp.rq.wqe_cnt >= 4 &&
			    (dqp.rq.wqe_cnt & (dqp.rq.wqe_cnt - 1)) == 0,
		    "rq %u", dqp.rq.wqe_cnt);
	TEST_ASSERT(dqp.rq.stride >= 32 &&
			    (dqp.rq.stride & (dqp.rq.stride - 1)) == 0,
		    "rq stride %u", dqp.rq.stride);
	TEST_ASSERT(dqp.sq.buf != NULL && dqp.sq.stride == MLX5_SEND_WQE_BB &&
			    dqp.sq.wqe_cnt >= 4,
		    "sq %u x %u", dqp.sq.wqe_cnt, dqp.sq.stride);
	TEST_ASSERT_NOT_NULL(dqp.bf.reg, "bf.reg writable scratch");
	TEST_ASSERT_EQUAL(dqp.bf.size, 0, "no BlueFlame");
	TEST_ASSERT_EQUAL(be32toh(dqp.dbrec[MLX5_RCV_DBR]), 0, "rq empty");

	/* two receives through verbs: WQE 0 and 1 of the dv ring */
	TEST_ASSERT_EQUAL(ibv_post_recv(qp, &wr, &bad), 0, "post_recv");
	wr.wr_id = 2;
	sg[0].length = 7;
	wr.num_sge = 1;
	TEST_ASSERT_EQUAL(ibv_post_recv(qp, &wr, &bad), 0, "post_recv");
	TEST_ASSERT_EQUAL(be32toh(dqp.dbrec[MLX5_RCV_DBR]), 2, "rq counter");
	dseg(want, 100, mr->lkey, buf);
	TEST_ASSERT_BUFFERS_EQUAL((uint8_t *)dqp.rq.buf, want, 16,
				  "wqe 0 seg 0");
	dseg(want, 200, mr->lkey, buf + 512);
	TEST_ASSERT_BUFFERS_EQUAL((uint8_t *)dqp.rq.buf + 16, want, 16,
				  "wqe 0 seg 1");
	dseg(want, 7, mr->lkey, buf);
	TEST_ASSERT_BUFFERS_EQUAL((uint8_t *)dqp.rq.buf + dqp.rq.stride, want,
				  16, "wqe 1 seg 0");
	/* a short list ends with the invalid-lkey terminator */
	TEST_ASSERT_EQUAL(
		be32toh(((struct mlx5_wqe_data_seg *)((uint8_t *)dqp.rq.buf +
						      dqp.rq.stride))[1]
				.lkey),
		MLX5_INVALID_LKEY, "terminator");
	TEST_ASSERT(mr->lkey != MLX5_INVALID_LKEY, "our key is not it");
	TEST_ASSERT_EQUAL(ibv_destroy_qp(qp), 0, "destroy");
	return TEST_SUCCESS;
}

/* The mlx5dv view of a QP. */
static int
qp_dv(struct ibv_qp *qp, struct mlx5dv_qp *out)
{
	struct mlx5dv_obj o;

	memset(&o, 0, sizeof(o));
	memset(out, 0, sizeof(*out));
	o.qp.in = qp;
	o.qp.out = out;
	return dpv_mlx5dv_init_obj(&o, MLX5DV_OBJ_QP);
}

/*
 * RESET empties a QP's rings but keeps them where they are, as mlx5 does:
 * an application that took the mlx5dv view before goes on using it
 * (the indices start again at 0, the records read 0).
 */
static int
test_qp_view_reset(void)
{
	struct ibv_sge sg = {(uintptr_t)buf, 100, mr->lkey};
	struct ibv_recv_wr wr = {.wr_id = 1, .sg_list = &sg, .num_sge = 1};
	struct ibv_recv_wr *bad = NULL;
	struct ibv_qp_attr a = {.qp_state = IBV_QPS_RESET};
	struct mlx5dv_qp d1, d2;
	uint8_t want[16];
	struct ibv_qp *qp = make_qp(NULL);

	TEST_ASSERT_NOT_NULL(qp, "qp: %s", strerror(errno));
	TEST_ASSERT_EQUAL(qp_dv(qp, &d1), 0, "qp");
	TEST_ASSERT_EQUAL(ibv_post_recv(qp, &wr, &bad), 0, "post_recv");
	TEST_ASSERT_EQUAL(be32toh(d1.dbrec[MLX5_RCV_DBR]), 1, "rq counter");

	TEST_ASSERT_EQUAL(ibv_modify_qp(qp, &a, IBV_QP_STATE), 0, "reset");
	TEST_ASSERT_EQUAL(qp_dv(qp, &d2), 0, "qp");
	TEST_ASSERT(d2.dbrec == d1.dbrec, "record block kept");
	TEST_ASSERT(d2.rq.buf == d1.rq.buf && d2.sq.buf == d1.sq.buf,
		    "rings kept");
	TEST_ASSERT(d2.bf.reg == d1.bf.reg, "bf.reg kept");
	TEST_ASSERT_EQUAL(d2.rq.wqe_cnt, d1.rq.wqe_cnt, "");
	TEST_ASSERT_EQUAL(d2.sq.wqe_cnt, d1.sq.wqe_cnt, "");
	TEST_ASSERT_EQUAL(be32toh(d1.dbrec[MLX5_RCV_DBR]), 0, "rq emptied");
	TEST_ASSERT_EQUAL(be32toh(d1.dbrec[MLX5_SND_DBR]), 0, "sq emptied");
	/* back in INIT, the next receive is WQE 0 again, seen through the
	 * old view */
	TEST_ASSERT_EQUAL(qp_to_init(qp), 0, "init");
	sg.length = 9;
	TEST_ASSERT_EQUAL(ibv_post_recv(qp, &wr, &bad), 0, "post_recv");
	TEST_ASSERT_EQUAL(be32toh(d1.dbrec[MLX5_RCV_DBR]), 1, "rq counter");
	dseg(want, 9, mr->lkey, buf);
	TEST_ASSERT_BUFFERS_EQUAL((uint8_t *)d1.rq.buf, want, 16, "wqe 0");
	TEST_ASSERT_EQUAL(ibv_destroy_qp(qp), 0, "destroy");
	return TEST_SUCCESS;
}

static int
test_srq_view(void)
{
	struct ibv_srq_init_attr sa = {.attr = {.max_wr = 8, .max_sge = 1}};
	struct ibv_sge sg = {(uintptr_t)buf, 64, mr->lkey};
	struct ibv_recv_wr wr = {.wr_id = 5, .sg_list = &sg, .num_sge = 1};
	struct ibv_recv_wr *bad = NULL;
	struct mlx5dv_srq dsrq;
	struct mlx5dv_qp dqp;
	struct mlx5dv_obj o;
	struct ibv_srq *srq;
	struct ibv_qp *qp;
	uint32_t num = 0, head;
	uint8_t want[16];

	srq = ibv_create_srq(pd, &sa);
	TEST_ASSERT_NOT_NULL(srq, "srq");
	qp = make_qp(srq);
	TEST_ASSERT_NOT_NULL(qp, "qp on srq");
	memset(&o, 0, sizeof(o));
	memset(&dsrq, 0, sizeof(dsrq));
	memset(&dqp, 0, sizeof(dqp));
	dsrq.comp_mask = MLX5DV_SRQ_MASK_SRQN;
	o.srq.in = srq;
	o.srq.out = &dsrq;
	o.qp.in = qp;
	o.qp.out = &dqp;
	TEST_ASSERT_EQUAL(
		dpv_mlx5dv_init_obj(&o, MLX5DV_OBJ_SRQ | MLX5DV_OBJ_QP), 0,
		"srq + qp");
	TEST_ASSERT(dqp.rq.buf == NULL && dqp.rq.wqe_cnt == 0,
		    "SRQ-attached QP has no RQ");
	TEST_ASSERT(dqp.sq.buf != NULL && dqp.dbrec != NULL, "sq");
	/* basic SRQs have a number too (ibv_get_srq_num is XRC-only) */
	num = to_dsrq(srq)->vsrq.srq_num;
	TEST_ASSERT(num != 0, "srq num");
	TEST_ASSERT_EQUAL(dsrq.comp_mask, MLX5DV_SRQ_MASK_SRQN, "mask kept");
	TEST_ASSERT_EQUAL(dsrq.srqn, num, "srqn");
	TEST_ASSERT(dsrq.buf != NULL && dsrq.dbrec != NULL && dsrq.stride >= 32,
		    "srq ring");
	head = dsrq.head;
	TEST_ASSERT_EQUAL(ibv_post_srq_recv(srq, &wr, &bad), 0, "post");
	dseg(want, 64, mr->lkey, buf);
	/* the WQE went to the old head: next segment, then the data */
	TEST_ASSERT_BUFFERS_EQUAL((uint8_t *)dsrq.buf + head * dsrq.stride +
					  sizeof(struct mlx5_wqe_srq_next_seg),
				  want, 16, "srq wqe");
	TEST_ASSERT_EQUAL(be32toh(dsrq.dbrec[0]), 1, "srq counter");

	/* without the mask bit no srqn is written */
	dsrq.comp_mask = 0;
	dsrq.srqn = 0xdead;
	TEST_ASSERT_EQUAL(dpv_mlx5dv_init_obj(&o, MLX5DV_OBJ_SRQ), 0, "srq");
	TEST_ASSERT_EQUAL(dsrq.srqn, 0xdead, "untouched");
	TEST_ASSERT_EQUAL(ibv_destroy_qp(qp), 0, "destroy qp");
	TEST_ASSERT_EQUAL(ibv_destroy_srq(srq), 0, "destroy srq");
	return TEST_SUCCESS;
}

/*
 * mlx5dv_query_device reports the CQE version of DV_MLX5_CQE_VERSION: a
 * receive CQE of version 0 carries the SRQ number in srqn_uidx.
 */
static int
test_cqe_version(void)
{
	struct dpv_cqe_info ci = {
		.status = IBV_WC_SUCCESS,
		.opcode = IBV_WC_RECV,
		.is_recv = true,
		.qpn = 0x000abc,
		.srqn = 0x123456,
		.byte_len = 5,
	};
	struct mlx5_cqe64 *cqe;
	struct mlx5dv_cq dcq;
	struct mlx5dv_obj o;
	struct ibv_cq *c = ibv_create_cq(ctx, 4, NULL, NULL, 0);

	TEST_ASSERT_NOT_NULL(c, "cq");
	memset(&o, 0, sizeof(o));
	o.cq.in = c;
	o.cq.out = &dcq;
	TEST_ASSERT_EQUAL(dpv_mlx5dv_init_obj(&o, MLX5DV_OBJ_CQ), 0, "view");
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_push(&to_dcq(c)->ring, &ci), 0, "push");
	cqe = dcq.buf;
	TEST_ASSERT_EQUAL(mlx5dv_get_cqe_opcode(cqe), MLX5_CQE_RESP_SEND,
			  "receive CQE");
	TEST_ASSERT_EQUAL(be32toh(cqe->sop_drop_qpn) & 0xffffff, ci.qpn, "qpn");
	TEST_ASSERT_EQUAL(be32toh(cqe->srqn_uidx) & 0xffffff, ci.srqn,
			  "srqn_uidx carries the SRQ number");
	TEST_ASSERT_EQUAL(DV_MLX5_CQE_VERSION, 0,
			  "CQEs are version 0: CQE_V1 must not be reported");
	TEST_ASSERT_EQUAL(ibv_destroy_cq(c), 0, "destroy cq");
	return TEST_SUCCESS;
}

static int
test_pd_ah_errors(void)
{
	struct ibv_ah_attr aa = {
		.is_global = 1,
		.port_num = 1,
		.grh = {.sgid_index = 0, .hop_limit = 64},
	};
	struct mlx5dv_pd dpd;
	struct mlx5dv_ah dah;
	struct mlx5dv_cq dcq;
	struct mlx5dv_obj o;
	struct ibv_ah *ah;

	TEST_ASSERT_EQUAL(ibv_query_gid(ctx, 1, 0, &aa.grh.dgid), 0, "gid");
	ah = ibv_create_ah(pd, &aa);
	TEST_ASSERT_NOT_NULL(ah, "ah");
	memset(&o, 0, sizeof(o));
	o.pd.in = pd;
	o.pd.out = &dpd;
	o.ah.in = ah;
	o.ah.out = &dah;
	TEST_ASSERT_EQUAL(
		dpv_mlx5dv_init_obj(&o, MLX5DV_OBJ_PD | MLX5DV_OBJ_AH), 0, "");
	TEST_ASSERT_EQUAL(dpd.pdn, to_dpd(pd)->pdn, "pdn");
	TEST_ASSERT(dah.av == &to_dah(ah)->mah.av, "av");
	TEST_ASSERT_EQUAL(ibv_destroy_ah(ah), 0, "destroy ah");

	TEST_ASSERT_EQUAL(dpv_mlx5dv_init_obj(NULL, MLX5DV_OBJ_CQ), EINVAL,
			  "no obj");
	memset(&o, 0, sizeof(o));
	TEST_ASSERT_EQUAL(dpv_mlx5dv_init_obj(&o, MLX5DV_OBJ_QP), EINVAL,
			  "no qp");
	o.cq.in = cq;
	TEST_ASSERT_EQUAL(dpv_mlx5dv_init_obj(&o, MLX5DV_OBJ_CQ), EINVAL,
			  "no output");
	o.cq.out = &dcq;
	TEST_ASSERT_EQUAL(
		dpv_mlx5dv_init_obj(&o, MLX5DV_OBJ_CQ | MLX5DV_OBJ_RWQ), EINVAL,
		"no WQ given (a real one: test raw, case_rss)");
	TEST_ASSERT_EQUAL(dpv_mlx5dv_init_obj(&o, MLX5DV_OBJ_DM), EINVAL,
			  "no device memory given");
	TEST_ASSERT_EQUAL(dpv_mlx5dv_init_obj(&o, 0), 0, "nothing asked");
	{
		/* device memory: its own bytes, what ibv_memcpy_to_dm put */
		struct ibv_alloc_dm_attr da = {.length = 128};
		struct mlx5dv_dm ddm = {.comp_mask = MLX5DV_DM_MASK_REMOTE_VA};
		struct ibv_dm *dm = ibv_alloc_dm(ctx, &da);
		uint32_t w = 0x5a5aa5a5, got;

		TEST_ASSERT_NOT_NULL(dm, "errno %d", errno);
		TEST_ASSERT_EQUAL(ibv_memcpy_to_dm(dm, 64, &w, 4), 0, "");
		o.dm.in = dm;
		o.dm.out = &ddm;
		TEST_ASSERT_EQUAL(dpv_mlx5dv_init_obj(&o, MLX5DV_OBJ_DM), 0,
				  "");
		TEST_ASSERT(ddm.buf != NULL && ddm.length == 128 &&
				    ddm.comp_mask == 0,
			    "no remote VA");
		memcpy(&got, (uint8_t *)ddm.buf + 64, 4);
		TEST_ASSERT_EQUAL(got, w, "");
		TEST_ASSERT_EQUAL(ibv_free_dm(dm), 0, "");
	}
	return TEST_SUCCESS;
}

/* A UD QP with the ibv_qp_ex builders, moved to RTS (no peer needed). */
static struct ibv_qp *
make_ud_ex(void)
{
	struct ibv_qp_init_attr_ex ia = {
		.send_cq = cq,
		.recv_cq = cq,
		.cap = {.max_send_wr = 4,
			.max_recv_wr = 4,
			.max_send_sge = 1,
			.max_recv_sge = 1},
		.qp_type = IBV_QPT_UD,
		.comp_mask =
			IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = pd,
		.send_ops_flags = IBV_QP_EX_WITH_SEND,
	};
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1, .qkey = 0x11111111};
	struct ibv_qp *qp = ibv_create_qp_ex(ctx, &ia);

	if (qp == NULL)
		return NULL;
	if (ibv_modify_qp(qp, &a,
			  IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				  IBV_QP_QKEY) != 0)
		goto fail;
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE) != 0)
		goto fail;
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN) != 0)
		goto fail;
	return qp;
fail:
	ibv_destroy_qp(qp);
	return NULL;
}

/* One batch: a UD send, then (with dv) one mlx5-only builder number n. */
static int
dv_batch(struct ibv_qp_ex *x, struct mlx5dv_qp_ex *m, struct ibv_ah *ah, int n)
{
	struct mlx5dv_mr_interleaved il = {0};
	struct ibv_sge sge = {(uintptr_t)buf, 8, mr->lkey};
	static const char raw[64];

	ibv_wr_start(x);
	x->wr_id = 7;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(x);
	ibv_wr_set_ud_addr(x, ah, x->qp_base.qp_num, 0x11111111);
	ibv_wr_set_sge(x, mr->lkey, (uintptr_t)buf, 8);
	switch (n) {
	case 0:
		mlx5dv_wr_set_dc_addr(m, ah, 1, 2);
		break;
	case 1:
		m->wr_mr_interleaved(m, NULL, 0, 1, 1, &il);
		break;
	case 2:
		m->wr_mr_list(m, NULL, 0, 1, &sge);
		break;
	case 3:
		m->wr_mkey_configure(m, NULL, 0, NULL);
		break;
	case 4:
		m->wr_set_mkey_access_flags(m, 0);
		break;
	case 5:
		m->wr_set_mkey_layout_list(m, 1, &sge);
		break;
	case 6:
		m->wr_set_mkey_layout_interleaved(m, 1, 1, &il);
		break;
	case 7:
		m->wr_set_mkey_sig_block(m, NULL);
		break;
	case 8:
		m->wr_raw_wqe(m, raw);
		break;
	case 9:
		m->wr_set_dc_addr_stream(m, ah, 1, 2, 0);
		break;
	case 10:
		m->wr_memcpy(m, mr->lkey, (uintptr_t)buf, mr->lkey,
			     (uintptr_t)buf + 64, 8);
		break;
	case 11:
		m->wr_set_mkey_crypto(m, NULL);
		break;
	default:
		break; /* no dv builder: a valid batch */
	}
	return ibv_wr_complete(x);
}

static int
test_qp_ex_view(void)
{
	struct ibv_ah_attr aa = {
		.is_global = 1,
		.port_num = 1,
		.grh = {.sgid_index = 0, .hop_limit = 64},
	};
	struct mlx5dv_qp dqp;
	struct mlx5dv_obj o;
	struct mlx5dv_qp_ex *m;
	struct ibv_qp_ex *x;
	struct ibv_qp *qp, *plain;
	struct ibv_ah *ah;
	uint32_t sq_db;
	int n;

	/* not an ibv_qp_ex QP, or none at all: EINVAL */
	errno = 0;
	TEST_ASSERT_NULL(dpv_mlx5dv_qp_ex(NULL), "NULL qp");
	TEST_ASSERT_EQUAL(errno, EINVAL, "NULL qp errno");
	plain = make_qp(NULL);
	TEST_ASSERT_NOT_NULL(plain, "plain qp");
	errno = 0;
	TEST_ASSERT_NULL(dpv_mlx5dv_qp_ex((struct ibv_qp_ex *)plain),
			 "plain qp has no mlx5dv_qp_ex");
	TEST_ASSERT_EQUAL(errno, EINVAL, "plain qp errno");
	TEST_ASSERT_EQUAL(ibv_destroy_qp(plain), 0, "destroy plain");

	TEST_ASSERT_EQUAL(ibv_query_gid(ctx, 1, 0, &aa.grh.dgid), 0, "gid");
	ah = ibv_create_ah(pd, &aa);
	TEST_ASSERT_NOT_NULL(ah, "ah");
	qp = make_ud_ex();
	TEST_ASSERT_NOT_NULL(qp, "ud ex qp: %s", strerror(errno));
	x = ibv_qp_to_qp_ex(qp);
	TEST_ASSERT_NOT_NULL(x, "qp_ex");
	m = dpv_mlx5dv_qp_ex(x);
	TEST_ASSERT_NOT_NULL(m, "mlx5dv_qp_ex: %s", strerror(errno));
	TEST_ASSERT(dpv_mlx5dv_qp_ex(x) == m, "same view each time");
	TEST_ASSERT_EQUAL(m->comp_mask, 0, "comp_mask");
	TEST_ASSERT(m->wr_set_dc_addr && m->wr_mr_interleaved &&
			    m->wr_mr_list && m->wr_mkey_configure &&
			    m->wr_set_mkey_access_flags &&
			    m->wr_set_mkey_layout_list &&
			    m->wr_set_mkey_layout_interleaved &&
			    m->wr_set_mkey_sig_block && m->wr_raw_wqe &&
			    m->wr_set_dc_addr_stream && m->wr_memcpy &&
			    m->wr_set_mkey_crypto,
		    "every builder set");

	memset(&o, 0, sizeof(o));
	o.qp.in = qp;
	o.qp.out = &dqp;
	TEST_ASSERT_EQUAL(dpv_mlx5dv_init_obj(&o, MLX5DV_OBJ_QP), 0, "view");
	sq_db = be32toh(dqp.dbrec[MLX5_SND_DBR]);

	/* outside a batch: no effect */
	mlx5dv_wr_set_dc_addr(m, ah, 1, 2);
	for (n = 0; n < 12; n++) {
		TEST_ASSERT_EQUAL(dv_batch(x, m, ah, n), EOPNOTSUPP,
				  "builder %d", n);
		TEST_ASSERT_EQUAL(be32toh(dqp.dbrec[MLX5_SND_DBR]), sq_db,
				  "builder %d: nothing posted", n);
	}
	/* the same batch without the mlx5 builder posts one send */
	TEST_ASSERT_EQUAL(dv_batch(x, m, ah, -1), 0, "valid batch");
	TEST_ASSERT(be32toh(dqp.dbrec[MLX5_SND_DBR]) != sq_db, "posted");

	/* abort after a failing builder drops the batch; the next is fine */
	ibv_wr_start(x);
	mlx5dv_wr_set_dc_addr(m, ah, 1, 2);
	ibv_wr_abort(x);
	sq_db = be32toh(dqp.dbrec[MLX5_SND_DBR]);
	TEST_ASSERT_EQUAL(dv_batch(x, m, ah, -1), 0, "after abort");
	TEST_ASSERT(be32toh(dqp.dbrec[MLX5_SND_DBR]) != sq_db, "posted");

	TEST_ASSERT_EQUAL(ibv_destroy_qp(qp), 0, "destroy qp");
	TEST_ASSERT_EQUAL(ibv_destroy_ah(ah), 0, "destroy ah");
	return TEST_SUCCESS;
}

static struct dpv_test_suite verbs_dv_suite = {
	.name = "verbs_dv",
	.setup = dv_setup,
	.teardown = dv_teardown,
	.cases =
		{
			TEST_CASE(test_cq_view),
			TEST_CASE(test_qp_view),
			TEST_CASE(test_qp_view_reset),
			TEST_CASE(test_srq_view),
			TEST_CASE(test_pd_ah_errors),
			TEST_CASE(test_qp_ex_view),
			TEST_CASE(test_cqe_version),
			TEST_CASES_END(),
		},
};

static int
verbs_dv_autotest(void)
{
	return dpv_test_run_suite(&verbs_dv_suite);
}

DPV_TEST_REGISTER_FAST(verbs_dv_autotest, verbs_dv_autotest);
