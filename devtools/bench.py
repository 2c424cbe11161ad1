#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""dpverbs benchmark: the contenders side by side, interleaved in one sitting.

Contenders, each run as two processes on this machine:
  floor   app/dpv-floor, raw rte_eth_rx_burst/tx_burst over the same port
  dpv     dpverbs through the unmodified perftest binaries (ib_*_lat/_bw)
  tcp     kernel TCP over loopback with qperf (tcp_lat, tcp_bw)
  perf    dpv-test's in-process engine_perf (QP counts; one device on 1
          and 2 lcores: engine_shards), when built

Every case runs once per round and rounds repeat (A B C A B C ...), so slow
phases of a shared machine hit every contender alike. Medians with min-max,
the ratios the data-path issue asks for, results.json and PNG plots (when
gnuplot is installed) go to --out. With --against DIR (another build, say
of the commit before a change), every dpv and perf case also runs on that
build's libraries next to its own (A A' B B' ..., the pair's order
swapped every other round), and a comparison says by how much and in how
many rounds this build won. Called by
devtools/bench.sh.

Around each case app/dpv-floor's dpv-c2c measures how long a cache line
takes between two CPUs. A VM whose host moves its vCPUs between cores
that share a cache and cores that do not shows two values, and every
figure of two processes moves with them; when a sitting saw both, each
ratio is also given from the runs of one placement alone ("near", "far").

With --stalls, app/dpv-floor's dpv-stall runs beside the whole sitting (a
real-time thread per CPU waking every 5 ms) and each run's line names the
times the host stopped a vCPU for more than 50 ms during it: such a run's
figures are the host's, not the library's (results.json "stalls").
"""
import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EAL = "--no-huge --no-pci -m 512 --no-shconf --log-level=error"
# DPV_MEMIF_BSIZE (lib/port/dpv_port_conf.h): the library adds it to a
# memif port without bsize=
MEMIF_BSIZE = 4352


def sh(cmd, env=None, timeout=120):
    """Runs cmd (a list); returns (rc, combined output)."""
    try:
        p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=timeout,
                           text=True, errors="replace")
        return p.returncode, p.stdout
    except subprocess.TimeoutExpired as e:
        out = e.stdout or ""
        if isinstance(out, bytes):
            out = out.decode(errors="replace")
        return 124, out + "\n[timeout]"


# a sitting whose probes lie this far apart (a gap between two groups of
# values, as a ratio) saw two placements of its CPUs
C2C_GAP = 2.0


def _die_with_us():
    """In a child: SIGTERM when this process dies, however it dies (the
    probe's real-time threads must not outlive a killed benchmark)."""
    import ctypes
    import signal
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(1, signal.SIGTERM, 0, 0, 0)  # PR_SET_PDEATHSIG


class StallProbe:
    """dpv-stall beside the sitting: (start, end) CLOCK_MONOTONIC seconds
    of each time a CPU ran nothing of this machine's for more than
    min_ms."""

    def __init__(self, exe, min_ms=50, period_us=5000):
        self.stalls, self.lock = [], threading.Lock()
        self.proc = subprocess.Popen(
            [exe, "--secs", "86400", "--period-us", str(period_us),
             "--min-ms", str(min_ms)], stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, text=True, preexec_fn=_die_with_us)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for line in self.proc.stdout:
            m = re.match(r"STALL cpu=(\d+) ms=([\d.]+) at=([\d.]+)", line)
            if m:
                ms, at = float(m.group(2)), float(m.group(3))
                with self.lock:
                    self.stalls.append((at - ms / 1000.0, at, ms,
                                        int(m.group(1))))

    def during(self, t0, t1):
        """[(cpu, ms)] of the stalls that overlapped [t0, t1]."""
        with self.lock:
            return [(c, ms) for a, b, ms, c in self.stalls
                    if a < t1 and b > t0]

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.reader.join(timeout=2)


def c2c_probe(args):
    """ns a cache line takes between the first two CPUs (dpv-c2c, the
    median of three short runs: one alone can catch the host moving a
    vCPU), or None (one CPU, no such program, the threads did not run
    together)."""
    exe = os.path.join(args.build, "app/dpv-floor/dpv-c2c")
    if not os.path.exists(exe):
        return None
    vals = []
    for _ in range(3):
        rc, out = sh([exe, "--trips", "5000", "--max-ms", "500"],
                     timeout=10)
        m = re.search(r"^RESULT c2c_ns=([\d.]+)", out, re.M)
        if rc == 0 and m:
            vals.append(float(m.group(1)))
    return statistics.median(vals) if vals else None


def placements(probes):
    """probes: {(key, round): (before, after)}. The value between two
    groups of probe values (the widest gap of their sorted logarithms,
    if at least C2C_GAP), and each run's group: "near", "far", or None
    where its two probes fell in different groups or one failed; with no
    such gap, every run None."""
    vals = sorted(v for b in probes.values() for v in b if v)
    cut = None
    # two values at least on each side: one stray probe is no placement
    for i in range(2, len(vals) - 1):
        lo, hi = vals[i - 1], vals[i]
        if hi / lo >= C2C_GAP and (cut is None or
                                   hi / lo > cut[1] / cut[0]):
            cut = (lo, hi)
    if cut is None:
        return None, {}
    edge = (cut[0] * cut[1]) ** 0.5
    group = {}
    for kr, b in probes.items():
        g = {"near" if v < edge else "far" for v in b if v}
        # both probes on one side, and not far apart (the host may have
        # moved the vCPUs during the run and back)
        group[kr] = g.pop() if len(g) == 1 and all(b) and \
            max(b) / min(b) < C2C_GAP else None
    return edge, group


class Pair:
    """A server and a client process over one port type: a memif pair, a
    vhost-user / virtio-user pair (the server on vhost-user, which makes
    the socket), or af_packet / af_xdp on a veth pair between two network
    namespaces the bench creates (and removes) itself."""

    def __init__(self, args, tmp):
        self.args = args
        self.tmp = tmp
        self.seq = 0
        self.ns = None
        self.conf = "/dev/null"
        if args.port in ("af_packet", "af_xdp"):
            self.veth_up()

    def veth_up(self):
        tag = "dpvb%d" % os.getpid()
        # native XDP on veth refuses an MTU above ~3.5 KB ("Peer MTU is
        # too large to set XDP"); af_xdp frames fit 3456 bytes anyway
        # (doc/guides/drivers/af_xdp.rst): 3400 there, 4200 (a 4096 path
        # MTU) for af_packet
        mtu = "3400" if self.args.port == "af_xdp" else "4200"
        self.ns = (tag + "a", tag + "b")
        self.ifs = (tag[:10] + "x", tag[:10] + "y")
        cmds = [["ip", "netns", "add", self.ns[0]],
                ["ip", "netns", "add", self.ns[1]]]
        for kind, (a, b) in (("data", self.ifs),
                             ("ctl", (self.ifs[0] + "c", self.ifs[1] + "c"))):
            cmds += [["ip", "link", "add", a, "type", "veth", "peer", "name",
                      b],
                     ["ip", "link", "set", a, "netns", self.ns[0]],
                     ["ip", "link", "set", b, "netns", self.ns[1]]]
            for ns, i in ((self.ns[0], a), (self.ns[1], b)):
                if kind == "data":
                    cmds.append(["ip", "-n", ns, "link", "set", i, "mtu",
                                 mtu])
                cmds.append(["ip", "-n", ns, "link", "set", i, "up"])
        cmds += [["ip", "-n", self.ns[0], "addr", "add", "198.51.100.1/24",
                  "dev", self.ifs[0] + "c"],
                 ["ip", "-n", self.ns[1], "addr", "add", "198.51.100.2/24",
                  "dev", self.ifs[1] + "c"],
                 ["ip", "-n", self.ns[0], "link", "set", "lo", "up"],
                 ["ip", "-n", self.ns[1], "link", "set", "lo", "up"]]
        for c in cmds:
            rc, out = sh(c)
            if rc != 0:
                self.veth_down()
                raise SystemExit("bench: %s: %s" % (" ".join(c), out))
        if self.args.port == "af_packet":
            self.conf = os.path.join(self.tmp, "af_packet.conf")
            with open(self.conf, "w") as f:
                # a 4096 path MTU: af_packet's frame slots hold the
                # kernel's header too (drivers/af_packet)
                f.write("[dpv0]\nmbuf_size = 4608\nmtu = 4200\n")

    def veth_down(self):
        if self.ns:
            for n in self.ns:
                sh(["ip", "netns", "del", n])

    def prefix(self, side):
        return [] if self.ns is None else ["ip", "netns", "exec",
                                             self.ns[side]]

    def peer(self):
        return "127.0.0.1" if self.ns is None else "198.51.100.1"

    def ports(self, name):
        """(server EAL vdev, client EAL vdev, memif socket or None)."""
        self.seq += 1
        if self.args.port == "memif":
            sock = os.path.join(self.tmp, "m%d.sock" % self.seq)
            common = "socket=%s,socket-abstract=no" % sock
            return ("--vdev=net_memif0,role=server," + common,
                    "--vdev=net_memif0,role=client," + common, sock)
        if self.args.port == "virtio":
            sock = os.path.join(self.tmp, "v%d.sock" % self.seq)
            return ("--vdev=net_vhost0,iface=%s,queues=1" % sock,
                    "--vdev=net_virtio_user0,path=%s,queues=1" % sock, sock)
        if self.args.port == "af_packet":
            v = ("--vdev=net_af_packet0,iface=%s,blocksz=139264,"
                 "framesz=4352,framecnt=2048")
        else:
            v = "--vdev=net_af_xdp0,iface=%s,start_queue=0,queue_count=1"
        return v % self.ifs[0], v % self.ifs[1], None

    def run(self, server_cmd, client_cmd, env_s, env_c, sock, timeout):
        srv = subprocess.Popen(self.prefix(0) + server_cmd, env=env_s,
                               stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True,
                               errors="replace")
        for _ in range(100):
            if sock is None or os.path.exists(sock) or srv.poll() is not None:
                break
            time.sleep(0.05)
        time.sleep(0.3)
        # the server may not listen yet on a loaded machine: retry a few
        # times while it runs
        for _ in range(4):
            rc, cout = sh(self.prefix(1) + client_cmd, env=env_c,
                          timeout=timeout)
            if "Couldn't connect" not in cout or srv.poll() is not None:
                break
            time.sleep(0.5)
        try:
            sout, _ = srv.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            srv.kill()
            sout, _ = srv.communicate()
        if sock and os.path.exists(sock):
            os.unlink(sock)
        return rc, cout, srv.returncode, sout


def kv(line):
    return {k: v for k, v in re.findall(r"(\w+)=([-\w.]+)", line)}


# ---- contenders ----------------------------------------------------------

def floor_case(pair, mode, size, quick):
    exe = os.path.join(pair.args.build, "app/dpv-floor/dpv-floor")
    vs, vc, sock = pair.ports("floor")
    if pair.args.port == "memif":
        # memif: the buffers dpverbs gives its ports, a frame of a 4 KiB
        # path MTU in one (DPDK 22.11's memif splits a frame that spans
        # buffers when a receive burst ends inside it)
        vs += ",bsize=%d" % MEMIF_BSIZE
        vc += ",bsize=%d" % MEMIF_BSIZE
    lc = "--lcores=0@(0-1)"
    extra = ["--iters", "20000" if quick else "200000"] if mode == "lat" \
        else ["--secs", "0.5" if quick else "2"]
    roce = []
    if mode == "roce_lat":
        # RC SEND ping-pong frames of `size` payload bytes, each end's
        # request with the ACK of the other's, ICRCs made and checked
        roce, mode = ["--roce", "send"], "lat"
    elif mode.startswith("roce_"):
        # a stream of RoCE requests of `size` payload bytes, each with
        # its ICRC, checked and copied out at the server (both ends must
        # know)
        roce, mode = ["--roce", mode[len("roce_"):]], "stream"
    base = ["--mode", mode, "--size", str(size)] + roce
    s = [exe] + EAL.split() + [lc, "--file-prefix=fls%d" % os.getpid(), vs,
                              "--", "--role", "server"] + base
    c = [exe] + EAL.split() + [lc, "--file-prefix=flc%d" % os.getpid(), vc,
                              "--", "--role", "client"] + base + extra
    rc, cout, src, sout = pair.run(s, c, None, None, sock, 60)
    out = cout + sout
    res = [kv(l) for l in out.splitlines() if l.startswith("RESULT")]
    if mode == "lat":
        r = next((x for x in res if x.get("mode") == "lat"), None)
        if r is None:
            return None, out
        return {"p50_us": float(r["p50_us"]), "p99_us": float(r["p99_us"]),
                "p999_us": float(r["p999_us"])}, out
    r = next((x for x in res if x.get("mode") == "stream"), None)
    # a RoCE frame that fails the server's check is a bug, not a figure
    if r is None or int(r.get("bad", "0")) != 0 or float(r["mpps"]) <= 0:
        return None, out
    return {"mpps": float(r["mpps"]), "gbps": float(r["gbps"])}, out


LAT_RE = re.compile(r"^\s*(\d+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)"
                    r"\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)")
BW_RE = re.compile(r"^\s*(\d+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)")


def dpv_env(pair, build, link_wait_ms):
    """The environment of a dpverbs process on build's libraries (this
    build's by default), without its port (DPV_EAL) and address."""
    env = dict(os.environ, LD_LIBRARY_PATH=os.path.join(
        build or pair.args.build, "lib"),
               DPV_LINK_WAIT_MS=str(link_wait_ms), DPV_CONF=pair.conf)
    if pair.args.progress:
        env["DPV_PROGRESS"] = pair.args.progress
    if pair.args.port == "virtio":
        # both ends in one namespace: no kernel interfaces (as memif)
        env["DPV_NETDEV"] = "off"
    return env


def perftest_port(pair):
    """perftest's TCP port for the current case (pair.ports() moved seq)."""
    return 20000 + (os.getpid() + pair.seq) % 20000


IDLE_SHIM = "test/libdpv-idle-qps.so"
IDLE_QPS = 63  # the idle QPs of the ib_send_lat+idle case


def perftest_case(pair, tool, size, quick, build=None, idle=0, events=False):
    """One perftest run; idle: that many more QPs per process, never used
    (test/idle_qps.c, this build's, preloaded into both perftests);
    events: both wait for completion events (-e)."""
    vs, vc, sock = pair.ports(tool)
    lat = tool.endswith("_lat")
    if lat:
        # long enough that start-up effects leave the 99th percentile
        n = 100000 if size <= 4096 else (4000 if size <= 65536 else 300)
    else:
        # about a second each, so that start-up is a small part of it
        n = {64: 1000000, 4096: 200000, 65536: 20000}.get(size, 1200)
    if quick:
        n = max(100, n // 50)
    args = [tool, "-d", "dpv0", "-x", "1", "-p", str(perftest_port(pair)),
            "-s", str(size), "-n", str(n)]
    if not lat:
        args.append("--report_gbits")
    if events:
        args.append("-e")
    env = dpv_env(pair, build, 15000)
    if idle:
        env["LD_PRELOAD"] = os.path.abspath(os.path.join(pair.args.build,
                                                         IDLE_SHIM))
        env["DPV_IDLE_QPS"] = str(idle)
    es = dict(env, DPV_EAL=EAL + " " + vs, DPV_IP="192.0.2.1/24")
    ec = dict(env, DPV_EAL=EAL + " " + vc, DPV_IP="192.0.2.2/24")
    c = ["timeout", "60"] + args + [pair.peer()]
    rc, cout, src, sout = pair.run(["timeout", "60"] + args, c, es, ec, sock,
                                   70)
    for line in cout.splitlines():
        m = LAT_RE.match(line) if lat else BW_RE.match(line)
        if m and int(m.group(1)) == size:
            if lat:
                return {"p50_us": float(m.group(5)),
                        "avg_us": float(m.group(6)),
                        "p99_us": float(m.group(8)),
                        "p999_us": float(m.group(9))}, cout
            return {"gbps": float(m.group(4)),
                    "mpps": float(m.group(5))}, cout
    return None, cout + sout


def idle_case(pair, quick, build=None):
    """CPU an idle dpverbs process takes: a perftest server with its device
    open (the engine and its progress thread running) that waits for a
    client that never comes, measured over a few seconds after a second
    of start-up. Percent of one core, all its threads."""
    vs, _, sock = pair.ports("idle")
    env = dict(dpv_env(pair, build, 0), DPV_EAL=EAL + " " + vs,
               DPV_IP="192.0.2.1/24")
    secs = 1.0 if quick else 3.0
    # a session of its own: killed as a group (ip netns exec execs the
    # command, so srv.pid is perftest's)
    srv = subprocess.Popen(pair.prefix(0) + ["ib_write_bw", "-d", "dpv0",
                                             "-x", "1", "-p",
                                             str(perftest_port(pair))],
                           env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True,
                           errors="replace", start_new_session=True)

    def cpu_secs():
        """CPU time of all the process's threads: nanoseconds from each
        thread's schedstat (utime + stime in clock ticks of 10 ms made an
        idle process read 0, 0.33, 0.67 or 1 % over 3 s), ticks where the
        kernel keeps no schedstat."""
        task = "/proc/%d/task" % srv.pid
        try:
            ns = 0
            for tid in os.listdir(task):
                try:
                    with open("%s/%s/schedstat" % (task, tid)) as f:
                        ns += int(f.read().split()[0])
                except FileNotFoundError:
                    pass  # a thread that just exited
            return ns / 1e9
        except (OSError, ValueError, IndexError):
            pass
        try:
            with open("/proc/%d/stat" % srv.pid) as f:
                st = f.read().rsplit(")", 1)[1].split()
            # utime + stime, all threads
            return (int(st[11]) + int(st[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, ValueError, IndexError):
            return None

    time.sleep(1.0)
    t0, c0 = time.monotonic(), cpu_secs()
    time.sleep(secs)
    t1, c1 = time.monotonic(), cpu_secs()
    alive = srv.poll() is None
    try:
        os.killpg(srv.pid, 9)
    except OSError:
        pass
    out, _ = srv.communicate()
    if sock and os.path.exists(sock):
        os.unlink(sock)
    if not alive or c0 is None or c1 is None:
        return None, out + "\n[idle: the server did not stay up]"
    return {"cpu_pct": 100.0 * (c1 - c0) / (t1 - t0)}, out


UNITS = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "sec": 1e6,
         "bytes/sec": 8e-9, "KB/sec": 8e-6, "MB/sec": 8e-3, "GB/sec": 8.0,
         "Kb/sec": 1e-6, "Mb/sec": 1e-3, "Gb/sec": 1.0}


def qperf_case(pair, test, size, quick):
    port = 19000 + os.getpid() % 1000
    srv = subprocess.Popen(["qperf", "-lp", str(port)],
                           stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    time.sleep(0.3)
    rc, out = sh(["qperf", "-lp", str(port), "-t", "1" if quick else "2",
                  "-m", str(size), "127.0.0.1", test], timeout=30)
    srv.kill()
    srv.wait()
    m = re.search(r"(latency|bw)\s*=\s*([\d.]+)\s*(\S+)", out)
    if not m or m.group(3) not in UNITS:
        return None, out
    v = float(m.group(2)) * UNITS[m.group(3)]
    if m.group(1) == "latency":
        return {"p50_us": v}, out
    return {"gbps": v}, out


# the lcores of the shards cases: one shard runs on each of them in turn
# (the mean is "one lcore": a VM's vCPUs need not be equally fast), then
# one device on all of them
SHARD_LCORES = 2


def engine_perf_case(pair, qps, quick, shards=0, build=None):
    """qps QP pairs on one engine; with shards, instead one device served
    by `shards` lcores (16 QP pairs each): the rate of all of them."""
    exe = os.path.join(build or pair.args.build, "test/dpv-test")
    env = dict(os.environ, DPV_PERF_QPS=str(qps),
               # the SIMD width the library gives EAL when it starts it
               DPV_TEST_EAL="--no-huge --no-pci --no-shconf -m 2048 "
               "--force-max-simd-bitwidth=512 -l 0-%d "
               "--log-level=lib.eal:error --file-prefix=dpvb%d" %
               (SHARD_LCORES - 1 if shards else 0, os.getpid()))
    if quick:
        env["DPV_PERF_QUICK"] = "1"
    if shards:
        env["DPV_PERF_SHARDS"] = str(shards)
        env["DPV_PERF_NO_WRITE"] = "1"
    rc, out = sh([exe, "engine_perf"], env=env, timeout=300)
    res = [kv(l) for l in out.splitlines() if l.startswith("RESULT")]
    if shards:
        r = next((x for x in res if x.get("shards") == str(shards)), None)
        return ({"mmsgs": float(r["msg_mps"])} if r else None), out
    r = next((x for x in res if x.get("op") == "send"), None)
    if r is None:
        return None, out
    d = {"mmsgs": float(r["msg_mps"])}
    for k in ("bytes_per_qp", "frames_per_msg", "idle_poll_ns",
              "idle_poll_kick_ns"):
        if k in r:
            d[k] = float(r[k])
    return d, out


EVENT_PEER = "test/dpv-event-peer"
RSOCKET_PEER = "test/dpv-rsocket-peer"


def event_peer_case(pair, gap_ms, quick, build=None, polled=False):
    """dpv-event-peer over memif or virtio (this build's program, build's
    libraries): an RC SEND ping-pong whose ends wait for completion
    events, a ping every gap_ms; the round trip's median and p99. On
    virtio the ping-pong's server (whose thread sleeps when a ping comes)
    is the virtio-user end, the one with receive interrupts. polled: both
    ends wait in poll() on the channel's non-blocking fd
    (EVENT_PEER_POLL=1), as event loops of their own do."""
    exe = os.path.join(pair.args.build, EVENT_PEER)
    vs, vc, sock = pair.ports("event_peer")
    n = 20 if quick else max(50, min(1000, 2000 // max(gap_ms, 1)))
    port = str(perftest_port(pair))
    env = dpv_env(pair, build, 15000)
    if polled:
        env["EVENT_PEER_POLL"] = "1"
    es = dict(env, DPV_EAL=EAL + " " + vs, DPV_IP="192.0.2.1/24")
    ec = dict(env, DPV_EAL=EAL + " " + vc, DPV_IP="192.0.2.2/24")
    swap = pair.args.port == "virtio"
    addr = "192.0.2.2" if swap else "192.0.2.1"
    srv = ["timeout", "60", exe, "server", addr, port, str(n)]
    cli = ["timeout", "60", exe, "client", addr, port, str(n),
           str(gap_ms * 1000)]
    if swap:
        rc, cout, src, sout = pair.run(cli, srv, es, ec, sock, 70)
        cout, sout = sout, cout
    else:
        rc, cout, src, sout = pair.run(srv, cli, es, ec, sock, 70)
    for line in cout.splitlines():
        m = re.match(r"round trips \d+ median ([0-9.]+) us p99 ([0-9.]+)",
                     line)
        if m:
            return {"p50_us": float(m.group(1)),
                    "p99_us": float(m.group(2))}, cout
    return None, cout + sout


def event_perf_case(pair, gap, quick, build=None):
    """dpv-test event_perf (loopback, one process): a SEND every gap us to
    a thread waiting in ibv_get_cq_event(); the post-to-wake-up latency
    and the CPU time per event."""
    exe = os.path.join(build or pair.args.build, "test/dpv-test")
    env = dict(os.environ,
               DPV_TEST_EAL="--no-huge --no-pci --no-shconf -m 512 "
               "--log-level=lib.eal:error --file-prefix=dpve%d" %
               os.getpid())
    if quick:
        env["DPV_PERF_QUICK"] = "1"
    rc, out = sh([exe, "event_perf"], env=env, timeout=120)
    for line in out.splitlines():
        r = kv(line)
        if line.startswith("RESULT") and r.get("gap_us") == str(gap):
            return {k: float(r[k]) for k in
                    ("p50_us", "p99_us", "waiter_cpu_us",
                     "process_cpu_us")}, out
    return None, out


def idle_rsocket_case(pair, quick, build=None):
    """CPU an idle connection takes: dpv-rsocket-peer's "idle" mode (this
    build's program, build's libraries), an rsocket connection with
    nothing on it, the server in a blocking rrecv(), the client asleep;
    each end's process, all its threads, percent of one core. The
    server's rsockets probes the silent client once a second."""
    exe = os.path.join(pair.args.build, RSOCKET_PEER)
    vs, vc, sock = pair.ports("idle_rsocket")
    secs = "2" if quick else "5"
    port = str(perftest_port(pair))
    env = dpv_env(pair, build, 0)
    es = dict(env, DPV_EAL=EAL + " " + vs, DPV_IP="192.0.2.1/24")
    ec = dict(env, DPV_EAL=EAL + " " + vc, DPV_IP="192.0.2.2/24")
    rc, cout, src, sout = pair.run(
        ["timeout", "60", exe, "server", "192.0.2.1", port, secs, "idle"],
        ["timeout", "60", exe, "client", "192.0.2.1", port, secs, "idle"],
        es, ec, sock, 70)
    got = {}
    for who, out in (("server", sout), ("client", cout)):
        m = re.search(r"idle connection: .* process CPU ([0-9.]+) %", out)
        if m:
            got[who + "_cpu_pct"] = float(m.group(1))
    if len(got) != 2:
        return None, cout + sout
    got["cpu_pct"] = max(got.values())
    return got, cout + sout


# ---- the plan --------------------------------------------------------------

def roce_big(args):
    """The payload of the RoCE floor's large WRITEs: the path MTU dpverbs
    runs on this port type (af_xdp's veth MTU of 3400 gives 2048)."""
    return {"af_xdp": 2048, "virtio": 1024}.get(args.port, 4096)


def plan(args):
    cases = []
    sizes_lat = [64, 4096] if args.quick else [64, 4096, 65536]
    sizes_bw = [64, 65536] if args.quick else [64, 4096, 65536, 1048576]
    # the floor's largest frame: what the port carries (af_xdp: its
    # veth MTU of 3400 with the Ethernet header)
    big = {"af_xdp": 3400, "virtio": 1500}.get(args.port, 4096)
    for s in ([64] if args.quick else [64, 1100, big]):
        cases.append(("floor", "lat", s))
        cases.append(("floor", "stream", s))
    # the port and the ICRC alone: 64 B WRITEs and SENDs as RoCE frames
    # (138 and 122 bytes), the ceiling of any RoCE sender's message rate
    # and the round trip of an RC SEND ping-pong (requests and ACKs as
    # RoCE frames), the floor of any RoCE ib_send_lat
    for w in ("roce_write", "roce_send", "roce_lat"):
        cases.append(("floor", w, 64))
    # and WRITEs of a path MTU's payload (4096; 2048 where the port's
    # MTU is below a 4 KiB frame), the ceiling of a RoCE WRITE stream
    cases.append(("floor", "roce_write", roce_big(args)))
    for t in ["ib_send_lat", "ib_write_lat", "ib_read_lat"]:
        for s in sizes_lat:
            if t == "ib_send_lat" and s > 65536:
                continue
            cases.append(("dpv", t, s))
    # the same beside 63 idle QPs a process (an application with many
    # connections that talks on one)
    if os.path.exists(os.path.join(args.build, IDLE_SHIM)):
        cases.append(("dpv", "ib_send_lat+idle%d" % IDLE_QPS, 64))
    # and waiting for completion events instead of polling; and an
    # event-driven ping-pong with a pause of 1 or 20 ms between pings
    # (the progress threads asleep when a ping comes)
    cases.append(("dpv", "ib_send_lat+events", 64))
    if (args.port in ("memif", "virtio") and
            os.path.exists(os.path.join(args.build, EVENT_PEER))):
        for g in [1, 20]:
            cases.append(("dpv", "event_peer_gap_ms", g))
        # the same, each end waiting in a poll() of its own on the
        # channel's fd, which no verbs call announces
        for g in [1, 20]:
            cases.append(("dpv", "event_peer_poll_gap_ms", g))
    for t in ["ib_write_bw", "ib_read_bw", "ib_send_bw"]:
        for s in sizes_bw:
            cases.append(("dpv", t, s))
    # an idle process (device open, nothing to do): its CPU; and an
    # idle rsocket connection (both ends' processes, the busier one)
    cases.append(("dpv", "idle", 0))
    if os.path.exists(os.path.join(args.build, RSOCKET_PEER)):
        cases.append(("dpv", "idle_rsocket", 0))
    if shutil.which("qperf"):
        for s in ([64] if args.quick else [64, 4096, 65536]):
            cases.append(("tcp", "tcp_lat", s))
            cases.append(("tcp", "tcp_bw", s))
    if os.path.exists(os.path.join(args.build, "test/dpv-test")):
        for q in ([1, 256] if args.quick else [1, 16, 256, 4096]):
            cases.append(("perf", "engine_perf", q))
        # completion events: a SEND every 0, 200 and 2,000 us to a
        # waiter in ibv_get_cq_event()
        for g in [0, 200, 2000]:
            cases.append(("perf", "event_perf", g))
        # one device on one lcore, then on two (engine shards)
        for n in ([] if args.quick else [1, SHARD_LCORES]):
            cases.append(("perf", "engine_shards", n))
    if args.only:
        cases = [c for c in cases if re.search(args.only, "%s/%s/%d" % c)]
    if args.against:
        # the other build's run right after this one's, in every round
        twins = []
        for c in cases:
            twins.append(c)
            if c[0] in ("dpv", "perf"):
                twins.append((c[0] + BASE, c[1], c[2]))
        cases = twins
    return cases


# the kind of a case run on the --against build
BASE = "@base"


def run_case(pair, case, quick):
    kind, what, size = case
    build = None
    if kind.endswith(BASE):
        kind, build = kind[:-len(BASE)], pair.args.against
    if kind == "floor":
        return floor_case(pair, what, size, quick)
    if kind == "dpv" and what == "idle":
        return idle_case(pair, quick, build)
    if kind == "dpv" and what == "idle_rsocket":
        return idle_rsocket_case(pair, quick, build)
    if kind == "dpv" and what == "event_peer_gap_ms":
        return event_peer_case(pair, size, quick, build)
    if kind == "dpv" and what == "event_peer_poll_gap_ms":
        return event_peer_case(pair, size, quick, build, polled=True)
    if kind == "dpv" and what.endswith("+events"):
        return perftest_case(pair, what[:-len("+events")], size, quick,
                             build, events=True)
    if kind == "dpv" and "+idle" in what:
        tool, n = what.split("+idle")
        return perftest_case(pair, tool, size, quick, build, idle=int(n))
    if kind == "dpv":
        return perftest_case(pair, what, size, quick, build)
    if kind == "tcp":
        return qperf_case(pair, what, size, quick)
    if what == "event_perf":
        return event_perf_case(pair, size, quick, build=build)
    if what == "engine_shards":
        return engine_perf_case(pair, 1, quick, shards=size, build=build)
    return engine_perf_case(pair, size, quick, build=build)


def round_order(cases, rnd):
    """The cases of round rnd: with --against, a case and its twin on the
    other build swap places every other round (whichever runs second in a
    pair tends to win on this VM)."""
    if rnd % 2 == 0:
        return cases
    out = list(cases)
    for i in range(len(out) - 1):
        if out[i + 1][0] == out[i][0] + BASE:
            out[i], out[i + 1] = out[i + 1], out[i]
    return out


def compare(raw, rounds):
    """Every case that ran on both builds: per metric, this build's median
    over the other's, and the rounds this build won (the two runs of one
    round compared; a round where either failed is left out)."""
    out = []
    for key in sorted(raw):
        kind, rest = key.split("/", 1)
        bkey = kind + BASE + "/" + rest
        base = raw.get(bkey)
        if kind.endswith(BASE) or base is None:
            continue
        for m, vals in sorted(raw[key].items()):
            bvals = base.get(m)
            if not bvals or statistics.median(bvals) == 0:
                continue
            # a time, a size or a CPU share: lower is better
            lower = m.endswith("_us") or m.endswith("_ns") or \
                m.endswith("cpu_pct") or m in ("bytes_per_qp",
                                               "frames_per_msg")
            mine = rounds.get(key, {}).get(m, {})
            theirs = rounds.get(bkey, {}).get(m, {})
            pairs = [(mine[r], theirs[r]) for r in sorted(mine)
                     if r in theirs]
            wins = sum(1 for a, b in pairs if (a < b if lower else a > b))
            # how far one build's own rounds lie apart (max / min): a
            # difference of the medians below it is the host's noise
            spread = max(max(v) / min(v) if min(v) > 0 else float("inf")
                         for v in (vals, bvals))
            out.append({"case": key, "metric": m, "spread": spread,
                        "median": statistics.median(vals),
                        "base_median": statistics.median(bvals),
                        "ratio": statistics.median(vals) /
                        statistics.median(bvals),
                        "better": "lower" if lower else "higher",
                        "wins": wins, "rounds": len(pairs)})
    return out


def summary(vals):
    return {"median": statistics.median(vals), "min": min(vals),
            "max": max(vals), "runs": vals}


def ratios(res, rounds, args, group=None):
    """The figures of the data-path issue, as ratios of medians; each also
    as the median of its per-round ratios ("paired": both sides from the
    same round, steadier when the host changes speed between rounds), and
    where the sitting saw two placements of its CPUs (group: placements()),
    as the ratio of the medians of the runs of each placement alone."""
    out = []
    group = group or {}

    def placed(a, g):
        runs = rounds.get(a[0], {}).get(a[1], {})
        return [v for r, v in sorted(runs.items())
                if group.get((a[0], r)) == g]

    def key(kind, what, size):
        return "%s/%s/%d" % (kind, what, size)

    def val(k, m):
        r = res.get(k, {}).get(m)
        return r["median"] if r else None

    def paired(a, b):
        ra = rounds.get(a[0], {}).get(a[1], {})
        rb = rounds.get(b[0], {}).get(b[1], {})
        v = [ra[r] / rb[r] for r in sorted(ra) if r in rb and rb[r]]
        return statistics.median(v) if v else None

    def add(name, a, b, goal, higher_better):
        """a, b: (case key, metric); b may be a constant instead; goal
        None: a figure to read the others by, with no goal of its own"""
        va = val(*a)
        if isinstance(b, tuple):
            vb, pr = val(*b), paired(a, b)
        else:
            vb, pr = b, (va / b if va is not None and b else None)
        if va is None or vb is None or vb == 0:
            return
        r = va / vb
        ok = None if goal is None else \
            (r >= goal if higher_better else r <= goal)
        item = {"ratio": name, "value": r, "paired": pr, "goal": goal,
                "goal_met": ok, "sense": ">=" if higher_better else "<="}
        for g in ("near", "far"):
            na = placed(a, g)
            nb = placed(b, g) if isinstance(b, tuple) else [b]
            item[g] = statistics.median(na) / statistics.median(nb) \
                if na and nb and statistics.median(nb) else None
        out.append(item)

    add("send_lat 64B / floor one-way 64B",
        (key("dpv", "ib_send_lat", 64), "p50_us"),
        (key("floor", "lat", 64), "p50_us"), 1.5, False)
    # what the RoCE frames (a 122-byte SEND and a 62-byte ACK each way,
    # their ICRCs) leave of the raw floor, and our share of that
    add("floor roce_lat 64B / floor one-way 64B",
        (key("floor", "roce_lat", 64), "p50_us"),
        (key("floor", "lat", 64), "p50_us"), None, False)
    add("send_lat 64B / floor roce_lat 64B",
        (key("dpv", "ib_send_lat", 64), "p50_us"),
        (key("floor", "roce_lat", 64), "p50_us"), None, False)
    # what idle QPs cost the one in use (no goal: 1 is the design)
    add("send_lat 64B beside %d idle QPs / alone" % IDLE_QPS,
        (key("dpv", "ib_send_lat+idle%d" % IDLE_QPS, 64), "p50_us"),
        (key("dpv", "ib_send_lat", 64), "p50_us"), None, False)
    add("send_lat p99 / its median",
        (key("dpv", "ib_send_lat", 64), "p99_us"),
        (key("dpv", "ib_send_lat", 64), "p50_us"), 3.0, False)
    fl = next((k for k in (key("floor", "stream", s)
                           for s in (4096, 3400, 1100))
               if val(k, "gbps")), None)
    tcps = [k for k in (key("tcp", "tcp_bw", s) for s in (64, 4096, 65536))
            if val(k, "gbps")]
    tcp = max(tcps, key=lambda k: val(k, "gbps")) if tcps else None
    # fl / tcp None: no such case ran, and add() leaves the ratio out
    for t in ("ib_write_bw", "ib_read_bw"):
        add("%s 64KiB / floor stream" % t,
            (key("dpv", t, 65536), "gbps"), (fl, "gbps"), 0.5, True)
        add("%s 64KiB / best tcp_bw" % t,
            (key("dpv", t, 65536), "gbps"), (tcp, "gbps"), 3.0, True)
    # what the port and the ICRC (made, checked) and a copy at each end
    # leave of the floor's stream, and our share of that
    rw = key("floor", "roce_write", roce_big(args))
    add("floor roce_write MTU / floor stream", (rw, "gbps"), (fl, "gbps"),
        None, True)
    add("ib_write_bw 64KiB / floor roce_write MTU",
        (key("dpv", "ib_write_bw", 65536), "gbps"), (rw, "gbps"), None,
        True)
    for t, w in (("ib_write_bw", "roce_write"), ("ib_send_bw", "roce_send")):
        add("%s 64B rate / floor 64B rate" % t,
            (key("dpv", t, 64), "mpps"),
            (key("floor", "stream", 64), "mpps"), 0.5, True)
        # what the port and the ICRC leave of the floor, and our share of
        # that: the goal above is out of reach where the first is below it
        add("floor %s 64B / floor 64B rate" % w,
            (key("floor", w, 64), "mpps"),
            (key("floor", "stream", 64), "mpps"), None, True)
        add("%s 64B rate / floor %s 64B" % (t, w),
            (key("dpv", t, 64), "mpps"), (key("floor", w, 64), "mpps"),
            None, True)
    add("engine 4096 QPs / 1 QP",
        (key("perf", "engine_perf", 4096), "mmsgs"),
        (key("perf", "engine_perf", 1), "mmsgs"), 0.7, True)
    add("device on 2 lcores / on 1 (shards)",
        (key("perf", "engine_shards", 2), "mmsgs"),
        (key("perf", "engine_shards", 1), "mmsgs"), 1.8, True)
    # not a ratio: an idle device should cost near nothing
    add("idle process CPU, % of one core",
        (key("dpv", "idle", 0), "cpu_pct"), 1.0, 1.0, False)
    # and with an rsocket connection open (no goal of its own)
    add("idle rsocket connection CPU, % of one core",
        (key("dpv", "idle_rsocket", 0), "cpu_pct"), 1.0, None, False)
    return out


def fmt_metric(m, s):
    return "%.3g [%.3g-%.3g]" % (s["median"], s["min"], s["max"])


def fmt_ratio(v):
    return "-" if v is None else "%.3f" % v


def table(res, rat, cmp, edge=None):
    lines = ["%-32s %-8s %s" % ("case", "metric", "median [min-max]")]
    for key in sorted(res):
        for m, s in sorted(res[key].items()):
            lines.append("%-32s %-8s %s" % (key, m, fmt_metric(m, s)))
    lines.append("")
    two = edge is not None
    lines.append("%-42s %8s %8s %8s %s%s" % (
        "ratio", "value", "paired", "goal", "met",
        "   %8s %8s" % ("near", "far") if two else ""))
    for r in rat:
        lines.append(("%-42s %8.3f %8s %s %-3s%s" % (
            r["ratio"], r["value"], fmt_ratio(r["paired"]),
            "%-8s" % "-" if r["goal"] is None else
            "%s%-6g" % (r["sense"], r["goal"]),
            "-" if r["goal_met"] is None else
            "yes" if r["goal_met"] else "no",
            "   %8s %8s" % (fmt_ratio(r.get("near")),
                            fmt_ratio(r.get("far"))) if two else ""))
                     .rstrip())
    if two:
        lines.append("near / far: from the runs whose CPUs passed a cache "
                     "line in under / over %.0f ns (dpv-c2c before and "
                     "after the run; runs that straddled a change left "
                     "out)" % edge)
    if cmp:
        lines.append("")
        lines.append("%-32s %-8s %9s %9s %7s %6s %s" % (
            "against --against build", "metric", "this", "base",
            "ratio", "spread", "won (better: lower/higher)"))
        noisy = 0
        for c in cmp:
            # the medians differ by less than half a build's own spread
            within = abs(c["ratio"] - 1) < (c["spread"] - 1) / 2
            noisy += within
            lines.append("%-32s %-8s %9.4g %9.4g %7.3f %6.2f %d of %d (%s)%s"
                         % (c["case"], c["metric"], c["median"],
                            c["base_median"], c["ratio"], c["spread"],
                            c["wins"], c["rounds"], c["better"],
                            " ~" if within else ""))
        if noisy:
            lines.append("~ %d of %d: the medians differ by less than half "
                         "the spread of one build's own rounds (max / min):"
                         " within the host's noise" % (noisy, len(cmp)))
    return "\n".join(lines)


def plots(res, out):
    if not shutil.which("gnuplot"):
        print("(no gnuplot: no plots; apt-get install gnuplot-nox)")
        return

    def series(kind, what, metric):
        pts = []
        for key, v in res.items():
            k, w, s = key.split("/")
            if k == kind and w == what and metric in v:
                pts.append((int(s), v[metric]["median"], v[metric]["min"],
                            v[metric]["max"]))
        return sorted(pts)

    figs = [
        ("latency.png", "one-way latency (median, min-max over runs)",
         "us", [("floor raw DPDK", series("floor", "lat", "p50_us")),
                ("dpverbs ib_send_lat", series("dpv", "ib_send_lat",
                                               "p50_us")),
                ("dpverbs ib_write_lat", series("dpv", "ib_write_lat",
                                                "p50_us")),
                ("dpverbs ib_read_lat", series("dpv", "ib_read_lat",
                                               "p50_us")),
                ("dpverbs ib_send_lat p99", series("dpv", "ib_send_lat",
                                                   "p99_us")),
                ("kernel TCP qperf", series("tcp", "tcp_lat", "p50_us"))]),
        ("bandwidth.png", "bandwidth (median, min-max over runs)", "Gb/s",
         [("floor raw DPDK", series("floor", "stream", "gbps")),
          ("dpverbs ib_write_bw", series("dpv", "ib_write_bw", "gbps")),
          ("dpverbs ib_read_bw", series("dpv", "ib_read_bw", "gbps")),
          ("dpverbs ib_send_bw", series("dpv", "ib_send_bw", "gbps")),
          ("kernel TCP qperf", series("tcp", "tcp_bw", "gbps"))]),
    ]
    for name, title, unit, ss in figs:
        ss = [(t, p) for t, p in ss if p]
        if not ss:
            continue
        gp = ["set terminal pngcairo size 900,560" if
              "pngcairo" in sh(["gnuplot", "-e", "set terminal"])[1]
              else "set terminal png size 900,560",
              "set output '%s'" % os.path.join(out, name),
              "set title '%s'" % title, "set logscale xy",
              "set xlabel 'message / frame size (bytes)'",
              "set ylabel '%s'" % unit, "set key left top", "set grid"]
        plot = []
        data = []
        for t, p in ss:
            plot.append("'-' using 1:2:3:4 with yerrorlines title '%s'" % t)
            data.append("\n".join("%d %g %g %g" % x for x in p) + "\ne")
        gp.append("plot " + ", ".join(plot))
        subprocess.run(["gnuplot"], input="\n".join(gp + data) + "\n",
                       text=True, check=False)
        print("wrote", os.path.join(out, name))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--out", default=os.path.join(ROOT, "build/bench"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--quick", action="store_true",
                    help="seconds-long version (proves the bench runs)")
    ap.add_argument("--port", default="memif",
                    choices=["memif", "virtio", "af_packet", "af_xdp"],
                    help="memif pair, vhost-user / virtio-user pair, or a "
                    "veth pair between two network namespaces (needs "
                    "root)")
    ap.add_argument("--progress", default="",
                    help="DPV_PROGRESS for the dpverbs processes")
    ap.add_argument("--only", help="regex over kind/what/size")
    ap.add_argument("--stalls", action="store_true",
                    help="run app/dpv-floor/dpv-stall beside the sitting "
                    "and name each run's host stalls over 50 ms")
    ap.add_argument("--against", metavar="DIR",
                    help="another build directory (e.g. of the commit "
                    "before a change): its dpv and perf cases run right "
                    "after this build's, compared at the end")
    args = ap.parse_args()
    if args.against and not os.path.isdir(os.path.join(args.against,
                                                       "lib")):
        ap.error("--against %s: no lib/ in it (a build directory)" %
                 args.against)
    os.makedirs(args.out, exist_ok=True)
    cases = plan(args)
    raw, rounds, probes, stalls = {}, {}, {}, {}
    fails, retried = [], []
    exe = os.path.join(args.build, "app/dpv-floor/dpv-stall")
    if args.stalls and not os.access(exe, os.X_OK):
        ap.error("--stalls: no %s" % exe)
    args.stall_probe = StallProbe(exe) if args.stalls else None
    with tempfile.TemporaryDirectory(prefix="dpv-bench.") as tmp:
        pair = Pair(args, tmp)
        try:
            run_all(pair, cases, args, raw, rounds, fails, retried, probes,
                    stalls)
        finally:
            pair.veth_down()
            if args.stall_probe:
                args.stall_probe.stop()
    return finish(args, raw, rounds, fails, retried, probes, stalls)


def run_all(pair, cases, args, raw, rounds, fails, retried, probes,
            stalls):
    """Every case once per round, rounds repeated: A B C A B C ... A run
    that fails is tried once more (a shared machine's hiccup, e.g. a memif
    peer starved for seconds, should not end a long benchmark); its log is
    kept and the case is listed as retried, or as failed if the second try
    fails too."""
    for rnd in range(args.runs):
        for case in round_order(cases, rnd):
            key = "%s/%s/%d" % case
            for attempt in (1, 2):
                before = c2c_probe(args)
                t0, m0 = time.time(), time.monotonic()
                r, out = run_case(pair, case, args.quick)
                dt, m1 = time.time() - t0, time.monotonic()
                after = c2c_probe(args)
                if r is not None:
                    break
                log = os.path.join(args.out, "failed-%s-%d%s.log" % (
                    key.replace("/", "_"), rnd + 1,
                    "" if attempt == 1 else "-again"))
                with open(log, "w") as f:
                    f.write(out)
                tail = "\n  ".join(out.strip().splitlines()[-6:])
                print("run %d %-30s FAILED%s (%.1fs)\n  %s" %
                      (rnd + 1, key, ", trying again" if attempt == 1
                       else " again", dt, tail), flush=True)
            if r is None:
                fails.append(key)
                continue
            if attempt == 2:
                retried.append(key)
            probes[(key, rnd)] = (before, after)
            st = ""
            if args.stall_probe:
                # the reader may not have the last line yet
                time.sleep(0.01)
                hit = args.stall_probe.during(m0, m1)
                stalls["%s/%d" % (key, rnd + 1)] = [
                    {"cpu": c, "ms": ms} for c, ms in hit]
                st = "".join(", host stall %.0f ms on CPU %d" % (ms, c)
                             for c, ms in hit)
            print("run %d %-30s %s (%.1fs, c2c %s/%s ns%s)" % (
                rnd + 1, key, " ".join("%s=%g" % kv_ for kv_ in
                                       r.items()), dt,
                "-" if before is None else "%.0f" % before,
                "-" if after is None else "%.0f" % after, st), flush=True)
            for m, v in r.items():
                raw.setdefault(key, {}).setdefault(m, []).append(v)
                rounds.setdefault(key, {}).setdefault(m, {})[rnd] = v


def finish(args, raw, rounds, fails, retried, probes, stalls):
    res = {k: {m: summary(v) for m, v in ms.items()} for k, ms in raw.items()}
    edge, group = placements(probes)
    rat = ratios(res, rounds, args, group)
    cmp = compare(raw, rounds)
    txt = table(res, rat, cmp, edge)
    print()
    print(txt)
    meta = {"date": time.strftime("%Y-%m-%d %H:%M:%S"),
            "host": platform.node(), "cpu": cpu_model(),
            "cpus": os.cpu_count(), "kernel": platform.release(),
            "runs": args.runs, "quick": args.quick, "port": args.port,
            "commit": sh(["git", "-C", ROOT, "rev-parse", "--short",
                          "HEAD"])[1].strip(),
            "build": args.build, "against": args.against}
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump({"meta": meta, "results": res, "ratios": rat,
                   "compare": cmp, "failed": fails, "retried": retried,
                   # the cache-line probe around each run, its group
                   "c2c": {"edge_ns": edge, "runs": {
                       "%s/%d" % (k, r + 1): {"before_ns": b[0],
                                              "after_ns": b[1],
                                              "group": group.get((k, r))}
                       for (k, r), b in sorted(probes.items())}},
                   # with --stalls: each run's host stalls over 50 ms
                   "stalls": stalls if args.stalls else None},
                  f, indent=1)
    with open(os.path.join(args.out, "table.txt"), "w") as f:
        f.write(txt + "\n")
    print("wrote", os.path.join(args.out, "results.json"))
    plots(res, args.out)
    hit = sorted(k for k, v in stalls.items() if v)
    if args.stalls:
        print("%d of %d runs overlapped a host stall over 50 ms%s" % (
            len(hit), len(stalls), (": " + " ".join(hit)) if hit else ""))
    if retried:
        print("%d case runs failed once and passed when tried again: %s" %
              (len(retried), " ".join(retried)))
    if fails:
        print("%d case runs failed: %s" % (len(fails), " ".join(fails)))
        return 1
    return 0


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


if __name__ == "__main__":
    sys.exit(main())
