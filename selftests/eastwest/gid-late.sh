#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 1
# ew-timeout: 420
#
# A destination that becomes an address of this node after the connect.
# A connect to a GID of this node must end in a QP of the caller's own
# job, whatever the peer list says; one to an address of another host is
# judged by the peer list alone. An address may come to this node after a
# connection to it was made (an orchestrator adds a job address, an
# operator moves an address between hosts), or while the connect is in
# flight: the connection must then be judged as local. rxe0 on a dummy
# netdev (10.79.0.1); N (10.79.0.9) is at first another host's (a
# permanent neighbour entry lets the RDMA core resolve its MAC). Job A's QP
# a1 is connected to itself; every job process runs as uid 65534.
#
#   1. job B (peers 10.79.0.0/24) connects a QP to N and a1's number:
#      allowed, N is not this node's; job A's second QP likewise (control);
#   2. N comes to the dummy netdev, so it is a GID of rxe0: job B's QP now
#      ends in job A's QP on this node and is revoked (QP_FATAL, logged
#      foreign-qp); job A's own stays up;
#   3. the same across devices: rxe1 on a second dummy (10.78.0.1), job B's
#      QP on rxe1 connected to N2 (10.78.0.9, another host's) and a1's
#      number; N2 then comes to the first dummy, a GID of rxe0 only: job
#      B's QP on rxe1 now ends in job A's QP on rxe0 and is revoked
#      (QP_FATAL, logged foreign-qp), though rxe1's GID table did not change.
#
# Against a module that works out a record's locality only when the
# connect is judged (010530e), 2's revocation fails: job B's connection to
# job A's QP stays (found by an attacker review, by reading). Against one
# whose GID-change pass re-judges only the changed device's QPs (6d3a936),
# 3's revocation fails the same way.

. "$(dirname "$0")/../lib.sh"

DEV=rxe0
DEV2=rxe1
CG=/sys/fs/cgroup
S=10.79.0.1
N=10.79.0.9
S2=10.78.0.1
N2=10.78.0.9

ew_require_root
ew_require_cmd rdma ip python3 setpriv
ew_require_built ctl verbs cgroup

ew_tmp_dir 755
ew_defer "rmdir $CG/ewA $CG/ewB"
ew_defer "ew_netdev_del ewd0"
ew_defer "rdma link delete $DEV"
ew_defer "ew_netdev_del ewd1"
ew_defer "rdma link delete $DEV2"
ew_defer "ew_unload"
ew_defer "ew_reap_all"

NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all --bounding-set=-all"

ew_plan 20

ew_check "eastwest.ko loads" ew_load
ew_check "a dummy netdev with $S" ew_dummy_add ewd0 "$S/24" 02:79:00:00:00:01
ew_check "$N is another host's (a permanent neighbour entry)" \
	ip neigh add "$N" lladdr 02:79:00:00:00:09 dev ewd0 nud permanent
ew_check "$DEV on it" ew_rxe_add "$DEV" ewd0
IDX=$(ew_wait_gid_index "$DEV" "$S")
ew_check "GID of $S found (index ${IDX:-none})" test -n "$IDX"
mkdir -p "$CG/ewA" "$CG/ewB"
ew_check "jobs A and B may both reach 10.79.0.0/24 and 10.78.0.0/24" sh -c \
	"'$CTL' job add ewA cgroup /ewA peer 10.79.0.0/24 peer 10.78.0.0/24 &&
	 '$CTL' job add ewB cgroup /ewB peer 10.79.0.0/24 peer 10.78.0.0/24"
ew_dmesg_mark

# --- 1. connects to N while it is another host's ---------------------------------
ew_start_bg "$EW_TMP/a1" /ewA $NOBODY "$VERBS" rc-hold "$DEV" "$IDX" "$S" self 300
A1PID=$EW_BG_PID
ew_check "1/job A's QP a1 connected to itself" ew_wait_for 60 grep -qx connected "$EW_TMP/a1"
A1=$(ew_qpn_of "$DEV" "$A1PID")
ew_start_bg "$EW_TMP/b" /ewB $NOBODY "$VERBS" rc-hold "$DEV" "$IDX" "$N" "${A1:-0}" 60
BPID=$EW_BG_PID
ew_start_bg "$EW_TMP/a2" /ewA $NOBODY "$VERBS" rc-hold "$DEV" "$IDX" "$N" "${A1:-0}" 60
ew_check "1/job B's QP connected to $N, qpn ${A1:-none} (not this node's yet)" \
	ew_wait_for 60 grep -qx connected "$EW_TMP/b"
ew_check "1/job A's second QP likewise (control)" \
	ew_wait_for 60 grep -qx connected "$EW_TMP/a2"
B=$(ew_qpn_of "$DEV" "$BPID")

# --- 2. N comes to this node -----------------------------------------------------
ip neigh del "$N" dev ewd0
ip addr add "$N/32" dev ewd0
NI=$(ew_wait_gid_index "$DEV" "$N")
ew_check "2/$N is an address of ewd0 now, a GID of $DEV (index ${NI:-none})" test -n "$NI"
ew_check "2/job B's QP, now ending in job A's QP on this node, is revoked (QP_FATAL)" \
	ew_wait_for 30 grep -qx revoked "$EW_TMP/b"
ew_check "2/logged as foreign-qp" \
	ew_dmesg_wait "revoked qpn $(printf 0x%x "${B:-0}") on $DEV: local QP or listener of another job"
ew_check_not "2/job A's own QP to $N stays up" grep -qx revoked "$EW_TMP/a2"

# --- 3. N2 comes to another device's netdev ---------------------------------------
# second_dev: ewd1 with S2, N2 another host's behind it, DEV2 on it.
second_dev() {
	ew_dummy_add ewd1 "$S2/24" 02:78:00:00:00:01 &&
		ip neigh add "$N2" lladdr 02:78:00:00:00:09 dev ewd1 nud permanent &&
		ew_rxe_add "$DEV2" ewd1
}
ew_check "3/a second dummy netdev with $S2, $N2 another host's, $DEV2 on it" second_dev
IDX2=$(ew_wait_gid_index "$DEV2" "$S2")
ew_start_bg "$EW_TMP/b2" /ewB $NOBODY "$VERBS" rc-hold "$DEV2" "${IDX2:-0}" "$N2" "${A1:-0}" 120
B2PID=$EW_BG_PID
ew_check "3/job B's QP on $DEV2 connected to $N2, qpn ${A1:-none} (not this node's yet)" \
	ew_wait_for 60 grep -qx connected "$EW_TMP/b2"
B2=$(ew_qpn_of "$DEV2" "$B2PID")
ip neigh del "$N2" dev ewd1
ip addr add "$N2/32" dev ewd0
N2I=$(ew_wait_gid_index "$DEV" "$N2")
ew_check "3/$N2 is an address of ewd0 now, a GID of $DEV (index ${N2I:-none})" test -n "$N2I"
ew_check_not "3/... and not of $DEV2" ew_gid_index "$DEV2" "$N2"
ew_check "3/job B's QP on $DEV2, now ending in job A's QP on $DEV, is revoked (QP_FATAL)" \
	ew_wait_for 30 grep -qx revoked "$EW_TMP/b2"
ew_check "3/logged as foreign-qp" \
	ew_dmesg_wait "revoked qpn $(printf 0x%x "${B2:-0}") on $DEV2: local QP or listener of another job"

ew_check "no oops, warning or leak in the kernel log" sh -c \
	"! dmesg | grep -Eq 'WARNING:|BUG:|Oops|Call Trace:|refcount_t:'"
ew_done
