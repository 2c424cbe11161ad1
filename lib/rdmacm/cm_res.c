/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Verbs resources of an ID (rdma_create_qp, SRQs, rdma_init_qp_attr),
 * rdma_getaddrinfo, the endpoint helpers (rdma_create_ep,
 * rdma_get_request), and ECE.
 */
#include <errno.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include "cm_int.h"

#define ERR(e) (errno = (e), -1)

static struct cm_id *
to_c(struct rdma_cm_id *id)
{
	return (struct cm_id *)id;
}

/* A CQ (and completion channel) of the ID, as rdma-core does when the
 * caller gives none. */
static struct ibv_cq *
id_cq(struct rdma_cm_id *id, struct ibv_comp_channel **chp, int size)
{
	*chp = ibv_create_comp_channel(id->verbs);
	if (*chp == NULL)
		return NULL;
	struct ibv_cq *cq = ibv_create_cq(id->verbs, size, id, *chp, 0);

	if (cq == NULL) {
		ibv_destroy_comp_channel(*chp);
		*chp = NULL;
	}
	return cq;
}

static void
id_cqs_free(struct rdma_cm_id *id)
{
	if (id->recv_cq && id->recv_cq != id->send_cq) {
		ibv_destroy_cq(id->recv_cq);
		ibv_destroy_comp_channel(id->recv_cq_channel);
	}
	if (id->send_cq) {
		ibv_destroy_cq(id->send_cq);
		ibv_destroy_comp_channel(id->send_cq_channel);
	}
	id->recv_cq = id->send_cq = NULL;
	id->recv_cq_channel = id->send_cq_channel = NULL;
}

int
rdma_create_qp_ex(struct rdma_cm_id *id, struct ibv_qp_init_attr_ex *attr)
{
	struct cm_id *c = to_c(id);
	bool own_cq = false;
	struct ibv_qp *qp;
	int rc;

	if (c == NULL || attr == NULL || id->verbs == NULL)
		return ERR(EINVAL);
	if (id->qp != NULL)
		return ERR(EINVAL);
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD) || attr->pd == NULL) {
		attr->pd = id->pd ? id->pd : c->dev->app_pd;
		attr->comp_mask |= IBV_QP_INIT_ATTR_PD;
	}
	if (attr->pd->context != id->verbs)
		return ERR(EINVAL);
	if (attr->send_cq == NULL && id->send_cq == NULL) {
		id->send_cq = id_cq(id, &id->send_cq_channel,
				    (int)attr->cap.max_send_wr + 1);
		if (id->send_cq == NULL)
			return -1;
		own_cq = true;
	}
	if (attr->recv_cq == NULL && id->recv_cq == NULL && !attr->srq) {
		id->recv_cq = id_cq(id, &id->recv_cq_channel,
				    (int)attr->cap.max_recv_wr + 1);
		if (id->recv_cq == NULL) {
			id_cqs_free(id);
			return -1;
		}
		own_cq = true;
	}
	if (attr->send_cq == NULL)
		attr->send_cq = id->send_cq;
	if (attr->recv_cq == NULL)
		attr->recv_cq = id->recv_cq ? id->recv_cq : id->send_cq;
	if (attr->srq == NULL && id->srq != NULL)
		attr->srq = id->srq;
	if (attr->qp_type == 0)
		attr->qp_type = id->qp_type;
	qp = ibv_create_qp_ex(id->verbs, attr);
	if (qp == NULL) {
		rc = errno;
		if (own_cq)
			id_cqs_free(id);
		return ERR(rc);
	}
	pthread_mutex_lock(&cm.lock);
	id->qp = qp;
	id->qp_type = qp->qp_type;
	cm_ece_init(c);
	rc = cm_qp_to(c, IBV_QPS_INIT);
	if (rc == 0 && qp->qp_type == IBV_QPT_UD) {
		rc = cm_qp_to(c, IBV_QPS_RTR);
		if (rc == 0)
			rc = cm_qp_to(c, IBV_QPS_RTS);
	}
	if (rc)
		id->qp = NULL;
	pthread_mutex_unlock(&cm.lock);
	if (rc) {
		ibv_destroy_qp(qp);
		if (own_cq)
			id_cqs_free(id);
		return ERR(rc);
	}
	return 0;
}

int
rdma_create_qp(struct rdma_cm_id *id, struct ibv_pd *pd,
	       struct ibv_qp_init_attr *qp_init_attr)
{
	struct ibv_qp_init_attr_ex ex;
	int rc;

	if (id == NULL || qp_init_attr == NULL)
		return ERR(EINVAL);
	memset(&ex, 0, sizeof(ex));
	memcpy(&ex, qp_init_attr, sizeof(*qp_init_attr));
	ex.comp_mask = pd ? IBV_QP_INIT_ATTR_PD : 0;
	ex.pd = pd;
	rc = rdma_create_qp_ex(id, &ex);
	if (rc == 0) {
		qp_init_attr->cap = ex.cap;
		qp_init_attr->send_cq = ex.send_cq;
		qp_init_attr->recv_cq = ex.recv_cq;
	}
	return rc;
}

void
rdma_destroy_qp(struct rdma_cm_id *id)
{
	if (id == NULL || id->qp == NULL)
		return;
	pthread_mutex_lock(&cm.lock);
	cm_mc_detach_all(to_c(id));
	pthread_mutex_unlock(&cm.lock);
	ibv_destroy_qp(id->qp);
	id->qp = NULL;
	id_cqs_free(id);
}

int
rdma_create_srq_ex(struct rdma_cm_id *id, struct ibv_srq_init_attr_ex *attr)
{
	struct ibv_srq *srq;

	if (id == NULL || attr == NULL || id->verbs == NULL)
		return ERR(EINVAL);
	if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_PD) || attr->pd == NULL) {
		attr->pd = id->pd ? id->pd : to_c(id)->dev->app_pd;
		attr->comp_mask |= IBV_SRQ_INIT_ATTR_PD;
	}
	if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE)) {
		attr->srq_type = IBV_SRQT_BASIC;
		attr->comp_mask |= IBV_SRQ_INIT_ATTR_TYPE;
	}
	srq = ibv_create_srq_ex(id->verbs, attr);
	if (srq == NULL)
		return -1;
	id->srq = srq;
	return 0;
}

int
rdma_create_srq(struct rdma_cm_id *id, struct ibv_pd *pd,
		struct ibv_srq_init_attr *attr)
{
	struct ibv_srq_init_attr_ex ex;
	int rc;

	if (id == NULL || attr == NULL)
		return ERR(EINVAL);
	memset(&ex, 0, sizeof(ex));
	ex.srq_context = attr->srq_context;
	ex.attr = attr->attr;
	ex.pd = pd;
	ex.comp_mask = pd ? IBV_SRQ_INIT_ATTR_PD : 0;
	rc = rdma_create_srq_ex(id, &ex);
	if (rc == 0)
		attr->attr = ex.attr;
	return rc;
}

void
rdma_destroy_srq(struct rdma_cm_id *id)
{
	if (id == NULL || id->srq == NULL)
		return;
	ibv_destroy_srq(id->srq);
	id->srq = NULL;
}

int
rdma_init_qp_attr(struct rdma_cm_id *id, struct ibv_qp_attr *qp_attr,
		  int *qp_attr_mask)
{
	int rc;

	if (id == NULL || qp_attr == NULL || qp_attr_mask == NULL)
		return ERR(EINVAL);
	pthread_mutex_lock(&cm.lock);
	rc = cm_qp_attr(to_c(id), qp_attr, qp_attr_mask);
	pthread_mutex_unlock(&cm.lock);
	return rc ? ERR(rc) : 0;
}

/* Nothing to look up: one result made of the hints' addresses (the
 * source alone, as a multicast join gives). */
static int
addrinfo_from_hints(const struct rdma_addrinfo *hints,
		    struct rdma_addrinfo **res)
{
	struct rdma_addrinfo *r = calloc(1, sizeof(*r));

	if (r == NULL)
		return ERR(ENOMEM);
	r->ai_flags = hints->ai_flags;
	r->ai_family = hints->ai_family;
	r->ai_qp_type = hints->ai_qp_type;
	r->ai_port_space = hints->ai_port_space;
	if (hints->ai_dst_len && hints->ai_dst_addr) {
		r->ai_dst_addr = malloc(hints->ai_dst_len);
		if (r->ai_dst_addr == NULL)
			goto nomem;
		memcpy(r->ai_dst_addr, hints->ai_dst_addr, hints->ai_dst_len);
		r->ai_dst_len = hints->ai_dst_len;
	}
	if (hints->ai_src_len && hints->ai_src_addr) {
		r->ai_src_addr = malloc(hints->ai_src_len);
		if (r->ai_src_addr == NULL)
			goto nomem;
		memcpy(r->ai_src_addr, hints->ai_src_addr, hints->ai_src_len);
		r->ai_src_len = hints->ai_src_len;
	}
	*res = r;
	return 0;
nomem:
	rdma_freeaddrinfo(r);
	return ERR(ENOMEM);
}

/* rdma_getaddrinfo over getaddrinfo(3): one result per address. */
int
rdma_getaddrinfo(const char *node, const char *service,
		 const struct rdma_addrinfo *hints, struct rdma_addrinfo **res)
{
	struct addrinfo h, *ai, *a;
	struct rdma_addrinfo *head = NULL, **tail = &head;
	int rc;

	if (res == NULL || (node == NULL && service == NULL && hints == NULL))
		return ERR(EINVAL);
	if (node == NULL && service == NULL)
		return addrinfo_from_hints(hints, res);
	memset(&h, 0, sizeof(h));
	if (hints) {
		h.ai_family = hints->ai_family;
		if (hints->ai_flags & RAI_PASSIVE)
			h.ai_flags |= AI_PASSIVE;
		if (hints->ai_flags & RAI_NUMERICHOST)
			h.ai_flags |= AI_NUMERICHOST;
	}
	h.ai_socktype = SOCK_STREAM;
	rc = getaddrinfo(node, service, &h, &ai);
	if (rc != 0)
		return ERR(rc == EAI_NONAME ? ENOENT : EINVAL);
	for (a = ai; a != NULL; a = a->ai_next) {
		struct rdma_addrinfo *r = calloc(1, sizeof(*r));
		struct sockaddr *sa;

		if (r == NULL)
			break;
		r->ai_flags = hints ? hints->ai_flags : 0;
		r->ai_family = a->ai_family;
		r->ai_port_space = hints && hints->ai_port_space
					   ? hints->ai_port_space
					   : RDMA_PS_TCP;
		r->ai_qp_type = hints && hints->ai_qp_type
					? hints->ai_qp_type
					: (r->ai_port_space == RDMA_PS_UDP
						   ? IBV_QPT_UD
						   : IBV_QPT_RC);
		sa = malloc(a->ai_addrlen);
		if (sa == NULL) {
			free(r);
			break;
		}
		memcpy(sa, a->ai_addr, a->ai_addrlen);
		if (r->ai_flags & RAI_PASSIVE) {
			r->ai_src_addr = sa;
			r->ai_src_len = a->ai_addrlen;
		} else {
			r->ai_dst_addr = sa;
			r->ai_dst_len = a->ai_addrlen;
			if (hints && hints->ai_src_addr) {
				r->ai_src_addr = malloc(hints->ai_src_len);
				if (r->ai_src_addr) {
					memcpy(r->ai_src_addr,
					       hints->ai_src_addr,
					       hints->ai_src_len);
					r->ai_src_len = hints->ai_src_len;
				}
			}
		}
		*tail = r;
		tail = &r->ai_next;
	}
	freeaddrinfo(ai);
	if (head == NULL)
		return ERR(ENOMEM);
	*res = head;
	return 0;
}

void
rdma_freeaddrinfo(struct rdma_addrinfo *res)
{
	while (res != NULL) {
		struct rdma_addrinfo *n = res->ai_next;

		free(res->ai_src_addr);
		free(res->ai_dst_addr);
		free(res->ai_src_canonname);
		free(res->ai_dst_canonname);
		free(res->ai_route);
		free(res->ai_connect);
		free(res);
		res = n;
	}
}

int
rdma_create_ep(struct rdma_cm_id **id, struct rdma_addrinfo *res,
	       struct ibv_pd *pd, struct ibv_qp_init_attr *qp_init_attr)
{
	struct rdma_cm_id *cid;
	int rc;

	if (id == NULL || res == NULL)
		return ERR(EINVAL);
	if (rdma_create_id(NULL, &cid, NULL,
			   (enum rdma_port_space)res->ai_port_space) != 0)
		return -1;
	if (res->ai_flags & RAI_PASSIVE) {
		rc = rdma_bind_addr(cid, res->ai_src_addr);
		/* rdma_get_request() gives each new ID such a QP */
		if (rc == 0 && qp_init_attr != NULL) {
			struct cm_id *c = to_c(cid);

			c->ep_qp_attr = malloc(sizeof(*qp_init_attr));
			if (c->ep_qp_attr == NULL)
				rc = ERR(ENOMEM);
			else
				*c->ep_qp_attr = *qp_init_attr;
			c->ep_pd = pd;
		}
	} else {
		rc = rdma_resolve_addr(cid, res->ai_src_addr, res->ai_dst_addr,
				       2000);
		if (rc == 0)
			rc = rdma_resolve_route(cid, 2000);
		if (rc == 0 && qp_init_attr != NULL)
			rc = rdma_create_qp(cid, pd, qp_init_attr);
	}
	if (rc) {
		int e = errno;

		rdma_destroy_id(cid);
		return ERR(e);
	}
	if (pd)
		cid->pd = pd;
	*id = cid;
	return 0;
}

void
rdma_destroy_ep(struct rdma_cm_id *id)
{
	if (id == NULL)
		return;
	rdma_destroy_qp(id);
	rdma_destroy_srq(id);
	rdma_destroy_id(id);
}

int
rdma_get_request(struct rdma_cm_id *listen, struct rdma_cm_id **id)
{
	struct rdma_cm_event *e;
	struct rdma_cm_id *child;
	int rc;

	/* a synchronous listener only (its events are its own), as with
	 * rdma-core's librdmacm: on an application's channel the next event
	 * may be another ID's */
	if (listen == NULL || id == NULL || to_c(listen)->chan == NULL ||
	    !to_c(listen)->chan->internal)
		return ERR(EINVAL);
	cm_sync_event_drop(listen);
	if (rdma_get_cm_event(listen->channel, &e) != 0)
		return -1;
	if (e->event != RDMA_CM_EVENT_CONNECT_REQUEST || e->status != 0) {
		/* kept for the caller in listen->event, as rdma-core does */
		int err = e->event == RDMA_CM_EVENT_REJECTED ? ECONNREFUSED
			  : e->status < 0			   ? -e->status
			  : e->status > 0			   ? e->status
								   : EINVAL;

		listen->event = e;
		return ERR(err);
	}
	child = e->id;
	rc = rdma_migrate_id(child, NULL); /* its own synchronous channel */
	if (rc) {
		rdma_ack_cm_event(e);
		return -1;
	}
	/* the request (its private data) stays readable in child->event
	 * until the child's next synchronous operation (rdma_accept), as
	 * with rdma-core's librdmacm */
	child->event = e;
	if (to_c(listen)->ep_pd)
		child->pd = to_c(listen)->ep_pd;
	if (to_c(listen)->ep_qp_attr != NULL) {
		struct ibv_qp_init_attr a = *to_c(listen)->ep_qp_attr;

		if (rdma_create_qp(child, child->pd, &a) != 0) {
			int e = errno;

			rdma_reject(child, NULL, 0);
			rdma_destroy_id(child);
			return ERR(e);
		}
	}
	*id = child;
	return 0;
}

/* ECE, as rdma-core's librdmacm: both before the ID has a QP. */
int
rdma_set_local_ece(struct rdma_cm_id *id, struct ibv_ece *ece)
{
	struct cm_id *c = to_c(id);

	if (c == NULL || id->qp != NULL || ece == NULL ||
	    ece->vendor_id == 0 || ece->comp_mask != 0)
		return ERR(EINVAL);
	pthread_mutex_lock(&cm.lock);
	c->local_ece.vendor_id = ece->vendor_id;
	c->local_ece.options = ece->options;
	pthread_mutex_unlock(&cm.lock);
	return 0;
}

int
rdma_get_remote_ece(struct rdma_cm_id *id, struct ibv_ece *ece)
{
	struct cm_id *c = to_c(id);

	if (c == NULL || id->qp != NULL || ece == NULL)
		return ERR(EINVAL);
	pthread_mutex_lock(&cm.lock);
	ece->vendor_id = c->remote_ece.vendor_id;
	ece->options = c->remote_ece.options;
	ece->comp_mask = 0;
	pthread_mutex_unlock(&cm.lock);
	return 0;
}
