/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the floor's two probes (dpv-c2c, dpv-stall) both need: the
 * monotonic clock in seconds, the calling thread pinned to one CPU, and
 * the CPUs this process may run on.
 */
#ifndef DPV_FLOOR_CPUS_H
#define DPV_FLOOR_CPUS_H

#include <pthread.h>
#include <sched.h>
#include <time.h>

static inline double
now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* The calling thread on CPU cpu alone: pthread_setaffinity_np()'s 0 or
 * error number. */
static inline int
pin(int cpu)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	return pthread_setaffinity_np(pthread_self(), sizeof(s), &s);
}

/* The first max CPUs this process may run on, lowest first, into cpus:
 * how many there were, or -1. */
static inline int
allowed_cpus(int *cpus, int max)
{
	cpu_set_t s;
	int n = 0;

	if (sched_getaffinity(0, sizeof(s), &s) != 0)
		return -1;
	for (int c = 0; c < CPU_SETSIZE && n < max; c++)
		if (CPU_ISSET(c, &s))
			cpus[n++] = c;
	return n;
}

#endif /* DPV_FLOOR_CPUS_H */
