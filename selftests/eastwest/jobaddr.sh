#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 2
# ew-timeout: 1500
# ew-kernels: 6.12
#
# Each Slurm job its own address on the fabric, made by the prolog, on two
# nodes joined by a real link: soft-RoCE rxe0 on eth0 of each VM, the
# partition's VLAN 100 netdev ewv100 on top of it, and a partition
# "jobaddr ewv100". The real slurm-prolog and slurm-epilog run as slurmd
# would run them (its environment; a minimal slurm.conf for scontrol) for
# two jobs A and B on both nodes. Then:
#   - every error path: a missing netdev, an address already on the node,
#     eastwestctl refusing the job, and (last, it is slow) a GID table
#     filled for real (1024 entries): the prolog fails with its message and
#     leaves no address, GID, state, cgroup or eastwest job;
#   - A and B each get fd00:ee::N:0:ID on ewv100 of node N, bound as their
#     source netdev, peers their own addresses on both nodes;
#   - A's process on one node and A's on the other connect over A's
#     addresses (ibv_rc_pingpong, data checked), B's likewise over B's;
#   - B's connect onto A's address on the other node (A's live QPN) is
#     refused by eastwest (EACCES, denied_peer of B), as is B's connect to
#     the other node's own address (nodes' addresses are no peers now) and
#     from the node's own GID on eth0 (src-netdev);
#   - removing B's address with B still a job revokes B's live QP (the GID
#     change alone does it: "GID or P_Key table changed");
#   - A's epilog with A's QP live: the QP is revoked, the address, GIDs,
#     state, cgroup and job are gone; the epilog again exits 0.
# Every node runs the same assertions.

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../slurm-lib.sh"

slurm_bed_vars

ew_require_root
ew_require_nodes 2
ew_require_cmd rdma ip ibv_rc_pingpong python3 timeout scontrol
ew_require_built ctl verbs cgroup

T=$(mktemp -d)
ew_defer "rm -rf $T"
ew_defer "ew_netdev_del $VLAN"
ew_defer "rdma link delete $DEV"
# fill_gids' addresses: left on eth0, they would fill the GID table of the
# next test's rxe device on eth0 (one boot runs every two-node test).
ew_defer "ip -4 addr flush dev eth0 to 10.99.0.0/16"
ew_defer "ew_rmmod"
ew_defer 'kill_bg'
ew_defer "rmdir $EW_CG/system.slice/${ME}_slurmstepd.scope/job_* $EW_CG/system.slice/${ME}_slurmstepd.scope $EW_CG/system.slice"

# full NODE JOBID: the same, every group written (as the hooks print it).
full() {
	printf 'fd00:ee:0:0:0:%x:0:%x' $(($1 + 1)) "$2"
}

# live_qp NAME JOBID GID_INDEX PEER OUT ADDR: job NAME (id JOBID) holds a
# live QP from GID_INDEX (its address ADDR) to PEER for up to 60 s (output
# in $T/OUT, pid in EW_BG_PID and BG_PIDS); one check, that it connected.
live_qp() {
	ew_in_cg_bg "$(cgroup_of "$2")" timeout 120 "$VERBS" rc-hold "$DEV" "$3" "$4" 0x11 60 \
		>"$T/$5" 2>&1
	BG_PIDS="$BG_PIDS $EW_BG_PID"
	ew_check "job $1's live QP from $6" ew_wait_for 30 grep -q connected "$T/$5"
}

# nothing_left JOBID: no address, GID, state file, cgroup or eastwest job of
# job JOBID on this node.
nothing_left() {
	_a=$(addr "$EW_NODE" "$1")
	_left=
	[ -z "$(ip -o -6 addr show to "$_a/128")" ] || _left="$_left address $_a;"
	[ "$(gid_count "$_a")" -eq 0 ] || _left="$_left its GID;"
	[ ! -e "$T/state/$1" ] || _left="$_left state file;"
	[ ! -d "$EW_CG$(cgroup_of "$1")" ] || _left="$_left cgroup;"
	! "$CTL" job show "slurm-$1" >/dev/null 2>&1 || _left="$_left eastwest job slurm-$1;"
	[ -z "$_left" ] || {
		echo "left:$_left" >&2
		return 1
	}
}

# entry_used I: entry I of rxe0's GID table holds a GID.
entry_used() {
	_e=
	read -r _e 2>/dev/null </sys/class/infiniband/$DEV/ports/1/gids/"$1" || :
	[ -n "$_e" ] && [ "$_e" != 0000:0000:0000:0000:0000:0000:0000:0000 ]
}

# wait_secs SECONDS CMD...: until CMD succeeds, by the clock (reading the
# GID table under TCG takes long, so ew_wait_for's tick count would not do).
wait_secs() {
	_end=$(($(date +%s) + $1))
	shift
	until "$@"; do
		[ "$(date +%s)" -lt "$_end" ] || return 1
		sleep 1
	done
}

# fill_gids: fill rxe0's GID table with addresses on eth0 until fewer
# entries are free than an address takes (PER, one per GID type). IPv4
# /32s: an IPv6 address also joins its solicited-node multicast group, and
# hundreds of those reprogram virtio-net's filter each time (slow under
# TCG). The core takes the lowest free entries: the table is full when
# entry SIZE-2 is taken.
fill_gids() {
	_b=/sys/class/infiniband/$DEV/ports/1/gids
	_used=$(cat "$_b"/* 2>/dev/null | grep -vc '^0000:0000:0000:0000:0000:0000:0000:0000$')
	_n=$(((GSIZE - _used) / PER))
	_k=1
	: >"$T/fill"
	while [ "$_k" -le "$_n" ]; do
		printf 'addr add 10.99.%d.%d/32 dev eth0\n' $((_k / 256)) $((_k % 256)) >>"$T/fill"
		_k=$((_k + 1))
	done
	_t0=$(date +%s)
	ip -b "$T/fill" || return 1
	wait_secs 600 entry_used $((GSIZE - 2)) || {
		echo "the table did not fill: $(cat "$_b"/* 2>/dev/null | grep -vc '^0000:0000:0000:0000:0000:0000:0000:0000$') of $GSIZE" >&2
		return 1
	}
	echo "$_n addresses on eth0 ($_used entries were used), full after $(($(date +%s) - _t0)) s" >"$T/fill.info"
}

# pingpong_pair NAME JOBID SERVER_NODE: the job's ibv_rc_pingpong between the
# nodes over the job's addresses (data checked). One assertion each node.
pingpong_pair() {
	_name=$1
	_j=$2
	job_pingpong "$_name" "$_j" "$3"
	_rc=$?
	_f=$T/$_name.pp
	_remote=$(addr $((1 - EW_NODE)) "$_j")
	if [ "$_rc" -eq 0 ] && grep -q "^$ITERS iters" "$_f" &&
		grep -q "remote address:.*GID $(exploded "$_remote" | sed 's/://g; s/^\(....\)/\1/')" "$_f" 2>/dev/null ||
		{ [ "$_rc" -eq 0 ] && grep -q "^$ITERS iters" "$_f" && grep -qi "remote address:.*GID ${_remote}" "$_f"; }; then
		ew_ok "job $_j on node $EW_NODE: $ITERS verified round trips from $(addr "$EW_NODE" "$_j") (GID $_idx) with $_remote"
	else
		ew_not_ok "job $_j on node $EW_NODE: $ITERS verified round trips with $_remote (exit $_rc)"
		show "$_f"
	fi
	barrier "$_name-done"
}

# Node 0 holds job A's QP that node 1's job B attacks: 2 checks there, 4 here.
ew_plan $((36 + (EW_NODE == 0 ? 2 : 4)))

# --- setup (5: slurm_bed's 3) ------------------------------------------------------------------
slurm_bed
cat >"$T/etc/slurm-partitions" <<EOF
*       jobaddr $VLAN mode enforce
shared  jobaddr shared netdev eth0
nodev   jobaddr ewv999
keyed   jobaddr $VLAN psn keyed
EOF
ew_check "the inventory lists n0 and n1 with their job prefixes" \
	grep -q "^n$EW_NODE  $EW_LOCAL_IP " "$T/etc/inventory"
GSIZE=$(find /sys/class/infiniband/$DEV/ports/1/gids -mindepth 1 -maxdepth 1 | grep -c .)
ew_check "rxe0's GID table has 1024 entries (it has $GSIZE)" test "$GSIZE" -eq 1024

# --- error paths: nothing left (8) -------------------------------------------
expect_hook 8 "missing netdev: prolog fails" prolog 201 nodev
ew_check "... it names the netdev" says "the netdev ewv999 for the jobs' addresses"
ew_check "... nothing left" nothing_left 201

ip -6 addr add "$(addr "$EW_NODE" 202)/64" dev eth0 nodad
expect_hook 8 "address collision (job 202's address on eth0 already): prolog fails" prolog 202 '*'
ew_check "... it names the address and its netdev" \
	says "the job's address $(full "$EW_NODE" 202) is already on eth0"
ip -6 addr del "$(addr "$EW_NODE" 202)/64" dev eth0
ew_check "... nothing left" nothing_left 202

expect_hook 1 "eastwestctl refuses the job (psn keyed, no key file): prolog fails" \
	prolog 204 keyed EW_PSN_KEYFILE=/nonexistent/cluster.key
ew_check "... nothing left (its address was removed again)" nothing_left 204
barrier errors

# --- jobs A and B on both nodes (8) --------------------------------------------
jobs_ab_prolog
ew_check "$AA and $AB are on $VLAN" \
	sh -c "ip -o -6 addr show dev $VLAN | grep -q ' $AA/64 ' && ip -o -6 addr show dev $VLAN | grep -q ' $AB/64 '"
# One entry per GID type of the port: rxe has RoCE v2 only.
PER=$(cat /sys/class/infiniband/$DEV/ports/1/gid_attrs/types/* 2>/dev/null | sort -u | grep -c .)
ew_check "each address has its GIDs on $DEV, one per GID type ($PER): $(gid_count "$AA") and $(gid_count "$AB")" \
	test "$(gid_count "$AA")" -eq "$PER" -a "$(gid_count "$AB")" -eq "$PER"
IA=$(gid_v2 "$AA")
IB=$(gid_v2 "$AB")
ew_check "job A's rules: netdev $VLAN, peers its addresses on both nodes only" \
	sh -c "'$CTL' job show slurm-$JA | grep -q 'netdev $VLAN' &&
		[ \"\$('$CTL' peer show slurm-$JA | grep -c .)\" -eq 2 ] &&
		'$CTL' peer show slurm-$JA | grep -q '$AA' && '$CTL' peer show slurm-$JA | grep -q '$PA'"
ew_check "job B's peers: its addresses, not A's, not the nodes'" \
	sh -c "'$CTL' peer show slurm-$JB | grep -q '$PB' && ! '$CTL' peer show slurm-$JB | grep -q '$PA' &&
		! '$CTL' peer show slurm-$JB | grep -q '$EW_PEER_IP'"
barrier jobs-up
pingpong_pair a "$JA" 0
pingpong_pair b "$JB" 1

# --- B onto A: refused (node 0: 2, node 1: 4) -----------------------------------------------------
# Node 0 holds a live job-A QP aimed at node 1's A; node 1's job B aims at
# it with its QPN, and at the other two wrong identities.
if [ "$EW_NODE" -eq 0 ]; then
	ew_in_cg_bg "$(cgroup_of "$JA")" timeout 120 "$VERBS" rc-hold "$DEV" "$IA" "$PA" 0x11 100 \
		>"$T/ahold" 2>&1
	AH=$EW_BG_PID
	BG_PIDS="$BG_PIDS $AH"
	ew_check "job A's live QP on node 0 ($AA -> $PA)" ew_wait_for 30 grep -q connected "$T/ahold"
	sed -n 's/.*qpn \(0x[0-9a-f]*\).*/\1/p' "$T/ahold" | head -n 1 >"$EW_SHARED/jobaddr.aqpn"
	barrier cross
	barrier cross-done
	ew_check "job A's QP on node 0 is still live after B's attempts" kill -0 "$AH"
	kill "$AH" 2>/dev/null
	wait "$AH" 2>/dev/null
else
	barrier cross
	AQPN=$(cat "$EW_SHARED/jobaddr.aqpn" 2>/dev/null)
	ew_diag "job A's QPN on node 0: ${AQPN:-unknown}"
	B0=$(ew_counter "slurm-$JB" denied_peer)
	ew_expect_rc 13 "job B from $AB onto job A's $PA QPN ${AQPN:-0x11}: EACCES" \
		ew_in_cg "$(cgroup_of "$JB")" "$VERBS" rc-connect "$DEV" "$IB" "$PA" "${AQPN:-0x11}"
	ew_expect_rc 13 "job B onto node 0's own address $EW_PEER_IP: EACCES (nodes are no peers)" \
		ew_in_cg "$(cgroup_of "$JB")" "$VERBS" rc-connect "$DEV" "$IB" "$EW_PEER_IP" 0x11
	B1=$(ew_counter "slurm-$JB" denied_peer)
	ew_check "both counted as denied_peer of job B ($B0 -> $B1)" test "$B1" -eq $((B0 + 2))
	N0=$(ew_counter "slurm-$JB" denied_src_netdev)
	IE=$(ew_gid_index "$DEV" "$EW_LOCAL_IP" 64)
	ew_in_cg "$(cgroup_of "$JB")" "$VERBS" rc-connect "$DEV" "${IE:-1}" "$PB" 0x11 >"$T/src" 2>&1
	RC=$?
	N1=$(ew_counter "slurm-$JB" denied_src_netdev)
	ew_check "job B from eth0's GID $EW_LOCAL_IP to its own peer: EACCES, denied_src_netdev ($RC, $N0 -> $N1)" \
		test "$RC" -eq 13 -a "$N1" -eq $((N0 + 1))
	barrier cross-done
fi

# --- the GID change revokes (3) -------------------------------------------------
live_qp B "$JB" "$IB" "$PB" bhold "$AB"
BH=$EW_BG_PID
ew_dmesg_mark
ip -6 addr del "$AB/64" dev "$VLAN"
ew_check "B's address removed, job B still there: its QP is revoked" \
	ew_wait_for 30 grep -q revoked "$T/bhold"
ew_check "... by the GID change (kernel log)" \
	ew_dmesg_wait "QP\\(s\\) revoked on $DEV: GID or P_Key table changed" 10
wait "$BH" 2>/dev/null
barrier gid-change

# --- epilogs (7) --------------------------------------------------------------
live_qp A "$JA" "$IA" "$PA" ahold2 "$AA"
AH=$EW_BG_PID
# Slurm ends the job's processes before the epilog; this one stays, to be
# revoked.
expect_hook 0 "epilog job A with a live QP" epilog "$JA" '*'
ew_check "... the QP is revoked" ew_wait_for 30 grep -q revoked "$T/ahold2"
wait "$AH" 2>/dev/null
rmdir "$EW_CG$(cgroup_of "$JA")" 2>/dev/null
ew_check "... address, GIDs, state, cgroup and job A are gone" nothing_left "$JA"
expect_hook 0 "epilog job A again" epilog "$JA" '*'
expect_hook 0 "epilog job B (its address already gone)" epilog "$JB" '*'
ew_check "... nothing of job B left" nothing_left "$JB"
barrier epilogs

# --- a full GID table (4), last: filling it takes long under TCG ---------------
ew_check "GID table filled until an address has no room" fill_gids
ew_diag "$(cat "$T/fill.info" 2>/dev/null)"
expect_hook 8 "GID table exhausted: prolog fails" prolog 203 '*'
ew_check "... it says the table is full" says "the GID table of rxe0/1 is full"
ew_check "... nothing left" nothing_left 203

ew_check "eastwest unloads" ew_unload
ew_done
