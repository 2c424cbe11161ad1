/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * "rings = mlx4": verbs on a loopback device whose QPs and CQs use the
 * ConnectX-3 formats (drivers/rdma/mlx4/mlx4_ring.h), through the engine.
 * RC SEND (inline too), WRITE with immediate, READ, both atomics; UD
 * SEND; SRQ receive; an error CQE and the flush after it; the SQ and CQ
 * wrapped many times; ibv_resize_cq; XRC; raw packets; mlx4dv_init_obj's
 * views, a WQE written by hand into the QP buffer and its CQE read by
 * hand by owner bit.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <infiniband/mlx4dv.h>
#include <rte_thash.h>

#include "dpv_test.h"
#include "test_verbs_util.h"
#include "test_loop_util.h"
#include "test_raw_util.h"
#include "verbs_dv.h"

#define BUF 4096
#define WAIT_MS 3000

static struct ibv_device **devs;
static struct ibv_context *ctx;
static struct ibv_pd *pd;
static char conf[64];

static int
setup(void)
{
	int fd;

	snprintf(conf, sizeof(conf), "/tmp/dpv-mlx4-XXXXXX");
	fd = mkstemp(conf);
	if (fd < 0)
		return TEST_FAILED;
	if (dprintf(fd, "[dpv0]\nport = loopback\nrings = mlx4\n") < 0) {
		close(fd);
		return TEST_FAILED;
	}
	close(fd);
	setenv("DPV_CONF", conf, 1);
	if (test_verbs_open_first(&devs, &ctx) != TEST_SUCCESS)
		return TEST_FAILED;
	pd = ibv_alloc_pd(ctx);
	return pd ? TEST_SUCCESS : TEST_FAILED;
}

static void
teardown(void)
{
	test_verbs_release(&devs, &ctx, &pd);
	unlink(conf);
}

struct side {
	struct ibv_cq *scq, *rcq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint8_t *buf;
};

static void
side_free(struct side *s)
{
	if (s->qp)
		ibv_destroy_qp(s->qp);
	if (s->scq)
		ibv_destroy_cq(s->scq);
	if (s->rcq)
		ibv_destroy_cq(s->rcq);
	if (s->mr)
		ibv_dereg_mr(s->mr);
	free(s->buf);
	memset(s, 0, sizeof(*s));
}

static int
side_init(struct side *s, enum ibv_qp_type type, uint32_t wr, int cqe,
	  struct ibv_srq *srq)
{
	struct ibv_qp_init_attr a = {
		.qp_type = type,
		.srq = srq,
		.cap = {.max_send_wr = wr, .max_recv_wr = wr,
			.max_send_sge = 2, .max_recv_sge = 2,
			.max_inline_data = 64},
	};

	memset(s, 0, sizeof(*s));
	s->buf = aligned_alloc(64, BUF);
	s->scq = ibv_create_cq(ctx, cqe, NULL, NULL, 0);
	s->rcq = ibv_create_cq(ctx, cqe, NULL, NULL, 0);
	if (!s->buf || !s->scq || !s->rcq)
		return -1;
	memset(s->buf, 0, BUF);
	s->mr = ibv_reg_mr(pd, s->buf, BUF,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_ATOMIC);
	a.send_cq = s->scq;
	a.recv_cq = s->rcq;
	s->qp = ibv_create_qp(pd, &a);
	return s->mr && s->qp ? 0 : -1;
}

static int
pair_connect(struct side *a, struct side *b)
{
	union ibv_gid gid;
	int gi = test_loop_gid(ctx, &gid);
	struct test_loop_conn ca = {.dest_qpn = b->qp->qp_num, .sq_psn = 100,
				    .rq_psn = 200, .mtu = IBV_MTU_1024,
				    .timeout = 14, .rd_atomic = 4};
	struct test_loop_conn cb = {.dest_qpn = a->qp->qp_num, .sq_psn = 200,
				    .rq_psn = 100, .mtu = IBV_MTU_1024,
				    .timeout = 14, .rd_atomic = 4};

	if (gi < 0)
		return -1;
	if (test_loop_connect(a->qp, gi, &ca) ||
	    test_loop_connect(b->qp, gi, &cb))
		return -1;
	return 0;
}

static int
post_recv(struct side *s, uint64_t id, uint32_t off, uint32_t len)
{
	struct ibv_sge sge = {(uintptr_t)s->buf + off, len, s->mr->lkey};
	struct ibv_recv_wr wr = {.wr_id = id, .sg_list = &sge, .num_sge = 1};
	struct ibv_recv_wr *bad;

	return ibv_post_recv(s->qp, &wr, &bad);
}

static int
post(struct side *s, struct ibv_send_wr *wr, uint32_t off, uint32_t len)
{
	struct ibv_sge sge = {(uintptr_t)s->buf + off, len, s->mr->lkey};
	struct ibv_send_wr *bad;

	wr->sg_list = &sge;
	wr->num_sge = 1;
	wr->send_flags |= IBV_SEND_SIGNALED;
	return ibv_post_send(s->qp, wr, &bad);
}

static int
wait1(struct ibv_cq *cq, struct ibv_wc *wc)
{
	return test_loop_wait_wc(cq, wc, 1, WAIT_MS) == 1 ? 0 : -1;
}

/* RESET keeps the rings an mlx4dv view shows, emptied: the receive
 * record reads 0 and every send WQE carries its first-pass owner bit
 * again. */
static int
test_mlx4_dv_reset(void)
{
	struct side a;
	struct mlx4dv_qp d1 = {0}, d2 = {0};
	struct mlx4dv_obj o = {.qp = {NULL, &d1}};
	struct ibv_qp_attr at = {.qp_state = IBV_QPS_INIT, .port_num = 1};
	const int init_mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			      IBV_QP_ACCESS_FLAGS;
	int rc = TEST_FAILED;

	TEST_ASSERT_EQUAL(side_init(&a, IBV_QPT_RC, 16, 16, NULL), 0, "init");
	o.qp.in = a.qp;
	if (ibv_modify_qp(a.qp, &at, init_mask) ||
	    dpv_mlx4dv_init_obj(&o, MLX4DV_OBJ_QP) || post_recv(&a, 1, 0, 64) ||
	    be32toh(*d1.rdb) != 1)
		goto out;
	at.qp_state = IBV_QPS_RESET;
	if (ibv_modify_qp(a.qp, &at, IBV_QP_STATE))
		goto out;
	o.qp.out = &d2;
	if (dpv_mlx4dv_init_obj(&o, MLX4DV_OBJ_QP))
		goto out;
	if (d2.buf.buf != d1.buf.buf || d2.rdb != d1.rdb ||
	    d2.sdb != d1.sdb || d2.buf.length != d1.buf.length ||
	    be32toh(*d1.rdb) != 0) {
		DPV_TEST_LOG("after RESET: buf %p/%p rdb %u", d1.buf.buf,
			     d2.buf.buf, be32toh(*d1.rdb));
		goto out;
	}
	for (uint32_t i = 0; i < d1.sq.wqe_cnt; i++) {
		const struct mlx4_wqe_ctrl_seg *c = (const void *)(
			(const uint8_t *)d1.buf.buf + d1.sq.offset +
			((size_t)i << d1.sq.wqe_shift));

		if (!(be32toh(c->owner_opcode) & (1u << 31))) {
			DPV_TEST_LOG("WQE %u: owner 0x%08x", i,
				     be32toh(c->owner_opcode));
			goto out;
		}
	}
	at.qp_state = IBV_QPS_INIT;
	if (ibv_modify_qp(a.qp, &at, init_mask) || post_recv(&a, 2, 0, 64) ||
	    be32toh(*d1.rdb) != 1)
		goto out;
	rc = TEST_SUCCESS;
out:
	side_free(&a);
	return rc;
}

/* RC: SEND (plain and inline), WRITE_WITH_IMM, READ, CMP_SWP, FETCH_ADD;
 * then an SQ of 16 and CQs of 16 wrapped many times. */
static int
test_mlx4_rc(void)
{
	struct side a, b;
	struct ibv_wc wc;
	uint64_t *atom;
	int rc = TEST_FAILED;

	TEST_ASSERT_EQUAL(side_init(&a, IBV_QPT_RC, 16, 16, NULL), 0, "init a");
	TEST_ASSERT_EQUAL(side_init(&b, IBV_QPT_RC, 16, 16, NULL), 0, "init b");
	if (pair_connect(&a, &b))
		goto out;
	/* SEND */
	memcpy(a.buf, "hello mlx4", 10);
	if (post_recv(&b, 7, 0, 64))
		goto out;
	{
		struct ibv_send_wr w = {.wr_id = 1, .opcode = IBV_WR_SEND};

		if (post(&a, &w, 0, 10))
			goto out;
	}
	if (wait1(a.scq, &wc) || wc.status || wc.opcode != IBV_WC_SEND ||
	    wc.wr_id != 1)
		goto out;
	if (wait1(b.rcq, &wc) || wc.status || wc.opcode != IBV_WC_RECV ||
	    wc.wr_id != 7 || wc.byte_len != 10 ||
	    wc.qp_num != b.qp->qp_num || memcmp(b.buf, "hello mlx4", 10))
		goto out;
	/* inline SEND with immediate */
	memcpy(a.buf + 100, "inline!", 7);
	if (post_recv(&b, 8, 64, 64))
		goto out;
	{
		struct ibv_send_wr w = {.wr_id = 2, .opcode =
						IBV_WR_SEND_WITH_IMM,
					.send_flags = IBV_SEND_INLINE,
					.imm_data = htobe32(0xabcd)};

		if (post(&a, &w, 100, 7))
			goto out;
	}
	if (wait1(a.scq, &wc) || wc.status || wc.wr_id != 2)
		goto out;
	if (wait1(b.rcq, &wc) || wc.status || wc.byte_len != 7 ||
	    !(wc.wc_flags & IBV_WC_WITH_IMM) ||
	    wc.imm_data != htobe32(0xabcd) || memcmp(b.buf + 64, "inline!", 7))
		goto out;
	/* WRITE with immediate */
	memset(a.buf + 200, 0x5a, 300);
	if (post_recv(&b, 9, 0, 0))
		goto out;
	{
		struct ibv_send_wr w = {.wr_id = 3,
					.opcode = IBV_WR_RDMA_WRITE_WITH_IMM,
					.imm_data = htobe32(5)};

		w.wr.rdma.remote_addr = (uintptr_t)b.buf + 1000;
		w.wr.rdma.rkey = b.mr->rkey;
		if (post(&a, &w, 200, 300))
			goto out;
	}
	if (wait1(a.scq, &wc) || wc.status || wc.opcode != IBV_WC_RDMA_WRITE)
		goto out;
	if (wait1(b.rcq, &wc) || wc.status ||
	    wc.opcode != IBV_WC_RECV_RDMA_WITH_IMM || wc.wr_id != 9 ||
	    b.buf[1000] != 0x5a || b.buf[1299] != 0x5a || b.buf[1300] != 0)
		goto out;
	/* READ */
	memset(b.buf + 2000, 0x33, 128);
	{
		struct ibv_send_wr w = {.wr_id = 4, .opcode = IBV_WR_RDMA_READ};

		w.wr.rdma.remote_addr = (uintptr_t)b.buf + 2000;
		w.wr.rdma.rkey = b.mr->rkey;
		if (post(&a, &w, 2000, 128))
			goto out;
	}
	if (wait1(a.scq, &wc) || wc.status || wc.opcode != IBV_WC_RDMA_READ ||
	    wc.byte_len != 128 || a.buf[2000] != 0x33 || a.buf[2127] != 0x33)
		goto out;
	/* atomics on b.buf[3000] */
	atom = (uint64_t *)(void *)(b.buf + 3000);
	*atom = 40;
	{
		struct ibv_send_wr w = {.wr_id = 5,
					.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD};

		w.wr.atomic.remote_addr = (uintptr_t)atom;
		w.wr.atomic.rkey = b.mr->rkey;
		w.wr.atomic.compare_add = 2;
		if (post(&a, &w, 3000, 8))
			goto out;
	}
	if (wait1(a.scq, &wc) || wc.status || wc.opcode != IBV_WC_FETCH_ADD ||
	    *(uint64_t *)(void *)(a.buf + 3000) != 40 || *atom != 42)
		goto out;
	{
		struct ibv_send_wr w = {.wr_id = 6,
					.opcode = IBV_WR_ATOMIC_CMP_AND_SWP};

		w.wr.atomic.remote_addr = (uintptr_t)atom;
		w.wr.atomic.rkey = b.mr->rkey;
		w.wr.atomic.compare_add = 42;
		w.wr.atomic.swap = 7;
		if (post(&a, &w, 3008, 8))
			goto out;
	}
	if (wait1(a.scq, &wc) || wc.status || wc.opcode != IBV_WC_COMP_SWAP ||
	    *(uint64_t *)(void *)(a.buf + 3008) != 42 || *atom != 7)
		goto out;
	/* wrap: 40 rounds of 8 SENDs (SQ 16, CQs of 16 or so) */
	for (int r = 0; r < 40; r++) {
		for (int i = 0; i < 8; i++) {
			struct ibv_send_wr w = {.wr_id = 100 + r * 8 + i,
						.opcode = IBV_WR_SEND};

			a.buf[i] = (uint8_t)(r + i);
			if (post_recv(&b, 1000 + r * 8 + i, 64 * i, 64) ||
			    post(&a, &w, i, 1))
				goto out;
		}
		for (int i = 0; i < 8; i++) {
			if (wait1(a.scq, &wc) || wc.status ||
			    wc.wr_id != (uint64_t)(100 + r * 8 + i))
				goto out;
			if (wait1(b.rcq, &wc) || wc.status ||
			    wc.wr_id != (uint64_t)(1000 + r * 8 + i) ||
			    b.buf[64 * i] != (uint8_t)(r + i))
				goto out;
		}
	}
	rc = TEST_SUCCESS;
out:
	if (rc != TEST_SUCCESS)
		DPV_TEST_LOG("last wc: id %lu status %d opcode %d len %u",
			     (unsigned long)wc.wr_id, wc.status, wc.opcode,
			     wc.byte_len);
	side_free(&a);
	side_free(&b);
	return rc;
}

/* A WRITE with a bad rkey: a remote access error CQE, then the QP is in
 * error and the next WR completes with a flush error. */
static int
test_mlx4_error(void)
{
	struct side a, b;
	struct ibv_wc wc;
	int rc = TEST_FAILED;

	TEST_ASSERT_EQUAL(side_init(&a, IBV_QPT_RC, 16, 16, NULL), 0, "init a");
	TEST_ASSERT_EQUAL(side_init(&b, IBV_QPT_RC, 16, 16, NULL), 0, "init b");
	if (pair_connect(&a, &b))
		goto out;
	{
		struct ibv_send_wr w = {.wr_id = 11,
					.opcode = IBV_WR_RDMA_WRITE};

		w.wr.rdma.remote_addr = (uintptr_t)b.buf;
		w.wr.rdma.rkey = b.mr->rkey ^ 0x100;
		if (post(&a, &w, 0, 16))
			goto out;
	}
	if (wait1(a.scq, &wc) || wc.wr_id != 11 ||
	    wc.status != IBV_WC_REM_ACCESS_ERR)
		goto out;
	{
		struct ibv_send_wr w = {.wr_id = 12, .opcode = IBV_WR_SEND};

		if (post(&a, &w, 0, 16))
			goto out;
	}
	if (wait1(a.scq, &wc) || wc.wr_id != 12 ||
	    wc.status != IBV_WC_WR_FLUSH_ERR)
		goto out;
	rc = TEST_SUCCESS;
out:
	if (rc != TEST_SUCCESS)
		DPV_TEST_LOG("last wc: id %lu status %d",
			     (unsigned long)wc.wr_id, wc.status);
	side_free(&a);
	side_free(&b);
	return rc;
}

/* UD SEND between two UD QPs; and an RC receive through an SRQ. */
static int
test_mlx4_ud_srq(void)
{
	struct side a, b, c, d;
	struct ibv_srq *srq = NULL;
	struct ibv_ah *ah = NULL;
	struct ibv_wc wc;
	union ibv_gid gid;
	int gi = test_loop_gid(ctx, &gid), rc = TEST_FAILED;

	memset(&c, 0, sizeof(c));
	memset(&d, 0, sizeof(d));
	TEST_ASSERT(gi >= 0, "gid");
	TEST_ASSERT_EQUAL(side_init(&a, IBV_QPT_UD, 16, 16, NULL), 0, "init a");
	TEST_ASSERT_EQUAL(side_init(&b, IBV_QPT_UD, 16, 16, NULL), 0, "init b");
	for (int i = 0; i < 2; i++) {
		struct ibv_qp *q = i ? b.qp : a.qp;
		struct ibv_qp_attr at = {.qp_state = IBV_QPS_INIT,
					 .port_num = 1, .qkey = 0x1111};

		if (ibv_modify_qp(q, &at, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
						  IBV_QP_PORT | IBV_QP_QKEY))
			goto out;
		at.qp_state = IBV_QPS_RTR;
		if (ibv_modify_qp(q, &at, IBV_QP_STATE))
			goto out;
		at.qp_state = IBV_QPS_RTS;
		at.sq_psn = 1;
		if (ibv_modify_qp(q, &at, IBV_QP_STATE | IBV_QP_SQ_PSN))
			goto out;
	}
	{
		struct ibv_ah_attr aa = {.is_global = 1, .port_num = 1,
					 .grh = {.dgid = gid,
						 .sgid_index = (uint8_t)gi,
						 .hop_limit = 64}};

		ah = ibv_create_ah(pd, &aa);
		if (ah == NULL)
			goto out;
	}
	memcpy(a.buf, "ud datagram", 11);
	if (post_recv(&b, 21, 0, 40 + 64))
		goto out;
	{
		struct ibv_send_wr w = {.wr_id = 20, .opcode = IBV_WR_SEND};

		w.wr.ud.ah = ah;
		w.wr.ud.remote_qpn = b.qp->qp_num;
		w.wr.ud.remote_qkey = 0x1111;
		if (post(&a, &w, 0, 11))
			goto out;
	}
	if (wait1(a.scq, &wc) || wc.status || wc.wr_id != 20)
		goto out;
	if (wait1(b.rcq, &wc) || wc.status || wc.wr_id != 21 ||
	    wc.byte_len != 40 + 11 || wc.src_qp != a.qp->qp_num ||
	    !(wc.wc_flags & IBV_WC_GRH) || memcmp(b.buf + 40, "ud datagram", 11))
		goto out;

	/* SRQ */
	{
		struct ibv_srq_init_attr sa = {.attr = {.max_wr = 16,
							.max_sge = 1}};

		srq = ibv_create_srq(pd, &sa);
		if (srq == NULL)
			goto out;
	}
	if (side_init(&c, IBV_QPT_RC, 16, 16, NULL) ||
	    side_init(&d, IBV_QPT_RC, 16, 16, srq) || pair_connect(&c, &d))
		goto out;
	for (int i = 0; i < 3; i++) {
		struct ibv_sge sge = {(uintptr_t)d.buf + 256 * i, 256,
				      d.mr->lkey};
		struct ibv_recv_wr w = {.wr_id = 30 + i, .sg_list = &sge,
					.num_sge = 1};
		struct ibv_recv_wr *bad;

		if (ibv_post_srq_recv(srq, &w, &bad))
			goto out;
	}
	for (int i = 0; i < 3; i++) {
		struct ibv_send_wr w = {.wr_id = 40 + i, .opcode = IBV_WR_SEND};

		c.buf[i] = (uint8_t)(0xa0 + i);
		if (post(&c, &w, i, 1) || wait1(c.scq, &wc) || wc.status)
			goto out;
		if (wait1(d.rcq, &wc) || wc.status ||
		    wc.wr_id != (uint64_t)(30 + i) || wc.byte_len != 1 ||
		    d.buf[256 * i] != 0xa0 + i)
			goto out;
	}
	rc = TEST_SUCCESS;
out:
	if (rc != TEST_SUCCESS)
		DPV_TEST_LOG("last wc: id %lu status %d len %u",
			     (unsigned long)wc.wr_id, wc.status, wc.byte_len);
	if (ah)
		ibv_destroy_ah(ah);
	side_free(&a);
	side_free(&b);
	side_free(&c);
	side_free(&d);
	if (srq)
		ibv_destroy_srq(srq);
	return rc;
}

/* mlx4dv_init_obj's views; a SEND WQE written by hand into the SQ (as
 * DPDK's mlx4 PMD or UCX do), its CQE read by hand by owner bit. */
static int
test_mlx4_dv(void)
{
	struct side a, b;
	struct mlx4dv_qp dq = {0};
	struct mlx4dv_cq dc = {.comp_mask = MLX4DV_CQ_MASK_UAR};
	struct mlx4dv_obj o = {.qp = {NULL, &dq}, .cq = {NULL, &dc}};
	struct mlx4_wqe_ctrl_seg *ctrl;
	struct mlx4_wqe_data_seg *dseg;
	struct mlx4_cqe *cqe = NULL;
	struct ibv_wc wc;
	uint32_t ci = 0;
	int rc = TEST_FAILED;

	TEST_ASSERT_EQUAL(side_init(&a, IBV_QPT_RC, 16, 16, NULL), 0, "init a");
	TEST_ASSERT_EQUAL(side_init(&b, IBV_QPT_RC, 16, 16, NULL), 0, "init b");
	if (pair_connect(&a, &b))
		goto out;
	o.qp.in = a.qp;
	o.cq.in = a.scq;
	if (dpv_mlx4dv_init_obj(&o, MLX4DV_OBJ_QP | MLX4DV_OBJ_CQ))
		goto out;
	if (dq.sq.wqe_cnt < 16 || dq.sq.wqe_shift < 6 || dq.rq.wqe_cnt < 16 ||
	    dq.rdb == NULL || dq.sdb == NULL ||
	    dq.doorbell_qpn != htobe32(a.qp->qp_num << 8) ||
	    dc.cqe_size != 32 || dc.cqe_cnt < 16 || dc.set_ci_db == NULL ||
	    dc.arm_db == NULL || dc.comp_mask != MLX4DV_CQ_MASK_UAR ||
	    dc.cq_uar == NULL) {
		DPV_TEST_LOG("views: sq %u/%d rq %u cqe %d/%u", dq.sq.wqe_cnt,
			     dq.sq.wqe_shift, dq.rq.wqe_cnt, dc.cqe_size,
			     dc.cqe_cnt);
		goto out;
	}
	/* one buffer holds both rings, the SQ first (whatever memory their
	 * sizes come from: a 1,024-deep QP's SQ is mapped, its RQ not) */
	if (dq.sq.offset != 0 ||
	    dq.rq.offset != (int)(dq.sq.wqe_cnt << dq.sq.wqe_shift) ||
	    dq.buf.length != (size_t)dq.rq.offset +
				     ((size_t)dq.rq.wqe_cnt << dq.rq.wqe_shift)) {
		DPV_TEST_LOG("layout: sq at %d, rq at %d, length %zu",
			     dq.sq.offset, dq.rq.offset, dq.buf.length);
		goto out;
	}
	{
		struct mlx4dv_qp big = {0};
		struct mlx4dv_obj ob = {.qp = {NULL, &big}};
		struct side c;

		if (side_init(&c, IBV_QPT_RC, 1024, 16, NULL))
			goto out;
		ob.qp.in = c.qp;
		rc = dpv_mlx4dv_init_obj(&ob, MLX4DV_OBJ_QP);
		side_free(&c);
		if (rc != 0 || big.rq.offset == 0) {
			DPV_TEST_LOG("1024-deep QP: init_obj %d", rc);
			rc = TEST_FAILED;
			goto out;
		}
		rc = TEST_FAILED;
	}
	/* an RWQ view of no WQ */
	if (dpv_mlx4dv_init_obj(&o, MLX4DV_OBJ_RWQ) != EINVAL)
		goto out;

	memcpy(a.buf, "by hand", 7);
	if (post_recv(&b, 51, 0, 64))
		goto out;
	/* WQE 0 of the SQ (the QP is fresh): data segment, then the control
	 * segment, its owner bit (0 on the first pass) written last */
	ctrl = (void *)((uint8_t *)dq.buf.buf + dq.sq.offset);
	dseg = (void *)(ctrl + 1);
	mlx4dv_set_data_seg(dseg, 7, a.mr->lkey, (uintptr_t)a.buf);
	ctrl->fence_size = 2; /* 32 bytes */
	ctrl->srcrb_flags = htobe32(MLX4_WQE_CTRL_CQ_UPDATE);
	ctrl->imm = 0;
	__atomic_thread_fence(__ATOMIC_RELEASE);
	ctrl->owner_opcode = htobe32(MLX4_OPCODE_SEND);
	*dq.sdb = dq.doorbell_qpn;
	/* the receive side through verbs (its poll runs the engine) */
	if (wait1(b.rcq, &wc) || wc.status || wc.wr_id != 51 ||
	    wc.byte_len != 7 || memcmp(b.buf, "by hand", 7))
		goto out;
	/* the send CQE by hand: index 0, owner bit 0 on the first pass */
	for (int i = 0; i < 1000; i++) {
		struct mlx4_cqe *c = (struct mlx4_cqe *)dc.buf.buf +
				     (ci & (dc.cqe_cnt - 1));

		if (!!mlx4dv_get_cqe_owner(c) == !!(ci & dc.cqe_cnt)) {
			cqe = c;
			break;
		}
		ibv_poll_cq(b.rcq, 0, &wc); /* progress */
		usleep(1000);
	}
	if (cqe == NULL)
		goto out;
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (mlx4dv_get_cqe_opcode(cqe) != MLX4_OPCODE_SEND ||
	    !(cqe->owner_sr_opcode & MLX4_CQE_IS_SEND_MASK) ||
	    be16toh(cqe->wqe_index) != 0 || be32toh(cqe->byte_cnt) != 7 ||
	    (be32toh(cqe->vlan_my_qpn) & MLX4_CQE_QPN_MASK) != a.qp->qp_num) {
		DPV_TEST_LOG("cqe: op %#x wqe %u len %u",
			     cqe->owner_sr_opcode, be16toh(cqe->wqe_index),
			     be32toh(cqe->byte_cnt));
		goto out;
	}
	ci++;
	*dc.set_ci_db = htobe32(ci & 0xffffff);
	rc = TEST_SUCCESS;
out:
	side_free(&a);
	side_free(&b);
	return rc;
}

/* Is CQE index idx of an mlx4 CQ written (its owner bit says so)? */
static bool
cqe_ready(const struct mlx4dv_cq *dc, uint32_t idx)
{
	const struct mlx4_cqe *c = (const struct mlx4_cqe *)dc->buf.buf +
				   (idx & (dc->cqe_cnt - 1));

	return !!mlx4dv_get_cqe_owner((struct mlx4_cqe *)(uintptr_t)c) ==
	       !!(idx & dc->cqe_cnt);
}

static int
cq_view(struct ibv_cq *cq, struct mlx4dv_cq *dc)
{
	struct mlx4dv_obj o = {.cq = {cq, dc}};

	memset(dc, 0, sizeof(*dc));
	return dpv_mlx4dv_init_obj(&o, MLX4DV_OBJ_CQ);
}

/* n signalled SENDs of one byte from a to b, wr_ids id0.. */
static int
send_n(struct side *a, struct side *b, int n, uint64_t id0)
{
	for (int i = 0; i < n; i++) {
		struct ibv_send_wr w = {.wr_id = id0 + i, .opcode = IBV_WR_SEND};

		if (post_recv(b, 500 + id0 + i, 0, 64) || post(a, &w, i, 1))
			return -1;
	}
	return 0;
}

/* ibv_resize_cq of an mlx4 CQ: unpolled CQEs move to the new ring in
 * order with the owner bits of the new size (read by hand through the
 * new mlx4dv_cq view), growing and shrinking; fewer entries than are
 * pending is refused and changes nothing; the new ring wraps. */
static int
test_mlx4_resize(void)
{
	struct side a, b;
	struct mlx4dv_cq d0, d1;
	struct ibv_wc wc[8];
	uint64_t next = 0;
	int rc = TEST_FAILED, n;

	TEST_ASSERT_EQUAL(side_init(&a, IBV_QPT_RC, 16, 7, NULL), 0, "init a");
	TEST_ASSERT_EQUAL(side_init(&b, IBV_QPT_RC, 16, 64, NULL), 0, "init b");
	if (pair_connect(&a, &b) || cq_view(a.scq, &d0) || d0.cqe_cnt != 8)
		goto out;
	/* 6 send CQEs in a CQ of 8: poll 2, leave 4 */
	if (send_n(&a, &b, 6, 0))
		goto out;
	for (int i = 0; i < 3000 && !cqe_ready(&d0, 5); i++) {
		ibv_poll_cq(b.rcq, 0, wc); /* progress */
		usleep(1000);
	}
	if (!cqe_ready(&d0, 5) || ibv_poll_cq(a.scq, 2, wc) != 2 ||
	    wc[0].wr_id != 0 || wc[1].wr_id != 1)
		goto out;
	next = 2;
	/* fewer entries than the 4 pending: refused, nothing changed */
	if (ibv_resize_cq(a.scq, 3) != EINVAL || a.scq->cqe != 7 ||
	    cq_view(a.scq, &d1) || d1.buf.buf != d0.buf.buf)
		goto out;
	/* grow to 64: a new buffer of 128 entries, CQEs 2..5 in their slots
	 * with owner bit 0 (the first lap of the new size) */
	if (ibv_resize_cq(a.scq, 64) != 0 || a.scq->cqe != 127 ||
	    cq_view(a.scq, &d1) || d1.buf.buf == d0.buf.buf ||
	    d1.cqe_cnt != 128 || d1.buf.length != 128 * 32 ||
	    d1.set_ci_db != d0.set_ci_db)
		goto out;
	for (uint32_t i = 2; i < 6; i++) {
		const struct mlx4_cqe *c = (const struct mlx4_cqe *)d1.buf.buf + i;

		if (!cqe_ready(&d1, i) || be16toh(c->wqe_index) != i ||
		    (c->owner_sr_opcode & MLX4_CQE_OWNER_MASK))
			goto out;
	}
	if (cqe_ready(&d1, 6))
		goto out;
	/* the 4 come out of ibv_poll_cq in order */
	n = test_loop_wait_wc(a.scq, wc, 4, WAIT_MS);
	if (n != 4)
		goto out;
	for (int i = 0; i < 4; i++)
		if (wc[i].status || wc[i].wr_id != next++)
			goto out;
	/* shrink to 4 (8 entries) with 3 pending, the second lap of the old
	 * ring's indexes: each takes the owner bit of its new slot */
	if (send_n(&a, &b, 3, next))
		goto out;
	for (int i = 0; i < 3000 && !cqe_ready(&d1, 8); i++) {
		ibv_poll_cq(b.rcq, 0, wc);
		usleep(1000);
	}
	if (!cqe_ready(&d1, 8) || ibv_resize_cq(a.scq, 4) != 0 ||
	    a.scq->cqe != 7 || cq_view(a.scq, &d0) || d0.cqe_cnt != 8 ||
	    !cqe_ready(&d0, 6) || !cqe_ready(&d0, 8) || cqe_ready(&d0, 9) ||
	    !(((const struct mlx4_cqe *)d0.buf.buf)[0].owner_sr_opcode &
	      MLX4_CQE_OWNER_MASK))
		goto out;
	if (test_loop_wait_wc(a.scq, wc, 3, WAIT_MS) != 3)
		goto out;
	for (int i = 0; i < 3; i++)
		if (wc[i].status || wc[i].wr_id != next++)
			goto out;
	/* the resized ring wraps: 20 rounds of 6 */
	for (int r = 0; r < 20; r++) {
		if (send_n(&a, &b, 6, next))
			goto out;
		if (test_loop_wait_wc(a.scq, wc, 6, WAIT_MS) != 6)
			goto out;
		for (int i = 0; i < 6; i++)
			if (wc[i].status || wc[i].wr_id != next++)
				goto out;
		/* the receives, so b's CQ does not overrun */
		for (int i = 0; i < 6; i++)
			if (wait1(b.rcq, wc))
				goto out;
	}
	rc = TEST_SUCCESS;
out:
	if (rc != TEST_SUCCESS)
		DPV_TEST_LOG("resize: expected wr_id %lu, cqe %d",
			     (unsigned long)next, a.scq ? a.scq->cqe : -1);
	side_free(&a);
	side_free(&b);
	return rc;
}

/* XRC: an XRC send QP whose WQEs carry the SRQ number in srcrb_flags
 * (bits 8..31, read by hand), a target QP numbered with ConnectX-3's XRC
 * bit, SENDs (inline, with immediate) and a WRITE into an XRC SRQ; the
 * receive CQE (read by hand) names the SRQ in g_mlpath_rqpn; a request
 * for an SRQ that does not exist fails. */
static int
test_mlx4_xrc(void)
{
	struct ibv_xrcd_init_attr xa = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.fd = -1,
		.oflags = O_CREAT,
	};
	struct ibv_srq_init_attr_ex sx = {
		.attr = {.max_wr = 16, .max_sge = 1},
		.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
			     IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ,
		.srq_type = IBV_SRQT_XRC,
	};
	struct ibv_qp_init_attr_ex sa = {
		.qp_type = IBV_QPT_XRC_SEND,
		.cap = {.max_send_wr = 16, .max_send_sge = 1,
			.max_inline_data = 64},
		.comp_mask = IBV_QP_INIT_ATTR_PD,
	};
	struct ibv_qp_init_attr_ex ta = {
		.qp_type = IBV_QPT_XRC_RECV,
		.comp_mask = IBV_QP_INIT_ATTR_XRCD,
	};
	struct ibv_xrcd *xrcd = NULL;
	struct ibv_srq *srq = NULL;
	struct ibv_qp *sq = NULL, *tq = NULL;
	struct ibv_cq *scq = NULL, *rcq = NULL;
	struct ibv_mr *mr = NULL;
	uint8_t *buf = aligned_alloc(64, BUF);
	struct mlx4dv_qp dq = {0};
	struct mlx4dv_cq dc = {0};
	struct mlx4dv_obj o = {.qp = {NULL, &dq}, .cq = {NULL, &dc}};
	const struct mlx4_wqe_ctrl_seg *ctrl;
	const struct mlx4_cqe *cqe;
	struct ibv_wc wc;
	union ibv_gid gid;
	uint32_t srqn = 0;
	int gi = test_loop_gid(ctx, &gid), rc = TEST_FAILED;

	memset(&wc, 0, sizeof(wc));
	TEST_ASSERT(gi >= 0 && buf != NULL, "gid, buffer");
	memset(buf, 0, BUF);
	xrcd = ibv_open_xrcd(ctx, &xa);
	scq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	rcq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	mr = ibv_reg_mr(pd, buf, BUF,
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!xrcd || !scq || !rcq || !mr) {
		DPV_TEST_LOG("xrcd/cq/mr: %s", strerror(errno));
		goto out;
	}
	sx.pd = pd;
	sx.xrcd = xrcd;
	sx.cq = rcq;
	srq = ibv_create_srq_ex(ctx, &sx);
	if (srq == NULL || ibv_get_srq_num(srq, &srqn)) {
		DPV_TEST_LOG("XRC SRQ: %s", strerror(errno));
		goto out;
	}
	sa.pd = pd;
	sa.send_cq = scq;
	sq = ibv_create_qp_ex(ctx, &sa);
	ta.xrcd = xrcd;
	tq = ibv_create_qp_ex(ctx, &ta);
	if (sq == NULL || tq == NULL) {
		DPV_TEST_LOG("XRC QPs: %s", strerror(errno));
		goto out;
	}
	/* ConnectX-3's numbering: the XRC bit on the target only */
	if (!(tq->qp_num & (1u << 23)) || (sq->qp_num & (1u << 23))) {
		DPV_TEST_LOG("qpn: target %#x, send %#x", tq->qp_num,
			     sq->qp_num);
		goto out;
	}
	{
		struct test_loop_conn cs = {.dest_qpn = tq->qp_num,
					    .sq_psn = 300, .rq_psn = 400,
					    .mtu = IBV_MTU_1024, .timeout = 14,
					    .rd_atomic = 4};
		struct test_loop_conn ct = {.dest_qpn = sq->qp_num,
					    .sq_psn = 400, .rq_psn = 300,
					    .mtu = IBV_MTU_1024, .timeout = 14,
					    .rd_atomic = 4};

		int e1 = test_loop_connect(sq, gi, &cs);
		int e2 = test_loop_connect(tq, gi, &ct);

		if (e1 || e2) {
			DPV_TEST_LOG("connect: %d %d", e1, e2);
			goto out;
		}
	}
	for (int i = 0; i < 3; i++) {
		struct ibv_sge sge = {(uintptr_t)buf + 1024 + 256 * i, 256,
				      mr->lkey};
		struct ibv_recv_wr w = {.wr_id = 60 + i, .sg_list = &sge,
					.num_sge = 1};
		struct ibv_recv_wr *bad;

		if (ibv_post_srq_recv(srq, &w, &bad))
			goto out;
	}
	o.qp.in = sq;
	o.cq.in = rcq;
	if (dpv_mlx4dv_init_obj(&o, MLX4DV_OBJ_QP | MLX4DV_OBJ_CQ) ||
	    dq.rq.wqe_cnt != 0) {
		DPV_TEST_LOG("views: rq %u", dq.rq.wqe_cnt);
		goto out;
	}
	/* SEND: WQE 0's control segment carries the SRQ number */
	memcpy(buf, "xrc one", 7);
	{
		struct ibv_sge sge = {(uintptr_t)buf, 7, mr->lkey};
		struct ibv_send_wr w = {.wr_id = 70, .opcode = IBV_WR_SEND,
					.sg_list = &sge, .num_sge = 1,
					.send_flags = IBV_SEND_SIGNALED};
		struct ibv_send_wr *bad;

		w.qp_type.xrc.remote_srqn = srqn;
		if (ibv_post_send(sq, &w, &bad))
			goto out;
	}
	ctrl = (const void *)((const uint8_t *)dq.buf.buf + dq.sq.offset);
	if ((be32toh(ctrl->srcrb_flags) >> 8) != srqn ||
	    (be32toh(ctrl->owner_opcode) & 0x1f) != MLX4_OPCODE_SEND) {
		DPV_TEST_LOG("ctrl: srcrb_flags %#x, srqn %#x",
			     be32toh(ctrl->srcrb_flags), srqn);
		goto out;
	}
	if (wait1(scq, &wc) || wc.status || wc.wr_id != 70)
		goto out;
	/* the receive CQE by hand: the target's number, the SRQ's */
	for (int i = 0; i < 3000 && !cqe_ready(&dc, 0); i++) {
		ibv_poll_cq(scq, 0, &wc); /* progress */
		usleep(1000);
	}
	cqe = dc.buf.buf;
	if (!cqe_ready(&dc, 0) ||
	    (be32toh(cqe->vlan_my_qpn) & MLX4_CQE_QPN_MASK) != tq->qp_num ||
	    (be32toh(cqe->g_mlpath_rqpn) & 0xffffff) != srqn ||
	    (cqe->owner_sr_opcode & MLX4_CQE_IS_SEND_MASK) ||
	    be32toh(cqe->byte_cnt) != 7) {
		DPV_TEST_LOG("recv cqe: qpn %#x g %#x op %#x",
			     be32toh(cqe->vlan_my_qpn),
			     be32toh(cqe->g_mlpath_rqpn), cqe->owner_sr_opcode);
		goto out;
	}
	/* and through ibv_poll_cq: the SRQ's WQE, src_qp the SRQ number as
	 * ConnectX-3's provider reports it */
	if (wait1(rcq, &wc) || wc.status || wc.wr_id != 60 ||
	    wc.byte_len != 7 || wc.qp_num != tq->qp_num || wc.src_qp != srqn ||
	    memcmp(buf + 1024, "xrc one", 7))
		goto out;
	/* inline SEND with immediate, WRITE with immediate */
	memcpy(buf + 100, "xrc inline", 10);
	{
		struct ibv_sge sge = {(uintptr_t)buf + 100, 10, mr->lkey};
		struct ibv_send_wr w2 = {.wr_id = 72,
					 .opcode = IBV_WR_RDMA_WRITE_WITH_IMM,
					 .sg_list = &sge, .num_sge = 1,
					 .imm_data = htobe32(0x77),
					 .send_flags = IBV_SEND_SIGNALED};
		struct ibv_send_wr w = {.wr_id = 71,
					.opcode = IBV_WR_SEND_WITH_IMM,
					.sg_list = &sge, .num_sge = 1,
					.imm_data = htobe32(0x1234),
					.send_flags = IBV_SEND_SIGNALED |
						      IBV_SEND_INLINE,
					.next = &w2};
		struct ibv_send_wr *bad;

		w.qp_type.xrc.remote_srqn = srqn;
		w2.qp_type.xrc.remote_srqn = srqn;
		w2.wr.rdma.remote_addr = (uintptr_t)buf + 3000;
		w2.wr.rdma.rkey = mr->rkey;
		if (ibv_post_send(sq, &w, &bad))
			goto out;
	}
	if (wait1(scq, &wc) || wc.status || wc.wr_id != 71 ||
	    wait1(scq, &wc) || wc.status || wc.wr_id != 72 ||
	    wc.opcode != IBV_WC_RDMA_WRITE)
		goto out;
	if (wait1(rcq, &wc) || wc.status || wc.wr_id != 61 ||
	    !(wc.wc_flags & IBV_WC_WITH_IMM) ||
	    wc.imm_data != htobe32(0x1234) ||
	    memcmp(buf + 1024 + 256, "xrc inline", 10))
		goto out;
	if (wait1(rcq, &wc) || wc.status || wc.wr_id != 62 ||
	    wc.opcode != IBV_WC_RECV_RDMA_WITH_IMM ||
	    wc.imm_data != htobe32(0x77) || memcmp(buf + 3000, "xrc inline", 10))
		goto out;
	/* an SRQ number that does not exist: the request fails */
	{
		struct ibv_sge sge = {(uintptr_t)buf, 1, mr->lkey};
		struct ibv_send_wr w = {.wr_id = 73, .opcode = IBV_WR_SEND,
					.sg_list = &sge, .num_sge = 1,
					.send_flags = IBV_SEND_SIGNALED};
		struct ibv_send_wr *bad;

		w.qp_type.xrc.remote_srqn = srqn ^ 0x4000;
		if (ibv_post_send(sq, &w, &bad))
			goto out;
	}
	if (wait1(scq, &wc) || wc.wr_id != 73 || wc.status == IBV_WC_SUCCESS)
		goto out;
	rc = TEST_SUCCESS;
out:
	if (rc != TEST_SUCCESS)
		DPV_TEST_LOG("xrc: last wc id %lu status %d opcode %d len %u",
			     (unsigned long)wc.wr_id, wc.status, wc.opcode,
			     wc.byte_len);
	if (sq)
		ibv_destroy_qp(sq);
	if (tq)
		ibv_destroy_qp(tq);
	if (srq)
		ibv_destroy_srq(srq);
	if (mr)
		ibv_dereg_mr(mr);
	if (scq)
		ibv_destroy_cq(scq);
	if (rcq)
		ibv_destroy_cq(rcq);
	if (xrcd)
		ibv_close_xrcd(xrcd);
	free(buf);
	return rc;
}

/* Raw packets: an IPv4/UDP frame with zero checksums sent with
 * IBV_SEND_IP_CSUM from two SGEs (the MAC split between them), its WQE
 * read by hand (ConnectX-3's srcrb_flags: no-ICRC, checksum flags, MAC
 * bytes 0-1; imm: MAC bytes 2-5), received back through a flow with
 * valid checksums; an inline frame; a frame shorter than the Ethernet
 * header refused; TSO neither advertised nor accepted, RSS advertised. */
static int
test_mlx4_raw(void)
{
	struct ibv_cq *cq = ibv_create_cq(ctx, 32, NULL, NULL, 0);
	struct ibv_qp *qp = NULL;
	struct ibv_flow *flow = NULL;
	struct ibv_mr *mr = NULL;
	uint8_t *buf = aligned_alloc(64, 8192);
	struct frame_desc fd = {.dmac = rt_mac_a, .ether_type = 0x0800,
				.sip = 0x0a000001, .dip = 0x0a000002,
				.sport = 1000, .dport = 2000, .paylen = 100,
				.seed = 3};
	struct mlx4dv_qp dq = {0};
	struct mlx4dv_obj o = {.qp = {NULL, &dq}};
	const struct mlx4_wqe_ctrl_seg *ctrl;
	struct ibv_device_attr_ex dx;
	struct ibv_wc wc[4];
	uint32_t len, fl;
	int rc = TEST_FAILED, n = 0;

	memset(wc, 0, sizeof(wc));
	TEST_ASSERT(cq != NULL && buf != NULL, "cq, buffer");
	memset(buf, 0, 8192);
	mr = ibv_reg_mr(pd, buf, 8192, IBV_ACCESS_LOCAL_WRITE);
	qp = mr ? rt_raw_qp_ex(pd, cq, 0, true) : NULL;
	flow = qp ? rt_flow_eth(qp, rt_mac_a, 0, 0) : NULL;
	if (flow == NULL) {
		DPV_TEST_LOG("raw QP / flow: %s", strerror(errno));
		goto out;
	}
	len = rt_build_frame(buf, &fd);
	for (int i = 0; i < 2; i++) {
		struct ibv_sge sge = {(uintptr_t)buf + 4096 + 2048 * i, 2048,
				      mr->lkey};
		struct ibv_recv_wr w = {.wr_id = 80 + i, .sg_list = &sge,
					.num_sge = 1};
		struct ibv_recv_wr *bad;

		if (ibv_post_recv(qp, &w, &bad))
			goto out;
	}
	{
		struct ibv_sge sge[2] = {{(uintptr_t)buf, 4, mr->lkey},
					 {(uintptr_t)buf + 4, len - 4,
					  mr->lkey}};
		struct ibv_send_wr w = {.wr_id = 90, .opcode = IBV_WR_SEND,
					.sg_list = sge, .num_sge = 2,
					.send_flags = IBV_SEND_SIGNALED |
						      IBV_SEND_IP_CSUM};
		struct ibv_send_wr *bad;

		if (ibv_post_send(qp, &w, &bad))
			goto out;
		/* shorter than an Ethernet header */
		sge[0].length = 13;
		w.num_sge = 1;
		if (ibv_post_send(qp, &w, &bad) != EINVAL || bad != &w)
			goto out;
	}
	o.qp.in = qp;
	if (dpv_mlx4dv_init_obj(&o, MLX4DV_OBJ_QP))
		goto out;
	ctrl = (const void *)((const uint8_t *)dq.buf.buf + dq.sq.offset);
	fl = be32toh(ctrl->srcrb_flags);
	if ((be32toh(ctrl->owner_opcode) & 0x1f) != MLX4_OPCODE_SEND ||
	    !(fl & MLX4_WQE_CTRL_SOLICIT) ||
	    !(fl & MLX4_WQE_CTRL_IP_HDR_CSUM) ||
	    !(fl & MLX4_WQE_CTRL_TCP_UDP_CSUM) ||
	    (fl >> 16) != ((uint32_t)rt_mac_a[0] << 8 | rt_mac_a[1]) ||
	    memcmp(&ctrl->imm, rt_mac_a + 2, 4)) {
		DPV_TEST_LOG("ctrl: srcrb_flags %#x", fl);
		goto out;
	}
	n = drain_ms(cq, wc, 2, WAIT_MS);
	for (int i = 0; i < n; i++) {
		const uint8_t *ip = buf + 4096 + 14;

		if (wc[i].status != IBV_WC_SUCCESS)
			goto out;
		if (wc[i].wr_id == 90 && wc[i].opcode == IBV_WC_SEND)
			continue;
		if (wc[i].wr_id != 80 || wc[i].byte_len != len ||
		    wc[i].opcode != IBV_WC_RECV || wc[i].qp_num != qp->qp_num ||
		    memcmp(buf + 4096, buf, 14) ||
		    memcmp(buf + 4096 + 42, buf + 42, 100) ||
		    fold(sum16(ip, 20, 0)) != 0xffff || !l4_ok_v4(ip) ||
		    !(wc[i].wc_flags & IBV_WC_IP_CSUM_OK)) {
			DPV_TEST_LOG("recv: id %lu len %u flags %#x",
				     (unsigned long)wc[i].wr_id,
				     wc[i].byte_len, wc[i].wc_flags);
			goto out;
		}
	}
	if (n != 2)
		goto out;
	/* an inline frame, no checksum asked for */
	fd.ether_type = 0x88b5;
	fd.paylen = 46;
	fd.seed = 9;
	len = rt_build_frame(buf + 1024, &fd);
	{
		struct ibv_sge sge = {(uintptr_t)buf + 1024, len, 0};
		struct ibv_send_wr w = {.wr_id = 91, .opcode = IBV_WR_SEND,
					.sg_list = &sge, .num_sge = 1,
					.send_flags = IBV_SEND_SIGNALED |
						      IBV_SEND_INLINE};
		struct ibv_send_wr *bad;

		if (ibv_post_send(qp, &w, &bad))
			goto out;
	}
	n = drain_ms(cq, wc, 2, WAIT_MS);
	if (n != 2)
		goto out;
	for (int i = 0; i < 2; i++)
		if (wc[i].status ||
		    (wc[i].wr_id == 81 &&
		     (wc[i].byte_len != len ||
		      memcmp(buf + 4096 + 2048, buf + 1024, len))) ||
		    (wc[i].wr_id != 81 && wc[i].wr_id != 91))
			goto out;
	/* TSO: not on this device; RSS and WQs: yes (test_mlx4_rss) */
	if (ibv_query_device_ex(ctx, NULL, &dx) || dx.tso_caps.max_tso ||
	    !(dx.rss_caps.supported_qpts & (1u << IBV_QPT_RAW_PACKET)) ||
	    dx.max_wq_type_rq == 0)
		goto out;
	{
		struct ibv_qp_init_attr_ex x = {
			.qp_type = IBV_QPT_RAW_PACKET, .send_cq = cq,
			.recv_cq = cq, .pd = pd,
			.cap = {.max_send_wr = 4, .max_recv_wr = 4,
				.max_send_sge = 1, .max_recv_sge = 1},
			.comp_mask = IBV_QP_INIT_ATTR_PD |
				     IBV_QP_INIT_ATTR_MAX_TSO_HEADER,
			.max_tso_header = 64,
		};

		errno = 0;
		if (ibv_create_qp_ex(ctx, &x) != NULL || errno != EOPNOTSUPP)
			goto out;
	}
	rc = TEST_SUCCESS;
out:
	if (rc != TEST_SUCCESS)
		DPV_TEST_LOG("raw: %d completions, first id %lu status %d", n,
			     (unsigned long)wc[0].wr_id, wc[0].status);
	if (flow)
		ibv_destroy_flow(flow);
	if (qp)
		ibv_destroy_qp(qp);
	if (mr)
		ibv_dereg_mr(mr);
	if (cq)
		ibv_destroy_cq(cq);
	free(buf);
	return rc;
}

/* ---- receive WQs, indirection tables and RSS QPs ---- */

#define NWQ 4
#define RSLOT 256

static const uint8_t rss_key[40] = {
	0x2c, 0xc6, 0x81, 0xd1, 0x5b, 0xdb, 0xf4, 0xf7, 0xfc, 0xa2,
	0x83, 0x19, 0xdb, 0x1a, 0x3e, 0x94, 0x6b, 0x9e, 0x38, 0xd9,
	0x2c, 0x9c, 0x03, 0xd1, 0xad, 0x99, 0x44, 0xa7, 0xd9, 0x56,
	0x3d, 0x59, 0x06, 0x3c, 0x25, 0xf3, 0xfc, 0x1f, 0xdc, 0x2a,
};

struct rss_env {
	struct ibv_cq *cq[NWQ], *scq;
	struct ibv_wq *wq[NWQ];
	struct ibv_rwq_ind_table *ind;
	struct ibv_qp *rss, *tx;
	struct ibv_flow *fl;
	struct ibv_mr *mr;
	uint8_t *buf; /* NWQ * 16 receive slots, then 16 send slots */
};

static void
rss_env_free(struct rss_env *e)
{
	if (e->fl)
		ibv_destroy_flow(e->fl);
	if (e->rss)
		ibv_destroy_qp(e->rss);
	if (e->tx)
		ibv_destroy_qp(e->tx);
	if (e->ind)
		ibv_destroy_rwq_ind_table(e->ind);
	for (int i = 0; i < NWQ; i++) {
		if (e->wq[i])
			ibv_destroy_wq(e->wq[i]);
		if (e->cq[i])
			ibv_destroy_cq(e->cq[i]);
	}
	if (e->scq)
		ibv_destroy_cq(e->scq);
	if (e->mr)
		ibv_dereg_mr(e->mr);
	free(e->buf);
}

/* Receive WQE slot of WQ w by hand into its mlx4dv_rwq buffer: one data
 * segment and, when there is room, the terminating one (lkey 0x100). */
static void
rwq_write(const struct mlx4dv_rwq *v, uint32_t head, uint64_t addr,
	  uint32_t len, uint32_t lkey)
{
	struct mlx4_wqe_data_seg *d =
		(void *)((uint8_t *)v->buf.buf + v->rq.offset +
			 ((size_t)(head & (v->rq.wqe_cnt - 1)) << v->rq.wqe_shift));

	d[0].byte_count = htobe32(len);
	d[0].lkey = htobe32(lkey);
	d[0].addr = htobe64(addr);
	if ((1u << v->rq.wqe_shift) > sizeof(*d)) {
		d[1].byte_count = 0;
		d[1].lkey = htobe32(MLX4_INVALID_LKEY);
		d[1].addr = 0;
	}
}

/* Toeplitz over source IP, destination IP, source and destination port */
static uint32_t
rss_expect(const struct frame_desc *d)
{
	uint32_t t[3] = {d->sip, d->dip, (uint32_t)d->sport << 16 | d->dport};

	return rte_softrss(t, 3, rss_key);
}

/* Four receive WQs (mlx4 RQ format, CQs in the mlx4 format), an
 * indirection table over them and an RSS raw-packet QP: 32 UDP frames
 * land on the WQ their Toeplitz hash picks, as mlx4 CQEs (owner bits
 * read by hand, the WQ's number in the CQE); WQ 0 is posted by hand
 * through mlx4dv_init_obj(MLX4DV_OBJ_RWQ) (data segments, doorbell
 * record); a WQ in ERR flushes; busy WQs and tables refuse destruction. */
static int
test_mlx4_rss(void)
{
	struct rss_env e;
	struct mlx4dv_rwq rv = {0};
	struct mlx4dv_obj o = {.rwq = {NULL, &rv}};
	int expect[NWQ] = {0}, got[NWQ] = {0}, want[32];
	struct ibv_wc wc[40];
	uint8_t key[40];
	int rc = TEST_FAILED, n;

	memset(&e, 0, sizeof(e));
	memcpy(key, rss_key, sizeof(key));
	e.buf = aligned_alloc(64, (NWQ + 1) * 16 * RSLOT);
	e.scq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	TEST_ASSERT(e.buf != NULL && e.scq != NULL, "buffer, cq");
	memset(e.buf, 0, (NWQ + 1) * 16 * RSLOT);
	e.mr = ibv_reg_mr(pd, e.buf, (NWQ + 1) * 16 * RSLOT,
			  IBV_ACCESS_LOCAL_WRITE);
	if (e.mr == NULL)
		goto out;
	for (int i = 0; i < NWQ; i++) {
		struct ibv_wq_init_attr wa = {.wq_type = IBV_WQT_RQ,
					      .max_wr = 16, .max_sge = 1,
					      .pd = pd};
		struct ibv_wq_attr m = {.attr_mask = IBV_WQ_ATTR_STATE,
					.wq_state = IBV_WQS_RDY};

		e.cq[i] = ibv_create_cq(ctx, 32, NULL, NULL, 0);
		if (e.cq[i] == NULL)
			goto out;
		wa.cq = e.cq[i];
		e.wq[i] = ibv_create_wq(ctx, &wa);
		if (e.wq[i] == NULL) {
			DPV_TEST_LOG("create_wq: %s", strerror(errno));
			goto out;
		}
		for (int j = 0; j < 16 && i > 0; j++) {
			struct ibv_sge sge = {(uintptr_t)e.buf +
						      (i * 16 + j) * RSLOT,
					      RSLOT, e.mr->lkey};
			struct ibv_recv_wr w = {.wr_id = (uint64_t)(i * 16 + j),
						.sg_list = &sge, .num_sge = 1};
			struct ibv_recv_wr *bad;

			if (ibv_post_wq_recv(e.wq[i], &w, &bad))
				goto out;
		}
		if (ibv_modify_wq(e.wq[i], &m))
			goto out;
	}
	/* WQ 0 by hand: the RQ buffer, its stride and doorbell record */
	o.rwq.in = e.wq[0];
	if (dpv_mlx4dv_init_obj(&o, MLX4DV_OBJ_RWQ) || rv.buf.buf == NULL ||
	    rv.rdb == NULL || rv.rq.wqe_cnt < 16 || rv.rq.offset != 0 ||
	    rv.rq.wqe_shift < 4 ||
	    rv.buf.length != (size_t)rv.rq.wqe_cnt << rv.rq.wqe_shift) {
		DPV_TEST_LOG("rwq view: cnt %u shift %d len %zu",
			     rv.rq.wqe_cnt, rv.rq.wqe_shift, rv.buf.length);
		goto out;
	}
	for (uint32_t j = 0; j < 16; j++)
		rwq_write(&rv, j, (uintptr_t)e.buf + j * RSLOT, RSLOT,
			  e.mr->lkey);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	*rv.rdb = htobe32(16);

	{
		struct ibv_rwq_ind_table_init_attr ia = {.log_ind_tbl_size = 2,
							 .ind_tbl = e.wq};
		struct ibv_qp_init_attr_ex qa = {
			.qp_type = IBV_QPT_RAW_PACKET,
			.comp_mask = IBV_QP_INIT_ATTR_PD |
				     IBV_QP_INIT_ATTR_IND_TABLE |
				     IBV_QP_INIT_ATTR_RX_HASH,
			.pd = pd,
			.rx_hash_conf = {
				.rx_hash_function = IBV_RX_HASH_FUNC_TOEPLITZ,
				.rx_hash_key_len = 40,
				.rx_hash_key = key,
				.rx_hash_fields_mask =
					IBV_RX_HASH_SRC_IPV4 |
					IBV_RX_HASH_DST_IPV4 |
					IBV_RX_HASH_SRC_PORT_UDP |
					IBV_RX_HASH_DST_PORT_UDP}};

		e.ind = ibv_create_rwq_ind_table(ctx, &ia);
		if (e.ind == NULL)
			goto out;
		qa.rwq_ind_tbl = e.ind;
		{
			/* ConnectX-3 Pro: inner hashing with no tunnel
			 * offload flag (on mlx5 rings: EOPNOTSUPP) */
			struct ibv_qp *iq;

			qa.rx_hash_conf.rx_hash_fields_mask |=
				IBV_RX_HASH_INNER;
			iq = ibv_create_qp_ex(ctx, &qa);
			qa.rx_hash_conf.rx_hash_fields_mask &=
				~(uint64_t)IBV_RX_HASH_INNER;
			if (iq == NULL || ibv_destroy_qp(iq) != 0) {
				DPV_TEST_LOG("inner RSS QP: %s",
					     strerror(errno));
				goto out;
			}
		}
		e.rss = ibv_create_qp_ex(ctx, &qa);
		if (e.rss == NULL) {
			DPV_TEST_LOG("RSS QP: %s", strerror(errno));
			goto out;
		}
	}
	if (dpv_qp_raw_self_loopback(e.rss, 1, 0) || rt_to_rts(e.rss) ||
	    ibv_destroy_wq(e.wq[1]) != EBUSY ||
	    ibv_destroy_rwq_ind_table(e.ind) != EBUSY)
		goto out;
	e.fl = rt_flow_ip_udp(e.rss, 0xc0000263, 0, 0);
	e.tx = e.fl ? rt_raw_qp_ex(pd, e.scq, 0, false) : NULL;
	if (e.tx == NULL)
		goto out;
	for (int k = 0; k < 32; k++) {
		struct frame_desc d = {.dmac = rt_mac_a, .ether_type = 0x0800,
				       .sip = 0xc0000201 + (k % 5),
				       .dip = 0xc0000263,
				       .sport = (uint16_t)(1000 + 37 * k),
				       .dport = (uint16_t)(5000 + k % 3),
				       .paylen = 32, .seed = (uint8_t)k};
		uint8_t *f = e.buf + (NWQ * 16 + k % 16) * RSLOT;
		uint32_t len = rt_build_frame(f, &d);
		struct ibv_sge sge = {(uintptr_t)f, len, e.mr->lkey};
		struct ibv_send_wr w = {.wr_id = (uint64_t)k,
					.opcode = IBV_WR_SEND,
					.sg_list = &sge, .num_sge = 1,
					.send_flags = IBV_SEND_SIGNALED};
		struct ibv_send_wr *bad;

		want[k] = (int)(rss_expect(&d) & (NWQ - 1));
		expect[want[k]]++;
		if (ibv_post_send(e.tx, &w, &bad))
			goto out;
		if (k % 16 == 15 && drain_ms(e.scq, wc, 16, WAIT_MS) != 16)
			goto out;
	}
	for (int i = 0; i < NWQ; i++) {
		struct mlx4dv_cq dc;
		int k;

		/* the first CQE read by hand: an mlx4 receive CQE naming the
		 * WQ, owned by software */
		if (expect[i] > 0) {
			const struct mlx4_cqe *c;

			if (cq_view(e.cq[i], &dc))
				goto out;
			for (int t = 0; t < WAIT_MS && !cqe_ready(&dc, 0); t++)
				usleep(1000);
			c = dc.buf.buf;
			if (!cqe_ready(&dc, 0) ||
			    (be32toh(c->vlan_my_qpn) & 0xffffff) !=
				    e.wq[i]->wq_num ||
			    (c->owner_sr_opcode & MLX4_CQE_IS_SEND_MASK) ||
			    (c->owner_sr_opcode & MLX4_CQE_OPCODE_MASK) !=
				    MLX4_RECV_OPCODE_SEND ||
			    be32toh(c->byte_cnt) != 14 + 28 + 32) {
				DPV_TEST_LOG("WQ %d: CQE qpn %#x op %#x", i,
					     be32toh(c->vlan_my_qpn),
					     c->owner_sr_opcode);
				goto out;
			}
		}
		n = expect[i] ? drain_ms(e.cq[i], wc, expect[i], WAIT_MS) : 0;
		for (int j = 0; j < n; j++) {
			if (wc[j].status != IBV_WC_SUCCESS ||
			    wc[j].qp_num != e.wq[i]->wq_num ||
			    wc[j].opcode != IBV_WC_RECV ||
			    wc[j].byte_len != 14 + 28 + 32 ||
			    wc[j].wr_id / 16 != (uint64_t)i)
				goto out;
			/* which frame: the payload's seed is its index */
			k = e.buf[wc[j].wr_id * RSLOT + 42];
			if (k >= 32 || want[k] != i) {
				DPV_TEST_LOG("frame %d on WQ %d", k, i);
				goto out;
			}
		}
		got[i] = n;
	}
	for (int i = 0; i < NWQ; i++)
		if (got[i] != expect[i]) {
			DPV_TEST_LOG("WQ %d: expected %d got %d", i, expect[i],
				     got[i]);
			goto out;
		}
	if (expect[0] == 0 || expect[0] == 32)
		goto out; /* the key spreads these frames over WQ 0 and others */
	/* WQ 3 in ERR: its unused receives flush */
	{
		struct ibv_wq_attr m = {.attr_mask = IBV_WQ_ATTR_STATE,
					.wq_state = IBV_WQS_ERR};

		if (ibv_modify_wq(e.wq[3], &m))
			goto out;
		n = drain_ms(e.cq[3], wc, 16 - got[3], WAIT_MS);
		if (n != 16 - got[3])
			goto out;
		for (int j = 0; j < n; j++)
			if (wc[j].status != IBV_WC_WR_FLUSH_ERR)
				goto out;
	}
	rc = TEST_SUCCESS;
out:
	rss_env_free(&e);
	return rc;
}

/* MLX4DV_SET_CTX_ATTR_LOG_WQS_RANGE_SZ (dpv_mlx4dv_set_log_wqs_range):
 * too large refused; with ranges of 4, WQs created after one that took
 * the first number start at the next aligned number and follow it. */
static int
test_mlx4_wq_range(void)
{
	struct ibv_cq *cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	struct ibv_wq_init_attr wa = {.wq_type = IBV_WQT_RQ, .max_wr = 4,
				      .max_sge = 1, .pd = pd, .cq = cq};
	struct ibv_wq *w[5] = {NULL};
	int rc = TEST_FAILED;

	TEST_ASSERT_NOT_NULL(cq, "cq");
	if (dpv_mlx4dv_set_log_wqs_range(ctx, 17) != EINVAL)
		goto out;
	w[0] = ibv_create_wq(ctx, &wa);
	if (w[0] == NULL || dpv_mlx4dv_set_log_wqs_range(ctx, 2))
		goto out;
	for (int i = 1; i < 5; i++) {
		w[i] = ibv_create_wq(ctx, &wa);
		if (w[i] == NULL)
			goto out;
	}
	if ((w[1]->wq_num & 3) != 0 || w[2]->wq_num != w[1]->wq_num + 1 ||
	    w[3]->wq_num != w[1]->wq_num + 2 ||
	    w[4]->wq_num != w[1]->wq_num + 3 || w[1]->wq_num <= w[0]->wq_num) {
		DPV_TEST_LOG("WQ numbers %#x %#x %#x %#x %#x", w[0]->wq_num,
			     w[1]->wq_num, w[2]->wq_num, w[3]->wq_num,
			     w[4]->wq_num);
		goto out;
	}
	rc = TEST_SUCCESS;
out:
	dpv_mlx4dv_set_log_wqs_range(ctx, 0);
	for (int i = 0; i < 5; i++)
		if (w[i])
			ibv_destroy_wq(w[i]);
	ibv_destroy_cq(cq);
	return rc;
}

/* What the mlx4 rings refuse: the ibv_wr_* builder. */
/* mlx4dv_set_context_attr(BUF_ALLOCATORS): an allocator that counts and
 * remembers its blocks. */
#define ALLOC_MAX 64
static struct {
	void *blk[ALLOC_MAX];
	size_t len[ALLOC_MAX];
	int n, live;
} al;

static void *
al_alloc(size_t size, void *data)
{
	void *p;

	if (data != &al || al.n == ALLOC_MAX)
		return NULL;
	p = aligned_alloc(64, RTE_ALIGN_CEIL(size, 64));
	if (p != NULL) {
		al.blk[al.n] = p;
		al.len[al.n++] = size;
		al.live++;
	}
	return p;
}

static void
al_free(void *ptr, void *data)
{
	if (data == &al)
		al.live--;
	free(ptr);
}

/* Does [p, p + len) lie inside one block of the allocator? */
static bool
al_owns(const void *p, size_t len)
{
	for (int i = 0; i < al.n; i++)
		if ((const uint8_t *)p >= (uint8_t *)al.blk[i] &&
		    (const uint8_t *)p + len <=
			    (uint8_t *)al.blk[i] + al.len[i])
			return true;
	return false;
}

/* The rings of QPs and CQs made after the call come from the
 * application's allocator, work, and go back through its free. */
static int
test_mlx4_buf_allocators(void)
{
	struct mlx4dv_qp dq;
	struct mlx4dv_cq dc;
	struct mlx4dv_obj o = {.qp = {.out = &dq}, .cq = {.out = &dc}};
	struct side a, b;
	struct ibv_wc wc;
	int rc = TEST_FAILED;

	memset(&al, 0, sizeof(al));
	TEST_ASSERT_EQUAL(dpv_mlx4dv_set_buf_allocators(ctx, al_alloc, NULL,
							&al),
			  EINVAL, "an allocator without its free");
	TEST_ASSERT_EQUAL(dpv_mlx4dv_set_buf_allocators(ctx, al_alloc, al_free,
							&al),
			  0, "");
	memset(&b, 0, sizeof(b));
	if (side_init(&a, IBV_QPT_RC, 16, 16, NULL) ||
	    side_init(&b, IBV_QPT_RC, 16, 16, NULL))
		goto out;
	if (al.live <= 0) {
		DPV_TEST_LOG("no ring from the allocator");
		goto out;
	}
	o.qp.in = a.qp;
	o.cq.in = a.scq;
	if (dpv_mlx4dv_init_obj(&o, MLX4DV_OBJ_QP | MLX4DV_OBJ_CQ) != 0 ||
	    !al_owns(dq.buf.buf, dq.buf.length) ||
	    !al_owns(dc.buf.buf, (size_t)dc.cqe_cnt * dc.cqe_size)) {
		DPV_TEST_LOG("the QP's or CQ's buffer is not the allocator's");
		goto out;
	}
	if (pair_connect(&a, &b))
		goto out;
	memcpy(a.buf, "own memory", 10);
	if (post_recv(&b, 7, 0, 64))
		goto out;
	{
		struct ibv_send_wr w = {.wr_id = 1, .opcode = IBV_WR_SEND};

		if (post(&a, &w, 0, 10))
			goto out;
	}
	if (wait1(a.scq, &wc) || wc.status || wait1(b.rcq, &wc) ||
	    wc.status || wc.byte_len != 10 || memcmp(b.buf, "own memory", 10))
		goto out;
	/* a resize takes its new buffer from the allocator too */
	if (ibv_resize_cq(a.scq, 64) != 0)
		goto out;
	o.qp.in = a.qp;
	o.cq.in = a.scq;
	if (dpv_mlx4dv_init_obj(&o, MLX4DV_OBJ_CQ) != 0 ||
	    !al_owns(dc.buf.buf, (size_t)dc.cqe_cnt * dc.cqe_size))
		goto out;
	rc = TEST_SUCCESS;
out:
	side_free(&a);
	side_free(&b);
	TEST_ASSERT_EQUAL(dpv_mlx4dv_set_buf_allocators(ctx, NULL, NULL, NULL),
			  0, "ours again");
	TEST_ASSERT_EQUAL(al.live, 0, "every block freed through al_free");
	return rc;
}

static int
test_mlx4_refused(void)
{
	struct ibv_cq *cq = ibv_create_cq(ctx, 8, NULL, NULL, 0);
	struct ibv_qp_init_attr_ex x = {
		.qp_type = IBV_QPT_RC,
		.send_cq = cq,
		.recv_cq = cq,
		.pd = pd,
		.cap = {.max_send_wr = 4, .max_recv_wr = 4,
			.max_send_sge = 1, .max_recv_sge = 1},
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = IBV_QP_EX_WITH_SEND,
	};
	struct ibv_qp *qp;

	TEST_ASSERT_NOT_NULL(cq, "cq");
	errno = 0;
	qp = ibv_create_qp_ex(ctx, &x);
	TEST_ASSERT(qp == NULL && errno == EOPNOTSUPP, "wr builder refused");
	/* tag matching: ConnectX-3 has none (no caps, no TM SRQ) */
	{
		struct ibv_srq_init_attr_ex sa = {
			.attr = {.max_wr = 4, .max_sge = 1},
			.comp_mask =
				IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
				IBV_SRQ_INIT_ATTR_CQ | IBV_SRQ_INIT_ATTR_TM,
			.srq_type = IBV_SRQT_TM,
			.pd = pd,
			.cq = cq,
			.tm_cap = {.max_num_tags = 4, .max_ops = 4},
		};
		struct ibv_device_attr_ex ax;

		TEST_ASSERT_EQUAL(ibv_query_device_ex(ctx, NULL, &ax), 0, "");
		TEST_ASSERT_EQUAL(ax.tm_caps.flags, 0, "TM caps");
		errno = 0;
		TEST_ASSERT(ibv_create_srq_ex(ctx, &sa) == NULL &&
				    errno == EOPNOTSUPP,
			    "TM SRQ refused");
	}
	ibv_destroy_cq(cq);
	return TEST_SUCCESS;
}

static struct dpv_test_suite suite = {
	.name = "mlx4_rings",
	.setup = setup,
	.teardown = teardown,
	.cases =
		{
			TEST_CASE(test_mlx4_rc),
			TEST_CASE(test_mlx4_error),
			TEST_CASE(test_mlx4_ud_srq),
			TEST_CASE(test_mlx4_dv),
			TEST_CASE(test_mlx4_dv_reset),
			TEST_CASE(test_mlx4_resize),
			TEST_CASE(test_mlx4_xrc),
			TEST_CASE(test_mlx4_raw),
			TEST_CASE(test_mlx4_rss),
			TEST_CASE(test_mlx4_wq_range),
			TEST_CASE(test_mlx4_buf_allocators),
			TEST_CASE(test_mlx4_refused),
			TEST_CASES_END(),
		},
};

static int
mlx4_rings_autotest(void)
{
	return dpv_test_run_suite(&suite);
}

DPV_TEST_REGISTER_FAST(mlx4_rings_autotest, mlx4_rings_autotest);
