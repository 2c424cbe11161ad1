/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DPV_ROCE_ICRC_H
#define DPV_ROCE_ICRC_H

/**
 * @file
 * The RoCEv2 invariant CRC (ICRC).
 *
 * The ICRC is the Ethernet CRC-32 (polynomial 0x04C11DB7, reflected, initial
 * value and final XOR 0xFFFFFFFF, i.e. zlib's crc32) computed over
 *
 *  1. 8 bytes of 0xFF standing for the InfiniBand LRH that RoCEv2 does not
 *     have,
 *  2. the IP header with the fields routers may change set to all ones:
 *     IPv4 TOS, TTL and header checksum; IPv6 traffic class, flow label and
 *     hop limit,
 *  3. the UDP header with its checksum set to all ones,
 *  4. the BTH with byte 4 (FECN, BECN, reserved) set to all ones,
 *  5. the rest of the packet up to, not including, the ICRC itself,
 *
 * and stored in the last 4 bytes of the UDP payload, least significant byte
 * first. It is NOT CRC-32C: the x86 SSE4.2 crc32 instruction (and DPDK's
 * rte_hash_crc) compute the wrong polynomial for it.
 *
 * The functions take the packet from its IP header (l3) and its length
 * from there to the end of the ICRC (IPv4 total length, or 40 + IPv6
 * payload length). They do not validate the headers: the parser
 * (dpv_roce_pkt.h) does that before it checks the ICRC.
 *
 * Methods (all give the same value):
 * - DPV_ROCE_ICRC_DPDK, the default of dpv_roce_icrc_calc(): the masked
 *   headers are copied to the stack and run through a slicing-by-8 table;
 *   the rest of the packet continues, where the CPU has PCLMULQDQ, in this
 *   library's folding code (four independent chains of carry-less
 *   multiplies, 64 bytes a step: about three times DPDK 22.11's
 *   rte_net_crc SSE code, which folds one chain; eight chains in 256-bit
 *   registers from 512 bytes on where the CPU has VPCLMULQDQ, sixteen in
 *   512-bit registers from 256 bytes on where it also has AVX-512 and
 *   EAL allows 512-bit SIMD; roce_icrc_perf prints them beside
 *   rte_net_crc). Elsewhere a rest of 192 bytes or more goes through
 *   DPDK's rte_net_crc (NEON on Arm) once EAL has set the SIMD width, and
 *   the two CRCs are joined by multiplying the first by x^(8 * rest)
 *   modulo the polynomial; shorter rests continue in the table.
 *   dpv_roce_icrc_calc_l2() folds masked headers and payload in one pass.
 * - DPV_ROCE_ICRC_TABLE: slicing-by-8 tables only (portable).
 * - DPV_ROCE_ICRC_BITWISE: one bit at a time, the reference for tests.
 *
 * rte_net_crc (DPDK 22.11) picks its SIMD code on its first call, and only
 * allows it once EAL has set the maximum SIMD width; this library does
 * not call it before. If the application did, dpv_roce_icrc_select_best()
 * after rte_eal_init() undoes the scalar choice.
 */

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** How to compute the CRC. */
enum dpv_roce_icrc_method {
	DPV_ROCE_ICRC_DPDK,    /**< fastest code available (default) */
	DPV_ROCE_ICRC_TABLE,   /**< slicing-by-8 tables */
	DPV_ROCE_ICRC_BITWISE, /**< one bit at a time; reference only */
	DPV_ROCE_ICRC_METHOD_NUM
};

/**
 * Make DPDK's rte_net_crc use the fastest code the CPU and EAL allow
 * (AVX512, else SSE4.2 + PCLMULQDQ, else scalar). This sets DPDK's
 * process-wide CRC algorithm; call it once after rte_eal_init().
 */
void dpv_roce_icrc_select_best(void);

/**
 * Compute the ICRC of a packet.
 *
 * @param l3
 *   Start of the IPv4 or IPv6 header (the version nibble selects which).
 * @param l3_len
 *   Bytes from l3 to the end of the ICRC field; at least the IP, UDP and
 *   BTH headers plus 4.
 * @return
 *   The ICRC value. It goes on the wire least significant byte first.
 */
uint32_t dpv_roce_icrc_calc(const void *l3, uint32_t l3_len);

/**
 * Compute the ICRC with a chosen method (for tests and benchmarks).
 *
 * @param method
 *   One of enum dpv_roce_icrc_method; an unknown value uses the default.
 * @param l3
 *   As for dpv_roce_icrc_calc().
 * @param l3_len
 *   As for dpv_roce_icrc_calc().
 * @return
 *   The ICRC value.
 */
uint32_t dpv_roce_icrc_calc_method(enum dpv_roce_icrc_method method,
				   const void *l3, uint32_t l3_len);

/**
 * Four bytes at any address read as a little-endian 32-bit word: how the
 * ICRC field is stored and how dpv_roce_icrc_delta() takes its words.
 *
 * @param p
 *   The first byte (no alignment needed).
 * @return
 *   The word.
 */
static inline uint32_t
dpv_roce_le32(const void *p)
{
	const uint8_t *b = (const uint8_t *)p;

	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
	       (uint32_t)b[3] << 24;
}

/**
 * Read the ICRC stored in the last 4 bytes.
 *
 * @param l3
 *   Start of the IP header.
 * @param l3_len
 *   Bytes from l3 to the end of the ICRC field (>= 4).
 * @return
 *   The stored value.
 */
static inline uint32_t
dpv_roce_icrc_get(const void *l3, uint32_t l3_len)
{
	return dpv_roce_le32((const uint8_t *)l3 + l3_len - 4);
}

/**
 * Compute the ICRC and store it in the last 4 bytes.
 *
 * @param l3
 *   Start of the IP header.
 * @param l3_len
 *   Bytes from l3 to the end of the ICRC field.
 * @return
 *   The value stored.
 */
uint32_t dpv_roce_icrc_set(void *l3, uint32_t l3_len);

/**
 * Check the stored ICRC.
 *
 * @param l3
 *   Start of the IP header.
 * @param l3_len
 *   Bytes from l3 to the end of the ICRC field.
 * @return
 *   true if the stored value equals the computed one.
 */
static inline bool
dpv_roce_icrc_check(const void *l3, uint32_t l3_len)
{
	return dpv_roce_icrc_calc(l3, l3_len) == dpv_roce_icrc_get(l3, l3_len);
}

struct rte_mbuf;

/**
 * Compute the ICRC of a packet in an mbuf chain (any segmentation).
 *
 * @param m
 *   First segment of the packet.
 * @param l3_off
 *   Offset of the IP header in the packet.
 * @param l3_len
 *   Bytes from the IP header to the end of the ICRC field.
 * @return
 *   The ICRC value; 0 if l3_off + l3_len exceeds the packet length.
 */
uint32_t dpv_roce_icrc_calc_mbuf(const struct rte_mbuf *m, uint32_t l3_off,
				 uint32_t l3_len);

/**
 * Compute the ICRC of a packet in an mbuf chain and store it in its last
 * 4 bytes (which may straddle segments).
 *
 * @param m
 *   First segment of the packet.
 * @param l3_off
 *   Offset of the IP header in the packet.
 * @param l3_len
 *   Bytes from the IP header to the end of the ICRC field.
 * @return
 *   The value stored.
 */
uint32_t dpv_roce_icrc_set_mbuf(struct rte_mbuf *m, uint32_t l3_off,
				uint32_t l3_len);

/**
 * dpv_roce_icrc_calc() for a frame whose IP header has at least 8
 * readable bytes before it (an Ethernet header): one pass over the frame
 * with no copy of its headers, where the CPU has PCLMULQDQ (IPv4 without
 * options, IPv6); otherwise the same as dpv_roce_icrc_calc().
 *
 * @param l3
 *   Start of the IP header; l3 - 8 .. l3 - 1 must be readable.
 * @param l3_len
 *   Bytes from the IP header to the end of the ICRC field.
 * @return
 *   The ICRC value (0 if l3_len is too short).
 */
uint32_t dpv_roce_icrc_calc_l2(const void *l3, uint32_t l3_len);

/**
 * dpv_roce_icrc_set() by dpv_roce_icrc_calc_l2() (8 readable bytes before
 * the IP header).
 *
 * @param l3
 *   Start of the IP header; l3 - 8 .. l3 - 1 must be readable.
 * @param l3_len
 *   Bytes from the IP header to the end of the ICRC field.
 * @return
 *   The value stored.
 */
uint32_t dpv_roce_icrc_set_l2(void *l3, uint32_t l3_len);

/** Payloads from this length on are worth dpv_roce_icrc_set_copy_l2(). */
#define DPV_ROCE_ICRC_COPY_MIN 512

/**
 * memcpy() of a frame's payload into it, then dpv_roce_icrc_set_l2():
 * in one pass over the payload (the ICRC's carry-less multiplies bound
 * its speed, and the copy's loads and stores go beside them) where the
 * CPU has VPCLMULQDQ and EAL allows 256-bit SIMD, for payloads of
 * DPV_ROCE_ICRC_COPY_MIN bytes or more (in 512-bit registers where it
 * has AVX-512 and EAL allows 512, from 3,072), and with 128-bit multiplies
 * where it has only PCLMULQDQ, from 1,536 bytes on (below, the pass's
 * extra reduction costs more than the second read saves); otherwise the
 * two in turn. The frame's other bytes (headers, pad) must be in place.
 *
 * @param l3
 *   Start of the IP header; l3 - 8 .. l3 - 1 must be readable.
 * @param l3_len
 *   Bytes from the IP header to the end of the ICRC field.
 * @param pay_off
 *   Offset of the payload from l3.
 * @param src
 *   The payload's bytes (not overlapping the frame).
 * @param n
 *   Payload length; pay_off + n + 4 <= l3_len.
 * @return
 *   The ICRC stored.
 */
uint32_t dpv_roce_icrc_set_copy_l2(void *l3, uint32_t l3_len, uint32_t pay_off,
				   const void *src, uint32_t n);

/**
 * Make the ICRC's tables (a constructor does, once; a constructor of the
 * program's that needs them before it may call this; idempotent,
 * thread-safe).
 */
void dpv_roce_icrc_init(void);

/**
 * The factor of dpv_roce_icrc_delta() for a word followed by n more bytes
 * that the ICRC covers (x^(8 n) modulo the CRC-32 polynomial).
 *
 * @param n
 *   Bytes between the end of the word and the ICRC field.
 * @return
 *   The factor.
 */
uint32_t dpv_roce_icrc_factor(uint32_t n);

/**
 * How a frame's ICRC changes when four bytes it covers, zero before, are
 * given the value w. The ICRC is linear in the bytes it covers, so a frame
 * built from a template whose variable words are zero gets its ICRC as the
 * template's XOR one delta per word: no pass over the frame.
 *
 * @param w
 *   The four bytes as they are stored in the frame, read as a
 *   little-endian 32-bit word.
 * @param factor
 *   dpv_roce_icrc_factor() of the bytes that follow them up to the ICRC.
 * @return
 *   What to XOR into the ICRC (as dpv_roce_icrc_calc() returns it).
 */
uint32_t dpv_roce_icrc_delta(uint32_t w, uint32_t factor);

/**
 * The factor of dpv_roce_icrc_delta2() for a word followed by n more bytes
 * that the ICRC covers: dpv_roce_icrc_factor(n) with the word's own four
 * bytes folded in (x^(8 n + 32) modulo the polynomial).
 *
 * @param n
 *   Bytes between the end of the word and the ICRC field.
 * @return
 *   The factor.
 */
uint32_t dpv_roce_icrc_word_factor(uint32_t n);

/**
 * dpv_roce_icrc_delta(w1, ...) ^ dpv_roce_icrc_delta(w2, ...) at once: the
 * two products are summed before the one reduction they share (a
 * template's two variable words cost one carry-less multiply each and one
 * table step together).
 *
 * @param w1, w2
 *   The words as stored in the frame, read as little-endian 32-bit words.
 * @param k1, k2
 *   dpv_roce_icrc_word_factor() of the bytes that follow each.
 * @return
 *   What to XOR into the ICRC (as dpv_roce_icrc_calc() returns it).
 */
uint32_t dpv_roce_icrc_delta2(uint32_t w1, uint32_t k1, uint32_t w2,
			      uint32_t k2);

/**
 * Plain CRC-32 (Ethernet/zlib) continued over more data (folding with
 * carry-less multiplies where the CPU has them, else by table).
 * crc32(A||B) = dpv_crc32_update(dpv_crc32_update(0, A), B).
 *
 * @param crc
 *   CRC of the data so far (0 for none).
 * @param buf
 *   More data.
 * @param len
 *   Its length.
 * @return
 *   CRC of the data so far followed by buf.
 */
uint32_t dpv_crc32_update(uint32_t crc, const void *buf, uint32_t len);

/**
 * Join two CRC-32 values: given crc1 = crc32(A) and crc2 = crc32(B),
 * return crc32(A||B). Cost grows with log2(len2).
 *
 * @param crc1
 *   CRC of the first part.
 * @param crc2
 *   CRC of the second part.
 * @param len2
 *   Length of the second part in bytes.
 * @return
 *   CRC of both parts.
 */
uint32_t dpv_crc32_combine(uint32_t crc1, uint32_t crc2, uint32_t len2);

/**
 * Product of two polynomials modulo the CRC-32 polynomial, bit 31 being
 * x^0 (the reflected representation of CRC registers). Exposed for tests.
 *
 * @param a
 *   First factor.
 * @param b
 *   Second factor.
 * @param clmul
 *   true: the implementation dpv_crc32_combine() uses (carry-less
 *   multiply where the CPU has it); false: the bit-at-a-time reference.
 * @return
 *   a * b mod P.
 */
uint32_t dpv_crc32_gf2_multmod(uint32_t a, uint32_t b, bool clmul);

#ifdef __cplusplus
}
#endif

#endif /* DPV_ROCE_ICRC_H */
