#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# DPV_PROGRESS_FOLLOW=1 (lib/verbs/verbs_engine.c, prog_follow_app()):
# while the progress thread lands what the application leaves to it, it
# keeps to the CPU of the application's latest verbs call. Unmodified
# riostream (rdmacm-utils) over memif, neither process pinned: 3,000
# checked 64-byte round trips in which both applications spin on memory
# and their calls only post (each run a pass of its own). With the
# variable both ends must pass and each end's thread must have moved to
# its application's CPU at least once (progress_follows, DPV_STATS);
# without it both ends must pass and print no such count. The round-trip times are printed, not judged.
# Arguments: <build>/lib, source root, build root.
set -u
LIBDIR=${1:?usage: $0 <lib dir> <source root> <build root>}
SRC=${2:-$(dirname "$0")/../..}
. "$SRC/test/scripts/interop-common.sh"
ic_init
ic_need riostream stdbuf
[ -e "$LIBDIR/librdmacm.so.1" ] || { echo "FAIL: no librdmacm.so.1"; exit 1; }
ic_env_memif
IC_TIMEOUT=60
PORT=$((20000 + ($$ * 5) % 20000))
LINE="^custom +64 +1 +3k "

# rio NAME ENV...: one run (ic_run), with DPV_STATS and ENV at both ends
rio() {
	local name=$1 args="-p $PORT -S 64 -C 1 -I 3000 -T v"
	shift
	IC_XENV="DPV_STATS=1 $*" ic_run "$name" \
		"riostream -b 192.0.2.1 $args" "riostream -s 192.0.2.1 $args" \
		"$LINE" "$LINE"
}

# follows NAME END: END's progress_follows count, or nothing
follows() {
	grep -o "progress_follows=[0-9]*" "$IC_TMP/$1.$2" | head -1 |
		cut -d= -f2
}

if rio follow DPV_PROGRESS_FOLLOW=1; then
	fc=$(follows follow client)
	fs=$(follows follow server)
	if [ "${fc:-0}" -ge 1 ] && [ "${fs:-0}" -ge 1 ]; then
		IC_PASSES=$((IC_PASSES + 1))
		echo "PASS follow: the threads moved $fc (client) and $fs" \
			"(server) times"
	else
		IC_FAILS=$((IC_FAILS + 1))
		echo "FAIL follow: progress_follows client '${fc:-}'," \
			"server '${fs:-}' (at least 1 each wanted)"
	fi
fi
if rio plain; then
	if [ -z "$(follows plain client)$(follows plain server)" ]; then
		IC_PASSES=$((IC_PASSES + 1))
		echo "PASS plain: no thread follows without the variable"
	else
		IC_FAILS=$((IC_FAILS + 1))
		echo "FAIL plain: a progress_follows count without the variable"
	fi
fi
ic_summary
