#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# RDMA CM events when the other side says no or goes away, two processes
# over memif (build/test/dpv-rdmacm-peer, librdmacm API only):
#   reject    the server rejects: REJECTED, status 28, its private data
#   nolisten  the listener is destroyed first: REJECTED, status 8
#   srvdisc   the server disconnects: DISCONNECTED then TIMEWAIT_EXIT on
#             both ends, the request carried the client's ECE vendor, the
#             client's QP in ERR
#   death     the server process exits while connected: DISCONNECTED,
#             QP in ERR
#   unreach   the peer runs no CM (ibv_rc_pingpong): UNREACHABLE,
#             -ETIMEDOUT after the REQ's retries (about 10 s)
#   mcast     one process (in-process loopback device): the multicast
#             join / leave API, its errors, the join event's UD
#             parameters, the QP attached by the join and detached by
#             the leave
# Arguments: <build>/lib, source root, build root.
set -u
LIBDIR=${1:?usage: $0 <lib dir> <source root> <build root>}
SRC=${2:-$(dirname "$0")/../..}
BUILD=${3:-$SRC/build}
. "$SRC/test/scripts/interop-common.sh"
ic_init
ic_env_memif
PEER=$BUILD/test/dpv-rdmacm-peer
[ -x "$PEER" ] || { echo "SKIP: no $PEER (tests disabled?)"; exit 77; }
IC_TIMEOUT=${IC_TIMEOUT:-40}
PORT=$((20000 + $$ % 20000))

# scen NAME [server command...]: the server end (default: the peer in
# server mode), then the peer in client mode; both must exit 0 (a server
# given as a command is killed at the end).
scen() {
	local name=$1 s=$IC_TMP/$1.server c=$IC_TMP/$1.client spid crc src
	shift
	local cmd=("$@")
	[ ${#cmd[@]} = 0 ] && cmd=("$PEER" server "$name" 192.0.2.1 "$PORT")
	rm -f "$IC_SOCK"
	env LD_LIBRARY_PATH="$LIBDIR" DPV_CONF=/dev/null DPV_IP=192.0.2.1/24 \
		DPV_EAL="$IC_SEAL" timeout "$IC_TIMEOUT" "${cmd[@]}" \
		>"$s" 2>&1 &
	spid=$!
	IC_PIDS="$IC_PIDS $spid"
	for _ in $(seq 100); do
		[ -S "$IC_SOCK" ] && break
		kill -0 "$spid" 2>/dev/null || break
		sleep 0.1
	done
	sleep 0.5
	env LD_LIBRARY_PATH="$LIBDIR" DPV_CONF=/dev/null DPV_IP=192.0.2.2/24 \
		DPV_EAL="$IC_CEAL" timeout "$IC_TIMEOUT" \
		"$PEER" client "$name" 192.0.2.1 "$PORT" >"$c" 2>&1
	crc=$?
	[ $# -gt 0 ] && kill "$spid" 2>/dev/null
	wait "$spid"
	src=$?
	[ $# -gt 0 ] && src=0
	IC_PIDS=$(echo "$IC_PIDS" | sed "s/ $spid\b//")
	if [ $crc = 0 ] && [ $src = 0 ]; then
		IC_PASSES=$((IC_PASSES + 1))
		echo "PASS $name: $(grep '^event' "$c" | tail -1)"
		return 0
	fi
	IC_FAILS=$((IC_FAILS + 1))
	echo "FAIL $name (client exit $crc, server exit $src)"
	echo "  --- server:"; grep -v avx512 "$s" | tail -8 | sed 's/^/  /'
	echo "  --- client:"; grep -v avx512 "$c" | tail -8 | sed 's/^/  /'
	return 1
}

scen reject
scen nolisten
scen srvdisc
scen death
if command -v ibv_rc_pingpong >/dev/null 2>&1; then
	scen unreach ibv_rc_pingpong -d dpv0 -g 1 -p "$PORT"
fi
m=$IC_TMP/mcast
if env LD_LIBRARY_PATH="$LIBDIR" DPV_CONF=/dev/null DPV_IP=192.0.2.2/24 \
	timeout "$IC_TIMEOUT" "$PEER" local mcast 192.0.2.2 0 >"$m" 2>&1; then
	IC_PASSES=$((IC_PASSES + 1))
	echo "PASS mcast: $(grep 'checks failed' "$m")"
else
	IC_FAILS=$((IC_FAILS + 1))
	echo "FAIL mcast"; grep -v avx512 "$m" | tail -12 | sed 's/^/  /'
fi
ic_summary
