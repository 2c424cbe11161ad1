#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The main job: install, build and run the dpverbs demo on a fresh machine
# with no configuration. Two processes talk RDMA RC over memif (RDMA
# WRITE and READ bandwidth, SEND/RECV and WRITE latency, every transfer
# verified), then the script says how to go further.
#
# Usage: devtools/demo.sh [--loopback] [other dpv-demo options]
#   --loopback       one process, two QPs on the in-process loopback device
#   DPV_BUILD=dir    build directory (default: build)
#   DPV_JOBS=n       ninja jobs (default: ninja's choice)
# Exits non-zero if the demo fails.
set -eu
cd "$(dirname "$0")/.."
B=${DPV_BUILD:-build}

step() { printf '\n==> %s\n' "$*"; }

step "Installing dependencies (devtools/setup.sh)"
devtools/setup.sh

step "Configuring and building ($B)"
if [ ! -f "$B/build.ninja" ]; then
	log=$(mktemp)
	meson setup "$B" >"$log" 2>&1 || {
		cat "$log" >&2
		echo "demo: meson setup failed" >&2
		exit 1
	}
	rm -f "$log"
fi
log=$B/meson-logs/demo-ninja.log
if ! ninja -C "$B" ${DPV_JOBS:+-j "$DPV_JOBS"} >"$log" 2>&1; then
	tail -n 40 "$log" >&2
	echo "demo: the build failed (log: $log)" >&2
	exit 1
fi
DEMO=$B/app/dpv-demo/dpv-demo
[ -x "$DEMO" ] || { echo "demo: $DEMO was not built" >&2; exit 1; }
echo "built: $B/lib/libibverbs.so.1 and $DEMO"

mode=memif
for a in "$@"; do [ "$a" = --loopback ] && mode=loopback; done
if [ $mode = memif ]; then
	step "Running the demo: two processes, RDMA RC over memif ($DEMO)"
else
	step "Running the demo: one process, two QPs on the loopback device ($DEMO --loopback)"
fi
rc=0
"$DEMO" "$@" || rc=$?
if [ $rc -ne 0 ] && [ $mode = memif ]; then
	echo
	echo "demo: the two-process demo FAILED (exit $rc); for comparison, the"
	echo "one-process loopback demo ($DEMO --loopback):"
	"$DEMO" --loopback || true
fi

cat <<EOF

==> Going further
  Both processes above ran an ordinary verbs program (app/dpv-demo, only
  <infiniband/verbs.h>) on dpverbs' libibverbs.so.1 in $B/lib: no RDMA
  NIC, no kernel module, no hugepages. Existing RDMA tools run unmodified:

    export LD_LIBRARY_PATH=\$PWD/$B/lib
    ibv_devinfo -v                        # the in-process loopback device dpv0

  Two processes over memif with rdma-core's ibv_rc_pingpong:

    # terminal 1
    export LD_LIBRARY_PATH=\$PWD/$B/lib DPV_IP=192.0.2.1/24
    export DPV_EAL="--no-huge --no-pci -m 512 --no-shconf --vdev=net_memif0,role=server,socket=/tmp/dpv.sock,socket-abstract=no"
    ibv_rc_pingpong -d dpv0 -g 1
    # terminal 2
    export LD_LIBRARY_PATH=\$PWD/$B/lib DPV_IP=192.0.2.2/24
    export DPV_EAL="--no-huge --no-pci -m 512 --no-shconf --vdev=net_memif0,role=client,socket=/tmp/dpv.sock,socket-abstract=no"
    ibv_rc_pingpong -d dpv0 -g 1 127.0.0.1

  More: $DEMO --help, the samples in examples/ ($B/examples/),
  doc/guides/demo.rst, doc/guides/examples.rst,
  doc/guides/configuration.rst (real NICs, veth, af_xdp),
  doc/guides/status.rst (what works today), devtools/test.sh (all tests).
EOF
if [ $rc -ne 0 ]; then
	echo
	echo "demo: FAILED (dpv-demo exited $rc)" >&2
fi
exit $rc
