/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Receive checks that need the engine's or a QP's state (lib/roce's parser
 * has done the ones a frame can answer alone): destination address and
 * payload length against the path MTU. Inline: they run per packet.
 */
#ifndef ENGINE_RXCHECK_H
#define ENGINE_RXCHECK_H

#include "engine_int.h"

/* Count a frame lib/roce's parser rejected (not the hot path). */
void dpv_engine_count_parse_drop(struct dpv_engine *e,
				 enum dpv_roce_rx_status why);

/* Is gid one of the device's addresses? (engine_neigh.c) */
bool dpv_engine_addr_local(struct dpv_engine *e, const uint8_t gid[16]);

/*
 * IBTA packet length rules for a packet with payload: FIRST and MIDDLE
 * carry exactly the path MTU, LAST 1 .. MTU bytes, ONLY at most the MTU.
 */
static inline bool
dpv_engine_len_bad(uint32_t fl, uint32_t paylen, uint32_t mtu)
{
	if (!(fl & DPV_OPF_PAYLOAD))
		return false;
	if ((fl & DPV_OPF_ONLY) == DPV_OPF_ONLY)
		return paylen > mtu;
	if (fl & (DPV_OPF_FIRST | DPV_OPF_MIDDLE))
		return paylen != mtu;
	if (fl & DPV_OPF_LAST)
		return paylen == 0 || paylen > mtu;
	return false;
}

/*
 * The destination IP is the QP's own address (connected QPs: the source
 * GID of its path, which the peer sends to) or, for UD, one of the
 * device's. Counts rx_drop_dip when not.
 */
static inline bool
dpv_engine_rx_dip_ok(struct dpv_eqp *qp, const struct dpv_epkt *pkt)
{
	bool ok;

	if (qp->type != IBV_QPT_UD)
		ok = memcmp(pkt->dgid, qp->path.sgid, 16) == 0;
	else
		ok = qp->e->port == NULL ||
		     dpv_engine_addr_local(qp->e, pkt->dgid);
	if (unlikely(!ok))
		DPV_EQP_COUNT(qp, rx_drop_dip);
	return ok;
}

/*
 * Responses (READ responses) must follow the length rules; requests are
 * checked by the responder after their PSN (RC answers NAK invalid
 * request). UD has no path MTU: the frame fitting an mbuf is its check.
 * Counts rx_drop_len when dropped.
 */
static inline bool
dpv_engine_rx_len_ok(struct dpv_eqp *qp, const struct dpv_epkt *pkt)
{
	if ((pkt->flags & DPV_OPF_REQ) || qp->type == IBV_QPT_UD ||
	    likely(!dpv_engine_len_bad(pkt->flags, pkt->paylen, qp->mtu)))
		return true;
	DPV_EQP_COUNT(qp, rx_drop_len);
	return false;
}

#endif /* ENGINE_RXCHECK_H */
