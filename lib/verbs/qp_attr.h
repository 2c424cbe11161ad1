/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DPV_QP_ATTR_H
#define DPV_QP_ATTR_H

/**
 * @file
 * The QP state machine of ibv_modify_qp(3), as a pure module.
 *
 * For every QP type (RC, UC, UD, RAW_PACKET, XRC_SEND, XRC_RECV) and every
 * transition (current state -> next state) the table in qp_attr.c lists the
 * attributes the InfiniBand specification makes REQUIRED and those it makes
 * OPTIONAL. dpv_qp_check_modify() accepts a modify request only if:
 *  - the transition exists for the type,
 *  - every required attribute is in the mask,
 *  - every other bit of the mask is IBV_QP_STATE or an optional attribute
 *    that dpverbs supports (alternate paths, IBV_QP_ALT_PATH and
 *    IBV_QP_PATH_MIG_STATE, are not: automatic path migration is not
 *    reported by the device, so those bits are always rejected),
 *  - every attribute in the mask has a valid value (see
 *    dpv_qp_check_modify()).
 * It does not touch any state: the caller applies the attributes only after
 * a successful check (dpv_qp_apply_attr()), so a refused request changes
 * nothing, not even the state.
 */

#include <stdbool.h>
#include <stdint.h>
#include <infiniband/verbs.h>

/** Device and port limits that attribute values are checked against. */
struct dpv_qp_limits {
	uint8_t phys_port_cnt;	     /**< valid ports: 1..phys_port_cnt */
	uint16_t pkey_tbl_len;	     /**< valid pkey_index: 0..len-1 */
	uint32_t gid_tbl_len;	     /**< valid sgid_index: 0..len-1 */
	uint64_t gid_valid;	     /**< bit i set: GID index i is populated */
	enum ibv_mtu max_mtu;	     /**< largest path_mtu accepted */
	uint32_t max_rd_atomic;	     /**< max_qp_init_rd_atom of the device */
	uint32_t max_dest_rd_atomic; /**< max_qp_rd_atom of the device */
	bool roce;		     /**< Ethernet link layer: AV needs a GRH */
	uint32_t rate_limit_min;     /**< IBV_QP_RATE_LIMIT range (kbps; */
	uint32_t rate_limit_max;     /**< 0, no limit, is always valid) */
};

/** Rule type (dpv_qp_check_modify()) of an mlx5dv DC initiator. */
#define DPV_QPT_DCI ((enum ibv_qp_type)0x1001)
/** Rule type (dpv_qp_check_modify()) of an mlx5dv DC target. */
#define DPV_QPT_DCT ((enum ibv_qp_type)0x1002)

/**
 * The type whose transition rules apply to a QP: its own, or for an
 * IBV_QPT_DRIVER QP of mlx5dv DC type dc_type DPV_QPT_DCI / DPV_QPT_DCT.
 *
 * @param type
 *   The QP's ibv_qp_type.
 * @param dc_type
 *   0, or enum mlx5dv_dc_type (MLX5DV_DCTYPE_DCT 1, MLX5DV_DCTYPE_DCI 2).
 * @return
 *   The type to pass to dpv_qp_check_modify().
 */
static inline enum ibv_qp_type
dpv_qp_rule_type(enum ibv_qp_type type, int dc_type)
{
	if (type != IBV_QPT_DRIVER)
		return type;
	return dc_type == 2 ? DPV_QPT_DCI : dc_type == 1 ? DPV_QPT_DCT : type;
}

/** Attribute mask bits dpverbs never accepts (no automatic path migration). */
#define DPV_QP_ATTR_UNSUPPORTED (IBV_QP_ALT_PATH | IBV_QP_PATH_MIG_STATE)

/** Largest value of a 24-bit field (PSN, QPN). */
#define DPV_QP_24BIT_MASK 0xffffffu

/**
 * Valid bits of ibv_qp_attr.qp_access_flags: the access rights that mean
 * something for a QP, plus the "optional" range (IBV_ACCESS_OPTIONAL_RANGE,
 * e.g. IBV_ACCESS_RELAXED_ORDERING), which by definition may be ignored,
 * and ON_DEMAND, ignored as the kernel does (programs pass their ODP
 * region's flags on to the QP: rdma-core's test_odp). The other
 * memory-region-only flags (ZERO_BASED, HUGETLB) and undefined bits are
 * refused.
 */
#define DPV_QP_ACCESS_VALID                                                    \
	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |                    \
	 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC |                   \
	 IBV_ACCESS_MW_BIND | IBV_ACCESS_OPTIONAL_RANGE | IBV_ACCESS_ON_DEMAND)

/**
 * Fill limits with the values of the dpverbs loopback device: one port,
 * one pkey, 16 GIDs all populated, MTU up to 4096, 16 outstanding RDMA
 * reads/atomics each way, RoCE.
 *
 * @param lim
 *   Limits to fill.
 */
void dpv_qp_limits_default(struct dpv_qp_limits *lim);

/**
 * Attribute masks of one transition.
 *
 * @param type
 *   QP type.
 * @param cur
 *   Current state.
 * @param next
 *   Requested state.
 * @param req
 *   If not NULL, receives the required attributes (IBV_QP_STATE excluded).
 * @param opt
 *   If not NULL, receives the optional attributes dpverbs accepts
 *   (IBV_QP_STATE and DPV_QP_ATTR_UNSUPPORTED excluded).
 * @return
 *   0 if the transition exists for this type; EINVAL if the type is not one
 *   of the six above, a state is out of range, or the transition does not
 *   exist (then *req and *opt are 0).
 */
int dpv_qp_transition_masks(enum ibv_qp_type type, enum ibv_qp_state cur,
			    enum ibv_qp_state next, int *req, int *opt);

/**
 * Attribute bits that a modify request of this QP type may carry and that
 * are dropped before it is checked: the responder's attributes
 * (IBV_QP_MAX_DEST_RD_ATOMIC, IBV_QP_MIN_RNR_TIMER) on an XRC initiator,
 * which has no receive side, and the requester's (IBV_QP_MAX_QP_RD_ATOMIC,
 * IBV_QP_RETRY_CNT, IBV_QP_RNR_RETRY) on an XRC target, which sends
 * nothing but responses. Linux's uverbs layer drops the same bits before
 * any driver sees them, and programs rely on it: perftest's XRC mode
 * connects its XRC QPs with RC's attribute set. Dropped bits are neither
 * checked nor applied (ibv_query_qp(3) does not report their values).
 *
 * @param type
 *   QP type (as for dpv_qp_check_modify()).
 * @return
 *   The bits to drop; 0 for every other type.
 */
int dpv_qp_ignored_attrs(enum ibv_qp_type type);

/**
 * Check a modify request (ibv_modify_qp(3)) without changing anything.
 *
 * Value checks, each only when its bit is in attr_mask:
 *  - IBV_QP_STATE: attr->qp_state == next;
 *  - IBV_QP_CUR_STATE: attr->cur_qp_state == cur;
 *  - IBV_QP_PORT: 1 <= port_num <= lim->phys_port_cnt;
 *  - IBV_QP_PKEY_INDEX: pkey_index < lim->pkey_tbl_len;
 *  - IBV_QP_ACCESS_FLAGS: only DPV_QP_ACCESS_VALID bits;
 *  - IBV_QP_PATH_MTU: IBV_MTU_256 <= path_mtu <= lim->max_mtu;
 *  - IBV_QP_MAX_QP_RD_ATOMIC: max_rd_atomic <= lim->max_rd_atomic;
 *  - IBV_QP_MAX_DEST_RD_ATOMIC: max_dest_rd_atomic <= lim->max_dest_rd_atomic;
 *  - IBV_QP_TIMEOUT, IBV_QP_MIN_RNR_TIMER: <= 31 (5-bit encodings);
 *  - IBV_QP_RETRY_CNT, IBV_QP_RNR_RETRY: <= 7;
 *  - IBV_QP_DEST_QPN: <= 0xffffff;
 *  - IBV_QP_RATE_LIMIT: 0, or lim->rate_limit_min..lim->rate_limit_max;
 *  - IBV_QP_RQ_PSN, IBV_QP_SQ_PSN, IBV_QP_QKEY, IBV_QP_EN_SQD_ASYNC_NOTIFY:
 *    any value (PSNs are masked to 24 bits when applied);
 *  - IBV_QP_AV: ah_attr.port_num valid as for IBV_QP_PORT, sl <= 15,
 *    static_rate a defined enum ibv_rate; on RoCE (lim->roce) is_global
 *    must be set and grh.sgid_index must name a populated GID.
 *
 * @param type
 *   QP type.
 * @param cur
 *   The QP's current state.
 * @param next
 *   The requested state (attr->qp_state if IBV_QP_STATE is in the mask,
 *   else cur).
 * @param attr_mask
 *   enum ibv_qp_attr_mask bits.
 * @param attr
 *   Attribute values; may be NULL only if attr_mask is 0.
 * @param lim
 *   Device limits.
 * @return
 *   0 if the request is valid, EINVAL otherwise (invalid type, state or
 *   transition, missing required attribute, attribute not allowed for this
 *   transition, unsupported attribute, value out of range).
 */
int dpv_qp_check_modify(enum ibv_qp_type type, enum ibv_qp_state cur,
			enum ibv_qp_state next, int attr_mask,
			const struct ibv_qp_attr *attr,
			const struct dpv_qp_limits *lim);

/**
 * Copy the attributes named by attr_mask from attr into the stored
 * attributes of a QP (after dpv_qp_check_modify() accepted them). PSNs are
 * masked to 24 bits; IBV_QP_CUR_STATE is not stored; IBV_QP_STATE sets both
 * qp_state and cur_qp_state.
 *
 * @param store
 *   The QP's attributes.
 * @param attr_mask
 *   enum ibv_qp_attr_mask bits.
 * @param attr
 *   New values.
 */
void dpv_qp_apply_attr(struct ibv_qp_attr *store, int attr_mask,
		       const struct ibv_qp_attr *attr);

/**
 * Name of a QP state, for logs and test messages.
 *
 * @param s
 *   State.
 * @return
 *   A static string ("RESET", "INIT", ..., "?" if out of range).
 */
const char *dpv_qp_state_str(enum ibv_qp_state s);

/**
 * Name of a QP type, for logs and test messages.
 *
 * @param t
 *   Type.
 * @return
 *   A static string ("RC", "UC", "UD", ..., "?" if unknown).
 */
const char *dpv_qp_type_str(enum ibv_qp_type t);

#endif
