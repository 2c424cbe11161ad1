/* SPDX-License-Identifier: BSD-3-Clause */
/* One endpoint: device, PD, MR, CQ, RC QP, and its bring-up to RTS. */

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "demo.h"

#define PORT_NUM    1
#define PORT_WAIT_S 10.0

void
demo_fill(uint8_t *p, size_t len, uint64_t seed)
{
	uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
	size_t i;

	for (i = 0; i < len; i++) {
		if ((i & 7) == 0) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
		}
		p[i] = (uint8_t)(x >> ((i & 7) * 8));
	}
}

/* 64-bit FNV-1a. */
uint64_t
demo_csum(const uint8_t *p, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

void
demo_gid_str(const uint8_t gid[16], char *out, size_t len)
{
	static const uint8_t v4pfx[12] = {0, 0, 0, 0, 0,    0,
					  0, 0, 0, 0, 0xff, 0xff};

	if (memcmp(gid, v4pfx, sizeof(v4pfx)) == 0) {
		char a[INET_ADDRSTRLEN];

		inet_ntop(AF_INET, gid + 12, a, sizeof(a));
		snprintf(out, len, "::ffff:%s", a);
	} else if (!inet_ntop(AF_INET6, gid, out, len)) {
		snprintf(out, len, "?");
	}
}

const char *
demo_mtu_str(enum ibv_mtu m)
{
	switch (m) {
	case IBV_MTU_256:
		return "256";
	case IBV_MTU_512:
		return "512";
	case IBV_MTU_1024:
		return "1024";
	case IBV_MTU_2048:
		return "2048";
	case IBV_MTU_4096:
		return "4096";
	}
	return "?";
}

static bool
gid_is_zero(const union ibv_gid *g)
{
	static const uint8_t z[16];

	return memcmp(g->raw, z, sizeof(z)) == 0;
}

static struct ibv_context *
open_device(const char *who, const char *want)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	int n, i;

	list = ibv_get_device_list(&n);
	if (!list) {
		demo_err(who,
			 "ibv_get_device_list: %s (the library could not "
			 "bring up its devices; see the messages above and "
			 "DPV_EAL / DPV_IP / DPV_CONF)",
			 strerror(errno));
		return NULL;
	}
	for (i = 0; i < n; i++) {
		if (!want || strcmp(ibv_get_device_name(list[i]), want) == 0)
			break;
	}
	if (i == n) {
		demo_err(who,
			 n == 0 ? "no RDMA device found"
				: "no RDMA device named %s",
			 want ? want : "");
	} else {
		ctx = ibv_open_device(list[i]);
		if (!ctx)
			demo_err(who, "ibv_open_device(%s): %s",
				 ibv_get_device_name(list[i]), strerror(errno));
	}
	ibv_free_device_list(list);
	return ctx;
}

static int
wait_port_active(struct demo_ep *ep, struct ibv_port_attr *pa)
{
	uint64_t end = demo_now_ns() + (uint64_t)(PORT_WAIT_S * 1e9);
	int rc;

	for (;;) {
		rc = ibv_query_port(ep->ctx, PORT_NUM, pa);
		if (rc) {
			demo_err(ep->name, "ibv_query_port: %s", strerror(rc));
			return -rc;
		}
		if (pa->state == IBV_PORT_ACTIVE)
			return 0;
		if (demo_stop || demo_now_ns() > end) {
			demo_err(ep->name,
				 "port %d of %s is not active after "
				 "%.0f s (link down: is the peer running?)",
				 PORT_NUM, ibv_get_device_name(ep->ctx->device),
				 PORT_WAIT_S);
			return -ETIMEDOUT;
		}
		usleep(10000);
	}
}

static int
pick_gid(struct demo_ep *ep, int want, union ibv_gid *gid)
{
	int idx;

	if (want >= 0) {
		if (ibv_query_gid(ep->ctx, PORT_NUM, want, gid) ||
		    gid_is_zero(gid)) {
			demo_err(ep->name, "GID index %d is empty", want);
			return -ENODATA;
		}
		return want;
	}
	/* IPv4-mapped RoCE v2 GID if there is an IPv4 address, else the
	 * link-local one (the unconfigured loopback device has no IPv4). */
	for (idx = 1; idx >= 0; idx--) {
		if (ibv_query_gid(ep->ctx, PORT_NUM, idx, gid) == 0 &&
		    !gid_is_zero(gid))
			return idx;
	}
	demo_err(ep->name, "no usable GID on port %d", PORT_NUM);
	return -ENODATA;
}

int
demo_ep_post_recv(struct demo_ep *ep, unsigned slot)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(ep->buf + DEMO_MSG_OFF +
				    slot * DEMO_MSG_SLOT),
		.length = DEMO_MSG_SLOT,
		.lkey = ep->mr->lkey,
	};
	struct ibv_recv_wr wr = {.wr_id = slot, .sg_list = &sge, .num_sge = 1};
	struct ibv_recv_wr *bad;
	int rc;

	rc = ibv_post_recv(ep->qp, &wr, &bad);
	if (rc) {
		demo_err(ep->name, "ibv_post_recv: %s", strerror(rc));
		return -rc;
	}
	ep->rq_posted++;
	return 0;
}

static struct ibv_qp *
create_qp(struct demo_ep *ep, uint32_t inline_sz)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = ep->cq,
		.recv_cq = ep->cq,
		.cap =
			{
				.max_send_wr = DEMO_SQ_DEPTH,
				.max_recv_wr = DEMO_RQ_DEPTH,
				.max_send_sge = 1,
				.max_recv_sge = 1,
				.max_inline_data = inline_sz,
			},
		.qp_type = IBV_QPT_RC,
	};
	struct ibv_qp *qp = ibv_create_qp(ep->pd, &ia);

	if (qp)
		ep->max_inline = ia.cap.max_inline_data;
	return qp;
}

int
demo_ep_open(struct demo_ep *ep, const char *name, const char *dev,
	     int gid_index)
{
	struct ibv_device_attr da;
	struct ibv_port_attr pa;
	struct ibv_qp_attr qa;
	union ibv_gid gid;
	unsigned s;
	int rc;

	memset(ep, 0, sizeof(*ep));
	ep->name = name;
	ep->ctx = open_device(name, dev);
	if (!ep->ctx)
		return -ENODEV;
	rc = ibv_query_device(ep->ctx, &da);
	if (rc) {
		demo_err(name, "ibv_query_device: %s", strerror(rc));
		return -rc;
	}
	ep->max_rd_atomic = da.max_qp_rd_atom > 16 ? 16 : da.max_qp_rd_atom;
	if (ep->max_rd_atomic == 0)
		ep->max_rd_atomic = 1;
	/* A memif link is up only once both sides exist: the port may still
	 * be down here; demo_ep_connect() waits for it. */
	rc = ibv_query_port(ep->ctx, PORT_NUM, &pa);
	if (rc) {
		demo_err(name, "ibv_query_port: %s", strerror(rc));
		return -rc;
	}
	ep->port_mtu = pa.active_mtu;
	ep->gid_index = pick_gid(ep, gid_index, &gid);
	if (ep->gid_index < 0)
		return ep->gid_index;

	ep->pd = ibv_alloc_pd(ep->ctx);
	if (!ep->pd) {
		demo_err(name, "ibv_alloc_pd: %s", strerror(errno));
		return -errno;
	}
	ep->buf = aligned_alloc(4096, DEMO_BUF_SIZE);
	if (!ep->buf) {
		demo_err(name, "out of memory");
		return -ENOMEM;
	}
	memset(ep->buf, 0, DEMO_BUF_SIZE);
	ep->mr = ibv_reg_mr(ep->pd, ep->buf, DEMO_BUF_SIZE,
			    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				    IBV_ACCESS_REMOTE_READ);
	if (!ep->mr) {
		demo_err(name, "ibv_reg_mr: %s", strerror(errno));
		return -errno;
	}
	ep->cq = ibv_create_cq(ep->ctx, DEMO_CQ_DEPTH, NULL, NULL, 0);
	if (!ep->cq) {
		demo_err(name, "ibv_create_cq: %s", strerror(errno));
		return -errno;
	}
	ep->qp = create_qp(ep, 64);
	if (!ep->qp)
		ep->qp = create_qp(ep, 0); /* no inline data: not fatal */
	if (!ep->qp) {
		demo_err(name, "ibv_create_qp(RC): %s", strerror(errno));
		return -errno;
	}

	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_INIT;
	qa.pkey_index = 0;
	qa.port_num = PORT_NUM;
	qa.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			     IBV_ACCESS_REMOTE_READ;
	rc = ibv_modify_qp(ep->qp, &qa,
			   IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				   IBV_QP_ACCESS_FLAGS);
	if (rc) {
		demo_err(name, "ibv_modify_qp(INIT): %s", strerror(rc));
		return -rc;
	}
	for (s = 0; s < DEMO_RQ_DEPTH; s++) {
		rc = demo_ep_post_recv(ep, s);
		if (rc)
			return rc;
	}

	ep->local.qpn = ep->qp->qp_num;
	ep->local.psn = (uint32_t)(random() & 0xffffff);
	ep->local.rkey = ep->mr->rkey;
	ep->local.addr = (uintptr_t)ep->buf;
	ep->local.mtu = ep->port_mtu;
	memcpy(ep->local.gid, gid.raw, 16);
	return 0;
}

int
demo_ep_connect(struct demo_ep *ep, const struct demo_conn *remote)
{
	struct ibv_port_attr pa;
	struct ibv_qp_attr qa;
	enum ibv_mtu mtu;
	int rc, attempt;

	rc = wait_port_active(ep, &pa);
	if (rc)
		return rc;
	ep->port_mtu = pa.active_mtu;
	mtu = ep->port_mtu < (enum ibv_mtu)remote->mtu
		      ? ep->port_mtu
		      : (enum ibv_mtu)remote->mtu;
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_RTR;
	qa.path_mtu = mtu;
	qa.dest_qp_num = remote->qpn;
	qa.rq_psn = remote->psn;
	qa.max_dest_rd_atomic = ep->max_rd_atomic;
	qa.min_rnr_timer = 12;
	qa.ah_attr.is_global = 1;
	memcpy(qa.ah_attr.grh.dgid.raw, remote->gid, 16);
	qa.ah_attr.grh.sgid_index = ep->gid_index;
	qa.ah_attr.grh.hop_limit = 64;
	qa.ah_attr.port_num = PORT_NUM;
	/* RTR resolves the peer's MAC (ARP): retry a few times in case the
	 * peer was slow to answer; a failed modify leaves the QP in INIT. */
	for (attempt = 0; attempt < 3; attempt++) {
		rc = ibv_modify_qp(ep->qp, &qa,
				   IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
					   IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
					   IBV_QP_MAX_DEST_RD_ATOMIC |
					   IBV_QP_MIN_RNR_TIMER);
		if (rc == 0 || demo_stop)
			break;
		usleep(200000);
	}
	if (rc) {
		char g[64];

		demo_gid_str(remote->gid, g, sizeof(g));
		demo_err(ep->name,
			 "ibv_modify_qp(RTR) to %s: %s (if the "
			 "destination address was not resolved, the peer is "
			 "not answering ARP)",
			 g, strerror(rc));
		return -rc;
	}

	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_RTS;
	qa.timeout = 14;
	qa.retry_cnt = 7;
	qa.rnr_retry = 7;
	qa.sq_psn = ep->local.psn;
	qa.max_rd_atomic = ep->max_rd_atomic;
	rc = ibv_modify_qp(ep->qp, &qa,
			   IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				   IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
				   IBV_QP_MAX_QP_RD_ATOMIC);
	if (rc) {
		demo_err(ep->name, "ibv_modify_qp(RTS): %s", strerror(rc));
		return -rc;
	}
	return 0;
}

void
demo_ep_close(struct demo_ep *ep)
{
	int rc;

	if (ep->qp && (rc = ibv_destroy_qp(ep->qp)))
		demo_err(ep->name, "ibv_destroy_qp: %s", strerror(rc));
	if (ep->cq && (rc = ibv_destroy_cq(ep->cq)))
		demo_err(ep->name, "ibv_destroy_cq: %s", strerror(rc));
	if (ep->mr && (rc = ibv_dereg_mr(ep->mr)))
		demo_err(ep->name, "ibv_dereg_mr: %s", strerror(rc));
	if (ep->pd && (rc = ibv_dealloc_pd(ep->pd)))
		demo_err(ep->name, "ibv_dealloc_pd: %s", strerror(rc));
	if (ep->ctx && (rc = ibv_close_device(ep->ctx)))
		demo_err(ep->name, "ibv_close_device: %s", strerror(rc));
	free(ep->buf);
	memset(ep, 0, sizeof(*ep));
}
