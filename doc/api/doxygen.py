#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Build the API reference: fill in doc/api/Doxyfile.in and run doxygen.

Usage: doxygen.py DOXYGEN DOXYFILE_IN OUTDIR VERSION TOPDIR HEADER...

Writes the HTML under OUTDIR/html, and next to OUTDIR (not installed with
it) the configuration OUTDIR-Doxyfile and doxygen's warnings in
OUTDIR-warnings.txt. Every warning fails the build: an undocumented
symbol, parameter or return value of a public header, as well as a broken
reference, a bad command or an @param for a parameter that does not exist.
The warnings are printed.
"""
import os
import re
import subprocess
import sys


def main(argv):
    doxygen, template, outdir, version, topdir = argv[1:6]
    headers = sorted(os.path.abspath(h) for h in argv[6:])
    incdirs = sorted({os.path.dirname(h) for h in headers})
    outdir = os.path.abspath(outdir)
    warnlog = outdir + '-warnings.txt'
    os.makedirs(outdir, exist_ok=True)
    with open(template) as f:
        text = f.read()
    for key, val in (('VERSION', version), ('OUTPUT', outdir),
                     ('INPUT', ' '.join(headers)),
                     ('TOPDIR', os.path.abspath(topdir)),
                     ('STRIP_INC', ' '.join(incdirs)),
                     ('WARNLOG', warnlog), ('WARN_AS_ERROR', 'NO')):
        text = text.replace('@' + key + '@', val)
    conf = outdir + '-Doxyfile'
    with open(conf, 'w') as f:
        f.write(text)
    subprocess.run([doxygen, conf], check=True)
    with open(warnlog) as f:
        log = f.read()
    # one warning may span several lines (its parameter list)
    warnings = re.findall(r'^\S+:\d+: warning: .*$', log, re.M)
    undoc = [w for w in warnings if 'not documented' in w]
    other = [w for w in warnings if 'not documented' not in w]
    print('doxygen: %d headers, %d undocumented symbols or parameters '
          '(%s), %d other warnings' %
          (len(headers), len(undoc), warnlog,
           len(other)))
    for w in undoc + other:
        print(w, file=sys.stderr)
    if undoc or other:
        print('doxygen: document every symbol of the public headers '
              '(@param, @return with the errors): see %s' % warnlog,
              file=sys.stderr)
    return 1 if undoc or other else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
