/* SPDX-License-Identifier: BSD-3-Clause */
/* mlx5 ring personality: send WQE builder (post_send, ibv_qp_ex); the
 * engine-side decoder is mlx5_decode.c. */

#include <errno.h>
#include <stddef.h>

#include "mlx5_ring_priv.h"


_Static_assert(sizeof(struct mlx5_wqe_raddr_seg) == 16, "raddr seg");
_Static_assert(sizeof(struct mlx5_wqe_atomic_seg) == 16, "atomic seg");
_Static_assert(sizeof(struct mlx5_wqe_eth_seg) == 32, "eth seg");
_Static_assert(sizeof(struct mlx5_wqe_umr_ctrl_seg) == 48, "umr ctrl seg");
_Static_assert(sizeof(struct mlx5_wqe_mkey_context_seg) == 64, "mkey seg");

enum {
	SEND_FLAGS_OK = IBV_SEND_FENCE | IBV_SEND_SIGNALED |
			IBV_SEND_SOLICITED | IBV_SEND_INLINE | IBV_SEND_IP_CSUM,
};

static uint32_t
wqe_pos(const struct dpv_mlx5_sq *sq, uint32_t off)
{
	return (sq->cur_post << MLX5_SEND_WQE_SHIFT) + off;
}

static void
bld_write(struct dpv_mlx5_sq *sq, uint32_t off, const void *p, uint32_t len)
{
	mlx5r_copy_in(&sq->wq, wqe_pos(sq, off), p, len);
}

static bool
op_valid(enum ibv_qp_type type, enum ibv_wr_opcode op)
{
	switch (type) {
	case IBV_QPT_RC:
	case IBV_QPT_XRC_SEND:
	case IBV_QPT_DRIVER: /* a DCI: RC's operations to a DCT */
		return op == IBV_WR_SEND || op == IBV_WR_SEND_WITH_IMM ||
		       op == IBV_WR_SEND_WITH_INV || op == IBV_WR_RDMA_WRITE ||
		       op == IBV_WR_RDMA_WRITE_WITH_IMM ||
		       op == IBV_WR_RDMA_READ ||
		       op == IBV_WR_ATOMIC_CMP_AND_SWP ||
		       op == IBV_WR_ATOMIC_FETCH_AND_ADD ||
		       op == IBV_WR_LOCAL_INV || op == IBV_WR_BIND_MW ||
		       op == IBV_WR_DRIVER1 ||
		       (type == IBV_QPT_RC && op == IBV_WR_ATOMIC_WRITE);
	case IBV_QPT_UC:
		/* UC has no SEND with invalidate on the wire */
		return op == IBV_WR_SEND || op == IBV_WR_SEND_WITH_IMM ||
		       op == IBV_WR_RDMA_WRITE ||
		       op == IBV_WR_RDMA_WRITE_WITH_IMM ||
		       op == IBV_WR_LOCAL_INV || op == IBV_WR_BIND_MW ||
		       op == IBV_WR_DRIVER1;
	case IBV_QPT_UD:
		return op == IBV_WR_SEND || op == IBV_WR_SEND_WITH_IMM;
	case IBV_QPT_RAW_PACKET:
		return op == IBV_WR_SEND || op == IBV_WR_TSO;
	default:
		return false;
	}
}

static uint8_t
wr_to_mlx5_op(enum ibv_wr_opcode op)
{
	switch (op) {
	case IBV_WR_SEND:
		return MLX5_OPCODE_SEND;
	case IBV_WR_SEND_WITH_IMM:
		return MLX5_OPCODE_SEND_IMM;
	case IBV_WR_SEND_WITH_INV:
		return MLX5_OPCODE_SEND_INVAL;
	case IBV_WR_RDMA_WRITE:
		return MLX5_OPCODE_RDMA_WRITE;
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		return MLX5_OPCODE_RDMA_WRITE_IMM;
	case IBV_WR_RDMA_READ:
		return MLX5_OPCODE_RDMA_READ;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
		return MLX5_OPCODE_ATOMIC_CS;
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		return MLX5_OPCODE_ATOMIC_FA;
	case IBV_WR_ATOMIC_WRITE:
		return DPV_MLX5_OPCODE_ATOMIC_WRITE;
	case IBV_WR_TSO:
		return MLX5_OPCODE_TSO;
	default:
		return MLX5_OPCODE_UMR; /* BIND_MW, LOCAL_INV, DRIVER1 (mkey) */
	}
}

static bool
is_atomic(enum ibv_wr_opcode op)
{
	return op == IBV_WR_ATOMIC_CMP_AND_SWP ||
	       op == IBV_WR_ATOMIC_FETCH_AND_ADD;
}

static bool
is_umr(enum ibv_wr_opcode op)
{
	return op == IBV_WR_BIND_MW || op == IBV_WR_LOCAL_INV ||
	       op == IBV_WR_DRIVER1;
}

/* A WQE's control segment. */
static void
ctrl_fill(struct mlx5_wqe_ctrl_seg *c, const struct dpv_mlx5_sq *sq,
	  uint8_t mlx5_op, uint32_t ds, uint8_t fm_ce_se, __be32 imm)
{
	memset(c, 0, sizeof(*c));
	c->opmod_idx_opcode = htobe32(((sq->cur_post & 0xffff) << 8) | mlx5_op);
	c->qpn_ds = htobe32((sq->qpn << 8) | ds);
	c->fm_ce_se = fm_ce_se;
	c->imm = imm;
}

/* The control segment's fence / completion / solicited bits. */
static uint8_t
ctrl_flags(const struct dpv_mlx5_sq *sq, unsigned int send_flags)
{
	return ((send_flags & IBV_SEND_FENCE) ? MLX5_WQE_CTRL_FENCE
					      : sq->fm_next) |
	       ((send_flags & IBV_SEND_SIGNALED) ? MLX5_WQE_CTRL_CQ_UPDATE
						 : 0) |
	       ((send_flags & IBV_SEND_SOLICITED) ? MLX5_WQE_CTRL_SOLICITED
						  : 0);
}

/* Close the open WQE: control segment, bookkeeping, advance cur_post. */
void
bld_close(struct dpv_mlx5_sq *sq)
{
	struct mlx5_wqe_ctrl_seg ctrl;
	uint32_t ds, nbb;

	if (!sq->bld.open)
		return;
	/* a key configuration with setters still to come */
	if (sq->bld.op == IBV_WR_DRIVER1 && sq->bld.setters) {
		bld_fail(sq, EINVAL);
		return;
	}
	if (((sq->type == IBV_QPT_UD ||
	      (sq->type == IBV_QPT_DRIVER && !is_umr(sq->bld.op))) &&
	     !sq->bld.ud_set) ||
	    (sq->type == IBV_QPT_RAW_PACKET &&
	     !(sq->bld.op == IBV_WR_TSO ? sq->bld.tso_set
					: sq->bld.data_set))) {
		bld_fail(sq, EINVAL);
		return;
	}
	ds = (sq->bld.off + 15) / 16;
	nbb = (sq->bld.off + MLX5_SEND_WQE_BB - 1) / MLX5_SEND_WQE_BB;
	ctrl_fill(&ctrl, sq, sq->bld.mlx5_op, ds, sq->bld.fm_ce_se,
		  sq->bld.imm);
	ctrl.dci_stream_channel_id = htobe16(sq->bld.stream_id);
	bld_write(sq, 0, &ctrl, sizeof(ctrl));
	wqe_commit(sq, sq->bld.wr_id, nbb, sq->bld.wr_data, is_umr(sq->bld.op));
	sq->bld.open = false;
}

void
dpv_mlx5_wr_start(struct dpv_mlx5_sq *sq, enum ibv_qp_type type, uint32_t qpn)
{
	dpv_mlx5_sq_bind(sq, type, qpn);
	sq->bld.active = true;
	sq->bld.open = false;
	sq->bld.err = 0;
	sq->bld.nreq = 0;
	sq->bld.start_cur_post = sq->cur_post;
	sq->bld.start_fm = sq->fm_next;
}

int
dpv_mlx5_wr_op(struct dpv_mlx5_sq *sq, uint64_t wr_id, unsigned int send_flags,
	       enum ibv_wr_opcode op)
{
	uint32_t hdr, data;
	int rc;

	bld_close(sq);
	if (sq->bld.err)
		return sq->bld.err;
	if (!op_valid(sq->type, op) || (send_flags & ~SEND_FLAGS_OK) ||
	    ((send_flags & IBV_SEND_IP_CSUM) &&
	     sq->type != IBV_QPT_RAW_PACKET)) {
		bld_fail(sq, EINVAL);
		return EINVAL;
	}
	if (!wr_room(sq)) {
		bld_fail(sq, ENOMEM);
		return ENOMEM;
	}
	hdr = CTRL_SZ;
	if (sq->type == IBV_QPT_XRC_SEND && !is_umr(op))
		hdr += sizeof(struct dpv_mlx5_wqe_xrc_seg);
	else if (sq->type == IBV_QPT_UD ||
		 (sq->type == IBV_QPT_DRIVER && !is_umr(op)))
		hdr += sizeof(struct mlx5_wqe_datagram_seg);
	else if (sq->type == IBV_QPT_RAW_PACKET)
		hdr += ETH_SEG_SZ;
	data = hdr;
	if (op == IBV_WR_RDMA_WRITE || op == IBV_WR_RDMA_WRITE_WITH_IMM ||
	    op == IBV_WR_RDMA_READ)
		data += sizeof(struct mlx5_wqe_raddr_seg);
	else if (is_atomic(op) || op == IBV_WR_ATOMIC_WRITE)
		data += sizeof(struct mlx5_wqe_raddr_seg) +
			sizeof(struct mlx5_wqe_atomic_seg);
	rc = bld_room(sq, data);
	if (rc) {
		bld_fail(sq, rc);
		return rc;
	}
	sq->bld.open = true;
	sq->bld.op = op;
	sq->bld.mlx5_op = wr_to_mlx5_op(op);
	sq->bld.fm_ce_se = ctrl_flags(sq, send_flags);
	sq->bld.imm = 0;
	sq->bld.wr_id = wr_id;
	sq->bld.wr_data = 0;
	sq->bld.hdr_off = hdr;
	sq->bld.data_off = data;
	sq->bld.off = data;
	sq->bld.ud_set = false;
	sq->bld.data_set = false;
	sq->bld.tso_set = false;
	sq->bld.setters = 0;
	sq->bld.stream_id = 0;
	mlx5r_zero(&sq->wq, wqe_pos(sq, 0), data);
	if (sq->type == IBV_QPT_RAW_PACKET && (send_flags & IBV_SEND_IP_CSUM)) {
		uint8_t cs = MLX5_ETH_WQE_L3_CSUM | MLX5_ETH_WQE_L4_CSUM;

		bld_write(sq,
			  CTRL_SZ + offsetof(struct mlx5_wqe_eth_seg, cs_flags),
			  &cs, 1);
	}
	return 0;
}

static bool
bld_check(struct dpv_mlx5_sq *sq)
{
	if (sq->bld.err)
		return false;
	if (!sq->bld.open) {
		bld_fail(sq, EINVAL);
		return false;
	}
	return true;
}

/* A remote-address segment. */
static inline void
raddr_fill(struct mlx5_wqe_raddr_seg *r, uint32_t rkey, uint64_t raddr)
{
	r->raddr = htobe64(raddr);
	r->rkey = htobe32(rkey);
	r->reserved = 0;
}

void
dpv_mlx5_wr_rdma(struct dpv_mlx5_sq *sq, uint32_t rkey, uint64_t raddr)
{
	struct mlx5_wqe_raddr_seg r;

	if (!bld_check(sq))
		return;
	if (sq->bld.op != IBV_WR_RDMA_WRITE &&
	    sq->bld.op != IBV_WR_RDMA_WRITE_WITH_IMM &&
	    sq->bld.op != IBV_WR_RDMA_READ) {
		bld_fail(sq, EINVAL);
		return;
	}
	raddr_fill(&r, rkey, raddr);
	bld_write(sq, sq->bld.hdr_off, &r, sizeof(r));
}

void
dpv_mlx5_wr_atomic(struct dpv_mlx5_sq *sq, uint32_t rkey, uint64_t raddr,
		   uint64_t compare_add, uint64_t swap)
{
	struct {
		struct mlx5_wqe_raddr_seg r;
		struct mlx5_wqe_atomic_seg a;
	} s;

	if (!bld_check(sq))
		return;
	if (!is_atomic(sq->bld.op)) {
		bld_fail(sq, EINVAL);
		return;
	}
	raddr_fill(&s.r, rkey, raddr);
	if (sq->bld.op == IBV_WR_ATOMIC_CMP_AND_SWP) {
		s.a.swap_add = htobe64(swap);
		s.a.compare = htobe64(compare_add);
	} else {
		s.a.swap_add = htobe64(compare_add);
		s.a.compare = 0;
	}
	bld_write(sq, sq->bld.hdr_off, &s, sizeof(s));
}

void
dpv_mlx5_wr_atomic_write(struct dpv_mlx5_sq *sq, uint32_t rkey, uint64_t raddr,
			 const void *val)
{
	struct {
		struct mlx5_wqe_raddr_seg r;
		struct mlx5_wqe_atomic_seg a;
	} s;

	if (!bld_check(sq))
		return;
	if (sq->bld.op != IBV_WR_ATOMIC_WRITE || val == NULL) {
		bld_fail(sq, EINVAL);
		return;
	}
	raddr_fill(&s.r, rkey, raddr);
	memcpy(&s.a.swap_add, val, sizeof(s.a.swap_add));
	s.a.compare = 0;
	bld_write(sq, sq->bld.hdr_off, &s, sizeof(s));
	/* the data is in the WQE: no SGE or inline data may follow */
	sq->bld.data_set = true;
}

void
dpv_mlx5_wr_imm(struct dpv_mlx5_sq *sq, __be32 imm_data)
{
	if (bld_check(sq))
		sq->bld.imm = imm_data;
}

void
dpv_mlx5_wr_inv(struct dpv_mlx5_sq *sq, uint32_t invalidate_rkey)
{
	if (bld_check(sq))
		sq->bld.imm = htobe32(invalidate_rkey);
}

void
dpv_mlx5_wr_tso(struct dpv_mlx5_sq *sq, const void *hdr, uint16_t hdr_sz,
		uint16_t mss)
{
	const uint32_t at =
		CTRL_SZ + offsetof(struct mlx5_wqe_eth_seg, inline_hdr_start);
	uint32_t extra;
	__be16 v;
	int rc;

	if (!bld_check(sq))
		return;
	if (sq->bld.op != IBV_WR_TSO || sq->bld.tso_set || hdr == NULL ||
	    hdr_sz < DPV_MLX5_ETH_INLINE_HDR || hdr_sz > sq->max_tso_header ||
	    mss == 0) {
		bld_fail(sq, EINVAL);
		return;
	}
	/* the header runs on from inline_hdr_start into whole 16-byte units
	 * after the Ethernet segment; the data segments follow those */
	extra = RTE_ALIGN_CEIL(hdr_sz - DPV_MLX5_ETH_INLINE_HDR, 16u);
	rc = bld_room(sq, sq->bld.off + extra);
	if (rc) {
		bld_fail(sq, rc);
		return;
	}
	mlx5r_zero(&sq->wq, wqe_pos(sq, sq->bld.off), extra);
	v = htobe16(mss);
	bld_write(sq, CTRL_SZ + offsetof(struct mlx5_wqe_eth_seg, mss), &v,
		  sizeof(v));
	v = htobe16(hdr_sz);
	bld_write(sq,
		  CTRL_SZ + offsetof(struct mlx5_wqe_eth_seg, inline_hdr_sz),
		  &v, sizeof(v));
	bld_write(sq, at, hdr, hdr_sz);
	sq->bld.hdr_off += extra;
	sq->bld.data_off += extra;
	sq->bld.off += extra;
	sq->bld.tso_set = true;
}

void
dpv_mlx5_wr_ud_addr(struct dpv_mlx5_sq *sq, struct ibv_ah *ah,
		    uint32_t remote_qpn, uint32_t remote_qkey)
{
	struct mlx5_wqe_datagram_seg d;
	const struct dpv_mlx5_ah *mah;

	if (!bld_check(sq))
		return;
	if (sq->type != IBV_QPT_UD || ah == NULL) {
		bld_fail(sq, EINVAL);
		return;
	}
	mah = container_of(ah, const struct dpv_mlx5_ah, ibv_ah);
	d.av = mah->av;
	d.av.dqp_dct = htobe32((remote_qpn & 0xffffff) | MLX5_EXTENDED_UD_AV);
	d.av.key.qkey.qkey = htobe32(remote_qkey);
	d.av.key.qkey.reserved = 0;
	bld_write(sq, CTRL_SZ, &d, sizeof(d));
	sq->bld.ud_set = true;
}

void
dpv_mlx5_wr_dc_addr(struct dpv_mlx5_sq *sq, struct ibv_ah *ah,
		    uint32_t remote_dctn, uint64_t remote_dc_key)
{
	struct mlx5_wqe_datagram_seg d;
	const struct dpv_mlx5_ah *mah;

	if (!bld_check(sq))
		return;
	if (sq->type != IBV_QPT_DRIVER || ah == NULL || is_umr(sq->bld.op)) {
		bld_fail(sq, EINVAL);
		return;
	}
	mah = container_of(ah, const struct dpv_mlx5_ah, ibv_ah);
	d.av = mah->av;
	d.av.dqp_dct = htobe32((remote_dctn & 0xffffff) | MLX5_EXTENDED_UD_AV);
	d.av.key.dc_key = htobe64(remote_dc_key);
	bld_write(sq, CTRL_SZ, &d, sizeof(d));
	sq->bld.ud_set = true;
}

void
dpv_mlx5_wr_dc_addr_stream(struct dpv_mlx5_sq *sq, struct ibv_ah *ah,
			   uint32_t remote_dctn, uint64_t remote_dc_key,
			   uint16_t stream_id)
{
	dpv_mlx5_wr_dc_addr(sq, ah, remote_dctn, remote_dc_key);
	if (sq->bld.open)
		sq->bld.stream_id = stream_id;
}

void
dpv_mlx5_wr_xrc_srqn(struct dpv_mlx5_sq *sq, uint32_t remote_srqn)
{
	struct dpv_mlx5_wqe_xrc_seg x;

	if (!bld_check(sq))
		return;
	if (sq->type != IBV_QPT_XRC_SEND || is_umr(sq->bld.op)) {
		bld_fail(sq, EINVAL);
		return;
	}
	memset(&x, 0, sizeof(x));
	x.xrc_srqn = htobe32(remote_srqn & 0xffffff);
	bld_write(sq, CTRL_SZ, &x, sizeof(x));
}

/* UMR WQE for a bind (length != 0) or an invalidate/unbind. */
static void
bld_umr(struct dpv_mlx5_sq *sq, bool type2, uint8_t key,
	const struct ibv_mw_bind_info *bi)
{
	struct mlx5_wqe_umr_ctrl_seg u;
	struct mlx5_wqe_mkey_context_seg m;
	struct mlx5_wqe_umr_klm_seg k;
	uint64_t mask;
	uint32_t off = sq->bld.off;
	uint32_t end =
		off + UMR_CTRL_SZ + MKEY_SZ + (bi->length ? KLM_PAD_SZ : 0);
	int rc;

	if (bi->length > (1ull << 31)) {
		bld_fail(sq, EOPNOTSUPP);
		return;
	}
	rc = bld_room(sq, end);
	if (rc) {
		bld_fail(sq, rc);
		return;
	}
	memset(&u, 0, sizeof(u));
	memset(&m, 0, sizeof(m));
	u.flags = MLX5_WQE_UMR_CTRL_FLAG_TRNSLATION_OFFSET |
		  MLX5_WQE_UMR_CTRL_FLAG_INLINE;
	mask = MLX5_WQE_UMR_CTRL_MKEY_MASK_FREE |
	       MLX5_WQE_UMR_CTRL_MKEY_MASK_MKEY;
	if (type2)
		mask |= MLX5_WQE_UMR_CTRL_MKEY_MASK_QPN;
	m.qpn_mkey = htobe32(
		key | ((!type2 || !bi->length) ? 0xffffff00u : sq->qpn << 8));
	if (bi->length) {
		u.klm_octowords = htobe16(2); /* one KLM, 8-aligned / 2 */
		if (type2)
			u.flags |= MLX5_WQE_UMR_CTRL_FLAG_CHECK_FREE;
		mask |= MLX5_WQE_UMR_CTRL_MKEY_MASK_LEN |
			MLX5_WQE_UMR_CTRL_MKEY_MASK_START_ADDR |
			MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_LOCAL_WRITE |
			MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_REMOTE_READ |
			MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_REMOTE_WRITE |
			MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_ATOMIC;
		if (bi->mw_access_flags & IBV_ACCESS_LOCAL_WRITE)
			m.access_flags |=
				MLX5_WQE_MKEY_CONTEXT_ACCESS_FLAGS_LOCAL_WRITE;
		if (bi->mw_access_flags & IBV_ACCESS_REMOTE_WRITE)
			m.access_flags |=
				MLX5_WQE_MKEY_CONTEXT_ACCESS_FLAGS_REMOTE_WRITE;
		if (bi->mw_access_flags & IBV_ACCESS_REMOTE_READ)
			m.access_flags |=
				MLX5_WQE_MKEY_CONTEXT_ACCESS_FLAGS_REMOTE_READ;
		if (bi->mw_access_flags & IBV_ACCESS_REMOTE_ATOMIC)
			m.access_flags |=
				MLX5_WQE_MKEY_CONTEXT_ACCESS_FLAGS_ATOMIC;
		if (!(bi->mw_access_flags & IBV_ACCESS_ZERO_BASED))
			m.start_addr = htobe64(bi->addr);
		m.len = htobe64(bi->length);
	} else {
		if (type2)
			u.flags |= MLX5_WQE_UMR_CTRL_FLAG_CHECK_QPN;
		m.free = MLX5_WQE_MKEY_CONTEXT_FREE;
	}
	u.mkey_mask = htobe64(mask);
	bld_write(sq, off, &u, sizeof(u));
	bld_write(sq, off + UMR_CTRL_SZ, &m, sizeof(m));
	if (bi->length) {
		k.byte_count = htobe32((uint32_t)bi->length);
		k.mkey = htobe32(bi->mr ? bi->mr->lkey : 0);
		k.address = htobe64(bi->addr);
		mlx5r_zero(&sq->wq, wqe_pos(sq, off + UMR_CTRL_SZ + MKEY_SZ),
			   KLM_PAD_SZ);
		bld_write(sq, off + UMR_CTRL_SZ + MKEY_SZ, &k, sizeof(k));
	}
	sq->bld.off = end;
	sq->bld.data_set = true;
}

void
dpv_mlx5_wr_bind_mw(struct dpv_mlx5_sq *sq, uint32_t mw_rkey, uint32_t new_rkey,
		    enum ibv_mw_type mw_type,
		    const struct ibv_mw_bind_info *info)
{
	if (!bld_check(sq))
		return;
	if (sq->bld.op != IBV_WR_BIND_MW || sq->bld.data_set || info == NULL ||
	    (info->length && info->mr == NULL)) {
		bld_fail(sq, EINVAL);
		return;
	}
	sq->bld.imm = htobe32(mw_rkey);
	sq->bld.wr_data = IBV_WC_BIND_MW;
	bld_umr(sq, mw_type == IBV_MW_TYPE_2, new_rkey & 0xff, info);
}

void
dpv_mlx5_wr_local_inv(struct dpv_mlx5_sq *sq, uint32_t invalidate_rkey)
{
	const struct ibv_mw_bind_info none = {0};

	if (!bld_check(sq))
		return;
	if (sq->bld.op != IBV_WR_LOCAL_INV || sq->bld.data_set) {
		bld_fail(sq, EINVAL);
		return;
	}
	sq->bld.imm = htobe32(invalidate_rkey);
	sq->bld.wr_data = IBV_WC_LOCAL_INV;
	bld_umr(sq, true, 0, &none);
}

#define MKEY_ACCESS_OK                                                         \
	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |                    \
	 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)

static uint8_t
mkey_access(unsigned int a)
{
	return ((a & IBV_ACCESS_LOCAL_WRITE)
			? MLX5_WQE_MKEY_CONTEXT_ACCESS_FLAGS_LOCAL_WRITE
			: 0) |
	       ((a & IBV_ACCESS_REMOTE_WRITE)
			? MLX5_WQE_MKEY_CONTEXT_ACCESS_FLAGS_REMOTE_WRITE
			: 0) |
	       ((a & IBV_ACCESS_REMOTE_READ)
			? MLX5_WQE_MKEY_CONTEXT_ACCESS_FLAGS_REMOTE_READ
			: 0) |
	       ((a & IBV_ACCESS_REMOTE_ATOMIC)
			? MLX5_WQE_MKEY_CONTEXT_ACCESS_FLAGS_ATOMIC
			: 0);
}

/* The translation of an indirect key: a repetition header and interleaved
 * entries, or a list of KLMs; 16 bytes each, padded to 64. */
static int
mkey_xlat(struct dpv_mlx5_sq *sq, uint32_t at, uint32_t repeat, uint16_t num,
	  const struct ibv_sge *sge, const struct mlx5dv_mr_interleaved *il,
	  uint64_t *len)
{
	uint32_t hdr = il ? 16 : 0;
	uint32_t xlat = RTE_ALIGN_CEIL(hdr + 16u * num, 64u);
	uint64_t sum = 0;
	int rc = bld_room(sq, at + xlat);

	if (rc)
		return rc;
	mlx5r_zero(&sq->wq, wqe_pos(sq, at), xlat);
	for (uint16_t i = 0; i < num; i++) {
		if (il) {
			struct mlx5_wqe_umr_repeat_ent_seg r;
			uint32_t stride = il[i].bytes_count + il[i].bytes_skip;

			if (il[i].bytes_count > UINT16_MAX ||
			    stride > UINT16_MAX || stride < il[i].bytes_count)
				return EINVAL;
			r.stride = htobe16((uint16_t)stride);
			r.byte_count = htobe16((uint16_t)il[i].bytes_count);
			r.memkey = htobe32(il[i].lkey);
			r.va = htobe64(il[i].addr);
			bld_write(sq, at + hdr + 16u * i, &r, sizeof(r));
			sum += il[i].bytes_count;
		} else {
			struct mlx5_wqe_umr_klm_seg k;

			k.byte_count = htobe32(sge[i].length);
			k.mkey = htobe32(sge[i].lkey);
			k.address = htobe64(sge[i].addr);
			bld_write(sq, at + 16u * i, &k, sizeof(k));
			sum += sge[i].length;
		}
	}
	if (il) {
		struct mlx5_wqe_umr_repeat_block_seg b;

		memset(&b, 0, sizeof(b));
		b.byte_count = htobe32((uint32_t)sum);
		b.op = htobe32(0x400); /* repetition block */
		b.repeat_count = htobe32(repeat);
		b.num_ent = htobe16(num);
		bld_write(sq, at, &b, sizeof(b));
		sum *= repeat;
	}
	*len = sum;
	sq->bld.off = at + xlat;
	return 0;
}

void
dpv_mlx5_wr_mkey_begin(struct dpv_mlx5_sq *sq, uint32_t mkey, bool reconf,
		       uint8_t num_setters)
{
	struct mlx5_wqe_umr_ctrl_seg u;
	struct mlx5_wqe_mkey_context_seg m;
	uint32_t off = sq->bld.off;
	uint64_t mask = 0;
	int rc;

	if (!bld_check(sq))
		return;
	if (sq->bld.op != IBV_WR_DRIVER1 || sq->bld.data_set) {
		bld_fail(sq, EINVAL);
		return;
	}
	rc = bld_room(sq, off + UMR_CTRL_SZ + MKEY_SZ);
	if (rc) {
		bld_fail(sq, rc);
		return;
	}
	memset(&u, 0, sizeof(u));
	memset(&m, 0, sizeof(m));
	u.flags = MLX5_WQE_UMR_CTRL_FLAG_INLINE;
	/* FREE: the key is made usable whatever its state (configure);
	 * without it only a key not configured is (mlx5dv_wr_mr_list) */
	if (reconf)
		mask = MLX5_WQE_UMR_CTRL_MKEY_MASK_FREE |
		       MLX5_WQE_UMR_CTRL_MKEY_MASK_MKEY;
	u.mkey_mask = htobe64(mask);
	m.qpn_mkey = htobe32(0xffffff00u | (mkey & 0xff));
	bld_write(sq, off, &u, sizeof(u));
	bld_write(sq, off + UMR_CTRL_SZ, &m, sizeof(m));
	sq->bld.off = off + UMR_CTRL_SZ + MKEY_SZ;
	sq->bld.imm = htobe32(mkey);
	sq->bld.wr_data = MLX5DV_WC_UMR;
	sq->bld.data_set = true;
	sq->bld.setters = num_setters;
}

/* A setter of the open key configuration: the UMR control and key context
 * segments read back into *u and *m; false (error recorded) if there is
 * no configuration open or all its setters were called. */
static bool
mkey_setter(struct dpv_mlx5_sq *sq, struct mlx5_wqe_umr_ctrl_seg *u,
	    struct mlx5_wqe_mkey_context_seg *m)
{
	if (!bld_check(sq))
		return false;
	if (sq->bld.op != IBV_WR_DRIVER1 || !sq->bld.data_set ||
	    sq->bld.setters == 0) {
		bld_fail(sq, EINVAL);
		return false;
	}
	mlx5r_copy_out(&sq->wq, wqe_pos(sq, sq->bld.data_off), u, sizeof(*u));
	mlx5r_copy_out(&sq->wq, wqe_pos(sq, sq->bld.data_off + UMR_CTRL_SZ), m,
		       sizeof(*m));
	return true;
}

static void
mkey_setter_done(struct dpv_mlx5_sq *sq, const struct mlx5_wqe_umr_ctrl_seg *u,
		 const struct mlx5_wqe_mkey_context_seg *m)
{
	bld_write(sq, sq->bld.data_off, u, sizeof(*u));
	bld_write(sq, sq->bld.data_off + UMR_CTRL_SZ, m, sizeof(*m));
	sq->bld.setters--;
}

void
dpv_mlx5_wr_mkey_access(struct dpv_mlx5_sq *sq, unsigned int access)
{
	struct mlx5_wqe_umr_ctrl_seg u;
	struct mlx5_wqe_mkey_context_seg m;

	if (!mkey_setter(sq, &u, &m))
		return;
	if ((access & ~(unsigned int)MKEY_ACCESS_OK) ||
	    (be64toh(u.mkey_mask) & MKEY_MASK_ACCESS)) {
		bld_fail(sq, EINVAL); /* other flags; set twice */
		return;
	}
	u.mkey_mask = htobe64(be64toh(u.mkey_mask) | MKEY_MASK_ACCESS);
	m.access_flags = mkey_access(access);
	mkey_setter_done(sq, &u, &m);
}

/* The signature: what the WQE carries is that the key's staged signature
 * attributes apply (BSF enable; SIG_ERR: reset by the configure flag). */
void
dpv_mlx5_wr_mkey_sig(struct dpv_mlx5_sq *sq, bool reset)
{
	struct mlx5_wqe_umr_ctrl_seg u;
	struct mlx5_wqe_mkey_context_seg m;
	uint64_t mask;

	if (reset) {
		mlx5r_copy_out(&sq->wq, wqe_pos(sq, sq->bld.data_off), &u,
			       sizeof(u));
		u.mkey_mask = htobe64(be64toh(u.mkey_mask) |
				      MLX5_WQE_UMR_CTRL_MKEY_MASK_SIG_ERR);
		bld_write(sq, sq->bld.data_off, &u, sizeof(u));
		return;
	}
	if (!mkey_setter(sq, &u, &m))
		return;
	mask = be64toh(u.mkey_mask);
	if (mask & MLX5_WQE_UMR_CTRL_MKEY_MASK_BSF_ENABLE) {
		bld_fail(sq, EINVAL); /* set twice */
		return;
	}
	u.mkey_mask = htobe64(mask | MLX5_WQE_UMR_CTRL_MKEY_MASK_BSF_ENABLE);
	mkey_setter_done(sq, &u, &m);
}

void
dpv_mlx5_wr_mkey_layout(struct dpv_mlx5_sq *sq, uint32_t max_entries,
			uint32_t repeat, uint16_t num,
			const struct ibv_sge *sge,
			const struct mlx5dv_mr_interleaved *il)
{
	struct mlx5_wqe_umr_ctrl_seg u;
	struct mlx5_wqe_mkey_context_seg m;
	uint32_t off = sq->bld.off;
	uint64_t len = 0;
	int rc;

	if (!mkey_setter(sq, &u, &m))
		return;
	if (num == 0 || (sge == NULL) == (il == NULL) || (il && repeat == 0) ||
	    u.klm_octowords != 0) {
		bld_fail(sq, EINVAL); /* bad layout; set twice */
		return;
	}
	if (num > max_entries) {
		bld_fail(sq, ENOMEM);
		return;
	}
	rc = mkey_xlat(sq, off, repeat, num, sge, il, &len);
	if (rc) {
		sq->bld.off = off;
		bld_fail(sq, rc);
		return;
	}
	u.klm_octowords = htobe16((uint16_t)((sq->bld.off - off) / 16));
	u.mkey_mask = htobe64(be64toh(u.mkey_mask) |
			      MLX5_WQE_UMR_CTRL_MKEY_MASK_LEN);
	m.len = htobe64(len);
	mkey_setter_done(sq, &u, &m);
}

void
dpv_mlx5_wr_mkey(struct dpv_mlx5_sq *sq, uint32_t mkey, uint32_t max_entries,
		 unsigned int access, uint32_t repeat, uint16_t num,
		 const struct ibv_sge *sge,
		 const struct mlx5dv_mr_interleaved *il)
{
	/* the argument errors first, as one call */
	if (sq->bld.err == 0 && sq->bld.open &&
	    (num == 0 || (sge == NULL) == (il == NULL) || (il && repeat == 0) ||
	     (access & ~(unsigned int)MKEY_ACCESS_OK))) {
		bld_fail(sq, EINVAL);
		return;
	}
	dpv_mlx5_wr_mkey_begin(sq, mkey, false, 2);
	dpv_mlx5_wr_mkey_access(sq, access);
	dpv_mlx5_wr_mkey_layout(sq, max_entries, repeat, num, sge, il);
}

/* A list of (address, length) pieces: SGEs or data buffers. */
struct pieces {
	const struct ibv_sge *sge;
	const struct ibv_data_buf *buf;
	size_t n;
};

static const uint8_t *
piece(const struct pieces *p, size_t i, uint32_t *len)
{
	if (p->sge) {
		*len = p->sge[i].length;
		return (const uint8_t *)(uintptr_t)p->sge[i].addr;
	}
	*len = (uint32_t)p->buf[i].length;
	return p->buf[i].addr;
}

/* Raw packet: copy the first DPV_MLX5_ETH_INLINE_HDR bytes of the payload
 * into the Ethernet segment; *pi / *po = where the rest starts. */
static int
bld_eth_hdr(struct dpv_mlx5_sq *sq, const struct pieces *p, size_t *pi,
	    uint32_t *po)
{
	uint8_t hdr[DPV_MLX5_ETH_INLINE_HDR];
	uint32_t got = 0, len = 0;
	const uint8_t *a = NULL;
	__be16 sz = htobe16(DPV_MLX5_ETH_INLINE_HDR);
	size_t i;

	for (i = 0; i < p->n && got < sizeof(hdr); i++) {
		uint32_t n;

		a = piece(p, i, &len);
		n = RTE_MIN(len, (uint32_t)sizeof(hdr) - got);
		memcpy(hdr + got, a, n);
		got += n;
		if (got == sizeof(hdr)) {
			*pi = n == len ? i + 1 : i;
			*po = n == len ? 0 : n;
			break;
		}
	}
	if (got < sizeof(hdr))
		return EINVAL;
	bld_write(sq,
		  CTRL_SZ + offsetof(struct mlx5_wqe_eth_seg, inline_hdr_sz),
		  &sz, sizeof(sz));
	bld_write(sq,
		  CTRL_SZ + offsetof(struct mlx5_wqe_eth_seg, inline_hdr_start),
		  hdr, sizeof(hdr));
	return 0;
}

static void
bld_data(struct dpv_mlx5_sq *sq, const struct pieces *p, bool inl)
{
	size_t i = 0;
	uint32_t skip = 0;
	int rc;

	if (!bld_check(sq))
		return;
	if (sq->bld.data_set || is_umr(sq->bld.op) ||
	    (inl &&
	     (sq->bld.op == IBV_WR_RDMA_READ || is_atomic(sq->bld.op))) ||
	    (is_atomic(sq->bld.op) && p->n > 1) ||
	    (!inl && p->n > sq->wq.max_gs)) {
		bld_fail(sq, EINVAL);
		return;
	}
	if (sq->bld.op == IBV_WR_TSO && !sq->bld.tso_set) {
		bld_fail(sq, EINVAL); /* the header comes first */
		return;
	}
	if (sq->bld.op == IBV_WR_TSO) {
		uint64_t total = 0;
		uint32_t len;

		for (size_t j = 0; j < p->n; j++) {
			piece(p, j, &len);
			total += len;
		}
		if (total > DPV_MLX5_MAX_TSO) {
			bld_fail(sq, EINVAL);
			return;
		}
	} else if (sq->type == IBV_QPT_RAW_PACKET) {
		rc = bld_eth_hdr(sq, p, &i, &skip);
		if (rc) {
			bld_fail(sq, rc);
			return;
		}
	}
	if (inl) {
		uint32_t total = 0, pos, end, len;
		size_t j;

		for (j = i; j < p->n; j++) {
			piece(p, j, &len);
			total += len - (j == i ? skip : 0);
		}
		if (total > sq->max_inline) {
			bld_fail(sq, EINVAL);
			return;
		}
		if (total) {
			__be32 bc = htobe32(total | MLX5_INLINE_SEG);

			end = sq->bld.off + RTE_ALIGN_CEIL(total + 4, 16u);
			rc = bld_room(sq, end);
			if (rc) {
				bld_fail(sq, rc);
				return;
			}
			bld_write(sq, sq->bld.off, &bc, sizeof(bc));
			pos = sq->bld.off + 4;
			for (j = i; j < p->n; j++) {
				const uint8_t *a = piece(p, j, &len);
				uint32_t o = j == i ? skip : 0;

				bld_write(sq, pos, a + o, len - o);
				pos += len - o;
			}
			sq->bld.off = end;
		}
	} else {
		for (; i < p->n; i++) {
			struct mlx5_wqe_data_seg d;
			uint32_t len;
			uint64_t addr;

			if (p->sge) {
				len = p->sge[i].length;
				addr = p->sge[i].addr;
				d.lkey = htobe32(p->sge[i].lkey);
			} else {
				bld_fail(sq, EINVAL);
				return;
			}
			len -= skip;
			addr += skip;
			skip = 0;
			if (len == 0)
				continue;
			if (is_atomic(sq->bld.op))
				len = 8;
			rc = bld_room(sq, sq->bld.off + 16);
			if (rc) {
				bld_fail(sq, rc);
				return;
			}
			d.byte_count = htobe32(len);
			d.addr = htobe64(addr);
			bld_write(sq, sq->bld.off, &d, sizeof(d));
			sq->bld.off += 16;
		}
	}
	sq->bld.data_set = true;
}

void
dpv_mlx5_wr_sge_list(struct dpv_mlx5_sq *sq, size_t num_sge,
		     const struct ibv_sge *sg_list)
{
	struct pieces p = {.sge = sg_list, .n = num_sge};

	bld_data(sq, &p, false);
}

void
dpv_mlx5_wr_inline_list(struct dpv_mlx5_sq *sq, size_t num_buf,
			const struct ibv_data_buf *buf_list)
{
	struct pieces p = {.buf = buf_list, .n = num_buf};

	bld_data(sq, &p, true);
}

/* nreq WQEs written since the last doorbell: posted */
static void
ring_doorbell_n(struct dpv_mlx5_sq *sq, uint32_t nreq)
{
	sq->wq.head += nreq;
	mlx5r_db_write(&sq->wq, sq->cur_post & 0xffff);
}

static void
ring_doorbell(struct dpv_mlx5_sq *sq)
{
	ring_doorbell_n(sq, sq->bld.nreq);
}

void
dpv_mlx5_wr_abort(struct dpv_mlx5_sq *sq)
{
	sq->cur_post = sq->bld.start_cur_post;
	sq->fm_next = sq->bld.start_fm;
	sq->bld.nreq = 0;
	sq->bld.open = false;
	sq->bld.active = false;
	sq->bld.err = 0;
}

int
dpv_mlx5_wr_complete(struct dpv_mlx5_sq *sq)
{
	int err;

	bld_close(sq);
	err = sq->bld.err;
	if (err) {
		dpv_mlx5_wr_abort(sq);
		return err;
	}
	if (sq->bld.nreq)
		ring_doorbell(sq);
	sq->bld.active = false;
	return 0;
}

/*
 * The common WQE in one go: RC/UC SEND, WRITE (with or without
 * immediate) or READ of one non-empty SGE, not inline. It writes the same
 * bytes and bookkeeping as the builder (dpv_mlx5_wr_op, _wr_rdma,
 * bld_data, bld_close; test mlx5_send checks they agree).
 */
static inline bool
post_fast_ok(const struct dpv_mlx5_sq *sq, enum ibv_qp_type type,
	     const struct ibv_send_wr *wr)
{
	if ((type != IBV_QPT_RC && type != IBV_QPT_UC) || wr->num_sge != 1 ||
	    sq->wq.max_gs == 0 || wr->sg_list[0].length == 0 ||
	    (wr->send_flags &
	     ~(unsigned int)(IBV_SEND_SIGNALED | IBV_SEND_SOLICITED |
			     IBV_SEND_FENCE)))
		return false;
	switch (wr->opcode) {
	case IBV_WR_SEND:
	case IBV_WR_SEND_WITH_IMM:
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		return true;
	case IBV_WR_RDMA_READ:
		return type == IBV_QPT_RC;
	default:
		return false;
	}
}

/* wr as the WQE after nreq WQEs not rung yet (the caller counts it) */
static int
post_fast(struct dpv_mlx5_sq *sq, const struct ibv_send_wr *wr, uint32_t nreq)
{
	bool raddr = wr->opcode == IBV_WR_RDMA_WRITE ||
		     wr->opcode == IBV_WR_RDMA_WRITE_WITH_IMM ||
		     wr->opcode == IBV_WR_RDMA_READ;
	bool imm = wr->opcode == IBV_WR_SEND_WITH_IMM ||
		   wr->opcode == IBV_WR_RDMA_WRITE_WITH_IMM;
	uint32_t ds = raddr ? 3 : 2;
	struct mlx5_wqe_data_seg *d;
	uint8_t *w;
	int rc;

	if (!wr_room_n(sq, nreq))
		return ENOMEM;
	rc = bld_room(sq, ds * 16);
	if (rc)
		return rc;
	/* a 64-byte block never wraps around the ring */
	w = mlx5r_at(&sq->wq, wqe_pos(sq, 0));
	ctrl_fill((struct mlx5_wqe_ctrl_seg *)(void *)w, sq,
		  wr_to_mlx5_op(wr->opcode), ds, ctrl_flags(sq, wr->send_flags),
		  imm ? wr->imm_data : 0);
	if (raddr) {
		struct mlx5_wqe_raddr_seg *r =
			(struct mlx5_wqe_raddr_seg *)(void *)(w + CTRL_SZ);

		r->raddr = htobe64(wr->wr.rdma.remote_addr);
		r->rkey = htobe32(wr->wr.rdma.rkey);
		r->reserved = 0;
	}
	d = (struct mlx5_wqe_data_seg *)(void *)(w + (ds - 1) * 16);
	d->byte_count = htobe32(wr->sg_list[0].length);
	d->lkey = htobe32(wr->sg_list[0].lkey);
	d->addr = htobe64(wr->sg_list[0].addr);
	wqe_commit_n(sq, wr->wr_id, 1, 0, false, nreq);
	return 0;
}

int
dpv_mlx5_post_send(struct dpv_mlx5_sq *sq, enum ibv_qp_type type, uint32_t qpn,
		   struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	uint32_t nreq = 0;
	int err = 0;

	/* the common WRs first, without the builder's state: a post then
	 * reads and writes two lines of sq (struct dpv_mlx5_sq) */
	if (unlikely(sq->type != type || sq->qpn != (qpn & 0xffffff)))
		dpv_mlx5_sq_bind(sq, type, qpn);
	for (; wr && post_fast_ok(sq, type, wr); wr = wr->next) {
		err = post_fast(sq, wr, nreq);
		if (err)
			break;
		nreq++;
	}
	if (wr == NULL || err) {
		if (nreq)
			ring_doorbell_n(sq, nreq);
		if (err)
			*bad = wr;
		return err;
	}
	/* the others through the builder, after the nreq above */
	dpv_mlx5_wr_start(sq, type, qpn);
	sq->bld.nreq = nreq;
	for (; wr; wr = wr->next) {
		struct pieces p = {.sge = wr->sg_list};
		bool inl = wr->send_flags & IBV_SEND_INLINE;

		if (post_fast_ok(sq, type, wr)) {
			bld_close(sq); /* the WR before, if built */
			if (sq->bld.err)
				break;
			err = post_fast(sq, wr, sq->bld.nreq);
			if (err)
				break;
			sq->bld.nreq++;
			continue;
		}

		if (wr->num_sge < 0 ||
		    (!inl && wr->num_sge > (int)sq->wq.max_gs)) {
			err = EINVAL;
			break;
		}
		p.n = (size_t)wr->num_sge;
		/* ATOMIC WRITE's 8 bytes have no place in struct
		 * ibv_send_wr: ibv_wr_atomic_write() only (as with rxe) */
		if (wr->opcode == IBV_WR_ATOMIC_WRITE) {
			err = EINVAL;
			break;
		}
		if (dpv_mlx5_wr_op(sq, wr->wr_id, wr->send_flags, wr->opcode))
			break;
		switch (wr->opcode) {
		case IBV_WR_SEND_WITH_IMM:
		case IBV_WR_RDMA_WRITE_WITH_IMM:
			dpv_mlx5_wr_imm(sq, wr->imm_data);
			break;
		case IBV_WR_SEND_WITH_INV:
			dpv_mlx5_wr_inv(sq, wr->invalidate_rkey);
			break;
		default:
			break;
		}
		switch (wr->opcode) {
		case IBV_WR_RDMA_WRITE:
		case IBV_WR_RDMA_WRITE_WITH_IMM:
		case IBV_WR_RDMA_READ:
			dpv_mlx5_wr_rdma(sq, wr->wr.rdma.rkey,
					 wr->wr.rdma.remote_addr);
			break;
		case IBV_WR_ATOMIC_CMP_AND_SWP:
		case IBV_WR_ATOMIC_FETCH_AND_ADD:
			dpv_mlx5_wr_atomic(sq, wr->wr.atomic.rkey,
					   wr->wr.atomic.remote_addr,
					   wr->wr.atomic.compare_add,
					   wr->wr.atomic.swap);
			break;
		case IBV_WR_BIND_MW:
			if (wr->bind_mw.mw == NULL) {
				bld_fail(sq, EINVAL);
				break;
			}
			dpv_mlx5_wr_bind_mw(
				sq, wr->bind_mw.mw->rkey, wr->bind_mw.rkey,
				wr->bind_mw.mw->type, &wr->bind_mw.bind_info);
			break;
		case IBV_WR_LOCAL_INV:
			dpv_mlx5_wr_local_inv(sq, wr->invalidate_rkey);
			break;
		case IBV_WR_TSO:
			dpv_mlx5_wr_tso(sq, wr->tso.hdr, wr->tso.hdr_sz,
					wr->tso.mss);
			break;
		default:
			break;
		}
		if (type == IBV_QPT_UD)
			dpv_mlx5_wr_ud_addr(sq, wr->wr.ud.ah,
					    wr->wr.ud.remote_qpn,
					    wr->wr.ud.remote_qkey);
		else if (type == IBV_QPT_XRC_SEND && !is_umr(wr->opcode))
			dpv_mlx5_wr_xrc_srqn(sq, wr->qp_type.xrc.remote_srqn);
		if (!is_umr(wr->opcode) && (p.n || type == IBV_QPT_RAW_PACKET))
			bld_data(sq, &p, inl);
		bld_close(sq);
		if (sq->bld.err)
			break;
	}
	if (!err)
		err = sq->bld.err;
	if (sq->bld.nreq)
		ring_doorbell(sq);
	sq->bld.active = false;
	sq->bld.open = false;
	sq->bld.err = 0;
	if (err)
		*bad = wr;
	return err;
}
