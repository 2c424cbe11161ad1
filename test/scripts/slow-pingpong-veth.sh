#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# rdma-core's unmodified ibv_rc/uc/ud/srq_pingpong between two network
# namespaces joined by a veth pair (192.0.2.1 / 192.0.2.2, GID index 1),
# each process with a dpverbs device on af_packet, then on af_xdp (when
# its PMD is installed): with and without completion events, messages of
# 1 byte to 64 KiB (UD: up to the active MTU, 1024); perftest's 64-byte
# ib_write_lat and ib_send_lat on both; then a 64-byte ib_write_bw stream
# on af_packet. Needs root.
# Arguments: <build>/lib, source root, build root.
set -u
LIBDIR=${1:?usage: $0 <lib dir> <source root> <build root>}
SRC=${2:-$(dirname "$0")/../..}
. "$SRC/test/scripts/interop-common.sh"
ic_init
ic_need ibv_rc_pingpong ibv_uc_pingpong ibv_ud_pingpong ibv_srq_pingpong
ic_veth_init 1500

PAT='[0-9]+ iters in [0-9.]+ seconds'
export SPATTERN=$PAT
N=${DPV_PP_ITERS:-20}
kinds=af_packet
if ls /usr/lib/*/dpdk/pmds-*/librte_net_af_xdp.so* >/dev/null 2>&1; then
	kinds="$kinds af_xdp"
	# DPDK 22.11's af_xdp PMD leaks libxdp's umem handle at close
	export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
else
	echo "af_xdp PMD not installed: af_packet only"
fi
for k in $kinds; do
	ic_env_veth $k
	for t in rc uc srq ud; do
		sizes="1 4096 65536"
		[ $t = ud ] && sizes="1 1024"
		[ $k = af_xdp ] && sizes="4096"
		[ $k = af_xdp ] && [ $t = ud ] && sizes="1024"
		for s in $sizes; do
			for e in "" -e; do
				ic_pair "$k-$t-s$s${e:+-e}" "$PAT" "" -- \
					ibv_${t}_pingpong -d dpv0 -g 1 \
					-p $IC_TCP -n $N -s $s $e
			done
		done
	done
	# 64-byte latency tests, where each side waits for its request's
	# completion before it answers (and ib_write_lat then spins on
	# memory): over af_xdp a peer's burst arrives a frame at a time,
	# and ib_write_lat used to end in IBV_WC_RETRY_EXC_ERR within a few
	# thousand round trips
	if command -v ib_write_lat >/dev/null; then
		RES='^ *64 +20000 +[0-9.]+ +[0-9.]+'
		for l in ib_write_lat ib_send_lat; do
			SPATTERN=$RES ic_pair "$k-$l-s64" "$RES" "" -- \
				$l -d dpv0 -x 1 -p $IC_TCP -s 64 -n 20000
		done
		export SPATTERN=$PAT
	fi
	# a stream of small WRITEs (perftest's 128 in flight), af_packet
	# only: over af_xdp about one run in three of 1,000,000 messages
	# still ends in IBV_WC_RETRY_EXC_ERR (drivers/af_xdp, known gaps)
	if [ $k = af_packet ] && command -v ib_write_bw >/dev/null; then
		RES='^ *64 +[0-9]+ +[0-9.]+ +[0-9.]+'
		SPATTERN=$RES ic_pair "$k-ib_write_bw-s64" "$RES" "" -- \
			ib_write_bw -d dpv0 -x 1 -p $IC_TCP -s 64 -n 1000000
		export SPATTERN=$PAT
	fi
done
ic_summary
