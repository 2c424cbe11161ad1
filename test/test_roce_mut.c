/* SPDX-License-Identifier: BSD-3-Clause */
/* Corrupted copies of captured RoCE frames are rejected for the right
 * reason; every single-bit change of an invariant byte is caught. */
#include <rte_ip.h>

#include "dpv_test.h"
#include "dpv_roce.h"
#include "test_roce_util.h"

/* One frame of each kind the captures hold (IPv4 send/ACK/first/last
 * with pad/write/read/atomic/UD, IPv6 send). */
static const struct {
	const char *file;
	uint8_t opcode;
} samples[] = {
	{"rxe-rc-send.pcap", DPV_ROCE_OP_SEND_ONLY},
	{"rxe-rc-send.pcap", DPV_ROCE_OP_ACK},
	{"rxe-rc-send-seg.pcap", DPV_ROCE_OP_SEND_FIRST},
	{"rxe-rc-send-pad.pcap", DPV_ROCE_OP_SEND_LAST},
	{"rxe-rc-write.pcap", DPV_ROCE_OP_WRITE_FIRST},
	{"rxe-rc-read-seg.pcap", DPV_ROCE_OP_READ_REQUEST},
	{"rxe-rc-read-seg.pcap", DPV_ROCE_OP_READ_RESP_LAST},
	{"rxe-rc-atomic-cas.pcap", DPV_ROCE_OP_CMP_SWAP},
	{"rxe-rc-atomic.pcap", DPV_ROCE_OP_ATOMIC_ACK},
	{"rxe-ud-send.pcap", DPV_ROCE_TR_UD | DPV_ROCE_OP_SEND_ONLY},
	{"rxe-uc-send.pcap", DPV_ROCE_TR_UC | DPV_ROCE_OP_SEND_ONLY},
	{"rxe-rc-send-ipv6.pcap", DPV_ROCE_OP_SEND_ONLY},
	{"rxe-rc-send-ipv6.pcap", DPV_ROCE_OP_ACK},
};

static uint8_t orig[TEST_ROCE_MAX_FRAME];
static uint32_t orig_len;
static struct dpv_roce_pkt op; /* parse of orig */

static int
load_sample(unsigned i)
{
	struct test_roce_frames fr;
	char path[4096];
	unsigned k;
	int found = 0;

	snprintf(path, sizeof(path), "%s/%s", dpv_test_captures_dir(),
		 samples[i].file);
	if (test_roce_read_pcap(path, &fr) != 0)
		return -1;
	for (k = 0; k < fr.n && !found; k++) {
		if (dpv_roce_parse(fr.data[k], fr.len[k], 0, &op) != 0 ||
		    op.opcode != samples[i].opcode)
			continue;
		memcpy(orig, fr.data[k], fr.len[k]);
		orig_len = fr.len[k];
		found = 1;
	}
	test_roce_free_frames(&fr);
	if (!found)
		return -1;
	return dpv_roce_parse(orig, orig_len, 0, &op) == 0 ? 0 : -1;
}

/* Apply an edit to a copy, fix lengths/checksums as told, parse. */
static enum dpv_roce_rx_status
parse_copy(uint8_t *buf, uint32_t len, bool fix_csum)
{
	struct dpv_roce_pkt p;

	if (fix_csum && !op.ipv6)
		test_roce_fix_ipv4_csum(buf, op.l3_off);
	return dpv_roce_parse(buf, len, 0, &p);
}

static void
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static uint16_t
get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* Change IP and UDP lengths by delta (frame length changes as given). */
static void
adjust_lengths(uint8_t *b, int delta)
{
	if (op.ipv6)
		put16(b + op.l3_off + 4,
		      (uint16_t)(get16(b + op.l3_off + 4) + delta));
	else
		put16(b + op.l3_off + 2,
		      (uint16_t)(get16(b + op.l3_off + 2) + delta));
	put16(b + op.l4_off + 4, (uint16_t)(get16(b + op.l4_off + 4) + delta));
}

#define EXPECT(buf, len, fix, want)                                            \
	do {                                                                   \
		enum dpv_roce_rx_status st_ = parse_copy(buf, len, fix);       \
		TEST_ASSERT_EQUAL(st_, want, "%s %s: got %s, want %s",         \
				  samples[i].file,                             \
				  dpv_roce_opcode_name(op.opcode),             \
				  dpv_roce_rx_status_name(st_),                \
				  dpv_roce_rx_status_name(want));              \
	} while (0)

#define FRESH() memcpy(b, orig, orig_len)

static int
mutate_one(unsigned i)
{
	static uint8_t b[TEST_ROCE_MAX_FRAME + 64];
	const uint32_t n = orig_len;
	uint8_t *l3, *bth;

	l3 = b + op.l3_off;
	bth = b + op.bth_off;

	FRESH();
	EXPECT(b, n, false, DPV_ROCE_RX_OK);
	EXPECT(b, 13, false, DPV_ROCE_RX_TRUNC_L2);
	EXPECT(b, op.l3_off + 19, false, DPV_ROCE_RX_TRUNC_L3);
	EXPECT(b, n - 1, false, DPV_ROCE_RX_IP_LEN);
	b[12] = 0x08, b[13] = 0x06; /* ARP */
	EXPECT(b, n, false, DPV_ROCE_RX_NOT_IP);
	FRESH();
	b[12] = 0x81, b[13] = 0x00; /* VLAN tag without room is fine: TCI =
				       the IP header's first bytes */
	EXPECT(b, 17, false, DPV_ROCE_RX_TRUNC_L2);
	FRESH();
	l3[0] ^= 0xf0 & (op.ipv6 ? 0xa0 : 0x10); /* version 4<->5, 6->12 */
	EXPECT(b, n, true, DPV_ROCE_RX_IP_VERSION);
	FRESH();
	if (!op.ipv6) {
		l3[0] = 0x44;
		EXPECT(b, n, true, DPV_ROCE_RX_IPV4_IHL);
		FRESH();
		l3[11] ^= 0x40;
		EXPECT(b, n, false, DPV_ROCE_RX_IPV4_CSUM);
		FRESH();
		l3[6] |= 0x20; /* MF */
		EXPECT(b, n, true, DPV_ROCE_RX_IPV4_FRAG);
		FRESH();
		l3[7] = 1; /* fragment offset 8 */
		EXPECT(b, n, true, DPV_ROCE_RX_IPV4_FRAG);
		FRESH();
		l3[9] = IPPROTO_TCP;
		EXPECT(b, n, true, DPV_ROCE_RX_NOT_UDP);
	} else {
		l3[6] = IPPROTO_TCP;
		EXPECT(b, n, false, DPV_ROCE_RX_NOT_UDP);
	}
	/* IP length larger than the frame, or smaller (trailing bytes) */
	FRESH();
	put16(l3 + (op.ipv6 ? 4 : 2),
	      (uint16_t)(get16(l3 + (op.ipv6 ? 4 : 2)) + 4));
	EXPECT(b, n, true, DPV_ROCE_RX_IP_LEN);
	FRESH();
	put16(l3 + (op.ipv6 ? 4 : 2),
	      (uint16_t)(get16(l3 + (op.ipv6 ? 4 : 2)) - 4));
	EXPECT(b, n, true, n > 60 ? DPV_ROCE_RX_IP_LEN : DPV_ROCE_RX_UDP_LEN);
	/* UDP */
	FRESH();
	put16(b + op.l4_off + 4, (uint16_t)(get16(b + op.l4_off + 4) - 4));
	EXPECT(b, n, false, DPV_ROCE_RX_UDP_LEN);
	FRESH();
	put16(b + op.l4_off + 4, 7);
	EXPECT(b, n, false, DPV_ROCE_RX_UDP_LEN);
	FRESH();
	put16(b + op.l4_off + 2, 4792);
	EXPECT(b, n, false, DPV_ROCE_RX_UDP_PORT);
	FRESH();
	put16(b + op.l4_off + 6, 0x1234);
	EXPECT(b, n, false, DPV_ROCE_RX_UDP_CSUM);
	/* a correct non-zero UDP checksum is accepted (and not in the ICRC) */
	FRESH();
	{
		struct rte_udp_hdr *u = (void *)(b + op.l4_off);
		uint16_t ck = op.ipv6 ? rte_ipv6_udptcp_cksum((void *)l3, u)
				      : rte_ipv4_udptcp_cksum((void *)l3, u);

		u->dgram_cksum = ck;
		EXPECT(b, n, false, DPV_ROCE_RX_OK);
	}
	/* too short for BTH + ICRC */
	FRESH();
	adjust_lengths(b, -(int)(n - op.bth_off) + 15);
	EXPECT(b, op.bth_off + 15, true, DPV_ROCE_RX_TRUNC_BTH);
	/* BTH */
	FRESH();
	bth[1] |= 0x01;
	EXPECT(b, n, false, DPV_ROCE_RX_TVER);
	FRESH();
	bth[0] = 0x15; /* RC reserved */
	EXPECT(b, n, false, DPV_ROCE_RX_OPCODE);
	bth[0] = 0x44; /* RD SEND_ONLY: RD not supported */
	EXPECT(b, n, false, DPV_ROCE_RX_OPCODE);
	bth[0] = 0x66; /* UD other than send */
	EXPECT(b, n, false, DPV_ROCE_RX_OPCODE);
	bth[0] = 0xff;
	EXPECT(b, n, false, DPV_ROCE_RX_OPCODE);
	/* an opcode needing more header than the packet has */
	FRESH();
	if (dpv_roce_opcode(op.opcode)->length + 4 + op.payload_len + op.pad <
	    12 + 28 + 4) {
		bth[0] = DPV_ROCE_OP_CMP_SWAP;
		EXPECT(b, n, false, DPV_ROCE_RX_TRUNC_EXT);
	}
	/* payload on an opcode without one */
	FRESH();
	if (op.payload_len >= 16) {
		bth[0] = DPV_ROCE_OP_ACK;
		EXPECT(b, n, false, DPV_ROCE_RX_PAYLOAD_LEN);
	}
	/* 2 extra bytes: not a multiple of 4 */
	FRESH();
	memcpy(b + n + 2, b + n - 4, 4);
	adjust_lengths(b, 2);
	EXPECT(b, n + 2, true, DPV_ROCE_RX_PAYLOAD_LEN);
	/* pad count */
	FRESH();
	bth[1] = (uint8_t)((bth[1] & ~0x30) | 0x10);
	if (!(op.mask & DPV_OPF_PAYLOAD) || !(op.mask & DPV_OPF_LAST) ||
	    op.payload_len == 0) {
		EXPECT(b, n, false, DPV_ROCE_RX_PAD);
	} else {
		/* allowed here, so only the ICRC can tell */
		EXPECT(b, n, false, DPV_ROCE_RX_ICRC);
	}
	/* ICRC */
	FRESH();
	b[n - 1] ^= 0x80;
	EXPECT(b, n, false, DPV_ROCE_RX_ICRC);
	FRESH();
	b[n - 5] ^= 0x01;
	EXPECT(b, n, false, DPV_ROCE_RX_ICRC);
	return TEST_SUCCESS;
}

/* Flip one bit of every byte of the frame in turn (fixing the IPv4
 * header checksum): only the variant fields may still parse. */
static bool
is_variant(uint32_t k)
{
	uint32_t r;

	if (k < 12)
		return true; /* MAC addresses are not covered by the ICRC */
	if (k >= op.l3_off && k < op.l4_off) {
		r = k - op.l3_off;
		if (op.ipv6)
			return r == 1 || r == 2 || r == 3 || r == 7;
		return r == 1 || r == 8;
	}
	return k == op.bth_off + 4u; /* FECN/BECN/resv: bit 0 flipped */
}

static int
flip_every_byte(unsigned i)
{
	static uint8_t b[TEST_ROCE_MAX_FRAME];
	uint32_t k;

	for (k = 0; k < orig_len; k++) {
		enum dpv_roce_rx_status st;
		uint8_t bit = 0x01;

		if (op.ipv6 && k == op.l3_off)
			bit = 0x01; /* traffic class low bit of byte 0 */
		if (!op.ipv6 && k >= op.l3_off + 10u && k < op.l3_off + 12u)
			continue; /* the checksum itself: fixed below anyway */
		memcpy(b, orig, orig_len);
		b[k] ^= bit;
		st = parse_copy(b, orig_len, true);
		if (is_variant(k) || (op.ipv6 && k == op.l3_off))
			TEST_ASSERT_EQUAL(st, DPV_ROCE_RX_OK,
					  "%s byte %u is a variant field",
					  samples[i].file, k);
		else
			TEST_ASSERT_NOT_EQUAL(st, DPV_ROCE_RX_OK,
					      "%s byte %u flipped, accepted",
					      samples[i].file, k);
	}
	return TEST_SUCCESS;
}

static int
test_mutations(void)
{
	unsigned i;

	for (i = 0; i < RTE_DIM(samples); i++) {
		TEST_ASSERT_EQUAL(load_sample(i), 0, "sample %s opcode %u",
				  samples[i].file, samples[i].opcode);
		if (mutate_one(i) != TEST_SUCCESS)
			return TEST_FAILED;
		if (flip_every_byte(i) != TEST_SUCCESS)
			return TEST_FAILED;
	}
	return TEST_SUCCESS;
}

/* IPv4 options: accepted, skipped, and covered by the ICRC. */
static int
test_ipv4_options(void)
{
	static uint8_t b[TEST_ROCE_MAX_FRAME];
	struct dpv_roce_pkt p;
	uint32_t n, l3len;
	unsigned i = 0;
	int m;

	TEST_ASSERT_EQUAL(load_sample(0), 0, "sample");
	TEST_ASSERT(!op.ipv6, "an IPv4 sample");
	memcpy(b, orig, op.l3_off + 20);
	memset(b + op.l3_off + 20, 0x01, 8); /* two words of NOP options */
	memcpy(b + op.l3_off + 28, orig + op.l4_off, orig_len - op.l4_off);
	n = orig_len + 8;
	b[op.l3_off] = 0x47;
	put16(b + op.l3_off + 2, (uint16_t)(n - op.l3_off));
	l3len = n - op.l3_off;
	test_roce_fix_ipv4_csum(b, op.l3_off);
	dpv_roce_icrc_set(b + op.l3_off, l3len);
	for (m = 0; m < DPV_ROCE_ICRC_METHOD_NUM; m++)
		TEST_ASSERT_EQUAL(
			dpv_roce_icrc_calc_method(m, b + op.l3_off, l3len),
			dpv_roce_icrc_get(b + op.l3_off, l3len), "method %d",
			m);
	EXPECT(b, n, false, DPV_ROCE_RX_OK);
	TEST_ASSERT_EQUAL(dpv_roce_parse(b, n, 0, &p), 0, "parse");
	TEST_ASSERT_EQUAL(p.l4_off, op.l4_off + 8, "UDP after the options");
	TEST_ASSERT_EQUAL(p.payload_len, op.payload_len, "payload");
	TEST_ASSERT(memcmp(p.payload, op.payload, p.payload_len) == 0, "");
	b[op.l3_off + 21] ^= 2; /* an option byte */
	EXPECT(b, n, true, DPV_ROCE_RX_ICRC);
	return TEST_SUCCESS;
}

/* Status names and descriptions are complete and distinct. */
static int
test_status_names(void)
{
	unsigned s, t;

	for (s = 0; s < DPV_ROCE_RX_STATUS_NUM; s++) {
		const char *n = dpv_roce_rx_status_name(s);

		TEST_ASSERT(n != NULL && *n != '\0', "name %u", s);
		TEST_ASSERT(strcmp(dpv_roce_rx_status_str(s), "unknown") != 0,
			    "description %u", s);
		for (t = 0; t < s; t++)
			TEST_ASSERT(strcmp(n, dpv_roce_rx_status_name(t)) != 0,
				    "duplicate %s", n);
	}
	TEST_ASSERT_EQUAL(DPV_ROCE_RX_OK, 0, "ok is 0");
	TEST_ASSERT(strcmp(dpv_roce_rx_status_name(DPV_ROCE_RX_ICRC), "icrc") ==
			    0,
		    "icrc name");
	TEST_ASSERT(strcmp(dpv_roce_rx_status_name(DPV_ROCE_RX_STATUS_NUM),
			   "unknown") == 0,
		    "out of range");
	return TEST_SUCCESS;
}

static const struct dpv_test_suite mut_suite = {
	.name = "roce_mutations",
	.setup = test_roce_captures_setup,
	.cases =
		{
			TEST_CASE(test_mutations),
			TEST_CASE(test_ipv4_options),
			TEST_CASE(test_status_names),
			TEST_CASES_END(),
		},
};

static int
roce_mutations_autotest(void)
{
	return dpv_test_run_suite(&mut_suite);
}

DPV_TEST_REGISTER_FAST(roce_mutations_autotest, roce_mutations_autotest);
