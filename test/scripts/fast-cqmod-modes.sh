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
. "$(dirname "$0")/progress-modes.sh"
modes_setup "$BUILD" dpv-cqmod-modes cqmod

# run NAME PROGRESS(0 app, 1 thread, 2 worker) CONF-LINES [env...]
run() {
	run_mode "$@" || return
	echo "PASS $1: $(grep -c '^cqmod: period' "$TMP/$1.out") periods," \
		"$(grep -o 'event [0-9]* us' "$TMP/$1.out" | tr '\n' ' ')"
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
