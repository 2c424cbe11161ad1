/* SPDX-License-Identifier: BSD-3-Clause */
/* Loopback verbs helpers (see test_loop_util.h); registers no tests. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_malloc.h>
#include <rte_memory.h>

#include "test_loop_util.h"
#include "verbs_int.h"

int
test_loop_gid(struct ibv_context *ctx, union ibv_gid *gid)
{
	struct ibv_port_attr pa;

	if (ibv_query_port(ctx, 1, &pa) != 0)
		return -1;
	for (int i = 0; i < pa.gid_tbl_len; i++)
		if (ibv_query_gid(ctx, 1, i, gid) == 0 &&
		    (gid->global.subnet_prefix || gid->global.interface_id))
			return i;
	return -1;
}

int
test_loop_connect(struct ibv_qp *qp, int gid_index,
		  const struct test_loop_conn *c)
{
	bool rc = qp->qp_type == IBV_QPT_RC ||
		  qp->qp_type == IBV_QPT_XRC_SEND ||
		  qp->qp_type == IBV_QPT_XRC_RECV;
	/* RTR's responder attributes: not on an XRC send QP */
	bool resp = rc && qp->qp_type != IBV_QPT_XRC_SEND;
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				   (rc ? IBV_ACCESS_REMOTE_READ |
						 IBV_ACCESS_REMOTE_ATOMIC
				       : 0),
	};
	int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
		   IBV_QP_ACCESS_FLAGS;

	if (ibv_modify_qp(qp, &a, mask) != 0)
		return errno ? errno : EINVAL;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.ah_attr.is_global = 1;
	if (ibv_query_gid(qp->context, 1, gid_index, &a.ah_attr.grh.dgid))
		return errno ? errno : EINVAL;
	a.ah_attr.grh.sgid_index = (uint8_t)gid_index;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = 1;
	a.path_mtu = c->mtu;
	a.dest_qp_num = c->dest_qpn;
	a.rq_psn = c->rq_psn;
	mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
	       IBV_QP_RQ_PSN;
	if (resp) {
		a.max_dest_rd_atomic = c->rd_atomic;
		a.min_rnr_timer = 1;
		mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	}
	if (ibv_modify_qp(qp, &a, mask) != 0)
		return errno ? errno : EINVAL;
	if (qp->qp_type == IBV_QPT_XRC_RECV)
		return 0; /* a target receives only */
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = c->sq_psn;
	mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
	if (rc) {
		a.timeout = c->timeout;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.max_rd_atomic = c->rd_atomic;
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_MAX_QP_RD_ATOMIC;
	}
	if (ibv_modify_qp(qp, &a, mask) != 0)
		return errno ? errno : EINVAL;
	return 0;
}

uint64_t
test_loop_rss(void)
{
	unsigned long size, rss;
	FILE *f = fopen("/proc/self/statm", "r");
	int n;

	if (f == NULL)
		return 0;
	n = fscanf(f, "%lu %lu", &size, &rss);
	fclose(f);
	return n == 2 ? (uint64_t)rss * (uint64_t)sysconf(_SC_PAGESIZE) : 0;
}

int
test_loop_pair(struct ibv_pd *pd, struct ibv_cq *scq, struct ibv_cq *rcq,
	       enum ibv_qp_type t, int gid_index, struct test_loop_conn *c,
	       struct ibv_qp *qp[2])
{
	struct ibv_qp_init_attr ia = {
		.send_cq = scq,
		.recv_cq = rcq,
		.cap = {.max_send_wr = 8,
			.max_recv_wr = 8,
			.max_send_sge = 1,
			.max_recv_sge = 1},
		.qp_type = t,
	};

	qp[0] = ibv_create_qp(pd, &ia);
	qp[1] = qp[0] != NULL ? ibv_create_qp(pd, &ia) : NULL;
	if (qp[1] == NULL)
		return -1;
	for (int i = 0; i < 2; i++) {
		c->dest_qpn = qp[!i]->qp_num;
		if (test_loop_connect(qp[i], gid_index, c) != 0)
			return -1;
	}
	return 0;
}

void
test_loop_unpair(struct ibv_qp *qp[2], struct ibv_cq *scq, struct ibv_cq *rcq)
{
	for (int i = 0; i < 2; i++) {
		if (qp[i] != NULL)
			ibv_destroy_qp(qp[i]);
		qp[i] = NULL;
	}
	if (scq != NULL)
		ibv_destroy_cq(scq);
	if (rcq != NULL)
		ibv_destroy_cq(rcq);
}

uint64_t
test_loop_heap(void)
{
	struct rte_malloc_socket_stats s;
	uint64_t sum = 0;

	for (int i = 0; i < RTE_MAX_NUMA_NODES; i++)
		if (rte_malloc_get_socket_stats(i, &s) == 0)
			sum += s.heap_allocsz_bytes;
	return sum;
}

int
test_loop_wait_wc(struct ibv_cq *c, struct ibv_wc *wc, int max, int ms)
{
	int got = 0, i, r;

	for (i = 0; i < ms * 10 && got < max; i++) {
		r = ibv_poll_cq(c, max - got, wc + got);
		if (r < 0)
			return r;
		got += r;
		if (r == 0)
			usleep(100);
	}
	return got;
}

int
test_loop_send_recv(struct ibv_qp *qp[2], struct ibv_mr *mr, void *src,
		    uint32_t len, void *dst, uint32_t dlen)
{
	struct ibv_sge rs = {(uintptr_t)dst, dlen, mr->lkey};
	struct ibv_sge ss = {(uintptr_t)src, len, mr->lkey};
	struct ibv_recv_wr rw = {.wr_id = 2, .sg_list = &rs, .num_sge = 1};
	struct ibv_send_wr sw = {.wr_id = 1,
				 .sg_list = &ss,
				 .num_sge = 1,
				 .opcode = IBV_WR_SEND,
				 .send_flags = IBV_SEND_SIGNALED};
	struct ibv_recv_wr *rb;
	struct ibv_send_wr *sb;

	if (ibv_post_recv(qp[1], &rw, &rb) != 0 ||
	    ibv_post_send(qp[0], &sw, &sb) != 0)
		return EIO;
	return 0;
}

void
test_loop_event_window(struct ibv_comp_channel *ch, uint64_t us)
{
	struct dpv_comp_channel *dch = to_dchan(ch);

	dctx_dev(ch->context)->event_poll_cycles =
		rte_get_tsc_hz() / 1000000 * us;
	atomic_store(&dch->poll_window, UINT64_MAX);
	atomic_store(&dch->tried, false);
	atomic_store(&dch->try_skip, 0);
	atomic_store(&dch->try_backoff, 1);
}
