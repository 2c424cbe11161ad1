/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Requester: send WQEs -> request packets. Segmentation to the path MTU,
 * PSN assignment, AckReq on the last packet of RC requests, the READ /
 * atomic outstanding limit and fences. It talks to the completer only
 * through the WQE state (PENDING -> SENT -> DONE / ERROR) and s_cur.
 */
#include <string.h>

#include <rte_cycles.h>
#include <rte_ether.h>

#include "engine_int.h"
#include "dpv_engine_opts.h"
#include "dpv_port.h"
#include "dpv_roce_gid.h"
#include "dpv_roce_icrc.h"
#include "mlx5_ring.h"

#define REQ_STATES(X)                                                          \
	X(REQ_NEXT_WQE)                                                        \
	X(REQ_CHECK_WQE)                                                       \
	X(REQ_LOCAL_OP)                                                        \
	X(REQ_SEND_PKT)                                                        \
	X(REQ_WQE_SENT)                                                        \
	X(REQ_WAIT)                                                            \
	X(REQ_ERROR)

enum req_state {
#define X(s) s,
	REQ_STATES(X)
#undef X
};

static const char *const req_state_name[] = {
#define X(s) #s,
	REQ_STATES(X)
#undef X
};

/* Pull newly posted WQEs from the ring while there is room. */
void
dpv_engine_sq_fetch(struct dpv_eqp *qp)
{
	while (qp->sq && qp->s_head - qp->s_tail < qp->nswqe) {
		struct dpv_eswqe *w = swqe_at(qp, qp->s_head);

		/* the ring clears what it decodes; the rest is set here */
		if (!dpv_ring_sq_fetch(qp->sq, &w->wr))
			break;
		dpv_eswqe_start(w);
		qp->s_head++;
	}
}

/*
 * End-to-end credits of a message when its PSNs are assigned
 * (engine_credit.c): its number, and a message that takes no receive WQE
 * moves the limit past itself.
 */
static inline void
credit_assign(struct dpv_eqp *qp, struct dpv_eswqe *w)
{
	bool pkt = eqp_credit_pkt(qp);

	w->cseq = pkt ? w->last_psn : qp->req.ssn;
	qp->req.ssn = dpv_psn_add(qp->req.ssn, 1);
	if (!wr_takes_rwqe(w->wr.opcode))
		qp->req.climit =
			dpv_psn_add(qp->req.climit, pkt ? w->npkts : 1);
}

/* Check the local SGEs of a WQE once; fill its host addresses. */
static enum ibv_wc_status
check_local(struct dpv_eqp *qp, struct dpv_eswqe *w)
{
	uint32_t need = 0;

	/* (an ATOMIC WRITE's 8 bytes are inline: the ring decodes exactly
	 * 8) */
	if (w->wr.flags & DPV_WR_F_INLINE)
		return IBV_WC_SUCCESS;
	if (wr_rd_atomic(w->wr.opcode))
		need = IBV_ACCESS_LOCAL_WRITE;
	for (uint32_t i = 0; i < w->wr.num_sge; i++) {
		struct dpv_sge *s = &w->wr.sg_list[i];
		void *host = NULL;

		if (dpv_engine_key_access_ind(qp->e, qp, s->lkey, s->addr,
					      s->length, need,
					      &host) != DPV_KEY_OK)
			return IBV_WC_LOC_PROT_ERR;
		if (unlikely(host == DPV_KEY_HOST_INDIRECT) &&
		    dpv_engine_key_sig_take(qp, s, &w->wr.total_len) !=
			    DPV_KEY_OK)
			return IBV_WC_LOC_PROT_ERR;
		swqe_host(qp, w)[i] = host;
	}
	if ((w->wr.opcode == IBV_WR_ATOMIC_CMP_AND_SWP ||
	     w->wr.opcode == IBV_WR_ATOMIC_FETCH_AND_ADD) &&
	    (w->wr.num_sge != 1 || w->wr.sg_list[0].length < 8))
		return IBV_WC_LOC_LEN_ERR;
	return IBV_WC_SUCCESS;
}

/* Copy len bytes at offset off of the WQE's data (inline or SGEs). */
static void
gather(struct dpv_eqp *qp, const struct dpv_eswqe *w, uint64_t off,
       uint8_t *dst, uint32_t len)
{
	if (w->wr.flags & DPV_WR_F_INLINE) {
		for (int i = 0; i < 2 && len; i++) {
			uint32_t l = w->wr.inl[i].len;

			if (off >= l) {
				off -= l;
				continue;
			}
			uint32_t n = RTE_MIN(len, (uint32_t)(l - off));

			memcpy(dst, (const uint8_t *)w->wr.inl[i].addr + off,
			       n);
			dst += n;
			len -= n;
			off = 0;
		}
		return;
	}
	dpv_esge_copy(qp, w->wr.sg_list, swqe_host(qp, w), w->wr.num_sge, off,
		      dst, len, false);
}

/*
 * gather() into the frame m's payload at payload and queue m: a long
 * payload that lies in one SGE of a directly mapped region is copied in
 * the ICRC's pass.
 */
static void
gather_tx(struct dpv_eqp *qp, const struct dpv_eswqe *w, uint64_t off,
	  struct rte_mbuf *m, uint8_t *payload, uint32_t len)
{
	const uint8_t *src = NULL;

	if (len >= DPV_ROCE_ICRC_COPY_MIN && !(w->wr.flags & DPV_WR_F_INLINE))
		src = dpv_esge_direct(w->wr.sg_list, swqe_host(qp, w),
				      w->wr.num_sge, off, len);
	if (src != NULL) {
		dpv_engine_tx_copy(qp->e, m, payload, src, len);
		return;
	}
	if (len)
		gather(qp, w, off, payload, len);
	dpv_engine_tx(qp->e, m);
}

/* Opcode of packet k of the WQE (RC numbering; UC/UD add their base). */
static uint8_t
req_opcode(const struct dpv_eswqe *w, uint32_t k)
{
	bool first = k == 0, last = k + 1 == w->npkts;
	enum ibv_wr_opcode op = w->wr.opcode;

	switch (op) {
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		if (first && last)
			return op == IBV_WR_RDMA_WRITE
				       ? DPV_ROCE_OP_WRITE_ONLY
				       : DPV_ROCE_OP_WRITE_ONLY_IMM;
		if (first)
			return DPV_ROCE_OP_WRITE_FIRST;
		if (!last)
			return DPV_ROCE_OP_WRITE_MIDDLE;
		return op == IBV_WR_RDMA_WRITE ? DPV_ROCE_OP_WRITE_LAST
					       : DPV_ROCE_OP_WRITE_LAST_IMM;
	case IBV_WR_RDMA_READ:
		return DPV_ROCE_OP_READ_REQUEST;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
		return DPV_ROCE_OP_CMP_SWAP;
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		return DPV_ROCE_OP_FETCH_ADD;
	case IBV_WR_ATOMIC_WRITE:
		return DPV_ROCE_OP_ATOMIC_WRITE;
	default:
		break;
	}
	if (first && last)
		return op == IBV_WR_SEND_WITH_IMM   ? DPV_ROCE_OP_SEND_ONLY_IMM
		       : op == IBV_WR_SEND_WITH_INV ? DPV_ROCE_OP_SEND_ONLY_INV
						    : DPV_ROCE_OP_SEND_ONLY;
	if (first)
		return DPV_ROCE_OP_SEND_FIRST;
	if (!last)
		return DPV_ROCE_OP_SEND_MIDDLE;
	return op == IBV_WR_SEND_WITH_IMM   ? DPV_ROCE_OP_SEND_LAST_IMM
	       : op == IBV_WR_SEND_WITH_INV ? DPV_ROCE_OP_SEND_LAST_INV
					    : DPV_ROCE_OP_SEND_LAST;
}

/* Which operations a QP type may post. */
static bool
op_allowed(enum ibv_qp_type t, enum ibv_wr_opcode op)
{
	switch (op) {
	case IBV_WR_SEND:
	case IBV_WR_SEND_WITH_IMM:
		return true;
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		return t != IBV_QPT_UD;
	case IBV_WR_SEND_WITH_INV:
	case IBV_WR_RDMA_READ:
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		return t == IBV_QPT_RC || t == IBV_QPT_XRC_SEND ||
		       t == IBV_QPT_DRIVER;
	case IBV_WR_ATOMIC_WRITE: /* an RC opcode only */
		return t == IBV_QPT_RC;
	default:
		return false;
	}
}

/* The network path of a UD (or DCI) WQE's address: AH fields + our
 * addresses; -1 while its neighbour is being resolved. */
int
dpv_engine_ud_path(struct dpv_eqp *qp, const struct dpv_wr_ud *ud,
		   struct dpv_engine_path *p)
{
	struct dpv_engine *e = qp->e;

	memset(p, 0, sizeof(*p));
	memcpy(p->smac, e->mac, 6);
	memcpy(p->dmac, ud->dmac, 6);
	memcpy(p->dgid, ud->dgid, 16);
	/* an AH made without a known neighbour: resolve it here, the WQE
	 * waits (an ARP request / solicitation every 200 ms) */
	if (e->port != NULL &&
	    rte_is_zero_ether_addr((const struct rte_ether_addr *)p->dmac) &&
	    !dpv_engine_neigh_cached(e, ud->dgid, p->dmac)) {
		uint64_t now = dpv_engine_now();

		if (now >= e->neigh_next_query) {
			dpv_engine_neigh_query(e, ud->dgid);
			e->neigh_next_query = now + e->hz / 5;
		}
		return -1;
	}
	if (e->port != NULL) {
		if (dpv_port_gid(e->port, ud->sgid_index, p->sgid) != 0)
			return -1;
	} else {
		memcpy(p->sgid, e->gid, 16);
	}
	p->traffic_class = ud->traffic_class;
	p->hop_limit = ud->hop_limit;
	p->flow_label = ud->flow_label;
	p->udp_sport =
		ud->udp_sport ? ud->udp_sport
			      : dpv_roce_udp_sport_rxe(qp->wire_qpn);
	return 0;
}

/* Build and queue packet w->sent of the WQE; probe: it asks for its ACK
 * whatever dpv_engine_ackreq_want() would say (dpv_engine_req_probe()). */
static int
send_packet(struct dpv_eqp *qp, struct dpv_eswqe *w, bool probe)
{
	struct dpv_engine *e = qp->e;
	struct dpv_engine_path udp;
	const struct dpv_engine_path *path = &qp->path;
	uint32_t k = w->sent, paylen = 0;
	uint64_t off;
	struct dpv_ehdr h = {0};
	struct rte_mbuf *m;
	uint8_t *payload;
	uint32_t fl;

	if (w->wr.opcode == IBV_WR_RDMA_READ)
		k = w->rd_skip; /* the first response still wanted */
	h.opcode = req_opcode(w, k) | eqp_tr(qp);
	fl = OPF(h.opcode);
	off = (uint64_t)k * qp->mtu;
	h.psn = dpv_psn_add(w->first_psn, k);
	h.dqpn = qp->dest_qpn;
	h.ackreq = eqp_reliable(qp) && (fl & DPV_OPF_LAST) &&
		   (probe || dpv_engine_ackreq_want(qp, w));
	if (fl & DPV_OPF_XRCETH)
		h.xrc_srqn = w->wr.xrc_remote_srqn;
	if (fl & DPV_OPF_DCETH) {
		h.dc_key = qp->dc_key;
		h.dc_dci = qp->qpn;
		h.dc_cpsn = qp->dc_cpsn;
	}
	h.se = (w->wr.flags & DPV_WR_F_SOLICITED) && (fl & DPV_OPF_LAST);
	if (fl & DPV_OPF_PAYLOAD)
		paylen = (uint32_t)RTE_MIN((uint64_t)qp->mtu,
					   w->wr.total_len - off);
	if (fl & DPV_OPF_RETH) {
		h.va = w->wr.remote_addr + off;
		h.rkey = w->wr.rkey;
		h.dmalen = (uint32_t)(w->wr.total_len - off);
	}
	if (fl & DPV_OPF_ATMETH) {
		h.va = w->wr.remote_addr;
		h.rkey = w->wr.rkey;
		h.swap_add = w->wr.opcode == IBV_WR_ATOMIC_CMP_AND_SWP
				     ? w->wr.swap
				     : w->wr.compare_add;
		h.compare = w->wr.compare_add;
	}
	if (fl & DPV_OPF_IMMDT)
		h.imm_be = w->wr.imm_data;
	if (fl & DPV_OPF_IETH)
		h.ieth_rkey = w->wr.invalidate_rkey;
	if (fl & DPV_OPF_DETH) {
		h.dqpn = w->wr.ud.remote_qpn;
		h.qkey = (w->wr.ud.remote_qkey & 0x80000000u)
				 ? qp->qkey
				 : w->wr.ud.remote_qkey;
		h.src_qp = qp->wire_qpn; /* a source QPN's, if any */
		if (dpv_engine_ud_path(qp, &w->wr.ud, &udp) != 0)
			return -1;
		path = &udp;
	}
	m = dpv_engine_build(e, path, path == &qp->path ? &qp->tmpl : NULL,
			     &h, paylen, &payload);
	if (m == NULL)
		return -1;
	gather_tx(qp, w, off, m, payload, paylen);
	w->rewound = false;
	if (eqp_reliable(qp))
		dpv_engine_req_timer(qp, h.ackreq);
	return 0;
}

/*
 * The ACK request probe (DPV_ENGINE_ACKREQ_DIV), its timer due: the last
 * message sent, if it did not ask for its ACK and waits for it, sends its
 * last packet again asking (the responder answers the duplicate with an
 * ACK of all it has). 1 if it went, -EAGAIN if the port had no room for
 * it, 0 if there is nothing to probe.
 */
int
dpv_engine_req_probe(struct dpv_eqp *qp)
{
	struct dpv_eswqe *w;
	uint32_t sent;
	int r;

	if (qp->req.noreq == 0 || qp->s_cur == qp->s_tail ||
	    (qp->state != IBV_QPS_RTS && qp->state != IBV_QPS_SQD))
		return 0;
	w = swqe_at(qp, qp->s_cur - 1);
	if (w->state != SWQE_SENT || wr_rd_atomic(w->wr.opcode) ||
	    w->sent != w->npkts || w->npkts == 0)
		return 0;
	if (!dpv_engine_tx_room(qp->e))
		return -EAGAIN;
	sent = w->sent;
	w->sent = w->npkts - 1;
	r = send_packet(qp, w, true);
	w->sent = sent;
	if (r != 0)
		return 0;
	qp->req.noreq = 0;
	qp->req.noreq_pkts = 0;
	qp->e->st.ack_probes++;
	return 1;
}

/*
 * The common request: a SEND or WRITE (with or without immediate) of at
 * most one packet on an RC or UC QP's own path, its frame built in one
 * step from the QP's header template (no dpv_ehdr, no opcode table, no
 * header cleared and set field by field). The rest of the requester's
 * cases (READ, atomics, XRC, DC, UD, several packets, fences, signature
 * pipelining, errors) take the state machine.
 */
enum req_fast {
	FAST_NO,   /* not this path: the state machine takes w as it is */
	FAST_SENT, /* built and queued */
	FAST_STOP, /* no room or no mbuf: the requester returns */
};

/* The RC opcode of a one-packet request of op; 0: not a fast one. */
static inline uint8_t
fast_opcode(enum ibv_wr_opcode op)
{
	switch (op) {
	case IBV_WR_SEND:
		return DPV_ROCE_OP_SEND_ONLY;
	case IBV_WR_SEND_WITH_IMM:
		return DPV_ROCE_OP_SEND_ONLY_IMM;
	case IBV_WR_RDMA_WRITE:
		return DPV_ROCE_OP_WRITE_ONLY;
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		return DPV_ROCE_OP_WRITE_ONLY_IMM;
	default:
		return 0;
	}
}

/* BTH, RETH and immediate of w's one packet at hdr; their length */
static inline uint32_t
fast_hdr(const struct dpv_eqp *qp, const struct dpv_eswqe *w, uint8_t op,
	 bool ackreq, bool rc, uint32_t paylen, uint8_t hdr[DPV_ENGINE_REQ_HDR])
{
	struct dpv_bth *b = (struct dpv_bth *)hdr;
	uint32_t len = sizeof(*b);

	b->opcode = (uint8_t)(op | (rc ? DPV_ROCE_TR_RC : DPV_ROCE_TR_UC));
	b->flags = (uint8_t)(((w->wr.flags & DPV_WR_F_SOLICITED) ? DPV_BTH_SE
								  : 0) |
			     (((4 - (paylen & 3)) & 3) << 4) | DPV_ROCE_TVER);
	b->pkey = rte_cpu_to_be_16(DPV_ROCE_PKEY_DEFAULT);
	b->qpn = rte_cpu_to_be_32(qp->dest_qpn & DPV_ROCE_QPN_MASK);
	b->apsn =
		rte_cpu_to_be_32((ackreq ? (uint32_t)DPV_BTH_ACKREQ << 24 : 0) |
				 (w->first_psn & DPV_ROCE_PSN_MASK));
	if (op == DPV_ROCE_OP_WRITE_ONLY || op == DPV_ROCE_OP_WRITE_ONLY_IMM) {
		struct dpv_reth *r = (struct dpv_reth *)(hdr + len);

		dpv_reth_set_va(r, w->wr.remote_addr);
		dpv_reth_set_rkey(r, w->wr.rkey);
		dpv_reth_set_len(r, (uint32_t)w->wr.total_len);
		len += sizeof(*r);
	}
	if (op == DPV_ROCE_OP_SEND_ONLY_IMM ||
	    op == DPV_ROCE_OP_WRITE_ONLY_IMM) {
		memcpy(hdr + len, &w->wr.imm_data, 4);
		len += 4;
	}
	return len;
}

static enum req_fast
req_fast(struct dpv_eqp *qp, struct dpv_eswqe *w, unsigned *budget)
{
	struct dpv_engine *e = qp->e;
	uint8_t hdr[DPV_ENGINE_REQ_HDR] __rte_aligned(16);
	uint8_t op = fast_opcode(w->wr.opcode), *payload;
	bool rc = qp->type == IBV_QPT_RC, ackreq;
	uint32_t paylen, hlen;
	struct rte_mbuf *m;

	if (op == 0 || (!rc && qp->type != IBV_QPT_UC) ||
	    (w->wr.flags & (DPV_WR_F_MALFORMED | DPV_WR_F_FENCE)) ||
	    w->sent != 0 || w->wr.total_len > qp->mtu || qp->tmpl.len == 0 ||
	    qp->sigp || w->canceled)
		return FAST_NO;
	if (!w->checked) {
		/* a key error: the state machine checks again and fails
		 * the WQE */
		if (check_local(qp, w) != IBV_WC_SUCCESS)
			return FAST_NO;
		w->checked = true;
		/* an indirect key's signature fields can lengthen it */
		w->npkts = dpv_pkt_count(w->wr.total_len, qp->mtu);
		w->first_psn = qp->req.psn;
		w->last_psn = dpv_psn_add(w->first_psn, w->npkts - 1);
		qp->req.psn = dpv_psn_add(qp->req.psn, w->npkts);
		credit_assign(qp, w);
		if (w->npkts != 1)
			return FAST_NO;
	}
	/* end-to-end credits: a stop is the state machine's to take (the
	 * check repeats there, to the same answer) */
	if (unlikely(dpv_psn_cmp(w->cseq, qp->req.climit) > 0) &&
	    dpv_engine_credit_wait(qp, w))
		return FAST_NO;
	if (*budget == 0 || !dpv_engine_tx_room(e))
		return FAST_STOP;
	paylen = (uint32_t)w->wr.total_len;
	ackreq = rc && dpv_engine_ackreq_want(qp, w);
	hlen = fast_hdr(qp, w, op, ackreq, rc, paylen, hdr);
	m = dpv_engine_build_req(e, &qp->tmpl, hdr, hlen, paylen, &payload);
	if (m == NULL)
		return FAST_STOP;
	gather_tx(qp, w, 0, m, payload, paylen);
	w->rewound = false;
	w->sent = 1;
	(*budget)--;
	if (rc) {
		w->state = SWQE_SENT;
		dpv_engine_req_timer(qp, ackreq);
	} else {
		w->state = SWQE_DONE;
	}
	return FAST_SENT;
}

static void
set_error(struct dpv_eswqe *w, enum ibv_wc_status st)
{
	w->state = SWQE_ERROR;
	w->status = st;
}

/*
 * Signature pipelining (MLX5DV_QP_CREATE_SIG_PIPELINING): true if w does
 * not start (as it is; a canceled WQE then completes without running).
 * After a signature error a fenced WQE stops the SQ: SQD, with
 * IBV_EVENT_SQ_DRAINED once what started is done; nothing starts until
 * the QP is back in RTS.
 */
static bool
sig_pipe_stop(struct dpv_eqp *qp, const struct dpv_eswqe *w)
{
	if (w->sent != 0)
		return false;
	if (qp->sigp & SIGP_HALT)
		return true;
	if ((qp->sigp & SIGP_ERR) && (w->wr.flags & DPV_WR_F_FENCE) &&
	    !w->canceled) {
		qp->sigp = SIGP_HALT;
		qp->state = IBV_QPS_SQD;
		qp->sqd_notify = true;
		return true;
	}
	if (w->wr.flags & DPV_WR_F_FENCE)
		qp->sigp = 0;
	return w->canceled;
}

void
dpv_engine_requester(struct dpv_eqp *qp, unsigned *budget)
{
	enum req_state state = REQ_NEXT_WQE;
	struct dpv_eswqe *w = NULL;
	enum ibv_wc_status st = IBV_WC_SUCCESS;

	if (qp->sq == NULL)
		return;
	if (qp->comp.rnr_until) {
		if (qp->e->now < qp->comp.rnr_until)
			return;
		qp->comp.rnr_until = 0;
	}
	/* SQD: finish what was fetched, start nothing new */
	if (qp->state == IBV_QPS_RTS)
		dpv_engine_sq_fetch(qp);
	for (;;) {
		if (state != REQ_NEXT_WQE)
			ENGINE_LOG(DEBUG, "qp %u req %s", qp->qpn,
				   req_state_name[state]);
		switch (state) {
		case REQ_NEXT_WQE:
			if (qp->s_cur == qp->s_head || *budget == 0)
				return;
			w = swqe_at(qp, qp->s_cur);
			state = REQ_CHECK_WQE;
			break;
		case REQ_CHECK_WQE:
			if (w->state == SWQE_ERROR)
				return; /* the completer finishes the QP */
			if (w->state != SWQE_PENDING) {
				qp->s_cur++;
				state = REQ_NEXT_WQE;
				break;
			}
			switch (req_fast(qp, w, budget)) {
			case FAST_SENT:
				qp->s_cur++;
				state = REQ_NEXT_WQE;
				continue;
			case FAST_STOP:
				return;
			case FAST_NO:
				break;
			}
			if (unlikely(qp->sigp || w->canceled) &&
			    sig_pipe_stop(qp, w)) {
				if (!w->canceled)
					return;
				w->state = SWQE_DONE;
				qp->s_cur++;
				state = REQ_NEXT_WQE;
				break;
			}
			if ((w->wr.flags & DPV_WR_F_MALFORMED) ||
			    !op_allowed(qp->type, w->wr.opcode)) {
				if (!(w->wr.flags & DPV_WR_F_MALFORMED) &&
				    (w->wr.opcode == IBV_WR_LOCAL_INV ||
				     ((w->wr.opcode == IBV_WR_BIND_MW ||
				       w->wr.opcode == IBV_WR_DRIVER1) &&
				      qp->type != IBV_QPT_UD))) {
					state = REQ_LOCAL_OP;
					break;
				}
				st = IBV_WC_LOC_QP_OP_ERR;
				state = REQ_ERROR;
				break;
			}
			/* DCI streams: a WQE of a stream in error is flushed
			 * (the stream's WQEs run in order) */
			if (unlikely(qp->dc == DPV_ENGINE_DC_DCI) &&
			    qp->dci_nerr && !w->checked &&
			    dpv_engine_dci_stream_flush(qp, w)) {
				qp->s_cur++;
				state = REQ_NEXT_WQE;
				break;
			}
			if ((w->wr.flags & DPV_WR_F_FENCE) && w->sent == 0 &&
			    qp->req.rd_out > 0)
				return; /* fenced behind READs/atomics */
			if (wr_rd_atomic(w->wr.opcode) && w->sent == 0 &&
			    (qp->req.rd_out >= qp->max_rd_atomic ||
			     (qp->comp.rd_cap &&
			      qp->req.rd_out >= qp->comp.rd_cap)))
				return;
			/* DCI: a WQE for another target waits for the
			 * current connection's WQEs to complete */
			if (qp->dc == DPV_ENGINE_DC_DCI && !w->checked &&
			    !dpv_engine_dci_target(qp, w))
				return;
			if (!w->checked) {
				st = check_local(qp, w);
				if (st != IBV_WC_SUCCESS) {
					state = REQ_ERROR;
					break;
				}
				if (qp->type == IBV_QPT_UD &&
				    w->wr.total_len > qp->mtu) {
					st = IBV_WC_LOC_LEN_ERR;
					state = REQ_ERROR;
					break;
				}
				if (w->wr.total_len > (1ull << 31)) {
					st = IBV_WC_LOC_LEN_ERR;
					state = REQ_ERROR;
					break;
				}
				w->checked = true;
				w->npkts =
					(w->wr.opcode ==
						 IBV_WR_ATOMIC_CMP_AND_SWP ||
					 w->wr.opcode ==
						 IBV_WR_ATOMIC_FETCH_AND_ADD)
						? 1
						: dpv_pkt_count(w->wr.total_len,
								qp->mtu);
				w->first_psn = qp->req.psn;
				w->last_psn =
					dpv_psn_add(w->first_psn, w->npkts - 1);
				qp->req.psn =
					dpv_psn_add(qp->req.psn, w->npkts);
				credit_assign(qp, w);
			}
			/* end-to-end credits: one compare on the common path */
			if (unlikely(dpv_psn_cmp(w->cseq, qp->req.climit) > 0) &&
			    dpv_engine_credit_wait(qp, w))
				return;
			state = REQ_SEND_PKT;
			break;
		case REQ_LOCAL_OP:
			/* memory operations run in send-queue order */
			if (w->wr.opcode == IBV_WR_BIND_MW)
				st = dpv_engine_key_bind(qp->e, qp,
							 &w->wr.bind);
			else if (w->wr.opcode == IBV_WR_DRIVER1)
				st = dpv_engine_key_config(qp, &w->wr);
			else
				st = dpv_engine_key_invalidate(
					     qp->e, w->wr.invalidate_rkey,
					     qp->pdn, qp->qpn, false) != 0
					     ? IBV_WC_MW_BIND_ERR
					     : IBV_WC_SUCCESS;
			if (st != IBV_WC_SUCCESS) {
				state = REQ_ERROR;
				break;
			}
			w->state = SWQE_DONE;
			qp->s_cur++;
			state = REQ_NEXT_WQE;
			break;
		case REQ_SEND_PKT:
			/* back-pressure: the port's TX queue is full */
			if (*budget == 0 || !dpv_engine_tx_room(qp->e))
				return;
			if (send_packet(qp, w, false) != 0)
				return; /* no mbuf or no neighbour yet: next
					   iteration */
			(*budget)--;
			w->sent++;
			if (w->wr.opcode == IBV_WR_RDMA_READ ||
			    w->sent == w->npkts)
				state = REQ_WQE_SENT;
			break;
		case REQ_WQE_SENT:
			if (wr_rd_atomic(w->wr.opcode))
				qp->req.rd_out++;
			/* UC and UD complete when sent; RC waits for the ACK */
			w->state = eqp_reliable(qp) ? SWQE_SENT : SWQE_DONE;
			qp->s_cur++;
			state = REQ_NEXT_WQE;
			break;
		case REQ_ERROR:
			qp->s_cur++;
			/* DCI streams: a WQE not sent fails its stream only */
			if (w->sent == 0 && !w->checked &&
			    dpv_engine_dci_stream_fail(qp, w, st)) {
				state = REQ_NEXT_WQE;
				break;
			}
			set_error(w, st);
			return;
		case REQ_WAIT:
			return;
		}
	}
}
