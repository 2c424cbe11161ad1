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
#include "dpv_roce_parse.h"

#define HOFF(info, id) ((info)->off[DPV_HDR_##id])

/* Checksums the NIC has verified need not be computed again. */
static inline uint32_t
parse_flags(const struct rte_mbuf *m)
{
	if ((m->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK) ==
		    RTE_MBUF_F_RX_IP_CKSUM_GOOD &&
	    (m->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK) ==
		    RTE_MBUF_F_RX_L4_CKSUM_GOOD)
		return DPV_ROCE_PARSE_NO_CSUM;
	return 0;
}

/* lib/roce's parser checks the frame; this copies what the engine uses. */
enum dpv_roce_rx_status
dpv_engine_parse(struct rte_mbuf *m, struct dpv_epkt *p)
{
	struct dpv_roce_pkt r;
	enum dpv_roce_rx_status st;
	uint8_t *d;

	if (!rte_pktmbuf_is_contiguous(m) && rte_pktmbuf_linearize(m) != 0)
		return DPV_ROCE_RX_SEG_HDRS;
	d = rte_pktmbuf_mtod(m, uint8_t *);
	/* the extension headers (the end of r) are set only where present */
	memset(&r.reth, 0, sizeof(r) - offsetof(struct dpv_roce_pkt, reth));
	st = dpv_roce_parse_inline(d, m->data_len, m->data_len, NULL,
				   parse_flags(m), &r);
	if (unlikely(st != DPV_ROCE_RX_OK))
		return st;
	/* every field: the caller need not clear *p */
	*p = (struct dpv_epkt){
		.m = m,
		.flags = r.mask,
		.opcode = r.opcode,
		.se = r.se,
		.ackreq = r.ackreq,
		.pad = r.pad,
		.pkey = r.pkey,
		.dqpn = r.dqpn,
		.psn = r.psn,
		.payload = d + r.payload_off,
		.paylen = r.payload_len,
		.ipv4 = !r.ipv6,
		.l3 = d + r.l3_off,
		.udp_sport = r.sport,
	};
	if (r.mask & DPV_OPF_RETH) {
		p->va = r.reth.va;
		p->rkey = r.reth.rkey;
		p->dmalen = r.reth.len;
	}
	if (r.mask & DPV_OPF_ATMETH) {
		p->va = r.atmeth.va;
		p->rkey = r.atmeth.rkey;
		p->swap_add = r.atmeth.swap_add;
		p->compare = r.atmeth.compare;
		p->dmalen = 8;
	}
	if (r.mask & DPV_OPF_AETH) {
		p->syndrome = r.aeth.syndrome;
		p->msn = r.aeth.msn;
	}
	if (r.mask & DPV_OPF_ATMACK)
		p->orig = r.atmack_orig;
	if (r.mask & DPV_OPF_DETH) {
		p->qkey = r.deth.qkey;
		p->src_qp = r.deth.sqp;
	}
	if (r.mask & DPV_OPF_IMMDT)
		p->imm_be = r.imm;
	if (r.mask & DPV_OPF_IETH)
		p->ieth_rkey = r.ieth_rkey;
	if (r.mask & DPV_OPF_XRCETH)
		p->xrc_srqn = r.xrc_srqn;
	memcpy(p->smac, r.smac, 6);
	memcpy(p->dmac, r.dmac, 6);
	memcpy(p->sgid, r.sgid, 16);
	memcpy(p->dgid, r.dgid, 16);
	return DPV_ROCE_RX_OK;
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

/* Ethernet (+ VLAN), IP and UDP headers at d for a frame whose UDP
 * length is ulen; the IPv4 identification is ip_id. */
static void
write_l2_l4(const struct dpv_engine_path *path, uint8_t *d, uint32_t ulen,
	    uint16_t ip_id)
{
	bool ipv4 = dpv_roce_gid_is_ipv4(path->sgid);
	uint32_t l2 = l2_len(path), l3h = l3_hdr_len(path);
	struct rte_ether_hdr *eh = (struct rte_ether_hdr *)d;
	struct rte_udp_hdr *udp;
	uint8_t *l3 = d + l2;
	uint8_t hop = path->hop_limit ? path->hop_limit : 64;

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
	if (ipv4) {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)l3;

		ip->version_ihl = 0x45;
		ip->type_of_service = path->traffic_class;
		ip->total_length = rte_cpu_to_be_16((uint16_t)(l3h + ulen));
		ip->packet_id = rte_cpu_to_be_16(ip_id);
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
	udp->src_port = rte_cpu_to_be_16(path->udp_sport);
	udp->dst_port = rte_cpu_to_be_16(DPV_ROCE_UDP_PORT);
	udp->dgram_len = rte_cpu_to_be_16((uint16_t)ulen);
	udp->dgram_cksum = 0;
}

void
dpv_engine_tmpl_set(struct dpv_etmpl *t, const struct dpv_engine_path *path)
{
	uint32_t l2 = l2_len(path), l3h = l3_hdr_len(path);

	memset(t, 0, sizeof(*t));
	/* VLAN + IPv6 (66 bytes) is built in full */
	if (l2 + l3h + sizeof(struct rte_udp_hdr) > sizeof(t->b))
		return;
	/* the lengths, the identification and the checksum zero: the
	 * checksum of the rest is kept, the frame's adds what varies */
	write_l2_l4(path, t->b, 0, 0);
	t->l2 = (uint8_t)l2;
	t->ipv4 = l3h == sizeof(struct rte_ipv4_hdr);
	if (t->ipv4) {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(t->b + l2);

		ip->total_length = 0;
		ip->hdr_checksum = 0;
		t->csum = rte_raw_cksum(ip, sizeof(*ip));
	}
	t->len = (uint8_t)(l2 + l3h + sizeof(struct rte_udp_hdr));
}

/* The frame's Ethernet, IP and UDP headers from the QP's template: its
 * bytes, then the lengths, the identification and the IPv4 checksum. */
static void
write_l2_l4_tmpl(const struct dpv_etmpl *t, uint8_t *d, uint32_t ulen,
		 uint16_t ip_id)
{
	struct rte_udp_hdr *udp =
		(struct rte_udp_hdr *)(d + t->len - sizeof(*udp));

	memcpy(d, t->b, sizeof(t->b));
	if (t->ipv4) {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(d + t->l2);
		uint16_t tot = rte_cpu_to_be_16(
			(uint16_t)(sizeof(struct rte_ipv4_hdr) + ulen));
		uint16_t id = rte_cpu_to_be_16(ip_id);
		uint32_t sum = (uint32_t)t->csum + tot + id;

		sum = (sum & 0xffff) + (sum >> 16);
		sum = (sum & 0xffff) + (sum >> 16);
		ip->total_length = tot;
		ip->packet_id = id;
		ip->hdr_checksum = (uint16_t)~sum;
	} else {
		struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(d + t->l2);

		ip->payload_len = rte_cpu_to_be_16((uint16_t)ulen);
	}
	udp->dgram_len = rte_cpu_to_be_16((uint16_t)ulen);
}

/* The BTH and the extension headers the opcode carries, at h. */
static void
write_bth_ext(uint8_t *h, const struct dpv_roce_opcode_info *info,
	      const struct dpv_ehdr *hd, uint32_t pad)
{
	struct dpv_bth *bth = (struct dpv_bth *)h;

	memset(h, 0, info->length);
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
}

struct rte_mbuf *
dpv_engine_build(struct dpv_engine *e, const struct dpv_engine_path *path,
		 const struct dpv_etmpl *t, const struct dpv_ehdr *hd,
		 uint32_t paylen, uint8_t **payload)
{
	const struct dpv_roce_opcode_info *info = dpv_roce_opcode(hd->opcode);
	uint32_t pad = (4 - (paylen & 3)) & 3;
	uint32_t l2 = l2_len(path), l3h = l3_hdr_len(path);
	uint32_t ulen = sizeof(struct rte_udp_hdr) + info->length + paylen +
			pad + DPV_ROCE_ICRC_LEN;
	struct rte_mbuf *m;
	uint8_t *d, *h;

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
	/* a template copies whole: the buffer must hold its bytes */
	if (t != NULL && t->len != 0 &&
	    (size_t)(d - (uint8_t *)m->buf_addr) + sizeof(t->b) <= m->buf_len)
		write_l2_l4_tmpl(t, d, ulen, e->ip_id++);
	else
		write_l2_l4(path, d, ulen, e->ip_id++);
	h = d + l2 + l3h + sizeof(struct rte_udp_hdr);
	write_bth_ext(h, info, hd, pad);
	*payload = h + info->length;
	memset(*payload + paylen, 0, pad);
	return m;
}

void
dpv_engine_finish(struct rte_mbuf *m)
{
	uint8_t *l3 = rte_pktmbuf_mtod_offset(m, uint8_t *, m->l2_len);

	/* the Ethernet header precedes: one pass, headers masked in place */
	dpv_roce_icrc_set_l2(l3, m->pkt_len - m->l2_len);
}
