#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 1
# ew-timeout: 300
#
# What audit mode let through must not outlive it. The rollout the admin
# guide recommends is audit mode first, enforce mode after: connections
# made meanwhile that enforce mode refuses (to a stranger, onto another
# job's QP on this node) were recorded, and switching the global mode to
# enforce must revoke them as `peer del` or `job set` would. Jobs A and B
# (peer 127.0.0.1) and C (peer 192.0.2.1 only) share rxe0 on lo; every job
# process runs as uid 65534.
#
#   - under `config set mode audit`: job A's victim, two RC QPs connected
#     to each other (allowed anyway); job B's RC QP connected onto job A's
#     QP (foreign-qp, audited); job C's RC QP connected to 127.0.0.1, not
#     its peer (peer, audited);
#   - `config set mode enforce`: job C's and job B's QPs are revoked
#     (QP_FATAL);
#   - the same with job B's own mode (`job set ewB mode audit`, a connect
#     onto job A's QP, `job set ewB mode enforce`): revoked;
#   - job C in audit mode connects onto job A's QP, audited for its peer
#     rule (the node's address is not its peer); `peer add` of the address,
#     then `job set ewC mode enforce`: revoked, the destination on this
#     node being another job's QP;
#   - a process in no job connects under `config set default allow`, then
#     `config set default deny`: its QP is revoked; likewise one that
#     connects under audit mode with default deny, then `mode enforce`;
#   - a process in no job connects in a cgroup that `job add` then binds:
#     its QP is revoked (the job never judged it); bound by a job in audit
#     mode, it is left alone until `job set ... mode enforce`;
#   - job A's victim is not revoked, and still carries its messages.
#
# Against a module that judged nothing again on a change of the global
# mode, the three revocation checks print "not ok"; against one that
# judged a job's records on its rules only, the last one does. Against one
# that revoked only what it had records of, the two no-job checks do.
# Against one that recorded a destination's locality only for modifies
# allowed outright, job C's onto job A's QP stays connected.

. "$(dirname "$0")/../lib.sh"

DEV=rxe0
CG=/sys/fs/cgroup
LOOP=127.0.0.1

ew_require_root
ew_require_cmd rdma setpriv mkfifo stdbuf
ew_require_built ctl verbs cgroup

ew_tmp_dir 755
ew_defer "rmdir $CG/ewA $CG/ewB $CG/ewC $CG/ewD $CG/ewE"
ew_defer "rdma link delete $DEV"
ew_defer "ew_rmmod"
ew_defer "ew_reap_all"

NOBODY=$(ew_nobody_script "$EW_TMP")

# revoked OUT PID: the rc-hold of PID printed "revoked" and exited 0.
revoked() {
	ew_reap "$2" 30 || return 1
	cat "$1"
	[ "$EW_REAP_RC" = 0 ] && grep -qx revoked "$1"
}

# both_connected: job A's pair, job B's and job C's QPs are connected.
both_connected() {
	grep -qx connected "$EW_TMP/victim" &&
		ew_wait_for 40 grep -qx connected "$EW_TMP/b" &&
		ew_wait_for 40 grep -qx connected "$EW_TMP/c"
}

# held_then_revoked OUT CG CONNECTED REVOKED CHANGE...: a process of cgroup
# CG (in no job) connects to $LOOP (TAP line CONNECTED), `eastwestctl
# CHANGE...` runs, and the QP must be revoked (TAP line REVOKED).
held_then_revoked() {
	_hr_out=$EW_TMP/$1 _hr_cg=$2 _hr_conn=$3 _hr_rev=$4
	shift 4
	ew_start_bg "$_hr_out" "$_hr_cg" "$NOBODY" stdbuf -oL "$VERBS" rc-hold "$DEV" "${IDX:-1}" "$LOOP" self 20
	_hr_pid=$EW_BG_PID
	ew_check "$_hr_conn" ew_wait_for 40 grep -qx connected "$_hr_out"
	ew_check "$*" "$CTL" "$@"
	ew_check "$_hr_rev" revoked "$_hr_out" "$_hr_pid"
}

# victim_ok: job A's process exits, with 0.
victim_ok() {
	ew_reap "$APID" 20 && [ "$EW_REAP_RC" = 0 ]
}

ew_plan 39

ew_check "eastwest.ko loads (enforce, default deny)" ew_load
ew_check "$DEV on lo" ew_rxe_add "$DEV" lo
IDX=$(ew_wait_gid_index "$DEV" "$LOOP" 20)
mkdir -p "$CG/ewA" "$CG/ewB" "$CG/ewC"
ew_check "jobs A, B (peer $LOOP) and C (peer 192.0.2.1)" sh -c "
	'$CTL' job add ewA cgroup /ewA peer $LOOP &&
	'$CTL' job add ewB cgroup /ewB peer $LOOP &&
	'$CTL' job add ewC cgroup /ewC peer 192.0.2.1"
ew_check "global audit mode" "$CTL" config set mode audit

mkfifo "$EW_TMP/fifo-a"
exec 3<>"$EW_TMP/fifo-a"
EW_BG_STDIN=$EW_TMP/fifo-a
ew_start_bg "$EW_TMP/victim" /ewA "$NOBODY" stdbuf -oL "$VERBS" rc-pair-hold "$DEV" "${IDX:-1}" 5
APID=$EW_BG_PID
EW_BG_STDIN=
ew_wait_for 60 grep -qx connected "$EW_TMP/victim"
V2=$(sed -n 's/^qp2 qpn \(0x[0-9a-f]*\) .*/\1/p' "$EW_TMP/victim")

ew_start_bg "$EW_TMP/b" /ewB "$NOBODY" stdbuf -oL "$VERBS" rc-hold "$DEV" "${IDX:-1}" "$LOOP" "${V2:-0x11}" 20
BPID=$EW_BG_PID
ew_start_bg "$EW_TMP/c" /ewC "$NOBODY" stdbuf -oL "$VERBS" rc-hold "$DEV" "${IDX:-1}" "$LOOP" self 20
CPID=$EW_BG_PID
ew_check "audit: job B's QP connects onto job A's QP ${V2:-none}, job C's to $LOOP" \
	both_connected
sed 's/^/# /' "$EW_TMP/b" "$EW_TMP/c"
ew_check "config set mode enforce" "$CTL" config set mode enforce
ew_check "enforce: job C's QP to a stranger is revoked" revoked "$EW_TMP/c" "$CPID"
ew_check "enforce: job B's QP onto job A's QP is revoked" revoked "$EW_TMP/b" "$BPID"
ew_check "the kernel log says so" sh -c \
	"dmesg | grep -q 'QP(s) revoked: enforce mode refuses what audit mode let through'"

# The same with job B's own mode: audit, a connect onto job A's QP, enforce.
ew_check "job set ewB mode audit" "$CTL" job set ewB mode audit
ew_start_bg "$EW_TMP/b2" /ewB "$NOBODY" stdbuf -oL "$VERBS" rc-hold "$DEV" "${IDX:-1}" "$LOOP" "${V2:-0x11}" 20
B2PID=$EW_BG_PID
ew_check "job B in audit mode: its QP connects onto job A's QP" \
	ew_wait_for 40 grep -qx connected "$EW_TMP/b2"
ew_check "job set ewB mode enforce" "$CTL" job set ewB mode enforce
ew_check "job B enforced: its QP onto job A's QP is revoked" revoked "$EW_TMP/b2" "$B2PID"

# Audit mode let a connect onto job A's QP through for another reason (the
# node's address is not job C's peer at all); the address becomes its peer,
# then enforce: the destination is still another job's QP on this node.
ew_check "job set ewC mode audit" "$CTL" job set ewC mode audit
ew_start_bg "$EW_TMP/c2" /ewC "$NOBODY" stdbuf -oL "$VERBS" rc-hold "$DEV" "${IDX:-1}" "$LOOP" "${V2:-0x11}" 20
C2PID=$EW_BG_PID
ew_check "job C in audit mode: its QP connects onto job A's QP (audited as peer)" \
	ew_wait_for 40 grep -qx connected "$EW_TMP/c2"
ew_check "peer add ewC $LOOP" "$CTL" peer add ewC "$LOOP"
ew_check "job set ewC mode enforce" "$CTL" job set ewC mode enforce
ew_check "job C enforced: its QP onto job A's QP is revoked" revoked "$EW_TMP/c2" "$C2PID"

# Processes in no job: while they are not policed nothing records their
# connections; once they are, what they hold must go.
ew_check "config set default allow" "$CTL" config set default allow
held_then_revoked n1 / "default allow: a process in no job connects to $LOOP" \
	"default deny: the QP of the process in no job is revoked" \
	config set default deny
ew_check "config set mode audit (default deny)" "$CTL" config set mode audit
held_then_revoked n2 / "audit: a process in no job connects to $LOOP" \
	"enforce: the QP of the process in no job is revoked" \
	config set mode enforce
ew_check "the kernel log counts them" sh -c \
	"dmesg | grep -q 'QP(s) connected in no job revoked'"

# A process in no job connects in a cgroup that a job created later binds:
# no rule of the job ever judged that connection.
mkdir -p "$CG/ewD"
ew_check "config set default allow (again)" "$CTL" config set default allow
held_then_revoked d /ewD "a process in cgroup /ewD, in no job yet, connects to $LOOP" \
	"job D's QP, connected before job D existed, is revoked" \
	job add ewD cgroup /ewD peer "$LOOP"
# The same under a job in audit mode: left alone until the job is enforced.
mkdir -p "$CG/ewE"
ew_start_bg "$EW_TMP/e" /ewE "$NOBODY" stdbuf -oL "$VERBS" rc-hold "$DEV" "${IDX:-1}" "$LOOP" self 40
EPID=$EW_BG_PID
ew_check "a process in cgroup /ewE, in no job yet, connects to $LOOP" \
	ew_wait_for 40 grep -qx connected "$EW_TMP/e"
ew_check "job add ewE cgroup /ewE peer $LOOP mode audit" \
	"$CTL" job add ewE cgroup /ewE peer "$LOOP" mode audit
ew_check "job E in audit mode: its earlier QP is left alone" \
	sh -c "sleep 3; ! grep -q revoked '$EW_TMP/e'"
ew_check "job set ewE mode enforce" "$CTL" job set ewE mode enforce
ew_check "job E enforced: its QP, connected before job E existed, is revoked" \
	revoked "$EW_TMP/e" "$EPID"
ew_check "config set default deny (again)" "$CTL" config set default deny

echo go >&3
ew_check "job A's victim is left alone: its messages verify" \
	ew_wait_for 30 grep -q '^verified' "$EW_TMP/victim"
sed 's/^/# victim: /' "$EW_TMP/victim"
ew_check "job A's process exits 0" victim_ok

ew_done
