/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpv-stall: the times a CPU ran nothing of this machine's for a while.
 * One thread per CPU, pinned and (where the process may) of real-time
 * priority SCHED_FIFO 1, sleeps a period (1 ms) again and again and
 * notes each wake-up that came late by more than a threshold (20 ms).
 * A real-time thread preempts every ordinary thread of its CPU, so a
 * late wake-up means the CPU itself did not run: a virtual machine's
 * vCPU that its host did not schedule, or a kernel that kept the CPU
 * with preemption off. On the development VM (2 vCPUs) one vCPU stops
 * for ~100 ms once every minute or two while two processes mix
 * spinning threads with sleeping ones, longer than the 67 ms an RC QP
 * with timeout 14 waits for an ACK (doc/guides/performance.rst).
 *
 *   dpv-stall [--secs S] [--period-us U] [--min-ms M] [--cpus A,B,...]
 *
 * Prints "STALL cpu=<c> ms=<late by> at=<CLOCK_MONOTONIC s>" for each,
 * as it happens, and at the end "RESULT stalls=<n> max_ms=<longest
 * sleep's overrun> wakeups=<n> fifo=<0|1>". Costs each CPU one wake-up a
 * period (~0.5 % of a spinning thread's time at 1 ms).
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cpus.h"

#define MAX_CPUS 64

static double secs = 10.0;
static long period_us = 1000;
static double min_ms = 20.0;

struct mon {
	pthread_t tid;
	int cpu;
	int fifo; /* got SCHED_FIFO */
	unsigned stalls;
	uint64_t wakeups;
	double max_late_ms;
};

static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

static void *
mon_main(void *arg)
{
	struct mon *m = arg;
	struct sched_param sp = {.sched_priority = 1};
	struct timespec next;
	double end;

	if (pin(m->cpu) != 0)
		return NULL;
	m->fifo = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp) == 0;
	clock_gettime(CLOCK_MONOTONIC, &next);
	end = now_s() + secs;
	for (;;) {
		struct timespec t;
		double late_ms;

		/* absolute deadlines: a late wake-up does not move the
		 * next one, and each is measured against its own */
		next.tv_nsec += period_us * 1000;
		while (next.tv_nsec >= 1000000000L) {
			next.tv_nsec -= 1000000000L;
			next.tv_sec++;
		}
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next,
				       NULL) == EINTR)
			;
		clock_gettime(CLOCK_MONOTONIC, &t);
		late_ms = (double)(t.tv_sec - next.tv_sec) * 1e3 +
			  (double)(t.tv_nsec - next.tv_nsec) * 1e-6;
		m->wakeups++;
		if (late_ms > m->max_late_ms)
			m->max_late_ms = late_ms;
		if (late_ms > min_ms) {
			m->stalls++;
			pthread_mutex_lock(&out_lock);
			printf("STALL cpu=%d ms=%.1f at=%.3f\n", m->cpu,
			       late_ms,
			       (double)t.tv_sec + (double)t.tv_nsec * 1e-9);
			fflush(stdout);
			pthread_mutex_unlock(&out_lock);
		}
		/* after a stall, the next deadline starts from now */
		if (late_ms > (double)period_us / 1000.0)
			next = t;
		if ((double)t.tv_sec + (double)t.tv_nsec * 1e-9 >= end)
			break;
	}
	return NULL;
}

static int
parse_cpus(const char *arg, struct mon *mons)
{
	char *copy = strdup(arg), *tok, *save = NULL;
	int n = 0;

	if (copy == NULL)
		return -1;
	for (tok = strtok_r(copy, ",", &save); tok != NULL;
	     tok = strtok_r(NULL, ",", &save)) {
		char *e;
		long c = strtol(tok, &e, 10);

		if (*e != '\0' || c < 0 || c >= CPU_SETSIZE || n == MAX_CPUS) {
			free(copy);
			return -1;
		}
		mons[n++].cpu = (int)c;
	}
	free(copy);
	return n;
}

static void
usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [--secs S] [--period-us U] [--min-ms M] "
		"[--cpus A,B,...]\n",
		prog);
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"secs", required_argument, NULL, 's'},
		{"period-us", required_argument, NULL, 'p'},
		{"min-ms", required_argument, NULL, 'm'},
		{"cpus", required_argument, NULL, 'c'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	static struct mon mons[MAX_CPUS];
	unsigned stalls = 0;
	uint64_t wakeups = 0;
	double max_ms = 0;
	int n = 0, fifo = 1, o;

	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 's':
			secs = atof(optarg);
			break;
		case 'p':
			period_us = atol(optarg);
			break;
		case 'm':
			min_ms = atof(optarg);
			break;
		case 'c':
			n = parse_cpus(optarg, mons);
			if (n <= 0) {
				fprintf(stderr, "bad --cpus %s\n", optarg);
				return 2;
			}
			break;
		default:
			usage(argv[0]);
			return o == 'h' ? 0 : 2;
		}
	}
	if (secs <= 0 || secs > 86400 || period_us < 10 ||
	    period_us > 1000000 || min_ms <= 0) {
		usage(argv[0]);
		return 2;
	}
	if (n == 0) {
		int cpus[MAX_CPUS];

		n = allowed_cpus(cpus, MAX_CPUS);
		if (n < 0) {
			perror("sched_getaffinity");
			return 1;
		}
		for (int i = 0; i < n; i++)
			mons[i].cpu = cpus[i];
	}
	for (int i = 0; i < n; i++)
		if (pthread_create(&mons[i].tid, NULL, mon_main, &mons[i]) !=
		    0) {
			fprintf(stderr, "cannot start a thread for CPU %d\n",
				mons[i].cpu);
			return 1;
		}
	for (int i = 0; i < n; i++) {
		pthread_join(mons[i].tid, NULL);
		if (mons[i].wakeups == 0) {
			fprintf(stderr, "CPU %d: not allowed\n", mons[i].cpu);
			return 1;
		}
		stalls += mons[i].stalls;
		wakeups += mons[i].wakeups;
		fifo &= mons[i].fifo;
		if (mons[i].max_late_ms > max_ms)
			max_ms = mons[i].max_late_ms;
	}
	printf("RESULT stalls=%u max_ms=%.2f wakeups=%llu fifo=%d\n", stalls,
	       max_ms, (unsigned long long)wakeups, fifo);
	return 0;
}
