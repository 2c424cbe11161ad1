/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * QP scale through the public verbs API on dpv0: as many QPs as the device
 * advertises (max_qp) can be created, deep queues do not exhaust EAL's
 * memory (-m), one more QP is refused with ENOMEM, and destroying them
 * gives all their memory back.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "dpv_test.h"
#include "mlx5_ring.h"
#include "qp.h"
#include "verbs_int.h"

static struct ibv_device **devs;
static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_qp **qps;

static int
suite_setup(void)
{
	int n;

	if (dpv_test_eal_init() != 0)
		return TEST_SKIPPED;
	devs = ibv_get_device_list(&n);
	if (devs == NULL || n == 0)
		return TEST_SKIPPED;
	ctx = ibv_open_device(devs[0]);
	pd = ctx ? ibv_alloc_pd(ctx) : NULL;
	cq = ctx ? ibv_create_cq(ctx, 64, NULL, NULL, 0) : NULL;
	return pd && cq ? TEST_SUCCESS : TEST_FAILED;
}

static void
suite_teardown(void)
{
	if (cq)
		ibv_destroy_cq(cq);
	if (pd)
		ibv_dealloc_pd(pd);
	if (ctx)
		ibv_close_device(ctx);
	ibv_free_device_list(devs);
	cq = NULL;
	pd = NULL;
	ctx = NULL;
	devs = NULL;
}

static struct ibv_qp *
mkqp(uint32_t depth)
{
	struct ibv_qp_init_attr a = {
		.send_cq = cq,
		.recv_cq = cq,
		.qp_type = IBV_QPT_RC,
		.cap = {.max_send_wr = depth,
			.max_recv_wr = depth,
			.max_send_sge = 1,
			.max_recv_sge = 1},
	};

	return ibv_create_qp(pd, &a);
}

/* Create up to max QPs of depth; the number made. */
static int
fill(int max, uint32_t depth)
{
	int i;

	for (i = 0; i < max; i++) {
		qps[i] = mkqp(depth);
		if (qps[i] == NULL)
			break;
	}
	return i;
}

static int
drain(int n)
{
	int bad = 0;

	for (int i = 0; i < n; i++)
		bad += ibv_destroy_qp(qps[i]) != 0;
	return bad;
}

/* Every advertised QP can be made; one more is ENOMEM; all memory back. */
static int
case_max_qp(void)
{
	struct ibv_device_attr attr;
	uint64_t mem0 = dpv_mlx5_mem_in_use();
	unsigned int there = dpv_qp_list(dctx_dev(ctx), NULL, 0);
	int want, made, err;
	struct ibv_qp *extra;

	TEST_ASSERT_EQUAL(ibv_query_device(ctx, &attr), 0, "query");
	want = attr.max_qp - (int)there;
	qps = calloc(attr.max_qp + 1, sizeof(*qps));
	TEST_ASSERT(qps != NULL, "calloc");
	made = fill(want, 64);
	err = errno;
	extra = made == want ? mkqp(64) : NULL;
	if (extra == NULL)
		err = errno;
	DPV_TEST_LOG("%d of max_qp %d QPs (%u there before), %" PRIu64
		     " bytes each",
		     made, attr.max_qp, there,
		     made ? (dpv_mlx5_mem_in_use() - mem0) / made : 0);
	if (extra != NULL)
		ibv_destroy_qp(extra);
	TEST_ASSERT_EQUAL(drain(made), 0, "destroy");
	free(qps);
	qps = NULL;
	TEST_ASSERT_EQUAL(made, want, "only %d of %d QPs (%s)", made, want,
			  strerror(err));
	TEST_ASSERT(extra == NULL && err == ENOMEM,
		    "QP beyond max_qp: %s", extra ? "created" : strerror(err));
	TEST_ASSERT_EQUAL(dpv_mlx5_mem_in_use(), mem0,
			  "memory kept after destroy");
	return TEST_SUCCESS;
}

/* Deep queues: QPs are not bounded by EAL's -m (256 MB here). */
static int
case_deep_queues(void)
{
	const int want = 2048;
	uint64_t mem0 = dpv_mlx5_mem_in_use();
	int made, err;

	qps = calloc(want, sizeof(*qps));
	TEST_ASSERT(qps != NULL, "calloc");
	made = fill(want, 256);
	err = errno;
	DPV_TEST_LOG("%d QPs of 256 WRs, %" PRIu64 " bytes each", made,
		     made ? (dpv_mlx5_mem_in_use() - mem0) / made : 0);
	TEST_ASSERT_EQUAL(drain(made), 0, "destroy");
	free(qps);
	qps = NULL;
	TEST_ASSERT_EQUAL(made, want, "only %d QPs of 256 WRs (%s)", made,
			  strerror(err));
	TEST_ASSERT_EQUAL(dpv_mlx5_mem_in_use(), mem0,
			  "memory kept after destroy");
	return TEST_SUCCESS;
}

static struct dpv_test_suite qp_scale_suite = {
	.name = "qp_scale",
	.setup = suite_setup,
	.teardown = suite_teardown,
	.cases =
		{
			TEST_CASE(case_max_qp),
			TEST_CASE(case_deep_queues),
			TEST_CASES_END(),
		},
};

static int
qp_scale(void)
{
	return dpv_test_run_suite(&qp_scale_suite);
}

DPV_TEST_REGISTER_FAST(qp_scale, qp_scale);
