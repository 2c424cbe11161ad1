/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Datagram rsockets (SOCK_DGRAM over one UD QP per socket).
 *
 * Each datagram is one UD SEND with Q_Key RDMA_UDP_QKEY that starts with
 * the header rdma-core's datagram rsockets put there (struct ds_hdr: IP
 * version, header length, the sender's port and address), then the
 * payload: a datagram is at most the path MTU less that header.
 *
 * Finding a destination's QP differs from rdma-core's, which asks through
 * a kernel UDP socket on the same port (a port dpverbs has no kernel path
 * to): here each socket listens on its port for SIDR requests in the UDP
 * port space (rdma_listen() on its rdma_cm ID) and answers them with its
 * QP number; a sender resolves a destination it has not heard from by a
 * SIDR request (rdma_resolve_addr, rdma_resolve_route, rdma_connect on a
 * UDP ID of its own), and the datagrams sent meanwhile wait in their send
 * slots. A datagram received teaches the way back: its sender's QP number
 * and the address vector from its GRH, so a reply needs no request.
 *
 * A socket's QP lives on one device: the device of its bound address, or
 * of the first destination or SIDR request it meets. The socket's
 * lock (rs->lk) covers everything here; callers hold it.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <search.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include <rdma/rsocket.h>

#include "rs_int.h"

#define DS_QKEY	      0x01234567u /* RDMA_UDP_QKEY */
#define DS_GRH	      40	  /* the GRH before every datagram received */
#define DS_WR_RECV    (1ull << 63)
#define DS_RESOLVE_MS 2000
/* a destination that could not be resolved answers its error this long,
 * then is tried again */
#define DS_FAIL_MS   1000
#define DS_DESTS_MAX 65536 /* destinations one socket remembers */
#define DS_MIN_Q     16
#define DS_CLOSE_MS  2000 /* rclose() waits this long for queued sends */

/* The header of every datagram (network byte order). */
struct ds_hdr {
	uint8_t version; /* 4 or 6 */
	uint8_t length;	 /* DS_HDR4 or DS_HDR6 */
	uint16_t port;
	union {
		uint32_t ipv4;
		struct {
			uint32_t flowinfo;
			uint8_t addr[16];
		} ipv6;
	} addr;
};
#define DS_HDR4 8
#define DS_HDR6 24
_Static_assert(sizeof(struct ds_hdr) == DS_HDR6, "ds_hdr is 24 bytes");

union ds_addr {
	struct sockaddr sa;
	struct sockaddr_in sin;
	struct sockaddr_in6 sin6;
};

/* A destination (the key of rs->dtree: addr first). */
struct ds_dest {
	union ds_addr addr;
	struct ibv_ah *ah;    /* NULL: not resolved */
	uint32_t qpn, qkey;
	struct rdma_cm_id *cid;	  /* a SIDR resolution under way */
	struct ds_hdr hdr;	  /* how we name ourselves to it */
	int pend_head, pend_tail; /* send slots waiting for ah (-1: none) */
	int err;		  /* the last resolution failed */
	uint64_t err_ms;
};
_Static_assert(offsetof(struct ds_dest, addr) == 0,
	       "a tree key is its destination");

static int
ds_cmp(const void *x, const void *y)
{
	const union ds_addr *a = x, *b = y;

	if (a->sa.sa_family != b->sa.sa_family)
		return a->sa.sa_family < b->sa.sa_family ? -1 : 1;
	if (a->sa.sa_family == AF_INET) {
		if (a->sin.sin_port != b->sin.sin_port)
			return a->sin.sin_port < b->sin.sin_port ? -1 : 1;
		return memcmp(&a->sin.sin_addr, &b->sin.sin_addr, 4);
	}
	if (a->sin6.sin6_port != b->sin6.sin6_port)
		return a->sin6.sin6_port < b->sin6.sin6_port ? -1 : 1;
	return memcmp(&a->sin6.sin6_addr, &b->sin6.sin6_addr, 16);
}

/* An address a caller gave, checked and copied (its port and address
 * only). 0, or -1 with errno. */
static int
ds_addr_take(union ds_addr *d, const struct sockaddr *a, socklen_t len)
{
	memset(d, 0, sizeof(*d));
	if (a == NULL)
		return RS_ERR(EDESTADDRREQ);
	if (a->sa_family == AF_INET && len >= sizeof(struct sockaddr_in)) {
		d->sin.sin_family = AF_INET;
		d->sin.sin_port = ((const struct sockaddr_in *)a)->sin_port;
		d->sin.sin_addr = ((const struct sockaddr_in *)a)->sin_addr;
	} else if (a->sa_family == AF_INET6 &&
		   len >= sizeof(struct sockaddr_in6)) {
		d->sin6.sin6_family = AF_INET6;
		d->sin6.sin6_port = ((const struct sockaddr_in6 *)a)->sin6_port;
		d->sin6.sin6_addr = ((const struct sockaddr_in6 *)a)->sin6_addr;
	} else {
		return RS_ERR(a->sa_family == AF_INET ||
					      a->sa_family == AF_INET6
				      ? EINVAL
				      : EAFNOSUPPORT);
	}
	if (d->sin.sin_port == 0)
		return RS_ERR(EINVAL);
	return 0;
}

static void
ds_hdr_set(struct ds_hdr *h, const struct sockaddr *a, uint16_t port)
{
	memset(h, 0, sizeof(*h));
	h->port = port;
	if (a->sa_family == AF_INET) {
		h->version = 4;
		h->length = DS_HDR4;
		h->addr.ipv4 = ((const struct sockaddr_in *)a)->sin_addr.s_addr;
	} else {
		h->version = 6;
		h->length = DS_HDR6;
		memcpy(h->addr.ipv6.addr,
		       &((const struct sockaddr_in6 *)a)->sin6_addr, 16);
	}
}

static void
ds_hdr_addr(const struct ds_hdr *h, union ds_addr *a)
{
	memset(a, 0, sizeof(*a));
	if (h->version == 4) {
		a->sin.sin_family = AF_INET;
		a->sin.sin_port = h->port;
		a->sin.sin_addr.s_addr = h->addr.ipv4;
	} else {
		a->sin6.sin6_family = AF_INET6;
		a->sin6.sin6_port = h->port;
		memcpy(&a->sin6.sin6_addr, h->addr.ipv6.addr, 16);
	}
}

/* Our port, in network byte order (as rdma_get_src_port() gives it). */
static uint16_t
ds_port(struct rs *rs)
{
	return rdma_get_src_port(rs->id);
}

/* The bound address, if it names one (not "any"). */
static const struct sockaddr *
ds_bound_addr(struct rs *rs)
{
	struct sockaddr *a = rdma_get_local_addr(rs->id);

	return cm_addr_any(a) ? NULL : a;
}

int
ds_init(struct rs *rs)
{
	if (rdma_create_id(rs->ch, &rs->id, rs, RDMA_PS_UDP))
		return -1;
	rs->dgram = true;
	rs->rd = rs->wr = true;
	return 0;
}

/* Bind (under rs->lk) and listen for SIDR requests on the port. */
int
ds_bind(struct rs *rs, const struct sockaddr *addr)
{
	if (rs->state != RS_INIT)
		return RS_ERR(EINVAL);
	if (rdma_bind_addr(rs->id, (struct sockaddr *)addr))
		return -1;
	if (rdma_listen(rs->id, 1024))
		return -1;
	rs->state = RS_BOUND;
	/* a bound address names the device: the QP is made now */
	if (rs->id->verbs != NULL && ds_ep(rs, rs->id->verbs))
		return -1;
	return 0;
}

/* Bound to "any" of family, an ephemeral port, as Linux does at the first
 * send of an unbound socket. */
static int
ds_autobind(struct rs *rs, int family)
{
	union ds_addr any;

	if (rs->state != RS_INIT)
		return 0;
	memset(&any, 0, sizeof(any));
	any.sa.sa_family = (sa_family_t)family;
	return ds_bind(rs, &any.sa);
}

static void
ds_post_recv(struct rs *rs, uint32_t slot)
{
	struct ibv_sge sg = {
		.addr = (uintptr_t)(rs->rbuf + (size_t)slot * rs->dstride),
		.length = rs->dstride,
		.lkey = rs->rmr->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = DS_WR_RECV | slot, .sg_list = &sg, .num_sge = 1};
	struct ibv_recv_wr *bad;

	if (ibv_post_recv(rs->dqp, &wr, &bad))
		rs->drq_lost++; /* the QP failed: this slot is gone */
}

static uint16_t
ds_queue(uint32_t want, uint32_t bytes, uint32_t stride)
{
	uint32_t n = bytes / stride;

	if (n < DS_MIN_Q)
		n = DS_MIN_Q;
	return (uint16_t)(n < want ? n : want);
}

/* The QP, CQ and slots of the socket, on ctx. 0, or -1 with errno. */
int
ds_ep(struct rs *rs, struct ibv_context *ctx)
{
	struct ibv_port_attr pa;
	struct ibv_qp_init_attr qa;

	if (rs->dqp != NULL)
		return rs->dctx == ctx ? 0 : RS_ERR(ENETUNREACH);
	if (ibv_query_port(ctx, 1, &pa))
		return -1;
	rs->dmtu = 128u << pa.active_mtu; /* IBV_MTU_256 is 1 */
	rs->dstride = (DS_GRH + rs->dmtu + 63u) & ~63u;
	rs->sq_size = ds_queue(rs->sq_size, rs->sbuf_size, RS_SNDLOWAT);
	rs->rq_size = ds_queue(rs->rq_size, rs->rbuf_size, RS_SNDLOWAT);
	if (rs_verbs_init(rs, ctx, IBV_QPT_UD, &qa))
		goto fail;
	qa.cap.max_send_sge = qa.cap.max_recv_sge = 1;
	rs->dqp = ibv_create_qp(rs->pd, &qa);
	if (rs->dqp == NULL)
		goto fail;
	rs->sq_inline = (uint16_t)qa.cap.max_inline_data;
	if (cm_ud_qp_rts(rs->dqp, DS_QKEY))
		goto fail;
	if (posix_memalign((void **)&rs->sbuf, 4096,
			   (size_t)rs->sq_size * rs->dstride) ||
	    posix_memalign((void **)&rs->rbuf, 4096,
			   (size_t)rs->rq_size * rs->dstride)) {
		errno = ENOMEM;
		goto fail;
	}
	rs->smr =
		ibv_reg_mr(rs->pd, rs->sbuf, (size_t)rs->sq_size * rs->dstride,
			   IBV_ACCESS_LOCAL_WRITE);
	rs->rmr =
		ibv_reg_mr(rs->pd, rs->rbuf, (size_t)rs->rq_size * rs->dstride,
			   IBV_ACCESS_LOCAL_WRITE);
	rs->rmsg = calloc(rs->rq_size + 1u, sizeof(*rs->rmsg));
	rs->dfree = calloc(rs->sq_size, sizeof(*rs->dfree));
	rs->dnext = calloc(rs->sq_size, sizeof(*rs->dnext));
	rs->dlen = calloc(rs->sq_size, sizeof(*rs->dlen));
	if (rs->smr == NULL || rs->rmr == NULL || rs->rmsg == NULL ||
	    rs->dfree == NULL || rs->dnext == NULL || rs->dlen == NULL) {
		errno = ENOMEM;
		goto fail;
	}
	for (int i = 0; i < rs->sq_size; i++)
		rs->dfree[i] = (uint16_t)(rs->sq_size - 1 - i);
	rs->nfree = rs->sq_size;
	rs->rm_head = rs->rm_tail = 0;
	rs->dctx = ctx;
	for (uint32_t i = 0; i < rs->rq_size; i++)
		ds_post_recv(rs, i);
	if (rs->drq_lost != 0) {
		errno = EIO;
		goto fail;
	}
	return 0;
fail : {
	int e = errno ? errno : ENOMEM;

	rs_free_ep(rs);
	return RS_ERR(e);
}
}

static struct ds_dest *
ds_find(struct rs *rs, const union ds_addr *a)
{
	void **t = tfind(a, &rs->dtree, ds_cmp);

	return t != NULL ? *t : NULL;
}

static struct ds_dest *
ds_dest_new(struct rs *rs, const union ds_addr *a)
{
	struct ds_dest *d;

	if (rs->ndests >= DS_DESTS_MAX) {
		errno = ENOBUFS;
		return NULL;
	}
	d = calloc(1, sizeof(*d));
	if (d == NULL)
		return NULL;
	d->addr = *a;
	d->pend_head = d->pend_tail = -1;
	if (tsearch(&d->addr, &rs->dtree, ds_cmp) == NULL) {
		free(d);
		errno = ENOMEM;
		return NULL;
	}
	rs->ndests++;
	return d;
}

/* Post the datagram in send slot s to resolved d: its payload is at
 * DS_HDR6 in the slot, d's header goes right before it. */
static int
ds_post(struct rs *rs, struct ds_dest *d, uint32_t s)
{
	uint8_t *p =
		rs->sbuf + (size_t)s * rs->dstride + DS_HDR6 - d->hdr.length;
	struct ibv_sge sg = {
		.addr = (uintptr_t)p,
		.length = d->hdr.length + rs->dlen[s],
		.lkey = rs->smr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = s,
		.sg_list = &sg,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
		.send_flags = sg.length <= rs->sq_inline ? IBV_SEND_INLINE : 0,
	};
	struct ibv_send_wr *bad;
	int rc;

	memcpy(p, &d->hdr, d->hdr.length);
	wr.wr.ud.ah = d->ah;
	wr.wr.ud.remote_qpn = d->qpn;
	wr.wr.ud.remote_qkey = d->qkey;
	rc = ibv_post_send(rs->dqp, &wr, &bad);
	if (rc != 0) { /* the slot is free again */
		rs->dfree[rs->nfree++] = (uint16_t)s;
		return RS_ERR(rc);
	}
	return 0;
}

/* d's waiting datagrams: sent (d resolved) or dropped. */
static void
ds_flush(struct rs *rs, struct ds_dest *d)
{
	while (d->pend_head >= 0) {
		uint32_t s = (uint32_t)d->pend_head;

		d->pend_head = rs->dnext[s];
		if (d->ah != NULL)
			ds_post(rs, d, s); /* frees the slot if it fails */
		else
			rs->dfree[rs->nfree++] = (uint16_t)s;
	}
	d->pend_tail = -1;
}

static void
ds_resolve_end(struct rs *rs, struct ds_dest *d, int err)
{
	if (d->cid != NULL) {
		rdma_destroy_id(d->cid);
		d->cid = NULL;
	}
	if (err != 0) {
		d->err = err;
		d->err_ms = rs_now_ms();
		if (d == rs->dconn)
			rs->err = err; /* the next call on the socket says so */
	}
	ds_flush(rs, d);
}

/* How we name ourselves to d: the bound address, else the one the way
 * to d leaves from (a), and our port. */
static void
ds_name_us(struct rs *rs, struct ds_dest *d, const struct sockaddr *a)
{
	const struct sockaddr *b = ds_bound_addr(rs);

	ds_hdr_set(&d->hdr, b != NULL ? b : a, ds_port(rs));
}

/* Start resolving d by a SIDR request; the device that reaches it is
 * known at once (our QP is made on it). 0, or -1 with errno. */
static int
ds_resolve(struct rs *rs, struct ds_dest *d)
{
	const struct sockaddr *b = ds_bound_addr(rs);
	union ds_addr src;
	int e;

	if (rdma_create_id(rs->ch, &d->cid, d, RDMA_PS_UDP))
		return -1;
	if (b != NULL) {
		memcpy(&src, b, cm_addr_len(b));
		src.sin.sin_port = 0; /* the same for sin6 */
	}
	if (rdma_resolve_addr(d->cid, b != NULL ? &src.sa : NULL, &d->addr.sa,
			      DS_RESOLVE_MS) ||
	    (d->cid->verbs != NULL && ds_ep(rs, d->cid->verbs))) {
		e = errno;
		rdma_destroy_id(d->cid);
		d->cid = NULL;
		return RS_ERR(e);
	}
	ds_name_us(rs, d, rdma_get_local_addr(d->cid));
	return 0;
}

/* A CM event of a datagram socket: a SIDR request to its port, or a step
 * of a destination's resolution. */
void
ds_cm_event(struct rs *rs, struct rdma_cm_event *e)
{
	struct rdma_conn_param p;
	struct ds_dest *d;

	if (e->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
		if (ds_ep(rs, e->id->verbs) == 0) {
			memset(&p, 0, sizeof(p));
			p.qp_num = rs->dqp->qp_num;
			if (rdma_accept(e->id, &p))
				rdma_reject(e->id, NULL, 0);
		} else {
			rdma_reject(e->id, NULL, 0);
		}
		rdma_destroy_id(e->id);
		return;
	}
	if (e->id == rs->id)
		return;
	d = e->id->context;
	if (d == NULL || d->cid != e->id)
		return;
	switch (e->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		if (ds_ep(rs, d->cid->verbs)) {
			ds_resolve_end(rs, d, errno);
			break;
		}
		ds_name_us(rs, d, rdma_get_local_addr(d->cid));
		if (rdma_resolve_route(d->cid, DS_RESOLVE_MS))
			ds_resolve_end(rs, d, errno);
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		if (rdma_connect(d->cid, NULL))
			ds_resolve_end(rs, d, errno);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		if (d->ah != NULL)
			ibv_destroy_ah(d->ah);
		d->ah = ibv_create_ah(rs->pd, &e->param.ud.ah_attr);
		d->qpn = e->param.ud.qp_num;
		d->qkey = e->param.ud.qkey;
		ds_resolve_end(rs, d, d->ah != NULL ? 0 : ENOMEM);
		break;
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_REJECTED:
		/* a SIDR reply of status 1: no socket on that port */
		ds_resolve_end(rs, d,
			       e->status == 1 ? ECONNREFUSED : EHOSTUNREACH);
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
	case RDMA_CM_EVENT_CONNECT_ERROR:
		ds_resolve_end(rs, d, EHOSTUNREACH);
		break;
	default:
		break;
	}
}

/*
 * A datagram received in slot s (its GRH first): checked, and its sender
 * learnt. The header must name the address the packet came from, so that
 * no one can have our replies sent elsewhere. false: drop it.
 */
static bool
ds_take(struct rs *rs, const struct ibv_wc *wc, uint32_t s)
{
	uint8_t *g = rs->rbuf + (size_t)s * rs->dstride;
	const struct ds_hdr *h = (const struct ds_hdr *)(g + DS_GRH);
	const uint8_t *ip4 = g + 20;
	union ds_addr src;
	struct ds_dest *d;

	if (wc->byte_len < DS_GRH + DS_HDR4 || !(wc->wc_flags & IBV_WC_GRH))
		return false;
	if (!((h->version == 4 && h->length == DS_HDR4) ||
	      (h->version == 6 && h->length == DS_HDR6)) ||
	    wc->byte_len < DS_GRH + (uint32_t)h->length)
		return false;
	if (h->version == 4
		    ? (ip4[0] >> 4 != 4 || memcmp(ip4 + 12, &h->addr.ipv4, 4))
		    : (g[0] >> 4 != 6 || memcmp(g + 8, h->addr.ipv6.addr, 16)))
		return false;
	ds_hdr_addr(h, &src);
	if (rs->dconn != NULL && ds_cmp(&src, &rs->dconn->addr) != 0)
		return false; /* a connected socket hears its peer only */
	d = ds_find(rs, &src);
	if (d != NULL && d->ah != NULL && d->qpn == wc->src_qp)
		return true;
	if (d == NULL && (d = ds_dest_new(rs, &src)) == NULL)
		return true; /* no way back learnt; the data is good */
	if (d->ah != NULL)
		ibv_destroy_ah(d->ah); /* a new QP there: its socket changed */
	d->ah = ibv_create_ah_from_wc(rs->pd, (struct ibv_wc *)wc,
				      (struct ibv_grh *)g, 1);
	d->qpn = wc->src_qp;
	d->qkey = DS_QKEY;
	d->err = 0;
	if (d->ah != NULL) {
		union ds_addr us;

		/* we are the address it sent to */
		memset(&us, 0, sizeof(us));
		us.sa.sa_family = src.sa.sa_family;
		if (h->version == 4)
			memcpy(&us.sin.sin_addr, ip4 + 16, 4);
		else
			memcpy(&us.sin6.sin6_addr, g + 24, 16);
		ds_name_us(rs, d, &us.sa);
		if (d->cid != NULL)
			ds_resolve_end(rs, d, 0);
	}
	return true;
}

static void
ds_poll_cq(struct rs *rs)
{
	struct ibv_wc wc[16];
	int n;

	if (rs->cq == NULL)
		return;
	while ((n = ibv_poll_cq(rs->cq, 16, wc)) > 0) {
		for (int i = 0; i < n; i++) {
			uint32_t s = (uint32_t)wc[i].wr_id;

			if (!(wc[i].wr_id & DS_WR_RECV)) {
				rs->dfree[rs->nfree++] = (uint16_t)s;
				continue;
			}
			rs->rx_seen = true;
			if (wc[i].status == IBV_WC_SUCCESS && rs->rd &&
			    ds_take(rs, &wc[i], s)) {
				rs->rmsg[rs->rm_tail] =
					s << 16 | (wc[i].byte_len - DS_GRH);
				rs->rm_tail = rs->rm_tail == rs->rq_size
						      ? 0
						      : rs->rm_tail + 1;
				continue;
			}
			if (wc[i].status == IBV_WC_SUCCESS)
				rs->ddrops++;
			if (wc[i].status != IBV_WC_WR_FLUSH_ERR)
				ds_post_recv(rs, s);
		}
		if (n < 16)
			break;
	}
}

void
ds_progress(struct rs *rs)
{
	ds_poll_cq(rs);
	if (rs->state != RS_INIT)
		rs_cm_step(rs);
}

static bool
ds_can_send(struct rs *rs)
{
	return rs->nfree > 0 || !rs->wr;
}

static bool
ds_have_data(struct rs *rs)
{
	return rs->rm_head != rs->rm_tail || !rs->rd || rs->err != 0;
}

/* Every datagram sent or dropped: a closing socket's last sends go. */
static bool
ds_sends_done(struct rs *rs)
{
	return rs->dqp == NULL || rs->nfree == rs->sq_size;
}

short
ds_revents(struct rs *rs, short events)
{
	short r = 0;

	if (ds_have_data(rs))
		r |= POLLIN;
	if (rs->dqp == NULL || ds_can_send(rs))
		r |= POLLOUT;
	if (rs->err != 0)
		r |= POLLERR;
	return r & (events | POLLERR | POLLHUP);
}

/* The error a connected socket's peer gave (once), or 0. */
static int
ds_take_err(struct rs *rs)
{
	int e = rs->err;

	rs->err = 0;
	return e;
}

ssize_t
ds_sendmsg(struct rs *rs, const struct msghdr *m, int flags)
{
	union ds_addr to;
	struct ds_dest *d;
	size_t len = 0;
	uint8_t *p;
	uint32_t s;

	if (m->msg_iovlen > 0 && m->msg_iov == NULL)
		return RS_ERR(EFAULT);
	for (size_t i = 0; i < m->msg_iovlen; i++)
		len += m->msg_iov[i].iov_len;
	if (m->msg_name != NULL) {
		if (ds_addr_take(&to, m->msg_name, m->msg_namelen))
			return -1;
		d = ds_find(rs, &to);
	} else if (rs->dconn != NULL) {
		d = rs->dconn;
		to = d->addr;
	} else {
		return RS_ERR(EDESTADDRREQ);
	}
	if (!rs->wr)
		return RS_ERR(EPIPE);
	if (d != NULL && d == rs->dconn && rs->err != 0)
		return RS_ERR(ds_take_err(rs));
	if (ds_autobind(rs, to.sa.sa_family))
		return -1;
	if (d == NULL && (d = ds_dest_new(rs, &to)) == NULL)
		return -1;
	if (d->err != 0) {
		if (rs_now_ms() - d->err_ms < DS_FAIL_MS)
			return RS_ERR(d->err);
		d->err = 0;
	}
	if (d->ah == NULL && d->cid == NULL && ds_resolve(rs, d))
		return -1;
	if (len > rs->dmtu - (to.sa.sa_family == AF_INET ? DS_HDR4 : DS_HDR6))
		return RS_ERR(EMSGSIZE);
	if (!ds_can_send(rs) &&
	    rs_wait(rs, ds_can_send,
		    (flags & MSG_DONTWAIT) || (rs->fl & O_NONBLOCK), -1))
		return -1;
	if (!rs->wr)
		return RS_ERR(EPIPE);
	s = rs->dfree[--rs->nfree];
	p = rs->sbuf + (size_t)s * rs->dstride + DS_HDR6;
	for (size_t i = 0; i < m->msg_iovlen; i++) {
		memcpy(p, m->msg_iov[i].iov_base, m->msg_iov[i].iov_len);
		p += m->msg_iov[i].iov_len;
	}
	rs->dlen[s] = (uint32_t)len;
	if (d->ah != NULL)
		return ds_post(rs, d, s) ? -1 : (ssize_t)len;
	/* waits for the SIDR reply, in order */
	rs->dnext[s] = -1;
	if (d->pend_tail >= 0)
		rs->dnext[d->pend_tail] = (int)s;
	else
		d->pend_head = (int)s;
	d->pend_tail = (int)s;
	return (ssize_t)len;
}

ssize_t
ds_recvmsg(struct rs *rs, struct msghdr *m, int flags)
{
	const struct ds_hdr *h;
	const uint8_t *p;
	uint32_t s, len, left, n = 0;
	union ds_addr from;

	if (m->msg_iovlen > 0 && m->msg_iov == NULL)
		return RS_ERR(EFAULT);
	if (rs->rm_head == rs->rm_tail &&
	    rs_wait(rs, ds_have_data,
		    (flags & MSG_DONTWAIT) || (rs->fl & O_NONBLOCK), -1))
		return -1;
	if (rs->err != 0)
		return RS_ERR(ds_take_err(rs));
	if (rs->rm_head == rs->rm_tail)
		return 0; /* shut down for reading */
	s = rs->rmsg[rs->rm_head] >> 16;
	len = rs->rmsg[rs->rm_head] & 0xffff;
	h = (const struct ds_hdr *)(rs->rbuf + (size_t)s * rs->dstride +
				    DS_GRH);
	p = (const uint8_t *)h + h->length;
	len -= h->length;
	left = len;
	for (size_t i = 0; i < m->msg_iovlen && left > 0; i++) {
		uint32_t c = m->msg_iov[i].iov_len < left
				     ? (uint32_t)m->msg_iov[i].iov_len
				     : left;

		memcpy(m->msg_iov[i].iov_base, p + n, c);
		n += c;
		left -= c;
	}
	m->msg_flags = left > 0 ? MSG_TRUNC : 0;
	m->msg_controllen = 0;
	if (m->msg_name != NULL) {
		ds_hdr_addr(h, &from);
		rs_copy_addr(m->msg_name, &m->msg_namelen, &from.sa);
	} else {
		m->msg_namelen = 0;
	}
	if (!(flags & MSG_PEEK)) {
		rs->rm_head = rs->rm_head == rs->rq_size ? 0 : rs->rm_head + 1;
		ds_post_recv(rs, s);
	}
	return (ssize_t)((flags & MSG_TRUNC) ? len : n);
}

int
ds_connect(struct rs *rs, const struct sockaddr *addr, socklen_t len)
{
	union ds_addr to;
	struct ds_dest *d;

	if (addr != NULL && addr->sa_family == AF_UNSPEC) {
		rs->dconn = NULL; /* dissolved, as for UDP */
		rs->err = 0;
		return 0;
	}
	if (ds_addr_take(&to, addr, len))
		return -1;
	if (ds_autobind(rs, to.sa.sa_family))
		return -1;
	d = ds_find(rs, &to);
	if (d == NULL && (d = ds_dest_new(rs, &to)) == NULL)
		return -1;
	rs->dconn = d;
	rs->err = 0;
	/* resolved now, so that the first datagram need not wait */
	if (d->ah == NULL && d->cid == NULL)
		ds_resolve(rs, d);
	return 0;
}

int
ds_peername(struct rs *rs, struct sockaddr *addr, socklen_t *len)
{
	if (rs->dconn == NULL)
		return RS_ERR(ENOTCONN);
	return rs_copy_addr(addr, len, &rs->dconn->addr.sa);
}

int
ds_shutdown(struct rs *rs, int how)
{
	if (how != SHUT_RD && how != SHUT_WR && how != SHUT_RDWR)
		return RS_ERR(EINVAL);
	if (rs->dconn == NULL)
		return RS_ERR(ENOTCONN);
	if (how != SHUT_WR)
		rs->rd = false;
	if (how != SHUT_RD)
		rs->wr = false;
	return 0;
}

/* At rclose(): the datagrams queued go out first (bounded). */
void
ds_close(struct rs *rs)
{
	if (!ds_sends_done(rs))
		rs_wait(rs, ds_sends_done, false, DS_CLOSE_MS);
	if ((rs->ddrops != 0 || rs->drq_lost != 0) &&
	    getenv("DPV_RDMACM_DEBUG") != NULL)
		fprintf(stderr,
			"dpv rdmacm: datagram rsocket %d: %" PRIu64
			" datagrams dropped (malformed, or not from the "
			"connected peer), %" PRIu64 " receive slots lost\n",
			rs->fd, rs->ddrops, rs->drq_lost);
}

/* A destination, from the tree (its key, addr, is its start). */
static void
ds_dest_free(void *p)
{
	struct ds_dest *d = p;

	if (d->cid != NULL)
		rdma_destroy_id(d->cid);
	if (d->ah != NULL)
		ibv_destroy_ah(d->ah);
	free(d);
}

/* The destinations (before the PD their AHs belong to). */
void
ds_free(struct rs *rs)
{
	tdestroy(rs->dtree, ds_dest_free);
	rs->dtree = NULL;
	rs->ndests = 0;
	rs->dconn = NULL;
}
