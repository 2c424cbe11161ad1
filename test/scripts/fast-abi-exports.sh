#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# <lib dir>/libibverbs.so.1 must define every symbol of rdma-core 44's
# libibverbs.so.1 with its default version node (reference:
# libibverbs_full.map in $DPV_ABI_DIR, default /work/shared/abi), define
# the version nodes with the same parents, and define every name its own
# version script lists (ld silently drops names it cannot find).
# Usage: fast-abi-exports.sh <lib dir> [<source root>]
set -u
LIBDIR=${1:?usage: $0 <lib dir> [source root]}
SRC=${2:-$(cd "$(dirname "$0")/../.." && pwd)}
ABIDIR=${DPV_ABI_DIR:-/work/shared/abi}
LIB=$LIBDIR/libibverbs.so.1
REF=$ABIDIR/libibverbs_full.map
OURMAP=$SRC/lib/verbs/libibverbs.map
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

command -v objdump >/dev/null || { echo "SKIP: objdump not found"; exit 77; }
[ -f "$REF" ] || { echo "SKIP: no reference map $REF"; exit 77; }
[ -f "$LIB" ] || { echo "FAIL: $LIB not built"; exit 1; }

# name@@node (or name@node for hidden versions) of every defined symbol
objdump -T "$LIB" | awk '
	$0 ~ /DF|DO/ && $0 !~ /\*UND\*/ {
		n = $NF; v = $(NF-1)
		if (v ~ /^\(/) { gsub(/[()]/, "", v); print n "@" v }
		else print n "@@" v
	}' | sort -u >"$TMP/have"

# Expected default exports: "node { global: a; b; ...;" of each node.
# $1: map file; prints name@@node.
map_defaults() {
	awk '
		/^[A-Za-z0-9_.]+ *\{/ { node = $1; sub(/\{/, "", node); on = 1 }
		on {
			s = $0
			sub(/\/\*.*\*\//, "", s)
			sub(/.*global:/, "", s)
			if (s ~ /^[ \t]*\}/) { on = 0; next }
			if (s ~ /local:/) next
			n = split(s, a, ";")
			for (i = 1; i <= n; i++) {
				g = a[i]; gsub(/[ \t{}]/, "", g)
				if (g != "" && g !~ /^\/?\*/ && node != "") print g "@@" node
			}
		}
		/\}/ { on = 0 }' "$1" | grep -v '^[A-Z_0-9.]*@@' | sort -u
}

map_defaults "$REF" >"$TMP/want"
nwant=$(wc -l <"$TMP/want")
[ "$nwant" -gt 100 ] || { echo "FAIL: parsed only $nwant names from $REF"; exit 1; }
comm -23 "$TMP/want" "$TMP/have" >"$TMP/missing"

rc=0
if [ -s "$TMP/missing" ]; then
	echo "FAIL: $(wc -l <"$TMP/missing") of $nwant reference exports missing:"
	sed 's/^/  /' "$TMP/missing"
	rc=1
fi

# Our own map: every listed name (incl. the dpverbs node) must be defined.
if [ -f "$OURMAP" ]; then
	map_defaults "$OURMAP" >"$TMP/ours"
	comm -23 "$TMP/ours" "$TMP/have" >"$TMP/undef"
	if [ -s "$TMP/undef" ]; then
		echo "FAIL: names in lib/verbs/libibverbs.map not exported:"
		sed 's/^/  /' "$TMP/undef"
		rc=1
	fi
fi

# Version nodes and their parents (IBVERBS_1.x chain, PRIVATE standalone).
objdump -p "$LIB" | awk '
	/^Version definitions:/ { d = 1; next }
	/^Version References:/ { d = 0 }
	d && NF >= 4 && $2 != "0x01" { cur = $4; print cur "<-" }
	d && NF == 1 && cur != "" { print cur "<-" $1 }' |
	awk -F'<-' '{ p[$1] = $2 } END { for (n in p) print n "<-" p[n] }' |
	sort >"$TMP/nodes"
prev=""
for v in 1.0 1.1 1.5 1.6 1.7 1.8 1.9 1.10 1.11 1.12 1.13 1.14; do
	want="IBVERBS_$v<-$prev"
	if ! grep -qx "$want" "$TMP/nodes"; then
		echo "FAIL: version node IBVERBS_$v must have parent '${prev:-none}'"
		rc=1
	fi
	prev=IBVERBS_$v
done
grep -qx "IBVERBS_PRIVATE_34<-" "$TMP/nodes" ||
	{ echo "FAIL: IBVERBS_PRIVATE_34 missing or has a parent"; rc=1; }

# Nothing else leaks: every exported name is in a version node.
if grep -q '@@Base$' "$TMP/have"; then
	echo "FAIL: unversioned exports:"
	grep '@@Base$' "$TMP/have" | sed 's/^/  /'
	rc=1
fi

[ $rc -eq 0 ] && echo "OK: $nwant reference exports present with their versions;" \
	"$(wc -l <"$TMP/have") exported in all"
exit $rc
