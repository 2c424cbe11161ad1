/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DPV_ROCE_PKT_H
#define DPV_ROCE_PKT_H

/**
 * @file
 * Parse and build whole RoCEv2 frames.
 *
 * struct dpv_roce_pkt describes one frame field by field: Ethernet (and an
 * optional 802.1Q tag), IPv4 or IPv6, UDP, BTH, every extension header,
 * the payload, and where each of them sits in the frame.
 *
 * - dpv_roce_parse() validates a received frame (lengths, versions, port,
 *   opcode, headers, pad, ICRC) and fills the descriptor, or says exactly
 *   why the frame is not a good RoCEv2 packet (enum dpv_roce_rx_status, with
 *   names usable as counter names).
 * - dpv_roce_build() writes a frame from the descriptor: all headers,
 *   lengths, IPv4 header checksum, pad count and pad bytes, payload and
 *   ICRC. dpv_roce_build_hdrs() + dpv_roce_build_finish() do the same in
 *   two steps for callers that gather the payload themselves.
 *
 * Parsing a frame and building from the descriptor it gave reproduces the
 * frame byte for byte, as long as the frame's reserved bits are zero, its
 * IPv4 header has no options, its pad bytes are zero and it has no trailing
 * Ethernet padding (a parsed frame_len excludes that padding).
 *
 * dpv_roce_parse() and the builders work on contiguous buffers;
 * dpv_roce_parse_mbuf() also accepts an mbuf chain whose first segment
 * holds all the headers (see also dpv_roce_icrc_set_mbuf() for building
 * into chains). All functions are pure: they touch only the buffers and
 * descriptor passed.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_byteorder.h>

#include "dpv_roce_hdr.h"
#include "dpv_roce_opcode.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Reasons to reject a received frame: X(ENUM_SUFFIX, "counter_name",
 * "description"). From TRUNC_L2 on, the order is the order of the checks
 * in dpv_roce_parse(); SEG_HDRS comes only from dpv_roce_parse_mbuf().
 */
#define DPV_ROCE_RX_STATUS_LIST(X)                                             \
	X(OK, "ok", "valid RoCEv2 packet")                                     \
	X(SEG_HDRS, "seg_hdrs", "headers not all in the first mbuf segment")   \
	X(TRUNC_L2, "trunc_l2", "frame shorter than its Ethernet/VLAN header") \
	X(NOT_IP, "not_ip", "EtherType is neither IPv4 nor IPv6")              \
	X(TRUNC_L3, "trunc_l3", "frame shorter than its IP header")            \
	X(IP_VERSION, "ip_version", "IP version does not match the EtherType") \
	X(IPV4_IHL, "ipv4_ihl", "IPv4 header length below 20 bytes")           \
	X(IP_LEN, "ip_len", "IP length disagrees with the frame length")       \
	X(IPV4_CSUM, "ipv4_csum", "IPv4 header checksum is wrong")             \
	X(IPV4_FRAG, "ipv4_frag", "IPv4 fragment")                             \
	X(NOT_UDP, "not_udp", "IP protocol / next header is not UDP")          \
	X(UDP_LEN, "udp_len", "UDP length disagrees with the IP length")       \
	X(UDP_PORT, "udp_port", "UDP destination port is not 4791")            \
	X(UDP_CSUM, "udp_csum", "non-zero UDP checksum is wrong")              \
	X(TRUNC_BTH, "trunc_bth", "UDP payload shorter than BTH + ICRC")       \
	X(TVER, "tver", "BTH transport version is not 0")                      \
	X(OPCODE, "opcode", "opcode reserved or not supported")                \
	X(TRUNC_EXT, "trunc_ext",                                              \
	  "UDP payload shorter than the opcode's headers + ICRC")              \
	X(PAYLOAD_LEN, "payload_len",                                          \
	  "payload not a multiple of 4 bytes, or present on an opcode "        \
	  "without payload")                                                   \
	X(PAD, "pad",                                                          \
	  "pad count not allowed for the opcode, or above the "                \
	  "payload length")                                                    \
	X(ICRC, "icrc", "invariant CRC is wrong")

/** An enum dpv_roce_rx_status value from a DPV_ROCE_RX_STATUS_LIST entry,
 *  documented with its description d. */
#define DPV_ROCE_RX_ENUM_(e, n, d) DPV_ROCE_RX_##e, /**< d */
/** Result of dpv_roce_parse(); DPV_ROCE_RX_OK is 0. */
enum dpv_roce_rx_status {
	/* clang-format off */
	DPV_ROCE_RX_STATUS_LIST(DPV_ROCE_RX_ENUM_)
	DPV_ROCE_RX_STATUS_NUM /**< number of values */
	/* clang-format on */
};
#undef DPV_ROCE_RX_ENUM_

/**
 * Short name of a status, suitable as a counter/xstat name ("icrc").
 *
 * @param s
 *   Status.
 * @return
 *   A static string; "unknown" for a value out of range.
 */
const char *dpv_roce_rx_status_name(enum dpv_roce_rx_status s);

/**
 * One-line description of a status, for logs.
 *
 * @param s
 *   Status.
 * @return
 *   A static string; "unknown" for a value out of range.
 */
const char *dpv_roce_rx_status_str(enum dpv_roce_rx_status s);

/** IPv4 flags/fragment-offset value with only Don't Fragment set. */
#define DPV_ROCE_IPV4_DF 0x4000
/** TTL / hop limit RoCE senders use (as Linux rxe). */
#define DPV_ROCE_TTL_DEFAULT 64

/** One RoCEv2 frame, field by field. Host byte order unless stated. */
struct dpv_roce_pkt {
	/* ---- layout: outputs of parse and of build ---- */
	uint32_t frame_len;   /**< bytes from Ethernet through the ICRC */
	uint16_t l3_off;      /**< offset of the IP header */
	uint16_t l4_off;      /**< offset of the UDP header */
	uint16_t bth_off;     /**< offset of the BTH */
	uint16_t payload_off; /**< offset of the payload (after all headers) */
	uint32_t mask;	      /**< dpv_roce_opcode(opcode)->mask */
	uint8_t pad;	      /**< BTH pad count */
	uint32_t icrc;	      /**< ICRC found (parse) or written (build) */

	/* ---- payload ---- */
	/** parse: points into the frame; build: bytes to copy (may be NULL
	 *  with dpv_roce_build_hdrs(), or when payload_len is 0). */
	const uint8_t *payload;
	uint32_t payload_len; /**< payload bytes, without pad */

	/* ---- Ethernet ---- */
	uint8_t dmac[6];   /**< destination MAC */
	uint8_t smac[6];   /**< source MAC */
	bool vlan;	   /**< an 802.1Q tag follows the MAC addresses */
	uint16_t vlan_tci; /**< PCP (3) + DEI (1) + VID (12) */

	/* ---- IP ---- */
	bool ipv6;	  /**< IPv6, else IPv4 */
	uint8_t sgid[16]; /**< source address as a GID (IPv4: ::ffff:a.b.c.d) */
	uint8_t dgid[16]; /**< destination address as a GID */
	uint8_t tos;	  /**< IPv4 TOS / IPv6 traffic class (DSCP + ECN) */
	uint8_t ttl;	  /**< IPv4 TTL / IPv6 hop limit */
	uint16_t ip_id;	  /**< IPv4 identification */
	uint16_t ip_frag; /**< IPv4 flags + fragment offset (DF: 0x4000) */
	uint32_t flow_label; /**< IPv6 flow label (20 bits) */

	/* ---- UDP ---- */
	uint16_t sport;	   /**< source port (see dpv_roce_udp_sport()) */
	uint16_t dport;	   /**< destination port; 0 in build means 4791 */
	uint16_t udp_csum; /**< checksum as on the wire (RoCEv2: 0), written as
			      is */

	/* ---- BTH ---- */
	uint8_t opcode; /**< wire opcode (dpv_roce_transport | dpv_roce_op) */
	bool se;	/**< solicited event */
	bool mig;	/**< MigReq */
	uint8_t tver;	/**< transport version (0) */
	uint16_t pkey;	/**< partition key */
	bool fecn;	/**< forward explicit congestion notification */
	bool becn;	/**< backward explicit congestion notification */
	uint32_t dqpn;	/**< destination QP (24 bits) */
	bool ackreq;	/**< the requester asks for an ACK */
	uint32_t psn;	/**< packet sequence number (24 bits) */

	/* ---- extension headers: valid where mask has the header bit ---- */
	/** RETH (RDMA WRITE / READ requests) */
	struct {
		uint64_t va;   /**< remote virtual address */
		uint32_t rkey; /**< remote key */
		uint32_t len;  /**< DMA length of the whole message */
	} reth;
	/** AETH (ACK, NAK, READ responses) */
	struct {
		uint8_t syndrome; /**< ACK / RNR NAK / NAK code and credit */
		uint32_t msn;	  /**< message sequence number (24 bits) */
	} aeth;
	/** AtomicETH (CmpSwap, FetchAdd requests) */
	struct {
		uint64_t va;	   /**< remote address */
		uint32_t rkey;	   /**< remote key */
		uint64_t swap_add; /**< swap value, or the value to add */
		uint64_t compare;  /**< compare value (CmpSwap) */
	} atmeth;
	uint64_t atmack_orig; /**< AtomicAckETH original data */
	/** DETH (UD) */
	struct {
		uint32_t qkey; /**< queue key */
		uint32_t sqp;  /**< source QP (24 bits) */
	} deth;
	rte_be32_t imm;	    /**< ImmDt, network order */
	uint32_t ieth_rkey; /**< IETH */
	uint32_t xrc_srqn;  /**< XRCETH */
	/** DCETH (DC requests) */
	struct {
		uint64_t key;  /**< DC access key */
		uint32_t dci;  /**< source DCI QP number (24 bits) */
		uint32_t cpsn; /**< first PSN of the connection (24 bits) */
	} dceth;
};

/** dpv_roce_parse() flag: do not compute/check the ICRC. */
#define DPV_ROCE_PARSE_NO_ICRC (1u << 0)
/** dpv_roce_parse() flag: do not check IPv4 header / UDP checksums
 *  (e.g. the NIC already did). */
#define DPV_ROCE_PARSE_NO_CSUM (1u << 1)

/**
 * Validate a received Ethernet frame as a RoCEv2 packet and describe it.
 *
 * Checks, in order: Ethernet/VLAN header present; EtherType IPv4/IPv6; IP
 * header present, version, IPv4 IHL; IP length fits the frame (trailing
 * bytes are accepted only as the Ethernet padding of a frame of at most 60
 * bytes); IPv4 checksum, not a fragment; protocol UDP; UDP length equals the
 * IP payload length; destination port 4791; a non-zero UDP checksum
 * verifies; BTH present; TVer 0; opcode valid; extension headers present;
 * payload a multiple of 4 (with pad) and only where the opcode has one;
 * pad count 0 unless last/only packet, and not above the payload; ICRC.
 *
 * @param frame
 *   The frame, from the destination MAC; no FCS.
 * @param len
 *   Its length in bytes.
 * @param flags
 *   0 or DPV_ROCE_PARSE_* bits.
 * @param pkt
 *   Output. Filled as far as the parser got (on failure, partly).
 * @return
 *   DPV_ROCE_RX_OK (0), or the first check that failed.
 */
enum dpv_roce_rx_status dpv_roce_parse(const void *frame, uint32_t len,
				       uint32_t flags,
				       struct dpv_roce_pkt *pkt);

struct rte_mbuf;

/**
 * dpv_roce_parse() for a frame in an mbuf (single or multi-segment).
 *
 * The headers (Ethernet through the last extension header) must be in the
 * first segment, else DPV_ROCE_RX_SEG_HDRS; the payload, pad and ICRC may
 * be anywhere in the chain. The lengths are checked against the packet
 * length (pkt_len); a non-zero UDP checksum and the ICRC are computed over
 * the whole chain. pkt->payload points into the first segment: when the
 * frame is segmented, payload_len bytes start at payload_off of the packet
 * and may continue in the following segments (rte_pktmbuf_read()).
 *
 * @param m
 *   The frame, from the destination MAC (first segment).
 * @param flags
 *   0 or DPV_ROCE_PARSE_* bits.
 * @param pkt
 *   Output, as for dpv_roce_parse().
 * @return
 *   DPV_ROCE_RX_OK (0), or the first check that failed.
 */
enum dpv_roce_rx_status dpv_roce_parse_mbuf(const struct rte_mbuf *m,
					    uint32_t flags,
					    struct dpv_roce_pkt *pkt);

/**
 * Bytes of the frame dpv_roce_build() would make from pkt: headers +
 * payload + pad + ICRC.
 *
 * @param pkt
 *   Descriptor (vlan, ipv6, opcode and payload_len are read).
 * @return
 *   The length, or 0 if the opcode is invalid.
 */
uint32_t dpv_roce_frame_len(const struct dpv_roce_pkt *pkt);

/**
 * Write every header of a frame; leave payload, pad and ICRC to the caller
 * (then call dpv_roce_build_finish()).
 *
 * Writes Ethernet (+VLAN), IPv4 (IHL 5, given TOS, ID, flags, TTL; length
 * and header checksum computed) or IPv6 (given traffic class, flow label,
 * hop limit; payload length computed), UDP (lengths computed, checksum
 * pkt->udp_csum as given), the BTH (pad count computed from payload_len;
 * reserved bits 0) and the extension headers the opcode carries. Fills the
 * layout fields of pkt (offsets, frame_len, mask, pad).
 *
 * @param buf
 *   Output buffer.
 * @param size
 *   Its size.
 * @param pkt
 *   Descriptor; layout fields are outputs.
 * @return
 *   The payload offset (>= 0) on success;
 *   -EINVAL if the opcode is invalid, payload_len is non-zero for an
 *   opcode without payload or not a multiple of 4 for a first/middle
 *   packet, or the packet would exceed 65535 IP bytes;
 *   -ENOSPC if size is smaller than the frame.
 */
int dpv_roce_build_hdrs(void *buf, uint32_t size, struct dpv_roce_pkt *pkt);

/**
 * Complete a frame written by dpv_roce_build_hdrs() whose payload is in
 * place: zero the pad bytes and write the ICRC (stored in pkt->icrc).
 *
 * @param buf
 *   The frame.
 * @param pkt
 *   The descriptor dpv_roce_build_hdrs() filled.
 */
void dpv_roce_build_finish(void *buf, struct dpv_roce_pkt *pkt);

/**
 * Write a whole frame: dpv_roce_build_hdrs(), copy pkt->payload,
 * dpv_roce_build_finish().
 *
 * @param buf
 *   Output buffer (may not overlap pkt->payload).
 * @param size
 *   Its size.
 * @param pkt
 *   Descriptor; layout fields are outputs.
 * @return
 *   The frame length (> 0), or -EINVAL / -ENOSPC as dpv_roce_build_hdrs().
 */
int dpv_roce_build(void *buf, uint32_t size, struct dpv_roce_pkt *pkt);

#ifdef __cplusplus
}
#endif

#endif /* DPV_ROCE_PKT_H */
