/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpv-rdmacm-peer: one end of an RDMA CM scenario, for
 * test/scripts/fast-rdmacm-events.sh. Uses only the librdmacm API (so it
 * runs on any librdmacm.so.1), an O_NONBLOCK event channel under poll(),
 * and prints one line per event; exits 0 when its end saw what the
 * scenario says it must.
 *
 *   dpv-rdmacm-peer server SCENARIO ADDR PORT
 *   dpv-rdmacm-peer client SCENARIO ADDR PORT
 *   dpv-rdmacm-peer local mcast ADDR PORT
 *
 * Scenarios: reject (the server rejects with private data), srvdisc (the
 * server disconnects an established connection), death (the server
 * process exits while connected), nolisten (the server destroys its
 * listener first), unreach (no CM on the peer: client only); srvdisc
 * also checks the request's ECE (the client's vendor ID) and that both
 * ends see RDMA_CM_EVENT_TIMEWAIT_EXIT after DISCONNECTED; local mcast
 * (no peer: the multicast join / leave API on the device that owns ADDR,
 * its errors and the join event's UD parameters). Every server first checks
 * that rdma_get_request() refuses its listener (EINVAL: it has an event
 * channel of the application's, not a synchronous one).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <rdma/rdma_cma.h>

static struct rdma_event_channel *ch;
static const char rej_data[] = "dpv: not today";

/* Next event within ms (poll on the non-blocking fd); NULL on timeout. */
static struct rdma_cm_event *
next_event(int ms)
{
	struct rdma_cm_event *e;
	struct pollfd p = {.fd = ch->fd, .events = POLLIN};

	for (;;) {
		if (rdma_get_cm_event(ch, &e) == 0) {
			printf("event %s status %d\n", rdma_event_str(e->event),
			       e->status);
			fflush(stdout);
			return e;
		}
		if (errno != EAGAIN) {
			perror("rdma_get_cm_event");
			return NULL;
		}
		if (poll(&p, 1, ms) <= 0)
			return NULL;
	}
}

/* Wait for event type want; 0 or -1 (and print what came instead). */
static int
expect(enum rdma_cm_event_type want, int ms, struct rdma_cm_event **out)
{
	struct rdma_cm_event *e = next_event(ms);

	if (e == NULL) {
		printf("no %s within %d ms\n", rdma_event_str(want), ms);
		return -1;
	}
	if (e->event != want) {
		printf("wanted %s\n", rdma_event_str(want));
		rdma_ack_cm_event(e);
		return -1;
	}
	if (out)
		*out = e;
	else
		rdma_ack_cm_event(e);
	return 0;
}

static int
make_qp(struct rdma_cm_id *id)
{
	struct ibv_qp_init_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_type = IBV_QPT_RC;
	a.cap.max_send_wr = a.cap.max_recv_wr = 4;
	a.cap.max_send_sge = a.cap.max_recv_sge = 1;
	if (rdma_create_qp(id, NULL, &a) != 0) {
		perror("rdma_create_qp");
		return -1;
	}
	return 0;
}

static int
qp_state(struct rdma_cm_id *id)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	if (ibv_query_qp(id->qp, &a, IBV_QP_STATE, &ia) != 0)
		return -1;
	return a.qp_state;
}

/* A connect request's ECE: the client's QP named its vendor (our own
 * device kind, as ibv_query_ece on our QP says) and no options. */
static int
ece_check(struct rdma_cm_id *c)
{
	struct ibv_ece re, le;
	struct ibv_qp *qp;

	if (rdma_get_remote_ece(c, &re) != 0) {
		perror("rdma_get_remote_ece");
		return -1;
	}
	if (make_qp(c) != 0)
		return -1;
	qp = c->qp;
	if (ibv_query_ece(qp, &le) != 0)
		return -1;
	printf("remote ECE vendor 0x%x options 0x%x, ours 0x%x\n",
	       re.vendor_id, re.options, le.vendor_id);
	errno = 0;
	if (rdma_get_remote_ece(c, &re) != -1 || errno != EINVAL) {
		printf("rdma_get_remote_ece with a QP: not EINVAL\n");
		return -1;
	}
	rdma_destroy_qp(c); /* make_qp makes it again */
	return re.vendor_id == 0 || re.vendor_id != le.vendor_id ||
			       re.options != 0
		       ? -1
		       : 0;
}

static int
server(const char *sc, struct sockaddr_in *sin)
{
	struct rdma_cm_id *l, *c;
	struct rdma_cm_event *e;

	if (rdma_create_id(ch, &l, NULL, RDMA_PS_TCP) != 0 ||
	    rdma_bind_addr(l, (struct sockaddr *)sin) != 0 ||
	    rdma_listen(l, 4) != 0) {
		perror("listen");
		return 1;
	}
	/* rdma_get_request() takes a synchronous listener only: this one has
	 * the application's channel (whose next event may be another ID's) */
	if (rdma_get_request(l, &c) == 0 || errno != EINVAL) {
		fprintf(stderr, "rdma_get_request on an asynchronous listener: "
			"%s, want EINVAL\n", strerror(errno));
		return 1;
	}
	printf("listening\n");
	fflush(stdout);
	if (strcmp(sc, "nolisten") == 0) {
		rdma_destroy_id(l);
		printf("listener destroyed\n");
		fflush(stdout);
		sleep(8); /* keep the CM answering while the client tries */
		return 0;
	}
	if (expect(RDMA_CM_EVENT_CONNECT_REQUEST, 20000, &e) != 0)
		return 1;
	c = e->id;
	rdma_ack_cm_event(e);
	if (strcmp(sc, "reject") == 0) {
		if (rdma_reject(c, rej_data, sizeof(rej_data)) != 0)
			return 1;
		rdma_destroy_id(c);
		rdma_destroy_id(l);
		return 0;
	}
	if (ece_check(c) != 0)
		return 1;
	if (make_qp(c) != 0 || rdma_accept(c, NULL) != 0)
		return 1;
	if (expect(RDMA_CM_EVENT_ESTABLISHED, 10000, NULL) != 0)
		return 1;
	if (strcmp(sc, "death") == 0) {
		printf("exiting while connected\n");
		fflush(stdout);
		exit(0); /* nothing destroyed: the process just goes */
	}
	if (rdma_disconnect(c) != 0)
		return 1;
	if (expect(RDMA_CM_EVENT_DISCONNECTED, 10000, NULL) != 0 ||
	    expect(RDMA_CM_EVENT_TIMEWAIT_EXIT, 5000, NULL) != 0)
		return 1;
	printf("qp state %d\n", qp_state(c));
	rdma_destroy_qp(c);
	rdma_destroy_id(c);
	rdma_destroy_id(l);
	return 0;
}

static int
client(const char *sc, struct sockaddr_in *sin)
{
	struct rdma_cm_id *id;
	struct rdma_cm_event *e;
	struct rdma_conn_param p;
	int rc = 1;

	if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP) != 0 ||
	    rdma_resolve_addr(id, NULL, (struct sockaddr *)sin, 5000) != 0)
		return 1;
	if (expect(RDMA_CM_EVENT_ADDR_RESOLVED, 6000, NULL) != 0 ||
	    rdma_resolve_route(id, 2000) != 0 ||
	    expect(RDMA_CM_EVENT_ROUTE_RESOLVED, 3000, NULL) != 0 ||
	    make_qp(id) != 0)
		return 1;
	memset(&p, 0, sizeof(p));
	p.responder_resources = p.initiator_depth = 1;
	p.retry_count = p.rnr_retry_count = 7;
	if (strcmp(sc, "nolisten") == 0)
		sleep(1); /* let the server destroy its listener */
	if (rdma_connect(id, &p) != 0)
		return 1;
	e = next_event(30000);
	if (e == NULL)
		return 1;
	if (strcmp(sc, "reject") == 0) {
		const struct rdma_conn_param *c = &e->param.conn;

		rc = !(e->event == RDMA_CM_EVENT_REJECTED && e->status == 28 &&
		       c->private_data_len >= sizeof(rej_data) &&
		       memcmp(c->private_data, rej_data, sizeof(rej_data)) ==
			       0);
		printf("private data \"%.*s\"\n", (int)sizeof(rej_data) - 1,
		       c->private_data ? (const char *)c->private_data : "");
	} else if (strcmp(sc, "nolisten") == 0) {
		rc = !(e->event == RDMA_CM_EVENT_REJECTED && e->status == 8);
	} else if (strcmp(sc, "unreach") == 0) {
		rc = !(e->event == RDMA_CM_EVENT_UNREACHABLE &&
		       e->status == -ETIMEDOUT);
	} else {
		rc = e->event != RDMA_CM_EVENT_ESTABLISHED;
		rdma_ack_cm_event(e);
		e = NULL;
		if (rc == 0)
			rc = expect(RDMA_CM_EVENT_DISCONNECTED, 15000, NULL) !=
			     0;
		/* the QP is ours: rdma_disconnect moves it to ERR */
		if (rc == 0 && rdma_disconnect(id) != 0) {
			perror("rdma_disconnect");
			rc = 1;
		}
		if (rc == 0) {
			int s = qp_state(id);

			printf("qp state %d\n", s);
			rc = s != IBV_QPS_ERR;
		}
		/* the connection leaves TimeWait */
		if (rc == 0)
			rc = expect(RDMA_CM_EVENT_TIMEWAIT_EXIT, 5000, NULL) !=
			     0;
	}
	if (e != NULL)
		rdma_ack_cm_event(e);
	rdma_destroy_qp(id);
	rdma_destroy_id(id);
	return rc;
}

/* Print and count a check that failed. */
#define CHECK(cond, what)                                                      \
	do {                                                                   \
		if (!(cond)) {                                                 \
			printf("FAIL %s (errno %d)\n", what, errno);           \
			bad++;                                                 \
		}                                                              \
	} while (0)

/* A GID (union) from 16 bytes, for ibv_attach_mcast / ibv_detach_mcast */
#define u_gid(raw) (*(union ibv_gid *)(uintptr_t)(raw))

static void
group(struct sockaddr_in *g, const char *a)
{
	memset(g, 0, sizeof(*g));
	g->sin_family = AF_INET;
	inet_pton(AF_INET, a, &g->sin_addr);
}

static int
local_mcast(struct sockaddr_in *sin)
{
	static const uint8_t mgid[16] = {[10] = 0xff, [11] = 0xff, 230, 0, 2,
					 7};
	struct rdma_cm_join_mc_attr_ex ax;
	struct sockaddr_in g, g2, uni;
	struct rdma_cm_id *ud, *tcp;
	struct ibv_qp_init_attr a;
	struct rdma_cm_event *e;
	int bad = 0, ctx_tag;

	group(&g, "230.0.2.7");
	group(&g2, "230.0.2.8");
	group(&uni, "192.0.2.77");
	if (rdma_create_id(ch, &ud, NULL, RDMA_PS_UDP) != 0 ||
	    rdma_create_id(ch, &tcp, NULL, RDMA_PS_TCP) != 0)
		return 1;
	errno = 0;
	CHECK(rdma_join_multicast(ud, (struct sockaddr *)&g, NULL) == -1 &&
		      errno == EINVAL,
	      "join on an unbound ID: EINVAL");
	if (rdma_bind_addr(ud, (struct sockaddr *)sin) != 0 ||
	    rdma_bind_addr(tcp, (struct sockaddr *)sin) != 0)
		return 1;
	errno = 0;
	CHECK(rdma_join_multicast(tcp, (struct sockaddr *)&g, NULL) == -1 &&
		      errno == EINVAL,
	      "join on an RDMA_PS_TCP ID: EINVAL");
	errno = 0;
	CHECK(rdma_join_multicast(ud, (struct sockaddr *)&uni, NULL) == -1 &&
		      errno == EINVAL,
	      "join of a unicast address: EINVAL");
	memset(&ax, 0, sizeof(ax));
	ax.comp_mask = RDMA_CM_JOIN_MC_ATTR_ADDRESS;
	ax.addr = (struct sockaddr *)&g;
	errno = 0;
	CHECK(rdma_join_multicast_ex(ud, &ax, NULL) == -1 && errno == EINVAL,
	      "join_ex without join flags: EINVAL");
	ax.comp_mask = RDMA_CM_JOIN_MC_ATTR_RESERVED |
		       RDMA_CM_JOIN_MC_ATTR_ADDRESS |
		       RDMA_CM_JOIN_MC_ATTR_JOIN_FLAGS;
	errno = 0;
	CHECK(rdma_join_multicast_ex(ud, &ax, NULL) == -1 && errno == ENOTSUP,
	      "join_ex with a reserved comp_mask bit: ENOTSUP");
	/* a UD QP first: it is attached when the join event is read */
	memset(&a, 0, sizeof(a));
	a.qp_type = IBV_QPT_UD;
	a.cap.max_send_wr = a.cap.max_recv_wr = 4;
	a.cap.max_send_sge = a.cap.max_recv_sge = 1;
	if (rdma_create_qp(ud, NULL, &a) != 0)
		return 1;
	CHECK(rdma_join_multicast(ud, (struct sockaddr *)&g, &ctx_tag) == 0,
	      "join 230.0.2.7");
	if (expect(RDMA_CM_EVENT_MULTICAST_JOIN, 3000, &e) == 0) {
		const struct rdma_ud_param *u = &e->param.ud;

		CHECK(e->id == ud && e->status == 0, "event names the ID");
		CHECK(u->qp_num == 0xffffff && u->qkey == 0x01234567,
		      "group QPN 0xffffff, Q_Key 0x01234567");
		CHECK(u->ah_attr.is_global &&
			      memcmp(u->ah_attr.grh.dgid.raw, mgid, 16) == 0,
		      "AH to MGID ::ffff:230.0.2.7");
		CHECK(u->private_data == &ctx_tag, "join context in the event");
		rdma_ack_cm_event(e);
	} else {
		bad++;
	}
	errno = 0;
	CHECK(rdma_join_multicast(ud, (struct sockaddr *)&g, NULL) == -1 &&
		      errno == EADDRINUSE,
	      "second join of the group: EADDRINUSE");
	errno = 0;
	CHECK(rdma_leave_multicast(ud, (struct sockaddr *)&g2) == -1 &&
		      errno == EADDRNOTAVAIL,
	      "leave of a group not joined: EADDRNOTAVAIL");
	/* attached: the QP cannot be attached to the group again */
	CHECK(ibv_detach_mcast(ud->qp, &u_gid(mgid), 0) == 0 &&
		      ibv_attach_mcast(ud->qp, &u_gid(mgid), 0) == 0,
	      "QP attached to the group by the join");
	CHECK(rdma_leave_multicast(ud, (struct sockaddr *)&g) == 0,
	      "leave 230.0.2.7");
	errno = 0;
	CHECK(ibv_detach_mcast(ud->qp, &u_gid(mgid), 0) != 0,
	      "QP detached by the leave");
	errno = 0;
	CHECK(rdma_leave_multicast(ud, (struct sockaddr *)&g) == -1 &&
		      errno == EADDRNOTAVAIL,
	      "second leave: EADDRNOTAVAIL");
	/* joined again, then the ID goes with the group */
	CHECK(rdma_join_multicast(ud, (struct sockaddr *)&g, NULL) == 0 &&
		      expect(RDMA_CM_EVENT_MULTICAST_JOIN, 3000, NULL) == 0,
	      "join again");
	rdma_destroy_qp(ud);
	CHECK(rdma_destroy_id(ud) == 0, "destroy a joined ID");
	rdma_destroy_id(tcp);
	printf("%d multicast checks failed\n", bad);
	return bad != 0;
}

int
main(int argc, char **argv)
{
	struct sockaddr_in sin = {.sin_family = AF_INET};
	int rc;

	if (argc != 5 || inet_pton(AF_INET, argv[3], &sin.sin_addr) != 1) {
		fprintf(stderr, "usage: %s server|client SCENARIO ADDR PORT\n",
			argv[0]);
		return 2;
	}
	sin.sin_port = htons((uint16_t)atoi(argv[4]));
	ch = rdma_create_event_channel();
	if (ch == NULL) {
		perror("rdma_create_event_channel");
		return 1;
	}
	fcntl(ch->fd, F_SETFL, fcntl(ch->fd, F_GETFL) | O_NONBLOCK);
	if (strcmp(argv[1], "local") == 0)
		rc = local_mcast(&sin);
	else
		rc = strcmp(argv[1], "server") == 0 ? server(argv[2], &sin)
						    : client(argv[2], &sin);
	printf("%s %s: %s\n", argv[1], argv[2], rc ? "FAILED" : "ok");
	rdma_destroy_event_channel(ch);
	return rc;
}
