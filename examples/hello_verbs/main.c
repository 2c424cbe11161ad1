/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hello_verbs: the smallest complete RDMA program, written against the
 * standard verbs API (<infiniband/verbs.h>) only.
 *
 * It opens the device dpv0 (with no configuration, dpverbs gives every
 * process an in-process loopback device of that name), creates two
 * Reliable Connected (RC) queue pairs on it, connects them to each other,
 * and copies a buffer from one to the other with a single RDMA WRITE: the
 * receiving side's CPU takes no part in it. Then it checks that the bytes
 * arrived.
 *
 * The same code runs unchanged on a real RDMA NIC (rdma-core's
 * libibverbs) or on dpverbs (LD_LIBRARY_PATH=build/lib).
 *
 * Usage: hello_verbs [device]        (default device: dpv0)
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/verbs.h>

#define BUF_SIZE 4096
#define PORT	 1 /* verbs ports are numbered from 1 */

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Walk a QP through the states every RC QP goes through:
 * RESET -> INIT (bound to a port, remote access allowed)
 *       -> RTR  (Ready To Receive: knows its peer's QP number, PSN and GID)
 *       -> RTS  (Ready To Send: its own PSN, retry and timeout policy).
 * Here the peer is on the same device, so the destination GID is our own.
 */
static int
connect_qp(struct ibv_qp *qp, uint32_t peer_qpn, const union ibv_gid *gid,
	   int gid_index, enum ibv_mtu mtu)
{
	struct ibv_qp_attr a;
	int rc;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = PORT;
	a.pkey_index = 0;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
	rc = ibv_modify_qp(qp, &a,
			   IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				   IBV_QP_ACCESS_FLAGS);
	if (rc)
		return rc;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = mtu;
	a.dest_qp_num = peer_qpn;
	a.rq_psn = 0; /* the peer starts its packets at PSN 0 */
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1; /* RoCE: addressing by GID (an IP address) */
	a.ah_attr.grh.dgid = *gid;
	a.ah_attr.grh.sgid_index = gid_index;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = PORT;
	rc = ibv_modify_qp(qp, &a,
			   IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				   IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				   IBV_QP_MAX_DEST_RD_ATOMIC |
				   IBV_QP_MIN_RNR_TIMER);
	if (rc)
		return rc;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	a.timeout = 14; /* 4.096 us * 2^14 = 67 ms before a retransmission */
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	return ibv_modify_qp(qp, &a,
			     IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
				     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				     IBV_QP_MAX_QP_RD_ATOMIC);
}

int
main(int argc, char **argv)
{
	const char *want = argc > 1 ? argv[1] : "dpv0";
	struct ibv_device **list = NULL;
	struct ibv_context *ctx = NULL;
	struct ibv_pd *pd = NULL;
	struct ibv_mr *src_mr = NULL, *dst_mr = NULL;
	struct ibv_cq *cq = NULL;
	struct ibv_qp *qa = NULL, *qb = NULL;
	struct ibv_port_attr port;
	union ibv_gid gid;
	int gid_index, n, i, rc, ret = 1;
	char *src = NULL, *dst = NULL;

	/* 1. Find the device. With dpverbs this call also starts DPDK and
	 *    brings up the devices of the configuration (none: dpv0, an
	 *    in-process loopback). */
	list = ibv_get_device_list(&n);
	if (!list) {
		perror("ibv_get_device_list");
		return 1;
	}
	for (i = 0; i < n; i++)
		if (strcmp(ibv_get_device_name(list[i]), want) == 0)
			break;
	if (i == n) {
		fprintf(stderr,
			"hello_verbs: no device %s (is LD_LIBRARY_PATH "
			"pointing at dpverbs' build/lib?)\n",
			want);
		goto out;
	}
	ctx = ibv_open_device(list[i]);
	if (!ctx) {
		perror("ibv_open_device");
		goto out;
	}

	/* 2. Port attributes: the MTU, and a GID (the RoCE address). GID 1
	 *    is the IPv4 address, GID 0 the link-local IPv6 one. */
	if (ibv_query_port(ctx, PORT, &port)) {
		perror("ibv_query_port");
		goto out;
	}
	gid_index = 1;
	if (ibv_query_gid(ctx, PORT, gid_index, &gid) ||
	    gid.global.interface_id == 0) {
		gid_index = 0;
		if (ibv_query_gid(ctx, PORT, gid_index, &gid)) {
			perror("ibv_query_gid");
			goto out;
		}
	}

	/* 3. A protection domain, and two buffers registered in it. A
	 *    memory region (MR) gives the device the right to access the
	 *    buffer: lkey for our own work requests, rkey for the peer's. */
	pd = ibv_alloc_pd(ctx);
	src = calloc(1, BUF_SIZE);
	dst = calloc(1, BUF_SIZE);
	if (!pd || !src || !dst) {
		perror("ibv_alloc_pd / calloc");
		goto out;
	}
	src_mr = ibv_reg_mr(pd, src, BUF_SIZE, IBV_ACCESS_LOCAL_WRITE);
	dst_mr = ibv_reg_mr(pd, dst, BUF_SIZE,
			    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!src_mr || !dst_mr) {
		perror("ibv_reg_mr");
		goto out;
	}

	/* 4. A completion queue, where finished work requests are reported,
	 *    and two RC queue pairs that use it. */
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	if (!cq) {
		perror("ibv_create_cq");
		goto out;
	}
	struct ibv_qp_init_attr qia = {
		.send_cq = cq,
		.recv_cq = cq,
		.cap = {.max_send_wr = 4,
			.max_recv_wr = 4,
			.max_send_sge = 1,
			.max_recv_sge = 1},
		.qp_type = IBV_QPT_RC,
	};
	qa = ibv_create_qp(pd, &qia);
	qb = ibv_create_qp(pd, &qia);
	if (!qa || !qb) {
		perror("ibv_create_qp");
		goto out;
	}

	/* 5. Connect them to each other. Two programs on two hosts would
	 *    exchange QP number, PSN and GID over a socket first. */
	rc = connect_qp(qa, qb->qp_num, &gid, gid_index, port.active_mtu);
	if (!rc)
		rc = connect_qp(qb, qa->qp_num, &gid, gid_index,
				port.active_mtu);
	if (rc) {
		fprintf(stderr, "ibv_modify_qp: %s\n", strerror(rc));
		goto out;
	}

	/* 6. One RDMA WRITE: qa copies src into qb's dst. It names the
	 *    remote buffer by address and rkey. */
	for (i = 0; i < BUF_SIZE; i++)
		src[i] = (char)(i * 7 + 1);
	snprintf(src, 64, "Hello, RDMA! (%d bytes by RDMA WRITE)", BUF_SIZE);
	struct ibv_sge sge = {
		.addr = (uintptr_t)src,
		.length = BUF_SIZE,
		.lkey = src_mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = 42,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED, /* we want a completion */
		.wr.rdma = {.remote_addr = (uintptr_t)dst,
			    .rkey = dst_mr->rkey},
	};
	struct ibv_send_wr *bad;

	rc = ibv_post_send(qa, &wr, &bad);
	if (rc) {
		fprintf(stderr, "ibv_post_send: %s\n", strerror(rc));
		goto out;
	}

	/* 7. Wait for the completion. Polling the CQ is also what makes the
	 *    software device progress (no thread of its own by default).
	 *    Bounded: give up after 5 seconds. */
	struct ibv_wc wc;
	double end = now_s() + 5;

	do {
		n = ibv_poll_cq(cq, 1, &wc);
	} while (n == 0 && now_s() < end);
	if (n <= 0) {
		fprintf(stderr, "hello_verbs: %s\n",
			n < 0 ? "ibv_poll_cq failed" : "no completion in 5 s");
		goto out;
	}
	if (wc.status != IBV_WC_SUCCESS || wc.wr_id != 42) {
		fprintf(stderr, "hello_verbs: completion %s (wr_id %llu)\n",
			ibv_wc_status_str(wc.status),
			(unsigned long long)wc.wr_id);
		goto out;
	}

	/* 8. The data is in dst: check every byte. */
	if (memcmp(src, dst, BUF_SIZE) != 0) {
		fprintf(stderr, "hello_verbs: FAIL: dst differs from src\n");
		goto out;
	}
	printf("hello_verbs: OK: QP 0x%x wrote to QP 0x%x on %s: \"%s\"\n",
	       qa->qp_num, qb->qp_num, want, dst);
	ret = 0;

out:
	/* 9. Tear down in reverse order of creation. */
	if (qb)
		ibv_destroy_qp(qb);
	if (qa)
		ibv_destroy_qp(qa);
	if (cq)
		ibv_destroy_cq(cq);
	if (dst_mr)
		ibv_dereg_mr(dst_mr);
	if (src_mr)
		ibv_dereg_mr(src_mr);
	if (pd)
		ibv_dealloc_pd(pd);
	if (ctx)
		ibv_close_device(ctx);
	if (list)
		ibv_free_device_list(list);
	free(src);
	free(dst);
	return ret;
}
