/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The create flags of raw-packet QPs added last, through the public verbs
 * API on the loopback device dpv0:
 *  - IBV_QP_CREATE_PCI_WRITE_END_PADDING / IBV_WQ_FLAGS_PCI_WRITE_END_PADDING:
 *    advertised, accepted on raw QPs and WQs with no effect on the data,
 *    EOPNOTSUPP on other types;
 *  - MLX5DV_QP_CREATE_TUNNEL_OFFLOADS (dpv_qp_raw_tunnel_offloads(), what
 *    libmlx5 calls): IBV_WC_IP_CSUM_OK reports the inner checksums of
 *    VXLAN, GENEVE and GRE packets, where a plain QP reports the outer
 *    ones.
 * The checksums are computed here, independently of the engine.
 */
#include <errno.h>
#include <string.h>
#include <arpa/inet.h>

#include <infiniband/verbs.h>

#include "dpv_test.h"
#include "test_raw_util.h"
#include "verbs_dv.h"

/* ------------------------------------------------------------- frames */

static uint8_t *
slot_at(uint32_t off, unsigned int slot)
{
	return rt_buf + off + slot * SLOT;
}

static void
put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* IPv4 header at ip (20 bytes) for an L4 datagram of l4len bytes. */
static void
ip4_hdr(uint8_t *ip, uint8_t proto, uint32_t l4len, uint8_t last)
{
	memset(ip, 0, 20);
	ip[0] = 0x45;
	put16(ip + 2, 20 + l4len);
	ip[8] = 64;
	ip[9] = proto;
	ip[12] = 192, ip[13] = 0, ip[14] = 2, ip[15] = 1;
	ip[16] = 192, ip[17] = 0, ip[18] = 2, ip[19] = last;
}

/* Fill in the IPv4 header checksum and the UDP checksum of ip. */
static void
ip4_sums(uint8_t *ip)
{
	uint32_t tot = (uint32_t)ip[2] << 8 | ip[3];
	uint32_t s;
	uint16_t ck;

	put16(ip + 10, 0);
	put16(ip + 10, (uint16_t)~fold(sum16(ip, 20, 0)));
	if (ip[9] != 17)
		return;
	put16(ip + 26, 0);
	s = sum16(ip + 12, 8, 0) + 17 + (tot - 20);
	ck = (uint16_t)~fold(sum16(ip + 20, tot - 20, s));
	put16(ip + 26, ck ? ck : 0xffff);
}

/* Ethernet header to dmac with this ether type; returns 14. */
static uint32_t
eth_hdr(uint8_t *f, const uint8_t *dmac, uint32_t et)
{
	memcpy(f, dmac, 6);
	memcpy(f + 6, rt_mac_src, 6);
	put16(f + 12, et);
	return 14;
}

/* Inner IPv4/UDP datagram with paylen bytes, sums right; returns length. */
static uint32_t
inner_ip(uint8_t *ip, uint32_t paylen)
{
	ip4_hdr(ip, 17, 8 + paylen, 9);
	put16(ip + 20, 1111);
	put16(ip + 22, 2222);
	put16(ip + 24, 8 + paylen);
	for (uint32_t i = 0; i < paylen; i++)
		ip[28 + i] = (uint8_t)(i * 5 + 3);
	ip4_sums(ip);
	return 28 + paylen;
}

enum tun { VXLAN, GENEVE, GRE };

/*
 * A tunnel packet to dmac at send slot `slot`: outer IPv4 (UDP to the
 * VXLAN or GENEVE port, or GRE with a checksum) around an inner
 * IPv4/UDP datagram (inside an Ethernet frame but for GRE). All sums
 * right; returns the frame length.
 */
static uint32_t
tun_frame(unsigned int slot, const uint8_t *dmac, enum tun t)
{
	uint8_t *f = slot_at(SEND_OFF, slot), *oip = f + 14, *h;
	uint32_t n, in, hl;

	n = eth_hdr(f, dmac, 0x0800);
	h = oip + 20 + (t == GRE ? 0 : 8);
	if (t == GRE) {
		hl = 8; /* flags C, protocol IPv4, checksum + reserved */
		put16(h, 0x8000);
		put16(h + 2, 0x0800);
		memset(h + 4, 0, 4);
		in = inner_ip(h + hl, 100);
		put16(h + 4, (uint16_t)~fold(sum16(h, hl + in, 0)));
		ip4_hdr(oip, 47, hl + in, 2);
	} else {
		hl = t == VXLAN ? 8 : 12; /* GENEVE: one 4-byte option */
		memset(h, 0, hl);
		if (t == VXLAN) {
			h[0] = 0x08; /* VNI valid */
		} else {
			h[0] = 1; /* version 0, options 1 x 4 bytes */
			put16(h + 2, 0x6558);
		}
		h[6] = 0x42; /* VNI */
		in = eth_hdr(h + hl, rt_mac_b, 0x0800);
		in += inner_ip(h + hl + in, 100);
		ip4_hdr(oip, 17, 8 + hl + in, 2);
		put16(oip + 20, 49152);
		put16(oip + 22, t == VXLAN ? 4789 : 6081);
		put16(oip + 24, 8 + hl + in);
	}
	ip4_sums(oip);
	return n + 20 + (t == GRE ? 0 : 8) + hl + in;
}

/* Offset of the inner IPv4 header in a tun_frame(). */
static uint32_t
inner_off(enum tun t)
{
	return t == GRE ? 14 + 20 + 8 : 14 + 20 + 8 + (t == VXLAN ? 8 : 12) + 14;
}

/* Make the outer sums of a tun_frame() of len bytes right again (the
 * outer IPv4 and UDP ones, or GRE's). */
static void
outer_sums(enum tun t, uint32_t len)
{
	uint8_t *g = slot_at(SEND_OFF, 0) + 14 + 20;

	if (t == GRE) {
		put16(g + 4, 0);
		put16(g + 4, (uint16_t)~fold(sum16(g, len - 34, 0)));
	} else {
		ip4_sums(g - 20);
	}
}

/* ---------------------------------------------------------------- cases */

static struct ibv_cq *cq;
static struct ibv_qp *tx;

/* Send the frame at slot 0 (len bytes) to rx, which has a receive WQE
 * posted; returns the receive's wc_flags or -1. */
static int
xfer(struct ibv_qp *rx, uint32_t len)
{
	struct ibv_sge sge = {.addr = (uintptr_t)slot_at(SEND_OFF, 0),
			      .length = len,
			      .lkey = rt_mr->lkey};
	struct ibv_send_wr wr = {.sg_list = &sge,
				 .num_sge = 1,
				 .opcode = IBV_WR_SEND,
				 .send_flags = IBV_SEND_SIGNALED};
	struct ibv_send_wr *bad;
	struct ibv_wc wc[2];
	int n, r;

	if (rt_post_recvs(rx, NULL, 0, 1) != 0 ||
	    ibv_post_send(tx, &wr, &bad) != 0)
		return -1;
	n = drain_ms(cq, wc, 2, 1000);
	if (n != 2)
		return -1;
	r = wc[0].opcode == IBV_WC_RECV ? 0 : 1;
	if (wc[r].status != IBV_WC_SUCCESS || wc[r].qp_num != rx->qp_num ||
	    wc[r].byte_len != len ||
	    memcmp(slot_at(RECV_OFF, 0), slot_at(SEND_OFF, 0), len) != 0)
		return -1;
	return (int)wc[r].wc_flags;
}

/*
 * PCI write end padding: advertised, accepted on a raw QP and a WQ, the
 * frame arrives as sent (no padding bytes counted); other QP types and
 * other WQ flags are EOPNOTSUPP.
 */
static int
case_end_padding(void)
{
	struct ibv_device_attr_ex da;
	struct ibv_qp_init_attr_ex qa = {
		.send_cq = cq, .recv_cq = cq,
		.cap = {.max_send_wr = 4, .max_recv_wr = 4,
			.max_send_sge = 1, .max_recv_sge = 1},
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_CREATE_FLAGS,
		.pd = rt_pd,
		.create_flags = IBV_QP_CREATE_PCI_WRITE_END_PADDING};
	struct ibv_wq_init_attr wa = {
		.wq_type = IBV_WQT_RQ, .max_wr = 4, .max_sge = 1,
		.pd = rt_pd, .cq = cq, .comp_mask = IBV_WQ_INIT_ATTR_FLAGS,
		.create_flags = IBV_WQ_FLAGS_PCI_WRITE_END_PADDING};
	enum ibv_qp_type bad_types[] = {IBV_QPT_UD, IBV_QPT_RC, IBV_QPT_UC};
	struct frame_desc d = {.dmac = rt_mac_a, .ether_type = 0x0800,
			       .sip = 1, .dip = 2, .sport = 3, .dport = 4,
			       .paylen = 37, .seed = 9};
	struct ibv_flow *fl;
	struct ibv_qp *rx;
	struct ibv_wq *wq;
	uint32_t len;
	int fl_rc;

	TEST_ASSERT_EQUAL(ibv_query_device_ex(rt_ctx, NULL, &da), 0, "");
	TEST_ASSERT(da.device_cap_flags_ex & IBV_DEVICE_PCI_WRITE_END_PADDING,
		    "advertised");
	rx = rt_raw_qp_ex(rt_pd, cq, IBV_QP_CREATE_PCI_WRITE_END_PADDING, true);
	TEST_ASSERT_NOT_NULL(rx, "raw QP with padding: %s", strerror(errno));
	fl = rt_flow_eth(rx, rt_mac_a, 0, 0);
	TEST_ASSERT_NOT_NULL(fl, "");
	len = rt_build_frame(slot_at(SEND_OFF, 0), &d); /* not a multiple of 64 */
	fl_rc = xfer(rx, len);
	TEST_ASSERT(fl_rc >= 0, "frame received as sent");
	TEST_ASSERT_EQUAL(ibv_destroy_flow(fl), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_qp(rx), 0, "");

	for (unsigned int i = 0; i < sizeof(bad_types) / sizeof(bad_types[0]); i++) {
		qa.qp_type = bad_types[i];
		errno = 0;
		rx = ibv_create_qp_ex(rt_ctx, &qa);
		TEST_ASSERT(rx == NULL && errno == EOPNOTSUPP, "type %d: %s",
			    bad_types[i], strerror(errno));
	}
	wq = ibv_create_wq(rt_ctx, &wa);
	TEST_ASSERT_NOT_NULL(wq, "WQ with padding: %s", strerror(errno));
	TEST_ASSERT_EQUAL(ibv_destroy_wq(wq), 0, "");
	wa.create_flags = IBV_WQ_FLAGS_CVLAN_STRIPPING;
	errno = 0;
	TEST_ASSERT(ibv_create_wq(rt_ctx, &wa) == NULL && errno == EOPNOTSUPP,
		    "other WQ flags");
	return TEST_SUCCESS;
}

/*
 * Tunnel offloads: a QP with them reports the inner checksums of VXLAN,
 * GENEVE and GRE packets (and still the plain ones of other frames); a
 * QP without them the outer ones only.
 */
static int
case_tunnel_csum(void)
{
	static const enum tun kinds[] = {VXLAN, GENEVE, GRE};
	struct ibv_flow *f1, *f2;
	struct ibv_qp *plain, *tun, *ud;
	struct ibv_qp_init_attr ua = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_UD,
		.cap = {.max_send_wr = 1, .max_recv_wr = 1,
			.max_send_sge = 1, .max_recv_sge = 1}};
	uint32_t len;
	uint8_t *ip;

	plain = rt_raw_qp_ex(rt_pd, cq, 0, true);
	tun = rt_raw_qp_ex(rt_pd, cq, 0, true);
	TEST_ASSERT(plain && tun, "QPs: %s", strerror(errno));
	TEST_ASSERT_EQUAL(dpv_qp_raw_tunnel_offloads(tun), 0, "");
	f1 = rt_flow_eth(plain, rt_mac_a, 0, 0);
	f2 = rt_flow_eth(tun, rt_mac_b, 0, 0);
	TEST_ASSERT(f1 && f2, "");

	for (unsigned int k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		enum tun t = kinds[k];
		uint32_t in = inner_off(t);

		/* all right: both report good, but GRE is no UDP/TCP outside */
		len = tun_frame(0, rt_mac_b, t);
		TEST_ASSERT(xfer(tun, len) == IBV_WC_IP_CSUM_OK, "%d good", t);
		tun_frame(0, rt_mac_a, t);
		TEST_ASSERT_EQUAL(xfer(plain, len),
				  t == GRE ? 0 : IBV_WC_IP_CSUM_OK, "%d", t);
		/* inner UDP payload changed, its sum not: only the tunnel
		 * QP sees it (the outer sums are made right again) */
		len = tun_frame(0, rt_mac_b, t);
		ip = slot_at(SEND_OFF, 0) + in;
		ip[30] ^= 0x5a;
		outer_sums(t, len);
		TEST_ASSERT_EQUAL(xfer(tun, len), 0, "%d inner UDP bad", t);
		if (t != GRE) {
			memcpy(slot_at(SEND_OFF, 0), rt_mac_a, 6);
			TEST_ASSERT_EQUAL(xfer(plain, len), IBV_WC_IP_CSUM_OK,
					  "%d outer only", t);
		}
		/* inner IPv4 header checksum wrong */
		len = tun_frame(0, rt_mac_b, t);
		ip = slot_at(SEND_OFF, 0) + in;
		ip[10] ^= 0x11;
		outer_sums(t, len);
		TEST_ASSERT_EQUAL(xfer(tun, len), 0, "%d inner IP bad", t);
		/* the outer UDP checksum, or GRE's own, wrong */
		len = tun_frame(0, rt_mac_b, t);
		slot_at(SEND_OFF, 0)[14 + 20 + (t == GRE ? 4 : 7)] ^= 0x01;
		TEST_ASSERT_EQUAL(xfer(tun, len), 0, "%d outer bad", t);
	}
	/* no outer UDP checksum (0) around a right inner datagram: good */
	len = tun_frame(0, rt_mac_b, VXLAN);
	put16(slot_at(SEND_OFF, 0) + 14 + 26, 0);
	TEST_ASSERT_EQUAL(xfer(tun, len), IBV_WC_IP_CSUM_OK, "no outer sum");
	/* not a tunnel port: the plain check (outer UDP, right) */
	len = tun_frame(0, rt_mac_b, VXLAN);
	ip = slot_at(SEND_OFF, 0) + inner_off(VXLAN);
	ip[30] ^= 0x5a;
	put16(slot_at(SEND_OFF, 0) + 14 + 22, 4790);
	ip4_sums(slot_at(SEND_OFF, 0) + 14);
	TEST_ASSERT_EQUAL(xfer(tun, len), IBV_WC_IP_CSUM_OK, "other port");

	ud = ibv_create_qp(rt_pd, &ua);
	TEST_ASSERT_NOT_NULL(ud, "");
	TEST_ASSERT_EQUAL(dpv_qp_raw_tunnel_offloads(ud), EOPNOTSUPP, "UD");
	TEST_ASSERT_EQUAL(dpv_qp_raw_tunnel_offloads(NULL), EINVAL, "");
	ibv_destroy_qp(ud);
	ibv_destroy_flow(f1);
	ibv_destroy_flow(f2);
	ibv_destroy_qp(plain);
	ibv_destroy_qp(tun);
	return TEST_SUCCESS;
}

static int
cf_setup(void)
{
	int rc = rt_setup();

	if (rc != TEST_SUCCESS)
		return rc;
	cq = ibv_create_cq(rt_ctx, 64, NULL, NULL, 0);
	tx = cq ? rt_raw_qp_ex(rt_pd, cq, 0, false) : NULL;
	return tx ? TEST_SUCCESS : TEST_FAILED;
}

static void
cf_teardown(void)
{
	if (tx)
		ibv_destroy_qp(tx);
	if (cq)
		ibv_destroy_cq(cq);
	tx = NULL;
	cq = NULL;
	rt_teardown();
}

static const struct dpv_test_suite raw_cflags_suite = {
	.name = "raw_cflags",
	.setup = cf_setup,
	.teardown = cf_teardown,
	.cases =
		{
			TEST_CASE(case_end_padding),
			TEST_CASE(case_tunnel_csum),
			TEST_CASES_END(),
		},
};

static int
test_raw_cflags(void)
{
	return dpv_test_run_suite(&raw_cflags_suite);
}

DPV_TEST_REGISTER_FAST(raw_cflags, test_raw_cflags);
