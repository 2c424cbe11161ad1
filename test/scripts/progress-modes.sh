# SPDX-License-Identifier: BSD-3-Clause
#
# Sourced by the scripts that run one test program in several progress
# modes (fast-cqmod-modes.sh, fast-event-carry.sh): the program brings
# up the loopback device itself and prints "RESULT <tag> progress=<mode>
# failed=<n>".
#
# modes_setup BUILD EXE TAG: EXE under BUILD/test (exit 77 when it is
# not built), a temporary directory TMP removed at exit, fail=0.
# run_mode NAME PROGRESS(0 app, 1 thread, 2 worker) CONF-LINES [env...]:
# runs it with that configuration file; 0 when it exited 0 with failed=0
# in that mode, else prints its output, sets fail=1 and returns 1. Its
# output stays in $TMP/NAME.out.
modes_setup() {
	EXE=$1/test/$2
	TAG=$3
	[ -x "$EXE" ] || { echo "SKIP: $EXE not built"; exit 77; }
	TMP=$(mktemp -d /tmp/dpv-modes.XXXXXX) || exit 1
	trap 'rm -rf "$TMP"' EXIT
	fail=0
}

run_mode() {
	local name=$1 want=$2 out=$TMP/$1.out s
	printf "$3" >"$TMP/$name.conf"
	shift 3
	env DPV_CONF="$TMP/$name.conf" LD_LIBRARY_PATH="$LIB" \
		DPV_EAL="--no-huge --no-pci --no-shconf -m 256 --log-level=lib.eal:error --log-level=dpv.verbs:info" \
		"$@" timeout 60 "$EXE" >"$out" 2>&1
	s=$?
	if [ $s != 0 ] || ! grep -q "^RESULT $TAG progress=$want failed=0" "$out"; then
		echo "FAIL $name: exit $s"
		cat "$out"
		fail=1
		return 1
	fi
	return 0
}
