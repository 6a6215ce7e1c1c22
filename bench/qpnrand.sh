#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 1
# ew-timeout: 3000
#
# What soft-RoCE QPN randomisation costs: its kprobe on __xa_alloc_cyclic()
# is taken by every caller of that function in the kernel (the RDMA core's
# restrack and rxe's pools among them), and each QP create makes such calls.
# In ROUNDS interleaved rounds, one process creates and destroys QPS RC QPs
# (ew_verbs qpn-list, in job "bench") with
#   absent    the module not loaded;
#   unarmed   the fault build loaded with fault_qpnrand=2 (its self-test
#             "fails": the kprobe is unregistered again, QPNs sequential);
#   armed     the same fault build loaded without it (the kprobe armed).
# unarmed and armed run the same code but for the kprobe: their difference
# is the kprobe's cost. Prints "# bench: qpnrand ..." lines for bench/run
# (ns per create and destroy; with bench/run's -icount guest, 1 ns is one
# instruction).
# shellcheck disable=SC1091

. "$(dirname "$0")/../selftests/lib.sh"

[ -f "$EW_TOP/build/bench.env" ] && . "$EW_TOP/build/bench.env"
CTL=$EW_TOP/userspace/eastwestctl
VERBS=$EW_TOP/selftests/tools/ew_verbs
FAULT_KO=${EW_FAULT_KO:-$EW_SHARED/eastwest-fault.ko}
DEV=rxe0
CG=/sys/fs/cgroup
ROUNDS=${EW_BENCH_ROUNDS:-3}
# QPs per run: 64 at a time, this many times.
BATCHES=${EW_BENCH_QPN_BATCHES:-50}

ew_require_root
[ -x "$CTL" ] || ew_skip "eastwestctl is not built"
[ -x "$VERBS" ] || ew_skip "ew_verbs is not built (make tools)"
[ -f "$FAULT_KO" ] || ew_skip "no $FAULT_KO (selftests/vm/run builds it)"
EW_TMP=$(mktemp -d)
ew_defer "rm -rf $EW_TMP"
ew_defer "rmdir $CG/ewbench"
ew_defer "rdma link delete $DEV"
ew_defer "ew_rmmod"

# run CONFIG: create and destroy 64 x BATCHES QPs in cgroup /ewbench; ns
# per QP on stdout.
run() {
	_t0=$(date +%s%N)
	ew_in_cg /ewbench "$VERBS" qpn-list "$DEV" 64 "$BATCHES" >"$EW_TMP/q.out" 2>&1 ||
		{ cat "$EW_TMP/q.out" >&2; return 1; }
	_t1=$(date +%s%N)
	echo $(((_t1 - _t0) / (64 * BATCHES)))
}

# config NAME: load what NAME measures.
config() {
	ew_rmmod
	case $1 in
	absent) return 0 ;;
	unarmed) insmod "$FAULT_KO" fault_qpnrand=2 || return 1 ;;
	armed) insmod "$FAULT_KO" || return 1 ;;
	esac
	"$CTL" job add bench cgroup /ewbench peer 127.0.0.1 >/dev/null || return 1
	_want=random
	[ "$1" = armed ] || _want=sequential
	"$CTL" dev show | grep -q "^dev $DEV .* qpns $_want\$" ||
		{ echo "$1: dev show does not say qpns $_want" >&2; return 1; }
}

ew_plan 2
ew_check "$DEV on lo" ew_rxe_add "$DEV" lo
mkdir -p "$CG/ewbench"
ok=1
r=1
while [ $r -le "$ROUNDS" ]; do
	# Odd rounds absent first, even rounds last.
	order="absent unarmed armed"
	[ $((r % 2)) -eq 0 ] && order="armed unarmed absent"
	line="# bench: qpnrand round $r"
	for c in $order; do
		config "$c" || { ok=0; break 2; }
		ns=$(run) || { ok=0; break 2; }
		line="$line $c $ns"
	done
	echo "$line" | tee -a "$EW_TMP/rounds"
	r=$((r + 1))
done
ew_rmmod
ew_check "every configuration ran in every round" test "$ok" = 1
python3 - "$EW_TMP/rounds" "$BATCHES" <<'PY'
import statistics, sys
v = {}
for line in open(sys.argv[1]):
    w = line.split()[4:]
    for k, x in zip(w[::2], w[1::2]):
        v.setdefault(k, []).append(int(x))
m = {k: statistics.median(x) for k, x in v.items()}
print("# bench: qpnrand median ns per QP create+destroy (%d QPs a run): absent %d, "
      "unarmed %d, armed %d; the kprobe: %+d (%.3f of unarmed), the module without it: %+d"
      % (64 * int(sys.argv[2]), m["absent"], m["unarmed"], m["armed"],
         m["armed"] - m["unarmed"], m["armed"] / m["unarmed"],
         m["unarmed"] - m["absent"]))
PY
ew_done
