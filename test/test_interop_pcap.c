/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Checks a capture of our own traffic (DPV_PCAP, a pcapng file): every
 * UDP/4791 frame must parse with lib/roce's parser, ICRC included; ARP
 * frames are counted; anything else is reported. The file is named by
 * DPV_PCAP_CHECK (test/scripts/slow-capture-tshark.sh sets it); without
 * it the test is skipped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dpv_roce_pkt.h"
#include "dpv_test.h"

#define PCAPNG_SHB 0x0A0D0D0Au
#define PCAPNG_IDB 0x00000001u
#define PCAPNG_EPB 0x00000006u
#define PCAPNG_BOM 0x1A2B3C4Du
#define MAX_BLOCK (1u << 20)

static uint32_t
rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

struct cap_counts {
	unsigned long frames, roce, arp, other, bad;
	unsigned long by_status[DPV_ROCE_RX_STATUS_NUM];
};

static bool
is_roce_udp(const uint8_t *f, uint32_t len)
{
	uint32_t off = 12;
	uint16_t et;

	if (len < 14)
		return false;
	et = (uint16_t)(f[off] << 8 | f[off + 1]);
	if (et == 0x8100 && len >= 18) {
		off += 4;
		et = (uint16_t)(f[off] << 8 | f[off + 1]);
	}
	off += 2;
	if (et == 0x0800 && len >= off + 20 + 4) {
		uint32_t ihl = (f[off] & 0xf) * 4u;

		return f[off + 9] == 17 && len >= off + ihl + 4 &&
		       (f[off + ihl + 2] << 8 | f[off + ihl + 3]) == 4791;
	}
	if (et == 0x86dd && len >= off + 40 + 4)
		return f[off + 6] == 17 &&
		       (f[off + 42] << 8 | f[off + 43]) == 4791;
	return false;
}

static bool
is_arp(const uint8_t *f, uint32_t len)
{
	return len >= 14 && f[12] == 0x08 && f[13] == 0x06;
}

static void
count_frame(struct cap_counts *c, const uint8_t *f, uint32_t len)
{
	struct dpv_roce_pkt pkt;
	enum dpv_roce_rx_status st;

	c->frames++;
	if (is_arp(f, len)) {
		c->arp++;
		return;
	}
	if (!is_roce_udp(f, len)) {
		c->other++;
		return;
	}
	c->roce++;
	st = dpv_roce_parse(f, len, 0, &pkt);
	if (st != DPV_ROCE_RX_OK) {
		if (c->bad < 5)
			DPV_TEST_LOG("frame %lu (%u bytes): %s", c->frames, len,
				     dpv_roce_rx_status_str(st));
		c->bad++;
		c->by_status[st]++;
	}
}

/* Walk the blocks of a little-endian pcapng file. 0 or -1. */
static int
read_pcapng(FILE *fp, struct cap_counts *c)
{
	uint8_t hdr[8], *blk = malloc(MAX_BLOCK);
	int rc = -1;

	if (blk == NULL)
		return -1;
	while (fread(hdr, 1, 8, fp) == 8) {
		uint32_t type = rd32(hdr), blen = rd32(hdr + 4);

		if (blen < 12 || blen % 4 || blen > MAX_BLOCK) {
			DPV_TEST_LOG("bad block length %u", blen);
			goto out;
		}
		if (fread(blk, 1, blen - 8, fp) != blen - 8) {
			DPV_TEST_LOG("truncated block");
			goto out;
		}
		if (type == PCAPNG_SHB && rd32(blk) != PCAPNG_BOM) {
			DPV_TEST_LOG("big-endian pcapng is not supported");
			goto out;
		}
		if (type == PCAPNG_EPB) {
			uint32_t caplen = rd32(blk + 12);
			uint32_t origlen = rd32(blk + 16);

			if (caplen > blen - 32 || caplen != origlen) {
				DPV_TEST_LOG("packet block: caplen %u origlen %u",
					     caplen, origlen);
				goto out;
			}
			count_frame(c, blk + 20, caplen);
		}
	}
	rc = feof(fp) ? 0 : -1;
out:
	free(blk);
	return rc;
}

static int
interop_pcap_autotest(void)
{
	const char *path = getenv("DPV_PCAP_CHECK");
	struct cap_counts c;
	uint8_t magic[4];
	FILE *fp;
	int rc;

	if (path == NULL || *path == '\0') {
		printf("DPV_PCAP_CHECK not set: nothing to check\n");
		return TEST_SKIPPED;
	}
	memset(&c, 0, sizeof(c));
	fp = fopen(path, "rb");
	TEST_ASSERT(fp != NULL, "cannot open %s", path);
	if (fread(magic, 1, 4, fp) != 4 || rd32(magic) != PCAPNG_SHB) {
		fclose(fp);
		DPV_TEST_LOG("%s: not a pcapng file", path);
		return TEST_FAILED;
	}
	rewind(fp);
	rc = read_pcapng(fp, &c);
	fclose(fp);
	TEST_ASSERT(rc == 0, "%s: unreadable", path);
	printf("%s: %lu frames: %lu RoCEv2 (%lu bad), %lu ARP, %lu other\n",
	       path, c.frames, c.roce, c.bad, c.arp, c.other);
	for (unsigned i = 0; i < DPV_ROCE_RX_STATUS_NUM; i++)
		if (c.by_status[i])
			printf("  %s: %lu\n", dpv_roce_rx_status_name(i),
			       c.by_status[i]);
	TEST_ASSERT(c.roce > 0, "no RoCEv2 frame in %s", path);
	TEST_ASSERT(c.bad == 0, "%lu RoCEv2 frames fail to parse / verify",
		    c.bad);
	return TEST_SUCCESS;
}

DPV_TEST_REGISTER_SLOW(interop_pcap_autotest, interop_pcap_autotest);
