#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 1
# ew-kernels: 6.1
# ew-timeout: 300
#
# eastwest.service's program (packaging/eastwest-service; installed as
# /usr/lib/eastwest/eastwest-service), run the way systemd runs it:
#   - start in enforce mode closes the fabric before any job exists (admission
#     required): a job process cannot connect until the node is admitted;
#   - start applies the static policy; reload re-reads it and keeps the jobs
#     created at run time (as the Slurm and OCI hooks create them), also those
#     made while it runs (its apply is a compare-and-set, which a run-time
#     job's netdev rule, shown by its interface's name, does not upset:
#     against c38d3e4 every reload failed while one existed); a static
#     job renamed in the policy file is renamed (its cgroup moves), one taken
#     out is deleted, by reload and at the next start;
#   - stop saves every job and the revoked nodes; after a module reload,
#     start revokes those nodes again and restores the static policy and
#     every saved job whose cgroup still exists, and not the others; a job
#     with keyed PSNs gets its key from the cluster key file (EW_PSN_KEYFILE),
#     the key its saved check value names; once the key file has changed
#     (rotated), the key derived again is not the job's: the job is left
#     out, named, and the others are restored;
#   - start raises kernel.yama.ptrace_scope to 1 (EW_PTRACE_SCOPE), so that a
#     job's process cannot take another job's connections from a process of
#     the same user; EW_PTRACE_SCOPE=keep leaves it;
#   - a broken policy file fails start with nothing applied; bad settings are
#     usage errors (exit 2).

. "$(dirname "$0")/../lib.sh"

DEV=rxe0
CG=/sys/fs/cgroup
SVC=$EW_TOP/packaging/eastwest-service
LOOP=127.0.0.1

ew_require_root
ew_require_cmd rdma jq
ew_require_built ctl verbs cgroup

ew_defer "rmdir $CG/ewsvc-static $CG/ewsvc-dyn $CG/ewsvc-gone $CG/ewsvc-keyed"
ew_defer "rmdir $CG/ewsvc-rt1 $CG/ewsvc-rt2 $CG/ewsvc-rt3 $CG/ewsvc-rt4"
ew_defer "rdma link delete $DEV"
ew_defer "ew_rmmod"

T=$(mktemp -d)
ew_defer "rm -rf $T"
export EW_CTL="$CTL" EW_POLICY="$T/policy.json" EW_STATE="$T/state/state.json"
export EW_DEFAULTS="$T/default" EW_PSN_KEYFILE="$T/cluster.key"

# policy PEERS...: the static policy, one job "static" (EW_STATIC_NAME) with
# these peers.
policy() {
	peers=$(printf '"%s",' "$@")
	cat >"$EW_POLICY" <<-END
	{ "config": { "mode": "enforce", "default_action": "deny" },
	  "jobs": [ { "name": "${EW_STATIC_NAME:-static}", "cgroups": ["/ewsvc-static"],
	              "peers": [${peers%,}] } ] }
	END
}

# svc ACTION: eastwest-service ACTION, its words logged; on failure, what it
# said this time goes to the check's output too.
svc() {
	_from=$(($(wc -l <"$T/svc.log" 2>/dev/null || echo 0) + 1))
	"$SVC" "$@" >>"$T/svc.log" 2>&1 && return 0
	_rc=$?
	tail -n "+$_from" "$T/svc.log" | sed 's/^/svc: /' >&2
	return "$_rc"
}
jobs_are() { # NAMES (sorted, space-separated)
	got=$("$CTL" -j job show | jq -r '[.[].name] | sort | join(" ")')
	[ "$got" = "$1" ] || { echo "jobs: '$got', expected '$1'" >&2; return 1; }
}
peers_of_static() {
	"$CTL" -j peer show static | jq -r '(if type == "array" then .[0] else . end).peers | sort | join(" ")'
}
config_field() { "$CTL" -j config show | jq -r ".$1"; }
connect_static() { ew_in_cg /ewsvc-static "$VERBS" rc-connect "$DEV" "$IDX" "$LOOP" self; }

ew_plan 52

mkdir -p "$CG/ewsvc-static" "$CG/ewsvc-dyn" "$CG/ewsvc-gone" "$CG/ewsvc-keyed"
head -c 32 /dev/urandom >"$EW_PSN_KEYFILE"
chmod 600 "$EW_PSN_KEYFILE"
echo "EW_ADMISSION=attest" >"$EW_DEFAULTS"
# The service raises Yama's ptrace_scope: this boot's later tests get the
# kernel's own value back.
YAMA=/proc/sys/kernel/yama/ptrace_scope
SCOPE0=$(cat "$YAMA")
ew_defer "echo $SCOPE0 >$YAMA"
echo 0 >"$YAMA"
policy 127.0.0.0/8

ew_check "eastwest.ko loads" ew_load
ew_check "$DEV on lo" ew_rxe_add "$DEV" lo
IDX=$(ew_wait_gid_index "$DEV" "$LOOP")
ew_check "GID of $LOOP found (index ${IDX:-none})" test -n "$IDX"

# --- start: closed until admitted ---------------------------------------------
ew_check "start (EW_ADMISSION=attest, enforce)" svc start
ew_check "start raised kernel.yama.ptrace_scope from 0 to 1, and said so" sh -c "
	[ \$(cat $YAMA) = 1 ] && grep -q 'ptrace_scope 0 -> 1' '$T/svc.log'"
ew_check "admission required after start" test "$(config_field admission_required)" = true
ew_check "the static job exists" jobs_are static
ew_expect_rc 13 "fabric closed: the static job cannot connect before admission" connect_static
ew_check "admit the node (what eastwest-attest does)" "$CTL" config set admission admitted
ew_expect_rc 0 "admitted: the static job connects" connect_static

# --- reload keeps run-time jobs -----------------------------------------------
# Its netdev rule names an interface, as the prolog's per-job address
# does: `show -j` prints the name, which reload's compare must resolve.
ew_check "a run-time job (as a Slurm prolog makes it, netdev lo)" \
	"$CTL" job add dyn cgroup /ewsvc-dyn peer 10.1.0.0/16 netdev lo
ew_check "and one whose job will end" "$CTL" job add gone cgroup /ewsvc-gone peer 10.2.0.0/16
ew_check "and one with keyed PSNs (as the prolog makes it for psn keyed)" \
	"$CTL" job add keyed cgroup /ewsvc-keyed peer 10.3.0.0/16 psn keyed psn-keyfile "$EW_PSN_KEYFILE" psn-run 1796601600.0
policy 127.0.0.0/8 192.0.2.0/24
ew_check "reload with a changed policy file" svc reload
ew_check "the static job has the new peers" \
	test "$(peers_of_static)" = "127.0.0.0/8 192.0.2.0/24"
ew_check "the run-time jobs are kept by reload" jobs_are "dyn gone keyed static"
EW_STATIC_NAME=renamed policy 127.0.0.0/8
ew_check "reload with the static job renamed (its cgroup moves)" svc reload
ew_check "the old name is gone, the run-time jobs are kept" jobs_are "dyn gone keyed renamed"
echo '{ "config": { "mode": "enforce", "default_action": "deny" }, "jobs": [] }' >"$EW_POLICY"
ew_check "reload with no static job" svc reload
ew_check "the static job is deleted, the run-time jobs are kept" jobs_are "dyn gone keyed"
policy 127.0.0.0/8 192.0.2.0/24
ew_check "reload with the static job back" svc reload
ew_check "it is there again, beside the run-time jobs" jobs_are "dyn gone keyed static"

# Jobs made while reloads run, as Slurm prologs make them: one every 2 s,
# against reloads back to back. A reload reads the jobs, merges and applies;
# a job made in between must not be deleted as one the file does not list.
mkdir -p "$CG/ewsvc-rt1" "$CG/ewsvc-rt2" "$CG/ewsvc-rt3" "$CG/ewsvc-rt4"
(
	for i in 1 2 3 4; do
		"$CTL" job add "rt$i" cgroup "/ewsvc-rt$i" peer "10.9.$i.0/24" >/dev/null
		sleep 2
	done
	touch "$T/adder-done"
) &
ADDER=$!
reloads=0
reload_failed=0
while [ ! -e "$T/adder-done" ]; do
	svc reload || reload_failed=1
	reloads=$((reloads + 1))
done
wait "$ADDER"
echo "# $reloads reloads beside 4 job adds"
ew_check "reloads beside job adds all succeed" test "$reload_failed" = 0
ew_check "every job made during the reloads is kept" \
	jobs_are "dyn gone keyed rt1 rt2 rt3 rt4 static"
ew_check "delete them" sh -c "for i in 1 2 3 4; do '$CTL' job del rt\$i || exit; done"

# --- stop, module reload, start ------------------------------------------------
ew_check "revoke another node (as the orchestrator does on the verifier's word)" \
	"$CTL" node revoke 192.0.2.7
ew_check "stop saves the state" svc stop
ew_check "state file has the 4 jobs, mode 0600" sh -c \
	"test \"\$(jq '.jobs | length' '$EW_STATE')\" = 4 && test \"\$(stat -c %a '$EW_STATE')\" = 600"
ew_check "the revoked node is saved beside it, mode 0600" sh -c \
	"jq -e '. == [\"192.0.2.7\"]' '$T/state/revoked-nodes.json' &&
	 test \"\$(stat -c %a '$T/state/revoked-nodes.json')\" = 600"
ew_check "stop leaves the module loaded (EW_UNLOAD_ON_STOP=no)" ew_module_loaded
rmdir "$CG/ewsvc-gone"
ew_check "module unloaded" ew_unload
ew_check "module loaded again (no jobs)" ew_load
ew_check "start after the reload" svc start
ew_check "static and the live run-time jobs are restored, not the ended one" \
	jobs_are "dyn keyed static"
ew_check "the keyed job is restored keyed (its key derived from EW_PSN_KEYFILE)" sh -c \
	"'$CTL' -j job show | jq -e '.[] | select(.name == \"keyed\") | .psn == \"keyed\"'"
ew_check "the log says why 'gone' was not restored" \
	grep -q "not restoring job gone: cgroup /ewsvc-gone is gone" "$T/svc.log"
ew_check "the fabric is closed again after the reload" \
	test "$(config_field admission_required)" = true
ew_check "the node revoked before the reload is revoked again" sh -c \
	"'$CTL' -j node show | jq -e '. == [\"192.0.2.7\"]'"

# --- errors ------------------------------------------------------------------
echo '{ "config": { "mode": "enforce" }, "jobs": [ { "name": "x", "peers": ["300.1.1.1"] } ] }' \
	>"$EW_POLICY"
ew_expect_rc 1 "a policy with a bad peer fails reload" "$SVC" reload
ew_check "and nothing was changed" jobs_are "dyn keyed static"
echo "EW_ADMISSION=maybe" >"$EW_DEFAULTS"
ew_expect_rc 2 "a bad EW_ADMISSION is a usage error" "$SVC" start
echo "EW_PTRACE_SCOPE=0" >"$EW_DEFAULTS"
echo 0 >"$YAMA"
ew_expect_rc 2 "EW_PTRACE_SCOPE=0 is a usage error" "$SVC" start
ew_check "and kernel.yama.ptrace_scope was left at 0" test "$(cat $YAMA)" = 0
echo "EW_PTRACE_SCOPE=keep" >"$EW_DEFAULTS"
policy 127.0.0.0/8
ew_check "EW_PTRACE_SCOPE=keep: start leaves kernel.yama.ptrace_scope at 0" sh -c "
	'$SVC' start >/dev/null && [ \$(cat $YAMA) = 0 ]"
ew_expect_rc 2 "an unknown action is a usage error" "$SVC" restart-everything

# --- the key file rotated since the keyed job's key was derived -----------------
keyed_check() { "$CTL" -j job show | jq '.[] | select(.name == "keyed") | .psn_key_check'; }
ew_check "the restored keyed job has the key check value it was saved with" sh -c "
	saved=\$(jq '.jobs[] | select(.name == \"keyed\") | .psn_key_check' '$EW_STATE') &&
	[ -n \"\$saved\" ] && [ \"\$saved\" != null ] &&
	[ \"\$saved\" = \"\$('$CTL' -j job show | jq '.[] | select(.name == \"keyed\") | .psn_key_check')\" ]"
KEYED_CHECK=$(keyed_check)
ew_check "stop saves the state again" svc stop
head -c 32 /dev/urandom >"$EW_PSN_KEYFILE"
ew_check "module unloaded" ew_unload
ew_check "module loaded again (no jobs)" ew_load
ew_expect_rc 1 "start: the key file gives the keyed job another key, the unit fails" \
	sh -c "'$SVC' start >>'$T/svc.log' 2>&1"
ew_check "the keyed job is left out, the others restored" jobs_are "dyn static"
ew_check "the log names it: the key derived again is not the key it had" \
	grep -q "not restoring job keyed: the key $EW_PSN_KEYFILE gives it for run 1796601600.0 is not the key it had (check value [0-9]* against ${KEYED_CHECK:-x})" "$T/svc.log"

ew_done
