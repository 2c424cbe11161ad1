/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The CM state machine: incoming MADs (REQ, MRA, REJ, REP, RTU, DREQ,
 * DREP, SIDR_REQ, SIDR_REP), retransmission timeouts, events, and the QP
 * attributes of each connection state. Everything here runs under
 * cm.lock.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include "cm_int.h"

#define CM_RESP_TIMEOUT 18 /* 4.096 us * 2^18 = 1.07 s */
#define CM_MAX_RETRIES	8
#define CM_UDP_QKEY	0x01234567u

static uint8_t
min8(uint8_t a, uint8_t b)
{
	return a < b ? a : b;
}

struct cm_id *
cm_id_alloc(struct cm_chan *ch, void *ctx, enum rdma_port_space ps,
	    enum ibv_qp_type qpt)
{
	struct cm_id *c = calloc(1, sizeof(*c));

	if (c == NULL)
		return NULL;
	c->chan = ch;
	c->id.channel = ch ? &ch->ch : NULL;
	c->id.context = ctx;
	c->id.ps = ps;
	c->id.qp_type = qpt;
	c->id.route.path_rec = &c->path;
	c->state = CS_IDLE;
	c->local_id = cm.next_comm_id++;
	if (c->local_id == 0)
		c->local_id = cm.next_comm_id++;
	c->local_psn = (uint32_t)(cm_now_ns() >> 3 ^ c->local_id) & 0xffffff;
	c->retry_count = 7;
	c->rnr_retry = 7;
	c->ack_timeout = 18;
	c->mtu = IBV_MTU_1024;
	pthread_cond_init(&c->cond, NULL);
	c->next = cm.ids;
	cm.ids = c;
	return c;
}

struct cm_event *
cm_event_post(struct cm_id *c, enum rdma_cm_event_type type, int status,
	      const struct cm_msg *m, unsigned int pdoff)
{
	struct cm_chan *ch = c->chan;
	struct cm_event *e;
	uint64_t one = 1;

	if (ch == NULL || c->destroying)
		return NULL;
	e = calloc(1, sizeof(*e));
	if (e == NULL)
		return NULL;
	e->chan = ch;
	e->ev.id = &c->id;
	e->ev.event = type;
	e->ev.status = status;
	if (m != NULL && m->pdata_len > pdoff) {
		memcpy(e->pdata, m->pdata + pdoff, m->pdata_len - pdoff);
		e->ev.param.conn.private_data = e->pdata;
		e->ev.param.conn.private_data_len =
			(uint8_t)(m->pdata_len - pdoff);
	}
	if (c->id.ps == RDMA_PS_UDP || c->id.ps == RDMA_PS_IPOIB) {
		e->ev.param.ud.qp_num = c->remote_qpn;
		e->ev.param.ud.qkey = c->remote_qkey;
		memset(&e->ev.param.ud.ah_attr, 0,
		       sizeof(e->ev.param.ud.ah_attr));
		e->ev.param.ud.ah_attr.is_global = 1;
		memcpy(e->ev.param.ud.ah_attr.grh.dgid.raw, c->dgid, 16);
		e->ev.param.ud.ah_attr.grh.sgid_index = (uint8_t)c->sgid_index;
		e->ev.param.ud.ah_attr.grh.hop_limit = 64;
		e->ev.param.ud.ah_attr.port_num = 1;
	} else {
		e->ev.param.conn.responder_resources = c->resp_res;
		e->ev.param.conn.initiator_depth = c->init_depth;
		e->ev.param.conn.retry_count = c->retry_count;
		e->ev.param.conn.rnr_retry_count = c->rnr_retry;
		e->ev.param.conn.qp_num = c->remote_qpn;
	}
	if (ch->tail)
		ch->tail->next = e;
	else
		ch->head = e;
	ch->tail = e;
	c->events++;
	if (write(ch->ch.fd, &one, sizeof(one)) != sizeof(one))
		CM_LOG("event fd: %s\n", strerror(errno));
	CM_LOG("event %s status %d\n", rdma_event_str(type), status);
	return e;
}

/* Send m for c (ids and TID filled in here); keep: retransmit it. */
int
cm_send_msg(struct cm_id *c, struct cm_msg *m, bool keep)
{
	uint8_t mad[CM_MAD_LEN];
	int rc;

	if (m->attr != CM_ATTR_SIDR_REQ && m->attr != CM_ATTR_SIDR_REP) {
		m->local_id = c->local_id;
		m->remote_id = c->remote_id;
	}
	m->tid = c->tid;
	if (cm_mad_build(mad, m) != 0)
		return -EINVAL;
	if (keep) {
		memcpy(c->mad, mad, CM_MAD_LEN);
		cm_arm(c,
		       c->remote_cm_timeout ? c->remote_cm_timeout
					    : CM_RESP_TIMEOUT,
		       CM_MAX_RETRIES);
	}
	rc = cm_send(c->dev, c->dgid, c->sgid_index, mad);
	return keep ? 0 : rc;
}

int
cm_qp_attr(struct cm_id *c, struct ibv_qp_attr *a, int *mask)
{
	bool ud = c->id.qp_type == IBV_QPT_UD;
	enum ibv_qp_state s = a->qp_state;

	memset(a, 0, sizeof(*a));
	a->qp_state = s;
	switch (s) {
	case IBV_QPS_INIT:
		a->port_num = 1;
		a->pkey_index = 0;
		*mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;
		if (ud) {
			a->qkey = CM_UDP_QKEY;
			*mask |= IBV_QP_QKEY;
		} else {
			a->qp_access_flags = IBV_ACCESS_LOCAL_WRITE |
					     IBV_ACCESS_REMOTE_WRITE |
					     IBV_ACCESS_REMOTE_READ |
					     IBV_ACCESS_REMOTE_ATOMIC;
			*mask |= IBV_QP_ACCESS_FLAGS;
		}
		return 0;
	case IBV_QPS_RTR:
		*mask = IBV_QP_STATE;
		if (ud)
			return 0;
		if (c->remote_qpn == 0 && c->state != CS_REQ_RCVD &&
		    c->state != CS_REP_RCVD && c->state != CS_ESTABLISHED)
			return EINVAL;
		a->path_mtu = c->mtu;
		a->dest_qp_num = c->remote_qpn;
		a->rq_psn = c->remote_psn;
		a->max_dest_rd_atomic = c->resp_res;
		a->min_rnr_timer = 12;
		a->ah_attr.is_global = 1;
		memcpy(a->ah_attr.grh.dgid.raw, c->dgid, 16);
		a->ah_attr.grh.sgid_index = (uint8_t)c->sgid_index;
		a->ah_attr.grh.hop_limit = 64;
		a->ah_attr.grh.traffic_class = c->tos;
		a->ah_attr.port_num = 1;
		*mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			 IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			 IBV_QP_MIN_RNR_TIMER;
		return 0;
	case IBV_QPS_RTS:
		a->sq_psn = ud ? 0 : c->local_psn;
		*mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
		if (ud)
			return 0;
		a->timeout = c->ack_timeout;
		a->retry_cnt = c->retry_count;
		a->rnr_retry = c->rnr_retry;
		a->max_rd_atomic = c->init_depth;
		*mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			 IBV_QP_MAX_QP_RD_ATOMIC;
		return 0;
	default:
		return EINVAL;
	}
}

/* Move c's QP to state s (from the state before it). 0 or errno. */
int
cm_qp_to(struct cm_id *c, enum ibv_qp_state s)
{
	struct ibv_qp_attr a;
	int mask, rc;

	if (c->id.qp == NULL)
		return 0;
	a.qp_state = s;
	rc = cm_qp_attr(c, &a, &mask);
	if (rc)
		return rc;
	return ibv_modify_qp(c->id.qp, &a, mask) ? (errno ? errno : EIO) : 0;
}

void
cm_qp_err(struct cm_id *c)
{
	struct ibv_qp_attr a = {.qp_state = IBV_QPS_ERR};

	if (c->id.qp != NULL && c->id.qp_type != IBV_QPT_UD)
		ibv_modify_qp(c->id.qp, &a, IBV_QP_STATE);
}

static struct cm_id *
find_local(uint32_t local_id)
{
	struct cm_id *c;

	for (c = cm.ids; c != NULL; c = c->next)
		if (c->local_id == local_id && !c->destroying &&
		    c->state != CS_LISTEN)
			return c;
	return NULL;
}

/* Answer a message for no known connection (stale or unknown IDs). */
static void
reply_stale(struct cm_dev *d, const uint8_t *sgid, int gidx,
	    const struct cm_msg *in, uint16_t attr, uint16_t reason)
{
	struct cm_msg m;
	uint8_t mad[CM_MAD_LEN];

	memset(&m, 0, sizeof(m));
	m.attr = attr;
	m.tid = in->tid;
	m.local_id = in->remote_id;
	m.remote_id = in->local_id;
	m.reason = reason;
	m.msg_ref = 2; /* REJ: "other" */
	if (in->attr == CM_ATTR_REQ)
		m.msg_ref = 0;
	else if (in->attr == CM_ATTR_REP)
		m.msg_ref = 1;
	if (cm_mad_build(mad, &m) == 0)
		cm_send(d, sgid, gidx < 0 ? 0 : gidx, mad);
}

static struct cm_id *
find_listener(struct cm_dev *d, uint64_t sid, const struct sockaddr *dst)
{
	unsigned int ps = (unsigned int)(sid >> 16) & 0xffff;
	uint16_t port = (uint16_t)sid;
	struct cm_id *c;

	if (sid >> 32 != 0)
		return NULL;
	for (c = cm.ids; c != NULL; c = c->next) {
		const struct sockaddr *a = &c->id.route.addr.src_addr;

		if (c->state != CS_LISTEN || c->destroying ||
		    (unsigned int)c->id.ps != ps || cm_port_of(a) != port)
			continue;
		if (c->dev != NULL && c->dev != d)
			continue;
		/* bound to one address: it must be the one asked for */
		if (c->dev != NULL && dst->sa_family == a->sa_family &&
		    cm_gid_index(d, a) >= 0) {
			uint8_t g1[16], g2[16];

			cm_addr_to_gid(a, g1);
			cm_addr_to_gid(dst, g2);
			if (memcmp(g1, g2, 16) != 0)
				continue;
		}
		return c;
	}
	return NULL;
}

static void
set_port(struct sockaddr *a, uint16_t port)
{
	if (a->sa_family == AF_INET)
		((struct sockaddr_in *)a)->sin_port = htons(port);
	else if (a->sa_family == AF_INET6)
		((struct sockaddr_in6 *)a)->sin6_port = htons(port);
}

static void
gid_to_addr(const uint8_t g[16], struct sockaddr_storage *ss)
{
	static const uint8_t pre[12] = {0, 0, 0, 0, 0,	  0,
					0, 0, 0, 0, 0xff, 0xff};

	memset(ss, 0, sizeof(*ss));
	if (memcmp(g, pre, 12) == 0) {
		struct sockaddr_in *s = (void *)ss;

		s->sin_family = AF_INET;
		memcpy(&s->sin_addr, g + 12, 4);
	} else {
		struct sockaddr_in6 *s = (void *)ss;

		s->sin6_family = AF_INET6;
		memcpy(&s->sin6_addr, g, 16);
	}
}

void
cm_fill_path(struct cm_id *c)
{
	struct ibv_sa_path_rec *p = &c->path;

	memset(p, 0, sizeof(*p));
	memcpy(p->dgid.raw, c->dgid, 16);
	memcpy(p->sgid.raw, c->sgid, 16);
	p->pkey = 0xffff;
	p->hop_limit = 64;
	p->traffic_class = c->tos;
	p->mtu = c->mtu;
	p->mtu_selector = 2;
	p->reversible = 1;
	p->numb_path = 1;
	p->packet_life_time = 14;
	p->rate = 3;
	c->id.route.num_paths = 1;
}

/* Both ends of c from an incoming REQ/SIDR_REQ carrying the annex
 * header in pdata. */
static void
child_addrs(struct cm_id *c, struct cm_id *l, const struct cm_msg *m,
	    const uint8_t *src_gid)
{
	struct sockaddr_storage s, d;
	struct rdma_addr *ra = &c->id.route.addr;

	if (cm_ip_hdr_parse(m->pdata, &s, &d) != 0) {
		gid_to_addr(src_gid, &s);
		gid_to_addr(c->sgid, &d);
	}
	memcpy(&ra->dst_storage, &s, sizeof(s));
	memcpy(&ra->src_storage, &d, sizeof(d));
	set_port(&ra->src_addr, cm_port_of(&l->id.route.addr.src_addr));
}

static void
on_req(struct cm_dev *d, const uint8_t *sgid, const uint8_t *dst_gid,
       const struct cm_msg *m)
{
	struct sockaddr_storage hs, hd;
	struct cm_id *c, *l;
	struct cm_event *e;
	int gidx;

	for (c = cm.ids; c != NULL; c = c->next) {
		if (c->remote_id != m->local_id || c->destroying ||
		    memcmp(c->dgid, sgid, 16) != 0)
			continue;
		/* a duplicate REQ */
		if (c->state == CS_TIMEWAIT) {
			/* for a connection that is over (IBTA 12.9.8.3) */
			reply_stale(d, sgid, c->sgid_index, m, CM_ATTR_REJ,
				    CM_REJ_STALE_CONN);
		} else if (c->state == CS_REQ_RCVD) {
			struct cm_msg r = {.attr = CM_ATTR_MRA,
					   .msg_ref = 0,
					   .mra_timeout = 20};

			cm_send_msg(c, &r, false);
		} else if (c->state == CS_REP_SENT) {
			cm_send(d, c->dgid, c->sgid_index, c->mad);
		}
		return;
	}
	gidx = -1;
	if (cm_ip_hdr_parse(m->pdata, &hs, &hd) == 0)
		gidx = cm_gid_index(d, (struct sockaddr *)&hd);
	if (gidx < 0) {
		int i;

		for (i = 0; i < d->ngid; i++)
			if (memcmp(d->gid[i].raw, dst_gid, 16) == 0)
				gidx = i;
		gid_to_addr(dst_gid, &hd);
	}
	l = find_listener(d, m->service_id, (struct sockaddr *)&hd);
	if (l == NULL || gidx < 0) {
		CM_LOG("REQ for service 0x%llx: no listener\n",
		       (unsigned long long)m->service_id);
		reply_stale(d, sgid, gidx, m, CM_ATTR_REJ,
			    CM_REJ_INVALID_SERVICE_ID);
		return;
	}
	if (l->pending >= l->backlog) {
		cm.dropped++; /* the peer retries; by then there may be room */
		return;
	}
	c = cm_id_alloc(l->chan, l->id.context, l->id.ps,
			m->transport == 1 ? IBV_QPT_UC : IBV_QPT_RC);
	if (c == NULL)
		return;
	c->dev = d;
	c->id.verbs = d->ctx;
	c->id.port_num = 1;
	c->id.pd = d->app_pd;
	c->sgid_index = gidx;
	memcpy(c->sgid, d->gid[gidx].raw, 16);
	memcpy(c->dgid, sgid, 16);
	c->remote_id = m->local_id;
	c->tid = m->tid;
	c->remote_qpn = m->qpn;
	c->remote_psn = m->psn;
	c->resp_res = m->init_depth;
	c->init_depth = m->resp_res;
	c->retry_count = m->retry_count;
	c->rnr_retry = m->rnr_retry;
	c->ack_timeout = m->ack_timeout ? m->ack_timeout : 18;
	c->mtu = m->mtu && m->mtu < d->mtu ? m->mtu : d->mtu;
	c->remote_cm_timeout = m->local_cm_timeout;
	c->tos = m->traffic_class;
	c->remote_ece.vendor_id = m->ece_vendor;
	c->remote_ece.options = m->ece_options;
	c->listener = l;
	child_addrs(c, l, m, sgid);
	cm_fill_path(c);
	c->state = CS_REQ_RCVD;
	l->pending++;
	e = cm_event_post(c, RDMA_CM_EVENT_CONNECT_REQUEST, 0, m,
			  CM_IP_HDR_LEN);
	if (e != NULL) {
		/* counted on the listener, as rdma-core does: the handler may
		 * destroy the new ID before acknowledging its request */
		e->ev.listen_id = &l->id;
		c->events--;
		l->events++;
	}
}

static void
on_rep(struct cm_id *c, const struct cm_msg *m)
{
	if (c->state == CS_ESTABLISHED) {
		/* our RTU was lost */
		struct cm_msg r = {.attr = CM_ATTR_RTU};

		cm_send_msg(c, &r, false);
		return;
	}
	if (c->state != CS_REQ_SENT)
		return;
	c->armed = false;
	c->remote_id = m->local_id;
	c->remote_qpn = m->qpn;
	c->remote_psn = m->psn;
	c->init_depth = min8(c->init_depth, m->resp_res);
	c->resp_res = min8(c->resp_res, m->init_depth);
	c->rnr_retry = m->rnr_retry;
	c->remote_ece.vendor_id = m->ece_vendor;
	c->remote_ece.options = m->ece_options;
	if (c->id.qp == NULL) {
		c->state = CS_REP_RCVD;
		cm_event_post(c, RDMA_CM_EVENT_CONNECT_RESPONSE, 0, m, 0);
		return;
	}
	/* The QP moves to RTR/RTS and the RTU goes out when the application
	 * reads this event (rdma_get_cm_event), in its thread, as with
	 * rdma-core: the QP is the application's. */
	struct cm_event *e;

	c->state = CS_REP_RCVD;
	e = cm_event_post(c, RDMA_CM_EVENT_ESTABLISHED, 0, m, 0);
	if (e != NULL)
		e->complete_rep = true;
}

/* ECE of our QP once it exists (rdma_create_qp), as rdma-core does: its
 * vendor and options become what the REQ/REP carries; on the passive
 * side the QP first takes the options of the REQ (or none, if the
 * peer's vendor differs) and keeps those it supports. */
void
cm_ece_init(struct cm_id *c)
{
	struct ibv_ece e = {0};

	if (c->id.qp == NULL || ibv_query_ece(c->id.qp, &e) != 0)
		return;
	c->local_ece.vendor_id = e.vendor_id;
	c->local_ece.options = e.options;
	if (c->remote_ece.vendor_id == 0)
		return;
	if (c->remote_ece.vendor_id == e.vendor_id)
		e.options = c->remote_ece.options;
	else
		e.options = 0;
	if (ibv_set_ece(c->id.qp, &e) == 0 &&
	    ibv_query_ece(c->id.qp, &e) == 0)
		c->local_ece.options = e.options;
}

/* The REP's ECE, applied to the QP before RTR: the options the passive
 * side accepted, none if it sent no vendor. 0 or errno. */
static int
ece_rep(struct cm_id *c)
{
	struct ibv_ece e = {.vendor_id = c->remote_ece.vendor_id,
			    .options = c->remote_ece.options};
	int rc;

	if (c->id.qp == NULL || c->local_ece.vendor_id == 0)
		return 0;
	if (e.vendor_id == 0) {
		e.vendor_id = c->local_ece.vendor_id;
		e.options = 0;
	} else if (e.vendor_id != c->local_ece.vendor_id) {
		return EINVAL; /* not what we offered */
	}
	rc = ibv_set_ece(c->id.qp, &e);
	if (rc != 0 && rc != EOPNOTSUPP)
		return rc;
	if (ibv_query_ece(c->id.qp, &e) == 0)
		c->local_ece.options = e.options;
	return 0;
}

/* The application read the ESTABLISHED event of a REP: QP to RTR and
 * RTS, then RTU (or REJ and CONNECT_ERROR). Under cm.lock. */
void
cm_rep_complete(struct cm_event *e)
{
	struct cm_id *c = (struct cm_id *)e->ev.id;
	int rc;

	if (c->state != CS_REP_RCVD || c->destroying)
		return;
	rc = ece_rep(c);
	if (rc == 0)
		rc = cm_qp_to(c, IBV_QPS_RTR);
	if (rc == 0)
		rc = cm_qp_to(c, IBV_QPS_RTS);
	if (rc != 0) {
		struct cm_msg r = {.attr = CM_ATTR_REJ,
				   .msg_ref = 1,
				   .reason = CM_REJ_CONSUMER};

		cm_send_msg(c, &r, false);
		c->state = CS_DISCONNECTED;
		e->ev.event = RDMA_CM_EVENT_CONNECT_ERROR;
		e->ev.status = -rc;
		return;
	}
	struct cm_msg r = {.attr = CM_ATTR_RTU};

	cm_send_msg(c, &r, false);
	c->state = CS_ESTABLISHED;
}

static void
passive_done(struct cm_id *c)
{
	if (c->listener != NULL) {
		struct cm_id *l;

		for (l = cm.ids; l != NULL; l = l->next)
			if (l == c->listener && l->pending > 0)
				l->pending--;
		c->listener = NULL;
	}
}

static void
on_dreq(struct cm_dev *d, const uint8_t *sgid, struct cm_id *c,
	const struct cm_msg *m)
{
	struct cm_msg r = {.attr = CM_ATTR_DREP};

	if (c == NULL) {
		/* stale: answer so that the peer's DREQ completes */
		reply_stale(d, sgid, 0, m, CM_ATTR_DREP, 0);
		return;
	}
	cm_send_msg(c, &r, false);
	if (c->state == CS_ESTABLISHED || c->state == CS_REP_SENT ||
	    c->state == CS_DREQ_SENT) {
		passive_done(c);
		cm_disconnected(c, m);
	}
}

/* The connection is over (DREQ or DREP received, DREQ unanswered):
 * DISCONNECTED now, then TimeWait for about twice the packet lifetime,
 * in which stray messages for it are answered (DREQ: DREP; its REQ
 * again: REJ stale connection); RDMA_CM_EVENT_TIMEWAIT_EXIT at its end,
 * as the kernel's rdma_cm reports it. */
void
cm_disconnected(struct cm_id *c, const struct cm_msg *m)
{
	unsigned int t = c->path.packet_life_time + 1u;

	c->armed = false;
	c->state = CS_TIMEWAIT;
	c->timewait_ns = cm_now_ns() + (4096ull << (t > 31 ? 31 : t));
	cm_event_post(c, RDMA_CM_EVENT_DISCONNECTED, 0, m, 0);
	cm_wake();
}

/* LAP: we have no alternate paths (IBV_QP_ALT_PATH is refused), so
 * every LAP is answered by an APR refusing it, and counted. */
static void
on_lap(struct cm_dev *d, const uint8_t *sgid, struct cm_id *c,
       const struct cm_msg *m)
{
	struct cm_msg r;
	uint8_t mad[CM_MAD_LEN];

	cm_lap_answer(m, c != NULL, &r);
	cm.lap_refused++;
	CM_LOG("LAP refused (%llu so far)\n",
	       (unsigned long long)cm.lap_refused);
	if (cm_mad_build(mad, &r) == 0)
		cm_send(d, sgid, c != NULL ? c->sgid_index : 0, mad);
}

static void
on_sidr_req(struct cm_dev *d, const uint8_t *sgid, const struct cm_msg *m)
{
	struct sockaddr_storage hs, hd;
	struct cm_id *c, *l;
	struct cm_event *e;
	int gidx = -1;

	if (cm_ip_hdr_parse(m->pdata, &hs, &hd) == 0)
		gidx = cm_gid_index(d, (struct sockaddr *)&hd);
	l = gidx < 0 ? NULL
		     : find_listener(d, m->service_id, (struct sockaddr *)&hd);
	if (l == NULL) {
		struct cm_msg r = {
			.attr = CM_ATTR_SIDR_REP,
			.local_id = m->local_id,
			.tid = m->tid,
			.service_id = m->service_id,
			.status = 1}; /* SIDR: service ID not supported */
		uint8_t mad[CM_MAD_LEN];

		if (cm_mad_build(mad, &r) == 0)
			cm_send(d, sgid, gidx < 0 ? 0 : gidx, mad);
		return;
	}
	c = cm_id_alloc(l->chan, l->id.context, l->id.ps, IBV_QPT_UD);
	if (c == NULL)
		return;
	c->dev = d;
	c->id.verbs = d->ctx;
	c->id.pd = d->app_pd;
	c->id.port_num = 1;
	c->sgid_index = gidx;
	memcpy(c->sgid, d->gid[gidx].raw, 16);
	memcpy(c->dgid, sgid, 16);
	c->remote_id = m->local_id; /* the request ID */
	c->tid = m->tid;
	c->listener = l;
	child_addrs(c, l, m, sgid);
	cm_fill_path(c);
	c->state = CS_REQ_RCVD;
	l->pending++;
	e = cm_event_post(c, RDMA_CM_EVENT_CONNECT_REQUEST, 0, m,
			  CM_IP_HDR_LEN);
	if (e != NULL) {
		/* counted on the listener, as rdma-core does: the handler may
		 * destroy the new ID before acknowledging its request */
		e->ev.listen_id = &l->id;
		c->events--;
		l->events++;
	}
}

void
cm_recv(struct cm_dev *d, const uint8_t *grh, const uint8_t *mad,
	unsigned int len)
{
	uint8_t sgid[16], dgid[16];
	struct cm_msg m;
	struct cm_id *c;
	int rc;

	rc = cm_mad_parse(mad, len, &m);
	if (rc != 0) {
		cm.dropped++;
		CM_LOG("MAD dropped (%s)\n", strerror(-rc));
		return;
	}
	if (grh[20] >> 4 == 4) { /* RoCE v2 over IPv4: header at byte 20 */
		memset(sgid, 0, 16);
		memset(dgid, 0, 16);
		sgid[10] = sgid[11] = dgid[10] = dgid[11] = 0xff;
		memcpy(sgid + 12, grh + 20 + 12, 4);
		memcpy(dgid + 12, grh + 20 + 16, 4);
	} else {
		memcpy(sgid, grh + 8, 16);
		memcpy(dgid, grh + 24, 16);
	}
	CM_LOG("recv %s\n", cm_attr_str(m.attr));
	switch (m.attr) {
	case CM_ATTR_REQ:
		on_req(d, sgid, dgid, &m);
		return;
	case CM_ATTR_SIDR_REQ:
		on_sidr_req(d, sgid, &m);
		return;
	case CM_ATTR_SIDR_REP:
		for (c = cm.ids; c != NULL; c = c->next)
			if (c->state == CS_SIDR_SENT &&
			    c->local_id == m.local_id)
				break;
		if (c == NULL) {
			cm.dropped++;
			return;
		}
		c->armed = false;
		if (m.status != 0) {
			c->state = CS_ROUTE;
			cm_event_post(c, RDMA_CM_EVENT_UNREACHABLE, m.status,
				      &m, 0);
			return;
		}
		c->remote_qpn = m.qpn;
		c->remote_qkey = m.qkey;
		c->state = CS_UD_READY;
		cm_event_post(c, RDMA_CM_EVENT_ESTABLISHED, 0, &m, 0);
		return;
	default:
		break;
	}
	c = find_local(m.remote_id);
	if (c != NULL && c->remote_id != 0 && c->remote_id != m.local_id &&
	    m.attr != CM_ATTR_REP && m.attr != CM_ATTR_REJ)
		c = NULL; /* another connection's stale message */
	switch (m.attr) {
	case CM_ATTR_MRA:
		if (c != NULL && c->armed)
			c->deadline_ns = cm_now_ns() + c->timeout_ns +
					 (4096ull << (m.mra_timeout & 31));
		break;
	case CM_ATTR_REJ:
		if (c == NULL ||
		    (c->state != CS_REQ_SENT && c->state != CS_REP_SENT &&
		     c->state != CS_REP_RCVD))
			break;
		c->armed = false;
		passive_done(c);
		c->state = CS_DISCONNECTED;
		cm_event_post(c, RDMA_CM_EVENT_REJECTED, m.reason, &m, 0);
		break;
	case CM_ATTR_REP:
		if (c == NULL) {
			reply_stale(d, sgid, 0, &m, CM_ATTR_REJ,
				    CM_REJ_STALE_CONN);
			break;
		}
		on_rep(c, &m);
		break;
	case CM_ATTR_RTU:
		if (c == NULL || c->state != CS_REP_SENT)
			break;
		c->armed = false;
		passive_done(c);
		c->state = CS_ESTABLISHED;
		cm_event_post(c, RDMA_CM_EVENT_ESTABLISHED, 0, &m, 0);
		break;
	case CM_ATTR_DREQ:
		on_dreq(d, sgid, c, &m);
		break;
	case CM_ATTR_DREP:
		if (c == NULL || c->state != CS_DREQ_SENT)
			break;
		cm_disconnected(c, &m);
		break;
	case CM_ATTR_LAP:
		on_lap(d, sgid, c, &m);
		break;
	default:
		cm.dropped++;
	}
}

void
cm_timeout(struct cm_id *c)
{
	if (c->retries > 0) {
		c->retries--;
		c->deadline_ns = cm_now_ns() + c->timeout_ns;
		cm_send(c->dev, c->dgid, c->sgid_index, c->mad);
		return;
	}
	c->armed = false;
	switch (c->state) {
	case CS_REQ_SENT:
		c->state = CS_ROUTE;
		cm_event_post(c, RDMA_CM_EVENT_UNREACHABLE, -ETIMEDOUT, NULL,
			      0);
		break;
	case CS_SIDR_SENT:
		c->state = CS_ROUTE;
		cm_event_post(c, RDMA_CM_EVENT_UNREACHABLE, -ETIMEDOUT, NULL,
			      0);
		break;
	case CS_REP_SENT:
		passive_done(c);
		c->state = CS_DISCONNECTED;
		cm_event_post(c, RDMA_CM_EVENT_CONNECT_ERROR, -ETIMEDOUT, NULL,
			      0);
		break;
	case CS_DREQ_SENT:
		cm_disconnected(c, NULL);
		break;
	default:
		break;
	}
}

void
cm_ids_tick(void)
{
	uint64_t now = cm_now_ns();
	struct cm_id *c;

	for (c = cm.ids; c != NULL; c = c->next) {
		if (c->destroying)
			continue;
		if (c->armed && c->deadline_ns <= now)
			cm_timeout(c);
		if (c->state == CS_TIMEWAIT && c->timewait_ns <= now) {
			c->state = CS_DISCONNECTED;
			/* a synchronous ID waits for no such event */
			if (c->chan != NULL && !c->chan->internal)
				cm_event_post(c, RDMA_CM_EVENT_TIMEWAIT_EXIT,
					      0, NULL, 0);
		}
		if (c->state != CS_ADDR_QUERY)
			continue;
		if (now < c->addr_kick_ns)
			continue; /* ask the device every 50 ms */
		c->addr_kick_ns = now + 50000000ull;
		if (cm_neigh_ready(c)) {
			c->state = CS_ADDR_BOUND;
			cm_event_post(c, RDMA_CM_EVENT_ADDR_RESOLVED, 0, NULL,
				      0);
		} else if (now >= c->addr_deadline_ns) {
			c->state = CS_IDLE;
			cm_event_post(c, RDMA_CM_EVENT_ADDR_ERROR,
				      -EHOSTUNREACH, NULL, 0);
		}
	}
}
