/* SPDX-License-Identifier: BSD-3-Clause */
/* Pure arithmetic of the transports: RNR timer codes, ACK timeout, MTU. */
#include "dpv_engine.h"

/* IBA "RNR NAK timer field" encodings, in microseconds. */
static const uint32_t rnr_us[32] = {
	655360, 10,    20,    30,     40,     60,     80,     120,
	160,	240,   320,   480,    640,    960,    1280,   1920,
	2560,	3840,  5120,  7680,   10240,  15360,  20480,  30720,
	40960,	61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

uint32_t
dpv_rnr_timer_us(uint8_t code)
{
	return rnr_us[code & 31];
}

uint64_t
dpv_ack_timeout_ns(uint8_t timeout)
{
	if (timeout == 0)
		return 0;
	if (timeout > 31)
		timeout = 31;
	/* 4.096 us = 4096 ns */
	return (uint64_t)4096 << timeout;
}

uint32_t
dpv_mtu_bytes(enum ibv_mtu mtu)
{
	if (mtu < IBV_MTU_256 || mtu > IBV_MTU_4096)
		return 0;
	return 128u << mtu;
}
