/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Completion time stamps and the device clock (lib/verbs/verbs_clock.c)
 * on the first device:
 *  - ibv_query_device_ex: hca_core_clock is the time-stamp counter's rate
 *    (kHz), completion_timestamp_mask all 64 bits;
 *  - ibv_query_rt_values_ex: the raw clock now (in raw_clock.tv_nsec),
 *    an unknown comp_mask bit EINVAL;
 *  - CQs created with IBV_WC_EX_WITH_COMPLETION_TIMESTAMP(_WALLCLOCK):
 *    over loopback RC SENDs each completion's stamp lies between the
 *    counter read before the post and after the poll, stamps never go
 *    back, the receive is stamped before the send's ACK, the wall clock
 *    reading is CLOCK_REALTIME's (within 1 ms) and agrees with
 *    mlx5dv_get_clock_info() + mlx5dv_ts_to_ns(); a CQ without the flag
 *    reads 0;
 *  - refused: time stamps with CQE compression (EOPNOTSUPP).
 * rdma-core's tests.test_mlx5_timestamp runs it too (slow-pyverbs-mlx5.sh).
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>
#include <rte_cycles.h>

#include "dpv_test.h"
#include "test_loop_util.h"
#include "test_verbs_util.h"
#include "verbs_dv.h"
#include "verbs_int.h"

#define BUFLEN 4096
#define NMSG   16
#define TS_FLAGS                                                               \
	(IBV_WC_EX_WITH_COMPLETION_TIMESTAMP |                                 \
	 IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK)

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
				    IBV_ACCESS_LOCAL_WRITE, &gid, &gid_index);
}

static void
suite_teardown(void)
{
	test_verbs_loop_close(&devs, &ctx, &pd, &mr);
}

static uint64_t
realtime_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static int
test_clock_attrs(void)
{
	struct ibv_values_ex v = {.comp_mask = IBV_VALUES_MASK_RAW_CLOCK};
	struct ibv_device_attr_ex ax;
	uint64_t t0, t1;

	TEST_ASSERT_EQUAL(ibv_query_device_ex(ctx, NULL, &ax), 0, "");
	TEST_ASSERT_EQUAL(ax.hca_core_clock, rte_get_tsc_hz() / 1000, "kHz");
	TEST_ASSERT(ax.hca_core_clock > 0, "a clock");
	TEST_ASSERT_EQUAL(ax.completion_timestamp_mask, UINT64_MAX, "mask");
	t0 = rte_rdtsc();
	TEST_ASSERT_EQUAL(ibv_query_rt_values_ex(ctx, &v), 0, "");
	t1 = rte_rdtsc();
	TEST_ASSERT_EQUAL(v.comp_mask, IBV_VALUES_MASK_RAW_CLOCK, "");
	TEST_ASSERT(v.raw_clock.tv_sec == 0 &&
			    (uint64_t)v.raw_clock.tv_nsec >= t0 &&
			    (uint64_t)v.raw_clock.tv_nsec <= t1,
		    "the counter now");
	v.comp_mask = 1u << 5;
	TEST_ASSERT_EQUAL(ibv_query_rt_values_ex(ctx, &v), EINVAL, "unknown");
	return TEST_SUCCESS;
}

static struct ibv_cq_ex *
cq_ex(uint64_t wc_flags)
{
	struct ibv_cq_init_attr_ex a = {
		.cqe = 4 * NMSG,
		.wc_flags = IBV_WC_STANDARD_FLAGS | wc_flags,
	};

	return ibv_create_cq_ex(ctx, &a);
}

/* The next completion of x: status, its stamp (0 if none) and wall
 * clock; -1 if none came within a second. */
static int
poll_one(struct ibv_cq_ex *x, uint64_t *ts, uint64_t *wall, uint64_t *wr_id)
{
	struct ibv_poll_cq_attr pa = {0};
	uint64_t until = rte_rdtsc() + rte_get_tsc_hz();
	int rc, st;

	while ((rc = ibv_start_poll(x, &pa)) == ENOENT && rte_rdtsc() < until)
		;
	if (rc != 0)
		return -1;
	st = x->status;
	*wr_id = x->wr_id;
	*ts = ibv_wc_read_completion_ts(x);
	*wall = ibv_wc_read_completion_wallclock_ns(x);
	ibv_end_poll(x);
	return st;
}

/* RC SENDs over loopback between QPs completing into scq and rcq. */
static int
ts_traffic(struct ibv_cq_ex *scq, struct ibv_cq_ex *rcq, bool stamped)
{
	struct test_loop_conn c = {.mtu = IBV_MTU_1024, .timeout = 14};
	struct ibv_qp *qp[2] = {NULL, NULL};
	struct mlx5dv_clock_info ci;
	uint64_t last_s = 0, last_r = 0;
	int rc = TEST_FAILED;

	if (test_loop_pair(pd, ibv_cq_ex_to_cq(scq), ibv_cq_ex_to_cq(rcq),
			   IBV_QPT_RC, gid_index, &c, qp) != 0)
		goto out;
	for (int m = 0; m < NMSG; m++) {
		struct ibv_sge rs = {(uintptr_t)mem[1], 64, mr->lkey};
		struct ibv_sge ss = {(uintptr_t)mem[0], 64, mr->lkey};
		struct ibv_recv_wr rw = {.wr_id = m,
					 .sg_list = &rs,
					 .num_sge = 1},
				   *rb;
		struct ibv_send_wr sw = {.wr_id = m,
					 .sg_list = &ss,
					 .num_sge = 1,
					 .opcode = IBV_WR_SEND,
					 .send_flags = IBV_SEND_SIGNALED},
				   *sb;
		uint64_t t0, t1, sts, rts, swall, rwall, id, now;

		if (ibv_post_recv(qp[1], &rw, &rb) != 0)
			goto out;
		t0 = rte_rdtsc();
		if (ibv_post_send(qp[0], &sw, &sb) != 0 ||
		    poll_one(rcq, &rts, &rwall, &id) != IBV_WC_SUCCESS ||
		    poll_one(scq, &sts, &swall, &id) != IBV_WC_SUCCESS)
			goto out;
		t1 = rte_rdtsc();
		now = realtime_ns();
		if (!stamped) {
			if (sts != 0 || rts != 0) {
				DPV_TEST_LOG("a CQ without time stamps: %llu",
					     (unsigned long long)sts);
				goto out;
			}
			continue;
		}
		if (sts < t0 || sts > t1 || rts < t0 || rts > t1 || rts > sts ||
		    sts < last_s || rts < last_r) {
			DPV_TEST_LOG("msg %d: post %llu recv %llu send %llu "
				     "polled %llu",
				     m, (unsigned long long)t0,
				     (unsigned long long)rts,
				     (unsigned long long)sts,
				     (unsigned long long)t1);
			goto out;
		}
		last_s = sts;
		last_r = rts;
		/* the wall clock: CLOCK_REALTIME's, within 1 ms (a
		 * counter stamp converted with the counter's rate as
		 * DPDK measured it, from a sample up to 100 ms old) */
		if ((swall > now ? swall - now : now - swall) > 1000000 ||
		    rwall > swall) {
			DPV_TEST_LOG("wall clock %llu, now %llu",
				     (unsigned long long)swall,
				     (unsigned long long)now);
			goto out;
		}
		/* and as mlx5dv converts the raw stamp (within 100 us) */
		if (dpv_mlx5dv_get_clock_info(ctx, &ci) != 0)
			goto out;
		{
			uint64_t dv = mlx5dv_ts_to_ns(&ci, sts);
			uint64_t d = dv > swall ? dv - swall : swall - dv;

			if (d > 100000) {
				DPV_TEST_LOG("mlx5dv_ts_to_ns %llu, wall %llu",
					     (unsigned long long)dv,
					     (unsigned long long)swall);
				goto out;
			}
		}
	}
	rc = TEST_SUCCESS;
out:
	for (int i = 0; i < 2; i++)
		if (qp[i] != NULL)
			ibv_destroy_qp(qp[i]);
	return rc;
}

static int
test_ts_traffic(void)
{
	struct ibv_cq_ex *scq = cq_ex(TS_FLAGS), *rcq = cq_ex(TS_FLAGS);
	int rc;

	TEST_ASSERT(scq != NULL && rcq != NULL, "errno %d", errno);
	rc = ts_traffic(scq, rcq, true);
	ibv_destroy_cq(ibv_cq_ex_to_cq(scq));
	ibv_destroy_cq(ibv_cq_ex_to_cq(rcq));
	return rc;
}

static int
test_no_ts(void)
{
	struct ibv_cq_ex *scq = cq_ex(0), *rcq = cq_ex(0);
	int rc;

	TEST_ASSERT(scq != NULL && rcq != NULL, "errno %d", errno);
	rc = ts_traffic(scq, rcq, false);
	ibv_destroy_cq(ibv_cq_ex_to_cq(scq));
	ibv_destroy_cq(ibv_cq_ex_to_cq(rcq));
	return rc;
}

/* CQE compression's mini CQEs carry no stamp: refused together. */
static int
test_ts_compressed(void)
{
	struct ibv_cq_init_attr_ex a = {
		.cqe = 64,
		.wc_flags = IBV_WC_STANDARD_FLAGS |
			    IBV_WC_EX_WITH_COMPLETION_TIMESTAMP,
	};

	errno = 0;
	TEST_ASSERT_NULL(dpv_mlx5dv_create_cq(ctx, &a, 64, 0,
					      MLX5DV_CQE_RES_FORMAT_HASH),
			 "compressed with time stamps");
	TEST_ASSERT_EQUAL(errno, EOPNOTSUPP, "");
	return TEST_SUCCESS;
}

static const struct dpv_test_suite verbs_ts_suite = {
	.name = "verbs_ts",
	.setup = suite_setup,
	.teardown = suite_teardown,
	.cases =
		{
			TEST_CASE(test_clock_attrs),
			TEST_CASE(test_ts_traffic),
			TEST_CASE(test_no_ts),
			TEST_CASE(test_ts_compressed),
			TEST_CASES_END(),
		},
};

static int
verbs_ts_autotest(void)
{
	return dpv_test_run_suite(&verbs_ts_suite);
}

DPV_TEST_REGISTER_FAST(verbs_ts_autotest, verbs_ts_autotest);
