/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Verbs front end: PD, MR, MW, completion channel, CQ, SRQ, XRCD, AH and
 * parent-domain lifecycles and their errno cases, through the public API.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "dpv_test.h"
#include "test_verbs_util.h"
#include "dpv_wr.h"
#include "verbs_int.h"
#include "engine_int.h"
#include "qp.h"

static struct ibv_device **devs;
static struct ibv_context *ctx;
static struct ibv_pd *pd;
static char buf[8192];

static int
objs_setup(void)
{
	if (test_verbs_open_first(&devs, &ctx) != TEST_SUCCESS)
		return TEST_FAILED;
	/* tests read expected events: never block if one is missing */
	fcntl(ctx->async_fd, F_SETFL,
	      fcntl(ctx->async_fd, F_GETFL) | O_NONBLOCK);
	pd = ibv_alloc_pd(ctx);
	return pd ? TEST_SUCCESS : TEST_FAILED;
}

static void
objs_teardown(void)
{
	test_verbs_release(&devs, &ctx, &pd);
}

#define EXPECT_NULL_ERRNO(expr, err, what)                                     \
	do {                                                                   \
		errno = 0;                                                     \
		void *p_ = (void *)(expr);                                     \
		TEST_ASSERT_NULL(p_, "%s must fail", what);                    \
		TEST_ASSERT_EQUAL(errno, err, "%s errno", what);               \
	} while (0)

static int
test_pd(void)
{
	struct ibv_pd *p = ibv_alloc_pd(ctx), *q = ibv_alloc_pd(ctx);
	struct ibv_mr *mr;

	TEST_ASSERT(p && q, "alloc");
	TEST_ASSERT(p->context == ctx, "context set");
	TEST_ASSERT(to_dpd(p)->pdn != to_dpd(q)->pdn, "distinct PD numbers");
	mr = ibv_reg_mr(p, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	TEST_ASSERT_NOT_NULL(mr, "mr");
	TEST_ASSERT_EQUAL(ibv_dealloc_pd(p), EBUSY, "PD in use");
	TEST_ASSERT_EQUAL(ibv_dereg_mr(mr), 0, "dereg");
	TEST_ASSERT_EQUAL(ibv_dealloc_pd(p), 0, "dealloc");
	TEST_ASSERT_EQUAL(ibv_dealloc_pd(q), 0, "dealloc");
	return TEST_SUCCESS;
}

static int
test_mr(void)
{
	struct dpv_device *dev = to_dctx(ctx)->dev;
	struct dpv_mkey k;
	struct ibv_mr *mr, *mr2;
	uint32_t old;

	mr = ibv_reg_mr(pd, buf, sizeof(buf),
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				IBV_ACCESS_REMOTE_READ);
	TEST_ASSERT_NOT_NULL(mr, "reg");
	TEST_ASSERT(mr->context == ctx && mr->pd == pd, "links");
	TEST_ASSERT(mr->addr == buf && mr->length == sizeof(buf), "range");
	TEST_ASSERT(mr->lkey >> 8 != 0, "key index");
	TEST_ASSERT(dpv_mkey_get(dev, mr->lkey, &k), "engine sees the key");
	TEST_ASSERT_EQUAL(k.addr, (uintptr_t)buf, "addr");
	TEST_ASSERT_EQUAL(k.iova, (uintptr_t)buf, "iova");
	TEST_ASSERT_EQUAL(k.length, sizeof(buf), "len");
	TEST_ASSERT_EQUAL(k.pdn, to_dpd(pd)->pdn, "pdn");
	TEST_ASSERT(!dpv_mkey_get(dev, mr->lkey ^ 1, &k), "wrong variant");
	old = mr->lkey;
	TEST_ASSERT_EQUAL(ibv_dereg_mr(mr), 0, "dereg");
	TEST_ASSERT(!dpv_mkey_get(dev, old, &k), "stale key after dereg");
	/* a new registration never reuses the old key */
	for (int i = 0; i < 4; i++) {
		mr2 = ibv_reg_mr(pd, buf, 64, 0);
		TEST_ASSERT_NOT_NULL(mr2, "reg");
		TEST_ASSERT(mr2->lkey != old, "fresh key");
		TEST_ASSERT(!dpv_mkey_get(dev, old, &k), "still stale");
		ibv_dereg_mr(mr2);
	}

	/* iova variants */
	mr = ibv_reg_mr_iova(pd, buf, 4096, 0x100000, IBV_ACCESS_LOCAL_WRITE);
	TEST_ASSERT_NOT_NULL(mr, "iova");
	TEST_ASSERT(dpv_mkey_get(dev, mr->rkey, &k) && k.iova == 0x100000,
		    "iova kept");
	ibv_dereg_mr(mr);
	mr = ibv_reg_mr_iova2(pd, buf, 4096, 0x2000,
			      IBV_ACCESS_LOCAL_WRITE |
				      IBV_ACCESS_RELAXED_ORDERING);
	TEST_ASSERT_NOT_NULL(mr, "iova2 with optional flag");
	ibv_dereg_mr(mr);

	/* bad flags, nothing registered */
	EXPECT_NULL_ERRNO(ibv_reg_mr(pd, buf, 64, IBV_ACCESS_REMOTE_WRITE),
			  EINVAL, "REMOTE_WRITE without LOCAL_WRITE");
	EXPECT_NULL_ERRNO(ibv_reg_mr(pd, buf, 64, IBV_ACCESS_REMOTE_ATOMIC),
			  EINVAL, "REMOTE_ATOMIC without LOCAL_WRITE");
	EXPECT_NULL_ERRNO(ibv_reg_mr(pd, buf, 64, 1 << 12), EINVAL,
			  "unknown flag");
	/* ODP: an ordinary region where there is an engine
	 * (test_verbs_dv_ext.c), implicit ODP too (test_verbs_odp.c); the
	 * whole address space without ON_DEMAND nowhere */
	if (to_dctx(ctx)->dev->engine == NULL)
		EXPECT_NULL_ERRNO(ibv_reg_mr(pd, buf, 64, IBV_ACCESS_ON_DEMAND),
				  EOPNOTSUPP, "ODP without an engine");
	EXPECT_NULL_ERRNO(
		ibv_reg_mr(pd, NULL, SIZE_MAX, IBV_ACCESS_LOCAL_WRITE), EINVAL,
		"implicit without ON_DEMAND");
	EXPECT_NULL_ERRNO(ibv_reg_mr(pd, buf, 0, 0), EINVAL, "zero length");
	EXPECT_NULL_ERRNO(ibv_reg_dmabuf_mr(pd, 0, 64, 0, 3, 0), EOPNOTSUPP,
			  "dmabuf");
	TEST_ASSERT_EQUAL(atomic_load(&to_dpd(pd)->refcnt), 0,
			  "failed registrations hold no reference");
	return TEST_SUCCESS;
}

/* No key may collide with MLX5_INVALID_LKEY (0x100), the receive-WQE
 * scatter-list terminator: exhaust the whole key space to see every slot. */
static int
test_mr_key_space(void)
{
	static struct ibv_mr *mrs[DPV_CAP_MAX_MR];
	unsigned int n = 0, bad = 0;
	struct ibv_device_attr da;
	int err = 0;

	TEST_ASSERT_EQUAL(ibv_query_device(ctx, &da), 0, "query");
	while (n < RTE_DIM(mrs)) {
		errno = 0;
		mrs[n] = ibv_reg_mr(pd, buf, 64, IBV_ACCESS_LOCAL_WRITE);
		if (mrs[n] == NULL) {
			err = errno;
			break;
		}
		if (mrs[n]->lkey == 0x100 || mrs[n]->lkey >> 8 < 2)
			bad++;
		n++;
	}
	for (unsigned int i = 0; i < n; i++)
		ibv_dereg_mr(mrs[i]);
	TEST_ASSERT_EQUAL(err, ENOMEM, "key space ends with ENOMEM");
	TEST_ASSERT(n > 0 && n <= (unsigned int)da.max_mr, "%u keys", n);
	TEST_ASSERT_EQUAL(bad, 0, "keys colliding with MLX5_INVALID_LKEY");
	/* and after the allocator wrapped around */
	struct ibv_mr *mr = ibv_reg_mr(pd, buf, 64, IBV_ACCESS_LOCAL_WRITE);

	TEST_ASSERT_NOT_NULL(mr, "reg after wrap");
	TEST_ASSERT(mr->lkey >> 8 >= 2, "key 0x%x", mr->lkey);
	ibv_dereg_mr(mr);
	return TEST_SUCCESS;
}

static int
test_rereg_mr(void)
{
	struct dpv_device *dev = to_dctx(ctx)->dev;
	struct ibv_pd *pd2 = ibv_alloc_pd(ctx);
	struct dpv_mkey k;
	struct ibv_mr *mr;
	uint32_t key;

	mr = ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE);
	TEST_ASSERT(mr && pd2, "setup");
	key = mr->lkey;
	TEST_ASSERT_EQUAL(
		ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
			     IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE),
		0, "access");
	TEST_ASSERT(dpv_mkey_get(dev, key, &k), "same key");
	TEST_ASSERT(k.access & IBV_ACCESS_REMOTE_WRITE, "new access");
	TEST_ASSERT_EQUAL(
		ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_PD, pd2, NULL, 0, 0), 0,
		"pd");
	TEST_ASSERT(dpv_mkey_get(dev, key, &k) && k.pdn == to_dpd(pd2)->pdn,
		    "pdn moved");
	TEST_ASSERT_EQUAL(ibv_dealloc_pd(pd2), EBUSY, "new PD in use");
	TEST_ASSERT_EQUAL(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_TRANSLATION,
				       NULL, buf + 4096, 1024, 0),
			  0, "translation");
	TEST_ASSERT(dpv_mkey_get(dev, key, &k) &&
			    k.addr == (uintptr_t)(buf + 4096) &&
			    k.length == 1024,
		    "range moved");
	errno = 0;
	TEST_ASSERT_EQUAL(ibv_rereg_mr(mr, 0, NULL, NULL, 0, 0),
			  IBV_REREG_MR_ERR_INPUT, "no flags");
	TEST_ASSERT_EQUAL(errno, EINVAL, "errno");
	TEST_ASSERT_EQUAL(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL,
				       NULL, 0, IBV_ACCESS_REMOTE_WRITE),
			  IBV_REREG_MR_ERR_INPUT, "bad access");
	TEST_ASSERT_EQUAL(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_TRANSLATION,
				       NULL, NULL, 0, 0),
			  IBV_REREG_MR_ERR_INPUT, "no range");
	TEST_ASSERT(dpv_mkey_get(dev, key, &k) && k.length == 1024,
		    "failed rereg changes nothing");
	TEST_ASSERT_EQUAL(ibv_dereg_mr(mr), 0, "dereg");
	TEST_ASSERT_EQUAL(ibv_dealloc_pd(pd2), 0, "pd2 free");
	return TEST_SUCCESS;
}

static int
test_mw(void)
{
	struct dpv_device *dev = to_dctx(ctx)->dev;
	struct ibv_mw *w1, *w2;
	struct ibv_device_attr da;
	struct dpv_mkey k;

	if (!DPV_CAP_MW) {
		/* the engine cannot bind: no window is handed out */
		TEST_ASSERT_EQUAL(ibv_query_device(ctx, &da), 0, "query");
		TEST_ASSERT(!(da.device_cap_flags &
			      (IBV_DEVICE_MEM_WINDOW |
			       IBV_DEVICE_MEM_WINDOW_TYPE_2A |
			       IBV_DEVICE_MEM_WINDOW_TYPE_2B)),
			    "no MEM_WINDOW flags");
		TEST_ASSERT_EQUAL(da.max_mw, 0, "max_mw");
		EXPECT_NULL_ERRNO(ibv_alloc_mw(pd, IBV_MW_TYPE_1), EOPNOTSUPP,
				  "type 1");
		EXPECT_NULL_ERRNO(ibv_alloc_mw(pd, IBV_MW_TYPE_2), EOPNOTSUPP,
				  "type 2");
		return TEST_SUCCESS;
	}
	w1 = ibv_alloc_mw(pd, IBV_MW_TYPE_1);
	w2 = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
	TEST_ASSERT(w1 && w2, "alloc");
	TEST_ASSERT(w1->context == ctx && w1->pd == pd, "links");
	TEST_ASSERT(w1->rkey != w2->rkey, "keys");
	TEST_ASSERT(dpv_mkey_get(dev, w2->rkey, &k) && k.type == DPV_MKEY_MW2,
		    "type 2 key");
	EXPECT_NULL_ERRNO(ibv_alloc_mw(pd, (enum ibv_mw_type)3), EINVAL,
			  "type 3");
	TEST_ASSERT_EQUAL(ibv_dealloc_pd(pd), EBUSY, "PD in use by MW");
	{
		/* bind checks that fail before anything is posted */
		struct ibv_qp fake = {.context = ctx, .pd = pd};
		struct ibv_mr *nobind = ibv_reg_mr(pd, buf, 256, 0);
		struct ibv_mr *mr =
			ibv_reg_mr(pd, buf, 256,
				   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND);
		struct ibv_mw_bind b = {
			.bind_info = {.mr = nobind,
				      .addr = (uintptr_t)buf,
				      .length = 64,
				      .mw_access_flags =
					      IBV_ACCESS_REMOTE_READ}};
		uint32_t rkey = w1->rkey;

		TEST_ASSERT(nobind && mr, "mrs");
		TEST_ASSERT_EQUAL(ibv_bind_mw(&fake, w1, &b), EINVAL,
				  "MR without MW_BIND");
		b.bind_info.mr = mr;
		b.bind_info.length = 512;
		TEST_ASSERT_EQUAL(ibv_bind_mw(&fake, w1, &b), EINVAL,
				  "beyond the region");
		b.bind_info.length = 64;
		b.bind_info.mw_access_flags = 1 << 12;
		TEST_ASSERT_EQUAL(ibv_bind_mw(&fake, w1, &b), EINVAL,
				  "unknown window access bit");
		{
			struct ibv_mr *ro =
				ibv_reg_mr(pd, buf, 256, IBV_ACCESS_MW_BIND);

			TEST_ASSERT_NOT_NULL(ro, "read-only MR");
			b.bind_info.mr = ro;
			b.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_WRITE;
			TEST_ASSERT_EQUAL(ibv_bind_mw(&fake, w1, &b), EINVAL,
					  "remote write into a read-only MR");
			b.bind_info.mr = mr;
			ibv_dereg_mr(ro);
		}
		TEST_ASSERT_EQUAL(ibv_bind_mw(&fake, w2, &b), EINVAL,
				  "type 2 binds by post_send only");
		TEST_ASSERT_EQUAL(w1->rkey, rkey, "rkey unchanged");
		ibv_dereg_mr(nobind);
		ibv_dereg_mr(mr);
	}
	TEST_ASSERT_EQUAL(ibv_dealloc_mw(w1), 0, "dealloc");
	TEST_ASSERT_EQUAL(ibv_dealloc_mw(w2), 0, "dealloc");
	return TEST_SUCCESS;
}

/* Engine side: write one receive completion of QP 0x11 into cq's ring. */
static int
push_recv(struct ibv_cq *cq, bool solicited)
{
	struct dpv_cqe_info ci = {
		.status = IBV_WC_SUCCESS,
		.opcode = IBV_WC_RECV,
		.is_recv = true,
		.qpn = 0x11,
		.solicited = solicited,
	};

	return dpv_mlx5_cq_push(&to_dcq(cq)->ring, &ci);
}

/* The engine's bind / invalidate hooks on the device's key table. */
static int
test_mw_engine_hooks(void)
{
	struct dpv_device *dev = to_dctx(ctx)->dev;
	uint32_t pdn = to_dpd(pd)->pdn;
	struct ibv_mw *w1, *w2;
	struct ibv_mr *mr, *ro;
	struct dpv_wr_bind b;
	struct dpv_mkey k;
	uint32_t nk;

	if (!DPV_CAP_MW)
		return TEST_SKIPPED;
	w1 = ibv_alloc_mw(pd, IBV_MW_TYPE_1);
	w2 = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
	mr = ibv_reg_mr(pd, buf, 1024,
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND);
	ro = ibv_reg_mr(pd, buf, 1024, IBV_ACCESS_MW_BIND);
	TEST_ASSERT(w1 && w2 && mr && ro, "objects");
	TEST_ASSERT(dpv_mkey_get(dev, w2->rkey, &k) && !k.bound,
		    "allocated unbound");
	nk = ibv_inc_rkey(w2->rkey);
	memset(&b, 0, sizeof(b));
	b.mw_rkey = w2->rkey;
	b.new_key = nk & 0xff;
	b.mr_lkey = mr->lkey;
	b.addr = (uintptr_t)buf + 128;
	b.length = 256;
	b.access = IBV_ACCESS_REMOTE_WRITE;
	b.type2 = true;
	TEST_ASSERT_EQUAL(dpv_mkey_engine_bind(dev, &b, pdn + 1, 77),
			  IBV_WC_MW_BIND_ERR, "QP of another PD");
	b.mr_lkey = ro->lkey;
	TEST_ASSERT_EQUAL(dpv_mkey_engine_bind(dev, &b, pdn, 77),
			  IBV_WC_MW_BIND_ERR, "remote write, read-only region");
	b.mr_lkey = mr->lkey;
	TEST_ASSERT_EQUAL(dpv_mkey_engine_bind(dev, &b, pdn, 77),
			  IBV_WC_SUCCESS, "bind");
	TEST_ASSERT(dpv_mkey_get(dev, nk, &k), "new key live");
	TEST_ASSERT(k.bound && k.qpn == 77 && k.length == 256 &&
			    k.addr == (uintptr_t)buf + 128 &&
			    k.access == IBV_ACCESS_REMOTE_WRITE,
		    "window state");
	TEST_ASSERT(!dpv_mkey_get(dev, w2->rkey, &k), "old key dead");
	TEST_ASSERT_EQUAL(dpv_mkey_engine_bind(dev, &b, pdn, 77),
			  IBV_WC_MW_BIND_ERR, "type 2 bound already");
	TEST_ASSERT_EQUAL(dpv_mkey_engine_invalidate(dev, nk, pdn, 78, true),
			  -EACCES, "remote invalidate via another QP");
	TEST_ASSERT_EQUAL(dpv_mkey_engine_invalidate(dev, mr->lkey, pdn, 77,
						     false),
			  -EACCES, "regions of reg_mr");
	TEST_ASSERT_EQUAL(dpv_mkey_engine_invalidate(dev, nk, pdn, 77, true),
			  0, "remote invalidate");
	TEST_ASSERT(dpv_mkey_get(dev, nk, &k) && !k.bound, "unbound");
	TEST_ASSERT_EQUAL(dpv_mkey_engine_invalidate(dev, nk, pdn, 77, false),
			  -EACCES, "not bound");
	/* type 1: bound by the engine, never invalidated */
	b.mw_rkey = w1->rkey;
	b.new_key = ibv_inc_rkey(w1->rkey) & 0xff;
	b.type2 = false;
	TEST_ASSERT_EQUAL(dpv_mkey_engine_bind(dev, &b, pdn, 77),
			  IBV_WC_SUCCESS, "type 1 bind");
	TEST_ASSERT_EQUAL(dpv_mkey_engine_invalidate(
				  dev, ibv_inc_rkey(w1->rkey), pdn, 77, false),
			  -EACCES, "type 1");
	TEST_ASSERT_EQUAL(ibv_dealloc_mw(w1), 0, "");
	TEST_ASSERT_EQUAL(ibv_dealloc_mw(w2), 0, "");
	TEST_ASSERT_EQUAL(ibv_dereg_mr(mr), 0, "");
	TEST_ASSERT_EQUAL(ibv_dereg_mr(ro), 0, "");
	return TEST_SUCCESS;
}

/* Run a bind of the window with key *rkey through the engine hook (QP 5):
 * 64 bytes at addr of mr, or an unbind if mr is NULL. The new key goes to
 * *rkey on success. Returns the hook's status. */
static int
hook_bind(uint32_t *rkey, bool type2, struct ibv_mr *mr, void *addr)
{
	struct dpv_wr_bind b = {
		.mw_rkey = *rkey,
		.new_key = ibv_inc_rkey(*rkey) & 0xff,
		.mr_lkey = mr ? mr->lkey : 0,
		.addr = (uintptr_t)addr,
		.length = mr ? 64 : 0,
		.access = IBV_ACCESS_REMOTE_READ,
		.type2 = type2,
	};
	int st =
		dpv_mkey_engine_bind(to_dctx(ctx)->dev, &b, to_dpd(pd)->pdn, 5);

	if (st == IBV_WC_SUCCESS)
		*rkey = ibv_inc_rkey(*rkey);
	return st;
}

/* ibv_dereg_mr: EBUSY while windows (type 1 or 2) are bound to the
 * region; unbind, invalidation, rebind elsewhere and dealloc release it. */
static int
test_mr_dereg_bound(void)
{
	struct dpv_device *dev = to_dctx(ctx)->dev;
	struct ibv_mw *w1, *w2;
	struct ibv_mr *m1, *m2;
	struct dpv_mkey k;
	uint32_t k1, k2;

	if (!DPV_CAP_MW)
		return TEST_SKIPPED;
	w1 = ibv_alloc_mw(pd, IBV_MW_TYPE_1);
	w2 = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
	m1 = ibv_reg_mr(pd, buf, 1024,
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND);
	m2 = ibv_reg_mr(pd, buf + 1024, 1024,
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND);
	TEST_ASSERT(w1 && w2 && m1 && m2, "objects");
	k1 = w1->rkey;
	k2 = w2->rkey;

	/* type 2 bound to m1: busy until invalidated */
	TEST_ASSERT_EQUAL(hook_bind(&k2, true, m1, buf), IBV_WC_SUCCESS,
			  "type 2 bind");
	TEST_ASSERT_EQUAL(ibv_dereg_mr(m1), EBUSY, "type 2 window bound");
	TEST_ASSERT(dpv_mkey_get(dev, m1->lkey, &k) && k.type == DPV_MKEY_MR,
		    "region still live after EBUSY");
	TEST_ASSERT_EQUAL(
		dpv_mkey_engine_invalidate(dev, k2, to_dpd(pd)->pdn, 5, false),
		0, "invalidate");

	/* type 1 bound to m1, then rebound to m2: m1 free, m2 busy */
	TEST_ASSERT_EQUAL(hook_bind(&k1, false, m1, buf), IBV_WC_SUCCESS,
			  "type 1 bind");
	TEST_ASSERT_EQUAL(ibv_dereg_mr(m1), EBUSY, "type 1 window bound");
	TEST_ASSERT_EQUAL(hook_bind(&k1, false, m2, buf + 1024), IBV_WC_SUCCESS,
			  "type 1 rebind");
	TEST_ASSERT_EQUAL(ibv_dereg_mr(m2), EBUSY, "rebound here");
	TEST_ASSERT_EQUAL(ibv_dereg_mr(m1), 0, "released by the rebind");

	/* a zero-length bind unbinds */
	TEST_ASSERT_EQUAL(hook_bind(&k1, false, NULL, NULL), IBV_WC_SUCCESS,
			  "type 1 unbind");
	TEST_ASSERT_EQUAL(ibv_dereg_mr(m2), 0, "released by the unbind");

	/* freeing a bound window releases its region */
	m1 = ibv_reg_mr(pd, buf, 1024,
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND);
	TEST_ASSERT(m1, "reg");
	TEST_ASSERT_EQUAL(hook_bind(&k1, false, m1, buf), IBV_WC_SUCCESS,
			  "type 1 bind again");
	TEST_ASSERT_EQUAL(ibv_dereg_mr(m1), EBUSY, "bound again");
	TEST_ASSERT_EQUAL(ibv_dealloc_mw(w1), 0, "dealloc bound window");
	TEST_ASSERT_EQUAL(ibv_dereg_mr(m1), 0, "released by the dealloc");
	TEST_ASSERT_EQUAL(ibv_dealloc_mw(w2), 0, "");
	return TEST_SUCCESS;
}

/* A signal that interrupts ibv_get_cq_event() (no SA_RESTART): the call
 * returns -1 with EINTR, as rdma-core's read() of the channel does;
 * qperf ends a test that way (its alarm) when no more events come. */
struct eintr_arg {
	pthread_t main;
	struct ibv_cq *cq;
	volatile int done;
};

static void
eintr_noop(int sig)
{
	(void)sig;
}

static void *
eintr_thread(void *p)
{
	struct eintr_arg *a = p;
	uint64_t one = 1;

	usleep(50000);
	pthread_kill(a->main, SIGUSR1);
	/* still blocked 2 s on: unblock it (the test then fails instead of
	 * hanging): a real CQ event, or a bare wake-up of the async fd */
	for (int i = 0; i < 200 && !a->done; i++)
		usleep(10000);
	if (!a->done && a->cq != NULL) {
		ibv_req_notify_cq(a->cq, 0);
		push_recv(a->cq, false);
		dpv_cq_notify(to_dcq(a->cq));
	} else if (!a->done &&
		   write(ctx->async_fd, &one, sizeof(one)) != sizeof(one)) {
		abort();
	}
	return NULL;
}

static int
test_cq_event_eintr(void)
{
	struct sigaction sa = {.sa_handler = eintr_noop}, old;
	struct ibv_comp_channel *ch = ibv_create_comp_channel(ctx);
	struct eintr_arg a = {.main = pthread_self()};
	struct ibv_cq *ecq;
	pthread_t th;
	void *cctx;
	int rc, err;

	TEST_ASSERT_NOT_NULL(ch, "channel");
	a.cq = ibv_create_cq(ctx, 16, NULL, ch, 0);
	TEST_ASSERT_NOT_NULL(a.cq, "cq");
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, &old);
	TEST_ASSERT_EQUAL(pthread_create(&th, NULL, eintr_thread, &a), 0, "");
	errno = 0;
	rc = ibv_get_cq_event(ch, &ecq, &cctx);
	err = errno;
	a.done = 1;
	pthread_join(th, NULL);
	sigaction(SIGUSR1, &old, NULL);
	if (rc == 0)
		ibv_ack_cq_events(a.cq, 1);
	TEST_ASSERT_EQUAL(ibv_destroy_cq(a.cq), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_comp_channel(ch), 0, "");
	TEST_ASSERT_EQUAL(rc, -1, "interrupted: no event");
	TEST_ASSERT_EQUAL(err, EINTR, "");
	return TEST_SUCCESS;
}

/* The same for ibv_get_async_event(). */
static int
test_async_event_eintr(void)
{
	struct sigaction sa = {.sa_handler = eintr_noop}, old;
	struct eintr_arg a = {.main = pthread_self()};
	struct ibv_async_event ev;
	int fl = fcntl(ctx->async_fd, F_GETFL);
	pthread_t th;
	int rc, err;

	/* the suite keeps the fd non-blocking: block for this case */
	fcntl(ctx->async_fd, F_SETFL, fl & ~O_NONBLOCK);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, &old);
	TEST_ASSERT_EQUAL(pthread_create(&th, NULL, eintr_thread, &a), 0, "");
	errno = 0;
	rc = ibv_get_async_event(ctx, &ev);
	err = errno;
	a.done = 1;
	pthread_join(th, NULL);
	sigaction(SIGUSR1, &old, NULL);
	fcntl(ctx->async_fd, F_SETFL, fl);
	if (rc == 0)
		ibv_ack_async_event(&ev);
	TEST_ASSERT_EQUAL(rc, -1, "interrupted: no event");
	TEST_ASSERT_EQUAL(err, EINTR, "");
	return TEST_SUCCESS;
}

static int
test_cq(void)
{
	struct ibv_device_attr a;
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq, *ecq;
	struct ibv_wc wc;
	void *cctx;
	int fl;

	TEST_ASSERT_EQUAL(ibv_query_device(ctx, &a), 0, "attr");
	cq = ibv_create_cq(ctx, 1, NULL, NULL, 0);
	TEST_ASSERT_NOT_NULL(cq, "cqe 1");
	TEST_ASSERT(cq->cqe >= 1 && cq->context == ctx, "fields");
	TEST_ASSERT_EQUAL(ibv_poll_cq(cq, 1, &wc), 0, "empty");
	/* the ring knows its CQ number (arm doorbell, mlx5dv view) */
	ecq = ibv_create_cq(ctx, 1, NULL, NULL, 0);
	TEST_ASSERT_NOT_NULL(ecq, "second cq");
	TEST_ASSERT(to_dcq(cq)->ring.cqn != 0 &&
			    to_dcq(cq)->ring.cqn <= 0xffffff &&
			    to_dcq(cq)->ring.cqn != to_dcq(ecq)->ring.cqn,
		    "cqn %u %u", to_dcq(cq)->ring.cqn, to_dcq(ecq)->ring.cqn);
	TEST_ASSERT_EQUAL(ibv_destroy_cq(ecq), 0, "destroy");
	TEST_ASSERT_EQUAL(ibv_resize_cq(cq, 0), EINVAL, "resize to 0");
	TEST_ASSERT_EQUAL(ibv_resize_cq(cq, a.max_cqe + 1), EINVAL,
			  "resize beyond max_cqe");
	TEST_ASSERT_EQUAL(ibv_destroy_cq(cq), 0, "destroy");
	cq = ibv_create_cq(ctx, a.max_cqe, NULL, NULL, 0);
	TEST_ASSERT_NOT_NULL(cq, "max_cqe %d", a.max_cqe);
	TEST_ASSERT_EQUAL(ibv_destroy_cq(cq), 0, "destroy");
	EXPECT_NULL_ERRNO(ibv_create_cq(ctx, a.max_cqe + 1, NULL, NULL, 0),
			  EINVAL, "cqe > max_cqe");
	EXPECT_NULL_ERRNO(ibv_create_cq(ctx, 0, NULL, NULL, 0), EINVAL,
			  "cqe 0");
	EXPECT_NULL_ERRNO(
		ibv_create_cq(ctx, 100, NULL, NULL, ctx->num_comp_vectors + 1),
		EINVAL, "comp_vector");

	/* channel + events */
	ch = ibv_create_comp_channel(ctx);
	TEST_ASSERT_NOT_NULL(ch, "channel");
	cq = ibv_create_cq(ctx, 16, &a, ch, 0);
	TEST_ASSERT_NOT_NULL(cq, "cq on channel");
	TEST_ASSERT_EQUAL(ibv_destroy_comp_channel(ch), EBUSY, "channel busy");
	TEST_ASSERT_EQUAL(ch->refcnt, 1, "public refcnt mirrors the CQ");
	fl = fcntl(ch->fd, F_GETFL);
	fcntl(ch->fd, F_SETFL, fl | O_NONBLOCK);
	TEST_ASSERT_EQUAL(ibv_get_cq_event(ch, &ecq, &cctx), -1, "no event");
	/* the engine side: a receive completion, then the arm check */
	TEST_ASSERT_EQUAL(push_recv(cq, false), 0, "push");
	dpv_cq_notify(to_dcq(cq));
	TEST_ASSERT_EQUAL(ibv_get_cq_event(ch, &ecq, &cctx), -1,
			  "not armed: no event");
	TEST_ASSERT_EQUAL(ibv_req_notify_cq(cq, 1), 0, "arm solicited");
	TEST_ASSERT_EQUAL(push_recv(cq, false), 0, "push");
	dpv_cq_notify(to_dcq(cq));
	TEST_ASSERT_EQUAL(ibv_get_cq_event(ch, &ecq, &cctx), -1,
			  "unsolicited does not fire");
	TEST_ASSERT_EQUAL(push_recv(cq, true), 0, "push");
	dpv_cq_notify(to_dcq(cq));
	TEST_ASSERT_EQUAL(ibv_get_cq_event(ch, &ecq, &cctx), 0, "solicited");
	TEST_ASSERT(ecq == cq && cctx == &a, "cq and its context");
	TEST_ASSERT_EQUAL(push_recv(cq, true), 0, "push");
	dpv_cq_notify(to_dcq(cq));
	TEST_ASSERT_EQUAL(ibv_get_cq_event(ch, &ecq, &cctx), -1,
			  "one event per arm");
	TEST_ASSERT_EQUAL(ibv_req_notify_cq(cq, 0), 0, "arm next");
	if (dctx_dev(ctx)->engine != NULL) {
		/* four CQEs are not polled: as on ConnectX, the arm fires at
		 * once (no later CQE need come) */
		TEST_ASSERT_EQUAL(ibv_get_cq_event(ch, &ecq, &cctx), 0,
				  "an arm over CQEs not polled fires");
		TEST_ASSERT_EQUAL(push_recv(cq, false), 0, "push");
		dpv_cq_notify(to_dcq(cq));
		TEST_ASSERT_EQUAL(ibv_get_cq_event(ch, &ecq, &cctx), -1,
				  "and only once");
		/* that CQE came while disarmed: the next arm fires at once
		 * (qperf re-arms, then waits) */
		TEST_ASSERT_EQUAL(ibv_req_notify_cq(cq, 0), 0, "arm");
		TEST_ASSERT_EQUAL(ibv_get_cq_event(ch, &ecq, &cctx), 0,
				  "a CQE no event was raised for fires");
		/* CQEs an event was raised for do not fire again: an arm made
		 * before they are polled (perftest -e) waits for a new one */
		TEST_ASSERT_EQUAL(ibv_req_notify_cq(cq, 0), 0, "arm again");
		TEST_ASSERT_EQUAL(ibv_get_cq_event(ch, &ecq, &cctx), -1,
				  "no second event for the same CQEs");
		TEST_ASSERT_EQUAL(push_recv(cq, false), 0, "push");
		dpv_cq_notify(to_dcq(cq));
		TEST_ASSERT_EQUAL(ibv_get_cq_event(ch, &ecq, &cctx), 0,
				  "a new CQE fires");
		ibv_ack_cq_events(cq, 2);
	} else {
		TEST_ASSERT_EQUAL(push_recv(cq, false), 0, "push");
		dpv_cq_notify(to_dcq(cq));
		TEST_ASSERT_EQUAL(ibv_get_cq_event(ch, &ecq, &cctx), 0,
				  "next");
	}
	ibv_ack_cq_events(cq, 2);
	TEST_ASSERT_EQUAL(cq->comp_events_completed,
			  dctx_dev(ctx)->engine != NULL ? 4 : 2, "acked");
	/* the engine reads the arm state after its CQEs only on CQs an event
	 * can reach (a channel): a CQE it writes fires an armed one */
	ecq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	TEST_ASSERT_NOT_NULL(ecq, "cq without channel");
	TEST_ASSERT(!to_dcq(ecq)->ring.eng_events && to_dcq(cq)->ring.eng_events,
		    "events wanted only with a channel");
	TEST_ASSERT_EQUAL(ibv_destroy_cq(ecq), 0, "destroy");
	if (dctx_dev(ctx)->engine != NULL) {
		struct ibv_cq *c2 = ibv_create_cq(ctx, 16, &a, ch, 0);
		struct dpv_cqe_info ci = {.status = IBV_WC_SUCCESS,
					  .opcode = IBV_WC_RECV,
					  .is_recv = true,
					  .qpn = 0x11};

		TEST_ASSERT_NOT_NULL(c2, "second cq on channel");
		TEST_ASSERT_EQUAL(ibv_req_notify_cq(c2, 0), 0, "arm");
		TEST_ASSERT_EQUAL(ibv_get_cq_event(ch, &ecq, &cctx), -1,
				  "armed, no CQE: no event");
		TEST_ASSERT_EQUAL(dpv_engine_cq_write(dctx_dev(ctx)->engine,
						      &to_dcq(c2)->ring, &ci),
				  0, "engine CQE");
		TEST_ASSERT_EQUAL(ibv_get_cq_event(ch, &ecq, &cctx), 0,
				  "the engine's CQE fires the arm");
		TEST_ASSERT(ecq == c2, "on that CQ");
		ibv_ack_cq_events(c2, 1);
		TEST_ASSERT_EQUAL(ibv_destroy_cq(c2), 0, "destroy");
	}
	/* a CQ used by a QP (or SRQ) cannot go */
	dpv_ref_get(&to_dcq(cq)->refcnt);
	TEST_ASSERT_EQUAL(ibv_destroy_cq(cq), EBUSY, "CQ in use");
	dpv_ref_put(&to_dcq(cq)->refcnt);
	TEST_ASSERT_EQUAL(ibv_destroy_cq(cq), 0, "destroy");
	TEST_ASSERT_EQUAL(ibv_destroy_comp_channel(ch), 0, "channel free");
	return TEST_SUCCESS;
}

static int
test_cq_ex(void)
{
	struct ibv_cq_init_attr_ex ia = {
		.cqe = 32,
		.wc_flags = IBV_WC_STANDARD_FLAGS,
	};
	struct ibv_poll_cq_attr pa = {0};
	struct ibv_cq_ex *cqx;

	cqx = ibv_create_cq_ex(ctx, &ia);
	TEST_ASSERT_NOT_NULL(cqx, "create_cq_ex: %s", strerror(errno));
	TEST_ASSERT(cqx->start_poll && cqx->next_poll && cqx->end_poll &&
			    cqx->read_opcode && cqx->read_byte_len &&
			    cqx->read_wc_flags,
		    "iteration ops");
	TEST_ASSERT_EQUAL(ibv_start_poll(cqx, &pa), ENOENT, "empty");
	TEST_ASSERT_EQUAL(ibv_destroy_cq(ibv_cq_ex_to_cq(cqx)), 0, "destroy");
	/* time stamps: test_verbs_ts.c; a flow tag is not supported */
	ia.wc_flags |= IBV_WC_EX_WITH_FLOW_TAG;
	EXPECT_NULL_ERRNO(ibv_create_cq_ex(ctx, &ia), EOPNOTSUPP, "flow tag");
	ia.wc_flags = 0;
	ia.comp_mask = 1 << 7;
	EXPECT_NULL_ERRNO(ibv_create_cq_ex(ctx, &ia), EINVAL, "comp_mask");
	return TEST_SUCCESS;
}

/*
 * An SRQ of max_wr 0 / max_sge 0, as the provider the device presents
 * answers: max_sge 0 gets one SGE everywhere (rxe, mlx5); max_wr 0 is
 * EINVAL on the generic device (as rxe) and, under personality = mlx5
 * (rdma-core's test_mlx5_huge_page), an SRQ reporting max_wr 0 that
 * takes no receive WR (ENOMEM), as the mlx5 provider's.
 */
static int
test_srq_zero(void)
{
	struct dpv_device *dev = to_dctx(ctx)->dev;
	bool was = dev->mlx5_personality;
	struct ibv_srq_init_attr ia = {.attr = {.max_wr = 4, .max_sge = 0}};
	struct ibv_recv_wr wr = {.wr_id = 1}, *bad;
	struct ibv_srq_attr sa;
	struct ibv_srq *srq;

	srq = ibv_create_srq(pd, &ia);
	TEST_ASSERT_NOT_NULL(srq, "max_sge 0: %s", strerror(errno));
	TEST_ASSERT_EQUAL(ia.attr.max_sge, 1, "max_sge 0 gets 1");
	TEST_ASSERT_EQUAL(ibv_post_srq_recv(srq, &wr, &bad), 0, "no SGE");
	TEST_ASSERT_EQUAL(ibv_destroy_srq(srq), 0, "");
	for (int mlx5 = 0; mlx5 < 2; mlx5++) {
		dev->mlx5_personality = mlx5;
		ia.attr.max_wr = 0;
		ia.attr.max_sge = 0;
		errno = 0;
		srq = ibv_create_srq(pd, &ia);
		dev->mlx5_personality = was;
		if (!mlx5) {
			TEST_ASSERT_NULL(srq, "generic: max_wr 0 refused");
			TEST_ASSERT_EQUAL(errno, EINVAL, "");
			continue;
		}
		TEST_ASSERT_NOT_NULL(srq, "mlx5: %s", strerror(errno));
		TEST_ASSERT(ia.attr.max_wr == 0 && ia.attr.max_sge == 1,
			    "mlx5: max_wr %u max_sge %u", ia.attr.max_wr,
			    ia.attr.max_sge);
		TEST_ASSERT_EQUAL(ibv_query_srq(srq, &sa), 0, "");
		TEST_ASSERT_EQUAL(sa.max_wr, 0, "");
		TEST_ASSERT_EQUAL(ibv_post_srq_recv(srq, &wr, &bad), ENOMEM,
				  "nothing fits");
		TEST_ASSERT_EQUAL(ibv_destroy_srq(srq), 0, "");
	}
	return TEST_SUCCESS;
}

static int
test_srq(void)
{
	struct ibv_srq_init_attr ia = {.attr = {.max_wr = 64, .max_sge = 2}};
	struct ibv_srq_attr sa;
	struct ibv_async_event ev;
	struct ibv_srq *srq;
	uint32_t num;

	srq = ibv_create_srq(pd, &ia);
	TEST_ASSERT_NOT_NULL(srq, "create: %s", strerror(errno));
	TEST_ASSERT(srq->context == ctx && srq->pd == pd, "links");
	TEST_ASSERT_EQUAL(ibv_query_srq(srq, &sa), 0, "query");
	TEST_ASSERT(sa.max_wr >= 64 && sa.max_sge >= 2 && sa.srq_limit == 0,
		    "attrs");
	TEST_ASSERT_EQUAL(ibv_get_srq_num(srq, &num), EINVAL, "basic: no num");
	sa.srq_limit = 1000;
	TEST_ASSERT_EQUAL(ibv_modify_srq(srq, &sa, IBV_SRQ_LIMIT), EINVAL,
			  "limit > max_wr");
	sa.srq_limit = 8;
	TEST_ASSERT_EQUAL(ibv_modify_srq(srq, &sa, IBV_SRQ_LIMIT), 0, "arm");
	TEST_ASSERT_EQUAL(ibv_query_srq(srq, &sa), 0, "query");
	TEST_ASSERT_EQUAL(sa.srq_limit, 8, "armed");
	TEST_ASSERT_EQUAL(ibv_modify_srq(srq, &sa, 1 << 5), EINVAL, "mask");
	/* crossing the limit fires once and disarms */
	dpv_srq_check_limit(to_dsrq(srq), 9);
	dpv_srq_check_limit(to_dsrq(srq), 7);
	dpv_srq_check_limit(to_dsrq(srq), 3);
	TEST_ASSERT_EQUAL(ibv_get_async_event(ctx, &ev), 0, "event");
	TEST_ASSERT_EQUAL(ev.event_type, IBV_EVENT_SRQ_LIMIT_REACHED, "type");
	TEST_ASSERT(ev.element.srq == srq, "element");
	ibv_ack_async_event(&ev);
	TEST_ASSERT_EQUAL(srq->events_completed, 1, "acked");
	TEST_ASSERT_EQUAL(ibv_query_srq(srq, &sa), 0, "query");
	TEST_ASSERT_EQUAL(sa.srq_limit, 0, "disarmed");
	TEST_ASSERT_EQUAL(ibv_dealloc_pd(pd), EBUSY, "PD in use by SRQ");
	dpv_ref_get(&to_dsrq(srq)->refcnt);
	TEST_ASSERT_EQUAL(ibv_destroy_srq(srq), EBUSY, "SRQ used by a QP");
	dpv_ref_put(&to_dsrq(srq)->refcnt);
	TEST_ASSERT_EQUAL(ibv_destroy_srq(srq), 0, "destroy");

	ia.attr.max_wr = 1u << 30;
	EXPECT_NULL_ERRNO(ibv_create_srq(pd, &ia), EINVAL, "max_wr too big");
	ia.attr.max_wr = 16;
	ia.attr.max_sge = 1000;
	EXPECT_NULL_ERRNO(ibv_create_srq(pd, &ia), EINVAL, "max_sge too big");
	return TEST_SUCCESS;
}

static int
test_xrc(void)
{
	struct ibv_xrcd_init_attr xa = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.fd = -1,
		.oflags = O_CREAT,
	};
	struct ibv_srq_init_attr_ex sx = {0};
	struct ibv_xrcd *x, *f1, *f2;
	struct ibv_cq *cq;
	struct ibv_srq *srq;
	char path[] = "/tmp/dpv-xrcd-XXXXXX";
	struct ibv_device_attr da;
	uint32_t num = 0;
	int fd;

	if (!DPV_CAP_XRC) {
		/* no XRC transport: say so everywhere, create nothing */
		TEST_ASSERT_EQUAL(ibv_query_device(ctx, &da), 0, "query");
		TEST_ASSERT(!(da.device_cap_flags & IBV_DEVICE_XRC),
			    "IBV_DEVICE_XRC not offered");
		EXPECT_NULL_ERRNO(ibv_open_xrcd(ctx, &xa), EOPNOTSUPP,
				  "open_xrcd");
		sx.attr.max_wr = 16;
		sx.attr.max_sge = 1;
		sx.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD;
		sx.srq_type = IBV_SRQT_XRC;
		sx.pd = pd;
		EXPECT_NULL_ERRNO(ibv_create_srq_ex(ctx, &sx), EOPNOTSUPP,
				  "XRC SRQ");
		return TEST_SUCCESS;
	}
	x = ibv_open_xrcd(ctx, &xa);
	TEST_ASSERT_NOT_NULL(x, "open: %s", strerror(errno));
	cq = ibv_create_cq(ctx, 8, NULL, NULL, 0);
	TEST_ASSERT_NOT_NULL(cq, "cq");
	sx.attr.max_wr = 16;
	sx.attr.max_sge = 1;
	sx.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
		       IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ;
	sx.srq_type = IBV_SRQT_XRC;
	sx.pd = pd;
	sx.xrcd = x;
	sx.cq = cq;
	srq = ibv_create_srq_ex(ctx, &sx);
	TEST_ASSERT_NOT_NULL(srq, "xrc srq: %s", strerror(errno));
	TEST_ASSERT_EQUAL(ibv_get_srq_num(srq, &num), 0, "srq num");
	TEST_ASSERT(num != 0, "number");
	TEST_ASSERT_EQUAL(ibv_close_xrcd(x), EBUSY, "xrcd in use");
	TEST_ASSERT_EQUAL(ibv_destroy_cq(cq), EBUSY, "cq in use by SRQ");
	TEST_ASSERT_EQUAL(ibv_destroy_srq(srq), 0, "srq");
	TEST_ASSERT_EQUAL(ibv_destroy_cq(cq), 0, "cq");
	TEST_ASSERT_EQUAL(ibv_close_xrcd(x), 0, "close");

	sx.comp_mask &= ~(uint32_t)IBV_SRQ_INIT_ATTR_CQ;
	EXPECT_NULL_ERRNO(ibv_create_srq_ex(ctx, &sx), EINVAL, "XRC needs CQ");
	/* tag matching needs its attributes and a CQ (test_verbs_tm.c) */
	sx.srq_type = IBV_SRQT_TM;
	EXPECT_NULL_ERRNO(ibv_create_srq_ex(ctx, &sx), EINVAL,
			  "TM without IBV_SRQ_INIT_ATTR_TM");

	/* sharing by file */
	fd = mkstemp(path);
	TEST_ASSERT(fd >= 0, "tmp file");
	unlink(path);
	xa.fd = fd;
	xa.oflags = 0;
	EXPECT_NULL_ERRNO(ibv_open_xrcd(ctx, &xa), ENOENT, "no O_CREAT");
	xa.oflags = O_CREAT;
	f1 = ibv_open_xrcd(ctx, &xa);
	f2 = ibv_open_xrcd(ctx, &xa);
	TEST_ASSERT(f1 && f1 == f2, "same domain through the same file");
	xa.oflags = O_CREAT | O_EXCL;
	EXPECT_NULL_ERRNO(ibv_open_xrcd(ctx, &xa), EEXIST, "O_EXCL");
	TEST_ASSERT_EQUAL(ibv_close_xrcd(f1), 0, "close 1");
	TEST_ASSERT_EQUAL(ibv_close_xrcd(f2), 0, "close 2");
	close(fd);
	return TEST_SUCCESS;
}

static int
test_ah(void)
{
	struct ibv_ah_attr aa = {
		.is_global = 1,
		.port_num = 1,
		.grh = {.sgid_index = 0, .hop_limit = 64},
	};
	struct {
		struct ibv_grh grh;
	} pkt;
	struct ibv_wc wc = {.wc_flags = IBV_WC_GRH, .sl = 0};
	struct ibv_ah_attr back;
	union ibv_gid mine;
	struct ibv_ah *ah;
	int empty = -1;

	TEST_ASSERT_EQUAL(ibv_query_gid(ctx, 1, 0, &mine), 0, "gid");
	aa.grh.dgid = mine;
	ah = ibv_create_ah(pd, &aa);
	TEST_ASSERT_NOT_NULL(ah, "create: %s", strerror(errno));
	TEST_ASSERT(ah->context == ctx && ah->pd == pd, "links");
	{
		/* the mlx5 address vector post_send uses */
		struct dpv_mlx5_av_attr av;
		const uint8_t *g = mine.raw;
		const uint8_t mac[6] = {g[8] ^ 2, g[9],	 g[10],
					g[13],	  g[14], g[15]};

		dpv_mlx5_av_parse(&to_dah(ah)->mah.av, &av);
		TEST_ASSERT(memcmp(av.dgid, mine.raw, 16) == 0, "av dgid");
		TEST_ASSERT(memcmp(av.dmac, mac, 6) == 0, "av dmac");
		TEST_ASSERT_EQUAL(av.hop_limit, 64, "av hop limit");
	}
	TEST_ASSERT_EQUAL(ibv_dealloc_pd(pd), EBUSY, "PD in use by AH");
	TEST_ASSERT_EQUAL(ibv_destroy_ah(ah), 0, "destroy");

	aa.port_num = 2;
	EXPECT_NULL_ERRNO(ibv_create_ah(pd, &aa), EINVAL, "bad port");
	aa.port_num = 1;
	aa.is_global = 0;
	EXPECT_NULL_ERRNO(ibv_create_ah(pd, &aa), EINVAL, "RoCE needs GRH");
	aa.is_global = 1;
	for (int i = 15; i >= 0 && empty < 0; i--) {
		struct ibv_gid_entry e;

		if (ibv_query_gid_ex(ctx, 1, i, &e, 0) == ENODATA)
			empty = i;
	}
	TEST_ASSERT(empty > 0, "an empty GID slot");
	aa.grh.sgid_index = (uint8_t)empty;
	EXPECT_NULL_ERRNO(ibv_create_ah(pd, &aa), EINVAL, "empty sgid index");
	aa.grh.sgid_index = 16;
	EXPECT_NULL_ERRNO(ibv_create_ah(pd, &aa), EINVAL, "sgid out of range");

	/* reply address from a received IPv6 GRH */
	memset(&pkt, 0, sizeof(pkt));
	pkt.grh.version_tclass_flow = htobe32(6u << 28 | 0x12345);
	pkt.grh.hop_limit = 64;
	memset(pkt.grh.sgid.raw, 0, 16);
	pkt.grh.sgid.raw[0] = 0xfe;
	pkt.grh.sgid.raw[1] = 0x80;
	pkt.grh.sgid.raw[15] = 7;
	pkt.grh.dgid = mine;
	TEST_ASSERT_EQUAL(ibv_init_ah_from_wc(ctx, 1, &wc, &pkt.grh, &back), 0,
			  "init from wc");
	TEST_ASSERT(back.is_global && back.grh.sgid_index == 0 &&
			    back.grh.dgid.raw[15] == 7 &&
			    back.grh.flow_label == 0x12345,
		    "reply path");
	ah = ibv_create_ah_from_wc(pd, &wc, &pkt.grh, 1);
	TEST_ASSERT_NOT_NULL(ah, "from wc");
	ibv_destroy_ah(ah);
	wc.wc_flags = 0;
	TEST_ASSERT_EQUAL(ibv_init_ah_from_wc(ctx, 1, &wc, &pkt.grh, &back), -1,
			  "no GRH");
	return TEST_SUCCESS;
}

static int
test_parent_domain(void)
{
	struct ibv_td_init_attr ta = {0};
	struct ibv_parent_domain_init_attr pa = {0};
	struct ibv_td *td;
	struct ibv_pd *par;
	struct ibv_mr *mr;

	td = ibv_alloc_td(ctx, &ta);
	TEST_ASSERT_NOT_NULL(td, "td");
	pa.pd = pd;
	pa.td = td;
	par = ibv_alloc_parent_domain(ctx, &pa);
	TEST_ASSERT_NOT_NULL(par, "parent domain: %s", strerror(errno));
	TEST_ASSERT_EQUAL(ibv_dealloc_pd(pd), EBUSY, "PD under parent");
	TEST_ASSERT_EQUAL(ibv_dealloc_td(td), EBUSY, "TD under parent");
	mr = ibv_reg_mr(par, buf, 64, 0);
	TEST_ASSERT_NOT_NULL(mr, "mr through parent domain");
	TEST_ASSERT_EQUAL(ibv_dealloc_pd(par), EBUSY, "parent in use");
	ibv_dereg_mr(mr);
	{
		struct ibv_cq_init_attr_ex ca = {
			.cqe = 4,
			.comp_mask = IBV_CQ_INIT_ATTR_MASK_PD,
			.parent_domain = par,
		};
		struct ibv_cq_ex *cqx = ibv_create_cq_ex(ctx, &ca);

		TEST_ASSERT_NOT_NULL(cqx, "CQ with parent domain");
		TEST_ASSERT_EQUAL(ibv_dealloc_pd(par), EBUSY, "held by CQ");
		TEST_ASSERT_EQUAL(ibv_destroy_cq(ibv_cq_ex_to_cq(cqx)), 0,
				  "cq");
		ca.parent_domain = pd;
		EXPECT_NULL_ERRNO(ibv_create_cq_ex(ctx, &ca), EINVAL,
				  "a plain PD is not a parent domain");
	}
	TEST_ASSERT_EQUAL(ibv_dealloc_pd(par), 0, "parent");
	TEST_ASSERT_EQUAL(ibv_dealloc_td(td), 0, "td");
	pa.td = NULL;
	pa.comp_mask = 1 << 5;
	EXPECT_NULL_ERRNO(ibv_alloc_parent_domain(ctx, &pa), EINVAL, "mask");
	ta.comp_mask = 1;
	EXPECT_NULL_ERRNO(ibv_alloc_td(ctx, &ta), EINVAL, "td mask");
	return TEST_SUCCESS;
}

/* Waived locks (mlx5's single-threaded modes): a CQ created
 * IBV_CREATE_CQ_ATTR_SINGLE_THREADED, and the CQ, QP and SRQ made on a
 * parent domain with a thread domain, take no lock; plain ones do; a
 * second caller inside a waived object aborts the process. */
static int
test_single_threaded_locks(void)
{
	struct ibv_td_init_attr ta = {0};
	struct ibv_parent_domain_init_attr pa = {0};
	struct ibv_cq_init_attr_ex ca = {
		.cqe = 4,
		.comp_mask = IBV_CQ_INIT_ATTR_MASK_FLAGS,
		.flags = IBV_CREATE_CQ_ATTR_SINGLE_THREADED,
	};
	struct ibv_srq_init_attr sa = {.attr = {.max_wr = 4, .max_sge = 1}};
	struct ibv_qp_init_attr qia = {
		.qp_type = IBV_QPT_RC,
		.cap = {.max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1,
			.max_recv_sge = 1},
	};
	struct ibv_cq_ex *st, *cqpd;
	struct ibv_cq *plain;
	struct ibv_qp *qp, *qp_plain;
	struct ibv_srq *srq;
	struct ibv_wc wc;
	struct ibv_td *td;
	struct ibv_pd *par;
	int status;
	pid_t pid;

	if (dpv_single_threaded())
		return TEST_SKIPPED; /* MLX5_SINGLE_THREADED=1 waives all */
	td = ibv_alloc_td(ctx, &ta);
	pa.pd = pd;
	pa.td = td;
	par = td ? ibv_alloc_parent_domain(ctx, &pa) : NULL;
	TEST_ASSERT_NOT_NULL(par, "parent domain: %s", strerror(errno));
	st = ibv_create_cq_ex(ctx, &ca);
	ca.comp_mask = IBV_CQ_INIT_ATTR_MASK_PD;
	ca.flags = 0;
	ca.parent_domain = par;
	cqpd = ibv_create_cq_ex(ctx, &ca);
	plain = ibv_create_cq(ctx, 4, NULL, NULL, 0);
	TEST_ASSERT(st && cqpd && plain, "CQs: %s", strerror(errno));
	TEST_ASSERT(!to_dcq(ibv_cq_ex_to_cq(st))->poll_lock.on,
		    "single-threaded CQ locks");
	TEST_ASSERT(!to_dcq(ibv_cq_ex_to_cq(cqpd))->poll_lock.on,
		    "CQ on a thread domain locks");
	TEST_ASSERT(to_dcq(plain)->poll_lock.on, "plain CQ without lock");
	qia.send_cq = qia.recv_cq = plain;
	qp = ibv_create_qp(par, &qia);
	qp_plain = ibv_create_qp(pd, &qia);
	srq = ibv_create_srq(par, &sa);
	TEST_ASSERT(qp && qp_plain && srq, "QPs, SRQ: %s", strerror(errno));
	TEST_ASSERT(!to_dqp(qp)->sq_lock.on && !to_dqp(qp)->rq_lock.on,
		    "QP on a thread domain locks");
	TEST_ASSERT(to_dqp(qp_plain)->sq_lock.on && to_dqp(qp_plain)->rq_lock.on,
		    "plain QP without locks");
	TEST_ASSERT(!to_dsrq(srq)->post_lock.on, "SRQ on a thread domain locks");
	/* a waived CQ polls as any other */
	TEST_ASSERT_EQUAL(ibv_poll_cq(ibv_cq_ex_to_cq(st), 1, &wc), 0, "poll");
	TEST_ASSERT(!to_dcq(ibv_cq_ex_to_cq(st))->poll_lock.in_use,
		    "the poll left its mark");
	/* a poll while another caller is inside (as a second thread would
	 * be) is caught: the child aborts instead of corrupting the ring */
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		if (fd >= 0)
			dup2(fd, 2);
		to_dcq(ibv_cq_ex_to_cq(st))->poll_lock.in_use = true;
		ibv_poll_cq(ibv_cq_ex_to_cq(st), 1, &wc);
		_exit(0);
	}
	TEST_ASSERT(pid > 0, "fork");
	TEST_ASSERT_EQUAL(waitpid(pid, &status, 0), pid, "wait");
	TEST_ASSERT(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT,
		    "second caller not caught (status 0x%x)", status);
	TEST_ASSERT_EQUAL(ibv_destroy_srq(srq), 0, "srq");
	TEST_ASSERT_EQUAL(ibv_destroy_qp(qp), 0, "qp");
	TEST_ASSERT_EQUAL(ibv_destroy_qp(qp_plain), 0, "qp");
	TEST_ASSERT_EQUAL(ibv_destroy_cq(ibv_cq_ex_to_cq(st)), 0, "cq");
	TEST_ASSERT_EQUAL(ibv_destroy_cq(ibv_cq_ex_to_cq(cqpd)), 0, "cq");
	TEST_ASSERT_EQUAL(ibv_destroy_cq(plain), 0, "cq");
	TEST_ASSERT_EQUAL(ibv_dealloc_pd(par), 0, "parent");
	TEST_ASSERT_EQUAL(ibv_dealloc_td(td), 0, "td");
	return TEST_SUCCESS;
}

static int
test_unsupported_objects(void)
{
	struct ibv_wq_init_attr wa = {0};
	struct ibv_rwq_ind_table_init_attr ra = {0};

	/* WQs and tables exist now (test/test_raw.c): empty attributes */
	EXPECT_NULL_ERRNO(ibv_create_wq(ctx, &wa), EINVAL, "WQ");
	EXPECT_NULL_ERRNO(ibv_create_rwq_ind_table(ctx, &ra), EINVAL,
			  "RWQ table");
	return TEST_SUCCESS;
}

/* A receive through an SRQ: posted by the application, consumed and
 * completed by the engine side, polled back with its wr_id. */
static int
test_srq_completion(void)
{
	struct ibv_srq_init_attr ia = {.attr = {.max_wr = 8, .max_sge = 1}};
	struct ibv_sge sge = {.addr = (uintptr_t)buf, .length = 64};
	struct ibv_recv_wr wr = {.wr_id = 0xabc, .sg_list = &sge, .num_sge = 1};
	struct ibv_recv_wr *bad = NULL;
	struct dpv_recv_wr rwr;
	struct ibv_srq *srq;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	struct ibv_wc wc;
	uint32_t srqn;

	mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	srq = ibv_create_srq(pd, &ia);
	cq = ibv_create_cq(ctx, 8, NULL, NULL, 0);
	TEST_ASSERT(mr && srq && cq, "setup");
	sge.lkey = mr->lkey;
	TEST_ASSERT_EQUAL(ibv_post_srq_recv(srq, &wr, &bad), 0, "post");
	srqn = to_dsrq(srq)->vsrq.srq_num;
	TEST_ASSERT(dpv_srq_lookup(to_dctx(ctx)->dev, srqn) == to_dsrq(srq),
		    "SRQ by number");
	TEST_ASSERT(dpv_mlx5_rq_fetch(&to_dsrq(srq)->ring, &rwr), "fetch");
	TEST_ASSERT_EQUAL(rwr.num_sge, 1, "one SGE");
	TEST_ASSERT_EQUAL(rwr.sg_list[0].lkey, mr->lkey, "lkey");

	struct dpv_cqe_info ci = {
		.status = IBV_WC_SUCCESS,
		.opcode = IBV_WC_RECV,
		.is_recv = true,
		.qpn = 0x77,
		.wqe_counter = rwr.wqe_index,
		.srqn = srqn,
		.byte_len = 40,
	};

	TEST_ASSERT_EQUAL(dpv_mlx5_cq_push(&to_dcq(cq)->ring, &ci), 0, "push");
	struct ibv_srq_attr lim = {.srq_limit = 1};
	struct ibv_async_event ev;

	TEST_ASSERT_EQUAL(ibv_modify_srq(srq, &lim, IBV_SRQ_LIMIT), 0, "arm");
	TEST_ASSERT_EQUAL(ibv_poll_cq(cq, 1, &wc), 1, "one completion");
	TEST_ASSERT_EQUAL(ibv_get_async_event(ctx, &ev), 0,
			  "last posted WQE completed: below the limit");
	TEST_ASSERT_EQUAL(ev.event_type, IBV_EVENT_SRQ_LIMIT_REACHED, "type");
	ibv_ack_async_event(&ev);
	TEST_ASSERT_EQUAL(wc.wr_id, 0xabc, "wr_id from the SRQ");
	TEST_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS, "status");
	TEST_ASSERT_EQUAL(wc.byte_len, 40, "length");
	TEST_ASSERT_EQUAL(wc.qp_num, 0x77, "qp");
	TEST_ASSERT_EQUAL(ibv_poll_cq(cq, 1, &wc), 0, "then empty");

	/* the same through an extended CQ */
	struct ibv_cq_init_attr_ex xa = {.cqe = 8,
					 .wc_flags = IBV_WC_EX_WITH_BYTE_LEN |
						     IBV_WC_EX_WITH_QP_NUM};
	struct ibv_poll_cq_attr pa = {0};
	struct ibv_cq_ex *cqx = ibv_create_cq_ex(ctx, &xa);

	TEST_ASSERT_NOT_NULL(cqx, "cq_ex");
	wr.wr_id = 0xdef;
	TEST_ASSERT_EQUAL(ibv_post_srq_recv(srq, &wr, &bad), 0, "post");
	TEST_ASSERT(dpv_mlx5_rq_fetch(&to_dsrq(srq)->ring, &rwr), "fetch");
	ci.wqe_counter = rwr.wqe_index;
	ci.byte_len = 12;
	TEST_ASSERT_EQUAL(dpv_mlx5_cq_push(&to_dcq_ex(cqx)->ring, &ci), 0,
			  "push");
	TEST_ASSERT_EQUAL(ibv_start_poll(cqx, &pa), 0, "start");
	TEST_ASSERT_EQUAL(cqx->wr_id, 0xdef, "wr_id");
	TEST_ASSERT_EQUAL(cqx->status, IBV_WC_SUCCESS, "status");
	TEST_ASSERT_EQUAL(ibv_wc_read_opcode(cqx), IBV_WC_RECV, "opcode");
	TEST_ASSERT_EQUAL(ibv_wc_read_byte_len(cqx), 12, "byte_len");
	TEST_ASSERT_EQUAL(ibv_wc_read_qp_num(cqx), 0x77, "qp");
	TEST_ASSERT_EQUAL(ibv_next_poll(cqx), ENOENT, "no more");
	ibv_end_poll(cqx);
	TEST_ASSERT_EQUAL(ibv_start_poll(cqx, &pa), ENOENT, "empty");
	TEST_ASSERT_EQUAL(ibv_destroy_cq(ibv_cq_ex_to_cq(cqx)), 0, "cq_ex");
	TEST_ASSERT_EQUAL(ibv_destroy_srq(srq), 0, "srq");
	TEST_ASSERT(dpv_srq_lookup(to_dctx(ctx)->dev, srqn) == NULL,
		    "number released");
	TEST_ASSERT_EQUAL(ibv_destroy_cq(cq), 0, "cq");
	TEST_ASSERT_EQUAL(ibv_dereg_mr(mr), 0, "mr");
	return TEST_SUCCESS;
}

/*
 * ibv_resize_cq on the device's engine: UD traffic between two QPs of the
 * device lands on one CQ; the CQ is resized with completions pending and
 * again while the engine is producing, and every completion comes back
 * in order.
 */
static uint32_t
cq_pending(struct ibv_cq *c)
{
	const struct dpv_mlx5_cq *r = &to_dcq(c)->ring;

	return __atomic_load_n(&r->prod_index, __ATOMIC_ACQUIRE) -
	       r->cons_index;
}

static int
resize_post_sends(struct ibv_qp *qa, struct ibv_ah *ah, uint32_t dqpn,
		  uint32_t lkey, uint64_t first, int n)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)buf + 4096, .length = 64, .lkey = lkey};
	struct ibv_send_wr wr = {.sg_list = &sge,
				 .num_sge = 1,
				 .opcode = IBV_WR_SEND,
				 .send_flags = IBV_SEND_SIGNALED};
	struct ibv_send_wr *bad;
	int i;

	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = dqpn;
	wr.wr.ud.remote_qkey = 0x11111111;
	for (i = 0; i < n; i++) {
		wr.wr_id = first + (uint64_t)i;
		if (ibv_post_send(qa, &wr, &bad) != 0)
			return -1;
	}
	return 0;
}

static int
test_cq_resize_traffic(void)
{
	struct ibv_qp_init_attr qia = {.qp_type = IBV_QPT_UD,
				       .cap = {.max_send_wr = 16,
					       .max_recv_wr = 16,
					       .max_send_sge = 1,
					       .max_recv_sge = 1}};
	struct ibv_qp_attr qa_attr = {
		.qp_state = IBV_QPS_INIT, .port_num = 1, .qkey = 0x11111111};
	struct ibv_ah_attr aa = {
		.is_global = 1, .port_num = 1, .grh = {.hop_limit = 64}};
	struct ibv_recv_wr rwr, *rbad;
	struct ibv_sge rsge;
	struct ibv_wc wc[8];
	struct ibv_qp *qa, *qb;
	struct ibv_mr *mr;
	struct ibv_ah *ah;
	struct ibv_cq *c;
	uint64_t next_send = 1, next_recv = 100;
	int i, k;

	if (to_dctx(ctx)->dev->engine == NULL)
		return TEST_SKIPPED;
	TEST_ASSERT_EQUAL(ibv_query_gid(ctx, 1, 0, &aa.grh.dgid), 0, "gid");
	mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	c = ibv_create_cq(ctx, 7, NULL, NULL, 0);
	TEST_ASSERT(mr && c, "setup");
	TEST_ASSERT_EQUAL(c->cqe, 7, "");
	qia.send_cq = qia.recv_cq = c;
	qa = ibv_create_qp(pd, &qia);
	qb = ibv_create_qp(pd, &qia);
	ah = ibv_create_ah(pd, &aa);
	TEST_ASSERT(qa && qb && ah, "QPs and AH: %s", strerror(errno));
	for (i = 0; i < 2; i++) {
		struct ibv_qp *q = i ? qb : qa;
		int m = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			IBV_QP_QKEY;

		qa_attr.qp_state = IBV_QPS_INIT;
		TEST_ASSERT_EQUAL(ibv_modify_qp(q, &qa_attr, m), 0, "INIT");
		qa_attr.qp_state = IBV_QPS_RTR;
		TEST_ASSERT_EQUAL(ibv_modify_qp(q, &qa_attr, IBV_QP_STATE), 0,
				  "RTR");
		qa_attr.qp_state = IBV_QPS_RTS;
		TEST_ASSERT_EQUAL(ibv_modify_qp(q, &qa_attr,
						IBV_QP_STATE | IBV_QP_SQ_PSN),
				  0, "RTS");
	}
	memset(&rwr, 0, sizeof(rwr));
	rwr.sg_list = &rsge;
	rwr.num_sge = 1;
	for (i = 0; i < 16; i++) {
		rsge.addr = (uintptr_t)buf + (uint64_t)i * 256;
		rsge.length = 256;
		rsge.lkey = mr->lkey;
		rwr.wr_id = 100 + (uint64_t)i;
		TEST_ASSERT_EQUAL(ibv_post_recv(qb, &rwr, &rbad), 0, "recv");
	}

	/* 3 sends: 6 completions pending in a CQ of 7 */
	TEST_ASSERT_EQUAL(resize_post_sends(qa, ah, qb->qp_num, mr->lkey, 1, 3),
			  0, "");
	for (i = 0; i < 2000 && cq_pending(c) < 6; i++) {
		ibv_poll_cq(c, 0, wc); /* progress only */
		usleep(1000);
	}
	TEST_ASSERT_EQUAL(cq_pending(c), 6, "completions pending");
	TEST_ASSERT_EQUAL(ibv_resize_cq(c, 5), EINVAL, "fewer than pending");
	TEST_ASSERT_EQUAL(c->cqe, 7, "unchanged");
	TEST_ASSERT_EQUAL(ibv_resize_cq(c, 33), 0, "grow");
	TEST_ASSERT_EQUAL(c->cqe, 63, "power of two minus one");
	/* 8 more sends, resized while the engine completes them */
	TEST_ASSERT_EQUAL(resize_post_sends(qa, ah, qb->qp_num, mr->lkey, 4, 8),
			  0, "");
	TEST_ASSERT_EQUAL(ibv_resize_cq(c, 31), 0, "shrink mid-traffic");
	TEST_ASSERT_EQUAL(c->cqe, 31, "");
	for (i = 0; i < 200000 && (next_send < 12 || next_recv < 111); i++) {
		int n = ibv_poll_cq(c, 8, wc);

		TEST_ASSERT(n >= 0, "poll %d", n);
		for (k = 0; k < n; k++) {
			TEST_ASSERT_EQUAL(wc[k].status, IBV_WC_SUCCESS, "");
			if (wc[k].opcode == IBV_WC_SEND) {
				TEST_ASSERT_EQUAL(wc[k].wr_id, next_send,
						  "send order");
				next_send++;
			} else {
				TEST_ASSERT_EQUAL(wc[k].opcode, IBV_WC_RECV,
						  "");
				TEST_ASSERT_EQUAL(wc[k].wr_id, next_recv,
						  "receive order");
				TEST_ASSERT_EQUAL(wc[k].byte_len, 64 + 40, "");
				next_recv++;
			}
		}
		if (i % 1000 == 999)
			usleep(1000);
	}
	TEST_ASSERT_EQUAL(next_send, 12, "all send completions");
	TEST_ASSERT_EQUAL(next_recv, 111, "all receive completions");
	TEST_ASSERT_EQUAL(ibv_poll_cq(c, 8, wc), 0, "nothing more");
	TEST_ASSERT_EQUAL(ibv_resize_cq(c, 1), 0, "empty: any size");
	TEST_ASSERT_EQUAL(c->cqe, 1, "");
	TEST_ASSERT_EQUAL(ibv_destroy_ah(ah), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_qp(qa), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_qp(qb), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_cq(c), 0, "");
	TEST_ASSERT_EQUAL(ibv_dereg_mr(mr), 0, "");
	return TEST_SUCCESS;
}

/* Wait (about ms milliseconds, running the engine through c) until the
 * engine wrote n completions to cq. @return the completions pending. */
static uint32_t
wait_pending(struct ibv_cq *c, struct ibv_cq *cq, uint32_t n, int ms)
{
	struct ibv_wc wc;
	int i;

	for (i = 0; i < ms * 10 && cq_pending(cq) < n; i++) {
		ibv_poll_cq(c, 0, &wc); /* progress only */
		usleep(100);
	}
	return cq_pending(cq);
}

/*
 * The SRQ limit fires when the engine consumes WQEs, not when their
 * completions are polled: 10 WQEs posted, limit 8, UD SENDs into the SRQ
 * while its CQ is never polled. 2 SENDs (8 left): nothing; the third (7
 * left): IBV_EVENT_SRQ_LIMIT_REACHED, the limit disarms; 2 more: no
 * second event, also not when the completions are polled.
 */
static int
test_srq_limit_traffic(void)
{
	struct ibv_srq_init_attr sia = {.attr = {.max_wr = 16, .max_sge = 1}};
	struct ibv_qp_init_attr qia = {.qp_type = IBV_QPT_UD,
				       .cap = {.max_send_wr = 16,
					       .max_recv_wr = 16,
					       .max_send_sge = 1,
					       .max_recv_sge = 1}};
	struct ibv_qp_attr qattr = {
		.qp_state = IBV_QPS_INIT, .port_num = 1, .qkey = 0x11111111};
	struct ibv_ah_attr aa = {
		.is_global = 1, .port_num = 1, .grh = {.hop_limit = 64}};
	struct ibv_srq_attr lim = {.srq_limit = 8};
	struct ibv_async_event ev;
	struct ibv_recv_wr rwr, *rbad;
	struct ibv_sge rsge;
	struct ibv_wc wc[8];
	struct ibv_qp *qa, *qb;
	struct ibv_cq *ca, *cb;
	struct ibv_srq *srq;
	struct ibv_mr *mr;
	struct ibv_ah *ah;
	int i, n;

	if (to_dctx(ctx)->dev->engine == NULL)
		return TEST_SKIPPED;
	while (ibv_get_async_event(ctx, &ev) == 0) /* left by other cases */
		ibv_ack_async_event(&ev);
	TEST_ASSERT_EQUAL(ibv_query_gid(ctx, 1, 0, &aa.grh.dgid), 0, "gid");
	mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	ca = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	cb = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	srq = ibv_create_srq(pd, &sia);
	TEST_ASSERT(mr && ca && cb && srq, "setup: %s", strerror(errno));
	qia.send_cq = qia.recv_cq = ca;
	qa = ibv_create_qp(pd, &qia);
	qia.send_cq = qia.recv_cq = cb;
	qia.srq = srq;
	qb = ibv_create_qp(pd, &qia);
	ah = ibv_create_ah(pd, &aa);
	TEST_ASSERT(qa && qb && ah, "QPs and AH: %s", strerror(errno));
	for (i = 0; i < 2; i++) {
		struct ibv_qp *q = i ? qb : qa;

		qattr.qp_state = IBV_QPS_INIT;
		TEST_ASSERT_EQUAL(
			ibv_modify_qp(q, &qattr,
				      IBV_QP_STATE | IBV_QP_PKEY_INDEX |
					      IBV_QP_PORT | IBV_QP_QKEY),
			0, "INIT");
		qattr.qp_state = IBV_QPS_RTR;
		TEST_ASSERT_EQUAL(ibv_modify_qp(q, &qattr, IBV_QP_STATE), 0,
				  "RTR");
		qattr.qp_state = IBV_QPS_RTS;
		TEST_ASSERT_EQUAL(
			ibv_modify_qp(q, &qattr, IBV_QP_STATE | IBV_QP_SQ_PSN),
			0, "RTS");
	}
	memset(&rwr, 0, sizeof(rwr));
	rwr.sg_list = &rsge;
	rwr.num_sge = 1;
	for (i = 0; i < 10; i++) {
		rsge.addr = (uintptr_t)buf + (uint64_t)i * 256;
		rsge.length = 256;
		rsge.lkey = mr->lkey;
		rwr.wr_id = 100 + (uint64_t)i;
		TEST_ASSERT_EQUAL(ibv_post_srq_recv(srq, &rwr, &rbad), 0, "");
	}
	TEST_ASSERT_EQUAL(ibv_modify_srq(srq, &lim, IBV_SRQ_LIMIT), 0, "arm");

	TEST_ASSERT_EQUAL(resize_post_sends(qa, ah, qb->qp_num, mr->lkey, 1, 2),
			  0, "");
	TEST_ASSERT_EQUAL(wait_pending(ca, cb, 2, 2000), 2, "2 consumed");
	TEST_ASSERT(ibv_get_async_event(ctx, &ev) != 0, "8 left: no event");
	TEST_ASSERT_EQUAL(ibv_query_srq(srq, &lim), 0, "");
	TEST_ASSERT_EQUAL(lim.srq_limit, 8, "still armed");

	TEST_ASSERT_EQUAL(resize_post_sends(qa, ah, qb->qp_num, mr->lkey, 3, 1),
			  0, "");
	TEST_ASSERT_EQUAL(wait_pending(ca, cb, 3, 2000), 3, "3 consumed");
	TEST_ASSERT_EQUAL(ibv_get_async_event(ctx, &ev), 0,
			  "7 left, CQ not polled: limit event");
	TEST_ASSERT_EQUAL(ev.event_type, IBV_EVENT_SRQ_LIMIT_REACHED, "");
	TEST_ASSERT(ev.element.srq == srq, "element");
	ibv_ack_async_event(&ev);
	TEST_ASSERT_EQUAL(ibv_query_srq(srq, &lim), 0, "");
	TEST_ASSERT_EQUAL(lim.srq_limit, 0, "disarmed");

	TEST_ASSERT_EQUAL(resize_post_sends(qa, ah, qb->qp_num, mr->lkey, 4, 2),
			  0, "");
	TEST_ASSERT_EQUAL(wait_pending(ca, cb, 5, 2000), 5, "5 consumed");
	n = 0;
	for (i = 0; i < 100 && n < 5; i++)
		n += ibv_poll_cq(cb, 5 - n, wc + n);
	TEST_ASSERT_EQUAL(n, 5, "receive completions");
	for (i = 0; i < 5; i++) {
		TEST_ASSERT_EQUAL(wc[i].status, IBV_WC_SUCCESS, "");
		TEST_ASSERT_EQUAL(wc[i].wr_id, 100 + (uint64_t)i, "SRQ order");
	}
	TEST_ASSERT(ibv_get_async_event(ctx, &ev) != 0, "fired once only");
	while (ibv_poll_cq(ca, 8, wc) > 0) /* the send completions */
		;
	TEST_ASSERT_EQUAL(ibv_destroy_ah(ah), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_qp(qa), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_qp(qb), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_srq(srq), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_cq(ca), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_cq(cb), 0, "");
	TEST_ASSERT_EQUAL(ibv_dereg_mr(mr), 0, "");
	return TEST_SUCCESS;
}

/* Next async event of c within about ms milliseconds (the fd is
 * non-blocking; polling cq runs the engine). 0 or -1. */
static int
wait_async(struct ibv_context *c, struct ibv_cq *cq, struct ibv_async_event *ev,
	   int ms)
{
	struct ibv_wc wc;
	int i;

	for (i = 0; i < ms * 10; i++) {
		if (ibv_get_async_event(c, ev) == 0)
			return 0;
		ibv_poll_cq(cq, 0, &wc);
		usleep(100);
	}
	return -1;
}

static int
modify_state(struct ibv_qp *q, struct ibv_qp_attr *a, enum ibv_qp_state s,
	     int mask)
{
	a->qp_state = s;
	return ibv_modify_qp(q, a, IBV_QP_STATE | mask);
}

/*
 * ibv_open_qp: a second handle (another context) to an XRC_RECV QP of a
 * domain shared through a file. Refused requests give EINVAL; both
 * handles modify and query the one QP; the SQ drained event reaches each
 * handle; the QP lives until its last handle is destroyed.
 */
static int
test_open_qp(void)
{
	struct ibv_xrcd_init_attr xa = {.comp_mask = IBV_XRCD_INIT_ATTR_FD |
						     IBV_XRCD_INIT_ATTR_OFLAGS,
					.oflags = O_CREAT};
	struct ibv_qp_init_attr uia = {.qp_type = IBV_QPT_UD,
				       .cap = {.max_send_wr = 1,
					       .max_recv_wr = 1,
					       .max_send_sge = 1,
					       .max_recv_sge = 1}};
	struct ibv_qp_init_attr_ex qia = {.qp_type = IBV_QPT_XRC_RECV,
					  .comp_mask = IBV_QP_INIT_ATTR_XRCD};
	struct ibv_qp_open_attr oa, o;
	struct ibv_qp_init_attr init;
	struct ibv_async_event ev;
	struct ibv_qp_attr a;
	struct ibv_context *ctx2;
	struct ibv_xrcd *x1, *x2, *xo;
	struct ibv_qp *q, *h, *h2, *ud;
	struct ibv_cq *c;
	char path[] = "/tmp/dpv-openqp-XXXXXX";
	int marker, fd, k;

	if (!DPV_CAP_XRC || to_dctx(ctx)->dev->engine == NULL)
		return TEST_SKIPPED;
	ctx2 = ibv_open_device(devs[0]);
	TEST_ASSERT_NOT_NULL(ctx2, "second context");
	fcntl(ctx2->async_fd, F_SETFL,
	      fcntl(ctx2->async_fd, F_GETFL) | O_NONBLOCK);
	while (ibv_get_async_event(ctx, &ev) == 0) /* left by other cases */
		ibv_ack_async_event(&ev);
	fd = mkstemp(path);
	TEST_ASSERT(fd >= 0, "tmp file");
	unlink(path);
	xa.fd = fd;
	x1 = ibv_open_xrcd(ctx, &xa);
	x2 = ibv_open_xrcd(ctx2, &xa);
	xa.fd = -1;
	xo = ibv_open_xrcd(ctx, &xa);
	c = ibv_create_cq(ctx, 4, NULL, NULL, 0);
	TEST_ASSERT(x1 && x2 && xo && c, "setup: %s", strerror(errno));
	qia.xrcd = x1;
	q = ibv_create_qp_ex(ctx, &qia);
	uia.send_cq = uia.recv_cq = c;
	ud = ibv_create_qp(pd, &uia);
	TEST_ASSERT(q && ud, "QPs: %s", strerror(errno));

	oa = (struct ibv_qp_open_attr){
		.comp_mask = IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_XRCD |
			     IBV_QP_OPEN_ATTR_TYPE | IBV_QP_OPEN_ATTR_CONTEXT,
		.qp_num = q->qp_num,
		.xrcd = x2,
		.qp_context = &marker,
		.qp_type = IBV_QPT_XRC_RECV};
	o = oa;
	o.comp_mask &= ~(uint32_t)IBV_QP_OPEN_ATTR_NUM;
	EXPECT_NULL_ERRNO(ibv_open_qp(ctx2, &o), EINVAL, "no number");
	o = oa;
	o.comp_mask |= IBV_QP_OPEN_ATTR_RESERVED;
	EXPECT_NULL_ERRNO(ibv_open_qp(ctx2, &o), EINVAL, "unknown bit");
	o = oa;
	o.qp_type = IBV_QPT_RC;
	EXPECT_NULL_ERRNO(ibv_open_qp(ctx2, &o), EINVAL, "type RC");
	o = oa;
	o.qp_num = ud->qp_num;
	EXPECT_NULL_ERRNO(ibv_open_qp(ctx2, &o), EINVAL, "a UD QP");
	o.qp_num = 0xffffff;
	EXPECT_NULL_ERRNO(ibv_open_qp(ctx2, &o), EINVAL, "no such QP");
	o = oa;
	o.xrcd = xo;
	EXPECT_NULL_ERRNO(ibv_open_qp(ctx2, &o), EINVAL, "other domain");

	h = ibv_open_qp(ctx2, &oa);
	TEST_ASSERT_NOT_NULL(h, "open: %s", strerror(errno));
	TEST_ASSERT(h != q && h->qp_num == q->qp_num && h->context == ctx2 &&
			    h->qp_context == &marker &&
			    h->qp_type == IBV_QPT_XRC_RECV &&
			    h->state == IBV_QPS_RESET,
		    "the new handle");
	/* each handle drives the one QP */
	memset(&a, 0, sizeof(a));
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
	TEST_ASSERT_EQUAL(modify_state(h, &a, IBV_QPS_INIT,
				       IBV_QP_PKEY_INDEX | IBV_QP_PORT |
					       IBV_QP_ACCESS_FLAGS),
			  0, "INIT through the opened handle");
	TEST_ASSERT_EQUAL(ibv_query_qp(q, &a, IBV_QP_STATE, &init), 0, "");
	TEST_ASSERT_EQUAL(a.qp_state, IBV_QPS_INIT, "seen by the creator");
	memset(&a, 0, sizeof(a));
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.hop_limit = 64;
	TEST_ASSERT_EQUAL(ibv_query_gid(ctx, 1, 0, &a.ah_attr.grh.dgid), 0, "");
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = ud->qp_num;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	TEST_ASSERT_EQUAL(modify_state(q, &a, IBV_QPS_RTR,
				       IBV_QP_AV | IBV_QP_PATH_MTU |
					       IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
					       IBV_QP_MAX_DEST_RD_ATOMIC |
					       IBV_QP_MIN_RNR_TIMER),
			  0, "RTR through the creator");
	TEST_ASSERT_EQUAL(ibv_query_qp(h, &a, IBV_QP_STATE, &init), 0, "");
	TEST_ASSERT_EQUAL(a.qp_state, IBV_QPS_RTR, "seen by the opener");
	TEST_ASSERT(init.qp_context == &marker, "the opener's context");
	TEST_ASSERT_EQUAL(h->state, IBV_QPS_RTR, "");
	memset(&a, 0, sizeof(a));
	a.timeout = 14;
	TEST_ASSERT_EQUAL(modify_state(h, &a, IBV_QPS_RTS,
				       IBV_QP_SQ_PSN | IBV_QP_TIMEOUT),
			  0, "RTS");
	/* SQD with notify: nothing to drain, each handle gets the event */
	a.en_sqd_async_notify = 1;
	TEST_ASSERT_EQUAL(
		modify_state(h, &a, IBV_QPS_SQD, IBV_QP_EN_SQD_ASYNC_NOTIFY), 0,
		"SQD");
	for (k = 0; k < 2; k++) {
		TEST_ASSERT_EQUAL(wait_async(k ? ctx2 : ctx, c, &ev, 2000), 0,
				  "SQ drained event, handle %d", k);
		TEST_ASSERT_EQUAL(ev.event_type, IBV_EVENT_SQ_DRAINED, "");
		TEST_ASSERT(ev.element.qp == (k ? h : q), "element");
		ibv_ack_async_event(&ev);
	}

	/* the QP outlives its creator's handle */
	TEST_ASSERT_EQUAL(ibv_destroy_qp(q), 0, "destroy the creator's");
	TEST_ASSERT_EQUAL(ibv_query_qp(h, &a, IBV_QP_STATE, &init), 0, "");
	TEST_ASSERT_EQUAL(a.qp_state, IBV_QPS_SQD, "still there");
	oa.xrcd = x1;
	h2 = ibv_open_qp(ctx, &oa);
	TEST_ASSERT_NOT_NULL(h2, "reopen: %s", strerror(errno));
	TEST_ASSERT_EQUAL(ibv_close_xrcd(xo), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_qp(h), 0, "");
	TEST_ASSERT_EQUAL(ibv_query_qp(h2, &a, IBV_QP_STATE, &init), 0, "");
	TEST_ASSERT_EQUAL(a.qp_state, IBV_QPS_SQD, "");
	TEST_ASSERT_EQUAL(ibv_destroy_qp(h2), 0, "the last handle");
	EXPECT_NULL_ERRNO(ibv_open_qp(ctx2, &oa), EINVAL, "destroyed");
	TEST_ASSERT_EQUAL(ibv_close_xrcd(x2), 0, "");
	TEST_ASSERT_EQUAL(ibv_close_xrcd(x1), 0, "domain released");
	TEST_ASSERT_EQUAL(ibv_destroy_qp(ud), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_cq(c), 0, "");
	TEST_ASSERT_EQUAL(ibv_close_device(ctx2), 0, "");
	close(fd);
	return TEST_SUCCESS;
}

/* SRQ (and QP) resize is not offered: the verbs say so, the
 * capabilities agree, and nothing changes. CQ moderation:
 * test_verbs_cqmod.c. */
static int
test_srq_modify_unsupported(void)
{
	struct ibv_srq_init_attr ia = {.attr = {.max_wr = 8, .max_sge = 1}};
	struct ibv_device_attr_ex dx;
	struct ibv_srq_attr sa;
	struct ibv_srq *srq;

	TEST_ASSERT_EQUAL(ibv_query_device_ex(ctx, NULL, &dx), 0, "");
	TEST_ASSERT(!(dx.orig_attr.device_cap_flags & IBV_DEVICE_SRQ_RESIZE),
		    "SRQ resize not advertised");
	TEST_ASSERT(!(dx.orig_attr.device_cap_flags & IBV_DEVICE_RESIZE_MAX_WR),
		    "QP resize not advertised");
	srq = ibv_create_srq(pd, &ia);
	TEST_ASSERT_NOT_NULL(srq, "");
	memset(&sa, 0, sizeof(sa));
	sa.max_wr = 32;
	sa.srq_limit = 2;
	TEST_ASSERT_EQUAL(ibv_modify_srq(srq, &sa, IBV_SRQ_MAX_WR), EOPNOTSUPP,
			  "resize");
	TEST_ASSERT_EQUAL(
		ibv_modify_srq(srq, &sa, IBV_SRQ_MAX_WR | IBV_SRQ_LIMIT),
		EOPNOTSUPP, "resize and limit");
	memset(&sa, 0, sizeof(sa));
	TEST_ASSERT_EQUAL(ibv_query_srq(srq, &sa), 0, "");
	TEST_ASSERT_EQUAL(sa.max_wr, ia.attr.max_wr, "size unchanged");
	TEST_ASSERT_EQUAL(sa.srq_limit, 0, "limit not armed");
	TEST_ASSERT_EQUAL(ibv_destroy_srq(srq), 0, "");
	return TEST_SUCCESS;
}

/* ECE: our vendor ID and no options; ibv_set_ece takes only that. */
static int
test_ece(void)
{
	struct ibv_qp_init_attr ia = {.qp_type = IBV_QPT_RC,
				      .cap = {.max_send_wr = 1,
					      .max_recv_wr = 1,
					      .max_send_sge = 1,
					      .max_recv_sge = 1}};
	struct ibv_device_attr da;
	struct ibv_ece e, q;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	uint32_t vendor;

	TEST_ASSERT_EQUAL(ibv_query_device(ctx, &da), 0, "query device");
	cq = ibv_create_cq(ctx, 4, NULL, NULL, 0);
	TEST_ASSERT_NOT_NULL(cq, "cq: %s", strerror(errno));
	ia.send_cq = ia.recv_cq = cq;
	qp = ibv_create_qp(pd, &ia);
	TEST_ASSERT_NOT_NULL(qp, "qp: %s", strerror(errno));
	memset(&e, 0xa5, sizeof(e));
	TEST_ASSERT_EQUAL(ibv_query_ece(qp, &e), 0, "query");
	/* mlx5 personality: Mellanox's PCI vendor ID, as mlx5 reports */
	vendor = da.vendor_id == 0x02c9 ? 0x15b3 : da.vendor_id;
	TEST_ASSERT(e.vendor_id == vendor && e.options == 0 &&
			    e.comp_mask == 0,
		    "vendor 0x%x (want 0x%x) options 0x%x mask 0x%x",
		    e.vendor_id, vendor, e.options, e.comp_mask);
	q = e;
	TEST_ASSERT_EQUAL(ibv_set_ece(qp, &q), 0, "set what query gave");
	q.options = 1;
	errno = 0;
	TEST_ASSERT_EQUAL(ibv_set_ece(qp, &q), EINVAL, "unsupported option");
	TEST_ASSERT_EQUAL(errno, EINVAL, "errno");
	q = e;
	q.vendor_id ^= 1;
	TEST_ASSERT_EQUAL(ibv_set_ece(qp, &q), EINVAL, "other vendor");
	q = e;
	q.comp_mask = 1;
	TEST_ASSERT_EQUAL(ibv_set_ece(qp, &q), EINVAL, "comp_mask");
	memset(&q, 0, sizeof(q));
	TEST_ASSERT_EQUAL(ibv_query_ece(qp, &q), 0, "query again");
	TEST_ASSERT(q.vendor_id == vendor && q.options == 0,
		    "unchanged by refused sets");
	TEST_ASSERT_EQUAL(ibv_destroy_qp(qp), 0, "");
	TEST_ASSERT_EQUAL(ibv_destroy_cq(cq), 0, "");
	return TEST_SUCCESS;
}

static struct dpv_test_suite verbs_objs_suite = {
	.name = "verbs_objs",
	.setup = objs_setup,
	.teardown = objs_teardown,
	.cases =
		{
			TEST_CASE(test_pd),
			TEST_CASE(test_mr),
			TEST_CASE(test_rereg_mr),
			TEST_CASE(test_mr_key_space),
			TEST_CASE(test_mw),
			TEST_CASE(test_mw_engine_hooks),
			TEST_CASE(test_mr_dereg_bound),
			TEST_CASE(test_cq),
			TEST_CASE(test_cq_event_eintr),
			TEST_CASE(test_async_event_eintr),
			TEST_CASE(test_cq_ex),
			TEST_CASE(test_single_threaded_locks),
			TEST_CASE(test_cq_resize_traffic),
			TEST_CASE(test_srq_modify_unsupported),
			TEST_CASE(test_srq),
			TEST_CASE(test_srq_zero),
			TEST_CASE(test_srq_completion),
			TEST_CASE(test_srq_limit_traffic),
			TEST_CASE(test_xrc),
			TEST_CASE(test_open_qp),
			TEST_CASE(test_ah),
			TEST_CASE(test_parent_domain),
			TEST_CASE(test_unsupported_objects),
			TEST_CASE(test_ece),
			TEST_CASES_END(),
		},
};

static int
verbs_objs_autotest(void)
{
	return dpv_test_run_suite(&verbs_objs_suite);
}

DPV_TEST_REGISTER_FAST(verbs_objs_autotest, verbs_objs_autotest);
