/* SPDX-License-Identifier: BSD-3-Clause */
/* Memory key checks: every SGE, RETH and AtomicETH goes through here. */
#include <errno.h>
#include <inttypes.h>
#include <sys/mman.h>
#include <unistd.h>

#include "engine_int.h"
#include "mlx5_ring.h"

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

/* 1: the kernel populates, -1: it does not know the advice, 0: not probed */
static int populate_ok;

bool
dpv_engine_mem_fault_supported(void)
{
	static const uint8_t probe = 1; /* a page that is surely readable */
	int ok = __atomic_load_n(&populate_ok, __ATOMIC_RELAXED);
	uintptr_t pg;

	if (ok == 0) {
		pg = (uintptr_t)sysconf(_SC_PAGESIZE);
		ok = madvise((void *)((uintptr_t)&probe & ~(pg - 1)), pg,
			     MADV_POPULATE_READ) == 0
			     ? 1
			     : -1;
		__atomic_store_n(&populate_ok, ok, __ATOMIC_RELAXED);
	}
	return ok > 0;
}

int
dpv_engine_mem_fault(uint64_t va, uint64_t len, bool write)
{
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t start, end;

	if (len == 0)
		return 0;
	if (!dpv_engine_mem_fault_supported())
		return EOPNOTSUPP;
	/* no mapping can lie up there */
	if (va > UINTPTR_MAX || len > UINTPTR_MAX - va ||
	    va + len > UINTPTR_MAX - pg)
		return ENOMEM;
	start = (uintptr_t)va & ~(pg - 1);
	end = ((uintptr_t)(va + len) + pg - 1) & ~(pg - 1);
	/* EINTR: a signal came while the kernel faulted; a few tries */
	for (int i = 0; i < 4; i++) {
		if (madvise((void *)start, end - start,
			    write ? MADV_POPULATE_WRITE : MADV_POPULATE_READ) ==
		    0)
			return 0;
		if (errno != EINTR)
			break;
	}
	return errno;
}

/* The checks of an implicit on-demand region: PD, access, then the pages
 * of [va, va + len) faulted in as the access needs them (unmapped: out of
 * bounds; protected or not memory: no access). */
static enum dpv_key_status
check_implicit(const struct dpv_engine_key *k, uint32_t pdn, uint64_t va,
	       uint64_t len, uint32_t need, void **host)
{
	const uint32_t writes = IBV_ACCESS_LOCAL_WRITE |
				IBV_ACCESS_REMOTE_WRITE |
				IBV_ACCESS_REMOTE_ATOMIC;
	int rc;

	if (k->pdn != pdn)
		return DPV_KEY_BAD_PD;
	if ((k->access & need) != need)
		return DPV_KEY_BAD_ACCESS;
	if (va + len < va)
		return DPV_KEY_BAD_BOUNDS;
	rc = dpv_engine_mem_fault(va, len, (need & writes) != 0);
	if (rc == ENOMEM)
		return DPV_KEY_BAD_BOUNDS;
	if (rc != 0)
		return DPV_KEY_BAD_ACCESS;
	if (host)
		*host = (void *)(uintptr_t)va;
	return DPV_KEY_OK;
}

enum dpv_key_status
dpv_key_check(const struct dpv_engine_key *tbl, uint32_t max_keys, uint32_t key,
	      uint32_t pdn, uint32_t qpn, uint64_t va, uint64_t len,
	      uint32_t need, void **host)
{
	uint32_t idx = dpv_engine_key_index(key);

	if (len == 0) {
		if (host)
			*host = (void *)(uintptr_t)va;
		return DPV_KEY_OK;
	}
	if (idx >= max_keys)
		return DPV_KEY_BAD_KEY;
	return dpv_key_check_one(&tbl[idx], key, pdn, qpn, va, len, need, host);
}

/* An indirect key's own checks (its entries are checked as they are used):
 * its range is zero-based, [0, block * repeat). */
static enum dpv_key_status
check_indirect(const struct dpv_engine_key *k, uint32_t pdn, uint64_t va,
	       uint64_t len, uint32_t need, void **host)
{
	if (k->pdn != pdn)
		return DPV_KEY_BAD_PD;
	/* a signature key's bounds are checked in its own coordinates
	 * (dpv_sig_span()); remote access through one is not offered */
	if (unlikely(k->sig != NULL)) {
		if (need & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			    IBV_ACCESS_REMOTE_ATOMIC))
			return DPV_KEY_BAD_ACCESS;
	} else if (va > k->length || len > k->length - va) {
		return DPV_KEY_BAD_BOUNDS;
	}
	if ((k->access & need) != need)
		return DPV_KEY_BAD_ACCESS;
	if (host)
		*host = DPV_KEY_HOST_INDIRECT;
	return DPV_KEY_OK;
}

/* The checks of a region or a bound window k (valid, its key, bound):
 * PD, the window's QP, bounds, access. */
static __rte_always_inline enum dpv_key_status
check_direct(const struct dpv_engine_key *k, uint32_t pdn, uint32_t qpn,
	     uint64_t va, uint64_t len, uint32_t need, void **host)
{
	uint64_t off;

	if (k->pdn != pdn)
		return DPV_KEY_BAD_PD;
	if (k->type == DPV_ENGINE_KEY_MW2 && k->qpn != qpn)
		return DPV_KEY_BAD_QP;
	if (va < k->iova)
		return DPV_KEY_BAD_BOUNDS;
	off = va - k->iova;
	if (off > k->length || len > k->length - off)
		return DPV_KEY_BAD_BOUNDS;
	if ((k->access & need) != need)
		return DPV_KEY_BAD_ACCESS;
	if (host)
		*host = (void *)(uintptr_t)(k->addr + off);
	return DPV_KEY_OK;
}

enum dpv_key_status
dpv_key_check_one(const struct dpv_engine_key *k, uint32_t key, uint32_t pdn,
		  uint32_t qpn, uint64_t va, uint64_t len, uint32_t need,
		  void **host)
{
	if (len == 0) {
		if (host)
			*host = (void *)(uintptr_t)va;
		return DPV_KEY_OK;
	}
	if (k == NULL || !k->valid || k->key != key)
		return DPV_KEY_BAD_KEY;
	if (k->type != DPV_ENGINE_KEY_MR) {
		if (k->type == DPV_ENGINE_KEY_IMPLICIT)
			return check_implicit(k, pdn, va, len, need, host);
		if (!k->bound)
			return DPV_KEY_BAD_KEY;
		if (k->type == DPV_ENGINE_KEY_INDIRECT)
			return check_indirect(k, pdn, va, len, need, host);
	}
	return check_direct(k, pdn, qpn, va, len, need, host);
}

#define MW_REMOTE                                                              \
	(IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |                    \
	 IBV_ACCESS_REMOTE_ATOMIC)

enum ibv_wc_status
dpv_key_bind_apply(struct dpv_engine_key *mw, const struct dpv_engine_key *mr,
		   const struct dpv_wr_bind *b, uint32_t pdn, uint32_t qpn)
{
	uint8_t want = b->type2 ? DPV_ENGINE_KEY_MW2 : DPV_ENGINE_KEY_MW1;
	struct dpv_engine_key n;
	uint64_t off;

	if (mw == NULL || !mw->valid || mw->type != want || mw->pdn != pdn ||
	    dpv_engine_key_index(mw->key) != dpv_engine_key_index(b->mw_rkey))
		return IBV_WC_MW_BIND_ERR;
	if (b->type2 && mw->bound)
		return IBV_WC_MW_BIND_ERR; /* invalidate it first */
	n = *mw;
	n.key = dpv_engine_key_index(mw->key) << 8 | b->new_key;
	n.bound = 0;
	n.addr = n.iova = n.length = 0;
	n.access = 0;
	n.qpn = 0;
	if (b->length) {
		if (mr == NULL || !mr->valid || mr->type != DPV_ENGINE_KEY_MR ||
		    mr->key != b->mr_lkey || mr->pdn != pdn ||
		    !(mr->access & IBV_ACCESS_MW_BIND))
			return IBV_WC_MW_BIND_ERR;
		if (b->addr < mr->iova)
			return IBV_WC_MW_BIND_ERR;
		off = b->addr - mr->iova;
		if (off > mr->length || b->length > mr->length - off)
			return IBV_WC_MW_BIND_ERR;
		if ((b->access &
		     (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)) &&
		    !(mr->access & IBV_ACCESS_LOCAL_WRITE))
			return IBV_WC_MW_BIND_ERR;
		n.addr = mr->addr + off;
		n.iova = b->zero_based ? 0 : b->addr;
		n.length = b->length;
		n.access = b->access & MW_REMOTE;
		n.qpn = b->type2 ? qpn : 0;
		n.bound = 1;
	}
	*mw = n;
	return IBV_WC_SUCCESS;
}

bool
dpv_key_layout_map(const struct dpv_engine_key *k, uint64_t off,
		   uint32_t *lkey, uint64_t *addr, uint64_t *run)
{
	uint64_t rep, in;

	if (k->block == 0 || off >= k->length)
		return false;
	rep = off / k->block;
	in = off % k->block;
	for (uint32_t i = 0; i < k->nklm; i++) {
		const struct dpv_klm *e = &k->klm[i];

		if (in < e->len) {
			*lkey = e->lkey;
			*addr = e->addr + rep * e->stride + in;
			*run = e->len - in;
			return true;
		}
		in -= e->len;
	}
	return false;
}

#define MKEY_ACCESS                                                            \
	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |                    \
	 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)

enum ibv_wc_status
dpv_key_layout_check(const struct dpv_engine_key *mk, uint32_t max_entries,
		     const struct dpv_wr_umr *u, const struct dpv_klm *ent,
		     uint32_t pdn, uint64_t *block)
{
	uint64_t sum = 0;

	if (mk == NULL || !mk->valid || mk->type != DPV_ENGINE_KEY_INDIRECT ||
	    mk->key != u->mkey || mk->pdn != pdn ||
	    (mk->bound && !(u->set & DPV_UMR_RECONF)))
		return IBV_WC_LOC_PROT_ERR;
	if ((u->set & DPV_UMR_SET_ACCESS) &&
	    (u->access & ~(unsigned int)MKEY_ACCESS))
		return IBV_WC_LOC_PROT_ERR;
	*block = 0;
	if (!(u->set & DPV_UMR_SET_LAYOUT))
		return IBV_WC_SUCCESS;
	if (u->num == 0 || u->num + (u->repeat ? 1 : 0) > max_entries)
		return IBV_WC_LOC_PROT_ERR;
	for (uint32_t i = 0; i < u->num; i++)
		sum += ent[i].len;
	if (sum == 0)
		return IBV_WC_LOC_PROT_ERR;
	*block = sum;
	return IBV_WC_SUCCESS;
}

int
dpv_key_invalidate_check(const struct dpv_engine_key *k, uint32_t key,
			 uint32_t pdn, uint32_t qpn, bool remote, bool allow_mr)
{
	if (k == NULL || !k->valid || k->key != key)
		return -ENOENT;
	if (k->pdn != pdn)
		return -EACCES;
	switch (k->type) {
	case DPV_ENGINE_KEY_MR:
	case DPV_ENGINE_KEY_IMPLICIT:
		return allow_mr ? 0 : -EACCES;
	case DPV_ENGINE_KEY_MW2:
		if (!k->bound || (remote && k->qpn != qpn))
			return -EACCES;
		return 0;
	case DPV_ENGINE_KEY_INDIRECT:
		return remote && !k->remote_inv ? -EACCES : 0;
	default:
		return -EACCES; /* type 1 windows: bind with length 0 */
	}
}

const char *
dpv_key_status_str(enum dpv_key_status s)
{
	static const char *const names[] = {
		[DPV_KEY_OK] = "ok",
		[DPV_KEY_BAD_KEY] = "bad key",
		[DPV_KEY_BAD_PD] = "PD mismatch",
		[DPV_KEY_BAD_BOUNDS] = "out of bounds",
		[DPV_KEY_BAD_ACCESS] = "access denied",
		[DPV_KEY_BAD_QP] = "window bound to another QP",
	};

	if ((unsigned)s >= sizeof(names) / sizeof(names[0]))
		return "?";
	return names[s];
}

/* ------------------------------------------------ the engine's key users */

/* the version word of an empty cache entry: odd, so never a hit */
const uint32_t dpv_ekcache_never = 1;

/* key_lookup's answer for key through the cache (conf.key_version): a
 * hit costs a load of the entry's version word; a miss asks key_lookup
 * and keeps the answer if the word did not move meanwhile. */
static const struct dpv_engine_key *
key_get_cached(struct dpv_engine *e, uint32_t key, struct dpv_engine_key *tmp)
{
	struct dpv_ekcache *c =
		&e->kcache[dpv_engine_key_index(key) & (DPV_EKCACHE_SIZE - 1)];
	const uint32_t *snp;
	uint32_t sn;
	bool live;

	if (likely(c->key == key &&
		   __atomic_load_n(c->snp, __ATOMIC_ACQUIRE) == c->sn))
		return c->live ? &c->k : NULL;
	snp = e->conf.key_version(e->conf.key_lookup_arg, key);
	sn = snp != NULL ? __atomic_load_n(snp, __ATOMIC_ACQUIRE) : 1;
	live = e->conf.key_lookup(e->conf.key_lookup_arg, key, tmp);
	tmp->bound = 1; /* the hook answers false for unbound keys */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if ((sn & 1) == 0 && __atomic_load_n(snp, __ATOMIC_RELAXED) == sn) {
		c->key = key;
		c->sn = sn;
		c->snp = snp;
		c->live = live;
		c->k = *tmp;
	} else if (c->key == key) {
		c->key = 0;
	}
	return live ? tmp : NULL;
}

/* The entry of key: a copy from the key_lookup hook in *tmp, or the slot
 * of the engine's own table; NULL if there is none. */
static inline const struct dpv_engine_key *
key_get(struct dpv_engine *e, uint32_t key, struct dpv_engine_key *tmp)
{
	uint32_t idx = dpv_engine_key_index(key);

	if (e->conf.key_lookup != NULL) {
		if (e->conf.key_version != NULL)
			return key_get_cached(e, key, tmp);
		if (!e->conf.key_lookup(e->conf.key_lookup_arg, key, tmp))
			return NULL;
		tmp->bound = 1; /* the hook answers false for unbound keys */
		return tmp;
	}
	return idx < e->max_keys ? &e->keys[idx] : NULL;
}

static void
key_error(struct dpv_engine *e, struct dpv_eqp *qp, uint32_t key, uint64_t va,
	  uint64_t len, enum dpv_key_status st)
{
	e->st.key_errors++;
	ENGINE_LOG(DEBUG, "qp %u: key 0x%x va 0x%" PRIx64 " len %" PRIu64 ": %s",
		   qp->qpn, key, va, len, dpv_key_status_str(st));
}

/* A direct key (a region or a window) only. */
static inline enum dpv_key_status
key_direct(struct dpv_engine *e, struct dpv_eqp *qp, uint32_t key, uint64_t va,
	   uint64_t len, uint32_t need, void **host)
{
	struct dpv_engine_key tmp;
	const struct dpv_engine_key *k = len ? key_get(e, key, &tmp) : NULL;
	enum dpv_key_status st;

	st = dpv_key_check_one(k, key, qp->pdn, qp->qpn, va, len, need, host);
	if (unlikely(st == DPV_KEY_OK && k != NULL &&
		     k->type == DPV_ENGINE_KEY_INDIRECT))
		st = DPV_KEY_BAD_KEY;
	return st;
}

enum dpv_key_status
dpv_engine_key_access(struct dpv_engine *e, struct dpv_eqp *qp, uint32_t key,
		      uint64_t va, uint64_t len, uint32_t need, void **host)
{
	enum dpv_key_status st = key_direct(e, qp, key, va, len, need, host);

	if (st != DPV_KEY_OK)
		key_error(e, qp, key, va, len, st);
	return st;
}

/*
 * Walk [va, va + len) of indirect key k piece by piece, checking each
 * piece against the region its entry names (local write access when the
 * access writes), and copy: dir > 0 from buf into the memory, dir < 0 out
 * of it into buf, dir 0 only checks.
 */
enum dpv_key_status
dpv_engine_key_walk(struct dpv_eqp *qp, const struct dpv_engine_key *k,
		    uint64_t va, uint8_t *buf, uint64_t len, uint32_t need,
		    int dir)
{
	struct dpv_engine *e = qp->e;
	uint32_t uneed = (need & (IBV_ACCESS_LOCAL_WRITE |
				  IBV_ACCESS_REMOTE_WRITE |
				  IBV_ACCESS_REMOTE_ATOMIC))
				 ? IBV_ACCESS_LOCAL_WRITE
				 : 0;

	while (len) {
		enum dpv_key_status st;
		uint64_t addr, run;
		uint32_t lkey;
		void *host;

		if (!dpv_key_layout_map(k, va, &lkey, &addr, &run))
			return DPV_KEY_BAD_BOUNDS;
		run = RTE_MIN(run, len);
		st = key_direct(e, qp, lkey, addr, run, uneed, &host);
		if (st != DPV_KEY_OK)
			return st;
		if (dir > 0)
			dpv_engine_land(host, buf, run);
		else if (dir < 0)
			memcpy(buf, host, run);
		buf += dir ? run : 0;
		va += run;
		len -= run;
	}
	return DPV_KEY_OK;
}

/* The check of an access through any key, then the walk of an indirect
 * one (dir as for walk_indirect(); direct keys only give *host). */
static enum dpv_key_status
key_any(struct dpv_engine *e, struct dpv_eqp *qp, uint32_t key, uint64_t va,
	uint64_t len, uint32_t need, void **host, uint8_t *buf, int dir)
{
	struct dpv_engine_key tmp;
	const struct dpv_engine_key *k = len ? key_get(e, key, &tmp) : NULL;
	enum dpv_key_status st;

	st = dpv_key_check_one(k, key, qp->pdn, qp->qpn, va, len, need, host);
	if (st == DPV_KEY_OK && k != NULL &&
	    k->type == DPV_ENGINE_KEY_INDIRECT)
		/* a signature key's SGE is checked by dpv_sig_span() when
		 * taken, its entries as they are copied through */
		st = unlikely(k->sig != NULL)
			     ? (dir ? dpv_sig_walk(qp, k, va, buf, len, need,
						   dir)
				    : DPV_KEY_OK)
			     : dpv_engine_key_walk(qp, k, va, buf, len, need,
						   dir);
	else if (st == DPV_KEY_OK && len && dir > 0)
		dpv_engine_land(*host, buf, len);
	else if (st == DPV_KEY_OK && len && dir < 0)
		memcpy(buf, *host, len);
	if (st != DPV_KEY_OK)
		key_error(e, qp, key, va, len, st);
	return st;
}

enum dpv_key_status
dpv_engine_key_access_ind(struct dpv_engine *e, struct dpv_eqp *qp,
			  uint32_t key, uint64_t va, uint64_t len,
			  uint32_t need, void **host)
{
	/* the common case in a few compares: a memory region in the
	 * engine's own table or a lookup the cache holds, allowed by
	 * dpv_key_check_one()'s checks of a region; anything else, and a
	 * refusal (counted and logged there), takes the general path */
	const struct dpv_engine_key *k = NULL;

	if (e->conf.key_lookup == NULL) {
		uint32_t idx = dpv_engine_key_index(key);

		if (idx < e->max_keys)
			k = &e->keys[idx];
	} else if (e->conf.key_version != NULL) {
		const struct dpv_ekcache *c =
			&e->kcache[dpv_engine_key_index(key) &
				   (DPV_EKCACHE_SIZE - 1)];

		if (c->key == key &&
		    __atomic_load_n(c->snp, __ATOMIC_ACQUIRE) == c->sn &&
		    c->live)
			k = &c->k;
	}
	if (likely(k != NULL && len != 0 && k->type == DPV_ENGINE_KEY_MR &&
		   k->valid && k->key == key) &&
	    check_direct(k, qp->pdn, qp->qpn, va, len, need, host) ==
		    DPV_KEY_OK)
		return DPV_KEY_OK;
	return key_any(e, qp, key, va, len, need, host, NULL, 0);
}

enum dpv_key_status
dpv_engine_key_sig_take(struct dpv_eqp *qp, struct dpv_sge *sge,
			uint64_t *total)
{
	struct dpv_engine_key tmp;
	const struct dpv_engine_key *k = key_get(qp->e, sge->lkey, &tmp);
	enum dpv_key_status st;

	if (k == NULL || k->sig == NULL)
		return DPV_KEY_OK;
	st = dpv_sig_span(k, sge, total);
	if (st != DPV_KEY_OK)
		key_error(qp->e, qp, sge->lkey, sge->addr, sge->length, st);
	return st;
}

enum dpv_key_status
dpv_engine_key_copy(struct dpv_eqp *qp, uint32_t key, uint64_t va,
		    uint8_t *buf, uint64_t len, uint32_t need, bool to_mem)
{
	void *host;

	return key_any(qp->e, qp, key, va, len, need, &host, buf,
		       to_mem ? 1 : -1);
}

void
dpv_esge_copy_ind(struct dpv_eqp *qp, const struct dpv_sge *s, uint64_t off,
		  uint8_t *buf, uint32_t len, bool to_list)
{
	/* checked when the WQE was taken; a region deregistered since
	 * fails here, and nothing of that piece is copied */
	dpv_engine_key_copy(qp, s->lkey, s->addr + off, buf, len,
			    to_list ? IBV_ACCESS_LOCAL_WRITE : 0, to_list);
}

void *
dpv_engine_key_atomic(struct dpv_eqp *qp, uint32_t key, uint64_t va,
		      void *host)
{
	struct dpv_engine_key tmp;
	const struct dpv_engine_key *k;
	uint64_t addr, run;
	uint32_t lkey;
	void *p;

	if (host != DPV_KEY_HOST_INDIRECT)
		return host;
	k = key_get(qp->e, key, &tmp);
	/* the 8 bytes must lie in one entry */
	if (k == NULL || !dpv_key_layout_map(k, va, &lkey, &addr, &run) ||
	    run < 8 || (addr & 7) ||
	    key_direct(qp->e, qp, lkey, addr, 8, IBV_ACCESS_LOCAL_WRITE, &p) !=
		    DPV_KEY_OK) {
		qp->e->st.key_errors++;
		return NULL;
	}
	return p;
}

enum ibv_wc_status
dpv_engine_key_config(struct dpv_eqp *qp, const struct dpv_wr *w)
{
	struct dpv_klm ent[DPV_WR_MAX_KLM];
	struct dpv_engine *e = qp->e;

	if (e->conf.key_config == NULL)
		return IBV_WC_LOC_QP_OP_ERR;
	if (w->umr.num > DPV_WR_MAX_KLM ||
	    !dpv_mlx5_sq_umr_klm(qp->sq, w, ent))
		return IBV_WC_LOC_PROT_ERR;
	return (enum ibv_wc_status)e->conf.key_config(
		e->conf.key_lookup_arg, &w->umr, ent, qp->pdn, qp->qpn);
}
