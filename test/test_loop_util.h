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

/* Two QPs of type t on pd (8 send and receive WRs of one SGE each),
 * sending to scq and receiving to rcq, each connected to the other
 * (test_loop_connect(), c's dest_qpn set here). 0, or -1 with what was
 * created in qp[] (NULL otherwise) for the caller to destroy. */
int test_loop_pair(struct ibv_pd *pd, struct ibv_cq *scq, struct ibv_cq *rcq,
		   enum ibv_qp_type t, int gid_index, struct test_loop_conn *c,
		   struct ibv_qp *qp[2]);

/* Undo test_loop_pair(): destroy the QPs of qp[] that exist, then scq and
 * rcq (either may be NULL), and set qp[] to NULL. */
void test_loop_unpair(struct ibv_qp *qp[2], struct ibv_cq *scq,
		      struct ibv_cq *rcq);

/* Resident set size of this process, bytes (0 if unknown). */
uint64_t test_loop_rss(void);

/* Bytes allocated from DPDK's heaps (rte_malloc), all sockets. */
uint64_t test_loop_heap(void);

/* Poll c until max completions are in wc or about ms milliseconds have
 * passed (polling runs the device's engine). The count, or < 0 on a poll
 * error. */
int test_loop_wait_wc(struct ibv_cq *c, struct ibv_wc *wc, int max, int ms);

/* A receive of dlen bytes at dst on qp[1] (wr_id 2), then a signaled
 * SEND of len bytes from src on qp[0] (wr_id 1); both in mr. 0, or EIO
 * if a post failed. */
int test_loop_send_recv(struct ibv_qp *qp[2], struct ibv_mr *mr, void *src,
			uint32_t len, void *dst, uint32_t dlen);

/* The polling window of ibv_get_cq_event() on ch's device set to us
 * microseconds (0: none), and ch's own window that long, with no try of
 * it pending or backed off (lib/verbs/verbs_cq.c). */
void test_loop_event_window(struct ibv_comp_channel *ch, uint64_t us);

#endif
