/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libmlx5.so.1: crypto entry points (login objects and data encryption
 * keys). dpverbs offers no crypto offload: each answers EOPNOTSUPP in its
 * documented convention.
 */

#include <stdint.h>

#include "dv_mlx5.h"

int
mlx5dv_crypto_login(struct ibv_context *context,
		    struct mlx5dv_crypto_login_attr *login_attr)
{
	DV_MLX5_NOTSUP_INT();
}

int
mlx5dv_crypto_login_query_state(struct ibv_context *context,
				enum mlx5dv_crypto_login_state *state)
{
	DV_MLX5_NOTSUP_INT();
}

int
mlx5dv_crypto_logout(struct ibv_context *context)
{
	DV_MLX5_NOTSUP_INT();
}

struct mlx5dv_dek *
mlx5dv_dek_create(struct ibv_context *context,
		  struct mlx5dv_dek_init_attr *init_attr)
{
	DV_MLX5_NOTSUP_NULL();
}

int
mlx5dv_dek_destroy(struct mlx5dv_dek *dek)
{
	DV_MLX5_NOTSUP_INT();
}

int
mlx5dv_dek_query(struct mlx5dv_dek *dek, struct mlx5dv_dek_attr *attr)
{
	DV_MLX5_NOTSUP_INT();
}

struct mlx5dv_crypto_login_obj *
mlx5dv_crypto_login_create(struct ibv_context *context,
			   struct mlx5dv_crypto_login_attr_ex *login_attr)
{
	DV_MLX5_NOTSUP_NULL();
}

int
mlx5dv_crypto_login_destroy(struct mlx5dv_crypto_login_obj *crypto_login)
{
	DV_MLX5_NOTSUP_INT();
}

int
mlx5dv_crypto_login_query(struct mlx5dv_crypto_login_obj *crypto_login,
			  struct mlx5dv_crypto_login_query_attr *query_attr)
{
	DV_MLX5_NOTSUP_INT();
}
