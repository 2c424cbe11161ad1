/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * CM MAD build/parse. Multi-byte fields are big-endian; 24-bit fields
 * (QPN, PSN, EECN) take the top three bytes of their 32-bit word.
 */
#include <errno.h>
#include <string.h>
#include <netinet/in.h>

#include "cm_mad.h"

static void
put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static void
put24(uint8_t *p, uint32_t v)
{
	p[0] = v >> 16;
	p[1] = v >> 8;
	p[2] = v;
}

static void
put32(uint8_t *p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p + 2, v);
}

static void
put64(uint8_t *p, uint64_t v)
{
	put32(p, v >> 32);
	put32(p + 4, v);
}

static uint16_t
get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t
get24(const uint8_t *p)
{
	return (uint32_t)p[0] << 16 | p[1] << 8 | p[2];
}

static uint32_t
get32(const uint8_t *p)
{
	return (uint32_t)get16(p) << 16 | get16(p + 2);
}

static uint64_t
get64(const uint8_t *p)
{
	return (uint64_t)get32(p) << 32 | get32(p + 4);
}

/* Offset and room of the private data of each message. */
static int
pdata_of(uint16_t attr, unsigned int *off, unsigned int *len)
{
	switch (attr) {
	case CM_ATTR_REQ:
		*off = 164, *len = CM_REQ_PDATA;
		break;
	case CM_ATTR_MRA:
		*off = 34, *len = CM_MRA_PDATA;
		break;
	case CM_ATTR_REJ:
		*off = 108, *len = CM_REJ_PDATA;
		break;
	case CM_ATTR_REP:
		*off = 60, *len = CM_REP_PDATA;
		break;
	case CM_ATTR_RTU:
	case CM_ATTR_DREP:
		*off = 32, *len = CM_RTU_PDATA;
		break;
	case CM_ATTR_DREQ:
		*off = 36, *len = CM_DREQ_PDATA;
		break;
	case CM_ATTR_SIDR_REQ:
		*off = 40, *len = CM_SIDR_REQ_PDATA;
		break;
	case CM_ATTR_SIDR_REP:
		*off = 120, *len = CM_SIDR_REP_PDATA;
		break;
	case CM_ATTR_LAP:
		*off = 88, *len = CM_LAP_PDATA;
		break;
	case CM_ATTR_APR:
		*off = 108, *len = CM_APR_PDATA;
		break;
	default:
		return -1;
	}
	return 0;
}

int
cm_mad_build(uint8_t *mad, const struct cm_msg *m)
{
	unsigned int off, len;

	if (pdata_of(m->attr, &off, &len) != 0)
		return -EINVAL;
	memset(mad, 0, CM_MAD_LEN);
	mad[0] = 1; /* base version */
	mad[1] = CM_MGMT_CLASS;
	mad[2] = CM_CLASS_VERSION;
	mad[3] = CM_METHOD_SEND;
	put64(mad + 8, m->tid);
	put16(mad + 16, m->attr);

	switch (m->attr) {
	case CM_ATTR_REQ:
		/* ECE (IBA comment 9434): the options in the attribute
		 * modifier, the vendor ID in the REQ's reserved bytes 5-7 */
		put32(mad + 20, m->ece_options);
		put32(mad + 24, m->local_id);
		put24(mad + 29, m->ece_vendor);
		put64(mad + 32, m->service_id);
		put64(mad + 40, m->ca_guid);
		put32(mad + 52, m->qkey);
		put24(mad + 56, m->qpn);
		mad[59] = m->resp_res;
		mad[63] = m->init_depth;
		mad[67] = (uint8_t)(m->remote_cm_timeout << 3 |
				    (m->transport & 3) << 1 | 1);
		put24(mad + 68, m->psn);
		mad[71] = (uint8_t)(m->local_cm_timeout << 3 |
				    (m->retry_count & 7));
		put16(mad + 72, m->pkey);
		mad[74] = (uint8_t)(m->mtu << 4 | (m->rnr_retry & 7));
		mad[75] = (uint8_t)(m->max_cm_retries << 4 | m->srq << 3);
		put16(mad + 76, 0xffff); /* RoCE: permissive LIDs */
		put16(mad + 78, 0xffff);
		memcpy(mad + 80, m->sgid, 16);
		memcpy(mad + 96, m->dgid, 16);
		mad[115] = 3; /* packet rate: 10 Gb/s (informative) */
		mad[116] = m->traffic_class;
		mad[117] = m->hop_limit;
		mad[119] = (uint8_t)(m->ack_timeout << 3);
		break;
	case CM_ATTR_MRA:
		put32(mad + 24, m->local_id);
		put32(mad + 28, m->remote_id);
		mad[32] = (uint8_t)(m->msg_ref << 6);
		mad[33] = (uint8_t)(m->mra_timeout << 3);
		break;
	case CM_ATTR_REJ:
		put32(mad + 24, m->local_id);
		put32(mad + 28, m->remote_id);
		mad[32] = (uint8_t)(m->msg_ref << 6);
		put16(mad + 34, m->reason);
		break;
	case CM_ATTR_REP:
		put32(mad + 24, m->local_id);
		put32(mad + 28, m->remote_id);
		put32(mad + 32, m->qkey);
		put24(mad + 36, m->qpn);
		put24(mad + 44, m->psn);
		/* ECE: options in the attribute modifier, the vendor ID
		 * in the reserved byte after QPN, EECN and PSN */
		put32(mad + 20, m->ece_options);
		mad[39] = (uint8_t)(m->ece_vendor >> 16);
		mad[43] = (uint8_t)(m->ece_vendor >> 8);
		mad[47] = (uint8_t)m->ece_vendor;
		mad[48] = m->resp_res;
		mad[49] = m->init_depth;
		mad[50] = (uint8_t)(m->target_ack_delay << 3 | 1);
		mad[51] = (uint8_t)((m->rnr_retry & 7) << 5 | m->srq << 4);
		put64(mad + 52, m->ca_guid);
		break;
	case CM_ATTR_DREQ:
		put32(mad + 24, m->local_id);
		put32(mad + 28, m->remote_id);
		put24(mad + 32, m->qpn);
		break;
	case CM_ATTR_RTU:
	case CM_ATTR_DREP:
	case CM_ATTR_LAP: /* the alternate path (unused here) stays 0 */
		put32(mad + 24, m->local_id);
		put32(mad + 28, m->remote_id);
		break;
	case CM_ATTR_APR:
		put32(mad + 24, m->local_id);
		put32(mad + 28, m->remote_id);
		mad[33] = m->status; /* no additional information */
		break;
	case CM_ATTR_SIDR_REQ:
		put32(mad + 24, m->local_id);
		put16(mad + 28, m->pkey);
		put64(mad + 32, m->service_id);
		break;
	case CM_ATTR_SIDR_REP:
		put32(mad + 24, m->local_id);
		mad[28] = m->status;
		put24(mad + 32, m->qpn);
		put64(mad + 36, m->service_id);
		put32(mad + 44, m->qkey);
		break;
	}
	if (m->pdata_len > 0)
		memcpy(mad + off, m->pdata,
		       m->pdata_len < len ? m->pdata_len : len);
	return 0;
}

int
cm_mad_parse(const uint8_t *mad, unsigned int len, struct cm_msg *m)
{
	unsigned int off, room;

	if (len < CM_MAD_LEN)
		return -EINVAL;
	if (mad[0] != 1 || mad[1] != CM_MGMT_CLASS ||
	    mad[2] != CM_CLASS_VERSION || mad[3] != CM_METHOD_SEND)
		return -EPROTO;
	memset(m, 0, sizeof(*m));
	m->tid = get64(mad + 8);
	m->attr = get16(mad + 16);
	if (pdata_of(m->attr, &off, &room) != 0)
		return -ENOTSUP;
	m->local_id = get32(mad + 24);
	m->remote_id = get32(mad + 28);

	switch (m->attr) {
	case CM_ATTR_REQ:
		m->remote_id = 0;
		m->ece_vendor = get24(mad + 29);
		m->ece_options = get32(mad + 20);
		m->service_id = get64(mad + 32);
		m->ca_guid = get64(mad + 40);
		m->qkey = get32(mad + 52);
		m->qpn = get24(mad + 56);
		m->resp_res = mad[59];
		m->init_depth = mad[63];
		m->remote_cm_timeout = mad[67] >> 3;
		m->transport = (mad[67] >> 1) & 3;
		m->psn = get24(mad + 68);
		m->local_cm_timeout = mad[71] >> 3;
		m->retry_count = mad[71] & 7;
		m->pkey = get16(mad + 72);
		m->mtu = mad[74] >> 4;
		m->rnr_retry = mad[74] & 7;
		m->max_cm_retries = mad[75] >> 4;
		m->srq = (mad[75] >> 3) & 1;
		memcpy(m->sgid, mad + 80, 16);
		memcpy(m->dgid, mad + 96, 16);
		m->traffic_class = mad[116];
		m->hop_limit = mad[117];
		m->ack_timeout = mad[119] >> 3;
		break;
	case CM_ATTR_MRA:
		m->msg_ref = mad[32] >> 6;
		m->mra_timeout = mad[33] >> 3;
		break;
	case CM_ATTR_REJ:
		m->msg_ref = mad[32] >> 6;
		m->reason = get16(mad + 34);
		break;
	case CM_ATTR_REP:
		m->qkey = get32(mad + 32);
		m->qpn = get24(mad + 36);
		m->psn = get24(mad + 44);
		m->ece_vendor =
			(uint32_t)mad[39] << 16 | mad[43] << 8 | mad[47];
		m->ece_options = get32(mad + 20);
		m->resp_res = mad[48];
		m->init_depth = mad[49];
		m->target_ack_delay = mad[50] >> 3;
		m->rnr_retry = mad[51] >> 5;
		m->srq = (mad[51] >> 4) & 1;
		m->ca_guid = get64(mad + 52);
		break;
	case CM_ATTR_DREQ:
		m->qpn = get24(mad + 32);
		break;
	case CM_ATTR_APR:
		m->status = mad[33];
		break;
	case CM_ATTR_SIDR_REQ:
		m->remote_id = 0;
		m->pkey = get16(mad + 28);
		m->service_id = get64(mad + 32);
		break;
	case CM_ATTR_SIDR_REP:
		m->remote_id = 0;
		m->status = mad[28];
		m->qpn = get24(mad + 32);
		m->service_id = get64(mad + 36);
		m->qkey = get32(mad + 44);
		break;
	}
	if (room > sizeof(m->pdata))
		room = sizeof(m->pdata);
	memcpy(m->pdata, mad + off, room);
	m->pdata_len = (uint8_t)room;
	return 0;
}

uint64_t
cm_service_id(unsigned int ps, uint16_t port)
{
	return (uint64_t)(ps & 0xffff) << 16 | port;
}

int
cm_ip_hdr_build(uint8_t *p, const struct sockaddr *src,
		const struct sockaddr *dst)
{
	memset(p, 0, CM_IP_HDR_LEN);
	if (src->sa_family == AF_INET && dst->sa_family == AF_INET) {
		const struct sockaddr_in *s = (const void *)src;
		const struct sockaddr_in *d = (const void *)dst;

		p[1] = 4 << 4;
		memcpy(p + 2, &s->sin_port, 2);
		memcpy(p + 16, &s->sin_addr, 4);
		memcpy(p + 32, &d->sin_addr, 4);
		return 0;
	}
	if (src->sa_family == AF_INET6 && dst->sa_family == AF_INET6) {
		const struct sockaddr_in6 *s = (const void *)src;
		const struct sockaddr_in6 *d = (const void *)dst;

		p[1] = 6 << 4;
		memcpy(p + 2, &s->sin6_port, 2);
		memcpy(p + 4, &s->sin6_addr, 16);
		memcpy(p + 20, &d->sin6_addr, 16);
		return 0;
	}
	return -EAFNOSUPPORT;
}

int
cm_ip_hdr_parse(const uint8_t *p, struct sockaddr_storage *src,
		struct sockaddr_storage *dst)
{
	memset(src, 0, sizeof(*src));
	memset(dst, 0, sizeof(*dst));
	if (p[0] != 0)
		return -EPROTO;
	if (p[1] >> 4 == 4) {
		struct sockaddr_in *s = (void *)src, *d = (void *)dst;

		s->sin_family = d->sin_family = AF_INET;
		memcpy(&s->sin_port, p + 2, 2);
		memcpy(&s->sin_addr, p + 16, 4);
		memcpy(&d->sin_addr, p + 32, 4);
		return 0;
	}
	if (p[1] >> 4 == 6) {
		struct sockaddr_in6 *s = (void *)src, *d = (void *)dst;

		s->sin6_family = d->sin6_family = AF_INET6;
		memcpy(&s->sin6_port, p + 2, 2);
		memcpy(&s->sin6_addr, p + 4, 16);
		memcpy(&d->sin6_addr, p + 20, 16);
		return 0;
	}
	return -EPROTO;
}

const char *
cm_attr_str(uint16_t attr)
{
	static const char *const n[] = {
		"REQ",	"MRA",	    "REJ",	"REP", "RTU",
		"DREQ", "DREP", "SIDR_REQ", "SIDR_REP", "LAP", "APR"};

	if (attr >= CM_ATTR_REQ && attr <= CM_ATTR_APR)
		return n[attr - CM_ATTR_REQ];
	return "?";
}

void
cm_lap_answer(const struct cm_msg *lap, bool known, struct cm_msg *apr)
{
	memset(apr, 0, sizeof(*apr));
	apr->attr = CM_ATTR_APR;
	apr->tid = lap->tid;
	apr->local_id = lap->remote_id;
	apr->remote_id = lap->local_id;
	apr->status = known ? CM_APR_UNSUPPORTED : CM_APR_INVALID_COMM_ID;
}
