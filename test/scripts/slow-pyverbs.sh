#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# rdma-core's own Python conformance tests (shipped by python3-pyverbs
# under /usr/share/doc/rdma-core/tests) run unmodified against dpverbs:
# LD_LIBRARY_PATH=<our lib dir>, system interpreter, one process per module
# with a time limit. Prints pass/fail/skip/error counts, the failing tests
# with their last error line, and every skip reason (a skip is acceptable
# only where dpverbs honestly reports the feature unsupported).
#
# Usage: slow-pyverbs.sh <our lib dir>
# Environment:
#   DPV_PYVERBS_MODULES  modules to run (default below; rdma_cm ones are
#                        excluded: slow-pyverbs-rdmacm.sh runs them)
#   DPV_PYVERBS_DEV      device (default dpv0), DPV_PYVERBS_GID gid index
#   DPV_PYVERBS_TIMEOUT  seconds per module (default 180; meson allows the
#                        whole script 1200)
#   DPV_PYVERBS_TESTS    tests tree (default /usr/share/doc/rdma-core/tests)
#   DPV_PYVERBS_KEEP     set to keep the logs directory
#   DPV_PYVERBS_NOSKIP   modules in which a skip fails the run too (what
#                        must keep working, e.g. issue proofs)
set -u
LIBDIR=$(readlink -f "${1:?usage: $0 <lib dir>}")
MODULES=${DPV_PYVERBS_MODULES:-"tests.test_device tests.test_pd tests.test_cq
	tests.test_addr tests.test_qp tests.test_mr tests.test_qpex tests.test_cqex
	tests.test_cq_events tests.test_atomic tests.test_flow
	tests.test_rss_traffic tests.test_parent_domain tests.test_shared_pd
	tests.test_relaxed_ordering tests.test_fork tests.test_tag_matching
	tests.test_odp"}
DEV=${DPV_PYVERBS_DEV:-dpv0}
TMO=${DPV_PYVERBS_TIMEOUT:-180}
SRC=${DPV_PYVERBS_TESTS:-/usr/share/doc/rdma-core/tests}
PY=/usr/bin/python3

[ -x "$PY" ] || { echo "SKIP: $PY not found"; exit 77; }
[ -d "$SRC" ] || { echo "SKIP: $SRC not found (install python3-pyverbs)"; exit 77; }
if [ ! -e "$LIBDIR/libibverbs.so.1" ]; then
	echo "FAIL: $LIBDIR/libibverbs.so.1 does not exist (not built yet?)"
	exit 1
fi

WORK=$(mktemp -d /tmp/dpv-pyverbs.XXXXXX)
if [ -z "${DPV_PYVERBS_KEEP:-}" ]; then
	trap 'rm -rf "$WORK"' EXIT
else
	echo "logs kept in $WORK"
fi
cp -r "$SRC" "$WORK/tests"
find "$WORK/tests" -name '*.gz' -exec gunzip -f {} +

args=(--dev "$DEV")
[ -n "${DPV_PYVERBS_GID:-}" ] && args+=(--gid "$DPV_PYVERBS_GID")

for m in $MODULES; do
	case "$m" in
	*rdmacm*)
		echo "$m: excluded (slow-pyverbs-rdmacm.sh runs it: two processes over memif)"
		continue ;;
	esac
	log="$WORK/$m.log"
	start=$(date +%s)
	(cd "$WORK" && LD_LIBRARY_PATH="$LIBDIR" timeout -k 10 "$TMO" \
		"$PY" tests/run_tests.py "${args[@]}" -v "$m") >"$log" 2>&1
	rc=$?
	echo "$rc $(($(date +%s) - start))" >"$WORK/$m.rc"
done

"$PY" - "$WORK" $MODULES <<'EOF'
import os, re, sys

work, modules = sys.argv[1], sys.argv[2:]
tot = {'pass': 0, 'fail': 0, 'error': 0, 'skip': 0}
problems, skips = [], []
for m in modules:
    if 'rdmacm' in m:
        continue
    log = os.path.join(work, m + '.log')
    rcf = os.path.join(work, m + '.rc')
    if not os.path.exists(log):
        continue
    text = open(log, errors='replace').read()
    rc, secs = (int(x) for x in open(rcf).read().split())
    cnt = {'pass': 0, 'fail': 0, 'error': 0, 'skip': 0}
    # Verbose lines: "test_x (tests.mod.Class.test_x) ... ok"; a docstring
    # line may sit between the name and the verdict.
    for mt in re.finditer(
            r'^(test\w*) \(([\w.]+)\)\n?(?:[^\n]*\n)??[^\n]*?\.\.\. '
            r"(ok|FAIL|ERROR|skipped ['\"](.*)['\"]|expected failure|"
            r'unexpected success)\s*$', text, re.M):
        verdict = mt.group(3)
        name = mt.group(2)
        if not name.endswith(mt.group(1)):
            name += '.' + mt.group(1)
        if verdict in ('ok', 'expected failure'):
            cnt['pass'] += 1
        elif verdict == 'FAIL' or verdict == 'unexpected success':
            cnt['fail'] += 1
        elif verdict == 'ERROR':
            cnt['error'] += 1
        else:
            cnt['skip'] += 1
            skips.append((name, mt.group(4)))
    # Details: "FAIL: test_x (tests...)" blocks; keep the last error line.
    for blk in re.split(r'^={50,}\n', text, flags=re.M)[1:]:
        head = blk.split('\n', 1)[0]
        hm = re.match(r'^(FAIL|ERROR): (\w+) \(([\w.]+)\)', head)
        if not hm:
            continue
        body = blk.split('-' * 70)[1] if ('-' * 70) in blk else blk
        lines = [l for l in body.strip().split('\n') if l.strip()]
        last = next((l for l in reversed(lines)
                     if not l.startswith(('Ran ', 'FAILED', 'OK'))), '?')
        name = hm.group(3)
        if not name.endswith(hm.group(2)):
            name += '.' + hm.group(2)
        problems.append((hm.group(1), name, last.strip()[:300]))
    summ = re.search(r'^Ran (\d+) tests? in ([\d.]+)s', text, re.M)
    status = 'ran %s' % summ.group(1) if summ else 'NO SUMMARY'
    # The closing line is authoritative (test output may break verbose
    # lines): "OK", "OK (skipped=2)", "FAILED (failures=1, errors=2, ...)".
    fin = re.search(r'^(OK|FAILED)(?: \((.*)\))?\s*$', text, re.M)
    if summ and fin:
        kv = dict((k, int(v)) for k, v in
                  re.findall(r'(\w+)=(\d+)', fin.group(2) or ''))
        ran = int(summ.group(1))
        cnt['fail'] = kv.get('failures', 0) + kv.get('unexpected_successes', 0)
        cnt['error'] = kv.get('errors', 0)
        cnt['skip'] = kv.get('skipped', 0)
        cnt['pass'] = ran - cnt['fail'] - cnt['error'] - cnt['skip']
    if rc == 124 or rc == 137:
        status = 'TIMEOUT'
        cnt['error'] += 1
        problems.append(('ERROR', m, 'module timed out after %ss' % secs))
    elif not summ:
        cnt['error'] += 1
        tail = [l for l in text.strip().split('\n') if l.strip()][-1:]
        problems.append(('ERROR', m, 'exit %d, no unittest summary: %s' %
                         (rc, tail[0][:300] if tail else '(no output)')))
    print('%-22s %-10s pass %3d  fail %3d  error %3d  skip %3d  (%ds)' %
          (m, status, cnt['pass'], cnt['fail'], cnt['error'], cnt['skip'],
           secs))
    for k in tot:
        tot[k] += cnt[k]
print('%-22s %-10s pass %3d  fail %3d  error %3d  skip %3d' %
      ('TOTAL', '', tot['pass'], tot['fail'], tot['error'], tot['skip']))
if problems:
    print('\nFailures and errors:')
    for kind, name, last in problems:
        print('  %-5s %s\n        %s' % (kind, name, last))
if skips:
    print('\nSkipped (reason):')
    for name, why in skips:
        print('  %s: %s' % (name, why))
noskip = os.environ.get('DPV_PYVERBS_NOSKIP', '').split()
bad_skips = [(n, w) for n, w in skips if n.split('.')[0] + '.' +
             n.split('.')[1] in noskip]
if bad_skips:
    print('\nSkipped where nothing may be (DPV_PYVERBS_NOSKIP):')
    for name, why in bad_skips:
        print('  %s: %s' % (name, why))
sys.exit(1 if tot['fail'] or tot['error'] or bad_skips else 0)
EOF
