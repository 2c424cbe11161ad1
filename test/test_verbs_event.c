/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * How ibv_get_cq_event() waits (lib/verbs/verbs_cq.c, wait_event()) on a
 * loopback RC pair whose receive CQ has a completion channel:
 *  - an event that comes within the polling window (DPV_EVENT_POLL_US,
 *    here the device's window set to 2 s) is answered while the caller
 *    polls: event_waits_polled counts it, event_waits_slept does not;
 *  - with no window (0), and with a 1 ms window the event comes 50 ms
 *    after, the caller sleeps and the event still wakes it (slept);
 *  - the channel's window adapts: halved after a wait that slept longer
 *    than the device's window, doubled (from 4 us when it was 0) after
 *    one that slept less;
 *  - a signal that comes while the caller polls (2 s window, signal at
 *    50 ms, no SA_RESTART) ends the wait with EINTR well before the
 *    window ends: it is not handled and forgotten with the wait going on
 *    into a read() that blocks; the same for a signal sent to the
 *    process (kill()), which none of the library's threads may take;
 *  - a non-blocking channel fd answers EAGAIN at once, without polling;
 *  - an event raised while the caller polls (2 s window, the SEND at
 *    50 ms) is taken from memory: events_in_memory counts it, and the
 *    channel's fd was not written (it is not readable after);
 *  - two events raised in one poll (the receive CQs of two pairs on the
 *    channel) while the caller polls and a second thread poll()s the fd:
 *    the event the caller does not take wakes that thread; each is
 *    taken once and nothing is left;
 *  - 400 events, each SEND a random 0-300 us after the waiter armed for
 *    it, with a 100 us window: every wait ends (an event raised as a
 *    window ends is neither left in memory with no one polling for it
 *    nor lost), each event taken once.
 * A case that would hang is ended after 3 s by a helper thread (the test
 * then fails).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include <rte_cycles.h>

#include "dpv_test.h"
#include "dpv_engine.h"
#include "test_loop_util.h"
#include "test_verbs_util.h"
#include "verbs_int.h"

#define BUFLEN	       256
#define LATE_MS	       50 /* the helper acts this long after the wait starts */
#define RESCUE_MS      3000 /* ends a wait that would hang */
#define WINDOW_LONG_US 2000000

static struct ibv_device **devs;
static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_mr *mr;
static uint8_t mem[2][BUFLEN];
static int gid_index = -1;
static struct ibv_comp_channel *ch;
static struct ibv_cq *scq, *rcq;
static struct ibv_qp *qp[2];

static int
suite_setup(void)
{
	struct test_loop_conn c = {
		.mtu = IBV_MTU_1024, .timeout = 14, .rd_atomic = 1};
	union ibv_gid gid;
	int rc;

	rc = test_verbs_loop_open(&devs, &ctx, &pd, &mr, mem, sizeof(mem),
				  IBV_ACCESS_LOCAL_WRITE, &gid, &gid_index);
	if (rc != TEST_SUCCESS)
		return rc;
	ch = ibv_create_comp_channel(ctx);
	scq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	rcq = ibv_create_cq(ctx, 16, NULL, ch, 0);
	if (ch == NULL || scq == NULL || rcq == NULL ||
	    test_loop_pair(pd, scq, rcq, IBV_QPT_RC, gid_index, &c, qp) != 0)
		return TEST_FAILED;
	return TEST_SUCCESS;
}

static void
suite_teardown(void)
{
	test_loop_unpair(qp, scq, rcq);
	if (ch != NULL)
		ibv_destroy_comp_channel(ch);
	rcq = scq = NULL;
	ch = NULL;
	test_verbs_loop_close(&devs, &ctx, &pd, &mr);
}

static uint64_t
now_ns(clockid_t c)
{
	struct timespec t;

	clock_gettime(c, &t);
	return (uint64_t)t.tv_sec * 1000000000 + (uint64_t)t.tv_nsec;
}

/* A poster's wait until the waiter has armed for event i (*armed > i),
 * for up to limit_ns: in 10 us sleeps with nap, else spinning (a sleep
 * that short lasts ~30 us or more on a VM). false when it gave up. */
static bool
wait_armed(const unsigned int *armed, unsigned int i, uint64_t limit_ns,
	   bool nap)
{
	uint64_t give_up = now_ns(CLOCK_MONOTONIC) + limit_ns;

	while (__atomic_load_n(armed, __ATOMIC_ACQUIRE) <= i) {
		const struct timespec ts = {0, 10000};

		if (now_ns(CLOCK_MONOTONIC) > give_up)
			return false;
		if (nap)
			nanosleep(&ts, NULL);
		else
			rte_pause();
	}
	return true;
}

static uint64_t
us_cycles(uint64_t us)
{
	return rte_get_tsc_hz() / 1000000 * us;
}

/* A receive at the second QP, then a SEND to it from the first: the
 * receive CQ's completion. 0 or -1. */
static int
send_one(void)
{
	return test_loop_send_recv(qp, mr, mem[0], 64, mem[1], BUFLEN) ? -1 : 0;
}

/* After the wait, the CQs hold the SEND's two completions: take them. */
static int
drain(void)
{
	struct ibv_wc wc;

	if (test_loop_wait_wc(rcq, &wc, 1, 2000) != 1 ||
	    wc.status != IBV_WC_SUCCESS || wc.opcode != IBV_WC_RECV)
		return -1;
	if (test_loop_wait_wc(scq, &wc, 1, 2000) != 1 ||
	    wc.status != IBV_WC_SUCCESS)
		return -1;
	return 0;
}

/* The helper thread: after LATE_MS a SEND (or a signal to the waiter);
 * a SEND anyway when the waiter still waits after RESCUE_MS. */
struct late {
	pthread_t waiter;
	bool signal;
	bool to_process; /* the signal to the process, not the waiter */
	volatile bool done;
	bool rescued;
};

static void
on_usr1(int sig)
{
	(void)sig;
}

static void *
late_main(void *p)
{
	struct late *l = p;
	sigset_t usr1;

	/* a signal to the process must find the waiter, not this thread */
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &usr1, NULL);
	usleep(LATE_MS * 1000);
	if (l->signal && l->to_process)
		kill(getpid(), SIGUSR1);
	else if (l->signal)
		pthread_kill(l->waiter, SIGUSR1);
	else if (send_one() != 0)
		return NULL;
	for (int i = 0; i < RESCUE_MS / 10 && !l->done; i++)
		usleep(10000);
	if (!l->done && l->signal) {
		l->rescued = true;
		send_one();
	}
	return NULL;
}

/* One ibv_get_cq_event() on the channel: its result, errno in *err, how
 * long it took in *ms and what it added to the counters. */
static int
wait_once(int *err, uint64_t *ms, uint64_t *polled, uint64_t *slept)
{
	struct dpv_device *dev = dctx_dev(ctx);
	uint64_t p0 = atomic_load(&dev->event_waits_polled);
	uint64_t s0 = atomic_load(&dev->event_waits_slept);
	uint64_t t0 = now_ns(CLOCK_MONOTONIC);
	struct ibv_cq *ecq = NULL;
	void *cctx;
	int rc;

	errno = 0;
	rc = ibv_get_cq_event(ch, &ecq, &cctx);
	*err = errno;
	*ms = (now_ns(CLOCK_MONOTONIC) - t0) / 1000000;
	*polled = atomic_load(&dev->event_waits_polled) - p0;
	*slept = atomic_load(&dev->event_waits_slept) - s0;
	if (rc == 0) {
		ibv_ack_cq_events(ecq, 1);
		if (ecq != rcq)
			return -2;
	}
	return rc;
}

/* Arm the receive CQ, start the helper l (a SEND or a signal LATE_MS
 * on) and wait once (wait_once()'s outs); -3 if no helper started. */
static int
late_wait(struct late *l, int *err, uint64_t *ms, uint64_t *polled,
	  uint64_t *slept)
{
	pthread_t th;
	int rc;

	if (ibv_req_notify_cq(rcq, 0) != 0 ||
	    pthread_create(&th, NULL, late_main, l) != 0)
		return -3;
	rc = wait_once(err, ms, polled, slept);
	l->done = true;
	pthread_join(th, NULL);
	return rc;
}

static int
test_polled(void)
{
	uint64_t ms, p, s;
	int err;

	test_loop_event_window(ch, WINDOW_LONG_US);
	TEST_ASSERT_EQUAL(ibv_req_notify_cq(rcq, 0), 0, "arm");
	TEST_ASSERT_EQUAL(send_one(), 0, "send");
	TEST_ASSERT_EQUAL(wait_once(&err, &ms, &p, &s), 0, "the event");
	TEST_ASSERT_EQUAL(p, 1, "answered while polling");
	TEST_ASSERT_EQUAL(s, 0, "no sleep");
	TEST_ASSERT_EQUAL(drain(), 0, "completions");
	return TEST_SUCCESS;
}

/* The SEND LATE_MS after the wait starts, with the windows as set: the
 * wait sleeps. */
static int
slept_wait(void)
{
	struct late l = {.waiter = pthread_self()};
	uint64_t ms, p, s;
	int err;

	TEST_ASSERT_EQUAL(late_wait(&l, &err, &ms, &p, &s), 0, "the event");
	TEST_ASSERT_EQUAL(s, 1, "slept");
	TEST_ASSERT_EQUAL(p, 0, "not answered while polling");
	TEST_ASSERT_EQUAL(drain(), 0, "completions");
	return TEST_SUCCESS;
}

/* The same with a window of window_us. */
static int
slept_case(uint64_t window_us)
{
	test_loop_event_window(ch, window_us);
	return slept_wait();
}

static int
test_slept_no_window(void)
{
	return slept_case(0);
}

static int
test_slept_after_window(void)
{
	return slept_case(1000);
}

/* A wait that slept longer than the longest window halves the
 * channel's; one that slept less doubles it, from EVENT_POLL_US_MIN (4)
 * when it was 0, while a try of the whole window is backed off (below). */
static int
test_window_adapts(void)
{
	struct dpv_comp_channel *dch = to_dchan(ch);
	uint64_t w;
	int rc;

	rc = slept_case(20000); /* 20 ms; the event after 50 */
	if (rc != TEST_SUCCESS)
		return rc;
	w = atomic_load(&dch->poll_window);
	TEST_ASSERT_EQUAL(w, us_cycles(20000) / 2, "halved");

	test_loop_event_window(ch,
			       1000000); /* the event after 50 ms: within 1 s */
	atomic_store(&dch->poll_window, 0);
	atomic_store(&dch->try_skip, 2);
	rc = slept_wait();
	if (rc != TEST_SUCCESS)
		return rc;
	w = atomic_load(&dch->poll_window);
	TEST_ASSERT_EQUAL(w, us_cycles(4), "from 0 to the least window");
	TEST_ASSERT_EQUAL(atomic_load(&dch->try_skip), 1, "one skip used");
	rc = slept_wait();
	if (rc != TEST_SUCCESS)
		return rc;
	w = atomic_load(&dch->poll_window);
	TEST_ASSERT_EQUAL(w, us_cycles(8), "doubled");
	return TEST_SUCCESS;
}

/* A sleep that ended within the longest window sets the channel's to the
 * whole of it (a try: in a ping-pong where both ends sleep, doubling
 * from 4 us never caught up with the other end's wake-ups). A try whose
 * next wait sleeps anyway backs the next try off by one such sleep, then
 * two, four...; a try that catches its event by polling starts the
 * count again. */
static int
test_window_tries(void)
{
	struct dpv_comp_channel *dch = to_dchan(ch);
	struct late l = {.waiter = pthread_self()};
	uint64_t ms, p, s;
	int err, rc;

	test_loop_event_window(ch,
			       1000000); /* the event after 50 ms: within 1 s */
	atomic_store(&dch->poll_window, 0);
	rc = slept_wait();
	if (rc != TEST_SUCCESS)
		return rc;
	TEST_ASSERT_EQUAL(atomic_load(&dch->poll_window), us_cycles(1000000),
			  "from 0 to the whole window");
	TEST_ASSERT(atomic_load(&dch->tried), "a try");

	/* a longest window of 20 ms: the try polls 20 ms and sleeps */
	dctx_dev(ctx)->event_poll_cycles = us_cycles(20000);
	rc = slept_wait();
	if (rc != TEST_SUCCESS)
		return rc;
	TEST_ASSERT(!atomic_load(&dch->tried), "the try failed");
	TEST_ASSERT_EQUAL(atomic_load(&dch->try_skip), 1, "one sleep first");
	TEST_ASSERT_EQUAL(atomic_load(&dch->try_backoff), 2, "then two");
	TEST_ASSERT_EQUAL(atomic_load(&dch->poll_window), us_cycles(10000),
			  "halved");

	/* back to 1 s: the next short sleep only doubles from 0 */
	dctx_dev(ctx)->event_poll_cycles = us_cycles(1000000);
	atomic_store(&dch->poll_window, 0);
	rc = slept_wait();
	if (rc != TEST_SUCCESS)
		return rc;
	TEST_ASSERT_EQUAL(atomic_load(&dch->poll_window), us_cycles(4),
			  "backed off: the least window");
	TEST_ASSERT(!atomic_load(&dch->tried), "no try");
	TEST_ASSERT_EQUAL(atomic_load(&dch->try_skip), 0, "skip used");

	/* the one after tries again, and its try catches the next event */
	atomic_store(&dch->poll_window, 0);
	rc = slept_wait();
	if (rc != TEST_SUCCESS)
		return rc;
	TEST_ASSERT(atomic_load(&dch->tried), "tried again");
	TEST_ASSERT_EQUAL(late_wait(&l, &err, &ms, &p, &s), 0, "the event");
	TEST_ASSERT_EQUAL(p, 1, "answered while polling");
	TEST_ASSERT_EQUAL(s, 0, "no sleep");
	TEST_ASSERT_EQUAL(drain(), 0, "completions");
	TEST_ASSERT(!atomic_load(&dch->tried), "the try caught it");
	TEST_ASSERT_EQUAL(atomic_load(&dch->try_backoff), 1, "back-off reset");
	return TEST_SUCCESS;
}

static int
signal_in_window(bool to_process)
{
	struct sigaction sa = {.sa_handler = on_usr1}, old;
	struct late l = {.waiter = pthread_self(),
			 .signal = true,
			 .to_process = to_process};
	uint64_t ms, p, s;
	int err, rc;

	test_loop_event_window(ch, WINDOW_LONG_US);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, &old); /* no SA_RESTART */
	rc = late_wait(&l, &err, &ms, &p, &s);
	sigaction(SIGUSR1, &old, NULL);
	TEST_ASSERT(rc != -3, "arm, helper");
	if (l.rescued) {
		/* the rescue's event: take it back, and its completions */
		if (rc != 0)
			wait_once(&err, &ms, &p, &s);
		drain();
		TEST_ASSERT(false, "the signal did not end the wait");
	}
	TEST_ASSERT_EQUAL(rc, -1, "interrupted");
	TEST_ASSERT_EQUAL(err, EINTR, "");
	TEST_ASSERT(ms < WINDOW_LONG_US / 2000,
		    "the signal ended the polling (%" PRIu64 " ms)", ms);
	return TEST_SUCCESS;
}

static int
test_signal_in_window(void)
{
	return signal_in_window(false);
}

/* The same signal sent to the process (kill(), as alarm() does): no
 * thread of the library takes it (the progress thread, EAL's threads
 * block it), so it waits for the waiter. */
static int
test_process_signal_in_window(void)
{
	return signal_in_window(true);
}

static int
test_nonblocking(void)
{
	int fl = fcntl(ch->fd, F_GETFL);
	uint64_t ms, p, s;
	int err, rc;

	test_loop_event_window(ch, WINDOW_LONG_US);
	TEST_ASSERT(fl >= 0, "F_GETFL");
	TEST_ASSERT_EQUAL(fcntl(ch->fd, F_SETFL, fl | O_NONBLOCK), 0, "");
	rc = wait_once(&err, &ms, &p, &s);
	fcntl(ch->fd, F_SETFL, fl);
	TEST_ASSERT_EQUAL(rc, -1, "nothing there");
	TEST_ASSERT_EQUAL(err, EAGAIN, "");
	TEST_ASSERT(ms < WINDOW_LONG_US / 2000, "at once (%" PRIu64 " ms)", ms);
	TEST_ASSERT_EQUAL(p + s, 0, "neither polled nor slept");
	return TEST_SUCCESS;
}

/* An event raised while the caller polls for it: taken from memory,
 * with no write() and read() of the fd. */
static int
test_polled_in_memory(void)
{
	struct dpv_device *dev = dctx_dev(ctx);
	struct late l = {.waiter = pthread_self()};
	struct pollfd pfd = {.fd = ch->fd, .events = POLLIN};
	uint64_t m0 = atomic_load(&dev->events_in_memory);
	uint64_t ms, p, s;
	int err;

	test_loop_event_window(ch, WINDOW_LONG_US);
	TEST_ASSERT_EQUAL(late_wait(&l, &err, &ms, &p, &s), 0, "the event");
	TEST_ASSERT_EQUAL(p, 1, "answered while polling");
	TEST_ASSERT_EQUAL(atomic_load(&dev->events_in_memory) - m0, 1,
			  "taken from memory");
	TEST_ASSERT_EQUAL(poll(&pfd, 1, 0), 0, "nothing left on the fd");
	TEST_ASSERT_EQUAL(drain(), 0, "completions");
	return TEST_SUCCESS;
}

/* A thread that poll()s the channel's fd (as a program's event loop
 * may) while another waits in ibv_get_cq_event(): POLLIN within 1 s. */
static void *
fd_watch_main(void *p)
{
	struct pollfd pfd = {.fd = ch->fd, .events = POLLIN};
	int *seen = p;

	*seen = poll(&pfd, 1, 1000);
	return NULL;
}

/* Two events in one window: the receive CQs of the suite's pair and of
 * a second one, both on the channel, their SENDs in one receive burst
 * (the waiter's window runs the engine: application-driven progress), a
 * second thread poll()ing the fd: the event the waiter does not take
 * wakes that thread. */
static int
test_two_in_window(void)
{
	struct test_loop_conn c = {
		.mtu = IBV_MTU_1024, .timeout = 14, .rd_atomic = 1};
	struct pollfd pfd = {.fd = ch->fd, .events = POLLIN};
	struct ibv_cq *scq2 = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	struct ibv_cq *rcq2 = ibv_create_cq(ctx, 16, NULL, ch, 0);
	struct ibv_qp *qp2[2] = {NULL, NULL};
	struct ibv_cq *got[2] = {NULL, NULL};
	struct dpv_engine *e = dctx_dev(ctx)->engine;
	int rc = TEST_FAILED, seen = -1;
	bool watching = false, posted;
	struct ibv_wc wc;
	pthread_t th;
	void *cctx;

	test_loop_event_window(ch, WINDOW_LONG_US);
	if (scq2 == NULL || rcq2 == NULL ||
	    test_loop_pair(pd, scq2, rcq2, IBV_QPT_RC, gid_index, &c, qp2) !=
		    0) {
		DPV_TEST_LOG("second pair");
		goto out;
	}
	if (ibv_req_notify_cq(rcq, 0) || ibv_req_notify_cq(rcq2, 0)) {
		DPV_TEST_LOG("arm");
		goto out;
	}
	if (pthread_create(&th, NULL, fd_watch_main, &seen) != 0)
		goto out;
	watching = true;
	usleep(10000); /* the watcher in poll() */
	/* both SENDs posted while this thread holds the engine: neither post
	 * can send its own (each kicks), so both leave in one burst in the
	 * waiter's first poll, come back in one receive burst and raise both
	 * events in that poll. Posted apart, the second could be sent and
	 * raised after the waiter left with the first, with no one left to
	 * run the engine (application-driven progress) while the watcher
	 * waits: its event came only with the next verbs call. */
	dpv_engine_lock(e);
	posted = send_one() == 0 &&
		 test_loop_send_recv(qp2, mr, mem[0], 64, mem[1], BUFLEN) == 0;
	dpv_engine_unlock(e);
	if (!posted) {
		DPV_TEST_LOG("send");
		goto out;
	}
	for (int n = 0; n < 2; n++) {
		if (n == 1) {
			/* the first taken: the other woke the watcher */
			pthread_join(th, NULL);
			watching = false;
			if (seen != 1) {
				DPV_TEST_LOG("the fd watcher saw %d", seen);
				goto out;
			}
		}
		if (ibv_get_cq_event(ch, &got[n], &cctx) != 0) {
			DPV_TEST_LOG("event %d: %s", n, strerror(errno));
			goto out;
		}
		ibv_ack_cq_events(got[n], 1);
	}
	if (!((got[0] == rcq && got[1] == rcq2) ||
	      (got[0] == rcq2 && got[1] == rcq))) {
		DPV_TEST_LOG("the events' CQs");
		goto out;
	}
	if (poll(&pfd, 1, 0) != 0 || atomic_load(&to_dchan(ch)->mem) != 0) {
		DPV_TEST_LOG("an event left over");
		goto out;
	}
	if (drain() != 0 || test_loop_wait_wc(rcq2, &wc, 1, 2000) != 1 ||
	    wc.status != IBV_WC_SUCCESS ||
	    test_loop_wait_wc(scq2, &wc, 1, 2000) != 1 ||
	    wc.status != IBV_WC_SUCCESS) {
		DPV_TEST_LOG("completions");
		goto out;
	}
	rc = TEST_SUCCESS;
out:
	if (watching)
		pthread_join(th, NULL);
	test_loop_unpair(qp2, scq2, rcq2);
	return rc;
}

/* The poster of test_window_edge: SEND i a random 0..EDGE_GAP_US after
 * the waiter armed for it (armed > i); gives up after 2 s of waiting
 * for an arm, then sends once more so that a waiter left without its
 * event wakes (the case fails). */
#define EDGE_EVENTS 400
#define EDGE_GAP_US 300

struct edge {
	unsigned int armed; /* events the waiter armed for */
	bool timed_out;
	int err;
};

static void *
edge_main(void *p)
{
	struct edge *ed = p;
	uint64_t hz = rte_get_tsc_hz();

	srand(12345);
	for (unsigned int i = 0; i < EDGE_EVENTS; i++) {
		uint64_t at;

		if (!wait_armed(&ed->armed, i, 2000000000ull, false)) {
			ed->timed_out = true;
			send_one(); /* the stuck wait's rescue */
			return NULL;
		}
		/* the gap by the clock: a sleep this short lasts ~30 us or
		 * more on a VM */
		at = rte_get_tsc_cycles() +
		     hz / 1000000 * (uint64_t)(rand() % (EDGE_GAP_US + 1));
		while (rte_get_tsc_cycles() < at)
			rte_pause();
		if (send_one() != 0) {
			ed->err = -1;
			return NULL;
		}
	}
	return NULL;
}

static int
test_window_edge(void)
{
	struct pollfd pfd = {.fd = ch->fd, .events = POLLIN};
	struct edge ed = {0};
	unsigned int i;
	pthread_t th;
	int rc = 0;

	test_loop_event_window(ch, 100);
	TEST_ASSERT_EQUAL(pthread_create(&th, NULL, edge_main, &ed), 0, "");
	for (i = 0; i < EDGE_EVENTS && rc == 0; i++) {
		uint64_t ms, p, s;
		int err;

		if (ibv_req_notify_cq(rcq, 0) != 0) {
			rc = -1;
			break;
		}
		__atomic_store_n(&ed.armed, i + 1, __ATOMIC_RELEASE);
		rc = wait_once(&err, &ms, &p, &s);
		if (rc == 0 && drain() != 0)
			rc = -3;
		if (ed.timed_out)
			break;
	}
	/* let the poster go if the waiter stopped early */
	__atomic_store_n(&ed.armed, EDGE_EVENTS + 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	if (ed.timed_out && rc == 0)
		drain(); /* the rescue's completions */
	TEST_ASSERT(!ed.timed_out, "wait %u never ended", i);
	TEST_ASSERT_EQUAL(rc, 0, "wait %u", i);
	TEST_ASSERT_EQUAL(ed.err, 0, "send");
	TEST_ASSERT_EQUAL(i, EDGE_EVENTS, "all events");
	/* and none counted twice: nothing left to read */
	TEST_ASSERT_EQUAL(poll(&pfd, 1, 0), 0, "nothing left on the fd");
	TEST_ASSERT_EQUAL(atomic_load(&to_dchan(ch)->mem), 0,
			  "nothing left in memory");
	return TEST_SUCCESS;
}

static const struct dpv_test_suite verbs_event_suite = {
	.name = "verbs_event",
	.setup = suite_setup,
	.teardown = suite_teardown,
	.cases =
		{
			TEST_CASE(test_polled),
			TEST_CASE(test_slept_no_window),
			TEST_CASE(test_slept_after_window),
			TEST_CASE(test_window_adapts),
			TEST_CASE(test_window_tries),
			TEST_CASE(test_signal_in_window),
			TEST_CASE(test_process_signal_in_window),
			TEST_CASE(test_nonblocking),
			TEST_CASE(test_polled_in_memory),
			TEST_CASE(test_two_in_window),
			TEST_CASE(test_window_edge),
			TEST_CASES_END(),
		},
};

static int
verbs_event_autotest(void)
{
	return dpv_test_run_suite(&verbs_event_suite);
}

DPV_TEST_REGISTER_FAST(verbs_event_autotest, verbs_event_autotest);

/*
 * event_perf: what a completion-event wait costs. A thread posts a SEND
 * over the loopback RC pair every GAP_US (0: the waiter posts it itself
 * right before it waits), the waiter arms, waits in ibv_get_cq_event()
 * and takes the completion. Per gap it prints
 *   RESULT event_perf gap_us=G events=N p50_us= p99_us= waiter_cpu_us=
 *          process_cpu_us= polled= slept=
 * the post-to-wake-up latency, the waiter thread's and the process's CPU
 * time per event (the progress thread's included in the latter), and how
 * the waits ended. The device's window is DPV_EVENT_POLL_US's.
 * DPV_PERF_QUICK=1: a tenth of the events.
 */
#define PERF_MAX_EVENTS 20000

static uint64_t post_at[PERF_MAX_EVENTS];
/* events the waiter has armed the CQ for: the poster's SEND i goes only
 * after the waiter armed for it (a completion that comes before the arm
 * raises no event, and a poster ahead of a slow waiter left the waiter's
 * last wait without one: a hang under load) */
static unsigned int armed_for;

struct perf_poster {
	unsigned int gap_us, n;
	int err;
};

static void *
perf_poster_main(void *p)
{
	struct perf_poster *pp = p;
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	for (unsigned int i = 0; i < pp->n; i++) {
		t.tv_nsec += (long)pp->gap_us * 1000;
		while (t.tv_nsec >= 1000000000) {
			t.tv_nsec -= 1000000000;
			t.tv_sec++;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL);
		/* a waiter that keeps up has armed by now; a late one is
		 * waited for in short sleeps, not a spin: the process's CPU
		 * time per event is the library's (a spin of sched_yield()
		 * from each post to the waiter's next arm made it ~590 us an
		 * event at a 2 ms gap instead of ~160) */
		if (!wait_armed(&armed_for, i, 5000000000ull, true)) {
			pp->err = -1;
			return NULL;
		}
		__atomic_store_n(&post_at[i], now_ns(CLOCK_MONOTONIC),
				 __ATOMIC_RELEASE);
		if (send_one() != 0) {
			pp->err = -1;
			return NULL;
		}
	}
	return NULL;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t lat[PERF_MAX_EVENTS];

static int
perf_gap(unsigned int gap_us, unsigned int n)
{
	struct dpv_device *dev = dctx_dev(ctx);
	struct perf_poster pp = {.gap_us = gap_us, .n = n};
	uint64_t p0 = atomic_load(&dev->event_waits_polled);
	uint64_t s0 = atomic_load(&dev->event_waits_slept);
	uint64_t c0, pc0, c1, pc1;
	struct ibv_wc wc[4];
	pthread_t th;

	c0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
	pc0 = now_ns(CLOCK_PROCESS_CPUTIME_ID);
	__atomic_store_n(&armed_for, 0, __ATOMIC_RELAXED);
	if (gap_us != 0 && pthread_create(&th, NULL, perf_poster_main, &pp))
		return -1;
	for (unsigned int i = 0; i < n; i++) {
		struct ibv_cq *ecq;
		void *cctx;
		int got = 0;

		if (ibv_req_notify_cq(rcq, 0) != 0)
			return -1;
		__atomic_store_n(&armed_for, i + 1, __ATOMIC_RELEASE);
		if (gap_us == 0) {
			post_at[i] = now_ns(CLOCK_MONOTONIC);
			if (send_one() != 0)
				return -1;
		}
		if (ibv_get_cq_event(ch, &ecq, &cctx) != 0)
			return -1;
		lat[i] = now_ns(CLOCK_MONOTONIC) -
			 __atomic_load_n(&post_at[i], __ATOMIC_ACQUIRE);
		ibv_ack_cq_events(ecq, 1);
		/* the receive and the SEND's own completion (its ACK), each
		 * polled for without a sleep, for up to 2 s */
		for (uint64_t end = now_ns(CLOCK_MONOTONIC) + 2000000000;
		     got < 2 && now_ns(CLOCK_MONOTONIC) < end;) {
			int r = ibv_poll_cq(got == 0 ? rcq : scq, 1, wc);

			if (r < 0 || (r == 1 && wc[0].status != IBV_WC_SUCCESS))
				return -1;
			got += r;
		}
		if (got != 2)
			return -1;
	}
	c1 = now_ns(CLOCK_THREAD_CPUTIME_ID);
	pc1 = now_ns(CLOCK_PROCESS_CPUTIME_ID);
	if (gap_us != 0)
		pthread_join(th, NULL);
	if (pp.err != 0)
		return -1;
	qsort(lat, n, sizeof(lat[0]), cmp_u64);
	printf("RESULT event_perf gap_us=%u events=%u p50_us=%.2f "
	       "p99_us=%.2f waiter_cpu_us=%.2f process_cpu_us=%.2f "
	       "polled=%" PRIu64 " slept=%" PRIu64 "\n",
	       gap_us, n, lat[n / 2] / 1e3, lat[n * 99 / 100] / 1e3,
	       (c1 - c0) / 1e3 / n, (pc1 - pc0) / 1e3 / n,
	       atomic_load(&dev->event_waits_polled) - p0,
	       atomic_load(&dev->event_waits_slept) - s0);
	return 0;
}

static int
event_perf(void)
{
	static const unsigned int gaps[] = {0, 200, 2000};
	static const unsigned int counts[] = {20000, 2500, 500};
	const char *q = getenv("DPV_PERF_QUICK");
	unsigned int div = q != NULL && strcmp(q, "1") == 0 ? 10 : 1;
	int rc = suite_setup();

	if (rc != TEST_SUCCESS) {
		suite_teardown();
		return rc;
	}
	for (unsigned int i = 0; i < RTE_DIM(gaps) && rc == TEST_SUCCESS; i++)
		if (perf_gap(gaps[i], counts[i] / div) != 0) {
			DPV_TEST_LOG("event_perf: gap %u us failed", gaps[i]);
			rc = TEST_FAILED;
		}
	suite_teardown();
	return rc;
}

DPV_TEST_REGISTER_PERF(event_perf, event_perf);
