/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a raw-packet QP does to its frames besides carrying them, through
 * the public verbs API on the loopback device dpv0: self-loopback (off by
 * default, as on ConnectX; mlx5dv's ALLOW_SELF_LOOPBACK_UC/_MC and
 * IBV_QP_CREATE_BLOCK_SELF_MCAST_LB), IBV_SEND_IP_CSUM and
 * IBV_WC_IP_CSUM_OK, IBV_QP_CREATE_CVLAN_STRIPPING, IBV_QP_CREATE_SCATTER_FCS
 * and transmit pacing (IBV_QP_RATE_LIMIT, ibv_modify_qp_rate_limit). Each
 * case checks the frames that arrive, not only return codes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <arpa/inet.h>

#include <infiniband/verbs.h>

#include "dpv_test.h"
#include "test_raw_util.h"
#include "verbs_dv.h"
#include "verbs_int.h"
#include "dpv_engine_raw.h"

/* ------------------------------------------------------------- helpers */

/* Send len bytes at send slot `slot` with an lkey and send flags. */
static int
send_with(struct ibv_qp *qp, unsigned int slot, uint32_t len, uint32_t lkey,
	  unsigned int flags)
{
	struct ibv_sge sge = {.addr = (uintptr_t)rt_buf + SEND_OFF +
				      slot * SLOT,
			      .length = len,
			      .lkey = lkey};
	struct ibv_send_wr wr = {.wr_id = slot,
				 .sg_list = &sge,
				 .num_sge = 1,
				 .opcode = IBV_WR_SEND,
				 .send_flags = IBV_SEND_SIGNALED | flags};
	struct ibv_send_wr *bad;

	return ibv_post_send(qp, &wr, &bad);
}

/* One receive WQE of SLOT bytes at receive slot `slot`. */
static int
recv_with(struct ibv_qp *qp, unsigned int slot, uint32_t lkey)
{
	struct ibv_sge sge = {.addr = (uintptr_t)rt_buf + RECV_OFF +
				      slot * SLOT,
			      .length = SLOT,
			      .lkey = lkey};
	struct ibv_recv_wr wr = {.wr_id = slot, .sg_list = &sge, .num_sge = 1};
	struct ibv_recv_wr *bad;

	return ibv_post_recv(qp, &wr, &bad);
}

static uint8_t *
send_slot(unsigned int slot)
{
	return rt_buf + SEND_OFF + slot * SLOT;
}

static uint8_t *
recv_slot(unsigned int slot)
{
	return rt_buf + RECV_OFF + slot * SLOT;
}

/* A UDP/IPv4 frame to dmac with a payload of paylen bytes at send slot. */
static uint32_t
udp_frame(unsigned int slot, const uint8_t *dmac, uint32_t paylen)
{
	struct frame_desc d = {.dmac = dmac,
			       .ether_type = 0x0800,
			       .sip = 0xc0000201,
			       .dip = 0xc0000202,
			       .sport = 1234,
			       .dport = 5678,
			       .paylen = paylen,
			       .seed = (uint8_t)slot};

	return rt_build_frame(send_slot(slot), &d);
}

/* Insert an 802.1Q tag with this TCI after the MAC addresses. */
static uint32_t
add_vlan(uint8_t *f, uint32_t len, uint16_t tci)
{
	memmove(f + 16, f + 12, len - 12);
	f[12] = 0x81;
	f[13] = 0x00;
	f[14] = (uint8_t)(tci >> 8);
	f[15] = (uint8_t)tci;
	return len + 4;
}

/* Receive completions of QP qpn among n, successful or not. */
static int
recvs_of(const struct ibv_wc *wc, int n, uint32_t qpn)
{
	int c = 0;

	for (int i = 0; i < n; i++)
		c += wc[i].opcode == IBV_WC_RECV && wc[i].qp_num == qpn;
	return c;
}

/* Ethernet CRC-32 (reflected 0x04C11DB7), bit by bit. */
static uint32_t
crc32_eth(const uint8_t *p, uint32_t len)
{
	uint32_t c = 0xffffffffu;

	for (uint32_t i = 0; i < len; i++) {
		c ^= p[i];
		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1)));
	}
	return ~c;
}

static struct ibv_device *
dpv0(void)
{
	for (int i = 0; rt_devs[i] != NULL; i++)
		if (strcmp(ibv_get_device_name(rt_devs[i]), "dpv0") == 0)
			return rt_devs[i];
	return NULL;
}

static uint64_t
tx_paced(void)
{
	struct dpv_engine_raw_stats st;

	if (dpv_engine_raw_stats_get(dctx_dev(rt_ctx)->engine, &st) != 0)
		return 0;
	return st.tx_paced;
}

/* --------------------------------------------------------------- cases */

/*
 * By default a raw QP does not receive the frames raw QPs of its own
 * context send (unicast or multicast); a QP of another context does, and
 * frames from another context are received.
 */
static int
case_self_default(void)
{
	struct ibv_cq *cq = ibv_create_cq(rt_ctx, 64, NULL, NULL, 0);
	struct ibv_context *cb = ibv_open_device(dpv0());
	struct ibv_pd *pdb = cb ? ibv_alloc_pd(cb) : NULL;
	struct ibv_cq *cqb = cb ? ibv_create_cq(cb, 64, NULL, NULL, 0) : NULL;
	struct ibv_mr *mrb =
		pdb ? ibv_reg_mr(pdb, rt_buf, 262144, IBV_ACCESS_LOCAL_WRITE)
		    : NULL;
	struct ibv_qp *tx, *rx, *rxb, *txb;
	struct ibv_flow *f[4];
	struct ibv_wc wc[8];
	uint32_t len;
	int n;

	TEST_ASSERT(cq && cb && pdb && cqb && mrb, "second context");
	tx = rt_raw_qp_ex(rt_pd, cq, 0, false);
	rx = rt_raw_qp_ex(rt_pd, cq, 0, false);
	rxb = rt_raw_qp_ex(pdb, cqb, 0, false);
	txb = rt_raw_qp_ex(pdb, cqb, 0, false);
	TEST_ASSERT(tx && rx && rxb && txb, "QPs: %s", strerror(errno));
	f[0] = rt_flow_eth(rx, rt_mac_a, 0, 0);
	f[1] = rt_flow_eth(rx, rt_mac_mc, 0, 0);
	f[2] = rt_flow_eth(rxb, rt_mac_a, 0, 0);
	f[3] = rt_flow_eth(rxb, rt_mac_mc, 0, 0);
	TEST_ASSERT(f[0] && f[1] && f[2] && f[3], "flows");
	for (unsigned int i = 0; i < 4; i++) {
		TEST_ASSERT_EQUAL(recv_with(rx, i, rt_mr->lkey), 0, "");
		TEST_ASSERT_EQUAL(recv_with(rxb, 8 + i, mrb->lkey), 0, "");
	}

	/* unicast from context A: B's QP gets it, A's does not */
	len = udp_frame(0, rt_mac_a, 100);
	TEST_ASSERT_EQUAL(send_with(tx, 0, len, rt_mr->lkey, 0), 0, "");
	n = drain_ms(cq, wc, 8, 300);
	TEST_ASSERT_EQUAL(n, 1, "only the send completion in A");
	TEST_ASSERT_EQUAL(wc[0].opcode, IBV_WC_SEND, "");
	n = drain_ms(cqb, wc, 8, 300);
	TEST_ASSERT_EQUAL(recvs_of(wc, n, rxb->qp_num), 1, "B received");
	TEST_ASSERT_EQUAL(wc[0].byte_len, len, "");
	TEST_ASSERT_BUFFERS_EQUAL(recv_slot(8), send_slot(0), len, "");

	/* multicast from A: the same */
	len = udp_frame(1, rt_mac_mc, 60);
	TEST_ASSERT_EQUAL(send_with(tx, 1, len, rt_mr->lkey, 0), 0, "");
	n = drain_ms(cq, wc, 8, 300);
	TEST_ASSERT_EQUAL(n, 1, "multicast: only the send completion in A");
	n = drain_ms(cqb, wc, 8, 300);
	TEST_ASSERT_EQUAL(recvs_of(wc, n, rxb->qp_num), 1, "B received");

	/* from B: A's QP receives, B's does not */
	len = udp_frame(2, rt_mac_a, 80);
	TEST_ASSERT_EQUAL(send_with(txb, 2, len, mrb->lkey, 0), 0, "");
	n = drain_ms(cqb, wc, 8, 300);
	TEST_ASSERT_EQUAL(n, 1, "only the send completion in B");
	TEST_ASSERT_EQUAL(wc[0].opcode, IBV_WC_SEND, "");
	n = drain_ms(cq, wc, 8, 300);
	TEST_ASSERT_EQUAL(recvs_of(wc, n, rx->qp_num), 1, "A received");
	TEST_ASSERT_BUFFERS_EQUAL(recv_slot(0), send_slot(2), len, "");

	for (unsigned int i = 0; i < 4; i++)
		TEST_ASSERT_EQUAL(ibv_destroy_flow(f[i]), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_qp(tx), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_qp(rx), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_qp(rxb), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_qp(txb), 0, "");
	ibv_dereg_mr(mrb);
	ibv_destroy_cq(cqb);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pdb);
	ibv_close_device(cb);
	return TEST_SUCCESS;
}

/* ALLOW_SELF_LOOPBACK_UC and _MC each let one kind of own frame in. */
static int
case_self_flags(void)
{
	struct ibv_cq *cq = ibv_create_cq(rt_ctx, 64, NULL, NULL, 0);
	struct ibv_qp *tx, *uc, *mc, *ud;
	struct ibv_qp_init_attr ua = {.send_cq = cq,
				      .recv_cq = cq,
				      .qp_type = IBV_QPT_UD,
				      .cap = {.max_send_wr = 1,
					      .max_recv_wr = 1,
					      .max_send_sge = 1,
					      .max_recv_sge = 1}};
	struct ibv_flow *f[4];
	struct ibv_wc wc[8];
	uint32_t len;
	int n;

	TEST_ASSERT_NOT_NULL(cq, "");
	tx = rt_raw_qp_ex(rt_pd, cq, 0, false);
	uc = rt_raw_qp_ex(rt_pd, cq, 0, false);
	mc = rt_raw_qp_ex(rt_pd, cq, 0, false);
	TEST_ASSERT(tx && uc && mc, "QPs: %s", strerror(errno));
	TEST_ASSERT_EQUAL(dpv_qp_raw_self_loopback(uc, 1, 0), 0, "");
	TEST_ASSERT_EQUAL(dpv_qp_raw_self_loopback(mc, 0, 1), 0, "");
	ud = ibv_create_qp(rt_pd, &ua);
	TEST_ASSERT_NOT_NULL(ud, "");
	TEST_ASSERT_EQUAL(dpv_qp_raw_self_loopback(ud, 1, 1), EOPNOTSUPP,
			  "raw QPs only");
	TEST_ASSERT_EQUAL(ibv_destroy_qp(ud), 0, "");
	f[0] = rt_flow_eth(uc, rt_mac_a, 0, 0);
	f[1] = rt_flow_eth(uc, rt_mac_mc, 0, 0);
	f[2] = rt_flow_eth(mc, rt_mac_a, 0, 0);
	f[3] = rt_flow_eth(mc, rt_mac_mc, 0, 0);
	TEST_ASSERT(f[0] && f[1] && f[2] && f[3], "flows");
	TEST_ASSERT_EQUAL(rt_post_recvs(uc, NULL, 0, 4), 0, "");
	TEST_ASSERT_EQUAL(rt_post_recvs(mc, NULL, 4, 4), 0, "");

	len = udp_frame(0, rt_mac_a, 64);
	TEST_ASSERT_EQUAL(send_with(tx, 0, len, rt_mr->lkey, 0), 0, "");
	n = drain_ms(cq, wc, 8, 300);
	TEST_ASSERT_EQUAL(recvs_of(wc, n, uc->qp_num), 1, "UC: own unicast");
	TEST_ASSERT_EQUAL(recvs_of(wc, n, mc->qp_num), 0, "MC: no unicast");

	len = udp_frame(1, rt_mac_mc, 64);
	TEST_ASSERT_EQUAL(send_with(tx, 1, len, rt_mr->lkey, 0), 0, "");
	n = drain_ms(cq, wc, 8, 300);
	TEST_ASSERT_EQUAL(recvs_of(wc, n, uc->qp_num), 0, "UC: no multicast");
	TEST_ASSERT_EQUAL(recvs_of(wc, n, mc->qp_num), 1, "MC: own multicast");

	/* the flags can be taken back */
	TEST_ASSERT_EQUAL(dpv_qp_raw_self_loopback(uc, 0, 0), 0, "");
	len = udp_frame(2, rt_mac_a, 64);
	TEST_ASSERT_EQUAL(send_with(tx, 2, len, rt_mr->lkey, 0), 0, "");
	n = drain_ms(cq, wc, 8, 300);
	TEST_ASSERT_EQUAL(n, 1, "send completion only");

	for (unsigned int i = 0; i < 4; i++)
		TEST_ASSERT_EQUAL(ibv_destroy_flow(f[i]), 0, "");
	ibv_destroy_qp(tx);
	ibv_destroy_qp(uc);
	ibv_destroy_qp(mc);
	ibv_destroy_cq(cq);
	return TEST_SUCCESS;
}

/* IBV_QP_CREATE_BLOCK_SELF_MCAST_LB: a QP never gets its own multicast. */
static int
case_block_self_mc(void)
{
	struct ibv_cq *cq = ibv_create_cq(rt_ctx, 64, NULL, NULL, 0);
	struct ibv_qp *a, *b;
	struct ibv_flow *f[4];
	struct ibv_wc wc[8];
	uint32_t len;
	int n;

	TEST_ASSERT_NOT_NULL(cq, "");
	a = rt_raw_qp_ex(rt_pd, cq, IBV_QP_CREATE_BLOCK_SELF_MCAST_LB, true);
	b = rt_raw_qp_ex(rt_pd, cq, 0, true);
	TEST_ASSERT(a && b, "QPs: %s", strerror(errno));
	f[0] = rt_flow_eth(a, rt_mac_a, 0, 0);
	f[1] = rt_flow_eth(a, rt_mac_mc, 0, 0);
	f[2] = rt_flow_eth(b, rt_mac_a, 0, 0);
	f[3] = rt_flow_eth(b, rt_mac_mc, 0, 0);
	TEST_ASSERT(f[0] && f[1] && f[2] && f[3], "flows");
	TEST_ASSERT_EQUAL(rt_post_recvs(a, NULL, 0, 8), 0, "");
	TEST_ASSERT_EQUAL(rt_post_recvs(b, NULL, 8, 8), 0, "");

	len = udp_frame(0, rt_mac_mc, 64);
	TEST_ASSERT_EQUAL(send_with(a, 0, len, rt_mr->lkey, 0), 0, "");
	n = drain_ms(cq, wc, 8, 300);
	TEST_ASSERT_EQUAL(recvs_of(wc, n, a->qp_num), 0, "not its own");
	TEST_ASSERT_EQUAL(recvs_of(wc, n, b->qp_num), 1, "the other QP's");

	len = udp_frame(1, rt_mac_a, 64);
	TEST_ASSERT_EQUAL(send_with(a, 1, len, rt_mr->lkey, 0), 0, "");
	n = drain_ms(cq, wc, 8, 300);
	TEST_ASSERT_EQUAL(recvs_of(wc, n, a->qp_num), 1, "own unicast");
	TEST_ASSERT_EQUAL(recvs_of(wc, n, b->qp_num), 1, "");

	len = udp_frame(2, rt_mac_mc, 64);
	TEST_ASSERT_EQUAL(send_with(b, 2, len, rt_mr->lkey, 0), 0, "");
	n = drain_ms(cq, wc, 8, 300);
	TEST_ASSERT_EQUAL(recvs_of(wc, n, a->qp_num), 1, "b's multicast");
	TEST_ASSERT_EQUAL(recvs_of(wc, n, b->qp_num), 1, "not blocked");

	for (unsigned int i = 0; i < 4; i++)
		TEST_ASSERT_EQUAL(ibv_destroy_flow(f[i]), 0, "");
	ibv_destroy_qp(a);
	ibv_destroy_qp(b);
	ibv_destroy_cq(cq);
	return TEST_SUCCESS;
}

/* A TCP/IPv6 frame with a payload of paylen bytes at send slot. */
static uint32_t
tcp6_frame(unsigned int slot, uint32_t paylen)
{
	uint8_t *f = send_slot(slot), *ip = f + 14, *tcp = ip + 40;

	memcpy(f, rt_mac_a, 6);
	memcpy(f + 6, rt_mac_src, 6);
	f[12] = 0x86;
	f[13] = 0xdd;
	memset(ip, 0, 40 + 20);
	ip[0] = 0x60;
	ip[4] = (uint8_t)((20 + paylen) >> 8);
	ip[5] = (uint8_t)(20 + paylen);
	ip[6] = 6;
	ip[7] = 64;
	ip[8] = 0x20; /* 2001:db8::1 -> 2001:db8::2 */
	ip[9] = 0x01;
	ip[10] = 0x0d;
	ip[11] = 0xb8;
	memcpy(ip + 24, ip + 8, 16);
	ip[23] = 1;
	ip[39] = 2;
	tcp[0] = 0x30; /* ports 12345 -> 80 */
	tcp[1] = 0x39;
	tcp[3] = 80;
	tcp[12] = 5 << 4;
	tcp[13] = 0x18;
	tcp[16] = 0xde; /* wrong checksum */
	tcp[17] = 0xad;
	for (uint32_t i = 0; i < paylen; i++)
		tcp[20 + i] = (uint8_t)(i * 13 + slot);
	return 14 + 40 + 20 + paylen;
}

/*
 * IBV_SEND_IP_CSUM fills in the IPv4 header and TCP/UDP checksums; a
 * receiver reports IBV_WC_IP_CSUM_OK for IPv4 frames whose checksums
 * verify, and not for others.
 */
static int
case_ip_csum(void)
{
	struct ibv_cq *cq = ibv_create_cq(rt_ctx, 64, NULL, NULL, 0);
	struct ibv_qp *tx, *rx;
	struct ibv_flow *fl;
	struct ibv_wc wc[8];
	uint8_t *ip;
	uint32_t len;
	int n, r;

	TEST_ASSERT_NOT_NULL(cq, "");
	tx = rt_raw_qp_ex(rt_pd, cq, 0, false);
	rx = rt_raw_qp_ex(rt_pd, cq, 0, true);
	TEST_ASSERT(tx && rx, "QPs: %s", strerror(errno));
	fl = rt_flow_eth(rx, rt_mac_a, 0, 0);
	TEST_ASSERT_NOT_NULL(fl, "");
	TEST_ASSERT_EQUAL(rt_post_recvs(rx, NULL, 0, 8), 0, "");

	/* UDP/IPv4 with wrong checksums, offloaded: both become right */
	len = udp_frame(0, rt_mac_a, 201);
	ip = send_slot(0) + 14;
	ip[10] = 0x12, ip[11] = 0x34;
	ip[26] = 0x56, ip[27] = 0x78;
	TEST_ASSERT(fold(sum16(ip, 20, 0)) != 0xffff, "IP header wrong");
	TEST_ASSERT(!l4_ok_v4(ip), "UDP checksum wrong");
	TEST_ASSERT_EQUAL(send_with(tx, 0, len, rt_mr->lkey, IBV_SEND_IP_CSUM),
			  0, "");
	n = drain_ms(cq, wc, 2, 1000);
	TEST_ASSERT_EQUAL(n, 2, "send + receive");
	r = wc[0].opcode == IBV_WC_RECV ? 0 : 1;
	TEST_ASSERT_EQUAL(wc[r].status, IBV_WC_SUCCESS, "");
	TEST_ASSERT_EQUAL(wc[r].byte_len, len, "");
	ip = recv_slot(0) + 14;
	TEST_ASSERT_EQUAL(fold(sum16(ip, 20, 0)), 0xffff, "IP header sum");
	TEST_ASSERT(l4_ok_v4(ip), "UDP checksum filled in");
	TEST_ASSERT_BUFFERS_EQUAL(recv_slot(0) + 42, send_slot(0) + 42,
				  len - 42, "payload as sent");
	TEST_ASSERT(wc[r].wc_flags & IBV_WC_IP_CSUM_OK, "reported good");

	/* the same wrong frame without the flag: as it is, not good */
	TEST_ASSERT_EQUAL(send_with(tx, 0, len, rt_mr->lkey, 0), 0, "");
	n = drain_ms(cq, wc, 2, 1000);
	TEST_ASSERT_EQUAL(n, 2, "");
	r = wc[0].opcode == IBV_WC_RECV ? 0 : 1;
	TEST_ASSERT_BUFFERS_EQUAL(recv_slot(1), send_slot(0), len,
				  "not touched");
	TEST_ASSERT(!(wc[r].wc_flags & IBV_WC_IP_CSUM_OK), "reported bad");

	/* TCP/IPv6: the TCP checksum is filled in (no IPv4 report) */
	len = tcp6_frame(1, 333);
	TEST_ASSERT(!l4_ok_v6(send_slot(1) + 14), "");
	TEST_ASSERT_EQUAL(send_with(tx, 1, len, rt_mr->lkey, IBV_SEND_IP_CSUM),
			  0, "");
	n = drain_ms(cq, wc, 2, 1000);
	TEST_ASSERT_EQUAL(n, 2, "");
	r = wc[0].opcode == IBV_WC_RECV ? 0 : 1;
	TEST_ASSERT_EQUAL(wc[r].byte_len, len, "");
	TEST_ASSERT(l4_ok_v6(recv_slot(2) + 14), "TCP checksum filled in");
	TEST_ASSERT(!(wc[r].wc_flags & IBV_WC_IP_CSUM_OK), "IPv4 only");

	TEST_ASSERT_EQUAL(ibv_destroy_flow(fl), 0, "");
	ibv_destroy_qp(tx);
	ibv_destroy_qp(rx);
	ibv_destroy_cq(cq);
	return TEST_SUCCESS;
}

/*
 * IBV_QP_CREATE_CVLAN_STRIPPING: the 802.1Q tag is removed and its TCI
 * read with ibv_wc_read_cvlan(); untagged frames pass unchanged.
 */
static int
case_cvlan(void)
{
	struct ibv_cq_init_attr_ex ca = {.cqe = 64,
					 .wc_flags = IBV_WC_STANDARD_FLAGS |
						     IBV_WC_EX_WITH_CVLAN};
	struct ibv_cq *scq = ibv_create_cq(rt_ctx, 64, NULL, NULL, 0);
	struct ibv_cq_ex *cqx = ibv_create_cq_ex(rt_ctx, &ca);
	struct ibv_qp_init_attr_ex ua = {
		.qp_type = IBV_QPT_UD,
		.send_cq = scq,
		.recv_cq = scq,
		.cap = {.max_send_wr = 1,
			.max_recv_wr = 1,
			.max_send_sge = 1,
			.max_recv_sge = 1},
		.comp_mask =
			IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_CREATE_FLAGS,
		.pd = rt_pd,
		.create_flags = IBV_QP_CREATE_CVLAN_STRIPPING};
	struct ibv_poll_cq_attr pa = {0};
	struct ibv_qp *tx, *rx;
	struct ibv_flow *fl;
	struct ibv_wc wc[4];
	uint8_t plain[SLOT];
	uint32_t len, tlen;
	int rc;

	TEST_ASSERT(scq && cqx, "CQs: %s", strerror(errno));
	errno = 0;
	TEST_ASSERT_NULL(ibv_create_qp_ex(rt_ctx, &ua), "");
	TEST_ASSERT_EQUAL(errno, EOPNOTSUPP, "raw-packet QPs only");
	tx = rt_raw_qp_ex(rt_pd, scq, 0, false);
	rx = rt_raw_qp_ex(rt_pd, ibv_cq_ex_to_cq(cqx),
			  IBV_QP_CREATE_CVLAN_STRIPPING, true);
	TEST_ASSERT(tx && rx, "QPs: %s", strerror(errno));
	fl = rt_flow_eth(rx, rt_mac_a, 0, 0);
	TEST_ASSERT_NOT_NULL(fl, "");
	TEST_ASSERT_EQUAL(rt_post_recvs(rx, NULL, 0, 4), 0, "");

	len = udp_frame(0, rt_mac_a, 150);
	memcpy(plain, send_slot(0), len);
	tlen = add_vlan(send_slot(0), len, 0x6064); /* PCP 3, VID 100 */
	TEST_ASSERT_EQUAL(send_with(tx, 0, tlen, rt_mr->lkey, 0), 0, "");
	TEST_ASSERT_EQUAL(drain_ms(scq, wc, 1, 1000), 1, "sent");
	rc = ENOENT;
	for (uint64_t end = now_ms() + 1000; rc == ENOENT && now_ms() < end;)
		rc = ibv_start_poll(cqx, &pa);
	TEST_ASSERT_EQUAL(rc, 0, "a receive completion");
	TEST_ASSERT_EQUAL(cqx->status, IBV_WC_SUCCESS, "");
	TEST_ASSERT_EQUAL(ibv_wc_read_byte_len(cqx), len, "4 bytes less");
	TEST_ASSERT_EQUAL(ibv_wc_read_cvlan(cqx), 0x6064, "the TCI");
	ibv_end_poll(cqx);
	TEST_ASSERT_BUFFERS_EQUAL(recv_slot(0), plain, len, "tag removed");

	/* untagged: as it is */
	len = udp_frame(1, rt_mac_a, 90);
	TEST_ASSERT_EQUAL(send_with(tx, 1, len, rt_mr->lkey, 0), 0, "");
	TEST_ASSERT_EQUAL(drain_ms(scq, wc, 1, 1000), 1, "sent");
	rc = ENOENT;
	for (uint64_t end = now_ms() + 1000; rc == ENOENT && now_ms() < end;)
		rc = ibv_start_poll(cqx, &pa);
	TEST_ASSERT_EQUAL(rc, 0, "");
	TEST_ASSERT_EQUAL(ibv_wc_read_byte_len(cqx), len, "");
	TEST_ASSERT_EQUAL(ibv_wc_read_cvlan(cqx), 0, "no tag");
	ibv_end_poll(cqx);
	TEST_ASSERT_BUFFERS_EQUAL(recv_slot(1), send_slot(1), len, "");

	TEST_ASSERT_EQUAL(ibv_destroy_flow(fl), 0, "");
	ibv_destroy_qp(tx);
	ibv_destroy_qp(rx);
	ibv_destroy_cq(ibv_cq_ex_to_cq(cqx));
	ibv_destroy_cq(scq);
	return TEST_SUCCESS;
}

/*
 * IBV_QP_CREATE_SCATTER_FCS: the frame arrives with its Ethernet FCS
 * (CRC-32 of the frame as sent, least significant byte first); with VLAN
 * stripping too, the FCS is the one of the tagged frame.
 */
static int
case_scatter_fcs(void)
{
	struct ibv_cq *cq = ibv_create_cq(rt_ctx, 64, NULL, NULL, 0);
	struct ibv_qp *tx, *rx, *rx2;
	struct ibv_flow *fl, *fl2;
	struct ibv_wc wc[4];
	uint8_t plain[SLOT];
	uint32_t len, tlen, crc;
	const uint8_t *fcs;
	int n, r;

	TEST_ASSERT_NOT_NULL(cq, "");
	tx = rt_raw_qp_ex(rt_pd, cq, 0, false);
	rx = rt_raw_qp_ex(rt_pd, cq, IBV_QP_CREATE_SCATTER_FCS, true);
	rx2 = rt_raw_qp_ex(rt_pd, cq,
			   IBV_QP_CREATE_SCATTER_FCS |
				   IBV_QP_CREATE_CVLAN_STRIPPING,
			   true);
	TEST_ASSERT(tx && rx && rx2, "QPs: %s", strerror(errno));
	fl = rt_flow_eth(rx, rt_mac_a, 0, 0);
	fl2 = rt_flow_eth(rx2, rt_mac_b, 0, 0);
	TEST_ASSERT(fl && fl2, "");
	TEST_ASSERT_EQUAL(rt_post_recvs(rx, NULL, 0, 2), 0, "");
	TEST_ASSERT_EQUAL(rt_post_recvs(rx2, NULL, 2, 2), 0, "");

	len = udp_frame(0, rt_mac_a, 321);
	TEST_ASSERT_EQUAL(send_with(tx, 0, len, rt_mr->lkey, 0), 0, "");
	n = drain_ms(cq, wc, 2, 1000);
	TEST_ASSERT_EQUAL(n, 2, "");
	r = wc[0].opcode == IBV_WC_RECV ? 0 : 1;
	TEST_ASSERT_EQUAL(wc[r].byte_len, len + 4, "frame + FCS");
	TEST_ASSERT_BUFFERS_EQUAL(recv_slot(0), send_slot(0), len, "");
	crc = crc32_eth(send_slot(0), len);
	fcs = recv_slot(0) + len;
	TEST_ASSERT_EQUAL((uint32_t)fcs[0] | (uint32_t)fcs[1] << 8 |
				  (uint32_t)fcs[2] << 16 |
				  (uint32_t)fcs[3] << 24,
			  crc, "FCS");
	/* the receiver's own check: CRC over frame + FCS is the residue */
	TEST_ASSERT_EQUAL(crc32_eth(recv_slot(0), len + 4), 0x2144df1c, "");

	len = udp_frame(1, rt_mac_b, 77);
	memcpy(plain, send_slot(1), len);
	tlen = add_vlan(send_slot(1), len, 0x0007);
	TEST_ASSERT_EQUAL(send_with(tx, 1, tlen, rt_mr->lkey, 0), 0, "");
	n = drain_ms(cq, wc, 2, 1000);
	TEST_ASSERT_EQUAL(n, 2, "");
	r = wc[0].opcode == IBV_WC_RECV ? 0 : 1;
	TEST_ASSERT_EQUAL(wc[r].qp_num, rx2->qp_num, "");
	TEST_ASSERT_EQUAL(wc[r].byte_len, len + 4, "untagged + FCS");
	TEST_ASSERT_BUFFERS_EQUAL(recv_slot(2), plain, len, "");
	crc = crc32_eth(send_slot(1), tlen);
	fcs = recv_slot(2) + len;
	TEST_ASSERT_EQUAL((uint32_t)fcs[0] | (uint32_t)fcs[1] << 8 |
				  (uint32_t)fcs[2] << 16 |
				  (uint32_t)fcs[3] << 24,
			  crc, "FCS of the tagged frame");

	TEST_ASSERT_EQUAL(ibv_destroy_flow(fl), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_flow(fl2), 0, "");
	ibv_destroy_qp(tx);
	ibv_destroy_qp(rx);
	ibv_destroy_qp(rx2);
	ibv_destroy_cq(cq);
	return TEST_SUCCESS;
}

/* Send n frames of len bytes; milliseconds until all completed, or -1. */
static int64_t
timed_burst(struct ibv_qp *qp, struct ibv_cq *cq, unsigned int n, uint32_t len)
{
	struct ibv_wc wc[16];
	uint64_t t0 = now_ms();
	int got;

	for (unsigned int i = 0; i < n; i++) {
		udp_frame(i, rt_mac_b, len - 42);
		if (send_with(qp, i, len, rt_mr->lkey, 0) != 0)
			return -1;
	}
	got = drain_ms(cq, wc, (int)n, 10000);
	for (int i = 0; i < got; i++)
		if (wc[i].status != IBV_WC_SUCCESS)
			return -1;
	return got == (int)n ? (int64_t)(now_ms() - t0) : -1;
}

/*
 * IBV_QP_RATE_LIMIT paces a raw QP's transmit; ibv_modify_qp_rate_limit
 * adds a burst; 0 removes the limit; values out of the advertised range,
 * other QP types and states are refused.
 */
static int
case_rate_limit(void)
{
	struct ibv_cq *cq = ibv_create_cq(rt_ctx, 64, NULL, NULL, 0);
	struct ibv_qp_rate_limit_attr rl = {0};
	struct ibv_device_attr_ex dev;
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a = {0};
	struct ibv_qp *qp, *rc;
	uint64_t p0;
	int64_t ms;

	TEST_ASSERT_NOT_NULL(cq, "");
	TEST_ASSERT_EQUAL(ibv_query_device_ex(rt_ctx, NULL, &dev), 0, "");
	qp = rt_raw_qp_ex(rt_pd, cq, 0, false);
	TEST_ASSERT_NOT_NULL(qp, "");

	a.rate_limit = dev.packet_pacing_caps.qp_rate_limit_min - 1;
	TEST_ASSERT_EQUAL(ibv_modify_qp(qp, &a, IBV_QP_RATE_LIMIT), EINVAL,
			  "below the minimum");
	a.rate_limit = dev.packet_pacing_caps.qp_rate_limit_max + 1;
	TEST_ASSERT_EQUAL(ibv_modify_qp(qp, &a, IBV_QP_RATE_LIMIT), EINVAL,
			  "above the maximum");

	/* 2,000 kbit/s: 1,000-byte frames 4 ms apart, 12 take >= 44 ms */
	a.rate_limit = 2000;
	TEST_ASSERT_EQUAL(ibv_modify_qp(qp, &a, IBV_QP_RATE_LIMIT), 0, "");
	TEST_ASSERT_EQUAL(ibv_query_qp(qp, &a, IBV_QP_RATE_LIMIT, &init), 0,
			  "");
	TEST_ASSERT_EQUAL(a.rate_limit, 2000, "stored");
	p0 = tx_paced();
	ms = timed_burst(qp, cq, 12, 1000);
	DPV_TEST_LOG("12 x 1000 B at 2000 kbit/s: %" PRId64 " ms", ms);
	TEST_ASSERT(ms >= 40, "paced (%" PRId64 " ms)", ms);
	TEST_ASSERT(tx_paced() > p0, "the engine held frames back");

	/* a burst of 12 frames goes at once */
	rl.rate_limit = 2000;
	rl.max_burst_sz = 12000;
	rl.typical_pkt_sz = 1000;
	TEST_ASSERT_EQUAL(ibv_modify_qp_rate_limit(qp, &rl), 0, "");
	p0 = tx_paced();
	ms = timed_burst(qp, cq, 12, 1000);
	TEST_ASSERT(ms >= 0, "");
	TEST_ASSERT_EQUAL(tx_paced(), p0, "within the burst: not held");

	/* no limit */
	rl.rate_limit = 0;
	rl.max_burst_sz = 0;
	rl.typical_pkt_sz = 0;
	TEST_ASSERT_EQUAL(ibv_modify_qp_rate_limit(qp, &rl), 0, "");
	p0 = tx_paced();
	ms = timed_burst(qp, cq, 16, 1000);
	TEST_ASSERT(ms >= 0, "");
	TEST_ASSERT_EQUAL(tx_paced(), p0, "unpaced");

	/* refusals */
	rl.max_burst_sz = 1000;
	TEST_ASSERT_EQUAL(ibv_modify_qp_rate_limit(qp, &rl), EINVAL,
			  "a burst without a rate");
	rl.max_burst_sz = 0;
	rl.comp_mask = 1;
	TEST_ASSERT_EQUAL(ibv_modify_qp_rate_limit(qp, &rl), EINVAL,
			  "unknown comp_mask");
	rl.comp_mask = 0;
	rl.rate_limit = 2000;
	a.qp_state = IBV_QPS_RESET;
	TEST_ASSERT_EQUAL(ibv_modify_qp(qp, &a, IBV_QP_STATE), 0, "");
	TEST_ASSERT_EQUAL(ibv_modify_qp_rate_limit(qp, &rl), EINVAL,
			  "not in RESET");
	TEST_ASSERT_EQUAL(ibv_query_qp(qp, &a, IBV_QP_RATE_LIMIT, &init), 0,
			  "");
	TEST_ASSERT_EQUAL(a.rate_limit, 0, "RESET forgets the rate");
	{
		struct ibv_qp_init_attr ra = {.send_cq = cq,
					      .recv_cq = cq,
					      .qp_type = IBV_QPT_RC,
					      .cap = {.max_send_wr = 1,
						      .max_recv_wr = 1,
						      .max_send_sge = 1,
						      .max_recv_sge = 1}};

		rc = ibv_create_qp(rt_pd, &ra);
		TEST_ASSERT_NOT_NULL(rc, "");
		TEST_ASSERT_EQUAL(ibv_modify_qp_rate_limit(rc, &rl), EINVAL,
				  "raw-packet QPs only");
		ibv_destroy_qp(rc);
	}
	TEST_ASSERT_EQUAL(ibv_destroy_qp(qp), 0, "");
	ibv_destroy_cq(cq);
	return TEST_SUCCESS;
}

static const struct dpv_test_suite raw_ofl_suite = {
	.name = "raw_ofl",
	.setup = rt_setup,
	.teardown = rt_teardown,
	.cases =
		{
			TEST_CASE(case_self_default),
			TEST_CASE(case_self_flags),
			TEST_CASE(case_block_self_mc),
			TEST_CASE(case_ip_csum),
			TEST_CASE(case_cvlan),
			TEST_CASE(case_scatter_fcs),
			TEST_CASE(case_rate_limit),
			TEST_CASES_END(),
		},
};

static int
test_raw_ofl(void)
{
	return dpv_test_run_suite(&raw_ofl_suite);
}

DPV_TEST_REGISTER_FAST(raw_ofl, test_raw_ofl);
