#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 1
# ew-kernels: 6.1
# ew-timeout: 480
#
# The OCI hook's "jobaddr" with Debian's real runc: each container its own
# address on the fabric. Soft-RoCE rxe0 on a dummy netdev ewd0 and the
# tenant's VLAN 100 netdev ewd0.100 on it (a VLAN on the rxe's parent: its
# GIDs land on rxe0 with ewd0.100 as their netdev, and rxe receives on it).
# Template team-j: jobaddr {"netdev": "ewd0.100", "prefix":
# "fd00:e0:0:1::/64"}, peers the tenant's fd00:e0::/48. Containers A and B
# of it run under runc (createRuntime and poststop hooks); their processes,
# started with runc exec, join the container's cgroup and so its job.
#
# - Each container gets its own address, the prefix and the 48 bits of its
#   id, on ewd0.100, one RoCE v2 GID of it on rxe0 (netdev ewd0.100), and a
#   job bound to its cgroup with source netdev ewd0.100 and the template's
#   peers.
# - Two processes of A's job connect over A's address (ibv_rc_pingpong, 20
#   round trips, data checked; rxe loops a GID's traffic to itself back).
# - A process of B aimed at A's address and A's live QP is refused (EACCES,
#   denied-foreign-qp of B, logged with A's address and QPN); B's own connect
#   on B's address is allowed; A's connect from ewd0's own GID is refused
#   (src-netdev), A's live QP is untouched.
# - Stopped, their addresses, GIDs, jobs and claims are gone.
# - A template whose jobaddr netdev is missing, one whose netdev has no RDMA
#   port, a container whose address is on the node already: runc does not
#   start the container, prints the hook's reason, nothing is left (and the
#   address that was there before stays). A container whose process cannot
#   be executed (its address and job were made): its poststop leaves
#   nothing.
# - With the module unloaded the hook adds the address, eastwestctl job add
#   fails, and the hook takes the address away again: not started, nothing
#   left.

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../oci-lib.sh"

DEV=rxe0
PARENT=ewd0
VLAN=ewd0.100
NORDMA=ewd1
LOOP=127.0.0.1
PORT=18515
ITERS=20
CG=/sys/fs/cgroup
oci_runc_dirs /run/ew-ocija
CGP=/ewocija
# The node's prefix of template team-j (jobaddr), as ip prints it and as
# sysfs writes a GID.
PFX=fd00:e0:0:1
PFX_GID=fd00:00e0:0000:0001:0000
TENANT=fd00:e0::/48
# Container ids: the first 12 hex digits are the job name's and the
# address's low 48 bits (no group with a leading zero: ip prints them as is).
CA=a1a1a2a2a3a3
CB=b1b1b2b2b3b3

ew_require_root
ew_require_cmd runc jq rdma ip ibv_rc_pingpong
ew_require_built ctl verbs cgroup
[ -x "$HOOK" ] || ew_skip "oci-hook is not built (make -C integrations/oci)"

ew_defer "rm -rf $W"
ew_defer "rmdir $CG$CGP/* $CG$CGP"
ew_defer "umount $ROOTFS"
ew_defer "ew_netdev_del $NORDMA"
ew_defer "ew_netdev_del $PARENT"
ew_defer "rdma link delete $DEV"
ew_defer "ew_rmmod"
ew_defer "kill_bg"
ew_defer "for c in \$(runc --root $RUNC_ROOT list -q); do runc --root $RUNC_ROOT delete -f \$c; done"

ew_plan 48

# ----------------------------------------------------------------------------
# Helpers

T0=$(date +%s)
took() {
	ew_diag "[$(($(date +%s) - T0)) s] $*"
}

# in_ctr ID CMD...: run CMD in container ID (runc exec: its cgroup, its job).
in_ctr() {
	_id=$1
	shift
	runc --root "$RUNC_ROOT" exec "$_id" "$@"
}

# start ID: run container ID (sleep 1000) in the background until its job
# exists; its runc's pid in $PID_<ID>.
start() {
	oci_bundle "$1" team-j '["sleep", "1000"]'
	oci_runc_run "$1" &
	eval "PID_$1=\$!"
	BG_PIDS="$BG_PIDS $!"
	ew_wait_for 60 oci_job_of "$1" || {
		cat "$W/out.$1"
		return 1
	}
}

# stop ID: kill container ID, wait for its runc run (poststop has run then).
stop() {
	runc --root "$RUNC_ROOT" kill "$1" KILL || return 1
	eval "wait \$PID_$1"
	runc --root "$RUNC_ROOT" state "$1" >/dev/null 2>&1 && {
		echo "runc still has container $1"
		return 1
	}
	return 0
}

# addr_of ID, gid_of ID: container ID's address under team-j, as ip
# prints it and as sysfs writes its GID.
addr_of() {
	echo "$1" | sed "s/^\\(....\\)\\(....\\)\\(....\\).*/$PFX:0:\\1:\\2:\\3/"
}
gid_of() {
	echo "$1" | sed "s/^\\(....\\)\\(....\\)\\(....\\).*/$PFX_GID:\\1:\\2:\\3/"
}

# gid_index GID NETDEV: the index of rxe0's RoCE v2 GID GID with netdev
# NETDEV (the first 64 entries: the core fills the lowest free ones).
gid_index() {
	ew_gid_find "$DEV" "$1" 64 "$2" && return 0
	echo "no RoCE v2 GID $1 with netdev $2 on $DEV" >&2
	return 1
}

# gid_count MATCH: how many of rxe0's first 64 GIDs start with MATCH.
gid_count() {
	_p=/sys/class/infiniband/$DEV/ports/1
	_i=0
	_c=0
	while [ "$_i" -lt 64 ]; do
		_g=
		read -r _g 2>/dev/null <"$_p/gids/$_i"
		case $_g in
		"$1"*) _c=$((_c + 1)) ;;
		esac
		_i=$((_i + 1))
	done
	echo "$_c"
}

# parent_gid_index: a GID of ewd0 itself (not of the VLAN).
parent_gid_index() {
	_p=/sys/class/infiniband/$DEV/ports/1
	_i=0
	while [ "$_i" -lt 64 ]; do
		_n=
		read -r _n 2>/dev/null <"$_p/gid_attrs/ndevs/$_i"
		if [ "$_n" = "$PARENT" ]; then
			echo "$_i"
			return 0
		fi
		_i=$((_i + 1))
	done
	return 1
}

# has_addr ADDR NETDEV: ADDR/64 is on NETDEV.
has_addr() {
	ip -o -6 addr show dev "$2" | grep -q " $1/64 "
}

# job_ok ID: container ID's job: its cgroup, source netdev ewd0.100, the
# template's peers and Q_Key, nothing else.
job_ok() {
	_job=$(oci_job_of "$1") || { echo "no job of $1"; return 1; }
	echo "$_job"
	echo "$_job" | jq -e --arg cg "$CGP/$1" --arg nd "$VLAN" --arg peer "$TENANT" \
		--argjson ix "$(cat /sys/class/net/$VLAN/ifindex)" \
		'.cgroups == [$cg] and (.netdevs == [{"ifname": $nd}] or .netdevs == [{"ifindex": $ix}])
		 and .peers == [$peer] and .qkey == 4660' >/dev/null
}

# record_ok ID: the hook's record of container ID's address.
record_ok() {
	_r=$(cat "$STATE/oci-$1@addr") || return 1
	echo "record: $_r"
	[ "$_r" = "$VLAN $(addr_of "$1")/64" ]
}

# ctr ID NAME: a counter of container ID's job.
ctr() {
	"$CTL" -j stats | jq -e --arg n "oci-$1" --arg c "$2" \
		'.jobs[] | select(.name == $n) | .counters[$c]'
}

# nothing_left ID: no address of team-j's node prefix on the node, no GID of
# it, no job of container ID, no claim or record, no runc container.
nothing_left() {
	_left=
	[ -z "$(ip -o -6 addr show to "$PFX::/64")" ] ||
		_left="$_left address $(ip -o -6 addr show to "$PFX::/64");"
	[ "$(gid_count "$PFX_GID")" -eq 0 ] || _left="$_left $(gid_count "$PFX_GID") GID(s) of $PFX::/64;"
	! oci_job_of "$1" >/dev/null 2>&1 || _left="$_left job oci-$1;"
	[ -z "$(ls -A "$STATE" 2>/dev/null)" ] || _left="$_left state: $(ls -A "$STATE");"
	! runc --root "$RUNC_ROOT" state "$1" >/dev/null 2>&1 || _left="$_left runc container $1;"
	[ -z "$_left" ] || {
		echo "left:$_left"
		return 1
	}
}

# gone ID: container ID's address, GID, job, claim, record and runc
# container are gone.
gone() {
	_left=
	_a=$(addr_of "$1")
	[ -z "$(ip -o -6 addr show to "$_a/128")" ] || _left="$_left address $_a;"
	[ "$(gid_count "$(gid_of "$1")")" -eq 0 ] || _left="$_left its GID;"
	! oci_job_of "$1" >/dev/null 2>&1 || _left="$_left job oci-$1;"
	[ ! -e "$STATE/oci-$1" ] || _left="$_left claim;"
	[ ! -e "$STATE/oci-$1@addr" ] || _left="$_left address record;"
	! runc --root "$RUNC_ROOT" state "$1" >/dev/null 2>&1 || _left="$_left runc container;"
	[ -z "$_left" ] || {
		echo "left:$_left"
		return 1
	}
}

# watch_start, watch_end: between them, a watcher notes ($W/seen) whether
# an address of team-j's prefix showed up on the node. It listens to the
# kernel's address notifications (ip monitor), so an address that lives
# only for a moment is seen too; a probe address on lo shows that it
# listens before the container starts.
WATCH_PROBE=fd00:ffff::e1
watch_start() {
	rm -f "$W/seen" "$W/mon"
	ip -6 -o monitor address >"$W/mon" 2>&1 &
	WATCH=$!
	BG_PIDS="$BG_PIDS $WATCH"
	ip -6 addr add "$WATCH_PROBE/128" dev lo nodad
	ew_wait_for 10 grep -q " inet6 $WATCH_PROBE/" "$W/mon" ||
		echo "watch_start: ip monitor does not report addresses"
	ip -6 addr del "$WATCH_PROBE/128" dev lo
}
watch_end() {
	kill "$WATCH" 2>/dev/null
	wait "$WATCH" 2>/dev/null
	grep -v '^Deleted' "$W/mon" | grep -q " inet6 $PFX:" && touch "$W/seen"
	return 0
}

# not_started ID TEMPLATE ERE: container ID of TEMPLATE is not started (its
# process never printed "ran") and runc's error has the hook's reason ERE.
not_started() {
	oci_bundle "$1" "$2" '["echo", "ran"]'
	oci_not_started "$1" "$3"
}

# ----------------------------------------------------------------------------
# Setup (7)

ew_check "eastwest.ko loads" ew_load || ew_bail "no module"
ew_check "dummy $PARENT and its VLAN 100 netdev $VLAN, up" sh -c "
	ip link add $PARENT type dummy && ip link set $PARENT up &&
	ip link add link $PARENT name $VLAN type vlan id 100 && ip link set $VLAN up" ||
	ew_bail "no netdevs"
ew_check "dummy $NORDMA (no RDMA device on it), up" \
	sh -c "ip link add $NORDMA type dummy && ip link set $NORDMA up"
ew_check "$DEV on $PARENT" ew_rxe_add "$DEV" "$PARENT" || ew_bail "no rxe device"

mkdir -p "$TPL" "$STATE" "$ROOTFS" "$RUNC_ROOT" "$CG$CGP"
chmod 0755 "$W" "$TPL" "$STATE"
cat >"$TPL/team-j.json" <<EOF
{"peers": ["$TENANT"], "qkey": 4660, "jobaddr": {"netdev": "$VLAN", "prefix": "$PFX::/64"}}
EOF
cat >"$TPL/nodev.json" <<EOF
{"peers": ["$TENANT"], "jobaddr": {"netdev": "ewd9", "prefix": "$PFX::/64"}}
EOF
cat >"$TPL/nordma.json" <<EOF
{"peers": ["$TENANT"], "jobaddr": {"netdev": "$NORDMA", "prefix": "$PFX::/64"}}
EOF
chmod 0644 "$TPL"/*.json
ew_check "oci-hook check team-j: the ip line and netdev $VLAN" sh -c "
	'$HOOK' --templates '$TPL' check team-j | tee /dev/stderr |
	grep -qx 'ip -6 addr add $PFX::/64+ID48 dev $VLAN nodad' &&
	'$HOOK' --templates '$TPL' check team-j | grep -q ' netdev $VLAN\\( \\|\$\\)'"
mount --bind / "$ROOTFS" || ew_bail "cannot bind-mount / on $ROOTFS"
(cd "$W" && runc spec && mv config.json base.json) || ew_bail "runc spec failed"
# shellcheck disable=SC2034 # oci_bundle (oci-lib.sh) reads it
DEVS=$(oci_devices) || ew_bail "no RDMA device nodes"
IP0=$(parent_gid_index)
ew_check "a GID of $PARENT itself on $DEV (index ${IP0:-none})" test -n "$IP0"
ew_check "no address of $PFX::/64 on the node yet" \
	test -z "$(ip -o -6 addr show to "$PFX::/64")"
took "set up"

# ----------------------------------------------------------------------------
# Containers A and B of team-j: each its own address, GID and job (11)

AA=$(addr_of $CA)
AB=$(addr_of $CB)
ew_check "container A ($CA) runs, in job oci-$CA" start $CA || ew_bail "A did not start"
ew_check "container B ($CB) runs, in job oci-$CB" start $CB || ew_bail "B did not start"
ew_check "A's address $AA is on $VLAN" has_addr "$AA" "$VLAN"
ew_check "B's address $AB is on $VLAN" has_addr "$AB" "$VLAN"
IA=$(gid_index "$(gid_of $CA)" "$VLAN")
IB=$(gid_index "$(gid_of $CB)" "$VLAN")
ew_check "A's GID on $DEV, netdev $VLAN, RoCE v2 (index ${IA:-none}), one entry" \
	test -n "$IA" -a "$(gid_count "$(gid_of $CA)")" -eq 1
ew_check "B's GID on $DEV, netdev $VLAN, RoCE v2 (index ${IB:-none}), one entry" \
	test -n "$IB" -a "$(gid_count "$(gid_of $CB)")" -eq 1
ew_check "A's job: its cgroup, source netdev $VLAN, the template's peers and Q_Key" job_ok $CA
ew_check "B's job: its cgroup, source netdev $VLAN, the template's peers and Q_Key" job_ok $CB
ew_check "the hook recorded A's address" record_ok $CA
ew_check "the hook recorded B's address" record_ok $CB
ew_check "exactly these two addresses of $PFX::/64 on the node" \
	test "$(ip -o -6 addr show to "$PFX::/64" | grep -c .)" -eq 2
took "A and B run"

# ----------------------------------------------------------------------------
# Within A's job: two processes connect over A's address (2)

in_ctr $CA ibv_rc_pingpong -d "$DEV" -g "${IA:-0}" -p $PORT -n $ITERS -c \
	>"$W/pp.srv" 2>&1 &
SRV=$!
BG_PIDS="$BG_PIDS $SRV"
ew_wait_listen $PORT 90 || ew_diag "A's server does not listen"
in_ctr $CA ibv_rc_pingpong -d "$DEV" -g "${IA:-0}" -p $PORT -n $ITERS -c $LOOP \
	>"$W/pp.cli" 2>&1
CLI_RC=$?
wait "$SRV"
SRV_RC=$?
ew_check "A's client: $ITERS verified round trips from $AA to $AA (exit $CLI_RC)" sh -c "
	cat '$W/pp.cli'; [ $CLI_RC -eq 0 ] && grep -q '^$ITERS iters' '$W/pp.cli' &&
	grep -q 'remote address:.* GID $AA\$' '$W/pp.cli'"
ew_check "A's server: the same (exit $SRV_RC)" sh -c "
	cat '$W/pp.srv'; [ $SRV_RC -eq 0 ] && grep -q '^$ITERS iters' '$W/pp.srv' &&
	grep -q 'local address:.* GID $AA\$' '$W/pp.srv'"

# ----------------------------------------------------------------------------
# B onto A: refused; B's own and A's from the wrong netdev (8)

in_ctr $CA "$VERBS" rc-hold "$DEV" "${IA:-0}" "$AA" self 200 >"$W/ahold" 2>&1 &
AH=$!
BG_PIDS="$BG_PIDS $AH"
ew_check "A's live QP on $AA" ew_wait_for 60 grep -q connected "$W/ahold"
AQPN=$(sed -n 's/^qpn \(0x[0-9a-f]*\)$/\1/p' "$W/ahold" | head -n 1)
ew_diag "A's QPN: ${AQPN:-none}"
ew_expect_rc 0 "B's connect on its own address $AB is allowed" \
	in_ctr $CB "$VERBS" rc-connect "$DEV" "${IB:-0}" "$AB" self
F0=$(ctr $CB denied_foreign_qp)
ew_dmesg_mark
ew_expect_rc 13 "B from $AB onto A's address $AA and QPN ${AQPN:-none}: EACCES" \
	in_ctr $CB "$VERBS" rc-connect "$DEV" "${IB:-0}" "$AA" "${AQPN:-0x11}"
F1=$(ctr $CB denied_foreign_qp)
ew_check "counted as denied-foreign-qp of B's job ($F0 -> $F1)" test "$F1" -eq $((F0 + 1))
ew_check "logged: local QP or listener of another job, A's address and QPN" \
	ew_dmesg_wait "denied modify_qp: local QP or listener of another job: job [0-9]+ .* dgid $AA dqpn ${AQPN:-none}\$"
S0=$(ctr $CA denied_src_netdev)
ew_expect_rc 13 "A from $PARENT's own GID (index $IP0) to its address: EACCES" \
	in_ctr $CA "$VERBS" rc-connect "$DEV" "${IP0:-0}" "$AA" self
S1=$(ctr $CA denied_src_netdev)
ew_check "counted as denied-src-netdev of A's job ($S0 -> $S1)" test "$S1" -eq $((S0 + 1))
ew_check "A's QP is still live, not revoked" \
	sh -c "kill -0 $AH && ! grep -q revoked '$W/ahold'"

# ----------------------------------------------------------------------------
# Stopped: addresses, GIDs, jobs, claims gone (5)

ew_check "container A stops (runc kill; runc run returns after poststop)" stop $CA
wait "$AH" 2>/dev/null
ew_check "A's address, GID, job, claim and record are gone" gone $CA
ew_check "B still has its address, GID and job" sh -c "
	ip -o -6 addr show dev $VLAN | grep -q ' $AB/64 ' && '$CTL' job show oci-$CB >/dev/null &&
	[ $(gid_count "$(gid_of $CB)") -eq 1 ]"
ew_check "container B stops" stop $CB
ew_check "B's address, GID, job, claim and record are gone" gone $CB
took "A and B stopped"

# ----------------------------------------------------------------------------
# Refused starts: nothing left (15)

ew_check "template nodev (jobaddr netdev ewd9 missing): the container is not started" \
	not_started c1c1c2c2c3c3 nodev "job oci-c1c1c2c2c3c3: the template's netdev ewd9 \\(jobaddr\\) does not exist on this node"
ew_check "... nothing left" nothing_left c1c1c2c2c3c3

ew_check "template nordma (jobaddr netdev $NORDMA, no RDMA port): not started" \
	not_started d1d1d2d2d3d3 nordma "no RDMA port has $NORDMA or a device below it"
ew_check "... nothing left" nothing_left d1d1d2d2d3d3

# createRuntime made the address and the job, then the process cannot be
# executed: runc destroys the container and runs poststop.
oci_bundle a9a9b9b9c9c9 team-j '["/nonexistent/ew-no-such-program"]'
watch_start
ew_check "a container whose process does not exist: runc run fails" \
	sh -c "! runc --root '$RUNC_ROOT' run -b '$W/bundles/a9a9b9b9c9c9' a9a9b9b9c9c9 >'$W/out.exec' 2>&1 ||
		{ cat '$W/out.exec'; false; }"
watch_end
ew_diag "$(tail -n 2 "$W/out.exec")"
ew_check "... after createRuntime had made its address (seen meanwhile)" test -f "$W/seen"
ew_check "... its poststop left nothing (address, GID, job, claim, record)" nothing_left a9a9b9b9c9c9

# Another netdev holds the container's address already: the hook must
# neither take it nor remove it.
EA=$(addr_of e1e1e2e2e3e3)
ip -6 addr add "$EA/64" dev "$PARENT" nodad
ew_check "its address $EA already on $PARENT: not started" \
	not_started e1e1e2e2e3e3 team-j "the container's address $EA is already on $PARENT of this node"
ew_check "... no job, claim or record left, and no address on $VLAN" sh -c "
	! '$CTL' job show oci-e1e1e2e2e3e3 >/dev/null 2>&1 && [ -z \"\$(ls -A '$STATE')\" ] &&
	[ -z \"\$(ip -o -6 addr show dev $VLAN to '$PFX::/64')\" ]"
ew_check "... and the address on $PARENT is still there" has_addr "$EA" "$PARENT"
ip -6 addr del "$EA/64" dev "$PARENT"

# eastwestctl job add fails after the address was made: the hook removes it.
ew_check "eastwest is unloaded" ew_unload
watch_start
ew_check "with no module (job add fails after the address is up): not started" \
	not_started f1f1f2f2f3f3 team-j "eastwest is not available"
watch_end
ew_check "... after the hook had made its address (seen meanwhile)" test -f "$W/seen"
ew_check "... nothing left (the hook removed the address and its GID again)" nothing_left f1f1f2f2f3f3
ew_check "runc has no container left" test -z "$(runc --root "$RUNC_ROOT" list -q)"

ew_diag "$(cat "$W/times")"
took "done"
ew_done
