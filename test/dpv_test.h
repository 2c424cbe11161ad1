/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DPV_TEST_H
#define DPV_TEST_H

/**
 * @file
 * The dpverbs unit test runner: one binary (dpv-test) of registered tests.
 *
 * A test is a function returning TEST_SUCCESS, TEST_FAILED or TEST_SKIPPED.
 * It is registered with one of
 *
 *     DPV_TEST_REGISTER_FAST(name, fn);   runs in CI (meson suite "fast")
 *     DPV_TEST_REGISTER_SLOW(name, fn);   longer functional runs ("slow")
 *     DPV_TEST_REGISTER_PERF(name, fn);   benchmarks that print numbers ("perf")
 *
 * on a line of its own (buildtools/list-tests.py reads these lines to make
 * one meson test per registration). A registered function usually runs a
 * suite: a named list of cases with optional suite-wide and per-case
 * setup/teardown, via dpv_test_run_suite().
 *
 * Run one test:   dpv-test <name>
 * List them:      dpv-test --list
 * Run a suite:    dpv-test --suite fast
 */

#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <inttypes.h>

#define TEST_SUCCESS 0
#define TEST_FAILED (-1)
/** Same value as the exit code meson reads as "skipped". */
#define TEST_SKIPPED 77

#define DPV_TEST_LOG(fmt, ...)                                                 \
	fprintf(stderr, "%s:%d: " fmt "\n", __FILE__, __LINE__, ##__VA_ARGS__)

/** Fail the running test with a message when cond is false. */
#define TEST_ASSERT(cond, fmt, ...)                                            \
	do {                                                                   \
		if (!(cond)) {                                                 \
			DPV_TEST_LOG("assertion failed: %s: " fmt, #cond,     \
				     ##__VA_ARGS__);                           \
			return TEST_FAILED;                                    \
		}                                                              \
	} while (0)

#define TEST_ASSERT_EQUAL(a, b, fmt, ...)                                      \
	do {                                                                   \
		long long a_ = (long long)(a), b_ = (long long)(b);            \
		if (a_ != b_) {                                                \
			DPV_TEST_LOG("%s == %s failed (%lld != %lld): " fmt,  \
				     #a, #b, a_, b_, ##__VA_ARGS__);           \
			return TEST_FAILED;                                    \
		}                                                              \
	} while (0)

#define TEST_ASSERT_NOT_EQUAL(a, b, fmt, ...)                                  \
	do {                                                                   \
		long long a_ = (long long)(a), b_ = (long long)(b);            \
		if (a_ == b_) {                                                \
			DPV_TEST_LOG("%s != %s failed (both %lld): " fmt, #a, \
				     #b, a_, ##__VA_ARGS__);                   \
			return TEST_FAILED;                                    \
		}                                                              \
	} while (0)

#define TEST_ASSERT_NULL(p, fmt, ...) TEST_ASSERT((p) == NULL, fmt, ##__VA_ARGS__)
#define TEST_ASSERT_NOT_NULL(p, fmt, ...)                                      \
	TEST_ASSERT((p) != NULL, fmt, ##__VA_ARGS__)

/** Compare two buffers; on mismatch report the first differing offset. */
#define TEST_ASSERT_BUFFERS_EQUAL(a, b, len, fmt, ...)                         \
	do {                                                                   \
		size_t off_ = dpv_test_first_diff((a), (b), (len));            \
		if (off_ != (size_t)-1) {                                      \
			DPV_TEST_LOG("buffers differ at offset %zu of %zu: " fmt, \
				     off_, (size_t)(len), ##__VA_ARGS__);      \
			return TEST_FAILED;                                    \
		}                                                              \
	} while (0)

struct dpv_test_case {
	const char *name;
	int (*setup)(void);     /**< optional; non-zero skips the case as failed */
	void (*teardown)(void); /**< optional */
	int (*fn)(void);
};

#define TEST_CASE(fn) { #fn, NULL, NULL, fn }
#define TEST_CASE_ST(setup, teardown, fn) { #fn, setup, teardown, fn }
#define TEST_CASES_END() { NULL, NULL, NULL, NULL }

struct dpv_test_suite {
	const char *name;
	int (*setup)(void);     /**< optional; TEST_SKIPPED skips the suite */
	void (*teardown)(void); /**< optional */
	struct dpv_test_case cases[];
};

/**
 * Run every case of a suite, printing one line per case.
 * @return TEST_SUCCESS if no case failed (and at least one passed),
 *   TEST_SKIPPED if the suite setup or every case skipped, else TEST_FAILED.
 */
int dpv_test_run_suite(const struct dpv_test_suite *suite);

/**
 * Bring up DPDK EAL once for this process with the runner's arguments
 * (no hugepages, no PCI, no shared config; override with the environment
 * variable DPV_TEST_EAL). Tests that need EAL call this first.
 * @return 0 on success, -1 if EAL cannot start.
 */
int dpv_test_eal_init(void);

/** Directory of the repository's shared captures (../shared/captures
 *  from the source root, or $DPV_CAPTURES). */
const char *dpv_test_captures_dir(void);

/** Offset of the first differing byte, or (size_t)-1 if equal. */
size_t dpv_test_first_diff(const void *a, const void *b, size_t len);

enum dpv_test_kind { DPV_TEST_FAST, DPV_TEST_SLOW, DPV_TEST_PERF };

struct dpv_test {
	const char *name;
	enum dpv_test_kind kind;
	int (*fn)(void);
	struct dpv_test *next;
};

void dpv_test_add(struct dpv_test *t);

#define DPV_TEST_REGISTER_(name_, kind_, fn_)                                  \
	static struct dpv_test dpv_test_##name_ = {                            \
		.name = #name_, .kind = kind_, .fn = fn_};                     \
	__attribute__((constructor)) static void dpv_test_reg_##name_(void)    \
	{                                                                      \
		dpv_test_add(&dpv_test_##name_);                               \
	}

#define DPV_TEST_REGISTER_FAST(name, fn) DPV_TEST_REGISTER_(name, DPV_TEST_FAST, fn)
#define DPV_TEST_REGISTER_SLOW(name, fn) DPV_TEST_REGISTER_(name, DPV_TEST_SLOW, fn)
#define DPV_TEST_REGISTER_PERF(name, fn) DPV_TEST_REGISTER_(name, DPV_TEST_PERF, fn)

#endif
