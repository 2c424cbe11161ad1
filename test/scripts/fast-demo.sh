#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# app/dpv-demo, the program devtools/demo.sh runs: in loopback mode (one
# process) and in memif mode (two processes), it must print the PASS line,
# four bandwidth lines and two latency lines with non-zero numbers and
# verified data, exit 0, and leave no socket directory behind.
# Usage: fast-demo.sh <lib dir> <source root> <build root>
set -u
LIBDIR=${1:?usage: $0 <lib dir> <source root> <build root>}
BUILD=${3:?usage: $0 <lib dir> <source root> <build root>}
DEMO=$BUILD/app/dpv-demo/dpv-demo
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

[ -e "$LIBDIR/libibverbs.so.1" ] || { echo "SKIP: no $LIBDIR/libibverbs.so.1"; exit 77; }
[ -x "$DEMO" ] || { echo "FAIL: $DEMO was not built"; exit 1; }

rc=0
fail() {
	echo "FAIL: $*"
	rc=1
}

# check <name> <output file>
check() {
	local out=$2 n
	grep -Eq '^dpv-demo: PASS' "$out" || fail "$1: no PASS line"
	grep -q 'FAIL\|MISMATCH' "$out" && fail "$1: FAIL or MISMATCH printed"
	for op in "RDMA WRITE" "RDMA READ "; do
		for sz in " 4 KiB" "64 KiB"; do
			grep -Eq "^  $op *bandwidth +$sz +[1-9][0-9]* msgs +[0-9.]+ s +[0-9]*[1-9][0-9]*\.[0-9] MB/s .*data ok$" "$out" ||
				fail "$1: no '$op bandwidth $sz' line with a non-zero rate and verified data"
		done
	done
	for t in "SEND/RECV ping-pong 64 B" "RDMA WRITE 64 B"; do
		grep -Eq "^  $t.* [1-9][0-9]* iters +avg +[0-9]+\.[0-9]+ .*p99 +[0-9]+\.[0-9]+ .* us +data ok$" "$out" ||
			fail "$1: no '$t' latency line with verified data"
		n=$(grep -E "^  $t" "$out" | sed -E 's/.* avg +([0-9.]+) .*/\1/')
		awk -v v="${n:-0}" 'BEGIN { exit !(v > 0) }' ||
			fail "$1: '$t' average latency is not positive"
	done
	if [ $rc -ne 0 ]; then
		echo "--- $1 output"
		cat "$out"
	fi
}

before=$(ls -d /tmp/dpv-demo.* 2>/dev/null | wc -l)

timeout 60 "$DEMO" --loopback -t 0.2 -n 500 >"$TMP/loop" 2>&1
s=$?
[ $s -eq 0 ] || fail "loopback: exit status $s"
check loopback "$TMP/loop"

timeout 90 "$DEMO" -t 0.2 -n 500 >"$TMP/memif" 2>&1
s=$?
[ $s -eq 0 ] || fail "memif: exit status $s"
check memif "$TMP/memif"
grep -q 'between two processes over memif' "$TMP/memif" ||
	fail "memif: the two-process header is missing"

after=$(ls -d /tmp/dpv-demo.* 2>/dev/null | wc -l)
[ "$after" -le "$before" ] || fail "a /tmp/dpv-demo.* directory was left behind"

# bad arguments are refused
"$DEMO" --role server >/dev/null 2>&1
[ $? -eq 2 ] || fail "--role without --dir was not refused with exit 2"

[ $rc -eq 0 ] && echo "OK: dpv-demo passes in loopback and memif mode"
exit $rc
