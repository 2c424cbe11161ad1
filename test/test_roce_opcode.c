/* SPDX-License-Identifier: BSD-3-Clause */
/* The opcode table's consistency, the header accessors, and builder ->
 * parser round trips for every valid opcode. */
#include <errno.h>

#include "dpv_test.h"
#include "dpv_roce.h"
#include "test_roce_util.h"

static int
test_opcode_table(void)
{
	unsigned op, h, valid = 0, ntr[8] = {0};
	const uint32_t tr_bits = DPV_OPF_RC | DPV_OPF_UC | DPV_OPF_UD |
				 DPV_OPF_XRC | DPV_OPF_CNP;

	for (op = 0; op < 256; op++) {
		const struct dpv_roce_opcode_info *oi = dpv_roce_opcode(op);
		uint32_t m = oi->mask, off = 12;
		/* DC has no transport bit (none is left in the mask) */
		bool dc = (op & 0xe0) == DPV_ROCE_TR_DC;

		if (!(m & DPV_OPF_VALID)) {
			TEST_ASSERT_EQUAL(m, 0, "invalid %u has bits", op);
			TEST_ASSERT(strcmp(dpv_roce_opcode_name(op),
					   "INVALID") == 0,
				    "name of %u", op);
			continue;
		}
		valid++;
		ntr[op >> 5]++;
		TEST_ASSERT(__builtin_popcount(m & tr_bits) == (dc ? 0 : 1),
			    "%s: one transport", oi->name);
		for (h = 0; h < DPV_HDR_NUM; h++) {
			if (!(m & (1u << h)))
				continue;
			TEST_ASSERT_EQUAL(oi->off[h], off, "%s hdr %u",
					  oi->name, h);
			off += dpv_roce_hdr_size[h];
		}
		TEST_ASSERT_EQUAL(oi->length, off, "%s length", oi->name);
		if (m & DPV_OPF_CNP)
			continue;
		TEST_ASSERT(!!(m & DPV_OPF_REQ) != !!(m & DPV_OPF_RESP),
			    "%s: request xor response", oi->name);
		TEST_ASSERT(!(m & DPV_OPF_MIDDLE) ||
				    !(m & (DPV_OPF_FIRST | DPV_OPF_LAST)),
			    "%s: middle", oi->name);
		TEST_ASSERT(m & (DPV_OPF_FIRST | DPV_OPF_MIDDLE | DPV_OPF_LAST),
			    "%s: position", oi->name);
		TEST_ASSERT(__builtin_popcount(
				    m & (DPV_OPF_SEND | DPV_OPF_WRITE |
					 DPV_OPF_READ | DPV_OPF_ATOMIC |
					 DPV_OPF_READ_RESP | DPV_OPF_ACK |
					 DPV_OPF_ATOMIC_ACK)) == 1,
			    "%s: one operation", oi->name);
		/* receive WQEs: SEND first/only and WRITE with immediate */
		TEST_ASSERT_EQUAL(
			!!(m & DPV_OPF_RWR),
			((m & DPV_OPF_SEND) && (m & DPV_OPF_FIRST)) ||
				((m & DPV_OPF_WRITE) && (m & DPV_OPF_IMMDT)),
			"%s: rwr", oi->name);
		TEST_ASSERT_EQUAL(!!(m & DPV_OPF_RECV_COMP),
				  (m & (DPV_OPF_SEND | DPV_OPF_RWR)) &&
					  (m & DPV_OPF_LAST),
				  "%s: recv completion", oi->name);
		TEST_ASSERT_EQUAL(!!(m & DPV_OPF_ACKREQ),
				  (dc || (m & (DPV_OPF_RC | DPV_OPF_XRC))) &&
					  (m & DPV_OPF_REQ) &&
					  (m & DPV_OPF_LAST),
				  "%s: ackreq", oi->name);
		TEST_ASSERT_EQUAL(!!(m & DPV_OPF_XRCETH),
				  (m & DPV_OPF_XRC) && (m & DPV_OPF_REQ),
				  "%s: xrceth", oi->name);
		TEST_ASSERT_EQUAL(!!(m & DPV_OPF_DCETH),
				  dc && (m & DPV_OPF_REQ), "%s: dceth",
				  oi->name);
		TEST_ASSERT_EQUAL(!!(m & DPV_OPF_PAYLOAD),
				  !!(m & (DPV_OPF_SEND | DPV_OPF_WRITE |
					  DPV_OPF_READ_RESP)) ||
					  dpv_roce_op_atomic_write(m),
				  "%s: payload", oi->name);
		TEST_ASSERT(strncmp(oi->name,
				    (const char *[]){"RC_", "UC_", "RD_", "UD_",
						     "CNP", "XRC_", "?",
						     "DC_"}[op >> 5],
				    3) == 0,
			    "%s: prefix", oi->name);
	}
	/* RC has ATOMIC WRITE too */
	TEST_ASSERT_EQUAL(valid, 24 + 12 + 2 + 1 + 23 + 23, "valid opcodes");
	TEST_ASSERT_EQUAL(ntr[7], 23, "DC");
	/* DC requests: the 16-byte DCETH right after the BTH */
	TEST_ASSERT_EQUAL(dpv_roce_opcode(0xe6)->off[DPV_HDR_DCETH], 12, "");
	TEST_ASSERT_EQUAL(dpv_roce_opcode(0xe6)->off[DPV_HDR_RETH], 28, "");
	TEST_ASSERT_EQUAL(dpv_roce_opcode(0xf1)->length, 16, "DC ACK");
	TEST_ASSERT_EQUAL(ntr[0], 24, "RC");
	TEST_ASSERT_EQUAL(ntr[1], 12, "UC");
	TEST_ASSERT_EQUAL(ntr[2], 0, "RD");
	TEST_ASSERT_EQUAL(ntr[3], 2, "UD");
	/* spot checks against the IBA header tables */
	TEST_ASSERT_EQUAL(dpv_roce_opcode(0x0b)->off[DPV_HDR_IMMDT], 28, "");
	TEST_ASSERT_EQUAL(dpv_roce_opcode(0x0b)->length, 32, "");
	TEST_ASSERT_EQUAL(dpv_roce_opcode(0x65)->off[DPV_HDR_IMMDT], 20, "");
	TEST_ASSERT_EQUAL(dpv_roce_opcode(0x12)->off[DPV_HDR_ATMACK], 16, "");
	TEST_ASSERT_EQUAL(dpv_roce_opcode(0x13)->length, 40, "");
	TEST_ASSERT_EQUAL(dpv_roce_opcode(0xa6)->off[DPV_HDR_RETH], 16, "");
	TEST_ASSERT_EQUAL(dpv_roce_opcode(0x81)->length, 28, "CNP");
	/* ATOMIC WRITE: BTH and RETH, then its 8 bytes */
	TEST_ASSERT_EQUAL(dpv_roce_opcode(0x1d)->off[DPV_HDR_RETH], 12, "");
	TEST_ASSERT_EQUAL(dpv_roce_opcode(0x1d)->length, 28, "");
	TEST_ASSERT(
		dpv_roce_op_atomic_write(dpv_roce_opcode(0x1d)->mask) &&
			!dpv_roce_op_atomic_write(
				dpv_roce_opcode(0x13)->mask) &&
			!dpv_roce_op_atomic_write(dpv_roce_opcode(0x0a)->mask),
		"atomic write flags");
	TEST_ASSERT(strcmp(dpv_roce_opcode_name(0x11), "RC_ACKNOWLEDGE") == 0,
		    "name");
	return TEST_SUCCESS;
}

static int
test_accessors(void)
{
	uint8_t b[12];
	struct dpv_bth *bth = (void *)b;
	struct dpv_aeth aeth;
	struct dpv_deth deth;

	memset(b, 0, sizeof(b));
	dpv_bth_set_opcode(bth, 0x0a);
	dpv_bth_set_se(bth, true);
	dpv_bth_set_pad(bth, 3);
	dpv_bth_set_tver(bth, 0);
	dpv_bth_set_pkey(bth, 0xffff);
	dpv_bth_set_becn(bth, true);
	dpv_bth_set_qpn(bth, 0x123456);
	dpv_bth_set_ackreq(bth, true);
	dpv_bth_set_psn(bth, 0xabcdef);
	{
		static const uint8_t want[12] = {0x0a, 0xb0, 0xff, 0xff,
						 0x40, 0x12, 0x34, 0x56,
						 0x80, 0xab, 0xcd, 0xef};
		TEST_ASSERT_BUFFERS_EQUAL(b, want, 12, "bth bytes");
	}
	TEST_ASSERT(dpv_bth_se(bth) && !dpv_bth_mig(bth) && dpv_bth_becn(bth) &&
			    !dpv_bth_fecn(bth) && dpv_bth_ackreq(bth),
		    "bits");
	TEST_ASSERT_EQUAL(dpv_bth_pad(bth), 3, "pad");
	TEST_ASSERT_EQUAL(dpv_bth_qpn(bth), 0x123456, "qpn");
	TEST_ASSERT_EQUAL(dpv_bth_psn(bth), 0xabcdef, "psn");
	dpv_bth_set_psn(bth, 0x1000001); /* truncated to 24 bits */
	TEST_ASSERT_EQUAL(dpv_bth_psn(bth), 1, "psn wrap");
	TEST_ASSERT(dpv_bth_ackreq(bth), "ackreq kept");
	dpv_bth_set_qpn(bth, 0);
	TEST_ASSERT(dpv_bth_becn(bth), "becn kept");
	aeth.smsn = 0;
	dpv_aeth_set_syndrome(&aeth, DPV_AETH_NAK | DPV_AETH_NAK_REM_ACC);
	dpv_aeth_set_msn(&aeth, 0xfffffff);
	TEST_ASSERT_EQUAL(dpv_aeth_syndrome(&aeth), 0x62, "syndrome");
	TEST_ASSERT_EQUAL(dpv_aeth_msn(&aeth), 0xffffff, "msn");
	dpv_deth_set_sqp(&deth, 0x1abcdef);
	TEST_ASSERT_EQUAL(dpv_deth_sqp(&deth), 0xabcdef, "sqp");
	TEST_ASSERT(dpv_psn_cmp(1, 0xffffff) > 0, "psn wraps forward");
	TEST_ASSERT(dpv_psn_cmp(0xfffffe, 2) < 0, "psn before");
	TEST_ASSERT_EQUAL(dpv_psn_add(0xffffff, 2), 1, "psn add");
	return TEST_SUCCESS;
}

/* Build every valid opcode over IPv4/IPv6, with and without VLAN and for
 * several payload sizes; parse it back and rebuild. */
static int
test_build_parse_all(void)
{
	static const uint32_t lens[] = {0, 1, 2, 3, 4, 5, 255, 1024, 4096};
	static uint8_t payload[4096], f1[4300], f2[4300];
	uint64_t st = 2024;
	unsigned op, li, v, n_built = 0;

	for (li = 0; li < sizeof(payload); li++)
		payload[li] = (uint8_t)(li * 7 + 1);
	for (op = 0; op < 256; op++) {
		const struct dpv_roce_opcode_info *oi = dpv_roce_opcode(op);

		if (!(oi->mask & DPV_OPF_VALID))
			continue;
		for (v = 0; v < 4; v++) {
			for (li = 0; li < RTE_DIM(lens); li++) {
				struct dpv_roce_pkt p, q;
				int n;

				test_roce_random_pkt(&p, &st, (uint8_t)op,
						     v & 1, payload, lens[li]);
				p.vlan = v & 2;
				n = dpv_roce_build(f1, sizeof(f1), &p);
				if ((p.payload_len & 3) &&
				    !(oi->mask & DPV_OPF_LAST)) {
					TEST_ASSERT_EQUAL(n, -EINVAL, "%s: pad",
							  oi->name);
					continue;
				}
				TEST_ASSERT(n > 0, "%s build", oi->name);
				TEST_ASSERT_EQUAL(n, dpv_roce_frame_len(&p),
						  "frame len");
				TEST_ASSERT_EQUAL(dpv_roce_parse(f1, n, 0, &q),
						  DPV_ROCE_RX_OK,
						  "%s v%u len %u", oi->name, v,
						  lens[li]);
				TEST_ASSERT_EQUAL(q.payload_len, p.payload_len,
						  "payload len");
				TEST_ASSERT(p.payload_len == 0 ||
						    memcmp(q.payload, payload,
							   p.payload_len) == 0,
					    "payload");
				TEST_ASSERT_EQUAL(q.dqpn, p.dqpn, "qpn");
				TEST_ASSERT_EQUAL(q.psn, p.psn, "psn");
				TEST_ASSERT_EQUAL(q.vlan_tci,
						  p.vlan ? p.vlan_tci : 0,
						  "tci");
				TEST_ASSERT_EQUAL(q.icrc, p.icrc, "icrc");
				TEST_ASSERT(memcmp(q.sgid, p.sgid, 16) == 0,
					    "sgid");
				if (oi->mask & DPV_OPF_RETH)
					TEST_ASSERT(q.reth.va == p.reth.va &&
							    q.reth.len ==
								    p.reth.len,
						    "reth");
				if (oi->mask & DPV_OPF_ATMETH)
					TEST_ASSERT(q.atmeth.compare ==
							    p.atmeth.compare,
						    "atmeth");
				if (oi->mask & DPV_OPF_IMMDT)
					TEST_ASSERT(q.imm == p.imm, "imm");
				n = dpv_roce_build(f2, sizeof(f2), &q);
				TEST_ASSERT_EQUAL(n, q.frame_len, "rebuild");
				TEST_ASSERT_BUFFERS_EQUAL(f1, f2, n, "%s",
							  oi->name);
				n_built++;
				if (!(oi->mask & DPV_OPF_PAYLOAD))
					break;
			}
		}
	}
	TEST_ASSERT(n_built > 1000, "built %u", n_built);
	return TEST_SUCCESS;
}

static int
test_build_errors(void)
{
	static uint8_t buf[256], pl[64];
	struct dpv_roce_pkt p;
	uint64_t st = 5;

	test_roce_random_pkt(&p, &st, DPV_ROCE_OP_SEND_ONLY, false, pl, 64);
	p.vlan = false;
	p.opcode = 0x15;
	TEST_ASSERT_EQUAL(dpv_roce_build(buf, sizeof(buf), &p), -EINVAL,
			  "invalid opcode");
	TEST_ASSERT_EQUAL(dpv_roce_frame_len(&p), 0, "invalid opcode len");
	p.opcode = DPV_ROCE_OP_ACK;
	TEST_ASSERT_EQUAL(dpv_roce_build(buf, sizeof(buf), &p), -EINVAL,
			  "payload on ACK");
	p.opcode = DPV_ROCE_OP_SEND_ONLY;
	TEST_ASSERT_EQUAL(dpv_roce_build(buf, 100, &p), -ENOSPC, "small");
	p.payload_len = 70000;
	TEST_ASSERT_EQUAL(dpv_roce_build(buf, sizeof(buf), &p), -EINVAL,
			  "too long for IP");
	p.payload_len = 64;
	TEST_ASSERT_EQUAL(dpv_roce_build(buf, sizeof(buf), &p), 122, "ok");
	return TEST_SUCCESS;
}

static const struct dpv_test_suite opcode_suite = {
	.name = "roce_opcode",
	.cases =
		{
			TEST_CASE(test_opcode_table),
			TEST_CASE(test_accessors),
			TEST_CASE(test_build_parse_all),
			TEST_CASE(test_build_errors),
			TEST_CASES_END(),
		},
};

static int
roce_opcode_autotest(void)
{
	return dpv_test_run_suite(&opcode_suite);
}

DPV_TEST_REGISTER_FAST(roce_opcode_autotest, roce_opcode_autotest);
