/* SPDX-License-Identifier: BSD-3-Clause */
/* mlx5 ring personality: send-queue layout and post_send/sq_fetch round
 * trips, the ibv_qp_ex builder. */

#include <errno.h>
#include <stddef.h>
#include <endian.h>

#include <rte_memory.h>

#include "dpv_test.h"
#include "mlx5_ring.h"

/* Byte-exact layout of the segments we write (offsets from mlx5 PRM). */
_Static_assert(offsetof(struct mlx5_wqe_ctrl_seg, qpn_ds) == 4, "");
_Static_assert(offsetof(struct mlx5_wqe_ctrl_seg, signature) == 8, "");
_Static_assert(offsetof(struct mlx5_wqe_ctrl_seg, fm_ce_se) == 11, "");
_Static_assert(offsetof(struct mlx5_wqe_ctrl_seg, imm) == 12, "");
_Static_assert(sizeof(struct mlx5_wqe_raddr_seg) == 16, "");
_Static_assert(offsetof(struct mlx5_wqe_raddr_seg, rkey) == 8, "");
_Static_assert(offsetof(struct mlx5_wqe_atomic_seg, compare) == 8, "");
_Static_assert(sizeof(struct mlx5_wqe_av) == 48, "");
_Static_assert(offsetof(struct mlx5_wqe_av, dqp_dct) == 8, "");
_Static_assert(offsetof(struct mlx5_wqe_av, rlid) == 14, "");
_Static_assert(offsetof(struct mlx5_wqe_av, rmac) == 20, "");
_Static_assert(offsetof(struct mlx5_wqe_av, grh_gid_fl) == 28, "");
_Static_assert(offsetof(struct mlx5_wqe_av, rgid) == 32, "");
_Static_assert(offsetof(struct mlx5_wqe_data_seg, lkey) == 4, "");
_Static_assert(offsetof(struct mlx5_wqe_data_seg, addr) == 8, "");
_Static_assert(sizeof(struct mlx5_wqe_inl_data_seg) == 4, "");
_Static_assert(offsetof(struct mlx5_wqe_srq_next_seg, next_wqe_index) == 2, "");
_Static_assert(offsetof(struct mlx5_wqe_eth_seg, inline_hdr_sz) == 12, "");
_Static_assert(offsetof(struct mlx5_wqe_eth_seg, inline_hdr_start) == 14, "");
_Static_assert(MLX5_SEND_WQE_BB == 64, "");

#define QPN 0x123456u

static struct dpv_mlx5_sq sq;

static int
suite_setup(void)
{
	return dpv_test_eal_init() == 0 ? TEST_SUCCESS : TEST_SKIPPED;
}

static void
sq_teardown(void)
{
	dpv_mlx5_sq_fini(&sq);
}

static int
sq_setup_small(void)
{
	return dpv_mlx5_sq_init(&sq, 4, 4, 64, SOCKET_ID_ANY) ? TEST_FAILED
							      : TEST_SUCCESS;
}

/* The ring's doorbell record value (host order). */
static uint32_t
sq_db(void)
{
	return be32toh(*sq.wq.db);
}

/* Complete WQEs as the app's poll would, so the ring can be reused. */
static void
sq_complete_all(void)
{
	sq.wq.tail = sq.wq.head;
	sq.bb_tail = sq.cur_post;
}

static int
test_sq_init_caps(void)
{
	struct dpv_mlx5_sq s;

	TEST_ASSERT_EQUAL(dpv_mlx5_sq_init(&s, 0, 1, 0, SOCKET_ID_ANY), EINVAL,
			  "");
	TEST_ASSERT_EQUAL(dpv_mlx5_sq_init(&s, 1, DPV_MLX5_MAX_SEND_SGE + 1, 0,
					   SOCKET_ID_ANY),
			  EINVAL, "");
	TEST_ASSERT_EQUAL(dpv_mlx5_sq_init(&s, 1, 1, DPV_MLX5_MAX_INLINE + 1,
					   SOCKET_ID_ANY),
			  EINVAL, "");
	TEST_ASSERT_EQUAL(dpv_mlx5_sq_init(&s, 1 << 20, 1, 0, SOCKET_ID_ANY),
			  EINVAL, "");
	TEST_ASSERT_EQUAL(dpv_mlx5_sq_init(&s, 100, 2, 0, SOCKET_ID_ANY), 0,
			  "");
	TEST_ASSERT(s.wq.max_post >= 100, "max_post %u", s.wq.max_post);
	TEST_ASSERT((s.wq.wqe_cnt & (s.wq.wqe_cnt - 1)) == 0, "pow2");
	TEST_ASSERT(s.wq.max_gs >= 2, "");
	TEST_ASSERT(((uintptr_t)s.wq.buf & (RTE_CACHE_LINE_SIZE - 1)) == 0,
		    "aligned");
	TEST_ASSERT_EQUAL(s.wq.wqe_shift, 6, "");
	dpv_mlx5_sq_fini(&s);
	dpv_mlx5_sq_fini(&s); /* idempotent */
	return TEST_SUCCESS;
}

/* The control and data segments are byte-exact. */
static int
test_ctrl_bytes(void)
{
	struct ibv_sge sge = {.addr = 0x1122334455667788ull,
			      .length = 0x99,
			      .lkey = 0xaabbccdd};
	struct ibv_send_wr wr = {.wr_id = 7,
				 .sg_list = &sge,
				 .num_sge = 1,
				 .opcode = IBV_WR_SEND_WITH_IMM,
				 .send_flags =
					 IBV_SEND_SIGNALED | IBV_SEND_SOLICITED,
				 .imm_data = htobe32(0xdeadbeef)};
	struct ibv_send_wr *bad = NULL;
	struct mlx5_wqe_ctrl_seg ref;
	static const uint8_t dseg[16] = {
		0x00, 0x00, 0x00, 0x99, 0xaa, 0xbb, 0xcc, 0xdd,
		0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
	};
	const uint8_t *w = sq.wq.buf;

	TEST_ASSERT_EQUAL(dpv_mlx5_post_send(&sq, IBV_QPT_RC, QPN, &wr, &bad),
			  0, "");
	memset(&ref, 0, sizeof(ref));
	mlx5dv_set_ctrl_seg(&ref, 0, MLX5_OPCODE_SEND_IMM, 0, QPN,
			    MLX5_WQE_CTRL_CQ_UPDATE | MLX5_WQE_CTRL_SOLICITED,
			    2, 0, htobe32(0xdeadbeef));
	TEST_ASSERT_BUFFERS_EQUAL(w, &ref, 16, "ctrl seg");
	TEST_ASSERT_EQUAL(w[3], 0x0b, "opcode byte");
	TEST_ASSERT_EQUAL(w[4], 0x12, "qpn msb");
	TEST_ASSERT_EQUAL(w[7], 2, "ds");
	TEST_ASSERT_BUFFERS_EQUAL(w + 16, dseg, 16, "data seg");
	TEST_ASSERT_EQUAL(sq_db(), 1, "doorbell = 1 block");
	TEST_ASSERT_EQUAL(sq.wq.dbrec[MLX5_SND_DBR], htobe32(1), "SND_DBR");
	/* second WQE: index 1 in opmod_idx_opcode */
	wr.opcode = IBV_WR_SEND;
	TEST_ASSERT_EQUAL(dpv_mlx5_post_send(&sq, IBV_QPT_RC, QPN, &wr, &bad),
			  0, "");
	TEST_ASSERT_EQUAL(be32toh(*(uint32_t *)(w + 64)), (1u << 8) | 0x0a, "");
	return TEST_SUCCESS;
}

static int
post1(enum ibv_qp_type t, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad = NULL;

	return dpv_mlx5_post_send(&sq, t, QPN, wr, &bad);
}

/* Every RC opcode comes back out of the engine decoder unchanged. */
static int
test_rc_opcodes(void)
{
	struct ibv_sge sg[3] = {
		{0x1000, 100, 0x11},
		{0x2000, 0, 0x22},
		{0x3000, 300, 0x33},
	};
	static const enum ibv_wr_opcode ops[] = {
		IBV_WR_SEND,
		IBV_WR_SEND_WITH_IMM,
		IBV_WR_SEND_WITH_INV,
		IBV_WR_RDMA_WRITE,
		IBV_WR_RDMA_WRITE_WITH_IMM,
		IBV_WR_RDMA_READ,
		IBV_WR_ATOMIC_CMP_AND_SWP,
		IBV_WR_ATOMIC_FETCH_AND_ADD,
	};
	struct dpv_wr out;
	size_t i;

	for (i = 0; i < RTE_DIM(ops); i++) {
		bool at = ops[i] == IBV_WR_ATOMIC_CMP_AND_SWP ||
			  ops[i] == IBV_WR_ATOMIC_FETCH_AND_ADD;
		struct ibv_send_wr wr = {
			.wr_id = 100 + i,
			.sg_list = sg,
			.num_sge = at ? 1 : 3,
			.opcode = ops[i],
			.send_flags =
				i & 1 ? IBV_SEND_SIGNALED : IBV_SEND_FENCE,
			.imm_data = htobe32(0xabcd0000 + i),
		};

		if (ops[i] == IBV_WR_SEND_WITH_INV)
			wr.invalidate_rkey = 0x5511;
		else if (at) {
			wr.wr.atomic.remote_addr = 0xfeed0000 + i;
			wr.wr.atomic.rkey = 0x77;
			wr.wr.atomic.compare_add = 0x1111222233334444ull;
			wr.wr.atomic.swap = 0x5555666677778888ull;
		} else {
			wr.wr.rdma.remote_addr = 0xbeef0000 + i;
			wr.wr.rdma.rkey = 0x66;
		}
		TEST_ASSERT_EQUAL(post1(IBV_QPT_RC, &wr), 0, "op %d", ops[i]);
		TEST_ASSERT(dpv_mlx5_sq_fetch(&sq, &out), "fetch op %d",
			    ops[i]);
		TEST_ASSERT(!(out.flags & DPV_WR_F_MALFORMED), "op %d", ops[i]);
		TEST_ASSERT_EQUAL(out.opcode, ops[i], "");
		TEST_ASSERT_EQUAL(out.qpn, QPN, "");
		TEST_ASSERT_EQUAL(!!(out.flags & DPV_WR_F_SIGNALED), i & 1, "");
		TEST_ASSERT_EQUAL(!!(out.flags & DPV_WR_F_FENCE), !(i & 1), "");
		if (ops[i] == IBV_WR_SEND_WITH_IMM ||
		    ops[i] == IBV_WR_RDMA_WRITE_WITH_IMM)
			TEST_ASSERT_EQUAL(out.imm_data, htobe32(0xabcd0000 + i),
					  "");
		else
			TEST_ASSERT_EQUAL(out.imm_data, 0, "");
		if (ops[i] == IBV_WR_SEND_WITH_INV)
			TEST_ASSERT_EQUAL(out.invalidate_rkey, 0x5511, "");
		if (at) {
			TEST_ASSERT_EQUAL(out.remote_addr, 0xfeed0000 + i, "");
			TEST_ASSERT_EQUAL(out.rkey, 0x77, "");
			TEST_ASSERT_EQUAL(out.compare_add,
					  0x1111222233334444ull, "");
			if (ops[i] == IBV_WR_ATOMIC_CMP_AND_SWP)
				TEST_ASSERT_EQUAL(out.swap,
						  0x5555666677778888ull, "");
			TEST_ASSERT_EQUAL(out.num_sge, 1, "");
			TEST_ASSERT_EQUAL(out.sg_list[0].length, 8,
					  "atomic len");
		} else {
			if (ops[i] == IBV_WR_RDMA_WRITE ||
			    ops[i] == IBV_WR_RDMA_WRITE_WITH_IMM ||
			    ops[i] == IBV_WR_RDMA_READ) {
				TEST_ASSERT_EQUAL(out.remote_addr,
						  0xbeef0000 + i, "");
				TEST_ASSERT_EQUAL(out.rkey, 0x66, "");
			}
			/* the zero-length SGE is dropped, as mlx5 does */
			TEST_ASSERT_EQUAL(out.num_sge, 2, "");
			TEST_ASSERT_EQUAL(out.sg_list[0].addr, 0x1000, "");
			TEST_ASSERT_EQUAL(out.sg_list[0].lkey, 0x11, "");
			TEST_ASSERT_EQUAL(out.sg_list[1].length, 300, "");
			TEST_ASSERT_EQUAL(out.total_len, 400, "");
		}
		TEST_ASSERT_EQUAL(out.wqe_index,
				  (uint16_t)(sq.cur_post - out.nbb), "");
		dpv_mlx5_sq_retire(&sq, &out);
		sq_complete_all();
	}
	TEST_ASSERT(!dpv_mlx5_sq_fetch(&sq, &out), "nothing more");
	return TEST_SUCCESS;
}

static int
test_bind_local_inv(void)
{
	struct ibv_mr mr = {.lkey = 0x4242};
	struct ibv_mw mw = {.rkey = 0x1200, .type = IBV_MW_TYPE_2};
	struct ibv_send_wr wr = {.wr_id = 1, .opcode = IBV_WR_BIND_MW};
	struct ibv_send_wr li = {.wr_id = 2,
				 .opcode = IBV_WR_LOCAL_INV,
				 .invalidate_rkey = 0x9988};
	struct dpv_wr out;

	wr.bind_mw.mw = &mw;
	wr.bind_mw.rkey = 0x1201;
	wr.bind_mw.bind_info.mr = &mr;
	wr.bind_mw.bind_info.addr = 0x10000;
	wr.bind_mw.bind_info.length = 4096;
	wr.bind_mw.bind_info.mw_access_flags =
		IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE;
	TEST_ASSERT_EQUAL(post1(IBV_QPT_RC, &wr), 0, "");
	TEST_ASSERT_EQUAL(post1(IBV_QPT_RC, &li), 0, "");
	TEST_ASSERT(dpv_mlx5_sq_fetch(&sq, &out), "");
	TEST_ASSERT(!(out.flags & DPV_WR_F_MALFORMED), "");
	TEST_ASSERT_EQUAL(out.opcode, IBV_WR_BIND_MW, "");
	TEST_ASSERT_EQUAL(out.bind.mw_rkey, 0x1200, "");
	TEST_ASSERT_EQUAL(out.bind.new_key, 0x01, "");
	TEST_ASSERT_EQUAL(out.bind.mr_lkey, 0x4242, "");
	TEST_ASSERT_EQUAL(out.bind.addr, 0x10000, "");
	TEST_ASSERT_EQUAL(out.bind.length, 4096, "");
	TEST_ASSERT_EQUAL(out.bind.access,
			  IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE, "");
	TEST_ASSERT(out.bind.type2, "");
	TEST_ASSERT_EQUAL(out.nbb, 3, "ctrl+umr+mkey+klm = 192 bytes");
	TEST_ASSERT(dpv_mlx5_sq_fetch(&sq, &out), "");
	TEST_ASSERT_EQUAL(out.opcode, IBV_WR_LOCAL_INV, "");
	TEST_ASSERT_EQUAL(out.invalidate_rkey, 0x9988, "");
	TEST_ASSERT(out.flags & DPV_WR_F_SMALL_FENCE, "fence after a bind");
	return TEST_SUCCESS;
}

/* max_wr = 1, one SGE: the ring must still take a memory-window bind
 * (3 blocks), then max_post of them in a row. */
static int
test_sq_umr_room(void)
{
	struct ibv_mr mr = {.lkey = 0x4242};
	struct ibv_mw mw = {.rkey = 0x1200, .type = IBV_MW_TYPE_2};
	struct ibv_send_wr wr = {.wr_id = 1,
				 .opcode = IBV_WR_BIND_MW,
				 .send_flags = IBV_SEND_SIGNALED};
	struct ibv_send_wr *bad = NULL;
	struct dpv_mlx5_sq s;
	unsigned int want[] = {1, 2, 5, 16};

	wr.bind_mw.mw = &mw;
	wr.bind_mw.rkey = 0x1201;
	wr.bind_mw.bind_info.mr = &mr;
	wr.bind_mw.bind_info.addr = 0x10000;
	wr.bind_mw.bind_info.length = 4096;
	wr.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_READ;
	for (unsigned int t = 0; t < RTE_DIM(want); t++) {
		TEST_ASSERT_EQUAL(
			dpv_mlx5_sq_init(&s, want[t], 1, 0, SOCKET_ID_ANY), 0,
			"init %u", want[t]);
		TEST_ASSERT(s.wq.max_post >= want[t], "max_post %u",
			    s.wq.max_post);
		for (unsigned int i = 0; i < s.wq.max_post; i++) {
			int rc = dpv_mlx5_post_send(&s, IBV_QPT_RC, QPN, &wr,
						    &bad);

			if (rc != 0) {
				dpv_mlx5_sq_fini(&s);
				TEST_ASSERT_EQUAL(rc, 0, "bind %u of %u: %d", i,
						  want[t], rc);
			}
		}
		dpv_mlx5_sq_fini(&s);
	}
	/* the largest ring still fits the block limit */
	TEST_ASSERT_EQUAL(dpv_mlx5_sq_init(&s, 16384, 1, 0, SOCKET_ID_ANY), 0,
			  "16384 WRs");
	TEST_ASSERT(s.wq.max_post >= 16384, "");
	dpv_mlx5_sq_fini(&s);
	return TEST_SUCCESS;
}

static int
test_inline_and_wrap(void)
{
	uint8_t data[64], got[64];
	unsigned int lap;
	struct dpv_wr out;

	for (lap = 0; lap < 100; lap++) {
		uint32_t len = 1 + (lap * 7) % 60;
		struct ibv_sge sg[2] = {
			{(uintptr_t)data, len / 2, 0},
			{(uintptr_t)(data + len / 2), len - len / 2, 0},
		};
		struct ibv_send_wr wr = {.wr_id = lap,
					 .sg_list = sg,
					 .num_sge = 2,
					 .opcode = IBV_WR_SEND,
					 .send_flags = IBV_SEND_INLINE};
		uint32_t k;

		for (k = 0; k < sizeof(data); k++)
			data[k] = (uint8_t)(lap * 31 + k);
		TEST_ASSERT_EQUAL(post1(IBV_QPT_RC, &wr), 0, "lap %u", lap);
		TEST_ASSERT(dpv_mlx5_sq_fetch(&sq, &out), "");
		TEST_ASSERT(out.flags & DPV_WR_F_INLINE, "");
		TEST_ASSERT_EQUAL(out.inline_len, len, "");
		TEST_ASSERT_EQUAL(out.inl[0].len + out.inl[1].len, len, "");
		memcpy(got, out.inl[0].addr, out.inl[0].len);
		memcpy(got + out.inl[0].len, out.inl[1].addr, out.inl[1].len);
		TEST_ASSERT_BUFFERS_EQUAL(got, data, len, "lap %u", lap);
		dpv_mlx5_sq_retire(&sq, &out);
		sq_complete_all();
	}
	TEST_ASSERT(sq.cur_post > 4 * sq.wq.wqe_cnt, "wrapped several times");
	return TEST_SUCCESS;
}

static int
test_errors(void)
{
	uint8_t big[128] = {0};
	struct ibv_sge sg[8] = {{0x1000, 8, 1}};
	struct ibv_sge bigsg = {(uintptr_t)big, sizeof(big), 0};
	struct ibv_send_wr w[8];
	struct ibv_send_wr *bad = NULL;
	uint32_t db0;
	int i;

	memset(w, 0, sizeof(w));
	for (i = 0; i < 8; i++) {
		w[i].wr_id = i;
		w[i].opcode = IBV_WR_SEND;
		w[i].sg_list = sg;
		w[i].num_sge = 1;
		w[i].next = i < 7 ? &w[i + 1] : NULL;
	}
	/* full: the first max_post are posted, then ENOMEM */
	db0 = sq_db();
	TEST_ASSERT_EQUAL(dpv_mlx5_post_send(&sq, IBV_QPT_RC, QPN, w, &bad),
			  ENOMEM, "");
	TEST_ASSERT(bad == &w[sq.wq.max_post], "bad_wr at the first unposted");
	TEST_ASSERT_EQUAL(sq.wq.head, sq.wq.max_post, "");
	TEST_ASSERT(sq_db() != db0, "doorbell rung for the posted ones");
	sq_complete_all();
	w[0].next = NULL;
	/* too many SGEs */
	w[0].num_sge = (int)sq.wq.max_gs + 1;
	TEST_ASSERT_EQUAL(post1(IBV_QPT_RC, &w[0]), EINVAL, "sge");
	w[0].num_sge = -1;
	TEST_ASSERT_EQUAL(post1(IBV_QPT_RC, &w[0]), EINVAL, "negative sge");
	w[0].num_sge = 1;
	/* inline too big */
	w[0].sg_list = &bigsg;
	w[0].send_flags = IBV_SEND_INLINE;
	TEST_ASSERT(sq.max_inline < sizeof(big), "");
	TEST_ASSERT_EQUAL(post1(IBV_QPT_RC, &w[0]), EINVAL, "inline");
	w[0].sg_list = sg;
	w[0].send_flags = 0;
	/* opcode not valid for the QP type / unknown flags */
	w[0].opcode = IBV_WR_RDMA_WRITE;
	TEST_ASSERT_EQUAL(post1(IBV_QPT_UD, &w[0]), EINVAL, "write on UD");
	w[0].opcode = IBV_WR_RDMA_READ;
	TEST_ASSERT_EQUAL(post1(IBV_QPT_UC, &w[0]), EINVAL, "read on UC");
	w[0].opcode = IBV_WR_SEND_WITH_INV;
	TEST_ASSERT_EQUAL(post1(IBV_QPT_UC, &w[0]), EINVAL, "inv on UC");
	w[0].opcode = IBV_WR_TSO;
	TEST_ASSERT_EQUAL(post1(IBV_QPT_RC, &w[0]), EINVAL, "tso on RC");
	/* an SQ sized without TSO header room takes no TSO header */
	w[0].tso.hdr = big;
	w[0].tso.hdr_sz = 54;
	w[0].tso.mss = 100;
	TEST_ASSERT_EQUAL(post1(IBV_QPT_RAW_PACKET, &w[0]), EINVAL, "tso");
	w[0].opcode = (enum ibv_wr_opcode)77;
	TEST_ASSERT_EQUAL(post1(IBV_QPT_RC, &w[0]), EINVAL, "bad opcode");
	w[0].opcode = IBV_WR_SEND;
	w[0].send_flags = 1u << 20;
	TEST_ASSERT_EQUAL(post1(IBV_QPT_RC, &w[0]), EINVAL, "bad flag");
	w[0].send_flags = 0;
	/* UD without an AH */
	TEST_ASSERT_EQUAL(post1(IBV_QPT_UD, &w[0]), EINVAL, "no ah");
	/* nothing of the failed posts is visible */
	TEST_ASSERT_EQUAL(sq.wq.head, sq.wq.tail, "");
	TEST_ASSERT_EQUAL(sq_db(), sq.cur_post & 0xffff, "");
	return TEST_SUCCESS;
}

static int
test_ud_xrc_raw(void)
{
	struct dpv_mlx5_ah ah;
	static const uint8_t dgid[16] = {0, 0, 0,    0,	   0,	0, 0, 0,
					 0, 0, 0xff, 0xff, 192, 0, 2, 9};
	static const uint8_t dmac[6] = {2, 0, 0, 0, 0, 9};
	struct dpv_mlx5_av_attr a, back;
	uint8_t frame[40];
	struct ibv_sge sg = {0x8000, 256, 0x99};
	struct ibv_sge fsg[2] = {{(uintptr_t)frame, 10, 5},
				 {(uintptr_t)(frame + 10), 30, 6}};
	struct ibv_send_wr wr = {.wr_id = 5,
				 .sg_list = &sg,
				 .num_sge = 1,
				 .opcode = IBV_WR_SEND_WITH_IMM,
				 .imm_data = htobe32(77)};
	struct dpv_wr out;
	unsigned int i;

	memset(&a, 0, sizeof(a));
	memcpy(a.dgid, dgid, 16);
	memcpy(a.dmac, dmac, 6);
	a.sgid_index = 1;
	a.hop_limit = 64;
	a.traffic_class = 0x28;
	a.flow_label = 0xabcde;
	a.sl = 5;
	a.static_rate = 3;
	a.udp_sport = 0xc123;
	dpv_mlx5_av_build(&ah.av, &a);
	dpv_mlx5_av_parse(&ah.av, &back);
	TEST_ASSERT_BUFFERS_EQUAL(&a, &back, sizeof(a), "av round trip");
	TEST_ASSERT_EQUAL(ah.av.stat_rate_sl, (3 << 4) | (5 << 1), "");
	TEST_ASSERT_EQUAL(be16toh(ah.av.rlid), 0xc123, "");
	wr.wr.ud.ah = &ah.ibv_ah;
	wr.wr.ud.remote_qpn = 0xabcdef;
	wr.wr.ud.remote_qkey = 0x11111111;
	TEST_ASSERT_EQUAL(post1(IBV_QPT_UD, &wr), 0, "");
	TEST_ASSERT(dpv_mlx5_sq_fetch(&sq, &out), "");
	TEST_ASSERT(!(out.flags & DPV_WR_F_MALFORMED), "");
	TEST_ASSERT_EQUAL(out.opcode, IBV_WR_SEND_WITH_IMM, "");
	TEST_ASSERT_EQUAL(out.ud.remote_qpn, 0xabcdef, "");
	TEST_ASSERT_EQUAL(out.ud.remote_qkey, 0x11111111, "");
	TEST_ASSERT_BUFFERS_EQUAL(out.ud.dgid, a.dgid, 16, "");
	TEST_ASSERT_BUFFERS_EQUAL(out.ud.dmac, a.dmac, 6, "");
	TEST_ASSERT_EQUAL(out.ud.flow_label, 0xabcde, "");
	TEST_ASSERT_EQUAL(out.ud.sl, 5, "");
	TEST_ASSERT_EQUAL(out.ud.udp_sport, 0xc123, "");
	TEST_ASSERT_EQUAL(out.num_sge, 1, "");
	TEST_ASSERT_EQUAL(out.sg_list[0].lkey, 0x99, "");
	/* the datagram segment carries the extended-AV bit */
	TEST_ASSERT(
		be32toh(((struct mlx5_wqe_datagram_seg
				  *)(sq.wq.buf +
				     ((uint32_t)out.wqe_index << 6) + 16 - 0))
				->av.dqp_dct) &
			MLX5_EXTENDED_UD_AV,
		"");
	sq_complete_all();

	/* XRC: the remote SRQ number */
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.qp_type.xrc.remote_srqn = 0x3344;
	wr.wr.rdma.remote_addr = 0x1234;
	wr.wr.rdma.rkey = 9;
	TEST_ASSERT_EQUAL(post1(IBV_QPT_XRC_SEND, &wr), 0, "");
	TEST_ASSERT(dpv_mlx5_sq_fetch(&sq, &out), "");
	TEST_ASSERT_EQUAL(out.xrc_remote_srqn, 0x3344, "");
	TEST_ASSERT_EQUAL(out.remote_addr, 0x1234, "");
	TEST_ASSERT_EQUAL(out.opcode, IBV_WR_RDMA_WRITE, "");
	sq_complete_all();

	/* RAW: 18 header bytes into the Ethernet segment, then the rest */
	for (i = 0; i < sizeof(frame); i++)
		frame[i] = (uint8_t)(i + 1);
	wr.opcode = IBV_WR_SEND;
	wr.sg_list = fsg;
	wr.num_sge = 2;
	wr.send_flags = IBV_SEND_IP_CSUM;
	TEST_ASSERT_EQUAL(post1(IBV_QPT_RAW_PACKET, &wr), 0, "");
	TEST_ASSERT(dpv_mlx5_sq_fetch(&sq, &out), "");
	TEST_ASSERT(!(out.flags & DPV_WR_F_MALFORMED), "");
	TEST_ASSERT(out.flags & DPV_WR_F_IP_CSUM, "");
	TEST_ASSERT_EQUAL(out.raw_hdr_len, DPV_MLX5_ETH_INLINE_HDR, "");
	TEST_ASSERT_BUFFERS_EQUAL(out.raw_hdr, frame, 18, "");
	TEST_ASSERT_EQUAL(out.num_sge, 1, "");
	TEST_ASSERT_EQUAL(out.sg_list[0].addr, (uintptr_t)(frame + 18), "");
	TEST_ASSERT_EQUAL(out.sg_list[0].length, 22, "");
	TEST_ASSERT_EQUAL(out.sg_list[0].lkey, 6, "");
	sq_complete_all();
	/* RAW inline */
	wr.send_flags = IBV_SEND_INLINE;
	TEST_ASSERT_EQUAL(post1(IBV_QPT_RAW_PACKET, &wr), 0, "");
	TEST_ASSERT(dpv_mlx5_sq_fetch(&sq, &out), "");
	TEST_ASSERT_EQUAL(out.inline_len, 22, "");
	TEST_ASSERT_EQUAL(out.inl[0].len, 22, "");
	TEST_ASSERT_BUFFERS_EQUAL(out.inl[0].addr, frame + 18, 22, "");
	sq_complete_all();
	/* RAW too short for the L2 header */
	fsg[1].length = 2;
	wr.send_flags = 0;
	TEST_ASSERT_EQUAL(post1(IBV_QPT_RAW_PACKET, &wr), EINVAL, "");
	/* RAW: no RDMA write */
	wr.opcode = IBV_WR_RDMA_WRITE;
	TEST_ASSERT_EQUAL(post1(IBV_QPT_RAW_PACKET, &wr), EINVAL, "");
	return TEST_SUCCESS;
}

static int
test_builder(void)
{
	struct ibv_sge sg = {0x5000, 64, 0x12};
	struct ibv_data_buf db[2] = {{"abc", 3}, {"defgh", 5}};
	struct dpv_wr out;
	char got[8];
	uint32_t cp;

	/* two WRs, complete */
	dpv_mlx5_wr_start(&sq, IBV_QPT_RC, QPN);
	TEST_ASSERT_EQUAL(dpv_mlx5_wr_op(&sq, 11, IBV_SEND_SIGNALED,
					 IBV_WR_RDMA_WRITE_WITH_IMM),
			  0, "");
	dpv_mlx5_wr_rdma(&sq, 0x77, 0x9000);
	dpv_mlx5_wr_imm(&sq, htobe32(5));
	dpv_mlx5_wr_sge_list(&sq, 1, &sg);
	TEST_ASSERT_EQUAL(dpv_mlx5_wr_op(&sq, 12, 0, IBV_WR_SEND), 0, "");
	dpv_mlx5_wr_inline_list(&sq, 2, db);
	TEST_ASSERT(!dpv_mlx5_sq_fetch(&sq, &out), "nothing before complete");
	TEST_ASSERT_EQUAL(dpv_mlx5_wr_complete(&sq), 0, "");
	TEST_ASSERT(dpv_mlx5_sq_fetch(&sq, &out), "");
	TEST_ASSERT_EQUAL(out.opcode, IBV_WR_RDMA_WRITE_WITH_IMM, "");
	TEST_ASSERT_EQUAL(out.remote_addr, 0x9000, "");
	TEST_ASSERT_EQUAL(out.imm_data, htobe32(5), "");
	TEST_ASSERT_EQUAL(out.sg_list[0].addr, 0x5000, "");
	TEST_ASSERT_EQUAL(sq.slot[out.wqe_index & (sq.wq.wqe_cnt - 1)].wr_id,
			  11, "");
	TEST_ASSERT(dpv_mlx5_sq_fetch(&sq, &out), "");
	TEST_ASSERT_EQUAL(out.opcode, IBV_WR_SEND, "");
	TEST_ASSERT_EQUAL(out.inline_len, 8, "");
	memcpy(got, out.inl[0].addr, out.inl[0].len);
	memcpy(got + out.inl[0].len, out.inl[1].addr, out.inl[1].len);
	TEST_ASSERT_BUFFERS_EQUAL(got, "abcdefgh", 8, "");
	sq_complete_all();

	/* abort: nothing posted */
	cp = sq.cur_post;
	dpv_mlx5_wr_start(&sq, IBV_QPT_RC, QPN);
	dpv_mlx5_wr_op(&sq, 13, 0, IBV_WR_SEND);
	dpv_mlx5_wr_sge_list(&sq, 1, &sg);
	dpv_mlx5_wr_abort(&sq);
	TEST_ASSERT_EQUAL(sq.cur_post, cp, "");
	TEST_ASSERT(!dpv_mlx5_sq_fetch(&sq, &out), "");

	/* an error anywhere fails complete, nothing posted */
	dpv_mlx5_wr_start(&sq, IBV_QPT_UD, QPN);
	dpv_mlx5_wr_op(&sq, 14, 0, IBV_WR_SEND);
	dpv_mlx5_wr_sge_list(&sq, 1, &sg); /* no wr_set_ud_addr */
	TEST_ASSERT_EQUAL(dpv_mlx5_wr_complete(&sq), EINVAL, "");
	TEST_ASSERT_EQUAL(sq.cur_post, cp, "");
	dpv_mlx5_wr_start(&sq, IBV_QPT_RC, QPN);
	dpv_mlx5_wr_op(&sq, 15, 0, IBV_WR_SEND);
	dpv_mlx5_wr_rdma(&sq, 1, 2); /* setter for another opcode */
	TEST_ASSERT_EQUAL(dpv_mlx5_wr_complete(&sq), EINVAL, "");
	TEST_ASSERT(!dpv_mlx5_sq_fetch(&sq, &out), "");
	/* builder full -> ENOMEM at complete */
	dpv_mlx5_wr_start(&sq, IBV_QPT_RC, QPN);
	for (cp = 0; cp <= sq.wq.max_post; cp++) {
		dpv_mlx5_wr_op(&sq, cp, 0, IBV_WR_SEND);
		dpv_mlx5_wr_sge_list(&sq, 1, &sg);
	}
	TEST_ASSERT_EQUAL(dpv_mlx5_wr_complete(&sq), ENOMEM, "");
	TEST_ASSERT(!dpv_mlx5_sq_fetch(&sq, &out), "");
	return TEST_SUCCESS;
}

/* Both queues hold the same WQE bytes and bookkeeping. */
static int
sq_same(const struct dpv_mlx5_sq *a, const struct dpv_mlx5_sq *b,
	unsigned int n)
{
	TEST_ASSERT_EQUAL(a->cur_post, b->cur_post, "cur_post (%u)", n);
	TEST_ASSERT_EQUAL(a->wq.head, b->wq.head, "head (%u)", n);
	TEST_ASSERT_EQUAL(*a->wq.db, *b->wq.db, "doorbell (%u)", n);
	TEST_ASSERT_EQUAL(a->fm_next, b->fm_next, "fm_next (%u)", n);
	for (uint32_t i = 0; i < a->wq.wqe_cnt; i++) {
		const uint8_t *wa = a->wq.buf + i * MLX5_SEND_WQE_BB;
		const uint8_t *wb = b->wq.buf + i * MLX5_SEND_WQE_BB;
		uint32_t ds = be32toh(((const struct mlx5_wqe_ctrl_seg *)(
					       const void *)wa)
					      ->qpn_ds) &
			      0x3f;

		TEST_ASSERT_BUFFERS_EQUAL(wa, wb, RTE_MIN(ds * 16, 64u),
					  "WQE %u (%u)", i, n);
		TEST_ASSERT_EQUAL(a->slot[i].wr_id, b->slot[i].wr_id,
				  "wr_id %u", i);
		TEST_ASSERT_EQUAL(a->slot[i].head, b->slot[i].head, "head %u",
				  i);
		TEST_ASSERT_EQUAL(a->slot[i].bbend, b->slot[i].bbend,
				  "bbend %u", i);
		TEST_ASSERT_EQUAL(a->slot[i].data, b->slot[i].data, "data %u",
				  i);
	}
	return TEST_SUCCESS;
}

/*
 * ibv_post_send's one-step path for the common WQE (RC/UC SEND, WRITE,
 * READ, one SGE) writes exactly what the general builder writes, alone
 * and between WRs that take the builder (inline), for every opcode and
 * flag; and what it writes decodes back.
 */
static int
test_post_fast(void)
{
	static const enum ibv_wr_opcode ops[] = {
		IBV_WR_SEND, IBV_WR_SEND_WITH_IMM, IBV_WR_RDMA_WRITE,
		IBV_WR_RDMA_WRITE_WITH_IMM, IBV_WR_RDMA_READ};
	static const unsigned int flags[] = {
		0, IBV_SEND_SIGNALED, IBV_SEND_SOLICITED | IBV_SEND_SIGNALED,
		IBV_SEND_FENCE, IBV_SEND_FENCE | IBV_SEND_SOLICITED};
	struct dpv_mlx5_sq sb;
	struct ibv_data_buf db = {"xyz", 3};
	unsigned int n = 0;
	int rc = TEST_SUCCESS;

	TEST_ASSERT_EQUAL(dpv_mlx5_sq_init(&sb, 4, 4, 64, SOCKET_ID_ANY), 0,
			  "");
	for (int t = 0; t < 2 && rc == TEST_SUCCESS; t++) {
		enum ibv_qp_type type = t ? IBV_QPT_UC : IBV_QPT_RC;

		for (unsigned int o = 0; o < RTE_DIM(ops); o++) {
			for (unsigned int f = 0; f < RTE_DIM(flags); f++, n++) {
				struct ibv_sge sg = {0x10000 + n * 64, 64 + n,
						     0x300 + n};
				struct ibv_sge isg = {(uintptr_t)db.addr,
						      (uint32_t)db.length, 0};
				struct ibv_sge sg2 = {0x80000 + n * 64, 8 + n,
						      0x500 + n};
				/* after the inline one, now and then: a common
				 * WR the builder's loop takes */
				struct ibv_send_wr wr2 = {
					.wr_id = 2000 + n,
					.sg_list = &sg2,
					.num_sge = 1,
					.opcode = IBV_WR_SEND,
					.send_flags = IBV_SEND_SIGNALED};
				struct ibv_send_wr inl = {
					.wr_id = 1000 + n,
					.sg_list = &isg,
					.num_sge = 1,
					.opcode = IBV_WR_SEND,
					.send_flags = IBV_SEND_INLINE,
					.next = n % 4 == 1 ? &wr2 : NULL};
				struct ibv_send_wr wr = {
					.wr_id = n,
					.sg_list = &sg,
					.num_sge = 1,
					.opcode = ops[o],
					.send_flags = flags[f],
					.imm_data = htobe32(0xabc0 + n),
					.next = n & 1 ? &inl : NULL},
						   *bad;
				struct dpv_wr out;
				int prc;

				wr.wr.rdma.remote_addr = 0x900000 + n;
				wr.wr.rdma.rkey = 0x4400 + n;
				prc = dpv_mlx5_post_send(&sq, type, QPN, &wr,
							 &bad);
				if (type == IBV_QPT_UC &&
				    ops[o] == IBV_WR_RDMA_READ) {
					TEST_ASSERT_EQUAL(prc, EINVAL, "UC READ");
					continue;
				}
				TEST_ASSERT_EQUAL(prc, 0, "post %u", n);
				/* the same through the builder */
				dpv_mlx5_wr_start(&sb, type, QPN);
				dpv_mlx5_wr_op(&sb, wr.wr_id, wr.send_flags,
					       ops[o]);
				if (ops[o] == IBV_WR_SEND_WITH_IMM ||
				    ops[o] == IBV_WR_RDMA_WRITE_WITH_IMM)
					dpv_mlx5_wr_imm(&sb, wr.imm_data);
				if (ops[o] == IBV_WR_RDMA_WRITE ||
				    ops[o] == IBV_WR_RDMA_WRITE_WITH_IMM ||
				    ops[o] == IBV_WR_RDMA_READ)
					dpv_mlx5_wr_rdma(&sb, wr.wr.rdma.rkey,
							 wr.wr.rdma.remote_addr);
				dpv_mlx5_wr_sge_list(&sb, 1, &sg);
				if (wr.next != NULL) {
					dpv_mlx5_wr_op(&sb, inl.wr_id,
						       IBV_SEND_INLINE,
						       IBV_WR_SEND);
					dpv_mlx5_wr_inline_list(&sb, 1, &db);
				}
				if (inl.next != NULL) {
					dpv_mlx5_wr_op(&sb, wr2.wr_id,
						       wr2.send_flags,
						       IBV_WR_SEND);
					dpv_mlx5_wr_sge_list(&sb, 1, &sg2);
				}
				TEST_ASSERT_EQUAL(dpv_mlx5_wr_complete(&sb), 0,
						  "builder %u", n);
				rc = sq_same(&sq, &sb, n);
				if (rc != TEST_SUCCESS)
					break;
				TEST_ASSERT(dpv_mlx5_sq_fetch(&sq, &out), "");
				TEST_ASSERT_EQUAL(out.opcode, ops[o], "");
				TEST_ASSERT_EQUAL(out.num_sge, 1, "");
				TEST_ASSERT_EQUAL(out.sg_list[0].addr, sg.addr,
						  "");
				TEST_ASSERT_EQUAL(out.sg_list[0].length,
						  sg.length, "");
				TEST_ASSERT_EQUAL(out.sg_list[0].lkey, sg.lkey,
						  "");
				sq.wq.eng_pi = sq.cur_post;
				sq.wq.tail = sq.wq.head;
				sq.bb_tail = sq.cur_post;
				sb.wq.tail = sb.wq.head;
				sb.bb_tail = sb.cur_post;
			}
		}
	}
	dpv_mlx5_sq_fini(&sb);
	return rc;
}

static int
sq_setup_tso(void)
{
	return dpv_mlx5_sq_init_tso(&sq, 4, 2, 0, 128, SOCKET_ID_ANY)
		       ? TEST_FAILED
		       : TEST_SUCCESS;
}

/*
 * IBV_WR_TSO: the header template inline from inline_hdr_start on, the
 * MSS in the Ethernet segment, the data segments after the header's
 * 16-byte units; decoded back unchanged, also when the WQE wraps.
 */
static int
test_tso_wqe(void)
{
	uint8_t hdr[128], got[128];
	struct ibv_sge sg[2] = {{0x1000, 700, 0x11}, {0x8000, 300, 0x22}};
	struct ibv_send_wr w = {.opcode = IBV_WR_TSO,
				.sg_list = sg,
				.num_sge = 2,
				.tso = {.hdr = hdr}};
	struct dpv_wr out;

	for (unsigned int i = 0; i < sizeof(hdr); i++)
		hdr[i] = (uint8_t)(i * 13 + 1);
	for (unsigned int k = 0; k < 12; k++) {
		uint32_t cp = sq.cur_post;
		const uint8_t *eth;

		w.tso.hdr_sz = (uint16_t)(18 + k * 10);
		w.tso.mss = (uint16_t)(100 + k);
		w.send_flags = (k & 1) ? IBV_SEND_IP_CSUM : 0;
		TEST_ASSERT_EQUAL(post1(IBV_QPT_RAW_PACKET, &w), 0, "k %u", k);
		eth = sq.wq.buf +
		      ((cp & (sq.wq.wqe_cnt - 1)) << MLX5_SEND_WQE_SHIFT);
		TEST_ASSERT(dpv_mlx5_sq_fetch(&sq, &out), "");
		/* the Ethernet segment is in the WQE's first block */
		TEST_ASSERT_EQUAL(be16toh(*(const __be16 *)(eth + 16 + 12)),
				  w.tso.hdr_sz, "inline_hdr_sz");
		TEST_ASSERT_EQUAL(be16toh(*(const __be16 *)(eth + 16 + 6)),
				  w.tso.mss, "mss");
		TEST_ASSERT_BUFFERS_EQUAL(eth + 16 + 14, hdr, 18, "");
		TEST_ASSERT(!(out.flags & DPV_WR_F_MALFORMED), "k %u", k);
		TEST_ASSERT_EQUAL(out.opcode, IBV_WR_TSO, "");
		TEST_ASSERT_EQUAL(out.raw_hdr_len, w.tso.hdr_sz, "");
		TEST_ASSERT_EQUAL(out.tso_mss, w.tso.mss, "");
		TEST_ASSERT_EQUAL(!!(out.flags & DPV_WR_F_IP_CSUM), k & 1, "");
		memcpy(got, out.tso_hdr[0].addr, out.tso_hdr[0].len);
		memcpy(got + out.tso_hdr[0].len, out.tso_hdr[1].addr,
		       out.tso_hdr[1].len);
		TEST_ASSERT_EQUAL(out.tso_hdr[0].len + out.tso_hdr[1].len,
				  w.tso.hdr_sz, "");
		TEST_ASSERT_BUFFERS_EQUAL(got, hdr, w.tso.hdr_sz, "k %u", k);
		TEST_ASSERT_EQUAL(out.num_sge, 2, "");
		TEST_ASSERT_EQUAL(out.sg_list[1].addr, 0x8000, "");
		TEST_ASSERT_EQUAL(out.sg_list[1].lkey, 0x22, "");
		TEST_ASSERT_EQUAL(out.total_len, 1000, "");
		dpv_mlx5_sq_retire(&sq, &out);
		sq_complete_all();
	}
	TEST_ASSERT(sq.cur_post > sq.wq.wqe_cnt, "the ring wrapped");

	/* header size out of 18..max_tso_header, no MSS, payload too big */
	w.tso.hdr_sz = 17;
	TEST_ASSERT_EQUAL(post1(IBV_QPT_RAW_PACKET, &w), EINVAL, "17");
	w.tso.hdr_sz = 129;
	TEST_ASSERT_EQUAL(post1(IBV_QPT_RAW_PACKET, &w), EINVAL, "129");
	w.tso.hdr_sz = 54;
	w.tso.mss = 0;
	TEST_ASSERT_EQUAL(post1(IBV_QPT_RAW_PACKET, &w), EINVAL, "mss 0");
	w.tso.mss = 1000;
	sg[0].length = DPV_MLX5_MAX_TSO;
	TEST_ASSERT_EQUAL(post1(IBV_QPT_RAW_PACKET, &w), EINVAL, "max_tso");
	sg[0].length = 700;
	/* builder: data before the header */
	dpv_mlx5_wr_start(&sq, IBV_QPT_RAW_PACKET, QPN);
	dpv_mlx5_wr_op(&sq, 1, 0, IBV_WR_TSO);
	dpv_mlx5_wr_sge_list(&sq, 2, sg);
	TEST_ASSERT_EQUAL(dpv_mlx5_wr_complete(&sq), EINVAL, "");
	TEST_ASSERT(!dpv_mlx5_sq_fetch(&sq, &out), "nothing posted");
	/* builder in order */
	dpv_mlx5_wr_start(&sq, IBV_QPT_RAW_PACKET, QPN);
	dpv_mlx5_wr_op(&sq, 2, 0, IBV_WR_TSO);
	dpv_mlx5_wr_tso(&sq, hdr, 66, 1448);
	dpv_mlx5_wr_sge_list(&sq, 1, sg);
	TEST_ASSERT_EQUAL(dpv_mlx5_wr_complete(&sq), 0, "");
	TEST_ASSERT(dpv_mlx5_sq_fetch(&sq, &out), "");
	TEST_ASSERT(out.opcode == IBV_WR_TSO && out.tso_mss == 1448 &&
			    out.raw_hdr_len == 66 && out.num_sge == 1,
		    "");
	return TEST_SUCCESS;
}

/* A WQE the decoder cannot understand is flagged, not skipped silently. */
static int
test_malformed(void)
{
	struct mlx5_wqe_ctrl_seg *c =
		(void *)(sq.wq.buf + ((sq.cur_post & (sq.wq.wqe_cnt - 1))
				      << MLX5_SEND_WQE_SHIFT));
	struct dpv_wr out;

	mlx5dv_set_ctrl_seg(c, (uint16_t)sq.cur_post, MLX5_OPCODE_NOP, 0, QPN,
			    0, 1, 0, 0);
	sq.cur_post++;
	*sq.wq.db = htobe32(sq.cur_post & 0xffff);
	TEST_ASSERT(dpv_mlx5_sq_fetch(&sq, &out), "");
	TEST_ASSERT(out.flags & DPV_WR_F_MALFORMED, "");
	TEST_ASSERT_EQUAL(out.nbb, 1, "");
	return TEST_SUCCESS;
}

static struct dpv_test_suite mlx5_send_suite = {
	.name = "mlx5 send rings",
	.setup = suite_setup,
	.cases =
		{
			TEST_CASE(test_sq_init_caps),
			TEST_CASE(test_sq_umr_room),
			TEST_CASE_ST(sq_setup_small, sq_teardown,
				     test_ctrl_bytes),
			TEST_CASE_ST(sq_setup_small, sq_teardown,
				     test_rc_opcodes),
			TEST_CASE_ST(sq_setup_small, sq_teardown,
				     test_bind_local_inv),
			TEST_CASE_ST(sq_setup_small, sq_teardown,
				     test_inline_and_wrap),
			TEST_CASE_ST(sq_setup_small, sq_teardown, test_errors),
			TEST_CASE_ST(sq_setup_small, sq_teardown,
				     test_ud_xrc_raw),
			TEST_CASE_ST(sq_setup_small, sq_teardown, test_builder),
			TEST_CASE_ST(sq_setup_tso, sq_teardown, test_tso_wqe),
			TEST_CASE_ST(sq_setup_small, sq_teardown,
				     test_post_fast),
			TEST_CASE_ST(sq_setup_small, sq_teardown,
				     test_malformed),
			TEST_CASES_END(),
		},
};

static int
test_mlx5_send(void)
{
	return dpv_test_run_suite(&mlx5_send_suite);
}

DPV_TEST_REGISTER_FAST(mlx5_send, test_mlx5_send);
