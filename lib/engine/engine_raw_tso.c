/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TSO on raw-packet QPs (IBV_WR_TSO), done in software as a ConnectX does
 * it in hardware: the WQE's inline header template (Ethernet, an optional
 * 802.1Q tag, IPv4 or IPv6, TCP) is put in front of every MSS-sized piece
 * of the payload, and each frame gets its own IP length, IPv4 ID (the
 * template's, plus the frame's index), TCP sequence number (plus the
 * payload offset) and flags (FIN and PSH on the last frame only, CWR on
 * the first only), then its IPv4 header and TCP checksums.
 *
 * A WQE may need more frames than the engine can queue at once: it stays
 * fetched (not retired) in struct raw_tso until its last frame is queued.
 */
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_tcp.h>

#include "engine_int.h"
#include "engine_raw_int.h"
#include "mlx5_ring.h"

#define TCP_FIN 0x01
#define TCP_PSH 0x08
#define TCP_CWR 0x80

struct raw_tso {
	bool busy;
	const struct dpv_mlx5_sq *sq;  /* the ring the WQE came from */
	uint32_t ring_start, ring_end; /* its blocks: eng_ci, eng_pi */
	struct dpv_wr w;
	uint8_t hdr[DPV_MLX5_MAX_TSO_HEADER];
	uint32_t hlen;	 /* header template length */
	uint32_t l3, l4; /* offsets of the IP and TCP headers */
	bool v4;
	uint32_t seq0;	/* template's sequence number (host order) */
	uint16_t id0;	/* template's IPv4 ID (host order) */
	uint64_t total; /* payload bytes */
	uint64_t off;	/* payload bytes already in frames */
	uint32_t nseg;	/* frames queued */
	const uint8_t *src[DPV_WR_MAX_SGE]; /* SGE host addresses */
};

/* Where the IP and TCP headers of the template are; false if it is not
 * exactly Ethernet [802.1Q] IPv4|IPv6 TCP. */
static bool
tso_parse(struct raw_tso *t)
{
	uint32_t off = RTE_ETHER_HDR_LEN, tl;
	const struct rte_tcp_hdr *tcp;
	uint16_t et;

	memcpy(&et, t->hdr + 12, 2);
	if (et == rte_cpu_to_be_16(RTE_ETHER_TYPE_VLAN)) {
		memcpy(&et, t->hdr + 16, 2);
		off += 4;
	}
	t->l3 = off;
	if (et == rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4)) {
		const struct rte_ipv4_hdr *ip;
		uint32_t hl;

		if (t->hlen < off + sizeof(*ip))
			return false;
		ip = (const void *)(t->hdr + off);
		hl = (ip->version_ihl & 0xf) * 4u;
		if ((ip->version_ihl >> 4) != 4 || hl < sizeof(*ip) ||
		    ip->next_proto_id != IPPROTO_TCP ||
		    (rte_be_to_cpu_16(ip->fragment_offset) &
		     (RTE_IPV4_HDR_OFFSET_MASK | RTE_IPV4_HDR_MF_FLAG)))
			return false;
		t->v4 = true;
		t->id0 = rte_be_to_cpu_16(ip->packet_id);
		off += hl;
	} else if (et == rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6)) {
		const struct rte_ipv6_hdr *ip;

		if (t->hlen < off + sizeof(*ip))
			return false;
		ip = (const void *)(t->hdr + off);
		if (ip->proto != IPPROTO_TCP)
			return false; /* extension headers: not segmented */
		t->v4 = false;
		off += sizeof(*ip);
	} else {
		return false;
	}
	t->l4 = off;
	if (t->hlen < off + sizeof(*tcp))
		return false;
	tcp = (const void *)(t->hdr + off);
	tl = (tcp->data_off >> 4) * 4u;
	if (tl < sizeof(*tcp) || off + tl != t->hlen)
		return false;
	t->seq0 = rte_be_to_cpu_32(tcp->sent_seq);
	return true;
}

static void
wr_gather(const struct raw_tso *t, uint64_t off, uint8_t *dst, uint32_t n)
{
	const struct dpv_wr *w = &t->w;
	uint32_t k, cnt = (w->flags & DPV_WR_F_INLINE) ? 2 : w->num_sge;

	for (k = 0; k < cnt && n > 0; k++) {
		uint32_t len = (w->flags & DPV_WR_F_INLINE)
				       ? w->inl[k].len
				       : w->sg_list[k].length;
		const uint8_t *s = (w->flags & DPV_WR_F_INLINE)
					   ? (const uint8_t *)w->inl[k].addr
					   : t->src[k];
		uint32_t c;

		if (off >= len) {
			off -= len;
			continue;
		}
		c = (uint32_t)RTE_MIN((uint64_t)n, len - off);
		memcpy(dst, s + off, c);
		dst += c;
		n -= c;
		off = 0;
	}
}

enum ibv_wc_status
raw_tso_start(struct dpv_eqp *qp, struct raw_qp *q, const struct dpv_wr *w)
{
	struct dpv_engine *e = qp->e;
	struct raw_tso *t = q->tso;
	uint32_t first;

	if (t == NULL) {
		t = calloc(1, sizeof(*t));
		if (t == NULL)
			return IBV_WC_GENERAL_ERR;
		q->tso = t;
	}
	t->busy = false;
	if (w->raw_hdr_len < RTE_ETHER_HDR_LEN ||
	    w->raw_hdr_len > sizeof(t->hdr) || w->tso_mss == 0)
		return IBV_WC_LOC_QP_OP_ERR;
	t->w = *w;
	t->hlen = w->raw_hdr_len;
	memcpy(t->hdr, w->tso_hdr[0].addr, w->tso_hdr[0].len);
	memcpy(t->hdr + w->tso_hdr[0].len, w->tso_hdr[1].addr,
	       w->tso_hdr[1].len);
	if (!tso_parse(t))
		return IBV_WC_LOC_QP_OP_ERR;
	t->total = w->total_len;
	first = (uint32_t)RTE_MIN(t->total, (uint64_t)w->tso_mss);
	if (t->hlen + first > e->mbuf_room)
		return IBV_WC_LOC_LEN_ERR;
	if (!(w->flags & DPV_WR_F_INLINE)) {
		for (uint32_t k = 0; k < w->num_sge; k++) {
			void *h;

			if (dpv_engine_key_access(e, qp, w->sg_list[k].lkey,
						  w->sg_list[k].addr,
						  w->sg_list[k].length, 0,
						  &h) != DPV_KEY_OK)
				return IBV_WC_LOC_PROT_ERR;
			t->src[k] = h;
		}
	}
	t->sq = qp->sq;
	t->ring_start = qp->sq->wq.eng_ci;
	t->ring_end = qp->sq->wq.eng_pi;
	t->off = 0;
	t->nseg = 0;
	t->busy = true;
	return IBV_WC_SUCCESS;
}

bool
raw_tso_busy(struct raw_qp *q, const struct dpv_eqp *qp)
{
	struct raw_tso *t = q->tso;

	if (t == NULL || !t->busy)
		return false;
	/* flushed (ERR) or replaced (RESET) while it waited: forget it */
	if (t->sq != qp->sq || qp->sq->wq.eng_ci != t->ring_start ||
	    qp->sq->wq.eng_pi != t->ring_end)
		t->busy = false;
	return t->busy;
}

/* Frame number t->nseg: header template fixed up, payload, checksums. */
static void
tso_frame(const struct raw_tso *t, uint8_t *f, uint32_t n, bool last)
{
	struct rte_tcp_hdr *tcp = (void *)(f + t->l4);
	uint32_t l4len = t->hlen - t->l4 + n;

	memcpy(f, t->hdr, t->hlen);
	wr_gather(t, t->off, f + t->hlen, n);
	if (t->v4) {
		struct rte_ipv4_hdr *ip = (void *)(f + t->l3);

		ip->total_length =
			rte_cpu_to_be_16((uint16_t)(t->l4 - t->l3 + l4len));
		ip->packet_id = rte_cpu_to_be_16((uint16_t)(t->id0 + t->nseg));
	} else {
		struct rte_ipv6_hdr *ip = (void *)(f + t->l3);

		ip->payload_len = rte_cpu_to_be_16((uint16_t)l4len);
	}
	tcp->sent_seq = rte_cpu_to_be_32(t->seq0 + (uint32_t)t->off);
	if (!last)
		tcp->tcp_flags &= (uint8_t) ~(TCP_FIN | TCP_PSH);
	if (t->nseg > 0)
		tcp->tcp_flags &= (uint8_t)~TCP_CWR;
	raw_csum_fill(f, t->hlen + n);
}

int
raw_tso_run(struct dpv_eqp *qp, struct raw_qp *q, uint32_t *frames, bool *paced)
{
	struct dpv_engine *e = qp->e;
	struct raw_tso *t = q->tso;

	*frames = 0;
	*paced = false;
	while (t->nseg == 0 || t->off < t->total) {
		uint32_t n = (uint32_t)RTE_MIN(t->total - t->off,
					       (uint64_t)t->w.tso_mss);
		bool last = t->off + n >= t->total;
		struct rte_mbuf *m;
		uint8_t *f;

		if (!dpv_engine_tx_room(e))
			return 0;
		if (!raw_pace_ok(q)) {
			*paced = true;
			return 0;
		}
		m = rte_pktmbuf_alloc(e->mp);
		if (m == NULL) {
			e->st.tx_drop_nombuf++;
			return 0; /* the rest goes when mbufs are back */
		}
		f = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(t->hlen + n));
		if (f == NULL) { /* checked at start: cannot happen */
			rte_pktmbuf_free(m);
			return 0;
		}
		tso_frame(t, f, n, last);
		raw_tag_set(m, q->c.domain, qp->qpn);
		raw_pace_take(q, t->hlen + n);
		e->tx[e->ntx++] = m;
		e->work++;
		(*frames)++;
		t->off += n;
		t->nseg++;
	}
	return 1;
}

const struct dpv_wr *
raw_tso_wr(const struct raw_qp *q)
{
	return &q->tso->w;
}

void
raw_tso_end(struct raw_qp *q)
{
	if (q->tso != NULL)
		q->tso->busy = false;
}

void
raw_tso_free(struct raw_qp *q)
{
	free(q->tso);
	q->tso = NULL;
}
