/* SPDX-License-Identifier: BSD-3-Clause */
/* Memory key checks: every SGE, RETH and AtomicETH goes through here. */
#include <errno.h>

#include "dpv_engine.h"
#include "dpv_wr.h"

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

enum dpv_key_status
dpv_key_check_one(const struct dpv_engine_key *k, uint32_t key, uint32_t pdn,
		  uint32_t qpn, uint64_t va, uint64_t len, uint32_t need,
		  void **host)
{
	uint64_t off;

	if (len == 0) {
		if (host)
			*host = (void *)(uintptr_t)va;
		return DPV_KEY_OK;
	}
	if (k == NULL || !k->valid || k->key != key)
		return DPV_KEY_BAD_KEY;
	if (k->type != DPV_ENGINE_KEY_MR && !k->bound)
		return DPV_KEY_BAD_KEY;
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
		return allow_mr ? 0 : -EACCES;
	case DPV_ENGINE_KEY_MW2:
		if (!k->bound || (remote && k->qpn != qpn))
			return -EACCES;
		return 0;
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
