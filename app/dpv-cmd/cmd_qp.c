/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpv-cmd's verbs side: one device, a PD, a CQ and a registered buffer per
 * QP slot; QPs created, connected to each other in this process, driven
 * with SEND / WRITE / READ / ATOMIC traffic and destroyed. Plain verbs
 * calls only, so what the tool shows is what any verbs program gets.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd.h"
#include "dpv_verbs.h"

#define BUF_SIZE (1u << 20)
#define DEPTH	 64

struct slot {
	struct ibv_qp *qp;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	uint8_t *buf;
	int peer; /* slot connected to, -1 */
};

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct slot slots[CMD_MAX_QPS];

static int
dev_open(FILE *out)
{
	struct ibv_device **l;
	int n;

	if (ctx != NULL)
		return 0;
	l = ibv_get_device_list(&n);
	if (l == NULL || n == 0) {
		fprintf(out, "no device\n");
		if (l != NULL)
			ibv_free_device_list(l);
		return -1;
	}
	ctx = ibv_open_device(l[0]);
	ibv_free_device_list(l);
	if (ctx == NULL || (pd = ibv_alloc_pd(ctx)) == NULL) {
		fprintf(out, "cannot open the device: %s\n", strerror(errno));
		return -1;
	}
	for (int i = 0; i < CMD_MAX_QPS; i++)
		slots[i].peer = -1;
	return 0;
}

void
cmd_show_devices(FILE *out)
{
	struct ibv_device **l;
	int n;

	l = ibv_get_device_list(&n);
	if (l == NULL) {
		fprintf(out, "ibv_get_device_list: %s\n", strerror(errno));
		return;
	}
	for (int i = 0; i < n; i++)
		fprintf(out, "%s guid %016" PRIx64 "\n",
			ibv_get_device_name(l[i]),
			(uint64_t)be64toh(ibv_get_device_guid(l[i])));
	ibv_free_device_list(l);
}

void
cmd_show_port(FILE *out)
{
	struct ibv_port_attr pa;
	union ibv_gid g;
	char ip[INET6_ADDRSTRLEN];

	if (dev_open(out) != 0)
		return;
	if (ibv_query_port(ctx, 1, &pa) != 0) {
		fprintf(out, "ibv_query_port: %s\n", strerror(errno));
		return;
	}
	/* physical state (IBTA): 5 LinkUp, 2 Polling (no peer yet) */
	fprintf(out, "%s port 1: %s, %s, MTU %d\n",
		ibv_get_device_name(ctx->device), ibv_port_state_str(pa.state),
		pa.phys_state == 5 ? "link up" : "link down",
		128 << pa.active_mtu);
	for (int i = 0; i < 2; i++)
		if (ibv_query_gid(ctx, 1, i, &g) == 0) {
			inet_ntop(AF_INET6, g.raw, ip, sizeof(ip));
			fprintf(out, "  GID[%d] %s\n", i, ip);
		}
}

void
cmd_show_counters(FILE *out)
{
	struct dpv_device_counter *c;
	int n, zero = 0;

	if (dev_open(out) != 0)
		return;
	n = dpv_device_counters(ctx, NULL, 0);
	if (n < 0) {
		fprintf(out, "dpv_device_counters: %s\n", strerror(-n));
		return;
	}
	c = calloc((size_t)n, sizeof(*c));
	if (c == NULL)
		return;
	n = dpv_device_counters(ctx, c, (unsigned)n);
	for (int i = 0; i < n; i++) {
		if (c[i].value == 0)
			zero++;
		else
			fprintf(out, "  %-28s %" PRIu64 "\n", c[i].name,
				c[i].value);
	}
	fprintf(out, "%s: %d counters, %d of them 0 (not shown)\n",
		ibv_get_device_name(ctx->device), n, zero);
	free(c);
}

static const char *
state_str(enum ibv_qp_state st)
{
	static const char *const n[] = {"RESET", "INIT", "RTR", "RTS",
					"SQD",	 "SQE",	 "ERR"};

	return (unsigned)st < sizeof(n) / sizeof(n[0]) ? n[st] : "?";
}

void
cmd_show_qps(FILE *out)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	for (int i = 0; i < CMD_MAX_QPS; i++) {
		if (slots[i].qp == NULL)
			continue;
		if (ibv_query_qp(slots[i].qp, &a, IBV_QP_STATE, &ia) != 0)
			a.qp_state = IBV_QPS_ERR;
		fprintf(out, "qp %d: qpn 0x%06x %s peer %d\n", i,
			slots[i].qp->qp_num, state_str(a.qp_state),
			slots[i].peer);
	}
}

int
cmd_qp_create(FILE *out, unsigned id)
{
	struct slot *s = &slots[id % CMD_MAX_QPS];
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_RC,
		.cap = {.max_send_wr = DEPTH,
			.max_recv_wr = DEPTH,
			.max_send_sge = 1,
			.max_recv_sge = 1},
	};

	if (id >= CMD_MAX_QPS) {
		fprintf(out, "qp ids are 0..%d\n", CMD_MAX_QPS - 1);
		return -1;
	}
	if (dev_open(out) != 0)
		return -1;
	if (s->qp != NULL) {
		fprintf(out, "qp %u exists\n", id);
		return -1;
	}
	s->buf = aligned_alloc(4096, BUF_SIZE);
	s->cq = ibv_create_cq(ctx, 2 * DEPTH, NULL, NULL, 0);
	if (s->buf == NULL || s->cq == NULL)
		goto fail;
	s->mr = ibv_reg_mr(pd, s->buf, BUF_SIZE,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_ATOMIC);
	ia.send_cq = ia.recv_cq = s->cq;
	if (s->mr == NULL || (s->qp = ibv_create_qp(pd, &ia)) == NULL)
		goto fail;
	s->peer = -1;
	fprintf(out, "qp %u: qpn 0x%06x\n", id, s->qp->qp_num);
	return 0;
fail:
	fprintf(out, "qp create: %s\n", strerror(errno));
	cmd_qp_destroy(NULL, id);
	return -1;
}

int
cmd_qp_destroy(FILE *out, unsigned id)
{
	struct slot *s = &slots[id % CMD_MAX_QPS];

	if (id >= CMD_MAX_QPS) {
		if (out != NULL)
			fprintf(out, "qp ids are 0..%d\n", CMD_MAX_QPS - 1);
		return -1;
	}
	if (out != NULL && s->qp == NULL) {
		fprintf(out, "no qp %u\n", id);
		return -1;
	}
	if (s->qp != NULL)
		ibv_destroy_qp(s->qp);
	if (s->mr != NULL)
		ibv_dereg_mr(s->mr);
	if (s->cq != NULL)
		ibv_destroy_cq(s->cq);
	free(s->buf);
	for (int i = 0; i < CMD_MAX_QPS; i++)
		if (slots[i].peer == (int)id)
			slots[i].peer = -1;
	memset(s, 0, sizeof(*s));
	s->peer = -1;
	if (out != NULL)
		fprintf(out, "qp %u destroyed\n", id);
	return 0;
}

/* RESET -> INIT -> RTR -> RTS towards the QP number dqpn (GID index 1). */
static int
qp_to_rts(struct ibv_qp *qp, uint32_t dqpn)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_ATOMIC,
	};
	union ibv_gid gid;

	if (ibv_modify_qp(qp, &a,
			  IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				  IBV_QP_ACCESS_FLAGS))
		return -1;
	if (ibv_query_gid(qp->context, 1, 1, &gid))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dqpn;
	a.max_dest_rd_atomic = 16;
	a.min_rnr_timer = 1;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = gid;
	a.ah_attr.grh.sgid_index = 1;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = 1;
	if (ibv_modify_qp(qp, &a,
			  IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				  IBV_QP_MAX_DEST_RD_ATOMIC |
				  IBV_QP_MIN_RNR_TIMER))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 16;
	return ibv_modify_qp(qp, &a,
			     IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				     IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
				     IBV_QP_MAX_QP_RD_ATOMIC);
}

int
cmd_qp_connect(FILE *out, unsigned a, unsigned b)
{
	if (a >= CMD_MAX_QPS || b >= CMD_MAX_QPS || a == b ||
	    slots[a].qp == NULL || slots[b].qp == NULL) {
		fprintf(out, "connect: need two existing QPs\n");
		return -1;
	}
	if (qp_to_rts(slots[a].qp, slots[b].qp->qp_num) ||
	    qp_to_rts(slots[b].qp, slots[a].qp->qp_num)) {
		fprintf(out, "connect: %s\n", strerror(errno));
		return -1;
	}
	slots[a].peer = (int)b;
	slots[b].peer = (int)a;
	fprintf(out, "qp %u <-> qp %u: RTS\n", a, b);
	return 0;
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Poll cq for one completion, bounded in time. */
static int
poll_one(struct ibv_cq *cq, struct ibv_wc *wc, double end)
{
	int n;

	while ((n = ibv_poll_cq(cq, 1, wc)) == 0)
		if (now_s() > end)
			return -ETIMEDOUT;
	return n < 0 ? -EIO : 0;
}

int
cmd_traffic(FILE *out, unsigned id, const char *op, unsigned size,
	    unsigned count)
{
	struct slot *s = &slots[id % CMD_MAX_QPS], *p;
	enum ibv_wr_opcode opc;
	unsigned posted = 0, done = 0, recvs = 0;
	struct ibv_wc wc;
	double t0, end;
	uint64_t expect = 0, v;
	int rc;

	if (id >= CMD_MAX_QPS || s->qp == NULL || s->peer < 0) {
		fprintf(out, "traffic: qp %u is not connected\n", id);
		return -1;
	}
	p = &slots[s->peer];
	if (!strcmp(op, "send"))
		opc = IBV_WR_SEND;
	else if (!strcmp(op, "write"))
		opc = IBV_WR_RDMA_WRITE;
	else if (!strcmp(op, "read"))
		opc = IBV_WR_RDMA_READ;
	else
		opc = IBV_WR_ATOMIC_FETCH_AND_ADD;
	if (opc == IBV_WR_ATOMIC_FETCH_AND_ADD)
		size = 8;
	if (size == 0 || size > BUF_SIZE / 2 || count == 0) {
		fprintf(out, "traffic: size 1..%u, count > 0\n", BUF_SIZE / 2);
		return -1;
	}
	for (unsigned i = 0; i < size; i++)
		s->buf[i] = (uint8_t)(i * 13 + count);
	memset(p->buf + BUF_SIZE / 2, 0, size);
	memset(p->buf, 0, 8);
	t0 = now_s();
	end = t0 + 30 + count / 1000.0;
	while (done < count) {
		while (posted < count && posted - done < DEPTH / 2 &&
		       posted - recvs < DEPTH / 2) {
			struct ibv_sge sge = {.addr = (uintptr_t)s->buf,
					      .length = size,
					      .lkey = s->mr->lkey};
			struct ibv_send_wr wr = {.wr_id = posted,
						 .sg_list = &sge,
						 .num_sge = 1,
						 .opcode = opc,
						 .send_flags =
							 IBV_SEND_SIGNALED},
					   *bad;

			if (opc == IBV_WR_SEND) {
				struct ibv_sge rs = {.addr = (uintptr_t)p->buf +
							     BUF_SIZE / 2,
						     .length = size,
						     .lkey = p->mr->lkey};
				struct ibv_recv_wr rw = {.sg_list = &rs,
							 .num_sge = 1},
						   *rbad;

				rc = ibv_post_recv(p->qp, &rw, &rbad);
				if (rc != 0)
					goto err;
			} else if (opc == IBV_WR_ATOMIC_FETCH_AND_ADD) {
				sge.addr = (uintptr_t)s->buf + 64;
				wr.wr.atomic.remote_addr = (uintptr_t)p->buf;
				wr.wr.atomic.rkey = p->mr->rkey;
				wr.wr.atomic.compare_add = 1;
			} else {
				wr.wr.rdma.remote_addr =
					(uintptr_t)p->buf + BUF_SIZE / 2;
				wr.wr.rdma.rkey = p->mr->rkey;
				if (opc == IBV_WR_RDMA_READ)
					sge.addr = (uintptr_t)s->buf +
						   BUF_SIZE / 2;
			}
			rc = ibv_post_send(s->qp, &wr, &bad);
			if (rc != 0)
				goto err;
			posted++;
		}
		/* SEND: the peer's receive completions free its queue */
		while (opc == IBV_WR_SEND && recvs < posted &&
		       ibv_poll_cq(p->cq, 1, &wc) == 1) {
			if (wc.status != IBV_WC_SUCCESS) {
				fprintf(out, "traffic: receive: %s\n",
					ibv_wc_status_str(wc.status));
				return -1;
			}
			recvs++;
		}
		if (opc != IBV_WR_SEND)
			recvs = posted;
		if (poll_one(s->cq, &wc, end) != 0 ||
		    wc.status != IBV_WC_SUCCESS) {
			fprintf(out, "traffic: completion %u: %s\n", done,
				ibv_wc_status_str(wc.status));
			return -1;
		}
		done++;
	}
	/* SEND: the peer's receive completions share its CQ */
	while (opc == IBV_WR_SEND && recvs < count) {
		if (poll_one(p->cq, &wc, end) != 0 ||
		    wc.status != IBV_WC_SUCCESS) {
			fprintf(out, "traffic: receive %u failed\n", recvs);
			return -1;
		}
		recvs++;
	}
	t0 = now_s() - t0;
	/* check the data that moved */
	if (opc == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		memcpy(&v, p->buf, 8);
		expect = count;
		if (v != expect) {
			fprintf(out,
				"traffic: atomic sum %" PRIu64 ", want %" PRIu64
				"\n",
				v, expect);
			return -1;
		}
	} else if (opc == IBV_WR_RDMA_READ) {
		if (memcmp(s->buf + BUF_SIZE / 2, p->buf + BUF_SIZE / 2,
			   size)) {
			fprintf(out, "traffic: READ data differ\n");
			return -1;
		}
	} else if (memcmp(s->buf, p->buf + BUF_SIZE / 2, size)) {
		fprintf(out, "traffic: data differ at the peer\n");
		return -1;
	}
	fprintf(out, "%s %u x %u B: %.3f s, %.1f MB/s, %.0f ops/s, data ok\n",
		op, count, size, t0, (double)size * count / t0 / 1e6,
		count / t0);
	return 0;
err:
	fprintf(out, "traffic: post: %s\n", strerror(rc));
	return -1;
}

void
cmd_cleanup(void)
{
	for (unsigned i = 0; i < CMD_MAX_QPS; i++)
		cmd_qp_destroy(NULL, i);
	if (pd != NULL)
		ibv_dealloc_pd(pd);
	if (ctx != NULL)
		ibv_close_device(ctx);
	pd = NULL;
	ctx = NULL;
}
