/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of the engine's pure parts: PSN arithmetic, RNR timer codes,
 * ACK timeout, segmentation math, ACK coalescing, memory key checks, the
 * landing copy's stores. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include "dpv_test.h"
#include "dpv_engine.h"
#include "dpv_wr.h"

static int
test_psn(void)
{
	TEST_ASSERT_EQUAL(dpv_psn_cmp(5, 3), 2, "simple");
	TEST_ASSERT_EQUAL(dpv_psn_cmp(3, 5), -2, "negative");
	TEST_ASSERT_EQUAL(dpv_psn_cmp(0, 0xffffff), 1, "wrap forward");
	TEST_ASSERT_EQUAL(dpv_psn_cmp(0xffffff, 0), -1, "wrap backward");
	TEST_ASSERT_EQUAL(dpv_psn_cmp(0x7fffff, 0), 0x7fffff, "max positive");
	TEST_ASSERT_EQUAL(dpv_psn_cmp(0x800000, 0), -0x800000, "half space");
	TEST_ASSERT_EQUAL(dpv_psn_add(0xfffffe, 3), 1, "add wraps");
	TEST_ASSERT_EQUAL(dpv_psn_add(10, 0), 10, "add 0");
	/* high bits of the inputs do not matter */
	TEST_ASSERT_EQUAL(dpv_psn_cmp(0xff000005, 3), 2, "ignores bits 24+");
	return TEST_SUCCESS;
}

static int
test_rnr_timer(void)
{
	static const uint32_t want[32] = {
		655360, 10,    20,    30,     40,     60,     80,     120,
		160,	240,   320,   480,    640,    960,    1280,   1920,
		2560,	3840,  5120,  7680,   10240,  15360,  20480,  30720,
		40960,	61440, 81920, 122880, 163840, 245760, 327680, 491520};
	for (unsigned i = 0; i < 32; i++)
		TEST_ASSERT_EQUAL(dpv_rnr_timer_us(i), want[i], "code %u", i);
	/* increasing from code 1 on */
	for (unsigned i = 2; i < 32; i++)
		TEST_ASSERT(dpv_rnr_timer_us(i) > dpv_rnr_timer_us(i - 1), "%u",
			    i);
	TEST_ASSERT_EQUAL(dpv_rnr_timer_us(33), 10, "5-bit field");
	return TEST_SUCCESS;
}

static int
test_timeout_mtu(void)
{
	TEST_ASSERT_EQUAL(dpv_ack_timeout_ns(0), 0, "infinite");
	TEST_ASSERT_EQUAL(dpv_ack_timeout_ns(1), 8192, "4.096us*2");
	TEST_ASSERT_EQUAL(dpv_ack_timeout_ns(14), 4096ull << 14, "~67ms");
	TEST_ASSERT_EQUAL(dpv_ack_timeout_ns(40), 4096ull << 31, "clamped");
	TEST_ASSERT_EQUAL(dpv_mtu_bytes(IBV_MTU_256), 256, "");
	TEST_ASSERT_EQUAL(dpv_mtu_bytes(IBV_MTU_1024), 1024, "");
	TEST_ASSERT_EQUAL(dpv_mtu_bytes(IBV_MTU_4096), 4096, "");
	TEST_ASSERT_EQUAL(dpv_mtu_bytes(0), 0, "invalid");
	TEST_ASSERT_EQUAL(dpv_mtu_bytes(6), 0, "invalid");
	/* segmentation: capture rxe-rc-send-seg is 3000 B = 3 packets at 1024
	 */
	TEST_ASSERT_EQUAL(dpv_pkt_count(3000, 1024), 3, "");
	TEST_ASSERT_EQUAL(dpv_pkt_count(2053, 1024), 3, "");
	TEST_ASSERT_EQUAL(dpv_pkt_count(2048, 1024), 2, "exact multiple");
	TEST_ASSERT_EQUAL(dpv_pkt_count(0, 1024), 1, "zero length");
	TEST_ASSERT_EQUAL(dpv_pkt_count(1024, 1024), 1, "one full packet");
	TEST_ASSERT_EQUAL(dpv_pkt_count(1025, 1024), 2, "one byte over");
	TEST_ASSERT_EQUAL(dpv_pkt_count(1ull << 31, 4096), 524288, "2 GiB");
	TEST_ASSERT_EQUAL(dpv_pkt_count(3001, 1500), 3, "MTU not a power of 2");
	TEST_ASSERT_EQUAL(dpv_pkt_count(3000, 1500), 2, "");
	TEST_ASSERT_EQUAL(dpv_pkt_count(1, 4096), 1, "");
	return TEST_SUCCESS;
}

static int
test_ack_coalesce(void)
{
	struct dpv_ack_state a = {0};
	uint32_t psn, msn;

	TEST_ASSERT(!dpv_ack_take(&a, &psn, &msn), "nothing owed");
	dpv_ack_note(&a, 10, 1);
	dpv_ack_note(&a, 12, 2);
	dpv_ack_note(&a, 11, 1); /* older: does not move the ACK back */
	TEST_ASSERT(dpv_ack_take(&a, &psn, &msn), "owed");
	TEST_ASSERT_EQUAL(psn, 12, "cumulative");
	TEST_ASSERT_EQUAL(msn, 2, "msn of the latest");
	TEST_ASSERT(!dpv_ack_take(&a, &psn, &msn), "taken once");
	/* across the PSN wrap */
	dpv_ack_note(&a, 0xffffff, 7);
	dpv_ack_note(&a, 1, 8);
	TEST_ASSERT(dpv_ack_take(&a, &psn, &msn), "owed");
	TEST_ASSERT_EQUAL(psn, 1, "wrapped");
	TEST_ASSERT_EQUAL(msn, 8, "");
	return TEST_SUCCESS;
}

static int
test_key_check(void)
{
	enum { N = 8 };
	struct dpv_engine_key tbl[N] = {0};
	static uint8_t buf[4096];
	uint64_t a = (uintptr_t)buf;
	void *host = NULL;

	tbl[3] = (struct dpv_engine_key){.addr = a,
					 .length = sizeof(buf),
					 .iova = a,
					 .access = IBV_ACCESS_LOCAL_WRITE |
						   IBV_ACCESS_REMOTE_WRITE,
					 .pdn = 1,
					 .type = DPV_ENGINE_KEY_MR,
					 .valid = 1,
					 .key = 3 << 8 | 0x5a};
	/* a region registered at another iova (ibv_reg_mr_iova) */
	tbl[4] = (struct dpv_engine_key){.addr = a,
					 .length = 100,
					 .iova = 0x10000,
					 .access = IBV_ACCESS_REMOTE_READ,
					 .pdn = 1,
					 .valid = 1,
					 .key = 4 << 8 | 1};
	tbl[5] = (struct dpv_engine_key){.addr = a,
					 .length = 100,
					 .iova = a,
					 .access = IBV_ACCESS_REMOTE_WRITE,
					 .pdn = 1,
					 .valid = 1,
					 .type = DPV_ENGINE_KEY_MW2,
					 .bound = 1,
					 .qpn = 77,
					 .key = 5 << 8};
	uint32_t k = 3 << 8 | 0x5a;

	TEST_ASSERT_EQUAL(dpv_key_check(tbl, N, k, 1, 0, a + 10, 100, 0, &host),
			  DPV_KEY_OK, "local read");
	TEST_ASSERT(host == buf + 10, "translation");
	TEST_ASSERT_EQUAL(dpv_key_check(tbl, N, k, 1, 0, a, 4096,
					IBV_ACCESS_REMOTE_WRITE, NULL),
			  DPV_KEY_OK, "whole region");
	TEST_ASSERT_EQUAL(dpv_key_check(tbl, N, k, 1, 0, a + 1, 4096,
					IBV_ACCESS_REMOTE_WRITE, NULL),
			  DPV_KEY_BAD_BOUNDS, "one past the end");
	TEST_ASSERT_EQUAL(dpv_key_check(tbl, N, k, 1, 0, a - 1, 1, 0, NULL),
			  DPV_KEY_BAD_BOUNDS, "before start");
	TEST_ASSERT_EQUAL(
		dpv_key_check(tbl, N, k, 1, 0, a + 4000, UINT64_MAX, 0, NULL),
		DPV_KEY_BAD_BOUNDS, "length overflow");
	TEST_ASSERT_EQUAL(dpv_key_check(tbl, N, k, 1, 0, a, 8,
					IBV_ACCESS_REMOTE_READ, NULL),
			  DPV_KEY_BAD_ACCESS, "no remote read");
	TEST_ASSERT_EQUAL(dpv_key_check(tbl, N, k, 2, 0, a, 8, 0, NULL),
			  DPV_KEY_BAD_PD, "other PD");
	TEST_ASSERT_EQUAL(dpv_key_check(tbl, N, k ^ 1, 1, 0, a, 8, 0, NULL),
			  DPV_KEY_BAD_KEY, "wrong variant");
	TEST_ASSERT_EQUAL(dpv_key_check(tbl, N, 2 << 8, 1, 0, a, 8, 0, NULL),
			  DPV_KEY_BAD_KEY, "empty slot");
	TEST_ASSERT_EQUAL(dpv_key_check(tbl, N, 100 << 8, 1, 0, a, 8, 0, NULL),
			  DPV_KEY_BAD_KEY, "beyond the table");
	TEST_ASSERT_EQUAL(dpv_key_check(tbl, N, 100 << 8, 1, 0, 0, 0, 0, NULL),
			  DPV_KEY_OK, "zero length needs no key");
	TEST_ASSERT_EQUAL(dpv_key_check(tbl, N, 4 << 8 | 1, 1, 0, 0x10000 + 50,
					50, IBV_ACCESS_REMOTE_READ, &host),
			  DPV_KEY_OK, "iova");
	TEST_ASSERT(host == buf + 50, "iova translation");
	TEST_ASSERT_EQUAL(dpv_key_check(tbl, N, 4 << 8 | 1, 1, 0, a, 1,
					IBV_ACCESS_REMOTE_READ, NULL),
			  DPV_KEY_BAD_BOUNDS,
			  "process address is not the iova");
	TEST_ASSERT_EQUAL(dpv_key_check(tbl, N, 5 << 8, 1, 77, a, 8,
					IBV_ACCESS_REMOTE_WRITE, NULL),
			  DPV_KEY_OK, "MW2 own QP");
	TEST_ASSERT_EQUAL(dpv_key_check(tbl, N, 5 << 8, 1, 78, a, 8,
					IBV_ACCESS_REMOTE_WRITE, NULL),
			  DPV_KEY_BAD_QP, "MW2 other QP");
	tbl[5].bound = 0;
	TEST_ASSERT_EQUAL(dpv_key_check(tbl, N, 5 << 8, 1, 77, a, 8,
					IBV_ACCESS_REMOTE_WRITE, NULL),
			  DPV_KEY_BAD_KEY, "unbound window");
	tbl[3].valid = 0;
	TEST_ASSERT_EQUAL(dpv_key_check(tbl, N, k, 1, 0, a, 8, 0, NULL),
			  DPV_KEY_BAD_KEY, "invalidated");
	TEST_ASSERT(strcmp(dpv_key_status_str(DPV_KEY_BAD_PD), "PD mismatch") ==
			    0,
		    "");
	return TEST_SUCCESS;
}

/* Memory window bind and invalidation rules. */
static int
test_mw_rules(void)
{
	static uint8_t buf[4096];
	uint64_t a = (uintptr_t)buf;
	const struct dpv_engine_key mr = {.addr = a,
					  .length = 4096,
					  .iova = 0x100000,
					  .access = IBV_ACCESS_LOCAL_WRITE |
						    IBV_ACCESS_MW_BIND,
					  .pdn = 1,
					  .type = DPV_ENGINE_KEY_MR,
					  .valid = 1,
					  .key = 3 << 8 | 1};
	const struct dpv_engine_key mw2_free = {.pdn = 1,
						.type = DPV_ENGINE_KEY_MW2,
						.valid = 1,
						.key = 7 << 8};
	struct dpv_engine_key mr_nobind = mr, w, w1;
	struct dpv_wr_bind b = {.mw_rkey = 7 << 8,
				.new_key = 5,
				.mr_lkey = 3 << 8 | 1,
				.addr = 0x100000 + 100,
				.length = 200,
				.access = IBV_ACCESS_REMOTE_WRITE,
				.type2 = true};
	struct dpv_wr_bind bb;
	void *host;

	w = mw2_free;
	TEST_ASSERT_EQUAL(dpv_key_bind_apply(&w, &mr, &b, 1, 42),
			  IBV_WC_SUCCESS, "type 2 bind");
	TEST_ASSERT(w.bound && w.key == (7u << 8 | 5) && w.qpn == 42 &&
			    w.addr == a + 100 && w.iova == 0x100000 + 100 &&
			    w.length == 200,
		    "window state");
	TEST_ASSERT_EQUAL(dpv_key_check_one(&w, 7 << 8 | 5, 1, 42,
					    0x100000 + 150, 150,
					    IBV_ACCESS_REMOTE_WRITE, &host),
			  DPV_KEY_OK, "access through the window");
	TEST_ASSERT(host == buf + 150, "translation");
	TEST_ASSERT_EQUAL(dpv_key_check_one(&w, 7 << 8 | 5, 1, 42,
					    0x100000 + 150, 151,
					    IBV_ACCESS_REMOTE_WRITE, NULL),
			  DPV_KEY_BAD_BOUNDS, "window bounds, not region's");
	TEST_ASSERT_EQUAL(dpv_key_check_one(&w, 7 << 8 | 5, 1, 42,
					    0x100000 + 150, 8,
					    IBV_ACCESS_REMOTE_READ, NULL),
			  DPV_KEY_BAD_ACCESS, "window access");
	TEST_ASSERT_EQUAL(dpv_key_check_one(&w, 7 << 8 | 5, 1, 43,
					    0x100000 + 150, 8,
					    IBV_ACCESS_REMOTE_WRITE, NULL),
			  DPV_KEY_BAD_QP, "bound to another QP");
	TEST_ASSERT_EQUAL(dpv_key_check_one(&w, 7 << 8, 1, 42, 0x100000 + 150,
					    8, IBV_ACCESS_REMOTE_WRITE, NULL),
			  DPV_KEY_BAD_KEY, "old tag");
	bb = b;
	bb.new_key = 6;
	TEST_ASSERT_EQUAL(dpv_key_bind_apply(&w, &mr, &bb, 1, 42),
			  IBV_WC_MW_BIND_ERR, "type 2 already bound");
	TEST_ASSERT(w.key == (7u << 8 | 5), "untouched on error");
	/* invalidation */
	TEST_ASSERT_EQUAL(
		dpv_key_invalidate_check(&w, 7 << 8 | 5, 1, 43, true, false),
		-EACCES, "remote invalidate through another QP");
	TEST_ASSERT_EQUAL(
		dpv_key_invalidate_check(&w, 7 << 8 | 5, 2, 42, false, false),
		-EACCES, "other PD");
	TEST_ASSERT_EQUAL(
		dpv_key_invalidate_check(&w, 7 << 8 | 4, 1, 42, false, false),
		-ENOENT, "other tag");
	TEST_ASSERT_EQUAL(
		dpv_key_invalidate_check(&w, 7 << 8 | 5, 1, 42, true, false), 0,
		"remote invalidate by the bound QP");
	TEST_ASSERT_EQUAL(
		dpv_key_invalidate_check(&w, 7 << 8 | 5, 1, 99, false, false),
		0, "local invalidate");
	TEST_ASSERT_EQUAL(
		dpv_key_invalidate_check(&mr, mr.key, 1, 99, false, false),
		-EACCES, "regions of reg_mr");
	TEST_ASSERT_EQUAL(
		dpv_key_invalidate_check(&mr, mr.key, 1, 99, false, true), 0,
		"fast-register regions");
	/* rejected binds */
	w = mw2_free;
	bb = b;
	bb.type2 = false;
	TEST_ASSERT_EQUAL(dpv_key_bind_apply(&w, &mr, &bb, 1, 42),
			  IBV_WC_MW_BIND_ERR, "type mismatch");
	TEST_ASSERT_EQUAL(dpv_key_bind_apply(&w, &mr, &b, 2, 42),
			  IBV_WC_MW_BIND_ERR, "QP of another PD");
	mr_nobind.access &= ~(uint32_t)IBV_ACCESS_MW_BIND;
	TEST_ASSERT_EQUAL(dpv_key_bind_apply(&w, &mr_nobind, &b, 1, 42),
			  IBV_WC_MW_BIND_ERR, "region without MW_BIND");
	TEST_ASSERT_EQUAL(dpv_key_bind_apply(&w, NULL, &b, 1, 42),
			  IBV_WC_MW_BIND_ERR, "no region");
	bb = b;
	bb.mr_lkey ^= 1;
	TEST_ASSERT_EQUAL(dpv_key_bind_apply(&w, &mr, &bb, 1, 42),
			  IBV_WC_MW_BIND_ERR, "stale region key");
	bb = b;
	bb.addr = 0x100000 + 3900;
	TEST_ASSERT_EQUAL(dpv_key_bind_apply(&w, &mr, &bb, 1, 42),
			  IBV_WC_MW_BIND_ERR, "beyond the region");
	bb.addr = 0x100000 - 1;
	TEST_ASSERT_EQUAL(dpv_key_bind_apply(&w, &mr, &bb, 1, 42),
			  IBV_WC_MW_BIND_ERR, "before the region");
	mr_nobind = mr;
	mr_nobind.access = IBV_ACCESS_MW_BIND;
	TEST_ASSERT_EQUAL(dpv_key_bind_apply(&w, &mr_nobind, &b, 1, 42),
			  IBV_WC_MW_BIND_ERR,
			  "remote write on a read-only region");
	TEST_ASSERT(!w.bound && w.key == 7u << 8, "untouched");
	/* type 1: rebind and zero-length bind; never invalidated */
	w1 = mw2_free;
	w1.type = DPV_ENGINE_KEY_MW1;
	bb = b;
	bb.type2 = false;
	bb.zero_based = true;
	TEST_ASSERT_EQUAL(dpv_key_bind_apply(&w1, &mr, &bb, 1, 42),
			  IBV_WC_SUCCESS, "type 1 bind");
	TEST_ASSERT(w1.iova == 0 && w1.qpn == 0, "zero based, no QP");
	TEST_ASSERT_EQUAL(dpv_key_check_one(&w1, w1.key, 1, 1000, 0, 200,
					    IBV_ACCESS_REMOTE_WRITE, &host),
			  DPV_KEY_OK, "any QP of the PD");
	TEST_ASSERT(host == buf + 100, "zero-based translation");
	TEST_ASSERT_EQUAL(
		dpv_key_invalidate_check(&w1, w1.key, 1, 42, false, false),
		-EACCES, "type 1 cannot be invalidated");
	bb.new_key = 9;
	bb.length = 0;
	TEST_ASSERT_EQUAL(dpv_key_bind_apply(&w1, NULL, &bb, 1, 42),
			  IBV_WC_SUCCESS, "zero-length bind");
	TEST_ASSERT(!w1.bound && w1.key == (7u << 8 | 9), "unbound, new tag");
	TEST_ASSERT_EQUAL(dpv_key_check_one(&w1, w1.key, 1, 42, 0, 1,
					    IBV_ACCESS_REMOTE_WRITE, NULL),
			  DPV_KEY_BAD_KEY, "grants nothing");
	return TEST_SUCCESS;
}

/*
 * A tracer of the stores a copy makes into one page: the page is read-only,
 * each store faults (SIGSEGV), is let through with the page writable for
 * one instruction (the trap flag: SIGTRAP after it), and the bytes it
 * changed are noted, then the page is read-only again. The destination
 * starts as the complement of the source, so that each store changes
 * every byte it stores; a store that changes none stored them again.
 */
#define LAND_MAX_STORES 8192
static uint8_t *land_page, *land_shadow;
static size_t land_pgsz;
static volatile int land_n;
static struct land_store {
	int lo, hi; /* bytes changed, [lo, hi]; lo -1: none */
	int changed;
} land_st[LAND_MAX_STORES];

static void
land_segv(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;

	(void)sig;
	if ((uint8_t *)si->si_addr < land_page ||
	    (uint8_t *)si->si_addr >= land_page + land_pgsz)
		abort(); /* not the traced page: a real fault */
	mprotect(land_page, land_pgsz, PROT_READ | PROT_WRITE);
	uc->uc_mcontext.gregs[REG_EFL] |= 0x100; /* TF */
}

static void
land_trap(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;
	struct land_store st = {.lo = -1, .hi = -1};

	(void)sig;
	(void)si;
	for (size_t i = 0; i < land_pgsz; i++)
		if (land_page[i] != land_shadow[i]) {
			if (st.lo < 0)
				st.lo = (int)i;
			st.hi = (int)i;
			st.changed++;
			land_shadow[i] = land_page[i];
		}
	if (land_n < LAND_MAX_STORES)
		land_st[land_n] = st;
	land_n++;
	mprotect(land_page, land_pgsz, PROT_READ);
	uc->uc_mcontext.gregs[REG_EFL] &= ~0x100;
}

/* Trace copy(dst, src, n) into the page at offset off: 0 if every byte was
 * stored once, in ascending order (each store the bytes after the last
 * one's), and, with one_line, the last byte's cache line (its part from
 * off on) in the last store alone; else -1, *why set. */
static int
land_trace(void (*copy)(void *, const void *, size_t, unsigned), unsigned bits,
	   size_t off, size_t n, bool one_line, const char **why)
{
	static uint8_t src[8192];
	int next = (int)off, line;

	for (size_t i = 0; i < n; i++)
		src[i] = (uint8_t)(i * 7 + 1);
	for (size_t i = 0; i < land_pgsz; i++)
		land_page[i] = (uint8_t) ~(i * 7 + 1 - off);
	memcpy(land_shadow, land_page, land_pgsz);
	land_n = 0;
	mprotect(land_page, land_pgsz, PROT_READ);
	copy(land_page + off, src, n, bits);
	mprotect(land_page, land_pgsz, PROT_READ | PROT_WRITE);
	if (land_n > LAND_MAX_STORES)
		return *why = "too many stores to trace", -1;
	if (memcmp(land_page + off, src, n) != 0)
		return *why = "not copied", -1;
	for (int k = 0; k < land_n; k++) {
		struct land_store *st = &land_st[k];

		/* each store: bytes not stored before, the next ones */
		if (st->changed == 0)
			return *why = "a byte stored twice", -1;
		if (st->lo != next || st->hi - st->lo + 1 != st->changed)
			return *why = "stores out of order, or a byte stored "
				      "twice",
			       -1;
		next = st->hi + 1;
	}
	if (next != (int)(off + n))
		return *why = "bytes not stored", -1;
	line = (int)((off + n - 1) & ~(size_t)63);
	if (one_line && land_st[land_n - 1].lo != RTE_MAX(line, (int)off))
		return *why = "the last line in more than one store", -1;
	return 0;
}

static void
land_bits(void *d, const void *s, size_t n, unsigned bits)
{
	dpv_engine_land_bits(d, s, n, bits);
}

static void
land_memcpy(void *d, const void *s, size_t n, unsigned bits)
{
	(void)bits;
	memcpy(d, s, n);
}

static int
test_land_stores(void)
{
	static const size_t sizes[] = {1,    3,	   8,	 15,   16,  31,	 32,
				       33,   63,   64,	 65,   100, 128, 200,
				       1024, 1500, 4000, 4096, 8000};
	static const size_t offs[] = {0, 1, 13, 32, 64};
	struct sigaction sa = {.sa_flags = SA_SIGINFO}, old_segv, old_trap;
	const char *why = NULL;
	int rc = TEST_SUCCESS, r;
	unsigned best, got;

#ifdef __SANITIZE_ADDRESS__
	return TEST_SKIPPED; /* ASan's own SIGSEGV handling */
#endif
	/* the code engines land with (EAL's SIMD width bounds it) */
	TEST_ASSERT(dpv_test_eal_init() == 0, "EAL");
	best = dpv_engine_land_select();
	printf("landing stores here: %u bits\n", best);
	land_pgsz = 2 * (size_t)sysconf(_SC_PAGESIZE);
	land_page = mmap(NULL, land_pgsz, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	land_shadow = malloc(land_pgsz);
	TEST_ASSERT(land_page != MAP_FAILED && land_shadow != NULL, "memory");
	sigemptyset(&sa.sa_mask);
	sa.sa_sigaction = land_segv;
	sigaction(SIGSEGV, &sa, &old_segv);
	sa.sa_sigaction = land_trap;
	sigaction(SIGTRAP, &sa, &old_trap);
	/* each variant the CPU has, the widest first */
	for (unsigned bits = 512; bits >= 128 && rc == TEST_SUCCESS;
	     bits /= 2) {
		got = 0;
		for (size_t i = 0; i < RTE_DIM(sizes) && rc == TEST_SUCCESS;
		     i++)
			for (size_t j = 0; j < RTE_DIM(offs); j++) {
				if (offs[j] + sizes[i] > land_pgsz)
					continue;
				got = dpv_engine_land_bits(land_page, land_page,
							   0, bits);
				if (got != bits)
					break; /* not on this CPU */
				if (land_trace(land_bits, bits, offs[j],
					       sizes[i], bits == 512,
					       &why) == 0)
					continue;
				printf("dpv_engine_land(%zu bytes at +%zu, "
				       "%u-bit stores): %s\n",
				       sizes[i], offs[j], bits, why);
				rc = TEST_FAILED;
				break;
			}
		if (got != bits)
			printf("no %u-bit landing on this CPU\n", bits);
	}
	/* the engines' own choice */
	for (size_t i = 0; i < RTE_DIM(sizes) && rc == TEST_SUCCESS; i++)
		if (land_trace(land_bits, best, 13, sizes[i], best == 512,
			       &why) != 0) {
			printf("dpv_engine_land(%zu bytes): %s\n", sizes[i],
			       why);
			rc = TEST_FAILED;
		}
	/* what memcpy() does here, for the record (it may store twice, or
	 * out of order) */
	for (size_t n = 64; n <= 1024; n *= 16) {
		r = land_trace(land_memcpy, 0, 0, n, false, &why);
		printf("memcpy() of %zu bytes on this machine: %s\n", n,
		       r == 0 ? "each byte once, in order" : why);
	}
	sigaction(SIGSEGV, &old_segv, NULL);
	sigaction(SIGTRAP, &old_trap, NULL);
	munmap(land_page, land_pgsz);
	free(land_shadow);
	return rc;
}

static const struct dpv_test_suite engine_unit_suite = {
	.name = "engine_unit",
	.cases =
		{
			TEST_CASE(test_psn),
			TEST_CASE(test_rnr_timer),
			TEST_CASE(test_timeout_mtu),
			TEST_CASE(test_ack_coalesce),
			TEST_CASE(test_key_check),
			TEST_CASE(test_mw_rules),
			TEST_CASE(test_land_stores),
			TEST_CASES_END(),
		},
};

static int
engine_unit(void)
{
	return dpv_test_run_suite(&engine_unit_suite);
}

DPV_TEST_REGISTER_FAST(engine_unit, engine_unit);
