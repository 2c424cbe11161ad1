/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tag matching SRQs (dpv_tm.h): the list of tagged buffers, matching a
 * message's header against it, the completions, and the rendezvous the
 * engine does itself (an RDMA READ of the sender's buffer, then a FIN).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/tm_types.h>

#include "engine_int.h"
#include "mlx5_ring.h"

/* ------------------------------------------------------ handles (verbs) */

struct dpv_tm *
dpv_tm_create(uint32_t ntags)
{
	struct dpv_tm *tm = calloc(1, sizeof(*tm));

	if (tm == NULL || ntags == 0)
		goto fail;
	tm->free_h = calloc(ntags, sizeof(*tm->free_h));
	tm->wrid = calloc(ntags, sizeof(*tm->wrid));
	tm->tags = calloc(ntags, sizeof(*tm->tags));
	if (tm->free_h == NULL || tm->wrid == NULL || tm->tags == NULL)
		goto fail;
	rte_spinlock_init(&tm->lock);
	tm->ntags = ntags;
	/* handle 0 is taken first */
	for (uint32_t i = 0; i < ntags; i++)
		tm->free_h[i] = ntags - 1 - i;
	tm->nfree = ntags;
	tm->first = tm->last = DPV_TM_NONE;
	return tm;
fail:
	dpv_tm_destroy(tm);
	return NULL;
}

void
dpv_tm_destroy(struct dpv_tm *tm)
{
	if (tm == NULL)
		return;
	free(tm->free_h);
	free(tm->wrid);
	free(tm->tags);
	free(tm);
}

int64_t
dpv_tm_handle_get(struct dpv_tm *tm)
{
	int64_t h = -1;

	rte_spinlock_lock(&tm->lock);
	if (tm->nfree > 0)
		h = tm->free_h[--tm->nfree];
	rte_spinlock_unlock(&tm->lock);
	return h;
}

void
dpv_tm_handle_put(struct dpv_tm *tm, uint32_t h)
{
	rte_spinlock_lock(&tm->lock);
	if (h < tm->ntags && tm->nfree < tm->ntags)
		tm->free_h[tm->nfree++] = h;
	rte_spinlock_unlock(&tm->lock);
}

struct dpv_tm *
dpv_eqp_tm(const struct dpv_eqp *qp)
{
	return qp->has_srq && qp->type == IBV_QPT_RC && qp->rq != NULL
		       ? qp->rq->tm
		       : NULL;
}

/* ------------------------------------------------------------ the list */

static void
list_append(struct dpv_tm *tm, uint32_t h)
{
	struct dpv_tm_tag *t = &tm->tags[h];

	t->prev = tm->last;
	t->next = DPV_TM_NONE;
	if (tm->last == DPV_TM_NONE)
		tm->first = h;
	else
		tm->tags[tm->last].next = h;
	tm->last = h;
	t->listed = 1;
}

static void
list_remove(struct dpv_tm *tm, uint32_t h)
{
	struct dpv_tm_tag *t = &tm->tags[h];

	if (t->prev == DPV_TM_NONE)
		tm->first = t->next;
	else
		tm->tags[t->prev].next = t->next;
	if (t->next == DPV_TM_NONE)
		tm->last = t->prev;
	else
		tm->tags[t->next].prev = t->prev;
	t->listed = 0;
}

/* The oldest matchable buffer for tag (host order), or DPV_TM_NONE. */
static uint32_t
list_match(const struct dpv_tm *tm, uint64_t tag)
{
	for (uint32_t h = tm->first; h != DPV_TM_NONE; h = tm->tags[h].next) {
		const struct dpv_tm_tag *t = &tm->tags[h];

		if (t->enabled && ((tag ^ t->tag) & t->mask) == 0)
			return h;
	}
	return DPV_TM_NONE;
}

/* ------------------------------------------------------------ CQEs */

/* A tag matching CQE of a message of qp (recv CQ). */
static void
tm_cqe(struct dpv_eqp *qp, uint8_t op, enum ibv_wc_status st, uint16_t wqe_idx,
       uint32_t len, uint32_t imm, unsigned int flags,
       const struct dpv_tm_tag *t)
{
	struct dpv_cqe_info ci = {
		.status = st,
		.opcode = IBV_WC_RECV,
		.is_recv = true,
		.qpn = qp->qpn,
		.wqe_counter = wqe_idx,
		.srqn = qp->srqn,
		.byte_len = len,
		.imm_data = imm,
		.wc_flags = flags & IBV_WC_WITH_IMM,
		.solicited = (flags & DPV_ENGINE_CQE_SOLICITED) != 0,
		.tm_op = op,
		.tm_handle = wqe_idx,
	};

	if (t != NULL) {
		ci.tm_tag = t->tmh_tag;
		ci.tm_ctx = t->tmh_ctx;
	}
	dpv_engine_cq_write(qp->e, qp->rcq, &ci);
}

/* ------------------------------------------------- list operations */

int
dpv_engine_tm_op(struct dpv_engine *e, struct dpv_tm *tm,
		 struct dpv_mlx5_cq *cq, uint32_t srqn,
		 const struct dpv_tm_op *op)
{
	struct dpv_cqe_info ci = {
		.status = IBV_WC_SUCCESS,
		.opcode = IBV_WC_RECV,
		.is_recv = true,
		.srqn = srqn,
		.tm_wr_id = op->wr_id,
	};
	struct dpv_tm_tag *t;
	int removed = 0;

	if (op->handle >= tm->ntags &&
	    (op->opcode == IBV_WR_TAG_ADD || op->opcode == IBV_WR_TAG_DEL))
		return -EINVAL;
	dpv_engine_lock(e);
	if (op->sync)
		tm->sw_cnt = op->unexpected_cnt;
	switch (op->opcode) {
	case IBV_WR_TAG_ADD:
		t = &tm->tags[op->handle];
		memset(t, 0, sizeof(*t));
		t->tag = op->tag;
		t->mask = op->mask;
		t->num_sge = op->num_sge;
		for (uint32_t i = 0; i < op->num_sge; i++) {
			t->sge[i] = op->sge[i];
			t->total_len += op->sge[i].length;
		}
		/* out of phase: listed, never matched, a sync asked for */
		t->enabled = tm->sw_cnt == tm->hw_cnt;
		list_append(tm, op->handle);
		ci.tm_op = DPV_TM_CQE_APPEND;
		ci.tm_sync_req = !t->enabled;
		break;
	case IBV_WR_TAG_DEL:
		t = &tm->tags[op->handle];
		/* taken by a message meanwhile: the removal fails */
		if (t->listed) {
			list_remove(tm, op->handle);
			removed = 1;
		}
		ci.tm_op = DPV_TM_CQE_REMOVE;
		ci.tm_fail = !removed;
		break;
	default:
		ci.tm_op = DPV_TM_CQE_NOOP;
		break;
	}
	if (op->signaled)
		dpv_engine_cq_write(e, cq, &ci);
	dpv_engine_unlock(e);
	return removed;
}

/* --------------------------------------------------------- rendezvous */

/* Queue a request of the engine's own on qp (the requester sends it in
 * its turn, after what was fetched before it); false: no free slot. */
static bool
tm_inject(struct dpv_eqp *qp, const struct dpv_wr *wr)
{
	struct dpv_eswqe *w;

	if (qp->sq == NULL || qp->s_head - qp->s_tail >= qp->nswqe ||
	    wr->num_sge > qp->max_sge)
		return false;
	w = swqe_at(qp, qp->s_head);
	memcpy(&w->wr, wr, offsetof(struct dpv_wr, sg_list));
	memcpy(w->wr.sg_list, wr->sg_list,
	       wr->num_sge * sizeof(wr->sg_list[0]));
	dpv_eswqe_start(w);
	qp->s_head++;
	dpv_engine_qp_activate(qp);
	return true;
}

/* The FIN of the rendezvous of buffer h: its header, from the buffer's
 * entry (which stays until the FIN is acknowledged). */
static bool
tm_send_fin(struct dpv_eqp *qp, uint32_t h)
{
	struct dpv_tm_tag *t = &dpv_eqp_tm(qp)->tags[h];
	struct dpv_wr wr;

	memset(&wr, 0, offsetof(struct dpv_wr, sg_list));
	memset(t->fin, 0, sizeof(t->fin));
	t->fin[0] = IBV_TMH_FIN;
	memcpy(t->fin + 4, &t->tmh_ctx, 4);
	memcpy(t->fin + 8, &t->tmh_tag, 8);
	wr.opcode = IBV_WR_SEND;
	wr.flags = DPV_WR_F_INTERNAL | DPV_WR_F_INLINE;
	wr.wqe_index = (uint16_t)h;
	wr.qpn = qp->qpn;
	wr.inl[0].addr = t->fin;
	wr.inl[0].len = sizeof(t->fin);
	wr.inline_len = sizeof(t->fin);
	wr.total_len = sizeof(t->fin);
	return tm_inject(qp, &wr);
}

/* The data of the rendezvous of h is in (or failed with st): its second
 * completion. */
static void
tm_rndv_done(struct dpv_eqp *qp, uint32_t h, enum ibv_wc_status st)
{
	struct dpv_tm_tag *t = &dpv_eqp_tm(qp)->tags[h];

	t->busy = 0;
	/* no header in this one (the first completion had it), as
	 * ConnectX reports it */
	tm_cqe(qp, DPV_TM_CQE_EXPECTED, st, (uint16_t)h,
	       st == IBV_WC_SUCCESS ? t->rndv_len : 0, 0, 0, NULL);
}

void
dpv_engine_tm_wr_done(struct dpv_eqp *qp, uint32_t h, bool read,
		      enum ibv_wc_status st)
{
	struct dpv_tm *tm = dpv_eqp_tm(qp);

	if (tm == NULL || h >= tm->ntags || !tm->tags[h].busy)
		return;
	/* the data is read: the FIN tells the sender its buffer is free;
	 * the tag completes when the FIN is acknowledged */
	if (read && st == IBV_WC_SUCCESS && tm_send_fin(qp, h))
		return;
	if (read && st == IBV_WC_SUCCESS)
		st = IBV_WC_GENERAL_ERR; /* no slot for the FIN */
	tm_rndv_done(qp, h, st);
}

/*
 * A matched RNDV request: the tag taken (first completion, MATCH) and a
 * READ of the sender's buffer into it queued (the FIN, if there is
 * nothing to read). false: the engine cannot do this rendezvous (no send
 * slot, no READ credit, a header too short, data longer than the
 * buffer): the message goes to software as an unexpected one.
 */
static bool
tm_rndv(struct dpv_eqp *qp, struct dpv_tm *tm, uint32_t h,
	const struct dpv_epkt *pkt, const struct ibv_tmh *tmh)
{
	struct dpv_tm_tag *t = &tm->tags[h];
	struct ibv_rvh rvh;
	struct dpv_wr wr;
	uint32_t len;

	if (pkt->paylen < DPV_TM_RNDV_LEN || qp->state != IBV_QPS_RTS ||
	    qp->max_rd_atomic == 0)
		return false;
	memcpy(&rvh, pkt->payload + DPV_TM_TMH_LEN, sizeof(rvh));
	len = be32toh(rvh.len);
	if (len > t->total_len || (len > 0 && t->num_sge == 0))
		return false;
	t->tmh_tag = tmh->tag;
	t->tmh_ctx = tmh->app_ctx;
	t->rndv_len = len;
	if (len == 0) {
		/* nothing to read: the FIN at once */
		if (!tm_send_fin(qp, h))
			return false;
	} else {
		memset(&wr, 0, offsetof(struct dpv_wr, sg_list));
		wr.opcode = IBV_WR_RDMA_READ;
		wr.flags = DPV_WR_F_INTERNAL;
		wr.wqe_index = (uint16_t)h;
		wr.qpn = qp->qpn;
		wr.remote_addr = be64toh(rvh.va);
		wr.rkey = be32toh(rvh.rkey);
		wr.num_sge = 1;
		wr.total_len = len;
		wr.sg_list[0] = t->sge[0];
		wr.sg_list[0].length = len;
		if (!tm_inject(qp, &wr))
			return false;
	}
	list_remove(tm, h);
	t->busy = 1;
	tm_cqe(qp, DPV_TM_CQE_CONSUMED, IBV_WC_SUCCESS, (uint16_t)h, 0, 0, 0,
	       t);
	return true;
}

/* --------------------------------------------------------- responder */

/* The tagged buffer h takes the EAGER message being received: its
 * SGEs checked as a receive WQE's; the header is not placed. 1, or -2
 * if a key refused (the buffer completes in error). */
static int
tm_eager(struct dpv_eqp *qp, struct dpv_tm *tm, uint32_t h,
	 const struct ibv_tmh *tmh)
{
	struct dpv_tm_tag *t = &tm->tags[h];
	struct dpv_erwqe *r = &qp->resp.rwqe;
	uint8_t **host_of = rwqe_host(r, qp->rq->wq.max_gs);

	list_remove(tm, h);
	t->tmh_tag = tmh->tag;
	t->tmh_ctx = tmh->app_ctx;
	qp->tm_kind = DPV_TM_MSG_EAGER_HDR;
	r->wr.wqe_index = (uint16_t)h;
	r->wr.num_sge = t->num_sge;
	r->wr.total_len = t->total_len;
	memcpy(r->wr.sg_list, t->sge, t->num_sge * sizeof(t->sge[0]));
	qp->resp.have_rwqe = true;
	qp->resp.rcv_off = 0;
	for (uint32_t i = 0; i < t->num_sge; i++) {
		void *host = NULL;

		if (dpv_engine_key_access_ind(qp->e, qp, t->sge[i].lkey,
					      t->sge[i].addr, t->sge[i].length,
					      IBV_ACCESS_LOCAL_WRITE,
					      &host) != DPV_KEY_OK)
			return -2;
		host_of[i] = host;
	}
	return 1;
}

int
dpv_engine_tm_take(struct dpv_eqp *qp, const struct dpv_epkt *pkt)
{
	struct dpv_tm *tm = dpv_eqp_tm(qp);
	struct ibv_tmh tmh;
	uint32_t h;

	qp->tm_kind = DPV_TM_MSG_NO_TAG;
	if (!(pkt->flags & DPV_OPF_FIRST) || pkt->paylen < DPV_TM_TMH_LEN)
		return 0;
	memcpy(&tmh, pkt->payload, sizeof(tmh));
	if (tmh.opcode != IBV_TMH_EAGER && tmh.opcode != IBV_TMH_RNDV)
		return 0;
	qp->tm_kind = DPV_TM_MSG_UNEXPECTED;
	h = list_match(tm, be64toh(tmh.tag));
	if (h == DPV_TM_NONE)
		return 0;
	if (tmh.opcode == IBV_TMH_EAGER)
		return tm_eager(qp, tm, h, &tmh);
	if (!tm_rndv(qp, tm, h, pkt, &tmh))
		return 0;
	/* the request itself is taken in and dropped */
	qp->tm_kind = DPV_TM_MSG_RNDV;
	qp->resp.have_rwqe = true;
	qp->resp.rcv_off = 0;
	qp->resp.rwqe.wr.total_len = UINT64_MAX;
	return 1;
}

void
dpv_engine_tm_ordinary(struct dpv_eqp *qp)
{
	if (qp->tm_kind == DPV_TM_MSG_UNEXPECTED)
		dpv_eqp_tm(qp)->hw_cnt++;
}

int
dpv_engine_tm_place(struct dpv_eqp *qp, const uint8_t *src, uint32_t len)
{
	uint32_t skip = 0;

	if (qp->tm_kind == DPV_TM_MSG_RNDV) {
		qp->resp.rcv_off += len; /* the request: nothing placed */
		return 0;
	}
	if (qp->tm_kind == DPV_TM_MSG_EAGER_HDR) {
		skip = RTE_MIN((uint32_t)DPV_TM_TMH_LEN, len);
		qp->tm_kind = DPV_TM_MSG_MATCHED;
	}
	return dpv_engine_resp_place(qp, src + skip, len - skip);
}

void
dpv_engine_tm_recv_done(struct dpv_eqp *qp, enum ibv_wc_status st, uint32_t len,
			uint32_t imm, unsigned int flags)
{
	struct dpv_erwqe *r = &qp->resp.rwqe;
	uint8_t kind = qp->tm_kind;

	qp->tm_kind = 0;
	qp->resp.have_rwqe = false;
	qp->resp.rcv_off = 0;
	switch (kind) {
	case DPV_TM_MSG_EAGER_HDR:
	case DPV_TM_MSG_MATCHED:
		tm_cqe(qp, DPV_TM_CQE_CONSUMED_MSG, st, r->wr.wqe_index, len,
		       imm, flags, &dpv_eqp_tm(qp)->tags[r->wr.wqe_index]);
		break;
	case DPV_TM_MSG_RNDV:
		break; /* the tag completes when its data is in */
	default:
		tm_cqe(qp,
		       kind == DPV_TM_MSG_UNEXPECTED ? DPV_TM_CQE_UNEXPECTED
						     : DPV_TM_CQE_NO_TAG,
		       st, r->wr.wqe_index, len, imm, flags, NULL);
		break;
	}
}

void
dpv_engine_tm_qp_gone(struct dpv_eqp *qp)
{
	struct dpv_tm *tm = dpv_eqp_tm(qp);

	/* an EAGER being placed: no completion names its buffer yet */
	if (qp->resp.have_rwqe && (qp->tm_kind == DPV_TM_MSG_EAGER_HDR ||
				   qp->tm_kind == DPV_TM_MSG_MATCHED))
		dpv_tm_handle_put(tm, qp->resp.rwqe.wr.wqe_index);
	qp->tm_kind = DPV_TM_MSG_NONE;
	/* rendezvous under way: their buffers are free (the verbs layer
	 * drops the QP's completions, the first one of each too) */
	for (uint32_t i = qp->s_tail; i != qp->s_head; i++) {
		const struct dpv_eswqe *w = swqe_at(qp, i);
		uint32_t h = w->wr.wqe_index;

		if ((w->wr.flags & DPV_WR_F_INTERNAL) && h < tm->ntags &&
		    tm->tags[h].busy) {
			tm->tags[h].busy = 0;
			dpv_tm_handle_put(tm, h);
		}
	}
}
