#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Smoke test of two-process traffic: one unmodified ibv_rc_pingpong
# exchange (a few 4 KiB messages, RC over a memif pair, GID index 1).
# Arguments: <build>/lib, source root, build root.
set -u
LIBDIR=${1:?usage: $0 <lib dir> <source root> <build root>}
SRC=${2:-$(dirname "$0")/../..}
. "$SRC/test/scripts/interop-common.sh"
ic_init
ic_need ibv_rc_pingpong
ic_env_memif
PAT='[0-9]+ iters in [0-9.]+ seconds'
export SPATTERN=$PAT
IC_TIMEOUT=20
ic_pair rc-smoke "$PAT" "" -- ibv_rc_pingpong -d dpv0 -g 1 -p $IC_TCP -n 5
ic_summary
