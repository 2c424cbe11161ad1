/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tag matching SRQs (lib/engine/dpv_tm.h, engine_tm.c) on the first
 * device, an RC QP on a TM SRQ receiving from a plain RC QP over loopback:
 *  - caps (ibv_tm_caps) and the refusals of ibv_create_srq_ex, a UD QP on
 *    a TM SRQ, ibv_post_srq_ops on a basic SRQ or with bad operations;
 *  - list operations: ADD / DEL / SYNC completions with their wr_ids, a
 *    DEL of a buffer no longer listed fails (IBV_WC_TM_ERR), handles run
 *    out at max_num_tags and come back when their completion is read;
 *  - EAGER: the oldest matching buffer takes the payload after the
 *    header, one completion (MATCH | DATA_VALID, tag and app_ctx), also
 *    for a message of several packets; too long a message completes its
 *    buffer with IBV_WC_LOC_LEN_ERR;
 *  - unexpected and untagged messages go whole to an ordinary WQE; a tag
 *    added before software reported the unexpected one asks for a sync
 *    and is not matched; after IBV_WR_TAG_SYNC new tags are;
 *  - RNDV: the engine READs the sender's buffer into the tagged one and
 *    sends a FIN; two completions; data longer than the buffer goes to
 *    software as unexpected.
 * rdma-core's tests.test_tag_matching runs it too (slow-pyverbs.sh).
 */
#include <endian.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <infiniband/tm_types.h>
#include <infiniband/verbs.h>
#include <rte_cycles.h>

#include "dpv_test.h"
#include "dpv_tm.h"
#include "test_loop_util.h"
#include "test_verbs_util.h"

#define BIG    (96 * 1024 + 100) /* an RNDV's data */
#define TAGBUF (128 * 1024)	 /* a tagged buffer */
#define ORDBUF 4096		 /* an ordinary receive WQE's buffer */
#define NORD   4		 /* ordinary WQEs posted */

/* the registered memory: the sender's, tagged buffers, ordinary ones */
static struct {
	uint8_t snd[TAGBUF];
	uint8_t tag[2][TAGBUF];
	uint8_t ord[NORD][ORDBUF];
	uint8_t fin[ORDBUF];
} * mem;

static struct ibv_device **devs;
static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_mr *mr;
static int gid_index = -1;
static bool tm_ok;

static int
suite_setup(void)
{
	struct ibv_device_attr_ex ax;
	union ibv_gid gid;
	int rc;

	mem = aligned_alloc(4096, RTE_ALIGN_CEIL(sizeof(*mem), 4096));
	if (mem == NULL)
		return TEST_FAILED;
	rc = test_verbs_loop_open(&devs, &ctx, &pd, &mr, mem, sizeof(*mem),
				  IBV_ACCESS_LOCAL_WRITE |
					  IBV_ACCESS_REMOTE_READ |
					  IBV_ACCESS_REMOTE_WRITE,
				  &gid, &gid_index);
	if (rc == TEST_SUCCESS && ibv_query_device_ex(ctx, NULL, &ax) == 0)
		tm_ok = (ax.tm_caps.flags & IBV_TM_CAP_RC) != 0;
	return rc;
}

static void
suite_teardown(void)
{
	test_verbs_loop_close(&devs, &ctx, &pd, &mr);
	free(mem);
	mem = NULL;
}

/* One receiver on a TM SRQ and one plain sender, connected. */
struct tm_env {
	struct ibv_cq_ex *rcq; /* the receiver's and the SRQ's */
	struct ibv_cq *scq;    /* the sender's (send and receive) */
	struct ibv_srq *srq;
	struct ibv_qp *rqp, *sqp;
};

/* A completion as the extended CQ reads it. */
struct tm_wc {
	enum ibv_wc_status status;
	enum ibv_wc_opcode opcode;
	uint64_t wr_id;
	unsigned int flags;
	uint32_t len;
	uint64_t tag;
	uint32_t priv;
};

static struct ibv_srq *
tm_srq(struct ibv_cq *cq, uint32_t max_tags)
{
	struct ibv_srq_init_attr_ex a = {
		.attr = {.max_wr = 16, .max_sge = 1},
		.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
			     IBV_SRQ_INIT_ATTR_CQ | IBV_SRQ_INIT_ATTR_TM,
		.srq_type = IBV_SRQT_TM,
		.pd = pd,
		.cq = cq,
		.tm_cap = {.max_num_tags = max_tags, .max_ops = 8},
	};

	return ibv_create_srq_ex(ctx, &a);
}

static void
env_close(struct tm_env *v)
{
	if (v->rqp)
		ibv_destroy_qp(v->rqp);
	if (v->sqp)
		ibv_destroy_qp(v->sqp);
	if (v->srq)
		ibv_destroy_srq(v->srq);
	if (v->rcq)
		ibv_destroy_cq(ibv_cq_ex_to_cq(v->rcq));
	if (v->scq)
		ibv_destroy_cq(v->scq);
	memset(v, 0, sizeof(*v));
}

static int
env_open(struct tm_env *v, uint32_t max_tags)
{
	struct ibv_cq_init_attr_ex ca = {
		.cqe = 256,
		.wc_flags = IBV_WC_STANDARD_FLAGS | IBV_WC_EX_WITH_TM_INFO,
	};
	struct test_loop_conn c = {
		.mtu = IBV_MTU_1024, .timeout = 14, .rd_atomic = 4};
	struct ibv_qp_init_attr ia = {
		.cap = {.max_send_wr = 8,
			.max_recv_wr = 8,
			.max_send_sge = 1,
			.max_recv_sge = 1,
			.max_inline_data = 64},
		.qp_type = IBV_QPT_RC,
	};

	memset(v, 0, sizeof(*v));
	v->rcq = ibv_create_cq_ex(ctx, &ca);
	v->scq = ibv_create_cq(ctx, 256, NULL, NULL, 0);
	if (v->rcq == NULL || v->scq == NULL)
		goto fail;
	v->srq = tm_srq(ibv_cq_ex_to_cq(v->rcq), max_tags);
	if (v->srq == NULL)
		goto fail;
	ia.send_cq = ia.recv_cq = v->scq;
	v->sqp = ibv_create_qp(pd, &ia);
	ia.send_cq = ia.recv_cq = ibv_cq_ex_to_cq(v->rcq);
	ia.srq = v->srq;
	ia.cap.max_recv_wr = 0;
	v->rqp = ibv_create_qp(pd, &ia);
	if (v->sqp == NULL || v->rqp == NULL)
		goto fail;
	c.dest_qpn = v->rqp->qp_num;
	if (test_loop_connect(v->sqp, gid_index, &c) != 0)
		goto fail;
	c.dest_qpn = v->sqp->qp_num;
	if (test_loop_connect(v->rqp, gid_index, &c) != 0)
		goto fail;
	for (int i = 0; i < NORD; i++) {
		struct ibv_sge s = {(uintptr_t)mem->ord[i], ORDBUF, mr->lkey};
		struct ibv_recv_wr w = {.wr_id = 100 + i,
					.sg_list = &s,
					.num_sge = 1},
				   *bad;

		if (ibv_post_srq_recv(v->srq, &w, &bad) != 0)
			goto fail;
	}
	return 0;
fail:
	DPV_TEST_LOG("set-up failed: errno %d", errno);
	env_close(v);
	return -1;
}

/* The next completion of x within a second; -1 if none. */
static int
poll_x(struct ibv_cq_ex *x, struct tm_wc *o)
{
	struct ibv_poll_cq_attr pa = {0};
	uint64_t until = rte_rdtsc() + rte_get_tsc_hz();
	struct ibv_wc_tm_info ti;
	int rc;

	while ((rc = ibv_start_poll(x, &pa)) == ENOENT && rte_rdtsc() < until)
		;
	if (rc != 0)
		return -1;
	o->status = x->status;
	o->wr_id = x->wr_id;
	o->opcode = ibv_wc_read_opcode(x);
	o->flags = ibv_wc_read_wc_flags(x);
	o->len = ibv_wc_read_byte_len(x);
	ibv_wc_read_tm_info(x, &ti);
	o->tag = ti.tag;
	o->priv = ti.priv;
	ibv_end_poll(x);
	return 0;
}

/* Nothing more in x for a while. */
static bool
x_empty(struct ibv_cq_ex *x)
{
	struct ibv_poll_cq_attr pa = {0};
	uint64_t until = rte_rdtsc() + rte_get_tsc_hz() / 20;

	while (rte_rdtsc() < until) {
		if (ibv_start_poll(x, &pa) == 0) {
			ibv_end_poll(x);
			return false;
		}
	}
	return true;
}

/* List operation op on v's SRQ (its errno); *handle in and out. */
static int
tm_op(struct tm_env *v, enum ibv_ops_wr_opcode op, uint64_t wr_id, int flags,
      uint32_t unexp, uint64_t tag, uint64_t mask, uint8_t *buf, uint32_t len,
      uint32_t *handle)
{
	struct ibv_sge s = {(uintptr_t)buf, len, mr->lkey};
	struct ibv_ops_wr w = {.wr_id = wr_id, .opcode = op, .flags = flags},
			  *bad = NULL;
	int rc;

	w.tm.unexpected_cnt = unexp;
	w.tm.handle = handle ? *handle : 0;
	w.tm.add.recv_wr_id = wr_id + 1000;
	w.tm.add.sg_list = &s;
	w.tm.add.num_sge = buf ? 1 : 0;
	w.tm.add.tag = tag;
	w.tm.add.mask = mask;
	rc = ibv_post_srq_ops(v->srq, &w, &bad);
	if (rc == 0 && handle)
		*handle = w.tm.handle;
	if (rc != 0 && bad != &w)
		return -1;
	return rc;
}

/* A signaled ADD of tag with buffer buf of len, its completion checked
 * (sync: whether it asks for one). 0 or -1. */
static int
tm_add(struct tm_env *v, uint64_t wr_id, uint32_t unexp, int flags,
       uint64_t tag, uint64_t mask, uint8_t *buf, uint32_t len, bool sync,
       uint32_t *handle)
{
	struct tm_wc c;

	if (tm_op(v, IBV_WR_TAG_ADD, wr_id, IBV_OPS_SIGNALED | flags, unexp,
		  tag, mask, buf, len, handle) != 0 ||
	    poll_x(v->rcq, &c) != 0)
		return -1;
	if (c.status != IBV_WC_SUCCESS || c.opcode != IBV_WC_TM_ADD ||
	    c.wr_id != wr_id || !!(c.flags & IBV_WC_TM_SYNC_REQ) != sync) {
		DPV_TEST_LOG("ADD: status %d opcode %d wr_id %llu flags 0x%x",
			     c.status, c.opcode, (unsigned long long)c.wr_id,
			     c.flags);
		return -1;
	}
	return 0;
}

/* The sender sends len bytes of mem->snd, whose first bytes are a TMH of
 * opcode op, tag and app_ctx (none if op < 0); its completion checked. */
static int
send_tm(struct tm_env *v, int op, uint64_t tag, uint32_t ctx_be, uint32_t len)
{
	struct ibv_sge s = {(uintptr_t)mem->snd, len, mr->lkey};
	struct ibv_send_wr w = {.wr_id = 7,
				.sg_list = &s,
				.num_sge = 1,
				.opcode = IBV_WR_SEND,
				.send_flags = IBV_SEND_SIGNALED},
			   *bad;
	struct ibv_wc wc;

	if (op >= 0) {
		struct ibv_tmh h = {.opcode = (uint8_t)op,
				    .app_ctx = ctx_be,
				    .tag = htobe64(tag)};

		memcpy(mem->snd, &h, sizeof(h));
	}
	if (ibv_post_send(v->sqp, &w, &bad) != 0 ||
	    test_loop_wait_wc(v->scq, &wc, 1, 1000) != 1 ||
	    wc.status != IBV_WC_SUCCESS || wc.opcode != IBV_WC_SEND) {
		DPV_TEST_LOG("send: status %d", wc.status);
		return -1;
	}
	return 0;
}

static void
fill(uint8_t *p, uint32_t len, uint8_t seed)
{
	for (uint32_t i = 0; i < len; i++)
		p[i] = (uint8_t)(seed + i * 7 + (i >> 8));
}

static int
test_tm_caps(void)
{
	struct ibv_srq_init_attr basic = {.attr = {.max_wr = 4, .max_sge = 1}};
	struct ibv_device_attr_ex ax;
	struct ibv_srq *srq;
	struct ibv_cq *cq;
	struct ibv_ops_wr w = {.opcode = IBV_WR_TAG_SYNC}, *bad = NULL;
	struct ibv_qp_init_attr ia = {
		.cap = {.max_send_wr = 1, .max_send_sge = 1},
		.qp_type = IBV_QPT_UD};

	if (!tm_ok)
		return TEST_SKIPPED;
	TEST_ASSERT_EQUAL(ibv_query_device_ex(ctx, NULL, &ax), 0, "");
	TEST_ASSERT_EQUAL(ax.tm_caps.max_num_tags, DPV_TM_MAX_TAGS, "");
	TEST_ASSERT_EQUAL(ax.tm_caps.max_ops, DPV_TM_MAX_OPS, "");
	TEST_ASSERT_EQUAL(ax.tm_caps.max_sge, 1, "");
	TEST_ASSERT_EQUAL(ax.tm_caps.max_rndv_hdr_size, DPV_TM_MAX_RNDV_HDR,
			  "");
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	TEST_ASSERT_NOT_NULL(cq, "");
	/* no CQ, no tags, too many tags */
	errno = 0;
	TEST_ASSERT_NULL(tm_srq(NULL, 4), "");
	TEST_ASSERT_EQUAL(errno, EINVAL, "no CQ");
	TEST_ASSERT_NULL(tm_srq(cq, 0), "");
	TEST_ASSERT_EQUAL(errno, EINVAL, "no tags");
	TEST_ASSERT_NULL(tm_srq(cq, DPV_TM_MAX_TAGS + 1), "");
	TEST_ASSERT_EQUAL(errno, EINVAL, "too many tags");
	srq = tm_srq(cq, 4);
	TEST_ASSERT_NOT_NULL(srq, "errno %d", errno);
	/* a UD QP does no tag matching */
	ia.send_cq = ia.recv_cq = cq;
	ia.srq = srq;
	errno = 0;
	TEST_ASSERT_NULL(ibv_create_qp(pd, &ia), "UD on a TM SRQ");
	TEST_ASSERT_EQUAL(errno, EINVAL, "");
	TEST_ASSERT_EQUAL(ibv_destroy_srq(srq), 0, "");
	/* list operations on a basic SRQ */
	srq = ibv_create_srq(pd, &basic);
	TEST_ASSERT_NOT_NULL(srq, "");
	TEST_ASSERT_EQUAL(ibv_post_srq_ops(srq, &w, &bad), EINVAL, "");
	TEST_ASSERT(bad == &w, "bad_wr");
	TEST_ASSERT_EQUAL(ibv_destroy_srq(srq), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_cq(cq), 0, "");
	return TEST_SUCCESS;
}

/* Run body on a fresh receiver and sender (an SRQ of max_tags tags). */
static int
with_env(uint32_t max_tags, int (*body)(struct tm_env *))
{
	struct tm_env v;
	int rc;

	if (!tm_ok)
		return TEST_SKIPPED;
	TEST_ASSERT_EQUAL(env_open(&v, max_tags), 0, "");
	rc = body(&v);
	env_close(&v);
	return rc == 0 ? TEST_SUCCESS : TEST_FAILED;
}

/* The receiver's next completion: opcode op, status st, wr_id, flags,
 * byte_len len (unless UINT32_MAX), tag and priv. */
static int
expect(struct tm_env *v, enum ibv_wc_opcode op, enum ibv_wc_status st,
       uint64_t wr_id, unsigned int flags, uint32_t len, uint64_t tag,
       uint32_t priv)
{
	struct tm_wc c;

	if (poll_x(v->rcq, &c) != 0) {
		DPV_TEST_LOG("no completion");
		return -1;
	}
	if (c.opcode != op || c.status != st || c.wr_id != wr_id ||
	    (c.flags & (IBV_WC_TM_MATCH | IBV_WC_TM_DATA_VALID)) != flags ||
	    (len != UINT32_MAX && c.len != len) || c.tag != tag ||
	    c.priv != priv) {
		DPV_TEST_LOG("got opcode %d status %d wr_id %llu flags 0x%x "
			     "len %u tag 0x%llx priv 0x%x",
			     c.opcode, c.status, (unsigned long long)c.wr_id,
			     c.flags, c.len, (unsigned long long)c.tag, c.priv);
		DPV_TEST_LOG("want opcode %d status %d wr_id %llu flags 0x%x "
			     "len %u tag 0x%llx priv 0x%x",
			     op, st, (unsigned long long)wr_id, flags, len,
			     (unsigned long long)tag, priv);
		return -1;
	}
	return 0;
}

#define MATCHED (IBV_WC_TM_MATCH | IBV_WC_TM_DATA_VALID)

static int
tm_ops_body(struct tm_env *v)
{
	struct ibv_ops_wr w = {.opcode = (enum ibv_ops_wr_opcode)9}, *bad;
	uint32_t h[4], hx = 0;

	/* refused: an unknown opcode, two SGEs, a handle out of range */
	bad = NULL;
	if (ibv_post_srq_ops(v->srq, &w, &bad) != EINVAL || bad != &w)
		return -1;
	w.opcode = IBV_WR_TAG_ADD;
	w.tm.add.num_sge = 2;
	if (ibv_post_srq_ops(v->srq, &w, &bad) != EINVAL)
		return -1;
	hx = 4;
	if (tm_op(v, IBV_WR_TAG_DEL, 1, 0, 0, 0, 0, NULL, 0, &hx) != EINVAL)
		return -1;
	/* four handles, then none */
	for (int i = 0; i < 4; i++)
		if (tm_add(v, 10 + i, 0, 0, 0x100 + i, ~0ull, mem->tag[0], 64,
			   false, &h[i]) != 0)
			return -1;
	if (h[0] == h[1] || h[1] == h[2] || h[2] == h[3] ||
	    tm_op(v, IBV_WR_TAG_ADD, 20, 0, 0, 1, 1, mem->tag[0], 64, &hx) !=
		    ENOMEM) {
		DPV_TEST_LOG("a fifth handle");
		return -1;
	}
	/* DEL: a listed buffer goes; the second time it is not listed */
	if (tm_op(v, IBV_WR_TAG_DEL, 30, IBV_OPS_SIGNALED, 0, 0, 0, NULL, 0,
		  &h[1]) != 0 ||
	    expect(v, IBV_WC_TM_DEL, IBV_WC_SUCCESS, 30, 0, UINT32_MAX, 0, 0) !=
		    0)
		return -1;
	if (tm_op(v, IBV_WR_TAG_DEL, 31, IBV_OPS_SIGNALED, 0, 0, 0, NULL, 0,
		  &h[1]) != 0 ||
	    expect(v, IBV_WC_TM_DEL, IBV_WC_TM_ERR, 31, 0, UINT32_MAX, 0, 0) !=
		    0)
		return -1;
	/* its handle is free again: an unsignaled ADD takes it, no CQE */
	if (tm_op(v, IBV_WR_TAG_ADD, 40, 0, 0, 1, ~0ull, mem->tag[0], 64,
		  &hx) != 0 ||
	    hx != h[1] || !x_empty(v->rcq))
		return -1;
	/* SYNC */
	if (tm_op(v, IBV_WR_TAG_SYNC, 50, IBV_OPS_SIGNALED | IBV_OPS_TM_SYNC, 0,
		  0, 0, NULL, 0, NULL) != 0 ||
	    expect(v, IBV_WC_TM_SYNC, IBV_WC_SUCCESS, 50, 0, UINT32_MAX, 0,
		   0) != 0)
		return -1;
	return 0;
}

static int
test_tm_ops(void)
{
	return with_env(4, tm_ops_body);
}

static int
tm_eager_body(struct tm_env *v)
{
	uint32_t h[2], len = 3000; /* three packets at MTU 1024 */

	/* both match tag 0x10: the older one takes the first message */
	if (tm_add(v, 1, 0, 0, 0x10, ~0ull, mem->tag[0], TAGBUF, false,
		   &h[0]) != 0 ||
	    tm_add(v, 2, 0, 0, 0x7710, 0xff, mem->tag[1], TAGBUF, false,
		   &h[1]) != 0)
		return -1;
	for (int m = 0; m < 2; m++) {
		memset(mem->tag[m], 0, len);
		fill(mem->snd, len, (uint8_t)(m + 1));
		if (send_tm(v, IBV_TMH_EAGER, 0x10, htobe32(0xabcd0000u + m),
			    len) != 0 ||
		    expect(v, IBV_WC_TM_RECV, IBV_WC_SUCCESS, 1001 + m, MATCHED,
			   len - DPV_TM_TMH_LEN, 0x10, 0xabcd0000u + m) != 0)
			return -1;
		if (memcmp(mem->tag[m], mem->snd + DPV_TM_TMH_LEN,
			   len - DPV_TM_TMH_LEN) != 0) {
			DPV_TEST_LOG("message %d: data differs", m);
			return -1;
		}
	}
	/* no tag left: unexpected, the whole message to an ordinary WQE */
	fill(mem->snd, 200, 9);
	if (send_tm(v, IBV_TMH_EAGER, 0x10, 0, 200) != 0 ||
	    expect(v, IBV_WC_TM_RECV, IBV_WC_SUCCESS, 100, 0, 200, 0, 0) != 0 ||
	    memcmp(mem->ord[0], mem->snd, 200) != 0)
		return -1;
	return 0;
}

static int
test_tm_eager(void)
{
	return with_env(8, tm_eager_body);
}

static int
tm_unexpected_sync_body(struct tm_env *v)
{
	uint32_t h[3];

	/* unexpected: the count becomes 1 */
	if (send_tm(v, IBV_TMH_EAGER, 0x55, 0, 64) != 0 ||
	    expect(v, IBV_WC_TM_RECV, IBV_WC_SUCCESS, 100, 0, 64, 0, 0) != 0)
		return -1;
	/* added as if software had seen none: a sync asked for, the tag
	 * not matched */
	if (tm_add(v, 1, 0, IBV_OPS_TM_SYNC, 0x55, ~0ull, mem->tag[0], 4096,
		   true, &h[0]) != 0 ||
	    send_tm(v, IBV_TMH_EAGER, 0x55, 0, 64) != 0 ||
	    expect(v, IBV_WC_TM_RECV, IBV_WC_SUCCESS, 101, 0, 64, 0, 0) != 0)
		return -1;
	/* software reports both: new tags match again */
	if (tm_op(v, IBV_WR_TAG_SYNC, 2, IBV_OPS_SIGNALED | IBV_OPS_TM_SYNC, 2,
		  0, 0, NULL, 0, NULL) != 0 ||
	    expect(v, IBV_WC_TM_SYNC, IBV_WC_SUCCESS, 2, 0, UINT32_MAX, 0, 0) !=
		    0 ||
	    tm_add(v, 3, 2, IBV_OPS_TM_SYNC, 0x55, ~0ull, mem->tag[1], 4096,
		   false, &h[1]) != 0)
		return -1;
	fill(mem->snd, 64, 3);
	if (send_tm(v, IBV_TMH_EAGER, 0x55, htobe32(5), 64) != 0 ||
	    expect(v, IBV_WC_TM_RECV, IBV_WC_SUCCESS, 1003, MATCHED, 48, 0x55,
		   5) != 0 ||
	    memcmp(mem->tag[1], mem->snd + DPV_TM_TMH_LEN, 48) != 0)
		return -1;
	/* the stale tag is still listed (DEL succeeds) */
	if (tm_op(v, IBV_WR_TAG_DEL, 4, IBV_OPS_SIGNALED, 2, 0, 0, NULL, 0,
		  &h[0]) != 0 ||
	    expect(v, IBV_WC_TM_DEL, IBV_WC_SUCCESS, 4, 0, UINT32_MAX, 0, 0) !=
		    0)
		return -1;
	/* untagged messages, and one shorter than a header: whole, to
	 * ordinary WQEs, not counted */
	fill(mem->snd, 100, 4);
	if (send_tm(v, IBV_TMH_NO_TAG, 0x55, 0, 100) != 0 ||
	    expect(v, IBV_WC_TM_NO_TAG, IBV_WC_SUCCESS, 102, 0, 100, 0, 0) !=
		    0 ||
	    memcmp(mem->ord[2], mem->snd, 100) != 0 ||
	    send_tm(v, -1, 0, 0, 8) != 0 ||
	    expect(v, IBV_WC_TM_NO_TAG, IBV_WC_SUCCESS, 103, 0, 8, 0, 0) != 0)
		return -1;
	/* still in step (2 unexpected): a new tag is matched */
	if (tm_add(v, 5, 2, IBV_OPS_TM_SYNC, 0x66, ~0ull, mem->tag[0], 4096,
		   false, &h[2]) != 0)
		return -1;
	return 0;
}

static int
test_tm_unexpected_sync(void)
{
	return with_env(8, tm_unexpected_sync_body);
}

/* An RNDV request for len bytes at mem->snd + 64 (its header at
 * mem->snd, 64 bytes long). */
static int
send_rndv(struct tm_env *v, uint64_t tag, uint32_t len)
{
	struct ibv_rvh r = {.va = htobe64((uintptr_t)(mem->snd + 64)),
			    .rkey = htobe32(mr->rkey),
			    .len = htobe32(len)};

	memcpy(mem->snd + DPV_TM_TMH_LEN, &r, sizeof(r));
	return send_tm(v, IBV_TMH_RNDV, tag, htobe32(0x77), 64);
}

static int
tm_rndv_body(struct tm_env *v)
{
	struct ibv_sge fs = {(uintptr_t)mem->fin, ORDBUF, mr->lkey};
	struct ibv_recv_wr fw = {.wr_id = 9, .sg_list = &fs, .num_sge = 1}, *fb;
	struct ibv_tmh fin;
	struct ibv_wc wc;
	uint32_t h;

	fill(mem->snd + 64, BIG, 11);
	memset(mem->tag[0], 0, BIG);
	if (ibv_post_recv(v->sqp, &fw, &fb) != 0 ||
	    tm_add(v, 1, 0, 0, 0x99, ~0ull, mem->tag[0], TAGBUF, false, &h) !=
		    0 ||
	    send_rndv(v, 0x99, BIG) != 0)
		return -1;
	/* the tag taken, then the data in after the sender's FIN */
	if (expect(v, IBV_WC_TM_RECV, IBV_WC_SUCCESS, 1001, IBV_WC_TM_MATCH,
		   UINT32_MAX, 0x99, 0x77) != 0 ||
	    test_loop_wait_wc(v->scq, &wc, 1, 1000) != 1 ||
	    wc.status != IBV_WC_SUCCESS || wc.opcode != IBV_WC_RECV ||
	    wc.wr_id != 9 || wc.byte_len != DPV_TM_TMH_LEN ||
	    expect(v, IBV_WC_TM_RECV, IBV_WC_SUCCESS, 1001,
		   IBV_WC_TM_DATA_VALID, BIG, 0, 0) != 0)
		return -1;
	memcpy(&fin, mem->fin, sizeof(fin));
	if (fin.opcode != IBV_TMH_FIN || be64toh(fin.tag) != 0x99 ||
	    memcmp(mem->tag[0], mem->snd + 64, BIG) != 0) {
		DPV_TEST_LOG("FIN opcode %u tag 0x%llx, or the data differs",
			     fin.opcode, (unsigned long long)be64toh(fin.tag));
		return -1;
	}
	/* more data than the buffer holds: software's (unexpected) */
	if (tm_add(v, 2, 0, 0, 0x98, ~0ull, mem->tag[1], 1000, false, &h) !=
		    0 ||
	    send_rndv(v, 0x98, 1001) != 0 ||
	    expect(v, IBV_WC_TM_RECV, IBV_WC_SUCCESS, 100, 0, 64, 0, 0) != 0)
		return -1;
	return 0;
}

static int
test_tm_rndv(void)
{
	return with_env(8, tm_rndv_body);
}

static int
tm_len_err_body(struct tm_env *v)
{
	uint32_t h, h2;

	if (tm_add(v, 1, 0, 0, 0x31, ~0ull, mem->tag[0], 100, false, &h) != 0 ||
	    send_tm(v, IBV_TMH_EAGER, 0x31, 0, 100 + DPV_TM_TMH_LEN + 1) == 0)
		return -1; /* the sender's completes in error (NAK) */
	/* the one handle is busy until the completion is read */
	h2 = 0;
	if (tm_op(v, IBV_WR_TAG_ADD, 2, 0, 0, 1, ~0ull, mem->tag[0], 64, &h2) !=
	    ENOMEM)
		return -1;
	if (expect(v, IBV_WC_TM_RECV, IBV_WC_LOC_LEN_ERR, 1001, 0, UINT32_MAX,
		   0, 0) != 0)
		return -1;
	if (tm_op(v, IBV_WR_TAG_ADD, 3, 0, 0, 1, ~0ull, mem->tag[0], 64, &h2) !=
		    0 ||
	    h2 != h)
		return -1;
	return 0;
}

static int
test_tm_len_err(void)
{
	return with_env(1, tm_len_err_body);
}

static const struct dpv_test_suite verbs_tm_suite = {
	.name = "verbs_tm",
	.setup = suite_setup,
	.teardown = suite_teardown,
	.cases =
		{
			TEST_CASE(test_tm_caps),
			TEST_CASE(test_tm_ops),
			TEST_CASE(test_tm_eager),
			TEST_CASE(test_tm_unexpected_sync),
			TEST_CASE(test_tm_rndv),
			TEST_CASE(test_tm_len_err),
			TEST_CASES_END(),
		},
};

static int
verbs_tm_autotest(void)
{
	return dpv_test_run_suite(&verbs_tm_suite);
}

DPV_TEST_REGISTER_FAST(verbs_tm_autotest, verbs_tm_autotest);
