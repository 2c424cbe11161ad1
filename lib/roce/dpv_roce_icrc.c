/* SPDX-License-Identifier: BSD-3-Clause */
#include <pthread.h>
#include <stdbool.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_cpuflags.h>
#include <rte_mbuf.h>
#ifdef RTE_ARCH_X86_64
#include <immintrin.h>
#endif
#include <rte_net_crc.h>
#include <rte_vect.h>

#include "dpv_roce_hdr.h"
#include "dpv_roce_icrc.h"
#include "roce_log.h"

/* Reflected Ethernet CRC-32 polynomial. */
#define CRC32_POLY_REFLECTED 0xedb88320u

/* Below this many bytes after the masked headers, the table method is
 * cheaper than an rte_net_crc call plus the combine step. */
#define ICRC_DPDK_MIN_REST 192

static uint32_t crc_tbl[8][256];
/* x2n[n] = x^(2^n) modulo the polynomial, reflected */
static uint32_t crc_x2n[32];

static uint32_t
gf2_multmod(uint32_t a, uint32_t b)
{
	uint32_t m = 1u << 31, p = 0;

	for (; m != 0; m >>= 1) {
		if (a & m) {
			p ^= b;
			if ((a & (m - 1)) == 0)
				break;
		}
		b = (b & 1) ? (b >> 1) ^ CRC32_POLY_REFLECTED : b >> 1;
	}
	return p;
}

/* The CRC register (not inverted) after p[0..len), by slicing-by-8. */
static inline uint32_t
crc_reg_table(uint32_t c, const uint8_t *p, uint32_t len)
{
	while (len >= 8) {
		uint32_t a = dpv_roce_le32(p) ^ c, b = dpv_roce_le32(p + 4);

		c = crc_tbl[7][a & 0xff] ^ crc_tbl[6][(a >> 8) & 0xff] ^
		    crc_tbl[5][(a >> 16) & 0xff] ^ crc_tbl[4][a >> 24] ^
		    crc_tbl[3][b & 0xff] ^ crc_tbl[2][(b >> 8) & 0xff] ^
		    crc_tbl[1][(b >> 16) & 0xff] ^ crc_tbl[0][b >> 24];
		p += 8;
		len -= 8;
	}
	while (len--)
		c = (c >> 8) ^ crc_tbl[0][(c ^ *p++) & 0xff];
	return c;
}

/* The register c followed by four zero bytes: c x^32 mod P. */
static inline uint32_t
crc_reg_slice4(uint32_t c)
{
	return crc_tbl[3][c & 0xff] ^ crc_tbl[2][(c >> 8) & 0xff] ^
	       crc_tbl[1][(c >> 16) & 0xff] ^ crc_tbl[0][c >> 24];
}

static uint32_t
crc_reg_table_fn(uint32_t c, const uint8_t *p, uint32_t len)
{
	return crc_reg_table(c, p, len);
}

#ifdef RTE_ARCH_X86_64
/*
 * Folding with carry-less multiplies, 16 bytes a step. In the reflected
 * order a 16-byte block stands for a polynomial whose first bit is its
 * highest term; a block H followed by 16 more bytes L weighs
 * H x^128 + L, and H = A x^64 + B (A its first 8 bytes): so H is replaced
 * by A (x^191 mod P) x + B (x^127 mod P) x, two 64x32-bit products (the
 * multiply of two reflected values yields the product times x^-1 in that
 * order, hence x^191 and x^127). The register enters as the first four
 * bytes of the message; the last 16-byte block and the tail after it are
 * reduced by crc_reg_reduce().
 */
static __m128i fold_k; /* low: x^191 mod P, high: x^127 mod P, reflected */
static __m128i red_k;  /* low: x^95 mod P, high: x^63 mod P, reflected */
static __m128i red_mask; /* bits 32..127 */

/* The register after the block x stands for (the register folded into
 * it) and a tail of len bytes at p (len < 16). x = A x^64 + B (A its first
 * 8 bytes) weighs A x^96 + B x^32 after the CRC's x^32, and A x^96 is
 * A (x^95 mod P) x: a product of degree 95 at most, C x^64 + D with C of
 * 32 bits; C x^64 is again C (x^63 mod P) x, which leaves U of degree 63,
 * U = E x^32 + F: the register is F plus E x^32 mod P, one slice-by-4
 * table step. A 4-byte step takes the tail the same way, a word at a
 * time (a RoCE frame's ICRC covers whole words). */
__attribute__((target("pclmul,sse2"), aligned(64))) static inline uint32_t
crc_reg_reduce(__m128i x, const uint8_t *p, uint32_t len)
{
	__m128i t = _mm_xor_si128(_mm_clmulepi64_si128(x, red_k, 0x00),
				  _mm_and_si128(_mm_srli_si128(x, 4), red_mask));
	__m128i u = _mm_xor_si128(_mm_clmulepi64_si128(t, red_k, 0x10), t);
	uint64_t v = (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(u, u));
	uint32_t c = crc_reg_slice4((uint32_t)v) ^ (uint32_t)(v >> 32);

	for (; len >= 4; p += 4, len -= 4)
		c = crc_reg_slice4(c ^ dpv_roce_le32(p));
	return crc_reg_table(c, p, len);
}

/* Four blocks in flight: a block is folded 512 bits forward each step */
static __m128i fold_k4; /* x^575, x^511 mod P */

/* x moved d bits forward (d the distance the constants k stand for). */
__attribute__((target("pclmul,sse2"))) static inline __m128i
fold_fwd(__m128i x, __m128i k)
{
	return _mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00),
			     _mm_clmulepi64_si128(x, k, 0x11));
}

/* 256-bit carry-less multiplies (VPCLMULQDQ), where the CPU has them and
 * EAL allows 256-bit SIMD (dpv_roce_icrc_select_best()) */
static bool crc_wide;
static __m128i fold_k8; /* x^1087, x^1023 mod P: 1,024 bits forward */

/* fold_kr[FOLD_KR_ZERO - n]: n blocks (128 n bits) forward, n 1..30, the
 * order the folds' ends load them in; [FOLD_KR_ZERO] and after: zero */
#define FOLD_KR_ZERO 30
static __m128i fold_kr[48] __rte_aligned(64);

/*
 * The end of a fold: the r = *len / 16 whole blocks left at *p, each
 * folded straight to the last of them with its own constants (kr[i] for
 * block i), XORed into x, the last as it is; with d (*dp) not NULL, each
 * also stored there. *p (*dp) and *len advance past them. The folds'
 * ends take the blocks still in flight to the same place first (kr below
 * the blocks'), so that every block is one multiply from the last
 * instead of a chain of them that the reduction waits for.
 */
__attribute__((target("pclmul,sse2"), always_inline)) static inline __m128i
fold_left(__m128i x, const __m128i *kr, const uint8_t **pp, uint8_t **dp,
	  uint32_t *lenp)
{
	const uint8_t *p = *pp;
	unsigned int r = *lenp / 16;

	for (unsigned int i = 0; i < r; i++) {
		__m128i v = _mm_loadu_si128(
			(const __m128i *)(const void *)(p + 16 * i));

		if (dp != NULL)
			_mm_storeu_si128((__m128i *)(void *)(*dp + 16 * i), v);
		x = _mm_xor_si128(x, i + 1 < r ? fold_fwd(v, kr[i]) : v);
	}
	*pp = p + 16 * r;
	if (dp != NULL)
		*dp += 16 * r;
	*lenp -= 16 * r;
	return x;
}

/* fold_fwd() on both 128-bit lanes of y. */
__attribute__((target("avx2,vpclmulqdq"))) static inline __m256i
fold_fwd256(__m256i y, __m256i k)
{
	return _mm256_xor_si256(_mm256_clmulepi64_epi128(y, k, 0x00),
				_mm256_clmulepi64_epi128(y, k, 0x11));
}

/* m[0..3]: masks[0..nmask), zero after (a wide fold's first 64 bytes) */
__attribute__((target("sse2"), always_inline)) static inline void
masks_four(__m128i m[4], const __m128i *masks, unsigned int nmask)
{
#pragma GCC unroll 4
	for (unsigned int i = 0; i < 4; i++)
		m[i] = i < nmask ? masks[i] : _mm_setzero_si128();
}

/*
 * The first 128 bytes or more of a fold, eight blocks in flight in four
 * 256-bit registers (two lanes each) 128 bytes a step, brought back to
 * one block: the block standing for p[0..*len - rest) with the register c
 * and the masks applied (as crc_reg_fold() does); *p and *len advance.
 * With d (*dp) not NULL, 32-byte aligned, each block loaded is stored
 * there too, unmasked (a copy in the same pass; *dp advances). The loads
 * are VLDDQU and the stores aligned: with the -mtune the build inherits
 * (corei7) gcc would split every unaligned 256-bit load and store in two,
 * and the extra shuffles compete with the multiplies for their ports.
 */
__attribute__((target("avx2,vpclmulqdq,pclmul"),
	       always_inline)) static inline __m128i
fold_wide_core(uint32_t c, const uint8_t **pp, uint8_t **dp, uint32_t *lenp,
	       const __m128i *masks, unsigned int nmask)
{
	const uint8_t *p = *pp;
	uint8_t *d = dp != NULL ? *dp : NULL;
	uint32_t len = *lenp;
	__m256i y[4], k8 = _mm256_broadcastsi128_si256(fold_k8), t;
	__m128i m[4], x;
	const __m128i *kr;
	unsigned int r;

	masks_four(m, masks, nmask);
#pragma GCC unroll 4
	for (unsigned int j = 0; j < 4; j++) {
		y[j] = _mm256_lddqu_si256(
			(const __m256i *)(const void *)(p + 32 * j));
		if (d != NULL)
			_mm256_store_si256((__m256i *)(void *)(d + 32 * j),
					   y[j]);
	}
	y[0] = _mm256_or_si256(y[0], _mm256_set_m128i(m[1], m[0]));
	y[1] = _mm256_or_si256(y[1], _mm256_set_m128i(m[3], m[2]));
	y[0] = _mm256_xor_si256(y[0], _mm256_zextsi128_si256(
					      _mm_cvtsi32_si128((int)c)));
	p += 128;
	len -= 128;
	if (d != NULL)
		d += 128;
	for (; len >= 128; p += 128, len -= 128) {
#pragma GCC unroll 4
		for (unsigned int j = 0; j < 4; j++) {
			__m256i v = _mm256_lddqu_si256(
				(const __m256i *)(const void *)(p + 32 * j));

			if (d != NULL)
				_mm256_store_si256(
					(__m256i *)(void *)(d + 32 * j), v);
			y[j] = _mm256_xor_si256(fold_fwd256(y[j], k8), v);
		}
		if (d != NULL)
			d += 128;
	}
	/* the eight blocks in flight and the r whole blocks left, each
	 * straight to the last of them (fold_left()) */
	r = len / 16;
	kr = &fold_kr[FOLD_KR_ZERO - 7 - r];
	t = _mm256_setzero_si256();
#pragma GCC unroll 4
	for (unsigned int j = 0; j < 4; j++)
		t = _mm256_xor_si256(
			t,
			fold_fwd256(
				y[j],
				_mm256_loadu_si256(
					(const __m256i
						 *)(const void *)&kr[2 * j])));
	x = _mm_xor_si128(_mm256_castsi256_si128(t),
			  _mm256_extracti128_si256(t, 1));
	if (r == 0)
		x = _mm_xor_si128(x, _mm256_extracti128_si256(y[3], 1));
	x = fold_left(x, kr + 8, &p, dp != NULL ? &d : NULL, &len);
	*pp = p;
	if (dp != NULL)
		*dp = d;
	*lenp = len;
	return x;
}

__attribute__((target("avx2,vpclmulqdq,pclmul"))) static __m128i
fold_wide(uint32_t c, const uint8_t **pp, uint32_t *lenp, const __m128i *masks,
	  unsigned int nmask)
{
	return fold_wide_core(c, pp, NULL, lenp, masks, nmask);
}

/*
 * 512-bit carry-less multiplies (VPCLMULQDQ on AVX-512), where the CPU
 * has them and EAL allows 512-bit SIMD (dpv_roce_icrc_select_best()):
 * sixteen blocks in flight in four registers, 256 bytes a step. One pass
 * over the masked headers and the payload, so no join of two CRCs (the
 * join's x^(8n) took ~40 ns a 4 KiB frame beside rte_net_crc's own 512-bit
 * code, which it replaces for ICRCs).
 */
static bool crc512;
#define ICRC_FOLD512_MIN 256
static __m128i fold_k16; /* x^2111, x^2047 mod P: 2,048 bits forward */

/* fold_fwd() on the four lanes of y, XORed with v. */
__attribute__((target("avx512f,vpclmulqdq"))) static inline __m512i
fold_fwd512(__m512i y, __m512i k, __m512i v)
{
	return _mm512_ternarylogic_epi64(_mm512_clmulepi64_epi128(y, k, 0x00),
					 _mm512_clmulepi64_epi128(y, k, 0x11),
					 v, 0x96);
}

/*
 * The first 256 bytes or more of a fold, brought back to one block, as
 * fold_wide_core() does with 256-bit registers: the block standing for
 * p[0..*len - rest) (rest < 64) with the register c and the masks (at
 * most four, all in the first 64 bytes) applied; *p and *len advance.
 * With d (*dp) not NULL, each 64 bytes loaded are stored there too,
 * unmasked (a copy in the same pass; *dp advances; 64-byte aligned is
 * fastest).
 */
__attribute__((target("avx512f,avx512vl,vpclmulqdq,pclmul"),
	       always_inline)) static inline __m128i
fold512_core(uint32_t c, const uint8_t **pp, uint8_t **dp, uint32_t *lenp,
	     const __m128i *masks, unsigned int nmask)
{
	const uint8_t *p = *pp;
	uint8_t *d = dp != NULL ? *dp : NULL;
	uint32_t len = *lenp;
	__m512i y[4], k16 = _mm512_broadcast_i32x4(fold_k16), t;
	const __m128i *kr;
	__m128i last;
	unsigned int r;
	__m128i m[4];
	__m256i h;

	masks_four(m, masks, nmask);
#pragma GCC unroll 4
	for (unsigned int j = 0; j < 4; j++) {
		y[j] = _mm512_loadu_si512((const void *)(p + 64 * j));
		if (d != NULL)
			_mm512_storeu_si512((void *)(d + 64 * j), y[j]);
	}
	t = _mm512_inserti64x4(
		_mm512_castsi256_si512(_mm256_set_m128i(m[1], m[0])),
		_mm256_set_m128i(m[3], m[2]), 1);
	y[0] = _mm512_ternarylogic_epi64(
		y[0], t, _mm512_zextsi128_si512(_mm_cvtsi32_si128((int)c)),
		0x56); /* (y | t) ^ c */
	p += 256;
	len -= 256;
	if (d != NULL)
		d += 256;
	for (; len >= 256; p += 256, len -= 256) {
#pragma GCC unroll 4
		for (unsigned int j = 0; j < 4; j++) {
			__m512i v =
				_mm512_loadu_si512((const void *)(p + 64 * j));

			if (d != NULL)
				_mm512_storeu_si512((void *)(d + 64 * j), v);
			y[j] = fold_fwd512(y[j], k16, v);
		}
		if (d != NULL)
			d += 256;
	}
	/* the sixteen blocks in flight and the r whole blocks left, each
	 * folded straight to the last of those blocks with its own
	 * constants, the products XORed: one multiply deep (four registers
	 * to one step by step, then 64 and 16 bytes at a time, was a chain
	 * of up to ten multiplies that the reduction waited for) */
	r = len / 16;
	kr = &fold_kr[FOLD_KR_ZERO - 15 - r];
	last = r == 0 ? _mm512_extracti32x4_epi32(y[3], 3)
		      : _mm_loadu_si128(
				(const __m128i *)(const void *)(p +
								16 * (r - 1)));
	t = _mm512_setzero_si512();
#pragma GCC unroll 4
	for (unsigned int j = 0; j < 4; j++)
		t = fold_fwd512(y[j], _mm512_loadu_si512(&kr[4 * j]), t);
	for (unsigned int j = 0; 4 * j < r; j++) {
		__mmask8 mk =
			(__mmask8)((1u << (2 * RTE_MIN(r - 4 * j, 4u))) - 1);
		__m512i v = _mm512_maskz_loadu_epi64(mk, p + 64 * j);

		if (d != NULL)
			_mm512_mask_storeu_epi64(d + 64 * j, mk, v);
		t = fold_fwd512(v, _mm512_loadu_si512(&kr[16 + 4 * j]), t);
	}
	p += 16 * r;
	len -= 16 * r;
	if (d != NULL)
		d += 16 * r;
	h = _mm256_xor_si256(_mm512_castsi512_si256(t),
			     _mm512_extracti64x4_epi64(t, 1));
	*pp = p;
	if (dp != NULL)
		*dp = d;
	*lenp = len;
	return _mm_ternarylogic_epi64(_mm256_castsi256_si128(h),
				      _mm256_extracti128_si256(h, 1), last,
				      0x96);
}

__attribute__((target("avx512f,avx512vl,vpclmulqdq,pclmul"))) static __m128i
fold512(uint32_t c, const uint8_t **pp, uint32_t *lenp, const __m128i *masks,
	unsigned int nmask)
{
	return fold512_core(c, pp, NULL, lenp, masks, nmask);
}

/*
 * Blocks 1..3 of a fold (masks[1..nmask) applied) and 64 bytes a step
 * after them, four blocks in flight, brought back to one block: x is
 * block 0 with the register in; *p and *len start at block 1 and advance
 * (*len >= 48 on entry). With d (*dp) not NULL, 16-byte aligned, each
 * block loaded is stored there too, unmasked (a copy in the same pass;
 * *dp advances), as fold_wide_core() does.
 */
__attribute__((target("pclmul,sse2"),
	       always_inline)) static inline __m128i
fold_four_core(__m128i x, const uint8_t **pp, uint8_t **dp, uint32_t *lenp,
	       const __m128i *masks, unsigned int nmask)
{
	const uint8_t *p = *pp;
	uint8_t *d = dp != NULL ? *dp : NULL;
	uint32_t len = *lenp - 48;
	__m128i l[4], k4 = fold_k4;
	const __m128i *kr;
	unsigned int r;

	l[0] = x;
#pragma GCC unroll 4
	for (unsigned int i = 1; i < 4; i++, p += 16) {
		l[i] = _mm_loadu_si128((const __m128i *)(const void *)p);
		if (d != NULL) {
			_mm_store_si128((__m128i *)(void *)d, l[i]);
			d += 16;
		}
		if (i < nmask)
			l[i] = _mm_or_si128(l[i], masks[i]);
	}
	for (; len >= 64; p += 64, len -= 64) {
#pragma GCC unroll 4
		for (unsigned int j = 0; j < 4; j++) {
			__m128i v = _mm_loadu_si128(
				(const __m128i *)(const void *)(p + 16 * j));

			if (d != NULL)
				_mm_store_si128((__m128i *)(void *)(d + 16 * j),
						v);
			l[j] = _mm_xor_si128(fold_fwd(l[j], k4), v);
		}
		if (d != NULL)
			d += 64;
	}
	/* the four blocks in flight and the r whole blocks left, each
	 * straight to the last of them (fold_left()) */
	r = len / 16;
	kr = &fold_kr[FOLD_KR_ZERO - 3 - r];
	x = _mm_xor_si128(
		_mm_xor_si128(fold_fwd(l[0], kr[0]), fold_fwd(l[1], kr[1])),
		_mm_xor_si128(fold_fwd(l[2], kr[2]),
			      r == 0 ? l[3] : fold_fwd(l[3], kr[3])));
	x = fold_left(x, kr + 4, &p, dp != NULL ? &d : NULL, &len);
	*pp = p;
	if (dp != NULL)
		*dp = d;
	*lenp = len;
	return x;
}

__attribute__((target("pclmul,sse2"))) static __m128i
fold_four(__m128i x, const uint8_t **pp, uint32_t *lenp, const __m128i *masks,
	  unsigned int nmask)
{
	return fold_four_core(x, pp, NULL, lenp, masks, nmask);
}

/*
 * The register after the block x (the fold so far) and p[0..len): the
 * 16-byte blocks folded one by one (block number i on; masks[] apply
 * below nmask), the tail reduced.
 */
__attribute__((target("pclmul,sse2"))) static inline uint32_t
fold_tail(__m128i x, const uint8_t *p, uint32_t len, const __m128i *masks,
	  unsigned int nmask, unsigned int i)
{
	for (; len >= 16; i++, p += 16, len -= 16) {
		__m128i d = _mm_loadu_si128((const __m128i *)(const void *)p);

		if (i < nmask)
			d = _mm_or_si128(d, masks[i]);
		x = _mm_xor_si128(fold_fwd(x, fold_k), d);
	}
	return crc_reg_reduce(x, p, len);
}

/*
 * A short run of m whole blocks (m 2 to 8: 32 <= len < 144, a small
 * frame's ICRC): every block but the last folded straight to the last
 * one's place with its own constants, so that the multiplies do not wait
 * for each other (one after the other, the fold of seven blocks was a
 * chain of multiplies; here it is one multiply deep), then the tail
 * reduced. The blocks below nmask are ORed with masks[] first, the
 * register goes into block 0. m is a constant where this is inlined: the
 * blocks stay in registers.
 */
__attribute__((target("pclmul,sse2"))) static __rte_always_inline uint32_t
fold_short_m(uint32_t c, const uint8_t *p, uint32_t len, const __m128i *masks,
	     unsigned int nmask, const unsigned int m)
{
	__m128i a = _mm_setzero_si128(), b = _mm_setzero_si128(), x, f;

#pragma GCC unroll 8
	for (unsigned int i = 0; i < m; i++) {
		x = _mm_loadu_si128((const __m128i *)(const void *)(p +
								   16 * i));
		if (i < nmask)
			x = _mm_or_si128(x, masks[i]);
		if (i == 0)
			x = _mm_xor_si128(x, _mm_cvtsi32_si128((int)c));
		if (i == m - 1)
			break;
		/* block i, m - 1 - i blocks forward to the last, into one of
		 * two sums (two XOR chains, not one) */
		f = fold_fwd(x, fold_kr[FOLD_KR_ZERO - (m - 1 - i)]);
		if (i & 1)
			b = _mm_xor_si128(b, f);
		else
			a = _mm_xor_si128(a, f);
	}
	x = _mm_xor_si128(x, _mm_xor_si128(a, b));
	return crc_reg_reduce(x, p + 16 * m, len - 16 * m);
}

__attribute__((target("pclmul,sse2"))) static uint32_t
fold_short(uint32_t c, const uint8_t *p, uint32_t len, const __m128i *masks,
	   unsigned int nmask)
{
	/* one copy of the code for each count of blocks */
#define FOLD_SHORT_CASE(n)                                                     \
	case n:                                                                \
		return fold_short_m(c, p, len, masks, nmask, n)
	switch (len / 16) {
		FOLD_SHORT_CASE(2);
		FOLD_SHORT_CASE(3);
		FOLD_SHORT_CASE(4);
		FOLD_SHORT_CASE(5);
		FOLD_SHORT_CASE(6);
		FOLD_SHORT_CASE(7);
#undef FOLD_SHORT_CASE
	default:
		return fold_short_m(c, p, len, masks, nmask, 8);
	}
}

/*
 * The register c after p[0..len) (len >= 16) by folding; the first nmask
 * (at most 4) 16-byte blocks are ORed with masks[] first (the ICRC's
 * variant fields read as ones). From 64 bytes on, four independent
 * chains of multiplies (a multiply's latency is several times its issue
 * rate): about three times the speed of one chain; from 512 bytes, eight
 * in 256-bit registers where allowed (fold_wide()).
 */
__attribute__((target("pclmul,sse2"), aligned(64))) static uint32_t
crc_reg_fold(uint32_t c, const uint8_t *p, uint32_t len, const __m128i *masks,
	     unsigned int nmask)
{
	__m128i x;
	unsigned int i = 1; /* the next block's number (for its mask) */

	if (len >= 32 && len < 144)
		return fold_short(c, p, len, masks, nmask);
	if (crc512 && len >= ICRC_FOLD512_MIN) {
		/* the masks are all inside the first 64 bytes */
		x = fold512(c, &p, &len, masks, nmask);
		i = 4;
	} else if (crc_wide && len >= 512) {
		/* the masks are all inside the first 128 bytes */
		x = fold_wide(c, &p, &len, masks, nmask);
		i = 4;
	} else {
		x = _mm_loadu_si128((const __m128i *)(const void *)p);
		if (nmask > 0)
			x = _mm_or_si128(x, masks[0]);
		x = _mm_xor_si128(x, _mm_cvtsi32_si128((int)c));
		p += 16;
		len -= 16;
		if (len >= 48) {
			x = fold_four(x, &p, &len, masks, nmask);
			i = 4;
		}
	}
	return fold_tail(x, p, len, masks, nmask, i);
}

static uint32_t
crc_reg_clmul(uint32_t c, const uint8_t *p, uint32_t len)
{
	return len < 32 ? crc_reg_table(c, p, len)
			: crc_reg_fold(c, p, len, NULL, 0);
}

/*
 * memcpy(d, p, len) and the register c after p[0..len), in one pass over
 * p (len >= 128, crc_wide, d 32-byte aligned): the copy's loads and
 * stores go beside the multiplies, which bound the fold's speed.
 */
__attribute__((target("avx2,vpclmulqdq,pclmul"))) static uint32_t
crc_reg_copy(uint32_t c, uint8_t *d, const uint8_t *p, uint32_t len)
{
	__m128i x = fold_wide_core(c, &p, &d, &len, NULL, 0);

	memcpy(d, p, len);
	return fold_tail(x, d, len, NULL, 0, 0);
}

/* crc_reg_copy() with 512-bit multiplies (len >= 256, crc512, d 64-byte
 * aligned). Its pass pays a second reduction (the headers' fold ends in
 * one): below ICRC_COPY512_MIN bytes the copy, then one fold over the
 * frame, was as fast or faster (roce_icrc_perf on Zen 5, cp,(l2) against
 * cp+(l2): 1 KiB frames 19.7 and 19.1 GB/s, 2 KiB 26.7 and 26.3; 4 KiB
 * 30.8 and 37.1) */
#define ICRC_COPY512_MIN 3072
__attribute__((target("avx512f,avx512vl,vpclmulqdq,pclmul"))) static uint32_t
crc_reg_copy512(uint32_t c, uint8_t *d, const uint8_t *p, uint32_t len)
{
	__m128i x = fold512_core(c, &p, &d, &len, NULL, 0);

	memcpy(d, p, len);
	return fold_tail(x, d, len, NULL, 0, 0);
}

/*
 * crc_reg_copy() where the CPU has PCLMULQDQ but not VPCLMULQDQ (or EAL
 * allows only 128-bit SIMD): fold_four_core() with the copy in its pass
 * (len >= 64, d 16-byte aligned). On 4 KiB frames (roce_icrc_perf, Zen
 * 2) the two in turn ran at 8.8 GB/s, this pass at 10.4 (the fold alone
 * 12); on 1 KiB frames the pass was 10 % slower (ICRC_COPY128_MIN).
 */
#define ICRC_COPY128_MIN 1536
__attribute__((target("pclmul,sse2"))) static uint32_t
crc_reg_copy128(uint32_t c, uint8_t *d, const uint8_t *p, uint32_t len)
{
	__m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);

	_mm_store_si128((__m128i *)(void *)d, x);
	x = _mm_xor_si128(x, _mm_cvtsi32_si128((int)c));
	p += 16;
	d += 16;
	len -= 16;
	x = fold_four_core(x, &p, &d, &len, NULL, 0);
	memcpy(d, p, len);
	return fold_tail(x, d, len, NULL, 0, 0);
}

/* masks from 8 bytes before the IP header: IPv4 (no options) and IPv6 */
static __m128i icrc_mask4[3], icrc_mask6[4];

static void
icrc_masks_init(void)
{
	uint8_t m4[48] = {0}, m6[64] = {0};

	memset(m4, 0xff, 8);
	m4[8 + 1] = 0xff;			/* TOS */
	m4[8 + 8] = 0xff;			/* TTL */
	m4[8 + 10] = m4[8 + 11] = 0xff;		/* header checksum */
	m4[8 + 20 + 6] = m4[8 + 20 + 7] = 0xff; /* UDP checksum */
	m4[8 + 28 + 4] = 0xff;			/* BTH FECN/BECN/resv6 */
	memset(m6, 0xff, 8);
	m6[8] = 0x0f; /* traffic class + flow label */
	m6[8 + 1] = m6[8 + 2] = m6[8 + 3] = 0xff;
	m6[8 + 7] = 0xff; /* hop limit */
	m6[8 + 40 + 6] = m6[8 + 40 + 7] = 0xff;
	m6[8 + 48 + 4] = 0xff;
	for (unsigned int i = 0; i < 3; i++)
		memcpy(&icrc_mask4[i], m4 + 16 * i, 16);
	for (unsigned int i = 0; i < 4; i++)
		memcpy(&icrc_mask6[i], m6 + 16 * i, 16);
}

/* The masks of a frame whose IP header starts at l3 (IPv4 without
 * options, IPv6), for a fold that starts 8 bytes before it and covers at
 * least n bytes of headers; their number (0: no such frame, or n too
 * short for them). */
static unsigned int
icrc_masks_of(const uint8_t *l3, uint32_t n, const __m128i **masks)
{
	if (l3[0] == 0x45 && n >= 16 * RTE_DIM(icrc_mask4)) {
		*masks = icrc_mask4;
		return RTE_DIM(icrc_mask4);
	}
	if ((l3[0] >> 4) == 6 && n >= 16 * RTE_DIM(icrc_mask6)) {
		*masks = icrc_mask6;
		return RTE_DIM(icrc_mask6);
	}
	*masks = NULL;
	return 0;
}

/* x^n mod P (not reflected: bit i is x^i), then reflected into 64 bits
 * the way crc_reg_fold() multiplies: x^d at bit 63 - d */
static uint64_t
xn_mod_p_reflected64(unsigned int n)
{
	uint64_t r = 1, out = 0;

	while (n--) {
		r <<= 1;
		if (r & (1ull << 32))
			r ^= 0x104c11db7ull;
	}
	for (unsigned int d = 0; d < 32; d++)
		if (r & (1ull << d))
			out |= 1ull << (63 - d);
	return out;
}
#endif

/* the register update dpv_crc32_update() uses: folding where the CPU
 * has PCLMULQDQ */
static uint32_t (*crc_reg)(uint32_t c, const uint8_t *p,
			   uint32_t len) = crc_reg_table_fn;

uint32_t
dpv_crc32_update(uint32_t crc, const void *buf, uint32_t len)
{
	return ~crc_reg(~crc, buf, len);
}

/* the same, by the table alone (DPV_ROCE_ICRC_TABLE) */
static uint32_t
crc32_table(uint32_t crc, const uint8_t *p, uint32_t len)
{
	return ~crc_reg_table(~crc, p, len);
}

static uint32_t
crc32_bitwise(uint32_t crc, const uint8_t *p, uint32_t len)
{
	uint32_t c = ~crc;
	unsigned k;

	while (len--) {
		c ^= *p++;
		for (k = 0; k < 8; k++)
			c = (c & 1) ? (c >> 1) ^ CRC32_POLY_REFLECTED : c >> 1;
	}
	return ~c;
}

#ifdef RTE_ARCH_X86_64
/*
 * The same product with one carry-less multiply. With bit 31 standing for
 * x^0, the 64-bit product shifted left once holds the low-degree half of
 * a*b in its upper word (same representation) and the coefficients of
 * x^32..x^63 in its lower word; reducing lower * x^32 is what four CRC
 * table steps over a zero word do.
 */
__attribute__((target("pclmul,sse2"))) static uint32_t
gf2_multmod_clmul(uint32_t a, uint32_t b)
{
	__m128i p = _mm_clmulepi64_si128(_mm_cvtsi32_si128((int)a),
					 _mm_cvtsi32_si128((int)b), 0);
	uint64_t v = (uint64_t)_mm_cvtsi128_si64(p) << 1;
	uint32_t lo = (uint32_t)v;

	return (uint32_t)(v >> 32) ^ crc_reg_slice4(lo);
}
#endif

static uint32_t (*multmod)(uint32_t a, uint32_t b) = gf2_multmod;
static bool cpu_has_clmul;

/* The tables and the CPU's choice of code: once, from the constructor
 * below or from dpv_roce_icrc_init() if a constructor of the program's
 * (which may run first) needs them. */
static void
crc_init(void)
{
	unsigned i, k;

	for (i = 0; i < 256; i++) {
		uint32_t c = i;

		for (k = 0; k < 8; k++)
			c = (c & 1) ? (c >> 1) ^ CRC32_POLY_REFLECTED : c >> 1;
		crc_tbl[0][i] = c;
	}
	for (i = 0; i < 256; i++)
		for (k = 1; k < 8; k++)
			crc_tbl[k][i] = (crc_tbl[k - 1][i] >> 8) ^
					crc_tbl[0][crc_tbl[k - 1][i] & 0xff];
	crc_x2n[0] = 1u << 30; /* x^1 */
	for (k = 1; k < 32; k++)
		crc_x2n[k] = gf2_multmod(crc_x2n[k - 1], crc_x2n[k - 1]);
#ifdef RTE_ARCH_X86_64
	if (rte_cpu_get_flag_enabled(RTE_CPUFLAG_PCLMULQDQ) > 0) {
		multmod = gf2_multmod_clmul;
		cpu_has_clmul = true;
		fold_k = _mm_set_epi64x((long long)xn_mod_p_reflected64(127),
					(long long)xn_mod_p_reflected64(191));
		fold_k4 = _mm_set_epi64x((long long)xn_mod_p_reflected64(511),
					 (long long)xn_mod_p_reflected64(575));
		fold_k8 = _mm_set_epi64x((long long)xn_mod_p_reflected64(1023),
					 (long long)xn_mod_p_reflected64(1087));
		for (k = 1; k <= FOLD_KR_ZERO; k++)
			fold_kr[FOLD_KR_ZERO - k] = _mm_set_epi64x(
				(long long)xn_mod_p_reflected64(128 * k - 1),
				(long long)xn_mod_p_reflected64(128 * k + 63));
		fold_k16 =
			_mm_set_epi64x((long long)xn_mod_p_reflected64(2047),
				       (long long)xn_mod_p_reflected64(2111));
		red_k = _mm_set_epi64x((long long)xn_mod_p_reflected64(63),
				       (long long)xn_mod_p_reflected64(95));
		red_mask = _mm_set_epi32(-1, -1, -1, 0);
		crc_reg = crc_reg_clmul;
		icrc_masks_init();
	}
#endif
}

static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

void
dpv_roce_icrc_init(void)
{
	pthread_once(&crc_once, crc_init);
}

RTE_INIT(dpv_roce_crc_init)
{
	dpv_roce_icrc_init();
}

uint32_t
dpv_roce_icrc_factor(uint32_t n)
{
	uint32_t xn = 1u << 31; /* x^0 */
	unsigned k = 3;		/* 8 bits a byte: x^(8 n) */

	for (; n != 0; n >>= 1, k++)
		if (n & 1)
			xn = multmod(crc_x2n[k & 31], xn);
	return xn;
}

uint32_t
dpv_roce_icrc_delta(uint32_t w, uint32_t factor)
{
	/* the register of the word alone (from zero), moved past the rest:
	 * (ICRC of the frame with it) = (ICRC with zeros) ^ this */
	return multmod(crc_reg_slice4(w), factor);
}

uint32_t
dpv_roce_icrc_word_factor(uint32_t n)
{
	/* the word's register from zero is w x^32: moved into the factor */
	return crc_reg_slice4(dpv_roce_icrc_factor(n));
}

#ifdef RTE_ARCH_X86_64
/* the sum of two products, reduced once (the reduction is linear) */
__attribute__((target("pclmul,sse2"))) static uint32_t
multmod2_clmul(uint32_t a1, uint32_t b1, uint32_t a2, uint32_t b2)
{
	__m128i p = _mm_xor_si128(
		_mm_clmulepi64_si128(_mm_cvtsi32_si128((int)a1),
				     _mm_cvtsi32_si128((int)b1), 0),
		_mm_clmulepi64_si128(_mm_cvtsi32_si128((int)a2),
				     _mm_cvtsi32_si128((int)b2), 0));
	uint64_t v = (uint64_t)_mm_cvtsi128_si64(p) << 1;

	return (uint32_t)(v >> 32) ^ crc_reg_slice4((uint32_t)v);
}
#endif

uint32_t
dpv_roce_icrc_delta2(uint32_t w1, uint32_t k1, uint32_t w2, uint32_t k2)
{
#ifdef RTE_ARCH_X86_64
	if (likely(cpu_has_clmul))
		return multmod2_clmul(w1, k1, w2, k2);
#endif
	return gf2_multmod(w1, k1) ^ gf2_multmod(w2, k2);
}

uint32_t
dpv_crc32_combine(uint32_t crc1, uint32_t crc2, uint32_t len2)
{
	return multmod(dpv_roce_icrc_factor(len2), crc1) ^ crc2;
}

uint32_t
dpv_crc32_gf2_multmod(uint32_t a, uint32_t b, bool clmul)
{
	return clmul ? multmod(a, b) : gf2_multmod(a, b);
}

/*
 * crc32(data so far || p[0..len)), the fastest way available: our own
 * folding where the CPU multiplies carry-less (four chains; eight in
 * 256-bit registers, sixteen in 512-bit ones where allowed: 3x
 * rte_net_crc's SSE code on 4 KiB, which folds one; see roce_icrc_perf);
 * else rte_net_crc for long runs once EAL set the SIMD width (NEON on
 * Arm; before that it would settle on its scalar code for good), joined
 * by a GF(2) multiply; else the table.
 */
static uint32_t
crc_continue(uint32_t crc, const uint8_t *p, uint32_t len)
{
	if (cpu_has_clmul || len < ICRC_DPDK_MIN_REST ||
	    rte_vect_get_max_simd_bitwidth() < RTE_VECT_SIMD_128)
		return dpv_crc32_update(crc, p, len);
	return dpv_crc32_combine(
		crc, rte_net_crc_calc(p, len, RTE_NET_CRC32_ETH), len);
}

/* Largest masked prefix: LRH stand-in + IPv4 with options + UDP + BTH. */
#define ICRC_PREFIX_MAX (8 + 60 + 8 + 12)

/* Copy the invariant view of the headers into buf; return its length. */
static uint32_t
icrc_masked_prefix(uint8_t *buf, const uint8_t *l3, uint32_t l3_len)
{
	uint32_t iphl, n, ip_end;

	memset(buf, 0xff, 8);
	if ((l3[0] >> 4) == 6)
		iphl = sizeof(struct rte_ipv6_hdr);
	else
		iphl = (l3[0] & 0x0f) * 4u;
	n = iphl + sizeof(struct rte_udp_hdr) + sizeof(struct dpv_bth);
	if (n > l3_len - DPV_ROCE_ICRC_LEN)
		n = l3_len - DPV_ROCE_ICRC_LEN;
	memcpy(buf + 8, l3, n);
	buf += 8;
	ip_end = RTE_MIN(iphl, n);
	if ((l3[0] >> 4) == 6) {
		/* traffic class + flow label, hop limit */
		if (ip_end >= 8) {
			buf[0] |= 0x0f;
			buf[1] = buf[2] = buf[3] = 0xff;
			buf[7] = 0xff;
		}
	} else if (ip_end >= 12) {
		buf[1] = 0xff;		  /* TOS */
		buf[8] = 0xff;		  /* TTL */
		buf[10] = buf[11] = 0xff; /* header checksum */
	}
	if (n >= iphl + 8)
		buf[iphl + 6] = buf[iphl + 7] = 0xff; /* UDP checksum */
	if (n >= iphl + 8 + 5)
		buf[iphl + 8 + 4] = 0xff; /* BTH FECN/BECN/resv6 */
	return 8 + n;
}

uint32_t
dpv_roce_icrc_calc_method(enum dpv_roce_icrc_method method, const void *l3,
			  uint32_t l3_len)
{
	uint8_t buf[ICRC_PREFIX_MAX];
	const uint8_t *p = l3;
	uint32_t n, rest, crc;

	if (l3_len < DPV_ROCE_ICRC_LEN + 1)
		return 0;
	n = icrc_masked_prefix(buf, p, l3_len);
	rest = l3_len - DPV_ROCE_ICRC_LEN - (n - 8);
	p += n - 8;
	switch (method) {
	case DPV_ROCE_ICRC_BITWISE:
		crc = crc32_bitwise(0, buf, n);
		return crc32_bitwise(crc, p, rest);
	case DPV_ROCE_ICRC_TABLE:
		crc = crc32_table(0, buf, n);
		return crc32_table(crc, p, rest);
	case DPV_ROCE_ICRC_DPDK:
	default:
		return crc_continue(dpv_crc32_update(0, buf, n), p, rest);
	}
}

uint32_t
dpv_roce_icrc_calc(const void *l3, uint32_t l3_len)
{
	return dpv_roce_icrc_calc_method(DPV_ROCE_ICRC_DPDK, l3, l3_len);
}

/* crc into the last 4 bytes of the frame (the wire's byte order) */
static uint32_t
icrc_store(void *l3, uint32_t l3_len, uint32_t crc)
{
	uint8_t *p = (uint8_t *)l3 + l3_len - DPV_ROCE_ICRC_LEN;

	p[0] = (uint8_t)crc;
	p[1] = (uint8_t)(crc >> 8);
	p[2] = (uint8_t)(crc >> 16);
	p[3] = (uint8_t)(crc >> 24);
	return crc;
}

uint32_t
dpv_roce_icrc_calc_l2(const void *l3, uint32_t l3_len)
{
#ifdef RTE_ARCH_X86_64
	const uint8_t *p = l3;
	uint32_t n = l3_len + 8 - DPV_ROCE_ICRC_LEN; /* bytes folded */

	const __m128i *masks;
	unsigned int nmask;

	if (!cpu_has_clmul)
		return dpv_roce_icrc_calc(l3, l3_len);
	nmask = icrc_masks_of(p, n, &masks);
	/* one pass over the masked headers and the payload */
	if (masks != NULL)
		return ~crc_reg_fold(~0u, p - 8, n, masks, nmask);
#endif
	return dpv_roce_icrc_calc(l3, l3_len);
}

uint32_t
dpv_roce_icrc_set_l2(void *l3, uint32_t l3_len)
{
	return icrc_store(l3, l3_len, dpv_roce_icrc_calc_l2(l3, l3_len));
}

uint32_t
dpv_roce_icrc_set_copy_l2(void *l3, uint32_t l3_len, uint32_t pay_off,
			  const void *src, uint32_t n)
{
	uint8_t *p = l3;

#ifdef RTE_ARCH_X86_64
	if (cpu_has_clmul &&
	    n >= (crc512     ? ICRC_COPY512_MIN
		  : crc_wide ? DPV_ROCE_ICRC_COPY_MIN
			     : ICRC_COPY128_MIN) &&
	    pay_off <= l3_len && n <= l3_len - pay_off - DPV_ROCE_ICRC_LEN) {
		const __m128i *masks;
		/* the masked blocks lie within the headers */
		unsigned int nmask = icrc_masks_of(p, pay_off + 8, &masks);

		if (masks != NULL) {
			/* the first bytes copied alone and folded with the
			 * headers: the pass then stores whole lines (a store
			 * across two cache lines costs) */
			uint32_t align = crc512 ? 63 : 31;
			uint32_t head =
				(uint32_t)(-(uintptr_t)(p + pay_off) & align);
			uint32_t c, end = pay_off + n;
			const uint8_t *s = (const uint8_t *)src + head;

			memcpy(p + pay_off, src, head);
			c = crc_reg_fold(~0u, p - 8, pay_off + 8 + head, masks,
					 nmask);
			if (crc512)
				c = crc_reg_copy512(c, p + pay_off + head, s,
						    n - head);
			else if (crc_wide)
				c = crc_reg_copy(c, p + pay_off + head, s,
						 n - head);
			else
				c = crc_reg_copy128(c, p + pay_off + head, s,
						    n - head);
			/* the pad */
			c = crc_reg_clmul(c, p + end,
					  l3_len - DPV_ROCE_ICRC_LEN - end);
			return icrc_store(l3, l3_len, ~c);
		}
	}
#endif
	memcpy(p + pay_off, src, n);
	return dpv_roce_icrc_set_l2(l3, l3_len);
}

void
dpv_roce_icrc_select_best(void)
{
	/* falls back to SSE4.2/PCLMULQDQ, then to the scalar code */
	rte_net_crc_set_alg(RTE_NET_CRC_AVX512);
#ifdef RTE_ARCH_X86_64
	crc_wide = cpu_has_clmul &&
		   rte_cpu_get_flag_enabled(RTE_CPUFLAG_VPCLMULQDQ) > 0 &&
		   rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX2) > 0 &&
		   rte_vect_get_max_simd_bitwidth() >= RTE_VECT_SIMD_256;
	crc512 = crc_wide &&
		 rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX512F) > 0 &&
		 rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX512BW) > 0 &&
		 rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX512DQ) > 0 &&
		 rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX512VL) > 0 &&
		 rte_vect_get_max_simd_bitwidth() >= RTE_VECT_SIMD_512;
#endif
	ROCE_LOG(DEBUG, "rte_net_crc set to its fastest code (SIMD width %u%s)",
		 rte_vect_get_max_simd_bitwidth(),
		 cpu_has_clmul ? ", PCLMULQDQ" : "");
}

uint32_t
dpv_roce_icrc_set(void *l3, uint32_t l3_len)
{
	return icrc_store(l3, l3_len, dpv_roce_icrc_calc(l3, l3_len));
}

uint32_t
dpv_roce_icrc_calc_mbuf(const struct rte_mbuf *m, uint32_t l3_off,
			uint32_t l3_len)
{
	uint8_t hdr[ICRC_PREFIX_MAX], buf[ICRC_PREFIX_MAX];
	uint32_t n, pos, end, seg_start = 0, crc;
	const uint8_t *l3;

	if (l3_len < DPV_ROCE_ICRC_LEN + 1 ||
	    (uint64_t)l3_off + l3_len > rte_pktmbuf_pkt_len(m))
		return 0;
	l3 = rte_pktmbuf_read(
		m, l3_off, RTE_MIN(l3_len, (uint32_t)ICRC_PREFIX_MAX - 8), hdr);
	n = icrc_masked_prefix(buf, l3, l3_len);
	crc = dpv_crc32_update(0, buf, n);
	/* the rest, segment by segment; positions are packet offsets */
	pos = l3_off + (n - 8);
	end = l3_off + l3_len - DPV_ROCE_ICRC_LEN;
	for (; m != NULL && pos < end; m = m->next) {
		uint32_t seg_end = seg_start + rte_pktmbuf_data_len(m);

		if (pos < seg_end) {
			uint32_t stop = RTE_MIN(seg_end, end);

			crc = crc_continue(
				crc,
				rte_pktmbuf_mtod_offset(m, const uint8_t *,
							pos - seg_start),
				stop - pos);
			pos = stop;
		}
		seg_start = seg_end;
	}
	return crc;
}

uint32_t
dpv_roce_icrc_set_mbuf(struct rte_mbuf *m, uint32_t l3_off, uint32_t l3_len)
{
	uint32_t crc = dpv_roce_icrc_calc_mbuf(m, l3_off, l3_len);
	uint32_t pos = l3_off + l3_len - DPV_ROCE_ICRC_LEN, seg_start = 0;
	unsigned i = 0;

	for (; m != NULL && i < DPV_ROCE_ICRC_LEN; m = m->next) {
		uint32_t seg_end = seg_start + rte_pktmbuf_data_len(m);

		for (; pos < seg_end && i < DPV_ROCE_ICRC_LEN; pos++, i++)
			*rte_pktmbuf_mtod_offset(m, uint8_t *,
						 pos - seg_start) =
				(uint8_t)(crc >> (8 * i));
		seg_start = seg_end;
	}
	return crc;
}
