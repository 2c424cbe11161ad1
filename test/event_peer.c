/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpv-event-peer: one end of an RC SEND ping-pong whose two ends wait for
 * completion events (ibv_get_cq_event(), through rdma_get_recv_comp() and
 * rdma_get_send_comp() of librdmacm's synchronous API), the client a
 * pause of GAP_US between its pings: the pattern of an event-driven
 * server at low load, which sleeps between requests.
 *
 *   dpv-event-peer server ADDR PORT ITERS
 *   dpv-event-peer client ADDR PORT ITERS GAP_US
 *
 * EVENT_PEER_POLL=1: both ends wait as event-driven programs with a loop
 * of their own do (libfabric's, Ceph's, an epoll server's): the channel's
 * fd non-blocking, poll() on it, then ibv_get_cq_event(), instead of the
 * blocking ibv_get_cq_event() of rdma_get_*_comp().
 *
 * The client prints "round trips N median X us p99 Y us max Z us". Both
 * exit 0 when every round trip completed, 1 on an error. A client whose
 * connection is refused (the server is not listening yet) tries again,
 * for up to CONNECT_TRIES * 250 ms: either process may start first.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

static uint64_t
now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000 + (uint64_t)t.tv_nsec;
}

static int
fail(const char *what)
{
	perror(what);
	return 1;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* EVENT_PEER_POLL=1 (see above) */
static bool poll_mode;

/* The next completion of cq through its channel's non-blocking fd and
 * poll(): as rdma_get_*_comp() (poll, arm, poll again, wait), waiting in
 * poll() up to 10 s at a time, 3 times. 1, or -1 on an error. */
static int
comp_polled(struct ibv_cq *cq, struct ibv_comp_channel *ch, struct ibv_wc *wc)
{
	struct pollfd pfd = {.fd = ch->fd, .events = POLLIN};
	struct ibv_cq *ev_cq;
	void *ctx;
	int n, flags = fcntl(ch->fd, F_GETFL);

	if (flags < 0 || ((flags & O_NONBLOCK) == 0 &&
			  fcntl(ch->fd, F_SETFL, flags | O_NONBLOCK) < 0))
		return -1;
	for (int waits = 0;;) {
		n = ibv_poll_cq(cq, 1, wc);
		if (n != 0)
			return n;
		if (ibv_req_notify_cq(cq, 0) != 0)
			return -1;
		n = ibv_poll_cq(cq, 1, wc);
		if (n != 0)
			return n;
		n = poll(&pfd, 1, 10000);
		if (n < 0 && errno != EINTR)
			return -1;
		if (n == 0 && ++waits == 3) {
			errno = ETIMEDOUT;
			return -1;
		}
		if (n <= 0)
			continue;
		if (ibv_get_cq_event(ch, &ev_cq, &ctx) == 0)
			ibv_ack_cq_events(ev_cq, 1);
		else if (errno != EAGAIN)
			return -1;
	}
}

/* The SEND of v, and its completion (an event). */
static int
send_one(struct rdma_cm_id *id, struct ibv_mr *mr, uint64_t *buf, uint64_t v)
{
	struct ibv_wc wc;

	buf[0] = v;
	if (rdma_post_send(id, NULL, &buf[0], sizeof(buf[0]), mr,
			   IBV_SEND_SIGNALED) != 0)
		return fail("rdma_post_send");
	if ((poll_mode ? comp_polled(id->send_cq, id->send_cq_channel, &wc)
		       : rdma_get_send_comp(id, &wc)) <= 0 ||
	    wc.status != IBV_WC_SUCCESS)
		return fail("rdma_get_send_comp");
	return 0;
}

/* The next receive's completion (an event). */
static int
recv_one(struct rdma_cm_id *id)
{
	struct ibv_wc wc;

	if ((poll_mode ? comp_polled(id->recv_cq, id->recv_cq_channel, &wc)
		       : rdma_get_recv_comp(id, &wc)) <= 0 ||
	    wc.status != IBV_WC_SUCCESS)
		return fail("rdma_get_recv_comp");
	return 0;
}

static int
post_recv(struct rdma_cm_id *id, struct ibv_mr *mr, uint64_t *buf)
{
	if (rdma_post_recv(id, NULL, &buf[1], sizeof(buf[1]), mr) != 0)
		return fail("rdma_post_recv");
	return 0;
}

#define CONNECT_TRIES 40

/* The client's endpoint, its region and first receive, connected; a
 * refused connection is tried again. 0, or 1 on an error. */
static int
client_connect(struct rdma_addrinfo *res, struct ibv_qp_init_attr *qa,
	       uint64_t *buf, struct rdma_cm_id **idp, struct ibv_mr **mrp)
{
	const struct timespec pause = {.tv_nsec = 250 * 1000 * 1000};

	for (int t = 1;; t++) {
		struct rdma_cm_id *id;
		struct ibv_mr *mr;

		if (rdma_create_ep(&id, res, NULL, qa) != 0)
			return fail("rdma_create_ep");
		mr = rdma_reg_msgs(id, buf, 2 * sizeof(*buf));
		if (mr == NULL)
			return fail("rdma_reg_msgs");
		/* a receive is always posted before the peer may send */
		if (post_recv(id, mr, buf))
			return 1;
		if (rdma_connect(id, NULL) == 0) {
			*idp = id;
			*mrp = mr;
			return 0;
		}
		if (t == CONNECT_TRIES)
			return fail("rdma_connect");
		rdma_dereg_mr(mr);
		rdma_destroy_ep(id);
		nanosleep(&pause, NULL);
	}
}

int
main(int argc, char **argv)
{
	struct rdma_addrinfo hints = {0}, *res = NULL;
	struct ibv_qp_init_attr qa = {0};
	struct rdma_cm_id *listen_id = NULL, *id = NULL;
	uint64_t iters, gap_us = 0, *rtt, *buf;
	struct ibv_mr *mr;
	bool server;

	server = argc == 5 && strcmp(argv[1], "server") == 0;
	if (!server && (argc != 6 || strcmp(argv[1], "client") != 0)) {
		fprintf(stderr,
			"usage: %s server ADDR PORT ITERS | "
			"client ADDR PORT ITERS GAP_US\n",
			argv[0]);
		return 2;
	}
	poll_mode = getenv("EVENT_PEER_POLL") != NULL &&
		    strcmp(getenv("EVENT_PEER_POLL"), "1") == 0;
	iters = strtoull(argv[4], NULL, 0);
	if (!server)
		gap_us = strtoull(argv[5], NULL, 0);
	if (iters == 0 || iters > 1000000 || gap_us > 1000000)
		return 2;
	hints.ai_port_space = RDMA_PS_TCP;
	if (server)
		hints.ai_flags = RAI_PASSIVE;
	if (rdma_getaddrinfo(argv[2], argv[3], &hints, &res) != 0)
		return fail("rdma_getaddrinfo");
	qa.cap.max_send_wr = qa.cap.max_recv_wr = 2;
	qa.cap.max_send_sge = qa.cap.max_recv_sge = 1;
	qa.sq_sig_all = 1;
	if (server) {
		if (rdma_create_ep(&listen_id, res, NULL, &qa) != 0)
			return fail("rdma_create_ep");
		if (rdma_listen(listen_id, 1) != 0)
			return fail("rdma_listen");
		if (rdma_get_request(listen_id, &id) != 0)
			return fail("rdma_get_request");
	}
	buf = calloc(2, sizeof(*buf));
	rtt = calloc(iters, sizeof(*rtt));
	if (buf == NULL || rtt == NULL)
		return fail("calloc");
	if (!server) {
		if (client_connect(res, &qa, buf, &id, &mr))
			return 1;
	} else {
		mr = rdma_reg_msgs(id, buf, 2 * sizeof(*buf));
		if (mr == NULL)
			return fail("rdma_reg_msgs");
		/* a receive is always posted before the peer may send */
		if (post_recv(id, mr, buf))
			return 1;
		if (rdma_accept(id, NULL) != 0)
			return fail("rdma_accept");
	}
	for (uint64_t i = 1; i <= iters; i++) {
		struct timespec gap = {.tv_sec = gap_us / 1000000,
				       .tv_nsec =
					       (long)(gap_us % 1000000) * 1000};
		uint64_t t0;

		if (server) {
			if (recv_one(id) || post_recv(id, mr, buf) ||
			    send_one(id, mr, buf, buf[1]))
				return 1;
			continue;
		}
		nanosleep(&gap, NULL);
		t0 = now_ns();
		/* the reply's receive is posted: the one left over */
		if (send_one(id, mr, buf, i) || recv_one(id))
			return 1;
		rtt[i - 1] = now_ns() - t0;
		if (i < iters && post_recv(id, mr, buf))
			return 1;
		if (buf[1] != i) {
			fprintf(stderr, "reply %llu to ping %llu\n",
				(unsigned long long)buf[1],
				(unsigned long long)i);
			return 1;
		}
	}
	if (!server) {
		qsort(rtt, iters, sizeof(*rtt), cmp_u64);
		printf("round trips %llu median %.2f us p99 %.2f us max "
		       "%.2f us\n",
		       (unsigned long long)iters, rtt[iters / 2] / 1e3,
		       rtt[iters * 99 / 100] / 1e3, rtt[iters - 1] / 1e3);
	}
	rdma_disconnect(id);
	rdma_dereg_mr(mr);
	rdma_destroy_ep(id);
	if (listen_id != NULL)
		rdma_destroy_ep(listen_id);
	rdma_freeaddrinfo(res);
	free(rtt);
	free(buf);
	return 0;
}
