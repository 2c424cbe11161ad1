#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Fuzz the engine's receive path (test/fuzz/fuzz_rx.c) with libFuzzer
# under ASan and UBSan.
#
#   devtools/fuzz.sh [--time S] [--runs N] [--build DIR] [--jobs J]
#
# Builds DIR (default build-fuzz) with clang, seeds a corpus from the rxe
# captures (../shared/captures: each frame with every fix-up on, once per
# QP of the harness), replays the kept crashers (test/fuzz/regress), then
# fuzzes for S seconds (default 60) or N executions. Prints the number of
# executions; exits 1 on a crash or a sanitizer report (the input
# is left in DIR/fuzz-artifacts: copy it to test/fuzz/regress once fixed).
# The long run the issue asks for: devtools/fuzz.sh --runs 10000000
set -u
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
BUILD=build-fuzz
TIME=60
RUNS=-1
JOBS=1
while [ $# -gt 0 ]; do
	case $1 in
	--time) TIME=$2; shift 2 ;;
	--runs) RUNS=$2; TIME=0; shift 2 ;;
	--build) BUILD=$2; shift 2 ;;
	--jobs) JOBS=$2; shift 2 ;;
	*) echo "usage: $0 [--time S] [--runs N] [--build DIR] [--jobs J]"; exit 2 ;;
	esac
done
command -v clang >/dev/null || { echo "SKIP: no clang (apt-get install clang)"; exit 77; }
if [ ! -f "$BUILD/build.ninja" ]; then
	CC=clang meson setup "$BUILD" -Dfuzz=true -Dexamples=false \
		-Db_sanitize=address,undefined -Db_lundef=false >/dev/null ||
		{ echo "FAIL: meson setup $BUILD"; exit 1; }
fi
ninja -C "$BUILD" test/fuzz/dpv-fuzz-rx >/dev/null ||
	{ echo "FAIL: building dpv-fuzz-rx"; exit 1; }
FUZZ=$BUILD/test/fuzz/dpv-fuzz-rx
CORPUS=$BUILD/fuzz-corpus
ART=$BUILD/fuzz-artifacts
mkdir -p "$CORPUS" "$ART"
# seeds: every frame of every capture, control byte = all fix-ups + QP
python3 - "$ROOT/../shared/captures" "$CORPUS" <<'PY'
import os, struct, sys
src, out = sys.argv[1], sys.argv[2]
n = 0
if not os.path.isdir(src):
    print('seeds: none (no captures at %s)' % src)
    sys.exit(0)
for name in sorted(os.listdir(src)):
    if not name.endswith('.pcap'):
        continue
    data = open(os.path.join(src, name), 'rb').read()
    if len(data) < 24:
        continue
    endian = '<' if data[:4] == b'\xd4\xc3\xb2\xa1' else '>'
    off = 24
    while off + 16 <= len(data):
        incl = struct.unpack(endian + 'I', data[off + 8:off + 12])[0]
        frame = data[off + 16:off + 16 + incl]
        off += 16 + incl
        for qp in range(5):
            path = os.path.join(out, 'seed-%s-%d-%d' % (name, n, qp))
            with open(path, 'wb') as f:
                f.write(bytes([0x0f | (qp << 4)]) + frame)
        # an IPv4 RC SEND ONLY (BTH at 42): as a tag matching EAGER and
        # RNDV message to QP 1, the harness's TM QP (tags 0..7)
        if len(frame) >= 42 + 12 + 32 + 4 and frame[12:14] == b'\x08\x00' \
                and frame[42] == 0x04:
            for tmh in (bytes([3, 0, 0, 0, 0, 0, 0, 1]) + (1).to_bytes(8, 'big'),
                        bytes([1, 0, 0, 0, 0, 0, 0, 2]) + (2).to_bytes(8, 'big')
                        + (64).to_bytes(8, 'big') + bytes(4)
                        + (512).to_bytes(4, 'big')):
                tm = frame[:54] + tmh + frame[54 + len(tmh):]
                path = os.path.join(out, 'seed-%s-%d-tm%d' % (name, n, tmh[0]))
                with open(path, 'wb') as f:
                    f.write(bytes([0x0f | (1 << 4)]) + tm)
        n += 1
print('seeds: %d frames' % n)
PY
# no leak check: the engine lives in the DPDK heap, which LeakSanitizer
# does not scan (everything it points to would look leaked)
export ASAN_OPTIONS=abort_on_error=1:detect_leaks=0
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
regress=$(ls "$ROOT"/test/fuzz/regress/* 2>/dev/null)
if [ -n "$regress" ]; then
	"$FUZZ" $regress >"$ART/regress.log" 2>&1 ||
		{ echo "FAIL: a kept crasher fails again"; tail -30 "$ART/regress.log"; exit 1; }
	echo "regress: $(echo "$regress" | wc -w) kept inputs pass"
fi
par=()
# -jobs writes fuzz-N.log into the current directory: run from $ART
[ "$JOBS" -gt 1 ] && par=(-jobs="$JOBS" -workers="$JOBS")
FUZZ=$(realpath "$FUZZ") CORPUS=$(realpath "$CORPUS") ART=$(realpath "$ART")
LOG=$ART/fuzz.log
(cd "$ART" && "$FUZZ" -seed=1 -max_len=2100 -runs="$RUNS" \
	-max_total_time="$TIME" "${par[@]}" -print_final_stats=1 \
	-detect_leaks=0 -artifact_prefix="$ART/" "$CORPUS" >"$LOG" 2>&1)
rc=$?
execs=$(grep -h "stat::number_of_executed_units" "$LOG" "$ART"/fuzz-*.log 2>/dev/null |
	awk '{s += $2} END {print s + 0}')
if [ $rc != 0 ] || grep -q "ERROR: AddressSanitizer\|runtime error:\|deadly signal" "$LOG"; then
	echo "FAIL: fuzz_rx after $execs executions (see $LOG)"
	grep -m5 "ERROR\|runtime error\|SUMMARY\|Test unit written" "$LOG"
	exit 1
fi
echo "PASS: fuzz_rx: $execs executions, no crash, no sanitizer report"
