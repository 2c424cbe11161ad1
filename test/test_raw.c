/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Raw-packet QPs, flows, WQs, indirection tables and RSS through the
 * public verbs API on the loopback device dpv0 (its TX comes back on its
 * own RX). Sender and receivers share a context, so the receivers are
 * created with self-loopback allowed (test_raw_ofl.c checks the default).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>
#include <rte_thash.h>

#include "dpv_test.h"
#include "test_verbs_util.h"
#include "test_raw_util.h"
#include "verbs_dv.h"
#include "dpv_engine_raw.h"

/* 40-byte Toeplitz key (the well-known Microsoft sample key) */
static const uint8_t rss_key[40] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67,
	0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb,
	0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30,
	0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

static int
case_caps(void)
{
	struct ibv_device_attr_ex a;

	TEST_ASSERT_EQUAL(ibv_query_device_ex(rt_ctx, NULL, &a), 0, "");
	TEST_ASSERT(a.rss_caps.supported_qpts & (1u << IBV_QPT_RAW_PACKET),
		    "RSS on raw QPs");
	TEST_ASSERT(a.rss_caps.max_rwq_indirection_table_size >= 4, "");
	TEST_ASSERT(a.rss_caps.max_rwq_indirection_tables > 0, "");
	TEST_ASSERT_EQUAL(a.rss_caps.rx_hash_function,
			  IBV_RX_HASH_FUNC_TOEPLITZ, "");
	TEST_ASSERT(a.max_wq_type_rq > 0, "");
	TEST_ASSERT_EQUAL(a.raw_packet_caps,
			  IBV_RAW_PACKET_CAP_IP_CSUM |
				  IBV_RAW_PACKET_CAP_CVLAN_STRIPPING |
				  IBV_RAW_PACKET_CAP_SCATTER_FCS,
			  "offloads claimed");
	TEST_ASSERT(a.device_cap_flags_ex & IBV_DEVICE_RAW_SCATTER_FCS, "");
	TEST_ASSERT(a.orig_attr.device_cap_flags & IBV_DEVICE_RAW_IP_CSUM, "");
	TEST_ASSERT_EQUAL(a.packet_pacing_caps.supported_qpts,
			  1u << IBV_QPT_RAW_PACKET, "pacing of raw QPs");
	TEST_ASSERT(a.packet_pacing_caps.qp_rate_limit_min > 0 &&
			    a.packet_pacing_caps.qp_rate_limit_max >
				    a.packet_pacing_caps.qp_rate_limit_min,
		    "");
	TEST_ASSERT_EQUAL(a.tso_caps.max_tso, 262144, "TSO (test_raw_tso.c)");
	TEST_ASSERT_EQUAL(a.tso_caps.supported_qpts, 1u << IBV_QPT_RAW_PACKET,
			  "");
	return TEST_SUCCESS;
}

/* A frame sent by one raw QP reaches the QP whose flow matches, byte-exact */
static int
case_send_recv(void)
{
	struct ibv_cq *cq = ibv_create_cq(rt_ctx, 256, NULL, NULL, 0);
	struct ibv_qp *tx, *rx;
	struct ibv_flow *fl;
	struct ibv_wc wc[8];
	struct frame_desc d = {.dmac = rt_mac_a,
			       .ether_type = 0x0800,
			       .sip = 0xc0000201,
			       .dip = 0xc0000202,
			       .sport = 1234,
			       .dport = 5678,
			       .paylen = 300,
			       .seed = 9};
	uint32_t len;
	int n;

	TEST_ASSERT_NOT_NULL(cq, "");
	tx = rt_raw_qp(cq);
	rx = rt_raw_qp(cq);
	TEST_ASSERT(tx && rx, "raw QPs: %s", strerror(errno));
	fl = rt_flow_eth(rx, rt_mac_a, 0, 0);
	TEST_ASSERT_NOT_NULL(fl, "flow: %s", strerror(errno));
	TEST_ASSERT_EQUAL(rt_post_recvs(rx, NULL, 0, 4), 0, "");
	len = rt_build_frame(rt_buf + SEND_OFF, &d);
	TEST_ASSERT_EQUAL(rt_send_frame(tx, 0, len), 0, "");
	n = rt_drain(cq, wc, 2);
	TEST_ASSERT_EQUAL(n, 2, "send + recv completions");
	for (int i = 0; i < n; i++) {
		TEST_ASSERT_EQUAL(wc[i].status, IBV_WC_SUCCESS, "");
		if (wc[i].opcode == IBV_WC_RECV) {
			TEST_ASSERT_EQUAL(wc[i].qp_num, rx->qp_num, "");
			TEST_ASSERT_EQUAL(wc[i].byte_len, len, "");
			TEST_ASSERT_EQUAL(wc[i].wr_id, 0, "");
		} else {
			TEST_ASSERT_EQUAL(wc[i].opcode, IBV_WC_SEND, "");
			TEST_ASSERT_EQUAL(wc[i].qp_num, tx->qp_num, "");
		}
	}
	TEST_ASSERT_BUFFERS_EQUAL(rt_buf + RECV_OFF, rt_buf + SEND_OFF, len,
				  "frame byte-exact");
	/* inline send of a small frame */
	{
		uint8_t f[64];
		struct frame_desc d2 = {.dmac = rt_mac_a,
					.ether_type = 0x88b5,
					.paylen = 46,
					.seed = 3};
		uint32_t l2 = rt_build_frame(f, &d2);
		struct ibv_sge sge = {.addr = (uintptr_t)f, .length = l2};
		struct ibv_send_wr wr = {.sg_list = &sge,
					 .num_sge = 1,
					 .opcode = IBV_WR_SEND,
					 .send_flags = IBV_SEND_INLINE};
		struct ibv_send_wr *bad;

		TEST_ASSERT_EQUAL(ibv_post_send(tx, &wr, &bad), 0, "");
		n = rt_drain(cq, wc, 1);
		TEST_ASSERT_EQUAL(n, 1, "recv only (unsignaled send)");
		TEST_ASSERT_EQUAL(wc[0].byte_len, l2, "");
		TEST_ASSERT_BUFFERS_EQUAL(rt_buf + RECV_OFF + SLOT, f, l2, "");
	}
	/* destroy order: a QP with a flow is busy */
	/* a frame longer than the receive WQE */
	{
		struct ibv_sge sge = {.addr = (uintptr_t)rt_buf + RECV_OFF,
				      .length = 64,
				      .lkey = rt_mr->lkey};
		struct ibv_recv_wr rwr = {
			.wr_id = 77, .sg_list = &sge, .num_sge = 1};
		struct ibv_recv_wr *rbad;
		struct ibv_qp_attr ra = {.qp_state = IBV_QPS_RESET};

		/* RESET drops the two unused WQEs posted above */
		TEST_ASSERT_EQUAL(ibv_modify_qp(rx, &ra, IBV_QP_STATE), 0, "");
		TEST_ASSERT_EQUAL(rt_to_rts(rx), 0, "");
		TEST_ASSERT_EQUAL(ibv_post_recv(rx, &rwr, &rbad), 0, "");
		TEST_ASSERT_EQUAL(rt_send_frame(tx, 0, len), 0, "");
		n = rt_drain(cq, wc, 8);
		TEST_ASSERT_EQUAL(n, 2, "");
		for (int i = 0; i < n; i++)
			if (wc[i].qp_num == rx->qp_num)
				TEST_ASSERT_EQUAL(wc[i].status,
						  IBV_WC_LOC_LEN_ERR,
						  "too long");
	}
	TEST_ASSERT_EQUAL(ibv_destroy_qp(rx), EBUSY, "");
	TEST_ASSERT_EQUAL(ibv_destroy_flow(fl), 0, "");
	/* without the flow the frame is not delivered */
	TEST_ASSERT_EQUAL(rt_send_frame(tx, 0, len), 0, "");
	n = rt_drain(cq, wc, 8);
	TEST_ASSERT_EQUAL(n, 1, "send completion only");
	TEST_ASSERT_EQUAL(wc[0].opcode, IBV_WC_SEND, "");
	TEST_ASSERT_EQUAL(ibv_destroy_qp(rx), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_qp(tx), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_cq(cq), 0, "");
	return TEST_SUCCESS;
}

/* Which QPs (bit i = q[i]) receive the frame d. */
static int
who_gets(struct ibv_qp *tx, struct ibv_qp **q, int nq, struct ibv_cq *cq,
	 const struct frame_desc *d)
{
	struct ibv_wc wc[16];
	uint32_t len = rt_build_frame(rt_buf + SEND_OFF, d);
	int n, mask = 0;

	for (int i = 0; i < nq; i++)
		if (rt_post_recvs(q[i], NULL, 8 * i, 1))
			return -1;
	if (rt_send_frame(tx, 0, len))
		return -1;
	n = rt_drain(cq, wc, 16);
	for (int i = 0; i < nq; i++)
		if (rt_count_recv(wc, n, q[i]->qp_num) == 1)
			mask |= 1 << i;
	/* take the unused receive WQEs back: RESET empties the queue */
	for (int i = 0; i < nq; i++) {
		if (mask & (1 << i))
			continue;
		struct ibv_qp_attr a = {.qp_state = IBV_QPS_RESET};

		if (ibv_modify_qp(q[i], &a, IBV_QP_STATE) || rt_to_rts(q[i]))
			return -1;
	}
	return mask;
}

static int
case_flow_match(void)
{
	struct ibv_cq *cq = ibv_create_cq(rt_ctx, 256, NULL, NULL, 0);
	struct ibv_qp *tx, *q[4];
	struct ibv_flow *f[6];
	struct frame_desc d = {.dmac = rt_mac_b,
			       .ether_type = 0x0800,
			       .sip = 0xc6336401,
			       .dip = 0xcb007105,
			       .sport = 40000,
			       .dport = 7000,
			       .paylen = 20};

	TEST_ASSERT_NOT_NULL(cq, "");
	tx = rt_raw_qp(cq);
	for (int i = 0; i < 4; i++)
		q[i] = rt_raw_qp(cq);
	TEST_ASSERT(tx && q[0] && q[1] && q[2] && q[3], "");
	f[0] = rt_flow_eth(q[0], rt_mac_a, 0, 0);      /* MAC A */
	f[1] = rt_flow_eth(q[1], NULL, 0x88b5, 0);     /* ethertype */
	f[2] = rt_flow_ip_udp(q[2], 0xcb007105, 0, 0); /* IPv4 dst */
	f[3] = rt_flow_ip_udp(q[3], 0, 7001, 0);       /* UDP dport */
	for (int i = 0; i < 4; i++)
		TEST_ASSERT_NOT_NULL(f[i], "flow %d: %s", i, strerror(errno));

	TEST_ASSERT_EQUAL(who_gets(tx, q, 4, cq, &d), 0x4, "IPv4 dst only");
	d.dip = 0xcb007106;
	TEST_ASSERT_EQUAL(who_gets(tx, q, 4, cq, &d), 0x0, "nobody");
	d.dport = 7001;
	TEST_ASSERT_EQUAL(who_gets(tx, q, 4, cq, &d), 0x8, "UDP port");
	d.dmac = rt_mac_a;
	TEST_ASSERT_EQUAL(who_gets(tx, q, 4, cq, &d), 0x9,
			  "MAC + port, same priority: both");
	d.ether_type = 0x88b5;
	TEST_ASSERT_EQUAL(who_gets(tx, q, 4, cq, &d), 0x3,
			  "MAC + ethertype (no IP)");
	d.dmac = rt_mac_b;
	TEST_ASSERT_EQUAL(who_gets(tx, q, 4, cq, &d), 0x2, "ethertype only");

	/* priority: a stronger rule on q[1] for the IPv4 dst */
	f[4] = rt_flow_ip_udp(q[1], 0xcb007105, 0, 0);
	TEST_ASSERT_NOT_NULL(f[4], "");
	TEST_ASSERT_EQUAL(ibv_destroy_flow(f[2]), 0, "");
	f[2] = rt_flow_ip_udp(q[2], 0xcb007105, 0, 5);
	TEST_ASSERT_NOT_NULL(f[2], "");
	d.ether_type = 0x0800;
	d.dip = 0xcb007105;
	d.dport = 7000;
	TEST_ASSERT_EQUAL(who_gets(tx, q, 4, cq, &d), 0x2,
			  "priority 0 beats 5");
	TEST_ASSERT_EQUAL(ibv_destroy_flow(f[4]), 0, "");
	TEST_ASSERT_EQUAL(who_gets(tx, q, 4, cq, &d), 0x4,
			  "priority 5 when alone");

	/* ALL_DEFAULT takes what no NORMAL flow wants; SNIFFER sees all */
	f[5] = rt_flow_default(q[0], IBV_FLOW_ATTR_ALL_DEFAULT);
	TEST_ASSERT_NOT_NULL(f[5], "all default: %s", strerror(errno));
	d.dip = 0xcb007199;
	TEST_ASSERT_EQUAL(who_gets(tx, q, 4, cq, &d), 0x1, "all default");
	d.dip = 0xcb007105;
	TEST_ASSERT_EQUAL(who_gets(tx, q, 4, cq, &d), 0x4, "normal flow first");
	TEST_ASSERT_EQUAL(ibv_destroy_flow(f[5]), 0, "");
	f[5] = rt_flow_default(q[1], IBV_FLOW_ATTR_SNIFFER);
	TEST_ASSERT_NOT_NULL(f[5], "sniffer");
	TEST_ASSERT_EQUAL(who_gets(tx, q, 4, cq, &d), 0x6,
			  "sniffer copy + normal");
	TEST_ASSERT_EQUAL(ibv_destroy_flow(f[5]), 0, "");
	/* MC_DEFAULT: multicast frames no NORMAL flow takes */
	f[5] = rt_flow_default(q[3], IBV_FLOW_ATTR_MC_DEFAULT);
	TEST_ASSERT_NOT_NULL(f[5], "mc default");
	d.dip = 0xcb007199;
	TEST_ASSERT_EQUAL(who_gets(tx, q, 4, cq, &d), 0x0, "unicast: nobody");
	d.dmac = rt_mac_mc;
	TEST_ASSERT_EQUAL(who_gets(tx, q, 4, cq, &d), 0x8, "multicast");
	d.dip = 0xcb007105;
	TEST_ASSERT_EQUAL(who_gets(tx, q, 4, cq, &d), 0x4,
			  "normal flow before mc default");
	TEST_ASSERT_EQUAL(ibv_destroy_flow(f[5]), 0, "");
	d.dmac = rt_mac_b;

	/* flows with specs that make no sense for a default rule */
	{
		struct ibv_flow_attr a = {.type = IBV_FLOW_ATTR_NORMAL,
					  .size = sizeof(a),
					  .port = 2};

		errno = 0;
		TEST_ASSERT_NULL(ibv_create_flow(q[0], &a), "");
		TEST_ASSERT_EQUAL(errno, EINVAL, "bad port");
		a.port = 1;
		a.flags = IBV_FLOW_ATTR_FLAGS_EGRESS;
		errno = 0;
		TEST_ASSERT_NULL(ibv_create_flow(q[0], &a), "");
		TEST_ASSERT_EQUAL(errno, EOPNOTSUPP, "egress");
	}
	for (int i = 0; i < 4; i++)
		if (i != 4)
			TEST_ASSERT_EQUAL(ibv_destroy_flow(f[i]), 0, "");
	for (int i = 0; i < 4; i++)
		TEST_ASSERT_EQUAL(ibv_destroy_qp(q[i]), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_qp(tx), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_cq(cq), 0, "");
	return TEST_SUCCESS;
}

/* Flows on QPs that are not raw. */
static int
case_flow_qp_types(void)
{
	struct ibv_cq *cq = ibv_create_cq(rt_ctx, 16, NULL, NULL, 0);
	struct ibv_qp_init_attr a = {.send_cq = cq,
				     .recv_cq = cq,
				     .cap = {.max_send_wr = 1,
					     .max_recv_wr = 1,
					     .max_send_sge = 1,
					     .max_recv_sge = 1}};
	struct ibv_qp *rc, *ud;

	TEST_ASSERT_NOT_NULL(cq, "");
	a.qp_type = IBV_QPT_RC;
	rc = ibv_create_qp(rt_pd, &a);
	a.qp_type = IBV_QPT_UD;
	ud = ibv_create_qp(rt_pd, &a);
	TEST_ASSERT(rc && ud, "");
	errno = 0;
	TEST_ASSERT_NULL(rt_flow_eth(rc, rt_mac_a, 0, 0), "");
	TEST_ASSERT_EQUAL(errno, EINVAL, "RC: EINVAL as the kernel");
	errno = 0;
	TEST_ASSERT_NULL(rt_flow_eth(ud, rt_mac_a, 0, 0), "");
	TEST_ASSERT_EQUAL(errno, EOPNOTSUPP, "UD steering: not supported");
	TEST_ASSERT_EQUAL(ibv_destroy_qp(rc), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_qp(ud), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_cq(cq), 0, "");
	return TEST_SUCCESS;
}

/* RoCE frames keep going to the RoCE transport; a sniffer gets copies,
 * default rules do not take them. */
static int
case_roce_untouched(void)
{
	struct ibv_cq *cq = ibv_create_cq(rt_ctx, 64, NULL, NULL, 0);
	struct ibv_cq *rcq = ibv_create_cq(rt_ctx, 64, NULL, NULL, 0);
	struct ibv_qp_init_attr ua = {
		.send_cq = cq,
		.recv_cq = cq,
		.qp_type = IBV_QPT_UD,
		.cap = {.max_send_wr = 4,
			.max_recv_wr = 4,
			.max_send_sge = 1,
			.max_recv_sge = 1},
	};
	struct ibv_qp *ud_a, *ud_b, *snif, *dflt;
	struct ibv_flow *fs, *fd;
	struct ibv_ah *ah;
	union ibv_gid gid;
	struct ibv_wc wc[8];
	int gidx, n, got_ud = 0;

	TEST_ASSERT(cq && rcq, "");
	gidx = test_verbs_first_gid(rt_ctx, &gid);
	if (gidx < 0)
		return TEST_SKIPPED;
	ud_a = ibv_create_qp(rt_pd, &ua);
	ud_b = ibv_create_qp(rt_pd, &ua);
	TEST_ASSERT(ud_a && ud_b, "");
	for (int k = 0; k < 2; k++) {
		struct ibv_qp *q = k ? ud_b : ud_a;
		struct ibv_qp_attr a = {.qp_state = IBV_QPS_INIT,
					.port_num = 1,
					.qkey = 0x11111111};

		TEST_ASSERT_EQUAL(
			ibv_modify_qp(q, &a,
				      IBV_QP_STATE | IBV_QP_PKEY_INDEX |
					      IBV_QP_PORT | IBV_QP_QKEY),
			0, "");
		a.qp_state = IBV_QPS_RTR;
		TEST_ASSERT_EQUAL(ibv_modify_qp(q, &a, IBV_QP_STATE), 0, "");
		a.qp_state = IBV_QPS_RTS;
		TEST_ASSERT_EQUAL(
			ibv_modify_qp(q, &a, IBV_QP_STATE | IBV_QP_SQ_PSN), 0,
			"");
	}
	snif = rt_raw_qp(rcq);
	dflt = rt_raw_qp(rcq);
	TEST_ASSERT(snif && dflt, "");
	fs = rt_flow_default(snif, IBV_FLOW_ATTR_SNIFFER);
	fd = rt_flow_default(dflt, IBV_FLOW_ATTR_ALL_DEFAULT);
	TEST_ASSERT(fs && fd, "");
	TEST_ASSERT_EQUAL(rt_post_recvs(snif, NULL, 0, 2), 0, "");
	TEST_ASSERT_EQUAL(rt_post_recvs(dflt, NULL, 8, 2), 0, "");
	TEST_ASSERT_EQUAL(rt_post_recvs(ud_b, NULL, 16, 1), 0, "");

	struct ibv_ah_attr aha = {.is_global = 1,
				  .port_num = 1,
				  .grh = {.dgid = gid,
					  .sgid_index = (uint8_t)gidx,
					  .hop_limit = 64}};

	ah = ibv_create_ah(rt_pd, &aha);
	TEST_ASSERT_NOT_NULL(ah, "ah: %s", strerror(errno));
	memset(rt_buf + SEND_OFF, 0x5a, 100);
	{
		struct ibv_sge sge = {.addr = (uintptr_t)rt_buf + SEND_OFF,
				      .length = 100,
				      .lkey = rt_mr->lkey};
		struct ibv_send_wr wr = {.sg_list = &sge,
					 .num_sge = 1,
					 .opcode = IBV_WR_SEND,
					 .send_flags = IBV_SEND_SIGNALED};
		struct ibv_send_wr *bad;

		wr.wr.ud.ah = ah;
		wr.wr.ud.remote_qpn = ud_b->qp_num;
		wr.wr.ud.remote_qkey = 0x11111111;
		TEST_ASSERT_EQUAL(ibv_post_send(ud_a, &wr, &bad), 0, "");
	}
	n = rt_drain(cq, wc, 2);
	for (int i = 0; i < n; i++)
		if (wc[i].opcode == IBV_WC_RECV && wc[i].qp_num == ud_b->qp_num)
			got_ud += wc[i].status == IBV_WC_SUCCESS &&
				  wc[i].byte_len == 100 + 40;
	TEST_ASSERT_EQUAL(got_ud, 1, "UD receive through the RoCE path");
	n = rt_drain(rcq, wc, 4);
	TEST_ASSERT_EQUAL(rt_count_recv(wc, n, snif->qp_num), 1,
			  "sniffer copy");
	TEST_ASSERT_EQUAL(rt_count_recv(wc, n, dflt->qp_num), 0,
			  "default rule does not take RoCE");
	for (int i = 0; i < n; i++)
		if (wc[i].qp_num == snif->qp_num)
			TEST_ASSERT(wc[i].byte_len > 100 + 14 + 20 + 8 + 12,
				    "whole RoCE frame (%u)", wc[i].byte_len);

	TEST_ASSERT_EQUAL(ibv_destroy_flow(fs), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_flow(fd), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_ah(ah), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_qp(snif), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_qp(dflt), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_qp(ud_a), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_qp(ud_b), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_cq(cq), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_cq(rcq), 0, "");
	return TEST_SUCCESS;
}

#define NWQ 4

/* Expected hash: Toeplitz over src IP, dst IP, src port, dst port. */
static uint32_t
expect_hash(uint32_t sip, uint32_t dip, uint16_t sport, uint16_t dport)
{
	uint32_t t[3] = {sip, dip, (uint32_t)sport << 16 | dport};

	return rte_softrss(t, 3, rss_key);
}

static int
case_rss(void)
{
	struct ibv_cq *cqs[NWQ],
		*scq = ibv_create_cq(rt_ctx, 256, NULL, NULL, 0);
	struct ibv_wq *wq[NWQ];
	struct ibv_rwq_ind_table *ind;
	struct ibv_qp *tx, *rss;
	struct ibv_flow *fl;
	int expect[NWQ] = {0}, got[NWQ] = {0}, want[32];
	struct ibv_wc wc[64];
	uint8_t key[40];

	TEST_ASSERT_NOT_NULL(scq, "");
	memcpy(key, rss_key, sizeof(key));
	for (int i = 0; i < NWQ; i++) {
		struct ibv_wq_init_attr wa = {.wq_type = IBV_WQT_RQ,
					      .max_wr = 64,
					      .max_sge = 1,
					      .pd = rt_pd};

		cqs[i] = ibv_create_cq(rt_ctx, 128, NULL, NULL, 0);
		TEST_ASSERT_NOT_NULL(cqs[i], "");
		wa.cq = cqs[i];
		wq[i] = ibv_create_wq(rt_ctx, &wa);
		TEST_ASSERT_NOT_NULL(wq[i], "create_wq: %s", strerror(errno));
		TEST_ASSERT(wa.max_wr >= 64, "");
		TEST_ASSERT_EQUAL(rt_post_recvs(NULL, wq[i], 16 * i, 16), 0,
				  "");
		if (i == 1) {
			/* the mlx5dv view of its ring: what was posted */
			struct mlx5dv_rwq rv;
			struct mlx5dv_obj o = {.rwq = {.in = wq[i], .out = &rv}};
			const struct mlx5_wqe_data_seg *ds;

			TEST_ASSERT_EQUAL(
				dpv_mlx5dv_init_obj(&o, MLX5DV_OBJ_RWQ), 0, "");
			TEST_ASSERT(rv.buf != NULL && rv.dbrec != NULL &&
					    rv.wqe_cnt >= 64 && rv.stride >= 16,
				    "rwq view");
			TEST_ASSERT_EQUAL(be32toh(rv.dbrec[0]) & 0xffff, 16,
					  "16 posted");
			ds = (const struct mlx5_wqe_data_seg *)
				     ((const uint8_t *)rv.buf + 3 * rv.stride);
			TEST_ASSERT(be64toh(ds->addr) ==
						    (uintptr_t)rt_buf + RECV_OFF +
							    19 * SLOT &&
					    be32toh(ds->lkey) == rt_mr->lkey &&
					    be32toh(ds->byte_count) == SLOT,
				    "WQE 3 is the 4th receive posted");
			/* RDY -> RESET empties the ring where it is (the
			 * view stays valid); posting again refills it */
			struct ibv_wq_attr r = {.attr_mask = IBV_WQ_ATTR_STATE,
						.wq_state = IBV_WQS_RDY};

			TEST_ASSERT_EQUAL(ibv_modify_wq(wq[i], &r), 0, "");
			r.wq_state = IBV_WQS_RESET;
			TEST_ASSERT_EQUAL(ibv_modify_wq(wq[i], &r), 0, "");
			struct mlx5dv_rwq rv2;

			o.rwq.out = &rv2;
			TEST_ASSERT_EQUAL(
				dpv_mlx5dv_init_obj(&o, MLX5DV_OBJ_RWQ), 0, "");
			TEST_ASSERT(rv2.buf == rv.buf && rv2.dbrec == rv.dbrec,
				    "ring kept");
			TEST_ASSERT_EQUAL(be32toh(rv.dbrec[0]), 0, "emptied");
			TEST_ASSERT_EQUAL(rt_post_recvs(NULL, wq[i], 16 * i,
							16),
					  0, "");
			TEST_ASSERT_EQUAL(be32toh(rv.dbrec[0]) & 0xffff, 16,
					  "16 posted again");
		}
		struct ibv_wq_attr m = {.attr_mask = IBV_WQ_ATTR_STATE,
					.wq_state = IBV_WQS_RDY};

		TEST_ASSERT_EQUAL(ibv_modify_wq(wq[i], &m), 0, "");
	}
	{
		struct ibv_wq_attr m = {.attr_mask = IBV_WQ_ATTR_STATE |
						     IBV_WQ_ATTR_CURR_STATE,
					.wq_state = IBV_WQS_ERR,
					.curr_wq_state = IBV_WQS_RESET};

		TEST_ASSERT_EQUAL(ibv_modify_wq(wq[0], &m), EINVAL,
				  "wrong current state");
	}
	struct ibv_rwq_ind_table_init_attr ia = {.log_ind_tbl_size = 2,
						 .ind_tbl = wq};

	ind = ibv_create_rwq_ind_table(rt_ctx, &ia);
	TEST_ASSERT_NOT_NULL(ind, "ind table: %s", strerror(errno));
	TEST_ASSERT_EQUAL(ibv_destroy_wq(wq[1]), EBUSY, "WQ in a table");

	struct ibv_qp_init_attr_ex qa = {
		.qp_type = IBV_QPT_RAW_PACKET,
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_IND_TABLE |
			     IBV_QP_INIT_ATTR_RX_HASH,
		.pd = rt_pd,
		.rwq_ind_tbl = ind,
		.rx_hash_conf = {.rx_hash_function = IBV_RX_HASH_FUNC_TOEPLITZ,
				 .rx_hash_key_len = 40,
				 .rx_hash_key = key,
				 .rx_hash_fields_mask =
					 IBV_RX_HASH_SRC_IPV4 |
					 IBV_RX_HASH_DST_IPV4 |
					 IBV_RX_HASH_SRC_PORT_UDP |
					 IBV_RX_HASH_DST_PORT_UDP}};

	/* bad hash configurations */
	qa.rx_hash_conf.rx_hash_fields_mask |= IBV_RX_HASH_SRC_PORT_TCP;
	errno = 0;
	TEST_ASSERT_NULL(ibv_create_qp_ex(rt_ctx, &qa), "");
	TEST_ASSERT_EQUAL(errno, EINVAL, "TCP and UDP ports");
	qa.rx_hash_conf.rx_hash_fields_mask &=
		~(uint64_t)IBV_RX_HASH_SRC_PORT_TCP;
	qa.rx_hash_conf.rx_hash_fields_mask |= IBV_RX_HASH_INNER;
	errno = 0;
	TEST_ASSERT_NULL(ibv_create_qp_ex(rt_ctx, &qa), "");
	TEST_ASSERT_EQUAL(errno, EOPNOTSUPP, "inner without tunnel offloads");
	{
		/* with them (what mlx5dv_create_qp() calls for
		 * MLX5DV_QP_CREATE_TUNNEL_OFFLOADS), inner hashing is taken */
		struct ibv_qp *iq = dpv_qp_create_tunnel(rt_ctx, &qa);

		TEST_ASSERT_NOT_NULL(iq, "inner RSS QP: %s", strerror(errno));
		TEST_ASSERT_EQUAL(ibv_destroy_qp(iq), 0, "");
	}
	qa.rx_hash_conf.rx_hash_fields_mask &= ~(uint64_t)IBV_RX_HASH_INNER;
	qa.rx_hash_conf.rx_hash_key_len = 20;
	errno = 0;
	TEST_ASSERT_NULL(ibv_create_qp_ex(rt_ctx, &qa), "");
	TEST_ASSERT_EQUAL(errno, EINVAL, "key length");
	qa.rx_hash_conf.rx_hash_key_len = 40;
	qa.comp_mask &= ~(uint32_t)IBV_QP_INIT_ATTR_IND_TABLE;
	errno = 0;
	TEST_ASSERT_NULL(ibv_create_qp_ex(rt_ctx, &qa), "");
	TEST_ASSERT_EQUAL(errno, EINVAL, "hash without table");
	qa.comp_mask |= IBV_QP_INIT_ATTR_IND_TABLE;

	rss = ibv_create_qp_ex(rt_ctx, &qa);
	TEST_ASSERT_NOT_NULL(rss, "RSS QP: %s", strerror(errno));
	/* the sender is a QP of the same context */
	TEST_ASSERT_EQUAL(dpv_qp_raw_self_loopback(rss, 1, 0), 0, "");
	TEST_ASSERT_EQUAL(rt_to_rts(rss), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_rwq_ind_table(ind), EBUSY,
			  "table in use");
	fl = rt_flow_ip_udp(rss, 0xc0000263, 0, 0);
	TEST_ASSERT_NOT_NULL(fl, "flow on RSS QP: %s", strerror(errno));
	tx = rt_raw_qp(scq);
	TEST_ASSERT_NOT_NULL(tx, "");

	for (int k = 0; k < 32; k++) {
		struct frame_desc d = {.dmac = rt_mac_a,
				       .ether_type = 0x0800,
				       .sip = 0xc0000201 + (k % 5),
				       .dip = 0xc0000263,
				       .sport = (uint16_t)(1000 + 37 * k),
				       .dport = (uint16_t)(5000 + k % 3),
				       .paylen = 32,
				       .seed = (uint8_t)k};
		uint32_t h = expect_hash(d.sip, d.dip, d.sport, d.dport);
		uint32_t len =
			rt_build_frame(rt_buf + SEND_OFF + (k % 16) * SLOT, &d);

		expect[h & (NWQ - 1)]++;
		want[k] = (int)(h & (NWQ - 1));
		TEST_ASSERT_EQUAL(rt_send_frame(tx, k % 16, len), 0, "");
		if (k % 16 == 15)
			TEST_ASSERT_EQUAL(rt_drain(scq, wc, 16), 16, "sends");
	}
	for (int i = 0; i < NWQ; i++) {
		int n = rt_drain(cqs[i], wc, 64), k;

		for (int j = 0; j < n; j++) {
			TEST_ASSERT_EQUAL(wc[j].status, IBV_WC_SUCCESS, "");
			TEST_ASSERT_EQUAL(wc[j].qp_num, wq[i]->wq_num, "");
			TEST_ASSERT_EQUAL(wc[j].byte_len, 14 + 28 + 32, "");
			/* which frame: the payload seed is its index */
			k = rt_buf[RECV_OFF + wc[j].wr_id * SLOT + 42];
			TEST_ASSERT(k < 32, "");
			TEST_ASSERT_EQUAL(want[k], i, "frame %d on WQ %d", k,
					  i);
		}
		got[i] = n;
	}
	for (int i = 0; i < NWQ; i++)
		DPV_TEST_LOG("WQ %d: expected %d got %d", i, expect[i], got[i]);
	for (int i = 0; i < NWQ; i++)
		TEST_ASSERT_EQUAL(got[i], expect[i], "WQ %d spread", i);
	TEST_ASSERT(expect[0] < 32 && expect[1] < 32, "frames spread");

	/* WQ in ERR: posted receives flush */
	{
		struct ibv_wq_attr m = {.attr_mask = IBV_WQ_ATTR_STATE,
					.wq_state = IBV_WQS_ERR};
		int n;

		TEST_ASSERT_EQUAL(ibv_modify_wq(wq[3], &m), 0, "");
		n = rt_drain(cqs[3], wc, 64);
		TEST_ASSERT_EQUAL(n, 16 - got[3], "flushed");
		for (int j = 0; j < n; j++)
			TEST_ASSERT_EQUAL(wc[j].status, IBV_WC_WR_FLUSH_ERR,
					  "");
	}

	TEST_ASSERT_EQUAL(ibv_destroy_flow(fl), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_qp(rss), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_qp(tx), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_wq(wq[0]), EBUSY, "");
	TEST_ASSERT_EQUAL(ibv_destroy_rwq_ind_table(ind), 0, "");
	for (int i = 0; i < NWQ; i++) {
		TEST_ASSERT_EQUAL(ibv_destroy_wq(wq[i]), 0, "");
		TEST_ASSERT_EQUAL(ibv_destroy_cq(cqs[i]), 0, "");
	}
	TEST_ASSERT_EQUAL(ibv_destroy_cq(scq), 0, "");
	return TEST_SUCCESS;
}

/* An IPv4/UDP header pair at f (8-byte UDP payload follows). */
static uint32_t
put_ip_udp(uint8_t *f, uint32_t sip, uint32_t dip, uint16_t sport,
	   uint16_t dport, uint16_t paylen)
{
	uint32_t a;
	uint16_t v;

	memset(f, 0, 28);
	f[0] = 0x45;
	v = htons((uint16_t)(28 + paylen));
	memcpy(f + 2, &v, 2);
	f[8] = 64;
	f[9] = 17; /* UDP */
	a = htonl(sip);
	memcpy(f + 12, &a, 4);
	a = htonl(dip);
	memcpy(f + 16, &a, 4);
	v = htons(sport);
	memcpy(f + 20, &v, 2);
	v = htons(dport);
	memcpy(f + 22, &v, 2);
	v = htons((uint16_t)(8 + paylen));
	memcpy(f + 24, &v, 2);
	return 28;
}

/* An Ethernet IPv4 header at f. */
static uint32_t
put_eth(uint8_t *f)
{
	memset(f, 0x02, 12);
	f[12] = 0x08;
	f[13] = 0x00;
	return 14;
}

/*
 * IBV_RX_HASH_INNER (the hash the engine's RSS delivery uses): VXLAN and
 * GENEVE frames with the same outer headers and different inner 5-tuples
 * hash as rte_softrss() over the inner fields; a non-tunneled frame on its
 * own (outer) fields; without the flag, the outer fields.
 */
static int
case_rss_inner(void)
{
	const uint64_t fl = IBV_RX_HASH_SRC_IPV4 | IBV_RX_HASH_DST_IPV4 |
			    IBV_RX_HASH_SRC_PORT_UDP | IBV_RX_HASH_DST_PORT_UDP;
	struct ibv_device_attr_ex a;
	uint8_t f[256];
	unsigned int spread = 0;

	TEST_ASSERT_EQUAL(ibv_query_device_ex(rt_ctx, NULL, &a), 0, "");
	TEST_ASSERT(a.rss_caps.rx_hash_fields_mask & IBV_RX_HASH_INNER,
		    "inner hashing advertised");
	for (int k = 0; k < 32; k++) {
		uint32_t isip = 0x0a000001 + (uint32_t)k * 7,
			 idip = 0x0a000102 + (uint32_t)(k % 3);
		uint16_t isp = (uint16_t)(2000 + 31 * k), idp = 80;
		uint16_t port = k & 1 ? 6081 : 4789; /* GENEVE, VXLAN */
		uint32_t n = put_eth(f), in;
		uint32_t oh;

		n += put_ip_udp(f + n, 0xc0000201, 0xc0000263, 49152, port,
				8 + 14 + 28 + 8);
		memset(f + n, 0, 8);
		if (port == 6081) {
			f[n + 2] = 0x65; /* Ethernet payload */
			f[n + 3] = 0x58;
		} else {
			f[n] = 0x08; /* VNI present */
		}
		n += 8;
		in = n;
		n += put_eth(f + n);
		n += put_ip_udp(f + n, isip, idip, isp, idp, 8);
		memset(f + n, 0xab, 8);
		n += 8;
		TEST_ASSERT_EQUAL(
			dpv_engine_rss_hash(f, n, fl | IBV_RX_HASH_INNER,
					    rss_key),
			expect_hash(isip, idip, isp, idp), "inner hash %d", k);
		TEST_ASSERT_EQUAL(dpv_engine_rss_hash(f, n, fl, rss_key),
				  expect_hash(0xc0000201, 0xc0000263, 49152,
					      port),
				  "outer hash without the flag");
		spread |= 1u << (expect_hash(isip, idip, isp, idp) & 3);
		/* the inner frame alone (not tunneled): its own fields */
		oh = dpv_engine_rss_hash(f + in, n - in,
					 fl | IBV_RX_HASH_INNER, rss_key);
		TEST_ASSERT_EQUAL(oh, expect_hash(isip, idip, isp, idp),
				  "non-tunneled frame %d", k);
	}
	TEST_ASSERT_EQUAL(spread, 0xfu, "inner tuples reach all 4 WQs");
	return TEST_SUCCESS;
}

static int
case_wq_errors(void)
{
	struct ibv_cq *cq = ibv_create_cq(rt_ctx, 16, NULL, NULL, 0);
	struct ibv_wq_init_attr wa = {.wq_type = IBV_WQT_RQ,
				      .max_wr = 0,
				      .max_sge = 1,
				      .pd = rt_pd,
				      .cq = cq};
	struct ibv_wq *wq;

	TEST_ASSERT_NOT_NULL(cq, "");
	errno = 0;
	TEST_ASSERT_NULL(ibv_create_wq(rt_ctx, &wa), "");
	TEST_ASSERT_EQUAL(errno, EINVAL, "max_wr 0");
	wa.max_wr = 4;
	wq = ibv_create_wq(rt_ctx, &wa);
	TEST_ASSERT_NOT_NULL(wq, "");
	TEST_ASSERT_EQUAL(ibv_destroy_cq(cq), EBUSY, "CQ used by a WQ");
	{
		struct ibv_wq_attr m = {.attr_mask = IBV_WQ_ATTR_STATE,
					.wq_state = IBV_WQS_ERR};

		TEST_ASSERT_EQUAL(ibv_modify_wq(wq, &m), EINVAL,
				  "RESET -> ERR");
	}
	{
		struct ibv_rwq_ind_table_init_attr ia = {.log_ind_tbl_size = 20,
							 .ind_tbl = &wq};

		errno = 0;
		TEST_ASSERT_NULL(ibv_create_rwq_ind_table(rt_ctx, &ia), "");
		TEST_ASSERT_EQUAL(errno, EINVAL, "table too large");
	}
	TEST_ASSERT_EQUAL(ibv_destroy_wq(wq), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_cq(cq), 0, "");
	return TEST_SUCCESS;
}

static const struct dpv_test_suite raw_suite = {
	.name = "raw",
	.setup = rt_setup,
	.teardown = rt_teardown,
	.cases =
		{
			TEST_CASE(case_caps),
			TEST_CASE(case_send_recv),
			TEST_CASE(case_flow_match),
			TEST_CASE(case_flow_qp_types),
			TEST_CASE(case_roce_untouched),
			TEST_CASE(case_rss),
			TEST_CASE(case_rss_inner),
			TEST_CASE(case_wq_errors),
			TEST_CASES_END(),
		},
};

static int
test_raw(void)
{
	return dpv_test_run_suite(&raw_suite);
}

DPV_TEST_REGISTER_FAST(raw, test_raw);
