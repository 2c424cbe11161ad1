/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * librdmacm entry points: event channels, IDs, addresses and routes,
 * listen / connect / accept / reject / disconnect, events, options.
 * Errors: -1 with errno, as rdma-core's librdmacm.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/eventfd.h>

#include "cm_int.h"

#define ERR(e) (errno = (e), -1)

static struct cm_id *
to_c(struct rdma_cm_id *id)
{
	return (struct cm_id *)id;
}

/* The ID an event is counted on (a request: its listener). */
static struct cm_id *
ev_owner(struct cm_event *e)
{
	if (e->ev.event == RDMA_CM_EVENT_CONNECT_REQUEST && e->ev.listen_id)
		return to_c(e->ev.listen_id);
	return to_c(e->ev.id);
}

static struct cm_chan *
chan_new(bool internal)
{
	struct cm_chan *ch = calloc(1, sizeof(*ch));

	if (ch == NULL)
		return NULL;
	ch->ch.fd = eventfd(0, EFD_SEMAPHORE | EFD_CLOEXEC);
	if (ch->ch.fd < 0) {
		free(ch);
		return NULL;
	}
	ch->internal = internal;
	return ch;
}

struct rdma_event_channel *
rdma_create_event_channel(void)
{
	struct cm_chan *ch;
	int rc;

	pthread_mutex_lock(&cm.lock);
	rc = cm_init();
	pthread_mutex_unlock(&cm.lock);
	if (rc) {
		errno = rc;
		return NULL;
	}
	ch = chan_new(false);
	if (ch == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	CM_LOG("channel %p fd %d\n", (void *)ch, ch->ch.fd);
	return &ch->ch;
}

/*
 * An application's channel is closed but its memory is kept: programs
 * such as rping destroy the channel while their CM thread, just back from
 * rdma_ack_cm_event(), is about to wait on it again. That thread then
 * sleeps for good (as it would, blocked in read(), with rdma-core) instead
 * of reading freed memory. A synchronous ID's own channel is freed.
 */
void
rdma_destroy_event_channel(struct rdma_event_channel *channel)
{
	struct cm_chan *ch = (struct cm_chan *)channel;
	struct cm_event *e;
	int fd;

	if (ch == NULL)
		return;
	CM_LOG("destroy channel %p fd %d\n", (void *)ch, ch->ch.fd);
	pthread_mutex_lock(&cm.lock);
	while ((e = ch->head) != NULL) {
		ch->head = e->next;
		free(e);
	}
	ch->tail = NULL;
	fd = ch->ch.fd;
	__atomic_store_n(&ch->dead, true, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&cm.lock);
	close(fd);
	if (ch->internal)
		free(ch);
}

/* A channel only the library waits on (an rsocket's, once the socket's
 * last reference is gone): its memory goes too. */
void
rs_event_channel_free(struct rdma_event_channel *channel)
{
	struct cm_chan *ch = (struct cm_chan *)channel;

	rdma_destroy_event_channel(channel);
	if (ch != NULL && !ch->internal)
		free(ch);
}

int
rdma_create_id(struct rdma_event_channel *channel, struct rdma_cm_id **id,
	       void *context, enum rdma_port_space ps)
{
	enum ibv_qp_type qpt;
	struct cm_chan *ch = (struct cm_chan *)channel;
	struct cm_id *c;
	int rc;

	if (id == NULL)
		return ERR(EINVAL);
	switch (ps) {
	case RDMA_PS_TCP:
	case RDMA_PS_IB:
		qpt = IBV_QPT_RC;
		break;
	case RDMA_PS_UDP:
	case RDMA_PS_IPOIB:
		qpt = IBV_QPT_UD;
		break;
	default:
		return ERR(EINVAL);
	}
	pthread_mutex_lock(&cm.lock);
	rc = cm_init();
	if (rc) {
		pthread_mutex_unlock(&cm.lock);
		return ERR(rc);
	}
	if (ch == NULL) {
		ch = chan_new(true);
		if (ch == NULL) {
			pthread_mutex_unlock(&cm.lock);
			return ERR(ENOMEM);
		}
	}
	c = cm_id_alloc(ch, context, ps, qpt);
	if (ch->internal)
		ch->owner = c;
	pthread_mutex_unlock(&cm.lock);
	if (c == NULL)
		return ERR(ENOMEM);
	*id = &c->id;
	return 0;
}

int
rdma_get_cm_event(struct rdma_event_channel *channel,
		  struct rdma_cm_event **event)
{
	struct cm_chan *ch = (struct cm_chan *)channel;
	struct cm_event *e;
	uint64_t v;

	if (ch == NULL || event == NULL)
		return ERR(EINVAL);
	for (;;) {
		ssize_t n;

		while (__atomic_load_n(&ch->dead, __ATOMIC_ACQUIRE))
			pause(); /* destroyed under the caller's feet */
		n = read(ch->ch.fd, &v, sizeof(v));
		/* a signal ends the wait: -1 with EINTR, as librdmacm's */
		if (n < 0 && errno == EINTR)
			return -1;
		if (n < 0 && errno == EBADF &&
		    __atomic_load_n(&ch->dead, __ATOMIC_ACQUIRE))
			continue;
		if (n != sizeof(v)) {
			/* EAGAIN on a non-blocking channel is no news (an
			 * rsocket asks on every call) */
			if (n >= 0 || errno != EAGAIN)
				CM_LOG("event channel %p fd %d: %s\n",
				       (void *)ch, ch->ch.fd, strerror(errno));
			return -1;
		}
		pthread_mutex_lock(&cm.lock);
		e = ch->head;
		if (e != NULL) {
			ch->head = e->next;
			if (ch->head == NULL)
				ch->tail = NULL;
			e->next = NULL;
			if (e->complete_rep)
				cm_rep_complete(e);
			if (e->ev.event == RDMA_CM_EVENT_MULTICAST_JOIN)
				cm_mc_join_read(e);
		}
		pthread_mutex_unlock(&cm.lock);
		if (e != NULL)
			break;
	}
	*event = &e->ev;
	return 0;
}

int
rdma_ack_cm_event(struct rdma_cm_event *event)
{
	struct cm_event *e = (struct cm_event *)event;
	struct cm_id *c;

	if (e == NULL)
		return ERR(EINVAL);
	pthread_mutex_lock(&cm.lock);
	c = ev_owner(e);
	if (--c->events == 0)
		pthread_cond_broadcast(&c->cond);
	pthread_mutex_unlock(&cm.lock);
	free(e);
	return 0;
}

/* Drop c's queued events (not yet read). Under cm.lock. */
static void
drop_queued(struct cm_id *c)
{
	struct cm_chan *ch = c->chan;
	struct cm_event **pp, *e;

	if (ch == NULL)
		return;
	for (pp = &ch->head; (e = *pp) != NULL;) {
		if (e->ev.id != &c->id && e->ev.listen_id != &c->id) {
			pp = &e->next;
			continue;
		}
		*pp = e->next;
		ev_owner(e)->events--;
		free(e);
		/* its eventfd count stays: the reader that takes it finds
		 * the queue empty and waits again (reading it here could
		 * block, under the lock, if a reader already took it) */
	}
	ch->tail = NULL;
	for (e = ch->head; e != NULL; e = e->next)
		ch->tail = e;
}

int
rdma_destroy_id(struct rdma_cm_id *id)
{
	struct cm_id *c = to_c(id), **pp;
	struct cm_msg m;

	if (c == NULL)
		return ERR(EINVAL);
	cm_sync_event_drop(id);
	pthread_mutex_lock(&cm.lock);
	memset(&m, 0, sizeof(m));
	switch (c->state) {
	case CS_ESTABLISHED:
		m.attr = CM_ATTR_DREQ;
		m.qpn = c->remote_qpn;
		cm_send_msg(c, &m, false);
		break;
	case CS_REQ_RCVD:
	case CS_REP_SENT:
	case CS_REP_RCVD:
	case CS_REQ_SENT:
		if (c->id.qp_type == IBV_QPT_UD)
			break;
		m.attr = CM_ATTR_REJ;
		m.reason = c->state == CS_REQ_SENT ? CM_REJ_TIMEOUT
						   : CM_REJ_CONSUMER;
		m.msg_ref = c->state == CS_REQ_RCVD ? 0 : 1;
		cm_send_msg(c, &m, false);
		break;
	default:
		break;
	}
	c->armed = false;
	cm_mc_leave_all(c);
	if (c->listener != NULL && c->listener->pending > 0)
		c->listener->pending--;
	for (struct cm_id *o = cm.ids; o != NULL; o = o->next) {
		struct cm_event *r = (struct cm_event *)o->id.event;

		if (o->listener == c)
			o->listener = NULL;
		/* a request a synchronous child still holds (rdma_get_request
		 * without rdma_accept yet) is counted on the child from now
		 * on: the listener goes without waiting for it */
		if (r != NULL && r->ev.listen_id == &c->id) {
			r->ev.listen_id = NULL;
			c->events--;
			o->events++;
		}
	}
	drop_queued(c);
	c->destroying = true;
	while (c->events > 0)
		pthread_cond_wait(&c->cond, &cm.lock);
	for (pp = &cm.ids; *pp != NULL; pp = &(*pp)->next)
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	pthread_mutex_unlock(&cm.lock);
	if (c->chan && c->chan->internal && c->chan->owner == c)
		rdma_destroy_event_channel(&c->chan->ch);
	pthread_cond_destroy(&c->cond);
	free(c->ep_qp_attr);
	free(c);
	return 0;
}

/* The event a synchronous ID kept from its last operation is acked. */
void
cm_sync_event_drop(struct rdma_cm_id *id)
{
	if (id->event != NULL) {
		rdma_ack_cm_event(id->event);
		id->event = NULL;
	}
}

/*
 * A synchronous ID (no channel given): wait for the event of the
 * operation just started. As rdma-core's librdmacm, the event stays in
 * id->event until the ID's next synchronous operation or its destruction
 * (programs read the peer's private data from it: the connect request's
 * after rdma_get_request(), the reply's after rdma_connect(), a reject's
 * after a failed rdma_connect()). 0, or -1 with errno.
 */
int
cm_wait_sync(struct cm_id *c, enum rdma_cm_event_type want)
{
	struct rdma_cm_event *e;
	int status;
	enum rdma_cm_event_type got;

	if (c->chan == NULL || !c->chan->internal)
		return 0;
	cm_sync_event_drop(&c->id);
	if (rdma_get_cm_event(&c->chan->ch, &e) != 0)
		return -1;
	got = e->event;
	status = e->status;
	c->id.event = e;
	if (got == want)
		return 0;
	return ERR(status < 0 ? -status : (status ? ECONNREFUSED : EIO));
}

/* An IPv4 or IPv6 "any" address. */
bool
cm_addr_any(const struct sockaddr *a)
{
	if (a->sa_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       htonl(INADDR_ANY);
	if (a->sa_family == AF_INET6)
		return IN6_IS_ADDR_UNSPECIFIED(
			&((const struct sockaddr_in6 *)a)->sin6_addr);
	return false;
}

/* The length of an IPv4 or IPv6 socket address. */
socklen_t
cm_addr_len(const struct sockaddr *a)
{
	return a->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
					: sizeof(struct sockaddr_in);
}

static bool
port_used(struct cm_id *self, unsigned int ps, uint16_t port)
{
	struct cm_id *c;

	for (c = cm.ids; c != NULL; c = c->next)
		if (c != self && !c->destroying && c->bound &&
		    (unsigned int)c->id.ps == ps &&
		    cm_port_of(&c->id.route.addr.src_addr) == port &&
		    !(c->reuseaddr && self->reuseaddr))
			return true;
	return false;
}

static void
set_port(struct sockaddr *a, uint16_t port)
{
	if (a->sa_family == AF_INET)
		((struct sockaddr_in *)a)->sin_port = htons(port);
	else
		((struct sockaddr_in6 *)a)->sin6_port = htons(port);
}

/* Bind c to addr (port 0: an ephemeral one). Under cm.lock. */
static int
bind_locked(struct cm_id *c, const struct sockaddr *addr)
{
	struct cm_dev *d = NULL;
	uint16_t port = cm_port_of(addr);
	int gidx = -1;

	if (addr->sa_family != AF_INET && addr->sa_family != AF_INET6)
		return EAFNOSUPPORT;
	if (c->state != CS_IDLE)
		return EINVAL;
	if (!cm_addr_any(addr)) {
		if (cm_dev_find(addr, &d, &gidx) != 0 ||
		    cm_gid_index(d, addr) < 0)
			return EADDRNOTAVAIL;
	}
	if (port == 0) {
		unsigned int tries;

		for (tries = 0; tries < 30000; tries++) {
			port = (uint16_t)(32768 + (cm.next_comm_id++ * 7919u +
						   (unsigned int)getpid()) %
							  28000);
			if (!port_used(c, c->id.ps, port))
				break;
		}
	} else if (port_used(c, c->id.ps, port)) {
		return EADDRINUSE;
	}
	memset(&c->id.route.addr.src_storage, 0,
	       sizeof(c->id.route.addr.src_storage));
	memcpy(&c->id.route.addr.src_storage, addr, cm_addr_len(addr));
	set_port(&c->id.route.addr.src_addr, port);
	if (d != NULL) {
		c->dev = d;
		c->sgid_index = gidx;
		memcpy(c->sgid, d->gid[gidx].raw, 16);
		c->id.verbs = d->ctx;
		c->id.pd = d->app_pd; /* the device's shared PD, as rdma-core */
		c->id.port_num = 1;
		c->mtu = d->mtu;
	}
	c->state = CS_ADDR_BOUND;
	c->bound = true;
	return 0;
}

int
rdma_bind_addr(struct rdma_cm_id *id, struct sockaddr *addr)
{
	int rc;

	if (id == NULL || addr == NULL)
		return ERR(EINVAL);
	pthread_mutex_lock(&cm.lock);
	rc = bind_locked(to_c(id), addr);
	pthread_mutex_unlock(&cm.lock);
	return rc ? ERR(rc) : 0;
}

int
rdma_resolve_addr(struct rdma_cm_id *id, struct sockaddr *src_addr,
		  struct sockaddr *dst_addr, int timeout_ms)
{
	struct cm_id *c = to_c(id);
	struct sockaddr_storage ss;
	struct cm_dev *d;
	int rc = 0, gidx;

	if (c == NULL || dst_addr == NULL ||
	    (dst_addr->sa_family != AF_INET && dst_addr->sa_family != AF_INET6))
		return ERR(EINVAL);
	pthread_mutex_lock(&cm.lock);
	if (c->state == CS_IDLE && src_addr != NULL &&
	    src_addr->sa_family != AF_UNSPEC)
		rc = bind_locked(c, src_addr);
	if (rc == 0 && c->state != CS_IDLE && c->state != CS_ADDR_BOUND)
		rc = EINVAL;
	if (rc == 0 && c->dev == NULL) {
		/* unbound or bound to any: the device that reaches dst */
		if (cm_dev_find(dst_addr, &d, &gidx) != 0) {
			rc = EADDRNOTAVAIL;
		} else {
			uint16_t port =
				c->state == CS_ADDR_BOUND
					? cm_port_of(&c->id.route.addr.src_addr)
					: 0;

			memset(&ss, 0, sizeof(ss));
			if (dst_addr->sa_family == AF_INET) {
				struct sockaddr_in *s = (void *)&ss;

				s->sin_family = AF_INET;
				memcpy(&s->sin_addr, d->gid[gidx].raw + 12, 4);
				s->sin_port = htons(port);
			} else {
				struct sockaddr_in6 *s = (void *)&ss;

				s->sin6_family = AF_INET6;
				memcpy(&s->sin6_addr, d->gid[gidx].raw, 16);
				s->sin6_port = htons(port);
			}
			c->state = CS_IDLE;
			rc = bind_locked(c, (struct sockaddr *)&ss);
		}
	}
	if (rc == 0) {
		memset(&c->id.route.addr.dst_storage, 0,
		       sizeof(c->id.route.addr.dst_storage));
		memcpy(&c->id.route.addr.dst_storage, dst_addr,
		       cm_addr_len(dst_addr));
		cm_addr_to_gid(dst_addr, c->dgid);
		c->state = CS_ADDR_QUERY;
		c->addr_kick_ns = 0;
		c->addr_deadline_ns =
			cm_now_ns() +
			(uint64_t)(timeout_ms > 0 ? timeout_ms : 2000) *
				1000000;
		cm_wake();
	}
	pthread_mutex_unlock(&cm.lock);
	if (rc)
		return ERR(rc);
	return cm_wait_sync(c, RDMA_CM_EVENT_ADDR_RESOLVED);
}

int
rdma_resolve_route(struct rdma_cm_id *id, int timeout_ms)
{
	struct cm_id *c = to_c(id);

	(void)timeout_ms;
	if (c == NULL)
		return ERR(EINVAL);
	pthread_mutex_lock(&cm.lock);
	if (c->state != CS_ADDR_BOUND || c->dev == NULL ||
	    c->id.route.addr.dst_addr.sa_family == AF_UNSPEC) {
		pthread_mutex_unlock(&cm.lock);
		return ERR(EINVAL);
	}
	cm_fill_path(c);
	c->state = CS_ROUTE;
	cm_event_post(c, RDMA_CM_EVENT_ROUTE_RESOLVED, 0, NULL, 0);
	pthread_mutex_unlock(&cm.lock);
	return cm_wait_sync(c, RDMA_CM_EVENT_ROUTE_RESOLVED);
}

int
rdma_listen(struct rdma_cm_id *id, int backlog)
{
	struct cm_id *c = to_c(id);
	int rc = 0;

	if (c == NULL)
		return ERR(EINVAL);
	pthread_mutex_lock(&cm.lock);
	if (c->state == CS_IDLE) {
		struct sockaddr_in any = {.sin_family = AF_INET};

		rc = bind_locked(c, (struct sockaddr *)&any);
	}
	if (rc == 0 && c->state != CS_ADDR_BOUND)
		rc = EINVAL;
	if (rc == 0) {
		c->backlog = backlog > 0 ? backlog : 1024;
		c->state = CS_LISTEN;
	}
	pthread_mutex_unlock(&cm.lock);
	return rc ? ERR(rc) : 0;
}

int
rdma_connect(struct rdma_cm_id *id, struct rdma_conn_param *p)
{
	struct cm_id *c = to_c(id);
	struct cm_msg m;
	uint8_t plen = p ? p->private_data_len : 0;
	enum rdma_cm_event_type want = RDMA_CM_EVENT_ESTABLISHED;
	bool ud;

	if (c == NULL)
		return ERR(EINVAL);
	ud = c->id.qp_type == IBV_QPT_UD;
	if (plen > (ud ? CM_SIDR_REQ_PDATA : CM_REQ_PDATA) - CM_IP_HDR_LEN ||
	    (plen && p->private_data == NULL))
		return ERR(EINVAL);
	pthread_mutex_lock(&cm.lock);
	if (c->state != CS_ROUTE ||
	    (!ud && c->id.qp == NULL && (p == NULL || p->qp_num == 0))) {
		pthread_mutex_unlock(&cm.lock);
		return ERR(EINVAL);
	}
	memset(&m, 0, sizeof(m));
	cm_ip_hdr_build(m.pdata, &c->id.route.addr.src_addr,
			&c->id.route.addr.dst_addr);
	if (plen)
		memcpy(m.pdata + CM_IP_HDR_LEN, p->private_data, plen);
	m.pdata_len = (uint8_t)(CM_IP_HDR_LEN + plen);
	m.service_id =
		cm_service_id(c->id.ps, cm_port_of(&c->id.route.addr.dst_addr));
	m.pkey = 0xffff;
	c->tid = (uint64_t)c->local_id << 32 | (uint32_t)cm_now_ns();
	c->remote_id = 0;
	if (ud) {
		m.attr = CM_ATTR_SIDR_REQ;
		m.local_id = c->local_id;
		c->state = CS_SIDR_SENT;
		cm_send_msg(c, &m, true);
		pthread_mutex_unlock(&cm.lock);
		return cm_wait_sync(c, want);
	}
	if (p != NULL) {
		c->resp_res = p->responder_resources;
		c->init_depth = p->initiator_depth;
		c->retry_count = p->retry_count & 7;
		c->rnr_retry = p->rnr_retry_count & 7;
	}
	c->mtu = c->dev->mtu;
	m.attr = CM_ATTR_REQ;
	m.ca_guid = c->dev->guid;
	m.qpn = c->id.qp ? c->id.qp->qp_num : p->qp_num;
	m.resp_res = c->resp_res;
	m.init_depth = c->init_depth;
	m.remote_cm_timeout = 18;
	m.local_cm_timeout = 18;
	m.transport = c->id.qp_type == IBV_QPT_UC ? 1 : 0;
	m.psn = c->local_psn;
	m.retry_count = c->retry_count;
	m.rnr_retry = c->rnr_retry;
	m.mtu = (uint8_t)c->mtu;
	m.max_cm_retries = 8;
	m.srq = c->id.srq != NULL || (p && p->srq);
	memcpy(m.sgid, c->sgid, 16);
	memcpy(m.dgid, c->dgid, 16);
	m.traffic_class = c->tos;
	m.hop_limit = 64;
	m.ack_timeout = c->ack_timeout;
	m.ece_vendor = c->local_ece.vendor_id & 0xffffff;
	m.ece_options = c->local_ece.options;
	c->state = CS_REQ_SENT;
	c->remote_cm_timeout = 18;
	cm_send_msg(c, &m, true);
	pthread_mutex_unlock(&cm.lock);
	return cm_wait_sync(c, want);
}

int
rdma_accept(struct rdma_cm_id *id, struct rdma_conn_param *p)
{
	struct cm_id *c = to_c(id);
	uint8_t plen = p ? p->private_data_len : 0;
	struct cm_msg m;
	bool ud;
	int rc;

	if (c == NULL)
		return ERR(EINVAL);
	ud = c->id.qp_type == IBV_QPT_UD;
	if (plen > (ud ? CM_SIDR_REP_PDATA : CM_REP_PDATA) ||
	    (plen && p->private_data == NULL))
		return ERR(EINVAL);
	pthread_mutex_lock(&cm.lock);
	if (c->state != CS_REQ_RCVD ||
	    (c->id.qp == NULL && (p == NULL || p->qp_num == 0))) {
		pthread_mutex_unlock(&cm.lock);
		return ERR(EINVAL);
	}
	memset(&m, 0, sizeof(m));
	if (plen)
		memcpy(m.pdata, p->private_data, plen);
	m.pdata_len = plen;
	m.qpn = c->id.qp ? c->id.qp->qp_num : p->qp_num;
	if (ud) {
		m.attr = CM_ATTR_SIDR_REP;
		m.local_id = c->remote_id;
		m.service_id = cm_service_id(
			c->id.ps, cm_port_of(&c->id.route.addr.src_addr));
		m.qkey = 0x01234567u; /* RDMA_UDP_QKEY */
		m.status = 0;
		cm_send_msg(c, &m, false);
		for (struct cm_id *l = cm.ids; l != NULL; l = l->next)
			if (l == c->listener && l->pending > 0)
				l->pending--;
		c->listener = NULL;
		c->state = CS_UD_READY;
		pthread_mutex_unlock(&cm.lock);
		return 0;
	}
	if (p != NULL) {
		if (p->responder_resources < c->resp_res)
			c->resp_res = p->responder_resources;
		if (p->initiator_depth < c->init_depth)
			c->init_depth = p->initiator_depth;
	}
	rc = cm_qp_to(c, IBV_QPS_RTR);
	if (rc == 0)
		rc = cm_qp_to(c, IBV_QPS_RTS);
	if (rc) {
		pthread_mutex_unlock(&cm.lock);
		return ERR(rc);
	}
	m.attr = CM_ATTR_REP;
	m.psn = c->local_psn;
	m.resp_res = c->resp_res;
	m.init_depth = c->init_depth;
	m.target_ack_delay = 15;
	m.rnr_retry = p ? (p->rnr_retry_count & 7) : 7;
	m.srq = c->id.srq != NULL || (p && p->srq);
	m.ca_guid = c->dev->guid;
	/* ECE: the vendor the REQ named, the options our QP accepted */
	m.ece_vendor = c->remote_ece.vendor_id & 0xffffff;
	m.ece_options = c->local_ece.options;
	c->state = CS_REP_SENT;
	cm_send_msg(c, &m, true);
	pthread_mutex_unlock(&cm.lock);
	return cm_wait_sync(c, RDMA_CM_EVENT_ESTABLISHED);
}

static int
reject_reason(struct rdma_cm_id *id, const void *private_data,
	      uint8_t private_data_len, uint16_t reason)
{
	struct cm_id *c = to_c(id);
	struct cm_msg m;

	if (c == NULL || (private_data_len && private_data == NULL))
		return ERR(EINVAL);
	pthread_mutex_lock(&cm.lock);
	if (c->state != CS_REQ_RCVD) {
		pthread_mutex_unlock(&cm.lock);
		return ERR(EINVAL);
	}
	memset(&m, 0, sizeof(m));
	if (c->id.qp_type == IBV_QPT_UD) {
		m.attr = CM_ATTR_SIDR_REP;
		m.local_id = c->remote_id;
		m.status = 2; /* rejected */
		if (private_data_len > CM_SIDR_REP_PDATA)
			private_data_len = CM_SIDR_REP_PDATA;
	} else {
		m.attr = CM_ATTR_REJ;
		m.reason = reason;
		m.msg_ref = 0;
		if (private_data_len > CM_REJ_PDATA)
			private_data_len = CM_REJ_PDATA;
	}
	memcpy(m.pdata, private_data, private_data_len);
	m.pdata_len = private_data_len;
	cm_send_msg(c, &m, false);
	for (struct cm_id *l = cm.ids; l != NULL; l = l->next)
		if (l == c->listener && l->pending > 0)
			l->pending--;
	c->listener = NULL;
	c->state = CS_DISCONNECTED;
	pthread_mutex_unlock(&cm.lock);
	return 0;
}

int
rdma_reject(struct rdma_cm_id *id, const void *private_data,
	    uint8_t private_data_len)
{
	return reject_reason(id, private_data, private_data_len,
			     CM_REJ_CONSUMER);
}

/* REJ "vendor option not supported": the ECE options were refused. */
int
rdma_reject_ece(struct rdma_cm_id *id, const void *private_data,
		uint8_t private_data_len)
{
	return reject_reason(id, private_data, private_data_len,
			     CM_REJ_VENDOR_OPTION);
}

int
rdma_establish(struct rdma_cm_id *id)
{
	struct cm_id *c = to_c(id);
	struct cm_msg m = {.attr = CM_ATTR_RTU};

	if (c == NULL)
		return ERR(EINVAL);
	pthread_mutex_lock(&cm.lock);
	if (c->state != CS_REP_RCVD) {
		pthread_mutex_unlock(&cm.lock);
		return ERR(EINVAL);
	}
	cm_send_msg(c, &m, false);
	c->state = CS_ESTABLISHED;
	pthread_mutex_unlock(&cm.lock);
	return 0;
}

int
rdma_notify(struct rdma_cm_id *id, enum ibv_event_type event)
{
	if (id == NULL)
		return ERR(EINVAL);
	(void)event;
	return 0;
}

int
rdma_disconnect(struct rdma_cm_id *id)
{
	struct cm_id *c = to_c(id);
	struct cm_msg m;
	int rc = 0;

	if (c == NULL)
		return ERR(EINVAL);
	pthread_mutex_lock(&cm.lock);
	cm_qp_err(c);
	memset(&m, 0, sizeof(m));
	switch (c->state) {
	case CS_ESTABLISHED:
	case CS_REP_SENT:
		m.attr = CM_ATTR_DREQ;
		m.qpn = c->remote_qpn;
		c->state = CS_DREQ_SENT;
		cm_send_msg(c, &m, true);
		break;
	case CS_REQ_SENT:
	case CS_REQ_RCVD:
	case CS_REP_RCVD:
		m.attr = CM_ATTR_REJ;
		m.reason = CM_REJ_CONSUMER;
		m.msg_ref = c->state == CS_REQ_RCVD ? 0 : 2;
		cm_send_msg(c, &m, false);
		c->armed = false;
		c->state = CS_DISCONNECTED;
		break;
	case CS_DREQ_SENT:
	case CS_TIMEWAIT:
	case CS_DISCONNECTED:
		break;
	default:
		rc = EINVAL;
	}
	pthread_mutex_unlock(&cm.lock);
	if (rc)
		return ERR(rc);
	if (c->chan && c->chan->internal && c->state == CS_DREQ_SENT)
		return cm_wait_sync(c, RDMA_CM_EVENT_DISCONNECTED);
	return 0;
}

int
rdma_migrate_id(struct rdma_cm_id *id, struct rdma_event_channel *channel)
{
	struct cm_id *c = to_c(id);
	struct cm_chan *to = (struct cm_chan *)channel, *from;

	if (c == NULL)
		return ERR(EINVAL);
	if (to == NULL) {
		to = chan_new(true);
		if (to == NULL)
			return ERR(ENOMEM);
	}
	pthread_mutex_lock(&cm.lock);
	while (c->events > 0)
		pthread_cond_wait(&c->cond, &cm.lock);
	from = c->chan;
	c->chan = to;
	c->id.channel = &to->ch;
	if (to->internal)
		to->owner = c;
	pthread_mutex_unlock(&cm.lock);
	if (from != NULL && from->internal && from->owner == c && from != to)
		rdma_destroy_event_channel(&from->ch);
	return 0;
}

int
rdma_set_option(struct rdma_cm_id *id, int level, int optname, void *optval,
		size_t optlen)
{
	struct cm_id *c = to_c(id);

	if (c == NULL || optval == NULL)
		return ERR(EINVAL);
	if (level != RDMA_OPTION_ID)
		return ERR(ENOSYS);
	pthread_mutex_lock(&cm.lock);
	switch (optname) {
	case RDMA_OPTION_ID_TOS:
		if (optlen != sizeof(uint8_t))
			goto inval;
		c->tos = *(uint8_t *)optval;
		break;
	case RDMA_OPTION_ID_REUSEADDR:
		if (optlen != sizeof(int))
			goto inval;
		c->reuseaddr = *(int *)optval != 0;
		break;
	case RDMA_OPTION_ID_AFONLY:
		if (optlen != sizeof(int))
			goto inval;
		break;
	case RDMA_OPTION_ID_ACK_TIMEOUT:
		if (optlen != sizeof(uint8_t))
			goto inval;
		c->ack_timeout = *(uint8_t *)optval & 31;
		c->ack_timeout_set = true;
		break;
	default:
		pthread_mutex_unlock(&cm.lock);
		return ERR(ENOSYS);
	}
	pthread_mutex_unlock(&cm.lock);
	return 0;
inval:
	pthread_mutex_unlock(&cm.lock);
	return ERR(EINVAL);
}

static __be16
port_be(const struct sockaddr *a)
{
	return htons(cm_port_of(a));
}

__be16
rdma_get_src_port(struct rdma_cm_id *id)
{
	return id ? port_be(&id->route.addr.src_addr) : 0;
}

__be16
rdma_get_dst_port(struct rdma_cm_id *id)
{
	return id ? port_be(&id->route.addr.dst_addr) : 0;
}

struct ibv_context **
rdma_get_devices(int *num_devices)
{
	struct ibv_context **v;
	int i, rc;

	pthread_mutex_lock(&cm.lock);
	rc = cm_init();
	if (rc && rc != ENODEV) {
		pthread_mutex_unlock(&cm.lock);
		errno = rc;
		return NULL;
	}
	v = calloc((size_t)cm.ndev + 1, sizeof(*v));
	if (v != NULL)
		for (i = 0; i < cm.ndev; i++)
			v[i] = cm.dev[i].ctx;
	if (num_devices)
		*num_devices = v ? cm.ndev : 0;
	pthread_mutex_unlock(&cm.lock);
	if (v == NULL)
		errno = ENOMEM;
	return v;
}

void
rdma_free_devices(struct ibv_context **list)
{
	free(list);
}

const char *
rdma_event_str(enum rdma_cm_event_type event)
{
	static const char *const s[] = {
		"RDMA_CM_EVENT_ADDR_RESOLVED",
		"RDMA_CM_EVENT_ADDR_ERROR",
		"RDMA_CM_EVENT_ROUTE_RESOLVED",
		"RDMA_CM_EVENT_ROUTE_ERROR",
		"RDMA_CM_EVENT_CONNECT_REQUEST",
		"RDMA_CM_EVENT_CONNECT_RESPONSE",
		"RDMA_CM_EVENT_CONNECT_ERROR",
		"RDMA_CM_EVENT_UNREACHABLE",
		"RDMA_CM_EVENT_REJECTED",
		"RDMA_CM_EVENT_ESTABLISHED",
		"RDMA_CM_EVENT_DISCONNECTED",
		"RDMA_CM_EVENT_DEVICE_REMOVAL",
		"RDMA_CM_EVENT_MULTICAST_JOIN",
		"RDMA_CM_EVENT_MULTICAST_ERROR",
		"RDMA_CM_EVENT_ADDR_CHANGE",
		"RDMA_CM_EVENT_TIMEWAIT_EXIT",
	};

	if ((unsigned int)event < sizeof(s) / sizeof(s[0]))
		return s[event];
	return "UNKNOWN EVENT";
}
