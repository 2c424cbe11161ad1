#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# meson install into a DESTDIR, then use the result as a user would: the
# libraries in their private directory (not over rdma-core's), headers and
# libdpverbs.pc (an application built with pkg-config runs on dpverbs),
# the default configuration under etc/dpverbs, dpv-run (--help, --list,
# running ibv_devinfo unmodified) and its man page.
# Arguments: <build>/lib, source root, build root.
set -u
BUILD=${3:?usage: $0 <lib dir> <source root> <build root>}
TMP=$(mktemp -d /tmp/dpv-install.XXXXXX) || exit 1
trap 'rm -rf "$TMP"' EXIT
fails=0
check() { # what command...
	local what=$1
	shift
	if "$@" >"$TMP/out" 2>&1; then
		echo "PASS $what"
	else
		echo "FAIL $what"; sed 's/^/  /' "$TMP/out" | tail -8
		fails=$((fails + 1))
	fi
}
D=$TMP/root
timeout 120 meson install -C "$BUILD" --destdir "$D" --no-rebuild \
	>"$TMP/install.log" 2>&1 ||
	{ echo "FAIL meson install"; tail -5 "$TMP/install.log"; exit 1; }
PREFIX=$(meson introspect "$BUILD" --buildoptions |
	python3 -c 'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"]=="prefix"][0])')
LIBDIR=$(meson introspect "$BUILD" --buildoptions |
	python3 -c 'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"]=="libdir"][0])')
case $LIBDIR in /*) ;; *) LIBDIR=$PREFIX/$LIBDIR ;; esac
P=$D$PREFIX
PL=$D$LIBDIR/dpverbs

check "libraries in the private directory" test -e "$PL/libibverbs.so.1" \
	-a -e "$PL/libmlx5.so.1" -a -e "$PL/libmlx4.so.1"
check "nothing over rdma-core's" test ! -e "$D$LIBDIR/libibverbs.so.1"
check "headers" test -e "$P/include/dpverbs/dpv_verbs.h" \
	-a -e "$P/include/dpverbs/dpv_port.h"
check "default configuration" test -s "$D/etc/dpverbs/dpverbs.conf"
check "man page" grep -q '^\.TH DPV-RUN 1' "$P/share/man/man1/dpv-run.1"
check "dpv-run --help" sh -c "'$P/bin/dpv-run' --help | grep -q -- '--eal ARGS'"
check "dpv-run without a program: usage error" \
	sh -c "'$P/bin/dpv-run'; test \$? = 2"
# no DPV_CONF / DPV_EAL: the built-in loopback device
unset DPV_CONF DPV_EAL DPV_IP
check "dpv-run --list" sh -c "DPV_CONF=/dev/null '$P/bin/dpv-run' --list |
	tee /dev/stderr | grep -q '^dpv0: port 1 PORT_ACTIVE, physical LINK_UP'"
check "dpv-run --list shows the IPv4 GID" sh -c "DPV_CONF=/dev/null \
	'$P/bin/dpv-run' --ip 192.0.2.9/24 --list | grep -q 'GID\[1\] ::ffff:192.0.2.9'"
if command -v ibv_devinfo >/dev/null 2>&1; then
	check "dpv-run ibv_devinfo (unmodified)" sh -c "DPV_CONF=/dev/null \
		timeout 30 '$P/bin/dpv-run' ibv_devinfo | grep -q 'hca_id:.*dpv0'"
fi
# an application built against the installed tree with pkg-config
if command -v pkg-config >/dev/null 2>&1 && command -v cc >/dev/null 2>&1; then
	cat >"$TMP/app.c" <<'C'
#include <stdio.h>
#include <infiniband/verbs.h>
#include <dpv_verbs.h>
int main(void)
{
	int n = 0;
	struct ibv_device **l = ibv_get_device_list(&n);
	struct ibv_context *c = n > 0 ? ibv_open_device(l[0]) : NULL;
	/* dpverbs' own API: only dpverbs' libibverbs has it */
	int work = c ? dpv_device_poll(c, 0) : -1;
	printf("%s poll=%d\n", n > 0 ? ibv_get_device_name(l[0]) : "none", work);
	return c != NULL && work >= 0 ? 0 : 1;
}
C
	# the .pc names the real prefix; point it into DESTDIR (only ours:
	# libdpdk.pc must keep its own)
	PCP=$TMP/pc
	mkdir -p "$PCP"
	sed "s|^prefix=.*|prefix=$P|" "$D$LIBDIR/pkgconfig/libdpverbs.pc" \
		>"$PCP/libdpverbs.pc"
	check "pkg-config libdpverbs" sh -c "PKG_CONFIG_PATH='$PCP' \
		pkg-config --exists libdpverbs"
	check "build an application with pkg-config" sh -c "cc -o '$TMP/app' \
		'$TMP/app.c' \$(PKG_CONFIG_PATH='$PCP' pkg-config \
		--cflags --libs libdpverbs)"
	check "the application runs on dpverbs (rpath)" sh -c \
		"DPV_CONF=/dev/null timeout 30 '$TMP/app' | grep -q '^dpv0 poll='"
fi
echo "$fails failed"
[ $fails = 0 ]
