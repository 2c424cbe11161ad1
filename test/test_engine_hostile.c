/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Forged frames the receive path must refuse (issue 12.4): each is built
 * by lib/roce's builder as a valid WRITE from QP A to QP B, then one header
 * field is made wrong, and it is put on the engine's loopback wire. It must
 * be dropped (or, for an RC length error, NAKed with invalid request),
 * counted under its reason, and write nothing. A good frame sent after the
 * bad ones shows that the forging is right and the PSN did not move.
 */
#include <inttypes.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "dpv_engine.h"
#include "dpv_roce.h"
#include "dpv_test.h"
#include "engine_int.h" /* white-box: the loopback wire, QP state */
#include "mlx5_ring.h"
#include "test_engine_util.h"

#define PDN	 1
#define QPN_A	 0x31
#define QPN_B	 0x32
#define KEY_B	 0x342
#define KEY_A	 0x441
#define BUF_SIZE 16384
#define MTU	 1024
#define QKEY	 0x11112222
#define IP_SELF	 0xc0000205 /* 192.0.2.5: both QPs' address */
#define IP_OTHER 0xc0000263 /* 192.0.2.99: not the device's */

static struct rte_mempool *mp;
static struct dpv_engine *eng;
static struct test_engine_qp qa, qb;
static const uint8_t mac[6] = {0x02, 0, 0, 0, 0, 0x05};
static enum ibv_qp_type qp_type;
/* the QPs' address: IPv6 2001:db8::5 instead of IP_SELF */
static bool use_v6;
static const uint8_t gid6[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 5};

static int
suite_setup(void)
{
	if (dpv_test_eal_init() != 0)
		return TEST_SKIPPED;
	/* room for a 3,000-byte payload in one mbuf */
	mp = rte_pktmbuf_pool_create("eng_hostile_mp", 512, 0, 0,
				     8192 + RTE_PKTMBUF_HEADROOM,
				     SOCKET_ID_ANY);
	return mp ? 0 : TEST_FAILED;
}

static void
suite_teardown(void)
{
	test_engine_pool_free(&mp);
}

static int
qp_init(struct test_engine_qp *t, uint32_t qpn)
{
	struct dpv_engine_qp_init init = {
		.qpn = qpn,
		.type = qp_type,
		.pdn = PDN,
		.sq = &t->sq,
		.rq = &t->rq,
		.send_cq = &t->scq,
		.recv_cq = &t->rcq,
		.max_send_wr = 64,
	};

	if (test_engine_qp_rings_init(t, qpn, qp_type, BUF_SIZE))
		return -1;
	return dpv_engine_qp_create(eng, &init);
}

static int
setup_type(enum ibv_qp_type type)
{
	struct dpv_engine_conf conf = {.mp = mp, .max_keys = 1024};
	struct dpv_engine_path path;
	struct test_engine_conn c = {
		.path = &path,
		.mtu = IBV_MTU_1024,
		.psn = 0,
		.timeout = 14,
		.rnr_retry = 7,
	};
	struct dpv_engine_key k = {
		.length = BUF_SIZE,
		.access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE,
		.pdn = PDN,
	};

	qp_type = type;
	memcpy(conf.mac, mac, 6);
	dpv_roce_gid_from_ipv4(conf.gid, rte_cpu_to_be_32(IP_SELF));
	if (use_v6)
		memcpy(conf.gid, gid6, 16);
	eng = dpv_engine_create(NULL, &conf);
	if (eng == NULL || qp_init(&qa, QPN_A) || qp_init(&qb, QPN_B))
		return -1;
	k.addr = k.iova = (uintptr_t)qb.buf;
	if (dpv_engine_key_set(eng, KEY_B, &k) != 0)
		return -1;
	test_engine_loop_path(&path, mac, IP_SELF);
	if (use_v6) {
		memcpy(path.sgid, gid6, 16);
		memcpy(path.dgid, gid6, 16);
	}
	c.dest_qpn = QPN_B;
	if (test_engine_connect(eng, QPN_A, &c))
		return -1;
	c.dest_qpn = QPN_A;
	return test_engine_connect(eng, QPN_B, &c);
}

static struct dpv_mlx5_wq *
lookup(void *arg, uint32_t qpn, bool recv)
{
	static struct test_engine_qp *const pair[] = {&qa, &qb};

	RTE_SET_USED(arg);
	return test_engine_qp_wq(pair, RTE_DIM(pair), qpn, recv);
}

/* Two UD QPs in RTS with Q_Key QKEY. */
static int
setup_ud(void)
{
	struct dpv_engine_conf conf = {.mp = mp, .max_keys = 1024};
	struct dpv_engine_key k = {
		.length = BUF_SIZE,
		.access = IBV_ACCESS_LOCAL_WRITE,
		.pdn = PDN,
	};
	struct ibv_qp_attr a = {.qkey = QKEY};

	qp_type = IBV_QPT_UD;
	memcpy(conf.mac, mac, 6);
	dpv_roce_gid_from_ipv4(conf.gid, rte_cpu_to_be_32(IP_SELF));
	eng = dpv_engine_create(NULL, &conf);
	if (eng == NULL || qp_init(&qa, QPN_A) || qp_init(&qb, QPN_B))
		return -1;
	k.addr = k.iova = (uintptr_t)qb.buf;
	if (dpv_engine_key_set(eng, KEY_B, &k) != 0)
		return -1;
	for (uint32_t q = QPN_A; q <= QPN_B; q++) {
		a.qp_state = IBV_QPS_INIT;
		if (dpv_engine_qp_modify(eng, q, &a, IBV_QP_STATE | IBV_QP_QKEY,
					 NULL))
			return -1;
		a.qp_state = IBV_QPS_RTR;
		if (dpv_engine_qp_modify(eng, q, &a, IBV_QP_STATE, NULL))
			return -1;
		a.qp_state = IBV_QPS_RTS;
		if (dpv_engine_qp_modify(eng, q, &a, IBV_QP_STATE, NULL))
			return -1;
	}
	return 0;
}

static int
setup_rc6(void)
{
	use_v6 = true;
	return setup_type(IBV_QPT_RC);
}

static int
setup_rc(void)
{
	return setup_type(IBV_QPT_RC);
}

static int
setup_uc(void)
{
	return setup_type(IBV_QPT_UC);
}

static void
teardown(void)
{
	if (eng == NULL)
		return;
	test_engine_qp_fini(eng, &qa);
	test_engine_qp_fini(eng, &qb);
	dpv_engine_destroy(eng);
	eng = NULL;
	use_v6 = false;
}

/* ------------------------------------------------------------ forging */

struct frame {
	uint8_t b[8192];
	uint32_t len;
	struct dpv_roce_pkt p;
};

static uint8_t payload[4096];

/* A valid RC/UC WRITE packet from A to B of paylen bytes at psn; RETH (on
 * FIRST/ONLY) for dmalen bytes at B's buffer + off. */
static int
forge(struct frame *f, uint8_t op, uint32_t psn, uint32_t paylen,
      uint32_t dmalen, uint32_t off)
{
	struct dpv_roce_pkt *p = &f->p;
	int n;

	memset(p, 0, sizeof(*p));
	p->opcode = (qp_type == IBV_QPT_UC   ? DPV_ROCE_TR_UC
		     : qp_type == IBV_QPT_UD ? DPV_ROCE_TR_UD
					     : DPV_ROCE_TR_RC) |
		    op;
	p->deth.qkey = QKEY;
	p->deth.sqp = QPN_A;
	memcpy(p->dmac, mac, 6);
	memcpy(p->smac, mac, 6);
	dpv_roce_gid_from_ipv4(p->sgid, rte_cpu_to_be_32(IP_SELF));
	dpv_roce_gid_from_ipv4(p->dgid, rte_cpu_to_be_32(IP_SELF));
	p->ttl = DPV_ROCE_TTL_DEFAULT;
	p->ip_frag = DPV_ROCE_IPV4_DF;
	p->sport = 0xc000;
	p->pkey = DPV_ROCE_PKEY_DEFAULT;
	p->dqpn = QPN_B;
	p->psn = psn;
	/* a requester asks for the ACK of a message it waits for */
	p->ackreq = qp_type == IBV_QPT_RC &&
		    (dpv_roce_opcode(p->opcode)->mask & DPV_OPF_LAST);
	p->reth.va = (uintptr_t)qb.buf + off;
	p->reth.rkey = KEY_B;
	p->reth.len = dmalen;
	p->payload = payload;
	p->payload_len = paylen;
	n = dpv_roce_build(f->b, sizeof(f->b), p);
	if (n <= 0)
		return -1;
	f->len = (uint32_t)n;
	return 0;
}

/* After a header was changed: lengths for data wire bytes of payload +
 * pad (the frame is cut or grown at its end), IPv4 checksum, ICRC. */
static void
refit(struct frame *f, uint32_t data)
{
	struct dpv_roce_pkt *p = &f->p;
	struct rte_ipv4_hdr *ip = (void *)(f->b + p->l3_off);
	struct rte_udp_hdr *udp = (void *)(f->b + p->l4_off);

	f->len = p->payload_off + data + DPV_ROCE_ICRC_LEN;
	ip->total_length = rte_cpu_to_be_16((uint16_t)(f->len - p->l3_off));
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	udp->dgram_len = rte_cpu_to_be_16((uint16_t)(f->len - p->l4_off));
	dpv_roce_icrc_set(f->b + p->l3_off, f->len - p->l3_off);
}

static struct dpv_bth *
bth(struct frame *f)
{
	return (struct dpv_bth *)(f->b + f->p.bth_off);
}

/* Put the frame on the loopback wire and let the engine take it. */
static int
inject(const struct frame *f)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	void *d;

	if (m == NULL)
		return -1;
	d = rte_pktmbuf_append(m, (uint16_t)f->len);
	if (d == NULL || rte_ring_enqueue(eng->loop, m) != 0) {
		rte_pktmbuf_free(m);
		return -1;
	}
	memcpy(d, f->b, f->len);
	for (int i = 0; i < 20; i++)
		dpv_engine_poll(eng, 32);
	return 0;
}

static bool
all_zero(const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (b[i] != 0)
			return false;
	return true;
}

static enum ibv_qp_state
state_b(void)
{
	return dpv_engine_qp_lookup(eng, QPN_B)->state;
}

/* ------------------------------------------------------------- tests */

/* Counters (device and B) that must move by exactly one. */
#define DELTA(n) (s1.n - s0.n)

/* Every bad header is dropped, counted under its own name, writes nothing;
 * then good frames (P_Key 0x7fff, 0xffff) at the PSNs the bad ones had are
 * accepted. */
static int
test_bad_headers(void)
{
	static const struct {
		const char *what;
		enum dpv_roce_rx_status why; /* OK: not a parse drop */
		size_t counter;		     /* offsetof in the stats */
	} c[] = {
		{"TVer 1", DPV_ROCE_RX_TVER, 0},
		{"P_Key 0x1234", DPV_ROCE_RX_OK,
		 offsetof(struct dpv_engine_stats, rx_drop_pkey)},
		{"P_Key 0x8000", DPV_ROCE_RX_OK,
		 offsetof(struct dpv_engine_stats, rx_drop_pkey)},
		{"P_Key 0x0000", DPV_ROCE_RX_OK,
		 offsetof(struct dpv_engine_stats, rx_drop_pkey)},
		{"destination 192.0.2.99", DPV_ROCE_RX_OK,
		 offsetof(struct dpv_engine_stats, rx_drop_dip)},
		{"1,001 bytes with pad 0", DPV_ROCE_RX_PAYLOAD_LEN, 0},
		{"pad 3 on an empty ONLY", DPV_ROCE_RX_PAD, 0},
		{"pad 1 on a FIRST", DPV_ROCE_RX_PAD, 0},
		{"IPv4 checksum", DPV_ROCE_RX_IPV4_CSUM, 0},
	};
	struct dpv_engine_qp_stats q0, q1;
	struct dpv_engine_stats s0, s1;
	struct frame f;
	struct ibv_wc wc;

	memset(payload, 0xee, sizeof(payload)); /* visible if written */
	for (size_t i = 0; i < RTE_DIM(c); i++) {
		struct rte_ipv4_hdr *ip;

		TEST_ASSERT_EQUAL(
			forge(&f, DPV_ROCE_OP_WRITE_ONLY, 0, 64, 64, 0), 0, "");
		ip = (void *)(f.b + f.p.l3_off);
		switch (i) {
		case 0:
			dpv_bth_set_tver(bth(&f), 1);
			refit(&f, 64);
			break;
		case 1:
		case 2:
		case 3:
			dpv_bth_set_pkey(bth(&f), i == 1   ? 0x1234
						  : i == 2 ? 0x8000
							   : 0);
			refit(&f, 64);
			break;
		case 4:
			ip->dst_addr = rte_cpu_to_be_32(IP_OTHER);
			refit(&f, 64);
			break;
		case 5: /* 1,000 bytes + 1 and no pad: not a multiple of 4 */
			TEST_ASSERT_EQUAL(forge(&f, DPV_ROCE_OP_WRITE_ONLY, 0,
						1000, 1001, 0),
					  0, "");
			refit(&f, 1001);
			break;
		case 6:
			TEST_ASSERT_EQUAL(
				forge(&f, DPV_ROCE_OP_WRITE_ONLY, 0, 0, 0, 0),
				0, "");
			dpv_bth_set_pad(bth(&f), 3);
			refit(&f, 0);
			break;
		case 7:
			TEST_ASSERT_EQUAL(forge(&f, DPV_ROCE_OP_WRITE_FIRST, 0,
						MTU, 2 * MTU, 0),
					  0, "");
			dpv_bth_set_pad(bth(&f), 1);
			refit(&f, MTU);
			break;
		case 8: /* a wrong header checksum (the ICRC masks it) */
			ip->hdr_checksum ^= 0x0101;
			break;
		}
		dpv_engine_stats_get(eng, &s0);
		dpv_engine_qp_stats_get(eng, QPN_B, &q0);
		TEST_ASSERT_EQUAL(inject(&f), 0, "");
		dpv_engine_stats_get(eng, &s1);
		dpv_engine_qp_stats_get(eng, QPN_B, &q1);
		if (c[i].why != DPV_ROCE_RX_OK) {
			TEST_ASSERT_EQUAL(DELTA(rx_drop_parse), 1, "%s",
					  c[i].what);
			TEST_ASSERT_EQUAL(DELTA(rx_drop_parse_why[c[i].why]), 1,
					  "%s: counted as %s", c[i].what,
					  dpv_roce_rx_status_name(c[i].why));
		} else {
			uint64_t a, b;

			memcpy(&a, (uint8_t *)&s0 + c[i].counter, 8);
			memcpy(&b, (uint8_t *)&s1 + c[i].counter, 8);
			TEST_ASSERT_EQUAL(b - a, 1, "%s", c[i].what);
			TEST_ASSERT_EQUAL(DELTA(rx_drop_parse), 0, "%s",
					  c[i].what);
		}
		TEST_ASSERT_EQUAL(DELTA(acks_sent), 0, "%s: not answered",
				  c[i].what);
		TEST_ASSERT_EQUAL(q1.rx_drop_dip - q0.rx_drop_dip,
				  (uint64_t)(i == 4), "%s: B's own count",
				  c[i].what);
		TEST_ASSERT(all_zero(qb.buf, BUF_SIZE), "%s wrote", c[i].what);
		TEST_ASSERT_EQUAL(state_b(), IBV_QPS_RTS, "");
	}
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_poll(&qb.rcq, 1, &wc, NULL, NULL), 0,
			  "no completion");
	/* a limited-member P_Key matches the full-member 0xffff entry */
	memset(payload, 0xa5, 64);
	TEST_ASSERT_EQUAL(forge(&f, DPV_ROCE_OP_WRITE_ONLY, 0, 64, 64, 0), 0,
			  "");
	dpv_bth_set_pkey(bth(&f), 0x7fff);
	refit(&f, 64);
	dpv_engine_stats_get(eng, &s0);
	TEST_ASSERT_EQUAL(inject(&f), 0, "");
	dpv_engine_stats_get(eng, &s1);
	TEST_ASSERT_EQUAL(DELTA(acks_sent), qp_type == IBV_QPT_RC ? 1u : 0u,
			  "RC: the good WRITE is acknowledged");
	TEST_ASSERT_BUFFERS_EQUAL(qb.buf, payload, 64, "P_Key 0x7fff: written");
	TEST_ASSERT_EQUAL(forge(&f, DPV_ROCE_OP_WRITE_ONLY, 1, 64, 64, 64), 0,
			  "");
	TEST_ASSERT_EQUAL(inject(&f), 0, "");
	TEST_ASSERT_BUFFERS_EQUAL(qb.buf + 64, payload, 64, "PSN 1 written");
	memset(payload, 0, sizeof(payload));
	return TEST_SUCCESS;
}

/* Path MTU rules: FIRST/MIDDLE exactly the MTU, ONLY/LAST at most. RC: NAK
 * invalid request and B to ERR; UC: dropped silently, B stays in RTS. In
 * both, nothing of the bad packet is written. */
static int
test_len(void)
{
	static const struct {
		const char *what;
		uint8_t op;
		uint32_t len;
	} c[] = {
		{"3,000-byte MIDDLE", DPV_ROCE_OP_WRITE_MIDDLE, 3000},
		{"1,020-byte MIDDLE", DPV_ROCE_OP_WRITE_MIDDLE, MTU - 4},
		{"1,028-byte LAST", DPV_ROCE_OP_WRITE_LAST, MTU + 4},
		{"1,020-byte FIRST", DPV_ROCE_OP_WRITE_FIRST, MTU - 4},
		{"1,028-byte ONLY", DPV_ROCE_OP_WRITE_ONLY, MTU + 4},
	};
	bool rc = qp_type == IBV_QPT_RC;
	struct dpv_engine_stats s0, s1;
	struct frame f;

	memset(payload, 0x5a, sizeof(payload));
	for (size_t i = 0; i < RTE_DIM(c); i++) {
		uint32_t psn = 0, dmalen = 8 * MTU;
		bool cont = !(OPF(c[i].op) & DPV_OPF_FIRST);

		if (i > 0) { /* a fresh pair: RC's B went to ERR */
			teardown();
			TEST_ASSERT_EQUAL(setup_type(qp_type), 0, "");
		}
		if (cont) { /* a good FIRST opens the message */
			TEST_ASSERT_EQUAL(forge(&f, DPV_ROCE_OP_WRITE_FIRST,
						psn++, MTU, dmalen, 0),
					  0, "");
			TEST_ASSERT_EQUAL(inject(&f), 0, "");
		} else if (c[i].op == DPV_ROCE_OP_WRITE_ONLY) {
			dmalen = c[i].len;
		}
		TEST_ASSERT_EQUAL(forge(&f, c[i].op, psn, c[i].len, dmalen,
					cont ? MTU : 0),
				  0, "");
		dpv_engine_stats_get(eng, &s0);
		TEST_ASSERT_EQUAL(inject(&f), 0, "");
		dpv_engine_stats_get(eng, &s1);
		TEST_ASSERT_EQUAL(DELTA(rx_drop_len), 1, "%s", c[i].what);
		TEST_ASSERT_EQUAL(DELTA(inv_req_naks_sent), rc ? 1u : 0u,
				  "%s: NAK invalid request (RC only)",
				  c[i].what);
		TEST_ASSERT_EQUAL(state_b(), rc ? IBV_QPS_ERR : IBV_QPS_RTS,
				  "%s", c[i].what);
		TEST_ASSERT(all_zero(qb.buf + (cont ? MTU : 0),
				     BUF_SIZE - (cont ? MTU : 0)),
			    "%s: nothing of it written", c[i].what);
		if (cont)
			TEST_ASSERT_BUFFERS_EQUAL(qb.buf, payload, MTU,
						  "the good FIRST");
	}
	memset(payload, 0, sizeof(payload));
	return TEST_SUCCESS;
}

/* A READ response of 3,000 bytes in the middle is refused before the
 * requester looks at it. */
static int
test_read_resp_len(void)
{
	struct dpv_engine_qp_stats q0, q1;
	struct frame f;

	memset(payload, 0x5a, sizeof(payload));
	TEST_ASSERT_EQUAL(
		forge(&f, DPV_ROCE_OP_READ_RESP_MIDDLE, 0, 3000, 0, 0), 0, "");
	dpv_bth_set_qpn(bth(&f), QPN_A);
	refit(&f, 3000);
	dpv_engine_qp_stats_get(eng, QPN_A, &q0);
	TEST_ASSERT_EQUAL(inject(&f), 0, "");
	dpv_engine_qp_stats_get(eng, QPN_A, &q1);
	memset(payload, 0, sizeof(payload));
	TEST_ASSERT_EQUAL(q1.rx_drop_len - q0.rx_drop_len, 1, "counted on A");
	TEST_ASSERT(all_zero(qa.buf, BUF_SIZE), "nothing written");
	TEST_ASSERT_EQUAL(dpv_engine_qp_lookup(eng, QPN_A)->state, IBV_QPS_RTS,
			  "");
	return TEST_SUCCESS;
}

/* UD: a wrong Q_Key is dropped and counted (ibv_query_port's
 * qkey_viol_cntr); the right one is received. */
static int
test_ud_qkey(void)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)qb.buf, .length = 40 + 64, .lkey = KEY_B};
	struct ibv_recv_wr wr = {.wr_id = 5, .sg_list = &sge, .num_sge = 1},
			   *bad;
	struct dpv_engine_qp_stats q0, q1;
	struct frame f;
	struct ibv_wc wc;

	TEST_ASSERT_EQUAL(dpv_mlx5_post_recv(&qb.rq, &wr, &bad), 0, "");
	memset(payload, 0x77, 64);
	TEST_ASSERT_EQUAL(forge(&f, DPV_ROCE_OP_SEND_ONLY, 0, 64, 0, 0), 0, "");
	dpv_deth_set_qkey(
		(struct dpv_deth *)(f.b + f.p.bth_off + sizeof(struct dpv_bth)),
		QKEY + 1);
	refit(&f, 64);
	dpv_engine_qp_stats_get(eng, QPN_B, &q0);
	TEST_ASSERT_EQUAL(inject(&f), 0, "");
	dpv_engine_qp_stats_get(eng, QPN_B, &q1);
	TEST_ASSERT_EQUAL(q1.rx_drop_qkey - q0.rx_drop_qkey, 1, "");
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_poll(&qb.rcq, 1, &wc, lookup, NULL), 0,
			  "nothing received");
	TEST_ASSERT(all_zero(qb.buf, BUF_SIZE), "nothing written");
	TEST_ASSERT_EQUAL(forge(&f, DPV_ROCE_OP_SEND_ONLY, 0, 64, 0, 0), 0, "");
	TEST_ASSERT_EQUAL(inject(&f), 0, "");
	memset(payload, 0, sizeof(payload));
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_poll(&qb.rcq, 1, &wc, lookup, NULL), 1,
			  "the right Q_Key is received");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "");
	TEST_ASSERT_EQUAL(wc.byte_len, 40 + 64, "");
	return TEST_SUCCESS;
}

/* A's 64-byte WRITE to B, signaled, wr_id psn */
static int
write_a(uint32_t psn)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)qa.buf, .length = 64, .lkey = KEY_A};
	struct ibv_send_wr wr = {.wr_id = psn,
				 .sg_list = &sge,
				 .num_sge = 1,
				 .opcode = IBV_WR_RDMA_WRITE,
				 .send_flags = IBV_SEND_SIGNALED},
			   *bad;

	wr.wr.rdma.remote_addr = (uintptr_t)qb.buf;
	wr.wr.rdma.rkey = KEY_B;
	return dpv_mlx5_post_send(&qa.sq, IBV_QPT_RC, QPN_A, &wr, &bad);
}

/* A's buffer registered, then three of its WRITEs (PSN 0..2) to B, each
 * completed before the next */
static int
three_writes(void)
{
	struct dpv_engine_key k = {.length = BUF_SIZE,
				   .access = IBV_ACCESS_LOCAL_WRITE,
				   .pdn = PDN};
	struct ibv_wc wc;

	k.addr = k.iova = (uintptr_t)qa.buf;
	TEST_ASSERT_EQUAL(dpv_engine_key_set(eng, KEY_A, &k), 0, "");
	for (uint32_t psn = 0; psn < 3; psn++) {
		TEST_ASSERT_EQUAL(write_a(psn), 0, "");
		TEST_ASSERT_EQUAL(
			test_engine_wait_wc(eng, &qa.scq, &wc, lookup, 100), 0,
			"WRITE %u completes", psn);
		TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "");
	}
	return TEST_SUCCESS;
}

/* f's IPv4 header made wrong in its checksum alone (a field the ICRC does
 * not cover), or (other) from IP_OTHER, its checksum and ICRC right */
static void
ipv4_forge(struct frame *f, bool other)
{
	struct rte_ipv4_hdr *ip = (void *)(f->b + 14);

	if (!other) {
		ip->hdr_checksum ^= RTE_BE16(0x0101);
		return;
	}
	ip->src_addr = rte_cpu_to_be_32(IP_OTHER);
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	dpv_roce_icrc_set(f->b + 14, f->len - 14);
}

/* A's forged ACK g from another address (its ICRC right) is dropped as
 * not from A's peer, by the full parse, and completes nothing. */
static int
expect_addr_drop(const struct frame *g)
{
	struct dpv_engine_stats s0, s1;
	struct dpv_engine_qp_stats q0, q1;
	struct ibv_wc wc;

	dpv_engine_stats_get(eng, &s0);
	dpv_engine_qp_stats_get(eng, QPN_A, &q0);
	TEST_ASSERT_EQUAL(inject(g), 0, "");
	dpv_engine_stats_get(eng, &s1);
	dpv_engine_qp_stats_get(eng, QPN_A, &q1);
	TEST_ASSERT_EQUAL(q1.rx_drop_addr - q0.rx_drop_addr, 1,
			  "not from A's peer: dropped");
	TEST_ASSERT_EQUAL(DELTA(rx_acks_fast), 0, "");
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_poll(&qa.scq, 1, &wc, lookup, NULL), 0,
			  "nothing completed by it");
	return TEST_SUCCESS;
}

/* test_ack_fast over IPv6, from its forged ACK f (made right) on */
static int
ack_fast6(const struct frame *f)
{
	struct dpv_engine_stats s0, s1;
	struct ibv_wc wc;

	/* from another address, its ICRC right */
	{
		struct frame g = *f;

		g.b[14 + 8 + 15] ^= 0x40; /* the source address */
		dpv_roce_icrc_set(g.b + 14, g.len - 14);
		TEST_ASSERT_EQUAL(expect_addr_drop(&g), TEST_SUCCESS, "");
	}
	/* the same ICRC (the fields are not under it), not the reference's
	 * bytes: a wrong UDP checksum (in the reference's IPv6 tail), which
	 * the full parse drops; another hop limit, a good ACK, which the full
	 * parse takes: it completes the WRITE */
	for (int i = 0; i < 2; i++) {
		struct frame g = *f;

		g.b[i == 0 ? 14 + 40 + 7 : 14 + 7] ^= 0x01;
		dpv_engine_stats_get(eng, &s0);
		TEST_ASSERT_EQUAL(inject(&g), 0, "");
		dpv_engine_stats_get(eng, &s1);
		TEST_ASSERT_EQUAL(DELTA(rx_acks_fast), 0,
				  "not the reference's bytes (%d)", i);
		TEST_ASSERT_EQUAL(DELTA(acks_rcvd), (uint64_t)i, "");
		TEST_ASSERT_EQUAL(
			dpv_mlx5_cq_poll(&qa.scq, 1, &wc, lookup, NULL), i,
			"the hop limit's completes the WRITE");
	}
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "");
	TEST_ASSERT_EQUAL(wc.wr_id, 3, "");
	return TEST_SUCCESS;
}

/* An ACK to A forged from A's reference (B's last ACK that A parsed): its
 * BTH's PSN word and its AETH as given (host order), its ICRC made right */
static void
ack_from_ref(struct frame *f, uint32_t psn_word, uint32_t aeth)
{
	const struct dpv_eqp *qp = dpv_engine_qp_lookup(eng, QPN_A);
	const struct dpv_erxack *r = &qp->rx_ack;
	uint32_t bo = 14 + (use_v6 ? 40 : 20) + 8, w;

	memset(f, 0, sizeof(*f));
	memcpy(f->b, r->b, sizeof(r->b));
	if (use_v6)
		memcpy(f->b + sizeof(r->b), qp->rx_ack6,
		       bo + 8 - sizeof(r->b));
	f->len = r->len;
	w = rte_cpu_to_be_32(psn_word);
	memcpy(f->b + bo + 8, &w, 4);
	w = rte_cpu_to_be_32(aeth);
	memcpy(f->b + bo + 12, &w, 4);
	dpv_roce_icrc_set(f->b + 14, f->len - 14);
}

/*
 * ACKs that repeat the last one A took but for their PSN and AETH are
 * checked by their ICRC's deltas (engine_rx_ack_fast): the next ones B
 * sends take that way; forged ones that differ elsewhere, or whose ICRC
 * is wrong, complete nothing and are dropped as the full parse drops
 * them; the forged ACK made right completes A's WRITE that B never got.
 * Over IPv6, one that differs in its hop limit alone (which the ICRC
 * does not cover) is a good ACK, but not the reference's bytes: the full
 * parse takes it.
 */
static int
test_ack_fast(void)
{
	struct dpv_engine_stats s0, s1;
	const struct dpv_erxack *r;
	struct frame f;
	struct ibv_wc wc;
	uint32_t bo;

	dpv_engine_stats_get(eng, &s0);
	TEST_ASSERT_EQUAL(three_writes(), TEST_SUCCESS, "");
	dpv_engine_stats_get(eng, &s1);
	TEST_ASSERT_EQUAL(DELTA(rx_acks_fast), 2,
			  "the first ACK parsed, the next two by their deltas");
	TEST_ASSERT_EQUAL(DELTA(acks_rcvd), 3, "");

	/* the fourth WRITE never reaches B */
	dpv_engine_inject_tx_loss(eng, 1);
	TEST_ASSERT_EQUAL(write_a(3), 0, "");
	for (int i = 0; i < 20; i++)
		dpv_engine_poll(eng, 32);
	dpv_engine_inject_tx_loss(eng, 0);
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_poll(&qa.scq, 1, &wc, lookup, NULL), 0,
			  "nothing to complete yet");

	/* its ACK, forged from A's reference (B's ACKs) */
	r = &dpv_engine_qp_lookup(eng, QPN_A)->rx_ack;
	TEST_ASSERT(r->len != 0, "A kept B's ACK");
	bo = 14 + (use_v6 ? 40 : 20) + 8;
	TEST_ASSERT_EQUAL(r->len, bo + 12 + 4 + 4, "");
	/* PSN 3, AckReq 0; an ACK with no credit, MSN 4 */
	ack_from_ref(&f, 3, 0x1fu << 24 | 4);

	/* a wrong ICRC */
	f.b[f.len - 1] ^= 1;
	dpv_engine_stats_get(eng, &s0);
	TEST_ASSERT_EQUAL(inject(&f), 0, "");
	dpv_engine_stats_get(eng, &s1);
	f.b[f.len - 1] ^= 1;
	TEST_ASSERT_EQUAL(DELTA(rx_drop_icrc), 1, "bad ICRC dropped");
	TEST_ASSERT_EQUAL(DELTA(rx_acks_fast), 0, "");
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_poll(&qa.scq, 1, &wc, lookup, NULL), 0,
			  "nothing completed by it");

	if (use_v6)
		return ack_fast6(&f);
	/* a bad IPv4 checksum (a field the ICRC does not cover) */
	{
		struct frame g = f;

		ipv4_forge(&g, false);
		dpv_engine_stats_get(eng, &s0);
		TEST_ASSERT_EQUAL(inject(&g), 0, "");
		dpv_engine_stats_get(eng, &s1);
		TEST_ASSERT_EQUAL(DELTA(rx_drop_parse), 1,
				  "bad IPv4 checksum dropped");
		TEST_ASSERT_EQUAL(DELTA(rx_acks_fast), 0, "");
		TEST_ASSERT_EQUAL(
			dpv_mlx5_cq_poll(&qa.scq, 1, &wc, lookup, NULL), 0,
			"nothing completed by it");
	}

	/* from another address, its checksums and ICRC right */
	{
		struct frame g = f;

		ipv4_forge(&g, true);
		TEST_ASSERT_EQUAL(expect_addr_drop(&g), TEST_SUCCESS, "");
	}

	/* made right: it completes the WRITE, by its deltas */
	dpv_engine_stats_get(eng, &s0);
	TEST_ASSERT_EQUAL(inject(&f), 0, "");
	dpv_engine_stats_get(eng, &s1);
	TEST_ASSERT_EQUAL(DELTA(rx_acks_fast), 1, "");
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_poll(&qa.scq, 1, &wc, lookup, NULL), 1,
			  "the forged ACK completes the WRITE");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "");
	TEST_ASSERT_EQUAL(wc.wr_id, 3, "");
	return TEST_SUCCESS;
}

/* Inject the request g to B and see what became of it: fast (taken as
 * B's reference's repeat), drop (rx_drop_* counter moved by one: off into
 * struct dpv_engine_stats, or B's rx_drop_addr if off is SIZE_MAX),
 * landed (its payload at B's buffer + 1024). */
static int
expect_req(const struct frame *g, uint64_t fast, size_t off, bool landed)
{
	struct dpv_engine_stats s0, s1;
	struct dpv_engine_qp_stats q0, q1;
	uint64_t n0, n1;

	memset(qb.buf + 1024, 0, 64);
	dpv_engine_stats_get(eng, &s0);
	dpv_engine_qp_stats_get(eng, QPN_B, &q0);
	TEST_ASSERT_EQUAL(inject(g), 0, "");
	dpv_engine_stats_get(eng, &s1);
	dpv_engine_qp_stats_get(eng, QPN_B, &q1);
	TEST_ASSERT_EQUAL(DELTA(rx_reqs_fast), fast, "");
	if (off != 0) {
		if (off == SIZE_MAX) {
			n0 = q0.rx_drop_addr;
			n1 = q1.rx_drop_addr;
		} else {
			memcpy(&n0, (const uint8_t *)&s0 + off, sizeof(n0));
			memcpy(&n1, (const uint8_t *)&s1 + off, sizeof(n1));
		}
		TEST_ASSERT_EQUAL(n1 - n0, 1, "dropped and counted");
	}
	if (landed)
		TEST_ASSERT(memcmp(qb.buf + 1024, payload, 64) == 0,
			    "the WRITE landed");
	else
		TEST_ASSERT(all_zero(qb.buf + 1024, 64), "nothing written");
	return TEST_SUCCESS;
}

/* B's next WRITE (PSN psn, paylen bytes of payload to B's buffer + 1024)
 * forged from B's reference r: its first bytes, lengths, IPv4 checksum
 * and ICRC made right */
static void
from_ref(struct frame *f, const struct dpv_erxreq *r, uint32_t psn,
	 uint32_t paylen)
{
	struct dpv_roce_pkt *p = &f->p;
	struct dpv_reth *reth;
	uint32_t w;

	memset(f, 0, sizeof(*f));
	memcpy(f->b, r->b, sizeof(r->b));
	p->l3_off = 14;
	p->l4_off = 14 + 20;
	p->bth_off = 14 + 20 + 8;
	p->payload_off = p->bth_off + 12 + 16;
	w = rte_cpu_to_be_32((uint32_t)DPV_BTH_ACKREQ << 24 | psn);
	memcpy(f->b + p->bth_off + 8, &w, 4);
	reth = (void *)(f->b + p->bth_off + 12);
	dpv_reth_set_va(reth, (uintptr_t)qb.buf + 1024);
	dpv_reth_set_rkey(reth, KEY_B);
	dpv_reth_set_len(reth, paylen);
	memcpy(f->b + p->payload_off, payload, paylen);
	refit(f, paylen);
}

/*
 * One-packet requests that repeat the last one B took (same length, same
 * bytes up to the BTH's PSN word) skip the parse (dpv_engine_rx_req_fast):
 * A's next WRITEs take that way. Forged ones that differ in those bytes
 * (but for the IPv4 identification, which A numbers, and the checksum)
 * go to the full parse, which drops them as before; one with a wrong ICRC
 * or IPv4 checksum is dropped and counted as such; one of another length
 * is parsed and becomes the reference; the forged WRITE made right lands,
 * by the fast way. IPv6 frames have no reference.
 */
static int
test_req_fast(void)
{
	struct dpv_engine_stats s0, s1;
	const struct dpv_erxreq *r;
	struct frame f;

	dpv_engine_stats_get(eng, &s0);
	TEST_ASSERT_EQUAL(three_writes(), TEST_SUCCESS, "");
	dpv_engine_stats_get(eng, &s1);
	r = &dpv_engine_qp_lookup(eng, QPN_B)->rx_req;
	if (use_v6) {
		TEST_ASSERT_EQUAL(DELTA(rx_reqs_fast), 0, "no IPv6 reference");
		TEST_ASSERT_EQUAL(r->len, 0, "");
		return TEST_SUCCESS;
	}
	TEST_ASSERT_EQUAL(DELTA(rx_reqs_fast), 2,
			  "the first WRITE parsed, the next two not");
	TEST_ASSERT_EQUAL(r->len, 14 + 20 + 8 + 12 + 16 + 64 + 4, "");

	/* B's next WRITE (PSN 3), forged from the reference */
	for (uint32_t i = 0; i < 64; i++)
		payload[i] = (uint8_t)(0xa0 + i);
	from_ref(&f, r, 3, 64);
	TEST_ASSERT_EQUAL(f.len, r->len, "");

	/* a wrong ICRC */
	f.b[f.len - 1] ^= 1;
	TEST_ASSERT_EQUAL(expect_req(&f, 0,
				     offsetof(struct dpv_engine_stats,
					      rx_drop_icrc),
				     false),
			  TEST_SUCCESS, "");
	f.b[f.len - 1] ^= 1;
	/* a bad IPv4 checksum, then another source address */
	for (int i = 0; i < 2; i++) {
		struct frame g = f;

		ipv4_forge(&g, i == 1);
		TEST_ASSERT_EQUAL(expect_req(&g, 0,
					     i == 1 ? SIZE_MAX
						    : offsetof(
							      struct dpv_engine_stats,
							      rx_drop_parse),
					     false),
				  TEST_SUCCESS, "");
	}
	/* another P_Key (in the BTH's first bytes), its ICRC right */
	{
		struct frame g = f;

		bth(&g)->pkey = rte_cpu_to_be_16(0x1234);
		dpv_roce_icrc_set(g.b + 14, g.len - 14);
		TEST_ASSERT_EQUAL(expect_req(&g, 0,
					     offsetof(struct dpv_engine_stats,
						      rx_drop_pkey),
					     false),
				  TEST_SUCCESS, "");
	}
	/* one more payload word: another length, parsed, and it lands (PSN
	 * 3); then the reference is that frame's, and the next (PSN 4) of
	 * that length takes the fast way */
	{
		struct frame g;
		uint16_t len0 = r->len;

		from_ref(&g, r, 3, 68);
		TEST_ASSERT_EQUAL(expect_req(&g, 0, 0, true), TEST_SUCCESS,
				  "");
		TEST_ASSERT_EQUAL(r->len, g.len, "the new reference");
		from_ref(&g, r, 4, 68);
		TEST_ASSERT_EQUAL(expect_req(&g, 1, 0, true), TEST_SUCCESS,
				  "");
		/* back at the first length: parsed (PSN 5), then the fast
		 * way (PSN 6) */
		from_ref(&f, r, 5, 64);
		TEST_ASSERT_EQUAL(f.len, len0, "");
		TEST_ASSERT_EQUAL(expect_req(&f, 0, 0, true), TEST_SUCCESS,
				  "");
		from_ref(&f, r, 6, 64);
		TEST_ASSERT_EQUAL(expect_req(&f, 1, 0, true), TEST_SUCCESS,
				  "");
	}
	/* a duplicate of it: by the fast way, answered as a duplicate (an
	 * ACK), not written again */
	TEST_ASSERT_EQUAL(expect_req(&f, 1, 0, false), TEST_SUCCESS, "");
	return TEST_SUCCESS;
}

/* The fields dpv_engine_parse() gives the frame in m that the fast way
 * gave it too (fast): every header field of a request, those of an ACK
 * (ack), its payload and network header, not its MACs and GIDs (the fast
 * ways read none). */
static int
same_as_parse(struct rte_mbuf *m, const struct dpv_epkt *fast, bool ack)
{
	struct dpv_epkt p;

	TEST_ASSERT_EQUAL(dpv_engine_parse(m, &p), DPV_ROCE_RX_OK,
			  "the full parse takes it");
#define SAME(x) TEST_ASSERT_EQUAL(fast->x, p.x, "decoded " #x)
	SAME(m);
	SAME(flags);
	SAME(pkey);
	SAME(opcode);
	SAME(se);
	SAME(ackreq);
	SAME(dqpn);
	SAME(psn);
	SAME(syndrome);
	SAME(msn);
	SAME(payload);
	SAME(paylen);
	SAME(ipv4);
	SAME(l3);
	SAME(udp_sport);
	if (ack)
		return TEST_SUCCESS;
	SAME(va);
	SAME(rkey);
	SAME(dmalen);
	SAME(swap_add);
	SAME(compare);
	SAME(orig);
	SAME(qkey);
	SAME(src_qp);
	SAME(imm_be);
	SAME(ieth_rkey);
	SAME(xrc_srqn);
	SAME(dc_key);
	SAME(dc_dci);
	SAME(dc_cpsn);
#undef SAME
	return TEST_SUCCESS;
}

/* f decoded by its fast way (an ACK to A, or a request to B) the way the
 * full parse decodes it; nothing is received */
static int
fast_same(const struct frame *f, bool ack)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	struct dpv_epkt fast;
	const struct dpv_eqp *qp;
	void *d;
	int ret;

	TEST_ASSERT(m != NULL, "");
	d = rte_pktmbuf_append(m, (uint16_t)f->len);
	if (d == NULL) {
		rte_pktmbuf_free(m);
		return TEST_FAILED;
	}
	memcpy(d, f->b, f->len);
	/* a field the fast way leaves unset shows */
	memset(&fast, 0xa5, sizeof(fast));
	qp = ack ? dpv_engine_rx_ack_fast(eng, m, &fast)
		 : dpv_engine_rx_req_fast(eng, m, &fast);
	if (qp == NULL || qp->qpn != (ack ? QPN_A : QPN_B)) {
		DPV_TEST_LOG("not taken by the fast way");
		ret = TEST_FAILED;
	} else {
		ret = same_as_parse(m, &fast, ack);
	}
	rte_pktmbuf_free(m);
	return ret;
}

/* f's IPv4 identification made id (its checksum and ICRC made right) */
static void
ipv4_number(struct frame *f, uint16_t id)
{
	struct rte_ipv4_hdr *ip = (void *)(f->b + 14);

	ip->packet_id = rte_cpu_to_be_16(id);
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	dpv_roce_icrc_set(f->b + 14, f->len - 14);
}

/*
 * What the fast ways decode (dpv_engine_rx_ack_fast and _req_fast) is
 * what the full parse decodes, field by field, for frames that differ
 * from their QP's reference where a frame may: an ACK's PSN, AckReq,
 * syndrome (credits, RNR NAK, NAK) and MSN; a WRITE's PSN, AckReq and
 * RETH; a SEND's (with a pad) PSN and payload; a request's IPv4
 * identification.
 */
static int
test_fast_decode(void)
{
	static const uint32_t aeths[] = {
		0x1fu << 24 | 4,	/* ACK, no credit */
		0x0au << 24 | 0xffffff, /* ACK, credits, MSN at its top */
		0x21u << 24,		/* RNR NAK */
		0x60u << 24 | 0x123456, /* NAK: PSN sequence error */
		0x63u << 24 | 7,	/* NAK: remote operation error */
	};
	struct ibv_sge sge = {
		.addr = (uintptr_t)qb.buf, .length = 256, .lkey = KEY_B};
	struct ibv_recv_wr rwr = {.sg_list = &sge, .num_sge = 1}, *rbad;
	const struct dpv_erxreq *r;
	struct dpv_reth *reth;
	struct frame f;
	uint32_t w;

	TEST_ASSERT_EQUAL(three_writes(), TEST_SUCCESS, "");
	for (uint32_t i = 0; i < RTE_DIM(aeths); i++) {
		/* PSNs at the top with AckReq 0, small ones with it */
		uint32_t psn = i & 1 ? 0xffffff
				     : (uint32_t)DPV_BTH_ACKREQ << 24 | i;

		ack_from_ref(&f, psn, aeths[i]);
		TEST_ASSERT_EQUAL(fast_same(&f, true), TEST_SUCCESS,
				  "ACK %u", i);
	}
	if (use_v6)
		return TEST_SUCCESS; /* no request reference */

	/* WRITEs from B's reference */
	r = &dpv_engine_qp_lookup(eng, QPN_B)->rx_req;
	TEST_ASSERT(r->len != 0, "");
	for (uint32_t i = 0; i < 64; i++)
		payload[i] = (uint8_t)(0x30 + i);
	from_ref(&f, r, 3, 64);
	TEST_ASSERT_EQUAL(fast_same(&f, false), TEST_SUCCESS, "");
	w = rte_cpu_to_be_32(0xffffff); /* AckReq 0 */
	memcpy(f.b + f.p.bth_off + 8, &w, 4);
	reth = (void *)(f.b + f.p.bth_off + 12);
	dpv_reth_set_va(reth, 0x0123456789abcdefull);
	dpv_reth_set_rkey(reth, 0xfedcba98);
	dpv_reth_set_len(reth, 0x7fffffff);
	dpv_roce_icrc_set(f.b + 14, f.len - 14);
	TEST_ASSERT_EQUAL(fast_same(&f, false), TEST_SUCCESS, "");
	ipv4_number(&f, 0xbeef);
	TEST_ASSERT_EQUAL(fast_same(&f, false), TEST_SUCCESS, "");

	/* a SEND of 61 bytes (3 of pad) received at PSN 3 is the reference,
	 * then SENDs like it */
	TEST_ASSERT_EQUAL(dpv_mlx5_post_recv(&qb.rq, &rwr, &rbad), 0, "");
	TEST_ASSERT_EQUAL(forge(&f, DPV_ROCE_OP_SEND_ONLY, 3, 61, 0, 0), 0,
			  "");
	TEST_ASSERT_EQUAL(inject(&f), 0, "");
	TEST_ASSERT_EQUAL(r->len, f.len, "the SEND is the reference");
	for (uint32_t i = 0; i < 64; i++)
		payload[i] = (uint8_t)(0x90 - i);
	TEST_ASSERT_EQUAL(forge(&f, DPV_ROCE_OP_SEND_ONLY, 0xabcdef, 61, 0, 0),
			  0, "");
	TEST_ASSERT_EQUAL(fast_same(&f, false), TEST_SUCCESS, "");
	ipv4_number(&f, 1);
	TEST_ASSERT_EQUAL(fast_same(&f, false), TEST_SUCCESS, "");
	return TEST_SUCCESS;
}

/* IBTA P_Key matching, the pure function. */
static int
test_pkey_match(void)
{
	TEST_ASSERT(dpv_roce_pkey_match(0xffff, 0xffff), "");
	TEST_ASSERT(dpv_roce_pkey_match(0x7fff, 0xffff), "limited, full");
	TEST_ASSERT(dpv_roce_pkey_match(0xffff, 0x7fff), "full, limited");
	TEST_ASSERT(!dpv_roce_pkey_match(0x7fff, 0x7fff), "both limited");
	TEST_ASSERT(dpv_roce_pkey_match(0x8001, 0x0001), "");
	TEST_ASSERT(!dpv_roce_pkey_match(0x8001, 0x8002), "other partition");
	TEST_ASSERT(!dpv_roce_pkey_match(0x8000, 0x8000), "invalid P_Key");
	TEST_ASSERT(!dpv_roce_pkey_match(0x0000, 0x8000), "invalid P_Key");
	return TEST_SUCCESS;
}

static const struct dpv_test_suite engine_hostile_suite = {
	.name = "engine_hostile",
	.setup = suite_setup,
	.teardown = suite_teardown,
	.cases =
		{
			TEST_CASE(test_pkey_match),
			TEST_CASE_ST(setup_rc, teardown, test_bad_headers),
			TEST_CASE_ST(setup_uc, teardown, test_bad_headers),
			TEST_CASE_ST(setup_rc, teardown, test_len),
			TEST_CASE_ST(setup_uc, teardown, test_len),
			TEST_CASE_ST(setup_rc, teardown, test_read_resp_len),
			TEST_CASE_ST(setup_rc, teardown, test_ack_fast),
			TEST_CASE_ST(setup_rc6, teardown, test_ack_fast),
			TEST_CASE_ST(setup_rc, teardown, test_req_fast),
			TEST_CASE_ST(setup_rc6, teardown, test_req_fast),
			TEST_CASE_ST(setup_rc, teardown, test_fast_decode),
			TEST_CASE_ST(setup_rc6, teardown, test_fast_decode),
			TEST_CASE_ST(setup_ud, teardown, test_ud_qkey),
			TEST_CASES_END(),
		},
};

static int
engine_hostile(void)
{
	return dpv_test_run_suite(&engine_hostile_suite);
}

DPV_TEST_REGISTER_FAST(engine_hostile, engine_hostile);
