#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 1
# ew-kernels: 6.1
# ew-timeout: 300
#
# The OCI runtime hook (integrations/oci/oci-hook) with Debian's real runc:
# containers run from a bind mount of the root, with the uverbs and rdma_cm
# device nodes, on one soft-RoCE device on lo (loopback). The hook runs at
# createRuntime and poststop, as CRI-O's hooks.d or containerd's NRI
# hook-injector would configure it.
#
# - Two containers whose annotation eastwest.io/job names template team-a
#   each get a job of their own, bound to their cgroup with the template's
#   peers, and connect to each other over RC with verified data; when they
#   stop, their jobs and claims are gone.
# - A container without the annotation is in no job: refused (default-deny).
# - A template's peers are all a container gets: one whose template does not
#   list the destination is refused.
# - A container naming an unknown template, or configured into a cgroup
#   shared with another process, is not started. (Unsafe templates and the
#   other refusals are covered by make -C integrations/oci check.)
# - Two containers whose job names collide: the second is not started and
#   its poststop leaves the first one's job alone.
# - poststop run again is a no-op.
# - With the module unloaded the hook fails and runc does not start the
#   container.

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../oci-lib.sh"

DEV=rxe0
LOOP=127.0.0.1
CG=/sys/fs/cgroup
oci_runc_dirs /run/ew-oci
# The containers' cgroups are /ewoci/<container id>.
CGP=/ewoci

ew_require_root
ew_require_cmd runc jq rdma ibv_rc_pingpong
ew_require_built ctl verbs cgroup
[ -x "$HOOK" ] || ew_skip "oci-hook is not built (make -C integrations/oci)"

ew_defer "rm -rf $W"
ew_defer "rmdir $CG$CGP/* $CG$CGP"
ew_defer "umount $ROOTFS"
ew_defer "ew_rmmod"
ew_defer "rdma link delete $DEV"
ew_defer "kill \$SLEEPER"
ew_defer "for c in \$(runc --root $RUNC_ROOT list -q); do runc --root $RUNC_ROOT delete -f \$c; done"

ew_plan 30

# ----------------------------------------------------------------------------
# Helpers

T0=$(date +%s)
# took WHAT: a diagnostic line with the seconds since the test started.
took() {
	ew_diag "[$(($(date +%s) - T0)) s] $*"
}

# run_show ID: oci_runc_run, then show the output (for ew_expect_rc).
run_show() {
	oci_runc_run "$1"
	_rc=$?
	cat "$W/out.$1"
	return "$_rc"
}

# no_job_denials: the node's denied_no_job counter (jq: python3 starts slowly under TCG).
no_job_denials() {
	"$CTL" -j stats | jq -e '.global.denied_no_job'
}

# srv_job_ok: the server's job is bound to its cgroup, with team-a's peer and Q_Key.
srv_job_ok() {
	_job=$(oci_job_of srv-a) || { echo "no job oci-srv-a"; return 1; }
	echo "$_job"
	echo "$_job" | jq -e --arg cg "$CGP/srv-a" --arg peer "$LOOP/32" \
		'.cgroups == [$cg] and .peers == [$peer] and .qkey == 4660' >/dev/null
}

# jobs_gone ID...: no job of these containers exists.
jobs_gone() {
	for _c in "$@"; do
		if oci_job_of "$_c"; then
			echo "job of $_c still exists"
			return 1
		fi
	done
}

# kill_first: kill container collide-000001 and wait until its job is gone.
kill_first() {
	runc --root "$RUNC_ROOT" kill collide-000001 KILL || return 1
	ew_wait_for 30 jobs_gone collide-000001
}

# no_trace ID: container ID left no job, no claim and no runc container.
no_trace() {
	if oci_job_of "$1" >/dev/null 2>&1; then
		echo "job oci-$1 still exists"
		return 1
	fi
	if [ -n "$(ls -A "$STATE" 2>/dev/null)" ]; then
		echo "claims left: $(ls -A "$STATE")"
		return 1
	fi
	if runc --root "$RUNC_ROOT" state "$1" >/dev/null 2>&1; then
		echo "runc still has container $1"
		return 1
	fi
}

# ----------------------------------------------------------------------------
# Setup: module, rxe on lo, templates, root file system, runc's base spec

ew_load_rxe_lo

mkdir -p "$TPL" "$ROOTFS" "$RUNC_ROOT" "$CG$CGP"
chmod 0755 "$W" "$TPL"
printf '{"description": "loopback", "peers": ["%s"], "qkey": 4660}\n' "$LOOP" >"$TPL/team-a.json"
printf '{"peers": ["198.51.100.0/24"]}\n' >"$TPL/far.json"
chmod 0644 "$TPL/team-a.json" "$TPL/far.json"
# pivot_root on the 9p root itself fails (EBUSY): a bind mount of it works.
mount --bind / "$ROOTFS" || ew_bail "cannot bind-mount / on $ROOTFS"
(cd "$W" && runc spec && mv config.json base.json) || ew_bail "runc spec failed"
# shellcheck disable=SC2034 # oci_bundle (oci-lib.sh) reads it
DEVS=$(oci_devices) || ew_bail "no RDMA device nodes"
took "set up"

# ----------------------------------------------------------------------------
# Two containers of template team-a are two jobs: on one node, neither may
# reach the other's QPs (foreign-qp), whatever the template's peers say

oci_bundle srv-a team-a "[\"ibv_rc_pingpong\", \"-d\", \"$DEV\", \"-g\", \"$IDX\", \"-n\", \"20\", \"-c\"]"
oci_bundle cli-a team-a "[\"ibv_rc_pingpong\", \"-d\", \"$DEV\", \"-g\", \"$IDX\", \"-n\", \"20\", \"-c\", \"$LOOP\"]"
oci_runc_run srv-a &
SRV=$!
ew_check "the server container runs and listens" ew_wait_listen 18515 90
ew_check "its job oci-srv-a is bound to its cgroup, with the template's peer and qkey" srv_job_ok
before=$(ew_counter - denied-foreign-qp)
ew_check_not "a container of the same template, another job, cannot connect to it on this node" \
	run_show cli-a
ew_check "refused as foreign-qp (the node's counter rose)" \
	test "$(ew_counter - denied-foreign-qp)" -gt "$before"
wait "$SRV"
SRV_RC=$?
ew_check "the server container carried nothing (exit $SRV_RC)" \
	sh -c "[ $SRV_RC -ne 0 ] && ! grep -q iters '$W/out.srv-a'"
ew_diag "$(tail -n 2 "$W/out.srv-a")"
ew_check "after both stopped, their jobs are gone" jobs_gone srv-a cli-a
ew_check "and so are their claims" test -z "$(ls -A "$STATE")"

# ----------------------------------------------------------------------------
# No annotation: no job, default deny; the template's peers only

oci_bundle plain - "[\"$VERBS\", \"rc-connect\", \"$DEV\", \"$IDX\", \"$LOOP\", \"self\"]"
before=$(no_job_denials)
ew_expect_rc 13 "a container without the annotation is refused (EACCES): it is in no job" \
	run_show plain
ew_check "counted as no-job" test "$(no_job_denials)" -eq $((before + 1))
ew_check "no job was created for it" no_trace plain

oci_bundle far far "[\"$VERBS\", \"rc-connect\", \"$DEV\", \"$IDX\", \"$LOOP\", \"self\"]"
ew_dmesg_mark
ew_expect_rc 13 "a container whose template does not list $LOOP is refused connecting there" \
	run_show far
ew_check "refused as peer not allowed, in its own job" \
	ew_dmesg_wait "denied modify_qp: peer not allowed: job [0-9]+ "
ew_check "its job is gone after it stopped" no_trace far

# ----------------------------------------------------------------------------
# Refused starts: the container's process never runs

oci_bundle bogus nosuch '["echo", "ran"]'
ew_check "a container naming an unknown template is not started" \
	oci_not_started bogus "no template nosuch"
ew_check "it left nothing behind" no_trace bogus

# A cgroup that holds another process already: binding it would put that
# process in the container's job.
mkdir -p "$CG$CGP/shared"
sh -c 'echo $$ > "$0/cgroup.procs" && exec sleep 120' "$CG$CGP/shared" &
SLEEPER=$!
ew_wait_for 5 grep -qx "$SLEEPER" "$CG$CGP/shared/cgroup.procs"
oci_bundle shared team-a '["echo", "ran"]' "$CGP/shared"
ew_check "a container put in a cgroup shared with another process is not started" \
	oci_not_started shared "holds processes other than the container's init"
ew_check "it left nothing behind" no_trace shared
kill "$SLEEPER"
wait "$SLEEPER" 2>/dev/null

# ----------------------------------------------------------------------------
# Job names collide (same first 12 characters): the second is not started,
# and its poststop (runc runs it on the way out) spares the first one's job

oci_bundle collide-000001 team-a '["sleep", "120"]'
oci_bundle collide-000002 team-a '["echo", "ran"]'
oci_runc_run collide-000001 &
FIRST=$!
ew_check "the first container runs in job oci-collide-0000" \
	ew_wait_for 60 oci_job_of collide-000001
ew_check "the second, whose job name is the same, is not started" \
	oci_not_started collide-000002 "job name oci-collide-0000 is taken by container collide-000001"
ew_check "the first one's job survives the second's poststop" oci_job_of collide-000001
ew_check "killing the first container removes its job" kill_first
wait "$FIRST"
ew_check "and its claim" test -z "$(ls -A "$STATE")"

# ----------------------------------------------------------------------------
# poststop again: nothing to do

ew_check "poststop run again for a stopped container does nothing and succeeds" sh -c "
	printf '{\"ociVersion\":\"1.0.2\",\"id\":\"srv-a\",\"status\":\"stopped\",\"bundle\":\"$W/bundles/srv-a\",\"annotations\":{\"eastwest.io/job\":\"team-a\"}}' |
	EW_CTL='$CTL' '$HOOK' --templates '$TPL' --state-dir '$STATE' poststop"

# ----------------------------------------------------------------------------
# The hook fails (module not loaded): runc does not start the container

ew_check "eastwest is unloaded" ew_unload
oci_bundle nomod team-a '["echo", "ran"]'
ew_check "a container of template team-a is then not started" \
	oci_not_started nomod "eastwest is not available"
ew_check "and no claim is left" test -z "$(ls -A "$STATE")"
ew_check "runc has no container left" test -z "$(runc --root "$RUNC_ROOT" list -q)"

ew_diag "$(cat "$W/times")"
took "done"
ew_done
