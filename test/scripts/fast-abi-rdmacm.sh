#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# <lib dir>/librdmacm.so.1 must define every symbol of rdma-core 44's
# librdmacm.so.1 with its default version node (reference:
# librdmacm_full.map in $DPV_ABI_DIR, default /work/shared/abi), with the
# nodes chained RDMACM_1.0 <- 1.1 <- 1.2 <- 1.3, and the programs that
# import it must bind every symbol against our libraries (ldd -r).
# Usage: fast-abi-rdmacm.sh <lib dir> [<source root>]
set -u
LIBDIR=${1:?usage: $0 <lib dir> [source root]}
ABIDIR=${DPV_ABI_DIR:-/work/shared/abi}
LIB=$LIBDIR/librdmacm.so.1
REF=$ABIDIR/librdmacm_full.map
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

command -v objdump >/dev/null || { echo "SKIP: objdump not found"; exit 77; }
[ -f "$REF" ] || { echo "SKIP: no reference map $REF"; exit 77; }
[ -f "$LIB" ] || { echo "FAIL: $LIB not built"; exit 1; }

objdump -T "$LIB" | awk '$0 ~ /DF|DO/ && $0 !~ /\*UND\*/ {
	print $NF "@@" $(NF-1) }' | sort -u >"$TMP/have"
# "NODE {" then "global: a; b; ...;" lines of the reference map
awk '/^[A-Z0-9_.]+ *\{/ { node = $1 }
	/global:/ { s = $0; sub(/.*global:/, "", s); n = split(s, a, ";")
		for (i = 1; i <= n; i++) { g = a[i]; gsub(/[ \t]/, "", g)
			if (g != "") print g "@@" node } }' "$REF" |
	sort -u >"$TMP/want"
nwant=$(wc -l <"$TMP/want")
rc=0
[ "$nwant" -ge 60 ] || { echo "FAIL: parsed only $nwant names from $REF"; exit 1; }
comm -23 "$TMP/want" "$TMP/have" >"$TMP/missing"
if [ -s "$TMP/missing" ]; then
	echo "FAIL: $(wc -l <"$TMP/missing") of $nwant exports missing:"
	sed 's/^/  /' "$TMP/missing"
	rc=1
else
	echo "PASS: all $nwant exports of rdma-core 44 with their version nodes"
fi

# version definitions and their parents
objdump -p "$LIB" | awk '/Version definitions:/ { on = 1; next }
	/^$/ { on = 0 } on && NF >= 4 { node = $4; next }
	on && NF == 1 { print node "<-" $1 }' >"$TMP/parents"
for p in "RDMACM_1.1<-RDMACM_1.0" "RDMACM_1.2<-RDMACM_1.1" \
	"RDMACM_1.3<-RDMACM_1.2"; do
	grep -qx "$p" "$TMP/parents" ||
		{ echo "FAIL: version node $p missing"; rc=1; }
done

# the unmodified consumers bind every symbol against our libraries
for t in rping ucmatose udaddy rdma_server rdma_client ib_send_bw qperf; do
	b=$(command -v $t) || continue
	out=$(LD_LIBRARY_PATH="$LIBDIR" ldd -r "$b" 2>&1)
	if echo "$out" | grep -Eq "undefined symbol|not found"; then
		echo "FAIL: $t does not bind:"
		echo "$out" | grep -E "undefined symbol|not found" | sed 's/^/  /'
		rc=1
	elif ! echo "$out" | grep -q "$LIBDIR/librdmacm.so.1"; then
		echo "FAIL: $t does not load our librdmacm.so.1"
		rc=1
	else
		echo "PASS: $t binds against $LIBDIR"
	fi
done
exit $rc
