/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Device memory (ibv_alloc_dm(3)): ibv_alloc_dm, ibv_free_dm,
 * ibv_memcpy_to_dm / ibv_memcpy_from_dm and ibv_reg_dm_mr (verbs_mr.c).
 *
 * A ConnectX device lends a small on-chip memory (MEMIC) that the host
 * reaches by copies of whole 4-byte words and RDMA peers through a
 * zero-based region. Here the device is software, so its memory is host
 * memory: the rules are kept (a device-wide budget of max_dm_size, 4-byte
 * aligned copies within the allocation, zero-based regions only, no free
 * while a region uses it), so that a program written for a ConnectX runs
 * as it would there.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "verbs_caps.h"
#include "verbs_int.h"

/* Copies move whole 4-byte words, each written (or read) at once, as a
 * ConnectX's device memory takes them; offset and length must be
 * multiples of 4 (EINVAL) within the allocation (EFAULT). */
static int
dm_check(const struct dpv_dm *dm, uint64_t offset, size_t length)
{
	if (offset > dm->length || length > dm->length - offset)
		return EFAULT;
	if ((offset | length) & 3)
		return EINVAL;
	return 0;
}

static int
dm_copy_to(struct ibv_dm *ibdm, uint64_t offset, const void *host,
	   size_t length)
{
	struct dpv_dm *dm = to_ddm(ibdm);
	uint32_t *d;
	const uint8_t *s = host;
	int rc = dm_check(dm, offset, length);

	if (rc != 0)
		return rc;
	d = (uint32_t *)(void *)(dm->buf + offset);
	for (size_t i = 0; i < length / 4; i++) {
		uint32_t w;

		memcpy(&w, s + 4 * i, 4);
		__atomic_store_n(&d[i], w, __ATOMIC_RELAXED);
	}
	return 0;
}

static int
dm_copy_from(void *host, struct ibv_dm *ibdm, uint64_t offset, size_t length)
{
	struct dpv_dm *dm = to_ddm(ibdm);
	const uint32_t *s;
	uint8_t *d = host;
	int rc = dm_check(dm, offset, length);

	if (rc != 0)
		return rc;
	s = (const uint32_t *)(const void *)(dm->buf + offset);
	for (size_t i = 0; i < length / 4; i++) {
		uint32_t w = __atomic_load_n(&s[i], __ATOMIC_RELAXED);

		memcpy(d + 4 * i, &w, 4);
	}
	return 0;
}

static struct ibv_dm *
dm_alloc(struct ibv_context *context, struct ibv_alloc_dm_attr *attr)
{
	struct dpv_device *dev = dctx_dev(context);
	size_t align, size, used;
	struct dpv_dm *dm;

	if (attr == NULL || attr->comp_mask != 0 || attr->length == 0 ||
	    attr->log_align_req > DPV_CAP_DM_LOG_ALIGN_MAX) {
		errno = EINVAL;
		return NULL;
	}
	if (dev->engine == NULL) {
		errno = EOPNOTSUPP; /* no transport: max_dm_size is 0 */
		return NULL;
	}
	/* whole 64-byte lines (or the alignment asked for, if larger) */
	align = RTE_MAX((size_t)1 << attr->log_align_req, (size_t)64);
	if (attr->length > DPV_CAP_MAX_DM_SIZE) {
		errno = ENOMEM; /* as a ConnectX answers */
		return NULL;
	}
	size = RTE_ALIGN_CEIL(attr->length, align);
	used = atomic_fetch_add(&dev->dm_used, size);
	if (used + size > DPV_CAP_MAX_DM_SIZE) {
		atomic_fetch_sub(&dev->dm_used, size);
		errno = ENOMEM;
		return NULL;
	}
	dm = calloc(1, sizeof(*dm));
	if (dm != NULL)
		dm->buf = aligned_alloc(align, size);
	if (dm == NULL || dm->buf == NULL) {
		free(dm);
		atomic_fetch_sub(&dev->dm_used, size);
		errno = ENOMEM;
		return NULL;
	}
	memset(dm->buf, 0, size);
	dm->length = attr->length;
	dm->charged = size;
	atomic_init(&dm->mrs, 0);
	dm->ibv.context = context;
	dm->ibv.memcpy_to_dm = dm_copy_to;
	dm->ibv.memcpy_from_dm = dm_copy_from;
	dm->ibv.comp_mask = 0;
	dm->ibv.handle = atomic_fetch_add(&dev->dm_handles, 1) + 1;
	return &dm->ibv;
}

static int
dm_free(struct ibv_dm *ibdm)
{
	struct dpv_dm *dm = to_ddm(ibdm);

	/* "may fail if any other resources (such as an MR) is still
	 * associated with the DM" (ibv_alloc_dm(3)) */
	if (atomic_load(&dm->mrs) != 0)
		return EBUSY;
	atomic_fetch_sub(&dctx_dev(ibdm->context)->dm_used, dm->charged);
	free(dm->buf);
	free(dm);
	return 0;
}

void
dpv_dm_ops_init(struct verbs_context *vctx)
{
	vctx->alloc_dm = dm_alloc;
	vctx->free_dm = dm_free;
	vctx->reg_dm_mr = dpv_reg_dm_mr;
}
