/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a ConnectX does to raw frames on their way, done in software:
 * IP/TCP/UDP checksums on send (IBV_SEND_IP_CSUM) and their check on
 * receive (IBV_WC_IP_CSUM_OK), the Ethernet FCS a DPDK port strips
 * (IBV_QP_CREATE_SCATTER_FCS), per-QP transmit pacing (IBV_QP_RATE_LIMIT)
 * and the sender tag that tells self-loopback apart.
 */
#include <errno.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>
#include <rte_net_crc.h>
#include <rte_tcp.h>
#include <rte_udp.h>

#include "engine_raw_int.h"

/* ------------------------------------------------------------- tagging */

static int tag_off = -1;
static uint64_t tag_flag;

int
raw_tag_init(void)
{
	static const struct rte_mbuf_dynfield fd = {
		.name = "dpv_raw_sender",
		.size = sizeof(struct raw_tag),
		.align = __alignof__(struct raw_tag),
	};
	static const struct rte_mbuf_dynflag fl = {
		.name = "dpv_raw_sender_flag",
	};
	int off, bit;

	if (tag_off >= 0)
		return 0;
	off = rte_mbuf_dynfield_register(&fd);
	bit = rte_mbuf_dynflag_register(&fl);
	if (off < 0 || bit < 0)
		return -rte_errno;
	tag_flag = UINT64_C(1) << bit;
	__atomic_store_n(&tag_off, off, __ATOMIC_RELEASE);
	return 0;
}

void
raw_tag_set(struct rte_mbuf *m, uint32_t domain, uint32_t qpn)
{
	int off = __atomic_load_n(&tag_off, __ATOMIC_ACQUIRE);
	struct raw_tag *t;

	if (off < 0 || domain == 0)
		return;
	t = RTE_MBUF_DYNFIELD(m, off, struct raw_tag *);
	t->domain = domain;
	t->qpn = qpn;
	m->ol_flags |= tag_flag;
}

bool
raw_tag_get(const struct rte_mbuf *m, struct raw_tag *t)
{
	int off = __atomic_load_n(&tag_off, __ATOMIC_ACQUIRE);

	/* PMDs rewrite ol_flags on receive: only a frame that went round
	 * inside this process (the loopback ring) keeps the flag */
	if (off < 0 || !(m->ol_flags & tag_flag))
		return false;
	*t = *RTE_MBUF_DYNFIELD(m, off, const struct raw_tag *);
	return true;
}

/* -------------------------------------------------------------- pacing */

#define PACE_MAX_BURST (16u << 20) /* bytes kept while idle, at most */

void
raw_pace_set(struct raw_qp *q, uint32_t kbps, uint32_t max_burst)
{
	uint64_t hz = rte_get_tsc_hz();

	q->rate_kbps = kbps;
	q->depth = (int64_t)(RTE_MIN(max_burst, PACE_MAX_BURST) * hz);
	q->tokens = q->depth;
	q->last_cost = 0;
	q->last_tsc = rte_get_tsc_cycles();
}

/*
 * Credit earned since the last look, up to the bucket's depth, but at
 * least the last frame's cost: a poll that comes late (the thread was not
 * running) does not lose the rate, and at most one extra frame goes.
 */
static void
pace_refill(struct raw_qp *q)
{
	uint64_t now = rte_get_tsc_cycles();
	int64_t cap = RTE_MAX(q->depth, q->last_cost);
	unsigned __int128 add;

	add = (unsigned __int128)(now - q->last_tsc) * (q->rate_kbps * 125u);
	q->last_tsc = now;
	if (add >= (unsigned __int128)(cap - q->tokens))
		q->tokens = cap;
	else
		q->tokens += (int64_t)add;
}

bool
raw_pace_ok(struct raw_qp *q)
{
	if (q->rate_kbps == 0 || q->tokens >= 0)
		return true;
	pace_refill(q);
	return q->tokens >= 0;
}

void
raw_pace_take(struct raw_qp *q, uint32_t len)
{
	if (q->rate_kbps == 0)
		return;
	pace_refill(q);
	q->last_cost = (int64_t)len * (int64_t)rte_get_tsc_hz();
	q->tokens -= q->last_cost;
}

/* ----------------------------------------------------------- checksums */

struct l3_loc {
	uint32_t l3;  /* offset of the IP header */
	uint32_t l4;  /* offset of the L4 header (0: none usable) */
	uint32_t end; /* end of the IP datagram */
	uint8_t proto;
	bool v4;
};

/* Locate the IP datagram of a frame inside its first len bytes. */
static bool
l3_locate(const uint8_t *f, uint32_t len, struct l3_loc *o)
{
	uint32_t off = RTE_ETHER_HDR_LEN;
	uint16_t et;

	memset(o, 0, sizeof(*o));
	if (len < off)
		return false;
	memcpy(&et, f + 12, 2);
	if (et == rte_cpu_to_be_16(RTE_ETHER_TYPE_VLAN)) {
		if (len < off + 4)
			return false;
		memcpy(&et, f + 16, 2);
		off += 4;
	}
	o->l3 = off;
	if (et == rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4)) {
		const struct rte_ipv4_hdr *ip = (const void *)(f + off);
		uint32_t hl, tot;

		if (len < off + sizeof(*ip))
			return false;
		hl = (ip->version_ihl & 0xf) * 4u;
		tot = rte_be_to_cpu_16(ip->total_length);
		if ((ip->version_ihl >> 4) != 4 || hl < 20 || tot < hl ||
		    off + tot > len)
			return false;
		o->v4 = true;
		o->end = off + tot;
		o->proto = ip->next_proto_id;
		/* the L4 checksum covers the whole datagram: not in fragments
		 */
		if (!(rte_be_to_cpu_16(ip->fragment_offset) &
		      (RTE_IPV4_HDR_OFFSET_MASK | RTE_IPV4_HDR_MF_FLAG)))
			o->l4 = off + hl;
	} else if (et == rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6)) {
		const struct rte_ipv6_hdr *ip = (const void *)(f + off);

		if (len < off + sizeof(*ip) ||
		    off + sizeof(*ip) + rte_be_to_cpu_16(ip->payload_len) > len)
			return false;
		o->end = off + sizeof(*ip) + rte_be_to_cpu_16(ip->payload_len);
		o->proto = ip->proto;
		o->l4 = off + sizeof(*ip);
	} else {
		return false;
	}
	if (o->proto == IPPROTO_UDP &&
	    o->end - o->l4 < sizeof(struct rte_udp_hdr))
		o->l4 = 0;
	else if (o->proto == IPPROTO_TCP &&
		 o->end - o->l4 < sizeof(struct rte_tcp_hdr))
		o->l4 = 0;
	else if (o->proto != IPPROTO_UDP && o->proto != IPPROTO_TCP)
		o->l4 = 0;
	return true;
}

/* Offset of the checksum field inside the L4 header. */
static uint32_t
l4_csum_off(uint8_t proto)
{
	return proto == IPPROTO_UDP ? offsetof(struct rte_udp_hdr, dgram_cksum)
				    : offsetof(struct rte_tcp_hdr, cksum);
}

void
raw_csum_fill(uint8_t *f, uint32_t len)
{
	struct l3_loc o;
	uint16_t ck;

	if (!l3_locate(f, len, &o))
		return;
	if (o.v4) {
		struct rte_ipv4_hdr *ip = (void *)(f + o.l3);

		ip->hdr_checksum = 0;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
	}
	if (o.l4 == 0)
		return;
	memset(f + o.l4 + l4_csum_off(o.proto), 0, 2);
	if (o.v4)
		ck = rte_ipv4_udptcp_cksum((const void *)(f + o.l3), f + o.l4);
	else
		ck = rte_ipv6_udptcp_cksum((const void *)(f + o.l3), f + o.l4);
	memcpy(f + o.l4 + l4_csum_off(o.proto), &ck, 2);
}

bool
raw_csum_ok(const struct rte_mbuf *m)
{
	const struct rte_ipv4_hdr *ip;
	const uint8_t *f;
	struct l3_loc o;
	uint16_t ck;

	if (m->nb_segs != 1)
		return false; /* not checked: not reported good */
	f = rte_pktmbuf_mtod(m, const uint8_t *);
	if (!l3_locate(f, m->data_len, &o) || !o.v4 || o.l4 == 0)
		return false;
	ip = (const void *)(f + o.l3);
	if (rte_ipv4_cksum(ip) != 0xffff && rte_ipv4_cksum(ip) != 0)
		return false;
	memcpy(&ck, f + o.l4 + l4_csum_off(o.proto), 2);
	if (o.proto == IPPROTO_UDP && ck == 0)
		return true; /* no UDP checksum: nothing wrong */
	return rte_ipv4_udptcp_cksum_verify(ip, f + o.l4) == 0;
}

/* ----------------------------------------------------------------- FCS */

int
raw_fcs(const struct rte_mbuf *m, uint32_t len, uint8_t *scratch,
	uint32_t scratch_len, uint8_t fcs[4])
{
	const void *d;
	uint32_t crc;

	if (m->nb_segs != 1 && (scratch == NULL || len > scratch_len))
		return -1;
	d = rte_pktmbuf_read(m, 0, len, scratch);
	if (d == NULL)
		return -1;
	crc = rte_net_crc_calc(d, len, RTE_NET_CRC32_ETH);
	/* the FCS goes on the wire least significant byte first */
	fcs[0] = (uint8_t)crc;
	fcs[1] = (uint8_t)(crc >> 8);
	fcs[2] = (uint8_t)(crc >> 16);
	fcs[3] = (uint8_t)(crc >> 24);
	return 0;
}
