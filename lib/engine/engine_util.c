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

/* n bytes (< 16 after the 16-byte stores), each stored once, in order */
static inline void
land_pieces(uint8_t *d, const uint8_t *s, size_t n)
{
	/* the compiler barriers keep the stores in the order written */
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

/* 1..64 bytes within one cache line in one store (AVX-512BW: a masked
 * store writes the bytes of its mask, no others) */
__attribute__((target("avx512f,avx512bw"))) static void
land_line_512(uint8_t *d, const uint8_t *s, size_t n)
{
	__mmask64 m;

	if (n == 64) { /* a whole line: no mask (a masked store is slower) */
		_mm512_storeu_si512(d, _mm512_loadu_si512(s));
		return;
	}
	m = ((__mmask64)1 << n) - 1;
	_mm512_mask_storeu_epi8(d, m, _mm512_maskz_loadu_epi8(m, s));
}

static void
land(void *dst, const void *src, size_t n, bool wide)
{
	uint8_t *d = dst;
	const uint8_t *s = src;
	uint8_t *line;

	if (n > DPV_ENGINE_LAND_TAIL) {
		size_t bulk = n - DPV_ENGINE_LAND_TAIL;

		/* stores of any number and order (rep movsb, non-temporal
		 * ones for large copies), all visible before the tail's */
		memcpy(d, s, bulk);
		rte_wmb();
		d += bulk;
		s += bulk;
		n = DPV_ENGINE_LAND_TAIL;
	}
	if (n == 0)
		return;
	/* the cache line of the last byte (the one an application polls)
	 * takes as few stores as can be: with the poller's reads between
	 * them, each store of 16 bytes into it waited for the line to come
	 * back (ib_write_lat 64 B: ~0.1 us a round trip) */
	line = (uint8_t *)((uintptr_t)(d + n - 1) & ~(uintptr_t)63);
	if (line > d) {
		land_pieces(d, s, (size_t)(line - d));
		s += line - d;
		n -= (size_t)(line - d);
		d = line;
	}
	if (wide)
		land_line_512(d, s, n);
	else
		land_pieces(d, s, n);
}

/* the last line in one AVX-512 store (dpv_engine_land_select()) */
static bool land_wide;

void
dpv_engine_land_select(void)
{
	/* as the ICRC's code choice (dpv_roce_icrc_select_best()): the CPU
	 * has it, and EAL allows 512-bit SIMD (--force-max-simd-bitwidth) */
	__atomic_store_n(
		&land_wide,
		rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX512F) > 0 &&
			rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX512BW) > 0 &&
			rte_vect_get_max_simd_bitwidth() >= RTE_VECT_SIMD_512,
		__ATOMIC_RELAXED);
}

void
dpv_engine_land(void *dst, const void *src, size_t n)
{
	land(dst, src, n, __atomic_load_n(&land_wide, __ATOMIC_RELAXED));
}

void
dpv_engine_land_narrow(void *dst, const void *src, size_t n)
{
	land(dst, src, n, false);
}
