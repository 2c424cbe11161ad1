/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpv-cqmod-modes: the CQ moderation scenarios of test_cqmod_util.c
 * (count, period, solicited-only, off) on the first device, which the
 * library brings up itself: its progress mode is what DPV_PROGRESS and the
 * configuration ([dpverbs] workers, shards) make it, unlike in dpv-test,
 * which owns EAL. For test/scripts/fast-cqmod-modes.sh. Prints one
 * RESULT line with the progress mode; exits 0 when every scenario passed.
 */
#include <stdio.h>
#include <stdlib.h>

#include <infiniband/verbs.h>

#include "dpv_verbs.h"
#include "test_cqmod_util.h"
#include "test_loop_util.h"

static uint8_t buf[4096];

int
main(void)
{
	static int (*const scen[])(struct cqmod_env *) = {
		cqmod_count, cqmod_period, cqmod_solicited, cqmod_off};
	struct dpv_device_progress prog = {0};
	struct ibv_device **devs;
	struct cqmod_env v = {.buf = buf};
	union ibv_gid gid;
	int n = 0, failed = 0;

	devs = ibv_get_device_list(&n);
	if (devs == NULL || n < 1) {
		fprintf(stderr, "no device\n");
		return 1;
	}
	v.ctx = ibv_open_device(devs[0]);
	v.pd = v.ctx != NULL ? ibv_alloc_pd(v.ctx) : NULL;
	v.mr = v.pd != NULL ? ibv_reg_mr(v.pd, buf, sizeof(buf),
					 IBV_ACCESS_LOCAL_WRITE)
			    : NULL;
	v.gid_index = v.ctx != NULL ? test_loop_gid(v.ctx, &gid) : -1;
	if (v.mr == NULL || v.gid_index < 0 ||
	    dpv_device_progress_get(v.ctx, &prog) != 0) {
		fprintf(stderr, "no device, PD, MR or GID\n");
		return 1;
	}
	for (size_t i = 0; i < sizeof(scen) / sizeof(scen[0]); i++) {
		if (cqmod_open(&v) != 0 || scen[i](&v) != 0) {
			fprintf(stderr, "scenario %zu failed\n", i);
			failed++;
		}
		cqmod_close(&v);
	}
	printf("RESULT cqmod progress=%d failed=%d\n", prog.mode, failed);
	ibv_dereg_mr(v.mr);
	ibv_dealloc_pd(v.pd);
	ibv_close_device(v.ctx);
	ibv_free_device_list(devs);
	return failed != 0;
}
