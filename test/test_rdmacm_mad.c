/* SPDX-License-Identifier: BSD-3-Clause */
/* librdmacm's CM MADs: byte positions against the IBTA message tables
 * (REQ, REP, REJ, MRA, DREQ, SIDR), build -> parse round trips, the
 * IP CM service annex header, and what the parser refuses. */
#include <errno.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include "dpv_test.h"
#include "cm_mad.h"

static const uint8_t gid_a[16] = {0, 0, 0,    0,    0,	 0, 0, 0,
				  0, 0, 0xff, 0xff, 192, 0, 2, 2};
static const uint8_t gid_b[16] = {0, 0, 0,    0,    0,	 0, 0, 0,
				  0, 0, 0xff, 0xff, 192, 0, 2, 1};

static uint32_t
be32_at(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | p[2] << 8 | p[3];
}

static int
test_req_layout(void)
{
	uint8_t mad[CM_MAD_LEN];
	struct cm_msg m, r;

	memset(&m, 0, sizeof(m));
	m.attr = CM_ATTR_REQ;
	m.tid = 0x1122334455667788ull;
	m.local_id = 0xa1b2c3d4;
	m.service_id = cm_service_id(0x0106, 7777);
	m.ca_guid = 0x0102030405060708ull;
	m.qpn = 0x123456;
	m.resp_res = 3;
	m.init_depth = 4;
	m.remote_cm_timeout = 20;
	m.local_cm_timeout = 18;
	m.transport = 1;
	m.psn = 0xabcdef;
	m.retry_count = 6;
	m.rnr_retry = 5;
	m.mtu = 3;
	m.max_cm_retries = 15;
	m.srq = true;
	m.pkey = 0xffff;
	memcpy(m.sgid, gid_a, 16);
	memcpy(m.dgid, gid_b, 16);
	m.traffic_class = 0x28;
	m.hop_limit = 64;
	m.ack_timeout = 17;
	m.pdata[0] = 0x5a;
	m.pdata[91] = 0xa5;
	m.pdata_len = CM_REQ_PDATA;
	TEST_ASSERT_EQUAL(cm_mad_build(mad, &m), 0, "build");

	/* MAD header (13.4.3) */
	TEST_ASSERT(mad[0] == 1 && mad[1] == 0x07 && mad[2] == 2 &&
			    mad[3] == 0x03,
		    "version/class/method %02x %02x %02x %02x", mad[0], mad[1],
		    mad[2], mad[3]);
	TEST_ASSERT_EQUAL(be32_at(mad + 8), 0x11223344u, "TID high");
	TEST_ASSERT(mad[16] == 0x00 && mad[17] == 0x10, "attribute ID");
	/* REQ (table 99): offsets from the MAD start = 24 + table offset */
	TEST_ASSERT_EQUAL(be32_at(mad + 24), 0xa1b2c3d4u, "local comm ID");
	TEST_ASSERT_EQUAL(be32_at(mad + 32), 0u, "service ID high");
	TEST_ASSERT_EQUAL(be32_at(mad + 36), 0x01061e61u, "service ID low");
	TEST_ASSERT_EQUAL(be32_at(mad + 40), 0x01020304u, "CA GUID");
	TEST_ASSERT_EQUAL(be32_at(mad + 56), 0x12345603u, "QPN, resp res");
	TEST_ASSERT_EQUAL(mad[63], 4, "initiator depth");
	TEST_ASSERT_EQUAL(mad[67], 20 << 3 | 1 << 1 | 1,
			  "remote timeout, UC, flow control");
	TEST_ASSERT_EQUAL(be32_at(mad + 68), 0xabcdef00u | 18 << 3 | 6,
			  "PSN, local timeout, retry count");
	TEST_ASSERT(mad[72] == 0xff && mad[73] == 0xff, "P_Key");
	TEST_ASSERT_EQUAL(mad[74], 3 << 4 | 5, "MTU, RNR retry");
	TEST_ASSERT_EQUAL(mad[75], 15 << 4 | 1 << 3, "max retries, SRQ");
	TEST_ASSERT_EQUAL(be32_at(mad + 76), 0xffffffffu, "permissive LIDs");
	TEST_ASSERT_BUFFERS_EQUAL(mad + 80, gid_a, 16, "local GID");
	TEST_ASSERT_BUFFERS_EQUAL(mad + 96, gid_b, 16, "remote GID");
	TEST_ASSERT_EQUAL(mad[116], 0x28, "traffic class");
	TEST_ASSERT_EQUAL(mad[117], 64, "hop limit");
	TEST_ASSERT_EQUAL(mad[119], 17 << 3, "local ACK timeout");
	TEST_ASSERT(mad[164] == 0x5a && mad[255] == 0xa5, "private data");

	TEST_ASSERT_EQUAL(cm_mad_parse(mad, sizeof(mad), &r), 0, "parse");
	TEST_ASSERT(r.attr == m.attr && r.tid == m.tid &&
			    r.local_id == m.local_id && r.remote_id == 0 &&
			    r.service_id == m.service_id &&
			    r.ca_guid == m.ca_guid && r.qpn == m.qpn &&
			    r.resp_res == 3 && r.init_depth == 4 &&
			    r.remote_cm_timeout == 20 &&
			    r.local_cm_timeout == 18 && r.transport == 1 &&
			    r.psn == m.psn && r.retry_count == 6 &&
			    r.rnr_retry == 5 && r.mtu == 3 &&
			    r.max_cm_retries == 15 && r.srq &&
			    r.pkey == 0xffff && r.traffic_class == 0x28 &&
			    r.hop_limit == 64 && r.ack_timeout == 17,
		    "REQ round trip");
	TEST_ASSERT(memcmp(r.sgid, gid_a, 16) == 0 &&
			    memcmp(r.dgid, gid_b, 16) == 0,
		    "REQ GIDs");
	TEST_ASSERT(r.pdata_len == CM_REQ_PDATA && r.pdata[0] == 0x5a &&
			    r.pdata[91] == 0xa5,
		    "REQ private data");
	return TEST_SUCCESS;
}

static int
test_reply_layouts(void)
{
	uint8_t mad[CM_MAD_LEN];
	struct cm_msg m, r;

	/* REP (table 103) */
	memset(&m, 0, sizeof(m));
	m.attr = CM_ATTR_REP;
	m.local_id = 0x01020304;
	m.remote_id = 0x05060708;
	m.qkey = 0x11111111;
	m.qpn = 0x000102;
	m.psn = 0x0a0b0c;
	m.resp_res = 1;
	m.init_depth = 2;
	m.target_ack_delay = 15;
	m.rnr_retry = 7;
	m.srq = true;
	m.ca_guid = 0xfeedull;
	m.pdata[195] = 0x77;
	m.pdata_len = CM_REP_PDATA;
	TEST_ASSERT_EQUAL(cm_mad_build(mad, &m), 0, "REP build");
	TEST_ASSERT_EQUAL(be32_at(mad + 24), 0x01020304u, "REP local ID");
	TEST_ASSERT_EQUAL(be32_at(mad + 28), 0x05060708u, "REP remote ID");
	TEST_ASSERT_EQUAL(be32_at(mad + 32), 0x11111111u, "REP Q_Key");
	TEST_ASSERT_EQUAL(be32_at(mad + 36), 0x00010200u, "REP QPN");
	TEST_ASSERT_EQUAL(be32_at(mad + 44), 0x0a0b0c00u, "REP PSN");
	TEST_ASSERT(mad[48] == 1 && mad[49] == 2, "REP resources");
	TEST_ASSERT_EQUAL(mad[50], 15 << 3 | 1, "REP ACK delay");
	TEST_ASSERT_EQUAL(mad[51], 7 << 5 | 1 << 4, "REP RNR retry, SRQ");
	TEST_ASSERT_EQUAL(be32_at(mad + 56), 0xfeedu, "REP CA GUID");
	TEST_ASSERT_EQUAL(mad[255], 0x77, "REP private data end");
	TEST_ASSERT_EQUAL(cm_mad_parse(mad, sizeof(mad), &r), 0, "REP parse");
	TEST_ASSERT(r.local_id == m.local_id && r.remote_id == m.remote_id &&
			    r.qkey == m.qkey && r.qpn == m.qpn &&
			    r.psn == m.psn && r.resp_res == 1 &&
			    r.init_depth == 2 && r.target_ack_delay == 15 &&
			    r.rnr_retry == 7 && r.srq && r.ca_guid == 0xfeed,
		    "REP round trip");

	/* REJ (table 100) */
	memset(&m, 0, sizeof(m));
	m.attr = CM_ATTR_REJ;
	m.local_id = 1;
	m.remote_id = 2;
	m.msg_ref = 1;
	m.reason = CM_REJ_CONSUMER;
	m.pdata[0] = 0x42;
	m.pdata_len = 1;
	TEST_ASSERT_EQUAL(cm_mad_build(mad, &m), 0, "REJ build");
	TEST_ASSERT_EQUAL(mad[17], 0x12, "REJ attribute");
	TEST_ASSERT_EQUAL(mad[32], 1 << 6, "REJ message rejected");
	TEST_ASSERT(mad[34] == 0 && mad[35] == 28, "REJ reason");
	TEST_ASSERT_EQUAL(mad[108], 0x42, "REJ private data");
	TEST_ASSERT_EQUAL(cm_mad_parse(mad, sizeof(mad), &r), 0, "REJ parse");
	TEST_ASSERT(r.reason == 28 && r.msg_ref == 1 && r.remote_id == 2 &&
			    r.pdata_len == CM_REJ_PDATA && r.pdata[0] == 0x42,
		    "REJ round trip");

	/* MRA (table 102), DREQ (table 105), RTU, DREP */
	memset(&m, 0, sizeof(m));
	m.attr = CM_ATTR_MRA;
	m.msg_ref = 0;
	m.mra_timeout = 20;
	TEST_ASSERT_EQUAL(cm_mad_build(mad, &m), 0, "MRA build");
	TEST_ASSERT_EQUAL(mad[33], 20 << 3, "MRA service timeout");
	TEST_ASSERT_EQUAL(cm_mad_parse(mad, sizeof(mad), &r), 0, "MRA parse");
	TEST_ASSERT_EQUAL(r.mra_timeout, 20, "MRA round trip");
	m.attr = CM_ATTR_DREQ;
	m.qpn = 0xabcdef;
	TEST_ASSERT_EQUAL(cm_mad_build(mad, &m), 0, "DREQ build");
	TEST_ASSERT_EQUAL(be32_at(mad + 32), 0xabcdef00u, "DREQ QPN");
	TEST_ASSERT_EQUAL(cm_mad_parse(mad, sizeof(mad), &r), 0, "DREQ parse");
	TEST_ASSERT_EQUAL(r.qpn, 0xabcdefu, "DREQ round trip");
	m.attr = CM_ATTR_RTU;
	TEST_ASSERT_EQUAL(cm_mad_build(mad, &m), 0, "RTU build");
	TEST_ASSERT_EQUAL(mad[17], 0x14, "RTU attribute");
	m.attr = CM_ATTR_DREP;
	TEST_ASSERT_EQUAL(cm_mad_build(mad, &m), 0, "DREP build");
	TEST_ASSERT_EQUAL(mad[17], 0x16, "DREP attribute");
	return TEST_SUCCESS;
}

static int
test_sidr(void)
{
	uint8_t mad[CM_MAD_LEN];
	struct cm_msg m, r;

	memset(&m, 0, sizeof(m));
	m.attr = CM_ATTR_SIDR_REQ;
	m.local_id = 0x0badcafe;
	m.pkey = 0xffff;
	m.service_id = cm_service_id(0x0111, 7174);
	TEST_ASSERT_EQUAL(cm_mad_build(mad, &m), 0, "SIDR_REQ build");
	TEST_ASSERT_EQUAL(be32_at(mad + 24), 0x0badcafeu, "request ID");
	TEST_ASSERT(mad[28] == 0xff && mad[29] == 0xff, "P_Key");
	TEST_ASSERT_EQUAL(be32_at(mad + 36), 0x01111c06u, "service ID");
	TEST_ASSERT_EQUAL(cm_mad_parse(mad, sizeof(mad), &r), 0, "parse");
	TEST_ASSERT(r.local_id == m.local_id && r.service_id == m.service_id &&
			    r.pdata_len == CM_SIDR_REQ_PDATA,
		    "SIDR_REQ round trip");

	memset(&m, 0, sizeof(m));
	m.attr = CM_ATTR_SIDR_REP;
	m.local_id = 0x0badcafe;
	m.status = 0;
	m.qpn = 0x000203;
	m.service_id = cm_service_id(0x0111, 7174);
	m.qkey = 0x01234567;
	m.pdata[0] = 9;
	m.pdata_len = 1;
	TEST_ASSERT_EQUAL(cm_mad_build(mad, &m), 0, "SIDR_REP build");
	TEST_ASSERT_EQUAL(be32_at(mad + 32), 0x00020300u, "SIDR_REP QPN");
	TEST_ASSERT_EQUAL(be32_at(mad + 40), 0x01111c06u, "SIDR_REP SID");
	TEST_ASSERT_EQUAL(be32_at(mad + 44), 0x01234567u, "SIDR_REP Q_Key");
	TEST_ASSERT_EQUAL(mad[120], 9, "SIDR_REP private data");
	TEST_ASSERT_EQUAL(cm_mad_parse(mad, sizeof(mad), &r), 0, "parse");
	TEST_ASSERT(r.qpn == m.qpn && r.qkey == m.qkey && r.status == 0 &&
			    r.service_id == m.service_id,
		    "SIDR_REP round trip");
	return TEST_SUCCESS;
}

static int
test_parse_refuses(void)
{
	uint8_t mad[CM_MAD_LEN];
	struct cm_msg m, r;

	memset(&m, 0, sizeof(m));
	m.attr = CM_ATTR_RTU;
	TEST_ASSERT_EQUAL(cm_mad_build(mad, &m), 0, "build");
	TEST_ASSERT_EQUAL(cm_mad_parse(mad, CM_MAD_LEN - 1, &r), -EINVAL,
			  "short");
	mad[1] = 0x01; /* subnet management */
	TEST_ASSERT_EQUAL(cm_mad_parse(mad, sizeof(mad), &r), -EPROTO,
			  "other class");
	mad[1] = 0x07;
	mad[2] = 1;
	TEST_ASSERT_EQUAL(cm_mad_parse(mad, sizeof(mad), &r), -EPROTO,
			  "class version 1");
	mad[2] = 2;
	mad[3] = 0x81; /* a response method */
	TEST_ASSERT_EQUAL(cm_mad_parse(mad, sizeof(mad), &r), -EPROTO,
			  "method");
	mad[3] = 0x03;
	mad[17] = 0x01; /* ClassPortInfo */
	TEST_ASSERT_EQUAL(cm_mad_parse(mad, sizeof(mad), &r), -ENOTSUP,
			  "ClassPortInfo");
	m.attr = 0x001b;
	TEST_ASSERT_EQUAL(cm_mad_build(mad, &m), -EINVAL, "build 0x1b");
	return TEST_SUCCESS;
}

/* ECE (IBA comment 9434, where the kernel's CM puts it): REQ vendor ID
 * in bytes 5-7 of the message, REP vendor ID split over the reserved
 * bytes 15, 19, 23; the options in the MAD header's attribute modifier. */
static int
test_ece_layout(void)
{
	uint8_t mad[CM_MAD_LEN];
	struct cm_msg m, r;

	memset(&m, 0, sizeof(m));
	m.attr = CM_ATTR_REQ;
	m.local_id = 0x11223344;
	m.qpn = 0xabcdef;
	m.ece_vendor = 0x15b3c4;
	m.ece_options = 0x80000003;
	TEST_ASSERT_EQUAL(cm_mad_build(mad, &m), 0, "build REQ");
	TEST_ASSERT_EQUAL(be32_at(mad + 20), 0x80000003u, "REQ attr. modifier");
	TEST_ASSERT_EQUAL(be32_at(mad + 24), 0x11223344u, "local comm ID");
	TEST_ASSERT_EQUAL(be32_at(mad + 28), 0x0015b3c4u, "REQ vendor ID");
	TEST_ASSERT_EQUAL(be32_at(mad + 56) >> 8, 0xabcdefu, "QPN untouched");
	TEST_ASSERT_EQUAL(cm_mad_parse(mad, sizeof(mad), &r), 0, "parse REQ");
	TEST_ASSERT(r.ece_vendor == 0x15b3c4 && r.ece_options == 0x80000003 &&
			    r.local_id == 0x11223344 && r.remote_id == 0,
		    "REQ round trip: vendor 0x%x options 0x%x", r.ece_vendor,
		    r.ece_options);

	memset(&m, 0, sizeof(m));
	m.attr = CM_ATTR_REP;
	m.qpn = 0x123456;
	m.psn = 0x654321;
	m.ece_vendor = 0xa1b2c3;
	m.ece_options = 5;
	TEST_ASSERT_EQUAL(cm_mad_build(mad, &m), 0, "build REP");
	TEST_ASSERT_EQUAL(be32_at(mad + 20), 5u, "REP attr. modifier");
	TEST_ASSERT_EQUAL(be32_at(mad + 36), 0x123456a1u, "QPN, vendor high");
	TEST_ASSERT_EQUAL(be32_at(mad + 40), 0x000000b2u, "EECN, vendor mid");
	TEST_ASSERT_EQUAL(be32_at(mad + 44), 0x654321c3u, "PSN, vendor low");
	TEST_ASSERT_EQUAL(cm_mad_parse(mad, sizeof(mad), &r), 0, "parse REP");
	TEST_ASSERT(r.ece_vendor == 0xa1b2c3 && r.ece_options == 5 &&
			    r.qpn == 0x123456 && r.psn == 0x654321,
		    "REP round trip");
	/* other messages carry no ECE */
	memset(&m, 0, sizeof(m));
	m.attr = CM_ATTR_RTU;
	m.ece_options = 7;
	TEST_ASSERT_EQUAL(cm_mad_build(mad, &m), 0, "build RTU");
	TEST_ASSERT_EQUAL(be32_at(mad + 20), 0u, "RTU attr. modifier");
	return TEST_SUCCESS;
}

/* LAP in, APR out (table 116): status 2 "unsupported" for a connection
 * of ours, 1 "invalid communication ID" otherwise; IDs swapped, the
 * LAP's TID. */
static int
test_lap_apr(void)
{
	uint8_t mad[CM_MAD_LEN];
	struct cm_msg m, r, a;

	memset(&m, 0, sizeof(m));
	m.attr = CM_ATTR_LAP;
	m.tid = 0x0102030405060708ull;
	m.local_id = 0xaaaa0001;
	m.remote_id = 0xbbbb0002;
	m.pdata[0] = 0x77;
	m.pdata_len = CM_LAP_PDATA;
	TEST_ASSERT_EQUAL(cm_mad_build(mad, &m), 0, "build LAP");
	TEST_ASSERT(mad[16] == 0 && mad[17] == 0x19, "LAP attribute ID");
	TEST_ASSERT_EQUAL(mad[88], 0x77, "LAP private data at 64");
	TEST_ASSERT_EQUAL(cm_mad_parse(mad, sizeof(mad), &r), 0, "parse LAP");
	TEST_ASSERT(r.attr == CM_ATTR_LAP && r.local_id == 0xaaaa0001 &&
			    r.remote_id == 0xbbbb0002 &&
			    r.tid == 0x0102030405060708ull &&
			    r.pdata_len == CM_LAP_PDATA && r.pdata[0] == 0x77,
		    "LAP fields");

	cm_lap_answer(&r, true, &a);
	TEST_ASSERT_EQUAL(cm_mad_build(mad, &a), 0, "build APR");
	TEST_ASSERT(mad[16] == 0 && mad[17] == 0x1a, "APR attribute ID");
	TEST_ASSERT_EQUAL(be32_at(mad + 8), 0x01020304u, "APR TID");
	TEST_ASSERT_EQUAL(be32_at(mad + 24), 0xbbbb0002u, "APR local ID");
	TEST_ASSERT_EQUAL(be32_at(mad + 28), 0xaaaa0001u, "APR remote ID");
	TEST_ASSERT_EQUAL(mad[32], 0, "no additional information");
	TEST_ASSERT_EQUAL(mad[33], 2, "AP status: unsupported");
	TEST_ASSERT_EQUAL(cm_mad_parse(mad, sizeof(mad), &r), 0, "parse APR");
	TEST_ASSERT(r.attr == CM_ATTR_APR && r.status == 2 &&
			    r.pdata_len == CM_APR_PDATA,
		    "APR round trip");
	cm_lap_answer(&m, false, &a);
	TEST_ASSERT_EQUAL(cm_mad_build(mad, &a), 0, "build APR");
	TEST_ASSERT_EQUAL(mad[33], 1, "AP status: invalid comm ID");
	TEST_ASSERT(strcmp(cm_attr_str(CM_ATTR_LAP), "LAP") == 0 &&
			    strcmp(cm_attr_str(CM_ATTR_APR), "APR") == 0,
		    "names");
	return TEST_SUCCESS;
}

static int
test_ip_header(void)
{
	struct sockaddr_in s4 = {.sin_family = AF_INET,
				 .sin_port = htons(0xbd97)};
	struct sockaddr_in d4 = {.sin_family = AF_INET,
				 .sin_port = htons(7174)};
	struct sockaddr_in6 s6 = {.sin6_family = AF_INET6,
				  .sin6_port = htons(1234)};
	struct sockaddr_storage a, b;
	uint8_t p[CM_IP_HDR_LEN];
	static const uint8_t want4[CM_IP_HDR_LEN] = {
		0x00, 0x40, 0xbd, 0x97, 0,   0, 0, 0, 0,   0, 0, 0,
		0,    0,    0,	  0,	192, 0, 2, 2, 0,   0, 0, 0,
		0,    0,    0,	  0,	0,   0, 0, 0, 192, 0, 2, 1};

	inet_pton(AF_INET, "192.0.2.2", &s4.sin_addr);
	inet_pton(AF_INET, "192.0.2.1", &d4.sin_addr);
	TEST_ASSERT_EQUAL(cm_ip_hdr_build(p, (void *)&s4, (void *)&d4), 0,
			  "IPv4 build");
	TEST_ASSERT_BUFFERS_EQUAL(p, want4, sizeof(want4), "IPv4 header");
	TEST_ASSERT_EQUAL(cm_ip_hdr_parse(p, &a, &b), 0, "IPv4 parse");
	TEST_ASSERT(a.ss_family == AF_INET &&
			    ((struct sockaddr_in *)&a)->sin_port ==
				    s4.sin_port &&
			    ((struct sockaddr_in *)&a)->sin_addr.s_addr ==
				    s4.sin_addr.s_addr &&
			    ((struct sockaddr_in *)&b)->sin_addr.s_addr ==
				    d4.sin_addr.s_addr,
		    "IPv4 round trip");

	inet_pton(AF_INET6, "2001:db8::2", &s6.sin6_addr);
	TEST_ASSERT_EQUAL(cm_ip_hdr_build(p, (void *)&s6, (void *)&d4),
			  -EAFNOSUPPORT, "mixed families");
	TEST_ASSERT_EQUAL(cm_ip_hdr_build(p, (void *)&s6, (void *)&s6), 0,
			  "IPv6 build");
	TEST_ASSERT_EQUAL(p[1], 0x60, "IP version 6");
	TEST_ASSERT_EQUAL(cm_ip_hdr_parse(p, &a, &b), 0, "IPv6 parse");
	TEST_ASSERT(a.ss_family == AF_INET6 &&
			    memcmp(&((struct sockaddr_in6 *)&a)->sin6_addr,
				   &s6.sin6_addr, 16) == 0,
		    "IPv6 round trip");
	p[0] = 0x10; /* major version 1 */
	TEST_ASSERT_EQUAL(cm_ip_hdr_parse(p, &a, &b), -EPROTO, "version");
	p[0] = 0;
	p[1] = 0x50;
	TEST_ASSERT_EQUAL(cm_ip_hdr_parse(p, &a, &b), -EPROTO, "IP version");
	return TEST_SUCCESS;
}

static const struct dpv_test_suite rdmacm_mad_suite = {
	.name = "rdmacm_mad",
	.cases =
		{
			TEST_CASE(test_req_layout),
			TEST_CASE(test_reply_layouts),
			TEST_CASE(test_sidr),
			TEST_CASE(test_parse_refuses),
			TEST_CASE(test_ip_header),
			TEST_CASE(test_ece_layout),
			TEST_CASE(test_lap_apr),
			TEST_CASES_END(),
		},
};

static int
rdmacm_mad_autotest(void)
{
	return dpv_test_run_suite(&rdmacm_mad_suite);
}

DPV_TEST_REGISTER_FAST(rdmacm_mad_autotest, rdmacm_mad_autotest);
