/* SPDX-License-Identifier: BSD-3-Clause */
/* Memory for rings and per-QP state: the process's, not the DPDK heap. */

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rte_common.h>

#include "mlx5_ring.h"

/* Blocks this large are mapped on their own and unmapped when freed. */
#define MEM_MAP_MIN (16u << 10)

/* Bytes of the blocks now allocated (headers and page rounding in). */
static uint64_t mem_in_use;

/* Kept in the cache line before each block. */
struct mem_hdr {
	size_t map_len; /* 0: from malloc or the application's allocator */
	size_t len;	/* bytes taken */
	/* the application's allocator's (NULL: ours) */
	void (*ext_free)(void *ptr, void *data);
	void *ext_data;
};

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
	if (size + hdr < MEM_MAP_MIN) {
		len = RTE_ALIGN_CEIL(size + hdr, RTE_CACHE_LINE_SIZE);
		p = aligned_alloc(RTE_CACHE_LINE_SIZE, len);
		if (p == NULL)
			return NULL;
		memset(p, 0, len);
		((struct mem_hdr *)p)->map_len = 0;
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
		free(p);
	else
		munmap(p, len);
}

uint64_t
dpv_mlx5_mem_in_use(void)
{
	return __atomic_load_n(&mem_in_use, __ATOMIC_RELAXED);
}
