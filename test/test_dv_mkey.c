/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Indirect memory keys of mlx5 direct verbs (mlx5dv_create_mkey,
 * mlx5dv_wr_mr_list, mlx5dv_wr_mr_interleaved, mlx5dv_wr_mkey_configure
 * and its setters, remote invalidation) on the loopback device:
 * remote WRITE / READ and local SGEs through the key land exactly where
 * the layout says, across entry and packet boundaries, and nowhere else;
 * the rules refuse what they must (arguments, too many entries, PD,
 * access, invalidated / destroyed keys, deregistered regions).
 * And raw WQEs (mlx5dv_wr_raw_wqe) on the same kind of QP pair: executed
 * as the engine decodes them, completed as IBV_WC_DRIVER2.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "dpv_test.h"
#include "test_verbs_util.h"
#include "verbs_dv.h"
#include "verbs_int.h"

/* libmlx5.so.1's entry points are thin wrappers of these private ones
 * (test/scripts/fast-dv-mkey.sh runs them through libmlx5.so.1) */
#define mlx5dv_create_mkey dpv_mlx5dv_create_mkey
#define mlx5dv_destroy_mkey dpv_mlx5dv_destroy_mkey
#define mlx5dv_qp_ex_from_ibv_qp_ex dpv_mlx5dv_qp_ex
#define mlx5dv_mkey_check dpv_mlx5dv_mkey_check

#define MEMLEN 8192
#define GUARD  0xee

static struct ibv_device **devs;
static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_mr *mr;     /* over mem[] */
static uint8_t mem[3][MEMLEN]; /* target (behind the mkey), src, dst */
static uint8_t shadow[MEMLEN]; /* what mem[0] must hold */
static int gid_index = -1;
static union ibv_gid gid;

static int
suite_setup(void)
{
	return test_verbs_loop_open(&devs, &ctx, &pd, &mr, mem, sizeof(mem),
				    IBV_ACCESS_LOCAL_WRITE |
					    IBV_ACCESS_REMOTE_READ |
					    IBV_ACCESS_REMOTE_WRITE |
					    IBV_ACCESS_REMOTE_ATOMIC,
				    &gid, &gid_index);
}

static void
suite_teardown(void)
{
	test_verbs_loop_close(&devs, &ctx, &pd, &mr);
}

static void
fill(void)
{
	memset(mem[0], GUARD, MEMLEN);
	memset(shadow, GUARD, MEMLEN);
	for (int i = 0; i < MEMLEN; i++)
		mem[1][i] = (uint8_t)(i * 7 + 3);
	memset(mem[2], 0, MEMLEN);
}

static int
modify(struct ibv_qp *qp, enum ibv_qp_state s, uint32_t dest)
{
	struct ibv_qp_attr a = {.qp_state = s, .port_num = 1};
	int mask = IBV_QP_STATE;

	if (s == IBV_QPS_INIT) {
		a.qp_access_flags = IBV_ACCESS_REMOTE_READ |
				    IBV_ACCESS_REMOTE_WRITE |
				    IBV_ACCESS_REMOTE_ATOMIC;
		mask |= IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
	} else if (s == IBV_QPS_RTR) {
		a.ah_attr.is_global = 1;
		a.ah_attr.grh.dgid = gid;
		a.ah_attr.grh.sgid_index = (uint8_t)gid_index;
		a.ah_attr.grh.hop_limit = 64;
		a.ah_attr.port_num = 1;
		a.path_mtu = IBV_MTU_1024;
		a.dest_qp_num = dest;
		a.max_dest_rd_atomic = 4;
		a.min_rnr_timer = 12;
		mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			IBV_QP_MIN_RNR_TIMER;
	} else {
		a.timeout = 14;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.max_rd_atomic = 4;
		mask |= IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
	}
	return ibv_modify_qp(qp, &a, mask);
}

/* a (mlx5dv QP with the mkey builders) talks to b (plain RC). */
struct pair {
	struct ibv_cq *acq, *bcq;
	struct ibv_qp *a, *b;
	struct ibv_qp_ex *x;
	struct mlx5dv_qp_ex *m;
};

static int
pair_open(struct pair *p, struct ibv_pd *apd, uint64_t dv_ops)
{
	struct ibv_qp_init_attr_ex ia = {
		.cap = {.max_send_wr = 16,
			.max_recv_wr = 16,
			.max_send_sge = 2,
			.max_recv_sge = 2},
		.qp_type = IBV_QPT_RC,
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = IBV_QP_EX_WITH_SEND |
				  IBV_QP_EX_WITH_RDMA_WRITE |
				  IBV_QP_EX_WITH_RDMA_READ |
				  IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD |
				  IBV_QP_EX_WITH_LOCAL_INV,
	};
	struct mlx5dv_qp_init_attr dv = {
		.comp_mask = MLX5DV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS,
		.send_ops_flags = dv_ops,
	};
	struct ibv_qp_init_attr ib = {
		.cap = ia.cap,
		.qp_type = IBV_QPT_RC,
	};

	memset(p, 0, sizeof(*p));
	p->acq = ibv_create_cq(ctx, 32, NULL, NULL, 0);
	p->bcq = ibv_create_cq(ctx, 32, NULL, NULL, 0);
	TEST_ASSERT(p->acq && p->bcq, "");
	ia.send_cq = ia.recv_cq = p->acq;
	ia.pd = apd;
	/* what mlx5dv_create_qp() does with dv */
	p->a = ibv_create_qp_ex(ctx, &ia);
	TEST_ASSERT_NOT_NULL(p->a, "errno %d", errno);
	TEST_ASSERT_EQUAL(dpv_qp_mlx5_send_ops(p->a, dv.send_ops_flags), 0,
			  "");
	ib.send_cq = ib.recv_cq = p->bcq;
	p->b = ibv_create_qp(pd, &ib);
	TEST_ASSERT_NOT_NULL(p->b, "errno %d", errno);
	p->x = ibv_qp_to_qp_ex(p->a);
	p->m = mlx5dv_qp_ex_from_ibv_qp_ex(p->x);
	TEST_ASSERT_NOT_NULL(p->m, "");
	TEST_ASSERT_EQUAL(modify(p->a, IBV_QPS_INIT, 0), 0, "");
	TEST_ASSERT_EQUAL(modify(p->b, IBV_QPS_INIT, 0), 0, "");
	TEST_ASSERT_EQUAL(modify(p->a, IBV_QPS_RTR, p->b->qp_num), 0, "");
	TEST_ASSERT_EQUAL(modify(p->b, IBV_QPS_RTR, p->a->qp_num), 0, "");
	TEST_ASSERT_EQUAL(modify(p->a, IBV_QPS_RTS, 0), 0, "");
	TEST_ASSERT_EQUAL(modify(p->b, IBV_QPS_RTS, 0), 0, "");
	return TEST_SUCCESS;
}

static void
pair_close(struct pair *p)
{
	if (p->a)
		ibv_destroy_qp(p->a);
	if (p->b)
		ibv_destroy_qp(p->b);
	if (p->acq)
		ibv_destroy_cq(p->acq);
	if (p->bcq)
		ibv_destroy_cq(p->bcq);
}

/* The status of a's next completion (and its opcode in *op); -1 none. */
static int
a_status(struct pair *p, enum ibv_wc_opcode *op)
{
	struct ibv_wc wc;

	if (test_loop_wait_wc(p->acq, &wc, 1, 3000) != 1)
		return -1;
	if (op)
		*op = wc.opcode;
	return wc.status;
}

/* Post one configuring WQE (list or interleaved); wr_complete's result. */
static int
mkey_post(struct pair *p, struct mlx5dv_mkey *mk, uint32_t access,
	  uint32_t repeat, uint16_t n, struct ibv_sge *sge,
	  struct mlx5dv_mr_interleaved *il)
{
	ibv_wr_start(p->x);
	p->x->wr_id = 77;
	p->x->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
	if (il)
		mlx5dv_wr_mr_interleaved(p->m, mk, access, repeat, n, il);
	else
		mlx5dv_wr_mr_list(p->m, mk, access, n, sge);
	return ibv_wr_complete(p->x);
}

/* Configure and expect success with opcode MLX5DV_WC_UMR. */
static int
mkey_config(struct pair *p, struct mlx5dv_mkey *mk, uint32_t access,
	    uint32_t repeat, uint16_t n, struct ibv_sge *sge,
	    struct mlx5dv_mr_interleaved *il)
{
	enum ibv_wc_opcode op = 0;

	TEST_ASSERT_EQUAL(mkey_post(p, mk, access, repeat, n, sge, il), 0, "");
	TEST_ASSERT_EQUAL(a_status(p, &op), IBV_WC_SUCCESS, "");
	TEST_ASSERT_EQUAL((int)op, (int)MLX5DV_WC_UMR, "");
	return TEST_SUCCESS;
}

/* One RDMA op from a: WRITE from / READ into mem[1|2] at off (lkey of
 * mr, or lkey given), remote key rkey at va. Returns the status. */
static int
rdma(struct pair *p, bool write, uint32_t lkey, uint64_t laddr, uint32_t len,
     uint32_t rkey, uint64_t va)
{
	ibv_wr_start(p->x);
	p->x->wr_id = 1;
	p->x->wr_flags = IBV_SEND_SIGNALED;
	if (write)
		ibv_wr_rdma_write(p->x, rkey, va);
	else
		ibv_wr_rdma_read(p->x, rkey, va);
	ibv_wr_set_sge(p->x, lkey, laddr, len);
	if (ibv_wr_complete(p->x) != 0)
		return -2;
	return a_status(p, NULL);
}

static uint64_t
at(int i, size_t off)
{
	return (uintptr_t)mem[i] + off;
}

static struct mlx5dv_mkey *
mkey_new(struct ibv_pd *kpd, uint16_t max)
{
	struct mlx5dv_mkey_init_attr ma = {
		.pd = kpd,
		.create_flags = MLX5DV_MKEY_INIT_ATTR_FLAGS_INDIRECT,
		.max_entries = max,
	};

	return mlx5dv_create_mkey(&ma);
}

static int
test_create_args(void)
{
	struct mlx5dv_mkey_init_attr ma = {.pd = pd, .max_entries = 3};
	struct mlx5dv_mkey *mk;

	errno = 0;
	TEST_ASSERT_NULL(mlx5dv_create_mkey(&ma), "");
	TEST_ASSERT_EQUAL(errno, EOPNOTSUPP, "no INDIRECT flag (as rdma-core)");
	ma.create_flags = MLX5DV_MKEY_INIT_ATTR_FLAGS_BLOCK_SIGNATURE;
	TEST_ASSERT_NULL(mlx5dv_create_mkey(&ma), "");
	TEST_ASSERT_EQUAL(errno, EOPNOTSUPP, "signature without INDIRECT");
	ma.create_flags = MLX5DV_MKEY_INIT_ATTR_FLAGS_INDIRECT |
			  MLX5DV_MKEY_INIT_ATTR_FLAGS_CRYPTO;
	TEST_ASSERT_NULL(mlx5dv_create_mkey(&ma), "");
	TEST_ASSERT_EQUAL(errno, EOPNOTSUPP, "crypto");
	ma.create_flags = MLX5DV_MKEY_INIT_ATTR_FLAGS_INDIRECT;
	ma.max_entries = 0;
	TEST_ASSERT_NULL(mlx5dv_create_mkey(&ma), "");
	TEST_ASSERT_EQUAL(errno, EINVAL, "max_entries 0");
	ma.max_entries = 53;
	TEST_ASSERT_NULL(mlx5dv_create_mkey(&ma), "");
	TEST_ASSERT_EQUAL(errno, EINVAL, "max_entries 53");
	ma.pd = NULL;
	ma.max_entries = 3;
	TEST_ASSERT_NULL(mlx5dv_create_mkey(&ma), "");
	TEST_ASSERT_EQUAL(errno, EINVAL, "no PD");
	ma.pd = pd;
	mk = mlx5dv_create_mkey(&ma);
	TEST_ASSERT_NOT_NULL(mk, "errno %d", errno);
	TEST_ASSERT_EQUAL(ma.max_entries, 4, "rounded up to 4");
	TEST_ASSERT_EQUAL(mk->lkey, mk->rkey, "");
	TEST_ASSERT_EQUAL(ibv_dealloc_pd(pd), EBUSY, "PD in use");
	TEST_ASSERT_EQUAL(mlx5dv_destroy_mkey(mk), 0, "");
	return TEST_SUCCESS;
}

/* List layout: WRITE across all entries, READ from the middle. */
static int
test_list(void)
{
	struct ibv_sge sge[3] = {
		{at(0, 100), 10, mr->lkey},
		{at(0, 300), 7, mr->lkey},
		{at(0, 50), 20, mr->lkey},
	};
	struct mlx5dv_mkey *mk = mkey_new(pd, 3);
	struct pair p;
	int rc;

	TEST_ASSERT_NOT_NULL(mk, "");
	fill();
	rc = pair_open(&p, pd, MLX5DV_QP_EX_WITH_MR_LIST);
	if (rc == TEST_SUCCESS)
		rc = mkey_config(&p, mk,
				 IBV_ACCESS_LOCAL_WRITE |
					 IBV_ACCESS_REMOTE_WRITE |
					 IBV_ACCESS_REMOTE_READ,
				 0, 3, sge, NULL);
	if (rc == TEST_SUCCESS) {
		TEST_ASSERT_EQUAL(rdma(&p, true, mr->lkey, at(1, 0), 37,
				       mk->rkey, 0),
				  IBV_WC_SUCCESS, "WRITE through the mkey");
		memcpy(shadow + 100, mem[1], 10);
		memcpy(shadow + 300, mem[1] + 10, 7);
		memcpy(shadow + 50, mem[1] + 17, 20);
		TEST_ASSERT_BUFFERS_EQUAL(mem[0], shadow, MEMLEN,
					  "bytes where the list says only");
		TEST_ASSERT_EQUAL(rdma(&p, false, mr->lkey, at(2, 0), 30,
				       mk->rkey, 5),
				  IBV_WC_SUCCESS, "READ through the mkey");
		TEST_ASSERT_BUFFERS_EQUAL(mem[2], mem[1] + 5, 30, "");
		/* past the end: 37 bytes mapped */
		TEST_ASSERT_EQUAL(rdma(&p, false, mr->lkey, at(2, 0), 8,
				       mk->rkey, 30),
				  IBV_WC_REM_ACCESS_ERR, "beyond the layout");
	}
	pair_close(&p);
	TEST_ASSERT_EQUAL(mlx5dv_destroy_mkey(mk), 0, "");
	return rc;
}

/* An atomic's result into a local SGE of the mkey: its 8 bytes split
 * over two list entries (the engine used to write them to the indirect
 * marker address). */
static int
test_atomic_local(void)
{
	struct ibv_sge sge[2] = {
		{at(0, 200), 4, mr->lkey},
		{at(0, 600), 4, mr->lkey},
	};
	struct mlx5dv_mkey *mk = mkey_new(pd, 2);
	uint64_t orig, now;
	struct pair p;
	int rc;

	TEST_ASSERT_NOT_NULL(mk, "");
	fill();
	memcpy(&orig, mem[1] + 8, 8);
	rc = pair_open(&p, pd, MLX5DV_QP_EX_WITH_MR_LIST);
	if (rc == TEST_SUCCESS)
		rc = mkey_config(&p, mk, IBV_ACCESS_LOCAL_WRITE, 0, 2, sge,
				 NULL);
	if (rc == TEST_SUCCESS) {
		ibv_wr_start(p.x);
		p.x->wr_id = 9;
		p.x->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_atomic_fetch_add(p.x, mr->rkey, at(1, 8), 5);
		ibv_wr_set_sge(p.x, mk->lkey, 0, 8);
		TEST_ASSERT_EQUAL(ibv_wr_complete(p.x), 0, "");
		TEST_ASSERT_EQUAL(a_status(&p, NULL), IBV_WC_SUCCESS, "");
		memcpy(&now, mem[1] + 8, 8);
		TEST_ASSERT_EQUAL(now, orig + 5, "added");
		memcpy(shadow + 200, &orig, 4);
		memcpy(shadow + 600, (uint8_t *)&orig + 4, 4);
		TEST_ASSERT_BUFFERS_EQUAL(mem[0], shadow, MEMLEN,
					  "the original value, split");
	}
	pair_close(&p);
	TEST_ASSERT_EQUAL(mlx5dv_destroy_mkey(mk), 0, "");
	return rc;
}

/* Interleaved layout over several packets; local SGEs of the mkey. */
static int
test_interleaved(void)
{
	struct mlx5dv_mr_interleaved il[2] = {
		{at(0, 1000), 8, 4, mr->lkey},
		{at(0, 4000), 3, 1, mr->lkey},
	};
	const uint32_t rep = 200, total = 11 * rep; /* 2200: 3 packets */
	struct mlx5dv_mkey *mk = mkey_new(pd, 3);
	struct pair p;
	int rc;

	TEST_ASSERT_NOT_NULL(mk, "");
	fill();
	rc = pair_open(&p, pd, MLX5DV_QP_EX_WITH_MR_INTERLEAVED);
	if (rc == TEST_SUCCESS)
		rc = mkey_config(&p, mk,
				 IBV_ACCESS_LOCAL_WRITE |
					 IBV_ACCESS_REMOTE_WRITE |
					 IBV_ACCESS_REMOTE_READ,
				 rep, 2, NULL, il);
	if (rc == TEST_SUCCESS) {
		TEST_ASSERT_EQUAL(rdma(&p, true, mr->lkey, at(1, 0), total,
				       mk->rkey, 0),
				  IBV_WC_SUCCESS, "WRITE 2200 bytes");
		for (uint32_t r = 0; r < rep; r++) {
			memcpy(shadow + 1000 + 12 * r, mem[1] + 11 * r, 8);
			memcpy(shadow + 4000 + 4 * r, mem[1] + 11 * r + 8, 3);
		}
		TEST_ASSERT_BUFFERS_EQUAL(mem[0], shadow, MEMLEN,
					  "bytes where the pattern says only");
		TEST_ASSERT_EQUAL(rdma(&p, false, mr->lkey, at(2, 0),
				       total - 13, mk->rkey, 13),
				  IBV_WC_SUCCESS, "READ from offset 13");
		TEST_ASSERT_BUFFERS_EQUAL(mem[2], mem[1] + 13, total - 13, "");
		/* local: WRITE from the mkey (lkey) to plain memory */
		memset(mem[2], 0, MEMLEN);
		TEST_ASSERT_EQUAL(rdma(&p, true, mk->lkey, 5, 1500, mr->rkey,
				       at(2, 0)),
				  IBV_WC_SUCCESS, "WRITE gathering the mkey");
		TEST_ASSERT_BUFFERS_EQUAL(mem[2], mem[1] + 5, 1500, "");
		/* local: READ into the mkey (lkey) */
		memset(mem[0], GUARD, MEMLEN);
		TEST_ASSERT_EQUAL(rdma(&p, false, mk->lkey, 0, total,
				       mr->rkey, at(1, 0)),
				  IBV_WC_SUCCESS, "READ scattering the mkey");
		TEST_ASSERT_BUFFERS_EQUAL(mem[0], shadow, MEMLEN, "");
	}
	pair_close(&p);
	TEST_ASSERT_EQUAL(mlx5dv_destroy_mkey(mk), 0, "");
	return rc;
}

/* The builders' argument errors: nothing is posted. */
static int
test_builder_args(void)
{
	struct ibv_sge sge[5];
	struct mlx5dv_mr_interleaved il[4];
	struct mlx5dv_mkey *mk = mkey_new(pd, 4);
	struct pair p;
	int rc;

	TEST_ASSERT_NOT_NULL(mk, "");
	for (int i = 0; i < 5; i++)
		sge[i] = (struct ibv_sge){at(0, 16 * i), 8, mr->lkey};
	for (int i = 0; i < 4; i++)
		il[i] = (struct mlx5dv_mr_interleaved){at(0, 16 * i), 4, 4,
						       mr->lkey};
	rc = pair_open(&p, pd, MLX5DV_QP_EX_WITH_MR_LIST);
	if (rc == TEST_SUCCESS) {
		TEST_ASSERT_EQUAL(mkey_post(&p, mk, 0, 0, 5, sge, NULL), ENOMEM,
				  "5 entries, max 4");
		TEST_ASSERT_EQUAL(mkey_post(&p, mk, IBV_ACCESS_MW_BIND, 0, 2,
					    sge, NULL),
				  EINVAL, "access flag");
		TEST_ASSERT_EQUAL(mkey_post(&p, NULL, 0, 0, 2, sge, NULL),
				  EINVAL, "no mkey");
		TEST_ASSERT_EQUAL(mkey_post(&p, mk, 0, 0, 0, sge, NULL), EINVAL,
				  "no entries");
		TEST_ASSERT_EQUAL(mkey_post(&p, mk, 0, 1, 2, NULL, il),
				  EOPNOTSUPP, "interleaved without its flag");
		struct ibv_wc wc;

		TEST_ASSERT_EQUAL(test_loop_wait_wc(p.acq, &wc, 1, 100), 0,
				  "nothing posted");
	}
	pair_close(&p);
	if (rc == TEST_SUCCESS)
		rc = pair_open(&p, pd, MLX5DV_QP_EX_WITH_MR_INTERLEAVED);
	if (rc == TEST_SUCCESS) {
		TEST_ASSERT_EQUAL(mkey_post(&p, mk, 0, 0, 2, NULL, il), EINVAL,
				  "repeat 0");
		/* 4 entries + the repetition header do not fit 4: the
		 * WQE fails like a bad UMR on hardware */
		TEST_ASSERT_EQUAL(mkey_post(&p, mk, 0, 2, 4, NULL, il), 0, "");
		TEST_ASSERT_EQUAL(a_status(&p, NULL), IBV_WC_LOC_PROT_ERR,
				  "header does not fit");
	}
	pair_close(&p);
	TEST_ASSERT_EQUAL(mlx5dv_destroy_mkey(mk), 0, "");
	return rc;
}

/* Keys that must fail: another PD, no remote access, invalidated,
 * a deregistered region, a destroyed mkey. */
static int
test_refusals(void)
{
	uint8_t *extra = mem[2] + MEMLEN / 2;
	struct ibv_pd *pd2 = ibv_alloc_pd(ctx);
	struct mlx5dv_mkey *mk = mkey_new(pd, 2), *mk2 = mkey_new(pd2, 2);
	struct ibv_sge sge = {at(0, 0), 64, mr->lkey};
	struct ibv_mr *mr2;
	struct pair p;
	int rc;

	TEST_ASSERT(pd2 && mk && mk2, "");
	fill();
	/* an mkey of another PD cannot be configured */
	rc = pair_open(&p, pd, MLX5DV_QP_EX_WITH_MR_LIST);
	if (rc == TEST_SUCCESS) {
		TEST_ASSERT_EQUAL(mkey_post(&p, mk2, 0, 0, 1, &sge, NULL), 0,
				  "");
		TEST_ASSERT_EQUAL(a_status(&p, NULL), IBV_WC_LOC_PROT_ERR,
				  "wrong PD");
	}
	pair_close(&p);
	/* no remote write granted */
	if (rc == TEST_SUCCESS)
		rc = pair_open(&p, pd, MLX5DV_QP_EX_WITH_MR_LIST);
	if (rc == TEST_SUCCESS)
		rc = mkey_config(&p, mk, IBV_ACCESS_REMOTE_READ, 0, 1, &sge,
				 NULL);
	if (rc == TEST_SUCCESS) {
		TEST_ASSERT_EQUAL(rdma(&p, false, mr->lkey, at(2, 0), 64,
				       mk->rkey, 0),
				  IBV_WC_SUCCESS, "READ granted");
		TEST_ASSERT_EQUAL(rdma(&p, true, mr->lkey, at(1, 0), 8,
				       mk->rkey, 0),
				  IBV_WC_REM_ACCESS_ERR, "WRITE not granted");
		TEST_ASSERT_BUFFERS_EQUAL(mem[0], shadow, MEMLEN, "untouched");
	}
	pair_close(&p);
	/* invalidated, configured again (only after the invalidation) */
	if (rc == TEST_SUCCESS)
		rc = pair_open(&p, pd, MLX5DV_QP_EX_WITH_MR_LIST);
	if (rc == TEST_SUCCESS) {
		ibv_wr_start(p.x);
		p.x->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_local_inv(p.x, mk->lkey);
		TEST_ASSERT_EQUAL(ibv_wr_complete(p.x), 0, "");
		TEST_ASSERT_EQUAL(a_status(&p, NULL), IBV_WC_SUCCESS, "LOCAL_INV");
		rc = mkey_config(&p, mk, IBV_ACCESS_REMOTE_WRITE, 0, 1, &sge,
				 NULL);
	}
	if (rc == TEST_SUCCESS) {
		TEST_ASSERT_EQUAL(rdma(&p, true, mr->lkey, at(1, 0), 8,
				       mk->rkey, 0),
				  IBV_WC_SUCCESS, "configured anew");
		memcpy(shadow, mem[1], 8);
		TEST_ASSERT_EQUAL(mkey_post(&p, mk, 0, 0, 1, &sge, NULL), 0,
				  "");
		TEST_ASSERT_EQUAL(a_status(&p, NULL), IBV_WC_LOC_PROT_ERR,
				  "configured already");
	}
	pair_close(&p);
	/* the region under the key deregistered */
	mr2 = ibv_reg_mr(pd, extra, 256,
			 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	TEST_ASSERT_NOT_NULL(mr2, "");
	sge = (struct ibv_sge){(uintptr_t)extra, 256, mr2->lkey};
	if (rc == TEST_SUCCESS)
		rc = pair_open(&p, pd, MLX5DV_QP_EX_WITH_MR_LIST);
	if (rc == TEST_SUCCESS) {
		ibv_wr_start(p.x);
		p.x->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_local_inv(p.x, mk->lkey);
		TEST_ASSERT_EQUAL(ibv_wr_complete(p.x), 0, "");
		TEST_ASSERT_EQUAL(a_status(&p, NULL), IBV_WC_SUCCESS, "");
		rc = mkey_config(&p, mk, IBV_ACCESS_REMOTE_WRITE, 0, 1, &sge,
				 NULL);
	}
	if (rc == TEST_SUCCESS) {
		TEST_ASSERT_EQUAL(rdma(&p, true, mr->lkey, at(1, 0), 16,
				       mk->rkey, 0),
				  IBV_WC_SUCCESS, "");
		TEST_ASSERT_BUFFERS_EQUAL(extra, mem[1], 16, "");
		TEST_ASSERT_EQUAL(ibv_dereg_mr(mr2), 0, "");
		mr2 = NULL;
		memset(extra, 0, 16);
		TEST_ASSERT_EQUAL(rdma(&p, true, mr->lkey, at(1, 0), 16,
				       mk->rkey, 0),
				  IBV_WC_REM_ACCESS_ERR, "stale region");
		TEST_ASSERT_EQUAL(extra[0], 0, "nothing written");
	}
	pair_close(&p);
	if (mr2)
		ibv_dereg_mr(mr2);
	/* destroyed while configured */
	if (rc == TEST_SUCCESS)
		rc = pair_open(&p, pd, MLX5DV_QP_EX_WITH_MR_LIST);
	if (rc == TEST_SUCCESS) {
		uint32_t rkey = mk->rkey;

		TEST_ASSERT_EQUAL(mlx5dv_destroy_mkey(mk), 0, "");
		mk = NULL;
		TEST_ASSERT_EQUAL(rdma(&p, true, mr->lkey, at(1, 0), 8, rkey,
				       0),
				  IBV_WC_REM_ACCESS_ERR, "destroyed mkey");
	}
	pair_close(&p);
	if (mk)
		mlx5dv_destroy_mkey(mk);
	mlx5dv_destroy_mkey(mk2);
	ibv_dealloc_pd(pd2);
	return rc;
}

/* ---- mlx5dv_wr_raw_wqe ---- */

/* A raw WQE: opcode op, control + optional raddr + data segment of len
 * bytes of mem[1] at off (lkey of mr). */
struct raw_wqe {
	struct mlx5_wqe_ctrl_seg ctrl;
	struct mlx5_wqe_raddr_seg raddr;
	struct mlx5_wqe_data_seg data[2];
	uint8_t more[64]; /* the 128-byte (ds 8) raw UMR case reads it */
};

static void
raw_build(struct raw_wqe *w, uint32_t qpn, uint8_t op, bool signaled,
	  uint32_t rkey, uint64_t va, size_t off, uint32_t len)
{
	bool rd = op == MLX5_OPCODE_RDMA_WRITE;
	struct mlx5_wqe_data_seg *d = rd ? (void *)&w->data[0]
				       : (void *)&w->raddr;

	memset(w, 0xa5, sizeof(*w)); /* what the driver may not read */
	/* the WQE index (and signature) are the driver's to fill */
	mlx5dv_set_ctrl_seg(&w->ctrl, 0xbeef, op, 0, qpn,
			    signaled ? MLX5_WQE_CTRL_CQ_UPDATE : 0, rd ? 3 : 2,
			    0, 0);
	if (rd) {
		w->raddr.raddr = htobe64(va);
		w->raddr.rkey = htobe32(rkey);
		w->raddr.reserved = 0;
	}
	mlx5dv_set_data_seg(d, len, mr->lkey, at(1, off));
}

/* No completion on a's CQ within 200 ms. */
static bool
a_none(struct pair *p)
{
	struct ibv_wc wc;

	return test_loop_wait_wc(p->acq, &wc, 1, 200) == 0;
}

/* Post one raw WQE with wr_id; wr_complete's result. */
static int
raw_post(struct pair *p, const struct raw_wqe *w, uint64_t wr_id)
{
	ibv_wr_start(p->x);
	p->x->wr_id = wr_id;
	p->x->wr_flags = 0; /* ignored: the WQE's fm_ce_se counts */
	mlx5dv_wr_raw_wqe(p->m, w);
	return ibv_wr_complete(p->x);
}

static int
b_recv(struct pair *p, size_t off, uint32_t len)
{
	struct ibv_sge sge = {at(2, off), len, mr->lkey};
	struct ibv_recv_wr wr = {.wr_id = 9, .sg_list = &sge, .num_sge = 1};
	struct ibv_recv_wr *bad;

	return ibv_post_recv(p->b, &wr, &bad);
}

/* Send and WRITE as raw WQEs, mixed with ibv_wr_send, many laps of the
 * ring: data lands, raw WQEs complete as IBV_WC_DRIVER2, the others as
 * what they are; an unsignalled raw WQE completes with the next one. */
static int
test_raw_traffic(void)
{
	struct raw_wqe w;
	struct pair p;
	struct ibv_wc wc;
	int rc = pair_open(&p, pd, MLX5DV_QP_EX_WITH_RAW_WQE);

	for (int i = 0; rc == TEST_SUCCESS && i < 40; i++) {
		uint32_t len = 100 + i;

		fill();
		TEST_ASSERT_EQUAL(b_recv(&p, 0, MEMLEN), 0, "");
		if (i % 2) {
			ibv_wr_start(p.x);
			p.x->wr_id = i;
			p.x->wr_flags = IBV_SEND_SIGNALED;
			ibv_wr_send(p.x);
			ibv_wr_set_sge(p.x, mr->lkey, at(1, i), len);
			TEST_ASSERT_EQUAL(ibv_wr_complete(p.x), 0, "");
		} else {
			raw_build(&w, p.a->qp_num, MLX5_OPCODE_SEND, true, 0,
				  0, i, len);
			TEST_ASSERT_EQUAL(raw_post(&p, &w, i), 0, "");
		}
		TEST_ASSERT_EQUAL(test_loop_wait_wc(p.acq, &wc, 1, 3000), 1,
				  "iteration %d", i);
		TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "%d", i);
		TEST_ASSERT_EQUAL(wc.wr_id, (uint64_t)i, "");
		TEST_ASSERT_EQUAL((int)wc.opcode,
				  i % 2 ? IBV_WC_SEND : IBV_WC_DRIVER2,
				  "iteration %d", i);
		TEST_ASSERT_EQUAL(test_loop_wait_wc(p.bcq, &wc, 1, 3000), 1,
				  "");
		TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "");
		TEST_ASSERT_EQUAL(wc.byte_len, len, "");
		TEST_ASSERT(memcmp(mem[2], mem[1] + i, len) == 0, "%d", i);
	}
	/* WRITE: unsignalled, then a signalled one that retires both */
	if (rc == TEST_SUCCESS) {
		fill();
		raw_build(&w, p.a->qp_num, MLX5_OPCODE_RDMA_WRITE, false,
			  mr->rkey, at(0, 64), 0, 300);
		TEST_ASSERT_EQUAL(raw_post(&p, &w, 1), 0, "");
		raw_build(&w, p.a->qp_num, MLX5_OPCODE_RDMA_WRITE, true,
			  mr->rkey, at(0, 1000), 500, 200);
		TEST_ASSERT_EQUAL(raw_post(&p, &w, 2), 0, "");
		TEST_ASSERT_EQUAL(test_loop_wait_wc(p.acq, &wc, 1, 3000), 1,
				  "");
		TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "");
		TEST_ASSERT_EQUAL(wc.wr_id, 2, "only the signalled one");
		TEST_ASSERT_EQUAL((int)wc.opcode, IBV_WC_DRIVER2, "");
		memcpy(shadow + 64, mem[1], 300);
		memcpy(shadow + 1000, mem[1] + 500, 200);
		TEST_ASSERT(memcmp(mem[0], shadow, MEMLEN) == 0,
			    "WRITE bytes");
		TEST_ASSERT(a_none(&p), "no more CQEs");
	}
	pair_close(&p);
	return rc;
}

/* Refusals, and opcodes the engine does not know: an error CQE. */
static int
test_raw_refusals(void)
{
	struct raw_wqe w;
	struct pair p;
	int rc;

	/* without MLX5DV_QP_EX_WITH_RAW_WQE */
	rc = pair_open(&p, pd, MLX5DV_QP_EX_WITH_MR_LIST);
	if (rc == TEST_SUCCESS) {
		raw_build(&w, p.a->qp_num, MLX5_OPCODE_SEND, true, 0, 0, 0, 8);
		TEST_ASSERT_EQUAL(raw_post(&p, &w, 1), EOPNOTSUPP, "");
		TEST_ASSERT(a_none(&p), "nothing posted");
		/* raw WQEs go on any type; indirect keys on RC only */
		TEST_ASSERT_EQUAL(dpv_qp_mlx5_send_ops(p.a,
				  MLX5DV_QP_EX_WITH_RAW_WQE |
				  MLX5DV_QP_EX_WITH_MEMCPY), EOPNOTSUPP, "");
	}
	pair_close(&p);
	if (rc != TEST_SUCCESS)
		return rc;
	rc = pair_open(&p, pd, MLX5DV_QP_EX_WITH_RAW_WQE);
	if (rc == TEST_SUCCESS) {
		enum ibv_wc_opcode op;

		/* ds 0: the batch fails, nothing posted */
		raw_build(&w, p.a->qp_num, MLX5_OPCODE_SEND, true, 0, 0, 0, 8);
		w.ctrl.qpn_ds = htobe32(p.a->qp_num << 8);
		TEST_ASSERT_EQUAL(raw_post(&p, &w, 1), EINVAL, "ds 0");
		/* NULL */
		ibv_wr_start(p.x);
		mlx5dv_wr_raw_wqe(p.m, NULL);
		TEST_ASSERT_EQUAL(ibv_wr_complete(p.x), EINVAL, "NULL WQE");
		TEST_ASSERT(a_none(&p), "nothing posted");
		/* an opcode the engine does not execute (masked atomics) */
		raw_build(&w, p.a->qp_num, MLX5_OPCODE_ATOMIC_MASKED_CS, true,
			  0, 0, 0, 8);
		TEST_ASSERT_EQUAL(raw_post(&p, &w, 5), 0, "");
		TEST_ASSERT_EQUAL(a_status(&p, &op), IBV_WC_LOC_QP_OP_ERR,
				  "unknown opcode");
	}
	pair_close(&p);
	if (rc != TEST_SUCCESS)
		return rc;
	/* a raw UMR WQE is not taken for a memory-window bind */
	rc = pair_open(&p, pd, MLX5DV_QP_EX_WITH_RAW_WQE);
	if (rc == TEST_SUCCESS) {
		raw_build(&w, p.a->qp_num, MLX5_OPCODE_UMR, true, 0, 0, 0, 8);
		w.ctrl.qpn_ds = htobe32(p.a->qp_num << 8 | 8);
		TEST_ASSERT_EQUAL(raw_post(&p, &w, 6), 0, "");
		TEST_ASSERT_EQUAL(a_status(&p, NULL), IBV_WC_LOC_QP_OP_ERR,
				  "raw UMR");
	}
	pair_close(&p);
	return rc;
}

static int
dv_raw_wqe_autotest(void)
{
	int rc = suite_setup();

	if (rc == TEST_SUCCESS)
		rc = test_raw_traffic();
	if (rc == TEST_SUCCESS)
		rc = test_raw_refusals();
	suite_teardown();
	return rc;
}

DPV_TEST_REGISTER_FAST(dv_raw_wqe_autotest, dv_raw_wqe_autotest);

/* mlx5dv_wr_mkey_configure with n setters: access (if access >= 0),
 * then the list layout (if sge) or the interleaved one (if il); the
 * setters called are the first `calls` of those. wr_complete's result. */
static int
mkc_post(struct pair *p, struct mlx5dv_mkey *mk, uint8_t n, int calls,
	 int access, uint16_t num, const struct ibv_sge *sge,
	 const struct mlx5dv_mr_interleaved *il, unsigned int flags)
{
	struct mlx5dv_mkey_conf_attr ca = {0};

	ibv_wr_start(p->x);
	p->x->wr_id = 78;
	p->x->wr_flags = flags;
	mlx5dv_wr_mkey_configure(p->m, mk, n, &ca);
	if (access >= 0 && calls-- > 0)
		mlx5dv_wr_set_mkey_access_flags(p->m, (uint32_t)access);
	if (sge && calls-- > 0)
		mlx5dv_wr_set_mkey_layout_list(p->m, num, sge);
	if (il && calls-- > 0)
		mlx5dv_wr_set_mkey_layout_interleaved(p->m, 2, num, il);
	return ibv_wr_complete(p->x);
}

#define SIG_INL (IBV_SEND_SIGNALED | IBV_SEND_INLINE)

/* A SEND with invalidate of rkey from a to b (one receive posted there,
 * completed with status bst); a's completion status. */
static int
send_inv(struct pair *p, uint32_t rkey, int bst)
{
	struct ibv_recv_wr rw = {.wr_id = 5}, *bad;
	struct ibv_wc wc;
	int st;

	TEST_ASSERT_EQUAL(ibv_post_recv(p->b, &rw, &bad), 0, "");
	ibv_wr_start(p->x);
	p->x->wr_id = 6;
	p->x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send_inv(p->x, rkey); /* set although not asked for */
	ibv_wr_set_sge_list(p->x, 0, NULL);
	TEST_ASSERT_EQUAL(ibv_wr_complete(p->x), 0, "");
	st = a_status(p, NULL);
	TEST_ASSERT_EQUAL(test_loop_wait_wc(p->bcq, &wc, 1, 3000), 1, "");
	TEST_ASSERT_EQUAL(wc.status, bst, "");
	return st;
}

/* mlx5dv_wr_mkey_configure and its setters; remote invalidation. */
static int
test_configure(void)
{
	struct ibv_sge sge[2] = {
		{at(0, 64), 16, mr->lkey},
		{at(0, 512), 16, mr->lkey},
	};
	struct mlx5dv_mr_interleaved il[2] = {
		{at(0, 1024), 4, 4, mr->lkey},
		{at(0, 2048), 2, 0, mr->lkey},
	};
	struct mlx5dv_mkey_conf_attr ca = {.comp_mask = 1};
	struct mlx5dv_mkey_init_attr ma = {
		.pd = pd,
		.create_flags = MLX5DV_MKEY_INIT_ATTR_FLAGS_INDIRECT |
				MLX5DV_MKEY_INIT_ATTR_FLAGS_REMOTE_INVALIDATE,
		.max_entries = 4,
	};
	const int rw = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
	struct mlx5dv_mkey *mk = mkey_new(pd, 4), *rmk;
	enum ibv_wc_opcode op = 0;
	struct pair p;
	int rc;

	TEST_ASSERT_NOT_NULL(mk, "");
	rmk = mlx5dv_create_mkey(&ma);
	TEST_ASSERT_NOT_NULL(rmk, "REMOTE_INVALIDATE key, errno %d", errno);
	fill();
	/* without the QP's flag */
	rc = pair_open(&p, pd, MLX5DV_QP_EX_WITH_MR_LIST);
	if (rc == TEST_SUCCESS)
		TEST_ASSERT_EQUAL(mkc_post(&p, mk, 2, 2, rw, 2, sge, NULL,
					   SIG_INL),
				  EOPNOTSUPP, "no MKEY_CONFIGURE flag");
	pair_close(&p);
	if (rc == TEST_SUCCESS)
		rc = pair_open(&p, pd, MLX5DV_QP_EX_WITH_MKEY_CONFIGURE);
	if (rc != TEST_SUCCESS)
		goto out;
	/* refusals: nothing posted */
	TEST_ASSERT_EQUAL(mkc_post(&p, mk, 2, 2, rw, 2, sge, NULL,
				   IBV_SEND_SIGNALED),
			  EOPNOTSUPP, "without IBV_SEND_INLINE");
	ibv_wr_start(p.x);
	p.x->wr_flags = SIG_INL;
	mlx5dv_wr_mkey_configure(p.m, mk, 0, &ca);
	TEST_ASSERT_EQUAL(ibv_wr_complete(p.x), EOPNOTSUPP, "comp_mask");
	TEST_ASSERT_EQUAL(mkc_post(&p, mk, 2, 1, rw, 2, sge, NULL, SIG_INL),
			  EINVAL, "a setter missing");
	TEST_ASSERT_EQUAL(mkc_post(&p, mk, 1, 2, rw, 2, sge, NULL, SIG_INL),
			  EINVAL, "a setter too many");
	ibv_wr_start(p.x);
	p.x->wr_flags = SIG_INL;
	mlx5dv_wr_mkey_configure(p.m, mk, 2, &ca);
	ca.comp_mask = 0;
	mlx5dv_wr_mkey_configure(p.m, mk, 2, &ca);
	mlx5dv_wr_set_mkey_access_flags(p.m, (uint32_t)rw);
	mlx5dv_wr_set_mkey_access_flags(p.m, (uint32_t)rw);
	TEST_ASSERT(ibv_wr_complete(p.x) != 0, "access set twice");
	TEST_ASSERT_EQUAL(mkc_post(&p, mk, 1, 1, -1, 5, sge, NULL, SIG_INL),
			  ENOMEM, "more entries than max_entries");
	ibv_wr_start(p.x);
	mlx5dv_wr_set_mkey_access_flags(p.m, (uint32_t)rw);
	TEST_ASSERT_EQUAL(ibv_wr_complete(p.x), EINVAL, "setter alone");
	TEST_ASSERT_EQUAL(a_status(&p, NULL), -1, "nothing posted");
	/* access only: the key maps nothing yet */
	TEST_ASSERT_EQUAL(mkc_post(&p, mk, 1, 1, rw, 0, NULL, NULL, SIG_INL),
			  0, "");
	TEST_ASSERT_EQUAL(a_status(&p, &op), IBV_WC_SUCCESS, "");
	TEST_ASSERT_EQUAL((int)op, (int)MLX5DV_WC_UMR, "");
	TEST_ASSERT_EQUAL(rdma(&p, true, mr->lkey, at(1, 0), 8, mk->rkey, 0),
			  IBV_WC_REM_ACCESS_ERR, "no layout");
	pair_close(&p);
	rc = pair_open(&p, pd, MLX5DV_QP_EX_WITH_MKEY_CONFIGURE);
	if (rc != TEST_SUCCESS)
		goto out;
	/* a layout added to the configured key, access kept */
	TEST_ASSERT_EQUAL(mkc_post(&p, mk, 1, 1, -1, 2, sge, NULL, SIG_INL), 0,
			  "");
	TEST_ASSERT_EQUAL(a_status(&p, NULL), IBV_WC_SUCCESS, "reconfigured");
	TEST_ASSERT_EQUAL(rdma(&p, true, mr->lkey, at(1, 0), 32, mk->rkey, 0),
			  IBV_WC_SUCCESS, "WRITE through the layout");
	memcpy(shadow + 64, mem[1], 16);
	memcpy(shadow + 512, mem[1] + 16, 16);
	TEST_ASSERT_BUFFERS_EQUAL(mem[0], shadow, MEMLEN, "where the list says");
	/* access overridden, layout kept */
	TEST_ASSERT_EQUAL(mkc_post(&p, mk, 1, 1, IBV_ACCESS_REMOTE_READ, 0,
				   NULL, NULL, SIG_INL),
			  0, "");
	TEST_ASSERT_EQUAL(a_status(&p, NULL), IBV_WC_SUCCESS, "");
	TEST_ASSERT_EQUAL(rdma(&p, false, mr->lkey, at(2, 0), 32, mk->rkey, 0),
			  IBV_WC_SUCCESS, "READ granted, layout kept");
	TEST_ASSERT_BUFFERS_EQUAL(mem[2], mem[1], 32, "");
	TEST_ASSERT_EQUAL(rdma(&p, true, mr->lkey, at(1, 0), 8, mk->rkey, 0),
			  IBV_WC_REM_ACCESS_ERR, "WRITE no longer granted");
	pair_close(&p);
	rc = pair_open(&p, pd, MLX5DV_QP_EX_WITH_MKEY_CONFIGURE);
	if (rc != TEST_SUCCESS)
		goto out;
	/* interleaved with both setters, in the other order of calls */
	fill();
	TEST_ASSERT_EQUAL(mkc_post(&p, mk, 2, 2, rw, 2, NULL, il, SIG_INL), 0,
			  "");
	TEST_ASSERT_EQUAL(a_status(&p, NULL), IBV_WC_SUCCESS, "interleaved");
	TEST_ASSERT_EQUAL(rdma(&p, true, mr->lkey, at(1, 0), 12, mk->rkey, 0),
			  IBV_WC_SUCCESS, "");
	memcpy(shadow + 1024, mem[1], 4);
	memcpy(shadow + 2048, mem[1] + 4, 2);
	memcpy(shadow + 1032, mem[1] + 6, 4);
	memcpy(shadow + 2050, mem[1] + 10, 2);
	TEST_ASSERT_BUFFERS_EQUAL(mem[0], shadow, MEMLEN, "interleaved bytes");
	/* remote invalidation: only of a key created for it */
	TEST_ASSERT_EQUAL(mkc_post(&p, rmk, 2, 2, rw, 2, sge, NULL, SIG_INL),
			  0, "");
	TEST_ASSERT_EQUAL(a_status(&p, NULL), IBV_WC_SUCCESS, "");
	TEST_ASSERT_EQUAL(rdma(&p, false, mr->lkey, at(2, 0), 8, rmk->rkey, 0),
			  IBV_WC_SUCCESS, "");
	TEST_ASSERT_EQUAL(send_inv(&p, rmk->rkey, IBV_WC_SUCCESS),
			  IBV_WC_SUCCESS, "");
	TEST_ASSERT_EQUAL(rdma(&p, false, mr->lkey, at(2, 0), 8, rmk->rkey, 0),
			  IBV_WC_REM_ACCESS_ERR, "invalidated remotely");
	pair_close(&p);
	rc = pair_open(&p, pd, MLX5DV_QP_EX_WITH_MKEY_CONFIGURE);
	if (rc != TEST_SUCCESS)
		goto out;
	TEST_ASSERT_EQUAL(send_inv(&p, mk->rkey, IBV_WC_REM_INV_REQ_ERR),
			  IBV_WC_REM_INV_REQ_ERR, "key without the flag");
	pair_close(&p);
	rc = pair_open(&p, pd, MLX5DV_QP_EX_WITH_MKEY_CONFIGURE);
	if (rc == TEST_SUCCESS)
		TEST_ASSERT_EQUAL(rdma(&p, false, mr->lkey, at(2, 0), 8,
				       mk->rkey, 0),
				  IBV_WC_SUCCESS, "which stays valid");
out:
	pair_close(&p);
	TEST_ASSERT_EQUAL(mlx5dv_destroy_mkey(rmk), 0, "");
	TEST_ASSERT_EQUAL(mlx5dv_destroy_mkey(mk), 0, "");
	return rc;
}

static int
dv_mkey_autotest(void)
{
	int rc = suite_setup();

	if (rc == TEST_SUCCESS)
		rc = test_create_args();
	if (rc == TEST_SUCCESS)
		rc = test_list();
	if (rc == TEST_SUCCESS)
		rc = test_interleaved();
	if (rc == TEST_SUCCESS)
		rc = test_atomic_local();
	if (rc == TEST_SUCCESS)
		rc = test_builder_args();
	if (rc == TEST_SUCCESS)
		rc = test_refusals();
	if (rc == TEST_SUCCESS)
		rc = test_configure();
	suite_teardown();
	return rc;
}

DPV_TEST_REGISTER_FAST(dv_mkey_autotest, dv_mkey_autotest);

/* ------------------------------------------------- block signature */

/* Reference guards, bit by bit (checked against the catalogue's check
 * values of "123456789" first). */
static uint32_t
ref_crc32(const uint8_t *p, size_t n, uint32_t poly)
{
	uint32_t c = 0xffffffffu;

	while (n--) {
		c ^= *p++;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ poly : c >> 1;
	}
	return ~c;
}

static uint16_t
ref_crc16_t10(const uint8_t *p, size_t n)
{
	uint16_t c = 0;

	while (n--) {
		c ^= (uint16_t)(*p++ << 8);
		for (int k = 0; k < 8; k++)
			c = (uint16_t)(c & 0x8000 ? (c << 1) ^ 0x8bb7 : c << 1);
	}
	return c;
}

/* T10-DIF's other guard: the IP checksum of the big-endian words. */
static uint16_t
ref_csum(const uint8_t *p, size_t n)
{
	uint32_t s = 0;

	for (size_t i = 0; i + 1 < n; i += 2)
		s += (uint32_t)(p[i] << 8 | p[i + 1]);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

#define POLY_CRC32  0xedb88320u
#define POLY_CRC32C 0x82f63b78u

static void
put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* The T10-DIF field of a block: guard, app tag, ref tag (big-endian). */
static void
put_dif(uint8_t *p, const uint8_t *data, size_t n, uint16_t app, uint32_t ref,
	bool csum)
{
	uint16_t g = csum ? ref_csum(data, n) : ref_crc16_t10(data, n);

	p[0] = (uint8_t)(g >> 8);
	p[1] = (uint8_t)g;
	p[2] = (uint8_t)(app >> 8);
	p[3] = (uint8_t)app;
	put32(p + 4, ref);
}

static struct mlx5dv_mkey *
sig_mkey_new(void)
{
	struct mlx5dv_mkey_init_attr ma = {
		.pd = pd,
		.create_flags = MLX5DV_MKEY_INIT_ATTR_FLAGS_INDIRECT |
				MLX5DV_MKEY_INIT_ATTR_FLAGS_BLOCK_SIGNATURE,
		.max_entries = 4,
	};

	return mlx5dv_create_mkey(&ma);
}

/* Configure mk over [mem[0] + off, + len) with the signature attr (NULL:
 * none); wr_complete's result, then the completion's status. */
static int
sig_config(struct pair *p, struct mlx5dv_mkey *mk, size_t off, uint32_t len,
	   const struct mlx5dv_sig_block_attr *attr, int *status)
{
	struct mlx5dv_mkey_conf_attr ca = {0};
	struct ibv_sge sge = {at(0, off), len, mr->lkey};
	int rc;

	ibv_wr_start(p->x);
	p->x->wr_id = 9;
	p->x->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
	mlx5dv_wr_mkey_configure(p->m, mk, attr ? 3 : 2, &ca);
	mlx5dv_wr_set_mkey_access_flags(p->m, IBV_ACCESS_LOCAL_WRITE);
	mlx5dv_wr_set_mkey_layout_list(p->m, 1, &sge);
	if (attr)
		mlx5dv_wr_set_mkey_sig_block(p->m, attr);
	rc = ibv_wr_complete(p->x);
	*status = rc == 0 ? a_status(p, NULL) : -1;
	return rc;
}

/* a SENDs len bytes at (lkey, addr); b receives them into mem[2]. */
static int
a_to_b(struct pair *p, uint32_t lkey, uint64_t addr, uint32_t len,
       uint32_t *got)
{
	struct ibv_sge rs = {at(2, 0), MEMLEN, mr->lkey};
	struct ibv_recv_wr rwr = {.sg_list = &rs, .num_sge = 1}, *bad;
	struct ibv_wc wc;

	TEST_ASSERT_EQUAL(ibv_post_recv(p->b, &rwr, &bad), 0, "");
	ibv_wr_start(p->x);
	p->x->wr_id = 2;
	p->x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(p->x);
	ibv_wr_set_sge(p->x, lkey, addr, len);
	TEST_ASSERT_EQUAL(ibv_wr_complete(p->x), 0, "");
	TEST_ASSERT_EQUAL(a_status(p, NULL), IBV_WC_SUCCESS, "send");
	TEST_ASSERT_EQUAL(test_loop_wait_wc(p->bcq, &wc, 1, 3000), 1, "");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "");
	*got = wc.byte_len;
	return TEST_SUCCESS;
}

/* b SENDs len bytes of mem[1]; a receives them at (lkey, addr, rlen). */
static int
b_to_a(struct pair *p, uint32_t len, uint32_t lkey, uint64_t addr,
       uint32_t rlen)
{
	struct ibv_sge rs = {addr, rlen, lkey};
	struct ibv_recv_wr rwr = {.sg_list = &rs, .num_sge = 1}, *rbad;
	struct ibv_sge ss = {at(1, 0), len, mr->lkey};
	struct ibv_send_wr swr = {.sg_list = &ss,
				  .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED},
			   *sbad;
	struct ibv_wc wc;

	TEST_ASSERT_EQUAL(ibv_post_recv(p->a, &rwr, &rbad), 0, "");
	TEST_ASSERT_EQUAL(ibv_post_send(p->b, &swr, &sbad), 0, "");
	TEST_ASSERT_EQUAL(test_loop_wait_wc(p->bcq, &wc, 1, 3000), 1, "");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "");
	TEST_ASSERT_EQUAL(a_status(p, NULL), IBV_WC_SUCCESS,
			  "a signature error does not fail the completion");
	return TEST_SUCCESS;
}

static int
check_err(struct mlx5dv_mkey *mk, enum mlx5dv_mkey_err_type t,
	  uint64_t actual, uint64_t expected, uint64_t offset)
{
	struct mlx5dv_mkey_err e;

	TEST_ASSERT_EQUAL(mlx5dv_mkey_check(mk, &e), 0, "");
	TEST_ASSERT_EQUAL((int)e.err_type, (int)t, "error type");
	if (t == MLX5DV_MKEY_NO_ERR)
		return TEST_SUCCESS;
	TEST_ASSERT_EQUAL(e.err.sig.actual_value, actual, "actual");
	TEST_ASSERT_EQUAL(e.err.sig.expected_value, expected, "expected");
	TEST_ASSERT_EQUAL(e.err.sig.offset, offset, "offset");
	TEST_ASSERT_EQUAL(mlx5dv_mkey_check(mk, &e), 0, "");
	TEST_ASSERT_EQUAL((int)e.err_type, (int)MLX5DV_MKEY_NO_ERR,
			  "reported once");
	return TEST_SUCCESS;
}

static int
test_sig_ref(void)
{
	const uint8_t v[] = "123456789";

	TEST_ASSERT_EQUAL(ref_crc32(v, 9, POLY_CRC32), 0xcbf43926u, "");
	TEST_ASSERT_EQUAL(ref_crc32(v, 9, POLY_CRC32C), 0xe3069283u, "");
	TEST_ASSERT_EQUAL(ref_crc16_t10(v, 9), 0xd0db, "");
	return TEST_SUCCESS;
}

/* The setter's rules; the capabilities; mkey_check's. */
static int
test_sig_args(struct pair *p)
{
	struct mlx5dv_sig_crc crc = {MLX5DV_SIG_CRC_TYPE_CRC32, UINT32_MAX};
	struct mlx5dv_sig_block_domain d = {
		.sig_type = MLX5DV_SIG_TYPE_CRC,
		.sig.crc = &crc,
		.block_size = MLX5DV_BLOCK_SIZE_512,
	};
	struct mlx5dv_sig_block_attr a = {.wire = &d};
	struct mlx5dv_mkey *plain = mkey_new(pd, 4), *mk = sig_mkey_new();
	struct mlx5dv_mkey_err e;
	int st;

	TEST_ASSERT(plain && mk, "");
	TEST_ASSERT_EQUAL(mlx5dv_mkey_check(plain, &e), EINVAL,
			  "no signature key");
	TEST_ASSERT_EQUAL(mlx5dv_mkey_check(mk, &e), 0, "");
	TEST_ASSERT_EQUAL((int)e.err_type, (int)MLX5DV_MKEY_NO_ERR, "");
	TEST_ASSERT_EQUAL(sig_config(p, plain, 0, 512, &a, &st), EINVAL,
			  "key without BLOCK_SIGNATURE");
	crc.seed = 5;
	TEST_ASSERT_EQUAL(sig_config(p, mk, 0, 512, &a, &st), EINVAL, "seed");
	crc.seed = 0;
	crc.type = MLX5DV_SIG_CRC_TYPE_CRC64_XP10;
	TEST_ASSERT_EQUAL(sig_config(p, mk, 0, 512, &a, &st), EOPNOTSUPP,
			  "CRC64_XP10 is not offered");
	crc.type = MLX5DV_SIG_CRC_TYPE_CRC32;
	d.block_size = 9;
	TEST_ASSERT_EQUAL(sig_config(p, mk, 0, 512, &a, &st), EINVAL, "block");
	d.block_size = MLX5DV_BLOCK_SIZE_512;
	a.flags = MLX5DV_SIG_BLOCK_ATTR_FLAG_COPY_MASK;
	TEST_ASSERT_EQUAL(sig_config(p, mk, 0, 512, &a, &st), EINVAL,
			  "copy mask with one domain");
	a.flags = 0;
	a.comp_mask = 1;
	TEST_ASSERT_EQUAL(sig_config(p, mk, 0, 512, &a, &st), EINVAL, "");
	a.comp_mask = 0;
	TEST_ASSERT_EQUAL(sig_config(p, mk, 0, 512, &a, &st), 0, "");
	TEST_ASSERT_EQUAL(st, IBV_WC_SUCCESS, "");
	TEST_ASSERT_EQUAL(mlx5dv_destroy_mkey(plain), 0, "");
	TEST_ASSERT_EQUAL(mlx5dv_destroy_mkey(mk), 0, "");
	return TEST_SUCCESS;
}

/* Memory without, wire with CRC32 (512-byte blocks) / T10-DIF with
 * the CRC guard (512) or the checksum guard (520): the wire carries the
 * fields after each block; coming in they are checked and stripped. */
static int
test_sig_wire(struct pair *p, bool dif, bool csum)
{
	struct mlx5dv_sig_crc crc = {MLX5DV_SIG_CRC_TYPE_CRC32, UINT32_MAX};
	struct mlx5dv_sig_t10dif t10 = {
		.bg_type = MLX5DV_SIG_T10DIF_CRC,
		.bg = 0,
		.app_tag = 0xabcd,
		.ref_tag = 0x01234567,
		.flags = MLX5DV_SIG_T10DIF_FLAG_REF_REMAP,
	};
	struct mlx5dv_sig_block_domain d = {
		.block_size = csum ? MLX5DV_BLOCK_SIZE_520
				   : MLX5DV_BLOCK_SIZE_512,
	};
	struct mlx5dv_sig_block_attr a = {.wire = &d};
	const uint32_t B = csum ? 520 : 512, fs = dif ? 8 : 4, bw = B + fs;
	struct mlx5dv_mkey *mk = sig_mkey_new();
	uint8_t want[2 * (520 + 8)];
	uint32_t got = 0;
	int st, rc;

	TEST_ASSERT_NOT_NULL(mk, "");
	if (dif) {
		d.sig_type = MLX5DV_SIG_TYPE_T10DIF;
		d.sig.dif = &t10;
		if (csum)
			t10.bg_type = MLX5DV_SIG_T10DIF_CSUM;
		a.check_mask = MLX5DV_SIG_MASK_T10DIF_GUARD |
			       MLX5DV_SIG_MASK_T10DIF_APPTAG |
			       MLX5DV_SIG_MASK_T10DIF_REFTAG;
	} else {
		d.sig_type = MLX5DV_SIG_TYPE_CRC;
		d.sig.crc = &crc;
		a.check_mask = MLX5DV_SIG_MASK_CRC32;
	}
	fill();
	memcpy(mem[0], mem[1], 2 * B);
	TEST_ASSERT_EQUAL(sig_config(p, mk, 0, 2 * B, &a, &st), 0, "");
	TEST_ASSERT_EQUAL(st, IBV_WC_SUCCESS, "");
	/* out: data | field | data | field */
	for (int b = 0; b < 2; b++) {
		memcpy(want + b * bw, mem[0] + b * B, B);
		if (dif)
			put_dif(want + b * bw + B, mem[0] + b * B, B, 0xabcd,
				0x01234567 + b, csum);
		else
			put32(want + b * bw + B,
			      ref_crc32(mem[0] + b * B, B, POLY_CRC32));
	}
	rc = a_to_b(p, mk->lkey, 0, 2 * B, &got);
	if (rc != TEST_SUCCESS)
		goto out;
	TEST_ASSERT_EQUAL(got, 2 * bw, "the wire carries the fields");
	TEST_ASSERT_BUFFERS_EQUAL(mem[2], want, 2 * bw, "fields inserted");
	/* in: the same bytes come back, checked and stripped */
	memcpy(mem[1], want, 2 * bw);
	memset(mem[0], GUARD, 1100);
	rc = b_to_a(p, 2 * bw, mk->lkey, 0, 2 * B);
	if (rc != TEST_SUCCESS)
		goto out;
	TEST_ASSERT_BUFFERS_EQUAL(mem[0], want, B, "stripped");
	TEST_ASSERT_BUFFERS_EQUAL(mem[0] + B, want + bw, B, "stripped");
	TEST_ASSERT_EQUAL(mem[0][2 * B], GUARD, "nothing past the data");
	rc = check_err(mk, MLX5DV_MKEY_NO_ERR, 0, 0, 0);
	if (rc != TEST_SUCCESS)
		goto out;
	/* a bad field in block 1: the data still lands, the key says */
	if (dif) {
		mem[1][bw + B + 3] ^= 1; /* app tag */
		rc = b_to_a(p, 2 * bw, mk->lkey, 0, 2 * B);
		if (rc == TEST_SUCCESS)
			rc = check_err(mk, MLX5DV_MKEY_SIG_BLOCK_BAD_APPTAG,
				       0xabcd, 0xabcd ^ 1, B);
		mem[1][bw + B + 3] ^= 1;
		mem[1][bw + B + 7] ^= 2; /* ref tag */
		if (rc == TEST_SUCCESS)
			rc = b_to_a(p, 2 * bw, mk->lkey, 0, 2 * B);
		if (rc == TEST_SUCCESS)
			rc = check_err(mk, MLX5DV_MKEY_SIG_BLOCK_BAD_REFTAG,
				       0x01234568, 0x01234568 ^ 2, B);
	} else {
		uint32_t good = ref_crc32(want + bw, B, POLY_CRC32);

		mem[1][bw + B] ^= 0x80;
		rc = b_to_a(p, 2 * bw, mk->lkey, 0, 2 * B);
		if (rc == TEST_SUCCESS)
			rc = check_err(mk, MLX5DV_MKEY_SIG_BLOCK_BAD_GUARD,
				       good, good ^ 0x80000000u, B);
	}
	if (rc == TEST_SUCCESS)
		TEST_ASSERT_BUFFERS_EQUAL(mem[0] + B, want + bw, B,
					  "data placed all the same");
out:
	TEST_ASSERT_EQUAL(mlx5dv_destroy_mkey(mk), 0, "");
	return rc;
}

/* Memory with CRC32C, wire without: going out the fields are checked
 * and stripped; coming in they are generated into the memory. */
static int
test_sig_mem(struct pair *p)
{
	struct mlx5dv_sig_crc crc = {MLX5DV_SIG_CRC_TYPE_CRC32C, UINT32_MAX};
	struct mlx5dv_sig_block_domain d = {
		.sig_type = MLX5DV_SIG_TYPE_CRC,
		.sig.crc = &crc,
		.block_size = MLX5DV_BLOCK_SIZE_512,
	};
	struct mlx5dv_sig_block_attr a = {
		.mem = &d,
		.check_mask = MLX5DV_SIG_MASK_CRC32C,
	};
	struct mlx5dv_mkey *mk = sig_mkey_new();
	uint32_t got = 0, c0, c1;
	int st, rc;

	TEST_ASSERT_NOT_NULL(mk, "");
	fill();
	c0 = ref_crc32(mem[1], 512, POLY_CRC32C);
	c1 = ref_crc32(mem[1] + 512, 512, POLY_CRC32C);
	memcpy(mem[0], mem[1], 512);
	put32(mem[0] + 512, c0);
	memcpy(mem[0] + 516, mem[1] + 512, 512);
	put32(mem[0] + 1028, c1);
	TEST_ASSERT_EQUAL(sig_config(p, mk, 0, 1032, &a, &st), 0, "");
	TEST_ASSERT_EQUAL(st, IBV_WC_SUCCESS, "");
	rc = a_to_b(p, mk->lkey, 0, 1024, &got);
	if (rc != TEST_SUCCESS)
		goto out;
	TEST_ASSERT_EQUAL(got, 1024, "data only on the wire");
	TEST_ASSERT_BUFFERS_EQUAL(mem[2], mem[1], 1024, "stripped");
	rc = check_err(mk, MLX5DV_MKEY_NO_ERR, 0, 0, 0);
	if (rc != TEST_SUCCESS)
		goto out;
	mem[0][3] ^= 4; /* block 0's data: its field no longer matches */
	rc = a_to_b(p, mk->lkey, 0, 1024, &got);
	if (rc == TEST_SUCCESS)
		rc = check_err(mk, MLX5DV_MKEY_SIG_BLOCK_BAD_GUARD,
			       ref_crc32(mem[0], 512, POLY_CRC32C), c0, 0);
	if (rc != TEST_SUCCESS)
		goto out;
	/* in: fields generated after each block */
	memset(mem[0], GUARD, 1100);
	rc = b_to_a(p, 1024, mk->lkey, 0, 1024);
	if (rc != TEST_SUCCESS)
		goto out;
	TEST_ASSERT_BUFFERS_EQUAL(mem[0], mem[1], 512, "");
	TEST_ASSERT_EQUAL(ref_crc32(mem[0], 516, POLY_CRC32C) != 0 &&
				  mem[0][512] == (uint8_t)(c0 >> 24) &&
				  mem[0][515] == (uint8_t)c0,
			  1, "field of block 0 generated");
	TEST_ASSERT_BUFFERS_EQUAL(mem[0] + 516, mem[1] + 512, 512, "");
	TEST_ASSERT_EQUAL(mem[0][1028] == (uint8_t)(c1 >> 24) &&
				  mem[0][1031] == (uint8_t)c1,
			  1, "field of block 1 generated");
	TEST_ASSERT_EQUAL(mem[0][1032], GUARD, "");
out:
	TEST_ASSERT_EQUAL(mlx5dv_destroy_mkey(mk), 0, "");
	return rc;
}

/* The next async event within about ms ms (polling the CQs runs the
 * engine; their CQEs stay). 0 with *ev filled, else -1. */
static int
sig_event(struct pair *p, struct ibv_async_event *ev, int ms)
{
	struct ibv_wc wc;

	for (int i = 0; i < ms * 10; i++) {
		if (ibv_get_async_event(ctx, ev) == 0)
			return 0;
		ibv_poll_cq(p->acq, 0, &wc);
		ibv_poll_cq(p->bcq, 0, &wc);
		usleep(100);
	}
	return -1;
}

/* MLX5DV_QP_CREATE_SIG_PIPELINING: a WRITE whose memory field is bad,
 * then a fenced SEND: the SQ stops before the SEND (SQD, SQ_DRAINED, no
 * completion), which is canceled; back in RTS it completes unsent. */
static int
test_sig_pipe(struct pair *p)
{
	struct mlx5dv_sig_crc crc = {MLX5DV_SIG_CRC_TYPE_CRC32, 0};
	struct mlx5dv_sig_block_domain d = {
		.sig_type = MLX5DV_SIG_TYPE_CRC,
		.sig.crc = &crc,
		.block_size = MLX5DV_BLOCK_SIZE_512,
	};
	struct mlx5dv_sig_block_attr a = {
		.mem = &d,
		.check_mask = MLX5DV_SIG_MASK_CRC32,
	};
	struct ibv_sge rs = {at(2, 2048), 64, mr->lkey};
	struct ibv_recv_wr rwr = {.sg_list = &rs, .num_sge = 1}, *bad;
	struct ibv_qp_attr qa = {.qp_state = IBV_QPS_RTS,
				 .cur_qp_state = IBV_QPS_SQD};
	struct ibv_qp_init_attr qi;
	struct mlx5dv_mkey *mk = sig_mkey_new();
	struct ibv_async_event ev;
	struct mlx5dv_mkey_err e;
	struct ibv_wc wc;
	int fl, st, rc = TEST_SUCCESS;

	TEST_ASSERT_NOT_NULL(mk, "");
	fl = fcntl(ctx->async_fd, F_GETFL);
	fcntl(ctx->async_fd, F_SETFL, fl | O_NONBLOCK);
	while (ibv_get_async_event(ctx, &ev) == 0) /* left by others */
		ibv_ack_async_event(&ev);
	TEST_ASSERT_EQUAL(dpv_qp_mlx5_cancel_send(p->m, 1), -EINVAL,
			  "not in SQD");
	TEST_ASSERT_EQUAL(dpv_qp_mlx5_create_flags(
				  p->a, MLX5DV_QP_CREATE_SIG_PIPELINING),
			  0, "");
	fill();
	put32(mem[0] + 512, 0x12345678); /* not the block's CRC32 */
	TEST_ASSERT_EQUAL(sig_config(p, mk, 0, 516, &a, &st), 0, "");
	TEST_ASSERT_EQUAL(st, IBV_WC_SUCCESS, "");
	TEST_ASSERT_EQUAL(ibv_post_recv(p->b, &rwr, &bad), 0, "");
	ibv_wr_start(p->x);
	p->x->wr_id = 1;
	p->x->wr_flags = 0;
	ibv_wr_rdma_write(p->x, mr->rkey, at(2, 0));
	ibv_wr_set_sge(p->x, mk->lkey, 0, 512);
	p->x->wr_id = 1;
	p->x->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_FENCE;
	ibv_wr_send(p->x);
	ibv_wr_set_sge(p->x, mr->lkey, at(1, 0), 16);
	TEST_ASSERT_EQUAL(ibv_wr_complete(p->x), 0, "");
	if (sig_event(p, &ev, 3000) != 0) {
		rc = TEST_FAILED;
		DPV_TEST_LOG("no async event");
		goto out;
	}
	ibv_ack_async_event(&ev);
	TEST_ASSERT_EQUAL(ev.event_type, IBV_EVENT_SQ_DRAINED, "");
	TEST_ASSERT_EQUAL(ev.element.qp, p->a, "");
	TEST_ASSERT_EQUAL(ibv_poll_cq(p->acq, 1, &wc), 0, "no completion");
	TEST_ASSERT_EQUAL(ibv_poll_cq(p->bcq, 1, &wc), 0, "SEND not sent");
	TEST_ASSERT_BUFFERS_EQUAL(mem[2], mem[0], 512, "WRITE went, stripped");
	TEST_ASSERT_EQUAL(ibv_query_qp(p->a, &qa, IBV_QP_STATE, &qi), 0, "");
	TEST_ASSERT_EQUAL(qa.qp_state, IBV_QPS_SQD, "stopped in SQD");
	TEST_ASSERT_EQUAL(mlx5dv_mkey_check(mk, &e), 0, "");
	TEST_ASSERT_EQUAL((int)e.err_type, (int)MLX5DV_MKEY_SIG_BLOCK_BAD_GUARD,
			  "");
	TEST_ASSERT_EQUAL(dpv_qp_mlx5_cancel_send(p->m, 1), 1, "the SEND");
	TEST_ASSERT_EQUAL(dpv_qp_mlx5_cancel_send(p->m, 1), 0, "once");
	qa.qp_state = IBV_QPS_RTS;
	qa.cur_qp_state = IBV_QPS_SQD;
	TEST_ASSERT_EQUAL(ibv_modify_qp(p->a, &qa,
					IBV_QP_STATE | IBV_QP_CUR_STATE),
			  0, "");
	TEST_ASSERT_EQUAL(a_status(p, NULL), IBV_WC_SUCCESS,
			  "canceled: completes as posted");
	TEST_ASSERT_EQUAL(test_loop_wait_wc(p->bcq, &wc, 1, 200), 0,
			  "without being sent");
out:
	fcntl(ctx->async_fd, F_SETFL, fl);
	TEST_ASSERT_EQUAL(mlx5dv_destroy_mkey(mk), 0, "");
	return rc;
}

static int
dv_sig_autotest(void)
{
	struct pair p;
	int rc = suite_setup();

	if (rc == TEST_SUCCESS)
		rc = test_sig_ref();
	if (rc != TEST_SUCCESS) {
		suite_teardown();
		return rc;
	}
	rc = pair_open(&p, pd, MLX5DV_QP_EX_WITH_MKEY_CONFIGURE);
	if (rc == TEST_SUCCESS)
		rc = test_sig_args(&p);
	if (rc == TEST_SUCCESS)
		rc = test_sig_wire(&p, false, false);
	if (rc == TEST_SUCCESS)
		rc = test_sig_wire(&p, true, false);
	if (rc == TEST_SUCCESS)
		rc = test_sig_wire(&p, true, true);
	if (rc == TEST_SUCCESS)
		rc = test_sig_mem(&p);
	if (rc == TEST_SUCCESS)
		rc = test_sig_pipe(&p);
	pair_close(&p);
	suite_teardown();
	return rc;
}

DPV_TEST_REGISTER_FAST(dv_sig_autotest, dv_sig_autotest);
