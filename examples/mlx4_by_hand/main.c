/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mlx4_by_hand: drive a QP the way code written for ConnectX-3 does
 * (DPDK's mlx4 PMD, UCX-style transports). mlx4dv_init_obj() gives the
 * QP's send ring and its CQ; the program writes mlx4 send WQEs itself
 * (control and data segments, owner bit last), rings the send doorbell
 * and reads 32-byte CQEs by owner bit. The peer QP uses plain verbs.
 *
 * It runs on a device configured "rings = mlx4"; unless DPV_CONF is set it
 * writes such a configuration (a loopback device) to a temporary file.
 * Usage: mlx4_by_hand [messages]
 */
#include <endian.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <infiniband/mlx4dv.h>

#define PORT 1
#define MSG 64

static int
connect_qp(struct ibv_qp *qp, uint32_t peer, const union ibv_gid *gid, int gi)
{
	struct ibv_qp_attr a = {.qp_state = IBV_QPS_INIT, .port_num = PORT};

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
					  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = peer;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = *gid;
	a.ah_attr.grh.sgid_index = (uint8_t)gi;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = PORT;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
					  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
					  IBV_QP_MAX_DEST_RD_ATOMIC |
					  IBV_QP_MIN_RNR_TIMER))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
					     IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
					     IBV_QP_RNR_RETRY |
					     IBV_QP_MAX_QP_RD_ATOMIC)
		       ? -1
		       : 0;
}

/* Write a configuration with "rings = mlx4" unless the user gave one. */
static void
config(char *path, size_t len)
{
	FILE *f;
	int fd;

	path[0] = '\0';
	if (getenv("DPV_CONF") != NULL)
		return;
	snprintf(path, len, "/tmp/mlx4_by_hand-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0 || (f = fdopen(fd, "w")) == NULL) {
		path[0] = '\0';
		return;
	}
	fprintf(f, "[dpv0]\nport = loopback\nrings = mlx4\n");
	fclose(f);
	setenv("DPV_CONF", path, 1);
}

int
main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100, gi = 1, ret = 1, nd;
	struct ibv_qp_init_attr qa_attr = {
		.qp_type = IBV_QPT_RC,
		.cap = {.max_send_wr = 16, .max_recv_wr = 16,
			.max_send_sge = 1, .max_recv_sge = 1},
	};
	struct ibv_device **list;
	struct ibv_context *ctx;
	struct mlx4dv_context dvc;
	struct ibv_pd *pd;
	struct ibv_cq *cqa, *cqb;
	struct ibv_qp *qa, *qb;
	struct ibv_mr *mr;
	union ibv_gid gid;
	struct mlx4dv_qp dq = {0};
	struct mlx4dv_cq dc = {0};
	struct mlx4dv_obj obj;
	static uint8_t buf[2 * 4096];
	uint32_t ci = 0;
	char conf[64];

	config(conf, sizeof(conf));
	list = ibv_get_device_list(&nd);
	if (list == NULL || nd < 1 || (ctx = ibv_open_device(list[0])) == NULL) {
		perror("ibv_open_device");
		return 1;
	}
	if (mlx4dv_query_device(ctx, &dvc)) {
		fprintf(stderr, "mlx4_by_hand: %s has no mlx4 rings "
				"(configure rings = mlx4)\n",
			ibv_get_device_name(list[0]));
		return 1;
	}
	if (ibv_query_gid(ctx, PORT, gi, &gid) || gid.global.interface_id == 0)
		gi = 0;
	if (ibv_query_gid(ctx, PORT, gi, &gid))
		return 1;
	pd = ibv_alloc_pd(ctx);
	cqa = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	cqb = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	mr = pd ? ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE)
		: NULL;
	if (!cqa || !cqb || !mr)
		return 1;
	qa_attr.send_cq = qa_attr.recv_cq = cqa;
	qa = ibv_create_qp(pd, &qa_attr);
	qa_attr.send_cq = qa_attr.recv_cq = cqb;
	qb = ibv_create_qp(pd, &qa_attr);
	if (!qa || !qb || connect_qp(qa, qb->qp_num, &gid, gi) ||
	    connect_qp(qb, qa->qp_num, &gid, gi)) {
		perror("QP set-up");
		return 1;
	}
	/* the QP's rings and the CQ, as ConnectX-3 lays them out */
	obj.qp.in = qa;
	obj.qp.out = &dq;
	obj.cq.in = cqa;
	obj.cq.out = &dc;
	if (mlx4dv_init_obj(&obj, MLX4DV_OBJ_QP | MLX4DV_OBJ_CQ)) {
		perror("mlx4dv_init_obj");
		return 1;
	}
	for (int i = 0; i < n; i++) {
		uint32_t idx = (uint32_t)i & (dq.sq.wqe_cnt - 1);
		uint8_t *wqe = (uint8_t *)dq.buf.buf + dq.sq.offset +
			       ((size_t)idx << dq.sq.wqe_shift);
		struct mlx4_wqe_ctrl_seg *ctrl = (void *)wqe;
		uint32_t owner = ((uint32_t)i & dq.sq.wqe_cnt) ? 1u << 31 : 0;
		struct ibv_sge rsge = {(uintptr_t)buf + 4096, MSG, mr->lkey};
		struct ibv_recv_wr rwr = {.wr_id = (uint64_t)i,
					  .sg_list = &rsge, .num_sge = 1};
		struct ibv_recv_wr *bad;
		struct mlx4_cqe *cqe = NULL;
		struct ibv_wc wc;
		int got = 0;

		if (ibv_post_recv(qb, &rwr, &bad))
			return 1;
		snprintf((char *)buf, MSG, "message %d, posted by hand", i);
		/* data segment, then the control segment; owner bit last */
		mlx4dv_set_data_seg((struct mlx4_wqe_data_seg *)(ctrl + 1), MSG,
				    mr->lkey, (uintptr_t)buf);
		ctrl->fence_size = 2; /* 32 bytes: ctrl + one data segment */
		ctrl->srcrb_flags = htobe32(MLX4_WQE_CTRL_CQ_UPDATE);
		ctrl->imm = 0;
		__atomic_thread_fence(__ATOMIC_RELEASE);
		ctrl->owner_opcode = htobe32(MLX4_OPCODE_SEND | owner);
		*dq.sdb = dq.doorbell_qpn; /* the send doorbell */
		/* the peer receives with plain verbs (polling also makes the
		 * device progress); our CQE is read by owner bit */
		for (int t = 0; t < 5000 && (!got || cqe == NULL); t++) {
			struct mlx4_cqe *c = (struct mlx4_cqe *)dc.buf.buf +
					     (ci & (dc.cqe_cnt - 1));

			if (!got && ibv_poll_cq(cqb, 1, &wc) == 1) {
				if (wc.status != IBV_WC_SUCCESS ||
				    strcmp((char *)buf + 4096, (char *)buf)) {
					fprintf(stderr, "receive %d: %s\n", i,
						ibv_wc_status_str(wc.status));
					return 1;
				}
				got = 1;
			}
			if (cqe == NULL &&
			    !!mlx4dv_get_cqe_owner(c) == !!(ci & dc.cqe_cnt))
				cqe = c;
			if (!got || cqe == NULL)
				usleep(100);
		}
		if (!got || cqe == NULL) {
			fprintf(stderr, "message %d: no completion\n", i);
			return 1;
		}
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (mlx4dv_get_cqe_opcode(cqe) != MLX4_OPCODE_SEND ||
		    be16toh(cqe->wqe_index) != (uint16_t)i) {
			fprintf(stderr, "message %d: CQE opcode %#x index %u\n",
				i, mlx4dv_get_cqe_opcode(cqe),
				be16toh(cqe->wqe_index));
			return 1;
		}
		ci++;
		*dc.set_ci_db = htobe32(ci & 0xffffff);
	}
	printf("mlx4_by_hand: OK: %d SENDs written as mlx4 WQEs by hand "
	       "(SQ of %u, CQ of %u, wrapped), each received by QP 0x%x\n",
	       n, dq.sq.wqe_cnt, dc.cqe_cnt, qb->qp_num);
	ret = 0;
	ibv_destroy_qp(qa);
	ibv_destroy_qp(qb);
	ibv_destroy_cq(cqa);
	ibv_destroy_cq(cqb);
	ibv_dereg_mr(mr);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	if (conf[0])
		unlink(conf);
	return ret;
}
