/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpv-event-carry: what ibv_get_cq_event() does with the events it does
 * not take (lib/verbs/verbs_cq.c, chan_leave()), on the loopback device
 * the library starts itself, in the progress mode DPV_PROGRESS asks for
 * (test/scripts/fast-event-carry.sh runs it with a thread, without one
 * and with a worker lcore).
 * Two RC pairs on the device, each receive CQ on one channel. Both
 * events are raised in memory, as for a waiter polling in its window:
 * the channel's count of pollers is raised while the SENDs go and come
 * back (dpv_device_poll() runs the engine where no one else does), so
 * the waits below find both there at once and the outcome does not hang
 * on which thread raised them when:
 *  - carry: the waiter takes one; with a progress thread the other stays
 *    in memory (events_carried) and the next wait, at once, takes it from
 *    there (events_in_memory, no read()); without one (application-driven
 *    progress, a worker lcore) it goes on the fd;
 *  - flush: the waiter takes one and the program then waits in a poll()
 *    of the fd: POLLIN comes (with a thread, once the event has waited
 *    DPV_CHAN_CARRY_US in memory; without one, at once), and the next
 *    wait reads it from the fd;
 *  - sleeper: a second thread already waits asleep on the fd (no polling
 *    window) when the waiter takes its event: the other goes to the fd at
 *    once and wakes that thread (under application-driven progress the
 *    sleeper, which polls between its sleeps, may take one itself);
 *    nothing is carried.
 * After each, every completion is taken, nothing is left in memory or on
 * the fd, and each CQ's event came once. Prints one RESULT line; exits 0
 * when every scenario passed. Linked with the library's archives (not its
 * shared objects) to reach the channel's counts.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "dpv_engine.h"
#include "dpv_verbs.h"
#include "test_loop_util.h"
#include "verbs_int.h"

#define BUFLEN	   256
#define LIMIT_MS   2000 /* any wait of the scenarios, at most */
#define POLL_AT_MS 100	/* the fd is readable within this */

static uint8_t buf[4][BUFLEN];
static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_mr *mr;
static struct ibv_comp_channel *ch;
static struct ibv_cq *scq[2], *rcq[2];
static struct ibv_qp *qp[2][2];
static struct dpv_device *dev;
static int gid_index;

static uint64_t
now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000 + (uint64_t)t.tv_nsec / 1000;
}

#define CHECK(cond, ...)                                                       \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "event_carry: %s:%d: ", __func__,      \
				__LINE__);                                     \
			fprintf(stderr, __VA_ARGS__);                          \
			fprintf(stderr, "\n");                                 \
			return -1;                                             \
		}                                                              \
	} while (0)

/* A receive at pair p's second QP and a SEND to it from its first. */
static int
post_pair(int p)
{
	return test_loop_send_recv(qp[p], mr, buf[2 * p], 64, buf[2 * p + 1],
				   BUFLEN);
}

/* A completion of cq within LIMIT_MS, successful. */
static bool
one_wc(struct ibv_cq *cq)
{
	struct ibv_wc wc;

	return test_loop_wait_wc(cq, &wc, 1, LIMIT_MS) == 1 &&
	       wc.status == IBV_WC_SUCCESS;
}

/* Pair p's two completions. */
static int
drain_pair(int p)
{
	return one_wc(rcq[p]) && one_wc(scq[p]) ? 0 : -1;
}

/* One ibv_get_cq_event(), its CQ acked: the CQ's pair (0 or 1), or -1. */
static int
get_one(void)
{
	struct ibv_cq *c;
	void *cctx;

	if (ibv_get_cq_event(ch, &c, &cctx) != 0)
		return -1;
	ibv_ack_cq_events(c, 1);
	return c == rcq[0] ? 0 : c == rcq[1] ? 1 : -1;
}

/* Events raised in memory since: there now, or taken from there. */
static int
in_mem_since(uint64_t taken0)
{
	return atomic_load(&to_dchan(ch)->mem) +
	       (int)(atomic_load(&dev->events_in_memory) - taken0);
}

/* Both receive CQs armed, both SENDs sent and received with the
 * channel's pollers raised (as by a waiter in its window): both events
 * in memory (a waiter that sleeps polling, under application-driven
 * progress, may take one there meanwhile), none on the fd. */
static int
raise_two(void)
{
	struct dpv_comp_channel *dch = to_dchan(ch);
	uint64_t end = now_us() + LIMIT_MS * 1000;
	uint64_t taken0 = atomic_load(&dev->events_in_memory);
	int rc;

	if (ibv_req_notify_cq(rcq[0], 0) != 0 ||
	    ibv_req_notify_cq(rcq[1], 0) != 0)
		return -1;
	atomic_fetch_add(&dch->pollers, 1);
	rc = post_pair(0) | post_pair(1);
	while (rc == 0 && in_mem_since(taken0) < 2 && now_us() < end)
		dpv_device_poll(ctx, 0);
	atomic_fetch_sub(&dch->pollers, 1);
	return rc == 0 && in_mem_since(taken0) == 2 ? 0 : -1;
}

/* Every completion taken, nothing left on the channel. */
static int
finish(void)
{
	struct pollfd pfd = {.fd = ch->fd, .events = POLLIN};

	CHECK(drain_pair(0) == 0 && drain_pair(1) == 0, "completions");
	CHECK(atomic_load(&to_dchan(ch)->mem) == 0, "an event left in memory");
	CHECK(poll(&pfd, 1, 0) == 0, "an event left on the fd");
	return 0;
}

static int
scen_carry(bool thread)
{
	uint64_t c0 = atomic_load(&dev->events_carried);
	uint64_t m0 = atomic_load(&dev->events_in_memory);
	uint64_t t1, t2;
	int a, b;

	test_loop_event_window(ch, (uint64_t)LIMIT_MS * 1000);
	CHECK(raise_two() == 0, "both events in memory");
	a = get_one();
	t1 = now_us();
	b = get_one();
	t2 = now_us();
	CHECK(a >= 0 && b >= 0 && a != b, "events of CQs %d and %d", a, b);
	CHECK(atomic_load(&dev->events_carried) - c0 == (thread ? 1 : 0),
	      "carried %" PRIu64,
	      (uint64_t)(atomic_load(&dev->events_carried) - c0));
	/* the second wait began at once: the thread cannot have written
	 * the carried event to the fd yet */
	if (thread && t2 - t1 < DPV_CHAN_CARRY_US / 2)
		CHECK(atomic_load(&dev->events_in_memory) - m0 == 2,
		      "taken from memory: %" PRIu64 " of 2",
		      (uint64_t)(atomic_load(&dev->events_in_memory) - m0));
	if (!thread)
		CHECK(atomic_load(&dev->events_in_memory) - m0 == 1,
		      "taken from memory: %" PRIu64 " of 1",
		      (uint64_t)(atomic_load(&dev->events_in_memory) - m0));
	printf("event_carry: carry: 2 events, %" PRIu64
	       " from memory, the second wait %" PRIu64 " us\n",
	       (uint64_t)(atomic_load(&dev->events_in_memory) - m0), t2 - t1);
	return finish();
}

static int
scen_flush(bool thread)
{
	uint64_t c0 = atomic_load(&dev->events_carried);
	uint64_t m0 = atomic_load(&dev->events_in_memory);
	struct pollfd pfd = {.fd = ch->fd, .events = POLLIN};
	uint64_t t1, t2;
	int a, b, n;

	test_loop_event_window(ch, (uint64_t)LIMIT_MS * 1000);
	CHECK(raise_two() == 0, "both events in memory");
	a = get_one();
	t1 = now_us();
	n = poll(&pfd, 1, LIMIT_MS);
	t2 = now_us();
	CHECK(n == 1, "the fd not readable in %d ms", LIMIT_MS);
	CHECK(t2 - t1 < POLL_AT_MS * 1000, "readable after %" PRIu64 " us",
	      t2 - t1);
	b = get_one();
	CHECK(a >= 0 && b >= 0 && a != b, "events of CQs %d and %d", a, b);
	CHECK(atomic_load(&dev->events_carried) - c0 == (thread ? 1 : 0),
	      "carried %" PRIu64,
	      (uint64_t)(atomic_load(&dev->events_carried) - c0));
	CHECK(atomic_load(&dev->events_in_memory) - m0 == 1,
	      "taken from memory: %" PRIu64 " of 1",
	      (uint64_t)(atomic_load(&dev->events_in_memory) - m0));
	printf("event_carry: flush: the fd readable after %" PRIu64 " us\n",
	       t2 - t1);
	return finish();
}

/* The sleeper: one wait with no window (set before it starts). */
struct sleeper {
	pthread_t th;
	int got;
	uint64_t at; /* when it returned */
};

static void *
sleeper_main(void *arg)
{
	struct sleeper *s = arg;

	s->got = get_one();
	s->at = now_us();
	return NULL;
}

static int
scen_sleeper(void)
{
	uint64_t c0 = atomic_load(&dev->events_carried);
	uint64_t s0 = atomic_load(&dev->event_waits_slept);
	uint64_t end, t1;
	struct sleeper s = {.got = -2};
	int a, rc;

	test_loop_event_window(ch, 0);
	CHECK(pthread_create(&s.th, NULL, sleeper_main, &s) == 0, "sleeper");
	end = now_us() + LIMIT_MS * 1000;
	while (atomic_load(&dev->event_waits_slept) == s0 && now_us() < end)
		usleep(100);
	usleep(2000); /* in its read() or ppoll() */
	test_loop_event_window(ch, (uint64_t)LIMIT_MS * 1000);
	rc = raise_two();
	a = get_one();
	t1 = now_us();
	end = now_us() + LIMIT_MS * 1000;
	while (__atomic_load_n(&s.got, __ATOMIC_ACQUIRE) == -2 &&
	       now_us() < end)
		usleep(100);
	if (__atomic_load_n(&s.got, __ATOMIC_ACQUIRE) == -2) {
		/* its rescue: one more event, then the case fails */
		ibv_req_notify_cq(rcq[0], 0);
		post_pair(0);
		pthread_join(s.th, NULL);
		drain_pair(0);
		CHECK(false, "the sleeping waiter never woke");
	}
	pthread_join(s.th, NULL);
	CHECK(rc == 0, "both events in memory");
	CHECK(a >= 0 && s.got >= 0 && a != s.got, "events of CQs %d and %d", a,
	      s.got);
	CHECK(s.at < t1 || s.at - t1 < POLL_AT_MS * 1000,
	      "the sleeper woke %" PRIu64 " us after", s.at - t1);
	CHECK(atomic_load(&dev->events_carried) == c0,
	      "carried with a sleeper");
	printf("event_carry: sleeper: woke %" PRId64 " us after the waiter\n",
	       (int64_t)(s.at - t1));
	return finish();
}

int
main(void)
{
	struct test_loop_conn c = {
		.mtu = IBV_MTU_1024, .timeout = 14, .rd_atomic = 1};
	struct dpv_device_progress prog = {0};
	struct ibv_device **devs;
	union ibv_gid gid;
	int n = 0, failed = 0;
	bool thread;

	devs = ibv_get_device_list(&n);
	if (devs == NULL || n < 1) {
		fprintf(stderr, "no device\n");
		return 1;
	}
	ctx = ibv_open_device(devs[0]);
	pd = ctx != NULL ? ibv_alloc_pd(ctx) : NULL;
	mr = pd != NULL
		     ? ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE)
		     : NULL;
	gid_index = ctx != NULL ? test_loop_gid(ctx, &gid) : -1;
	ch = ctx != NULL ? ibv_create_comp_channel(ctx) : NULL;
	if (mr == NULL || gid_index < 0 || ch == NULL ||
	    dpv_device_progress_get(ctx, &prog) != 0) {
		fprintf(stderr, "no device, PD, MR, GID or channel\n");
		return 1;
	}
	dev = dctx_dev(ctx);
	for (int p = 0; p < 2; p++) {
		scq[p] = ibv_create_cq(ctx, 16, NULL, NULL, 0);
		rcq[p] = ibv_create_cq(ctx, 16, NULL, ch, 0);
		if (scq[p] == NULL || rcq[p] == NULL ||
		    test_loop_pair(pd, scq[p], rcq[p], IBV_QPT_RC, gid_index,
				   &c, qp[p]) != 0) {
			fprintf(stderr, "pair %d\n", p);
			return 1;
		}
	}
	thread = prog.mode == DPV_DEVICE_PROGRESS_THREAD;
	failed += scen_carry(thread) != 0;
	failed += scen_flush(thread) != 0;
	failed += scen_sleeper() != 0;
	printf("RESULT event_carry progress=%d failed=%d\n", prog.mode, failed);
	for (int p = 0; p < 2; p++)
		test_loop_unpair(qp[p], scq[p], rcq[p]);
	ibv_destroy_comp_channel(ch);
	ibv_dereg_mr(mr);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(devs);
	return failed != 0;
}
