#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 1
# ew-timeout: 360
# ew-kernels: 6.1
#
# The OCI hook under Debian 12's containerd (1.6) and its runc shim
# (containerd-shim-runc-v2). containerd 1.6 has no hooks.d and no NRI (NRI
# came with 1.7): hooks reach runc only inside the OCI spec its client
# hands it. So the spec here carries the hooks of the installed hooks.d
# files (as NRI's hook-injector or a CRI base_runtime_spec would add them),
# and `ctr run --config` passes that spec to the shim, whose runc runs
# them. The hook and eastwestctl are installed where the repository
# installs them (tmpfs overlays on /usr and /etc, in the test's own mount
# namespace); the containers' root is a bind mount of / (as in oci.sh).
#
# - An annotated container gets its job, bound to its cgroup, and its RDMA
#   process connects to its peer and carries data.
# - Its job stays while containerd keeps the stopped task (runc runs
#   poststop hooks on delete), and is gone once the task is deleted.
# - A container without the annotation is refused (no job).
# - A broken template: ctr run fails with the hook's reason; no job, no
#   claim, no task left.

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../oci-lib.sh"

if [ -z "${EW_CTRD_NS:-}" ]; then
	EW_CTRD_NS=1 exec unshare -m --propagation private sh "$0" "$@"
fi

DEV=rxe0
LOOP=127.0.0.1
W=/run/ew-containerd
SOCK=$W/containerd.sock
HOOKSD=/usr/share/containers/oci/hooks.d
TPL=/etc/eastwest/oci
STATE=/run/eastwest/oci
CGP=/ewctrd

ew_require_root
ew_require_cmd containerd containerd-shim-runc-v2 ctr runc jq rdma unshare make
ew_require_built ctl verbs cgroup
[ -x "$EW_TOP/integrations/oci/oci-hook" ] || ew_skip "oci-hook is not built (make -C integrations/oci)"

ew_defer "rm -rf $W $STATE"
ew_defer "rmdir /sys/fs/cgroup$CGP/* /sys/fs/cgroup$CGP"
ew_defer "umount $W/rootfs"
ew_defer "umount /etc /usr"
ew_defer "ew_rmmod"
ew_defer "rdma link delete $DEV"
ew_defer "ew_reap_all"
ew_defer "for c in \$(timeout 30 ctr --address $SOCK containers list -q); do timeout 30 ctr --address $SOCK task delete -f \$c; timeout 30 ctr --address $SOCK containers delete \$c; done"

ew_plan 20

T0=$(date +%s)
took() {
	ew_diag "[$(($(date +%s) - T0)) s] $*"
}

# c ARGS...: ctr talking to this test's containerd.
c() {
	ctr --address "$SOCK" "$@"
}

# no_trace ID: no job of container ID, no claim, no container left.
no_trace() {
	oci_no_trace "$1" || return 1
	if c containers info "$1" >/dev/null 2>&1; then
		echo "containerd still has container $1"
		return 1
	fi
}

# hooks: the OCI "hooks" object of the installed hooks.d files (each
# file's hook for each of its stages), what a hook injector would add.
hooks() {
	jq -s -c 'reduce .[] as $f ({}; reduce $f.stages[] as $s (.; .[$s] += [$f.hook]))' \
		"$HOOKSD"/*.json
}

# spec ID TEMPLATE|- ARGS_JSON: write container ID's spec to $W/spec.ID.
spec() {
	# shellcheck disable=SC2016 # jq's variable, for jq
	oci_spec "$W/rootfs" "$CGP/$1" "$2" "$3" '$hooks' --argjson hooks "$HOOKS" \
		>"$W/spec.$1"
}

# run_rm ID: ctr run --rm of container ID's spec, output in $W/out.ID
# (ctr waits for the task: a time limit, so that a hang fails the check).
run_rm() {
	timeout 120 ctr --address "$SOCK" run --rm --config "$W/spec.$1" "$1" </dev/null >"$W/out.$1" 2>&1
	_rc=$?
	cat "$W/out.$1"
	return "$_rc"
}

# ----------------------------------------------------------------------------
# Setup

ew_load_rxe_lo

oci_overlay_usr_etc "$W" || ew_bail "no overlays on /usr and /etc"
ew_check "make -C integrations/oci install (PREFIX=/usr)" \
	make -s -C "$EW_TOP/integrations/oci" install PREFIX=/usr
ew_check "make -C userspace install (eastwestctl in /usr/sbin)" \
	make -s -C "$EW_TOP/userspace" install PREFIX=/usr
HOOKS=$(hooks)
ew_diag "hooks from $HOOKSD: $HOOKS"
mkdir -p "$TPL" "$W/rootfs" "/sys/fs/cgroup$CGP"
printf '{"description": "loopback", "peers": ["%s"], "qkey": 4660}\n' "$LOOP" >"$TPL/team-a.json"
printf '{"peer": ["%s"]}\n' "$LOOP" >"$TPL/broken.json"
chmod 0644 "$TPL/team-a.json" "$TPL/broken.json"
mount --bind / "$W/rootfs" || ew_bail "cannot bind-mount / on $W/rootfs"
(cd "$W" && runc spec && mv config.json base.json) || ew_bail "runc spec failed"
DEVS=$(oci_devices) || ew_bail "no RDMA device nodes"

cat >"$W/config.toml" <<EOF
version = 2
root = "$W/root"
state = "$W/state"
disabled_plugins = ["io.containerd.grpc.v1.cri"]
[grpc]
  address = "$SOCK"
EOF
ew_start_bg "$W/containerd.log" / containerd --config "$W/config.toml"
ew_check "containerd $(containerd --version | awk '{ print $3 }') answers" \
	ew_wait_for 60 c version || { cat "$W/containerd.log"; ew_bail "no containerd"; }
took "set up"

# ----------------------------------------------------------------------------
# An annotated container: its job; its RDMA process connects

spec keep team-a '["sleep", "600"]'
ew_check "an annotated container starts (ctr run -d --config)" \
	c run -d --config "$W/spec.keep" keep
ew_check "its job oci-keep is bound to its cgroup, with team-a's peer and Q_Key" sh -c "
	'$CTL' -j show | jq -e --arg cg '$CGP/keep' '.jobs[] | select(.name == \"oci-keep\")
		| .cgroups == [\$cg] and .peers == [\"$LOOP/32\"] and .qkey == 4660'"
ew_expect_rc 0 "its RDMA process (ctr task exec) connects to its peer and carries data" \
	timeout 120 ctr --address "$SOCK" task exec --exec-id verbs keep sh -c "exec '$EW_TOP/selftests/tools/ew_verbs' rc-pair-hold $DEV $IDX 5 </dev/null"
ew_check "verified every message" grep -q "verified 5 messages each way" "$EW_OUT"
ew_check "ctr task kill stops it" c task kill -s KILL keep
ew_check "the task is stopped" ew_wait_for 30 sh -c "ctr --address '$SOCK' task ls | grep -q '^keep .*STOPPED'"
sleep 2
ew_check "its job stays while containerd keeps the stopped task" oci_job_of keep
ew_check "ctr task delete: the job and claim are gone" sh -c "
	ctr --address '$SOCK' task delete keep >/dev/null &&
	ctr --address '$SOCK' containers delete keep"
ew_check "no trace of it" no_trace keep

# ----------------------------------------------------------------------------
# No annotation; a broken template

spec plain - "[\"$EW_TOP/selftests/tools/ew_verbs\", \"rc-connect\", \"$DEV\", \"$IDX\", \"$LOOP\", \"self\"]"
ew_expect_rc 13 "a container without the annotation is refused (EACCES): no job" run_rm plain
ew_check "no job was created for it" no_trace plain

spec broken broken '["echo", "ran"]'
ew_check_not "a container whose template is broken is not started" run_rm broken
ew_check "ctr's error carries the hook's reason, the process never ran" sh -c "
	grep -q 'eastwest oci-hook: template broken .*unknown key' '$W/out.broken' &&
	! grep -qx ran '$W/out.broken'"
ew_diag "$(cat "$W/out.broken")"
ew_check "no job, no claim, no container left" no_trace broken

took "done"
ew_done
