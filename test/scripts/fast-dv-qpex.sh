#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# mlx5dv_qp_ex_from_ibv_qp_ex through our libibverbs.so.1 / libmlx5.so.1,
# as an unmodified program sees it: a small C program (installed rdma-core
# headers) on a live dpverbs device. An ibv_qp_ex QP gets a view whose
# builders are all set and those not implemented make ibv_wr_complete fail
# with EOPNOTSUPP; a plain QP gets NULL / EINVAL. Indirect memory keys
# through libmlx5.so.1 (their traffic: dpv-test dv_mkey_autotest).
#
# Usage: fast-dv-qpex.sh <our lib dir>
set -u
LIBDIR=$(readlink -f "${1:?usage: $0 <lib dir>}")
CC=${CC:-cc}
command -v "$CC" >/dev/null || { echo "SKIP: no C compiler"; exit 77; }
for l in libibverbs libmlx5; do
	if [ ! -e "$LIBDIR/$l.so.1" ]; then
		echo "FAIL: $LIBDIR/$l.so.1 does not exist (not built yet?)"
		exit 1
	fi
done
[ -e /usr/include/infiniband/mlx5dv.h ] ||
	{ echo "SKIP: no <infiniband/mlx5dv.h>"; exit 77; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

cat >"$TMP/qpex.c" <<'CEOF'
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <infiniband/verbs.h>
#include <infiniband/mlx5dv.h>

static int fails;

static void
check(int ok, const char *what)
{
	printf("%s: %s\n", ok ? "ok" : "FAIL", what);
	fails += !ok;
}

int
main(void)
{
	struct ibv_device **l = ibv_get_device_list(NULL);
	struct ibv_device *dev = NULL;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp, *plain;
	struct ibv_qp_ex *x;
	struct mlx5dv_qp_ex *m;
	struct ibv_qp_init_attr_ex ia;
	struct ibv_qp_attr a;
	static char buf[64];
	struct ibv_mr *mr;
	int i, rc;

	for (i = 0; l != NULL && l[i] != NULL; i++)
		if (strncmp(ibv_get_device_name(l[i]), "dpv", 3) == 0) {
			dev = l[i];
			break;
		}
	if (dev == NULL) {
		printf("SKIP: no dpverbs device\n");
		return 77;
	}
	ctx = ibv_open_device(dev);
	pd = ctx ? ibv_alloc_pd(ctx) : NULL;
	cq = pd ? ibv_create_cq(ctx, 8, NULL, NULL, 0) : NULL;
	mr = cq ? ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE)
		: NULL;
	if (mr == NULL) {
		printf("FAIL: setup: %s\n", strerror(errno));
		return 1;
	}
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = cq;
	ia.recv_cq = cq;
	ia.cap.max_send_wr = 4;
	ia.cap.max_recv_wr = 4;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	ia.qp_type = IBV_QPT_UD;
	ia.pd = pd;
	ia.comp_mask = IBV_QP_INIT_ATTR_PD;
	plain = ibv_create_qp_ex(ctx, &ia);
	check(plain != NULL, "plain UD QP");
	if (plain) {
		errno = 0;
		m = mlx5dv_qp_ex_from_ibv_qp_ex((struct ibv_qp_ex *)plain);
		check(m == NULL && errno == EINVAL,
		      "plain QP: NULL, errno EINVAL");
		ibv_destroy_qp(plain);
	}

	ia.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	ia.send_ops_flags = IBV_QP_EX_WITH_SEND;
	qp = ibv_create_qp_ex(ctx, &ia);
	check(qp != NULL, "ibv_qp_ex UD QP");
	if (qp == NULL)
		return 1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qkey = 0x11111111;
	rc = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
					   IBV_QP_PORT | IBV_QP_QKEY);
	a.qp_state = IBV_QPS_RTR;
	rc = rc ? rc : ibv_modify_qp(qp, &a, IBV_QP_STATE);
	a.qp_state = IBV_QPS_RTS;
	rc = rc ? rc : ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN);
	check(rc == 0, "QP to RTS");
	x = ibv_qp_to_qp_ex(qp);
	m = mlx5dv_qp_ex_from_ibv_qp_ex(x);
	check(m != NULL, "mlx5dv_qp_ex_from_ibv_qp_ex");
	if (m == NULL)
		return 1;
	check(m->comp_mask == 0 && m->wr_set_dc_addr && m->wr_mr_interleaved &&
		      m->wr_mr_list && m->wr_mkey_configure &&
		      m->wr_set_mkey_access_flags &&
		      m->wr_set_mkey_layout_list &&
		      m->wr_set_mkey_layout_interleaved &&
		      m->wr_set_mkey_sig_block && m->wr_raw_wqe &&
		      m->wr_set_dc_addr_stream && m->wr_memcpy &&
		      m->wr_set_mkey_crypto,
	      "comp_mask 0, every builder set");

	ibv_wr_start(x);
	x->wr_id = 1;
	x->wr_flags = 0;
	ibv_wr_send(x);
	ibv_wr_set_sge(x, mr->lkey, (uintptr_t)buf, 8);
	mlx5dv_wr_set_dc_addr(m, NULL, 1, 2);
	rc = ibv_wr_complete(x);
	check(rc == EOPNOTSUPP, "wr_set_dc_addr: ibv_wr_complete EOPNOTSUPP");
	ibv_wr_start(x);
	mlx5dv_wr_memcpy(m, mr->lkey, (uintptr_t)buf, mr->lkey,
			 (uintptr_t)buf + 32, 8);
	rc = ibv_wr_complete(x);
	check(rc == EOPNOTSUPP, "wr_memcpy: ibv_wr_complete EOPNOTSUPP");
	ibv_wr_start(x);
	rc = ibv_wr_complete(x);
	check(rc == 0, "an empty batch afterwards completes");

	{
		struct mlx5dv_mkey_init_attr ma = {.pd = pd, .max_entries = 1};
		struct mlx5dv_qp_init_attr dv = {
			.comp_mask = MLX5DV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS,
			.send_ops_flags = MLX5DV_QP_EX_WITH_MR_LIST,
		};
		struct mlx5dv_mkey_err me;
		struct mlx5dv_mkey *mk;
		struct ibv_qp *q;

		errno = 0;
		check(mlx5dv_create_mkey(&ma) == NULL && errno == EOPNOTSUPP,
		      "create_mkey without INDIRECT: EOPNOTSUPP");
		ma.create_flags = MLX5DV_MKEY_INIT_ATTR_FLAGS_INDIRECT;
		mk = mlx5dv_create_mkey(&ma);
		check(mk != NULL && mk->lkey == mk->rkey && ma.max_entries == 4,
		      "create_mkey: lkey == rkey, max_entries 4");
		check(mk && mlx5dv_mkey_check(mk, &me) == EINVAL,
		      "mkey_check: EINVAL (no signature)");
		check(mk && mlx5dv_destroy_mkey(mk) == 0, "destroy_mkey");
		ma.create_flags = MLX5DV_MKEY_INIT_ATTR_FLAGS_INDIRECT |
				  MLX5DV_MKEY_INIT_ATTR_FLAGS_BLOCK_SIGNATURE;
		mk = mlx5dv_create_mkey(&ma);
		check(mk && mlx5dv_mkey_check(mk, &me) == 0 &&
			      me.err_type == MLX5DV_MKEY_NO_ERR,
		      "signature key: mkey_check 0, no error");
		check(mk && mlx5dv_destroy_mkey(mk) == 0, "destroy_mkey");
		ia.qp_type = IBV_QPT_RC;
		ia.comp_mask = IBV_QP_INIT_ATTR_PD;
		errno = 0;
		q = mlx5dv_create_qp(ctx, &ia, &dv);
		/* as rdma-core's provider: the mlx5 builders alone make an
		 * ibv_qp_ex QP */
		check(q != NULL &&
			      mlx5dv_qp_ex_from_ibv_qp_ex(ibv_qp_to_qp_ex(q)),
		      "MR_LIST without IBV_QP_INIT_ATTR_SEND_OPS_FLAGS: an "
		      "ibv_qp_ex QP");
		if (q)
			ibv_destroy_qp(q);
		ia.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		dv.send_ops_flags = MLX5DV_QP_EX_WITH_MKEY_CONFIGURE;
		ia.cap.max_inline_data = 512;
		errno = 0;
		q = mlx5dv_create_qp(ctx, &ia, &dv);
		/* room for long layouts through max_inline_data (man page);
		 * every builder of the type set, as rdma-core's provider */
		check(q != NULL && ia.cap.max_inline_data >= 512 &&
			      ibv_qp_to_qp_ex(q)->wr_send_inv != NULL,
		      "MKEY_CONFIGURE: 512 inline bytes, every RC builder");
		if (q)
			ibv_destroy_qp(q);
		ia.cap.max_inline_data = 0;
		dv.send_ops_flags = MLX5DV_QP_EX_WITH_MEMCPY;
		errno = 0;
		q = mlx5dv_create_qp(ctx, &ia, &dv);
		check(q == NULL && errno == EOPNOTSUPP, "MEMCPY: EOPNOTSUPP");
		dv.send_ops_flags = MLX5DV_QP_EX_WITH_MR_LIST |
				    MLX5DV_QP_EX_WITH_MR_INTERLEAVED;
		q = mlx5dv_create_qp(ctx, &ia, &dv);
		check(q != NULL, "RC QP with MR_LIST | MR_INTERLEAVED");
		if (q)
			ibv_destroy_qp(q);
	}
	check(ibv_destroy_qp(qp) == 0, "destroy QP");
	ibv_dereg_mr(mr);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(l);
	return fails ? 1 : 0;
}
CEOF

"$CC" -Wall -Wextra -Werror -o "$TMP/qpex" "$TMP/qpex.c" \
	-L"$LIBDIR" -l:libibverbs.so.1 -l:libmlx5.so.1 ||
	{ echo "FAIL: cannot build the test program"; exit 1; }
LD_LIBRARY_PATH="$LIBDIR" timeout -k 5 60 "$TMP/qpex"
