/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef TEST_VERBS_UTIL_H
#define TEST_VERBS_UTIL_H

/* Helpers shared by the tests of the verbs front end. */
#include <infiniband/verbs.h>

#include "test_loop_util.h"

/* Start EAL and open the first verbs device; *devs keeps the device list.
 * TEST_SUCCESS or TEST_FAILED. */
int test_verbs_open_first(struct ibv_device ***devs, struct ibv_context **ctx);

/* Suite tear-down: deallocate *pd, close *ctx (each if set), free the
 * device list and clear all three. */
void test_verbs_release(struct ibv_device ***devs, struct ibv_context **ctx,
			struct ibv_pd **pd);

/* Post wr on qp, signaled, and wait up to 2 s for its completion on cq
 * (cq must hold no other): its status, -1 if the post failed or none
 * came. */
int test_verbs_post_wait(struct ibv_qp *qp, struct ibv_cq *cq,
			 struct ibv_send_wr *wr);

/* The index of port 1's first GID that is set (the table holds 16), its
 * value in *gid; -1 if none is. */
int test_verbs_first_gid(struct ibv_context *ctx, union ibv_gid *gid);

/* Suite set-up of the loopback traffic tests: the first device (it must
 * have an engine), a PD, an MR over len bytes at buf with access, and
 * port 1's first usable GID (*gid, *gid_index). TEST_SUCCESS,
 * TEST_SKIPPED (no device, engine or GID) or TEST_FAILED. */
int test_verbs_loop_open(struct ibv_device ***devs, struct ibv_context **ctx,
			 struct ibv_pd **pd, struct ibv_mr **mr, void *buf,
			 size_t len, int access, union ibv_gid *gid,
			 int *gid_index);

/* Its tear-down: deregister *mr, then test_verbs_release(); all cleared. */
void test_verbs_loop_close(struct ibv_device ***devs, struct ibv_context **ctx,
			   struct ibv_pd **pd, struct ibv_mr **mr);

#endif
