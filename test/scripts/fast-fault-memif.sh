#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Unmodified verbs programs through a misbehaving network: both ends of a
# memif pair run with the fault layer on (DPV_FAULT: frames dropped,
# reordered and duplicated on send). ibv_rc_pingpong -c (it checks every
# buffer it receives) and perftest's ib_write_bw / ib_read_bw must finish
# with their result lines, and the counters (DPV_STATS) must show that
# frames were dropped and retransmitted. DPV_FAULT_ITERS scales the runs
# (slow-fault-memif.sh runs longer ones).
# Arguments: <build>/lib, source root, build root.
set -u
LIBDIR=${1:?usage: $0 <lib dir> <source root> <build root>}
SRC=${2:-$(dirname "$0")/../..}
. "$SRC/test/scripts/interop-common.sh"
ic_init
ic_need ibv_rc_pingpong ib_write_bw ib_read_bw
ic_env_memif
IC_TIMEOUT=${IC_TIMEOUT:-45}
N=${DPV_FAULT_ITERS:-200}
SIZES=${DPV_FAULT_SIZES:-4096 65536}
# 1 % loss, 10 % reordering within 8 frames, 2 % duplication (what the
# issue saw rxe fail with), on what each end sends
FAULT="DPV_FAULT=tx:drop=1%,reorder=10%/8,dup=2%;seed=$$ DPV_STATS=1"

# Both ends' DPV_STATS lines of the last run: frames the fault layer
# dropped and frames the engine sent again.
counters() {
	local name=$1 f
	for f in "$IC_TMP/$name.server" "$IC_TMP/$name.client"; do
		grep -Eq 'fault_tx_drop=[1-9]' "$f" &&
			grep -Eq 'fault_tx_reorder=[1-9]' "$f" || return 1
	done
	cat "$IC_TMP/$name.server" "$IC_TMP/$name.client" |
		grep -Eq 'retransmits=[1-9]'
}

check_counters() {
	if counters "$1"; then
		echo "PASS $1 counters: $(grep -Eo 'fault_tx_drop=[0-9]+|retransmits=[0-9]+|seq_naks_sent=[0-9]+|dup_requests=[0-9]+' \
			"$IC_TMP/$1.server" | tr '\n' ' ')"
		IC_PASSES=$((IC_PASSES + 1))
	else
		echo "FAIL $1: no drops/retransmissions counted"
		grep -h "dpverbs" "$IC_TMP/$1.server" "$IC_TMP/$1.client" |
			sed 's/^/  /'
		IC_FAILS=$((IC_FAILS + 1))
	fi
}

# The last ACK lost: one end has finished its iterations and gone, and
# the other retries its last SEND to no one until its retry count runs out
# (IBV_WC_RETRY_EXC_ERR, as on any RC hardware whose peer left; about 1 %
# a run each way with 1 % of frames dropped). That run says nothing of the
# engine: run it again with other faults.
last_ack_lost() {
	local a b
	for a in server client; do
		b=client; [ $a = client ] && b=server
		grep -Eq "^$N iters in" "$IC_TMP/$1.$a" &&
			grep -q "retry counter exceeded" "$IC_TMP/$1.$b" &&
			return 0
	done
	return 1
}

PAT='[0-9]+ iters in [0-9.]+ seconds'
for s in $SIZES; do
	name=rc-pingpong-s$s
	ok=0
	SPATTERN=$PAT ic_pair "$name" "$PAT" "$FAULT" -- \
		ibv_rc_pingpong -d dpv0 -g 1 -p $IC_TCP -n $N -s $s -c || ok=1
	# at most twice more (each time about 1 %: the ACK dropped)
	for again in 1 2; do
		[ $ok = 1 ] && last_ack_lost "$name" || break
		IC_FAILS=$((IC_FAILS - 1))
		echo "  (one end finished and left, the last ACK was lost:" \
			"once more with other faults)"
		ok=0
		SPATTERN=$PAT ic_pair "$name" "$PAT" \
			"${FAULT/seed=$$/seed=$((RANDOM + again))}" -- \
			ibv_rc_pingpong -d dpv0 -g 1 -p $IC_TCP -n $N -s $s -c ||
			ok=1
	done
	[ $ok = 0 ] && check_counters "$name"
done

# "#bytes #iterations" then numbers
RES='^ *[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+'
for t in ib_write_bw ib_read_bw; do
	SPATTERN=$RES ic_pair "$t" "$RES" "$FAULT" -- $t -d dpv0 -x 1 \
		-p $IC_TCP -n $N -s 65536 && check_counters "$t"
done
ic_summary
