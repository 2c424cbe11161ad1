/* SPDX-License-Identifier: BSD-3-Clause */
/* lib/roce against real rdma_rxe traffic: every frame of the shared
 * captures parses, its ICRC verifies, and rebuilding it from the parsed
 * fields gives the same bytes; corrupted copies are rejected with the
 * right reason. */
#include <errno.h>
#include <stdlib.h>

#include <rte_ip.h>
#include <rte_mbuf.h>

#include "dpv_test.h"
#include "dpv_roce.h"
#include "dpv_roce_nd.h"
#include "test_roce_util.h"

#define MAX_FRAMES 64

struct capture {
	const char *file;
	unsigned frames;  /* all frames in the file */
	unsigned arp, nd; /* ARP and ICMPv6 ND frames */
	const char *ops;  /* "opcode:count,..." of the RoCE frames */
	bool ipv6;	  /* RoCE over IPv6 */
};

/* From /work/shared/captures/README.md. */
static const struct capture captures[] = {
	{"rxe-rc-send.pcap", 34, 2, 0, "4:16,17:16", false},
	{"rxe-rc-send-seg.pcap", 34, 2, 0, "0:8,1:8,2:8,17:8", false},
	{"rxe-rc-send-pad.pcap", 18, 2, 0, "0:4,1:4,2:4,17:4", false},
	{"rxe-uc-send.pcap", 18, 2, 0, "36:16", false},
	{"rxe-ud-send.pcap", 18, 2, 0, "100:16", false},
	{"rxe-srq-send.pcap", 18, 2, 0, "4:8,17:8", false},
	{"rxe-rc-send-ipv6.pcap", 20, 2, 2, "4:8,17:8", true},
	{"rxe-rc-send-lat.pcap", 34, 2, 0, "4:16,17:16", false},
	{"rxe-rc-write.pcap", 34, 2, 0, "6:8,7:8,8:8,17:8", false},
	{"rxe-rc-write-lat.pcap", 34, 2, 0, "10:16,17:16", false},
	{"rxe-rc-read.pcap", 18, 2, 0, "12:8,16:8", false},
	{"rxe-rc-read-seg.pcap", 34, 2, 0, "12:8,13:8,14:8,15:8", false},
	{"rxe-rc-atomic.pcap", 18, 2, 0, "20:8,18:8", false},
	{"rxe-rc-atomic-cas.pcap", 18, 2, 0, "19:8,18:8", false},
};

static int
check_rebuild(const uint8_t *frame, uint32_t len, const struct dpv_roce_pkt *in)
{
	struct dpv_roce_pkt pkt = *in;
	uint8_t out[TEST_ROCE_MAX_FRAME];
	int n;

	memset(out, 0xa5, sizeof(out));
	n = dpv_roce_build(out, sizeof(out), &pkt);
	TEST_ASSERT_EQUAL(n, len, "rebuilt length");
	TEST_ASSERT_BUFFERS_EQUAL(out, frame, len, "rebuilt frame");
	TEST_ASSERT_EQUAL(pkt.icrc, in->icrc, "icrc");
	TEST_ASSERT_EQUAL(pkt.payload_off, in->payload_off, "payload offset");
	TEST_ASSERT_EQUAL(pkt.pad, in->pad, "pad");
	/* the short form: headers only, payload by the caller */
	memset(out, 0x5a, sizeof(out));
	pkt = *in;
	pkt.payload = NULL;
	n = dpv_roce_build_hdrs(out, len, &pkt);
	TEST_ASSERT_EQUAL(n, in->payload_off, "build_hdrs payload offset");
	memcpy(out + n, in->payload, in->payload_len);
	dpv_roce_build_finish(out, &pkt);
	TEST_ASSERT_BUFFERS_EQUAL(out, frame, len, "two-step rebuild");
	TEST_ASSERT_EQUAL(dpv_roce_build(out, len - 1, &pkt), -ENOSPC,
			  "short buffer");
	return TEST_SUCCESS;
}

/* The same frame in mbuf chains cut at interesting places. */
static int
check_chains(const uint8_t *frame, uint32_t len, const struct dpv_roce_pkt *ref)
{
	static uint8_t storage[TEST_ROCE_MAX_FRAME + 1024];
	static uint8_t out[TEST_ROCE_MAX_FRAME];
	struct rte_mbuf segs[8], *m;
	uint32_t po = ref->payload_off;
	uint32_t cuts[][2] = {
		{len, 0}, /* one segment */
		{po, 0},
		{po + 1, 0},
		{(po + len) / 2, 0},
		{len - 1, 0},
		{len - 2, 0},
		{len - 4, 0},
		{len - 5, 0},
		{po, len - 3},
		{po + 2, (po + len) / 2},
		{ref->bth_off + 3, 0}, /* inside the BTH */
		{20, 0},	       /* inside the IP header */
	};
	unsigned c;

	for (c = 0; c < RTE_DIM(cuts); c++) {
		unsigned ncuts = cuts[c][1] != 0 ? 2 : (cuts[c][0] < len);
		struct dpv_roce_pkt p, q;
		enum dpv_roce_rx_status st;

		if (cuts[c][0] == 0 || cuts[c][0] > len ||
		    (ncuts == 2 && cuts[c][1] <= cuts[c][0]))
			continue;
		m = test_roce_make_chain(segs, storage, frame, len, cuts[c],
					 ncuts);
		memset(&p, 0, sizeof(p));
		memset(&q, 0, sizeof(q));
		st = dpv_roce_parse_mbuf(m, 0, &p);
		if (cuts[c][0] < po && ncuts > 0) {
			TEST_ASSERT_EQUAL(st, DPV_ROCE_RX_SEG_HDRS, "cut %u",
					  cuts[c][0]);
			continue;
		}
		TEST_ASSERT_EQUAL(st, DPV_ROCE_RX_OK, "cut %u/%u: %s",
				  cuts[c][0], cuts[c][1],
				  dpv_roce_rx_status_name(st));
		TEST_ASSERT_EQUAL(dpv_roce_parse(frame, len, 0, &q), 0, "");
		TEST_ASSERT(p.payload ==
				    rte_pktmbuf_mtod_offset(m, uint8_t *, po),
			    "payload pointer");
		p.payload = q.payload;
		TEST_ASSERT(memcmp(&p, &q, sizeof(p)) == 0,
			    "descriptor differs, cut %u", cuts[c][0]);
		/* the ICRC written into a chain */
		TEST_ASSERT_EQUAL(dpv_roce_icrc_calc_mbuf(m, ref->l3_off,
							  len - ref->l3_off),
				  ref->icrc, "calc_mbuf");
		memset(out, 0, sizeof(out));
		m = test_roce_make_chain(segs, storage, frame, len, cuts[c],
					 ncuts);
		{
			struct rte_mbuf *s = m;
			uint32_t pos = 0, k;

			/* clear the ICRC bytes wherever they are */
			for (; s != NULL; pos += s->data_len, s = s->next)
				for (k = 0; k < s->data_len; k++)
					if (pos + k >= len - 4)
						*rte_pktmbuf_mtod_offset(
							s, uint8_t *, k) = 0;
		}
		TEST_ASSERT_EQUAL(dpv_roce_icrc_set_mbuf(m, ref->l3_off,
							 len - ref->l3_off),
				  ref->icrc, "set_mbuf");
		TEST_ASSERT_EQUAL(test_roce_chain_copy(m, out), len, "copy");
		TEST_ASSERT_BUFFERS_EQUAL(out, frame, len, "ICRC in chain");
		/* a payload or ICRC byte changed in the last segment */
		if (ncuts > 0) {
			struct rte_mbuf *last = &segs[ncuts];

			*rte_pktmbuf_mtod_offset(last, uint8_t *,
						 last->data_len - 1) ^= 0x10;
			TEST_ASSERT_EQUAL(dpv_roce_parse_mbuf(m, 0, &p),
					  DPV_ROCE_RX_ICRC, "changed byte");
		}
	}
	/* a non-zero UDP checksum is verified over the chain */
	if (len > po + 8) {
		uint32_t cut[1] = {po + 4};
		struct rte_udp_hdr *u;
		struct dpv_roce_pkt p;
		uint16_t ck;

		memcpy(out, frame, len);
		u = (void *)(out + ref->l4_off);
		ck = ref->ipv6 ? rte_ipv6_udptcp_cksum(
					 (void *)(out + ref->l3_off), u)
			       : rte_ipv4_udptcp_cksum(
					 (void *)(out + ref->l3_off), u);
		u->dgram_cksum = ck;
		m = test_roce_make_chain(segs, storage, out, len, cut, 1);
		TEST_ASSERT_EQUAL(dpv_roce_parse_mbuf(m, 0, &p), 0, "udp ok");
		out[len - 6] ^= 1; /* the payload, so ICRC would fail too */
		m = test_roce_make_chain(segs, storage, out, len, cut, 1);
		TEST_ASSERT_EQUAL(dpv_roce_parse_mbuf(m, 0, &p),
				  DPV_ROCE_RX_UDP_CSUM,
				  "udp checksum in chain");
	}
	return TEST_SUCCESS;
}

/* Facts the README states about what rxe sent, checked per packet. */
static int
check_rxe_facts(const struct capture *c, const struct dpv_roce_pkt *p,
		const uint8_t *frame)
{
	const struct dpv_roce_opcode_info *oi = dpv_roce_opcode(p->opcode);
	uint32_t l3_len = p->frame_len - p->l3_off;
	int m;

	TEST_ASSERT_EQUAL(p->ipv6, c->ipv6, "ip version");
	TEST_ASSERT_EQUAL(p->ttl, 64, "ttl/hop limit");
	TEST_ASSERT_EQUAL(p->tos, 0, "dscp/ecn");
	TEST_ASSERT_EQUAL(p->flow_label, 0, "flow label");
	if (!p->ipv6)
		TEST_ASSERT_EQUAL(p->ip_frag, DPV_ROCE_IPV4_DF, "DF only");
	TEST_ASSERT_EQUAL(p->udp_csum, 0, "udp checksum");
	TEST_ASSERT_EQUAL(p->pkey, 0xffff, "pkey");
	TEST_ASSERT(!p->se && !p->mig && !p->fecn && !p->becn, "bth bits");
	TEST_ASSERT_EQUAL(p->mask, oi->mask, "mask");
	/* AckReq exactly where the opcode table says a requester sets it */
	if (oi->mask & DPV_OPF_REQ)
		TEST_ASSERT_EQUAL(p->ackreq, !!(oi->mask & DPV_OPF_ACKREQ),
				  "ackreq on %s", oi->name);
	else
		TEST_ASSERT(!p->ackreq, "ackreq on a response");
	if (oi->mask & DPV_OPF_ACK)
		TEST_ASSERT_EQUAL(p->aeth.syndrome, 0x1f, "ACK syndrome");
	if (oi->mask & DPV_OPF_UD) {
		TEST_ASSERT_EQUAL(p->deth.qkey, 0x11111111, "qkey");
		TEST_ASSERT_EQUAL(p->sport, dpv_roce_udp_sport_rxe(p->deth.sqp),
				  "UD source port");
	} else {
		/* RC/UC: both ends had the same QPN in every capture */
		TEST_ASSERT_EQUAL(p->sport,
				  dpv_roce_udp_sport(p->dqpn, p->dqpn),
				  "source port");
	}
	if (oi->mask & (DPV_OPF_FIRST | DPV_OPF_MIDDLE) &&
	    !(oi->mask & DPV_OPF_LAST))
		TEST_ASSERT_EQUAL(p->payload_len, 1024, "path MTU payload");
	if (oi->mask & DPV_OPF_ATOMIC)
		TEST_ASSERT_EQUAL(p->atmeth.va & 7, 0, "atomic alignment");
	for (m = 0; m < DPV_ROCE_ICRC_METHOD_NUM; m++)
		TEST_ASSERT_EQUAL(
			dpv_roce_icrc_calc_method(m, frame + p->l3_off, l3_len),
			p->icrc, "icrc method %d", m);
	return TEST_SUCCESS;
}

static int
check_capture(const struct capture *c, unsigned *roce_total)
{
	struct test_roce_frames fr;
	unsigned counts[256] = {0};
	unsigned i, arp = 0, nd = 0, roce = 0, want_roce = 0;
	const char *s;
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dpv_test_captures_dir(), c->file);
	TEST_ASSERT_EQUAL(test_roce_read_pcap(path, &fr), 0, "read %s", path);
	TEST_ASSERT_EQUAL(fr.n, c->frames, "%s: frames", c->file);
	for (i = 0; i < fr.n; i++) {
		const uint8_t *f = fr.data[i];
		uint32_t len = fr.len[i];
		struct dpv_roce_pkt pkt;
		enum dpv_roce_rx_status st;
		int r;

		if (test_roce_is_arp(f, len)) {
			arp++;
			r = test_roce_check_arp(f, len);
			TEST_ASSERT_EQUAL(r, TEST_SUCCESS, "%s #%u: arp",
					  c->file, i + 1);
			continue;
		}
		if (test_roce_is_nd(f, len)) {
			nd++;
			r = test_roce_check_nd(f, len);
			TEST_ASSERT_EQUAL(r, TEST_SUCCESS, "%s #%u: nd",
					  c->file, i + 1);
			continue;
		}
		memset(&pkt, 0xee, sizeof(pkt));
		st = dpv_roce_parse(f, len, 0, &pkt);
		TEST_ASSERT_EQUAL(st, DPV_ROCE_RX_OK, "%s #%u: %s", c->file,
				  i + 1, dpv_roce_rx_status_str(st));
		TEST_ASSERT_EQUAL(pkt.frame_len, len, "%s #%u", c->file, i + 1);
		r = check_rxe_facts(c, &pkt, f);
		TEST_ASSERT_EQUAL(r, TEST_SUCCESS, "%s #%u: rxe facts", c->file,
				  i + 1);
		r = check_rebuild(f, len, &pkt);
		TEST_ASSERT_EQUAL(r, TEST_SUCCESS, "%s #%u: rebuild", c->file,
				  i + 1);
		r = check_chains(f, len, &pkt);
		TEST_ASSERT_EQUAL(r, TEST_SUCCESS, "%s #%u: mbuf chains",
				  c->file, i + 1);
		counts[pkt.opcode]++;
		roce++;
	}
	TEST_ASSERT_EQUAL(arp, c->arp, "%s: ARP frames", c->file);
	TEST_ASSERT_EQUAL(nd, c->nd, "%s: ND frames", c->file);
	for (s = c->ops; *s != '\0';) {
		char *end;
		unsigned op = strtoul(s, &end, 10);
		unsigned n = strtoul(end + 1, &end, 10);

		TEST_ASSERT_EQUAL(counts[op], n, "%s: opcode %u (%s)", c->file,
				  op, dpv_roce_opcode_name(op));
		counts[op] = 0;
		want_roce += n;
		s = *end == ',' ? end + 1 : end;
	}
	for (i = 0; i < 256; i++)
		TEST_ASSERT_EQUAL(counts[i], 0, "%s: unexpected opcode %u",
				  c->file, i);
	TEST_ASSERT_EQUAL(roce, want_roce, "%s: RoCE frames", c->file);
	TEST_ASSERT_EQUAL(roce + arp + nd, c->frames, "%s: all", c->file);
	*roce_total += roce;
	printf("   %-24s %2u frames: %2u RoCE ok (icrc, rebuild, chains), %u "
	       "ARP, "
	       "%u ND\n",
	       c->file, fr.n, roce, arp, nd);
	test_roce_free_frames(&fr);
	return TEST_SUCCESS;
}

static int
test_captures(void)
{
	unsigned i, total = 0;

	for (i = 0; i < RTE_DIM(captures); i++)
		if (check_capture(&captures[i], &total) != TEST_SUCCESS)
			return TEST_FAILED;
	TEST_ASSERT_EQUAL(total, 320, "RoCE packets in all captures");
	return TEST_SUCCESS;
}

/* The pad file's SEND_LAST: 5 bytes of payload, pad count 3. */
static int
test_capture_pad(void)
{
	struct test_roce_frames fr;
	unsigned i, seen = 0;
	char path[4096];

	snprintf(path, sizeof(path), "%s/rxe-rc-send-pad.pcap",
		 dpv_test_captures_dir());
	TEST_ASSERT_EQUAL(test_roce_read_pcap(path, &fr), 0, "read");
	for (i = 0; i < fr.n; i++) {
		struct dpv_roce_pkt pkt;

		if (dpv_roce_parse(fr.data[i], fr.len[i], 0, &pkt) != 0 ||
		    pkt.opcode != DPV_ROCE_OP_SEND_LAST)
			continue;
		TEST_ASSERT_EQUAL(pkt.pad, 3, "pad count");
		TEST_ASSERT_EQUAL(pkt.payload_len, 5, "payload");
		TEST_ASSERT_EQUAL(fr.len[i], 66, "frame size");
		seen++;
	}
	test_roce_free_frames(&fr);
	TEST_ASSERT_EQUAL(seen, 4, "SEND_LAST frames");
	return TEST_SUCCESS;
}

static const struct dpv_test_suite captures_suite = {
	.name = "roce_captures",
	.setup = test_roce_captures_setup,
	.cases =
		{
			TEST_CASE(test_captures),
			TEST_CASE(test_capture_pad),
			TEST_CASES_END(),
		},
};

static int
roce_captures_autotest(void)
{
	return dpv_test_run_suite(&captures_suite);
}

DPV_TEST_REGISTER_FAST(roce_captures_autotest, roce_captures_autotest);
