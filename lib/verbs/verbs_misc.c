/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Pure helpers of the libibverbs ABI: enum-to-string, rate conversions,
 * kernel-ABI structure copies and the sysfs readers.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rdma/ib_user_sa.h>
#include <rdma/ib_user_verbs.h>
#include <infiniband/sa.h>

#include <rte_common.h>

#include "verbs_int.h"
#include "verbs_ops.h"

/* ---------------------------------------------------------------------- */
/* Strings                                                                 */

const char *
ibv_wc_status_str(enum ibv_wc_status status)
{
	static const char *const s[] = {
		[IBV_WC_SUCCESS] = "success",
		[IBV_WC_LOC_LEN_ERR] = "local length error",
		[IBV_WC_LOC_QP_OP_ERR] = "local QP operation error",
		[IBV_WC_LOC_EEC_OP_ERR] = "local EE context operation error",
		[IBV_WC_LOC_PROT_ERR] = "local protection error",
		[IBV_WC_WR_FLUSH_ERR] = "Work Request Flushed Error",
		[IBV_WC_MW_BIND_ERR] = "memory management operation error",
		[IBV_WC_BAD_RESP_ERR] = "bad response error",
		[IBV_WC_LOC_ACCESS_ERR] = "local access error",
		[IBV_WC_REM_INV_REQ_ERR] = "remote invalid request error",
		[IBV_WC_REM_ACCESS_ERR] = "remote access error",
		[IBV_WC_REM_OP_ERR] = "remote operation error",
		[IBV_WC_RETRY_EXC_ERR] = "transport retry counter exceeded",
		[IBV_WC_RNR_RETRY_EXC_ERR] = "RNR retry counter exceeded",
		[IBV_WC_LOC_RDD_VIOL_ERR] = "local RDD violation error",
		[IBV_WC_REM_INV_RD_REQ_ERR] = "remote invalid RD request",
		[IBV_WC_REM_ABORT_ERR] = "aborted error",
		[IBV_WC_INV_EECN_ERR] = "invalid EE context number",
		[IBV_WC_INV_EEC_STATE_ERR] = "invalid EE context state",
		[IBV_WC_FATAL_ERR] = "fatal error",
		[IBV_WC_RESP_TIMEOUT_ERR] = "response timeout error",
		[IBV_WC_GENERAL_ERR] = "general error",
		[IBV_WC_TM_ERR] = "TM error",
		[IBV_WC_TM_RNDV_INCOMPLETE] = "TM software rendezvous",
	};

	if ((unsigned int)status < RTE_DIM(s) && s[status])
		return s[status];
	return "unknown";
}

const char *
ibv_node_type_str(enum ibv_node_type node_type)
{
	static const char *const s[] = {
		[IBV_NODE_CA] = "InfiniBand channel adapter",
		[IBV_NODE_SWITCH] = "InfiniBand switch",
		[IBV_NODE_ROUTER] = "InfiniBand router",
		[IBV_NODE_RNIC] = "iWARP NIC",
		[IBV_NODE_USNIC] = "usNIC",
		[IBV_NODE_USNIC_UDP] = "usNIC UDP",
		[IBV_NODE_UNSPECIFIED] = "unspecified",
	};

	if (node_type >= 0 && (unsigned int)node_type < RTE_DIM(s) &&
	    s[node_type])
		return s[node_type];
	return "unknown";
}

const char *
ibv_port_state_str(enum ibv_port_state port_state)
{
	static const char *const s[] = {
		[IBV_PORT_NOP] = "PORT_NOP",
		[IBV_PORT_DOWN] = "PORT_DOWN",
		[IBV_PORT_INIT] = "PORT_INIT",
		[IBV_PORT_ARMED] = "PORT_ARMED",
		[IBV_PORT_ACTIVE] = "PORT_ACTIVE",
		[IBV_PORT_ACTIVE_DEFER] = "PORT_ACTIVE_DEFER",
	};

	if ((unsigned int)port_state < RTE_DIM(s))
		return s[port_state];
	return "invalid state";
}

const char *
ibv_event_type_str(enum ibv_event_type event)
{
	static const char *const s[] = {
		[IBV_EVENT_CQ_ERR] = "CQ error",
		[IBV_EVENT_QP_FATAL] = "local work queue catastrophic error",
		[IBV_EVENT_QP_REQ_ERR] =
			"invalid request local work queue error",
		[IBV_EVENT_QP_ACCESS_ERR] =
			"local access violation work queue error",
		[IBV_EVENT_COMM_EST] = "communication established",
		[IBV_EVENT_SQ_DRAINED] = "send queue drained",
		[IBV_EVENT_PATH_MIG] = "path migrated",
		[IBV_EVENT_PATH_MIG_ERR] = "path migration request error",
		[IBV_EVENT_DEVICE_FATAL] = "local catastrophic error",
		[IBV_EVENT_PORT_ACTIVE] = "port active",
		[IBV_EVENT_PORT_ERR] = "port error",
		[IBV_EVENT_LID_CHANGE] = "LID change",
		[IBV_EVENT_PKEY_CHANGE] = "P_Key change",
		[IBV_EVENT_SM_CHANGE] = "SM change",
		[IBV_EVENT_SRQ_ERR] = "SRQ catastrophic error",
		[IBV_EVENT_SRQ_LIMIT_REACHED] = "SRQ limit reached",
		[IBV_EVENT_QP_LAST_WQE_REACHED] = "last WQE reached",
		[IBV_EVENT_CLIENT_REREGISTER] = "client reregistration",
		[IBV_EVENT_GID_CHANGE] = "GID table change",
		[IBV_EVENT_WQ_FATAL] = "WQ fatal",
	};

	if ((unsigned int)event < RTE_DIM(s) && s[event])
		return s[event];
	return "unknown";
}

/* ---------------------------------------------------------------------- */
/* Rates                                                                   */

/* enum ibv_rate -> Mb/s (signalling rate as the IB spec lists it) and the
 * multiple of 2.5 Gb/s for the original rates (0 for later ones). */
static const struct {
	enum ibv_rate rate;
	int mbps;
	int mult;
} rate_tbl[] = {
	{IBV_RATE_2_5_GBPS, 2500, 1},	  {IBV_RATE_5_GBPS, 5000, 2},
	{IBV_RATE_10_GBPS, 10000, 4},	  {IBV_RATE_14_GBPS, 14062, 0},
	{IBV_RATE_20_GBPS, 20000, 8},	  {IBV_RATE_25_GBPS, 25781, 0},
	{IBV_RATE_28_GBPS, 28125, 0},	  {IBV_RATE_30_GBPS, 30000, 12},
	{IBV_RATE_40_GBPS, 40000, 16},	  {IBV_RATE_50_GBPS, 53125, 0},
	{IBV_RATE_56_GBPS, 56250, 0},	  {IBV_RATE_60_GBPS, 60000, 24},
	{IBV_RATE_80_GBPS, 80000, 32},	  {IBV_RATE_100_GBPS, 103125, 0},
	{IBV_RATE_112_GBPS, 112500, 0},	  {IBV_RATE_120_GBPS, 120000, 48},
	{IBV_RATE_168_GBPS, 168750, 0},	  {IBV_RATE_200_GBPS, 206250, 0},
	{IBV_RATE_300_GBPS, 309375, 0},	  {IBV_RATE_400_GBPS, 425000, 0},
	{IBV_RATE_600_GBPS, 637500, 0},	  {IBV_RATE_800_GBPS, 850000, 0},
	{IBV_RATE_1200_GBPS, 1275000, 0},
};

int
ibv_rate_to_mult(enum ibv_rate rate)
{
	for (size_t i = 0; i < RTE_DIM(rate_tbl); i++)
		if (rate_tbl[i].rate == rate && rate_tbl[i].mult)
			return rate_tbl[i].mult;
	return -1;
}

enum ibv_rate
mult_to_ibv_rate(int mult)
{
	for (size_t i = 0; i < RTE_DIM(rate_tbl); i++)
		if (rate_tbl[i].mult && rate_tbl[i].mult == mult)
			return rate_tbl[i].rate;
	return IBV_RATE_MAX;
}

int
ibv_rate_to_mbps(enum ibv_rate rate)
{
	for (size_t i = 0; i < RTE_DIM(rate_tbl); i++)
		if (rate_tbl[i].rate == rate)
			return rate_tbl[i].mbps;
	return -1;
}

enum ibv_rate
mbps_to_ibv_rate(int mbps)
{
	for (size_t i = 0; i < RTE_DIM(rate_tbl); i++)
		if (rate_tbl[i].mbps == mbps)
			return rate_tbl[i].rate;
	return IBV_RATE_MAX;
}

/* ---------------------------------------------------------------------- */
/* Kernel ABI copies (<infiniband/marshall.h>, no longer installed)         */

void ibv_copy_ah_attr_from_kern(struct ibv_ah_attr *dst,
				struct ib_uverbs_ah_attr *src);
void ibv_copy_qp_attr_from_kern(struct ibv_qp_attr *dst,
				struct ib_uverbs_qp_attr *src);
void ibv_copy_path_rec_from_kern(struct ibv_sa_path_rec *dst,
				 struct ib_user_path_rec *src);
void ibv_copy_path_rec_to_kern(struct ib_user_path_rec *dst,
			       struct ibv_sa_path_rec *src);

void
ibv_copy_ah_attr_from_kern(struct ibv_ah_attr *dst,
			   struct ib_uverbs_ah_attr *src)
{
	memcpy(dst->grh.dgid.raw, src->grh.dgid, sizeof(dst->grh.dgid));
	dst->grh.flow_label = src->grh.flow_label;
	dst->grh.sgid_index = src->grh.sgid_index;
	dst->grh.hop_limit = src->grh.hop_limit;
	dst->grh.traffic_class = src->grh.traffic_class;
	dst->dlid = src->dlid;
	dst->sl = src->sl;
	dst->src_path_bits = src->src_path_bits;
	dst->static_rate = src->static_rate;
	dst->is_global = src->is_global;
	dst->port_num = src->port_num;
}

void
ibv_copy_qp_attr_from_kern(struct ibv_qp_attr *dst,
			   struct ib_uverbs_qp_attr *src)
{
	dst->cur_qp_state = src->cur_qp_state;
	dst->path_mtu = src->path_mtu;
	dst->path_mig_state = src->path_mig_state;
	dst->qkey = src->qkey;
	dst->rq_psn = src->rq_psn;
	dst->sq_psn = src->sq_psn;
	dst->dest_qp_num = src->dest_qp_num;
	dst->qp_access_flags = src->qp_access_flags;
	dst->cap.max_send_wr = src->max_send_wr;
	dst->cap.max_recv_wr = src->max_recv_wr;
	dst->cap.max_send_sge = src->max_send_sge;
	dst->cap.max_recv_sge = src->max_recv_sge;
	dst->cap.max_inline_data = src->max_inline_data;
	ibv_copy_ah_attr_from_kern(&dst->ah_attr, &src->ah_attr);
	ibv_copy_ah_attr_from_kern(&dst->alt_ah_attr, &src->alt_ah_attr);
	dst->pkey_index = src->pkey_index;
	dst->alt_pkey_index = src->alt_pkey_index;
	dst->en_sqd_async_notify = src->en_sqd_async_notify;
	dst->sq_draining = src->sq_draining;
	dst->max_rd_atomic = src->max_rd_atomic;
	dst->max_dest_rd_atomic = src->max_dest_rd_atomic;
	dst->min_rnr_timer = src->min_rnr_timer;
	dst->port_num = src->port_num;
	dst->timeout = src->timeout;
	dst->retry_cnt = src->retry_cnt;
	dst->rnr_retry = src->rnr_retry;
	dst->alt_port_num = src->alt_port_num;
	dst->alt_timeout = src->alt_timeout;
}

void
ibv_copy_path_rec_from_kern(struct ibv_sa_path_rec *dst,
			    struct ib_user_path_rec *src)
{
	memcpy(dst->dgid.raw, src->dgid, sizeof(dst->dgid));
	memcpy(dst->sgid.raw, src->sgid, sizeof(dst->sgid));
	dst->dlid = src->dlid;
	dst->slid = src->slid;
	dst->raw_traffic = (int)src->raw_traffic;
	dst->flow_label = src->flow_label;
	dst->hop_limit = src->hop_limit;
	dst->traffic_class = src->traffic_class;
	dst->reversible = (int)src->reversible;
	dst->numb_path = src->numb_path;
	dst->pkey = src->pkey;
	dst->sl = src->sl;
	dst->mtu_selector = src->mtu_selector;
	dst->mtu = (uint8_t)src->mtu;
	dst->rate_selector = src->rate_selector;
	dst->rate = src->rate;
	dst->packet_life_time_selector = src->packet_life_time_selector;
	dst->packet_life_time = src->packet_life_time;
	dst->preference = src->preference;
}

void
ibv_copy_path_rec_to_kern(struct ib_user_path_rec *dst,
			  struct ibv_sa_path_rec *src)
{
	memset(dst, 0, sizeof(*dst));
	memcpy(dst->dgid, src->dgid.raw, sizeof(dst->dgid));
	memcpy(dst->sgid, src->sgid.raw, sizeof(dst->sgid));
	dst->dlid = src->dlid;
	dst->slid = src->slid;
	dst->raw_traffic = src->raw_traffic ? 1 : 0;
	dst->flow_label = src->flow_label;
	dst->hop_limit = src->hop_limit;
	dst->traffic_class = src->traffic_class;
	dst->reversible = src->reversible ? 1 : 0;
	dst->numb_path = src->numb_path;
	dst->pkey = src->pkey;
	dst->sl = src->sl;
	dst->mtu_selector = src->mtu_selector;
	dst->mtu = src->mtu;
	dst->rate_selector = src->rate_selector;
	dst->rate = src->rate;
	dst->packet_life_time_selector = src->packet_life_time_selector;
	dst->packet_life_time = src->packet_life_time;
	dst->preference = src->preference;
}

/* ---------------------------------------------------------------------- */
/* sysfs                                                                   */

const char *ibv_get_sysfs_path(void);
int ibv_read_sysfs_file(const char *dir, const char *file, char *buf,
			size_t size);
int ibv_read_ibdev_sysfs_file(char *buf, size_t size, struct ibv_device *dev,
			      const char *fnfmt, ...);

const char *
ibv_get_sysfs_path(void)
{
	const char *env = getenv("SYSFS_PATH");

	return env && env[0] ? env : "/sys";
}

/* Attributes of our devices, which have no sysfs directory: answered from
 * the device itself. @return the length, or -1 if not one of ours. */
static int
dpv_sysfs_attr(const char *dir, const char *file, char *buf, size_t size)
{
	const char *base = strrchr(dir, '/');
	struct dpv_device *dev;
	char v[64];
	int n;

	if (base == NULL || strncmp(dir, "/sys/class/infiniband/",
				    strlen("/sys/class/infiniband/")) != 0)
		return -1;
	dev = dpv_verbs_device_lookup(base + 1);
	if (dev == NULL || size == 0)
		return -1;
	const uint8_t *g = (const uint8_t *)&dev->guid_be;

	if (strcmp(file, "board_id") == 0)
		snprintf(v, sizeof(v), "DPV%04x", dev->vendor_part_id);
	else if (strcmp(file, "hca_type") == 0 && dev->mlx5_personality)
		snprintf(v, sizeof(v), "MT%u", dev->vendor_part_id);
	else if (strcmp(file, "hca_type") == 0)
		snprintf(v, sizeof(v), "dpverbs");
	else if (strcmp(file, "hw_rev") == 0)
		snprintf(v, sizeof(v), "%u", dev->hw_ver);
	else if (strcmp(file, "node_type") == 0)
		snprintf(v, sizeof(v), "1: CA");
	else if (strcmp(file, "node_guid") == 0 ||
		 strcmp(file, "sys_image_guid") == 0)
		snprintf(v, sizeof(v), "%02x%02x:%02x%02x:%02x%02x:%02x%02x",
			 g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7]);
	else {
		errno = ENOENT;
		return -2;
	}
	n = snprintf(buf, size, "%s", v);
	return n >= (int)size ? (int)size - 1 : n;
}

int
ibv_read_sysfs_file(const char *dir, const char *file, char *buf, size_t size)
{
	char path[512];
	ssize_t len;
	int fd, n;

	n = dpv_sysfs_attr(dir, file, buf, size);
	if (n >= 0)
		return n;
	if (n == -2)
		return -1;
	if (snprintf(path, sizeof(path), "%s/%s", dir, file) >=
	    (int)sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	len = read(fd, buf, size);
	close(fd);
	if (len < 0)
		return -1;
	if (len > 0 && (size_t)len == size)
		len--;
	if (len > 0 && buf[len - 1] == '\n')
		len--;
	buf[len] = '\0';
	return (int)len;
}

int
ibv_read_ibdev_sysfs_file(char *buf, size_t size, struct ibv_device *dev,
			  const char *fnfmt, ...)
{
	char file[256];
	va_list ap;

	va_start(ap, fnfmt);
	if (vsnprintf(file, sizeof(file), fnfmt, ap) >= (int)sizeof(file)) {
		va_end(ap);
		errno = ENAMETOOLONG;
		return -1;
	}
	va_end(ap);
	return ibv_read_sysfs_file(dev->ibdev_path, file, buf, size);
}

void *
dpv_zalloc_lines(size_t size)
{
	size_t sz = RTE_ALIGN_CEIL(size, RTE_CACHE_LINE_SIZE);
	void *p = aligned_alloc(RTE_CACHE_LINE_SIZE, sz);

	if (p != NULL)
		memset(p, 0, sz);
	return p;
}

bool
dpv_single_threaded(void)
{
	/* -1 not read yet; reading it twice at once gives the same answer */
	static int st = -1;
	int v = __atomic_load_n(&st, __ATOMIC_RELAXED);

	if (unlikely(v < 0)) {
		const char *e = getenv("MLX5_SINGLE_THREADED");

		v = e != NULL && strcmp(e, "1") == 0;
		__atomic_store_n(&st, v, __ATOMIC_RELAXED);
	}
	return v;
}

void
dpv_vlock_violation(void)
{
	fprintf(stderr,
		"dpverbs: two threads inside one queue or CQ whose lock the "
		"application waived (MLX5_SINGLE_THREADED=1, a thread domain "
		"or IBV_CREATE_CQ_ATTR_SINGLE_THREADED); unset or drop it\n");
	abort();
}
