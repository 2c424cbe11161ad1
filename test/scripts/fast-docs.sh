#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The HTML documentation the build made (meson option docs; skipped when
# it made none): one page per guide (doc/guides/*.rst and its
# subfolders, such as drivers/), the guides' index
# linking the API reference, an API page per installed header (every
# header meson installs), and no doxygen warning at all in its log: every
# symbol of the public headers documented (doc/api/doxygen.py already
# fails the build on any warning, as sphinx-build -W does).
# Arguments: <build>/lib, source root, build root.
set -u
SRC=${2:?usage: $0 <lib dir> <source root> <build root>}
BUILD=${3:?usage: $0 <lib dir> <source root> <build root>}
G=$BUILD/doc/guides
A=$BUILD/doc/api/html
[ -e "$G/index.html" ] || [ -e "$A/index.html" ] ||
	{ echo "SKIP: documentation not built (-Ddocs, python3-sphinx, doxygen)"; exit 77; }
fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
n=0
if [ -e "$G/index.html" ]; then
	for r in "$SRC"/doc/guides/*.rst "$SRC"/doc/guides/*/*.rst; do
		b=${r#"$SRC"/doc/guides/}
		b=${b%.rst}
		[ -s "$G/$b.html" ] || fail "no $G/$b.html for $r"
		n=$((n + 1))
	done
	grep -q 'href="../api/html/index.html"' "$G/index.html" ||
		fail "the guides' index does not link the API reference"
	echo "guides: $n pages"
fi
if [ -e "$A/index.html" ]; then
	hdrs=$(meson introspect "$BUILD" --installed |
		python3 -c 'import json, sys, os
for src, dst in json.load(sys.stdin).items():
    if dst.endswith(".h") and "/include/" in dst:
        print(os.path.basename(dst))')
	[ -n "$hdrs" ] || fail "no installed headers found"
	n=0
	for h in $hdrs; do
		# doxygen's page of a.b_c.h is a_8b__c_8h.html (dir-less name)
		p=$(echo "$h" | sed 's/_/__/g; s/\./_8/g').html
		[ -s "$A/$p" ] || fail "no API page $p for $h"
		n=$((n + 1))
	done
	log=$BUILD/doc/api-warnings.txt
	nw=$(grep -c ': warning: ' "$log")
	[ "$nw" = 0 ] || { fail "$nw doxygen warnings:"; grep ': warning: ' "$log"; }
	echo "API reference: $n headers, $nw doxygen warnings"
fi
[ $fails = 0 ] && echo "PASS docs"
[ $fails = 0 ]
