/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A memif peer that dies must not take the survivor with it.
 *
 * DPDK 22.11's memif driver tears a connection down from the EAL interrupt
 * thread when the peer goes away (memif_disconnect()): it marks the link
 * down, then munmap()s the shared regions, whether or not another thread
 * is in the middle of a burst on their rings; that thread then faults.
 *
 * dpverbs brackets every burst on a memif port with a flag of the
 * bursting thread (port_burst_begin/end, port_int.h) and starts the burst
 * only when the link is up, after raising the flag. The munmap() below
 * (the memif driver's calls come here: the version script gives it
 * libc's version, and guard_bind() at the end of this file points the
 * driver's import at it whatever the program's load order) first makes
 * every thread's flag visible (membarrier), then waits until no flag is
 * raised before unmapping anything. A burst that raised its flag before the
 * link went down finishes on mapped rings; one that raised it later sees
 * the link down and touches nothing. Other munmap() callers pay one
 * membarrier and a look at the slots in use.
 *
 * A burst does not read the link each time (rte_eth_link_get_nowait was
 * ~70 of the ~525 instructions of an empty poll): each munmap() bumps
 * port_unmap_epoch before its barrier, and a port remembers the epoch at
 * which its link was last seen up. A burst that raised its flag and then
 * reads that same epoch knows no munmap() has passed its barrier since
 * the link was seen up (one that had would have made the new epoch
 * visible to it), so the rings it will touch are mapped, or a munmap()
 * still to come waits for its flag. A burst that reads a new epoch looks
 * at the link again. The driver's own connected flag still keeps a burst
 * off a link that went down without an unmap yet. Where the driver's
 * calls cannot be pointed here (a driver built into another object:
 * port_unmap_guarded() false), no epoch moves and every burst looks at
 * the link, as before.
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <link.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_pause.h>

#include "dpv_port_conf.h"
#include "port_int.h"

/* Threads with a slot of their own; later ones share the counter. */
#define BURST_SLOTS 256

static struct port_burst_slot slots[BURST_SLOTS];
static uint32_t slots_used;
/* -1: not known yet, 0: no membarrier, 1: registered */
static int barrier_ok = -1;
__thread struct port_burst_slot *port_burst_self
	__attribute__((tls_model("initial-exec")));
struct port_burst_slot port_burst_shared;
uint32_t port_unmap_epoch = 1; /* never 0: a port's "not seen up" */

/* Longest wait for a burst to end (it takes microseconds). */
#define GUARD_MAX_NS 1000000000ull

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static bool
barrier_ready(void)
{
	int ok = __atomic_load_n(&barrier_ok, __ATOMIC_ACQUIRE);

	if (ok < 0) {
		/* registering twice is harmless: threads may race here */
		ok = syscall(SYS_membarrier,
			     MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0,
			     0) == 0;
		__atomic_store_n(&barrier_ok, ok, __ATOMIC_RELEASE);
	}
	return ok == 1;
}

struct port_burst_slot *
port_burst_slot_get(void)
{
	struct port_burst_slot *s = &port_burst_shared;

	if (barrier_ready()) {
		uint32_t i = __atomic_fetch_add(&slots_used, 1,
						__ATOMIC_ACQ_REL);

		if (i < BURST_SLOTS)
			s = &slots[i];
	}
	port_burst_self = s;
	return s;
}

/* Wait (bounded) until the flag or counter at *v is 0. */
static void
wait_zero(const uint32_t *v)
{
	uint64_t end = 0;

	for (unsigned spins = 0; __atomic_load_n(v, __ATOMIC_ACQUIRE) != 0;
	     spins++) {
		if (spins < 1024) {
			rte_pause();
			continue;
		}
		if (end == 0)
			end = now_ns() + GUARD_MAX_NS;
		else if (now_ns() > end)
			return; /* a stuck burst: do not hang too */
		sched_yield();
	}
}

int
munmap(void *addr, size_t len)
{
	uint32_t n = RTE_MIN(__atomic_load_n(&slots_used, __ATOMIC_ACQUIRE),
			     (uint32_t)BURST_SLOTS);

	/* a burst that starts from here on looks at the link again (its
	 * epoch no longer matches); the caller's link-down store and this
	 * one come before every bursting thread's flag is read */
	if (__atomic_add_fetch(&port_unmap_epoch, 1, __ATOMIC_RELAXED) == 0)
		__atomic_store_n(&port_unmap_epoch, 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (n != 0 &&
	    syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) != 0)
		__atomic_thread_fence(__ATOMIC_SEQ_CST); /* cannot happen */
	for (uint32_t i = 0; i < n; i++)
		wait_zero(&slots[i].active);
	wait_zero(&port_burst_shared.active);
	return (int)syscall(SYS_munmap, addr, len);
}

/* this file's munmap(), not whatever the dynamic linker binds the name
 * to from here */
extern __typeof__(munmap) port_guard_munmap
	__attribute__((alias("munmap"), visibility("hidden"), copy(munmap)));

/* Is fd a memfd that memif shares ("/memfd:memif_region_N")? */
static bool
is_memif_region(int fd)
{
	char path[64], target[128];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, target, sizeof(target) - 1);
	if (n <= 0)
		return false;
	target[n] = '\0';
	return strncmp(target, "/memfd:memif_region_", 20) == 0;
}

/*
 * mmap64() (the name DPDK's memif driver imports) in front of libc's, for
 * the same reason as munmap() above: the memif driver maps a connection's
 * shared regions (rings and packet buffers) with it, and those pages are
 * mapped here at once (MAP_POPULATE) rather than by a page fault at the
 * first use of each buffer on the data path (~20 us each on a VM: the
 * first ~1,000 round trips of a latency test took 20-40 us instead of
 * 2 us). Private and anonymous mappings pay a flag test; shared mappings
 * of a file pay a readlink() of its /proc/self/fd entry.
 */
void *
mmap64(void *addr, size_t len, int prot, int flags, int fd, off64_t off)
{
	bool populate = (flags & MAP_SHARED) && fd >= 0 &&
			(prot & PROT_READ) && is_memif_region(fd);
	long pg = sysconf(_SC_PAGESIZE);
	void *ret;

	if (populate)
		flags |= MAP_POPULATE;
	if (off & (off64_t)(pg - 1)) {
		errno = EINVAL;
		return MAP_FAILED;
	}
	ret = (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
	if (populate && ret != MAP_FAILED) {
		/* and write each page from user space: on a VM with shadow
		 * page tables the first user access to a page is a trap of
		 * its own (~5 us each here) however the kernel populated it,
		 * and so is the first write after a read. An atomic OR of 0
		 * writes without undoing a store the peer makes meanwhile.
		 * With reads only, the first pass over the rings still took
		 * ~10 us a round trip one way: 511 of the first 512
		 * ib_send_lat round trips, which alone made its p99 10 us in
		 * 100,000 (1.8 us with the writes). */
		for (size_t o = 0; o < len; o += (size_t)pg) {
			if (prot & PROT_WRITE)
				__atomic_fetch_or((uint8_t *)ret + o, 0,
						  __ATOMIC_RELAXED);
			else
				(void)((volatile const uint8_t *)ret)[o];
		}
	}
	return ret;
}

extern __typeof__(mmap64) port_guard_mmap64
	__attribute__((alias("mmap64"), visibility("hidden"), copy(mmap64)));

/*
 * The memif driver's imports of munmap() and mmap64() pointed at this
 * file's functions, whatever the dynamic linker bound them to.
 *
 * The dynamic linker binds a name to its first definition in the global
 * scope, in breadth-first load order: the program, its own libraries,
 * then theirs. libibverbs.so.1 comes before libc there only when the
 * program names it before libc. A program linked with librdmacm alone
 * (rsockets; libibverbs then comes after libc), or one that dlopen()s
 * libibverbs with RTLD_LOCAL (Python, for pyverbs), would leave the
 * driver on libc's munmap(), and a burst could fault on rings a peer's
 * departure unmapped. So the driver's own import slots (its GOT; the
 * memif driver of Debian's DPDK is a shared object, bound at load time,
 * its slots read-only after relocation) are rewritten here, once, before
 * the first memif port starts: the addresses of the two functions, for
 * the slots of relocations that name them.
 */
#if __ELF_NATIVE_CLASS == 64
#define GUARD_R_SYM ELF64_R_SYM
#else
#define GUARD_R_SYM ELF32_R_SYM
#endif

/* The functions whose import slots are rewritten. */
static const struct {
	const char *name;
	void *fn;
} guard_fns[] = {
	{"munmap", (void *)port_guard_munmap},
	{"mmap64", (void *)port_guard_mmap64},
};

/* Is v (a dynamic entry's pointer) relocated yet? glibc adjusts them in
 * place on most machines; a shared object's unrelocated ones are offsets
 * below its base. */
static uintptr_t
dyn_addr(const struct dl_phdr_info *info, ElfW(Addr) v)
{
	return v < info->dlpi_addr ? info->dlpi_addr + v : v;
}

/* One memif driver object being bound. */
struct guard_obj {
	const struct dl_phdr_info *info;
	const ElfW(Sym) * sym;
	const char *str;
	/* its read-only-after-relocation pages */
	uintptr_t ro_lo, ro_hi;
};

/* Store fn into the slot at a, making its page writable for the store if
 * it lies in the object's read-only-after-relocation range. */
static bool
slot_store(const struct guard_obj *o, uintptr_t a, void *fn)
{
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
	void *page = (void *)(a & ~(pg - 1));
	bool ro = a >= o->ro_lo && a < o->ro_hi;

	if (ro && mprotect(page, pg, PROT_READ | PROT_WRITE) != 0)
		return false;
	__atomic_store_n((void **)a, fn, __ATOMIC_RELEASE);
	if (ro)
		mprotect(page, pg, PROT_READ);
	return true;
}

struct bind_walk {
	int objects; /* memif driver objects seen */
	bool ok;     /* every munmap() slot of theirs points here */
};

/* Rewrite the slots of one relocation table (entries of ent bytes) that
 * name a guarded function. */
static void
bind_table(const struct guard_obj *o, ElfW(Addr) tab, size_t size, size_t ent,
	   struct bind_walk *w)
{
	uintptr_t t = dyn_addr(o->info, tab);

	for (size_t off = 0; tab != 0 && ent != 0 && off + ent <= size;
	     off += ent) {
		/* Rel and Rela begin alike: r_offset, r_info */
		const ElfW(Rel) *r = (const ElfW(Rel) *)(t + off);
		const ElfW(Sym) *s = &o->sym[GUARD_R_SYM(r->r_info)];
		uintptr_t a = o->info->dlpi_addr + r->r_offset;

		if (GUARD_R_SYM(r->r_info) == 0 || s->st_shndx != SHN_UNDEF)
			continue;
		for (size_t i = 0; i < RTE_DIM(guard_fns); i++) {
			void *fn = guard_fns[i].fn;

			if (strcmp(o->str + s->st_name, guard_fns[i].name) !=
				    0 ||
			    *(void **)a == fn || slot_store(o, a, fn))
				continue;
			/* mmap64's slot left as it was costs speed only */
			if (fn == (void *)port_guard_munmap)
				w->ok = false;
		}
	}
}

static int
bind_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct bind_walk *w = arg;
	struct guard_obj o = {.info = info};
	const ElfW(Dyn) *dyn = NULL;
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
	ElfW(Addr) v[DT_NUM] = {0}; /* the dynamic entries, by tag */

	(void)size;
	if (info->dlpi_name == NULL ||
	    strstr(info->dlpi_name, "librte_net_memif") == NULL)
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t at = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_DYNAMIC) {
			dyn = (const ElfW(Dyn) *)at;
		} else if (ph->p_type == PT_GNU_RELRO) {
			o.ro_lo = at & ~(pg - 1);
			o.ro_hi = (at + ph->p_memsz) & ~(pg - 1);
		}
	}
	if (dyn == NULL)
		return 0;
	w->objects++;
	for (; dyn->d_tag != DT_NULL; dyn++)
		if (dyn->d_tag > 0 && dyn->d_tag < DT_NUM)
			v[dyn->d_tag] = dyn->d_un.d_ptr;
	if (v[DT_SYMTAB] == 0 || v[DT_STRTAB] == 0) {
		w->ok = false;
		return 0;
	}
	o.sym = (const ElfW(Sym) *)dyn_addr(info, v[DT_SYMTAB]);
	o.str = (const char *)dyn_addr(info, v[DT_STRTAB]);
	bind_table(&o, v[DT_JMPREL], v[DT_PLTRELSZ],
		   v[DT_PLTREL] == DT_RELA ? sizeof(ElfW(Rela))
					   : sizeof(ElfW(Rel)),
		   w);
	/* GLOB_DAT and the like: an address taken */
	bind_table(&o, v[DT_RELA], v[DT_RELASZ], v[DT_RELAENT], w);
	bind_table(&o, v[DT_REL], v[DT_RELSZ], v[DT_RELENT], w);
	return 0;
}

static bool guarded;
static pthread_once_t guard_once = PTHREAD_ONCE_INIT;

static void
guard_bind(void)
{
	struct bind_walk w = {.ok = true};

	dl_iterate_phdr(bind_object, &w);
	if (w.objects > 0)
		guarded = w.ok;
	else /* a driver inside another object: as the linker bound it */
		guarded = dlsym(RTLD_DEFAULT, "munmap") ==
			  (void *)port_guard_munmap;
}

bool
port_unmap_guarded(void)
{
	pthread_once(&guard_once, guard_bind);
	return guarded;
}
