#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# An RDMA WRITE ping-pong whose two ends wait on memory between their
# verbs calls (as RPC systems over RDMA WRITE do), two processes joined by
# memif: dpv-wrpc-peer (test/wrpc_peer.c) over librdmacm's synchronous
# API, which also checks that a synchronous ID keeps its event in
# id->event (the slot address and rkey travel as the connection's private
# data: the server reads them after rdma_get_request(), the client after
# rdma_connect()), and that a listener destroyed while its child still
# holds the request goes at once. The WRITEs that land while the target
# spins on memory are the progress thread's to land: the median round
# trip must stay below 1 ms (it was ~5 ms, a thread nap a side, before
# the thread polled for what an application that only posts leaves it;
# ~40 us after). Then the same with a data WRITE ahead of each flag
# WRITE (see run() below).
# Arguments: <build>/lib, source root, build root.
set -u
LIBDIR=${1:?usage: $0 <lib dir> <source root> <build root>}
SRC=${2:-$(dirname "$0")/../..}
BUILD=${3:-$SRC/build}
. "$SRC/test/scripts/interop-common.sh"
ic_init
ic_env_memif
ic_cm_peer dpv-wrpc-peer
IC_TIMEOUT=40
N=2000
# run NAME [pair]: one ping-pong of N round trips; its median must stay
# below 1 ms. With "pair" (a data WRITE, then the flag, back to back)
# each side's engine must also have found a burst of posts waiting for
# the progress thread (bursts_late, DPV_STATS) at most N/20 times: the
# second post of a pair followed the first within 5 us, so it was held
# back for the application's next call, which never came (it spins on
# memory); the thread's nap sent it, ~100 us a round trip, until a late
# burst turned holding back off for a while (1,316 times in 2,000 round
# trips with holding back never turned off; 1-20 on a host whose timers
# wake a 4 us nap after ~5 us, 32-42 on one where it takes ~50 us and
# the applications are preempted more often).
run() {
	local name=$1 mode=${2:-} crc src c line med late
	local port=$((20000 + ($$ + ${#name} * 7) % 20000))

	IC_XENV="DPV_STATS=1" ic_server_start "$name" "$PEER" server \
		192.0.2.1 $port $N $mode
	IC_XENV="DPV_STATS=1" ic_client_run "$name" "$PEER" client \
		192.0.2.1 $port $N $mode
	crc=$?
	ic_server_wait
	src=$?
	c=$IC_TMP/$name.client
	line=$(grep -E "^round trips $N median [0-9.]+ us" "$c")
	if [ $crc != 0 ] || [ $src != 0 ] || [ -z "$line" ]; then
		ic_fail "$name" $crc $src
		return
	fi
	echo "$name: $line"
	med=$(echo "$line" | awk '{print $5}')
	if awk -v m="$med" 'BEGIN { exit !(m >= 1000) }'; then
		echo "FAIL $name: median round trip $med us: the WRITEs wait" \
			"for the progress thread's naps"
		IC_FAILS=$((IC_FAILS + 1))
		return
	fi
	if [ "$mode" = pair ]; then
		for side in client server; do
			late=$(grep -o "bursts_late=[0-9]*" \
				"$IC_TMP/$name.$side" | cut -d= -f2)
			late=${late:-0}
			echo "$name: $side bursts_late=$late"
			if [ "$late" -gt $((N / 20)) ]; then
				echo "FAIL $name: the $side's second WRITEs" \
					"waited for the progress thread" \
					"$late times in $N round trips"
				IC_FAILS=$((IC_FAILS + 1))
				return
			fi
		done
	fi
	IC_PASSES=$((IC_PASSES + 1))
	echo "PASS $name: median $med us"
}
run wrpc
run wrpc-pair pair
ic_summary
