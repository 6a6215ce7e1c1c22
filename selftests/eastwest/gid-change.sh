#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 1
# ew-timeout: 240
#
# A GID table change that breaks a job's policy revokes its live QPs: a job
# connected over the GID of 198.51.100.1 on a dummy netdev loses its QP
# (error state, QP_FATAL) when that address, and so the GID, goes. The QP
# carries no traffic: with traffic, soft-RoCE's retries to an address that
# is no longer local can fail it, and its process destroy it, before the
# GID change reaches eastwest, which then has nothing left to revoke (with
# ibv_rc_pingpong, one CI run on 6.1 logged no revocation within 10 s).
#
# Then the source cache (kmod/srccache.c), which answers which netdev a GID
# index names: a connect is judged on what the index names now, never on
# what it named when the cache was filled. The index an allowed connect
# used is taken over by a VLAN's address, and the same connect is refused
# by the job's netdev rule; a VRF rule is met while the netdev is enslaved
# to the VRF (which changes no GID) and refused once it is released, which
# also revokes a live QP sourced from it.

. "$(dirname "$0")/../lib.sh"

DEV=rxe1
NETDEV=ewgid0
ADDR=198.51.100.1
ADDR2=198.51.100.2
ADDR3=198.51.100.3
VLAN=ewgid0.7
VRF=ewgidvrf
CG=/sys/fs/cgroup

ew_require_root
ew_require_cmd rdma ip stdbuf
ew_require_built ctl verbs

ew_tmp_dir
ew_defer "rmdir $CG/ewC"
ew_defer "rmdir $CG/ewE"
ew_defer "ew_netdev_del $VRF"
ew_defer "ew_netdev_del $VLAN"
ew_defer "ew_netdev_del $NETDEV"
ew_defer "rdma link delete $DEV"
ew_defer "ew_rmmod"
ew_defer "pkill -f 'ew_verbs rc-hold'"

ew_plan 19

ew_check "eastwest.ko loads" ew_load
ew_check "dummy netdev with $ADDR" ew_dummy_add "$NETDEV" "$ADDR/24"
ew_check "$DEV on $NETDEV" ew_rxe_add "$DEV" "$NETDEV"
IDX=$(ew_wait_gid_index "$DEV" "$ADDR")
ew_check "GID of $ADDR (index ${IDX:-none})" test -n "$IDX"
mkdir -p "$CG/ewC"
ew_check "job C: peer $ADDR from $NETDEV only" \
	"$CTL" job add ewC cgroup /ewC peer "$ADDR" netdev "$NETDEV"

ew_in_cg /ewC stdbuf -oL "$VERBS" rc-hold "$DEV" "$IDX" "$ADDR" self 90 \
	>"$EW_TMP/hold-c" 2>&1 &
HOLDC=$!
ew_check "job C's QP is connected over the GID of $ADDR" \
	ew_wait_for 20 grep -q connected "$EW_TMP/hold-c"

ew_dmesg_mark
ip addr del "$ADDR/24" dev "$NETDEV"
ew_check "the GID goes and eastwest revokes the QP" \
	ew_dmesg_wait "revoked qpn .* on $DEV" 30
ew_check "and the QP is dead" ew_wait_for 20 grep -q revoked "$EW_TMP/hold-c"
wait "$HOLDC"

# connect_e INDEX DGID: job E's one RC connect to a QP of its own.
connect_e() {
	ew_in_cg /ewE "$VERBS" rc-connect "$DEV" "$1" "$2" self
}

# connect_vlan: connect_e from the GID of $ADDR3, at whichever index it is
# now (a VRF's enslaving cycles the netdev).
connect_vlan() {
	connect_e "$(ew_wait_gid_index "$DEV" "$ADDR3")" "$ADDR3"
}

ip addr add "$ADDR2/24" dev "$NETDEV"
J=$(ew_wait_gid_index "$DEV" "$ADDR2")
mkdir -p "$CG/ewE"
"$CTL" job add ewE cgroup /ewE peer 198.51.100.0/24 netdev "$NETDEV" >/dev/null
ew_check "job E connects from $NETDEV (GID index ${J:-none})" connect_e "$J" "$ADDR2"
ip addr del "$ADDR2/24" dev "$NETDEV"
ip link add link "$NETDEV" name "$VLAN" type vlan id 7
# No IPv6 link-local GID: the VLAN's one GID takes the first free index.
ip link set "$VLAN" addrgenmode none
ip link set "$VLAN" up
ip addr add "$ADDR3/24" dev "$VLAN"
K=$(ew_wait_gid_index "$DEV" "$ADDR3")
ew_check "$VLAN's GID took index $J (it has ${K:-none})" test "$K" = "$J"
B=$(ew_ctr ewE denied_src_netdev)
ew_expect_rc 13 "the same index, now $VLAN's: refused" connect_e "$J" "$ADDR3"
ew_check "for its source netdev" ew_ctr_grew ewE denied_src_netdev "$B"

ip link add "$VRF" type vrf table 77
ip link set "$VRF" up
ip link set "$VLAN" master "$VRF"
"$CTL" job set ewE vrf "$VRF" >/dev/null
ew_check "job E connects from $VLAN while it is in $VRF" connect_vlan
ip link set "$VLAN" nomaster
ew_expect_rc 13 "$VLAN released from $VRF: refused (vrf rule)" connect_vlan
ip link set "$VLAN" master "$VRF"
ew_check "enslaved again: allowed again" connect_vlan
# A live QP from the VLAN: the release revokes it (no GID changes).
ew_in_cg /ewE stdbuf -oL "$VERBS" rc-hold "$DEV" \
	"$(ew_wait_gid_index "$DEV" "$ADDR3")" "$ADDR3" self 30 >"$EW_TMP/hold" 2>&1 &
HOLD=$!
ew_check "job E's QP from $VLAN in $VRF is connected" \
	ew_wait_for 20 grep -q connected "$EW_TMP/hold"
ew_dmesg_mark
ip link set "$VLAN" nomaster
# Releasing cycles the netdev, which on rxe may kill the QP by itself: the
# revocation is eastwest's when eastwest logs it, for the source netdev.
ew_check "$VLAN released from $VRF: eastwest revokes the live QP (source netdev)" \
	ew_dmesg_wait "revoked qpn .* on $DEV: source netdev not allowed" 20
ew_check "and the QP is dead" ew_wait_for 20 grep -q revoked "$EW_TMP/hold"
wait "$HOLD"
"$CTL" job del ewE >/dev/null

ew_check "eastwest unloads" ew_unload

ew_done
