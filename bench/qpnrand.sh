#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 1
# ew-timeout: 1200
#
# What soft-RoCE QPN randomisation costs: its kprobe on __xa_alloc_cyclic()
# is taken by every caller of that function in the kernel (the RDMA core's
# restrack, rxe's pools, CM ids, devlink, io_uring, drm, ...). The fault
# build, loaded with fault_qpnrand_cost=CALLS, times CALLS cyclic
# allocations (each followed by its erase) from a private xarray before it
# arms the kprobe and again after: with another limit than rxe's QP pool's
# (the path of every other caller: the handler's one compare), and with
# that limit (the rxe path: a random next index). ROUNDS loads; prints
# "# bench: qpnrand ..." lines for bench/run, in ns per call (with bench/run's
# -icount guest, 1 ns is one instruction).
# shellcheck disable=SC1091

. "$(dirname "$0")/../selftests/lib.sh"

[ -f "$EW_TOP/build/bench.env" ] && . "$EW_TOP/build/bench.env"
FAULT_KO=${EW_FAULT_KO:-$EW_SHARED/eastwest-fault.ko}
ROUNDS=${EW_BENCH_ROUNDS:-3}
CALLS=${EW_BENCH_QPNRAND_CALLS:-100000}

ew_require_root
[ -f "$FAULT_KO" ] || ew_skip "no $FAULT_KO (selftests/vm/run builds it)"
ew_tmp_dir
ew_defer "ew_rmmod"

# round R: one load; its figures appended to $EW_TMP/rounds.
round() {
	ew_dmesg_mark || return 1
	ew_insmod "$FAULT_KO" fault_qpnrand_cost="$CALLS" || return 1
	_l=$(ew_dmesg_since_mark 'qpnrand cost: ') || { echo "no cost line" >&2; return 1; }
	rmmod eastwest || return 1
	# "... other callers U/A, rxe's QP limit U/A"
	echo "$_l" | sed -n 's|.*other callers \([0-9]*\)/\([0-9]*\), rxe.s QP limit \([0-9]*\)/\([0-9]*\).*|\1 \2 \3 \4|p' >>"$EW_TMP/rounds"
	set -- $(tail -n 1 "$EW_TMP/rounds")
	[ $# -eq 4 ] || return 1
	echo "# bench: qpnrand round $1 ns per call: other callers unarmed $1 armed $2, rxe QP limit unarmed $3 armed $4" |
		sed "s/round $1 /round $r /"
}

ew_plan 1
ok=1
r=1
while [ $r -le "$ROUNDS" ]; do
	round || { ok=0; break; }
	r=$((r + 1))
done
ew_check "the fault build measured in every round" test "$ok" = 1
python3 - "$EW_TMP/rounds" "$CALLS" <<'PY'
import statistics, sys
rows = [list(map(int, l.split())) for l in open(sys.argv[1]) if l.strip()]
if rows:
    m = [statistics.median(c) for c in zip(*rows)]
    print("# bench: qpnrand median ns per xa_alloc_cyclic+erase (%s calls, %d rounds): "
          "other callers %d -> %d (kprobe %+d), rxe's QP limit %d -> %d (%+d)"
          % (sys.argv[2], len(rows), m[0], m[1], m[1] - m[0], m[2], m[3], m[3] - m[2]))
PY
ew_done
