#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 1
# ew-timeout: 240
#
# A GID table change that breaks a job's policy revokes its live QPs: a job
# connected over the GID of 198.51.100.1 on a dummy netdev loses its QPs
# (error state, traffic stops) when that address, and so the GID, goes.

. "$(dirname "$0")/../lib.sh"

DEV=rxe1
NETDEV=ewgid0
ADDR=198.51.100.1
CG=/sys/fs/cgroup

ew_require_root
ew_require_cmd rdma ip ibv_rc_pingpong stdbuf
ew_require_built ctl

ew_tmp_dir
ew_defer "rmdir $CG/ewC"
ew_defer "ew_netdev_del $NETDEV"
ew_defer "rdma link delete $DEV"
ew_defer "ew_rmmod"
ew_defer "pkill -f ibv_rc_pingpong"

ew_plan 9

ew_check "eastwest.ko loads" ew_load
ew_check "dummy netdev with $ADDR" ew_dummy_add "$NETDEV" "$ADDR/24"
ew_check "$DEV on $NETDEV" ew_rxe_add "$DEV" "$NETDEV"
IDX=$(ew_wait_gid_index "$DEV" "$ADDR")
ew_check "GID of $ADDR (index ${IDX:-none})" test -n "$IDX"
mkdir -p "$CG/ewC"
ew_check "job C: peer $ADDR from $NETDEV only" \
	"$CTL" job add ewC cgroup /ewC peer "$ADDR" netdev "$NETDEV"

ew_in_cg /ewC stdbuf -oL ibv_rc_pingpong -d "$DEV" -g "$IDX" -n 1000000 >"$EW_TMP/srv" 2>&1 &
SRV=$!
ew_wait_listen 18515
ew_in_cg /ewC stdbuf -oL ibv_rc_pingpong -d "$DEV" -g "$IDX" -n 1000000 "$ADDR" >"$EW_TMP/cli" 2>&1 &
CLI=$!
ew_check "job C's connection runs" ew_wait_for 20 grep -q 'remote address' "$EW_TMP/cli"

ew_dmesg_mark
ip addr del "$ADDR/24" dev "$NETDEV"
ew_check "the GID goes and both QPs are revoked" \
	ew_wait_for 10 sh -c "[ \$(dmesg | grep -c 'revoked qpn.*on $DEV') -ge 2 ]"
ew_check "traffic stops" \
	ew_wait_for 10 sh -c "! kill -0 $CLI 2>/dev/null && ! kill -0 $SRV 2>/dev/null"
wait
ew_check "eastwest unloads" ew_unload

ew_done
