#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 1
# ew-timeout: 600
# ew-kernels: 6.12
# ew-tcg: single
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
#      decision: likewise revoked; it retries the INIT 20 times, all
#      refused: the pass (ew_qp_revoke(), counted with the function tracer)
#      ran once, not once per try;
#   3. control, of job A itself: Y stays up, and no revocation pass runs
#      (a job cycling its own QP through RESET and INIT under a connection
#      of its own would otherwise make the node scan every record each
#      time);
#   4. a process in no job whose QP's number only hashes like a live local
#      destination (job A's Y aimed at job A's live X) tries INIT 20 times:
#      no pass at all, and Y stays up;
#   5. in flight: job A's connect of Y onto its own X is held between its
#      decision and the driver (fault_modify_delay_ms); meanwhile X is
#      destroyed and job B's new QP takes its number to INIT, before Y has
#      a record for that INIT's pass to find. Y lands aimed at job B's QP:
#      it is revoked as it is recorded (foreign-qp: its RTR->RTS refused,
#      or QP_FATAL), not by the pass;
#   6. job A in audit mode: job B's QP takes X's number; Y, now aimed at
#      another job's QP, is reported ("would be revoked"), never revoked,
#      and no pass runs;
#   7. Y busy: job A's connected Y asks for a new address vector, and that
#      modify is held under Y's modify lock (as a MAC resolution that never
#      ends would hold it); X is destroyed and job B's QP takes its number
#      to INIT. The pass hands Y's revocation to the modify holding its
#      lock: job B's INIT returns only once Y is in ERR, not while Y can
#      still send into job B's QP;
#   8. pre-recorded: job B's QP with X's number is given a P_Key index
#      and a port in RESET, naming no state (which the state table forbids, but
#      rxe of 6.12 applied, and which made a record in RESET, so that the
#      INIT that followed skipped the pass as a tracked QP's): that modify
#      is refused, and Y is revoked at job B's INIT.
# Against a module without the revocation pass, 1 and 2 print "not ok";
# against one whose destroy does not move the policy sequence, 5 does;
# with the counting filter by hash that the index replaced, the counts of 2
# and 4 do (20 passes each, 6.12); with the pass started by any record
# aimed at the number (c38d3e4), 3's count does (1); with the pass's
# locality check blind to audit mode (1e84810), 6 does (Y revoked); with an
# INIT that did not wait for a revocation handed to a busy lock (010530e),
# 7 does (Y still in RTS when job B's INIT returned); with no state table
# for modifies that name no state (38527fe), 8 does (Y stays up). The
# function tracer
# patches kernel text: hence its own boot under single-threaded TCG (ew-tcg).

. "$(dirname "$0")/../lib.sh"

DEV=rxe0
CG=/sys/fs/cgroup
FAULT_KO=${EW_FAULT_KO:-$EW_SHARED/eastwest-fault.ko}
FP=/sys/module/eastwest/parameters
PARAM=$FP/fault_qpn_next
LOOP=127.0.0.1

ew_require_root
TR=/sys/kernel/tracing

ew_require_cmd rdma python3 setpriv mkfifo
ew_require_built ctl verbs cgroup
[ -f "$FAULT_KO" ] || ew_skip "no $FAULT_KO (selftests/vm/run builds it)"
[ -w "$TR/set_ftrace_filter" ] || ew_skip "no function tracer at $TR"

ew_tmp_dir 755
ew_defer "rmdir $CG/ewA $CG/ewB $CG/ewN"
ew_defer "rdma link delete $DEV"
ew_defer "ew_rmmod"
ew_defer "ew_reap_all"
ew_defer "echo nop >$TR/current_tracer"

NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all --bounding-set=-all"

# qpn_gone QPN: no QP of that number exists any more.
qpn_gone() {
	! rdma res show qp link "$DEV/1" lqpn "$1" 2>/dev/null | grep -q "lqpn $1 "
}

# x_at_init NAME: job A's QP X, brought to INIT and held there. Sets X
# (number) and XPID.
x_at_init() {
	EW_BG_STDIN=$EW_TMP/hold
	ew_start_bg "$EW_TMP/x.$1" /ewA $NOBODY "$VERBS" rc-stepwise "$DEV" "$IDX" "$LOOP" self
	XPID=$EW_BG_PID
	EW_BG_STDIN=
	ew_wait_for 30 grep -q 'init: OK' "$EW_TMP/x.$1"
	X=$(ew_qpn_of "$DEV" "$XPID")
}

# pair NAME: job A's X (at INIT) and Y (RTS, aimed at X); 2 checks. Sets X
# (number), XPID, Y, YPID, YOUT.
pair() {
	x_at_init "$1"
	ew_check "$1: job A's QP X (qpn ${X:-none}) at INIT" test -n "$X"
	YOUT=$EW_TMP/y.$1
	ew_start_bg "$YOUT" /ewA $NOBODY "$VERBS" rc-hold "$DEV" "$IDX" "$LOOP" "${X:-0}" 120
	YPID=$EW_BG_PID
	ew_check "$1: job A's QP Y connected to X" ew_wait_for 60 grep -qx connected "$YOUT"
	Y=$(ew_qpn_of "$DEV" "$YPID")
}

# victim NAME: pair NAME, then X destroyed; 3 checks.
victim() {
	pair "$1"
	kill "$XPID"
	ew_reap "$XPID" 10
	ew_check "$1: X destroyed, Y (qpn ${Y:-none}) still up and aimed at it" \
		x_gone_y_up
}

x_gone_y_up() {
	qpn_gone "${X:-0}" && ! ew_gone "$YPID" && ! grep -qx revoked "$YOUT"
}

# claim NAME CGROUP [TRIES [pre]]: a process in CGROUP gets a QP numbered X
# and asks for INIT (up to TRIES times; with "pre", after a P_Key index
# alone in RESET); 1 check. Sets CPID, COUT.
claim() {
	echo "$X" >"$PARAM"
	COUT=$EW_TMP/c.$1
	EW_BG_STDIN=$EW_TMP/hold
	# shellcheck disable=SC2086 # no "pre": no word
	ew_start_bg "$COUT" "$2" $NOBODY "$VERBS" qpn-claim "$DEV" "$X" "${3:-1}" ${4:-}
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
	grep -q "revoked qpn $(printf 0x%x "$1") on $DEV: local QP or listener of another job" "$EW_TMP/log" &&
		grep -q "qpn $(printf 0x%x "$2") of this node has a new owner: 1 QP(s) aimed at it revoked" \
			"$EW_TMP/log" || { cat "$EW_TMP/log"; return 1; }
}

# y_revoked: Y was revoked: rc-hold saw QP_FATAL at RTS, or (revoked while
# its INIT->RTR returned) its RTR->RTS was refused and it never connected.
y_revoked() {
	grep -qx revoked "$YOUT" ||
		{ ew_gone "$YPID" && ! grep -qx connected "$YOUT" &&
			grep -q 'RTR->RTS.*Permission denied' "$YOUT"; }
}

# revoked_on_commit QPN: the log says QPN was revoked as foreign-qp, and no
# revocation pass for a new owner ran (the QP revoked itself as it was
# recorded).
revoked_on_commit() {
	ew_dmesg_wait "revoked qpn $(printf 0x%x "$1") on $DEV: local QP or listener of another job" &&
		! ew_dmesg_since_mark 'has a new owner' >/dev/null
}

# passes_start / passes_count: count the revocation passes (calls of
# ew_qp_revoke()) in between with the function tracer.
passes_start() {
	echo ew_qp_revoke >"$TR/set_ftrace_filter" &&
		echo function >"$TR/current_tracer" && : >"$TR/trace"
}
passes_count() {
	echo 0 >"$TR/tracing_on"
	grep -c ' ew_qp_revoke' "$TR/trace"
	echo nop >"$TR/current_tracer"
	echo 1 >"$TR/tracing_on"
}

# hash_alike QPN: a free soft-RoCE QP number other than QPN in the same
# bucket of a 1,024-bucket kernel hash (hash_32(qpn, 10)).
hash_alike() {
	python3 -c '
import sys
want, live = int(sys.argv[1]), set(map(int, sys.argv[2:]))
h = lambda v: ((v * 0x61C88647) & 0xffffffff) >> 22
for v in range(1 << 19, 1 << 20):
    if v != want and v not in live and h(v) == h(want):
        print(v)
        break' "$1" $(rdma -j res show qp link "$DEV/1" | python3 -c '
import json, sys
print(" ".join(str(r["lqpn"]) for r in json.load(sys.stdin)))')
}

ew_plan 55

ew_check "fault build loads" ew_insmod "$FAULT_KO"
ew_check "$DEV on lo" ew_rxe_add "$DEV" lo
IDX=$(ew_wait_gid_index "$DEV" "$LOOP")
ew_check "GID of $LOOP found (index ${IDX:-none})" test -n "$IDX"
mkdir -p "$CG/ewA" "$CG/ewB" "$CG/ewN"
ew_check "jobs A and B may both reach $LOOP" sh -c \
	"'$CTL' job add ewA cgroup /ewA peer $LOOP && '$CTL' job add ewB cgroup /ewB peer $LOOP"
mkfifo "$EW_TMP/hold" "$EW_TMP/holdy"
exec 3<>"$EW_TMP/hold" 4<>"$EW_TMP/holdy"
ew_dmesg_mark

# 1. Job B takes X's number.
victim jobB
claim jobB /ewB
ew_check "jobB: Y was revoked by then (QP_FATAL)" ew_wait_for 10 grep -qx revoked "$YOUT"
ew_check "jobB: logged: qpn ${Y:-?} revoked (foreign-qp), its destination's new owner" \
	revoked_for_foreign "${Y:-0}" "${X:-0}"
echo go >&3
ew_check "jobB: job B's tracked QP goes INIT->INIT again" \
	ew_wait_for 10 grep -q '^init again: OK' "$COUT"
ew_reap "$CPID" 10
ew_reap "$YPID" 10

# 2. A process in no job takes it, and tries 20 times.
victim nojob
passes_start
claim nojob /ewN 20
ew_wait_for 10 ew_gone "$CPID"
PASSES=$(passes_count)
ew_check "nojob: Y was revoked by then (QP_FATAL)" ew_wait_for 10 grep -qx revoked "$YOUT"
ew_check "nojob: logged: qpn ${Y:-?} revoked (foreign-qp), its destination's new owner" \
	revoked_for_foreign "${Y:-0}" "${X:-0}"
ew_check "nojob: its 20 INITs were refused (no job); the pass ran once (${PASSES:-?})" \
	sh -c "grep -q '^claimed qpn .*, init: Permission denied (20 tries)' '$COUT' &&
		test '${PASSES:-0}' -eq 1"
ew_reap "$CPID" 10
ew_reap "$YPID" 10

# 3. Control: job A's own new QP takes it.
victim jobA
passes_start
claim jobA /ewA
sleep 3
PASSES=$(passes_count)
ew_check_not "jobA: Y stays up (same job)" grep -qx revoked "$YOUT"
ew_check "jobA: its INIT ran no revocation pass (${PASSES:-?})" test "${PASSES:-1}" -eq 0
kill "$CPID" "$YPID"
ew_reap "$CPID" 10
ew_reap "$YPID" 10

# 4. A number that only hashes like a live local destination.
pair hash
V=$(hash_alike "${X:-0}")
X=${V:-0}
passes_start
claim hash /ewN 20
ew_wait_for 10 ew_gone "$CPID"
PASSES=$(passes_count)
ew_check "hash: 20 refused INITs, no revocation pass (${PASSES:-?})" \
	sh -c "grep -q '^claimed qpn .*, init: Permission denied (20 tries)' '$COUT' &&
		test '${PASSES:-1}' -eq 0"
ew_check_not "hash: job A's Y, aimed at its live X, stays up" grep -qx revoked "$YOUT"
ew_reap "$CPID" 10
kill "$XPID" "$YPID"
ew_reap "$XPID" 10
ew_reap "$YPID" 10

# 5. Job A's connect in flight while X is destroyed and its number taken.
x_at_init inflight
# Held for 30 s: the destroy and the claim take a few seconds under TCG.
echo 30000 >"$FP/fault_modify_delay_ms"
YOUT=$EW_TMP/y.inflight
ew_start_bg "$YOUT" /ewA $NOBODY "$VERBS" rc-hold "$DEV" "$IDX" "$LOOP" "${X:-0}" 60
YPID=$EW_BG_PID
ew_check "inflight: job A's connect of Y onto its X (qpn ${X:-none}) is held before the driver" \
	ew_wait_for 20 grep -qx 1 "$FP/fault_modify_held"
echo 0 >"$FP/fault_modify_delay_ms"
Y=$(ew_qpn_of "$DEV" "$YPID")
kill "$XPID"
ew_reap "$XPID" 10
ew_dmesg_mark
claim inflight /ewB
ew_check "inflight: X was gone and job B's QP had its number at INIT while Y was still held" \
	sh -c "grep -qx 1 '$FP/fault_modify_held' && ! grep -q connected '$YOUT'"
ew_check "inflight: Y, recorded aimed at job B's QP, is revoked (QP_FATAL, or its RTR->RTS refused)" \
	ew_wait_for 70 y_revoked
ew_check "inflight: logged: qpn ${Y:-?} revoked (foreign-qp) as it was recorded, not by the INIT's pass" \
	revoked_on_commit "${Y:-0}"
echo go >&3
ew_reap "$CPID" 10
ew_reap "$YPID" 70

# 6. Job A in audit mode: reported, never revoked.
ew_check "audit: job A set to audit mode" "$CTL" job set ewA mode audit
ew_dmesg_mark
victim audit
passes_start
claim audit /ewB
sleep 3
PASSES=$(passes_count)
ew_check_not "audit: Y, aimed at job B's QP now, stays up (audit mode)" grep -qx revoked "$YOUT"
ew_check "audit: logged as a revocation audit mode held back" \
	ew_dmesg_wait "qpn $(printf 0x%x "${Y:-0}") would be revoked"
ew_check "audit: no revocation pass ran (${PASSES:-?})" test "${PASSES:-1}" -eq 0
kill "$CPID" "$YPID"
ew_reap "$CPID" 10
ew_reap "$YPID" 10

# 7. Job A's Y busy (a modify held under its lock) while its number is taken.
ew_check "busy: job A set to enforce mode again" "$CTL" job set ewA mode enforce
x_at_init busy
YOUT=$EW_TMP/y.busy
EW_BG_STDIN=$EW_TMP/holdy
ew_start_bg "$YOUT" /ewA $NOBODY "$VERBS" rts-av-change "$DEV" "$IDX" "$LOOP" "${X:-0}" "$LOOP" 90 wait
YPID=$EW_BG_PID
EW_BG_STDIN=
ew_check "busy: job A's QP Y connected to X (qpn ${X:-none})" ew_wait_for 60 grep -qx connected "$YOUT"
Y=$(ew_qpn_of "$DEV" "$YPID")
# Held for 25 s: the destroy and the claim take a few seconds under TCG.
echo 25000 >"$FP/fault_modify_delay_ms"
echo go >&4
ew_check "busy: Y's new address vector is held under Y's modify lock" \
	ew_wait_for 20 grep -qx 1 "$FP/fault_modify_held"
echo 0 >"$FP/fault_modify_delay_ms"
kill "$XPID"
ew_reap "$XPID" 10
claim busy /ewB
rdma res show qp link "$DEV/1" lqpn "${Y:-0}" >"$EW_TMP/ystate" 2>&1
ew_diag "busy: when job B's INIT returned: $(cat "$EW_TMP/ystate")"
# Y's process exits once it sees QP_FATAL: gone is revoked too.
ew_check "busy: when job B's QP (qpn ${X:-?}) reached INIT, Y (qpn ${Y:-?}) was in ERR (or gone)" \
	sh -c "grep -q 'state ERR' '$EW_TMP/ystate' || ! grep -q lqpn '$EW_TMP/ystate'"
ew_check "busy: Y had QP_FATAL" ew_wait_for 40 grep -qx revoked "$YOUT"
echo go >&3
ew_reap "$CPID" 10
ew_reap "$YPID" 10

# 8. Job B's QP pre-recorded in RESET by a modify that names no state (a
# P_Key index alone is refused anyway: no port to resolve it on).
victim prerec
claim prerec /ewB 1 pre
ew_check "prerec: job B's P_Key index and port alone in RESET (no state named) is refused" \
	grep -q '^pre-record: Permission denied' "$COUT"
ew_check "prerec: Y was revoked by job B's INIT (QP_FATAL)" \
	ew_wait_for 10 grep -qx revoked "$YOUT"
echo go >&3
ew_reap "$CPID" 10
ew_reap "$YPID" 10

ew_check "no oops, warning or leak in the kernel log" sh -c \
	"! dmesg | grep -Eq 'WARNING:|BUG:|Oops|Call Trace:|refcount_t:'"
ew_done
