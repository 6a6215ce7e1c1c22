#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 1
# ew-timeout: 420
# ew-kernels: 6.12
# ew-tcg: single
#
# Netdev and XFRM events where no GID's netdev is. The module follows
# netdev events (a VRF enslaving a netdev, a link going down, an ifindex
# coming or going) and XFRM state and policy changes, and answers each
# with a revocation pass over every record or a rebuild of every source
# table: what a GID resolves to and a path's protection may have changed.
# Those are read in the namespace of the GID's netdev, so events in any
# other namespace change nothing, yet they used to run the same passes: a
# user with no privilege at all (uid 65534) in a user and network
# namespace of its own (unshare -Urn) could keep the node revalidating at
# will. Counted with the function tracer (passes: ew_qp_revoke(); source
# table rebuilds: ew_src_rebuild_worker()):
#   1. in such a namespace: a dummy netdev up and down 20 times, a VRF
#      enslaving and releasing it 10 times, an XFRM state added and the
#      states flushed: no pass, no rebuild;
#   2. control: a dummy netdev of the initial namespace up and down runs
#      passes, as do the same events in a namespace that holds a macvlan
#      whose address is a GID of rxe0;
#   3. while the source tables are stale (a netdev came to the initial
#      namespace; the fault build holds their rebuild), the same user's
#      dummy up and down 20 times: still no pass.
# Against a module that follows every namespace (1e84810), 1 counts them;
# against one that followed every namespace while a table was stale
# (010530e, with the fault build's hold added), 3 does (the user could keep them stale event after event:
# found by an attacker review, by reading).

. "$(dirname "$0")/../lib.sh"

DEV=rxe0
TR=/sys/kernel/tracing
NS=ewuc
S=10.86.0.1
M=10.86.0.7

ew_require_root
ew_require_cmd rdma ip unshare setpriv modprobe
ew_require_built ctl
[ -w "$TR/set_ftrace_filter" ] || ew_skip "no function tracer at $TR"
FAULT_KO=${EW_FAULT_KO:-$EW_SHARED/eastwest-fault.ko}
FP=/sys/module/eastwest/parameters
[ -f "$FAULT_KO" ] || ew_skip "no fault build at $FAULT_KO (make module-fault)"

ew_tmp_dir 755
ew_defer "ip netns delete $NS"
ew_defer "ew_netdev_del ewd2"
ew_defer "ew_netdev_del ewd1"
ew_defer "ew_netdev_del ewd0"
ew_defer "rdma link delete $DEV"
ew_defer "ew_unload"
ew_defer "echo nop >$TR/current_tracer"

NOBODY=$(ew_nobody_script "$EW_TMP")

# passes_start / passes_count: count the passes and rebuilds in between.
passes_start() {
	echo 'ew_qp_revoke ew_src_rebuild_worker' >"$TR/set_ftrace_filter" &&
		echo function >"$TR/current_tracer" && : >"$TR/trace"
}
passes_count() {
	# Let the work items run.
	sleep 2
	echo 0 >"$TR/tracing_on"
	grep -cE ' (ew_qp_revoke|ew_src_rebuild_worker)' "$TR/trace"
	echo nop >"$TR/current_tracer"
	echo 1 >"$TR/tracing_on"
}

# userns SCRIPT: run SCRIPT as uid 65534 in a user and network namespace
# of its own.
userns() {
	"$NOBODY" unshare -Urn sh -ec "$1" >"$EW_TMP/userns.out" 2>&1 ||
		{ sed 's/^/# /' "$EW_TMP/userns.out" >&2; return 1; }
}

ew_plan 19

EW_KO=$FAULT_KO
ew_check "eastwest.ko (the fault build) loads" ew_load
ew_check "a dummy netdev with $S" ew_dummy_add ewd0 "$S/24"
ew_check "$DEV on it" ew_rxe_add "$DEV" ewd0
"$NOBODY" unshare -Urn true 2>/dev/null ||
	ew_bail "uid 65534 cannot make a user namespace here (kernel.unprivileged_userns_clone?)"
modprobe vrf 2>/dev/null

# --- 1. an unprivileged user's own namespace ------------------------------------
passes_start
ew_check "1/uid 65534 in its own namespaces: a dummy netdev up and down 20 times" \
	userns 'ip link add d0 type dummy; for i in $(seq 20); do ip link set d0 up; ip link set d0 down; done'
n=$(passes_count)
ew_check "1/no pass and no rebuild followed ($n)" test "$n" -eq 0

passes_start
ew_check "1/a VRF enslaving and releasing it 10 times" \
	userns 'ip link add d0 type dummy; ip link add v0 type vrf table 10; ip link set v0 up
		for i in $(seq 10); do ip link set d0 master v0; ip link set d0 nomaster; done'
n=$(passes_count)
ew_check "1/no pass and no rebuild followed ($n)" test "$n" -eq 0

passes_start
ew_check "1/an XFRM state added, the states flushed" \
	userns 'ip xfrm state add src 10.1.0.1 dst 10.1.0.2 proto esp spi 0x100 enc "cbc(aes)" 0x00112233445566778899aabbccddeeff
		ip xfrm state flush'
n=$(passes_count)
ew_check "1/no pass followed ($n)" test "$n" -eq 0

# --- 2. controls ---------------------------------------------------------------
passes_start
ew_check "2/a dummy netdev of the initial namespace up and down" \
	sh -c "ip link add ewd1 type dummy && ip link set ewd1 up && ip link set ewd1 down"
n=$(passes_count)
ew_check "2/passes followed ($n)" test "$n" -gt 0

ew_check "2/a macvlan of ewd0 with $M in namespace $NS" \
	sh -c "ip netns add $NS && ip link add ewm0 link ewd0 type macvlan mode bridge &&
	       ip link set ewm0 netns $NS && ip -n $NS addr add $M/24 dev ewm0 &&
	       ip -n $NS link set ewm0 up"
IDX=$(ew_wait_gid_index "$DEV" "$M" 20)
ew_check "2/its address is a GID of $DEV (index ${IDX:-none})" test -n "$IDX"
passes_start
ip -n "$NS" link add d1 type dummy
ip -n "$NS" link set d1 up
ip -n "$NS" link set d1 down
n=$(passes_count)
ew_check "2/a dummy netdev up and down there: passes followed ($n)" test "$n" -gt 0

# --- 3. while the source tables are stale ----------------------------------------
echo 15000 >"$FP/fault_rebuild_delay_ms"
ew_check "3/a dummy netdev comes to the initial namespace: the tables are stale" \
	ip link add ewd2 type dummy
ew_check "3/their rebuild is held" ew_wait_for 10 grep -qx 1 "$FP/fault_rebuild_held"
echo 0 >"$FP/fault_rebuild_delay_ms"
passes_start
ew_check "3/uid 65534 in its own namespaces meanwhile: a dummy netdev up and down 20 times" \
	userns 'ip link add d0 type dummy; for i in $(seq 20); do ip link set d0 up; ip link set d0 down; done'
n=$(passes_count)
ew_check "3/the rebuild was still held, and no pass followed ($n)" \
	sh -c "grep -qx 1 '$FP/fault_rebuild_held' && test '$n' -eq 0"
ew_wait_for 30 grep -qx 0 "$FP/fault_rebuild_held"

ew_check "no oops, warning or leak in the kernel log" sh -c \
	"! dmesg | grep -Eq 'WARNING:|BUG:|Oops|Call Trace:|refcount_t:'"
ew_done
