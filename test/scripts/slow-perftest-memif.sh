#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# perftest (unmodified) between two processes over a memif pair: the
# bandwidth tests ib_write_bw / ib_read_bw / ib_send_bw and the latency
# tests ib_write_lat / ib_read_lat / ib_send_lat / ib_atomic_lat, RC, GID
# index 1, a few hundred iterations each; then the SEND and READ ones again
# on completion events (-e), and two over XRC. The client must print a result
# line (size, iterations, numbers). Out of the box: no DPV_LINK_WAIT_MS
# (a configured port is ACTIVE before its memif peer connects) and no -o
# for READ/atomic (128 outstanding offered, as rxe does).
# Arguments: <build>/lib, source root, build root.
set -u
LIBDIR=${1:?usage: $0 <lib dir> <source root> <build root>}
SRC=${2:-$(dirname "$0")/../..}
. "$SRC/test/scripts/interop-common.sh"
ic_init
ic_need ib_write_bw ib_read_bw ib_send_bw ib_write_lat ib_read_lat \
	ib_send_lat ib_atomic_lat
ic_env_memif
IC_TIMEOUT=40
N=${DPV_PERF_ITERS:-200}
# "#bytes #iterations" then numbers
RES='^ *[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+'
WAIT=
for t in ib_write_bw ib_read_bw ib_send_bw; do
	SPATTERN=$RES ic_pair "$t" "$RES" "$WAIT" -- $t -d dpv0 -x 1 \
		-p $IC_TCP -n $N
	SPATTERN=$RES ic_pair "$t-s4096" "$RES" "$WAIT" -- $t -d dpv0 -x 1 \
		-p $IC_TCP -n $N -s 4096
done
for t in ib_write_lat ib_read_lat ib_send_lat ib_atomic_lat; do
	SPATTERN= ic_pair "$t" "$RES" "$WAIT" -- $t -d dpv0 -x 1 \
		-p $IC_TCP -n $N
done
# Completion events (-e; perftest refuses it for WRITE): each side re-arms
# a CQ after its event and before polling it, and polls once per event.
# An arm then raised a second event for the completion already reported:
# the poll after it found nothing (ib_send_lat read a completion it never
# got; ib_read_lat and ib_atomic_lat lost their peer).
for t in ib_send_lat ib_read_lat ib_atomic_lat ib_send_bw ib_read_bw; do
	case $t in *_bw) SP=$RES ;; *) SP= ;; esac
	SPATTERN=$SP ic_pair "$t-e" "$RES" "$WAIT" -- $t -d dpv0 -x 1 \
		-p $IC_TCP -n $N -e
done
# XRC (-c XRC): perftest gives its XRC QPs RC's attribute sets, which
# Linux's uverbs trims to the type (an initiator has no responder's
# attributes, a target no requester's); refused, every connection failed
# ("Failed to modify QP to RTR"). A latency test has both types each side.
for t in ib_send_bw ib_write_lat; do
	case $t in *_bw) SP=$RES ;; *) SP= ;; esac
	SPATTERN=$SP ic_pair "$t-xrc" "$RES" "$WAIT" -- $t -d dpv0 -x 1 \
		-p $IC_TCP -n $N -c XRC
done
# bounded NAME SIZE ITERS COLUMN WHAT BOUND_US WHY -- ib_write_lat ARGS:
# ic_pair NAME (it counts the run), then the client's result line's
# COLUMN (WHAT) must stay below BOUND_US, else the pass turns into a
# failure (WHY: what a value above it means)
bounded() {
	local name=$1 size=$2 iters=$3 col=$4 what=$5 bound=$6 why=$7
	shift 8
	SPATTERN= ic_pair "$name" "$RES" "$WAIT" -- "$@" || return 0
	awk -v f="$IC_TMP/$name.client" -v n="$name" -v s="$size" \
		-v i="$iters" -v c="$col" -v w="$what" -v b="$bound" \
		-v why="$why" '
	$1 == s && $2 == i { seen = 1; v = $c }
	END {
		if (!seen) { print "FAIL: no result line in " f; exit 1 }
		if (v + 0 >= b) {
			print "FAIL " n ": " w " " v " us: " why
			exit 1
		}
		print n ": " w " " v " us, OK"
	}' "$IC_TMP/$name.client" && return 0
	IC_PASSES=$((IC_PASSES - 1))
	IC_FAILS=$((IC_FAILS + 1))
}
# A WRITE ping-pong whose sides wait on memory between their verbs calls
# (as ib_write_lat does) keeps its two sides in step: no round trip after
# the first few waits for a progress thread's nap (~1-12 ms; a round trip
# is a few microseconds). Before the progress thread held its ACKs like
# the application's polls, about one run in three fell into waiting a nap
# every round trip. Checked: the 99th percentile below 5 ms.
bounded ib_write_lat-steady 64 2000 8 "99th percentile" 5000 \
	"round trips wait for the progress thread" -- ib_write_lat \
	-d dpv0 -x 1 -p $IC_TCP -n 2000 -s 64
# The same with WRITEs of 64 frames (64 KiB at a 1024 path MTU): the
# peer's held ACK leaves with the first frames of the reply and completes
# our WRITE, our poll ends, and the rest of the reply lands only when the
# progress thread looks. It napped on (4-8 ms every round trip) until the
# application's poll, finding a WRITE half landed as it wrote a CQE, began
# to cut such a nap short (~0.1 ms). Checked: the median below 2 ms.
bounded ib_write_lat-64frames 65536 200 5 median 2000 \
	"the rest of each WRITE waits for a nap" -- ib_write_lat \
	-d dpv0 -x 1 -p $IC_TCP -n 200 -s 65536 -m 1024
ic_summary
