#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# rdma-core's unmodified ibv_rc/uc/ud/srq_pingpong between two processes,
# each with a dpverbs device on one end of a memif pair (GID index 1,
# IPv4 192.0.2.1 / 192.0.2.2), with and without completion events (-e),
# at several sizes up to 64 KiB (UD: up to the port's active MTU, 4096 on
# memif). Both ends must print their "iters in ... seconds" line. Then an
# idle process (a server waiting for its peer) must use < 10 % of a core.
# Arguments: <build>/lib, source root, build root.
set -u
LIBDIR=${1:?usage: $0 <lib dir> <source root> <build root>}
SRC=${2:-$(dirname "$0")/../..}
. "$SRC/test/scripts/interop-common.sh"
ic_init
ic_need ibv_rc_pingpong ibv_uc_pingpong ibv_ud_pingpong ibv_srq_pingpong
ic_env_memif

PAT='[0-9]+ iters in [0-9.]+ seconds'
export SPATTERN=$PAT
N=${DPV_PP_ITERS:-20}
for t in rc uc srq ud; do
	sizes="1 4096 65536"
	[ $t = ud ] && sizes="1 1024 4096"
	for s in $sizes; do
		for e in "" -e; do
			ic_pair "$t-s$s${e:+-e}" "$PAT" "" -- ibv_${t}_pingpong \
				-d dpv0 -g 1 -p $IC_TCP -n $N -s $s $e
		done
	done
done

# An idle process (a server waiting for its peer's TCP connection) must
# cost about no CPU although its progress thread answers the wire: less
# than 10 % of a core over 3 s (a spinning thread would take ~100 %).
rm -f "$IC_SOCK"
env LD_LIBRARY_PATH="$LIBDIR" DPV_CONF=/dev/null DPV_IP=192.0.2.1/24 \
	DPV_EAL="$IC_SEAL" timeout 15 ibv_rc_pingpong -d dpv0 -g 1 \
	-p $IC_TCP >/dev/null 2>&1 &
tpid=$!
IC_PIDS="$IC_PIDS $tpid"
sleep 2
child=$(pgrep -P $tpid | head -1)
hz=$(getconf CLK_TCK)
if [ -n "$child" ] && [ -r /proc/$child/stat ]; then
	t1=$(awk '{print $14 + $15}' /proc/$child/stat)
	sleep 3
	t2=$(awk '{print $14 + $15}' /proc/$child/stat)
	used=$((t2 - t1))
	if [ $used -le $((hz * 3 / 10)) ]; then
		echo "PASS idle process: $used of $((hz * 3)) CPU ticks in 3 s"
		IC_PASSES=$((IC_PASSES + 1))
	else
		echo "FAIL idle process: $used of $((hz * 3)) CPU ticks in 3 s"
		IC_FAILS=$((IC_FAILS + 1))
	fi
else
	echo "FAIL idle process: the server did not start"
	IC_FAILS=$((IC_FAILS + 1))
fi
kill $tpid 2>/dev/null
wait $tpid 2>/dev/null
ic_summary
