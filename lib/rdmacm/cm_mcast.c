/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Multicast for RDMA_PS_UDP / RDMA_PS_IPOIB IDs, the RoCE way: no SA and
 * no message on the wire. The group's MGID is the IP multicast address
 * (IPv4: its IPv4-mapped GID ::ffff:a.b.c.d; IPv6: the address itself),
 * the QP is attached with ibv_attach_mcast() when the application reads
 * RDMA_CM_EVENT_MULTICAST_JOIN (its thread: the QP is its own), and the
 * event's UD parameters address the group (QPN 0xffffff, the UDP Q_Key).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include "cm_int.h"

#define ERR(e) (errno = (e), -1)
#define MC_QPN	    0xffffffu
#define MC_QKEY	    0x01234567u /* RDMA_UDP_QKEY */
#define MC_HOPLIMIT 1		/* link-local scope: no multicast routing */

static struct cm_id *
to_c(struct rdma_cm_id *id)
{
	return (struct cm_id *)id;
}

static bool
addr_is_mcast(const struct sockaddr *a)
{
	if (a->sa_family == AF_INET)
		return IN_MULTICAST(
			ntohl(((const struct sockaddr_in *)a)->sin_addr.s_addr));
	if (a->sa_family == AF_INET6)
		return IN6_IS_ADDR_MULTICAST(
			&((const struct sockaddr_in6 *)a)->sin6_addr);
	return false;
}

static bool
addr_same(const struct sockaddr *a, const struct sockaddr *b)
{
	if (a->sa_family != b->sa_family)
		return false;
	if (a->sa_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	return memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
		      &((const struct sockaddr_in6 *)b)->sin6_addr, 16) == 0;
}

static struct cm_mc *
mc_find(struct cm_id *c, const struct sockaddr *addr)
{
	struct cm_mc *mc;

	for (mc = c->mcs; mc != NULL; mc = mc->next)
		if (addr_same((const struct sockaddr *)&mc->addr, addr))
			return mc;
	return NULL;
}

/* Attach the ID's QP to a full-member group once. Under cm.lock. */
static int
mc_attach(struct cm_id *c, struct cm_mc *mc)
{
	union ibv_gid g;

	if (mc->attached || c->id.qp == NULL || mc->send_only)
		return 0;
	memcpy(g.raw, mc->mgid, 16);
	if (ibv_attach_mcast(c->id.qp, &g, 0) != 0)
		return errno ? errno : EINVAL;
	mc->attached = true;
	mc->qp = c->id.qp;
	return 0;
}

/* Detach mc from the QP it was attached to, if the ID still has that QP
 * (a QP the application destroyed itself is gone with its groups). */
static void
mc_detach(struct cm_id *c, struct cm_mc *mc)
{
	union ibv_gid g;

	if (!mc->attached)
		return;
	memcpy(g.raw, mc->mgid, 16);
	if (mc->qp == c->id.qp)
		ibv_detach_mcast(mc->qp, &g, 0);
	mc->attached = false;
	mc->qp = NULL;
}

void
cm_mc_join_read(struct cm_event *e)
{
	struct cm_mc *mc = e->join;
	int rc;

	e->join = NULL;
	if (mc == NULL)
		return; /* left before the event was read */
	rc = mc_attach(to_c(e->ev.id), mc);
	if (rc) {
		e->ev.event = RDMA_CM_EVENT_MULTICAST_ERROR;
		e->ev.status = -rc;
	}
}

static int
join(struct cm_id *c, const struct sockaddr *addr, bool send_only,
     void *context)
{
	struct cm_event *e;
	struct cm_mc *mc;
	struct ibv_ah_attr *ah;

	if (c->id.qp_type != IBV_QPT_UD || c->dev == NULL ||
	    (c->state != CS_ADDR_BOUND && c->state != CS_ROUTE &&
	     c->state != CS_UD_READY))
		return EINVAL;
	if (addr->sa_family != c->id.route.addr.src_addr.sa_family ||
	    !addr_is_mcast(addr))
		return EINVAL;
	if (mc_find(c, addr) != NULL)
		return EADDRINUSE;
	mc = calloc(1, sizeof(*mc));
	if (mc == NULL)
		return ENOMEM;
	memcpy(&mc->addr, addr, cm_addr_len(addr));
	cm_addr_to_gid(addr, mc->mgid);
	mc->send_only = send_only;
	mc->context = context;
	e = cm_event_post(c, RDMA_CM_EVENT_MULTICAST_JOIN, 0, NULL, 0);
	if (e == NULL && c->chan != NULL) {
		free(mc);
		return ENOMEM;
	}
	mc->next = c->mcs;
	c->mcs = mc;
	if (e == NULL)
		return 0;
	/* the group, not the peer of a SIDR exchange */
	e->join = mc;
	e->ev.param.ud.private_data = context;
	e->ev.param.ud.private_data_len = 0;
	e->ev.param.ud.qp_num = MC_QPN;
	e->ev.param.ud.qkey = MC_QKEY;
	ah = &e->ev.param.ud.ah_attr;
	memset(ah, 0, sizeof(*ah));
	ah->is_global = 1;
	memcpy(ah->grh.dgid.raw, mc->mgid, 16);
	ah->grh.sgid_index = (uint8_t)c->sgid_index;
	ah->grh.hop_limit = MC_HOPLIMIT;
	ah->grh.traffic_class = c->tos;
	ah->port_num = 1;
	return 0;
}

int
rdma_join_multicast_ex(struct rdma_cm_id *id,
		       struct rdma_cm_join_mc_attr_ex *mc_join_attr,
		       void *context)
{
	struct rdma_cm_join_mc_attr_ex *a = mc_join_attr;
	int rc;

	if (id == NULL || a == NULL)
		return ERR(EINVAL);
	if (a->comp_mask >= RDMA_CM_JOIN_MC_ATTR_RESERVED)
		return ERR(ENOTSUP);
	if (!(a->comp_mask & RDMA_CM_JOIN_MC_ATTR_ADDRESS) ||
	    a->addr == NULL ||
	    !(a->comp_mask & RDMA_CM_JOIN_MC_ATTR_JOIN_FLAGS) ||
	    a->join_flags >= RDMA_MC_JOIN_FLAG_RESERVED)
		return ERR(EINVAL);
	pthread_mutex_lock(&cm.lock);
	rc = join(to_c(id), a->addr,
		  a->join_flags == RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER,
		  context);
	pthread_mutex_unlock(&cm.lock);
	if (rc)
		return ERR(rc);
	return cm_wait_sync(to_c(id), RDMA_CM_EVENT_MULTICAST_JOIN);
}

int
rdma_join_multicast(struct rdma_cm_id *id, struct sockaddr *addr, void *context)
{
	struct rdma_cm_join_mc_attr_ex a = {
		.comp_mask = RDMA_CM_JOIN_MC_ATTR_ADDRESS |
			     RDMA_CM_JOIN_MC_ATTR_JOIN_FLAGS,
		.join_flags = RDMA_MC_JOIN_FLAG_FULLMEMBER,
		.addr = addr,
	};

	return rdma_join_multicast_ex(id, &a, context);
}

/* Forget mc: detach, and unlink it from the join events not read yet.
 * Under cm.lock. */
static void
mc_free(struct cm_id *c, struct cm_mc *mc)
{
	struct cm_event *e;

	mc_detach(c, mc);
	if (c->chan != NULL)
		for (e = c->chan->head; e != NULL; e = e->next)
			if (e->join == mc)
				e->join = NULL;
	free(mc);
}

int
rdma_leave_multicast(struct rdma_cm_id *id, struct sockaddr *addr)
{
	struct cm_id *c = to_c(id);
	struct cm_mc **pp, *mc;

	if (c == NULL || addr == NULL)
		return ERR(EINVAL);
	pthread_mutex_lock(&cm.lock);
	for (pp = &c->mcs; (mc = *pp) != NULL; pp = &mc->next)
		if (addr_same((const struct sockaddr *)&mc->addr, addr))
			break;
	if (mc == NULL) {
		pthread_mutex_unlock(&cm.lock);
		return ERR(EADDRNOTAVAIL);
	}
	*pp = mc->next;
	mc_free(c, mc);
	pthread_mutex_unlock(&cm.lock);
	return 0;
}

void
cm_mc_detach_all(struct cm_id *c)
{
	struct cm_mc *mc;

	for (mc = c->mcs; mc != NULL; mc = mc->next)
		mc_detach(c, mc);
}

void
cm_mc_leave_all(struct cm_id *c)
{
	struct cm_mc *mc;

	while ((mc = c->mcs) != NULL) {
		c->mcs = mc->next;
		mc_free(c, mc);
	}
}
