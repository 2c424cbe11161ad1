#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The benchmark of doc/guides/performance.rst: builds what it needs, then
# runs devtools/bench.py (raw-DPDK floor, dpverbs under unmodified perftest,
# kernel TCP with qperf, the engine over 1..4,096 QPs), interleaved.
#   devtools/bench.sh [--pgo] [--quick] [--runs N] [--out DIR] [--only REGEX]
#                     [--stalls]
# --pgo: benchmark the libraries built with profile-guided optimisation
# (devtools/pgo.sh, into build-pgo/, about four minutes) instead of build/.
# Results: DIR/table.txt, DIR/results.json, DIR/latency.png,
# DIR/bandwidth.png (DIR defaults to build/bench).
set -eu
cd "$(dirname "$0")/.."
need=
command -v ib_send_lat >/dev/null || need="$need perftest"
command -v qperf >/dev/null || need="$need qperf"
command -v gnuplot >/dev/null || need="$need gnuplot-nox"
if [ -n "$need" ] && [ "$(id -u)" = 0 ]; then
	apt-get install -y $need >/dev/null 2>&1 ||
		{ apt-get update >/dev/null && apt-get install -y $need >/dev/null; } ||
		echo "bench: could not install$need; going on without" >&2
fi
if [ "${1:-}" = --pgo ]; then
	shift
	devtools/pgo.sh build-pgo
	exec python3 devtools/bench.py --build build-pgo "$@"
fi
[ -d build ] || meson setup build >/dev/null
ninja -C build >/dev/null
exec python3 devtools/bench.py "$@"
