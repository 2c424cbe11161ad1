/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DPV_ROCE_GID_H
#define DPV_ROCE_GID_H

/**
 * @file
 * RoCEv2 GIDs and UDP source ports.
 *
 * A RoCEv2 GID is an IPv6 address (16 bytes, network order). An IPv4
 * address is carried as the IPv4-mapped IPv6 address ::ffff:a.b.c.d; the
 * link-local GID of a port is fe80::/64 followed by the modified EUI-64
 * built from the port's MAC (universal/local bit inverted, ff:fe inserted).
 *
 * The UDP source port of RoCEv2 packets is entropy for ECMP: it must stay
 * the same for all packets of one QP so that they take one path and stay
 * in order. The range is 0xC000..0xFFFF.
 *
 * All functions are pure: no state, no locks, callable from any thread.
 */

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Lowest UDP source port used for RoCEv2 (IANA dynamic range start). */
#define DPV_ROCE_UDP_SPORT_MIN 0xC000

/**
 * Make the IPv4-mapped GID ::ffff:a.b.c.d.
 *
 * @param gid
 *   Output, 16 bytes.
 * @param ipv4_be
 *   IPv4 address in network byte order.
 */
void dpv_roce_gid_from_ipv4(uint8_t gid[16], uint32_t ipv4_be);

/**
 * Make a GID from an IPv6 address (a plain copy).
 *
 * @param gid
 *   Output, 16 bytes.
 * @param ip6
 *   IPv6 address, 16 bytes in network order.
 */
void dpv_roce_gid_from_ipv6(uint8_t gid[16], const uint8_t ip6[16]);

/**
 * Make the link-local GID fe80::/64 + modified EUI-64 of a MAC address,
 * e.g. 52:54:00:00:02:0b -> fe80::5054:ff:fe00:20b.
 *
 * @param gid
 *   Output, 16 bytes.
 * @param mac
 *   Ethernet address, 6 bytes.
 */
void dpv_roce_gid_from_mac(uint8_t gid[16], const uint8_t mac[6]);

/**
 * Tell whether a GID is an IPv4-mapped address (::ffff:0:0/96).
 *
 * @param gid
 *   GID, 16 bytes.
 * @return
 *   true if the first 10 bytes are 0 and the next two 0xff.
 */
bool dpv_roce_gid_is_ipv4(const uint8_t gid[16]);

/**
 * Extract the IPv4 address of an IPv4-mapped GID.
 *
 * @param gid
 *   GID, 16 bytes.
 * @return
 *   The last 4 bytes of the GID as an IPv4 address in network byte order.
 *   The caller checks dpv_roce_gid_is_ipv4() first; no check is made.
 */
uint32_t dpv_roce_gid_to_ipv4(const uint8_t gid[16]);

/**
 * UDP source port for the packets of a QP, from its local and remote QPN.
 *
 * The rule is the one RoCE hardware and the Linux RDMA core use: a 20-bit
 * flow label is derived from lqpn * rqpn (folding the upper bits down) and
 * folded into 14 bits above 0xC000. The same pair always gives the same
 * port; the mapping is symmetric in its two arguments.
 *
 * @param local_qpn
 *   Local QP number (24 bits used).
 * @param remote_qpn
 *   Destination QP number (24 bits used).
 * @return
 *   A port in 0xC000..0xFFFF, host byte order.
 */
uint16_t dpv_roce_udp_sport(uint32_t local_qpn, uint32_t remote_qpn);

/**
 * UDP source port the way Linux rdma_rxe chooses it: 0xC000 plus a 14-bit
 * multiplicative hash of the local QPN alone. Lets a frame be rebuilt
 * exactly as rxe sent it.
 *
 * @param qpn
 *   Local QP number.
 * @return
 *   A port in 0xC000..0xFFFF, host byte order.
 */
uint16_t dpv_roce_udp_sport_rxe(uint32_t qpn);

/**
 * The 20-bit IPv6 flow label derived from a QP pair (RDMA core rule). The
 * UDP source port of dpv_roce_udp_sport() is folded from this value.
 *
 * @param local_qpn
 *   Local QP number.
 * @param remote_qpn
 *   Remote QP number.
 * @return
 *   A flow label in 0..0xFFFFF.
 */
uint32_t dpv_roce_flow_label(uint32_t local_qpn, uint32_t remote_qpn);

#ifdef __cplusplus
}
#endif

#endif /* DPV_ROCE_GID_H */
