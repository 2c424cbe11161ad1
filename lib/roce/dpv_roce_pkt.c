/* SPDX-License-Identifier: BSD-3-Clause */
/* RoCEv2 frame parser and builder. */
#include <errno.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_udp.h>

#include "dpv_roce_gid.h"
#include "dpv_roce_icrc.h"
#include "dpv_roce_pkt.h"

#define ETH_MIN_NOFCS (RTE_ETHER_MIN_LEN - RTE_ETHER_CRC_LEN) /* 60 */

#define DPV_ROCE_RX_NAME_(e, n, d) [DPV_ROCE_RX_##e] = n,
#define DPV_ROCE_RX_DESC_(e, n, d) [DPV_ROCE_RX_##e] = d,
static const char *const rx_status_names[] = {
	DPV_ROCE_RX_STATUS_LIST(DPV_ROCE_RX_NAME_)};
static const char *const rx_status_descs[] = {
	DPV_ROCE_RX_STATUS_LIST(DPV_ROCE_RX_DESC_)};

const char *
dpv_roce_rx_status_name(enum dpv_roce_rx_status s)
{
	if ((unsigned)s >= DPV_ROCE_RX_STATUS_NUM)
		return "unknown";
	return rx_status_names[s];
}

const char *
dpv_roce_rx_status_str(enum dpv_roce_rx_status s)
{
	if ((unsigned)s >= DPV_ROCE_RX_STATUS_NUM)
		return "unknown";
	return rx_status_descs[s];
}

static void
parse_ext(const uint8_t *bth, const struct dpv_roce_opcode_info *oi,
	  struct dpv_roce_pkt *pkt)
{
	uint32_t m = oi->mask;

	if (m & DPV_OPF_XRCETH)
		pkt->xrc_srqn = dpv_xrceth_srqn(
			(const void *)(bth + oi->off[DPV_HDR_XRCETH]));
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

/* The headers must lie in the first seg_len bytes (contiguous); len is
 * the whole frame; m is the mbuf chain when the frame is segmented. */
#define NEED(n)                                                                \
	do {                                                                   \
		if ((n) > seg_len)                                             \
			return DPV_ROCE_RX_SEG_HDRS;                           \
	} while (0)

static enum dpv_roce_rx_status
parse_common(const uint8_t *f, uint32_t seg_len, uint32_t len,
	     const struct rte_mbuf *m, uint32_t flags, struct dpv_roce_pkt *pkt)
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
	NEED(sizeof(*eth));
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
		NEED(off + sizeof(*vh));
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
		NEED(off + sizeof(*ip));
		if ((ip->version_ihl >> 4) != 4)
			return DPV_ROCE_RX_IP_VERSION;
		ihl = (ip->version_ihl & RTE_IPV4_HDR_IHL_MASK) * 4u;
		if (ihl < sizeof(*ip))
			return DPV_ROCE_RX_IPV4_IHL;
		l3_len = rte_be_to_cpu_16(ip->total_length);
		if (l3_len < ihl || off + l3_len > len ||
		    (off + l3_len < len && len > ETH_MIN_NOFCS))
			return DPV_ROCE_RX_IP_LEN;
		NEED(off + ihl);
		if (!(flags & DPV_ROCE_PARSE_NO_CSUM) &&
		    rte_raw_cksum(ip, ihl) != 0xffff)
			return DPV_ROCE_RX_IPV4_CSUM;
		pkt->ip_frag = rte_be_to_cpu_16(ip->fragment_offset);
		if (pkt->ip_frag &
		    (RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK))
			return DPV_ROCE_RX_IPV4_FRAG;
		pkt->tos = ip->type_of_service;
		pkt->ttl = ip->time_to_live;
		pkt->ip_id = rte_be_to_cpu_16(ip->packet_id);
		pkt->flow_label = 0;
		dpv_roce_gid_from_ipv4(pkt->sgid, ip->src_addr);
		dpv_roce_gid_from_ipv4(pkt->dgid, ip->dst_addr);
		proto = ip->next_proto_id;
		l4_len = l3_len - ihl;
		off += ihl;
	} else if (etype == RTE_ETHER_TYPE_IPV6) {
		const struct rte_ipv6_hdr *ip = (const void *)(f + off);
		uint32_t vtc;

		pkt->ipv6 = true;
		if (len < off + sizeof(*ip))
			return DPV_ROCE_RX_TRUNC_L3;
		NEED(off + sizeof(*ip));
		vtc = rte_be_to_cpu_32(ip->vtc_flow);
		if ((vtc >> 28) != 6)
			return DPV_ROCE_RX_IP_VERSION;
		l4_len = rte_be_to_cpu_16(ip->payload_len);
		l3_len = sizeof(*ip) + l4_len;
		if (off + l3_len > len ||
		    (off + l3_len < len && len > ETH_MIN_NOFCS))
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
	NEED(off + sizeof(*udp));
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
	NEED(off + sizeof(*bth));
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
	NEED(off + oi->length);
	parse_ext((const uint8_t *)bth, oi, pkt);

	data = l4_len - oi->length - DPV_ROCE_ICRC_LEN;
	pkt->payload_off = (uint16_t)(off + oi->length);
	pkt->payload = f + pkt->payload_off;
	if ((data & 3) != 0 || (data != 0 && !(oi->mask & DPV_OPF_PAYLOAD)))
		return DPV_ROCE_RX_PAYLOAD_LEN;
	if (pkt->pad != 0 && (!(oi->mask & DPV_OPF_LAST) || pkt->pad > data))
		return DPV_ROCE_RX_PAD;
	pkt->payload_len = data - pkt->pad;

	if (m == NULL) {
		pkt->icrc = dpv_roce_icrc_get(f + pkt->l3_off, l3_len);
		if (!(flags & DPV_ROCE_PARSE_NO_ICRC) &&
		    dpv_roce_icrc_calc(f + pkt->l3_off, l3_len) != pkt->icrc)
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

#undef NEED

enum dpv_roce_rx_status
dpv_roce_parse(const void *frame, uint32_t len, uint32_t flags,
	       struct dpv_roce_pkt *pkt)
{
	return parse_common(frame, len, len, NULL, flags, pkt);
}

enum dpv_roce_rx_status
dpv_roce_parse_mbuf(const struct rte_mbuf *m, uint32_t flags,
		    struct dpv_roce_pkt *pkt)
{
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);

	if (m->next == NULL)
		return parse_common(f, rte_pktmbuf_data_len(m),
				    rte_pktmbuf_data_len(m), NULL, flags, pkt);
	return parse_common(f, rte_pktmbuf_data_len(m), rte_pktmbuf_pkt_len(m),
			    m, flags, pkt);
}

uint32_t
dpv_roce_frame_len(const struct dpv_roce_pkt *pkt)
{
	const struct dpv_roce_opcode_info *oi = dpv_roce_opcode(pkt->opcode);

	if (!(oi->mask & DPV_OPF_VALID))
		return 0;
	return sizeof(struct rte_ether_hdr) +
	       (pkt->vlan ? sizeof(struct rte_vlan_hdr) : 0) +
	       (pkt->ipv6 ? sizeof(struct rte_ipv6_hdr)
			  : sizeof(struct rte_ipv4_hdr)) +
	       sizeof(struct rte_udp_hdr) + oi->length +
	       RTE_ALIGN_CEIL(pkt->payload_len, 4) + DPV_ROCE_ICRC_LEN;
}

static void
build_ext(uint8_t *bth, const struct dpv_roce_opcode_info *oi,
	  const struct dpv_roce_pkt *pkt)
{
	uint32_t m = oi->mask;

	if (m & DPV_OPF_XRCETH)
		dpv_xrceth_set_srqn((void *)(bth + oi->off[DPV_HDR_XRCETH]),
				    pkt->xrc_srqn);
	if (m & DPV_OPF_DETH) {
		struct dpv_deth *h = (void *)(bth + oi->off[DPV_HDR_DETH]);

		dpv_deth_set_qkey(h, pkt->deth.qkey);
		dpv_deth_set_sqp(h, pkt->deth.sqp);
	}
	if (m & DPV_OPF_RETH) {
		struct dpv_reth *h = (void *)(bth + oi->off[DPV_HDR_RETH]);

		dpv_reth_set_va(h, pkt->reth.va);
		dpv_reth_set_rkey(h, pkt->reth.rkey);
		dpv_reth_set_len(h, pkt->reth.len);
	}
	if (m & DPV_OPF_ATMETH) {
		struct dpv_atmeth *h = (void *)(bth + oi->off[DPV_HDR_ATMETH]);

		dpv_atmeth_set_va(h, pkt->atmeth.va);
		dpv_atmeth_set_rkey(h, pkt->atmeth.rkey);
		dpv_atmeth_set_swap_add(h, pkt->atmeth.swap_add);
		dpv_atmeth_set_compare(h, pkt->atmeth.compare);
	}
	if (m & DPV_OPF_AETH) {
		struct dpv_aeth *h = (void *)(bth + oi->off[DPV_HDR_AETH]);

		h->smsn = 0;
		dpv_aeth_set_syndrome(h, pkt->aeth.syndrome);
		dpv_aeth_set_msn(h, pkt->aeth.msn);
	}
	if (m & DPV_OPF_ATMACK)
		dpv_atmack_set_orig((void *)(bth + oi->off[DPV_HDR_ATMACK]),
				    pkt->atmack_orig);
	if (m & DPV_OPF_IMMDT)
		dpv_immdt_set_imm((void *)(bth + oi->off[DPV_HDR_IMMDT]),
				  pkt->imm);
	if (m & DPV_OPF_IETH)
		dpv_ieth_set_rkey((void *)(bth + oi->off[DPV_HDR_IETH]),
				  pkt->ieth_rkey);
	if (m & DPV_OPF_CNPH)
		memset(bth + oi->off[DPV_HDR_CNP], 0, sizeof(struct dpv_cnp));
}

int
dpv_roce_build_hdrs(void *buf, uint32_t size, struct dpv_roce_pkt *pkt)
{
	const struct dpv_roce_opcode_info *oi = dpv_roce_opcode(pkt->opcode);
	uint8_t *f = buf;
	struct rte_ether_hdr *eth = buf;
	struct rte_udp_hdr *udp;
	struct dpv_bth *bth;
	uint32_t off, flen, l3_len, l4_len;
	uint16_t etype;

	flen = dpv_roce_frame_len(pkt);
	if (flen == 0)
		return -EINVAL;
	if (pkt->payload_len != 0 && !(oi->mask & DPV_OPF_PAYLOAD))
		return -EINVAL;
	if ((pkt->payload_len & 3) != 0 && !(oi->mask & DPV_OPF_LAST))
		return -EINVAL; /* only a last/only packet may be padded */
	off = sizeof(*eth) + (pkt->vlan ? sizeof(struct rte_vlan_hdr) : 0);
	l3_len = flen - off;
	l4_len = l3_len - (pkt->ipv6 ? sizeof(struct rte_ipv6_hdr)
				     : sizeof(struct rte_ipv4_hdr));
	if (l4_len > UINT16_MAX || (!pkt->ipv6 && l3_len > UINT16_MAX))
		return -EINVAL;
	if (size < flen)
		return -ENOSPC;

	etype = pkt->ipv6 ? RTE_ETHER_TYPE_IPV6 : RTE_ETHER_TYPE_IPV4;
	memcpy(&eth->dst_addr, pkt->dmac, 6);
	memcpy(&eth->src_addr, pkt->smac, 6);
	if (pkt->vlan) {
		struct rte_vlan_hdr *vh = (void *)(eth + 1);

		eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_VLAN);
		vh->vlan_tci = rte_cpu_to_be_16(pkt->vlan_tci);
		vh->eth_proto = rte_cpu_to_be_16(etype);
	} else {
		eth->ether_type = rte_cpu_to_be_16(etype);
	}
	pkt->l3_off = (uint16_t)off;

	if (pkt->ipv6) {
		struct rte_ipv6_hdr *ip = (void *)(f + off);

		ip->vtc_flow =
			rte_cpu_to_be_32(6u << 28 | (uint32_t)pkt->tos << 20 |
					 (pkt->flow_label & 0xfffff));
		ip->payload_len = rte_cpu_to_be_16((uint16_t)l4_len);
		ip->proto = IPPROTO_UDP;
		ip->hop_limits = pkt->ttl;
		memcpy(ip->src_addr, pkt->sgid, 16);
		memcpy(ip->dst_addr, pkt->dgid, 16);
		off += sizeof(*ip);
	} else {
		struct rte_ipv4_hdr *ip = (void *)(f + off);

		ip->version_ihl = RTE_IPV4_VHL_DEF;
		ip->type_of_service = pkt->tos;
		ip->total_length = rte_cpu_to_be_16((uint16_t)l3_len);
		ip->packet_id = rte_cpu_to_be_16(pkt->ip_id);
		ip->fragment_offset = rte_cpu_to_be_16(pkt->ip_frag);
		ip->time_to_live = pkt->ttl;
		ip->next_proto_id = IPPROTO_UDP;
		ip->hdr_checksum = 0;
		ip->src_addr = dpv_roce_gid_to_ipv4(pkt->sgid);
		ip->dst_addr = dpv_roce_gid_to_ipv4(pkt->dgid);
		ip->hdr_checksum = rte_ipv4_cksum(ip);
		off += sizeof(*ip);
	}
	pkt->l4_off = (uint16_t)off;

	udp = (void *)(f + off);
	udp->src_port = rte_cpu_to_be_16(pkt->sport);
	udp->dst_port =
		rte_cpu_to_be_16(pkt->dport ? pkt->dport : DPV_ROCE_UDP_PORT);
	udp->dgram_len = rte_cpu_to_be_16((uint16_t)l4_len);
	udp->dgram_cksum = rte_cpu_to_be_16(pkt->udp_csum);
	off += sizeof(*udp);
	pkt->bth_off = (uint16_t)off;

	pkt->pad = (uint8_t)(-pkt->payload_len & 3);
	bth = (void *)(f + off);
	memset(bth, 0, sizeof(*bth));
	dpv_bth_set_opcode(bth, pkt->opcode);
	dpv_bth_set_se(bth, pkt->se);
	dpv_bth_set_mig(bth, pkt->mig);
	dpv_bth_set_pad(bth, pkt->pad);
	dpv_bth_set_tver(bth, pkt->tver);
	dpv_bth_set_pkey(bth, pkt->pkey);
	dpv_bth_set_fecn(bth, pkt->fecn);
	dpv_bth_set_becn(bth, pkt->becn);
	dpv_bth_set_qpn(bth, pkt->dqpn);
	dpv_bth_set_ackreq(bth, pkt->ackreq);
	dpv_bth_set_psn(bth, pkt->psn);
	build_ext((uint8_t *)bth, oi, pkt);

	pkt->mask = oi->mask;
	pkt->payload_off = (uint16_t)(off + oi->length);
	pkt->frame_len = flen;
	return pkt->payload_off;
}

void
dpv_roce_build_finish(void *buf, struct dpv_roce_pkt *pkt)
{
	uint8_t *f = buf;

	memset(f + pkt->payload_off + pkt->payload_len, 0, pkt->pad);
	pkt->icrc = dpv_roce_icrc_set(f + pkt->l3_off,
				      pkt->frame_len - pkt->l3_off);
}

int
dpv_roce_build(void *buf, uint32_t size, struct dpv_roce_pkt *pkt)
{
	int off = dpv_roce_build_hdrs(buf, size, pkt);

	if (off < 0)
		return off;
	if (pkt->payload_len != 0)
		memcpy((uint8_t *)buf + off, pkt->payload, pkt->payload_len);
	dpv_roce_build_finish(buf, pkt);
	return (int)pkt->frame_len;
}
