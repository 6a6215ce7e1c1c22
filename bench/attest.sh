#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Attestation on swtpm, on the host (no VM): enrollment time, quote and
# verify latency (median, p95, max) and the verifier's throughput in nodes
# per second, without logs and with an IMA log of IMA_ENTRIES entries, and
# key release (verifier) and unwrap (node, TPM2_ActivateCredential) latency.
# A measurement, never a pass/fail test.
#
#   bench/attest.sh [QUOTES [IMA_ENTRIES]]      (default 50 and 5000)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
quotes=${1:-50}
entries=${2:-5000}
make -s -C "$top/userspace/attest" bench-bin
work=$(mktemp -d /tmp/ew-attest-bench.XXXXXX)
trap '[ -s "$work/swtpm.pid" ] && kill "$(cat "$work/swtpm.pid")"; rm -rf "$work"' EXIT INT TERM
port=$(python3 -c '
import random, socket
for _ in range(200):
    p = random.randrange(20000, 60000, 2)
    try:
        for q in (p, p + 1):
            s = socket.socket(); s.bind(("127.0.0.1", q)); s.close()
        print(p); break
    except OSError:
        pass')
mkdir -p "$work/tpm"
swtpm socket --tpm2 --tpmstate dir="$work/tpm" \
	--server type=tcp,port="$port",bindaddr=127.0.0.1 \
	--ctrl type=tcp,port=$((port + 1)),bindaddr=127.0.0.1 \
	--flags not-need-init,startup-clear --pid file="$work/swtpm.pid" -d
i=0
while [ ! -s "$work/swtpm.pid" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
echo "machine: $(nproc) cores, $(awk '/model name/ { $1 = $2 = $3 = ""; print; exit }' /proc/cpuinfo)"
echo "swtpm $(swtpm --version 2>&1 | sed -n 's/.*version \([0-9.]*\).*/\1/p'), TCP on 127.0.0.1, $quotes quotes per case"
echo
EW_TCTI="swtpm:host=127.0.0.1,port=$port" \
	"$top/userspace/attest/tests/bench_attest" "$work" "$quotes" "$entries"
