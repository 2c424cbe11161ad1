#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Install dependencies, build, and run every test: the fast, slow and perf
# suites on a normal build, then the fast unit tests (dpv-test; the script
# tests run unmodified programs that cannot load sanitized libraries) again
# on an AddressSanitizer + UndefinedBehaviorSanitizer build. Ends with the line
# "N passed, N failed, N skipped" and exits non-zero if anything failed.
#
#   devtools/test.sh            everything
#   DPV_SUITES="fast" devtools/test.sh     only some suites
#   DPV_NO_ASAN=1 devtools/test.sh         skip the sanitizer build
#   DPV_NO_FUZZ=1 devtools/test.sh         skip the short fuzz run
# With the sanitizer build, a short libFuzzer run over the engine's receive
# path (devtools/fuzz.sh --time 60, clang) counts as one more test.
set -u
cd "$(dirname "$0")/.."
top=$(pwd)

devtools/setup.sh || { echo "setup failed"; echo "0 passed, 1 failed"; exit 1; }

suites=${DPV_SUITES:-fast slow perf}
total_pass=0 total_fail=0 total_skip=0

# configure DIR [meson options...]; builds it too.
build() {
    local dir=$1; shift
    if [ -f "$dir/build.ninja" ]; then
        meson setup --reconfigure "$dir" "$@" >"$dir.setup.log" 2>&1
    else
        meson setup "$dir" "$@" >"$dir.setup.log" 2>&1
    fi || { cat "$dir.setup.log"; return 1; }
    ninja -C "$dir"
}

# run DIR MESON-TEST-ARGS...: meson test, then add its counts to the totals.
run() {
    local dir=$1; shift
    meson test -C "$dir" "$@" --print-errorlogs --num-processes 2
    local counts
    counts=$(python3 - "$dir/meson-logs/testlog.json" <<'PY'
import json, sys
p = f = s = 0
try:
    for line in open(sys.argv[1]):
        r = json.loads(line).get('result', '')
        if r in ('OK', 'EXPECTEDFAIL'):
            p += 1
        elif r == 'SKIP':
            s += 1
        else:
            f += 1
except FileNotFoundError:
    f = 1
print(p, f, s)
PY
)
    set -- $counts
    total_pass=$((total_pass + $1)); total_fail=$((total_fail + $2)); total_skip=$((total_skip + $3))
}

if build build -Ddocs=enabled; then
    args=()
    for s in $suites; do args+=(--suite "$s"); done
    run build "${args[@]}"
else
    echo "build failed"; total_fail=$((total_fail + 1))
fi

if [ -z "${DPV_NO_ASAN:-}" ]; then
    if build build-asan -Db_sanitize=address,undefined -Db_lundef=false -Ddocs=disabled; then
        ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
        UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
            run build-asan --suite fast --no-suite script
    else
        echo "sanitizer build failed"; total_fail=$((total_fail + 1))
    fi
fi

if [ -z "${DPV_NO_ASAN:-}" ] && [ -z "${DPV_NO_FUZZ:-}" ]; then
    devtools/fuzz.sh --time "${DPV_FUZZ_TIME:-60}"
    case $? in
    0) total_pass=$((total_pass + 1)) ;;
    77) total_skip=$((total_skip + 1)) ;;
    *) total_fail=$((total_fail + 1)) ;;
    esac
fi

echo "${total_pass} passed, ${total_fail} failed, ${total_skip} skipped"
[ "$total_fail" -eq 0 ]
