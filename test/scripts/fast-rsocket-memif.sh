#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# rsockets (SOCK_STREAM) of our librdmacm.so.1 between two processes
# joined by memif (192.0.2.1 / 192.0.2.2): dpv-rsocket-peer streams
# 8 MiB in random chunk sizes checking every byte, half-close, EOF,
# rpoll readiness over rsockets and a pipe, non-blocking connect; a peer
# that dies must give EPIPE / ECONNRESET; then unmodified rstream
# (rdmacm-utils) server and client for a few sizes, with verification.
# Arguments: <build>/lib, source root, build root.
set -u
LIBDIR=${1:?usage: $0 <lib dir> <source root> <build root>}
SRC=${2:-$(dirname "$0")/../..}
BUILD=${3:-$SRC/build}
. "$SRC/test/scripts/interop-common.sh"
ic_init
ic_need stdbuf
ic_env_memif
PEER=$BUILD/test/dpv-rsocket-peer
[ -x "$PEER" ] || { echo "FAIL: no $PEER"; exit 1; }
[ -e "$LIBDIR/librdmacm.so.1" ] || { echo "FAIL: no librdmacm.so.1"; exit 1; }
# interop-common.sh set 25 s unless the caller chose; rstream's own
# series (many connections) takes up to ~15 s alone, more beside a loaded
# neighbour test: it gets SERIES_TIMEOUT
PORT=$((20000 + $$ % 20000))

# run NAME "server command" "client command" CLIENT_PATTERN SERVER_PATTERN
run() {
	local name=$1 scmd=$2 ccmd=$3 cpat=$4 spat=$5
	local s=$IC_TMP/$name.server c=$IC_TMP/$name.client spid crc src
	rm -f "$IC_SOCK"
	env LD_LIBRARY_PATH="$LIBDIR" DPV_CONF=/dev/null DPV_IP=192.0.2.1/24 \
		DPV_EAL="$IC_SEAL" timeout "$IC_TIMEOUT" stdbuf -oL $scmd \
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
		DPV_EAL="$IC_CEAL" timeout "$IC_TIMEOUT" stdbuf -oL $ccmd \
		>"$c" 2>&1
	crc=$?
	wait "$spid"
	src=$?
	IC_PIDS=$(echo "$IC_PIDS" | sed "s/ $spid\b//")
	if [ $crc = 0 ] && [ $src = 0 ] && grep -Eq "$cpat" "$c" &&
		grep -Eq "$spat" "$s"; then
		IC_PASSES=$((IC_PASSES + 1))
		echo "PASS $name: $(grep -E "$cpat" "$c" | tail -1)"
		return 0
	fi
	IC_FAILS=$((IC_FAILS + 1))
	echo "FAIL $name (client exit $crc, server exit $src)"
	echo "  --- server:"; grep -v avx512 "$s" | tail -8 | sed 's/^/  /'
	echo "  --- client:"; grep -v avx512 "$c" | tail -8 | sed 's/^/  /'
	return 1
}

run stream "$PEER server 192.0.2.1 $PORT 8" "$PEER client 192.0.2.1 $PORT 8" \
	"got the 1 MiB answer and EOF" "all correct, then EOF"
run dead "$PEER server 192.0.2.1 $PORT 0 dead" \
	"$PEER client 192.0.2.1 $PORT 0 dead" "dead peer: " "dying"
if command -v rstream >/dev/null; then
	# custom size and count: the client checks each transfer (-T v)
	for sz in 1 4096 65536 1000000; do
		run "rstream-$sz" "rstream -b 192.0.2.1 -p $PORT -S $sz -C 20 -T v" \
			"rstream -s 192.0.2.1 -p $PORT -S $sz -C 20 -T v" \
			"^[0-9a-z_]+ +[0-9.]+[kmg]? +20 " "^[0-9a-z_]+ +[0-9.]+[kmg]? +20 "
	done
	# asynchronous (rpoll, -T a) and non-blocking (MSG_DONTWAIT, -T n)
	for t in a n; do
		run "rstream-$t" \
			"rstream -b 192.0.2.1 -p $PORT -S 100000 -C 20 -T $t -T v" \
			"rstream -s 192.0.2.1 -p $PORT -S 100000 -C 20 -T $t -T v" \
			"^[0-9a-z_]+ +[0-9.]+[kmg]? +20 " \
			"^[0-9a-z_]+ +[0-9.]+[kmg]? +20 "
	done
	# rstream's own test series (latency then bandwidth, sizes up to
	# 64 KiB by default), reconnecting between them
	saved=$IC_TIMEOUT
	IC_TIMEOUT=${SERIES_TIMEOUT:-60}
	run rstream-series "rstream -b 192.0.2.1 -p $PORT" \
		"rstream -s 192.0.2.1 -p $PORT" "^64k_bw " "^64k_bw "
	IC_TIMEOUT=$saved
else
	echo "SKIP rstream: not installed"
fi
ic_summary
