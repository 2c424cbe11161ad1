/* SPDX-License-Identifier: BSD-3-Clause */
/* Helpers for the lib/roce tests: pcap reader, ARP/ND frame checks. */
#include <unistd.h>
#include <stdlib.h>

#include <rte_byteorder.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "dpv_test.h"
#include "dpv_roce.h"
#include "test_roce_util.h"

#define PCAP_MAGIC_US	  0xa1b2c3d4u /* microsecond timestamps */
#define PCAP_MAGIC_NS	  0xa1b23c4du /* nanosecond timestamps */
#define LINKTYPE_ETHERNET 1

static uint32_t
rd32(const uint8_t *p, bool swap)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return swap ? rte_bswap32(v) : v;
}

int
test_roce_captures_setup(void)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/rxe-rc-send.pcap",
		 dpv_test_captures_dir());
	if (access(path, R_OK) != 0) {
		DPV_TEST_LOG("no captures at %s: skipped", path);
		return TEST_SKIPPED;
	}
	return 0;
}

int
test_roce_read_pcap(const char *path, struct test_roce_frames *fr)
{
	uint8_t gh[24], rh[16];
	uint32_t magic;
	bool swap;
	FILE *fp;

	memset(fr, 0, sizeof(*fr));
	fp = fopen(path, "rb");
	if (fp == NULL) {
		DPV_TEST_LOG("cannot open %s", path);
		return -1;
	}
	if (fread(gh, 1, sizeof(gh), fp) != sizeof(gh))
		goto bad;
	memcpy(&magic, gh, 4);
	swap = magic == rte_bswap32(PCAP_MAGIC_US) ||
	       magic == rte_bswap32(PCAP_MAGIC_NS);
	magic = swap ? rte_bswap32(magic) : magic;
	if ((magic != PCAP_MAGIC_US && magic != PCAP_MAGIC_NS) ||
	    rd32(gh + 20, swap) != LINKTYPE_ETHERNET)
		goto bad;
	while (fread(rh, 1, sizeof(rh), fp) == sizeof(rh)) {
		uint32_t caplen = rd32(rh + 8, swap);
		uint32_t origlen = rd32(rh + 12, swap);

		if (caplen != origlen || caplen > TEST_ROCE_MAX_FRAME ||
		    fr->n == TEST_ROCE_MAX_FRAMES)
			goto bad;
		fr->data[fr->n] = malloc(caplen);
		if (fr->data[fr->n] == NULL ||
		    fread(fr->data[fr->n], 1, caplen, fp) != caplen)
			goto bad;
		fr->len[fr->n++] = caplen;
	}
	fclose(fp);
	return 0;
bad:
	DPV_TEST_LOG("%s: not a complete Ethernet pcap file", path);
	fclose(fp);
	test_roce_free_frames(fr);
	return -1;
}

void
test_roce_free_frames(struct test_roce_frames *fr)
{
	unsigned i;

	for (i = 0; i < fr->n; i++)
		free(fr->data[i]);
	memset(fr, 0, sizeof(*fr));
}

bool
test_roce_is_arp(const uint8_t *f, uint32_t len)
{
	return len >= 14 && f[12] == 0x08 && f[13] == 0x06;
}

bool
test_roce_is_nd(const uint8_t *f, uint32_t len)
{
	return len >= 55 && f[12] == 0x86 && f[13] == 0xdd && f[20] == 58 &&
	       (f[54] == DPV_ND_NS || f[54] == DPV_ND_NA);
}

int
test_roce_check_arp(const uint8_t *f, uint32_t len)
{
	static struct dpv_arp last_req;
	struct dpv_arp arp, mk;
	uint8_t out[64];
	int n;

	TEST_ASSERT_EQUAL(dpv_arp_parse(f, len, &arp), 0, "parse");
	n = dpv_arp_build(out, sizeof(out), &arp);
	TEST_ASSERT_EQUAL(n, len, "length");
	TEST_ASSERT_BUFFERS_EQUAL(out, f, len, "rebuild");
	/* what our helpers make equals what Linux sent */
	if (arp.op == DPV_ARP_REQUEST) {
		dpv_arp_make_request(&mk, arp.smac, arp.spa, arp.tpa);
		last_req = arp;
	} else {
		TEST_ASSERT_EQUAL(last_req.op, DPV_ARP_REQUEST,
				  "reply before request");
		dpv_arp_make_reply(&mk, &last_req, arp.smac);
	}
	n = dpv_arp_build(out, sizeof(out), &mk);
	TEST_ASSERT_EQUAL(n, len, "made length");
	TEST_ASSERT_BUFFERS_EQUAL(out, f, len, "made %s",
				  arp.op == 1 ? "request" : "reply");
	TEST_ASSERT_EQUAL(dpv_arp_build(out, (uint32_t)n - 1, &mk), -ENOSPC,
			  "short buffer");
	return TEST_SUCCESS;
}

int
test_roce_check_nd(const uint8_t *f, uint32_t len)
{
	static struct dpv_nd last_ns;
	struct dpv_nd nd, mk;
	uint8_t out[128], bad[128];
	int n;

	TEST_ASSERT_EQUAL(dpv_nd_parse(f, len, &nd), 0, "parse");
	TEST_ASSERT(nd.has_lladdr, "link-layer option");
	TEST_ASSERT(memcmp(nd.lladdr, nd.smac, 6) == 0, "lladdr = smac");
	n = dpv_nd_build(out, sizeof(out), &nd);
	TEST_ASSERT_EQUAL(n, len, "length");
	TEST_ASSERT_BUFFERS_EQUAL(out, f, len, "rebuild");
	if (nd.type == DPV_ND_NS) {
		dpv_nd_make_solicit(&mk, nd.smac, nd.src, nd.target);
		last_ns = nd;
	} else {
		TEST_ASSERT_EQUAL(last_ns.type, DPV_ND_NS, "NA before NS");
		TEST_ASSERT_EQUAL(nd.flags,
				  DPV_ND_NA_SOLICITED | DPV_ND_NA_OVERRIDE,
				  "NA flags");
		dpv_nd_make_advert(&mk, &last_ns, nd.smac);
	}
	n = dpv_nd_build(out, sizeof(out), &mk);
	TEST_ASSERT_EQUAL(n, len, "made length");
	TEST_ASSERT_BUFFERS_EQUAL(out, f, len, "made %s",
				  nd.type == DPV_ND_NS ? "NS" : "NA");
	/* corruptions */
	memcpy(bad, f, len);
	bad[len - 1] ^= 1;
	TEST_ASSERT_EQUAL(dpv_nd_parse(bad, len, &mk), -EINVAL, "checksum");
	memcpy(bad, f, len);
	bad[21] = 64;
	TEST_ASSERT_EQUAL(dpv_nd_parse(bad, len, &mk), -EINVAL, "hop limit");
	memcpy(bad, f, len);
	bad[len - 7] = 0;
	TEST_ASSERT_EQUAL(dpv_nd_parse(bad, len, &mk), -EINVAL, "opt length");
	TEST_ASSERT_EQUAL(dpv_nd_parse(f, len - 1, &mk), -EINVAL, "truncated");
	memcpy(bad, f, len);
	bad[20] = 17;
	TEST_ASSERT_EQUAL(dpv_nd_parse(bad, len, &mk), -EPROTO, "not icmpv6");
	return TEST_SUCCESS;
}

void
test_roce_fix_ipv4_csum(uint8_t *f, uint16_t l3_off)
{
	struct rte_ipv4_hdr *ip = (void *)(f + l3_off);

	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
}

uint32_t
test_roce_rand(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*state = x;
	return (uint32_t)(x >> 16);
}

/* Fill a descriptor with random but valid fields for an opcode. */
void
test_roce_random_pkt(struct dpv_roce_pkt *p, uint64_t *st, uint8_t op,
		     bool ipv6, const uint8_t *payload, uint32_t len)
{
	unsigned i;

	memset(p, 0, sizeof(*p));
	for (i = 0; i < 6; i++) {
		p->dmac[i] = (uint8_t)test_roce_rand(st);
		p->smac[i] = (uint8_t)test_roce_rand(st);
	}
	p->vlan = test_roce_rand(st) & 1;
	p->vlan_tci = (uint16_t)test_roce_rand(st);
	p->ipv6 = ipv6;
	for (i = 0; i < 16; i++) {
		p->sgid[i] = (uint8_t)test_roce_rand(st);
		p->dgid[i] = (uint8_t)test_roce_rand(st);
	}
	if (!ipv6) {
		dpv_roce_gid_from_ipv4(p->sgid, test_roce_rand(st));
		dpv_roce_gid_from_ipv4(p->dgid, test_roce_rand(st));
	}
	p->tos = (uint8_t)test_roce_rand(st);
	p->ttl = (uint8_t)test_roce_rand(st);
	p->ip_id = (uint16_t)test_roce_rand(st);
	p->ip_frag = DPV_ROCE_IPV4_DF;
	p->flow_label = ipv6 ? test_roce_rand(st) & 0xfffff : 0;
	p->sport = (uint16_t)(0xc000 | test_roce_rand(st));
	p->dport = DPV_ROCE_UDP_PORT;
	p->opcode = op;
	p->se = test_roce_rand(st) & 1;
	p->mig = test_roce_rand(st) & 1;
	p->pkey = (uint16_t)test_roce_rand(st);
	p->fecn = test_roce_rand(st) & 1;
	p->becn = test_roce_rand(st) & 1;
	p->dqpn = test_roce_rand(st) & 0xffffff;
	p->ackreq = test_roce_rand(st) & 1;
	p->psn = test_roce_rand(st) & 0xffffff;
	p->reth.va = (uint64_t)test_roce_rand(st) << 32 | test_roce_rand(st);
	p->reth.rkey = test_roce_rand(st);
	p->reth.len = test_roce_rand(st);
	p->aeth.syndrome = (uint8_t)test_roce_rand(st);
	p->aeth.msn = test_roce_rand(st) & 0xffffff;
	p->atmeth.va = (uint64_t)test_roce_rand(st) << 32;
	p->atmeth.rkey = test_roce_rand(st);
	p->atmeth.swap_add = (uint64_t)test_roce_rand(st) << 31 ^ 77;
	p->atmeth.compare = (uint64_t)test_roce_rand(st) << 29 ^ 5;
	p->atmack_orig = (uint64_t)test_roce_rand(st) << 30 ^ 3;
	p->deth.qkey = test_roce_rand(st);
	p->deth.sqp = test_roce_rand(st) & 0xffffff;
	p->imm = test_roce_rand(st);
	p->ieth_rkey = test_roce_rand(st);
	p->xrc_srqn = test_roce_rand(st) & 0xffffff;
	p->dceth.key = (uint64_t)test_roce_rand(st) << 32 | test_roce_rand(st);
	p->dceth.dci = test_roce_rand(st) & 0xffffff;
	p->dceth.cpsn = test_roce_rand(st) & 0xffffff;
	if (dpv_roce_opcode(op)->mask & DPV_OPF_PAYLOAD) {
		p->payload = payload;
		p->payload_len = len;
	}
}

struct rte_mbuf *
test_roce_make_chain(struct rte_mbuf *segs, uint8_t *storage,
		     const uint8_t *frame, uint32_t len, const uint32_t *cuts,
		     unsigned ncuts)
{
	uint32_t start = 0;
	unsigned i;

	for (i = 0; i <= ncuts; i++) {
		uint32_t end = i < ncuts ? cuts[i] : len;
		struct rte_mbuf *m = &segs[i];

		memset(m, 0, sizeof(*m));
		/* some headroom so that data_off is exercised */
		m->buf_addr = storage;
		m->buf_len = (uint16_t)(end - start + 64);
		m->data_off = 64;
		memcpy(storage + 64, frame + start, end - start);
		m->data_len = (uint16_t)(end - start);
		m->next = i < ncuts ? &segs[i + 1] : NULL;
		storage += end - start + 64;
		start = end;
	}
	segs[0].pkt_len = len;
	segs[0].nb_segs = (uint16_t)(ncuts + 1);
	return &segs[0];
}

uint32_t
test_roce_chain_copy(const struct rte_mbuf *m, uint8_t *out)
{
	uint32_t n = 0;

	for (; m != NULL; m = m->next) {
		memcpy(out + n, rte_pktmbuf_mtod(m, const uint8_t *),
		       m->data_len);
		n += m->data_len;
	}
	return n;
}
