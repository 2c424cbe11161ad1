#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# rsockets (SOCK_STREAM) of our librdmacm.so.1 between two processes
# joined by memif (192.0.2.1 / 192.0.2.2): dpv-rsocket-peer streams
# 8 MiB in random chunk sizes checking every byte, half-close, EOF,
# rpoll readiness over rsockets and a pipe, non-blocking connect; a peer
# that dies must give EPIPE / ECONNRESET, to a sender and to a receiver
# waiting with nothing in flight; riomap / riowrite both ways (bytes at
# their offsets, bad offsets refused, an entry moved by riounmap and
# riomap); rclose() of sockets other threads wait on (every wait ends);
# a stalled handshake that holds up no one else; a hostile peer's
# oversized message; datagram rsockets
# (dpv-rsocket-dgram); then unmodified rstream and riostream
# (rdmacm-utils) server and client for a few sizes, with verification,
# and udpong (datagrams).
# Arguments: <build>/lib, source root, build root.
set -u
LIBDIR=${1:?usage: $0 <lib dir> <source root> <build root>}
SRC=${2:-$(dirname "$0")/../..}
BUILD=${3:-$SRC/build}
. "$SRC/test/scripts/interop-common.sh"
ic_init
ic_need stdbuf
ic_env_memif
PEER=$BUILD/test/dpv-rsocket-peer
[ -x "$PEER" ] || { echo "FAIL: no $PEER"; exit 1; }
[ -e "$LIBDIR/librdmacm.so.1" ] || { echo "FAIL: no librdmacm.so.1"; exit 1; }
# interop-common.sh set 25 s unless the caller chose; a tool's own
# series (many connections) takes up to ~15 s alone, more beside a loaded
# neighbour test: it gets SERIES_TIMEOUT
SERIES_TIMEOUT=${SERIES_TIMEOUT:-60}
PORT=$((20000 + $$ % 20000))

# two_cpus: the first two CPUs this script may run on ("0 1"), or
# nothing (one CPU, or no taskset)
two_cpus() {
	local c out=
	command -v taskset >/dev/null || return 0
	for c in $(seq 0 1023); do
		taskset -c "$c" true 2>/dev/null || continue
		[ -n "$out" ] && { echo "$out $c"; return 0; }
		out=$c
	done
}
# Each process runs pinned to a CPU of its own where there are two, as
# DPDK programs are. The tools' latency runs wait in both processes at
# once (riostream spins on memory, rstream in rrecv), and each message
# lands when the receiver's progress thread gets a CPU: pinned, the
# thread wakes on the CPU where its own application waits. On a 2-vCPU
# PVM guest riostream's series took 15 s so, alone and beside a CPU hog,
# against ~30 s and over 8 minutes unpinned; rstream's series did not
# end within its 60 s beside the hog unpinned.
read -r CPU_S CPU_C < <(two_cpus)
if [ -n "${CPU_C:-}" ]; then
	IC_SPRE="taskset -c $CPU_S"
	IC_CPRE="taskset -c $CPU_C"
	echo "server on CPU $CPU_S, client on CPU $CPU_C"
fi


ic_run stream "$PEER server 192.0.2.1 $PORT 8" "$PEER client 192.0.2.1 $PORT 8" \
	"got the 1 MiB answer and EOF" "all correct, then EOF"
ic_run dead "$PEER server 192.0.2.1 $PORT 0 dead" \
	"$PEER client 192.0.2.1 $PORT 0 dead" "dead peer: " "dying"
# a survivor blocked in rrecv with nothing in flight: the library's probe
# of a silent peer ends it (ACK timeout 18 and 7 retries: ~10 s)
ic_run deadwait "$PEER server 192.0.2.1 $PORT 0 dead" \
	"$PEER client 192.0.2.1 $PORT 0 deadwait" \
	"dead peer while receiving: " "dying"
ic_run iomap "$PEER server 192.0.2.1 $PORT 0 iomap" \
	"$PEER client 192.0.2.1 $PORT 0 iomap" \
	"iomap both ways: every byte where it belongs" \
	"the entry moved to the new buffer"
# rclose() of a socket other threads wait on (rrecv, rsend; then a
# listener in raccept): every wait ends, nothing touches the freed socket
ic_run closewait "$PEER server 192.0.2.1 $PORT 0 closewait" \
	"$PEER client 192.0.2.1 $PORT 0 closewait" \
	"closewait client: .* then the end" \
	"closewait: raccept gave EBADF; server done"
# a client that never finishes its handshake: the listener's other
# callers (here rpoll) go on meanwhile, and a raccept asleep on the
# listener is woken for a request another thread's rpoll took in
ic_run acceptwait "$PEER server 192.0.2.1 $PORT 0 acceptwait" \
	"$PEER client 192.0.2.1 $PORT 0 acceptwait" \
	"stall client: gave up" "acceptwait: raccept gave"
# the stream's gather / scatter calls: rwritev, rsendmsg, rreadv,
# rrecvmsg, rrecvfrom, and EISCONN for an address
ic_run vec "$PEER server 192.0.2.1 $PORT 0 vec" \
	"$PEER client 192.0.2.1 $PORT 0 vec" \
	"vec client: rwritev and rsendmsg sent" \
	"vec: rreadv, rrecvmsg and rrecvfrom took what was sent"
# a raw peer whose message claims more bytes than the ring it was given:
# the server's rrecv must fail with ECONNRESET (it would have copied from
# past its ring's end), and the violation is counted (DPV_RDMACM_DEBUG
# prints it when the socket closes)
IC_XENV=DPV_RDMACM_DEBUG=1 ic_run hostile "$PEER server 192.0.2.1 $PORT 0 hostile" \
	"$PEER client 192.0.2.1 $PORT 0 hostile" \
	"hostile client: wrote 16 bytes claiming 1 MiB" \
	"rsocket [0-9]+: 1 protocol violations of the peer"
# datagram rsockets: errors, a port no socket is bound to, echoes with
# every byte checked, the msghdr paths, a connected socket's filter, a
# burst, hostile datagrams dropped (dpv-rsocket-dgram): the server's
# socket must count exactly the client's three hostile ones when it
# closes (DPV_RDMACM_DEBUG prints the count)
DGRAM=$BUILD/test/dpv-rsocket-dgram
IC_XENV=DPV_RDMACM_DEBUG=1 ic_run dgram "$DGRAM server 192.0.2.1 $PORT" \
	"$DGRAM client 192.0.2.1 $PORT 1000" \
	"client: all datagram checks passed" \
	"datagram rsocket [0-9]+: 3 datagrams dropped"
# tool TOOL NAME PATTERN ARGS...: unmodified TOOL as the server (-b) and
# the client (-s), both with ARGS; both outputs must match PATTERN.
tool() {
	local t=$1 name=$2 pat=$3
	shift 3
	ic_run "$name" "$t -b 192.0.2.1 -p $PORT $*" "$t -s 192.0.2.1 -p $PORT $*" \
		"$pat" "$pat"
}

# series TOOL LAST: the tool's own test series (latency then bandwidth,
# reconnecting between them), whose last line starts with LAST
series() {
	local saved=$IC_TIMEOUT
	IC_TIMEOUT=$SERIES_TIMEOUT
	tool "$1" "$1-series" "^$2 "
	IC_TIMEOUT=$saved
}

# rio_series: riostream's own series, if riostream-lat's one-way time
# (usec/xfer) says it fits: ~0.25 s for each microsecond (2 x 100,000
# round trips of 64 B and 2 x 10,000 of 4 KiB at about twice that),
# plus 5 s for the other sizes and connections
rio_series() {
	# series() reads this one
	local us est max=${SERIES_MAX_S:-75} SERIES_TIMEOUT
	us=$(grep -E "^custom " "$IC_TMP/riostream-lat.client" | tail -1 |
		awk '{printf "%d", $NF + 0.5}')
	est=$((us / 4 + 5))
	if [ "$est" -gt "$max" ]; then
		echo "SKIP riostream-series: a round trip here takes" \
			"$((2 * us)) us now: the series would take ~$est s" \
			"(more than $max s)"
		return 0
	fi
	SERIES_TIMEOUT=$((3 * est + 20))
	[ $SERIES_TIMEOUT -gt 150 ] && SERIES_TIMEOUT=150
	echo "riostream-series: ~$est s expected, bound $SERIES_TIMEOUT s"
	series riostream 1m_bw
}

# a custom run's result line: name, size, then the count of transfers
XFERS="^[0-9a-z_]+ +[0-9.]+[kmg]? +20 "
if command -v rstream >/dev/null; then
	# custom size and count: the client checks each transfer (-T v)
	for sz in 1 4096 65536 1000000; do
		tool rstream "rstream-$sz" "$XFERS" -S $sz -C 20 -T v
	done
	# asynchronous (rpoll, -T a) and non-blocking (MSG_DONTWAIT, -T n)
	for t in a n; do
		tool rstream "rstream-$t" "$XFERS" -S 100000 -C 20 -T $t -T v
	done
	series rstream 64k_bw # sizes up to 64 KiB by default
else
	echo "SKIP rstream: not installed"
fi
# riostream: riomap of its buffer, riowrite into the peer's (no data
# goes through the stream but a 16-byte sync), the last byte polled in
# memory; -T v checks the rest of each iteration's last transfer.
# Non-blocking by default (MSG_DONTWAIT), then blocking and rpoll.
if command -v riostream >/dev/null; then
	for opt in "-S 1" "-S 4096" "-S 65536" "-S 1000000" \
		"-S 100000 -T b" "-S 100000 -T a"; do
		tool riostream "riostream$(echo "$opt" | tr -d ' ')" \
			"$XFERS+5 " $opt -C 20 -I 5 -T v
	done
	# 64 B to 1 MiB, one riomap and riounmap per size on one
	# connection (the peer's table entry reused). Its time is the
	# host's scheduler's more than the library's: 110,000 round trips
	# in which each WRITE waits for the receiver's progress thread to
	# get a core (above). A short run of the same pattern
	# (64 B, one transfer a round, checked) measures the host now: the
	# series runs with a bound from it (150 s at most) when it would
	# take at most SERIES_MAX_S, and is skipped, saying why, otherwise.
	if tool riostream riostream-lat "^custom +64 +1 +2k " \
		-S 64 -C 1 -I 2000 -T v; then
		rio_series
	fi
else
	echo "SKIP riostream: not installed"
fi
# udpong (rdmacm-utils): datagram rsockets, unmodified. Its server never
# exits (killed once the client is done) and answers every client;
# udp_run NAME "SERVER OPTS" "CLIENT OPTS" PATTERN. The client is run again
# (up to three times) while the server is not bound yet.
udp_run() {
	local name=$1 crc try host=${UDP_HOST:-192.0.2.1}
	ic_server_start "$name" stdbuf -oL udpong -b $host -p $PORT $2
	for try in 1 2 3; do
		ic_client_run "$name" stdbuf -oL udpong -s $host -p $PORT $3
		crc=$?
		grep -q "Connection refused" "$IC_TMP/$name.client" || break
		sleep 0.5
	done
	ic_server_wait kill
	if [ $crc = 0 ] && grep -Eq "$4" "$IC_TMP/$name.client" &&
		grep -q "client login from ${UDP_PEER:-192.0.2.2}" \
			"$IC_TMP/$name.server"; then
		IC_PASSES=$((IC_PASSES + 1))
		echo "PASS $name: $(grep -E "$4" "$IC_TMP/$name.client" | tail -1)"
	else
		ic_fail "$name" $crc killed
	fi
}
# echoes (-T e: each one answered before the next) and a stream of
# datagrams the server counts (some may be dropped: UD), non-blocking
# (its default), blocking (-T b) and through rpoll (-T a). Its own series
# is not run: a reply later than its 1 ms wait makes it send again, and
# the extra datagram then rides along every later round trip, so on a
# host whose wake-ups sometimes take milliseconds the series slows down
# for good (minutes here).
if command -v udpong >/dev/null; then
	for t in "" "-T b" "-T a"; do
		n=udpong$(echo "$t" | tr -d ' ')
		udp_run "$n-echo" "$t" "-C 500 -S 1000 -T e $t" "^custom +1000 +1k "
		udp_run "$n-bw" "$t" "-C 5000 -S 1024 $t" "^custom +1k +[0-9.]+k? "
	done
	# over IPv6 (each device given an address of 2001:db8::/64 too)
	IC_XENV="DPV_IP=192.0.2.1/24,2001:db8::1/64" \
		IC_CXENV="DPV_IP=192.0.2.2/24,2001:db8::2/64" \
		UDP_HOST=2001:db8::1 UDP_PEER=2001:db8::2 \
		udp_run udpong-ipv6-echo "" "-C 500 -S 1000 -T e" \
		"^custom +1000 +1k "
else
	echo "SKIP udpong: not installed"
fi
ic_summary
