/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * LD_PRELOAD module for benchmarks: a process that opens a device gets
 * DPV_IDLE_QPS more RC QPs that nothing ever posts to, as an application
 * with many connections has beside the one it talks on. They are made on
 * the first protection domain the program allocates (with a CQ of their
 * own) and taken to INIT; they live until the process exits. Unmodified
 * perftest then measures what idle QPs cost the one it uses
 * (devtools/bench.py's ib_send_lat+idle case).
 *
 * Only the verbs entry points are looked up (the next ibv_alloc_pd in
 * the search order, ours or rdma-core's): preloaded into a program that
 * never opens a device, this module does nothing.
 */
#include <dlfcn.h> /* dlvsym: the build defines _GNU_SOURCE */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <infiniband/verbs.h>

typedef struct ibv_pd *(*alloc_pd_fn)(struct ibv_context *);
typedef struct ibv_cq *(*create_cq_fn)(struct ibv_context *, int, void *,
				       struct ibv_comp_channel *, int);
typedef struct ibv_qp *(*create_qp_fn)(struct ibv_pd *,
				       struct ibv_qp_init_attr *);
typedef int (*modify_qp_fn)(struct ibv_qp *, struct ibv_qp_attr *, int);

static void *
next_sym(const char *name)
{
	void *f = dlvsym(RTLD_NEXT, name, "IBVERBS_1.1");

	return f != NULL ? f : dlsym(RTLD_NEXT, name);
}

/* n idle QPs on pd; how many were made */
static int
make_idle(struct ibv_context *ctx, struct ibv_pd *pd, int n)
{
	create_cq_fn create_cq = (create_cq_fn)next_sym("ibv_create_cq");
	create_qp_fn create_qp = (create_qp_fn)next_sym("ibv_create_qp");
	modify_qp_fn modify_qp = (modify_qp_fn)next_sym("ibv_modify_qp");
	struct ibv_cq *cq;
	int made = 0;

	if (create_cq == NULL || create_qp == NULL || modify_qp == NULL)
		return 0;
	cq = create_cq(ctx, 16, NULL, NULL, 0);
	for (int i = 0; cq != NULL && i < n; i++) {
		struct ibv_qp_init_attr ia = {
			.send_cq = cq,
			.recv_cq = cq,
			.cap = {.max_send_wr = 4,
				.max_recv_wr = 4,
				.max_send_sge = 1,
				.max_recv_sge = 1},
			.qp_type = IBV_QPT_RC,
		};
		struct ibv_qp_attr qa = {.qp_state = IBV_QPS_INIT,
					 .port_num = 1};
		struct ibv_qp *qp = create_qp(pd, &ia);

		if (qp == NULL)
			break;
		if (modify_qp(qp, &qa,
			      IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				      IBV_QP_ACCESS_FLAGS) == 0)
			made++;
	}
	return made;
}

struct ibv_pd *
ibv_alloc_pd(struct ibv_context *ctx)
{
	static alloc_pd_fn next;
	static int done;
	const char *v = getenv("DPV_IDLE_QPS");
	struct ibv_pd *pd;
	int n = v != NULL ? atoi(v) : 0;

	if (next == NULL)
		next = (alloc_pd_fn)next_sym("ibv_alloc_pd");
	if (next == NULL) {
		errno = ENOSYS;
		return NULL;
	}
	pd = next(ctx);
	if (pd != NULL && n > 0 &&
	    !__atomic_exchange_n(&done, 1, __ATOMIC_ACQ_REL))
		fprintf(stderr, "dpv-idle-qps: %d idle QPs of %d\n",
			make_idle(ctx, pd, n), n);
	return pd;
}
