/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Frames <-> decoded packets: Ethernet (+802.1Q), IPv4/IPv6, UDP 4791, BTH
 * and the extension headers of lib/roce's opcode table, ICRC. What goes on
 * the wire matches Linux rxe: DF, TTL 64, UDP checksum 0, P_Key 0xFFFF.
 */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_udp.h>

#include "engine_int.h"
#include "dpv_roce_gid.h"
#include "dpv_roce_icrc.h"

#define HOFF(info, id) ((info)->off[DPV_HDR_##id])

int
dpv_engine_parse(struct dpv_engine *e, struct rte_mbuf *m, struct dpv_epkt *p)
{
	const struct dpv_roce_opcode_info *info;
	struct rte_ether_hdr *eh;
	struct rte_udp_hdr *udp;
	struct dpv_bth *bth;
	uint8_t *d, *l3, *h;
	uint32_t len, off = sizeof(*eh), l3len, ulen, hlen;
	uint16_t et;

	RTE_SET_USED(e);
	if (!rte_pktmbuf_is_contiguous(m) && rte_pktmbuf_linearize(m) != 0)
		return -1;
	d = rte_pktmbuf_mtod(m, uint8_t *);
	len = m->data_len;
	if (len < off)
		return -1;
	eh = (struct rte_ether_hdr *)d;
	et = rte_be_to_cpu_16(eh->ether_type);
	if (et == RTE_ETHER_TYPE_VLAN) {
		if (len < off + 4)
			return -1;
		et = rte_be_to_cpu_16(*(rte_be16_t *)(d + off + 2));
		off += 4;
	}
	memcpy(p->smac, eh->src_addr.addr_bytes, 6);
	memcpy(p->dmac, eh->dst_addr.addr_bytes, 6);
	l3 = d + off;
	p->l3 = l3;
	if (et == RTE_ETHER_TYPE_IPV4) {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)l3;

		if (len < off + sizeof(*ip) || ip->version_ihl != 0x45 ||
		    ip->next_proto_id != IPPROTO_UDP)
			return -1;
		if (rte_be_to_cpu_16(ip->fragment_offset) &
		    (RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK))
			return -1;
		l3len = rte_be_to_cpu_16(ip->total_length);
		if (l3len < sizeof(*ip) || off + l3len > len)
			return -1;
		p->ipv4 = true;
		dpv_roce_gid_from_ipv4(p->sgid, ip->src_addr);
		dpv_roce_gid_from_ipv4(p->dgid, ip->dst_addr);
		udp = (struct rte_udp_hdr *)(l3 + sizeof(*ip));
	} else if (et == RTE_ETHER_TYPE_IPV6) {
		struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)l3;

		if (len < off + sizeof(*ip) || ip->proto != IPPROTO_UDP)
			return -1;
		l3len = sizeof(*ip) + rte_be_to_cpu_16(ip->payload_len);
		if (off + l3len > len)
			return -1;
		p->ipv4 = false;
		memcpy(p->sgid, ip->src_addr, 16);
		memcpy(p->dgid, ip->dst_addr, 16);
		udp = (struct rte_udp_hdr *)(l3 + sizeof(*ip));
	} else {
		return -1;
	}
	if (udp->dst_port != rte_cpu_to_be_16(DPV_ROCE_UDP_PORT))
		return -1;
	ulen = rte_be_to_cpu_16(udp->dgram_len);
	if ((uint8_t *)udp + ulen > l3 + l3len ||
	    ulen < sizeof(*udp) + sizeof(*bth) + DPV_ROCE_ICRC_LEN)
		return -1;
	bth = (struct dpv_bth *)(udp + 1);
	p->opcode = dpv_bth_opcode(bth);
	info = dpv_roce_opcode(p->opcode);
	if (!(info->mask & DPV_OPF_VALID))
		return -1;
	hlen = info->length;
	if (ulen < sizeof(*udp) + hlen + DPV_ROCE_ICRC_LEN)
		return -1;
	if (!dpv_roce_icrc_check(l3, (uint32_t)((uint8_t *)udp + ulen - l3))) {
		e->st.rx_drop_icrc++;
		return -1;
	}

	p->m = m;
	p->flags = info->mask;
	p->se = dpv_bth_se(bth);
	p->ackreq = dpv_bth_ackreq(bth);
	p->pad = dpv_bth_pad(bth);
	p->dqpn = dpv_bth_qpn(bth);
	p->psn = dpv_bth_psn(bth);
	p->udp_sport = rte_be_to_cpu_16(udp->src_port);
	h = (uint8_t *)bth;
	if (p->flags & DPV_OPF_RETH) {
		struct dpv_reth *r = (struct dpv_reth *)(h + HOFF(info, RETH));

		p->va = dpv_reth_va(r);
		p->rkey = dpv_reth_rkey(r);
		p->dmalen = dpv_reth_len(r);
	}
	if (p->flags & DPV_OPF_ATMETH) {
		struct dpv_atmeth *a =
			(struct dpv_atmeth *)(h + HOFF(info, ATMETH));

		p->va = dpv_atmeth_va(a);
		p->rkey = dpv_atmeth_rkey(a);
		p->swap_add = dpv_atmeth_swap_add(a);
		p->compare = dpv_atmeth_compare(a);
		p->dmalen = 8;
	}
	if (p->flags & DPV_OPF_AETH) {
		struct dpv_aeth *a = (struct dpv_aeth *)(h + HOFF(info, AETH));

		p->syndrome = dpv_aeth_syndrome(a);
		p->msn = dpv_aeth_msn(a);
	}
	if (p->flags & DPV_OPF_ATMACK)
		p->orig = dpv_atmack_orig(
			(struct dpv_atmack *)(h + HOFF(info, ATMACK)));
	if (p->flags & DPV_OPF_DETH) {
		struct dpv_deth *dh = (struct dpv_deth *)(h + HOFF(info, DETH));

		p->qkey = dpv_deth_qkey(dh);
		p->src_qp = dpv_deth_sqp(dh);
	}
	if (p->flags & DPV_OPF_IMMDT)
		p->imm_be = ((struct dpv_immdt *)(h + HOFF(info, IMMDT)))->imm;
	if (p->flags & DPV_OPF_IETH)
		p->ieth_rkey = dpv_ieth_rkey(
			(struct dpv_ieth *)(h + HOFF(info, IETH)));
	if (p->flags & DPV_OPF_XRCETH)
		p->xrc_srqn = dpv_xrceth_srqn(
			(struct dpv_xrceth *)(h + HOFF(info, XRCETH)));
	if (ulen - sizeof(*udp) - hlen - DPV_ROCE_ICRC_LEN < p->pad)
		return -1;
	p->payload = h + hlen;
	p->paylen = ulen - sizeof(*udp) - hlen - DPV_ROCE_ICRC_LEN - p->pad;
	if (p->paylen && !(p->flags & DPV_OPF_PAYLOAD))
		return -1;
	return 0;
}

static uint32_t
l2_len(const struct dpv_engine_path *path)
{
	return sizeof(struct rte_ether_hdr) + (path->vlan ? 4 : 0);
}

static uint32_t
l3_hdr_len(const struct dpv_engine_path *path)
{
	return dpv_roce_gid_is_ipv4(path->sgid) ? sizeof(struct rte_ipv4_hdr)
						: sizeof(struct rte_ipv6_hdr);
}

uint32_t
dpv_engine_max_payload(struct dpv_engine *e, const struct dpv_engine_path *path,
		       uint8_t opcode)
{
	uint32_t hdr = l2_len(path) + l3_hdr_len(path) +
		       sizeof(struct rte_udp_hdr) +
		       dpv_roce_opcode(opcode)->length + DPV_ROCE_ICRC_LEN + 3;

	return e->mbuf_room > hdr ? e->mbuf_room - hdr : 0;
}

struct rte_mbuf *
dpv_engine_build(struct dpv_engine *e, const struct dpv_engine_path *path,
		 uint16_t udp_sport, const struct dpv_ehdr *hd, uint32_t paylen,
		 uint8_t **payload)
{
	const struct dpv_roce_opcode_info *info = dpv_roce_opcode(hd->opcode);
	bool ipv4 = dpv_roce_gid_is_ipv4(path->sgid);
	uint32_t pad = (4 - (paylen & 3)) & 3;
	uint32_t l2 = l2_len(path), l3h = l3_hdr_len(path);
	uint32_t ulen = sizeof(struct rte_udp_hdr) + info->length + paylen +
			pad + DPV_ROCE_ICRC_LEN;
	struct rte_ether_hdr *eh;
	struct rte_udp_hdr *udp;
	struct dpv_bth *bth;
	struct rte_mbuf *m;
	uint8_t *d, *l3, *h;
	uint8_t hop = path->hop_limit ? path->hop_limit : 64;

	m = rte_pktmbuf_alloc(e->mp);
	if (m == NULL) {
		e->st.tx_drop_nombuf++;
		return NULL;
	}
	d = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(l2 + l3h + ulen));
	if (d == NULL || l2 + l3h + ulen > UINT16_MAX) {
		rte_pktmbuf_free(m);
		e->st.tx_drop_nombuf++;
		return NULL;
	}
	m->l2_len = l2;
	eh = (struct rte_ether_hdr *)d;
	memcpy(eh->dst_addr.addr_bytes, path->dmac, 6);
	memcpy(eh->src_addr.addr_bytes, path->smac, 6);
	if (path->vlan) {
		eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_VLAN);
		*(rte_be16_t *)(d + 14) = rte_cpu_to_be_16(path->vlan);
		*(rte_be16_t *)(d + 16) = rte_cpu_to_be_16(
			ipv4 ? RTE_ETHER_TYPE_IPV4 : RTE_ETHER_TYPE_IPV6);
	} else {
		eh->ether_type = rte_cpu_to_be_16(ipv4 ? RTE_ETHER_TYPE_IPV4
						       : RTE_ETHER_TYPE_IPV6);
	}
	l3 = d + l2;
	if (ipv4) {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)l3;

		ip->version_ihl = 0x45;
		ip->type_of_service = path->traffic_class;
		ip->total_length = rte_cpu_to_be_16((uint16_t)(l3h + ulen));
		ip->packet_id = rte_cpu_to_be_16(e->ip_id++);
		ip->fragment_offset = rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG);
		ip->time_to_live = hop;
		ip->next_proto_id = IPPROTO_UDP;
		ip->hdr_checksum = 0;
		ip->src_addr = dpv_roce_gid_to_ipv4(path->sgid);
		ip->dst_addr = dpv_roce_gid_to_ipv4(path->dgid);
		ip->hdr_checksum = rte_ipv4_cksum(ip);
	} else {
		struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)l3;

		ip->vtc_flow = rte_cpu_to_be_32(
			6u << 28 | (uint32_t)path->traffic_class << 20 |
			(path->flow_label & 0xfffff));
		ip->payload_len = rte_cpu_to_be_16((uint16_t)ulen);
		ip->proto = IPPROTO_UDP;
		ip->hop_limits = hop;
		memcpy(ip->src_addr, path->sgid, 16);
		memcpy(ip->dst_addr, path->dgid, 16);
	}
	udp = (struct rte_udp_hdr *)(l3 + l3h);
	udp->src_port = rte_cpu_to_be_16(udp_sport);
	udp->dst_port = rte_cpu_to_be_16(DPV_ROCE_UDP_PORT);
	udp->dgram_len = rte_cpu_to_be_16((uint16_t)ulen);
	udp->dgram_cksum = 0;

	h = (uint8_t *)(udp + 1);
	memset(h, 0, info->length);
	bth = (struct dpv_bth *)h;
	dpv_bth_set_opcode(bth, hd->opcode);
	dpv_bth_set_se(bth, hd->se);
	dpv_bth_set_pad(bth, (uint8_t)pad);
	dpv_bth_set_tver(bth, DPV_ROCE_TVER);
	dpv_bth_set_pkey(bth, DPV_ROCE_PKEY_DEFAULT);
	dpv_bth_set_qpn(bth, hd->dqpn);
	dpv_bth_set_ackreq(bth, hd->ackreq);
	dpv_bth_set_psn(bth, hd->psn);
	if (info->mask & DPV_OPF_RETH) {
		struct dpv_reth *r = (struct dpv_reth *)(h + HOFF(info, RETH));

		dpv_reth_set_va(r, hd->va);
		dpv_reth_set_rkey(r, hd->rkey);
		dpv_reth_set_len(r, hd->dmalen);
	}
	if (info->mask & DPV_OPF_ATMETH) {
		struct dpv_atmeth *a =
			(struct dpv_atmeth *)(h + HOFF(info, ATMETH));

		dpv_atmeth_set_va(a, hd->va);
		dpv_atmeth_set_rkey(a, hd->rkey);
		dpv_atmeth_set_swap_add(a, hd->swap_add);
		dpv_atmeth_set_compare(a, hd->compare);
	}
	if (info->mask & DPV_OPF_AETH) {
		struct dpv_aeth *a = (struct dpv_aeth *)(h + HOFF(info, AETH));

		dpv_aeth_set_syndrome(a, hd->syndrome);
		dpv_aeth_set_msn(a, hd->msn);
	}
	if (info->mask & DPV_OPF_ATMACK)
		dpv_atmack_set_orig(
			(struct dpv_atmack *)(h + HOFF(info, ATMACK)),
			hd->orig);
	if (info->mask & DPV_OPF_DETH) {
		struct dpv_deth *dh = (struct dpv_deth *)(h + HOFF(info, DETH));

		dpv_deth_set_qkey(dh, hd->qkey);
		dpv_deth_set_sqp(dh, hd->src_qp);
	}
	if (info->mask & DPV_OPF_IMMDT)
		((struct dpv_immdt *)(h + HOFF(info, IMMDT)))->imm = hd->imm_be;
	if (info->mask & DPV_OPF_IETH)
		dpv_ieth_set_rkey((struct dpv_ieth *)(h + HOFF(info, IETH)),
				  hd->ieth_rkey);
	if (info->mask & DPV_OPF_XRCETH)
		dpv_xrceth_set_srqn(
			(struct dpv_xrceth *)(h + HOFF(info, XRCETH)),
			hd->xrc_srqn);
	*payload = h + info->length;
	memset(*payload + paylen, 0, pad);
	return m;
}

void
dpv_engine_finish(struct rte_mbuf *m)
{
	uint8_t *l3 = rte_pktmbuf_mtod_offset(m, uint8_t *, m->l2_len);

	dpv_roce_icrc_set(l3, m->pkt_len - m->l2_len);
}
