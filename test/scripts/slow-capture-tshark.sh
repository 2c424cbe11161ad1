#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Capture our own traffic and check it with tools we did not write: two
# processes over memif run ibv_rc_pingpong (SEND, 4 KiB in MTU-sized
# segments), ibv_ud_pingpong and perftest's ib_write_lat / ib_read_lat /
# ib_atomic_lat, each writing every frame it receives and sends to a
# pcapng file (DPV_PCAP). Then for every file: Wireshark's tshark must
# decode every UDP/4791 frame as InfiniBand (RRoCE) with no malformed
# packet, and lib/roce's parser must accept every one, ICRC included
# (dpv-test interop_pcap_autotest).
# Arguments: <build>/lib, source root, build root.
set -u
LIBDIR=${1:?usage: $0 <lib dir> <source root> <build root>}
SRC=${2:-$(dirname "$0")/../..}
BUILD=${3:-$LIBDIR/..}
T=$BUILD/test/dpv-test
. "$SRC/test/scripts/interop-common.sh"
ic_init
ic_need tshark ibv_rc_pingpong ibv_ud_pingpong ib_write_lat ib_read_lat \
	ib_atomic_lat
[ -x "$T" ] || { echo "SKIP: no $T"; exit 77; }
ic_env_memif
CAP="DPV_PCAP=$IC_TMP/cap-%p.pcapng"
PAT='[0-9]+ iters in [0-9.]+ seconds'
RES='^ *[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+'
SPATTERN=$PAT ic_pair rc "$PAT" "$CAP" -- ibv_rc_pingpong -d dpv0 -g 1 \
	-p $IC_TCP -n 10 -s 4096
SPATTERN=$PAT ic_pair ud "$PAT" "$CAP" -- ibv_ud_pingpong -d dpv0 -g 1 \
	-p $IC_TCP -n 10 -s 512
for t in ib_write_lat ib_read_lat ib_atomic_lat; do
	SPATTERN= ic_pair $t "$RES" "$CAP DPV_LINK_WAIT_MS=15000" -- $t \
		-d dpv0 -x 1 -p $IC_TCP -n 20
done

files=$(ls "$IC_TMP"/cap-*.pcapng 2>/dev/null)
[ -n "$files" ] || { echo "FAIL: no capture file written"; exit 1; }
nf=0
for f in $files; do
	b=$(basename "$f")
	ours=$(env DPV_PCAP_CHECK="$f" timeout 60 "$T" interop_pcap_autotest 2>&1)
	rc=$?
	if echo "$ours" | grep -q ": 0 frames:"; then
		# a client attempt that found the server not listening yet
		echo "(skipped $b: empty)"
		continue
	fi
	nf=$((nf + 1))
	if [ $rc != 0 ]; then
		echo "FAIL $b: lib/roce check"
		echo "$ours" | tail -8 | sed 's/^/  /'
		IC_FAILS=$((IC_FAILS + 1))
		continue
	fi
	roce=$(echo "$ours" | sed -n 's/.*frames: \([0-9]*\) RoCEv2.*/\1/p')
	ib=$(timeout 60 tshark -r "$f" -Y 'infiniband' 2>/dev/null |
		grep -vc "^Running as user")
	if ! timeout 60 tshark -r "$f" -Y '_ws.malformed' >"$f.mal" 2>&1; then
		echo "FAIL $b: tshark failed: $(tail -1 "$f.mal")"
		IC_FAILS=$((IC_FAILS + 1))
		continue
	fi
	bad=$(grep -vc "^Running as user" "$f.mal")
	ops=$(timeout 60 tshark -r "$f" -Y infiniband -T fields \
		-e infiniband.bth.opcode 2>/dev/null | grep -v "^Running" |
		sort -n | uniq | tr '\n' ' ')
	echo "$ops" | grep -q "^0 1 2 " && last=$f
	if [ "$roce" -gt 0 ] && [ "$ib" = "$roce" ] && [ "$bad" = 0 ]; then
		IC_PASSES=$((IC_PASSES + 1))
		echo "PASS $b: $roce RoCEv2 frames, tshark InfiniBand $ib, malformed 0, every ICRC verified; opcodes $ops"
	else
		IC_FAILS=$((IC_FAILS + 1))
		echo "FAIL $b: ours $roce RoCEv2 frames, tshark InfiniBand $ib, malformed/bad $bad"
		timeout 60 tshark -r "$f" -Y '_ws.malformed' 2>/dev/null | head -5
	fi
done
# the check must be able to fail: one payload bit flipped -> bad ICRC
if command -v python3 >/dev/null 2>&1 && [ -n "${last:-}" ]; then
	python3 - "$last" "$IC_TMP/flipped.pcapng" <<'PY'
import sys
d = bytearray(open(sys.argv[1], 'rb').read())
i = d.find(b'{' * 16)  # ibv_rc_pingpong's payload bytes
d[i + 3] ^= 1
open(sys.argv[2], 'wb').write(d)
PY
	if env DPV_PCAP_CHECK="$IC_TMP/flipped.pcapng" timeout 60 "$T" \
		interop_pcap_autotest 2>&1 | grep -q "icrc: 1"; then
		echo "PASS a flipped payload bit is reported as a bad ICRC"
	else
		echo "FAIL a flipped payload bit went unnoticed"
		IC_FAILS=$((IC_FAILS + 1))
	fi
fi
[ $nf -ge 10 ] || { echo "FAIL: $nf capture files, want 10"; IC_FAILS=$((IC_FAILS + 1)); }
ic_summary
