/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include "dpv_roce_gid.h"

void
dpv_roce_gid_from_ipv4(uint8_t gid[16], uint32_t ipv4_be)
{
	memset(gid, 0, 10);
	gid[10] = 0xff;
	gid[11] = 0xff;
	memcpy(&gid[12], &ipv4_be, 4);
}

void
dpv_roce_gid_from_ipv6(uint8_t gid[16], const uint8_t ip6[16])
{
	memmove(gid, ip6, 16);
}

void
dpv_roce_gid_from_mac(uint8_t gid[16], const uint8_t mac[6])
{
	memset(gid, 0, 16);
	gid[0] = 0xfe;
	gid[1] = 0x80;
	gid[8] = mac[0] ^ 0x02; /* universal/local bit */
	gid[9] = mac[1];
	gid[10] = mac[2];
	gid[11] = 0xff;
	gid[12] = 0xfe;
	gid[13] = mac[3];
	gid[14] = mac[4];
	gid[15] = mac[5];
}

bool
dpv_roce_gid_is_ipv4(const uint8_t gid[16])
{
	static const uint8_t prefix[12] = {0, 0, 0, 0, 0,    0,
					   0, 0, 0, 0, 0xff, 0xff};

	return memcmp(gid, prefix, sizeof(prefix)) == 0;
}

uint32_t
dpv_roce_gid_to_ipv4(const uint8_t gid[16])
{
	uint32_t v;

	memcpy(&v, &gid[12], 4);
	return v;
}

uint32_t
dpv_roce_flow_label(uint32_t local_qpn, uint32_t remote_qpn)
{
	uint64_t v = (uint64_t)(local_qpn & 0xffffff) * (remote_qpn & 0xffffff);

	v ^= v >> 20;
	v ^= v >> 40;
	return (uint32_t)(v & 0xfffff);
}

uint16_t
dpv_roce_udp_sport(uint32_t local_qpn, uint32_t remote_qpn)
{
	uint32_t fl = dpv_roce_flow_label(local_qpn, remote_qpn);
	uint32_t lo = fl & 0x3fff;

	lo ^= (fl & 0xfc000) >> 14;
	return (uint16_t)(DPV_ROCE_UDP_SPORT_MIN | lo);
}

uint16_t
dpv_roce_udp_sport_rxe(uint32_t qpn)
{
	/* 32-bit golden-ratio multiplicative hash, top 14 bits */
	uint32_t h = qpn * 0x61C88647u;

	return (uint16_t)(DPV_ROCE_UDP_SPORT_MIN + ((h >> 18) & 0x3fff));
}
