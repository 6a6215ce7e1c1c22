#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 1
# ew-kernels: 6.1
# ew-timeout: 300
#
# One source's denials must not hide another's. Every refusal is
# reported: a line in the kernel log (rate-limited) and an event to the
# `monitor` listeners through a fixed ring (dropped when full). An
# attacker who floods refusals of its own (they cost it nothing: each is
# one failed ibv_modify_qp()) used up the log's budget, so that another
# job's refusal, or its own real attempt made from a second identity,
# left no line. rxe on lo, default deny; job A and job B both allow only
# this node.
#
#   1. job B's processes (two) and a process in no job (uid 65534) each
#      make refused modifies as fast as they come back for 12 s;
#   2. meanwhile job A's process makes one refused connect (to 10.9.9.8,
#      not its peer) and a process in no job of another user (uid 65533)
#      one refused modify;
#   3. both refusals are in the kernel log and `monitor` reported both;
#   4. job B's counters hold every one of its refusals (counters are
#      exact) and count its reports that were dropped, its log lines stay
#      within its budget (10 per 5 s) and a line says how many of its
#      reports were not logged.
# Against a module whose log budget was one for everyone (3c1352c), the
# two refusals of step 2 left no line in the kernel log.

. "$(dirname "$0")/../lib.sh"

DEV=rxe0
CG=/sys/fs/cgroup
LOOP=127.0.0.1
SECS=12

ew_require_root
ew_require_cmd rdma python3 setpriv
ew_require_built ctl verbs cgroup

ew_tmp_dir 755
ew_defer "rmdir $CG/ewA $CG/ewB"
ew_defer "rdma link delete $DEV"
ew_defer "ew_unload"
ew_defer "ew_reap_all"

NOBODY=$(ew_nobody_script "$EW_TMP")
sed 's/65534/65533/g' "$NOBODY" >"$EW_TMP/other"
chmod 755 "$EW_TMP/other"
OTHER=$EW_TMP/other

# deny_event EVENTS REASON JOB_ID UID: `monitor -j` output EVENTS has a
# denial with REASON by a process of real uid UID in job JOB_ID ("-": in
# no job). grep first: a flood can leave a large file.
deny_event() {
	grep -E "\"uid\": ?$4[,} ]" "$1" | python3 -c '
import json, sys
for line in sys.stdin:
    try:
        e = json.loads(line)
    except ValueError:
        continue
    job = str(e.get("job_id", "-"))
    if (e.get("event") == "deny" and e.get("reason") == sys.argv[1] and
            job == sys.argv[2] and str(e.get("uid")) == sys.argv[3]):
        sys.exit(0)
sys.exit(1)' "$2" "$3" "$4"
}

# lines ERE: how many kernel log lines since the mark match ERE.
lines() {
	ew_dmesg_since_mark "$1" | wc -l
}

# refused FILE: the N of a flooder's "refused N", or nothing.
refused() {
	sed -n 's/^refused \([0-9]*\)$/\1/p' "$1"
}

ew_plan 19

ew_load_rxe_lo
mkdir -p "$CG/ewA" "$CG/ewB"
ew_check "job A and job B (peer $LOOP each)" sh -c \
	"'$CTL' job add ewA cgroup /ewA peer $LOOP && '$CTL' job add ewB cgroup /ewB peer $LOOP"
ew_check "default deny" "$CTL" config set default deny
AID=$(ew_job_id ewA)
BID=$(ew_job_id ewB)
"$CTL" -j monitor >"$EW_TMP/events" 2>&1 &
MON=$!
ew_defer "kill $MON"
ew_monitor_wait "$MON" || ew_bail "eastwestctl monitor did not join the events group"
B0=$(ew_ctr ewB denied-peer)

# --- 1. the flood -------------------------------------------------------------------------
ew_dmesg_mark
ew_start_bg "$EW_TMP/b1" /ewB "$NOBODY" "$VERBS" deny-flood "$DEV" "$IDX" 10.9.9.9 "$SECS"
B1=$EW_BG_PID
ew_start_bg "$EW_TMP/b2" /ewB "$NOBODY" "$VERBS" deny-flood "$DEV" "$IDX" 10.9.9.9 "$SECS"
B2=$EW_BG_PID
ew_start_bg "$EW_TMP/n1" / "$NOBODY" "$VERBS" deny-flood "$DEV" "$IDX" 10.9.9.9 "$SECS"
N1=$EW_BG_PID

# --- 2. the refusals to be seen -----------------------------------------------------------
sleep 3
ew_check "2/job A's connect to 10.9.9.8 is refused (exit 13)" sh -c \
	"echo \$\$ >$CG/ewA/cgroup.procs && '$NOBODY' '$VERBS' rc-connect '$DEV' '$IDX' 10.9.9.8 0x200 >'$EW_TMP/a' 2>&1; test \$? -eq 13"
ew_check "2/uid 65533's modify in no job is refused (exit 13)" sh -c \
	"'$OTHER' '$VERBS' rc-connect '$DEV' '$IDX' 10.9.9.7 0x201 >'$EW_TMP/o' 2>&1; test \$? -eq 13"

rc=0
for p in $B1 $B2 $N1; do
	wait "$p" || rc=$?
done
ew_check "1/the flooders ran for ${SECS} s and every modify was refused" test "$rc" -eq 0
NB=$(( $(refused "$EW_TMP/b1") + $(refused "$EW_TMP/b2") ))
ew_diag "1/refused: job B $(refused "$EW_TMP/b1") + $(refused "$EW_TMP/b2"), no job $(refused "$EW_TMP/n1")"
ew_check "1/job B's flooders were refused $NB times (more than 200)" test "$NB" -gt 200

# --- 3. both refusals were seen -----------------------------------------------------------
ew_check "3/the kernel log has job A's refusal" \
	ew_dmesg_wait "denied modify_qp: peer not allowed: job $AID .* dgid ::ffff:10\.9\.9\.8 "
ew_check "3/the kernel log has uid 65533's refusal" \
	ew_dmesg_wait "denied modify_qp: no job: job 0 .* uid 65533 "
ew_check "3/monitor reported job A's refusal" \
	ew_wait_for 10 deny_event "$EW_TMP/events" peer "$AID" 65534
ew_check "3/monitor reported uid 65533's" \
	ew_wait_for 10 deny_event "$EW_TMP/events" no-job - 65533

# --- 4. the flooders' own reports ----------------------------------------------------------
ew_check "4/job B's denied-peer counter rose by exactly $NB" \
	test "$(ew_ctr ewB denied-peer)" -eq $((B0 + NB))
DB=$(ew_ctr ewB events-dropped)
ew_diag "4/job B's reports dropped: $DB"
ew_check "4/job B's events-dropped counter holds its dropped reports (1..$NB)" \
	sh -c "[ '$DB' != none ] && [ '$DB' -ge 1 ] && [ '$DB' -le $NB ]"
LB=$(lines "denied modify_qp: peer not allowed: job $BID ")
LN=$(lines "denied modify_qp: no job: job 0 .* uid 65534 ")
ew_diag "4/log lines: job B $LB, uid 65534 in no job $LN"
ew_check "4/job B's log lines stay within 10 per 5 s (1..40 in ${SECS} s)" \
	sh -c "[ $LB -ge 1 ] && [ $LB -le 40 ]"
ew_check "4/uid 65534's in no job too (1..40)" sh -c "[ $LN -ge 1 ] && [ $LN -le 40 ]"
ew_check "4/a line tells how many of job B's reports were not logged" \
	ew_dmesg_wait "job $BID: [0-9]+ denials? not logged"
ew_check "4/job A's process in its job is untouched: its own peer still connects" \
	sh -c "echo \$\$ >$CG/ewA/cgroup.procs && exec '$NOBODY' '$VERBS' rc-connect '$DEV' '$IDX' $LOOP self >/dev/null 2>&1"

ew_done
