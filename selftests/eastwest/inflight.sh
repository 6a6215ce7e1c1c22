#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 1
# ew-timeout: 400
# ew-kernels: 6.1
#
# No decision in flight escapes a narrowing change. A connect reads the
# rules, is allowed, and only then reaches the driver and its record: a
# peer del, job set, node revoke, admission closing or job del that runs
# in between must still catch it. The fault build (eastwest-fault.ko) holds
# every allowed modify that sets an address vector for
# fault_modify_delay_ms between its decision and the driver's modify; the
# test waits until a connect of job ewR (rxe0 on lo, towards 127.0.0.1,
# its own QP) sleeps there (fault_modify_held), then narrows the rules.
# The connect's INIT->RTR then reaches the driver (it was allowed), and
# the QP must be revoked at once: the module logs "revoked qpn 0xQPN" for
# it, and ew_verbs rc-hold sees QP_FATAL ("revoked") if it got as far as
# RTS (its RTR->RTS may also be refused, as under admission closing: the
# QP then sat in RTR, receiving, unless revoked). Never a live connection
# left (rc-hold exit 3), nor a QP in RTR that was not revoked. The same
# holds for a connect by a process in no job when default deny begins. Each case
# also checks that the change returned while the connect was still held
# (no "connected" yet); a control case with no change shows the held
# connect stays up and is not revoked. Under global audit mode a connect
# its job's rules refuse is let through, and a QP destroyed while it is
# held (any process's destroy moves the policy sequence) must not have it
# revoked when it lands: audit touches nothing (against 010530e the
# commit's re-check revoked it). Last, the sweep of connected QPs
# without records is held (fault_sweep_delay_ms) with a no-job QP's modify
# lock: its owner's RESET must wait for it.

. "$(dirname "$0")/../lib.sh"

DEV=rxe0
CG=/sys/fs/cgroup
LOOP=127.0.0.1
FP=/sys/module/eastwest/parameters
FAULT_KO=${EW_FAULT_KO:-$EW_SHARED/eastwest-fault.ko}
# How long the connect is held (ms).
HOLD_MS=3000

ew_require_root
ew_require_cmd rdma setpriv
ew_require_built ctl verbs cgroup
[ -f "$FAULT_KO" ] || ew_skip "no fault build at $FAULT_KO (make module-fault)"

# 755: the unprivileged owner of sweep_reset runs the nobody script in it.
ew_tmp_dir 755
ew_defer "rmdir $CG/ewR"
ew_defer "rdma link delete $DEV"
ew_defer "ew_rmmod"
ew_defer "ew_reap_all"

# job_fresh: job ewR with the one peer 127.0.0.1 (HELD_PEER if set),
# admission open.
job_fresh() {
	"$CTL" job del ewR >/dev/null 2>&1
	"$CTL" node admit "$LOOP" >/dev/null 2>&1
	"$CTL" config set admission-required off >/dev/null 2>&1
	"$CTL" job add ewR cgroup /ewR peer "${HELD_PEER:-$LOOP}" >/dev/null
}

# held NAME WANT CHANGE...: a connect of job ewR (of cgroup HELD_CG if set,
# "" for the root cgroup: no job) held inside the window,
# CHANGE run once it sleeps there. WANT "revoked": the QP's revocation is
# logged and rc-hold did not see it live after its wait; "kept": the
# connection stayed up and nothing revoked it. With HELD_WAITS=1 the
# change may wait for the held modify (job del revokes the job's QPs under
# their modify locks, as does admission closing: every record fails), so
# it need not return inside the window.
held() {
	_name=$1 _want=$2
	shift 2
	job_fresh || { echo "job ewR cannot be set up"; return 1; }
	# QPNs start again at 0x11 with each rxe device: only this case's log.
	ew_dmesg_mark || return 1
	echo "$HOLD_MS" >"$FP/fault_modify_delay_ms" || return 1
	ew_start_bg "$EW_TMP/$_name.out" "${HELD_CG-/ewR}" "$VERBS" rc-hold "$DEV" "$IDX" "$LOOP" self 6
	_pid=$EW_BG_PID
	if ! ew_wait_for 60 grep -qx 1 "$FP/fault_modify_held"; then
		echo 0 >"$FP/fault_modify_delay_ms"
		ew_reap "$_pid" 30
		sed 's/^/#   rc-hold: /' "$EW_TMP/$_name.out"
		echo "# the connect never reached the window"
		return 1
	fi
	_rc=0
	if [ $# -gt 0 ]; then
		"$@" >"$EW_TMP/$_name.change" 2>&1 || _rc=$?
	fi
	if grep -q connected "$EW_TMP/$_name.out"; then
		_early=1
	else
		_early=0
	fi
	echo 0 >"$FP/fault_modify_delay_ms"
	ew_reap "$_pid" 30
	sed 's/^/#   rc-hold: /' "$EW_TMP/$_name.out"
	[ "$_rc" -eq 0 ] || { echo "# the change failed ($_rc):"; sed 's/^/#   /' "$EW_TMP/$_name.change"; return 1; }
	[ "$_early" -eq 0 ] || [ "${HELD_WAITS:-0}" -eq 1 ] ||
		{ echo "# the connect was already up when the change returned: not in the window"; return 1; }
	_qpn=$(sed -n 's/^qpn \(0x[0-9a-f]*\)$/\1/p' "$EW_TMP/$_name.out")
	[ -n "$_qpn" ] || { echo "# rc-hold printed no QPN"; return 1; }
	if ew_dmesg_since_mark "revoked qpn $_qpn " >/dev/null; then
		_revoked=1
	else
		_revoked=0
	fi
	echo "# qpn $_qpn: rc-hold exit $EW_REAP_RC, revocation logged: $_revoked"
	if [ "$_want" = kept ]; then
		[ "$EW_REAP_RC" = 3 ] && [ "$_revoked" -eq 0 ]
		return
	fi
	# A process in no job: the sweep waits for the held connect's lock,
	# and the owner's next modify (RTR->RTS, refused under default deny)
	# may take the lock first; rc-hold then exits and destroys its QP
	# before the sweep looks at it. No QP was left in RTR either way.
	if [ "$_revoked" -eq 0 ] && [ "${HELD_CG-/ewR}" = "" ] &&
	   [ "$EW_REAP_RC" = 13 ] &&
	   grep -q 'modify RTR->RTS: Permission denied' "$EW_TMP/$_name.out"; then
		echo "# its RTR->RTS was refused and its owner destroyed it before the sweep reached it"
		return 0
	fi
	[ "$_revoked" -eq 1 ] || { echo "# the QP was not revoked"; return 1; }
	[ "$EW_REAP_RC" != 3 ] || { echo "# the connection was left up"; return 1; }
}

# sweep_reset: a process in no job (uid 65534, no capabilities), not
# policed under default allow, has its QP connected (RTS); default deny
# begins and the sweep of connected QPs without records, held by the fault build with the QP's modify lock
# once it has found the QP connected, is about to move it to ERR. The
# owner's RESET then must wait for the sweep (rxe in 6.1 does not
# serialise a RESET beside an ERR: its responder crashed, hardening.md R2),
# so when the RESET returns the sweep must no longer be held.
sweep_reset() {
	"$CTL" config set default allow >/dev/null || return 1
	ew_dmesg_mark || return 1
	_out=$EW_TMP/sweep-reset.out
	ew_start_stepwise "$_out" "" "$(ew_nobody_script "$EW_TMP")" \
		"$VERBS" rc-stepwise "$DEV" "$IDX" "$LOOP" self reset || return 1
	_pid=$EW_BG_PID
	echo go >&3
	echo go >&3
	_ok=0
	if ew_wait_for 60 grep -qx 'rts: OK' "$_out" &&
	   echo "$HOLD_MS" >"$FP/fault_sweep_delay_ms"; then
		"$CTL" config set default deny >"$EW_TMP/sweep-reset.change" 2>&1 &
		_cfg=$!
		if ew_wait_for 60 grep -qx 1 "$FP/fault_sweep_held"; then
			echo go >&3
			if ew_wait_for 60 grep -q '^reset:' "$_out"; then
				_held=$(cat "$FP/fault_sweep_held")
				echo "# when the RESET returned, sweeps held: $_held"
				[ "$_held" = 0 ] && _ok=1
			else
				echo "# the RESET never returned"
			fi
		else
			echo "# the sweep never reached its hold"
		fi
		wait "$_cfg" || { echo "# config set default deny failed:"; _ok=0; }
		sed 's/^/#   /' "$EW_TMP/sweep-reset.change"
	else
		echo "# the QP did not reach RTS"
	fi
	echo 0 >"$FP/fault_sweep_delay_ms"
	echo exit >&3
	exec 3>&-
	ew_reap "$_pid" 30
	sed 's/^/#   rc-stepwise: /' "$_out"
	grep -qx 'reset: OK' "$_out" || { echo "# the RESET did not pass"; _ok=0; }
	ew_dmesg_since_mark "1 QP\\(s\\) connected in no job revoked" >/dev/null ||
		{ echo "# the sweep revoked nothing"; _ok=0; }
	[ "$_ok" = 1 ]
}

# qp_made_and_destroyed: a QP of this process (root, no job) made and,
# as the process exits, destroyed; its one modify's verdict does not matter.
qp_made_and_destroyed() {
	"$VERBS" claim-state "$DEV" rc reset init | grep -q '^qpn 0x'
}

ew_plan 13

mkdir -p "$CG/ewR"
ew_check "$DEV on lo" ew_rxe_add "$DEV" lo
IDX=$(ew_wait_gid_index "$DEV" "$LOOP")
ew_check "GID of $LOOP found (index ${IDX:-none})" test -n "$IDX"
EW_KO=$FAULT_KO
ew_check "the fault build loads" ew_load
ew_check "it has fault_modify_delay_ms" test -w "$FP/fault_modify_delay_ms"

ew_check "control: a held connect with no change stays connected" held control kept
# Global audit: the connect its job refuses (no peer 127.0.0.1) is let
# through; a process in no job destroys a QP of its own meanwhile.
"$CTL" config set mode audit >/dev/null
HELD_PEER=192.0.2.1
ew_check "global audit: a QP destroyed while a refused connect is held: kept" \
	held audit-destroy kept qp_made_and_destroyed
unset HELD_PEER
"$CTL" config set mode enforce >/dev/null
ew_check "peer del while a connect is held: revoked when it lands" \
	held peer-del revoked "$CTL" peer del ewR "$LOOP"
ew_check "job set (other peers) while a connect is held: revoked when it lands" \
	held job-set revoked "$CTL" job set ewR peer 192.0.2.1
ew_check "node revoke while a connect is held: revoked when it lands" \
	held node-revoke revoked "$CTL" node revoke "$LOOP"
HELD_WAITS=1
ew_check "admission closing while a connect is held: revoked when it lands" \
	held admission revoked "$CTL" config set admission-required on
"$CTL" config set admission-required off >/dev/null 2>&1
ew_check "job del while a connect is held: revoked when it lands" \
	held job-del revoked "$CTL" job del ewR
# A process in no job is not policed under default allow, and its QPs
# have no records: when default deny begins, the sweep of connected QPs
# without records must also catch the connect it let through, which waits
# for the modify lock the held connect holds.
"$CTL" config set default allow >/dev/null
HELD_CG=
ew_check "default deny while a connect in no job is held: revoked when it lands" \
	held no-job revoked "$CTL" config set default deny
unset HELD_CG
HELD_WAITS=0
ew_check "default deny: the owner's RESET waits for the sweep holding its QP" \
	sweep_reset
"$CTL" config set default deny >/dev/null 2>&1
"$CTL" job del ewR >/dev/null 2>&1
ew_done
