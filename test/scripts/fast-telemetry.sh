#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# rte_telemetry: two ibv_rc_pingpong processes joined by memif; while they
# run, the server's telemetry socket (the one dpdk-telemetry.py reads)
# must list dpv0, its RC QP in RTS with its own counters, and device
# counters that move (frames received, ACKs). The query client speaks the telemetry socket protocol
# (SOCK_SEQPACKET, JSON replies) itself, so dpdk-telemetry.py is not needed.
# Arguments: <build>/lib, source root, build root.
set -u
LIBDIR=${1:?usage: $0 <lib dir> <source root> <build root>}
SRC=${2:-$(dirname "$0")/../..}
. "$SRC/test/scripts/interop-common.sh"
ic_init
ic_need ibv_rc_pingpong python3
ic_env_memif
run_end() { # role eal ip [peer]
	env LD_LIBRARY_PATH="$LIBDIR" DPV_CONF=/dev/null DPV_EAL="$2" \
		DPV_IP="$3" timeout 40 ibv_rc_pingpong -d dpv0 -g 1 \
		-p $IC_TCP -n 2000000 -s 64 ${4:-} >"$IC_TMP/$1" 2>&1 &
	IC_PIDS="$IC_PIDS $!"
}
# no --no-shconf here: the telemetry socket lives in the runtime directory
EAL="--no-huge --no-pci -m 512"
run_end server "$EAL ${IC_SEAL#$IC_EAL}" 192.0.2.1/24
SPID=$!
for _ in $(seq 100); do [ -S "$IC_SOCK" ] && break; sleep 0.1; done
sleep 0.5
run_end client "$EAL ${IC_CEAL#$IC_EAL}" 192.0.2.2/24 127.0.0.1
CPID=$!
# the server's pid is the child of timeout(1)
for _ in $(seq 50); do
	PID=$(pgrep -P "$SPID" ibv_rc_pingpong) && break
	sleep 0.1
done
SOCK=/var/run/dpdk/dpv$PID/dpdk_telemetry.v2
python3 - "$SOCK" <<'PY'
import json, socket, sys, time

path = sys.argv[1]
fails = []

def query(cmd):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.settimeout(5)
    s.connect(path)
    json.loads(s.recv(16384).decode())          # the greeting
    s.send(cmd.encode())
    reply = json.loads(s.recv(1 << 20).decode())
    s.close()
    return reply[cmd.split(",")[0]]

def check(what, ok):
    print(("PASS " if ok else "FAIL ") + what)
    if not ok:
        fails.append(what)

end = time.time() + 20
while True:                                     # bounded: 20 s
    try:
        devs = query("/dpverbs/devices")
        qps = query("/dpverbs/qps,dpv0")
        c = query("/dpverbs/counters,dpv0")
        if qps and c["rx_pkts"] > 100 and c["acks_rcvd"] > 0:
            break
    except (OSError, ValueError, KeyError, TypeError):
        pass
    if time.time() > end:
        print("FAIL telemetry: no traffic seen within 20 s")
        sys.exit(1)
    time.sleep(0.2)
check("devices %s" % devs, devs == ["dpv0"])
check("one QP %s" % qps, len(qps) == 1)
qp = query("/dpverbs/qp,dpv0,%d" % qps[0])
check("qp %s" % {k: qp[k] for k in ("qpn", "type", "state")},
      qp["qpn"] == qps[0] and qp["type"] == "RC" and qp["state"] == "RTS")
check("per-QP counters: rx_pkts %d, acks_sent %d" %
      (qp.get("rx_pkts", 0), qp.get("acks_sent", 0)),
      qp.get("rx_pkts", 0) > 0 and qp.get("acks_sent", 0) > 0 and
      qp["rx_pkts"] <= query("/dpverbs/counters,dpv0")["rx_pkts"])
# where the QP stands: one snapshot under the engine lock, so the counts
# of its send queue are in order (the run is far from 2^32 WRs)
ST = ("sq_posted", "sq_fetched", "sq_sent", "sq_done", "sq_polled",
      "sq_psn", "sq_acked_psn", "rq_posted", "rq_taken", "rq_psn",
      "rq_msn", "retry_left", "rnr_left", "on_run_list", "timer_us")
print("qp state: %s" % {k: qp.get(k) for k in ST})
check("qp state fields present", all(k in qp for k in ST))
if all(k in qp for k in ST):
    check("send queue in order: posted >= fetched >= sent >= done >= "
          "polled",
          qp["sq_posted"] >= qp["sq_fetched"] >= qp["sq_sent"] >=
          qp["sq_done"] >= qp["sq_polled"] and qp["sq_done"] > 0)
    check("receive queue: posted >= taken > 0",
          qp["rq_posted"] >= qp["rq_taken"] > 0)
    check("retries left within 7 (ibv_rc_pingpong asks 7)",
          qp["retry_left"] <= 7 and qp["rnr_left"] <= 7)
    qs2 = qp
    end = time.time() + 5                       # bounded: 5 s
    while qs2["rq_psn"] == qp["rq_psn"] and time.time() < end:
        time.sleep(0.05)
        qs2 = query("/dpverbs/qp,dpv0,%d" % qps[0])
    check("PSNs move: rq_psn %d -> %d, sq_psn %d -> %d" %
          (qp["rq_psn"], qs2["rq_psn"], qp["sq_psn"], qs2["sq_psn"]),
          qs2["rq_psn"] != qp["rq_psn"] and qs2["sq_psn"] != qp["sq_psn"])
c2 = query("/dpverbs/counters,dpv0")
end = time.time() + 5                           # bounded: 5 s
while c2["rx_pkts"] <= c["rx_pkts"] and time.time() < end:
    time.sleep(0.05)            # two busy processes share two cores
    c2 = query("/dpverbs/counters,dpv0")
check("link up, mtu %d" % c2.get("mtu", 0), c2.get("link_up") == 1)
check("counters move: rx_pkts %d -> %d" % (c["rx_pkts"], c2["rx_pkts"]),
      c2["rx_pkts"] > c["rx_pkts"] and c2["tx_pkts"] > 0)
check("drop counters present", all(k in c2 for k in
      ("rx_drop_parse", "rx_drop_icrc", "rx_drop_noqp", "rx_drop_addr",
       "key_errors", "inv_req_naks_sent", "rem_access_naks_rcvd",
       "rx_bytes", "tx_bytes")))
check("every drop reason present (issue 12.5)", all(k in c2 for k in
      ("rx_drop_pkey", "rx_drop_dip", "rx_drop_len", "rx_drop_qkey",
       "rx_drop_state", "rx_drop_parse_tver", "rx_drop_parse_pad",
       "rx_drop_parse_payload_len", "rx_drop_parse_icrc",
       "rx_drop_parse_ipv4_csum")))
check("rx_drop_parse is the sum of its reasons",
      c2["rx_drop_parse"] == sum(v for k, v in c2.items()
                                 if k.startswith("rx_drop_parse_")))
check("fault layer counters present (off: 0)", all(c2.get(k) == 0 for k in
      ("fault_tx_drop", "fault_tx_dup", "fault_tx_reorder", "fault_tx_delay",
       "fault_tx_corrupt", "fault_rx_drop", "fault_hold_full")))
check("unknown device rejected", query("/dpverbs/counters,dpv9") is None)
check("bad QPN rejected", query("/dpverbs/qp,dpv0,0x1000000") is None)
sys.exit(1 if fails else 0)
PY
RC=$?
# DPDK's own client (Debian package dpdk-dev), when installed
if [ $RC = 0 ] && command -v dpdk-telemetry.py >/dev/null 2>&1; then
	echo /dpverbs/devices | timeout 10 dpdk-telemetry.py -f "dpv$PID" \
		>"$IC_TMP/tel" 2>&1
	if grep -q '"/dpverbs/devices": \["dpv0"\]' "$IC_TMP/tel"; then
		echo "PASS dpdk-telemetry.py lists dpv0"
	else
		echo "FAIL dpdk-telemetry.py:"; cat "$IC_TMP/tel"; RC=1
	fi
fi
[ $RC = 0 ] || { echo "--- server:"; tail -5 "$IC_TMP/server"; }
CHILD=$(pgrep -P "$CPID" ibv_rc_pingpong)
ic_cleanup
IC_PIDS=
# killed processes leave their runtime directory behind
for p in $PID $CHILD; do
	rm -rf "/var/run/dpdk/dpv$p"
done
exit $RC
