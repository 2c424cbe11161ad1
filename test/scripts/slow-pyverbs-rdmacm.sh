#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# rdma-core's tests.test_rdmacm (python3-pyverbs) against our
# librdmacm.so.1 and libibverbs.so.1: every test method, connection class
# and traffic flow of rdma-core's modules, unmodified; only the launcher
# differs (test/scripts/pyverbs_rdmacm_pair.py): the two players are two
# processes joined by memif, each with its own device and the address the
# test uses, instead of two children forked off one open device.
#
# Usage: slow-pyverbs-rdmacm.sh <our lib dir> [source root]
# Environment: DPV_RDMACM_TIMEOUT (seconds per test, default 60),
#   DPV_PYVERBS_TESTS (default /usr/share/doc/rdma-core/tests),
#   DPV_PYVERBS_KEEP (keep the logs directory).
set -u
LIBDIR=$(readlink -f "${1:?usage: $0 <lib dir> [source root]}")
SRC=$(readlink -f "${2:-$(dirname "$0")/../..}")
TESTS=${DPV_PYVERBS_TESTS:-/usr/share/doc/rdma-core/tests}
PY=/usr/bin/python3

[ -x "$PY" ] || { echo "SKIP: $PY not found"; exit 77; }
[ -e "$TESTS/test_rdmacm.py" ] ||
	{ echo "SKIP: $TESTS/test_rdmacm.py not found (install python3-pyverbs)"; exit 77; }
for l in libibverbs.so.1 librdmacm.so.1; do
	[ -e "$LIBDIR/$l" ] || { echo "FAIL: no $LIBDIR/$l (not built yet?)"; exit 1; }
done
command -v timeout >/dev/null || { echo "SKIP: no timeout"; exit 77; }

WORK=$(mktemp -d /tmp/dpv-pyrdmacm.XXXXXX) || exit 1
if [ -z "${DPV_PYVERBS_KEEP:-}" ]; then
	trap 'rm -rf "$WORK"' EXIT
else
	echo "logs kept in $WORK"
fi
cp -r "$TESTS" "$WORK/tests"
find "$WORK/tests" -name '*.gz' -exec gunzip -f {} +
mkdir "$WORK/run"
# ten tests of at most DPV_RDMACM_TIMEOUT each, plus start-up
cd "$WORK" && LD_LIBRARY_PATH="$LIBDIR" timeout -k 10 900 \
	"$PY" "$SRC/test/scripts/pyverbs_rdmacm_pair.py" "$WORK" "$WORK/run"
