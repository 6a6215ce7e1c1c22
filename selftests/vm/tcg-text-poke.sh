#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 1
# ew-timeout: 900
#
# The emulator check behind "# ew-tcg: single", not part of the suite, and
# without eastwest: two QP storms (ew_verbs qp-storm) call
# ib_modify_qp_with_udata() while a loop switches the function tracer on
# and off with set_ftrace_filter holding that function, so the kernel
# patches its call site (and tracing's static keys) with int3-guarded
# text_poke_bp() each time. On hardware that never oopses. Run:
#
#   selftests/vm/run --kernel 6.12 selftests/vm/tcg-text-poke.sh
#   EW_VM_TCG_THREAD=single selftests/vm/run --kernel 6.12 selftests/vm/tcg-text-poke.sh
#
# Seen on QEMU 7.2 (Debian 12), 6.12 guest, 2 vCPUs: the first panics with
# "Oops: int3" about a second into the loop; the second passes (240 s, 425
# switches). EW_TCG_POKE_SECONDS sets the duration (default 240).

. "$(dirname "$0")/../lib.sh"

DEV=rxe0
TR=/sys/kernel/tracing
SECS=${EW_TCG_POKE_SECONDS:-240}

ew_require_root
ew_require_built verbs tracefs
ew_tmp_dir
ew_defer "rdma link delete $DEV"
ew_defer "echo nop >$TR/current_tracer"

ew_plan 3
ew_check "$DEV on lo" ew_rxe_add "$DEV" lo
IDX=$(ew_wait_gid_index "$DEV" 127.0.0.1)
ew_check "GID of 127.0.0.1 found (index ${IDX:-none})" test -n "$IDX"
for s in 1 2; do
	"$VERBS" qp-storm "$DEV" "${IDX:-1}" 127.0.0.1 300 "$SECS" >"$EW_TMP/storm$s" 2>&1 &
done
echo ib_modify_qp_with_udata >"$TR/set_ftrace_filter"
n=0
end=$(($(date +%s) + SECS - 5))
while [ "$(date +%s)" -lt "$end" ]; do
	echo function >"$TR/current_tracer"
	echo nop >"$TR/current_tracer"
	n=$((n + 1))
done
wait
ew_diag "tracer switched on and off $n times; $(cat "$EW_TMP/storm1" "$EW_TMP/storm2" | grep storm: | tr '\n' ' ')"
ew_check "both storms ran (the runner fails the test on any oops)" \
	sh -c "grep -q 'storm: ok' '$EW_TMP/storm1' && grep -q 'storm: ok' '$EW_TMP/storm2'"
ew_done
