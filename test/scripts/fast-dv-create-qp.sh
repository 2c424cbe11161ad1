#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# mlx5dv_create_qp's mlx5 attributes through our libmlx5.so.1, as an
# unmodified program sees them (installed rdma-core headers, a live
# dpverbs device): a create-flags mask with no flag, or with only
# DISABLE_SCATTER_TO_CQE (what the engine always does), creates a QP;
# DISABLE and ALLOW together, or an unknown comp_mask bit, is EINVAL;
# DC and flags that are not implemented are EOPNOTSUPP.
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

/* Create with the given mlx5 attributes; expect errno want (0: a QP). */
static void
try(const char *what, uint64_t cm, uint32_t flags, int want)
{
	struct ibv_qp_init_attr_ex a = {
		.qp_type = IBV_QPT_RC, .send_cq = cq, .recv_cq = cq,
		.cap = {.max_send_wr = 4, .max_recv_wr = 4,
			.max_send_sge = 1, .max_recv_sge = 1},
		.comp_mask = IBV_QP_INIT_ATTR_PD, .pd = pd};
	struct mlx5dv_qp_init_attr m = {.comp_mask = cm,
					.create_flags = flags};
	struct ibv_qp *qp;
	int err;

	errno = 0;
	qp = mlx5dv_create_qp(ctx, &a, &m);
	err = qp ? 0 : errno;
	printf("%s: %s (%s, want %s)\n", err == want ? "ok" : "FAIL", what,
	       err ? strerror(err) : "created", want ? strerror(want) : "created");
	fails += err != want;
	if (qp)
		ibv_destroy_qp(qp);
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
	try("DISABLE and ALLOW_SCATTER_TO_CQE",
	    MLX5DV_QP_INIT_ATTR_MASK_QP_CREATE_FLAGS,
	    MLX5DV_QP_CREATE_DISABLE_SCATTER_TO_CQE |
		    MLX5DV_QP_CREATE_ALLOW_SCATTER_TO_CQE, EINVAL);
	try("unknown comp_mask bit", 1ull << 40, 0, EINVAL);
	try("TUNNEL_OFFLOADS (not implemented)",
	    MLX5DV_QP_INIT_ATTR_MASK_QP_CREATE_FLAGS,
	    MLX5DV_QP_CREATE_TUNNEL_OFFLOADS, EOPNOTSUPP);
	try("DC (not implemented)", MLX5DV_QP_INIT_ATTR_MASK_DC, 0,
	    EOPNOTSUPP);
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
