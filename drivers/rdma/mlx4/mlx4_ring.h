/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DPV_MLX4_RING_H
#define DPV_MLX4_RING_H

/**
 * @file
 * mlx4 ring format (ConnectX-3, <infiniband/mlx4dv.h>), selected per
 * device with "rings = mlx4".
 *
 * An mlx4 ring is a struct dpv_mlx5_sq / dpv_mlx5_rq / dpv_mlx5_cq whose
 * ops field points at dpv_mlx4_ring_ops (the mlx4 init functions set it):
 * the bookkeeping (wr_id slots, head and tail, the engine's counters) is
 * shared with the mlx5 format, the bytes in the ring are ConnectX-3's.
 * The verbs front end and the engine reach the functions below through
 * that table (the dpv_ring_*() calls of mlx5_ring.h); the mlx5 functions
 * know nothing of this format.
 *
 * Send queue: fixed-stride WQEs (1 << wqe_shift bytes, at least 64): a
 * struct mlx4_wqe_ctrl_seg, then for UD a struct mlx4_wqe_datagram_seg,
 * a struct mlx4_wqe_raddr_seg for RDMA and atomics, a struct
 * mlx4_wqe_atomic_seg for atomics, then data segments or one inline
 * segment. An XRC send QP's WQEs carry the remote SRQ number in bits
 * 8..31 of the control segment's srcrb_flags, as ConnectX-3 reads it.
 * A raw-packet WQE is a control segment (srcrb_flags: MLX4_WQE_CTRL_SOLICIT,
 * the checksum flags of IBV_SEND_IP_CSUM, destination MAC bytes 0-1 in
 * the top half; imm: MAC bytes 2-5) and the frame in data segments.
 * Bit 31 of owner_opcode is the owner bit: WQE n (a running
 * count) is valid when it equals (n / wqe_cnt) & 1; every WQE starts
 * with it set, so nothing is valid before the first post. The engine
 * takes a WQE when its owner bit says so (as ConnectX-3 does after the
 * send doorbell); the doorbell register only wakes it.
 *
 * Receive queue and SRQ: byte-identical in the two formats (data
 * segments terminated by lkey 0x100; SRQ next-segment; 16-bit counters
 * in big-endian doorbell records): posting and fetching are mlx5's; only
 * their flush (mlx4 CQEs) is the table's own.
 *
 * Completion queue: 32-byte struct mlx4_cqe; owner bit 0x80 of
 * owner_sr_opcode = (index / cqe_cnt) & 1 when written, all set at
 * creation; bit 0x40 marks a send completion; the opcode is the send
 * WQE's (MLX4_OPCODE_*), the receive's (MLX4_RECV_OPCODE_*) or
 * MLX4_CQE_OPCODE_ERROR with a struct mlx4_err_cqe. XRC target QPs are
 * numbered with DPV_MLX4_XRC_QPN_BIT (struct dpv_ring_ops.xrc_qpn_bit);
 * their receive CQEs carry the XRC SRQ's number in g_mlpath_rqpn, by
 * which the poll finds the SRQ, as ConnectX-3's. The consumer index
 * and arm doorbell records are the mlx5 ones (same layout and commands).
 *
 * Errors: functions return 0 or a positive errno unless stated.
 */

#include <stdbool.h>
#include <stdint.h>
#include <infiniband/verbs.h>
#include <infiniband/mlx4dv.h>

#include "mlx5_ring.h"

/** Limits of the mlx4 format. */
enum {
	DPV_MLX4_MAX_SEND_SGE = 30,  /**< data segments per send WQE */
	DPV_MLX4_MAX_INLINE = 400,   /**< inline bytes per send WQE */
	DPV_MLX4_MAX_WQE_SHIFT = 10, /**< largest stride: 1024 bytes */
	DPV_MLX4_CQE_SIZE = 32,	     /**< bytes per CQE */
	/** the QP number bit of XRC target QPs (rdma-core's private
	 *  MLX4_XRC_QPN_BIT): their receive CQEs carry the SRQ number in
	 *  g_mlpath_rqpn */
	DPV_MLX4_XRC_QPN_BIT = 1 << 23,
};

/** The mlx4 format's operations (ConnectX-3, "rings = mlx4"). */
extern const struct dpv_ring_ops dpv_mlx4_ring_ops;

/**
 * Set up an SQ in the mlx4 format.
 *
 * @param sq          structure to fill (zeroed first)
 * @param max_wr      WQEs that must fit (rounded up to a power of two)
 * @param max_sge     data segments per WQE
 * @param max_inline  inline bytes per WQE
 * @param socket      NUMA socket (advisory)
 * @return 0, EINVAL (a limit exceeded) or ENOMEM
 */
int dpv_mlx4_sq_init(struct dpv_mlx5_sq *sq, unsigned int max_wr,
		     unsigned int max_sge, unsigned int max_inline,
		     int socket);

/**
 * Move a QP's send and receive rings into one block, the SQ first, as
 * mlx4dv_qp describes them (one buffer, each queue at its offset): the
 * RQ's ring then lies in the SQ's block (freed with it).
 *
 * @param sq  the QP's send queue (dpv_mlx4_sq_init())
 * @param rq  its receive queue, both empty
 * @return 0 or ENOMEM (both rings left as they were)
 */
int dpv_mlx4_qp_join(struct dpv_mlx5_sq *sq, struct dpv_mlx5_rq *rq);

/**
 * Set up a CQ in the mlx4 format (32-byte CQEs, owner bits set).
 *
 * @param cq       structure to fill (zeroed first)
 * @param min_cqe  entries that must fit
 * @param socket   NUMA socket (advisory)
 * @return 0, EINVAL or ENOMEM
 */
int dpv_mlx4_cq_init(struct dpv_mlx5_cq *cq, unsigned int min_cqe,
		     int socket);

/**
 * Post send work requests as mlx4 WQEs (the ibv_post_send path of an
 * mlx4 SQ, dpv_mlx4_ring_ops.post_send).
 *
 * @param sq    the SQ (mlx4 format)
 * @param type  the QP type: RC, UC, UD, XRC_SEND or RAW_PACKET
 * @param qpn   the QP number
 * @param wr    the list to post
 * @param bad   set to the first WR not posted on error
 * @return 0, EINVAL (bad opcode, flags or SGE count; a raw frame shorter
 *   than an Ethernet header) or ENOMEM (full)
 */
int dpv_mlx4_post_send(struct dpv_mlx5_sq *sq, enum ibv_qp_type type,
		       uint32_t qpn, struct ibv_send_wr *wr,
		       struct ibv_send_wr **bad);

/**
 * Engine: decode the next valid mlx4 WQE. wqe_index in the result is
 * the 16-bit WQE counter (in WQEs, as ConnectX-3 reports it in the CQE);
 * nbb the WQE's 64-byte blocks.
 *
 * @param sq   the SQ
 * @param out  the decoded request (DPV_WR_F_MALFORMED if not decodable)
 * @return false if no WQE is valid
 */
bool dpv_mlx4_sq_fetch(struct dpv_mlx5_sq *sq, struct dpv_wr *out);

/**
 * Engine: complete the outstanding WQEs of an mlx4 QP's SQ (every valid
 * WQE not yet retired) or RQ with flush errors, as mlx4 CQEs.
 *
 * @param wq   &sq->wq or &rq->wq (an SRQ: nothing)
 * @param cq   its CQ (mlx4 format)
 * @param qpn  the QP number written into the CQEs
 * @return CQEs written
 */
unsigned int dpv_mlx4_flush(struct dpv_mlx5_wq *wq, struct dpv_mlx5_cq *cq,
			    uint32_t qpn);

/**
 * Engine: write one 32-byte CQE.
 *
 * @param cq  the CQ (mlx4 format)
 * @param ci  the completion
 * @return 0 or ENOSPC (CQ full)
 */
int dpv_mlx4_cq_push(struct dpv_mlx5_cq *cq, const struct dpv_cqe_info *ci);

/**
 * Engine: should the CQ raise its completion event now (the arm logic of
 * dpv_mlx5_cq_should_notify(); a solicited-only arm fires on a CQE that
 * is solicited or an error).
 *
 * @param cq  the CQ (mlx4 format)
 * @return true at most once per arm request
 */
bool dpv_mlx4_cq_should_notify(struct dpv_mlx5_cq *cq);

/**
 * Application: poll up to n CQEs of an mlx4 CQ (dpv_mlx5_cq_poll()
 * semantics).
 *
 * @param cq      the CQ
 * @param n       entries of wc
 * @param wc      the completions
 * @param lookup  finds the SQ / RQ / SRQ of a QP number
 * @param arg     for lookup
 * @return completions (0..n), -EINVAL (n < 0) or -EIO (the first CQE
 *   names an unknown queue)
 */
int dpv_mlx4_cq_poll(struct dpv_mlx5_cq *cq, int n, struct ibv_wc *wc,
		     dpv_mlx5_wq_lookup_t lookup, void *arg);

/**
 * Application: consume the next CQE of an mlx4 CQ into cq->cur_wc
 * (ibv_cq_ex; dpv_mlx5_cq_ex_next() semantics).
 *
 * @param cq      the CQ
 * @param lookup  finds the SQ / RQ / SRQ of a QP number
 * @param arg     for lookup
 * @param wr_id   the completion's wr_id
 * @param status  its status
 * @return 0, ENOENT (empty) or EIO (a CQE for an unknown queue)
 */
int dpv_mlx4_cq_ex_next(struct dpv_mlx5_cq *cq, dpv_mlx5_wq_lookup_t lookup,
			void *arg, uint64_t *wr_id,
			enum ibv_wc_status *status);

/**
 * Remove a QP's CQEs from an mlx4 CQ (QP reset or destroy).
 *
 * @param cq   the CQ
 * @param qpn  the QP
 * @param srq  its SRQ (slots of dropped receive CQEs are freed) or NULL
 * @return CQEs removed
 */
unsigned int dpv_mlx4_cq_clean(struct dpv_mlx5_cq *cq, uint32_t qpn,
			       struct dpv_mlx5_rq *srq);

/**
 * Fill a struct mlx4dv_qp from a QP's rings.
 *
 * @param sq   its SQ (mlx4 format) or NULL
 * @param rq   its RQ or NULL (SRQ)
 * @param qpn  the QP number (doorbell_qpn)
 * @param out  the mlx4dv view
 * @return 0, or EINVAL if the rings cannot be shown as one buffer
 */
int dpv_mlx4_qp_to_dv(const struct dpv_mlx5_sq *sq,
		      const struct dpv_mlx5_rq *rq, uint32_t qpn,
		      struct mlx4dv_qp *out);

/**
 * Fill a struct mlx4dv_cq.
 *
 * @param cq   the CQ (mlx4 format)
 * @param out  the mlx4dv view
 */
void dpv_mlx4_cq_to_dv(const struct dpv_mlx5_cq *cq, struct mlx4dv_cq *out);

/**
 * Fill a struct mlx4dv_srq.
 *
 * @param rq   the SRQ
 * @param out  the mlx4dv view
 */
void dpv_mlx4_srq_to_dv(const struct dpv_mlx5_rq *rq, struct mlx4dv_srq *out);

/**
 * Fill a struct mlx4dv_rwq from a receive WQ's ring (ibv_create_wq):
 * the buffer holds the RQ alone (offset 0), rdb is its doorbell record
 * (the 16-bit receive counter, big-endian).
 *
 * @param rq   the WQ's ring (mlx4 format)
 * @param out  the mlx4dv view
 */
void dpv_mlx4_rwq_to_dv(const struct dpv_mlx5_rq *rq, struct mlx4dv_rwq *out);

#endif /* DPV_MLX4_RING_H */
