#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 1
# ew-timeout: 300
# ew-kernels: 6.12
#
# A QP's destroy against a revocation pass. The RDMA core frees a user QP
# inside ib_destroy_qp_user(); from then on nothing may read the QP through
# eastwest's record of it, which a pass over every record (node revoke,
# admission, enforce) does for each record it judges. The fault build's
# fault_destroy_delay_ms holds a destroy between the core's free and the
# moment its record goes; the guests poison freed objects of the QP's size
# (slub_debug, selftests/vm/run), so that a read of the freed QP finds
# 0x6b bytes and the pass that made it crashes. Job processes run as uid
# 65534, no capabilities.
#
#   1. job A's pair of RC QPs on rxe0, connected to each other over the
#      node's address; it exits, and the first of its destroys is held
#      after the core freed the QP. A revocation pass over every record
#      (node revoke of an address nobody uses) runs meanwhile: it must
#      finish, and leave no oops.
#   2. the destroys go on: job A is left with no QP.
#   3. afterwards a new pair of job A connects, the revoked address is
#      admitted again, and the pair's transfer verifies.
#
# Against a module that drops the record only after the core freed the QP,
# 1's pass reads the freed QP's device (0x6b6b...) and oopses.

. "$(dirname "$0")/../lib.sh"

CG=/sys/fs/cgroup
FAULT_KO=${EW_FAULT_KO:-$EW_SHARED/eastwest-fault.ko}
FP=/sys/module/eastwest/parameters
A=10.79.0.1
NOBODY_ADDR=10.79.0.99
HOLD_MS=20000

ew_require_root
ew_require_cmd rdma ip setpriv mkfifo
ew_require_built ctl verbs
[ -f "$FAULT_KO" ] || ew_skip "no $FAULT_KO (selftests/vm/run builds it)"

ew_tmp_dir 755
ew_defer "rmdir $CG/ewA"
ew_defer "ew_netdev_del d0"
ew_defer "rdma link delete rxe0"
ew_defer "ew_rmmod"
ew_defer "ew_reap_all"
ew_defer "echo 0 >$FP/fault_destroy_delay_ms"

# qp_count JOB: the live QPs the module tracks for JOB.
qp_count() {
	"$CTL" -j job show "$1" | tr -d '\n' | sed -n 's/.*"qp_count": *\([0-9]*\).*/\1/p'
}

# tracked JOB N: the module tracks N live QPs of JOB.
tracked() { test "$(qp_count "$1")" = "$2"; }
setup_rxe0() { ew_dummy_add d0 "$A/32" && ew_rxe_add rxe0 d0; }
pair_up() { ew_wait_for 60 grep -qx connected "$EW_TMP/pair" && tracked ewA 2; }
no_oops_since_mark() {
	! ew_dmesg_since_mark | grep -Eq 'general protection|Oops|BUG:|WARNING:'
}

ew_plan 13

ew_check "fault build loads (enforce, default deny)" ew_insmod "$FAULT_KO"
ew_check "d0 ($A) and rxe0 on it" setup_rxe0
IDX=$(ew_wait_gid_index rxe0 "$A" 20)
ew_check "GID of $A on rxe0 (index ${IDX:-none})" test -n "$IDX"
mkdir -p "$CG/ewA"
ew_check "job A may reach $A" "$CTL" job add ewA cgroup /ewA peer "$A"
mkfifo "$EW_TMP/go"
exec 3<>"$EW_TMP/go"

# 1. The pair exits; its first destroy is held after the core's free.
ew_pair_start "$EW_TMP/pair" "$EW_TMP/go" /ewA rxe0 "${IDX:-1}" 1
PID=$EW_BG_PID
ew_check "1/job A's pair (pid $PID): two RC QPs on rxe0 connected over $A, tracked" pair_up
echo "$HOLD_MS" >"$FP/fault_destroy_delay_ms"
echo go >&3
ew_check "1/the pair exits; a destroy is held after the core freed its QP" \
	ew_wait_for 60 grep -qx 1 "$FP/fault_destroy_held"
ew_dmesg_mark
ew_check "1/a pass over every record (node revoke $NOBODY_ADDR) finishes while it is held" \
	timeout 60 "$CTL" node revoke "$NOBODY_ADDR"
ew_check "1/the destroy was still held meanwhile" grep -qx 1 "$FP/fault_destroy_held"
ew_check "1/no oops, general protection fault or BUG" no_oops_since_mark

# 2. The destroys go on.
echo 0 >"$FP/fault_destroy_delay_ms"
ew_reap "$PID" $((2 * HOLD_MS / 1000 + 60)) >/dev/null
ew_check "2/the pair's process has exited and verified (rc ${EW_REAP_RC:-none})" \
	sh -c "test '$EW_REAP_RC' = 0 && grep -qx 'verified 1 messages each way' '$EW_TMP/pair'"
ew_check "2/job A tracks no QP" ew_wait_for 10 tracked ewA 0

# 3. Afterwards: the revoked address admitted again, a new pair works.
"$CTL" node admit "$NOBODY_ADDR"
ew_pair_start "$EW_TMP/pair2" "$EW_TMP/go" /ewA rxe0 "${IDX:-1}" 3
PID=$EW_BG_PID
echo go >&3
ew_reap "$PID" 90 >/dev/null
ew_check "3/a new pair of job A connects and verifies" \
	sh -c "test '$EW_REAP_RC' = 0 && grep -qx 'verified 3 messages each way' '$EW_TMP/pair2'"

exec 3>&-
ew_reap_all
ew_check "no oops, warning or leak in the kernel log" sh -c \
	"! dmesg | grep -Eq 'WARNING:|BUG:|Oops|Call Trace:|refcount_t:|general protection'"

ew_done
