/* SPDX-License-Identifier: BSD-3-Clause */
/* GID <-> IP/MAC helpers and the UDP source-port rule of lib/roce. */
#include <arpa/inet.h>

#include "dpv_test.h"
#include "dpv_roce_gid.h"

static int
test_gid_ipv4(void)
{
	static const uint8_t want[16] = {0, 0, 0,    0,	   0,	0, 0, 0,
					 0, 0, 0xff, 0xff, 192, 0, 2, 11};
	uint8_t gid[16];
	uint8_t ip6[16];
	uint32_t ip;

	memset(gid, 0xaa, sizeof(gid));
	TEST_ASSERT_EQUAL(inet_pton(AF_INET, "192.0.2.11", &ip), 1, "pton");
	dpv_roce_gid_from_ipv4(gid, ip);
	TEST_ASSERT_BUFFERS_EQUAL(gid, want, 16, "::ffff:192.0.2.11");
	TEST_ASSERT(dpv_roce_gid_is_ipv4(gid), "mapped gid not ipv4");
	TEST_ASSERT_EQUAL(dpv_roce_gid_to_ipv4(gid), ip, "round trip");
	TEST_ASSERT_EQUAL(ntohl(dpv_roce_gid_to_ipv4(gid)), 0xc000020b,
			  "order");

	TEST_ASSERT_EQUAL(inet_pton(AF_INET6, "2001:db8::ffff:c000:20b", ip6),
			  1, "pton6");
	dpv_roce_gid_from_ipv6(gid, ip6);
	TEST_ASSERT_BUFFERS_EQUAL(gid, ip6, 16, "ipv6 copy");
	TEST_ASSERT(!dpv_roce_gid_is_ipv4(gid), "2001:db8:: is not mapped");
	memcpy(gid, want, 16);
	gid[9] = 1;
	TEST_ASSERT(!dpv_roce_gid_is_ipv4(gid), "byte 9 must be zero");
	memcpy(gid, want, 16);
	gid[11] = 0xfe;
	TEST_ASSERT(!dpv_roce_gid_is_ipv4(gid), "byte 11 must be 0xff");
	return TEST_SUCCESS;
}

static int
test_gid_mac(void)
{
	/* the capture README's client: 52:54:00:00:02:0c */
	static const uint8_t mac[6] = {0x52, 0x54, 0x00, 0x00, 0x02, 0x0c};
	static const uint8_t mac2[6] = {0x00, 0x11, 0x22, 0x33, 0x44, 0x55};
	uint8_t gid[16], want[16];

	TEST_ASSERT_EQUAL(inet_pton(AF_INET6, "fe80::5054:ff:fe00:20c", want),
			  1, "pton");
	memset(gid, 0x55, sizeof(gid));
	dpv_roce_gid_from_mac(gid, mac);
	TEST_ASSERT_BUFFERS_EQUAL(gid, want, 16, "link-local of 52:54:..:0c");
	TEST_ASSERT(!dpv_roce_gid_is_ipv4(gid), "link-local is not ipv4");

	TEST_ASSERT_EQUAL(inet_pton(AF_INET6, "fe80::211:22ff:fe33:4455", want),
			  1, "");
	dpv_roce_gid_from_mac(gid, mac2);
	TEST_ASSERT_BUFFERS_EQUAL(gid, want, 16, "U/L bit set on 00:..");
	return TEST_SUCCESS;
}

static int
test_udp_sport(void)
{
	/* (QPN, source port) pairs seen in the rxe captures: RC and UC QPs
	 * use the flow-label rule (both ends had the same QPN), the UD QP
	 * rxe's own hash of its QPN. */
	static const struct {
		uint32_t qpn;
		uint16_t port;
	} rc[] = {
		{0x11, 49441}, {0x12, 49476}, {0x13, 49513}, {0x14, 49552},
		{0x16, 49636}, {0x17, 49681}, {0x18, 49728}, {0x19, 49777},
		{0x1a, 49828}, {0x1b, 49881}, {0x1c, 49936}, {0x1d, 49993},
		{0x1e, 50052}, {0x1f, 50113},
	};
	uint32_t a, b;
	unsigned i;

	for (i = 0; i < sizeof(rc) / sizeof(rc[0]); i++)
		TEST_ASSERT_EQUAL(dpv_roce_udp_sport(rc[i].qpn, rc[i].qpn),
				  rc[i].port, "qpn 0x%x", rc[i].qpn);
	TEST_ASSERT_EQUAL(dpv_roce_udp_sport_rxe(0x15), 49500, "ud qpn 0x15");

	/* range, determinism and symmetry over a spread of QPN pairs */
	for (a = 1; a < 0x1000000; a = a * 7 + 3) {
		for (b = 1; b < 0x1000000; b = b * 13 + 1) {
			uint16_t p = dpv_roce_udp_sport(a, b);

			TEST_ASSERT(p >= 0xc000, "port 0x%x < 0xc000", p);
			TEST_ASSERT_EQUAL(p, dpv_roce_udp_sport(a, b),
					  "stable");
			TEST_ASSERT_EQUAL(p, dpv_roce_udp_sport(b, a),
					  "symmetric");
			TEST_ASSERT(dpv_roce_flow_label(a, b) <= 0xfffff, "fl");
		}
		TEST_ASSERT(dpv_roce_udp_sport_rxe(a) >= 0xc000, "rxe range");
	}
	return TEST_SUCCESS;
}

static const struct dpv_test_suite gid_suite = {
	.name = "roce_gid",
	.cases =
		{
			TEST_CASE(test_gid_ipv4),
			TEST_CASE(test_gid_mac),
			TEST_CASE(test_udp_sport),
			TEST_CASES_END(),
		},
};

static int
roce_gid_autotest(void)
{
	return dpv_test_run_suite(&gid_suite);
}

DPV_TEST_REGISTER_FAST(roce_gid_autotest, roce_gid_autotest);
