/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Flow steering (ibv_create_flow / ibv_destroy_flow): the spec list is
 * turned into one engine match (lib/engine/dpv_engine_raw.h) attached to
 * a RAW_PACKET (or RSS) QP, or to a UD QP created with
 * IBV_QP_CREATE_SOURCE_QPN (NORMAL rules: they pick the RoCE frames
 * addressed to its source QPN that it receives).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "verbs_int.h"
#include "verbs_raw.h"
#include "qp.h"
#include "dpv_engine.h"
#include "dpv_engine_raw.h"

/* Bound of the spec list walk. */
#define FLOW_SPECS_MAX_BYTES 1024

struct dpv_flow {
	struct ibv_flow ibv;
	struct dpv_qp *qp;
	void *engine;
	uint64_t id;
};

static bool
all_zero(const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		if (b[i])
			return false;
	return true;
}

static void
set_ip(uint8_t *v, uint8_t *m, const void *val, const void *mask, size_t n)
{
	memcpy(v, val, n);
	memcpy(m, mask, n);
}

/* One spec into the match. 0, EINVAL (malformed), EOPNOTSUPP. */
static int
parse_spec(const uint8_t *s, uint16_t room, struct dpv_engine_flow_match *m,
	   uint16_t *used)
{
	uint32_t type;
	uint16_t size;

	if (room < 8)
		return EINVAL;
	memcpy(&type, s, 4);
	memcpy(&size, s + 4, 2);
	if (size < 8 || size > room)
		return EINVAL;
	*used = size;
	if (type & IBV_FLOW_SPEC_INNER)
		return EOPNOTSUPP;
	switch (type) {
	case IBV_FLOW_SPEC_ETH: {
		struct ibv_flow_spec_eth e;

		if (size < sizeof(e))
			return EINVAL;
		memcpy(&e, s, sizeof(e));
		memcpy(m->dmac, e.val.dst_mac, 6);
		memcpy(m->dmac_m, e.mask.dst_mac, 6);
		memcpy(m->smac, e.val.src_mac, 6);
		memcpy(m->smac_m, e.mask.src_mac, 6);
		m->ether_type = e.val.ether_type;
		m->ether_type_m = e.mask.ether_type;
		m->vlan = e.val.vlan_tag;
		m->vlan_m = e.mask.vlan_tag;
		if (e.mask.vlan_tag)
			m->has |= DPV_FLOW_HAS_VLAN;
		return 0;
	}
	case IBV_FLOW_SPEC_IPV4:
	case IBV_FLOW_SPEC_IPV4_EXT: {
		struct ibv_flow_spec_ipv4_ext x;
		size_t need = type == IBV_FLOW_SPEC_IPV4
				      ? sizeof(struct ibv_flow_spec_ipv4)
				      : sizeof(x);

		if (size < need)
			return EINVAL;
		memset(&x, 0, sizeof(x));
		if (type == IBV_FLOW_SPEC_IPV4) {
			struct ibv_flow_spec_ipv4 v;

			memcpy(&v, s, sizeof(v));
			x.val.src_ip = v.val.src_ip;
			x.val.dst_ip = v.val.dst_ip;
			x.mask.src_ip = v.mask.src_ip;
			x.mask.dst_ip = v.mask.dst_ip;
		} else {
			memcpy(&x, s, sizeof(x));
			if (x.mask.tos || x.mask.ttl || x.mask.flags)
				return EOPNOTSUPP;
			m->proto = x.val.proto;
			m->proto_m = x.mask.proto;
		}
		m->has |= DPV_FLOW_HAS_IPV4;
		set_ip(m->sip, m->sip_m, &x.val.src_ip, &x.mask.src_ip, 4);
		set_ip(m->dip, m->dip_m, &x.val.dst_ip, &x.mask.dst_ip, 4);
		return 0;
	}
	case IBV_FLOW_SPEC_IPV6: {
		struct ibv_flow_spec_ipv6 v;

		if (size < sizeof(v))
			return EINVAL;
		memcpy(&v, s, sizeof(v));
		if (v.mask.flow_label || v.mask.traffic_class ||
		    v.mask.hop_limit)
			return EOPNOTSUPP;
		m->proto = v.val.next_hdr;
		m->proto_m = v.mask.next_hdr;
		m->has |= DPV_FLOW_HAS_IPV6;
		set_ip(m->sip, m->sip_m, v.val.src_ip, v.mask.src_ip, 16);
		set_ip(m->dip, m->dip_m, v.val.dst_ip, v.mask.dst_ip, 16);
		return 0;
	}
	case IBV_FLOW_SPEC_TCP:
	case IBV_FLOW_SPEC_UDP: {
		struct ibv_flow_spec_tcp_udp t;

		if (size < sizeof(t))
			return EINVAL;
		memcpy(&t, s, sizeof(t));
		m->has |= type == IBV_FLOW_SPEC_TCP ? DPV_FLOW_HAS_TCP
						    : DPV_FLOW_HAS_UDP;
		m->sport = t.val.src_port;
		m->sport_m = t.mask.src_port;
		m->dport = t.val.dst_port;
		m->dport_m = t.mask.dst_port;
		return 0;
	}
	default:
		return EOPNOTSUPP; /* tunnels, ESP, MPLS, actions */
	}
}

static struct ibv_flow *
flow_create(struct ibv_qp *ibqp, struct ibv_flow_attr *attr)
{
	struct dpv_engine_flow f;
	struct dpv_flow *fl;
	struct dpv_qp *qp;
	const uint8_t *s;
	uint16_t room;
	bool srcqpn;
	int rc;

	if (ibqp == NULL || attr == NULL) {
		errno = EINVAL;
		return NULL;
	}
	qp = to_dqp(ibqp);
	srcqpn = ibqp->qp_type == IBV_QPT_UD &&
		 (qp->create_flags & IBV_QP_CREATE_SOURCE_QPN);
	if (ibqp->qp_type != IBV_QPT_RAW_PACKET && !srcqpn) {
		/* the kernel takes UD and raw-packet QPs only; a UD QP's
		 * flows steer what is sent to its source QPN */
		errno = ibqp->qp_type == IBV_QPT_UD ? EOPNOTSUPP : EINVAL;
		return NULL;
	}
	if (attr->comp_mask || attr->port != 1 ||
	    attr->type > IBV_FLOW_ATTR_SNIFFER) {
		errno = EINVAL;
		return NULL;
	}
	if (srcqpn && attr->type != IBV_FLOW_ATTR_NORMAL) {
		errno = EOPNOTSUPP; /* default and sniffer rules: raw only */
		return NULL;
	}
	if (attr->flags) {
		errno = EOPNOTSUPP; /* DONT_TRAP, EGRESS */
		return NULL;
	}
	if (qp->engine == NULL) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	memset(&f, 0, sizeof(f));
	f.qpn = ibqp->qp_num;
	f.priority = attr->priority;
	f.type = (uint8_t)attr->type;
	/* attr->size is often just sizeof(*attr) (rdma-core walks the
	 * specs by their own sizes, so do we) */
	s = (const uint8_t *)(attr + 1);
	room = FLOW_SPECS_MAX_BYTES;
	for (unsigned int i = 0; i < attr->num_of_specs; i++) {
		uint16_t used = 0;

		rc = parse_spec(s, room, &f.m, &used);
		if (rc) {
			errno = rc;
			return NULL;
		}
		s += used;
		room -= used;
	}
	if (attr->type != IBV_FLOW_ATTR_NORMAL &&
	    (attr->num_of_specs || !all_zero(&f.m, sizeof(f.m)))) {
		errno = EINVAL; /* default and sniffer rules take no specs */
		return NULL;
	}
	fl = calloc(1, sizeof(*fl));
	if (fl == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	rc = dpv_engine_flow_add(qp->engine, &f, &fl->id);
	if (rc) {
		free(fl);
		errno = rc == -ENOENT ? EINVAL : -rc;
		return NULL;
	}
	fl->qp = qp;
	fl->engine = qp->engine;
	fl->ibv.context = ibqp->context;
	fl->ibv.handle = (uint32_t)fl->id;
	dpv_ref_get(&qp->flows);
	return &fl->ibv;
}

static int
flow_destroy(struct ibv_flow *ibf)
{
	struct dpv_flow *fl;

	if (ibf == NULL)
		return EINVAL;
	fl = container_of(ibf, struct dpv_flow, ibv);
	dpv_engine_flow_del(fl->engine, fl->id);
	dpv_ref_put(&fl->qp->flows);
	free(fl);
	return 0;
}

void
dpv_flow_ops_init(struct verbs_context *vctx)
{
	vctx->ibv_create_flow = flow_create;
	vctx->ibv_destroy_flow = flow_destroy;
}
