/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The IBVERBS_PRIVATE_34 interface that rdma-core's own provider plugins
 * (libmlx5, librxe, ...) link against. This library never loads such
 * plugins: its devices are built in. The entry points exist so that a
 * plugin that gets loaded anyway links, and each one fails cleanly.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

#include "verbs_int.h"

/* Read by providers to decide whether destroy may ignore EIO. */
bool verbs_allow_disassociate_destroy;

/* No kernel command interface exists here: int-returning entry points
 * answer EOPNOTSUPP, pointer-returning ones NULL with errno EOPNOTSUPP,
 * void ones do nothing. */
#define DPV_PRIV_INT(name)                                                     \
	int name(void);                                                        \
	int name(void)                                                         \
	{                                                                      \
		return EOPNOTSUPP;                                             \
	}
#define DPV_PRIV_PTR(name)                                                     \
	void *name(void);                                                      \
	void *name(void)                                                       \
	{                                                                      \
		errno = EOPNOTSUPP;                                            \
		return NULL;                                                   \
	}
#define DPV_PRIV_VOID(name)                                                    \
	void name(void);                                                       \
	void name(void)                                                        \
	{                                                                      \
	}

DPV_PRIV_INT(__ioctl_final_num_attrs)
DPV_PRIV_VOID(__verbs_log)
DPV_PRIV_PTR(_verbs_init_and_alloc_context)
DPV_PRIV_INT(execute_ioctl)
DPV_PRIV_INT(ibv_cmd_advise_mr)
DPV_PRIV_INT(ibv_cmd_alloc_dm)
DPV_PRIV_INT(ibv_cmd_alloc_mw)
DPV_PRIV_INT(ibv_cmd_alloc_pd)
DPV_PRIV_INT(ibv_cmd_attach_mcast)
DPV_PRIV_INT(ibv_cmd_close_xrcd)
DPV_PRIV_INT(ibv_cmd_create_ah)
DPV_PRIV_INT(ibv_cmd_create_counters)
DPV_PRIV_INT(ibv_cmd_create_cq)
DPV_PRIV_INT(ibv_cmd_create_cq_ex)
DPV_PRIV_INT(ibv_cmd_create_flow)
DPV_PRIV_INT(ibv_cmd_create_flow_action_esp)
DPV_PRIV_INT(ibv_cmd_create_qp)
DPV_PRIV_INT(ibv_cmd_create_qp_ex)
DPV_PRIV_INT(ibv_cmd_create_qp_ex2)
DPV_PRIV_INT(ibv_cmd_create_rwq_ind_table)
DPV_PRIV_INT(ibv_cmd_create_srq)
DPV_PRIV_INT(ibv_cmd_create_srq_ex)
DPV_PRIV_INT(ibv_cmd_create_wq)
DPV_PRIV_INT(ibv_cmd_dealloc_mw)
DPV_PRIV_INT(ibv_cmd_dealloc_pd)
DPV_PRIV_INT(ibv_cmd_dereg_mr)
DPV_PRIV_INT(ibv_cmd_destroy_ah)
DPV_PRIV_INT(ibv_cmd_destroy_counters)
DPV_PRIV_INT(ibv_cmd_destroy_cq)
DPV_PRIV_INT(ibv_cmd_destroy_flow)
DPV_PRIV_INT(ibv_cmd_destroy_flow_action)
DPV_PRIV_INT(ibv_cmd_destroy_qp)
DPV_PRIV_INT(ibv_cmd_destroy_rwq_ind_table)
DPV_PRIV_INT(ibv_cmd_destroy_srq)
DPV_PRIV_INT(ibv_cmd_destroy_wq)
DPV_PRIV_INT(ibv_cmd_detach_mcast)
DPV_PRIV_INT(ibv_cmd_free_dm)
DPV_PRIV_INT(ibv_cmd_get_context)
DPV_PRIV_INT(ibv_cmd_modify_cq)
DPV_PRIV_INT(ibv_cmd_modify_flow_action_esp)
DPV_PRIV_INT(ibv_cmd_modify_qp)
DPV_PRIV_INT(ibv_cmd_modify_qp_ex)
DPV_PRIV_INT(ibv_cmd_modify_srq)
DPV_PRIV_INT(ibv_cmd_modify_wq)
DPV_PRIV_INT(ibv_cmd_open_qp)
DPV_PRIV_INT(ibv_cmd_open_xrcd)
DPV_PRIV_INT(ibv_cmd_poll_cq)
DPV_PRIV_INT(ibv_cmd_post_recv)
DPV_PRIV_INT(ibv_cmd_post_send)
DPV_PRIV_INT(ibv_cmd_post_srq_recv)
DPV_PRIV_INT(ibv_cmd_query_context)
DPV_PRIV_INT(ibv_cmd_query_device_any)
DPV_PRIV_INT(ibv_cmd_query_mr)
DPV_PRIV_INT(ibv_cmd_query_port)
DPV_PRIV_INT(ibv_cmd_query_qp)
DPV_PRIV_INT(ibv_cmd_query_srq)
DPV_PRIV_INT(ibv_cmd_read_counters)
DPV_PRIV_INT(ibv_cmd_reg_dm_mr)
DPV_PRIV_INT(ibv_cmd_reg_dmabuf_mr)
DPV_PRIV_INT(ibv_cmd_reg_mr)
DPV_PRIV_INT(ibv_cmd_req_notify_cq)
DPV_PRIV_INT(ibv_cmd_rereg_mr)
DPV_PRIV_INT(ibv_cmd_resize_cq)
DPV_PRIV_VOID(verbs_init_cq)
DPV_PRIV_PTR(verbs_open_device)
DPV_PRIV_VOID(verbs_register_driver_34)
DPV_PRIV_VOID(verbs_set_ops)
DPV_PRIV_VOID(verbs_uninit_context)
