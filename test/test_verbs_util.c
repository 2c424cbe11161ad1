/* SPDX-License-Identifier: BSD-3-Clause */
/* Verbs test helpers (see test_verbs_util.h); registers no tests. */
#include <stddef.h>
#include <unistd.h>

#include "dpv_test.h"
#include "test_verbs_util.h"

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
test_verbs_wait_wc(struct ibv_cq *c, struct ibv_wc *wc, int max, int ms)
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
