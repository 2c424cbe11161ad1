/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Soak: random operations through the verbs API on the loopback device
 * dpv0 with the fault layer dropping, duplicating, reordering and
 * corrupting 1 % of the frames (each), for a given time. Three RC pairs
 * run SEND (with and without immediate), RDMA WRITE (with and without
 * immediate), RDMA READ, FETCH_ADD and CMP_SWP; one UC pair runs SEND and
 * WRITE with immediate. Sizes 1 B to 1 MiB, spread evenly over the powers
 * of two. Every byte is checked where it lands, RC completions and
 * receives come exactly once and in order, every atomic returns the value
 * a model of the target predicts (so each was applied exactly once) and the
 * targets end at the model's value; UC may lose messages but delivers only
 * whole, right ones. The resident set, the DPDK heap, the driver's ring
 * memory and the mbufs in use are sampled every second: after a warm-up
 * they must stay flat.
 *
 * DPV_SOAK_SECONDS (default 30), DPV_SOAK_SEED (default 1) and
 * DPV_SOAK_FAULT (the fault layer, DPV_FAULT syntax) change the run.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include <rte_cycles.h>
#include <rte_mempool.h>

#include "dpv_engine.h"
#include "dpv_port.h"
#include "dpv_port_fault.h"
#include "dpv_test.h"
#include "mlx5_ring.h"
#include "test_loop_util.h"
#include "test_verbs_util.h"
#include "verbs_int.h"

#define SLOT	   (1u << 20)	 /* the largest message */
#define NSLOT	   4		 /* unfinished operations per pair */
#define NRECV	   (2 * NSLOT)	 /* receive WRs per pair */
#define READ_AREA  (2u * SLOT)	 /* READs come from here */
#define NPAIR	   4		 /* pair 3 is UC */
#define UC_PAIR	   3
#define STALL_S	   20		 /* no progress for this long: failed */
#define UC_LOST_MS 50		 /* a UC message not there by then is lost */
#define UC_REUSE_MS 200		 /* UC: a WRITE target rests this long */
#define UC_WSLOT   16		 /* UC: WRITE targets */
#define HIST	   4096		 /* UC: messages remembered */
#define MAX_SAMPLES 4096
#define FLAT_SLACK (4u << 20)	 /* growth allowed after the warm-up */
#define DEF_FAULT  "tx:drop=1%,dup=1%,reorder=1%/8,corrupt=1%"

enum kind { K_SEND, K_SEND_IMM, K_WRITE, K_WRITE_IMM, K_READ, K_FADD, K_CSWP,
	    K_NUM };

static const char *const kind_name[K_NUM] = {
	"SEND", "SEND_IMM", "WRITE", "WRITE_IMM", "READ", "FETCH_ADD",
	"CMP_SWP"};

struct op {
	uint64_t seq;
	enum kind kind;
	uint32_t len;
	uint32_t roff;	   /* READ: offset in the read area */
	unsigned bslot;	   /* WRITE: the target slot at B */
	uint64_t expect;   /* atomics: the original value the model gives */
	uint64_t a_tsc;	   /* when the requester's completion came */
	bool a_done;	   /* requester's completion seen (and checked) */
	bool want_recv;	   /* a receive completion is due at B */
	bool b_done;	   /* ... seen and checked (or, UC, lost) */
};

struct pair {
	struct ibv_qp *a, *b;
	struct ibv_cq *acq, *bcq; /* A's send CQ, B's receive CQ */
	struct ibv_mr *amr, *bmr;
	uint8_t *abuf; /* NSLOT slots: sources, READ and atomic results */
	uint8_t *bbuf; /* NSLOT WRITE targets, READ area, NRECV receive
			* buffers, the atomic target */
	bool uc;
	uint64_t next, head; /* next sequence number, oldest unfinished */
	uint64_t a_seen;     /* next requester completion expected */
	struct op ops[NSLOT];
	uint64_t model;	     /* what the atomic target must hold */
	uint64_t b_max;	     /* UC: the latest message delivered */
	unsigned nwslot;     /* WRITE target slots at B */
	uint64_t wslot_free[UC_WSLOT]; /* UC: when each became free (tsc) */
	bool wslot_busy[UC_WSLOT];
	struct op hist[HIST]; /* UC: retired messages, by sequence number */
};

struct soak_stats {
	uint64_t ops[K_NUM], bytes[K_NUM];
	uint64_t uc_lost, uc_delivered, uc_dup, uc_late, uc_after_retire;
};

static struct ibv_device **devs;
static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *spare_cq;
static struct pair pairs[NPAIR];
static uint8_t *pat; /* 2 x SLOT random bytes: message contents */
static uint64_t rng;
static struct soak_stats st;
static uint8_t ack_timeout = 14; /* 67 ms: a loaded 2-core machine */

#define B_WRITE(p, s)  ((p)->bbuf + (size_t)(s) * SLOT)
#define B_READ(p)      ((p)->bbuf + (size_t)(p)->nwslot * SLOT)
#define B_RECV(p, r)   (B_READ(p) + READ_AREA + (size_t)(r) * SLOT)
#define B_ATOM(p)      ((uint64_t *)B_RECV(p, NRECV))
#define B_SIZE(p)      ((size_t)((p)->nwslot + NRECV) * SLOT + READ_AREA + 64)
#define A_SLOT(p, s)   ((p)->abuf + (size_t)(s) * SLOT)

static uint64_t
rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* The contents of message seq: a window of pat. */
static const uint8_t *
msg(uint64_t seq)
{
	return pat + (seq * 7919) % SLOT;
}

static uint32_t
rnd_len(void)
{
	unsigned bits = (unsigned)(rnd() % 21); /* 2^0 .. 2^20 */
	uint32_t len = (1u << bits) + (uint32_t)(rnd() % (1u << bits));

	return len > SLOT ? SLOT : len;
}

static int
post_recv(struct pair *p, unsigned r)
{
	struct ibv_sge sge = {(uintptr_t)B_RECV(p, r), SLOT, p->bmr->lkey};
	struct ibv_recv_wr wr = {.wr_id = r, .sg_list = &sge, .num_sge = 1};
	struct ibv_recv_wr *bad;

	return ibv_post_recv(p->b, &wr, &bad);
}

static int
pair_up(struct pair *p, bool uc, int gi, enum ibv_mtu mtu, uint32_t psn)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = uc ? IBV_QPT_UC : IBV_QPT_RC,
		.cap = {.max_send_wr = NSLOT,
			.max_recv_wr = NRECV,
			.max_send_sge = 1,
			.max_recv_sge = 1},
	};
	int acc = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		  IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
	struct test_loop_conn c = {
		.mtu = mtu, .timeout = ack_timeout, .rd_atomic = NSLOT};

	p->uc = uc;
	p->nwslot = uc ? UC_WSLOT : NSLOT;
	p->abuf = aligned_alloc(4096, (size_t)NSLOT * SLOT);
	p->bbuf = aligned_alloc(4096, B_SIZE(p));
	p->acq = ibv_create_cq(ctx, NSLOT, NULL, NULL, 0);
	p->bcq = ibv_create_cq(ctx, NRECV, NULL, NULL, 0);
	if (p->abuf == NULL || p->bbuf == NULL || p->acq == NULL ||
	    p->bcq == NULL)
		return -1;
	memset(p->abuf, 0, (size_t)NSLOT * SLOT);
	memset(p->bbuf, 0, B_SIZE(p));
	memcpy(B_READ(p), pat, READ_AREA);
	p->amr = ibv_reg_mr(pd, p->abuf, (size_t)NSLOT * SLOT, acc);
	p->bmr = ibv_reg_mr(pd, p->bbuf, B_SIZE(p), acc);
	ia.send_cq = p->acq;
	ia.recv_cq = spare_cq;
	p->a = ibv_create_qp(pd, &ia);
	ia.send_cq = spare_cq;
	ia.recv_cq = p->bcq;
	p->b = ibv_create_qp(pd, &ia);
	if (p->amr == NULL || p->bmr == NULL || p->a == NULL || p->b == NULL)
		return -1;
	c.dest_qpn = p->b->qp_num;
	c.sq_psn = psn;
	c.rq_psn = psn + 0x1000;
	if (test_loop_connect(p->a, gi, &c) != 0)
		return -1;
	c.dest_qpn = p->a->qp_num;
	c.sq_psn = psn + 0x1000;
	c.rq_psn = psn;
	if (test_loop_connect(p->b, gi, &c) != 0)
		return -1;
	for (unsigned r = 0; r < NRECV; r++)
		if (post_recv(p, r) != 0)
			return -1;
	return 0;
}

static void
pair_down(struct pair *p)
{
	if (p->a)
		ibv_destroy_qp(p->a);
	if (p->b)
		ibv_destroy_qp(p->b);
	if (p->amr)
		ibv_dereg_mr(p->amr);
	if (p->bmr)
		ibv_dereg_mr(p->bmr);
	if (p->acq)
		ibv_destroy_cq(p->acq);
	if (p->bcq)
		ibv_destroy_cq(p->bcq);
	free(p->abuf);
	free(p->bbuf);
	memset(p, 0, sizeof(*p));
}

static int
suite_setup(void)
{
	if (test_verbs_open_first(&devs, &ctx) != TEST_SUCCESS)
		return TEST_SKIPPED;
	pd = ibv_alloc_pd(ctx);
	spare_cq = ibv_create_cq(ctx, 2 * NRECV, NULL, NULL, 0);
	pat = malloc(2 * SLOT);
	return pd && spare_cq && pat ? TEST_SUCCESS : TEST_FAILED;
}

static void
suite_teardown(void)
{
	for (int i = 0; i < NPAIR; i++)
		pair_down(&pairs[i]);
	if (spare_cq)
		ibv_destroy_cq(spare_cq);
	spare_cq = NULL;
	test_verbs_release(&devs, &ctx, &pd);
	free(pat);
	pat = NULL;
}

/* UC: a WRITE target that no late copy of an earlier message can hit
 * any more (free for UC_REUSE_MS); 0 and *slot, or -1. */
static int
uc_wslot(struct pair *p, unsigned *slot)
{
	uint64_t now = rte_get_timer_cycles();
	uint64_t rest = rte_get_timer_hz() * UC_REUSE_MS / 1000;

	for (unsigned k = 0; k < UC_WSLOT; k++) {
		if (p->wslot_busy[k] ||
		    (p->wslot_free[k] != 0 && now - p->wslot_free[k] < rest))
			continue;
		p->wslot_busy[k] = true;
		*slot = k;
		return 0;
	}
	return -1;
}

/* Post the next random operation of p (a free slot is there). */
static int
post_one(struct pair *p)
{
	static const enum kind rc_mix[] = {K_SEND, K_SEND, K_SEND_IMM, K_WRITE,
					   K_WRITE, K_WRITE_IMM, K_READ,
					   K_READ, K_FADD, K_CSWP};
	static const enum kind uc_mix[] = {K_SEND_IMM, K_WRITE_IMM};
	unsigned s = (unsigned)(p->next % NSLOT);
	struct op *o = &p->ops[s];
	struct ibv_sge sge = {(uintptr_t)A_SLOT(p, s), 0, p->amr->lkey};
	struct ibv_send_wr wr = {.wr_id = p->next,
				 .sg_list = &sge,
				 .num_sge = 1,
				 .send_flags = IBV_SEND_SIGNALED};
	struct ibv_send_wr *bad;

	memset(o, 0, sizeof(*o));
	o->seq = p->next;
	o->kind = p->uc ? uc_mix[rnd() % RTE_DIM(uc_mix)]
			: rc_mix[rnd() % RTE_DIM(rc_mix)];
	o->len = o->kind >= K_FADD ? 8 : rnd_len();
	o->bslot = s;
	if (p->uc && o->kind == K_WRITE_IMM && uc_wslot(p, &o->bslot) != 0)
		o->kind = K_SEND_IMM; /* every target still rests */
	sge.length = o->len;
	switch (o->kind) {
	case K_SEND:
	case K_SEND_IMM:
		memcpy(A_SLOT(p, s), msg(o->seq), o->len);
		wr.opcode = o->kind == K_SEND ? IBV_WR_SEND
					      : IBV_WR_SEND_WITH_IMM;
		o->want_recv = true;
		break;
	case K_WRITE:
	case K_WRITE_IMM:
		memcpy(A_SLOT(p, s), msg(o->seq), o->len);
		wr.opcode = o->kind == K_WRITE ? IBV_WR_RDMA_WRITE
					       : IBV_WR_RDMA_WRITE_WITH_IMM;
		wr.wr.rdma.remote_addr = (uintptr_t)B_WRITE(p, o->bslot);
		wr.wr.rdma.rkey = p->bmr->rkey;
		o->want_recv = o->kind == K_WRITE_IMM;
		break;
	case K_READ:
		o->roff = (uint32_t)(rnd() % (READ_AREA - o->len + 1));
		memset(A_SLOT(p, s), 0, o->len);
		wr.opcode = IBV_WR_RDMA_READ;
		wr.wr.rdma.remote_addr = (uintptr_t)B_READ(p) + o->roff;
		wr.wr.rdma.rkey = p->bmr->rkey;
		break;
	case K_FADD:
	case K_CSWP:
		wr.wr.atomic.remote_addr = (uintptr_t)B_ATOM(p);
		wr.wr.atomic.rkey = p->bmr->rkey;
		o->expect = p->model;
		if (o->kind == K_FADD) {
			wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
			wr.wr.atomic.compare_add = rnd() | 1;
			p->model += wr.wr.atomic.compare_add;
		} else {
			/* one in four with a wrong compare: no swap */
			bool hit = rnd() % 4 != 0;

			wr.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
			wr.wr.atomic.compare_add = hit ? p->model
						       : p->model ^ 1;
			wr.wr.atomic.swap = rnd();
			if (hit)
				p->model = wr.wr.atomic.swap;
		}
		memset(A_SLOT(p, s), 0xa5, 8);
		break;
	default:
		return -1;
	}
	if (o->want_recv)
		wr.imm_data = htonl((uint32_t)o->seq);
	if (ibv_post_send(p->a, &wr, &bad) != 0) {
		DPV_TEST_LOG("post %s: %s", kind_name[o->kind],
			     strerror(errno));
		return -1;
	}
	st.ops[o->kind]++;
	st.bytes[o->kind] += o->len;
	p->next++;
	return 0;
}

static struct op *
op_of(struct pair *p, uint64_t seq)
{
	return seq >= p->head && seq < p->next ? &p->ops[seq % NSLOT] : NULL;
}

static int
bad_bytes(const char *what, struct pair *p, const struct op *o,
	  const uint8_t *got, const uint8_t *want)
{
	size_t off = dpv_test_first_diff(got, want, o->len);

	if (off == (size_t)-1)
		return 0;
	DPV_TEST_LOG("pair %td %s #%" PRIu64 " (%u bytes): %s byte %zu is "
		     "0x%02x, not 0x%02x",
		     p - pairs, kind_name[o->kind], o->seq, o->len, what, off,
		     got[off], want[off]);
	return -1;
}

/* A requester completion: in order, good, and what it brought right. */
static int
a_complete(struct pair *p, const struct ibv_wc *wc)
{
	struct op *o = op_of(p, wc->wr_id);
	unsigned s = (unsigned)(wc->wr_id % NSLOT);
	uint64_t got;

	if (wc->status != IBV_WC_SUCCESS || o == NULL ||
	    wc->wr_id != p->a_seen) {
		DPV_TEST_LOG("pair %td: completion #%" PRIu64 " (%s, %s of "
			     "%u bytes), #%" PRIu64 " expected",
			     p - pairs, (uint64_t)wc->wr_id,
			     ibv_wc_status_str(wc->status),
			     o ? kind_name[o->kind] : "?", o ? o->len : 0,
			     p->a_seen);
		return -1;
	}
	p->a_seen++;
	o->a_done = true;
	o->a_tsc = rte_get_timer_cycles();
	switch (o->kind) {
	case K_WRITE: /* RC: the data is there once the ACK came */
		return bad_bytes("target", p, o, B_WRITE(p, o->bslot),
				 msg(o->seq));
	case K_READ:
		return bad_bytes("read", p, o, A_SLOT(p, s),
				 B_READ(p) + o->roff);
	case K_FADD:
	case K_CSWP:
		memcpy(&got, A_SLOT(p, s), 8);
		if (got != o->expect) {
			DPV_TEST_LOG("pair %td %s #%" PRIu64 ": original "
				     "0x%" PRIx64 ", the model says 0x%" PRIx64,
				     p - pairs, kind_name[o->kind], o->seq,
				     got, o->expect);
			return -1;
		}
		return 0;
	default:
		return 0;
	}
}

/* The receive completion wc is message o's, whole and right: then its
 * buffer goes back to the receive queue. */
static int
check_recv(struct pair *p, const struct op *o, const struct ibv_wc *wc)
{
	bool imm = wc->wc_flags & IBV_WC_WITH_IMM;
	bool want_imm = o->kind == K_SEND_IMM || o->kind == K_WRITE_IMM;

	if (imm != want_imm ||
	    (imm && ntohl(wc->imm_data) != (uint32_t)o->seq) ||
	    (o->kind == K_WRITE_IMM) != (wc->opcode == IBV_WC_RECV_RDMA_WITH_IMM) ||
	    (o->kind != K_WRITE_IMM && wc->byte_len != o->len)) {
		DPV_TEST_LOG("pair %td: receive for %s #%" PRIu64 " (%u "
			     "bytes): opcode %d, %u bytes, imm %s 0x%x",
			     p - pairs, kind_name[o->kind], o->seq, o->len,
			     wc->opcode, wc->byte_len, imm ? "yes" : "no",
			     ntohl(wc->imm_data));
		return -1;
	}
	if (bad_bytes("received", p, o,
		      o->kind == K_WRITE_IMM ? B_WRITE(p, o->bslot)
					     : B_RECV(p, wc->wr_id),
		      msg(o->seq)) != 0)
		return -1;
	return post_recv(p, (unsigned)wc->wr_id) == 0 ? 0 : -1;
}

/* RC: a receive completion is the next message due, exactly. */
static int
b_complete_rc(struct pair *p, const struct ibv_wc *wc)
{
	for (uint64_t seq = p->head; seq < p->next; seq++) {
		struct op *o = op_of(p, seq);

		if (o->want_recv && !o->b_done) {
			o->b_done = true;
			return check_recv(p, o, wc);
		}
	}
	DPV_TEST_LOG("pair %td: a receive completion no message explains "
		     "(opcode %d, %u bytes; messages #%" PRIu64 "..#%" PRIu64
		     " unfinished)",
		     p - pairs, wc->opcode, wc->byte_len, p->head,
		     p->next - 1);
	return -1;
}

/* UC: any message still unfinished (the immediate data names it), which
 * may come out of order or twice (a late or duplicated ONLY packet starts
 * a message), but whole and right. */
static int
b_complete_uc(struct pair *p, const struct ibv_wc *wc)
{
	uint32_t imm = ntohl(wc->imm_data);
	struct op *o;

	for (uint64_t seq = p->head; seq < p->next; seq++) {
		o = op_of(p, seq);
		if ((uint32_t)seq != imm || !o->want_recv)
			continue;
		if (o->b_done)
			st.uc_dup++;
		else
			st.uc_delivered++;
		if (seq < p->b_max)
			st.uc_late++;
		p->b_max = RTE_MAX(p->b_max, seq);
		o->b_done = true;
		return check_recv(p, o, wc);
	}
	/* a late or duplicated copy of a message retired already (its
	 * WRITE target still rests) */
	o = &p->hist[imm % HIST];
	if (o->want_recv && (uint32_t)o->seq == imm && o->seq < p->head) {
		if (o->b_done) {
			st.uc_dup++;
		} else {
			st.uc_after_retire++; /* counted lost: was not */
			st.uc_lost--;
			st.uc_delivered++;
		}
		o->b_done = true;
		return check_recv(p, o, wc);
	}
	DPV_TEST_LOG("pair %td: a receive completion no message explains "
		     "(opcode %d, %u bytes, imm 0x%x; messages #%" PRIu64
		     "..#%" PRIu64 " unfinished)",
		     p - pairs, wc->opcode, wc->byte_len, imm, p->head,
		     p->next - 1);
	return -1;
}

static int
b_complete(struct pair *p, const struct ibv_wc *wc)
{
	if (wc->status != IBV_WC_SUCCESS) {
		DPV_TEST_LOG("pair %td: receive: %s", p - pairs,
			     ibv_wc_status_str(wc->status));
		return -1;
	}
	return p->uc ? b_complete_uc(p, wc) : b_complete_rc(p, wc);
}

/* Retire what is finished, oldest first. A UC message not delivered
 * UC_LOST_MS after it left counts as lost (a copy that comes later is
 * still checked, from the history); its WRITE target then rests
 * UC_REUSE_MS. */
static void
retire(struct pair *p)
{
	uint64_t now = rte_get_timer_cycles();
	uint64_t lost = rte_get_timer_hz() * UC_LOST_MS / 1000;

	while (p->head < p->next) {
		struct op *o = &p->ops[p->head % NSLOT];

		if (!o->a_done)
			break;
		if (o->want_recv && !o->b_done) {
			if (!p->uc || now - o->a_tsc < lost)
				break;
			st.uc_lost++;
		}
		if (p->uc) {
			if (o->kind == K_WRITE_IMM) {
				p->wslot_busy[o->bslot] = false;
				p->wslot_free[o->bslot] = now;
			}
			p->hist[o->seq % HIST] = *o;
		}
		p->head++;
	}
}

/* Poll every pair once; the number of completions, or -1 on an error. */
static int
poll_all(void)
{
	struct ibv_wc wc[16];
	int got = 0, n;

	for (int i = 0; i < NPAIR; i++) {
		struct pair *p = &pairs[i];

		n = ibv_poll_cq(p->acq, 16, wc);
		if (n < 0)
			return -1;
		for (int k = 0; k < n; k++)
			if (a_complete(p, &wc[k]) != 0)
				return -1;
		got += n;
		n = ibv_poll_cq(p->bcq, 16, wc);
		if (n < 0)
			return -1;
		for (int k = 0; k < n; k++)
			if (b_complete(p, &wc[k]) != 0)
				return -1;
		got += n;
		retire(p);
	}
	return got;
}

struct mem_sample {
	uint64_t rss, heap, rings, mbufs;
};

static void
mbufs_in_use(struct rte_mempool *mp, void *arg)
{
	*(uint64_t *)arg += rte_mempool_in_use_count(mp);
}

static void
sample(struct mem_sample *m)
{
	m->rss = test_loop_rss();
	m->heap = test_loop_heap();
	m->rings = dpv_mlx5_mem_in_use();
	m->mbufs = 0;
	rte_mempool_walk(mbufs_in_use, &m->mbufs);
}

static void
report_counters(struct dpv_port *port)
{
	struct dpv_engine_stats es;
	struct dpv_fault_stats fs;
	uint64_t total = 0;

	for (int k = 0; k < K_NUM; k++) {
		DPV_TEST_LOG("%-9s %10" PRIu64 " operations, %8.1f MiB",
			     kind_name[k], st.ops[k],
			     (double)st.bytes[k] / (1 << 20));
		total += st.ops[k];
	}
	DPV_TEST_LOG("%" PRIu64 " operations; UC: %" PRIu64 " delivered "
		     "whole and right (%" PRIu64 " after a later one, %" PRIu64
		     " twice, %" PRIu64 " more than %d ms late), %" PRIu64
		     " lost",
		     total, st.uc_delivered, st.uc_late, st.uc_dup,
		     st.uc_after_retire, UC_LOST_MS, st.uc_lost);
	if (dpv_engine_stats_get(dctx_dev(ctx)->engine, &es) == 0)
		DPV_TEST_LOG("engine: retransmits=%" PRIu64
			     " seq_naks_sent=%" PRIu64 " dup_requests=%" PRIu64
			     " rx_drop_icrc=%" PRIu64 " rnr_naks_sent=%" PRIu64,
			     es.retransmits, es.seq_naks_sent, es.dup_requests,
			     es.rx_drop_icrc, es.rnr_naks_sent);
	if (dpv_port_fault_stats_get(port, &fs) == 0)
		DPV_TEST_LOG("faults: drop=%" PRIu64 " dup=%" PRIu64
			     " reorder=%" PRIu64 " corrupt=%" PRIu64,
			     fs.tx_drop, fs.tx_dup, fs.tx_reorder,
			     fs.tx_corrupt);
}

/* Flat: nothing grows from the warm-up sample to the last one (the
 * resident set by at most FLAT_SLACK). */
static int
check_flat(const struct mem_sample *m, int n)
{
	int w = n / 10 > 2 ? n / 10 : (n > 2 ? 2 : 0);
	uint64_t rmax = 0;

	if (n < 2)
		return 0;
	for (int i = w; i < n; i++)
		rmax = RTE_MAX(rmax, m[i].rss);
	DPV_TEST_LOG("memory, %d samples, 1 s apart: resident %.1f MiB at "
		     "%d s, %.1f MiB at the end (at most %.1f); DPDK heap "
		     "%" PRIu64 " -> %" PRIu64 " bytes; rings %" PRIu64
		     " -> %" PRIu64 " bytes; mbufs in use %" PRIu64
		     " -> %" PRIu64,
		     n, (double)m[w].rss / (1 << 20), w,
		     (double)m[n - 1].rss / (1 << 20),
		     (double)rmax / (1 << 20), m[w].heap, m[n - 1].heap,
		     m[w].rings, m[n - 1].rings, m[w].mbufs, m[n - 1].mbufs);
	TEST_ASSERT(rmax <= m[w].rss + FLAT_SLACK,
		    "resident set grew by %" PRIu64 " bytes",
		    rmax - m[w].rss);
	TEST_ASSERT(m[n - 1].heap <= m[w].heap, "DPDK heap grew");
	TEST_ASSERT(m[n - 1].rings <= m[w].rings, "ring memory grew");
	return TEST_SUCCESS;
}

static int
case_soak(void)
{
	const char *env = getenv("DPV_SOAK_SECONDS");
	const char *spec = getenv("DPV_SOAK_FAULT");
	unsigned secs = env != NULL && atoi(env) > 0 ? (unsigned)atoi(env) : 30;
	struct dpv_port *port = dctx_dev(ctx)->port;
	static struct mem_sample m[MAX_SAMPLES];
	struct dpv_fault_conf fc;
	struct ibv_port_attr pa;
	uint64_t hz = rte_get_timer_hz(), t0, end, next_sample, last_progress;
	uint64_t now, mbufs0;
	union ibv_gid gid;
	char err[128];
	int gi = test_loop_gid(ctx, &gid), n = 0, got;

	if (getenv("DPV_SOAK_TIMEOUT") != NULL)
		ack_timeout = (uint8_t)atoi(getenv("DPV_SOAK_TIMEOUT"));
	env = getenv("DPV_SOAK_SEED");
	rng = env != NULL && strtoull(env, NULL, 0) != 0
		      ? strtoull(env, NULL, 0)
		      : 1;
	DPV_TEST_LOG("soak: %u s, seed %" PRIu64 ", faults %s", secs, rng,
		     spec ? spec : DEF_FAULT);
	TEST_ASSERT(gi >= 0 && port != NULL, "no GID or port on the device");
	TEST_ASSERT_EQUAL(ibv_query_port(ctx, 1, &pa), 0, "query_port");
	DPV_TEST_LOG("path MTU %d bytes, ACK timeout %u (%.1f ms), %d pairs "
		     "(one UC), %d operations outstanding each",
		     128 << pa.active_mtu, ack_timeout,
		     4.096e-3 * (1u << ack_timeout), NPAIR, NSLOT);
	for (size_t k = 0; k < 2 * SLOT; k++)
		pat[k] = (uint8_t)(rnd() >> 32);
	for (int i = 0; i < NPAIR; i++)
		TEST_ASSERT_EQUAL(pair_up(&pairs[i], i == UC_PAIR, gi,
					  pa.active_mtu,
					  (uint32_t)(0xfff000 + i * 0x100)),
				  0, "pair %d: %s", i, strerror(errno));
	dpv_fault_conf_init(&fc);
	TEST_ASSERT_EQUAL(dpv_fault_parse(spec ? spec : DEF_FAULT, &fc, err,
					  sizeof(err)),
			  0, "%s", err);
	sample(&m[0]);
	mbufs0 = m[0].mbufs;
	TEST_ASSERT_EQUAL(dpv_port_fault_set(port, &fc), 0, "fault layer");
	t0 = rte_get_timer_cycles();
	end = t0 + secs * hz;
	next_sample = t0 + hz;
	last_progress = t0;
	memset(&st, 0, sizeof(st));
	for (;;) {
		now = rte_get_timer_cycles();
		if (now < end)
			for (int i = 0; i < NPAIR; i++)
				while (pairs[i].next - pairs[i].head < NSLOT)
					TEST_ASSERT_EQUAL(post_one(&pairs[i]),
							  0, "post");
		got = poll_all();
		TEST_ASSERT(got >= 0, "after %.1f s",
			    (double)(now - t0) / hz);
		if (got > 0)
			last_progress = now;
		TEST_ASSERT(now - last_progress < STALL_S * hz,
			    "no completion for %d s", STALL_S);
		if (now >= next_sample && n < MAX_SAMPLES) {
			sample(&m[n++]);
			next_sample += hz;
		}
		if (now >= end) {
			bool idle = true;

			for (int i = 0; i < NPAIR; i++)
				idle &= pairs[i].head == pairs[i].next;
			if (idle)
				break;
		}
	}
	dpv_port_fault_set(port, NULL);
	report_counters(port);
	for (int i = 0; i < NPAIR; i++) {
		if (pairs[i].uc)
			continue;
		TEST_ASSERT(*B_ATOM(&pairs[i]) == pairs[i].model,
			    "pair %d: atomic target 0x%" PRIx64 ", model "
			    "0x%" PRIx64,
			    i, *B_ATOM(&pairs[i]), pairs[i].model);
	}
	for (int i = 0; i < NPAIR; i++)
		pair_down(&pairs[i]);
	TEST_ASSERT(check_flat(m, n) == TEST_SUCCESS, "memory not flat");
	/* held frames have left, the pairs are gone: the mbufs are back */
	for (uint64_t t = rte_get_timer_cycles(); rte_get_timer_cycles() <
						  t + hz / 2;)
		ibv_poll_cq(spare_cq, 1, (struct ibv_wc[1]){});
	sample(&m[0]);
	DPV_TEST_LOG("mbufs in use: %" PRIu64 " before, %" PRIu64 " after",
		     mbufs0, m[0].mbufs);
	TEST_ASSERT(m[0].mbufs <= mbufs0, "mbufs kept");
	return TEST_SUCCESS;
}

static struct dpv_test_suite soak_suite = {
	.name = "soak",
	.setup = suite_setup,
	.teardown = suite_teardown,
	.cases =
		{
			TEST_CASE(case_soak),
			TEST_CASES_END(),
		},
};

static int
soak(void)
{
	return dpv_test_run_suite(&soak_suite);
}

DPV_TEST_REGISTER_SLOW(soak, soak);
