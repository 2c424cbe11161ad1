/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Responder: request packets -> memory operations and receive completions.
 * PSN checks (duplicates, sequence NAK), receive WQEs (RQ or SRQ) and
 * scatter with lkey checks, RDMA WRITE/READ with R_Key checks, atomics,
 * coalesced cumulative ACKs with MSN, RNR NAKs, UC resynchronisation,
 * UD Q_Key check and the 40-byte GRH.
 */
#include <string.h>

#include <rte_ip.h>

#include "engine_int.h"
#include "engine_rxcheck.h"
#include "mlx5_ring.h"

#define RESP_STATES(X)                                                         \
	X(RESP_CHECK_PSN)                                                      \
	X(RESP_CHECK_OP)                                                       \
	X(RESP_CHECK_RESOURCE)                                                 \
	X(RESP_CHECK_RKEY)                                                     \
	X(RESP_EXECUTE)                                                        \
	X(RESP_COMPLETE)                                                       \
	X(RESP_ACK)                                                            \
	X(RESP_DUPLICATE)                                                      \
	X(RESP_NAK_SEQ)                                                        \
	X(RESP_RNR)                                                            \
	X(RESP_NAK_INV)                                                        \
	X(RESP_NAK_ACCESS)                                                     \
	X(RESP_NAK_OP)                                                         \
	X(RESP_DROP)                                                           \
	X(RESP_DONE)

enum resp_state {
#define X(s) s,
	RESP_STATES(X)
#undef X
};

static const char *const resp_state_name[] = {
#define X(s) #s,
	RESP_STATES(X)
#undef X
};

#define GRH_LEN 40

void
dpv_engine_resp_reset(struct dpv_eqp *qp)
{
	qp->resp.have_rwqe = false;
	qp->resp.rcv_off = 0;
	qp->resp.wr_left = 0;
	qp->resp.cur_op = 0;
	qp->resp.ack.pending = false;
}

/* An ACK/NAK built header by header, for a QP without an ACK template
 * (NULL: no mbuf). */
static struct rte_mbuf *
ack_build_full(struct dpv_eqp *qp, uint8_t syndrome, uint32_t psn)
{
	struct dpv_ehdr h = {
		.opcode = DPV_ROCE_OP_ACK | eqp_tr(qp),
		.dqpn = qp->dest_qpn,
		.psn = psn,
		.syndrome = syndrome,
		.msn = qp->resp.msn,
	};
	uint8_t *pl;

	return dpv_engine_build(qp->e, &qp->path, &qp->tmpl, &h, 0, &pl);
}

/* Send an ACK/NAK/RNR NAK now. */
static void
send_ack(struct dpv_eqp *qp, uint8_t syndrome, uint32_t psn)
{
	struct rte_mbuf *m;
	bool no_tmpl;

	/* from the QP's ACK template: a copy, two words and their ICRC
	 * deltas */
	m = dpv_engine_build_ack(qp, syndrome, psn, &no_tmpl);
	if (m != NULL)
		dpv_engine_tx_ready(qp->e, m);
	else if (no_tmpl && (m = ack_build_full(qp, syndrome, psn)) != NULL)
		dpv_engine_tx(qp->e, m);
	else
		return; /* no mbuf */
	DPV_EQP_COUNT_HOT(qp, acks_sent);
	if ((syndrome & AETH_TYPE_MASK) != AETH_NAK)
		return;
	switch (syndrome & 0x1f) {
	case AETH_NAK_INV_REQ:
		DPV_EQP_COUNT(qp, inv_req_naks_sent);
		break;
	case AETH_NAK_REM_ACCESS:
		DPV_EQP_COUNT(qp, rem_access_naks_sent);
		break;
	case AETH_NAK_REM_OP:
		DPV_EQP_COUNT(qp, rem_op_naks_sent);
		break;
	}
}

void
dpv_engine_ack_flush(struct dpv_eqp *qp)
{
	uint32_t psn, msn;

	/* no room: the ACK stays owed (and cumulative) for the next poll */
	if (!dpv_engine_ack_owed(qp) || qp->resp.out_pend ||
	    !dpv_engine_tx_room(qp->e))
		return;
	if (!dpv_ack_take(&qp->resp.ack, &psn, &msn))
		return;
	send_ack(qp, AETH_ACK | dpv_engine_credit_adv(qp), psn);
}

/* An owed ACK goes out before a NAK or a response with a later PSN. */
static void
ack_now(struct dpv_eqp *qp)
{
	dpv_engine_ack_flush(qp);
}

/* Fetch the next receive WQE and check its SGEs for local write. */
static int
get_rwqe(struct dpv_eqp *qp)
{
	struct dpv_erwqe *r = &qp->resp.rwqe;
	uint8_t **host_of;

	if (qp->resp.have_rwqe)
		return 0;
	if (qp->rq == NULL || !dpv_mlx5_rq_fetch_eng(qp->rq, &r->wr))
		return -1;
	host_of = rwqe_host(r, qp->rq->wq.max_gs);
	if (qp->has_srq && qp->e->conf.srq_fetched)
		qp->e->conf.srq_fetched(qp->e->conf.event_arg, qp->rq);
	qp->resp.have_rwqe = true;
	qp->resp.rcv_off = 0;
	for (uint32_t i = 0; i < r->wr.num_sge; i++) {
		void *host = NULL;

		if (dpv_engine_key_access_ind(
			    qp->e, qp, r->wr.sg_list[i].lkey,
			    r->wr.sg_list[i].addr, r->wr.sg_list[i].length,
			    IBV_ACCESS_LOCAL_WRITE, &host) != DPV_KEY_OK)
			return -2;
		if (unlikely(host == DPV_KEY_HOST_INDIRECT) &&
		    dpv_engine_key_sig_take(qp, &r->wr.sg_list[i],
					    &r->wr.total_len) != DPV_KEY_OK)
			return -2;
		host_of[i] = host;
	}
	return 0;
}

/* The payload of a WRITE packet at the WRITE's cursor; -1 if an indirect
 * key's region refused it (nothing placed from there on). */
static int
write_place(struct dpv_eqp *qp, const struct dpv_epkt *pkt)
{
	if (likely(qp->resp.wr_host != DPV_KEY_HOST_INDIRECT)) {
		dpv_engine_land(qp->resp.wr_host, pkt->payload, pkt->paylen);
		qp->resp.wr_host += pkt->paylen;
		return 0;
	}
	if (dpv_engine_key_copy(qp, qp->resp.wr_key, qp->resp.wr_va,
				pkt->payload, pkt->paylen,
				IBV_ACCESS_REMOTE_WRITE, true) != DPV_KEY_OK)
		return -1;
	qp->resp.wr_va += pkt->paylen;
	return 0;
}

/* Place len bytes at the current offset of the receive WQE. */
static int
place(struct dpv_eqp *qp, const uint8_t *src, uint32_t len)
{
	struct dpv_erwqe *r = &qp->resp.rwqe;
	uint64_t off = qp->resp.rcv_off;

	if (off + len > r->wr.total_len) {
		ENGINE_LOG(DEBUG,
			   "qp %u: %u bytes at %" PRIu64
			   " overflow the receive WQE %u (%" PRIu64 " bytes)",
			   qp->qpn, len, off, r->wr.wqe_index, r->wr.total_len);
		return -1;
	}
	qp->resp.rcv_off += len;
	dpv_esge_copy(qp, r->wr.sg_list, rwqe_host(r, qp->rq->wq.max_gs),
		      r->wr.num_sge, off, (uint8_t *)(uintptr_t)src, len, true);
	return 0;
}

int
dpv_engine_resp_place(struct dpv_eqp *qp, const uint8_t *src, uint32_t len)
{
	return place(qp, src, len);
}

/* A QP on a tag matching SRQ: the buffer the message pkt starts goes
 * to, a tagged one or an ordinary WQE (get_rwqe()'s answers). */
static int
get_rwqe_tm(struct dpv_eqp *qp, const struct dpv_epkt *pkt)
{
	int r;

	if (qp->resp.have_rwqe)
		return 0;
	r = dpv_engine_tm_take(qp, pkt);
	if (r != 0)
		return r > 0 ? 0 : r;
	r = get_rwqe(qp);
	if (r == 0)
		dpv_engine_tm_ordinary(qp);
	else if (r == -1)
		qp->tm_kind = DPV_TM_MSG_NONE; /* RNR: taken again later */
	return r;
}

/* Scatter to CQE: keep a whole small SEND for the receive CQE. */
static int
place_cqe(struct dpv_eqp *qp, const uint8_t *src, uint32_t len)
{
	if (qp->resp.rcv_off + len > qp->resp.rwqe.wr.total_len)
		return -1;
	memcpy(qp->resp.scat, src, len);
	qp->resp.scat_len = (uint8_t)len;
	qp->resp.rcv_off += len;
	return 0;
}

/* The flag a receive completion of the message pkt ends takes when it
 * was solicited (SE in its last packet). */
static inline unsigned
solicited_flag(const struct dpv_epkt *pkt)
{
	return pkt->se ? DPV_ENGINE_CQE_SOLICITED : 0;
}

/* Complete the receive WQE being filled (not of a tag matching SRQ's
 * message). */
static __rte_always_inline void
complete_plain(struct dpv_eqp *qp, enum ibv_wc_status st, enum ibv_wc_opcode op,
	       uint32_t len, uint32_t imm, uint32_t src_qp, unsigned flags)
{
	struct dpv_erwqe *r = &qp->resp.rwqe;

	if (qp->resp.scat_len) {
		qp->cqe_scat = qp->resp.scat;
		qp->cqe_scat_len = qp->resp.scat_len;
		qp->resp.scat_len = 0;
	}

	dpv_engine_cqe(qp, true, r->wr.wqe_index, st, op, len, imm, src_qp,
		       flags);
	if (!qp->has_srq)
		dpv_mlx5_rq_retire(qp->rq, &r->wr);
	qp->resp.have_rwqe = false;
	qp->resp.rcv_off = 0;
}

/* Complete the receive buffer being filled: a receive WQE, or a tag
 * matching SRQ's buffer (engine_tm.c). */
static __rte_always_inline void
complete_recv(struct dpv_eqp *qp, enum ibv_wc_status st, enum ibv_wc_opcode op,
	      uint32_t len, uint32_t imm, uint32_t src_qp, unsigned flags)
{
	if (unlikely(qp->has_srq) && qp->tm_kind != DPV_TM_MSG_NONE)
		dpv_engine_tm_recv_done(qp, st, len, imm, flags);
	else
		complete_plain(qp, st, op, len, imm, src_qp, flags);
}

/*
 * READ r's responses from r->next on, while the port has room and *budget
 * lasts (one a frame): false when either ran out (or the pool did) with
 * some left. host: the region's memory
 * as the request's check found it, for a READ whose responses have not
 * started (r->next == r->first); else NULL, to look the key up again (the
 * region may have gone since: the rest is not sent, and the requester's
 * retry meets the key check).
 */
static bool
read_emit(struct dpv_eqp *qp, struct dpv_eres *r, const uint8_t *host,
	  unsigned *budget)
{
	struct dpv_engine *e = qp->e;
	uint32_t n = dpv_pkt_count(r->len, qp->mtu);
	uint32_t k = (r->next - r->first) & DPV_ROCE_PSN_MASK;
	uint64_t off = (uint64_t)k * qp->mtu;
	uint8_t credit = dpv_engine_credit_adv(qp);
	void *h = NULL;

	if (host == NULL && r->len != 0 && k < n) {
		if (dpv_engine_key_access_ind(e, qp, r->rkey, r->va + off,
					      r->len - off,
					      IBV_ACCESS_REMOTE_READ,
					      &h) != DPV_KEY_OK) {
			DPV_EQP_COUNT(qp, rd_resp_dropped);
			r->todo = false;
			return true;
		}
		host = h;
	}
	for (; k < n; k++, off += qp->mtu) {
		uint32_t pl = (uint32_t)RTE_MIN((uint64_t)qp->mtu, r->len - off);
		struct dpv_ehdr hd = {
			.dqpn = qp->dest_qpn,
			.psn = r->next,
			.syndrome = AETH_ACK | credit,
			.msn = r->msn,
		};
		struct rte_mbuf *m;
		uint8_t *p;

		if (*budget == 0 || !dpv_engine_tx_room(e))
			return false;
		if (n == 1)
			hd.opcode = DPV_ROCE_OP_READ_RESP_ONLY;
		else if (k == 0)
			hd.opcode = DPV_ROCE_OP_READ_RESP_FIRST;
		else if (k + 1 == n)
			hd.opcode = DPV_ROCE_OP_READ_RESP_LAST;
		else
			hd.opcode = DPV_ROCE_OP_READ_RESP_MIDDLE;
		hd.opcode |= eqp_tr(qp);
		m = dpv_engine_build(e, &qp->path, &qp->tmpl, &hd, pl, &p);
		if (m == NULL)
			return false; /* no mbuf: the next poll goes on */
		/* a zero-length READ has no address; through an indirect
		 * key, a region gone since the check fails the copy */
		if (pl != 0 && host != DPV_KEY_HOST_INDIRECT) {
			dpv_engine_tx_copy(e, m, p, host, pl);
			host += pl;
		} else if (pl != 0 &&
			   dpv_engine_key_copy(qp, r->rkey, r->va + off, p, pl,
					       IBV_ACCESS_REMOTE_READ,
					       false) != DPV_KEY_OK) {
			rte_pktmbuf_free(m);
			DPV_EQP_COUNT(qp, rd_resp_dropped);
			r->todo = false;
			return true;
		} else {
			dpv_engine_tx(e, m);
		}
		r->next = dpv_psn_add(r->next, 1);
		(*budget)--;
	}
	r->todo = false;
	return true;
}

static void
atomic_ack(struct dpv_eqp *qp, uint32_t psn, uint32_t msn, uint64_t orig)
{
	struct dpv_ehdr h = {
		.opcode = DPV_ROCE_OP_ATOMIC_ACK | eqp_tr(qp),
		.dqpn = qp->dest_qpn,
		.psn = psn,
		.syndrome = AETH_ACK | dpv_engine_credit_adv(qp),
		.msn = msn,
		.orig = orig,
	};
	struct rte_mbuf *m;
	uint8_t *p;

	m = dpv_engine_build(qp->e, &qp->path, &qp->tmpl, &h, 0, &p);
	if (m != NULL)
		dpv_engine_tx(qp->e, m);
}

/* Execute atomic r on the 8 bytes at p: r->orig becomes the original
 * value. */
static void
atomic_exec(struct dpv_eres *r, uint64_t *p)
{
	uint64_t orig;

	if (r->op == DPV_ROCE_OP_CMP_SWAP) {
		orig = r->orig;
		__atomic_compare_exchange_n(p, &orig, r->swap, false,
					    __ATOMIC_SEQ_CST,
					    __ATOMIC_SEQ_CST);
	} else {
		orig = __atomic_fetch_add(p, r->swap, __ATOMIC_SEQ_CST);
	}
	r->orig = orig;
}

void
dpv_engine_resp_drop_owed(struct dpv_eqp *qp)
{
	if (!qp->resp.out_pend)
		return;
	for (uint8_t i = 0; i < qp->resp.res_n; i++) {
		if (qp->resp.res[i].todo)
			DPV_EQP_COUNT(qp, rd_resp_dropped);
		qp->resp.res[i].todo = false;
	}
	qp->resp.out_pend = false;
	qp->resp.dnak_syn = 0;
}

/* A NAK that ends the connection (IBA class C/D responder errors): the
 * QP goes to ERR (a DCT: only that initiator's connection ends). */
static void
fatal_nak(struct dpv_eqp *qp, uint8_t syndrome, uint32_t psn)
{
	dpv_engine_resp_drop_owed(qp); /* nothing more is answered */
	ack_now(qp);
	send_ack(qp, syndrome, psn);
	if (qp->dc == DPV_ENGINE_DC_DCT)
		dpv_engine_dct_forget(qp);
	else
		dpv_engine_qp_to_err(qp);
}

/* An atomic held behind owed READ responses, now in its turn: executed
 * (its key looked up again) and answered. false: no room yet. */
static bool
atomic_emit(struct dpv_eqp *qp, struct dpv_eres *r, unsigned *budget)
{
	void *host = NULL;
	uint64_t *p;

	if (*budget == 0 || !dpv_engine_tx_room(qp->e))
		return false;
	(*budget)--;
	r->todo = false;
	if (dpv_engine_key_access_ind(qp->e, qp, r->rkey, r->va, 8,
				      IBV_ACCESS_REMOTE_ATOMIC,
				      &host) != DPV_KEY_OK ||
	    (p = dpv_engine_key_atomic(qp, r->rkey, r->va, host)) == NULL) {
		fatal_nak(qp, AETH_NAK | AETH_NAK_REM_ACCESS, r->first);
		return true;
	}
	atomic_exec(r, p);
	atomic_ack(qp, r->first, r->msn, r->orig);
	return true;
}

/* Age of res entry i: 0 for the oldest (the next one to be reused). */
static inline uint8_t
res_age(const struct dpv_eqp *qp, uint8_t i)
{
	uint8_t n = qp->resp.res_n;

	return (uint8_t)((i + n - qp->resp.res_head) % n);
}

/* Entry r owes responses: output starts with it unless an older one
 * owes some too. */
static void
res_owe(struct dpv_eqp *qp, struct dpv_eres *r)
{
	uint8_t i = (uint8_t)(r - qp->resp.res);

	r->todo = true;
	if (!qp->resp.out_pend || res_age(qp, i) < res_age(qp, qp->resp.out_i))
		qp->resp.out_i = i;
	qp->resp.out_pend = true;
}

/*
 * The responses a QP owes, oldest first, while the port takes them and
 * *budget lasts: READ response frames the port had no room for when the
 * READ arrived, or that were past its turn's budget (a requester may have
 * max_dest_rd_atomic READs of any length outstanding, far more than any
 * port's ring holds; dropping them cost a retry each), then the atomics
 * and the ACK or NAK that arrived behind them, which may not overtake
 * them.
 */
void
dpv_engine_resp_output(struct dpv_eqp *qp, unsigned *budget)
{
	uint8_t n = qp->resp.res_n, i = qp->resp.out_i;

	if (n != 0) {
		for (uint8_t c = n - res_age(qp, i); c > 0;
		     c--, i = i + 1 == n ? 0 : i + 1) {
			struct dpv_eres *r = &qp->resp.res[i];

			if (!r->todo)
				continue;
			if (!(r->kind != 2 ? read_emit(qp, r, NULL, budget)
					   : atomic_emit(qp, r, budget))) {
				qp->resp.out_i = i;
				return;
			}
			if (!qp->resp.out_pend)
				return; /* a fatal NAK ended it */
		}
	}
	qp->resp.out_pend = false;
	if (qp->resp.dnak_syn != 0) {
		uint8_t syn = qp->resp.dnak_syn;

		qp->resp.dnak_syn = 0;
		ack_now(qp);
		send_ack(qp, syn, qp->resp.dnak_psn);
	}
}

/* A sequence or RNR NAK: now, or behind the responses owed. */
static void
nak_send(struct dpv_eqp *qp, uint8_t syndrome, uint32_t psn)
{
	if (qp->resp.out_pend) {
		qp->resp.dnak_syn = syndrome;
		qp->resp.dnak_psn = psn;
		return;
	}
	ack_now(qp);
	send_ack(qp, syndrome, psn);
}

/*
 * Responder resources (IBA 9.5/9.7.5.1): the last max_dest_rd_atomic READ and
 * atomic requests are kept in a ring so that their duplicates can be
 * answered; when the ring is full the oldest entry is recycled, since a
 * requester may not have more than that outstanding. The ring is rebuilt
 * (emptied) when its size changes through modify_qp.
 */
static uint8_t
res_size(struct dpv_eqp *qp)
{
	uint8_t n = RTE_MIN(qp->max_dest_rd_atomic, DPV_ENGINE_MAX_RD_ATOMIC);

	if (qp->resp.res_n != n) {
		memset(qp->resp.res, 0, sizeof(qp->resp.res));
		qp->resp.res_n = n;
		qp->resp.res_head = 0;
		qp->resp.out_pend = false;
	}
	return n;
}

static struct dpv_eres *
res_new(struct dpv_eqp *qp)
{
	struct dpv_eres *r = &qp->resp.res[qp->resp.res_head];

	if (r->kind != 0)
		DPV_EQP_COUNT(qp, rd_atomic_recycled);
	if (r->todo) {
		/* a requester past its limit: what the entry owed is not
		 * sent (it retries) */
		r->todo = false;
		DPV_EQP_COUNT(qp, rd_resp_dropped);
	}
	qp->resp.res_head = (qp->resp.res_head + 1) % res_size(qp);
	if (qp->resp.out_pend && qp->resp.out_i == (uint8_t)(r - qp->resp.res))
		qp->resp.out_i = qp->resp.res_head; /* the oldest now */
	return r;
}

/* The saved entry whose responses include psn, or NULL. */
static struct dpv_eres *
res_find(struct dpv_eqp *qp, uint8_t kind, uint32_t psn)
{
	uint8_t n = res_size(qp);

	for (uint8_t i = 0; i < n; i++) {
		struct dpv_eres *r = &qp->resp.res[i];

		if (r->kind == kind && dpv_psn_cmp(psn, r->first) >= 0 &&
		    dpv_psn_cmp(psn, r->last) <= 0)
			return r;
	}
	return NULL;
}

/*
 * A new request answered by READ responses (a READ of len bytes, kind 1;
 * an ATOMIC WRITE, kind 3 and len 0: one empty response): its entry, and
 * its responses now, or behind owed responses or what the port has no
 * room for (sent in order later). host: the region's memory as the
 * request's check found it.
 */
static void
read_answer(struct dpv_eqp *qp, const struct dpv_epkt *pkt, uint8_t kind,
	    uint32_t len, const uint8_t *host)
{
	uint32_t np = dpv_pkt_count(len, qp->mtu);
	struct dpv_eres *rs = res_new(qp);
	unsigned budget = qp->e->resp_budget;

	rs->kind = kind;
	rs->first = rs->next = pkt->psn;
	rs->last = dpv_psn_add(pkt->psn, np - 1);
	rs->rkey = pkt->rkey;
	rs->va = pkt->va;
	rs->len = len;
	rs->msn = ++qp->resp.msn;
	qp->resp.ack.pending = false;
	qp->resp.epsn = dpv_psn_add(pkt->psn, np);
	if (qp->resp.out_pend || !read_emit(qp, rs, host, &budget)) {
		DPV_EQP_COUNT(qp, rd_resp_waits);
		res_owe(qp, rs);
	}
}

/* A held entry's READ responses again (from rs->next), for a duplicate:
 * in their turn if responses are owed. */
static void
read_answer_again(struct dpv_eqp *qp, struct dpv_eres *rs)
{
	unsigned budget = qp->e->resp_budget;

	rs->msn = qp->resp.msn;
	if (qp->resp.out_pend) {
		res_owe(qp, rs);
		return;
	}
	ack_now(qp);
	if (!read_emit(qp, rs, NULL, &budget)) {
		DPV_EQP_COUNT(qp, rd_resp_waits);
		res_owe(qp, rs);
	}
}

/*
 * ATOMIC WRITE (checked: 8 bytes at an aligned address of a key that
 * allows remote writes, host as the check found it): its 8 bytes stored
 * at once, and its answer, an empty READ RESPONSE ONLY. The entry (kind
 * 3) answers a duplicate without writing again. false: the key's memory
 * is not there (an indirect key).
 */
static bool
atomic_write_exec(struct dpv_eqp *qp, const struct dpv_epkt *pkt, void *host)
{
	uint64_t *p = dpv_engine_key_atomic(qp, pkt->rkey, pkt->va, host);
	uint64_t v;

	if (p == NULL)
		return false;
	memcpy(&v, pkt->payload, sizeof(v));
	if (likely(((uintptr_t)p & 7) == 0))
		__atomic_store_n(p, v, __ATOMIC_RELEASE);
	else /* a zero-based or IOVA region may shift the alignment */
		memcpy(p, &v, sizeof(v));
	read_answer(qp, pkt, 3, 0, NULL);
	return true;
}

/* UD: Q_Key, receive WQE, GRH + payload, completion. */
static void
ud_receive(struct dpv_eqp *qp, struct dpv_epkt *pkt)
{
	uint8_t grh[GRH_LEN] = {0};
	unsigned flags = IBV_WC_GRH;

	if (!(pkt->flags & DPV_OPF_UD))
		return;
	if (pkt->qkey != qp->qkey) {
		DPV_EQP_COUNT(qp, rx_drop_qkey);
		return;
	}
	if (get_rwqe(qp) != 0) {
		if (qp->resp.have_rwqe)
			complete_recv(qp, IBV_WC_LOC_PROT_ERR, IBV_WC_RECV, 0,
				      0, pkt->src_qp, 0);
		return; /* no receive posted: UD drops */
	}
	if (pkt->ipv4)
		memcpy(grh + 20, pkt->l3, 20);
	else
		memcpy(grh, pkt->l3, GRH_LEN);
	if (place(qp, grh, GRH_LEN) != 0 ||
	    place(qp, pkt->payload, pkt->paylen) != 0) {
		complete_recv(qp, IBV_WC_LOC_LEN_ERR, IBV_WC_RECV, 0, 0,
			      pkt->src_qp, 0);
		return;
	}
	if (pkt->flags & DPV_OPF_IMMDT)
		flags |= IBV_WC_WITH_IMM;
	complete_recv(qp, IBV_WC_SUCCESS, IBV_WC_RECV, GRH_LEN + pkt->paylen,
		      pkt->imm_be, pkt->src_qp, flags | solicited_flag(pkt));
}

/*
 * XRC target: the request names an XRC SRQ of the QP's domain; its ring,
 * CQ and PD serve this request. false: no such SRQ (answered with a NAK).
 */
static bool
xrc_select_srq(struct dpv_eqp *qp, const struct dpv_epkt *pkt)
{
	struct dpv_engine_srq s;
	struct dpv_engine *e = qp->e;

	if (e->conf.srq_lookup == NULL ||
	    !e->conf.srq_lookup(e->conf.srq_arg, pkt->xrc_srqn, &s) ||
	    s.xrcdn != qp->xrcdn || s.rq == NULL || s.cq == NULL)
		return false;
	if (qp->resp.have_rwqe && qp->rq != s.rq)
		return false; /* a message continues in another SRQ */
	qp->rq = s.rq;
	qp->rcq = s.cq;
	qp->srqn = pkt->xrc_srqn;
	qp->pdn = s.pdn;
	return true;
}

/* An ACK owed for the request pkt, whose message is done or asked for
 * one: held by this poll where ACKs are held and none was owed before. */
static inline void
ack_owe(struct dpv_eqp *qp, const struct dpv_epkt *pkt)
{
	if (!qp->resp.ack.pending && qp->e->ack_hold) {
		qp->resp.ack_hold_seq = qp->e->poll_seq;
		qp->resp.ack_hold_at = qp->e->now;
		/* held longer if requests of ours await their ACK
		 * (run_pass) */
		qp->resp.ack_hold_req = qp->s_tail != qp->s_cur;
	}
	dpv_ack_note(&qp->resp.ack, pkt->psn, qp->resp.msn);
}

/*
 * The two commonest requests without the state machine below: an RC
 * SEND ONLY or RDMA WRITE ONLY (no immediate, no invalidate) that carries
 * the PSN expected, between two messages, and fits. Each takes the steps
 * the state machine would, in its order, and answers a refused receive
 * WQE or key as it would. false: not such a request, or one the state
 * machine must finish (no receive WQE, a payload longer than the WQE, a
 * key of another kind); nothing it does then has changed yet.
 */
static bool
resp_fast(struct dpv_eqp *qp, struct dpv_epkt *pkt)
{
	struct dpv_erwqe *r = &qp->resp.rwqe;
	void *host = NULL;
	int rc;

	if (qp->type != IBV_QPT_RC || pkt->psn != qp->resp.epsn ||
	    qp->resp.cur_op != 0 || pkt->paylen > qp->mtu)
		return false;
	if (pkt->opcode == DPV_ROCE_OP_SEND_ONLY) {
		if (unlikely(qp->has_srq) && dpv_eqp_tm(qp) != NULL)
			return false; /* tag matching: the state machine */
		rc = get_rwqe(qp);
		if (rc == -1)
			return false; /* RNR NAK */
		qp->resp.nak_sent = false;
		if (rc == -2) {
			complete_plain(qp, IBV_WC_LOC_PROT_ERR, IBV_WC_RECV, 0,
				       0, 0, 0);
			fatal_nak(qp, AETH_NAK | AETH_NAK_REM_OP, pkt->psn);
			return true;
		}
		/* too long for the WQE, taken (have_rwqe): the state
		 * machine completes it in error */
		if (qp->resp.rcv_off + pkt->paylen > r->wr.total_len)
			return false;
		if (dpv_scat_resp(qp, pkt->flags, pkt->paylen))
			place_cqe(qp, pkt->payload, pkt->paylen);
		else
			place(qp, pkt->payload, pkt->paylen);
		qp->resp.epsn = dpv_psn_add(pkt->psn, 1);
		qp->resp.msn++;
		complete_plain(qp, IBV_WC_SUCCESS, IBV_WC_RECV,
			       (uint32_t)qp->resp.rcv_off, pkt->imm_be, 0,
			       solicited_flag(pkt));
	} else if (pkt->opcode == DPV_ROCE_OP_WRITE_ONLY) {
		if (!(qp->access & IBV_ACCESS_REMOTE_WRITE) ||
		    pkt->paylen == 0 || pkt->dmalen != pkt->paylen)
			return false;
		if (dpv_engine_key_access_ind(qp->e, qp, pkt->rkey, pkt->va,
					      pkt->dmalen,
					      IBV_ACCESS_REMOTE_WRITE,
					      &host) != DPV_KEY_OK) {
			qp->resp.nak_sent = false;
			fatal_nak(qp, AETH_NAK | AETH_NAK_REM_ACCESS,
				  pkt->psn);
			return true;
		}
		if (unlikely(host == DPV_KEY_HOST_INDIRECT))
			return false; /* placed through the key, there */
		qp->resp.nak_sent = false;
		dpv_engine_land(host, pkt->payload, pkt->paylen);
		qp->resp.wr_left = 0;
		qp->resp.wr_len = pkt->dmalen;
		qp->resp.epsn = dpv_psn_add(pkt->psn, 1);
		qp->resp.msn++;
	} else {
		return false;
	}
	if (pkt->ackreq)
		ack_owe(qp, pkt);
	return true;
}

void
dpv_engine_responder(struct dpv_eqp *qp, struct dpv_epkt *pkt)
{
	enum resp_state state = RESP_CHECK_PSN;
	bool rc = eqp_reliable(qp);
	uint32_t fl = pkt->flags;
	uint32_t need = 0;
	void *host = NULL;
	int r;

	qp->resp_seen = true;
	if (qp->type == IBV_QPT_UD) {
		ud_receive(qp, pkt);
		return;
	}
	if (resp_fast(qp, pkt))
		return;
	/* the transport of the opcode must be the QP's */
	if (qp->type == IBV_QPT_XRC_SEND)
		return;
	if ((pkt->opcode & 0xe0) != eqp_tr(qp))
		return;
	if (qp->type == IBV_QPT_XRC_RECV && !xrc_select_srq(qp, pkt)) {
		ENGINE_LOG(DEBUG, "qp %u: XRC SRQ %u not usable", qp->qpn,
			   pkt->xrc_srqn);
		state = dpv_psn_cmp(pkt->psn, qp->resp.epsn) == 0 ? RESP_NAK_INV
								  : RESP_DONE;
	}
	for (;;) {
		ENGINE_LOG(DEBUG, "qp %u resp %s op 0x%02x psn %u", qp->qpn,
			   resp_state_name[state], pkt->opcode, pkt->psn);
		switch (state) {
		case RESP_CHECK_PSN: {
			int32_t d = dpv_psn_cmp(pkt->psn, qp->resp.epsn);

			if (!rc) {
				/* UC: resynchronise on the first packet of a
				 * message, drop the rest of a broken one */
				if (d != 0 || qp->resp.drop_msg) {
					if (!(fl & DPV_OPF_FIRST)) {
						qp->resp.drop_msg = true;
						qp->resp.epsn = dpv_psn_add(
							pkt->psn, 1);
						state = RESP_DROP;
						break;
					}
					qp->resp.drop_msg = false;
					qp->resp.rcv_off = 0;
					qp->resp.wr_left = 0;
					qp->resp.cur_op = 0;
					qp->resp.epsn = pkt->psn;
				}
				state = RESP_CHECK_OP;
				break;
			}
			if (d > 0) {
				state = RESP_NAK_SEQ;
				break;
			}
			if (d < 0) {
				state = RESP_DUPLICATE;
				break;
			}
			qp->resp.nak_sent = false;
			state = RESP_CHECK_OP;
			break;
		}
		case RESP_CHECK_OP: {
			uint8_t kind = (fl & DPV_OPF_SEND)    ? 1
				       : (fl & DPV_OPF_WRITE) ? 2
							      : 0;

			/* FIRST/ONLY may not interrupt a message; MIDDLE/LAST
			 * must continue one of the same kind */
			if ((fl & DPV_OPF_FIRST)
				    ? qp->resp.cur_op != 0
				    : qp->resp.cur_op != kind || !kind) {
				if (!rc)
					qp->resp.drop_msg = true;
				state = rc ? RESP_NAK_INV : RESP_DROP;
				break;
			}
			if (unlikely(dpv_engine_len_bad(fl, pkt->paylen,
							qp->mtu))) {
				DPV_EQP_COUNT(qp, rx_drop_len);
				if (!rc)
					qp->resp.drop_msg = true;
				state = rc ? RESP_NAK_INV : RESP_DROP;
				break;
			}
			/* ATOMIC WRITE: exactly its 8 bytes (IBA oA19-28),
			 * with the permission a WRITE needs */
			if (unlikely(dpv_roce_op_atomic_write(fl)) &&
			    (pkt->paylen != 8 || pkt->dmalen != 8)) {
				DPV_EQP_COUNT(qp, rx_drop_len);
				state = RESP_NAK_INV;
				break;
			}
			if (fl & DPV_OPF_WRITE)
				need = IBV_ACCESS_REMOTE_WRITE;
			else if (fl & DPV_OPF_READ)
				need = IBV_ACCESS_REMOTE_READ;
			else if (fl & DPV_OPF_ATOMIC)
				need = dpv_roce_op_atomic_write(fl)
					       ? IBV_ACCESS_REMOTE_WRITE
					       : IBV_ACCESS_REMOTE_ATOMIC;
			if (need && !(qp->access & need)) {
				state = rc ? RESP_NAK_INV : RESP_DROP;
				break;
			}
			state = RESP_CHECK_RESOURCE;
			break;
		}
		case RESP_CHECK_RESOURCE:
			if ((fl & DPV_OPF_SEND) ||
			    ((fl & DPV_OPF_IMMDT) && (fl & DPV_OPF_WRITE))) {
				r = unlikely(qp->has_srq) &&
						    dpv_eqp_tm(qp) != NULL &&
						    (fl & DPV_OPF_SEND)
					    ? get_rwqe_tm(qp, pkt)
					    : get_rwqe(qp);
				if (r == -1) {
					state = rc ? RESP_RNR : RESP_DROP;
					if (!rc)
						qp->resp.drop_msg = true;
					break;
				}
				if (r == -2) {
					complete_recv(qp, IBV_WC_LOC_PROT_ERR,
						      IBV_WC_RECV, 0, 0, 0, 0);
					state = rc ? RESP_NAK_OP : RESP_DROP;
					break;
				}
			}
			/* no responder resources: READ/atomic not accepted */
			if ((fl & (DPV_OPF_READ | DPV_OPF_ATOMIC)) &&
			    res_size(qp) == 0) {
				ENGINE_LOG(DEBUG,
					   "qp %u: READ/atomic with "
					   "max_dest_rd_atomic 0",
					   qp->qpn);
				state = RESP_NAK_INV;
				break;
			}
			state = RESP_CHECK_RKEY;
			break;
		case RESP_CHECK_RKEY:
			if ((fl & DPV_OPF_ATOMIC) && (pkt->va & 7)) {
				state = RESP_NAK_INV;
				break;
			}
			if (fl & (DPV_OPF_RETH | DPV_OPF_ATMETH)) {
				if (dpv_engine_key_access_ind(
					    qp->e, qp, pkt->rkey, pkt->va,
					    pkt->dmalen, need, &host) !=
				    DPV_KEY_OK) {
					state = rc ? RESP_NAK_ACCESS
						   : RESP_DROP;
					if (!rc)
						qp->resp.drop_msg = true;
					break;
				}
				if (fl & DPV_OPF_WRITE) {
					qp->resp.wr_host = host;
					qp->resp.wr_key = pkt->rkey;
					qp->resp.wr_va = pkt->va;
					qp->resp.wr_left = pkt->dmalen;
					qp->resp.wr_len = pkt->dmalen;
				}
			}
			state = RESP_EXECUTE;
			break;
		case RESP_EXECUTE:
			if (fl & DPV_OPF_SEND) {
				if ((unlikely(qp->has_srq) &&
						     qp->tm_kind !=
							     DPV_TM_MSG_NONE
					     ? dpv_engine_tm_place(qp,
								   pkt->payload,
								   pkt->paylen)
				     : dpv_scat_resp(qp, fl, pkt->paylen)
					     ? place_cqe(qp, pkt->payload,
							 pkt->paylen)
					     : place(qp, pkt->payload,
						     pkt->paylen)) != 0) {
					complete_recv(qp, IBV_WC_LOC_LEN_ERR,
						      IBV_WC_RECV, 0, 0, 0, 0);
					state = rc ? RESP_NAK_INV : RESP_DROP;
					break;
				}
			} else if (fl & DPV_OPF_WRITE) {
				if (pkt->paylen > qp->resp.wr_left ||
				    ((fl & DPV_OPF_LAST) &&
				     pkt->paylen != qp->resp.wr_left)) {
					qp->resp.wr_left = 0;
					state = rc ? RESP_NAK_INV : RESP_DROP;
					break;
				}
				/* a zero-length WRITE has no address */
				if (pkt->paylen != 0 &&
				    write_place(qp, pkt) != 0) {
					qp->resp.wr_left = 0;
					state = rc ? RESP_NAK_ACCESS : RESP_DROP;
					break;
				}
				qp->resp.wr_left -= pkt->paylen;
			} else if (fl & DPV_OPF_READ) {
				read_answer(qp, pkt, 1, pkt->dmalen, host);
				state = RESP_DONE;
				break;
			} else if (dpv_roce_op_atomic_write(fl)) {
				if (!atomic_write_exec(qp, pkt, host)) {
					state = RESP_NAK_ACCESS;
					break;
				}
				state = RESP_DONE;
				break;
			} else if (fl & DPV_OPF_ATOMIC) {
				uint64_t *p = NULL;
				struct dpv_eres *rs;

				/* held behind owed READ responses, it runs
				 * in its turn: a READ before it never
				 * returns what it wrote */
				if (!qp->resp.out_pend &&
				    (p = dpv_engine_key_atomic(
					     qp, pkt->rkey, pkt->va, host)) ==
					    NULL) {
					state = RESP_NAK_ACCESS;
					break;
				}
				rs = res_new(qp);
				rs->kind = 2;
				rs->op = pkt->opcode & 0x1f;
				rs->first = rs->last = pkt->psn;
				rs->rkey = pkt->rkey;
				rs->va = pkt->va;
				rs->orig = pkt->compare;
				rs->swap = pkt->swap_add;
				rs->msn = ++qp->resp.msn;
				qp->resp.epsn = dpv_psn_add(pkt->psn, 1);
				qp->resp.ack.pending = false;
				if (p == NULL) {
					DPV_EQP_COUNT(qp, rd_resp_waits);
					res_owe(qp, rs);
				} else {
					atomic_exec(rs, p);
					atomic_ack(qp, pkt->psn, rs->msn,
						   rs->orig);
				}
				state = RESP_DONE;
				break;
			}
			qp->resp.epsn = dpv_psn_add(pkt->psn, 1);
			qp->resp.cur_op = (fl & DPV_OPF_LAST)	? 0
					  : (fl & DPV_OPF_SEND) ? 1
								: 2;
			state = (fl & DPV_OPF_LAST) ? RESP_COMPLETE : RESP_ACK;
			break;
		case RESP_COMPLETE:
			qp->resp.msn++;
			if (fl & DPV_OPF_SEND) {
				unsigned flags = 0;

				if (fl & DPV_OPF_IMMDT)
					flags |= IBV_WC_WITH_IMM;
				if ((fl & DPV_OPF_IETH) &&
				    dpv_engine_key_invalidate(
					    qp->e, pkt->ieth_rkey, qp->pdn,
					    qp->qpn, true) != 0) {
					/* a key that may not be invalidated
					 * (none, an MR, a window of another
					 * QP): an error on both sides, the
					 * key unchanged (IBA class J; rxe
					 * completes REM_INV_REQ_ERR too) */
					qp->e->st.key_errors++;
					complete_recv(qp, IBV_WC_REM_INV_REQ_ERR,
						      IBV_WC_RECV, 0, 0, 0, 0);
					state = RESP_NAK_INV;
					break;
				}
				if (fl & DPV_OPF_IETH)
					flags |= IBV_WC_WITH_INV;
				complete_recv(qp, IBV_WC_SUCCESS, IBV_WC_RECV,
					      (uint32_t)qp->resp.rcv_off,
					      (fl & DPV_OPF_IETH)
						      ? pkt->ieth_rkey
						      : pkt->imm_be,
					      0, flags | solicited_flag(pkt));
			} else if (fl & DPV_OPF_IMMDT) {
				complete_recv(qp, IBV_WC_SUCCESS,
					      IBV_WC_RECV_RDMA_WITH_IMM,
					      qp->resp.wr_len, pkt->imm_be, 0,
					      IBV_WC_WITH_IMM |
						      solicited_flag(pkt));
			}
			state = RESP_ACK;
			break;
		case RESP_ACK:
			/* what asks, as rxe and hardware answer: requesters
			 * ask where they wait (DPV_ENGINE_ACKREQ_DIV) */
			if (rc && pkt->ackreq)
				ack_owe(qp, pkt);
			state = RESP_DONE;
			break;
		case RESP_DUPLICATE:
			DPV_EQP_COUNT(qp, dup_requests);
			if (fl & DPV_OPF_READ) {
				/* a READ still held: its responses again from
				 * the duplicate's PSN (it may resume mid-way),
				 * in their turn if responses are owed */
				struct dpv_eres *rs = res_find(qp, 1, pkt->psn);

				if (rs == NULL) {
					DPV_EQP_COUNT(qp, dup_rd_atomic_dropped);
				} else if (dpv_engine_key_access_ind(
						   qp->e, qp, pkt->rkey,
						   pkt->va, pkt->dmalen,
						   IBV_ACCESS_REMOTE_READ,
						   &host) == DPV_KEY_OK) {
					if (!rs->todo ||
					    dpv_psn_cmp(pkt->psn, rs->next) < 0)
						rs->next = pkt->psn;
					read_answer_again(qp, rs);
				}
			} else if (dpv_roce_op_atomic_write(fl)) {
				/* never written again: its empty response
				 * again, or nothing (older than the ring) */
				struct dpv_eres *rs = res_find(qp, 3, pkt->psn);

				if (rs == NULL) {
					DPV_EQP_COUNT(qp,
						      dup_rd_atomic_dropped);
				} else {
					rs->next = rs->first;
					read_answer_again(qp, rs);
				}
			} else if (fl & DPV_OPF_ATOMIC) {
				/* never re-executed: the saved result or
				 * nothing (older than the ring); one still
				 * owed is answered in its turn */
				struct dpv_eres *rs = res_find(qp, 2, pkt->psn);

				if (rs == NULL) {
					DPV_EQP_COUNT(qp, dup_rd_atomic_dropped);
				} else if (!qp->resp.out_pend) {
					ack_now(qp);
					atomic_ack(qp, pkt->psn, qp->resp.msn,
						   rs->orig);
				}
			} else if (pkt->ackreq) {
				/* re-acknowledge everything received */
				dpv_ack_note(&qp->resp.ack,
					     dpv_psn_add(qp->resp.epsn,
							 DPV_ROCE_PSN_MASK),
					     qp->resp.msn);
			}
			state = RESP_DONE;
			break;
		case RESP_NAK_SEQ:
			if (!qp->resp.nak_sent) {
				qp->resp.nak_sent = true;
				DPV_EQP_COUNT(qp, seq_naks_sent);
				nak_send(qp, AETH_NAK | AETH_NAK_PSN_SEQ,
					 qp->resp.epsn);
			}
			state = RESP_DONE;
			break;
		case RESP_RNR:
			DPV_EQP_COUNT(qp, rnr_naks_sent);
			/* the rest of the message is dropped without more NAKs
			 * until the requester starts again at this PSN */
			qp->resp.nak_sent = true;
			nak_send(qp, AETH_RNR | (qp->min_rnr_timer & 0x1f),
				 pkt->psn);
			state = RESP_DONE;
			break;
		case RESP_NAK_INV:
		case RESP_NAK_ACCESS:
		case RESP_NAK_OP:
			/* what was owed is not sent: the connection ends */
			fatal_nak(qp,
				  AETH_NAK | (state == RESP_NAK_INV
						      ? AETH_NAK_INV_REQ
					      : state == RESP_NAK_ACCESS
						      ? AETH_NAK_REM_ACCESS
						      : AETH_NAK_REM_OP),
				  pkt->psn);
			state = RESP_DONE;
			break;
		case RESP_DROP:
			if (!rc)
				qp->resp.epsn = dpv_psn_add(pkt->psn, 1);
			state = RESP_DONE;
			break;
		case RESP_DONE:
			return;
		}
	}
}
