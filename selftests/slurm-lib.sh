# SPDX-License-Identifier: GPL-2.0
# Helpers of the two-node Slurm tests (jobaddr.sh, jobesp.sh), sourced after
# lib.sh. They expect $DEV (the rxe device), $VLAN (the partition's jobaddr
# netdev), $CTL, $HOOKS (integrations/slurm), $T (the test's directory) and
# $ME (this node's Slurm name, n$EW_NODE); slurm_bed_vars sets all but $CTL
# and $T. The tests that run Slurm's own daemons (slurm.sh,
# two-node-slurm.sh) use the helpers at the end, which expect $R (the test
# bed's directory) and $CG (the cgroup v2 mount).

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
# exit status returned. The run's start time and restart count are the ones
# slurmd (23.02 and later) puts in the environment from the job's
# credential, the same on both nodes; VAR=VALUE overrides them.
hook() {
	_h=$1
	_j=$2
	_p=$3
	shift 3
	env -i SLURM_JOB_ID="$_j" SLURMD_NODENAME="$ME" SLURM_JOB_PARTITION="$_p" \
		SLURM_JOB_START_TIME=1796601600 SLURM_JOB_RESTART_COUNT=0 \
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

# slurm_bed_vars: the bed's names and numbers, as these helpers expect them:
# DEV rxe0, VLAN ewv100, HOOKS, ME; job_pingpong's PORT and ITERS (round
# trips); the ids JA and JB of jobs A and B.
# shellcheck disable=SC2034 # for the caller and the helpers
slurm_bed_vars() {
	DEV=rxe0
	VLAN=ewv100
	HOOKS=$EW_TOP/integrations/slurm
	PORT=18515
	ITERS=20
	JA=101
	JB=102
	ME=n$EW_NODE
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

# jobs_ab_prolog: the prologs of jobs A ($JA) and B ($JB), both of
# partition * (2 checks); sets AA and AB, their addresses on this node, and
# PA and PB, on the other.
# shellcheck disable=SC2034 # for the caller
jobs_ab_prolog() {
	expect_hook 0 "prolog job A ($JA)" prolog "$JA" '*'
	expect_hook 0 "prolog job B ($JB)" prolog "$JB" '*'
	AA=$(addr "$EW_NODE" "$JA")
	AB=$(addr "$EW_NODE" "$JB")
	PA=$(addr $((1 - EW_NODE)) "$JA")
	PB=$(addr $((1 - EW_NODE)) "$JB")
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

# ----------------------------------------------------------------------------
# Slurm's daemons (slurm.sh, two-node-slurm.sh)

# stop_pidfile FILE: stop the daemon whose pid FILE holds, and wait for it.
stop_pidfile() {
	[ -s "$1" ] || return 0
	_pid=$(cat "$1")
	kill "$_pid" 2>/dev/null || return 0
	ew_wait_for 15 sh -c "! kill -0 $_pid 2>/dev/null" || kill -KILL "$_pid"
}

# munged_start: munged with the key $R/munge/munge.key, its socket, pid,
# seed and log in $R/munge.
munged_start() {
	munged --force --key-file="$R/munge/munge.key" \
		--socket="$R/munge/munge.socket.2" \
		--pid-file="$R/munge/munged.pid" --seed-file="$R/munge/seed" \
		--log-file="$R/munge/munged.log"
}

# slurm_cgroups_up: slurmd (cgroup/v2, no systemd) needs controllers in
# system.slice.
slurm_cgroups_up() {
	echo "+cpu +memory +pids" >"$CG/cgroup.subtree_control" &&
		mkdir -p "$CG/system.slice" &&
		echo "+cpu +memory +pids" >"$CG/system.slice/cgroup.subtree_control"
}

# slurm_conf CLUSTER HOST: $R/slurm.conf of cluster CLUSTER whose slurmctld
# runs on HOST: the lines both test beds share (munge, daemons as root and
# their files in $R, jobs tracked and confined by cgroups), then the test's
# own lines, read from stdin; and $R/cgroup.conf (cgroup v2, no systemd).
# The timeouts are for emulated guests on a host that runs two more test
# suites beside them: Slurm's defaults (a 2 s TCP connect, 10 s for a batch
# job's launch and prolog, a node silent for 300 s set DOWN) fit hardware,
# and a job they cut short shows up as every later check failing for no
# visible reason; MinJobAge keeps an ended job's record for the diagnostics.
slurm_conf() {
	mkdir -p "$R/state" "$R/spool" || return 1
	{
		cat <<-EOF && cat
			ClusterName=$1
			SlurmctldHost=$2
			AuthType=auth/munge
			CredType=cred/munge
			AuthInfo=socket=$R/munge/munge.socket.2
			SlurmUser=root
			SlurmdUser=root
			StateSaveLocation=$R/state
			SlurmdSpoolDir=$R/spool
			SlurmctldPidFile=$R/slurmctld.pid
			SlurmdPidFile=$R/slurmd.pid
			SlurmctldLogFile=$R/slurmctld.log
			SlurmdLogFile=$R/slurmd.log
			ProctrackType=proctrack/cgroup
			TaskPlugin=task/cgroup
			SelectType=select/cons_tres
			MessageTimeout=60
			TCPTimeout=30
			BatchStartTimeout=300
			SlurmdTimeout=1200
			MinJobAge=1800
		EOF
	} >"$R/slurm.conf" && cat >"$R/cgroup.conf" <<-EOF
		CgroupPlugin=cgroup/v2
		IgnoreSystemd=yes
	EOF
}

# jobs_diag JOBID...: each job's state, reason and exit code, then the
# Slurm daemons' errors and the jobs' output, as diagnostics (most telling
# first: a CI log shows only the first lines under a failing check).
jobs_diag() {
	for _j in "$@"; do
		echo "#   job $_j: $(scontrol -o show job "$_j" 2>&1 | tr ' ' '\n' |
			grep -E '^(JobState|Reason|ExitCode|RunTime|NodeList)=' | tr '\n' ' ')"
	done
	grep -hE 'error|fail|timed? ?out' "$R/slurmctld.log" "$R/slurmd.log" 2>/dev/null |
		tail -n 8 | sed 's/^/#   /'
	for _j in "$@"; do
		tail -n 5 "$R/job-$_j.out" 2>/dev/null | sed "s/^/#   job-$_j.out: /"
	done
}

# job_field JOBID FIELD: a field of "scontrol show job".
job_field() {
	scontrol -o show job "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"
}

# job_done JOBID: the job has ended, however.
job_done() {
	case $(job_field "$1" JobState) in
	COMPLETED | FAILED | CANCELLED | TIMEOUT | NODE_FAIL) return 0 ;;
	esac
	return 1
}
