#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Unmodified rping (100 validated pings) and ucmatose through our
# librdmacm.so.1 between two network namespaces joined by a veth pair,
# each end's dpverbs device on af_packet (192.0.2.1 / 192.0.2.2); the CM's
# ARP and MADs cross the veth. Needs root (skips otherwise).
# Arguments: <build>/lib, source root, build root.
set -u
LIBDIR=${1:?usage: $0 <lib dir> <source root> <build root>}
SRC=${2:-$(dirname "$0")/../..}
. "$SRC/test/scripts/interop-common.sh"
ic_init
ic_need rping ucmatose
ic_veth_init
ic_env_veth af_packet
IC_TIMEOUT=${IC_TIMEOUT:-40}

# pair NAME "server args" "client args" CLIENT_PATTERN (tool in $TOOL)
pair() {
	local name=$1 s=$IC_TMP/$1.server c=$IC_TMP/$1.client spid crc src
	$IC_SPRE env LD_LIBRARY_PATH="$LIBDIR" DPV_CONF="$IC_CONF" \
		DPV_IP=192.0.2.1/24 DPV_EAL="$IC_SEAL" timeout "$IC_TIMEOUT" \
		stdbuf -oL $TOOL $2 >"$s" 2>&1 &
	spid=$!
	IC_PIDS="$IC_PIDS $spid"
	sleep 2 # EAL and the listener
	$IC_CPRE env LD_LIBRARY_PATH="$LIBDIR" DPV_CONF="$IC_CONF" \
		DPV_IP=192.0.2.2/24 DPV_EAL="$IC_CEAL" timeout "$IC_TIMEOUT" \
		stdbuf -oL $TOOL $3 >"$c" 2>&1
	crc=$?
	wait "$spid"
	src=$?
	ic_forget "$spid"
	if [ $crc = 0 ] && [ $src = 0 ] && grep -Eq "$4" "$c"; then
		IC_PASSES=$((IC_PASSES + 1))
		echo "PASS $name: $(grep -E "$4" "$c" | tail -1 | cut -c1-60)"
		return 0
	fi
	IC_FAILS=$((IC_FAILS + 1))
	echo "FAIL $name (client exit $crc, server exit $src)"
	echo "  --- server:"; grep -v avx512 "$s" | tail -8 | sed 's/^/  /'
	echo "  --- client:"; grep -v avx512 "$c" | tail -8 | sed 's/^/  /'
}

TOOL=rping pair rping "-s -a 192.0.2.1 -V" \
	"-c -a 192.0.2.1 -v -V -C 100" "rdma-ping-99: "
TOOL=ucmatose pair ucmatose "-b 192.0.2.1 -C 20" "-s 192.0.2.1 -C 20" \
	"return status 0"
ic_summary
