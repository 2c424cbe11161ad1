/* SPDX-License-Identifier: BSD-3-Clause */
/* ARP and IPv6 Neighbor Discovery frames. */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>

#include <rte_arp.h>
#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>

#include "dpv_roce_nd.h"

#define ICMP6_HDR_LEN 4	 /* type, code, checksum */
#define ND_BODY_LEN   20 /* flags/reserved + target */
#define ND_OPT_SLLA   1
#define ND_OPT_TLLA   2
#define ND_HOP_LIMIT  255

/* Ethernet (+VLAN) header: write it, return its length. */
static uint32_t
l2_write(uint8_t *f, const uint8_t dmac[6], const uint8_t smac[6], bool vlan,
	 uint16_t tci, uint16_t etype)
{
	rte_be16_t v;

	memcpy(f, dmac, 6);
	memcpy(f + 6, smac, 6);
	if (vlan) {
		v = rte_cpu_to_be_16(RTE_ETHER_TYPE_VLAN);
		memcpy(f + 12, &v, 2);
		v = rte_cpu_to_be_16(tci);
		memcpy(f + 14, &v, 2);
		v = rte_cpu_to_be_16(etype);
		memcpy(f + 16, &v, 2);
		return 18;
	}
	v = rte_cpu_to_be_16(etype);
	memcpy(f + 12, &v, 2);
	return 14;
}

/* Ethernet (+VLAN) header: read it, return its length or 0. */
static uint32_t
l2_read(const uint8_t *f, uint32_t len, uint8_t dmac[6], uint8_t smac[6],
	bool *vlan, uint16_t *tci, uint16_t *etype)
{
	uint32_t off = 14;

	if (len < 14)
		return 0;
	memcpy(dmac, f, 6);
	memcpy(smac, f + 6, 6);
	*etype = (uint16_t)(f[12] << 8 | f[13]);
	*vlan = false;
	*tci = 0;
	if (*etype == RTE_ETHER_TYPE_VLAN) {
		if (len < 18)
			return 0;
		*vlan = true;
		*tci = (uint16_t)(f[14] << 8 | f[15]);
		*etype = (uint16_t)(f[16] << 8 | f[17]);
		off = 18;
	}
	return off;
}

int
dpv_arp_parse(const void *frame, uint32_t len, struct dpv_arp *arp)
{
	const uint8_t *f = frame;
	const struct rte_arp_hdr *ah;
	uint16_t etype;
	uint32_t off;

	off = l2_read(f, len, arp->dmac, arp->smac, &arp->vlan, &arp->vlan_tci,
		      &etype);
	if (off == 0 || etype != RTE_ETHER_TYPE_ARP)
		return -EPROTO;
	if (len < off + sizeof(*ah))
		return -EINVAL;
	ah = (const void *)(f + off);
	if (rte_be_to_cpu_16(ah->arp_hardware) != RTE_ARP_HRD_ETHER ||
	    rte_be_to_cpu_16(ah->arp_protocol) != RTE_ETHER_TYPE_IPV4 ||
	    ah->arp_hlen != RTE_ETHER_ADDR_LEN || ah->arp_plen != 4)
		return -EINVAL;
	arp->op = rte_be_to_cpu_16(ah->arp_opcode);
	if (arp->op != DPV_ARP_REQUEST && arp->op != DPV_ARP_REPLY)
		return -EINVAL;
	memcpy(arp->sha, &ah->arp_data.arp_sha, 6);
	memcpy(&arp->spa, &ah->arp_data.arp_sip, 4);
	memcpy(arp->tha, &ah->arp_data.arp_tha, 6);
	memcpy(&arp->tpa, &ah->arp_data.arp_tip, 4);
	return 0;
}

int
dpv_arp_build(void *buf, uint32_t size, const struct dpv_arp *arp)
{
	uint8_t *f = buf;
	struct rte_arp_hdr *ah;
	uint32_t off, need;

	need = (arp->vlan ? 18 : 14) + sizeof(*ah);
	if (size < need)
		return -ENOSPC;
	off = l2_write(f, arp->dmac, arp->smac, arp->vlan, arp->vlan_tci,
		       RTE_ETHER_TYPE_ARP);
	ah = (void *)(f + off);
	ah->arp_hardware = rte_cpu_to_be_16(RTE_ARP_HRD_ETHER);
	ah->arp_protocol = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	ah->arp_hlen = RTE_ETHER_ADDR_LEN;
	ah->arp_plen = 4;
	ah->arp_opcode = rte_cpu_to_be_16(arp->op);
	memcpy(&ah->arp_data.arp_sha, arp->sha, 6);
	memcpy(&ah->arp_data.arp_sip, &arp->spa, 4);
	memcpy(&ah->arp_data.arp_tha, arp->tha, 6);
	memcpy(&ah->arp_data.arp_tip, &arp->tpa, 4);
	return (int)need;
}

void
dpv_arp_make_request(struct dpv_arp *arp, const uint8_t mac[6], rte_be32_t sip,
		     rte_be32_t tip)
{
	memset(arp, 0, sizeof(*arp));
	memset(arp->dmac, 0xff, 6);
	memcpy(arp->smac, mac, 6);
	arp->op = DPV_ARP_REQUEST;
	memcpy(arp->sha, mac, 6);
	arp->spa = sip;
	arp->tpa = tip;
}

void
dpv_arp_make_reply(struct dpv_arp *reply, const struct dpv_arp *req,
		   const uint8_t mac[6])
{
	struct dpv_arp r;

	memset(&r, 0, sizeof(r));
	memcpy(r.dmac, req->sha, 6);
	memcpy(r.smac, mac, 6);
	r.vlan = req->vlan;
	r.vlan_tci = req->vlan_tci;
	r.op = DPV_ARP_REPLY;
	memcpy(r.sha, mac, 6);
	r.spa = req->tpa;
	memcpy(r.tha, req->sha, 6);
	r.tpa = req->spa;
	*reply = r;
}

/* ICMPv6 checksum over the pseudo header and the message. */
static uint16_t
icmp6_cksum(const struct rte_ipv6_hdr *ip, const uint8_t *msg, uint32_t len)
{
	uint32_t s = rte_ipv6_phdr_cksum(ip, 0);

	s += rte_raw_cksum(msg, len);
	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

int
dpv_nd_parse(const void *frame, uint32_t len, struct dpv_nd *nd)
{
	const uint8_t *f = frame, *m, *o;
	const struct rte_ipv6_hdr *ip;
	uint32_t off, plen, olen;
	uint16_t etype;

	off = l2_read(f, len, nd->dmac, nd->smac, &nd->vlan, &nd->vlan_tci,
		      &etype);
	if (off == 0 || etype != RTE_ETHER_TYPE_IPV6 ||
	    len < off + sizeof(*ip) + 1)
		return -EPROTO;
	ip = (const void *)(f + off);
	m = f + off + sizeof(*ip);
	if (ip->proto != IPPROTO_ICMPV6 ||
	    (m[0] != DPV_ND_NS && m[0] != DPV_ND_NA))
		return -EPROTO;
	nd->type = m[0];
	plen = rte_be_to_cpu_16(ip->payload_len);
	if ((rte_be_to_cpu_32(ip->vtc_flow) >> 28) != 6 ||
	    off + sizeof(*ip) + plen > len ||
	    plen < ICMP6_HDR_LEN + ND_BODY_LEN || m[1] != 0 ||
	    ip->hop_limits != ND_HOP_LIMIT || icmp6_cksum(ip, m, plen) != 0)
		return -EINVAL;
	memcpy(nd->src, ip->src_addr, 16);
	memcpy(nd->dst, ip->dst_addr, 16);
	nd->flags = (uint32_t)m[4] << 24 | (uint32_t)m[5] << 16 |
		    (uint32_t)m[6] << 8 | m[7];
	if (nd->type == DPV_ND_NS)
		nd->flags = 0;
	memcpy(nd->target, m + 8, 16);
	if (nd->target[0] == 0xff)
		return -EINVAL;
	nd->has_lladdr = false;
	o = m + ICMP6_HDR_LEN + ND_BODY_LEN;
	olen = plen - ICMP6_HDR_LEN - ND_BODY_LEN;
	while (olen >= 2) {
		uint32_t l = o[1] * 8u;

		if (l == 0 || l > olen)
			return -EINVAL;
		if (l == 8 && o[0] == (nd->type == DPV_ND_NS ? ND_OPT_SLLA
							     : ND_OPT_TLLA)) {
			nd->has_lladdr = true;
			memcpy(nd->lladdr, o + 2, 6);
		}
		o += l;
		olen -= l;
	}
	if (olen != 0)
		return -EINVAL;
	return 0;
}

int
dpv_nd_build(void *buf, uint32_t size, const struct dpv_nd *nd)
{
	uint8_t *f = buf, *m;
	struct rte_ipv6_hdr *ip;
	uint32_t off, plen;
	uint16_t ck;

	if (nd->type != DPV_ND_NS && nd->type != DPV_ND_NA)
		return -EINVAL;
	plen = ICMP6_HDR_LEN + ND_BODY_LEN + (nd->has_lladdr ? 8 : 0);
	if (size < (nd->vlan ? 18u : 14u) + sizeof(*ip) + plen)
		return -ENOSPC;
	off = l2_write(f, nd->dmac, nd->smac, nd->vlan, nd->vlan_tci,
		       RTE_ETHER_TYPE_IPV6);
	ip = (void *)(f + off);
	ip->vtc_flow = rte_cpu_to_be_32(6u << 28);
	ip->payload_len = rte_cpu_to_be_16((uint16_t)plen);
	ip->proto = IPPROTO_ICMPV6;
	ip->hop_limits = ND_HOP_LIMIT;
	memcpy(ip->src_addr, nd->src, 16);
	memcpy(ip->dst_addr, nd->dst, 16);
	m = f + off + sizeof(*ip);
	memset(m, 0, plen);
	m[0] = nd->type;
	if (nd->type == DPV_ND_NA) {
		m[4] = (uint8_t)(nd->flags >> 24);
		m[5] = (uint8_t)(nd->flags >> 16);
		m[6] = (uint8_t)(nd->flags >> 8);
		m[7] = (uint8_t)nd->flags;
	}
	memcpy(m + 8, nd->target, 16);
	if (nd->has_lladdr) {
		m[24] = nd->type == DPV_ND_NS ? ND_OPT_SLLA : ND_OPT_TLLA;
		m[25] = 1;
		memcpy(m + 26, nd->lladdr, 6);
	}
	ck = icmp6_cksum(ip, m, plen); /* already in wire order */
	memcpy(m + 2, &ck, 2);
	return (int)(off + sizeof(*ip) + plen);
}

void
dpv_nd_solicited_node(uint8_t out[16], const uint8_t addr[16])
{
	uint8_t a[3] = {addr[13], addr[14], addr[15]};

	memset(out, 0, 16);
	out[0] = 0xff;
	out[1] = 0x02;
	out[11] = 0x01;
	out[12] = 0xff;
	memcpy(out + 13, a, 3);
}

void
dpv_ipv6_mcast_mac(uint8_t mac[6], const uint8_t addr[16])
{
	mac[0] = 0x33;
	mac[1] = 0x33;
	memcpy(mac + 2, addr + 12, 4);
}

void
dpv_nd_make_solicit(struct dpv_nd *nd, const uint8_t mac[6],
		    const uint8_t src[16], const uint8_t target[16])
{
	memset(nd, 0, sizeof(*nd));
	nd->type = DPV_ND_NS;
	memcpy(nd->src, src, 16);
	memcpy(nd->target, target, 16);
	dpv_nd_solicited_node(nd->dst, target);
	dpv_ipv6_mcast_mac(nd->dmac, nd->dst);
	memcpy(nd->smac, mac, 6);
	nd->has_lladdr = true;
	memcpy(nd->lladdr, mac, 6);
}

void
dpv_nd_make_advert(struct dpv_nd *na, const struct dpv_nd *ns,
		   const uint8_t mac[6])
{
	struct dpv_nd r;

	memset(&r, 0, sizeof(r));
	r.type = DPV_ND_NA;
	r.vlan = ns->vlan;
	r.vlan_tci = ns->vlan_tci;
	memcpy(r.src, ns->target, 16);
	memcpy(r.dst, ns->src, 16);
	memcpy(r.dmac, ns->has_lladdr ? ns->lladdr : ns->smac, 6);
	memcpy(r.smac, mac, 6);
	r.flags = DPV_ND_NA_SOLICITED | DPV_ND_NA_OVERRIDE;
	memcpy(r.target, ns->target, 16);
	r.has_lladdr = true;
	memcpy(r.lladdr, mac, 6);
	*na = r;
}
