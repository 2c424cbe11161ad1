/* SPDX-License-Identifier: BSD-3-Clause */
/* mlx5 ring personality: queue set-up, receive queues, address vectors. */

#include <errno.h>
#include <stddef.h>

#include <rte_malloc.h>
#include <rte_memory.h>

#include "mlx5_ring_priv.h"

RTE_LOG_REGISTER(dpv_logtype_mlx5_ring, dpv.mlx5.ring, NOTICE);

_Static_assert(sizeof(struct dpv_mlx5_wqe_xrc_seg) == 16, "xrc seg");
_Static_assert(sizeof(struct mlx5_wqe_ctrl_seg) == 16, "ctrl seg");
_Static_assert(sizeof(struct mlx5_wqe_data_seg) == 16, "data seg");
_Static_assert(sizeof(struct mlx5_wqe_srq_next_seg) == 16, "srq next seg");
_Static_assert(sizeof(struct mlx5_wqe_datagram_seg) == 48, "datagram seg");

static void *
zalloc(size_t size, int socket)
{
	RTE_SET_USED(socket);
	return dpv_mlx5_mem_zalloc(size);
}

static uint32_t
log2_u32(uint32_t v)
{
	return rte_log2_u32(v);
}

static void
wq_free(struct dpv_mlx5_wq *wq)
{
	if (!wq->buf_borrowed)
		dpv_mlx5_mem_free(wq->buf);
	dpv_mlx5_mem_free(wq->wrid);
	dpv_mlx5_mem_free(wq->dbrec_own);
	wq->buf = NULL;
	wq->wrid = NULL;
	wq->dbrec_own = NULL;
	wq->dbrec = NULL;
	wq->db = NULL;
}

/* Allocate ring, wrid[] (but for a send queue, whose slots hold its
 * wr_ids) and a doorbell-record block; db word is dbidx. */
static int
wq_alloc(struct dpv_mlx5_wq *wq, uint32_t cnt, uint32_t shift, int dbidx,
	 bool sq, int socket)
{
	wq->wqe_cnt = cnt;
	wq->wqe_shift = shift;
	wq->socket = socket;
	wq->buf = zalloc((size_t)cnt << shift, socket);
	wq->wrid = sq ? NULL : zalloc(sizeof(*wq->wrid) * cnt, socket);
	wq->dbrec_own = zalloc(RTE_CACHE_LINE_SIZE, socket);
	if (wq->buf == NULL || (!sq && wq->wrid == NULL) ||
	    wq->dbrec_own == NULL) {
		wq_free(wq);
		return ENOMEM;
	}
	wq->dbrec = wq->dbrec_own;
	wq->db = &wq->dbrec[dbidx];
	return 0;
}

int
dpv_mlx5_sq_init(struct dpv_mlx5_sq *sq, unsigned int max_wr,
		 unsigned int max_sge, unsigned int max_inline, int socket)
{
	return dpv_mlx5_sq_init_tso(sq, max_wr, max_sge, max_inline, 0, socket);
}

int
dpv_mlx5_sq_init_tso(struct dpv_mlx5_sq *sq, unsigned int max_wr,
		     unsigned int max_sge, unsigned int max_inline,
		     unsigned int max_tso_header, int socket)
{
	uint32_t hdr = sizeof(struct mlx5_wqe_ctrl_seg) + 48;
	uint32_t data, bytes, nbb, ring_bb, cnt;
	uint64_t total;
	int rc;

	memset(sq, 0, sizeof(*sq));
	if (max_wr == 0 || max_sge > DPV_MLX5_MAX_SEND_SGE ||
	    max_inline > DPV_MLX5_MAX_INLINE ||
	    max_tso_header > DPV_MLX5_MAX_TSO_HEADER ||
	    (max_tso_header && max_tso_header < DPV_MLX5_ETH_INLINE_HDR))
		return EINVAL;
	/* a TSO header continues past the Ethernet segment's 18 bytes */
	if (max_tso_header)
		hdr += RTE_ALIGN_CEIL(max_tso_header - DPV_MLX5_ETH_INLINE_HDR,
				      16u);
	data = RTE_MAX(max_sge * 16u,
		       max_inline ? RTE_ALIGN_CEIL(max_inline + 4u, 16u) : 0u);
	bytes = RTE_MAX(hdr + data, (uint32_t)MLX5_SEND_WQE_BB);
	if (bytes > DPV_MLX5_MAX_WQE_BYTES)
		return EINVAL;
	nbb = (bytes + MLX5_SEND_WQE_BB - 1) / MLX5_SEND_WQE_BB;
	/* max_wr WQEs of the largest kind must fit, and a memory-window bind
	 * (UMR WQE, DPV_MLX5_UMR_WQE_BB blocks) may be larger than a slot */
	ring_bb = RTE_MAX(nbb, (uint32_t)DPV_MLX5_UMR_WQE_BB);
	total = (uint64_t)max_wr * ring_bb;
	if (total > DPV_MLX5_MAX_SQ_BB)
		return EINVAL;
	cnt = rte_align32pow2((uint32_t)total);
	rc = wq_alloc(&sq->wq, cnt, MLX5_SEND_WQE_SHIFT, MLX5_SND_DBR, true,
		      socket);
	if (rc)
		return rc;
	sq->slot = zalloc(sizeof(*sq->slot) * cnt, socket);
	if (sq->slot == NULL) {
		dpv_mlx5_sq_fini(sq);
		return ENOMEM;
	}
	sq->wq.kind = DPV_MLX5_WQ_SQ;
	sq->wq.ops = &dpv_mlx5_ring_ops;
	sq->max_wqe_bb = ring_bb;
	sq->max_tso_header = max_tso_header;
	sq->wq.max_post = cnt / ring_bb;
	sq->wq.max_gs = RTE_MIN((nbb * MLX5_SEND_WQE_BB - hdr) / 16,
				(uint32_t)DPV_MLX5_MAX_SEND_SGE);
	/* inline data: a 4-byte header, then the bytes (none in a 1-block
	 * slot, which the fixed header fills) */
	sq->max_inline = nbb * MLX5_SEND_WQE_BB > hdr + 4
				 ? RTE_MIN(nbb * MLX5_SEND_WQE_BB - hdr - 4,
					   (uint32_t)DPV_MLX5_MAX_INLINE)
				 : 0;
	sq->type = IBV_QPT_RC;
	MLX5R_LOG(DEBUG, "sq: %u blocks, %u WRs, %u sge, %u inline", cnt,
		  sq->wq.max_post, sq->wq.max_gs, sq->max_inline);
	return 0;
}

void
dpv_mlx5_sq_fini(struct dpv_mlx5_sq *sq)
{
	wq_free(&sq->wq);
	dpv_mlx5_mem_free(sq->slot);
	sq->slot = NULL;
}

bool
dpv_mlx5_wq_refill_fits(const struct dpv_mlx5_wq *keep,
			const struct dpv_mlx5_wq *fresh)
{
	return keep->buf != NULL && fresh->buf != NULL &&
	       fresh->wqe_cnt == keep->wqe_cnt &&
	       fresh->wqe_shift == keep->wqe_shift && keep->db != NULL &&
	       fresh->ops == keep->ops &&
	       (keep->wrid == NULL) == (fresh->wrid == NULL);
}

bool
dpv_mlx5_sq_refill_fits(const struct dpv_mlx5_sq *keep,
			const struct dpv_mlx5_sq *fresh)
{
	return keep->slot != NULL && fresh->slot != NULL &&
	       dpv_mlx5_wq_refill_fits(&keep->wq, &fresh->wq);
}

/* Into wq: the memory of keep (ring, wrid[], record block) with the
 * content and state of fresh, a queue of the same size just set up: what
 * RESET does to a queue whose ring an application may hold. The record
 * reads 0. The caller checked dpv_mlx5_wq_refill_fits(). */
static void
wq_refill(struct dpv_mlx5_wq *wq, const struct dpv_mlx5_wq *keep,
	  const struct dpv_mlx5_wq *fresh)
{
	memcpy(keep->buf, fresh->buf,
	       (size_t)fresh->wqe_cnt << fresh->wqe_shift);
	if (keep->wrid != NULL)
		memset(keep->wrid, 0, sizeof(*keep->wrid) * keep->wqe_cnt);
	*wq = *fresh;
	wq->buf = keep->buf;
	wq->buf_borrowed = keep->buf_borrowed;
	wq->wrid = keep->wrid;
	wq->dbrec = keep->dbrec;
	wq->dbrec_own = keep->dbrec_own;
	wq->db = keep->db;
	__atomic_store_n(wq->db, 0, __ATOMIC_RELEASE);
}

int
dpv_mlx5_sq_refill(struct dpv_mlx5_sq *sq, const struct dpv_mlx5_sq *fresh)
{
	struct dpv_mlx5_sq_slot *slot = sq->slot;
	struct dpv_mlx5_wq w;

	if (!dpv_mlx5_sq_refill_fits(sq, fresh))
		return EINVAL;
	wq_refill(&w, &sq->wq, &fresh->wq);
	memset(slot, 0, sizeof(*slot) * sq->wq.wqe_cnt);
	*sq = *fresh;
	sq->wq = w;
	sq->slot = slot;
	return 0;
}

int
dpv_mlx5_rq_refill(struct dpv_mlx5_rq *rq, const struct dpv_mlx5_rq *fresh)
{
	struct dpv_mlx5_wq w;

	if (!dpv_mlx5_wq_refill_fits(&rq->wq, &fresh->wq))
		return EINVAL;
	wq_refill(&w, &rq->wq, &fresh->wq);
	*rq = *fresh;
	rq->wq = w;
	return 0;
}

void
dpv_mlx5_sq_bind(struct dpv_mlx5_sq *sq, enum ibv_qp_type type, uint32_t qpn)
{
	sq->type = type;
	sq->qpn = qpn & 0xffffff;
}

int
dpv_mlx5_rq_init(struct dpv_mlx5_rq *rq, unsigned int max_wr,
		 unsigned int max_sge, int socket)
{
	uint32_t stride, cnt;
	int rc;

	memset(rq, 0, sizeof(*rq));
	if (max_wr == 0 || max_wr > DPV_MLX5_MAX_RQ_WQE || max_sge == 0 ||
	    max_sge > DPV_MLX5_MAX_RECV_SGE)
		return EINVAL;
	stride = rte_align32pow2(RTE_MAX(16u, max_sge * 16u));
	cnt = rte_align32pow2(max_wr);
	rc = wq_alloc(&rq->wq, cnt, log2_u32(stride), MLX5_RCV_DBR, false,
		      socket);
	if (rc)
		return rc;
	rq->wq.kind = DPV_MLX5_WQ_RQ;
	rq->wq.ops = &dpv_mlx5_ring_ops;
	rq->wq.max_post = cnt;
	rq->wq.max_gs = RTE_MIN(stride / 16, (uint32_t)DPV_MLX5_MAX_RECV_SGE);
	return 0;
}

int
dpv_mlx5_srq_init(struct dpv_mlx5_rq *rq, unsigned int max_wr,
		  unsigned int max_sge, int socket)
{
	uint32_t stride, cnt, i;
	int rc;

	memset(rq, 0, sizeof(*rq));
	if (max_wr >= DPV_MLX5_MAX_RQ_WQE || max_sge > DPV_MLX5_MAX_RECV_SGE)
		return EINVAL;
	/* as ConnectX: a WQE is at least 32 bytes (one data segment), and
	 * max_wr 0 gives a one-WQE list that takes no post (max_post 0) */
	stride = rte_align32pow2(16u + RTE_MAX(max_sge, 1u) * 16u);
	cnt = rte_align32pow2(max_wr + 1);
	rc = wq_alloc(&rq->wq, cnt, log2_u32(stride), 0, false, socket);
	if (rc)
		return rc;
	rq->wq.kind = DPV_MLX5_WQ_SRQ;
	rq->wq.ops = &dpv_mlx5_ring_ops;
	rq->wq.max_post = cnt - 1;
	rq->wq.max_gs =
		RTE_MIN((stride - 16) / 16, (uint32_t)DPV_MLX5_MAX_RECV_SGE);
	for (i = 0; i < cnt; i++) {
		struct mlx5_wqe_srq_next_seg *nx =
			(void *)(rq->wq.buf + ((size_t)i << rq->wq.wqe_shift));

		nx->next_wqe_index = htobe16((i + 1) & (cnt - 1));
	}
	rq->srq_head = 0;
	rq->srq_tail = cnt - 1;
	rte_spinlock_init(&rq->srq_lock);
	return 0;
}

void
dpv_mlx5_rq_fini(struct dpv_mlx5_rq *rq)
{
	wq_free(&rq->wq);
}

void
dpv_mlx5_sq_clamp(struct dpv_mlx5_sq *sq, uint32_t max_wr, uint32_t max_sge,
		  uint32_t max_inline)
{
	sq->wq.max_post = RTE_MIN(sq->wq.max_post, RTE_MAX(max_wr, 1u));
	sq->wq.max_gs = RTE_MIN(sq->wq.max_gs, max_sge);
	sq->max_inline = RTE_MIN(sq->max_inline, max_inline);
}

void
dpv_mlx5_rq_clamp(struct dpv_mlx5_rq *rq, uint32_t max_wr, uint32_t max_sge)
{
	/* the receive side reads and writes wq.max_gs segments per WQE (a
	 * terminator after fewer), so a lower count stays consistent */
	rq->wq.max_post = RTE_MIN(rq->wq.max_post, RTE_MAX(max_wr, 1u));
	rq->wq.max_gs = RTE_MIN(rq->wq.max_gs, RTE_MAX(max_sge, 1u));
}

__be32 *
dpv_mlx5_qp_link_dbrec(struct dpv_mlx5_sq *sq, struct dpv_mlx5_rq *rq)
{
	if (rq == NULL || rq->wq.dbrec == NULL)
		return sq->wq.dbrec;
	sq->wq.dbrec = rq->wq.dbrec;
	sq->wq.db = &rq->wq.dbrec[MLX5_SND_DBR];
	return rq->wq.dbrec;
}

/* ---- address vectors ---- */

void
dpv_mlx5_av_build(struct mlx5_wqe_av *av, const struct dpv_mlx5_av_attr *a)
{
	memset(av, 0, sizeof(*av));
	av->stat_rate_sl =
		(uint8_t)((a->static_rate << 4) | ((a->sl & 7) << 1));
	av->rlid = htobe16(a->udp_sport);
	memcpy(av->rmac, a->dmac, sizeof(av->rmac));
	av->tclass = a->traffic_class;
	av->hop_limit = a->hop_limit;
	av->grh_gid_fl = htobe32(((uint32_t)a->sgid_index << 20) |
				 (a->flow_label & 0xfffff));
	memcpy(av->rgid, a->dgid, sizeof(av->rgid));
}

void
dpv_mlx5_av_parse(const struct mlx5_wqe_av *av, struct dpv_mlx5_av_attr *a)
{
	uint32_t g = be32toh(av->grh_gid_fl);

	memset(a, 0, sizeof(*a));
	a->static_rate = av->stat_rate_sl >> 4;
	a->sl = (av->stat_rate_sl >> 1) & 7;
	a->udp_sport = be16toh(av->rlid);
	memcpy(a->dmac, av->rmac, sizeof(a->dmac));
	a->traffic_class = av->tclass;
	a->hop_limit = av->hop_limit;
	a->sgid_index = (g >> 20) & 0xff;
	a->flow_label = g & 0xfffff;
	memcpy(a->dgid, av->rgid, sizeof(a->dgid));
}

/* ---- receive side ---- */

static uint8_t *
rq_slot(const struct dpv_mlx5_rq *rq, uint32_t idx)
{
	return rq->wq.buf +
	       ((size_t)(idx & (rq->wq.wqe_cnt - 1)) << rq->wq.wqe_shift);
}

/* Write the data segments of one receive WR at seg (max_gs slots). */
static void
write_recv_segs(struct mlx5_wqe_data_seg *seg, uint32_t max_gs,
		const struct ibv_recv_wr *wr)
{
	uint32_t j = 0;
	int i;

	for (i = 0; i < wr->num_sge; i++) {
		if (wr->sg_list[i].length == 0)
			continue;
		seg[j].byte_count = htobe32(wr->sg_list[i].length);
		seg[j].lkey = htobe32(wr->sg_list[i].lkey);
		seg[j].addr = htobe64(wr->sg_list[i].addr);
		j++;
	}
	if (j < max_gs) {
		seg[j].byte_count = 0;
		seg[j].lkey = htobe32(MLX5_INVALID_LKEY);
		seg[j].addr = 0;
	}
}

static int
post_srq(struct dpv_mlx5_rq *rq, struct ibv_recv_wr *wr,
	 struct ibv_recv_wr **bad)
{
	uint32_t n = 0;
	int err = 0;

	rte_spinlock_lock(&rq->srq_lock);
	for (; wr; wr = wr->next, n++) {
		struct mlx5_wqe_srq_next_seg *nx;
		uint32_t idx = rq->srq_head;

		if (wr->num_sge < 0 || (uint32_t)wr->num_sge > rq->wq.max_gs) {
			err = EINVAL;
			break;
		}
		if (rq->srq_head == rq->srq_tail) {
			err = ENOMEM;
			break;
		}
		nx = (void *)rq_slot(rq, idx);
		write_recv_segs((void *)(nx + 1), rq->wq.max_gs, wr);
		rq->wq.wrid[idx] = wr->wr_id;
		rq->srq_head = be16toh(nx->next_wqe_index);
		rq->srq_counter++;
	}
	if (n)
		mlx5r_db_write(&rq->wq, rq->srq_counter & 0xffff);
	rte_spinlock_unlock(&rq->srq_lock);
	if (err)
		*bad = wr;
	return err;
}

void
mlx5r_srq_free(struct dpv_mlx5_rq *rq, uint32_t idx)
{
	struct mlx5_wqe_srq_next_seg *nx;

	idx &= rq->wq.wqe_cnt - 1;
	rte_spinlock_lock(&rq->srq_lock);
	nx = (void *)rq_slot(rq, rq->srq_tail);
	nx->next_wqe_index = htobe16(idx);
	rq->srq_tail = idx;
	rte_spinlock_unlock(&rq->srq_lock);
}

int
dpv_mlx5_post_recv(struct dpv_mlx5_rq *rq, struct ibv_recv_wr *wr,
		   struct ibv_recv_wr **bad)
{
	uint32_t head, n = 0;
	int err = 0;

	if (rq->wq.kind == DPV_MLX5_WQ_SRQ)
		return post_srq(rq, wr, bad);
	head = rq->wq.head;
	for (; wr; wr = wr->next, n++) {
		uint32_t tail = __atomic_load_n(&rq->wq.tail, __ATOMIC_ACQUIRE);

		if (wr->num_sge < 0 || (uint32_t)wr->num_sge > rq->wq.max_gs) {
			err = EINVAL;
			break;
		}
		if (head + n - tail >= rq->wq.max_post) {
			err = ENOMEM;
			break;
		}
		write_recv_segs((void *)rq_slot(rq, head + n), rq->wq.max_gs,
				wr);
		rq->wq.wrid[(head + n) & (rq->wq.wqe_cnt - 1)] = wr->wr_id;
	}
	if (n) {
		rq->wq.head = head + n;
		mlx5r_db_write(&rq->wq, rq->wq.head & 0xffff);
	}
	if (err)
		*bad = wr;
	return err;
}

/* ---- engine: receive fetch ---- */

static void
decode_recv_segs(const struct dpv_mlx5_rq *rq,
		 const struct mlx5_wqe_data_seg *seg, struct dpv_recv_wr *out)
{
	uint32_t i;

	out->num_sge = 0;
	out->total_len = 0;
	for (i = 0; i < rq->wq.max_gs; i++) {
		uint32_t lkey = be32toh(seg[i].lkey);
		uint32_t len;

		if (lkey == MLX5_INVALID_LKEY)
			break;
		len = be32toh(seg[i].byte_count);
		out->sg_list[i].length = len;
		out->sg_list[i].lkey = lkey;
		out->sg_list[i].addr = be64toh(seg[i].addr);
		out->total_len += len;
		out->num_sge++;
	}
}

bool
dpv_mlx5_rq_fetch(struct dpv_mlx5_rq *rq, struct dpv_recv_wr *out)
{
	uint32_t db = mlx5r_db_read(&rq->wq) & 0xffff;

	if ((uint16_t)(db - (uint16_t)rq->wq.eng_pi) == 0)
		return false;
	if (rq->wq.kind == DPV_MLX5_WQ_SRQ) {
		uint32_t idx = rq->eng_srq_next & (rq->wq.wqe_cnt - 1);
		const struct mlx5_wqe_srq_next_seg *nx =
			(const void *)rq_slot(rq, idx);

		out->wqe_index = (uint16_t)idx;
		decode_recv_segs(rq, (const void *)(nx + 1), out);
		rq->eng_srq_next = be16toh(nx->next_wqe_index);
	} else {
		out->wqe_index = (uint16_t)rq->wq.eng_pi;
		decode_recv_segs(rq, (const void *)rq_slot(rq, rq->wq.eng_pi),
				 out);
	}
	rq->wq.eng_pi++;
	return true;
}

void
dpv_mlx5_rq_retire(struct dpv_mlx5_rq *rq, const struct dpv_recv_wr *rwr)
{
	RTE_SET_USED(rwr);
	if (rq->wq.kind != DPV_MLX5_WQ_SRQ)
		rq->wq.eng_ci++;
}

/* ---- mlx5dv views ---- */

void
dpv_mlx5_qp_to_dv(const struct dpv_mlx5_sq *sq, const struct dpv_mlx5_rq *rq,
		  struct mlx5dv_qp *out)
{
	if (rq != NULL && rq->wq.buf != NULL) {
		out->dbrec = rq->wq.dbrec;
		out->rq.buf = rq->wq.buf;
		out->rq.wqe_cnt = rq->wq.wqe_cnt;
		out->rq.stride = 1u << rq->wq.wqe_shift;
	} else {
		out->dbrec = sq != NULL ? sq->wq.dbrec : NULL;
		out->rq.buf = NULL;
		out->rq.wqe_cnt = 0;
		out->rq.stride = 0;
	}
	if (sq != NULL && sq->wq.buf != NULL) {
		out->sq.buf = sq->wq.buf;
		out->sq.wqe_cnt = sq->wq.wqe_cnt;
		out->sq.stride = MLX5_SEND_WQE_BB;
		/* second half of the SQ's own record line: writes land there */
		out->bf.reg =
			(uint8_t *)sq->wq.dbrec_own + RTE_CACHE_LINE_SIZE / 2;
	} else {
		out->sq.buf = NULL;
		out->sq.wqe_cnt = 0;
		out->sq.stride = 0;
		out->bf.reg = NULL;
	}
	out->bf.size = 0;
}

void
dpv_mlx5_srq_to_dv(const struct dpv_mlx5_rq *rq, struct mlx5dv_srq *out)
{
	out->buf = rq->wq.buf;
	out->dbrec = rq->wq.dbrec;
	out->stride = 1u << rq->wq.wqe_shift;
	out->head = rq->srq_head;
	out->tail = rq->srq_tail;
}
