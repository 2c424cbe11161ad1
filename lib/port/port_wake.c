/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Waking a memif peer's sleeping progress thread.
 *
 * DPDK 22.11's memif driver has no receive interrupts: a progress thread
 * that found no work for a while sleeps, up to 1 ms at a time (10 ms
 * after a second of quiet), and a frame that arrives meanwhile waits for
 * the sleep to end. Two dpverbs processes on one memif connection share a
 * page (POSIX shared memory named after the connection's socket and id)
 * with a futex word per side: a side about to sleep sets its word, and a
 * transmit on the connection that finds the peer's word set clears it and
 * wakes the peer (FUTEX_WAKE), a system call only then. A peer that is
 * not dpverbs (or a side without the page) is never woken this way; the
 * sleeps keep their timeouts, so nothing is lost but the early wake-up.
 *
 * The sleeper's flag store and its last look at the receive ring, against
 * a sender's ring store and its look at the flag: the sender reads the
 * flag right after its burst with no fence of its own (one load per
 * burst); the sleeper, between setting the flag and looking at the ring,
 * runs membarrier(MEMBARRIER_CMD_GLOBAL_EXPEDITED), which orders every
 * registered process's threads: either the sender's frame is seen by the
 * sleeper's last look, or the sender's load sees the flag. A side uses
 * the page to sleep only if the peer registered for that barrier.
 *
 * The page lives while either side does: each side writes its pid into
 * its slot when it attaches and clears it when it releases the port, and
 * the side that finds the other's slot empty then unlinks the name. A
 * peer killed with SIGKILL leaves its pid; the next attach anywhere on the
 * machine unlinks pages whose two pids are both gone.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/futex.h>
#include <linux/membarrier.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <rte_common.h>

#include "port_int.h"

#define WAKE_MAGIC  0x6470762d77616b65ULL /* "dpv-wake" */
#define WAKE_PREFIX "dpv-wake-"

struct wake_side {
	uint32_t sleeping; /* futex word: 1 while this side sleeps */
	int32_t pid;	   /* 0: no process attached */
	uint32_t barrier;  /* registered for GLOBAL_EXPEDITED membarrier */
	uint8_t pad[RTE_CACHE_LINE_SIZE - 12];
};

struct wake_page {
	uint64_t magic;
	uint8_t pad[RTE_CACHE_LINE_SIZE - 8];
	struct wake_side side[2]; /* 0: memif server, 1: client */
};

static int barrier_reg = -1; /* -1 not tried, 0 failed, 1 registered */

static int
futex(uint32_t *w, int op, uint32_t v, const struct timespec *ts)
{
	return (int)syscall(SYS_futex, w, op, v, ts, NULL, 0);
}

static bool
pid_alive(int32_t pid)
{
	return pid > 0 && (kill(pid, 0) == 0 || errno == EPERM);
}

/* A devargs value ("socket=", "id="), or def. */
static void
devarg(const char *args, const char *key, char *out, size_t len,
       const char *def)
{
	const char *p = args;
	size_t kl = strlen(key), n;

	while (p != NULL && *p != '\0') {
		if (strncmp(p, key, kl) == 0) {
			n = strcspn(p + kl, ",");
			if (n >= len)
				n = len - 1;
			memcpy(out, p + kl, n);
			out[n] = '\0';
			return;
		}
		p = strchr(p, ',');
		if (p != NULL)
			p++;
	}
	snprintf(out, len, "%s", def);
}

/* The page's shm name for a memif connection: FNV-1a of its socket and
 * id. */
static void
page_name(const char *args, char *name, size_t len)
{
	char sock[256], id[16], key[300];
	uint64_t h = 0xcbf29ce484222325ULL;

	devarg(args, "socket=", sock, sizeof(sock), "/run/memif.sock");
	devarg(args, "id=", id, sizeof(id), "0");
	snprintf(key, sizeof(key), "%s|%s", sock, id);
	for (const char *c = key; *c != '\0'; c++)
		h = (h ^ (uint8_t)*c) * 0x100000001b3ULL;
	snprintf(name, len, "/" WAKE_PREFIX "%016" PRIx64, h);
}

static struct wake_page *
page_map(const char *name, bool create)
{
	int fd = shm_open(name, O_RDWR | O_CLOEXEC | (create ? O_CREAT : 0),
			  0600);
	struct wake_page *pg;
	struct stat st;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) != 0 ||
	    (st.st_size < (off_t)sizeof(*pg) &&
	     (!create || ftruncate(fd, sizeof(*pg)) != 0))) {
		close(fd);
		return NULL;
	}
	pg = mmap(NULL, sizeof(*pg), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	return pg == MAP_FAILED ? NULL : pg;
}

/* Unlink the pages whose processes are all gone (a SIGKILL's leftovers).
 * A page being made right now has no pid yet for a few microseconds:
 * one younger than a second is left alone. */
static void
clean_stale(void)
{
	DIR *d = opendir("/dev/shm");
	struct dirent *de;
	char name[NAME_MAX + 2];

	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		struct wake_page *pg;
		struct stat st;
		bool gone;

		if (strncmp(de->d_name, WAKE_PREFIX, strlen(WAKE_PREFIX)) != 0)
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, 0) != 0 ||
		    time(NULL) - st.st_mtime < 2)
			continue;
		snprintf(name, sizeof(name), "/%s", de->d_name);
		pg = page_map(name, false);
		if (pg == NULL)
			continue;
		gone = !pid_alive(__atomic_load_n(&pg->side[0].pid,
						  __ATOMIC_RELAXED)) &&
		       !pid_alive(__atomic_load_n(&pg->side[1].pid,
						  __ATOMIC_RELAXED));
		munmap(pg, sizeof(*pg));
		if (gone)
			shm_unlink(name);
	}
	closedir(d);
}

int
port_wake_attach(struct port_wake *w, const char *devargs, bool client)
{
	struct wake_page *pg;

	const char *off = getenv("DPV_MEMIF_WAKE");

	memset(w, 0, sizeof(*w));
	if (off != NULL && strcmp(off, "0") == 0)
		return -ENOTSUP; /* turned off: sleeps keep their timeouts */
	if (barrier_reg < 0)
		barrier_reg = syscall(SYS_membarrier,
				      MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED,
				      0, 0) == 0;
	clean_stale();
	page_name(devargs != NULL ? devargs : "", w->name, sizeof(w->name));
	pg = page_map(w->name, true);
	if (pg == NULL)
		return -errno;
	__atomic_store_n(&pg->magic, WAKE_MAGIC, __ATOMIC_RELAXED);
	w->self = client ? 1 : 0;
	__atomic_store_n(&pg->side[w->self].sleeping, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&pg->side[w->self].barrier, (uint32_t)barrier_reg,
			 __ATOMIC_RELAXED);
	__atomic_store_n(&pg->side[w->self].pid, (int32_t)getpid(),
			 __ATOMIC_SEQ_CST);
	w->pg = pg;
	w->peer = &pg->side[!w->self].sleeping;
	return 0;
}

void
port_wake_detach(struct port_wake *w)
{
	struct wake_page *pg = w->pg;

	if (pg == NULL)
		return;
	__atomic_store_n(&pg->side[w->self].pid, 0, __ATOMIC_SEQ_CST);
	/* the other side gone too (or never there): nobody needs the name */
	if (!pid_alive(
		    __atomic_load_n(&pg->side[!w->self].pid, __ATOMIC_SEQ_CST)))
		shm_unlink(w->name);
	munmap(pg, sizeof(*pg));
	w->pg = NULL;
	w->peer = NULL;
}

void
port_wake_peer_slow(struct port_wake *w)
{
	if (__atomic_exchange_n(w->peer, 0, __ATOMIC_ACQ_REL) != 0) {
		futex(w->peer, FUTEX_WAKE, 1, NULL);
		__atomic_fetch_add(&w->wakes_sent, 1, __ATOMIC_RELAXED);
	}
}

bool
port_wake_sleep_begin(struct port_wake *w)
{
	struct wake_side *me = &w->pg->side[w->self];
	struct wake_side *peer = &w->pg->side[!w->self];

	if (barrier_reg != 1)
		return false;
	/* a peer that cannot be ordered by the barrier, or none */
	if (!__atomic_load_n(&peer->barrier, __ATOMIC_RELAXED) ||
	    !pid_alive(__atomic_load_n(&peer->pid, __ATOMIC_RELAXED)))
		return false;
	__atomic_store_n(&me->sleeping, 1, __ATOMIC_SEQ_CST);
	if (syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL_EXPEDITED, 0, 0) !=
	    0) {
		__atomic_store_n(&me->sleeping, 0, __ATOMIC_RELAXED);
		return false;
	}
	return true;
}

void
port_wake_sleep(struct port_wake *w, unsigned int us)
{
	uint32_t *me = &w->pg->side[w->self].sleeping;
	struct timespec ts = {.tv_sec = us / 1000000,
			      .tv_nsec = (long)(us % 1000000) * 1000};

	futex(me, FUTEX_WAIT, 1, &ts);
	if (__atomic_load_n(me, __ATOMIC_RELAXED) == 0)
		__atomic_fetch_add(&w->wakes_taken, 1, __ATOMIC_RELAXED);
	w->sleeps++;
}

void
port_wake_sleep_end(struct port_wake *w)
{
	__atomic_store_n(&w->pg->side[w->self].sleeping, 0, __ATOMIC_RELAXED);
}

void
port_wake_self(struct port_wake *w)
{
	uint32_t *me = &w->pg->side[w->self].sleeping;

	if (__atomic_exchange_n(me, 0, __ATOMIC_ACQ_REL) != 0)
		futex(me, FUTEX_WAKE, 1, NULL);
}
