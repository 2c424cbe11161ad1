/* SPDX-License-Identifier: BSD-3-Clause */
/* mlx5 ring personality: completion queues (poll, push, arm, flush). */

#include <errno.h>
#include <stddef.h>

#include <rte_cycles.h>
#include <rte_malloc.h>

#include "mlx5_ring_priv.h"

_Static_assert(sizeof(struct mlx5_cqe64) == 64, "cqe64");
_Static_assert(sizeof(struct mlx5_err_cqe) == 64, "err cqe");
_Static_assert(offsetof(struct mlx5_cqe64, op_own) == 63, "op_own");
_Static_assert(offsetof(struct mlx5_cqe64, wqe_counter) == 60, "wqe_counter");
_Static_assert(offsetof(struct mlx5_cqe64, sop_drop_qpn) == 56, "sop_drop_qpn");
_Static_assert(offsetof(struct mlx5_cqe64, byte_cnt) == 44, "byte_cnt");
_Static_assert(offsetof(struct mlx5_cqe64, imm_inval_pkey) == 36, "imm");
_Static_assert(offsetof(struct mlx5_err_cqe, syndrome) == 55, "syndrome");

static const struct {
	uint8_t synd;
	enum ibv_wc_status status;
} synd_map[] = {
	{MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR, IBV_WC_LOC_LEN_ERR},
	{MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR, IBV_WC_LOC_QP_OP_ERR},
	{MLX5_CQE_SYNDROME_LOCAL_PROT_ERR, IBV_WC_LOC_PROT_ERR},
	{MLX5_CQE_SYNDROME_WR_FLUSH_ERR, IBV_WC_WR_FLUSH_ERR},
	{MLX5_CQE_SYNDROME_MW_BIND_ERR, IBV_WC_MW_BIND_ERR},
	{MLX5_CQE_SYNDROME_BAD_RESP_ERR, IBV_WC_BAD_RESP_ERR},
	{MLX5_CQE_SYNDROME_LOCAL_ACCESS_ERR, IBV_WC_LOC_ACCESS_ERR},
	{MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR, IBV_WC_REM_INV_REQ_ERR},
	{MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR, IBV_WC_REM_ACCESS_ERR},
	{MLX5_CQE_SYNDROME_REMOTE_OP_ERR, IBV_WC_REM_OP_ERR},
	{MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR, IBV_WC_RETRY_EXC_ERR},
	{MLX5_CQE_SYNDROME_RNR_RETRY_EXC_ERR, IBV_WC_RNR_RETRY_EXC_ERR},
	{MLX5_CQE_SYNDROME_REMOTE_ABORTED_ERR, IBV_WC_REM_ABORT_ERR},
};

enum ibv_wc_status
mlx5r_synd_to_status(uint8_t synd)
{
	size_t i;

	for (i = 0; i < RTE_DIM(synd_map); i++)
		if (synd_map[i].synd == synd)
			return synd_map[i].status;
	return IBV_WC_GENERAL_ERR;
}

uint8_t
mlx5r_status_to_synd(enum ibv_wc_status st)
{
	size_t i;

	for (i = 0; i < RTE_DIM(synd_map); i++)
		if (synd_map[i].status == st)
			return synd_map[i].synd;
	return 0xff;
}

/*
 * The struct mlx5_cqe64 of entry idx (wrapping) in a ring of sz-byte
 * entries: the entry itself for 64 bytes, its second half for 128. The
 * functions below take sz as a constant, one copy of each per size, so
 * that the 64-byte code is what it was before 128-byte entries existed.
 */
static __rte_always_inline struct mlx5_cqe64 *
cqe_at(struct mlx5_cqe64 *buf, uint32_t cnt, uint32_t idx, unsigned int sz)
{
	uint8_t *e = (uint8_t *)buf + (size_t)(idx & (cnt - 1)) * sz;

	return (struct mlx5_cqe64 *)(e + sz - sizeof(struct mlx5_cqe64));
}

/* A ring of cnt invalid entries of sz bytes. */
static struct mlx5_cqe64 *
cq_ring_alloc(uint32_t cnt, unsigned int sz)
{
	struct mlx5_cqe64 *buf = dpv_mlx5_mem_zalloc((size_t)cnt * sz);

	if (buf != NULL)
		for (uint32_t i = 0; i < cnt; i++)
			cqe_at(buf, cnt, i, sz)->op_own = MLX5_CQE_INVALID << 4;
	return buf;
}

int
dpv_mlx5_cq_init_sz(struct dpv_mlx5_cq *cq, unsigned int min_cqe, int socket,
		    unsigned int cqe_size, bool pad)
{
	uint32_t cnt;

	memset(cq, 0, sizeof(*cq));
	if (min_cqe == 0 || min_cqe >= DPV_MLX5_MAX_CQE ||
	    (cqe_size != 64 && cqe_size != 128) || (pad && cqe_size != 128))
		return EINVAL;
	cnt = rte_align32pow2(min_cqe + 1);
	cq->buf = cq_ring_alloc(cnt, cqe_size);
	cq->dbrec = dpv_mlx5_mem_zalloc(RTE_CACHE_LINE_SIZE);
	if (cq->buf == NULL || cq->dbrec == NULL) {
		dpv_mlx5_cq_fini(cq);
		return ENOMEM;
	}
	cq->cqe_size = (uint16_t)cqe_size;
	cq->cqe_pad = pad;
	/* no arm yet: a command nibble no arm request uses */
	cq->uar = (uint8_t *)cq->dbrec;
	*(uint32_t *)(cq->uar + MLX5_CQ_DOORBELL) = UINT32_MAX;
	cq->eng_last_uar = UINT32_MAX;
	cq->cqe_cnt = cnt;
	cq->cqe = cnt - 1;
	cq->socket = socket;
	cq->ops = cqe_size == 128 ? &dpv_mlx5_cqe128_ring_ops
				  : &dpv_mlx5_ring_ops;
	atomic_init(&cq->arm_req, 0);
	return 0;
}

int
dpv_mlx5_cq_init(struct dpv_mlx5_cq *cq, unsigned int min_cqe, int socket)
{
	return dpv_mlx5_cq_init_sz(cq, min_cqe, socket, 64, false);
}

void
dpv_mlx5_cq_fini(struct dpv_mlx5_cq *cq)
{
	mlx5r_cq_comp_free(cq);
	dpv_mlx5_mem_free(cq->buf);
	dpv_mlx5_mem_free(cq->dbrec);
	cq->buf = NULL;
	cq->dbrec = NULL;
	cq->uar = NULL;
}

int
mlx5r_cq_resize_alloc(unsigned int min_cqe, size_t cqe_size,
		      struct dpv_mlx5_cq_resize *r)
{
	uint32_t cnt;

	memset(r, 0, sizeof(*r));
	if (min_cqe == 0 || min_cqe >= DPV_MLX5_MAX_CQE)
		return EINVAL;
	cnt = rte_align32pow2(min_cqe + 1);
	r->buf = dpv_mlx5_mem_zalloc((size_t)cnt * cqe_size);
	if (r->buf == NULL)
		return ENOMEM;
	r->cqe_cnt = cnt;
	r->min_cqe = min_cqe;
	return 0;
}

int
dpv_mlx5_cq_resize_prepare(const struct dpv_mlx5_cq *cq, unsigned int min_cqe,
			   struct dpv_mlx5_cq_resize *r)
{
	int rc = mlx5r_cq_resize_alloc(min_cqe, cq->cqe_size, r);

	if (rc)
		return rc;
	for (uint32_t i = 0; i < r->cqe_cnt; i++)
		cqe_at(r->buf, r->cqe_cnt, i, cq->cqe_size)->op_own =
			MLX5_CQE_INVALID << 4;
	return 0;
}

int
mlx5r_cq_resize_commit(struct dpv_mlx5_cq *cq, struct dpv_mlx5_cq_resize *r,
		       mlx5r_cqe_move_fn move)
{
	uint32_t ci = be32toh(__atomic_load_n(&cq->dbrec[0], __ATOMIC_ACQUIRE));
	uint32_t pending = (cq->prod_index - ci) & 0xffffff;
	uint32_t start = cq->prod_index - pending, i;
	struct mlx5_cqe64 *old = cq->buf;

	if (r->buf == NULL || pending > cq->cqe_cnt)
		return EIO; /* not prepared, or dbrec[0] is corrupt */
	if (pending > r->min_cqe)
		return EINVAL;
	dpv_barrier_after_owned_cqe();
	for (i = start; i != cq->prod_index; i++)
		move(cq, r, i);
	/* an arm's scan position before the pending CQEs has nothing left */
	if ((uint32_t)(cq->prod_index - cq->eng_scan) > pending)
		cq->eng_scan = start;
	cq->cons_index = start;
	cq->buf = r->buf;
	cq->cqe_cnt = r->cqe_cnt;
	cq->cqe = r->cqe_cnt - 1;
	rte_atomic_thread_fence(__ATOMIC_RELEASE);
	r->buf = old;
	return 0;
}

/* CQE i of the current ring into r (64- or 128-byte entries), with the
 * owner bit of its new lap. */
static void
cqe64_move(const struct dpv_mlx5_cq *cq, struct dpv_mlx5_cq_resize *r,
	   uint32_t i)
{
	const unsigned int sz = cq->cqe_size;
	struct mlx5_cqe64 *d = cqe_at(r->buf, r->cqe_cnt, i, sz);
	const struct mlx5_cqe64 *c = cqe_at(cq->buf, cq->cqe_cnt, i, sz);

	/* the whole entry but op_own (the last byte of both sizes) */
	memcpy((uint8_t *)(d + 1) - sz, (const uint8_t *)(c + 1) - sz, sz - 1);
	d->op_own = (uint8_t)((c->op_own & ~MLX5_CQE_OWNER_MASK) |
			      !!(i & r->cqe_cnt));
}

int
dpv_mlx5_cq_resize_commit(struct dpv_mlx5_cq *cq, struct dpv_mlx5_cq_resize *r)
{
	return mlx5r_cq_resize_commit(cq, r, cqe64_move);
}

void
dpv_mlx5_cq_resize_release(struct dpv_mlx5_cq_resize *r)
{
	dpv_mlx5_mem_free(r->buf);
	r->buf = NULL;
}

void
dpv_mlx5_cq_to_dv(const struct dpv_mlx5_cq *cq, struct mlx5dv_cq *out)
{
	out->buf = cq->buf;
	out->dbrec = cq->dbrec;
	out->cqe_cnt = cq->cqe_cnt;
	out->cqe_size = cq->cqe_size;
	out->cq_uar = cq->uar;
	out->cqn = cq->cqn;
}

/* ---- engine side ---- */

uint8_t
mlx5r_wc_to_wqe_opcode(enum ibv_wc_opcode op, unsigned int wc_flags)
{
	bool imm = wc_flags & IBV_WC_WITH_IMM;

	switch (op) {
	case IBV_WC_SEND:
		return imm ? MLX5_OPCODE_SEND_IMM : MLX5_OPCODE_SEND;
	case IBV_WC_RDMA_WRITE:
		return imm ? MLX5_OPCODE_RDMA_WRITE_IMM
			   : MLX5_OPCODE_RDMA_WRITE;
	case IBV_WC_RDMA_READ:
		return MLX5_OPCODE_RDMA_READ;
	case IBV_WC_COMP_SWAP:
		return MLX5_OPCODE_ATOMIC_CS;
	case IBV_WC_FETCH_ADD:
		return MLX5_OPCODE_ATOMIC_FA;
	case IBV_WC_ATOMIC_WRITE:
		return DPV_MLX5_OPCODE_ATOMIC_WRITE;
	case IBV_WC_BIND_MW:
	case IBV_WC_LOCAL_INV:
	case IBV_WC_DRIVER1: /* MLX5DV_WC_UMR: an indirect key configured */
		return MLX5_OPCODE_UMR;
	case IBV_WC_TSO:
		return MLX5_OPCODE_TSO;
	default:
		return MLX5_OPCODE_SEND;
	}
}

static __rte_always_inline uint8_t
resp_opcode(enum ibv_wc_opcode opcode, unsigned int wc_flags)
{
	if (opcode == IBV_WC_RECV_RDMA_WITH_IMM)
		return MLX5_CQE_RESP_WR_IMM;
	if (wc_flags & IBV_WC_WITH_IMM)
		return MLX5_CQE_RESP_SEND_IMM;
	if (wc_flags & IBV_WC_WITH_INV)
		return MLX5_CQE_RESP_SEND_INV;
	return MLX5_CQE_RESP_SEND;
}

/* CQEs written and not yet handed back by the consumer */
static __rte_always_inline uint32_t
cq_used(const struct dpv_mlx5_cq *cq)
{
	uint32_t cons =
		be32toh(__atomic_load_n(&cq->dbrec[0], __ATOMIC_ACQUIRE));

	return (cq->prod_index - cons) & 0xffffff;
}

/* A send completion's fields (success) */
static __rte_always_inline void
cqe_req_fields(struct mlx5_cqe64 *c, uint32_t qpn, int wqe_opcode,
	       uint32_t byte_len)
{
	c->sop_drop_qpn =
		htobe32(((uint32_t)wqe_opcode << 24) | (qpn & 0xffffff));
	c->byte_cnt = htobe32(byte_len);
}

/* A receive completion's fields (success) that every one has: op its
 * CQE opcode, iip the immediate (as it came), the invalidated key or the
 * P_Key index, by op */
static __rte_always_inline void
cqe_recv_fields(struct mlx5_cqe64 *c, uint8_t op, uint32_t qpn, uint32_t srqn,
		uint32_t byte_len, uint32_t imm_be, uint32_t inv_rkey,
		uint16_t pkey_index, bool grh, uint8_t sl, uint32_t src_qp)
{
	c->sop_drop_qpn = htobe32(qpn & 0xffffff);
	c->srqn_uidx = htobe32(srqn & 0xffffff);
	c->byte_cnt = htobe32(byte_len);
	if (op == MLX5_CQE_RESP_SEND_INV)
		c->imm_inval_pkey = htobe32(inv_rkey);
	else if (op == MLX5_CQE_RESP_SEND_IMM || op == MLX5_CQE_RESP_WR_IMM)
		c->imm_inval_pkey = imm_be;
	else
		c->imm_inval_pkey = htobe32(pkey_index);
	c->flags_rqpn = htobe32((grh ? 1u << 28 : 0) |
				((uint32_t)(sl & 0xf) << 24) |
				(src_qp & 0xffffff));
}

/* A tag matching completion's fields (dpv_tm.h), on the CQE cqe_fill()
 * made of it; returns its opcode (op, or NO_PACKET for the completions
 * no message ends: list operations, an RNDV's tag taken). */
static __rte_noinline uint8_t
cqe_tm_fill(struct mlx5_cqe64 *c, const struct dpv_cqe_info *ci, uint8_t op)
{
	c->app = DPV_TM_CQE_APP;
	c->app_op = ci->tm_op;
	c->app_info = htobe16(ci->tm_handle);
	c->srqn_uidx = htobe32(ci->srqn & 0xffffff);
	switch (ci->tm_op) {
	case DPV_TM_CQE_APPEND:
	case DPV_TM_CQE_REMOVE:
	case DPV_TM_CQE_NOOP:
		/* success as ConnectX reports it; then, in its reserved
		 * bytes, ours: a sync asked for and the operation's wr_id */
		memset(&c->tm_cqe, 0, sizeof(c->tm_cqe));
		c->tm_cqe.success = htobe32(ci->tm_fail ? 0 : MLX5_TMC_SUCCESS);
		c->tm_cqe.rsvd0[0] = ci->tm_sync_req;
		memcpy(&c->tm_cqe.rsvd0[4], &ci->tm_wr_id,
		       sizeof(ci->tm_wr_id));
		c->sop_drop_qpn = 0;
		c->byte_cnt = 0;
		return MLX5_CQE_NO_PACKET;
	case DPV_TM_CQE_CONSUMED:
	case DPV_TM_CQE_EXPECTED:
	case DPV_TM_CQE_CONSUMED_MSG:
		memset(&c->tmh, 0, sizeof(c->tmh));
		c->tmh.tag = ci->tm_tag;
		c->tmh.app_ctx = ci->tm_ctx;
		return ci->tm_op == DPV_TM_CQE_CONSUMED &&
				       ci->status == IBV_WC_SUCCESS
			       ? MLX5_CQE_NO_PACKET
			       : op;
	default:
		return op;
	}
}

/* The CQE of ci in c; returns its op_own without the owner bit. In
 * place (c in the ring): op_own is left alone, for the caller to write
 * last. */
static __rte_always_inline uint8_t
cqe_fill(struct mlx5_cqe64 *restrict c, const struct dpv_cqe_info *ci,
	 int wqe_opcode, bool in_place)
{
	uint8_t owner = 0;
	uint8_t op;
	uint32_t qpn = ci->qpn & 0xffffff;

	memset(c, 0,
	       in_place ? offsetof(struct mlx5_cqe64, op_own) : sizeof(*c));
	c->wqe_counter = htobe16(ci->wqe_counter);
	c->timestamp = htobe64(ci->timestamp);
	if (ci->status != IBV_WC_SUCCESS) {
		struct mlx5_err_cqe *e = (void *)c;

		op = ci->is_recv ? MLX5_CQE_RESP_ERR : MLX5_CQE_REQ_ERR;
		e->srqn = htobe32(ci->srqn & 0xffffff);
		e->syndrome = mlx5r_status_to_synd(ci->status);
		e->vendor_err_synd = ci->vendor_err;
		e->s_wqe_opcode_qpn = htobe32(
			((uint32_t)(ci->is_recv ? 0 : wqe_opcode) << 24) | qpn);
	} else if (!ci->is_recv) {
		op = MLX5_CQE_REQ;
		cqe_req_fields(c, qpn, wqe_opcode, ci->byte_len);
	} else {
		op = resp_opcode(ci->opcode, ci->wc_flags);
		cqe_recv_fields(c, op, qpn, ci->srqn, ci->byte_len,
				ci->imm_data, ci->invalidated_rkey,
				ci->pkey_index, ci->wc_flags & IBV_WC_GRH,
				ci->sl, ci->src_qp);
		c->slid = htobe16(ci->slid);
		c->ml_path = ci->dlid_path_bits & 0x7f;
		if (ci->wc_flags & IBV_WC_IP_CSUM_OK) {
			c->hds_ip_ext = MLX5_CQE_L3_OK | MLX5_CQE_L4_OK;
			c->l4_hdr_type_etc = MLX5_CQE_L3_HDR_TYPE_IPV4 << 2;
		}
		/* bit 0 of the first byte (packet info): a tunneled packet,
		 * the L3/L4 bits are its inner headers' (ConnectX with
		 * tunnel offloads) */
		if (ci->tunneled)
			c->rsvd0[0] = 1;
		/* bit 0 of l4_hdr_type_etc: the VLAN tag was stripped and
		 * vlan_info holds it (as ConnectX reports it) */
		if (ci->vlan_stripped) {
			c->l4_hdr_type_etc |= 1;
			c->vlan_info = htobe16(ci->vlan_tci);
		}
	}
	if (ci->scat_len && ci->status == IBV_WC_SUCCESS) {
		/* scatter to CQE: the data in the first 32 bytes */
		memcpy(c, ci->scat, RTE_MIN(ci->scat_len, DPV_CQE_SCAT_MAX));
		owner |= MLX5_INLINE_SCATTER_32;
	}
	if (unlikely(ci->tm_op != 0))
		op = cqe_tm_fill(c, ci, op);
	return (uint8_t)((op << 4) | ((ci->is_recv && ci->solicited) ? 2 : 0) |
			 owner);
}

/* The CQE at the producer index (a 128-byte entry's pad cleared). A
 * consumer reads nothing of it before its owner bit says it is
 * software's: cqe_publish() writes that byte last. */
static __rte_always_inline struct mlx5_cqe64 *
cqe_slot(struct dpv_mlx5_cq *cq, unsigned int sz)
{
	struct mlx5_cqe64 *dst =
		cqe_at(cq->buf, cq->cqe_cnt, cq->prod_index, sz);

	if (sz == 128 && cq->cqe_pad)
		memset(dst - 1, 0, sizeof(*dst));
	return dst;
}

/* A CQE's time stamp: the time-stamp counter now (out of line: the CQs
 * that ask for it are few, the writers' hot code stays as it was). */
static __rte_noinline __rte_cold void
cqe_stamp(struct mlx5_cqe64 *dst)
{
	dst->timestamp = htobe64(rte_rdtsc());
}

/* Hand the CQE at dst (cqe_slot()) to the consumer: op_own oo, owner bit
 * added; stamped with the time-stamp counter if the CQ asked for it. */
static __rte_always_inline void
cqe_publish(struct dpv_mlx5_cq *cq, struct mlx5_cqe64 *dst, uint8_t oo)
{
	if (unlikely(cq->eng_ts))
		cqe_stamp(dst);
	dpv_barrier_before_cqe_owner();
	__atomic_store_n(&dst->op_own,
			 (uint8_t)(oo | !!(cq->prod_index & cq->cqe_cnt)),
			 __ATOMIC_RELAXED);
	cq->prod_index++;
}

/* Write c with op_own oo (owner bit added) at the producer index. */
static __rte_always_inline void
cqe_store(struct dpv_mlx5_cq *cq, const struct mlx5_cqe64 *c, uint8_t oo,
	  unsigned int sz)
{
	struct mlx5_cqe64 *dst = cqe_slot(cq, sz);

	memcpy(dst, c, offsetof(struct mlx5_cqe64, op_own));
	cqe_publish(cq, dst, oo);
}

static __rte_always_inline int
cq_write(struct dpv_mlx5_cq *cq, const struct dpv_cqe_info *ci, int wqe_opcode,
	 unsigned int sz)
{
	struct mlx5_cqe64 *dst;
	uint8_t oo;

	if (cq_used(cq) >= cq->cqe_cnt)
		return ENOSPC;
	/* in place, the owner byte last */
	dst = cqe_slot(cq, sz);
	oo = cqe_fill(dst, ci, wqe_opcode, true);
	cqe_publish(cq, dst, oo);
	return 0;
}

/* flush's writer: either size (a queue's table is not its CQ's) */
int
mlx5r_cq_push(struct dpv_mlx5_cq *cq, const struct dpv_cqe_info *ci,
	      int wqe_opcode)
{
	if (unlikely(cq->comp != NULL))
		return mlx5r_cq_comp_push(cq, ci, wqe_opcode);
	if (cq->cqe_size == 128)
		return cq_write(cq, ci, wqe_opcode, 128);
	return cq_write(cq, ci, wqe_opcode, 64);
}

int
dpv_mlx5_cq_push(struct dpv_mlx5_cq *cq, const struct dpv_cqe_info *ci)
{
	return cq_write(cq, ci,
			mlx5r_wc_to_wqe_opcode(ci->opcode, ci->wc_flags), 64);
}

/* The CQE slot for a direct writer (cleared but for op_own); NULL: the
 * CQ is full */
static __rte_always_inline struct mlx5_cqe64 *
cqe_direct(struct dpv_mlx5_cq *cq, uint16_t wqe_counter)
{
	struct mlx5_cqe64 *dst;

	if (cq_used(cq) >= cq->cqe_cnt)
		return NULL;
	dst = cqe_slot(cq, 64);
	memset(dst, 0, offsetof(struct mlx5_cqe64, op_own));
	dst->wqe_counter = htobe16(wqe_counter);
	return dst;
}

int
dpv_mlx5_cq_push_req(struct dpv_mlx5_cq *cq, uint32_t qpn,
		     uint16_t wqe_counter, enum ibv_wc_opcode opcode,
		     unsigned int wc_flags, uint32_t byte_len)
{
	struct mlx5_cqe64 *dst = cqe_direct(cq, wqe_counter);

	if (dst == NULL)
		return ENOSPC;
	cqe_req_fields(dst, qpn, mlx5r_wc_to_wqe_opcode(opcode, wc_flags),
		       byte_len);
	cqe_publish(cq, dst, MLX5_CQE_REQ << 4);
	return 0;
}

int
dpv_mlx5_cq_push_recv(struct dpv_mlx5_cq *cq, uint32_t qpn,
		      uint16_t wqe_counter, enum ibv_wc_opcode opcode,
		      unsigned int wc_flags, uint32_t byte_len, uint32_t imm,
		      uint32_t src_qp, uint32_t srqn, bool solicited)
{
	struct mlx5_cqe64 *dst = cqe_direct(cq, wqe_counter);
	uint8_t op = resp_opcode(opcode, wc_flags);

	if (dst == NULL)
		return ENOSPC;
	cqe_recv_fields(dst, op, qpn, srqn, byte_len, imm, imm, 0,
			wc_flags & IBV_WC_GRH, 0, src_qp);
	cqe_publish(cq, dst, (uint8_t)((op << 4) | (solicited ? 2 : 0)));
	return 0;
}

int
dpv_mlx5_cq128_push(struct dpv_mlx5_cq *cq, const struct dpv_cqe_info *ci)
{
	return cq_write(cq, ci,
			mlx5r_wc_to_wqe_opcode(ci->opcode, ci->wc_flags), 128);
}

/* ---- completion event moderation ---- */

void
dpv_mlx5_cq_moderate(struct dpv_mlx5_cq *cq, uint16_t count, uint16_t period_us)
{
	uint32_t m = count >= 2 && period_us != 0
			     ? (uint32_t)count << 16 | period_us
			     : 0;

	__atomic_store_n(&cq->mod_req, m, __ATOMIC_RELAXED);
}

/* A new arm takes the moderation asked for last (the arm request's
 * release ordered that store before it) and counts from nothing. */
static inline void
mod_take(struct dpv_mlx5_cq *cq)
{
	uint32_t m = __atomic_load_n(&cq->mod_req, __ATOMIC_RELAXED);

	cq->eng_mod_run = false;
	cq->eng_mod_cnt = (uint16_t)(m >> 16);
	if (likely(m == 0))
		return;
	cq->eng_mod_seen = 0;
	cq->eng_mod_cyc = (m & 0xffff) * rte_get_timer_hz() / 1000000;
}

bool
mlx5r_cq_mod_hit(struct dpv_mlx5_cq *cq, uint32_t n)
{
	/* the period runs from the first CQE counted */
	if (!cq->eng_mod_run) {
		cq->eng_mod_due = rte_get_timer_cycles() + cq->eng_mod_cyc;
		cq->eng_mod_run = true;
	}
	cq->eng_mod_seen += n;
	if (cq->eng_mod_seen < cq->eng_mod_cnt)
		return false;
	mlx5r_cq_arm_fire(cq);
	return true;
}

bool
mlx5r_cq_mod_due(struct dpv_mlx5_cq *cq)
{
	if (rte_get_timer_cycles() < cq->eng_mod_due)
		return false;
	mlx5r_cq_arm_fire(cq);
	return true;
}

/* The arm bookkeeping of should_notify, common to the formats: take note
 * of a new arm request; true while the CQ is armed (CQEs from eng_scan to
 * prod_index are then to be checked). */
static __rte_always_inline bool
arm_check(struct dpv_mlx5_cq *cq)
{
	uint32_t req;

	/*
	 * The CQE just written must be visible before the arm request is
	 * read: the arming thread stores its request, then polls (a locked
	 * add, a full barrier); without a full barrier here both sides can
	 * miss each other and the event is lost.
	 */
	atomic_thread_fence(memory_order_seq_cst);
	req = atomic_load_explicit(&cq->arm_req, memory_order_acquire);
	uint32_t uw = __atomic_load_n((uint32_t *)(cq->uar + MLX5_CQ_DOORBELL),
				      __ATOMIC_ACQUIRE);
	bool arm = false;

	/*
	 * dpv_mlx5_cq_arm() writes the doorbell word, then bumps arm_req;
	 * mlx5dv code writes the doorbell word only. A word change seen
	 * before its arm_req bump is the same request: do not arm twice.
	 */
	if (req != cq->eng_arm_seen) {
		arm = !(cq->eng_uar_dv && uw == cq->eng_last_uar);
		cq->eng_arm_seen = req;
		cq->eng_uar_dv = false;
	} else if (uw != cq->eng_last_uar) {
		arm = true;
		cq->eng_uar_dv = true;
	}
	cq->eng_last_uar = uw;
	if (arm) {
		uint32_t w = be32toh(uw);
		uint32_t back = (cq->prod_index - (w & 0xffffff)) & 0xffffff;

		cq->eng_armed = true;
		cq->eng_arm_sol = (w & (0xfu << 24)) == MLX5_CQ_DB_REQ_NOT_SOL;
		back = RTE_MIN(back, cq->cqe_cnt);
		/* CQEs not polled yet count, but not those an event was raised
		 * for already: an arm made before the CQE of the last event is
		 * polled (perftest's -e) raises no second event for it, one
		 * over a CQE written while disarmed (qperf's) does */
		back = RTE_MIN(back, cq->prod_index - cq->eng_fired_at);
		cq->eng_scan = cq->prod_index - back;
		mod_take(cq);
	}
	return cq->eng_armed;
}

bool
mlx5r_cq_arm_check(struct dpv_mlx5_cq *cq)
{
	return arm_check(cq);
}

static __rte_always_inline bool
should_notify(struct dpv_mlx5_cq *cq, unsigned int sz)
{
	if (!arm_check(cq))
		return false;
	for (; cq->eng_scan != cq->prod_index; cq->eng_scan++) {
		uint8_t oo =
			cqe_at(cq->buf, cq->cqe_cnt, cq->eng_scan, sz)->op_own;
		uint8_t op = oo >> 4;

		if ((!cq->eng_arm_sol || (oo & 2) || op == MLX5_CQE_REQ_ERR ||
		     op == MLX5_CQE_RESP_ERR) &&
		    mlx5r_cq_arm_hit(cq, 1))
			return true;
	}
	return mlx5r_cq_arm_expired(cq);
}

bool
dpv_mlx5_cq_should_notify(struct dpv_mlx5_cq *cq)
{
	return should_notify(cq, 64);
}

bool
dpv_mlx5_cq128_should_notify(struct dpv_mlx5_cq *cq)
{
	return should_notify(cq, 128);
}

static unsigned int
flush_sq(struct dpv_mlx5_sq *sq, struct dpv_mlx5_cq *cq, uint32_t qpn)
{
	uint32_t db = mlx5r_db_read(&sq->wq) & 0xffff;
	uint32_t pos = sq->wq.eng_ci;
	unsigned int n = 0;
	struct dpv_cqe_info ci = {
		.status = IBV_WC_WR_FLUSH_ERR,
		.qpn = qpn,
	};

	while ((uint16_t)(db - (uint16_t)pos) != 0) {
		struct mlx5_wqe_ctrl_seg c;
		uint32_t ds, nbb;

		memcpy(&c, mlx5r_at(&sq->wq, pos << MLX5_SEND_WQE_SHIFT),
		       sizeof(c));
		ds = be32toh(c.qpn_ds) & 0x3f;
		nbb = (ds * 16 + MLX5_SEND_WQE_BB - 1) / MLX5_SEND_WQE_BB;
		if (nbb == 0 || nbb > (uint16_t)(db - (uint16_t)pos))
			nbb = 1;
		ci.wqe_counter = (uint16_t)pos;
		if (mlx5r_cq_push(cq, &ci, be32toh(c.opmod_idx_opcode) & 0xff))
			break;
		pos += nbb;
		n++;
	}
	sq->wq.eng_ci = pos;
	if ((int32_t)(pos - sq->wq.eng_pi) > 0)
		sq->wq.eng_pi = pos;
	return n;
}

unsigned int
mlx5r_flush_rq(struct dpv_mlx5_rq *rq, struct dpv_mlx5_cq *cq, uint32_t qpn,
	       mlx5r_push_fn push)
{
	uint32_t db = mlx5r_db_read(&rq->wq) & 0xffff;
	uint32_t pos = rq->wq.eng_ci;
	unsigned int n = 0;
	struct dpv_cqe_info ci = {
		.status = IBV_WC_WR_FLUSH_ERR,
		.qpn = qpn,
		.is_recv = true,
		.opcode = IBV_WC_RECV,
	};

	while ((uint16_t)(db - (uint16_t)pos) != 0) {
		ci.wqe_counter = (uint16_t)pos;
		if (push(cq, &ci, 0))
			break;
		pos++;
		n++;
	}
	rq->wq.eng_ci = pos;
	if ((int32_t)(pos - rq->wq.eng_pi) > 0)
		rq->wq.eng_pi = pos;
	return n;
}

unsigned int
dpv_mlx5_flush(struct dpv_mlx5_wq *wq, struct dpv_mlx5_cq *cq, uint32_t qpn)
{
	switch (wq->kind) {
	case DPV_MLX5_WQ_SQ:
		return flush_sq((struct dpv_mlx5_sq *)wq, cq, qpn);
	case DPV_MLX5_WQ_RQ:
		return mlx5r_flush_rq((struct dpv_mlx5_rq *)wq, cq, qpn,
				      mlx5r_cq_push);
	default:
		return 0;
	}
}

/* ---- QP reset / destroy ---- */

static bool
cqe_is_recv(uint8_t op)
{
	return op == MLX5_CQE_RESP_WR_IMM || op == MLX5_CQE_RESP_SEND ||
	       op == MLX5_CQE_RESP_SEND_IMM || op == MLX5_CQE_RESP_SEND_INV ||
	       op == MLX5_CQE_RESP_ERR;
}

/* A receive CQE dropped: its SRQ slot (or tagged buffer) is free. */
static void
clean_recv(struct dpv_mlx5_rq *srq, const struct mlx5_cqe64 *c, uint8_t op)
{
	if (unlikely(c->app == DPV_TM_CQE_APP) &&
	    dpv_tm_cqe_tagged(c->app_op)) {
		if (srq->tm != NULL &&
		    (op == MLX5_CQE_RESP_ERR || dpv_tm_cqe_final(c->app_op)))
			dpv_tm_handle_put(srq->tm, be16toh(c->app_info));
		return;
	}
	mlx5r_srq_free(srq, be16toh(c->wqe_counter));
}

static __rte_always_inline unsigned int
cq_clean(struct dpv_mlx5_cq *cq, uint32_t qpn, struct dpv_mlx5_rq *srq,
	 unsigned int sz)
{
	uint32_t prod, i, freed = 0;

	if (cq->buf == NULL)
		return 0;
	qpn &= 0xffffff;
	/* the end of the software-owned CQEs */
	for (prod = cq->cons_index; prod - cq->cons_index < cq->cqe_cnt;
	     prod++) {
		uint8_t oo = cqe_at(cq->buf, cq->cqe_cnt, prod, sz)->op_own;

		if (!dpv_mlx5_cqe_sw_owned(oo, prod, cq->cqe_cnt))
			break;
	}
	dpv_barrier_after_owned_cqe();
	/*
	 * Newest to oldest: drop the QP's CQEs, slide the others up by the
	 * number dropped so far (their order is kept and they end right
	 * before prod); each copy takes the owner bit of its new slot.
	 */
	for (i = prod; i-- != cq->cons_index;) {
		struct mlx5_cqe64 *c = cqe_at(cq->buf, cq->cqe_cnt, i, sz);
		uint8_t op = c->op_own >> 4;

		if ((be32toh(c->sop_drop_qpn) & 0xffffff) == qpn &&
		    (op == MLX5_CQE_REQ || op == MLX5_CQE_REQ_ERR ||
		     cqe_is_recv(op) ||
		     (op == MLX5_CQE_NO_PACKET && c->app == DPV_TM_CQE_APP &&
		      c->app_op == DPV_TM_CQE_CONSUMED))) {
			if (srq != NULL && cqe_is_recv(op))
				clean_recv(srq, c, op);
			freed++;
		} else if (freed != 0) {
			struct mlx5_cqe64 *d =
				cqe_at(cq->buf, cq->cqe_cnt, i + freed, sz);
			uint8_t own = !!((i + freed) & cq->cqe_cnt);

			memcpy((uint8_t *)(d + 1) - sz,
			       (const uint8_t *)(c + 1) - sz, sz - 1);
			d->op_own =
				(uint8_t)((c->op_own & ~MLX5_CQE_OWNER_MASK) |
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

unsigned int
dpv_mlx5_cq_clean(struct dpv_mlx5_cq *cq, uint32_t qpn, struct dpv_mlx5_rq *srq)
{
	return cq_clean(cq, qpn, srq, 64);
}

unsigned int
dpv_mlx5_cq128_clean(struct dpv_mlx5_cq *cq, uint32_t qpn,
		     struct dpv_mlx5_rq *srq)
{
	return cq_clean(cq, qpn, srq, 128);
}

/* ---- application side ---- */

static void
req_opcode(struct ibv_wc *wc, uint8_t op, uint32_t wr_data)
{
	switch (op) {
	case MLX5_OPCODE_RDMA_WRITE_IMM:
		wc->wc_flags |= IBV_WC_WITH_IMM;
		/* fall through */
	case MLX5_OPCODE_RDMA_WRITE:
		wc->opcode = IBV_WC_RDMA_WRITE;
		break;
	case MLX5_OPCODE_SEND_IMM:
		wc->wc_flags |= IBV_WC_WITH_IMM;
		/* fall through */
	case MLX5_OPCODE_SEND:
	case MLX5_OPCODE_SEND_INVAL:
		wc->opcode = IBV_WC_SEND;
		break;
	case MLX5_OPCODE_RDMA_READ:
		wc->opcode = IBV_WC_RDMA_READ;
		break;
	case MLX5_OPCODE_ATOMIC_CS:
		wc->opcode = IBV_WC_COMP_SWAP;
		wc->byte_len = 8;
		break;
	case MLX5_OPCODE_ATOMIC_FA:
		wc->opcode = IBV_WC_FETCH_ADD;
		wc->byte_len = 8;
		break;
	case DPV_MLX5_OPCODE_ATOMIC_WRITE:
		wc->opcode = IBV_WC_ATOMIC_WRITE;
		break;
	case MLX5_OPCODE_UMR:
		wc->opcode = (enum ibv_wc_opcode)wr_data;
		break;
	case MLX5_OPCODE_TSO:
		wc->opcode = IBV_WC_TSO;
		break;
	default:
		break;
	}
}

/* Send completion: wr_id and the SQ tail from the slot of wqe_counter. */
int
mlx5r_req_done(struct dpv_mlx5_wq *wq, uint16_t wqe_ctr, struct ibv_wc *wc,
	 uint8_t op)
{
	struct dpv_mlx5_sq *sq = (struct dpv_mlx5_sq *)wq;
	const struct dpv_mlx5_sq_slot *s;
	uint32_t idx;

	if (wq == NULL || wq->kind != DPV_MLX5_WQ_SQ)
		return EIO;
	idx = wqe_ctr & (wq->wqe_cnt - 1);
	s = &sq->slot[idx];
	wc->wr_id = s->wr_id;
	req_opcode(wc, op, s->data);
	if (s->data == IBV_WC_DRIVER2) /* mlx5dv_wr_raw_wqe */
		wc->opcode = IBV_WC_DRIVER2;
	__atomic_store_n(&sq->bb_tail, s->bbend, __ATOMIC_RELEASE);
	__atomic_store_n(&wq->tail, s->head + 1, __ATOMIC_RELEASE);
	return 0;
}

/* Receive completion: wr_id from the RQ tail or the SRQ slot. */
int
mlx5r_resp_done(struct dpv_mlx5_wq *wq, uint16_t wqe_ctr, struct ibv_wc *wc)
{
	if (wq == NULL)
		return EIO;
	if (wq->kind == DPV_MLX5_WQ_SRQ) {
		wc->wr_id = wq->wrid[wqe_ctr & (wq->wqe_cnt - 1)];
		mlx5r_srq_free((struct dpv_mlx5_rq *)wq, wqe_ctr);
	} else if (wq->kind == DPV_MLX5_WQ_RQ) {
		wc->wr_id = wq->wrid[wq->tail & (wq->wqe_cnt - 1)];
		__atomic_store_n(&wq->tail, wq->tail + 1, __ATOMIC_RELEASE);
	} else {
		return EIO;
	}
	return 0;
}

struct dpv_mlx5_wq *
mlx5r_lookup_recv(dpv_mlx5_wq_lookup_t lookup, void *arg, uint32_t qpn, uint32_t srqn)
{
	struct dpv_mlx5_wq *wq = NULL;

	/* by SRQ number first; a QP lookup returns the QP's SRQ as well */
	if (srqn)
		wq = lookup(arg, DPV_MLX5_LOOKUP_SRQ | srqn, true);
	return wq != NULL ? wq : lookup(arg, qpn, true);
}

/* A receive CQE's completion (success; op_own oo), its WQE consumed. */
static __rte_always_inline int
cqe_recv(const struct mlx5_cqe64 *cqe, uint8_t oo, uint32_t qpn, uint32_t srqn,
	 uint16_t ctr, dpv_mlx5_wq_lookup_t lookup, void *arg,
	 struct ibv_wc *wc)
{
	uint8_t op = oo >> 4;
	struct dpv_mlx5_wq *rwq;
	uint32_t fr;

	rwq = mlx5r_lookup_recv(lookup, arg, qpn, srqn);
	/* before mlx5r_resp_done: an SRQ slot is free after it */
	wc->status = (oo & MLX5_INLINE_SCATTER_32)
			     ? dpv_mlx5_scat_to_recv(rwq, ctr, cqe,
						     be32toh(cqe->byte_cnt))
			     : IBV_WC_SUCCESS;
	if (mlx5r_resp_done(rwq, ctr, wc))
		return EIO;
	wc->byte_len = be32toh(cqe->byte_cnt);
	wc->opcode = op == MLX5_CQE_RESP_WR_IMM ? IBV_WC_RECV_RDMA_WITH_IMM
						: IBV_WC_RECV;
	if (op == MLX5_CQE_RESP_WR_IMM || op == MLX5_CQE_RESP_SEND_IMM) {
		wc->wc_flags |= IBV_WC_WITH_IMM;
		wc->imm_data = cqe->imm_inval_pkey;
	} else if (op == MLX5_CQE_RESP_SEND_INV) {
		wc->wc_flags |= IBV_WC_WITH_INV;
		wc->invalidated_rkey = be32toh(cqe->imm_inval_pkey);
	} else {
		wc->pkey_index = be32toh(cqe->imm_inval_pkey) & 0xffff;
	}
	fr = be32toh(cqe->flags_rqpn);
	wc->src_qp = fr & 0xffffff;
	wc->sl = (fr >> 24) & 0xf;
	if ((fr >> 28) & 3)
		wc->wc_flags |= IBV_WC_GRH;
	wc->slid = be16toh(cqe->slid);
	wc->dlid_path_bits = cqe->ml_path & 0x7f;
	if ((cqe->hds_ip_ext & (MLX5_CQE_L3_OK | MLX5_CQE_L4_OK)) ==
		    (MLX5_CQE_L3_OK | MLX5_CQE_L4_OK) &&
	    ((cqe->l4_hdr_type_etc >> 2) & 3) == MLX5_CQE_L3_HDR_TYPE_IPV4)
		wc->wc_flags |= IBV_WC_IP_CSUM_OK;
	return 0;
}

/*
 * A tag matching completion (dpv_tm.h) of a list operation or a tagged
 * buffer: its wr_id from the CQE or the buffer's handle, which is free
 * after its last completion. Ordinary WQEs' ones (unexpected, no tag)
 * are decoded as receives and take their opcode in cqe_decode().
 */
static __rte_noinline int
cqe_tm_decode(struct dpv_mlx5_cq *cq, const struct mlx5_cqe64 *cqe, uint8_t op,
	      dpv_mlx5_wq_lookup_t lookup, void *arg, struct ibv_wc *wc)
{
	uint32_t srqn = be32toh(cqe->srqn_uidx) & 0xffffff;
	struct dpv_mlx5_wq *wq =
		srqn ? lookup(arg, DPV_MLX5_LOOKUP_SRQ | srqn, true) : NULL;
	uint8_t aop = cqe->app_op;
	uint16_t h = be16toh(cqe->app_info);
	struct dpv_tm *tm;

	if (wq == NULL || wq->kind != DPV_MLX5_WQ_SRQ)
		return EIO;
	tm = ((struct dpv_mlx5_rq *)wq)->tm;
	if (tm == NULL)
		return EIO;
	cq->cur_tm_tag = 0;
	cq->cur_tm_ctx = 0;
	switch (aop) {
	case DPV_TM_CQE_APPEND:
	case DPV_TM_CQE_REMOVE:
	case DPV_TM_CQE_NOOP:
		memcpy(&wc->wr_id, &cqe->tm_cqe.rsvd0[4], sizeof(wc->wr_id));
		wc->opcode = aop == DPV_TM_CQE_APPEND	? IBV_WC_TM_ADD
			     : aop == DPV_TM_CQE_REMOVE ? IBV_WC_TM_DEL
							: IBV_WC_TM_SYNC;
		wc->status = (be32toh(cqe->tm_cqe.success) & MLX5_TMC_SUCCESS)
				     ? IBV_WC_SUCCESS
				     : IBV_WC_TM_ERR;
		if (cqe->tm_cqe.rsvd0[0])
			wc->wc_flags |= IBV_WC_TM_SYNC_REQ;
		wc->qp_num = 0;
		return 0;
	case DPV_TM_CQE_CONSUMED:
	case DPV_TM_CQE_EXPECTED:
	case DPV_TM_CQE_CONSUMED_MSG:
		break;
	default:
		return EIO;
	}
	if (h >= tm->ntags)
		return EIO;
	wc->wr_id = tm->wrid[h];
	wc->opcode = IBV_WC_TM_RECV;
	if (op == MLX5_CQE_RESP_ERR) {
		const struct mlx5_err_cqe *e = (const void *)cqe;

		wc->qp_num = be32toh(e->s_wqe_opcode_qpn) & 0xffffff;
		wc->status = mlx5r_synd_to_status(e->syndrome);
		wc->vendor_err = e->vendor_err_synd;
		dpv_tm_handle_put(tm, h);
		return 0;
	}
	wc->status = IBV_WC_SUCCESS;
	cq->cur_tm_tag = be64toh(cqe->tmh.tag);
	cq->cur_tm_ctx = be32toh(cqe->tmh.app_ctx);
	wc->byte_len = be32toh(cqe->byte_cnt);
	wc->wc_flags = aop == DPV_TM_CQE_CONSUMED ? IBV_WC_TM_MATCH
		       : aop == DPV_TM_CQE_EXPECTED
			       ? IBV_WC_TM_DATA_VALID
			       : IBV_WC_TM_MATCH | IBV_WC_TM_DATA_VALID;
	if (op == MLX5_CQE_RESP_SEND_IMM) {
		wc->wc_flags |= IBV_WC_WITH_IMM;
		wc->imm_data = cqe->imm_inval_pkey;
	}
	if (dpv_tm_cqe_final(aop))
		dpv_tm_handle_put(tm, h);
	return 0;
}

/* A receive CQE of a tag matching SRQ: a tagged buffer's, or an
 * ordinary WQE's (decoded as any receive, the opcode of its kind). */
static __rte_noinline int
cqe_tm_recv(struct dpv_mlx5_cq *cq, const struct mlx5_cqe64 *cqe, uint8_t oo,
	    uint32_t qpn, uint32_t srqn, uint16_t ctr,
	    dpv_mlx5_wq_lookup_t lookup, void *arg, struct ibv_wc *wc)
{
	int rc;

	if (dpv_tm_cqe_tagged(cqe->app_op))
		return cqe_tm_decode(cq, cqe, oo >> 4, lookup, arg, wc);
	rc = cqe_recv(cqe, oo, qpn, srqn, ctr, lookup, arg, wc);
	wc->opcode = cqe->app_op == DPV_TM_CQE_NO_TAG ? IBV_WC_TM_NO_TAG
						      : IBV_WC_TM_RECV;
	cq->cur_tm_tag = 0;
	cq->cur_tm_ctx = 0;
	return rc;
}

/* The completion of an owned CQE (already consumed) with op_own oo. */
static __rte_always_inline int
cqe_decode(struct dpv_mlx5_cq *cq, const struct mlx5_cqe64 *cqe, uint8_t oo,
	   dpv_mlx5_wq_lookup_t lookup, void *arg, struct ibv_wc *wc)
{
	uint8_t op = oo >> 4;
	uint32_t qpn, srqn;
	uint16_t ctr;

	qpn = be32toh(cqe->sop_drop_qpn) & 0xffffff;
	ctr = be16toh(cqe->wqe_counter);
	memset(wc, 0, sizeof(*wc));
	wc->qp_num = qpn;
	cq->cur_ts = be64toh(cqe->timestamp);
	cq->cur_vlan = be16toh(cqe->vlan_info);

	switch (op) {
	case MLX5_CQE_REQ: {
		struct dpv_mlx5_wq *sq = lookup(arg, qpn, false);

		wc->status = IBV_WC_SUCCESS;
		wc->byte_len = be32toh(cqe->byte_cnt);
		if (oo & MLX5_INLINE_SCATTER_32)
			wc->status = dpv_mlx5_scat_to_send(sq, ctr, cqe,
							   wc->byte_len);
		return mlx5r_req_done(sq, ctr, wc, be32toh(cqe->sop_drop_qpn) >> 24);
	}
	case MLX5_CQE_RESP_WR_IMM:
	case MLX5_CQE_RESP_SEND:
	case MLX5_CQE_RESP_SEND_IMM:
	case MLX5_CQE_RESP_SEND_INV:
		srqn = be32toh(cqe->srqn_uidx) & 0xffffff;
		/* tag matching CQEs come from SRQs only */
		if (unlikely(srqn != 0) && cqe->app == DPV_TM_CQE_APP)
			return cqe_tm_recv(cq, cqe, oo, qpn, srqn, ctr, lookup,
					   arg, wc);
		return cqe_recv(cqe, oo, qpn, srqn, ctr, lookup, arg, wc);
	case MLX5_CQE_NO_PACKET:
		if (cqe->app == DPV_TM_CQE_APP)
			return cqe_tm_decode(cq, cqe, op, lookup, arg, wc);
		return MLX5R_CQE_SKIP;
	case MLX5_CQE_REQ_ERR:
	case MLX5_CQE_RESP_ERR: {
		struct mlx5_err_cqe *e = (struct mlx5_err_cqe *)cqe;
		uint32_t sq_op = be32toh(e->s_wqe_opcode_qpn);
		int rc;

		if (op == MLX5_CQE_RESP_ERR &&
		    unlikely(cqe->app == DPV_TM_CQE_APP) &&
		    dpv_tm_cqe_tagged(cqe->app_op))
			return cqe_tm_decode(cq, cqe, op, lookup, arg, wc);
		qpn = sq_op & 0xffffff;
		wc->qp_num = qpn;
		if (op == MLX5_CQE_REQ_ERR)
			rc = mlx5r_req_done(lookup(arg, qpn, false), ctr, wc,
				      sq_op >> 24);
		else
			rc = mlx5r_resp_done(mlx5r_lookup_recv(lookup, arg, qpn,
						   be32toh(e->srqn) & 0xffffff),
				       ctr, wc);
		if (rc)
			return rc;
		wc->status = mlx5r_synd_to_status(e->syndrome);
		wc->vendor_err = e->vendor_err_synd;
		wc->wc_flags = 0;
		return 0;
	}
	default:
		return MLX5R_CQE_SKIP;
	}
}

static __rte_always_inline int
poll_one_sz(struct dpv_mlx5_cq *cq, dpv_mlx5_wq_lookup_t lookup, void *arg,
	    struct ibv_wc *wc, unsigned int sz)
{
	struct mlx5_cqe64 *cqe = cqe_at(cq->buf, cq->cqe_cnt, cq->cons_index, sz);
	uint8_t oo = __atomic_load_n(&cqe->op_own, __ATOMIC_RELAXED);

	if (!dpv_mlx5_cqe_sw_owned(oo, cq->cons_index, cq->cqe_cnt))
		return ENOENT;
	dpv_barrier_after_owned_cqe();
	cq->cons_index++;
	return cqe_decode(cq, cqe, oo, lookup, arg, wc);
}

static int
poll_one(struct dpv_mlx5_cq *cq, dpv_mlx5_wq_lookup_t lookup, void *arg,
	 struct ibv_wc *wc)
{
	return poll_one_sz(cq, lookup, arg, wc, 64);
}

static int
poll_one128(struct dpv_mlx5_cq *cq, dpv_mlx5_wq_lookup_t lookup, void *arg,
	    struct ibv_wc *wc)
{
	return poll_one_sz(cq, lookup, arg, wc, 128);
}

int
dpv_mlx5_cq_poll(struct dpv_mlx5_cq *cq, int n, struct ibv_wc *wc,
		 dpv_mlx5_wq_lookup_t lookup, void *arg)
{
	if (n < 0)
		return -EINVAL;
	return mlx5r_poll_n(cq, n, wc, lookup, arg, poll_one);
}

int
dpv_mlx5_cq128_poll(struct dpv_mlx5_cq *cq, int n, struct ibv_wc *wc,
		    dpv_mlx5_wq_lookup_t lookup, void *arg)
{
	if (n < 0)
		return -EINVAL;
	return mlx5r_poll_n(cq, n, wc, lookup, arg, poll_one128);
}

int
dpv_mlx5_cq_ex_next(struct dpv_mlx5_cq *cq, dpv_mlx5_wq_lookup_t lookup,
		    void *arg, uint64_t *wr_id, enum ibv_wc_status *status)
{
	return mlx5r_ex_next(cq, lookup, arg, wr_id, status, poll_one);
}

int
dpv_mlx5_cq128_ex_next(struct dpv_mlx5_cq *cq, dpv_mlx5_wq_lookup_t lookup,
		       void *arg, uint64_t *wr_id, enum ibv_wc_status *status)
{
	return mlx5r_ex_next(cq, lookup, arg, wr_id, status, poll_one128);
}

void
dpv_mlx5_cq_ex_end(struct dpv_mlx5_cq *cq)
{
	mlx5r_update_ci(cq);
}

int
dpv_mlx5_cq_arm(struct dpv_mlx5_cq *cq, int solicited_only)
{
	uint32_t sn = cq->arm_sn & 3;
	uint32_t cmd =
		solicited_only ? MLX5_CQ_DB_REQ_NOT_SOL : MLX5_CQ_DB_REQ_NOT;
	uint32_t w = (sn << 28) | cmd | (cq->cons_index & 0xffffff);

	mlx5r_update_ci(cq);
	__atomic_store_n(&cq->dbrec[1], htobe32(w), __ATOMIC_RELEASE);
	/* the doorbell proper: {arm word, cqn}, both big endian */
	__atomic_store_n((uint32_t *)(cq->uar + MLX5_CQ_DOORBELL + 4),
			 htobe32(cq->cqn), __ATOMIC_RELAXED);
	__atomic_store_n((uint32_t *)(cq->uar + MLX5_CQ_DOORBELL), htobe32(w),
			 __ATOMIC_RELEASE);
	atomic_fetch_add_explicit(&cq->arm_req, 1, memory_order_release);
	return 0;
}

void
dpv_mlx5_cq_event(struct dpv_mlx5_cq *cq)
{
	cq->arm_sn++;
}

/* ---- CQE compression (dpv_mlx5_cq_compress) ---- */

struct dpv_mlx5_cq_comp {
	unsigned int fmt; /* MLX5DV_CQE_RES_FORMAT_* */
	/* engine side: the held session */
	uint32_t held;		  /* CQEs held (0: none) */
	uint8_t hoo;		  /* op_own of its first, no owner bit */
	struct mlx5_cqe64 htitle; /* its first CQE */
	struct dpv_mlx5_mini_cqe8 hmini[DPV_MLX5_CQE_COMP_MAX];
	/* per entry: indexes to the end of the session it is in (0: a
	 * plain CQE), for the solicited-only arm scan */
	uint8_t *skip;
	/* application side: the session being read */
	uint32_t left;	/* its completions not read yet */
	uint32_t j;	/* the next one's number */
	uint32_t start; /* its title's index */
	struct mlx5_cqe64 title;
	struct dpv_mlx5_mini_cqe8 mini[DPV_MLX5_MINI_PER_CQE];
};

int
dpv_mlx5_cq_compress(struct dpv_mlx5_cq *cq, unsigned int fmt)
{
	struct dpv_mlx5_cq_comp *z;

	if ((fmt != MLX5DV_CQE_RES_FORMAT_HASH &&
	     fmt != MLX5DV_CQE_RES_FORMAT_CSUM &&
	     fmt != MLX5DV_CQE_RES_FORMAT_CSUM_STRIDX) ||
	    (cq->ops != &dpv_mlx5_ring_ops &&
	     cq->ops != &dpv_mlx5_cqe128_ring_ops) ||
	    cq->prod_index != 0)
		return EINVAL;
	z = dpv_mlx5_mem_zalloc(sizeof(*z));
	if (z == NULL)
		return ENOMEM;
	z->skip = dpv_mlx5_mem_zalloc(cq->cqe_cnt);
	if (z->skip == NULL) {
		dpv_mlx5_mem_free(z);
		return ENOMEM;
	}
	z->fmt = fmt;
	cq->comp = z;
	cq->ops = cq->cqe_size == 128 ? &dpv_mlx5_cqcomp128_ring_ops
				      : &dpv_mlx5_cqcomp_ring_ops;
	return 0;
}

void
mlx5r_cq_comp_free(struct dpv_mlx5_cq *cq)
{
	if (cq->comp == NULL)
		return;
	dpv_mlx5_mem_free(cq->comp->skip);
	dpv_mlx5_mem_free(cq->comp);
	cq->comp = NULL;
}

/* Where a CQE carries its RSS hash result (be32) and its checksum (be16):
 * bytes 12 and 22, in struct mlx5_cqe64's reserved bytes (mlx5dv.h does
 * not name them). */
#define CQE_HASH_OFF 12
#define CQE_CSUM_OFF 22

/* Copy the format's field of a mini CQE into / out of a full CQE. */
static void
comp_field_put(unsigned int fmt, struct mlx5_cqe64 *c,
	       const struct dpv_mlx5_mini_cqe8 *m)
{
	if (fmt == MLX5DV_CQE_RES_FORMAT_HASH)
		memcpy((uint8_t *)c + CQE_HASH_OFF, &m->rx_hash_result, 4);
	else
		memcpy((uint8_t *)c + CQE_CSUM_OFF, &m->checksum, 2);
}

/* The mini CQE of a full one, in the CQ's format. */
static void
comp_mini(const struct dpv_mlx5_cq_comp *z, const struct mlx5_cqe64 *c,
	  struct dpv_mlx5_mini_cqe8 *m)
{
	memset(m, 0, sizeof(*m));
	m->byte_cnt = c->byte_cnt;
	if (z->fmt == MLX5DV_CQE_RES_FORMAT_HASH)
		memcpy(&m->rx_hash_result, (const uint8_t *)c + CQE_HASH_OFF, 4);
	else
		memcpy(&m->checksum, (const uint8_t *)c + CQE_CSUM_OFF, 2);
}

/* c with the fields a mini CQE carries (and the time stamp) cleared. */
static void
comp_common(const struct dpv_mlx5_cq_comp *z, struct mlx5_cqe64 *c)
{
	static const struct dpv_mlx5_mini_cqe8 zero;

	c->byte_cnt = 0;
	c->wqe_counter = 0;
	c->timestamp = 0;
	comp_field_put(z->fmt, c, &zero);
}

/* Can c (op_own oo) join the held session? */
static bool
comp_joins(const struct dpv_mlx5_cq_comp *z, const struct mlx5_cqe64 *c,
	   uint8_t oo)
{
	struct mlx5_cqe64 a = *c, b = z->htitle;

	if (z->held == 0 || z->held >= DPV_MLX5_CQE_COMP_MAX || oo != z->hoo ||
	    be16toh(c->wqe_counter) !=
		    (uint16_t)(be16toh(b.wqe_counter) + z->held))
		return false;
	comp_common(z, &a);
	comp_common(z, &b);
	return memcmp(&a, &b, offsetof(struct mlx5_cqe64, op_own)) == 0;
}

/* A receive CQE that may be compressed: success on an RQ, opcode
 * MLX5_CQE_RESP_SEND, no scatter, not solicited. */
static bool
comp_candidate(const struct dpv_cqe_info *ci, uint8_t oo)
{
	return ci->status == IBV_WC_SUCCESS && ci->is_recv && ci->srqn == 0 &&
	       oo == (MLX5_CQE_RESP_SEND << 4);
}

static __rte_always_inline bool
comp_commit(struct dpv_mlx5_cq *cq, unsigned int sz)
{
	struct dpv_mlx5_cq_comp *z = cq->comp;
	uint32_t n = z->held, s = cq->prod_index, mask = cq->cqe_cnt - 1;
	struct mlx5_cqe64 t;

	if (n == 0)
		return false;
	z->held = 0;
	if (n == 1) {
		z->skip[s & mask] = 0;
		cqe_store(cq, &z->htitle, z->hoo, sz);
		return true;
	}
	/* the mini CQE arrays, then the title */
	for (uint32_t k = 0; k * DPV_MLX5_MINI_PER_CQE < n; k++) {
		uint32_t first = k * DPV_MLX5_MINI_PER_CQE;
		uint32_t cnt = RTE_MIN(n - first, (uint32_t)DPV_MLX5_MINI_PER_CQE);
		struct mlx5_cqe64 *dst =
			cqe_at(cq->buf, cq->cqe_cnt, s + (k ? first : 1), sz);

		if (sz == 128 && cq->cqe_pad)
			memset(dst - 1, 0, sizeof(*dst));
		memset(dst, 0, sizeof(*dst));
		memcpy(dst, &z->hmini[first], cnt * sizeof(z->hmini[0]));
	}
	for (uint32_t i = 0; i < n; i++)
		z->skip[(s + i) & mask] = (uint8_t)(n - i);
	t = z->htitle;
	t.byte_cnt = htobe32(n);
	cqe_store(cq, &t, (uint8_t)((z->hoo & ~0xc) |
				    (DPV_MLX5_CQE_FMT_COMPRESSED << 2)),
		  sz);
	cq->prod_index = s + n;
	return true;
}

bool
dpv_mlx5_cq_comp_commit(struct dpv_mlx5_cq *cq)
{
	if (cq->comp == NULL || cq->comp->held == 0)
		return false;
	return cq->cqe_size == 128 ? comp_commit(cq, 128) : comp_commit(cq, 64);
}

static __rte_always_inline int
comp_push(struct dpv_mlx5_cq *cq, const struct dpv_cqe_info *ci,
	  int wqe_opcode, unsigned int sz)
{
	struct dpv_mlx5_cq_comp *z = cq->comp;
	struct mlx5_cqe64 c;
	uint8_t oo = cqe_fill(&c, ci, wqe_opcode, false);

	if (comp_candidate(ci, oo)) {
		if (!comp_joins(z, &c, oo))
			comp_commit(cq, sz);
		if (cq_used(cq) + z->held >= cq->cqe_cnt)
			return ENOSPC;
		if (z->held == 0) {
			z->htitle = c;
			z->hoo = oo;
		}
		comp_mini(z, &c, &z->hmini[z->held++]);
		return 0;
	}
	comp_commit(cq, sz);
	if (cq_used(cq) >= cq->cqe_cnt)
		return ENOSPC;
	z->skip[cq->prod_index & (cq->cqe_cnt - 1)] = 0;
	cqe_store(cq, &c, oo, sz);
	return 0;
}

static int
comp_push64(struct dpv_mlx5_cq *cq, const struct dpv_cqe_info *ci)
{
	return comp_push(cq, ci, mlx5r_wc_to_wqe_opcode(ci->opcode, ci->wc_flags),
			 64);
}

static int
comp_push128(struct dpv_mlx5_cq *cq, const struct dpv_cqe_info *ci)
{
	return comp_push(cq, ci, mlx5r_wc_to_wqe_opcode(ci->opcode, ci->wc_flags),
			 128);
}

int
mlx5r_cq_comp_push(struct dpv_mlx5_cq *cq, const struct dpv_cqe_info *ci,
		   int wqe_opcode)
{
	if (cq->cqe_size == 128)
		return comp_push(cq, ci, wqe_opcode, 128);
	return comp_push(cq, ci, wqe_opcode, 64);
}

/* Solicited-only arms: a session holds neither solicited nor error
 * CQEs; its entries are skipped by the skip table, not read. */
static __rte_always_inline bool
comp_should_notify(struct dpv_mlx5_cq *cq, unsigned int sz)
{
	struct dpv_mlx5_cq_comp *z = cq->comp;

	if (!arm_check(cq))
		return false;
	comp_commit(cq, sz);
	while (cq->eng_scan != cq->prod_index) {
		uint8_t k = z->skip[cq->eng_scan & (cq->cqe_cnt - 1)];
		uint8_t oo, op;

		if (k != 0) {
			/* the k completions left in a session */
			if (!cq->eng_arm_sol && mlx5r_cq_arm_hit(cq, k))
				return true;
			cq->eng_scan += k;
			continue;
		}
		oo = cqe_at(cq->buf, cq->cqe_cnt, cq->eng_scan, sz)->op_own;
		op = oo >> 4;
		if ((!cq->eng_arm_sol || (oo & 2) || op == MLX5_CQE_REQ_ERR ||
		     op == MLX5_CQE_RESP_ERR) &&
		    mlx5r_cq_arm_hit(cq, 1))
			return true;
		cq->eng_scan++;
	}
	return mlx5r_cq_arm_expired(cq);
}

static bool
comp_should_notify64(struct dpv_mlx5_cq *cq)
{
	return comp_should_notify(cq, 64);
}

static bool
comp_should_notify128(struct dpv_mlx5_cq *cq)
{
	return comp_should_notify(cq, 128);
}

/* Application: the next completion, expanding sessions (the entries of
 * a session are invalidated as they are passed, as a ConnectX consumer
 * does). */
static __rte_always_inline int
comp_poll_one(struct dpv_mlx5_cq *cq, dpv_mlx5_wq_lookup_t lookup, void *arg,
	      struct ibv_wc *wc, unsigned int sz)
{
	struct dpv_mlx5_cq_comp *z = cq->comp;
	struct mlx5_cqe64 *cqe =
		cqe_at(cq->buf, cq->cqe_cnt, cq->cons_index, sz);
	struct mlx5_cqe64 e;
	uint8_t oo;

	if (z->left == 0) {
		oo = __atomic_load_n(&cqe->op_own, __ATOMIC_RELAXED);
		if (!dpv_mlx5_cqe_sw_owned(oo, cq->cons_index, cq->cqe_cnt))
			return ENOENT;
		dpv_barrier_after_owned_cqe();
		if (((oo >> 2) & 3) != DPV_MLX5_CQE_FMT_COMPRESSED) {
			cq->cons_index++;
			return cqe_decode(cq, cqe, oo, lookup, arg, wc);
		}
		z->title = *cqe;
		z->left = be32toh(cqe->byte_cnt);
		z->j = 0;
		z->start = cq->cons_index;
		memcpy(z->mini,
		       cqe_at(cq->buf, cq->cqe_cnt, cq->cons_index + 1, sz),
		       sizeof(z->mini));
	} else if (z->j % DPV_MLX5_MINI_PER_CQE == 0) {
		memcpy(z->mini, cqe, sizeof(z->mini));
	}
	e = z->title;
	e.byte_cnt = z->mini[z->j % DPV_MLX5_MINI_PER_CQE].byte_cnt;
	comp_field_put(z->fmt, &e, &z->mini[z->j % DPV_MLX5_MINI_PER_CQE]);
	e.wqe_counter = htobe16((uint16_t)(be16toh(z->title.wqe_counter) + z->j));
	oo = (uint8_t)(z->title.op_own & 0xf0);
	cqe->op_own = MLX5_CQE_INVALID << 4;
	z->j++;
	z->left--;
	cq->cons_index++;
	return cqe_decode(cq, &e, oo, lookup, arg, wc);
}

static int
comp_poll_one64(struct dpv_mlx5_cq *cq, dpv_mlx5_wq_lookup_t lookup, void *arg,
		struct ibv_wc *wc)
{
	return comp_poll_one(cq, lookup, arg, wc, 64);
}

static int
comp_poll_one128(struct dpv_mlx5_cq *cq, dpv_mlx5_wq_lookup_t lookup,
		 void *arg, struct ibv_wc *wc)
{
	return comp_poll_one(cq, lookup, arg, wc, 128);
}

static int
comp_poll64(struct dpv_mlx5_cq *cq, int n, struct ibv_wc *wc,
	    dpv_mlx5_wq_lookup_t lookup, void *arg)
{
	if (n < 0)
		return -EINVAL;
	return mlx5r_poll_n(cq, n, wc, lookup, arg, comp_poll_one64);
}

static int
comp_poll128(struct dpv_mlx5_cq *cq, int n, struct ibv_wc *wc,
	     dpv_mlx5_wq_lookup_t lookup, void *arg)
{
	if (n < 0)
		return -EINVAL;
	return mlx5r_poll_n(cq, n, wc, lookup, arg, comp_poll_one128);
}

static int
comp_ex_next64(struct dpv_mlx5_cq *cq, dpv_mlx5_wq_lookup_t lookup, void *arg,
	       uint64_t *wr_id, enum ibv_wc_status *status)
{
	return mlx5r_ex_next(cq, lookup, arg, wr_id, status, comp_poll_one64);
}

static int
comp_ex_next128(struct dpv_mlx5_cq *cq, dpv_mlx5_wq_lookup_t lookup, void *arg,
		uint64_t *wr_id, enum ibv_wc_status *status)
{
	return mlx5r_ex_next(cq, lookup, arg, wr_id, status, comp_poll_one128);
}

/*
 * Clean: the held session is written, then every session not read yet
 * (the one being read included) is expanded in place into plain CQEs
 * (a session of n completions takes n entries), and the plain clean does
 * the rest. No poller, no engine push meanwhile.
 */
static __rte_always_inline unsigned int
comp_clean(struct dpv_mlx5_cq *cq, uint32_t qpn, struct dpv_mlx5_rq *srq,
	   unsigned int sz)
{
	struct dpv_mlx5_cq_comp *z = cq->comp;
	struct dpv_mlx5_mini_cqe8 m[DPV_MLX5_CQE_COMP_MAX];
	uint32_t i = cq->cons_index, mask = cq->cqe_cnt - 1;

	comp_commit(cq, sz);
	while (i != cq->prod_index) {
		struct mlx5_cqe64 *c = cqe_at(cq->buf, cq->cqe_cnt, i, sz);
		struct mlx5_cqe64 t;
		uint32_t n, j0;

		if (z->left != 0 && i == cq->cons_index) {
			t = z->title; /* the session being read */
			n = z->j + z->left;
			j0 = z->j;
			memcpy(&m[j0 & ~7u], z->mini, sizeof(z->mini));
		} else if (((c->op_own >> 2) & 3) ==
				   DPV_MLX5_CQE_FMT_COMPRESSED &&
			   z->skip[i & mask] != 0) {
			t = *c;
			n = be32toh(c->byte_cnt);
			j0 = 0;
		} else {
			i++;
			continue;
		}
		/* the arrays not copied yet, from the ring */
		for (uint32_t k = (j0 + 7) / 8; k * 8 < n; k++)
			memcpy(&m[k * 8],
			       cqe_at(cq->buf, cq->cqe_cnt,
				      i - j0 + (k ? k * 8 : 1), sz),
			       sizeof(struct mlx5_cqe64));
		if (j0 % 8 == 0 && j0 != 0)
			memcpy(&m[j0], cqe_at(cq->buf, cq->cqe_cnt, i, sz),
			       sizeof(struct mlx5_cqe64));
		for (uint32_t j = j0; j < n; j++) {
			struct mlx5_cqe64 e = t;
			uint32_t idx = i - j0 + j;
			struct mlx5_cqe64 *d = cqe_at(cq->buf, cq->cqe_cnt,
						      idx, sz);

			e.byte_cnt = m[j].byte_cnt;
			comp_field_put(z->fmt, &e, &m[j]);
			e.wqe_counter = htobe16(
				(uint16_t)(be16toh(t.wqe_counter) + j));
			e.op_own = (uint8_t)((t.op_own & 0xf0) |
					     !!(idx & cq->cqe_cnt));
			memcpy(d, &e, sizeof(e));
			z->skip[idx & mask] = 0;
		}
		i += n - j0;
		z->left = 0;
	}
	return cq_clean(cq, qpn, srq, sz);
}

static unsigned int
comp_clean64(struct dpv_mlx5_cq *cq, uint32_t qpn, struct dpv_mlx5_rq *srq)
{
	return comp_clean(cq, qpn, srq, 64);
}

static unsigned int
comp_clean128(struct dpv_mlx5_cq *cq, uint32_t qpn, struct dpv_mlx5_rq *srq)
{
	return comp_clean(cq, qpn, srq, 128);
}

/* The queue entries are the mlx5 ones (flush writes through
 * mlx5r_cq_push, which hands compressed CQs to mlx5r_cq_comp_push). */
#define CQCOMP_OPS(sz)                                                         \
	.caps = DPV_RING_CAP_WR_EX | DPV_RING_CAP_SCATTER_CQE,                 \
	.sq_init = dpv_mlx5_sq_init_tso, .rq_init = dpv_mlx5_rq_init,          \
	.srq_init = dpv_mlx5_srq_init, .qp_join = NULL,                        \
	.post_send = dpv_mlx5_post_send, .post_recv = dpv_mlx5_post_recv,      \
	.wq_posted = NULL, .sq_fetch = dpv_mlx5_sq_fetch,                      \
	.flush = dpv_mlx5_flush, .cq_init = NULL,                              \
	.cq_poll = comp_poll##sz, .cq_ex_next = comp_ex_next##sz,              \
	.cq_clean = comp_clean##sz, .cq_push = comp_push##sz,                  \
	.cq_should_notify = comp_should_notify##sz

const struct dpv_ring_ops dpv_mlx5_cqcomp_ring_ops = {
	.name = "mlx5-cqcomp",
	CQCOMP_OPS(64),
};

const struct dpv_ring_ops dpv_mlx5_cqcomp128_ring_ops = {
	.name = "mlx5-cqcomp128",
	CQCOMP_OPS(128),
};
