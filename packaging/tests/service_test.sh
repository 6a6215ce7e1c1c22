#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# packaging/tests/service_test.sh - host-side tests of eastwest-service (what
# eastwest.service runs), no kernel module needed (scripts/test-packaging
# runs it): a stand-in eastwestctl that logs its arguments and keeps the
# "node" as a policy file, a directory as the cgroup mount, and a module that
# is always loaded (EW_MODULE=printk). What start, reload and stop hand to
# "eastwestctl apply" is checked: which jobs the static policy owns, which
# run-time jobs are kept or restored, revoked nodes, keyed PSNs, temporary
# files. The real thing (the module, systemd's order) is tested in the VM by
# selftests/eastwest/service.sh.
#
# TAP on stdout; the last line is "service: N passed, N failed"; exit 0 if
# every case passed. KEEP=1 keeps the scratch directory (its name is the
# last line) for a look at the files.

set -u
HERE=$(cd "$(dirname "$0")/.." && pwd -P)
SVC=$HERE/eastwest-service
T=$(mktemp -d "${TMPDIR:-/tmp}/ew-service-test.XXXXXX") || exit 1
trap 'if [ -n "${KEEP:-}" ]; then echo "# kept: $T"; else rm -rf "$T"; fi' EXIT

# shellcheck source-path=SCRIPTDIR source=../../selftests/tap.sh
. "$HERE/../selftests/tap.sh"

# The stand-in eastwestctl. The node's jobs are $T/node.json (what "-j show"
# prints: ids, never a key), its revoked nodes $T/revoked.json. "apply -f"
# keeps a copy of the file in $T/applied.json and refuses what the real one
# and the kernel refuse: a cgroup in two jobs, a key file that cannot be
# read, a new keyed job without a key; with "--expect STATE" it changes
# nothing and exits 6 when the node's jobs (ids and names) are not STATE's.
# "-j job keycheck NAME psn-keyfile FILE psn-run RUN" prints a check value
# that changes with the file's content, the name and the run (the cksum of
# the three, standing in for the key's). "node revoke" fails if
# $T/revoke-fails exists. While $T/race holds N > 0,
# each "-j show" is followed by a job made at once (as a Slurm prolog would,
# right after the read), named race-N on cgroup /rN, and N drops by one.
mkdir -p "$T/bin" "$T/cg" "$T/tmp"
cat >"$T/bin/eastwestctl" <<'CTL'
#!/bin/bash
set -u
T=${0%/bin/eastwestctl}
echo "$*" >>"$T/ctl.log"
case $* in
"-j show") cat "$T/node.json"
	n=$(cat "$T/race" 2>/dev/null || echo 0)
	if [ "$n" -gt 0 ]; then
		echo $((n - 1)) >"$T/race"
		jq --arg n "$n" '.jobs += [{id: ([.jobs[].id, 0] | max + 1), name: "race-\($n)",
			mode: "enforce", psn: "app", cgroups: ["/r\($n)"], peers: ["10.0.0.0/8"]}]' \
			"$T/node.json" >"$T/node.new" && mv "$T/node.new" "$T/node.json"
	fi ;;
"-j job show") jq '.jobs' "$T/node.json" ;;
"-j node show") cat "$T/revoked.json" 2>/dev/null || echo '[]' ;;
"-j job keycheck "*" psn-keyfile "*" psn-run "*)
	[ -r "$6" ] || { echo "eastwestctl: psn-keyfile $6: No such file or directory" >&2; exit 2; }
	jq -n --arg n "$4" --argjson c "$(printf '%s/%s/%s' "$(cat "$6")" "$4" "$8" | cksum | cut -d' ' -f1)" \
		'[{name: $n, psn_key_check: $c}]' ;;
"node revoke "*) [ ! -e "$T/revoke-fails" ] || { echo "eastwestctl: node: Operation not permitted" >&2; exit 1; }
	shift 2
	jq -n '$ARGS.positional' --args "$@" >"$T/revoked.json" ;;
"config set "*) ;;
"apply "*)
	shift
	expect=''
	[ "$1" != --expect ] || { expect=$2; shift 2; }
	[ "$1" = -f ] && [ $# = 2 ] || { echo "eastwestctl: unexpected arguments: $*" >&2; exit 2; }
	f=$2
	if [ -n "$expect" ] && [ "$(jq -c '[.jobs[] | [.id, .name]] | sort' "$expect")" != \
		"$(jq -c '[.jobs[] | [.id, .name]] | sort' "$T/node.json")" ]; then
		echo "eastwestctl: apply $f: the node's jobs changed since $expect was read: nothing was changed" >&2
		exit 6
	fi
	cp "$f" "$T/applied.json"
	dup=$(jq -r '[.jobs[] | .name as $n | .cgroups[]? | {n: $n, c: .}] | group_by(.c)
		| map(select(length > 1))[0] // empty | "cgroup \(.[0].c) is also bound to job \"\(.[1].n)\""' "$f")
	[ -z "$dup" ] || { echo "eastwestctl: $f: $dup" >&2; exit 1; }
	for k in $(jq -r '.jobs[].psn_keyfile // empty' "$f"); do
		[ -r "$k" ] || { echo "eastwestctl: $f: $k: No such file or directory" >&2; exit 1; }
	done
	new=$(jq -r --slurpfile node "$T/node.json" '[$node[0].jobs[].name] as $have
		| .jobs[] | select(.psn == "keyed" and .psn_key == null and .psn_keyfile == null)
		| select(.name as $n | $have | index($n) | not) | .name' "$f" | head -n 1)
	[ -z "$new" ] || { echo "eastwestctl: job add $new: Invalid argument" >&2; exit 1; }
	# The node now holds the file's jobs: ids kept by name, new ones numbered
	# on; keys are never shown.
	jq --slurpfile node "$T/node.json" '
		($node[0].jobs | map({(.name): .id}) | add // {}) as $ids
		| ([$node[0].jobs[].id, 0] | max) as $top
		| .jobs |= [to_entries[] | .value + {id: ($ids[.value.name] // ($top + 1 + .key))}
			| del(.psn_key, .psn_keyfile)]' "$f" >"$T/node.new" &&
		mv "$T/node.new" "$T/node.json" ;;
*) echo "eastwestctl: unexpected arguments: $*" >&2; exit 2 ;;
esac
CTL
chmod 755 "$T/bin/eastwestctl"

export EW_CTL=$T/bin/eastwestctl EW_MODULE=printk EW_DEFAULTS=/dev/null \
	EW_POLICY=$T/policy.json EW_STATE=$T/state/state.json EW_CGROUP_ROOT=$T/cg \
	EW_PTRACE_SCOPE=keep EW_ADMISSION=none EW_PSN_KEYFILE=$T/cluster.key TMPDIR=$T/tmp

# policy JOB...: the static policy, each JOB "NAME:CGROUP".
policy() {
	local j jobs=''
	for j in "$@"; do
		jobs="$jobs{\"name\": \"${j%%:*}\", \"cgroups\": [\"${j#*:}\"], \"peers\": [\"192.0.2.0/24\"]},"
	done
	echo "{\"config\": {\"mode\": \"enforce\", \"default_action\": \"deny\"}, \"jobs\": [${jobs%,}]}" >"$EW_POLICY"
}
# node JOB...: what the node holds now (as "-j show" prints it), each JOB
# "NAME:CGROUP"; ids 1, 2, ...
node() {
	local j jobs='' id=0
	for j in "$@"; do
		id=$((id + 1))
		jobs="$jobs{\"id\": $id, \"name\": \"${j%%:*}\", \"mode\": \"enforce\", \"psn\": \"app\", \"cgroups\": [\"${j#*:}\"], \"peers\": [\"10.0.0.0/8\"]},"
	done
	echo "{\"config\": {\"mode\": \"enforce\", \"default_action\": \"deny\"}, \"jobs\": [${jobs%,}]}" >"$T/node.json"
}
# reset: a node without jobs, no saved state, no temporary files, an empty
# log.
reset() {
	rm -rf "$T/state" "$T/tmp"/* "$T/applied.json" "$T/revoked.json" "$T/revoke-fails" "$T/cluster.key" \
		"$T/race"
	node
	: >"$T/ctl.log"
}
# svc ACTION: eastwest-service ACTION; its exit code in $rc, its output in $out.
svc() {
	rc=0
	out=$("$SVC" "$@" 2>&1) || rc=$?
}
applied() { jq -r '[.jobs[].name] | sort | join(" ")' "$T/applied.json" 2>/dev/null; }
# expect NAME WANT_RC WANT_APPLIED: the last action's exit code and the names
# of the jobs it applied (sorted).
expect() {
	local got
	got=$(applied)
	if [ "$rc" = "$2" ] && [ "$got" = "$3" ]; then
		ok "$1"
	else
		not_ok "$1" "exit $rc, wanted $2" "applied: '$got', wanted '$3'" "$out"
	fi
}
# expect_out NAME PATTERN: the last action's output has a line matching it.
expect_out() {
	if grep -q -- "$2" <<<"$out"; then
		ok "$1"
	else
		not_ok "$1" "no line matches '$2' in:" "$out"
	fi
}
mkcg() { local p; for p in "$@"; do mkdir -p "$T/cg$p"; done; }

mkcg /x /y /s7 /r1 '/system.slice/system-serial\x2dgetty.slice'

# ----------------------------------------------------------------------------
# reload: the static part follows policy.json; run-time jobs are kept.

reset
policy old:/x
svc start
expect "start applies the static policy" 0 "old"
node old:/x slurm-7:/s7
policy
: >"$T/ctl.log"
svc reload
expect "reload: a static job removed from policy.json is deleted, the run-time one kept" 0 "slurm-7"

reset
policy old:/x
svc start
node old:/x slurm-7:/s7
policy new:/x
svc reload
expect "reload: a static job renamed (its cgroup moves to the new name)" 0 "new slurm-7"

reset
policy a:/x b:/y
svc start
node a:/x b:/y slurm-7:/s7
policy a:/y b:/x
svc reload
expect "reload: two static jobs swap cgroups" 0 "a b slurm-7"

reset
policy old:/x
svc start
node old:/x slurm-7:/s7
policy slurm-7:/s7
svc reload
expect "reload: a static job named like a run-time one takes it over" 0 "slurm-7"
node slurm-7:/s7
policy
svc reload
expect "reload: and once removed from policy.json it is deleted like any static job" 0 ""

# A job made by a Slurm prolog or an OCI hook while a reload runs, between
# its read of the node's jobs and its apply, is kept: the apply finds the
# jobs changed, changes nothing, and the reload reads them again.
reset
policy old:/x
svc start
node old:/x slurm-7:/s7
policy new:/x
echo 1 >"$T/race"
: >"$T/ctl.log"
svc reload
expect "reload: a job made between its read and its apply is kept (read again)" 0 "new race-1 slurm-7"
expect_out "and the log says the jobs changed" "jobs changed while reloading (try 1)"
if [ "$(grep -c '^apply --expect' "$T/ctl.log")" = 2 ]; then
	ok "two compare-and-set applies, the first refused"
else
	not_ok "two compare-and-set applies, the first refused" "$(cat "$T/ctl.log")"
fi

# Jobs that change at every read: the reload gives up, nothing applied.
reset
policy old:/x
svc start
node old:/x slurm-7:/s7
rm -f "$T/applied.json"
policy new:/x
echo 100 >"$T/race"
svc reload
expect "reload: jobs changing at every read: it fails and applies nothing" 1 ""
expect_out "and says why" "kept changing: policy not applied"

# The first reload after an upgrade: no record of which jobs were static. A
# job whose cgroup a static job now claims cannot be kept beside it.
reset
node old:/x slurm-7:/s7
policy new:/x
svc reload
expect "reload without a record of the static jobs: the job whose cgroup policy.json claims is replaced" \
	0 "new slurm-7"
expect_out "and the log says so" "old.*cgroup /x"
node new:/x old2:/y slurm-7:/s7
policy new:/x
svc reload
expect "the next reload has the record: jobs it did not apply are kept" 0 "new old2 slurm-7"

# ----------------------------------------------------------------------------
# stop and start: the saved jobs that were static are not restored.

reset
policy old:/x
svc start
node old:/x slurm-7:/s7
svc stop
node
policy
svc start
expect "start after a module reload: the saved run-time job is restored, the former static one not" \
	0 "slurm-7"

# ----------------------------------------------------------------------------
# Temporary files: none is left behind, whether the action succeeds or fails.

reset
policy old:/x
svc start
node old:/x slurm-7:/s7
svc reload
svc stop
echo '{"config": {}, "jobs": [{"name": "a", "cgroups": ["/x"]}, {"name": "b", "cgroups": ["/x"]}]}' >"$EW_POLICY"
svc reload
left=$(find "$T/tmp" "$T/state" -mindepth 1 ! -name state.json ! -name static-jobs.json \
	! -name revoked-nodes.json)
if [ "$rc" = 1 ] && [ -z "$left" ]; then
	ok "start, reload, stop and a failed reload leave no temporary file"
else
	not_ok "start, reload, stop and a failed reload leave no temporary file" "exit $rc (wanted 1), left: $left"
fi

# ----------------------------------------------------------------------------
# Cgroup paths with a backslash (systemd's escapes) are live cgroups.

reset
policy
svc start
node 'getty:/system.slice/system-serial\\x2dgetty.slice' slurm-7:/s7
svc reload
expect "reload keeps a run-time job whose cgroup path has a backslash" 0 "getty slurm-7"
svc stop
node
svc start
expect "start restores it" 0 "getty slurm-7"
if jq -e '.jobs[] | select(.name == "getty") | .cgroups == ["/system.slice/system-serial\\x2dgetty.slice"]' \
	"$T/applied.json" >/dev/null; then
	ok "its cgroup path is passed on unchanged"
else
	not_ok "its cgroup path is passed on unchanged" "$(cat "$T/applied.json")"
fi
rmdir "$T/cg/system.slice/system-serial\\x2dgetty.slice"
node
svc start
expect "a job whose cgroup is gone is not restored" 0 "slurm-7"
expect_out "and the log says so" 'not restoring job getty: cgroup /system.slice/system-serial\\x2dgetty.slice is gone'
mkcg '/system.slice/system-serial\x2dgetty.slice'

# ----------------------------------------------------------------------------
# Revoked nodes survive save, unload, load, restore.

reset
policy
svc start
node slurm-7:/s7
echo '["192.0.2.7", "fe80::9"]' >"$T/revoked.json"
svc stop
node
rm -f "$T/revoked.json"
: >"$T/ctl.log"
svc start
revoked=$(jq -r 'join(" ")' "$T/revoked.json" 2>/dev/null)
before=$(grep -n -e '^node revoke' -e '^apply' "$T/ctl.log" | cut -d: -f2 | cut -d' ' -f1 | tr '\n' ' ')
if [ "$rc" = 0 ] && [ "$revoked" = "192.0.2.7 fe80::9" ] && [ "$before" = "node apply " ]; then
	ok "start after a module reload revokes the saved revoked nodes, before it applies the jobs"
else
	not_ok "start after a module reload revokes the saved revoked nodes, before it applies the jobs" \
		"exit $rc, revoked: '$revoked', order: '$before'" "$(cat "$T/ctl.log")" "$out"
fi
node
rm -f "$T/applied.json" "$T/revoked.json"
touch "$T/revoke-fails"
svc start
expect "if they cannot be revoked, start fails and applies nothing" 1 ""
rm "$T/revoke-fails"
echo '["fe80::9"]' >"$T/revoked.json"
: >"$T/ctl.log"
svc start
if [ "$rc" = 0 ] && grep -qx 'node revoke 192.0.2.7' "$T/ctl.log"; then
	ok "a module that stayed loaded is given only the saved nodes it has not revoked"
else
	not_ok "a module that stayed loaded is given only the saved nodes it has not revoked" \
		"exit $rc" "$(cat "$T/ctl.log")" "$out"
fi

# ----------------------------------------------------------------------------
# Keyed PSNs: the key is never shown, so a saved keyed job is restored with
# the cluster key file and the run its key was derived for (as the Slurm
# prolog made it: psn-keyfile ... psn-run).

reset
policy static:/x
svc start
node static:/x slurm-7:/s7 slurm-9:/y
jq '(.jobs[] | select(.name == "slurm-9")) |= . + {psn: "keyed", psn_run: "1796601600.0"}' \
	"$T/node.json" >"$T/node.new" && mv "$T/node.new" "$T/node.json"
svc reload
expect "reload keeps a live keyed job without the key file" 0 "slurm-7 slurm-9 static"
svc stop
node
echo 0123456789abcdef0123456789abcdef >"$T/cluster.key"
chmod 600 "$T/cluster.key"
svc start
expect "start restores a keyed job with the cluster key file" 0 "slurm-7 slurm-9 static"
if [ "$(jq -r '.jobs[] | select(.name == "slurm-9") | .psn_keyfile' "$T/applied.json")" = "$T/cluster.key" ]; then
	ok "its psn_keyfile is EW_PSN_KEYFILE"
else
	not_ok "its psn_keyfile is EW_PSN_KEYFILE" "$(cat "$T/applied.json")"
fi
if [ "$(jq -r '.jobs[] | select(.name == "slurm-9") | .psn_run' "$T/applied.json")" = 1796601600.0 ]; then
	ok "... with the run its key was derived for"
else
	not_ok "... with the run its key was derived for" "$(cat "$T/applied.json")"
fi
node
rm -f "$T/cluster.key"
svc start
expect "without the key file the keyed job is left out, the others restored, the unit fails" \
	1 "slurm-7 static"
expect_out "and the log names the job and the key file" "slurm-9.*$T/cluster.key"

# The saved check value of the job's key: a key file that gives another key
# now (changed since, or the job's key came from another file) leaves the job
# out, named; the same file restores it, the check value passed on.
check_of() {
	printf '%s/%s/%s' "$(cat "$T/cluster.key")" "$1" "$2" | cksum | cut -d' ' -f1
}
reset
policy static:/x
svc start
node static:/x slurm-7:/s7 slurm-9:/y
echo 0123456789abcdef0123456789abcdef >"$T/cluster.key"
chmod 600 "$T/cluster.key"
jq --argjson c "$(check_of slurm-9 1796601600.0)" '(.jobs[] | select(.name == "slurm-9")) |=
	. + {psn: "keyed", psn_run: "1796601600.0", psn_key_check: $c}' \
	"$T/node.json" >"$T/node.new" && mv "$T/node.new" "$T/node.json"
svc stop
node
svc start
expect "start restores a keyed job whose key derived again passes its check" 0 \
	"slurm-7 slurm-9 static"
if [ "$(jq -r '.jobs[] | select(.name == "slurm-9") | .psn_key_check' "$T/applied.json")" = \
	"$(check_of slurm-9 1796601600.0)" ]; then
	ok "... and its check value goes to apply, which compares it again"
else
	not_ok "... and its check value goes to apply, which compares it again" "$(cat "$T/applied.json")"
fi
svc stop
node
echo fedcba9876543210fedcba9876543210 >"$T/cluster.key"
svc start
expect "a key file changed since: the keyed job is left out, the others restored, the unit fails" \
	1 "slurm-7 static"
expect_out "and the log names the job and says its key is not the one it had" \
	"slurm-9: the key $T/cluster.key gives it for run 1796601600.0 is not the key it had"
rm -f "$T/cluster.key"

# A job keyed by value has no run: no key file gives its key back.
reset
policy static:/x
svc start
node static:/x slurm-7:/s7 slurm-9:/y
jq '(.jobs[] | select(.name == "slurm-9")).psn = "keyed"' "$T/node.json" >"$T/node.new" &&
	mv "$T/node.new" "$T/node.json"
svc stop
node
echo 0123456789abcdef0123456789abcdef >"$T/cluster.key"
chmod 600 "$T/cluster.key"
svc start
expect "a job keyed by value is left out, the others restored, the unit fails" \
	1 "slurm-7 static"
expect_out "and the log says its key was given by value" "slurm-9.*given by value"
rm -f "$T/cluster.key"

# ----------------------------------------------------------------------------
# The admission gate follows the static policy's mode at reload as at start:
# an audit-then-enforce rollout gets it without a restart.

# policy_mode MODE: the static policy's config.mode.
policy_mode() {
	jq --arg m "$1" '.config.mode = $m' "$EW_POLICY" >"$EW_POLICY.new" &&
		mv "$EW_POLICY.new" "$EW_POLICY"
}
# gate_log NAME WANT_RC PATTERN: the last action's exit code, and the
# stand-in's log, its lines (one per call) joined by "|", matches PATTERN.
gate_log() {
	if [ "$rc" = "$2" ] && tr '\n' '|' <"$T/ctl.log" | grep -Eq -- "$3"; then
		ok "$1"
	else
		not_ok "$1" "exit $rc, wanted $2; no match for '$3' in:" "$(cat "$T/ctl.log")" "$out"
	fi
}

reset
export EW_ADMISSION=attest
policy static:/x
policy_mode audit
svc start
gate_log "attest, audit at start: admission not required" 0 \
	"config set admission-required off\|"
: >"$T/ctl.log"
policy_mode enforce
svc reload
gate_log "reload to enforce requires admission, before it applies the policy" 0 \
	"config set admission-required on\|([^|]*\|)*apply "
: >"$T/ctl.log"
policy_mode audit
svc reload
gate_log "reload back to audit gives it up, after it applied the policy" 0 \
	"apply [^|]*\|([^|]*\|)*config set admission-required off\|$"
policy_mode enforce
svc reload
: >"$T/ctl.log"
policy static:/x other:/x
policy_mode audit
svc reload
gate_log "a reload to audit that fails keeps admission required" 1 "\|apply "
if grep -q 'admission-required off' "$T/ctl.log"; then
	not_ok "and it never set admission-required off" "$(cat "$T/ctl.log")"
else
	ok "and it never set admission-required off"
fi
: >"$T/ctl.log"
policy static:/x
EW_ADMISSION=bogus svc reload
if [ "$rc" = 2 ] && [ ! -s "$T/ctl.log" ] && grep -q "EW_ADMISSION must be attest or none, not 'bogus'" <<<"$out"; then
	ok "reload with a bad EW_ADMISSION: usage error, nothing done"
else
	not_ok "reload with a bad EW_ADMISSION: usage error, nothing done" "exit $rc" \
		"$(cat "$T/ctl.log")" "$out"
fi
export EW_ADMISSION=none

# ----------------------------------------------------------------------------
# A state file a crash left empty, or one that cannot be read: the static
# policy is applied all the same, and the operator is told.

reset
policy static:/x
mkdir -p "$(dirname "$EW_STATE")"
: >"$EW_STATE"
svc start
expect "start with an empty state file applies the static policy" 0 "static"
expect_out "and says the state file is empty" "state.json is empty"
reset
policy static:/x
mkdir -p "$(dirname "$EW_STATE")"
echo '{"jobs": [' >"$EW_STATE"
svc start
expect "start with a state file that is not JSON applies the static policy" 0 "static"
expect_out "and says where the file went" "not a policy file: moved to $EW_STATE.bad."
if [ ! -e "$EW_STATE" ] && ls "$EW_STATE".bad.* >/dev/null 2>&1; then
	ok "the unreadable file is kept aside"
else
	not_ok "the unreadable file is kept aside" "$(ls -la "$(dirname "$EW_STATE")")"
fi
rm -f "$EW_STATE".bad.*

echo "1..$n"
echo "service: $((n - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
