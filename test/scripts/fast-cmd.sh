#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# dpv-cmd (DPDK cmdline) non-interactively, on the in-process loopback
# device: two RC QPs connected to each other, WRITE / READ / SEND / ATOMIC
# traffic with the data checked, a QP destroyed, the counters shown; and a
# failing command
# (traffic on a QP that does not exist) makes the exit status 1.
# Arguments: <build>/lib, source root, build root.
set -u
BUILD=${3:?usage: $0 <lib dir> <source root> <build root>}
RUN=$BUILD/app/dpv-run/dpv-run
CMD=$BUILD/app/dpv-cmd/dpv-cmd
[ -x "$CMD" ] || { echo "SKIP: no dpv-cmd"; exit 77; }
TMP=$(mktemp -d /tmp/dpv-cmd.XXXXXX) || exit 1
trap 'rm -rf "$TMP"' EXIT
fails=0
cat >"$TMP/script" <<'CMDS'
show devices
show port
qp create 0
qp create 1
connect 0 1
show qps
traffic 0 write 65536 300
traffic 0 read 4096 300
traffic 1 send 1000 300
traffic 0 atomic 8 200
qp destroy 1
show qps
show counters
quit
CMDS
DPV_CONF=/dev/null timeout 60 "$RUN" "$CMD" -f "$TMP/script" >"$TMP/out" 2>&1
rc=$?
cat "$TMP/out" | grep -v avx512
expect() {
	if grep -Eq "$1" "$TMP/out"; then echo "PASS $1"; else
		echo "FAIL missing: $1"; fails=$((fails + 1)); fi
}
[ $rc = 0 ] || { echo "FAIL exit $rc"; fails=$((fails + 1)); }
expect '^dpv0 guid '
expect '^dpv0 port 1: PORT_ACTIVE'
expect '^qp 0 <-> qp 1: RTS'
expect '^qp 1: qpn 0x[0-9a-f]+ RTS peer 0'
for op in write read send atomic; do
	expect "^$op [0-9]+ x [0-9]+ B: .* MB/s, .* ops/s, data ok"
done
expect '^qp 1 destroyed'
expect '^qp 0: qpn 0x[0-9a-f]+ RTS peer -1'
expect '^  rx_pkts +[1-9][0-9]*$'
expect '^  acks_sent +[1-9][0-9]*$'
expect '^dpv0: [0-9]+ counters, [0-9]+ of them 0'
printf 'traffic 5 write 64 1\n' >"$TMP/bad"
DPV_CONF=/dev/null timeout 60 "$RUN" "$CMD" -f "$TMP/bad" >"$TMP/out" 2>&1
rc=$?
expect 'traffic: qp 5 is not connected'
[ $rc = 1 ] && echo "PASS failing command: exit 1" ||
	{ echo "FAIL failing command: exit $rc"; fails=$((fails + 1)); }
echo "$fails failed"
[ $fails = 0 ]
