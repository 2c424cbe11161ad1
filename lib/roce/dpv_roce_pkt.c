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
#include "dpv_roce_parse.h"
#include "dpv_roce_pkt.h"

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

enum dpv_roce_rx_status
dpv_roce_parse(const void *frame, uint32_t len, uint32_t flags,
	       struct dpv_roce_pkt *pkt)
{
	return dpv_roce_parse_inline(frame, len, len, NULL, flags, pkt);
}

enum dpv_roce_rx_status
dpv_roce_parse_mbuf(const struct rte_mbuf *m, uint32_t flags,
		    struct dpv_roce_pkt *pkt)
{
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);

	if (m->next == NULL)
		return dpv_roce_parse_inline(f, rte_pktmbuf_data_len(m),
					     rte_pktmbuf_data_len(m), NULL,
					     flags, pkt);
	return dpv_roce_parse_inline(f, rte_pktmbuf_data_len(m),
				     rte_pktmbuf_pkt_len(m), m, flags, pkt);
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
	if (m & DPV_OPF_DCETH)
		dpv_dceth_set((void *)(bth + oi->off[DPV_HDR_DCETH]),
			      pkt->dceth.key, pkt->dceth.dci, pkt->dceth.cpsn);
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

		dpv_aeth_set(h, pkt->aeth.syndrome, pkt->aeth.msn);
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
	dpv_bth_write(bth, pkt->opcode,
		      dpv_bth_flags(pkt->se, pkt->mig, pkt->pad, pkt->tver),
		      pkt->pkey, pkt->dqpn, pkt->ackreq, pkt->psn);
	dpv_bth_set_fecn(bth, pkt->fecn);
	dpv_bth_set_becn(bth, pkt->becn);
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
