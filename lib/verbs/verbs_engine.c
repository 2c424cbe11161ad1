/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The software HCA behind a device: one engine per device, created with
 * the first context. The engine reads memory keys from the device's key
 * table and raises completion events through the verbs CQ objects.
 */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <linux/futex.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_pause.h>

#include "dpv_engine.h"
#include "dpv_port.h"
#include "dpv_verbs.h"
#include "qp.h"
#include "verbs_int.h"
#include "verbs_ops.h"

static bool
engine_key_lookup(void *arg, uint32_t key, struct dpv_engine_key *out)
{
	struct dpv_device *dev = arg;
	struct dpv_mkey k;

	if (!dpv_mkey_get(dev, key, &k))
		return false;
	dpv_mkey_to_ekey(&k, out);
	/* an unbound window, an unconfigured indirect key grant nothing */
	return k.type == DPV_MKEY_MR || k.type == DPV_MKEY_IMPLICIT || k.bound;
}

static void
engine_cq_event(void *arg, struct dpv_mlx5_cq *cq)
{
	dpv_cq_ring_event(cq);
}

/*
 * Background progress (DPV_PROGRESS=thread, the default). One plain
 * pthread per device keeps the engine running while the application does
 * not (ibv_get_cq_event, a TCP exchange, spinning on memory as
 * ib_write_lat does), so the stack answers ARP and moves and acknowledges
 * traffic at any time. It is adaptive:
 *   - while the application drives the engine itself (a verbs call that
 *     progresses it since the thread last looked) it stays away from the
 *     engine and naps, so a process spins one thread, not two, and never
 *     takes the engine lock from under the application. The nap starts at
 *     PROG_APP_NAP_US and doubles up to PROG_APP_NAP_MAX_US while the
 *     application keeps driving (each wake-up costs the application's
 *     core a context switch);
 *   - as soon as the application stops calling, it polls; while the
 *     application called within PROG_APP_RECENT_MS it polls once per
 *     nap, the naps still growing, and never spins hot beside it. These
 *     polls hold ACKs for the application's next call as its own polls
 *     do (looking again PROG_ACK_HOLD_US later if one is held). A nap
 *     of PROG_WAKE_MIN_US or more that follows a look at which the
 *     application had made no call since the one before ends at the next
 *     frame where the port can wake the thread (prog_wake_sleep());
 *   - an application's poll that writes a CQE and leaves an RDMA WRITE
 *     half landed wakes the thread from a long nap (prog_mid_kick()):
 *     the application may stop polling there, and the rest of the WRITE
 *     is the thread's to land;
 *   - an application that left the engine alone longer (it sleeps in
 *     ibv_get_cq_event, talks TCP) gets a thread that polls hot as long as
 *     there was work in the last PROG_HOT_US, then backs off exponentially
 *     up to PROG_IDLE_MAX_US, and PROG_DEEP_US once idle for
 *     PROG_DEEP_AFTER_MS (PROG_DEEP_AFTER_WAKE_MS where a frame ends the
 *     sleeps): an idle process costs about nothing. No such sleep runs
 *     past the next retransmission (ACK timeout) or RNR timer of a QP
 *     (prog_idle_sleep_us()): a frame lost while the application waits
 *     in ibv_get_cq_event is sent again when its timer expires, not up
 *     to PROG_DEEP_US later.
 * An application that stops calling is noticed after one nap, at once
 * when it blocks in a verbs call (ibv_get_cq_event, ...: a kick wakes
 * the thread). Every wake-up costs a context switch on a core that an
 * application spins on, and ~1 % of 64-byte round trips met one when
 * naps stopped at 2 ms (p99 20 us against 6 us with 10 ms naps), so
 * naps grow to PROG_APP_NAP_MAX_US, but to no more than an eighth of the
 * shortest local ACK timeout a QP of the device has been given (a peer
 * with a similar timeout must not exhaust its retries while an
 * application that stopped calling waits for the thread). The
 * application's side costs one relaxed counter increment per call.
 */
#define PROG_HOT_US 2000      /* keep polling this long after work */
#define PROG_IDLE_MAX_US 1000 /* longest idle sleep */
#define PROG_DEEP_AFTER_MS 1000 /* idle this long: */
#define PROG_DEEP_US 10000	/* sleep this long */
/* idle this long where a frame ends the sleeps (prog_wake_sleep()): */
#define PROG_DEEP_AFTER_WAKE_MS 20
#define PROG_APP_NAP_US 4     /* first nap while the application drives */
#define PROG_APP_NAP_MAX_US 10000 /* longest one */
#define PROG_APP_NAP_MIN_CAP_US 1000 /* an ACK timeout never caps below */
#define PROG_APP_RECENT_MS 10	 /* the application drove this recently:
				    poll between naps, never spin hot */
#define PROG_ACK_HOLD_US 20 /* an ACK held by a poll waits this long for
				 the application's next call */
#define PROG_APP_NAP_BUSY_US 100 /* longest nap while the thread lands
				    what the application leaves to it */
#define PROG_HOT_YIELD_US 50	 /* a hot spin yields its core this often */
#define PROG_WAKE_MIN_US  64	 /* sleeps this long a frame may end */
#define PROG_WOKE_NAP_US 20	 /* nap after waking the application */
/* an arm ends a nap beside the application with more than this to go
 * (dpv_progress_app_arms) */
#define PROG_ARM_KICK_US 64
/* verbs calls between two arms that both make the thread poll hot within
 * PROG_ARM_KICK_US (progress_main()) */
#define PROG_ARM_HOT_CALLS 16
#define PROG_ARM_HOT_MAX   4 /* and so many at most */
/* a nap with longer than this to go the application cuts short for a
 * WRITE half landed (prog_mid_kick) */
#define PROG_MID_KICK_US 200
#define PROG_MAX_THREADS 16
/* DPV_PROGRESS_FOLLOW: the thread's affinity changes at most this often */
#define PROG_FOLLOW_MS 10

/* DPV_PROGRESS_FOLLOW=1, read when the first device registers */
static bool prog_follow;

struct dpv_progress_thr {
	struct dpv_device *dev; /* its engines: dev->engines[0..nshards) */
	pthread_t tid;
	atomic_uint_fast64_t app_calls; /* application progress calls */
	atomic_uint_fast64_t worker_polls; /* engine polls by a worker lcore */
	atomic_bool stop;
	atomic_uint nap_max_us; /* cap of the naps beside the application */
	atomic_int kick;	/* 1: the application blocks (futex word) */
	/* TSC at which the thread's current nap ends (0: awake), and a
	 * wake-up the application sent it for a WRITE half landed */
	atomic_uint_fast64_t nap_end;
	atomic_bool mid_kick;
	atomic_uint_fast64_t mid_kicks; /* such wake-ups (DPV_STATS) */
	atomic_uint_fast64_t arm_kicks; /* wake-ups by arms (DPV_STATS) */
	/* arms in a row that made the thread poll hot (DPV_STATS) */
	atomic_uint_fast64_t arm_hots;
	/* the application armed a CQ since the thread's last look beside
	 * it (dpv_progress_app_arms) */
	atomic_bool armed;
	/* DPV_PROGRESS_FOLLOW: the CPU of the application's latest call
	 * (-1: none yet), and the thread's moves to it (DPV_STATS) */
	atomic_int app_cpu;
	atomic_uint_fast64_t follows;
	bool running; /* the thread exists */
	int mode;	  /* DPV_DEVICE_PROGRESS_* */
	unsigned lcore; /* worker lcore (mode WORKER) */
};

/*
 * Worker lcores ([dpverbs] workers = N, standalone only): device i is
 * owned by worker i % N. A worker loops over its devices: engine lock,
 * dpv_engine_poll(), unlock, so control commands (which take the lock)
 * get in between two iterations. Devices attach at their first
 * ibv_open_device, after the worker may already run: the list only grows
 * (slots written before the count is published).
 */
#define WORKER_MAX_DEVS PROG_MAX_THREADS

struct dpv_worker {
	unsigned lcore;
	bool launched;
	atomic_bool stop;
	atomic_uint ndevs;
	struct dpv_progress_thr *devs[WORKER_MAX_DEVS];
	struct dpv_engine *eng[WORKER_MAX_DEVS]; /* the shard of devs[i] */
};

static struct dpv_worker *workers; /* n_workers entries */
static unsigned n_workers;
/* a forked child has no worker lcores: its verbs calls drive the engine */
static bool prog_forked;

static void
prog_atfork_child(void)
{
	prog_forked = true;
}

static struct dpv_progress_thr *prog_threads[PROG_MAX_THREADS];
static unsigned int prog_nthreads;
static pthread_mutex_t prog_lock = PTHREAD_MUTEX_INITIALIZER;
static pid_t prog_pid; /* the process that registered the engines */

static void
prog_sleep_us(unsigned int us)
{
	struct timespec ts = {.tv_sec = 0, .tv_nsec = (long)us * 1000};

	nanosleep(&ts, NULL);
}

/* DPV_STATS=1: the engine's non-zero counters on stderr at exit. */
static void
stats_print(struct dpv_engine *e)
{
	struct dpv_engine_counter c[DPV_ENGINE_N_COUNTERS];
	struct dpv_engine_stats st;

	if (dpv_engine_stats_get(e, &st) != 0)
		return;
	dpv_engine_stats_list(&st, c, RTE_DIM(c));
	fprintf(stderr, "dpverbs engine %p:", (void *)e);
	for (unsigned i = 0; i < RTE_DIM(c); i++)
		if (c[i].value != 0)
			fprintf(stderr, " %s=%" PRIu64, c[i].name, c[i].value);
	fprintf(stderr, "\n");
}

/* What the device's waits for completion events did (verbs_cq.c). */
static void
event_stats_print(struct dpv_device *dev)
{
	uint64_t p = atomic_load(&dev->event_waits_polled);
	uint64_t sl = atomic_load(&dev->event_waits_slept);
	uint64_t im = atomic_load(&dev->events_in_memory);
	uint64_t ec = atomic_load(&dev->events_carried);
	uint64_t ws, wt, wn;

	if (p != 0 || sl != 0)
		fprintf(stderr,
			"dpverbs %s: event_waits_polled=%" PRIu64
			" event_waits_slept=%" PRIu64
			" events_in_memory=%" PRIu64 " events_carried=%" PRIu64
			"\n",
			dev->vdev.device.name, p, sl, im, ec);
	dpv_port_wake_stats(dev->port, &ws, &wt, &wn);
	if (ws != 0 || wn != 0)
		fprintf(stderr,
			"dpverbs %s: wake_sleeps=%" PRIu64
			" wake_taken=%" PRIu64 " wake_sent=%" PRIu64 "\n",
			dev->vdev.device.name, ws, wt, wn);
	if (dev->progress_thr != NULL &&
	    (wn = atomic_load(&dev->progress_thr->mid_kicks)) != 0)
		fprintf(stderr, "dpverbs %s: mid_kicks=%" PRIu64 "\n",
			dev->vdev.device.name, wn);
	if (dev->progress_thr != NULL &&
	    (wn = atomic_load(&dev->progress_thr->arm_kicks)) != 0)
		fprintf(stderr, "dpverbs %s: arm_kicks=%" PRIu64 "\n",
			dev->vdev.device.name, wn);
	if (dev->progress_thr != NULL &&
	    (wn = atomic_load(&dev->progress_thr->arm_hots)) != 0)
		fprintf(stderr, "dpverbs %s: arm_hots=%" PRIu64 "\n",
			dev->vdev.device.name, wn);
	if (dev->progress_thr != NULL && prog_follow)
		fprintf(stderr, "dpverbs %s: progress_follows=%" PRIu64 "\n",
			dev->vdev.device.name,
			(uint64_t)atomic_load(&dev->progress_thr->follows));
}

/* An ACK held back by the application's last poll (see
 * dpv_engine_progress_app) has waited longer than `limit` TSC cycles. */
static bool
ack_held_long(const struct dpv_engine *e, uint64_t now, uint64_t limit)
{
	uint64_t at = dpv_engine_acks_held_at(e);

	return at != 0 && now - at > limit;
}

/* One poll of every shard of the device (each under its try-lock). With
 * held set, as the application's own poll would be: an ACK that arises is
 * held for the application's next call (*held: one is). The work done. */
static unsigned
prog_poll(struct dpv_progress_thr *t, bool *held)
{
	struct dpv_device *dev = t->dev;
	unsigned work = 0;

	if (held != NULL)
		*held = false;
	for (unsigned s = 0; s < dev->nshards; s++) {
		struct dpv_engine *e = dev->engines[s];

		work += dpv_engine_progress_bg(e, held != NULL);
		if (held != NULL)
			*held |= dpv_engine_acks_held_at(e) != 0;
	}
	return work;
}

/* No poll looked for frames on some shard for `limit` TSC cycles: the
 * application calls, but only to post (it waits on memory in between). */
static bool
prog_rx_stale(struct dpv_progress_thr *t, uint64_t now, uint64_t limit)
{
	struct dpv_device *dev = t->dev;

	for (unsigned s = 0; s < dev->nshards; s++)
		if ((int64_t)(now - dpv_engine_rx_at(dev->engines[s])) >
		    (int64_t)limit)
			return true;
	return false;
}

/* The application's own polls looked for frames on some shard after
 * `at` (a TSC): it receives by itself. */
static bool
prog_app_rx_since(struct dpv_progress_thr *t, uint64_t at)
{
	struct dpv_device *dev = t->dev;

	for (unsigned s = 0; s < dev->nshards; s++)
		if ((int64_t)(dpv_engine_app_rx_at(dev->engines[s]) - at) > 0)
			return true;
	return false;
}

/* A shard has frames a burst of posts left queued, an ACK the
 * application's last poll held back longer than limit, or a CQ whose
 * moderation period has ended (its event is owed). */
static bool
prog_owed(struct dpv_progress_thr *t, uint64_t now, uint64_t limit)
{
	struct dpv_device *dev = t->dev;

	for (unsigned s = 0; s < dev->nshards; s++)
		if (dpv_engine_tx_pending(dev->engines[s]) ||
		    ack_held_long(dev->engines[s], now, limit) ||
		    dpv_engine_cq_deadline_us(dev->engines[s], 1) == 0)
			return true;
	return false;
}

unsigned int
dpv_progress_sleep_us(struct dpv_device *dev, unsigned int us)
{
	uint64_t due = dpv_cq_carry_due(dev);

	for (unsigned s = 0; s < dev->nshards; s++)
		us = dpv_engine_cq_deadline_us(dev->engines[s], us);
	/* until events left in memory are due for the fd */
	if (due != 0) {
		int64_t left = (int64_t)(due - rte_rdtsc());
		int64_t per_us = (int64_t)(rte_get_tsc_hz() / 1000000);

		us = RTE_MIN(us,
			     left > 0 ? (unsigned int)(left / per_us) + 1 : 1u);
	}
	return us;
}

/* dev's background progress thread, NULL in the other modes */
static struct dpv_progress_thr *
prog_thread(struct dpv_device *dev)
{
	struct dpv_progress_thr *t = dev->progress_thr;

	return t != NULL && t->mode == DPV_DEVICE_PROGRESS_THREAD ? t : NULL;
}

bool
dpv_progress_carries(struct dpv_device *dev)
{
	struct dpv_progress_thr *t = prog_thread(dev);

	return t != NULL &&
	       !atomic_load_explicit(&t->stop, memory_order_relaxed);
}

/* An idle sleep of us microseconds (the application left the engines
 * alone), cut to end at the earliest retransmission or RNR timer of a
 * shard: a frame lost meanwhile goes out again on time, not up to a deep
 * sleep late. Only sleeps of PROG_WAKE_MIN_US or more: the look takes
 * each engine's lock and walks its QPs with work, the cost of a poll,
 * and the shorter sleeps (the first of a back-off, right after work)
 * overshoot a timer by less than that. */
static unsigned int
prog_idle_sleep_us(struct dpv_progress_thr *t, unsigned int us)
{
	struct dpv_device *dev = t->dev;

	if (us < PROG_WAKE_MIN_US)
		return us;
	for (unsigned s = 0; s < dev->nshards; s++)
		us = dpv_engine_timer_us(dev->engines[s], us);
	return us;
}

static void
prog_ack_hold(struct dpv_device *dev, bool on)
{
	for (unsigned s = 0; s < dev->nshards; s++)
		dpv_engine_set_ack_hold(dev->engines[s], on);
}

/* Sleep up to us microseconds (not past the end of a CQ moderation
 * period), or until the application kicks. arms: a nap beside the
 * application, which an arm of a CQ ends (dpv_progress_app_arms()). */
static void
prog_nap_arms(struct dpv_progress_thr *t, unsigned int us, bool arms)
{
	struct timespec ts;

	us = RTE_MAX(dpv_progress_sleep_us(t->dev, us), 1u);
	atomic_store_explicit(&t->nap_end,
			      rte_rdtsc() + rte_get_tsc_hz() / 1000000 * us,
			      memory_order_seq_cst);
	/* events left in memory before nap_end was set found it 0
	 * (dpv_progress_carry_kick()): the nap ends when they are due */
	if (us > 1 &&
	    atomic_load_explicit(&t->dev->carry_at, memory_order_seq_cst) != 0)
		us = RTE_MAX(dpv_progress_sleep_us(t->dev, us), 1u);
	ts.tv_sec = us / 1000000;
	ts.tv_nsec = (long)(us % 1000000) * 1000;
	/* an arm that came before nap_end was set found it 0 and woke no
	 * one: seen here instead (both sides store, then load, seq_cst) */
	if (!arms || us <= PROG_ARM_KICK_US ||
	    !atomic_load_explicit(&t->armed, memory_order_seq_cst))
		syscall(SYS_futex, &t->kick, FUTEX_WAIT_PRIVATE, 0, &ts, NULL,
			0);
	atomic_store_explicit(&t->nap_end, 0, memory_order_relaxed);
}

static void
prog_nap(struct dpv_progress_thr *t, unsigned int us)
{
	prog_nap_arms(t, us, false);
}

/* The thread is in a nap (prog_nap()) with more than us microseconds to
 * go: one worth ending with a wake-up. */
static bool
prog_nap_longer(struct dpv_progress_thr *t, unsigned int us)
{
	uint64_t end = atomic_load_explicit(&t->nap_end, memory_order_seq_cst);

	return end != 0 && (int64_t)(end - rte_rdtsc()) >=
				   (int64_t)(rte_get_tsc_hz() / 1000000 * us);
}

/* A sleep of us microseconds that the next frame ends (the port's receive
 * interrupts, or a memif peer's wake-up; dpv_port_wake_sleep_begin()):
 * false if no frame can wake this thread. The arming is followed by one
 * more look at the receive queues (holding ACKs as prog_poll() does with
 * held): a frame that came before it is found here, and no sleep
 * follows. */
static bool
prog_wake_sleep(struct dpv_progress_thr *t, unsigned int us, bool *held)
{
	struct dpv_port *port = t->dev->port;

	if (!dpv_port_wake_sleep_begin(port))
		return false;
	if (prog_poll(t, held) == 0 &&
	    !atomic_load_explicit(&t->kick, memory_order_acquire))
		dpv_port_wake_sleep(
			port, RTE_MAX(dpv_progress_sleep_us(t->dev, us), 1u));
	dpv_port_wake_sleep_end(port);
	return true;
}

/* After a poll beside the application: a short nap if it found work or
 * held an ACK (more is likely to come, or the ACK is owed soon), else
 * the next of the growing naps, no longer than PROG_APP_NAP_BUSY_US while
 * busy: the thread's polls found work in the last PROG_APP_RECENT_MS and
 * the application's own did not look for frames since (it leaves the
 * receive side to the thread). quiet: the application made no call
 * since the look before this one, or armed a CQ (it may wait for the
 * event in a poll() of its own). The nap to take after the next poll. */
static unsigned int
prog_nap_after(struct dpv_progress_thr *t, unsigned work, bool held,
	       unsigned int nap_us, bool busy, bool quiet)
{
	if (work == 0 && !held) {
		bool h; /* its look holds ACKs as this branch's polls do */

		/* the application made no call since the last look (it
		 * spins on memory, say, for a WRITE whose frames only this
		 * thread will land): a frame ends the nap where one can */
		if (!quiet || nap_us < PROG_WAKE_MIN_US ||
		    !prog_wake_sleep(t, nap_us, &h))
			prog_nap_arms(t, nap_us, true);
		/* the next nap is twice as long, up to nap_max_us */
		return RTE_MIN(
			RTE_MIN(nap_us * 2,
				atomic_load_explicit(&t->nap_max_us,
						     memory_order_relaxed)),
			busy ? PROG_APP_NAP_BUSY_US : UINT_MAX);
	}
	prog_nap(t, held ? PROG_ACK_HOLD_US : PROG_APP_NAP_US);
	return PROG_APP_NAP_US;
}

void
dpv_progress_app_blocks(struct dpv_device *dev)
{
	struct dpv_progress_thr *t = prog_thread(dev);

	if (t == NULL)
		return;
	if (atomic_exchange_explicit(&t->kick, 1, memory_order_release) == 0) {
		syscall(SYS_futex, &t->kick, FUTEX_WAKE_PRIVATE, 1, NULL,
			NULL, 0);
		/* or it sleeps where a frame ends the sleep */
		dpv_port_wake_self(dev->port);
	}
}

/*
 * An arm of a CQ (ibv_req_notify_cq) while the thread naps beside the
 * application (its verbs calls drove the device a moment ago): the
 * application may block next on the channel's fd in a poll() or
 * epoll_wait() of its own, which no verbs call tells the thread of (a
 * blocking ibv_get_cq_event() does: dpv_progress_app_blocks()). The frame
 * that raises the event then waited for the end of a nap, up to
 * PROG_APP_NAP_MAX_US: an event-driven ping-pong that waits so
 * (dpv-event-peer with EVENT_PEER_POLL=1, a ping every ms) took 3.2 ms a
 * round trip (p99 10.2 ms), against 0.09 ms through the blocking call.
 * Now the thread's next sleep beside the application is one that a frame
 * ends (where the port can wake it), and a nap with more than
 * PROG_ARM_KICK_US to go ends now; an arm that the thread sees soon after
 * the one before makes it poll hot instead (progress_main(), arm_hots). The
 * shorter naps run on: an application that arms its CQ with every poll while it
 * drives wakes the thread at most once per PROG_ARM_KICK_US of naps. Called for
 * CQs whose channel's fd is non-blocking only (dpv_req_notify_cq()): a program
 * that blocks in ibv_get_cq_event() next tells the thread there, and a
 * wake-up at its arm sat on the path of ib_send_lat -e (p99 44 -> 143 us).
 */
void
dpv_progress_app_arms(struct dpv_device *dev)
{
	struct dpv_progress_thr *t = prog_thread(dev);

	if (t == NULL)
		return;
	/* (a store only when not set: the line stays shared while an
	 * application arms with every poll) */
	if (!atomic_load_explicit(&t->armed, memory_order_relaxed))
		atomic_store_explicit(&t->armed, true, memory_order_seq_cst);
	else
		atomic_thread_fence(memory_order_seq_cst);
	if (!prog_nap_longer(t, PROG_ARM_KICK_US))
		return;
	atomic_fetch_add_explicit(&t->arm_kicks, 1, memory_order_relaxed);
	syscall(SYS_futex, &t->kick, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/*
 * A waiter left events in memory for its next wait (verbs_cq.c,
 * chan_leave()): a nap with more than DPV_CHAN_CARRY_US to go ends now,
 * so that the next one ends when they are due for the fd (a thread of
 * the program may wait for them in a poll() of its own). Once per quiet
 * spell at most: while waiters leave events, the naps are no longer than
 * that (dpv_progress_sleep_us()).
 */
void
dpv_progress_carry_kick(struct dpv_device *dev)
{
	struct dpv_progress_thr *t = prog_thread(dev);

	if (t == NULL || !prog_nap_longer(t, DPV_CHAN_CARRY_US))
		return;
	syscall(SYS_futex, &t->kick, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

void
dpv_progress_note_ack_timeout(struct dpv_device *dev, uint8_t timeout)
{
	struct dpv_progress_thr *t = dev->progress_thr;
	uint64_t us;
	unsigned int cur;

	if (t == NULL || timeout == 0) /* 0: no timeout */
		return;
	/* 4.096 us << timeout, an eighth of it */
	us = ((uint64_t)4096 << RTE_MIN(timeout, 31)) / 1000 / 8;
	us = RTE_MAX(us, (uint64_t)PROG_APP_NAP_MIN_CAP_US);
	cur = atomic_load_explicit(&t->nap_max_us, memory_order_relaxed);
	while (us < cur && !atomic_compare_exchange_weak_explicit(
				   &t->nap_max_us, &cur, (unsigned int)us,
				   memory_order_relaxed, memory_order_relaxed))
		;
}

/*
 * DPV_PROGRESS_FOLLOW=1: while the thread lands what the application
 * leaves to it (its calls only post; it waits on memory in between, as
 * riostream and RPCs over RDMA WRITE do), the thread keeps to the CPU of
 * the application's latest verbs call; otherwise it has its own affinity
 * back. That CPU is awake (the application spins there) and what the
 * thread preempts there is the spin: on a 2-vCPU VM whose wake-ups from
 * the other vCPU take 150-300 us, riostream's 64-byte round trip went from
 * ~230-500 us to ~90-120 without pinning the processes. Changes at most
 * once per PROG_FOLLOW_MS.
 */
struct prog_follow {
	cpu_set_t own; /* the thread's own affinity */
	int cpu;       /* the CPU it keeps to now, -1: its own affinity */
	uint64_t at;   /* TSC of the last look */
};

static void
prog_follow_app(struct dpv_progress_thr *t, struct prog_follow *f, bool lands,
		uint64_t now)
{
	cpu_set_t one;
	int cpu;

	if (now - f->at < rte_get_tsc_hz() / 1000 * PROG_FOLLOW_MS)
		return;
	f->at = now;
	if (!lands) {
		if (f->cpu >= 0 &&
		    sched_setaffinity(0, sizeof(f->own), &f->own) == 0)
			f->cpu = -1;
		return;
	}
	cpu = atomic_load_explicit(&t->app_cpu, memory_order_relaxed);
	if (cpu < 0 || cpu >= CPU_SETSIZE || cpu == f->cpu ||
	    !CPU_ISSET(cpu, &f->own))
		return;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one) == 0) {
		f->cpu = cpu;
		atomic_fetch_add_explicit(&t->follows, 1, memory_order_relaxed);
	}
}

static void *
progress_main(void *arg)
{
	struct dpv_progress_thr *t = arg;
	uint64_t hz = rte_get_tsc_hz();
	uint64_t hot = hz / 1000000 * PROG_HOT_US;
	uint64_t recent = hz / 1000 * PROG_APP_RECENT_MS;
	uint64_t deep = hz / 1000 * PROG_DEEP_AFTER_MS;
	uint64_t deep_woken = hz / 1000 * PROG_DEEP_AFTER_WAKE_MS;
	uint64_t hold = hz / 1000000 * PROG_ACK_HOLD_US;
	uint64_t idle_since = 0, last_work = 0, app_seen = 0, calls = 0;
	/* the last arm seen beside the application, and the last that made
	 * the thread poll hot */
	uint64_t arm_seen = 0, arm_hot = 0, arm_hot_calls = 0;
	uint64_t arm_hot_gap = hz / 1000000 * PROG_ARM_KICK_US;
	unsigned int arm_hot_n = 0; /* such arms within arm_hot_gap */
	uint64_t thr_work = 0; /* a poll beside the application found work */
	uint64_t yield_every = hz / 1000000 * PROG_HOT_YIELD_US, yielded = 0;
	uint64_t ev;
	unsigned int sleep_us = 0, nap_us = PROG_APP_NAP_US, us;
	bool woken = false; /* a frame could end the last idle sleep */
	/* the nap a working poll of the thread cut short (see below) */
	unsigned int nap_keep = 0;
	bool lcore, mid;
	struct prog_follow fol = {.cpu = -1};
	bool follow = prog_follow &&
		      sched_getaffinity(0, sizeof(fol.own), &fol.own) == 0;

	/* short sleeps should be short: 2 us of timer slack (10 us made
	 * the 4 us naps 14 us) */
	prctl(PR_SET_TIMERSLACK, 2000UL, 0, 0, 0);
	/* an lcore id of its own: the mbuf pools' per-lcore caches then
	 * serve this thread's allocations and frees (without one, every
	 * mbuf went through the pool's shared ring: ~5 % of a passive
	 * ib_write_bw -s 64 server's time) */
	lcore = rte_thread_register() == 0;
	while (!atomic_load_explicit(&t->stop, memory_order_relaxed)) {
		uint64_t now = rte_rdtsc();
		uint64_t c = atomic_load_explicit(&t->app_calls,
						  memory_order_relaxed);

		/* events a waiter left in memory that no wait took */
		dpv_cq_carry_flush(t->dev, now);
		/* the application blocks in a verbs call: it stopped */
		if (atomic_load_explicit(&t->kick, memory_order_acquire)) {
			atomic_store_explicit(&t->kick, 0,
					      memory_order_relaxed);
			calls = c;
			app_seen = 0;
			last_work = now;
			nap_us = PROG_APP_NAP_US;
			nap_keep = 0;
		}
		/* the application's poll landed part of a WRITE: a poll now,
		 * then short naps again (prog_mid_kick) */
		mid = atomic_load_explicit(&t->mid_kick,
					   memory_order_relaxed) &&
		      atomic_exchange_explicit(&t->mid_kick, false,
					       memory_order_acquire);
		if (mid)
			nap_us = PROG_APP_NAP_US;
		/* The application called since the last look: it drives.
		 * Frames a burst of posts left queued still go out, and so
		 * does an ACK its last poll held back if it stopped calling.
		 * If its calls only post (it waits on memory in between, as
		 * RPCs over RDMA WRITE do), what arrives is the thread's to
		 * land: it polls.
		 *
		 * Or it drove the engine a moment ago: it may just be
		 * preempted (by this thread: on a busy 2-core machine short
		 * naps here kept the application off its core) or between two
		 * calls. Poll once per nap, the naps still growing.
		 *
		 * These polls hold the ACKs that arise in them, as the
		 * application's own would: an application that waits on
		 * memory between its calls (ib_write_lat, spinning until the
		 * peer's WRITE lands) posts its next WRITE as soon as this
		 * poll lands the peer's, and the ACK then leaves after that
		 * WRITE. Sent at once, it completed the peer's WRITE before
		 * ours arrived: the peer went back to waiting on memory and
		 * our WRITE waited for its progress thread's nap (up to
		 * 10 ms), every round trip from then on. A held ACK the
		 * application does not take is sent after a short nap; a
		 * poll that found work is followed by a short one too. */
		if (c != calls || now - app_seen < recent) {
			unsigned work = 0;
			bool held = false, own, lands, quiet = c == calls;
			/* an arm since the last look: the application may
			 * wait for the event in a poll() of its own, which
			 * no call of it tells (dpv_progress_app_arms()) */
			bool armed =
				atomic_load_explicit(&t->armed,
						     memory_order_relaxed) &&
				atomic_exchange_explicit(&t->armed, false,
							 memory_order_acquire);

			/* arms in a row, each soon after the one before (an
			 * event loop's exchange under way, not an idle
			 * connection's once-a-second look): the application
			 * waits in its own poll() next, as after a blocking
			 * wait, so the thread polls hot as it does then
			 * (below), until the application calls again; a
			 * frame-ended sleep took a wake-up of the thread, then
			 * one of the application, for every event. Again
			 * within PROG_ARM_KICK_US only after a few calls (an
			 * event's: its poll, a post, the arms of a send and a
			 * receive CQ), and PROG_ARM_HOT_MAX times at most: an
			 * application that arms with every poll while it
			 * drives would keep the thread from napping beside
			 * it */
			bool soon = armed && now - arm_seen < recent;

			if (armed)
				arm_seen = now;
			if (soon && now - arm_hot >= arm_hot_gap)
				arm_hot_n = 0;
			if (soon &&
			    (arm_hot_n == 0 ||
			     (arm_hot_n < PROG_ARM_HOT_MAX &&
			      c - arm_hot_calls <= PROG_ARM_HOT_CALLS))) {
				arm_hot = now;
				arm_hot_calls = c;
				arm_hot_n++;
				atomic_fetch_add_explicit(&t->arm_hots, 1,
							  memory_order_relaxed);
				calls = c;
				app_seen = 0;
				last_work = now;
				continue;
			}
			if (c == calls || mid || prog_rx_stale(t, now, hold))
				work = prog_poll(t, &held);
			else if (prog_owed(t, now, hold))
				prog_poll(t, NULL);
			if (c != calls) {
				calls = c;
				app_seen = now;
				sleep_us = 0;
			}
			last_work = 0;
			if (work != 0)
				thr_work = now;
			/* short naps while the thread lands what arrives:
			 * not once the application's own polls look for
			 * frames again (it was only preempted, or between
			 * two calls: waking beside a spinning application
			 * every 100 us preempted it, ~1 % of ib_send_lat
			 * round trips took 30-100 us on a 2-vCPU VM), and
			 * then the naps go on from where the thread's work
			 * cut them short, not from 4 us again */
			own = prog_app_rx_since(t, thr_work);
			if (work != 0 || held) {
				nap_keep = RTE_MAX(nap_keep, nap_us);
			} else if (own && nap_keep != 0) {
				nap_us = RTE_MAX(nap_us, nap_keep);
				nap_keep = 0;
			}
			/* the thread lands what the application leaves */
			lands = now - thr_work < recent && !own;
			if (follow)
				prog_follow_app(t, &fol, lands, now);
			nap_us = prog_nap_after(t, work, held, nap_us, lands,
						quiet || armed);
			continue;
		}
		if (follow && fol.cpu >= 0)
			prog_follow_app(t, &fol, false, now);
		nap_us = PROG_APP_NAP_US;
		nap_keep = 0;
		ev = dpv_cq_events_written();
		if (prog_poll(t, NULL) != 0) {
			last_work = now;
			sleep_us = 0;
			/* it woke the application (blocked in
			 * ibv_get_cq_event): leave it the core. Spinning on,
			 * the thread kept it waiting for a core ~2 ms (the hot
			 * window) about once in a hundred events on a 2-vCPU
			 * VM with two such processes. Its first verbs call
			 * ends the window, and blocking again kicks. */
			if (dpv_cq_events_written() != ev)
				prog_nap(t, PROG_WOKE_NAP_US);
			continue;
		}
		if (last_work != 0 && now - last_work < hot) {
			/* idle for a while: let a thread queued behind this
			 * one have the core now and then (the other process's
			 * thread, woken on this busy vCPU while the other one
			 * idles: a KVM guest takes a halted vCPU for a
			 * preempted one and leaves it out of wake-up
			 * placement, and the woken thread waited ~1 ms for
			 * this spin to end) */
			if (now - RTE_MAX(last_work, yielded) > yield_every) {
				sched_yield();
				yielded = rte_rdtsc();
			} else {
				rte_pause();
			}
			continue;
		}
		if (sleep_us == 0)
			idle_since = now;
		sleep_us = sleep_us ? sleep_us * 2 : 1;
		/* sleeps that a frame ends cost no latency when long: they
		 * go deep soon (a peer's rsocket probe once a second kept
		 * every sleep at 1 ms, ~800 wake-ups a second) */
		if (sleep_us > PROG_IDLE_MAX_US)
			sleep_us =
				now - idle_since > (woken ? deep_woken : deep)
					? PROG_DEEP_US
					: PROG_IDLE_MAX_US;
		/* a kick (the application blocks in ibv_get_cq_event) ends
		 * it, and a CQ's moderated event is due no later than its
		 * period (prog_nap()); so does a frame, where one can wake
		 * this thread (receive interrupts, a memif peer). It ends
		 * at the next retransmission or RNR timer, or the engine's
		 * next timer sweep; sleep_us is left as it is: a poll there
		 * that finds nothing to do (a sweep's, mostly) does not
		 * start the back-off again */
		us = prog_idle_sleep_us(t, sleep_us);
		woken = us >= PROG_WAKE_MIN_US && prog_wake_sleep(t, us, NULL);
		if (!woken)
			prog_nap(t, us);
	}
	if (lcore)
		rte_thread_unregister();
	return NULL;
}

static int
worker_main(void *arg)
{
	struct dpv_worker *w = arg;

	while (!atomic_load_explicit(&w->stop, memory_order_relaxed)) {
		unsigned n = atomic_load_explicit(&w->ndevs,
						  memory_order_acquire);
		unsigned work = 0;

		for (unsigned i = 0; i < n; i++) {
			struct dpv_progress_thr *t = w->devs[i];
			struct dpv_engine *e = w->eng[i];

			if (!dpv_engine_trylock(e))
				continue; /* a control command waits */
			work += dpv_engine_poll(e, 0);
			dpv_engine_unlock(e);
			atomic_fetch_add_explicit(&t->worker_polls, 1,
						  memory_order_relaxed);
		}
		/* leaves a window for a control command waiting on a lock */
		rte_pause();
		if (work == 0)
			rte_pause();
	}
	return 0;
}

/* The worker lcores EAL has (lcores other than the main one), at most n. */
static unsigned
workers_setup(unsigned n)
{
	unsigned lcore, i = 0;

	if (workers != NULL)
		return n_workers;
	workers = calloc(n, sizeof(*workers));
	if (workers == NULL)
		return 0;
	pthread_atfork(NULL, NULL, prog_atfork_child);
	RTE_LCORE_FOREACH_WORKER(lcore) {
		if (i == n)
			break;
		if (rte_eal_get_lcore_state(lcore) != WAIT)
			continue;
		workers[i].lcore = lcore;
		atomic_init(&workers[i].stop, false);
		atomic_init(&workers[i].ndevs, 0);
		i++;
	}
	n_workers = i;
	return i;
}

/*
 * Hand shard s of the device to its worker, (index + s) % workers
 * (prog_lock held); launch the worker if needed.
 */
static int
worker_assign(struct dpv_device *dev, struct dpv_progress_thr *t, unsigned s)
{
	struct dpv_worker *w = &workers[(dev->index + s) % n_workers];
	unsigned n = atomic_load(&w->ndevs);
	int rc;

	if (n == WORKER_MAX_DEVS)
		return ENOSPC;
	w->devs[n] = t;
	w->eng[n] = dev->engines[s];
	t->mode = DPV_DEVICE_PROGRESS_WORKER;
	if (s == 0)
		t->lcore = w->lcore;
	atomic_store_explicit(&w->ndevs, n + 1, memory_order_release);
	if (!w->launched) {
		rc = rte_eal_remote_launch(worker_main, w, w->lcore);
		if (rc != 0) {
			atomic_store(&w->ndevs, n);
			return -rc;
		}
		w->launched = true;
	}
	if (dev->nshards == 1)
		VERBS_LOG(INFO, "%s: engine runs on worker lcore %u",
			  dev->vdev.device.name, w->lcore);
	else
		VERBS_LOG(INFO, "%s: engine shard %u runs on worker lcore %u",
			  dev->vdev.device.name, s, w->lcore);
	return 0;
}

static void
workers_stop(void)
{
	for (unsigned i = 0; i < n_workers; i++) {
		if (!workers[i].launched)
			continue;
		atomic_store(&workers[i].stop, true);
		rte_eal_wait_lcore(workers[i].lcore);
		workers[i].launched = false;
		for (unsigned j = 0; j < atomic_load(&workers[i].ndevs); j++) {
			struct dpv_progress_thr *t = workers[i].devs[j];

			VERBS_LOG(INFO,
				  "worker lcore %u stopped: %" PRIu64
				  " engine polls, %" PRIu64
				  " application progress calls (not polled)",
				  workers[i].lcore,
				  (uint64_t)atomic_load(&t->worker_polls),
				  (uint64_t)atomic_load(&t->app_calls));
		}
	}
}

/*
 * At exit, before the port's destructor closes the ports: stop the
 * threads, then keep every engine running until it has been quiet for
 * PROG_LINGER_QUIET_MS (at most PROG_LINGER_MAX_MS), so that the last ACKs
 * leave and the peer reads them before the link goes down (a memif peer
 * drops what is still in the rings when we disconnect).
 */
#define PROG_LINGER_QUIET_MS 20
#define PROG_LINGER_MAX_MS 250

__attribute__((destructor)) static void
progress_fini(void)
{
	bool stats = getenv("DPV_STATS") != NULL;
	uint64_t hz, start, quiet;
	unsigned int i;

	/* a forked child has neither the threads nor the ports */
	if (prog_nthreads == 0 || getpid() != prog_pid)
		return;
	pthread_mutex_lock(&prog_lock);
	/* worker lcores first: EAL must find them waiting at cleanup */
	workers_stop();
	for (i = 0; i < prog_nthreads; i++) {
		if (!prog_threads[i]->running)
			continue;
		atomic_store(&prog_threads[i]->stop, true);
		pthread_join(prog_threads[i]->tid, NULL);
		prog_threads[i]->running = false;
		prog_ack_hold(prog_threads[i]->dev, false);
	}
	if (prog_nthreads > 0) {
		hz = rte_get_tsc_hz();
		start = quiet = rte_rdtsc();
		while (rte_rdtsc() - quiet < hz / 1000 * PROG_LINGER_QUIET_MS &&
		       rte_rdtsc() - start < hz / 1000 * PROG_LINGER_MAX_MS) {
			unsigned int work = 0;

			for (i = 0; i < prog_nthreads; i++)
				work += prog_poll(prog_threads[i], NULL);
			if (work != 0)
				quiet = rte_rdtsc();
			else
				prog_sleep_us(100);
		}
	}
	dpv_verbs_pcap_close();
	for (i = 0; i < prog_nthreads; i++) {
		struct dpv_device *dev = prog_threads[i]->dev;

		for (unsigned s = 0; stats && s < dev->nshards; s++)
			stats_print(dev->engines[s]);
		if (stats)
			event_stats_print(dev);
		free(prog_threads[i]);
		prog_threads[i] = NULL;
	}
	prog_nthreads = 0;
	pthread_mutex_unlock(&prog_lock);
}

/*
 * Progress mode: DPV_PROGRESS ("thread", "app", "workers" or "auto") wins
 * over the configuration's [dpverbs] progress. "auto" (the default):
 * worker lcores when [dpverbs] workers > 0, else a thread, when the
 * library started EAL (standalone). In embedded mode the application owns
 * EAL and its lcores, and tears them down (dpv_port_fini(), then its own
 * rte_eal_cleanup()) whenever it likes, so only its own calls (verbs
 * calls, dpv_device_poll()) make progress there and "thread"/"workers"
 * are ignored.
 */
static int
progress_mode(int *out)
{
	const char *v = getenv("DPV_PROGRESS");
	bool owned = dpv_port_eal_owned();
	int mode = dpv_port_progress();

	if (v != NULL && *v != '\0') {
		if (strcasecmp(v, "thread") == 0) {
			mode = DPV_PROGRESS_THREAD;
		} else if (strcasecmp(v, "app") == 0) {
			mode = DPV_PROGRESS_APP;
		} else if (strcasecmp(v, "workers") == 0) {
			mode = DPV_PROGRESS_WORKERS;
		} else if (strcasecmp(v, "auto") == 0) {
			mode = DPV_PROGRESS_AUTO;
		} else {
			VERBS_LOG(ERR, "DPV_PROGRESS=%s: want thread, app, "
				  "workers or auto", v);
			return EINVAL;
		}
	}
	if (!owned) {
		if (mode == DPV_PROGRESS_THREAD || mode == DPV_PROGRESS_WORKERS)
			VERBS_LOG(NOTICE, "no progress thread or worker lcore: "
				  "the application owns EAL (embedded mode)");
		*out = DPV_DEVICE_PROGRESS_APP;
		return 0;
	}
	if (mode == DPV_PROGRESS_APP) {
		*out = DPV_DEVICE_PROGRESS_APP;
		return 0;
	}
	if (mode != DPV_PROGRESS_THREAD && dpv_port_workers() > 0) {
		*out = DPV_DEVICE_PROGRESS_WORKER;
		return 0;
	}
	if (mode == DPV_PROGRESS_WORKERS)
		VERBS_LOG(WARNING, "progress = workers but [dpverbs] workers "
			  "is 0: using a progress thread");
	*out = DPV_DEVICE_PROGRESS_THREAD;
	return 0;
}

/*
 * Register the device's engine for the exit linger; start its thread or
 * hand it to its worker lcore (a thread if no worker lcore is available).
 */
static int
progress_register(struct dpv_device *dev, int mode)
{
	struct dpv_progress_thr *t;
	char name[16];
	int rc;

	pthread_mutex_lock(&prog_lock);
	if (prog_nthreads == PROG_MAX_THREADS) {
		pthread_mutex_unlock(&prog_lock);
		return ENOSPC;
	}
	t = calloc(1, sizeof(*t));
	if (t == NULL) {
		pthread_mutex_unlock(&prog_lock);
		return ENOMEM;
	}
	t->dev = dev;
	t->mode = DPV_DEVICE_PROGRESS_APP;
	prog_pid = getpid();
	atomic_init(&t->app_calls, 0);
	atomic_init(&t->worker_polls, 0);
	atomic_init(&t->stop, false);
	atomic_init(&t->nap_max_us, PROG_APP_NAP_MAX_US);
	atomic_init(&t->nap_end, 0);
	atomic_init(&t->mid_kick, false);
	atomic_init(&t->mid_kicks, 0);
	atomic_init(&t->arm_kicks, 0);
	atomic_init(&t->arm_hots, 0);
	atomic_init(&t->armed, false);
	atomic_init(&t->app_cpu, -1);
	atomic_init(&t->follows, 0);
	if (prog_nthreads == 0) {
		const char *f = getenv("DPV_PROGRESS_FOLLOW");

		prog_follow = f != NULL && strcmp(f, "1") == 0;
	}
	atomic_init(&t->kick, 0);
	prog_threads[prog_nthreads++] = t;
	/* progress_thr is also where dpv_device_progress_get() looks */
	dev->progress_thr = t;
	if (mode == DPV_DEVICE_PROGRESS_WORKER) {
		if (workers_setup(dpv_port_workers()) == 0) {
			VERBS_LOG(WARNING, "%s: [dpverbs] workers = %u but EAL "
				  "has no free worker lcore: using a progress "
				  "thread", dev->vdev.device.name,
				  dpv_port_workers());
			mode = DPV_DEVICE_PROGRESS_THREAD;
		} else {
			rc = 0;
			for (unsigned s = 0; rc == 0 && s < dev->nshards; s++)
				rc = worker_assign(dev, t, s);
			if (rc == 0) {
				pthread_mutex_unlock(&prog_lock);
				return 0;
			}
			VERBS_LOG(WARNING, "%s: no worker lcore (%s): using a "
				  "progress thread", dev->vdev.device.name,
				  strerror(rc));
			mode = DPV_DEVICE_PROGRESS_THREAD;
		}
	}
	if (mode == DPV_DEVICE_PROGRESS_THREAD) {
		sigset_t sigs;

		/* the application's signals are not the thread's */
		dpv_port_signals_block(&sigs);
		rc = pthread_create(&t->tid, NULL, progress_main, t);
		dpv_port_signals_restore(&sigs);
		if (rc != 0) {
			dev->progress_thr = NULL;
			pthread_mutex_unlock(&prog_lock);
			return rc;
		}
		snprintf(name, sizeof(name), "dpv-prog-%u", dev->index);
		pthread_setname_np(t->tid, name);
		t->running = true;
		t->mode = DPV_DEVICE_PROGRESS_THREAD;
		/* the thread sends what an application's poll holds back */
		prog_ack_hold(dev, true);
	} else {
		dev->progress_thr = NULL;
	}
	pthread_mutex_unlock(&prog_lock);
	return 0;
}

/*
 * An application thread that drives an engine gets an lcore id of its own
 * at its first call, as the progress thread does: the mbuf pools'
 * per-lcore caches then serve the frames its calls build, receive and
 * free (without one every mbuf goes through the pool's shared ring). Only
 * when the library started EAL (which it never tears down): an embedding
 * application owns EAL and its lcores. The id is given back when the
 * thread exits; when EAL's lcore ids run out the thread goes on without
 * one. DPV_APP_LCORE=0 turns it off.
 */
static pthread_once_t app_lcore_once = PTHREAD_ONCE_INIT;
static pthread_key_t app_lcore_key;
static bool app_lcore_on;
/* read by every call: the initial-exec model (no __tls_get_addr), as
 * port_memif_guard.c's burst slot */
static __thread bool app_lcore_tried
	__attribute__((tls_model("initial-exec")));

static void
app_lcore_release(void *arg)
{
	(void)arg;
	if (rte_lcore_id() != LCORE_ID_ANY)
		rte_thread_unregister();
}

static void
app_lcore_init(void)
{
	const char *v = getenv("DPV_APP_LCORE");

	app_lcore_on = dpv_port_eal_owned() &&
		       !(v != NULL && strcmp(v, "0") == 0) &&
		       pthread_key_create(&app_lcore_key, app_lcore_release) ==
			       0;
}

static void __rte_noinline
app_lcore_take(void)
{
	app_lcore_tried = true;
	pthread_once(&app_lcore_once, app_lcore_init);
	if (!app_lcore_on || rte_lcore_id() != LCORE_ID_ANY ||
	    rte_thread_register() != 0)
		return;
	/* the key's destructor runs at the thread's exit if it is set */
	if (pthread_setspecific(app_lcore_key, &app_lcore_key) != 0)
		rte_thread_unregister();
}

/* Counts an application call; false when a worker lcore owns the engine. */
static bool
app_call(struct dpv_device *dev)
{
	struct dpv_progress_thr *t = dev->progress_thr;

	if (t != NULL) {
		/* one application thread at a time in the usual case: a
		 * relaxed read-modify-write is enough for these hints */
		atomic_store_explicit(
			&t->app_calls,
			atomic_load_explicit(&t->app_calls,
					     memory_order_relaxed) + 1,
			memory_order_relaxed);
		if (unlikely(prog_follow))
			atomic_store_explicit(&t->app_cpu, sched_getcpu(),
					      memory_order_relaxed);
		/* a worker lcore owns the engine: nothing to do here */
		if (t->mode == DPV_DEVICE_PROGRESS_WORKER && !prog_forked)
			return false;
	}
	/* this thread drives the engine: an lcore id, once */
	if (unlikely(!app_lcore_tried))
		app_lcore_take();
	return true;
}

/*
 * The application's poll wrote a CQE and landed part of a multi-frame
 * RDMA WRITE (the rest is on its way; dpv_engine_poll_left_mid()) while
 * the progress thread naps long: the application
 * may not poll again (ib_write_lat's poll ends with its WRITE's
 * completion, and then it spins on memory until the peer's WRITE has
 * landed, which only the thread can do), so the rest must not wait for
 * the end of the nap (up to PROG_APP_NAP_MAX_US: 4-8 ms a round trip of
 * 64 KiB at a 1024 path MTU). The thread is woken to take short naps
 * again: at most once per nap, and only for a nap that still has more
 * than PROG_MID_KICK_US to go (the thread looks soon enough otherwise).
 */
static void
prog_mid_kick(struct dpv_progress_thr *t)
{
	if (!prog_nap_longer(t, PROG_MID_KICK_US))
		return;
	if (atomic_exchange_explicit(&t->mid_kick, true, memory_order_release))
		return;
	atomic_fetch_add_explicit(&t->mid_kicks, 1, memory_order_relaxed);
	syscall(SYS_futex, &t->kick, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void
engine_progress(struct dpv_device *dev)
{
	bool mid = false;

	if (!app_call(dev))
		return;
	for (unsigned s = 0; s < dev->nshards; s++) {
		dpv_engine_progress_app(dev->engines[s]);
		mid |= dpv_engine_poll_left_mid(dev->engines[s]);
	}
	if (unlikely(mid) && dev->progress_thr != NULL &&
	    dev->progress_thr->mode == DPV_DEVICE_PROGRESS_THREAD)
		prog_mid_kick(dev->progress_thr);
}

static void
engine_progress_post(struct dpv_device *dev, struct dpv_qp *qp)
{
	struct dpv_engine *qe = qp->engine;
	/* posts kick on the device's engines (dpv_engine_set_posts_kick) */
	struct dpv_mlx5_sq *sq = qe != NULL ? &qp->sq : NULL;

	if (!app_call(dev)) {
		/* a worker lcore owns the engine: it learns of the post */
		if (sq != NULL)
			dpv_engine_qp_kick(qe, sq);
		return;
	}
	for (unsigned s = 0; s < dev->nshards; s++)
		dpv_engine_progress_post_sq(dev->engines[s],
					    dev->engines[s] == qe ? sq : NULL);
}

/*
 * DPV_LINK_WAIT_MS=N: opening a device waits up to N ms for its link (a
 * memif port is down until the peer process connects; tools such as
 * perftest refuse a port that is not ACTIVE when they start).
 */
static void
link_wait(struct dpv_device *dev)
{
	const char *v = getenv("DPV_LINK_WAIT_MS");
	struct dpv_port_info info;
	unsigned long ms, waited = 0;
	char *end;

	if (v == NULL || *v == '\0' || dev->port == NULL)
		return;
	errno = 0;
	ms = strtoul(v, &end, 10);
	if (errno != 0 || *end != '\0' || ms > 600000) {
		VERBS_LOG(ERR, "DPV_LINK_WAIT_MS=%s: want 0..600000", v);
		return;
	}
	while (dpv_port_query(dev->port, &info) == 0 && !info.link_up) {
		if (waited >= ms) {
			VERBS_LOG(WARNING, "%s: link still down after %lu ms",
				  dev->vdev.device.name, ms);
			return;
		}
		prog_sleep_us(10000);
		waited += 10;
	}
}

_Static_assert(sizeof(struct dpv_engine_stats) % sizeof(uint64_t) == 0,
	       "engine counters are 64-bit words");

int
dpv_dev_engine_stats(struct dpv_device *dev, struct dpv_engine_stats *out)
{
	if (dev->engine == NULL)
		return -ENODEV;
	memset(out, 0, sizeof(*out));
	for (unsigned s = 0; s < dev->nshards; s++) {
		struct dpv_engine_stats st;
		uint64_t *sum = (uint64_t *)out;
		const uint64_t *w = (const uint64_t *)&st;

		if (dpv_engine_stats_get(dev->engines[s], &st) != 0)
			return -ENODEV;
		for (size_t i = 0; i < sizeof(st) / sizeof(*w); i++)
			sum[i] += w[i];
	}
	return 0;
}

struct dpv_engine *
dpv_dev_qp_engine(struct dpv_device *dev, uint32_t qpn)
{
	int s = dev->nshards > 1 ? dpv_qp_shard_of(dev, qpn) : 0;

	return s < 0 ? dev->engine : dev->engines[s];
}

void
dpv_dev_engines_barrier(struct dpv_device *dev)
{
	for (unsigned s = 0; s < dev->nshards; s++) {
		dpv_engine_lock(dev->engines[s]);
		dpv_engine_unlock(dev->engines[s]);
	}
}

/* shards: the engine that owns QP qpn (conf.qp_owner), lock-free; the
 * home shard for no QP, which is where such a frame goes anyway */
static struct dpv_engine *
engine_qp_owner(void *arg, uint32_t qpn)
{
	return dpv_dev_qp_engine(arg, qpn);
}

/*
 * Engines of a device: [dpverbs] shards when the library owns EAL (and
 * so the port's queues: one queue pair each), capped by the queues the
 * port got; one otherwise (embedded, or a port the application set up).
 */
static unsigned
shards_of(const struct dpv_device *dev)
{
	unsigned n = dpv_port_shards();

	if (dev->port == NULL || !dpv_port_eal_owned() || n <= 1)
		return 1;
	n = RTE_MIN(n, (unsigned)dpv_port_queues(dev->port));
	return RTE_MIN(n, (unsigned)DPV_DEV_SHARDS_MAX);
}

int
dpv_verbs_engine_attach(struct dpv_device *dev)
{
	struct dpv_engine_conf conf;
	struct dpv_engine *e;
	unsigned n;
	int mode, rc;

	if (dev->engine != NULL)
		return 0;
	link_wait(dev);
	rc = progress_mode(&mode);
	if (rc != 0)
		return rc;
	memset(&conf, 0, sizeof(conf));
	conf.max_keys = DPV_CAP_MAX_MR;
	conf.max_qps = DPV_CAP_MAX_QP;
	conf.key_lookup = engine_key_lookup;
	conf.key_version = dpv_mkey_version;
	conf.key_lookup_arg = dev;
	conf.key_invalidate = dpv_mkey_engine_invalidate;
	conf.key_bind = dpv_mkey_engine_bind;
	conf.key_config = dpv_mkey_engine_config;
	conf.mcast_lookup = dpv_qp_mcast_hook;
	conf.mcast_arg = dev;
	conf.srq_lookup = dpv_srq_engine_lookup;
	conf.srq_arg = dev;
	conf.srq_fetched = dpv_srq_engine_fetched;
	conf.sq_drained = dpv_qp_sq_drained_hook;
	conf.event_arg = dev;
	conf.cq_event = engine_cq_event;
	conf.cq_event_arg = dev;
	n = shards_of(dev);
	if (n > 1) {
		conf.qp_owner = engine_qp_owner;
		conf.qp_owner_arg = dev;
	}
	for (unsigned s = 0; s < n; s++) {
		conf.rx_queue = conf.tx_queue = (uint16_t)s;
		conf.home = s ? dev->engines[0] : NULL;
		e = dpv_engine_create(dev->port, &conf);
		if (e == NULL) {
			rc = rte_errno ? rte_errno : ENOMEM;
			VERBS_LOG(ERR, "%s: no engine (shard %u): %s",
				  dev->vdev.device.name, s,
				  rte_strerror(rc));
			while (s-- > 0)
				dpv_engine_destroy(dev->engines[s]);
			return rc;
		}
		/* every post goes through engine_progress_post() (or is
		 * kicked), but for QPs whose rings the application holds,
		 * which dpv_qp_rings_exposed() leaves to the scan */
		dpv_engine_set_posts_kick(e, true);
		dev->engines[s] = e;
	}
	dev->nshards = n;
	dev->engine = dev->engines[0];
	if (n > 1)
		VERBS_LOG(INFO, "%s: %u engine shards", dev->vdev.device.name,
			  n);
	/* verbs calls (poll_cq, posting, get_cq_event) run the engine too */
	dev->progress = engine_progress;
	dev->progress_post = engine_progress_post;
	dev->event_poll_cycles = dpv_event_poll_cycles_env();
	/* embedded: the application tears EAL down, nothing may run after */
	if (!dpv_port_eal_owned())
		return 0;
	rc = dpv_verbs_pcap_attach(dev);
	if (rc != 0)
		VERBS_LOG(WARNING, "%s: DPV_PCAP: no capture (%s)",
			  dev->vdev.device.name, strerror(rc));
	rc = progress_register(dev, mode);
	if (rc != 0 && mode != DPV_DEVICE_PROGRESS_APP)
		VERBS_LOG(WARNING,
			  "%s: no progress thread (%s): progress only inside "
			  "verbs calls",
			  dev->vdev.device.name, strerror(rc));
	return 0;
}

int
dpv_device_poll(struct ibv_context *ctx, unsigned budget)
{
	struct dpv_device *dev;
	unsigned r;

	if (ctx == NULL)
		return -EINVAL;
	dev = dctx_dev(ctx);
	if (dev->engine == NULL)
		return -ENODEV;
	r = 0;
	for (unsigned s = 0; s < dev->nshards; s++) {
		dpv_engine_lock(dev->engines[s]);
		r += dpv_engine_poll(dev->engines[s], budget);
		dpv_engine_unlock(dev->engines[s]);
	}
	return r > INT32_MAX ? INT32_MAX : (int)r;
}

int
dpv_device_app_blocks(struct ibv_context *ctx)
{
	if (ctx == NULL)
		return -EINVAL;
	dpv_progress_app_blocks(dctx_dev(ctx));
	return 0;
}

int
dpv_device_progress_get(struct ibv_context *ctx,
			struct dpv_device_progress *out)
{
	struct dpv_progress_thr *t;
	struct dpv_device *dev;

	if (ctx == NULL || out == NULL)
		return -EINVAL;
	dev = dctx_dev(ctx);
	if (dev->engine == NULL)
		return -ENODEV;
	memset(out, 0, sizeof(*out));
	t = dev->progress_thr;
	if (t == NULL)
		return 0;
	out->mode = t->mode;
	out->lcore = t->mode == DPV_DEVICE_PROGRESS_WORKER ? t->lcore : 0;
	out->worker_polls = atomic_load_explicit(&t->worker_polls,
						 memory_order_relaxed);
	out->app_calls = atomic_load_explicit(&t->app_calls,
					      memory_order_relaxed);
	return 0;
}

int
dpv_device_rx(struct ibv_context *ctx, struct rte_mbuf **pkts, uint16_t n)
{
	struct dpv_device *dev;

	if (ctx == NULL || (pkts == NULL && n != 0))
		return -EINVAL;
	dev = dctx_dev(ctx);
	if (dev->engine == NULL || dev->port == NULL)
		return -ENODEV;
	return dpv_port_rx_inject(dev->port, pkts, n);
}
