#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Issue 12.7: a process killed with SIGKILL leaves its EAL runtime directory
# (<base>/dpv<pid>, base /var/run/dpdk for root) behind; the next process
# that starts EAL removes it, and leaves a live process's directory alone.
# Arguments: <build>/lib, source root, build root.
set -u
BUILD=${3:?usage: $0 <lib dir> <source root> <build root>}
RUN=$BUILD/app/dpv-run/dpv-run
CMD=$BUILD/app/dpv-cmd/dpv-cmd
[ -x "$CMD" ] || { echo "SKIP: no dpv-cmd"; exit 77; }
if [ "$(id -u)" = 0 ]; then
	BASE=/var/run/dpdk
else
	BASE=${XDG_RUNTIME_DIR:-/tmp}/dpdk
fi
TMP=$(mktemp -d /tmp/dpv-rundir.XXXXXX) || exit 1
pids=
cleanup() {
	for p in $pids; do kill -9 "$p" 2>/dev/null; done
	exec 3>&- 4>&-
	rm -rf "$TMP"
}
trap cleanup EXIT
fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
pass() { echo "PASS $*"; }

# A dpv-cmd that brought EAL up and waits for commands on a FIFO; its pid.
start() {
	mkfifo "$TMP/in$1"
	DPV_CONF=/dev/null "$RUN" "$CMD" <"$TMP/in$1" >"$TMP/out$1" 2>&1 &
	eval "pid$1=\$!"
	pids="$pids $!"
}
start 1
exec 3>"$TMP/in1"
start 2
exec 4>"$TMP/in2"
echo "show port" >&3
echo "show port" >&4
# both answered "show port": EAL is up, its telemetry socket listens
for i in $(seq 300); do
	grep -q PORT_ACTIVE "$TMP/out1" && grep -q PORT_ACTIVE "$TMP/out2" &&
		break
	sleep 0.1
done
[ -d "$BASE/dpv$pid1" ] && [ -d "$BASE/dpv$pid2" ] ||
	{ echo "FAIL no runtime directories"; cat "$TMP"/out*; exit 1; }
ls -l "$BASE/dpv$pid1"
kill -9 "$pid1"
wait "$pid1" 2>/dev/null
[ -d "$BASE/dpv$pid1" ] && pass "SIGKILL left $BASE/dpv$pid1" ||
	fail "the killed process's directory is already gone"

# the next start removes it
DPV_CONF=/dev/null timeout 60 "$RUN" ibv_devinfo -l >"$TMP/next" 2>&1 ||
	{ fail "ibv_devinfo: $(cat "$TMP/next")"; }
[ ! -e "$BASE/dpv$pid1" ] && pass "the next start removed it" ||
	fail "$BASE/dpv$pid1 is still there: $(ls -A "$BASE/dpv$pid1")"
[ -d "$BASE/dpv$pid2" ] && pass "the live process's directory stays" ||
	fail "$BASE/dpv$pid2 (live) was removed"
grep -q "PORT_ACTIVE" "$TMP/out2" && pass "the live process still works" ||
	fail "dpv-cmd 2: $(cat "$TMP/out2")"
echo quit >&4
exec 4>&-
wait "$pid2" 2>/dev/null
echo "$fails failed"
[ $fails = 0 ]
