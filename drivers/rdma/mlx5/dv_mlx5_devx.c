/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libmlx5.so.1: DEVX (raw firmware commands, UARs, umem, EQs, event
 * channels) and VFIO entry points. dpverbs has no mlx5 firmware behind it,
 * so each one answers EOPNOTSUPP in its documented convention.
 */

#include <stdint.h>
#include <sys/types.h>

#include "dv_mlx5.h"

struct mlx5dv_devx_uar *
mlx5dv_devx_alloc_uar(struct ibv_context *context, uint32_t flags)
{
	DV_MLX5_NOTSUP_NULL();
}

void
mlx5dv_devx_free_uar(struct mlx5dv_devx_uar *devx_uar)
{
	DV_MLX5_NOTSUP_VOID();
}

int
mlx5dv_devx_general_cmd(struct ibv_context *context, const void *in,
			size_t inlen, void *out, size_t outlen)
{
	DV_MLX5_NOTSUP_INT();
}

struct mlx5dv_devx_obj *
mlx5dv_devx_obj_create(struct ibv_context *context, const void *in,
		       size_t inlen, void *out, size_t outlen)
{
	DV_MLX5_NOTSUP_NULL();
}

int
mlx5dv_devx_obj_destroy(struct mlx5dv_devx_obj *obj)
{
	DV_MLX5_NOTSUP_INT();
}

int
mlx5dv_devx_obj_modify(struct mlx5dv_devx_obj *obj, const void *in,
		       size_t inlen, void *out, size_t outlen)
{
	DV_MLX5_NOTSUP_INT();
}

int
mlx5dv_devx_obj_query(struct mlx5dv_devx_obj *obj, const void *in, size_t inlen,
		      void *out, size_t outlen)
{
	DV_MLX5_NOTSUP_INT();
}

int
mlx5dv_devx_query_eqn(struct ibv_context *context, uint32_t vector,
		      uint32_t *eqn)
{
	DV_MLX5_NOTSUP_INT();
}

int
mlx5dv_devx_umem_dereg(struct mlx5dv_devx_umem *umem)
{
	DV_MLX5_NOTSUP_INT();
}

struct mlx5dv_devx_umem *
mlx5dv_devx_umem_reg(struct ibv_context *ctx, void *addr, size_t size,
		     uint32_t access)
{
	DV_MLX5_NOTSUP_NULL();
}

int
mlx5dv_devx_cq_modify(struct ibv_cq *cq, const void *in, size_t inlen,
		      void *out, size_t outlen)
{
	DV_MLX5_NOTSUP_INT();
}

int
mlx5dv_devx_cq_query(struct ibv_cq *cq, const void *in, size_t inlen, void *out,
		     size_t outlen)
{
	DV_MLX5_NOTSUP_INT();
}

int
mlx5dv_devx_ind_tbl_modify(struct ibv_rwq_ind_table *ind_tbl, const void *in,
			   size_t inlen, void *out, size_t outlen)
{
	DV_MLX5_NOTSUP_INT();
}

int
mlx5dv_devx_ind_tbl_query(struct ibv_rwq_ind_table *ind_tbl, const void *in,
			  size_t inlen, void *out, size_t outlen)
{
	DV_MLX5_NOTSUP_INT();
}

int
mlx5dv_devx_qp_modify(struct ibv_qp *qp, const void *in, size_t inlen,
		      void *out, size_t outlen)
{
	DV_MLX5_NOTSUP_INT();
}

int
mlx5dv_devx_qp_query(struct ibv_qp *qp, const void *in, size_t inlen, void *out,
		     size_t outlen)
{
	DV_MLX5_NOTSUP_INT();
}

int
mlx5dv_devx_srq_modify(struct ibv_srq *srq, const void *in, size_t inlen,
		       void *out, size_t outlen)
{
	DV_MLX5_NOTSUP_INT();
}

int
mlx5dv_devx_srq_query(struct ibv_srq *srq, const void *in, size_t inlen,
		      void *out, size_t outlen)
{
	DV_MLX5_NOTSUP_INT();
}

int
mlx5dv_devx_wq_modify(struct ibv_wq *wq, const void *in, size_t inlen,
		      void *out, size_t outlen)
{
	DV_MLX5_NOTSUP_INT();
}

int
mlx5dv_devx_wq_query(struct ibv_wq *wq, const void *in, size_t inlen, void *out,
		     size_t outlen)
{
	DV_MLX5_NOTSUP_INT();
}

struct mlx5dv_devx_cmd_comp *
mlx5dv_devx_create_cmd_comp(struct ibv_context *context)
{
	DV_MLX5_NOTSUP_NULL();
}

void
mlx5dv_devx_destroy_cmd_comp(struct mlx5dv_devx_cmd_comp *cmd_comp)
{
	DV_MLX5_NOTSUP_VOID();
}

int
mlx5dv_devx_get_async_cmd_comp(struct mlx5dv_devx_cmd_comp *cmd_comp,
			       struct mlx5_ib_uapi_devx_async_cmd_hdr *cmd_resp,
			       size_t cmd_resp_len)
{
	DV_MLX5_NOTSUP_INT();
}

int
mlx5dv_devx_obj_query_async(struct mlx5dv_devx_obj *obj, const void *in,
			    size_t inlen, size_t outlen, uint64_t wr_id,
			    struct mlx5dv_devx_cmd_comp *cmd_comp)
{
	DV_MLX5_NOTSUP_INT();
}

struct mlx5dv_devx_event_channel *
mlx5dv_devx_create_event_channel(
	struct ibv_context *context,
	enum mlx5_ib_uapi_devx_create_event_channel_flags flags)
{
	DV_MLX5_NOTSUP_NULL();
}

void
mlx5dv_devx_destroy_event_channel(
	struct mlx5dv_devx_event_channel *event_channel)
{
	DV_MLX5_NOTSUP_VOID();
}

ssize_t
mlx5dv_devx_get_event(struct mlx5dv_devx_event_channel *event_channel,
		      struct mlx5_ib_uapi_devx_async_event_hdr *event_data,
		      size_t event_resp_len)
{
	/* Documented convention: -1 with errno set. */
	DV_MLX5_LOG(DEBUG, "%s: not supported", __func__);
	errno = EOPNOTSUPP;
	return -1;
}

int
mlx5dv_devx_subscribe_devx_event(
	struct mlx5dv_devx_event_channel *event_channel,
	struct mlx5dv_devx_obj *obj, uint16_t events_sz, uint16_t events_num[],
	uint64_t cookie)
{
	DV_MLX5_NOTSUP_INT();
}

int
mlx5dv_devx_subscribe_devx_event_fd(
	struct mlx5dv_devx_event_channel *event_channel, int fd,
	struct mlx5dv_devx_obj *obj, uint16_t event_num)
{
	DV_MLX5_NOTSUP_INT();
}

struct mlx5dv_devx_umem *
mlx5dv_devx_umem_reg_ex(struct ibv_context *ctx,
			struct mlx5dv_devx_umem_in *umem_in)
{
	DV_MLX5_NOTSUP_NULL();
}

struct ibv_device **
mlx5dv_get_vfio_device_list(struct mlx5dv_vfio_context_attr *attr)
{
	DV_MLX5_NOTSUP_NULL();
}

int
mlx5dv_vfio_get_events_fd(struct ibv_context *ibctx)
{
	/* Returns a file descriptor: -1 with errno set on failure. */
	DV_MLX5_LOG(DEBUG, "%s: not supported", __func__);
	errno = EOPNOTSUPP;
	return -1;
}

int
mlx5dv_vfio_process_events(struct ibv_context *context)
{
	DV_MLX5_NOTSUP_INT();
}

struct mlx5dv_devx_msi_vector *
mlx5dv_devx_alloc_msi_vector(struct ibv_context *ibctx)
{
	DV_MLX5_NOTSUP_NULL();
}

struct mlx5dv_devx_eq *
mlx5dv_devx_create_eq(struct ibv_context *ibctx, const void *in, size_t inlen,
		      void *out, size_t outlen)
{
	DV_MLX5_NOTSUP_NULL();
}

int
mlx5dv_devx_destroy_eq(struct mlx5dv_devx_eq *eq)
{
	DV_MLX5_NOTSUP_INT();
}

int
mlx5dv_devx_free_msi_vector(struct mlx5dv_devx_msi_vector *msi)
{
	DV_MLX5_NOTSUP_INT();
}
