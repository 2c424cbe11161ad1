/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DPV_ROCE_PARSE_H
#define DPV_ROCE_PARSE_H

/**
 * @file
 * The body of dpv_roce_parse() / dpv_roce_parse_mbuf() as an inline
 * function, for a per-packet caller (the engine's receive path) that
 * wants the compiler to keep only the fields it reads. Everyone else calls
 * dpv_roce_parse(): the checks, their order and the statuses are the same
 * (dpv_roce_pkt.h documents them).
 */

#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_udp.h>

#include "dpv_roce_gid.h"
#include "dpv_roce_icrc.h"
#include "dpv_roce_pkt.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Shortest Ethernet frame without its FCS (60 bytes): shorter frames
 *  carry padding that is not part of the IP packet. */
#define DPV_ROCE_ETH_MIN_NOFCS_ (RTE_ETHER_MIN_LEN - RTE_ETHER_CRC_LEN)

/**
 * Verify an IPv4 header checksum, a 32-bit word at a time (helper of
 * dpv_roce_parse_inline()).
 *
 * @param ip
 *   The IPv4 header (any alignment).
 * @param ihl
 *   Its length in bytes: a multiple of 4, at least 20.
 * @return
 *   true if the one's complement sum of the header is 0xffff (checksum
 *   right), false otherwise.
 */
static inline bool
dpv_roce_ipv4_csum_ok_(const void *ip, uint32_t ihl)
{
	const uint8_t *p = (const uint8_t *)ip;
	uint64_t s = 0;
	uint32_t w[5];

	if (likely(ihl == 20)) { /* no options: five words, no loop */
		memcpy(w, p, 20);
		s = (uint64_t)w[0] + w[1] + w[2] + w[3] + w[4];
	} else {
		for (uint32_t i = 0; i < ihl; i += 4) {
			memcpy(w, p + i, 4);
			s += w[0];
		}
	}
	/* one's complement: fold the carries back in */
	s = (s & 0xffffffff) + (s >> 32);
	s = (s & 0xffffffff) + (s >> 32);
	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	return s == 0xffff;
}

/**
 * dpv_roce_gid_from_ipv4() inline (helper of dpv_roce_parse_inline(), so
 * that a caller's pkt stays a local whose unread fields the compiler may
 * drop).
 *
 * @param gid
 *   Output: ::ffff:a.b.c.d.
 * @param ipv4_be
 *   The IPv4 address, network order.
 */
static inline void
dpv_roce_gid_v4_(uint8_t gid[16], uint32_t ipv4_be)
{
	static const uint8_t prefix[12] = {0, 0, 0, 0, 0,    0,
					   0, 0, 0, 0, 0xff, 0xff};

	memcpy(gid, prefix, 12);
	memcpy(gid + 12, &ipv4_be, 4);
}

/**
 * Read the extension headers an opcode carries (XRCETH, DCETH, RETH, AETH,
 * AtomicETH, AtomicAckETH, DETH, ImmDt, IETH) into pkt (helper of
 * dpv_roce_parse_inline(); lengths were checked by the caller).
 *
 * @param bth
 *   The BTH in the frame; the headers follow at the opcode's offsets.
 * @param oi
 *   The opcode's table entry (which headers, where).
 * @param pkt
 *   Output: the fields of those headers.
 */
static inline void
dpv_roce_parse_ext_(const uint8_t *bth, const struct dpv_roce_opcode_info *oi,
		    struct dpv_roce_pkt *pkt)
{
	uint32_t m = oi->mask;

	if (m & DPV_OPF_XRCETH)
		pkt->xrc_srqn = dpv_xrceth_srqn(
			(const void *)(bth + oi->off[DPV_HDR_XRCETH]));
	if (m & DPV_OPF_DCETH) {
		const struct dpv_dceth *h =
			(const void *)(bth + oi->off[DPV_HDR_DCETH]);

		pkt->dceth.key = dpv_dceth_key(h);
		pkt->dceth.dci = dpv_dceth_dci(h);
		pkt->dceth.cpsn = dpv_dceth_cpsn(h);
	}
	if (m & DPV_OPF_DETH) {
		const struct dpv_deth *h =
			(const void *)(bth + oi->off[DPV_HDR_DETH]);

		pkt->deth.qkey = dpv_deth_qkey(h);
		pkt->deth.sqp = dpv_deth_sqp(h);
	}
	if (m & DPV_OPF_RETH) {
		const struct dpv_reth *h =
			(const void *)(bth + oi->off[DPV_HDR_RETH]);

		pkt->reth.va = dpv_reth_va(h);
		pkt->reth.rkey = dpv_reth_rkey(h);
		pkt->reth.len = dpv_reth_len(h);
	}
	if (m & DPV_OPF_ATMETH) {
		const struct dpv_atmeth *h =
			(const void *)(bth + oi->off[DPV_HDR_ATMETH]);

		pkt->atmeth.va = dpv_atmeth_va(h);
		pkt->atmeth.rkey = dpv_atmeth_rkey(h);
		pkt->atmeth.swap_add = dpv_atmeth_swap_add(h);
		pkt->atmeth.compare = dpv_atmeth_compare(h);
	}
	if (m & DPV_OPF_AETH) {
		const struct dpv_aeth *h =
			(const void *)(bth + oi->off[DPV_HDR_AETH]);

		pkt->aeth.syndrome = dpv_aeth_syndrome(h);
		pkt->aeth.msn = dpv_aeth_msn(h);
	}
	if (m & DPV_OPF_ATMACK)
		pkt->atmack_orig = dpv_atmack_orig(
			(const void *)(bth + oi->off[DPV_HDR_ATMACK]));
	if (m & DPV_OPF_IMMDT)
		pkt->imm = dpv_immdt_imm(
			(const void *)(bth + oi->off[DPV_HDR_IMMDT]));
	if (m & DPV_OPF_IETH)
		pkt->ieth_rkey = dpv_ieth_rkey(
			(const void *)(bth + oi->off[DPV_HDR_IETH]));
}

/** Inside dpv_roce_parse_inline(): return DPV_ROCE_RX_SEG_HDRS unless the
 *  first segment (seg_len bytes) holds n bytes of headers. */
#define DPV_ROCE_NEED_(n)                                                      \
	do {                                                                   \
		if ((n) > seg_len)                                             \
			return DPV_ROCE_RX_SEG_HDRS;                           \
	} while (0)

/**
 * Parse a frame, as dpv_roce_parse() (m NULL, seg_len == len) or
 * dpv_roce_parse_mbuf() (m the chain: the headers must lie in the first
 * seg_len bytes, len is the packet length).
 *
 * @param f
 *   The frame (first segment), from the destination MAC.
 * @param seg_len
 *   Bytes at f.
 * @param len
 *   Bytes of the whole frame.
 * @param m
 *   The mbuf chain when the frame is segmented, else NULL.
 * @param flags
 *   0 or DPV_ROCE_PARSE_* bits.
 * @param pkt
 *   Output, as for dpv_roce_parse().
 * @return
 *   DPV_ROCE_RX_OK (0), or the first check that failed.
 */
static inline enum dpv_roce_rx_status
dpv_roce_parse_inline(const uint8_t *f, uint32_t seg_len, uint32_t len,
		      const struct rte_mbuf *m, uint32_t flags,
		      struct dpv_roce_pkt *pkt)
{
	const struct rte_ether_hdr *eth = (const void *)f;
	const struct dpv_roce_opcode_info *oi;
	const struct dpv_bth *bth;
	const struct rte_udp_hdr *udp;
	uint32_t off, l3_len, l4_len, data;
	uint16_t etype;
	uint8_t proto;

	if (len < sizeof(*eth))
		return DPV_ROCE_RX_TRUNC_L2;
	DPV_ROCE_NEED_(sizeof(*eth));
	memcpy(pkt->dmac, &eth->dst_addr, 6);
	memcpy(pkt->smac, &eth->src_addr, 6);
	etype = rte_be_to_cpu_16(eth->ether_type);
	off = sizeof(*eth);
	pkt->vlan = false;
	pkt->vlan_tci = 0;
	if (etype == RTE_ETHER_TYPE_VLAN) {
		const struct rte_vlan_hdr *vh = (const void *)(f + off);

		if (len < off + sizeof(*vh))
			return DPV_ROCE_RX_TRUNC_L2;
		DPV_ROCE_NEED_(off + sizeof(*vh));
		pkt->vlan = true;
		pkt->vlan_tci = rte_be_to_cpu_16(vh->vlan_tci);
		etype = rte_be_to_cpu_16(vh->eth_proto);
		off += sizeof(*vh);
	}
	pkt->l3_off = (uint16_t)off;

	if (etype == RTE_ETHER_TYPE_IPV4) {
		const struct rte_ipv4_hdr *ip = (const void *)(f + off);
		uint32_t ihl;

		pkt->ipv6 = false;
		if (len < off + sizeof(*ip))
			return DPV_ROCE_RX_TRUNC_L3;
		DPV_ROCE_NEED_(off + sizeof(*ip));
		if ((ip->version_ihl >> 4) != 4)
			return DPV_ROCE_RX_IP_VERSION;
		ihl = (ip->version_ihl & RTE_IPV4_HDR_IHL_MASK) * 4u;
		if (ihl < sizeof(*ip))
			return DPV_ROCE_RX_IPV4_IHL;
		l3_len = rte_be_to_cpu_16(ip->total_length);
		if (l3_len < ihl || off + l3_len > len ||
		    (off + l3_len < len && len > DPV_ROCE_ETH_MIN_NOFCS_))
			return DPV_ROCE_RX_IP_LEN;
		DPV_ROCE_NEED_(off + ihl);
		if (!(flags & DPV_ROCE_PARSE_NO_CSUM) &&
		    !dpv_roce_ipv4_csum_ok_(ip, ihl))
			return DPV_ROCE_RX_IPV4_CSUM;
		pkt->ip_frag = rte_be_to_cpu_16(ip->fragment_offset);
		if (pkt->ip_frag &
		    (RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK))
			return DPV_ROCE_RX_IPV4_FRAG;
		pkt->tos = ip->type_of_service;
		pkt->ttl = ip->time_to_live;
		pkt->ip_id = rte_be_to_cpu_16(ip->packet_id);
		pkt->flow_label = 0;
		dpv_roce_gid_v4_(pkt->sgid, ip->src_addr);
		dpv_roce_gid_v4_(pkt->dgid, ip->dst_addr);
		proto = ip->next_proto_id;
		l4_len = l3_len - ihl;
		off += ihl;
	} else if (etype == RTE_ETHER_TYPE_IPV6) {
		const struct rte_ipv6_hdr *ip = (const void *)(f + off);
		uint32_t vtc;

		pkt->ipv6 = true;
		if (len < off + sizeof(*ip))
			return DPV_ROCE_RX_TRUNC_L3;
		DPV_ROCE_NEED_(off + sizeof(*ip));
		vtc = rte_be_to_cpu_32(ip->vtc_flow);
		if ((vtc >> 28) != 6)
			return DPV_ROCE_RX_IP_VERSION;
		l4_len = rte_be_to_cpu_16(ip->payload_len);
		l3_len = sizeof(*ip) + l4_len;
		if (off + l3_len > len ||
		    (off + l3_len < len && len > DPV_ROCE_ETH_MIN_NOFCS_))
			return DPV_ROCE_RX_IP_LEN;
		pkt->tos = (uint8_t)(vtc >> 20);
		pkt->flow_label = vtc & 0xfffff;
		pkt->ttl = ip->hop_limits;
		pkt->ip_id = 0;
		pkt->ip_frag = 0;
		memcpy(pkt->sgid, ip->src_addr, 16);
		memcpy(pkt->dgid, ip->dst_addr, 16);
		proto = ip->proto;
		off += sizeof(*ip);
	} else {
		return DPV_ROCE_RX_NOT_IP;
	}
	if (proto != IPPROTO_UDP)
		return DPV_ROCE_RX_NOT_UDP;

	pkt->l4_off = (uint16_t)off;
	pkt->frame_len = pkt->l3_off + l3_len;
	udp = (const void *)(f + off);
	if (l4_len < sizeof(*udp))
		return DPV_ROCE_RX_UDP_LEN;
	DPV_ROCE_NEED_(off + sizeof(*udp));
	if (rte_be_to_cpu_16(udp->dgram_len) != l4_len)
		return DPV_ROCE_RX_UDP_LEN;
	pkt->sport = rte_be_to_cpu_16(udp->src_port);
	pkt->dport = rte_be_to_cpu_16(udp->dst_port);
	pkt->udp_csum = rte_be_to_cpu_16(udp->dgram_cksum);
	if (pkt->dport != DPV_ROCE_UDP_PORT)
		return DPV_ROCE_RX_UDP_PORT;
	if (pkt->udp_csum != 0 && !(flags & DPV_ROCE_PARSE_NO_CSUM)) {
		const void *l3 = f + pkt->l3_off;
		int bad;

		if (m != NULL)
			bad = pkt->ipv6 ? rte_ipv6_udptcp_cksum_mbuf_verify(
						  m, l3, pkt->l4_off)
					: rte_ipv4_udptcp_cksum_mbuf_verify(
						  m, l3, pkt->l4_off);
		else
			bad = pkt->ipv6 ? rte_ipv6_udptcp_cksum_verify(l3, udp)
					: rte_ipv4_udptcp_cksum_verify(l3, udp);

		if (bad)
			return DPV_ROCE_RX_UDP_CSUM;
	}
	off += sizeof(*udp);
	l4_len -= sizeof(*udp);

	if (l4_len < sizeof(*bth) + DPV_ROCE_ICRC_LEN)
		return DPV_ROCE_RX_TRUNC_BTH;
	DPV_ROCE_NEED_(off + sizeof(*bth));
	pkt->bth_off = (uint16_t)off;
	bth = (const void *)(f + off);
	pkt->opcode = dpv_bth_opcode(bth);
	pkt->se = dpv_bth_se(bth);
	pkt->mig = dpv_bth_mig(bth);
	pkt->pad = dpv_bth_pad(bth);
	pkt->tver = dpv_bth_tver(bth);
	pkt->pkey = dpv_bth_pkey(bth);
	pkt->fecn = dpv_bth_fecn(bth);
	pkt->becn = dpv_bth_becn(bth);
	pkt->dqpn = dpv_bth_qpn(bth);
	pkt->ackreq = dpv_bth_ackreq(bth);
	pkt->psn = dpv_bth_psn(bth);
	if (pkt->tver != DPV_ROCE_TVER)
		return DPV_ROCE_RX_TVER;
	oi = dpv_roce_opcode(pkt->opcode);
	pkt->mask = oi->mask;
	if (!(oi->mask & DPV_OPF_VALID))
		return DPV_ROCE_RX_OPCODE;
	if (l4_len < (uint32_t)oi->length + DPV_ROCE_ICRC_LEN)
		return DPV_ROCE_RX_TRUNC_EXT;
	DPV_ROCE_NEED_(off + oi->length);
	dpv_roce_parse_ext_((const uint8_t *)bth, oi, pkt);

	data = l4_len - oi->length - DPV_ROCE_ICRC_LEN;
	pkt->payload_off = (uint16_t)(off + oi->length);
	pkt->payload = f + pkt->payload_off;
	if ((data & 3) != 0 || (data != 0 && !(oi->mask & DPV_OPF_PAYLOAD)))
		return DPV_ROCE_RX_PAYLOAD_LEN;
	if (pkt->pad != 0 && (!(oi->mask & DPV_OPF_LAST) || pkt->pad > data))
		return DPV_ROCE_RX_PAD;
	pkt->payload_len = data - pkt->pad;

	if (m == NULL) {
		/* the CRC walks the frame first: its tail is then cached */
		uint32_t c =
			(flags & DPV_ROCE_PARSE_NO_ICRC)
				? 0
				: pkt->l3_off >= 8
				? dpv_roce_icrc_calc_l2(f + pkt->l3_off, l3_len)
				: dpv_roce_icrc_calc(f + pkt->l3_off, l3_len);

		pkt->icrc = dpv_roce_icrc_get(f + pkt->l3_off, l3_len);
		if (!(flags & DPV_ROCE_PARSE_NO_ICRC) && c != pkt->icrc)
			return DPV_ROCE_RX_ICRC;
	} else {
		uint8_t tmp[DPV_ROCE_ICRC_LEN];
		const uint8_t *ic =
			rte_pktmbuf_read(m, pkt->frame_len - DPV_ROCE_ICRC_LEN,
					 sizeof(tmp), tmp);

		pkt->icrc = dpv_roce_icrc_get(ic, DPV_ROCE_ICRC_LEN);
		if (!(flags & DPV_ROCE_PARSE_NO_ICRC) &&
		    dpv_roce_icrc_calc_mbuf(m, pkt->l3_off, l3_len) !=
			    pkt->icrc)
			return DPV_ROCE_RX_ICRC;
	}
	return DPV_ROCE_RX_OK;
}

#undef DPV_ROCE_NEED_

#ifdef __cplusplus
}
#endif

#endif /* DPV_ROCE_PARSE_H */
