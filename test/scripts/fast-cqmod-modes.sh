#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# CQ moderation (ibv_modify_cq, IBV_CQ_ATTR_MODERATE) in every progress mode:
# dpv-cqmod-modes runs the scenarios of verbs_cqmod_autotest (a count, a
# period with no more traffic, a solicited-only arm, moderation off) on
# the loopback device the library starts itself, with a progress thread,
# with application-driven progress, with a worker lcore, with two shards
# (the pair's QPs on both, so both write the CQ: a shared CQ) driven by a
# thread and by two worker lcores, and with mlx4 rings. Every run must pass
# in the mode it asked for.
# Usage: fast-cqmod-modes.sh <lib dir> <source root> <build root>
set -u
LIB=${1:?usage: $0 <lib dir> <source root> <build root>}
BUILD=${3:?usage: $0 <lib dir> <source root> <build root>}
EXE=$BUILD/test/dpv-cqmod-modes
[ -x "$EXE" ] || { echo "SKIP: $EXE not built"; exit 77; }
TMP=$(mktemp -d /tmp/dpv-cqmod.XXXXXX) || exit 1
trap 'rm -rf "$TMP"' EXIT

# run NAME PROGRESS(0 app, 1 thread, 2 worker) CONF-LINES [env...]
fail=0
run() {
	local name=$1 want=$2 out=$TMP/$1.out s
	printf "$3" >"$TMP/$name.conf"
	shift 3
	env DPV_CONF="$TMP/$name.conf" LD_LIBRARY_PATH="$LIB" \
		DPV_EAL="--no-huge --no-pci --no-shconf -m 256 --log-level=lib.eal:error --log-level=dpv.verbs:info" \
		"$@" timeout 60 "$EXE" >"$out" 2>&1
	s=$?
	if [ $s != 0 ] || ! grep -q "^RESULT cqmod progress=$want failed=0" "$out"; then
		echo "FAIL $name: exit $s"
		cat "$out"
		fail=1
		return
	fi
	echo "PASS $name: $(grep -c '^cqmod: period' "$out") periods," \
		"$(grep -o 'event [0-9]* us' "$out" | tr '\n' ' ')"
}

run thread 1 '' DPV_PROGRESS=thread
run app 0 '' DPV_PROGRESS=app
run worker 2 '[dpverbs]\nworkers = 1\n' DPV_PROGRESS=
run shards-thread 1 '[dpverbs]\nshards = 2\n' DPV_PROGRESS=thread
run shards-workers 2 '[dpverbs]\nshards = 2\nworkers = 2\n' DPV_PROGRESS=
run mlx4 1 '[dpv0]\nport = loopback\nrings = mlx4\n' DPV_PROGRESS=thread
for n in shards-thread shards-workers; do
	if [ -e "$TMP/$n.out" ] && ! grep -q 'dpv0: 2 engine shards' "$TMP/$n.out"; then
		echo "FAIL $n: the device did not get 2 shards"
		fail=1
	fi
done
exit $fail
