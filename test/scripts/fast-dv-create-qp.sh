#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# mlx5dv_create_qp's mlx5 attributes through our libmlx5.so.1, as an
# unmodified program sees them (installed rdma-core headers, a live
# dpverbs device): a create-flags mask with no flag, with
# DISABLE_SCATTER_TO_CQE or with ALLOW_SCATTER_TO_CQE creates a QP (their
# effect: dpv-test scat_cqe);
# PACKET_BASED_CREDIT_MODE creates an RC QP (its effect: dpv-test
# engine_credit, scat_cqe) and is EINVAL on UD, UC and XRC QPs, as with
# the kernel's mlx5 driver;
# DISABLE and ALLOW together, or an unknown comp_mask bit, is EINVAL;
# DC on a type other than IBV_QPT_DRIVER, or without a DCI / DCT dc_type,
# is EINVAL; flags that are not implemented are EOPNOTSUPP.
# TUNNEL_OFFLOADS creates a raw-packet QP (its effect: dpv-test
# raw_cflags) and is EOPNOTSUPP on RC; mlx5dv_query_device advertises
# VXLAN, GRE and GENEVE in tunnel_offloads_caps. The TIR
# self-loopback flags are EOPNOTSUPP on an RC QP; on raw-packet QPs they
# decide, with traffic, whether a QP receives what its own context sends
# (a QP without them does not, as on ConnectX).
#
# Usage: fast-dv-create-qp.sh <our lib dir>
set -u
LIBDIR=$(readlink -f "${1:?usage: $0 <lib dir>}")
CC=${CC:-cc}
command -v "$CC" >/dev/null || { echo "SKIP: no C compiler"; exit 77; }
for l in libibverbs libmlx5; do
	[ -e "$LIBDIR/$l.so.1" ] ||
		{ echo "FAIL: $LIBDIR/$l.so.1 does not exist"; exit 1; }
done
[ -e /usr/include/infiniband/mlx5dv.h ] ||
	{ echo "SKIP: no <infiniband/mlx5dv.h>"; exit 77; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

cat >"$TMP/cqp.c" <<'CEOF'
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <infiniband/verbs.h>
#include <infiniband/mlx5dv.h>

static int fails;
static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;

/* Create a QP of type t with these mlx5 attributes. */
static struct ibv_qp *
create(enum ibv_qp_type t, uint64_t cm, uint32_t flags)
{
	struct ibv_qp_init_attr_ex a = {
		.qp_type = t, .send_cq = cq, .recv_cq = cq,
		.cap = {.max_send_wr = 4, .max_recv_wr = 4,
			.max_send_sge = 1, .max_recv_sge = 1},
		.comp_mask = IBV_QP_INIT_ATTR_PD, .pd = pd};
	struct mlx5dv_qp_init_attr m = {.comp_mask = cm,
					.create_flags = flags};

	return mlx5dv_create_qp(ctx, &a, &m);
}

/* Raw QP in RTS with a flow on dmac and one receive WQE at buf + off. */
static struct ibv_qp *
raw_rx(uint32_t flags, const uint8_t *dmac, struct ibv_mr *mr, uint32_t off,
       struct ibv_flow **fl)
{
	struct {
		struct ibv_flow_attr attr;
		struct ibv_flow_spec_eth eth;
	} f = {.attr = {.type = IBV_FLOW_ATTR_NORMAL, .size = sizeof(f),
			.num_of_specs = 1, .port = 1},
	       .eth = {.type = IBV_FLOW_SPEC_ETH, .size = sizeof(f.eth)}};
	struct ibv_qp_attr qa = {.qp_state = IBV_QPS_INIT, .port_num = 1};
	struct ibv_sge sge = {.addr = (uintptr_t)mr->addr + off,
			      .length = 2048, .lkey = mr->lkey};
	struct ibv_recv_wr rw = {.sg_list = &sge, .num_sge = 1}, *bad;
	struct ibv_qp *qp = create(IBV_QPT_RAW_PACKET,
				   MLX5DV_QP_INIT_ATTR_MASK_QP_CREATE_FLAGS,
				   flags);

	if (qp == NULL || ibv_modify_qp(qp, &qa, IBV_QP_STATE | IBV_QP_PORT))
		return NULL;
	qa.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(qp, &qa, IBV_QP_STATE))
		return NULL;
	qa.qp_state = IBV_QPS_RTS;
	if (ibv_modify_qp(qp, &qa, IBV_QP_STATE))
		return NULL;
	memcpy(f.eth.val.dst_mac, dmac, 6);
	memset(f.eth.mask.dst_mac, 0xff, 6);
	*fl = ibv_create_flow(qp, &f.attr);
	if (*fl == NULL || ibv_post_recv(qp, &rw, &bad))
		return NULL;
	return qp;
}

/* One raw QP sends a unicast frame: only the QP with ALLOW_..._UC of
 * the same context receives it. */
static void
self_loopback(void)
{
	static uint8_t buf[8192];
	static const uint8_t dmac[6] = {0x02, 0, 0x5e, 0, 2, 0x0c};
	struct ibv_mr *mr = ibv_reg_mr(pd, buf, sizeof(buf),
				       IBV_ACCESS_LOCAL_WRITE);
	struct ibv_flow *f1 = NULL, *f2 = NULL;
	struct ibv_qp *tx, *allow, *plain;
	struct ibv_qp_attr qa = {.qp_state = IBV_QPS_INIT, .port_num = 1};
	struct ibv_sge sge = {.addr = (uintptr_t)buf, .length = 64};
	struct ibv_send_wr sw = {.sg_list = &sge, .num_sge = 1,
				 .opcode = IBV_WR_SEND,
				 .send_flags = IBV_SEND_SIGNALED}, *bad;
	struct ibv_wc wc[4];
	int got_allow = 0, got_plain = 0, sent = 0;

	if (mr == NULL) {
		printf("FAIL: self-loopback: no MR\n");
		fails++;
		return;
	}
	sge.lkey = mr->lkey;
	memcpy(buf, dmac, 6);
	memcpy(buf + 6, "\x02\x00\x5e\x00\x02\x01\x88\xb5", 8);
	allow = raw_rx(MLX5DV_QP_CREATE_TIR_ALLOW_SELF_LOOPBACK_UC, dmac, mr,
		       2048, &f1);
	plain = raw_rx(0, dmac, mr, 4096, &f2);
	tx = create(IBV_QPT_RAW_PACKET, 0, 0);
	if (tx && !ibv_modify_qp(tx, &qa, IBV_QP_STATE | IBV_QP_PORT)) {
		qa.qp_state = IBV_QPS_RTR;
		ibv_modify_qp(tx, &qa, IBV_QP_STATE);
		qa.qp_state = IBV_QPS_RTS;
		ibv_modify_qp(tx, &qa, IBV_QP_STATE);
	}
	if (!allow || !plain || !tx || ibv_post_send(tx, &sw, &bad)) {
		printf("FAIL: self-loopback: setup (%s)\n", strerror(errno));
		fails++;
		return;
	}
	for (int i = 0; i < 200000 && sent + got_allow < 2; i++) {
		int n = ibv_poll_cq(cq, 4, wc);

		for (int k = 0; k < n; k++) {
			sent += wc[k].opcode == IBV_WC_SEND;
			got_allow += wc[k].opcode == IBV_WC_RECV &&
				     wc[k].qp_num == allow->qp_num;
			got_plain += wc[k].opcode == IBV_WC_RECV &&
				     wc[k].qp_num == plain->qp_num;
		}
	}
	for (int i = 0; i < 20000; i++) { /* anything late for plain */
		int n = ibv_poll_cq(cq, 4, wc);

		for (int k = 0; k < n; k++)
			got_plain += wc[k].opcode == IBV_WC_RECV &&
				     wc[k].qp_num == plain->qp_num;
	}
	printf("%s: self-loopback: ALLOW_SELF_LOOPBACK_UC QP got %d, "
	       "plain QP got %d (want 1, 0)\n",
	       got_allow == 1 && got_plain == 0 ? "ok" : "FAIL", got_allow,
	       got_plain);
	fails += !(got_allow == 1 && got_plain == 0);
	ibv_destroy_flow(f1);
	ibv_destroy_flow(f2);
	ibv_destroy_qp(tx);
	ibv_destroy_qp(allow);
	ibv_destroy_qp(plain);
	ibv_dereg_mr(mr);
}

/* mlx5dv_query_device advertises the tunnels raw QPs check inside. */
static void
tunnel_caps(void)
{
	const uint32_t want = MLX5DV_RAW_PACKET_CAP_TUNNELED_OFFLOAD_VXLAN |
			      MLX5DV_RAW_PACKET_CAP_TUNNELED_OFFLOAD_GRE |
			      MLX5DV_RAW_PACKET_CAP_TUNNELED_OFFLOAD_GENEVE;
	struct mlx5dv_context dv = {
		.comp_mask = MLX5DV_CONTEXT_MASK_TUNNEL_OFFLOADS};
	int rc = mlx5dv_query_device(ctx, &dv);
	int ok = rc == 0 &&
		 (dv.comp_mask & MLX5DV_CONTEXT_MASK_TUNNEL_OFFLOADS) &&
		 dv.tunnel_offloads_caps == want;

	printf("%s: tunnel_offloads_caps 0x%x (want 0x%x)\n",
	       ok ? "ok" : "FAIL", dv.tunnel_offloads_caps, want);
	fails += !ok;
}

/* Create with the given mlx5 attributes; expect errno want (0: a QP). */
static void
try_type(const char *what, enum ibv_qp_type t, uint64_t cm, uint32_t flags,
	 int want)
{
	struct ibv_qp *qp;
	int err;

	errno = 0;
	qp = create(t, cm, flags);
	err = qp ? 0 : errno;
	printf("%s: %s (%s, want %s)\n", err == want ? "ok" : "FAIL", what,
	       err ? strerror(err) : "created", want ? strerror(want) : "created");
	fails += err != want;
	if (qp)
		ibv_destroy_qp(qp);
}

/* The same for an RC QP. */
static void
try(const char *what, uint64_t cm, uint32_t flags, int want)
{
	try_type(what, IBV_QPT_RC, cm, flags, want);
}

int
main(void)
{
	struct ibv_device **l = ibv_get_device_list(NULL);

	if (l == NULL || l[0] == NULL || !(ctx = ibv_open_device(l[0])))
		return 2;
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	if (pd == NULL || cq == NULL)
		return 2;
	try("no mlx5 attribute", 0, 0, 0);
	try("create-flags mask, no flag",
	    MLX5DV_QP_INIT_ATTR_MASK_QP_CREATE_FLAGS, 0, 0);
	try("DISABLE_SCATTER_TO_CQE",
	    MLX5DV_QP_INIT_ATTR_MASK_QP_CREATE_FLAGS,
	    MLX5DV_QP_CREATE_DISABLE_SCATTER_TO_CQE, 0);
	try("ALLOW_SCATTER_TO_CQE", MLX5DV_QP_INIT_ATTR_MASK_QP_CREATE_FLAGS,
	    MLX5DV_QP_CREATE_ALLOW_SCATTER_TO_CQE, 0);
	try("DISABLE and ALLOW_SCATTER_TO_CQE",
	    MLX5DV_QP_INIT_ATTR_MASK_QP_CREATE_FLAGS,
	    MLX5DV_QP_CREATE_DISABLE_SCATTER_TO_CQE |
		    MLX5DV_QP_CREATE_ALLOW_SCATTER_TO_CQE, EINVAL);
	try("unknown comp_mask bit", 1ull << 40, 0, EINVAL);
	try("PACKET_BASED_CREDIT_MODE on RC",
	    MLX5DV_QP_INIT_ATTR_MASK_QP_CREATE_FLAGS,
	    MLX5DV_QP_CREATE_PACKET_BASED_CREDIT_MODE, 0);
	try("PACKET_BASED_CREDIT_MODE and ALLOW_SCATTER_TO_CQE on RC",
	    MLX5DV_QP_INIT_ATTR_MASK_QP_CREATE_FLAGS,
	    MLX5DV_QP_CREATE_PACKET_BASED_CREDIT_MODE |
		    MLX5DV_QP_CREATE_ALLOW_SCATTER_TO_CQE, 0);
	try("PACKET_BASED_CREDIT_MODE without the create-flags mask", 0,
	    MLX5DV_QP_CREATE_PACKET_BASED_CREDIT_MODE, 0);
	try_type("PACKET_BASED_CREDIT_MODE on UD", IBV_QPT_UD,
		 MLX5DV_QP_INIT_ATTR_MASK_QP_CREATE_FLAGS,
		 MLX5DV_QP_CREATE_PACKET_BASED_CREDIT_MODE, EINVAL);
	try_type("PACKET_BASED_CREDIT_MODE on UC", IBV_QPT_UC,
		 MLX5DV_QP_INIT_ATTR_MASK_QP_CREATE_FLAGS,
		 MLX5DV_QP_CREATE_PACKET_BASED_CREDIT_MODE, EINVAL);
	try("TUNNEL_OFFLOADS on RC", MLX5DV_QP_INIT_ATTR_MASK_QP_CREATE_FLAGS,
	    MLX5DV_QP_CREATE_TUNNEL_OFFLOADS, EOPNOTSUPP);
	try_type("TUNNEL_OFFLOADS on RAW_PACKET", IBV_QPT_RAW_PACKET,
		 MLX5DV_QP_INIT_ATTR_MASK_QP_CREATE_FLAGS,
		 MLX5DV_QP_CREATE_TUNNEL_OFFLOADS, 0);
	tunnel_caps();
	/* DC needs qp_type IBV_QPT_DRIVER and a DCI or DCT dc_type */
	try("DC on an RC QP", MLX5DV_QP_INIT_ATTR_MASK_DC, 0, EINVAL);
	try_type("DC of dc_type 0", IBV_QPT_DRIVER,
		 MLX5DV_QP_INIT_ATTR_MASK_DC, 0, EINVAL);
	try_type("TIR_ALLOW_SELF_LOOPBACK_UC on RC", IBV_QPT_RC,
		 MLX5DV_QP_INIT_ATTR_MASK_QP_CREATE_FLAGS,
		 MLX5DV_QP_CREATE_TIR_ALLOW_SELF_LOOPBACK_UC, EOPNOTSUPP);
	try_type("TIR_ALLOW_SELF_LOOPBACK_UC|MC on RAW_PACKET",
		 IBV_QPT_RAW_PACKET, MLX5DV_QP_INIT_ATTR_MASK_QP_CREATE_FLAGS,
		 MLX5DV_QP_CREATE_TIR_ALLOW_SELF_LOOPBACK_UC |
			 MLX5DV_QP_CREATE_TIR_ALLOW_SELF_LOOPBACK_MC, 0);
	self_loopback();
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(l);
	return fails ? 1 : 0;
}
CEOF

"$CC" -Wall -Wextra -Werror -o "$TMP/cqp" "$TMP/cqp.c" \
	-L"$LIBDIR" -l:libibverbs.so.1 -l:libmlx5.so.1 ||
	{ echo "FAIL: cannot build the test program"; exit 1; }
DPV_CONF=/dev/null LD_LIBRARY_PATH="$LIBDIR" timeout -k 5 60 "$TMP/cqp" \
	>"$TMP/out" 2>&1
rc=$?
grep -v "^EAL\|TELEMETRY\|avx512" "$TMP/out"
echo "$(grep -c '^ok:' "$TMP/out") passed, $(grep -c '^FAIL' "$TMP/out") failed"
exit "$rc"
