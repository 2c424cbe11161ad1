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
	uint32_t pay; /* offset of the IP payload (0: a fragment) */
	uint32_t l4;  /* offset of the L4 header (0: none usable) */
	uint32_t end; /* end of the IP datagram */
	uint8_t proto;
	bool v4;
};

/* Locate the IP datagram of ether type et at offset off inside len bytes. */
static bool
l3_locate_at(const uint8_t *f, uint32_t len, uint32_t off, uint16_t et,
	     struct l3_loc *o)
{
	memset(o, 0, sizeof(*o));
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
			o->pay = off + hl;
	} else if (et == rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6)) {
		const struct rte_ipv6_hdr *ip = (const void *)(f + off);

		if (len < off + sizeof(*ip) ||
		    off + sizeof(*ip) + rte_be_to_cpu_16(ip->payload_len) > len)
			return false;
		o->end = off + sizeof(*ip) + rte_be_to_cpu_16(ip->payload_len);
		o->proto = ip->proto;
		o->pay = off + sizeof(*ip);
	} else {
		return false;
	}
	o->l4 = o->pay;
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

/* Locate the IP datagram of an Ethernet frame inside its first len bytes. */
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
	return l3_locate_at(f, len, off, et, o);
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

/* The IPv4 header checksum of datagram o is right (IPv6 has none). */
static bool
ip_ok(const uint8_t *f, const struct l3_loc *o)
{
	const struct rte_ipv4_hdr *ip = (const void *)(f + o->l3);
	uint16_t ck;

	if (!o->v4)
		return true;
	ck = rte_ipv4_cksum(ip);
	return ck == 0xffff || ck == 0;
}

/* The TCP/UDP checksum of datagram o is right; a UDP checksum of 0 (none
 * sent) is not wrong. */
static bool
l4_ok(const uint8_t *f, const struct l3_loc *o)
{
	uint16_t ck;

	if (o->l4 == 0)
		return false;
	memcpy(&ck, f + o->l4 + l4_csum_off(o->proto), 2);
	if (o->proto == IPPROTO_UDP && ck == 0)
		return true;
	if (o->v4)
		return rte_ipv4_udptcp_cksum_verify((const void *)(f + o->l3),
						    f + o->l4) == 0;
	return rte_ipv6_udptcp_cksum_verify((const void *)(f + o->l3),
					    f + o->l4) == 0;
}

/* What IBV_WC_IP_CSUM_OK says: IPv4 carrying TCP/UDP, both sums right. */
static bool
plain_ok(const uint8_t *f, const struct l3_loc *o)
{
	return o->v4 && o->l4 != 0 && ip_ok(f, o) && l4_ok(f, o);
}

/* Tunnels known to the receive check (the IANA ports, GRE protocol). */
#define VXLAN_PORT 4789
#define GENEVE_PORT 6081
#define TUN_HDR_LEN 8 /* VXLAN header, GENEVE base header */
#define ETH_P_TEB 0x6558 /* transparent Ethernet bridging */
#define GRE_C 0x8000u
#define GRE_R 0x4000u
#define GRE_K 0x2000u
#define GRE_S 0x1000u
#define GRE_VER 0x0007u

struct tun_loc {
	uint32_t in;  /* offset of the inner frame */
	uint16_t et;  /* its ether type (network order) if it is IP */
	bool eth;     /* it is an Ethernet frame */
	bool gre_ok;  /* no GRE checksum, or a right one */
};

/* Find the inner frame of a VXLAN, GENEVE or GRE packet (datagram o). */
static bool
tunnel_locate(const uint8_t *f, const struct l3_loc *o, struct tun_loc *t)
{
	uint32_t h;
	uint16_t v;

	memset(t, 0, sizeof(*t));
	t->gre_ok = true;
	if (o->proto == IPPROTO_UDP && o->l4 != 0) {
		const struct rte_udp_hdr *u = (const void *)(f + o->l4);
		uint16_t port = rte_be_to_cpu_16(u->dst_port);

		h = o->l4 + sizeof(*u);
		if (h + TUN_HDR_LEN > o->end)
			return false;
		t->eth = true;
		if (port == VXLAN_PORT) {
			t->in = h + TUN_HDR_LEN;
			return true;
		}
		/* GENEVE version 0 carrying Ethernet, after its options */
		if (port != GENEVE_PORT || (f[h] >> 6) != 0 ||
		    ((uint32_t)f[h + 2] << 8 | f[h + 3]) != ETH_P_TEB)
			return false;
		t->in = h + TUN_HDR_LEN + (f[h] & 0x3fu) * 4u;
		return t->in <= o->end;
	}
	if (o->proto != IPPROTO_GRE || o->pay == 0 || o->pay + 4 > o->end)
		return false;
	h = o->pay;
	v = (uint16_t)(f[h] << 8 | f[h + 1]);
	if (v & (GRE_R | GRE_VER))
		return false; /* source routes, PPTP's version 1 */
	t->in = h + 4 + ((v & GRE_C) ? 4 : 0) + ((v & GRE_K) ? 4 : 0) +
		((v & GRE_S) ? 4 : 0);
	if (t->in > o->end)
		return false;
	memcpy(&t->et, f + h + 2, 2);
	t->eth = t->et == rte_cpu_to_be_16(ETH_P_TEB);
	if (!t->eth && t->et != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) &&
	    t->et != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6))
		return false;
	/* the GRE checksum covers the GRE header and its payload */
	if (v & GRE_C)
		t->gre_ok = rte_raw_cksum(f + h, o->end - h) == 0xffff;
	return true;
}

bool
raw_tunnel_inner(const uint8_t *f, uint32_t len, uint32_t *off, uint16_t *et)
{
	struct l3_loc o;
	struct tun_loc t;

	if (!l3_locate(f, len, &o) || !tunnel_locate(f, &o, &t))
		return false;
	*off = t.in;
	*et = t.eth ? 0 : t.et;
	return t.in < o.end;
}

unsigned int
raw_csum_eval(const struct rte_mbuf *m, bool tunnels)
{
	struct l3_loc o, io;
	struct tun_loc t;
	const uint8_t *f;
	bool outer, inner;

	if (m->nb_segs != 1)
		return 0; /* not checked: not reported good */
	f = rte_pktmbuf_mtod(m, const uint8_t *);
	if (!l3_locate(f, m->data_len, &o))
		return 0;
	if (!tunnels || !tunnel_locate(f, &o, &t))
		return plain_ok(f, &o) ? RAW_CSUM_OK : 0;
	/* tunneled: the outer sums must be right, and the report is the
	 * inner datagram's (as a ConnectX QP with tunnel offloads) */
	outer = ip_ok(f, &o) && t.gre_ok &&
		(o.proto != IPPROTO_UDP || l4_ok(f, &o));
	f += t.in;
	if (t.eth)
		inner = l3_locate(f, o.end - t.in, &io);
	else
		inner = l3_locate_at(f, o.end - t.in, 0, t.et, &io);
	inner = inner && plain_ok(f, &io);
	return RAW_CSUM_TUNNEL | (outer && inner ? RAW_CSUM_OK : 0);
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
