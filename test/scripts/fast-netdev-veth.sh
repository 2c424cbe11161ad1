#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The kernel interface of a device (doc/guides/configuration.rst, netdev):
# a dpverbs process on af_packet over a veth pair between two network
# namespaces gets its TAP dpv0 with the device's MAC, MTU and addresses;
# the other namespace's kernel pings the device's IPv4 and IPv6 addresses
# (the kernel
# behind the TAP answers); ibv_query_gid_ex / ibv_query_gid_table name
# the interface (dpv-test child "hold"); the interface goes when the
# process does. Then ibv_rc_pingpong between two dpverbs processes, one
# per namespace, each with its interface: its TCP set-up crosses both
# interfaces, its RoCE traffic stays in the engines.
# Arguments: <build>/lib, source root, build root. Needs root, iproute2,
# /dev/net/tun.
set -u
lib=$1
build=$3
T=$build/test/dpv-test
[ -x "$T" ] || { echo "no $T"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "skip: needs root"; exit 77; }
command -v ip >/dev/null 2>&1 || { echo "skip: no iproute2"; exit 77; }
command -v timeout >/dev/null 2>&1 || { echo "skip: no timeout"; exit 77; }
[ -c /dev/net/tun ] || { echo "skip: no /dev/net/tun"; exit 77; }
PP=$(command -v ibv_rc_pingpong) || PP=

ns1=dpvnd$$a
ns2=dpvnd$$b
if1=dpvna$$
if2=dpvnb$$
work=$(mktemp -d /tmp/dpv-netdev.XXXXXX)
cleanup() {
	ip netns del "$ns1" 2>/dev/null
	ip netns del "$ns2" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT INT TERM
ip netns add "$ns1" && ip netns add "$ns2" || { echo "skip: netns"; exit 77; }
ip link add "$if1" type veth peer name "$if2" || { echo "skip: veth"; exit 77; }
ip link set "$if1" netns "$ns1"
ip link set "$if2" netns "$ns2"
for n in "$ns1" "$ns2"; do ip -n "$n" link set lo up; done
ip -n "$ns1" link set "$if1" up
ip -n "$ns2" link set "$if2" up
# the kernel of a namespace must not answer on the veth end dpverbs owns
# (af_packet: it sees the same frames): no ARP replies for the TAP's
# addresses, no IPv4 input whose way back is the TAP, no IPv6
quiet() { # $1 netns, $2 interface
	ip netns exec "$1" sysctl -qw net.ipv4.conf.all.rp_filter=1 \
		"net.ipv4.conf.$2.rp_filter=1" "net.ipv4.conf.$2.arp_ignore=8" \
		"net.ipv6.conf.$2.disable_ipv6=1"
}
quiet "$ns1" "$if1"
ip -n "$ns2" addr add 198.51.100.9/24 dev "$if2"
ip -n "$ns2" addr add 2001:db8::9/64 dev "$if2" nodad

eal="--no-huge --no-pci -m 256 --no-shconf"
fail=0
check() { # $1 description, $2 result (0 = good)
	if [ "$2" = 0 ]; then echo "ok: $1"; else echo "FAIL: $1"; fail=1; fi
}
# ICMP echo from a namespace's kernel: ping, else a raw socket in python3
ping_from() { # $1 netns, $2 address
	if command -v ping >/dev/null 2>&1; then
		ip netns exec "$1" timeout 10 ping -c 3 -i 0.2 -W 2 "$2"
		return
	fi
	ip netns exec "$1" timeout 10 python3 - "$2" <<'PY'
import socket, struct, sys, time
def csum(b):
    s = sum(struct.unpack('!%dH' % (len(b) // 2), b))
    s = (s >> 16) + (s & 0xffff)
    return ~(s + (s >> 16)) & 0xffff
s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
s.settimeout(2)
got = 0
for seq in range(1, 4):
    h = struct.pack('!BBHHH', 8, 0, 0, 0x4450, seq) + b'dpverbs-netdev!!'
    s.sendto(h[:2] + struct.pack('!H', csum(h)) + h[4:], (sys.argv[1], 0))
    end = time.time() + 2
    while time.time() < end:
        try:
            d, a = s.recvfrom(2048)
        except socket.timeout:
            break
        ihl = (d[0] & 15) * 4
        t, _, _, i, q = struct.unpack('!BBHHH', d[ihl:ihl + 8])
        if t == 0 and i == 0x4450 and q == seq and a[0] == sys.argv[1]:
            print('echo reply from %s seq %d' % (a[0], seq)); got += 1
            break
sys.exit(0 if got == 3 else 1)
PY
}
wait_file() { # $1 file, $2 pid, $3 seconds
	i=0
	while [ ! -e "$1" ] && [ $i -lt $(($3 * 10)) ] &&
		kill -0 "$2" 2>/dev/null; do
		sleep 0.1
		i=$((i + 1))
	done
	[ -e "$1" ]
}

# 1. one process, its interface, ping from the other namespace
ip netns exec "$ns1" env DPV_NETDEV_TEST_CHILD=hold DPV_CONF=/dev/null \
	DPV_IP=198.51.100.1/24,2001:db8::1/64 \
	DPV_NETDEV_TEST_READY="$work/ready" \
	DPV_NETDEV_TEST_STOP="$work/stop" \
	DPV_EAL="$eal --vdev=net_af_packet0,iface=$if1" timeout 40 "$T" &
hpid=$!
wait_file "$work/ready" $hpid 20
check "the child opened dpv0 and its GIDs name the interface" $?
ip -n "$ns1" -o addr show dev dpv0
ip -n "$ns1" -o addr show dev dpv0 | grep -q 'inet 198\.51\.100\.1/24'
check "ip addr shows 198.51.100.1/24 on dpv0" $?
mac1=$(ip -n "$ns1" -o link show dev "$if1" | sed -n 's/.*link\/ether \([0-9a-f:]*\).*/\1/p')
ip -n "$ns1" -o link show dev dpv0 | grep -q "mtu 1500 .*link/ether $mac1 .*UP\|UP.*mtu 1500 .*link/ether $mac1"
check "dpv0 is up with the port's MAC ($mac1) and MTU" $?
ping_from "$ns2" 198.51.100.1
check "ping 198.51.100.1 from $ns2" $?
ip -n "$ns1" -o addr show dev dpv0 | grep -q 'inet6 2001:db8::1/64'
check "ip addr shows 2001:db8::1/64 on dpv0" $?
if command -v ping >/dev/null 2>&1; then
	ip netns exec "$ns2" timeout 10 ping -6 -c 3 -i 0.2 -W 2 2001:db8::1
	check "ping -6 2001:db8::1 from $ns2" $?
fi
: >"$work/stop"
wait $hpid
check "child exit status ($?)" $?
i=0
while ip -n "$ns1" link show dev dpv0 >/dev/null 2>&1 && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
! ip -n "$ns1" link show dev dpv0 >/dev/null 2>&1
check "dpv0 is gone with the process" $?

# 2. RoCE between two processes with their interfaces; the TCP set-up of
# ibv_rc_pingpong goes through both
if [ -z "$PP" ]; then
	echo "no ibv_rc_pingpong: RoCE part skipped"
else
	ip -n "$ns2" addr flush dev "$if2"
	quiet "$ns2" "$if2"
	ip netns exec "$ns1" env DPV_CONF=/dev/null DPV_IP=198.51.100.1/24 \
		DPV_STATS=1 DPV_EAL="$eal --vdev=net_af_packet0,iface=$if1" \
		LD_LIBRARY_PATH="$lib" timeout 30 "$PP" -d dpv0 -g 1 -n 500 \
		>"$work/srv.out" 2>&1 &
	spid=$!
	sleep 1.5
	ip netns exec "$ns2" env DPV_CONF=/dev/null DPV_IP=198.51.100.2/24 \
		DPV_EAL="$eal --vdev=net_af_packet0,iface=$if2" \
		LD_LIBRARY_PATH="$lib" timeout 30 "$PP" -d dpv0 -g 1 -n 500 \
		198.51.100.1 >"$work/cli.out" 2>&1
	crc=$?
	wait $spid
	src=$?
	grep -v '^EAL\|^TELEMETRY' "$work/srv.out" "$work/cli.out"
	check "ibv_rc_pingpong over the netdevs (client $crc, server $src)" \
		$((crc + src))
	stats=$(grep 'dpverbs engine' "$work/srv.out")
	rxn=$(echo "$stats" | sed -n 's/.* rx_netdev=\([0-9]*\).*/\1/p')
	txn=$(echo "$stats" | sed -n 's/.* tx_netdev=\([0-9]*\).*/\1/p')
	[ -n "$rxn" ] && [ -n "$txn" ] && [ "$rxn" -gt 0 ] && [ "$rxn" -lt 200 ] &&
		[ "$txn" -gt 0 ]
	check "server: the kernel got the TCP frames, not the RoCE ones (rx_netdev=${rxn:-0}, tx_netdev=${txn:-0})" $?
fi
[ $fail = 0 ] && echo "PASS" || echo "FAIL"
exit $fail
