/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libefa.so.1: the EFA direct-verbs entry points (<infiniband/efadv.h>).
 *
 * dpverbs devices are not EFA devices and no EFA object can be created on
 * them, so every entry point answers "not supported" in the convention its
 * man page documents: functions returning an object give NULL with errno
 * set to EOPNOTSUPP, functions returning int give EOPNOTSUPP. The library
 * exists so that programs linked against rdma-core's libefa.so.1 (perftest,
 * pyverbs) load and run with dpverbs. It stands alone: it does not link
 * libibverbs.so.1 nor DPDK.
 */

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/efadv.h>

struct ibv_qp *
efadv_create_driver_qp(struct ibv_pd *ibvpd, struct ibv_qp_init_attr *attr,
		       uint32_t driver_qp_type)
{
	errno = EOPNOTSUPP;
	return NULL;
}

struct ibv_qp *
efadv_create_qp_ex(struct ibv_context *ibvctx,
		   struct ibv_qp_init_attr_ex *attr_ex,
		   struct efadv_qp_init_attr *efa_attr, uint32_t inlen)
{
	errno = EOPNOTSUPP;
	return NULL;
}

int
efadv_query_device(struct ibv_context *ibvctx, struct efadv_device_attr *attr,
		   uint32_t inlen)
{
	return EOPNOTSUPP;
}

int
efadv_query_ah(struct ibv_ah *ibvah, struct efadv_ah_attr *attr, uint32_t inlen)
{
	return EOPNOTSUPP;
}

struct ibv_cq_ex *
efadv_create_cq(struct ibv_context *ibvctx, struct ibv_cq_init_attr_ex *attr_ex,
		struct efadv_cq_init_attr *efa_attr, uint32_t inlen)
{
	errno = EOPNOTSUPP;
	return NULL;
}

/* No CQ is ever an EFA CQ here. */
struct efadv_cq *
efadv_cq_from_ibv_cq_ex(struct ibv_cq_ex *ibvcqx)
{
	errno = EOPNOTSUPP;
	return NULL;
}
