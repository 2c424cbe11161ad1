#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Exit without a crash (issue 12.2): short memif ibv_rc_pingpong pairs run
# back to back; every process must exit 0 (a signal at exit, as the EAL
# interrupt thread racing a cleanup from a library destructor gave in ~2 %
# of runs, fails the test). DPV_EXIT_RUNS sets the number of pairs
# (default 40 here; the documented long run uses 1000).
# Arguments: <build>/lib, source root, build root.
set -u
LIB=${1:?usage: $0 <lib dir> <source root> <build root>}
RUNS=${DPV_EXIT_RUNS:-40}
command -v ibv_rc_pingpong >/dev/null || { echo "SKIP: no ibv_rc_pingpong"; exit 77; }
TMP=$(mktemp -d /tmp/dpv-exit.XXXXXX) || exit 1
trap 'kill -9 $(jobs -p) 2>/dev/null; wait 2>/dev/null; rm -rf "$TMP"' EXIT
SOCK=$TMP/memif.sock
eal() {
	echo "--no-huge --no-pci --no-shconf -m 128 --log-level=lib.eal:error --vdev=net_memif0,role=$1,socket=$SOCK,socket-abstract=no"
}
bad=0
ok=0
t0=$(date +%s)
busy=0
i=0
while [ $i -lt "$RUNS" ]; do
	i=$((i + 1))
	port=$((20000 + ($$ + i + 7919 * busy) % 20000))
	rm -f "$SOCK"
	DPV_CONF=/dev/null DPV_EAL="$(eal server)" DPV_IP=192.0.2.1/24 \
		LD_LIBRARY_PATH=$LIB timeout 30 ibv_rc_pingpong -d dpv0 -g 1 \
		-p $port -n 5 >"$TMP/s.out" 2>&1 &
	s=$!
	# the client connects once the server listens (at most 5 s)
	for k in $(seq 1 100); do
		ss -Hltn "sport = :$port" 2>/dev/null | grep -q . && break
		sleep 0.05
	done
	DPV_CONF=/dev/null DPV_EAL="$(eal client)" DPV_IP=192.0.2.2/24 \
		LD_LIBRARY_PATH=$LIB timeout 30 ibv_rc_pingpong -d dpv0 -g 1 \
		-p $port -n 5 127.0.0.1 >"$TMP/c.out" 2>&1
	rc=$?
	wait $s
	rs=$?
	# another test's socket on the TCP port of the pingpong's exchange
	# (the suites run two tests at once): not an exit; that pair again,
	# on another port (a few times at most)
	if [ $rs != 0 ] && grep -q "Couldn't listen to port" "$TMP/s.out" &&
		[ $busy -lt 5 ]; then
		busy=$((busy + 1))
		echo "run $i: port $port in use, again on another"
		i=$((i - 1))
		continue
	fi
	if [ $rs != 0 ] || [ $rc != 0 ]; then
		bad=$((bad + 1))
		echo "run $i: server exit $rs, client exit $rc"
		tail -n 3 "$TMP/s.out" "$TMP/c.out"
	else
		ok=$((ok + 1))
	fi
	# bound the whole loop in time as well as in count
	# (a pair retried for a busy port may have waited for its 30 s timeout)
	[ $(($(date +%s) - t0)) -gt $((RUNS * 10 + busy * 35)) ] && { echo "time limit"; bad=$((bad + 1)); break; }
done
echo "exit loop: $ok clean pairs, $bad with a failure or a signal, $RUNS asked"
[ $bad = 0 ] && [ $ok = "$RUNS" ]
