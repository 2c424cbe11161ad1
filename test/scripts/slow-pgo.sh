#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# devtools/pgo.sh --quick in a scratch directory: the instrumented build,
# its training (engine_perf, perftest over memif when installed) writes a
# profile, the second build compiles the libraries with it, and the result
# works (the engine's RC unit tests, or with perftest installed, where
# --quick builds the libraries alone, ib_send_lat between two processes;
# ibv_devinfo on its libibverbs).
# Speed is the benchmark's business, not this test's.
# Arguments: <build>/lib, source root, build root.
set -u
SRC=${2:?usage: $0 <lib dir> <source root> <build root>}
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
TMP=$(mktemp -d /tmp/dpv-pgo-test.XXXXXX) || exit 1
trap 'rm -rf "$TMP"' EXIT
B=$TMP/b
timeout 900 "$SRC/devtools/pgo.sh" --quick "$B" >"$TMP/pgo.log" 2>&1 ||
	{ echo "FAIL: pgo.sh"; tail -20 "$TMP/pgo.log"; exit 1; }
n=$(find "$B/lib" -name '*.gcda' | wc -l)
[ "$n" -gt 10 ] || { echo "FAIL: $n profile files under lib/"; exit 1; }
echo "PASS: the training wrote $n profiles of the libraries"
python3 - "$B/compile_commands.json" <<'PY' || exit 1
import json, sys
cmds = [c for c in json.load(open(sys.argv[1]))
        if "/lib/engine/engine_req.c" in c["file"]]
if not cmds or "-fprofile-use" not in cmds[0]["command"]:
    sys.exit("FAIL: the engine is not compiled with -fprofile-use")
print("PASS: the engine is compiled with its profile")
PY
if [ -x "$B/test/dpv-test" ]; then
	DPV_TEST_EAL="--no-huge --no-pci --no-shconf -m 512 --log-level=error --file-prefix=pgot$$" \
		timeout 300 "$B/test/dpv-test" engine_rc >"$TMP/rc.log" 2>&1 ||
		{ echo "FAIL: engine_rc on the PGO build"; tail -20 "$TMP/rc.log"; exit 1; }
	echo "PASS: engine_rc on the PGO build"
else
	# --quick with perftest built the libraries alone: an RC SEND
	# ping-pong between two processes on them
	LIBDIR=$B/lib
	. "$SRC/test/scripts/interop-common.sh"
	ic_init
	trap 'ic_cleanup; rm -rf "$TMP"' EXIT
	ic_env_memif
	ic_pair ib_send_lat "^ *64 +1000 " "" -- ib_send_lat -d dpv0 -x 1 \
		-p "$IC_TCP" -s 64 -n 1000 || exit 1
fi
if command -v ibv_devinfo >/dev/null; then
	LD_LIBRARY_PATH=$B/lib DPV_EAL="--no-huge --no-pci --no-shconf -m 512 --log-level=error --file-prefix=pgod$$ --vdev=net_memif0,role=server,socket=$TMP/m.sock,socket-abstract=no" \
		timeout 60 ibv_devinfo >"$TMP/devinfo.log" 2>&1
	grep -q "hca_id:.*dpv0" "$TMP/devinfo.log" ||
		{ echo "FAIL: ibv_devinfo on the PGO libraries"; tail -10 "$TMP/devinfo.log"; exit 1; }
	echo "PASS: ibv_devinfo on the PGO libraries"
fi
echo "PASS: pgo"
