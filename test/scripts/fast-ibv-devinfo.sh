#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# rdma-core's unmodified ibv_devices and ibv_devinfo -v, run on our
# libibverbs.so.1 (LD_LIBRARY_PATH=<lib dir>), must list dpv0 with its
# GUID, port attributes and RoCE v2 GIDs (the link-local one and the
# IPv4-mapped one of the address given in DPV_IP).
# Usage: fast-ibv-devinfo.sh <lib dir>
set -u
LIBDIR=${1:?usage: $0 <lib dir>}
IP=198.51.100.7
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

for p in ibv_devices ibv_devinfo; do
	command -v $p >/dev/null || { echo "SKIP: $p not installed"; exit 77; }
done
[ -e "$LIBDIR/libibverbs.so.1" ] || { echo "FAIL: no $LIBDIR/libibverbs.so.1"; exit 1; }

run() {
	env LD_LIBRARY_PATH="$LIBDIR" DPV_IP="$IP/24" timeout 60 "$@"
}

rc=0
fail() {
	echo "FAIL: $*"
	rc=1
}

run ibv_devices >"$TMP/devices" 2>&1 || fail "ibv_devices exited $?"
grep -Eq '^[[:space:]]*dpv0[[:space:]]+[0-9a-f]{16}$' "$TMP/devices" ||
	fail "ibv_devices does not list dpv0 with a GUID"

run ibv_devinfo -v >"$TMP/devinfo" 2>&1 || fail "ibv_devinfo -v exited $?"
expect() {
	grep -Eq "$1" "$TMP/devinfo" || fail "ibv_devinfo -v: no line matching '$1'"
}
expect '^hca_id:[[:space:]]+dpv0$'
expect 'fw_ver:[[:space:]]+dpverbs '
expect 'vendor_id:[[:space:]]+0xd9b0$'
expect 'phys_port_cnt:[[:space:]]+1$'
expect 'state:[[:space:]]+PORT_(ACTIVE|DOWN) '
expect 'link_layer:[[:space:]]+Ethernet$'
expect 'port_lid:[[:space:]]+0$'
expect 'gid_tbl_len:[[:space:]]+16$'
# the engine's rx_drop_pkey / rx_drop_qkey counters (doc/guides/telemetry.rst)
expect 'bad_pkey_cntr:[[:space:]]+0x[0-9a-f]+$'
expect 'qkey_viol_cntr:[[:space:]]+0x[0-9a-f]+$'
expect 'GID\[  0\]:[[:space:]]+fe80::.*, RoCE v2$'
expect "GID\\[  1\\]:[[:space:]]+::ffff:$IP, RoCE v2$"

# the device can be picked by name, and an unknown one is refused
run ibv_devinfo -d dpv0 >/dev/null 2>&1 || fail "ibv_devinfo -d dpv0 failed"
if run ibv_devinfo -d nosuchdev >/dev/null 2>&1; then
	fail "ibv_devinfo -d nosuchdev succeeded"
fi

if [ $rc -ne 0 ]; then
	echo "--- ibv_devices"; cat "$TMP/devices"
	echo "--- ibv_devinfo -v"; cat "$TMP/devinfo"
else
	echo "OK: ibv_devices and ibv_devinfo -v show dpv0 and its RoCE v2 GIDs"
fi
exit $rc
