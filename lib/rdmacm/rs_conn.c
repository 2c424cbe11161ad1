/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rsockets: the socket table, connection set-up and tear-down through our
 * own librdmacm, and the socket options. What is SOCK_DGRAM's own is in
 * rs_dgram.c.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>

#include <rdma/rsocket.h>

#include "dpv_verbs.h"
#include "rs_int.h"

#define RS_RESOLVE_MS 2000
#define RS_CONNECT_MS 30000 /* a blocking connect gives up after this */
#define RS_ACCEPT_MS  10000 /* an accepted connection must be up by then */
#define RS_CLOSE_MS   2000  /* rshutdown waits this long for the peer */

static struct rs *rs_tab[RS_MAX_FD];
static pthread_mutex_t tab_lk = PTHREAD_MUTEX_INITIALIZER;

static void rs_destroy(struct rs *rs);

struct rs *
rs_get(int fd)
{
	struct rs *rs;

	if (fd < 0 || fd >= RS_MAX_FD) {
		errno = EBADF;
		return NULL;
	}
	pthread_mutex_lock(&tab_lk);
	rs = rs_tab[fd];
	if (rs != NULL)
		rs->refs++;
	pthread_mutex_unlock(&tab_lk);
	if (rs == NULL) {
		errno = EBADF;
		return NULL;
	}
	pthread_mutex_lock(&rs->lk);
	return rs;
}

/* Drop a reference (the socket unlocked); the last one frees it. */
static void
rs_unref(struct rs *rs)
{
	unsigned int left;

	pthread_mutex_lock(&tab_lk);
	left = --rs->refs;
	pthread_mutex_unlock(&tab_lk);
	if (left == 0)
		rs_destroy(rs);
}

void
rs_put(struct rs *rs)
{
	pthread_mutex_unlock(&rs->lk);
	rs_unref(rs);
}

/* A new socket on its own event channel (a non-blocking fd: waits poll
 * it). 0, or -1 with errno. */
static struct rs *
rs_new(const struct rs *parent)
{
	struct rs *rs = calloc(1, sizeof(*rs));

	if (rs == NULL)
		return NULL;
	pthread_mutex_init(&rs->lk, NULL);
	rs->refs = 1; /* its creator's, the table's once published */
	rs->wfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (rs->wfd < 0)
		goto err;
	rs->pend_tail = &rs->pend;
	if (parent != NULL) {
		rs->sbuf_size = parent->sbuf_size;
		rs->rbuf_size = parent->rbuf_size;
		rs->sq_size = parent->sq_size;
		rs->rq_size = parent->rq_size;
		rs->sq_inline = parent->sq_inline;
		rs->iomap_size = parent->iomap_size;
		rs->nodelay = parent->nodelay;
		rs->keepalive = parent->keepalive;
		rs->keepidle = parent->keepidle;
		rs->fl = parent->fl;
	} else {
		rs->sbuf_size = rs->rbuf_size = RS_DEF_BUF;
		rs->sq_size = rs->rq_size = RS_DEF_QP;
		rs->sq_inline = RS_DEF_INLINE;
	}
	rs->ch = rdma_create_event_channel();
	if (rs->ch == NULL)
		goto err;
	if (fcntl(rs->ch->fd, F_SETFL, fcntl(rs->ch->fd, F_GETFL) | O_NONBLOCK) ||
	    rs->ch->fd >= RS_MAX_FD) {
		rs_event_channel_free(rs->ch);
		errno = EMFILE;
		goto err;
	}
	rs->fd = rs->ch->fd;
	return rs;
err:
	if (rs->wfd >= 0)
		close(rs->wfd);
	pthread_mutex_destroy(&rs->lk);
	free(rs);
	return NULL;
}

static void
rs_publish(struct rs *rs)
{
	pthread_mutex_lock(&tab_lk);
	rs_tab[rs->fd] = rs;
	pthread_mutex_unlock(&tab_lk);
}

/* The PD, the completion channel (non-blocking: waits poll it) and the
 * CQ of a socket on ctx, whether the application drives the device, and
 * qa filled for a QP of type t on them (the SGE counts left to the
 * caller). 0, or -1 with errno. */
int
rs_verbs_init(struct rs *rs, struct ibv_context *ctx, enum ibv_qp_type t,
	      struct ibv_qp_init_attr *qa)
{
	struct dpv_device_progress pr;

	rs->app_progress = dpv_device_progress_get(ctx, &pr) != 0 ||
			   pr.mode == DPV_DEVICE_PROGRESS_APP;
	rs->pd = ibv_alloc_pd(ctx);
	rs->cch = ibv_create_comp_channel(ctx);
	if (rs->pd == NULL || rs->cch == NULL)
		return -1;
	if (fcntl(rs->cch->fd, F_SETFL,
		  fcntl(rs->cch->fd, F_GETFL) | O_NONBLOCK))
		return -1;
	rs->cq = ibv_create_cq(ctx, rs->sq_size + rs->rq_size, rs, rs->cch, 0);
	if (rs->cq == NULL)
		return -1;
	memset(qa, 0, sizeof(*qa));
	qa->qp_context = rs;
	qa->send_cq = qa->recv_cq = rs->cq;
	qa->qp_type = t;
	qa->sq_sig_all = 1;
	qa->cap.max_send_wr = rs->sq_size;
	qa->cap.max_recv_wr = rs->rq_size;
	qa->cap.max_inline_data = rs->sq_inline;
	return 0;
}

/* The QP, CQ, buffers and their MRs of a socket about to connect or
 * accept. 0, or -1 with errno. */
static int
rs_create_ep(struct rs *rs)
{
	struct ibv_context *ctx = rs->id->verbs;
	struct ibv_qp_init_attr qa;
	int acc = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	size_t tlen = sizeof(struct rs_sge) * RS_SGL_N +
		      sizeof(struct rs_iomap) * rs->iomap_size;

	if (ctx == NULL)
		return RS_ERR(ENODEV);
	if (rs_verbs_init(rs, ctx, IBV_QPT_RC, &qa))
		return -1;
	qa.cap.max_send_sge = 2;
	qa.cap.max_recv_sge = 1;
	if (rdma_create_qp(rs->id, rs->pd, &qa))
		return -1;
	rs->sq_inline = (uint16_t)qa.cap.max_inline_data;

	if (posix_memalign((void **)&rs->sbuf, 4096,
			   rs->sbuf_size + RS_CTRL_N * sizeof(struct rs_sge)) ||
	    posix_memalign((void **)&rs->rbuf, 4096, rs->rbuf_size) ||
	    posix_memalign((void **)&rs->tsgl, 64, tlen)) {
		errno = ENOMEM;
		return -1;
	}
	memset((void *)rs->tsgl, 0, tlen);
	if (rs->iomap_size > 0)
		rs->tiomap = (volatile struct rs_iomap *)(rs->tsgl + RS_SGL_N);
	rs->rmsg = calloc(rs->rq_size + 1u, sizeof(*rs->rmsg));
	if (rs->rmsg == NULL)
		return -1;
	rs->smr = ibv_reg_mr(rs->pd, rs->sbuf,
			     rs->sbuf_size + RS_CTRL_N * sizeof(struct rs_sge),
			     IBV_ACCESS_LOCAL_WRITE);
	rs->rmr = ibv_reg_mr(rs->pd, rs->rbuf, rs->rbuf_size, acc);
	rs->tmr = ibv_reg_mr(rs->pd, (void *)rs->tsgl, tlen, acc);
	if (rs->smr == NULL || rs->rmr == NULL || rs->tmr == NULL)
		return -1;
	rs_bufs_init(rs);
	return rs_post_recvs(rs, rs->rq_size);
}

void
rs_free_ep(struct rs *rs)
{
	if (rs->dqp != NULL)
		ibv_destroy_qp(rs->dqp);
	if (rs->id != NULL && rs->id->qp != NULL)
		rdma_destroy_qp(rs->id);
	rs_iomap_free(rs);
	if (rs->cq != NULL) {
		rs_drain_events(rs);
		ibv_destroy_cq(rs->cq);
	}
	if (rs->cch != NULL)
		ibv_destroy_comp_channel(rs->cch);
	if (rs->smr != NULL)
		ibv_dereg_mr(rs->smr);
	if (rs->rmr != NULL)
		ibv_dereg_mr(rs->rmr);
	if (rs->tmr != NULL)
		ibv_dereg_mr(rs->tmr);
	if (rs->pd != NULL)
		ibv_dealloc_pd(rs->pd);
	free(rs->sbuf);
	free(rs->rbuf);
	free((void *)rs->tsgl);
	free(rs->rmsg);
	free(rs->dfree);
	free(rs->dnext);
	free(rs->dlen);
	rs->dqp = NULL;
	rs->dctx = NULL;
	rs->dfree = NULL;
	rs->dnext = NULL;
	rs->dlen = NULL;
	rs->nfree = 0;
	rs->cq = NULL;
	rs->cch = NULL;
	rs->smr = rs->rmr = rs->tmr = NULL;
	rs->pd = NULL;
	rs->sbuf = rs->rbuf = NULL;
	rs->tsgl = NULL;
	rs->tiomap = NULL;
	rs->rmsg = NULL;
}

/* Free a socket no one refers to any more. */
static void
rs_destroy(struct rs *rs)
{
	struct rs_pend *p;

	while ((p = rs->pend) != NULL) {
		rs->pend = p->next;
		rdma_reject(p->id, NULL, 0);
		rdma_destroy_id(p->id);
		free(p);
	}
	if (rs->dgram)
		ds_free(rs); /* their AHs before the PD */
	rs_free_ep(rs);
	if (rs->id != NULL)
		rdma_destroy_id(rs->id);
	rs_event_channel_free(rs->ch);
	close(rs->wfd);
	pthread_mutex_destroy(&rs->lk);
	free(rs);
}

/* Free a socket its creator holds locked and never published. */
static void
rs_free(struct rs *rs)
{
	pthread_mutex_unlock(&rs->lk);
	rs_destroy(rs);
}

static void
rs_fmt_conn(const struct rs *rs, struct rs_conn_data *cd)
{
	memset(cd, 0, sizeof(*cd));
	cd->version = 1;
	/* rdma-core announces the table (flag) even when it has no entry */
	cd->flags = RS_CONN_FLAG_IOMAP |
		    (__BYTE_ORDER == __BIG_ENDIAN ? RS_CONN_FLAG_NET : 0);
	cd->credits = htobe16(rs->rq_size);
	cd->target_iomap_size = rs_iomap_scale(rs->iomap_size);
	cd->target_sgl.addr = htobe64((uintptr_t)rs->tsgl);
	cd->target_sgl.key = htobe32(rs->tmr->rkey);
	cd->target_sgl.length = htobe32(RS_SGL_N);
	cd->data_buf.addr = htobe64((uintptr_t)rs->rbuf);
	cd->data_buf.key = htobe32(rs->rmr->rkey);
	cd->data_buf.length = htobe32(rs->rbuf_size / 2);
}

static void
rs_take_conn(struct rs *rs, const struct rs_conn_data *cd)
{
	bool peer_be = cd->flags & RS_CONN_FLAG_NET;

	rs->swap = peer_be != (__BYTE_ORDER == __BIG_ENDIAN);
	rs->rsgl_addr = be64toh(cd->target_sgl.addr);
	rs->rsgl_key = be32toh(cd->target_sgl.key);
	rs->rsgl_n = be32toh(cd->target_sgl.length);
	rs->riomap_n = 0;
	if (cd->flags & RS_CONN_FLAG_IOMAP) {
		rs->riomap_addr =
			rs->rsgl_addr + sizeof(struct rs_sge) * rs->rsgl_n;
		rs->riomap_n = rs_iomap_size(cd->target_iomap_size);
	}
	if (rs->rsgl_n == 0)
		rs->rsgl_n = 1;
	rs->rsge = 1 % rs->rsgl_n; /* the first entry went in the REQ/REP */
	rs->tsgl[0].addr = be64toh(cd->data_buf.addr);
	rs->tsgl[0].key = be32toh(cd->data_buf.key);
	rs->tsgl[0].length = be32toh(cd->data_buf.length);
	rs->tsge = 0;
	rs->sseq_comp = be16toh(cd->credits);
}

/* Parse a REQ's / REP's private data; false if it is no rsocket's. */
static bool
rs_parse_conn(const struct rdma_cm_event *e, struct rs_conn_data *cd)
{
	if (e->param.conn.private_data == NULL ||
	    e->param.conn.private_data_len < sizeof(*cd))
		return false;
	memcpy(cd, e->param.conn.private_data, sizeof(*cd));
	return cd->version == 1;
}

static void
rs_conn_param(struct rdma_conn_param *p, const struct rs_conn_data *cd)
{
	memset(p, 0, sizeof(*p));
	p->private_data = cd;
	p->private_data_len = sizeof(*cd);
	p->flow_control = 1;
	p->retry_count = 7;
	p->rnr_retry_count = 7;
}

static void
rs_fail(struct rs *rs, int err)
{
	rs->state = RS_FAILED;
	rs->err = err;
}

/* One CM event of a socket, already taken off its channel. */
static void
rs_cm_event(struct rs *rs, struct rdma_cm_event *e)
{
	struct rdma_conn_param p;
	struct rs_conn_data cd;
	struct rs_pend *pd;

	if (rs->dgram) {
		ds_cm_event(rs, e);
		return;
	}
	switch (e->event) {
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		if (rs->state != RS_LISTEN || rs->npend >= rs->backlog) {
			rdma_reject(e->id, NULL, 0);
			rdma_destroy_id(e->id);
			break;
		}
		pd = calloc(1, sizeof(*pd));
		if (pd == NULL) {
			rdma_reject(e->id, NULL, 0);
			rdma_destroy_id(e->id);
			break;
		}
		pd->id = e->id;
		pd->ok = rs_parse_conn(e, &pd->cd);
		*rs->pend_tail = pd;
		rs->pend_tail = &pd->next;
		rs->npend++;
		break;
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		if (rs->state != RS_ADDR)
			break;
		if (rdma_resolve_route(rs->id, RS_RESOLVE_MS))
			rs_fail(rs, errno);
		else
			rs->state = RS_ROUTE;
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		if (rs->state != RS_ROUTE)
			break;
		if (rs_create_ep(rs)) {
			rs_fail(rs, errno ? errno : ENOMEM);
			break;
		}
		rs_fmt_conn(rs, &cd);
		rs_conn_param(&p, &cd);
		if (rdma_connect(rs->id, &p))
			rs_fail(rs, errno);
		else
			rs->state = RS_CONNECT;
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		if (rs->state != RS_CONNECT)
			break;
		if (rs->passive) {
			rs->state = RS_CONNECTED;
			rs->rd = rs->wr = true;
			break;
		}
		if (rs->id->qp_type != IBV_QPT_RC || !rs_parse_conn(e, &cd)) {
			rs_fail(rs, ECONNREFUSED);
			break;
		}
		/* the active side: the REP carried the peer's buffers */
		rs_take_conn(rs, &cd);
		rs->state = RS_CONNECTED;
		rs->rd = rs->wr = true;
		break;
	case RDMA_CM_EVENT_REJECTED:
		if (rs->state == RS_CONNECT)
			rs_fail(rs, ECONNREFUSED);
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
		if (rs->state == RS_ADDR || rs->state == RS_ROUTE)
			rs_fail(rs, EHOSTUNREACH);
		break;
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_CONNECT_ERROR:
		if (rs->state == RS_CONNECT)
			rs_fail(rs, ETIMEDOUT);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		if (rs->state == RS_CONNECTED) {
			/* whatever the peer wrote before is in the CQ */
			rs_progress_cq(rs);
			rs->rd = rs->wr = false;
			rs->state = RS_CLOSED;
		} else if (rs->state == RS_CONNECT) {
			rs_fail(rs, ECONNRESET);
		}
		break;
	default:
		break;
	}
}

void
rs_cm_step(struct rs *rs)
{
	struct rdma_cm_event *e;
	int n = 0;

	/* bounded: a flood of requests does not keep the caller here */
	while (n++ < 64 && rdma_get_cm_event(rs->ch, &e) == 0) {
		struct rdma_cm_event copy = *e;
		uint8_t pdata[256];

		if (e->param.conn.private_data != NULL) {
			size_t l = e->param.conn.private_data_len;

			if (l > sizeof(pdata))
				l = sizeof(pdata);
			memcpy(pdata, e->param.conn.private_data, l);
			copy.param.conn.private_data = pdata;
			copy.param.conn.private_data_len = (uint8_t)l;
		}
		rdma_ack_cm_event(e);
		rs_cm_event(rs, &copy);
	}
	if (n > 1) /* taken from under a sleeper's poll() */
		rs_nudge(rs);
}

int
rsocket(int domain, int type, int protocol)
{
	int base = type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC);
	struct rs *rs;
	int rc;

	if (domain != AF_INET && domain != AF_INET6)
		return RS_ERR(EAFNOSUPPORT);
	if (base != SOCK_STREAM && base != SOCK_DGRAM)
		return RS_ERR(EPROTOTYPE);
	if (protocol != 0 &&
	    protocol != (base == SOCK_STREAM ? IPPROTO_TCP : IPPROTO_UDP))
		return RS_ERR(EPROTONOSUPPORT);
	rs = rs_new(NULL);
	if (rs == NULL)
		return -1;
	rc = base == SOCK_DGRAM
		     ? ds_init(rs)
		     : rdma_create_id(rs->ch, &rs->id, rs, RDMA_PS_TCP);
	if (rc) {
		int e = errno;

		rs->id = NULL;
		rs_destroy(rs);
		return RS_ERR(e);
	}
	if (type & SOCK_NONBLOCK)
		rs->fl |= O_NONBLOCK;
	if (type & SOCK_CLOEXEC)
		fcntl(rs->fd, F_SETFD, FD_CLOEXEC);
	rs_publish(rs);
	return rs->fd;
}

int
rbind(int s, const struct sockaddr *addr, socklen_t len)
{
	struct rs *rs = rs_get(s);
	int ret;

	if (rs == NULL)
		return -1;
	if (addr == NULL || len < sizeof(struct sockaddr_in) ||
	    (addr->sa_family == AF_INET6 &&
	     len < sizeof(struct sockaddr_in6))) {
		rs_put(rs);
		return RS_ERR(EINVAL);
	}
	if (rs->state != RS_INIT) {
		rs_put(rs);
		return RS_ERR(EINVAL);
	}
	if (rs->dgram)
		ret = ds_bind(rs, addr);
	else if ((ret = rdma_bind_addr(rs->id, (struct sockaddr *)addr)) == 0)
		rs->state = RS_BOUND;
	rs_put(rs);
	return ret;
}

int
rlisten(int s, int backlog)
{
	struct rs *rs = rs_get(s);
	int ret = 0;

	if (rs == NULL)
		return -1;
	if (backlog <= 0 || backlog > 1024)
		backlog = 1024;
	if (rs->dgram) {
		ret = RS_ERR(EOPNOTSUPP);
	} else if (rs->state == RS_LISTEN) {
		rs->backlog = backlog;
	} else if (rs->state != RS_BOUND) {
		ret = RS_ERR(EINVAL);
	} else {
		ret = rdma_listen(rs->id, backlog);
		if (ret == 0) {
			rs->state = RS_LISTEN;
			rs->backlog = backlog;
		}
	}
	rs_put(rs);
	return ret;
}

static bool
rs_has_pend(struct rs *rs)
{
	return rs->pend != NULL;
}

static bool
rs_est_or_fail(struct rs *rs)
{
	return rs->state != RS_CONNECT;
}

/* Address a into a caller's dst of *len bytes (cut short if need be),
 * *len set to its whole length. 0, or -1 with EFAULT. */
int
rs_copy_addr(struct sockaddr *dst, socklen_t *len, const struct sockaddr *a)
{
	socklen_t l = cm_addr_len(a);

	if (dst == NULL || len == NULL)
		return RS_ERR(EFAULT);
	memcpy(dst, a, *len < l ? *len : l);
	*len = l;
	return 0;
}

/* Accept one taken request p into ns, a new socket with its listener's
 * options (NULL for a request not ok, or if none could be made: errno
 * set), which must be up within RS_ACCEPT_MS. The listener is not held
 * meanwhile: its other callers (rpoll, rclose, another raccept) do not
 * wait for a handshake. Its fd, or -1 with errno. */
static int
rs_accept_one(struct rs *ns, struct rs_pend *p)
{
	struct rdma_conn_param prm;
	struct rs_conn_data cd;
	int e;

	if (!p->ok || ns == NULL) {
		e = !p->ok ? ECONNABORTED : errno;
		rdma_reject(p->id, NULL, 0);
		rdma_destroy_id(p->id);
		return RS_ERR(e);
	}
	pthread_mutex_lock(&ns->lk);
	ns->id = p->id;
	ns->id->context = ns;
	ns->passive = true;
	if (rdma_migrate_id(ns->id, ns->ch) || rs_create_ep(ns))
		goto fail;
	rs_take_conn(ns, &p->cd);
	rs_fmt_conn(ns, &cd);
	rs_conn_param(&prm, &cd);
	if (rdma_accept(ns->id, &prm))
		goto fail;
	ns->state = RS_CONNECT;
	/* our QP may send once the peer's RTU made it RTS */
	rs_wait(ns, rs_est_or_fail, false, RS_ACCEPT_MS);
	if (ns->state == RS_CONNECT) {
		errno = ETIMEDOUT;
		goto fail;
	}
	/* up, and perhaps closed at once (by the peer, or for its
	 * violation): returned all the same, its calls say so, as accept(2)
	 * returns a connection reset after it came */
	if (ns->state != RS_CONNECTED && ns->state != RS_CLOSED) {
		errno = ECONNABORTED;
		goto fail;
	}
	rs_publish(ns);
	pthread_mutex_unlock(&ns->lk);
	return ns->fd;
fail:
	e = errno ? errno : ECONNABORTED;
	rs_free(ns);
	return RS_ERR(e);
}

int
raccept(int s, struct sockaddr *addr, socklen_t *len)
{
	struct rs *ls = rs_get(s), *ns;
	struct rs_pend *p;
	int fd;

	if (ls == NULL)
		return -1;
	if (ls->state != RS_LISTEN) {
		rs_put(ls);
		return RS_ERR(ls->dgram ? EOPNOTSUPP : EINVAL);
	}
	if (rs_wait(ls, rs_has_pend, ls->fl & O_NONBLOCK, -1)) {
		rs_put(ls);
		return -1;
	}
	p = ls->pend;
	ls->pend = p->next;
	if (ls->pend == NULL)
		ls->pend_tail = &ls->pend;
	ls->npend--;
	ns = p->ok ? rs_new(ls) : NULL;
	rs_put(ls);
	fd = rs_accept_one(ns, p);
	free(p);
	if (fd >= 0 && addr != NULL && len != NULL) {
		ns = rs_get(fd);
		if (ns != NULL) {
			rs_copy_addr(addr, len, rdma_get_peer_addr(ns->id));
			rs_put(ns);
		}
	}
	return fd;
}

static bool
rs_conn_done(struct rs *rs)
{
	return rs->state == RS_CONNECTED || rs->state == RS_FAILED ||
	       rs->state == RS_CLOSED;
}

int
rconnect(int s, const struct sockaddr *addr, socklen_t len)
{
	struct rs *rs = rs_get(s);
	int ret;

	if (rs == NULL)
		return -1;
	if (rs->dgram) {
		ret = ds_connect(rs, addr, len);
		goto out;
	}
	switch (rs->state) {
	case RS_INIT:
	case RS_BOUND:
		if (addr == NULL || len < sizeof(struct sockaddr_in) ||
		    (addr->sa_family == AF_INET6 &&
		     len < sizeof(struct sockaddr_in6))) {
			ret = RS_ERR(EINVAL);
			goto out;
		}
		if (rdma_resolve_addr(rs->id, NULL, (struct sockaddr *)addr,
				      RS_RESOLVE_MS)) {
			ret = -1;
			goto out;
		}
		rs->state = RS_ADDR;
		if (rs->fl & O_NONBLOCK) {
			ret = RS_ERR(EINPROGRESS);
			goto out;
		}
		break;
	case RS_ADDR:
	case RS_ROUTE:
	case RS_CONNECT:
		if (rs->fl & O_NONBLOCK) {
			rs_cm_step(rs);
			if (!rs_conn_done(rs)) {
				ret = RS_ERR(EALREADY);
				goto out;
			}
		}
		break;
	case RS_CONNECTED:
	case RS_CLOSED:
		ret = RS_ERR(EISCONN);
		goto out;
	case RS_FAILED:
		ret = RS_ERR(rs->err ? rs->err : ECONNREFUSED);
		rs->err = 0;
		goto out;
	default:
		ret = RS_ERR(EINVAL);
		goto out;
	}
	rs_wait(rs, rs_conn_done, false, RS_CONNECT_MS);
	if (rs->state == RS_CONNECTED || rs->state == RS_CLOSED) {
		ret = 0;
	} else if (rs->state == RS_FAILED) {
		ret = RS_ERR(rs->err);
		rs->err = 0;
	} else {
		rs_fail(rs, ETIMEDOUT);
		ret = RS_ERR(ETIMEDOUT);
		rs->err = 0;
	}
out:
	rs_put(rs);
	return ret;
}

/* Send one control message and wait (bounded) until the peer has it.
 * Under rs->lk. */
static void
rs_send_ctrl(struct rs *rs, uint32_t ctrl)
{
	if (!rs_ctrl_free(rs))
		rs_wait(rs, rs_ctrl_free, false, RS_CLOSE_MS);
	if (rs->state == RS_CONNECTED && rs_ctrl_free(rs) &&
	    rs_post_ctrl(rs, RS_IMM(RS_OP_CTRL, ctrl)) == 0)
		rs_wait(rs, rs_sends_done, false, RS_CLOSE_MS);
}

int
rs_disconnect(struct rs *rs, int how)
{
	uint32_t ctrl;

	if (how != SHUT_RD && how != SHUT_WR && how != SHUT_RDWR)
		return RS_ERR(EINVAL);
	if (rs->state == RS_CLOSED) {
		if (how != SHUT_WR)
			rs->rd = false;
		if (how != SHUT_RD)
			rs->wr = false;
		return 0;
	}
	if (rs->state != RS_CONNECTED)
		return RS_ERR(ENOTCONN);
	if (how == SHUT_RD) {
		rs->rd = false;
		if (rs->wr)
			return 0; /* nothing to tell the peer yet */
		ctrl = RS_CTRL_DISCONNECT;
	} else if (how == SHUT_WR) {
		if (!rs->wr)
			return 0;
		rs->wr = false;
		ctrl = rs->rd ? RS_CTRL_SHUTDOWN : RS_CTRL_DISCONNECT;
	} else {
		rs->rd = rs->wr = false;
		ctrl = RS_CTRL_DISCONNECT;
	}
	rs_send_ctrl(rs, ctrl);
	if (ctrl == RS_CTRL_DISCONNECT && rs->state == RS_CONNECTED) {
		rdma_disconnect(rs->id);
		rs->state = RS_CLOSED;
	}
	return 0;
}

int
rshutdown(int s, int how)
{
	struct rs *rs = rs_get(s);
	int ret;

	if (rs == NULL)
		return -1;
	ret = rs->dgram ? ds_shutdown(rs, how) : rs_disconnect(rs, how);
	rs_nudge(rs); /* a waiter may see its end now */
	rs_put(rs);
	return ret;
}

int
rclose(int s)
{
	struct rs *rs = rs_get(s);

	if (rs == NULL)
		return -1;
	if (rs->closed) { /* another thread's rclose() got here first */
		rs_put(rs);
		return RS_ERR(EBADF);
	}
	if (rs->state == RS_CONNECTED)
		rs_disconnect(rs, SHUT_RDWR);
	if (rs->dgram)
		ds_close(rs);
	else if (rs->violations != 0 && getenv("DPV_RDMACM_DEBUG") != NULL)
		fprintf(stderr,
			"dpv rdmacm: rsocket %d: %" PRIu64
			" protocol violations of the peer (the connection "
			"was reset)\n",
			rs->fd, rs->violations);
	/* the number is free for no one else while a caller still waits
	 * on the socket (its fd stays open until the last reference) */
	rs->closed = true;
	rs_nudge(rs); /* its waiters give up */
	pthread_mutex_lock(&tab_lk);
	rs_tab[rs->fd] = NULL;
	rs->refs--; /* the table's; ours keeps it */
	pthread_mutex_unlock(&tab_lk);
	rs_put(rs);
	return 0;
}

int
rgetpeername(int s, struct sockaddr *addr, socklen_t *len)
{
	struct rs *rs = rs_get(s);
	int ret;

	if (rs == NULL)
		return -1;
	if (rs->dgram)
		ret = ds_peername(rs, addr, len);
	else if (rs->state != RS_CONNECTED && rs->state != RS_CLOSED)
		ret = RS_ERR(ENOTCONN);
	else
		ret = rs_copy_addr(addr, len, rdma_get_peer_addr(rs->id));
	rs_put(rs);
	return ret;
}

int
rgetsockname(int s, struct sockaddr *addr, socklen_t *len)
{
	struct rs *rs = rs_get(s);
	int ret;

	if (rs == NULL)
		return -1;
	ret = rs_copy_addr(addr, len, rdma_get_local_addr(rs->id));
	rs_put(rs);
	return ret;
}

/* A buffer size option: doubled as Linux does, within our limits. */
static uint32_t
rs_buf_opt(int v)
{
	uint64_t b = v > 0 ? (uint64_t)v * 2 : RS_MIN_BUF;

	if (b < RS_MIN_BUF)
		b = RS_MIN_BUF;
	if (b > RS_MAX_BUF)
		b = RS_MAX_BUF;
	return (uint32_t)(b & ~7ull);
}

static uint16_t
rs_qp_opt(int v)
{
	return (uint16_t)(v < 16 ? 16 : v > 0x4000 ? 0x4000 : v);
}

int
rsetsockopt(int s, int level, int name, const void *val, socklen_t len)
{
	struct rs *rs = rs_get(s);
	bool early;
	int v, ret = 0;

	if (rs == NULL)
		return -1;
	if (name == SO_LINGER && level == SOL_SOCKET) {
		if (val == NULL || len < sizeof(struct linger))
			ret = RS_ERR(EINVAL);
		else
			memcpy(&rs->linger, val, sizeof(rs->linger));
		goto out;
	}
	if (val == NULL || len < sizeof(int)) {
		ret = RS_ERR(EINVAL);
		goto out;
	}
	v = *(const int *)val;
	/* buffers and queues are sized at connect: later values are kept
	 * for getsockopt but change nothing (as rdma-core's do) */
	early = rs->sbuf == NULL;
	switch (level) {
	case SOL_SOCKET:
		switch (name) {
		case SO_REUSEADDR:
			ret = rdma_set_option(rs->id, RDMA_OPTION_ID,
					      RDMA_OPTION_ID_REUSEADDR, &v,
					      sizeof(v));
			if (ret == 0)
				rs->reuseaddr = !!v;
			break;
		case SO_KEEPALIVE:
			rs->keepalive = !!v;
			break;
		case SO_SNDBUF:
			if (early)
				rs->sbuf_size = rs_buf_opt(v);
			break;
		case SO_RCVBUF:
			if (early)
				rs->rbuf_size = rs_buf_opt(v);
			break;
		default:
			ret = RS_ERR(ENOPROTOOPT);
		}
		break;
	case IPPROTO_TCP:
		if (name == TCP_NODELAY)
			rs->nodelay = !!v;
		else if (name == TCP_KEEPIDLE)
			rs->keepidle = v;
		else
			ret = RS_ERR(ENOPROTOOPT);
		break;
	case IPPROTO_IPV6:
		if (name == IPV6_V6ONLY)
			rs->v6only = !!v;
		else
			ret = RS_ERR(ENOPROTOOPT);
		break;
	case SOL_RDMA:
		if (name == RDMA_SQSIZE && early)
			rs->sq_size = rs_qp_opt(v);
		else if (name == RDMA_RQSIZE && early)
			rs->rq_size = rs_qp_opt(v);
		else if (name == RDMA_INLINE && early)
			rs->sq_inline = (uint16_t)(v < 0 ? 0 : v > 512 ? 512 : v);
		else if (name == RDMA_IOMAPSIZE && early)
			/* rounded as the connect data will carry it */
			rs->iomap_size = (uint16_t)rs_iomap_size(
				rs_iomap_scale(v < 0 ? 0 : (uint32_t)v));
		else if (name == RDMA_SQSIZE || name == RDMA_RQSIZE ||
			 name == RDMA_INLINE || name == RDMA_IOMAPSIZE)
			ret = RS_ERR(EINVAL); /* the QP exists already */
		else
			ret = RS_ERR(EOPNOTSUPP); /* RDMA_ROUTE */
		break;
	default:
		ret = RS_ERR(ENOPROTOOPT);
	}
out:
	rs_put(rs);
	return ret;
}

int
rgetsockopt(int s, int level, int name, void *val, socklen_t *len)
{
	struct rs *rs = rs_get(s);
	int v = 0, ret = 0;

	if (rs == NULL)
		return -1;
	if (val == NULL || len == NULL) {
		ret = RS_ERR(EFAULT);
		goto out;
	}
	if (level == SOL_SOCKET && name == SO_LINGER) {
		if (*len < sizeof(struct linger)) {
			ret = RS_ERR(EINVAL);
		} else {
			memcpy(val, &rs->linger, sizeof(rs->linger));
			*len = sizeof(rs->linger);
		}
		goto out;
	}
	if (*len < sizeof(int)) {
		ret = RS_ERR(EINVAL);
		goto out;
	}
	switch (level << 16 | name) {
	case SOL_SOCKET << 16 | SO_REUSEADDR: v = rs->reuseaddr; break;
	case SOL_SOCKET << 16 | SO_KEEPALIVE: v = rs->keepalive; break;
	case SOL_SOCKET << 16 | SO_SNDBUF: v = (int)rs->sbuf_size; break;
	case SOL_SOCKET << 16 | SO_RCVBUF: v = (int)rs->rbuf_size; break;
	case SOL_SOCKET << 16 | SO_TYPE:
		v = rs->dgram ? SOCK_DGRAM : SOCK_STREAM;
		break;
	case SOL_SOCKET << 16 | SO_ERROR:
		if (rs->state == RS_ADDR || rs->state == RS_ROUTE ||
		    rs->state == RS_CONNECT)
			rs_cm_step(rs);
		v = rs->err;
		rs->err = 0;
		break;
	case IPPROTO_TCP << 16 | TCP_NODELAY: v = rs->nodelay; break;
	case IPPROTO_TCP << 16 | TCP_KEEPIDLE: v = rs->keepidle; break;
	case IPPROTO_TCP << 16 | TCP_MAXSEG: v = 2048; break;
	case IPPROTO_IPV6 << 16 | IPV6_V6ONLY: v = rs->v6only; break;
	default:
		if (level == SOL_RDMA && name == RDMA_SQSIZE)
			v = rs->sq_size;
		else if (level == SOL_RDMA && name == RDMA_RQSIZE)
			v = rs->rq_size;
		else if (level == SOL_RDMA && name == RDMA_INLINE)
			v = rs->sq_inline;
		else if (level == SOL_RDMA && name == RDMA_IOMAPSIZE)
			v = rs->iomap_size;
		else if (level == SOL_RDMA)
			ret = RS_ERR(EOPNOTSUPP);
		else
			ret = RS_ERR(ENOPROTOOPT);
	}
	if (ret == 0) {
		memcpy(val, &v, sizeof(v));
		*len = sizeof(v);
	}
out:
	rs_put(rs);
	return ret;
}

int
rfcntl(int s, int cmd, ...)
{
	struct rs *rs = rs_get(s);
	va_list ap;
	long arg;
	int ret;

	if (rs == NULL)
		return -1;
	va_start(ap, cmd);
	arg = va_arg(ap, long);
	va_end(ap);
	switch (cmd) {
	case F_GETFL:
		ret = rs->fl | O_RDWR;
		break;
	case F_SETFL:
		rs->fl = (int)arg & O_NONBLOCK;
		ret = 0;
		break;
	case F_GETFD:
	case F_SETFD:
		ret = fcntl(rs->fd, cmd, (int)arg);
		break;
	default:
		ret = RS_ERR(EOPNOTSUPP);
	}
	rs_put(rs);
	return ret;
}
