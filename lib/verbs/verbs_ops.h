/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DPV_VERBS_OPS_H
#define DPV_VERBS_OPS_H

/**
 * @file
 * Operations the verbs front end installs in every context (ibv_context.ops
 * and the verbs_context ops), shared between the lib/verbs files.
 */

#include "verbs_int.h"

/** Install every op of the front end (defaults answer EOPNOTSUPP). */
void dpv_verbs_fill_ops(struct verbs_context *vctx);

/** Number of devices found so far. */
unsigned int dpv_verbs_device_count(void);
/** Device by name, NULL if none. */
struct dpv_device *dpv_verbs_device_lookup(const char *name);

/**
 * Create the device's engine (once; later calls return 0) and make the
 * verbs hot paths drive it. @return 0 or a positive errno.
 */
int dpv_verbs_engine_attach(struct dpv_device *dev);
/* DPV_PCAP capture (verbs_pcap.c): hook the device's port queue; 0 or a
 * positive errno. dpv_verbs_pcap_close() ends the file (at exit). */
int dpv_verbs_pcap_attach(struct dpv_device *dev);
void dpv_verbs_pcap_close(void);

int dpv_query_port_op(struct ibv_context *context, uint8_t port_num,
		      struct ibv_port_attr *port_attr, size_t port_attr_len);
int dpv_query_device_ex_op(struct ibv_context *context,
			   const struct ibv_query_device_ex_input *input,
			   struct ibv_device_attr_ex *attr, size_t attr_size);

struct ibv_mw *dpv_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type);
int dpv_dealloc_mw(struct ibv_mw *mw);
int dpv_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw,
		struct ibv_mw_bind *mw_bind);
struct ibv_pd *
dpv_alloc_parent_domain(struct ibv_context *context,
			struct ibv_parent_domain_init_attr *attr);
struct ibv_td *dpv_alloc_td(struct ibv_context *context,
			    struct ibv_td_init_attr *init_attr);
int dpv_dealloc_td(struct ibv_td *td);

int dpv_poll_cq(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc);
int dpv_req_notify_cq(struct ibv_cq *cq, int solicited_only);
struct ibv_cq_ex *dpv_create_cq_ex_op(struct ibv_context *context,
				      struct ibv_cq_init_attr_ex *attr);
int dpv_modify_cq(struct ibv_cq *cq, struct ibv_modify_cq_attr *attr);

int dpv_post_srq_ops(struct ibv_srq *srq, struct ibv_ops_wr *wr,
		     struct ibv_ops_wr **bad_wr);
int dpv_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
		      struct ibv_recv_wr **bad_wr);
struct ibv_srq *dpv_create_srq_ex_op(struct ibv_context *context,
				     struct ibv_srq_init_attr_ex *attr);
int dpv_get_srq_num(struct ibv_srq *srq, uint32_t *srq_num);
struct ibv_xrcd *dpv_open_xrcd(struct ibv_context *context,
			       struct ibv_xrcd_init_attr *attr);
int dpv_close_xrcd(struct ibv_xrcd *xrcd);

/* ibv_advise_mr (verbs_mr.c): 0 or a positive errno, as the kernel's. */
int dpv_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
		  uint32_t flags, struct ibv_sge *sg_list, uint32_t num_sge);

#endif
