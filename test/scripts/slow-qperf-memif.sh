#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Unmodified qperf over our libibverbs.so.1 and librdmacm.so.1: a qperf
# server (it forks a child per test; each child brings up its own device,
# the memif server end) and one qperf client (the memif client end), two
# processes on this host. qperf's own synchronisation goes over TCP on
# 127.0.0.1, and the devices carry 127.0.0.1/8 and 127.0.0.2/8, so the
# name the client is given is also the server device's address, as the
# RDMA CM needs. -cm1: qperf connects its RC QPs through the RDMA CM
# (without it, qperf addresses the peer by LID alone, which a RoCE port
# refuses: EINVAL, as rdma_rxe and ConnectX do).
# Environment: DPV_QPERF_ARGS, more client options (default none: qperf
# waits on its completion channels; -cp1 polls).
# Checks: rc_bw, rc_lat, rc_rdma_write_bw, rc_rdma_read_lat give a
# result; ud_lat (qperf has no CM path for UD, so no GRH) fails with
# EINVAL from ibv_create_ah, not with a hang or a crash.
# Arguments: <build>/lib, source root, build root.
set -u
LIBDIR=${1:?usage: $0 <lib dir> <source root> <build root>}
SRC=${2:-$(dirname "$0")/../..}
. "$SRC/test/scripts/interop-common.sh"
ic_init
ic_need qperf
ic_env_memif
[ -e "$LIBDIR/librdmacm.so.1" ] || { echo "FAIL: no librdmacm.so.1"; exit 1; }
LP=$((20000 + $$ % 20000))
# qperf's default mode waits on completion channels: it re-arms a CQ over
# completions not polled yet and counts on the event that arm raises at
# once (as ConnectX does).
QARGS=${DPV_QPERF_ARGS-}
S=$IC_TMP/qperf.server
C=$IC_TMP/qperf.client

# qperf_run OUT TESTS...: a server and one client running TESTS (2 s
# each; either side waits up to 30 s for the other's messages, not 5: this
# machine is shared and its timing noisy)
qperf_run() {
	local out=$1 spid rc
	shift
	rm -f "$IC_SOCK"
	env LD_LIBRARY_PATH="$LIBDIR" DPV_CONF=/dev/null DPV_IP=127.0.0.1/8 \
		DPV_EAL="$IC_SEAL" timeout 120 qperf -lp "$LP" >"$S" 2>&1 &
	spid=$!
	IC_PIDS="$IC_PIDS $spid"
	# the server listens on TCP before any device exists
	for _ in $(seq 50); do
		ss -ltn 2>/dev/null | grep -q ":$LP " && break
		sleep 0.1
	done
	env LD_LIBRARY_PATH="$LIBDIR" DPV_CONF=/dev/null DPV_IP=127.0.0.2/8 \
		DPV_EAL="$IC_CEAL" timeout 90 qperf -lp "$LP" 127.0.0.1 -cm1 \
		-t 2 -to 30 $QARGS "$@" >"$out" 2>&1
	rc=$?
	kill "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
	ic_forget "$spid"
	return $rc
}

# result NAME UNIT-REGEX: the client printed a positive result for NAME
result() {
	local v
	v=$(sed -n "/^$1:/{n;p}" "$C" | grep -E "^ +(bw|latency) += +[0-9.]+ $2")
	if [ -n "$v" ] && ! echo "$v" | grep -Eq "= +0 "; then
		IC_PASSES=$((IC_PASSES + 1))
		echo "PASS qperf $1:$(echo "$v" | tr -s ' ')"
	else
		IC_FAILS=$((IC_FAILS + 1))
		echo "FAIL qperf $1: no result"
	fi
}

if qperf_run "$C" rc_bw rc_lat rc_rdma_write_bw rc_rdma_read_lat; then
	:
else
	echo "qperf client exit $?"
fi
result rc_bw '(GB|MB|KB)/sec'
result rc_lat '(ns|us|ms|sec)'
result rc_rdma_write_bw '(GB|MB|KB)/sec'
result rc_rdma_read_lat '(ns|us|ms|sec)'
if [ $IC_FAILS != 0 ]; then
	echo "  --- client:"; grep -v avx512 "$C" | tail -20 | sed 's/^/  /'
	echo "  --- server:"; grep -v avx512 "$S" | tail -20 | sed 's/^/  /'
fi

# ud_lat: LID-only address handle, refused as on any RoCE port
U=$IC_TMP/qperf.ud
qperf_run "$U" ud_lat
urc=$?
if [ $urc = 1 ] &&
	grep -q "failed to create address handle: Invalid argument" "$U"; then
	IC_PASSES=$((IC_PASSES + 1))
	echo "PASS qperf ud_lat: refused (no GRH on a RoCE port: EINVAL)"
else
	IC_FAILS=$((IC_FAILS + 1))
	echo "FAIL qperf ud_lat (exit $urc):"
	grep -v avx512 "$U" | tail -5 | sed 's/^/  /'
fi
ic_summary
