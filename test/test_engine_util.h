/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef TEST_ENGINE_UTIL_H
#define TEST_ENGINE_UTIL_H

/* Helpers shared by the engine tests that drive dpv_engine directly
 * (rings of drivers/rdma/mlx5, no verbs layer). */
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "dpv_engine.h"
#include "mlx5_ring.h"

struct rte_mempool;

/* Suite set-up: EAL and a packet pool called name. 0, TEST_SKIPPED (no
 * EAL) or TEST_FAILED. */
int test_engine_pool_setup(struct rte_mempool **mp, const char *name);
/* The same with n mbufs (the loop ring holds up to 4,096 frames). */
int test_engine_pool_setup_n(struct rte_mempool **mp, const char *name,
			     unsigned int n);
/* Free the pool of test_engine_pool_setup() and clear *mp. */
void test_engine_pool_free(struct rte_mempool **mp);

/* One QP's mlx5 rings and its registered buffer. */
struct test_engine_qp {
	uint32_t qpn;
	struct dpv_mlx5_sq sq;
	struct dpv_mlx5_rq rq;
	struct dpv_mlx5_cq scq, rcq;
	uint8_t *buf; /* zeroed, buf_size bytes */
	uint32_t key;
};

/* Clear *t and set up its rings (CQs of 128, SQ/RQ of 64 with 4 SGEs,
 * SQ bound to type/qpn) and a 64-byte aligned zeroed buffer of buf_size.
 * 0 or -1. */
int test_engine_qp_rings_init(struct test_engine_qp *t, uint32_t qpn,
			      enum ibv_qp_type type, size_t buf_size);
/* test_engine_qp_rings_init() then QP qpn of type on e over those rings
 * (PD pdn, 64 send WRs), receiving from srq (number srqn) instead of t's
 * RQ if srq is not NULL. 0, -1 (rings) or dpv_engine_qp_create()'s
 * error. */
int test_engine_qp_create(struct dpv_engine *e, struct test_engine_qp *t,
			  uint32_t qpn, enum ibv_qp_type type, uint32_t pdn,
			  size_t buf_size, struct dpv_mlx5_rq *srq,
			  uint32_t srqn);
/* The engine's ring lookup (dpv_mlx5_wq_lookup_t) over the test QPs
 * qps[0..n): the receive or send ring of the one whose qpn is qpn, NULL
 * if none is. */
struct dpv_mlx5_wq *test_engine_qp_wq(struct test_engine_qp *const *qps,
				      unsigned int n, uint32_t qpn, bool recv);
/* Destroy QP t->qpn of e, its rings and its buffer. */
void test_engine_qp_fini(struct dpv_engine *e, struct test_engine_qp *t);
/* Loopback address vector: both MACs mac, both GIDs the IPv4-mapped
 * ipv4 (host order). */
void test_engine_loop_path(struct dpv_engine_path *p, const uint8_t mac[6],
			   uint32_t ipv4);

/* How test_engine_connect() brings a QP to RTS. */
struct test_engine_conn {
	const struct dpv_engine_path *path; /* RTR address vector */
	enum ibv_mtu mtu;
	uint32_t dest_qpn;
	uint32_t psn; /* first PSN, both directions */
	uint8_t timeout;
	uint8_t rnr_retry;
};

/* RESET -> INIT -> RTR -> RTS with remote access, 4 RDMA reads/atomics
 * each way, 7 retries, RNR timer 1. 0 or the first failing
 * dpv_engine_qp_modify() result. */
int test_engine_connect(struct dpv_engine *e, uint32_t qpn,
			const struct test_engine_conn *c);

/* Run e until one completion is on cq, for at least max_iter iterations
 * and 3 s. 0 (*wc filled), a negative poll error, or -1 on timeout. */
int test_engine_wait_wc(struct dpv_engine *e, struct dpv_mlx5_cq *cq,
			struct ibv_wc *wc, dpv_mlx5_wq_lookup_t lookup,
			unsigned int max_iter);

#endif
