#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Drop-in check: with LD_LIBRARY_PATH=<our lib dir>, every unmodified verbs
# consumer (rdma-core examples, perftest, qperf, rping, pyverbs modules) and
# every DPDK mlx PMD plugin must load with all symbols and versions resolved
# (`ldd -r`, which binds like BIND_NOW without running anything), and the
# libibverbs.so.1 / libmlx5.so.1 / libmlx4.so.1 / libefa.so.1 it gets must
# be ours.
#
# Usage: fast-abi-ldd.sh <our lib dir>
# Environment: DPV_PYVERBS_DIR (default: found with /usr/bin/python3),
#              DPV_PMD_DIR (default /usr/lib/x86_64-linux-gnu/dpdk/pmds-23.0).
set -u
LIBDIR=$(readlink -f "${1:?usage: $0 <lib dir>}")
PMD_DIR=${DPV_PMD_DIR:-/usr/lib/x86_64-linux-gnu/dpdk/pmds-23.0}
OURS="libibverbs.so.1 libmlx5.so.1 libmlx4.so.1 libefa.so.1"

# Consumers that must be present; the others are checked when installed.
REQUIRED="ibv_devinfo ibv_rc_pingpong ib_write_bw qperf pyverbs/device"
PROGRAMS="ibv_rc_pingpong ibv_uc_pingpong ibv_ud_pingpong ibv_srq_pingpong
	ibv_xsrq_pingpong ibv_devinfo ibv_devices ibv_asyncwatch
	ib_write_bw ib_write_lat ib_read_bw ib_read_lat ib_send_bw ib_send_lat
	ib_atomic_bw ib_atomic_lat qperf rping"

command -v ldd >/dev/null || { echo "SKIP: ldd not found"; exit 77; }
if [ ! -e "$LIBDIR/libibverbs.so.1" ]; then
	echo "FAIL: $LIBDIR/libibverbs.so.1 does not exist (not built yet?)"
	exit 1
fi

PYV_DIR=${DPV_PYVERBS_DIR:-$(cd / && /usr/bin/python3 -c \
	'import os, pyverbs; print(os.path.dirname(pyverbs.__file__))' \
	2>/dev/null)}

fail=0
checked=0
skipped=""

# check <label> <file>: ldd -r must report no unresolved symbol or
# version, no missing library, and resolve our libraries into LIBDIR.
check() {
	local label=$1 file=$2 out bad lib path
	out=$(LD_LIBRARY_PATH="$LIBDIR" LD_BIND_NOW=1 ldd -r "$file" 2>&1)
	checked=$((checked + 1))
	# pyverbs modules see the Python C API only inside the interpreter.
	bad=$(echo "$out" | grep -E 'undefined symbol|not found|version .* not' |
		grep -vE 'undefined symbol: _?Py' )
	for lib in $OURS; do
		path=$(echo "$out" | awk -v l="$lib" '$1 == l { print $3 }')
		[ -z "$path" ] && continue
		case "$(readlink -f "$path")" in
		"$LIBDIR"/*) ;;
		*) bad="$bad
	$lib resolves to $path, not to $LIBDIR" ;;
		esac
	done
	if [ -n "$bad" ]; then
		echo "FAIL: $label ($file):"
		echo "$bad" | sed '/^$/d; s/^[[:space:]]*/    /' | head -40
		fail=1
	else
		echo "ok: $label"
	fi
}

required() {
	case " $REQUIRED " in *" $1 "*) return 0 ;; esac
	return 1
}

for p in $PROGRAMS; do
	f=$(command -v "$p" 2>/dev/null)
	if [ -z "$f" ]; then
		if required "$p"; then
			echo "FAIL: required consumer $p is not installed"
			fail=1
		else
			skipped="$skipped $p"
		fi
		continue
	fi
	check "$p" "$f"
done

if [ -n "$PYV_DIR" ] && [ -d "$PYV_DIR" ]; then
	while IFS= read -r f; do
		rel=${f#"$PYV_DIR"/}
		check "pyverbs/${rel%%.cpython*}" "$f"
	done < <(find "$PYV_DIR" -name '*.so' | sort)
	ls "$PYV_DIR"/device.*.so >/dev/null 2>&1 || {
		echo "FAIL: required pyverbs/device module not found in $PYV_DIR"
		fail=1
	}
else
	echo "FAIL: required pyverbs (python3-pyverbs) not found for /usr/bin/python3"
	fail=1
fi

# DPDK loads every PMD plugin of this directory at rte_eal_init: the mlx
# ones link libibverbs/libmlx5/libmlx4 with immediate binding.
if [ -d "$PMD_DIR" ]; then
	for f in "$PMD_DIR"/librte_*mlx*.so.*.*; do
		[ -e "$f" ] || continue
		check "pmd/$(basename "$f")" "$f"
	done
else
	skipped="$skipped $PMD_DIR"
fi

[ -n "$skipped" ] && echo "not installed, not checked:$skipped"
echo "$checked objects checked"
[ $fail -eq 0 ] && echo "OK: every consumer resolves against $LIBDIR"
exit $fail
