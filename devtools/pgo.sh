#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Build dpverbs with profile-guided optimisation (GCC): the libraries are
# built instrumented, run through a training workload on this machine,
# then built again with the profile it wrote, so that the compiler lays
# out the hot path (post, engine pass, ICRC, completion) as it runs.
#
#   devtools/pgo.sh [--quick] [DIR] [-- meson options...]
#
# DIR defaults to build-pgo; use it as any build directory
# (LD_LIBRARY_PATH=DIR/lib, or meson install -C DIR). The training, about
# two minutes: the engine alone (dpv-test engine_perf: RC SEND and WRITE,
# 1 and 256 QP pairs), then unmodified perftest over a memif pair (SEND,
# WRITE and READ latency and bandwidth, 64 B to 64 KiB) when perftest is
# installed. --quick trains for a few seconds (a smoke run), and with
# perftest installed builds and trains the libraries alone. Code the
# training does not reach keeps its usual optimisation
# (-fprofile-partial-training). Run it again after changing the source:
# a profile only fits the code it was taken from. A DIR that exists must
# be a build directory; it is wiped.
set -eu
cd "$(dirname "$0")/.."
src=$(pwd)
quick=0
if [ "${1:-}" = --quick ]; then
	quick=1
	shift
fi
dir=build-pgo
if [ $# -gt 0 ] && [ "$1" != -- ]; then
	dir=$1
	shift
fi
[ "${1:-}" = -- ] && shift
case $dir in /*) ;; *) dir=$src/$dir ;; esac

step() { echo "pgo: $*" >&2; }

# 1. instrumented (a directory that is there must be a build directory:
# it is built afresh)
if [ -e "$dir" ]; then
	[ -f "$dir/build.ninja" ] ||
		{ step "$dir is there and is not a build directory"; exit 2; }
	rm -rf "$dir"
fi
step "instrumented build in $dir"
# -fprofile-partial-training: code the training does not reach keeps its
# usual optimisation (not optimised for size); a file edited since the
# training only warns (its changed functions lose their profile) when
# ninja rebuilds it; your -Dc_args replace these
meson setup "$dir" -Db_pgo=generate -Ddocs=disabled -Dexamples=false \
	-Dc_args="-fprofile-partial-training -Wno-missing-profile -Wno-error=coverage-mismatch" \
	"$@" >"$dir.setup.log" 2>&1 ||
	{ cat "$dir.setup.log" >&2; exit 1; }
# --quick with perftest installed builds the libraries alone (perftest
# trains them; dpv-test and the apps are half the build time)
targets=()
if [ $quick = 1 ] && command -v ib_send_lat >/dev/null; then
	mapfile -t targets < <(meson introspect --targets "$dir" |
		python3 -c 'import json, os, sys
for t in json.load(sys.stdin):
    if t["type"] == "shared library":
        print(os.path.relpath(t["filename"][0], sys.argv[1]))' "$dir")
fi
ninja -C "$dir" "${targets[@]}" >"$dir.build.log" 2>&1 || { tail -30 "$dir.build.log" >&2; exit 1; }

# 2. training (perftest pairs over memif as the interop tests run them)
LIBDIR=$dir/lib
IC_TIMEOUT=60
. "$src/test/scripts/interop-common.sh"
ic_init
secs=2
[ $quick = 1 ] && secs=0.3
if [ -x "$dir/test/dpv-test" ]; then # not built by --quick with perftest
	step "training: engine_perf"
	for q in 1 256; do
		DPV_PERF_SECS=$secs DPV_PERF_QPS=$q \
			DPV_TEST_EAL="--no-huge --no-pci --no-shconf -m 2048 --log-level=error --file-prefix=pgo$$" \
			timeout 120 "$dir/test/dpv-test" engine_perf >"$IC_TMP/perf.log" 2>&1 ||
			{ tail -20 "$IC_TMP/perf.log" >&2; exit 1; }
	done
fi

# one perftest pair: tool, size, iterations (a pair that fails is shown
# and the training goes on)
perftest_pair() {
	local tool=$1 size=$2 n=$3 extra=
	case $tool in *_bw) extra=--report_gbits ;; esac
	[ $quick = 1 ] && n=$((n / 50 + 100))
	ic_pair "$tool-$size" "^ *$size +$n " "" -- "$tool" -d dpv0 -x 1 \
		-p "$IC_TCP" -s "$size" -n "$n" $extra >&2 || true
}
if command -v ib_send_lat >/dev/null; then
	step "training: perftest over memif"
	ic_env_memif
	perftest_pair ib_send_lat 64 50000
	perftest_pair ib_write_lat 64 50000
	perftest_pair ib_read_lat 64 20000
	perftest_pair ib_write_bw 64 1000000
	perftest_pair ib_send_bw 64 1000000
	perftest_pair ib_read_bw 64 300000
	perftest_pair ib_send_bw 4096 100000
	perftest_pair ib_write_bw 65536 20000
else
	step "no perftest (apt-get install perftest): the engine alone trains"
fi
n=$(find "$dir" -name '*.gcda' | wc -l)
[ "$n" -gt 0 ] || { step "the training wrote no profile"; exit 1; }

# 3. optimised with the profile
step "optimised build ($n profile files)"
meson configure "$dir" -Db_pgo=use >>"$dir.setup.log" 2>&1 || { cat "$dir.setup.log" >&2; exit 1; }
ninja -C "$dir" "${targets[@]}" >"$dir.build.log" 2>&1 || { tail -30 "$dir.build.log" >&2; exit 1; }
step "done: $dir (LD_LIBRARY_PATH=$dir/lib)"
