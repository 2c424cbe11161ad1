#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The sample applications under examples/: hello_verbs (one RDMA WRITE
# between two QPs on the loopback device dpv0) and embedded (the
# application owns EAL and a net_ring port and attaches it with
# dpv_port_attach) and mlx4_by_hand (mlx4 WQEs and CQEs by hand through
# mlx4dv_init_obj on a rings = mlx4 device) must print their OK line and
# exit 0.
# Usage: fast-examples.sh <lib dir> <source root> <build root>
set -u
LIBDIR=${1:?usage: $0 <lib dir> <source root> <build root>}
BUILD=${3:?usage: $0 <lib dir> <source root> <build root>}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

[ -e "$LIBDIR/libibverbs.so.1" ] || { echo "SKIP: no $LIBDIR/libibverbs.so.1"; exit 77; }
[ -d "$BUILD/examples/hello_verbs" ] || { echo "SKIP: examples not built (-Dexamples=false)"; exit 77; }

rc=0
# run <name> <OK pattern>
run() {
	local exe=$BUILD/examples/$1/$1 s
	if [ ! -x "$exe" ]; then
		echo "FAIL: $exe was not built"
		rc=1
		return
	fi
	timeout 60 "$exe" >"$TMP/$1" 2>&1
	s=$?
	if [ $s -ne 0 ] || ! grep -Eq "$2" "$TMP/$1"; then
		echo "FAIL: $1 (exit status $s, want 0 and a line matching '$2')"
		cat "$TMP/$1"
		rc=1
	else
		grep -E "$2" "$TMP/$1"
	fi
}

run hello_verbs '^hello_verbs: OK: QP 0x[0-9a-f]+ wrote to QP 0x[0-9a-f]+ on dpv0: "Hello, RDMA! \(4096 bytes by RDMA WRITE\)"$'
run embedded '^embedded: OK: 1024-byte RDMA WRITE on dpv0: "written by RDMA through DPDK port net_ring0"$'
run mlx4_by_hand '^mlx4_by_hand: OK: 100 SENDs written as mlx4 WQEs by hand \(SQ of 16, CQ of 32, wrapped\)'
exit $rc
