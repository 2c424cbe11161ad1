/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef TEST_LOOP_UTIL_H
#define TEST_LOOP_UTIL_H

/* Verbs QPs connected to each other on one device (loopback), shared by
 * the scale and soak tests. Registers no tests. */
#include <stdint.h>

#include <infiniband/verbs.h>

/* How test_loop_connect() sets a QP up. */
struct test_loop_conn {
	uint32_t dest_qpn;  /* the peer QP (on the same device) */
	uint32_t sq_psn;    /* this QP's first PSN */
	uint32_t rq_psn;    /* the peer's first PSN */
	enum ibv_mtu mtu;   /* path MTU */
	uint8_t timeout;    /* RC: local ACK timeout exponent */
	uint8_t rd_atomic;  /* RC: max_rd_atomic and max_dest_rd_atomic */
};

/* The first usable GID of port 1: its index and *gid, or -1. */
int test_loop_gid(struct ibv_context *ctx, union ibv_gid *gid);

/* RESET -> INIT -> RTR -> RTS for an RC, UC or XRC send QP whose peer is on
 * the same device (GID gid_index of port 1 both ways); remote write, read
 * and atomics allowed (not on UC); an XRC target QP stops at RTR. 0 or
 * the errno of the modify that failed. */
int test_loop_connect(struct ibv_qp *qp, int gid_index,
		      const struct test_loop_conn *c);

/* Resident set size of this process, bytes (0 if unknown). */
uint64_t test_loop_rss(void);

/* Bytes allocated from DPDK's heaps (rte_malloc), all sockets. */
uint64_t test_loop_heap(void);

#endif
