#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# examples/nfv_forwarder between two memif ports, with dpdk-testpmd as
# the traffic peer: testpmd (flowgen, 64 flows of varying destination
# IPv4 address) sends into both of the forwarder's devices until each has
# received 20,000 frames (at most 60 s) and counts what comes back out of
# the other one. Passes when the forwarder forwarded frames both ways, every one of the 64 flows was
# seen on each device, nfv_rss_check finds every flow on the queue DPDK's
# rte_softrss() predicts with the same key and table (and the per-queue
# counts equal the predicted sums), and testpmd received no more than was
# forwarded, and no fewer than that minus what was still on its way when
# testpmd stopped reading: at most a memif ring (1,024) of frames towards
# the forwarder, its 1,024 receive buffers per device and a burst
# (3 x 1,024 allowed).
# Arguments: <build>/lib, source root, build root.
set -u
LIBDIR=${1:?usage: $0 <lib dir> <source root> <build root>}
BUILD=${3:?usage: $0 <lib dir> <source root> <build root>}
X=$BUILD/examples/nfv_forwarder
[ -x "$X/nfv_forwarder" ] && [ -x "$X/nfv_rss_check" ] ||
	{ echo "SKIP: examples not built"; exit 77; }
command -v dpdk-testpmd >/dev/null || { echo "SKIP: no dpdk-testpmd (package dpdk)"; exit 77; }
[ -e "$LIBDIR/libibverbs.so.1" ] || { echo "FAIL: no $LIBDIR/libibverbs.so.1"; exit 1; }
TMP=$(mktemp -d /tmp/dpv-nfv.XXXXXX) || exit 1
fpid=
tpid=
# EAL's runtime directories of this script's own --file-prefix (EAL
# leaves them when a process is killed; the library cleans only dpv<pid>)
rundirs_rm() {
	local b=/var/run/dpdk
	[ "$(id -u)" = 0 ] || b=${XDG_RUNTIME_DIR:-/tmp}/dpdk
	for p in "$@"; do rm -rf "${b:?}/$p"; done
}
cleanup() {
	[ -n "$tpid" ] && kill "$tpid" 2>/dev/null && wait "$tpid" 2>/dev/null
	[ -n "$fpid" ] && kill "$fpid" 2>/dev/null && wait "$fpid" 2>/dev/null
	rm -rf "$TMP"
	rundirs_rm dpvnfv$$ dpvnfvtp$$
}
trap cleanup EXIT
trap 'exit 1' INT TERM
FLOWS=64
cat >"$TMP/fwd.conf" <<CONF
[eal]
args = --no-huge --no-pci -m 512 --no-shconf --file-prefix=dpvnfv$$
[dpverbs]
progress = app
[dpv0]
vdev = net_memif0,role=server,socket=$TMP/a.sock,socket-abstract=no,bsize=2048
[dpv1]
vdev = net_memif1,role=server,socket=$TMP/b.sock,socket-abstract=no,bsize=2048
CONF

# The run ends when the forwarder has received MARK frames on each device
# (however loaded the machine is), at most after 60 s: then testpmd stops
# (a newline on its stdin), and only then the forwarder, so that neither
# memif peer disappears under the other's feet.
MARK=20000
DPV_CONF=$TMP/fwd.conf LD_LIBRARY_PATH=$LIBDIR timeout 90 \
	"$X/nfv_forwarder" -q 4 -t 80 -i 0 -c $MARK -r "$TMP/report" \
	>"$TMP/fwd" 2>&1 &
fpid=$!
for _ in $(seq 100); do
	grep -q "forwarding$" "$TMP/fwd" && break
	kill -0 $fpid 2>/dev/null || break
	sleep 0.1
done
mkfifo "$TMP/tp.in"
timeout 90 dpdk-testpmd --no-huge --no-pci -m 256 --no-shconf \
	--lcores='0@(0-1),1@(0-1)' --file-prefix=dpvnfvtp$$ \
	--log-level=lib.eal:error \
	--vdev=net_memif0,role=client,socket=$TMP/a.sock,socket-abstract=no \
	--vdev=net_memif1,role=client,socket=$TMP/b.sock,socket-abstract=no \
	-- --forward-mode=flowgen --flowgen-flows=$FLOWS --txpkts=64 \
	--nb-cores=1 --total-num-mbufs=8192 <"$TMP/tp.in" >"$TMP/testpmd" 2>&1 &
tpid=$!
exec 3>"$TMP/tp.in"
t0=$SECONDS
while [ $((SECONDS - t0)) -lt 60 ]; do
	grep -q "frames received on each device" "$TMP/fwd" && break
	kill -0 $fpid 2>/dev/null && kill -0 $tpid 2>/dev/null || break
	sleep 0.2
done
echo "traffic ran $((SECONDS - t0)) s"
echo >&3 # testpmd: "Press enter to exit"
exec 3>&-
wait $tpid
trc=$?
tpid=
kill -INT $fpid 2>/dev/null
wait $fpid
frc=$?
fpid=
grep '^nfv_forwarder' "$TMP/fwd"
fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
[ $trc = 0 ] || fail "dpdk-testpmd exit $trc"
[ $frc = 0 ] || fail "nfv_forwarder exit $frc"
grep -q "frames received on each device" "$TMP/fwd" ||
	fail "fewer than $MARK frames on a device within 60 s"

# testpmd's RX per port: port 0 gets what dpv1 -> dpv0 forwarded
rx() { awk -v p="$1" '/Forward statistics for port/ {cur = $(NF-1)}
	/RX-packets:/ && cur == p {print $2; exit}' "$TMP/testpmd"; }
fwd() { sed -n "s/^nfv_forwarder: $1 -> .*forwarded \([0-9]*\),.*/\1/p" "$TMP/fwd"; }
for d in "dpv1 0" "dpv0 1"; do
	set -- $d
	f=$(fwd "$1")
	r=$(rx "$2")
	echo "$1 forwarded ${f:-?}, testpmd port $2 received ${r:-?}"
	if [ -z "$f" ] || [ -z "$r" ] || [ "$f" -eq 0 ] || [ "$r" -gt "$f" ] ||
		[ "$r" -lt $((f - 3 * 1024)) ]; then
		fail "$1 -> testpmd port $2"
	fi
done
"$X/nfv_rss_check" -n $FLOWS "$TMP/report" || fail "RSS queues"
if [ $fails = 0 ]; then
	echo "PASS nfv_forwarder"
	exit 0
fi
grep -v avx512 "$TMP/fwd" | tail -20
grep -E "Forward statistics|RX-packets|TX-packets|rror" "$TMP/testpmd" | head -20
exit 1
