/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Address handles (RoCE v2: every address carries a GRH).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>

#include "dpv_engine.h"
#include "verbs_int.h"
#include "verbs_ops.h"
#include "verbs_port.h"

static bool
gid_is_v4mapped(const uint8_t g[16])
{
	static const uint8_t pfx[12] = {0, 0, 0, 0, 0,	  0,
					0, 0, 0, 0, 0xff, 0xff};

	return memcmp(g, pfx, sizeof(pfx)) == 0;
}

/* Destination MAC of a GID when it can be known without asking the
 * network: multicast groups, MAC-derived link-local GIDs, configured
 * neighbours. Otherwise zero (resolved later). */
static void
resolve_dmac(struct dpv_device *dev, const uint8_t g[16], uint8_t mac[6])
{
	memset(mac, 0, 6);
	if (gid_is_v4mapped(g) && (g[12] & 0xf0) == 0xe0) {
		mac[0] = 0x01;
		mac[1] = 0x00;
		mac[2] = 0x5e;
		mac[3] = g[13] & 0x7f;
		mac[4] = g[14];
		mac[5] = g[15];
		return;
	}
	if (g[0] == 0xff) {
		mac[0] = 0x33;
		mac[1] = 0x33;
		memcpy(mac + 2, g + 12, 4);
		return;
	}
	if (dpv_port_neigh_lookup(dev->port, g, mac) == 0)
		return;
	if (g[0] == 0xfe && (g[1] & 0xc0) == 0x80 && g[11] == 0xff &&
	    g[12] == 0xfe) {
		mac[0] = g[8] ^ 0x02;
		mac[1] = g[9];
		mac[2] = g[10];
		mac[3] = g[13];
		mac[4] = g[14];
		mac[5] = g[15];
	}
}

/* Unknown neighbour: the engine's cache may know it; otherwise send one
 * ARP request / solicitation now (no wait), so that the answer is usually
 * in when the first UD send needs it (the send waits for it otherwise). */
static void
kick_neigh(struct dpv_device *dev, const uint8_t g[16], uint8_t mac[6])
{
	static const uint8_t zero[6];
	uint8_t m[6];

	if (dev->engine == NULL || memcmp(mac, zero, 6) != 0)
		return;
	if (dpv_engine_neigh_resolve(dev->engine, g, m, 0) == 0)
		memcpy(mac, m, 6);
}

struct ibv_ah *
ibv_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	union ibv_gid sgid;
	struct dpv_ah *ah;
	int rc;

	if (pd == NULL || attr == NULL || attr->port_num != 1 ||
	    !attr->is_global) {
		errno = EINVAL;
		return NULL;
	}
	rc = dpv_gid_get(pd->context, attr->port_num, attr->grh.sgid_index,
			 &sgid);
	if (rc != 0) {
		errno = EINVAL;
		return NULL;
	}
	ah = calloc(1, sizeof(*ah));
	if (ah == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	ah->DPV_AH_IBV.context = pd->context;
	ah->DPV_AH_IBV.pd = pd;
	ah->pd = to_dpd(pd);
	ah->attr = *attr;
	memcpy(ah->sgid, sgid.raw, sizeof(ah->sgid));
	resolve_dmac(dctx_dev(pd->context), attr->grh.dgid.raw, ah->dmac);
	kick_neigh(dctx_dev(pd->context), attr->grh.dgid.raw, ah->dmac);
	struct dpv_mlx5_av_attr av = {
		.sgid_index = attr->grh.sgid_index,
		.hop_limit = attr->grh.hop_limit,
		.traffic_class = attr->grh.traffic_class,
		.flow_label = attr->grh.flow_label & 0xfffff,
		.sl = attr->sl & 7,
		.static_rate = attr->static_rate,
	};

	memcpy(av.dgid, attr->grh.dgid.raw, sizeof(av.dgid));
	memcpy(av.dmac, ah->dmac, sizeof(av.dmac));
	dpv_mlx5_av_build(&ah->mah.av, &av);
	dpv_ref_get(&ah->pd->refcnt);
	return &ah->DPV_AH_IBV;
}

int
ibv_destroy_ah(struct ibv_ah *ibah)
{
	struct dpv_ah *ah = to_dah(ibah);

	dpv_ref_put(&ah->pd->refcnt);
	free(ah);
	return 0;
}

/* Index of one of our GIDs, or -1. */
static int
own_gid_index(struct ibv_context *ctx, const uint8_t g[16])
{
	for (unsigned int i = 0; i < DPV_CAP_GID_TBL_LEN; i++) {
		union ibv_gid mine;

		if (dpv_gid_get(ctx, 1, i, &mine) == 0 &&
		    memcmp(mine.raw, g, 16) == 0)
			return (int)i;
	}
	return -1;
}

int
ibv_init_ah_from_wc(struct ibv_context *context, uint8_t port_num,
		    struct ibv_wc *wc, struct ibv_grh *grh,
		    struct ibv_ah_attr *ah_attr)
{
	uint8_t sgid[16], dgid[16];
	uint32_t flow = 0;
	uint8_t tclass;
	int idx;

	if (port_num != 1 || wc == NULL || grh == NULL ||
	    !(wc->wc_flags & IBV_WC_GRH)) {
		errno = EINVAL;
		return -1;
	}
	const uint8_t *ip4 = (const uint8_t *)grh + 20;
	uint32_t vtf = rte_be_to_cpu_32(grh->version_tclass_flow);

	if ((vtf >> 28) == 6) {
		memcpy(sgid, grh->sgid.raw, 16); /* the sender */
		memcpy(dgid, grh->dgid.raw, 16); /* us */
		tclass = (vtf >> 20) & 0xff;
		flow = vtf & 0xfffff;
	} else if ((ip4[0] >> 4) == 4) {
		/* RoCE v2 over IPv4: the IPv4 header is in the last 20 bytes */
		memset(sgid, 0, 10);
		sgid[10] = sgid[11] = 0xff;
		memcpy(dgid, sgid, 12);
		memcpy(sgid + 12, ip4 + 12, 4); /* source address */
		memcpy(dgid + 12, ip4 + 16, 4); /* destination address */
		tclass = ip4[1];
	} else {
		errno = EINVAL;
		return -1;
	}
	idx = own_gid_index(context, dgid);
	if (idx < 0) {
		errno = ENOENT;
		return -1;
	}
	memset(ah_attr, 0, sizeof(*ah_attr));
	ah_attr->dlid = wc->slid;
	ah_attr->sl = wc->sl;
	ah_attr->src_path_bits = wc->dlid_path_bits;
	ah_attr->port_num = port_num;
	ah_attr->is_global = 1;
	memcpy(ah_attr->grh.dgid.raw, sgid, 16);
	ah_attr->grh.sgid_index = (uint8_t)idx;
	ah_attr->grh.flow_label = flow;
	ah_attr->grh.hop_limit = 0xff; /* the reply may take any path */
	ah_attr->grh.traffic_class = tclass;
	return 0;
}

struct ibv_ah *
ibv_create_ah_from_wc(struct ibv_pd *pd, struct ibv_wc *wc, struct ibv_grh *grh,
		      uint8_t port_num)
{
	struct ibv_ah_attr attr;

	if (ibv_init_ah_from_wc(pd->context, port_num, wc, grh, &attr) != 0)
		return NULL;
	return ibv_create_ah(pd, &attr);
}

int
ibv_resolve_eth_l2_from_gid(struct ibv_context *context,
			    struct ibv_ah_attr *attr,
			    uint8_t eth_mac[ETHERNET_LL_SIZE], uint16_t *vid)
{
	static const uint8_t zero[6];
	union ibv_gid sgid;

	if (attr == NULL || !attr->is_global ||
	    dpv_gid_get(context, attr->port_num, attr->grh.sgid_index, &sgid) !=
		    0)
		return EINVAL;
	resolve_dmac(dctx_dev(context), attr->grh.dgid.raw, eth_mac);
	/* then the engine's neighbour cache; when unknown there, one ARP
	 * request / solicitation goes out and a later call may answer */
	kick_neigh(dctx_dev(context), attr->grh.dgid.raw, eth_mac);
	if (vid)
		*vid = 0xffff; /* untagged */
	return memcmp(eth_mac, zero, 6) == 0 ? EHOSTUNREACH : 0;
}
