/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Raw-packet test helpers (test_raw.c, test_raw_ofl.c): one context on
 * the loopback device dpv0 with a PD and a registered buffer, Ethernet /
 * IPv4 / UDP frames, raw QPs, flows, bounded CQ draining.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <arpa/inet.h>

#include <infiniband/verbs.h>

#include "dpv_test.h"
#include "test_raw_util.h"
#include "test_verbs_util.h"
#include "verbs_dv.h"
struct ibv_device **rt_devs;
struct ibv_context *rt_ctx;
struct ibv_pd *rt_pd;
struct ibv_mr *rt_mr;
uint8_t *rt_buf; /* [0, 64K): send frames; [64K, 256K): receive */

const uint8_t rt_mac_a[6] = {0x02, 0x00, 0x5e, 0x00, 0x02, 0x0a};
const uint8_t rt_mac_b[6] = {0x02, 0x00, 0x5e, 0x00, 0x02, 0x0b};
const uint8_t rt_mac_mc[6] = {0x01, 0x00, 0x5e, 0x00, 0x00, 0x07};
const uint8_t rt_mac_src[6] = {0x02, 0x00, 0x5e, 0x00, 0x02, 0x01};

/* Build an Ethernet (+ IPv4 + UDP when ether_type is IPv4) frame. */
uint32_t
rt_build_frame(uint8_t *f, const struct frame_desc *d)
{
	uint32_t n = 14, l;
	uint16_t v;

	memcpy(f, d->dmac, 6);
	memcpy(f + 6, rt_mac_src, 6);
	v = htons(d->ether_type);
	memcpy(f + 12, &v, 2);
	if (d->ether_type == 0x0800) {
		uint8_t *ip = f + 14;
		uint32_t a;

		memset(ip, 0, 28);
		ip[0] = 0x45;
		v = htons((uint16_t)(28 + d->paylen));
		memcpy(ip + 2, &v, 2);
		ip[8] = 64;
		ip[9] = 17;
		a = htonl(d->sip);
		memcpy(ip + 12, &a, 4);
		a = htonl(d->dip);
		memcpy(ip + 16, &a, 4);
		v = htons(d->sport);
		memcpy(ip + 20, &v, 2);
		v = htons(d->dport);
		memcpy(ip + 22, &v, 2);
		v = htons((uint16_t)(8 + d->paylen));
		memcpy(ip + 24, &v, 2);
		n += 28;
	}
	for (l = 0; l < d->paylen; l++)
		f[n + l] = (uint8_t)(d->seed + l * 7);
	return n + d->paylen;
}

int
rt_to_rts(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {.qp_state = IBV_QPS_INIT, .port_num = 1};

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PORT))
		return -1;
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE))
		return -1;
	a.qp_state = IBV_QPS_RTS;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE) ? -1 : 0;
}

struct ibv_qp *
rt_raw_qp_ex(struct ibv_pd *pd, struct ibv_cq *cq, uint32_t create_flags,
	     bool self_lb)
{
	struct ibv_qp_init_attr_ex a = {
		.send_cq = cq,
		.recv_cq = cq,
		.qp_type = IBV_QPT_RAW_PACKET,
		.cap = {.max_send_wr = 64,
			.max_recv_wr = 64,
			.max_send_sge = 2,
			.max_recv_sge = 1},
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     (create_flags ? IBV_QP_INIT_ATTR_CREATE_FLAGS : 0),
		.pd = pd,
		.create_flags = create_flags,
	};
	struct ibv_qp *qp = ibv_create_qp_ex(pd->context, &a);

	if (qp == NULL)
		return NULL;
	if ((self_lb && dpv_qp_raw_self_loopback(qp, 1, 1) != 0) ||
	    rt_to_rts(qp) != 0) {
		ibv_destroy_qp(qp);
		return NULL;
	}
	return qp;
}

struct ibv_qp *
rt_raw_qp(struct ibv_cq *cq)
{
	return rt_raw_qp_ex(rt_pd, cq, 0, true);
}

int
rt_post_recvs(struct ibv_qp *qp, struct ibv_wq *wq, unsigned int slot0,
	      unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		struct ibv_sge sge = {.addr = (uintptr_t)rt_buf + RECV_OFF +
					      (slot0 + i) * SLOT,
				      .length = SLOT,
				      .lkey = rt_mr->lkey};
		struct ibv_recv_wr wr = {
			.wr_id = slot0 + i, .sg_list = &sge, .num_sge = 1};
		struct ibv_recv_wr *bad;
		int rc = qp ? ibv_post_recv(qp, &wr, &bad)
			    : ibv_post_wq_recv(wq, &wr, &bad);

		if (rc)
			return rc;
	}
	return 0;
}

int
rt_send_frame(struct ibv_qp *qp, unsigned int slot, uint32_t len)
{
	struct ibv_sge sge = {.addr = (uintptr_t)rt_buf + SEND_OFF +
				      slot * SLOT,
			      .length = len,
			      .lkey = rt_mr->lkey};
	struct ibv_send_wr wr = {.wr_id = 1000 + slot,
				 .sg_list = &sge,
				 .num_sge = 1,
				 .opcode = IBV_WR_SEND,
				 .send_flags = IBV_SEND_SIGNALED};
	struct ibv_send_wr *bad;

	return ibv_post_send(qp, &wr, &bad);
}

/* Poll until max completions or nothing more comes (bounded). */
int
rt_drain(struct ibv_cq *c, struct ibv_wc *wc, int max)
{
	int got = 0, idle = 0;

	for (int i = 0; i < 20000 && got < max && idle < 200; i++) {
		int r = ibv_poll_cq(c, max - got, wc + got);

		if (r < 0)
			return r;
		idle = r ? 0 : idle + 1;
		got += r;
	}
	return got;
}

/* Count receive completions per QP number in wc[0..n). */
int
rt_count_recv(const struct ibv_wc *wc, int n, uint32_t qpn)
{
	int c = 0;

	for (int i = 0; i < n; i++)
		if (wc[i].opcode == IBV_WC_RECV && wc[i].qp_num == qpn &&
		    wc[i].status == IBV_WC_SUCCESS)
			c++;
	return c;
}

struct ibv_flow *
rt_flow_eth(struct ibv_qp *qp, const uint8_t *dmac, uint16_t etype,
	    uint16_t prio)
{
	struct {
		struct ibv_flow_attr attr;
		struct ibv_flow_spec_eth eth;
	} f;

	memset(&f, 0, sizeof(f));
	f.attr.type = IBV_FLOW_ATTR_NORMAL;
	f.attr.size = sizeof(f);
	f.attr.priority = prio;
	f.attr.num_of_specs = 1;
	f.attr.port = 1;
	f.eth.type = IBV_FLOW_SPEC_ETH;
	f.eth.size = sizeof(f.eth);
	if (dmac) {
		memcpy(f.eth.val.dst_mac, dmac, 6);
		memset(f.eth.mask.dst_mac, 0xff, 6);
	}
	if (etype) {
		f.eth.val.ether_type = htons(etype);
		f.eth.mask.ether_type = 0xffff;
	}
	return ibv_create_flow(qp, &f.attr);
}

struct ibv_flow *
rt_flow_ip_udp(struct ibv_qp *qp, uint32_t dip, uint16_t dport, uint16_t prio)
{
	struct flow_eth_ip_udp f;

	memset(&f, 0, sizeof(f));
	f.attr.type = IBV_FLOW_ATTR_NORMAL;
	f.attr.size = sizeof(f);
	f.attr.priority = prio;
	f.attr.num_of_specs = 3;
	f.attr.port = 1;
	f.eth.type = IBV_FLOW_SPEC_ETH;
	f.eth.size = sizeof(f.eth);
	f.ip.type = IBV_FLOW_SPEC_IPV4;
	f.ip.size = sizeof(f.ip);
	if (dip) {
		f.ip.val.dst_ip = htonl(dip);
		f.ip.mask.dst_ip = 0xffffffff;
	}
	f.udp.type = IBV_FLOW_SPEC_UDP;
	f.udp.size = sizeof(f.udp);
	if (dport) {
		f.udp.val.dst_port = htons(dport);
		f.udp.mask.dst_port = 0xffff;
	}
	return ibv_create_flow(qp, &f.attr);
}

struct ibv_flow *
rt_flow_default(struct ibv_qp *qp, enum ibv_flow_attr_type t)
{
	struct ibv_flow_attr a = {.type = t, .size = sizeof(a), .port = 1};

	return ibv_create_flow(qp, &a);
}

int
rt_setup(void)
{
	struct ibv_device *dev = NULL;
	int n;

	if (dpv_test_eal_init() != 0)
		return TEST_SKIPPED;
	rt_devs = ibv_get_device_list(&n);
	for (int i = 0; rt_devs != NULL && i < n; i++)
		if (strcmp(ibv_get_device_name(rt_devs[i]), "dpv0") == 0)
			dev = rt_devs[i];
	if (dev == NULL) {
		DPV_TEST_LOG("no dpv0");
		return TEST_SKIPPED;
	}
	rt_ctx = ibv_open_device(dev);
	if (rt_ctx == NULL)
		return TEST_FAILED;
	rt_pd = ibv_alloc_pd(rt_ctx);
	rt_buf = aligned_alloc(4096, 262144);
	if (rt_pd == NULL || rt_buf == NULL)
		return TEST_FAILED;
	memset(rt_buf, 0, 262144);
	rt_mr = ibv_reg_mr(rt_pd, rt_buf, 262144, IBV_ACCESS_LOCAL_WRITE);
	return rt_mr ? TEST_SUCCESS : TEST_FAILED;
}

void
rt_teardown(void)
{
	if (rt_mr)
		ibv_dereg_mr(rt_mr);
	test_verbs_release(&rt_devs, &rt_ctx, &rt_pd);
	free(rt_buf);
	rt_mr = NULL;
	rt_buf = NULL;
}

uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Poll until max completions or ms milliseconds have passed. */
int
drain_ms(struct ibv_cq *c, struct ibv_wc *wc, int max, unsigned int ms)
{
	uint64_t end = now_ms() + ms;
	int got = 0;

	while (got < max && now_ms() < end) {
		int r = ibv_poll_cq(c, max - got, wc + got);

		if (r < 0)
			return r;
		got += r;
	}
	return got;
}

/* Internet checksum (RFC 1071) of len bytes, added to sum. */
uint32_t
sum16(const uint8_t *p, uint32_t len, uint32_t sum)
{
	for (uint32_t i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	return sum;
}

uint16_t
fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

/* Whether the L4 checksum of an IPv4 datagram at ip verifies. */
bool
l4_ok_v4(const uint8_t *ip)
{
	uint32_t hl = (ip[0] & 0xf) * 4u, tot = (uint32_t)ip[2] << 8 | ip[3];
	uint32_t s = sum16(ip + 12, 8, 0) + ip[9] + (tot - hl);

	return fold(sum16(ip + hl, tot - hl, s)) == 0xffff;
}

/* Whether the L4 checksum of an IPv6 datagram at ip verifies. */
bool
l4_ok_v6(const uint8_t *ip)
{
	uint32_t pl = (uint32_t)ip[4] << 8 | ip[5];
	uint32_t s = sum16(ip + 8, 32, 0) + ip[6] + pl;

	return fold(sum16(ip + 40, pl, s)) == 0xffff;
}
