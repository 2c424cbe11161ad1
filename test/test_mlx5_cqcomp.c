/* SPDX-License-Identifier: BSD-3-Clause */
/* mlx5 CQE compression (dpv_mlx5_cq_compress): the raw ring decoded as a
 * ConnectX-aware application does (title, mini CQE arrays, invalidation),
 * our own poll expanding sessions, clean, flush and solicited arms. */

#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <endian.h>

#include <rte_memory.h>

#include "dpv_test.h"
#include "mlx5_ring.h"

_Static_assert(sizeof(struct dpv_mlx5_mini_cqe8) == 8, "");
_Static_assert(offsetof(struct dpv_mlx5_mini_cqe8, byte_cnt) == 4, "");

#define QPN 0x000456u
#define QPN2 0x000457u
#define CQ_MIN 63 /* 64 entries */

static struct dpv_mlx5_sq sq;
static struct dpv_mlx5_rq rq;

static struct dpv_mlx5_wq *
lookup(void *arg, uint32_t qpn, bool recv)
{
	RTE_SET_USED(arg);
	if (qpn != QPN)
		return NULL;
	return recv ? &rq.wq : &sq.wq;
}

static int
suite_setup(void)
{
	return dpv_test_eal_init() == 0 ? TEST_SUCCESS : TEST_SKIPPED;
}

static int
setup(void)
{
	if (dpv_mlx5_sq_init(&sq, 8, 1, 0, SOCKET_ID_ANY) ||
	    dpv_mlx5_rq_init(&rq, 64, 1, SOCKET_ID_ANY))
		return TEST_FAILED;
	dpv_mlx5_qp_link_dbrec(&sq, &rq);
	return TEST_SUCCESS;
}

static void
teardown(void)
{
	dpv_mlx5_sq_fini(&sq);
	dpv_mlx5_rq_fini(&rq);
}

/* ---- a ConnectX-aware reader of the raw ring (mlx5dv view only) ---- */

struct reader {
	uint8_t *buf;
	uint32_t cnt, sz, ci;
	__be32 *dbrec;
	unsigned int fmt;
	/* the session being read */
	uint32_t left, j;
	struct mlx5_cqe64 title;
	uint8_t mini[64];
};

static void
reader_init(struct reader *r, const struct dpv_mlx5_cq *cq, unsigned int fmt)
{
	struct mlx5dv_cq dv;

	memset(r, 0, sizeof(*r));
	dpv_mlx5_cq_to_dv(cq, &dv);
	r->buf = dv.buf;
	r->cnt = dv.cqe_cnt;
	r->sz = dv.cqe_size;
	r->dbrec = dv.dbrec;
	r->fmt = fmt;
}

/* the struct mlx5_cqe64 of entry i: its last 64 bytes */
static uint8_t *
rd_ent(const struct reader *r, uint32_t i)
{
	return r->buf + (size_t)(i & (r->cnt - 1)) * r->sz + r->sz - 64;
}

static uint32_t
get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

/*
 * The next completion as a full CQE (format bits cleared), the reader
 * consuming it: 0, or ENOENT. Written from the ConnectX rules alone: a
 * valid entry with format 3 is a title, byte_cnt completions, mini CQE
 * array k in entry title + 8k (title + 1 for k = 0), wqe_counter counts
 * up from the title's; every entry read is invalidated.
 */
static int
reader_next(struct reader *r, struct mlx5_cqe64 *out)
{
	uint8_t *e = rd_ent(r, r->ci);
	const uint8_t *m;

	if (r->left == 0) {
		uint8_t oo = e[63];

		if ((oo >> 4) == MLX5_CQE_INVALID ||
		    (oo & 1) != !!(r->ci & r->cnt))
			return ENOENT;
		if (((oo >> 2) & 3) != 3) {
			memcpy(out, e, 64);
			e[63] = MLX5_CQE_INVALID << 4;
			r->ci++;
			*r->dbrec = htobe32(r->ci & 0xffffff);
			return 0;
		}
		memcpy(&r->title, e, 64);
		r->left = get32(e + 44);
		r->j = 0;
		memcpy(r->mini, rd_ent(r, r->ci + 1), 64);
	} else if (r->j % 8 == 0) {
		memcpy(r->mini, e, 64);
	}
	m = r->mini + (r->j % 8) * 8;
	memcpy(out, &r->title, 64);
	memcpy((uint8_t *)out + 44, m + 4, 4); /* byte_cnt */
	if (r->fmt == MLX5DV_CQE_RES_FORMAT_HASH)
		memcpy((uint8_t *)out + 12, m, 4); /* rx hash result */
	else
		memcpy((uint8_t *)out + 22, m, 2); /* checksum */
	out->wqe_counter =
		htobe16((uint16_t)(be16toh(r->title.wqe_counter) + r->j));
	out->op_own &= 0xf0;
	e[63] = MLX5_CQE_INVALID << 4;
	r->j++;
	r->left--;
	r->ci++;
	*r->dbrec = htobe32(r->ci & 0xffffff);
	return 0;
}

/* ---- the engine side ---- */

static uint16_t next_wqe; /* receive WQE counter of the next push */

static int
push_recv(struct dpv_mlx5_cq *cq, uint32_t len, bool solicited)
{
	struct dpv_cqe_info ci = {.is_recv = true,
				  .opcode = IBV_WC_RECV,
				  .qpn = QPN,
				  .wqe_counter = next_wqe,
				  .byte_len = len,
				  .solicited = solicited};
	int rc = dpv_ring_cq_push(cq, &ci);

	if (rc == 0)
		next_wqe++;
	return rc;
}

static int
push_send(struct dpv_mlx5_cq *cq)
{
	struct dpv_cqe_info ci = {.opcode = IBV_WC_SEND, .qpn = QPN2,
				  .byte_len = 7};

	return dpv_ring_cq_push(cq, &ci);
}

static int
make_cq(struct dpv_mlx5_cq *cq, unsigned int sz, bool pad, unsigned int fmt)
{
	next_wqe = 0;
	if (dpv_mlx5_cq_init_sz(cq, CQ_MIN, SOCKET_ID_ANY, sz, pad) != 0)
		return -1;
	return dpv_mlx5_cq_compress(cq, fmt);
}

static const unsigned int fmts[] = {MLX5DV_CQE_RES_FORMAT_HASH,
				    MLX5DV_CQE_RES_FORMAT_CSUM,
				    MLX5DV_CQE_RES_FORMAT_CSUM_STRIDX};

static int
test_setup_errors(void)
{
	struct dpv_mlx5_cq c;

	TEST_ASSERT_EQUAL(dpv_mlx5_cq_init(&c, 3, SOCKET_ID_ANY), 0, "");
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_compress(&c, 0), EINVAL, "no format");
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_compress(&c, MLX5DV_CQE_RES_FORMAT_HASH |
						       MLX5DV_CQE_RES_FORMAT_CSUM),
			  EINVAL, "two formats");
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_compress(&c, 8), EINVAL, "unknown");
	TEST_ASSERT(c.ops == &dpv_mlx5_ring_ops, "unchanged");
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_compress(&c, MLX5DV_CQE_RES_FORMAT_CSUM),
			  0, "");
	TEST_ASSERT(c.ops == &dpv_mlx5_cqcomp_ring_ops, "");
	TEST_ASSERT(!(c.ops->caps & DPV_RING_CAP_CQ_RESIZE), "no resize");
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_compress(&c, MLX5DV_CQE_RES_FORMAT_CSUM),
			  EINVAL, "twice");
	dpv_mlx5_cq_fini(&c);
	return TEST_SUCCESS;
}

/*
 * 11 receives (one session: title + arrays in entries 1 and 8), a send,
 * one receive (plain), the exact bytes, then the reader.
 */
static int
test_raw_layout(void)
{
	struct dpv_mlx5_cq c;
	struct reader r;
	struct mlx5_cqe64 e;
	unsigned int f, sz, pad;
	uint32_t i;

	for (f = 0; f < RTE_DIM(fmts); f++)
	for (sz = 64; sz <= 128; sz += 64)
	for (pad = 0; pad <= (sz == 128); pad++) {
		TEST_ASSERT_EQUAL(make_cq(&c, sz, pad, fmts[f]), 0, "");
		TEST_ASSERT(c.ops == (sz == 128 ? &dpv_mlx5_cqcomp128_ring_ops
						: &dpv_mlx5_cqcomp_ring_ops),
			    "ops");
		reader_init(&r, &c, fmts[f]);
		for (i = 0; i < 11; i++)
			TEST_ASSERT_EQUAL(push_recv(&c, 100 + i, false), 0, "");
		/* held: nothing on the ring yet */
		TEST_ASSERT_EQUAL(reader_next(&r, &e), ENOENT, "held");
		TEST_ASSERT_EQUAL(c.prod_index, 0, "");
		/* another kind of CQE ends the session */
		TEST_ASSERT_EQUAL(push_send(&c), 0, "");
		TEST_ASSERT_EQUAL(push_recv(&c, 55, false), 0, "");
		TEST_ASSERT(dpv_mlx5_cq_comp_commit(&c), "commit");
		TEST_ASSERT(!dpv_mlx5_cq_comp_commit(&c), "nothing left");
		TEST_ASSERT_EQUAL(c.prod_index, 13, "");

		/* the title */
		uint8_t *t = rd_ent(&r, 0);

		TEST_ASSERT_EQUAL(t[63] >> 4, MLX5_CQE_RESP_SEND, "title op");
		TEST_ASSERT_EQUAL((t[63] >> 2) & 3, 3, "compressed format");
		TEST_ASSERT_EQUAL(t[63] & 1, 0, "owner");
		TEST_ASSERT_EQUAL(get32(t + 44), 11, "count in byte_cnt");
		TEST_ASSERT_EQUAL(get32(t + 56) & 0xffffff, QPN, "qpn");
		TEST_ASSERT_EQUAL(t[60] << 8 | t[61], 0, "first wqe_counter");
		/* the arrays: completions 0..7 in entry 1, 8..10 in entry 8 */
		for (i = 0; i < 11; i++) {
			uint8_t *m = rd_ent(&r, i < 8 ? 1 : 8) + (i % 8) * 8;

			TEST_ASSERT_EQUAL(get32(m + 4), 100 + i,
					  "mini %u byte_cnt", i);
			TEST_ASSERT_EQUAL(get32(m), 0, "mini %u field", i);
		}
		if (pad)
			for (i = 0; i < 13; i++)
				TEST_ASSERT_EQUAL(rd_ent(&r, i)[-1], 0, "pad");
		/* the plain CQEs after the session */
		TEST_ASSERT_EQUAL(rd_ent(&r, 11)[63] >> 4, MLX5_CQE_REQ, "");
		TEST_ASSERT_EQUAL(rd_ent(&r, 12)[63] >> 4, MLX5_CQE_RESP_SEND,
				  "");
		TEST_ASSERT_EQUAL((rd_ent(&r, 12)[63] >> 2) & 3, 0, "plain");

		/* the reader's view */
		for (i = 0; i < 11; i++) {
			TEST_ASSERT_EQUAL(reader_next(&r, &e), 0, "cqe %u", i);
			TEST_ASSERT_EQUAL(be32toh(e.byte_cnt), 100 + i, "");
			TEST_ASSERT_EQUAL(be16toh(e.wqe_counter), i, "");
			TEST_ASSERT_EQUAL(e.op_own >> 4, MLX5_CQE_RESP_SEND, "");
			TEST_ASSERT_EQUAL(be32toh(e.sop_drop_qpn) & 0xffffff,
					  QPN, "");
		}
		TEST_ASSERT_EQUAL(reader_next(&r, &e), 0, "send");
		TEST_ASSERT_EQUAL(e.op_own >> 4, MLX5_CQE_REQ, "");
		TEST_ASSERT_EQUAL(reader_next(&r, &e), 0, "last");
		TEST_ASSERT_EQUAL(be32toh(e.byte_cnt), 55, "");
		TEST_ASSERT_EQUAL(be16toh(e.wqe_counter), 11, "");
		TEST_ASSERT_EQUAL(reader_next(&r, &e), ENOENT, "empty");
		dpv_mlx5_cq_fini(&c);
	}
	return TEST_SUCCESS;
}

/* Sessions end at DPV_MLX5_CQE_COMP_MAX, at a solicited CQE, at a gap in
 * the WQE counters, and a full CQ holds no more. */
static int
test_session_ends(void)
{
	struct dpv_mlx5_cq c;
	struct reader r;
	struct mlx5_cqe64 e;
	uint32_t i, n;

	TEST_ASSERT_EQUAL(dpv_mlx5_cq_init_sz(&c, 127, SOCKET_ID_ANY, 64,
					      false), 0, "");
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_compress(&c, MLX5DV_CQE_RES_FORMAT_HASH),
			  0, "");
	next_wqe = 0;
	reader_init(&r, &c, MLX5DV_CQE_RES_FORMAT_HASH);
	for (i = 0; i < DPV_MLX5_CQE_COMP_MAX + 3; i++)
		TEST_ASSERT_EQUAL(push_recv(&c, i, false), 0, "");
	/* the first session was written when it was full */
	TEST_ASSERT_EQUAL(c.prod_index, DPV_MLX5_CQE_COMP_MAX, "");
	TEST_ASSERT_EQUAL(push_recv(&c, 1000, true), 0, "solicited");
	next_wqe += 5; /* a gap */
	TEST_ASSERT_EQUAL(push_recv(&c, 2000, false), 0, "");
	TEST_ASSERT_EQUAL(push_recv(&c, 2001, false), 0, "");
	dpv_mlx5_cq_comp_commit(&c);
	n = DPV_MLX5_CQE_COMP_MAX + 3 + 1 + 2;
	TEST_ASSERT_EQUAL(c.prod_index, n, "");
	TEST_ASSERT_EQUAL(get32(rd_ent(&r, 0) + 44), DPV_MLX5_CQE_COMP_MAX,
			  "");
	TEST_ASSERT_EQUAL(get32(rd_ent(&r, DPV_MLX5_CQE_COMP_MAX) + 44), 3,
			  "second session");
	TEST_ASSERT_EQUAL(rd_ent(&r, DPV_MLX5_CQE_COMP_MAX + 3)[63] & 0xe, 2,
			  "solicited: plain, SE bit");
	for (i = 0; i < n; i++) {
		TEST_ASSERT_EQUAL(reader_next(&r, &e), 0, "cqe %u", i);
		if (i < DPV_MLX5_CQE_COMP_MAX + 3)
			TEST_ASSERT_EQUAL(be32toh(e.byte_cnt), i, "");
	}
	TEST_ASSERT_EQUAL(be32toh(e.byte_cnt), 2001, "");
	TEST_ASSERT_EQUAL(be16toh(e.wqe_counter), DPV_MLX5_CQE_COMP_MAX + 10,
			  "after the gap");
	dpv_mlx5_cq_fini(&c);

	/* 64 entries: 63 held + written, the 65th finds the CQ full */
	TEST_ASSERT_EQUAL(make_cq(&c, 64, false, MLX5DV_CQE_RES_FORMAT_CSUM),
			  0, "");
	for (i = 0; i < 64; i++)
		TEST_ASSERT_EQUAL(push_recv(&c, i, false), 0, "%u", i);
	TEST_ASSERT_EQUAL(push_recv(&c, 64, false), ENOSPC, "overrun");
	dpv_mlx5_cq_comp_commit(&c);
	TEST_ASSERT_EQUAL(c.prod_index, 64, "");
	dpv_mlx5_cq_fini(&c);
	return TEST_SUCCESS;
}

/* Our poll and ibv_cq_ex expand sessions, a few at a time, over many
 * laps of the ring (the invalidated entries are never read again). */
static int
test_poll_laps(void)
{
	struct dpv_mlx5_cq c;
	struct ibv_wc wc[5];
	uint64_t posted = 0, done = 0, wr_id;
	enum ibv_wc_status st;
	unsigned int f, sz, round;
	int got;

	for (f = 0; f < RTE_DIM(fmts); f++)
	for (sz = 64; sz <= 128; sz += 64) {
		teardown();
		TEST_ASSERT_EQUAL(setup(), TEST_SUCCESS, "");
		posted = done = 0;
		TEST_ASSERT_EQUAL(make_cq(&c, sz, false, fmts[f]), 0, "");
		for (round = 0; round < 40; round++) {
			unsigned int burst = 1 + (round * 7) % 23, i;
			struct dpv_recv_wr rw;

			for (i = 0; i < burst; i++) {
				struct ibv_sge sg = {0x1000, 64, 1};
				struct ibv_recv_wr wr = {.wr_id = posted,
							 .sg_list = &sg,
							 .num_sge = 1};
				struct ibv_recv_wr *bad;

				TEST_ASSERT_EQUAL(
					dpv_mlx5_post_recv(&rq, &wr, &bad), 0,
					"");
				TEST_ASSERT(dpv_mlx5_rq_fetch(&rq, &rw), "");
				next_wqe = (uint16_t)rw.wqe_index;
				TEST_ASSERT_EQUAL(
					push_recv(&c, (uint32_t)posted, false),
					0, "");
				dpv_mlx5_rq_retire(&rq, &rw);
				posted++;
				if (i == burst / 2 && round % 3 == 0)
					push_send(&c); /* no such QP: EIO */
			}
			dpv_mlx5_cq_comp_commit(&c);
			while (done < posted) {
				if (round & 1) {
					got = dpv_ring_cq_poll(&c, 5, wc, lookup,
							       NULL);
					if (got == -EIO)
						continue;
					TEST_ASSERT(got > 0, "round %u", round);
					for (int k = 0; k < got; k++, done++) {
						TEST_ASSERT_EQUAL(wc[k].wr_id,
								  done, "");
						TEST_ASSERT_EQUAL(
							wc[k].byte_len, done,
							"");
						TEST_ASSERT_EQUAL(wc[k].opcode,
								  IBV_WC_RECV,
								  "");
						TEST_ASSERT_EQUAL(
							wc[k].qp_num, QPN, "");
					}
				} else {
					got = dpv_ring_cq_ex_next(&c, lookup,
								  NULL, &wr_id,
								  &st);
					if (got == EIO)
						continue;
					TEST_ASSERT_EQUAL(got, 0, "");
					TEST_ASSERT_EQUAL(wr_id, done, "");
					TEST_ASSERT_EQUAL(
						dpv_mlx5_cq_read_byte_len(&c),
						done, "");
					dpv_mlx5_cq_ex_end(&c);
					done++;
				}
			}
			got = dpv_ring_cq_poll(&c, 5, wc, lookup, NULL);
			if (got == -EIO) /* the last send */
				got = dpv_ring_cq_poll(&c, 5, wc, lookup, NULL);
			TEST_ASSERT_EQUAL(got, 0, "empty after round %u",
					  round);
		}
		TEST_ASSERT(c.prod_index > 4 * c.cqe_cnt, "several laps");
		dpv_mlx5_cq_fini(&c);
	}
	return TEST_SUCCESS;
}

/* Clean and flush on a CQ with sessions, one of them half read. */
static int
test_clean_flush(void)
{
	struct dpv_mlx5_cq c;
	struct ibv_wc wc[16];
	struct dpv_recv_wr rw;
	unsigned int i;

	TEST_ASSERT_EQUAL(make_cq(&c, 128, true, MLX5DV_CQE_RES_FORMAT_CSUM),
			  0, "");
	for (i = 0; i < 14; i++) {
		struct ibv_sge sg = {0x1000, 64, 1};
		struct ibv_recv_wr wr = {.wr_id = 500 + i, .sg_list = &sg,
					 .num_sge = 1};
		struct ibv_recv_wr *bad;

		TEST_ASSERT_EQUAL(dpv_mlx5_post_recv(&rq, &wr, &bad), 0, "");
	}
	for (i = 0; i < 10; i++) {
		TEST_ASSERT(dpv_mlx5_rq_fetch(&rq, &rw), "");
		TEST_ASSERT_EQUAL(push_recv(&c, i, false), 0, "");
		dpv_mlx5_rq_retire(&rq, &rw);
	}
	dpv_mlx5_cq_comp_commit(&c);
	TEST_ASSERT_EQUAL(dpv_ring_cq_poll(&c, 3, wc, lookup, NULL), 3, "");
	TEST_ASSERT_EQUAL(wc[2].wr_id, 502, "");
	/* another QP's clean keeps the rest of the session */
	TEST_ASSERT_EQUAL(dpv_ring_cq_clean(&c, QPN2, NULL), 0, "");
	TEST_ASSERT_EQUAL(dpv_ring_cq_poll(&c, 2, wc, lookup, NULL), 2, "");
	TEST_ASSERT_EQUAL(wc[1].wr_id, 504, "");
	/* flush writes its error CQEs after the held session */
	for (i = 0; i < 2; i++) {
		TEST_ASSERT(dpv_mlx5_rq_fetch(&rq, &rw), "");
		TEST_ASSERT_EQUAL(push_recv(&c, 10 + i, false), 0, "");
		dpv_mlx5_rq_retire(&rq, &rw);
	}
	TEST_ASSERT_EQUAL(dpv_ring_flush(&rq.wq, &c, QPN), 2, "two left");
	TEST_ASSERT_EQUAL(c.prod_index, 14, "flush wrote the held session");
	TEST_ASSERT_EQUAL(dpv_ring_cq_poll(&c, 16, wc, lookup, NULL), 9, "");
	TEST_ASSERT_EQUAL(wc[6].wr_id, 511, "");
	TEST_ASSERT_EQUAL(wc[6].byte_len, 11, "");
	TEST_ASSERT_EQUAL(wc[6].status, IBV_WC_SUCCESS, "");
	TEST_ASSERT_EQUAL(wc[7].wr_id, 512, "");
	TEST_ASSERT_EQUAL(wc[8].status, IBV_WC_WR_FLUSH_ERR, "");
	/* the QP's clean removes whole sessions */
	for (i = 0; i < 4; i++) {
		struct ibv_sge sg = {0x1000, 64, 1};
		struct ibv_recv_wr wr = {.wr_id = 600 + i, .sg_list = &sg,
					 .num_sge = 1};
		struct ibv_recv_wr *bad;

		TEST_ASSERT_EQUAL(dpv_mlx5_post_recv(&rq, &wr, &bad), 0, "");
		TEST_ASSERT(dpv_mlx5_rq_fetch(&rq, &rw), "");
		next_wqe = (uint16_t)rw.wqe_index;
		TEST_ASSERT_EQUAL(push_recv(&c, i, false), 0, "");
		dpv_mlx5_rq_retire(&rq, &rw);
	}
	TEST_ASSERT_EQUAL(push_send(&c), 0, "");
	TEST_ASSERT_EQUAL(dpv_ring_cq_poll(&c, 1, wc, lookup, NULL), 1, "");
	TEST_ASSERT_EQUAL(wc[0].wr_id, 600, "");
	TEST_ASSERT_EQUAL(dpv_ring_cq_clean(&c, QPN, NULL), 3, "clean");
	TEST_ASSERT_EQUAL(dpv_ring_cq_poll(&c, 16, wc, lookup, NULL), -EIO,
			  "only the other QP's send left");
	TEST_ASSERT_EQUAL(dpv_ring_cq_poll(&c, 16, wc, lookup, NULL), 0, "");
	dpv_mlx5_cq_fini(&c);
	return TEST_SUCCESS;
}

/* A solicited-only arm does not fire on a session (its mini arrays are
 * not read as CQEs), a solicited CQE fires it; a plain arm fires on a
 * session. */
static int
test_arm(void)
{
	struct dpv_mlx5_cq c;
	unsigned int i;

	TEST_ASSERT_EQUAL(make_cq(&c, 64, false, MLX5DV_CQE_RES_FORMAT_HASH),
			  0, "");
	c.cqn = 9;
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_arm(&c, 1), 0, "");
	for (i = 0; i < 20; i++) {
		/* byte counts whose low byte looks like an error opcode
		 * with the SE bit: the op_own of an array entry */
		TEST_ASSERT_EQUAL(push_recv(&c, 0xd3 + 0x100 * i, false), 0,
				  "");
		TEST_ASSERT(!dpv_ring_cq_should_notify(&c), "%u", i);
	}
	dpv_mlx5_cq_comp_commit(&c);
	TEST_ASSERT(!dpv_ring_cq_should_notify(&c), "session");
	TEST_ASSERT_EQUAL(push_recv(&c, 1, true), 0, "");
	TEST_ASSERT(dpv_ring_cq_should_notify(&c), "solicited");
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_arm(&c, 0), 0, "");
	TEST_ASSERT_EQUAL(push_recv(&c, 2, false), 0, "");
	TEST_ASSERT_EQUAL(push_recv(&c, 3, false), 0, "");
	/* armed: the held CQEs are written for the arm to see them */
	TEST_ASSERT(dpv_ring_cq_should_notify(&c), "next");
	TEST_ASSERT_EQUAL(c.prod_index, 23, "");
	dpv_mlx5_cq_fini(&c);
	return TEST_SUCCESS;
}

static struct dpv_test_suite mlx5_cqcomp_suite = {
	.name = "mlx5 CQE compression",
	.setup = suite_setup,
	.cases =
		{
			TEST_CASE(test_setup_errors),
			TEST_CASE_ST(setup, teardown, test_raw_layout),
			TEST_CASE_ST(setup, teardown, test_session_ends),
			TEST_CASE_ST(setup, teardown, test_poll_laps),
			TEST_CASE_ST(setup, teardown, test_clean_flush),
			TEST_CASE_ST(setup, teardown, test_arm),
			TEST_CASES_END(),
		},
};

static int
test_mlx5_cqcomp(void)
{
	return dpv_test_run_suite(&mlx5_cqcomp_suite);
}

DPV_TEST_REGISTER_FAST(mlx5_cqcomp, test_mlx5_cqcomp);
