#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# perftest (unmodified) between two processes over a memif pair: the
# bandwidth tests ib_write_bw / ib_read_bw / ib_send_bw and the latency
# tests ib_write_lat / ib_read_lat / ib_send_lat / ib_atomic_lat, RC, GID
# index 1, a few hundred iterations each; then the SEND and READ ones again
# on completion events (-e). The client must print a result
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
# A WRITE ping-pong whose sides wait on memory between their verbs calls
# (as ib_write_lat does) keeps its two sides in step: no round trip after
# the first few waits for a progress thread's nap (~1-12 ms; a round trip
# is a few microseconds). Before the progress thread held its ACKs like
# the application's polls, about one run in three fell into waiting a nap
# every round trip. Checked: the 99th percentile below 5 ms.
# (ic_pair counts the run; a p99 above the bound turns its pass into a
# failure)
if SPATTERN= ic_pair ib_write_lat-steady "$RES" "$WAIT" -- ib_write_lat \
	-d dpv0 -x 1 -p $IC_TCP -n 2000 -s 64 &&
	! awk -v f="$IC_TMP/ib_write_lat-steady.client" '
	$1 == 64 && $2 == 2000 { seen = 1; p99 = $8 }
	END {
		if (!seen) { print "FAIL: no result line in " f; exit 1 }
		if (p99 + 0 >= 5000) {
			print "FAIL ib_write_lat-steady: 99th percentile " p99 \
			      " us: round trips wait for the progress thread"
			exit 1
		}
		print "ib_write_lat-steady: 99th percentile " p99 " us, OK"
	}' "$IC_TMP/ib_write_lat-steady.client"; then
	IC_PASSES=$((IC_PASSES - 1))
	IC_FAILS=$((IC_FAILS + 1))
fi
# The same with WRITEs of 64 frames (64 KiB at a 1024 path MTU): the
# peer's held ACK leaves with the first frames of the reply and completes
# our WRITE, our poll ends, and the rest of the reply lands only when the
# progress thread looks. It napped on (4-8 ms every round trip) until the
# application's poll, finding a WRITE half landed as it wrote a CQE, began
# to cut such a nap short (~0.1 ms). Checked: the median below 2 ms.
if SPATTERN= ic_pair ib_write_lat-64frames "$RES" "$WAIT" -- ib_write_lat \
	-d dpv0 -x 1 -p $IC_TCP -n 200 -s 65536 -m 1024 &&
	! awk -v f="$IC_TMP/ib_write_lat-64frames.client" '
	$1 == 65536 && $2 == 200 { seen = 1; p50 = $5 }
	END {
		if (!seen) { print "FAIL: no result line in " f; exit 1 }
		if (p50 + 0 >= 2000) {
			print "FAIL ib_write_lat-64frames: median " p50 \
			      " us: the rest of each WRITE waits for a nap"
			exit 1
		}
		print "ib_write_lat-64frames: median " p50 " us, OK"
	}' "$IC_TMP/ib_write_lat-64frames.client"; then
	IC_PASSES=$((IC_PASSES - 1))
	IC_FAILS=$((IC_FAILS + 1))
fi
ic_summary
