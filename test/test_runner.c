/* SPDX-License-Identifier: BSD-3-Clause */
/* Tests of the runner itself: a failing case must fail its suite. */
#include "dpv_test.h"

static int
case_pass(void)
{
	TEST_ASSERT_EQUAL(1 + 1, 2, "arithmetic");
	return TEST_SUCCESS;
}

static int
case_fail(void)
{
	TEST_ASSERT_EQUAL(1, 2, "expected failure (runner self-test)");
	return TEST_SUCCESS;
}

static int
case_skip(void)
{
	return TEST_SKIPPED;
}

static int
setup_fail(void)
{
	return TEST_FAILED;
}

static const struct dpv_test_suite passing = {
	.name = "runner-passing",
	.cases = {TEST_CASE(case_pass), TEST_CASE(case_skip), TEST_CASES_END()},
};

static const struct dpv_test_suite failing = {
	.name = "runner-failing",
	.cases = {TEST_CASE(case_pass), TEST_CASE(case_fail), TEST_CASES_END()},
};

static const struct dpv_test_suite skipping = {
	.name = "runner-skipping",
	.cases = {TEST_CASE(case_skip), TEST_CASES_END()},
};

static const struct dpv_test_suite setup_fails = {
	.name = "runner-setup-fails",
	.cases = {TEST_CASE_ST(setup_fail, NULL, case_pass), TEST_CASES_END()},
};

static int
test_runner_self(void)
{
	uint8_t a[4] = {1, 2, 3, 4}, b[4] = {1, 2, 9, 4};

	TEST_ASSERT_EQUAL(dpv_test_run_suite(&passing), TEST_SUCCESS, "");
	TEST_ASSERT_EQUAL(dpv_test_run_suite(&failing), TEST_FAILED, "");
	TEST_ASSERT_EQUAL(dpv_test_run_suite(&skipping), TEST_SKIPPED, "");
	TEST_ASSERT_EQUAL(dpv_test_run_suite(&setup_fails), TEST_FAILED, "");
	TEST_ASSERT_EQUAL(dpv_test_first_diff(a, b, 4), 2, "");
	TEST_ASSERT_EQUAL(dpv_test_first_diff(a, a, 4), (size_t)-1, "");
	return TEST_SUCCESS;
}

DPV_TEST_REGISTER_FAST(runner_self, test_runner_self);

static int
test_eal_up(void)
{
	TEST_ASSERT_EQUAL(dpv_test_eal_init(), 0, "EAL must start without hugepages");
	TEST_ASSERT_EQUAL(dpv_test_eal_init(), 0, "second call is a no-op");
	return TEST_SUCCESS;
}

DPV_TEST_REGISTER_FAST(eal_no_huge, test_eal_up);
