/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libmlx5.so.1 core: device identity, context, and the QP / CQ / WQ
 * creation entry points of <infiniband/mlx5dv.h>.
 *
 * Real: mlx5dv_is_supported, mlx5dv_query_device, mlx5dv_open_device
 * (without DEVX), mlx5dv_init_obj (QP, CQ, SRQ, AH, PD),
 * mlx5dv_qp_ex_from_ibv_qp_ex (the indirect-key and raw-WQE builders; the others
 * EOPNOTSUPP), indirect memory keys (mlx5dv_create_mkey /
 * mlx5dv_destroy_mkey), and mlx5dv_create_qp / _cq / _wq when no
 * mlx5-specific attribute is requested (they are then the plain verbs).
 * Everything else here answers EOPNOTSUPP.
 */

#include <stdint.h>

#include "dv_mlx5.h"
#include "verbs_dv.h"

RTE_LOG_REGISTER(dpv_logtype_dv_mlx5, dpv.dv.mlx5, NOTICE);

bool
mlx5dv_is_supported(struct ibv_device *device)
{
	return dv_mlx5_is_dpv_device(device);
}

/*
 * Capability groups answered: all but the tunnel offloads with "none"
 * (zeroed fields tell the caller the feature is absent). The clock groups
 * need a mapped HCA clock and are left out of comp_mask.
 */
#define DV_MLX5_CTX_ZERO_CAPS                                                  \
	(MLX5DV_CONTEXT_MASK_CQE_COMPRESION | MLX5DV_CONTEXT_MASK_SWP |        \
	 MLX5DV_CONTEXT_MASK_STRIDING_RQ |                                     \
	 MLX5DV_CONTEXT_MASK_TUNNEL_OFFLOADS |                                 \
	 MLX5DV_CONTEXT_MASK_DYN_BFREGS |                                      \
	 MLX5DV_CONTEXT_MASK_FLOW_ACTION_FLAGS |                               \
	 MLX5DV_CONTEXT_MASK_DC_ODP_CAPS |                                     \
	 MLX5DV_CONTEXT_MASK_SIGNATURE_OFFLOAD |                               \
	 MLX5DV_CONTEXT_MASK_DCI_STREAMS |                                     \
	 MLX5DV_CONTEXT_MASK_WR_MEMCPY_LENGTH |                                \
	 MLX5DV_CONTEXT_MASK_CRYPTO_OFFLOAD)

/* max_inline_data a QP with MLX5DV_QP_EX_WITH_MKEY_CONFIGURE may ask for
 * (the mlx5 ring's inline limit) */
#define DV_MLX5_MKEY_MAX_INLINE 512
/* log_num_errored of a DCI with streams at most (the engine's limit) */
#define DV_MLX5_DCI_MAX_LOG_ERRORED 4

/* DC on on-demand regions: SEND, RDMA WRITE / READ and atomics from a
 * DCI, receives on the DCT's SRQ */
#define DV_MLX5_DC_ODP_CAPS                                                    \
	(IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_READ |  \
	 IBV_ODP_SUPPORT_ATOMIC | IBV_ODP_SUPPORT_SRQ_RECV)

/* The tunnels whose received packets raw QPs check inside (engine_raw) */
#define DV_MLX5_TUNNEL_CAPS                                                    \
	(MLX5DV_RAW_PACKET_CAP_TUNNELED_OFFLOAD_VXLAN |                        \
	 MLX5DV_RAW_PACKET_CAP_TUNNELED_OFFLOAD_GRE |                          \
	 MLX5DV_RAW_PACKET_CAP_TUNNELED_OFFLOAD_GENEVE)

int
mlx5dv_query_device(struct ibv_context *ctx_in,
		    struct mlx5dv_context *attrs_out)
{
	struct ibv_device_attr_ex attr;
	uint64_t want;
	int ret;

	if (ctx_in == NULL || attrs_out == NULL) {
		errno = EINVAL;
		return EINVAL;
	}
	if (!dv_mlx5_is_dpv_device(ctx_in->device))
		DV_MLX5_NOTSUP_INT();
	/* Fails the same way the context would for any other query. */
	ret = ibv_query_device_ex(ctx_in, NULL, &attr);
	if (ret != 0) {
		errno = ret;
		return ret;
	}

	/* Only the fields the caller asked for are written: an older caller's
	 * struct mlx5dv_context may end before the newer fields. */
	want = attrs_out->comp_mask;
	attrs_out->version = 0;
	/* No multi-packet WQEs, no real-time clock; CQE compression below;
	 * RC
	 * QPs may use packet-based end-to-end credits (mlx5dv_create_qp);
	 * mlx5 rings have 128-byte CQEs, padded on request
	 * (mlx5dv_create_cq). */
	attrs_out->flags =
		(DV_MLX5_CQE_VERSION == 1 ? MLX5DV_CONTEXT_FLAGS_CQE_V1 : 0) |
		MLX5DV_CONTEXT_FLAGS_PACKET_BASED_CREDIT_MODE;
	if (dpv_mlx4dv_context_ok(ctx_in) != 0)
		attrs_out->flags |= MLX5DV_CONTEXT_FLAGS_CQE_128B_PAD;
	if (want & MLX5DV_CONTEXT_MASK_CQE_COMPRESION) {
		/* sessions of up to DPV_MLX5_CQE_COMP_MAX receive CQEs, in
		 * 64- and 128-byte CQEs (mlx5 rings only) */
		memset(&attrs_out->cqe_comp_caps, 0,
		       sizeof(attrs_out->cqe_comp_caps));
		if (dpv_mlx4dv_context_ok(ctx_in) != 0) {
			attrs_out->cqe_comp_caps.max_num =
				64; /* DPV_MLX5_CQE_COMP_MAX (mlx5_ring.h) */
			attrs_out->cqe_comp_caps.supported_format =
				MLX5DV_CQE_RES_FORMAT_HASH |
				MLX5DV_CQE_RES_FORMAT_CSUM |
				MLX5DV_CQE_RES_FORMAT_CSUM_STRIDX;
			attrs_out->flags |= MLX5DV_CONTEXT_FLAGS_CQE_128B_COMP;
		}
	}
	if (want & MLX5DV_CONTEXT_MASK_SWP)
		memset(&attrs_out->sw_parsing_caps, 0,
		       sizeof(attrs_out->sw_parsing_caps));
	if (want & MLX5DV_CONTEXT_MASK_STRIDING_RQ)
		memset(&attrs_out->striding_rq_caps, 0,
		       sizeof(attrs_out->striding_rq_caps));
	/* receive checksums of tunneled packets on raw-packet QPs
	 * (MLX5DV_QP_CREATE_TUNNEL_OFFLOADS), where the device has them */
	if (want & MLX5DV_CONTEXT_MASK_TUNNEL_OFFLOADS)
		attrs_out->tunnel_offloads_caps =
			attr.raw_packet_caps ? DV_MLX5_TUNNEL_CAPS : 0;
	if (want & MLX5DV_CONTEXT_MASK_DYN_BFREGS)
		attrs_out->max_dynamic_bfregs = 0;
	if (want & MLX5DV_CONTEXT_MASK_FLOW_ACTION_FLAGS)
		attrs_out->flow_action_flags = 0;
	/* DC's operations on on-demand regions: as the device's ODP (any
	 * region is on demand here, ibv_query_device_ex odp_caps), where DC
	 * QPs exist (mlx5 rings) */
	if (want & MLX5DV_CONTEXT_MASK_DC_ODP_CAPS)
		attrs_out->dc_odp_caps =
			(attr.odp_caps.general_caps & IBV_ODP_SUPPORT) &&
					dpv_mlx4dv_context_ok(ctx_in) != 0
				? DV_MLX5_DC_ODP_CAPS
				: 0;
	/* block signature of indirect keys (doc/guides/dv.rst): what the
	 * engine computes (no CRC64_XP10) */
	if (want & MLX5DV_CONTEXT_MASK_SIGNATURE_OFFLOAD) {
		attrs_out->sig_caps.block_size =
			MLX5DV_BLOCK_SIZE_CAP_512 | MLX5DV_BLOCK_SIZE_CAP_520 |
			MLX5DV_BLOCK_SIZE_CAP_4048 |
			MLX5DV_BLOCK_SIZE_CAP_4096 | MLX5DV_BLOCK_SIZE_CAP_4160;
		attrs_out->sig_caps.block_prot = MLX5DV_SIG_PROT_CAP_T10DIF |
						 MLX5DV_SIG_PROT_CAP_CRC;
		attrs_out->sig_caps.t10dif_bg = MLX5DV_SIG_T10DIF_BG_CAP_CRC |
						MLX5DV_SIG_T10DIF_BG_CAP_CSUM;
		attrs_out->sig_caps.crc_type = MLX5DV_SIG_CRC_TYPE_CAP_CRC32 |
					       MLX5DV_SIG_CRC_TYPE_CAP_CRC32C;
	}
	/* DCI streams (doc/guides/dc.rst): the limits dpverbs accepts */
	if (want & MLX5DV_CONTEXT_MASK_DCI_STREAMS) {
		attrs_out->dci_streams_caps.max_log_num_concurent =
			DPV_DCI_MAX_LOG_STREAMS;
		attrs_out->dci_streams_caps.max_log_num_errored =
			DV_MLX5_DCI_MAX_LOG_ERRORED;
	}
	if (want & MLX5DV_CONTEXT_MASK_WR_MEMCPY_LENGTH)
		attrs_out->max_wr_memcpy_length = 0;
	if (want & MLX5DV_CONTEXT_MASK_CRYPTO_OFFLOAD)
		memset(&attrs_out->crypto_caps, 0,
		       sizeof(attrs_out->crypto_caps));
	attrs_out->comp_mask = want & DV_MLX5_CTX_ZERO_CAPS;
	return 0;
}

struct ibv_context *
mlx5dv_open_device(struct ibv_device *device, struct mlx5dv_context_attr *attr)
{
	if (device == NULL) {
		errno = EINVAL;
		return NULL;
	}
	if (!dv_mlx5_is_dpv_device(device))
		DV_MLX5_NOTSUP_NULL();
	if (attr != NULL) {
		/* No comp_mask field is defined by this ABI. */
		if (attr->comp_mask != 0) {
			errno = EINVAL;
			return NULL;
		}
		/* DEVX (firmware command) contexts do not exist here. */
		if (attr->flags != 0)
			DV_MLX5_NOTSUP_NULL();
	}
	return ibv_open_device(device);
}

/* The objects' rings are only known to libibverbs.so.1: its private entry
 * (lib/verbs/verbs_dv.h, version node DPVERBS_PRIVATE_0.1) does the work. */
static int
dv_mlx5_init_obj(struct mlx5dv_obj *obj, uint64_t obj_type)
{
	int rc = dpv_mlx5dv_init_obj(obj, obj_type);

	if (rc != 0)
		DV_MLX5_LOG(DEBUG, "%s: %s", __func__, strerror(rc));
	return rc;
}

/*
 * Two versions, as in rdma-core: mlx5dv_init_obj@@MLX5_1.2 (default) and
 * mlx5dv_init_obj@MLX5_1.0 for binaries linked before MLX5_1.2. Both are
 * bound with .symver; the map lists the name in both nodes.
 */
int dv_mlx5_init_obj_v1_2(struct mlx5dv_obj *obj, uint64_t obj_type);
int dv_mlx5_init_obj_v1_0(struct mlx5dv_obj *obj, uint64_t obj_type);
_Static_assert(__builtin_types_compatible_p(__typeof__(&mlx5dv_init_obj),
					    __typeof__(&dv_mlx5_init_obj_v1_2)),
	       "mlx5dv_init_obj prototype");
__asm__(".symver dv_mlx5_init_obj_v1_2, mlx5dv_init_obj@@MLX5_1.2");
__asm__(".symver dv_mlx5_init_obj_v1_0, mlx5dv_init_obj@MLX5_1.0");

int
dv_mlx5_init_obj_v1_2(struct mlx5dv_obj *obj, uint64_t obj_type)
{
	return dv_mlx5_init_obj(obj, obj_type);
}

int
dv_mlx5_init_obj_v1_0(struct mlx5dv_obj *obj, uint64_t obj_type)
{
	return dv_mlx5_init_obj(obj, obj_type);
}

int
mlx5dv_set_context_attr(struct ibv_context *context,
			enum mlx5dv_set_ctx_attr_type type, void *attr)
{
	DV_MLX5_NOTSUP_INT();
}

/* The device clock is the CPU's time-stamp counter (lib/verbs/
 * verbs_clock.c). */
int
mlx5dv_get_clock_info(struct ibv_context *context,
		      struct mlx5dv_clock_info *clock_info)
{
	if (context == NULL)
		return EINVAL;
	if (!dv_mlx5_is_dpv_device(context->device))
		DV_MLX5_NOTSUP_INT();
	return dpv_mlx5dv_get_clock_info(context, clock_info);
}

/*
 * The port's e-switch attributes: a dpverbs port is a plain Ethernet port
 * with no e-switch, vports, steering ICM or metadata registers (and no
 * DEVX to use them with), which is what the kernel answers for a ConnectX
 * port outside switchdev mode: flags 0, every field 0. As the kernel
 * does, the caller's struct is written up to info_len, a longer one
 * zero-filled past ours.
 */
int
_mlx5dv_query_port(struct ibv_context *context, uint32_t port_num,
		   struct mlx5_ib_uapi_query_port *info, size_t info_len)
{
	struct ibv_device_attr attr;
	int rc;

	if (context == NULL || info == NULL) {
		errno = EINVAL;
		return EINVAL;
	}
	if (!dv_mlx5_is_dpv_device(context->device))
		DV_MLX5_NOTSUP_INT();
	rc = ibv_query_device(context, &attr);
	if (rc == 0 && (port_num == 0 || port_num > attr.phys_port_cnt))
		rc = EINVAL;
	if (rc != 0) {
		errno = rc;
		return rc;
	}
	memset(info, 0, info_len);
	return 0;
}

/*
 * Object creation: without mlx5-specific attributes these are the plain
 * verbs, as with rdma-core's provider. Of the mlx5 attributes the TIR
 * self-loopback and tunnel offload flags of raw-packet QPs, scatter to CQE and packet-based
 * credits of RC QPs and the Dynamically Connected QPs (DCI with or
 * without streams, DCT) are supported; the others (CQE compression, striding RQ, ...)
 * are not.
 */
struct ibv_qp *
mlx5dv_create_qp(struct ibv_context *context,
		 struct ibv_qp_init_attr_ex *qp_attr,
		 struct mlx5dv_qp_init_attr *mlx5_qp_attr)
{
	const uint32_t self_lb = MLX5DV_QP_CREATE_TIR_ALLOW_SELF_LOOPBACK_UC |
				 MLX5DV_QP_CREATE_TIR_ALLOW_SELF_LOOPBACK_MC;
	const uint32_t scat = MLX5DV_QP_CREATE_DISABLE_SCATTER_TO_CQE |
			      MLX5DV_QP_CREATE_ALLOW_SCATTER_TO_CQE;
	const uint32_t credit = MLX5DV_QP_CREATE_PACKET_BASED_CREDIT_MODE;
	const uint32_t tunnel = MLX5DV_QP_CREATE_TUNNEL_OFFLOADS;
	const uint32_t sigp = MLX5DV_QP_CREATE_SIG_PIPELINING;
	struct ibv_qp_init_attr_ex ex_attr;
	struct ibv_qp *qp;
	uint64_t ops = 0;
	uint32_t f = 0;
	int rc = 0, dc = 0;

	if (context == NULL || qp_attr == NULL) {
		errno = EINVAL;
		return NULL;
	}
	if (!dv_mlx5_is_dpv_device(context->device))
		DV_MLX5_NOTSUP_NULL();
	if (mlx5_qp_attr != NULL) {
		const uint64_t known = MLX5DV_QP_INIT_ATTR_MASK_QP_CREATE_FLAGS |
				       MLX5DV_QP_INIT_ATTR_MASK_DC |
				       MLX5DV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS |
				       MLX5DV_QP_INIT_ATTR_MASK_DCI_STREAMS;
		uint64_t cm = mlx5_qp_attr->comp_mask;

		f = (cm & MLX5DV_QP_INIT_ATTR_MASK_QP_CREATE_FLAGS)
			    ? mlx5_qp_attr->create_flags
			    : 0;
		if (cm & ~known) {
			errno = EINVAL; /* as rdma-core's provider */
			return NULL;
		}
		/* both scatter bits; packet-based credits on another type
		 * than RC (the kernel's mlx5 driver refuses it so) */
		if (((f & MLX5DV_QP_CREATE_DISABLE_SCATTER_TO_CQE) &&
		     (f & MLX5DV_QP_CREATE_ALLOW_SCATTER_TO_CQE)) ||
		    ((f & credit) && qp_attr->qp_type != IBV_QPT_RC)) {
			errno = EINVAL;
			return NULL;
		}
		/* scatter to CQE: any type (no effect where it does not
		 * apply, as on ConnectX); the self-loopback and tunnel
		 * offload flags are for raw-packet QPs, plain or RSS (as the
		 * kernel has it: other types EOPNOTSUPP) */
		if ((f & ~(self_lb | scat | credit | tunnel | sigp)) != 0 ||
		    ((f & (self_lb | tunnel)) &&
		     qp_attr->qp_type != IBV_QPT_RAW_PACKET))
			DV_MLX5_NOTSUP_NULL();
		/* signature pipelining: RC (signature keys are RC's) */
		if ((f & sigp) && qp_attr->qp_type != IBV_QPT_RC)
			DV_MLX5_NOTSUP_NULL();
		/* DC: a DCI or a DCT of type IBV_QPT_DRIVER (and only DC
		 * makes a DRIVER QP) */
		if (cm & MLX5DV_QP_INIT_ATTR_MASK_DC) {
			enum mlx5dv_dc_type dt =
				mlx5_qp_attr->dc_init_attr.dc_type;

			if (qp_attr->qp_type != IBV_QPT_DRIVER ||
			    (dt != MLX5DV_DCTYPE_DCI &&
			     dt != MLX5DV_DCTYPE_DCT)) {
				errno = EINVAL;
				return NULL;
			}
			dc = dt;
			/* streams: DCIs only */
			if ((cm & MLX5DV_QP_INIT_ATTR_MASK_DCI_STREAMS) &&
			    dt != MLX5DV_DCTYPE_DCI) {
				errno = EINVAL;
				return NULL;
			}
		} else if (cm & MLX5DV_QP_INIT_ATTR_MASK_DCI_STREAMS) {
			errno = EINVAL;
			return NULL;
		}
		if (cm & MLX5DV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS) {
			ops = mlx5_qp_attr->send_ops_flags;
			/* a builder we do not have: refused before the QP's
			 * sizes are looked at (MEMCPY) */
			if (ops & ~(uint64_t)(MLX5DV_QP_EX_WITH_MR_LIST |
					      MLX5DV_QP_EX_WITH_MR_INTERLEAVED |
					      MLX5DV_QP_EX_WITH_MKEY_CONFIGURE |
					      MLX5DV_QP_EX_WITH_RAW_WQE))
				DV_MLX5_NOTSUP_NULL();
			/* the mlx5 builders alone make an ibv_qp_ex QP (with
			 * no ibv_wr_* opcode), as rdma-core's provider */
			if (!(qp_attr->comp_mask &
			      IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)) {
				ex_attr = *qp_attr;
				ex_attr.comp_mask |=
					IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
				ex_attr.send_ops_flags = 0;
				qp_attr = &ex_attr;
			}
		}
	}
	if (dc && mlx5_qp_attr != NULL &&
	    (mlx5_qp_attr->comp_mask & MLX5DV_QP_INIT_ATTR_MASK_DCI_STREAMS))
		qp = dpv_qp_create_dci_streams(
			context, qp_attr,
			mlx5_qp_attr->dc_init_attr.dci_streams.log_num_concurent,
			mlx5_qp_attr->dc_init_attr.dci_streams.log_num_errored);
	else if (dc)
		qp = dpv_qp_create_dc(context, qp_attr, dc,
				      mlx5_qp_attr->dc_init_attr.dct_access_key);
	else if (ops & MLX5DV_QP_EX_WITH_MKEY_CONFIGURE)
		/* key layouts as long as the inline room asked for */
		qp = dpv_qp_create_inline(context, qp_attr,
					  DV_MLX5_MKEY_MAX_INLINE);
	else if (f & tunnel)
		qp = dpv_qp_create_tunnel(context, qp_attr);
	else
		qp = ibv_create_qp_ex(context, qp_attr);
	if (qp == NULL)
		return NULL;
	if (mlx5_qp_attr != NULL && (mlx5_qp_attr->comp_mask &
				     MLX5DV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS))
		rc = dpv_qp_mlx5_send_ops(qp, ops);
	if (rc == 0 && (f & (scat | credit | sigp)))
		rc = dpv_qp_mlx5_create_flags(qp, f & (scat | credit | sigp));
	if (rc == 0 && (f & self_lb))
		rc = dpv_qp_raw_self_loopback(
			qp, !!(f & MLX5DV_QP_CREATE_TIR_ALLOW_SELF_LOOPBACK_UC),
			!!(f & MLX5DV_QP_CREATE_TIR_ALLOW_SELF_LOOPBACK_MC));
	if (rc == 0 && (f & tunnel))
		rc = dpv_qp_raw_tunnel_offloads(qp);
	if (rc) {
		ibv_destroy_qp(qp);
		errno = rc;
		return NULL;
	}
	return qp;
}

/*
 * CQE size 64 or 128 (MLX5DV_CQ_INIT_ATTR_MASK_CQE_SIZE, else
 * MLX5_CQE_SIZE from the environment) and 128-byte padding; as rdma-core's
 * provider, EINVAL for an unknown mask bit or flag, a bad size, padding
 * of 64-byte CQEs, or a compression format that is not exactly one of
 * MLX5DV_CQE_RES_FORMAT_HASH, _CSUM, _CSUM_STRIDX (CQE compression:
 * dpv_mlx5_cq_compress(), on 64- and 128-byte CQEs).
 */
struct ibv_cq_ex *
mlx5dv_create_cq(struct ibv_context *context,
		 struct ibv_cq_init_attr_ex *cq_attr,
		 struct mlx5dv_cq_init_attr *mlx5_cq_attr)
{
	const uint64_t known = MLX5DV_CQ_INIT_ATTR_MASK_COMPRESSED_CQE |
			       MLX5DV_CQ_INIT_ATTR_MASK_FLAGS |
			       MLX5DV_CQ_INIT_ATTR_MASK_CQE_SIZE;
	unsigned int size = 0, comp = 0;
	int pad = 0;

	if (context == NULL || cq_attr == NULL) {
		errno = EINVAL;
		return NULL;
	}
	if (!dv_mlx5_is_dpv_device(context->device))
		DV_MLX5_NOTSUP_NULL();
	if (mlx5_cq_attr != NULL) {
		uint64_t cm = mlx5_cq_attr->comp_mask;

		if (cm & MLX5DV_CQ_INIT_ATTR_MASK_CQE_SIZE) {
			size = mlx5_cq_attr->cqe_size;
			if (size != 64 && size != 128) {
				errno = EINVAL;
				return NULL;
			}
		}
		if (cm & MLX5DV_CQ_INIT_ATTR_MASK_FLAGS) {
			uint32_t f = mlx5_cq_attr->flags;

			pad = !!(f & MLX5DV_CQ_INIT_ATTR_FLAGS_CQE_PAD);
			if (f & ~(uint32_t)(MLX5DV_CQ_INIT_ATTR_FLAGS_RESERVED -
					    1)) {
				errno = EINVAL;
				return NULL;
			}
		}
		if (cm & MLX5DV_CQ_INIT_ATTR_MASK_COMPRESSED_CQE) {
			/* exactly one of the formats */
			comp = mlx5_cq_attr->cqe_comp_res_format;
			if (comp != MLX5DV_CQE_RES_FORMAT_HASH &&
			    comp != MLX5DV_CQE_RES_FORMAT_CSUM &&
			    comp != MLX5DV_CQE_RES_FORMAT_CSUM_STRIDX) {
				errno = EINVAL;
				return NULL;
			}
		}
		if (cm & ~known) {
			errno = EINVAL;
			return NULL;
		}
	}
	/* the size from the environment is checked there, padding too */
	return dpv_mlx5dv_create_cq(context, cq_attr, size, pad, comp);
}

struct ibv_wq *
mlx5dv_create_wq(struct ibv_context *context,
		 struct ibv_wq_init_attr *wq_init_attr,
		 struct mlx5dv_wq_init_attr *mlx5_wq_attr)
{
	if (context == NULL || wq_init_attr == NULL) {
		errno = EINVAL;
		return NULL;
	}
	if (!dv_mlx5_is_dpv_device(context->device) ||
	    (mlx5_wq_attr != NULL && mlx5_wq_attr->comp_mask != 0))
		DV_MLX5_NOTSUP_NULL();
	return ibv_create_wq(context, wq_init_attr);
}

/* The view lives in libibverbs.so.1's QP object (verbs_dv.h): its
 * mlx5-only builders make the batch fail with EOPNOTSUPP. rdma-core does
 * not check its argument; here a NULL or non-ibv_qp_ex QP gets EINVAL. */
struct mlx5dv_qp_ex *
mlx5dv_qp_ex_from_ibv_qp_ex(struct ibv_qp_ex *qp)
{
	struct mlx5dv_qp_ex *m;

	if (qp == NULL || qp->qp_base.context == NULL) {
		errno = EINVAL;
		return NULL;
	}
	if (!dv_mlx5_is_dpv_device(qp->qp_base.context->device))
		DV_MLX5_NOTSUP_NULL();
	m = dpv_mlx5dv_qp_ex(qp);
	if (m == NULL)
		DV_MLX5_LOG(DEBUG, "%s: %s", __func__, strerror(errno));
	return m;
}

/* Documented convention: the number canceled or -errno. */
int
mlx5dv_qp_cancel_posted_send_wrs(struct mlx5dv_qp_ex *mqp, uint64_t wr_id)
{
	int rc;

	if (mqp == NULL)
		return -EINVAL;
	rc = dpv_qp_mlx5_cancel_send(mqp, wr_id);
	if (rc < 0)
		errno = -rc;
	return rc;
}

int
mlx5dv_modify_qp_lag_port(struct ibv_qp *qp, uint8_t port_num)
{
	DV_MLX5_NOTSUP_INT();
}

int
mlx5dv_query_qp_lag_port(struct ibv_qp *qp, uint8_t *port_num,
			 uint8_t *active_port_num)
{
	DV_MLX5_NOTSUP_INT();
}

/* An entry point on an object of context ctx (NULL: EINVAL) that the
 * private entry call does on a dpverbs device: its result, in errno too. */
#define DV_MLX5_CALL(ctx, call)                                                \
	do {                                                                   \
		int rc_ = (ctx) == NULL ? EINVAL : 0;                          \
		if (rc_ == 0 && !dv_mlx5_is_dpv_device((ctx)->device))         \
			DV_MLX5_NOTSUP_INT();                                  \
		if (rc_ == 0)                                                  \
			rc_ = (call);                                          \
		if (rc_ != 0)                                                  \
			errno = rc_;                                           \
		return rc_;                                                    \
	} while (0)

int
mlx5dv_modify_qp_udp_sport(struct ibv_qp *qp, uint16_t udp_sport)
{
	DV_MLX5_CALL(qp ? qp->context : NULL,
		     dpv_qp_mlx5_udp_sport(qp, udp_sport));
}

int
mlx5dv_modify_qp_sched_elem(struct ibv_qp *qp,
			    const struct mlx5dv_sched_leaf *requestor,
			    const struct mlx5dv_sched_leaf *responder)
{
	DV_MLX5_NOTSUP_INT();
}

int
mlx5dv_dci_stream_id_reset(struct ibv_qp *qp, uint16_t stream_id)
{
	int rc;

	if (qp == NULL || qp->context == NULL) {
		errno = EINVAL;
		return EINVAL;
	}
	if (!dv_mlx5_is_dpv_device(qp->context->device))
		DV_MLX5_NOTSUP_INT();
	rc = dpv_qp_dci_stream_reset(qp, stream_id);
	if (rc)
		errno = rc;
	return rc;
}

int
mlx5dv_reserved_qpn_alloc(struct ibv_context *ctx, uint32_t *qpn)
{
	DV_MLX5_NOTSUP_INT();
}

int
mlx5dv_reserved_qpn_dealloc(struct ibv_context *ctx, uint32_t qpn)
{
	DV_MLX5_NOTSUP_INT();
}

/* A hint with nothing to select here: checked and recorded (verbs_dv.h). */
int
mlx5dv_map_ah_to_qp(struct ibv_ah *ah, uint32_t qp_num)
{
	DV_MLX5_CALL(ah ? ah->context : NULL,
		     dpv_mlx5dv_map_ah_to_qp(ah, qp_num));
}

/* MEMIC is ibv_alloc_dm()'s device memory (lib/verbs/verbs_dm.c); the
 * steering and header-modify ICM kinds belong to a ConnectX's flow
 * tables, which have no counterpart here. */
struct ibv_dm *
mlx5dv_alloc_dm(struct ibv_context *context, struct ibv_alloc_dm_attr *dm_attr,
		struct mlx5dv_alloc_dm_attr *mlx5_dm_attr)
{
	if (context == NULL || dm_attr == NULL || mlx5_dm_attr == NULL ||
	    mlx5_dm_attr->comp_mask != 0) {
		errno = EINVAL;
		return NULL;
	}
	if (!dv_mlx5_is_dpv_device(context->device) ||
	    mlx5_dm_attr->type != MLX5DV_DM_TYPE_MEMIC)
		DV_MLX5_NOTSUP_NULL();
	return ibv_alloc_dm(context, dm_attr);
}

void *
mlx5dv_dm_map_op_addr(struct ibv_dm *dm, uint8_t op)
{
	DV_MLX5_NOTSUP_NULL();
}

/* The key table lives in libibverbs.so.1 (verbs_dv.h). */
struct mlx5dv_mkey *
mlx5dv_create_mkey(struct mlx5dv_mkey_init_attr *mkey_init_attr)
{
	if (mkey_init_attr == NULL || mkey_init_attr->pd == NULL) {
		errno = EINVAL;
		return NULL;
	}
	if (!dv_mlx5_is_dpv_device(mkey_init_attr->pd->context->device))
		DV_MLX5_NOTSUP_NULL();
	return dpv_mlx5dv_create_mkey(mkey_init_attr);
}

int
mlx5dv_destroy_mkey(struct mlx5dv_mkey *mkey)
{
	return dpv_mlx5dv_destroy_mkey(mkey);
}

/* Only signature keys have errors to report: as rdma-core, EINVAL for a
 * key created without MLX5DV_MKEY_INIT_ATTR_FLAGS_BLOCK_SIGNATURE. */
int
_mlx5dv_mkey_check(struct mlx5dv_mkey *mkey, struct mlx5dv_mkey_err *err_info,
		   size_t err_info_size)
{
	struct mlx5dv_mkey_err e;
	int rc;

	if (err_info == NULL || err_info_size == 0)
		return EINVAL;
	rc = dpv_mlx5dv_mkey_check(mkey, &e);
	if (rc == 0)
		memcpy(err_info, &e, RTE_MIN(err_info_size, sizeof(e)));
	return rc;
}

struct mlx5dv_var *
mlx5dv_alloc_var(struct ibv_context *context, uint32_t flags)
{
	DV_MLX5_NOTSUP_NULL();
}

void
mlx5dv_free_var(struct mlx5dv_var *dv_var)
{
	DV_MLX5_NOTSUP_VOID();
}

struct mlx5dv_pp *
mlx5dv_pp_alloc(struct ibv_context *context, size_t pp_context_sz,
		const void *pp_context, uint32_t flags)
{
	DV_MLX5_NOTSUP_NULL();
}

void
mlx5dv_pp_free(struct mlx5dv_pp *pp)
{
	DV_MLX5_NOTSUP_VOID();
}

struct mlx5dv_sched_node *
mlx5dv_sched_node_create(struct ibv_context *context,
			 const struct mlx5dv_sched_attr *sched_attr)
{
	DV_MLX5_NOTSUP_NULL();
}

struct mlx5dv_sched_leaf *
mlx5dv_sched_leaf_create(struct ibv_context *context,
			 const struct mlx5dv_sched_attr *sched_attr)
{
	DV_MLX5_NOTSUP_NULL();
}

int
mlx5dv_sched_node_modify(struct mlx5dv_sched_node *node,
			 const struct mlx5dv_sched_attr *sched_attr)
{
	DV_MLX5_NOTSUP_INT();
}

int
mlx5dv_sched_leaf_modify(struct mlx5dv_sched_leaf *leaf,
			 const struct mlx5dv_sched_attr *sched_attr)
{
	DV_MLX5_NOTSUP_INT();
}

int
mlx5dv_sched_node_destroy(struct mlx5dv_sched_node *node)
{
	DV_MLX5_NOTSUP_INT();
}

int
mlx5dv_sched_leaf_destroy(struct mlx5dv_sched_leaf *leaf)
{
	DV_MLX5_NOTSUP_INT();
}
