/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Implicit on-demand paging and ibv_advise_mr (lib/verbs/verbs_mr.c,
 * DPV_ENGINE_KEY_IMPLICIT in lib/engine/engine_key.c) on the first device:
 *  - ibv_reg_mr(pd, NULL, SIZE_MAX, ... | ON_DEMAND) and ibv_reg_mr_iova2
 *    with iova 0: a region with addr NULL and length SIZE_MAX, reported
 *    by odp_caps; refused (EINVAL) without ON_DEMAND, with another iova,
 *    MW_BIND or ZERO_BASED; ibv_rereg_mr may change its access and PD,
 *    not its translation; no window binds to it;
 *  - over loopback RC QPs, its lkey and rkey on fresh anonymous pages
 *    (nothing behind them until the engine faults them in): SEND, RDMA
 *    WRITE across a page boundary, RDMA READ, FETCH_ADD and CMP_SWP move
 *    the expected bytes;
 *  - accesses the process's mappings do not allow fail as a HCA fails
 *    them and the engine carries on (each on a new QP pair, counted as
 *    key errors): a WRITE to an unmapped page and to a read-only page, a
 *    READ of a PROT_NONE page and an atomic on a read-only page
 *    (IBV_WC_REM_ACCESS_ERR, nothing written); a SEND out of an unmapped
 *    page and a READ into a read-only one (IBV_WC_LOC_PROT_ERR); a
 *    receive into a read-only page (LOC_PROT_ERR at the responder,
 *    REM_OP_ERR at the requester);
 *  - ibv_advise_mr: all three advices, with and without FLUSH, on an
 *    explicit and the implicit region (PREFETCH faults untouched pages
 *    in, mincore() sees them, NO_FAULT does not); the kernel's errors: a
 *    region that is not ODP or a key that is no region ENOENT, a window
 *    EINVAL, another PD's region or PREFETCH_WRITE on a read-only one
 *    EPERM, out of the region or unmapped with FLUSH EFAULT (without
 *    FLUSH a hint: 0), an unknown advice EOPNOTSUPP, unknown flags or no
 *    SGE EINVAL, no list EFAULT.
 * rdma-core's tests.test_odp runs it too (slow-pyverbs.sh).
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "dpv_engine.h"
#include "dpv_test.h"
#include "test_loop_util.h"
#include "test_verbs_util.h"
#include "verbs_int.h"

#define BUFLEN 4096
#define ODP_ALL                                                                \
	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |                    \
	 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC |                   \
	 IBV_ACCESS_ON_DEMAND)

static struct ibv_device **devs;
static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_mr *mr; /* an ordinary region over mem */
static uint8_t mem[2][BUFLEN];
static int gid_index = -1;
static size_t pg;

static int
suite_setup(void)
{
	union ibv_gid gid;
	int rc;

	pg = (size_t)sysconf(_SC_PAGESIZE);
	rc = test_verbs_loop_open(&devs, &ctx, &pd, &mr, mem, sizeof(mem),
				  IBV_ACCESS_LOCAL_WRITE, &gid, &gid_index);
	if (rc == TEST_SUCCESS && !dpv_engine_mem_fault_supported()) {
		DPV_TEST_LOG("no MADV_POPULATE_*: no implicit ODP here");
		rc = TEST_SKIPPED;
	}
	return rc;
}

static void
suite_teardown(void)
{
	test_verbs_loop_close(&devs, &ctx, &pd, &mr);
}

/* n fresh anonymous read-write pages (untouched), NULL on failure. */
static uint8_t *
pages(size_t n)
{
	void *p = mmap(NULL, n * pg, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* Whether the page at p is in memory. */
static bool
resident(const uint8_t *p)
{
	unsigned char v = 0;

	return mincore((void *)(uintptr_t)p, pg, &v) == 0 && (v & 1);
}

/* Accesses the device's key checks refused so far. */
static uint64_t
key_errors(void)
{
	struct dpv_engine_stats s;

	if (dpv_dev_engine_stats(to_dctx(ctx)->dev, &s) != 0)
		return UINT64_MAX;
	return s.key_errors;
}

#define EXPECT_NULL_ERRNO(expr, err, what)                                     \
	do {                                                                   \
		errno = 0;                                                     \
		TEST_ASSERT_NULL((expr), "%s must fail", what);                \
		TEST_ASSERT_EQUAL(errno, err, "%s errno", what);               \
	} while (0)

static int
test_implicit_reg(void)
{
	const unsigned int acc = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ON_DEMAND;
	struct ibv_device_attr_ex da;
	struct ibv_pd *pd2;
	struct ibv_mr *imr;
	struct dpv_mkey k;

	TEST_ASSERT_EQUAL(ibv_query_device_ex(ctx, NULL, &da), 0, "");
	TEST_ASSERT_EQUAL(da.odp_caps.general_caps,
			  IBV_ODP_SUPPORT | IBV_ODP_SUPPORT_IMPLICIT, "caps");
	imr = ibv_reg_mr(pd, NULL, SIZE_MAX, acc);
	TEST_ASSERT_NOT_NULL(imr, "implicit (errno %d)", errno);
	TEST_ASSERT(imr->addr == NULL && imr->length == SIZE_MAX &&
			    imr->lkey == imr->rkey && imr->pd == pd,
		    "addr %p length %zu", imr->addr, imr->length);
	TEST_ASSERT(dpv_mkey_get(to_dctx(ctx)->dev, imr->lkey, &k) &&
			    k.type == DPV_MKEY_IMPLICIT,
		    "an implicit key");

	/* rereg: access and PD, never the translation */
	errno = 0;
	TEST_ASSERT_EQUAL(ibv_rereg_mr(imr, IBV_REREG_MR_CHANGE_TRANSLATION,
				       NULL, mem[0], BUFLEN, 0),
			  IBV_REREG_MR_ERR_INPUT, "translation");
	TEST_ASSERT_EQUAL(errno, EINVAL, "");
	TEST_ASSERT_EQUAL(ibv_rereg_mr(imr, IBV_REREG_MR_CHANGE_ACCESS, NULL,
				       NULL, 0, IBV_ACCESS_LOCAL_WRITE),
			  IBV_REREG_MR_ERR_INPUT, "access without ON_DEMAND");
	TEST_ASSERT_EQUAL(ibv_rereg_mr(imr, IBV_REREG_MR_CHANGE_ACCESS, NULL,
				       NULL, 0, acc | IBV_ACCESS_MW_BIND),
			  IBV_REREG_MR_ERR_INPUT, "access with MW_BIND");
	pd2 = ibv_alloc_pd(ctx);
	TEST_ASSERT_NOT_NULL(pd2, "");
	TEST_ASSERT_EQUAL(ibv_rereg_mr(imr,
				       IBV_REREG_MR_CHANGE_ACCESS |
					       IBV_REREG_MR_CHANGE_PD,
				       pd2, NULL, 0, ODP_ALL),
			  0, "access and PD");
	TEST_ASSERT(dpv_mkey_get(to_dctx(ctx)->dev, imr->lkey, &k) &&
			    k.type == DPV_MKEY_IMPLICIT &&
			    k.access == ODP_ALL && k.pdn == to_dpd(pd2)->pdn &&
			    k.length == SIZE_MAX,
		    "still implicit, with the new access and PD");
	TEST_ASSERT(imr->addr == NULL && imr->length == SIZE_MAX, "");
	TEST_ASSERT_EQUAL(ibv_dealloc_pd(pd2), EBUSY, "pd2 is in use");
	TEST_ASSERT_EQUAL(ibv_dereg_mr(imr), 0, "");
	TEST_ASSERT_EQUAL(ibv_dealloc_pd(pd2), 0, "");

	imr = ibv_reg_mr_iova2(pd, NULL, SIZE_MAX, 0, acc);
	TEST_ASSERT_NOT_NULL(imr, "iova2 with iova 0 (errno %d)", errno);
	TEST_ASSERT(imr->addr == NULL && imr->length == SIZE_MAX, "");
	TEST_ASSERT_EQUAL(ibv_dereg_mr(imr), 0, "");

	EXPECT_NULL_ERRNO(
		ibv_reg_mr(pd, NULL, SIZE_MAX, IBV_ACCESS_LOCAL_WRITE), EINVAL,
		"without ON_DEMAND");
	EXPECT_NULL_ERRNO(ibv_reg_mr_iova2(pd, NULL, SIZE_MAX, 0x1000, acc),
			  EINVAL, "iova 0x1000");
	EXPECT_NULL_ERRNO(
		ibv_reg_mr(pd, NULL, SIZE_MAX, acc | IBV_ACCESS_MW_BIND),
		EINVAL, "MW_BIND");
	EXPECT_NULL_ERRNO(
		ibv_reg_mr(pd, NULL, SIZE_MAX, acc | IBV_ACCESS_ZERO_BASED),
		EINVAL, "ZERO_BASED");
	EXPECT_NULL_ERRNO(ibv_reg_mr(pd, NULL, SIZE_MAX - 1, acc), EINVAL,
			  "NULL with another length");
	TEST_ASSERT_EQUAL(atomic_load(&to_dpd(pd)->refcnt), 1,
			  "only the suite's region holds the PD");
	return TEST_SUCCESS;
}

/*
 * wr from the first QP of a new RC pair (after receive rs at the second
 * if rs is set): the status of its completion, -1 if none came; the
 * receive's status in *rst (-1 if none came, unchanged without rs).
 */
static int
pair_op(struct ibv_send_wr *wr, struct ibv_sge *rs, int *rst)
{
	struct test_loop_conn c = {
		.mtu = IBV_MTU_1024, .timeout = 14, .rd_atomic = 4};
	struct ibv_cq *scq = ibv_create_cq(ctx, 8, NULL, NULL, 0);
	struct ibv_cq *rcq = ibv_create_cq(ctx, 8, NULL, NULL, 0);
	struct ibv_recv_wr rw = {.wr_id = 2, .sg_list = rs, .num_sge = 1};
	struct ibv_qp *qp[2] = {NULL, NULL};
	struct ibv_recv_wr *rb;
	struct ibv_wc wc;
	int st = -1;

	if (scq == NULL || rcq == NULL ||
	    test_loop_pair(pd, scq, rcq, IBV_QPT_RC, gid_index, &c, qp) != 0)
		goto out;
	if (rs != NULL && ibv_post_recv(qp[1], &rw, &rb) != 0)
		goto out;
	st = test_verbs_post_wait(qp[0], scq, wr);
	if (rs != NULL)
		*rst = test_loop_wait_wc(rcq, &wc, 1, 2000) == 1
			       ? (int)wc.status
			       : -1;
out:
	test_loop_unpair(qp, scq, rcq);
	return st;
}

/* An RDMA WRITE, READ or atomic (op) of local SGE s to or from remote
 * through rkey; add is an atomic's compare_add, swap its swap. */
static struct ibv_send_wr
rdma_wr(enum ibv_wr_opcode op, struct ibv_sge *s, uint64_t remote,
	uint32_t rkey, uint64_t add, uint64_t swap)
{
	struct ibv_send_wr w = {
		.wr_id = 1, .sg_list = s, .num_sge = 1, .opcode = op};

	if (op == IBV_WR_ATOMIC_FETCH_AND_ADD ||
	    op == IBV_WR_ATOMIC_CMP_AND_SWP) {
		w.wr.atomic.remote_addr = remote;
		w.wr.atomic.rkey = rkey;
		w.wr.atomic.compare_add = add;
		w.wr.atomic.swap = swap;
	} else {
		w.wr.rdma.remote_addr = remote;
		w.wr.rdma.rkey = rkey;
	}
	return w;
}

/* Atomic op (as rdma_wr()) from a new RC pair: the original value it
 * returned into s, UINT64_MAX if it failed. */
static uint64_t
atomic_op(enum ibv_wr_opcode op, struct ibv_sge *s, uint64_t remote,
	  uint32_t rkey, uint64_t add, uint64_t swap)
{
	struct ibv_send_wr w = rdma_wr(op, s, remote, rkey, add, swap);
	uint64_t v;

	if (pair_op(&w, NULL, NULL) != IBV_WC_SUCCESS)
		return UINT64_MAX;
	memcpy(&v, (void *)(uintptr_t)s->addr, sizeof(v));
	return v;
}

/* SEND, WRITE, READ and atomics through the implicit region's keys on
 * untouched pages. */
static int
test_implicit_traffic(void)
{
	struct ibv_mr *imr = ibv_reg_mr(pd, NULL, SIZE_MAX, ODP_ALL);
	uint8_t *src = pages(2), *dst = pages(2);
	uint64_t errs = key_errors(), v;
	struct ibv_send_wr w;
	struct ibv_sge s, rs;
	int rst = -1, rc = TEST_FAILED;

	TEST_ASSERT(imr != NULL && src != NULL && dst != NULL, "errno %d",
		    errno);
	for (size_t i = 0; i < 2 * pg; i++)
		src[i] = (uint8_t)(i * 7 + 3);
	TEST_ASSERT(!resident(dst) && !resident(dst + pg), "untouched");

	/* SEND 1000 bytes into the first page of dst */
	s = (struct ibv_sge){(uintptr_t)src + 10, 1000, imr->lkey};
	rs = (struct ibv_sge){(uintptr_t)dst, 1000, imr->lkey};
	w = (struct ibv_send_wr){
		.wr_id = 1, .sg_list = &s, .num_sge = 1, .opcode = IBV_WR_SEND};
	if (pair_op(&w, &rs, &rst) != IBV_WC_SUCCESS || rst != IBV_WC_SUCCESS ||
	    memcmp(dst, src + 10, 1000) != 0) {
		DPV_TEST_LOG("SEND: receive status %d", rst);
		goto out;
	}
	/* WRITE 1500 bytes across dst's page boundary */
	s = (struct ibv_sge){(uintptr_t)src + 100, 1500, imr->lkey};
	w = rdma_wr(IBV_WR_RDMA_WRITE, &s, (uintptr_t)dst + pg - 700, imr->rkey,
		    0, 0);
	if (pair_op(&w, NULL, NULL) != IBV_WC_SUCCESS ||
	    memcmp(dst + pg - 700, src + 100, 1500) != 0) {
		DPV_TEST_LOG("WRITE through the implicit rkey");
		goto out;
	}
	/* READ the 1500 bytes back into the second page of src */
	memset(src + pg, 0, 1500);
	s = (struct ibv_sge){(uintptr_t)src + pg, 1500, imr->lkey};
	w = rdma_wr(IBV_WR_RDMA_READ, &s, (uintptr_t)dst + pg - 700, imr->rkey,
		    0, 0);
	if (pair_op(&w, NULL, NULL) != IBV_WC_SUCCESS ||
	    memcmp(src + pg, src + 100, 1500) != 0) {
		DPV_TEST_LOG("READ through the implicit rkey");
		goto out;
	}
	/* FETCH_ADD 5 on dst's word at 2048 (100), then CMP_SWP 105 -> 7 */
	v = 100;
	memcpy(dst + 2048, &v, 8);
	s = (struct ibv_sge){(uintptr_t)src + 256, 8, imr->lkey};
	TEST_ASSERT_EQUAL(atomic_op(IBV_WR_ATOMIC_FETCH_AND_ADD, &s,
				    (uintptr_t)dst + 2048, imr->rkey, 5, 0),
			  100, "FETCH_ADD's original");
	TEST_ASSERT_EQUAL(atomic_op(IBV_WR_ATOMIC_CMP_AND_SWP, &s,
				    (uintptr_t)dst + 2048, imr->rkey, 105, 7),
			  105, "CMP_SWP's original");
	memcpy(&v, dst + 2048, 8);
	TEST_ASSERT_EQUAL(v, 7, "swapped");
	TEST_ASSERT_EQUAL(key_errors(), errs, "no access refused");
	rc = TEST_SUCCESS;
out:
	munmap(src, 2 * pg);
	munmap(dst, 2 * pg);
	TEST_ASSERT_EQUAL(ibv_dereg_mr(imr), 0, "");
	return rc;
}

/*
 * Addresses the process's mappings refuse, named through the implicit
 * keys: an error completion each, as for any key error, and the engine
 * goes on (each on a new QP pair, a good WRITE after them).
 */
static int
test_implicit_faults(void)
{
	struct ibv_mr *imr = ibv_reg_mr(pd, NULL, SIZE_MAX, ODP_ALL);
	uint8_t *p = pages(4), *gone, *ro, *none, *ok;
	uint64_t errs = key_errors();
	struct ibv_send_wr w;
	struct ibv_sge s, rs;
	int st, rst = -1;

	TEST_ASSERT(imr != NULL && p != NULL, "errno %d", errno);
	/* page 0: read-write; 1: unmapped; 2: read-only; 3: no access */
	ok = p;
	gone = p + pg;
	ro = p + 2 * pg;
	none = p + 3 * pg;
	memset(ro, 0x11, pg);
	TEST_ASSERT(munmap(gone, pg) == 0 && mprotect(ro, pg, PROT_READ) == 0 &&
			    mprotect(none, pg, PROT_NONE) == 0,
		    "");
	memset(mem[0], 0x5a, 512);

	/* remote side: WRITE to an unmapped and to a read-only page, READ
	 * of a page without access, FETCH_ADD on a read-only word */
	s = (struct ibv_sge){(uintptr_t)mem[0], 512, mr->lkey};
	w = rdma_wr(IBV_WR_RDMA_WRITE, &s, (uintptr_t)gone + 64, imr->rkey, 0,
		    0);
	st = pair_op(&w, NULL, NULL);
	TEST_ASSERT_EQUAL(st, IBV_WC_REM_ACCESS_ERR, "WRITE to unmapped");
	w.wr.rdma.remote_addr = (uintptr_t)ro + 64;
	st = pair_op(&w, NULL, NULL);
	TEST_ASSERT_EQUAL(st, IBV_WC_REM_ACCESS_ERR, "WRITE to read-only");
	TEST_ASSERT(ro[64] == 0x11 && ro[575] == 0x11, "nothing written");
	/* a WRITE that starts in a good page and ends in the gone one */
	w.wr.rdma.remote_addr = (uintptr_t)ok + pg - 100;
	st = pair_op(&w, NULL, NULL);
	TEST_ASSERT_EQUAL(st, IBV_WC_REM_ACCESS_ERR, "WRITE into unmapped");
	s.addr = (uintptr_t)mem[1];
	w = rdma_wr(IBV_WR_RDMA_READ, &s, (uintptr_t)none, imr->rkey, 0, 0);
	st = pair_op(&w, NULL, NULL);
	TEST_ASSERT_EQUAL(st, IBV_WC_REM_ACCESS_ERR, "READ of PROT_NONE");
	s.length = 8;
	w = rdma_wr(IBV_WR_ATOMIC_FETCH_AND_ADD, &s, (uintptr_t)ro + 8,
		    imr->rkey, 1, 0);
	st = pair_op(&w, NULL, NULL);
	TEST_ASSERT_EQUAL(st, IBV_WC_REM_ACCESS_ERR, "atomic on read-only");
	TEST_ASSERT(ro[8] == 0x11, "nothing added");
	TEST_ASSERT_EQUAL(key_errors() - errs, 5, "counted as key errors");

	/* local side: a SEND out of an unmapped page, a READ into a
	 * read-only one; a receive into a read-only page */
	s = (struct ibv_sge){(uintptr_t)gone, 64, imr->lkey};
	w = (struct ibv_send_wr){
		.wr_id = 1, .sg_list = &s, .num_sge = 1, .opcode = IBV_WR_SEND};
	st = pair_op(&w, NULL, NULL);
	TEST_ASSERT_EQUAL(st, IBV_WC_LOC_PROT_ERR, "SEND from unmapped");
	s = (struct ibv_sge){(uintptr_t)ro, 64, imr->lkey};
	w = rdma_wr(IBV_WR_RDMA_READ, &s, (uintptr_t)mem[0], 0, 0, 0);
	st = pair_op(&w, NULL, NULL);
	TEST_ASSERT_EQUAL(st, IBV_WC_LOC_PROT_ERR, "READ into read-only");
	s = (struct ibv_sge){(uintptr_t)mem[0], 64, mr->lkey};
	w = (struct ibv_send_wr){
		.wr_id = 1, .sg_list = &s, .num_sge = 1, .opcode = IBV_WR_SEND};
	rs = (struct ibv_sge){(uintptr_t)ro, 64, imr->lkey};
	st = pair_op(&w, &rs, &rst);
	TEST_ASSERT_EQUAL(rst, IBV_WC_LOC_PROT_ERR, "receive into read-only");
	TEST_ASSERT_EQUAL(st, IBV_WC_REM_OP_ERR, "its SEND");
	TEST_ASSERT(ro[0] == 0x11, "nothing received");

	/* the engine is fine: a good WRITE through the implicit rkey */
	s = (struct ibv_sge){(uintptr_t)mem[0], 512, mr->lkey};
	w = rdma_wr(IBV_WR_RDMA_WRITE, &s, (uintptr_t)ok + 64, imr->rkey, 0, 0);
	st = pair_op(&w, NULL, NULL);
	TEST_ASSERT_EQUAL(st, IBV_WC_SUCCESS, "a good WRITE after them");
	TEST_ASSERT(ok[64] == 0x5a && ok[575] == 0x5a, "written");
	munmap(p, 4 * pg);
	TEST_ASSERT_EQUAL(ibv_dereg_mr(imr), 0, "");
	return TEST_SUCCESS;
}

/* ibv_advise_mr of one SGE. */
static int
advise(struct ibv_pd *on, enum ibv_advise_mr_advice a, uint32_t flags,
       uint64_t addr, uint32_t len, uint32_t lkey)
{
	struct ibv_sge s = {addr, len, lkey};

	return ibv_advise_mr(on, a, flags, &s, 1);
}

/* Every advice, with and without FLUSH, through lkey on a fresh page of
 * the six at p each: PREFETCH and PREFETCH_WRITE fault it in (without
 * FLUSH too: at once here), NO_FAULT does not. */
static int
advise_all(uint32_t lkey, uint8_t *p)
{
	static const enum ibv_advise_mr_advice adv[] = {
		IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT,
		IBV_ADVISE_MR_ADVICE_PREFETCH,
		IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE,
	};

	for (unsigned int i = 0; i < sizeof(adv) / sizeof(adv[0]); i++) {
		for (uint32_t f = 0; f < 2; f++) {
			uint8_t *at = p + (2 * i + f) * pg;

			TEST_ASSERT(!resident(at), "untouched");
			TEST_ASSERT_EQUAL(
				advise(pd, adv[i], f, (uintptr_t)at, 100, lkey),
				0, "advice %d flags %u", adv[i], f);
			TEST_ASSERT_EQUAL(resident(at), i > 0,
					  "advice %d flags %u: resident",
					  adv[i], f);
		}
	}
	return TEST_SUCCESS;
}

static int
test_advise(void)
{
	const uint32_t F = IBV_ADVISE_MR_FLAG_FLUSH;
	const enum ibv_advise_mr_advice P = IBV_ADVISE_MR_ADVICE_PREFETCH;
	const enum ibv_advise_mr_advice PW =
		IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE;
	uint8_t *p = pages(8), *q = pages(8);
	struct ibv_mr *emr, *imr, *romr, *omr;
	struct ibv_sge two[2];
	struct ibv_pd *pd2 = ibv_alloc_pd(ctx);
	int rc;

	TEST_ASSERT(p != NULL && q != NULL && pd2 != NULL, "");
	emr = ibv_reg_mr(pd, p, 8 * pg,
			 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ON_DEMAND);
	imr = ibv_reg_mr(pd, NULL, SIZE_MAX,
			 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ON_DEMAND);
	romr = ibv_reg_mr(pd, mem[0], BUFLEN, IBV_ACCESS_ON_DEMAND);
	omr = ibv_reg_mr(pd2, mem[0], BUFLEN,
			 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ON_DEMAND);
	TEST_ASSERT(emr && imr && romr && omr, "errno %d", errno);

	/* success: explicit and implicit, each advice, sync and async */
	rc = advise_all(emr->lkey, p);
	TEST_ASSERT_EQUAL(rc, TEST_SUCCESS, "explicit region");
	rc = advise_all(imr->lkey, q);
	TEST_ASSERT_EQUAL(rc, TEST_SUCCESS, "implicit region");
	two[0] = (struct ibv_sge){(uintptr_t)p, 64, emr->lkey};
	two[1] = (struct ibv_sge){(uintptr_t)mem[1], 64, imr->lkey};
	TEST_ASSERT_EQUAL(ibv_advise_mr(pd, PW, F, two, 2), 0, "two SGEs");

	/* the keys */
	TEST_ASSERT_EQUAL(advise(pd, P, F, (uintptr_t)mem[0], 64, mr->lkey),
			  ENOENT, "not ODP");
	TEST_ASSERT_EQUAL(advise(pd, P, 0, (uintptr_t)mem[0], 64, mr->lkey),
			  ENOENT, "not ODP, async");
	TEST_ASSERT_EQUAL(advise(pd, P, F, (uintptr_t)p, 64, 0x12345600),
			  ENOENT, "no such key");
	TEST_ASSERT_EQUAL(advise(pd, P, F, (uintptr_t)mem[0], 64, omr->lkey),
			  EPERM, "another PD's region");
	TEST_ASSERT_EQUAL(advise(pd2, P, 0, (uintptr_t)p, 64, emr->lkey), EPERM,
			  "through another PD, async");
	TEST_ASSERT_EQUAL(advise(pd, PW, F, (uintptr_t)mem[0], 64, romr->lkey),
			  EPERM, "PREFETCH_WRITE on a read-only region");
	TEST_ASSERT_EQUAL(advise(pd, P, F, (uintptr_t)mem[0], 64, romr->lkey),
			  0, "PREFETCH on it");
	/* async: a bad key anywhere in the list fails it */
	two[1].lkey = mr->lkey;
	TEST_ASSERT_EQUAL(ibv_advise_mr(pd, P, 0, two, 2), ENOENT,
			  "a bad second SGE, async");
	if (DPV_CAP_MW) {
		struct ibv_mw *mw = ibv_alloc_mw(pd, IBV_MW_TYPE_2);

		TEST_ASSERT_NOT_NULL(mw, "");
		TEST_ASSERT_EQUAL(advise(pd, P, F, 0, 64, mw->rkey), EINVAL,
				  "a window");
		TEST_ASSERT_EQUAL(ibv_dealloc_mw(mw), 0, "");
	}

	/* the ranges: only a synchronous prefetch fails on them */
	TEST_ASSERT_EQUAL(
		advise(pd, P, F, (uintptr_t)p + 8 * pg - 32, 64, emr->lkey),
		EFAULT, "past the region's end");
	TEST_ASSERT_EQUAL(advise(pd, P, F, (uintptr_t)p - 1, 8, emr->lkey),
			  EFAULT, "before its start");
	TEST_ASSERT_EQUAL(
		advise(pd, P, 0, (uintptr_t)p + 8 * pg - 32, 64, emr->lkey), 0,
		"past the end, async: a hint");
	TEST_ASSERT_EQUAL(munmap(q, pg), 0, "");
	TEST_ASSERT_EQUAL(advise(pd, P, F, (uintptr_t)q, 64, imr->lkey), EFAULT,
			  "unmapped, implicit");
	TEST_ASSERT_EQUAL(advise(pd, IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT, F,
				 (uintptr_t)q, 64, imr->lkey),
			  0, "unmapped, NO_FAULT");
	TEST_ASSERT_EQUAL(advise(pd, P, 0, (uintptr_t)q, 64, imr->lkey), 0,
			  "unmapped, async");
	TEST_ASSERT_EQUAL(mprotect(q + pg, pg, PROT_READ), 0, "");
	TEST_ASSERT_EQUAL(advise(pd, PW, F, (uintptr_t)q + pg, 64, imr->lkey),
			  EFAULT, "PREFETCH_WRITE of a read-only page");
	TEST_ASSERT_EQUAL(advise(pd, P, F, (uintptr_t)q + pg, 64, imr->lkey), 0,
			  "PREFETCH of it");
	TEST_ASSERT_EQUAL(advise(pd, P, F, UINT64_MAX - 16, 64, imr->lkey),
			  EFAULT, "past the address space");

	/* the call */
	TEST_ASSERT_EQUAL(advise(pd, 3, F, (uintptr_t)p, 64, emr->lkey),
			  EOPNOTSUPP, "unknown advice");
	TEST_ASSERT_EQUAL(advise(pd, P, 2, (uintptr_t)p, 64, emr->lkey), EINVAL,
			  "unknown flag");
	TEST_ASSERT_EQUAL(ibv_advise_mr(pd, P, F, two, 0), EINVAL, "no SGE");
	TEST_ASSERT_EQUAL(ibv_advise_mr(pd, P, F, NULL, 1), EFAULT, "no list");

	TEST_ASSERT_EQUAL(ibv_dereg_mr(emr), 0, "");
	TEST_ASSERT_EQUAL(ibv_dereg_mr(imr), 0, "");
	TEST_ASSERT_EQUAL(ibv_dereg_mr(romr), 0, "");
	TEST_ASSERT_EQUAL(ibv_dereg_mr(omr), 0, "");
	TEST_ASSERT_EQUAL(ibv_dealloc_pd(pd2), 0, "");
	munmap(p, 8 * pg);
	munmap(q + pg, 7 * pg);
	return TEST_SUCCESS;
}

static const struct dpv_test_suite verbs_odp_suite = {
	.name = "verbs_odp",
	.setup = suite_setup,
	.teardown = suite_teardown,
	.cases =
		{
			TEST_CASE(test_implicit_reg),
			TEST_CASE(test_implicit_traffic),
			TEST_CASE(test_implicit_faults),
			TEST_CASE(test_advise),
			TEST_CASES_END(),
		},
};

static int
verbs_odp_autotest(void)
{
	return dpv_test_run_suite(&verbs_odp_suite);
}

DPV_TEST_REGISTER_FAST(verbs_odp_autotest, verbs_odp_autotest);
