/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef TEST_ROCE_UTIL_H
#define TEST_ROCE_UTIL_H

/* Helpers shared by the lib/roce tests: a minimal pcap reader and frame
 * classification. */
#include <stdbool.h>
#include <stdint.h>

#define TEST_ROCE_MAX_FRAME  10240
#define TEST_ROCE_MAX_FRAMES 256

struct test_roce_frames {
	unsigned n;
	uint8_t *data[TEST_ROCE_MAX_FRAMES];
	uint32_t len[TEST_ROCE_MAX_FRAMES];
};

/* Read a classic pcap file (link type Ethernet). 0 or -1 (logged). */
int test_roce_read_pcap(const char *path, struct test_roce_frames *fr);
/* Suite set-up: TEST_SKIPPED when the captures directory
 * (dpv_test_captures_dir(), ../shared/captures by default) is absent. */
int test_roce_captures_setup(void);
void test_roce_free_frames(struct test_roce_frames *fr);

bool test_roce_is_arp(const uint8_t *f, uint32_t len);
bool test_roce_is_nd(const uint8_t *f, uint32_t len);
/* parse + rebuild checks of ARP and ND frames (TEST_SUCCESS/FAILED) */
int test_roce_check_arp(const uint8_t *f, uint32_t len);
int test_roce_check_nd(const uint8_t *f, uint32_t len);

struct rte_mbuf;
/* Split a frame into an mbuf chain without a mempool: segment i holds
 * bytes [cuts[i-1], cuts[i]) (cuts ascending, ncuts < 8), copied into
 * storage (at least len + 8 * 64 bytes). Returns the first segment. */
struct rte_mbuf *test_roce_make_chain(struct rte_mbuf *segs, uint8_t *storage,
				      const uint8_t *frame, uint32_t len,
				      const uint32_t *cuts, unsigned ncuts);
/* Copy an mbuf chain's bytes out; returns the number copied. */
uint32_t test_roce_chain_copy(const struct rte_mbuf *m, uint8_t *out);

/* Recompute the IPv4 header checksum of a frame (after a mutation). */
void test_roce_fix_ipv4_csum(uint8_t *f, uint16_t l3_off);

struct dpv_roce_pkt;
/* Fill a descriptor with random valid fields for opcode op (payload only
 * if the opcode carries one). */
void test_roce_random_pkt(struct dpv_roce_pkt *p, uint64_t *st, uint8_t op,
			  bool ipv6, const uint8_t *payload, uint32_t len);

/* Deterministic pseudo-random numbers (xorshift). */
uint32_t test_roce_rand(uint64_t *state);

#endif
