/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DPV_WR_H
#define DPV_WR_H

/**
 * @file
 * Neutral work-request and completion types exchanged between the ring
 * formats (drivers/rdma/mlx5, drivers/rdma/mlx4) and the engine.
 *
 * The engine never parses a hardware WQE or writes a hardware CQE itself:
 * a driver decodes the next posted send WQE into a struct dpv_wr and the
 * next receive WQE into a struct dpv_recv_wr, and encodes a struct
 * dpv_cqe_info into its CQE format. All integers are in host order except
 * where a field says "network order" (immediate data stays exactly as the
 * application gave it in struct ibv_send_wr / struct ibv_wc).
 */

#include <stdbool.h>
#include <stdint.h>
#include <infiniband/verbs.h>

/** Most scatter/gather entries a decoded WQE can carry. */
#define DPV_WR_MAX_SGE 32
/** Largest Ethernet header a raw-packet send WQE carries inline. */
#define DPV_WR_MAX_RAW_HDR 32

/** Flags of struct dpv_wr (field flags). */
enum dpv_wr_flag {
	DPV_WR_F_SIGNALED = 1u << 0,	/**< a CQE must be written on success */
	DPV_WR_F_SOLICITED = 1u << 1,	/**< set the solicited-event bit */
	DPV_WR_F_FENCE = 1u << 2,	/**< wait for prior READ/atomics */
	DPV_WR_F_SMALL_FENCE = 1u << 3, /**< initiator small fence (after a
					     bind/invalidate) */
	DPV_WR_F_INLINE = 1u << 4,	/**< payload is inline (inl[]) */
	DPV_WR_F_IP_CSUM = 1u << 5,	/**< raw packet: offload L3/L4 csum */
	DPV_WR_F_MALFORMED = 1u << 6,	/**< the WQE could not be decoded:
					     complete it with
					     IBV_WC_LOC_QP_OP_ERR */
	/** the engine's own request (tag matching rendezvous: its READ and
	 *  FIN), not in the send ring: no CQE, nothing to retire; wqe_index
	 *  is the tag's handle */
	DPV_WR_F_INTERNAL = 1u << 7,
};

/** One scatter/gather element (host order). */
struct dpv_sge {
	uint64_t addr;
	uint32_t length;
	uint32_t lkey;
};

/** UD destination decoded from the WQE's address vector. */
struct dpv_wr_ud {
	uint32_t remote_qpn; /**< 24-bit destination QP */
	uint32_t remote_qkey;
	uint8_t dgid[16];
	uint8_t dmac[6];
	uint8_t sgid_index;
	uint8_t hop_limit;
	uint8_t traffic_class;
	uint8_t sl;
	uint8_t static_rate;
	uint32_t flow_label;
	uint16_t udp_sport; /**< RoCEv2 UDP source port, 0 = derive */
	uint64_t dc_key;    /**< DCI: the target DCT's access key
				 (remote_qpn is its number) */
};

/** Memory-window bind (IBV_WR_BIND_MW) decoded from a UMR WQE. */
struct dpv_wr_bind {
	uint32_t mw_rkey; /**< rkey the window has now (ctrl imm) */
	uint8_t new_key;  /**< low 8 bits of the rkey after the bind */
	uint32_t mr_lkey; /**< lkey of the MR bound to (0 if unbind) */
	uint64_t addr;
	uint64_t length;     /**< 0: unbind */
	unsigned int access; /**< IBV_ACCESS_* flags */
	bool zero_based;     /**< IBV_ACCESS_ZERO_BASED */
	bool type2;	     /**< type 2 window (bound to this QP) */
};

/** Most translation entries an indirect-key configuration carries (a
 *  UMR WQE of the largest size holds 55). */
#define DPV_WR_MAX_KLM 56

/** One entry of an indirect key's layout (host order). */
struct dpv_klm {
	uint64_t addr;	 /**< first byte, in the address space of lkey */
	uint32_t len;	 /**< bytes (0: the entry maps nothing) */
	uint32_t stride; /**< interleaved layouts: bytes from one repetition
			      of the entry to the next */
	uint32_t lkey;	 /**< local key of the memory (a region) */
};

/**
 * Indirect memory key configuration (mlx5dv_wr_mr_list /
 * mlx5dv_wr_mr_interleaved / mlx5dv_wr_mkey_configure and its setters;
 * opcode IBV_WR_DRIVER1) decoded from a UMR
 * WQE. The entries stay in the send ring until the WQE is retired; the
 * ring personality decodes them (dpv_mlx5_sq_umr_klm()).
 */
enum dpv_wr_umr_set {
	DPV_UMR_SET_ACCESS = 1u << 0, /**< access is set */
	DPV_UMR_SET_LAYOUT = 1u << 1, /**< repeat, num, pos are set */
	/** the key may be configured already (mlx5dv_wr_mkey_configure);
	 *  without it only a key not configured is (mlx5dv_wr_mr_list) */
	DPV_UMR_RECONF = 1u << 2,
	/** the block signature is set (mlx5dv_wr_set_mkey_sig_block, or
	 *  reset by MLX5DV_MKEY_CONF_FLAG_RESET_SIG_ATTR): the key's staged
	 *  signature attributes apply */
	DPV_UMR_SET_SIG = 1u << 3,
};

struct dpv_wr_umr {
	uint32_t mkey;	     /**< the indirect key (lkey == rkey) */
	unsigned int set;    /**< enum dpv_wr_umr_set bits */
	unsigned int access; /**< IBV_ACCESS_* flags the key grants */
	uint32_t repeat;     /**< interleaved: repetitions; 0: a list */
	uint32_t num;	     /**< entries (a list counts its padding) */
	uint32_t pos;	     /**< byte offset of entry 0 in the ring */
};

/**
 * One decoded send WQE. The fields every WQE has come first, up to inl[]
 * (what a decoder clears: offsetof(struct dpv_wr, inl)); the fields of
 * some operations follow, set by the WQEs that carry them; then the SGEs.
 * With thousands of QPs each decoded WQE lands on lines no cache holds:
 * a one-SGE SEND or WRITE writes two lines and its SGE.
 */
struct dpv_wr {
	enum ibv_wr_opcode opcode;
	uint32_t flags;		  /**< enum dpv_wr_flag bits */
	uint16_t wqe_index;	  /**< 16-bit WQE counter (first 64-byte
				       block); goes into the CQE */
	uint16_t nbb;		  /**< size of the WQE in 64-byte blocks */
	uint16_t stream_id;	  /**< DCI: the control segment's
				       dci_stream_channel_id */
	uint32_t qpn;		  /**< from the control segment */
	uint32_t imm_data;	  /**< network order (..._WITH_IMM) */
	uint32_t invalidate_rkey; /**< SEND_WITH_INV, LOCAL_INV */
	uint64_t remote_addr;	  /**< RDMA and atomics */
	uint32_t rkey;
	/** RAW_PACKET: the frame starts with raw_hdr_len bytes of raw_hdr[],
	 *  followed by the inline data or the SGEs (IBV_WR_TSO: raw_hdr_len
	 *  is the header template's length and its bytes are in
	 *  tso_hdr[]). */
	uint16_t raw_hdr_len;
	/** IBV_WR_TSO: maximum segment size (payload bytes per frame). */
	uint16_t tso_mss;
	uint32_t inline_len; /**< inline payload bytes (in inl[]) */
	uint32_t num_sge;
	uint64_t total_len; /**< payload bytes (inline or SGEs) */
	/** Inline payload: up to two pieces pointing into the ring (the
	 *  second one when the data wraps). Valid until the WQE is retired;
	 *  read only up to inline_len. */
	struct {
		const void *addr;
		uint32_t len;
	} inl[2];
	/* ---- set only by the WQEs that carry them ---- */
	uint64_t compare_add; /**< CMP_AND_SWP compare / FETCH_AND_ADD add */
	uint64_t swap;	      /**< CMP_AND_SWP */
	uint32_t xrc_remote_srqn; /**< XRC_SEND */
	struct dpv_wr_ud ud;	  /**< UD only */
	union {
		struct dpv_wr_bind bind; /**< BIND_MW only */
		struct dpv_wr_umr umr;	 /**< IBV_WR_DRIVER1 only */
	};
	uint8_t raw_hdr[DPV_WR_MAX_RAW_HDR]; /**< RAW_PACKET, raw_hdr_len */
	/** IBV_WR_TSO: the header template, up to two pieces pointing into
	 *  the ring (the second when it wraps). Valid until retired. */
	struct {
		const void *addr;
		uint32_t len;
	} tso_hdr[2];
	struct dpv_sge sg_list[DPV_WR_MAX_SGE];
};

/** One decoded receive WQE (RQ or SRQ). */
struct dpv_recv_wr {
	uint16_t wqe_index; /**< RQ: 16-bit WQE counter; SRQ: WQE slot */
	uint64_t total_len; /**< sum of the SGE lengths */
	uint32_t num_sge;
	struct dpv_sge sg_list[DPV_WR_MAX_SGE];
};

/** A completion for the driver to encode as a CQE. */
struct dpv_cqe_info {
	enum ibv_wc_status status;
	enum ibv_wc_opcode opcode; /**< for send completions: what was sent;
					for receives IBV_WC_RECV or
					IBV_WC_RECV_RDMA_WITH_IMM */
	bool is_recv;		   /**< responder (receive) completion */
	uint32_t qpn;		   /**< local QP (24 bits) */
	uint16_t wqe_counter;	   /**< send: dpv_wr.wqe_index; receive:
					dpv_recv_wr.wqe_index */
	uint32_t srqn;		   /**< receive via an SRQ: its number (!= 0);
					0 for an RQ */
	uint32_t byte_len;
	uint32_t imm_data;	   /**< network order, with IBV_WC_WITH_IMM */
	uint32_t invalidated_rkey; /**< with IBV_WC_WITH_INV */
	uint32_t src_qp;	   /**< UD/raw receive: source QP */
	uint16_t slid;
	uint8_t sl;
	uint8_t dlid_path_bits;
	uint16_t pkey_index;
	unsigned int wc_flags; /**< IBV_WC_GRH, IBV_WC_WITH_IMM,
				    IBV_WC_WITH_INV, IBV_WC_IP_CSUM_OK */
	bool solicited;	       /**< receive of a solicited message */
	uint8_t vendor_err;    /**< error CQEs only */
	uint64_t timestamp;    /**< completion time stamp, 0 if none */
	bool vlan_stripped;    /**< raw receive: an 802.1Q tag was removed */
	uint16_t vlan_tci;     /**< its TCI (host order), if vlan_stripped */
	bool tunneled;	       /**< raw receive: a tunnel packet whose inner
				    checksums wc_flags reports */
	/** Scatter to CQE: scat_len (1..DPV_CQE_SCAT_MAX) bytes of data the
	 *  CQE carries itself instead of the buffer (successful receives;
	 *  READ / atomic results), 0: none. */
	const void *scat;
	uint8_t scat_len;
	/** Tag matching (dpv_tm.h): the CQE's app_op (enum dpv_tm_cqe_op),
	 *  0 for none. Tagged completions name the buffer by tm_handle and
	 *  carry the message's header (tm_tag, tm_ctx, network order); list
	 *  operations carry their wr_id, whether they failed and whether a
	 *  sync is asked for. */
	uint8_t tm_op;
	bool tm_fail;
	bool tm_sync_req;
	uint16_t tm_handle;
	uint32_t tm_ctx;
	uint64_t tm_tag;
	uint64_t tm_wr_id;
};

/** Most data bytes a 64-byte CQE carries (mlx5 MLX5_INLINE_SCATTER_32). */
#define DPV_CQE_SCAT_MAX 32

#endif /* DPV_WR_H */
