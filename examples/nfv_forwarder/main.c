/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfv_forwarder: a two-port IPv4 forwarder ("bump in the wire") written
 * against raw-packet verbs only, the way a VNF runs on a ConnectX NIC.
 *
 * Each of the two devices (default dpv0 and dpv1) gets:
 *  - `-q` receive work queues (ibv_create_wq), each with its own CQ, as
 *    a multi-core VNF would give one to each core;
 *  - an RSS QP (ibv_create_qp_ex with a receive-WQ indirection table and a
 *    Toeplitz hash over source/destination IPv4 address and UDP port) and
 *    one flow rule that sends it every IPv4/UDP frame;
 *  - a raw-packet QP to transmit.
 *
 * Zero copy: one buffer area is registered on both devices; a frame
 * received on one device is sent from the same buffer on the other one,
 * and the buffer goes back to its receive queue when that send completes.
 * On the way the IPv4 TTL is decremented (checksum updated as in
 * RFC 1624); frames whose TTL runs out are dropped.
 *
 * It counts frames per receive queue and per flow (addresses, ports and
 * the queue the flow arrived on); `-r FILE` writes those, with the RSS key
 * and the indirection table, for nfv_rss_check to compare with DPDK's
 * rte_softrss().
 *
 * Usage: nfv_forwarder [-d dev0,dev1] [-q queues] [-t max_s] [-i idle_s]
 *                      [-r report_file] [-c frames]
 * It stops after max_s seconds (default 30), or after idle_s seconds
 * (default 2; 0: never) without a frame once traffic has been seen, or on
 * SIGINT or SIGTERM. With -c it says when each device has received that
 * many frames (and goes on).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/verbs.h>

#define NPORT	   2
#define MAX_WQ	   16
#define RQ_DEPTH   256	/* receive buffers per queue */
#define BUF_SIZE   2048 /* one frame */
#define FLOW_SLOTS 4096 /* per-flow counters (open addressing) */

/* The Toeplitz key most NICs use by default (Microsoft's RSS spec). */
static const uint8_t rss_key[40] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67,
	0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb,
	0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30,
	0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

struct flow {
	uint32_t sip, dip; /* host byte order */
	uint16_t sport, dport;
	uint16_t wq; /* the receive queue the frames arrived on */
	uint16_t used;
	uint64_t frames;
};

struct port {
	const char *name;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr; /* the shared buffer area, for this device */
	struct ibv_cq *rx_cq[MAX_WQ], *tx_cq;
	struct ibv_wq *wq[MAX_WQ];
	struct ibv_rwq_ind_table *ind;
	struct ibv_qp *rss, *txqp;
	struct ibv_flow *flow;
	uint64_t rx[MAX_WQ], tx, drop_ttl, drop_tx, other;
	struct flow flows[FLOW_SLOTS];
};

static struct port ports[NPORT];
static unsigned int nwq = 4;
static uint8_t *bufs;
static volatile sig_atomic_t stop;

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Buffer b belongs to receive queue (b / RQ_DEPTH) % nwq of port
 * b / (nwq * RQ_DEPTH), for good. */
static uint8_t *
buf_of(uint32_t b)
{
	return bufs + (size_t)b * BUF_SIZE;
}

static int
post_rx(struct port *p, unsigned int w, uint32_t b)
{
	struct ibv_sge sge = {.addr = (uintptr_t)buf_of(b),
			      .length = BUF_SIZE,
			      .lkey = p->mr->lkey};
	struct ibv_recv_wr wr = {.wr_id = b, .sg_list = &sge, .num_sge = 1};
	struct ibv_recv_wr *bad;

	return ibv_post_wq_recv(p->wq[w], &wr, &bad);
}

static struct ibv_context *
open_dev(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;

	for (int i = 0; list && list[i]; i++)
		if (strcmp(ibv_get_device_name(list[i]), name) == 0)
			ctx = ibv_open_device(list[i]);
	if (list)
		ibv_free_device_list(list);
	return ctx;
}

/* Receive side: WQs, indirection table, RSS QP, one IPv4/UDP flow. */
static int
setup_rx(struct port *p)
{
	struct {
		struct ibv_flow_attr attr;
		struct ibv_flow_spec_ipv4 ip;
		struct ibv_flow_spec_tcp_udp udp;
	} fa = {
		/* the specs follow the attribute, no padding between */
		.attr = {.type = IBV_FLOW_ATTR_NORMAL,
			 .size = sizeof(fa),
			 .num_of_specs = 2,
			 .port = 1},
		/* all masks zero: any IPv4 frame carrying UDP */
		.ip = {.type = IBV_FLOW_SPEC_IPV4, .size = sizeof(fa.ip)},
		.udp = {.type = IBV_FLOW_SPEC_UDP, .size = sizeof(fa.udp)},
	};
	unsigned int w, log = 0;

	for (w = 0; w < nwq; w++) {
		struct ibv_wq_init_attr wa = {.wq_type = IBV_WQT_RQ,
					      .max_wr = RQ_DEPTH,
					      .max_sge = 1,
					      .pd = p->pd};
		struct ibv_wq_attr rdy = {.attr_mask = IBV_WQ_ATTR_STATE,
					  .wq_state = IBV_WQS_RDY};

		p->rx_cq[w] = ibv_create_cq(p->ctx, RQ_DEPTH, NULL, NULL, 0);
		wa.cq = p->rx_cq[w];
		p->wq[w] = wa.cq ? ibv_create_wq(p->ctx, &wa) : NULL;
		if (p->wq[w] == NULL || ibv_modify_wq(p->wq[w], &rdy)) {
			perror("ibv_create_wq");
			return -1;
		}
		for (uint32_t i = 0; i < RQ_DEPTH; i++) {
			uint32_t b = ((p - ports) * nwq + w) * RQ_DEPTH + i;

			if (post_rx(p, w, b)) {
				perror("ibv_post_wq_recv");
				return -1;
			}
		}
	}
	/* table entry i is queue i: the hash's low bits pick the queue */
	while ((1u << log) < nwq)
		log++;
	struct ibv_rwq_ind_table_init_attr ia = {.log_ind_tbl_size = log,
						 .ind_tbl = p->wq};

	p->ind = ibv_create_rwq_ind_table(p->ctx, &ia);
	if (p->ind == NULL) {
		perror("ibv_create_rwq_ind_table");
		return -1;
	}
	struct ibv_qp_init_attr_ex qa = {
		.qp_type = IBV_QPT_RAW_PACKET,
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_IND_TABLE |
			     IBV_QP_INIT_ATTR_RX_HASH,
		.pd = p->pd,
		.rwq_ind_tbl = p->ind,
		.rx_hash_conf = {.rx_hash_function = IBV_RX_HASH_FUNC_TOEPLITZ,
				 .rx_hash_key_len = sizeof(rss_key),
				 .rx_hash_key = (uint8_t *)rss_key,
				 .rx_hash_fields_mask =
					 IBV_RX_HASH_SRC_IPV4 |
					 IBV_RX_HASH_DST_IPV4 |
					 IBV_RX_HASH_SRC_PORT_UDP |
					 IBV_RX_HASH_DST_PORT_UDP},
	};

	p->rss = ibv_create_qp_ex(p->ctx, &qa);
	if (p->rss == NULL) {
		perror("RSS QP (ibv_create_qp_ex)");
		return -1;
	}
	p->flow = ibv_create_flow(p->rss, &fa.attr);
	if (p->flow == NULL) {
		perror("ibv_create_flow");
		return -1;
	}
	return 0;
}

/* Transmit side: a raw-packet QP in RTS. */
static int
setup_tx(struct port *p)
{
	unsigned int depth = nwq * RQ_DEPTH; /* every buffer may be in flight */
	struct ibv_qp_init_attr a = {
		.qp_type = IBV_QPT_RAW_PACKET,
		.cap = {.max_send_wr = depth,
			.max_recv_wr = 1,
			.max_send_sge = 1,
			.max_recv_sge = 1},
	};
	struct ibv_qp_attr m = {.qp_state = IBV_QPS_INIT, .port_num = 1};

	p->tx_cq = ibv_create_cq(p->ctx, depth, NULL, NULL, 0);
	a.send_cq = a.recv_cq = p->tx_cq;
	p->txqp = p->tx_cq ? ibv_create_qp(p->pd, &a) : NULL;
	if (p->txqp == NULL ||
	    ibv_modify_qp(p->txqp, &m, IBV_QP_STATE | IBV_QP_PORT)) {
		perror("raw QP");
		return -1;
	}
	m.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(p->txqp, &m, IBV_QP_STATE))
		return -1;
	m.qp_state = IBV_QPS_RTS;
	return ibv_modify_qp(p->txqp, &m, IBV_QP_STATE) ? -1 : 0;
}

static void
count_flow(struct port *p, unsigned int w, const uint8_t *f, uint32_t len)
{
	const uint8_t *ip = f + 14, *l4;
	uint32_t sip, dip, h, i;
	uint16_t sport, dport;

	if (len < 14 + 20 + 8 || f[12] != 0x08 || f[13] != 0x00 ||
	    (ip[0] >> 4) != 4 || ip[9] != IPPROTO_UDP) {
		p->other++;
		return;
	}
	l4 = ip + (ip[0] & 0xf) * 4;
	memcpy(&sip, ip + 12, 4);
	memcpy(&dip, ip + 16, 4);
	sip = ntohl(sip);
	dip = ntohl(dip);
	sport = l4[0] << 8 | l4[1];
	dport = l4[2] << 8 | l4[3];
	h = (sip * 31 + dip) * 31 + ((uint32_t)sport << 16 | dport) + w;
	for (i = 0; i < FLOW_SLOTS; i++) {
		struct flow *fl = &p->flows[(h + i) % FLOW_SLOTS];

		if (!fl->used) {
			*fl = (struct flow){sip, dip, sport, dport, w, 1, 0};
		} else if (fl->sip != sip || fl->dip != dip ||
			   fl->sport != sport || fl->dport != dport ||
			   fl->wq != w) {
			continue;
		}
		fl->frames++;
		return;
	}
	p->other++; /* table full */
}

/* Decrement the IPv4 TTL, updating the checksum incrementally. Returns
 * 0 when the frame may go on. */
static int
ttl_dec(uint8_t *f, uint32_t len)
{
	uint8_t *ip = f + 14;
	uint32_t sum;

	if (len < 14 + 20 || f[12] != 0x08 || f[13] != 0x00)
		return 0; /* not IPv4: forwarded as it is */
	if (ip[8] <= 1)
		return -1;
	/* HC' = ~(~HC + ~m + m'), m = (TTL, protocol) as one 16-bit word */
	sum = (uint16_t) ~(ip[10] << 8 | ip[11]);
	sum += (uint16_t) ~(ip[8] << 8 | ip[9]);
	ip[8]--;
	sum += ip[8] << 8 | ip[9];
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	ip[10] = (uint8_t)(~sum >> 8);
	ip[11] = (uint8_t)~sum;
	return 0;
}

/* A frame arrived in buffer b on queue w of port p: send it out of the
 * other port from the same buffer. */
static void
forward(struct port *p, unsigned int w, uint32_t b, uint32_t len)
{
	struct port *out = &ports[1 - (p - ports)];
	struct ibv_sge sge = {.addr = (uintptr_t)buf_of(b),
			      .length = len,
			      .lkey = out->mr->lkey};
	struct ibv_send_wr wr = {.wr_id = b,
				 .sg_list = &sge,
				 .num_sge = 1,
				 .opcode = IBV_WR_SEND,
				 .send_flags = IBV_SEND_SIGNALED};
	struct ibv_send_wr *bad;

	p->rx[w]++;
	count_flow(p, w, buf_of(b), len);
	if (ttl_dec(buf_of(b), len)) {
		p->drop_ttl++;
	} else if (ibv_post_send(out->txqp, &wr, &bad) == 0) {
		return;
	} else {
		p->drop_tx++;
	}
	post_rx(p, w, b); /* dropped: the buffer goes straight back */
}

/* One pass over every CQ. Returns the number of frames received. */
static int
poll_once(void)
{
	struct ibv_wc wc[32];
	int n, i, got = 0;

	for (unsigned int pi = 0; pi < NPORT; pi++) {
		struct port *p = &ports[pi];

		for (unsigned int w = 0; w < nwq; w++) {
			n = ibv_poll_cq(p->rx_cq[w], 32, wc);
			for (i = 0; i < n; i++) {
				if (wc[i].status == IBV_WC_SUCCESS)
					forward(p, w, wc[i].wr_id,
						wc[i].byte_len);
				else if (wc[i].status != IBV_WC_WR_FLUSH_ERR)
					post_rx(p, w, wc[i].wr_id);
			}
			got += n > 0 ? n : 0;
		}
		/* sent: the buffer returns to the queue it came from */
		do {
			n = ibv_poll_cq(p->tx_cq, 32, wc);
			for (i = 0; i < n; i++) {
				uint32_t b = wc[i].wr_id;
				unsigned int owner = b / (nwq * RQ_DEPTH);

				if (wc[i].status == IBV_WC_SUCCESS)
					ports[owner].tx++;
				else
					ports[owner].drop_tx++;
				post_rx(&ports[owner], (b / RQ_DEPTH) % nwq, b);
			}
		} while (n == 32);
	}
	return got;
}

static void
report(FILE *f)
{
	fprintf(f, "key");
	for (unsigned int i = 0; i < sizeof(rss_key); i++)
		fprintf(f, " %02x", rss_key[i]);
	fprintf(f, "\ntable");
	for (unsigned int w = 0; w < nwq; w++)
		fprintf(f, " %u", w);
	fprintf(f, "\n");
	for (unsigned int pi = 0; pi < NPORT; pi++) {
		struct port *p = &ports[pi];

		for (unsigned int w = 0; w < nwq; w++)
			fprintf(f, "queue %s %u %llu\n", p->name, w,
				(unsigned long long)p->rx[w]);
		for (unsigned int i = 0; i < FLOW_SLOTS; i++) {
			struct flow *fl = &p->flows[i];
			struct in_addr s = {htonl(fl->sip)},
				       d = {htonl(fl->dip)};
			char sb[16], db[16];

			if (!fl->used)
				continue;
			inet_ntop(AF_INET, &s, sb, sizeof(sb));
			inet_ntop(AF_INET, &d, db, sizeof(db));
			fprintf(f, "flow %s %s %s %u %u %u %llu\n", p->name, sb,
				db, fl->sport, fl->dport, fl->wq,
				(unsigned long long)fl->frames);
		}
	}
}

static uint64_t
received(unsigned int pi)
{
	uint64_t sum = 0;

	for (unsigned int w = 0; w < nwq; w++)
		sum += ports[pi].rx[w];
	return sum;
}

static void
teardown(void)
{
	for (unsigned int pi = 0; pi < NPORT; pi++) {
		struct port *p = &ports[pi];

		/* in the order that frees each object before what it uses */
		if (p->flow)
			ibv_destroy_flow(p->flow);
		if (p->rss)
			ibv_destroy_qp(p->rss);
		if (p->ind)
			ibv_destroy_rwq_ind_table(p->ind);
		for (unsigned int w = 0; w < nwq; w++) {
			if (p->wq[w])
				ibv_destroy_wq(p->wq[w]);
			if (p->rx_cq[w])
				ibv_destroy_cq(p->rx_cq[w]);
		}
		if (p->txqp)
			ibv_destroy_qp(p->txqp);
		if (p->tx_cq)
			ibv_destroy_cq(p->tx_cq);
		if (p->mr)
			ibv_dereg_mr(p->mr);
		if (p->pd)
			ibv_dealloc_pd(p->pd);
		if (p->ctx)
			ibv_close_device(p->ctx);
	}
	free(bufs);
}

static void
on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int
main(int argc, char **argv)
{
	const char *names = "dpv0,dpv1", *report_path = NULL;
	double max_s = 30, idle_s = 2, t0, last = 0;
	uint64_t mark = 0;
	char namebuf[64], *comma;
	size_t area;
	int opt, rc = 1;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((opt = getopt(argc, argv, "d:q:t:i:r:c:")) != -1) {
		switch (opt) {
		case 'd':
			names = optarg;
			break;
		case 'q':
			nwq = atoi(optarg);
			break;
		case 't':
			max_s = atof(optarg);
			break;
		case 'i':
			idle_s = atof(optarg);
			break;
		case 'r':
			report_path = optarg;
			break;
		case 'c':
			mark = strtoull(optarg, NULL, 0);
			break;
		default:
			goto usage;
		}
	}
	snprintf(namebuf, sizeof(namebuf), "%s", names);
	comma = strchr(namebuf, ',');
	if (optind != argc || comma == NULL || nwq < 1 || nwq > MAX_WQ ||
	    (nwq & (nwq - 1)))
		goto usage;
	*comma = '\0';
	ports[0].name = namebuf;
	ports[1].name = comma + 1;

	area = (size_t)NPORT * nwq * RQ_DEPTH * BUF_SIZE;
	if (posix_memalign((void **)&bufs, 4096, area))
		return 1;
	for (unsigned int pi = 0; pi < NPORT; pi++) {
		struct port *p = &ports[pi];

		p->ctx = open_dev(p->name);
		p->pd = p->ctx ? ibv_alloc_pd(p->ctx) : NULL;
		/* the same memory, registered with each device */
		p->mr = p->pd ? ibv_reg_mr(p->pd, bufs, area,
					   IBV_ACCESS_LOCAL_WRITE)
			      : NULL;
		if (p->mr == NULL) {
			fprintf(stderr, "nfv_forwarder: cannot open %s: %s\n",
				p->name, strerror(errno));
			goto out;
		}
	}
	for (unsigned int pi = 0; pi < NPORT; pi++)
		if (setup_tx(&ports[pi]) || setup_rx(&ports[pi]))
			goto out;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	printf("nfv_forwarder: %s <-> %s, %u RSS queues each, forwarding\n",
	       ports[0].name, ports[1].name, nwq);
	fflush(stdout);

	t0 = now_s();
	while (!stop) {
		double t = now_s();

		if (poll_once() > 0)
			last = t;
		if (mark && received(0) >= mark && received(1) >= mark) {
			printf("nfv_forwarder: %llu frames received on each "
			       "device\n",
			       (unsigned long long)mark);
			mark = 0;
		}
		if (t - t0 > max_s ||
		    (idle_s > 0 && last > 0 && t - last > idle_s))
			break;
	}
	/* let the last sends complete */
	for (t0 = now_s(); now_s() - t0 < 0.2;)
		poll_once();

	for (unsigned int pi = 0; pi < NPORT; pi++) {
		struct port *p = &ports[pi];
		uint64_t sum = 0;

		printf("nfv_forwarder: %s -> %s:", p->name, ports[1 - pi].name);
		for (unsigned int w = 0; w < nwq; w++) {
			printf(" q%u %llu", w, (unsigned long long)p->rx[w]);
			sum += p->rx[w];
		}
		printf("; received %llu, forwarded %llu, dropped %llu (ttl "
		       "%llu), not IPv4/UDP %llu\n",
		       (unsigned long long)sum, (unsigned long long)p->tx,
		       (unsigned long long)(p->drop_tx + p->drop_ttl),
		       (unsigned long long)p->drop_ttl,
		       (unsigned long long)p->other);
	}
	if (report_path) {
		FILE *f = fopen(report_path, "w");

		if (f == NULL) {
			perror(report_path);
			goto out;
		}
		report(f);
		fclose(f);
	}
	rc = 0;
out:
	teardown();
	return rc;
usage:
	fprintf(stderr,
		"usage: %s [-d dev0,dev1] [-q queues (power of 2, <= %d)] [-t "
		"max_s] [-i idle_s] [-r report_file] [-c frames]\n",
		argv[0], MAX_WQ);
	return 2;
}
