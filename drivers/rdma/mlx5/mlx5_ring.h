/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DPV_MLX5_RING_H
#define DPV_MLX5_RING_H

/**
 * @file
 * mlx5 ring personality: send queues, receive queues, shared receive
 * queues and completion queues in the exact in-memory formats of
 * ConnectX hardware, as described by <infiniband/mlx5dv.h>.
 *
 * Application side (verbs hot paths, any application thread):
 * dpv_mlx5_post_send(), the dpv_mlx5_wr_*() builder behind ibv_qp_ex,
 * dpv_mlx5_post_recv(), dpv_mlx5_cq_poll(), the dpv_mlx5_cq_ex_*()
 * helpers behind ibv_cq_ex, dpv_mlx5_cq_arm().
 *
 * Engine side (the lcore that owns the QP/CQ): dpv_mlx5_sq_fetch(),
 * dpv_mlx5_rq_fetch(), dpv_mlx5_sq_retire()/dpv_mlx5_rq_retire(),
 * dpv_mlx5_cq_push(), dpv_mlx5_cq_should_notify(), dpv_mlx5_flush().
 *
 * The two sides only meet through ring memory and doorbell records:
 *  - SQ: WQEs of 64-byte blocks (MLX5_SEND_WQE_BB); the producer writes
 *    dbrec[MLX5_SND_DBR] = big-endian (block counter & 0xffff) with
 *    release ordering after the WQEs.
 *  - RQ: fixed-stride WQEs of data segments, terminated by an lkey of
 *    MLX5_INVALID_LKEY when shorter than max_sge;
 *    dbrec[MLX5_RCV_DBR] = big-endian (WQE counter & 0xffff).
 *  - SRQ: struct mlx5_wqe_srq_next_seg + data segments, free WQEs linked
 *    through next_wqe_index; dbrec[0] = big-endian (post counter & 0xffff).
 *  - CQ: entries of 64 bytes (a struct mlx5_cqe64) or 128 bytes (the
 *    struct mlx5_cqe64 in their second half, as mlx5dv_create_cq()'s
 *    cqe_size 128 lays them out), owner bit = (index / cqe_cnt) & 1,
 *    opcode MLX5_CQE_INVALID until first written; dbrec[0] = consumer
 *    index & 0xffffff, dbrec[1] = arm word (sn << 28 | cmd | ci).
 *
 * Concurrency: one producer and one consumer per ring. Posting to one SQ
 * (or RQ) from several threads, or polling one CQ from several threads,
 * needs the caller's lock. SRQ post and SRQ WQE release (from polling)
 * are serialised internally.
 *
 * Sizes are rounded up to powers of two; the actual capacities are in
 * the structures after init (sq.max_post, rq.max_post, cq.cqe).
 *
 * Errors: functions return 0 or a positive errno unless stated.
 */

#include <endian.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/queue.h>
#include <infiniband/verbs.h>
#include <infiniband/mlx5dv.h>
#include <rte_atomic.h>
#include <rte_branch_prediction.h>
#include <rte_spinlock.h>

#include "dpv_wr.h"

struct dpv_tm;

/** @name Named memory barriers
 * @{ */
/** Application: WQEs (or SRQ links) are written; order them before the
 *  doorbell record store. */
static inline void
dpv_barrier_before_doorbell(void)
{
	rte_atomic_thread_fence(__ATOMIC_RELEASE);
}

/** Application: the owner bit of a CQE says it is ours; order the reads
 *  of its other fields after that check. */
static inline void
dpv_barrier_after_owned_cqe(void)
{
	rte_atomic_thread_fence(__ATOMIC_ACQUIRE);
}

/** Engine: the doorbell record was read; order the WQE reads after it. */
static inline void
dpv_barrier_after_doorbell_read(void)
{
	rte_atomic_thread_fence(__ATOMIC_ACQUIRE);
}

/** Engine: the CQE body is written; order it before the op_own byte. */
static inline void
dpv_barrier_before_cqe_owner(void)
{
	rte_atomic_thread_fence(__ATOMIC_RELEASE);
}
/** @} */

/** Limits of this personality. */
enum {
	DPV_MLX5_MAX_SEND_SGE = 30, /**< data segments per send WQE */
	DPV_MLX5_MAX_RECV_SGE = DPV_WR_MAX_SGE,
	DPV_MLX5_MAX_INLINE = 512,	  /**< inline bytes per send WQE */
	DPV_MLX5_MAX_WQE_BYTES = 63 * 16, /**< ds is 6 bits of 16 bytes */
	DPV_MLX5_MAX_SQ_BB = 1 << 16,	  /**< 64-byte blocks per SQ */
	/** blocks of the largest UMR WQE (MW bind: ctrl 16 + UMR ctrl 48 +
	 * mkey context 64 + KLM 64 bytes) */
	DPV_MLX5_UMR_WQE_BB = 3,
	DPV_MLX5_MAX_RQ_WQE = 1 << 15, /**< WQEs per RQ/SRQ */
	DPV_MLX5_MAX_CQE = 1 << 22,    /**< CQEs per CQ */
	DPV_MLX5_ETH_INLINE_HDR = 18,  /**< raw packet: L2 bytes inlined in
					    the Ethernet segment */
	/** raw packet TSO: largest header (IBV_WR_TSO hdr_sz) a WQE carries
	 *  inline, from the Ethernet segment on */
	DPV_MLX5_MAX_TSO_HEADER = 512,
	/** raw packet TSO: largest payload of one IBV_WR_TSO (max_tso) */
	DPV_MLX5_MAX_TSO = 1 << 18,
};

/** XRC segment (rdma-core's struct mlx5_wqe_xrc_seg, not in mlx5dv.h). */
struct dpv_mlx5_wqe_xrc_seg {
	__be32 xrc_srqn;
	uint8_t rsvd[12];
};

struct dpv_ring_ops;
struct dpv_mlx5_cq_comp;

/** Kind of a work queue. */
enum dpv_mlx5_wq_kind {
	DPV_MLX5_WQ_SQ = 1,
	DPV_MLX5_WQ_RQ = 2,
	DPV_MLX5_WQ_SRQ = 3,
};

/**
 * Common part of an SQ, RQ or SRQ.
 *
 * Application-side fields: head, tail, cur_post, bb_tail, wrid[] and the
 * SQ/SRQ bookkeeping arrays. Engine-side fields: eng_*. The doorbell
 * record is the only field both sides write-read concurrently.
 *
 * The first 64 bytes hold what a post, a poll and the engine's fetch read
 * and write (asserted below), the set-up fields follow: with thousands of
 * queues each line a message touches is a cache miss.
 */
struct dpv_mlx5_wq {
	uint8_t *buf;	     /**< ring, wqe_cnt << wqe_shift bytes */
	volatile __be32 *db; /**< this queue's doorbell record word */
	/** operations of the ring's byte format (struct dpv_ring_ops), set
	 *  by the init function of the format */
	const struct dpv_ring_ops *ops;
	uint64_t *wrid;	     /**< wr_id per slot (RQ, SRQ; an SQ: NULL) */
	uint32_t wqe_cnt;    /**< SQ: 64-byte blocks; RQ/SRQ: WQEs */
	uint32_t max_post;   /**< WRs that can be outstanding */
	uint32_t max_gs;     /**< SGEs per WR */
	/* application side */
	uint32_t head; /**< WRs posted */
	uint32_t tail; /**< WRs completed (seen by poll) */
	/* engine side */
	uint32_t eng_pi; /**< next block/WQE to fetch */
	uint32_t eng_ci; /**< oldest fetched but not retired */
	uint8_t wqe_shift; /**< log2 of the stride (SQ: 6) */
	uint8_t kind;	   /**< enum dpv_mlx5_wq_kind */
	uint8_t bb_shift;  /**< mlx4 SQ: log2 of 64-byte blocks per WQE */
	bool buf_borrowed; /**< buf lies in another queue's block (an mlx4
			      QP's RQ after the SQ's): not freed here */
	/* ---- the next line: set up once ---- */
	__be32 *dbrec;	   /**< the 2-word record block (QP: shared by
				SQ and RQ after dpv_mlx5_qp_link_dbrec) */
	__be32 *dbrec_own; /**< the block this queue allocated */
	int socket;
};

_Static_assert(offsetof(struct dpv_mlx5_wq, buf_borrowed) < 64 &&
		       offsetof(struct dpv_mlx5_wq, dbrec) == 64,
	       "a queue's hot fields fill its first cache line");

/** What the poll side keeps of a posted send WQE, per slot: one entry
 *  instead of four arrays, so that these values of a WQE share a cache
 *  line (most of the time: 24-byte entries) when it is posted and when it
 *  completes. A send queue has no wq.wrid[] (NULL): its wr_ids are here. */
struct dpv_mlx5_sq_slot {
	uint64_t wr_id; /**< of the WR */
	uint32_t head;	/**< value of head for that WR */
	uint32_t bbend; /**< cur_post after that WQE */
	/** the completion's opcode where the WQE does not say it:
	 *  IBV_WC_BIND_MW / IBV_WC_LOCAL_INV / MLX5DV_WC_UMR for UMR WQEs,
	 *  IBV_WC_DRIVER2 for mlx5dv_wr_raw_wqe, else 0 */
	uint32_t data;
};

/** Send queue. From cur_post to fm_next: what a post reads and writes
 *  besides the first line of wq (asserted below), on the line after it
 *  when the queue starts a cache line (struct dpv_qp, engine_perf). */
struct dpv_mlx5_sq {
	struct dpv_mlx5_wq wq;
	uint32_t cur_post;     /**< 64-byte blocks posted */
	uint32_t bb_tail;      /**< first block not yet completed */
	struct dpv_mlx5_sq_slot *slot; /**< per slot (of wq.wqe_cnt) */
	uint32_t qpn;
	enum ibv_qp_type type; /**< set by dpv_mlx5_sq_bind / posting */
	/** set by the poster when it told the engine of new WQEs
	 *  (dpv_engine_qp_kick()), cleared by the engine when it took note */
	uint32_t kicked;
	uint8_t fm_next; /**< fence to put on the next WQE */
	/* ---- the rest of a post's state: WRs that take the builder ---- */
	uint32_t max_inline;   /**< actual inline capacity */
	uint32_t max_wqe_bb;   /**< blocks of the largest WQE (incl. UMR) */
	uint32_t max_tso_header; /**< largest IBV_WR_TSO header (0: no TSO) */
	/** ibv_qp_ex builder state (dpv_mlx5_wr_*). */
	struct {
		bool active; /**< between wr_start and complete/abort */
		bool open;   /**< a WQE is being built */
		int err;
		uint32_t nreq; /**< WQEs finished since wr_start */
		uint32_t start_cur_post;
		uint8_t start_fm;
		/* the open WQE */
		uint8_t mlx5_op;
		enum ibv_wr_opcode op;
		uint8_t fm_ce_se;
		__be32 imm;
		uint64_t wr_id;
		uint32_t wr_data;
		uint32_t off;	   /**< bytes written from the WQE start */
		uint32_t hdr_off;  /**< where raddr/atomic/data begin */
		uint32_t data_off; /**< where the data segments begin */
		bool ud_set, data_set;
		bool tso_set; /**< IBV_WR_TSO: header and MSS written */
		/** IBV_WR_DRIVER1: key configuration setters still due */
		uint8_t setters;
		/** DCI: the control segment's dci_stream_channel_id */
		uint16_t stream_id;
	} bld;
};

_Static_assert(offsetof(struct dpv_mlx5_sq, fm_next) < 128,
	       "a post's fields on the first two lines of a send queue");

/** Receive queue or shared receive queue. */
struct dpv_mlx5_rq {
	struct dpv_mlx5_wq wq;
	/* SRQ only */
	uint32_t srq_head;     /**< first free WQE slot */
	uint32_t srq_tail;     /**< last free WQE slot */
	uint32_t srq_counter;  /**< WQEs posted (doorbell value) */
	uint32_t eng_srq_next; /**< engine: slot of the next posted WQE */
	rte_spinlock_t srq_lock;
	/** engine shards (an SRQ): 1 + the shard its first QP went to, 0
	 *  none yet (the verbs layer places QPs) */
	uint16_t eng_shard;
	/** QPs of several shards take from it: under eng_lock */
	bool eng_shared;
	rte_spinlock_t eng_lock;
	/** a tag matching SRQ: its tagged buffers (dpv_tm.h), NULL if not */
	struct dpv_tm *tm;
};

/** Completion queue. */
struct dpv_mlx5_cq {
	struct mlx5_cqe64 *buf; /**< cqe_cnt entries of cqe_size bytes */
	uint32_t cqe_cnt;	/**< power of two */
	uint16_t cqe_size;	/**< bytes per entry: 64, or 128 (mlx5 format
				     only, ops dpv_mlx5_cqe128_ring_ops) */
	/** 128-byte entries: each CQE written is the whole entry, its first
	 *  64 bytes zero (MLX5DV_CQ_INIT_ATTR_FLAGS_CQE_PAD); without it only
	 *  the second half is written */
	bool cqe_pad;
	uint32_t cqe;		/**< capacity reported to the user
				     (cqe_cnt - 1, as mlx5 does) */
	__be32 *dbrec;		/**< [0] set_ci, [1] arm */
	/** UAR page stand-in for mlx5dv_cq.cq_uar: the 64-bit arm doorbell
	 *  {be32 sn << 28 | cmd | ci, be32 cqn} goes to uar + MLX5_CQ_DOORBELL
	 *  (in the dbrec cache line). The engine notices arms written there
	 *  directly by mlx5dv code too. */
	uint8_t *uar;
	uint32_t cqn; /**< written into the arm doorbell */
	/** operations of the ring's byte format (mlx4: 32-byte CQEs in
	 *  buf), set by the init function of the format */
	const struct dpv_ring_ops *ops;
	int socket;
	/* application side */
	uint32_t cons_index;
	uint32_t arm_sn;      /**< 2-bit event sequence (mlx5 arm_sn) */
	atomic_uint arm_req;  /**< incremented by each arm request (our
				   stand-in for the UAR doorbell write) */
	struct ibv_wc cur_wc; /**< ibv_cq_ex: the current completion */
	uint64_t cur_ts;      /**< ibv_cq_ex: its time stamp */
	uint16_t cur_vlan;
	/* engine side */
	uint32_t prod_index;
	/** each CQE carries the time the engine wrote it (the CPU's
	 *  time-stamp counter: a CQ created with a completion time stamp;
	 *  not with CQE compression) */
	bool eng_ts;
	/** completion events can reach someone (the verbs CQ has a
	 *  completion channel; set before any QP uses the CQ): only then
	 *  does the engine check the arm state (a full barrier) after the
	 *  CQEs it writes */
	bool eng_events;
	uint32_t eng_arm_seen;
	bool eng_armed;
	bool eng_arm_sol;
	uint32_t eng_scan;     /**< next CQE to check for an armed event */
	/** prod_index when the last event was raised: the CQEs before it
	 *  had their event (a new arm does not count them again) */
	uint32_t eng_fired_at;
	uint32_t eng_last_uar; /**< last arm doorbell word seen */
	bool eng_uar_dv;       /**< armed from the doorbell word alone */
	/** the current arm's moderation period runs (until eng_mod_due) */
	bool eng_mod_run;
	/** the CQEs the current arm counts before its event (taken from
	 *  mod_req when the arm is seen; 0: no moderation, the first fires) */
	uint16_t eng_mod_cnt;
	/** CQE compression state (dpv_mlx5_cq_compress()), NULL: none */
	struct dpv_mlx5_cq_comp *comp;
	/** engine shards: 1 + the shard of the first QP that completes
	 *  into it, 0 none yet (the verbs layer places QPs) */
	uint16_t eng_shard;
	/** QPs of several shards complete into it: pushes (and the arm
	 *  state they read) under eng_lock (dpv_ring_cq_lock()) */
	bool eng_shared;
	rte_spinlock_t eng_lock;
	/* engine side, moderated arms only (the lines above are those of
	 * every CQE and arm) */
	uint32_t eng_mod_seen; /**< CQEs the current arm counted */
	uint64_t eng_mod_cyc;  /**< its period, timer cycles */
	uint64_t eng_mod_due;  /**< when it ends (eng_mod_run), timer cycles */
	/** the engine that watches the period's end (NULL: none) and the
	 *  CQ's link on that engine's list (lib/engine/engine_cqmod.c) */
	void *eng_mod_watch;
	TAILQ_ENTRY(dpv_mlx5_cq) eng_mod_link;
	/* ---- application side, rarely used: after the engine's lines ---- */
	/** event moderation the next arms take (dpv_mlx5_cq_moderate()):
	 *  count << 16 | period in microseconds; 0: none */
	uint32_t mod_req;
	uint32_t cur_tm_ctx; /**< ibv_cq_ex: the current TMH's app_ctx */
	uint64_t cur_tm_tag; /**< ibv_cq_ex: its tag (tag matching) */
};

/* what the engine reads for every CQE stays on the line it was on before
 * moderation and tag matching added fields (with thousands of QPs each
 * line more is a miss more a message: engine_perf 256 QPs lost 7 %) */
_Static_assert(offsetof(struct dpv_mlx5_cq, prod_index) / 64 ==
		       offsetof(struct dpv_mlx5_cq, eng_lock) / 64,
	       "a CQ's per-CQE engine fields left their cache line");

/**
 * Take a CQ for writing completions when QPs of several engine shards
 * write into it (cq->eng_shared, which is set only while the one shard
 * that used it so far is stopped); nothing otherwise.
 * @return what to pass to dpv_ring_cq_unlock()
 */
static inline bool
dpv_ring_cq_lock(struct dpv_mlx5_cq *cq)
{
	bool shared = cq->eng_shared;

	if (unlikely(shared))
		rte_spinlock_lock(&cq->eng_lock);
	return shared;
}

/** Release what dpv_ring_cq_lock() took. */
static inline void
dpv_ring_cq_unlock(struct dpv_mlx5_cq *cq, bool shared)
{
	if (unlikely(shared))
		rte_spinlock_unlock(&cq->eng_lock);
}

/** @name CQE compression (mlx5dv_create_cq MLX5DV_CQ_INIT_ATTR_MASK_COMPRESSED_CQE)
 *
 * A compressed session on the ring, as ConnectX writes it: a title CQE at
 * index s whose op_own format bits (2..3) are DPV_MLX5_CQE_FMT_COMPRESSED
 * and whose byte_cnt is the number n (2..DPV_MLX5_CQE_COMP_MAX) of
 * completions it stands for; the session takes the n indexes s..s+n-1.
 * The mini CQEs (struct dpv_mlx5_mini_cqe8, 8 per 64 bytes) of
 * completions 8k..8k+7 fill the struct mlx5_cqe64 of entry s + 8k (entry
 * s + 1 for k = 0). Completion j is the title with byte_cnt, and the
 * format's field (rx_hash_result for MLX5DV_CQE_RES_FORMAT_HASH,
 * check_sum for _CSUM and _CSUM_STRIDX) from mini CQE j, wqe_counter =
 * the title's + j and the format bits cleared. Only the title has a valid
 * owner bit: a consumer sets op_own of every entry of a session it has
 * read to MLX5_CQE_INVALID << 4 before it hands the entries back (as
 * ConnectX consumers do).
 * @{ */
/** dpverbs' own WQE opcode (no ConnectX one exists) of an RDMA ATOMIC
 *  WRITE: control, remote-address and atomic segments, the atomic
 *  segment's swap_add holding the 8 bytes in memory order; a send CQE of
 *  it carries the same opcode (IBV_WC_ATOMIC_WRITE). */
#define DPV_MLX5_OPCODE_ATOMIC_WRITE 0x1d

/** op_own format bits (2..3) of a title CQE */
#define DPV_MLX5_CQE_FMT_COMPRESSED 3
/** largest session (mlx5dv cqe_comp_caps.max_num) */
#define DPV_MLX5_CQE_COMP_MAX 64
/** mini CQEs per 64-byte entry */
#define DPV_MLX5_MINI_PER_CQE 8

/** A mini CQE (8 bytes, big-endian fields). */
struct dpv_mlx5_mini_cqe8 {
	union {
		__be32 rx_hash_result; /**< MLX5DV_CQE_RES_FORMAT_HASH */
		struct {
			__be16 checksum;   /**< _CSUM, _CSUM_STRIDX */
			__be16 stride_idx; /**< _CSUM_STRIDX (0: no
						striding RQ here) */
		};
	};
	__be32 byte_cnt; /**< the completion's byte count */
};
/** @} */

/**
 * Address vector of a UD address handle. The AH object of the verbs
 * layer must start with this structure so that post_send finds the AV
 * from wr->wr.ud.ah (container_of on the embedded struct ibv_ah).
 */
struct dpv_mlx5_ah {
	struct ibv_ah ibv_ah;
	struct mlx5_wqe_av av; /**< fill with dpv_mlx5_av_build() */
};

/** Inputs for dpv_mlx5_av_build() (RoCE: always with a GRH). */
struct dpv_mlx5_av_attr {
	uint8_t dgid[16];
	uint8_t dmac[6];
	uint8_t sgid_index;
	uint8_t hop_limit;
	uint8_t traffic_class;
	uint32_t flow_label; /**< 20 bits */
	uint8_t sl;	     /**< 3 bits on Ethernet */
	uint8_t static_rate; /**< enum ibv_rate value, 4 bits */
	uint16_t udp_sport;  /**< 0: let the engine derive it */
};

/**
 * Build an mlx5 address vector for RoCE (grh bit clear, rlid = UDP
 * source port, sl in bits 1..3 of stat_rate_sl, as ConnectX does).
 * @param av   output, fully written
 * @param attr destination
 */
void dpv_mlx5_av_build(struct mlx5_wqe_av *av,
		       const struct dpv_mlx5_av_attr *attr);

/**
 * Decode an address vector (the inverse of dpv_mlx5_av_build).
 * @param av   input
 * @param attr output
 */
void dpv_mlx5_av_parse(const struct mlx5_wqe_av *av,
		       struct dpv_mlx5_av_attr *attr);

/* ------------------------------------------------------------------ */
/** @name Queue set-up (control path)
 * @{ */

/**
 * Create a send queue in DPDK memory.
 * Each WQE slot is sized for max_sge data segments or max_inline inline
 * bytes after the largest fixed header (ctrl + 48 bytes: XRC + raddr +
 * atomic, or a UD datagram segment, or the Ethernet segment); the ring
 * holds at least max_wr WQEs of the largest kind the QP can post, memory
 * window binds (DPV_MLX5_UMR_WQE_BB blocks) included (sq->wq.max_post is
 * the real count).
 * @param sq         zeroed or uninitialised structure
 * @param max_wr     1..; the result may be larger
 * @param max_sge    0..DPV_MLX5_MAX_SEND_SGE
 * @param max_inline 0..DPV_MLX5_MAX_INLINE (actual value in sq->max_inline)
 * @param socket     NUMA socket or SOCKET_ID_ANY
 * @return 0; EINVAL on a limit exceeded (also when the ring would exceed
 *   DPV_MLX5_MAX_SQ_BB blocks); ENOMEM if DPDK memory is short.
 */
int dpv_mlx5_sq_init(struct dpv_mlx5_sq *sq, unsigned int max_wr,
		     unsigned int max_sge, unsigned int max_inline, int socket);

/**
 * dpv_mlx5_sq_init() for a raw-packet QP that posts IBV_WR_TSO: every
 * slot also has room for a TSO header of max_tso_header bytes inline in
 * the Ethernet segment (as rdma-core's mlx5 sizes it), and
 * dpv_mlx5_wr_tso() accepts headers up to that size.
 * @param sq             zeroed or uninitialised structure
 * @param max_wr         1..; the result may be larger
 * @param max_sge        0..DPV_MLX5_MAX_SEND_SGE
 * @param max_inline     0..DPV_MLX5_MAX_INLINE
 * @param max_tso_header 0 (no TSO) or 18..DPV_MLX5_MAX_TSO_HEADER
 * @param socket         NUMA socket or SOCKET_ID_ANY
 * @return 0; EINVAL on a limit exceeded; ENOMEM.
 */
int dpv_mlx5_sq_init_tso(struct dpv_mlx5_sq *sq, unsigned int max_wr,
			 unsigned int max_sge, unsigned int max_inline,
			 unsigned int max_tso_header, int socket);

/** Free an SQ's memory (safe on a zeroed or already freed structure). */
void dpv_mlx5_sq_fini(struct dpv_mlx5_sq *sq);

/**
 * RESET of a queue whose ring the application may hold (mlx5dv_qp): the
 * content and state of @p fresh, a queue set up just now with the same
 * sizes and format, go onto the memory @p q has (ring, per-slot arrays,
 * doorbell-record block), which stays where it is; the record reads 0.
 * @p fresh keeps its own memory, for the caller to free (*_fini).
 * @return 0, or EINVAL (sizes differ, or q has no ring): nothing changed
 */
int dpv_mlx5_sq_refill(struct dpv_mlx5_sq *q, const struct dpv_mlx5_sq *fresh);
/** As dpv_mlx5_sq_refill(), for a QP's receive queue (not an SRQ). */
int dpv_mlx5_rq_refill(struct dpv_mlx5_rq *q, const struct dpv_mlx5_rq *fresh);
/** Whether dpv_mlx5_sq_refill() / dpv_mlx5_rq_refill() (through its wq)
 *  would take @p fresh onto @p keep. */
bool dpv_mlx5_sq_refill_fits(const struct dpv_mlx5_sq *keep,
			     const struct dpv_mlx5_sq *fresh);
bool dpv_mlx5_wq_refill_fits(const struct dpv_mlx5_wq *keep,
			     const struct dpv_mlx5_wq *fresh);

/**
 * Tell the SQ its QP type and number (used by the engine to decode WQEs
 * that were written by the application through mlx5dv). post_send and
 * wr_start also set them.
 */
void dpv_mlx5_sq_bind(struct dpv_mlx5_sq *sq, enum ibv_qp_type type,
		      uint32_t qpn);

/**
 * Create a receive queue: stride = max(16, max_sge * 16) rounded to a
 * power of two, at least max_wr WQEs (rq->wq.max_post = rq->wq.wqe_cnt).
 * @return 0; EINVAL (max_wr 0 or > DPV_MLX5_MAX_RQ_WQE, max_sge 0 or >
 *   DPV_MLX5_MAX_RECV_SGE); ENOMEM.
 */
int dpv_mlx5_rq_init(struct dpv_mlx5_rq *rq, unsigned int max_wr,
		     unsigned int max_sge, int socket);

/**
 * Create a shared receive queue: WQE = next segment + max_sge data
 * segments (at least one; stride rounded to a power of two), wqe_cnt =
 * power of two > max_wr, linked list of free WQEs; rq->wq.max_post =
 * wqe_cnt - 1 (0 for max_wr 0: nothing can be posted, as on ConnectX).
 * @return 0; EINVAL (max_wr >= DPV_MLX5_MAX_RQ_WQE, max_sge >
 *   DPV_MLX5_MAX_RECV_SGE); ENOMEM.
 */
int dpv_mlx5_srq_init(struct dpv_mlx5_rq *rq, unsigned int max_wr,
		      unsigned int max_sge, int socket);

/** Free an RQ or SRQ (safe on a zeroed or already freed structure). */
void dpv_mlx5_rq_fini(struct dpv_mlx5_rq *rq);

/**
 * Lower what an SQ reports and accepts (wq.max_post, wq.max_gs,
 * max_inline) to at most these values; the ring keeps its size. Used to
 * keep a QP's capabilities within the device limits. Call right after
 * dpv_mlx5_sq_init(), before anything is posted.
 * @param sq         an initialised SQ
 * @param max_wr     WRs outstanding at most (1..)
 * @param max_sge    SGEs per WR at most
 * @param max_inline inline bytes per WR at most
 */
void dpv_mlx5_sq_clamp(struct dpv_mlx5_sq *sq, uint32_t max_wr,
		       uint32_t max_sge, uint32_t max_inline);

/**
 * Lower what an RQ or SRQ reports and accepts (wq.max_post, wq.max_gs) to
 * at most these values; the ring keeps its size and stride. Call right
 * after dpv_mlx5_rq_init() or dpv_mlx5_srq_init(), before anything is
 * posted.
 * @param rq      an initialised RQ or SRQ
 * @param max_wr  WRs outstanding at most (1..)
 * @param max_sge SGEs per WR at most (1..)
 */
void dpv_mlx5_rq_clamp(struct dpv_mlx5_rq *rq, uint32_t max_wr,
		       uint32_t max_sge);

/**
 * Make a QP's SQ use dbrec[MLX5_SND_DBR] of the RQ's record block, so that
 * one 2-word record serves the QP as mlx5dv_qp.dbrec expects. Call right
 * after both inits (before posting). Without an RQ (SRQ-attached QP) the
 * SQ keeps its own block, whose [MLX5_SND_DBR] word it already uses.
 * @return the record block to publish as mlx5dv_qp.dbrec
 */
__be32 *dpv_mlx5_qp_link_dbrec(struct dpv_mlx5_sq *sq, struct dpv_mlx5_rq *rq);

/**
 * Create a completion queue of cqe_cnt = power of two >= min_cqe + 1
 * entries, all invalid (opcode MLX5_CQE_INVALID), in DPDK memory;
 * cq->cqe = cqe_cnt - 1 is the capacity to report.
 * @return 0; EINVAL (min_cqe 0 or >= DPV_MLX5_MAX_CQE); ENOMEM.
 */
int dpv_mlx5_cq_init(struct dpv_mlx5_cq *cq, unsigned int min_cqe, int socket);

/**
 * dpv_mlx5_cq_init() with a choice of entry size: 64 bytes (exactly
 * dpv_mlx5_cq_init()) or 128 bytes, each a struct mlx5_cqe64 in its second
 * half, with the operations table dpv_mlx5_cqe128_ring_ops. The first
 * half of an entry is written only with pad (zeroes: the whole entry is
 * written, as ConnectX pads CQEs to 128 bytes).
 * @param cq       zeroed or uninitialised structure
 * @param min_cqe  as for dpv_mlx5_cq_init()
 * @param socket   NUMA socket or SOCKET_ID_ANY
 * @param cqe_size 64 or 128
 * @param pad      pad CQEs to their 128 bytes (cqe_size 128 only)
 * @return 0; EINVAL (min_cqe out of range, cqe_size neither 64 nor 128,
 *   pad with cqe_size 64); ENOMEM.
 */
int dpv_mlx5_cq_init_sz(struct dpv_mlx5_cq *cq, unsigned int min_cqe,
			int socket, unsigned int cqe_size, bool pad);

/**
 * Make a new CQ (mlx5 format, 64- or 128-byte CQEs, nothing pushed yet)
 * write compressed sessions: its table becomes dpv_mlx5_cqcomp_ring_ops
 * or dpv_mlx5_cqcomp128_ring_ops. Policy: successful receive CQEs of an
 * RQ (not an SRQ) without immediate data, scatter to CQE or the solicited
 * bit, of one QP, with consecutive WQE counters and otherwise equal
 * fields (time stamps aside: the title's stands for all, as on
 * ConnectX), pushed one after the other, are held by the engine and
 * written as one session (a single held CQE as a plain CQE) when another
 * CQE is pushed, when DPV_MLX5_CQE_COMP_MAX are held, or at
 * dpv_mlx5_cq_comp_commit() (the engine commits at the end of each poll
 * and before it unlocks). The CQ cannot be resized.
 * @param cq  an initialised CQ
 * @param fmt one of MLX5DV_CQE_RES_FORMAT_HASH, _CSUM, _CSUM_STRIDX
 * @return 0; EINVAL (fmt not exactly one format, not an mlx5 CQ);
 *   ENOMEM.
 */
int dpv_mlx5_cq_compress(struct dpv_mlx5_cq *cq, unsigned int fmt);

/**
 * Engine: write the CQEs a compressed CQ holds (one session, or a plain
 * CQE for one). Nothing on other CQs.
 * @return true if CQEs were written
 */
bool dpv_mlx5_cq_comp_commit(struct dpv_mlx5_cq *cq);

/** Free a CQ (safe on a zeroed or already freed structure). */
void dpv_mlx5_cq_fini(struct dpv_mlx5_cq *cq);

/** A CQ ring prepared by dpv_mlx5_cq_resize_prepare(). */
struct dpv_mlx5_cq_resize {
	/** new ring; after a commit, the old one (an mlx4 CQ's ring holds
	 *  32-byte CQEs) */
	struct mlx5_cqe64 *buf;
	uint32_t cqe_cnt;	/**< its number of entries */
	uint32_t min_cqe;	/**< the size asked for */
};

/**
 * Resize, step 1 (no lock needed): allocate a ring of cqe_cnt = power of
 * two >= min_cqe + 1 entries, all invalid.
 * @param cq      the CQ (for its NUMA socket)
 * @param min_cqe 1..DPV_MLX5_MAX_CQE - 1
 * @param r       output; release it with dpv_mlx5_cq_resize_release()
 * @return 0; EINVAL min_cqe out of range; ENOMEM.
 */
int dpv_mlx5_cq_resize_prepare(const struct dpv_mlx5_cq *cq,
			       unsigned int min_cqe,
			       struct dpv_mlx5_cq_resize *r);

/**
 * Resize, step 2: move the CQEs not yet consumed (from the consumer index
 * in dbrec[0] to the engine's producer index) into the new ring, in order,
 * each in the slot of its unchanged 32-bit index with the owner bit of
 * the new lap, and make the new ring current (cq->buf, cqe_cnt, cqe =
 * cqe_cnt - 1). Consumer and producer indexes, the arm state and the
 * doorbell record are kept, so pending arm requests stay valid. Call with
 * no poller on the CQ and the engine not pushing to it (engine lock held),
 * and preferably after dpv_mlx5_cq_should_notify() so that an armed
 * request has seen every CQE. mlx5dv users must fetch the new buffer
 * (mlx5dv_init_obj) afterwards.
 * @param cq the CQ
 * @param r  from dpv_mlx5_cq_resize_prepare(); on success it then holds
 *           the old ring, to release after the locks are dropped
 * @return 0; EINVAL if more CQEs are pending than r->min_cqe (nothing
 *   changed).
 */
int dpv_mlx5_cq_resize_commit(struct dpv_mlx5_cq *cq,
			      struct dpv_mlx5_cq_resize *r);

/** Resize, step 3: free the ring left in r (safe if empty). */
void dpv_mlx5_cq_resize_release(struct dpv_mlx5_cq_resize *r);
/** @} */

/**
 * Fill the ring part of struct mlx5dv_qp (mlx5dv_init_obj): dbrec, sq/rq
 * buf, wqe_cnt, stride, and bf.reg = an 8-byte doorbell scratch area with
 * bf.size = 0 (no BlueFlame: the engine reads the doorbell records).
 * comp_mask, uar_mmap_offset, tirn/tisn/rqn/sqn are left to the caller.
 * @param sq  the QP's SQ, or NULL
 * @param rq  the QP's RQ, or NULL (SRQ-attached or XRC)
 * @param out output
 */
void dpv_mlx5_qp_to_dv(const struct dpv_mlx5_sq *sq,
		       const struct dpv_mlx5_rq *rq, struct mlx5dv_qp *out);

/** Fill buf, dbrec, cqe_cnt, cqe_size (64 or 128), cq_uar and cqn of a
 *  struct mlx5dv_cq; comp_mask is left to the caller. */
void dpv_mlx5_cq_to_dv(const struct dpv_mlx5_cq *cq, struct mlx5dv_cq *out);

/** Fill buf, dbrec, stride, head and tail of a struct mlx5dv_srq (srqn and
 *  comp_mask are the caller's). */
void dpv_mlx5_srq_to_dv(const struct dpv_mlx5_rq *rq, struct mlx5dv_srq *out);

/* ------------------------------------------------------------------ */
/** @name Application side
 * @{ */

/**
 * Post a list of send WRs (ibv_post_send semantics): WRs before the
 * failing one are posted, the doorbell is rung once.
 * @param sq   the send queue
 * @param type QP type: IBV_QPT_RC, UC, UD, XRC_SEND or RAW_PACKET
 * @param qpn  QP number written in the control segments
 * @param wr   list; UD WRs need wr.ud.ah pointing into a struct dpv_mlx5_ah
 * @param bad  set to the failing WR on error
 * @return 0; ENOMEM queue full; EOPNOTSUPP a bind longer than 2 GiB;
 *   EINVAL opcode not valid for the QP type, too many SGEs, inline data
 *   larger than max_inline, unknown send flag, missing AH, raw packet
 *   shorter than the Ethernet header, atomic with more than one SGE,
 *   IBV_WR_TSO (raw packet only) with hdr_sz outside 18..max_tso_header,
 *   no header or a payload above DPV_MLX5_MAX_TSO.
 */
int dpv_mlx5_post_send(struct dpv_mlx5_sq *sq, enum ibv_qp_type type,
		       uint32_t qpn, struct ibv_send_wr *wr,
		       struct ibv_send_wr **bad);

/**
 * Post receive WRs to an RQ or SRQ (zero-length SGEs are skipped).
 * @return 0; ENOMEM full; EINVAL too many SGEs or num_sge < 0.
 */
int dpv_mlx5_post_recv(struct dpv_mlx5_rq *rq, struct ibv_recv_wr *wr,
		       struct ibv_recv_wr **bad);

/**
 * Lookup callback of the poll functions: the work queue a CQE belongs to.
 * @param arg  caller's cookie
 * @param qpn  QP number; when recv is true and the CQE came from an SRQ,
 *             first DPV_MLX5_LOOKUP_SRQ | srqn (return NULL if SRQ numbers
 *             are not known: the QP number is tried next, and the lookup
 *             then returns the QP's SRQ)
 * @param recv true for receive completions (return the RQ or SRQ)
 * @return the wq (&sq->wq or &rq->wq), NULL if unknown
 */
typedef struct dpv_mlx5_wq *(*dpv_mlx5_wq_lookup_t)(void *arg, uint32_t qpn,
						    bool recv);
/** Flag in the qpn argument of the lookup: the number is an SRQ number. */
#define DPV_MLX5_LOOKUP_SRQ (1u << 31)

/**
 * Poll up to n completions (ibv_poll_cq semantics): CQEs are read by
 * owner bit, wr_id comes from the work queue's wrid[], SQ/RQ tails
 * advance, SRQ WQEs return to the free list, and the consumer index
 * is written to dbrec[0].
 * @return number of completions (0..n); -EINVAL if n < 0; -EIO if the
 *   first CQE names an unknown queue (it is consumed).
 */
int dpv_mlx5_cq_poll(struct dpv_mlx5_cq *cq, int n, struct ibv_wc *wc,
		     dpv_mlx5_wq_lookup_t lookup, void *arg);

/**
 * ibv_cq_ex support: consume the next CQE into cq->cur_wc (the readers
 * below read it). Use for start_poll (after checking attr->comp_mask)
 * and next_poll; the verbs layer copies *wr_id and *status into the
 * struct ibv_cq_ex.
 * @return 0; ENOENT when the CQ is empty; EIO unknown queue (consumed).
 */
int dpv_mlx5_cq_ex_next(struct dpv_mlx5_cq *cq, dpv_mlx5_wq_lookup_t lookup,
			void *arg, uint64_t *wr_id, enum ibv_wc_status *status);

/** ibv_cq_ex end_poll: publish the consumer index in dbrec[0]. */
void dpv_mlx5_cq_ex_end(struct dpv_mlx5_cq *cq);

/** @name ibv_cq_ex readers of the current completion
 * @{ */
static inline enum ibv_wc_opcode
dpv_mlx5_cq_read_opcode(const struct dpv_mlx5_cq *cq)
{
	return cq->cur_wc.opcode;
}
static inline uint32_t
dpv_mlx5_cq_read_vendor_err(const struct dpv_mlx5_cq *cq)
{
	return cq->cur_wc.vendor_err;
}
static inline uint32_t
dpv_mlx5_cq_read_byte_len(const struct dpv_mlx5_cq *cq)
{
	return cq->cur_wc.byte_len;
}
static inline __be32
dpv_mlx5_cq_read_imm_data(const struct dpv_mlx5_cq *cq)
{
	return cq->cur_wc.imm_data;
}
static inline uint32_t
dpv_mlx5_cq_read_invalidated_rkey(const struct dpv_mlx5_cq *cq)
{
	return cq->cur_wc.invalidated_rkey;
}
static inline uint32_t
dpv_mlx5_cq_read_qp_num(const struct dpv_mlx5_cq *cq)
{
	return cq->cur_wc.qp_num;
}
static inline uint32_t
dpv_mlx5_cq_read_src_qp(const struct dpv_mlx5_cq *cq)
{
	return cq->cur_wc.src_qp;
}
static inline unsigned int
dpv_mlx5_cq_read_wc_flags(const struct dpv_mlx5_cq *cq)
{
	return cq->cur_wc.wc_flags;
}
static inline uint32_t
dpv_mlx5_cq_read_slid(const struct dpv_mlx5_cq *cq)
{
	return cq->cur_wc.slid;
}
static inline uint8_t
dpv_mlx5_cq_read_sl(const struct dpv_mlx5_cq *cq)
{
	return cq->cur_wc.sl;
}
static inline uint8_t
dpv_mlx5_cq_read_dlid_path_bits(const struct dpv_mlx5_cq *cq)
{
	return cq->cur_wc.dlid_path_bits;
}
static inline uint64_t
dpv_mlx5_cq_read_completion_ts(const struct dpv_mlx5_cq *cq)
{
	return cq->cur_ts;
}
static inline uint16_t
dpv_mlx5_cq_read_cvlan(const struct dpv_mlx5_cq *cq)
{
	return cq->cur_vlan;
}
/** @} */

/**
 * Request a completion event (ibv_req_notify_cq): writes
 * dbrec[1] = be32(arm_sn << 28 | cmd | ci) as mlx5 does, the doorbell
 * {arm word, cq->cqn} at cq->uar + MLX5_CQ_DOORBELL, then signals the
 * engine (release ordering). Set cq->cqn after dpv_mlx5_cq_init().
 * @param solicited_only non-zero: only solicited or error completions
 * @return 0
 */
int dpv_mlx5_cq_arm(struct dpv_mlx5_cq *cq, int solicited_only);

/** The application received an event for this CQ: advance arm_sn. */
void dpv_mlx5_cq_event(struct dpv_mlx5_cq *cq);

/**
 * Completion event moderation (ibv_modify_cq IBV_CQ_ATTR_MODERATE), for
 * the arms made from now on: an armed CQ's event is raised once count
 * CQEs that the arm counts are written, or period_us microseconds after
 * the first of them, whichever comes first. A count below 2 or a period of 0
 * turns moderation off (the first such CQE raises the event). Any thread;
 * the engine takes the values when it sees the next arm.
 * @param count CQEs per event
 * @param period_us microseconds from the first CQE to the event
 */
void dpv_mlx5_cq_moderate(struct dpv_mlx5_cq *cq, uint16_t count,
			  uint16_t period_us);
/** @} */

/* ------------------------------------------------------------------ */
/** @name ibv_qp_ex builder (wr_start ... wr_complete / wr_abort)
 *
 * The verbs layer maps each ibv_qp_ex function onto these. An opcode
 * function (wr_send, wr_rdma_write, ...) calls dpv_mlx5_wr_op() and then
 * the matching setter (dpv_mlx5_wr_rdma, _atomic, _imm, _inv, _bind_mw,
 * _local_inv); wr_set_ud_addr / wr_set_xrc_srqn / wr_set_sge* /
 * wr_set_inline_data* call the setters below in any order. A WQE is
 * closed when the next one starts or at dpv_mlx5_wr_complete(). The first
 * error is kept: dpv_mlx5_wr_complete() then returns it and posts nothing.
 * @{ */
void dpv_mlx5_wr_start(struct dpv_mlx5_sq *sq, enum ibv_qp_type type,
		       uint32_t qpn);
/** Start a WQE. @return 0, or the error also recorded for complete
 *  (ENOMEM full, EINVAL bad opcode/flags for the QP type). */
int dpv_mlx5_wr_op(struct dpv_mlx5_sq *sq, uint64_t wr_id,
		   unsigned int send_flags, enum ibv_wr_opcode op);
void dpv_mlx5_wr_rdma(struct dpv_mlx5_sq *sq, uint32_t rkey, uint64_t raddr);
void dpv_mlx5_wr_atomic(struct dpv_mlx5_sq *sq, uint32_t rkey, uint64_t raddr,
			uint64_t compare_add, uint64_t swap);
/** IBV_WR_ATOMIC_WRITE (ibv_wr_atomic_write): the remote address and the
 *  8 bytes at val, copied into the WQE (an atomic segment whose swap_add
 *  holds them as they are; WQE opcode DPV_MLX5_OPCODE_ATOMIC_WRITE). */
void dpv_mlx5_wr_atomic_write(struct dpv_mlx5_sq *sq, uint32_t rkey,
			      uint64_t raddr, const void *val);
void dpv_mlx5_wr_imm(struct dpv_mlx5_sq *sq, __be32 imm_data);
void dpv_mlx5_wr_inv(struct dpv_mlx5_sq *sq, uint32_t invalidate_rkey);
void dpv_mlx5_wr_ud_addr(struct dpv_mlx5_sq *sq, struct ibv_ah *ah,
			 uint32_t remote_qpn, uint32_t remote_qkey);
void dpv_mlx5_wr_xrc_srqn(struct dpv_mlx5_sq *sq, uint32_t remote_srqn);
/** DCI (an SQ bound to IBV_QPT_DRIVER): the datagram segment every
 *  non-UMR WQE carries, the AV of ah with the DCT number and its access
 *  key (mlx5dv_wr_set_dc_addr). Records EINVAL on another SQ type. */
void dpv_mlx5_wr_dc_addr(struct dpv_mlx5_sq *sq, struct ibv_ah *ah,
			 uint32_t remote_dctn, uint64_t remote_dc_key);
/**
 * mlx5dv_wr_set_dc_addr_stream: dpv_mlx5_wr_dc_addr() and the WQE's DCI
 * stream (the control segment's dci_stream_channel_id; 0 otherwise).
 */
void dpv_mlx5_wr_dc_addr_stream(struct dpv_mlx5_sq *sq, struct ibv_ah *ah,
				uint32_t remote_dctn, uint64_t remote_dc_key,
				uint16_t stream_id);
/** Bind: mw_rkey is the window's current rkey, new_rkey the one after. */
void dpv_mlx5_wr_bind_mw(struct dpv_mlx5_sq *sq, uint32_t mw_rkey,
			 uint32_t new_rkey, enum ibv_mw_type mw_type,
			 const struct ibv_mw_bind_info *info);
void dpv_mlx5_wr_local_inv(struct dpv_mlx5_sq *sq, uint32_t invalidate_rkey);
/**
 * mlx5dv_wr_raw_wqe: copy the application's WQE (control segment and
 * ds - 1 more 16-byte segments, ds from its qpn_ds) to the ring as it is,
 * with only the WQE index of opmod_idx_opcode set. The engine decodes it
 * like any other WQE (an opcode or layout it does not know completes
 * with IBV_WC_LOC_QP_OP_ERR); its completion opcode is IBV_WC_DRIVER2
 * (MLX5DV_WC_RAW_WQE), signalled or not as its fm_ce_se says. Records
 * EINVAL for ds 0 and ENOMEM for a full ring.
 */
void dpv_mlx5_wr_raw(struct dpv_mlx5_sq *sq, uint64_t wr_id, const void *wqe);
/**
 * Indirect key configuration (mlx5dv_wr_mr_list / mlx5dv_wr_mr_interleaved)
 * for a WQE opened with opcode IBV_WR_DRIVER1: a UMR WQE carrying the
 * layout, completed with opcode MLX5DV_WC_UMR. Exactly one of sge (a list
 * of num entries) and il (num interleaved entries repeated repeat times)
 * is given. Records EINVAL for bad arguments (access flags other than
 * LOCAL_WRITE / REMOTE_*, no entries, an interleaved entry of more than
 * 65535 bytes or stride, repeat 0), ENOMEM for more than max_entries
 * entries (as rdma-core's provider) or a full ring.
 */
void dpv_mlx5_wr_mkey(struct dpv_mlx5_sq *sq, uint32_t mkey,
		      uint32_t max_entries, unsigned int access,
		      uint32_t repeat, uint16_t num, const struct ibv_sge *sge,
		      const struct mlx5dv_mr_interleaved *il);
/**
 * mlx5dv_wr_mkey_configure for a WQE opened with opcode IBV_WR_DRIVER1:
 * the UMR WQE's control and key context segments, to be completed by
 * exactly num_setters calls of dpv_mlx5_wr_mkey_access() /
 * dpv_mlx5_wr_mkey_layout() (each at most once) before the WQE closes;
 * a WQE closed with setters missing, or a setter too many, records
 * EINVAL. reconf: the WQE configures the key whatever its state (the
 * mkey mask's FREE bit); otherwise only a key not configured
 * (mlx5dv_wr_mr_list / _interleaved, which are this with both setters).
 */
void dpv_mlx5_wr_mkey_begin(struct dpv_mlx5_sq *sq, uint32_t mkey,
			    bool reconf, uint8_t num_setters);
/**
 * mlx5dv_wr_set_mkey_access_flags: what the key grants (LOCAL_WRITE,
 * REMOTE_READ / _WRITE / _ATOMIC, else EINVAL; EINVAL when set twice).
 */
void dpv_mlx5_wr_mkey_access(struct dpv_mlx5_sq *sq, unsigned int access);
/**
 * mlx5dv_wr_set_mkey_sig_block (a setter: EINVAL when set twice), or
 * with reset the configure flag MLX5DV_MKEY_CONF_FLAG_RESET_SIG_ATTR (no
 * setter): the WQE applies the key's staged signature attributes
 * (DPV_UMR_SET_SIG once decoded).
 */
void dpv_mlx5_wr_mkey_sig(struct dpv_mlx5_sq *sq, bool reset);
/**
 * mlx5dv_wr_set_mkey_layout_list (sge) / _interleaved (il, repeat): the
 * key's layout (EINVAL: no entries, repeat 0, set twice; ENOMEM: more
 * than max_entries entries, or more than the WQE holds).
 */
void dpv_mlx5_wr_mkey_layout(struct dpv_mlx5_sq *sq, uint32_t max_entries,
			     uint32_t repeat, uint16_t num,
			     const struct ibv_sge *sge,
			     const struct mlx5dv_mr_interleaved *il);
/**
 * TSO (after dpv_mlx5_wr_op(..., IBV_WR_TSO) on a raw-packet SQ): the
 * header template goes inline into the Ethernet segment
 * (inline_hdr_sz = hdr_sz, continuing past inline_hdr in 16-byte units,
 * as ConnectX reads it) with the MSS; the payload follows as SGEs or
 * inline data. Errors (hdr NULL, hdr_sz outside 18..max_tso_header, mss 0)
 * are recorded: EINVAL.
 */
void dpv_mlx5_wr_tso(struct dpv_mlx5_sq *sq, const void *hdr, uint16_t hdr_sz,
		     uint16_t mss);
void dpv_mlx5_wr_sge_list(struct dpv_mlx5_sq *sq, size_t num_sge,
			  const struct ibv_sge *sg_list);
void dpv_mlx5_wr_inline_list(struct dpv_mlx5_sq *sq, size_t num_buf,
			     const struct ibv_data_buf *buf_list);
/** Close the last WQE, ring the doorbell. @return 0 or the recorded
 *  error (nothing posted then). */
int dpv_mlx5_wr_complete(struct dpv_mlx5_sq *sq);
/** Drop everything built since wr_start. */
void dpv_mlx5_wr_abort(struct dpv_mlx5_sq *sq);
/** @} */

/* ------------------------------------------------------------------ */
/** @name Engine side
 * @{ */

/**
 * Whether a doorbell announced WQEs the engine has not fetched yet (SQ,
 * RQ or SRQ of the mlx5 format): one relaxed load of the doorbell record,
 * no ordering. For the engine's "does this queue have work" scan (the
 * format-neutral entry is dpv_ring_wq_posted()).
 */
static inline bool
dpv_mlx5_wq_posted(const struct dpv_mlx5_wq *wq)
{
	uint32_t db = __atomic_load_n((const uint32_t *)wq->db,
				      __ATOMIC_RELAXED);

	return (uint16_t)be32toh(db) != (uint16_t)wq->eng_pi;
}

/**
 * Receive WQEs posted to an RQ (not an SRQ) and not fetched by the engine
 * yet: one relaxed load of the doorbell record. A WQE posted concurrently
 * may be missed, never counted early. For the credit count of ACKs.
 * @param rq the receive queue
 * @return the number of WQEs, 0..65535
 */
static inline uint32_t
dpv_mlx5_rq_ready(const struct dpv_mlx5_rq *rq)
{
	uint32_t db = __atomic_load_n((const uint32_t *)rq->wq.db,
				      __ATOMIC_RELAXED);

	return (uint16_t)((uint16_t)be32toh(db) - (uint16_t)rq->wq.eng_pi);
}

/**
 * Zeroed memory for rings and per-QP state, 64-byte aligned. It comes from
 * the process (large blocks are mapped on their own and unmapped by
 * dpv_mlx5_mem_free), not from the DPDK heap, so that the number of QPs is
 * not bounded by EAL's -m and destroyed QPs give their memory back.
 * @return the block, or NULL (out of memory, or size 0).
 */
void *dpv_mlx5_mem_zalloc(size_t size);

/**
 * The calling thread's next dpv_mlx5_mem_zalloc() blocks come from the
 * application's allocator (mlx4dv_set_context_attr with
 * MLX4DV_SET_CTX_ATTR_BUF_ALLOCATORS) until called again with NULLs; each
 * such block goes back through free_fn when freed. The allocator must
 * return 64-byte aligned memory (else the allocation fails).
 *
 * @param alloc the application's allocator, NULL for ours
 * @param free_fn its free
 * @param data passed to both
 */
void dpv_mlx5_mem_extern_set(void *(*alloc)(size_t size, void *data),
			     void (*free_fn)(void *ptr, void *data),
			     void *data);

/** Arenas of dpv_mlx5_mem_zalloc() (dpv_mlx5_mem_arena_set()). */
#define DPV_MLX5_MEM_ARENAS 16

/**
 * The calling thread's next dpv_mlx5_mem_zalloc() blocks below 64 KiB
 * come from arena (modulo DPV_MLX5_MEM_ARENAS; 0 until set): chunks of
 * its own, so that they share no page with another arena's blocks. The
 * state that one engine shard's lcore writes goes in an arena of its
 * own: hot lines of two cores in one page slow both.
 *
 * @param arena the arena (the engine shard)
 * @return the arena this thread used before
 */
unsigned int dpv_mlx5_mem_arena_set(unsigned int arena);

/** Free a block of dpv_mlx5_mem_zalloc() (NULL: nothing). */
void dpv_mlx5_mem_free(void *ptr);

/** Bytes of dpv_mlx5_mem_zalloc() blocks now allocated, in this process. */
uint64_t dpv_mlx5_mem_in_use(void);

/**
 * Decode the next posted send WQE (acquire on the doorbell record).
 * At most sq->wq.max_gs data segments are written to out->sg_list (the
 * caller may keep only that many); a WQE with more is malformed.
 * @return true and *out filled; false if nothing new is posted.
 *   A WQE that cannot be decoded is returned with DPV_WR_F_MALFORMED.
 */
bool dpv_mlx5_sq_fetch(struct dpv_mlx5_sq *sq, struct dpv_wr *out);

/**
 * The layout entries of a decoded indirect key configuration (opcode
 * IBV_WR_DRIVER1), read from the ring (the WQE must not be retired yet).
 * @param sq  the send queue
 * @param w   the decoded WQE (w->umr.num entries, at most DPV_WR_MAX_KLM)
 * @param out w->umr.num entries
 * @return true; false if w is not such a WQE.
 */
bool dpv_mlx5_sq_umr_klm(const struct dpv_mlx5_sq *sq, const struct dpv_wr *w,
			 struct dpv_klm *out);

/** The engine finished a fetched WQE (in order); flush skips it. */
void dpv_mlx5_sq_retire(struct dpv_mlx5_sq *sq, const struct dpv_wr *wr);

/**
 * Decode the next posted receive WQE of an RQ or SRQ.
 * @return true and *out filled; false if none is posted.
 */
bool dpv_mlx5_rq_fetch(struct dpv_mlx5_rq *rq, struct dpv_recv_wr *out);

/**
 * dpv_mlx5_rq_fetch() for the engine: an SRQ that QPs of several engine
 * shards take from (rq->eng_shared) is taken under its eng_lock.
 */
static inline bool
dpv_mlx5_rq_fetch_eng(struct dpv_mlx5_rq *rq, struct dpv_recv_wr *out)
{
	bool r;

	/* a plain RQ's flag is never set: not read (it sits on a line the
	 * fetch does not otherwise touch) */
	if (likely(rq->wq.kind != DPV_MLX5_WQ_SRQ || !rq->eng_shared))
		return dpv_mlx5_rq_fetch(rq, out);
	rte_spinlock_lock(&rq->eng_lock);
	r = dpv_mlx5_rq_fetch(rq, out);
	rte_spinlock_unlock(&rq->eng_lock);
	return r;
}

/** The engine completed a fetched receive WQE (RQ, in order). */
void dpv_mlx5_rq_retire(struct dpv_mlx5_rq *rq, const struct dpv_recv_wr *rwr);

/**
 * Write one CQE (success: MLX5_CQE_REQ / MLX5_CQE_RESP_*; error:
 * struct mlx5_err_cqe with the syndrome of ci->status, MLX5_CQE_REQ_ERR
 * or MLX5_CQE_RESP_ERR), owner bit of the current lap, op_own last.
 * Statuses without an mlx5 syndrome are encoded as syndrome 0xff and
 * read back as IBV_WC_GENERAL_ERR, as on the hardware.
 * @return 0; ENOSPC if the CQ is full (overrun, nothing written).
 */
int dpv_mlx5_cq_push(struct dpv_mlx5_cq *cq, const struct dpv_cqe_info *ci);

/**
 * Engine: dpv_mlx5_cq_push() of a send completion without error, its
 * fields given one by one (no struct dpv_cqe_info to fill and read back).
 * Only for a CQ for which dpv_ring_cq_plain() holds.
 * @return 0; ENOSPC if the CQ is full (overrun, nothing written).
 */
int dpv_mlx5_cq_push_req(struct dpv_mlx5_cq *cq, uint32_t qpn,
			 uint16_t wqe_counter, enum ibv_wc_opcode opcode,
			 unsigned int wc_flags, uint32_t byte_len);

/**
 * Engine: dpv_mlx5_cq_push() of a receive completion without error
 * (IBV_WC_RECV or IBV_WC_RECV_RDMA_WITH_IMM; wc_flags of IBV_WC_WITH_IMM,
 * IBV_WC_WITH_INV and IBV_WC_GRH only; imm the immediate as it came, or
 * the invalidated key; SL, SLID, path bits and P_Key index 0). Only for a
 * CQ for which dpv_ring_cq_plain() holds.
 * @return 0; ENOSPC if the CQ is full (overrun, nothing written).
 */
int dpv_mlx5_cq_push_recv(struct dpv_mlx5_cq *cq, uint32_t qpn,
			  uint16_t wqe_counter, enum ibv_wc_opcode opcode,
			  unsigned int wc_flags, uint32_t byte_len,
			  uint32_t imm, uint32_t src_qp, uint32_t srqn,
			  bool solicited);

/**
 * Engine: should a completion event be raised now? Considers the latest
 * arm request (next or solicited-only) and every CQE written at or after
 * the consumer index the arm named (so an arm made while CQEs were already
 * waiting fires too). Call after pushing CQEs and from the progress loop.
 * Returns true at most once per arm request (the CQ is disarmed). With
 * moderation (dpv_mlx5_cq_moderate()) the arm fires on its count-th CQE
 * or, once its period has passed since the first, at the next call: while
 * eng_mod_run is set the caller must call again by eng_mod_due.
 * Arms made by dpv_mlx5_cq_arm() and arm doorbells written by mlx5dv
 * code at uar + MLX5_CQ_DOORBELL are both seen. Engine-side state: call
 * it from one thread at a time (the one that pushes to this CQ).
 */
bool dpv_mlx5_cq_should_notify(struct dpv_mlx5_cq *cq);

/**
 * Remove from a CQ every CQE of one QP that was not polled yet, as mlx5
 * does when a QP goes to RESET or is destroyed: the remaining CQEs keep
 * their order and move towards the producer end (owner bits rewritten
 * for their new slots), the consumer index advances by the number
 * removed and is published in dbrec[0]. The engine's producer index is
 * unchanged. Receive CQEs of an SRQ-attached QP give their SRQ WQE back
 * to the SRQ's free list. Call with no poller on the CQ and the engine
 * not pushing to it (the engine lock held).
 * @param cq  the QP's send or receive CQ
 * @param qpn QP number (24 bits)
 * @param srq the QP's SRQ (for its receive CQ), or NULL
 * @return number of CQEs removed
 */
unsigned int dpv_mlx5_cq_clean(struct dpv_mlx5_cq *cq, uint32_t qpn,
			       struct dpv_mlx5_rq *srq);

/**
 * Complete every outstanding WQE of a queue with IBV_WC_WR_FLUSH_ERR:
 * SQ: every WQE not retired (fetched or not); RQ: every WQE not retired.
 * SRQ: nothing (its WQEs belong to other QPs too). The queue is then
 * empty for the engine.
 * @param wq  &sq->wq or &rq->wq
 * @param cq  CQ to write the CQEs to
 * @param qpn QP number of the CQEs
 * @return number of CQEs written (stops early if the CQ is full)
 */
unsigned int dpv_mlx5_flush(struct dpv_mlx5_wq *wq, struct dpv_mlx5_cq *cq,
			    uint32_t qpn);
/** @} */

/* ------------------------------------------------------------------ */
/** @name Ring formats: the operations table
 *
 * A device's rings all have one byte format, chosen when the device is
 * set up (configuration key "rings": mlx5, the default, or mlx4). Each
 * format has a const table of the operations that depend on its bytes;
 * every ring (SQ, RQ/SRQ, CQ) points at its format's table from its init
 * function on (dpv_mlx5_*_init() or dpv_mlx4_*_init()), and the verbs
 * front end and the engine call the ring through the dpv_ring_*()
 * functions below, which dispatch through that pointer. The bookkeeping
 * (struct dpv_mlx5_wq / dpv_mlx5_cq and the functions that only touch it:
 * clamp, bind, retire, RQ fetch, arm, fini) is the same for every format.
 * @{ */

/** Operations of one ring byte format. */
struct dpv_ring_ops {
	/** name of the format ("mlx5", "mlx4"), as in the "rings" key */
	const char *name;
	/** DPV_RING_CAP_* flags: what the format can carry */
	uint32_t caps;
	/** a QP number bit that every XRC target QP's number has and no
	 *  other QP's (mlx4: MLX4_XRC_QPN_BIT, by which a ConnectX-3 receive
	 *  CQE names an XRC SRQ instead of a QP); 0: none */
	uint32_t xrc_qpn_bit;

	/* ---- set-up: each stamps the ring with this table ---- */
	/** create an SQ (max_tso_header: 0, or the raw-packet TSO header
	 *  room; a format without DPV_RING_CAP_WR_EX ignores it) */
	int (*sq_init)(struct dpv_mlx5_sq *sq, unsigned int max_wr,
		       unsigned int max_sge, unsigned int max_inline,
		       unsigned int max_tso_header, int socket);
	/** create a QP's receive queue */
	int (*rq_init)(struct dpv_mlx5_rq *rq, unsigned int max_wr,
		       unsigned int max_sge, int socket);
	/** create a shared receive queue */
	int (*srq_init)(struct dpv_mlx5_rq *rq, unsigned int max_wr,
			unsigned int max_sge, int socket);
	/** create a CQ */
	int (*cq_init)(struct dpv_mlx5_cq *cq, unsigned int min_cqe,
		       int socket);
	/** ibv_resize_cq, step 1 (dpv_mlx5_cq_resize_prepare() semantics;
	 *  NULL in a format without DPV_RING_CAP_CQ_RESIZE) */
	int (*cq_resize_prepare)(const struct dpv_mlx5_cq *cq,
				 unsigned int min_cqe,
				 struct dpv_mlx5_cq_resize *r);
	/** ibv_resize_cq, step 2 (dpv_mlx5_cq_resize_commit() semantics);
	 *  step 3 is dpv_mlx5_cq_resize_release() in every format */
	int (*cq_resize_commit)(struct dpv_mlx5_cq *cq,
				struct dpv_mlx5_cq_resize *r);
	/** after a QP's SQ and RQ are created and linked: lay them out as
	 *  the format's direct-verbs view expects (NULL: nothing to do);
	 *  0 or ENOMEM (the rings are left as they were) */
	int (*qp_join)(struct dpv_mlx5_sq *sq, struct dpv_mlx5_rq *rq);

	/* ---- application side ---- */
	/** ibv_post_send (dpv_mlx5_post_send() semantics) */
	int (*post_send)(struct dpv_mlx5_sq *sq, enum ibv_qp_type type,
			 uint32_t qpn, struct ibv_send_wr *wr,
			 struct ibv_send_wr **bad);
	/** ibv_post_recv / ibv_post_srq_recv (RQ or SRQ) */
	int (*post_recv)(struct dpv_mlx5_rq *rq, struct ibv_recv_wr *wr,
			 struct ibv_recv_wr **bad);
	/** ibv_poll_cq (dpv_mlx5_cq_poll() semantics) */
	int (*cq_poll)(struct dpv_mlx5_cq *cq, int n, struct ibv_wc *wc,
		       dpv_mlx5_wq_lookup_t lookup, void *arg);
	/** ibv_cq_ex start_poll / next_poll (dpv_mlx5_cq_ex_next()) */
	int (*cq_ex_next)(struct dpv_mlx5_cq *cq, dpv_mlx5_wq_lookup_t lookup,
			  void *arg, uint64_t *wr_id,
			  enum ibv_wc_status *status);
	/** remove a QP's CQEs (dpv_mlx5_cq_clean() semantics) */
	unsigned int (*cq_clean)(struct dpv_mlx5_cq *cq, uint32_t qpn,
				 struct dpv_mlx5_rq *srq);

	/* ---- engine side ---- */
	/** whether the queue has WQEs the engine has not fetched (formats
	 *  whose SQ is not announced by the doorbell record) */
	bool (*wq_posted)(const struct dpv_mlx5_wq *wq);
	/** decode the next send WQE (dpv_mlx5_sq_fetch() semantics) */
	bool (*sq_fetch)(struct dpv_mlx5_sq *sq, struct dpv_wr *out);
	/** write one CQE (dpv_mlx5_cq_push() semantics) */
	int (*cq_push)(struct dpv_mlx5_cq *cq, const struct dpv_cqe_info *ci);
	/** should an armed CQ raise its event now (the solicited-only test
	 *  reads the format's CQEs; dpv_mlx5_cq_should_notify()) */
	bool (*cq_should_notify)(struct dpv_mlx5_cq *cq);
	/** complete a queue's outstanding WQEs with flush errors
	 *  (dpv_mlx5_flush() semantics) */
	unsigned int (*flush)(struct dpv_mlx5_wq *wq, struct dpv_mlx5_cq *cq,
			      uint32_t qpn);
};

/** Capabilities of a ring format (struct dpv_ring_ops.caps). */
enum {
	/** the ibv_wr_* builder, mlx5dv WQEs, DC and TSO (the mlx4
	 *  format has ibv_post_send only, as ConnectX-3's provider) */
	DPV_RING_CAP_WR_EX = 1u << 0,
	/** scatter to CQE (64-byte CQEs carry up to 32 data bytes) */
	DPV_RING_CAP_SCATTER_CQE = 1u << 1,
	/** ibv_resize_cq (cq_resize_prepare / cq_resize_commit) */
	DPV_RING_CAP_CQ_RESIZE = 1u << 2,
	/** XRC send and target QPs through post_send */
	DPV_RING_CAP_XRC = 1u << 3,
	/** raw-packet QPs through post_send (TSO needs DPV_RING_CAP_WR_EX) */
	DPV_RING_CAP_RAW = 1u << 4,
	/** receive WQs (rq_init rings, post_recv, flush), RWQ indirection
	 *  tables and RSS raw-packet QPs */
	DPV_RING_CAP_RSS = 1u << 5,
};

/** The mlx5 format (ConnectX-4 and later, <infiniband/mlx5dv.h>). */
extern const struct dpv_ring_ops dpv_mlx5_ring_ops;

/**
 * The mlx5 format's CQs of 128-byte CQEs (dpv_mlx5_cq_init_sz()): a CQ's
 * table only (its entries for CQs differ; those for queues are the mlx5
 * ones, never reached through a CQ). The 64-byte CQ code is untouched by
 * it: each CQ calls its own table's functions.
 */
extern const struct dpv_ring_ops dpv_mlx5_cqe128_ring_ops;

/** The mlx5 format's compressed CQs (dpv_mlx5_cq_compress()) of 64-byte
 *  CQEs: a CQ's table only, like dpv_mlx5_cqe128_ring_ops. */
extern const struct dpv_ring_ops dpv_mlx5_cqcomp_ring_ops;
/** Compressed CQs of 128-byte CQEs (the sessions in the struct
 *  mlx5_cqe64 halves). */
extern const struct dpv_ring_ops dpv_mlx5_cqcomp128_ring_ops;

/**
 * The engine's "does this queue have work" test of any format: the mlx5
 * doorbell compare inline, other formats through their table.
 */
static inline bool
dpv_ring_wq_posted(const struct dpv_mlx5_wq *wq)
{
	if (likely(wq->ops == &dpv_mlx5_ring_ops))
		return dpv_mlx5_wq_posted(wq);
	return wq->ops->wq_posted(wq);
}

/** ibv_post_send on a ring of any format. */
static inline int
dpv_ring_post_send(struct dpv_mlx5_sq *sq, enum ibv_qp_type type,
		   uint32_t qpn, struct ibv_send_wr *wr,
		   struct ibv_send_wr **bad)
{
	return sq->wq.ops->post_send(sq, type, qpn, wr, bad);
}

/** ibv_post_recv / ibv_post_srq_recv on a ring of any format. */
static inline int
dpv_ring_post_recv(struct dpv_mlx5_rq *rq, struct ibv_recv_wr *wr,
		   struct ibv_recv_wr **bad)
{
	return rq->wq.ops->post_recv(rq, wr, bad);
}

/** ibv_poll_cq on a CQ of any format. */
static inline int
dpv_ring_cq_poll(struct dpv_mlx5_cq *cq, int n, struct ibv_wc *wc,
		 dpv_mlx5_wq_lookup_t lookup, void *arg)
{
	return cq->ops->cq_poll(cq, n, wc, lookup, arg);
}

/**
 * Whether the CQE with this op_own byte, at index idx of a ring of cnt
 * entries, is software's: written in the current lap and not polled.
 */
static inline bool
dpv_mlx5_cqe_sw_owned(uint8_t oo, uint32_t idx, uint32_t cnt)
{
	return (oo >> 4) != MLX5_CQE_INVALID &&
	       (oo & MLX5_CQE_OWNER_MASK) == !!(idx & cnt);
}

/**
 * Application side: a completion waits at the consumer index. Known for
 * the 64-byte mlx5 format only (false for the others: poll to find out).
 * A hint: another thread polling the same CQ may take it first.
 */
static inline bool
dpv_ring_cq_ready(const struct dpv_mlx5_cq *cq)
{
	const struct mlx5_cqe64 *cqe;
	uint8_t oo;

	if (cq->ops != &dpv_mlx5_ring_ops)
		return false;
	cqe = &cq->buf[cq->cons_index & (cq->cqe_cnt - 1)];
	oo = __atomic_load_n(&cqe->op_own, __ATOMIC_RELAXED);
	return dpv_mlx5_cqe_sw_owned(oo, cq->cons_index, cq->cqe_cnt);
}

/** The 64-byte mlx5 format without CQE compression. */
static inline bool
dpv_ring_cq_plain(const struct dpv_mlx5_cq *cq)
{
	return cq->ops == &dpv_mlx5_ring_ops && cq->comp == NULL;
}

/**
 * Application side: no completion waits at the consumer index, known for
 * certain (the 64-byte mlx5 format without CQE compression; false where
 * it cannot tell). Needs no poll lock: a thread that polls the same CQ
 * meanwhile leaves the index on an entry it already took (which reads as
 * waiting) or on the next one (which reads as it is).
 */
static inline bool
dpv_ring_cq_known_empty(const struct dpv_mlx5_cq *cq)
{
	return dpv_ring_cq_plain(cq) && !dpv_ring_cq_ready(cq);
}

/** ibv_cq_ex start_poll / next_poll on a CQ of any format. */
static inline int
dpv_ring_cq_ex_next(struct dpv_mlx5_cq *cq, dpv_mlx5_wq_lookup_t lookup,
		    void *arg, uint64_t *wr_id, enum ibv_wc_status *status)
{
	return cq->ops->cq_ex_next(cq, lookup, arg, wr_id, status);
}

/** Remove a QP's CQEs from a CQ of any format. */
static inline unsigned int
dpv_ring_cq_clean(struct dpv_mlx5_cq *cq, uint32_t qpn,
		  struct dpv_mlx5_rq *srq)
{
	return cq->ops->cq_clean(cq, qpn, srq);
}

/** Engine: decode the next send WQE of an SQ of any format. */
static inline bool
dpv_ring_sq_fetch(struct dpv_mlx5_sq *sq, struct dpv_wr *out)
{
	return sq->wq.ops->sq_fetch(sq, out);
}

/** Engine: write one CQE to a CQ of any format. */
static inline int
dpv_ring_cq_push(struct dpv_mlx5_cq *cq, const struct dpv_cqe_info *ci)
{
	return cq->ops->cq_push(cq, ci);
}

/** Engine: should a CQ of any format raise its completion event now. */
static inline bool
dpv_ring_cq_should_notify(struct dpv_mlx5_cq *cq)
{
	return cq->ops->cq_should_notify(cq);
}

/** Flush a queue of any format into its CQ (of the same format). */
static inline unsigned int
dpv_ring_flush(struct dpv_mlx5_wq *wq, struct dpv_mlx5_cq *cq, uint32_t qpn)
{
	return wq->ops->flush(wq, cq, qpn);
}
/** @} */

#endif /* DPV_MLX5_RING_H */
