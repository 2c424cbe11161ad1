/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpv-wrpc-peer: one end of an RDMA WRITE ping-pong in which both sides
 * wait on memory and make no verbs call while they wait, the way RPC
 * systems built on RDMA WRITE poll their request and reply slots. The
 * client WRITEs a sequence number into the server's slot; the server,
 * spinning on that slot, WRITEs it back into the client's; the client,
 * spinning on its own slot, times the round trip. The WRITEs are
 * unsignaled but one in 64 (whose completion is then polled, the SQ
 * being 128 deep), so the only verbs calls are the posts and those
 * polls: whatever lands a WRITE while its target spins is the library's
 * own progress. librdmacm's synchronous API (it runs on any
 * librdmacm.so.1).
 *
 * With "pair", each side first WRITEs a data word and then the sequence
 * number, back to back (data, then a flag: the pattern of most RPCs over
 * RDMA WRITE); the side that sees the flag checks that the data landed
 * before it.
 *
 *   dpv-wrpc-peer server ADDR PORT ITERS [pair]
 *   dpv-wrpc-peer client ADDR PORT ITERS [pair]
 *
 * The server destroys its listener between rdma_get_request() and
 * rdma_accept(), reading the client's slot from the request event after.
 *
 * The client prints "round trips N median X us p99 Y us max Z us". Both
 * exit 0 when every round trip completed, 1 on an error or when a round
 * trip took longer than 5 s.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

#define SIGNAL_EVERY 64
#define WAIT_NS (5ull * 1000000000ull)

/* what each side tells the other in the connection's private data */
struct slot_info {
	uint64_t addr;
	uint32_t rkey;
} __attribute__((packed));

struct peer {
	struct rdma_cm_id *id;
	struct ibv_mr *mr;
	/* [0]: the peer's flag, [1]: ours; [2]: the peer's data, [3]: ours */
	volatile uint64_t *slots;
	struct slot_info remote;
	uint64_t rounds;
	bool pair; /* a data WRITE before each flag WRITE */
};

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int
fail(const char *what)
{
	fprintf(stderr, "dpv-wrpc-peer: %s: %s\n", what, strerror(errno));
	return 1;
}

/* The data word of round seq (pair mode). */
static uint64_t
data_of(uint64_t seq)
{
	return ~seq;
}

/* WRITE our slot `mine` into the peer's slot `theirs` (inline); 0 or 1. */
static int
post_write(struct peer *p, unsigned int mine, unsigned int theirs,
	   uint64_t wr_id, unsigned int flags)
{
	struct ibv_sge sge = {.addr = (uintptr_t)&p->slots[mine],
			      .length = sizeof(uint64_t),
			      .lkey = p->mr->lkey};
	struct ibv_send_wr wr = {.wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
				 .opcode = IBV_WR_RDMA_WRITE,
				 .send_flags = IBV_SEND_INLINE | flags};
	struct ibv_send_wr *bad;

	wr.wr.rdma.remote_addr = p->remote.addr + theirs * sizeof(uint64_t);
	wr.wr.rdma.rkey = p->remote.rkey;
	if (ibv_post_send(p->id->qp, &wr, &bad) != 0)
		return fail("ibv_post_send");
	return 0;
}

/* WRITE seq from slot 1 into the peer's slot 0 (in pair mode after
 * data_of(seq) from slot 3 into its slot 2); one WQE in SIGNAL_EVERY (and
 * the last) signaled, its completion polled (within WAIT_NS). */
static int
write_seq(struct peer *p, uint64_t seq, bool last)
{
	bool sig = ++p->rounds % (p->pair ? SIGNAL_EVERY / 2 : SIGNAL_EVERY) ==
			   0 ||
		   last;
	struct ibv_wc wc;
	uint64_t t0;
	int n;

	if (p->pair) {
		p->slots[3] = data_of(seq);
		if (post_write(p, 3, 2, seq, 0) != 0)
			return 1;
	}
	p->slots[1] = seq;
	if (post_write(p, 1, 0, seq, sig ? IBV_SEND_SIGNALED : 0) != 0)
		return 1;
	if (!sig)
		return 0;
	t0 = now_ns();
	while ((n = ibv_poll_cq(p->id->send_cq, 1, &wc)) == 0)
		if (now_ns() - t0 > WAIT_NS) {
			fprintf(stderr, "dpv-wrpc-peer: no completion\n");
			return 1;
		}
	if (n < 0 || wc.status != IBV_WC_SUCCESS) {
		fprintf(stderr, "dpv-wrpc-peer: completion %s\n",
			n < 0 ? "poll error" : ibv_wc_status_str(wc.status));
		return 1;
	}
	return 0;
}

/* Spin on slot 0 until it holds seq (within WAIT_NS). */
static int
wait_seq(struct peer *p, uint64_t seq)
{
	uint64_t t0 = now_ns();

	while (p->slots[0] != seq)
		if (now_ns() - t0 > WAIT_NS) {
			fprintf(stderr, "dpv-wrpc-peer: WRITE %llu did not "
				"land in 5 s\n", (unsigned long long)seq);
			return 1;
		}
	if (p->pair && p->slots[2] != data_of(seq)) {
		fprintf(stderr, "dpv-wrpc-peer: round %llu: the flag landed "
			"before the data WRITE posted ahead of it\n",
			(unsigned long long)seq);
		return 1;
	}
	return 0;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int
main(int argc, char **argv)
{
	struct rdma_addrinfo hints = {0}, *res = NULL;
	struct ibv_qp_init_attr qa = {0};
	struct rdma_conn_param cp = {0};
	struct rdma_cm_id *listen_id = NULL;
	struct slot_info mine;
	struct peer p = {0};
	uint64_t iters, *rtt;
	bool server;
	void *buf;

	if ((argc != 5 && (argc != 6 || strcmp(argv[5], "pair") != 0)) ||
	    (strcmp(argv[1], "server") != 0 &&
	     strcmp(argv[1], "client") != 0)) {
		fprintf(stderr,
			"usage: %s server|client ADDR PORT ITERS [pair]\n",
			argv[0]);
		return 2;
	}
	server = strcmp(argv[1], "server") == 0;
	p.pair = argc == 6;
	iters = strtoull(argv[4], NULL, 0);
	if (iters == 0 || iters > 10000000)
		return 2;
	hints.ai_port_space = RDMA_PS_TCP;
	if (server)
		hints.ai_flags = RAI_PASSIVE;
	if (rdma_getaddrinfo(argv[2], argv[3], &hints, &res) != 0)
		return fail("rdma_getaddrinfo");
	qa.cap.max_send_wr = 2 * SIGNAL_EVERY;
	qa.cap.max_recv_wr = 1;
	qa.cap.max_send_sge = qa.cap.max_recv_sge = 1;
	qa.cap.max_inline_data = sizeof(uint64_t);
	qa.sq_sig_all = 0;
	if (server) {
		if (rdma_create_ep(&listen_id, res, NULL, &qa) != 0)
			return fail("rdma_create_ep");
		if (rdma_listen(listen_id, 1) != 0)
			return fail("rdma_listen");
		if (rdma_get_request(listen_id, &p.id) != 0)
			return fail("rdma_get_request");
		/* one connection: the listener goes now, while the child
		 * still holds its request event (which must not make the
		 * destruction wait) */
		rdma_destroy_ep(listen_id);
		listen_id = NULL;
	} else if (rdma_create_ep(&p.id, res, NULL, &qa) != 0) {
		return fail("rdma_create_ep");
	}
	if (posix_memalign(&buf, 64, 64) != 0)
		return fail("posix_memalign");
	memset(buf, 0, 64);
	p.slots = buf;
	p.mr = ibv_reg_mr(p.id->pd, buf, 64,
			  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (p.mr == NULL)
		return fail("ibv_reg_mr");
	mine.addr = (uintptr_t)buf;
	mine.rkey = p.mr->rkey;
	cp.private_data = &mine;
	cp.private_data_len = sizeof(mine);
	cp.responder_resources = cp.initiator_depth = 1;
	cp.retry_count = 7;
	if (server) {
		if (p.id->event == NULL ||
		    p.id->event->param.conn.private_data_len < sizeof(mine))
			return fail("connect request without the slot");
		memcpy(&p.remote, p.id->event->param.conn.private_data,
		       sizeof(p.remote));
		if (rdma_accept(p.id, &cp) != 0)
			return fail("rdma_accept");
	} else {
		if (rdma_connect(p.id, &cp) != 0)
			return fail("rdma_connect");
		if (p.id->event == NULL ||
		    p.id->event->param.conn.private_data_len < sizeof(mine))
			return fail("connect reply without the slot");
		memcpy(&p.remote, p.id->event->param.conn.private_data,
		       sizeof(p.remote));
	}
	rtt = calloc(iters, sizeof(*rtt));
	if (rtt == NULL)
		return fail("calloc");
	for (uint64_t i = 1; i <= iters; i++) {
		uint64_t t0 = now_ns();

		if (server) {
			if (wait_seq(&p, i) || write_seq(&p, i, false))
				return 1;
			continue;
		}
		if (write_seq(&p, i, false) || wait_seq(&p, i))
			return 1;
		rtt[i - 1] = now_ns() - t0;
	}
	if (!server) {
		qsort(rtt, iters, sizeof(*rtt), cmp_u64);
		printf("round trips %llu median %.2f us p99 %.2f us max "
		       "%.2f us\n", (unsigned long long)iters,
		       rtt[iters / 2] / 1e3, rtt[iters * 99 / 100] / 1e3,
		       rtt[iters - 1] / 1e3);
		/* the end: landed (acknowledged) before we disconnect */
		if (write_seq(&p, 0, true))
			return 1;
	} else if (wait_seq(&p, 0)) {
		return 1;
	}
	rdma_disconnect(p.id);
	rdma_dereg_mr(p.mr);
	free(rtt);
	rdma_destroy_ep(p.id);
	if (listen_id != NULL)
		rdma_destroy_ep(listen_id);
	rdma_freeaddrinfo(res);
	free(buf);
	return 0;
}
