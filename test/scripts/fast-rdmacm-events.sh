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
	local name=$1 crc src
	shift
	local cmd=("$@")
	[ ${#cmd[@]} = 0 ] && cmd=("$PEER" server "$name" 192.0.2.1 "$PORT")
	ic_server_start "$name" "${cmd[@]}"
	ic_client_run "$name" "$PEER" client "$name" 192.0.2.1 "$PORT"
	crc=$?
	if [ $# -gt 0 ]; then
		ic_server_wait kill
		src=0
	else
		ic_server_wait
		src=$?
	fi
	if [ $crc = 0 ] && [ $src = 0 ]; then
		IC_PASSES=$((IC_PASSES + 1))
		echo "PASS $name: $(grep '^event' "$IC_TMP/$name.client" |
			tail -1)"
		return 0
	fi
	ic_fail "$name" $crc $src
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
