#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A sleeping progress thread woken by a frame on an af_packet port
# (lib/port/port_intr.c, port_intr_attach_sockets()): DPDK's af_packet
# driver has no receive interrupts, but its queue is a kernel socket that
# poll() reports readable while a frame waits in its ring, and the thread
# sleeps on it (opt-in: DPV_AF_PACKET_WAKE=1). Two processes in two
# network namespaces joined by a veth pair run dpv-event-peer
# (test/event_peer.c), an RC SEND ping-pong whose ends wait for
# completion events, the client pausing GAP_MS between
# pings, so that the server's progress thread has backed off into sleeps
# of 1 ms or more when each ping comes. Checks: the port says its sleeps
# end on the driver's sockets; every round trip completes; a frame woke
# the server's thread for at least half of the pings (wake_taken,
# DPV_STATS; 0 with timed sleeps). Then the same without
# DPV_AF_PACKET_WAKE, which must still complete (timed sleeps, the
# default). The medians are printed, not judged.
# Arguments: <build>/lib, source root, build root. Needs root.
set -u
LIBDIR=${1:?usage: $0 <lib dir> <source root> <build root>}
SRC=${2:-$(dirname "$0")/../..}
BUILD=${3:-$SRC/build}
. "$SRC/test/scripts/interop-common.sh"
ic_init
ic_cm_peer dpv-event-peer
ic_veth_init
ic_env_veth af_packet
# the server's port says how its thread sleeps (an INFO line)
IC_SEAL="$IC_SEAL --log-level=dpv.port:info"
IC_TIMEOUT=40
N=40
GAP_MS=20
port=$((20000 + ($$ * 3) % 20000))

# ping_pong NAME ENV...: one run, its outputs $IC_TMP/NAME.server/.client
ping_pong() {
	local name=$1
	shift
	IC_XENV="DPV_STATS=1 $*" ic_server_start "$name" \
		"$PEER" server 192.0.2.1 $port $N
	IC_XENV="DPV_STATS=1 $*" ic_client_run "$name" "$PEER" client \
		192.0.2.1 $port $N $((GAP_MS * 1000))
	crc=$?
	ic_server_wait
	src=$?
	port=$((port + 1))
}

ping_pong woken DPV_AF_PACKET_WAKE=1
if grep -q "idle sleeps end on frames in the driver's sockets" \
	"$IC_TMP/woken.server"; then
	ic_woken woken $N $crc $src "$IC_TMP/woken.client" \
		"$IC_TMP/woken.server"
else
	IC_FAILS=$((IC_FAILS + 1))
	echo "FAIL woken: the server's port does not sleep on its sockets"
	grep -i "sleep" "$IC_TMP/woken.server" | sed 's/^/  server: /'
fi

ping_pong timed
if ic_ran $N "$crc" "$src" "$IC_TMP/timed.client"; then
	IC_PASSES=$((IC_PASSES + 1))
	echo "PASS timed (the default): $IC_LINE"
else
	ic_fail timed "$crc" "$src"
fi
ic_summary
