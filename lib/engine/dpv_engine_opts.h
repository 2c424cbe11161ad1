/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DPV_ENGINE_OPTS_H
#define DPV_ENGINE_OPTS_H

/**
 * @file
 * Per-QP options of the engine that mlx5dv_create_qp() chooses on
 * ConnectX: scatter to CQE (small payloads carried in the 64-byte CQE
 * instead of the buffer, MLX5_INLINE_SCATTER_32) and packet-based
 * end-to-end credits (IBA 9.7.7.2; message-based by default).
 */

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct dpv_engine;

/**
 * @name Options of a QP (dpv_engine_qp_opts_set())
 * @{
 */
/** Responder: a SEND message of 1..32 bytes (one packet) is placed in its
 *  receive CQE (RC, UC). */
#define DPV_QP_OPT_SCAT_RESP 0x1u
/** Requester: the result of a signalled RDMA READ of 1..32 bytes or of an
 *  atomic is placed in its send CQE (RC). */
#define DPV_QP_OPT_SCAT_REQ 0x2u
/** End-to-end credits (RC) count packets instead of messages
 *  (MLX5DV_QP_CREATE_PACKET_BASED_CREDIT_MODE): the requester counts
 *  every packet of a SEND / RDMA WRITE with immediate against the
 *  credits its peer advertises. Read when the QP goes from RTR to RTS. */
#define DPV_QP_OPT_CREDIT_PKT 0x4u
/** Signature pipelining (RC, MLX5DV_QP_CREATE_SIG_PIPELINING): after a
 *  signature error in a WQE's data the SQ stops before the next WQE with
 *  IBV_SEND_FENCE, in SQD with IBV_EVENT_SQ_DRAINED, until the QP is
 *  modified back to RTS (dpv_engine_qp_cancel_send() meanwhile). */
#define DPV_QP_OPT_SIG_PIPE 0x8u
/** @} */

/**
 * Set the options of QP qpn (replaces the previous ones).
 * @param e  engine
 * @param qpn  the QP
 * @param opts  DPV_QP_OPT_* bits
 * @return 0; -EINVAL (NULL engine, unknown bit); -ENOENT (no such QP).
 */
int dpv_engine_qp_opts_set(struct dpv_engine *e, uint32_t qpn, uint32_t opts);

/**
 * mlx5dv_qp_cancel_posted_send_wrs(): the send WQEs of QP qpn (in SQD)
 * not started yet for which match() answers true complete successfully
 * (signalled as posted) without running, once the SQ runs again.
 * @param e  engine
 * @param qpn  the QP
 * @param match  asked with each such WQE's 16-bit index
 * @param arg  its first argument
 * @return the number canceled; -EINVAL (NULL engine or match, QP not
 *   in SQD); -ENOENT (no such QP).
 */
int dpv_engine_qp_cancel_send(struct dpv_engine *e, uint32_t qpn,
			      bool (*match)(void *arg, uint16_t wqe_index),
			      void *arg);

/**
 * Set the RoCEv2 UDP source port of an RC or UC QP in RTS
 * (mlx5dv_modify_qp_udp_sport()): every frame the QP sends from now on,
 * requests and responses, carries it. A later address vector
 * (ibv_modify_qp() with IBV_QP_AV) sets the port anew, from the QP
 * numbers, as it does at RTR.
 * @param e  engine
 * @param qpn  the QP
 * @param sport  the port, 1..65535
 * @return 0; -EINVAL (NULL engine, port 0); -ENOENT (no such QP);
 *   -EOPNOTSUPP (not an RC or UC QP, or not in RTS).
 */
int dpv_engine_qp_udp_sport_set(struct dpv_engine *e, uint32_t qpn,
				uint16_t sport);

#ifdef __cplusplus
}
#endif

#endif
