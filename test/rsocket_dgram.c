/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpv-rsocket-dgram: one end of the datagram rsockets test
 * (test/scripts/fast-rsocket-memif.sh). rsocket API, and for the hostile
 * datagrams raw rdma_cm and verbs.
 *
 *   dpv-rsocket-dgram server ADDR PORT
 *   dpv-rsocket-dgram client ADDR PORT [N]
 *
 * The server binds a datagram rsocket to ADDR:PORT and answers commands,
 * each one datagram, until "X": "E..." is echoed to its sender, "D" +
 * a 32-bit sequence + pattern bytes is checked and counted, "Q" is
 * answered with the count of good "D"s since the last "Q", "O" is answered
 * "O" after a second socket sent "other" to its sender. A datagram it
 * does not expect (the client's hostile ones among them) fails it.
 *
 * The client checks, each with a bounded wait:
 *  - the socket's type, EOPNOTSUPP for rlisten, EDESTADDRREQ for a send
 *    with no address, ENOTCONN for rshutdown unconnected, EMSGSIZE above
 *    the path MTU less the header, the largest datagram echoed whole;
 *  - rpoll's 1 ms timeout waits 1 ms at least;
 *  - a port no socket is bound to: the first datagram is taken (it waits
 *    for the SIDR reply), then a connected socket's rrecv and its next
 *    rsend fail with ECONNREFUSED;
 *  - N echoes (default 2000) of random sizes over a connected socket,
 *    every byte checked, with rpoll for POLLIN; the round-trip p50 and
 *    p99 printed;
 *  - an unconnected socket: rsendto / rrecvfrom name the server;
 *    rsendmsg gathers three buffers into one datagram, rrecvmsg scatters
 *    it; MSG_PEEK; truncation (MSG_TRUNC in msg_flags, and as a flag the
 *    whole length);
 *  - a connected socket hears only its peer: a datagram from a second
 *    socket of the server's is not delivered to it (and is once the
 *    socket is unconnected: rconnect(AF_UNSPEC));
 *  - a burst of 300 non-blocking sends (rpoll POLLOUT on EAGAIN): the
 *    server counts what came (UD may drop: at least one, none bad);
 *  - hostile datagrams through a UD QP of its own to the server's QP
 *    (found by a SIDR request): a header naming an address other than
 *    the one the packet came from, a bad version, a datagram shorter than
 *    a header; the server must drop them and still answer;
 *  - rclose() of a socket with a datagram still waiting for its SIDR
 *    reply sends it first.
 * Exit 0 on success.
 */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/uio.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include <rdma/rsocket.h>

#define FAIL(...)                                                              \
	do {                                                                   \
		fprintf(stderr, "FAIL: " __VA_ARGS__);                         \
		fprintf(stderr, " (errno %d %s)\n", errno, strerror(errno));   \
		exit(1);                                                       \
	} while (0)

#define MAXMSG	8192
#define WAIT_MS 2000 /* one answer: UD may drop, so a resend after this */
#define TRIES	5

static uint32_t seed = 12345;

static uint32_t
rnd(uint32_t n)
{
	seed = seed * 1103515245u + 12345u;
	return (seed >> 8) % n;
}

static double
now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static void
fill(uint8_t *p, size_t n, uint32_t k)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(k * 31u + i * 7u + (i >> 8));
}

static bool
filled(const uint8_t *p, size_t n, uint32_t k)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != (uint8_t)(k * 31u + i * 7u + (i >> 8)))
			return false;
	return true;
}

static int
dsock(void)
{
	int s = rsocket(AF_INET, SOCK_DGRAM, 0);

	if (s < 0)
		FAIL("rsocket(SOCK_DGRAM)");
	return s;
}

/* rpoll for ev, at most ms: true if it came */
static bool
wait_ev(int s, short ev, int ms)
{
	struct pollfd p = {.fd = s, .events = ev};
	int n = rpoll(&p, 1, ms);

	if (n < 0)
		FAIL("rpoll");
	return n == 1 && (p.revents & ev);
}

static bool
same_addr(const struct sockaddr_in *a, const struct sockaddr_in *b)
{
	return a->sin_family == b->sin_family && a->sin_port == b->sin_port &&
	       a->sin_addr.s_addr == b->sin_addr.s_addr;
}

/* ---------------------------------------------------------------- server */

static int
server(struct sockaddr_in *sa)
{
	static uint8_t buf[MAXMSG];
	struct sockaddr_in from;
	socklen_t fl;
	uint32_t good = 0, echoes = 0;
	int s = dsock();
	ssize_t n;

	if (rbind(s, (struct sockaddr *)sa, sizeof(*sa)))
		FAIL("rbind");
	printf("server bound\n");
	for (;;) {
		fl = sizeof(from);
		n = rrecvfrom(s, buf, sizeof(buf), 0, (struct sockaddr *)&from,
			      &fl);
		if (n < 0)
			FAIL("rrecvfrom");
		if (n < 1 || fl != sizeof(from) || from.sin_family != AF_INET)
			FAIL("datagram of %zd bytes, address length %u", n,
			     (unsigned)fl);
		switch (buf[0]) {
		case 'E':
			if (rsendto(s, buf, (size_t)n, 0,
				    (struct sockaddr *)&from, fl) != n)
				FAIL("echo of %zd bytes", n);
			echoes++;
			break;
		case 'D': {
			uint32_t k;

			if (n < 5)
				FAIL("a D of %zd bytes", n);
			memcpy(&k, buf + 1, 4);
			if (!filled(buf + 5, (size_t)n - 5, k))
				FAIL("D %u: bytes differ", k);
			good++;
			break;
		}
		case 'Q':
			memcpy(buf + 1, &good, 4);
			good = 0;
			if (rsendto(s, buf, 5, 0, (struct sockaddr *)&from,
				    fl) != 5)
				FAIL("Q answer");
			break;
		case 'O': {
			/* "other": from a socket of its own first */
			int o = dsock();

			if (rsendto(o, "other", 5, 0, (struct sockaddr *)&from,
				    fl) != 5 ||
			    rsendto(s, buf, 1, 0, (struct sockaddr *)&from,
				    fl) != 1)
				FAIL("O");
			rclose(o); /* sends it first */
			break;
		}
		case 'X':
			printf("server: %u echoes, done\n", echoes);
			rclose(s);
			return 0;
		default:
			FAIL("unexpected datagram of %zd bytes (0x%02x)", n,
			     buf[0]);
		}
	}
}

/* ---------------------------------------------------------------- client */

/* Send req (len) and wait for its echo into ans: resent after WAIT_MS
 * (UD may drop a datagram), answers to earlier tries skipped. The round
 * trip in us. */
static double
echo(int s, const struct sockaddr_in *to, uint8_t *req, size_t len,
     uint8_t *ans)
{
	static uint32_t tag;

	tag++;
	if (len >= 5)
		memcpy(req + 1, &tag, 4);
	for (int t = 0; t < TRIES; t++) {
		double t0 = now_us();
		ssize_t n =
			to ? rsendto(s, req, len, 0,
				     (const struct sockaddr *)to, sizeof(*to))
			   : rsend(s, req, len, 0);

		if (n != (ssize_t)len)
			FAIL("send of %zu bytes: %zd", len, n);
		while (wait_ev(s, POLLIN, WAIT_MS)) {
			n = rrecv(s, ans, MAXMSG, MSG_DONTWAIT);
			if (n < 0)
				FAIL("rrecv after POLLIN");
			if (n == (ssize_t)len && !memcmp(req, ans, len))
				return now_us() - t0;
			if (len < 5 || n < 5 || memcmp(ans + 1, &tag, 4) == 0)
				FAIL("echo of %zu bytes came back as %zd "
				     "different ones",
				     len, n);
		}
	}
	FAIL("no echo of %zu bytes after %d tries", len, TRIES);
}

static int
cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void
check_errors(const struct sockaddr_in *sa)
{
	static uint8_t big[MAXMSG], ans[MAXMSG];
	int s = dsock(), v = 0;
	socklen_t l = sizeof(v);
	size_t max;

	if (rgetsockopt(s, SOL_SOCKET, SO_TYPE, &v, &l) || v != SOCK_DGRAM)
		FAIL("SO_TYPE %d", v);
	errno = 0;
	if (rlisten(s, 4) != -1 || errno != EOPNOTSUPP)
		FAIL("rlisten on a datagram socket");
	errno = 0;
	if (rsend(s, "E", 1, 0) != -1 || errno != EDESTADDRREQ)
		FAIL("rsend unconnected");
	errno = 0;
	if (rshutdown(s, SHUT_RDWR) != -1 || errno != ENOTCONN)
		FAIL("rshutdown unconnected");
	if (rconnect(s, (const struct sockaddr *)sa, sizeof(*sa)))
		FAIL("rconnect");
	/* the largest datagram: the path MTU less the 8-byte header */
	for (max = 4096 - 8; max >= 256 - 8; max = (max + 8) / 2 - 8) {
		errno = 0;
		big[0] = 'E';
		if (rsend(s, big, max + 1, 0) == -1 && errno == EMSGSIZE)
			break;
	}
	if (max < 256 - 8)
		FAIL("no EMSGSIZE for any size up to 4089 bytes");
	fill(big + 5, max - 5, 77);
	echo(s, NULL, big, max, ans);
	printf("EMSGSIZE above %zu bytes; %zu echoed whole\n", max, max);
	rclose(s);
}

/* rpoll's timeout is a least wait, as poll(2)'s: 100 of 1 ms on a socket
 * with nothing to read each last 1 ms at least (a millisecond clock had
 * most of them end early: udpong then resent its requests). */
static void
check_poll_timeout(void)
{
	int s = dsock();
	struct sockaddr_in any = {.sin_family = AF_INET};
	double shortest = 1e9;

	if (rbind(s, (struct sockaddr *)&any, sizeof(any)))
		FAIL("rbind to any");
	for (int i = 0; i < 100; i++) {
		double t0 = now_us();

		if (wait_ev(s, POLLIN, 1))
			FAIL("POLLIN on an idle socket");
		if (now_us() - t0 < shortest)
			shortest = now_us() - t0;
	}
	if (shortest < 1000)
		FAIL("an rpoll of 1 ms returned after %.0f us", shortest);
	printf("rpoll(1 ms): 100 waits of %.0f us at least\n", shortest);
	rclose(s);
}

static void
check_refused(const struct sockaddr_in *sa)
{
	struct sockaddr_in none = *sa;
	int s = dsock();
	uint8_t b[16];
	ssize_t n;

	none.sin_port = htons((uint16_t)(ntohs(sa->sin_port) + 1));
	if (rconnect(s, (struct sockaddr *)&none, sizeof(none)))
		FAIL("rconnect to an unbound port");
	if (rsend(s, "E", 1, 0) != 1)
		FAIL("the first datagram to an unbound port");
	if (!wait_ev(s, POLLIN | POLLERR, 10000))
		FAIL("no error within 10 s for an unbound port");
	errno = 0;
	n = rrecv(s, b, sizeof(b), MSG_DONTWAIT);
	if (n != -1 || errno != ECONNREFUSED)
		FAIL("rrecv after an unbound port: %zd", n);
	errno = 0;
	if (rsend(s, "E", 1, 0) != -1 || errno != ECONNREFUSED)
		FAIL("the next rsend to an unbound port");
	printf("an unbound port: ECONNREFUSED\n");
	rclose(s);
}

static void
check_echoes(const struct sockaddr_in *sa, int nmsg)
{
	static uint8_t req[MAXMSG], ans[MAXMSG];
	double *rtt = calloc((size_t)nmsg, sizeof(*rtt));
	struct sockaddr_in peer;
	socklen_t l = sizeof(peer);
	int s = dsock();

	if (rtt == NULL)
		FAIL("calloc");
	if (!wait_ev(s, POLLOUT, 0))
		FAIL("a new socket is not writable");
	if (rconnect(s, (const struct sockaddr *)sa, sizeof(*sa)))
		FAIL("rconnect");
	if (rgetpeername(s, (struct sockaddr *)&peer, &l) ||
	    !same_addr(&peer, sa))
		FAIL("rgetpeername");
	for (int i = 0; i < nmsg; i++) {
		size_t len = 5 + rnd(1400);

		req[0] = 'E';
		fill(req + 5, len - 5, (uint32_t)i);
		rtt[i] = echo(s, NULL, req, len, ans);
	}
	qsort(rtt, (size_t)nmsg, sizeof(*rtt), cmp_d);
	printf("%d echoes of 5..1404 bytes, every byte checked: round trip "
	       "p50 %.1f us, p99 %.1f us\n",
	       nmsg, rtt[nmsg / 2], rtt[nmsg * 99 / 100]);
	free(rtt);
	rclose(s);
}

static void
check_msgs(const struct sockaddr_in *sa)
{
	uint8_t a[3] = {'E', 1, 2}, b[200], c[50], r1[100], r2[300];
	struct iovec out[3] = {{a, 3}, {b, sizeof(b)}, {c, sizeof(c)}};
	struct iovec in[2] = {{r1, sizeof(r1)}, {r2, sizeof(r2)}};
	struct sockaddr_in from;
	struct msghdr m = {.msg_name = (void *)sa,
			   .msg_namelen = sizeof(*sa),
			   .msg_iov = out,
			   .msg_iovlen = 3};
	socklen_t fl = sizeof(from);
	uint8_t peek[8], small[10];
	int s = dsock();
	ssize_t n;

	memset(b, 'b', sizeof(b));
	memset(c, 'c', sizeof(c));
	if (rsendmsg(s, &m, 0) != 253)
		FAIL("rsendmsg of three buffers");
	if (!wait_ev(s, POLLIN, 5000))
		FAIL("no answer to rsendmsg");
	n = rrecvfrom(s, peek, sizeof(peek), MSG_PEEK, (struct sockaddr *)&from,
		      &fl);
	if (n != 8 || fl != sizeof(from) || !same_addr(&from, sa) ||
	    memcmp(peek, a, 3))
		FAIL("MSG_PEEK: %zd bytes", n);
	memset(&m, 0, sizeof(m));
	m.msg_name = &from;
	m.msg_namelen = sizeof(from);
	m.msg_iov = in;
	m.msg_iovlen = 2;
	n = rrecvmsg(s, &m, 0);
	if (n != 253 || memcmp(r1, a, 3) || r1[3] != 'b' || r2[0] != 'b' ||
	    r2[102] != 'b' || r2[103] != 'c' || r2[152] != 'c' ||
	    (m.msg_flags & MSG_TRUNC) || !same_addr(&from, sa))
		FAIL("rrecvmsg: %zd bytes", n);
	/* truncated: the rest is lost, as for UDP */
	if (rsendto(s, r1, 100, 0, (const struct sockaddr *)sa, sizeof(*sa)) !=
		    100 ||
	    !wait_ev(s, POLLIN, 5000))
		FAIL("a 100-byte echo");
	memset(&m, 0, sizeof(m));
	in[0] = (struct iovec){small, sizeof(small)};
	m.msg_iov = in;
	m.msg_iovlen = 1;
	n = rrecvmsg(s, &m, 0);
	if (n != 10 || !(m.msg_flags & MSG_TRUNC) || memcmp(small, r1, 10))
		FAIL("truncated rrecvmsg: %zd, flags 0x%x", n, m.msg_flags);
	if (rsendto(s, r1, 100, 0, (const struct sockaddr *)sa, sizeof(*sa)) !=
		    100 ||
	    !wait_ev(s, POLLIN, 5000))
		FAIL("a 100-byte echo");
	n = rrecv(s, small, sizeof(small), MSG_TRUNC);
	if (n != 100)
		FAIL("rrecv(MSG_TRUNC) gave %zd, not the datagram's 100", n);
	if (rrecv(s, small, sizeof(small), MSG_DONTWAIT) != -1 ||
	    errno != EAGAIN)
		FAIL("a datagram left over");
	printf("rsendmsg gathers, rrecvmsg scatters, MSG_PEEK, MSG_TRUNC\n");
	rclose(s);
}

/* A connected socket hears only its peer: the server's "O" makes a second
 * socket of its own send "other" before the server answers "O"; the
 * connected socket gets only the "O". Unconnected, it gets both. */
static void
check_filter(const struct sockaddr_in *sa)
{
	static uint8_t req[64], ans[MAXMSG];
	char b[16];
	int a = dsock(), got = 0;

	if (rconnect(a, (const struct sockaddr *)sa, sizeof(*sa)))
		FAIL("rconnect");
	req[0] = 'E';
	echo(a, NULL, req, sizeof(req), ans);
	if (rsend(a, "O", 1, 0) != 1 || !wait_ev(a, POLLIN, 5000) ||
	    rrecv(a, b, sizeof(b), 0) != 1 || b[0] != 'O')
		FAIL("the server's O");
	if (wait_ev(a, POLLIN, 300))
		FAIL("a connected socket got a datagram from another");
	if (rconnect(a, &(struct sockaddr){.sa_family = AF_UNSPEC},
		     sizeof(struct sockaddr)))
		FAIL("rconnect(AF_UNSPEC)");
	if (rsendto(a, "O", 1, 0, (const struct sockaddr *)sa, sizeof(*sa)) !=
	    1)
		FAIL("O unconnected");
	while (got != 3 && wait_ev(a, POLLIN, 5000)) {
		ssize_t n = rrecv(a, b, sizeof(b), 0);

		got |= n == 5 && !memcmp(b, "other", 5) ? 1
		       : n == 1 && b[0] == 'O'		? 2
							: 0;
	}
	if (got != 3)
		FAIL("unconnected, the two datagrams did not come (%d)", got);
	printf("a connected socket hears only its peer\n");
	rclose(a);
}

/* The server's count of good "D"s since the last query (resent after
 * WAIT_MS: a "Q" or its answer may be dropped). */
static uint32_t
query(int s)
{
	uint8_t ans[16];
	uint32_t got;

	for (int t = 0; t < TRIES; t++) {
		if (rsend(s, "Q", 1, 0) != 1)
			FAIL("Q");
		if (wait_ev(s, POLLIN, WAIT_MS) &&
		    rrecv(s, ans, sizeof(ans), 0) == 5) {
			memcpy(&got, ans + 1, 4);
			return got;
		}
	}
	FAIL("no answer to Q after %d tries", TRIES);
}

static void
check_burst(const struct sockaddr_in *sa)
{
	static uint8_t d[1200];
	uint32_t got;
	int s = dsock(), again = 0;

	if (rconnect(s, (const struct sockaddr *)sa, sizeof(*sa)))
		FAIL("rconnect");
	query(s); /* from 0 */
	for (uint32_t k = 0; k < 300; k++) {
		d[0] = 'D';
		memcpy(d + 1, &k, 4);
		fill(d + 5, sizeof(d) - 5, k);
		while (rsend(s, d, sizeof(d), MSG_DONTWAIT) != sizeof(d)) {
			if (errno != EAGAIN)
				FAIL("burst send %u", k);
			again++;
			if (!wait_ev(s, POLLOUT, 5000))
				FAIL("not writable again within 5 s");
		}
	}
	got = query(s);
	if (got == 0 || got > 300)
		FAIL("the server counted %u of 300", got);
	printf("burst: %u of 300 datagrams arrived intact (%d EAGAIN)\n", got,
	       again);
	rclose(s);
}

/* The server's QP, found by a SIDR request of our own; hostile
 * datagrams to it through a UD QP of ours. */
static void
check_hostile(const struct sockaddr_in *sa, const struct sockaddr_in *me)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_cm_event *e;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_ah *ah;
	struct ibv_mr *mr;
	struct ibv_qp_init_attr qa = {.qp_type = IBV_QPT_UD,
				      .cap = {.max_send_wr = 8,
					      .max_recv_wr = 1,
					      .max_send_sge = 1,
					      .max_recv_sge = 1}};
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1, .qkey = 0x01234567};
	struct ibv_wc wc;
	static uint8_t buf[64], req[64], ans[MAXMSG];
	uint32_t qpn, qkey, spoof = me->sin_addr.s_addr ^ htonl(0x40);
	/* a header naming another address; a bad version; too short */
	struct {
		uint8_t v, l;
		uint16_t port;
		uint32_t addr;
		const char *what;
		uint32_t len;
	} bad[] = {
		{4, 8, me->sin_port, spoof, "another address", 24},
		{5, 8, me->sin_port, me->sin_addr.s_addr, "version 5", 24},
		{4, 8, me->sin_port, me->sin_addr.s_addr, "4 bytes", 4},
	};
	int s = dsock();

	if (ch == NULL || rdma_create_id(ch, &id, NULL, RDMA_PS_UDP) ||
	    rdma_resolve_addr(id, NULL, (struct sockaddr *)sa, 2000) ||
	    rdma_get_cm_event(ch, &e) ||
	    e->event != RDMA_CM_EVENT_ADDR_RESOLVED)
		FAIL("resolving the server");
	rdma_ack_cm_event(e);
	if (rdma_resolve_route(id, 2000) || rdma_get_cm_event(ch, &e) ||
	    e->event != RDMA_CM_EVENT_ROUTE_RESOLVED)
		FAIL("its route");
	rdma_ack_cm_event(e);
	if (rdma_connect(id, NULL) || rdma_get_cm_event(ch, &e) ||
	    e->event != RDMA_CM_EVENT_ESTABLISHED)
		FAIL("a SIDR request to the server's port");
	qpn = e->param.ud.qp_num;
	qkey = e->param.ud.qkey;
	pd = ibv_alloc_pd(id->verbs);
	cq = ibv_create_cq(id->verbs, 16, NULL, NULL, 0);
	if (pd == NULL || cq == NULL)
		FAIL("PD / CQ");
	qa.send_cq = qa.recv_cq = cq;
	qp = ibv_create_qp(pd, &qa);
	ah = ibv_create_ah(pd, &e->param.ud.ah_attr);
	mr = ibv_reg_mr(pd, buf, sizeof(buf), 0);
	rdma_ack_cm_event(e);
	if (qp == NULL || ah == NULL || mr == NULL ||
	    ibv_modify_qp(qp, &a,
			  IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				  IBV_QP_QKEY))
		FAIL("UD QP");
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE))
		FAIL("RTR");
	a.qp_state = IBV_QPS_RTS;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN))
		FAIL("RTS");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct ibv_sge sg = {(uintptr_t)buf, bad[i].len, mr->lkey};
		struct ibv_send_wr wr = {.sg_list = &sg,
					 .num_sge = 1,
					 .opcode = IBV_WR_SEND,
					 .send_flags = IBV_SEND_SIGNALED},
				   *bw;
		double t0 = now_us();
		int n;

		buf[0] = bad[i].v;
		buf[1] = bad[i].l;
		memcpy(buf + 2, &bad[i].port, 2);
		memcpy(buf + 4, &bad[i].addr, 4);
		memcpy(buf + 8, "ZEVIL", 5); /* Z: would fail the server */
		wr.wr.ud.ah = ah;
		wr.wr.ud.remote_qpn = qpn;
		wr.wr.ud.remote_qkey = qkey;
		if (ibv_post_send(qp, &wr, &bw))
			FAIL("post %s", bad[i].what);
		while ((n = ibv_poll_cq(cq, 1, &wc)) == 0 &&
		       now_us() - t0 < 5e6)
			;
		if (n != 1 || wc.status != IBV_WC_SUCCESS)
			FAIL("send of %s", bad[i].what);
	}
	/* after them, the server still answers, and failed on none */
	req[0] = 'E';
	echo(s, sa, req, sizeof(req), ans);
	printf("hostile datagrams (another address, version 5, 4 bytes) "
	       "dropped\n");
	ibv_destroy_qp(qp);
	ibv_destroy_ah(ah);
	ibv_dereg_mr(mr);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	rdma_destroy_id(id);
	rdma_destroy_event_channel(ch);
	rclose(s);
}

/* The server may not be bound yet: an echo, from a new socket each try
 * (a refusal is remembered a second), for up to 10 s. */
static void
wait_server(const struct sockaddr_in *sa)
{
	uint8_t e[8] = {'E'}, ans[16];

	for (int t = 0; t < 100; t++) {
		int s = dsock();
		ssize_t n = rsendto(s, e, sizeof(e), 0,
				    (const struct sockaddr *)sa, sizeof(*sa));

		if (n == sizeof(e) && wait_ev(s, POLLIN | POLLERR, 1000) &&
		    rrecv(s, ans, sizeof(ans), MSG_DONTWAIT) == sizeof(e)) {
			rclose(s);
			return;
		}
		rclose(s);
		usleep(100000);
	}
	FAIL("the server did not answer within 10 s");
}

static int
client(struct sockaddr_in *sa, int nmsg)
{
	static uint8_t req[8], ans[MAXMSG];
	struct sockaddr_in me = {.sin_family = AF_INET};
	int s;

	/* our own address: the server's with host part 2 (memif pair) */
	me.sin_addr.s_addr =
		(sa->sin_addr.s_addr & htonl(0xffffff00)) | htonl(2);
	wait_server(sa);
	check_errors(sa);
	check_poll_timeout();
	check_refused(sa);
	check_echoes(sa, nmsg);
	check_msgs(sa);
	check_filter(sa);
	check_burst(sa);
	check_hostile(sa, &me);
	/* the X waits for its SIDR reply: rclose() sends it first */
	s = dsock();
	req[0] = 'X';
	if (rsendto(s, req, 1, 0, (struct sockaddr *)sa, sizeof(*sa)) != 1)
		FAIL("X");
	rclose(s);
	(void)ans;
	printf("client: all datagram checks passed\n");
	return 0;
}

int
main(int argc, char **argv)
{
	struct sockaddr_in sa = {.sin_family = AF_INET};

	if (argc < 4 || inet_pton(AF_INET, argv[2], &sa.sin_addr) != 1) {
		fprintf(stderr, "usage: %s server|client ADDR PORT [N]\n",
			argv[0]);
		return 2;
	}
	sa.sin_port = htons((uint16_t)atoi(argv[3]));
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(argv[1], "server"))
		return server(&sa);
	return client(&sa, argc > 4 ? atoi(argv[4]) : 2000);
}
