#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# memif in either start order: a process whose memif port is the client
# comes up before its server exists (link down), connects when the server
# appears, and connects again to a new server after the first one is
# killed. Checked with unmodified ibv_rc_pingpong (its RDMA server on the
# memif client) and with dpv-cmd's "show port" link state.
# Arguments: <build>/lib, source root, build root.
set -u
LIB=${1:?usage: $0 <lib dir> <source root> <build root>}
BUILD=${3:?usage: $0 <lib dir> <source root> <build root>}
CMD=$BUILD/app/dpv-cmd/dpv-cmd
command -v ibv_rc_pingpong >/dev/null || { echo "SKIP: no ibv_rc_pingpong"; exit 77; }
[ -x "$CMD" ] || { echo "SKIP: no dpv-cmd"; exit 77; }
TMP=$(mktemp -d /tmp/dpv-order.XXXXXX) || exit 1
SOCK=$TMP/memif.sock
PORT=$((20000 + $$ % 20000))
pids=()
# EAL's runtime directories of this script's own --file-prefix (EAL
# leaves them when a process is killed; the library cleans only dpv<pid>)
rundirs_rm() {
	local b=/var/run/dpdk
	[ "$(id -u)" = 0 ] || b=${XDG_RUNTIME_DIR:-/tmp}/dpdk
	for p in "$@"; do rm -rf "${b:?}/$p"; done
}
cleanup() {
	for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$TMP"
	rundirs_rm dpvord$$a dpvord$$b dpvord$$c dpvord$$s1 dpvord$$s2
}
trap cleanup EXIT
eal() {
	echo "--no-huge --no-pci --no-shconf -m 256 --log-level=lib.eal:error --file-prefix=dpvord$$$2 --vdev=net_memif0,role=$1,socket=$SOCK,socket-abstract=no"
}
fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }

# 1. the memif client (RDMA server) first, its memif server 2 s later
DPV_CONF=/dev/null DPV_EAL="$(eal client a)" DPV_IP=192.0.2.2/24 \
	LD_LIBRARY_PATH=$LIB timeout 40 ibv_rc_pingpong -d dpv0 -g 1 \
	-p $PORT -n 200 >"$TMP/a.out" 2>&1 &
a=$!
pids+=($a)
sleep 2
[ -e "$SOCK" ] && fail "a memif client made the socket"
DPV_CONF=/dev/null DPV_EAL="$(eal server b)" DPV_IP=192.0.2.1/24 \
	LD_LIBRARY_PATH=$LIB timeout 40 ibv_rc_pingpong -d dpv0 -g 1 \
	-p $PORT -n 200 127.0.0.1 >"$TMP/b.out" 2>&1
rb=$?
wait $a
ra=$?
grep -h "iters in" "$TMP/a.out" "$TMP/b.out"
[ $ra = 0 ] && [ $rb = 0 ] || {
	fail "client-first pingpong: exit $ra / $rb"
	tail -n 5 "$TMP/a.out" "$TMP/b.out"
}

# 2. a long-lived memif client sees server 1, its death, and server 2
rm -f "$SOCK"
{
	# 20 s of looking: a loaded machine takes seconds to start server 2
	for i in $(seq 1 40); do echo "show port"; sleep 0.5; done
	echo quit
} | DPV_CONF=/dev/null DPV_EAL="$(eal client c)" DPV_IP=192.0.2.2/24 \
	LD_LIBRARY_PATH=$LIB timeout 60 "$CMD" >"$TMP/c.out" 2>&1 &
c=$!
pids+=($c)
server() { # a memif server holding the link for $1 s (killed at exit)
	{ echo "show port"; sleep "$1"; echo quit; } | DPV_CONF=/dev/null \
		DPV_EAL="$(eal server "$2")" DPV_IP=192.0.2.1/24 \
		LD_LIBRARY_PATH=$LIB "$CMD" >/dev/null 2>&1 &
	pids+=($!)
	last=$!
}
sleep 1.5
server 30 s1
sleep 3
kill -9 "$last"
sleep 1.5
server 30 s2
sleep 5.5
wait $c
states=$(grep -o "link up\|link down" "$TMP/c.out" | uniq | tr '\n' ',')
echo "link states seen by the client: $states"
case "$states" in
"link down,link up,link down,link up,"*) echo "PASS down, up, down, up" ;;
*) fail "expected link down, up, down, up" ;;
esac

echo "$((fails == 0 ? 1 : 0)) passed, $fails failed"
[ $fails = 0 ]
