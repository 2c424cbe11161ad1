/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TSO on raw-packet QPs through the public verbs API on the loopback
 * device dpv0: IBV_WR_TSO with ibv_post_send and ibv_wr_send_tso, cut into
 * MSS-sized TCP segments by the engine. Every segment that arrives is
 * checked against the header template and the payload: its length, IP
 * length and ID, TCP sequence number and flags, both checksums (computed
 * here, independently) and its slice of the payload. Also the caps and
 * the errno rules.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "dpv_test.h"
#include "test_raw_util.h"
#include "verbs_dv.h"
#include "verbs_int.h"
#include "dpv_engine_raw.h"

#define TCP_FIN 0x01
#define TCP_PSH 0x08
#define TCP_ACK 0x10
#define TCP_CWR 0x80

/* A header template and the payload it is to carry. */
struct tso_case {
	uint8_t hdr[128];
	uint32_t hlen, l3, l4;
	bool v4;
	const uint8_t *pay;
	uint32_t total, mss;
};

static uint32_t
get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static uint16_t
get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/*
 * Ethernet [802.1Q] IPv4|IPv6 TCP (with 12 bytes of options when opts)
 * into t->hdr, with wrong lengths and checksums, sequence number
 * 0xfffffe00 (it wraps), IPv4 ID 0xfffe (it wraps), flags
 * CWR|ACK|PSH|FIN.
 */
static void
tso_template(struct tso_case *t, bool v4, bool vlan, bool opts)
{
	static const uint8_t sip6[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 1};
	static const uint8_t dip6[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 2};
	uint8_t *h = t->hdr, *ip, *tcp;
	uint32_t off = 12;

	memset(t->hdr, 0, sizeof(t->hdr));
	memcpy(h, rt_mac_a, 6);
	memcpy(h + 6, rt_mac_src, 6);
	if (vlan) {
		put16(h + 12, 0x8100);
		put16(h + 14, 0x2064);
		off += 4;
	}
	put16(h + off, v4 ? 0x0800 : 0x86dd);
	t->l3 = off + 2;
	ip = h + t->l3;
	t->v4 = v4;
	if (v4) {
		ip[0] = 0x45;
		put16(ip + 2, 0x1111); /* total length: wrong */
		put16(ip + 4, 0xfffe); /* ID */
		put16(ip + 6, 0x4000); /* DF */
		ip[8] = 64;
		ip[9] = 6;
		put16(ip + 10, 0xbeef); /* checksum: wrong */
		memcpy(ip + 12, (const uint8_t[]){192, 0, 2, 1}, 4);
		memcpy(ip + 16, (const uint8_t[]){192, 0, 2, 2}, 4);
		t->l4 = t->l3 + 20;
	} else {
		ip[0] = 0x60;
		put16(ip + 4, 0x2222); /* payload length: wrong */
		ip[6] = 6;
		ip[7] = 64;
		memcpy(ip + 8, sip6, 16);
		memcpy(ip + 24, dip6, 16);
		t->l4 = t->l3 + 40;
	}
	tcp = h + t->l4;
	put16(tcp, 40000);
	put16(tcp + 2, 80);
	memcpy(tcp + 4, (const uint8_t[]){0xff, 0xff, 0xfe, 0x00}, 4);
	memcpy(tcp + 8, (const uint8_t[]){0, 0, 0, 1}, 4);
	tcp[12] = (uint8_t)((opts ? 8 : 5) << 4);
	tcp[13] = TCP_CWR | TCP_ACK | TCP_PSH | TCP_FIN;
	put16(tcp + 14, 65535);
	put16(tcp + 16, 0xdead); /* checksum: wrong */
	if (opts)
		memcpy(tcp + 20,
		       (const uint8_t[]){1, 1, 8, 10, 1, 2, 3, 4, 5, 6, 7, 8},
		       12);
	t->hlen = t->l4 + (opts ? 32 : 20);
}

/* Fill the send area with a payload pattern; t->pay points at it. */
static void
tso_payload(struct tso_case *t, uint32_t total, uint32_t mss, uint8_t seed)
{
	uint8_t *p = rt_buf + SEND_OFF;

	for (uint32_t i = 0; i < total; i++)
		p[i] = (uint8_t)(i * 7 + seed + i / 251);
	t->pay = p;
	t->total = total;
	t->mss = mss;
}

/* Segment i (n payload bytes) as it arrived in f (len bytes). */
static int
check_segment(const struct tso_case *t, const uint8_t *f, uint32_t len,
	      uint32_t i)
{
	uint32_t nseg = (t->total + t->mss - 1) / t->mss;
	uint32_t n = i + 1 < nseg ? t->mss : t->total - i * t->mss;
	const uint8_t *ip = f + t->l3, *tcp = f + t->l4;
	const uint8_t *tip = t->hdr + t->l3, *ttcp = t->hdr + t->l4;
	uint8_t flags = ttcp[13];

	TEST_ASSERT_EQUAL(len, t->hlen + n, "segment %u length", i);
	TEST_ASSERT_BUFFERS_EQUAL(f, t->hdr, t->l3, "segment %u L2", i);
	if (t->v4) {
		TEST_ASSERT_EQUAL(get16(ip + 2), t->hlen - t->l3 + n,
				  "segment %u IP total length", i);
		TEST_ASSERT_EQUAL(get16(ip + 4), (uint16_t)(0xfffe + i),
				  "segment %u IP ID", i);
		TEST_ASSERT_BUFFERS_EQUAL(ip + 6, tip + 6, 4, "");
		TEST_ASSERT_BUFFERS_EQUAL(ip + 12, tip + 12, 8, "");
		TEST_ASSERT_EQUAL(fold(sum16(ip, 20, 0)), 0xffff,
				  "segment %u IP checksum", i);
		TEST_ASSERT(l4_ok_v4(ip), "segment %u TCP checksum", i);
	} else {
		TEST_ASSERT_EQUAL(get16(ip + 4), t->hlen - t->l4 + n,
				  "segment %u payload length", i);
		TEST_ASSERT_BUFFERS_EQUAL(ip + 6, tip + 6, 34, "");
		TEST_ASSERT(l4_ok_v6(ip), "segment %u TCP checksum", i);
	}
	TEST_ASSERT_BUFFERS_EQUAL(tcp, ttcp, 4, "ports");
	TEST_ASSERT_EQUAL(get32(tcp + 4), get32(ttcp + 4) + i * t->mss,
			  "segment %u sequence number", i);
	TEST_ASSERT_BUFFERS_EQUAL(tcp + 8, ttcp + 8, 5, "ack, data offset");
	if (i + 1 < nseg)
		flags &= (uint8_t) ~(TCP_FIN | TCP_PSH);
	if (i > 0)
		flags &= (uint8_t)~TCP_CWR;
	TEST_ASSERT_EQUAL(tcp[13], flags, "segment %u flags", i);
	TEST_ASSERT_BUFFERS_EQUAL(tcp + 14, ttcp + 14, 2, "window");
	TEST_ASSERT_BUFFERS_EQUAL(tcp + 20, ttcp + 20, t->hlen - t->l4 - 20,
				  "options");
	TEST_ASSERT_BUFFERS_EQUAL(f + t->hlen, t->pay + i * t->mss, n,
				  "segment %u payload", i);
	return TEST_SUCCESS;
}

/* Receive every segment of t on rcq (in order) and check each. */
static int
check_all(const struct tso_case *t, struct ibv_cq *rcq, uint32_t slot0)
{
	uint32_t nseg = t->total ? (t->total + t->mss - 1) / t->mss : 1;
	struct ibv_wc wc[128];
	int n;

	TEST_ASSERT(nseg <= sizeof(wc) / sizeof(wc[0]), "");
	n = drain_ms(rcq, wc, (int)nseg, 5000);
	TEST_ASSERT_EQUAL(n, (int)nseg, "segments received");
	TEST_ASSERT_EQUAL(drain_ms(rcq, wc + n, 1, 50), 0, "no more");
	for (int i = 0; i < n; i++) {
		TEST_ASSERT_EQUAL(wc[i].status, IBV_WC_SUCCESS, "");
		TEST_ASSERT_EQUAL(wc[i].wr_id, slot0 + (uint32_t)i, "in order");
		TEST_ASSERT(wc[i].wc_flags & IBV_WC_IP_CSUM_OK || !t->v4,
			    "IPv4 segments reported good");
		if (check_segment(
			    t, rt_buf + RECV_OFF + (slot0 + (uint32_t)i) * SLOT,
			    wc[i].byte_len, (uint32_t)i) != TEST_SUCCESS)
			return TEST_FAILED;
	}
	return TEST_SUCCESS;
}

/* A raw QP for TSO (max_tso_header, ibv_qp_ex send ops), in RTS. */
static struct ibv_qp *
tso_qp(struct ibv_cq *cq, uint32_t max_tso_header, bool ex)
{
	struct ibv_qp_init_attr_ex a = {
		.send_cq = cq,
		.recv_cq = cq,
		.qp_type = IBV_QPT_RAW_PACKET,
		.cap = {.max_send_wr = 16,
			.max_recv_wr = 128,
			.max_send_sge = 4,
			.max_recv_sge = 1,
			.max_inline_data = 128},
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_MAX_TSO_HEADER |
			     (ex ? IBV_QP_INIT_ATTR_SEND_OPS_FLAGS : 0),
		.pd = rt_pd,
		.max_tso_header = (uint16_t)max_tso_header,
		.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_TSO,
	};
	struct ibv_qp *qp = ibv_create_qp_ex(rt_ctx, &a);

	if (qp != NULL &&
	    (dpv_qp_raw_self_loopback(qp, 1, 1) != 0 || rt_to_rts(qp) != 0)) {
		ibv_destroy_qp(qp);
		return NULL;
	}
	return qp;
}

static int
post_tso(struct ibv_qp *qp, const struct tso_case *t, struct ibv_sge *sge,
	 int nsge, unsigned int flags)
{
	struct ibv_send_wr wr = {.wr_id = 77,
				 .sg_list = sge,
				 .num_sge = nsge,
				 .opcode = IBV_WR_TSO,
				 .send_flags = IBV_SEND_SIGNALED | flags,
				 .tso = {.hdr = (void *)t->hdr,
					 .hdr_sz = (uint16_t)t->hlen,
					 .mss = (uint16_t)t->mss}};
	struct ibv_send_wr *bad = NULL;
	int rc = ibv_post_send(qp, &wr, &bad);

	if (rc != 0 && bad != &wr)
		return -1;
	return rc;
}

/* The one send completion of a TSO WR. */
static int
tso_sent(struct ibv_cq *scq)
{
	struct ibv_wc wc;

	TEST_ASSERT_EQUAL(drain_ms(scq, &wc, 1, 5000), 1, "send completion");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "%s",
			  ibv_wc_status_str(wc.status));
	TEST_ASSERT_EQUAL(wc.opcode, IBV_WC_TSO, "");
	return TEST_SUCCESS;
}

struct pair {
	struct ibv_cq *scq, *rcq;
	struct ibv_qp *tx, *rx;
	struct ibv_flow *fl;
};

static int
pair_open(struct pair *p, bool ex)
{
	memset(p, 0, sizeof(*p));
	p->scq = ibv_create_cq(rt_ctx, 64, NULL, NULL, 0);
	p->rcq = ibv_create_cq(rt_ctx, 256, NULL, NULL, 0);
	TEST_ASSERT(p->scq && p->rcq, "");
	p->tx = tso_qp(p->scq, 128, ex);
	p->rx = tso_qp(p->rcq, 0, false);
	TEST_ASSERT(p->tx && p->rx, "QPs: %s", strerror(errno));
	p->fl = rt_flow_eth(p->rx, rt_mac_a, 0, 0);
	TEST_ASSERT_NOT_NULL(p->fl, "");
	return TEST_SUCCESS;
}

static void
pair_close(struct pair *p)
{
	if (p->fl)
		ibv_destroy_flow(p->fl);
	if (p->tx)
		ibv_destroy_qp(p->tx);
	if (p->rx)
		ibv_destroy_qp(p->rx);
	if (p->scq)
		ibv_destroy_cq(p->scq);
	if (p->rcq)
		ibv_destroy_cq(p->rcq);
}

/* --------------------------------------------------------------- cases */

static int
case_caps(void)
{
	struct ibv_device_attr_ex a;
	struct ibv_cq *cq = ibv_create_cq(rt_ctx, 8, NULL, NULL, 0);
	struct ibv_qp *qp;

	TEST_ASSERT_NOT_NULL(cq, "");
	TEST_ASSERT_EQUAL(ibv_query_device_ex(rt_ctx, NULL, &a), 0, "");
	TEST_ASSERT_EQUAL(a.tso_caps.max_tso, 262144, "");
	TEST_ASSERT_EQUAL(a.tso_caps.supported_qpts, 1u << IBV_QPT_RAW_PACKET,
			  "");
	/* less room than the Ethernet segment's 18 bytes gets those */
	qp = tso_qp(cq, 16, false);
	TEST_ASSERT_NOT_NULL(qp, "max_tso_header 16: errno %d", errno);
	ibv_destroy_qp(qp);
	qp = tso_qp(cq, 513, false);
	TEST_ASSERT(qp == NULL && errno == EINVAL, "max_tso_header 513");
	qp = tso_qp(cq, 512, false);
	TEST_ASSERT_NOT_NULL(qp, "max_tso_header 512: errno %d", errno);
	ibv_destroy_qp(qp);
	qp = tso_qp(cq, 256, true);
	TEST_ASSERT_NOT_NULL(qp, "%s", strerror(errno));
	TEST_ASSERT_NOT_NULL(ibv_qp_to_qp_ex(qp)->wr_send_tso, "");
	TEST_ASSERT_EQUAL(ibv_destroy_qp(qp), 0, "");
	{
		struct ibv_qp_init_attr_ex u = {
			.send_cq = cq,
			.recv_cq = cq,
			.qp_type = IBV_QPT_UD,
			.cap = {.max_send_wr = 1,
				.max_recv_wr = 1,
				.max_send_sge = 1,
				.max_recv_sge = 1},
			.comp_mask = IBV_QP_INIT_ATTR_PD |
				     IBV_QP_INIT_ATTR_MAX_TSO_HEADER,
			.pd = rt_pd,
			.max_tso_header = 64,
		};

		TEST_ASSERT_NULL(ibv_create_qp_ex(rt_ctx, &u), "");
		TEST_ASSERT_EQUAL(errno, EOPNOTSUPP, "TSO on UD");
	}
	ibv_destroy_cq(cq);
	return TEST_SUCCESS;
}

/* IPv4, TCP options, payload in two SGEs split off the MSS grid. */
static int
case_ipv4_post_send(void)
{
	static struct tso_case t;
	struct pair p;
	struct ibv_sge sge[2];
	int rc;

	if (pair_open(&p, false) != TEST_SUCCESS)
		goto fail;
	tso_template(&t, true, false, true);
	tso_payload(&t, 1700, 500, 3);
	sge[0] = (struct ibv_sge){(uintptr_t)t.pay, 1003, rt_mr->lkey};
	sge[1] = (struct ibv_sge){(uintptr_t)t.pay + 1003, 697, rt_mr->lkey};
	TEST_ASSERT_EQUAL(rt_post_recvs(p.rx, NULL, 0, 8), 0, "");
	TEST_ASSERT_EQUAL(post_tso(p.tx, &t, sge, 2, 0), 0, "");
	rc = tso_sent(p.scq);
	if (rc == TEST_SUCCESS)
		rc = check_all(&t, p.rcq, 0);
	pair_close(&p);
	return rc;
fail:
	pair_close(&p);
	return TEST_FAILED;
}

/* IPv6 behind an 802.1Q tag (a 78-byte header) through ibv_wr_send_tso,
 * and a last segment shorter than the MSS; then a plain frame through
 * ibv_wr_send on the same QP. */
static int
case_ipv6_vlan_qp_ex(void)
{
	static struct tso_case t;
	struct ibv_qp_ex *x;
	struct ibv_wc wc[2];
	struct pair p;
	struct ibv_sge sge;
	uint32_t len;
	int rc;

	if (pair_open(&p, true) != TEST_SUCCESS)
		goto fail;
	tso_template(&t, false, true, false);
	TEST_ASSERT_EQUAL(t.hlen, 78, "");
	tso_payload(&t, 3001, 1000, 9);
	sge = (struct ibv_sge){(uintptr_t)t.pay, 3001, rt_mr->lkey};
	TEST_ASSERT_EQUAL(rt_post_recvs(p.rx, NULL, 0, 8), 0, "");
	x = ibv_qp_to_qp_ex(p.tx);
	ibv_wr_start(x);
	x->wr_id = 5;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send_tso(x, t.hdr, (uint16_t)t.hlen, (uint16_t)t.mss);
	ibv_wr_set_sge_list(x, 1, &sge);
	TEST_ASSERT_EQUAL(ibv_wr_complete(x), 0, "");
	rc = tso_sent(p.scq);
	if (rc == TEST_SUCCESS)
		rc = check_all(&t, p.rcq, 0);
	if (rc != TEST_SUCCESS)
		goto out;

	/* a whole frame with wr_send + inline data */
	len = (uint32_t)t.hlen + 10;
	memcpy(rt_buf + SEND_OFF + 8192, t.hdr, t.hlen);
	ibv_wr_start(x);
	x->wr_id = 6;
	x->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
	ibv_wr_send(x);
	ibv_wr_set_inline_data(x, rt_buf + SEND_OFF + 8192, len);
	TEST_ASSERT_EQUAL(ibv_wr_complete(x), 0, "");
	TEST_ASSERT_EQUAL(drain_ms(p.scq, wc, 1, 5000), 1, "");
	TEST_ASSERT_EQUAL(wc[0].opcode, IBV_WC_SEND, "");
	TEST_ASSERT_EQUAL(drain_ms(p.rcq, wc + 1, 1, 5000), 1, "");
	TEST_ASSERT_EQUAL(wc[1].byte_len, len, "");
	TEST_ASSERT_BUFFERS_EQUAL(rt_buf + RECV_OFF + wc[1].wr_id * SLOT,
				  rt_buf + SEND_OFF + 8192, len, "as sent");
out:
	pair_close(&p);
	return rc;
fail:
	pair_close(&p);
	return TEST_FAILED;
}

/* 90 segments of 100 bytes: more than the engine queues at once, so the
 * WQE is taken up again where it stopped. */
static int
case_many_segments(void)
{
	static struct tso_case t;
	struct pair p;
	struct ibv_sge sge;
	int rc;

	if (pair_open(&p, false) != TEST_SUCCESS)
		goto fail;
	tso_template(&t, true, false, false);
	tso_payload(&t, 9000, 100, 1);
	sge = (struct ibv_sge){(uintptr_t)t.pay, 9000, rt_mr->lkey};
	TEST_ASSERT_EQUAL(rt_post_recvs(p.rx, NULL, 0, 90), 0, "");
	TEST_ASSERT_EQUAL(post_tso(p.tx, &t, &sge, 1, IBV_SEND_IP_CSUM), 0, "");
	rc = tso_sent(p.scq);
	if (rc == TEST_SUCCESS)
		rc = check_all(&t, p.rcq, 0);
	pair_close(&p);
	return rc;
fail:
	pair_close(&p);
	return TEST_FAILED;
}

/* A paced QP: the WR stops after each frame the rate does not allow yet
 * and is taken up again, on the engine's run list, until its last one. */
static int
case_paced(void)
{
	static struct tso_case t;
	struct ibv_qp_rate_limit_attr rl = {.rate_limit = 2000};
	struct dpv_engine_raw_stats st0, st1;
	struct pair p;
	struct ibv_sge sge;
	uint64_t t0;
	int rc;

	if (pair_open(&p, false) != TEST_SUCCESS)
		goto fail;
	TEST_ASSERT_EQUAL(ibv_modify_qp_rate_limit(p.tx, &rl), 0, "");
	TEST_ASSERT_EQUAL(
		dpv_engine_raw_stats_get(dctx_dev(rt_ctx)->engine, &st0), 0,
		"");
	tso_template(&t, true, false, false);
	tso_payload(&t, 1200, 100, 2);
	sge = (struct ibv_sge){(uintptr_t)t.pay, 1200, rt_mr->lkey};
	TEST_ASSERT_EQUAL(rt_post_recvs(p.rx, NULL, 0, 12), 0, "");
	t0 = now_ms();
	TEST_ASSERT_EQUAL(post_tso(p.tx, &t, &sge, 1, 0), 0, "");
	rc = check_all(&t, p.rcq, 0);
	if (rc == TEST_SUCCESS)
		rc = tso_sent(p.scq);
	pair_close(&p);
	TEST_ASSERT_EQUAL(rc, TEST_SUCCESS, "");
	/* 12 frames of 154 bytes at 2 Mbit/s: at least 11 frame times */
	TEST_ASSERT(now_ms() - t0 >= 6, "paced: %u ms",
		    (unsigned int)(now_ms() - t0));
	TEST_ASSERT_EQUAL(
		dpv_engine_raw_stats_get(dctx_dev(rt_ctx)->engine, &st1), 0,
		"");
	TEST_ASSERT(st1.tx_paced > st0.tx_paced, "the WR waited");
	return TEST_SUCCESS;
fail:
	pair_close(&p);
	return TEST_FAILED;
}

/* Refused at post (EINVAL, nothing sent) or completed in error. */
static int
case_errors(void)
{
	static struct tso_case t;
	struct ibv_qp *plain;
	struct ibv_wc wc;
	struct pair p;
	struct ibv_sge sge;

	if (pair_open(&p, false) != TEST_SUCCESS) {
		pair_close(&p);
		return TEST_FAILED;
	}
	tso_template(&t, true, false, false);
	tso_payload(&t, 1000, 400, 5);
	sge = (struct ibv_sge){(uintptr_t)t.pay, 1000, rt_mr->lkey};
	TEST_ASSERT_EQUAL(rt_post_recvs(p.rx, NULL, 0, 8), 0, "");
	t.hlen = 17;
	TEST_ASSERT_EQUAL(post_tso(p.tx, &t, &sge, 1, 0), EINVAL, "hdr 17");
	t.hlen = 129;
	TEST_ASSERT_EQUAL(post_tso(p.tx, &t, &sge, 1, 0), EINVAL,
			  "above max_tso_header");
	t.hlen = 54;
	t.mss = 0;
	TEST_ASSERT_EQUAL(post_tso(p.tx, &t, &sge, 1, 0), EINVAL, "mss 0");
	t.mss = 400;
	/* a QP created without max_tso_header */
	plain = rt_raw_qp_ex(rt_pd, p.scq, 0, false);
	TEST_ASSERT_NOT_NULL(plain, "");
	TEST_ASSERT_EQUAL(post_tso(plain, &t, &sge, 1, 0), EINVAL,
			  "no TSO header room");
	ibv_destroy_qp(plain);
	TEST_ASSERT_EQUAL(drain_ms(p.rcq, &wc, 1, 50), 0, "nothing sent");
	TEST_ASSERT_EQUAL(drain_ms(p.scq, &wc, 1, 50), 0, "");

	/* not TCP: the WR completes in error, the QP goes to ERR */
	t.hdr[t.l3 + 9] = 17;
	TEST_ASSERT_EQUAL(post_tso(p.tx, &t, &sge, 1, 0), 0, "");
	TEST_ASSERT_EQUAL(drain_ms(p.scq, &wc, 1, 5000), 1, "");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_LOC_QP_OP_ERR, "%s",
			  ibv_wc_status_str(wc.status));
	TEST_ASSERT_EQUAL(drain_ms(p.rcq, &wc, 1, 50), 0, "nothing sent");
	pair_close(&p);

	/* a bad lkey: IBV_WC_LOC_PROT_ERR */
	if (pair_open(&p, false) != TEST_SUCCESS) {
		pair_close(&p);
		return TEST_FAILED;
	}
	tso_template(&t, true, false, false);
	sge.lkey = rt_mr->lkey + 0x100;
	TEST_ASSERT_EQUAL(post_tso(p.tx, &t, &sge, 1, 0), 0, "");
	TEST_ASSERT_EQUAL(drain_ms(p.scq, &wc, 1, 5000), 1, "");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_LOC_PROT_ERR, "%s",
			  ibv_wc_status_str(wc.status));
	pair_close(&p);
	return TEST_SUCCESS;
}

static const struct dpv_test_suite raw_tso_suite = {
	.name = "raw_tso",
	.setup = rt_setup,
	.teardown = rt_teardown,
	.cases =
		{
			TEST_CASE(case_caps),
			TEST_CASE(case_ipv4_post_send),
			TEST_CASE(case_ipv6_vlan_qp_ex),
			TEST_CASE(case_many_segments),
			TEST_CASE(case_paced),
			TEST_CASE(case_errors),
			TEST_CASES_END(),
		},
};

static int
test_raw_tso(void)
{
	return dpv_test_run_suite(&raw_tso_suite);
}

DPV_TEST_REGISTER_FAST(raw_tso, test_raw_tso);
