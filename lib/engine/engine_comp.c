/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Completer: ACKs, NAKs, READ responses and atomic ACKs -> WQE states ->
 * CQEs in order. Go-back-N retransmission on timeout or PSN sequence NAK
 * (retry_cnt), RNR waits (rnr_retry, 7 = forever), error completions that
 * move the QP to ERR and flush it.
 */
#include <string.h>

#include "dpv_port.h"
#include "engine_int.h"
#include "mlx5_ring.h"

#define COMP_STATES(X)                                                         \
	X(COMP_GET_WQE)                                                        \
	X(COMP_CHECK_PSN)                                                      \
	X(COMP_CHECK_ACK)                                                      \
	X(COMP_READ)                                                           \
	X(COMP_ATOMIC)                                                         \
	X(COMP_ACK_WQE)                                                        \
	X(COMP_LOST)                                                           \
	X(COMP_RETRY)                                                          \
	X(COMP_RNR)                                                            \
	X(COMP_ERROR)                                                          \
	X(COMP_DONE)

enum comp_state {
#define X(s) s,
	COMP_STATES(X)
#undef X
};

static const char *const comp_state_name[] = {
#define X(s) #s,
	COMP_STATES(X)
#undef X
};

static enum ibv_wc_opcode
wc_opcode(enum ibv_wr_opcode op)
{
	switch (op) {
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		return IBV_WC_RDMA_WRITE;
	case IBV_WR_RDMA_READ:
		return IBV_WC_RDMA_READ;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
		return IBV_WC_COMP_SWAP;
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		return IBV_WC_FETCH_ADD;
	case IBV_WR_ATOMIC_WRITE:
		return IBV_WC_ATOMIC_WRITE;
	case IBV_WR_LOCAL_INV:
		return IBV_WC_LOCAL_INV;
	case IBV_WR_BIND_MW:
		return IBV_WC_BIND_MW;
	case IBV_WR_DRIVER1:
		return IBV_WC_DRIVER1; /* MLX5DV_WC_UMR */
	default:
		return IBV_WC_SEND;
	}
}

/*
 * Oldest WQE that went (partly) on the wire and is not finished: true and
 * its index (never beyond s_cur), else false and *idx = s_cur. The WQE the
 * requester is still sending counts from its first packet on: the NAKs of
 * a long message arrive while its last packets are going out.
 */
static bool
oldest_from(struct dpv_eqp *qp, uint32_t from, uint32_t *idx)
{
	uint32_t i;

	/* acknowledged WQEs before it only wait for their turn to complete */
	for (i = from; i != qp->s_cur; i++)
		if (swqe_at(qp, i)->state != SWQE_DONE)
			break;
	*idx = i;
	return i != qp->s_cur || dpv_eqp_mid_message(qp);
}

static bool
oldest_outstanding(struct dpv_eqp *qp, uint32_t *idx)
{
	return oldest_from(qp, qp->s_tail, idx);
}

static bool
any_outstanding(struct dpv_eqp *qp)
{
	for (uint32_t i = qp->s_tail; i != qp->s_head; i++) {
		struct dpv_eswqe *w = swqe_at(qp, i);

		if (w->state == SWQE_SENT ||
		    (w->state == SWQE_PENDING && w->sent > 0))
			return true;
	}
	return false;
}

/*
 * Go back to WQE index i, PSN psn (go-back-N): the requester sends again
 * from there. A SEND/WRITE resumes at the packet of psn (the responder
 * keeps the state of a message in progress); a READ is asked again for
 * the responses from psn on; everything after i is sent again whole.
 */
static void
rewind_to(struct dpv_eqp *qp, uint32_t i, uint32_t psn)
{
	struct dpv_eswqe *w = swqe_at(qp, i);
	/* from i through the WQE being sent, if it is partly on the wire */
	uint32_t end = qp->s_cur + (dpv_eqp_mid_message(qp) ? 1 : 0);
	bool resent = false;

	if (end == i)
		end = i + 1;
	for (uint32_t j = i; j != end; j++) {
		struct dpv_eswqe *x = swqe_at(qp, j);

		if (x->state == SWQE_SENT || x->state == SWQE_PENDING) {
			resent |= x->sent > 0;
			x->state = SWQE_PENDING;
			x->sent = 0;
			x->rd_skip = 0;
			x->rewound = true;
			x->resend = true;
		}
	}
	if (resent)
		DPV_EQP_COUNT(qp, retransmits);
	qp->s_cur = i;
	qp->req.rd_out = 0;
	if (w->checked) {
		int32_t k = dpv_psn_cmp(psn, w->first_psn);

		if (k > 0 && (uint32_t)k < w->npkts) {
			if (w->wr.opcode == IBV_WR_RDMA_READ)
				w->rd_skip = (uint32_t)k;
			else if (w->wr.opcode != IBV_WR_ATOMIC_CMP_AND_SWP &&
				 w->wr.opcode != IBV_WR_ATOMIC_FETCH_AND_ADD)
				w->sent = (uint32_t)k;
		} else {
			psn = w->first_psn;
		}
		qp->comp.psn = psn;
	}
	qp->comp.deadline = 0;
	qp->comp.probe = false;
	qp->comp.resend_ask = true;
}

/*
 * A response at or beyond the first PSN of the WQE the requester has not
 * sent again since it went back: left over from before (responses to the
 * old requests still arriving), not a sign of a new loss.
 */
static bool
beyond_requests(struct dpv_eqp *qp, uint32_t psn)
{
	struct dpv_eswqe *w = swqe_at(qp, qp->s_cur);

	return qp->s_cur != qp->s_head && w->checked &&
	       w->state == SWQE_PENDING && w->sent == 0 &&
	       dpv_psn_cmp(psn, w->first_psn) >= 0;
}

/* A READ or atomic completed: let more of them go out again. */
static void
rd_cap_open(struct dpv_eqp *qp)
{
	if (qp->comp.rd_cap == 0)
		return;
	if (qp->comp.rd_cap >= qp->max_rd_atomic / 2)
		qp->comp.rd_cap = 0;
	else
		qp->comp.rd_cap *= 2;
}

/* The ACK timer from now; if what is outstanding all went after the last
 * message that asked for its ACK, the ACK request probe's instead
 * (DPV_ENGINE_ACKREQ_DIV) */
static void
restart_timer(struct dpv_eqp *qp)
{
	uint32_t idx;

	qp->comp.probe = false;
	qp->comp.probe_refused = 0;
	qp->comp.deadline = 0;
	if (!any_outstanding(qp))
		return;
	if (qp->req.noreq != 0) {
		oldest_outstanding(qp, &idx);
		if (qp->s_cur - idx <= qp->req.noreq) {
			dpv_engine_probe_arm(qp);
			return;
		}
	}
	if (qp->timeout)
		qp->comp.deadline = qp->e->now + dpv_engine_ack_cycles(qp);
}

/* Scatter a READ response into the WQE's SGEs at byte offset off. */
static void
scatter(struct dpv_eqp *qp, struct dpv_eswqe *w, uint64_t off,
	const uint8_t *src, uint32_t len)
{
	if (dpv_scat_req(qp, &w->wr)) { /* into the CQE */
		if (off + len <= DPV_CQE_SCAT_MAX)
			memcpy(swqe_scat(qp, w) + off, src, len);
		return;
	}
	dpv_esge_copy(qp, w->wr.sg_list, swqe_host(qp, w), w->wr.num_sge, off,
		      (uint8_t *)(uintptr_t)src, len, true);
}

static enum ibv_wc_status
nak_status(uint8_t code)
{
	switch (code) {
	case AETH_NAK_INV_REQ:
		return IBV_WC_REM_INV_REQ_ERR;
	case AETH_NAK_REM_ACCESS:
		return IBV_WC_REM_ACCESS_ERR;
	case AETH_NAK_REM_OP:
		return IBV_WC_REM_OP_ERR;
	default:
		return IBV_WC_BAD_RESP_ERR;
	}
}

static void
nak_count(struct dpv_eqp *qp, uint8_t code)
{
	if (code == AETH_NAK_INV_REQ)
		DPV_EQP_COUNT(qp, inv_req_naks_rcvd);
	else if (code == AETH_NAK_REM_ACCESS)
		DPV_EQP_COUNT(qp, rem_access_naks_rcvd);
	else if (code == AETH_NAK_REM_OP)
		DPV_EQP_COUNT(qp, rem_op_naks_rcvd);
}

/* The QP's WQEs moved on: out of recovery, its retry and RNR counts
 * whole again, the ACK timer from now. */
static void
comp_progress(struct dpv_eqp *qp)
{
	qp->comp.recovering = false;
	qp->comp.resend_ask = false;
	qp->comp.retry_left = qp->retry_cnt;
	qp->comp.rnr_left = qp->rnr_retry;
	restart_timer(qp);
}

/*
 * A positive ACK (no READ response, no atomic ACK) that completes SEND,
 * WRITE and local WQEs in order: the state machine's steps for it in a
 * row (ACK_WQE for each WQE up to its PSN, then DONE). The WQEs are looked
 * at first and changed after, so that anything else (a READ or atomic
 * whose response the ACK shows lost, the WQE being sent, a state other
 * than SENT) goes to the state machine before anything has changed:
 * false then.
 */
static bool
comp_ack_fast(struct dpv_eqp *qp, const struct dpv_epkt *pkt)
{
	uint32_t psn = pkt->psn, end, i;
	bool progress = false;

	if (dpv_psn_cmp(psn, qp->comp.psn) < 0)
		goto done; /* a duplicate: nothing new */
	for (end = qp->s_tail; end != qp->s_cur; end++) {
		const struct dpv_eswqe *w = swqe_at(qp, end);

		if (w->state == SWQE_DONE)
			continue;
		if (w->state != SWQE_SENT)
			return false;
		if (dpv_psn_cmp(psn, w->last_psn) < 0)
			break; /* inside w: w waits on */
		if (wr_rd_atomic(w->wr.opcode)) {
			if (psn != w->last_psn)
				return false; /* its response was lost */
			break;
		}
	}
	if (end == qp->s_cur && dpv_eqp_mid_message(qp) &&
	    dpv_psn_cmp(psn, swqe_at(qp, end)->last_psn) >= 0)
		return false;
	for (i = qp->s_tail; i != end; i++) {
		struct dpv_eswqe *w = swqe_at(qp, i);

		if (w->state == SWQE_DONE)
			continue;
		w->state = SWQE_DONE;
		qp->comp.psn = dpv_psn_add(w->last_psn, 1);
		progress = true;
	}
	if (progress)
		comp_progress(qp);
done:
	dpv_engine_comp_drain(qp);
	return true;
}

void
dpv_engine_completer(struct dpv_eqp *qp, struct dpv_epkt *pkt)
{
	enum comp_state state = COMP_GET_WQE;
	struct dpv_eswqe *w = NULL;
	enum ibv_wc_status st = IBV_WC_SUCCESS;
	uint8_t type = pkt->syndrome & AETH_TYPE_MASK;
	bool progress = false;
	uint32_t idx = 0, from;

	if (qp->sq == NULL || !eqp_reliable(qp) ||
	    !(pkt->flags & DPV_OPF_RESP) || (pkt->opcode & 0xe0) != eqp_tr(qp))
		return;
	DPV_EQP_COUNT_HOT(qp, acks_rcvd);
	if ((pkt->flags & DPV_OPF_AETH) && type == AETH_ACK) {
		dpv_engine_credit_update(qp, pkt);
		if (!(pkt->flags & (DPV_OPF_READ_RESP | DPV_OPF_ATOMIC_ACK)) &&
		    comp_ack_fast(qp, pkt))
			return;
	}
	from = qp->s_tail;
	for (;;) {
		ENGINE_LOG(DEBUG, "qp %u comp %s psn %u", qp->qpn,
			   comp_state_name[state], pkt->psn);
		switch (state) {
		case COMP_GET_WQE:
			/* after an acknowledged WQE the search goes on past it
			 * (all before it are done): an ACK that covers n WQEs
			 * looks at each once, not n^2 / 2 times */
			if (!oldest_from(qp, from, &idx)) {
				state = COMP_DONE; /* nothing waits: stale */
				break;
			}
			w = swqe_at(qp, idx);
			state = COMP_CHECK_PSN;
			break;
		case COMP_CHECK_PSN:
			/* responses older than what we wait for are duplicates
			 */
			if (dpv_psn_cmp(pkt->psn, qp->comp.psn) < 0) {
				state = COMP_DONE;
				break;
			}
			/* a response beyond w: w's own response was lost (READ,
			 * atomic) or w is implicitly acknowledged (SEND, WRITE)
			 */
			if (dpv_psn_cmp(pkt->psn, w->last_psn) > 0) {
				state = wr_rd_atomic(w->wr.opcode)
						? COMP_LOST
						: COMP_ACK_WQE;
				break;
			}
			state = COMP_CHECK_ACK;
			break;
		case COMP_ACK_WQE:
			w->state = SWQE_DONE;
			/* (the WQE being sent, idx == s_cur, stays the start) */
			from = idx != qp->s_cur ? idx + 1 : idx;
			qp->comp.psn = dpv_psn_add(w->last_psn, 1);
			progress = true;
			state = COMP_GET_WQE;
			break;
		case COMP_CHECK_ACK:
			/* the packet's PSN is inside w */
			if (pkt->flags & DPV_OPF_READ_RESP) {
				/* an ATOMIC WRITE's answer is an empty READ
				 * response */
				state = w->wr.opcode == IBV_WR_RDMA_READ ||
							w->wr.opcode ==
								IBV_WR_ATOMIC_WRITE
						? COMP_READ
						: COMP_DONE;
				break;
			}
			if (pkt->flags & DPV_OPF_ATOMIC_ACK) {
				state = (w->wr.opcode ==
						 IBV_WR_ATOMIC_CMP_AND_SWP ||
					 w->wr.opcode ==
						 IBV_WR_ATOMIC_FETCH_AND_ADD)
						? COMP_ATOMIC
						: COMP_DONE;
				break;
			}
			if (type == AETH_ACK) {
				/* ACK of the last packet of a SEND/WRITE; an
				 * ACK in the middle, or of a READ, tells
				 * nothing new */
				state = !wr_rd_atomic(w->wr.opcode) &&
							pkt->psn == w->last_psn
						? COMP_ACK_WQE
						: COMP_DONE;
				break;
			}
			if (type == AETH_RNR) {
				state = COMP_RNR;
				break;
			}
			if (type == AETH_NAK &&
			    (pkt->syndrome & 0x1f) == AETH_NAK_PSN_SEQ) {
				DPV_EQP_COUNT(qp, seq_naks_rcvd);
				state = COMP_RETRY;
				break;
			}
			st = nak_status(pkt->syndrome & 0x1f);
			nak_count(qp, pkt->syndrome & 0x1f);
			state = COMP_ERROR;
			break;
		case COMP_READ: {
			uint32_t k =
				(uint32_t)dpv_psn_cmp(pkt->psn, w->first_psn);
			uint64_t off = (uint64_t)k * qp->mtu;
			uint64_t want;

			if (pkt->psn != qp->comp.psn || k >= w->npkts) {
				state = COMP_LOST; /* out of order */
				break;
			}
			want = w->wr.opcode == IBV_WR_ATOMIC_WRITE
				       ? 0
				       : RTE_MIN((uint64_t)qp->mtu,
						 w->wr.total_len - off);
			if (pkt->paylen != want) {
				st = IBV_WC_BAD_RESP_ERR;
				state = COMP_ERROR;
				break;
			}
			if (pkt->paylen != 0)
				scatter(qp, w, off, pkt->payload, pkt->paylen);
			qp->comp.psn = dpv_psn_add(pkt->psn, 1);
			progress = true;
			if (pkt->psn == w->last_psn) {
				w->state = SWQE_DONE;
				rd_cap_open(qp);
			}
			state = COMP_DONE;
			break;
		}
		case COMP_ATOMIC: {
			uint64_t v = pkt->orig;

			if (pkt->psn != w->first_psn) {
				state = COMP_LOST;
				break;
			}
			if (dpv_scat_req(qp, &w->wr))
				memcpy(swqe_scat(qp, w), &v,
				       sizeof(v)); /* into the CQE */
			else /* the local SGE may be an indirect key's */
				dpv_esge_copy(qp, w->wr.sg_list,
					      swqe_host(qp, w), w->wr.num_sge,
					      0, (uint8_t *)&v, sizeof(v),
					      true);
			w->state = SWQE_DONE;
			rd_cap_open(qp);
			qp->comp.psn = dpv_psn_add(pkt->psn, 1);
			progress = true;
			state = COMP_DONE;
			break;
		}
		case COMP_LOST:
			/* a response is missing: go back once; the rest of the
			 * old response stream still arriving is ignored until
			 * progress or the ACK timer, and so is whatever answers
			 * requests not sent again yet. READs and atomics go out
			 * again one at a time first (then 2, 4, ...): every
			 * request sent again brings all its responses again,
			 * and left-over responses must not set off a storm of
			 * re-requests */
			if (qp->comp.recovering ||
			    beyond_requests(qp, pkt->psn)) {
				state = COMP_DONE;
				break;
			}
			qp->comp.recovering = true;
			qp->comp.rd_cap = 1;
			state = COMP_RETRY;
			break;
		case COMP_RETRY:
			if (w->state == SWQE_PENDING && w->rewound) {
				state = COMP_DONE; /* already going again */
				break;
			}
			/* a NAK past the PSN we waited for acknowledges the
			 * packets before it: forward progress */
			if (type == AETH_NAK && (pkt->flags & DPV_OPF_ACK) &&
			    dpv_psn_cmp(pkt->psn, qp->comp.psn) > 0)
				qp->comp.retry_left = qp->retry_cnt;
			if (qp->comp.retry_left == 0) {
				st = IBV_WC_RETRY_EXC_ERR;
				state = COMP_ERROR;
				break;
			}
			qp->comp.retry_left--;
			/* a NAK names the PSN to resume at; a lost response
			 * is asked for again from the next one expected */
			rewind_to(qp, idx,
				  type == AETH_NAK && (pkt->flags & DPV_OPF_ACK)
					  ? pkt->psn
					  : qp->comp.psn);
			state = COMP_DONE;
			break;
		case COMP_RNR:
			DPV_EQP_COUNT(qp, rnr_naks_rcvd);
			if (qp->comp.rnr_left == 0) {
				st = IBV_WC_RNR_RETRY_EXC_ERR;
				state = COMP_ERROR;
				break;
			}
			if (qp->rnr_retry != 7)
				qp->comp.rnr_left--;
			rewind_to(qp, idx, pkt->psn);
			qp->comp.rnr_until = qp->e->now +
					     (uint64_t)dpv_rnr_timer_us(
						     pkt->syndrome & 0x1f) *
						     qp->e->hz / 1000000ull;
			if (qp->comp.rnr_until == 0)
				qp->comp.rnr_until = 1;
			state = COMP_DONE;
			break;
		case COMP_ERROR:
			w->state = SWQE_ERROR;
			w->status = st;
			/* nothing after it is sent any more */
			qp->s_cur = idx + 1;
			state = COMP_DONE;
			break;
		case COMP_DONE:
			if (progress)
				comp_progress(qp);
			dpv_engine_comp_drain(qp);
			return;
		}
	}
}

/* How long ACK timeouts whose retransmission the port never took keep
 * the QP's retries (comp_port_stalled()) */
#define COMP_STALL_GRACE_MS 1000

/*
 * The retransmission the last ACK timeout asked for (WQE idx, rewound)
 * has not left, and the engine's last flush left frames the port would
 * not take (a memif ring the peer does not drain) while the link is up.
 * No answer can be missed that was never sent, so for
 * COMP_STALL_GRACE_MS such a timeout only starts the timer again; later
 * ones take retries as any (a peer that stopped for good, its link still
 * up: RETRY_EXC). A live peer starved of CPU for a while no longer ends
 * its connections.
 */
static bool
comp_port_stalled(struct dpv_eqp *qp, uint32_t idx, uint64_t now)
{
	struct dpv_engine *e = qp->e;
	struct dpv_port_info pi;

	if (idx == qp->s_head || !swqe_at(qp, idx)->rewound || !e->tx_refused ||
	    (e->port != NULL &&
	     (dpv_port_query(e->port, &pi) != 0 || !pi.link_up))) {
		qp->comp_stall_at = 0;
		return false;
	}
	/* a row of such timeouts ends at one that is not (above) or at an
	 * ACK between two (no store on the ACK's path: its PSN tells) */
	if (qp->comp_stall_at == 0 || qp->comp.psn != qp->comp_stall_psn) {
		qp->comp_stall_at = now;
		qp->comp_stall_psn = qp->comp.psn;
	}
	DPV_EQP_COUNT(qp, tx_stall_timeouts);
	return now - qp->comp_stall_at < e->hz / 1000 * COMP_STALL_GRACE_MS;
}

/* Retransmission timer, expired (dpv_engine_comp_timers()). */
void
dpv_engine_comp_timeout(struct dpv_eqp *qp, uint64_t now)
{
	uint32_t idx;

	qp->comp.deadline = 0;
	if (qp->comp.probe) {
		/* the tail that did not ask for its ACK asks now; the
		 * retransmission timer from now (send_packet() sets it when
		 * the probe goes) */
		int r;

		qp->comp.probe = false;
		r = dpv_engine_req_probe(qp);
		if (r > 0) {
			qp->comp.probe_refused = 0;
		} else if (r == -EAGAIN && any_outstanding(qp) &&
			   (qp->comp.probe_refused < DPV_ENGINE_PROBE_REFUSED ||
			    qp->timeout == 0)) {
			/* the port had no room: the probe again shortly,
			 * not the tail left to the full ACK timeout (and
			 * with no ACK timer, timeout 0, for as long as it
			 * takes: nothing else would ask) */
			if (qp->comp.probe_refused < DPV_ENGINE_PROBE_REFUSED)
				qp->comp.probe_refused++;
			DPV_EQP_COUNT(qp, probes_refused);
			dpv_engine_probe_arm(qp);
			return;
		}
		if (qp->comp.deadline == 0 && qp->timeout &&
		    any_outstanding(qp))
			qp->comp.deadline = now + dpv_engine_ack_cycles(qp);
		return;
	}
	/* nothing sent and unacknowledged; but a retransmission the port did
	 * not take yet still waits for its answer */
	if (!oldest_outstanding(qp, &idx) &&
	    (idx == qp->s_head || !swqe_at(qp, idx)->rewound))
		return;
	if (comp_port_stalled(qp, idx, now)) {
		qp->comp.deadline = now + dpv_engine_ack_cycles(qp);
		return;
	}
	ENGINE_LOG(DEBUG, "qp %u: ACK timeout, psn %u", qp->qpn, qp->comp.psn);
	if (qp->comp.retry_left == 0) {
		struct dpv_eswqe *w = swqe_at(qp, idx);

		w->state = SWQE_ERROR;
		w->status = IBV_WC_RETRY_EXC_ERR;
		qp->s_cur = idx + 1;
		dpv_engine_comp_drain(qp);
		return;
	}
	qp->comp.retry_left--;
	qp->comp.recovering = true;
	rewind_to(qp, idx, qp->comp.psn);
	/* the timer runs on whether or not the port takes the retransmission
	 * (a dead peer's link refuses every frame): retry_cnt is consumed,
	 * after a grace while the link is up (comp_port_stalled()) */
	qp->comp.deadline = now + dpv_engine_ack_cycles(qp);
}

/* The oldest WQE, completed, leaves: its READ/atomic credit and its slot
 * are free. */
static __rte_always_inline void
swqe_free(struct dpv_eqp *qp, struct dpv_eswqe *w)
{
	if (wr_rd_atomic(w->wr.opcode) && qp->req.rd_out > 0 && w->sent > 0)
		qp->req.rd_out--;
	w->state = SWQE_FREE;
	qp->s_tail++;
}

/* A request of the engine's own (tag matching rendezvous) done: no CQE,
 * nothing retired in the ring; its slot is free before the engine's next
 * step (a FIN after a READ) takes one. An error ends the QP as any. */
static void
comp_internal(struct dpv_eqp *qp, struct dpv_eswqe *w, bool err)
{
	uint32_t h = w->wr.wqe_index;
	bool read = w->wr.opcode == IBV_WR_RDMA_READ;
	enum ibv_wc_status st =
		err ? (enum ibv_wc_status)w->status : IBV_WC_SUCCESS;

	swqe_free(qp, w);
	dpv_engine_tm_wr_done(qp, h, read, st);
	if (err)
		dpv_engine_qp_send_error(qp);
}

/* dpv_engine_comp_drain()'s loop */
void
dpv_engine_comp_drain_out(struct dpv_eqp *qp)
{
	while (qp->s_tail != qp->s_cur) {
		struct dpv_eswqe *w = swqe_at(qp, qp->s_tail);
		bool err = w->state == SWQE_ERROR;

		if (w->state != SWQE_DONE && !err)
			break;
		if (unlikely(w->wr.flags & DPV_WR_F_INTERNAL)) {
			comp_internal(qp, w, err);
			if (err)
				return;
			continue;
		}
		if (err || qp->sq_sig_all ||
		    (w->wr.flags & DPV_WR_F_SIGNALED)) {
			uint32_t len = (uint32_t)w->wr.total_len;

			if (w->wr.opcode == IBV_WR_ATOMIC_CMP_AND_SWP ||
			    w->wr.opcode == IBV_WR_ATOMIC_FETCH_AND_ADD)
				len = 8;
			if (!err && dpv_scat_req(qp, &w->wr)) {
				qp->cqe_scat = swqe_scat(qp, w);
				qp->cqe_scat_len = (uint8_t)len;
			}
			dpv_engine_cqe(qp, false, w->wr.wqe_index,
				       err ? (enum ibv_wc_status)w->status
					   : IBV_WC_SUCCESS,
				       wc_opcode(w->wr.opcode), len, 0, 0, 0);
		}
		dpv_mlx5_sq_retire(qp->sq, &w->wr);
		swqe_free(qp, w);
		if (err && w->stream_err) {
			/* DCI streams: the stream's error, not the QP's */
			w->stream_err = false;
		} else if (err) {
			ENGINE_LOG(DEBUG, "qp %u: error completion, status %u",
				   qp->qpn, w->status);
			dpv_engine_qp_send_error(qp);
			return;
		}
	}
}

/* Flush CQEs fire an armed CQ's completion event like any other CQE. */
static void
flush_ring(struct dpv_eqp *qp, struct dpv_mlx5_wq *wq, struct dpv_mlx5_cq *cq)
{
	bool shared = dpv_ring_cq_lock(cq);

	if (dpv_ring_flush(wq, cq, qp->qpn) > 0)
		dpv_engine_cq_notify(qp->e, cq);
	dpv_ring_cq_unlock(cq, shared);
}

/* QP in SQE or ERR: every outstanding send WQE completes with
 * IBV_WC_WR_FLUSH_ERR. */
void
dpv_engine_sq_flush_send(struct dpv_eqp *qp)
{
	if (qp->sq == NULL)
		return;
	flush_ring(qp, &qp->sq->wq, qp->scq);
	/* the engine's own requests: their tags complete in error */
	if (unlikely(qp->has_srq) && dpv_eqp_tm(qp) != NULL) {
		for (uint32_t i = qp->s_tail; i != qp->s_head; i++) {
			struct dpv_eswqe *w = swqe_at(qp, i);

			if (w->wr.flags & DPV_WR_F_INTERNAL)
				dpv_engine_tm_wr_done(qp, w->wr.wqe_index,
						      w->wr.opcode ==
							      IBV_WR_RDMA_READ,
						      IBV_WC_WR_FLUSH_ERR);
		}
	}
	qp->s_tail = qp->s_cur = qp->s_head;
	qp->req.rd_out = 0;
	qp->comp.deadline = 0;
	qp->comp.rnr_until = 0;
}

/* QP in ERR: every outstanding WQE completes with IBV_WC_WR_FLUSH_ERR. */
void
dpv_engine_sq_flush(struct dpv_eqp *qp)
{
	dpv_engine_sq_flush_send(qp);
	if (qp->rq != NULL) {
		if (!qp->has_srq) {
			flush_ring(qp, &qp->rq->wq, qp->rcq);
		} else if (qp->resp.have_rwqe &&
			   qp->tm_kind != DPV_TM_MSG_NONE) {
			dpv_engine_tm_recv_done(qp, IBV_WC_WR_FLUSH_ERR, 0, 0,
						0);
		} else if (qp->resp.have_rwqe) {
			dpv_engine_cqe(qp, true, qp->resp.rwqe.wr.wqe_index,
				       IBV_WC_WR_FLUSH_ERR, IBV_WC_RECV, 0, 0,
				       0, 0);
		}
		qp->resp.have_rwqe = false;
	}
}
