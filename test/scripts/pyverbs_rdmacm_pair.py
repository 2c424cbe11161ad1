# SPDX-License-Identifier: BSD-3-Clause
"""Run rdma-core's tests.test_rdmacm test methods between two processes,
each with its own dpverbs device on one end of a memif pair.

rdma-core's harness (RDMACMBaseTest.two_nodes_rdmacm_traffic) forks both
players off a parent that has already opened the device: they share one
HCA there. A dpverbs device belongs to one process, so this driver keeps
every test method, connection class and traffic flow of rdma-core's
modules as they are and replaces only that launcher: each player is a
fresh interpreter (its own EAL and memif end, both with the address the
test uses), the Barrier and the Queue the players share are served by a
multiprocessing manager, and the verdict follows the original rules
(exit 0 pass, 5 skip, 1-4 exception; a bad flow must stay stuck).

  parent: pyverbs_rdmacm_pair.py TESTS_DIR WORK_DIR [test ...]
  player: pyverbs_rdmacm_pair.py --player passive|active TESTS_DIR
          MANAGER_SOCKET TEST
Environment of the parent: DPV_RDMACM_IP (default 192.0.2.1),
DPV_RDMACM_TIMEOUT (seconds per test, default 60).
"""
import multiprocessing.managers as mpm
import os
import queue
import subprocess
import sys
import threading
import time

AUTHKEY = b'dpv-rdmacm'
EAL = '--no-huge --no-pci -m 512 --no-shconf'
# multicast: 10 messages, two barrier rounds each, then the two rounds of
# the first message after the leave; the receiver then waits for a message
# that must not come, and the sender at the next round
BAD_FLOW_ROUNDS = 22


class CountingBarrier:
    """threading.Barrier that counts the rounds it let through."""

    def __init__(self, parties, timeout):
        self.rounds = 0
        self.barrier = threading.Barrier(parties, action=self._done,
                                         timeout=timeout)

    def _done(self):
        self.rounds += 1

    def wait(self, timeout=None):
        return self.barrier.wait(timeout)

    def passed(self):
        return self.rounds


class Manager(mpm.BaseManager):
    pass


def load_tests(tests_dir):
    sys.path[:0] = [tests_dir, os.path.join(tests_dir, 'tests')]
    from args_parser import parser
    parser.args = {'dev': 'dpv0', 'pci_dev': None, 'port': 1, 'gid': None,
                   'gpu': 0, 'gtt': False, 'verbosity': None,
                   'list_tests': False}
    import tests.test_rdmacm as t
    return t


def player(role, tests_dir, sock, name):
    t = load_tests(tests_dir)
    Manager.register('syncer')
    Manager.register('notifier')
    m = Manager(address=sock, authkey=AUTHKEY)
    m.connect()
    tc = t.CMTestCase(name)
    tc.dev_name, tc.ib_port, tc.gid_index = 'dpv0', 1, None
    tc.ip_addr = os.environ['DPV_RDMACM_IP']

    def one_side(connection_resources, test_flow, bad_flow=False, **kw):
        # rdma-core's own hardware check, then this side's half of the flow
        if kw.get('port_space') == t.ce.RDMA_PS_UDP and \
                tc.is_eth_and_has_roce_hw_bug():
            sys.exit(5)
        tc.syncer = m.syncer()
        tc.notifier = m.notifier()
        test_flow(connection_resources=connection_resources,
                  passive=(role == 'passive'), **kw)
        sys.exit(0)

    tc.two_nodes_rdmacm_traffic = one_side
    try:
        getattr(tc, name)()
    except t.unittest.SkipTest as ex:
        print('skip: %s' % ex)
        sys.exit(5)
    sys.exit(0)


def run_one(t, tests_dir, work, name, tmo):
    """PASS / FAIL / SKIP and a reason for test method name."""
    # the method's own launcher arguments: call it with a recording
    # launcher (the parent's device, the in-process loopback, only answers
    # requires_mcast_support's query)
    case = t.CMTestCase(name)
    case.dev_name = 'dpv0'
    rec = {}

    def record(connection_resources, test_flow, bad_flow=False, **kw):
        rec['bad_flow'] = bad_flow
    case.two_nodes_rdmacm_traffic = record
    try:
        getattr(case, name)()
    except t.unittest.SkipTest as ex:
        return 'SKIP', str(ex)
    bad_flow = rec['bad_flow']
    sock = os.path.join(work, 'mgr-%s.sock' % name)
    msock = os.path.join(work, 'memif-%s.sock' % name)
    shared = (CountingBarrier(2, 60 if bad_flow else 15), queue.Queue())
    Manager.register('syncer', callable=lambda: shared[0])
    Manager.register('notifier', callable=lambda: shared[1])
    m = Manager(address=sock, authkey=AUTHKEY)
    m.start()
    barrier = m.syncer()  # the manager's process holds the objects
    procs = {}
    logs = {}
    try:
        for role, mrole in (('passive', 'server'), ('active', 'client')):
            env = dict(os.environ, DPV_CONF='/dev/null',
                       DPV_IP=os.environ['DPV_RDMACM_IP'] + '/24',
                       DPV_EAL='%s --vdev=net_memif0,role=%s,socket=%s,'
                               'socket-abstract=no' % (EAL, mrole, msock))
            logs[role] = open(os.path.join(work, '%s.%s' % (name, role)),
                              'w+')
            procs[role] = subprocess.Popen(
                [sys.executable, __file__, '--player', role, tests_dir, sock,
                 name], env=env, stdout=logs[role], stderr=subprocess.STDOUT)
            # the memif client needs the server's socket
            end = time.time() + 10
            while role == 'passive' and not os.path.exists(msock) and \
                    time.time() < end and procs[role].poll() is None:
                time.sleep(0.05)
        end = time.time() + tmo
        while time.time() < end and \
                any(p.poll() is None for p in procs.values()):
            if bad_flow and barrier.passed() >= BAD_FLOW_ROUNDS:
                time.sleep(2)  # both must stay stuck
                break
            time.sleep(0.1)
        rc = {r: p.poll() for r, p in procs.items()}
        for p in procs.values():
            if p.poll() is None:
                p.kill()
                p.wait()
        rounds = barrier.passed()
    finally:
        m.shutdown()
    out = ''
    for r in ('passive', 'active'):
        logs[r].seek(0)
        lines = [l.rstrip() for l in logs[r] if 'avx512' not in l]
        out += ''.join('\n    %s: %s' % (r, l) for l in lines[-6:])
        logs[r].close()
    if any(v == 5 for v in rc.values()):
        return 'SKIP', out
    if any(v is not None and v != 0 for v in rc.values()):
        return 'FAIL', 'exception (exit %s)%s' % (rc, out)
    if bad_flow:
        if all(v is None for v in rc.values()) and \
                rounds == BAD_FLOW_ROUNDS:
            return 'PASS', 'stuck after the leave, as it must (%d rounds)' \
                % rounds
        return 'FAIL', 'bad flow: %d rounds, exits %s%s' % (rounds, rc, out)
    if any(v is None for v in rc.values()):
        return 'FAIL', 'stuck: killed after %ds (%d rounds)%s' % (
            tmo, rounds, out)
    return 'PASS', '%d rounds' % rounds


def main():
    if len(sys.argv) > 1 and sys.argv[1] == '--player':
        player(*sys.argv[2:6])
    tests_dir, work = sys.argv[1], sys.argv[2]
    t = load_tests(tests_dir)
    names = sys.argv[3:] or t.unittest.TestLoader().getTestCaseNames(
        t.CMTestCase)
    tmo = int(os.environ.get('DPV_RDMACM_TIMEOUT', '60'))
    os.environ.setdefault('DPV_RDMACM_IP', '192.0.2.1')
    count = {'PASS': 0, 'FAIL': 0, 'SKIP': 0}
    for name in names:
        start = time.time()
        verdict, why = run_one(t, tests_dir, work, name, tmo)
        count[verdict] += 1
        print('%-4s %s (%.1fs): %s' % (verdict, name, time.time() - start,
                                       why), flush=True)
    print('%d passed, %d failed, %d skipped' % (count['PASS'], count['FAIL'],
                                               count['SKIP']))
    sys.exit(1 if count['FAIL'] or not count['PASS'] else 0)


if __name__ == '__main__':
    main()
