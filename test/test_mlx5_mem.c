/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ring and QP-state allocator (dpv_mlx5_mem_zalloc): blocks of two
 * arenas never share a 4 KiB page, a freed block is taken again only
 * from its own arena, the arena is per thread and wraps modulo
 * DPV_MLX5_MEM_ARENAS, and every byte comes back.
 */
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "dpv_test.h"
#include "mlx5_ring.h"

#define NB 48 /* blocks per size and arena */
#define PAGE 4096u

static const size_t sizes[] = {8, 64, 200, 1000, 4000, 9000, 20000};
#define NSZ (sizeof(sizes) / sizeof(sizes[0]))

/* first and last page a block (with its header line) touches */
static void
pages_of(const void *p, size_t size, uintptr_t *lo, uintptr_t *hi)
{
	*lo = ((uintptr_t)p - 64) / PAGE;
	*hi = ((uintptr_t)p + size - 1) / PAGE;
}

/* does a block of a[0..an) share a page with one of b[0..bn) */
static bool
share_page(void *const *a, const size_t *asz, size_t an, void *const *b,
	   const size_t *bsz, size_t bn)
{
	for (size_t i = 0; i < an; i++) {
		uintptr_t alo, ahi;

		pages_of(a[i], asz[i], &alo, &ahi);
		for (size_t j = 0; j < bn; j++) {
			uintptr_t blo, bhi;

			pages_of(b[j], bsz[j], &blo, &bhi);
			if (alo <= bhi && blo <= ahi)
				return true;
		}
	}
	return false;
}

static void *
arena_of_thread(void *arg)
{
	/* a new thread starts in arena 0 whatever its creator set */
	*(unsigned int *)arg = dpv_mlx5_mem_arena_set(0);
	return NULL;
}

static int
test_mlx5_mem(void)
{
	static void *blk[2][NB * NSZ];
	static size_t sz[NB * NSZ];
	uint64_t mem0 = dpv_mlx5_mem_in_use();
	unsigned int prev, other = 99;
	pthread_t t;
	size_t n = 0;
	void *p, *q;

	TEST_ASSERT_EQUAL(dpv_mlx5_mem_arena_set(0), 0u, "default arena");
	for (size_t k = 0; k < NSZ; k++)
		for (size_t i = 0; i < NB; i++)
			sz[n++] = sizes[k];
	/* interleaved, as QPs of two shards created one after the other */
	for (size_t i = 0; i < n; i++) {
		for (unsigned int a = 0; a < 2; a++) {
			dpv_mlx5_mem_arena_set(a + 1);
			blk[a][i] = dpv_mlx5_mem_zalloc(sz[i]);
			TEST_ASSERT_NOT_NULL(blk[a][i], "block %zu of arena %u",
					     i, a + 1);
			TEST_ASSERT_EQUAL((uintptr_t)blk[a][i] % 64, 0u,
					  "64-byte aligned");
			for (size_t b = 0; b < sz[i]; b++)
				TEST_ASSERT_EQUAL(((uint8_t *)blk[a][i])[b], 0,
						  "zeroed");
			memset(blk[a][i], 0xa5, sz[i]);
		}
	}
	TEST_ASSERT(!share_page(blk[0], sz, n, blk[1], sz, n),
		    "blocks of two arenas share a page");
	/* a freed block goes back to its arena's list only */
	dpv_mlx5_mem_free(blk[0][3]);
	dpv_mlx5_mem_arena_set(2);
	p = dpv_mlx5_mem_zalloc(sz[3]);
	TEST_ASSERT_NOT_NULL(p, "");
	TEST_ASSERT(p != blk[0][3], "arena 2 took arena 1's freed block");
	TEST_ASSERT(!share_page(&p, sz + 3, 1, blk[0], sz, n),
		    "arena 2's new block in a page of arena 1");
	dpv_mlx5_mem_arena_set(1);
	q = dpv_mlx5_mem_zalloc(sz[3]);
	TEST_ASSERT(q == blk[0][3], "arena 1 reuses its own freed block");
	TEST_ASSERT_EQUAL(((uint8_t *)q)[0], 0, "reused block zeroed");
	blk[0][3] = q;
	dpv_mlx5_mem_free(p);
	/* per thread, modulo the arena count */
	prev = dpv_mlx5_mem_arena_set(DPV_MLX5_MEM_ARENAS + 5);
	TEST_ASSERT_EQUAL(prev, 1u, "previous arena");
	TEST_ASSERT_EQUAL(pthread_create(&t, NULL, arena_of_thread, &other),
			  0, "");
	pthread_join(t, NULL);
	TEST_ASSERT_EQUAL(other, 0u, "another thread's arena");
	TEST_ASSERT_EQUAL(dpv_mlx5_mem_arena_set(0), 5u, "modulo");
	for (unsigned int a = 0; a < 2; a++)
		for (size_t i = 0; i < n; i++)
			dpv_mlx5_mem_free(blk[a][i]);
	TEST_ASSERT_EQUAL(dpv_mlx5_mem_in_use(), mem0, "all bytes back");
	return TEST_SUCCESS;
}

DPV_TEST_REGISTER_FAST(mlx5_mem, test_mlx5_mem);
