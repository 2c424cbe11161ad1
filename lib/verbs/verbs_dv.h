/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DPV_VERBS_DV_H
#define DPV_VERBS_DV_H

/**
 * @file
 * Private entry points of libibverbs.so.1 for the direct-verbs libraries
 * (libmlx5.so.1): the mlx5 view of verbs objects, which only the verbs
 * front end can see, and the mlx5dv_qp_ex of an ibv_qp_ex QP. Exported under
 * the version node DPVERBS_PRIVATE_0.1; not an application API (no stability
 * promise across dpverbs releases).
 */

#include <stdint.h>

#include <infiniband/verbs.h>
#include <infiniband/mlx5dv.h>

/**
 * mlx5dv_init_obj() for objects of a dpverbs device: fill the mlx5dv view
 * of each object named in obj_type from its mlx5-format rings.
 *
 * - MLX5DV_OBJ_QP: dbrec, sq/rq buf, wqe_cnt, stride (the SQ in 64-byte
 *   blocks; rq.buf NULL for an SRQ-attached QP), bf.reg = a scratch word,
 *   bf.size 0 (no BlueFlame: the engine reads the doorbell record);
 *   comp_mask becomes 0 (no UAR mmap offset, no raw QP handles).
 * - MLX5DV_OBJ_CQ: buf, dbrec, cqe_cnt, cqe_size 64, cq_uar (arm doorbell
 *   at cq_uar + MLX5_CQ_DOORBELL), cqn; comp_mask 0.
 * - MLX5DV_OBJ_SRQ: buf, dbrec, stride, head, tail; srqn too when
 *   MLX5DV_SRQ_MASK_SRQN is asked for in comp_mask (kept there).
 * - MLX5DV_OBJ_AH: av (struct mlx5_wqe_av); comp_mask 0.
 * - MLX5DV_OBJ_PD: pdn (of the PD under a parent domain); comp_mask 0.
 * - MLX5DV_OBJ_RWQ, MLX5DV_OBJ_DM: such objects cannot be created here.
 * Other bits are ignored. Objects are handled in the order above; the
 * first failure stops.
 *
 * The views stay valid until the object is destroyed; a QP's rings are
 * replaced when it is moved to RESET (call again after that).
 *
 * @param obj      in/out pointers per object type
 * @param obj_type bitmask of enum mlx5dv_obj_type
 * @return 0; EINVAL obj NULL, or an in/out pointer NULL for a requested
 *   type; EOPNOTSUPP MLX5DV_OBJ_RWQ or MLX5DV_OBJ_DM.
 */
int dpv_mlx5dv_init_obj(struct mlx5dv_obj *obj, uint64_t obj_type);

/**
 * mlx5dv_qp_ex_from_ibv_qp_ex() for a QP of a dpverbs device: the QP's
 * struct mlx5dv_qp_ex (kept inside the QP, valid until it is destroyed).
 * comp_mask is 0 and every builder pointer is set, but none of the
 * mlx5-specific builders is supported (DC addressing, mkeys, signature,
 * crypto, memcpy, raw WQEs): each one called between ibv_wr_start() and
 * ibv_wr_complete() drops the work request being built and makes
 * ibv_wr_complete() fail with EOPNOTSUPP, posting nothing of the batch
 * (ibv_wr_abort() discards it as usual). Called outside such a batch they
 * do nothing.
 *
 * @param qpex the QP, as returned by ibv_qp_to_qp_ex()
 * @return the view; NULL with errno EINVAL if qpex is NULL or the QP was
 *   not created with IBV_QP_INIT_ATTR_SEND_OPS_FLAGS or has no send
 *   queue; NULL with errno EOPNOTSUPP in a build without mlx5 rings.
 */
struct mlx5dv_qp_ex *dpv_mlx5dv_qp_ex(struct ibv_qp_ex *qpex);

/**
 * Create the GSI QP of a device: a UD QP numbered 1, which receives the
 * frames addressed to QP1 (CM MADs) and sends with source QP 1. Used by
 * our librdmacm; otherwise exactly ibv_create_qp().
 *
 * @param pd   protection domain of the device
 * @param attr as for ibv_create_qp(); qp_type must be IBV_QPT_UD
 * @return the QP; NULL with errno EINVAL (pd or attr NULL, not UD),
 *   EBUSY (the device already has a QP1), or ibv_create_qp()'s errors.
 */
struct ibv_qp *dpv_gsi_qp_create(struct ibv_pd *pd,
				 struct ibv_qp_init_attr *attr);

/**
 * mlx5dv_create_qp()'s MLX5DV_QP_CREATE_TIR_ALLOW_SELF_LOOPBACK_UC / _MC:
 * whether a RAW_PACKET QP (plain or RSS) receives the unicast / multicast
 * frames that raw QPs of its own context send. By default it does not
 * (as a ConnectX TIR in the context's transport domain); frames from
 * other contexts are always received. Call before the QP takes traffic.
 *
 * @param qp the QP
 * @param uc nonzero: receive own unicast frames
 * @param mc nonzero: receive own multicast and broadcast frames
 * @return 0; EINVAL qp NULL; EOPNOTSUPP not a RAW_PACKET QP; ENOMEM.
 */
int dpv_qp_raw_self_loopback(struct ibv_qp *qp, int uc, int mc);

/**
 * mlx5dv_create_qp()'s scatter-to-CQE create flags for a QP just created
 * (before it takes traffic). By default an RC or UC QP receives SEND
 * messages of 1..32 bytes in the receive CQE (MLX5_INLINE_SCATTER_32), and
 * an RC QP created with sq_sig_all gets its READ (1..32 bytes) and atomic
 * results in the send CQE; MLX5_SCATTER_TO_CQE=0 in the environment turns
 * both off. MLX5DV_QP_CREATE_DISABLE_SCATTER_TO_CQE turns them off for
 * this QP; MLX5DV_QP_CREATE_ALLOW_SCATTER_TO_CQE turns them on, the
 * requester side also without sq_sig_all (for signalled WRs). Other types:
 * accepted, no effect. MLX5DV_QP_CREATE_PACKET_BASED_CREDIT_MODE (RC
 * only) makes the QP's end-to-end credits count packets instead of
 * messages (IBA 9.7.7.2): its requester counts every packet of a SEND or
 * RDMA WRITE with immediate against the credits the peer advertises.
 *
 * @param qp the QP
 * @param flags the two MLX5DV_QP_CREATE_*_SCATTER_TO_CQE bits and
 *   MLX5DV_QP_CREATE_PACKET_BASED_CREDIT_MODE, or 0
 * @return 0; EINVAL (qp NULL, another bit, both scatter bits, packet-based
 *   credits on a QP that is not RC); ENOENT.
 */
int dpv_qp_mlx5_create_flags(struct ibv_qp *qp, uint32_t flags);

/**
 * The scatter-to-CQE default of a created QP (verbs create path).
 * @return 0 or an errno.
 */
struct dpv_qp;
int dpv_qp_opts_setup(struct dpv_qp *qp);

#endif /* DPV_VERBS_DV_H */
