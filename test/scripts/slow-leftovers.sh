#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Nothing left behind: 30 pairs of unmodified ibv_rc_pingpong over memif,
# one in ten with the server SIGKILLed mid-transfer, one in ten the client,
# one in ten both (the survivor of a kill gets 15 s to end by itself, then
# SIGKILL too); the others must pass. Afterwards nothing of these processes
# may be left: no EAL runtime directory dpv<pid> under /var/run/dpdk (root)
# or ${XDG_RUNTIME_DIR:-/tmp}/dpdk, no memif socket file (each run has its
# own /tmp/dpv-left.<pid>.<n>.sock), nothing new in /dev/shm or /tmp named
# after them, no process still running. DPV_LEFTOVER_RUNS sets the number
# of pairs.
# Arguments: <build>/lib, source root, build root.
set -u
LIBDIR=${1:?usage: $0 <lib dir> <source root> <build root>}
SRC=${2:-$(dirname "$0")/../..}
. "$SRC/test/scripts/interop-common.sh"
ic_init
ic_need ibv_rc_pingpong stdbuf
RUNS=${DPV_LEFTOVER_RUNS:-30}
if [ "$(id -u)" = 0 ]; then
	BASE=/var/run/dpdk
else
	BASE=${XDG_RUNTIME_DIR:-/tmp}/dpdk
fi
TAG=dpv-left.$$
PIDS=         # every tool process started
SOCKS=        # every memif socket path used
shm0=$(ls -A /dev/shm 2>/dev/null | sort)
tmp0=$(ls -A /tmp | sort)
fails=0
kills=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }

# the tool is the process itself (env execs it): its pid is the one whose
# runtime directory is dpv<pid>
start() { # NAME ROLE SOCK TCP-PORT ITERS [PEER]
	local name=$1 role=$2 sock=$3 port=$4 n=$5 ip=192.0.2.1/24
	[ "$role" = client ] && ip=192.0.2.2/24
	LD_LIBRARY_PATH="$LIBDIR" DPV_CONF=/dev/null DPV_IP=$ip \
		DPV_EAL="$IC_EAL --vdev=net_memif0,role=$role,socket=$sock,socket-abstract=no" \
		exec stdbuf -oL ibv_rc_pingpong -d dpv0 -g 1 -p "$port" -n "$n" -s 4096 \
		${6:-} >"$IC_TMP/$name.$role" 2>&1 &
	last=$!
	PIDS="$PIDS $last"
	IC_PIDS="$IC_PIDS $last"
}

# wait_gone PID SECONDS: 0 when it ended in time
wait_gone() {
	local i
	for i in $(seq $(($2 * 10))); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.1
	done
	return 1
}

for i in $(seq 1 "$RUNS"); do
	sock=/tmp/$TAG.$i.sock
	SOCKS="$SOCKS $sock"
	port=$((20000 + ($$ * 7 + i) % 30000))
	case $((i % 10)) in
	1) kill=server ;;
	4) kill=client ;;
	7) kill=both ;;
	*) kill= ;;
	esac
	# the last pair starts after every kill: its start cleans up after them
	[ "$i" = "$RUNS" ] && kill=
	# a run to be killed goes on for long enough to be killed mid-way
	n=50
	[ -n "$kill" ] && n=1000000
	echo "$(date +%T.%N | cut -c1-12) run $i${kill:+ (kill $kill)}"
	start "r$i" server "$sock" $port $n
	spid=$last
	for _ in $(seq 100); do
		[ -S "$sock" ] && break
		kill -0 "$spid" 2>/dev/null || break
		sleep 0.1
	done
	sleep 0.2
	for try in 1 2 3 4 5; do
		start "r$i" client "$sock" $port $n 127.0.0.1
		cpid=$last
		sleep 0.5
		# the server's TCP port is not listening yet: again
		if ! kill -0 "$cpid" 2>/dev/null &&
			grep -q "Couldn't connect" "$IC_TMP/r$i.client"; then
			continue
		fi
		break
	done
	if [ -n "$kill" ]; then
		# both connected and exchanging: then kill
		for _ in $(seq 100); do
			grep -q "remote address" "$IC_TMP/r$i.client" &&
				grep -q "remote address" "$IC_TMP/r$i.server" && break
			sleep 0.1
		done
		sleep 0.3
		case $kill in
		server) kill -9 "$spid" ;;
		client) kill -9 "$cpid" ;;
		both) kill -9 "$spid" "$cpid" ;;
		esac
		kills=$((kills + 1))
		for p in $spid $cpid; do
			wait_gone "$p" 15 || {
				echo "note: run $i: pid $p still there 15 s after its peer was killed: SIGKILL"
				kill -9 "$p" 2>/dev/null
			}
		done
		wait "$spid" "$cpid" 2>/dev/null
		for r in server client; do
			echo "  $r: $(grep -v -e avx512 -e '^ *local address' -e '^ *remote address' "$IC_TMP/r$i.$r" | tail -2 | tr '\n' ' ')"
		done
		continue
	fi
	for p in $spid $cpid; do
		wait_gone "$p" 60 || { fail "run $i: pid $p still running after 60 s"; kill -9 "$p"; }
	done
	wait "$spid"
	src=$?
	wait "$cpid"
	crc=$?
	if [ $src != 0 ] || [ $crc != 0 ] ||
		! grep -Eq "[0-9]+ iters in" "$IC_TMP/r$i.client"; then
		fail "run $i: server exit $src, client exit $crc"
		tail -n 5 "$IC_TMP/r$i.server" "$IC_TMP/r$i.client" | sed 's/^/  /'
	fi
done
IC_PIDS=
echo "$RUNS runs ($kills with a SIGKILL), $(echo $PIDS | wc -w) processes"

# what they left
for p in $PIDS; do
	kill -0 "$p" 2>/dev/null && { fail "pid $p still running"; kill -9 "$p"; }
	[ -e "$BASE/dpv$p" ] && fail "left $BASE/dpv$p: $(ls -A "$BASE/dpv$p" | tr '\n' ' ')"
done
for s in $SOCKS; do
	[ -e "$s" ] && fail "left $s"
done
pidre=$(echo $PIDS | sed 's/ /|/g')
for e in $(comm -13 <(echo "$shm0") <(ls -A /dev/shm 2>/dev/null | sort)); do
	if echo "$e" | grep -Eq "$TAG|dpv|memif|rte|($pidre)"; then
		fail "left /dev/shm/$e"
	else
		echo "note: new in /dev/shm (another program's?): $e"
	fi
done
for e in $(comm -13 <(echo "$tmp0") <(ls -A /tmp | sort)); do
	[ "/tmp/$e" = "$IC_TMP" ] && continue
	echo " $SOCKS " | grep -q " /tmp/$e " && continue # said above
	echo "$e" | grep -Eq "$TAG|($pidre)" && fail "left /tmp/$e"
done
[ -d /tmp/dpdk ] && for p in $PIDS; do
	[ -e "/tmp/dpdk/dpv$p" ] && fail "left /tmp/dpdk/dpv$p"
done
echo "$fails failed"
[ $fails = 0 ]
