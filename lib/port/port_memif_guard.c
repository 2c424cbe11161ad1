/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A memif peer that dies must not take the survivor with it.
 *
 * DPDK 22.11's memif driver tears a connection down from the EAL interrupt
 * thread when the peer goes away (memif_disconnect()): it marks the link
 * down, then munmap()s the shared regions, whether or not another thread
 * is in the middle of a burst on their rings; that thread then faults.
 *
 * dpverbs brackets every burst on a memif port with a per-device counter
 * (port_burst_begin/end, port.c) and starts the burst only when the link
 * is up, after raising the counter. The munmap() below, which the dynamic
 * linker binds the memif driver's calls to (libibverbs.so.1 comes before
 * libc in a verbs program's search order, and the version script gives
 * it libc's version), waits until no such burst runs before unmapping
 * anything. A burst that raised the counter before the link went down
 * finishes on mapped rings; one that raised it later sees the link down
 * and touches nothing. Other munmap() callers pay a look at 8 counters.
 */
#include <errno.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <rte_pause.h>

#include "dpv_port_conf.h"
#include "port_int.h"

struct port_burst_count port_bursts[DPV_PORT_MAX];

/* Longest wait for a burst to end (it takes microseconds). */
#define GUARD_MAX_NS 1000000000ull

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int
munmap(void *addr, size_t len)
{
	for (unsigned i = 0; i < DPV_PORT_MAX; i++) {
		uint64_t end = 0;

		for (unsigned spins = 0;
		     __atomic_load_n(&port_bursts[i].n, __ATOMIC_SEQ_CST) != 0;
		     spins++) {
			if (spins < 1024) {
				rte_pause();
				continue;
			}
			if (end == 0)
				end = now_ns() + GUARD_MAX_NS;
			else if (now_ns() > end)
				break; /* a stuck burst: do not hang too */
			sched_yield();
		}
	}
	return (int)syscall(SYS_munmap, addr, len);
}
