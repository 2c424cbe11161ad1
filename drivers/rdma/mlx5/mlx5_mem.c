/* SPDX-License-Identifier: BSD-3-Clause */
/* Memory for rings and per-QP state: the process's, not the DPDK heap. */

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rte_common.h>

#include "mlx5_ring.h"

/* Blocks this large (their header in) are mapped on their own and
 * unmapped when freed; like a NIC's rings, a forked child gets no copy of
 * them. Smaller ones come from chunks (below). */
#define MEM_MAP_MIN (64u << 10)
/* Blocks of a size class this large are not copied into a forked child
 * either (they were mapped on their own before the chunks). */
#define MEM_DONTFORK_MIN (16u << 10)

/* Bytes of the blocks now allocated (headers and size classes in). */
static uint64_t mem_in_use;

/* Kept in the cache line before each block. */
struct mem_hdr {
	size_t map_len; /* 0: from a chunk or the application's allocator */
	size_t len;	/* bytes taken */
	/* the application's allocator's (NULL: ours) */
	void (*ext_free)(void *ptr, void *data);
	void *ext_data;
	void *next; /* a free block: the next one of its class */
	uint16_t cls; /* chunk blocks: size class + 1 */
	uint8_t arena; /* chunk blocks: the arena they came from */
};

/*
 * Chunks: blocks below MEM_MAP_MIN are carved from chunks, by size
 * class (multiples of 64 bytes); a freed block waits on its class's list
 * for the next block of that class, and chunks stay mapped. From the
 * second chunk of a kind on, the kernel is asked to back them with huge
 * pages (MADV_HUGEPAGE): with thousands of QPs, every message touches a
 * few lines of each of many small blocks (the engine's QP state, its WQE
 * slots, the rings), and on 4 KiB pages each is a TLB miss (engine_perf,
 * RC SEND 64 B over 4,096 QPs: 1.5 -> 2.0 M msg/s); a process with a few
 * QPs stays within its first chunk (2 MiB), on small pages; later ones
 * are 32 MiB.
 * Blocks are packed (not page aligned) and each chunk starts at its own
 * offset (colour), so that the same field of many QPs does not fall into
 * the same few cache sets: with huge pages, the caches' set index is the
 * address's (engine_perf at 4,096 QPs: page-aligned blocks lost 12 %,
 * 2 MiB chunks that all started alike 19-40 %).
 */
#define HUGE_SIZE (2u << 20)
#define CHUNK_FIRST HUGE_SIZE	/* on small pages */
#define CHUNK_SIZE (32u << 20)	/* the others, on huge pages */
#define CHUNK_COLOUR_STEP 37u	/* cache lines, modulo 1,024 */
#define ARENA_COLOUR_SKIP 13u	/* arena a's chunks: the colours of chunk
				   numbers from 13 * a on */
#define N_CLASS (MEM_MAP_MIN / 64)

/*
 * Arenas: the blocks of one arena never share a chunk (nor a page) with
 * another's. Threads that each write their own QPs' state (the lcores of
 * engine shards) allocate from arenas of their own
 * (dpv_mlx5_mem_arena_set): hot lines of two cores in one 4 KiB page
 * slowed both (the hardware prefetchers of one core pull in the other's
 * lines; engine_perf, two shards in one process: 3.2-3.7 M msg/s in all
 * where two processes made 7.2, 4.5-5.7 once the second shard's blocks
 * started 16 KiB further on).
 */
static struct mem_pool {
	uint8_t *cur; /* the rest of the current chunk */
	size_t left;
	unsigned int chunks;
	void *free[N_CLASS];
} pools[DPV_MLX5_MEM_ARENAS][2]; /* [a][1]: classes of MEM_DONTFORK_MIN
				      bytes and more */
static pthread_mutex_t pools_lock = PTHREAD_MUTEX_INITIALIZER;
static __thread unsigned int cur_arena; /* this thread's */

/* fork() while another thread allocates: the child (one thread) gets the
 * lock free and the lists as they were when the parent took it */
static void
pools_prefork(void)
{
	pthread_mutex_lock(&pools_lock);
}

static void
pools_postfork(void)
{
	pthread_mutex_unlock(&pools_lock);
}

__attribute__((constructor)) static void
pools_atfork(void)
{
	pthread_atfork(pools_prefork, pools_postfork, pools_postfork);
}

static unsigned int
class_of(size_t len)
{
	return (unsigned int)((len + 63) / 64) - 1;
}

static size_t
class_size(unsigned int c)
{
	return (size_t)(c + 1) * 64;
}

/* A chunk of *size bytes, 2 MiB-aligned (so that huge pages can back
 * it), or NULL. */
static uint8_t *
chunk_map(struct mem_pool *pl, bool dontfork, size_t *size)
{
	size_t sz = pl->chunks == 0 ? CHUNK_FIRST : CHUNK_SIZE;
	size_t span = sz + HUGE_SIZE;
	uint8_t *m = mmap(NULL, span, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint8_t *c;

	if (m == MAP_FAILED)
		return NULL;
	c = (uint8_t *)RTE_ALIGN_CEIL((uintptr_t)m, (uintptr_t)HUGE_SIZE);
	if (c > m)
		munmap(m, (size_t)(c - m));
	if (m + span > c + sz)
		munmap(c + sz, (size_t)(m + span - (c + sz)));
	if (pl->chunks++ > 0)
		(void)madvise(c, sz, MADV_HUGEPAGE);
	if (dontfork)
		(void)madvise(c, sz, MADV_DONTFORK);
	*size = sz;
	return c;
}

/* A block of len bytes (header in) from the chunks; *taken its class's
 * size. */
static uint8_t *
chunk_alloc(size_t len, size_t *taken)
{
	unsigned int c = class_of(len), a = cur_arena;
	size_t sz = class_size(c);
	bool dontfork = sz >= MEM_DONTFORK_MIN;
	struct mem_pool *pl = &pools[a][dontfork];
	uint8_t *p;

	pthread_mutex_lock(&pools_lock);
	p = pl->free[c];
	if (p != NULL) {
		pl->free[c] = ((struct mem_hdr *)p)->next;
	} else {
		if (pl->left < sz) {
			/* the rest of the old chunk (below a block) is lost;
			 * a new one starts at a colour of its own, so that
			 * the chunks' blocks do not repeat one another's
			 * cache sets */
			size_t csz = 0, col;

			pl->cur = chunk_map(pl, dontfork, &csz);
			col = ((pl->chunks + a * ARENA_COLOUR_SKIP) *
			       CHUNK_COLOUR_STEP) % 1024 * 64;
			pl->left = pl->cur != NULL ? csz - col : 0;
			if (pl->cur != NULL)
				pl->cur += col;
		}
		if (pl->cur != NULL) {
			p = pl->cur;
			pl->cur += sz;
			pl->left -= sz;
		}
	}
	pthread_mutex_unlock(&pools_lock);
	if (p == NULL)
		return NULL;
	memset(p, 0, sz);
	((struct mem_hdr *)p)->cls = (uint16_t)(c + 1);
	((struct mem_hdr *)p)->arena = (uint8_t)a;
	*taken = sz;
	return p;
}

static void
chunk_free(uint8_t *p)
{
	struct mem_hdr *h = (struct mem_hdr *)p;
	unsigned int c = h->cls - 1u;
	struct mem_pool *pl =
		&pools[h->arena][class_size(c) >= MEM_DONTFORK_MIN];

	pthread_mutex_lock(&pools_lock);
	h->next = pl->free[c];
	pl->free[c] = p;
	pthread_mutex_unlock(&pools_lock);
}

unsigned int
dpv_mlx5_mem_arena_set(unsigned int arena)
{
	unsigned int prev = cur_arena;

	cur_arena = arena % DPV_MLX5_MEM_ARENAS;
	return prev;
}

/* The application's allocator for this thread's next blocks
 * (dpv_mlx5_mem_extern_set). */
static __thread struct {
	void *(*alloc)(size_t size, void *data);
	void (*free)(void *ptr, void *data);
	void *data;
} ext;

void
dpv_mlx5_mem_extern_set(void *(*alloc)(size_t size, void *data),
			void (*free_fn)(void *ptr, void *data), void *data)
{
	ext.alloc = alloc;
	ext.free = free_fn;
	ext.data = data;
}

/* A block of the application's allocator: its first cache line ours. */
static void *
ext_zalloc(size_t size)
{
	const size_t hdr = RTE_CACHE_LINE_SIZE;
	size_t len = RTE_ALIGN_CEIL(size + hdr, RTE_CACHE_LINE_SIZE);
	uint8_t *p = ext.alloc(len, ext.data);

	/* 64-byte alignment is what the rings need; refuse less */
	if (p == NULL || ((uintptr_t)p & (RTE_CACHE_LINE_SIZE - 1)) != 0) {
		if (p != NULL)
			ext.free(p, ext.data);
		return NULL;
	}
	memset(p, 0, len);
	((struct mem_hdr *)p)->len = len;
	((struct mem_hdr *)p)->ext_free = ext.free;
	((struct mem_hdr *)p)->ext_data = ext.data;
	__atomic_fetch_add(&mem_in_use, len, __ATOMIC_RELAXED);
	return p + hdr;
}

void *
dpv_mlx5_mem_zalloc(size_t size)
{
	const size_t hdr = RTE_CACHE_LINE_SIZE;
	size_t len;
	uint8_t *p;

	if (size == 0 || size > SIZE_MAX / 2)
		return NULL;
	if (ext.alloc != NULL)
		return ext_zalloc(size);
	if (size + hdr <= MEM_MAP_MIN) {
		p = chunk_alloc(size + hdr, &len);
		if (p == NULL)
			return NULL;
		((struct mem_hdr *)p)->len = len;
		__atomic_fetch_add(&mem_in_use, len, __ATOMIC_RELAXED);
		return p + hdr;
	}
	len = RTE_ALIGN_CEIL(size + hdr, (size_t)sysconf(_SC_PAGESIZE));
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	/* like a NIC's rings: a forked child gets no copy */
	(void)madvise(p, len, MADV_DONTFORK);
	((struct mem_hdr *)p)->map_len = len;
	((struct mem_hdr *)p)->len = len;
	__atomic_fetch_add(&mem_in_use, len, __ATOMIC_RELAXED);
	return p + hdr;
}

void
dpv_mlx5_mem_free(void *ptr)
{
	uint8_t *p;
	size_t len;

	if (ptr == NULL)
		return;
	p = (uint8_t *)ptr - RTE_CACHE_LINE_SIZE;
	__atomic_fetch_sub(&mem_in_use, ((struct mem_hdr *)p)->len,
			   __ATOMIC_RELAXED);
	if (((struct mem_hdr *)p)->ext_free != NULL) {
		((struct mem_hdr *)p)->ext_free(p,
						((struct mem_hdr *)p)->ext_data);
		return;
	}
	len = ((struct mem_hdr *)p)->map_len;
	if (len == 0)
		chunk_free(p);
	else
		munmap(p, len);
}

uint64_t
dpv_mlx5_mem_in_use(void)
{
	return __atomic_load_n(&mem_in_use, __ATOMIC_RELAXED);
}
