#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Completion events a waiter does not take (lib/verbs/verbs_cq.c,
# chan_leave()): dpv-event-carry raises two events in one polling window
# on the loopback device the library starts itself. With a progress
# thread the second stays in memory for the next wait (no write() and
# read() of the fd), and goes to the fd if the program waits in a poll()
# of it instead, or if another thread sleeps on it; with
# application-driven progress it goes to the fd at once. Both runs must
# pass in the mode they asked for.
# Usage: fast-event-carry.sh <lib dir> <source root> <build root>
set -u
BUILD=${3:?usage: $0 <lib dir> <source root> <build root>}
EXE=$BUILD/test/dpv-event-carry
[ -x "$EXE" ] || { echo "SKIP: $EXE not built"; exit 77; }
TMP=$(mktemp -d /tmp/dpv-carry.XXXXXX) || exit 1
trap 'rm -rf "$TMP"' EXIT

# run NAME PROGRESS(0 app, 1 thread) DPV_PROGRESS
fail=0
run() {
	local name=$1 want=$2 out=$TMP/$1.out s
	env DPV_CONF=/dev/null DPV_PROGRESS="$3" \
		DPV_EAL="--no-huge --no-pci --no-shconf -m 256 --log-level=lib.eal:error" \
		timeout 60 "$EXE" >"$out" 2>&1
	s=$?
	if [ $s != 0 ] || ! grep -q "^RESULT event_carry progress=$want failed=0" "$out"; then
		echo "FAIL $name: exit $s"
		cat "$out"
		fail=1
		return
	fi
	echo "PASS $name:"
	grep '^event_carry:' "$out"
}

run thread 1 thread
run app 0 app
exit $fail
