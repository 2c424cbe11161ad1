/* SPDX-License-Identifier: BSD-3-Clause */
/* mlx5 ring personality: the engine-side decoder of send WQEs (what
 * mlx5_send.c and direct-verbs applications write). */

#include <errno.h>
#include <stddef.h>

#include "mlx5_ring_priv.h"

/* ---- engine: decode ---- */

static uint8_t
access_from_mkey(uint8_t a)
{
	unsigned int r = 0;

	if (a & MLX5_WQE_MKEY_CONTEXT_ACCESS_FLAGS_LOCAL_WRITE)
		r |= IBV_ACCESS_LOCAL_WRITE;
	if (a & MLX5_WQE_MKEY_CONTEXT_ACCESS_FLAGS_REMOTE_WRITE)
		r |= IBV_ACCESS_REMOTE_WRITE;
	if (a & MLX5_WQE_MKEY_CONTEXT_ACCESS_FLAGS_REMOTE_READ)
		r |= IBV_ACCESS_REMOTE_READ;
	if (a & MLX5_WQE_MKEY_CONTEXT_ACCESS_FLAGS_ATOMIC)
		r |= IBV_ACCESS_REMOTE_ATOMIC;
	return (uint8_t)r;
}

/* An indirect key configuration: its entries stay in the ring. */
static bool
decode_mkey(const struct dpv_mlx5_sq *sq, uint32_t base, uint32_t at,
	    uint32_t end, const struct mlx5_wqe_umr_ctrl_seg *u,
	    const struct mlx5_wqe_mkey_context_seg *m, struct dpv_wr *out)
{
	uint32_t xlat = be16toh(u->klm_octowords) * 16u;
	uint64_t mask = be64toh(u->mkey_mask);
	struct mlx5_wqe_umr_repeat_block_seg b;

	out->opcode = IBV_WR_DRIVER1;
	memset(&out->umr, 0, sizeof(out->umr));
	out->umr.mkey = be32toh(out->imm_data);
	out->imm_data = 0;
	if (mask & MLX5_WQE_UMR_CTRL_MKEY_MASK_FREE)
		out->umr.set |= DPV_UMR_RECONF;
	if (mask & MKEY_MASK_ACCESS) {
		out->umr.set |= DPV_UMR_SET_ACCESS;
		out->umr.access = access_from_mkey(m->access_flags);
	}
	if (mask & (MLX5_WQE_UMR_CTRL_MKEY_MASK_BSF_ENABLE |
		    MLX5_WQE_UMR_CTRL_MKEY_MASK_SIG_ERR))
		out->umr.set |= DPV_UMR_SET_SIG;
	if (!(mask & MLX5_WQE_UMR_CTRL_MKEY_MASK_LEN))
		return xlat == 0; /* no layout: keep the key's */
	if (xlat == 0 || at + xlat > end)
		return false;
	out->umr.set |= DPV_UMR_SET_LAYOUT;
	mlx5r_copy_out(&sq->wq, base + at, &b, sizeof(b));
	if (be32toh(b.op) == 0x400) {
		out->umr.repeat = be32toh(b.repeat_count);
		out->umr.num = be16toh(b.num_ent);
		if (16u * (out->umr.num + 1) > xlat)
			return false;
		at += 16;
	} else {
		out->umr.num = xlat / 16;
	}
	out->umr.pos = (base + at) & (mlx5r_ring_bytes(&sq->wq) - 1);
	return out->umr.num <= DPV_WR_MAX_KLM;
}

bool
dpv_mlx5_sq_umr_klm(const struct dpv_mlx5_sq *sq, const struct dpv_wr *w,
		    struct dpv_klm *out)
{
	if (w->opcode != IBV_WR_DRIVER1 || w->umr.num > DPV_WR_MAX_KLM)
		return false;
	for (uint32_t i = 0; i < w->umr.num; i++) {
		uint32_t at = w->umr.pos + 16u * i;

		if (w->umr.repeat) {
			struct mlx5_wqe_umr_repeat_ent_seg r;

			mlx5r_copy_out(&sq->wq, at, &r, sizeof(r));
			out[i].addr = be64toh(r.va);
			out[i].len = be16toh(r.byte_count);
			out[i].stride = be16toh(r.stride);
			out[i].lkey = be32toh(r.memkey);
		} else {
			struct mlx5_wqe_umr_klm_seg k;

			mlx5r_copy_out(&sq->wq, at, &k, sizeof(k));
			out[i].addr = be64toh(k.address);
			out[i].len = be32toh(k.byte_count);
			out[i].stride = 0;
			out[i].lkey = be32toh(k.mkey);
		}
	}
	return true;
}

static bool
decode_umr(const struct dpv_mlx5_sq *sq, uint32_t base, uint32_t off,
	   uint32_t end, uint32_t idx, struct dpv_wr *out)
{
	struct mlx5_wqe_umr_ctrl_seg u;
	struct mlx5_wqe_mkey_context_seg m;
	struct mlx5_wqe_umr_klm_seg k;

	if (off + UMR_CTRL_SZ + MKEY_SZ > end)
		return false;
	mlx5r_copy_out(&sq->wq, base + off, &u, sizeof(u));
	mlx5r_copy_out(&sq->wq, base + off + UMR_CTRL_SZ, &m, sizeof(m));
	if (sq->slot[idx].data == IBV_WC_DRIVER2)
		return false; /* a raw UMR WQE: not a layout we know */
	if (sq->slot[idx].data == MLX5DV_WC_UMR)
		return decode_mkey(sq, base, off + UMR_CTRL_SZ + MKEY_SZ, end,
				   &u, &m, out);
	if (sq->slot[idx].data == IBV_WC_LOCAL_INV) {
		out->opcode = IBV_WR_LOCAL_INV;
		out->invalidate_rkey = be32toh(out->imm_data);
		out->imm_data = 0;
		return true;
	}
	out->opcode = IBV_WR_BIND_MW;
	memset(&out->bind, 0, sizeof(out->bind));
	out->bind.mw_rkey = be32toh(out->imm_data);
	out->imm_data = 0;
	out->bind.new_key = be32toh(m.qpn_mkey) & 0xff;
	out->bind.type2 = (u.flags & (MLX5_WQE_UMR_CTRL_FLAG_CHECK_FREE |
				      MLX5_WQE_UMR_CTRL_FLAG_CHECK_QPN)) != 0;
	if (m.free & MLX5_WQE_MKEY_CONTEXT_FREE)
		return true;
	if (off + UMR_CTRL_SZ + MKEY_SZ + sizeof(k) > end)
		return false;
	mlx5r_copy_out(&sq->wq, base + off + UMR_CTRL_SZ + MKEY_SZ, &k,
		       sizeof(k));
	out->bind.access = access_from_mkey(m.access_flags);
	out->bind.length = be64toh(m.len);
	out->bind.addr = be64toh(k.address);
	out->bind.mr_lkey = be32toh(k.mkey);
	out->bind.zero_based = m.start_addr == 0 && k.address != 0;
	if (out->bind.zero_based)
		out->bind.access |= IBV_ACCESS_ZERO_BASED;
	return true;
}

/* The TSO part of a raw WQE's Ethernet segment: MSS and the header
 * template, left in the ring (tso_hdr[] points at it). */
static bool
decode_tso(const struct dpv_mlx5_sq *sq, uint32_t base, uint32_t off,
	   uint32_t end, uint16_t hl, const struct mlx5_wqe_eth_seg *e,
	   struct dpv_wr *out)
{
	uint32_t size = mlx5r_ring_bytes(&sq->wq);
	uint32_t p, first;

	if (hl < DPV_MLX5_ETH_INLINE_HDR || hl > DPV_MLX5_MAX_TSO_HEADER ||
	    off + ETH_SEG_SZ +
			    RTE_ALIGN_CEIL(hl - DPV_MLX5_ETH_INLINE_HDR, 16u) >
		    end)
		return false;
	p = (base + off + offsetof(struct mlx5_wqe_eth_seg, inline_hdr_start)) &
	    (size - 1);
	first = RTE_MIN((uint32_t)hl, size - p);
	out->raw_hdr_len = hl;
	out->tso_mss = be16toh(e->mss);
	out->tso_hdr[0].addr = sq->wq.buf + p;
	out->tso_hdr[0].len = first;
	out->tso_hdr[1].addr = sq->wq.buf;
	out->tso_hdr[1].len = hl - first;
	return true;
}

/* SEND, WRITE and READ (with or without immediate): the verbs opcode,
 * whether a remote-address segment follows the control segment, whether
 * the control segment's imm is the immediate. false: another opcode. */
static inline bool
plain_op(uint8_t op, enum ibv_wr_opcode *wop, bool *raddr, bool *imm)
{
	switch (op) {
	case MLX5_OPCODE_SEND:
		*wop = IBV_WR_SEND, *raddr = false, *imm = false;
		return true;
	case MLX5_OPCODE_SEND_IMM:
		*wop = IBV_WR_SEND_WITH_IMM, *raddr = false, *imm = true;
		return true;
	case MLX5_OPCODE_RDMA_WRITE:
		*wop = IBV_WR_RDMA_WRITE, *raddr = true, *imm = false;
		return true;
	case MLX5_OPCODE_RDMA_WRITE_IMM:
		*wop = IBV_WR_RDMA_WRITE_WITH_IMM, *raddr = true, *imm = true;
		return true;
	case MLX5_OPCODE_RDMA_READ:
		*wop = IBV_WR_RDMA_READ, *raddr = true, *imm = false;
		return true;
	default:
		return false;
	}
}

/* Decode the WQE at block counter start; false if malformed. */
static bool
decode_send(struct dpv_mlx5_sq *sq, uint32_t start, uint32_t ds,
	    const struct mlx5_wqe_ctrl_seg *c, struct dpv_wr *out)
{
	uint32_t base = start << MLX5_SEND_WQE_SHIFT;
	uint32_t end = ds * 16, off = CTRL_SZ;
	uint8_t op = be32toh(c->opmod_idx_opcode) & 0xff;
	uint32_t idx = start & (sq->wq.wqe_cnt - 1);
	bool raddr = false, atomic = false, imm;

	out->imm_data = c->imm;
	if (sq->type == IBV_QPT_XRC_SEND && op != MLX5_OPCODE_UMR) {
		struct dpv_mlx5_wqe_xrc_seg x;

		mlx5r_copy_out(&sq->wq, base + off, &x, sizeof(x));
		out->xrc_remote_srqn = be32toh(x.xrc_srqn) & 0xffffff;
		off += sizeof(x);
	} else if (sq->type == IBV_QPT_UD ||
		   (sq->type == IBV_QPT_DRIVER && op != MLX5_OPCODE_UMR)) {
		struct mlx5_wqe_datagram_seg d;
		struct dpv_mlx5_av_attr a;

		mlx5r_copy_out(&sq->wq, base + off, &d, sizeof(d));
		dpv_mlx5_av_parse(&d.av, &a);
		memset(&out->ud, 0, sizeof(out->ud));
		out->ud.remote_qpn = be32toh(d.av.dqp_dct) & 0xffffff;
		if (sq->type == IBV_QPT_DRIVER)
			out->ud.dc_key = be64toh(d.av.key.dc_key);
		else
			out->ud.remote_qkey = be32toh(d.av.key.qkey.qkey);
		memcpy(out->ud.dgid, a.dgid, 16);
		memcpy(out->ud.dmac, a.dmac, 6);
		out->ud.sgid_index = a.sgid_index;
		out->ud.hop_limit = a.hop_limit;
		out->ud.traffic_class = a.traffic_class;
		out->ud.sl = a.sl;
		out->ud.static_rate = a.static_rate;
		out->ud.flow_label = a.flow_label;
		out->ud.udp_sport = a.udp_sport;
		off += sizeof(d);
	} else if (sq->type == IBV_QPT_RAW_PACKET) {
		struct mlx5_wqe_eth_seg e;
		uint16_t hl;

		mlx5r_copy_out(&sq->wq, base + off, &e, sizeof(e));
		hl = be16toh(e.inline_hdr_sz);
		if (e.cs_flags & (MLX5_ETH_WQE_L3_CSUM | MLX5_ETH_WQE_L4_CSUM))
			out->flags |= DPV_WR_F_IP_CSUM;
		if (op == MLX5_OPCODE_TSO) {
			if (!decode_tso(sq, base, off, end, hl, &e, out))
				return false;
			off += ETH_SEG_SZ +
			       RTE_ALIGN_CEIL(hl - DPV_MLX5_ETH_INLINE_HDR,
					      16u);
		} else {
			if (hl > 2 + sizeof(e.inline_hdr))
				return false;
			out->raw_hdr_len = hl;
			memcpy(out->raw_hdr, e.inline_hdr_start, hl);
			off += sizeof(e);
		}
	}
	switch (op) {
	case MLX5_OPCODE_SEND_INVAL:
		out->opcode = IBV_WR_SEND_WITH_INV;
		out->invalidate_rkey = be32toh(c->imm);
		out->imm_data = 0;
		break;
	case MLX5_OPCODE_ATOMIC_CS:
		out->opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
		out->imm_data = 0;
		raddr = atomic = true;
		break;
	case MLX5_OPCODE_ATOMIC_FA:
		out->opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
		out->imm_data = 0;
		raddr = atomic = true;
		break;
	case DPV_MLX5_OPCODE_ATOMIC_WRITE:
		if (sq->type != IBV_QPT_RC)
			return false;
		out->opcode = IBV_WR_ATOMIC_WRITE;
		out->imm_data = 0;
		raddr = atomic = true;
		break;
	case MLX5_OPCODE_UMR:
		return decode_umr(sq, base, off, end, idx, out);
	case MLX5_OPCODE_TSO:
		if (sq->type != IBV_QPT_RAW_PACKET)
			return false;
		out->opcode = IBV_WR_TSO;
		out->imm_data = 0;
		break;
	default: /* SEND, WRITE, READ */
		if (!plain_op(op, &out->opcode, &raddr, &imm))
			return false;
		if (!imm)
			out->imm_data = 0;
		break;
	}
	if (raddr) {
		struct mlx5_wqe_raddr_seg r;

		if (off + sizeof(r) > end)
			return false;
		mlx5r_copy_out(&sq->wq, base + off, &r, sizeof(r));
		out->remote_addr = be64toh(r.raddr);
		out->rkey = be32toh(r.rkey);
		off += sizeof(r);
	}
	if (atomic) {
		struct mlx5_wqe_atomic_seg a;

		if (off + sizeof(a) > end)
			return false;
		mlx5r_copy_out(&sq->wq, base + off, &a, sizeof(a));
		if (op == DPV_MLX5_OPCODE_ATOMIC_WRITE) {
			/* its 8 bytes, as inline data where the ring holds
			 * them (the first block: never wrapped) */
			out->flags |= DPV_WR_F_INLINE;
			out->inl[0].addr =
				sq->wq.buf +
				((base + off +
				  offsetof(struct mlx5_wqe_atomic_seg,
					   swap_add)) &
				 (mlx5r_ring_bytes(&sq->wq) - 1));
			out->inl[0].len = 8;
			out->inl[1].len = 0;
			out->inline_len = 8;
			out->total_len = 8;
			off += sizeof(a);
			/* nothing may follow */
			return off >= end;
		}
		if (op == MLX5_OPCODE_ATOMIC_CS) {
			out->swap = be64toh(a.swap_add);
			out->compare_add = be64toh(a.compare);
		} else {
			out->compare_add = be64toh(a.swap_add);
		}
		off += sizeof(a);
	}
	if (off >= end)
		return true;
	{
		__be32 bc;
		uint32_t v;

		mlx5r_copy_out(&sq->wq, base + off, &bc, sizeof(bc));
		v = be32toh(bc);
		if (v & MLX5_INLINE_SEG) {
			uint32_t len = v & ~(uint32_t)MLX5_INLINE_SEG;
			uint32_t p = (base + off + 4) &
				     (mlx5r_ring_bytes(&sq->wq) - 1);
			uint32_t first;

			if (off + 4 + len > end)
				return false;
			first = RTE_MIN(len, mlx5r_ring_bytes(&sq->wq) - p);
			out->flags |= DPV_WR_F_INLINE;
			out->inline_len = len;
			out->total_len = len;
			out->inl[0].addr = sq->wq.buf + p;
			out->inl[0].len = first;
			out->inl[1].addr = sq->wq.buf;
			out->inl[1].len = len - first;
			return true;
		}
	}
	/* no more SGEs than the ring lets a WQE carry: the engine keeps that
	 * many per WQE (sq->wq.max_gs, 0 before dpv_mlx5_sq_init) */
	if ((end - off) / 16 >
	    (sq->wq.max_gs ? RTE_MIN(sq->wq.max_gs, (uint32_t)DPV_WR_MAX_SGE)
			   : DPV_WR_MAX_SGE))
		return false;
	for (; off + 16 <= end; off += 16) {
		struct mlx5_wqe_data_seg d;
		struct dpv_sge *s = &out->sg_list[out->num_sge++];

		mlx5r_copy_out(&sq->wq, base + off, &d, sizeof(d));
		s->length = be32toh(d.byte_count);
		if (s->length == 0)
			s->length = 1u << 31; /* 0 means 2 GiB */
		s->lkey = be32toh(d.lkey);
		s->addr = be64toh(d.addr);
		out->total_len += s->length;
	}
	return true;
}

/*
 * The common WQE (what post_fast() writes): RC/UC SEND, WRITE or READ,
 * with or without immediate, one data segment, one block. false: not
 * that shape, decode_send() decodes it (and *out is left to it).
 */
static inline bool
decode_fast(const struct dpv_mlx5_sq *sq, uint32_t ds,
	    const struct mlx5_wqe_ctrl_seg *c, const uint8_t *w,
	    struct dpv_wr *out)
{
	uint8_t op = be32toh(c->opmod_idx_opcode) & 0xff;
	const struct mlx5_wqe_data_seg *d;
	enum ibv_wr_opcode wop;
	bool raddr, imm;
	uint32_t len;

	if ((sq->type != IBV_QPT_RC && sq->type != IBV_QPT_UC) ||
	    sq->wq.max_gs == 0 || !plain_op(op, &wop, &raddr, &imm))
		return false;
	if (ds != (raddr ? 3u : 2u))
		return false;
	d = (const struct mlx5_wqe_data_seg *)(const void *)(w + (ds - 1) * 16);
	len = be32toh(d->byte_count);
	if (len == 0 || (len & MLX5_INLINE_SEG))
		return false; /* 2 GiB or inline: the general decoder */
	out->opcode = wop;
	out->imm_data = imm ? c->imm : 0;
	if (raddr) {
		const struct mlx5_wqe_raddr_seg *r =
			(const struct mlx5_wqe_raddr_seg *)(const void *)(w +
									  16);

		out->remote_addr = be64toh(r->raddr);
		out->rkey = be32toh(r->rkey);
	}
	out->sg_list[0].addr = be64toh(d->addr);
	out->sg_list[0].length = len;
	out->sg_list[0].lkey = be32toh(d->lkey);
	out->num_sge = 1;
	out->total_len = len;
	return true;
}

bool
dpv_mlx5_sq_fetch(struct dpv_mlx5_sq *sq, struct dpv_wr *out)
{
	uint32_t db;
	uint16_t avail;
	struct mlx5_wqe_ctrl_seg c;
	const uint8_t *w;
	uint32_t ds, nbb;

	db = mlx5r_db_read(&sq->wq) & 0xffff;
	avail = (uint16_t)(db - (uint16_t)sq->wq.eng_pi);
	if (avail == 0)
		return false;
	w = mlx5r_at(&sq->wq, sq->wq.eng_pi << MLX5_SEND_WQE_SHIFT);
	memcpy(&c, w, sizeof(c));
	/* the fields every WQE has (struct dpv_wr) */
	memset(out, 0, offsetof(struct dpv_wr, inl));
	ds = be32toh(c.qpn_ds) & 0x3f;
	nbb = (ds * 16 + MLX5_SEND_WQE_BB - 1) / MLX5_SEND_WQE_BB;
	out->wqe_index = (uint16_t)sq->wq.eng_pi;
	out->qpn = be32toh(c.qpn_ds) >> 8;
	out->stream_id = be16toh(c.dci_stream_channel_id);
	if (c.fm_ce_se & MLX5_WQE_CTRL_CQ_UPDATE)
		out->flags |= DPV_WR_F_SIGNALED;
	if (c.fm_ce_se & MLX5_WQE_CTRL_SOLICITED)
		out->flags |= DPV_WR_F_SOLICITED;
	if ((c.fm_ce_se & 0xe0) == MLX5_WQE_CTRL_FENCE)
		out->flags |= DPV_WR_F_FENCE;
	else if ((c.fm_ce_se & 0xe0) == MLX5_WQE_CTRL_INITIATOR_SMALL_FENCE)
		out->flags |= DPV_WR_F_SMALL_FENCE;
	if (nbb == 1 && decode_fast(sq, ds, &c, w, out)) {
		/* done */
	} else if (ds == 0 || nbb > avail ||
		   !decode_send(sq, sq->wq.eng_pi, ds, &c, out)) {
		if (nbb == 0 || nbb > avail)
			nbb = 1;
		out->flags |= DPV_WR_F_MALFORMED;
		out->num_sge = 0;
		out->inline_len = 0;
		out->raw_hdr_len = 0;
		memset(&out->ud, 0, sizeof(out->ud));
	}
	out->nbb = (uint16_t)nbb;
	sq->wq.eng_pi += nbb;
	return true;
}

void
dpv_mlx5_sq_retire(struct dpv_mlx5_sq *sq, const struct dpv_wr *wr)
{
	sq->wq.eng_ci += wr->nbb;
}
