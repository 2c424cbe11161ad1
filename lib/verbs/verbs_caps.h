/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DPV_VERBS_CAPS_H
#define DPV_VERBS_CAPS_H

/**
 * @file
 * Device identity and capability limits of a dpverbs device, in one place.
 *
 * ibv_query_device(_ex), ibv_query_port and every create/modify check use
 * these numbers, so what the device reports is exactly what the control
 * path accepts. Raise a limit only together with the code that honours it.
 */

#include <infiniband/verbs.h>

/**
 * IEEE OUI used as vendor_id. 0x000000 would look like "no vendor"; we take
 * a value from the locally administered / private range that no RDMA
 * vendor uses (not Mellanox 0x02c9, not Amazon 0x1d0f), so that programs'
 * vendor-specific paths never engage. Documented in doc/guides/verbs.rst.
 */
#define DPV_VENDOR_ID 0x00d9b0
/** vendor_part_id: "dp" in ASCII. */
#define DPV_VENDOR_PART_ID 0x6470
/** vendor_id of a device configured with "personality = mlx5" (Mellanox). */
#define DPV_MLX5_VENDOR_ID 0x02c9
/** Hardware version reported in hw_ver. */
#define DPV_HW_VER 1

#define DPV_CAP_MAX_QP	   (1u << 14)
/**
 * WRs per send or receive queue. The limits hold together: a QP with
 * max_qp_wr WRs of max_sge SGEs or DPV_CAP_MAX_INLINE inline bytes can be
 * created (its largest WQE is 6 blocks of 64 bytes, and an SQ ring holds
 * at most 65,536 blocks: 65,536 / 6), and what a QP or SRQ reports in its
 * caps never exceeds these limits.
 */
#define DPV_CAP_MAX_QP_WR  10922
#define DPV_CAP_MAX_SGE	   16
#define DPV_CAP_MAX_SGE_RD 16
#define DPV_CAP_MAX_INLINE 256
#define DPV_CAP_MAX_CQ	   (1u << 14)
#define DPV_CAP_MAX_CQE	   65535 /* ring: 64 bytes per CQE in DPDK memory */
/** MR/MW key table size per device; key = index << 8 | variant. */
#define DPV_CAP_MAX_MR		    (1u << 16)
#define DPV_CAP_MAX_MR_SIZE	    (~0ull)
#define DPV_CAP_MAX_PD		    (1u << 16)
#define DPV_CAP_MAX_QP_RD_ATOM	    128
#define DPV_CAP_MAX_QP_INIT_RD_ATOM 128
#define DPV_CAP_MAX_RES_RD_ATOM	    (DPV_CAP_MAX_QP * DPV_CAP_MAX_QP_RD_ATOM)
#define DPV_CAP_MAX_SRQ		    (1u << 14)
#define DPV_CAP_MAX_SRQ_WR	    16384
#define DPV_CAP_MAX_SRQ_SGE	    16
#define DPV_CAP_MAX_AH		    (1u << 16)
#define DPV_CAP_MAX_MW		    (1u << 15)
#define DPV_CAP_MAX_MCAST_GRP	    64
#define DPV_CAP_MAX_MCAST_QP_ATTACH 64
#define DPV_CAP_MAX_XRCD	    1024
#define DPV_CAP_NUM_COMP_VECTORS    1
#define DPV_CAP_PKEY_TBL_LEN	    1
#define DPV_CAP_GID_TBL_LEN	    16
#define DPV_CAP_PAGE_SIZE_CAP	    0xfffff000ull /* 4 KiB and up */
#define DPV_CAP_MAX_PKEYS	    1
#define DPV_CAP_LOCAL_CA_ACK_DELAY  15

/**
 * Completion event moderation (ibv_modify_cq with IBV_CQ_ATTR_MODERATE,
 * cq_mod_caps; devices with an engine): ConnectX's limits, the widths of
 * the mlx5 CQ context's cq_max_count (16 bits) and cq_period (12 bits,
 * microseconds), as the kernel's mlx5 driver reports them
 * (MLX5_MAX_CQ_COUNT, MLX5_MAX_CQ_PERIOD) and refuses a longer period.
 */
#define DPV_CAP_CQ_MOD_MAX_COUNT  65535
#define DPV_CAP_CQ_MOD_MAX_PERIOD 4095

/** Device memory a device gives out in all (max_dm_size; ConnectX-5's
 *  MEMIC holds 256 KiB): what ibv_alloc_dm() may allocate, together. */
#define DPV_CAP_MAX_DM_SIZE (256u * 1024)
/** Largest alignment ibv_alloc_dm() takes (log_align_req): a page. */
#define DPV_CAP_DM_LOG_ALIGN_MAX 12

/** device_cap_flags_ex bit of RC RDMA ATOMIC WRITE (the kernel's
 *  IB_UVERBS_DEVICE_ATOMIC_WRITE; rdma-core 44's verbs.h has no name for
 *  it). */
#define DPV_DEVICE_ATOMIC_WRITE (1ULL << 40)

/**
 * Raw packet (lib/engine/engine_raw.c, doc/guides/raw.rst): RAW_PACKET
 * QPs, receive WQs, RWQ indirection tables and RSS QPs (Toeplitz over
 * IPv4/IPv6 addresses and TCP/UDP ports), flows; checksum, VLAN stripping
 * and FCS offloads, TSO and transmit pacing done in software.
 */
#define DPV_CAP_RSS_MAX_TBLS	 64 /**< max_rwq_indirection_tables */
#define DPV_CAP_RSS_LOG_TBL_SIZE 12 /**< log2 max_rwq_indirection_table_size */
#define DPV_CAP_MAX_WQ_TYPE_RQ	 1024 /**< = DPV_WQ_MAX */
/** Raw-packet offloads done in software (engine_raw_ofl.c). */
#define DPV_CAP_RAW_PACKET                                                     \
	(IBV_RAW_PACKET_CAP_IP_CSUM | IBV_RAW_PACKET_CAP_CVLAN_STRIPPING |     \
	 IBV_RAW_PACKET_CAP_SCATTER_FCS)
/** TSO on raw-packet QPs (IBV_WR_TSO): largest payload of one WR
 *  (tso_caps.max_tso), as ConnectX reports 256 KiB. */
#define DPV_CAP_MAX_TSO 262144u
/** Smallest TSO header room a QP gets (the 18 bytes an mlx5 Ethernet
 *  segment always carries: a smaller IBV_QP_INIT_ATTR_MAX_TSO_HEADER is
 *  raised to it) and the largest one accepted (rdma-core's tests ask for
 *  up to max_tso / 800). */
#define DPV_CAP_MIN_TSO_HEADER 18u
#define DPV_CAP_MAX_TSO_HEADER 512u
/** Transmit pacing of raw-packet QPs (IBV_QP_RATE_LIMIT), in kbps. */
#define DPV_CAP_RATE_LIMIT_MIN 1000u	  /**< 1 Mbit/s */
#define DPV_CAP_RATE_LIMIT_MAX 100000000u /**< 100 Gbit/s */

/**
 * Memory windows: type 1 (ibv_bind_mw) and type 2B (IBV_WR_BIND_MW), bound
 * and invalidated by the engine in send-queue order (dpv_key_bind_apply());
 * IBV_DEVICE_MEM_WINDOW | IBV_DEVICE_MEM_WINDOW_TYPE_2B are reported.
 */
#define DPV_CAP_MW 1
/**
 * XRC: the engine carries XRC (XRC_SEND requesters, XRC_RECV targets
 * delivering into the XRC SRQ named by each request): ibv_open_xrcd, XRC
 * SRQs and XRC QPs work and IBV_DEVICE_XRC is reported.
 */
#define DPV_CAP_XRC 1

/** device_cap_flags we really honour (no resize-max-wr, no APM). */
#define DPV_CAP_DEVICE_FLAGS                                                   \
	(IBV_DEVICE_BAD_PKEY_CNTR | IBV_DEVICE_BAD_QKEY_CNTR |                 \
	 IBV_DEVICE_SYS_IMAGE_GUID | IBV_DEVICE_RC_RNR_NAK_GEN |               \
	 IBV_DEVICE_N_NOTIFY_CQ | IBV_DEVICE_MEM_MGT_EXTENSIONS |              \
	 (DPV_CAP_MW ? IBV_DEVICE_MEM_WINDOW |                                 \
			       IBV_DEVICE_MEM_WINDOW_TYPE_2B                   \
		     : 0) |                                                    \
	 (DPV_CAP_XRC ? IBV_DEVICE_XRC : 0))

/** Atomics are done in software serialized per device: HCA-wide atomic. */
#define DPV_CAP_ATOMIC IBV_ATOMIC_HCA

/** Every access flag ibv_reg_mr accepts. */
#define DPV_MR_ACCESS_SUPPORTED                                                \
	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |                    \
	 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC |                   \
	 IBV_ACCESS_MW_BIND | IBV_ACCESS_ZERO_BASED |                          \
	 IBV_ACCESS_RELAXED_ORDERING | IBV_ACCESS_ON_DEMAND)

/**
 * On-demand paging (IBV_ACCESS_ON_DEMAND): the engine reaches registered
 * memory through the process's page tables, so any region is "on
 * demand" and every operation of a transport works on it. Implicit ODP
 * (addr 0, length SIZE_MAX; IBV_ODP_SUPPORT_IMPLICIT) where the kernel
 * has MADV_POPULATE_READ/WRITE: the engine checks every access through
 * such a region against the process's mappings with it, so an unmapped
 * or protected page fails the access (DPV_ENGINE_KEY_IMPLICIT).
 */
#define DPV_CAP_ODP_RC                                                         \
	(IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV | IBV_ODP_SUPPORT_WRITE | \
	 IBV_ODP_SUPPORT_READ | IBV_ODP_SUPPORT_ATOMIC |                       \
	 IBV_ODP_SUPPORT_SRQ_RECV)
/** UC: no READ or atomics in the transport. */
#define DPV_CAP_ODP_UC                                                         \
	(IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV | IBV_ODP_SUPPORT_WRITE | \
	 IBV_ODP_SUPPORT_SRQ_RECV)
/** UD: SEND and receive only. */
#define DPV_CAP_ODP_UD                                                         \
	(IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV | IBV_ODP_SUPPORT_SRQ_RECV)
/** XRC and DC (mlx5dv dc_odp_caps): RC's operations, receives on SRQs. */
#define DPV_CAP_ODP_SRQ_TRANSPORT                                              \
	(IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_READ |  \
	 IBV_ODP_SUPPORT_ATOMIC | IBV_ODP_SUPPORT_SRQ_RECV)

#define DPV_PORT_MAX_MSG_SZ (1u << 31)
#define DPV_PORT_MAX_VL_NUM 1

#endif
