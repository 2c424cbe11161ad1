#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Our libmlx5.so.1, libmlx4.so.1 and libefa.so.1 must export exactly the
# symbols of rdma-core's libraries, each with its version node (default
# "@@" or hidden "@" compat version alike), and define the same version
# nodes with the same parents.
#
# The reference is rdma-core's installed library (ibverbs-providers) or,
# if absent, the reference map lib<name>_full.map in $DPV_ABI_DIR
# (default /work/shared/abi). Usage: fast-abi-dv-exports.sh <our lib dir>
set -u
LIBDIR=${1:?usage: $0 <lib dir>}
SYSLIB=${DPV_ABI_REF_LIBDIR:-/usr/lib/x86_64-linux-gnu}
ABIDIR=${DPV_ABI_DIR:-/work/shared/abi}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

command -v readelf >/dev/null || { echo "SKIP: readelf not found"; exit 77; }

# "name@ver" / "name@@ver" of every defined global symbol, version-node
# marker symbols left out.
exports() {
	readelf --dyn-syms -W "$1" | awk '
		$7 != "UND" && $7 != "ABS" && ($5 == "GLOBAL" || $5 == "WEAK") &&
		$8 ~ /@/ { print $8 }
		$7 != "UND" && $7 != "ABS" && ($5 == "GLOBAL" || $5 == "WEAK") &&
		$8 !~ /@/ { print $8 "@<unversioned>" }' | sort -u
}

# "node<-parent" for every version definition (base entry left out).
verdefs() {
	readelf -V -W "$1" | awk '
		/Version definition section/ { d = 1; next }
		/Version needs section/ { d = 0 }
		d && /Name:/ && !/Flags: BASE/ { cur = $NF; print cur "<-" }
		d && /Parent 1:/ { print cur "<-" $NF }' |
		awk -F'<-' '{ p[$1] = $2 } END { for (n in p) print n "<-" p[n] }' |
		sort
}

# Expected exports from a reference map: defaults from each node's
# global list, plus the hidden versions named in its trailing comment.
map_exports() {
	awk '
		/^[A-Za-z0-9_.]+ \{/ { node = $1 }
		/global:/ {
			s = $0; sub(/.*global:/, "", s); n = split(s, a, ";")
			for (i = 1; i <= n; i++) { g = a[i]; gsub(/[ \t]/, "", g)
				if (g != "") print g "@@" node }
		}
		/hidden \(non-default\) compat versions/ {
			s = $0; sub(/.*\.symver:/, "", s); sub(/\*\//, "", s)
			n = split(s, a, /[ ,]+/)
			for (i = 1; i <= n; i++) if (a[i] ~ /@/) print a[i]
		}' "$1" | sort -u
}

map_verdefs() {
	awk '
		/^[A-Za-z0-9_.]+ \{/ { node = $1; par[node] = "" }
		/^\} *[A-Za-z0-9_.]+;/ { p = $2; sub(/;/, "", p); par[node] = p }
		END { for (n in par) print n "<-" par[n] }' "$1" | sort
}

fail=0
for name in mlx5 mlx4 efa; do
	ours="$LIBDIR/lib$name.so.1"
	if [ ! -e "$ours" ]; then
		echo "FAIL: $ours does not exist (is it built? lib/meson.build" \
			"builds it only once libibverbs.so.1 builds)"
		fail=1
		continue
	fi
	if [ -e "$SYSLIB/lib$name.so.1" ] &&
		[ "$(readlink -f "$SYSLIB/lib$name.so.1")" != "$(readlink -f "$ours")" ]; then
		ref="rdma-core $(readlink -f "$SYSLIB/lib$name.so.1")"
		exports "$SYSLIB/lib$name.so.1" >"$TMP/ref"
		verdefs "$SYSLIB/lib$name.so.1" >"$TMP/refv"
	elif [ -e "$ABIDIR/lib${name}_full.map" ]; then
		ref="$ABIDIR/lib${name}_full.map"
		map_exports "$ABIDIR/lib${name}_full.map" >"$TMP/ref"
		map_verdefs "$ABIDIR/lib${name}_full.map" >"$TMP/refv"
	else
		echo "SKIP: no reference for lib$name.so.1"
		exit 77
	fi
	exports "$ours" >"$TMP/ours"
	verdefs "$ours" >"$TMP/oursv"
	missing=$(comm -23 "$TMP/ref" "$TMP/ours")
	extra=$(comm -13 "$TMP/ref" "$TMP/ours")
	vdiff=$(diff "$TMP/refv" "$TMP/oursv")
	nref=$(wc -l <"$TMP/ref")
	echo "lib$name.so.1: $(wc -l <"$TMP/ours") exports, reference $nref ($ref)"
	if [ "$nref" -eq 0 ]; then
		echo "FAIL: empty reference for lib$name.so.1"
		fail=1
	fi
	if [ -n "$missing" ]; then
		echo "FAIL: lib$name.so.1 lacks:"
		echo "$missing" | sed 's/^/    /'
		fail=1
	fi
	if [ -n "$extra" ]; then
		echo "FAIL: lib$name.so.1 exports what rdma-core's does not:"
		echo "$extra" | sed 's/^/    /'
		fail=1
	fi
	if [ -n "$vdiff" ]; then
		echo "FAIL: lib$name.so.1 version nodes differ (< reference, > ours):"
		echo "$vdiff" | sed 's/^/    /'
		fail=1
	fi
done
[ $fail -eq 0 ] && echo "OK: all direct-verbs exports match"
exit $fail
