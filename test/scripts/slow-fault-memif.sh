#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The long run of fast-fault-memif.sh: 400 iterations at 1 B to 1 MiB
# through the fault layer, then every perftest bandwidth and latency test.
# Arguments: <build>/lib, source root, build root.
set -u
LIBDIR=${1:?usage: $0 <lib dir> <source root> <build root>}
SRC=${2:-$(dirname "$0")/../..}
DPV_FAULT_ITERS=${DPV_FAULT_ITERS:-400} \
	DPV_FAULT_SIZES=${DPV_FAULT_SIZES:-1 4096 65536 1048576} \
	IC_TIMEOUT=${IC_TIMEOUT:-240} \
	"$SRC/test/scripts/fast-fault-memif.sh" "$@" || exit 1

. "$SRC/test/scripts/interop-common.sh"
ic_init
ic_need ib_send_bw ib_write_lat ib_read_lat ib_send_lat ib_atomic_lat
ic_env_memif
IC_TIMEOUT=120
FAULT="DPV_FAULT=tx:drop=1%,reorder=10%/8,dup=2%;seed=$$"
RES='^ *[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+'
SPATTERN=$RES ic_pair ib_send_bw "$RES" "$FAULT" -- ib_send_bw -d dpv0 \
	-x 1 -p $IC_TCP -n 1000 -s 65536
for t in ib_write_lat ib_read_lat ib_send_lat ib_atomic_lat; do
	SPATTERN= ic_pair "$t" "$RES" "$FAULT" -- $t -d dpv0 -x 1 \
		-p $IC_TCP -n 1000
done
ic_summary
