/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mlx5 direct-verbs extensions behind libmlx5.so.1, through the private
 * entries it calls, on RC QPs of the first device over its loopback:
 *  - dpv_mlx5dv_create_cq (mlx5dv_create_cq): 128-byte CQEs carry the
 *    traffic's completions in the second half of each entry (the mlx5dv
 *    view says 128), padding zeroes the first half, bad sizes EINVAL,
 *    MLX5_CQE_SIZE from the environment;
 *  - dpv_qp_mlx5_udp_sport (mlx5dv_modify_qp_udp_sport): the QP's frames
 *    take the new port (its header template) and traffic still flows;
 *    not RTS / not RC or UC: EOPNOTSUPP;
 *  - IBV_ACCESS_ON_DEMAND: an ODP region of untouched memory receives an
 *    RDMA WRITE and is read back; odp_caps (implicit ODP:
 *    test_verbs_odp.c);
 *  - dpv_mlx5dv_map_ah_to_qp (mlx5dv_map_ah_to_qp): recorded once,
 *    unknown QP EINVAL.
 * libmlx5's own wrappers (and mlx5dv_query_port) run in
 * test/scripts/fast-dv-query.sh.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "dpv_test.h"
#include "engine_int.h"
#include "qp.h"
#include "test_loop_util.h"
#include "test_verbs_util.h"
#include "verbs_dv.h"
#include "verbs_int.h"

#define BUFLEN 4096

static struct ibv_device **devs;
static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_mr *mr;
static uint8_t mem[2][BUFLEN]; /* send, receive */
static int gid_index = -1;

static int
suite_setup(void)
{
	union ibv_gid gid;

	return test_verbs_loop_open(&devs, &ctx, &pd, &mr, mem, sizeof(mem),
				    IBV_ACCESS_LOCAL_WRITE |
					    IBV_ACCESS_REMOTE_WRITE,
				    &gid, &gid_index);
}

static void
suite_teardown(void)
{
	test_verbs_loop_close(&devs, &ctx, &pd, &mr);
}

/* Two RC (or UC) QPs sending to scq and receiving to rcq, connected to
 * each other. */
static int
pair_cqs(struct ibv_cq *scq, struct ibv_cq *rcq, enum ibv_qp_type t,
	 struct ibv_qp *qp[2])
{
	struct test_loop_conn c = {.mtu = IBV_MTU_1024,
				   .timeout = 14,
				   .rd_atomic = 1};

	return test_loop_pair(pd, scq, rcq, t, gid_index, &c, qp) == 0
		       ? TEST_SUCCESS
		       : TEST_FAILED;
}

static void
unpair(struct ibv_qp *qp[2])
{
	for (int i = 0; i < 2; i++)
		if (qp[i])
			ibv_destroy_qp(qp[i]);
}

/* Two RC (or UC) QPs on cq, connected to each other. */
static int
pair(struct ibv_cq *cq, enum ibv_qp_type t, struct ibv_qp *qp[2])
{
	return pair_cqs(cq, cq, t, qp);
}

/* A SEND of len bytes from qp[0] to qp[1]: both completions, in order of
 * arrival; 0 or the first failure. */
static int
send_one(struct ibv_cq *cq, struct ibv_qp *qp[2], uint32_t len,
	 struct ibv_wc wc[2])
{
	memset(mem[1], 0, BUFLEN);
	for (uint32_t i = 0; i < len; i++)
		mem[0][i] = (uint8_t)(i * 7 + len);
	if (test_loop_send_recv(qp, mr, mem[0], len, mem[1], BUFLEN))
		return EIO;
	if (test_loop_wait_wc(cq, wc, 2, 2000) != 2 ||
	    wc[0].status != IBV_WC_SUCCESS || wc[1].status != IBV_WC_SUCCESS)
		return EIO;
	return memcmp(mem[0], mem[1], len) == 0 ? 0 : EBADMSG;
}

static struct ibv_cq *
cq_of(struct ibv_cq_ex *x)
{
	return x ? ibv_cq_ex_to_cq(x) : NULL;
}

static int
test_cqe128_traffic(void)
{
	struct ibv_cq_init_attr_ex ca = {.cqe = 16};
	struct ibv_qp *qp[2] = {NULL, NULL};
	struct mlx5dv_cq dcq;
	struct mlx5dv_obj o;
	struct ibv_wc wc[2];
	struct ibv_cq *cq;
	int pad;

	/* sizes other than 64 and 128, padding of 64-byte CQEs */
	errno = 0;
	TEST_ASSERT_NULL(dpv_mlx5dv_create_cq(ctx, &ca, 100, 0, 0), "size 100");
	TEST_ASSERT_EQUAL(errno, EINVAL, "");
	errno = 0;
	TEST_ASSERT_NULL(dpv_mlx5dv_create_cq(ctx, &ca, 64, 1, 0), "pad 64");
	TEST_ASSERT_EQUAL(errno, EINVAL, "");
	for (pad = 0; pad < 2; pad++) {
		cq = cq_of(dpv_mlx5dv_create_cq(ctx, &ca, 128, pad, 0));
		TEST_ASSERT_NOT_NULL(cq, "128-byte CQ (pad %d)", pad);
		memset(&o, 0, sizeof(o));
		o.cq.in = cq;
		o.cq.out = &dcq;
		TEST_ASSERT_EQUAL(dpv_mlx5dv_init_obj(&o, MLX5DV_OBJ_CQ), 0, "");
		TEST_ASSERT_EQUAL(dcq.cqe_size, 128, "dv cqe_size");
		/* first halves hold garbage: only padding overwrites them */
		for (uint32_t i = 0; i < dcq.cqe_cnt; i++)
			memset((uint8_t *)dcq.buf + i * 128, 0xee, 64);
		TEST_ASSERT_EQUAL(pair(cq, IBV_QPT_RC, qp), TEST_SUCCESS, "");
		TEST_ASSERT_EQUAL(send_one(cq, qp, 100, wc), 0, "send");
		/* the two CQEs in the dv view: owner bit lap 0, the QP
		 * numbers in the second halves */
		for (int i = 0; i < 2; i++) {
			const uint8_t *e = (const uint8_t *)dcq.buf + i * 128;
			const struct mlx5_cqe64 *c = (const void *)(e + 64);
			uint32_t qpn = be32toh(c->sop_drop_qpn) & 0xffffff;

			TEST_ASSERT(qpn == qp[0]->qp_num || qpn == qp[1]->qp_num,
				    "cqe %d qpn %u", i, qpn);
			TEST_ASSERT_EQUAL(e[0], pad ? 0 : 0xee, "cqe %d pad", i);
		}
		TEST_ASSERT_EQUAL(((const uint8_t *)dcq.buf)[2 * 128 + 127] >> 4,
				  MLX5_CQE_INVALID, "third entry unused");
		unpair(qp);
		TEST_ASSERT_EQUAL(ibv_destroy_cq(cq), 0, "");
	}
	/* the default size; MLX5_CQE_SIZE on a device of the mlx5
	 * personality */
	cq = cq_of(dpv_mlx5dv_create_cq(ctx, &ca, 0, 0, 0));
	TEST_ASSERT_NOT_NULL(cq, "default");
	TEST_ASSERT_EQUAL(to_dcq(cq)->ring.cqe_size, 64, "");
	ibv_destroy_cq(cq);
	setenv("MLX5_CQE_SIZE", "100", 1);
	errno = 0;
	cq = cq_of(dpv_mlx5dv_create_cq(ctx, &ca, 0, 0, 0));
	if (to_dctx(ctx)->dev->mlx5_personality) {
		TEST_ASSERT(cq == NULL && errno == EINVAL, "env 100");
		setenv("MLX5_CQE_SIZE", "128", 1);
		cq = cq_of(dpv_mlx5dv_create_cq(ctx, &ca, 0, 0, 0));
		TEST_ASSERT(cq && to_dcq(cq)->ring.cqe_size == 128, "env 128");
	}
	unsetenv("MLX5_CQE_SIZE");
	if (cq)
		ibv_destroy_cq(cq);
	return TEST_SUCCESS;
}

/*
 * Wait (driving the engine) until n completions are on a compressed CQ,
 * looking at the raw ring without consuming it; *sessions counts the
 * titles (format 3) seen.
 */
static int
wait_recv_raw(struct ibv_cq *cq, unsigned int n, unsigned int *sessions)
{
	struct dpv_mlx5_cq *r = &to_dcq(cq)->ring;
	uint64_t end = rte_get_timer_cycles() + 5 * rte_get_timer_hz();

	while (rte_get_timer_cycles() < end) {
		unsigned int seen = 0, titles = 0;
		uint32_t i = r->cons_index;

		while (seen < n) {
			const uint8_t *e = (const uint8_t *)r->buf +
					   (size_t)(i & (r->cqe_cnt - 1)) *
						   r->cqe_size +
					   r->cqe_size - 64;
			uint8_t oo = __atomic_load_n(&e[63], __ATOMIC_ACQUIRE);
			uint32_t k = 1;

			if ((oo >> 4) == MLX5_CQE_INVALID ||
			    (oo & 1) != !!(i & r->cqe_cnt))
				break;
			if (((oo >> 2) & 3) == 3) {
				k = be32toh(((const struct mlx5_cqe64 *)e)
						    ->byte_cnt);
				titles++;
			}
			seen += k;
			i += k;
		}
		if (seen >= n) {
			*sessions += titles;
			return 0;
		}
		dpv_engine_progress(to_dctx(cq->context)->dev->engine);
	}
	return ETIMEDOUT;
}

/*
 * CQE compression: mlx5dv_create_cq with one format (two: EINVAL; the
 * caps are checked by tests.test_mlx5_cq through libmlx5), traffic on compressed 64- and 128-byte
 * CQs (bursts of receives, the sessions expanded by ibv_poll_cq).
 */
static int
test_cqcomp_traffic(void)
{
	static const uint8_t fmts[] = {MLX5DV_CQE_RES_FORMAT_HASH,
				       MLX5DV_CQE_RES_FORMAT_CSUM,
				       MLX5DV_CQE_RES_FORMAT_CSUM_STRIDX};
	struct ibv_cq_init_attr_ex ca = {.cqe = 32};
	struct ibv_qp *qp[2] = {NULL, NULL};
	struct ibv_wc wc[16];
	struct ibv_cq *cq, *scq;
	unsigned int sessions;

	if (to_dctx(ctx)->dev->ring_ops != &dpv_mlx5_ring_ops) {
		errno = 0;
		TEST_ASSERT_NULL(dpv_mlx5dv_create_cq(ctx, &ca, 0, 0, fmts[0]),
				 "mlx4 rings");
		TEST_ASSERT_EQUAL(errno, EOPNOTSUPP, "");
		return TEST_SKIPPED;
	}
	errno = 0;
	TEST_ASSERT_NULL(dpv_mlx5dv_create_cq(ctx, &ca, 0, 0,
					      MLX5DV_CQE_RES_FORMAT_HASH |
						      MLX5DV_CQE_RES_FORMAT_CSUM),
			 "two formats");
	TEST_ASSERT_EQUAL(errno, EINVAL, "");
	for (unsigned int f = 0; f < RTE_DIM(fmts); f++)
	for (uint16_t sz = 64; sz <= 128; sz += 64) {
		struct ibv_sge rs = {(uintptr_t)mem[1], BUFLEN, mr->lkey};
		struct ibv_recv_wr *rb;
		struct ibv_send_wr *sb;
		unsigned int nrecv = 0, nsend = 0;

		cq = cq_of(dpv_mlx5dv_create_cq(ctx, &ca, sz, 0, fmts[f]));
		TEST_ASSERT_NOT_NULL(cq, "format %u size %u", fmts[f], sz);
		TEST_ASSERT(to_dcq(cq)->ring.comp != NULL, "compressed");
		TEST_ASSERT_EQUAL(to_dcq(cq)->ring.cqe_size, sz, "");
		TEST_ASSERT_EQUAL(ibv_resize_cq(cq, 64), EOPNOTSUPP, "resize");
		/* receives alone on the compressed CQ: sends end sessions */
		scq = ibv_create_cq(ctx, 32, NULL, NULL, 0);
		TEST_ASSERT_NOT_NULL(scq, "");
		TEST_ASSERT_EQUAL(pair_cqs(scq, cq, IBV_QPT_RC, qp),
				  TEST_SUCCESS, "");
		sessions = 0;
		for (int round = 0; round < 3; round++) {
			for (uint64_t i = 0; i < 8; i++) {
				struct ibv_recv_wr rw = {.wr_id = 100 + i,
							 .sg_list = &rs,
							 .num_sge = 1};

				TEST_ASSERT_EQUAL(ibv_post_recv(qp[1], &rw,
								&rb),
						  0, "");
			}
			/* one list of 8 SENDs: one burst on the wire */
			struct ibv_sge ss[8];
			struct ibv_send_wr sw[8];

			for (unsigned int i = 0; i < 8; i++) {
				ss[i] = (struct ibv_sge){(uintptr_t)mem[0],
							 100 + i, mr->lkey};
				sw[i] = (struct ibv_send_wr){
					.wr_id = i,
					.next = i < 7 ? &sw[i + 1] : NULL,
					.sg_list = &ss[i],
					.num_sge = 1,
					.opcode = IBV_WR_SEND,
					.send_flags = IBV_SEND_SIGNALED};
			}
			TEST_ASSERT_EQUAL(ibv_post_send(qp[0], sw, &sb), 0, "");
			/* the receives first (raw: sessions seen) */
			TEST_ASSERT_EQUAL(wait_recv_raw(cq, 8, &sessions), 0,
					  "round %d", round);
			TEST_ASSERT_EQUAL(test_loop_wait_wc(cq, wc, 8, 5000), 8,
					  "round %d", round);
			TEST_ASSERT_EQUAL(
				test_loop_wait_wc(scq, wc + 8, 8, 5000), 8,
				"round %d", round);
			nrecv = nsend = 0;
			for (int i = 0; i < 16; i++) {
				TEST_ASSERT_EQUAL(wc[i].status, IBV_WC_SUCCESS,
						  "wc %d", i);
				if (wc[i].opcode == IBV_WC_RECV) {
					TEST_ASSERT_EQUAL(wc[i].wr_id,
							  100 + nrecv, "");
					TEST_ASSERT_EQUAL(wc[i].byte_len,
							  100 + nrecv, "");
					TEST_ASSERT_EQUAL(wc[i].qp_num,
							  qp[1]->qp_num, "");
					nrecv++;
				} else {
					TEST_ASSERT_EQUAL(wc[i].wr_id, nsend,
							  "");
					nsend++;
				}
			}
			TEST_ASSERT(nrecv == 8 && nsend == 8, "");
		}
		TEST_ASSERT(sessions > 0, "no compressed session formed");
		unpair(qp);
		TEST_ASSERT_EQUAL(ibv_destroy_cq(cq), 0, "");
		TEST_ASSERT_EQUAL(ibv_destroy_cq(scq), 0, "");
	}
	return TEST_SUCCESS;
}

/* The UDP source port in a QP's header template (engine_wire.c). */
static uint16_t
tmpl_sport(struct ibv_qp *qp)
{
	struct dpv_engine *e = to_dctx(ctx)->dev->engine;
	struct dpv_eqp *q;
	uint16_t sp;

	dpv_engine_lock(e);
	q = dpv_engine_qp_lookup(e, qp->qp_num);
	sp = q ? (uint16_t)(q->tmpl.b[q->tmpl.len - 8] << 8 |
			    q->tmpl.b[q->tmpl.len - 7])
	       : 0;
	dpv_engine_unlock(e);
	return sp;
}

static int
test_udp_sport(void)
{
	struct ibv_cq *cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	struct ibv_qp *qp[2] = {NULL, NULL};
	struct ibv_qp_init_attr ia = {.send_cq = cq,
				      .recv_cq = cq,
				      .cap = {.max_send_wr = 1,
					      .max_recv_wr = 1,
					      .max_send_sge = 1,
					      .max_recv_sge = 1},
				      .qp_type = IBV_QPT_UD};
	struct ibv_qp *ud;
	struct ibv_wc wc[2];

	TEST_ASSERT_NOT_NULL(cq, "");
	TEST_ASSERT_EQUAL(pair(cq, IBV_QPT_RC, qp), TEST_SUCCESS, "");
	TEST_ASSERT(tmpl_sport(qp[1]) != 55555, "derived port");
	TEST_ASSERT_EQUAL(dpv_qp_mlx5_udp_sport(qp[1], 55555), 0, "");
	TEST_ASSERT_EQUAL(tmpl_sport(qp[1]), 55555, "template");
	TEST_ASSERT_EQUAL(send_one(cq, qp, 64, wc), 0, "send to it");
	/* the other way: the changed QP's requests */
	struct ibv_qp *rev[2] = {qp[1], qp[0]};

	TEST_ASSERT_EQUAL(send_one(cq, rev, 64, wc), 0, "send from it");
	TEST_ASSERT_EQUAL(dpv_qp_mlx5_udp_sport(qp[1], 0), EINVAL, "port 0");
	TEST_ASSERT_EQUAL(dpv_qp_mlx5_udp_sport(NULL, 1), EINVAL, "NULL");
	unpair(qp);
	/* RTS only, RC / UC only */
	qp[0] = qp[1] = NULL;
	ia.qp_type = IBV_QPT_RC;
	qp[0] = ibv_create_qp(pd, &ia);
	TEST_ASSERT_NOT_NULL(qp[0], "");
	TEST_ASSERT_EQUAL(dpv_qp_mlx5_udp_sport(qp[0], 55555), EOPNOTSUPP,
			  "RESET");
	ibv_destroy_qp(qp[0]);
	ia.qp_type = IBV_QPT_UD;
	ud = ibv_create_qp(pd, &ia);
	TEST_ASSERT_NOT_NULL(ud, "");
	TEST_ASSERT_EQUAL(dpv_qp_mlx5_udp_sport(ud, 55555), EOPNOTSUPP, "UD");
	ibv_destroy_qp(ud);
	TEST_ASSERT_EQUAL(pair(cq, IBV_QPT_UC, qp), TEST_SUCCESS, "");
	TEST_ASSERT_EQUAL(dpv_qp_mlx5_udp_sport(qp[0], 50000), 0, "UC");
	TEST_ASSERT_EQUAL(tmpl_sport(qp[0]), 50000, "UC template");
	TEST_ASSERT_EQUAL(send_one(cq, qp, 64, wc), 0, "UC send");
	unpair(qp);
	ibv_destroy_cq(cq);
	return TEST_SUCCESS;
}

static int
test_odp(void)
{
	const unsigned int acc = IBV_ACCESS_LOCAL_WRITE |
				 IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_ON_DEMAND;
	struct ibv_cq *cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	struct ibv_qp *qp[2] = {NULL, NULL};
	struct ibv_device_attr_ex da;
	struct ibv_send_wr *bad;
	struct ibv_mr *odp;
	struct ibv_wc wc;
	uint8_t *page;

	TEST_ASSERT_EQUAL(ibv_query_device_ex(ctx, NULL, &da), 0, "");
	TEST_ASSERT(da.odp_caps.general_caps & IBV_ODP_SUPPORT, "ODP");
	TEST_ASSERT(da.odp_caps.per_transport_caps.rc_odp_caps &
			    IBV_ODP_SUPPORT_WRITE,
		    "RC WRITE");
	TEST_ASSERT(!(da.odp_caps.per_transport_caps.uc_odp_caps &
		      IBV_ODP_SUPPORT_READ),
		    "no UC READ");
	/* fresh anonymous pages: nothing behind them until touched */
	page = mmap(NULL, BUFLEN, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	TEST_ASSERT(page != MAP_FAILED, "");
	odp = ibv_reg_mr(pd, page, BUFLEN, acc);
	TEST_ASSERT_NOT_NULL(odp, "ODP region (errno %d)", errno);
	TEST_ASSERT_EQUAL(pair(cq, IBV_QPT_RC, qp), TEST_SUCCESS, "");
	memset(mem[0], 0x5a, 512);
	struct ibv_sge s = {(uintptr_t)mem[0], 512, mr->lkey};
	struct ibv_send_wr w = {.wr_id = 9,
				.sg_list = &s,
				.num_sge = 1,
				.opcode = IBV_WR_RDMA_WRITE,
				.send_flags = IBV_SEND_SIGNALED,
				.wr.rdma = {(uintptr_t)page + 1024, odp->rkey}};

	TEST_ASSERT_EQUAL(ibv_post_send(qp[0], &w, &bad), 0, "");
	TEST_ASSERT_EQUAL(test_loop_wait_wc(cq, &wc, 1, 2000), 1, "");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "");
	TEST_ASSERT(page[1024] == 0x5a && page[1535] == 0x5a && page[0] == 0 &&
			    page[1536] == 0,
		    "written");
	unpair(qp);
	TEST_ASSERT_EQUAL(ibv_dereg_mr(odp), 0, "");
	munmap(page, BUFLEN);
	ibv_destroy_cq(cq);
	return TEST_SUCCESS;
}

static int
test_map_ah(void)
{
	struct ibv_cq *cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	struct ibv_qp *qp[2] = {NULL, NULL};
	struct ibv_ah_attr aa = {.is_global = 1, .port_num = 1};
	struct ibv_ah *ah;

	TEST_ASSERT_EQUAL(pair(cq, IBV_QPT_RC, qp), TEST_SUCCESS, "");
	TEST_ASSERT_EQUAL(ibv_query_gid(ctx, 1, gid_index, &aa.grh.dgid), 0,
			  "");
	aa.grh.sgid_index = (uint8_t)gid_index;
	aa.grh.hop_limit = 64;
	ah = ibv_create_ah(pd, &aa);
	TEST_ASSERT_NOT_NULL(ah, "");
	TEST_ASSERT_EQUAL(dpv_mlx5dv_ah_qp_map(ah), UINT32_MAX, "not mapped");
	TEST_ASSERT_EQUAL(dpv_mlx5dv_map_ah_to_qp(ah, 0xfffffe), EINVAL,
			  "no such QP");
	TEST_ASSERT_EQUAL(dpv_mlx5dv_map_ah_to_qp(ah, qp[0]->qp_num), 0, "");
	TEST_ASSERT_EQUAL(dpv_mlx5dv_ah_qp_map(ah), qp[0]->qp_num, "");
	/* a second mapping is ignored and succeeds */
	TEST_ASSERT_EQUAL(dpv_mlx5dv_map_ah_to_qp(ah, qp[1]->qp_num), 0, "");
	TEST_ASSERT_EQUAL(dpv_mlx5dv_ah_qp_map(ah), qp[0]->qp_num, "kept");
	/* the QP goes, the mapping stays */
	unpair(qp);
	TEST_ASSERT(dpv_mlx5dv_ah_qp_map(ah) != UINT32_MAX, "after the QP");
	TEST_ASSERT_EQUAL(dpv_mlx5dv_map_ah_to_qp(NULL, 1), EINVAL, "NULL");
	ibv_destroy_ah(ah);
	ibv_destroy_cq(cq);
	return TEST_SUCCESS;
}

static struct dpv_test_suite suite = {
	.name = "verbs_dv_ext",
	.setup = suite_setup,
	.teardown = suite_teardown,
	.cases =
		{
			TEST_CASE(test_cqe128_traffic),
			TEST_CASE(test_cqcomp_traffic),
			TEST_CASE(test_udp_sport),
			TEST_CASE(test_odp),
			TEST_CASE(test_map_ah),
			TEST_CASES_END(),
		},
};

static int
verbs_dv_ext_autotest(void)
{
	return dpv_test_run_suite(&suite);
}

DPV_TEST_REGISTER_FAST(verbs_dv_ext_autotest, verbs_dv_ext_autotest);
