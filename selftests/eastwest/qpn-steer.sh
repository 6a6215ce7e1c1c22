#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 1
# ew-timeout: 300
#
# A draw of soft-RoCE's QP number randomisation that lands on a taken
# number. rxe's allocator takes the first free index at or after the drawn
# point: were a taken number accepted, a process holding a run of numbers
# would have the next QP of any other process land just past the run
# whenever the draw fell in it (the run's share of the 2^20 numbers
# instead of one in 2^20), and would see that it did. The fault build's
# fault_qpn_next stands in for a draw that lands on the number another
# process's QP holds (chance 1 in 2^20 per QP otherwise). rxe0 on lo; QP X
# is job A's (the fault build denies processes in no job by default), the
# new QPs are created only, by root.
#
#   1. QP X held by one process; three times: the next draw is X, another
#      process creates a QP: its number is not the one after X (drawn
#      again, uniform);
#   2. control: a draw on a free number gives that number (what
#      qpn-reuse.sh and cmstale.sh rely on).
#
# Against a module whose randomisation accepted any draw (cac8aa6), 1 gives
# the number after X each time (found by an attacker review, by reading).

. "$(dirname "$0")/../lib.sh"

DEV=rxe0
CG=/sys/fs/cgroup
FAULT_KO=${EW_FAULT_KO:-$EW_SHARED/eastwest-fault.ko}
PARAM=/sys/module/eastwest/parameters/fault_qpn_next
LOOP=127.0.0.1

ew_require_root
ew_require_cmd rdma python3
ew_require_built ctl verbs cgroup
[ -f "$FAULT_KO" ] || ew_skip "no $FAULT_KO (selftests/vm/run builds it)"

ew_tmp_dir
ew_defer "rmdir $CG/ewA"
ew_defer "rdma link delete $DEV"
ew_defer "ew_rmmod"
ew_defer "ew_reap_all"

# one_qpn: the number of one QP created (and destroyed) now, decimal.
one_qpn() {
	"$VERBS" qpn-list "$DEV" 1 1 | sed -n 's/^qpn //p' | python3 -c 'import sys; print(int(sys.stdin.read(), 16))'
}

# taken_next ROUND: with the next draw on X, a new QP's number is not X+1.
taken_next() {
	echo "$X" >"$PARAM" || return 1
	_q=$(one_qpn) || return 1
	ew_diag "round $1: drawn $X (taken), got $_q"
	[ -n "$_q" ] && [ "$_q" -ne $((X + 1)) ] && [ "$_q" -ne "$X" ]
}

ew_plan 9

ew_check "eastwest.ko (fault build) loads" ew_insmod "$FAULT_KO"
ew_check "$DEV on lo" ew_rxe_add "$DEV" lo
IDX=$(ew_wait_gid_index "$DEV" "$LOOP")
mkdir -p "$CG/ewA"
ew_check "job A may reach $LOOP" "$CTL" job add ewA cgroup /ewA peer "$LOOP"
ew_start_bg "$EW_TMP/x" /ewA "$VERBS" rc-hold "$DEV" "${IDX:-0}" "$LOOP" self 120
XPID=$EW_BG_PID
ew_check "QP X connected and held" ew_wait_for 60 grep -qx connected "$EW_TMP/x"
X=$(ew_qpn_of "$DEV" "$XPID")
ew_diag "X is ${X:-none}"

# --- 1. a draw on a taken number ----------------------------------------------------
for r in 1 2 3; do
	ew_check "1/round $r: the draw on X's number ${X:-none} is drawn again, not X+1" taken_next "$r"
done

# --- 2. control: a draw on a free number ---------------------------------------------
F=$(( (${X:-0} + 4096) % 1048000 + 16 ))
ew_check "2/a draw on the free number $F gives it" sh -c \
	"echo $F >$PARAM && [ \"\$('$VERBS' qpn-list $DEV 1 1 | sed -n 's/^qpn //p')\" = \"\$(printf 0x%x $F)\" ]"
ew_check "no oops, warning or leak in the kernel log" sh -c \
	"! dmesg | grep -Eq 'WARNING:|BUG:|Oops|Call Trace:|refcount_t:'"
ew_done
