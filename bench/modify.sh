#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 1
# ew-timeout: 1500
#
# Control-path cost of eastwest, side by side in one boot: the median cost
# of ibv_modify_qp (whole connection cycles, and the policed INIT->RTR step)
# with the module absent, loaded in audit mode, enforcing a one-job policy,
# and enforcing with JOBS jobs x PEERS_PER_JOB peers loaded; then absent
# again to show the drift of the machine itself. Also the policy push rate
# and the kernel memory per peer entry (slab). Run it with bench/run.

. "$(dirname "$0")/../selftests/lib.sh"

# bench/run passes its settings here (the guest does not inherit them).
# shellcheck disable=SC1091
[ -f "$EW_TOP/build/bench.env" ] && . "$EW_TOP/build/bench.env"
CTL=$EW_TOP/userspace/eastwestctl
COST=$EW_TOP/bench/modify_cost
CG=/sys/fs/cgroup
CYCLES=${EW_BENCH_CYCLES:-300}
REPS=${EW_BENCH_REPS:-3}
JOBS=${EW_BENCH_JOBS:-10000}
PEERS_PER_JOB=${EW_BENCH_PEERS_PER_JOB:-100}

ew_require_root
[ -x "$CTL" ] || ew_skip "eastwestctl is not built"
[ -x "$COST" ] || ew_skip "bench/modify_cost is not built (make -C bench)"
EW_TMP=$(mktemp -d)
ew_defer "rm -rf $EW_TMP"
ew_defer "rmdir $CG/ewbench"
ew_defer "rdma link delete rxe0"
ew_defer "rmmod eastwest"

# measure LABEL [CGROUP]: REPS runs, the median of their medians.
measure() {
	_label=$1
	_cg=${2:-}
	: >"$EW_TMP/$_label"
	_i=0
	while [ $_i -lt "$REPS" ]; do
		if [ -n "$_cg" ]; then
			ew_in_cg "$_cg" "$COST" rxe0 1 127.0.0.1 "$CYCLES"
		else
			"$COST" rxe0 1 127.0.0.1 "$CYCLES"
		fi >>"$EW_TMP/$_label" || return 1
		_i=$((_i + 1))
	done
	# ew_check keeps a passing command's output to itself: the figures go
	# to a file the scenario prints after each measurement.
	python3 - "$_label" "$EW_TMP/$_label" >"$EW_TMP/last" <<'PY'
import statistics, sys
label, path = sys.argv[1], sys.argv[2]
vals = {}
for line in open(path):
    k, v = line.split()
    vals.setdefault(k, []).append(float(v))
print("# bench: %s modify_median_ns %.0f rtr_median_ns %.0f" % (
    label, statistics.median(vals["modify_median_ns"]),
    statistics.median(vals["rtr_median_ns"])))
PY
}


ew_plan 10

ew_check "rxe0 on lo" ew_rxe_add rxe0 lo
mkdir -p "$CG/ewbench"
ew_check "baseline, module absent" measure absent
cat "$EW_TMP/last"
ew_check "eastwest.ko loads" ew_load
"$CTL" config set mode audit >/dev/null
ew_check "audit mode, caller in no job" measure audit
cat "$EW_TMP/last"
"$CTL" config set mode enforce >/dev/null
"$CTL" job add bench cgroup /ewbench peer 127.0.0.1 >/dev/null
ew_check "enforce, one job" measure enforce-1job /ewbench
cat "$EW_TMP/last"

# A cluster-sized policy: JOBS jobs of PEERS_PER_JOB peers each, in one batch.
python3 - "$JOBS" "$PEERS_PER_JOB" >"$EW_TMP/batch" <<'PY'
import sys
jobs, per = int(sys.argv[1]), int(sys.argv[2])
for j in range(jobs):
    peers = " ".join("peer 10.%d.%d.%d" % (p >> 16, (p >> 8) & 255, p & 255)
                     for p in range(j * per, (j + 1) * per))
    print("job add load%d id %d %s" % (j, 100 + j, peers))
PY
# Kernel memory: Slab + vmalloc (the peer table's bucket array) in kB.
kmem() { awk '/^(Slab|VmallocUsed):/ { s += $2 } END { print s }' /proc/meminfo; }
sync
mem_before=$(kmem)
t0=$(date +%s%N)
ew_check "push $JOBS jobs with $PEERS_PER_JOB peers each (eastwestctl -b)" \
	"$CTL" -b "$EW_TMP/batch"
t1=$(date +%s%N)
mem_after=$(kmem)
npeers=$((JOBS * PEERS_PER_JOB))
ms=$(((t1 - t0) / 1000000))
echo "# bench: push jobs $JOBS peers $npeers ms $ms peers_per_s $((npeers * 1000 / (ms + 1)))"
echo "# bench: kmem bytes_per_peer $(( (mem_after - mem_before) * 1024 / npeers )) (Slab+VmallocUsed delta, jobs included)"
ew_check "enforce, $JOBS jobs / $npeers peers loaded" measure "enforce-${npeers}peers" /ewbench
cat "$EW_TMP/last"

python3 -c '
print("job add big4096 id 99999 " + " ".join("peer 172.16.%d.%d" % (p >> 8, p & 255) for p in range(4096)))' >"$EW_TMP/one"
t0=$(date +%s%N)
ew_check "one 4096-peer job added" "$CTL" -b "$EW_TMP/one"
t1=$(date +%s%N)
echo "# bench: job4096 ms $(((t1 - t0) / 1000000)) (one eastwestctl process, 3 messages)"

ew_check "eastwest unloads" ew_unload
ew_check "module absent again (drift)" measure absent-again
cat "$EW_TMP/last"
ew_done
