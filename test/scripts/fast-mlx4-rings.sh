#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The device option "rings = mlx4" (doc/guides/drivers/mlx4.rst): both
# ends of a memif pair with ConnectX-3 ring formats run unmodified
# rdma-core programs (ibv_rc_pingpong, ibv_ud_pingpong, ibv_srq_pingpong)
# and perftest's ib_send_lat and ib_write_bw; a bad value is refused.
# Usage: fast-mlx4-rings.sh <lib dir> [source root]
set -u
LIBDIR=${1:?usage: $0 <lib dir> [source root]}
SRC=${2:-$(dirname "$0")/../..}
. "$SRC/test/scripts/interop-common.sh"
ic_init
ic_need ibv_rc_pingpong
ic_need ibv_devinfo

rc=0
printf '[dpv0]\nport = loopback\nrings = mlx3\n' >"$IC_TMP/bad.conf"
if env LD_LIBRARY_PATH="$LIBDIR" DPV_CONF="$IC_TMP/bad.conf" timeout 60 \
	ibv_devinfo >"$IC_TMP/bad.out" 2>&1; then
	echo "FAIL: rings = mlx3 accepted"
	rc=1
fi

ic_env_memif
printf '[dpv0]\nrings = mlx4\n' >"$IC_TMP/mlx4.conf"
IC_CONF=$IC_TMP/mlx4.conf
IC_TIMEOUT=30
PAT='[0-9]+ iters in [0-9.]+ seconds'
SPATTERN=$PAT ic_pair rc "$PAT" "" -- ibv_rc_pingpong -d dpv0 -g 1 \
	-p $IC_TCP -n 200 || rc=1
SPATTERN=$PAT ic_pair ud "$PAT" "" -- ibv_ud_pingpong -d dpv0 -g 1 \
	-p $IC_TCP -n 200 -s 512 || rc=1
SPATTERN=$PAT ic_pair srq "$PAT" "" -- ibv_srq_pingpong -d dpv0 -g 1 \
	-p $IC_TCP -n 200 || rc=1
if command -v ib_send_lat >/dev/null && command -v ib_write_bw >/dev/null; then
	RES='^ *[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+'
	SPATTERN= ic_pair ib_send_lat "$RES" "" -- ib_send_lat -d dpv0 -x 1 \
		-p $IC_TCP -n 200 || rc=1
	SPATTERN=$RES ic_pair ib_write_bw "$RES" "" -- ib_write_bw -d dpv0 \
		-x 1 -p $IC_TCP -n 200 || rc=1
else
	echo "perftest not installed: its part skipped"
fi
ic_summary || rc=1
exit $rc
