/* SPDX-License-Identifier: BSD-3-Clause */
/* Memory key checks: every SGE, RETH and AtomicETH goes through here. */
#include "dpv_engine.h"

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
