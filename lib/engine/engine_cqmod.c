/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Completion event moderation (ibv_modify_cq): the ends of the periods of
 * armed CQs. A CQ's format counts the CQEs of an arm and starts its period
 * (dpv_ring_cq_should_notify(): eng_mod_run, eng_mod_due); this file makes
 * sure the CQ is looked at again when the period ends, whether or not a
 * CQE comes.
 *
 * Each engine keeps the CQs it watches on a list and the earliest of
 * their deadlines in cqmod_next, which every poll compares with its clock.
 * A CQ is watched by one engine at a time (eng_mod_watch, changed under
 * the CQ's writer state: the engine lock of the shard that writes it, or
 * its own lock once shards share it). Another shard that starts a period
 * of a shared CQ its watcher has on its list lowers the watcher's
 * cqmod_next (an atomic minimum) instead: a pass first resets cqmod_next,
 * then reads each CQ's deadline under the CQ's lock, so it either sees
 * that deadline or keeps the lowered value.
 */
#include <rte_cycles.h>

#include "engine_int.h"
#include "mlx5_ring.h"

/* cqmod_next = min(cqmod_next, t); any thread */
static void
next_lower(struct dpv_engine *e, uint64_t t)
{
	uint64_t cur = __atomic_load_n(&e->cqmod_next, __ATOMIC_RELAXED);

	while (t < cur &&
	       !__atomic_compare_exchange_n(&e->cqmod_next, &cur, t, true,
					    __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		;
}

void
dpv_engine_cqmod_watch(struct dpv_engine *e, struct dpv_mlx5_cq *cq)
{
	struct dpv_engine *w = cq->eng_mod_watch;

	if (w == NULL) {
		TAILQ_INSERT_TAIL(&e->cqmod, cq, eng_mod_link);
		__atomic_store_n(&cq->eng_mod_watch, e, __ATOMIC_RELAXED);
		w = e;
	}
	next_lower(w, cq->eng_mod_due);
}

static void
unwatch(struct dpv_engine *e, struct dpv_mlx5_cq *cq)
{
	TAILQ_REMOVE(&e->cqmod, cq, eng_mod_link);
	__atomic_store_n(&cq->eng_mod_watch, NULL, __ATOMIC_RELAXED);
}

void
dpv_engine_cqmod_pass(struct dpv_engine *e)
{
	struct dpv_mlx5_cq *cq, *nx;
	uint64_t next = UINT64_MAX;

	__atomic_store_n(&e->cqmod_next, UINT64_MAX, __ATOMIC_SEQ_CST);
	for (cq = TAILQ_FIRST(&e->cqmod); cq != NULL; cq = nx) {
		bool shared = dpv_ring_cq_lock(cq);

		nx = TAILQ_NEXT(cq, eng_mod_link);
		/* a period ended: the check raises the event */
		if (cq->eng_mod_run && e->now >= cq->eng_mod_due &&
		    dpv_ring_cq_should_notify(cq))
			e->conf.cq_event(e->conf.cq_event_arg, cq);
		/* fired (here, by its count or on another shard), or
		 * armed anew */
		if (!cq->eng_mod_run)
			unwatch(e, cq);
		else if (cq->eng_mod_due < next)
			next = cq->eng_mod_due;
		dpv_ring_cq_unlock(cq, shared);
	}
	next_lower(e, next);
}

void
dpv_engine_cqmod_fini(struct dpv_engine *e)
{
	struct dpv_mlx5_cq *cq;

	while ((cq = TAILQ_FIRST(&e->cqmod)) != NULL)
		unwatch(e, cq);
}

void
dpv_engine_cq_forget(struct dpv_mlx5_cq *cq)
{
	struct dpv_engine *w =
		__atomic_load_n(&cq->eng_mod_watch, __ATOMIC_RELAXED);

	/* only its watcher's pass takes it off the list meanwhile */
	if (w == NULL)
		return;
	dpv_engine_lock(w);
	if (cq->eng_mod_watch == w)
		unwatch(w, cq);
	dpv_engine_unlock(w);
}

unsigned int
dpv_engine_cq_deadline_us(const struct dpv_engine *e, unsigned int max_us)
{
	uint64_t d = __atomic_load_n(&e->cqmod_next, __ATOMIC_RELAXED);
	uint64_t now, us;

	if (d == UINT64_MAX)
		return max_us;
	now = rte_get_timer_cycles();
	if (d <= now)
		return 0;
	if (d - now >= e->hz)
		return max_us; /* periods are shorter than a second */
	us = ((d - now) * 1000000 + e->hz - 1) / e->hz;
	return us < max_us ? (unsigned int)us : max_us;
}
