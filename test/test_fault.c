/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The fault layer (lib/port, dpv_port_fault.h): its text syntax, the
 * configuration file key and DPV_FAULT, and what it does to frames between
 * two devices on crossed ring ports: drop, duplicate, corrupt, reorder,
 * delay, per direction, with QP and opcode filters, deterministic per seed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_mbuf.h>

#include "dpv_port.h"
#include "dpv_port_fault.h"
#include "dpv_roce_gid.h"
#include "dpv_roce_pkt.h"
#include "dpv_test.h"
#include "test_fault_util.h"
#include "test_port_util.h"

#define PAYLOAD 256
#define MAX_FR	512

/* ---------------------------------------------------------- syntax */

static int
parse_ok(const char *spec, struct dpv_fault_conf *c)
{
	char err[256] = "";

	dpv_fault_conf_init(c);
	if (dpv_fault_parse(spec, c, err, sizeof(err)) != 0) {
		DPV_TEST_LOG("'%s': %s", spec, err);
		return -1;
	}
	return 0;
}

/* parse(format(c)) gives c back */
static int
round_trip(const struct dpv_fault_conf *c)
{
	struct dpv_fault_conf back;
	char text[1024];
	int n = dpv_fault_format(c, text, sizeof(text));

	if (n <= 0 || n >= (int)sizeof(text) || parse_ok(text, &back) != 0)
		return -1;
	if (memcmp(&back, c, sizeof(back)) != 0) {
		DPV_TEST_LOG("'%s' reads back differently", text);
		return -1;
	}
	return 0;
}

static int
test_fault_syntax(void)
{
	struct dpv_fault_conf c, keep;
	char err[256], text[512];

	TEST_ASSERT_EQUAL(parse_ok("tx:drop=0.01,reorder=0.05/8,dup=0.01;"
				   "rx:corrupt=0.001;seed=7",
				   &c),
			  0, "");
	TEST_ASSERT(c.dir[DPV_FAULT_TX].drop == 0.01, "");
	TEST_ASSERT(c.dir[DPV_FAULT_TX].reorder == 0.05, "");
	TEST_ASSERT_EQUAL(c.dir[DPV_FAULT_TX].window, 8, "");
	TEST_ASSERT(c.dir[DPV_FAULT_TX].dup == 0.01, "");
	TEST_ASSERT(c.dir[DPV_FAULT_TX].corrupt == 0, "");
	TEST_ASSERT(c.dir[DPV_FAULT_RX].corrupt == 0.001, "");
	TEST_ASSERT(c.dir[DPV_FAULT_RX].drop == 0, "");
	TEST_ASSERT_EQUAL(c.seed, 7, "");
	TEST_ASSERT(dpv_fault_conf_active(&c), "");
	TEST_ASSERT_EQUAL(round_trip(&c), 0, "");

	/* percentages, all:, blanks between clauses, defaults */
	TEST_ASSERT_EQUAL(parse_ok("all:drop=1%,delay=2%  hold_us=50", &c), 0,
			  "");
	for (int d = 0; d < DPV_FAULT_NDIR; d++) {
		TEST_ASSERT(c.dir[d].drop == 0.01, "");
		TEST_ASSERT(c.dir[d].delay == 0.02, "");
		TEST_ASSERT_EQUAL(c.dir[d].delay_us, DPV_FAULT_DEF_DELAY_US,
				  "");
		TEST_ASSERT_EQUAL(c.dir[d].window, DPV_FAULT_DEF_WINDOW, "");
	}
	TEST_ASSERT_EQUAL(c.hold_us, 50, "");
	TEST_ASSERT_EQUAL(c.seed, 1, "default seed");
	TEST_ASSERT_EQUAL(round_trip(&c), 0, "");

	/* filters: per direction and global, groups, names, numbers */
	TEST_ASSERT_EQUAL(
		parse_ok("tx:drop=1,qp=0x12+19,op=read_resp+rc_acknowledge+"
			 "0x81;rx:dup=0.5,delay=0.1/250",
			 &c),
		0, "");
	TEST_ASSERT_EQUAL(c.dir[DPV_FAULT_TX].n_qps, 2, "");
	TEST_ASSERT_EQUAL(c.dir[DPV_FAULT_TX].qps[0], 0x12, "");
	TEST_ASSERT_EQUAL(c.dir[DPV_FAULT_TX].qps[1], 19, "");
	TEST_ASSERT(c.dir[DPV_FAULT_TX].op_filter, "");
	TEST_ASSERT(c.dir[DPV_FAULT_TX].ops[0x10 / 8] & (1 << (0x10 % 8)),
		    "RC_RDMA_READ_RESPONSE_ONLY");
	TEST_ASSERT(c.dir[DPV_FAULT_TX].ops[0x11 / 8] & (1 << (0x11 % 8)),
		    "RC ACK by name");
	TEST_ASSERT(c.dir[DPV_FAULT_TX].ops[0x81 / 8] & (1 << 1), "number");
	TEST_ASSERT(!(c.dir[DPV_FAULT_TX].ops[0] & 1), "SEND_FIRST not in");
	TEST_ASSERT_EQUAL(c.dir[DPV_FAULT_RX].n_qps, 0, "tx only");
	TEST_ASSERT(!c.dir[DPV_FAULT_RX].op_filter, "tx only");
	TEST_ASSERT_EQUAL(c.dir[DPV_FAULT_RX].delay_us, 250, "");
	TEST_ASSERT_EQUAL(round_trip(&c), 0, "");
	TEST_ASSERT_EQUAL(parse_ok("op=atomic;qp=5;all:reorder=0.2/3", &c), 0,
			  "");
	TEST_ASSERT(c.dir[DPV_FAULT_RX].op_filter &&
			    c.dir[DPV_FAULT_TX].op_filter,
		    "global filters: both");
	TEST_ASSERT_EQUAL(c.dir[DPV_FAULT_RX].qps[0], 5, "");
	TEST_ASSERT_EQUAL(round_trip(&c), 0, "");

	/* "off", and rates on top of an existing configuration */
	TEST_ASSERT_EQUAL(parse_ok("tx:drop=0.5", &c), 0, "");
	TEST_ASSERT_EQUAL(dpv_fault_parse("rx:dup=0.25", &c, err, sizeof(err)),
			  0, "");
	TEST_ASSERT(c.dir[DPV_FAULT_TX].drop == 0.5 &&
			    c.dir[DPV_FAULT_RX].dup == 0.25,
		    "second string adds");
	TEST_ASSERT_EQUAL(dpv_fault_parse("off", &c, err, sizeof(err)), 0, "");
	TEST_ASSERT(!dpv_fault_conf_active(&c), "");
	TEST_ASSERT(dpv_fault_format(&c, text, sizeof(text)) == 3 &&
			    strcmp(text, "off") == 0,
		    "%s", text);

	/* errors: each leaves the configuration as it was */
	static const char *const bad[] = {
		"drop=0.1",		/* no direction */
		"tx:drop=1.5",		/* above 1 */
		"tx:drop=-0.1",		/* negative */
		"tx:drop=150%",		/* above 100 % */
		"tx:drop=abc",		/* not a number */
		"tx:drop=nan",		/* not a number */
		"tx:drop",		/* no value */
		"tx:",			/* nothing */
		"tx:drop=0.1,",		/* empty element */
		"up:drop=0.1",		/* unknown direction */
		"tx:lose=0.1",		/* unknown fault */
		"tx:reorder=0.1/0",	/* window 0 */
		"tx:reorder=0.1/65",	/* window too large */
		"tx:delay=0.1/0",	/* no delay */
		"tx:delay=0.1/2000000", /* too long */
		"tx:drop=0.1/3",	/* drop takes no argument */
		"seed=x",		/* bad seed */
		"hold_us=0",		/* out of range */
		"qp=0x1000000",		/* beyond 24 bits */
		"qp=1+",		/* empty element */
		"qp=1+2+3+4+5+6+7+8+9+10+11+12+13+14+15+16+17", /* > 16 */
		"op=nosuchop", /* unknown opcode */
		"op=256",      /* beyond 8 bits */
		"colour=red",  /* unknown setting */
	};
	for (unsigned i = 0; i < RTE_DIM(bad); i++) {
		TEST_ASSERT_EQUAL(parse_ok("tx:dup=0.5", &c), 0, "");
		keep = c;
		err[0] = '\0';
		TEST_ASSERT_EQUAL(dpv_fault_parse(bad[i], &c, err, sizeof(err)),
				  -EINVAL, "'%s' accepted", bad[i]);
		TEST_ASSERT(err[0] != '\0', "'%s': no message", bad[i]);
		TEST_ASSERT(memcmp(&c, &keep, sizeof(c)) == 0,
			    "'%s' changed the configuration", bad[i]);
	}
	TEST_ASSERT_EQUAL(dpv_fault_parse(NULL, &c, NULL, 0), -EINVAL, "");
	TEST_ASSERT_EQUAL(dpv_fault_parse("off", NULL, NULL, 0), -EINVAL, "");
	TEST_ASSERT_EQUAL(dpv_fault_format(NULL, text, sizeof(text)), -EINVAL,
			  "");
	/* truncation is reported as snprintf does */
	TEST_ASSERT_EQUAL(parse_ok("tx:drop=0.5", &c), 0, "");
	TEST_ASSERT(dpv_fault_format(&c, text, 4) > 4 && strlen(text) == 3, "");
	return TEST_SUCCESS;
}

/* The configuration file key and DPV_FAULT. */
static int
test_fault_config(void)
{
	struct dpv_config cfg;
	char path[64], err[512];
	int rc;

	TEST_ASSERT_EQUAL(test_port_write_tmp(path, sizeof(path),
					      "/tmp/dpv-fault-conf-",
					      "[dpv0]\n"
					      "fault = tx:drop=0.01 seed=9\n"
					      "fault = rx:reorder=5%/4\n"
					      "[dpv1]\n"
					      "port = loopback\n"),
			  0, "");
	dpv_config_init(&cfg);
	rc = dpv_config_load_file(&cfg, path, err, sizeof(err));
	unlink(path);
	TEST_ASSERT_EQUAL(rc, 0, "%s", err);
	TEST_ASSERT(cfg.port[0].fault.dir[DPV_FAULT_TX].drop == 0.01, "");
	TEST_ASSERT(cfg.port[0].fault.dir[DPV_FAULT_RX].reorder == 0.05,
		    "lines add up");
	TEST_ASSERT_EQUAL(cfg.port[0].fault.dir[DPV_FAULT_RX].window, 4, "");
	TEST_ASSERT_EQUAL(cfg.port[0].fault.seed, 9, "");
	TEST_ASSERT(!dpv_fault_conf_active(&cfg.port[1].fault), "per device");

	/* DPV_FAULT replaces every device's settings */
	TEST_ASSERT_EQUAL(
		dpv_config_apply_fault(&cfg, "all:dup=0.5", err, sizeof(err)),
		0, "%s", err);
	for (int i = 0; i < 2; i++) {
		TEST_ASSERT(cfg.port[i].fault.dir[DPV_FAULT_TX].dup == 0.5, "");
		TEST_ASSERT(cfg.port[i].fault.dir[DPV_FAULT_TX].drop == 0,
			    "replaced, not added");
	}
	TEST_ASSERT_EQUAL(dpv_config_apply_fault(&cfg, NULL, err, sizeof(err)),
			  0, "unset: nothing");
	TEST_ASSERT(cfg.port[0].fault.dir[DPV_FAULT_TX].dup == 0.5, "");
	err[0] = '\0';
	TEST_ASSERT_EQUAL(
		dpv_config_apply_fault(&cfg, "tx:drop=2", err, sizeof(err)),
		-EINVAL, "");
	TEST_ASSERT(strstr(err, "DPV_FAULT") != NULL, "%s", err);
	TEST_ASSERT(cfg.port[0].fault.dir[DPV_FAULT_TX].dup == 0.5,
		    "unchanged on error");

	/* a bad value in the file names file, section, key and value */
	TEST_ASSERT_EQUAL(test_port_write_tmp(path, sizeof(path),
					      "/tmp/dpv-fault-conf-",
					      "[dpv0]\nfault = tx:drop=7\n"),
			  0, "");
	dpv_config_init(&cfg);
	err[0] = '\0';
	rc = dpv_config_load_file(&cfg, path, err, sizeof(err));
	unlink(path);
	TEST_ASSERT_EQUAL(rc, -EINVAL, "");
	TEST_ASSERT(strstr(err, "[dpv0] fault = tx:drop=7") != NULL, "%s", err);
	return TEST_SUCCESS;
}

static const struct dpv_test_suite fault_conf_suite = {
	.name = "fault_conf",
	.cases =
		{
			TEST_CASE(test_fault_syntax),
			TEST_CASE(test_fault_config),
			TEST_CASES_END(),
		},
};

static int
fault_conf(void)
{
	return dpv_test_run_suite(&fault_conf_suite);
}

DPV_TEST_REGISTER_FAST(fault_conf, fault_conf);

/* ---------------------------------------------------------- frames */

static struct test_fault_pair pair;

static int
pair_setup(void)
{
	if (dpv_test_eal_init() != 0)
		return TEST_SKIPPED;
	return test_fault_pair_create(&pair, 0) == 0 ? 0 : TEST_FAILED;
}

static void
pair_teardown(void)
{
	test_fault_pair_destroy(&pair);
}

/* A RoCEv2 frame from device 0 to device 1: opcode, QP, PSN; payload
 * bytes derived from the PSN. */
static struct rte_mbuf *
roce_frame(uint8_t opcode, uint32_t dqpn, uint32_t psn)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(dpv_port_mempool(pair.port[0]));
	uint8_t payload[PAYLOAD];
	struct dpv_roce_pkt pk;
	int len;

	if (m == NULL)
		return NULL;
	for (unsigned i = 0; i < sizeof(payload); i++)
		payload[i] = (uint8_t)(psn * 7 + i);
	memset(&pk, 0, sizeof(pk));
	memcpy(pk.smac, pair.mac[0], 6);
	memcpy(pk.dmac, pair.mac[1], 6);
	dpv_roce_gid_from_ipv4(pk.sgid, rte_cpu_to_be_32(pair.ip[0]));
	dpv_roce_gid_from_ipv4(pk.dgid, rte_cpu_to_be_32(pair.ip[1]));
	pk.ttl = 64;
	pk.ip_frag = DPV_ROCE_IPV4_DF;
	pk.sport = 0xc000;
	pk.opcode = opcode;
	pk.pkey = 0xffff;
	pk.dqpn = dqpn;
	pk.psn = psn;
	if (dpv_roce_opcode(opcode)->mask & DPV_OPF_PAYLOAD) {
		pk.payload = payload;
		pk.payload_len = PAYLOAD;
	}
	len = dpv_roce_build(rte_pktmbuf_mtod(m, void *),
			     rte_pktmbuf_tailroom(m), &pk);
	if (len <= 0 || rte_pktmbuf_append(m, (uint16_t)len) == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	return m;
}

static struct rte_mbuf *
arp_frame(void)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(dpv_port_mempool(pair.port[0]));
	struct rte_ether_hdr *eh;

	if (m == NULL)
		return NULL;
	eh = (struct rte_ether_hdr *)rte_pktmbuf_append(m, 60);
	if (eh == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	memset(eh, 0, 60);
	memset(eh->dst_addr.addr_bytes, 0xff, 6);
	memcpy(eh->src_addr.addr_bytes, pair.mac[0], 6);
	eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_ARP);
	return m;
}

/* Send frames one per dpv_port_tx() call on device 0 (all must be taken). */
static int
send_frames(uint8_t opcode, uint32_t dqpn, uint32_t first, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		struct rte_mbuf *m = roce_frame(opcode, dqpn, first + i);

		if (m == NULL)
			return -1;
		if (dpv_port_tx(pair.port[0], 0, &m, 1) != 1) {
			rte_pktmbuf_free(m);
			return -1;
		}
	}
	return 0;
}

/* What device 1 received: parse status and PSN of each frame. */
struct rcvd {
	unsigned n;
	uint32_t psn[MAX_FR];
	enum dpv_roce_rx_status st[MAX_FR];
	uint8_t opcode[MAX_FR];
	uint32_t bitdiff[MAX_FR]; /* bits differing from the frame sent */
};

static unsigned
popcount8(uint8_t x)
{
	return (unsigned)__builtin_popcount(x);
}

/* Receive on device 1 for ms milliseconds (keeping device 0 polled, as
 * an engine does: its held TX frames leave from its RX calls). */
static void
receive_for(struct rcvd *r, unsigned ms)
{
	uint64_t end = rte_get_timer_cycles() + rte_get_timer_hz() * ms / 1000;
	struct rte_mbuf *pkts[32];

	memset(r, 0, sizeof(*r));
	while (rte_get_timer_cycles() < end) {
		uint16_t n = dpv_port_rx(pair.port[1], 0, pkts, 32);

		dpv_port_rx(pair.port[0], 0, NULL, 0);
		for (uint16_t i = 0; i < n; i++) {
			struct dpv_roce_pkt pk;
			const uint8_t *d =
				rte_pktmbuf_mtod(pkts[i], const uint8_t *);
			enum dpv_roce_rx_status st =
				dpv_roce_parse(d, pkts[i]->data_len, 0, &pk);

			if (r->n < MAX_FR &&
			    (st == DPV_ROCE_RX_OK || st == DPV_ROCE_RX_ICRC)) {
				struct rte_mbuf *orig =
					roce_frame(pk.opcode, pk.dqpn, pk.psn);
				uint32_t bits = 0;

				/* a flipped PSN bit makes this compare against
				 * another PSN's frame: still more than 1 bit */
				for (uint32_t k = 0;
				     orig != NULL && k < pkts[i]->data_len &&
				     k < orig->data_len;
				     k++)
					bits += popcount8(
						d[k] ^
						rte_pktmbuf_mtod(orig,
								 uint8_t *)[k]);
				rte_pktmbuf_free(orig);
				r->psn[r->n] = pk.psn;
				r->st[r->n] = st;
				r->opcode[r->n] = pk.opcode;
				r->bitdiff[r->n] = bits;
				r->n++;
			} else if (r->n < MAX_FR) {
				r->psn[r->n] = UINT32_MAX; /* not RoCE */
				r->st[r->n] = st;
				r->n++;
			}
			rte_pktmbuf_free(pkts[i]);
		}
	}
}

static int
set_fault(struct dpv_port *p, const char *spec)
{
	struct dpv_fault_conf c;

	if (parse_ok(spec, &c) != 0)
		return -1;
	return dpv_port_fault_set(p, &c);
}

static struct dpv_fault_stats
stats(struct dpv_port *p)
{
	struct dpv_fault_stats st;

	memset(&st, 0, sizeof(st));
	dpv_port_fault_stats_get(p, &st);
	return st;
}

/* Off by default: frames pass byte for byte, nothing counted. */
static int
test_fault_off(void)
{
	struct dpv_fault_conf c;
	struct dpv_fault_stats st = stats(pair.port[0]);
	struct rcvd r;

	TEST_ASSERT_EQUAL(dpv_port_fault_get(pair.port[0], &c), 0, "");
	TEST_ASSERT(!dpv_fault_conf_active(&c), "off by default");
	TEST_ASSERT_EQUAL(st.tx_drop + st.rx_drop + st.hold_full, 0, "");
	TEST_ASSERT_EQUAL(send_frames(DPV_ROCE_OP_SEND_ONLY, 0x12, 100, 50), 0,
			  "");
	receive_for(&r, 20);
	TEST_ASSERT_EQUAL(r.n, 50, "all arrive");
	for (unsigned i = 0; i < r.n; i++) {
		TEST_ASSERT_EQUAL(r.psn[i], 100 + i, "in order");
		TEST_ASSERT_EQUAL(r.st[i], DPV_ROCE_RX_OK, "");
		TEST_ASSERT_EQUAL(r.bitdiff[i], 0, "unchanged");
	}
	/* argument checks */
	c.dir[0].drop = 2;
	TEST_ASSERT_EQUAL(dpv_port_fault_set(pair.port[0], &c), -EINVAL, "");
	TEST_ASSERT_EQUAL(dpv_port_fault_set(NULL, NULL), -EINVAL, "");
	TEST_ASSERT_EQUAL(dpv_port_fault_get(NULL, &c), -EINVAL, "");
	TEST_ASSERT_EQUAL(dpv_port_fault_stats_get(pair.port[0], NULL), -EINVAL,
			  "");
	TEST_ASSERT_EQUAL(dpv_port_fault_set(pair.port[0], NULL), 0,
			  "off while off");
	return TEST_SUCCESS;
}

/* Which of 200 PSNs survive tx:drop=0.5 with a seed. */
static int
survivors(const char *spec, uint8_t alive[200])
{
	struct rcvd r;

	if (set_fault(pair.port[0], spec) != 0 ||
	    send_frames(DPV_ROCE_OP_SEND_ONLY, 0x12, 0, 200) != 0)
		return -1;
	receive_for(&r, 20);
	memset(alive, 0, 200);
	for (unsigned i = 0; i < r.n; i++)
		if (r.psn[i] < 200)
			alive[r.psn[i]] = 1;
	return (int)r.n;
}

static int
test_fault_drop(void)
{
	uint8_t a[200], b[200], c[200];
	uint64_t drop0 = stats(pair.port[0]).tx_drop;
	struct dpv_fault_stats st;
	struct rcvd r;
	int na, nb, nc;

	TEST_ASSERT_EQUAL(set_fault(pair.port[0], "tx:drop=1"), 0, "");
	TEST_ASSERT_EQUAL(send_frames(DPV_ROCE_OP_SEND_ONLY, 0x12, 0, 40), 0,
			  "");
	/* other frames than RoCE pass: ARP */
	{
		struct rte_mbuf *m = arp_frame();

		TEST_ASSERT_EQUAL(dpv_port_tx(pair.port[0], 0, &m, 1), 1, "");
	}
	receive_for(&r, 20);
	TEST_ASSERT_EQUAL(r.n, 1, "only the ARP frame");
	TEST_ASSERT_EQUAL(r.psn[0], UINT32_MAX, "");
	st = stats(pair.port[0]);
	TEST_ASSERT_EQUAL(st.tx_drop - drop0, 40, "");

	/* deterministic per seed, about half */
	na = survivors("tx:drop=0.5;seed=42", a);
	nb = survivors("tx:drop=0.5;seed=42", b);
	nc = survivors("tx:drop=0.5;seed=43", c);
	TEST_ASSERT(na > 60 && na < 140, "%d of 200 survive", na);
	TEST_ASSERT_EQUAL(na, nb, "same seed");
	TEST_ASSERT(memcmp(a, b, 200) == 0, "same seed, same frames");
	TEST_ASSERT(memcmp(a, c, 200) != 0, "another seed, other frames");
	TEST_ASSERT(nc > 60 && nc < 140, "%d", nc);

	/* off again: everything passes */
	TEST_ASSERT_EQUAL(dpv_port_fault_set(pair.port[0], NULL), 0, "");
	TEST_ASSERT_EQUAL(send_frames(DPV_ROCE_OP_SEND_ONLY, 0x12, 0, 30), 0,
			  "");
	receive_for(&r, 20);
	TEST_ASSERT_EQUAL(r.n, 30, "");
	return TEST_SUCCESS;
}

/* rx:drop on the receiving device. */
static int
test_fault_rx_drop(void)
{
	uint64_t tx0 = stats(pair.port[0]).tx_drop;
	uint64_t rx0 = stats(pair.port[1]).rx_drop;
	struct rcvd r;

	TEST_ASSERT_EQUAL(set_fault(pair.port[1], "rx:drop=1"), 0, "");
	TEST_ASSERT_EQUAL(send_frames(DPV_ROCE_OP_SEND_ONLY, 0x12, 0, 25), 0,
			  "");
	receive_for(&r, 20);
	TEST_ASSERT_EQUAL(r.n, 0, "");
	TEST_ASSERT_EQUAL(stats(pair.port[1]).rx_drop - rx0, 25, "");
	TEST_ASSERT_EQUAL(stats(pair.port[0]).tx_drop, tx0, "");
	TEST_ASSERT_EQUAL(set_fault(pair.port[1], "tx:drop=1"), 0,
			  "a TX fault on the receiver");
	TEST_ASSERT_EQUAL(send_frames(DPV_ROCE_OP_SEND_ONLY, 0x12, 0, 25), 0,
			  "");
	receive_for(&r, 20);
	TEST_ASSERT_EQUAL(r.n, 25, "does not touch what it receives");
	return TEST_SUCCESS;
}

static int
test_fault_dup(void)
{
	uint64_t dup0 = stats(pair.port[0]).tx_dup;
	struct rcvd r;

	TEST_ASSERT_EQUAL(set_fault(pair.port[0], "tx:dup=1"), 0, "");
	TEST_ASSERT_EQUAL(send_frames(DPV_ROCE_OP_WRITE_ONLY, 0x12, 10, 20), 0,
			  "");
	receive_for(&r, 20);
	TEST_ASSERT_EQUAL(r.n, 40, "each twice");
	for (unsigned i = 0; i < r.n; i++) {
		TEST_ASSERT_EQUAL(r.psn[i], 10 + i / 2, "copy right after");
		TEST_ASSERT_EQUAL(r.bitdiff[i], 0, "identical bytes");
		TEST_ASSERT_EQUAL(r.st[i], DPV_ROCE_RX_OK, "");
	}
	TEST_ASSERT_EQUAL(stats(pair.port[0]).tx_dup - dup0, 20, "");
	return TEST_SUCCESS;
}

static int
test_fault_corrupt(void)
{
	uint64_t c0 = stats(pair.port[0]).tx_corrupt;
	struct rcvd r;

	TEST_ASSERT_EQUAL(set_fault(pair.port[0], "tx:corrupt=1;seed=3"), 0,
			  "");
	/* with and without payload: the ICRC catches every flip */
	TEST_ASSERT_EQUAL(send_frames(DPV_ROCE_OP_SEND_ONLY, 0x12, 0, 60), 0,
			  "");
	TEST_ASSERT_EQUAL(send_frames(DPV_ROCE_OP_ACK, 0x12, 60, 60), 0, "");
	receive_for(&r, 20);
	TEST_ASSERT_EQUAL(r.n, 120, "corrupt frames still arrive");
	for (unsigned i = 0; i < r.n; i++) {
		TEST_ASSERT_EQUAL(r.st[i], DPV_ROCE_RX_ICRC,
				  "frame %u: the ICRC check fails", i);
		TEST_ASSERT(r.bitdiff[i] >= 1, "frame %u: a bit flipped", i);
	}
	TEST_ASSERT_EQUAL(stats(pair.port[0]).tx_corrupt - c0, 120, "");
	return TEST_SUCCESS;
}

/* Frames arrive all, each overtaken by W frames that passed it at most
 * (and by later held frames that left before it). */
static int
test_fault_reorder(void)
{
	uint64_t r0 = stats(pair.port[0]).tx_reorder;
	struct dpv_fault_stats st;
	unsigned moved = 0;
	struct rcvd r;

	TEST_ASSERT_EQUAL(set_fault(pair.port[0], "tx:reorder=0.3/4;seed=5"), 0,
			  "");
	TEST_ASSERT_EQUAL(send_frames(DPV_ROCE_OP_SEND_ONLY, 0x12, 0, 300), 0,
			  "");
	receive_for(&r, 30);
	TEST_ASSERT_EQUAL(r.n, 300, "none lost");
	for (unsigned i = 0; i < r.n; i++) {
		unsigned later = 0;

		for (unsigned j = 0; j < i; j++)
			later += r.psn[j] > r.psn[i];
		TEST_ASSERT(later <= 8, "PSN %u overtaken by %u", r.psn[i],
			    later);
		moved += later > 0;
	}
	for (uint32_t p = 0; p < 300; p++) {
		unsigned seen = 0;

		for (unsigned i = 0; i < r.n; i++)
			seen += r.psn[i] == p;
		TEST_ASSERT_EQUAL(seen, 1, "PSN %u exactly once", p);
	}
	st = stats(pair.port[0]);
	st.tx_reorder -= r0;
	TEST_ASSERT(st.tx_reorder > 50 && st.tx_reorder < 130, "%" PRIu64,
		    st.tx_reorder);
	TEST_ASSERT(moved >= st.tx_reorder / 2, "%u frames reordered", moved);

	/* fewer frames than the window: released after hold_us anyway */
	TEST_ASSERT_EQUAL(
		set_fault(pair.port[0], "tx:reorder=1/64;hold_us=2000"), 0, "");
	TEST_ASSERT_EQUAL(send_frames(DPV_ROCE_OP_SEND_ONLY, 0x12, 0, 3), 0,
			  "");
	receive_for(&r, 1);
	TEST_ASSERT_EQUAL(r.n, 0, "held");
	receive_for(&r, 30);
	TEST_ASSERT_EQUAL(r.n, 3, "released by time");
	return TEST_SUCCESS;
}

static int
test_fault_delay(void)
{
	uint64_t t0, hz = rte_get_timer_hz();
	uint64_t d0 = stats(pair.port[1]).rx_delay;
	struct rte_mbuf *pkts[8];
	struct rcvd r;
	uint16_t n = 0;

	TEST_ASSERT_EQUAL(set_fault(pair.port[1], "rx:delay=1/5000"), 0, "");
	t0 = rte_get_timer_cycles();
	TEST_ASSERT_EQUAL(send_frames(DPV_ROCE_OP_SEND_ONLY, 0x12, 0, 1), 0,
			  "");
	while (n == 0 && rte_get_timer_cycles() - t0 < 2 * hz)
		n = dpv_port_rx(pair.port[1], 0, pkts, 8);
	TEST_ASSERT_EQUAL(n, 1, "delivered");
	rte_pktmbuf_free(pkts[0]);
	TEST_ASSERT(rte_get_timer_cycles() - t0 >= hz * 5 / 1000,
		    "not before 5 ms");
	TEST_ASSERT_EQUAL(stats(pair.port[1]).rx_delay - d0, 1, "");
	/* turned off with a frame held: it still arrives */
	TEST_ASSERT_EQUAL(send_frames(DPV_ROCE_OP_SEND_ONLY, 0x12, 1, 1), 0,
			  "");
	dpv_port_rx(pair.port[1], 0, pkts, 0);
	n = dpv_port_rx(pair.port[1], 0, pkts, 8);
	TEST_ASSERT_EQUAL(n, 0, "held");
	TEST_ASSERT_EQUAL(dpv_port_fault_set(pair.port[1], NULL), 0, "");
	receive_for(&r, 30);
	TEST_ASSERT_EQUAL(r.n, 1, "the held frame left when due");
	TEST_ASSERT_EQUAL(r.psn[0], 1, "");
	return TEST_SUCCESS;
}

/* Only the chosen QPs and opcodes. */
static int
test_fault_filter(void)
{
	struct rcvd r;

	TEST_ASSERT_EQUAL(set_fault(pair.port[0], "tx:drop=1,qp=0x12+0x14"), 0,
			  "");
	for (uint32_t q = 0x11; q <= 0x15; q++)
		TEST_ASSERT_EQUAL(
			send_frames(DPV_ROCE_OP_SEND_ONLY, q, q * 100, 10), 0,
			"");
	receive_for(&r, 20);
	TEST_ASSERT_EQUAL(r.n, 30, "QPs 0x11, 0x13 and 0x15 pass");
	for (unsigned i = 0; i < r.n; i++)
		TEST_ASSERT(r.psn[i] / 100 != 0x12 && r.psn[i] / 100 != 0x14,
			    "");
	TEST_ASSERT_EQUAL(set_fault(pair.port[0], "op=ack+read_resp;tx:drop=1"),
			  0, "");
	TEST_ASSERT_EQUAL(send_frames(DPV_ROCE_OP_SEND_ONLY, 0x12, 0, 10), 0,
			  "");
	TEST_ASSERT_EQUAL(send_frames(DPV_ROCE_OP_ACK, 0x12, 10, 10), 0, "");
	TEST_ASSERT_EQUAL(send_frames(DPV_ROCE_OP_READ_RESP_ONLY, 0x12, 20, 10),
			  0, "");
	TEST_ASSERT_EQUAL(send_frames(DPV_ROCE_TR_UC | DPV_ROCE_OP_SEND_ONLY,
				      0x12, 30, 10),
			  0, "");
	receive_for(&r, 20);
	TEST_ASSERT_EQUAL(r.n, 20, "SENDs pass");
	for (unsigned i = 0; i < r.n; i++)
		TEST_ASSERT((r.opcode[i] & 0x1f) == DPV_ROCE_OP_SEND_ONLY,
			    "opcode 0x%x", r.opcode[i]);
	return TEST_SUCCESS;
}

/* Frames still held when the port closes leave before it stops (a peer
 * waiting for a leaving process's last ACK gets it). Runs last: it
 * releases the ports. */
static int
test_fault_close_drains(void)
{
	struct rte_ring *wire = pair.ring[0];
	struct rcvd r;

	TEST_ASSERT_EQUAL(
		set_fault(pair.port[0], "tx:reorder=1/64;hold_us=1000000"), 0,
		"");
	TEST_ASSERT_EQUAL(send_frames(DPV_ROCE_OP_ACK, 0x12, 0, 3), 0, "");
	receive_for(&r, 1);
	TEST_ASSERT_EQUAL(r.n, 0, "held");
	TEST_ASSERT_EQUAL(rte_ring_count(wire), 0, "");
	dpv_port_fini();
	/* on the wire (not read: their pool went with the port) */
	TEST_ASSERT_EQUAL(rte_ring_count(wire), 3, "held frames sent at close");
	return TEST_SUCCESS;
}

/* Each case starts with both fault layers off and an empty wire. */
static int
case_reset(void)
{
	struct rcvd r;

	if (dpv_port_fault_set(pair.port[0], NULL) != 0 ||
	    dpv_port_fault_set(pair.port[1], NULL) != 0)
		return -1;
	receive_for(&r, 5);
	return 0;
}

static const struct dpv_test_suite fault_suite = {
	.name = "fault",
	.setup = pair_setup,
	.teardown = pair_teardown,
	.cases =
		{
			TEST_CASE_ST(case_reset, NULL, test_fault_off),
			TEST_CASE_ST(case_reset, NULL, test_fault_drop),
			TEST_CASE_ST(case_reset, NULL, test_fault_rx_drop),
			TEST_CASE_ST(case_reset, NULL, test_fault_dup),
			TEST_CASE_ST(case_reset, NULL, test_fault_corrupt),
			TEST_CASE_ST(case_reset, NULL, test_fault_reorder),
			TEST_CASE_ST(case_reset, NULL, test_fault_delay),
			TEST_CASE_ST(case_reset, NULL, test_fault_filter),
			TEST_CASE_ST(case_reset, NULL, test_fault_close_drains),
			TEST_CASES_END(),
		},
};

static int
fault_frames(void)
{
	return dpv_test_run_suite(&fault_suite);
}

DPV_TEST_REGISTER_FAST(fault, fault_frames);
