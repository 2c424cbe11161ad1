/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * UD multicast delivery: a packet to the permissive QPN and a multicast
 * GID goes to every UD QP attached to the group (membership from the
 * dpv_engine_conf::mcast_lookup hook), except the sender itself when it
 * was created with IBV_QP_CREATE_BLOCK_SELF_MCAST_LB.
 */
#include <string.h>

#include "engine_int.h"

#define MCAST_MAX_MEMBERS 64

static bool
gid_is_mcast(const uint8_t g[16])
{
	static const uint8_t v4pfx[12] = {0, 0, 0, 0, 0,    0,
					  0, 0, 0, 0, 0xff, 0xff};

	if (g[0] == 0xff)
		return true;
	return memcmp(g, v4pfx, sizeof(v4pfx)) == 0 && (g[12] & 0xf0) == 0xe0;
}

void
dpv_engine_rx_mcast(struct dpv_engine *e, struct dpv_epkt *pkt)
{
	uint32_t qpns[MCAST_MAX_MEMBERS];
	unsigned n, delivered = 0;
	bool self_mac;

	if (e->conf.mcast_lookup == NULL || !(pkt->flags & DPV_OPF_UD) ||
	    !gid_is_mcast(pkt->dgid)) {
		e->st.rx_drop_noqp++;
		return;
	}
	n = e->conf.mcast_lookup(e->conf.mcast_arg, pkt->dgid, qpns, MCAST_MAX_MEMBERS);
	if (n > MCAST_MAX_MEMBERS)
		n = MCAST_MAX_MEMBERS;
	self_mac = memcmp(pkt->smac, e->mac, 6) == 0;
	for (unsigned i = 0; i < n; i++) {
		struct dpv_eqp *qp = dpv_engine_qp_lookup(e, qpns[i]);

		if (qp == NULL || qp->type != IBV_QPT_UD)
			continue;
		if (!dpv_engine_qp_takes_req(qp))
			continue;
		if (qp->block_self_mcast && self_mac &&
		    pkt->src_qp == qp->wire_qpn)
			continue;
		dpv_engine_responder(qp, pkt);
		delivered++;
	}
	if (delivered == 0)
		e->st.rx_drop_noqp++;
}
