#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The port attributes doc/guides/drivers/ promises, as rdma-core's
# unmodified ibv_devinfo -v shows them: the loopback port (default MTU:
# path MTU 1024; mtu = 9000: 4096; link up), and a memif port alone,
# before any peer (ACTIVE with phys_state POLLING; path MTU 4096 with the
# bsize the library adds, 1024 with memif's own 2048-byte buffers).
# Arguments: <build>/lib, source root, build root.
set -u
LIB=${1:?usage: $0 <lib dir> <source root> <build root>}
command -v ibv_devinfo >/dev/null || { echo "SKIP: no ibv_devinfo"; exit 77; }
TMP=$(mktemp -d /tmp/dpv-drivers.XXXXXX) || exit 1
trap 'rm -rf "$TMP"' EXIT
fails=0
n=0
# case NAME CONF EAL EXPECTED-REGEX...
case_() {
	local name=$1 conf=$2 eal=$3 out=$TMP/$1.out re
	shift 3
	n=$((n + 1))
	printf '%b' "$conf" >"$TMP/$name.conf"
	if ! env LD_LIBRARY_PATH="$LIB" DPV_CONF="$TMP/$name.conf" \
		${eal:+DPV_EAL="$eal"} timeout 60 ibv_devinfo -v >"$out" 2>&1; then
		echo "FAIL $name: ibv_devinfo exited $?"; tail -n 5 "$out"
		fails=$((fails + 1)); return
	fi
	for re in "$@"; do
		grep -Eq "$re" "$out" && continue
		echo "FAIL $name: no line matching '$re'"
		grep -E 'state|mtu' "$out"
		fails=$((fails + 1)); return
	done
	echo "ok $name: $(grep -Eo '(active_mtu|phys_state):[[:space:]]+[A-Z_0-9]+' "$out" | tr -s '\t' ' ' | tr '\n' ' ')"
}
memif() {
	echo "--no-huge --no-pci --no-shconf -m 256 --vdev=net_memif0,role=server,socket=$TMP/$1.sock,socket-abstract=no${2:-}"
}
case_ loopback '' '' 'state:[[:space:]]+PORT_ACTIVE' \
	'phys_state:[[:space:]]+LINK_UP' 'active_mtu:[[:space:]]+1024 '
case_ loopback-9000 '[dpv0]\nport = loopback\nmtu = 9000\n' '' \
	'active_mtu:[[:space:]]+4096 ' 'phys_state:[[:space:]]+LINK_UP'
case_ memif-alone '' "$(memif a)" 'state:[[:space:]]+PORT_ACTIVE' \
	'phys_state:[[:space:]]+POLLING' 'active_mtu:[[:space:]]+4096 '
case_ memif-bsize-2048 '' "$(memif b ,bsize=2048)" \
	'active_mtu:[[:space:]]+1024 '
echo "$((n - fails)) passed, $fails failed"
[ $fails = 0 ]
