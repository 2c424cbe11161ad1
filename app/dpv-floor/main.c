/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpv-floor: what a DPDK port does with no RDMA on top, so that dpverbs'
 * figures have a floor to be compared with. Two processes, one polling
 * thread each, first ethdev of each:
 *   lat:    the client sends one frame, the server echoes it back (MACs
 *           swapped, same mbuf); round-trip time per frame, reported as
 *           one-way (half the round trip) percentiles. With --roce send
 *           (both ends), each side instead sends what an RC SEND
 *           ping-pong must: a SEND-only request of --size payload bytes
 *           and, in the same burst, the ACK of the peer's last request,
 *           each copied from a template with its PSN and ICRC written;
 *           the receiver checks both frames' ICRCs, copies the SEND's
 *           payload out and answers once it has the request and the ACK
 *           of its own: what the port, the frames and the ICRC alone
 *           leave an ib_send_lat round trip.
 *   stream: the client sends frames of --size bytes in bursts for --secs
 *           seconds; the server counts what arrives and reports the rate.
 *           With --roce write|send (both ends), each frame is instead a
 *           RoCEv2 RC RDMA WRITE-only or SEND-only request of --size
 *           payload bytes (IPv4): its headers copied from a template, its
 *           payload from a source buffer (a sender's registered memory)
 *           and its ICRC computed by dpverbs' ICRC code as it is sent (the
 *           payload copied in the ICRC's pass where dpverbs does that);
 *           the server checks each frame's ICRC and copies its payload
 *           out, as a receiver must, counts only good frames, and its
 *           rate is in payload bits (as perftest counts): what the port
 *           and the ICRC alone leave a RoCE sender and receiver. Its
 *           RESULT counts RoCE frames that fail the check (bad=) apart
 *           from frames that are not RoCE at all (other=: on a veth
 *           pair, the kernel's IPv6 neighbour discovery and MLD).
 * Ends with one "RESULT key=value ..." line (devtools/bench.sh reads it).
 *
 *   dpv-floor [EAL args] -- --role server|client [--mode lat|stream]
 *             [--size BYTES] [--iters N] [--secs S] [--burst N]
 *             [--roce write|send]
 */
#include <errno.h>
#include <signal.h>
#include <getopt.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_udp.h>

#include "dpv_roce_gid.h"
#include "dpv_roce_hdr.h"
#include "dpv_roce_icrc.h"
#include "dpv_roce_opcode.h"
#include "dpv_roce_pkt.h"

#define ETHER_TYPE_FLOOR 0x88b5 /* IEEE local experimental */
#define MAGIC_DATA 0x464c4f4fu	/* "FLOO" */
#define MAGIC_STOP 0x53544f50u	/* "STOP" */
#define RING_SIZE 1024
#define MAX_BURST 64
#define WARMUP 1000
#define LINK_WAIT_S 20
#define FLOOR_MIN_ROOM (4480 + RTE_PKTMBUF_HEADROOM)
#define AF_XDP_MAX_ROOM 3840
#define IDLE_EXIT_S 10 /* the server gives up after this long with nothing */

struct hdr {
	struct rte_ether_hdr eth;
	uint32_t magic;
	uint32_t pad;
	uint64_t seq;
};

static struct {
	bool server;
	bool stream;
	uint32_t size;
	uint32_t iters;
	double secs;
	uint16_t burst;
	uint8_t roce; /* --roce: the RC opcode of the frames, 0: none */
} opt = {.size = 64, .iters = 100000, .secs = 3, .burst = 32};

static uint16_t port;
static struct rte_mempool *mp;

static void
usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [EAL args] -- --role server|client "
		"[--mode lat|stream] [--size BYTES] [--iters N] [--secs S] "
		"[--burst N] [--roce write|send]\n",
		prog);
	exit(2);
}

static void
parse_args(int argc, char **argv)
{
	static const struct option lo[] = {
		{"role", required_argument, NULL, 'r'},
		{"mode", required_argument, NULL, 'm'},
		{"size", required_argument, NULL, 's'},
		{"iters", required_argument, NULL, 'n'},
		{"secs", required_argument, NULL, 't'},
		{"burst", required_argument, NULL, 'b'},
		{"roce", required_argument, NULL, 'o'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	bool role = false;
	int c;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'r':
			role = true;
			if (strcmp(optarg, "server") == 0)
				opt.server = true;
			else if (strcmp(optarg, "client") != 0)
				usage(argv[0]);
			break;
		case 'm':
			if (strcmp(optarg, "stream") == 0)
				opt.stream = true;
			else if (strcmp(optarg, "lat") != 0)
				usage(argv[0]);
			break;
		case 's':
			opt.size = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'n':
			opt.iters = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 't':
			opt.secs = strtod(optarg, NULL);
			break;
		case 'b':
			opt.burst = (uint16_t)strtoul(optarg, NULL, 0);
			break;
		case 'o':
			if (strcmp(optarg, "write") == 0)
				opt.roce = DPV_ROCE_TR_RC | DPV_ROCE_OP_WRITE_ONLY;
			else if (strcmp(optarg, "send") == 0)
				opt.roce = DPV_ROCE_TR_RC | DPV_ROCE_OP_SEND_ONLY;
			else
				usage(argv[0]);
			break;
		default:
			usage(argv[0]);
		}
	}
	if (!role || opt.size < sizeof(struct hdr) || opt.size > 9000 ||
	    opt.burst == 0 || opt.burst > MAX_BURST || opt.iters == 0 ||
	    opt.secs <= 0 ||
	    (opt.roce && !opt.stream &&
	     opt.roce != (DPV_ROCE_TR_RC | DPV_ROCE_OP_SEND_ONLY)))
		usage(argv[0]);
}

static int
port_setup(void)
{
	struct rte_eth_conf conf = {0};
	/* --roce: --size is the payload, behind 74 bytes of headers and
	 * ICRC and up to 3 of pad */
	uint32_t frame = opt.size + (opt.roce ? 80 : 0);
	uint32_t room = RTE_ALIGN_CEIL(frame + RTE_PKTMBUF_HEADROOM, 64);
	struct rte_eth_dev_info di;
	struct rte_eth_link link;
	uint64_t end;

	/* as large as dpverbs' own (af_packet with 4 KiB frames needs it) */
	if (room < FLOOR_MIN_ROOM)
		room = FLOOR_MIN_ROOM;
	if (rte_eth_dev_count_avail() == 0) {
		fprintf(stderr, "no DPDK port: give one with --vdev\n");
		return -1;
	}
	RTE_ETH_FOREACH_DEV(port)
		break;
	/* af_xdp: an mbuf must fit one 4 KiB UMEM chunk (as dpverbs caps
	 * it), so frames of up to 3,456 bytes */
	if (rte_eth_dev_info_get(port, &di) == 0 && di.driver_name != NULL &&
	    strstr(di.driver_name, "af_xdp") != NULL &&
	    room > AF_XDP_MAX_ROOM) {
		room = AF_XDP_MAX_ROOM;
		if (frame + RTE_PKTMBUF_HEADROOM > room) {
			fprintf(stderr,
				"%u-byte frames do not fit an af_xdp port "
				"(at most %u)\n",
				frame, AF_XDP_MAX_ROOM - RTE_PKTMBUF_HEADROOM);
			return -1;
		}
	}
	mp = rte_pktmbuf_pool_create("floor", 8191, 256, 0, (uint16_t)room,
				     rte_socket_id());
	if (mp == NULL) {
		fprintf(stderr, "mempool: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	if (rte_eth_dev_configure(port, 1, 1, &conf) != 0 ||
	    rte_eth_rx_queue_setup(port, 0, RING_SIZE, rte_socket_id(), NULL,
				   mp) != 0 ||
	    rte_eth_tx_queue_setup(port, 0, RING_SIZE, rte_socket_id(),
				   NULL) != 0 ||
	    rte_eth_dev_start(port) != 0) {
		fprintf(stderr, "port %u set-up failed\n", port);
		return -1;
	}
	end = rte_get_timer_cycles() + LINK_WAIT_S * rte_get_timer_hz();
	do {
		if (rte_eth_link_get_nowait(port, &link) == 0 &&
		    link.link_status == RTE_ETH_LINK_UP)
			return 0;
		rte_delay_ms(10);
	} while (rte_get_timer_cycles() < end);
	fprintf(stderr, "link of port %u still down after %d s\n", port,
		LINK_WAIT_S);
	return -1;
}

static struct rte_mbuf *
frame(uint32_t magic, uint64_t seq)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	struct hdr *h;

	if (m == NULL)
		return NULL;
	h = (struct hdr *)rte_pktmbuf_append(m, (uint16_t)opt.size);
	memset(&h->eth.dst_addr, 0xff, RTE_ETHER_ADDR_LEN);
	rte_eth_macaddr_get(port, &h->eth.src_addr);
	h->eth.ether_type = rte_cpu_to_be_16(ETHER_TYPE_FLOOR);
	h->magic = magic;
	h->seq = seq;
	return m;
}

static const struct hdr *
hdr_of(struct rte_mbuf *m)
{
	if (rte_pktmbuf_data_len(m) < sizeof(struct hdr))
		return NULL;
	return rte_pktmbuf_mtod(m, const struct hdr *);
}

static void
send_stop(void)
{
	uint64_t end = rte_get_timer_cycles() + 2 * rte_get_timer_hz();
	int taken = 0;

	/* 16 taken by the port, 100 us apart; a full ring (a receiver that
	 * lags, e.g. descheduled on a busy machine) is waited for, up to 2 s */
	while (taken < 16 && rte_get_timer_cycles() < end) {
		struct rte_mbuf *m = frame(MAGIC_STOP, 0);

		/* no mbuf yet (the stream's still in flight): try again */
		if (m != NULL && rte_eth_tx_burst(port, 0, &m, 1) == 0)
			rte_pktmbuf_free(m);
		else if (m != NULL)
			taken++;
		rte_delay_us(100);
	}
}

/* --roce: the frame every request is copied from (ICRC left to the
 * sender); its length, and the offsets of its IP header, BTH and payload;
 * in lat mode the ACK frame too */
static uint8_t roce_tmpl[9200], ack_tmpl[128];
static uint32_t roce_len, roce_l3, roce_bth, roce_pay, ack_len;
/* stream --roce: the payload every request carries, as a sender's
 * registered memory holds it */
static uint8_t roce_src[9000];

/* A RoCEv2 RC frame of opcode from this end's address to the peer's
 * (192.0.2.2 is the client) into buf; its length, 0 on error. */
static uint32_t
roce_build(uint8_t *buf, size_t room, uint8_t opcode, const uint8_t *payload,
	   uint32_t paylen)
{
	struct dpv_roce_pkt p = {0};
	struct rte_ether_addr mac;
	uint32_t me = opt.server ? 0xc0000201 : 0xc0000202;
	int n;

	memset(p.dmac, 0xff, sizeof(p.dmac));
	if (rte_eth_macaddr_get(port, &mac) == 0)
		memcpy(p.smac, mac.addr_bytes, sizeof(p.smac));
	dpv_roce_gid_from_ipv4(p.sgid, rte_cpu_to_be_32(me));
	dpv_roce_gid_from_ipv4(p.dgid, rte_cpu_to_be_32(me ^ 3)); /* .1/.2 */
	p.ttl = 64;
	p.ip_frag = DPV_ROCE_IPV4_DF;
	p.sport = 0xc000;
	p.dport = DPV_ROCE_UDP_PORT;
	p.opcode = opcode;
	p.pkey = 0xffff;
	p.dqpn = 0x11;
	p.ackreq = opcode != (DPV_ROCE_TR_RC | DPV_ROCE_OP_ACK);
	p.reth.va = 0x10000;
	p.reth.rkey = 0x1234;
	p.reth.len = paylen;
	p.aeth.syndrome = 0x1f; /* ACK, credits not given */
	p.payload = payload;
	p.payload_len = paylen;
	n = dpv_roce_build(buf, room, &p);
	if (n <= 0)
		return 0;
	roce_l3 = p.l3_off;
	roce_bth = p.bth_off;
	if (paylen > 0)
		roce_pay = p.payload_off;
	return (uint32_t)n;
}

static int
roce_template(void)
{
	for (uint32_t i = 0; i < opt.size; i++)
		roce_src[i] = (uint8_t)i;
	roce_len = roce_build(roce_tmpl, sizeof(roce_tmpl), opt.roce, roce_src,
			      opt.size);
	if (!opt.stream)
		ack_len = roce_build(ack_tmpl, sizeof(ack_tmpl),
				     DPV_ROCE_TR_RC | DPV_ROCE_OP_ACK, NULL,
				     0);
	if (roce_len == 0 || (!opt.stream && ack_len == 0)) {
		fprintf(stderr, "no RoCE frame of %u payload bytes\n",
			opt.size);
		return -1;
	}
	return 0;
}

/* lat --roce: a frame copied from tmpl with PSN psn and its ICRC. */
static struct rte_mbuf *
roce_frame(const uint8_t *tmpl, uint32_t len, uint32_t psn)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	uint8_t *f;

	if (m == NULL)
		return NULL;
	f = rte_pktmbuf_mtod(m, uint8_t *);
	m->data_len = m->pkt_len = len;
	memcpy(f, tmpl, len);
	dpv_bth_set_psn((struct dpv_bth *)(f + roce_bth), psn);
	dpv_roce_icrc_set_l2(f + roce_l3, len - roce_l3);
	return m;
}

/* lat --roce: send the request psn and the ACK of the peer's request
 * ack (none if ack < 0) in one burst. */
static int
roce_send(uint32_t psn, int64_t ack)
{
	struct rte_mbuf *b[2];
	uint16_t n = 0, s;

	b[n] = roce_frame(roce_tmpl, roce_len, psn);
	if (b[n] != NULL)
		n++;
	if (ack >= 0) {
		b[n] = roce_frame(ack_tmpl, ack_len, (uint32_t)ack);
		if (b[n] != NULL)
			n++;
	}
	s = rte_eth_tx_burst(port, 0, b, n);
	if (s < n)
		rte_pktmbuf_free_bulk(b + s, n - s);
	return s == (ack >= 0 ? 2 : 1) ? 0 : -1;
}

/* --roce: true if m is a RoCEv2 frame over IPv4 at all (UDP to port
 * 4791), whatever its state; on a veth pair the kernel's own frames (IPv6
 * neighbour discovery, MLD) arrive too and are neither ours nor corrupt */
static bool
roce_frame_of(struct rte_mbuf *m)
{
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
	const struct rte_ipv4_hdr *ip =
		(const struct rte_ipv4_hdr *)(f + roce_l3);
	const struct rte_udp_hdr *u;

	if (rte_pktmbuf_data_len(m) < roce_bth ||
	    ((const struct rte_ether_hdr *)f)->ether_type !=
		    rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) ||
	    ip->next_proto_id != IPPROTO_UDP)
		return false;
	u = (const struct rte_udp_hdr *)(f + roce_l3 + rte_ipv4_hdr_len(ip));
	return (const uint8_t *)(u + 1) <= f + rte_pktmbuf_data_len(m) &&
	       u->dst_port == rte_cpu_to_be_16(DPV_ROCE_UDP_PORT);
}

/* --roce: a received frame checked as a receiver must (its ICRC; a
 * request's payload copied out); its opcode and PSN, false if it is not
 * one of ours or is corrupt. */
static bool
roce_recv(struct rte_mbuf *m, uint8_t *op, uint32_t *psn)
{
	static uint8_t landing[9000];
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t len = rte_pktmbuf_data_len(m);
	const struct dpv_bth *bth;

	if (len < ack_len || len > sizeof(roce_tmpl) ||
	    ((const struct rte_ether_hdr *)f)->ether_type !=
		    rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) ||
	    dpv_roce_icrc_calc_l2(f + roce_l3, len - roce_l3) !=
		    dpv_roce_icrc_get(f + roce_l3, len - roce_l3))
		return false;
	bth = (const struct dpv_bth *)(f + roce_bth);
	*op = dpv_bth_opcode(bth);
	*psn = dpv_bth_psn(bth);
	if (*op == opt.roce) {
		if (len != roce_len)
			return false;
		memcpy(landing, f + roce_pay, opt.size);
	}
	return true;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int
client_lat(void)
{
	uint64_t hz = rte_get_timer_hz(), *rtt;
	uint64_t limit = hz * (uint64_t)(opt.secs + 10);
	uint32_t total = opt.iters + WARMUP, slow;
	double us = 1e6 / (double)hz / 2; /* one-way */

	rtt = calloc(opt.iters, sizeof(*rtt));
	if (rtt == NULL)
		return -1;
	for (uint32_t i = 0; i < total; i++) {
		struct rte_mbuf *m = NULL, *rx[MAX_BURST];
		uint64_t t0 = rte_rdtsc(), t;
		bool back = false, acked = !opt.roce;

		if (opt.roce ? roce_send(i, (int64_t)i - 1) != 0
			     : ((m = frame(MAGIC_DATA, i)) == NULL ||
				rte_eth_tx_burst(port, 0, &m, 1) != 1)) {
			fprintf(stderr, "send failed at %u\n", i);
			return -1;
		}
		do {
			uint16_t n = rte_eth_rx_burst(port, 0, rx, MAX_BURST);

			t = rte_rdtsc();
			for (uint16_t k = 0; k < n; k++) {
				const struct hdr *h = hdr_of(rx[k]);
				uint32_t psn;
				uint8_t op;

				if (opt.roce) {
					if (roce_recv(rx[k], &op, &psn) &&
					    psn == (i & 0xffffff)) {
						back |= op == opt.roce;
						acked |= op == (DPV_ROCE_TR_RC |
								DPV_ROCE_OP_ACK);
					}
				} else if (h && h->magic == MAGIC_DATA &&
					   h->seq == i) {
					back = true;
				}
				rte_pktmbuf_free(rx[k]);
			}
			if (t - t0 > limit) {
				fprintf(stderr, "no echo of frame %u\n", i);
				return -1;
			}
		} while (!back || !acked);
		if (i >= WARMUP)
			rtt[i - WARMUP] = t - t0;
	}
	send_stop();
	qsort(rtt, opt.iters, sizeof(*rtt), cmp_u64);
	/* round trips over 4x the median: the host's stalls, whose share
	 * grows with the round trip's length */
	for (slow = 0; slow < opt.iters &&
		       rtt[opt.iters - 1 - slow] > 4 * rtt[opt.iters / 2];
	     slow++)
		;
	printf("RESULT mode=lat size=%u iters=%u min_us=%.3f p50_us=%.3f "
	       "p99_us=%.3f p999_us=%.3f max_us=%.3f slow_pct=%.3f\n",
	       opt.size, opt.iters, rtt[0] * us, rtt[opt.iters / 2] * us,
	       rtt[(uint64_t)opt.iters * 99 / 100] * us,
	       rtt[(uint64_t)opt.iters * 999 / 1000] * us,
	       rtt[opt.iters - 1] * us, 100.0 * slow / opt.iters);
	free(rtt);
	return 0;
}

static int
client_stream(void)
{
	uint64_t hz = rte_get_timer_hz(), start = rte_get_timer_cycles();
	uint64_t end = start + (uint64_t)(opt.secs * (double)hz), sent = 0;
	uint32_t len = opt.roce ? roce_len : opt.size;
	struct rte_mbuf *b[MAX_BURST];

	while (rte_get_timer_cycles() < end) {
		uint16_t n;

		if (rte_pktmbuf_alloc_bulk(mp, b, opt.burst) != 0)
			continue;
		for (uint16_t k = 0; k < opt.burst; k++) {
			struct hdr *h = rte_pktmbuf_mtod(b[k], struct hdr *);

			b[k]->data_len = b[k]->pkt_len = len;
			if (opt.roce) {
				uint8_t *f = (uint8_t *)h;
				uint32_t end = roce_pay + opt.size;

				/* headers (and pad) from the template, the
				 * payload from its source and the ICRC, as a
				 * sender writes them */
				memcpy(f, roce_tmpl, roce_pay);
				memcpy(f + end, roce_tmpl + end, len - end);
				dpv_roce_icrc_set_copy_l2(
					f + roce_l3, len - roce_l3,
					roce_pay - roce_l3, roce_src, opt.size);
				continue;
			}
			h->eth.ether_type = rte_cpu_to_be_16(ETHER_TYPE_FLOOR);
			h->magic = MAGIC_DATA;
		}
		n = rte_eth_tx_burst(port, 0, b, opt.burst);
		sent += n;
		if (n < opt.burst)
			rte_pktmbuf_free_bulk(b + n, opt.burst - n);
	}
	rte_delay_ms(50);
	send_stop();
	printf("RESULT mode=stream-tx size=%u pkts=%" PRIu64 " mpps=%.3f\n",
	       len, sent,
	       (double)sent / ((double)(end - start) / (double)hz) / 1e6);
	return 0;
}

static int
server(void)
{
	uint64_t hz = rte_get_timer_hz(), last = rte_get_timer_cycles();
	uint64_t first_rx = 0, last_rx = 0, pkts = 0, bytes = 0, bad = 0;
	uint64_t other = 0;
	struct rte_mbuf *rx[MAX_BURST];
	bool stop = false;

	while (!stop) {
		uint16_t n = rte_eth_rx_burst(port, 0, rx, MAX_BURST), keep = 0;
		uint64_t now = n ? rte_rdtsc() : rte_get_timer_cycles();

		if (n == 0) {
			if (now - last > IDLE_EXIT_S * hz) {
				fprintf(stderr, "idle for %d s: giving up\n",
					IDLE_EXIT_S);
				return -1;
			}
			continue;
		}
		last = now;
		for (uint16_t k = 0; k < n; k++) {
			const struct hdr *h = hdr_of(rx[k]);

			if (h == NULL || h->magic == MAGIC_STOP) {
				stop |= h != NULL;
				rte_pktmbuf_free(rx[k]);
				continue;
			}
			if (opt.roce) {
				uint32_t psn;
				uint8_t op;
				/* checked, its payload copied out */
				bool req = roce_recv(rx[k], &op, &psn) &&
					   op == opt.roce;

				if (opt.stream) {
					/* only a good request counts, by its
					 * payload; a RoCE frame that is not
					 * one is bad */
					pkts += req;
					bytes += req ? opt.size : 0;
					if (!req && roce_frame_of(rx[k]))
						bad++;
					else if (!req)
						other++;
				} else {
					/* lat: every frame counts; a request
					 * is answered with one of ours and its
					 * ACK */
					pkts++;
					bytes += rte_pktmbuf_pkt_len(rx[k]);
					if (req && roce_send(psn, psn) != 0)
						fprintf(stderr,
							"reply %u failed\n",
							psn);
				}
				rte_pktmbuf_free(rx[k]);
				continue;
			}
			pkts++;
			bytes += rte_pktmbuf_pkt_len(rx[k]);
			if (opt.stream) {
				rte_pktmbuf_free(rx[k]);
				continue;
			}
			/* echo: same mbuf, addresses swapped */
			struct rte_ether_hdr *e =
				rte_pktmbuf_mtod(rx[k], struct rte_ether_hdr *);
			struct rte_ether_addr a = e->dst_addr;

			e->dst_addr = e->src_addr;
			e->src_addr = a;
			rx[keep++] = rx[k];
		}
		if (keep) {
			uint16_t s = rte_eth_tx_burst(port, 0, rx, keep);

			if (s < keep)
				rte_pktmbuf_free_bulk(rx + s, keep - s);
		}
		if (pkts && first_rx == 0)
			first_rx = now;
		last_rx = now;
	}
	if (opt.stream && last_rx > first_rx) {
		double s = (double)(last_rx - first_rx) / (double)hz;

		printf("RESULT mode=stream size=%u pkts=%" PRIu64
		       " mpps=%.3f gbps=%.3f bad=%" PRIu64 " other=%" PRIu64
		       "\n",
		       opt.size, pkts, (double)pkts / s / 1e6,
		       (double)bytes * 8 / s / 1e9, bad, other);
	} else {
		printf("RESULT mode=echo pkts=%" PRIu64 "\n", pkts);
	}
	return 0;
}

int
main(int argc, char **argv)
{
	int n, rc;

	/* virtio-user tells a vhost-user peer that is gone (the other end
	 * exits first) of its stop on the socket: EPIPE, not a SIGPIPE that
	 * kills this process before its result is out */
	signal(SIGPIPE, SIG_IGN);
	n = rte_eal_init(argc, argv);

	if (n < 0) {
		fprintf(stderr, "EAL: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	parse_args(argc - n, argv + n);
	if (port_setup() != 0)
		return 1;
	if (opt.roce) {
		/* the ICRC code dpverbs picks for this CPU and SIMD width */
		dpv_roce_icrc_select_best();
		if (roce_template() != 0)
			return 1;
	}
	if (opt.server)
		rc = server();
	else
		rc = opt.stream ? client_stream() : client_lat();
	rte_eth_dev_stop(port);
	rte_eth_dev_close(port);
	rte_eal_cleanup();
	return rc ? 1 : 0;
}
