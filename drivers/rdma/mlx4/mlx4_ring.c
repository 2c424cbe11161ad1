/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mlx4 (ConnectX-3) ring format: send WQEs and 32-byte CQEs. The
 * bookkeeping is the mlx5 ring's (mlx5_ring.h); only the bytes differ.
 * An mlx4 SQ counts in 64-byte blocks like an mlx5 one (cur_post,
 * eng_pi, wrid[] slots), each WQE taking 1 << bb_shift blocks, so the
 * retire and poll bookkeeping is shared. The operations table
 * dpv_mlx4_ring_ops (at the end) is what the rings of an mlx4 device
 * point at.
 */

#include <endian.h>
#include <stddef.h>
#include <string.h>

#include <rte_common.h>
#include <rte_ether.h>

#include "mlx5_ring_priv.h"
#include "mlx4_ring.h"

#define BB 64u			/* bytes of a block */
#define HDR_MAX (16u + 48u)	/* ctrl + the largest fixed part (UD) */
#define OWNER_BIT (1u << 31)

static inline uint8_t *
wqe_at(const struct dpv_mlx5_sq *sq, uint32_t bb)
{
	return sq->wq.buf + ((bb & (sq->wq.wqe_cnt - 1)) * BB);
}

/* Owner bit a WQE starting at block counter bb carries when valid. */
static inline uint32_t
owner_of(const struct dpv_mlx5_wq *wq, uint32_t bb)
{
	return (bb & wq->wqe_cnt) ? OWNER_BIT : 0;
}

int
dpv_mlx4_sq_init(struct dpv_mlx5_sq *sq, unsigned int max_wr,
		 unsigned int max_sge, unsigned int max_inline, int socket)
{
	uint32_t data, stride, nwqe, bbs, shift, cnt, i;

	memset(sq, 0, sizeof(*sq));
	if (max_wr == 0 || max_wr > DPV_MLX5_MAX_SQ_BB ||
	    max_sge > DPV_MLX4_MAX_SEND_SGE || max_inline > DPV_MLX4_MAX_INLINE)
		return EINVAL;
	data = RTE_MAX(RTE_MAX(max_sge, 1u) * 16u,
		       max_inline ? RTE_ALIGN_CEIL(max_inline + 4u, 16u) : 0u);
	stride = rte_align32pow2(HDR_MAX + data);
	shift = rte_log2_u32(stride);
	if (shift > DPV_MLX4_MAX_WQE_SHIFT)
		return EINVAL;
	nwqe = rte_align32pow2(max_wr);
	bbs = stride / BB;
	cnt = nwqe * bbs;
	if (cnt > DPV_MLX5_MAX_SQ_BB)
		return EINVAL;
	sq->wq.buf = dpv_mlx5_mem_zalloc((size_t)cnt * BB);
	sq->wq.dbrec_own = dpv_mlx5_mem_zalloc(RTE_CACHE_LINE_SIZE);
	sq->slot = dpv_mlx5_mem_zalloc(sizeof(*sq->slot) * cnt);
	if (!sq->wq.buf || !sq->wq.dbrec_own ||
	    sq->slot == NULL) {
		dpv_mlx5_sq_fini(sq);
		return ENOMEM;
	}
	sq->wq.dbrec = sq->wq.dbrec_own;
	sq->wq.db = &sq->wq.dbrec[MLX5_SND_DBR];
	sq->wq.wqe_cnt = cnt;
	sq->wq.wqe_shift = 6;
	sq->wq.socket = socket;
	sq->wq.kind = DPV_MLX5_WQ_SQ;
	sq->wq.ops = &dpv_mlx4_ring_ops;
	sq->wq.bb_shift = (uint8_t)rte_log2_u32(bbs);
	sq->wq.max_post = nwqe;
	sq->wq.max_gs = RTE_MIN((stride - HDR_MAX) / 16u,
				(uint32_t)DPV_MLX4_MAX_SEND_SGE);
	sq->max_inline = RTE_MIN(stride - HDR_MAX - 4u,
				 (uint32_t)DPV_MLX4_MAX_INLINE);
	sq->max_wqe_bb = bbs;
	sq->type = IBV_QPT_RC;
	/* nothing is valid before the first pass writes owner bit 0 */
	for (i = 0; i < nwqe; i++) {
		struct mlx4_wqe_ctrl_seg *c =
			(void *)(sq->wq.buf + (size_t)i * stride);

		c->owner_opcode = htobe32(OWNER_BIT);
	}
	return 0;
}

int
dpv_mlx4_cq_init(struct dpv_mlx5_cq *cq, unsigned int min_cqe, int socket)
{
	struct mlx4_cqe *c;
	int rc = dpv_mlx5_cq_init(cq, min_cqe, socket);

	if (rc)
		return rc;
	/* the mlx5 ring holds cqe_cnt 64-byte entries: room for 32-byte ones */
	memset(cq->buf, 0, (size_t)cq->cqe_cnt * 64);
	c = (struct mlx4_cqe *)(void *)cq->buf;
	for (uint32_t i = 0; i < cq->cqe_cnt; i++)
		c[i].owner_sr_opcode = MLX4_CQE_OWNER_MASK;
	cq->ops = &dpv_mlx4_ring_ops;
	return 0;
}

/* ---- resize (ibv_resize_cq) ---- */

static int
mlx4_cq_resize_prepare(const struct dpv_mlx5_cq *cq, unsigned int min_cqe,
		       struct dpv_mlx5_cq_resize *r)
{
	int rc = mlx5r_cq_resize_alloc(min_cqe, DPV_MLX4_CQE_SIZE, r);
	struct mlx4_cqe *c = (struct mlx4_cqe *)(void *)r->buf;

	RTE_SET_USED(cq);
	if (rc)
		return rc;
	for (uint32_t i = 0; i < r->cqe_cnt; i++)
		c[i].owner_sr_opcode = MLX4_CQE_OWNER_MASK;
	return 0;
}

/* As ConnectX-3's provider copies an unpolled CQE into the new ring: the
 * whole entry, the owner bit rewritten for the new size. */
static void
cqe32_move(const struct dpv_mlx5_cq *cq, struct dpv_mlx5_cq_resize *r,
	   uint32_t i)
{
	struct mlx4_cqe *d = (struct mlx4_cqe *)(void *)r->buf +
			     (i & (r->cqe_cnt - 1));
	const struct mlx4_cqe *c = (const struct mlx4_cqe *)(void *)cq->buf +
				   (i & (cq->cqe_cnt - 1));

	memcpy(d, c, offsetof(struct mlx4_cqe, owner_sr_opcode));
	d->owner_sr_opcode =
		(uint8_t)((c->owner_sr_opcode & ~MLX4_CQE_OWNER_MASK) |
			  ((i & r->cqe_cnt) ? MLX4_CQE_OWNER_MASK : 0));
}

/* The indexes go on from the old ring's: each slot of the new one is
 * made invalid for the next index to land in it (owner bit opposite to
 * that index's lap), the pending CQEs then copied over theirs. */
static int
mlx4_cq_resize_commit(struct dpv_mlx5_cq *cq, struct dpv_mlx5_cq_resize *r)
{
	struct mlx4_cqe *c = (struct mlx4_cqe *)(void *)r->buf;

	if (c == NULL)
		return EIO;
	for (uint32_t i = cq->prod_index; i != cq->prod_index + r->cqe_cnt;
	     i++)
		c[i & (r->cqe_cnt - 1)].owner_sr_opcode =
			(i & r->cqe_cnt) ? 0 : MLX4_CQE_OWNER_MASK;
	return mlx5r_cq_resize_commit(cq, r, cqe32_move);
}

/* ---- application side: post ---- */

static int
mlx4_opcode(enum ibv_qp_type type, enum ibv_wr_opcode op, uint8_t *out)
{
	static const uint8_t map[] = {
		[IBV_WR_RDMA_WRITE] = MLX4_OPCODE_RDMA_WRITE,
		[IBV_WR_RDMA_WRITE_WITH_IMM] = MLX4_OPCODE_RDMA_WRITE_IMM,
		[IBV_WR_SEND] = MLX4_OPCODE_SEND,
		[IBV_WR_SEND_WITH_IMM] = MLX4_OPCODE_SEND_IMM,
		[IBV_WR_RDMA_READ] = MLX4_OPCODE_RDMA_READ,
		[IBV_WR_ATOMIC_CMP_AND_SWP] = MLX4_OPCODE_ATOMIC_CS,
		[IBV_WR_ATOMIC_FETCH_AND_ADD] = MLX4_OPCODE_ATOMIC_FA,
	};
	bool ok;

	switch (type) {
	case IBV_QPT_RC:
	case IBV_QPT_XRC_SEND:
		ok = op <= IBV_WR_ATOMIC_FETCH_AND_ADD;
		break;
	case IBV_QPT_UC:
		ok = op <= IBV_WR_SEND_WITH_IMM;
		break;
	case IBV_QPT_UD:
		ok = op == IBV_WR_SEND || op == IBV_WR_SEND_WITH_IMM;
		break;
	case IBV_QPT_RAW_PACKET:
		ok = op == IBV_WR_SEND;
		break;
	default:
		ok = false;
		break;
	}
	if (!ok)
		return EINVAL;
	*out = map[op];
	return 0;
}

static void
write_datagram(uint8_t *p, const struct ibv_send_wr *wr)
{
	const struct dpv_mlx5_ah *mah =
		container_of(wr->wr.ud.ah, const struct dpv_mlx5_ah, ibv_ah);
	struct mlx4_wqe_datagram_seg d;
	struct dpv_mlx5_av_attr a;

	dpv_mlx5_av_parse(&mah->av, &a);
	memset(&d, 0, sizeof(d));
	d.av.port_pd = htobe32(1u << 24);
	d.av.g_slid = 0x80; /* a GRH: always on RoCE */
	d.av.gid_index = a.sgid_index;
	d.av.stat_rate = a.static_rate;
	d.av.hop_limit = a.hop_limit;
	d.av.sl_tclass_flowlabel =
		htobe32(((uint32_t)a.sl << 29) |
			((uint32_t)a.traffic_class << 20) |
			(a.flow_label & 0xfffff));
	memcpy(d.av.dgid, a.dgid, 16);
	d.dqpn = htobe32(wr->wr.ud.remote_qpn & 0xffffff);
	d.qkey = htobe32(wr->wr.ud.remote_qkey);
	memcpy(d.mac, a.dmac, 6);
	memcpy(p, &d, sizeof(d));
}

/* Data segments or one inline segment at off; the new offset, or 0. */
static uint32_t
write_data(const struct dpv_mlx5_sq *sq, uint8_t *w, uint32_t off,
	   const struct ibv_send_wr *wr)
{
	if (wr->send_flags & IBV_SEND_INLINE) {
		uint32_t len = 0;
		uint8_t *d = w + off + 4;

		for (int i = 0; i < wr->num_sge; i++) {
			if (len + wr->sg_list[i].length > sq->max_inline)
				return 0;
			memcpy(d + len,
			       (const void *)(uintptr_t)wr->sg_list[i].addr,
			       wr->sg_list[i].length);
			len += wr->sg_list[i].length;
		}
		*(__be32 *)(void *)(w + off) = htobe32(MLX4_INLINE_SEG | len);
		return off + RTE_ALIGN_CEIL(4u + len, 16u);
	}
	if (wr->num_sge > (int)sq->wq.max_gs)
		return 0;
	for (int i = 0; i < wr->num_sge; i++, off += 16) {
		struct mlx4_wqe_data_seg *d = (void *)(w + off);

		d->byte_count = htobe32(wr->sg_list[i].length);
		d->lkey = htobe32(wr->sg_list[i].lkey);
		d->addr = htobe64(wr->sg_list[i].addr);
	}
	return off;
}

/*
 * Raw packet: the srcrb_flags of ConnectX-3's provider (MLX4_WQE_CTRL_SOLICIT
 * meaning "no ICRC", the checksum flags for IBV_SEND_IP_CSUM, the first 2
 * bytes of the destination MAC in the top half) and in *imm the other 4
 * MAC bytes; EINVAL for a frame shorter than the Ethernet header.
 */
static int
raw_ctrl(const struct ibv_send_wr *wr, uint32_t *flags, __be32 *imm)
{
	uint8_t mac[6];
	uint32_t got = 0, len = 0;

	for (int i = 0; i < wr->num_sge; i++) {
		uint32_t n = RTE_MIN(wr->sg_list[i].length,
				     (uint32_t)sizeof(mac) - got);

		memcpy(mac + got, (const void *)(uintptr_t)wr->sg_list[i].addr,
		       n);
		got += n;
		len += wr->sg_list[i].length;
	}
	if (len < RTE_ETHER_HDR_LEN)
		return EINVAL;
	*flags |= MLX4_WQE_CTRL_SOLICIT | (uint32_t)mac[0] << 24 |
		  (uint32_t)mac[1] << 16;
	if (wr->send_flags & IBV_SEND_IP_CSUM)
		*flags |= MLX4_WQE_CTRL_IP_HDR_CSUM | MLX4_WQE_CTRL_TCP_UDP_CSUM;
	memcpy(imm, mac + 2, 4);
	return 0;
}

static int
post_one(struct dpv_mlx5_sq *sq, enum ibv_qp_type type,
	 const struct ibv_send_wr *wr)
{
	uint32_t stride = BB << sq->wq.bb_shift, off = 16, bi;
	uint8_t *w = wqe_at(sq, sq->cur_post);
	struct mlx4_wqe_ctrl_seg *c = (void *)w;
	uint32_t tail = __atomic_load_n(&sq->wq.tail, __ATOMIC_ACQUIRE);
	uint32_t flags;
	uint8_t op;

	if (sq->wq.head - tail >= sq->wq.max_post)
		return ENOMEM;
	if (wr->num_sge < 0 || mlx4_opcode(type, wr->opcode, &op) ||
	    (type == IBV_QPT_UD && wr->wr.ud.ah == NULL))
		return EINVAL;
	/* the body first; the owner bit last makes the WQE valid */
	memset(w + 4, 0, stride - 4);
	if (type == IBV_QPT_UD) {
		write_datagram(w + off, wr);
		off += sizeof(struct mlx4_wqe_datagram_seg);
	}
	if (op != MLX4_OPCODE_SEND && op != MLX4_OPCODE_SEND_IMM) {
		struct mlx4_wqe_raddr_seg *r = (void *)(w + off);
		bool atomic = op == MLX4_OPCODE_ATOMIC_CS ||
			      op == MLX4_OPCODE_ATOMIC_FA;

		r->raddr = htobe64(atomic ? wr->wr.atomic.remote_addr
					  : wr->wr.rdma.remote_addr);
		r->rkey = htobe32(atomic ? wr->wr.atomic.rkey
					 : wr->wr.rdma.rkey);
		off += sizeof(*r);
		if (atomic) {
			struct mlx4_wqe_atomic_seg *a = (void *)(w + off);

			if (op == MLX4_OPCODE_ATOMIC_CS) {
				a->swap_add = htobe64(wr->wr.atomic.swap);
				a->compare = htobe64(wr->wr.atomic.compare_add);
			} else {
				a->swap_add = htobe64(wr->wr.atomic.compare_add);
			}
			off += sizeof(*a);
		}
	}
	off = write_data(sq, w, off, wr);
	if (off == 0)
		return EINVAL;
	c->fence_size = (uint8_t)(((wr->send_flags & IBV_SEND_FENCE)
					   ? MLX4_WQE_CTRL_FENCE
					   : 0) |
				  (off / 16));
	/* XRC: the remote SRQ number in bits 8..31, as ConnectX-3 reads it */
	flags = ((wr->send_flags & IBV_SEND_SIGNALED) ? MLX4_WQE_CTRL_CQ_UPDATE
						       : 0) |
		((wr->send_flags & IBV_SEND_SOLICITED) ? MLX4_WQE_CTRL_SOLICIT
							: 0) |
		(type == IBV_QPT_XRC_SEND ? wr->qp_type.xrc.remote_srqn << 8
					  : 0);
	c->imm = (op == MLX4_OPCODE_SEND_IMM || op == MLX4_OPCODE_RDMA_WRITE_IMM)
			 ? wr->imm_data
			 : 0;
	if (type == IBV_QPT_RAW_PACKET && raw_ctrl(wr, &flags, &c->imm))
		return EINVAL;
	c->srcrb_flags = htobe32(flags);
	bi = sq->cur_post & (sq->wq.wqe_cnt - 1);
	sq->slot[bi] = (struct dpv_mlx5_sq_slot){
		.wr_id = wr->wr_id,
		.head = sq->wq.head,
		.bbend = sq->cur_post + (1u << sq->wq.bb_shift),
	};
	dpv_barrier_before_doorbell();
	__atomic_store_n(&c->owner_opcode,
			 htobe32(op | owner_of(&sq->wq, sq->cur_post)),
			 __ATOMIC_RELAXED);
	sq->cur_post += 1u << sq->wq.bb_shift;
	sq->wq.head++;
	return 0;
}

int
dpv_mlx4_post_send(struct dpv_mlx5_sq *sq, enum ibv_qp_type type,
		   uint32_t qpn, struct ibv_send_wr *wr,
		   struct ibv_send_wr **bad)
{
	int err = 0;

	RTE_SET_USED(qpn);
	for (; wr; wr = wr->next) {
		err = post_one(sq, type, wr);
		if (err) {
			*bad = wr;
			break;
		}
	}
	/* a record of the posts for the curious; the engine goes by the
	 * owner bits */
	mlx5r_db_write(&sq->wq, sq->cur_post & 0xffff);
	return err;
}

/* ---- engine side: fetch ---- */

static bool
decode_datagram(const uint8_t *p, struct dpv_wr *out)
{
	const struct mlx4_wqe_datagram_seg *d = (const void *)p;
	uint32_t f = be32toh(d->av.sl_tclass_flowlabel);

	memset(&out->ud, 0, sizeof(out->ud));
	out->ud.remote_qpn = be32toh(d->dqpn) & 0xffffff;
	out->ud.remote_qkey = be32toh(d->qkey);
	memcpy(out->ud.dgid, d->av.dgid, 16);
	memcpy(out->ud.dmac, d->mac, 6);
	out->ud.sgid_index = d->av.gid_index;
	out->ud.hop_limit = d->av.hop_limit;
	out->ud.traffic_class = (f >> 20) & 0xff;
	out->ud.sl = f >> 29;
	out->ud.flow_label = f & 0xfffff;
	out->ud.static_rate = d->av.stat_rate;
	return true;
}

/* The WQE body after the control segment; false if malformed. */
static bool
decode_body(const struct dpv_mlx5_sq *sq, const uint8_t *w, uint32_t end,
	    uint8_t op, struct dpv_wr *out)
{
	uint32_t off = 16;
	bool raddr = true, atomic = false;

	switch (op) {
	case MLX4_OPCODE_SEND:
		out->opcode = IBV_WR_SEND, raddr = false;
		break;
	case MLX4_OPCODE_SEND_IMM:
		out->opcode = IBV_WR_SEND_WITH_IMM, raddr = false;
		break;
	case MLX4_OPCODE_RDMA_WRITE:
		out->opcode = IBV_WR_RDMA_WRITE;
		break;
	case MLX4_OPCODE_RDMA_WRITE_IMM:
		out->opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
		break;
	case MLX4_OPCODE_RDMA_READ:
		out->opcode = IBV_WR_RDMA_READ;
		break;
	case MLX4_OPCODE_ATOMIC_CS:
		out->opcode = IBV_WR_ATOMIC_CMP_AND_SWP, atomic = true;
		break;
	case MLX4_OPCODE_ATOMIC_FA:
		out->opcode = IBV_WR_ATOMIC_FETCH_AND_ADD, atomic = true;
		break;
	default:
		return false;
	}
	if (out->opcode != IBV_WR_SEND_WITH_IMM &&
	    out->opcode != IBV_WR_RDMA_WRITE_WITH_IMM)
		out->imm_data = 0;
	if (sq->type == IBV_QPT_UD) {
		if (raddr || off + 48 > end)
			return false;
		decode_datagram(w + off, out);
		off += sizeof(struct mlx4_wqe_datagram_seg);
	} else if (sq->type == IBV_QPT_UC && (atomic || op ==
						MLX4_OPCODE_RDMA_READ)) {
		return false;
	}
	if (raddr) {
		const struct mlx4_wqe_raddr_seg *r = (const void *)(w + off);

		if (off + sizeof(*r) > end)
			return false;
		out->remote_addr = be64toh(r->raddr);
		out->rkey = be32toh(r->rkey);
		off += sizeof(*r);
	}
	if (atomic) {
		const struct mlx4_wqe_atomic_seg *a = (const void *)(w + off);

		if (off + sizeof(*a) > end)
			return false;
		if (op == MLX4_OPCODE_ATOMIC_CS) {
			out->swap = be64toh(a->swap_add);
			out->compare_add = be64toh(a->compare);
		} else {
			out->compare_add = be64toh(a->swap_add);
		}
		off += sizeof(*a);
	}
	if (off >= end)
		return true;
	if (be32toh(*(const __be32 *)(const void *)(w + off)) &
	    MLX4_INLINE_SEG) {
		uint32_t len = be32toh(*(const __be32 *)(const void *)(w + off)) &
			       ~(uint32_t)MLX4_INLINE_SEG;

		/* one inline segment (dpverbs does not split it at 64-byte
		 * boundaries as ConnectX-3 BlueFlame writers do) */
		if (off + 4 + len > end)
			return false;
		out->flags |= DPV_WR_F_INLINE;
		out->inline_len = len;
		out->total_len = len;
		out->inl[0].addr = w + off + 4;
		out->inl[0].len = len;
		out->inl[1].addr = w;
		out->inl[1].len = 0;
		return true;
	}
	if ((end - off) / 16 > RTE_MIN(sq->wq.max_gs, (uint32_t)DPV_WR_MAX_SGE))
		return false;
	for (; off + 16 <= end; off += 16) {
		const struct mlx4_wqe_data_seg *d = (const void *)(w + off);
		struct dpv_sge *s = &out->sg_list[out->num_sge++];

		s->length = be32toh(d->byte_count);
		if (s->length == 0)
			s->length = 1u << 31;
		s->lkey = be32toh(d->lkey);
		s->addr = be64toh(d->addr);
		out->total_len += s->length;
	}
	return true;
}

bool
dpv_mlx4_sq_fetch(struct dpv_mlx5_sq *sq, struct dpv_wr *out)
{
	uint32_t stride = BB << sq->wq.bb_shift;
	const uint8_t *w = wqe_at(sq, sq->wq.eng_pi);
	const struct mlx4_wqe_ctrl_seg *c = (const void *)w;
	uint32_t oo = be32toh(__atomic_load_n(&c->owner_opcode,
					      __ATOMIC_ACQUIRE));
	uint32_t flags, end;

	if ((oo & OWNER_BIT) != owner_of(&sq->wq, sq->wq.eng_pi))
		return false;
	memset(out, 0, offsetof(struct dpv_wr, inl)); /* struct dpv_wr */
	out->wqe_index = (uint16_t)(sq->wq.eng_pi >> sq->wq.bb_shift);
	out->qpn = sq->qpn;
	out->imm_data = c->imm;
	flags = be32toh(c->srcrb_flags);
	if ((flags & MLX4_WQE_CTRL_CQ_UPDATE) == MLX4_WQE_CTRL_CQ_UPDATE)
		out->flags |= DPV_WR_F_SIGNALED;
	if (flags & MLX4_WQE_CTRL_SOLICIT)
		out->flags |= DPV_WR_F_SOLICITED;
	if (c->fence_size & MLX4_WQE_CTRL_FENCE)
		out->flags |= DPV_WR_F_FENCE;
	if (sq->type == IBV_QPT_XRC_SEND)
		out->xrc_remote_srqn = flags >> 8;
	if (sq->type == IBV_QPT_RAW_PACKET &&
	    (flags & (MLX4_WQE_CTRL_IP_HDR_CSUM | MLX4_WQE_CTRL_TCP_UDP_CSUM)))
		out->flags |= DPV_WR_F_IP_CSUM;
	end = (c->fence_size & 0x3fu) * 16u;
	if (end < 16 || end > stride ||
	    !decode_body(sq, w, end, oo & 0x1f, out)) {
		out->flags |= DPV_WR_F_MALFORMED;
		out->num_sge = 0;
		out->inline_len = 0;
		memset(&out->ud, 0, sizeof(out->ud));
	}
	out->nbb = (uint16_t)(1u << sq->wq.bb_shift);
	sq->wq.eng_pi += out->nbb;
	return true;
}

static int cq_write(struct dpv_mlx5_cq *cq, const struct dpv_cqe_info *ci,
		    int wqe_opcode);

/* Complete every valid WQE not yet retired with a flush error. */
static unsigned int
flush_sq(struct dpv_mlx5_sq *sq, struct dpv_mlx5_cq *cq, uint32_t qpn)
{
	uint32_t pos = sq->wq.eng_ci, n = 0, bbs = 1u << sq->wq.bb_shift;
	struct dpv_cqe_info ci = {
		.status = IBV_WC_WR_FLUSH_ERR,
		.qpn = qpn,
	};

	/* fetched (up to eng_pi) or valid by owner bit beyond it */
	for (uint32_t k = 0; k < sq->wq.max_post; k++) {
		const struct mlx4_wqe_ctrl_seg *c = (const void *)wqe_at(sq, pos);
		uint32_t oo = be32toh(__atomic_load_n(&c->owner_opcode,
						      __ATOMIC_ACQUIRE));

		if ((int32_t)(pos - sq->wq.eng_pi) >= 0 &&
		    (oo & OWNER_BIT) != owner_of(&sq->wq, pos))
			break;
		ci.wqe_counter = (uint16_t)(pos >> sq->wq.bb_shift);
		if (cq_write(cq, &ci, (int)(oo & 0x1f)))
			break;
		pos += bbs;
		n++;
	}
	sq->wq.eng_ci = pos;
	if ((int32_t)(pos - sq->wq.eng_pi) > 0)
		sq->wq.eng_pi = pos;
	return n;
}

/* ---- engine side: CQEs ---- */

static inline struct mlx4_cqe *
cqe_at(const struct dpv_mlx5_cq *cq, uint32_t idx)
{
	return (struct mlx4_cqe *)(void *)cq->buf + (idx & (cq->cqe_cnt - 1));
}

static uint8_t
recv_opcode(const struct dpv_cqe_info *ci)
{
	if (ci->opcode == IBV_WC_RECV_RDMA_WITH_IMM)
		return MLX4_RECV_OPCODE_RDMA_WRITE_IMM;
	if (ci->wc_flags & IBV_WC_WITH_IMM)
		return MLX4_RECV_OPCODE_SEND_IMM;
	if (ci->wc_flags & IBV_WC_WITH_INV)
		return MLX4_RECV_OPCODE_SEND_INVAL;
	return MLX4_RECV_OPCODE_SEND;
}

/* The reserved byte of a CQE carries dpverbs' solicited flag (read only
 * by the engine's arm logic; ConnectX-3 leaves it 0). */
#define CQE_SOLICITED 1u

/* One 32-byte CQE; send completions: wqe_opcode is the MLX4_OPCODE_* of
 * the WQE, or -1 to derive it from ci. 0 or ENOSPC (CQ full). */
static int
cq_write(struct dpv_mlx5_cq *cq, const struct dpv_cqe_info *ci, int wqe_opcode)
{
	uint32_t cons =
		be32toh(__atomic_load_n(&cq->dbrec[0], __ATOMIC_ACQUIRE));
	uint32_t used = (cq->prod_index - cons) & 0xffffff;
	uint32_t qpn = ci->qpn & 0xffffff;
	uint8_t oo = (cq->prod_index & cq->cqe_cnt) ? MLX4_CQE_OWNER_MASK : 0;
	struct mlx4_cqe c, *dst;

	if (used >= cq->cqe_cnt)
		return ENOSPC;
	if (wqe_opcode < 0)
		wqe_opcode = mlx5r_wc_to_wqe_opcode(ci->opcode, ci->wc_flags);
	memset(&c, 0, sizeof(c));
	c.vlan_my_qpn = htobe32(qpn);
	c.wqe_index = htobe16(ci->wqe_counter);
	/* a receive of an XRC target QP (its number has DPV_MLX4_XRC_QPN_BIT):
	 * the SRQ number where the source QP goes, as on ConnectX-3 */
	if (ci->is_recv && (qpn & DPV_MLX4_XRC_QPN_BIT))
		c.g_mlpath_rqpn = htobe32(ci->srqn & 0xffffff);
	if (!ci->is_recv)
		oo |= MLX4_CQE_IS_SEND_MASK;
	if (ci->status != IBV_WC_SUCCESS) {
		struct mlx4_err_cqe *e = (void *)&c;

		e->syndrome = mlx5r_status_to_synd(ci->status);
		e->vendor_err = ci->vendor_err;
		oo |= MLX4_CQE_OPCODE_ERROR;
	} else if (!ci->is_recv) {
		c.byte_cnt = htobe32(ci->byte_len);
		oo |= (uint8_t)(wqe_opcode & MLX4_CQE_OPCODE_MASK);
	} else {
		uint8_t op = recv_opcode(ci);

		oo |= op;
		c.byte_cnt = htobe32(ci->byte_len);
		if (op == MLX4_RECV_OPCODE_SEND_INVAL)
			c.immed_rss_invalid = htobe32(ci->invalidated_rkey);
		else if (op != MLX4_RECV_OPCODE_SEND)
			c.immed_rss_invalid = ci->imm_data;
		c.g_mlpath_rqpn |=
			htobe32(((ci->wc_flags & IBV_WC_GRH) ? 1u << 31 : 0) |
				((uint32_t)(ci->dlid_path_bits & 0x7f) << 24) |
				((qpn & DPV_MLX4_XRC_QPN_BIT) ? 0
							  : ci->src_qp & 0xffffff));
		c.sl_vid = htobe16((uint16_t)((ci->sl & 7) << 13));
		if (ci->vlan_stripped) { /* raw packet: the stripped tag */
			c.vlan_my_qpn |= htobe32(MLX4_CQE_VLAN_PRESENT_MASK);
			c.sl_vid = htobe16(ci->vlan_tci);
		}
		c.rlid = htobe16(ci->slid);
		if (ci->wc_flags & IBV_WC_IP_CSUM_OK)
			c.status = htobe32(MLX4_CQE_STATUS_IPV4_CSUM_OK);
		if (ci->solicited)
			c.reserved3 = CQE_SOLICITED;
	}
	dst = cqe_at(cq, cq->prod_index);
	memcpy(dst, &c, offsetof(struct mlx4_cqe, owner_sr_opcode));
	dpv_barrier_before_cqe_owner();
	__atomic_store_n(&dst->owner_sr_opcode, oo, __ATOMIC_RELAXED);
	cq->prod_index++;
	return 0;
}

int
dpv_mlx4_cq_push(struct dpv_mlx5_cq *cq, const struct dpv_cqe_info *ci)
{
	return cq_write(cq, ci, -1);
}

/* Was the CQE at idx solicited or an error (for a solicited-only arm)? */
static inline bool
cqe_wakes_sol(const struct dpv_mlx5_cq *cq, uint32_t idx)
{
	const struct mlx4_cqe *c = cqe_at(cq, idx);

	return (c->reserved3 & CQE_SOLICITED) ||
	       (c->owner_sr_opcode & MLX4_CQE_OPCODE_MASK) ==
		       MLX4_CQE_OPCODE_ERROR;
}

static inline bool
cqe_owned(const struct dpv_mlx5_cq *cq, uint32_t idx, uint8_t oo)
{
	return !!(oo & MLX4_CQE_OWNER_MASK) == !!(idx & cq->cqe_cnt);
}

bool
dpv_mlx4_cq_should_notify(struct dpv_mlx5_cq *cq)
{
	if (!mlx5r_cq_arm_check(cq))
		return false;
	for (; cq->eng_scan != cq->prod_index; cq->eng_scan++)
		if ((!cq->eng_arm_sol || cqe_wakes_sol(cq, cq->eng_scan)) &&
		    mlx5r_cq_arm_hit(cq, 1))
			return true;
	return mlx5r_cq_arm_expired(cq);
}

/* ---- application side: poll ---- */

/* Consume one CQE into wc: 0, ENOENT (empty) or EIO (unknown queue). */
static int
poll_one(struct dpv_mlx5_cq *cq, dpv_mlx5_wq_lookup_t lookup, void *arg,
	 struct ibv_wc *wc)
{
	struct mlx4_cqe *cqe = cqe_at(cq, cq->cons_index);
	uint8_t oo = __atomic_load_n(&cqe->owner_sr_opcode, __ATOMIC_RELAXED);
	uint8_t op = oo & MLX4_CQE_OPCODE_MASK;
	bool send = oo & MLX4_CQE_IS_SEND_MASK;
	struct dpv_mlx5_wq *wq;
	uint32_t qpn, g;
	uint16_t idx;
	int rc;

	if (!cqe_owned(cq, cq->cons_index, oo))
		return ENOENT;
	dpv_barrier_after_owned_cqe();
	cq->cons_index++;
	qpn = be32toh(cqe->vlan_my_qpn) & MLX4_CQE_QPN_MASK;
	idx = be16toh(cqe->wqe_index);
	memset(wc, 0, sizeof(*wc));
	wc->qp_num = qpn;
	cq->cur_ts = 0;
	cq->cur_vlan = 0;
	if (send) {
		wq = lookup(arg, qpn, false);
		if (wq == NULL)
			return EIO;
		/* the WQE counter back to the ring's block counter */
		rc = mlx5r_req_done(wq, (uint16_t)(idx << wq->bb_shift), wc,
				    op == MLX4_CQE_OPCODE_ERROR ? 0 : op);
		if (rc)
			return rc;
		if (op == MLX4_CQE_OPCODE_ERROR) {
			struct mlx4_err_cqe *e = (void *)cqe;

			wc->status = mlx5r_synd_to_status(e->syndrome);
			wc->vendor_err = e->vendor_err;
			wc->opcode = 0;
			wc->byte_len = 0;
			wc->wc_flags = 0;
			return 0;
		}
		wc->status = IBV_WC_SUCCESS;
		if (wc->opcode != IBV_WC_COMP_SWAP &&
		    wc->opcode != IBV_WC_FETCH_ADD)
			wc->byte_len = be32toh(cqe->byte_cnt);
		return 0;
	}
	/* an XRC target QP's receive names its SRQ (see cq_write) */
	g = be32toh(cqe->g_mlpath_rqpn);
	wq = mlx5r_lookup_recv(lookup, arg, qpn,
			       (qpn & DPV_MLX4_XRC_QPN_BIT) ? g & 0xffffff : 0);
	if (mlx5r_resp_done(wq, idx, wc))
		return EIO;
	if (op == MLX4_CQE_OPCODE_ERROR) {
		struct mlx4_err_cqe *e = (void *)cqe;

		wc->status = mlx5r_synd_to_status(e->syndrome);
		wc->vendor_err = e->vendor_err;
		return 0;
	}
	wc->status = IBV_WC_SUCCESS;
	wc->byte_len = be32toh(cqe->byte_cnt);
	wc->opcode = op == MLX4_RECV_OPCODE_RDMA_WRITE_IMM
			     ? IBV_WC_RECV_RDMA_WITH_IMM
			     : IBV_WC_RECV;
	if (op == MLX4_RECV_OPCODE_RDMA_WRITE_IMM ||
	    op == MLX4_RECV_OPCODE_SEND_IMM) {
		wc->wc_flags |= IBV_WC_WITH_IMM;
		wc->imm_data = cqe->immed_rss_invalid;
	} else if (op == MLX4_RECV_OPCODE_SEND_INVAL) {
		wc->wc_flags |= IBV_WC_WITH_INV;
		wc->invalidated_rkey = be32toh(cqe->immed_rss_invalid);
	}
	wc->src_qp = g & 0xffffff;
	wc->dlid_path_bits = (g >> 24) & 0x7f;
	if (g & (1u << 31))
		wc->wc_flags |= IBV_WC_GRH;
	wc->sl = be16toh(cqe->sl_vid) >> 13;
	if (be32toh(cqe->vlan_my_qpn) & MLX4_CQE_VLAN_PRESENT_MASK)
		cq->cur_vlan = be16toh(cqe->sl_vid);
	wc->slid = be16toh(cqe->rlid);
	if ((be32toh(cqe->status) & MLX4_CQE_STATUS_IPV4_CSUM_OK) ==
	    MLX4_CQE_STATUS_IPV4_CSUM_OK)
		wc->wc_flags |= IBV_WC_IP_CSUM_OK;
	return 0;
}

int
dpv_mlx4_cq_poll(struct dpv_mlx5_cq *cq, int n, struct ibv_wc *wc,
		 dpv_mlx5_wq_lookup_t lookup, void *arg)
{
	if (n < 0)
		return -EINVAL;
	return mlx5r_poll_n(cq, n, wc, lookup, arg, poll_one);
}

int
dpv_mlx4_cq_ex_next(struct dpv_mlx5_cq *cq, dpv_mlx5_wq_lookup_t lookup,
		    void *arg, uint64_t *wr_id, enum ibv_wc_status *status)
{
	return mlx5r_ex_next(cq, lookup, arg, wr_id, status, poll_one);
}

unsigned int
dpv_mlx4_cq_clean(struct dpv_mlx5_cq *cq, uint32_t qpn, struct dpv_mlx5_rq *srq)
{
	uint32_t prod, i, freed = 0;

	if (cq->buf == NULL)
		return 0;
	qpn &= 0xffffff;
	for (prod = cq->cons_index; prod - cq->cons_index < cq->cqe_cnt;
	     prod++)
		if (!cqe_owned(cq, prod, cqe_at(cq, prod)->owner_sr_opcode))
			break;
	dpv_barrier_after_owned_cqe();
	/* newest to oldest: drop the QP's CQEs, slide the others up, each
	 * copy taking the owner bit of its new slot */
	for (i = prod; i-- != cq->cons_index;) {
		struct mlx4_cqe *c = cqe_at(cq, i);

		if ((be32toh(c->vlan_my_qpn) & MLX4_CQE_QPN_MASK) == qpn) {
			if (srq != NULL &&
			    !(c->owner_sr_opcode & MLX4_CQE_IS_SEND_MASK))
				mlx5r_srq_free(srq, be16toh(c->wqe_index));
			freed++;
		} else if (freed != 0) {
			struct mlx4_cqe *d = cqe_at(cq, i + freed);
			uint8_t own = ((i + freed) & cq->cqe_cnt)
					      ? MLX4_CQE_OWNER_MASK
					      : 0;

			memcpy(d, c, offsetof(struct mlx4_cqe, owner_sr_opcode));
			d->owner_sr_opcode = (uint8_t)((c->owner_sr_opcode &
						       ~MLX4_CQE_OWNER_MASK) |
						      own);
		}
	}
	if (freed != 0) {
		cq->cons_index += freed;
		__atomic_store_n(&cq->dbrec[0],
				 htobe32(cq->cons_index & 0xffffff),
				 __ATOMIC_RELEASE);
	}
	return freed;
}

/* ---- mlx4dv views ---- */

int
dpv_mlx4_qp_join(struct dpv_mlx5_sq *sq, struct dpv_mlx5_rq *rq)
{
	size_t sl = (size_t)sq->wq.wqe_cnt * BB;
	size_t rl = (size_t)rq->wq.wqe_cnt << rq->wq.wqe_shift;
	uint8_t *blk = dpv_mlx5_mem_zalloc(sl + rl);

	if (blk == NULL)
		return ENOMEM;
	/* what the rings hold at creation (their initial owner bits) */
	memcpy(blk, sq->wq.buf, sl);
	memcpy(blk + sl, rq->wq.buf, rl);
	dpv_mlx5_mem_free(sq->wq.buf);
	if (!rq->wq.buf_borrowed)
		dpv_mlx5_mem_free(rq->wq.buf);
	sq->wq.buf = blk;
	rq->wq.buf = blk + sl;
	rq->wq.buf_borrowed = true;
	return 0;
}

int
dpv_mlx4_qp_to_dv(const struct dpv_mlx5_sq *sq, const struct dpv_mlx5_rq *rq,
		  uint32_t qpn, struct mlx4dv_qp *out)
{
	const uint8_t *sb = sq != NULL ? sq->wq.buf : NULL;
	const uint8_t *rb = rq != NULL ? rq->wq.buf : NULL;
	size_t sl = sb ? (size_t)sq->wq.wqe_cnt * BB : 0;
	size_t rl = rb ? (size_t)rq->wq.wqe_cnt << rq->wq.wqe_shift : 0;
	const uint8_t *lo, *hi;

	memset(out, 0, sizeof(*out));
	/* one buffer holds both rings, each at its offset, as on ConnectX-3
	 * (dpv_mlx4_qp_join() put the RQ right after the SQ) */
	lo = sb == NULL ? rb : rb == NULL ? sb : RTE_MIN(sb, rb);
	hi = sb == NULL ? rb + rl
	     : rb == NULL ? sb + sl
			  : RTE_MAX(sb + sl, rb + rl);
	if (lo == NULL)
		return EINVAL;
	if ((size_t)(hi - lo) > INT32_MAX)
		return EINVAL;
	out->buf.buf = (void *)(uintptr_t)lo;
	out->buf.length = (size_t)(hi - lo);
	out->doorbell_qpn = htobe32(qpn << 8);
	if (sb) {
		out->sq.wqe_cnt = sq->wq.max_post;
		out->sq.wqe_shift = 6 + sq->wq.bb_shift;
		out->sq.offset = (int)(sb - lo);
		/* the send doorbell register: a word the engine does not need
		 * (it goes by owner bits), in the SQ's record line */
		out->sdb = (uint32_t *)(void *)((uint8_t *)sq->wq.dbrec_own +
						MLX4_SEND_DOORBELL);
	}
	if (rb) {
		out->rq.wqe_cnt = rq->wq.wqe_cnt;
		out->rq.wqe_shift = (int)rq->wq.wqe_shift;
		out->rq.offset = (int)(rb - lo);
		out->rdb = (__be32 *)(uintptr_t)rq->wq.db;
	}
	return 0;
}

void
dpv_mlx4_cq_to_dv(const struct dpv_mlx5_cq *cq, struct mlx4dv_cq *out)
{
	memset(out, 0, sizeof(*out));
	out->buf.buf = cq->buf;
	out->buf.length = (size_t)cq->cqe_cnt * DPV_MLX4_CQE_SIZE;
	out->cqe_cnt = cq->cqe_cnt;
	out->cqn = cq->cqn;
	out->set_ci_db = &cq->dbrec[0];
	out->arm_db = &cq->dbrec[1];
	out->arm_sn = (int)(cq->arm_sn & 3);
	out->cqe_size = DPV_MLX4_CQE_SIZE;
	out->comp_mask = MLX4DV_CQ_MASK_UAR;
	out->cq_uar = cq->uar;
}

void
dpv_mlx4_srq_to_dv(const struct dpv_mlx5_rq *rq, struct mlx4dv_srq *out)
{
	memset(out, 0, sizeof(*out));
	out->buf.buf = rq->wq.buf;
	out->buf.length = (size_t)rq->wq.wqe_cnt << rq->wq.wqe_shift;
	out->wqe_shift = (int)rq->wq.wqe_shift;
	out->head = (int)rq->srq_head;
	out->tail = (int)rq->srq_tail;
	out->db = (__be32 *)(uintptr_t)rq->wq.db;
}

void
dpv_mlx4_rwq_to_dv(const struct dpv_mlx5_rq *rq, struct mlx4dv_rwq *out)
{
	memset(out, 0, sizeof(*out));
	out->buf.buf = rq->wq.buf;
	out->buf.length = (size_t)rq->wq.wqe_cnt << rq->wq.wqe_shift;
	out->rq.wqe_cnt = rq->wq.wqe_cnt;
	out->rq.wqe_shift = (int)rq->wq.wqe_shift;
	out->rq.offset = 0;
	out->rdb = (__be32 *)(uintptr_t)rq->wq.db;
}

/* ---- the operations table ---- */

static int
mlx4_sq_init(struct dpv_mlx5_sq *sq, unsigned int max_wr, unsigned int max_sge,
	     unsigned int max_inline, unsigned int max_tso_header, int socket)
{
	RTE_SET_USED(max_tso_header); /* no raw packet QPs: no TSO */
	return dpv_mlx4_sq_init(sq, max_wr, max_sge, max_inline, socket);
}

/* RQs and SRQs have the mlx5 bytes; the table is mlx4's so that their
 * flush writes mlx4 CQEs. rc: the mlx5 init's result. */
static int
rq_adopt(int rc, struct dpv_mlx5_rq *rq)
{
	if (rc == 0)
		rq->wq.ops = &dpv_mlx4_ring_ops;
	return rc;
}

static int
mlx4_rq_init(struct dpv_mlx5_rq *rq, unsigned int max_wr,
	     unsigned int max_sge, int socket)
{
	return rq_adopt(dpv_mlx5_rq_init(rq, max_wr, max_sge, socket), rq);
}

static int
mlx4_srq_init(struct dpv_mlx5_rq *rq, unsigned int max_wr,
	      unsigned int max_sge, int socket)
{
	return rq_adopt(dpv_mlx5_srq_init(rq, max_wr, max_sge, socket), rq);
}

/* The SQ: the owner bit of the next WQE says it is valid; RQ and SRQ:
 * the doorbell record, as mlx5's. */
static bool
mlx4_wq_posted(const struct dpv_mlx5_wq *wq)
{
	const struct mlx4_wqe_ctrl_seg *c;

	if (wq->kind != DPV_MLX5_WQ_SQ)
		return dpv_mlx5_wq_posted(wq);
	c = (const void *)(wq->buf + ((wq->eng_pi & (wq->wqe_cnt - 1)) * BB));
	return (be32toh(__atomic_load_n(&c->owner_opcode, __ATOMIC_RELAXED)) &
		OWNER_BIT) == owner_of(wq, wq->eng_pi);
}

unsigned int
dpv_mlx4_flush(struct dpv_mlx5_wq *wq, struct dpv_mlx5_cq *cq, uint32_t qpn)
{
	switch (wq->kind) {
	case DPV_MLX5_WQ_SQ:
		return flush_sq((struct dpv_mlx5_sq *)wq, cq, qpn);
	case DPV_MLX5_WQ_RQ:
		return mlx5r_flush_rq((struct dpv_mlx5_rq *)wq, cq, qpn,
				      cq_write);
	default:
		return 0;
	}
}

const struct dpv_ring_ops dpv_mlx4_ring_ops = {
	.name = "mlx4",
	.caps = DPV_RING_CAP_CQ_RESIZE | DPV_RING_CAP_XRC | DPV_RING_CAP_RAW |
		DPV_RING_CAP_RSS,
	.xrc_qpn_bit = DPV_MLX4_XRC_QPN_BIT,
	.sq_init = mlx4_sq_init,
	.rq_init = mlx4_rq_init,
	.srq_init = mlx4_srq_init,
	.cq_init = dpv_mlx4_cq_init,
	.cq_resize_prepare = mlx4_cq_resize_prepare,
	.cq_resize_commit = mlx4_cq_resize_commit,
	.qp_join = dpv_mlx4_qp_join,
	.post_send = dpv_mlx4_post_send,
	.post_recv = dpv_mlx5_post_recv,
	.cq_poll = dpv_mlx4_cq_poll,
	.cq_ex_next = dpv_mlx4_cq_ex_next,
	.cq_clean = dpv_mlx4_cq_clean,
	.wq_posted = mlx4_wq_posted,
	.sq_fetch = dpv_mlx4_sq_fetch,
	.cq_push = dpv_mlx4_cq_push,
	.cq_should_notify = dpv_mlx4_cq_should_notify,
	.flush = dpv_mlx4_flush,
};
