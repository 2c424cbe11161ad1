/* SPDX-License-Identifier: BSD-3-Clause */
/* Engine test helpers (see test_engine_util.h); registers no tests. */
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "dpv_roce_gid.h"
#include "dpv_test.h"
#include "test_engine_util.h"

int
test_engine_pool_setup(struct rte_mempool **mp, const char *name)
{
	return test_engine_pool_setup_n(mp, name, 1024);
}

int
test_engine_pool_setup_n(struct rte_mempool **mp, const char *name,
			 unsigned int n)
{
	if (dpv_test_eal_init() != 0)
		return TEST_SKIPPED;
	*mp = rte_pktmbuf_pool_create(name, n, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				      SOCKET_ID_ANY);
	return *mp ? 0 : TEST_FAILED;
}

void
test_engine_pool_free(struct rte_mempool **mp)
{
	rte_mempool_free(*mp);
	*mp = NULL;
}

int
test_engine_qp_rings_init(struct test_engine_qp *t, uint32_t qpn,
			  enum ibv_qp_type type, size_t buf_size)
{
	memset(t, 0, sizeof(*t));
	t->qpn = qpn;
	if (dpv_mlx5_cq_init(&t->scq, 128, SOCKET_ID_ANY) ||
	    dpv_mlx5_cq_init(&t->rcq, 128, SOCKET_ID_ANY) ||
	    dpv_mlx5_sq_init(&t->sq, 64, 4, 64, SOCKET_ID_ANY) ||
	    dpv_mlx5_rq_init(&t->rq, 64, 4, SOCKET_ID_ANY))
		return -1;
	dpv_mlx5_qp_link_dbrec(&t->sq, &t->rq);
	dpv_mlx5_sq_bind(&t->sq, type, qpn);
	t->buf = aligned_alloc(64, buf_size);
	if (t->buf == NULL)
		return -1;
	memset(t->buf, 0, buf_size);
	return 0;
}

int
test_engine_qp_create(struct dpv_engine *e, struct test_engine_qp *t,
		      uint32_t qpn, enum ibv_qp_type type, uint32_t pdn,
		      size_t buf_size, struct dpv_mlx5_rq *srq, uint32_t srqn)
{
	struct dpv_engine_qp_init init = {
		.qpn = qpn,
		.type = type,
		.pdn = pdn,
		.sq = &t->sq,
		.rq = srq ? NULL : &t->rq,
		.srq = srq,
		.srqn = srqn,
		.send_cq = &t->scq,
		.recv_cq = &t->rcq,
		.max_send_wr = 64,
	};

	if (test_engine_qp_rings_init(t, qpn, type, buf_size))
		return -1;
	return dpv_engine_qp_create(e, &init);
}

struct dpv_mlx5_wq *
test_engine_qp_wq(struct test_engine_qp *const *qps, unsigned int n,
		  uint32_t qpn, bool recv)
{
	for (unsigned int i = 0; i < n; i++)
		if (qps[i]->qpn == qpn)
			return recv ? &qps[i]->rq.wq : &qps[i]->sq.wq;
	return NULL;
}

void
test_engine_qp_fini(struct dpv_engine *e, struct test_engine_qp *t)
{
	dpv_engine_qp_destroy(e, t->qpn);
	dpv_mlx5_sq_fini(&t->sq);
	dpv_mlx5_rq_fini(&t->rq);
	dpv_mlx5_cq_fini(&t->scq);
	dpv_mlx5_cq_fini(&t->rcq);
	free(t->buf);
	t->buf = NULL;
}

void
test_engine_loop_path(struct dpv_engine_path *p, const uint8_t mac[6],
		      uint32_t ipv4)
{
	memset(p, 0, sizeof(*p));
	memcpy(p->smac, mac, 6);
	memcpy(p->dmac, mac, 6);
	dpv_roce_gid_from_ipv4(p->sgid, rte_cpu_to_be_32(ipv4));
	dpv_roce_gid_from_ipv4(p->dgid, rte_cpu_to_be_32(ipv4));
}

int
test_engine_connect(struct dpv_engine *e, uint32_t qpn,
		    const struct test_engine_conn *c)
{
	struct ibv_qp_attr a = {0};
	int ret;

	a.qp_state = IBV_QPS_INIT;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			    IBV_ACCESS_REMOTE_ATOMIC;
	ret = dpv_engine_qp_modify(e, qpn, &a,
				   IBV_QP_STATE | IBV_QP_ACCESS_FLAGS, NULL);
	if (ret)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = c->mtu;
	a.dest_qp_num = c->dest_qpn;
	a.rq_psn = c->psn;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 1; /* 10 us */
	ret = dpv_engine_qp_modify(e, qpn, &a,
				   IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
					   IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
					   IBV_QP_MAX_DEST_RD_ATOMIC |
					   IBV_QP_MIN_RNR_TIMER,
				   c->path);
	if (ret)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = c->psn;
	a.timeout = c->timeout;
	a.retry_cnt = 7;
	a.rnr_retry = c->rnr_retry;
	a.max_rd_atomic = 4;
	return dpv_engine_qp_modify(e, qpn, &a,
				    IBV_QP_STATE | IBV_QP_SQ_PSN |
					    IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
					    IBV_QP_RNR_RETRY |
					    IBV_QP_MAX_QP_RD_ATOMIC,
				    NULL);
}

int
test_engine_wait_wc(struct dpv_engine *e, struct dpv_mlx5_cq *cq,
		    struct ibv_wc *wc, dpv_mlx5_wq_lookup_t lookup,
		    unsigned int max_iter)
{
	uint64_t end = rte_get_timer_cycles() + 3 * rte_get_timer_hz();

	for (unsigned int i = 0; i < max_iter || rte_get_timer_cycles() < end;
	     i++) {
		int n = dpv_mlx5_cq_poll(cq, 1, wc, lookup, NULL);

		if (n < 0)
			return n;
		if (n == 1)
			return 0;
		if (i >= max_iter && rte_get_timer_cycles() >= end)
			break;
		dpv_engine_poll(e, 32);
	}
	return -1;
}
