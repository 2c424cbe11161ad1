/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Device, port, GID and P_Key queries.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_byteorder.h>

#include "dpv_build_config.h"
#include "dpv_engine.h"
#include "dpv_tm.h"
#include "verbs_int.h"
#include "verbs_ops.h"
#include "verbs_port.h"

/* rdma-core's sysfs GID type values (ibv_query_gid_type) */
#define DPV_GID_TYPE_SYSFS_ROCE_V2 1

/* Worst-case RoCEv2 overhead inside the L3 MTU: IPv6 40 + UDP 8 + BTH 12
 * + up to 16 bytes of extended headers + ICRC 4. */
#define DPV_ROCE_OVERHEAD (40 + 8 + 12 + 16 + 4)

static bool
port_info(struct dpv_device *dev, struct dpv_port_info *info)
{
	memset(info, 0, sizeof(*info));
	return dpv_port_query(dev->port, info) == 0;
}

static enum ibv_mtu
mtu_fit(uint32_t l3_mtu)
{
	enum ibv_mtu m = IBV_MTU_4096;

	if (l3_mtu < DPV_ROCE_OVERHEAD + 256)
		return IBV_MTU_256;
	while (m > IBV_MTU_256 &&
	       (uint32_t)(128u << m) > l3_mtu - DPV_ROCE_OVERHEAD)
		m--;
	return m;
}

enum ibv_mtu
dpv_port_active_mtu(struct dpv_device *dev)
{
	struct dpv_port_info info;

	if (!port_info(dev, &info) || info.mtu == 0)
		return IBV_MTU_1024;
	return mtu_fit(info.mtu);
}

/* IB speed / width pair that best describes an Ethernet link speed. */
static void
link_speed(uint32_t mbps, uint8_t *speed, uint8_t *width)
{
	static const struct {
		uint32_t max_mbps;
		uint8_t speed, width;
	} tbl[] = {
		{2500, 1, 1},	      /* SDR 1X */
		{5000, 2, 1},	      /* DDR 1X */
		{10000, 4, 1},	      /* QDR 1X */
		{14000, 16, 1},	      /* FDR 1X */
		{25000, 32, 1},	      /* EDR 1X */
		{40000, 4, 2},	      /* QDR 4X */
		{50000, 64, 1},	      /* HDR 1X */
		{56000, 16, 2},	      /* FDR 4X */
		{100000, 32, 2},      /* EDR 4X */
		{200000, 64, 2},      /* HDR 4X */
		{UINT32_MAX, 128, 2}, /* NDR 4X */
	};

	if (mbps == 0)
		mbps = 10000; /* unknown (virtual ports): report 10 Gb/s */
	for (size_t i = 0; i < RTE_DIM(tbl); i++) {
		if (mbps <= tbl[i].max_mbps) {
			*speed = tbl[i].speed;
			*width = tbl[i].width;
			return;
		}
	}
}

static void
fill_port_attr(struct dpv_device *dev, struct ibv_port_attr *a)
{
	struct dpv_engine_stats st;
	struct dpv_port_info info;
	bool configured, up;

	/*
	 * A configured port is ACTIVE like a NIC with its cable in, even while
	 * its link is down (a memif port until its peer process connects):
	 * tools such as perftest refuse a port that is not ACTIVE, and RC
	 * retransmission covers frames sent before the link comes up. The
	 * physical state tells the truth: LinkUp or Polling.
	 */
	memset(a, 0, sizeof(*a));
	configured = port_info(dev, &info);
	up = configured && info.link_up;
	a->state = configured ? IBV_PORT_ACTIVE : IBV_PORT_DOWN;
	a->max_mtu = IBV_MTU_4096;
	a->active_mtu = info.mtu ? mtu_fit(info.mtu) : IBV_MTU_1024;
	a->gid_tbl_len = DPV_CAP_GID_TBL_LEN;
	a->port_cap_flags = IBV_PORT_IP_BASED_GIDS;
	a->max_msg_sz = DPV_PORT_MAX_MSG_SZ;
	a->pkey_tbl_len = DPV_CAP_PKEY_TBL_LEN;
	a->lid = 0;
	a->sm_lid = 0;
	a->max_vl_num = DPV_PORT_MAX_VL_NUM;
	link_speed(info.speed_mbps, &a->active_speed, &a->active_width);
	a->phys_state = up	    ? 5 /* LinkUp */
			: configured ? 2 /* Polling */
				     : 3 /* Disabled */;
	a->link_layer = IBV_LINK_LAYER_ETHERNET;
	a->flags = IBV_QPF_GRH_REQUIRED;
	/* the two violation counters the port attributes have room for
	 * (IBV_DEVICE_BAD_PKEY_CNTR / _QKEY_CNTR); 32 bits, they saturate */
	if (dev->engine != NULL &&
	    dpv_dev_engine_stats(dev, &st) == 0) {
		a->bad_pkey_cntr = (uint32_t)RTE_MIN(st.rx_drop_pkey,
						     (uint64_t)UINT32_MAX);
		a->qkey_viol_cntr = (uint32_t)RTE_MIN(st.rx_drop_qkey,
						      (uint64_t)UINT32_MAX);
	}
}

int
dpv_query_port_op(struct ibv_context *context, uint8_t port_num,
		  struct ibv_port_attr *port_attr, size_t port_attr_len)
{
	struct ibv_port_attr a;

	if (port_num != 1)
		return EINVAL;
	fill_port_attr(dctx_dev(context), &a);
	memset(port_attr, 0, port_attr_len);
	memcpy(port_attr, &a, RTE_MIN(port_attr_len, sizeof(a)));
	return 0;
}

/* The exported symbol takes the old, shorter structure (fields up to and
 * including flags); write only that prefix. */
#undef ibv_query_port
int
ibv_query_port(struct ibv_context *context, uint8_t port_num,
	       struct _compat_ibv_port_attr *port_attr)
{
	return dpv_query_port_op(
		context, port_num, (struct ibv_port_attr *)port_attr,
		offsetof(struct ibv_port_attr, port_cap_flags2));
}

/* ---------------------------------------------------------------------- */

static void
fill_device_attr(struct dpv_device *dev, struct ibv_device_attr *a)
{
	memset(a, 0, sizeof(*a));
	snprintf(a->fw_ver, sizeof(a->fw_ver), "dpverbs %s", DPV_VERSION);
	a->node_guid = dev->guid_be;
	a->sys_image_guid = dev->guid_be;
	a->max_mr_size = DPV_CAP_MAX_MR_SIZE;
	a->page_size_cap = DPV_CAP_PAGE_SIZE_CAP;
	a->vendor_id = dev->vendor_id;
	a->vendor_part_id = dev->vendor_part_id;
	a->hw_ver = dev->hw_ver;
	a->max_qp = DPV_CAP_MAX_QP;
	a->max_qp_wr = DPV_CAP_MAX_QP_WR;
	a->device_cap_flags = DPV_CAP_DEVICE_FLAGS;
	if (dev->engine != NULL) /* raw QPs: checksums in software */
		a->device_cap_flags |= IBV_DEVICE_RAW_IP_CSUM;
	a->max_sge = DPV_CAP_MAX_SGE;
	a->max_sge_rd = DPV_CAP_MAX_SGE_RD;
	a->max_cq = DPV_CAP_MAX_CQ;
	a->max_cqe = DPV_CAP_MAX_CQE;
	a->max_mr = DPV_CAP_MAX_MR - 2; /* slots 0 and 1 unused */
	a->max_pd = DPV_CAP_MAX_PD;
	a->max_qp_rd_atom = DPV_CAP_MAX_QP_RD_ATOM;
	a->max_res_rd_atom = DPV_CAP_MAX_RES_RD_ATOM;
	a->max_qp_init_rd_atom = DPV_CAP_MAX_QP_INIT_RD_ATOM;
	a->atomic_cap = DPV_CAP_ATOMIC;
	a->max_mw = DPV_CAP_MW ? DPV_CAP_MAX_MW : 0;
	a->max_mcast_grp = DPV_CAP_MAX_MCAST_GRP;
	a->max_mcast_qp_attach = DPV_CAP_MAX_MCAST_QP_ATTACH;
	a->max_total_mcast_qp_attach =
		DPV_CAP_MAX_MCAST_GRP * DPV_CAP_MAX_MCAST_QP_ATTACH;
	a->max_ah = DPV_CAP_MAX_AH;
	a->max_srq = DPV_CAP_MAX_SRQ;
	a->max_srq_wr = DPV_CAP_MAX_SRQ_WR;
	a->max_srq_sge = DPV_CAP_MAX_SRQ_SGE;
	a->max_pkeys = DPV_CAP_MAX_PKEYS;
	a->local_ca_ack_delay = DPV_CAP_LOCAL_CA_ACK_DELAY;
	a->phys_port_cnt = 1;
}

int
ibv_query_device(struct ibv_context *context,
		 struct ibv_device_attr *device_attr)
{
	fill_device_attr(dctx_dev(context), device_attr);
	return 0;
}

int
dpv_query_device_ex_op(struct ibv_context *context,
		       const struct ibv_query_device_ex_input *input,
		       struct ibv_device_attr_ex *attr, size_t attr_size)
{
	struct ibv_device_attr_ex a;

	if (input && input->comp_mask)
		return EINVAL;
	if (attr_size < sizeof(attr->orig_attr))
		return EINVAL;
	memset(&a, 0, sizeof(a));
	fill_device_attr(dctx_dev(context), &a.orig_attr);
	a.phys_port_cnt_ex = a.orig_attr.phys_port_cnt;
	/* the 64-bit flags repeat the 32-bit ones (rdma-core and the kernel
	 * do; programs read this field); no flag above bit 31 applies */
	a.device_cap_flags_ex = (uint32_t)a.orig_attr.device_cap_flags;
	if (dctx_dev(context)->engine != NULL) {
		/* raw packet (verbs_wq.c, verbs_flow.c, qp_raw.c): RSS and
		 * WQs, offloads, TSO and pacing in software */
		a.rss_caps.supported_qpts = 1u << IBV_QPT_RAW_PACKET;
		a.rss_caps.max_rwq_indirection_tables = DPV_CAP_RSS_MAX_TBLS;
		a.rss_caps.max_rwq_indirection_table_size =
			1u << DPV_CAP_RSS_LOG_TBL_SIZE;
		a.rss_caps.rx_hash_function = IBV_RX_HASH_FUNC_TOEPLITZ;
		a.rss_caps.rx_hash_fields_mask =
			IBV_RX_HASH_SRC_IPV4 | IBV_RX_HASH_DST_IPV4 |
			IBV_RX_HASH_SRC_IPV6 | IBV_RX_HASH_DST_IPV6 |
			IBV_RX_HASH_SRC_PORT_TCP | IBV_RX_HASH_DST_PORT_TCP |
			IBV_RX_HASH_SRC_PORT_UDP | IBV_RX_HASH_DST_PORT_UDP |
			IBV_RX_HASH_INNER; /* verbs_wq.c, engine_raw.c */
		a.max_wq_type_rq = DPV_CAP_MAX_WQ_TYPE_RQ;
		a.raw_packet_caps = DPV_CAP_RAW_PACKET;
		/* accepted on raw QPs and WQs, with no effect: nothing
		 * crosses a PCI bus (qp_raw.c, verbs_wq.c) */
		a.device_cap_flags_ex |= IBV_DEVICE_RAW_SCATTER_FCS |
					 IBV_DEVICE_PCI_WRITE_END_PADDING;
		a.packet_pacing_caps.qp_rate_limit_min = DPV_CAP_RATE_LIMIT_MIN;
		a.packet_pacing_caps.qp_rate_limit_max = DPV_CAP_RATE_LIMIT_MAX;
		a.packet_pacing_caps.supported_qpts =
			1u << IBV_QPT_RAW_PACKET;
		a.tso_caps.max_tso = DPV_CAP_MAX_TSO;
		a.tso_caps.supported_qpts = 1u << IBV_QPT_RAW_PACKET;
		/* on-demand paging (verbs_caps.h): implicit regions where
		 * the engine can check their accesses */
		a.odp_caps.general_caps = IBV_ODP_SUPPORT;
		if (dpv_engine_mem_fault_supported())
			a.odp_caps.general_caps |= IBV_ODP_SUPPORT_IMPLICIT;
		a.odp_caps.per_transport_caps.rc_odp_caps = DPV_CAP_ODP_RC;
		a.odp_caps.per_transport_caps.uc_odp_caps = DPV_CAP_ODP_UC;
		a.odp_caps.per_transport_caps.ud_odp_caps = DPV_CAP_ODP_UD;
		a.xrc_odp_caps = DPV_CAP_ODP_SRQ_TRANSPORT;
		/* completion event moderation (verbs_cq.c, any ring format:
		 * the engine raises every format's events) */
		a.cq_mod_caps.max_cq_count = DPV_CAP_CQ_MOD_MAX_COUNT;
		a.cq_mod_caps.max_cq_period = DPV_CAP_CQ_MOD_MAX_PERIOD;
		/* device memory (verbs_dm.c) */
		a.max_dm_size = DPV_CAP_MAX_DM_SIZE;
		/* completion time stamps: the CPU's time-stamp counter, all
		 * 64 bits of it (verbs_clock.c) */
		a.completion_timestamp_mask = UINT64_MAX;
		a.hca_core_clock = dpv_clock_khz();
	}
	if (dpv_tm_supported(dctx_dev(context))) {
		/* tag matching SRQs for RC QPs (dpv_tm.h, engine_tm.c) */
		a.tm_caps.max_rndv_hdr_size = DPV_TM_MAX_RNDV_HDR;
		a.tm_caps.max_num_tags = DPV_TM_MAX_TAGS;
		a.tm_caps.flags = IBV_TM_CAP_RC;
		a.tm_caps.max_ops = DPV_TM_MAX_OPS;
		a.tm_caps.max_sge = DPV_TM_MAX_SGE;
	}
	if (dctx_dev(context)->engine != NULL &&
	    (dctx_dev(context)->ring_ops->caps & DPV_RING_CAP_WR_EX))
		/* RC ATOMIC WRITE through ibv_wr_atomic_write() (qp_ex.c);
		 * the kernel's IB_UVERBS_DEVICE_ATOMIC_WRITE, which rdma-core
		 * 44's headers do not name */
		a.device_cap_flags_ex |= DPV_DEVICE_ATOMIC_WRITE;
	if (!(dctx_dev(context)->ring_ops->caps & DPV_RING_CAP_WR_EX)) {
		/* "rings = mlx4": no TSO (qp.c refuses it) */
		memset(&a.tso_caps, 0, sizeof(a.tso_caps));
	}
	if (!(dctx_dev(context)->ring_ops->caps & DPV_RING_CAP_RSS)) {
		memset(&a.rss_caps, 0, sizeof(a.rss_caps));
		a.max_wq_type_rq = 0;
	}
	memset(attr, 0, attr_size);
	memcpy(attr, &a, RTE_MIN(attr_size, sizeof(a)));
	return 0;
}

/* ---------------------------------------------------------------------- */

int
dpv_gid_get(struct ibv_context *ctx, uint8_t port, unsigned int index,
	    union ibv_gid *gid)
{
	struct dpv_device *dev = dctx_dev(ctx);
	int rc;

	if (port != 1 || index >= DPV_CAP_GID_TBL_LEN)
		return EINVAL;
	rc = dpv_port_gid(dev->port, index, gid->raw);
	if (rc == -EINVAL)
		return EINVAL;
	if (rc != 0)
		return ENODATA;
	/* an all-zero GID is an empty slot too */
	for (int i = 0; i < 16; i++)
		if (gid->raw[i])
			return 0;
	return ENODATA;
}

int
ibv_query_gid(struct ibv_context *context, uint8_t port_num, int index,
	      union ibv_gid *gid)
{
	int rc;

	if (index < 0) {
		errno = EINVAL;
		return -1;
	}
	rc = dpv_gid_get(context, port_num, (unsigned int)index, gid);
	if (rc == ENODATA) {
		/* API behaviour kept by rdma-core: an empty entry reads as 0 */
		memset(gid, 0, sizeof(*gid));
		return 0;
	}
	if (rc != 0) {
		errno = rc;
		return -1;
	}
	return 0;
}

/* ifindex of the device's kernel interface, 0 if none */
static uint32_t
dpv_dev_ifindex(struct dpv_device *dev)
{
	struct dpv_port_info info;

	if (dev->port == NULL ||
	    dpv_port_query(dev->port, &info) != 0 || info.netdev_ifindex <= 0)
		return 0;
	return (uint32_t)info.netdev_ifindex;
}

static int
gid_entry(struct ibv_context *context, uint32_t port, uint32_t index,
	  struct ibv_gid_entry *e)
{
	int rc;

	if (port > UINT8_MAX)
		return EINVAL;
	memset(e, 0, sizeof(*e));
	rc = dpv_gid_get(context, (uint8_t)port, index, &e->gid);
	if (rc != 0)
		return rc;
	e->gid_index = index;
	e->port_num = port;
	e->gid_type = IBV_GID_TYPE_ROCE_V2;
	/* the device's kernel interface carries its addresses (0: none) */
	e->ndev_ifindex = dpv_dev_ifindex(dctx_dev(context));
	return 0;
}

int
_ibv_query_gid_ex(struct ibv_context *context, uint32_t port_num,
		  uint32_t gid_index, struct ibv_gid_entry *entry,
		  uint32_t flags, size_t entry_size)
{
	struct ibv_gid_entry e;
	int rc;

	if (flags || entry_size < sizeof(*entry))
		return EINVAL;
	rc = gid_entry(context, port_num, gid_index, &e);
	if (rc != 0)
		return rc;
	memset(entry, 0, entry_size);
	memcpy(entry, &e, sizeof(e));
	return 0;
}

ssize_t
_ibv_query_gid_table(struct ibv_context *context, struct ibv_gid_entry *entries,
		     size_t max_entries, uint32_t flags, size_t entry_size)
{
	size_t n = 0;

	if (flags || entry_size < sizeof(*entries))
		return -EINVAL;
	for (uint32_t i = 0; i < DPV_CAP_GID_TBL_LEN; i++) {
		struct ibv_gid_entry e;

		if (gid_entry(context, 1, i, &e) != 0)
			continue;
		if (n >= max_entries)
			return -EINVAL;
		memset((char *)entries + n * entry_size, 0, entry_size);
		memcpy((char *)entries + n * entry_size, &e, sizeof(e));
		n++;
	}
	return (ssize_t)n;
}

int ibv_query_gid_type(struct ibv_context *context, uint8_t port_num,
		       unsigned int index, unsigned int *type);
int
ibv_query_gid_type(struct ibv_context *context, uint8_t port_num,
		   unsigned int index, unsigned int *type)
{
	union ibv_gid gid;
	int rc = dpv_gid_get(context, port_num, index, &gid);

	if (rc != 0) {
		errno = rc;
		return -1;
	}
	*type = DPV_GID_TYPE_SYSFS_ROCE_V2;
	return 0;
}

int
ibv_query_pkey(struct ibv_context *context, uint8_t port_num, int index,
	       __be16 *pkey)
{
	if (port_num != 1 || index < 0 || index >= DPV_CAP_PKEY_TBL_LEN) {
		errno = EINVAL;
		return -1;
	}
	*pkey = rte_cpu_to_be_16(0xffff); /* default full-member P_Key */
	return 0;
}

int
ibv_get_pkey_index(struct ibv_context *context, uint8_t port_num, __be16 pkey)
{
	for (int i = 0; i < DPV_CAP_PKEY_TBL_LEN; i++) {
		__be16 v;

		if (ibv_query_pkey(context, port_num, i, &v) != 0)
			return -1;
		if (v == pkey)
			return i;
	}
	errno = ENOENT;
	return -1;
}

/* Enhanced connection establishment: the vendor ID a peer's CM sees (for
 * the mlx5 personality Mellanox's PCI vendor ID, as mlx5 reports it) and
 * the options this device supports, none: ECE only carries the
 * negotiation (doc/guides/rdmacm.rst). */
#define DPV_ECE_MLX5_VENDOR 0x15b3
#define DPV_ECE_OPTIONS	    0u

static uint32_t
ece_vendor(struct ibv_qp *qp)
{
	struct dpv_device *dev = dctx_dev(qp->context);

	return dev->mlx5_personality ? DPV_ECE_MLX5_VENDOR : dev->vendor_id;
}

int
ibv_query_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	if (qp == NULL || ece == NULL)
		return errno = EINVAL;
	ece->vendor_id = ece_vendor(qp);
	ece->options = DPV_ECE_OPTIONS;
	ece->comp_mask = 0;
	return 0;
}

int
ibv_set_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	if (qp == NULL || ece == NULL || ece->comp_mask != 0 ||
	    ece->vendor_id != ece_vendor(qp) ||
	    (ece->options & ~DPV_ECE_OPTIONS) != 0)
		return errno = EINVAL;
	return 0; /* nothing to enable: every option we know is on */
}
