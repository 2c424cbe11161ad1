/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Neighbours: the engine owns the port's RX queue, so it learns the MACs
 * of peers from what it receives, sends queries for
 * dpv_engine_neigh_resolve(), and answers ARP requests and IPv6 neighbour
 * solicitations for the device's addresses. With a kernel interface
 * (dpv_port_netdev_put()) the frames that are not RoCE go to the kernel
 * as well, and what it sends goes out on the port; the engine still
 * answers for the device's own addresses, because the kernel drops a
 * request whose sender address is one of its own (two dpverbs processes
 * on one host, each with a kernel interface, joined by vhost-user /
 * virtio-user: neither could resolve the other). Frames are built by
 * lib/roce (dpv_roce_nd.h).
 */
#include <errno.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ether.h>

#include "engine_int.h"
#include "engine_rxcheck.h"
#include "dpv_port.h"
#include "dpv_roce_gid.h"
#include "dpv_roce_nd.h"

/* Frames read from the kernel interface per read, at most */
#define NETDEV_BURST 16
/* Reads of an idle kernel interface per second */
#define NETDEV_READ_HZ 5000

bool
dpv_engine_addr_local(struct dpv_engine *e, const uint8_t gid[16])
{
	return dpv_port_gid_find(e->port, gid) >= 0;
}

static void
learn(struct dpv_engine *e, const uint8_t gid[16], const uint8_t mac[6])
{
	static const uint8_t zero_mac[6];
	struct dpv_eneigh *free_slot = NULL, *oldest = &e->neigh[0];

	/* mac points into a frame: no alignment, so compare bytes */
	if (memcmp(mac, zero_mac, sizeof(zero_mac)) == 0 || (mac[0] & 1))
		return;
	for (unsigned i = 0; i < DPV_ENGINE_NEIGH; i++) {
		struct dpv_eneigh *n = &e->neigh[i];

		if (n->valid && memcmp(n->gid, gid, 16) == 0) {
			memcpy(n->mac, mac, 6);
			n->tsc = dpv_engine_now();
			return;
		}
		if (!n->valid && free_slot == NULL)
			free_slot = n;
		if (n->tsc < oldest->tsc)
			oldest = n;
	}
	if (free_slot == NULL)
		free_slot = oldest;
	memcpy(free_slot->gid, gid, 16);
	memcpy(free_slot->mac, mac, 6);
	free_slot->tsc = dpv_engine_now();
	free_slot->valid = true;
}

static void
tx_frame(struct dpv_engine *e, const void *frame, int len)
{
	struct rte_mbuf *m;
	void *d;

	if (len <= 0)
		return;
	m = rte_pktmbuf_alloc(e->mp);
	if (m == NULL)
		return;
	d = rte_pktmbuf_append(m, (uint16_t)RTE_MAX(len, 60));
	if (d == NULL) {
		rte_pktmbuf_free(m);
		return;
	}
	memset(d, 0, RTE_MAX(len, 60));
	memcpy(d, frame, len);
	if (!dpv_engine_tx_room(e)) {
		rte_pktmbuf_free(m);
		return;
	}
	e->tx[e->ntx++] = m;
	e->work++;
}

bool
dpv_engine_rx_neigh(struct dpv_engine *e, struct rte_mbuf *m)
{
	const void *f = rte_pktmbuf_mtod(m, const void *);
	uint8_t buf[128], gid[16];
	struct dpv_arp arp, rep;
	struct dpv_nd nd, na;

	if (e->port == NULL || !rte_pktmbuf_is_contiguous(m))
		return false;
	if (dpv_arp_parse(f, m->data_len, &arp) == 0) {
		dpv_roce_gid_from_ipv4(gid, arp.spa);
		if (arp.spa != 0)
			learn(e, gid, arp.sha);
		dpv_roce_gid_from_ipv4(gid, arp.tpa);
		if (arp.op == DPV_ARP_REQUEST &&
		    dpv_engine_addr_local(e, gid)) {
			dpv_arp_make_reply(&rep, &arp, e->mac);
			tx_frame(e, buf, dpv_arp_build(buf, sizeof(buf), &rep));
		}
		e->st.rx_neigh++;
		return true;
	}
	if (dpv_nd_parse(f, m->data_len, &nd) == 0) {
		if (nd.type == DPV_ND_NS) {
			if (nd.has_lladdr)
				learn(e, nd.src, nd.lladdr);
			if (dpv_engine_addr_local(e, nd.target)) {
				dpv_nd_make_advert(&na, &nd, e->mac);
				tx_frame(e, buf,
					 dpv_nd_build(buf, sizeof(buf), &na));
			}
		} else if (nd.has_lladdr) {
			learn(e, nd.target, nd.lladdr);
		}
		e->st.rx_neigh++;
		return true;
	}
	return false;
}

/* Not RoCE: what a host's kernel would take (ICMP, TCP, other UDP,
 * fragments, other protocols). Bad RoCE frames are dropped. */
static inline bool
for_kernel(enum dpv_roce_rx_status why)
{
	return why == DPV_ROCE_RX_NOT_IP || why == DPV_ROCE_RX_NOT_UDP ||
	       why == DPV_ROCE_RX_UDP_PORT || why == DPV_ROCE_RX_IPV4_FRAG;
}

void
dpv_engine_rx_other(struct dpv_engine *e, struct rte_mbuf *m,
		    enum dpv_roce_rx_status why)
{
	bool kernel = e->netdev && for_kernel(why);

	/* ARP / ND: learnt from either way (RoCE needs the MACs), and
	 * answered for the device's addresses (see the top) */
	if (!dpv_engine_rx_neigh(e, m) && !kernel) {
		dpv_engine_count_parse_drop(e, why);
		return;
	}
	if (!kernel)
		return;
	if (dpv_port_netdev_put(e->port, m) == 0)
		e->st.rx_netdev++;
	else
		e->st.rx_netdev_drop++;
}

void
dpv_engine_netdev_pass(struct dpv_engine *e)
{
	struct rte_mbuf *pkts[NETDEV_BURST];
	uint16_t n, i;

	n = dpv_port_netdev_get(e->port, e->mp, pkts, NETDEV_BURST);
	for (i = 0; i < n && dpv_engine_tx_room(e); i++)
		e->tx[e->ntx++] = pkts[i];
	e->st.tx_netdev += i;
	e->work += i;
	if (i < n) {
		e->st.tx_netdev_drop += n - i;
		rte_pktmbuf_free_bulk(pkts + i, n - i);
	}
	/* a full batch: more may wait, read again at the next poll */
	e->netdev_next =
		n == NETDEV_BURST ? e->now : e->now + e->hz / NETDEV_READ_HZ;
}

bool
dpv_engine_neigh_cached(struct dpv_engine *e, const uint8_t gid[16],
			uint8_t mac[6])
{
	for (unsigned i = 0; i < DPV_ENGINE_NEIGH; i++) {
		if (e->neigh[i].valid &&
		    memcmp(e->neigh[i].gid, gid, 16) == 0) {
			memcpy(mac, e->neigh[i].mac, 6);
			return true;
		}
	}
	return false;
}

/* Send an ARP request or a neighbour solicitation for gid. */
int
dpv_engine_neigh_query(struct dpv_engine *e, const uint8_t gid[16])
{
	uint8_t buf[128], src[16];
	bool v4 = dpv_roce_gid_is_ipv4(gid);
	unsigned i;

	if (e->port == NULL)
		return -EOPNOTSUPP;
	/* a source address of the same family */
	for (i = 0; i < DPV_PORT_GID_TBL_LEN; i++)
		if (dpv_port_gid(e->port, i, src) == 0 &&
		    dpv_roce_gid_is_ipv4(src) == v4)
			break;
	if (i == DPV_PORT_GID_TBL_LEN)
		return -EADDRNOTAVAIL;
	if (v4) {
		struct dpv_arp arp;

		dpv_arp_make_request(&arp, e->mac, dpv_roce_gid_to_ipv4(src),
				     dpv_roce_gid_to_ipv4(gid));
		tx_frame(e, buf, dpv_arp_build(buf, sizeof(buf), &arp));
	} else {
		struct dpv_nd ns;

		dpv_nd_make_solicit(&ns, e->mac, src, gid);
		tx_frame(e, buf, dpv_nd_build(buf, sizeof(buf), &ns));
	}
	dpv_engine_tx_flush(e);
	return 0;
}

int
dpv_engine_neigh_resolve(struct dpv_engine *e, const uint8_t gid[16],
			 uint8_t mac[6], unsigned timeout_ms)
{
	uint64_t hz = rte_get_timer_hz(), start = rte_get_timer_cycles();
	uint64_t next = start;
	bool found;
	int ret;

	if (e == NULL || gid == NULL || mac == NULL)
		return -EINVAL;
	if (e->port == NULL) {
		memcpy(mac, e->mac, 6); /* internal loopback: ourselves */
		return 0;
	}
	if (dpv_port_neigh_lookup(e->port, gid, mac) == 0)
		return 0;
	for (;;) {
		dpv_engine_lock(e);
		found = dpv_engine_neigh_cached(e, gid, mac);
		ret = 0;
		if (!found && rte_get_timer_cycles() >= next) {
			ret = dpv_engine_neigh_query(e, gid);
			next = rte_get_timer_cycles() + hz / 5; /* 200 ms */
		}
		if (!found)
			dpv_engine_poll(e, 0);
		rte_spinlock_unlock(&e->lock);
		if (found)
			return 0;
		if (ret < 0)
			return ret;
		if (rte_get_timer_cycles() - start >= timeout_ms * hz / 1000)
			return -ETIMEDOUT;
		rte_delay_us_sleep(100);
	}
}
