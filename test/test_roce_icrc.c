/* SPDX-License-Identifier: BSD-3-Clause */
/* ICRC: CRC-32 building blocks, method agreement, masked fields; and the
 * speed of each method (perf). */
#include <stdlib.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_mbuf.h>
#include <rte_net_crc.h>
#include <rte_vect.h>

#include "dpv_test.h"
#include "dpv_roce.h"
#include "test_roce_util.h"

/* CRC-32 (Ethernet, reflected) one bit at a time: the reference */
static uint32_t
ref_crc32(uint32_t crc, const uint8_t *p, uint32_t len)
{
	uint32_t c = ~crc;

	while (len--) {
		c ^= *p++;
		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0xedb88320u & -(c & 1));
	}
	return ~c;
}

static int
test_crc32_vectors(void)
{
	static const char check[] = "123456789";
	uint8_t buf[3000];
	uint64_t st = 0x1234567;
	uint32_t i, a, whole;

	TEST_ASSERT_EQUAL(dpv_crc32_update(0, check, 9), 0xcbf43926, "check");
	TEST_ASSERT_EQUAL(rte_net_crc_calc(check, 9, RTE_NET_CRC32_ETH),
			  0xcbf43926, "DPDK's CRC32_ETH is the same CRC");
	TEST_ASSERT_EQUAL(dpv_crc32_update(0, check, 0), 0, "empty");
	for (i = 0; i < 20000; i++) {
		uint32_t x = test_roce_rand(&st) ^ test_roce_rand(&st) << 16;
		uint32_t y = test_roce_rand(&st) ^ test_roce_rand(&st) << 16;

		TEST_ASSERT_EQUAL(dpv_crc32_gf2_multmod(x, y, true),
				  dpv_crc32_gf2_multmod(x, y, false),
				  "multmod 0x%x 0x%x", x, y);
	}
	TEST_ASSERT_EQUAL(dpv_crc32_gf2_multmod(0x80000000u, 0x1234, true),
			  0x1234, "x^0 is one");
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)test_roce_rand(&st);
	/* every length through the folding code's 16-byte steps and tail,
	 * then through its 64- and 128-byte steps (four lanes; eight with
	 * 256-bit multiplies once EAL is up), from any register and any
	 * alignment */
	for (i = 0; i < 1500; i += i < 300 ? 1 : 7) {
		uint32_t c0 = test_roce_rand(&st) ^ test_roce_rand(&st) << 16;
		uint32_t off = i % 13;

		TEST_ASSERT_EQUAL(dpv_crc32_update(c0, buf + off, i),
				  ref_crc32(c0, buf + off, i), "length %u", i);
	}
	whole = dpv_crc32_update(0, buf, sizeof(buf));
	TEST_ASSERT_EQUAL(whole, ref_crc32(0, buf, sizeof(buf)), "3000 bytes");
	for (a = 0; a <= sizeof(buf); a += 1 + a / 3) {
		uint32_t c1 = dpv_crc32_update(0, buf, a);
		uint32_t c2 = dpv_crc32_update(0, buf + a, sizeof(buf) - a);

		TEST_ASSERT_EQUAL(
			dpv_crc32_update(c1, buf + a, sizeof(buf) - a), whole,
			"incremental at %u", a);
		TEST_ASSERT_EQUAL(dpv_crc32_combine(c1, c2, sizeof(buf) - a),
				  whole, "combine at %u", a);
	}
	return TEST_SUCCESS;
}

static void
random_bytes(uint8_t *b, size_t n, uint64_t *st)
{
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)test_roce_rand(st);
}

/* All methods agree on built packets of every length, and the masked
 * (variant) fields do not change the ICRC while anything else does. */
static int
test_icrc_methods(void)
{
	static uint8_t payload[4200], frame[4400];
	struct dpv_roce_pkt p;
	uint64_t st = 99;
	uint32_t len, i;

	random_bytes(payload, sizeof(payload), &st);
	for (len = 0; len <= 4100; len += (len < 300 ? 1 : 97)) {
		bool v6 = len & 1;
		uint32_t l3len, c[DPV_ROCE_ICRC_METHOD_NUM];
		uint8_t *l3;
		int m, n;

		test_roce_random_pkt(&p, &st, DPV_ROCE_OP_SEND_ONLY, v6,
				     payload, len);
		n = dpv_roce_build(frame, sizeof(frame), &p);
		TEST_ASSERT(n > 0, "build %u", len);
		l3 = frame + p.l3_off;
		l3len = (uint32_t)n - p.l3_off;
		for (m = 0; m < DPV_ROCE_ICRC_METHOD_NUM; m++) {
			c[m] = dpv_roce_icrc_calc_method(m, l3, l3len);
			TEST_ASSERT_EQUAL(c[m], p.icrc, "method %d len %u", m,
					  len);
		}
		TEST_ASSERT(dpv_roce_icrc_check(l3, l3len), "check");
		/* one pass from the Ethernet header's last 8 bytes, which do
		 * not count */
		for (i = 1; i <= 8; i++)
			l3[-(int)i] ^= (uint8_t)(0x5a + i);
		TEST_ASSERT_EQUAL(dpv_roce_icrc_calc_l2(l3, l3len), p.icrc,
				  "one pass, len %u", len);

		/* variant fields */
		if (v6) {
			l3[0] ^= 0x0f; /* traffic class high nibble */
			l3[1] ^= 0xff;
			l3[3] ^= 0x5a; /* flow label */
			l3[7] ^= 0x21; /* hop limit */
		} else {
			l3[1] ^= 0xff; /* TOS */
			l3[8] ^= 0x13; /* TTL */
			l3[10] ^= 0x77;
			l3[11] ^= 0x1; /* checksum */
		}
		frame[p.l4_off + 6] ^= 0xff;  /* UDP checksum */
		frame[p.bth_off + 4] ^= 0xc1; /* FECN, BECN, resv6 */
		TEST_ASSERT(dpv_roce_icrc_check(l3, l3len), "variant fields");
		TEST_ASSERT_EQUAL(dpv_roce_icrc_calc_l2(l3, l3len), p.icrc,
				  "variant fields, one pass, len %u", len);
		/* invariant: QPN, PSN, payload, IP addresses, version */
		frame[p.bth_off + 7] ^= 1;
		TEST_ASSERT(!dpv_roce_icrc_check(l3, l3len), "QPN is covered");
		TEST_ASSERT(dpv_roce_icrc_calc_l2(l3, l3len) != p.icrc,
			    "QPN is covered, one pass");
		frame[p.bth_off + 7] ^= 1;
		frame[n - 5] ^= 0x80;
		TEST_ASSERT(!dpv_roce_icrc_check(l3, l3len), "last byte");
		frame[n - 5] ^= 0x80;
		l3[v6 ? 8 : 12] ^= 4;
		TEST_ASSERT(!dpv_roce_icrc_check(l3, l3len), "source address");
	}
	return TEST_SUCCESS;
}

/* dpv_roce_icrc_set_copy_l2() gives the frame memcpy() and
 * dpv_roce_icrc_set_l2() give: every length, both IP versions, payloads
 * at several offsets from the IP header, sources at any alignment. */
static int
test_icrc_copy(void)
{
	static const uint8_t ops[] = {
		DPV_ROCE_OP_SEND_ONLY, DPV_ROCE_OP_SEND_ONLY_IMM,
		DPV_ROCE_OP_WRITE_ONLY, DPV_ROCE_OP_WRITE_LAST};
	static uint8_t payload[4200 + 8], frame[4400], out[4400];
	struct dpv_roce_pkt p;
	uint64_t st = 1234;
	uint32_t len;

	random_bytes(payload, sizeof(payload), &st);
	for (len = 0; len <= 4100; len += (len < 300 ? 7 : 61)) {
		const uint8_t *src = payload + len % 8;
		uint32_t l3len, off, icrc;
		int n;

		test_roce_random_pkt(&p, &st, ops[len % 4], len & 2, src, len);
		n = dpv_roce_build(frame, sizeof(frame), &p);
		TEST_ASSERT(n > 0, "build %u", len);
		l3len = (uint32_t)n - p.l3_off;
		off = p.payload_off - p.l3_off;
		/* the frame without its payload and ICRC */
		memcpy(out, frame, (size_t)n);
		memset(out + p.payload_off, 0xa5, len);
		memset(out + n - DPV_ROCE_ICRC_LEN, 0, DPV_ROCE_ICRC_LEN);
		icrc = dpv_roce_icrc_set_copy_l2(out + p.l3_off, l3len, off,
						 src, len);
		TEST_ASSERT_EQUAL(icrc, p.icrc, "ICRC, payload %u, op %u", len,
				  ops[len % 4]);
		TEST_ASSERT(memcmp(out, frame, (size_t)n) == 0,
			    "frame, payload %u", len);
	}
	return TEST_SUCCESS;
}

/* A frame's ICRC from the one it has with two of its words zero, by
 * dpv_roce_icrc_delta2() and by two dpv_roce_icrc_delta() (the way frames
 * are built from templates and ACKs checked): any two words of the BTH
 * and payload, both IP versions, every payload length up to 260. */
static int
test_icrc_delta(void)
{
	static uint8_t payload[300], frame[600], zero[600];
	struct dpv_roce_pkt p;
	uint64_t st = 777;
	uint32_t len;

	random_bytes(payload, sizeof(payload), &st);
	for (len = 0; len <= 260; len += 4) {
		uint32_t l3len, end, o1, o2, w1, w2, z, n1, n2;
		int n;

		test_roce_random_pkt(&p, &st, DPV_ROCE_OP_SEND_ONLY, len & 4,
				     payload, len);
		n = dpv_roce_build(frame, sizeof(frame), &p);
		TEST_ASSERT(n > 0, "build %u", len);
		l3len = (uint32_t)n - p.l3_off;
		end = (uint32_t)n - DPV_ROCE_ICRC_LEN; /* where the ICRC is */
		/* the BTH's PSN word and a later one, or its first word
		 * (its second holds a byte the ICRC reads as ones) */
		o1 = p.payload_off - 4;
		o2 = end - o1 >= 8 ? o1 + 4 + 4 * (test_roce_rand(&st) %
						   ((end - o1) / 4 - 1))
				   : o1 - 8;
		memcpy(zero, frame, (size_t)n);
		memset(zero + o1, 0, 4);
		memset(zero + o2, 0, 4);
		z = dpv_roce_icrc_calc_l2(zero + p.l3_off, l3len);
		w1 = dpv_roce_le32(frame + o1);
		w2 = dpv_roce_le32(frame + o2);
		n1 = end - (o1 + 4);
		n2 = end - (o2 + 4);
		TEST_ASSERT_EQUAL(z ^ dpv_roce_icrc_delta2(
					      w1, dpv_roce_icrc_word_factor(n1),
					      w2, dpv_roce_icrc_word_factor(n2)),
				  p.icrc, "delta2, payload %u, words at %u %u",
				  len, o1, o2);
		TEST_ASSERT_EQUAL(z ^ dpv_roce_icrc_delta(
					      w1, dpv_roce_icrc_factor(n1)) ^
					  dpv_roce_icrc_delta(
						  w2, dpv_roce_icrc_factor(n2)),
				  p.icrc, "delta, payload %u", len);
	}
	return TEST_SUCCESS;
}

/* Again once EAL is up: dpv_roce_icrc_calc() then takes rte_net_crc's
 * PCLMULQDQ code for all but short packets, also over mbuf chains. */
static int
test_icrc_methods_eal(void)
{
	static uint8_t storage[5000], frame[4400], payload[4200];
	struct rte_mbuf segs[8], *m;
	struct dpv_roce_pkt p;
	uint64_t st = 4242;
	uint32_t len;
	uint16_t w;

	if (dpv_test_eal_init() != 0)
		return TEST_SKIPPED;
	dpv_roce_icrc_select_best();
	if (test_crc32_vectors() != TEST_SUCCESS ||
	    test_icrc_methods() != TEST_SUCCESS ||
	    test_icrc_copy() != TEST_SUCCESS)
		return TEST_FAILED;
	/* again with the 512-bit folding from 256 bytes on, where the CPU
	 * has it (the library's EAL default allows it), and with 128-bit
	 * SIMD only (the copy in the pass of 128-bit multiplies, which CPUs
	 * without VPCLMULQDQ run) */
	w = rte_vect_get_max_simd_bitwidth();
	for (unsigned int k = 0; k < 2; k++) {
		int rc;

		if (rte_vect_set_max_simd_bitwidth(k == 0 ? RTE_VECT_SIMD_512
							  : RTE_VECT_SIMD_128) !=
		    0)
			continue;
		dpv_roce_icrc_select_best();
		rc = test_icrc_methods();
		if (rc == TEST_SUCCESS)
			rc = test_icrc_copy();
		rte_vect_set_max_simd_bitwidth(w);
		dpv_roce_icrc_select_best();
		if (rc != TEST_SUCCESS)
			return TEST_FAILED;
	}
	random_bytes(payload, sizeof(payload), &st);
	for (len = 0; len <= 4100; len += 61) {
		uint32_t cuts[3];
		int n;

		test_roce_random_pkt(&p, &st, DPV_ROCE_OP_SEND_ONLY, len & 1,
				     payload, len);
		n = dpv_roce_build(frame, sizeof(frame), &p);
		TEST_ASSERT(n > 0, "build");
		cuts[0] = p.payload_off + len / 3;
		cuts[1] = cuts[0] + len / 3 + 1;
		cuts[2] = (uint32_t)n - 2;
		m = test_roce_make_chain(segs, storage, frame, (uint32_t)n,
					 cuts, cuts[1] < cuts[2] ? 3 : 1);
		TEST_ASSERT_EQUAL(dpv_roce_icrc_calc_mbuf(
					  m, p.l3_off, (uint32_t)n - p.l3_off),
				  p.icrc, "chain, payload %u", len);
	}
	return TEST_SUCCESS;
}

static const struct dpv_test_suite icrc_suite = {
	.name = "roce_icrc",
	.cases =
		{
			TEST_CASE(test_crc32_vectors),
			TEST_CASE(test_icrc_methods),
			TEST_CASE(test_icrc_copy),
			TEST_CASE(test_icrc_delta),
			TEST_CASE(test_icrc_methods_eal),
			TEST_CASES_END(),
		},
};

static int
roce_icrc_autotest(void)
{
	return dpv_test_run_suite(&icrc_suite);
}

DPV_TEST_REGISTER_FAST(roce_icrc_autotest, roce_icrc_autotest);

static double
now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* the payloads methods -3 and -4 copy in: a sender's registered memory,
 * 256 KiB gone through 4 KiB at a time (as perftest's, in the second-level
 * cache) */
#define COPY_SRC_LEN (256u << 10)
static uint8_t copy_src[COPY_SRC_LEN];
static uint32_t copy_off; /* the payload's offset from the IP header */
/* and the frames they are copied into, as a pool's mbufs: 32 of them
 * each the frame measured (its l3 at the same place in each) */
#define COPY_FRAMES    32
#define COPY_FRAME_LEN 9216
static uint8_t copy_dst[COPY_FRAMES][COPY_FRAME_LEN];

/* GB/s of one method on one frame, 512 calls between clock reads (a
 * thread CPU-time read is a system call of ~1 us here: at 64 calls it
 * halved the small frames' figures), run for about 40 ms of this thread's
 * CPU time (the machine is shared). -1: rte_net_crc; -2:
 * dpv_roce_icrc_calc_l2(); -3: the payload copied in, then -2; -4: the
 * two at once (dpv_roce_icrc_set_copy_l2()). */
static double
measure(int method, uint8_t *l3, uint32_t l3len, uint32_t *sink)
{
	double t0 = now_sec(), t;
	uint64_t bytes = 0;
	unsigned i, rounds = 0, at = 0;

	do {
		for (i = 0; i < 512; i++) {
			if (method <= -3) {
				uint32_t n =
					l3len - copy_off - DPV_ROCE_ICRC_LEN;
				const uint8_t *src = copy_src + at;
				uint8_t *d = copy_dst[i % COPY_FRAMES] + 64;

				at = (at + 4096) % (COPY_SRC_LEN - 9216);
				if (method == -3) {
					memcpy(d + copy_off, src, n);
					*sink ^= dpv_roce_icrc_set_l2(d, l3len);
				} else {
					*sink ^= dpv_roce_icrc_set_copy_l2(
						d, l3len, copy_off, src, n);
				}
			} else if (method == -2)
				*sink ^= dpv_roce_icrc_calc_l2(l3, l3len);
			else if (method < 0)
				*sink ^= rte_net_crc_calc(l3, l3len,
							  RTE_NET_CRC32_ETH);
			else
				*sink ^= dpv_roce_icrc_calc_method(method, l3,
								   l3len);
			bytes += l3len;
		}
		t = now_sec() - t0;
	} while (t < 0.04 && ++rounds < 1000000);
	return bytes / t / 1e9;
}

static int
roce_icrc_perf(void)
{
	static const uint32_t sizes[] = {64,   128,  256,  512,
					 1024, 2048, 4096, 9000};
	static const struct {
		const char *name;
		enum rte_net_crc_alg alg;
	} algs[] = {
		{"scalar", RTE_NET_CRC_SCALAR},
		{"sse42", RTE_NET_CRC_SSE42},
		{"avx512", RTE_NET_CRC_AVX512},
	};
	static uint8_t payload[9000], frame[9200];
	struct dpv_roce_pkt p;
	uint64_t st = 7;
	uint32_t sink = 0;
	unsigned s, a;

	/* dpv_test_eal_init() picks the ICRC code as the library does */
	if (dpv_test_eal_init() != 0)
		DPV_TEST_LOG("no EAL: DPDK's CRC keeps its scalar code");
	for (s = 0; s < sizeof(payload); s++)
		payload[s] = (uint8_t)s;
	memset(copy_src, 0x3c, COPY_SRC_LEN);
	printf("ICRC speed in GB/s of the bytes from the IP header on\n");
	printf("%-6s %8s %8s %8s %8s %8s %8s", "frame", "bitwise", "table",
	       "dpverbs", "(l2)", "cp,(l2)", "cp+(l2)");
	for (a = 0; a < RTE_DIM(algs); a++)
		printf(" %8.8s", algs[a].name);
	printf("\n");
	for (s = 0; s < RTE_DIM(sizes); s++) {
		uint32_t hdr = 14 + 20 + 8 + 12 + 4, l3len;
		int n;

		test_roce_random_pkt(&p, &st, DPV_ROCE_OP_SEND_ONLY, false,
				     payload, (sizes[s] - hdr) & ~3u);
		p.vlan = false;
		n = dpv_roce_build(frame, sizeof(frame), &p);
		TEST_ASSERT(n > 0 && (uint32_t)n <= sizes[s], "frame size");
		l3len = (uint32_t)n - p.l3_off;
		copy_off = p.payload_off - p.l3_off;
		for (a = 0; a < COPY_FRAMES; a++)
			memcpy(copy_dst[a] + 64, frame + p.l3_off, l3len);
		printf("%-6d %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f", n,
		       sizes[s] <= 1024
			       ? measure(DPV_ROCE_ICRC_BITWISE,
					 frame + p.l3_off, l3len, &sink)
			       : 0.0,
		       measure(DPV_ROCE_ICRC_TABLE, frame + p.l3_off, l3len,
			       &sink),
		       measure(DPV_ROCE_ICRC_DPDK, frame + p.l3_off, l3len,
			       &sink),
		       measure(-2, frame + p.l3_off, l3len, &sink),
		       measure(-3, frame + p.l3_off, l3len, &sink),
		       measure(-4, frame + p.l3_off, l3len, &sink));
		TEST_ASSERT(dpv_roce_icrc_check(frame + p.l3_off, l3len),
			    "icrc");
		for (a = 0; a < RTE_DIM(algs); a++) {
			rte_net_crc_set_alg(algs[a].alg);
			printf(" %8.3f",
			       measure(-1, frame + p.l3_off, l3len, &sink));
		}
		printf("\n");
	}
	printf("dpverbs: dpv_roce_icrc_calc (masked headers, then the rest "
	       "by folding where the CPU has PCLMULQDQ: in 512-bit registers "
	       "from 256 bytes on where it has AVX-512 and VPCLMULQDQ and EAL "
	       "allows 512-bit SIMD); (l2): dpv_roce_icrc_calc_l2, what the "
	       "engine runs (masked blocks folded in the same pass); "
	       "cp,(l2): the payload copied into the frame (from 256 KiB of "
	       "memory, 4 KiB apart), then (l2); cp+(l2): the two in one "
	       "pass (dpv_roce_icrc_set_copy_l2, from 512-byte payloads "
	       "where the CPU has VPCLMULQDQ and EAL allows 256-bit SIMD, "
	       "from 3,072 in 512-bit registers where it allows 512; from "
	       "1,536-byte "
	       "payloads with 128-bit multiplies elsewhere); then "
	       "rte_net_crc per algorithm over the same bytes without "
	       "masking; avx512 falls back to sse42 unless EAL allows "
	       "512-bit SIMD; bitwise only up to 1 KB; CPU time of this "
	       "thread\n");
	dpv_roce_icrc_select_best();
	/* use the results so the loops are not optimised away */
	return sink == 0x12345678 ? TEST_SUCCESS : TEST_SUCCESS;
}

DPV_TEST_REGISTER_PERF(roce_icrc_perf, roce_icrc_perf);
