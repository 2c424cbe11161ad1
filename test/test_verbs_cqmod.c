/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Completion event moderation (ibv_modify_cq with IBV_CQ_ATTR_MODERATE:
 * lib/verbs/verbs_cq.c; an arm's count and period in
 * drivers/rdma/mlx5/mlx5_cq.c; the periods' ends in
 * lib/engine/engine_cqmod.c) on the first device:
 *  - cq_mod_caps: ConnectX's 65535 CQEs and 4095 us;
 *  - refused with EINVAL: a mask other than IBV_CQ_ATTR_MODERATE, a period
 *    above 4095 us; a refused call changes nothing;
 *  - over a loopback RC pair whose receive CQ has a completion channel
 *    (test_cqmod_util.c): count 4, the first three CQEs after an arm
 *    raise no event and the fourth does; a large count and a 4 ms period,
 *    one CQE's event comes when the period has passed, with no more
 *    traffic; a solicited-only arm counts solicited CQEs only; without
 *    moderation (0/0, count 1, period 0) every arm fires on its first
 *    CQE again.
 * This binary starts EAL itself, so the device runs on application-driven
 * progress; test/scripts/fast-cqmod-modes.sh runs the same scenarios with
 * a progress thread, worker lcores, two shards and mlx4 rings.
 */
#include <errno.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "dpv_test.h"
#include "test_cqmod_util.h"
#include "test_verbs_util.h"
#include "verbs_int.h"

static struct ibv_device **devs;
static uint8_t mem[4096];
/* the device, PD, MR over mem and GID every case uses */
static struct cqmod_env dev = {.buf = mem, .gid_index = -1};

static int
suite_setup(void)
{
	union ibv_gid gid;

	return test_verbs_loop_open(&devs, &dev.ctx, &dev.pd, &dev.mr, mem,
				    sizeof(mem), IBV_ACCESS_LOCAL_WRITE, &gid,
				    &dev.gid_index);
}

static void
suite_teardown(void)
{
	test_verbs_loop_close(&devs, &dev.ctx, &dev.pd, &dev.mr);
}

static int
test_caps(void)
{
	struct ibv_device_attr_ex ax;

	TEST_ASSERT_EQUAL(ibv_query_device_ex(dev.ctx, NULL, &ax), 0, "");
	TEST_ASSERT_EQUAL(ax.cq_mod_caps.max_cq_count, 65535, "count");
	TEST_ASSERT_EQUAL(ax.cq_mod_caps.max_cq_period, 4095, "period, us");
	return TEST_SUCCESS;
}

static int
modify(struct ibv_cq *c, uint32_t mask, uint16_t count, uint16_t period)
{
	struct ibv_modify_cq_attr a = {
		.attr_mask = mask,
		.moderate = {.cq_count = count, .cq_period = period},
	};

	return ibv_modify_cq(c, &a);
}

static int
test_errors(void)
{
	static const struct {
		uint32_t mask;
		uint16_t count, period;
	} bad[] = {
		{0, 4, 100},
		{IBV_CQ_ATTR_RESERVED, 4, 100},
		{IBV_CQ_ATTR_MODERATE | IBV_CQ_ATTR_RESERVED, 4, 100},
		{1u << 7, 4, 100},
		{IBV_CQ_ATTR_MODERATE, 4, 4096},
		{IBV_CQ_ATTR_MODERATE, 0, UINT16_MAX},
	};
	struct ibv_comp_channel *ch = ibv_create_comp_channel(dev.ctx);
	struct ibv_cq *c = ibv_create_cq(dev.ctx, 4, NULL, ch, 0);
	struct ibv_cq *plain = ibv_create_cq(dev.ctx, 4, NULL, NULL, 0);
	const uint32_t *req;
	uint32_t set;

	TEST_ASSERT(ch != NULL && c != NULL && plain != NULL, "");
	/* the values an arm takes, as the verbs layer stored them */
	req = &to_dcq(c)->ring.mod_req;
	TEST_ASSERT_EQUAL(*req, 0, "none at first");
	TEST_ASSERT_EQUAL(modify(c, IBV_CQ_ATTR_MODERATE, 65535, 4095), 0,
			  "the limits");
	TEST_ASSERT_EQUAL(modify(c, IBV_CQ_ATTR_MODERATE, 4, 100), 0, "");
	set = *req;
	TEST_ASSERT(set != 0, "stored");
	for (unsigned int i = 0; i < RTE_DIM(bad); i++) {
		TEST_ASSERT_EQUAL(
			modify(c, bad[i].mask, bad[i].count, bad[i].period),
			EINVAL, "case %u", i);
		TEST_ASSERT_EQUAL(*req, set, "case %u changed it", i);
	}
	TEST_ASSERT_EQUAL(modify(c, IBV_CQ_ATTR_MODERATE, 0, 0), 0, "off");
	TEST_ASSERT_EQUAL(*req, 0, "off");
	/* a CQ without a channel raises no event: nothing to moderate,
	 * but nothing to refuse either */
	TEST_ASSERT_EQUAL(modify(plain, IBV_CQ_ATTR_MODERATE, 8, 10), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_cq(plain), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_cq(c), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_comp_channel(ch), 0, "");
	return TEST_SUCCESS;
}

/* A scenario of test_cqmod_util.c on a pair of its own: test_<name>(). */
#define SCENARIO(name)                                                         \
	static int test_##name(void)                                           \
	{                                                                      \
		struct cqmod_env v = dev;                                      \
		int rc = cqmod_open(&v) == 0 ? cqmod_##name(&v) : -1;          \
                                                                               \
		cqmod_close(&v);                                               \
		return rc == 0 ? TEST_SUCCESS : TEST_FAILED;                   \
	}

SCENARIO(count)
SCENARIO(period)
SCENARIO(solicited)
SCENARIO(off)

static const struct dpv_test_suite verbs_cqmod_suite = {
	.name = "verbs_cqmod",
	.setup = suite_setup,
	.teardown = suite_teardown,
	.cases =
		{
			TEST_CASE(test_caps),
			TEST_CASE(test_errors),
			TEST_CASE(test_count),
			TEST_CASE(test_period),
			TEST_CASE(test_solicited),
			TEST_CASE(test_off),
			TEST_CASES_END(),
		},
};

static int
verbs_cqmod_autotest(void)
{
	return dpv_test_run_suite(&verbs_cqmod_suite);
}

DPV_TEST_REGISTER_FAST(verbs_cqmod_autotest, verbs_cqmod_autotest);
