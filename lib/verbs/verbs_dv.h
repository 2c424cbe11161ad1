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
#include <infiniband/mlx4dv.h>

/**
 * mlx4dv_init_obj() for objects of a dpverbs device configured
 * "rings = mlx4": the mlx4dv view of each object named in obj_type.
 *
 * - MLX4DV_OBJ_QP: buf (one span holding both rings; sq.offset and
 *   rq.offset locate them), sq/rq wqe_cnt, wqe_shift, rdb (the RQ's
 *   doorbell record), sdb (a send doorbell word: the engine takes WQEs
 *   by their owner bits), doorbell_qpn (QP number << 8, big endian);
 *   comp_mask becomes 0 (no UAR mmap offset).
 * - MLX4DV_OBJ_CQ: buf, cqe_cnt, cqn, set_ci_db, arm_db, arm_sn,
 *   cqe_size 32; cq_uar (arm doorbell at cq_uar + MLX4_CQ_DOORBELL) and
 *   MLX4DV_CQ_MASK_UAR kept in comp_mask when asked for.
 * - MLX4DV_OBJ_SRQ: buf, wqe_shift, head, tail, db.
 * - MLX4DV_OBJ_RWQ: the WQ's receive ring alone (rq.offset 0): buf,
 *   rq.wqe_cnt, rq.wqe_shift, rdb (its doorbell record). A WQ moved to
 *   RESET gets a fresh ring: ask again after it.
 *
 * @param obj      in/out pointers per object type
 * @param obj_type bitmask of enum mlx4dv_obj_type
 * @return 0; EINVAL obj NULL or an in/out pointer NULL for a requested
 *   type, or an RWQ that is not a live WQ; EOPNOTSUPP an object of a
 *   device with mlx5 rings.
 */
int dpv_mlx4dv_init_obj(struct mlx4dv_obj *obj, uint64_t obj_type);

/**
 * mlx4dv_set_context_attr(MLX4DV_SET_CTX_ATTR_LOG_WQS_RANGE_SZ) of an
 * mlx4-ring context: the context's next WQs are numbered in ranges of
 * 1 << @p log, each aligned to its size and handed out in order (a range
 * whose next number another context took ends there; the next WQ opens
 * a new range). Takes effect for WQs created afterwards.
 *
 * @param ctx  the context (mlx4 rings, checked by the caller)
 * @param log  log2 of the range size, at most DPV_CAP_RSS_LOG_TBL_SIZE
 * @return 0 or EINVAL (@p log too large; nothing changed)
 */
int dpv_mlx4dv_set_log_wqs_range(struct ibv_context *ctx, uint8_t log);

/**
 * mlx4dv_set_context_attr(MLX4DV_SET_CTX_ATTR_BUF_ALLOCATORS) of an
 * mlx4-ring context: the buffers of the context's later QPs, CQs (and
 * their resizes), SRQs and WQs come from the application's allocator
 * (the descriptor memory behind them included: each block is 64-byte
 * aligned and starts with a cache line of dpverbs' own), and go back
 * through its free. Rings already made keep their memory.
 *
 * @param ctx     the context (mlx4 rings, checked by the caller)
 * @param alloc   the allocator (NULL: dpverbs' own again)
 * @param free_fn its free (required with @p alloc)
 * @param data    passed to both
 * @return 0, or EINVAL (@p alloc without @p free_fn; nothing changed)
 */
int dpv_mlx4dv_set_buf_allocators(struct ibv_context *ctx,
				  void *(*alloc)(size_t size, void *data),
				  void (*free_fn)(void *ptr, void *data),
				  void *data);

/**
 * Does this context's device use the mlx4 ring format?
 *
 * @param ctx  a context of libibverbs.so.1
 * @return 0 if it does ("rings = mlx4"), EOPNOTSUPP otherwise
 */
int dpv_mlx4dv_context_ok(struct ibv_context *ctx);

/**
 * mlx5dv_init_obj() for objects of a dpverbs device: fill the mlx5dv view
 * of each object named in obj_type from its mlx5-format rings.
 *
 * - MLX5DV_OBJ_QP: dbrec, sq/rq buf, wqe_cnt, stride (the SQ in 64-byte
 *   blocks; rq.buf NULL for an SRQ-attached QP), bf.reg = a scratch word,
 *   bf.size 0 (no BlueFlame: the engine reads the doorbell record);
 *   comp_mask becomes 0 (no UAR mmap offset, no raw QP handles).
 * - MLX5DV_OBJ_CQ: buf, dbrec, cqe_cnt, cqe_size (64, or 128 for a CQ of
 *   dpv_mlx5dv_create_cq()), cq_uar (arm doorbell
 *   at cq_uar + MLX5_CQ_DOORBELL), cqn; comp_mask 0.
 * - MLX5DV_OBJ_SRQ: buf, dbrec, stride, head, tail; srqn too when
 *   MLX5DV_SRQ_MASK_SRQN is asked for in comp_mask (kept there).
 * - MLX5DV_OBJ_AH: av (struct mlx5_wqe_av); comp_mask 0.
 * - MLX5DV_OBJ_PD: pdn (of the PD under a parent domain); comp_mask 0.
 * - MLX5DV_OBJ_RWQ: buffer, dbrec, wqe_cnt, stride; comp_mask 0.
 * - MLX5DV_OBJ_DM: buf (the device memory itself) and length; comp_mask
 *   0, no remote_va.
 * Other bits are ignored. Objects are handled in the order above; the
 * first failure stops.
 *
 * The views stay valid until the object is destroyed; a QP's rings are
 * replaced when it is moved to RESET (call again after that).
 *
 * @param obj      in/out pointers per object type
 * @param obj_type bitmask of enum mlx5dv_obj_type
 * @return 0; EINVAL obj NULL, or an in/out pointer NULL for a requested
 *   type; EOPNOTSUPP a QP or CQ of a device configured "rings = mlx4"
 *   (mlx4dv_init_obj describes those).
 */
int dpv_mlx5dv_init_obj(struct mlx5dv_obj *obj, uint64_t obj_type);

/**
 * mlx5dv_qp_ex_from_ibv_qp_ex() for a QP of a dpverbs device: the QP's
 * struct mlx5dv_qp_ex (kept inside the QP, valid until it is destroyed).
 * comp_mask is 0 and every builder pointer is set. mlx5dv_wr_mr_list()
 * and mlx5dv_wr_mr_interleaved() work on a QP created by
 * mlx5dv_create_qp() with the matching send_ops_flags
 * (dpv_qp_mlx5_send_ops()): they post a WQE that configures an indirect
 * key of dpv_mlx5dv_create_mkey(), completed with opcode MLX5DV_WC_UMR;
 * bad arguments make ibv_wr_complete() fail with EINVAL, more entries
 * than the key's max_entries with ENOMEM (a repetition header that does
 * not fit as well fails the WQE with IBV_WC_LOC_PROT_ERR);
 * mlx5dv_wr_mkey_configure and its setters, the block signature
 * (dpv_mlx5dv_mkey_sig_stage()) included, with
 * MLX5DV_QP_EX_WITH_MKEY_CONFIGURE; raw WQEs and DC addressing where the
 * QP has them. The others (crypto, memcpy), and these on a QP without
 * their flag, are not supported: each one called between ibv_wr_start()
 * and ibv_wr_complete() drops the work request being built and makes
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
 * mlx5dv_create_mkey(): an indirect memory key of a PD, with lkey ==
 * rkey. It grants nothing until a WQE built by mlx5dv_wr_mr_list() or
 * mlx5dv_wr_mr_interleaved() configures it, and again nothing after an
 * IBV_WR_LOCAL_INV of it (then it can be configured anew).
 *
 * @param attr pd, create_flags (MLX5DV_MKEY_INIT_ATTR_FLAGS_INDIRECT,
 *   optionally with _REMOTE_INVALIDATE and _BLOCK_SIGNATURE) and
 *   max_entries (1..52); max_entries is rounded up to a multiple of 4 and
 *   written back
 * @return the key; NULL with errno EINVAL (attr or pd NULL, max_entries 0
 *   or above 52), EOPNOTSUPP (any other create flag, or none: crypto and
 *   tag update do not exist here), ENOMEM.
 */
struct mlx5dv_mkey *dpv_mlx5dv_create_mkey(struct mlx5dv_mkey_init_attr *attr);

/**
 * mlx5dv_get_clock_info(): a fresh (counter, CLOCK_REALTIME) sample and
 * the factor of the device clock (verbs_clock.c), for mlx5dv_ts_to_ns().
 *
 * @param context a dpverbs context
 * @param ci      filled
 * @return 0; EINVAL NULL; EOPNOTSUPP no counter rate known.
 */
int dpv_mlx5dv_get_clock_info(struct ibv_context *context,
			      struct mlx5dv_clock_info *ci);

/**
 * mlx5dv_wr_set_mkey_sig_block() of a key being configured: checks attr
 * and stages it; the configuration WQE (DPV_UMR_SET_SIG) applies what is
 * staged when it executes, so a key's next configuration must not be
 * built before the previous one completed. CRC32, CRC32C and T10-DIF
 * (CRC or IP checksum guard) with block sizes 512, 520, 4048, 4096 and
 * 4160; both domains with a signature must have the same block size.
 *
 * @param mkey a key of dpv_mlx5dv_create_mkey()
 * @param attr the attributes; NULL stages no signature (the configure
 *   flag MLX5DV_MKEY_CONF_FLAG_RESET_SIG_ATTR)
 * @return 0; EINVAL (key without MLX5DV_MKEY_INIT_ATTR_FLAGS_BLOCK_SIGNATURE,
 *   bad attributes, seeds or flags, a copy mask between different
 *   signatures), EOPNOTSUPP (CRC64_XP10, different block sizes).
 */
int dpv_mlx5dv_mkey_sig_stage(struct mlx5dv_mkey *mkey,
			      const struct mlx5dv_sig_block_attr *attr);

/**
 * mlx5dv_mkey_check(): the first signature error of the key since its
 * signature was set or last checked, reported once.
 *
 * @param mkey a key of dpv_mlx5dv_create_mkey()
 * @param err out: err_type (MLX5DV_MKEY_NO_ERR or the error) and its
 *   values (actual: computed from the data, expected: the field's) and
 *   data offset of the block in the key
 * @return 0; EINVAL if an argument is NULL or the key was created
 *   without MLX5DV_MKEY_INIT_ATTR_FLAGS_BLOCK_SIGNATURE.
 */
int dpv_mlx5dv_mkey_check(struct mlx5dv_mkey *mkey,
			  struct mlx5dv_mkey_err *err);

/**
 * mlx5dv_qp_cancel_posted_send_wrs(): the send WRs with wr_id of a QP in
 * SQD not started yet complete successfully without running once the SQ
 * runs again (signature pipelining, MLX5DV_QP_CREATE_SIG_PIPELINING).
 *
 * @param mqp the QP's view (dpv_mlx5dv_qp_ex())
 * @param wr_id the work requests' wr_id
 * @return the number canceled; -EINVAL (QP not in SQD), -EOPNOTSUPP
 *   (no engine).
 */
int dpv_qp_mlx5_cancel_send(struct mlx5dv_qp_ex *mqp, uint64_t wr_id);

/**
 * mlx5dv_destroy_mkey(): the key stops granting access at once (accesses
 * in flight through it fail with the key errors of an unknown key).
 *
 * @param mkey a key of dpv_mlx5dv_create_mkey()
 * @return 0; EINVAL mkey NULL.
 */
int dpv_mlx5dv_destroy_mkey(struct mlx5dv_mkey *mkey);

/**
 * Entries an indirect key of dpv_mlx5dv_create_mkey() was created for.
 * @param mkey the key
 * @return max_entries after rounding.
 */
uint32_t dpv_mlx5dv_mkey_entries(const struct mlx5dv_mkey *mkey);

/**
 * The PD of an indirect key of dpv_mlx5dv_create_mkey().
 * @param mkey the key
 * @return its PD.
 */
struct ibv_pd *dpv_mlx5dv_mkey_pd(const struct mlx5dv_mkey *mkey);

/**
 * mlx5dv_create_qp()'s send_ops_flags (MLX5DV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS)
 * for a QP just created with IBV_QP_INIT_ATTR_SEND_OPS_FLAGS: which of the
 * mlx5dv_qp_ex builders work. MLX5DV_QP_EX_WITH_MR_LIST and
 * MLX5DV_QP_EX_WITH_MR_INTERLEAVED on an RC QP are supported.
 *
 * @param qp the QP
 * @param flags MLX5DV_QP_EX_WITH_* bits
 * @return 0; EINVAL qp NULL or not an ibv_qp_ex QP; EOPNOTSUPP another
 *   bit, or a QP type other than RC.
 */
int dpv_qp_mlx5_send_ops(struct ibv_qp *qp, uint64_t flags);

/**
 * mlx5dv_create_cq() once its mlx5 attributes are checked: ibv_create_cq_ex()
 * with a CQE size. A CQ of 128-byte CQEs holds each struct mlx5_cqe64 in
 * the second half of its entry (mlx5dv_init_obj reports cqe_size 128);
 * with pad the first half is zeroed by every CQE written (the whole entry
 * is written), without it that half is left alone.
 *
 * @param context the context
 * @param attr    as for ibv_create_cq_ex()
 * @param cqe_size 64 or 128; 0: the default (on a device of the mlx5
 *   personality MLX5_CQE_SIZE from the environment, as for ibv_create_cq)
 * @param pad     nonzero: MLX5DV_CQ_INIT_ATTR_FLAGS_CQE_PAD
 * @param comp    0, or the CQE compression format
 *   (MLX5DV_CQE_RES_FORMAT_*, dpv_mlx5_cq_compress())
 * @return the CQ; NULL with errno EINVAL (context or attr NULL, a size
 *   other than 64 or 128, pad without 128-byte CQEs, a bad compression
 *   format), EOPNOTSUPP (a size or compression asked of a device with
 *   "rings = mlx4"), or ibv_create_cq_ex()'s.
 */
struct ibv_cq_ex *dpv_mlx5dv_create_cq(struct ibv_context *context,
				       struct ibv_cq_init_attr_ex *attr,
				       unsigned int cqe_size, int pad,
				       unsigned int comp);

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
 * mlx5dv_create_qp()'s MLX5DV_QP_CREATE_TUNNEL_OFFLOADS: a RAW_PACKET QP
 * (plain or RSS) looks into the VXLAN, GENEVE and GRE packets it
 * receives; IBV_WC_IP_CSUM_OK then reports the inner IPv4 and TCP/UDP
 * checksums (the outer ones must be right too) and the CQE is marked
 * tunneled, as ConnectX does. Call before the QP takes traffic.
 *
 * @param qp the QP
 * @return 0; EINVAL qp NULL; EOPNOTSUPP not a RAW_PACKET QP; ENOMEM.
 */
int dpv_qp_raw_tunnel_offloads(struct ibv_qp *qp);

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
 * MLX5DV_QP_CREATE_SIG_PIPELINING (RC only): after a signature error in
 * the data of a WQE the SQ stops before the next WQE with
 * IBV_SEND_FENCE, in SQD, and IBV_EVENT_SQ_DRAINED is raised once what
 * started before is done (dpv_qp_mlx5_cancel_send(), then RTS again).
 *
 * @param qp the QP
 * @param flags the two MLX5DV_QP_CREATE_*_SCATTER_TO_CQE bits,
 *   MLX5DV_QP_CREATE_PACKET_BASED_CREDIT_MODE and
 *   MLX5DV_QP_CREATE_SIG_PIPELINING, or 0
 * @return 0; EINVAL (qp NULL, another bit, both scatter bits, packet-based
 *   credits or pipelining on a QP that is not RC); ENOENT.
 */
int dpv_qp_mlx5_create_flags(struct ibv_qp *qp, uint32_t flags);

/**
 * mlx5dv_modify_qp_udp_sport(): the RoCEv2 UDP source port of an RC or UC
 * QP in RTS; every frame it sends from then on carries it (a later
 * IBV_QP_AV sets the port anew, as at RTR).
 *
 * @param qp the QP
 * @param sport the port, 1..65535
 * @return 0; EINVAL (qp NULL, port 0); EOPNOTSUPP (not RC or UC, not in
 *   RTS, as rdma-core's provider; or a QP without an engine).
 */
int dpv_qp_mlx5_udp_sport(struct ibv_qp *qp, uint16_t sport);

/**
 * mlx5dv_map_ah_to_qp(): the address handle follows the congestion
 * control that QP qp_num negotiated with ECE. ECE negotiates no option on
 * this device (ibv_query_ece() options 0) and there is one congestion
 * behaviour, so a mapping changes nothing on the wire: it is checked and
 * recorded (dpv_mlx5dv_ah_qp_map()). The first mapping of an AH stays, a
 * later one is ignored and succeeds; it lives as long as the AH, whatever
 * becomes of the QP.
 *
 * @param ah the address handle
 * @param qp_num a QP of the device (any context)
 * @return 0; EINVAL (ah NULL, no such QP); EOPNOTSUPP (an AH without a
 *   GRH, as rdma-core's provider; never on RoCE).
 */
int dpv_mlx5dv_map_ah_to_qp(struct ibv_ah *ah, uint32_t qp_num);

/**
 * The QP an address handle was mapped to by dpv_mlx5dv_map_ah_to_qp().
 * @param ah the address handle
 * @return the QP number, or UINT32_MAX if it is not mapped.
 */
uint32_t dpv_mlx5dv_ah_qp_map(struct ibv_ah *ah);

/**
 * Create a Dynamically Connected QP (mlx5dv_create_qp() with
 * MLX5DV_QP_INIT_ATTR_MASK_DC): a of qp_type IBV_QPT_DRIVER, checked as
 * ibv_create_qp_ex() checks it. A DCI has a send queue (send_cq; an SRQ
 * or recv_cq given are kept on the object, unused); a DCT needs an SRQ
 * and a recv_cq and has no send queue (send_ops_flags: EINVAL). See
 * doc/guides/dc.rst.
 *
 * @param ctx the context
 * @param a the QP's attributes (cap is updated as on ibv_create_qp_ex)
 * @param dc_type MLX5DV_DCTYPE_DCI or MLX5DV_DCTYPE_DCT
 * @param dct_key the DCT's access key (ignored for a DCI)
 * @return the QP, or NULL with errno (EINVAL, ENOMEM, ...).
 */
struct ibv_qp *dpv_qp_create_dc(struct ibv_context *ctx,
				struct ibv_qp_init_attr_ex *a, int dc_type,
				uint64_t dct_key);

/** Largest mlx5dv_dci_streams::log_num_concurent accepted. */
#define DPV_DCI_MAX_LOG_STREAMS 4

/**
 * mlx5dv_create_qp() of a DCI with MLX5DV_QP_INIT_ATTR_MASK_DCI_STREAMS:
 * dpv_qp_create_dc() of a DCI whose work requests carry a stream
 * (mlx5dv_wr_set_dc_addr_stream). A local error of a WQE puts only its
 * stream in error (its next WQEs are flushed until
 * dpv_qp_dci_stream_reset()); the DCI goes to ERR when the
 * 2^log_errored-th stream would. See doc/guides/dc.rst.
 *
 * @param ctx the context
 * @param a as for dpv_qp_create_dc()
 * @param log_concurrent log2 of the streams handled at once
 *   (0..DPV_DCI_MAX_LOG_STREAMS; WQEs run in send-queue order anyway)
 * @param log_errored log2 of the streams in error that end the DCI
 *   (0..4)
 * @return the QP, or NULL with errno (EINVAL: a log above its limit;
 *   dpv_qp_create_dc()'s errors).
 */
struct ibv_qp *dpv_qp_create_dci_streams(struct ibv_context *ctx,
					 struct ibv_qp_init_attr_ex *a,
					 uint8_t log_concurrent,
					 uint8_t log_errored);

/**
 * mlx5dv_dci_stream_id_reset(): take a stream of a DCI with streams out
 * of error.
 *
 * @param qp the DCI
 * @param stream_id the stream
 * @return 0; EINVAL qp NULL, not a DCI with streams, or the stream not
 *   in error.
 */
int dpv_qp_dci_stream_reset(struct ibv_qp *qp, uint16_t stream_id);

/**
 * mlx5dv_create_qp() of a QP with MLX5DV_QP_EX_WITH_MKEY_CONFIGURE:
 * ibv_create_qp_ex(), except that cap.max_inline_data may be up to
 * max_inline instead of the device's usual limit (rdma-core's man page
 * has such QPs ask for the room of long key layouts that way); the QP
 * then really has that much inline room.
 *
 * @param ctx the context
 * @param a as for ibv_create_qp_ex()
 * @param max_inline the limit of a->cap.max_inline_data (at most 512)
 * @return the QP, or NULL with errno as ibv_create_qp_ex().
 */
struct ibv_qp *dpv_qp_create_inline(struct ibv_context *ctx,
				    struct ibv_qp_init_attr_ex *a,
				    uint32_t max_inline);

/**
 * ibv_create_qp_ex() for mlx5dv_create_qp() with
 * MLX5DV_QP_CREATE_TUNNEL_OFFLOADS: on the mlx5 ring format an RSS QP may
 * then hash on inner headers (IBV_RX_HASH_INNER, refused with EOPNOTSUPP
 * without tunnel offloads, as the kernel's mlx5 driver). The offloads
 * themselves are set afterwards (dpv_qp_raw_tunnel_offloads()).
 * @param ctx the context
 * @param a as for ibv_create_qp_ex()
 * @return the QP, or NULL with errno as ibv_create_qp_ex().
 */
struct ibv_qp *dpv_qp_create_tunnel(struct ibv_context *ctx,
				    struct ibv_qp_init_attr_ex *a);

/**
 * The scatter-to-CQE default of a created QP (verbs create path).
 * @return 0 or an errno.
 */
struct dpv_qp;
int dpv_qp_opts_setup(struct dpv_qp *qp);

#endif /* DPV_VERBS_DV_H */
