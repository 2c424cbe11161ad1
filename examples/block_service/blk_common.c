/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the block service's server and client share: opening the device,
 * the TCP exchange of QP numbers and GIDs, connecting the RC QP, posting
 * and polling. Plain verbs, nothing dpverbs-specific.
 */
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include "blk.h"

double
blk_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int
blk_open(struct blk_conn *c, const char *dev, int gid_index, int cqe,
	 int access)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = BLK_PORT_NUM,
		.qp_access_flags = access,
	};
	struct ibv_device **list;
	struct ibv_port_attr port;
	union ibv_gid gid;
	int i, n;

	memset(c, 0, sizeof(*c));
	c->sock = -1;
	c->gid_index = gid_index;
	list = ibv_get_device_list(&n);
	if (list == NULL) {
		perror("ibv_get_device_list");
		return -1;
	}
	for (i = 0; i < n; i++)
		if (dev == NULL ||
		    strcmp(ibv_get_device_name(list[i]), dev) == 0)
			break;
	if (i < n)
		c->ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (c->ctx == NULL) {
		fprintf(stderr, "cannot open device %s\n",
			dev ? dev : "(first)");
		return -1;
	}
	if (ibv_query_port(c->ctx, BLK_PORT_NUM, &port) ||
	    ibv_query_gid(c->ctx, BLK_PORT_NUM, gid_index, &gid)) {
		perror("ibv_query_port/gid");
		return -1;
	}
	c->pd = ibv_alloc_pd(c->ctx);
	c->cq = c->pd ? ibv_create_cq(c->ctx, cqe, NULL, NULL, 0) : NULL;
	if (c->cq == NULL) {
		perror("ibv_alloc_pd/ibv_create_cq");
		return -1;
	}
	struct ibv_qp_init_attr qa = {
		.send_cq = c->cq,
		.recv_cq = c->cq,
		.qp_type = IBV_QPT_RC,
		.cap = {.max_send_wr = 2 * BLK_MAX_QD + 2,
			.max_recv_wr = BLK_MAX_QD + 1,
			.max_send_sge = 1,
			.max_recv_sge = 1,
			/* commands and responses go inline in the WQE */
			.max_inline_data = sizeof(struct blk_cmd)},
	};
	c->qp = ibv_create_qp(c->pd, &qa);
	if (c->qp == NULL) {
		perror("ibv_create_qp");
		return -1;
	}
	/* INIT already, so that receives can be posted before connecting */
	if (ibv_modify_qp(c->qp, &a,
			  IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				  IBV_QP_ACCESS_FLAGS)) {
		perror("modify QP to INIT");
		return -1;
	}
	c->local.qpn = c->qp->qp_num;
	srand48(getpid() ^ (long)time(NULL));
	c->local.psn = lrand48() & 0xffffff;
	c->local.mtu = port.active_mtu;
	memcpy(c->local.gid, gid.raw, sizeof(c->local.gid));
	return 0;
}

static int
full_io(int fd, void *buf, size_t len, int out)
{
	size_t done = 0;
	ssize_t r;

	while (done < len) {
		r = out ? write(fd, (char *)buf + done, len - done)
			: read(fd, (char *)buf + done, len - done);
		if (r <= 0)
			return -1;
		done += r;
	}
	return 0;
}

int
blk_tcp_exchange(struct blk_conn *c, const char *host, int port)
{
	struct addrinfo hints = {.ai_family = AF_INET,
				 .ai_socktype = SOCK_STREAM};
	struct addrinfo *ai;
	char service[16];
	int fd, one = 1;

	snprintf(service, sizeof(service), "%d", port);
	if (host == NULL) {
		/* server: accept one client */
		struct sockaddr_in sin = {.sin_family = AF_INET,
					  .sin_port = htons(port),
					  .sin_addr.s_addr = htonl(INADDR_ANY)};
		int l = socket(AF_INET, SOCK_STREAM, 0);

		if (l < 0 ||
		    setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one,
			       sizeof(one)) ||
		    bind(l, (struct sockaddr *)&sin, sizeof(sin)) ||
		    listen(l, 1)) {
			perror("listen");
			return -1;
		}
		fd = accept(l, NULL, NULL);
		close(l);
	} else {
		/* client: the server may not listen yet; retry for 10 s */
		double end = blk_now() + 10;

		if (getaddrinfo(host, service, &hints, &ai)) {
			fprintf(stderr, "cannot resolve %s\n", host);
			return -1;
		}
		do {
			fd = socket(AF_INET, SOCK_STREAM, 0);
			if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
				break;
			close(fd);
			fd = -1;
			usleep(100000);
		} while (blk_now() < end);
		freeaddrinfo(ai);
	}
	if (fd < 0) {
		perror(host ? "connect" : "accept");
		return -1;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	c->sock = fd;
	if (full_io(fd, &c->local, sizeof(c->local), 1) ||
	    full_io(fd, &c->remote, sizeof(c->remote), 0)) {
		fprintf(stderr, "TCP exchange failed\n");
		return -1;
	}
	return 0;
}

int
blk_connect(struct blk_conn *c)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu =
		c->local.mtu < c->remote.mtu ? c->local.mtu : c->remote.mtu;
	a.dest_qp_num = c->remote.qpn;
	a.rq_psn = c->remote.psn;
	a.max_dest_rd_atomic = BLK_MAX_QD; /* READs the peer may have open */
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	memcpy(a.ah_attr.grh.dgid.raw, c->remote.gid, 16);
	a.ah_attr.grh.sgid_index = c->gid_index;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = BLK_PORT_NUM;
	if (ibv_modify_qp(c->qp, &a,
			  IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				  IBV_QP_MAX_DEST_RD_ATOMIC |
				  IBV_QP_MIN_RNR_TIMER)) {
		perror("modify QP to RTR");
		return -1;
	}
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = c->local.psn;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = BLK_MAX_QD; /* READs we may have open */
	if (ibv_modify_qp(c->qp, &a,
			  IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
				  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				  IBV_QP_MAX_QP_RD_ATOMIC)) {
		perror("modify QP to RTS");
		return -1;
	}
	return 0;
}

int
blk_poll(struct blk_conn *c, struct ibv_wc *wc, double timeout_s)
{
	double end = blk_now() + timeout_s;
	int n;

	do {
		n = ibv_poll_cq(c->cq, 1, wc);
		if (n != 0)
			return n < 0 ? -1 : 1;
	} while (blk_now() < end);
	return 0;
}

int
blk_post_recv(struct blk_conn *c, uint64_t wr_id, void *buf, uint32_t len,
	      uint32_t lkey)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)buf, .length = len, .lkey = lkey};
	struct ibv_recv_wr wr = {.wr_id = wr_id, .sg_list = &sge, .num_sge = 1};
	struct ibv_recv_wr *bad;

	return ibv_post_recv(c->qp, &wr, &bad);
}

int
blk_post_send(struct blk_conn *c, uint64_t wr_id, const void *buf, uint32_t len)
{
	struct ibv_sge sge = {.addr = (uintptr_t)buf, .length = len};
	struct ibv_send_wr wr = {.wr_id = wr_id,
				 .sg_list = &sge,
				 .num_sge = 1,
				 .opcode = IBV_WR_SEND,
				 .send_flags =
					 IBV_SEND_SIGNALED | IBV_SEND_INLINE};
	struct ibv_send_wr *bad;

	return ibv_post_send(c->qp, &wr, &bad);
}

void
blk_close(struct blk_conn *c)
{
	if (c->qp)
		ibv_destroy_qp(c->qp);
	if (c->cq)
		ibv_destroy_cq(c->cq);
	if (c->pd)
		ibv_dealloc_pd(c->pd);
	if (c->ctx)
		ibv_close_device(c->ctx);
	if (c->sock >= 0)
		close(c->sock);
}
