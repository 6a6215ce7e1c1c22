#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 1
# ew-kernels: 6.12
# ew-timeout: 600
# ew-tcg: single
#
# The OCI hook under a real container engine: Debian's podman (with crun and
# conmon) runs containers from an image built here (podman import of a
# minimal root file system: static busybox, ew_verbs and the libraries and
# soft-RoCE provider it loads), and finds the hook where the repository
# installs it: `make -C integrations/oci install` (what the .deb ships) puts
# the hooks.d files in /usr/share/containers/oci/hooks.d, podman's default
# hooks directory, and `make -C userspace install` puts eastwestctl in
# /usr/sbin, where the hook finds it with the empty environment podman
# gives hooks. The host root is read-only in the guest: the test runs in
# its own mount namespace with tmpfs overlays on /usr and /etc.
#
# - Before the hook is installed, the annotation does nothing: the
#   container is in no job and refused (default deny).
# - Installed: a container annotated eastwest.io/job=team-a gets job
#   oci-<its 12-digit id>, bound to its own cgroup with the template's peer
#   and Q_Key; its RDMA process (podman exec, ew_verbs rc-pair-hold) connects
#   to its peer and carries verified data, counted as allowed in its job.
# - podman stop: the job and the hook's claim are gone; so they are when a
#   container (podman run --rm) exits by itself.
# - A container without the annotation is refused (EACCES), counted as
#   no-job.
# - A broken template (a misspelt key): podman does not start the
#   container, prints the hook's reason, and leaves no job and no claim.
#
# Each container's device program (crun attaches one to the container's
# cgroup, detaches it at the end) switches a static key on and off again,
# patching kernel text: hence its own boot under single-threaded TCG
# (ew-tcg).

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../oci-lib.sh"

# Our own mount namespace: the overlays below must not outlive the test.
if [ -z "${EW_PODMAN_NS:-}" ]; then
	EW_PODMAN_NS=1 exec unshare -m --propagation private sh "$0" "$@"
fi

DEV=rxe0
LOOP=127.0.0.1
W=/run/ew-podman
IMG=localhost/ew-rdma:test
HOOKSD=/usr/share/containers/oci/hooks.d
TPL=/etc/eastwest/oci
STATE=/run/eastwest/oci

ew_require_root
ew_require_cmd podman crun conmon jq rdma unshare ldd make
ew_require_built ctl verbs cgroup
[ -x "$EW_TOP/integrations/oci/oci-hook" ] || ew_skip "oci-hook is not built (make -C integrations/oci)"
[ -x /bin/busybox ] || ew_skip "no static busybox for the image"

ew_defer "rm -rf $W $STATE"
ew_defer "umount /etc /usr"
ew_defer "ew_rmmod"
ew_defer "rdma link delete $DEV"
ew_defer "pm rm -a -f -t 0"
ew_defer "ew_reap_all"
ew_defer "rm -f /dev/log"

ew_plan 32

T0=$(date +%s)
took() {
	ew_diag "[$(($(date +%s) - T0)) s] $*"
}

# pm ARGS...: podman with its storage and state on tmpfs (vfs: no overlay
# on tmpfs needed), cgroups by cgroupfs (no systemd in the guest), the
# runtime $RT (default crun, Debian podman's default; or runc).
pm() {
	podman --root "$W/storage" --runroot "$W/runroot" --tmpdir "$W/libpod" \
		--storage-driver vfs --cgroup-manager cgroupfs --events-backend file \
		--runtime "${RT:-crun}" "$@"
}

# with_runc CMD...: CMD with podman running containers by runc.
with_runc() {
	RT=runc
	"$@"
	_rc=$?
	RT=crun
	return "$_rc"
}

# pm_run ARGS...: podman run of the test image with what RDMA needs: the
# uverbs and rdma_cm devices, CAP_IPC_LOCK, the host's network (soft-RoCE's
# sockets and routes are in the initial network namespace).
pm_run() {
	pm run --network host --log-driver k8s-file \
		--device /dev/infiniband/uverbs0 --device /dev/infiniband/rdma_cm \
		--cap-add IPC_LOCK "$@"
}

# no_oci_jobs: no job of any container and no claim.
no_oci_jobs() {
	"$CTL" -j show | jq -e '[.jobs[] | select(.name | startswith("oci-"))] == []' >/dev/null ||
		{ "$CTL" job show; return 1; }
	oci_no_trace none
}

# bound_ok ID: container ID's job holds exactly the cgroup of the
# container's init, team-a's peer and Q_Key.
bound_ok() {
	_pid=$(pm inspect --format '{{.State.Pid}}' "$1") || return 1
	_cg=$(sed -n 's/^0:://p' "/proc/$_pid/cgroup")
	_job=$(oci_job_of "$1") || { echo "no job for $1"; return 1; }
	echo "init $_pid in cgroup $_cg; job $_job"
	echo "$_job" | jq -e --arg cg "$_cg" --arg peer "$LOOP/32" \
		'.cgroups == [$cg] and .peers == [$peer] and .qkey == 4660' >/dev/null
}

# hook_in_config ID: the OCI configuration podman wrote for container ID
# runs the installed hook at createRuntime (it came from hooks.d).
hook_in_config() {
	_cfg=$(find "$W/storage" -path "*/$1/userdata/config.json" | head -n 1)
	[ -n "$_cfg" ] || { echo "no config.json of $1"; return 1; }
	jq -c '.hooks' "$_cfg"
	jq -e '.hooks.createRuntime[0].path == "/usr/lib/eastwest/oci-hook"' "$_cfg" >/dev/null
}

# allowed_in ID: the allowed counter of container ID's job.
allowed_in() {
	"$CTL" -j stats | jq -e --arg n "oci-$(printf %.12s "$1")" \
		'.jobs[] | select(.name == $n) | .counters.allowed'
}

# not_started NAME ERE: podman run of container NAME (annotated with
# template NAME) fails, its process never printed "ran", and podman's error
# matches ERE.
not_started() {
	if pm_run --name "$1" --annotation "eastwest.io/job=$1" "$IMG" echo ran >"$W/out.$1" 2>&1; then
		echo "podman run $1 succeeded"
		cat "$W/out.$1"
		return 1
	fi
	cat "$W/out.$1"
	! grep -q '^ran$' "$W/out.$1" && grep -qE -- "$2" "$W/out.$1"
}

# ----------------------------------------------------------------------------
# Setup: module, rxe on lo, the overlays, the image

ew_load_rxe_lo

oci_overlay_usr_etc "$W" || ew_bail "no overlays on /usr and /etc"
# The host this guest boots from may have eastwest installed from its
# package (the suite's packaging step installs it): hide its hooks.d files
# in the overlay, so that "not installed yet" below is true.
rm -f "$HOOKSD"/*eastwest* /etc/containers/oci/hooks.d/*eastwest*
ew_check "no eastwest hook in hooks.d before the install" \
	sh -c "! ls $HOOKSD/*eastwest* /etc/containers/oci/hooks.d/*eastwest* 2>/dev/null | grep -q ."

# The image: busybox, ew_verbs, the libraries ldd names for it and for the
# rxe provider libibverbs loads, and the provider's driver file.
R=$W/rootfs
mkdir -p "$R/bin" "$R/etc/libibverbs.d" "$R/proc" "$R/sys" "$R/dev" "$R/tmp"
cp /bin/busybox "$R/bin/" && for c in sh sleep echo cat; do ln -s busybox "$R/bin/$c"; done
cp "$VERBS" "$R/bin/ew_verbs"
PROV=$(ls /usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav*.so)
cp /etc/libibverbs.d/rxe.driver "$R/etc/libibverbs.d/"
LIBS=$( (ldd "$VERBS"; ldd "$PROV") | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^\//) print $i }' | sort -u)
for f in $LIBS "$PROV"; do
	cp --parents -L "$f" "$R" || ew_bail "cannot copy $f"
done
ew_check "podman import builds the image from a tarball of it" \
	sh -c "tar -C '$R' -c . | podman --root '$W/storage' --runroot '$W/runroot' --tmpdir '$W/libpod' \
		--storage-driver vfs --cgroup-manager cgroupfs --events-backend file \
		import - '$IMG'" || ew_bail "no image"
# A syslog daemon, as on any node: the hook logs there too.
[ -e /dev/log ] && ew_bail "/dev/log exists: another syslog is running"
ew_start_bg "$W/syslogd.out" / busybox syslogd -n -O "$W/syslog"
ew_check "busybox syslogd listens on /dev/log" ew_wait_for 10 test -S /dev/log
took "set up"

mkdir -p /etc/eastwest/oci
printf '{"description": "loopback", "peers": ["%s"], "qkey": 4660}\n' "$LOOP" >"$TPL/team-a.json"
printf '{"peer": ["%s"]}\n' "$LOOP" >"$TPL/broken.json"
chmod 0644 "$TPL/team-a.json" "$TPL/broken.json"

# ----------------------------------------------------------------------------
# Not installed yet: the annotation alone gives no job

ew_expect_rc 13 "without the hook in hooks.d, an annotated container is refused (no job)" \
	pm_run --rm --annotation eastwest.io/job=team-a "$IMG" ew_verbs rc-connect "$DEV" "$IDX" "$LOOP" self

# ----------------------------------------------------------------------------
# Installed as the repository installs it

ew_check "make -C integrations/oci install (PREFIX=/usr)" \
	make -s -C "$EW_TOP/integrations/oci" install PREFIX=/usr
ew_check "make -C userspace install (eastwestctl in /usr/sbin)" \
	make -s -C "$EW_TOP/userspace" install PREFIX=/usr
ew_check "the hooks.d files are in podman's default $HOOKSD" \
	test -f "$HOOKSD/50-eastwest-create.json" -a -f "$HOOKSD/50-eastwest-remove.json"

# An annotated container: its job, bound to its cgroup; its RDMA process
# connects to its peer (its own QPs, over $LOOP) and carries data.
ew_check "an annotated container starts (podman run -d)" \
	pm_run -d --name keep --annotation eastwest.io/job=team-a "$IMG" sleep 600
ID=$(pm inspect --format '{{.Id}}' keep)
ew_diag "container keep is $ID"
ew_check "podman put the hook from hooks.d in its configuration" hook_in_config "$ID"
ew_check "its job oci-$(printf %.12s "$ID") is bound to its cgroup, with team-a's peer and Q_Key" \
	bound_ok "$ID"
before=$(allowed_in "$ID")
ew_expect_rc 0 "its RDMA process (podman exec) connects to its peer and carries data" \
	pm exec keep ew_verbs rc-pair-hold "$DEV" "$IDX" 5
ew_check "verified every message" grep -q "verified 5 messages each way" "$EW_OUT"
ew_check "counted as allowed in its job" test "$(allowed_in "$ID")" -gt "${before:-0}"
ew_check "podman stop stops it" pm stop -t 0 keep
ew_check "its job and claim are gone once it stopped" ew_wait_for 30 oci_no_trace "$ID"
ew_check "podman rm removes it" pm rm keep

# A container that runs to its end (podman run --rm): allowed while it
# runs, its job gone when it has exited
ew_expect_rc 0 "an annotated container's own connect is allowed (podman run --rm)" \
	pm_run --rm --name once --annotation eastwest.io/job=team-a "$IMG" \
	ew_verbs rc-connect "$DEV" "$IDX" "$LOOP" self
ew_check "after it exited by itself, no job and no claim are left" no_oci_jobs

# No annotation: no job, refused
before=$("$CTL" -j stats | jq -e '.global.denied_no_job')
ew_expect_rc 13 "a container without the annotation is refused (EACCES)" \
	pm_run --rm "$IMG" ew_verbs rc-connect "$DEV" "$IDX" "$LOOP" self
ew_check "counted as no-job" \
	test "$("$CTL" -j stats | jq -e '.global.denied_no_job')" -eq $((before + 1))
ew_check "no job was created for it" no_oci_jobs

# A broken template: the container does not start. crun reports only the
# hook's exit code (it sends hooks' stderr to /dev/null): the hook's reason
# is in syslog. runc puts the hook's stderr in its error.
ew_check "a container whose template is broken is not started (crun: the hook's exit 4)" \
	not_started broken 'error executing hook `/usr/lib/eastwest/oci-hook` \(exit code: 4\)'
ew_check "the hook's reason is in syslog" \
	grep -q 'eastwest-oci-hook\[[0-9]*\]: template broken .*unknown key "peer"' "$W/syslog"
ew_check "no job and no claim are left" oci_no_trace "$(pm inspect --format '{{.Id}}' broken)"
ew_check "podman rm removes it" pm rm -f broken
ew_check "with runc: not started either, and podman's error carries the hook's reason" \
	with_runc not_started broken 'eastwest oci-hook: template broken .*unknown key \\?"peer'
ew_diag "$(cat "$W/out.broken")"
ew_check "no job and no claim are left" oci_no_trace "$(pm inspect --format '{{.Id}}' broken)"
ew_check "podman rm removes it" pm rm -f broken
ew_check "no container is left" test -z "$(pm ps -a -q)"

took "done"
ew_done
