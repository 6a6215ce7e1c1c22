# SPDX-License-Identifier: GPL-2.0
# Helpers of the two-node Slurm tests (jobaddr.sh, jobesp.sh), sourced after
# lib.sh. They expect $DEV (the rxe device), $VLAN (the partition's jobaddr
# netdev), $CTL, $HOOKS (integrations/slurm), $T (the test's directory) and
# $ME (this node's Slurm name, n$EW_NODE).

# Processes this test started in the background (pids).
BG_PIDS=
kill_bg() {
	for _p in $BG_PIDS; do
		kill "$_p" 2>/dev/null
	done
}

# barrier NAME: meet the other node, or give up the whole test.
barrier() {
	ew_barrier "$1" 300 || ew_bail "barrier $1 failed"
}

# show FILE: a command's output as diagnostics.
show() {
	sed 's/^/#   /' "$1"
}

# addr NODE JOBID: the job's address on node NODE (0 or 1), as the tests'
# inventory makes it: fd00:ee::(NODE+1):0:JOBID.
addr() {
	printf 'fd00:ee::%x:0:%x' $(($1 + 1)) "$2"
}

# exploded ADDR: as the GID table in sysfs writes it.
exploded() {
	python3 -c 'import ipaddress, sys; print(ipaddress.ip_address(sys.argv[1]).exploded)' "$1"
}

# gid_v2 ADDR: the index of the RoCE v2 GID of ADDR on $DEV (netdev $VLAN).
gid_v2() {
	_g=$(exploded "$1")
	_b=/sys/class/infiniband/$DEV/ports/1
	for _f in $(grep -slx "$_g" "$_b"/gids/*); do
		_i=${_f##*/}
		if [ "$(cat "$_b/gid_attrs/types/$_i" 2>/dev/null)" = "RoCE v2" ] &&
			[ "$(cat "$_b/gid_attrs/ndevs/$_i" 2>/dev/null)" = "$VLAN" ]; then
			echo "$_i"
			return 0
		fi
	done
	echo "gid_v2: no RoCE v2 GID for $1 on $VLAN" >&2
	return 1
}

# gid_count ADDR: how many entries of $DEV's table hold ADDR's GID.
gid_count() {
	grep -slx "$(exploded "$1")" /sys/class/infiniband/$DEV/ports/1/gids/* | grep -c .
}

# cgroup_of JOBID: the job's cgroup, as slurmd's cgroup v2 plugin names it.
cgroup_of() {
	echo "/system.slice/${ME}_slurmstepd.scope/job_$1"
}

# hook NAME JOBID PARTITION [VAR=VALUE...]: run the Slurm hook NAME as
# slurmd runs it on this node for a job of both nodes; output in $T/hook.out,
# exit status returned.
hook() {
	_h=$1
	_j=$2
	_p=$3
	shift 3
	env -i SLURM_JOB_ID="$_j" SLURMD_NODENAME="$ME" SLURM_JOB_PARTITION="$_p" \
		SLURM_NODELIST='n[0-1]' SLURM_JOB_NUM_NODES=2 SLURM_CONF="$T/slurm.conf" \
		EW_CTL="$CTL" EW_CONF_DIR="$T/etc" EW_STATE_DIR="$T/state" "$@" \
		"$HOOKS/slurm-$_h" >"$T/hook.out" 2>&1
}

# expect_hook RC DESC NAME JOBID PARTITION [VAR=VALUE...]
expect_hook() {
	_want=$1
	_desc=$2
	shift 2
	hook "$@"
	_rc=$?
	if [ "$_rc" -eq "$_want" ]; then
		ew_ok "$_desc (exit $_rc)"
	else
		ew_not_ok "$_desc (exit $_rc, wanted $_want)"
		show "$T/hook.out"
	fi
}

# says TEXT: the last hook's message has TEXT.
says() {
	grep -qF -- "$1" "$T/hook.out" || {
		echo "the hook said:" >&2
		cat "$T/hook.out" >&2
		return 1
	}
}

# slurm_bed: the node's half of the bed, 3 checks: the module, $DEV on eth0,
# the VLAN 100 netdev $VLAN on it; a slurm.conf of nodes n0 and n1 and the
# inventory (each node's address and job prefix fd00:ee::(NODE+1):0:0/64)
# in $T/etc. The test writes its own partition file.
slurm_bed() {
	ew_check "eastwest.ko loads" ew_load
	ew_check "$DEV on eth0" ew_rxe_add "$DEV" eth0
	ew_check "VLAN 100 netdev $VLAN on eth0, up" \
		sh -c "ip link add link eth0 name $VLAN type vlan id 100 && ip link set $VLAN up"
	mkdir -p "$T/etc" "$EW_CG/system.slice/${ME}_slurmstepd.scope"
	printf 'ClusterName=ew\nSlurmctldHost=localhost\nNodeName=n[0-1]\nPartitionName=p Nodes=n[0-1]\n' >"$T/slurm.conf"
	cat >"$T/etc/inventory" <<-INV
	n0  ${EW_LOCAL_IP%.*}.1  jobs:fd00:ee::1:0:0/64
	n1  ${EW_LOCAL_IP%.*}.2  jobs:fd00:ee::2:0:0/64
	INV
}

# job_pingpong NAME JOBID SERVER_NODE: the job's ibv_rc_pingpong between the
# nodes over the job's addresses ($ITERS round trips on $PORT, data
# checked), in the job's cgroup; output in $T/NAME.pp, this node's exit
# status returned. The nodes meet at barrier NAME-listen.
job_pingpong() {
	_idx=$(gid_v2 "$(addr "$EW_NODE" "$2")")
	if [ "$EW_NODE" -eq "$3" ]; then
		ew_in_cg_bg "$(cgroup_of "$2")" timeout 120 ibv_rc_pingpong -d "$DEV" \
			-g "${_idx:-0}" -p "$PORT" -n "$ITERS" -c >"$T/$1.pp" 2>&1
		_pid=$EW_BG_PID
		BG_PIDS="$BG_PIDS $_pid"
		ew_wait_listen "$PORT" || ew_diag "server $1 does not listen"
		barrier "$1-listen"
		wait "$_pid"
	else
		barrier "$1-listen"
		ew_in_cg "$(cgroup_of "$2")" timeout 120 ibv_rc_pingpong -d "$DEV" \
			-g "${_idx:-0}" -p "$PORT" -n "$ITERS" -c "$EW_PEER_IP" >"$T/$1.pp" 2>&1
	fi
}
