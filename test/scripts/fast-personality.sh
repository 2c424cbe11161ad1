#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The device option "personality" (doc/guides/configuration.rst): without
# it ibv_devinfo (unmodified) shows dpverbs' own identity; with
# "personality = mlx5" the Mellanox vendor id and a ConnectX-5 part id
# (or the configured part_id), which pyverbs' mlx5 context accepts; bad
# values are refused. Then perftest's ib_send_lat and ib_write_bw between
# two processes over memif, both ends with the mlx5 identity (perftest
# then takes its ConnectX paths: the ibv_wr_* post API).
# Usage: fast-personality.sh <lib dir> [source root]
set -u
LIBDIR=${1:?usage: $0 <lib dir> [source root]}
SRC=${2:-$(dirname "$0")/../..}
. "$SRC/test/scripts/interop-common.sh"
ic_init
ic_need ibv_devinfo

rc=0
fail() {
	echo "FAIL: $*"
	rc=1
}

devinfo() { # CONF OUT
	env LD_LIBRARY_PATH="$LIBDIR" DPV_CONF="$1" timeout 60 \
		ibv_devinfo -v -d dpv0 >"$2" 2>&1
}

expect() { # FILE REGEX
	grep -Eq "$2" "$1" || fail "$(basename "$1"): no line matching '$2'"
}

printf '[dpv0]\nport = loopback\n' >"$IC_TMP/own.conf"
printf '[dpv0]\nport = loopback\npersonality = dpverbs\n' >"$IC_TMP/own2.conf"
printf '[dpv0]\nport = loopback\npersonality = mlx5\n' >"$IC_TMP/mlx5.conf"
printf '[dpv0]\nport = loopback\npersonality = mlx5\npart_id = 0x101d\n' \
	>"$IC_TMP/cx6dx.conf"

for c in own own2; do
	devinfo "$IC_TMP/$c.conf" "$IC_TMP/$c.out" ||
		fail "ibv_devinfo ($c) exited $?"
	expect "$IC_TMP/$c.out" 'vendor_id:[[:space:]]+0xd9b0$'
	expect "$IC_TMP/$c.out" 'vendor_part_id:[[:space:]]+25712$'
	expect "$IC_TMP/$c.out" 'hw_ver:[[:space:]]+0x1$'
	expect "$IC_TMP/$c.out" 'board_id:[[:space:]]+DPV6470$'
done
devinfo "$IC_TMP/mlx5.conf" "$IC_TMP/mlx5.out" ||
	fail "ibv_devinfo (mlx5) exited $?"
expect "$IC_TMP/mlx5.out" 'vendor_id:[[:space:]]+0x02c9$'
expect "$IC_TMP/mlx5.out" 'vendor_part_id:[[:space:]]+4119$'
expect "$IC_TMP/mlx5.out" 'hw_ver:[[:space:]]+0x0$'
expect "$IC_TMP/mlx5.out" 'board_id:[[:space:]]+DPV1017$'
expect "$IC_TMP/mlx5.out" 'fw_ver:[[:space:]]+dpverbs '
devinfo "$IC_TMP/cx6dx.conf" "$IC_TMP/cx6dx.out" ||
	fail "ibv_devinfo (part_id) exited $?"
expect "$IC_TMP/cx6dx.out" 'vendor_id:[[:space:]]+0x02c9$'
expect "$IC_TMP/cx6dx.out" 'vendor_part_id:[[:space:]]+4125$'

# refused: an unknown personality, a part id out of range, a part id
# without the mlx5 personality
printf '[dpv0]\nport = loopback\npersonality = mlx4\n' >"$IC_TMP/bad1.conf"
printf '[dpv0]\nport = loopback\npersonality = mlx5\npart_id = 65536\n' \
	>"$IC_TMP/bad2.conf"
printf '[dpv0]\nport = loopback\npart_id = 4119\n' >"$IC_TMP/bad3.conf"
for b in bad1 bad2 bad3; do
	if devinfo "$IC_TMP/$b.conf" "$IC_TMP/$b.out"; then
		fail "ibv_devinfo accepted $b.conf: $(tr '\n' ' ' <"$IC_TMP/$b.conf")"
	fi
	expect "$IC_TMP/$b.out" 'dpv\.port: configuration: .*(personality|part_id)'
done

# pyverbs' mlx5 context (mlx5dv_is_supported) and the identity it reads,
# as rdma-core's tests/mlx5_base.py is_mlx5_dev() does
if /usr/bin/python3 -c 'import pyverbs.providers.mlx5.mlx5dv' 2>/dev/null; then
	for c in mlx5 own; do
		env LD_LIBRARY_PATH="$LIBDIR" DPV_CONF="$IC_TMP/$c.conf" \
			timeout 60 /usr/bin/python3 -c '
from pyverbs.providers.mlx5.mlx5dv import Mlx5Context, Mlx5DVContextAttr
ctx = Mlx5Context(Mlx5DVContextAttr(), name="dpv0")
a = ctx.query_device()
print("%#06x %d" % (a.vendor_id, a.vendor_part_id))
' >"$IC_TMP/py-$c.out" 2>&1 || fail "pyverbs Mlx5Context ($c) failed"
	done
	expect "$IC_TMP/py-mlx5.out" '^0x02c9 4119$'
	expect "$IC_TMP/py-own.out" '^0xd9b0 25712$'
else
	echo "pyverbs' mlx5 module not installed: its check skipped"
fi

# perftest with both ends mlx5 (over memif)
if command -v ib_send_lat >/dev/null && command -v ib_write_bw >/dev/null; then
	ic_env_memif
	printf '[dpv0]\npersonality = mlx5\n' >"$IC_TMP/memif-mlx5.conf"
	IC_CONF=$IC_TMP/memif-mlx5.conf
	RES='^ *[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+'
	SPATTERN= ic_pair ib_send_lat "$RES" "" -- ib_send_lat -d dpv0 -x 1 \
		-p $IC_TCP -n 200 || rc=1
	SPATTERN=$RES ic_pair ib_write_bw "$RES" "" -- ib_write_bw -d dpv0 \
		-x 1 -p $IC_TCP -n 200 || rc=1
else
	echo "perftest not installed: its part skipped"
fi

if [ $rc -ne 0 ]; then
	for f in "$IC_TMP"/*.out; do
		echo "--- $(basename "$f")"
		head -30 "$f"
	done
else
	echo "OK: own identity by default, mlx5 identity with personality = mlx5"
fi
exit $rc
