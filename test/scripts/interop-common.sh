# SPDX-License-Identifier: BSD-3-Clause
# Shared by the interop scripts (sourced, not a test by itself): run an
# unmodified verbs tool as a server and a client, two processes, each
# with its own dpverbs device on one end of a memif pair or of a veth pair
# between two network namespaces. Every process is bounded by timeout(1)
# and killed on exit; sockets, namespaces and temporary files are removed.
#
# The caller sets LIBDIR and sources this file, then calls ic_init.

IC_TMP=
IC_PIDS=
IC_NS1=
IC_NS2=
IC_FAILS=0
IC_PASSES=0
# TCP port of the tools' own connection set-up (unique per script run)
IC_TCP=$((20000 + $$ % 20000))
IC_EAL="--no-huge --no-pci -m 512 --no-shconf"
# how long one tool may run (seconds)
IC_TIMEOUT=${IC_TIMEOUT:-25}

ic_cleanup() {
	for w in $IC_WATCHERS; do
		kill "${w#*:}" 2>/dev/null
	done
	for p in $IC_PIDS; do
		kill "$p" 2>/dev/null
	done
	for p in $IC_PIDS; do
		wait "$p" 2>/dev/null
	done
	[ -n "$IC_NS1" ] && ip netns del "$IC_NS1" 2>/dev/null
	[ -n "$IC_NS2" ] && ip netns del "$IC_NS2" 2>/dev/null
	[ -n "$IC_TMP" ] && rm -rf "$IC_TMP"
}

# ic_rundirs_rm PREFIX...: remove EAL's runtime directories of these
# --file-prefix values (EAL leaves them when a process is killed; the
# library cleans only its own dpv<pid> ones).
ic_rundirs_rm() {
	local b=/var/run/dpdk p
	[ "$(id -u)" = 0 ] || b=${XDG_RUNTIME_DIR:-/tmp}/dpdk
	for p in "$@"; do rm -rf "${b:?}/$p"; done
}

ic_init() {
	command -v timeout >/dev/null 2>&1 || { echo "SKIP: no timeout"; exit 77; }
	[ -e "$LIBDIR/libibverbs.so.1" ] ||
		{ echo "FAIL: no $LIBDIR/libibverbs.so.1"; exit 1; }
	IC_TMP=$(mktemp -d /tmp/dpv-interop.XXXXXX) || exit 1
	trap ic_cleanup EXIT
	trap 'exit 1' INT TERM
}

# ic_cm_peer NAME: PEER=$BUILD/test/NAME, one of the test programs built on
# librdmacm (skip without it: the build left it out), and this build's
# librdmacm.so.1 beside libibverbs (a failure without it).
ic_cm_peer() {
	PEER=$BUILD/test/$1
	[ -x "$PEER" ] || { echo "SKIP: no $PEER (no librdmacm)"; exit 77; }
	[ -e "$LIBDIR/librdmacm.so.1" ] ||
		{ echo "FAIL: no librdmacm.so.1"; exit 1; }
}

ic_need() {
	for t in "$@"; do
		command -v "$t" >/dev/null 2>&1 ||
			{ echo "SKIP: $t not installed"; exit 77; }
	done
}

# Create two namespaces joined by a veth pair (needs root).
ic_veth_init() {
	[ "$(id -u)" = 0 ] || { echo "SKIP: needs root"; exit 77; }
	ic_need ip
	IC_NS1=dpvic$$a
	IC_NS2=dpvic$$b
	IC_IF1=dpvica$$
	IC_IF2=dpvicb$$
	ip netns add "$IC_NS1" || { echo "SKIP: netns"; IC_NS1=; exit 77; }
	ip netns add "$IC_NS2" || { echo "SKIP: netns"; IC_NS2=; exit 77; }
	ip link add "$IC_IF1" type veth peer name "$IC_IF2" ||
		{ echo "SKIP: veth"; exit 77; }
	ip link set "$IC_IF1" netns "$IC_NS1"
	ip link set "$IC_IF2" netns "$IC_NS2"
	ip -n "$IC_NS1" link set "$IC_IF1" mtu "${1:-1500}" up
	ip -n "$IC_NS2" link set "$IC_IF2" mtu "${1:-1500}" up
	# the tools' TCP set-up goes over a second pair the kernel owns
	# (af_xdp takes every frame of its interface)
	ip link add "${IC_IF1}c" type veth peer name "${IC_IF2}c" ||
		{ echo "SKIP: veth"; exit 77; }
	ip link set "${IC_IF1}c" netns "$IC_NS1"
	ip link set "${IC_IF2}c" netns "$IC_NS2"
	ip -n "$IC_NS1" addr add 198.51.100.1/24 dev "${IC_IF1}c"
	ip -n "$IC_NS2" addr add 198.51.100.2/24 dev "${IC_IF2}c"
	ip -n "$IC_NS1" link set "${IC_IF1}c" up
	ip -n "$IC_NS2" link set "${IC_IF2}c" up
	ip -n "$IC_NS1" link set lo up
	ip -n "$IC_NS2" link set lo up
}

# Environment of both ends. memif: ic_env_memif; veth: ic_env_veth KIND
# (af_packet or af_xdp). Sets IC_SEAL / IC_CEAL (DPV_EAL of each end) and
# IC_SPRE / IC_CPRE (command prefix: ip netns exec ...).
ic_env_memif() {
	local sock=$IC_TMP/memif.sock
	IC_SOCK=$sock
	IC_PEER=127.0.0.1
	IC_CONF=/dev/null
	IC_SEAL="$IC_EAL --vdev=net_memif0,role=server,socket=$sock,socket-abstract=no"
	IC_CEAL="$IC_EAL --vdev=net_memif0,role=client,socket=$sock,socket-abstract=no"
	IC_SPRE=
	IC_CPRE=
}

ic_env_veth() {
	local v1 v2
	IC_CONF=/dev/null
	case $1 in
	af_packet)
		# af_packet's 4224-byte frames need mbufs that large
		IC_CONF=$IC_TMP/af_packet.conf
		printf '[dpv0]\nmbuf_size = 4480\n' >"$IC_CONF"
		v1="net_af_packet0,iface=$IC_IF1,blocksz=135168,framesz=4224,framecnt=2048"
		v2="net_af_packet0,iface=$IC_IF2,blocksz=135168,framesz=4224,framecnt=2048"
		;;
	af_xdp)
		v1="net_af_xdp0,iface=$IC_IF1,start_queue=0,queue_count=1"
		v2="net_af_xdp0,iface=$IC_IF2,start_queue=0,queue_count=1"
		;;
	esac
	IC_SOCK=
	IC_PEER=198.51.100.1
	IC_SEAL="$IC_EAL --vdev=$v1"
	IC_CEAL="$IC_EAL --vdev=$v2"
	IC_SPRE="ip netns exec $IC_NS1"
	IC_CPRE="ip netns exec $IC_NS2"
}

# ic_run NAME "server command" "client command" CLIENT_PATTERN
# SERVER_PATTERN: each command (split into words) under stdbuf -oL as the
# server, then the client (ic_server_start, ic_client_run: IC_XENV and
# the rest apply); both must exit 0 and their outputs match their
# patterns. Counted as a pass (the client's last matching line shown) or
# a failure; 0 on a pass.
ic_run() {
	local name=$1 scmd=$2 ccmd=$3 cpat=$4 spat=$5 crc src
	ic_server_start "$name" stdbuf -oL $scmd
	ic_client_run "$name" stdbuf -oL $ccmd
	crc=$?
	ic_server_wait
	src=$?
	if [ $crc = 0 ] && [ $src = 0 ] &&
		grep -Eq "$cpat" "$IC_TMP/$name.client" &&
		grep -Eq "$spat" "$IC_TMP/$name.server"; then
		IC_PASSES=$((IC_PASSES + 1))
		echo "PASS $name: $(grep -E "$cpat" "$IC_TMP/$name.client" |
			tail -1)"
		return 0
	fi
	ic_fail "$name" $crc $src
	return 1
}

# ic_pair NAME PATTERN EXTRA_ENV -- TOOL ARGS...
# Runs TOOL ARGS as the server, then TOOL ARGS PEER as the client
# (retried up to three times while the server is not listening yet).
# Both must exit 0 and the client's output must match the extended regex
# PATTERN (and the server's too when SPATTERN is set in the environment).
# Output: $IC_TMP/NAME.server / .client.
#
# One case is run once more: a perftest latency tool whose client could
# not calibrate its CPU clock ("Correlation coefficient r^2: ... < 0.9"
# on a loaded host) prints "inf" for every figure, which PATTERN then
# does not match. That is perftest's clock, not the transport: the pair
# runs again (once, noted in the output) and only that run counts. A
# transport failure (either end exiting non-zero) is never retried.
ic_pair() {
	local name=$1 pat=$2
	ic_pair_once "$@" && return 0
	[ "$IC_PAIR_CRC" = 0 ] && [ "$IC_PAIR_SRC" = 0 ] &&
		grep -q 'Correlation coefficient r^2: .* < 0.9' \
			"$IC_TMP/$name.client" &&
		! grep -Eq "$pat" "$IC_TMP/$name.client" || {
		ic_fail "$name" "$IC_PAIR_CRC" "$IC_PAIR_SRC" 80
		return 1
	}
	echo "NOTE $name: perftest's clock calibration failed in the" \
		"client (r^2 < 0.9, figures inf); run once more"
	ic_pair_once "$@" && return 0
	ic_fail "$name" "$IC_PAIR_CRC" "$IC_PAIR_SRC" 80
	return 1
}

# ic_pair_once: one run of ic_pair's pair; counts a pass (0), or returns 1
# with the exit codes in IC_PAIR_CRC and IC_PAIR_SRC and counts nothing.
ic_pair_once() {
	local name=$1 pat=$2 extra=$3 s c crc src try
	shift 4
	s=$IC_TMP/$name.server
	c=$IC_TMP/$name.client
	IC_XENV=$extra ic_server_start "$name" "$@"
	for try in 1 2 3; do
		IC_XENV=$extra ic_client_run "$name" "$@" "$IC_PEER"
		crc=$?
		# the server does not listen yet (TCP, or memif between its
		# bind() and listen())
		grep -Eq "Couldn't connect to|Failed to connect socket" "$c" ||
			break
		kill -0 "$IC_SPID" 2>/dev/null || break
		sleep 0.5
	done
	ic_server_wait
	src=$?
	if [ $crc = 0 ] && [ $src = 0 ] && grep -Eq "$pat" "$c" &&
		{ [ -z "${SPATTERN:-}" ] || grep -Eq "$SPATTERN" "$s"; }; then
		IC_PASSES=$((IC_PASSES + 1))
		echo "PASS $name: $(grep -E "$pat" "$c" | tail -1 | tr -s ' \t' ' ')"
		return 0
	fi
	IC_PAIR_CRC=$crc IC_PAIR_SRC=$src
	return 1
}

# ic_server_start NAME CMD...: CMD as the server end (192.0.2.1, DPV_EAL
# $IC_SEAL, behind the command prefix $IC_SPRE, the words of $IC_XENV
# added to its environment), output in $IC_TMP/NAME.server. Returns once
# the memif socket is there (or the server died) and half a second more
# (0.8 s without a socket to wait for); its pid in IC_SPID.
ic_server_start() {
	local name=$1
	shift
	[ -n "$IC_SOCK" ] && rm -f "$IC_SOCK"
	${IC_SPRE:-} env LD_LIBRARY_PATH="$LIBDIR" DPV_CONF="$IC_CONF" \
		DPV_IP=192.0.2.1/24 DPV_EAL="$IC_SEAL" ${IC_XENV:-} \
		timeout "$IC_TIMEOUT" "$@" >"$IC_TMP/$name.server" 2>&1 &
	IC_SPID=$!
	IC_PIDS="$IC_PIDS $IC_SPID"
	ic_watch "$IC_SPID" "$IC_TMP/$name.server"
	# the memif client can only start once the server made the socket
	for _ in $(seq 100); do
		{ [ -z "$IC_SOCK" ] || [ -S "$IC_SOCK" ]; } && break
		kill -0 "$IC_SPID" 2>/dev/null || break
		sleep 0.1
	done
	sleep 0.5
	[ -z "$IC_SOCK" ] && sleep 0.3
}

# ic_client_run NAME CMD...: CMD as the client end (192.0.2.2, $IC_CEAL,
# behind $IC_CPRE, the words of $IC_XENV and $IC_CXENV), output in
# $IC_TMP/NAME.client; returns its exit code.
ic_client_run() {
	local name=$1 pid rc
	shift
	${IC_CPRE:-} env LD_LIBRARY_PATH="$LIBDIR" DPV_CONF="$IC_CONF" \
		DPV_IP=192.0.2.2/24 DPV_EAL="$IC_CEAL" ${IC_XENV:-} \
		${IC_CXENV:-} timeout "$IC_TIMEOUT" "$@" \
		>"$IC_TMP/$name.client" 2>&1 &
	pid=$!
	IC_PIDS="$IC_PIDS $pid" # ic_cleanup ends it if the script ends first
	ic_watch "$pid" "$IC_TMP/$name.client"
	wait "$pid"
	rc=$?
	ic_forget "$pid"
	return $rc
}

# ic_watch PID LOG: when timeout(1) (PID) is about to end its tool for
# running too long (IC_TIMEOUT less IC_STACKS_LEAD seconds), every
# thread's stack of the tool goes to LOG.stacks (gdb, where installed;
# ic_fail shows them), and the state of its engines (engine-state.gdb):
# a hang in CI then says where it stopped. The watcher ends with PID
# (ic_unwatch, or ic_cleanup).
IC_WATCHERS=
IC_STACKS_LEAD=${IC_STACKS_LEAD:-4}
IC_STATE_GDB=$(dirname "${BASH_SOURCE[0]}")/engine-state.gdb
ic_watch() {
	local tpid=$1 log=$2 at=$((IC_TIMEOUT - IC_STACKS_LEAD))
	command -v gdb >/dev/null 2>&1 || return 0
	[ "$at" -ge 5 ] || return 0
	(
		trap 'kill $! 2>/dev/null; exit 0' TERM
		sleep "$at" &
		wait $!
		for c in $(pgrep -P "$tpid"); do
			echo "--- stacks of $(cat /proc/$c/comm 2>/dev/null)" \
				"($c) after ${at}s:"
			timeout 20 gdb -p "$c" -batch -nx \
				-ex "thread apply all bt 12" 2>&1 |
				grep -E '^(Thread|#)'
			# and its engines' state (engine-state.gdb)
			[ -r "$IC_STATE_GDB" ] &&
				timeout 20 gdb -p "$c" -batch -nx \
					-x "$IC_STATE_GDB" 2>&1 |
				grep -E '^ *(device|progress|engine|qp) '
		done >>"$log.stacks"
	) </dev/null >/dev/null 2>&1 &
	IC_WATCHERS="$IC_WATCHERS $tpid:$!"
}

# ic_unwatch PID: ends the watcher of PID (ic_watch).
ic_unwatch() {
	local w
	for w in $IC_WATCHERS; do
		[ "${w%%:*}" = "$1" ] || continue
		kill "${w#*:}" 2>/dev/null
		wait "${w#*:}" 2>/dev/null
	done
	IC_WATCHERS=$(echo "$IC_WATCHERS" | sed "s/ $1:[0-9]*//")
}

# ic_forget PID: a process waited for is no longer watched (ic_unwatch)
# nor killed by ic_cleanup.
ic_forget() {
	ic_unwatch "$1"
	IC_PIDS=$(echo "$IC_PIDS" | sed "s/ $1\b//")
}

# ic_server_wait [kill]: waits for the server ic_server_start started
# (killed first with "kill") and returns its exit code.
ic_server_wait() {
	local rc
	[ "${1:-}" = kill ] && kill "$IC_SPID" 2>/dev/null
	wait "$IC_SPID"
	rc=$?
	ic_forget "$IC_SPID"
	return $rc
}

# ic_fail NAME CLIENT_RC SERVER_RC [LINES]: counts a failure and shows the
# last LINES (8) lines of both outputs.
ic_fail() {
	IC_FAILS=$((IC_FAILS + 1))
	echo "FAIL $1 (client exit $2, server exit $3)"
	echo "  --- server:"; grep -v avx512 "$IC_TMP/$1.server" |
		tail -"${4:-8}" | sed 's/^/  /'
	echo "  --- client:"; grep -v avx512 "$IC_TMP/$1.client" |
		tail -"${4:-8}" | sed 's/^/  /'
	for f in "$IC_TMP/$1.server.stacks" "$IC_TMP/$1.client.stacks"; do
		[ -s "$f" ] && head -150 "$f" | sed 's/^/  /'
	done
}

# ic_ran N CLIENT_RC SERVER_RC CLIENT_LOG: an event-driven ping-pong
# (dpv-event-peer, N round trips) ran: both ends exited 0 and the client
# printed its round trips (IC_LINE; 1 otherwise).
ic_ran() {
	IC_LINE=$(grep -E "^round trips $1 median [0-9.]+ us" "$4")
	[ "$2" = 0 ] && [ "$3" = 0 ] && [ -n "$IC_LINE" ]
}

# ic_woken NAME N CLIENT_RC SERVER_RC CLIENT_LOG SERVER_LOG [ALSO]: the
# check of an event-driven ping-pong (dpv-event-peer, N round trips) whose
# server must be woken by the client's frames: it ran (ic_ran; its round
# trips shown), and the server's wake_taken (DPV_STATS), plus its counter
# ALSO if given, is at least N / 2; counted as a pass or a failure.
ic_woken() {
	local name=$1 n=$2 crc=$3 src=$4 clog=$5 slog=$6 also=${7:-} taken hot
	if ! ic_ran "$n" "$crc" "$src" "$clog"; then
		IC_FAILS=$((IC_FAILS + 1))
		echo "FAIL $name (ping-pong client exit $crc, server exit $src)"
		grep -v avx512 "$clog" | tail -8 | sed 's/^/  client: /'
		grep -v avx512 "$slog" | tail -8 | sed 's/^/  server: /'
		return
	fi
	echo "$name: $IC_LINE"
	taken=$(grep -o "wake_taken=[0-9]*" "$slog" | cut -d= -f2)
	taken=${taken:-0}
	echo "$name: server $(grep -o 'wake_sleeps=.*' "$slog")"
	hot=0
	if [ -n "$also" ]; then
		hot=$(grep -o "$also=[0-9]*" "$slog" | cut -d= -f2)
		hot=${hot:-0}
		echo "$name: server $also=$hot"
	fi
	if [ $((taken + hot)) -lt $((n / 2)) ]; then
		echo "FAIL $name: the server's thread was woken by $taken of" \
			"$n pings${also:+, $also $hot}"
		IC_FAILS=$((IC_FAILS + 1))
	else
		IC_PASSES=$((IC_PASSES + 1))
		echo "PASS $name: $taken of $n pings woke the server's" \
			"thread${also:+, $also $hot}"
	fi
}

ic_summary() {
	echo "$IC_PASSES passed, $IC_FAILS failed"
	[ $IC_FAILS = 0 ] && [ $IC_PASSES -gt 0 ]
}
