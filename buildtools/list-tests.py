#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Print the tests registered in the given C files, one per line, as
"<suite> <name>" where suite is fast, slow or perf.

A registration is a line of the form
    DPV_TEST_REGISTER_FAST(name, function);
(or _SLOW / _PERF); meson turns each into a test of that suite."""
import re
import sys

PAT = re.compile(r'^\s*DPV_TEST_REGISTER_(FAST|SLOW|PERF)\(\s*(\w+)\s*,', re.M)

def main(paths):
    seen = {}
    for path in paths:
        with open(path, encoding='utf-8') as f:
            text = f.read()
        for kind, name in PAT.findall(text):
            if name in seen:
                sys.exit(f'{path}: test {name} already registered in {seen[name]}')
            seen[name] = path
            print(kind.lower(), name)

if __name__ == '__main__':
    main(sys.argv[1:])
