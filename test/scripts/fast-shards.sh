#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Engine shards ([dpverbs] shards = 2, or DPV_SHARDS=2): one device served
# by two engines, each on its own port queue pair, RC QPs placed on them
# round robin. examples/hello_verbs (an RC RDMA WRITE between two QPs of
# the loopback device) then crosses shards: its QPs sit on different
# engines, so every frame is received by the shard that sent it and handed
# to the other (DPV_STATS: rx_fwd on both engines); with a progress thread,
# application-driven progress, and two worker lcores (one per shard). Then
# two processes, each with two shards, over a memif pair with two queue
# pairs: unmodified ib_write_bw with 4 QPs and ibv_rc_pingpong; each side's
# DPV_STATS must show traffic on both of its engines; ibv_srq_pingpong with
# 8 QPs on one SRQ and one CQ, which QPs of both shards then share. A
# peer with one queue pair does not connect to one with two.
# Usage: fast-shards.sh <lib dir> <source root> <build root>
set -u
LIBDIR=${1:?usage: $0 <lib dir> <source root> <build root>}
SRC=${2:?usage: $0 <lib dir> <source root> <build root>}
BUILD=${3:?usage: $0 <lib dir> <source root> <build root>}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
EXE=$BUILD/examples/hello_verbs/hello_verbs

[ -e "$LIBDIR/libibverbs.so.1" ] || { echo "SKIP: no $LIBDIR/libibverbs.so.1"; exit 77; }
[ -x "$EXE" ] || { echo "SKIP: examples not built (-Dexamples=false)"; exit 77; }

conf() { # conf FILE WORKERS
	cat >"$1" <<CONF
[eal]
args = --no-huge --no-pci -m 512 --no-shconf
args = --log-level=dpv.verbs:info --log-level=lib.eal:warning
[dpverbs]
shards = 2
workers = $2
CONF
}
conf "$TMP/thread.conf" 0
conf "$TMP/workers.conf" 2

rc=0
pass=0
# engines NAME FILE: every engine line of DPV_STATS in FILE forwarded
# frames (rx_fwd) and took frames from the other (rx_fwd_in)
engines_crossed() {
	local n
	n=$(grep -oc 'dpverbs engine 0x' "$2")
	if [ "$n" != 2 ]; then
		echo "FAIL $1: $n engines in DPV_STATS, want 2"
		return 1
	fi
	if [ "$(grep -o 'dpverbs engine 0x.*' "$2" | grep -c ' rx_fwd=[1-9].* rx_fwd_in=[1-9]')" != 2 ]; then
		echo "FAIL $1: an engine forwarded nothing"
		grep -o 'dpverbs engine 0x.*' "$2"
		return 1
	fi
}

# hello NAME CONF [env...]
hello() {
	local name=$1 cf=$2 out=$TMP/$1.out s
	shift 2
	env DPV_CONF="$cf" DPV_STATS=1 LD_LIBRARY_PATH="$LIBDIR" "$@" \
		timeout 60 "$EXE" >"$out" 2>&1
	s=$?
	if [ $s -ne 0 ] || ! grep -q '^hello_verbs: OK:' "$out" ||
		! grep -q 'dpv0: 2 engine shards' "$out"; then
		echo "FAIL $name: hello_verbs exit status $s"
		cat "$out"
		rc=1
		return 1
	fi
	if ! engines_crossed "$name" "$out"; then
		cat "$out"
		rc=1
		return 1
	fi
	echo "PASS $name: $(grep '^hello_verbs: OK' "$out")"
	pass=$((pass + 1))
}

hello shards-thread "$TMP/thread.conf" DPV_PROGRESS=
hello shards-app "$TMP/thread.conf" DPV_PROGRESS=app
if hello shards-workers "$TMP/workers.conf" DPV_PROGRESS=; then
	for s in 0 1; do
		if ! grep -q "dpv0: engine shard $s runs on worker lcore" \
			"$TMP/shards-workers.out"; then
			echo "FAIL shards-workers: shard $s not on a worker lcore"
			rc=1
		fi
	done
fi

if ! command -v ib_write_bw >/dev/null || ! command -v ibv_rc_pingpong >/dev/null; then
	echo "no perftest or ibv_rc_pingpong: two-process part skipped"
	echo "$pass passed, $rc failed"
	exit $rc
fi
. "$SRC/test/scripts/interop-common.sh"
ic_init
trap 'ic_cleanup; rm -rf "$TMP"' EXIT
ic_env_memif
IC_TIMEOUT=40
# both engines of each side carried frames
both_busy() {
	local f
	for f in "$IC_TMP/$1.server" "$IC_TMP/$1.client"; do
		if [ "$(grep -o 'dpverbs engine 0x.*' "$f" | grep -c ' rx_pkts=[1-9]')" != 2 ]; then
			echo "FAIL $1: not both engines of $(basename "$f") received"
			grep -o 'dpverbs engine 0x.*' "$f"
			return 1
		fi
	done
}
RES='^ *[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+'
SPATTERN=$RES ic_pair shards-write-bw "$RES" "DPV_SHARDS=2 DPV_STATS=1" -- \
	ib_write_bw -d dpv0 -x 1 -p $IC_TCP -n 500 -q 4 &&
	{ both_busy shards-write-bw || rc=1; }
SPATTERN= ic_pair shards-pingpong 'iters in [0-9.]+ seconds' \
	"DPV_SHARDS=2" -- ibv_rc_pingpong -d dpv0 -g 1 -p $IC_TCP -n 200
# 8 QPs over both shards share one SRQ and one CQ: both become shared
if command -v ibv_srq_pingpong >/dev/null; then
	SPATTERN= ic_pair shards-srq-pingpong 'iters in [0-9.]+ seconds' \
		"DPV_SHARDS=2" -- ibv_srq_pingpong -d dpv0 -g 1 -p $IC_TCP \
		-q 8 -n 200
fi
# a server with two queues and a client with one must not connect (the
# memif secret names the queue count): RTR fails, saying the link is
# down, instead of both server queues reading one ring
rm -f "$IC_SOCK"
env LD_LIBRARY_PATH="$LIBDIR" DPV_CONF=/dev/null DPV_IP=192.0.2.1/24 \
	DPV_EAL="$IC_SEAL" DPV_SHARDS=2 timeout 15 \
	ibv_rc_pingpong -d dpv0 -g 1 -p $IC_TCP -n 5 >"$IC_TMP/mm.server" 2>&1 &
mpid=$!
for _ in $(seq 50); do [ -S "$IC_SOCK" ] && break; sleep 0.1; done
sleep 0.3
env LD_LIBRARY_PATH="$LIBDIR" DPV_CONF=/dev/null DPV_IP=192.0.2.2/24 \
	DPV_EAL="$IC_CEAL" DPV_SHARDS=1 timeout 15 \
	ibv_rc_pingpong -d dpv0 -g 1 -p $IC_TCP -n 5 "$IC_PEER" \
	>"$IC_TMP/mm.client" 2>&1
mrc=$?
kill "$mpid" 2>/dev/null
wait "$mpid" 2>/dev/null
if [ $mrc -ne 0 ] && grep -q "link is down" "$IC_TMP/mm.client" \
	"$IC_TMP/mm.server"; then
	echo "PASS shards-mismatch: refused ($(grep -ho 'no MAC.*link is down' "$IC_TMP/mm.client" "$IC_TMP/mm.server" | head -1))"
	IC_PASSES=$((IC_PASSES + 1))
else
	echo "FAIL shards-mismatch: client exit $mrc"
	tail -n 20 "$IC_TMP/mm.client" "$IC_TMP/mm.server"
	IC_FAILS=$((IC_FAILS + 1))
fi
ic_summary || rc=1
exit $rc
