/* SPDX-License-Identifier: BSD-3-Clause */
/* Verbs test helpers (see test_verbs_util.h); registers no tests. */
#include <stddef.h>
#include <unistd.h>

#include "dpv_test.h"
#include "test_verbs_util.h"
#include "verbs_int.h"

int
test_verbs_open_first(struct ibv_device ***devs, struct ibv_context **ctx)
{
	int n = 0;

	if (dpv_test_eal_init() != 0)
		return TEST_FAILED;
	*devs = ibv_get_device_list(&n);
	if (*devs == NULL || n < 1)
		return TEST_FAILED;
	*ctx = ibv_open_device((*devs)[0]);
	return *ctx ? TEST_SUCCESS : TEST_FAILED;
}

void
test_verbs_release(struct ibv_device ***devs, struct ibv_context **ctx,
		   struct ibv_pd **pd)
{
	if (*pd)
		ibv_dealloc_pd(*pd);
	if (*ctx)
		ibv_close_device(*ctx);
	if (*devs)
		ibv_free_device_list(*devs);
	*pd = NULL;
	*ctx = NULL;
	*devs = NULL;
}

int
test_verbs_first_gid(struct ibv_context *ctx, union ibv_gid *gid)
{
	for (int i = 0; i < 16; i++)
		if (ibv_query_gid(ctx, 1, i, gid) == 0 &&
		    (gid->global.subnet_prefix || gid->global.interface_id))
			return i;
	return -1;
}

int
test_verbs_post_wait(struct ibv_qp *qp, struct ibv_cq *cq,
		     struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad;
	struct ibv_wc wc;

	wr->send_flags = IBV_SEND_SIGNALED;
	if (ibv_post_send(qp, wr, &bad) != 0 ||
	    test_loop_wait_wc(cq, &wc, 1, 2000) != 1)
		return -1;
	return wc.status;
}

int
test_verbs_loop_open(struct ibv_device ***devs, struct ibv_context **ctx,
		     struct ibv_pd **pd, struct ibv_mr **mr, void *buf,
		     size_t len, int access, union ibv_gid *gid, int *gid_index)
{
	if (test_verbs_open_first(devs, ctx) != TEST_SUCCESS)
		return TEST_SKIPPED;
	if (to_dctx(*ctx)->dev->engine == NULL)
		return TEST_SKIPPED;
	*pd = ibv_alloc_pd(*ctx);
	*mr = *pd ? ibv_reg_mr(*pd, buf, len, access) : NULL;
	if (*mr == NULL)
		return TEST_FAILED;
	*gid_index = test_verbs_first_gid(*ctx, gid);
	return *gid_index >= 0 ? TEST_SUCCESS : TEST_SKIPPED;
}

void
test_verbs_loop_close(struct ibv_device ***devs, struct ibv_context **ctx,
		      struct ibv_pd **pd, struct ibv_mr **mr)
{
	if (*mr)
		ibv_dereg_mr(*mr);
	*mr = NULL;
	test_verbs_release(devs, ctx, pd);
}
