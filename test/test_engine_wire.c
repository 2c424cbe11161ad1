/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Wire compatibility of the engine with Linux rxe: every RoCE frame of the
 * shared captures must parse (ICRC checked) and, rebuilt by the engine's
 * builder from the decoded fields, come out byte for byte identical.
 * White-box: includes the engine's internal header.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "dpv_test.h"

#if __has_include(<pcap/pcap.h>)
#include <pcap/pcap.h>

#include <rte_ip.h>
#include <rte_mbuf.h>

#include "dpv_roce_icrc.h"
#include "engine_int.h"
#include "test_roce_util.h"

static const char *const files[] = {
	"rxe-rc-send.pcap",	 "rxe-rc-send-seg.pcap",
	"rxe-rc-send-pad.pcap",	 "rxe-uc-send.pcap",
	"rxe-ud-send.pcap",	 "rxe-srq-send.pcap",
	"rxe-rc-send-ipv6.pcap", "rxe-rc-send-lat.pcap",
	"rxe-rc-write.pcap",	 "rxe-rc-write-lat.pcap",
	"rxe-rc-read.pcap",	 "rxe-rc-read-seg.pcap",
	"rxe-rc-atomic.pcap",	 "rxe-rc-atomic-cas.pcap",
};

/* Rebuild one parsed frame; 0 if identical. */
static int
rebuild(struct dpv_engine *e, const struct dpv_epkt *p, const uint8_t *frame,
	uint32_t len)
{
	struct dpv_engine_path path = {0};
	struct dpv_ehdr h = {
		.opcode = p->opcode,
		.se = p->se,
		.ackreq = p->ackreq,
		.dqpn = p->dqpn,
		.psn = p->psn,
		.va = p->va,
		.rkey = p->rkey,
		.dmalen = p->dmalen,
		.swap_add = p->swap_add,
		.compare = p->compare,
		.syndrome = p->syndrome,
		.msn = p->msn,
		.orig = p->orig,
		.qkey = p->qkey,
		.src_qp = p->src_qp,
		.imm_be = p->imm_be,
		.ieth_rkey = p->ieth_rkey,
	};
	struct dpv_etmpl tmpl;
	struct rte_mbuf *m;
	uint8_t *pl;
	int ret = 0;

	memcpy(path.smac, frame + 6, 6);
	memcpy(path.dmac, frame, 6);
	memcpy(path.sgid, p->sgid, 16);
	memcpy(path.dgid, p->dgid, 16);
	path.hop_limit = 64;
	path.udp_sport = p->udp_sport;
	dpv_engine_tmpl_set(&tmpl, &path);
	/* in full, then from the QP's header template */
	for (int k = 0; k < 2 && ret == 0; k++) {
		if (p->ipv4)
			e->ip_id = rte_be_to_cpu_16(
				((const struct rte_ipv4_hdr *)p->l3)->packet_id);
		m = dpv_engine_build(e, &path, k ? &tmpl : NULL, &h, p->paylen,
				     &pl);
		if (m == NULL)
			return -1;
		memcpy(pl, p->payload, p->paylen);
		dpv_engine_finish(m);
		ret = m->pkt_len == len &&
				      memcmp(rte_pktmbuf_mtod(m, void *), frame,
					     len) == 0
			      ? 0
			      : -1;
		if (ret) {
			DPV_TEST_LOG("opcode 0x%02x psn %u (%s): rebuilt %u "
				     "bytes, first diff at %zu",
				     p->opcode, p->psn,
				     k ? "template" : "in full", m->pkt_len,
				     dpv_test_first_diff(
					     rte_pktmbuf_mtod(m, void *), frame,
					     RTE_MIN(len, m->pkt_len)));
		}
		rte_pktmbuf_free(m);
	}
	return ret;
}

/* Two decodings of one frame agree, field by field. */
static bool
epkt_eq(const struct dpv_epkt *a, const struct dpv_epkt *b)
{
	return a->m == b->m && a->flags == b->flags &&
	       a->opcode == b->opcode && a->se == b->se &&
	       a->ackreq == b->ackreq &&
	       a->pkey == b->pkey && a->dqpn == b->dqpn && a->psn == b->psn &&
	       a->va == b->va && a->rkey == b->rkey &&
	       a->dmalen == b->dmalen && a->swap_add == b->swap_add &&
	       a->compare == b->compare && a->syndrome == b->syndrome &&
	       a->msn == b->msn && a->orig == b->orig && a->qkey == b->qkey &&
	       a->src_qp == b->src_qp && a->imm_be == b->imm_be &&
	       a->ieth_rkey == b->ieth_rkey && a->xrc_srqn == b->xrc_srqn &&
	       a->payload == b->payload && a->paylen == b->paylen &&
	       a->ipv4 == b->ipv4 && a->l3 == b->l3 &&
	       a->udp_sport == b->udp_sport &&
	       memcmp(a->smac, b->smac, 6) == 0 &&
	       memcmp(a->dmac, b->dmac, 6) == 0 &&
	       memcmp(a->sgid, b->sgid, 16) == 0 &&
	       memcmp(a->dgid, b->dgid, 16) == 0;
}

/*
 * The engine's fast path accepts only what the full parser accepts, and
 * decodes it the same: n mutations of a frame (a header byte changed, the
 * frame shortened or lengthened), each with its IPv4 checksum and ICRC
 * made right again so that the mutation itself is what is judged.
 */
static int
fast_vs_full(struct rte_mempool *mp, const uint8_t *frame, uint32_t len,
	     uint64_t *st, unsigned n, unsigned *accepted)
{
	for (unsigned k = 0; k < n; k++) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
		enum dpv_roce_rx_status s1, s2;
		struct dpv_epkt a, b;
		uint32_t l = len, pos;
		uint8_t *d;

		if (m == NULL || (d = (uint8_t *)rte_pktmbuf_append(
					  m, (uint16_t)(len + 8))) == NULL) {
			rte_pktmbuf_free(m);
			return TEST_FAILED;
		}
		memcpy(d, frame, len);
		memset(d + len, 0, 8);
		pos = test_roce_rand(st) % RTE_MIN(len, 80u);
		d[pos] = (uint8_t)test_roce_rand(st);
		if (test_roce_rand(st) % 4 == 0)
			l = len - 8 + test_roce_rand(st) % 17;
		rte_pktmbuf_trim(m, (uint16_t)(len + 8 - l));
		if (d[12] == 0x08 && d[13] == 0x00 && d[14] == 0x45) {
			struct rte_ipv4_hdr *ip = (void *)(d + 14);

			ip->hdr_checksum = 0;
			ip->hdr_checksum = rte_ipv4_cksum(ip);
		}
		if (l > 14 + 4)
			dpv_roce_icrc_set_l2(d + 14, l - 14);
		s1 = dpv_engine_parse_flags(m, &a, 0);
		s2 = dpv_engine_parse_flags(m, &b, DPV_ENGINE_PARSE_SLOW);
		if (s1 != s2 || (s1 == DPV_ROCE_RX_OK && !epkt_eq(&a, &b))) {
			DPV_TEST_LOG("byte %u, %u of %u bytes: fast %s, full %s",
				     pos, l, len, dpv_roce_rx_status_name(s1),
				     dpv_roce_rx_status_name(s2));
			rte_pktmbuf_free(m);
			return TEST_FAILED;
		}
		*accepted += s1 == DPV_ROCE_RX_OK;
		rte_pktmbuf_free(m);
	}
	return TEST_SUCCESS;
}

static int
test_captures(void)
{
	struct rte_mempool *mp;
	struct dpv_engine_conf conf = {0};
	struct dpv_engine *e;
	unsigned roce = 0, other = 0, icrc_errs = 0, mut_ok = 0;
	uint64_t st = 7;
	int ret = TEST_SUCCESS;

	if (dpv_test_eal_init() != 0)
		return TEST_SKIPPED;
	mp = rte_pktmbuf_pool_create("eng_wire_mp", 256, 0, 0,
				     RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	TEST_ASSERT_NOT_NULL(mp, "");
	conf.mp = mp;
	e = dpv_engine_create(NULL, &conf);
	TEST_ASSERT_NOT_NULL(e, "");
	for (size_t f = 0; f < RTE_DIM(files) && ret == TEST_SUCCESS; f++) {
		char path[512], err[PCAP_ERRBUF_SIZE];
		struct pcap_pkthdr *ph;
		const u_char *data;
		pcap_t *pc;

		snprintf(path, sizeof(path), "%s/%s", dpv_test_captures_dir(),
			 files[f]);
		pc = pcap_open_offline(path, err);
		if (pc == NULL) {
			DPV_TEST_LOG("%s: %s", path, err);
			ret = TEST_SKIPPED;
			break;
		}
		while (pcap_next_ex(pc, &ph, &data) == 1) {
			struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
			struct dpv_epkt p;
			uint8_t *d;

			if (m == NULL || ph->caplen > 2000 ||
			    (d = (uint8_t *)rte_pktmbuf_append(
				     m, ph->caplen)) == NULL) {
				rte_pktmbuf_free(m);
				ret = TEST_FAILED;
				break;
			}
			memcpy(d, data, ph->caplen);
			memset(&p, 0, sizeof(p));
			/* ARP / ND / IP frames that are not RoCE do not parse
			 */
			if (ph->caplen < 60 ||
			    (d[12] == 0x86 && d[13] == 0xdd && d[20] == 58) ||
			    (d[12] == 0x08 && d[13] == 0x06)) {
				if (dpv_engine_parse(m, &p) == 0) {
					DPV_TEST_LOG(
						"%s: non-RoCE frame parsed",
						files[f]);
					ret = TEST_FAILED;
				}
				other++;
			} else if (dpv_engine_parse(m, &p) != 0) {
				DPV_TEST_LOG("%s: RoCE frame %u does not parse",
					     files[f], roce);
				ret = TEST_FAILED;
			} else {
				roce++;
				if (rebuild(e, &p, data, ph->caplen) != 0) {
					DPV_TEST_LOG("%s: frame differs",
						     files[f]);
					ret = TEST_FAILED;
				}
				if (fast_vs_full(mp, data, ph->caplen, &st, 64,
						 &mut_ok) != TEST_SUCCESS) {
					DPV_TEST_LOG("%s: fast parse differs",
						     files[f]);
					ret = TEST_FAILED;
				}
				/* a flipped payload or header bit breaks the
				 * ICRC */
				d[ph->caplen - 5] ^= 1;
				memset(&p, 0, sizeof(p));
				if (dpv_engine_parse(m, &p) ==
				    DPV_ROCE_RX_ICRC)
					icrc_errs++;
			}
			rte_pktmbuf_free(m);
		}
		pcap_close(pc);
	}
	/* each corrupted frame was refused for its ICRC */
	if (icrc_errs != roce) {
		DPV_TEST_LOG("%u ICRC errors, want %u", icrc_errs, roce);
		ret = TEST_FAILED;
	}
	dpv_engine_destroy(e);
	rte_mempool_free(mp);
	if (ret == TEST_SUCCESS) {
		DPV_TEST_LOG("%u RoCE frames parsed and rebuilt identically, "
			     "%u other frames; %u of %u mutated frames "
			     "accepted, fast and full parse alike",
			     roce, other, mut_ok, roce * 64);
		/* the mutations reach the fast path's acceptance too */
		TEST_ASSERT(mut_ok > roce * 8 && mut_ok < roce * 60,
			    "mutations accepted: %u", mut_ok);
		TEST_ASSERT_EQUAL(roce, 320, "all RoCE frames of the captures");
	}
	return ret;
}

static const struct dpv_test_suite engine_wire_suite = {
	.name = "engine_wire",
	.cases =
		{
			TEST_CASE(test_captures),
			TEST_CASES_END(),
		},
};

static int
engine_wire(void)
{
	return dpv_test_run_suite(&engine_wire_suite);
}

#else
static int
engine_wire(void)
{
	return TEST_SKIPPED;
}
#endif

DPV_TEST_REGISTER_FAST(engine_wire, engine_wire);
