/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Protection domains, parent domains, thread domains, memory regions,
 * memory windows and the per-device memory key table.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dpv_engine.h"
#include "dpv_wr.h"
#include "verbs_dv.h"
#include "verbs_int.h"
#include "verbs_ops.h"

/* ---------------------------------------------------------------------- */
/* Memory key table                                                        */

static inline uint32_t
mkey_index(uint32_t key)
{
	return key >> 8;
}

/* Reserve a free slot and give it a fresh key. */
static int
mkey_alloc(struct dpv_device *dev, const struct dpv_mkey *val, uint32_t *key)
{
	unsigned int idx = 0;

	pthread_mutex_lock(&dev->lock);
	/* slots 0 and 1 are never used: key 0x100 (index 1, variant 0) is
	 * MLX5_INVALID_LKEY, the end marker of mlx5 scatter lists */
	for (unsigned int n = 0; n < DPV_CAP_MAX_MR - 2; n++) {
		unsigned int i = dev->mkey_hint;

		dev->mkey_hint = i + 1 >= DPV_CAP_MAX_MR ? 2 : i + 1;
		if (dev->mkeys[i].k.type == DPV_MKEY_FREE) {
			idx = i;
			break;
		}
	}
	if (idx == 0) {
		pthread_mutex_unlock(&dev->lock);
		return ENOMEM;
	}
	struct dpv_mkey_slot *s = &dev->mkeys[idx];

	*key = idx << 8 | s->next_variant++;
	rte_seqlock_write_lock(&s->lock);
	s->k = *val;
	s->k.key = *key;
	rte_seqlock_write_unlock(&s->lock);
	pthread_mutex_unlock(&dev->lock);
	return 0;
}

/*
 * Release a slot. A region with memory windows bound to it stays (EBUSY);
 * a bound window gives its region back. Atomic against the engine's bind
 * hook, which counts binds under the region's slot lock.
 */
static int
mkey_free(struct dpv_device *dev, uint32_t key)
{
	struct dpv_mkey_slot *s = &dev->mkeys[mkey_index(key)];
	int rc = 0;

	pthread_mutex_lock(&dev->lock);
	rte_seqlock_write_lock(&s->lock);
	if (s->k.type == DPV_MKEY_MR &&
	    atomic_load(&((struct dpv_mr *)s->k.obj)->mw_binds) != 0) {
		rc = EBUSY;
	} else {
		if (s->k.bound && s->k.bound_mr)
			atomic_fetch_sub(&s->k.bound_mr->mw_binds, 1);
		memset(&s->k, 0, sizeof(s->k));
	}
	rte_seqlock_write_unlock(&s->lock);
	pthread_mutex_unlock(&dev->lock);
	return rc;
}

bool
dpv_mkey_get(struct dpv_device *dev, uint32_t key, struct dpv_mkey *out)
{
	uint32_t idx = mkey_index(key);
	struct dpv_mkey_slot *s;
	uint32_t sn;

	if (idx == 0 || idx >= DPV_CAP_MAX_MR)
		return false;
	s = &dev->mkeys[idx];
	do {
		sn = rte_seqlock_read_begin(&s->lock);
		*out = s->k;
	} while (rte_seqlock_read_retry(&s->lock, sn));
	return out->type != DPV_MKEY_FREE && out->key == key;
}

const uint32_t *
dpv_mkey_version(void *arg, uint32_t key)
{
	struct dpv_device *dev = arg;
	uint32_t idx = mkey_index(key);

	if (idx == 0 || idx >= DPV_CAP_MAX_MR)
		return NULL;
	return &dev->mkeys[idx].lock.count.sn;
}

static int
mkey_set(struct dpv_device *dev, uint32_t slot_key, const struct dpv_mkey *val)
{
	struct dpv_mkey_slot *s = &dev->mkeys[mkey_index(slot_key)];
	int rc = 0;

	rte_seqlock_write_lock(&s->lock);
	if (s->k.type == DPV_MKEY_FREE)
		rc = ENOENT;
	else
		s->k = *val;
	rte_seqlock_write_unlock(&s->lock);
	return rc;
}

int
dpv_mkey_update(struct dpv_device *dev, uint32_t key,
		const struct dpv_mkey *val)
{
	if (mkey_index(key) == 0 || mkey_index(key) >= DPV_CAP_MAX_MR)
		return ENOENT;
	return mkey_set(dev, key, val);
}

/* ---------------------------------------------------------------------- */
/* PD, parent domain, TD                                                   */

struct ibv_pd *
ibv_alloc_pd(struct ibv_context *context)
{
	struct dpv_device *dev = dctx_dev(context);
	struct dpv_pd *pd = calloc(1, sizeof(*pd));

	if (pd == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	pd->ibv.context = context;
	pd->pdn = atomic_fetch_add(&dev->next_pdn, 1) & 0xffffff;
	pd->ibv.handle = pd->pdn;
	atomic_init(&pd->refcnt, 0);
	return &pd->ibv;
}

int
ibv_dealloc_pd(struct ibv_pd *ibpd)
{
	struct dpv_pd *pd = to_dpd(ibpd);

	if (dpv_ref_busy(&pd->refcnt))
		return EBUSY;
	if (pd->protection)
		dpv_ref_put(&pd->protection->refcnt);
	if (pd->td)
		dpv_ref_put(&pd->td->refcnt);
	free(pd);
	return 0;
}

struct ibv_td *
dpv_alloc_td(struct ibv_context *context, struct ibv_td_init_attr *init_attr)
{
	struct dpv_td *td;

	if (init_attr == NULL || init_attr->comp_mask) {
		errno = EINVAL;
		return NULL;
	}
	td = calloc(1, sizeof(*td));
	if (td == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	td->ibv.context = context;
	atomic_init(&td->refcnt, 0);
	return &td->ibv;
}

int
dpv_dealloc_td(struct ibv_td *ibtd)
{
	struct dpv_td *td = container_of(ibtd, struct dpv_td, ibv);

	if (dpv_ref_busy(&td->refcnt))
		return EBUSY;
	free(td);
	return 0;
}

/* A parent domain is a PD that also carries a thread domain and resource
 * allocators. Our rings live in DPDK memory, so the allocators are stored
 * but not called. */
struct ibv_pd *
dpv_alloc_parent_domain(struct ibv_context *context,
			struct ibv_parent_domain_init_attr *attr)
{
	const uint32_t known = IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS |
			       IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT;
	struct dpv_pd *pd, *base;

	if (attr == NULL || attr->pd == NULL || (attr->comp_mask & ~known) ||
	    attr->pd->context != context) {
		errno = EINVAL;
		return NULL;
	}
	base = to_dpd(attr->pd);
	if (base->protection != NULL) {
		errno = EINVAL; /* a parent domain cannot nest */
		return NULL;
	}
	if ((attr->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS) &&
	    (attr->alloc == NULL || attr->free == NULL)) {
		errno = EINVAL;
		return NULL;
	}
	pd = calloc(1, sizeof(*pd));
	if (pd == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	pd->ibv.context = context;
	pd->pdn = base->pdn;
	pd->ibv.handle = base->pdn;
	pd->protection = base;
	dpv_ref_get(&base->refcnt);
	if (attr->td) {
		pd->td = container_of(attr->td, struct dpv_td, ibv);
		dpv_ref_get(&pd->td->refcnt);
	}
	if (attr->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS) {
		pd->alloc = attr->alloc;
		pd->free = attr->free;
	}
	if (attr->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT)
		pd->pd_context = attr->pd_context;
	return &pd->ibv;
}

/* ---------------------------------------------------------------------- */
/* MR                                                                      */

#define ACCESS_OPTIONAL ((unsigned int)IBV_ACCESS_OPTIONAL_RANGE)

/*
 * 0 or the errno for an access-flag set of a region of a device. On-demand
 * paging (IBV_ACCESS_ON_DEMAND) needs no pinning here: the engine reaches
 * every region through the process's page tables, faulting pages in as
 * the CPU does, so an explicit ODP region is an ordinary one
 * (DPV_CAP_ODP_*; not on a device without an engine, which has no
 * transport). Implicit ones: check_implicit().
 */
static int
check_access(const struct dpv_device *dev, unsigned int access)
{
	unsigned int a = access & ~ACCESS_OPTIONAL; /* optional: best effort */

	if ((a & IBV_ACCESS_ON_DEMAND) && dev->engine == NULL)
		return EOPNOTSUPP;
	a &= ~(unsigned int)IBV_ACCESS_HUGETLB; /* a hint only */
	if (a & ~(unsigned int)DPV_MR_ACCESS_SUPPORTED)
		return EINVAL;
	if ((a & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)) &&
	    !(a & IBV_ACCESS_LOCAL_WRITE))
		return EINVAL;
	return 0;
}

/*
 * 0 or EINVAL for the access flags and iova of an implicit on-demand
 * region (addr NULL, length SIZE_MAX: the whole address space, reached at
 * the process's own addresses): ON_DEMAND, iova 0, neither windows (a
 * window over everything) nor ZERO_BASED, and a kernel with which the
 * engine can check each access against the process's mappings (as a
 * kernel without IBV_ODP_SUPPORT_IMPLICIT, EINVAL otherwise).
 */
static int
check_implicit(unsigned int access, uint64_t iova)
{
	if (!(access & IBV_ACCESS_ON_DEMAND) || iova != 0 ||
	    (access & (IBV_ACCESS_MW_BIND | IBV_ACCESS_ZERO_BASED)) ||
	    !dpv_engine_mem_fault_supported())
		return EINVAL;
	return 0;
}

static void
mr_to_mkey(const struct dpv_mr *mr, struct dpv_mkey *k)
{
	memset(k, 0, sizeof(*k));
	k->key = mr->ibv.lkey;
	k->type = mr->implicit ? DPV_MKEY_IMPLICIT : DPV_MKEY_MR;
	k->pdn = mr->pd->pdn;
	k->addr = (uintptr_t)mr->host;
	k->iova = mr->iova;
	k->length = mr->ibv.length;
	k->access = mr->access;
	k->obj = (void *)(uintptr_t)mr;
}

/* A region of length bytes at host, which its keys reach at iova on
 * (addr: what ibv_mr says; dm: the device memory it covers, or NULL);
 * host NULL: the implicit region, which reg_mr() checked. */
static struct ibv_mr *
reg_mr_at(struct ibv_pd *ibpd, void *addr, void *host, size_t length,
	  uint64_t iova, unsigned int access, struct dpv_dm *dm)
{
	struct dpv_device *dev;
	struct dpv_mkey k;
	struct dpv_mr *mr;
	uint32_t key;
	int rc;

	/* a region of device memory may be empty, as a ConnectX's may */
	if (ibpd == NULL || (length == 0 && dm == NULL)) {
		errno = EINVAL;
		return NULL;
	}
	dev = dctx_dev(ibpd->context);
	rc = check_access(dev, access);
	if (rc != 0) {
		errno = rc;
		return NULL;
	}
	if (access & IBV_ACCESS_ZERO_BASED)
		iova = 0;
	if (iova + length < iova) {
		errno = EINVAL;
		return NULL;
	}
	mr = calloc(1, sizeof(*mr));
	if (mr == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	mr->ibv.context = ibpd->context;
	mr->ibv.pd = ibpd;
	mr->ibv.addr = addr;
	mr->ibv.length = length;
	mr->iova = iova;
	mr->access = access & DPV_MR_ACCESS_SUPPORTED;
	mr->pd = dpv_pd_base(ibpd);
	mr->host = host;
	mr->dm = dm;
	mr->implicit = host == NULL;
	mr_to_mkey(mr, &k);
	rc = mkey_alloc(dev, &k, &key);
	if (rc != 0) {
		free(mr);
		errno = rc;
		return NULL;
	}
	mr->ibv.lkey = key;
	mr->ibv.rkey = key;
	mr->ibv.handle = key;
	dpv_ref_get(&to_dpd(ibpd)->refcnt);
	if (dm != NULL)
		atomic_fetch_add(&dm->mrs, 1);
	return &mr->ibv;
}

static struct ibv_mr *
reg_mr(struct ibv_pd *ibpd, void *addr, size_t length, uint64_t iova,
       unsigned int access)
{
	int rc = addr == NULL ? EINVAL : 0;

	if (addr == NULL && length == SIZE_MAX) /* implicit ODP */
		rc = check_implicit(access, iova);
	if (rc != 0) {
		errno = rc;
		return NULL;
	}
	return reg_mr_at(ibpd, addr, addr, length, iova, access, NULL);
}

struct ibv_mr *
dpv_reg_dm_mr(struct ibv_pd *pd, struct ibv_dm *ibdm, uint64_t offset,
	      size_t length, unsigned int access)
{
	struct dpv_dm *dm;

	/* zero-based: the application never sees the memory's address
	 * (ibv_alloc_dm(3)); addr is NULL, as rdma-core sets it */
	if (pd == NULL || ibdm == NULL || pd->context != ibdm->context ||
	    !(access & IBV_ACCESS_ZERO_BASED)) {
		errno = EINVAL;
		return NULL;
	}
	dm = to_ddm(ibdm);
	if (offset > dm->length || length > dm->length - offset) {
		errno = EINVAL;
		return NULL;
	}
	return reg_mr_at(pd, NULL, dm->buf + offset, length, 0, access, dm);
}

#undef ibv_reg_mr
struct ibv_mr *
ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access)
{
	return reg_mr(pd, addr, length, (uintptr_t)addr, (unsigned int)access);
}

#undef ibv_reg_mr_iova
struct ibv_mr *
ibv_reg_mr_iova(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova,
		int access)
{
	return reg_mr(pd, addr, length, iova, (unsigned int)access);
}

struct ibv_mr *
ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova,
		 unsigned int access)
{
	return reg_mr(pd, addr, length, iova, access);
}

/* There is no device behind a dma-buf that we could map. */
struct ibv_mr *
ibv_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length,
		  uint64_t iova, int fd, int access)
{
	errno = EOPNOTSUPP;
	return NULL;
}

int
ibv_rereg_mr(struct ibv_mr *ibmr, int flags, struct ibv_pd *pd, void *addr,
	     size_t length, int access)
{
	struct dpv_mr *mr = to_dmr(ibmr);
	struct dpv_mr nmr = *mr;
	struct ibv_pd *old_pd = ibmr->pd;
	struct dpv_mkey k;

	if (flags == 0 || (flags & ~IBV_REREG_MR_FLAGS_SUPPORTED))
		goto einval;
	/* a device-memory region stays what ibv_reg_dm_mr() made it, an
	 * implicit one covers everything */
	if (mr->dm != NULL ||
	    (mr->implicit && (flags & IBV_REREG_MR_CHANGE_TRANSLATION)))
		goto einval;
	if (flags & IBV_REREG_MR_CHANGE_TRANSLATION) {
		if (addr == NULL || length == 0)
			goto einval;
		nmr.ibv.addr = addr;
		nmr.host = addr;
		nmr.ibv.length = length;
		nmr.iova = (mr->access & IBV_ACCESS_ZERO_BASED)
				   ? 0
				   : (uintptr_t)addr;
	}
	if (flags & IBV_REREG_MR_CHANGE_ACCESS) {
		if (check_access(dctx_dev(ibmr->context),
				 (unsigned int)access) != 0 ||
		    (mr->implicit && check_implicit((unsigned int)access, 0)))
			goto einval;
		nmr.access = (unsigned int)access & DPV_MR_ACCESS_SUPPORTED;
		if ((nmr.access & IBV_ACCESS_ZERO_BASED) &&
		    !(flags & IBV_REREG_MR_CHANGE_TRANSLATION))
			nmr.iova = 0;
	}
	if (flags & IBV_REREG_MR_CHANGE_PD) {
		if (pd == NULL || pd->context != ibmr->context)
			goto einval;
		nmr.ibv.pd = pd;
		nmr.pd = dpv_pd_base(pd);
	}
	mr_to_mkey(&nmr, &k);
	k.obj = mr; /* the key names the region, not this working copy */
	if (mkey_set(dctx_dev(ibmr->context), ibmr->lkey, &k) != 0) {
		errno = EINVAL;
		return IBV_REREG_MR_ERR_CMD;
	}
	if (nmr.ibv.pd != old_pd) {
		dpv_ref_get(&to_dpd(nmr.ibv.pd)->refcnt);
		dpv_ref_put(&to_dpd(old_pd)->refcnt);
	}
	/* field by field: mw_binds is counted concurrently by the engine */
	mr->ibv.addr = nmr.ibv.addr;
	mr->host = nmr.host;
	mr->ibv.length = nmr.ibv.length;
	mr->ibv.pd = nmr.ibv.pd;
	mr->pd = nmr.pd;
	mr->iova = nmr.iova;
	mr->access = nmr.access;
	return 0;
einval:
	errno = EINVAL;
	return IBV_REREG_MR_ERR_INPUT;
}

/* Refused (EBUSY) while memory windows are bound to the region, as on
 * IBTA devices. */
int
ibv_dereg_mr(struct ibv_mr *ibmr)
{
	struct dpv_mr *mr = to_dmr(ibmr);
	int rc;

	rc = mkey_free(dctx_dev(ibmr->context), ibmr->lkey);
	if (rc != 0)
		return rc;
	dpv_ref_put(&to_dpd(ibmr->pd)->refcnt);
	if (mr->dm != NULL)
		atomic_fetch_sub(&mr->dm->mrs, 1);
	free(mr);
	return 0;
}

/* ---------------------------------------------------------------------- */
/* ibv_advise_mr                                                           */

/*
 * The on-demand region an SGE of ibv_advise_mr names, in *k: 0, or the
 * errno of the kernel's mlx5 prefetch: ENOENT for a key that is not an
 * on-demand region, EINVAL for one that is no region (a window, an
 * indirect key), EPERM for another PD's region or PREFETCH_WRITE on one
 * without local write access.
 */
static int
advise_key(struct dpv_device *dev, uint32_t pdn,
	   enum ibv_advise_mr_advice advice, uint32_t lkey, struct dpv_mkey *k)
{
	if (!dpv_mkey_get(dev, lkey, k) ||
	    (k->type == DPV_MKEY_MR && !(k->access & IBV_ACCESS_ON_DEMAND)))
		return ENOENT;
	if (k->type != DPV_MKEY_MR && k->type != DPV_MKEY_IMPLICIT)
		return EINVAL;
	if (k->pdn != pdn)
		return EPERM;
	if (advice == IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE &&
	    !(k->access & IBV_ACCESS_LOCAL_WRITE))
		return EPERM;
	return 0;
}

/* The prefetch of SGE s of region k: its pages faulted in (for writing
 * with PREFETCH_WRITE); NO_FAULT has nothing to do, the engine reaches
 * the pages the process has as they are. 0 or EFAULT (out of the region,
 * or pages that are not there or not so accessible). */
static int
advise_sge(const struct dpv_mkey *k, enum ibv_advise_mr_advice advice,
	   const struct ibv_sge *s)
{
	uint64_t host = s->addr, off;
	int rc;

	if (k->type == DPV_MKEY_IMPLICIT) {
		if (s->addr + s->length < s->addr)
			return EFAULT;
	} else {
		off = s->addr - k->iova;
		if (s->addr < k->iova || off > k->length ||
		    s->length > k->length - off)
			return EFAULT;
		host = k->addr + off;
	}
	if (advice == IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT)
		return 0;
	rc = dpv_engine_mem_fault(
		host, s->length, advice == IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE);
	/* a kernel that cannot populate: a hint not taken */
	return rc == 0 || rc == EOPNOTSUPP ? 0 : EFAULT;
}

/*
 * As the kernel's mlx5: flags other than FLUSH and an empty list EINVAL,
 * another advice EOPNOTSUPP, then each SGE's key (advise_key()). With
 * FLUSH each SGE is prefetched in turn and the first failure returned.
 * Without, the kernel checks every key and leaves the prefetch to a
 * worker whose failures nobody sees: here it is done at once, its
 * failures ignored likewise.
 */
int
dpv_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
	      uint32_t flags, struct ibv_sge *sg_list, uint32_t num_sge)
{
	struct dpv_device *dev = dctx_dev(pd->context);
	uint32_t pdn = dpv_pd_base(pd)->pdn;
	bool flush = flags & IBV_ADVISE_MR_FLAG_FLUSH;
	struct dpv_mkey k;
	int rc;

	if (dev->engine == NULL)
		return EOPNOTSUPP; /* no on-demand regions there */
	if ((flags & ~(uint32_t)IBV_ADVISE_MR_FLAG_FLUSH) || num_sge == 0)
		return EINVAL;
	if (sg_list == NULL)
		return EFAULT; /* the kernel's copy of the list */
	if (advice != IBV_ADVISE_MR_ADVICE_PREFETCH &&
	    advice != IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE &&
	    advice != IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT)
		return EOPNOTSUPP;
	for (uint32_t i = 0; i < num_sge && !flush; i++) {
		rc = advise_key(dev, pdn, advice, sg_list[i].lkey, &k);
		if (rc != 0)
			return rc;
	}
	for (uint32_t i = 0; i < num_sge; i++) {
		rc = advise_key(dev, pdn, advice, sg_list[i].lkey, &k);
		if (rc == 0)
			rc = advise_sge(&k, advice, &sg_list[i]);
		if (rc != 0 && flush)
			return rc;
	}
	return 0;
}

/* ---------------------------------------------------------------------- */
/* MW                                                                      */

struct ibv_mw *
dpv_alloc_mw(struct ibv_pd *ibpd, enum ibv_mw_type type)
{
	struct dpv_mkey k = {0};
	struct dpv_mw *mw;
	uint32_t key;
	int rc;

	if (!DPV_CAP_MW) {
		errno = EOPNOTSUPP; /* see verbs_caps.h */
		return NULL;
	}
	if (type != IBV_MW_TYPE_1 && type != IBV_MW_TYPE_2) {
		errno = EINVAL;
		return NULL;
	}
	mw = calloc(1, sizeof(*mw));
	if (mw == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	mw->ibv.context = ibpd->context;
	mw->ibv.pd = ibpd;
	mw->ibv.type = type;
	mw->pd = dpv_pd_base(ibpd);
	k.type = type == IBV_MW_TYPE_1 ? DPV_MKEY_MW1 : DPV_MKEY_MW2;
	k.pdn = mw->pd->pdn;
	k.obj = mw;
	rc = mkey_alloc(dctx_dev(ibpd->context), &k, &key);
	if (rc != 0) {
		free(mw);
		errno = rc;
		return NULL;
	}
	mw->ibv.rkey = key;
	mw->ibv.handle = key;
	dpv_ref_get(&to_dpd(ibpd)->refcnt);
	return &mw->ibv;
}

int
dpv_dealloc_mw(struct ibv_mw *ibmw)
{
	struct dpv_mw *mw = to_dmw(ibmw);

	/* a bound window is unbound by its release */
	mkey_free(dctx_dev(ibmw->context), ibmw->handle);
	dpv_ref_put(&to_dpd(ibmw->pd)->refcnt);
	free(mw);
	return 0;
}

/* Type 1 bind: checked here, executed in order on the send queue as a
 * BIND_MW work request (the engine updates the key when it runs). */
int
dpv_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw, struct ibv_mw_bind *mw_bind)
{
	const struct ibv_mw_bind_info *bi = &mw_bind->bind_info;
	struct ibv_send_wr wr, *bad = NULL;
	uint32_t rkey;
	int rc;

	if (mw->type != IBV_MW_TYPE_1 || qp->context != mw->context)
		return EINVAL;
	if (bi->mr) {
		struct dpv_mr *mr = to_dmr(bi->mr);
		uintptr_t start = (uintptr_t)mr->ibv.addr;

		if (!(mr->access & IBV_ACCESS_MW_BIND))
			return EINVAL;
		unsigned int wa = bi->mw_access_flags & ~ACCESS_OPTIONAL;

		if (wa & ~(unsigned int)(IBV_ACCESS_LOCAL_WRITE |
					 IBV_ACCESS_REMOTE_WRITE |
					 IBV_ACCESS_REMOTE_READ |
					 IBV_ACCESS_REMOTE_ATOMIC |
					 IBV_ACCESS_ZERO_BASED))
			return EINVAL;
		/* remote writes through a window need a writable region */
		if ((wa &
		     (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)) &&
		    !(mr->access & IBV_ACCESS_LOCAL_WRITE))
			return EINVAL;
		if (bi->addr < start || bi->length > mr->ibv.length ||
		    bi->addr - start > mr->ibv.length - bi->length)
			return EINVAL;
	}
	rkey = ibv_inc_rkey(mw->rkey);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = mw_bind->wr_id;
	wr.opcode = IBV_WR_BIND_MW;
	wr.send_flags = mw_bind->send_flags;
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = rkey;
	wr.bind_mw.bind_info = *bi;
	rc = qp->context->ops.post_send(qp, &wr, &bad);
	if (rc == 0)
		mw->rkey = rkey;
	return rc;
}

/* ---------------------------------------------------------------------- */
/* Engine hooks: memory window bind and invalidation, run by the engine in */
/* send-queue order (dpv_engine_conf key_bind / key_invalidate).           */

void
dpv_mkey_to_ekey(const struct dpv_mkey *m, struct dpv_engine_key *k)
{
	static const uint8_t type[] = {
		[DPV_MKEY_MR] = DPV_ENGINE_KEY_MR,
		[DPV_MKEY_MW1] = DPV_ENGINE_KEY_MW1,
		[DPV_MKEY_MW2] = DPV_ENGINE_KEY_MW2,
		[DPV_MKEY_INDIRECT] = DPV_ENGINE_KEY_INDIRECT,
		[DPV_MKEY_IMPLICIT] = DPV_ENGINE_KEY_IMPLICIT,
	};

	memset(k, 0, sizeof(*k));
	k->addr = m->addr;
	k->length = m->length;
	k->iova = m->iova;
	k->access = m->access;
	k->pdn = m->pdn;
	k->qpn = m->qpn;
	k->type = type[m->type];
	k->valid = m->type != DPV_MKEY_FREE;
	k->bound = m->bound;
	k->key = m->key;
	k->klm = m->klm;
	k->nklm = m->nklm;
	k->repeat = m->repeat;
	k->block = m->block;
	k->remote_inv = m->remote_inv;
	k->sig = m->sig;
}

int
dpv_mkey_engine_bind(void *arg, const struct dpv_wr_bind *b, uint32_t pdn,
		     uint32_t qpn)
{
	struct dpv_device *dev = arg;
	uint32_t wi = mkey_index(b->mw_rkey);
	uint32_t ri = mkey_index(b->mr_lkey);
	struct dpv_mkey_slot *s, *rs = NULL;
	struct dpv_engine_key ew, er;
	struct dpv_mr *to = NULL;
	enum ibv_wc_status st;

	if (wi < 2 || wi >= DPV_CAP_MAX_MR)
		return IBV_WC_MW_BIND_ERR;
	if (b->length && (ri == wi || ri == 0 || ri >= DPV_CAP_MAX_MR))
		return IBV_WC_MW_BIND_ERR;
	s = &dev->mkeys[wi];
	rte_seqlock_write_lock(&s->lock);
	if (b->length) {
		/* held to the end: the region cannot go away meanwhile
		 * (lock order: window slot, then region slot) */
		rs = &dev->mkeys[ri];
		rte_seqlock_write_lock(&rs->lock);
		if (rs->k.type != DPV_MKEY_MR || rs->k.key != b->mr_lkey) {
			rte_seqlock_write_unlock(&rs->lock);
			rte_seqlock_write_unlock(&s->lock);
			return IBV_WC_MW_BIND_ERR;
		}
		dpv_mkey_to_ekey(&rs->k, &er);
		to = rs->k.obj;
	}
	dpv_mkey_to_ekey(&s->k, &ew);
	st = dpv_key_bind_apply(&ew, rs ? &er : NULL, b, pdn, qpn);
	if (st == IBV_WC_SUCCESS) {
		/* a type 1 rebind or unbind releases the previous region */
		if (s->k.bound && s->k.bound_mr)
			atomic_fetch_sub(&s->k.bound_mr->mw_binds, 1);
		s->k.bound_mr = ew.bound ? to : NULL;
		if (s->k.bound_mr)
			atomic_fetch_add(&s->k.bound_mr->mw_binds, 1);
		s->k.key = ew.key;
		s->k.bound = ew.bound;
		s->k.addr = ew.addr;
		s->k.iova = ew.iova;
		s->k.length = ew.length;
		s->k.access = ew.access;
		s->k.qpn = ew.qpn;
	}
	if (rs)
		rte_seqlock_write_unlock(&rs->lock);
	rte_seqlock_write_unlock(&s->lock);
	return st;
}

int
dpv_mkey_engine_invalidate(void *arg, uint32_t key, uint32_t pdn, uint32_t qpn,
			   bool remote)
{
	struct dpv_device *dev = arg;
	uint32_t i = mkey_index(key);
	struct dpv_engine_key k;
	struct dpv_mkey_slot *s;
	int rc;

	if (i < 2 || i >= DPV_CAP_MAX_MR)
		return -ENOENT;
	s = &dev->mkeys[i];
	rte_seqlock_write_lock(&s->lock);
	dpv_mkey_to_ekey(&s->k, &k);
	/* regions of ibv_reg_mr cannot be invalidated (no fast-register) */
	rc = dpv_key_invalidate_check(&k, key, pdn, qpn, remote, false);
	if (rc == 0 && s->k.bound) {
		if (s->k.bound_mr)
			atomic_fetch_sub(&s->k.bound_mr->mw_binds, 1);
		s->k.bound_mr = NULL;
		s->k.bound = 0;
	}
	rte_seqlock_write_unlock(&s->lock);
	return rc;
}

/* ---------------------------------------------------------------------- */
/* Indirect keys (libmlx5's mlx5dv_create_mkey)                            */

/* Entries a key may have: what the largest UMR WQE carries, a multiple
 * of 4 (creation rounds up to 4, as mlx5 does). */
#define IMKEY_MAX_ENTRIES 52

struct dpv_imkey {
	struct mlx5dv_mkey dv; /* what the application holds */
	struct ibv_pd *pd;
	uint32_t max_entries;
	bool sig_ok; /* MLX5DV_MKEY_INIT_ATTR_FLAGS_BLOCK_SIGNATURE */
	/* the signature the next WQE with DPV_UMR_SET_SIG applies (set by
	 * the application's setter), and the one in force (engine thread) */
	struct dpv_sig staged, sig;
	struct dpv_klm klm[]; /* the layout, written by the engine hook */
};

uint32_t
dpv_mlx5dv_mkey_entries(const struct mlx5dv_mkey *mkey)
{
	return container_of(mkey, const struct dpv_imkey, dv)->max_entries;
}

struct ibv_pd *
dpv_mlx5dv_mkey_pd(const struct mlx5dv_mkey *mkey)
{
	return container_of(mkey, const struct dpv_imkey, dv)->pd;
}

struct mlx5dv_mkey *
dpv_mlx5dv_create_mkey(struct mlx5dv_mkey_init_attr *attr)
{
	struct dpv_mkey k = {0};
	struct dpv_imkey *im;
	uint32_t n, key;
	int rc;

	if (attr == NULL || attr->pd == NULL) {
		errno = EINVAL;
		return NULL;
	}
	/* crypto and tag update do not exist here; like rdma-core, no
	 * flag at all is EOPNOTSUPP too */
	if ((attr->create_flags &
	     ~(uint32_t)(MLX5DV_MKEY_INIT_ATTR_FLAGS_REMOTE_INVALIDATE |
			 MLX5DV_MKEY_INIT_ATTR_FLAGS_BLOCK_SIGNATURE)) !=
	    MLX5DV_MKEY_INIT_ATTR_FLAGS_INDIRECT) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	n = RTE_ALIGN_CEIL((uint32_t)attr->max_entries, 4u);
	if (n == 0 || n > IMKEY_MAX_ENTRIES) {
		errno = EINVAL;
		return NULL;
	}
	im = calloc(1, sizeof(*im) + n * sizeof(im->klm[0]));
	if (im == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	im->pd = attr->pd;
	im->max_entries = n;
	im->sig_ok = !!(attr->create_flags &
			MLX5DV_MKEY_INIT_ATTR_FLAGS_BLOCK_SIGNATURE);
	k.type = DPV_MKEY_INDIRECT;
	k.remote_inv = !!(attr->create_flags &
			  MLX5DV_MKEY_INIT_ATTR_FLAGS_REMOTE_INVALIDATE);
	k.pdn = dpv_pd_base(attr->pd)->pdn;
	k.obj = im;
	rc = mkey_alloc(dctx_dev(attr->pd->context), &k, &key);
	if (rc != 0) {
		free(im);
		errno = rc;
		return NULL;
	}
	im->dv.lkey = key;
	im->dv.rkey = key;
	attr->max_entries = (uint16_t)n;
	dpv_ref_get(&to_dpd(attr->pd)->refcnt);
	return &im->dv;
}

/* Usable at once: from here on the key is gone for the engine; the
 * layout is freed once no engine poll can still be reading it. */
int
dpv_mlx5dv_destroy_mkey(struct mlx5dv_mkey *mkey)
{
	struct dpv_imkey *im;
	struct dpv_device *dev;

	if (mkey == NULL)
		return EINVAL;
	im = container_of(mkey, struct dpv_imkey, dv);
	dev = dctx_dev(im->pd->context);
	mkey_free(dev, mkey->lkey);
	if (dev->engine != NULL) {
		dpv_dev_engines_barrier(dev);
	}
	dpv_ref_put(&to_dpd(im->pd)->refcnt);
	free(im);
	return 0;
}

int
dpv_mkey_engine_config(void *arg, const struct dpv_wr_umr *u,
		       const struct dpv_klm *ent, uint32_t pdn, uint32_t qpn)
{
	struct dpv_device *dev = arg;
	uint32_t i = mkey_index(u->mkey);
	struct dpv_imkey *im = NULL;
	struct dpv_engine_key ek;
	struct dpv_mkey_slot *s;
	enum ibv_wc_status st;
	uint64_t block = 0;

	RTE_SET_USED(qpn);
	if (i < 2 || i >= DPV_CAP_MAX_MR)
		return IBV_WC_LOC_PROT_ERR;
	s = &dev->mkeys[i];
	rte_seqlock_write_lock(&s->lock);
	dpv_mkey_to_ekey(&s->k, &ek);
	if (s->k.type == DPV_MKEY_INDIRECT)
		im = s->k.obj;
	st = dpv_key_layout_check(&ek, im ? im->max_entries : 0, u, ent, pdn,
				  &block);
	if (st == IBV_WC_SUCCESS) {
		/* only this engine thread reads the entries; what the WQE
		 * does not set stays (a key never laid out maps nothing) */
		if (u->set & DPV_UMR_SET_LAYOUT) {
			memcpy(im->klm, ent, u->num * sizeof(*ent));
			s->k.klm = im->klm;
			s->k.nklm = u->num;
			s->k.repeat = u->repeat ? u->repeat : 1;
			s->k.block = block;
			s->k.length = block * s->k.repeat;
		}
		if (u->set & DPV_UMR_SET_ACCESS)
			s->k.access = u->access;
		if (u->set & DPV_UMR_SET_SIG) {
			/* a new signature starts without error */
			im->sig = im->staged;
			im->sig.err_type = DPV_SIG_ERR_NONE;
			s->k.sig = im->sig.mem.kind != DPV_SIG_NONE ||
						   im->sig.wire.kind !=
							   DPV_SIG_NONE
					   ? &im->sig
					   : NULL;
		}
		s->k.iova = 0;
		s->k.bound = 1;
	}
	rte_seqlock_write_unlock(&s->lock);
	return st;
}

/* One domain of mlx5dv_wr_set_mkey_sig_block() in the engine's terms. */
static int
sig_domain(const struct mlx5dv_sig_block_domain *d, struct dpv_sig_domain *o)
{
	static const uint32_t bs[] = {
		[MLX5DV_BLOCK_SIZE_512] = 512,	 [MLX5DV_BLOCK_SIZE_520] = 520,
		[MLX5DV_BLOCK_SIZE_4048] = 4048, [MLX5DV_BLOCK_SIZE_4096] = 4096,
		[MLX5DV_BLOCK_SIZE_4160] = 4160,
	};

	memset(o, 0, sizeof(*o));
	if (d == NULL)
		return 0;
	if (d->comp_mask || (unsigned int)d->block_size >= RTE_DIM(bs))
		return EINVAL;
	o->block = bs[d->block_size];
	if (d->sig_type == MLX5DV_SIG_TYPE_T10DIF) {
		const struct mlx5dv_sig_t10dif *t = d->sig.dif;

		if (t == NULL || (t->bg != 0 && t->bg != 0xffff) ||
		    (t->flags & ~(uint16_t)(MLX5DV_SIG_T10DIF_FLAG_REF_REMAP |
					    MLX5DV_SIG_T10DIF_FLAG_APP_ESCAPE |
					    MLX5DV_SIG_T10DIF_FLAG_APP_REF_ESCAPE)))
			return EINVAL;
		if (t->bg_type == MLX5DV_SIG_T10DIF_CRC)
			o->kind = DPV_SIG_T10DIF_CRC;
		else if (t->bg_type == MLX5DV_SIG_T10DIF_CSUM)
			o->kind = DPV_SIG_T10DIF_CSUM;
		else
			return EINVAL;
		o->size = 8;
		o->seed = t->bg;
		o->app_tag = t->app_tag;
		o->ref_tag = t->ref_tag;
		/* the engine's DPV_SIG_DIF_* are mlx5dv's values */
		o->flags = t->flags;
		return 0;
	}
	if (d->sig_type != MLX5DV_SIG_TYPE_CRC || d->sig.crc == NULL)
		return EINVAL;
	switch (d->sig.crc->type) {
	case MLX5DV_SIG_CRC_TYPE_CRC32:
		o->kind = DPV_SIG_CRC32;
		break;
	case MLX5DV_SIG_CRC_TYPE_CRC32C:
		o->kind = DPV_SIG_CRC32C;
		break;
	case MLX5DV_SIG_CRC_TYPE_CRC64_XP10:
		return EOPNOTSUPP; /* not implemented, not advertised */
	default:
		return EINVAL;
	}
	if (d->sig.crc->seed != 0 && d->sig.crc->seed != UINT32_MAX)
		return EINVAL;
	o->size = 4;
	o->seed = (uint32_t)d->sig.crc->seed;
	return 0;
}

int
dpv_mlx5dv_mkey_sig_stage(struct mlx5dv_mkey *mkey,
			  const struct mlx5dv_sig_block_attr *attr)
{
	struct dpv_imkey *im = container_of(mkey, struct dpv_imkey, dv);
	struct dpv_sig n;
	bool same;
	int rc;

	memset(&n, 0, sizeof(n));
	if (attr == NULL) { /* the configure flag's reset */
		im->staged = n;
		return 0;
	}
	if (!im->sig_ok || attr->comp_mask ||
	    (attr->flags & ~(uint32_t)MLX5DV_SIG_BLOCK_ATTR_FLAG_COPY_MASK))
		return EINVAL;
	rc = sig_domain(attr->mem, &n.mem);
	if (rc == 0)
		rc = sig_domain(attr->wire, &n.wire);
	if (rc)
		return rc;
	same = memcmp(&n.mem, &n.wire, sizeof(n.mem)) == 0;
	/* one block size for both domains (a limit of this engine) */
	if (n.mem.kind != DPV_SIG_NONE && n.wire.kind != DPV_SIG_NONE &&
	    n.mem.block != n.wire.block)
		return EOPNOTSUPP;
	if (attr->flags & MLX5DV_SIG_BLOCK_ATTR_FLAG_COPY_MASK) {
		if (n.mem.kind != n.wire.kind || n.mem.kind == DPV_SIG_NONE)
			return EINVAL;
		n.copy_mask = attr->copy_mask;
	} else {
		/* the same signature both sides: it passes as it is */
		n.copy_mask = same && n.mem.kind != DPV_SIG_NONE ? 0xff : 0;
	}
	n.check_mask = attr->check_mask;
	im->staged = n;
	return 0;
}

int
dpv_mlx5dv_mkey_check(struct mlx5dv_mkey *mkey, struct mlx5dv_mkey_err *err)
{
	static const enum mlx5dv_mkey_err_type type[] = {
		[DPV_SIG_ERR_NONE] = MLX5DV_MKEY_NO_ERR,
		[DPV_SIG_ERR_GUARD] = MLX5DV_MKEY_SIG_BLOCK_BAD_GUARD,
		[DPV_SIG_ERR_REFTAG] = MLX5DV_MKEY_SIG_BLOCK_BAD_REFTAG,
		[DPV_SIG_ERR_APPTAG] = MLX5DV_MKEY_SIG_BLOCK_BAD_APPTAG,
	};
	struct dpv_imkey *im;
	uint32_t t;

	if (mkey == NULL || err == NULL)
		return EINVAL;
	im = container_of(mkey, struct dpv_imkey, dv);
	if (!im->sig_ok)
		return EINVAL;
	memset(err, 0, sizeof(*err));
	t = __atomic_load_n(&im->sig.err_type, __ATOMIC_ACQUIRE);
	if (t == DPV_SIG_ERR_NONE || t >= RTE_DIM(type)) {
		err->err_type = MLX5DV_MKEY_NO_ERR;
		return 0;
	}
	err->err_type = type[t];
	err->err.sig.actual_value = im->sig.err_actual;
	err->err.sig.expected_value = im->sig.err_expected;
	err->err.sig.offset = im->sig.err_offset;
	/* reported once: the next error is kept from here on */
	__atomic_store_n(&im->sig.err_type, DPV_SIG_ERR_NONE,
			 __ATOMIC_RELEASE);
	return 0;
}
