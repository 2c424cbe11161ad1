/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Dynamically Connected transport (mlx5dv DCI / DCT), in dpverbs' own wire
 * format (doc/guides/dc.rst): DC opcodes are the RC operations in the
 * manufacturer-specific transport 0xe0; requests carry a DCETH (access
 * key, source DCI, first PSN of the connection).
 *
 * DCI: an RC requester whose destination comes with each WQE. It has one
 * current connection; a WQE for another target waits until every WQE
 * before it completed, then the connection switches (engine_req.c calls
 * dpv_engine_dci_target()). Its PSNs run on across connections; the
 * first PSN of a connection names it.
 *
 * DCT: an RC responder reached by its number from many DCIs. It keeps up
 * to DPV_ENGINE_DCT_MAX_INI initiator states keyed by (source address,
 * DCI number), each a whole responder state (expected PSN, MSN, READ and
 * atomic replay, the message in progress) and its reply path; the one in
 * use is loaded into qp->resp / qp->path, so engine_resp.c runs
 * unchanged. A request with another first PSN than its state's starts a
 * new connection there. A wrong key is dropped and counted, as is a
 * request in the middle of a connection whose state was evicted.
 */
#include <string.h>

#include <rte_malloc.h>

#include "engine_int.h"
#include "engine_rxcheck.h"

struct dpv_edc_ini {
	bool used;
	uint8_t gid[16]; /* initiator's address */
	uint32_t dci;	 /* its DCI number */
	uint32_t cpsn;	 /* its connection: first PSN */
	uint64_t last;	 /* TSC of its last request (LRU) */
	struct dpv_engine_path path;
	struct dpv_etmpl tmpl;
	struct dpv_eresp resp;
};

struct dpv_edct {
	int cur;       /* state loaded into the QP, -1: none */
	bool base_set; /* base holds the DCT's own path (from RTR) */
	struct dpv_engine_path base;
	struct dpv_edc_ini ini[DPV_ENGINE_DCT_MAX_INI];
};

int
dpv_engine_dc_create(struct dpv_eqp *qp, const struct dpv_engine_qp_init *init)
{
	qp->dc = init->dc_type;
	if (qp->dc == DPV_ENGINE_DC_DCI) {
		if (init->dci_streams &&
		    init->dci_log_errored > DPV_ENGINE_DCI_MAX_LOG_ERRORED)
			return -EINVAL;
		qp->dci_max_err = init->dci_streams
					  ? (uint8_t)(1u << init->dci_log_errored)
					  : 0;
		return init->sq != NULL && init->srq == NULL ? 0 : -EINVAL;
	}
	if (qp->dc != DPV_ENGINE_DC_DCT || init->sq != NULL ||
	    init->srq == NULL)
		return -EINVAL;
	qp->dc_key = init->dct_key;
	qp->dct = rte_zmalloc("dpv_dct", sizeof(*qp->dct), 0);
	if (qp->dct == NULL)
		return -ENOMEM;
	qp->dct->cur = -1;
	return 0;
}

void
dpv_engine_dc_free(struct dpv_eqp *qp)
{
	rte_free(qp->dct);
	qp->dct = NULL;
}

void
dpv_engine_dc_reset(struct dpv_eqp *qp)
{
	qp->dci_conn = false;
	qp->dci_nerr = 0;
	if (qp->dct == NULL)
		return;
	memset(qp->dct, 0, sizeof(*qp->dct));
	qp->dct->cur = -1;
}

/* Save the loaded initiator state (its owed ACK leaves first). */
static void
dct_unload(struct dpv_eqp *qp, struct dpv_edct *d)
{
	struct dpv_edc_ini *s;

	if (d->cur < 0)
		return;
	s = &d->ini[d->cur];
	/* responses the port had no room for are not kept for an
	 * initiator not loaded: its DCI retries */
	dpv_engine_resp_drop_owed(qp);
	dpv_engine_ack_flush(qp);
	s->resp = qp->resp;
	s->path = qp->path;
	s->tmpl = qp->tmpl;
	d->cur = -1;
}

static void
dct_load(struct dpv_eqp *qp, struct dpv_edct *d, int i)
{
	struct dpv_edc_ini *s = &d->ini[i];

	if (d->cur == i)
		return;
	dct_unload(qp, d);
	qp->resp = s->resp;
	qp->path = s->path;
	qp->tmpl = s->tmpl;
	qp->dest_qpn = s->dci;
	d->cur = i;
}

/*
 * A new connection in slot s: a fresh responder state at cpsn. A receive
 * WQE the slot holds (a SEND that never finished) stays for the next
 * SEND: nothing taken from the SRQ is lost.
 */
static void
dct_conn_init(struct dpv_eqp *qp, struct dpv_edct *d, struct dpv_edc_ini *s,
	      const struct dpv_epkt *pkt)
{
	bool held = s->resp.have_rwqe;
	struct dpv_erwqe rw = s->resp.rwqe;

	memset(&s->resp, 0, sizeof(s->resp));
	if (held) {
		s->resp.have_rwqe = true;
		s->resp.rwqe = rw;
	}
	s->resp.epsn = pkt->dc_cpsn;
	s->used = true;
	memcpy(s->gid, pkt->sgid, 16);
	s->dci = pkt->dc_dci;
	s->cpsn = pkt->dc_cpsn;
	/* replies go back the way the request came */
	s->path = d->base;
	memcpy(s->path.dmac, pkt->smac, 6);
	memcpy(s->path.smac, pkt->dmac, 6);
	memcpy(s->path.sgid, pkt->dgid, 16);
	memcpy(s->path.dgid, pkt->sgid, 16);
	s->path.udp_sport = pkt->udp_sport;
	dpv_engine_tmpl_set(&s->tmpl, &s->path);
	DPV_EQP_COUNT(qp, dc_connects);
}

/* The slot of the request's initiator, a new one, or -1 (dropped). */
static int
dct_slot(struct dpv_eqp *qp, struct dpv_edct *d, const struct dpv_epkt *pkt)
{
	int i, free_i = -1, lru = 0;

	for (i = 0; i < DPV_ENGINE_DCT_MAX_INI; i++) {
		struct dpv_edc_ini *s = &d->ini[i];

		if (!s->used) {
			if (free_i < 0)
				free_i = i;
			continue;
		}
		if (s->dci == pkt->dc_dci && memcmp(s->gid, pkt->sgid, 16) == 0)
			break;
		if (s->last < d->ini[lru].last || !d->ini[lru].used)
			lru = i;
	}
	if (i < DPV_ENGINE_DCT_MAX_INI) {
		if (d->ini[i].cpsn == pkt->dc_cpsn)
			return i;
		/* the DCI started another connection: its old one is over */
		if (d->cur == i)
			dct_unload(qp, d);
	} else {
		/* no state: only the start of a connection makes one, so
		 * that nothing is executed twice */
		if (pkt->psn != pkt->dc_cpsn) {
			DPV_EQP_COUNT(qp, dc_drops);
			return -1;
		}
		i = free_i;
		if (i < 0) {
			i = lru;
			if (d->cur == i)
				dct_unload(qp, d);
			DPV_EQP_COUNT(qp, dc_evictions);
		}
	}
	dct_conn_init(qp, d, &d->ini[i], pkt);
	return i;
}

void
dpv_engine_dct_rx(struct dpv_eqp *qp, struct dpv_epkt *pkt)
{
	struct dpv_edct *d = qp->dct;
	int i;

	if (!(pkt->flags & DPV_OPF_DCETH)) {
		DPV_EQP_COUNT(qp, dc_drops);
		return;
	}
	if (qp->state != IBV_QPS_RTR) {
		DPV_EQP_COUNT(qp, rx_drop_state);
		return;
	}
	if (qp->e->port != NULL && !dpv_engine_addr_local(qp->e, pkt->dgid)) {
		DPV_EQP_COUNT(qp, rx_drop_dip);
		return;
	}
	/* as ConnectX documents nothing else: a wrong key is dropped
	 * silently (no NAK), and counted */
	if (pkt->dc_key != qp->dc_key) {
		DPV_EQP_COUNT(qp, dc_key_errors);
		return;
	}
	if (!d->base_set) {
		d->base = qp->path; /* the DCT's own AV, from RTR */
		d->base_set = true;
	}
	i = dct_slot(qp, d, pkt);
	if (i < 0)
		return;
	d->ini[i].last = qp->e->now;
	dct_load(qp, d, i);
	dpv_engine_qp_activate(qp); /* an ACK may be owed */
	dpv_engine_responder(qp, pkt);
}

/* After a NAK that ends the initiator's connection (its DCI goes to ERR):
 * forget the loaded state, not the DCT. */
void
dpv_engine_dct_forget(struct dpv_eqp *qp)
{
	struct dpv_edct *d = qp->dct;
	int cur = d != NULL ? d->cur : -1;

	if (cur < 0)
		return;
	dct_unload(qp, d);
	d->ini[cur].used = false; /* its receive WQE stays in the slot */
}

bool
dpv_engine_dci_target(struct dpv_eqp *qp, const struct dpv_eswqe *w)
{
	const struct dpv_wr_ud *t = &w->wr.ud, *c = &qp->dci_tgt;
	struct dpv_engine_path p;

	if (qp->dci_conn && t->remote_qpn == c->remote_qpn &&
	    t->dc_key == c->dc_key && t->sgid_index == c->sgid_index &&
	    t->traffic_class == c->traffic_class &&
	    t->hop_limit == c->hop_limit && t->flow_label == c->flow_label &&
	    t->udp_sport == c->udp_sport && memcmp(t->dgid, c->dgid, 16) == 0)
		return true;
	/* the current connection ends when all its WQEs completed */
	if (qp->s_tail != qp->s_cur)
		return false;
	if (dpv_engine_ud_path(qp, t, &p) != 0)
		return false; /* neighbour not known yet */
	qp->path = p;
	dpv_engine_qp_tmpl_set(qp);
	qp->dest_qpn = t->remote_qpn;
	qp->dc_key = t->dc_key;
	qp->dc_cpsn = qp->req.psn;
	qp->dci_tgt = *t;
	qp->dci_conn = true;
	qp->comp.retry_left = qp->retry_cnt;
	qp->comp.rnr_left = qp->rnr_retry;
	qp->comp.rd_cap = 0;
	DPV_EQP_COUNT(qp, dc_connects);
	return true;
}

/* ------------------------------------------------------- DCI streams */

static int
dci_err_find(const struct dpv_eqp *qp, uint16_t id)
{
	for (int i = 0; i < qp->dci_nerr; i++)
		if (qp->dci_err[i] == id)
			return i;
	return -1;
}

static void
stream_error(struct dpv_eswqe *w, enum ibv_wc_status st)
{
	w->state = SWQE_ERROR;
	w->status = st;
	w->stream_err = true;
}

/* DCI with streams: WQE w, not sent yet, is of a stream in error: it is
 * flushed (IBV_WC_WR_FLUSH_ERR), the QP goes on; true. */
bool
dpv_engine_dci_stream_flush(struct dpv_eqp *qp, struct dpv_eswqe *w)
{
	if (dci_err_find(qp, w->wr.stream_id) < 0)
		return false;
	stream_error(w, IBV_WC_WR_FLUSH_ERR);
	return true;
}

/*
 * DCI with streams: WQE w, not sent, fails locally with st: only its
 * stream goes to error and the requester goes on with the next WQE;
 * true. False: no streams, or the stream would be the 2^log_num_errored-th
 * in error (the error is then the QP's, as without streams: the DCI goes
 * to ERR).
 */
bool
dpv_engine_dci_stream_fail(struct dpv_eqp *qp, struct dpv_eswqe *w,
			   enum ibv_wc_status st)
{
	if (qp->dci_max_err == 0 || dci_err_find(qp, w->wr.stream_id) >= 0 ||
	    qp->dci_nerr + 1 >= qp->dci_max_err)
		return false;
	qp->dci_err[qp->dci_nerr++] = w->wr.stream_id;
	stream_error(w, st);
	return true;
}

int
dpv_engine_dci_stream_reset(struct dpv_engine *e, uint32_t qpn,
			    uint16_t stream_id)
{
	struct dpv_eqp *qp;
	int ret = 0, i;

	if (e == NULL)
		return -EINVAL;
	dpv_engine_lock(e);
	qp = dpv_engine_qp_lookup(e, qpn);
	if (qp == NULL)
		ret = -ENOENT;
	else if (qp->dc != DPV_ENGINE_DC_DCI || qp->dci_max_err == 0 ||
		 (i = dci_err_find(qp, stream_id)) < 0)
		ret = -EINVAL;
	else
		qp->dci_err[i] = qp->dci_err[--qp->dci_nerr];
	dpv_engine_unlock(e);
	return ret;
}
