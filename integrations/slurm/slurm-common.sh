# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh disable=SC2034 # the hooks use the constants
#
# slurm-common.sh - code shared by eastwest's Slurm prolog and epilog.
#
# Sourced, never run. The hook sets EW_HOOK (its name, for messages) first.
# slurmd runs the hooks as root with an environment of its own making: no
# PATH, SLURM_JOB_ID, SLURMD_NODENAME, SLURM_JOB_PARTITION, SLURM_NODELIST
# (the job's nodes; SLURM_JOB_NODELIST is not set in 22.05), SLURM_CONF.
#
# Settings, from the environment (slurmd passes none of these: a site that
# needs them wraps the hook in a script that sets them and execs it):
#   EW_CTL       eastwestctl to use (default: the first one in PATH)
#   EW_CONF_DIR  where inventory and slurm-partitions are (/etc/eastwest)
#   EW_CGROUP_MOUNT  the cgroup2 mount (default: the first in /proc/self/mounts)
#   EW_STATE_DIR the per-job address of each running job, and the address its
#                ESP SAs belong to (/run/eastwest/slurm)
#   EW_PSN_KEYFILE the cluster key ($EW_CONF_DIR/cluster.key)
#   EW_SYSFS     where sysfs is mounted (/sys; the unit tests use a copy)
#   EW_GID_TIMEOUT seconds to wait for a job address's GID to (dis)appear (10)
#
# Documentation/slurm.md describes the files, the exit codes and what Slurm
# does when a hook fails.

# Exit codes of the hooks; Slurm only looks at zero or not, the operator
# reads the code in slurmd's log ("prolog failed: rc:N").
EW_RC_OK=0
EW_RC_CTL=1		# eastwestctl refused or failed
EW_RC_CONFIG=2		# inventory or partition file missing or malformed
EW_RC_JOB=3		# the job cannot be described (node not in the inventory, ...)
EW_RC_NOTAVAIL=4	# eastwest is not loaded
EW_RC_ENV=5		# the Slurm environment lacks what the hook needs
EW_RC_CGROUP=6		# the job's cgroup cannot be found or made
EW_RC_NOCTL=7		# eastwestctl is not installed
EW_RC_ADDR=8		# the job's own address cannot be set up on this node
EW_RC_ESP=9		# the job's ESP SAs cannot be set up (or removed) on this node

# Debian's root PATH; slurmd gives the hooks none.
PATH=${PATH:+$PATH:}/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
LC_ALL=C
export PATH LC_ALL

EW_LIB_DIR=$(dirname "$(readlink -f "$0")")
EW_CONF_DIR=${EW_CONF_DIR:-/etc/eastwest}
EW_INVENTORY=$EW_CONF_DIR/inventory
EW_PARTITIONS=$EW_CONF_DIR/slurm-partitions
# The cluster's key file: keyed PSNs (psn keyed) and the ESP SAs of a job
# with its own addresses (encrypt ipsec) derive each job's keys from it.
EW_PSN_KEYFILE=${EW_PSN_KEYFILE:-$EW_CONF_DIR/cluster.key}
EW_JOB_PREFIX=slurm-
EW_STATE_DIR=${EW_STATE_DIR:-/run/eastwest/slurm}
EW_SYSFS=${EW_SYSFS:-/sys}
EW_GID_TIMEOUT=${EW_GID_TIMEOUT:-10}

# ew_log MESSAGE: to stderr (slurmd puts a failed hook's output in its log)
# and, where there is a syslog socket, to syslog (journalctl -t eastwest-slurm).
ew_log() {
	echo "eastwest $EW_HOOK: job ${SLURM_JOB_ID:-?}: $*" >&2
	if [ -S /dev/log ] && command -v logger >/dev/null 2>&1; then
		logger -t eastwest-slurm -p daemon.notice -- \
			"$EW_HOOK: job ${SLURM_JOB_ID:-?}: $*" 2>/dev/null || :
	fi
}

# ew_fail CODE MESSAGE: log and exit with CODE.
ew_fail() {
	_ew_code=$1
	shift
	ew_log "$*"
	exit "$_ew_code"
}

# ew_job_id: print SLURM_JOB_ID, checked (it becomes part of a path).
ew_job_id() {
	case ${SLURM_JOB_ID:-} in
	'' | *[!0-9]*) ew_fail "$EW_RC_ENV" "SLURM_JOB_ID is '${SLURM_JOB_ID:-}', not a job id: run me from slurmd" ;;
	esac
	echo "$SLURM_JOB_ID"
}

# ew_node_name: the Slurm name of this node (SLURMD_NODENAME).
ew_node_name() {
	case ${SLURMD_NODENAME:-} in
	'' | */* | .*) ew_fail "$EW_RC_ENV" "SLURMD_NODENAME is '${SLURMD_NODENAME:-}', not a node name" ;;
	esac
	echo "$SLURMD_NODENAME"
}

# ew_ctl: print the eastwestctl to use: $EW_CTL, else the one in PATH.
ew_ctl() {
	if [ -n "${EW_CTL:-}" ]; then
		[ -x "$EW_CTL" ] || ew_fail "$EW_RC_NOCTL" "EW_CTL=$EW_CTL is not an executable"
		echo "$EW_CTL"
		return
	fi
	command -v eastwestctl 2>/dev/null ||
		ew_fail "$EW_RC_NOCTL" "eastwestctl is not installed (PATH=$PATH)"
}

# ew_squeue FORMAT: one field of this job from slurmctld, by squeue's own
# format (not by parsing "scontrol show job", whose job name and comment the
# user chooses and could dress up as "NodeList=...").
ew_squeue() {
	# Only stdout: a warning on stderr must not become a node name.
	_ew_q=$(squeue -h -t all -j "$SLURM_JOB_ID" -o "$1" 2>/dev/null) ||
		ew_fail "$EW_RC_ENV" "squeue -h -t all -j $SLURM_JOB_ID -o $1 failed"
	printf '%s\n' "$_ew_q" | head -n 1
}

# ew_job_run: which run of the job this is, "START.RESTARTS": the same on
# every node of the run, and another for every run of one job id. START is
# the run's start time (seconds since the epoch), RESTARTS its restart
# count, both from the job's credential: slurmd 23.02 and later put both in
# the environment, 22.05 only the count, so START then comes from slurmctld
# (in seconds, whatever the nodes' time zones). A requeued job keeps its id
# and gets the next count and a later start; an id handed out again (its
# counter wrapped, slurmctld's state lost) a later start. The job's ESP keys
# derive from it, so that no run gets an earlier run's keys back.
ew_job_run() {
	_ew_start=${SLURM_JOB_START_TIME:-}
	if [ -z "$_ew_start" ]; then
		_ew_start=$(SLURM_TIME_FORMAT=%s squeue -h -t all -j "$SLURM_JOB_ID" -o %S 2>/dev/null) ||
			ew_fail "$EW_RC_ENV" "SLURM_TIME_FORMAT=%s squeue -h -t all -j $SLURM_JOB_ID -o %S failed"
		_ew_start=$(printf '%s\n' "$_ew_start" | head -n 1)
	fi
	case $_ew_start in
	'' | *[!0-9]* | 0*) ew_fail "$EW_RC_ENV" "cannot tell the job's start time ('$_ew_start'): its ESP keys must differ from an earlier run's" ;;
	esac
	_ew_restarts=${SLURM_JOB_RESTART_COUNT:-0}
	case $_ew_restarts in
	'' | *[!0-9]*) ew_fail "$EW_RC_ENV" "SLURM_JOB_RESTART_COUNT is '$_ew_restarts', not a count" ;;
	esac
	echo "$_ew_start.$_ew_restarts"
}

# ew_partition: the partition the job runs in.
ew_partition() {
	_ew_p=${SLURM_JOB_PARTITION:-}
	[ -n "$_ew_p" ] || _ew_p=$(ew_squeue %P) || exit
	case $_ew_p in
	'' | '(null)') ew_fail "$EW_RC_ENV" "cannot tell the job's partition" ;;
	esac
	echo "$_ew_p"
}

# ew_nodes: the job's nodes, expanded, one per line. From slurmd's
# environment (SLURM_JOB_NODELIST, or SLURM_NODELIST as 22.05 sets it), else
# from slurmctld (squeue); the count is checked against SLURM_JOB_NUM_NODES.
ew_nodes() {
	_ew_list=${SLURM_JOB_NODELIST:-${SLURM_NODELIST:-}}
	_ew_from=environment
	if [ -z "$_ew_list" ]; then
		_ew_list=$(ew_squeue %N) || exit
		_ew_from=squeue
	fi
	case $_ew_list in
	'' | '(null)') ew_fail "$EW_RC_ENV" "cannot tell the job's nodes" ;;
	esac
	_ew_hosts=$(scontrol show hostnames "$_ew_list" 2>/dev/null) ||
		ew_fail "$EW_RC_ENV" "scontrol show hostnames $_ew_list failed"
	_ew_n=$(printf '%s\n' "$_ew_hosts" | grep -c .) || :
	if [ -n "${SLURM_JOB_NUM_NODES:-}" ] && [ "$_ew_n" != "$SLURM_JOB_NUM_NODES" ]; then
		ew_fail "$EW_RC_ENV" "node list '$_ew_list' (from $_ew_from) has $_ew_n nodes," \
			"SLURM_JOB_NUM_NODES says $SLURM_JOB_NUM_NODES"
	fi
	printf '%s\n' "$_ew_hosts"
}

# ew_policy PARTITION NODES [SELF JOBID]: the job's eastwestctl attributes,
# one word a line (slurm-policy.awk checks the files; errors name FILE:LINE);
# for a partition with per-job addresses first "@dev", "@addr", "@gid" and
# their values.
ew_policy() {
	for _ew_f in "$EW_INVENTORY" "$EW_PARTITIONS"; do
		[ -r "$_ew_f" ] || ew_fail "$EW_RC_CONFIG" "cannot read $_ew_f"
	done
	_ew_rc=0
	_ew_out=$(awk -v pfile="$EW_PARTITIONS" -v ifile="$EW_INVENTORY" \
		-v psnkeyfile="$EW_PSN_KEYFILE" \
		-v part="$1" -v nodes="$(printf '%s\n' "$2" | tr '\n' ' ')" \
		-v self="${3:-}" -v jobid="${4:-}" \
		-f "$EW_LIB_DIR/slurm-policy.awk" \
		"$EW_PARTITIONS" "$EW_INVENTORY" 2>&1) || _ew_rc=$?
	case $_ew_rc in
	0) printf '%s\n' "$_ew_out" ;;
	2) ew_fail "$EW_RC_CONFIG" "$_ew_out" ;;
	3) ew_fail "$EW_RC_JOB" "$_ew_out" ;;
	*) ew_fail "$EW_RC_CONFIG" "slurm-policy.awk failed ($_ew_rc): $_ew_out" ;;
	esac
}

# ew_cgroup_mount: the cgroup2 mount point (as eastwestctl finds it).
ew_cgroup_mount() {
	if [ -n "${EW_CGROUP_MOUNT:-}" ]; then
		echo "$EW_CGROUP_MOUNT"
		return
	fi
	_ew_m=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
	[ -n "$_ew_m" ] || ew_fail "$EW_RC_CGROUP" "no cgroup2 file system is mounted"
	echo "$_ew_m"
}

# ew_job_cgroup NODE JOBID: the job's cgroup below the cgroup2 root, where
# Slurm's cgroup/v2 plugin puts it (with or without systemd):
# /system.slice/<NodeName>_slurmstepd.scope/job_<id>.
ew_job_cgroup() {
	echo "/system.slice/$1_slurmstepd.scope/job_$2"
}

# ew_job_del CTL NAME: delete eastwest job NAME. Returns 0 if it was deleted,
# 10 if there was none (or eastwest is not loaded, which leaves no job
# either: 11), else eastwestctl's exit code; its message is in EW_CTL_OUT.
ew_job_del() {
	_ew_rc=0
	EW_CTL_OUT=$("$1" job del "$2" 2>&1) || _ew_rc=$?
	case $_ew_rc in
	0) return 0 ;;
	4) return 11 ;;
	5) return 10 ;; # no such job (eastwestctl(8), EXIT STATUS)
	esac
	return "$_ew_rc"
}

# ----------------------------------------------------------------------------
# Per-job addresses (partitions with "jobaddr IFNAME")

EW_ZERO_GID=0000:0000:0000:0000:0000:0000:0000:0000

# ew_rdma_ports NETDEV: the RDMA ports ("DEV/PORT", one a line) whose netdev
# is NETDEV or a lower device of it (the parent of a VLAN): the GID tables
# the address on NETDEV lands in (`rdma link show` names each port's netdev).
ew_rdma_ports() {
	_ew_nds=$1
	for _ew_l in "$EW_SYSFS/class/net/$1"/lower_*; do
		[ -e "$_ew_l" ] && _ew_nds="$_ew_nds ${_ew_l##*/lower_}"
	done
	rdma link show 2>/dev/null | awk -v nds=" $_ew_nds " '
		{ for (i = 1; i < NF; i++) if ($i == "netdev" && index(nds, " " $(i + 1) " ")) print $2 }'
}

# ew_gid_usage DEV/PORT: "USED SIZE PER" of the port's GID table: entries
# used, entries, and entries an address takes (one per GID type the port
# has: RoCE v1 and v2 on mlx5, v2 only on rxe).
ew_gid_usage() {
	_ew_p=$EW_SYSFS/class/infiniband/${1%/*}/ports/${1#*/}
	_ew_size=$(find "$_ew_p/gids" -mindepth 1 -maxdepth 1 | grep -c .) || :
	# Empty entries read as the zero GID (or fail to read): not used.
	_ew_used=$(cat "$_ew_p"/gids/* 2>/dev/null | grep -vc "^$EW_ZERO_GID\$") || :
	_ew_per=$(cat "$_ew_p"/gid_attrs/types/* 2>/dev/null | sort -u | grep -c .) || :
	[ "$_ew_per" -ge 1 ] || _ew_per=1
	echo "$_ew_used $_ew_size $_ew_per"
}

# ew_gid_index_of DEV/PORT GID NETDEV: the index of GID on the port, with
# NETDEV as its netdev; status 1 if there is none.
ew_gid_index_of() {
	_ew_b=$EW_SYSFS/class/infiniband/${1%/*}/ports/${1#*/}
	grep -slx "$2" "$_ew_b"/gids/* 2>/dev/null | {
		while read -r _ew_f; do
			_ew_n=
			read -r _ew_n 2>/dev/null <"$_ew_b/gid_attrs/ndevs/${_ew_f##*/}" || :
			if [ "$_ew_n" = "$3" ]; then
				echo "${_ew_f##*/}"
				exit 0
			fi
		done
		exit 1
	}
}

# ew_gid_wait PRESENT|ABSENT DEV/PORT GID NETDEV: wait up to EW_GID_TIMEOUT
# seconds (by the clock: a scan of a large table is slow) until the GID is
# in (or gone from) the port's table.
ew_gid_wait() {
	_ew_end=$(($(date +%s) + EW_GID_TIMEOUT))
	while :; do
		if ew_gid_index_of "$2" "$3" "$4" >/dev/null; then
			[ "$1" = PRESENT ] && return 0
		else
			[ "$1" = ABSENT ] && return 0
		fi
		[ "$(date +%s)" -lt "$_ew_end" ] || return 1
		sleep 0.2
	done
}

# ew_addr_owner ADDR: the netdev that has ADDR (any prefix length), if any.
ew_addr_owner() {
	ip -o -6 addr show to "$1/128" 2>/dev/null | awk '{ sub(/@.*/, "", $2); print $2; exit }'
}

# ew_jobaddr_del JOBID: remove the address the prolog gave job JOBID (its
# state file says which) and wait for its GIDs to go. Status 0 when the
# address is gone (or there was none), 1 if it is still there (message in
# EW_ADDR_OUT).
ew_jobaddr_del() {
	_ew_sf=$EW_STATE_DIR/$1
	EW_ADDR_OUT=
	[ -f "$_ew_sf" ] || return 0
	_ew_dev=''
	_ew_addr=''
	_ew_gid=''
	_ew_ports=''
	read -r _ew_dev _ew_addr _ew_gid _ew_ports <"$_ew_sf" || :
	if [ -n "$_ew_addr" ] && [ "$(ew_addr_owner "${_ew_addr%/*}")" = "$_ew_dev" ]; then
		EW_ADDR_OUT=$(ip -6 addr del "$_ew_addr" dev "$_ew_dev" 2>&1) || :
		if [ "$(ew_addr_owner "${_ew_addr%/*}")" = "$_ew_dev" ]; then
			EW_ADDR_OUT="ip -6 addr del $_ew_addr dev $_ew_dev failed: $EW_ADDR_OUT"
			return 1
		fi
	fi
	# The core removes the GIDs (and the module revokes the QPs that used
	# them) shortly after the address: wait, so that nothing of the job's
	# identity outlives the hook.
	for _ew_port in $(echo "$_ew_ports" | tr , ' '); do
		ew_gid_wait ABSENT "$_ew_port" "$_ew_gid" "$_ew_dev" ||
			ew_log "the GID of $_ew_addr is still on $_ew_port after ${EW_GID_TIMEOUT}s"
	done
	rm -f "$_ew_sf"
}

# ----------------------------------------------------------------------------
# Per-job ESP SAs (partitions with "jobaddr IFNAME" and "encrypt ipsec")

# ew_jobesp_del CTL JOBID: remove the ESP states and policies the prolog made
# for job JOBID (its state file "$EW_STATE_DIR/JOBID.esp" names the netdev,
# the job's address here and the run its keys are of): exactly that job's,
# the other jobs' stay.
# Status 0 when they are gone (or there were none), 1 if they may remain
# (message in EW_ESP_OUT).
ew_jobesp_del() {
	_ew_sf=$EW_STATE_DIR/$2.esp
	EW_ESP_OUT=
	[ -f "$_ew_sf" ] || return 0
	_ew_dev=''
	_ew_addr=''
	_ew_run=''
	read -r _ew_dev _ew_addr _ew_run <"$_ew_sf" || :
	if [ -n "$_ew_dev" ] && [ -n "$_ew_addr" ]; then
		_ew_rc=0
		EW_ESP_OUT=$("$1" path del dev "$_ew_dev" job "$EW_JOB_PREFIX$2" local "$_ew_addr" 2>&1) ||
			_ew_rc=$?
		# 5: the job has no SAs there (any more, or yet: the prolog
		# writes the state file before it makes them).
		if [ "$_ew_rc" -ne 0 ] && [ "$_ew_rc" -ne 5 ]; then
			EW_ESP_OUT="eastwestctl path del dev $_ew_dev job $EW_JOB_PREFIX$2 local $_ew_addr failed ($_ew_rc): $EW_ESP_OUT"
			return 1
		fi
	fi
	rm -f "$_ew_sf"
}
