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

# Debian's root PATH; slurmd gives the hooks none.
PATH=${PATH:+$PATH:}/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
LC_ALL=C
export PATH LC_ALL

EW_LIB_DIR=$(dirname "$(readlink -f "$0")")
EW_CONF_DIR=${EW_CONF_DIR:-/etc/eastwest}
EW_INVENTORY=$EW_CONF_DIR/inventory
EW_PARTITIONS=$EW_CONF_DIR/slurm-partitions
# The cluster's key file: keyed PSNs derive each job's key from it (psn keyed).
EW_PSN_KEYFILE=${EW_PSN_KEYFILE:-$EW_CONF_DIR/cluster.key}
EW_JOB_PREFIX=slurm-

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

# ew_policy PARTITION NODES: the job's eastwestctl attributes, one word a
# line (slurm-policy.awk checks the files; errors name FILE:LINE).
ew_policy() {
	for _ew_f in "$EW_INVENTORY" "$EW_PARTITIONS"; do
		[ -r "$_ew_f" ] || ew_fail "$EW_RC_CONFIG" "cannot read $_ew_f"
	done
	_ew_rc=0
	_ew_out=$(awk -v pfile="$EW_PARTITIONS" -v ifile="$EW_INVENTORY" \
		-v psnkeyfile="$EW_PSN_KEYFILE" \
		-v part="$1" -v nodes="$(printf '%s\n' "$2" | tr '\n' ' ')" \
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
