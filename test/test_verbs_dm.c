/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Device memory (ibv_alloc_dm(3), lib/verbs/verbs_dm.c) on the first
 * device:
 *  - ibv_alloc_dm: what it refuses (comp_mask, length 0, an alignment
 *    above a page: EINVAL; more than max_dm_size: ENOMEM), the device's
 *    budget shared by its allocations and given back by ibv_free_dm, the
 *    alignment asked for;
 *  - ibv_memcpy_to_dm / ibv_memcpy_from_dm: bytes round trip; offsets and
 *    lengths not multiples of 4 EINVAL, beyond the allocation EFAULT,
 *    nothing copied then;
 *  - ibv_reg_dm_mr: only zero-based (EINVAL), within the allocation, addr
 *    NULL; ibv_free_dm EBUSY while a region uses it; no rereg;
 *  - traffic over loopback RC QPs: an RDMA WRITE into device memory, an
 *    RDMA READ and a SEND out of it, a FETCH_ADD on one of its words.
 * rdma-core's test_device.DMTest and test_mr.DeviceMemory* run it too
 * (slow-pyverbs.sh).
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "dpv_test.h"
#include "test_loop_util.h"
#include "test_verbs_util.h"

#define BUFLEN 4096
#define DM_MAX (256 * 1024)

static struct ibv_device **devs;
static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_mr *mr;
static uint8_t mem[2][BUFLEN];
static int gid_index = -1;

static int
suite_setup(void)
{
	union ibv_gid gid;

	return test_verbs_loop_open(&devs, &ctx, &pd, &mr, mem, sizeof(mem),
				    IBV_ACCESS_LOCAL_WRITE |
					    IBV_ACCESS_REMOTE_WRITE |
					    IBV_ACCESS_REMOTE_READ,
				    &gid, &gid_index);
}

static void
suite_teardown(void)
{
	test_verbs_loop_close(&devs, &ctx, &pd, &mr);
}

/* ibv_alloc_dm, NULL and errno on failure. */
static struct ibv_dm *
dm_alloc(size_t len, uint32_t log_align, uint32_t comp_mask, int *err)
{
	struct ibv_alloc_dm_attr a = {.length = len,
				      .log_align_req = log_align,
				      .comp_mask = comp_mask};
	struct ibv_dm *dm;

	errno = 0;
	dm = ibv_alloc_dm(ctx, &a);
	*err = dm == NULL ? errno : 0;
	return dm;
}

static int
test_dm_alloc(void)
{
	struct ibv_device_attr_ex ax;
	struct ibv_dm *a, *b, *c;
	int err;

	TEST_ASSERT_EQUAL(ibv_query_device_ex(ctx, NULL, &ax), 0, "");
	TEST_ASSERT_EQUAL(ax.max_dm_size, DM_MAX, "max_dm_size");
	TEST_ASSERT_NULL(dm_alloc(64, 0, 1, &err), "comp_mask");
	TEST_ASSERT_EQUAL(err, EINVAL, "");
	TEST_ASSERT_NULL(dm_alloc(0, 0, 0, &err), "length 0");
	TEST_ASSERT_EQUAL(err, EINVAL, "");
	TEST_ASSERT_NULL(dm_alloc(64, 13, 0, &err), "alignment");
	TEST_ASSERT_EQUAL(err, EINVAL, "");
	TEST_ASSERT_NULL(dm_alloc(DM_MAX + 4, 0, 0, &err), "too long");
	TEST_ASSERT_EQUAL(err, ENOMEM, "");
	/* the device's budget: two halves fit, then nothing */
	a = dm_alloc(DM_MAX / 2, 0, 0, &err);
	TEST_ASSERT_NOT_NULL(a, "errno %d", err);
	b = dm_alloc(DM_MAX / 2, 12, 0, &err);
	TEST_ASSERT_NOT_NULL(b, "errno %d", err);
	TEST_ASSERT(a->handle != b->handle && a->context == ctx, "");
	TEST_ASSERT_NULL(dm_alloc(4, 0, 0, &err), "over the budget");
	TEST_ASSERT_EQUAL(err, ENOMEM, "");
	TEST_ASSERT_EQUAL(ibv_free_dm(a), 0, "");
	c = dm_alloc(100, 0, 0, &err);
	TEST_ASSERT_NOT_NULL(c, "given back: errno %d", err);
	TEST_ASSERT_EQUAL(ibv_free_dm(b), 0, "");
	TEST_ASSERT_EQUAL(ibv_free_dm(c), 0, "");
	return TEST_SUCCESS;
}

static int
test_dm_copy(void)
{
	uint8_t in[256], out[256];
	struct ibv_dm *dm;
	int err;

	dm = dm_alloc(200, 0, 0, &err);
	TEST_ASSERT_NOT_NULL(dm, "errno %d", err);
	for (int i = 0; i < 256; i++)
		in[i] = (uint8_t)(i * 13 + 5);
	memset(out, 0, sizeof(out));
	TEST_ASSERT_EQUAL(ibv_memcpy_from_dm(out, dm, 0, 200), 0, "");
	for (int i = 0; i < 200; i++)
		TEST_ASSERT_EQUAL(out[i], 0, "new memory is zeroed");
	TEST_ASSERT_EQUAL(ibv_memcpy_to_dm(dm, 8, in, 192), 0, "");
	TEST_ASSERT_EQUAL(ibv_memcpy_from_dm(out, dm, 8, 192), 0, "");
	TEST_ASSERT_BUFFERS_EQUAL(out, in, 192, "round trip");
	TEST_ASSERT_EQUAL(ibv_memcpy_to_dm(dm, 0, in, 0), 0, "nothing");
	/* refused, nothing copied */
	TEST_ASSERT_EQUAL(ibv_memcpy_to_dm(dm, 2, out + 100, 4), EINVAL,
			  "offset");
	TEST_ASSERT_EQUAL(ibv_memcpy_to_dm(dm, 8, out + 100, 6), EINVAL,
			  "length");
	TEST_ASSERT_EQUAL(ibv_memcpy_to_dm(dm, 196, out + 100, 8), EFAULT,
			  "beyond");
	TEST_ASSERT_EQUAL(ibv_memcpy_to_dm(dm, UINT64_MAX - 3, out, 8), EFAULT,
			  "wraps");
	TEST_ASSERT_EQUAL(ibv_memcpy_from_dm(out, dm, 4, 200), EFAULT, "");
	TEST_ASSERT_EQUAL(ibv_memcpy_from_dm(out, dm, 1, 4), EINVAL, "");
	memset(out, 0, sizeof(out));
	TEST_ASSERT_EQUAL(ibv_memcpy_from_dm(out, dm, 8, 192), 0, "");
	TEST_ASSERT_BUFFERS_EQUAL(out, in, 192, "unchanged");
	TEST_ASSERT_EQUAL(ibv_free_dm(dm), 0, "");
	return TEST_SUCCESS;
}

static int
test_dm_mr(void)
{
	const unsigned int acc = IBV_ACCESS_ZERO_BASED | IBV_ACCESS_LOCAL_WRITE;
	struct ibv_mr *m, *m0;
	struct ibv_dm *dm;
	int err;

	dm = dm_alloc(256, 0, 0, &err);
	TEST_ASSERT_NOT_NULL(dm, "errno %d", err);
	errno = 0;
	TEST_ASSERT_NULL(ibv_reg_dm_mr(pd, dm, 0, 64, IBV_ACCESS_LOCAL_WRITE),
			 "not zero-based");
	TEST_ASSERT_EQUAL(errno, EINVAL, "");
	errno = 0;
	TEST_ASSERT_NULL(ibv_reg_dm_mr(pd, dm, 128, 132, acc), "beyond");
	TEST_ASSERT_EQUAL(errno, EINVAL, "");
	errno = 0;
	TEST_ASSERT_NULL(
		ibv_reg_dm_mr(pd, dm, 0, 64,
			      IBV_ACCESS_ZERO_BASED | IBV_ACCESS_REMOTE_WRITE),
		"remote write without local write");
	TEST_ASSERT_EQUAL(errno, EINVAL, "");
	m = ibv_reg_dm_mr(pd, dm, 128, 128, acc);
	TEST_ASSERT_NOT_NULL(m, "errno %d", errno);
	TEST_ASSERT(m->addr == NULL && m->length == 128 && m->pd == pd, "");
	m0 = ibv_reg_dm_mr(pd, dm, 256, 0, acc);
	TEST_ASSERT_NOT_NULL(m0, "an empty one at the end: errno %d", errno);
	TEST_ASSERT_EQUAL(ibv_free_dm(dm), EBUSY, "regions on it");
	TEST_ASSERT_EQUAL(
		ibv_rereg_mr(m, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0, acc),
		IBV_REREG_MR_ERR_INPUT, "no rereg");
	TEST_ASSERT_EQUAL(ibv_dereg_mr(m), 0, "");
	TEST_ASSERT_EQUAL(ibv_free_dm(dm), EBUSY, "one left");
	TEST_ASSERT_EQUAL(ibv_dereg_mr(m0), 0, "");
	TEST_ASSERT_EQUAL(ibv_free_dm(dm), 0, "");
	return TEST_SUCCESS;
}

/*
 * Loopback RC traffic with device memory as both a remote and a local
 * region: WRITE into it, READ out of it, SEND from it, FETCH_ADD on it.
 */
static int
test_dm_traffic(void)
{
	struct test_loop_conn c = {
		.mtu = IBV_MTU_1024, .timeout = 14, .rd_atomic = 4};
	struct ibv_qp *qp[2] = {NULL, NULL};
	uint8_t got[512];
	struct ibv_send_wr wr;
	struct ibv_recv_wr rw, *rb;
	struct ibv_sge s, rs;
	struct ibv_wc wc;
	struct ibv_cq *cq;
	struct ibv_dm *dm;
	struct ibv_mr *dmr;
	uint64_t v;
	int err, rc = TEST_FAILED;

	dm = dm_alloc(1024, 3, 0, &err);
	TEST_ASSERT_NOT_NULL(dm, "errno %d", err);
	/* the region starts 256 bytes into the memory: address 0 is there */
	dmr = ibv_reg_dm_mr(pd, dm, 256, 768,
			    IBV_ACCESS_ZERO_BASED | IBV_ACCESS_LOCAL_WRITE |
				    IBV_ACCESS_REMOTE_WRITE |
				    IBV_ACCESS_REMOTE_READ |
				    IBV_ACCESS_REMOTE_ATOMIC);
	TEST_ASSERT_NOT_NULL(dmr, "errno %d", errno);
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	TEST_ASSERT_NOT_NULL(cq, "");
	if (test_loop_pair(pd, cq, cq, IBV_QPT_RC, gid_index, &c, qp) != 0)
		goto out;
	for (int i = 0; i < 512; i++)
		mem[0][i] = (uint8_t)(i * 3 + 1);

	/* WRITE 512 bytes to the region's address 64 */
	s = (struct ibv_sge){(uintptr_t)mem[0], 512, mr->lkey};
	wr = (struct ibv_send_wr){.wr_id = 1,
				  .sg_list = &s,
				  .num_sge = 1,
				  .opcode = IBV_WR_RDMA_WRITE};
	wr.wr.rdma.remote_addr = 64;
	wr.wr.rdma.rkey = dmr->rkey;
	if (test_verbs_post_wait(qp[0], cq, &wr) != IBV_WC_SUCCESS)
		goto out;
	memset(got, 0, sizeof(got));
	if (ibv_memcpy_from_dm(got, dm, 256 + 64, 512) != 0 ||
	    memcmp(got, mem[0], 512) != 0) {
		DPV_TEST_LOG("WRITE did not land in device memory");
		goto out;
	}
	/* READ it back from address 128 into host memory */
	memset(mem[1], 0, 256);
	s = (struct ibv_sge){(uintptr_t)mem[1], 256, mr->lkey};
	wr.opcode = IBV_WR_RDMA_READ;
	wr.wr.rdma.remote_addr = 128;
	if (test_verbs_post_wait(qp[0], cq, &wr) != IBV_WC_SUCCESS ||
	    memcmp(mem[1], mem[0] + 64, 256) != 0) {
		DPV_TEST_LOG("READ out of device memory");
		goto out;
	}
	/* SEND 100 bytes from the region (local key, address 64) */
	memset(mem[1], 0, 256);
	rs = (struct ibv_sge){(uintptr_t)mem[1], 256, mr->lkey};
	rw = (struct ibv_recv_wr){.wr_id = 3, .sg_list = &rs, .num_sge = 1};
	s = (struct ibv_sge){64, 100, dmr->lkey};
	wr.opcode = IBV_WR_SEND;
	if (ibv_post_recv(qp[1], &rw, &rb) != 0 ||
	    test_verbs_post_wait(qp[0], cq, &wr) != IBV_WC_SUCCESS ||
	    test_loop_wait_wc(cq, &wc, 1, 2000) != 1 ||
	    wc.status != IBV_WC_SUCCESS || wc.byte_len != 100 ||
	    memcmp(mem[1], mem[0], 100) != 0) {
		DPV_TEST_LOG("SEND from device memory");
		goto out;
	}
	/* FETCH_ADD on the 8 bytes at address 0 */
	v = 40;
	if (ibv_memcpy_to_dm(dm, 256, &v, 8) != 0)
		goto out;
	s = (struct ibv_sge){(uintptr_t)mem[1], 8, mr->lkey};
	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	wr.wr.atomic.remote_addr = 0;
	wr.wr.atomic.rkey = dmr->rkey;
	wr.wr.atomic.compare_add = 2;
	if (test_verbs_post_wait(qp[0], cq, &wr) != IBV_WC_SUCCESS)
		goto out;
	memcpy(&v, mem[1], 8);
	if (v != 40 || ibv_memcpy_from_dm(&v, dm, 256, 8) != 0 || v != 42) {
		DPV_TEST_LOG("FETCH_ADD on device memory: %llu",
			     (unsigned long long)v);
		goto out;
	}
	/* a WRITE past the region's end: remote access error */
	s = (struct ibv_sge){(uintptr_t)mem[0], 16, mr->lkey};
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.wr.rdma.remote_addr = 760;
	wr.wr.rdma.rkey = dmr->rkey;
	if (test_verbs_post_wait(qp[0], cq, &wr) != IBV_WC_REM_ACCESS_ERR) {
		DPV_TEST_LOG("a WRITE beyond the region was not refused");
		goto out;
	}
	rc = TEST_SUCCESS;
out:
	for (int i = 0; i < 2; i++)
		if (qp[i] != NULL)
			ibv_destroy_qp(qp[i]);
	ibv_destroy_cq(cq);
	TEST_ASSERT_EQUAL(ibv_dereg_mr(dmr), 0, "");
	TEST_ASSERT_EQUAL(ibv_free_dm(dm), 0, "");
	return rc;
}

static const struct dpv_test_suite verbs_dm_suite = {
	.name = "verbs_dm",
	.setup = suite_setup,
	.teardown = suite_teardown,
	.cases =
		{
			TEST_CASE(test_dm_alloc),
			TEST_CASE(test_dm_copy),
			TEST_CASE(test_dm_mr),
			TEST_CASE(test_dm_traffic),
			TEST_CASES_END(),
		},
};

static int
verbs_dm_autotest(void)
{
	return dpv_test_run_suite(&verbs_dm_suite);
}

DPV_TEST_REGISTER_FAST(verbs_dm_autotest, verbs_dm_autotest);
