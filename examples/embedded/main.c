/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * embedded: dpverbs inside a DPDK application.
 *
 * The application starts EAL itself and owns its DPDK ports (here a
 * net_ring vdev, whose transmitted frames come back on its own RX queue;
 * in real life a NIC or a memif). It hands one port to dpverbs with
 * dpv_port_attach() (lib/port/dpv_port.h), which turns it into an RDMA
 * device "dpv<N>" with an IPv4 address; from then on the device is used
 * through the ordinary verbs API. Before its own rte_eal_cleanup() the
 * application releases the device with dpv_port_fini().
 *
 * Progress is application-driven: when the application owns EAL, dpverbs
 * starts no thread of its own; the application's thread runs the device's
 * engine inside ibv_poll_cq() and ibv_post_send(), so no extra lcore is
 * needed.
 *
 * Usage: embedded [EAL arguments]
 *   default: --no-huge --no-pci -m 512 --no-shconf --vdev=net_ring0
 */

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <infiniband/verbs.h>
#include <rte_eal.h>
#include <rte_ethdev.h>

#include "dpv_port.h"

#define PORT_NAME "net_ring0"
#define ADDR	  "192.0.2.10"
#define LEN	  1024

static const char *default_args[] = {
	"embedded",
	"--no-huge",
	"--no-pci",
	"-m",
	"512",
	"--no-shconf",
	"--vdev=" PORT_NAME,
	"--log-level=lib.eal:warning",
	"--log-level=lib.telemetry:error",
	"--log-level=lib.net:notice",
};

/* The DPDK side: EAL, our port, and a dpverbs device on it. */
static int
attach_port(char *devname, size_t len)
{
	static const uint8_t mac[6] = {0x02, 0, 0, 0, 0, 0x0a};
	struct dpv_port_conf conf;
	struct dpv_port_info info;
	uint16_t port;
	int idx;

	if (rte_eth_dev_get_port_by_name(PORT_NAME, &port) != 0) {
		fprintf(stderr, "embedded: no DPDK port %s\n", PORT_NAME);
		return -1;
	}
	/* The device's settings: a MAC (net_ring has none), one IPv4
	 * address (its RoCE v2 GID 1) and, since this port only talks to
	 * itself, a static neighbour entry for that address instead of ARP. */
	dpv_port_conf_init(&conf);
	conf.has_mac = true;
	memcpy(conf.mac, mac, 6);
	conf.n_addrs = 1;
	conf.addrs[0].family = AF_INET;
	conf.addrs[0].prefix_len = 24;
	conf.addrs[0].addr[10] = 0xff;
	conf.addrs[0].addr[11] = 0xff;
	inet_pton(AF_INET, ADDR, &conf.addrs[0].addr[12]);
	conf.n_neigh = 1;
	memcpy(conf.neigh[0].ip, conf.addrs[0].addr, 16);
	memcpy(conf.neigh[0].mac, mac, 6);

	/* dpverbs configures the port's queues and mempool and starts it.
	 * (With conf.app_configured it would use a port the application
	 * already started, on queue conf.queue_base.) */
	idx = dpv_port_attach(port, &conf);
	if (idx < 0) {
		fprintf(stderr, "embedded: dpv_port_attach: %s\n",
			strerror(-idx));
		return -1;
	}
	if (dpv_port_query(dpv_port_get((unsigned)idx), &info) == 0)
		printf("embedded: DPDK port %u (%s) is RDMA device %s, MAC "
		       "%02x:%02x:%02x:%02x:%02x:%02x, MTU %u, IPv4 %s\n",
		       port, PORT_NAME, info.name, info.mac[0], info.mac[1],
		       info.mac[2], info.mac[3], info.mac[4], info.mac[5],
		       info.mtu, ADDR);
	snprintf(devname, len, "dpv%d", idx);
	return 0;
}

static int
to_rts(struct ibv_qp *qp, uint32_t peer, const union ibv_gid *gid,
       enum ibv_mtu mtu)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};
	int rc = ibv_modify_qp(qp, &a,
			       IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				       IBV_QP_ACCESS_FLAGS);

	if (rc)
		return rc;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = mtu;
	a.dest_qp_num = peer;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = *gid;
	a.ah_attr.grh.sgid_index = 1; /* the IPv4 address given above */
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = 1;
	rc = ibv_modify_qp(qp, &a,
			   IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				   IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				   IBV_QP_MAX_DEST_RD_ATOMIC |
				   IBV_QP_MIN_RNR_TIMER);
	if (rc)
		return rc;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	return ibv_modify_qp(qp, &a,
			     IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
				     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				     IBV_QP_MAX_QP_RD_ATOMIC);
}

/* The verbs side: the same calls as on any RDMA device. */
static int
rdma_write_once(const char *devname)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	struct ibv_pd *pd = NULL;
	struct ibv_mr *mr = NULL;
	struct ibv_cq *cq = NULL;
	struct ibv_qp *qp[2] = {NULL, NULL};
	struct ibv_port_attr pa;
	union ibv_gid gid;
	struct ibv_wc wc;
	struct timespec ts;
	double end;
	char *buf = NULL;
	int i, n, rc = -1;

	list = ibv_get_device_list(&n);
	for (i = 0; list && i < n; i++)
		if (strcmp(ibv_get_device_name(list[i]), devname) == 0)
			ctx = ibv_open_device(list[i]);
	if (list)
		ibv_free_device_list(list);
	if (!ctx) {
		fprintf(stderr, "embedded: cannot open %s\n", devname);
		return -1;
	}
	if (ibv_query_port(ctx, 1, &pa) || ibv_query_gid(ctx, 1, 1, &gid))
		goto out;
	pd = ibv_alloc_pd(ctx);
	buf = calloc(2, LEN); /* [0, LEN): source; [LEN, 2*LEN): target */
	if (!pd || !buf)
		goto out;
	mr = ibv_reg_mr(pd, buf, 2 * LEN,
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	cq = ibv_create_cq(ctx, 8, NULL, NULL, 0);
	if (!mr || !cq)
		goto out;
	for (i = 0; i < 2; i++) {
		struct ibv_qp_init_attr ia = {
			.send_cq = cq,
			.recv_cq = cq,
			.qp_type = IBV_QPT_RC,
			.cap = {.max_send_wr = 2,
				.max_recv_wr = 2,
				.max_send_sge = 1,
				.max_recv_sge = 1},
		};

		qp[i] = ibv_create_qp(pd, &ia);
		if (!qp[i])
			goto out;
	}
	if (to_rts(qp[0], qp[1]->qp_num, &gid, pa.active_mtu) ||
	    to_rts(qp[1], qp[0]->qp_num, &gid, pa.active_mtu))
		goto out;

	snprintf(buf, LEN, "written by RDMA through DPDK port %s", PORT_NAME);
	struct ibv_sge sge = {(uintptr_t)buf, LEN, mr->lkey};
	struct ibv_send_wr wr =
				   {
					   .wr_id = 1,
					   .sg_list = &sge,
					   .num_sge = 1,
					   .opcode = IBV_WR_RDMA_WRITE,
					   .send_flags = IBV_SEND_SIGNALED,
					   .wr.rdma = {(uintptr_t)(buf + LEN),
						       mr->rkey},
				   },
			   *bad;

	if (ibv_post_send(qp[0], &wr, &bad))
		goto out;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	end = ts.tv_sec + 5.0;
	do { /* polling runs the engine: frames go out and come back */
		n = ibv_poll_cq(cq, 1, &wc);
		clock_gettime(CLOCK_MONOTONIC, &ts);
	} while (n == 0 && ts.tv_sec < end);
	if (n != 1 || wc.status != IBV_WC_SUCCESS) {
		fprintf(stderr, "embedded: RDMA WRITE: %s\n",
			n == 1 ? ibv_wc_status_str(wc.status)
			       : "no completion");
		goto out;
	}
	if (memcmp(buf, buf + LEN, LEN) != 0) {
		fprintf(stderr, "embedded: FAIL: data differs\n");
		goto out;
	}
	printf("embedded: OK: %d-byte RDMA WRITE on %s: \"%s\"\n", LEN, devname,
	       buf + LEN);
	rc = 0;
out:
	if (rc)
		fprintf(stderr, "embedded: verbs step failed\n");
	for (i = 1; i >= 0; i--)
		if (qp[i])
			ibv_destroy_qp(qp[i]);
	if (cq)
		ibv_destroy_cq(cq);
	if (mr)
		ibv_dereg_mr(mr);
	if (pd)
		ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	free(buf);
	return rc;
}

int
main(int argc, char **argv)
{
	char devname[16];
	int rc;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2) {
		argc = (int)(sizeof(default_args) / sizeof(default_args[0]));
		argv = (char **)(uintptr_t)default_args;
	}
	if (rte_eal_init(argc, argv) < 0) {
		fprintf(stderr, "embedded: rte_eal_init failed\n");
		return 1;
	}
	rc = attach_port(devname, sizeof(devname));
	if (rc == 0)
		rc = rdma_write_once(devname);

	/* Release dpverbs' devices before EAL goes away. */
	dpv_port_fini();
	rte_eal_cleanup();
	return rc ? 1 : 0;
}
