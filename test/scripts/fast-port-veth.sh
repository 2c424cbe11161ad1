#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Two processes in two network namespaces joined by a veth pair, each with
# a dpverbs device on af_packet, then on af_xdp, configured only through
# DPV_EAL / DPV_IP (automatic file prefixes): a ping frame goes one way,
# a pong the other. Roles are dpv-test's port child modes. Then the path
# MTU an af_packet port with mtu 4200 gives for two frame sizes, and one
# without on a veth of MTU 4200, and an af_xdp port on veths of three
# MTUs (ibv_devinfo).
# Arguments: <build>/lib, source root, build root. Needs root and iproute2.
set -u
lib=$1
build=$3
T=$build/test/dpv-test
[ -x "$T" ] || { echo "no $T"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "skip: needs root"; exit 77; }
command -v ip >/dev/null 2>&1 || { echo "skip: no iproute2"; exit 77; }
command -v timeout >/dev/null 2>&1 || { echo "skip: no timeout"; exit 77; }

ns1=dpvport$$a
ns2=dpvport$$b
if1=dpvpa$$
if2=dpvpb$$
cleanup() {
	ip netns del "$ns1" 2>/dev/null
	ip netns del "$ns2" 2>/dev/null
}
trap cleanup EXIT INT TERM
ip netns add "$ns1" && ip netns add "$ns2" || { echo "skip: netns"; exit 77; }
ip link add "$if1" type veth peer name "$if2" || { echo "skip: veth"; exit 77; }
ip link set "$if1" netns "$ns1"
ip link set "$if2" netns "$ns2"
ip -n "$ns1" link set "$if1" up
ip -n "$ns2" link set "$if2" up

eal="--no-huge --no-pci -m 256 --no-shconf"
fail=0
asan=${ASAN_OPTIONS:-}
# $1: name, $2: vdev for ns1, $3: vdev for ns2
pair() {
	ip netns exec "$ns1" env DPV_PORT_TEST_CHILD=ping-server \
		DPV_CONF=/dev/null DPV_IP=192.0.2.1/24 \
		DPV_EAL="$eal --vdev=$2" timeout 40 "$T" &
	spid=$!
	ip netns exec "$ns2" env DPV_PORT_TEST_CHILD=ping-client \
		DPV_CONF=/dev/null DPV_IP=192.0.2.2/24 \
		DPV_EAL="$eal --vdev=$3" timeout 40 "$T"
	crc=$?
	wait $spid
	src=$?
	echo "$1: client exit $crc, server exit $src"
	[ $crc = 0 ] && [ $src = 0 ] || fail=1
}

# $1: DPV_CONF, $2: vdev: what ibv_devinfo prints for a device on it in
# the first namespace (its refusal too)
devinfo() {
	ip netns exec "$ns1" env LD_LIBRARY_PATH="$lib" DPV_CONF="$1" \
		DPV_LINK_WAIT_MS=0 DPV_EAL="$eal --vdev=$2" \
		timeout 40 ibv_devinfo -d dpv0 2>&1
}
# the active_mtu of devinfo's output on stdin
active_mtu() {
	sed -n 's/.*active_mtu:[[:space:]]*\([0-9]*\).*/\1/p'
}

pair af_packet "net_af_packet0,iface=$if1" "net_af_packet0,iface=$if2"
# af_packet with an mtu of 4200: a 4096 path MTU when its frame slots
# (framesz) hold such a frame and the kernel's header, a clear refusal
# when they do not (the kernel would cut every full frame short)
if command -v ibv_devinfo >/dev/null 2>&1; then
	conf=$(mktemp)
	printf '[dpv0]\nmtu = 4200\n' >"$conf"
	for f in 4352:4096 4224:refused; do
		out=$(devinfo "$conf" "net_af_packet0,iface=$if1,blocksz=139264,framesz=${f%%:*},framecnt=64")
		got=$(printf '%s\n' "$out" | active_mtu)
		printf '%s\n' "$out" | grep -q "does not fit af_packet" &&
			got=refused
		echo "af_packet, mtu 4200, framesz=${f%%:*}: ${got:-none}"
		[ "$got" = "${f#*:}" ] || fail=1
	done
	rm -f "$conf"
	# no mtu of its own: the interface's MTU (4200 here) as far as the
	# frame slots hold it (the default 2,048-byte ones: 1906, a 1024
	# path MTU)
	ip -n "$ns1" link set "$if1" mtu 4200
	for f in 4352:4096 default:1024; do
		v="net_af_packet0,iface=$if1"
		[ "${f%%:*}" = default ] ||
			v="$v,blocksz=139264,framesz=${f%%:*},framecnt=64"
		got=$(devinfo /dev/null "$v" | active_mtu)
		echo "af_packet on a veth of MTU 4200, framesz ${f%%:*}: active_mtu ${got:-none}"
		[ "$got" = "${f#*:}" ] || fail=1
	done
	ip -n "$ns1" link set "$if1" mtu 1500
fi
if ls /usr/lib/*/dpdk/pmds-*/librte_net_af_xdp.so* >/dev/null 2>&1; then
	# DPDK 22.11's af_xdp PMD leaks libxdp's 80-byte umem handle (from
	# xsk_umem__create) even after rte_eth_dev_close(): not ours, so the
	# sanitizer build's leak check is off for this pair only.
	export ASAN_OPTIONS="${asan:+$asan:}detect_leaks=0"
	pair af_xdp "net_af_xdp0,iface=$if1,start_queue=0,queue_count=1" \
		"net_af_xdp0,iface=$if2,start_queue=0,queue_count=1"
	# an af_xdp port takes its interface's MTU (at most 3400): a veth of
	# MTU 3400 gives a 2048 path MTU, of 1500 (above) a 1024 one
	if command -v ibv_devinfo >/dev/null 2>&1; then
		for m in 1500:1024 3400:2048 9000:2048; do
			ip -n "$ns1" link set "$if1" mtu "${m%%:*}"
			got=$(devinfo /dev/null "net_af_xdp0,iface=$if1,start_queue=0,queue_count=1" |
				active_mtu)
			echo "af_xdp on a veth of MTU ${m%%:*}: active_mtu ${got:-none}"
			[ "$got" = "${m#*:}" ] || fail=1
		done
	fi
else
	echo "af_xdp PMD not installed: skipped"
fi
[ $fail = 0 ] && echo "PASS" || echo "FAIL"
exit $fail
