#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# XRC end to end: rdma-core's unmodified ibv_xsrq_pingpong (XRC domain,
# XRC SRQs, XRC_SEND and XRC_RECV QPs, get_srq_num) between two processes,
# each with a dpverbs device on one end of a memif pair (GID index 1,
# IPv4 192.0.2.1 / 192.0.2.2), polling and with completion events, small
# and multi-packet messages. Both ends must print "success".
# Arguments: <build>/lib, source root, build root.
set -u
LIBDIR=${1:?usage: $0 <lib dir> <source root> <build root>}
SRC=${2:-$(dirname "$0")/../..}
. "$SRC/test/scripts/interop-common.sh"
ic_init
ic_need ibv_xsrq_pingpong
ic_env_memif

export SPATTERN='^success'
for s in 1 4096 65536; do
	for e in "" -e; do
		ic_pair "xsrq-s$s${e:+-e}" '^success' "" -- ibv_xsrq_pingpong \
			-d dpv0 -g 1 -m 1024 -p $IC_TCP -n 20 -s $s $e
	done
done
ic_summary
