#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A sleeping progress thread woken by its memif peer's frames
# (lib/port/port_wake.c): dpv-event-peer (test/event_peer.c), an RC SEND
# ping-pong whose ends wait for completion events, the client pausing
# GAP_MS between pings, so that the server's progress thread has backed
# off into sleeps of 1 ms or more when each ping comes. Checks: every
# round trip completes; the server's thread took a wake-up from the
# client's transmit for at least half of the pings (wake_taken, DPV_STATS;
# 0 without the wake-up page); no wake-up page is left in /dev/shm after
# both ends have exited. The medians are printed, not judged.
# Then the same with each end waiting in a poll() of its own on the
# channel's non-blocking fd (EVENT_PEER_POLL=1), a ping every ms: no verbs
# call tells the progress thread that the application waits, only the arm
# of its CQ does (dpv_progress_app_arms()); without that the thread's naps
# beside the application ran on (a ping then took up to 10 ms, and fewer
# than a third woke the server's thread). An arm soon after the one before
# makes the thread poll hot, as a blocking wait does (arm_hots), and a
# ping then finds it awake: at least half of the pings must find it so or
# wake it, and at least half as many arms as pings must make it hot.
# Arguments: <build>/lib, source root, build root.
set -u
LIBDIR=${1:?usage: $0 <lib dir> <source root> <build root>}
SRC=${2:-$(dirname "$0")/../..}
BUILD=${3:-$SRC/build}
. "$SRC/test/scripts/interop-common.sh"
ic_init
ic_env_memif
ic_cm_peer dpv-event-peer
IC_TIMEOUT=40
N=40
GAP_MS=20
port=$((20000 + ($$ * 3) % 20000))
pages() { ls /dev/shm 2>/dev/null | grep '^dpv-wake-' | sort; }
before=$(pages)

IC_XENV="DPV_STATS=1" ic_server_start wake "$PEER" server 192.0.2.1 \
	$port $N
IC_XENV="DPV_STATS=1" ic_client_run wake "$PEER" client 192.0.2.1 \
	$port $N $((GAP_MS * 1000))
crc=$?
ic_server_wait
src=$?
ic_woken wake $N $crc $src "$IC_TMP/wake.client" "$IC_TMP/wake.server"

NP=100
port=$((port + 1))
IC_XENV="DPV_STATS=1 EVENT_PEER_POLL=1" ic_server_start wakepoll "$PEER" \
	server 192.0.2.1 $port $NP
IC_XENV="DPV_STATS=1 EVENT_PEER_POLL=1" ic_client_run wakepoll "$PEER" \
	client 192.0.2.1 $port $NP 1000
crc=$?
ic_server_wait
src=$?
ic_woken wakepoll $NP $crc $src "$IC_TMP/wakepoll.client" \
	"$IC_TMP/wakepoll.server" arm_hots
hot=$(grep -o "arm_hots=[0-9]*" "$IC_TMP/wakepoll.server" | cut -d= -f2)
if [ "${hot:-0}" -lt $((NP / 2)) ]; then
	echo "FAIL wakepoll: ${hot:-0} arms of $NP pings made the thread poll hot"
	IC_FAILS=$((IC_FAILS + 1))
else
	IC_PASSES=$((IC_PASSES + 1))
	echo "PASS wakepoll: $hot arms made the server's thread poll hot"
fi
left=$(comm -13 <(echo "$before") <(pages))
if [ -n "$left" ]; then
	echo "FAIL wake: left in /dev/shm: $left"
	IC_FAILS=$((IC_FAILS + 1))
else
	IC_PASSES=$((IC_PASSES + 1))
	echo "PASS wake: no wake-up page left"
fi
ic_summary
