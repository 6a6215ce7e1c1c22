# SPDX-License-Identifier: GPL-2.0
# Helpers of the container tests (oci.sh, oci-jobaddr.sh, containerd.sh,
# podman.sh), sourced after lib.sh; they expect $CTL (eastwestctl).

# oci_job_of ID: the node's policy entry for container ID's job (JSON), or
# fail. The OCI hook names a container's job "oci-" and the first 12
# characters of its ID. eastwestctl's output is checked first: jq 1.6 -e
# exits 0 on empty input, so a failing eastwestctl (no module) would read
# as "the job exists".
oci_job_of() {
	_oj_show=$("$CTL" -j show) || {
		echo "oci_job_of: eastwestctl -j show failed" >&2
		return 1
	}
	printf '%s\n' "$_oj_show" |
		jq -e -c --arg n "oci-$(printf %.12s "$1")" '.jobs[] | select(.name == $n)'
}

# oci_runc_dirs DIR: the runc test bed's hook and directories, as
# oci_bundle and oci_runc_run expect them: HOOK (the tree's oci-hook), W
# (DIR) and below it TPL (templates), STATE (the hook's claims), ROOTFS and
# RUNC_ROOT (runc's state).
# shellcheck disable=SC2034 # for the caller and the helpers below
oci_runc_dirs() {
	HOOK=$EW_TOP/integrations/oci/oci-hook
	W=$1
	TPL=$W/templates
	STATE=$W/state
	ROOTFS=$W/rootfs
	RUNC_ROOT=$W/runc
}

# oci_no_trace ID: container ID has no job and the hook keeps no claim (in
# $STATE); says which is left.
oci_no_trace() {
	if oci_job_of "$1"; then
		echo "job oci-$(printf %.12s "$1") still exists"
		return 1
	fi
	if [ -n "$(ls -A "$STATE" 2>/dev/null)" ]; then
		echo "claims left: $(ls -A "$STATE")"
		return 1
	fi
}

# oci_devices: the JSON of the RDMA device nodes and their cgroup device
# rules, for a container's spec.
oci_devices() {
	for d in /dev/infiniband/uverbs0 /dev/infiniband/rdma_cm; do
		[ -c "$d" ] || { echo "no $d" >&2; return 1; }
		printf '%s %d %d\n' "$d" "0x$(stat -c %t "$d")" "0x$(stat -c %T "$d")"
	done | jq -R -s -c 'split("\n") | map(select(. != "") | split(" ")
		| {path: .[0], major: (.[1] | tonumber), minor: (.[2] | tonumber)})
		| {nodes: map(. + {type: "c", fileMode: 438, uid: 0, gid: 0}),
		   rules: map({allow: true, type: "c", major, minor, access: "rwm"})}'
}

# oci_overlay_usr_etc DIR: a tmpfs on DIR, and overlays on /usr and /etc
# (their upper layers in DIR), so that a test can install into both; call
# it in a mount namespace of the test's own (unshare -m), which takes them
# away when the test ends.
oci_overlay_usr_etc() {
	mkdir -p "$1"
	mount -t tmpfs tmpfs "$1" || { echo "no tmpfs on $1"; return 1; }
	for _oo_d in usr etc; do
		mkdir -p "$1/ov/$_oo_d/up" "$1/ov/$_oo_d/work"
		mount -t overlay overlay \
			-o "lowerdir=/$_oo_d,upperdir=$1/ov/$_oo_d/up,workdir=$1/ov/$_oo_d/work" \
			"/$_oo_d" || { echo "no overlay on /$_oo_d"; return 1; }
	done
}

# oci_runc_run ID: run container ID's bundle ($W/bundles/ID) in the
# foreground under runc --root $RUNC_ROOT; its output (and runc's) goes to
# $W/out.ID; returns runc's exit status (the container's, or 1 if runc
# failed to start it). The time since $T0 goes to $W/times.
oci_runc_run() {
	runc --root "$RUNC_ROOT" run -b "$W/bundles/$1" "$1" >"$W/out.$1" 2>&1
	_rc=$?
	echo "[$(($(date +%s) - T0)) s] runc run $1: exit $_rc" >>"$W/times"
	return "$_rc"
}

# oci_not_started ID ERE: runc failed to start container ID (its process
# never printed "ran"), and runc's error carries the hook's message
# matching ERE.
oci_not_started() {
	if oci_runc_run "$1"; then
		echo "runc run $1 succeeded"
		cat "$W/out.$1"
		return 1
	fi
	cat "$W/out.$1"
	! grep -q '^ran$' "$W/out.$1" && grep -qE -- "$2" "$W/out.$1"
}

# oci_spec ROOT CGROUP TEMPLATE|- ARGS_JSON HOOKS [JQ_OPTION...]: print a
# container's spec made from $W/base.json: root ROOT (read-only), process
# ARGS_JSON (no terminal, CAP_IPC_LOCK added), cgroup CGROUP, the host's
# network, the RDMA devices $DEVS, the annotation naming TEMPLATE (- for
# none) and .hooks = HOOKS, a jq expression (of the JQ_OPTIONs' variables).
oci_spec() {
	_os_root=$1
	_os_cg=$2
	_os_tmpl=$3
	_os_args=$4
	_os_hooks=$5
	shift 5
	jq --arg root "$_os_root" --arg cg "$_os_cg" --arg tmpl "$_os_tmpl" \
		--argjson args "$_os_args" --argjson devs "$DEVS" "$@" '
	.root = {path: $root, readonly: true}
	| .process.terminal = false
	| .process.args = $args
	| .process.capabilities |= with_entries(.value += ["CAP_IPC_LOCK"])
	| .linux.cgroupsPath = $cg
	| .linux.namespaces |= map(select(.type != "network"))
	| .linux.devices = $devs.nodes
	| .linux.resources.devices += $devs.rules
	| .annotations = (if $tmpl == "-" then {} else {"eastwest.io/job": $tmpl} end)
	| .hooks = '"$_os_hooks" "$W/base.json"
}

# oci_bundle ID TEMPLATE|- ARGS_JSON [CGROUP]: write container ID's config.json
# ($W/bundles/ID/config.json from $W/base.json, root $ROOTFS, devices $DEVS,
# the hook $HOOK with templates $TPL, state $STATE and eastwestctl $CTL):
# the template named in the annotation (- for none), the process, and its
# cgroup (default $CGP/ID).
oci_bundle() {
	mkdir -p "$W/bundles/$1"
	# shellcheck disable=SC2016 # jq's variables, for jq
	oci_spec "$ROOTFS" "${4:-$CGP/$1}" "$2" "$3" '{
		createRuntime: [{path: $hook, timeout: 60, env: ["EW_CTL=" + $ctl],
			args: ["oci-hook", "--templates", $tpl, "--state-dir", $state, "createRuntime"]}],
		poststop: [{path: $hook, timeout: 60, env: ["EW_CTL=" + $ctl],
			args: ["oci-hook", "--templates", $tpl, "--state-dir", $state, "poststop"]}]
	  }' --arg hook "$HOOK" --arg tpl "$TPL" --arg state "$STATE" --arg ctl "$CTL" \
		>"$W/bundles/$1/config.json"
}
