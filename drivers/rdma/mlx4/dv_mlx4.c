/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libmlx4.so.1: the mlx4 direct-verbs entry points (<infiniband/mlx4dv.h>)
 * for devices configured "rings = mlx4" (ConnectX-3 ring formats,
 * drivers/rdma/mlx4/mlx4_ring.h).
 *
 * Real: mlx4dv_init_obj (QP, CQ, SRQ, RWQ), mlx4dv_query_device,
 * mlx4dv_create_qp without mlx4-specific attributes (it is then
 * ibv_create_qp_ex, RSS QPs included), mlx4dv_set_context_attr (the WQ
 * range size; the application's ring buffer allocators). EOPNOTSUPP:
 * inline receive (MLX4DV_QP_INIT_ATTR_MASK_INL_RECV). On a device with
 * mlx5 rings every entry point answers EOPNOTSUPP.
 */

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <rte_log.h>

#include <infiniband/verbs.h>
#include <infiniband/mlx4dv.h>

#include "verbs_dv.h"

RTE_LOG_REGISTER(dpv_logtype_dv_mlx4, dpv.dv.mlx4, NOTICE);

#define DV_MLX4_LOG(level, fmt, ...)                                           \
	rte_log(RTE_LOG_##level, dpv_logtype_dv_mlx4, "dv.mlx4: " fmt "\n",    \
		##__VA_ARGS__)

static int
fail(const char *fn, int err)
{
	DV_MLX4_LOG(DEBUG, "%s: %s", fn, strerror(err));
	errno = err;
	return err;
}

int
mlx4dv_init_obj(struct mlx4dv_obj *obj, uint64_t obj_type)
{
	int rc = dpv_mlx4dv_init_obj(obj, obj_type);

	return rc ? fail(__func__, rc) : 0;
}

int
mlx4dv_query_device(struct ibv_context *ctx_in,
		    struct mlx4dv_context *attrs_out)
{
	int rc;

	if (ctx_in == NULL || attrs_out == NULL)
		return fail(__func__, EINVAL);
	rc = dpv_mlx4dv_context_ok(ctx_in);
	if (rc)
		return fail(__func__, rc);
	attrs_out->version = 0;
	attrs_out->max_inl_recv_sz = 0; /* no inline receive */
	attrs_out->comp_mask = 0;	/* rdma-core 44 defines no output */
	return 0;
}

int
mlx4dv_set_context_attr(struct ibv_context *context,
			enum mlx4dv_set_ctx_attr_type attr_type, void *attr)
{
	int rc;

	if (context == NULL || attr == NULL)
		return fail(__func__, EINVAL);
	rc = dpv_mlx4dv_context_ok(context);
	if (rc)
		return fail(__func__, rc);
	switch (attr_type) {
	case MLX4DV_SET_CTX_ATTR_LOG_WQS_RANGE_SZ:
		rc = dpv_mlx4dv_set_log_wqs_range(context,
						  *(const uint8_t *)attr);
		break;
	case MLX4DV_SET_CTX_ATTR_BUF_ALLOCATORS: {
		const struct mlx4dv_ctx_allocators *al = attr;

		rc = dpv_mlx4dv_set_buf_allocators(context, al->alloc,
						   al->free, al->data);
		break;
	}
	default:
		rc = EOPNOTSUPP; /* rdma-core's mlx4: ENOTSUP */
		break;
	}
	return rc ? fail(__func__, rc) : 0;
}

struct ibv_qp *
mlx4dv_create_qp(struct ibv_context *context, struct ibv_qp_init_attr_ex *attr,
		 struct mlx4dv_qp_init_attr *mlx4_qp_attr)
{
	int rc;

	if (context == NULL || attr == NULL || mlx4_qp_attr == NULL) {
		fail(__func__, EINVAL);
		return NULL;
	}
	if (mlx4_qp_attr->comp_mask & ~(uint64_t)MLX4DV_QP_INIT_ATTR_MASK_INL_RECV) {
		fail(__func__, EINVAL);
		return NULL;
	}
	rc = dpv_mlx4dv_context_ok(context);
	if (rc == 0 &&
	    (mlx4_qp_attr->comp_mask & MLX4DV_QP_INIT_ATTR_MASK_INL_RECV))
		rc = EOPNOTSUPP;
	if (rc) {
		fail(__func__, rc);
		return NULL;
	}
	/* RSS QPs as ibv_create_qp_ex's (inner-header hashing, which
	 * struct mlx4dv_qp_init_attr has no field for: EINVAL there) */
	return ibv_create_qp_ex(context, attr);
}
