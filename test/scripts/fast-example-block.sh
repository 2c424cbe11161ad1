#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# examples/block_service over memif: blk_server exports a fresh 8 MiB
# file, blk_client fills it, runs 1,500 random READs and WRITEs of
# 4 KiB..1 MiB (8 in flight) and reads it all back, checking every word.
# Passes when both exit 0 and the store hash printed by the server, the
# one the client computed from what it wrote and the hash of the file
# itself (written back by the server) are the same.
# Arguments: <build>/lib, source root, build root.
set -u
LIBDIR=${1:?usage: $0 <lib dir> <source root> <build root>}
SRC=${2:?usage: $0 <lib dir> <source root> <build root>}
BUILD=${3:?usage: $0 <lib dir> <source root> <build root>}
. "$SRC/test/scripts/interop-common.sh"
B=$BUILD/examples/block_service
[ -x "$B/blk_server" ] || { echo "SKIP: examples not built"; exit 77; }
ic_init
ic_need python3
# their own --file-prefix: EAL's directories of a killed run go here
trap 'ic_cleanup; ic_rundirs_rm blks$$ blkc$$' EXIT
ic_env_memif
STORE=$IC_TMP/store.img

env LD_LIBRARY_PATH="$LIBDIR" DPV_CONF=/dev/null DPV_IP=192.0.2.1/24 \
	DPV_EAL="$IC_SEAL --file-prefix=blks$$" \
	timeout 60 "$B/blk_server" -p "$IC_TCP" -S 8 -t 30 "$STORE" \
	>"$IC_TMP/server" 2>&1 &
spid=$!
IC_PIDS=$spid
env LD_LIBRARY_PATH="$LIBDIR" DPV_CONF=/dev/null DPV_IP=192.0.2.2/24 \
	DPV_EAL="$IC_CEAL --file-prefix=blkc$$" \
	timeout 60 "$B/blk_client" -p "$IC_TCP" -n 1500 -q 8 -r 7 \
	"$IC_PEER" >"$IC_TMP/client" 2>&1
crc=$?
wait $spid
src=$?
IC_PIDS=
grep -h '^blk_' "$IC_TMP/server" "$IC_TMP/client"
hs=$(sed -n 's/^blk_server: done: .*store FNV-1a \([0-9a-f]*\)$/\1/p' "$IC_TMP/server")
hc=$(sed -n 's/^blk_client: OK: .*store FNV-1a \([0-9a-f]*\)$/\1/p' "$IC_TMP/client")
hf=$(python3 -c '
import sys
h = 0xcbf29ce484222325
for b in open(sys.argv[1], "rb").read():
    h = ((h ^ b) * 0x100000001b3) & 0xffffffffffffffff
print("%016x" % h)' "$STORE")
echo "store hash: server $hs, client $hc, file $hf"
if [ $crc = 0 ] && [ $src = 0 ] && [ -n "$hs" ] && [ "$hs" = "$hc" ] &&
	[ "$hs" = "$hf" ]; then
	echo "PASS block_service"
	exit 0
fi
echo "FAIL block_service (client exit $crc, server exit $src)"
grep -v avx512 "$IC_TMP/server" | tail -20
grep -v avx512 "$IC_TMP/client" | tail -20
exit 1
