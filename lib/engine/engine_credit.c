/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * End-to-end flow control of RC (IBA 9.7.7.2).
 *
 * Responder: the ACKs of an RC QP with a receive queue of its own carry,
 * in the AETH credit field, the receive WQEs posted and not yet taken,
 * rounded down to the credit table (dpv_aeth_credit_encode()); a QP on an
 * SRQ (and an XRC target) sends "invalid" (0x1f), as rxe always does.
 *
 * Requester: each message gets a sequence number counted as the
 * responder counts its MSN (one per SEND, WRITE, READ, atomic; the first
 * is 1). An ACK with MSN m and c credits allows the messages up to m + c
 * (the limit, req.climit, which only moves forward); a message that takes
 * no receive WQE (WRITE, READ, atomic) moves the limit by one as it goes,
 * so it uses no credit. A SEND or WRITE with immediate whose number is
 * beyond the limit waits, except one: the message right after the limit
 * always goes (the probe), and its ACK, or RNR NAK, tells what the
 * responder has now. No ACK yet means no credits: the first message is a
 * probe. An ACK with the invalid code lifts the limit (req.credit_open).
 *
 * Packet-based credits (DPV_QP_OPT_CREDIT_PKT): the same in packets. The
 * numbers are PSNs: the limit is the ACK's PSN + c, a message's number is
 * its last PSN (every packet counts), the probe is a message starting at
 * most one packet beyond the limit, and a message taking no receive WQE
 * moves the limit by its packets.
 *
 * The requester's common path is one compare (engine_req.c); what is
 * beyond the limit comes here.
 */
#include "engine_int.h"
#include "mlx5_ring.h"

void
dpv_engine_credit_init(struct dpv_eqp *qp)
{
	qp->req.ssn = 1;
	qp->req.credit_open =
		qp->type != IBV_QPT_RC && qp->type != IBV_QPT_XRC_SEND;
	qp->req.credit_stall = false;
	if (qp->req.credit_open) {
		qp->req.climit = eqp_credit_far(qp);
	} else {
		/* as if an ACK of the message (packet) before the first one
		 * had said 0 credits */
		qp->req.climit =
			dpv_psn_add(eqp_credit_pkt(qp) ? qp->req.psn
						       : qp->req.ssn,
				    DPV_ROCE_PSN_MASK);
	}
	qp->req.probe_cseq = qp->req.climit; /* no message has it */
}

/*
 * Message w (its cseq beyond req.climit) is about to start: true if it
 * must wait for credits, false if it goes (it takes no receive WQE, is
 * already partly sent, is the probe, or the peer sends no credits).
 */
bool
dpv_engine_credit_wait(struct dpv_eqp *qp, const struct dpv_eswqe *w)
{
	uint32_t start;

	if (qp->req.credit_open) {
		qp->req.climit = eqp_credit_far(qp);
		return false;
	}
	if (w->sent > 0 || !wr_takes_rwqe(w->wr.opcode))
		return false;
	start = eqp_credit_pkt(qp) ? w->first_psn : w->cseq;
	if (dpv_psn_cmp(start, qp->req.climit) <= 1) {
		if (qp->req.probe_cseq != w->cseq) {
			qp->req.probe_cseq = w->cseq;
			DPV_EQP_COUNT_HOT(qp, credit_probes);
		}
		return false;
	}
	if (!qp->req.credit_stall) {
		qp->req.credit_stall = true;
		DPV_EQP_COUNT(qp, credit_stalls);
	}
	return true;
}

/* Responder: the credit field of the next ACK. */
uint8_t
dpv_engine_credit_adv(const struct dpv_eqp *qp)
{
	if (qp->type != IBV_QPT_RC || qp->has_srq || qp->rq == NULL)
		return AETH_CREDIT_INVALID;
	return dpv_aeth_credit_encode(dpv_mlx5_rq_ready(qp->rq));
}
