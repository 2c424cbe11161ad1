#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A sleeping progress thread woken by its port's receive interrupts
# (lib/port/port_intr.c), over DPDK's vhost-user / virtio-user pair (two
# processes, no hugepages, no device): dpv-event-peer (test/event_peer.c),
# an RC SEND ping-pong whose ends wait for completion events, the client
# pausing GAP_MS between pings, so that the server's progress thread has
# backed off into sleeps of 1 ms or more when each ping comes. The server
# runs on virtio-user, whose driver has receive interrupts; the client on
# vhost-user, which starts first (it owns the socket). Checks: every round
# trip completes; an interrupt woke the server's thread for at least half
# of the pings (wake_taken, DPV_STATS; 0 with DPV_RX_INTR=0). The median
# is printed, not judged. Then ibv_rc_pingpong over the same pair with
# the default kernel interfaces (see below).
# Arguments: <build>/lib, source root, build root.
set -u
LIBDIR=${1:?usage: $0 <lib dir> <source root> <build root>}
SRC=${2:-$(dirname "$0")/../..}
BUILD=${3:-$SRC/build}
. "$SRC/test/scripts/interop-common.sh"
ic_init
ic_cm_peer dpv-event-peer
ls /usr/lib/*/dpdk/pmds-*/librte_net_vhost.so* \
	/usr/lib/*/dpdk/pmds-*/librte_net_virtio.so* >/dev/null 2>&1 ||
	{ echo "SKIP: DPDK's vhost or virtio driver is not installed"; exit 77; }
IC_TIMEOUT=40
N=40
GAP_MS=20
port=$((20000 + ($$ * 3) % 20000))
IC_SOCK=$IC_TMP/vhost.sock
IC_CONF=/dev/null
# both ends in this namespace: no kernel interfaces (as memif gets none)
IC_SEAL="$IC_EAL --vdev=net_vhost0,iface=$IC_SOCK,queues=1"
IC_CEAL="$IC_EAL --vdev=net_virtio_user0,path=$IC_SOCK,queues=1"
# the ping-pong's client on the vhost end (192.0.2.1), its server on the
# virtio-user end (192.0.2.2)
IC_XENV="DPV_STATS=1 DPV_NETDEV=off DPV_LINK_WAIT_MS=20000" \
	ic_server_start vhost "$PEER" client 192.0.2.2 $port $N \
	$((GAP_MS * 1000))
IC_XENV="DPV_STATS=1 DPV_NETDEV=off" \
	ic_client_run virtio "$PEER" server 192.0.2.2 $port $N
src=$?
ic_server_wait
crc=$?
ic_woken intr $N $crc $src "$IC_TMP/vhost.server" "$IC_TMP/virtio.client"

# The same pair with the kernel interfaces a device gets by default (when
# this user may make a TAP): both kernels' addresses are then this host's
# own, and the kernel drops an ARP request from one of its own addresses.
# The engine answers for its address itself, so the two resolve each
# other: unmodified ibv_rc_pingpong (it failed in RTR, "no MAC for the
# destination", before).
if command -v ibv_rc_pingpong >/dev/null; then
	IC_PEER=127.0.0.1
	ic_pair netdev "50 iters in" "DPV_LINK_WAIT_MS=20000" -- \
		ibv_rc_pingpong -d dpv0 -g 1 -p $((port + 1)) -n 50
fi
ic_summary
