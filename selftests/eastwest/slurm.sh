#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 1
# ew-kernels: 6.1
# ew-timeout: 420
#
# The Slurm integration (integrations/slurm) against a real slurmctld, slurmd
# and munged (Debian's slurm-wlm 22.05) on one node, wired as an operator
# wires it: Prolog= and Epilog= in slurm.conf, a node inventory and a
# partition file. (The hooks are reached through two small wrappers that set
# EW_CTL and EW_CONF_DIR, because the host's /etc and /usr are read-only here,
# and that record what the hook saw and left behind.)
#
#  1. A batch job: the prolog runs before Slurm has created the job's cgroup,
#     creates it and binds it; Slurm then runs the job in that very cgroup
#     (same inode). Inside the job an RC connection through the NIC's
#     loopback works (the node is the job's peer, from the inventory); a
#     process outside the job cannot connect to the job's QP. The partition's
#     netdev rule is in the eastwest job. After the job, the eastwest job and
#     the cgroup are gone, and the epilog can run again (idempotent).
#  2. A job in a partition that requires MACsec cannot connect over the plain
#     netdev: the partition's encryption requirement is enforced.
#  3. A prolog failure keeps the job from running: with the node missing
#     from the inventory, the batch job is requeued and held and the node
#     drained; with eastwest not loaded (and not loadable), srun's job fails
#     to launch and the node is drained. Neither leaves an eastwest job or a cgroup behind.
#
# Needs: slurmctld, slurmd, slurm-client, munge, ibverbs-utils.

# shellcheck disable=SC2317 # the functions run through ew_check and ew_wait_for
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../slurm-lib.sh"

HOOKS=$EW_TOP/integrations/slurm
R=/run/ew-slurm
DEV=rxe0
NETDEV=ewslurm0
ADDR=198.51.100.1
NODE=localhost
CG=/sys/fs/cgroup
SCOPE=/system.slice/${NODE}_slurmstepd.scope
SLURM_CONF=$R/slurm.conf
export SLURM_CONF

ew_require_root
ew_require_cmd rdma ip ibv_rc_pingpong stdbuf ss python3 munged mungekey \
	slurmctld slurmd sbatch srun scontrol squeue sinfo scancel
ew_require_built ctl verbs cgroup
[ ! -e "$R" ] || ew_bail "$R exists: another Slurm test bed is running"

OLD_HOSTNAME=$(hostname)
OLD_MODPROBE=$(cat /proc/sys/kernel/modprobe)

# ----------------------------------------------------------------------------
# Daemons

teardown() {
	# shellcheck disable=SC2046 # one job id a word
	scancel --quiet $(squeue -h -o %i 2>/dev/null) 2>/dev/null
	stop_pidfile "$R/slurmd.pid"
	stop_pidfile "$R/slurmctld.pid"
	stop_pidfile "$R/munge/munged.pid"
	hostname "$OLD_HOSTNAME"
	echo "$OLD_MODPROBE" >/proc/sys/kernel/modprobe
}

munge_up() {
	mkdir -p "$R/munge" && chmod 700 "$R/munge" &&
		mungekey -c -k "$R/munge/munge.key" && munged_start
}

# The hooks as slurm.conf names them: wrappers that point the real hooks at
# this test's eastwestctl and files, and record, per job, whether the job's
# cgroup existed before the hook ran, its exit code, the cgroup's inode and
# what a failed prolog left behind.
write_hooks() {
	mkdir -p "$R/hooks" "$R/seen" "$R/etc" || return 1
	for hook in prolog epilog; do
		cat >"$R/hooks/$hook" <<-EOF || return 1
			#!/bin/sh
			j=\$SLURM_JOB_ID
			cg=$CG$SCOPE/job_\$j
			if [ -d "\$cg" ]; then echo present; else echo absent; fi >$R/seen/$hook-\$j.before
			EW_CTL=$CTL EW_CONF_DIR=$R/etc $HOOKS/slurm-$hook
			rc=\$?
			echo \$rc >$R/seen/$hook-\$j.rc
			stat -c %i "\$cg" >$R/seen/$hook-\$j.ino 2>/dev/null
			{
				[ ! -d "\$cg" ] || echo "cgroup \$cg"
				! $CTL job show slurm-\$j >/dev/null 2>&1 || echo "eastwest job slurm-\$j"
			} >$R/seen/$hook-\$j.left
			exit \$rc
		EOF
		chmod 755 "$R/hooks/$hook" || return 1
	done
}

write_slurm_conf() {
	slurm_conf ewtest "$NODE" <<-EOF
		SchedulerType=sched/builtin
		MpiDefault=none
		JobAcctGatherType=jobacct_gather/none
		AccountingStorageType=accounting_storage/none
		ReturnToService=2
		Prolog=$R/hooks/prolog
		Epilog=$R/hooks/epilog
		NodeName=$NODE CPUs=2 State=UNKNOWN
		PartitionName=gpu Nodes=$NODE Default=YES MaxTime=INFINITE State=UP
		PartitionName=secure Nodes=$NODE MaxTime=INFINITE State=UP
	EOF
}

# The node inventory and partition file, as /etc/eastwest would hold them.
write_inventory() {
	cat >"$R/etc/inventory" <<-EOF
		# node      addresses (RoCE: IP addresses; InfiniBand: GIDs, lid:N)
		$NODE   $ADDR
		gpu02       198.51.100.2 v100=10.100.0.2
		ib01        fe80::2:c903:a:1234 lid:17
	EOF
}

write_partitions() {
	cat >"$R/etc/slurm-partitions" <<-EOF
		# partition settings
		*       jobaddr shared mode enforce
		gpu     jobaddr shared netdev $NETDEV
		secure  jobaddr shared encrypt macsec
	EOF
}

# The node's RoCE netdev: a dummy with the address the inventory lists (it
# is also the non-loopback address slurmd's getaddrinfo() needs).
rdma_up() {
	ew_dummy_add "$NETDEV" "$ADDR/24" && ew_rxe_add "$DEV" "$NETDEV"
}

node_state() {
	sinfo -h -n "$NODE" -o '%T %E'
}

node_idle() {
	[ "$(sinfo -h -n "$NODE" -o %T)" = idle ]
}

node_drained() {
	node_state | grep -qE '^drain(ed|ing)? Prolog error'
}

slurm_up() {
	slurm_cgroups_up && slurmctld -i && slurmd || return 1
	ew_wait_for 60 node_idle || {
		echo "node state: $(node_state)"
		tail -n 20 "$R/slurmctld.log" "$R/slurmd.log"
		return 1
	}
}

resume_node() {
	scontrol update nodename="$NODE" state=resume && ew_wait_for 30 node_idle
}

# ----------------------------------------------------------------------------
# Checks of the eastwest job and of what the hooks left

# ew_job_is NAME CGROUP PEER NETDEV: the node's policy has job NAME, bound
# to CGROUP only, with IPv4 address PEER as its only peer (shown as PEER/32)
# and NETDEV as its only netdev.
ew_job_is() {
	"$CTL" -j show | python3 -c '
import json, sys
name, cg, peer, netdev = sys.argv[1:]
jobs = [j for j in json.load(sys.stdin)["jobs"] if j["name"] == name]
if not jobs:
    sys.exit("no job " + name)
j = jobs[0]
print(json.dumps(j))
ok = (j["cgroups"] == [cg] and j["peers"] == [peer + "/32"] and
      [n.get("ifname") for n in j["netdevs"]] == [netdev] and j["mode"] == "enforce")
sys.exit(0 if ok else "job differs")' "$@"
}

ew_job_absent() {
	_out=$("$CTL" job show "$1" 2>&1) && { echo "still there: $_out"; return 1; }
	echo "$_out" | grep -q "no such job"
}

# unload_for_good: rmmod eastwest, and make the kernel's module autoloading
# (request_module) fail until the test ends.
unload_for_good() {
	ew_unload && echo /bin/false >/proc/sys/kernel/modprobe
}

# seen HOOK JOBID WHAT: what the wrapper recorded.
seen() {
	cat "$R/seen/$1-$2.$3" 2>/dev/null
}

# seen_is HOOK JOBID WHAT VALUE: the wrapper recorded VALUE (not empty).
seen_is() {
	[ -n "$4" ] && [ "$(seen "$1" "$2" "$3")" = "$4" ]
}

# nothing_left JOBID: the failed prolog left no cgroup and no eastwest job.
nothing_left() {
	if [ ! -f "$R/seen/prolog-$1.left" ] || [ -s "$R/seen/prolog-$1.left" ]; then
		echo "left: $(seen prolog "$1" left)"
		return 1
	fi
}

# ----------------------------------------------------------------------------

ew_defer "ew_netdev_del $NETDEV"
ew_defer "rdma link delete $DEV"
ew_defer "ew_rmmod"
ew_defer "rm -rf $R"
ew_defer teardown

T0=$(date +%s)
elapsed() {
	ew_diag "$* after $(($(date +%s) - T0)) s"
}

ew_plan 35

ew_check "eastwest.ko loads" ew_load
ew_check "$DEV on $NETDEV ($ADDR)" rdma_up
IDX=$(ew_wait_gid_index "$DEV" "$ADDR")
ew_check "RoCE v2 GID of $ADDR found (index ${IDX:-none})" test -n "$IDX" ||
	ew_bail "no GID to use"

# Slurm resolves its own name: the host's /etc/hosts maps localhost.
hostname "$NODE"
if ! { mkdir -p "$R" && write_hooks && write_slurm_conf && write_inventory &&
	write_partitions; }; then
	ew_bail "cannot write the Slurm configuration under $R"
fi
ew_check "munged starts" munge_up
ew_check "slurmctld and slurmd start; $NODE is idle" slurm_up ||
	ew_bail "no Slurm"

elapsed "Slurm is up"

# --- 1. a protected batch job ----------------------------------------------
S=$R/main
mkdir -p "$S"
cat >"$R/main.sh" <<EOF
#!/bin/sh
# The job: an RC connection through the NIC's loopback (20 verified round
# trips), then a server that waits for a peer: the outsider's target.
cat /proc/self/cgroup >$S/cgroup
stat -c %i $CG$SCOPE/job_\$SLURM_JOB_ID >$S/ino
ibv_rc_pingpong -d $DEV -g $IDX -n 20 -c >$S/srv.out 2>&1 &
srv=\$!
i=0
while [ -z "\$(ss -Htln 'sport = :18515')" ] && [ \$i -lt 150 ]; do sleep 0.2; i=\$((i + 1)); done
ibv_rc_pingpong -d $DEV -g $IDX -n 20 -c $ADDR >$S/cli.out 2>&1
echo \$? >$S/cli.rc
wait \$srv
echo \$? >$S/srv.rc
stdbuf -oL ibv_rc_pingpong -d $DEV -g $IDX -p 18516 >$S/victim.out 2>&1 &
victim=\$!
i=0
while ! grep -q 'local address' $S/victim.out && [ \$i -lt 150 ]; do sleep 0.2; i=\$((i + 1)); done
touch $S/ready
i=0
while [ ! -e $S/release ] && [ \$i -lt 600 ]; do sleep 0.2; i=\$((i + 1)); done
kill \$victim
EOF
chmod 755 "$R/main.sh"
J=$(sbatch --parsable -p gpu -o "$S/job.out" --chdir="$R" "$R/main.sh")
ew_check "sbatch submits job ${J:-?} to partition gpu" test -n "$J"
J=${J:-0}
ew_check "the job's RDMA part is done" ew_wait_for 90 test -e "$S/ready" ||
	sed 's/^/#   /' "$S"/*.out "$R/slurmd.log" 2>/dev/null | tail -n 30

ew_check "the prolog ran before Slurm made the job's cgroup, and succeeded" \
	test "$(seen prolog "$J" before) $(seen prolog "$J" rc)" = "absent 0"
ew_check "the job runs in $SCOPE/job_$J" grep -q "^0::$SCOPE/job_$J/" "$S/cgroup"
ew_check "... the very cgroup the prolog created and bound (same inode)" \
	seen_is prolog "$J" ino "$(cat "$S/ino")"
ew_check "eastwest job slurm-$J: that cgroup, the node's address, partition gpu's netdev" \
	ew_job_is "slurm-$J" "$SCOPE/job_$J" "$ADDR" "$NETDEV"
ew_check "inside the job, an RC connection through the NIC connects (client)" \
	test "$(cat "$S/cli.rc" 2>/dev/null)" = 0
ew_check "... and the server saw 20 verified round trips" \
	test "$(cat "$S/srv.rc" 2>/dev/null)" = 0

VQPN=$(sed -n 's/.*local address:.*QPN \(0x[0-9a-f]*\), PSN \(0x[0-9a-f]*\).*/\1/p' "$S/victim.out")
VPSN=$(sed -n 's/.*local address:.*QPN \(0x[0-9a-f]*\), PSN \(0x[0-9a-f]*\).*/\2/p' "$S/victim.out")
ew_diag "the job's waiting server: QPN ${VQPN:-?} PSN ${VPSN:-?}"
before=$(ew_counter - denied-no-job)
ew_expect_rc 13 "a process outside the job cannot connect to the job's QP (EACCES)" \
	"$VERBS" rc-connect "$DEV" "$IDX" "$ADDR" "${VQPN:-0x11}" "${VPSN:-0}"
ew_check "... counted as denied, no job" \
	test "$(ew_counter - denied-no-job)" -eq $((before + 1))

# Where slurmd's environment has no node list or partition, the hooks ask
# slurmctld (squeue).
# shellcheck disable=SC2016 # expanded by the inner shell
ew_check "without SLURM_NODELIST and SLURM_JOB_PARTITION, squeue tells the nodes and partition" \
	test "$(env -u SLURM_NODELIST -u SLURM_JOB_NODELIST -u SLURM_JOB_PARTITION \
		SLURM_JOB_ID="$J" SLURM_JOB_NUM_NODES=1 EW_HOOK=test \
		sh -c '. "$1" && ew_nodes && ew_partition' "$HOOKS/slurm-prolog" \
		"$HOOKS/slurm-common.sh" | tr '\n' ' ')" = "$NODE gpu "

touch "$S/release"
ew_check "the job completes" ew_wait_for 60 job_done "$J"
ew_check "the epilog succeeded" ew_wait_for 20 seen_is epilog "$J" rc 0
ew_check "the eastwest job slurm-$J is gone" ew_job_absent "slurm-$J"
ew_check "the job's cgroup is gone" test ! -d "$CG$SCOPE/job_$J"
ew_check "the epilog again (idempotent) succeeds" \
	env SLURM_JOB_ID="$J" SLURMD_NODENAME="$NODE" "$R/hooks/epilog"

elapsed "the batch job is done"

# --- 2. the partition's encryption requirement --------------------------------
before=$(ew_counter - denied-unprotected-path)
ew_expect_rc 13 "a job of partition secure (encrypt macsec) cannot connect over plain $NETDEV" \
	srun -p secure "$VERBS" rc-connect "$DEV" "$IDX" "$ADDR" self
ew_check "... refused as an unprotected path" \
	test "$(ew_counter - denied-unprotected-path)" -eq $((before + 1))
K=$(squeue -h -t all -p secure -o %i | tail -n 1)
ew_check "... and its eastwest job is gone after it" \
	ew_wait_for 20 ew_job_absent "slurm-${K:-0}"

elapsed "the secure job is done"

# --- 3. prolog failures keep jobs from running ---------------------------------
# The node is missing from the inventory.
cat >"$R/etc/inventory" <<EOF
gpu02 198.51.100.2
EOF
J=$(sbatch --parsable -p gpu -o "$R/noinv.out" --chdir="$R" --wrap "touch $R/ran-noinv")
J=${J:-0}
ew_check "node missing from the inventory: the node is drained (Prolog error)" \
	ew_wait_for 60 node_drained
ew_check "... the batch job $J is requeued and held" \
	ew_wait_for 30 sh -c "scontrol -o show job $J | grep -q 'Reason=launch_failed_requeued_held'"
ew_check "... it never ran" test ! -e "$R/ran-noinv"
ew_check "... the prolog exited 3 and said why (slurmd's log)" sh -c "
	test \"\$(cat $R/seen/prolog-$J.rc)\" = 3 &&
	grep -q 'node $NODE is not in the inventory' $R/slurmd.log"
ew_diag "slurmd: $(grep -A1 'prolog failed: rc:3' "$R/slurmd.log" | head -n 2)"
ew_check "... and left no cgroup and no eastwest job" nothing_left "$J"
ew_diag "job $J: $(job_field "$J" JobState) $(job_field "$J" Reason)"
scancel "$J"
write_inventory
ew_check "the node is resumed" resume_node

elapsed "the node is back"

# eastwest is not loaded. Where the module is installed (DKMS), eastwestctl's
# first request would load it again through the netlink family's alias and
# the job would run protected; here it must stay away: modprobe is /bin/false.
ew_check "eastwest is unloaded and cannot be autoloaded" unload_for_good
rc=0
timeout 120 srun -p gpu sh -c "touch $R/ran-nomod" >"$R/nomod.out" 2>&1 || rc=$?
ew_check "eastwest not loaded: srun fails ($rc, 'Job prolog failed'), the job never ran" \
	sh -c "test $rc -ne 0 && test ! -e $R/ran-nomod && grep -q 'Job prolog failed' $R/nomod.out"
ew_diag "srun: $(cat "$R/nomod.out")"
J=$(squeue -h -t all -o %i | sort -n | tail -n 1)
ew_check "... the prolog exited 4 (not loaded)" test "$(seen prolog "${J:-0}" rc)" = 4
ew_check "... the node is drained (Prolog error)" ew_wait_for 30 node_drained
ew_check "... and no cgroup is left" test ! -d "$CG$SCOPE/job_${J:-0}"
ew_diag "job ${J:-?}: $(job_field "${J:-0}" JobState) $(job_field "${J:-0}" Reason);" \
	"slurmd: $(grep -A1 'prolog failed: rc:4' "$R/slurmd.log" | head -n 2)"
elapsed "all done"

ew_done
