/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Engine shards and memory: on a device with two shards (DPV_SHARDS=2)
 * RC QPs go to the shards in turn, and the rings of a QP of one shard
 * share no 4 KiB page with those of a QP of the other (each shard's QPs
 * come from a memory arena of their own: hot lines of two lcores in one
 * page slow both).
 */
#include <stdint.h>
#include <stdlib.h>

#include <infiniband/verbs.h>

#include <rte_lcore.h>

#include "dpv_test.h"
#include "mlx5_ring.h"
#include "qp.h"
#include "verbs_int.h"

#define NQP 8
#define PAGE 4096u

struct span {
	uintptr_t lo, hi; /* first and last page */
};

static struct span
span_of(const void *p, size_t len)
{
	struct span s = {(uintptr_t)p / PAGE, ((uintptr_t)p + len - 1) / PAGE};

	return s;
}

/* The first page a span of a[0..na) shares with one of b[0..nb), + 1;
 * 0 if none. */
static uintptr_t
spans_meet(const struct span *a, unsigned int na, const struct span *b,
	   unsigned int nb)
{
	for (unsigned int k = 0; k < na; k++)
		for (unsigned int l = 0; l < nb; l++)
			if (a[k].lo <= b[l].hi && b[l].lo <= a[k].hi)
				return RTE_MAX(a[k].lo, b[l].lo) + 1;
	return 0;
}

/* the blocks of a QP's rings (with the allocator's header line) */
static unsigned int
qp_spans(const struct dpv_qp *q, struct span *out)
{
	const struct dpv_mlx5_wq *w[2] = {&q->sq.wq, &q->rq.wq};
	unsigned int n = 0;

	for (unsigned int i = 0; i < 2; i++) {
		size_t len = (size_t)w[i]->wqe_cnt << w[i]->wqe_shift;

		out[n++] = span_of((const uint8_t *)w[i]->buf - 64, len + 64);
		if (w[i]->wrid != NULL) /* NULL for a send queue */
			out[n++] = span_of((const uint8_t *)w[i]->wrid - 64,
					   w[i]->wqe_cnt * sizeof(uint64_t) +
						   64);
	}
	/* the send queue's wr_ids are in its slots */
	out[n++] = span_of((const uint8_t *)q->sq.slot - 64,
			   q->sq.wq.wqe_cnt * sizeof(*q->sq.slot) + 64);
	out[n++] = span_of((const uint8_t *)q->rq.wq.dbrec_own - 64, 128);
	return n;
}

static int
test_qp_shard_mem(void)
{
	struct ibv_qp_init_attr a = {
		.cap = {.max_send_wr = 64, .max_recv_wr = 64,
			.max_send_sge = 1, .max_recv_sge = 1},
		.qp_type = IBV_QPT_RC,
	};
	struct ibv_device **devs;
	struct ibv_context *ctx;
	struct ibv_qp *qp[NQP] = {0};
	struct span sp[NQP][8];
	unsigned int nsp[NQP];
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	int n, ret = TEST_FAILED;

	/* the library starts EAL itself (shards are for a library that owns
	 * EAL), on the loopback port, before it reads its configuration */
	if (rte_lcore_count() != 0)
		return TEST_SKIPPED; /* EAL started already in this process */
	setenv("DPV_SHARDS", "2", 1);
	devs = ibv_get_device_list(&n);
	if (devs == NULL || n == 0)
		return TEST_SKIPPED;
	ctx = ibv_open_device(devs[0]);
	TEST_ASSERT_NOT_NULL(ctx, "open");
	if (dctx_dev(ctx)->nshards != 2) {
		DPV_TEST_LOG("the device has %u shards: not a sharded setup",
			     dctx_dev(ctx)->nshards);
		ibv_close_device(ctx);
		ibv_free_device_list(devs);
		return TEST_SKIPPED;
	}
	pd = ibv_alloc_pd(ctx);
	cq = pd ? ibv_create_cq(ctx, 256, NULL, NULL, 0) : NULL;
	TEST_ASSERT(pd != NULL && cq != NULL, "pd, cq");
	a.send_cq = a.recv_cq = cq;
	for (int i = 0; i < NQP; i++) {
		qp[i] = ibv_create_qp(pd, &a);
		if (qp[i] == NULL) {
			DPV_TEST_LOG("QP %d: %m", i);
			goto out;
		}
		nsp[i] = qp_spans(to_dqp(qp[i]), sp[i]);
	}
	for (int i = 1; i < NQP; i++)
		if (to_dqp(qp[i])->shard == to_dqp(qp[i - 1])->shard) {
			DPV_TEST_LOG("QPs %d and %d both on shard %u", i - 1, i,
				     to_dqp(qp[i])->shard);
			goto out;
		}
	for (int i = 0; i < NQP; i++)
		for (int j = 0; j < NQP; j++) {
			unsigned int si = to_dqp(qp[i])->shard,
				     sj = to_dqp(qp[j])->shard;
			uintptr_t pg;

			if (si == sj)
				continue;
			pg = spans_meet(sp[i], nsp[i], sp[j], nsp[j]);
			if (pg != 0) {
				DPV_TEST_LOG("QPs %d and %d (shards %u, %u) "
					     "share the page at %#lx",
					     i, j, si, sj,
					     (unsigned long)(pg - 1) * PAGE);
				goto out;
			}
		}
	ret = TEST_SUCCESS;
out:
	for (int i = 0; i < NQP; i++)
		if (qp[i] != NULL)
			ibv_destroy_qp(qp[i]);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(devs);
	return ret;
}

DPV_TEST_REGISTER_FAST(qp_shard_mem, test_qp_shard_mem);
