/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DPV_ENGINE_RAW_H
#define DPV_ENGINE_RAW_H

/**
 * @file
 * Raw-packet side of the engine: RAW_PACKET QPs send whole Ethernet
 * frames as they are, flows steer received frames to RAW_PACKET QPs, and
 * RSS QPs spread what their flows catch over receive work queues with a
 * Toeplitz hash (rte_softrss) through an indirection table.
 *
 * Receive rules, for every frame the engine receives:
 *   - SNIFFER flows get a copy of every frame (RoCE included).
 *   - RoCE frames (UDP destination port 4791) go to the RoCE transport
 *     (there the flows of source-QPN UD QPs steer the frames addressed
 *     to their source QPN: dpv_engine_srcqpn_steer()).
 *   - Otherwise the NORMAL flows that match, at the best (lowest)
 *     priority, take it (every such QP gets it); failing that the
 *     MC_DEFAULT flows (multicast destination MAC), then the ALL_DEFAULT
 *     flows. ARP and neighbour discovery frames are also handed to the
 *     engine's own neighbour code. A frame nobody takes is dropped and
 *     counted (the engine's rx_drop_parse).
 *
 * All functions take the engine lock themselves (not to be called with it
 * held) and return 0 or a negative errno.
 */

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct dpv_engine;
struct dpv_mlx5_rq;
struct dpv_mlx5_cq;
struct rte_mbuf;

/** Kind of a flow (enum ibv_flow_attr_type values). */
enum dpv_engine_flow_type {
	DPV_FLOW_NORMAL = 0,	  /**< IBV_FLOW_ATTR_NORMAL */
	DPV_FLOW_ALL_DEFAULT = 1, /**< IBV_FLOW_ATTR_ALL_DEFAULT */
	DPV_FLOW_MC_DEFAULT = 2,  /**< IBV_FLOW_ATTR_MC_DEFAULT */
	DPV_FLOW_SNIFFER = 3,	  /**< IBV_FLOW_ATTR_SNIFFER */
};

/**
 * @name Bits of dpv_engine_flow_match::has: which layers a frame must have
 * @{
 */
#define DPV_FLOW_HAS_IPV4 0x1u	/**< an IPv4 header */
#define DPV_FLOW_HAS_IPV6 0x2u	/**< an IPv6 header */
#define DPV_FLOW_HAS_TCP  0x4u	/**< a TCP header */
#define DPV_FLOW_HAS_UDP  0x8u	/**< a UDP header */
#define DPV_FLOW_HAS_VLAN 0x10u /**< an 802.1Q tag */
/** @} */

/**
 * What a flow matches: value and mask per field, compared as
 * (frame & mask) == (value & mask). Multi-byte fields in network order,
 * as in struct ibv_flow_spec_*. IPv4 addresses use the first 4 bytes.
 */
struct dpv_engine_flow_match {
	uint32_t has;	       /**< DPV_FLOW_HAS_* */
	uint8_t dmac[6];       /**< destination MAC */
	uint8_t dmac_m[6];     /**< its mask */
	uint8_t smac[6];       /**< source MAC */
	uint8_t smac_m[6];     /**< its mask */
	uint16_t ether_type;   /**< ethertype (after a VLAN tag) */
	uint16_t ether_type_m; /**< its mask */
	uint16_t vlan;	       /**< TCI */
	uint16_t vlan_m;       /**< its mask */
	uint8_t sip[16];       /**< source address */
	uint8_t sip_m[16];     /**< its mask */
	uint8_t dip[16];       /**< destination address */
	uint8_t dip_m[16];     /**< its mask */
	uint16_t sport;	       /**< TCP/UDP source port */
	uint16_t sport_m;      /**< its mask */
	uint16_t dport;	       /**< TCP/UDP destination port */
	uint16_t dport_m;      /**< its mask */
	uint8_t proto;	       /**< IPv4 protocol / IPv6 next header */
	uint8_t proto_m;       /**< its mask */
};

/** One flow rule. */
struct dpv_engine_flow {
	/** RAW_PACKET or RSS QP of the engine, or a UD QP created with a
	 *  source QPN (dpv_engine_qp_init::use_source_qpn; NORMAL flows
	 *  only): that flow steers RoCE frames addressed to the source QPN
	 *  to it, never a raw frame */
	uint32_t qpn;
	uint16_t priority; /**< lower is stronger */
	uint8_t type;	   /**< enum dpv_engine_flow_type */
	struct dpv_engine_flow_match m; /**< what it matches */
};

/**
 * Attach a flow.
 * @param e  engine
 * @param f  the rule
 * @param id  out: its handle
 * @return 0; -EINVAL (NULL, unknown type, a UD QP without a source QPN
 *   or a flow type other than NORMAL on one); -ENOENT (no such QP);
 *   -ENOMEM.
 */
int dpv_engine_flow_add(struct dpv_engine *e, const struct dpv_engine_flow *f,
			uint64_t *id);

/**
 * Detach a flow.
 * @param e  engine
 * @param id  handle from dpv_engine_flow_add()
 * @return 0; -ENOENT (unknown id, or its QP is gone); -EINVAL.
 */
int dpv_engine_flow_del(struct dpv_engine *e, uint64_t id);

/** One receive work queue of an RSS indirection table. */
struct dpv_engine_rss_wq {
	uint32_t wqn;		   /**< reported as the CQE's QP number */
	uint32_t pdn;		   /**< PD for the receive SGEs' keys */
	struct dpv_mlx5_rq *rq;	   /**< the ring */
	struct dpv_mlx5_cq *cq;	   /**< its CQ */
	const volatile int *state; /**< enum ibv_wq_state; RDY takes frames */
};

/** Toeplitz key length the engine uses (bytes). */
#define DPV_ENGINE_RSS_KEY_LEN 40

/**
 * Make QP qpn (already created, RAW_PACKET without rings) an RSS QP.
 * @param e  engine
 * @param qpn  the QP
 * @param fields  enum ibv_rx_hash_fields bits (IPv4/IPv6 addresses,
 *   TCP or UDP ports).
 * @param key  DPV_ENGINE_RSS_KEY_LEN bytes.
 * @param log_size  log2 of the table size; tbl has 1 << log_size entries
 *   (copied; the rings must outlive the QP).
 * @param tbl  the indirection table
 * @return 0; -EINVAL; -ENOENT (no such QP); -ENOMEM.
 */
int dpv_engine_rss_set(struct dpv_engine *e, uint32_t qpn, uint64_t fields,
		       const uint8_t *key, uint32_t log_size,
		       const struct dpv_engine_rss_wq *tbl);

/**
 * Toeplitz hash the engine computes for a frame (for tests and tracing).
 * @param frame  Ethernet frame
 * @param len  its length
 * @param fields  enum ibv_rx_hash_fields bits
 * @param key  DPV_ENGINE_RSS_KEY_LEN bytes
 * @return the 32-bit hash (0 when no selected field is present).
 */
uint32_t dpv_engine_rss_hash(const void *frame, uint32_t len, uint64_t fields,
			     const uint8_t *key);

/**
 * @name Options of a raw QP (dpv_engine_raw_qp::flags)
 * "Self" frames are those sent by a raw QP of the same domain (one domain
 * per verbs context, as a ConnectX transport domain): by default a raw or
 * RSS QP does not receive them (SNIFFER flows always do).
 * @{
 */
/** Receive unicast frames of the own domain
 *  (MLX5DV_QP_CREATE_TIR_ALLOW_SELF_LOOPBACK_UC). */
#define DPV_RAW_QP_SELF_UC 0x1u
/** Receive multicast/broadcast frames of the own domain
 *  (MLX5DV_QP_CREATE_TIR_ALLOW_SELF_LOOPBACK_MC). */
#define DPV_RAW_QP_SELF_MC 0x2u
/** Never receive the multicast frames this QP itself sent
 *  (IBV_QP_CREATE_BLOCK_SELF_MCAST_LB). */
#define DPV_RAW_QP_BLOCK_SELF_MC 0x4u
/** Append the frame's Ethernet FCS (IBV_QP_CREATE_SCATTER_FCS). */
#define DPV_RAW_QP_SCATTER_FCS 0x8u
/** Remove an 802.1Q tag and report its TCI in the CQE
 *  (IBV_QP_CREATE_CVLAN_STRIPPING). */
#define DPV_RAW_QP_CVLAN_STRIP 0x10u
/** Report IBV_WC_IP_CSUM_OK for IPv4 TCP/UDP frames whose checksums are
 *  right (the device's IBV_RAW_PACKET_CAP_IP_CSUM). */
#define DPV_RAW_QP_RX_CSUM 0x20u
/** With DPV_RAW_QP_RX_CSUM: look into VXLAN, GENEVE and GRE packets and
 *  report the inner checksums, the CQE marked tunneled
 *  (MLX5DV_QP_CREATE_TUNNEL_OFFLOADS). */
#define DPV_RAW_QP_TUNNEL_CSUM 0x40u
/** @} */

/** What a raw QP is besides its rings. */
struct dpv_engine_raw_qp {
	uint32_t domain; /**< sender domain, != 0 (0: frames are untagged) */
	uint32_t flags;	 /**< DPV_RAW_QP_* */
};

/**
 * Set the options of raw QP qpn (RAW_PACKET, with rings or RSS); called
 * once after dpv_engine_qp_create(). Until then the QP has domain 0 and
 * no options.
 * @param e  engine
 * @param qpn  the QP
 * @param c  its options (copied)
 * @return 0; -EINVAL (NULL, domain 0); -ENOENT (no such QP); -ENOMEM.
 */
int dpv_engine_raw_qp_set(struct dpv_engine *e, uint32_t qpn,
			  const struct dpv_engine_raw_qp *c);

/**
 * Pace the transmit of raw QP qpn: a token bucket filled at kbps
 * kilobits per second that keeps at most max_burst bytes of credit while
 * the QP is idle (0: frames are spaced from the first one). A frame goes
 * when the credit is not negative and costs its length, so the long-run
 * rate holds for any frame size. kbps 0 removes the limit.
 * @param e  engine
 * @param qpn  the QP
 * @param kbps  rate in kbit/s, 0: unpaced
 * @param max_burst  bytes of credit kept while idle
 * @return 0; -EINVAL; -ENOENT (not a raw QP set up with
 *   dpv_engine_raw_qp_set()).
 */
int dpv_engine_raw_rate_set(struct dpv_engine *e, uint32_t qpn, uint32_t kbps,
			    uint32_t max_burst);

/** Raw-path counters. */
struct dpv_engine_raw_stats {
	uint64_t rx_delivered; /**< frames placed in a receive queue */
	uint64_t rx_no_wqe;    /**< a QP/WQ took it but had no receive WQE */
	uint64_t rx_too_long;  /**< did not fit the receive WQE */
	uint64_t rx_self_drop; /**< own-domain frames a QP did not take */
	uint64_t tx_frames;    /**< raw frames sent */
	uint64_t tx_errors;    /**< raw send WQEs completed in error */
	uint64_t tx_paced;     /**< times a QP's send waited for its rate */
};

/**
 * Copy the raw counters.
 * @param e  engine
 * @param out  the counters (zero if the engine has no raw state)
 * @return 0 or -EINVAL.
 */
int dpv_engine_raw_stats_get(struct dpv_engine *e,
			     struct dpv_engine_raw_stats *out);

/* ------------------------------------------------ engine.c hooks only */

struct dpv_eqp;
/**
 * RX: offer a frame to the flows (engine lock held).
 * @param e  engine
 * @param m  the frame (not freed)
 * @return true if it was consumed (not for the RoCE path).
 */
bool dpv_engine_raw_rx(struct dpv_engine *e, struct rte_mbuf *m);
/**
 * RX: the UD QP created with source QPN dqpn whose NORMAL flow matches
 * the frame's Ethernet, IP and UDP headers (the best priority, the oldest
 * flow among equals), for a RoCE frame whose BTH destination QP is dqpn
 * (engine lock held).
 * @param e  engine
 * @param m  the frame
 * @param dqpn  its destination QP
 * @return the QP, or NULL (no flow takes it: the QP numbered dqpn does).
 */
struct dpv_eqp *dpv_engine_srcqpn_steer(struct dpv_engine *e,
					const struct rte_mbuf *m,
					uint32_t dqpn);
/**
 * Send the posted WQEs of a RAW_PACKET QP in RTS, as its pacing allows.
 * @param qp  the QP
 * @param budget  WQEs it may take; decremented
 */
void dpv_engine_raw_send(struct dpv_eqp *qp, unsigned *budget);
/**
 * A QP is being destroyed: drop its flows, RSS and raw state.
 * @param e  engine (lock held)
 * @param qpn  the QP
 */
void dpv_engine_raw_qp_gone(struct dpv_engine *e, uint32_t qpn);
/**
 * The engine is being destroyed: free its raw state.
 * @param e  engine
 */
void dpv_engine_raw_fini(struct dpv_engine *e);

#ifdef __cplusplus
}
#endif

#endif
