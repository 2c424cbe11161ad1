#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The memif driver must unmap a departed peer's rings through the
# library's munmap() (which waits for bursts in progress), however the
# program loaded the library: linked before libc (ibv_devinfo), linked
# with librdmacm alone so that libc comes first in the global scope
# (dpv-rsocket-peer: with libc's munmap() it once crashed when its peer
# died), or dlopen()ed with RTLD_LOCAL (Python ctypes, as pyverbs loads
# it), directly or under librdmacm. Each opens the device on a memif port
# and must log "memif unmaps through the library's munmap()" (the port's
# debug log); "libc's" fails.
# Arguments: <build>/lib, source root, build root.
set -u
LIB=${1:?usage: $0 <lib dir> <source root> <build root>}
BUILD=${3:?usage: $0 <lib dir> <source root> <build root>}
TMP=$(mktemp -d /tmp/dpv-guard.XXXXXX) || exit 1
trap 'rm -rf "$TMP"' EXIT
export DPV_CONF=/dev/null DPV_IP=192.0.2.1/24 LD_LIBRARY_PATH=$LIB
export DPV_EAL="--no-huge --no-pci --no-shconf -m 256 --log-level=lib.eal:error --log-level=dpv.port:debug --vdev=net_memif0,role=server,socket=$TMP/memif.sock,socket-abstract=no"
fails=0 passes=0

# check NAME: the last output ($TMP/out) must name the library's munmap()
check() {
	if grep -q "memif unmaps through the library's munmap()" "$TMP/out"; then
		passes=$((passes + 1))
		echo "PASS $1"
	else
		fails=$((fails + 1))
		echo "FAIL $1:"
		grep -E "unmaps|rror" "$TMP/out" | head -n 5
	fi
	rm -f "$TMP/memif.sock"
}

if command -v ibv_devinfo >/dev/null; then
	timeout 20 ibv_devinfo -d dpv0 >"$TMP/out" 2>&1
	check "linked (ibv_devinfo)"
fi

PEER=$BUILD/test/dpv-rsocket-peer
if [ -x "$PEER" ]; then
	# it listens for a client that never comes: 3 s are enough to start
	timeout 3 "$PEER" server 192.0.2.1 $((20000 + $$ % 20000)) 0 dead \
		>"$TMP/out" 2>&1
	check "librdmacm only, libc first (dpv-rsocket-peer)"
fi

if command -v python3 >/dev/null; then
	for l in libibverbs.so.1 librdmacm.so.1; do
		timeout 20 python3 - "$LIB" "$l" >"$TMP/out" 2>&1 <<'PY'
import ctypes, os, sys
# ctypes loads with RTLD_LOCAL: nothing of ours joins the global scope
lib = ctypes.CDLL(os.path.join(sys.argv[1], sys.argv[2]))
verbs = ctypes.CDLL(os.path.join(sys.argv[1], "libibverbs.so.1"))
verbs.ibv_get_device_list.restype = ctypes.POINTER(ctypes.c_void_p)
verbs.ibv_open_device.restype = ctypes.c_void_p
n = ctypes.c_int(0)
devs = verbs.ibv_get_device_list(ctypes.byref(n))
if n.value < 1:
    sys.exit("no device")
ctx = verbs.ibv_open_device(ctypes.c_void_p(devs[0]))
if not ctx:
    sys.exit("ibv_open_device failed")
verbs.ibv_close_device(ctypes.c_void_p(ctx))
verbs.ibv_free_device_list(devs)
PY
		check "dlopen RTLD_LOCAL ($l)"
	done
fi

echo "memif guard: $passes passed, $fails failed"
[ $passes -gt 0 ] || { echo "SKIP: nothing to run"; exit 77; }
[ $fails = 0 ]
