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
	size_t map_len; /* 0: from malloc */
	size_t len;	/* bytes taken */
};

void *
dpv_mlx5_mem_zalloc(size_t size)
{
	const size_t hdr = RTE_CACHE_LINE_SIZE;
	size_t len;
	uint8_t *p;

	if (size == 0 || size > SIZE_MAX / 2)
		return NULL;
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
