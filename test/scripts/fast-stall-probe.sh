#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# dpv-stall (app/dpv-floor/stall.c), the probe that tells a host's pause
# of a vCPU from the library's own: on a quiet CPU it reports no stall
# and wakes about once a period; a real-time thread of higher priority
# that keeps its CPU for 120 ms stops the probe's thread there exactly as
# a host that does not run the vCPU does, and the probe must report that
# one (on that CPU, 70-400 ms late), the other CPU no stall at that time.
# Usage: fast-stall-probe.sh <lib dir> <source root> <build root>
set -u
BUILD=${3:?usage: $0 <lib dir> <source root> <build root>}
EXE=$BUILD/app/dpv-floor/dpv-stall
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

[ -x "$EXE" ] || { echo "SKIP: no $EXE"; exit 77; }
fail() { echo "FAIL: $*"; cat "$TMP/out" 2>/dev/null; exit 1; }
field() { sed -n "s/^RESULT .*$1=\([0-9.]*\).*/\1/p" "$TMP/out"; }

# bad arguments: refused with status 2
"$EXE" --secs 0 >/dev/null 2>&1; [ $? = 2 ] || fail "--secs 0 not refused"
"$EXE" --cpus x >/dev/null 2>&1; [ $? = 2 ] || fail "--cpus x not refused"

# quiet: 0.5 s at 1 ms, no stall over 200 ms (a VM's idle vCPU may wake
# a few ms late)
timeout 10 "$EXE" --secs 0.5 --min-ms 200 >"$TMP/out" || fail "quiet run"
[ "$(field stalls)" = 0 ] || fail "stalls on a quiet machine"
W=$(field wakeups)
[ -n "$W" ] && [ "$W" -ge 200 ] || fail "wakeups=$W, want >= 200 over 0.5 s"

# a stall made on purpose needs real-time priority for both threads
FIFO=$(field fifo)
NCPU=$(nproc)
if [ "$FIFO" != 1 ] || ! command -v chrt >/dev/null ||
   ! command -v taskset >/dev/null || [ "$NCPU" -lt 2 ]; then
	echo "SKIP: no real-time priority (fifo=$FIFO) or fewer than 2 CPUs"
	exit 77
fi
CPU=$(taskset -pc $$ | sed 's/.*: *//; s/[,-].*//')
OTHER=$(taskset -pc $$ | sed 's/.*: *//' | tr ',' '\n' |
	awk -F- -v c="$CPU" '{for (i=$1; i<=($2==""?$1:$2); i++) if (i!=c) {print i; exit}}' | head -1)
[ -n "$OTHER" ] || { echo "SKIP: one CPU allowed"; exit 77; }

timeout 20 "$EXE" --secs 1.5 --min-ms 50 --cpus "$CPU,$OTHER" >"$TMP/out" &
P=$!
sleep 0.5
# priority 50 on the probe's first CPU, 120 ms of spinning (bounded)
timeout 5 chrt -f 50 taskset -c "$CPU" bash -c \
	'e=$((SECONDS+2)); s=$(date +%s%N); while [ $(( $(date +%s%N) - s )) -lt 120000000 ] && [ $SECONDS -lt $e ]; do :; done' ||
	{ kill $P 2>/dev/null; echo "SKIP: chrt -f refused"; exit 77; }
wait $P || fail "probe run"
# the spin's stall on its CPU (a host that stops a vCPU meanwhile may add
# others: those are not counted against the probe)
read -r AT MS < <(awk -v c="cpu=$CPU" '$1 == "STALL" && $2 == c {
	split($3, m, "="); split($4, a, "=");
	if (m[2] >= 70 && m[2] <= 400) { print a[2], m[2]; exit } }' "$TMP/out")
[ -n "${AT:-}" ] || fail "no stall of 70-400 ms on CPU $CPU (the spin took 120)"
# the other CPU ran on: no stall of its own at that time
awk -v c="cpu=$OTHER" -v at="$AT" '$1 == "STALL" && $2 == c {
	split($4, a, "="); d = a[2] - at; if (d < 0) d = -d;
	if (d < 0.03) bad = 1 } END { exit bad }' "$TMP/out" ||
	fail "CPU $OTHER stalled with CPU $CPU"
echo "PASS: quiet ($W wake-ups), a 120 ms real-time spin seen as $MS ms on CPU $CPU"
