#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 1
# ew-timeout: 600
#
# The QP gate against an attacker who drives the QP state machine rather
# than the address attributes (Documentation/threat-model.md, A11 and
# A20-A22). One node, soft-RoCE on lo, jobs A (/ewA) and B (/ewB) that may
# both reach 127.0.0.1. Each door is its own TAP line:
#
#   a. revocation sticks, with data: a pair of job A's RC QPs, connected to
#      each other and carrying a message, is revoked (peer removed; then job
#      deleted); every way back (naming IBV_QP_CUR_STATE RTR/RTS/SQD/INIT,
#      a plain RTS, RESET->INIT->RTR) must be refused and no byte may flow.
#   b. no state claims, no skipping INIT: one modify of a fresh QP from RESET
#      to RTS/RTR naming another current state, by a process in no job and
#      by a job's process, must be refused (a process in no job may not
#      create the UD QP in the first place), also from a process in no job
#      under default allow, which is not policed but may not lie about its
#      QP's state (on 38527fe it passed: rxe believed it); nor may a
#      job's process, with
#      CAP_NET_RAW or without, create a UD QP that sends as a QPN of its
#      choosing.
#   c. the record follows the driver: an RTS->RTS address change the driver
#      refuses must not change what revocation judges; a destroy the core
#      refuses (the QP held open, as an XRC target is) must leave the QP
#      tracked, and revoked when its peer goes.
#   d. another job's QP: job A's QP modified by job B's process, or by a
#      process in no job, or joined to a group by job B's process, must be
#      refused.
#   e. multicast attach: job A's UD QP may join only a group that is one of
#      its peers, and is revoked and leaves the group when the group stops
#      being one (a group still allowed stays joined); job B, without the ud
#      opt-in, gets no UD QP to join with; a QP joined to a group while its
#      process was in no job (default allow) cannot be brought back from
#      RESET once the process's cgroup is a job's that may not join it.
#   f. control: job A's ibv_rc_pingpong over the loopback GID still works.
#   g. unloading is not an off switch: rmmod is refused while a job exists.
# The denial counters of the new reasons (qp-state, revoked, qp-owner) are
# checked on their own lines in a, b and d.
#
# ew_verbs (selftests/tools) plays the attacker; its full output is shown
# as diagnostics after each case, so the log records every errno.

. "$(dirname "$0")/../lib.sh"

DEV=rxe0
CG=/sys/fs/cgroup
LOOP=127.0.0.1
OTHER=198.51.100.9

ew_require_root
ew_require_cmd rdma ip ibv_rc_pingpong mkfifo
ew_require_built ctl verbs cgroup

ew_tmp_dir
ew_defer "rmdir $CG/ewA $CG/ewB $CG/ewM"
ew_defer "rdma link delete $DEV"
ew_defer "ew_rmmod"
ew_defer "ew_reap_all"

# --- background processes: every one is recorded and reaped ----------------


# --- helpers ---------------------------------------------------------------

qp_count() {
	"$CTL" -j job show "$1" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print((d[0] if isinstance(d, list) else d)["qp_count"])'
}

# attempt_is FILE NAME WANT: FILE has the line "attempt NAME: WANT" (the
# answer on both QPs).
attempt_is() {
	grep -qxF "attempt $2: $3" "$1" && return 0
	echo "# wanted 'attempt $2: $3', got: $(grep "^attempt $2:" "$1" || echo nothing)"
	return 1
}

# attempt_failed FILE NAME: attempt NAME failed on both QPs (any errno).
attempt_failed() {
	_l=$(grep "^attempt $2:" "$1")
	case $_l in
	'' | *OK*)
		echo "# wanted attempt $2 refused, got: ${_l:-nothing}"
		return 1
		;;
	esac
}

# line_is FILE PREFIX WANT [TIMEOUT]: wait for a line starting with
# "PREFIX: " (default 30 s), which must be exactly "PREFIX: WANT".
line_is() {
	if ! ew_wait_for "${4:-30}" grep -q "^$2: " "$1"; then
		echo "# no '$2: ' line within ${4:-30} s; output:"
		sed 's/^/#   /' "$1"
		return 1
	fi
	grep -qxF "$2: $3" "$1" && return 0
	echo "# wanted '$2: $3', got: $(grep "^$2: " "$1")"
	return 1
}

# move_pid PID CGROUP: move process PID to CGROUP ("" is the root).
move_pid() {
	echo "$1" >"$CG$2/cgroup.procs" || return 1
	grep -qx "0::${2:-/}" "/proc/$1/cgroup" && return 0
	echo "# process $1 is in $(cat "/proc/$1/cgroup"), not ${2:-/}"
	return 1
}

# start_stepwise TAG CMD...: ew_start_stepwise of CMD in job A's cgroup
# ($pid), output in $out ($EW_TMP/step-TAG).
start_stepwise() {
	out=$EW_TMP/step-$1
	shift
	ew_start_stepwise "$out" /ewA "$@"
	pid=$EW_BG_PID
}

# show_output TAG FILE: the attacker's output as diagnostics.
show_output() {
	echo "# --- $1: ew_verbs said:"
	sed 's/^/#   /' "$2"
}

# pingpong TAG: job A's ibv_rc_pingpong, server and client in /ewA.
pingpong() {
	ew_start_bg "$EW_TMP/pp-srv" /ewA ibv_rc_pingpong -d "$DEV" -g "$IDX" -n 20 -c
	_srv=$EW_BG_PID
	ew_wait_listen 18515 60
	ew_expect_rc 0 "f/$1: job A's ibv_rc_pingpong over the loopback GID completes (20 verified round trips)" \
		ew_in_cg /ewA ibv_rc_pingpong -d "$DEV" -g "$IDX" -n 20 -c "$LOOP"
	ew_reap "$_srv" 30 >/dev/null
}

ew_plan 105

# --- setup -----------------------------------------------------------------

ew_check "eastwest.ko loads (enforce, default deny)" ew_load
ew_check "$DEV on lo" ew_rxe_add "$DEV" lo
IDX=$(ew_wait_gid_index "$DEV" "$LOOP" 20)
ew_check "GID of $LOOP found (index ${IDX:-none})" test -n "$IDX"
mkdir -p "$CG/ewA" "$CG/ewB"
# Job A opts in to UD QPs (b and e use them); job B does not.
ew_check "job A created (peer $LOOP, ud on)" "$CTL" job add ewA cgroup /ewA peer "$LOOP" ud on
ew_check "job B created (peer $LOOP)" "$CTL" job add ewB cgroup /ewB peer "$LOOP"

pingpong before

# --- a. revocation must stick, with data ------------------------------------

# revive_case TAG CHAIN_STEP CTR_JOB REVOKE_CMD...: job A's pair of QPs is
# revoked by REVOKE_CMD; every revival must fail, the chain at CHAIN_STEP
# with EACCES; the refusals count as denied-revoked for CTR_JOB.
revive_case() {
	_tag=$1
	_chain=$2
	_cjob=$3
	shift 3
	_rout=$EW_TMP/revive-$_tag
	_rbefore=$(ew_ctr "$_cjob" denied-revoked)
	ew_start_bg "$_rout" /ewA "$VERBS" rc-pair-revive "$DEV" "$IDX" 120
	_rpid=$EW_BG_PID
	ew_check "a/$_tag: job A's pair of RC QPs connected, a message carried" \
		ew_wait_for 90 grep -qx connected "$_rout"
	ew_check "a/$_tag: job A tracks both QPs (qp_count 2)" \
		test "$(qp_count ewA)" -eq 2
	ew_check "a/$_tag: revoked by: $*" "$@"
	ew_check "a/$_tag: both QPs get QP_FATAL" \
		ew_wait_for 60 grep -qx revoked "$_rout"
	ew_check "a/$_tag: the attacker tried every revival and exited" \
		ew_reap "$_rpid" 150
	for _a in rts-claim-rtr rts-claim-rts rts-claim-sqd rtr-claim-init; do
		ew_check "a/$_tag: $_a (IBV_QP_CUR_STATE claim) refused with EACCES" \
			attempt_is "$_rout" "$_a" EACCES
	done
	ew_check "a/$_tag: rts-plain (to RTS, no claim) refused" \
		attempt_failed "$_rout" rts-plain
	ew_check "a/$_tag: RESET->INIT->RTR chain: $_chain refused with EACCES" \
		attempt_is "$_rout" "$_chain" EACCES
	ew_check "a/$_tag: no data flows after revocation (carried 0 bytes)" \
		grep -qx 'carried 0 bytes' "$_rout"
	ew_check "a/$_tag: rc-pair-revive exits 0 (nothing came back)" \
		test "$EW_REAP_RC" = 0
	ew_check "a/$_tag: counter denied-revoked rose (${_cjob})" \
		ew_ctr_grew "$_cjob" denied-revoked "$_rbefore"
	show_output "a/$_tag (exit $EW_REAP_RC)" "$_rout"
}

revive_case peer-del chain-rtr ewA "$CTL" peer del ewA "$LOOP"
"$CTL" peer add ewA "$LOOP" >/dev/null 2>&1
# The job gone, the process is in no job: the chain stops at INIT.
revive_case job-del chain-init - "$CTL" job del ewA
ew_check "job A created again" "$CTL" job add ewA cgroup /ewA peer "$LOOP" ud on

# --- b. no skipping INIT, no state claims ------------------------------------

# A process in no job may not even create a UD QP (create-qp, no-job): its
# UD claims never reach the gate. Its RC claim does.
before=$(ew_ctr - denied-qp-state)
before_nj=$(ew_ctr - denied-no-job)
ew_expect_rc 13 "b/no-job: UD RESET->RTS naming CUR_STATE=RTR is refused" \
	"$VERBS" claim-state "$DEV" ud rtr rts
ew_expect_rc 13 "b/no-job: UD RESET->RTS naming CUR_STATE=RTS is refused" \
	"$VERBS" claim-state "$DEV" ud rts rts
ew_expect_rc 13 "b/no-job: UD RESET->RTR naming CUR_STATE=INIT is refused" \
	"$VERBS" claim-state "$DEV" ud init rtr
ew_check "b/no-job: the three UD QPs were refused at creation (denied-no-job rose by 3)" \
	ew_ctr_grew - denied-no-job "$before_nj" 3
ew_expect_rc 13 "b/no-job: RC RESET->RTS naming CUR_STATE=RTR is refused" \
	"$VERBS" claim-state "$DEV" rc rtr rts
ew_check "b/no-job: counter denied-qp-state (node) rose by 1" \
	ew_ctr_grew - denied-qp-state "$before" 1
before=$(ew_ctr ewA denied-qp-state)
ew_expect_rc 13 "b/job A: UD RESET->RTS naming CUR_STATE=RTR is refused" \
	ew_in_cg /ewA "$VERBS" claim-state "$DEV" ud rtr rts
ew_expect_rc 13 "b/job A: RC RESET->RTS naming CUR_STATE=RTR is refused" \
	ew_in_cg /ewA "$VERBS" claim-state "$DEV" rc rtr rts
ew_check "b/job A: counter denied-qp-state of job A rose by 2" \
	ew_ctr_grew ewA denied-qp-state "$before" 2
# Under default allow a process in no job is not policed, but a claim that
# is not its QP's real state is refused all the same (rxe believed it).
ew_check "b/default allow" "$CTL" config set default allow
ew_expect_rc 13 "b/no job, default allow: RC RESET->RTS naming CUR_STATE=RTR is refused" \
	"$VERBS" claim-state "$DEV" rc rtr rts
ew_check "b/default deny again" "$CTL" config set default deny

# A UD QP that would send as any QPN (IBV_QP_CREATE_SOURCE_QPN): uverbs'
# ioctl command takes the flag without CAP_NET_RAW, which its write command
# asks for. Refused to a job's process, with the capability (root) or
# without, before the driver sees it, as a raw packet QP is (rxe has no
# such QPs and answers EINVAL; mlx5 makes them).
NOBODY=$(ew_nobody_script "$EW_TMP")
before=$(ew_ctr ewA denied-qp-type)
ew_expect_rc 13 "b/job A, without CAP_NET_RAW: a UD QP sending as QPN 0x1 is refused" \
	ew_in_cg /ewA "$NOBODY" "$VERBS" ud-source-qpn "$DEV" 0x1
ew_expect_rc 13 "b/job A, with CAP_NET_RAW (root): refused too" \
	ew_in_cg /ewA "$VERBS" ud-source-qpn "$DEV" 0x1
ew_check "b/job A: counter denied-qp-type of job A rose by 2" \
	ew_ctr_grew ewA denied-qp-type "$before" 2

# --- c. the record follows the driver ----------------------------------------

out=$EW_TMP/av-change
ew_check "c: job A may reach $OTHER too" "$CTL" peer add ewA "$OTHER"
ew_start_bg "$out" /ewA "$VERBS" rts-av-change "$DEV" "$IDX" "$LOOP" self "$OTHER" 120
pid=$EW_BG_PID
ew_check "c: job A's RC QP is connected to $LOOP (RTS)" \
	ew_wait_for 60 grep -qx connected "$out"
ew_check "c: its RTS->RTS modify with an AV to $OTHER was answered" \
	ew_wait_for 30 grep -q '^av-change: ' "$out"
av=$(sed -n 's/^av-change: //p' "$out")
ew_diag "RTS->RTS with IBV_QP_AV to $OTHER: ${av:-no answer}"
ew_check "c: job A tracks the QP (qp_count 1)" test "$(qp_count ewA)" -eq 1
if [ "$av" = OK ]; then
	used=$OTHER
else
	used=$LOOP
fi
ew_check "c: the peer the QP really uses ($used) is removed" \
	"$CTL" peer del ewA "$used"
ew_check "c: the QP is revoked" ew_wait_for 30 grep -qx revoked "$out"
ew_check "c: job A tracks no QP any more (qp_count 0)" \
	test "$(qp_count ewA)" -eq 0
ew_reap "$pid" 1 >/dev/null
show_output c "$out"
"$CTL" peer del ewA "$OTHER" >/dev/null 2>&1
"$CTL" peer add ewA "$LOOP" >/dev/null 2>&1

# A destroy refused after it reached the core (ib_destroy_qp_user() while
# another process holds the QP open, as processes open an XRC target QP by
# number; qp_opener stands in, rxe has no XRC) leaves the QP connected: its
# record must stay, or nothing revokes it later.
start_stepwise d "$VERBS" rc-destroy-hold "$DEV" "$IDX" "$LOOP" self 30
ew_check "c: job A's RC QP is connected to $LOOP (RTS)" \
	ew_wait_for 60 grep -q '^connected qpn ' "$out"
qpn=$(sed -n 's/^connected qpn //p' "$out")
ew_check "c: qp_opener holds job A's QP ${qpn:-?} open" \
	insmod "$EW_TOP/build/$(uname -r)/qp_opener/qp_opener.ko" dev="$DEV" qpn="${qpn:-0}"
echo destroy >&3
ew_check "c: the core refuses to destroy the QP held open (EBUSY)" \
	ew_wait_for 30 grep -qx 'destroy: EBUSY' "$out"
ew_check "c: job A still tracks the QP (qp_count 1)" test "$(qp_count ewA)" -eq 1
ew_check "c: the peer it uses ($LOOP) is removed" "$CTL" peer del ewA "$LOOP"
ew_check "c: the QP the destroy left is revoked" \
	ew_wait_for 40 grep -qx revoked "$out"
# Let go before the QP goes with its process (a refused destroy at exit
# makes uverbs warn).
rmmod qp_opener 2>/dev/null
echo exit >&3
ew_reap "$pid" 30 >/dev/null
exec 3>&-
show_output "c/destroy refused (exit $EW_REAP_RC)" "$out"
"$CTL" peer add ewA "$LOOP" >/dev/null 2>&1

# --- d. another job's QP ------------------------------------------------------

# Job A's process takes its QP to INIT, then moves to job B's cgroup.
start_stepwise b "$VERBS" rc-stepwise "$DEV" "$IDX" "$LOOP" self
ew_check "d/job B: job A's process has its QP in INIT" line_is "$out" init OK 60
before=$(ew_ctr ewB denied-qp-owner)
ew_check "d/job B: the process is moved to job B's cgroup" move_pid "$pid" /ewB
echo go >&3
ew_check "d/job B: INIT->RTR of job A's QP by job B's process refused with EACCES" \
	line_is "$out" rtr EACCES
echo go >&3
exec 3>&-
ew_reap "$pid" 30 >/dev/null
ew_check "d/job B: counter denied-qp-owner of job B rose" \
	ew_ctr_grew ewB denied-qp-owner "$before"
show_output "d/job B (exit $EW_REAP_RC)" "$out"

# Job A's process takes its QP to RTR, then leaves every job.
start_stepwise none "$VERBS" rc-stepwise "$DEV" "$IDX" "$LOOP" self
ew_check "d/no-job: job A's process has its QP in INIT" line_is "$out" init OK 60
echo go >&3
ew_check "d/no-job: job A's process takes it to RTR (allowed peer)" \
	line_is "$out" rtr OK
before=$(ew_ctr - denied-qp-owner)
ew_check "d/no-job: the process is moved to the root cgroup (no job)" \
	move_pid "$pid" ""
echo go >&3
ew_check "d/no-job: RTR->RTS of job A's QP by a process in no job refused with EACCES" \
	line_is "$out" rts EACCES
exec 3>&-
ew_reap "$pid" 30 >/dev/null
ew_check "d/no-job: counter denied-qp-owner (node) rose" \
	ew_ctr_grew - denied-qp-owner "$before"
show_output "d/no-job (exit $EW_REAP_RC)" "$out"

# Job A's process takes a UD QP to INIT, then moves to job B's cgroup and
# joins it to a group that job B may reach and job A may not.
MGID_B=ff0e::ee:3
ew_check "d/mcast: the group $MGID_B is made a peer of job B" "$CTL" peer add ewB "$MGID_B"
start_stepwise mc "$VERBS" mcast-stepwise "$DEV" "$MGID_B"
ew_check "d/mcast: job A's process has its UD QP in INIT" line_is "$out" init OK 60
before=$(ew_ctr ewB denied-qp-owner)
ew_check "d/mcast: the process is moved to job B's cgroup" move_pid "$pid" /ewB
echo go >&3
ew_check "d/mcast: job B's process may not join job A's QP to job B's group (EACCES)" \
	line_is "$out" attach EACCES
exec 3>&-
ew_reap "$pid" 30 >/dev/null
ew_check "d/mcast: counter denied-qp-owner of job B rose" \
	ew_ctr_grew ewB denied-qp-owner "$before"
show_output "d/mcast (exit $EW_REAP_RC)" "$out"
ew_check "d/mcast: the group is removed from job B" "$CTL" peer del ewB "$MGID_B"

# --- f. the gate still lets a job work ----------------------------------------

pingpong after

# --- e. multicast attach is judged -----------------------------------------------

MGID=ff0e::ee:1
ew_expect_rc 13 "e: job A's UD QP may not join $MGID (not a peer)" \
	ew_in_cg /ewA "$VERBS" mcast-attach "$DEV" "$MGID"
ew_expect_rc 13 "e: nor may a process in no job" "$VERBS" mcast-attach "$DEV" "$MGID"
ew_check "e: the group is made a peer of job A" "$CTL" peer add ewA "$MGID"
ew_expect_rc 0 "e: now job A's UD QP joins it" \
	ew_in_cg /ewA "$VERBS" mcast-attach "$DEV" "$MGID"
ew_check "e: the group is removed again" "$CTL" peer del ewA "$MGID"

# A membership must follow the job's rules like a connection: when a group
# stops being allowed, its member is revoked and leaves the group, while a
# group still allowed stays joined. Once revoked, the process leaves both
# groups itself: the driver refuses (EINVAL) to detach a QP that is no
# longer a member. (rxe's own multicast filter cannot tell: it keeps the
# group's address after the last QP left.)
MGID2=ff0e::ee:2
ew_check "e: groups $MGID and $MGID2 are made peers of job A" \
	"$CTL" peer add ewA "$MGID" "$MGID2"
ew_start_bg "$EW_TMP/mc-hold" /ewA "$VERBS" mcast-hold "$DEV" "$MGID,$MGID2" 60
pid=$EW_BG_PID
ew_check "e: job A's UD QP joins both groups" \
	ew_wait_for 30 grep -qx attached "$EW_TMP/mc-hold"
ew_check "e: $MGID is removed from job A" "$CTL" peer del ewA "$MGID"
ew_check "e: the member of the removed group is revoked (QP_FATAL)" \
	ew_wait_for 30 grep -qx revoked "$EW_TMP/mc-hold"
ew_check "e: the revoked QP is no longer in $MGID (its detach: EINVAL)" \
	line_is "$EW_TMP/mc-hold" "detach $MGID" EINVAL
ew_check "e: but still in $MGID2, which job A may join (its detach: OK)" \
	line_is "$EW_TMP/mc-hold" "detach $MGID2" OK
ew_reap "$pid" 30 >/dev/null
show_output "e/member (exit $EW_REAP_RC)" "$EW_TMP/mc-hold"
ew_check "e: $MGID2 is removed from job A" "$CTL" peer del ewA "$MGID2"
before=$(ew_ctr ewB denied-qp-type)
ew_expect_rc 13 "e: job B (no ud opt-in) gets no UD QP to join with" \
	ew_in_cg /ewB "$VERBS" mcast-attach "$DEV" "$MGID"
ew_check "e: refused at creation: counter denied-qp-type of job B rose" \
	ew_ctr_grew ewB denied-qp-type "$before"

# A group joined before the process was policed is in no record: under
# default allow a process in no job joins its UD QP (in INIT, so no sweep
# revokes it) to a group; its cgroup then becomes job M's (ud on, the
# group not a peer). The QP must not come back to receive from the group:
# a reset passes, RESET->INIT does not (the core counts more groups than
# the record holds), so INIT->RTR is never reached.
MGID_M=ff0e::ee:4
mkdir -p "$CG/ewM"
ew_check "e/before-policed: default allow" "$CTL" config set default allow
out=$EW_TMP/step-mr
ew_start_stepwise "$out" /ewM "$VERBS" mcast-reset "$DEV" "$MGID_M"
pid=$EW_BG_PID
ew_check "e/before-policed: a process in no job joins its UD QP to $MGID_M" \
	line_is "$out" attach OK 60
ew_check "e/before-policed: its cgroup becomes job M's (peer $LOOP, ud on)" \
	"$CTL" job add ewM cgroup /ewM peer "$LOOP" ud on
ew_check "e/before-policed: default deny again" "$CTL" config set default deny
before=$(ew_ctr ewM denied-internal)
echo go >&3
ew_check "e/before-policed: its QP may be reset" line_is "$out" reset OK
ew_check "e/before-policed: but not taken back to INIT while a member of $MGID_M (EACCES)" \
	line_is "$out" "init again" EACCES
exec 3>&-
ew_reap "$pid" 30 >/dev/null
ew_check "e/before-policed: counted as denied-internal of job M" \
	ew_ctr_grew ewM denied-internal "$before"
show_output "e/before-policed (exit $EW_REAP_RC)" "$out"
ew_check "e/before-policed: job M deleted" "$CTL" job del ewM

# --- g. unloading is not an off switch -------------------------------------------

ew_check "g: rmmod is refused while a job exists (the module is still loaded)" \
	sh -c "! rmmod eastwest 2>/dev/null && test -d /sys/module/eastwest"
ew_expect_rc 13 "g: and a process in no job is still refused" \
	"$VERBS" rc-connect "$DEV" "$IDX" "$LOOP" self

# --- teardown -------------------------------------------------------------------

ew_reap_all
ew_check "$DEV deleted" ew_rxe_del "$DEV"
ew_check "eastwest unloads" ew_unload

ew_done
