/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpv-c2c: how long one cache line takes to pass between two CPUs, now.
 * Two threads, one pinned to each CPU, hand a counter back and forth
 * through one line; the time per hand-over is what every memif transfer
 * between two processes on those CPUs waits for (a frame's descriptor,
 * its data, the ring's head). On a VM whose host moves its vCPUs between
 * cores that share a last-level cache and cores that do not, it takes
 * two values minutes or seconds apart (30 against 230 ns here), and
 * every two-process figure moves with it: devtools/bench.py runs this
 * around each case to tell the two placements apart.
 *
 *   dpv-c2c [--cpus A,B] [--trips N] [--max-ms MS]
 *
 * CPUs: the first two the process may run on. Ends with one line
 * "RESULT c2c_ns=<ns per hand-over> trips=<N>"; exit status 1, and no
 * RESULT, with fewer than two CPUs or when the time limit (default 1 s)
 * ends it first (the host did not run both threads at once).
 */
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cpus.h"

static struct {
	_Alignas(64) _Atomic uint64_t turn; /* odd: the peer's, even: ours */
	_Alignas(64) _Atomic int stop;
} shared;

static uint64_t trips = 20000;

/* hand-overs before the timed ones: the peer thread is on its CPU and
 * both threads' code and the line are warm when timing starts (a short
 * run timed from the thread's creation read twice the true time) */
#define WARMUP 2000

/* the peer: answers each odd value with the next even one */
static void *
peer(void *arg)
{
	int cpu = *(const int *)arg;

	if (pin(cpu) != 0)
		atomic_store(&shared.stop, 1);
	for (uint64_t i = 0; i < WARMUP + trips; i++) {
		uint64_t want = 2 * i + 1;

		while (atomic_load_explicit(&shared.turn,
					    memory_order_acquire) != want)
			if (atomic_load_explicit(&shared.stop,
						 memory_order_relaxed))
				return NULL;
		atomic_store_explicit(&shared.turn, want + 1,
				      memory_order_release);
	}
	return NULL;
}

int
main(int argc, char **argv)
{
	static const struct option lo[] = {
		{"cpus", required_argument, NULL, 'c'},
		{"trips", required_argument, NULL, 't'},
		{"max-ms", required_argument, NULL, 'm'},
		{NULL, 0, NULL, 0},
	};
	int cpu[2] = {-1, -1}, o;
	double max_s = 1.0, t0, t1, t_start = 0;
	uint64_t done = 0;
	pthread_t th;

	while ((o = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (o) {
		case 'c':
			if (sscanf(optarg, "%d,%d", &cpu[0], &cpu[1]) != 2 ||
			    cpu[0] < 0 || cpu[1] < 0 || cpu[0] == cpu[1]) {
				fprintf(stderr, "dpv-c2c: --cpus A,B: two "
						"different CPU numbers\n");
				return 2;
			}
			break;
		case 't':
			trips = strtoull(optarg, NULL, 0);
			if (trips == 0 || trips > 100000000) {
				fprintf(stderr, "dpv-c2c: --trips 1 to 1e8\n");
				return 2;
			}
			break;
		case 'm':
			max_s = atof(optarg) / 1000;
			if (!(max_s > 0)) {
				fprintf(stderr, "dpv-c2c: --max-ms > 0\n");
				return 2;
			}
			break;
		default:
			fprintf(stderr, "usage: dpv-c2c [--cpus A,B] "
					"[--trips N] [--max-ms MS]\n");
			return 2;
		}
	}
	if (cpu[0] < 0 && allowed_cpus(cpu, 2) != 2) {
		fprintf(stderr, "dpv-c2c: needs two CPUs\n");
		return 1;
	}
	if (pin(cpu[0]) != 0) {
		fprintf(stderr, "dpv-c2c: cannot run on CPU %d\n", cpu[0]);
		return 1;
	}
	o = pthread_create(&th, NULL, peer, &cpu[1]);
	if (o != 0) {
		fprintf(stderr, "dpv-c2c: pthread_create: %s\n", strerror(o));
		return 1;
	}
	t0 = now_s();
	for (uint64_t i = 0; i < WARMUP + trips; i++) {
		uint64_t want = 2 * i + 2;
		unsigned int spins = 0;

		atomic_store_explicit(&shared.turn, want - 1,
				      memory_order_release);
		while (atomic_load_explicit(&shared.turn,
					    memory_order_acquire) != want) {
			/* the clock only now and then, while waiting */
			if (atomic_load_explicit(&shared.stop,
						 memory_order_relaxed) ||
			    ((++spins & 0xfff) == 0 && now_s() - t0 > max_s))
				goto out;
		}
		if (i + 1 == WARMUP)
			t_start = now_s();
		else if (i >= WARMUP)
			done++;
	}
out:
	t1 = now_s();
	atomic_store(&shared.stop, 1);
	pthread_join(th, NULL);
	if (done < trips) {
		fprintf(stderr,
			"dpv-c2c: %llu of %llu hand-overs in %.0f ms (CPUs "
			"%d and %d not both running?)\n",
			(unsigned long long)done, (unsigned long long)trips,
			(t1 - t0) * 1e3, cpu[0], cpu[1]);
		return 1;
	}
	printf("RESULT c2c_ns=%.1f trips=%llu cpus=%d,%d\n",
	       (t1 - t_start) * 1e9 / (double)(2 * trips),
	       (unsigned long long)trips, cpu[0], cpu[1]);
	return 0;
}
