/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Frames <-> decoded packets: Ethernet (+802.1Q), IPv4/IPv6, UDP 4791, BTH
 * and the extension headers of lib/roce's opcode table, ICRC. What goes on
 * the wire matches Linux rxe: DF, TTL 64, UDP checksum 0, P_Key 0xFFFF.
 */
#include <string.h>
#include <smmintrin.h>

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

/*
 * p from a frame the parser accepted, its headers read from the frame:
 * the IP header at l3_off (IPv6 or IPv4), the UDP header after it, the
 * BTH at bth_off, paylen payload bytes after the extension headers.
 */
static inline void
fill_epkt(struct dpv_epkt *p, struct rte_mbuf *m, uint8_t *d, uint32_t l3_off,
	  bool ipv6, uint32_t bth_off, uint32_t paylen)
{
	const struct dpv_bth *bth = (const struct dpv_bth *)(d + bth_off);
	const struct dpv_roce_opcode_info *oi =
		dpv_roce_opcode(dpv_bth_opcode(bth));
	const uint8_t *h = d + bth_off;
	const struct rte_udp_hdr *udp =
		(const struct rte_udp_hdr *)(h - sizeof(*udp));
	uint32_t fl = oi->mask;

	/* every field: the caller need not clear *p */
	*p = (struct dpv_epkt){
		.m = m,
		.flags = fl,
		.opcode = dpv_bth_opcode(bth),
		.se = dpv_bth_se(bth),
		.ackreq = dpv_bth_ackreq(bth),
		.pkey = dpv_bth_pkey(bth),
		.dqpn = dpv_bth_qpn(bth),
		.psn = dpv_bth_psn(bth),
		.payload = d + bth_off + oi->length,
		.paylen = paylen,
		.ipv4 = !ipv6,
		.l3 = d + l3_off,
		.udp_sport = rte_be_to_cpu_16(udp->src_port),
	};
	if (fl & DPV_OPF_RETH) {
		const struct dpv_reth *r = (const void *)(h + HOFF(oi, RETH));

		p->va = dpv_reth_va(r);
		p->rkey = dpv_reth_rkey(r);
		p->dmalen = dpv_reth_len(r);
	}
	if (fl & DPV_OPF_ATMETH) {
		const struct dpv_atmeth *a =
			(const void *)(h + HOFF(oi, ATMETH));

		p->va = dpv_atmeth_va(a);
		p->rkey = dpv_atmeth_rkey(a);
		p->swap_add = dpv_atmeth_swap_add(a);
		p->compare = dpv_atmeth_compare(a);
		p->dmalen = 8;
	}
	if (fl & DPV_OPF_AETH) {
		const struct dpv_aeth *a = (const void *)(h + HOFF(oi, AETH));

		p->syndrome = dpv_aeth_syndrome(a);
		p->msn = dpv_aeth_msn(a);
	}
	if (fl & DPV_OPF_ATMACK)
		p->orig = dpv_atmack_orig((const void *)(h + HOFF(oi, ATMACK)));
	if (fl & DPV_OPF_DETH) {
		const struct dpv_deth *dh = (const void *)(h + HOFF(oi, DETH));

		p->qkey = dpv_deth_qkey(dh);
		p->src_qp = dpv_deth_sqp(dh);
	}
	if (fl & DPV_OPF_IMMDT)
		p->imm_be = dpv_immdt_imm((const void *)(h + HOFF(oi, IMMDT)));
	if (fl & DPV_OPF_IETH)
		p->ieth_rkey = dpv_ieth_rkey((const void *)(h + HOFF(oi, IETH)));
	if (fl & DPV_OPF_XRCETH)
		p->xrc_srqn =
			dpv_xrceth_srqn((const void *)(h + HOFF(oi, XRCETH)));
	if (fl & DPV_OPF_DCETH) {
		const struct dpv_dceth *dc = (const void *)(h + HOFF(oi, DCETH));

		p->dc_key = dpv_dceth_key(dc);
		p->dc_dci = dpv_dceth_dci(dc);
		p->dc_cpsn = dpv_dceth_cpsn(dc);
	}
	memcpy(p->dmac, d, 6);
	memcpy(p->smac, d + 6, 6);
	if (ipv6) {
		const struct rte_ipv6_hdr *ip = (const void *)(d + l3_off);

		memcpy(p->sgid, ip->src_addr, 16);
		memcpy(p->dgid, ip->dst_addr, 16);
	} else {
		const struct rte_ipv4_hdr *ip = (const void *)(d + l3_off);

		dpv_roce_gid_v4_(p->sgid, ip->src_addr);
		dpv_roce_gid_v4_(p->dgid, ip->dst_addr);
	}
}

/*
 * The common frame (untagged IPv4 without options or IPv6, UDP checksum
 * 0, exactly the frame's length, one segment, a good ICRC) checked and
 * decoded straight into p. It accepts only what dpv_roce_parse_inline()
 * accepts (engine_wire's test checks that on every mutated frame); false
 * for anything else, which the full parser then decides.
 */
static inline bool
parse_fast(struct rte_mbuf *m, uint8_t *d, uint32_t flags, struct dpv_epkt *p)
{
	const uint32_t l3_off = sizeof(struct rte_ether_hdr);
	uint32_t len = m->data_len, l3_len, l4_len, data, off;
	const struct dpv_roce_opcode_info *oi;
	const struct rte_udp_hdr *udp;
	const struct dpv_bth *bth;
	uint8_t *l3 = d + l3_off;
	rte_be16_t et;
	uint8_t pad;
	bool ipv6;

	if (len < l3_off + sizeof(struct rte_ipv4_hdr) + sizeof(*udp) +
			  sizeof(*bth) + DPV_ROCE_ICRC_LEN)
		return false;
	memcpy(&et, d + 12, 2);
	if (et == RTE_BE16(RTE_ETHER_TYPE_IPV4)) {
		const struct rte_ipv4_hdr *ip = (const void *)l3;

		l3_len = rte_be_to_cpu_16(ip->total_length);
		if (ip->version_ihl != 0x45 || l3_off + l3_len != len ||
		    l3_len < sizeof(*ip) ||
		    (ip->fragment_offset &
		     RTE_BE16(RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK)) ||
		    ip->next_proto_id != IPPROTO_UDP ||
		    (!(flags & DPV_ROCE_PARSE_NO_CSUM) &&
		     !dpv_roce_ipv4_csum_ok_(ip, sizeof(*ip))))
			return false;
		ipv6 = false;
		off = l3_off + sizeof(*ip);
	} else if (et == RTE_BE16(RTE_ETHER_TYPE_IPV6)) {
		const struct rte_ipv6_hdr *ip = (const void *)l3;

		if (len < l3_off + sizeof(*ip) + sizeof(*udp) + sizeof(*bth) +
				  DPV_ROCE_ICRC_LEN)
			return false;
		l3_len = sizeof(*ip) + rte_be_to_cpu_16(ip->payload_len);
		if ((ip->vtc_flow & RTE_BE32(0xf0000000)) != RTE_BE32(0x60000000) ||
		    l3_off + l3_len != len || ip->proto != IPPROTO_UDP)
			return false;
		ipv6 = true;
		off = l3_off + sizeof(*ip);
	} else {
		return false;
	}
	l4_len = l3_off + l3_len - off;
	udp = (const void *)(d + off);
	if (l4_len < sizeof(*udp) + sizeof(*bth) + DPV_ROCE_ICRC_LEN ||
	    rte_be_to_cpu_16(udp->dgram_len) != l4_len ||
	    udp->dst_port != RTE_BE16(DPV_ROCE_UDP_PORT) ||
	    udp->dgram_cksum != 0)
		return false;
	off += sizeof(*udp);
	l4_len -= sizeof(*udp);
	bth = (const void *)(d + off);
	oi = dpv_roce_opcode(dpv_bth_opcode(bth));
	if (dpv_bth_tver(bth) != DPV_ROCE_TVER ||
	    !(oi->mask & DPV_OPF_VALID) ||
	    l4_len < (uint32_t)oi->length + DPV_ROCE_ICRC_LEN)
		return false;
	data = l4_len - oi->length - DPV_ROCE_ICRC_LEN;
	pad = dpv_bth_pad(bth);
	if ((data & 3) != 0 || (data != 0 && !(oi->mask & DPV_OPF_PAYLOAD)) ||
	    (pad != 0 && (!(oi->mask & DPV_OPF_LAST) || pad > data)))
		return false;
	if (!(flags & DPV_ROCE_PARSE_NO_ICRC) &&
	    dpv_roce_icrc_calc_l2(l3, l3_len) != dpv_roce_icrc_get(l3, l3_len))
		return false;
	fill_epkt(p, m, d, l3_off, ipv6, off, data - pad);
	return true;
}

enum dpv_roce_rx_status
dpv_engine_parse_flags(struct rte_mbuf *m, struct dpv_epkt *p, uint32_t flags)
{
	struct dpv_roce_pkt r;
	enum dpv_roce_rx_status st;
	uint8_t *d;

	bool slow = flags & DPV_ENGINE_PARSE_SLOW;

	flags = (flags & ~DPV_ENGINE_PARSE_SLOW) | parse_flags(m);
	if (likely(rte_pktmbuf_is_contiguous(m) && !slow)) {
		d = rte_pktmbuf_mtod(m, uint8_t *);
		if (likely(parse_fast(m, d, flags, p)))
			return DPV_ROCE_RX_OK;
	} else if (!rte_pktmbuf_is_contiguous(m) &&
		   rte_pktmbuf_linearize(m) != 0) {
		return DPV_ROCE_RX_SEG_HDRS;
	}
	d = rte_pktmbuf_mtod(m, uint8_t *);
	st = dpv_roce_parse_inline(d, m->data_len, m->data_len, NULL, flags,
				   &r);
	if (unlikely(st != DPV_ROCE_RX_OK))
		return st;
	fill_epkt(p, m, d, r.l3_off, r.ipv6, r.bth_off, r.payload_len);
	return DPV_ROCE_RX_OK;
}

/* the BTH's offset in an ACK frame of len bytes */
static __rte_always_inline uint32_t
ack_bth_off(uint32_t len)
{
	return len - DPV_EACK_BTH_END;
}
_Static_assert(DPV_ENGINE_ACK_LEN4 - DPV_EACK_PSN_END == DPV_ERXACK_PREFIX &&
		       DPV_ENGINE_ACK_LEN6 - DPV_EACK_PSN_END ==
			       DPV_ERXACK_PREFIX6,
	       "the reference holds an ACK up to its PSN word");

/* An untagged IPv4 or IPv6 RC ACK frame of len bytes (a length
 * dpv_engine_ack_len() took) */
static __rte_always_inline bool
ack_frame(const uint8_t *d, uint32_t len)
{
	rte_be16_t et;

	memcpy(&et, d + 12, 2);
	return et == (len == DPV_ENGINE_ACK_LEN4
			      ? RTE_BE16(RTE_ETHER_TYPE_IPV4)
			      : RTE_BE16(RTE_ETHER_TYPE_IPV6)) &&
	       d[ack_bth_off(len)] == DPV_ROCE_OP_ACK;
}

/* x with the bits where the 16 bytes at a and b differ */
static inline __m128i
diff16(__m128i x, const uint8_t *a, const uint8_t *b)
{
	return _mm_or_si128(
		x, _mm_xor_si128(_mm_loadu_si128((const void *)a),
				 _mm_loadu_si128((const void *)b)));
}

/* The bits where the first DPV_ERXACK_PREFIX bytes of d and ref differ,
 * those of bytes 16..31 only where keep1 has them (a constant where this
 * is inlined: all ones costs nothing). */
static __rte_always_inline __m128i
diff_prefix(const uint8_t *d, const uint8_t *ref, __m128i keep1)
{
	__m128i x = diff16(_mm_setzero_si128(), d, ref);

	_Static_assert(DPV_ERXACK_PREFIX > 48 && DPV_ERXACK_PREFIX <= 48 + 16,
		       "three blocks and an overlapping one");
	x = _mm_or_si128(
		x, _mm_and_si128(diff16(_mm_setzero_si128(), d + 16, ref + 16),
				 keep1));
	x = diff16(x, d + 32, ref + 32);
	/* the last 16, overlapping */
	return diff16(x, d + DPV_ERXACK_PREFIX - 16,
		      ref + DPV_ERXACK_PREFIX - 16);
}

/* The ACK d repeats its reference r up to its PSN word (tail: the IPv6
 * reference's bytes after r->b, NULL for IPv4). */
static __rte_always_inline bool
prefix_same(const uint8_t *d, const struct dpv_erxack *r,
	    const uint8_t *tail)
{
	__m128i x = diff_prefix(d, r->b, _mm_set1_epi8(-1));

	if (tail != NULL) {
		_Static_assert(DPV_ERXACK_PREFIX6 - DPV_ERXACK_PREFIX > 16 &&
				       DPV_ERXACK_PREFIX6 -
						       DPV_ERXACK_PREFIX <=
					       32,
			       "two blocks cover the IPv6 tail");
		x = diff16(x, d + DPV_ERXACK_PREFIX, tail);
		x = diff16(x, d + DPV_ERXACK_PREFIX6 - 16,
			   tail + DPV_ERXACK_PREFIX6 - DPV_ERXACK_PREFIX -
				   16);
	}
	return _mm_testz_si128(x, x);
}

/* The ICRC of the ACK d with its PSN and AETH words zero, from the one it
 * has */
static __rte_always_inline uint32_t
ack_icrc_zero(const struct dpv_engine *e, const uint8_t *d, uint32_t len)
{
	return dpv_roce_le32(d + len - DPV_ROCE_ICRC_LEN) ^
	       dpv_roce_icrc_delta2(dpv_roce_le32(d + len - DPV_EACK_PSN_END),
				    e->ack_k_psn,
				    dpv_roce_le32(d + len - DPV_EACK_AETH_END),
				    e->ack_k_aeth);
}

/* dpv_engine_rx_ack_fast() for an ACK of len bytes (a constant: each
 * IP version its own code) */
static __rte_always_inline struct dpv_eqp *
ack_fast(struct dpv_engine *e, struct rte_mbuf *m, struct dpv_epkt *pkt,
	 const uint32_t len)
{
	uint8_t *d = rte_pktmbuf_mtod(m, uint8_t *);
	const uint32_t bo = ack_bth_off(len);
	const bool v4 = len == DPV_ENGINE_ACK_LEN4;
	const struct dpv_erxack *r;
	struct dpv_eqp *qp;

	if (m->nb_segs != 1 || !ack_frame(d, len))
		return NULL;
	qp = dpv_engine_qp_lookup(e, dpv_bth_qpn((const void *)(d + bo)));
	if (qp == NULL)
		return NULL;
	r = &qp->rx_ack;
	if (r->len != len ||
	    !dpv_engine_qp_takes_resp(qp) ||
	    !prefix_same(d, r, v4 ? NULL : qp->rx_ack6) ||
	    ack_icrc_zero(e, d, len) != r->icrc)
		return NULL; /* the full parse decides, and counts */
	qp->rx_ack.misses = 0;
	{
		const struct dpv_bth *bth = (const void *)(d + bo);
		const struct dpv_aeth *a = (const void *)(d + bo + 12);
		const struct rte_udp_hdr *udp =
			(const void *)(d + bo - sizeof(*udp));

		/* the fields of an ACK; the addresses are not read (they
		 * are the reference's, which the full parse read) */
		pkt->m = m;
		pkt->flags = dpv_roce_opcode(DPV_ROCE_OP_ACK)->mask;
		pkt->opcode = DPV_ROCE_OP_ACK;
		pkt->se = dpv_bth_se(bth);
		pkt->ackreq = dpv_bth_ackreq(bth);
		pkt->pkey = dpv_bth_pkey(bth);
		pkt->dqpn = qp->qpn;
		pkt->psn = dpv_bth_psn(bth);
		pkt->syndrome = dpv_aeth_syndrome(a);
		pkt->msn = dpv_aeth_msn(a);
		pkt->payload = d + bo + 16;
		pkt->paylen = 0;
		pkt->ipv4 = v4;
		pkt->l3 = d + sizeof(struct rte_ether_hdr);
		pkt->udp_sport = rte_be_to_cpu_16(udp->src_port);
	}
	return qp;
}

struct dpv_eqp *
dpv_engine_rx_ack_fast(struct dpv_engine *e, struct rte_mbuf *m,
		       struct dpv_epkt *pkt)
{
	return m->data_len == DPV_ENGINE_ACK_LEN4
		       ? ack_fast(e, m, pkt, DPV_ENGINE_ACK_LEN4)
		       : ack_fast(e, m, pkt, DPV_ENGINE_ACK_LEN6);
}

void
dpv_engine_rx_ack_note(struct dpv_eqp *qp, const struct rte_mbuf *m)
{
	const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);
	struct dpv_erxack *r = &qp->rx_ack;

	if (qp->type != IBV_QPT_RC || qp->dc == DPV_ENGINE_DC_DCT ||
	    qp->srcqpn || m->nb_segs != 1 || r->misses >= DPV_ERXACK_MISSES ||
	    !dpv_engine_ack_len(m->data_len) || !ack_frame(d, m->data_len))
		return;
	r->misses++;
	memcpy(r->b, d, DPV_ERXACK_PREFIX);
	if (m->data_len == DPV_ENGINE_ACK_LEN6)
		memcpy(qp->rx_ack6, d + DPV_ERXACK_PREFIX,
		       sizeof(qp->rx_ack6));
	r->icrc = ack_icrc_zero(qp->e, d, m->data_len);
	r->len = (uint8_t)m->data_len;
}

_Static_assert(DPV_ENGINE_BTH_OFF_IPV4 + 8 == DPV_ERXREQ_PREFIX,
	       "the request reference ends at the BTH's PSN word");
/* the shortest frame a reference is kept for: the prefix, the PSN word,
 * the ICRC */
#define REQ_MIN_LEN (DPV_ERXREQ_PREFIX + 4 + DPV_ROCE_ICRC_LEN)

/* an opcode a reference is kept for: RC SEND ONLY, RDMA WRITE ONLY */
static inline bool
req_fast_op(uint8_t op)
{
	return op == DPV_ROCE_OP_SEND_ONLY || op == DPV_ROCE_OP_WRITE_ONLY;
}

/* The request d repeats the reference ref up to its PSN word, but for its
 * IPv4 identification and checksum (a sender may number its frames: both
 * differ from frame to frame, and the checksum is checked) */
static __rte_always_inline bool
req_prefix_same(const uint8_t *d, const uint8_t *ref)
{
	/* bytes 16..31 of the frame: the identification at 18, the
	 * checksum at 24 (_mm_set_epi8 takes byte 15 first) */
	const __m128i keep = _mm_set_epi8(-1, -1, -1, -1, -1, -1, 0, 0, -1, -1,
					  -1, -1, 0, 0, -1, -1);
	__m128i x = diff_prefix(d, ref, keep);

	return _mm_testz_si128(x, x) &&
	       dpv_roce_ipv4_csum_ok_((const void *)(d + 14),
				      sizeof(struct rte_ipv4_hdr));
}

struct dpv_eqp *
dpv_engine_rx_req_fast(struct dpv_engine *e, struct rte_mbuf *m,
		       struct dpv_epkt *pkt)
{
	uint8_t *d = rte_pktmbuf_mtod(m, uint8_t *);
	const struct dpv_bth *bth = (const void *)(d + DPV_ENGINE_BTH_OFF_IPV4);
	const uint32_t l2 = sizeof(struct rte_ether_hdr);
	const struct dpv_roce_opcode_info *oi;
	const struct rte_udp_hdr *udp;
	uint32_t len = m->data_len;
	struct dpv_eqp *qp;
	rte_be16_t et;
	uint8_t op;

	/* what the reference can be: a look before the QP's lines */
	if (m->nb_segs != 1 || len < REQ_MIN_LEN)
		return NULL;
	memcpy(&et, d + 12, 2);
	op = d[DPV_ENGINE_BTH_OFF_IPV4];
	if (et != RTE_BE16(RTE_ETHER_TYPE_IPV4) || !req_fast_op(op))
		return NULL;
	qp = dpv_engine_qp_lookup(e, dpv_bth_qpn(bth));
	if (qp == NULL || qp->rx_req.len != len ||
	    !dpv_engine_qp_takes_req(qp))
		return NULL;
	/* a wrong ICRC: the full parse computes it again, and counts it */
	if (!req_prefix_same(d, qp->rx_req.b) ||
	    dpv_roce_icrc_calc_l2(d + l2, len - l2) !=
		    dpv_roce_icrc_get(d + l2, len - l2))
		return NULL;
	oi = dpv_roce_opcode(op);
	udp = (const void *)(d + DPV_ENGINE_BTH_OFF_IPV4 - sizeof(*udp));
	/* the fields fill_epkt() gives such a request, but the addresses:
	 * they are the reference's, which the receive path checked, and
	 * nothing after it reads them for an RC request */
	*pkt = (struct dpv_epkt){
		.m = m,
		.flags = oi->mask,
		.opcode = op,
		.se = dpv_bth_se(bth),
		.ackreq = dpv_bth_ackreq(bth),
		.pkey = dpv_bth_pkey(bth),
		.dqpn = dpv_bth_qpn(bth),
		.psn = dpv_bth_psn(bth),
		.payload = d + DPV_ENGINE_BTH_OFF_IPV4 + oi->length,
		.paylen = len - DPV_ENGINE_BTH_OFF_IPV4 - oi->length -
			  DPV_ROCE_ICRC_LEN - dpv_bth_pad(bth),
		.ipv4 = true,
		.l3 = d + l2,
		.udp_sport = rte_be_to_cpu_16(udp->src_port),
	};
	if (op == DPV_ROCE_OP_WRITE_ONLY) {
		const struct dpv_reth *r =
			(const void *)(d + DPV_ENGINE_BTH_OFF_IPV4 +
				       HOFF(oi, RETH));

		pkt->va = dpv_reth_va(r);
		pkt->rkey = dpv_reth_rkey(r);
		pkt->dmalen = dpv_reth_len(r);
	}
	return qp;
}

void
dpv_engine_rx_req_note(struct dpv_eqp *qp, const struct dpv_epkt *pkt)
{
	const struct rte_mbuf *m = pkt->m;
	const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);

	/* untagged IPv4 without options: the BTH where the fast path reads
	 * it */
	if (!req_fast_op(pkt->opcode) || qp->type != IBV_QPT_RC ||
	    qp->dc != 0 || qp->srcqpn || !pkt->ipv4 ||
	    pkt->l3 != d + sizeof(struct rte_ether_hdr) ||
	    d[sizeof(struct rte_ether_hdr)] != 0x45 || m->nb_segs != 1 ||
	    m->data_len < REQ_MIN_LEN)
		return;
	memcpy(qp->rx_req.b, d, DPV_ERXREQ_PREFIX);
	qp->rx_req.len = m->data_len;
}

/* lib/roce's parser checks the frame (a fast path for the common one);
 * the engine's fields are read from it. */
enum dpv_roce_rx_status
dpv_engine_parse(struct rte_mbuf *m, struct dpv_epkt *p)
{
	return dpv_engine_parse_flags(m, p, 0);
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

_Static_assert(offsetof(struct dpv_etmpl, b) + 48 <= 64 &&
		       offsetof(struct dpv_eqp, tmpl) % 64 == 0,
	       "a template's first 48 bytes of headers on its first line");

/* The frame's Ethernet, IP and UDP headers from the QP's template: its
 * bytes, then the lengths, the identification and the IPv4 checksum. */
static void
write_l2_l4_tmpl(const struct dpv_etmpl *t, uint8_t *d, uint32_t ulen,
		 uint16_t ip_id)
{
	struct rte_udp_hdr *udp =
		(struct rte_udp_hdr *)(d + t->len - sizeof(*udp));

	/* an untagged IPv4 frame's 42 bytes in three 16-byte moves, on the
	 * template's first line: the whole of b[] reached into its second,
	 * which nothing else of a frame reads (4,096 QPs: a miss a frame,
	 * 14 % of the time once the SGE line was prefetched) */
	if (t->len <= 48)
		memcpy(d, t->b, 48);
	else
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
	dpv_bth_write(bth, hd->opcode,
		      dpv_bth_flags(hd->se, false, (uint8_t)pad, DPV_ROCE_TVER),
		      DPV_ROCE_PKEY_DEFAULT, hd->dqpn, hd->ackreq, hd->psn);
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

		dpv_aeth_set(a, hd->syndrome, hd->msn);
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
	if (info->mask & DPV_OPF_DCETH)
		dpv_dceth_set((struct dpv_dceth *)(h + HOFF(info, DCETH)),
			      hd->dc_key, hd->dc_dci, hd->dc_cpsn);
}

/* A frame of len bytes (*d its first) with l2 bytes of L2 header; NULL,
 * counted as tx_drop_nombuf, without an mbuf or room. */
static __rte_always_inline struct rte_mbuf *
frame_alloc(struct dpv_engine *e, uint32_t len, uint32_t l2, uint8_t **d)
{
	struct rte_mbuf *m = dpv_engine_mbuf(e);

	if (m == NULL) {
		e->st.tx_drop_nombuf++;
		return NULL;
	}
	*d = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)len);
	if (*d == NULL || len > UINT16_MAX) {
		rte_pktmbuf_free(m);
		e->st.tx_drop_nombuf++;
		return NULL;
	}
	m->l2_len = l2;
	return m;
}

struct rte_mbuf *
dpv_engine_build(struct dpv_engine *e, const struct dpv_engine_path *path,
		 const struct dpv_etmpl *t, const struct dpv_ehdr *hd,
		 uint32_t paylen, uint8_t **payload)
{
	const struct dpv_roce_opcode_info *info = dpv_roce_opcode(hd->opcode);
	uint32_t pad = (4 - (paylen & 3)) & 3;
	bool tmpl = t != NULL && t->len != 0;
	/* a template already knows its header lengths */
	uint32_t l2 = tmpl ? t->l2 : l2_len(path);
	uint32_t l3h = tmpl ? t->len - l2 - (uint32_t)sizeof(struct rte_udp_hdr)
			    : l3_hdr_len(path);
	uint32_t ulen = sizeof(struct rte_udp_hdr) + info->length + paylen +
			pad + DPV_ROCE_ICRC_LEN;
	struct rte_mbuf *m;
	uint8_t *d, *h;

	m = frame_alloc(e, l2 + l3h + ulen, l2, &d);
	if (m == NULL)
		return NULL;
	/* a template copies whole: the buffer must hold its bytes */
	if (tmpl &&
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

struct rte_mbuf *
dpv_engine_build_req(struct dpv_engine *e, const struct dpv_etmpl *t,
		     const uint8_t hdr[DPV_ENGINE_REQ_HDR], uint32_t hlen,
		     uint32_t paylen, uint8_t **payload)
{
	static const uint32_t zero;
	uint32_t pad = (4 - (paylen & 3)) & 3;
	uint32_t ulen = (uint32_t)sizeof(struct rte_udp_hdr) + hlen + paylen +
			pad + DPV_ROCE_ICRC_LEN;
	uint8_t *d, *h;
	struct rte_mbuf *m;

	/* room: the path MTU is at most mbuf_room - 104, so the whole
	 * copies below (64 + 32 bytes) stay inside the buffer */
	m = frame_alloc(e, t->len - (uint32_t)sizeof(struct rte_udp_hdr) + ulen,
			t->l2, &d);
	if (m == NULL)
		return NULL;
	write_l2_l4_tmpl(t, d, ulen, e->ip_id++);
	h = d + t->len;
	memcpy(h, hdr, DPV_ENGINE_REQ_HDR);
	*payload = h + hlen;
	/* the pad, and bytes of the ICRC written later */
	memcpy(*payload + paylen, &zero, sizeof(zero));
	return m;
}

void
dpv_engine_finish(struct rte_mbuf *m)
{
	uint8_t *l3 = rte_pktmbuf_mtod_offset(m, uint8_t *, m->l2_len);

	/* the Ethernet header precedes: one pass, headers masked in place */
	dpv_roce_icrc_set_l2(l3, m->pkt_len - m->l2_len);
}

void
dpv_engine_tx_copy(struct dpv_engine *e, struct rte_mbuf *m, uint8_t *p,
		   const void *src, uint32_t n)
{
	uint8_t *l3 = rte_pktmbuf_mtod_offset(m, uint8_t *, m->l2_len);

	dpv_roce_icrc_set_copy_l2(l3, m->pkt_len - m->l2_len,
				  (uint32_t)(p - l3), src, n);
	dpv_engine_tx_ready(e, m);
}

/* ------------------------------------------------------- ACK templates */

/* qp's ACK template from its frame template, destination and transport
 * (false: none for this QP: no frame template, or a DCT, whose responder
 * answers many initiators) */
static bool
ack_tmpl_set(struct dpv_eqp *qp)
{
	struct dpv_eack *a = &qp->ack_tmpl;
	const struct dpv_etmpl *t = &qp->tmpl;
	struct dpv_ehdr h = {
		.opcode = DPV_ROCE_OP_ACK | eqp_tr(qp),
		.dqpn = qp->dest_qpn,
	};
	const struct dpv_roce_opcode_info *info = dpv_roce_opcode(h.opcode);
	uint32_t ulen = sizeof(struct rte_udp_hdr) + info->length +
			DPV_ROCE_ICRC_LEN;
	uint32_t len = t->len + info->length + DPV_ROCE_ICRC_LEN;

	qp->resp.ack_len = 0;
	if (t->len == 0 || qp->dc != 0 || len > sizeof(a->b))
		return false;
	/* the PSN word, the AETH and the ICRC end the frame (so the ICRC
	 * factors of the two words are the engine's) */
	RTE_VERIFY(t->len + 8u == len - DPV_EACK_PSN_END &&
		   t->len + (uint32_t)HOFF(info, AETH) ==
			   len - DPV_EACK_AETH_END);
	/* identification 0 (DF is set): the IPv4 checksum is constant too */
	write_l2_l4_tmpl(t, a->b, ulen, 0);
	write_bth_ext(a->b + t->len, info, &h, 0);
	qp->resp.ack_l2 = t->l2;
	qp->resp.ack_icrc = dpv_roce_icrc_set_l2(a->b + t->l2, len - t->l2);
	qp->resp.ack_len = (uint8_t)len;
	return true;
}

void
dpv_engine_qp_tmpl_set(struct dpv_eqp *qp)
{
	dpv_engine_tmpl_set(&qp->tmpl, &qp->path);
	qp->resp.ack_len = 0;
	dpv_erxack_drop(&qp->rx_ack);
	qp->rx_req.len = 0;
}

struct rte_mbuf *
dpv_engine_build_ack(struct dpv_eqp *qp, uint8_t syndrome, uint32_t psn,
		     bool *no_tmpl)
{
	const struct dpv_eack *a = &qp->ack_tmpl;
	struct dpv_engine *e = qp->e;
	uint32_t w_psn, w_aeth, icrc, len;
	struct rte_mbuf *m;
	uint8_t *d;

	*no_tmpl = false;
	if (unlikely(qp->resp.ack_len == 0) && !ack_tmpl_set(qp)) {
		*no_tmpl = true;
		return NULL;
	}
	len = qp->resp.ack_len;
	m = dpv_engine_mbuf(e);
	if (m == NULL) {
		e->st.tx_drop_nombuf++;
		return NULL;
	}
	d = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)len);
	/* the template copies whole: the buffer must hold its bytes */
	if (d == NULL ||
	    (size_t)(d - (uint8_t *)m->buf_addr) + sizeof(a->b) > m->buf_len) {
		rte_pktmbuf_free(m);
		*no_tmpl = true;
		return NULL;
	}
	m->l2_len = qp->resp.ack_l2;
	/* an untagged IPv4 ACK from the template's first line alone */
	if (len <= 64)
		memcpy(d, a->b, 64);
	else
		memcpy(d, a->b, sizeof(a->b));
	/* the two words as stored (big-endian fields), read little-endian
	 * by the ICRC */
	w_psn = rte_cpu_to_be_32(psn & 0xffffff);
	w_aeth = rte_cpu_to_be_32((uint32_t)syndrome << 24 |
				  (qp->resp.msn & 0xffffff));
	memcpy(d + len - DPV_EACK_PSN_END, &w_psn, 4);
	memcpy(d + len - DPV_EACK_AETH_END, &w_aeth, 4);
	icrc = rte_cpu_to_le_32(qp->resp.ack_icrc ^
				dpv_roce_icrc_delta2(rte_le_to_cpu_32(w_psn),
						     e->ack_k_psn,
						     rte_le_to_cpu_32(w_aeth),
						     e->ack_k_aeth));
	memcpy(d + len - DPV_ROCE_ICRC_LEN, &icrc, 4);
	return m;
}
