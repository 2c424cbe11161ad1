/* SPDX-License-Identifier: BSD-3-Clause */
/* Pure arithmetic of the transports: RNR timer codes, ACK timeout, MTU;
 * the copy that lands a peer's data in application memory. */
#include <string.h>

#include <immintrin.h>
#include <rte_atomic.h>
#include <rte_cpuflags.h>
#include <rte_vect.h>

#include "dpv_engine.h"

/* IBA "RNR NAK timer field" encodings, in microseconds. */
static const uint32_t rnr_us[32] = {
	655360, 10,    20,    30,     40,     60,     80,     120,
	160,	240,   320,   480,    640,    960,    1280,   1920,
	2560,	3840,  5120,  7680,   10240,  15360,  20480,  30720,
	40960,	61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

uint32_t
dpv_rnr_timer_us(uint8_t code)
{
	return rnr_us[code & 31];
}

uint64_t
dpv_ack_timeout_ns(uint8_t timeout)
{
	if (timeout == 0)
		return 0;
	if (timeout > 31)
		timeout = 31;
	/* 4.096 us = 4096 ns */
	return (uint64_t)4096 << timeout;
}

uint32_t
dpv_mtu_bytes(enum ibv_mtu mtu)
{
	if (mtu < IBV_MTU_256 || mtu > IBV_MTU_4096)
		return 0;
	return 128u << mtu;
}

/* unaligned, and allowed to alias anything */
typedef uint64_t land_u64 __attribute__((may_alias, aligned(1)));
typedef uint32_t land_u32 __attribute__((may_alias, aligned(1)));
typedef uint16_t land_u16 __attribute__((may_alias, aligned(1)));

/*
 * Every variant below stores each destination byte once, in ascending
 * order of address (x86 keeps ordinary stores in program order; the
 * compiler barriers keep the program's order as written), as a DMA
 * engine writes: an application that sees a byte of a landing change
 * sees every byte before it in place, and no later store of the landing
 * undoes what it writes there. The stores are aligned to their width
 * after a head of smaller ones, so that none spans two cache lines.
 */

/* n bytes, each stored once, in order: 16-byte stores, then 8, 4, 2, 1 */
static inline void
land_pieces(uint8_t *d, const uint8_t *s, size_t n)
{
	/* four lines' loads ahead of their stores: the loop's overhead
	 * and the barriers otherwise leave the stores half as fast as
	 * memcpy()'s (the barriers keep the stores in order, not the
	 * loads) */
	for (; n >= 64; n -= 64, d += 64, s += 64) {
		__m128i a = _mm_loadu_si128((const __m128i *)(const void *)s);
		__m128i b = _mm_loadu_si128(
			(const __m128i *)(const void *)(s + 16));
		__m128i c = _mm_loadu_si128(
			(const __m128i *)(const void *)(s + 32));
		__m128i e = _mm_loadu_si128(
			(const __m128i *)(const void *)(s + 48));

		_mm_storeu_si128((__m128i *)(void *)d, a);
		rte_compiler_barrier();
		_mm_storeu_si128((__m128i *)(void *)(d + 16), b);
		rte_compiler_barrier();
		_mm_storeu_si128((__m128i *)(void *)(d + 32), c);
		rte_compiler_barrier();
		_mm_storeu_si128((__m128i *)(void *)(d + 48), e);
		rte_compiler_barrier();
	}
	for (; n >= 16; n -= 16, d += 16, s += 16) {
		_mm_storeu_si128(
			(__m128i *)(void *)d,
			_mm_loadu_si128((const __m128i *)(const void *)s));
		rte_compiler_barrier();
	}
	if (n & 8) {
		*(land_u64 *)d = *(const land_u64 *)s;
		rte_compiler_barrier();
		d += 8;
		s += 8;
	}
	if (n & 4) {
		*(land_u32 *)d = *(const land_u32 *)s;
		rte_compiler_barrier();
		d += 4;
		s += 4;
	}
	if (n & 2) {
		*(land_u16 *)d = *(const land_u16 *)s;
		rte_compiler_barrier();
		d += 2;
		s += 2;
	}
	if (n & 1)
		*d = *s;
}

/* the bytes before d's next multiple of align (at most n), in pieces;
 * returns how many */
static inline size_t
land_head(uint8_t *d, const uint8_t *s, size_t n, uintptr_t align)
{
	size_t head = (size_t)(-(uintptr_t)d & (align - 1));

	if (head > n)
		head = n;
	land_pieces(d, s, head);
	rte_compiler_barrier();
	return head;
}

/* SSE2 (any x86-64): 16-byte stores */
static void
land_128(uint8_t *d, const uint8_t *s, size_t n)
{
	size_t h = land_head(d, s, n, 16);

	land_pieces(d + h, s + h, n - h);
}

/* AVX2: 32-byte stores */
__attribute__((target("avx2"))) static void
land_256(uint8_t *d, const uint8_t *s, size_t n)
{
	size_t h = land_head(d, s, n, 32);

	d += h;
	s += h;
	n -= h;
	for (; n >= 128; n -= 128, d += 128, s += 128) {
		__m256i a =
			_mm256_loadu_si256((const __m256i *)(const void *)s);
		__m256i b = _mm256_loadu_si256(
			(const __m256i *)(const void *)(s + 32));
		__m256i c = _mm256_loadu_si256(
			(const __m256i *)(const void *)(s + 64));
		__m256i e = _mm256_loadu_si256(
			(const __m256i *)(const void *)(s + 96));

		_mm256_store_si256((__m256i *)(void *)d, a);
		rte_compiler_barrier();
		_mm256_store_si256((__m256i *)(void *)(d + 32), b);
		rte_compiler_barrier();
		_mm256_store_si256((__m256i *)(void *)(d + 64), c);
		rte_compiler_barrier();
		_mm256_store_si256((__m256i *)(void *)(d + 96), e);
		rte_compiler_barrier();
	}
	for (; n >= 32; n -= 32, d += 32, s += 32) {
		_mm256_store_si256(
			(__m256i *)(void *)d,
			_mm256_loadu_si256((const __m256i *)(const void *)s));
		rte_compiler_barrier();
	}
	land_pieces(d, s, n);
}

/* AVX-512BW: one store per cache line, the partial ones masked (a masked
 * store writes the bytes of its mask, no others; its load reads no byte
 * outside the mask). The line an application polls, the last one, takes
 * a single store: with the poller's reads between several, each waited
 * for the line to come back (ib_write_lat 64 B: ~0.1 us a round trip). */
__attribute__((target("avx512f,avx512bw"))) static void
land_512(uint8_t *d, const uint8_t *s, size_t n)
{
	size_t head = (size_t)(-(uintptr_t)d & 63);
	__mmask64 m;

	if (head != 0) {
		if (head > n)
			head = n;
		m = ((__mmask64)1 << head) - 1;
		_mm512_mask_storeu_epi8(d, m, _mm512_maskz_loadu_epi8(m, s));
		rte_compiler_barrier();
		d += head;
		s += head;
		n -= head;
	}
	for (; n >= 64; n -= 64, d += 64, s += 64) {
		_mm512_store_si512(d, _mm512_loadu_si512(s));
		rte_compiler_barrier();
	}
	if (n != 0) {
		m = ((__mmask64)1 << n) - 1;
		_mm512_mask_storeu_epi8(d, m, _mm512_maskz_loadu_epi8(m, s));
	}
}

typedef void (*land_fn)(uint8_t *d, const uint8_t *s, size_t n);

/* the widest the CPU and EAL allow (dpv_engine_land_select()) */
static land_fn land_best = land_128;

/* the width of f's stores, in bits */
static unsigned
land_width(land_fn f)
{
	return f == land_512 ? 512 : f == land_256 ? 256 : 128;
}

static land_fn
land_for(unsigned bits)
{
	if (bits >= 512 && rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX512F) > 0 &&
	    rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX512BW) > 0)
		return land_512;
	if (bits >= 256 && rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX2) > 0)
		return land_256;
	return land_128;
}

unsigned
dpv_engine_land_select(void)
{
	/* as the ICRC's code choice (dpv_roce_icrc_select_best()): what the
	 * CPU has, up to the SIMD width EAL allows
	 * (--force-max-simd-bitwidth) */
	land_fn f = land_for(rte_vect_get_max_simd_bitwidth());

	__atomic_store_n(&land_best, f, __ATOMIC_RELAXED);
	return land_width(f);
}

void
dpv_engine_land(void *dst, const void *src, size_t n)
{
	__atomic_load_n(&land_best, __ATOMIC_RELAXED)(dst, src, n);
}

unsigned
dpv_engine_land_bits(void *dst, const void *src, size_t n, unsigned bits)
{
	land_fn f = land_for(bits);

	f(dst, src, n);
	return land_width(f);
}
