#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The configuration surface through the real entry point: rdma-core's
# unmodified ibv_devinfo on our libibverbs.so.1, which brings EAL up
# itself. Checks the default loopback device, DPV_IP -> GID table, a
# configuration file, and the clear errors for a missing --no-huge and a
# bad file. Arguments: <build>/lib, source root, build root.
set -u
lib=$1
command -v ibv_devinfo >/dev/null 2>&1 || { echo "skip: no ibv_devinfo"; exit 77; }
[ -e "$lib/libibverbs.so.1" ] || { echo "skip: no $lib/libibverbs.so.1"; exit 77; }
tmp=$(mktemp -d /tmp/dpv-port-devinfo.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
fail=0
check() { # $1 description, $2 file, $3 pattern that must be in it
	if grep -q -- "$3" "$2"; then
		echo "ok: $1"
	else
		echo "FAILED: $1 (no '$3' in output:)"; cat "$2"; fail=1
	fi
}
devinfo() {
	env -u DPV_EAL -u DPV_IP DPV_CONF=/dev/null LD_LIBRARY_PATH="$lib" \
		"$@" timeout 30 ibv_devinfo -v >"$tmp/out" 2>&1
}

devinfo env
check "default device dpv0" "$tmp/out" "hca_id:.*dpv0"
check "loopback port is active" "$tmp/out" "PORT_ACTIVE"
check "loopback address 127.0.0.1" "$tmp/out" "GID\[  1\]:.*::ffff:127.0.0.1"

devinfo env DPV_IP=192.0.2.1/24,2001:db8::1/64
check "DPV_IP IPv4 at GID 1" "$tmp/out" "GID\[  1\]:.*::ffff:192.0.2.1"
check "DPV_IP IPv6 at GID 2" "$tmp/out" "GID\[  2\]:.*2001:db8::1"

cat >"$tmp/two.conf" <<'CONF'
[dpv0]
port = loopback
ip = 198.51.100.1/24
mac = 02:00:00:00:aa:01
[dpv1]
port = loopback
ip = 203.0.113.1/24
CONF
devinfo env DPV_CONF="$tmp/two.conf"
check "file: second device" "$tmp/out" "hca_id:.*dpv1"
check "file: MAC-derived GID 0" "$tmp/out" "GID\[  0\]:.*fe80::ff:fe00:aa01"
check "file: dpv1 address" "$tmp/out" "::ffff:203.0.113.1"

if [ "$(awk '/HugePages_Free/ {print $2}' /proc/meminfo)" = 0 ]; then
	devinfo env DPV_EAL="--no-pci -m 64"
	check "missing --no-huge explained" "$tmp/out" "lack --no-huge"
fi

printf '[dpv0]\nmtu = 20\n' >"$tmp/bad.conf"
devinfo env DPV_CONF="$tmp/bad.conf"
check "bad file explained" "$tmp/out" "\[dpv0\] mtu = 20: want a number"

devinfo env DPV_IP=192.0.2.1/99
check "bad DPV_IP explained" "$tmp/out" "DPV_IP=192.0.2.1/99"

[ $fail = 0 ] && echo PASS || echo FAIL
exit $fail
