/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer harness over the engine's whole receive path (issue 10):
 * parse, dispatch, responder and completer, with live RC, UC and UD QPs
 * and registered memory, under ASan and UBSan (devtools/fuzz.sh builds
 * it with clang and runs it; seeds: the rxe captures).
 *
 * Each input is one Ethernet frame after a control byte that says which
 * fields the harness makes right so that mutations reach past the first
 * checks: bit 0 the destination MAC and IPv4/IPv6 address (ours), bit 1
 * the IPv4 lengths and checksum and the UDP port and length, bit 2 the
 * BTH destination QP (one of ours, chosen by bits 4-7), bit 3 the ICRC.
 * The frame enters the engine's internal loopback wire; whatever the
 * engine answers (ACKs, NAKs, READ responses) loops back to its own QPs,
 * which are the "peer", so the completer runs on the answers too.
 *
 * Memory: each QP's registered buffer sits between PROT_NONE guard pages,
 * so a write or read outside a registered region faults (a crash for the
 * fuzzer), as ASan catches heap misuse. QPs that end in ERR are rebuilt.
 *
 * QP 1 (RC) receives from a tag matching SRQ (dpv_tm.h) whose list holds
 * tags 0..TM_TAGS-1 (mask ~0) over its buffer: its SENDs take the TMH
 * parse, EAGER placement and the RNDV's READ and FIN (with the QP
 * fix-up, its requests carry the PSN it expects and a rendezvous
 * header's buffer is made one in QP 0's region).
 */
#include <endian.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_ring.h>
#include <rte_udp.h>
#include <infiniband/tm_types.h>

#include "dpv_engine.h"
#include "dpv_roce.h"
#include "dpv_test.h"
#include "engine_int.h" /* white-box: the loopback wire */
#include "mlx5_ring.h"
#include "test_engine_util.h"

#define NQP	 5
#define QPN_BASE 0x21
#define BUF_SIZE (64 * 1024)
#define QKEY	 0x11111111u
#define IPV4	 0xc0000201u /* 192.0.2.1, ours */
#define RECV_LEN 4096
#define ROCE_PORT 4791
#define TM_QP	  1 /* the QP on the TM SRQ */
#define TM_SRQN	  7
#define TM_TAGS	  8

static const enum ibv_qp_type qp_type[NQP] = {
	IBV_QPT_RC, IBV_QPT_RC, IBV_QPT_UC, IBV_QPT_UC, IBV_QPT_UD};
static const uint8_t mac[6] = {0x02, 0, 0, 0, 0, 0x21};

static struct rte_mempool *mp;
static struct dpv_engine *eng;
static struct test_engine_qp qps[NQP];
static uint8_t *region[NQP]; /* guard | BUF_SIZE | guard */
static size_t page;
static struct dpv_mlx5_rq tm_srq;
static struct dpv_mlx5_cq tm_cq; /* its list operations' completions */

int
dpv_test_eal_init(void)
{
	static int state;
	/* the SIMD width the library gives EAL when it starts it: the
	 * ICRC of frames from 256 bytes then runs its 512-bit code where
	 * the CPU has AVX-512, as in production */
	char *argv[] = {"dpv-fuzz-rx",
			"--no-huge",
			"-m",
			"256",
			"--no-shconf",
			"--no-pci",
			"--no-telemetry",
			"--force-max-simd-bitwidth=512",
			"--log-level=*:crit",
			NULL};

	if (state == 0) {
		state = rte_eal_init((int)RTE_DIM(argv) - 1, argv) >= 0 ? 1
									: -1;
		if (state > 0)
			dpv_roce_icrc_select_best();
	}
	return state > 0 ? 0 : -1;
}

static struct dpv_mlx5_wq *
lookup(void *arg, uint32_t qpn, bool recv)
{
	(void)arg;
	if (qpn == (DPV_MLX5_LOOKUP_SRQ | TM_SRQN))
		return &tm_srq.wq;
	if (qpn < QPN_BASE || qpn >= QPN_BASE + NQP)
		return NULL;
	return recv ? &qps[qpn - QPN_BASE].rq.wq : &qps[qpn - QPN_BASE].sq.wq;
}

static uint32_t
key_of(unsigned i)
{
	return 0x200u + 0x100u * i; /* never 0x100 (MLX5_INVALID_LKEY) */
}

/* The TM SRQ's list topped up: every free handle gets tag handle %
 * TM_TAGS over the upper half of QP 1's buffer (a quarter of it each). */
static void
tm_fill(void)
{
	int64_t h;

	while ((h = dpv_tm_handle_get(tm_srq.tm)) >= 0) {
		struct dpv_tm_op op = {
			.opcode = IBV_WR_TAG_ADD,
			.handle = (uint32_t)h,
			.tag = (uint64_t)h % TM_TAGS,
			.mask = ~0ull,
			.num_sge = 1,
			.sge = {{.addr = (uintptr_t)region[TM_QP] + page +
					 BUF_SIZE / 2 + (h % 2) * BUF_SIZE / 4,
				 .length = BUF_SIZE / 4,
				 .lkey = key_of(TM_QP)}},
		};

		if (dpv_engine_tm_op(eng, tm_srq.tm, &tm_cq, TM_SRQN, &op) < 0)
			abort();
	}
}

/* Receive WQEs into QP i's registered buffer until its RQ (QP 1: the TM
 * SRQ, ordinary WQEs in the lower half) is full. */
static void
post_recvs(unsigned i)
{
	struct test_engine_qp *t = &qps[i];

	if (i == TM_QP)
		tm_fill();
	for (unsigned k = 0; k < 64; k++) {
		struct ibv_sge sge = {
			.addr = (uintptr_t)region[i] + page +
				(k % (BUF_SIZE / RECV_LEN)) * RECV_LEN,
			.length = RECV_LEN,
			.lkey = key_of(i)};
		struct ibv_recv_wr wr = {.wr_id = k, .sg_list = &sge,
					 .num_sge = 1},
				   *bad;

		if (i == TM_QP)
			sge.addr = (uintptr_t)region[i] + page +
				   (k % (BUF_SIZE / 2 / RECV_LEN)) * RECV_LEN;
		if (dpv_ring_post_recv(i == TM_QP ? &tm_srq : &t->rq, &wr,
				       &bad) != 0)
			break;
	}
}

static int
qp_build(unsigned i)
{
	struct test_engine_qp *t = &qps[i];
	uint32_t qpn = QPN_BASE + i;
	struct dpv_engine_qp_init in = {
		.qpn = qpn,
		.type = qp_type[i],
		.pdn = 1,
		.sq = &t->sq,
		.rq = i == TM_QP ? NULL : &t->rq,
		.srq = i == TM_QP ? &tm_srq : NULL,
		.srqn = i == TM_QP ? TM_SRQN : 0,
		.send_cq = &t->scq,
		.recv_cq = &t->rcq,
		.max_send_wr = 64,
	};
	struct dpv_engine_path path;
	struct test_engine_conn c = {
		.path = &path,
		.mtu = IBV_MTU_1024,
		.psn = 0,
		.timeout = 10,
		.rnr_retry = 7,
	};

	if (test_engine_qp_rings_init(t, qpn, qp_type[i], 64) != 0 ||
	    dpv_engine_qp_create(eng, &in) != 0)
		return -1;
	if (qp_type[i] == IBV_QPT_UD) {
		struct ibv_qp_attr a = {.qp_state = IBV_QPS_INIT,
					.qkey = QKEY};

		if (dpv_engine_qp_modify(eng, qpn, &a,
					 IBV_QP_STATE | IBV_QP_QKEY, NULL))
			return -1;
		a.qp_state = IBV_QPS_RTR;
		if (dpv_engine_qp_modify(eng, qpn, &a, IBV_QP_STATE, NULL))
			return -1;
		a.qp_state = IBV_QPS_RTS;
		if (dpv_engine_qp_modify(eng, qpn, &a, IBV_QP_STATE, NULL))
			return -1;
	} else {
		/* pairs: 0<->1 (RC), 2<->3 (UC) */
		c.dest_qpn = QPN_BASE + (i ^ 1);
		test_engine_loop_path(&path, mac, IPV4);
		if (test_engine_connect(eng, qpn, &c) != 0)
			return -1;
	}
	post_recvs(i);
	return 0;
}

/* The TM SRQ and its list, new (tags left taken by a rendezvous of a QP
 * that ended would never come back). */
static void
tm_build(void)
{
	if (dpv_mlx5_srq_init(&tm_srq, 64, 1, SOCKET_ID_ANY) != 0 ||
	    (tm_srq.tm = dpv_tm_create(2 * TM_TAGS)) == NULL)
		abort();
}

static void
tm_drop(void)
{
	dpv_tm_destroy(tm_srq.tm);
	tm_srq.tm = NULL;
	dpv_mlx5_rq_fini(&tm_srq);
}

static void
qp_drop(unsigned i)
{
	test_engine_qp_fini(eng, &qps[i]);
	if (i == TM_QP) {
		tm_drop();
		tm_build();
	}
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct dpv_engine_conf conf = {.max_keys = 256};

	(void)argc;
	(void)argv;
	page = (size_t)sysconf(_SC_PAGESIZE);
	if (test_engine_pool_setup(&mp, "fuzz_rx_mp") != 0)
		abort();
	conf.mp = mp;
	memcpy(conf.mac, mac, 6);
	dpv_roce_gid_from_ipv4(conf.gid, rte_cpu_to_be_32(IPV4));
	eng = dpv_engine_create(NULL, &conf);
	if (eng == NULL || dpv_mlx5_cq_init(&tm_cq, 256, SOCKET_ID_ANY) != 0)
		abort();
	tm_build();
	for (unsigned i = 0; i < NQP; i++) {
		struct dpv_engine_key k = {
			.length = BUF_SIZE,
			.access = IBV_ACCESS_LOCAL_WRITE |
				  IBV_ACCESS_REMOTE_WRITE |
				  IBV_ACCESS_REMOTE_READ |
				  IBV_ACCESS_REMOTE_ATOMIC,
			.pdn = 1,
		};

		region[i] = mmap(NULL, BUF_SIZE + 2 * page,
				 PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (region[i] == MAP_FAILED)
			abort();
		mprotect(region[i], page, PROT_NONE);
		mprotect(region[i] + page + BUF_SIZE, page, PROT_NONE);
		k.addr = k.iova = (uintptr_t)region[i] + page;
		if (dpv_engine_key_set(eng, key_of(i), &k) != 0 ||
		    qp_build(i) != 0)
			abort();
	}
	return 0;
}

/* A request to the TM QP: the PSN it expects (its messages reach the tag
 * matching then, not a sequence NAK); a SEND FIRST/ONLY that carries a
 * rendezvous header: its buffer made one of QP 0's, so that the engine's
 * READ finds it. */
static void
tm_fixup(uint8_t *bth, uint32_t len)
{
	struct dpv_eqp *qp = dpv_engine_qp_lookup(eng, QPN_BASE + TM_QP);
	uint8_t op = bth[0];
	uint64_t va;
	uint32_t rkey, n;

	if (qp != NULL) {
		bth[9] = (uint8_t)(qp->resp.epsn >> 16);
		bth[10] = (uint8_t)(qp->resp.epsn >> 8);
		bth[11] = (uint8_t)qp->resp.epsn;
	}
	if ((op != 0x00 && op != 0x04) || len < 12 + DPV_TM_RNDV_LEN ||
	    bth[12] != IBV_TMH_RNDV)
		return;
	memcpy(&va, bth + 12 + 16, 8);
	memcpy(&n, bth + 12 + 28, 4);
	va = (uintptr_t)region[0] + page + be64toh(va) % BUF_SIZE;
	n = be32toh(n) % (BUF_SIZE / 4);
	va = htobe64(va);
	rkey = htobe32(key_of(0));
	n = htobe32(n);
	memcpy(bth + 12 + 16, &va, 8);
	memcpy(bth + 12 + 24, &rkey, 4);
	memcpy(bth + 12 + 28, &n, 4);
}

/* Make the fields the control byte names right (see the top comment). */
static void
fixup(uint8_t ctl, uint8_t *f, uint32_t len)
{
	struct rte_ether_hdr *eh = (void *)f;
	uint16_t et;
	uint32_t l3 = sizeof(*eh), l4, bth;

	if (len < l3)
		return;
	if (ctl & 1)
		memcpy(&eh->dst_addr, mac, 6);
	et = rte_be_to_cpu_16(eh->ether_type);
	if (et == RTE_ETHER_TYPE_IPV4 && len >= l3 + 20) {
		struct rte_ipv4_hdr *ip = (void *)(f + l3);

		l4 = l3 + (uint32_t)(ip->version_ihl & 0xf) * 4;
		if (ctl & 1)
			ip->dst_addr = rte_cpu_to_be_32(IPV4);
		if (ctl & 2) {
			ip->total_length = rte_cpu_to_be_16(len - l3);
			ip->hdr_checksum = 0;
			if (l4 <= len)
				ip->hdr_checksum = rte_ipv4_cksum(ip);
		}
	} else if (et == RTE_ETHER_TYPE_IPV6 && len >= l3 + 40) {
		struct rte_ipv6_hdr *ip = (void *)(f + l3);
		uint8_t gid[16];

		l4 = l3 + 40;
		if (ctl & 1) {
			dpv_roce_gid_from_ipv4(gid, rte_cpu_to_be_32(IPV4));
			memcpy(ip->dst_addr, gid, 16);
		}
		if (ctl & 2)
			ip->payload_len = rte_cpu_to_be_16(len - l4);
	} else {
		return;
	}
	if (len < l4 + sizeof(struct rte_udp_hdr))
		return;
	if (ctl & 2) {
		struct rte_udp_hdr *u = (void *)(f + l4);

		u->dst_port = rte_cpu_to_be_16(ROCE_PORT);
		u->dgram_len = rte_cpu_to_be_16(len - l4);
		u->dgram_cksum = 0;
	}
	bth = l4 + sizeof(struct rte_udp_hdr);
	if ((ctl & 4) && len >= bth + 12) {
		uint32_t qpn = QPN_BASE + (ctl >> 4) % NQP;

		f[bth + 5] = (uint8_t)(qpn >> 16);
		f[bth + 6] = (uint8_t)(qpn >> 8);
		f[bth + 7] = (uint8_t)qpn;
		if (qpn == QPN_BASE + TM_QP)
			tm_fixup(f + bth, len - bth);
	}
	if ((ctl & 8) && len >= bth + 12 + DPV_ROCE_ICRC_LEN)
		dpv_roce_icrc_set(f + l3, len - l3);
}

/* Completions drained, receive queues refilled, QPs in ERR rebuilt. */
static void
tidy(void)
{
	struct ibv_wc wc[16];

	for (unsigned i = 0; i < NQP; i++) {
		struct test_engine_qp *t = &qps[i];
		int s;

		while (dpv_mlx5_cq_poll(&t->rcq, 16, wc, lookup, NULL) > 0)
			;
		while (dpv_mlx5_cq_poll(&t->scq, 16, wc, lookup, NULL) > 0)
			;
		while (i == TM_QP &&
		       dpv_mlx5_cq_poll(&tm_cq, 16, wc, lookup, NULL) > 0)
			;
		s = dpv_engine_qp_state(eng, t->qpn);
		if (s == IBV_QPS_ERR || s == IBV_QPS_SQE || s < 0) {
			qp_drop(i);
			if (qp_build(i) != 0)
				abort();
			continue;
		}
		post_recvs(i);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rte_mbuf *m;
	uint8_t *f;
	uint32_t len;

	if (size < 2 || size > 1 + 4200)
		return 0;
	len = (uint32_t)size - 1;
	m = rte_pktmbuf_alloc(mp);
	if (m == NULL)
		abort();
	f = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)len);
	if (f == NULL) {
		rte_pktmbuf_free(m);
		return 0;
	}
	memcpy(f, data + 1, len);
	fixup(data[0], f, len);
	if (rte_ring_enqueue(eng->loop, m) != 0) {
		rte_pktmbuf_free(m);
		return 0;
	}
	/* the frame, then the answers it caused, a few rounds deep */
	for (int k = 0; k < 8; k++)
		if (dpv_engine_poll(eng, 0) == 0 && rte_ring_empty(eng->loop))
			break;
	tidy();
	return 0;
}
