/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Raw-packet QPs: frames out as they are, frames in through flows, RSS
 * through Toeplitz (rte_softrss) and an indirection table.
 *
 * The raw state of an engine (e->raw, created at the first flow or RSS QP)
 * is read by the poll loop and changed by the control functions, both
 * under the engine lock.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_thash.h>

#include "engine_int.h"
#include "dpv_engine_raw.h"
#include "engine_raw_int.h"
#include "mlx5_ring.h"

#define RAW_SCRATCH	16384
#define ROCE_UDP_PORT	4791

struct raw_flow {
	uint64_t id;
	bool ud; /* of a source-QPN UD QP: steers RoCE frames to its number
		    (dpv_engine_srcqpn_steer), never raw frames */
	struct dpv_engine_flow f;
};

struct raw_rss {
	uint32_t qpn;
	uint64_t fields;
	uint8_t key[DPV_ENGINE_RSS_KEY_LEN];
	uint32_t size;
	struct dpv_engine_rss_wq *tbl;
};

struct raw_state {
	struct dpv_engine *e;
	struct raw_flow *flows;
	unsigned int nflows, cap;
	uint64_t next_id;
	struct raw_rss *rss;
	unsigned int nrss;
	struct raw_qp *qps; /* options and pacing of raw QPs */
	unsigned int nqps, qcap;
	uint8_t *scratch; /* RAW_SCRATCH bytes: a segmented frame's FCS */
	struct raw_state *all_next; /* raw_all */
	struct dpv_engine_raw_stats st;
};

/* raw_tag_init() once for all engines; raw_all: every engine's raw state
 * (the engine lives in DPDK memory, which leak checkers do not scan: the
 * process's own list keeps the state reachable until dpv_engine_destroy) */
static pthread_mutex_t raw_tag_lock = PTHREAD_MUTEX_INITIALIZER;
static struct raw_state *raw_all;

static inline struct raw_state *
raw_find(struct dpv_engine *e)
{
	return e->raw;
}

static struct raw_state *
raw_get(struct dpv_engine *e)
{
	struct raw_state *r;

	pthread_mutex_lock(&raw_tag_lock);
	if (raw_tag_init() != 0)
		ENGINE_LOG(WARNING, "no mbuf field for raw loopback tags: "
				    "raw QPs receive their own frames");
	pthread_mutex_unlock(&raw_tag_lock);
	if (e->raw != NULL)
		return e->raw;
	r = calloc(1, sizeof(*r));
	if (r != NULL)
		r->scratch = malloc(RAW_SCRATCH);
	if (r != NULL && r->scratch == NULL) {
		free(r);
		r = NULL;
	}
	if (r != NULL) {
		r->e = e;
		r->next_id = 1;
		e->raw = r;
		pthread_mutex_lock(&raw_tag_lock);
		r->all_next = raw_all;
		raw_all = r;
		pthread_mutex_unlock(&raw_tag_lock);
	}
	return r;
}

void
dpv_engine_raw_fini(struct dpv_engine *e)
{
	struct raw_state *r = e->raw;

	if (r == NULL)
		return;
	e->raw = NULL;
	pthread_mutex_lock(&raw_tag_lock);
	for (struct raw_state **pp = &raw_all; *pp != NULL;
	     pp = &(*pp)->all_next) {
		if (*pp == r) {
			*pp = r->all_next;
			break;
		}
	}
	pthread_mutex_unlock(&raw_tag_lock);
	for (unsigned int k = 0; k < r->nrss; k++)
		free(r->rss[k].tbl);
	free(r->rss);
	free(r->flows);
	for (unsigned int k = 0; k < r->nqps; k++)
		raw_tso_free(&r->qps[k]);
	free(r->qps);
	free(r->scratch);
	free(r);
}

int
dpv_engine_raw_stats_get(struct dpv_engine *e, struct dpv_engine_raw_stats *out)
{
	struct raw_state *r;

	if (e == NULL || out == NULL)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	dpv_engine_lock(e);
	r = raw_find(e);
	if (r != NULL)
		*out = r->st;
	rte_spinlock_unlock(&e->lock);
	return 0;
}

/* ---------------------------------------------------------- frame parse */

struct raw_pkt {
	const uint8_t *dmac, *smac;
	uint16_t ether_type; /* network order, after VLAN */
	uint16_t vlan;	     /* network order TCI */
	uint32_t has;	     /* DPV_FLOW_HAS_* */
	uint8_t sip[16], dip[16];
	uint16_t sport, dport; /* network order */
	uint8_t proto;
};

static void raw_parse_ip(const uint8_t *f, uint32_t len, uint32_t off,
			 struct raw_pkt *p);

static void
raw_parse(const uint8_t *f, uint32_t len, struct raw_pkt *p)
{
	uint32_t off = sizeof(struct rte_ether_hdr);

	memset(p, 0, sizeof(*p));
	if (len < off)
		return;
	p->dmac = f;
	p->smac = f + 6;
	memcpy(&p->ether_type, f + 12, 2);
	if (p->ether_type == rte_cpu_to_be_16(RTE_ETHER_TYPE_VLAN) &&
	    len >= off + 4) {
		memcpy(&p->vlan, f + 14, 2);
		memcpy(&p->ether_type, f + 16, 2);
		p->has |= DPV_FLOW_HAS_VLAN;
		off += 4;
	}
	raw_parse_ip(f, len, off, p);
}

/* The IP datagram of ether type p->ether_type at offset off of f. */
static void
raw_parse_ip(const uint8_t *f, uint32_t len, uint32_t off, struct raw_pkt *p)
{
	uint8_t proto = 0;

	if (p->ether_type == rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) &&
	    len >= off + sizeof(struct rte_ipv4_hdr)) {
		const struct rte_ipv4_hdr *ip = (const void *)(f + off);
		uint32_t hl = (ip->version_ihl & 0xf) * 4u;

		p->has |= DPV_FLOW_HAS_IPV4;
		memcpy(p->sip, &ip->src_addr, 4);
		memcpy(p->dip, &ip->dst_addr, 4);
		proto = ip->next_proto_id;
		p->proto = proto;
		if (hl < 20 || (rte_be_to_cpu_16(ip->fragment_offset) &
				RTE_IPV4_HDR_OFFSET_MASK))
			return; /* no L4 in non-first fragments */
		off += hl;
	} else if (p->ether_type == rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6) &&
		   len >= off + sizeof(struct rte_ipv6_hdr)) {
		const struct rte_ipv6_hdr *ip = (const void *)(f + off);

		p->has |= DPV_FLOW_HAS_IPV6;
		memcpy(p->sip, ip->src_addr, 16);
		memcpy(p->dip, ip->dst_addr, 16);
		proto = ip->proto;
		off += sizeof(*ip);
	} else {
		return;
	}
	p->proto = proto;
	if ((proto == IPPROTO_TCP || proto == IPPROTO_UDP) && len >= off + 4) {
		memcpy(&p->sport, f + off, 2);
		memcpy(&p->dport, f + off + 2, 2);
		p->has |= proto == IPPROTO_TCP ? DPV_FLOW_HAS_TCP
					       : DPV_FLOW_HAS_UDP;
	}
}

static bool
masked_eq(const uint8_t *a, const uint8_t *v, const uint8_t *m, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((a[i] & m[i]) != (v[i] & m[i]))
			return false;
	return true;
}

static bool
flow_match(const struct dpv_engine_flow_match *m, const struct raw_pkt *p)
{
	uint32_t l3 = DPV_FLOW_HAS_IPV4 | DPV_FLOW_HAS_IPV6;

	if ((m->has & p->has) != m->has)
		return false;
	if (!masked_eq(p->dmac, m->dmac, m->dmac_m, 6) ||
	    !masked_eq(p->smac, m->smac, m->smac_m, 6))
		return false;
	if ((p->ether_type & m->ether_type_m) !=
		    (m->ether_type & m->ether_type_m) ||
	    (p->vlan & m->vlan_m) != (m->vlan & m->vlan_m))
		return false;
	if (m->has & l3) {
		size_t n = (m->has & DPV_FLOW_HAS_IPV4) ? 4 : 16;

		if (!masked_eq(p->sip, m->sip, m->sip_m, n) ||
		    !masked_eq(p->dip, m->dip, m->dip_m, n))
			return false;
	}
	if ((p->proto & m->proto_m) != (m->proto & m->proto_m) ||
	    (p->sport & m->sport_m) != (m->sport & m->sport_m) ||
	    (p->dport & m->dport_m) != (m->dport & m->dport_m))
		return false;
	return true;
}

/* ------------------------------------------------------------------ RSS */

#define RSS_IPV4 (IBV_RX_HASH_SRC_IPV4 | IBV_RX_HASH_DST_IPV4)
#define RSS_IPV6 (IBV_RX_HASH_SRC_IPV6 | IBV_RX_HASH_DST_IPV6)
#define RSS_TCP	 (IBV_RX_HASH_SRC_PORT_TCP | IBV_RX_HASH_DST_PORT_TCP)
#define RSS_UDP	 (IBV_RX_HASH_SRC_PORT_UDP | IBV_RX_HASH_DST_PORT_UDP)

/*
 * The Toeplitz input: the selected fields present in the frame, in the
 * order source address, destination address, source port, destination
 * port, as bytes in network order (trailing zero padding to whole words
 * does not change a Toeplitz hash).
 */
static uint32_t
rss_hash_pkt(const struct raw_pkt *p, uint64_t fields, const uint8_t *key)
{
	uint8_t in[40] = {0};
	uint32_t words[10], n = 0;

	if (p->has & DPV_FLOW_HAS_IPV4) {
		if (fields & IBV_RX_HASH_SRC_IPV4) {
			memcpy(in + n, p->sip, 4);
			n += 4;
		}
		if (fields & IBV_RX_HASH_DST_IPV4) {
			memcpy(in + n, p->dip, 4);
			n += 4;
		}
	} else if (p->has & DPV_FLOW_HAS_IPV6) {
		if (fields & IBV_RX_HASH_SRC_IPV6) {
			memcpy(in + n, p->sip, 16);
			n += 16;
		}
		if (fields & IBV_RX_HASH_DST_IPV6) {
			memcpy(in + n, p->dip, 16);
			n += 16;
		}
	}
	if (((p->has & DPV_FLOW_HAS_TCP) &&
	     (fields & IBV_RX_HASH_SRC_PORT_TCP)) ||
	    ((p->has & DPV_FLOW_HAS_UDP) &&
	     (fields & IBV_RX_HASH_SRC_PORT_UDP))) {
		memcpy(in + n, &p->sport, 2);
		n += 2;
	}
	if (((p->has & DPV_FLOW_HAS_TCP) &&
	     (fields & IBV_RX_HASH_DST_PORT_TCP)) ||
	    ((p->has & DPV_FLOW_HAS_UDP) &&
	     (fields & IBV_RX_HASH_DST_PORT_UDP))) {
		memcpy(in + n, &p->dport, 2);
		n += 2;
	}
	if (n == 0)
		return 0;
	n = (n + 3) / 4;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t w;

		memcpy(&w, in + 4 * i, 4);
		words[i] = rte_be_to_cpu_32(w);
	}
	return rte_softrss(words, n, key);
}

/*
 * IBV_RX_HASH_INNER: the fields of the inner headers of a VXLAN, GENEVE or
 * GRE packet (raw_tunnel_inner()); another frame is hashed on its own
 * headers (as ConnectX-3 Pro: "inner headers if they exist, otherwise the
 * outer ones"). p is the frame's parse, f its first len bytes.
 */
static uint32_t
rss_hash_inner(const uint8_t *f, uint32_t len, const struct raw_pkt *p,
	       uint64_t fields, const uint8_t *key)
{
	struct raw_pkt in;
	uint32_t off;
	uint16_t et;

	if (!raw_tunnel_inner(f, len, &off, &et))
		return rss_hash_pkt(p, fields, key);
	if (et == 0) {
		raw_parse(f + off, len - off, &in);
	} else {
		memset(&in, 0, sizeof(in));
		in.ether_type = et;
		raw_parse_ip(f + off, len - off, 0, &in);
	}
	return rss_hash_pkt(&in, fields, key);
}

/* The hash of a received frame f (its first len contiguous bytes). */
static inline uint32_t
rss_hash_frame(const uint8_t *f, uint32_t len, const struct raw_pkt *p,
	       uint64_t fields, const uint8_t *key)
{
	if (likely(!(fields & IBV_RX_HASH_INNER)))
		return rss_hash_pkt(p, fields, key);
	return rss_hash_inner(f, len, p, fields, key);
}

uint32_t
dpv_engine_rss_hash(const void *frame, uint32_t len, uint64_t fields,
		    const uint8_t *key)
{
	struct raw_pkt p;

	raw_parse(frame, len, &p);
	return rss_hash_frame(frame, len, &p, fields, key);
}

static struct raw_rss *
rss_find(struct raw_state *r, uint32_t qpn)
{
	for (unsigned int i = 0; i < r->nrss; i++)
		if (r->rss[i].qpn == qpn)
			return &r->rss[i];
	return NULL;
}

int
dpv_engine_rss_set(struct dpv_engine *e, uint32_t qpn, uint64_t fields,
		   const uint8_t *key, uint32_t log_size,
		   const struct dpv_engine_rss_wq *tbl)
{
	struct dpv_engine_rss_wq *copy;
	struct raw_state *r;
	struct raw_rss *rs;
	uint32_t size;
	int ret = 0;

	if (e == NULL || key == NULL || tbl == NULL || log_size > 16)
		return -EINVAL;
	size = 1u << log_size;
	r = raw_get(e);
	copy = malloc(sizeof(*copy) * size);
	if (r == NULL || copy == NULL) {
		free(copy);
		return -ENOMEM;
	}
	memcpy(copy, tbl, sizeof(*copy) * size);
	dpv_engine_lock(e);
	if (dpv_engine_qp_lookup(e, qpn) == NULL) {
		ret = -ENOENT;
		goto out;
	}
	rs = rss_find(r, qpn);
	if (rs == NULL) {
		rs = realloc(r->rss, sizeof(*rs) * (r->nrss + 1));
		if (rs == NULL) {
			ret = -ENOMEM;
			goto out;
		}
		r->rss = rs;
		rs = &r->rss[r->nrss++];
	} else {
		free(rs->tbl);
	}
	rs->qpn = qpn;
	rs->fields = fields;
	memcpy(rs->key, key, DPV_ENGINE_RSS_KEY_LEN);
	rs->size = size;
	rs->tbl = copy;
	copy = NULL;
out:
	rte_spinlock_unlock(&e->lock);
	free(copy);
	return ret;
}

/* ------------------------------------------------------- QP options */

static struct raw_qp *
raw_qp_find(struct raw_state *r, uint32_t qpn)
{
	for (unsigned int i = 0; r != NULL && i < r->nqps; i++)
		if (r->qps[i].qpn == qpn)
			return &r->qps[i];
	return NULL;
}

int
dpv_engine_raw_qp_set(struct dpv_engine *e, uint32_t qpn,
		      const struct dpv_engine_raw_qp *c)
{
	struct raw_state *r;
	struct raw_qp *q;
	int ret = 0;

	if (e == NULL || c == NULL || c->domain == 0)
		return -EINVAL;
	r = raw_get(e);
	if (r == NULL)
		return -ENOMEM;
	dpv_engine_lock(e);
	if (dpv_engine_qp_lookup(e, qpn) == NULL) {
		ret = -ENOENT;
		goto out;
	}
	q = raw_qp_find(r, qpn);
	if (q == NULL) {
		if (r->nqps == r->qcap) {
			unsigned int n = r->qcap ? r->qcap * 2 : 8;

			q = realloc(r->qps, sizeof(*q) * n);
			if (q == NULL) {
				ret = -ENOMEM;
				goto out;
			}
			r->qps = q;
			r->qcap = n;
		}
		q = &r->qps[r->nqps++];
		memset(q, 0, sizeof(*q));
		q->qpn = qpn;
	}
	q->c = *c;
out:
	rte_spinlock_unlock(&e->lock);
	return ret;
}

int
dpv_engine_raw_rate_set(struct dpv_engine *e, uint32_t qpn, uint32_t kbps,
			uint32_t max_burst)
{
	struct raw_qp *q;
	int ret = 0;

	if (e == NULL)
		return -EINVAL;
	dpv_engine_lock(e);
	q = raw_qp_find(raw_find(e), qpn);
	if (q == NULL)
		ret = -ENOENT;
	else
		raw_pace_set(q, kbps, max_burst);
	rte_spinlock_unlock(&e->lock);
	return ret;
}

/* -------------------------------------------------------------- flows */

int
dpv_engine_flow_add(struct dpv_engine *e, const struct dpv_engine_flow *f,
		    uint64_t *id)
{
	struct raw_state *r;
	struct dpv_eqp *qp;
	int ret = 0;

	if (e == NULL || f == NULL || id == NULL || f->type > DPV_FLOW_SNIFFER)
		return -EINVAL;
	r = raw_get(e);
	if (r == NULL)
		return -ENOMEM;
	dpv_engine_lock(e);
	qp = dpv_engine_qp_lookup(e, f->qpn);
	if (qp == NULL) {
		ret = -ENOENT;
	} else if (qp->type == IBV_QPT_UD &&
		   (!qp->srcqpn || f->type != DPV_FLOW_NORMAL)) {
		ret = -EINVAL;
	} else {
		if (r->nflows == r->cap) {
			unsigned int c = r->cap ? r->cap * 2 : 8;
			struct raw_flow *n = realloc(r->flows, sizeof(*n) * c);

			if (n == NULL) {
				ret = -ENOMEM;
				goto out;
			}
			r->flows = n;
			r->cap = c;
		}
		r->flows[r->nflows].id = r->next_id++;
		r->flows[r->nflows].ud = qp->type == IBV_QPT_UD;
		r->flows[r->nflows].f = *f;
		*id = r->flows[r->nflows].id;
		r->nflows++;
		__atomic_store_n(&e->raw_flows, r->nflows, __ATOMIC_RELAXED);
	}
out:
	rte_spinlock_unlock(&e->lock);
	return ret;
}

int
dpv_engine_flow_del(struct dpv_engine *e, uint64_t id)
{
	struct raw_state *r;
	int ret = -ENOENT;

	if (e == NULL)
		return -EINVAL;
	dpv_engine_lock(e);
	r = raw_find(e);
	for (unsigned int i = 0; r != NULL && i < r->nflows; i++) {
		if (r->flows[i].id != id)
			continue;
		/* keep creation order: it breaks priority ties */
		memmove(&r->flows[i], &r->flows[i + 1],
			sizeof(r->flows[0]) * (r->nflows - i - 1));
		r->nflows--;
		__atomic_store_n(&e->raw_flows, r->nflows, __ATOMIC_RELAXED);
		ret = 0;
		break;
	}
	rte_spinlock_unlock(&e->lock);
	return ret;
}

void
dpv_engine_raw_qp_gone(struct dpv_engine *e, uint32_t qpn)
{
	struct raw_state *r = raw_find(e);
	unsigned int j = 0;

	if (r == NULL)
		return;
	for (unsigned int i = 0; i < r->nflows; i++)
		if (r->flows[i].f.qpn != qpn)
			r->flows[j++] = r->flows[i];
	r->nflows = j;
	__atomic_store_n(&e->raw_flows, j, __ATOMIC_RELAXED);
	for (unsigned int i = 0; i < r->nrss; i++) {
		if (r->rss[i].qpn != qpn)
			continue;
		free(r->rss[i].tbl);
		r->rss[i] = r->rss[--r->nrss];
		break;
	}
	for (unsigned int i = 0; i < r->nqps; i++) {
		if (r->qps[i].qpn == qpn) {
			raw_tso_free(&r->qps[i]);
			r->qps[i] = r->qps[--r->nqps];
			break;
		}
	}
}

/* -------------------------------------------------------------- receive */

/*
 * A received frame as one QP gets it: the 802.1Q tag possibly cut out
 * (bytes 12..15 of the frame), the FCS possibly appended.
 */
struct raw_view {
	const struct rte_mbuf *m;
	uint32_t cut;  /* 4: the VLAN tag is left out */
	uint32_t body; /* frame bytes delivered */
	uint32_t len;  /* body, plus 4 with the FCS */
	uint8_t fcs[4];
};

/* A received frame and what is known about it. */
struct raw_rx {
	const struct rte_mbuf *m;
	const struct raw_pkt *p;
	struct raw_tag tag;
	bool tagged; /* sent by a raw QP of this process */
	bool mc;     /* multicast or broadcast destination */
	int8_t csum;  /* raw_csum_eval() without tunnels, -1 not yet */
	int8_t tcsum; /* and with them */
};

static void
view_copy(const struct raw_view *v, uint32_t off, uint8_t *dst, uint32_t n)
{
	while (n > 0) {
		const void *s;
		uint32_t k, src;

		if (off >= v->body) {
			memcpy(dst, v->fcs + (off - v->body), n);
			return;
		}
		if (v->cut != 0 && off < 12) {
			k = RTE_MIN(n, 12 - off);
			src = off;
		} else {
			k = RTE_MIN(n, v->body - off);
			src = off + (off >= 12 ? v->cut : 0);
		}
		s = rte_pktmbuf_read(v->m, src, k, dst);
		if (s != NULL && s != dst)
			rte_memcpy(dst, s, k);
		dst += k;
		off += k;
		n -= k;
	}
}

/* Scatter a frame into the next receive WQE of rq; 0 or -1 (dropped). */
static int
deliver_rq(struct raw_state *r, struct dpv_eqp *kq, struct dpv_mlx5_rq *rq,
	   bool srq, const struct raw_view *v, uint16_t *wqe_index,
	   enum ibv_wc_status *st)
{
	struct dpv_recv_wr rw;
	void *host[DPV_WR_MAX_SGE];
	uint32_t len = v->len, off = 0;

	if (!dpv_mlx5_rq_fetch_eng(rq, &rw)) {
		r->st.rx_no_wqe++;
		return -1;
	}
	*wqe_index = rw.wqe_index;
	*st = IBV_WC_SUCCESS;
	for (uint32_t i = 0; i < rw.num_sge; i++) {
		if (dpv_engine_key_access(
			    kq->e, kq, rw.sg_list[i].lkey, rw.sg_list[i].addr,
			    rw.sg_list[i].length, IBV_ACCESS_LOCAL_WRITE,
			    &host[i]) != DPV_KEY_OK) {
			*st = IBV_WC_LOC_PROT_ERR;
			goto done;
		}
	}
	if (len > rw.total_len) {
		r->st.rx_too_long++;
		*st = IBV_WC_LOC_LEN_ERR;
		goto done;
	}
	for (uint32_t i = 0; i < rw.num_sge && off < len; i++) {
		uint32_t n = RTE_MIN(rw.sg_list[i].length, len - off);

		view_copy(v, off, host[i], n);
		off += n;
	}
	r->st.rx_delivered++;
done:
	if (!srq)
		dpv_mlx5_rq_retire(rq, &rw);
	return 0;
}

/* Write a receive CQE and raise the CQ's event if it is armed. */
static void
raw_cqe(struct dpv_engine *e, struct dpv_mlx5_cq *cq,
	const struct dpv_cqe_info *ci)
{
	dpv_engine_cq_write(e, cq, ci);
}

/* The frame as QP q (options flags) gets it, and its CQE fields. */
static void
view_make(struct raw_state *r, struct raw_rx *rx, uint32_t flags,
	  struct raw_view *v, struct dpv_cqe_info *ci)
{
	memset(v, 0, sizeof(*v));
	memset(ci, 0, sizeof(*ci));
	v->m = rx->m;
	if ((flags & DPV_RAW_QP_CVLAN_STRIP) &&
	    (rx->p->has & DPV_FLOW_HAS_VLAN)) {
		v->cut = 4;
		ci->vlan_stripped = true;
		ci->vlan_tci = rte_be_to_cpu_16(rx->p->vlan);
	}
	v->body = rx->m->pkt_len - v->cut;
	v->len = v->body;
	if ((flags & DPV_RAW_QP_SCATTER_FCS) &&
	    raw_fcs(rx->m, rx->m->pkt_len, r->scratch, RAW_SCRATCH, v->fcs) ==
		    0)
		v->len += 4;
	else if (flags & DPV_RAW_QP_SCATTER_FCS)
		r->st.rx_too_long++; /* no room to compute it: none added */
	if (flags & DPV_RAW_QP_RX_CSUM) {
		bool tun = flags & DPV_RAW_QP_TUNNEL_CSUM;
		int8_t *c = tun ? &rx->tcsum : &rx->csum;

		if (*c < 0)
			*c = (int8_t)raw_csum_eval(rx->m, tun);
		if (*c & RAW_CSUM_OK)
			ci->wc_flags |= IBV_WC_IP_CSUM_OK;
		ci->tunneled = (*c & RAW_CSUM_TUNNEL) != 0;
	}
	ci->opcode = IBV_WC_RECV;
	ci->is_recv = true;
}

static void
deliver_rss(struct raw_state *r, struct raw_rss *rs, struct raw_rx *rx,
	    uint32_t flags)
{
	uint32_t h = rss_hash_frame(rte_pktmbuf_mtod(rx->m, const uint8_t *),
				    rx->m->data_len, rx->p, rs->fields,
				    rs->key);
	struct dpv_engine_rss_wq *w = &rs->tbl[h & (rs->size - 1)];
	struct dpv_eqp kq;
	struct dpv_cqe_info ci;
	struct raw_view v;
	enum ibv_wc_status st;
	uint16_t idx;

	if (*w->state != IBV_WQS_RDY) {
		r->st.rx_no_wqe++;
		return;
	}
	memset(&kq, 0, sizeof(kq));
	kq.e = r->e;
	kq.qpn = w->wqn;
	kq.pdn = w->pdn;
	view_make(r, rx, flags, &v, &ci);
	if (deliver_rq(r, &kq, w->rq, false, &v, &idx, &st) != 0)
		return;
	ci.status = st;
	ci.qpn = w->wqn;
	ci.wqe_counter = idx;
	ci.byte_len = st == IBV_WC_SUCCESS ? v.len : 0;
	if (st != IBV_WC_SUCCESS)
		ci.wc_flags = 0;
	raw_cqe(r->e, w->cq, &ci);
}

/* Whether QP qpn (options q, may be NULL) takes a frame of its domain. */
static bool
self_ok(const struct raw_qp *q, uint32_t qpn, const struct raw_rx *rx)
{
	if (!rx->tagged || q == NULL || rx->tag.domain != q->c.domain)
		return true;
	if (!rx->mc)
		return (q->c.flags & DPV_RAW_QP_SELF_UC) != 0;
	if ((q->c.flags & DPV_RAW_QP_BLOCK_SELF_MC) && rx->tag.qpn == qpn)
		return false;
	return (q->c.flags & DPV_RAW_QP_SELF_MC) != 0;
}

static void
deliver(struct raw_state *r, uint32_t qpn, struct raw_rx *rx, bool sniffer)
{
	struct dpv_eqp *qp = dpv_engine_qp_lookup(r->e, qpn);
	struct raw_qp *q = raw_qp_find(r, qpn);
	uint32_t flags = q != NULL ? q->c.flags : 0;
	struct dpv_cqe_info ci;
	struct raw_view v;
	struct raw_rss *rs;
	enum ibv_wc_status st;
	uint16_t idx;

	if (qp == NULL)
		return;
	if (!sniffer && !self_ok(q, qpn, rx)) {
		r->st.rx_self_drop++;
		return;
	}
	/* an RSS QP has no state machine of its own (as an mlx5 TIR): its
	 * WQs' states decide */
	rs = rss_find(r, qpn);
	if (rs != NULL) {
		deliver_rss(r, rs, rx, flags);
		return;
	}
	if (qp->state != IBV_QPS_RTR && qp->state != IBV_QPS_RTS &&
	    qp->state != IBV_QPS_SQD)
		return;
	view_make(r, rx, flags, &v, &ci);
	if (qp->rq == NULL ||
	    deliver_rq(r, qp, qp->rq, qp->has_srq, &v, &idx, &st) != 0)
		return;
	ci.status = st;
	ci.qpn = qp->qpn;
	ci.wqe_counter = idx;
	ci.srqn = qp->has_srq ? qp->srqn : 0;
	ci.byte_len = st == IBV_WC_SUCCESS ? v.len : 0;
	if (st != IBV_WC_SUCCESS)
		ci.wc_flags = 0;
	raw_cqe(r->e, qp->rcq, &ci);
}

/* Deliver to every flow of type t that matches (NORMAL: best priority). */
static bool
deliver_type(struct raw_state *r, uint8_t t, struct raw_rx *rx)
{
	uint32_t done[16];
	unsigned int nd = 0;
	int best = -1;

	for (unsigned int i = 0; i < r->nflows; i++) {
		const struct dpv_engine_flow *f = &r->flows[i].f;

		if (f->type != t || r->flows[i].ud || !flow_match(&f->m, rx->p))
			continue;
		if (t == DPV_FLOW_NORMAL && best >= 0 && f->priority > best)
			continue;
		if (t == DPV_FLOW_NORMAL && (best < 0 || f->priority < best)) {
			best = f->priority;
			nd = 0;
		}
		bool dup = false;

		for (unsigned int k = 0; k < nd; k++)
			dup |= done[k] == f->qpn;
		if (!dup && nd < RTE_DIM(done))
			done[nd++] = f->qpn;
	}
	for (unsigned int k = 0; k < nd; k++)
		deliver(r, done[k], rx, t == DPV_FLOW_SNIFFER);
	return nd > 0;
}

bool
dpv_engine_raw_rx(struct dpv_engine *e, struct rte_mbuf *m)
{
	struct raw_state *r = raw_find(e);
	uint8_t buf[128];
	const uint8_t *f;
	struct raw_pkt p;
	struct raw_rx rx;
	bool roce, neigh, taken;

	if (r == NULL || r->nflows == 0)
		return false;
	f = rte_pktmbuf_read(m, 0, RTE_MIN(m->pkt_len, (uint32_t)sizeof(buf)),
			     buf);
	if (f == NULL)
		return false;
	raw_parse(f, RTE_MIN(m->pkt_len, (uint32_t)sizeof(buf)), &p);
	if (p.dmac == NULL)
		return false; /* shorter than an Ethernet header */
	memset(&rx, 0, sizeof(rx));
	rx.m = m;
	rx.p = &p;
	rx.csum = -1;
	rx.tcsum = -1;
	rx.tagged = raw_tag_get(m, &rx.tag);
	rx.mc = rte_is_multicast_ether_addr((const void *)p.dmac);
	deliver_type(r, DPV_FLOW_SNIFFER, &rx);
	roce = (p.has & DPV_FLOW_HAS_UDP) &&
	       p.dport == rte_cpu_to_be_16(ROCE_UDP_PORT);
	if (roce)
		return false;
	neigh = p.ether_type == rte_cpu_to_be_16(RTE_ETHER_TYPE_ARP) ||
		((p.has & DPV_FLOW_HAS_IPV6) &&
		 f[20 + (p.has & DPV_FLOW_HAS_VLAN ? 4 : 0)] == 58);
	taken = deliver_type(r, DPV_FLOW_NORMAL, &rx);
	if (!taken && !neigh && rx.mc)
		taken = deliver_type(r, DPV_FLOW_MC_DEFAULT, &rx);
	if (!taken && !neigh)
		taken = deliver_type(r, DPV_FLOW_ALL_DEFAULT, &rx);
	/* ARP / ICMPv6 still reach the engine's neighbour code */
	return taken && !neigh;
}

struct dpv_eqp *
dpv_engine_srcqpn_steer(struct dpv_engine *e, const struct rte_mbuf *m,
			uint32_t dqpn)
{
	struct raw_state *r = raw_find(e);
	struct dpv_eqp *best = NULL;
	uint16_t prio = 0;
	uint8_t buf[128];
	const uint8_t *f;
	struct raw_pkt p;
	uint32_t len;

	if (r == NULL || r->nflows == 0)
		return NULL;
	len = RTE_MIN(m->pkt_len, (uint32_t)sizeof(buf));
	f = rte_pktmbuf_read(m, 0, len, buf);
	if (f == NULL)
		return NULL;
	raw_parse(f, len, &p);
	if (p.dmac == NULL)
		return NULL;
	/* the best (lowest) priority wins; among equals, the oldest flow */
	for (unsigned int i = 0; i < r->nflows; i++) {
		const struct dpv_engine_flow *fl = &r->flows[i].f;
		struct dpv_eqp *qp;

		if (!r->flows[i].ud || (best != NULL && fl->priority >= prio))
			continue;
		qp = dpv_engine_qp_lookup(e, fl->qpn);
		if (qp == NULL || qp->wire_qpn != dqpn ||
		    !flow_match(&fl->m, &p))
			continue;
		best = qp;
		prio = fl->priority;
	}
	return best;
}

/* ----------------------------------------------------------------- send */

/* Complete and retire a send WQE; false if the QP went to ERR. */
static bool
raw_send_done(struct raw_state *r, struct dpv_eqp *qp, const struct dpv_wr *w,
	      enum ibv_wc_status st, enum ibv_wc_opcode op, uint32_t len)
{
	if (st != IBV_WC_SUCCESS && r != NULL)
		r->st.tx_errors++;
	if (st != IBV_WC_SUCCESS || qp->sq_sig_all ||
	    (w->flags & DPV_WR_F_SIGNALED))
		dpv_engine_cqe(qp, false, w->wqe_index, st, op,
			       st == IBV_WC_SUCCESS ? len : 0, 0, 0, 0);
	dpv_mlx5_sq_retire(qp->sq, w);
	if (st != IBV_WC_SUCCESS) {
		dpv_engine_qp_to_err(qp);
		return false;
	}
	return true;
}

/* Go on with the TSO WQE q keeps; true when it is done. */
static bool
raw_tso_step(struct raw_state *r, struct dpv_eqp *qp, struct raw_qp *q)
{
	const struct dpv_wr *w;
	uint32_t n;
	bool paced, done;

	done = raw_tso_run(qp, q, &n, &paced) != 0;
	r->st.tx_frames += n;
	if (paced)
		r->st.tx_paced++;
	if (!done)
		return false;
	w = raw_tso_wr(q);
	raw_tso_end(q);
	return raw_send_done(r, qp, w, IBV_WC_SUCCESS, IBV_WC_TSO,
			     w->raw_hdr_len + (uint32_t)w->total_len);
}

void
dpv_engine_raw_send(struct dpv_eqp *qp, unsigned *budget)
{
	struct dpv_engine *e = qp->e;
	struct raw_state *r = raw_find(e);
	struct raw_qp *q = raw_qp_find(r, qp->qpn);
	struct dpv_wr w;

	if (qp->sq == NULL)
		return;
	while (*budget > 0 && dpv_engine_tx_room(e)) {
		if (q != NULL && raw_tso_busy(q, qp)) {
			if (!raw_tso_step(r, qp, q))
				break;
			continue;
		}
		if (q != NULL && !raw_pace_ok(q)) {
			r->st.tx_paced++; /* the WQE waits in the ring */
			break;
		}
		if (!dpv_ring_sq_fetch(qp->sq, &w))
			break;
		enum ibv_wc_status st = IBV_WC_SUCCESS;
		uint32_t len = w.raw_hdr_len + (uint32_t)w.total_len;
		struct rte_mbuf *m = NULL;
		uint8_t *d;

		(*budget)--;
		if (w.opcode == IBV_WR_TSO && !(w.flags & DPV_WR_F_MALFORMED)) {
			st = q != NULL ? raw_tso_start(qp, q, &w)
				       : IBV_WC_LOC_QP_OP_ERR;
			if (st == IBV_WC_SUCCESS)
				continue; /* its frames go from the top */
			if (!raw_send_done(r, qp, &w, st, IBV_WC_TSO, 0))
				return;
			continue;
		}
		if (w.opcode != IBV_WR_SEND || (w.flags & DPV_WR_F_MALFORMED)) {
			st = IBV_WC_LOC_QP_OP_ERR;
			goto complete;
		}
		if (len > e->mbuf_room || len < RTE_ETHER_HDR_LEN) {
			st = IBV_WC_LOC_LEN_ERR;
			goto complete;
		}
		m = rte_pktmbuf_alloc(e->mp);
		if (m == NULL || (d = (uint8_t *)rte_pktmbuf_append(
					  m, (uint16_t)len)) == NULL) {
			e->st.tx_drop_nombuf++;
			st = IBV_WC_GENERAL_ERR;
			goto complete;
		}
		memcpy(d, w.raw_hdr, w.raw_hdr_len);
		d += w.raw_hdr_len;
		if (w.flags & DPV_WR_F_INLINE) {
			for (int k = 0; k < 2 && w.inl[k].len; k++) {
				memcpy(d, w.inl[k].addr, w.inl[k].len);
				d += w.inl[k].len;
			}
		} else {
			for (uint32_t k = 0; k < w.num_sge; k++) {
				void *src;

				if (dpv_engine_key_access(
					    e, qp, w.sg_list[k].lkey,
					    w.sg_list[k].addr,
					    w.sg_list[k].length, 0,
					    &src) != DPV_KEY_OK) {
					st = IBV_WC_LOC_PROT_ERR;
					goto complete;
				}
				memcpy(d, src, w.sg_list[k].length);
				d += w.sg_list[k].length;
			}
		}
		if (w.flags & DPV_WR_F_IP_CSUM)
			raw_csum_fill(rte_pktmbuf_mtod(m, uint8_t *), len);
		if (q != NULL) {
			raw_tag_set(m, q->c.domain, qp->qpn);
			raw_pace_take(q, len);
		}
		e->tx[e->ntx++] = m;
		m = NULL;
		e->work++;
		if (r != NULL)
			r->st.tx_frames++;
	complete:
		rte_pktmbuf_free(m);
		if (!raw_send_done(r, qp, &w, st, IBV_WC_SEND, len))
			return;
	}
}
