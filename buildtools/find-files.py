#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Print, one per line and sorted, the files in DIR matching each PATTERN.
Used where several people add files to one folder (tests, verbs objects)
so that adding a file does not mean editing a shared list. Re-run
`meson setup --reconfigure` after adding a file."""
import glob
import os
import sys

d = sys.argv[1]
out = set()
for pat in sys.argv[2:]:
    out.update(os.path.relpath(p, d) for p in glob.glob(os.path.join(d, pat)))
print('\n'.join(sorted(out)))
