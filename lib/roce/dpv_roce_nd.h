/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DPV_ROCE_ND_H
#define DPV_ROCE_ND_H

/**
 * @file
 * ARP (IPv4 over Ethernet) and IPv6 Neighbor Discovery (Neighbor
 * Solicitation / Advertisement) frames, for resolving the destination MAC
 * of a RoCEv2 path the way the kernel does for hardware RoCE.
 *
 * Each message is a descriptor (struct dpv_arp, struct dpv_nd) that the
 * parse functions fill from a frame and the build functions write into a
 * frame; parse-then-build reproduces Linux's frames byte for byte. Helpers
 * make the request a resolver sends and the answer a responder gives.
 * Pure functions over buffers, as the rest of lib/roce.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_byteorder.h>

#ifdef __cplusplus
extern "C" {
#endif

/** ARP operation: request. */
#define DPV_ARP_REQUEST 1
/** ARP operation: reply. */
#define DPV_ARP_REPLY 2

/** An ARP message for IPv4 over Ethernet. */
struct dpv_arp {
	uint8_t dmac[6];   /**< Ethernet destination (broadcast for requests) */
	uint8_t smac[6];   /**< Ethernet source */
	bool vlan;	   /**< 802.1Q tagged */
	uint16_t vlan_tci; /**< tag control information */
	uint16_t op;	   /**< DPV_ARP_REQUEST or DPV_ARP_REPLY */
	uint8_t sha[6];	   /**< sender hardware address */
	rte_be32_t spa;	   /**< sender IPv4 address, network order */
	uint8_t tha[6];	   /**< target hardware address (0 in requests) */
	rte_be32_t tpa;	   /**< target IPv4 address, network order */
};

/**
 * Parse an ARP frame.
 *
 * @param frame
 *   Ethernet frame without FCS (Ethernet padding allowed).
 * @param len
 *   Its length.
 * @param arp
 *   Output.
 * @return
 *   0; -EPROTO if it is not an ARP frame; -EINVAL if it is ARP but not a
 *   well-formed Ethernet/IPv4 request or reply.
 */
int dpv_arp_parse(const void *frame, uint32_t len, struct dpv_arp *arp);

/**
 * Write an ARP frame (42 bytes, 46 with a VLAN tag; no Ethernet padding).
 *
 * @param buf
 *   Output buffer.
 * @param size
 *   Its size.
 * @param arp
 *   Message.
 * @return
 *   The frame length, or -ENOSPC if size is too small.
 */
int dpv_arp_build(void *buf, uint32_t size, const struct dpv_arp *arp);

/**
 * Make a broadcast request "who has tip? tell sip".
 *
 * @param arp
 *   Output (VLAN off; set vlan/vlan_tci afterwards if needed).
 * @param mac
 *   Our MAC.
 * @param sip
 *   Our IPv4 address, network order.
 * @param tip
 *   Address to resolve, network order.
 */
void dpv_arp_make_request(struct dpv_arp *arp, const uint8_t mac[6],
			  rte_be32_t sip, rte_be32_t tip);

/**
 * Make the reply to a request for one of our addresses.
 *
 * @param reply
 *   Output (same VLAN as the request).
 * @param req
 *   The request (its tpa is the address we answer for).
 * @param mac
 *   Our MAC.
 */
void dpv_arp_make_reply(struct dpv_arp *reply, const struct dpv_arp *req,
			const uint8_t mac[6]);

/** ICMPv6 type of a Neighbor Solicitation. */
#define DPV_ND_NS 135
/** ICMPv6 type of a Neighbor Advertisement. */
#define DPV_ND_NA 136
/** NA flag: sender is a router. */
#define DPV_ND_NA_ROUTER 0x80000000u
/** NA flag: answer to a solicitation. */
#define DPV_ND_NA_SOLICITED 0x40000000u
/** NA flag: override an existing cache entry. */
#define DPV_ND_NA_OVERRIDE 0x20000000u

/** A Neighbor Solicitation or Advertisement. */
struct dpv_nd {
	uint8_t dmac[6];    /**< Ethernet destination */
	uint8_t smac[6];    /**< Ethernet source */
	bool vlan;	    /**< an 802.1Q tag follows the MAC addresses */
	uint16_t vlan_tci;  /**< with vlan: PCP + DEI + VID */
	uint8_t src[16];    /**< IPv6 source */
	uint8_t dst[16];    /**< IPv6 destination */
	uint8_t type;	    /**< DPV_ND_NS or DPV_ND_NA */
	uint32_t flags;	    /**< NA: DPV_ND_NA_* bits; NS: 0 */
	uint8_t target[16]; /**< target address */
	bool has_lladdr;    /**< NS: source, NA: target link-layer option */
	uint8_t lladdr[6];  /**< that option's MAC */
};

/**
 * Parse an NS or NA frame and check it as RFC 4861 asks: IPv6 next
 * header ICMPv6, hop limit 255, code 0, ICMPv6 checksum, length, options
 * with non-zero lengths inside the packet, a non-multicast target.
 *
 * @param frame
 *   Ethernet frame without FCS.
 * @param len
 *   Its length.
 * @param nd
 *   Output.
 * @return
 *   0; -EPROTO if the frame is not an ICMPv6 NS/NA; -EINVAL if it is one
 *   but fails a check.
 */
int dpv_nd_parse(const void *frame, uint32_t len, struct dpv_nd *nd);

/**
 * Write an NS or NA frame (hop limit 255, traffic class and flow label 0,
 * ICMPv6 checksum computed; the link-layer option if has_lladdr).
 *
 * @param buf
 *   Output buffer.
 * @param size
 *   Its size.
 * @param nd
 *   Message.
 * @return
 *   The frame length, -EINVAL for a type other than NS/NA, or -ENOSPC.
 */
int dpv_nd_build(void *buf, uint32_t size, const struct dpv_nd *nd);

/**
 * Make a multicast NS for target, sent to its solicited-node address.
 *
 * @param nd
 *   Output.
 * @param mac
 *   Our MAC (source link-layer option).
 * @param src
 *   Our IPv6 address.
 * @param target
 *   Address to resolve.
 */
void dpv_nd_make_solicit(struct dpv_nd *nd, const uint8_t mac[6],
			 const uint8_t src[16], const uint8_t target[16]);

/**
 * Make the solicited NA (flags S and O) answering an NS for one of our
 * addresses.
 *
 * @param na
 *   Output.
 * @param ns
 *   The solicitation (its target is the address we answer for).
 * @param mac
 *   Our MAC (target link-layer option).
 */
void dpv_nd_make_advert(struct dpv_nd *na, const struct dpv_nd *ns,
			const uint8_t mac[6]);

/**
 * Solicited-node multicast address ff02::1:ffXX:XXXX of an address.
 *
 * @param out
 *   Output, 16 bytes.
 * @param addr
 *   IPv6 address.
 */
void dpv_nd_solicited_node(uint8_t out[16], const uint8_t addr[16]);

/**
 * Ethernet multicast MAC 33:33:xx:xx:xx:xx of an IPv6 multicast address.
 *
 * @param mac
 *   Output, 6 bytes.
 * @param addr
 *   IPv6 multicast address.
 */
void dpv_ipv6_mcast_mac(uint8_t mac[6], const uint8_t addr[16]);

#ifdef __cplusplus
}
#endif

#endif /* DPV_ROCE_ND_H */
