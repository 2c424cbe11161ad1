#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Application threads that drive an engine get an lcore id of their own
# (the mbuf pools' per-lcore caches then serve them), and give it back when
# they exit: dpv-app-lcore runs three times as many threads as EAL has
# lcore ids, one after another, on the loopback device the library starts
# with no configuration; with DPV_APP_LCORE=0 none gets one, nor when a
# worker lcore runs the device ([dpverbs] workers = 1).
# Arguments: <build>/lib, source root, build root.
set -u
LIB=${1:?usage: $0 <lib dir> <source root> <build root>}
BUILD=${3:?}
EXE=$BUILD/test/dpv-app-lcore
[ -x "$EXE" ] || { echo "SKIP: $EXE not built"; exit 77; }
fail=0
run() { # expect, then env assignments
	local want=$1; shift
	out=$(env DPV_CONF=/dev/null LD_LIBRARY_PATH="$LIB" \
		DPV_EAL="--no-huge --no-pci --no-shconf -m 128 --log-level=lib.eal:error" \
		"$@" timeout 60 "$EXE" "$want" 2>&1)
	rc=$?
	echo "$out" | grep -E "RESULT|thread|fail|no device" | head -8
	if [ $rc != 0 ] || ! echo "$out" | grep -q "RESULT app_lcore expect=$want .* bad=0"; then
		echo "FAIL: expect=$want exit $rc"
		fail=1
	fi
}
run on DPV_PROGRESS=thread
run on DPV_PROGRESS=app
run off DPV_APP_LCORE=0
# a worker lcore runs the device: application calls do not drive it
TMP=$(mktemp -d /tmp/dpv-app-lcore.XXXXXX) || exit 1
trap 'rm -rf "$TMP"' EXIT
# (DPV_EAL below replaces the file's [eal] args: the file holds only this)
printf '[dpverbs]\nworkers = 1\n' >"$TMP/w.conf"
run off DPV_CONF="$TMP/w.conf" DPV_PROGRESS= \
	DPV_EAL="--no-huge --no-pci --no-shconf -m 256 --log-level=lib.eal:error --log-level=dpv.verbs:info"
if ! echo "$out" | grep -q "engine runs on worker lcore"; then
	echo "FAIL: no worker lcore ran the device"
	fail=1
fi
[ $fail = 0 ] && echo "app-lcore: ok"
exit $fail
