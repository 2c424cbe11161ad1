/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The device clock: completion time stamps (IBV_WC_EX_WITH_COMPLETION_
 * TIMESTAMP, ..._WALLCLOCK), ibv_query_rt_values_ex and
 * mlx5dv_get_clock_info.
 *
 * A ConnectX stamps CQEs with its free-running core clock (hca_core_clock
 * kHz). Here the engine is software on the host's cores, so the device
 * clock is the CPU's time-stamp counter, read when the engine writes a
 * CQE of a CQ that asked for time stamps (drivers/rdma/mlx5/mlx5_cq.c):
 * invariant, the same on every core, and ~10 ns to read. Real time comes
 * from CLOCK_REALTIME sampled beside the counter: a thread keeps its own
 * sample for 100 ms and converts with a 32.32 fixed-point factor of the
 * counter's rate as DPDK measured it (an error of 1e-4 in that rate is
 * 10 us after 100 ms).
 */
#include <errno.h>
#include <stdint.h>
#include <time.h>

#include <rte_cycles.h>

#include "verbs_dv.h"
#include "verbs_int.h"

/* A (counter, CLOCK_REALTIME) pair: the counter read on both sides of the
 * clock read, its middle kept. */
static void
clock_sample(uint64_t *raw, uint64_t *ns)
{
	struct timespec ts;
	uint64_t a, b;

	a = rte_rdtsc();
	clock_gettime(CLOCK_REALTIME, &ts);
	b = rte_rdtsc();
	*raw = a + (b - a) / 2;
	*ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t
dpv_clock_khz(void)
{
	return rte_get_tsc_hz() / 1000;
}

uint64_t
dpv_clock_to_ns(uint64_t raw)
{
	static __thread uint64_t ref_raw, ref_ns, mult; /* ns << 32 / tick */
	uint64_t now = rte_rdtsc(), hz = rte_get_tsc_hz(), d;

	if (hz == 0)
		return 0;
	if (mult == 0 || now - ref_raw > hz / 10) {
		clock_sample(&ref_raw, &ref_ns);
		mult = (uint64_t)(((unsigned __int128)1000000000u << 32) / hz);
	}
	if (raw >= ref_raw) {
		d = raw - ref_raw;
		return ref_ns + (uint64_t)(((unsigned __int128)d * mult) >> 32);
	}
	d = ref_raw - raw;
	return ref_ns - (uint64_t)(((unsigned __int128)d * mult) >> 32);
}

int
dpv_query_rt_values(struct ibv_context *context, struct ibv_values_ex *values)
{
	uint32_t mask;

	if (context == NULL || values == NULL)
		return EINVAL;
	mask = values->comp_mask;
	if (mask & ~(uint32_t)IBV_VALUES_MASK_RAW_CLOCK)
		return EINVAL;
	values->comp_mask = 0;
	if (mask & IBV_VALUES_MASK_RAW_CLOCK) {
		/* the raw counter in tv_nsec, as mlx5 gives its cycles */
		values->raw_clock.tv_sec = 0;
		values->raw_clock.tv_nsec = (long)rte_rdtsc();
		values->comp_mask = IBV_VALUES_MASK_RAW_CLOCK;
	}
	return 0;
}

int
dpv_mlx5dv_get_clock_info(struct ibv_context *context,
			  struct mlx5dv_clock_info *ci)
{
	uint64_t hz = rte_get_tsc_hz();

	if (context == NULL || ci == NULL)
		return EINVAL;
	if (hz == 0)
		return EOPNOTSUPP;
	/* ns = (ticks * mult) >> shift: with shift 24, mult fits 32 bits
	 * for any counter above 4 MHz and the product 64 bits for 18
	 * minutes of ticks at any rate (mlx5dv_ts_to_ns() converts time
	 * stamps near the sample; call again to refresh, as the kernel
	 * refreshes a ConnectX's) */
	ci->shift = 24;
	ci->mult = (uint32_t)(((uint64_t)1000000000u << 24) / hz);
	ci->frac = 0;
	ci->mask = UINT64_MAX;
	clock_sample(&ci->last_cycles, &ci->nsec);
	return 0;
}
