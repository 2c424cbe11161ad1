#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Install every build and test dependency of dpverbs from Debian 12
# packages. Idempotent: packages already present are not fetched again.
set -eu

PKGS=(
    # build
    build-essential meson ninja-build pkg-config python3 python3-pyelftools
    libdpdk-dev dpdk libnuma-dev libibverbs-dev libpcap-dev
    dpdk-dev  # dpdk-telemetry.py (reads the /dpverbs/ telemetry commands)
    python3-sphinx doxygen  # HTML guides and API reference (meson -Ddocs)
    # real peers the tests run against our libraries
    ibverbs-utils rdma-core perftest qperf python3-pyverbs librdmacm-dev
    rdmacm-utils tshark
    # namespaces, veth, processes
    iproute2 procps psmisc
    # libFuzzer harnesses (devtools/fuzz.sh): clang with its runtimes
    clang libclang-rt-14-dev
)

missing=()
for p in "${PKGS[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
        missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
echo "dpverbs setup: installing ${missing[*]}"
$SUDO apt-get update -qq
# tshark asks whether non-root users may capture; answer no, quietly.
echo "wireshark-common wireshark-common/install-setuid boolean false" |
    $SUDO debconf-set-selections 2>/dev/null || true
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
