/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DV_MLX5_H
#define DV_MLX5_H

/**
 * @file
 * Internal helpers of libmlx5.so.1, the mlx5 direct-verbs front end of
 * dpverbs (drivers/rdma/mlx5/dv_*.c). Not installed.
 *
 * Every entry point of <infiniband/mlx5dv.h> exists with its exact
 * prototype and version node (libmlx5.map). Those that dpverbs does not
 * implement answer EOPNOTSUPP in the convention their man page documents:
 * DV_MLX5_NOTSUP_NULL() for functions returning an object (NULL, errno
 * set), DV_MLX5_NOTSUP_INT() for functions returning 0 or an errno value
 * (errno is set too). The few exceptions are written out in place.
 */

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include <rte_log.h>

#include <infiniband/verbs.h>
#include <infiniband/mlx5dv.h>

extern int dpv_logtype_dv_mlx5;

#define DV_MLX5_LOG(level, fmt, ...)                                           \
	rte_log(RTE_LOG_##level, dpv_logtype_dv_mlx5, "dv.mlx5: " fmt "\n",    \
		##__VA_ARGS__)

/** Return NULL with errno = EOPNOTSUPP from the enclosing function. */
#define DV_MLX5_NOTSUP_NULL()                                                  \
	do {                                                                   \
		DV_MLX5_LOG(DEBUG, "%s: not supported", __func__);             \
		errno = EOPNOTSUPP;                                            \
		return NULL;                                                   \
	} while (0)

/** Return EOPNOTSUPP (and set errno to it) from the enclosing function. */
#define DV_MLX5_NOTSUP_INT()                                                   \
	do {                                                                   \
		DV_MLX5_LOG(DEBUG, "%s: not supported", __func__);             \
		errno = EOPNOTSUPP;                                            \
		return EOPNOTSUPP;                                             \
	} while (0)

/** Note the call and return from a void function that has nothing to do. */
#define DV_MLX5_NOTSUP_VOID()                                                  \
	do {                                                                   \
		DV_MLX5_LOG(DEBUG, "%s: not supported", __func__);             \
		return;                                                        \
	} while (0)

/**
 * Version of the CQEs our rings write (drivers/rdma/mlx5/mlx5_cq.c): 0, a
 * receive CQE carries the SRQ number in srqn_uidx (version 1 would carry
 * the user index of the QP / SRQ there). mlx5dv_query_device() reports
 * MLX5DV_CONTEXT_FLAGS_CQE_V1 from it; test_verbs_dv.c checks the ring
 * against it.
 */
#define DV_MLX5_CQE_VERSION 0

/** Name prefix of every dpverbs device ("dpv0", "dpv1", ...). */
#define DV_MLX5_DEV_PREFIX "dpv"

/**
 * Tell whether a verbs device is a dpverbs device.
 *
 * @param dev
 *   Device from ibv_get_device_list(), may be NULL.
 * @return
 *   true for a dpverbs device, false otherwise (also for NULL).
 */
static inline bool
dv_mlx5_is_dpv_device(const struct ibv_device *dev)
{
	return dev != NULL && strncmp(dev->name, DV_MLX5_DEV_PREFIX,
				      sizeof(DV_MLX5_DEV_PREFIX) - 1) == 0;
}

#endif /* DV_MLX5_H */
