/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DPV_TM_H
#define DPV_TM_H

/**
 * @file
 * Tag matching shared receive queues (IBV_SRQT_TM), the state the verbs
 * layer, the engine and the CQ reader share.
 *
 * A TM SRQ holds two kinds of receive buffers: its ordinary receive WQEs
 * (the ring), which take unexpected and untagged messages, and a list of
 * tagged buffers that ibv_post_srq_ops() adds and removes. Every message
 * an RC QP on the SRQ receives starts with a tag matching header (struct
 * ibv_tmh); the engine matches an EAGER or RNDV message's tag against the
 * list in the order the tags were added:
 *
 *  - EAGER, matched: the payload after the header goes to the tagged
 *    buffer, one completion (IBV_WC_TM_RECV, MATCH | DATA_VALID);
 *  - RNDV, matched: the engine reads the sender's buffer (struct ibv_rvh)
 *    into the tagged buffer with an RDMA READ of its own, then sends the
 *    sender a FIN message; two completions, MATCH when the tag is taken
 *    and DATA_VALID when the data is in;
 *  - not matched: the whole message to an ordinary WQE (IBV_WC_TM_RECV
 *    without flags) and the unexpected count goes up;
 *  - NO_TAG (and FIN, and messages shorter than a header): the whole
 *    message to an ordinary WQE, IBV_WC_TM_NO_TAG.
 *
 * Phases: a tag added while software had not yet seen every unexpected
 * message (the count it last reported with IBV_OPS_TM_SYNC differs from
 * the engine's) is listed but never matched, and its ADD completion asks
 * for a sync (IBV_WC_TM_SYNC_REQ); tags added in step stay matchable.
 *
 * List operations run at once, under the engine lock, in the caller of
 * ibv_post_srq_ops(); their completions go to the SRQ's CQ. Completions
 * are mlx5 CQEs with the tag-matching application fields ConnectX uses
 * (app 1; app_op; app_info the tag's handle; the TMH in the first 16
 * bytes).
 */

#include <stdbool.h>
#include <stdint.h>
#include <rte_spinlock.h>

#include "dpv_wr.h"

/** Tagged buffers a TM SRQ can list at most (ibv_tm_caps.max_num_tags). */
#define DPV_TM_MAX_TAGS 1023
/** List operations one ibv_post_srq_ops() may carry (max_ops). */
#define DPV_TM_MAX_OPS 1024
/** SGEs of a tagged buffer (max_sge). */
#define DPV_TM_MAX_SGE 1
/** Longest rendezvous request (TMH + RVH + user header) (max_rndv_hdr_size). */
#define DPV_TM_MAX_RNDV_HDR 64
/** Bytes of a tag matching header. */
#define DPV_TM_TMH_LEN 16
/** Bytes of a tag matching header and a rendezvous header. */
#define DPV_TM_RNDV_LEN 32

/** mlx5 CQE app field of a tag matching completion. */
#define DPV_TM_CQE_APP 1

/** mlx5 CQE app_op values of tag matching (ConnectX's numbers). */
enum dpv_tm_cqe_op {
	DPV_TM_CQE_CONSUMED = 0x1,     /**< RNDV: the tag taken (MATCH) */
	DPV_TM_CQE_EXPECTED = 0x2,     /**< RNDV: the data in (DATA_VALID) */
	DPV_TM_CQE_UNEXPECTED = 0x3,   /**< to an ordinary WQE, counted */
	DPV_TM_CQE_NO_TAG = 0x4,       /**< to an ordinary WQE */
	DPV_TM_CQE_APPEND = 0x5,       /**< IBV_WR_TAG_ADD done */
	DPV_TM_CQE_REMOVE = 0x6,       /**< IBV_WR_TAG_DEL done */
	DPV_TM_CQE_NOOP = 0x7,	       /**< IBV_WR_TAG_SYNC done */
	DPV_TM_CQE_CONSUMED_MSG = 0xa, /**< EAGER matched: MATCH|DATA_VALID */
};

/** Whether a CQE of app_op op names a tagged buffer (its handle in
 *  app_info) rather than an ordinary WQE or a list operation. */
static inline bool
dpv_tm_cqe_tagged(uint8_t op)
{
	return op == DPV_TM_CQE_CONSUMED || op == DPV_TM_CQE_EXPECTED ||
	       op == DPV_TM_CQE_CONSUMED_MSG;
}

/** Whether the tagged buffer of a CQE of app_op op is done with (its
 *  handle free once the CQE is read). */
static inline bool
dpv_tm_cqe_final(uint8_t op)
{
	return op == DPV_TM_CQE_EXPECTED || op == DPV_TM_CQE_CONSUMED_MSG;
}

/** One tagged buffer of the engine's list. */
struct dpv_tm_tag {
	uint64_t tag, mask;
	uint64_t tmh_tag;    /**< matched: the message's tag, network order */
	uint32_t tmh_ctx;    /**< matched: its app_ctx, network order */
	uint32_t prev, next; /**< the list in posting order */
	uint8_t listed;	     /**< in the list (matchable if enabled) */
	uint8_t enabled;     /**< added in phase (see the file comment) */
	uint8_t busy;	     /**< taken by an RNDV whose data is not in */
	uint32_t rndv_len;   /**< RNDV: the bytes read */
	uint32_t num_sge;
	uint64_t total_len;
	struct dpv_sge sge[DPV_TM_MAX_SGE];
	/** RNDV: the FIN message's header, sent from here (inline) */
	uint8_t fin[DPV_TM_TMH_LEN];
};

/** "No entry" in the list links. */
#define DPV_TM_NONE UINT32_MAX

/** A TM SRQ's shared state (allocated by dpv_tm_create()). */
struct dpv_tm {
	/* ---- application side: handles and what their CQEs report ---- */
	rte_spinlock_t lock; /**< the free handles */
	uint32_t ntags;	     /**< handles: 0 .. ntags - 1 */
	uint32_t nfree;
	uint32_t *free_h; /**< free handles, a stack */
	uint64_t *wrid;	  /**< recv_wr_id of each handle */
	/* ---- engine side, under the engine lock ---- */
	struct dpv_tm_tag *tags; /**< by handle */
	uint32_t first, last;	 /**< the list, oldest first */
	uint16_t hw_cnt;	 /**< unexpected messages delivered */
	uint16_t sw_cnt;	 /**< the count software last reported */
};

/** A list operation (ibv_ops_wr, checked, handle resolved). */
struct dpv_tm_op {
	enum ibv_ops_wr_opcode opcode;
	bool signaled; /**< IBV_OPS_SIGNALED: a completion */
	bool sync;     /**< IBV_OPS_TM_SYNC: unexpected_cnt is reported */
	uint16_t unexpected_cnt;
	uint32_t handle;
	uint64_t wr_id;
	uint64_t tag, mask; /**< ADD */
	uint32_t num_sge;   /**< ADD */
	struct dpv_sge sge[DPV_TM_MAX_SGE];
};

/** A TM state for ntags handles; NULL if out of memory. */
struct dpv_tm *dpv_tm_create(uint32_t ntags);
void dpv_tm_destroy(struct dpv_tm *tm);

/** A free handle (application side); -1 if none. */
int64_t dpv_tm_handle_get(struct dpv_tm *tm);

/** Give handle h back (its last completion was read, or it was removed
 *  from the list). */
void dpv_tm_handle_put(struct dpv_tm *tm, uint32_t h);

#endif /* DPV_TM_H */
