/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DPV_MLX5_RING_PRIV_H
#define DPV_MLX5_RING_PRIV_H

/**
 * @file
 * Internal helpers shared by the mlx5 ring files (not an interface).
 */

#include <endian.h>
#include <errno.h>
#include <string.h>
#include <rte_common.h>
#include <rte_log.h>

#include "mlx5_ring.h"
#include "dpv_tm.h"

extern int dpv_logtype_mlx5_ring;
#define MLX5R_LOG(level, fmt, ...)                                             \
	rte_log(RTE_LOG_##level, dpv_logtype_mlx5_ring,                        \
		"mlx5 ring: " fmt "\n", ##__VA_ARGS__)

static inline uint32_t
mlx5r_ring_bytes(const struct dpv_mlx5_wq *wq)
{
	return wq->wqe_cnt << wq->wqe_shift;
}

/** Pointer to byte pos of the ring (pos wraps). */
static inline uint8_t *
mlx5r_at(const struct dpv_mlx5_wq *wq, uint32_t pos)
{
	return wq->buf + (pos & (mlx5r_ring_bytes(wq) - 1));
}

/** Copy len bytes into the ring at byte pos, wrapping at the end. */
static inline void
mlx5r_copy_in(struct dpv_mlx5_wq *wq, uint32_t pos, const void *src,
	      uint32_t len)
{
	uint32_t size = mlx5r_ring_bytes(wq);
	const uint8_t *s = src;

	while (len) {
		uint32_t o = pos & (size - 1);
		uint32_t n = RTE_MIN(len, size - o);

		memcpy(wq->buf + o, s, n);
		s += n;
		pos += n;
		len -= n;
	}
}

/** Zero len bytes of the ring at byte pos. */
static inline void
mlx5r_zero(struct dpv_mlx5_wq *wq, uint32_t pos, uint32_t len)
{
	uint32_t size = mlx5r_ring_bytes(wq);

	while (len) {
		uint32_t o = pos & (size - 1);
		uint32_t n = RTE_MIN(len, size - o);

		memset(wq->buf + o, 0, n);
		pos += n;
		len -= n;
	}
}

/** Copy len bytes out of the ring at byte pos, wrapping at the end. */
static inline void
mlx5r_copy_out(const struct dpv_mlx5_wq *wq, uint32_t pos, void *dst,
	       uint32_t len)
{
	uint32_t size = mlx5r_ring_bytes(wq);
	uint8_t *d = dst;

	while (len) {
		uint32_t o = pos & (size - 1);
		uint32_t n = RTE_MIN(len, size - o);

		memcpy(d, wq->buf + o, n);
		d += n;
		pos += n;
		len -= n;
	}
}

/** Doorbell record value (host order) with acquire ordering. */
static inline uint32_t
mlx5r_db_read(const struct dpv_mlx5_wq *wq)
{
	uint32_t v =
		__atomic_load_n((const uint32_t *)wq->db, __ATOMIC_RELAXED);

	dpv_barrier_after_doorbell_read();
	return be32toh(v);
}

/** Write a doorbell record (release: after the WQEs). */
static inline void
mlx5r_db_write(struct dpv_mlx5_wq *wq, uint32_t val)
{
	dpv_barrier_before_doorbell();
	__atomic_store_n((uint32_t *)wq->db, htobe32(val), __ATOMIC_RELAXED);
}

/**
 * Scatter to CQE (mlx5_scat.c): copy the len bytes a CQE carried into the
 * buffers of the receive WQE wqe_ctr of an RQ/SRQ, or of the READ / atomic
 * send WQE starting at block wqe_ctr of an SQ.
 * @return IBV_WC_SUCCESS, IBV_WC_LOC_LEN_ERR (the buffers are shorter) or
 *   IBV_WC_GENERAL_ERR (no such queue or WQE kind).
 */
int dpv_mlx5_scat_to_recv(struct dpv_mlx5_wq *wq, uint16_t wqe_ctr,
			  const void *src, uint32_t len);
int dpv_mlx5_scat_to_send(struct dpv_mlx5_wq *wq, uint16_t wqe_ctr,
			  const void *src, uint32_t len);

/** Release an SRQ WQE slot back to the free list (poll side). */
void mlx5r_srq_free(struct dpv_mlx5_rq *rq, uint32_t idx);

/** Write a CQE with an explicit mlx5 WQE opcode for send completions. */
int mlx5r_cq_push(struct dpv_mlx5_cq *cq, const struct dpv_cqe_info *ci,
		  int wqe_opcode);

/** The CQ entries of dpv_mlx5_cqe128_ring_ops: dpv_mlx5_cq_poll(),
 *  _ex_next(), _clean(), _push() and _should_notify() on 128-byte CQEs. */
int dpv_mlx5_cq128_poll(struct dpv_mlx5_cq *cq, int n, struct ibv_wc *wc,
			dpv_mlx5_wq_lookup_t lookup, void *arg);
int dpv_mlx5_cq128_ex_next(struct dpv_mlx5_cq *cq, dpv_mlx5_wq_lookup_t lookup,
			   void *arg, uint64_t *wr_id,
			   enum ibv_wc_status *status);
unsigned int dpv_mlx5_cq128_clean(struct dpv_mlx5_cq *cq, uint32_t qpn,
				  struct dpv_mlx5_rq *srq);
int dpv_mlx5_cq128_push(struct dpv_mlx5_cq *cq, const struct dpv_cqe_info *ci);
bool dpv_mlx5_cq128_should_notify(struct dpv_mlx5_cq *cq);

/** mlx5r_cq_push() of a compressed CQ (dpv_mlx5_cq_compress()). */
int mlx5r_cq_comp_push(struct dpv_mlx5_cq *cq, const struct dpv_cqe_info *ci,
		       int wqe_opcode);
/** Free a CQ's compression state (none: nothing). */
void mlx5r_cq_comp_free(struct dpv_mlx5_cq *cq);

/** A format's CQE writer with an explicit WQE opcode (mlx5r_cq_push,
 *  dpv_mlx4_cq_push). */
typedef int (*mlx5r_push_fn)(struct dpv_mlx5_cq *cq,
			     const struct dpv_cqe_info *ci, int wqe_opcode);

/** Flush an RQ: a flush-error CQE, written by push, for every WQE not
 *  retired (RQs are alike in the formats, their CQEs are not).
 *  @return CQEs written (stops early if the CQ is full) */
unsigned int mlx5r_flush_rq(struct dpv_mlx5_rq *rq, struct dpv_mlx5_cq *cq,
			    uint32_t qpn, mlx5r_push_fn push);

/** Resize of any format, step 1: r gets a zeroed ring of
 *  cqe_cnt = power of two >= min_cqe + 1 entries of cqe_size bytes (the
 *  format then marks them invalid). 0, EINVAL (min_cqe out of range) or
 *  ENOMEM. */
int mlx5r_cq_resize_alloc(unsigned int min_cqe, size_t cqe_size,
			  struct dpv_mlx5_cq_resize *r);

/** A format's copy of CQE idx (a running index) from cq's ring into r's,
 *  in the slot of the same index there, with the owner bit of that
 *  slot's lap in the new size. */
typedef void (*mlx5r_cqe_move_fn)(const struct dpv_mlx5_cq *cq,
				  struct dpv_mlx5_cq_resize *r, uint32_t idx);

/** Resize of any format, step 2 (dpv_mlx5_cq_resize_commit() semantics),
 *  each pending CQE copied by move. */
int mlx5r_cq_resize_commit(struct dpv_mlx5_cq *cq,
			   struct dpv_mlx5_cq_resize *r,
			   mlx5r_cqe_move_fn move);

/** The arm bookkeeping of should_notify, common to the formats: notes a
 *  new arm request (dpv_mlx5_cq_arm() or a doorbell written by dv code).
 *  @return true while the CQ is armed: the CQEs from cq->eng_scan to
 *  cq->prod_index are then to be checked for one that fires the arm */
bool mlx5r_cq_arm_check(struct dpv_mlx5_cq *cq);

/** A CQE at eng_scan fires the arm: disarm, skip the rest. */
static inline void
mlx5r_cq_arm_fire(struct dpv_mlx5_cq *cq)
{
	cq->eng_armed = false;
	cq->eng_scan = cq->prod_index;
	cq->eng_fired_at = cq->prod_index;
	cq->eng_mod_run = false;
}

/** Moderation: n more CQEs the arm counts; true if they fire it. */
bool mlx5r_cq_mod_hit(struct dpv_mlx5_cq *cq, uint32_t n);
/** Moderation: true if the period of the CQEs counted has passed (the
 *  arm is then fired). */
bool mlx5r_cq_mod_due(struct dpv_mlx5_cq *cq);

/** The scan of should_notify found n CQEs the arm counts (a solicited or
 *  error one for a solicited-only arm, any for the other), at eng_scan:
 *  true if the arm fires now (it is then disarmed). Without moderation
 *  the first fires. */
static __rte_always_inline bool
mlx5r_cq_arm_hit(struct dpv_mlx5_cq *cq, uint32_t n)
{
	if (likely(cq->eng_mod_cnt == 0)) {
		mlx5r_cq_arm_fire(cq);
		return true;
	}
	return mlx5r_cq_mod_hit(cq, n);
}

/** The end of should_notify's scan (no CQE fired the arm): true if a
 *  moderation period ended, which fires it. */
static __rte_always_inline bool
mlx5r_cq_arm_expired(struct dpv_mlx5_cq *cq)
{
	if (likely(!cq->eng_mod_run))
		return false;
	return mlx5r_cq_mod_due(cq);
}

/** Publish the consumer index in dbrec[0]. */
static inline void
mlx5r_update_ci(struct dpv_mlx5_cq *cq)
{
	__atomic_store_n(&cq->dbrec[0], htobe32(cq->cons_index & 0xffffff),
			 __ATOMIC_RELEASE);
}

/** Internal poll_one result: a CQE skipped (resize, no-packet...). */
#define MLX5R_CQE_SKIP (-1)

/** One CQE of a format: 0, ENOENT (empty), EIO (unknown queue, consumed)
 *  or MLX5R_CQE_SKIP. */
typedef int (*mlx5r_poll_one_fn)(struct dpv_mlx5_cq *cq,
				 dpv_mlx5_wq_lookup_t lookup, void *arg,
				 struct ibv_wc *wc);

/** The ibv_poll_cq loop, instantiated per format with its poll_one (the
 *  format is chosen once a call, not once a CQE); n >= 0. */
static __rte_always_inline int
mlx5r_poll_n(struct dpv_mlx5_cq *cq, int n, struct ibv_wc *wc,
	     dpv_mlx5_wq_lookup_t lookup, void *arg, mlx5r_poll_one_fn one)
{
	int got = 0, rc = 0;
	unsigned int guard = cq->cqe_cnt;

	while (got < n && guard--) {
		rc = one(cq, lookup, arg, &wc[got]);
		if (rc == 0)
			got++;
		else if (rc != MLX5R_CQE_SKIP)
			break;
	}
	mlx5r_update_ci(cq);
	if (rc == EIO && got == 0) {
		MLX5R_LOG(ERR, "CQE for an unknown queue");
		return -EIO;
	}
	return got;
}

/** ibv_cq_ex start_poll / next_poll, instantiated per format. */
static __rte_always_inline int
mlx5r_ex_next(struct dpv_mlx5_cq *cq, dpv_mlx5_wq_lookup_t lookup, void *arg,
	      uint64_t *wr_id, enum ibv_wc_status *status,
	      mlx5r_poll_one_fn one)
{
	unsigned int guard = cq->cqe_cnt;
	int rc;

	do {
		rc = one(cq, lookup, arg, &cq->cur_wc);
	} while (rc == MLX5R_CQE_SKIP && guard--);
	if (rc == MLX5R_CQE_SKIP)
		rc = ENOENT;
	if (rc == 0) {
		*wr_id = cq->cur_wc.wr_id;
		*status = cq->cur_wc.status;
	}
	return rc;
}

/** Status of a CQE syndrome (mlx4 and mlx5 share the numbers). */
enum ibv_wc_status mlx5r_synd_to_status(uint8_t synd);

/** CQE syndrome of a status. */
uint8_t mlx5r_status_to_synd(enum ibv_wc_status st);

/** Send completion: wr_id, opcode (from the mlx5 WQE opcode, which the
 *  mlx4 one equals) and the SQ tail from the slot of the block counter
 *  wqe_ctr. @return 0 or EIO (not an SQ) */
int mlx5r_req_done(struct dpv_mlx5_wq *wq, uint16_t wqe_ctr,
		   struct ibv_wc *wc, uint8_t op);

/** Receive completion: wr_id from the RQ tail or the SRQ slot wqe_ctr.
 *  @return 0 or EIO (no such queue) */
int mlx5r_resp_done(struct dpv_mlx5_wq *wq, uint16_t wqe_ctr,
		    struct ibv_wc *wc);

/** The receive queue of a completion: the SRQ srqn if not 0, else the
 *  QP's RQ (or SRQ). */
struct dpv_mlx5_wq *mlx5r_lookup_recv(dpv_mlx5_wq_lookup_t lookup, void *arg,
				      uint32_t qpn, uint32_t srqn);

/** mlx5 WQE opcode of a send completion. */
uint8_t mlx5r_wc_to_wqe_opcode(enum ibv_wc_opcode op, unsigned int wc_flags);

/* The send WQE builder's steps (mlx5_send.c), shared with mlx5_raw_wqe.c:
 * record the batch's first error and close the open WQE; room for an open
 * WQE of end bytes (0, EINVAL too large, ENOMEM ring full); room for one
 * more WR of the batch; bookkeeping of the WQE of nbb blocks written at
 * cur_post (wr_data: the completion opcode kept for the poll side); write
 * the open WQE's control segment and commit it. */
static inline void
bld_fail(struct dpv_mlx5_sq *sq, int err)
{
	if (!sq->bld.err)
		sq->bld.err = err;
	sq->bld.open = false;
}

static inline int
bld_room(struct dpv_mlx5_sq *sq, uint32_t end)
{
	uint32_t need = (end + MLX5_SEND_WQE_BB - 1) / MLX5_SEND_WQE_BB;
	uint32_t tail = __atomic_load_n(&sq->bb_tail, __ATOMIC_ACQUIRE);

	if (end > DPV_MLX5_MAX_WQE_BYTES)
		return EINVAL;
	if (sq->cur_post - tail + need > sq->wq.wqe_cnt)
		return ENOMEM;
	return 0;
}

/* room for one more WR after nreq not rung yet */
static inline bool
wr_room_n(const struct dpv_mlx5_sq *sq, uint32_t nreq)
{
	uint32_t tail = __atomic_load_n(&sq->wq.tail, __ATOMIC_ACQUIRE);

	return sq->wq.head + nreq - tail < sq->wq.max_post;
}

static inline bool
wr_room(struct dpv_mlx5_sq *sq)
{
	return wr_room_n(sq, sq->bld.nreq);
}

/* the bookkeeping of a WQE that follows nreq WQEs not rung yet */
static inline void
wqe_commit_n(struct dpv_mlx5_sq *sq, uint64_t wr_id, uint32_t nbb,
	     uint32_t wr_data, bool umr, uint32_t nreq)
{
	uint32_t idx = sq->cur_post & (sq->wq.wqe_cnt - 1);

	sq->slot[idx] = (struct dpv_mlx5_sq_slot){
		.wr_id = wr_id,
		.head = sq->wq.head + nreq,
		.bbend = sq->cur_post + nbb,
		.data = wr_data,
	};
	sq->cur_post += nbb;
	sq->fm_next = umr ? MLX5_WQE_CTRL_INITIATOR_SMALL_FENCE : 0;
}

static inline void
wqe_commit(struct dpv_mlx5_sq *sq, uint64_t wr_id, uint32_t nbb,
	   uint32_t wr_data, bool umr)
{
	wqe_commit_n(sq, wr_id, nbb, wr_data, umr, sq->bld.nreq);
	sq->bld.nreq++;
}

void bld_close(struct dpv_mlx5_sq *sq);

/* Sizes of the send WQE segments (the builder and the decoder). */
#define CTRL_SZ	    ((uint32_t)sizeof(struct mlx5_wqe_ctrl_seg))
#define ETH_SEG_SZ  ((uint32_t)sizeof(struct mlx5_wqe_eth_seg))
#define UMR_CTRL_SZ ((uint32_t)sizeof(struct mlx5_wqe_umr_ctrl_seg))
#define MKEY_SZ	    ((uint32_t)sizeof(struct mlx5_wqe_mkey_context_seg))
#define KLM_PAD_SZ  64u
/* The access bits of a UMR's mkey mask. */
#define MKEY_MASK_ACCESS                                                       \
	(MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_LOCAL_WRITE |                      \
	 MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_REMOTE_READ |                      \
	 MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_REMOTE_WRITE |                     \
	 MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_ATOMIC)

#endif /* DPV_MLX5_RING_PRIV_H */
