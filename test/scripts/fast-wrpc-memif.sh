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
# ~40 us after).
# Arguments: <build>/lib, source root, build root.
set -u
LIBDIR=${1:?usage: $0 <lib dir> <source root> <build root>}
SRC=${2:-$(dirname "$0")/../..}
BUILD=${3:-$SRC/build}
. "$SRC/test/scripts/interop-common.sh"
ic_init
ic_env_memif
PEER=$BUILD/test/dpv-wrpc-peer
[ -x "$PEER" ] || { echo "SKIP: no $PEER (no librdmacm)"; exit 77; }
[ -e "$LIBDIR/librdmacm.so.1" ] || { echo "FAIL: no librdmacm.so.1"; exit 1; }
IC_TIMEOUT=40
PORT=$((20000 + $$ % 20000))
N=2000
ic_server_start wrpc "$PEER" server 192.0.2.1 $PORT $N
ic_client_run wrpc "$PEER" client 192.0.2.1 $PORT $N
crc=$?
ic_server_wait
src=$?
c=$IC_TMP/wrpc.client
line=$(grep -E "^round trips $N median [0-9.]+ us" "$c")
if [ $crc != 0 ] || [ $src != 0 ] || [ -z "$line" ]; then
	ic_fail wrpc $crc $src
	exit 1
fi
echo "$line"
med=$(echo "$line" | awk '{print $5}')
if awk -v m="$med" 'BEGIN { exit !(m >= 1000) }'; then
	echo "FAIL wrpc: median round trip $med us: the WRITEs wait for the" \
		"progress thread's naps"
	exit 1
fi
echo "PASS wrpc: median $med us"
