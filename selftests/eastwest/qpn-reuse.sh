#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 1
# ew-timeout: 600
#
# QPN reuse on one node (soft-RoCE on lo), with the fault build: its
# fault_qpn_next gives the next soft-RoCE QP a chosen number, which is what
# sequential numbering (hardware) or about 2^20 creates here would give an
# attacker. Job A's QP Y is connected to job A's QP X; X is destroyed while
# Y stays up, still aimed at X's number. Then a process (uid 65534, no
# capabilities) gets a QP with X's number and brings it to INIT:
#   1. of job B: Y is revoked before that modify returns (QP_FATAL, logged
#      with reason foreign-qp), so job A's traffic cannot reach job B's QP;
#      job B's QP, now tracked, then goes INIT->INIT again (rdma_cm does so
#      before RTR; the module skips the pass for a tracked QP): allowed;
#   2. in no job: its INIT is refused, but the pass runs before the
#      decision: likewise revoked;
#   3. control, of job A itself: Y stays up.
# Against a module without the revocation pass, 1 and 2 print "not ok".

. "$(dirname "$0")/../lib.sh"

DEV=rxe0
CG=/sys/fs/cgroup
CTL=$EW_TOP/userspace/eastwestctl
FAULT_KO=${EW_FAULT_KO:-$EW_SHARED/eastwest-fault.ko}
VERBS=$EW_TOP/selftests/tools/ew_verbs
PARAM=/sys/module/eastwest/parameters/fault_qpn_next
LOOP=127.0.0.1

ew_require_root
ew_require_cmd rdma python3 setpriv mkfifo
[ -x "$CTL" ] || ew_skip "eastwestctl is not built (make userspace)"
[ -x "$VERBS" ] || ew_skip "ew_verbs is not built (make tools)"
[ -f "$CG/cgroup.controllers" ] || ew_skip "no cgroup v2 at $CG"
[ -f "$FAULT_KO" ] || ew_skip "no $FAULT_KO (selftests/vm/run builds it)"

EW_TMP=$(mktemp -d)
chmod 755 "$EW_TMP"
ew_defer "rm -rf $EW_TMP"
ew_defer "rmdir $CG/ewA $CG/ewB $CG/ewN"
ew_defer "rdma link delete $DEV"
ew_defer "ew_rmmod"
ew_defer "ew_reap_all"

NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all --bounding-set=-all"

# qpn_of PID: the number of the QP of process PID (as root sees them).
qpn_of() {
	rdma -j res show qp link "$DEV/1" | python3 -c '
import json, sys
for r in json.load(sys.stdin):
    if str(r.get("pid")) == sys.argv[1]:
        print(r["lqpn"])' "$1"
}

# qpn_gone QPN: no QP of that number exists any more.
qpn_gone() {
	! rdma res show qp link "$DEV/1" lqpn "$1" 2>/dev/null | grep -q "lqpn $1 "
}

# victim NAME: job A's X (at INIT) and Y (RTS, aimed at X), then X
# destroyed; 3 checks. Sets X (number), Y, YPID, YOUT.
victim() {
	EW_BG_STDIN=$EW_TMP/hold
	ew_start_bg "$EW_TMP/x.$1" /ewA $NOBODY "$VERBS" rc-stepwise "$DEV" "$IDX" "$LOOP" self
	_xpid=$EW_BG_PID
	EW_BG_STDIN=
	ew_wait_for 30 grep -q 'init: OK' "$EW_TMP/x.$1"
	X=$(qpn_of "$_xpid")
	ew_check "$1: job A's QP X (qpn ${X:-none}) at INIT" test -n "$X"
	YOUT=$EW_TMP/y.$1
	ew_start_bg "$YOUT" /ewA $NOBODY "$VERBS" rc-hold "$DEV" "$IDX" "$LOOP" "${X:-0}" 120
	YPID=$EW_BG_PID
	ew_check "$1: job A's QP Y connected to X" ew_wait_for 60 grep -qx connected "$YOUT"
	Y=$(qpn_of "$YPID")
	kill "$_xpid"
	ew_reap "$_xpid" 10
	ew_check "$1: X destroyed, Y (qpn ${Y:-none}) still up and aimed at it" \
		x_gone_y_up
}

x_gone_y_up() {
	qpn_gone "${X:-0}" && ! ew_gone "$YPID" && ! grep -q revoked "$YOUT"
}

# claim NAME CGROUP: a process in CGROUP gets a QP numbered X and brings it
# to INIT; 1 check. Sets CPID, COUT.
claim() {
	echo "$X" >"$PARAM"
	COUT=$EW_TMP/c.$1
	EW_BG_STDIN=$EW_TMP/hold
	ew_start_bg "$COUT" "$2" $NOBODY "$VERBS" qpn-claim "$DEV" "$X"
	CPID=$EW_BG_PID
	EW_BG_STDIN=
	ew_check "$1: a process in $2 gets qpn ${X:-?} and asks for INIT" \
		ew_wait_for 30 grep -q "^claimed qpn $(printf 0x%x "${X:-0}")" "$COUT"
	ew_diag "$1: $(cat "$COUT")"
}

# revoked_for_foreign QPN DEST: the log says QPN was revoked as foreign-qp
# (that reason's text), and the summary says why: DEST has a new owner.
revoked_for_foreign() {
	ew_dmesg_since_mark >"$EW_TMP/log"
	grep -q "revoked qpn $(printf 0x%x "$1") on $DEV: local QP of another job" "$EW_TMP/log" &&
		grep -q "qpn $(printf 0x%x "$2") of this node has a new owner: 1 QP(s) aimed at it revoked" \
			"$EW_TMP/log" || { cat "$EW_TMP/log"; return 1; }
}

ew_plan 24

ew_check "fault build loads" insmod "$FAULT_KO"
ew_check "$DEV on lo" ew_rxe_add "$DEV" lo
IDX=$(ew_wait_gid_index "$DEV" "$LOOP")
ew_check "GID of $LOOP found (index ${IDX:-none})" test -n "$IDX"
mkdir -p "$CG/ewA" "$CG/ewB" "$CG/ewN"
ew_check "jobs A and B may both reach $LOOP" sh -c \
	"'$CTL' job add ewA cgroup /ewA peer $LOOP && '$CTL' job add ewB cgroup /ewB peer $LOOP"
mkfifo "$EW_TMP/hold"
exec 3<>"$EW_TMP/hold"
ew_dmesg_mark

# 1. Job B takes X's number.
victim jobB
claim jobB /ewB
ew_check "jobB: Y was revoked by then (QP_FATAL)" ew_wait_for 10 grep -q revoked "$YOUT"
ew_check "jobB: logged: qpn ${Y:-?} revoked (foreign-qp), its destination's new owner" \
	revoked_for_foreign "${Y:-0}" "${X:-0}"
echo go >&3
ew_check "jobB: job B's tracked QP goes INIT->INIT again" \
	ew_wait_for 10 grep -q '^init again: OK' "$COUT"
ew_reap "$CPID" 10
ew_reap "$YPID" 10

# 2. A process in no job takes it.
victim nojob
claim nojob /ewN
ew_check "nojob: Y was revoked by then (QP_FATAL)" ew_wait_for 10 grep -q revoked "$YOUT"
ew_check "nojob: logged: qpn ${Y:-?} revoked (foreign-qp), its destination's new owner" \
	revoked_for_foreign "${Y:-0}" "${X:-0}"
ew_check "nojob: its INIT itself was refused (no job)" \
	grep -q '^claimed qpn .*, init: Permission denied' "$COUT"
ew_reap "$CPID" 10
ew_reap "$YPID" 10

# 3. Control: job A's own new QP takes it.
victim jobA
claim jobA /ewA
sleep 3
ew_check_not "jobA: Y stays up (same job)" grep -q revoked "$YOUT"
kill "$CPID" "$YPID"
ew_reap "$CPID" 10
ew_reap "$YPID" 10

ew_check "no oops, warning or leak in the kernel log" sh -c \
	"! dmesg | grep -Eq 'WARNING:|BUG:|Oops|Call Trace:|refcount_t:'"
ew_done
