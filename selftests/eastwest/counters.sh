#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 1
# ew-timeout: 300
#
# Reading other jobs' QPNs through per-QP statistics counters. On a device
# with counters (mlx5), an administrator's `rdma statistic qp set link
# DEV/1 auto type on` binds every user's RC QPs to one shared counter, and
# `rdma statistic qp show` (RDMA_NLDEV_CMD_STAT_GET, no privilege needed)
# lists the number of every QP bound to it: the core's dump walks its QP
# table itself, not through rdma_restrack_get(). rxe has no counter
# operations, so selftests/tools/fake_counter binds job A's QPs to a
# counter the way auto mode does. Jobs A (/ewA) and B (/ewB) share rxe0
# on lo; every job process runs as uid 65534.
#
#   1. a counter by QP type holding job A's two QPs: root lists it with
#      their numbers (control); uid 65534 in job B, in no job and in job A
#      itself lists none of them (the counter may hold any job's QPs);
#   2. a counter of auto mode by process (mask pid) with the same QPs: job
#      A's process lists them, job B's does not;
#   3. a counter of auto mode by process whose task has exited (a thread of
#      job A's process made its QP and ended): root lists it, job A's
#      process does not. The core binds QPs to such a counter by the
#      task's pid number, which another job's task can get once the task
#      is gone, and whose QPs would then be listed to job A.
#
# Against a module that showed every counter to everyone, the job B and
# no-job checks of 1 and the job B check of 2 print "not ok"; against one
# that showed a counter by process to its task's job while that task was
# gone (02e34f1), the job A check of 3 does (found by an attacker review,
# by reading).

. "$(dirname "$0")/../lib.sh"

DEV=rxe0
CG=/sys/fs/cgroup
LOOP=127.0.0.1
FC_KO=$EW_TOP/build/$(uname -r)/fake_counter/fake_counter.ko

ew_require_root
ew_require_cmd rdma python3 setpriv mkfifo
ew_require_built ctl verbs cgroup
[ -f "$FC_KO" ] || ew_skip "no $FC_KO (make -C selftests/tools/fake_counter)"

ew_tmp_dir 755
ew_defer "rmdir $CG/ewA $CG/ewB"
ew_defer "rdma link delete $DEV"
ew_defer "ew_rmmod"
ew_defer "ew_reap_all"
# Before the victim's QPs go: rxe cannot free a real counter.
ew_defer "rmmod fake_counter 2>/dev/null"

NOBODY=$(ew_nobody_script "$EW_TMP")

# The QPNs (decimal) that `rdma -j statistic qp show` (stdin) lists.
cat >"$EW_TMP/lqpns.py" <<'EOF'
import json, sys
text = sys.stdin.read().strip()
found = []
def walk(o):
    if isinstance(o, dict):
        for k, v in o.items():
            if k == "lqpn":
                found.extend(v if isinstance(v, list) else [v])
            else:
                walk(v)
    elif isinstance(o, list):
        for v in o:
            walk(v)
try:
    walk(json.loads(text) if text else [])
except ValueError:
    pass
print(" ".join(str(q) for q in found))
EOF

# stat_qpns WHO CG: the QPNs `rdma -j statistic qp show` lists for WHO
# (root, or nobody: uid 65534) in cgroup CG; the output goes to a file.
stat_qpns() {
	_f=$EW_TMP/stat-$1-$(echo "$2" | tr -d /)
	if [ "$1" = root ]; then
		ew_in_cg "$2" rdma -j statistic qp show >"$_f" 2>&1
	else
		ew_in_cg "$2" "$NOBODY" rdma -j statistic qp show >"$_f" 2>&1
	fi
	python3 "$EW_TMP/lqpns.py" <"$_f"
}

# lists_a WHO CG: WHO in CG lists both of job A's QPNs.
lists_a() {
	_q=" $(stat_qpns "$1" "$2") "
	echo "# $1 in $2 lists: ${_q}"
	case $_q in
	*" $Q1 "*) ;;
	*) return 1 ;;
	esac
	case $_q in
	*" $Q2 "*) return 0 ;;
	esac
	return 1
}

# lists_q WHO CG QPN: WHO in CG lists QPN.
lists_q() {
	_q=" $(stat_qpns "$1" "$2") "
	echo "# $1 in $2 lists: ${_q}"
	case $_q in
	*" $3 "*) return 0 ;;
	esac
	return 1
}

# lists_none_of_a WHO CG: WHO in CG lists neither of job A's QPNs.
lists_none_of_a() {
	_q=" $(stat_qpns "$1" "$2") "
	echo "# $1 in $2 lists: ${_q}"
	case $_q in
	*" $Q1 "* | *" $Q2 "*) return 1 ;;
	esac
	return 0
}

ew_plan 16

ew_check "eastwest.ko loads (enforce, default deny)" ew_load
ew_check "$DEV on lo" ew_rxe_add "$DEV" lo
IDX=$(ew_wait_gid_index "$DEV" "$LOOP" 20)
mkdir -p "$CG/ewA" "$CG/ewB"
ew_check "jobs A and B created (peer $LOOP each)" \
	sh -c "'$CTL' job add ewA cgroup /ewA peer $LOOP && '$CTL' job add ewB cgroup /ewB peer $LOOP"

# Job A's victim: two RC QPs connected to each other, waiting.
mkfifo "$EW_TMP/fifo-a"
exec 3<>"$EW_TMP/fifo-a"
EW_BG_STDIN=$EW_TMP/fifo-a
ew_start_bg "$EW_TMP/victim" /ewA "$NOBODY" "$VERBS" rc-pair-hold "$DEV" "${IDX:-1}" 1
EW_BG_STDIN=
ew_check "job A's process (uid 65534): two RC QPs connected to each other" \
	ew_wait_for 60 grep -qx connected "$EW_TMP/victim"
V1=$(sed -n 's/^qp1 qpn \(0x[0-9a-f]*\) .*/\1/p' "$EW_TMP/victim")
V2=$(sed -n 's/^qp2 qpn \(0x[0-9a-f]*\) .*/\1/p' "$EW_TMP/victim")
Q1=$((${V1:-0}))
Q2=$((${V2:-0}))
ew_diag "job A's QPs: $Q1 $Q2"

# --- 1. a counter by QP type (auto mode: every user's RC QPs) --------------

ew_check "1: fake_counter binds job A's QPs to a counter by QP type" \
	insmod "$FC_KO" dev="$DEV" qpns="$Q1,$Q2"
ew_check "1/root: rdma statistic qp show lists job A's QPNs (the counter works)" \
	lists_a root /
ew_check "1/job B: rdma statistic qp show lists none of job A's QPNs" \
	lists_none_of_a nobody /ewB
ew_check "1/no job: rdma statistic qp show lists none of job A's QPNs" \
	lists_none_of_a nobody /
ew_check "1/job A: a counter that may hold other jobs' QPs is not shown to job A either" \
	lists_none_of_a nobody /ewA

# --- 2. a counter of auto mode by process ------------------------------------

rmmod fake_counter
ew_check "2: fake_counter binds job A's QPs to a counter by process" \
	insmod "$FC_KO" dev="$DEV" qpns="$Q1,$Q2" per_pid=1
ew_check "2/job A: its process lists its own QPNs" lists_a nobody /ewA
ew_check "2/job B: rdma statistic qp show lists none of job A's QPNs" \
	lists_none_of_a nobody /ewB
rmmod fake_counter

# --- 3. a counter by process whose task is gone ------------------------------

mkfifo "$EW_TMP/fifo-t"
exec 4<>"$EW_TMP/fifo-t"
EW_BG_STDIN=$EW_TMP/fifo-t
ew_start_bg "$EW_TMP/tq" /ewA "$NOBODY" "$VERBS" thread-qp "$DEV"
EW_BG_STDIN=
ew_check "3: job A's process: a thread made a QP and ended" \
	ew_wait_for 30 grep -qx 'thread gone' "$EW_TMP/tq"
T1=$(( $(sed -n 's/^qpn //p' "$EW_TMP/tq") + 0 ))
ew_check "3: fake_counter binds it ($T1) to a counter by process (its task the ended thread)" \
	insmod "$FC_KO" dev="$DEV" qpns="$T1" per_pid=1
ew_check "3/root lists it" lists_q root / "$T1"
ew_check_not "3/job A: a counter whose task is gone is not shown to job A" \
	lists_q nobody /ewA "$T1"
rmmod fake_counter
exec 4>&-

ew_done
