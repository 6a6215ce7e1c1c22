#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 1
# ew-timeout: 600
#
# Co-located jobs when one address of this node is a GID of two devices:
# what an address of an upper device (VLAN, macvlan, MACsec) is, on the
# device of its lower netdev and on a device bound to the upper one. Here,
# two dummies with one MAC and one address G (10.77.0.1), soft-RoCE rxe0 on
# d0 and rxe1 on d1. A packet to one of its own GIDs never leaves the
# sending device (soft-RoCE hands back a packet addressed to its own MAC),
# so a connect from rxe0 to G ends in rxe0's QP of that number, whatever
# rxe1 holds. (The fault build's fault_qpn_next gives the next soft-RoCE
# QP a chosen number: what sequential numbering or enough creates give an
# attacker.) Every job process runs as uid 65534, no capabilities.
#
#   1. job A's victim: a pair of RC QPs on rxe0, connected to each other
#      over G while only rxe0 has it; then G comes to d1 (rxe1's GIDs are
#      read last). Job B gets the victim's QPN on rxe1, then connects a QP
#      on rxe0 to G and that QPN and sends at the victim's expected PSN:
#      must be refused (EACCES, denied-foreign-qp of job B). Job A's
#      transfer must then complete and verify.
#   2. control: job B's own QP on rxe0 is still reachable from rxe0 over G;
#      job A's victim pair connected in 1 although rxe1 has G too.
#   3. a third device (rxe2 on d2, another MAC) aims at G, which two other
#      devices have: which of them it ends on is not known, so it is
#      refused even though job B holds that number on both;
#   4. G comes to d2 too: from rxe0, whose own GID it is, job B's own QP
#      on rxe0 is still reachable, though two other devices that have G
#      come first in the module's lookup.
#
# Against a module that looks the QP up on the device whose GIDs were read
# last (rxe1), 1 is allowed and injects into job A's QP (its transfer
# fails), 2's connects to job B's own QPs on rxe0 are refused (no such QP
# on rxe1), and 3 is allowed; the setup checks pass. Against the first
# version of the fix, which kept "several devices" once set even when it
# then met the sending device, 4 is refused.

. "$(dirname "$0")/../lib.sh"

CG=/sys/fs/cgroup
FAULT_KO=${EW_FAULT_KO:-$EW_SHARED/eastwest-fault.ko}
PARAM=/sys/module/eastwest/parameters/fault_qpn_next
G=10.77.0.1
MAC=02:77:00:00:00:01
MESSAGES=10

ew_require_root
ew_require_cmd rdma ip python3 setpriv mkfifo
ew_require_built ctl verbs cgroup
[ -f "$FAULT_KO" ] || ew_skip "no $FAULT_KO (selftests/vm/run builds it)"

ew_tmp_dir 755
ew_defer "rmdir $CG/ewA $CG/ewB"
ew_defer "ew_netdev_del d2"
ew_defer "ew_netdev_del d1"
ew_defer "ew_netdev_del d0"
ew_defer "rdma link delete rxe2"
ew_defer "rdma link delete rxe1"
ew_defer "rdma link delete rxe0"
ew_defer "ew_rmmod"
ew_defer "ew_reap_all"

NOBODY=$(ew_nobody_script "$EW_TMP")

# claim NAME DEV QPN: a process of job B gets a QP numbered QPN on DEV and
# holds it (at INIT); 1 check.
claim() {
	echo "$(($3))" >"$PARAM"
	EW_BG_STDIN=$EW_TMP/hold
	ew_start_bg "$EW_TMP/claim.$1" /ewB "$NOBODY" "$VERBS" qpn-claim "$2" "$3"
	EW_BG_STDIN=
	ew_check "$1: job B holds qpn $3 on $2" \
		ew_wait_for 30 grep -q "^claimed qpn $(printf 0x%x "$(($3))"), init: OK" "$EW_TMP/claim.$1"
	sed "s/^/# claim $1: /" "$EW_TMP/claim.$1"
}

ew_plan 24

ew_check "fault build loads (enforce, default deny)" ew_insmod "$FAULT_KO"
# No IPv6 on the dummies: no link-local address, so no GID event of their
# own comes after the ones the test makes.
V6DEFAULT=$(sysctl -n net.ipv6.conf.default.disable_ipv6)
ew_defer "sysctl -qw net.ipv6.conf.default.disable_ipv6=$V6DEFAULT"
sysctl -qw net.ipv6.conf.default.disable_ipv6=1
setup_rxe0() { ew_dummy_add d0 "$G/32" "$MAC" && ew_rxe_add rxe0 d0; }
setup_rxe12() {
	ew_dummy_add d1 - "$MAC" && ew_rxe_add rxe1 d1 &&
		ew_dummy_add d2 10.77.0.3/32 02:77:00:00:00:02 && ew_rxe_add rxe2 d2
}
ew_check "d0 ($MAC, $G) and rxe0 on it" setup_rxe0
I0=$(ew_wait_gid_index rxe0 "$G" 20)
ew_check "GID of $G on rxe0 (index ${I0:-none})" test -n "$I0"
ew_check "d1 (the same MAC, no address yet) and rxe1 on it; d2 (another MAC, 10.77.0.3) and rxe2" \
	setup_rxe12
I2=$(ew_wait_gid_index rxe2 10.77.0.3 20)
ew_check "GID of 10.77.0.3 on rxe2 (index ${I2:-none})" test -n "$I2"
mkdir -p "$CG/ewA" "$CG/ewB"
ew_check "jobs A and B may both reach $G" sh -c \
	"'$CTL' job add ewA cgroup /ewA peer $G && '$CTL' job add ewB cgroup /ewB peer $G"
mkfifo "$EW_TMP/victim-in" "$EW_TMP/hold"
exec 3<>"$EW_TMP/victim-in"
exec 4<>"$EW_TMP/hold"

# 1. Job A's victim on rxe0, connected while only rxe0 has G.
ew_pair_start "$EW_TMP/victim" "$EW_TMP/victim-in" /ewA rxe0 "${I0:-1}" "$MESSAGES"
APID=$EW_BG_PID
ew_check "1/job A's victim (pid $APID): two RC QPs on rxe0 connected over $G" \
	ew_wait_for 60 grep -qx connected "$EW_TMP/victim"
sed 's/^/# victim: /' "$EW_TMP/victim"
V2=$(ew_pair_field "$EW_TMP/victim" qp2 qpn)
V2RQ=$(ew_pair_field "$EW_TMP/victim" qp2 rq-psn)

ip addr add "$G/32" dev d1
I1=$(ew_wait_gid_index rxe1 "$G" 20)
ew_check "1/$G comes to d1: a GID of rxe1 too (index ${I1:-none})" test -n "$I1"
ew_diag "rdma res show qp (no GSI QPs):"
rdma res show qp | grep -v ' type GSI ' | sed 's/^/#   /'

claim v2 rxe1 "${V2:-0x11}"
before=$(ew_ctr ewB denied-foreign-qp)
ew_expect_rc 13 "1/job B: a SEND from rxe0 to $G, qpn $V2 (job A's there; job B's on rxe1), PSN ${V2RQ:-none}: refused (EACCES)" \
	ew_in_cg /ewB "$NOBODY" "$VERBS" rc-inject rxe0 "${I0:-1}" "$G" "${V2:-0x11}" "${V2RQ:-0}"
ew_check "1/job B: counter denied-foreign-qp of job B rose" \
	ew_ctr_grew ewB denied-foreign-qp "$before"
echo go >&3
ew_reap "$APID" 90 >/dev/null
ew_check "1/job A: its transfer completes and verifies ($MESSAGES messages each way)" \
	sh -c "test '$EW_REAP_RC' = 0 && grep -qx 'verified $MESSAGES messages each way' '$EW_TMP/victim'"
sed 's/^/# victim: /' "$EW_TMP/victim"

# 2. Controls: connects that end in the caller's own QP stay allowed.
ew_pair_start "$EW_TMP/own-b" "$EW_TMP/victim-in" /ewB rxe0 "${I0:-1}" 1
BPID=$EW_BG_PID
ew_check "2/job B's own pair on rxe0 connects over $G (rxe1 has it too)" \
	ew_wait_for 60 grep -qx connected "$EW_TMP/own-b"
B1=$(ew_pair_field "$EW_TMP/own-b" qp1 qpn)
ew_expect_rc 0 "2/job B: RC connect from rxe0 to $G, its own qpn ${B1:-none} on rxe0: allowed" \
	ew_in_cg /ewB "$NOBODY" "$VERBS" rc-connect rxe0 "${I0:-1}" "$G" "${B1:-0x11}"
ew_expect_rc 0 "2/job B: RC connect from rxe1 to $G, its own qpn $V2 on rxe1: allowed" \
	ew_in_cg /ewB "$NOBODY" "$VERBS" rc-connect rxe1 "${I1:-1}" "$G" "${V2:-0x11}"
echo go >&3
ew_reap "$BPID" 60 >/dev/null
ew_check "2/job B's own pair verifies" \
	sh -c "test '$EW_REAP_RC' = 0 && grep -qx 'verified 1 messages each way' '$EW_TMP/own-b'"

# 3. From a third device to G, which rxe0 and rxe1 both have: job B holds
# the number on both, and is still refused.
N=0x7e001
claim n0 rxe0 "$N"
claim n1 rxe1 "$N"
before=$(ew_ctr ewB denied-foreign-qp)
ew_expect_rc 13 "3/job B: RC connect from rxe2 to $G (rxe0's and rxe1's), qpn $N (job B's on both): refused (EACCES)" \
	ew_in_cg /ewB "$NOBODY" "$VERBS" rc-connect rxe2 "${I2:-1}" "$G" "$N"
ew_check "3/job B: counter denied-foreign-qp of job B rose" \
	ew_ctr_grew ewB denied-foreign-qp "$before"

# 4. G on a third device too, read last: from rxe0, whose GID it still
# is, job B's own QP N on rxe0 stays reachable (the two other devices
# that have G come first in the lookup).
ip addr add "$G/32" dev d2
I2G=$(ew_wait_gid_index rxe2 "$G" 20)
ew_check "4/$G comes to d2: a GID of rxe2 too (index ${I2G:-none})" test -n "$I2G"
ew_expect_rc 0 "4/job B: RC connect from rxe0 to $G, its own qpn $N on rxe0: allowed" \
	ew_in_cg /ewB "$NOBODY" "$VERBS" rc-connect rxe0 "${I0:-1}" "$G" "$N"

# --- teardown ------------------------------------------------------------------

exec 3>&- 4>&-
ew_reap_all
ew_check "no oops, warning or leak in the kernel log" sh -c \
	"! dmesg | grep -Eq 'WARNING:|BUG:|Oops|Call Trace:|refcount_t:'"
ew_check "eastwest unloads" ew_unload

ew_done
