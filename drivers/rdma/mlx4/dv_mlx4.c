/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libmlx4.so.1: the mlx4 direct-verbs entry points (<infiniband/mlx4dv.h>).
 *
 * No dpverbs device exposes mlx4-format rings yet (its rings are mlx5
 * format, which no struct mlx4dv_* can describe: doc/guides/dv.rst), so
 * every entry point answers EOPNOTSUPP in the convention its man page
 * documents (0 or an errno value; NULL with errno set for
 * mlx4dv_create_qp). The library
 * exists so that programs and DPDK's mlx4 PMD, which import these symbols
 * with immediate binding, load with dpverbs.
 */

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_log.h>

#include <infiniband/verbs.h>
#include <infiniband/mlx4dv.h>

RTE_LOG_REGISTER(dpv_logtype_dv_mlx4, dpv.dv.mlx4, NOTICE);

#define DV_MLX4_LOG(level, fmt, ...)                                           \
	rte_log(RTE_LOG_##level, dpv_logtype_dv_mlx4, "dv.mlx4: " fmt "\n",    \
		##__VA_ARGS__)

int
mlx4dv_init_obj(struct mlx4dv_obj *obj, uint64_t obj_type)
{
	DV_MLX4_LOG(DEBUG, "%s: not supported", __func__);
	errno = EOPNOTSUPP;
	return EOPNOTSUPP;
}

int
mlx4dv_query_device(struct ibv_context *ctx_in,
		    struct mlx4dv_context *attrs_out)
{
	DV_MLX4_LOG(DEBUG, "%s: not supported", __func__);
	errno = EOPNOTSUPP;
	return EOPNOTSUPP;
}

int
mlx4dv_set_context_attr(struct ibv_context *context,
			enum mlx4dv_set_ctx_attr_type attr_type, void *attr)
{
	DV_MLX4_LOG(DEBUG, "%s: not supported", __func__);
	errno = EOPNOTSUPP;
	return EOPNOTSUPP;
}

struct ibv_qp *
mlx4dv_create_qp(struct ibv_context *context, struct ibv_qp_init_attr_ex *attr,
		 struct mlx4dv_qp_init_attr *mlx4_qp_attr)
{
	DV_MLX4_LOG(DEBUG, "%s: not supported", __func__);
	errno = EOPNOTSUPP;
	return NULL;
}
