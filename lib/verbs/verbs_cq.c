/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Completion channels, CQs (plain and extended) and completion events.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>

#include "verbs_int.h"
#include "verbs_raw.h"
#include "verbs_ops.h"
#include "verbs_dv.h"
#include "dpv_engine.h"
#include "dpv_port.h"

/* ---------------------------------------------------------------------- */
/* Completion channel                                                      */

struct ibv_comp_channel *
ibv_create_comp_channel(struct ibv_context *context)
{
	struct dpv_comp_channel *ch = calloc(1, sizeof(*ch));

	if (ch == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	ch->ibv.fd = eventfd(0, EFD_CLOEXEC | EFD_SEMAPHORE);
	if (ch->ibv.fd < 0) {
		int err = errno;

		free(ch);
		errno = err;
		return NULL;
	}
	ch->ibv.context = context;
	ch->ibv.refcnt = 0;
	pthread_mutex_init(&ch->lock, NULL);
	TAILQ_INIT(&ch->ready);
	atomic_init(&ch->refcnt, 0);
	atomic_init(&ch->pending, 0);
	atomic_init(&ch->mem, 0);
	atomic_init(&ch->pollers, 0);
	atomic_init(&ch->waiters, 0);
	/* the device's whole window until waits say otherwise */
	atomic_init(&ch->poll_window, UINT64_MAX);
	atomic_init(&ch->tried, false);
	atomic_init(&ch->try_skip, 0);
	atomic_init(&ch->try_backoff, 1);
	atomic_init(&ch->fd_mode, CHAN_FD_UNKNOWN);
	pthread_mutex_lock(&dctx_dev(context)->chan_lock);
	TAILQ_INSERT_TAIL(&dctx_dev(context)->chans, ch, dev_next);
	pthread_mutex_unlock(&dctx_dev(context)->chan_lock);
	return &ch->ibv;
}

/* CQs using a channel: the atomic count decides EBUSY, the public
 * ibv_comp_channel.refcnt mirrors it as rdma-core keeps it. */
static void
chan_hold(struct ibv_comp_channel *channel, int d)
{
	struct dpv_comp_channel *ch = to_dchan(channel);

	pthread_mutex_lock(&ch->lock);
	channel->refcnt += d;
	pthread_mutex_unlock(&ch->lock);
	if (d > 0)
		dpv_ref_get(&ch->refcnt);
	else
		dpv_ref_put(&ch->refcnt);
}

int
ibv_destroy_comp_channel(struct ibv_comp_channel *channel)
{
	struct dpv_comp_channel *ch = to_dchan(channel);
	struct dpv_device *dev = dctx_dev(channel->context);

	if (dpv_ref_busy(&ch->refcnt))
		return EBUSY;
	pthread_mutex_lock(&dev->chan_lock);
	TAILQ_REMOVE(&dev->chans, ch, dev_next);
	pthread_mutex_unlock(&dev->chan_lock);
	close(channel->fd);
	pthread_mutex_destroy(&ch->lock);
	free(ch);
	return 0;
}

static __thread uint64_t events_written;

uint64_t
dpv_cq_events_written(void)
{
	return events_written;
}

/* Take one of the events queued in memory (not on the fd), if any: a
 * load first, no locked operation when there is none. */
static bool
chan_take_mem(struct dpv_comp_channel *ch)
{
	int n = atomic_load_explicit(&ch->mem, memory_order_relaxed);

	while (n > 0)
		if (atomic_compare_exchange_weak_explicit(&ch->mem, &n, n - 1,
							  memory_order_acq_rel,
							  memory_order_relaxed))
			return true;
	return false;
}

/* Write one event to the channel's fd (counted in pending). */
static void
chan_write(struct dpv_comp_channel *ch)
{
	uint64_t one = 1;

	if (write(ch->ibv.fd, &one, sizeof(one)) < 0)
		VERBS_LOG(WARNING, "channel write: %s", strerror(errno));
	else
		atomic_fetch_add_explicit(&ch->pending, 1,
					  memory_order_release);
}

/* Every event in memory goes to the fd. */
static void
chan_flush_mem(struct dpv_comp_channel *ch)
{
	while (chan_take_mem(ch))
		chan_write(ch);
}

/*
 * Queue one completion event of cq on its channel. A waiter polling for
 * it in memory (ibv_get_cq_event()'s window) takes it from there: no
 * write() to the fd here and no read() there (each a system call, ~1 us
 * on a VM). Otherwise the fd is written, as rdma-core's kernel does, for
 * a waiter asleep on it and for programs that poll() the fd. The two
 * sides' store-then-load (mem here, pollers there; seq_cst) let either
 * this thread see the poller or the poller, once it stops polling, see
 * the event: none is left in memory with no poller to take it, but by a
 * waiter that leaves it there for its next wait (chan_leave()). Every
 * poller that stops takes one if one is there; more raised in the same
 * window (a program with one channel for its send and receive CQs gets
 * two in a ping-pong's) stay for the next wait or go to the fd when the
 * waiter leaves (chan_leave()).
 */
static void
cq_deliver(struct dpv_cq *cq)
{
	struct ibv_comp_channel *channel = cq->vcq.cq.channel;
	struct dpv_comp_channel *ch;

	if (channel == NULL)
		return;
	ch = to_dchan(channel);
	pthread_mutex_lock(&ch->lock);
	if (!cq->queued) {
		TAILQ_INSERT_TAIL(&ch->ready, cq, chan_next);
		cq->queued = true;
	}
	cq->pending_events++;
	pthread_mutex_unlock(&ch->lock);
	/* a progress thread that raised it leaves the waiter the core a
	 * while (progress_main()), a polling one as a sleeping one */
	events_written++;
	atomic_fetch_add_explicit(&ch->mem, 1, memory_order_seq_cst);
	if (atomic_load_explicit(&ch->pollers, memory_order_seq_cst) > 0)
		return;
	/* no one polls: one goes on the fd, unless a waiter took one from
	 * memory meanwhile */
	if (chan_take_mem(ch))
		chan_write(ch);
}

/*
 * A waiter took its event: what more is in memory (raised in its window,
 * or left by another waiter) is left there for its next wait, which
 * takes it with no read(), as the one it took (the write() of the fd and
 * the read() cost ~2 us on a VM, a third of a 64-byte ib_send_lat -e
 * round trip). Only while no other thread waits in ibv_get_cq_event():
 * one asleep on the fd would wait for this one's next call; and only
 * with a progress thread, which writes to the fd what stays longer than
 * DPV_CHAN_CARRY_US (dpv_cq_carry_flush()), for a thread of the program
 * that waits in its own poll() of the fd. Otherwise it all goes to the fd
 * now. A thread that starts to wait after the look at waiters here sees
 * the events in memory (its store of waiters, then its load of mem; here
 * the load of mem, then of waiters; seq_cst) and takes them.
 */
static void
chan_leave(struct dpv_comp_channel *ch, struct dpv_device *dev)
{
	if (atomic_load_explicit(&ch->mem, memory_order_seq_cst) == 0)
		return;
	if (atomic_load_explicit(&ch->waiters, memory_order_seq_cst) > 1 ||
	    !dpv_progress_carries(dev)) {
		chan_flush_mem(ch);
		return;
	}
	atomic_fetch_add_explicit(&dev->events_carried, 1,
				  memory_order_relaxed);
	atomic_store_explicit(&dev->carry_at, rte_get_tsc_cycles(),
			      memory_order_seq_cst);
	dpv_progress_carry_kick(dev);
}

void
dpv_cq_carry_flush_slow(struct dpv_device *dev)
{
	uint64_t at =
		atomic_load_explicit(&dev->carry_at, memory_order_acquire);
	struct dpv_comp_channel *ch;

	/* every channel's, also those left a moment ago (two waiters'
	 * stores of the device's time may come in either order) */
	pthread_mutex_lock(&dev->chan_lock);
	TAILQ_FOREACH(ch, &dev->chans, dev_next)
	if (atomic_load_explicit(&ch->mem, memory_order_seq_cst) > 0 &&
	    atomic_load_explicit(&ch->pollers, memory_order_seq_cst) == 0)
		chan_flush_mem(ch);
	pthread_mutex_unlock(&dev->chan_lock);
	/* a waiter that left events meanwhile stored a later time */
	atomic_compare_exchange_strong_explicit(&dev->carry_at, &at, 0,
						memory_order_relaxed,
						memory_order_relaxed);
}

void
dpv_cq_notify(struct dpv_cq *cq)
{
	if (dpv_ring_cq_should_notify(&cq->ring))
		cq_deliver(cq);
}

void
dpv_cq_ring_event(struct dpv_mlx5_cq *ring)
{
	cq_deliver(container_of(ring, struct dpv_cq, ring));
}

/*
 * How long a caller of ibv_get_cq_event() on a blocking channel polls
 * for its event before it blocks (DPV_EVENT_POLL_US, default
 * EVENT_POLL_US_DEFAULT, 0: never). Blocking costs a wake-up on the way
 * back: ~15-20 us on a 2-vCPU VM, and ms when the woken thread must wait
 * for a core that spinning threads hold. Polling on the caller's own
 * thread (the engine's progress, then the channel's count in memory)
 * answers a reply that comes within the window in about the time a poll
 * of the CQ would, while the progress thread naps; what comes later
 * still wakes the caller as before. Like a socket's busy poll.
 *
 * The window adapts per channel, as a guest's halt-polling does: a wait
 * that slept and still ended within the longest window (a longer poll
 * would have caught its event) sets the channel's window to the longest
 * (a try, backed off while tries fail: poll_window_adapt()) or doubles it
 * (from EVENT_POLL_US_MIN), one that took longer halves it (below
 * EVENT_POLL_US_MIN: no polling). A channel whose events come seldom
 * then costs no CPU time for polling that finds nothing.
 */
#define EVENT_POLL_US_DEFAULT 100
#define EVENT_POLL_US_MIN     4
#define EVENT_POLL_US_MAX     1000000
/* slept waits between failed tries of the whole window, at most */
#define EVENT_TRY_BACKOFF_MAX 256u
/* how often a polling waiter looks for a signal held back (us) */
#define EVENT_SIG_CHECK_US 10

uint64_t
dpv_event_poll_cycles_env(void)
{
	const char *v = getenv("DPV_EVENT_POLL_US");
	unsigned long us = EVENT_POLL_US_DEFAULT;
	char *end;

	if (v != NULL && *v != '\0') {
		errno = 0;
		us = strtoul(v, &end, 10);
		if (errno != 0 || *end != '\0' || us > EVENT_POLL_US_MAX) {
			VERBS_LOG(
				WARNING,
				"DPV_EVENT_POLL_US=%s: want 0 to %u; using %u",
				v, EVENT_POLL_US_MAX, EVENT_POLL_US_DEFAULT);
			us = EVENT_POLL_US_DEFAULT;
		}
	}
	return rte_get_tsc_hz() / 1000000 * us;
}

/* An event is queued on the channel (a read of its fd will not block,
 * unless another thread takes it first). */
static inline bool
chan_pending(struct dpv_comp_channel *ch)
{
	return atomic_load_explicit(&ch->mem, memory_order_seq_cst) > 0 ||
	       atomic_load_explicit(&ch->pending, memory_order_acquire) > 0;
}

/* Whether a signal of set a is in set b. */
static bool
signals_in(const sigset_t *a, const sigset_t *b)
{
	sigset_t both;

	sigandset(&both, a, b);
	return !sigisemptyset(&both);
}

/* Poll for the channel's event for up to `window` TSC cycles: true when
 * it came; false when the window ended or a signal of `held` came. */
static bool
poll_window(struct dpv_device *dev, struct dpv_comp_channel *ch,
	    uint64_t window, const sigset_t *held)
{
	uint64_t now = rte_get_tsc_cycles(), end = now + window;
	uint64_t step = rte_get_tsc_hz() / 1000000 * EVENT_SIG_CHECK_US;
	uint64_t check = now + step;
	sigset_t p;

	do {
		if (dev->progress != NULL)
			dev->progress(dev);
		if (chan_pending(ch))
			return true;
		rte_pause();
		now = rte_get_tsc_cycles();
		if (now >= check) {
			check = now + step;
			if (sigpending(&p) == 0 && signals_in(&p, held))
				return false;
		}
	} while (now < end);
	return false;
}

/* The channel's fd as it is now, noted in fd_mode: true if it is
 * non-blocking, or cannot be asked (the caller's read() says why). */
static bool
chan_fd_look(struct dpv_comp_channel *ch)
{
	int fl = fcntl(ch->ibv.fd, F_GETFL);

	atomic_store_explicit(&ch->fd_mode,
			      fl >= 0 && (fl & O_NONBLOCK) ? CHAN_FD_NONBLOCK
							   : CHAN_FD_BLOCKING,
			      memory_order_relaxed);
	return fl < 0 || (fl & O_NONBLOCK);
}

/*
 * Wait until the channel's fd is worth reading: an event is queued, or
 * the caller should block in read() (a progress thread or worker lcore
 * signals the fd). First poll for up to DPV_EVENT_POLL_US (above). With
 * no one else to move the traffic (application-driven progress), then
 * run the engine between sleeps on the fd that grow from 1 us to 1 ms
 * (no longer than a CQ's moderation period). Returns 0 when the caller
 * should read the fd, -1 with errno set when a signal ends the wait.
 *
 * A signal must end a blocked wait with EINTR, as the read() of
 * rdma-core's channel does (programs end a wait with an alarm: qperf).
 * One that came while the waiter polled would be handled and forgotten,
 * and the read after would block: signals are held back while it polls
 * (a pending one ends the polling, looked for every EVENT_SIG_CHECK_US),
 * and the sleeps that follow (ppoll()) take them, at once if one came.
 * A signal sent to the process stays pending for it too, as long as no
 * other application thread takes it: the library's own threads (EAL's,
 * the progress thread, the CM agent) block these signals.
 */
static int
wait_event(struct ibv_comp_channel *channel, bool *slept)
{
	struct dpv_comp_channel *ch = to_dchan(channel);
	struct dpv_device *dev = dctx_dev(channel->context);
	struct pollfd pfd = {.fd = channel->fd, .events = POLLIN};
	uint64_t window = RTE_MIN(
		atomic_load_explicit(&ch->poll_window, memory_order_relaxed),
		dev->event_poll_cycles);
	const sigset_t *mask = NULL; /* ppoll()'s: NULL keeps this one */
	sigset_t held, old;
	unsigned int us = 1;
	int fl, rc = 0, err;
	bool got;

	if (chan_pending(ch))
		return 0;
	/* a non-blocking fd: the caller wants EAGAIN, not a wait */
	if (chan_fd_look(ch))
		return 0;
	if (window != 0) {
		/* the faults' signals are never held (a program may
		 * handle SIGSEGV or SIGBUS) */
		dpv_port_app_sigset(&held);
		pthread_sigmask(SIG_BLOCK, &held, &old);
		mask = &old;
		/* events raised meanwhile stay in memory (cq_deliver()) */
		atomic_fetch_add_explicit(&ch->pollers, 1,
					  memory_order_seq_cst);
		got = poll_window(dev, ch, window, &held);
		atomic_fetch_sub_explicit(&ch->pollers, 1,
					  memory_order_seq_cst);
		/* one raised as the polling ended is in memory, or on the fd
		 * (cq_deliver()'s order) */
		if (got ||
		    atomic_load_explicit(&ch->mem, memory_order_seq_cst) > 0 ||
		    atomic_load_explicit(&ch->pending, memory_order_acquire) >
			    0) {
			atomic_fetch_add_explicit(&dev->event_waits_polled, 1,
						  memory_order_relaxed);
			goto out;
		}
	}
	atomic_fetch_add_explicit(&dev->event_waits_slept, 1,
				  memory_order_relaxed);
	*slept = true;
	/* a progress thread signals the fd: just block on it (and the
	 * thread stops napping: the application no longer drives) */
	dpv_progress_app_blocks(dev);
	if (dev->progress == NULL || dev->progress_thr != NULL) {
		/* without a window, the caller's read() blocks */
		if (mask != NULL && ppoll(&pfd, 1, NULL, mask) < 0)
			rc = -1;
		goto out;
	}
	for (;;) {
		struct timespec ts;

		dev->progress(dev);
		if (chan_pending(ch))
			break;
		us = dpv_progress_sleep_us(dev, us);
		ts.tv_sec = 0;
		ts.tv_nsec = (long)us * 1000;
		fl = ppoll(&pfd, 1, &ts, mask);
		if (fl > 0)
			break;
		if (fl < 0) {
			rc = -1; /* EINTR too: the caller's signal ends it */
			break;
		}
		us = RTE_MIN(us * 2, 1000u);
	}
out:
	if (mask != NULL) {
		err = errno;
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		errno = err;
	}
	return rc;
}

/* A wait that slept took `waited` TSC cycles: the channel's next
 * polling window (see EVENT_POLL_US_MIN). A sleep that ended within the
 * whole window sets it to the whole of it at once, not doubled from
 * EVENT_POLL_US_MIN: in a ping-pong where both ends wait for events and
 * each end's sleep (the other's wake-up and its own) outlasts the window,
 * both windows halve to nothing and stay so (every wait sleeps, ~8x the
 * round trip), though one end's whole window catches most replies and
 * then the other's waits shorten too. Where the whole window does not
 * catch the next event (the other end sleeps whatever this one does, or
 * events come at a steady pace just beyond it), that try costs a
 * window's polling: after a failed try the next is made only after 1, 2,
 * 4, ... EVENT_TRY_BACKOFF_MAX such sleeps, and a try that catches its event
 * starts the count again. */
static void
poll_window_adapt(struct dpv_comp_channel *ch, uint64_t max, uint64_t waited)
{
	uint64_t min = rte_get_tsc_hz() / 1000000 * EVENT_POLL_US_MIN;
	uint64_t w = RTE_MIN(
		atomic_load_explicit(&ch->poll_window, memory_order_relaxed),
		max);
	unsigned int skip, b;

	if (max == 0)
		return;
	if (atomic_exchange_explicit(&ch->tried, false, memory_order_relaxed)) {
		/* the whole window did not catch this one */
		b = atomic_load_explicit(&ch->try_backoff,
					 memory_order_relaxed);
		atomic_store_explicit(&ch->try_skip, b, memory_order_relaxed);
		atomic_store_explicit(&ch->try_backoff,
				      RTE_MIN(b * 2, EVENT_TRY_BACKOFF_MAX),
				      memory_order_relaxed);
	}
	if (waited <= max) {
		skip = atomic_load_explicit(&ch->try_skip,
					    memory_order_relaxed);
		if (skip == 0 && w < max) {
			w = max;
			atomic_store_explicit(&ch->tried, true,
					      memory_order_relaxed);
		} else {
			if (skip != 0)
				atomic_store_explicit(&ch->try_skip, skip - 1,
						      memory_order_relaxed);
			w = RTE_MIN(RTE_MAX(w * 2, min), max);
		}
	} else if ((w /= 2) < min) {
		w = 0;
	}
	atomic_store_explicit(&ch->poll_window, w, memory_order_relaxed);
}

/* A wait that polled and took its event: a try of the whole window
 * (poll_window_adapt()) caught it. */
static inline void
poll_window_caught(struct dpv_comp_channel *ch)
{
	if (atomic_load_explicit(&ch->tried, memory_order_relaxed)) {
		atomic_store_explicit(&ch->tried, false, memory_order_relaxed);
		atomic_store_explicit(&ch->try_backoff, 1,
				      memory_order_relaxed);
	}
}

/* ibv_get_cq_event() but for the count of waiters and what it leaves in
 * memory (chan_leave()). */
static int
get_event(struct ibv_comp_channel *channel, struct ibv_cq **cq,
	  void **cq_context)
{
	struct dpv_comp_channel *ch = to_dchan(channel);
	uint64_t t0 = rte_get_tsc_cycles();
	bool slept = false;
	struct dpv_cq *dcq;
	uint64_t v;

	for (;;) {
		ssize_t n;

		if (wait_event(channel, &slept) != 0)
			return -1;
		/* an event a polling waiter was meant to take has no fd
		 * count; any other is read from the fd */
		if (chan_take_mem(ch)) {
			atomic_fetch_add_explicit(
				&dctx_dev(channel->context)->events_in_memory,
				1, memory_order_relaxed);
		} else {
			n = read(channel->fd, &v, sizeof(v));
			/* EAGAIN on a non-blocking channel fd; EINTR when a
			 * signal interrupts the wait (as rdma-core's read()
			 * of the channel: programs end a wait with an alarm,
			 * qperf does) */
			if (n != sizeof(v))
				return -1;
			atomic_fetch_sub_explicit(&ch->pending, 1,
						  memory_order_relaxed);
		}
		pthread_mutex_lock(&ch->lock);
		dcq = TAILQ_FIRST(&ch->ready);
		if (dcq != NULL && --dcq->pending_events == 0) {
			TAILQ_REMOVE(&ch->ready, dcq, chan_next);
			dcq->queued = false;
		}
		pthread_mutex_unlock(&ch->lock);
		if (dcq != NULL)
			break;
		/* the event's CQ was destroyed meanwhile: wait for the next */
	}
	if (slept)
		poll_window_adapt(ch,
				  dctx_dev(channel->context)->event_poll_cycles,
				  rte_get_tsc_cycles() - t0);
	else
		poll_window_caught(ch);
	dpv_mlx5_cq_event(&dcq->ring);
	*cq = &dcq->vcq.cq;
	*cq_context = dcq->vcq.cq.cq_context;
	return 0;
}

int
ibv_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq,
		 void **cq_context)
{
	struct dpv_comp_channel *ch = to_dchan(channel);
	int rc, err;

	atomic_fetch_add_explicit(&ch->waiters, 1, memory_order_seq_cst);
	rc = get_event(channel, cq, cq_context);
	err = errno;
	chan_leave(ch, dctx_dev(channel->context));
	atomic_fetch_sub_explicit(&ch->waiters, 1, memory_order_release);
	errno = err;
	return rc;
}

void
ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
	pthread_mutex_lock(&cq->mutex);
	cq->comp_events_completed += nevents;
	pthread_cond_broadcast(&cq->cond);
	pthread_mutex_unlock(&cq->mutex);
}

/* ---------------------------------------------------------------------- */
/* Polling                                                                 */

static void
progress(struct ibv_context *ctx)
{
	struct dpv_device *dev = dctx_dev(ctx);

	if (dev->progress)
		dev->progress(dev);
}

/* What a CQ's poll hands to its lookup. */
struct cq_lookup {
	struct dpv_context *ctx;
	struct dpv_cq *cq;
};

/* The work queue of a CQE: SRQs by number here, QPs through qp.c (the
 * last QP of each direction remembered by the CQ). */
static struct dpv_mlx5_wq *
cq_wq_lookup(void *arg, uint32_t qpn, bool recv)
{
	struct cq_lookup *la = arg;
	struct dpv_context *ctx = la->ctx;
	struct dpv_cq *cq = la->cq;
	struct dpv_mlx5_wq *w;

	if (qpn & DPV_MLX5_LOOKUP_SRQ) {
		struct dpv_srq *srq =
			dpv_srq_lookup(ctx->dev, qpn & ~DPV_MLX5_LOOKUP_SRQ);

		if (srq == NULL)
			return NULL;
		/* one call per receive CQE: WQEs not yet completed vs limit */
		uint32_t done = atomic_fetch_add(&srq->completed, 1) + 1;
		uint32_t posted = __atomic_load_n(&srq->ring.srq_counter,
						  __ATOMIC_ACQUIRE);

		dpv_srq_check_limit(srq, posted - done);
		return &srq->ring.wq;
	}
	if (recv && qpn >= DPV_WQN_BASE) {
		w = dpv_wq_ring_lookup(ctx->dev, qpn);
		if (w != NULL)
			return w; /* a receive WQ of an RSS QP */
	}
	if (cq->last[recv].wq != NULL && cq->last[recv].qpn == qpn)
		return cq->last[recv].wq;
	if (ctx->wq_lookup == NULL)
		return NULL;
	w = ctx->wq_lookup(ctx->wq_lookup_arg, qpn, recv);
	if (w != NULL) {
		cq->last[recv].qpn = qpn;
		cq->last[recv].wq = w;
	}
	return w;
}

static int
poll_ring(struct dpv_cq *cq, int n, struct ibv_wc *wc)
{
	struct cq_lookup la = {to_dctx(cq->vcq.cq.context), cq};
	int rc;

	dpv_vlock_lock(&cq->poll_lock);
	rc = dpv_ring_cq_poll(&cq->ring, n, wc, cq_wq_lookup, &la);
	dpv_vlock_unlock(&cq->poll_lock);
	return rc;
}

int
dpv_poll_cq(struct ibv_cq *ibcq, int num_entries, struct ibv_wc *wc)
{
	struct dpv_cq *cq = to_dcq(ibcq);

	if (num_entries < 0)
		return -EINVAL;
	/* a completion already waits: hand it over first. The engine runs
	 * when the application next finds the CQ empty (or posts), so a
	 * completion is not held up by the next burst of frames, and an ACK
	 * the last poll held back leaves after the application's reply
	 * (ib_send_lat polls its send CQ, then its receive CQ, then posts).
	 * A poll for no entries only drives the engine. */
	if (num_entries == 0 || !dpv_ring_cq_ready(&cq->ring)) {
		progress(ibcq->context);
		/* still none: no poll lock taken for nothing (an application
		 * that spins on an empty CQ took it on every call). Without
		 * the lock (a single-threaded CQ) the poll runs, so that its
		 * check catches a second caller. */
		if (num_entries != 0 && cq->poll_lock.on &&
		    dpv_ring_cq_known_empty(&cq->ring))
			return 0;
	}
	return poll_ring(cq, num_entries, wc);
}

/*
 * Keep the engine side of a CQ still: the lock of the engine shard that
 * writes into it (the home shard while no QP uses it), and the CQ's own
 * lock too once QPs of several shards do (*shared; the engine lock of its
 * first shard is taken first, as a shard's poll takes them). The engine
 * locked, NULL without an engine.
 */
static struct dpv_engine *
cq_writer_lock(struct dpv_device *dev, struct dpv_cq *cq, bool *shared)
{
	uint16_t b = __atomic_load_n(&cq->ring.eng_shard, __ATOMIC_RELAXED);
	struct dpv_engine *e;

	*shared = false;
	if (dev->engine == NULL)
		return NULL;
	/* the shard is set before a QP of it writes, and stays */
	e = b != 0 && b <= dev->nshards ? dev->engines[b - 1] : dev->engine;
	dpv_engine_lock(e);
	/* set under this very lock */
	if (__atomic_load_n(&cq->ring.eng_shared, __ATOMIC_ACQUIRE)) {
		rte_spinlock_lock(&cq->ring.eng_lock);
		*shared = true;
	}
	return e;
}

static void
cq_writer_unlock(struct dpv_cq *cq, struct dpv_engine *e, bool shared)
{
	if (shared)
		rte_spinlock_unlock(&cq->ring.eng_lock);
	if (e != NULL)
		dpv_engine_unlock(e);
}

/* An arm may fire at once (CQEs not polled yet that it counts), or start
 * its moderation period (writer state held, e from cq_writer_lock()). */
static void
cq_check(struct dpv_cq *cq, struct dpv_engine *e)
{
	if (e != NULL)
		dpv_engine_cq_notify(e, &cq->ring);
	else
		dpv_cq_notify(cq);
}

/* The channel's fd is non-blocking: its owner waits for events with a
 * poll() or epoll_wait() of its own, which no verbs call announces (a
 * blocking ibv_get_cq_event() does). As ibv_get_cq_event() last saw it;
 * before its first call, fcntl() once. */
static bool
chan_nonblock(struct ibv_comp_channel *channel)
{
	struct dpv_comp_channel *ch;

	if (channel == NULL)
		return false;
	ch = to_dchan(channel);
	if (atomic_load_explicit(&ch->fd_mode, memory_order_relaxed) ==
	    CHAN_FD_UNKNOWN)
		chan_fd_look(ch);
	return atomic_load_explicit(&ch->fd_mode, memory_order_relaxed) ==
	       CHAN_FD_NONBLOCK;
}

int
dpv_req_notify_cq(struct ibv_cq *ibcq, int solicited_only)
{
	struct dpv_cq *cq = to_dcq(ibcq);
	struct dpv_device *dev = dctx_dev(ibcq->context);
	int rc = dpv_mlx5_cq_arm(&cq->ring, solicited_only);
	struct dpv_engine *e;
	bool shared;

	/* an arm over CQEs not polled yet that no event was raised for
	 * (written while disarmed) raises the event at once; the engine
	 * looks at arms only when it writes a CQE, and none may come (a
	 * ping-pong waiting for this very event) */
	if (rc == 0 && dev->engine != NULL) {
		e = cq_writer_lock(dev, cq, &shared);
		cq_check(cq, e);
		cq_writer_unlock(cq, e, shared);
		/* it may wait for the event in a poll() of its own next */
		if (chan_nonblock(ibcq->channel))
			dpv_progress_app_arms(dev);
	}
	return rc;
}

/*
 * Completion event moderation (IBV_CQ_ATTR_MODERATE), ConnectX's limits
 * (verbs_caps.h). The mask must be exactly IBV_CQ_ATTR_MODERATE: rdma-core
 * refuses bits from IBV_CQ_ATTR_RESERVED on, the kernel an empty mask,
 * both with EINVAL; the kernel's mlx5 a period above its cap, EINVAL too.
 * The arms made from now on take the values (dpv_mlx5_cq_moderate()).
 */
int
dpv_modify_cq(struct ibv_cq *ibcq, struct ibv_modify_cq_attr *attr)
{
	if (attr == NULL || attr->attr_mask != IBV_CQ_ATTR_MODERATE)
		return EINVAL;
	if (dctx_dev(ibcq->context)->engine == NULL)
		return EOPNOTSUPP;
	/* every cq_count is within the limit, its field's largest value */
	_Static_assert(DPV_CAP_CQ_MOD_MAX_COUNT == UINT16_MAX, "cq_count");
	if (attr->moderate.cq_period > DPV_CAP_CQ_MOD_MAX_PERIOD)
		return EINVAL;
	dpv_mlx5_cq_moderate(&to_dcq(ibcq)->ring, attr->moderate.cq_count,
			     attr->moderate.cq_period);
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Extended CQ: iteration over the same ring. The poll lock is held from a
 * successful start_poll to end_poll. */

static int
cqx_next(struct dpv_cq *cq)
{
	struct cq_lookup la = {to_dctx(cq->vcq.cq.context), cq};

	return dpv_ring_cq_ex_next(&cq->ring, cq_wq_lookup, &la,
				   &cq->vcq.cq_ex.wr_id, &cq->vcq.cq_ex.status);
}

static int
cqx_start_poll(struct ibv_cq_ex *cqx, struct ibv_poll_cq_attr *attr)
{
	struct dpv_cq *cq = to_dcq_ex(cqx);
	int rc;

	if (attr && attr->comp_mask)
		return EINVAL;
	progress(cqx->context);
	dpv_vlock_lock(&cq->poll_lock);
	rc = cqx_next(cq);
	if (rc != 0)
		dpv_vlock_unlock(&cq->poll_lock);
	return rc;
}

static int
cqx_next_poll(struct ibv_cq_ex *cqx)
{
	return cqx_next(to_dcq_ex(cqx));
}

static void
cqx_end_poll(struct ibv_cq_ex *cqx)
{
	struct dpv_cq *cq = to_dcq_ex(cqx);

	dpv_mlx5_cq_ex_end(&cq->ring);
	dpv_vlock_unlock(&cq->poll_lock);
}

#define RING(cqx) (&to_dcq_ex(cqx)->ring)

static enum ibv_wc_opcode
cqx_read_opcode(struct ibv_cq_ex *cqx)
{
	return dpv_mlx5_cq_read_opcode(RING(cqx));
}

static uint32_t
cqx_read_vendor_err(struct ibv_cq_ex *cqx)
{
	return dpv_mlx5_cq_read_vendor_err(RING(cqx));
}

static uint32_t
cqx_read_byte_len(struct ibv_cq_ex *cqx)
{
	return dpv_mlx5_cq_read_byte_len(RING(cqx));
}

static __be32
cqx_read_imm_data(struct ibv_cq_ex *cqx)
{
	return dpv_mlx5_cq_read_imm_data(RING(cqx));
}

static uint32_t
cqx_read_qp_num(struct ibv_cq_ex *cqx)
{
	return dpv_mlx5_cq_read_qp_num(RING(cqx));
}

static uint32_t
cqx_read_src_qp(struct ibv_cq_ex *cqx)
{
	return dpv_mlx5_cq_read_src_qp(RING(cqx));
}

static unsigned int
cqx_read_wc_flags(struct ibv_cq_ex *cqx)
{
	return dpv_mlx5_cq_read_wc_flags(RING(cqx));
}

static uint32_t
cqx_read_slid(struct ibv_cq_ex *cqx)
{
	return dpv_mlx5_cq_read_slid(RING(cqx));
}

static uint8_t
cqx_read_sl(struct ibv_cq_ex *cqx)
{
	return dpv_mlx5_cq_read_sl(RING(cqx));
}

static uint8_t
cqx_read_dlid_path_bits(struct ibv_cq_ex *cqx)
{
	return dpv_mlx5_cq_read_dlid_path_bits(RING(cqx));
}

/* the TCI of a raw frame received with CVLAN stripping (0 if none) */
static uint16_t
cqx_read_cvlan(struct ibv_cq_ex *cqx)
{
	return dpv_mlx5_cq_read_cvlan(RING(cqx));
}

/* Not requestable (create_cq_ex refuses the flags); present because the
 * inline readers call them without a check. */
static uint32_t
cqx_read_flow_tag(struct ibv_cq_ex *cqx)
{
	return 0;
}

/* the tag and TMH app_ctx of a tag matching completion (dpv_tm.h; 0 for
 * the others) */
static void
cqx_read_tm_info(struct ibv_cq_ex *cqx, struct ibv_wc_tm_info *ti)
{
	memset(ti, 0, sizeof(*ti));
	ti->tag = RING(cqx)->cur_tm_tag;
	ti->priv = RING(cqx)->cur_tm_ctx;
}

/* the time stamps of the engine's CQEs (verbs_clock.c) */
#define DPV_WC_EX_TS                                                           \
	((uint64_t)IBV_WC_EX_WITH_COMPLETION_TIMESTAMP |                       \
	 IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK)
#define DPV_WC_EX_SUPPORTED                                                    \
	((uint64_t)IBV_WC_STANDARD_FLAGS | IBV_WC_EX_WITH_CVLAN | DPV_WC_EX_TS)

static uint64_t
cqx_read_ts(struct ibv_cq_ex *cqx)
{
	return dpv_mlx5_cq_read_completion_ts(RING(cqx));
}

static uint64_t
cqx_read_wallclock(struct ibv_cq_ex *cqx)
{
	return dpv_clock_to_ns(dpv_mlx5_cq_read_completion_ts(RING(cqx)));
}

/* ---------------------------------------------------------------------- */
/* Create / destroy / resize                                               */

/*
 * The CQE size of a CQ: cqe_size if not 0 (mlx5dv_create_cq), else for a
 * device with the mlx5 personality and rings MLX5_CQE_SIZE from the
 * environment as rdma-core's provider reads it (64 if unset), else the
 * format's own. 0: the format's default; -1: a bad value.
 */
static int
cq_entry_size(const struct dpv_device *dev, unsigned int cqe_size)
{
	const char *env;

	if (cqe_size == 0 && dev->mlx5_personality &&
	    dev->ring_ops == &dpv_mlx5_ring_ops) {
		env = getenv("MLX5_CQE_SIZE");
		cqe_size = env != NULL ? (unsigned int)atoi(env) : 0;
		if (env != NULL && cqe_size == 0)
			return -1;
	}
	if (cqe_size != 0 && cqe_size != 64 && cqe_size != 128)
		return -1;
	return (int)cqe_size;
}

static struct dpv_cq *
cq_create(struct ibv_context *context, int cqe, void *cq_context,
	  struct ibv_comp_channel *channel, int comp_vector,
	  unsigned int cqe_size, bool pad, bool single_threaded)
{
	struct dpv_device *dev = dctx_dev(context);
	int esz = cq_entry_size(dev, cqe_size);
	struct dpv_cq *cq;
	int rc;

	if (cqe < 1 || (unsigned int)cqe > DPV_CAP_MAX_CQE || comp_vector < 0 ||
	    comp_vector >= context->num_comp_vectors ||
	    (channel && channel->context != context) || esz < 0 ||
	    (pad && esz != 128)) {
		errno = EINVAL;
		return NULL;
	}
	/* 128-byte CQEs are of the mlx5 format alone */
	if (esz > 0 && dev->ring_ops != &dpv_mlx5_ring_ops) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	cq = dpv_zalloc_lines(sizeof(*cq));
	if (cq == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	dpv_ring_alloc_begin(to_dctx(context));
	if (esz > 0)
		rc = dpv_mlx5_cq_init_sz(&cq->ring, (unsigned int)cqe,
					 dev->socket_id, (unsigned int)esz,
					 pad);
	else
		rc = dev->ring_ops->cq_init(&cq->ring, (unsigned int)cqe,
					    dev->socket_id);
	dpv_ring_alloc_end();

	if (rc != 0) {
		free(cq);
		errno = rc;
		return NULL;
	}
	cq->vcq.cq.cqe = (int)cq->ring.cqe;
	/* CQ numbers only name the CQ in its arm doorbell and in the
	 * mlx5dv view: unique per process, 24 bits, never 0 */
	static atomic_uint next_cqn;
	uint32_t cqn;

	do {
		cqn = (atomic_fetch_add(&next_cqn, 1) + 1) & 0xffffff;
	} while (cqn == 0);
	cq->ring.cqn = cqn;
	struct ibv_cq *c = &cq->vcq.cq;

	c->context = context;
	c->channel = channel;
	/* without a channel no event can be delivered: the engine skips
	 * the arm check (and its full barrier) after every CQE */
	cq->ring.eng_events = channel != NULL;
	c->cq_context = cq_context;
	pthread_mutex_init(&c->mutex, NULL);
	pthread_cond_init(&c->cond, NULL);
	dpv_vlock_init(&cq->poll_lock, single_threaded);
	atomic_init(&cq->refcnt, 0);
	if (channel)
		chan_hold(channel, 1);
	return cq;
}

struct ibv_cq *
ibv_create_cq(struct ibv_context *context, int cqe, void *cq_context,
	      struct ibv_comp_channel *channel, int comp_vector)
{
	struct dpv_cq *cq = cq_create(context, cqe, cq_context, channel,
				      comp_vector, 0, false, dpv_single_threaded());

	return cq ? &cq->vcq.cq : NULL;
}

static struct ibv_cq_ex *
cq_create_ex(struct ibv_context *context, struct ibv_cq_init_attr_ex *attr,
	     unsigned int cqe_size, bool pad)
{
	const uint32_t known_mask =
		IBV_CQ_INIT_ATTR_MASK_FLAGS | IBV_CQ_INIT_ATTR_MASK_PD;
	struct ibv_cq_ex *x;
	struct dpv_cq *cq;
	bool single;

	if (attr->comp_mask & ~known_mask) {
		errno = EINVAL;
		return NULL;
	}
	if ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) &&
	    (attr->flags & ~(uint32_t)(IBV_CREATE_CQ_ATTR_SINGLE_THREADED |
				       IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN))) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_PD) &&
	    (attr->parent_domain == NULL ||
	     to_dpd(attr->parent_domain)->protection == NULL)) {
		errno = EINVAL;
		return NULL;
	}
	/* no flow tag; time stamps and tag matching information are
	 * written by the mlx5 format's CQEs only */
	if ((attr->wc_flags &
	     ~(DPV_WC_EX_SUPPORTED | (uint64_t)IBV_WC_EX_WITH_TM_INFO)) ||
	    ((attr->wc_flags & IBV_WC_EX_WITH_TM_INFO) &&
	     !dpv_tm_supported(dctx_dev(context))) ||
	    ((attr->wc_flags & DPV_WC_EX_TS) &&
	     dctx_dev(context)->ring_ops != &dpv_mlx5_ring_ops)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	/* polled from one thread at a time (dpv_pd_single_threaded also
	 * answers for MLX5_SINGLE_THREADED) */
	single = ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) &&
		  (attr->flags & IBV_CREATE_CQ_ATTR_SINGLE_THREADED)) ||
		 dpv_pd_single_threaded((attr->comp_mask &
					 IBV_CQ_INIT_ATTR_MASK_PD)
						? attr->parent_domain
						: NULL);
	cq = cq_create(context, (int)attr->cqe, attr->cq_context, attr->channel,
		       (int)attr->comp_vector, cqe_size, pad, single);
	if (cq == NULL)
		return NULL;
	cq->is_ex = true;
	cq->wc_flags = attr->wc_flags;
	/* before any QP can complete into it */
	cq->ring.eng_ts = (attr->wc_flags & DPV_WC_EX_TS) != 0;
	if (attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_PD) {
		cq->pd = to_dpd(attr->parent_domain);
		dpv_ref_get(&cq->pd->refcnt);
	}
	x = &cq->vcq.cq_ex;
	x->start_poll = cqx_start_poll;
	x->next_poll = cqx_next_poll;
	x->end_poll = cqx_end_poll;
	x->read_opcode = cqx_read_opcode;
	x->read_vendor_err = cqx_read_vendor_err;
	x->read_byte_len = cqx_read_byte_len;
	x->read_imm_data = cqx_read_imm_data;
	x->read_qp_num = cqx_read_qp_num;
	x->read_src_qp = cqx_read_src_qp;
	x->read_wc_flags = cqx_read_wc_flags;
	x->read_slid = cqx_read_slid;
	x->read_sl = cqx_read_sl;
	x->read_dlid_path_bits = cqx_read_dlid_path_bits;
	x->read_completion_ts = cqx_read_ts;
	x->read_completion_wallclock_ns = cqx_read_wallclock;
	x->read_cvlan = cqx_read_cvlan;
	x->read_flow_tag = cqx_read_flow_tag;
	x->read_tm_info = cqx_read_tm_info;
	return x;
}

struct ibv_cq_ex *
dpv_create_cq_ex_op(struct ibv_context *context,
		    struct ibv_cq_init_attr_ex *attr)
{
	return cq_create_ex(context, attr, 0, false);
}

struct ibv_cq_ex *
dpv_mlx5dv_create_cq(struct ibv_context *context,
		     struct ibv_cq_init_attr_ex *attr, unsigned int cqe_size,
		     int pad, unsigned int comp)
{
	struct ibv_cq_ex *x;
	int rc;

	if (context == NULL || attr == NULL) {
		errno = EINVAL;
		return NULL;
	}
	/* compressed sessions are of the mlx5 format alone */
	if (comp != 0 && dctx_dev(context)->ring_ops != &dpv_mlx5_ring_ops) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	/* a session's mini CQEs carry no time stamp */
	if (comp != 0 && (attr->wc_flags & DPV_WC_EX_TS)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	x = cq_create_ex(context, attr, cqe_size, pad != 0);
	if (x == NULL || comp == 0)
		return x;
	/* nothing can be pushed yet: no QP knows the CQ */
	rc = dpv_mlx5_cq_compress(&to_dcq(ibv_cq_ex_to_cq(x))->ring, comp);
	if (rc != 0) {
		ibv_destroy_cq(ibv_cq_ex_to_cq(x));
		errno = rc;
		return NULL;
	}
	return x;
}

/*
 * A new ring is swapped in with the CQ's pollers (poll lock) and the
 * device's engine (engine lock, it pushes CQEs) kept out. Lock order:
 * poll lock first, so a thread inside an ibv_cq_ex poll session that
 * takes the engine lock cannot deadlock with us.
 */
int
ibv_resize_cq(struct ibv_cq *ibcq, int cqe)
{
	if (cqe < 1 || (unsigned int)cqe > DPV_CAP_MAX_CQE)
		return EINVAL;
	struct dpv_cq *cq = to_dcq(ibcq);
	struct dpv_device *dev = dctx_dev(ibcq->context);
	struct dpv_mlx5_cq_resize r;
	struct dpv_engine *e;
	bool shared;
	int rc;

	if (!(cq->ring.ops->caps & DPV_RING_CAP_CQ_RESIZE))
		return EOPNOTSUPP;
	dpv_ring_alloc_begin(to_dctx(ibcq->context));
	rc = cq->ring.ops->cq_resize_prepare(&cq->ring, (unsigned int)cqe, &r);
	dpv_ring_alloc_end();
	if (rc != 0)
		return rc;
	dpv_vlock_lock(&cq->poll_lock);
	e = cq_writer_lock(dev, cq, &shared);
	/* one iteration: completions of work already posted count as
	 * pending, as they would on the hardware (not with the CQ's own
	 * lock held: the poll takes it to write into a shared CQ) */
	if (e != NULL && !shared)
		dpv_engine_poll(e, 0);
	/* let a pending arm see the CQEs before they move */
	cq_check(cq, e);
	rc = cq->ring.ops->cq_resize_commit(&cq->ring, &r);
	if (rc == 0)
		ibcq->cqe = (int)cq->ring.cqe;
	cq_writer_unlock(cq, e, shared);
	dpv_vlock_unlock(&cq->poll_lock);
	dpv_mlx5_cq_resize_release(&r);
	return rc;
}

int
ibv_destroy_cq(struct ibv_cq *ibcq)
{
	struct dpv_cq *cq = to_dcq(ibcq);

	if (dpv_ref_busy(&cq->refcnt))
		return EBUSY;
	if (ibcq->channel) {
		struct dpv_comp_channel *ch = to_dchan(ibcq->channel);

		pthread_mutex_lock(&ch->lock);
		if (cq->queued)
			TAILQ_REMOVE(&ch->ready, cq, chan_next);
		pthread_mutex_unlock(&ch->lock);
		chan_hold(ibcq->channel, -1);
	}
	if (cq->pd)
		dpv_ref_put(&cq->pd->refcnt);
	dpv_engine_cq_forget(&cq->ring);
	dpv_mlx5_cq_fini(&cq->ring);
	dpv_vlock_fini(&cq->poll_lock);
	pthread_cond_destroy(&ibcq->cond);
	pthread_mutex_destroy(&ibcq->mutex);
	free(cq);
	return 0;
}
