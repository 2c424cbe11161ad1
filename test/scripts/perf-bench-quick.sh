#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The benchmark of doc/guides/performance.rst, seconds long: proves that
# devtools/bench.py runs every kind of contender (floor, perftest on
# dpverbs, qperf, engine_perf), compares against a second build
# (--against) and writes its table and JSON. Timing goals are the
# benchmark's business, not this test's.
# Arguments: <build>/lib, source root, build root.
set -u
SRC=${2:?usage: $0 <lib dir> <source root> <build root>}
BUILD=${3:?}
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
command -v ib_send_lat >/dev/null || { echo "SKIP: no perftest"; exit 77; }
[ -x "$BUILD/app/dpv-floor/dpv-floor" ] || { echo "SKIP: no dpv-floor"; exit 77; }
OUT=$(mktemp -d /tmp/dpv-bench-quick.XXXXXX) || exit 1
trap 'rm -rf "$OUT"' EXIT
# two rounds against a second build (the same one here): the dpv and perf
# cases also run on it, their order in a pair swapped in the second round
timeout 300 python3 "$SRC/devtools/bench.py" --quick --runs 2 --stalls \
	--build "$BUILD" --against "$BUILD" --out "$OUT" \
	--only 'floor/(lat|stream|roce_write|roce_lat)/64$|floor/roce_write/4096$|ib_send_lat/64$|ib_write_bw/64$|dpv/idle/|tcp/tcp_lat|perf/engine_perf/1$'
rc=$?
[ $rc = 0 ] || { echo "FAIL: bench exited $rc"; exit 1; }
# (floor/roce_write/4096: its server checked every frame, none was bad)
for k in floor/lat/64 floor/stream/64 floor/roce_write/64 floor/roce_lat/64 \
	floor/roce_write/4096 \
	dpv/ib_send_lat/64 \
	dpv/ib_write_bw/64 perf/engine_perf/1 dpv@base/ib_send_lat/64 \
	dpv@base/ib_write_bw/64 perf@base/engine_perf/1 dpv/idle/0; do
	grep -q "\"$k\"" "$OUT/results.json" ||
		{ echo "FAIL: $k missing from results.json"; exit 1; }
done
grep -q '^ratio' "$OUT/table.txt" || { echo "FAIL: no ratio table"; exit 1; }
# the cache-line probe around each run (dpv-c2c), with two CPUs a time
grep -q '"c2c": {' "$OUT/results.json" || { echo "FAIL: no c2c"; exit 1; }
if [ "$(nproc)" -ge 2 ]; then
	grep -qE '"before_ns": [0-9]' "$OUT/results.json" ||
		{ echo "FAIL: no probe time"; exit 1; }
fi
grep -qE '^idle process CPU, % of one core +[0-9.]+ ' "$OUT/table.txt" ||
	{ echo "FAIL: no idle CPU line"; exit 1; }
# the RoCE floor (port + ICRC): a rate, and its lines without a goal
# (then near / far columns when the sitting saw two placements)
grep -qE '^floor roce_write 64B / floor 64B rate +[0-9.]+ +[-0-9.]+ +- +-( +[-0-9.]+ +[-0-9.]+)?$' \
	"$OUT/table.txt" || { echo "FAIL: no RoCE floor line"; exit 1; }
# and the RC SEND ping-pong's round trip as RoCE frames
grep -qE '^send_lat 64B / floor roce_lat 64B +[0-9.]+ +[-0-9.]+ +- +-( +[-0-9.]+ +[-0-9.]+)?$' \
	"$OUT/table.txt" || { echo "FAIL: no RoCE latency floor line"; exit 1; }
# the comparison: each of the three cases, both rounds paired
for k in dpv/ib_send_lat/64 dpv/ib_write_bw/64 perf/engine_perf/1; do
	grep -qE "^$k +(p50_us|mpps|mmsgs) .* [0-2] of 2 " "$OUT/table.txt" ||
		{ echo "FAIL: no comparison of $k over 2 rounds"; exit 1; }
done
python3 - "$OUT/results.json" <<'PY' || exit 1
import json, sys
j = json.load(open(sys.argv[1]))
# --stalls: dpv-stall beside the sitting, each run's stalls listed (a
# list, empty unless the host stopped a vCPU for 50 ms in it)
st = j.get("stalls")
if not isinstance(st, dict) or "dpv/ib_send_lat/64/1" not in st or \
        "floor/lat/64/2" not in st or \
        any(not isinstance(v, list) for v in st.values()):
    sys.exit("FAIL: stalls %r" % (st,))
c = j["compare"]
keys = {(x["case"], x["metric"]) for x in c}
for k in [("dpv/ib_send_lat/64", "p50_us"), ("dpv/ib_write_bw/64", "mpps"),
          ("perf/engine_perf/1", "mmsgs")]:
    if k not in keys:
        sys.exit("FAIL: %s %s not compared in results.json" % k)
PY
# the placements of the vCPUs (devtools/bench.py's placements() and the
# near / far ratios), on probes and runs made up here: two placements, a
# run that straddled a move, one whose probes lie 2x apart
PYTHONDONTWRITEBYTECODE=1 python3 - "$SRC/devtools" <<'PY' || exit 1
import sys
sys.path.insert(0, sys.argv[1])
import bench
import types
lat, flo = "dpv/ib_send_lat/64", "floor/lat/64"
probes = {(lat, 0): (30, 31), (flo, 0): (29, 33), (lat, 1): (230, 240),
          (flo, 1): (250, 236), (lat, 2): (30, 240), (flo, 2): (120, 250)}
edge, group = bench.placements(probes)
want = {(lat, 0): "near", (flo, 0): "near", (lat, 1): "far",
        (flo, 1): "far", (lat, 2): None, (flo, 2): None}
if edge is None or not 33 < edge < 120 or group != want:
    sys.exit("FAIL: placements() %r %r" % (edge, group))
if bench.placements({k: (30, 31) for k in probes})[0] is not None:
    sys.exit("FAIL: one placement taken for two")
rounds = {lat: {"p50_us": {0: 0.8, 1: 1.6, 2: 1.2}},
          flo: {"p50_us": {0: 0.2, 1: 0.8, 2: 0.5}}}
res = {k: {"p50_us": bench.summary(list(v["p50_us"].values()))}
       for k, v in rounds.items()}
args = types.SimpleNamespace(port="memif")
r = [x for x in bench.ratios(res, rounds, args, group)
     if x["ratio"].startswith("send_lat 64B / floor one-way")][0]
if abs(r["near"] - 4.0) > 1e-9 or abs(r["far"] - 2.0) > 1e-9:
    sys.exit("FAIL: near / far ratios %r" % r)
PY
echo "PASS: bench quick run"
