#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Every exported entry point of our libmlx5.so.1, libmlx4.so.1 and
# libefa.so.1, looked up by name AND version (dlvsym), is called with
# all-zero arguments and must answer "not supported" in the convention its
# man page documents: NULL + errno EOPNOTSUPP for objects, EOPNOTSUPP for
# "0 or errno value" functions, -EOPNOTSUPP or -1 + errno for the few
# documented exceptions. The entry points that are real must reject NULL
# arguments with EINVAL (or false) instead of crashing.
#
# Usage: fast-dv-stubs.sh <our lib dir>
set -u
LIBDIR=$(readlink -f "${1:?usage: $0 <lib dir>}")
CC=${CC:-cc}
command -v "$CC" >/dev/null || { echo "SKIP: no C compiler to read headers"; exit 77; }
command -v readelf >/dev/null || { echo "SKIP: readelf not found"; exit 77; }
for l in mlx5 mlx4 efa; do
	if [ ! -e "$LIBDIR/lib$l.so.1" ]; then
		echo "FAIL: $LIBDIR/lib$l.so.1 does not exist (not built yet?)"
		exit 1
	fi
done

LD_LIBRARY_PATH="$LIBDIR" CC="$CC" LIBDIR="$LIBDIR" timeout 120 \
	/usr/bin/python3 - <<'EOF'
import ctypes, errno, os, re, subprocess, sys

libdir = os.environ['LIBDIR']
cc = os.environ['CC']
EOPNOTSUPP = errno.EOPNOTSUPP

# Entry points that are implemented: NULL arguments are invalid.
REAL = {
    'mlx5dv_is_supported': 'false',
    'mlx5dv_query_device': 'EINVAL',
    'mlx5dv_init_obj': 'EINVAL',
    'mlx5dv_open_device': 'NULL/EINVAL',
    'mlx5dv_create_qp': 'NULL/EINVAL',
    'mlx5dv_create_cq': 'NULL/EINVAL',
    'mlx5dv_create_wq': 'NULL/EINVAL',
    'mlx5dv_qp_ex_from_ibv_qp_ex': 'NULL/EINVAL',
    'mlx5dv_create_mkey': 'NULL/EINVAL',
    'mlx5dv_destroy_mkey': 'EINVAL',
    '_mlx5dv_mkey_check': 'EINVAL',
    'mlx5dv_qp_cancel_posted_send_wrs': '-EINVAL',
    'mlx5dv_dci_stream_id_reset': 'EINVAL',
    '_mlx5dv_query_port': 'EINVAL',
    'mlx5dv_modify_qp_udp_sport': 'EINVAL',
    'mlx5dv_map_ah_to_qp': 'EINVAL',
    'mlx5dv_get_clock_info': 'EINVAL',
    'mlx5dv_alloc_dm': 'NULL/EINVAL',
    'mlx4dv_init_obj': 'EINVAL',
    'mlx4dv_query_device': 'EINVAL',
    'mlx4dv_set_context_attr': 'EINVAL',
    'mlx4dv_create_qp': 'NULL/EINVAL',
}
# Documented exceptions to "0 or errno value".
NEG_ERRNO = {'mlx5dv_qp_cancel_posted_send_wrs'}
MINUS_ONE = {'mlx5dv_devx_get_event', 'mlx5dv_vfio_get_events_fd'}


def prototypes(header):
    src = subprocess.run([cc, '-E', '-P', '-D_GNU_SOURCE', '-x', 'c', '-'],
                         input='#include <%s>\n' % header,
                         capture_output=True, text=True, check=True).stdout
    text = re.sub(r'\s+', ' ', src)
    stmts, depth, cur = [], 0, ''
    for ch in text:
        cur += ch
        if ch == '{':
            depth += 1
        elif ch == '}':
            depth -= 1
            if depth == 0:
                stmts.append(cur)
                cur = ''
        elif ch == ';' and depth == 0:
            stmts.append(cur)
            cur = ''
    return [s.strip() for s in stmts if '{' not in s]


def exports(lib):
    out = subprocess.run(['readelf', '--dyn-syms', '-W', lib],
                         capture_output=True, text=True, check=True).stdout
    syms = []
    for line in out.splitlines():
        f = line.split()
        if len(f) < 8 or f[6] in ('UND', 'ABS') or f[3] != 'FUNC':
            continue
        m = re.match(r'^([^@]+)@@?(.+)$', f[7])
        if m:
            syms.append((m.group(1), m.group(2)))
    return syms


libdl = ctypes.CDLL(None)
libdl.dlvsym.restype = ctypes.c_void_p
libdl.dlvsym.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p]

fails, checked = [], 0
for name, header in (('mlx5', 'infiniband/mlx5dv.h'),
                     ('mlx4', 'infiniband/mlx4dv.h'),
                     ('efa', 'infiniband/efadv.h')):
    path = os.path.join(libdir, 'lib%s.so.1' % name)
    lib = ctypes.CDLL(path, use_errno=True)
    decls = prototypes(header)
    for sym, ver in exports(path):
        decl = [d for d in decls if re.search(r'[\s*]%s\s*\(' % sym, d)]
        if not decl:
            fails.append('%s@%s: no prototype in <%s>' % (sym, ver, header))
            continue
        d = decl[0]
        ret = d[:d.index(sym + '(')].strip()
        params = d[d.index(sym + '(') + len(sym) + 1:d.rindex(')')].strip()
        nargs = 0 if params in ('', 'void') else params.count(',') + 1
        addr = libdl.dlvsym(lib._handle, sym.encode(), ver.encode())
        if not addr:
            fails.append('%s@%s: dlvsym failed' % (sym, ver))
            continue
        if ret.endswith('*'):
            rtype, kind = ctypes.c_void_p, 'ptr'
        elif ret == 'void':
            rtype, kind = None, 'void'
        elif ret in ('_Bool', 'bool'):
            rtype, kind = ctypes.c_bool, 'bool'
        elif ret == 'ssize_t':
            rtype, kind = ctypes.c_ssize_t, 'int'
        else:
            rtype, kind = ctypes.c_int, 'int'
        fn = ctypes.CFUNCTYPE(rtype, *([ctypes.c_uint64] * nargs),
                              use_errno=True)(addr)
        ctypes.set_errno(0)
        r = fn(*([0] * nargs))
        e = ctypes.get_errno()
        checked += 1
        want = REAL.get(sym)
        if want == 'false':
            ok, exp = r is False, 'false'
        elif want == 'EINVAL':
            ok, exp = r == errno.EINVAL, 'EINVAL'
        elif want == '-EINVAL':
            ok, exp = r == -errno.EINVAL, '-EINVAL'
        elif want == 'NULL/EINVAL':
            ok, exp = r is None and e == errno.EINVAL, 'NULL, errno EINVAL'
        elif kind == 'ptr':
            ok, exp = r is None and e == EOPNOTSUPP, 'NULL, errno EOPNOTSUPP'
        elif kind == 'void':
            ok, exp = True, 'return'
        elif sym in NEG_ERRNO:
            ok, exp = r == -EOPNOTSUPP, '-EOPNOTSUPP'
        elif sym in MINUS_ONE:
            ok, exp = r == -1 and e == EOPNOTSUPP, '-1, errno EOPNOTSUPP'
        else:
            ok, exp = r == EOPNOTSUPP, 'EOPNOTSUPP'
        if not ok:
            fails.append('%s@%s: got %r errno %d, want %s' %
                         (sym, ver, r, e, exp))

print('%d entry points called' % checked)
for f in fails:
    print('FAIL: ' + f)
if checked < 130:
    print('FAIL: expected at least 130 entry points, found %d' % checked)
    sys.exit(1)
sys.exit(1 if fails else 0)
EOF
rc=$?
[ $rc -eq 0 ] && echo "OK: every direct-verbs entry point answers honestly"
exit $rc
