/* SPDX-License-Identifier: BSD-3-Clause */
/* CQ moderation scenarios (see test_cqmod_util.h); registers no tests. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "test_cqmod_util.h"
#include "test_loop_util.h"

#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id _sigev_un._tid
#endif

#define MSG 64
/* an event before the period's end, measured from a send, by more than
 * this is early (the engine's clock and ours differ a little) */
#define SLACK_US 100
/* and one later than the period by more than this is late (a loaded
 * machine's scheduling) */
#define LATE_US 200000
/* rounds a scenario whose outcome depends on timing tries */
#define ROUNDS 5
/* and cqmod_count(), whose rounds cannot tell when its four sends take
 * longer than the period: with two worker lcores spinning beside two
 * busy CPUs, 5 such rounds in a row came in 1 of 10 runs */
#define COUNT_ROUNDS 50

#define FAIL(fmt, ...)                                                         \
	do {                                                                   \
		fprintf(stderr, "cqmod: %s: " fmt "\n", __func__,              \
			##__VA_ARGS__);                                        \
		return -1;                                                     \
	} while (0)

static uint64_t
now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000 + (uint64_t)t.tv_nsec / 1000;
}

static void
on_alarm(int sig)
{
	(void)sig;
}

/* The channel's next event, from a blocking ibv_get_cq_event (which runs
 * the engine under application-driven progress), acknowledged: 0, or -1
 * if none came within ms. A timer signals this thread from then on, every
 * millisecond: one lands in the wait (EINTR). */
static int
event_wait(struct cqmod_env *v, int ms)
{
	struct sigaction sa = {.sa_handler = on_alarm};
	struct itimerspec its = {
		.it_value = {.tv_sec = ms / 1000,
			     .tv_nsec = (long)(ms % 1000) * 1000000},
		.it_interval = {.tv_nsec = 1000000},
	};
	struct sigevent se = {.sigev_notify = SIGEV_THREAD_ID,
			      .sigev_signo = SIGALRM};
	struct ibv_cq *cq;
	void *cctx;
	timer_t t;
	int rc;

	/* never SA_RESTART; kept, for a signal still pending after */
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGALRM, &sa, NULL) != 0)
		FAIL("sigaction: %s", strerror(errno));
	se.sigev_notify_thread_id = gettid();
	if (timer_create(CLOCK_MONOTONIC, &se, &t) != 0)
		FAIL("timer_create: %s", strerror(errno));
	timer_settime(t, 0, &its, NULL);
	rc = ibv_get_cq_event(v->ch, &cq, &cctx);
	timer_delete(t);
	if (rc != 0)
		return -1;
	ibv_ack_cq_events(cq, 1);
	if (cq != v->rcq)
		FAIL("an event of another CQ");
	return 0;
}

/* Whether the channel has an event within ms (poll() on its fd: no
 * engine runs here under application-driven progress). */
static bool
event_ready(struct cqmod_env *v, int ms)
{
	struct pollfd p = {.fd = v->ch->fd, .events = POLLIN};
	uint64_t end = now_us() + (uint64_t)ms * 1000;
	int rc;

	do {
		rc = poll(&p, 1, ms);
	} while (rc < 0 && errno == EINTR && now_us() < end);
	return rc > 0;
}

/* n completions of cq within a second, all successful: 0 or -1 */
static int
wcs_wait(struct ibv_cq *cq, int n)
{
	uint64_t end = now_us() + 1000000;
	struct ibv_wc wc[8];
	int got = 0;

	while (got < n && now_us() < end) {
		int r = ibv_poll_cq(cq, n - got < 8 ? n - got : 8, wc);

		if (r < 0)
			FAIL("ibv_poll_cq %d", r);
		for (int i = 0; i < r; i++)
			if (wc[i].status != IBV_WC_SUCCESS)
				FAIL("status %s",
				     ibv_wc_status_str(wc[i].status));
		got += r;
		if (r == 0)
			usleep(20);
	}
	if (got != n)
		FAIL("%d of %d completions", got, n);
	return 0;
}

/* n receive WQEs on QP q */
static int
recvs(struct cqmod_env *v, int q, int n)
{
	struct ibv_sge s = {(uintptr_t)v->buf + MSG, MSG, v->mr->lkey};
	struct ibv_recv_wr w = {.sg_list = &s, .num_sge = 1}, *bad;

	for (int i = 0; i < n; i++)
		if (ibv_post_recv(v->qp[q], &w, &bad) != 0)
			FAIL("ibv_post_recv");
	return 0;
}

/* n SENDs from QP q to the other, in one post */
static int
sends(struct cqmod_env *v, int q, int n, bool solicited)
{
	struct ibv_sge s = {(uintptr_t)v->buf, MSG, v->mr->lkey};
	struct ibv_send_wr w[8], *bad;

	for (int i = 0; i < n; i++)
		w[i] = (struct ibv_send_wr){
			.next = i + 1 < n ? &w[i + 1] : NULL,
			.sg_list = &s,
			.num_sge = 1,
			.opcode = IBV_WR_SEND,
			.send_flags = IBV_SEND_SIGNALED |
				      (solicited ? IBV_SEND_SOLICITED : 0),
		};
	if (ibv_post_send(v->qp[q], w, &bad) != 0)
		FAIL("ibv_post_send");
	return 0;
}

static int
moderate(struct cqmod_env *v, uint16_t count, uint16_t period)
{
	struct ibv_modify_cq_attr a = {
		.attr_mask = IBV_CQ_ATTR_MODERATE,
		.moderate = {.cq_count = count, .cq_period = period},
	};
	int rc = ibv_modify_cq(v->rcq, &a);

	if (rc != 0)
		FAIL("ibv_modify_cq(%u, %u): %s", count, period, strerror(rc));
	return 0;
}

int
cqmod_open(struct cqmod_env *v)
{
	struct test_loop_conn c = {.mtu = IBV_MTU_1024, .timeout = 14};

	v->ch = ibv_create_comp_channel(v->ctx);
	if (v->ch == NULL)
		FAIL("no channel");
	v->scq = ibv_create_cq(v->ctx, 32, NULL, NULL, 0);
	v->rcq = ibv_create_cq(v->ctx, 32, NULL, v->ch, 0);
	if (v->scq == NULL || v->rcq == NULL)
		FAIL("no CQ");
	/* with shards, the two QPs go to two of them: both write rcq */
	if (test_loop_pair(v->pd, v->scq, v->rcq, IBV_QPT_RC, v->gid_index, &c,
			   v->qp) != 0)
		FAIL("no QP pair");
	return 0;
}

void
cqmod_close(struct cqmod_env *v)
{
	for (int i = 0; i < 2; i++)
		if (v->qp[i] != NULL)
			ibv_destroy_qp(v->qp[i]);
	if (v->scq != NULL)
		ibv_destroy_cq(v->scq);
	if (v->rcq != NULL)
		ibv_destroy_cq(v->rcq);
	if (v->ch != NULL)
		ibv_destroy_comp_channel(v->ch);
	memset(&v->ch, 0, sizeof(*v) - offsetof(struct cqmod_env, ch));
}

/* One round of cqmod_count(): 1 it showed the count at work, 0 it could
 * not tell (the period may have passed meanwhile), -1 wrong. */
static int
count_round(struct cqmod_env *v)
{
	uint64_t t0, t1;

	if (recvs(v, 0, 2) != 0 || recvs(v, 1, 2) != 0 ||
	    ibv_req_notify_cq(v->rcq, 0) != 0)
		FAIL("arm");
	t0 = now_us();
	/* both ways: with shards, both shards write the CQ */
	if (sends(v, 0, 1, false) != 0 || sends(v, 1, 1, false) != 0 ||
	    sends(v, 0, 1, false) != 0 || wcs_wait(v->rcq, 3) != 0)
		return -1;
	if (event_ready(v, 1)) {
		t1 = now_us() - t0;
		if (t1 < CQMOD_PERIOD_US - SLACK_US)
			FAIL("an event after 3 of 4 CQEs, %llu us on",
			     (unsigned long long)t1);
		/* the period's: no telling */
		if (event_wait(v, 1000) != 0 || sends(v, 1, 1, false) != 0 ||
		    wcs_wait(v->rcq, 1) != 0 || wcs_wait(v->scq, 4) != 0)
			return -1;
		return 0;
	}
	if (sends(v, 1, 1, false) != 0)
		return -1;
	if (event_wait(v, 1000) != 0)
		FAIL("no event after 4 CQEs");
	t1 = now_us() - t0;
	if (wcs_wait(v->rcq, 1) != 0 || wcs_wait(v->scq, 4) != 0)
		return -1;
	/* before its period could end: the count raised it */
	return t1 < CQMOD_PERIOD_US ? 1 : 0;
}

int
cqmod_count(struct cqmod_env *v)
{
	int rc = 0;

	if (moderate(v, 4, CQMOD_PERIOD_US) != 0)
		return -1;
	for (int i = 0; i < COUNT_ROUNDS && rc == 0; i++)
		rc = count_round(v);
	if (rc == 0)
		FAIL("%d rounds, none faster than the period", COUNT_ROUNDS);
	return rc < 0 ? -1 : 0;
}

int
cqmod_period(struct cqmod_env *v)
{
	if (moderate(v, UINT16_MAX, CQMOD_PERIOD_US) != 0)
		return -1;
	for (int q = 0; q < 2; q++) {
		uint64_t t0, t;

		if (recvs(v, !q, 1) != 0 || ibv_req_notify_cq(v->rcq, 0) != 0)
			FAIL("arm");
		t0 = now_us();
		if (sends(v, q, 1, false) != 0)
			return -1;
		/* nothing else happens: the period alone raises it */
		if (event_wait(v, 1000) != 0)
			FAIL("no event within 1 s");
		t = now_us() - t0;
		if (t < CQMOD_PERIOD_US - SLACK_US ||
		    t > CQMOD_PERIOD_US + LATE_US)
			FAIL("event %llu us after the send, period %u us",
			     (unsigned long long)t, CQMOD_PERIOD_US);
		printf("cqmod: period %u us: event %llu us after the send\n",
		       CQMOD_PERIOD_US, (unsigned long long)t);
		if (wcs_wait(v->rcq, 1) != 0 || wcs_wait(v->scq, 1) != 0)
			return -1;
	}
	return 0;
}

int
cqmod_solicited(struct cqmod_env *v)
{
	uint64_t t0, t;

	if (moderate(v, 2, CQMOD_PERIOD_US) != 0 || recvs(v, 1, 4) != 0 ||
	    ibv_req_notify_cq(v->rcq, 1) != 0)
		FAIL("arm");
	if (sends(v, 0, 3, false) != 0 || wcs_wait(v->rcq, 3) != 0)
		return -1;
	/* counted, they would have fired it by now (twice the period) */
	if (event_wait(v, 2 * CQMOD_PERIOD_US / 1000) == 0)
		FAIL("unsolicited CQEs raised a solicited-only arm's event");
	t0 = now_us();
	if (sends(v, 0, 1, true) != 0)
		return -1;
	/* one of two: the period, from this CQE on */
	if (event_wait(v, 1000) != 0)
		FAIL("no event for the solicited CQE");
	t = now_us() - t0;
	if (t < CQMOD_PERIOD_US - SLACK_US)
		FAIL("event %llu us after the solicited send",
		     (unsigned long long)t);
	return wcs_wait(v->rcq, 1) != 0 || wcs_wait(v->scq, 4) != 0 ? -1 : 0;
}

/* One event per arm at its first CQE, count after count. 1, 0 (no
 * telling: the first three ran late) or -1 (as cqmod_count()). */
static int
off_round(struct cqmod_env *v)
{
	int quick = 0;

	for (int i = 0; i < 3; i++) {
		if (recvs(v, 1, 1) != 0 || ibv_req_notify_cq(v->rcq, 0) != 0 ||
		    sends(v, 0, 1, false) != 0 || wcs_wait(v->rcq, 1) != 0)
			return -1;
		/* raised with the CQE, well before a period would end */
		quick += event_ready(v, 1);
		if (event_wait(v, 1000) != 0)
			FAIL("no event");
		if (wcs_wait(v->scq, 1) != 0)
			return -1;
	}
	return quick == 3;
}

int
cqmod_off(struct cqmod_env *v)
{
	static const uint16_t off[][2] = {
		{0, 0}, {1, 0}, {1, CQMOD_PERIOD_US}, {64, 0}};

	for (unsigned int k = 0; k < sizeof(off) / sizeof(off[0]); k++) {
		int rc = 0;

		if (moderate(v, off[k][0], off[k][1]) != 0)
			return -1;
		for (int i = 0; i < ROUNDS && rc == 0; i++)
			rc = off_round(v);
		if (rc <= 0)
			FAIL("count %u period %u: %s", off[k][0], off[k][1],
			     rc < 0 ? "failed" : "events late in every round");
	}
	return 0;
}
