/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DPV_VERBS_RAW_H
#define DPV_VERBS_RAW_H

/**
 * @file
 * Raw-packet objects of the verbs front end: receive work queues (WQ),
 * RWQ indirection tables and RSS QPs (verbs_wq.c), flows (verbs_flow.c).
 * The traffic itself is the engine's (lib/engine/dpv_engine_raw.h).
 *
 * WQ numbers come from their own range, DPV_WQN_BASE + index, so the
 * completion path can tell a WQ's CQEs from a QP's.
 *
 * Error convention: 0 or a positive errno.
 */

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "verbs_int.h"

struct dpv_qp;

/** First WQ number. */
#define DPV_WQN_BASE 0xff8000u
/** Number of WQs the device can have. */
#define DPV_WQ_MAX 1024u

/**
 * The receive ring of a WQ of this library (mlx4dv_init_obj's RWQ view).
 * @return the ring, or NULL if @p ibwq is not a live WQ of ours
 */
struct dpv_mlx5_rq *dpv_wq_ring_of(struct ibv_wq *ibwq);

/**
 * mlx4dv_set_context_attr(MLX4DV_SET_CTX_ATTR_LOG_WQS_RANGE_SZ): from now
 * on the context's WQs are numbered in ranges of 1 << @p log (a range
 * starts at a number aligned to its size, the next WQs of the context
 * take the numbers after it), as ConnectX-3 wants an indirection table's
 * WQs consecutive and aligned; 0 numbers them one by one.
 * @return 0, or EINVAL if @p log exceeds DPV_CAP_RSS_LOG_TBL_SIZE
 */
int dpv_wq_set_log_range(struct ibv_context *ctx, uint8_t log);

/** Raw-packet QPs work only on devices with an engine. */
bool dpv_raw_supported(struct ibv_context *ctx);

/**
 * Check the RSS part (IBV_QP_INIT_ATTR_IND_TABLE / RX_HASH) of a QP
 * creation. @return 0; EINVAL (not RAW_PACKET, one of the two masks
 * missing, table of another context, hash function not Toeplitz, key
 * length not 40, unknown or mixed hash fields, an SRQ); EOPNOTSUPP (no
 * engine; IBV_RX_HASH_INNER on the mlx5 ring format without tunnel, the
 * QP's MLX5DV_QP_CREATE_TUNNEL_OFFLOADS).
 */
int dpv_rss_qp_check(struct ibv_context *ctx,
		     const struct ibv_qp_init_attr_ex *a, bool tunnel);

/**
 * Attach a created RSS QP (already in the engine) to its table and hash.
 * @return 0, or an errno (nothing attached).
 */
int dpv_rss_qp_attach(struct dpv_qp *qp, const struct ibv_qp_init_attr_ex *a);

/** Drop the RSS QP's reference on its table (at destroy). */
void dpv_rss_qp_detach(struct dpv_qp *qp);

/**
 * Receive ring of WQ number @p wqn (the CQ poll lookup).
 * @return the ring, or NULL if wqn is no WQ of dev.
 */
struct dpv_mlx5_wq *dpv_wq_ring_lookup(struct dpv_device *dev, uint32_t wqn);

/** Install the WQ / indirection table ops into a context. */
void dpv_wq_ops_init(struct verbs_context *vctx);

/** Install the flow ops into a context. */
void dpv_flow_ops_init(struct verbs_context *vctx);

/**
 * Check the create flags of a QP (IBV_QP_INIT_ATTR_CREATE_FLAGS).
 * @return 0; EINVAL (BLOCK_SELF_MCAST_LB on a type without multicast);
 *   EOPNOTSUPP (SCATTER_FCS, CVLAN_STRIPPING or PCI_WRITE_END_PADDING
 *   on anything but a RAW_PACKET QP with its own receive queue).
 *   SOURCE_QPN is checked by qp.c.
 */
int dpv_raw_create_flags_check(const struct ibv_qp_init_attr_ex *a);

/**
 * Check IBV_QP_INIT_ATTR_MAX_TSO_HEADER of a QP creation.
 * @return 0 (a RAW_PACKET QP with its own send queue asking for 0 to
 *   DPV_CAP_MAX_TSO_HEADER bytes; below DPV_CAP_MIN_TSO_HEADER the QP gets
 *   that much room, as its ring always carries it); EINVAL (larger);
 *   EOPNOTSUPP (another QP type or an RSS QP: TSO is for raw sends).
 */
int dpv_raw_tso_check(const struct ibv_qp_init_attr_ex *a);

/**
 * Give a created RAW_PACKET QP (in the engine) its options: its context's
 * transport domain, the create flags, the receive checksum report.
 * @return 0 or an errno (ENOMEM).
 */
int dpv_raw_qp_setup(struct dpv_qp *qp);

/**
 * Pace a RAW_PACKET QP's transmit at kbps (0: unpaced), keeping at most
 * max_burst bytes of credit while idle. The range was checked.
 * @return 0 or an errno.
 */
int dpv_raw_qp_rate(struct dpv_qp *qp, uint32_t kbps, uint32_t max_burst);

/** Install ibv_modify_qp_rate_limit into a context. */
void dpv_raw_ops_init(struct verbs_context *vctx);

#endif
