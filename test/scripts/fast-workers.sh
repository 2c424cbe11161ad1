#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Worker-lcore progress: with [dpverbs] workers = 1 the library starts EAL
# with lcores 0-1, and the engine of the loopback device dpv0 runs on
# worker lcore 1. examples/hello_verbs (an RC RDMA WRITE between two QPs,
# the application only posts and polls its CQ) must succeed, and the
# worker's exit line must show that it ran the engine while the
# application's progress calls ran nothing. DPV_PROGRESS=app overrides the
# workers: no worker lcore runs, the application drives the engine. Then
# two processes, each with one worker lcore, exchange a few RC messages
# over a memif pair with an unmodified ibv_rc_pingpong -e (the
# application sleeps in ibv_get_cq_event; the worker signals the channel).
# Usage: fast-workers.sh <lib dir> <source root> <build root>
set -u
LIBDIR=${1:?usage: $0 <lib dir> <source root> <build root>}
BUILD=${3:?usage: $0 <lib dir> <source root> <build root>}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
EXE=$BUILD/examples/hello_verbs/hello_verbs

[ -e "$LIBDIR/libibverbs.so.1" ] || { echo "SKIP: no $LIBDIR/libibverbs.so.1"; exit 77; }
[ -x "$EXE" ] || { echo "SKIP: examples not built (-Dexamples=false)"; exit 77; }

cat >"$TMP/dpverbs.conf" <<CONF
[eal]
args = --no-huge --no-pci -m 512 --no-shconf
args = --log-level=dpv.verbs:info --log-level=lib.eal:warning
[dpverbs]
workers = 1
CONF

rc=0
# run <output file> [env...]: hello_verbs must print its OK line
run() {
	local out=$1 s
	shift
	env DPV_CONF="$TMP/dpverbs.conf" LD_LIBRARY_PATH="$LIBDIR" "$@" \
		timeout 60 "$EXE" >"$out" 2>&1
	s=$?
	if [ $s -ne 0 ] || ! grep -q '^hello_verbs: OK:' "$out"; then
		echo "FAIL: hello_verbs exit status $s"
		cat "$out"
		rc=1
		return 1
	fi
}

if run "$TMP/workers" DPV_PROGRESS=; then
	line=$(grep -E 'worker lcore 1 stopped: [0-9]+ engine polls, [0-9]+ application progress calls' "$TMP/workers")
	polls=$(sed -nE 's/.*stopped: ([0-9]+) engine polls.*/\1/p' <<<"$line")
	if ! grep -q 'dpv0: engine runs on worker lcore 1' "$TMP/workers"; then
		echo "FAIL: dpv0 did not run on worker lcore 1"
		cat "$TMP/workers"
		rc=1
	elif [ -z "$polls" ] || [ "$polls" -eq 0 ]; then
		echo "FAIL: the worker did not poll the engine"
		cat "$TMP/workers"
		rc=1
	else
		echo "workers=1: $line"
	fi
fi

if run "$TMP/app" DPV_PROGRESS=app; then
	if grep -q 'worker lcore' "$TMP/app"; then
		echo "FAIL: DPV_PROGRESS=app still launched a worker lcore"
		cat "$TMP/app"
		rc=1
	else
		echo "workers=1, DPV_PROGRESS=app: no worker lcore, OK"
	fi
fi

if ! command -v ibv_rc_pingpong >/dev/null; then
	echo "no ibv_rc_pingpong: two-process part skipped"
	exit $rc
fi
SRC=${2:?usage: $0 <lib dir> <source root> <build root>}
. "$SRC/test/scripts/interop-common.sh"
ic_init
trap 'ic_cleanup; rm -rf "$TMP"' EXIT
ic_env_memif
printf '[dpverbs]\nworkers = 1\n' >"$IC_TMP/workers.conf"
IC_CONF=$IC_TMP/workers.conf
IC_SEAL="$IC_SEAL --log-level=dpv.verbs:info"
IC_CEAL="$IC_CEAL --log-level=dpv.verbs:info"
IC_TIMEOUT=20
export SPATTERN='engine runs on worker lcore 1'
if ic_pair workers-pp 'iters in [0-9.]+ seconds' "DPV_PROGRESS=" -- \
	ibv_rc_pingpong -d dpv0 -g 1 -p $IC_TCP -n 5 -e; then
	if ! grep -q 'engine runs on worker lcore 1' \
		"$IC_TMP/workers-pp.client"; then
		echo "FAIL: the client's engine did not run on a worker lcore"
		rc=1
	fi
else
	rc=1
fi
exit $rc
