#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Command-line tests of oci-hook on the build host, with a fake eastwestctl
# (EW_CTL) that records its arguments: usage errors, bad states and
# templates, containers without the annotation, and every poststop path.
# Creating a job for real needs a container's fresh cgroup and the module:
# selftests/eastwest/oci.sh does that with runc in a VM.
#
# Usage: tests/cli.sh PATH/TO/oci-hook     (prints TAP; exit 0 if all passed)

set -eu

HOOK=$(cd "$(dirname "$1")" && pwd -P)/$(basename "$1")
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
chmod 0755 "$T"
mkdir -m 0755 "$T/templates"
STATE=$T/state
LOG=$T/ctl.log

# The fake eastwestctl: logs its arguments; "-j job show" prints $FAKE_JOBS
# and exits $FAKE_RC_SHOW; "job del" exits $FAKE_RC_DEL; anything else $FAKE_RC.
cat >"$T/fake-ctl" <<'FAKE'
#!/bin/sh
echo "$*" >>"$FAKE_LOG"
case "$*" in
"-j job show") printf '%s\n' "${FAKE_JOBS:-[]}"; exit "${FAKE_RC_SHOW:-0}" ;;
"job del "*) exit "${FAKE_RC_DEL:-0}" ;;
*) exit "${FAKE_RC:-0}" ;;
esac
FAKE
chmod 0755 "$T/fake-ctl"
export EW_CTL="$T/fake-ctl" FAKE_LOG="$LOG"

printf '{"peers": ["10.100.0.0/24"], "netdevs": [{"vlan": 100}], "qkey": 4660}\n' \
	>"$T/templates/team-a.json"
printf '{"peers": ["10.0.0.0/8"], "cgroups": ["/"]}\n' >"$T/templates/sneaky.json"
printf '{"peers": ["0.0.0.0/0"]}\n' >"$T/templates/open.json"
chmod 0644 "$T/templates/team-a.json" "$T/templates/sneaky.json"
chmod 0666 "$T/templates/open.json"

# shellcheck source-path=SCRIPTDIR source=../../../selftests/tap.sh
. "$(dirname "$0")/../../../selftests/tap.sh"

# run RC DESC STDIN ARGS...: oci-hook must exit RC; its stderr is in $T/err.
run() {
	want=$1 desc=$2 input=$3
	shift 3
	: >"$LOG"
	rc=0
	printf '%s' "$input" | "$HOOK" --templates "$T/templates" --state-dir "$STATE" "$@" \
		>"$T/out" 2>"$T/err" || rc=$?
	if [ "$rc" -eq "$want" ]; then
		ok "$desc"
	else
		not_ok "$desc (exit $rc, wanted $want)"
		sed 's/^/#   /' "$T/err"
	fi
}

# expect FILE ERE DESC: FILE has a line matching ERE.
expect() {
	if grep -qE -- "$2" "$1"; then ok "$3"; else not_ok "$3"; sed 's/^/#   /' "$1"; fi
}

# verdict DESC CMD...: ok if CMD succeeds.
verdict() {
	_d=$1
	shift
	if "$@"; then ok "$_d"; else not_ok "$_d"; fi
}

ctl_not_called() {
	if [ -s "$LOG" ]; then not_ok "$1"; sed 's/^/#   /' "$LOG"; else ok "$1"; fi
}

state() { # state ID [PID] [TEMPLATE]
	_pid='' _ann=''
	[ -z "${2:-}" ] || _pid=",\"pid\":$2"
	[ -z "${3:-}" ] || _ann=",\"annotations\":{\"eastwest.io/job\":\"$3\"}"
	printf '{"ociVersion":"1.0.2","id":"%s","status":"creating"%s,"bundle":"/b"%s}' \
		"$1" "$_pid" "$_ann"
}

echo "TAP version 13"

# --- usage -----------------------------------------------------------------
rc=0; "$HOOK" >/dev/null 2>&1 || rc=$?
verdict "no stage: exit 2" [ "$rc" -eq 2 ]
run 2 "unknown stage: exit 2" '' prestart
run 2 "extra argument: exit 2" '' createRuntime x
rc=0; "$HOOK" --templates rel createRuntime </dev/null >/dev/null 2>&1 || rc=$?
verdict "relative --templates: exit 2" [ "$rc" -eq 2 ]
rc=0; "$HOOK" --help >"$T/out" 2>&1 || rc=$?
verdict "--help" grep -q createRuntime "$T/out"
# Every exit status of containers.md's table, in --help's words for it.
for code in $(sed -n '/^### Exit status/,/^###* [^E]/s/^| \([0-9]\) |.*/\1/p' \
		"$(dirname "$0")/../../../Documentation/containers.md"); do
	verdict "--help names exit $code" grep -Eq "(^|[ ,])$code [a-z]" "$T/out"
done

# --- bad states --------------------------------------------------------------
run 3 "createRuntime: stdin not JSON: exit 3" 'hello' createRuntime
expect "$T/err" 'bad OCI state on stdin: not JSON' "  and says so"
run 3 "createRuntime: id with a slash: exit 3" "$(state ../x 1 team-a)" createRuntime
run 3 "createRuntime: annotation but no pid: exit 3" "$(state c1 '' team-a)" createRuntime
expect "$T/err" 'no pid' "  and says so"
ctl_not_called "  eastwestctl is not run"

# --- no annotation: nothing to do, default-deny applies --------------------
run 0 "createRuntime without the annotation: exit 0" "$(state c1 1)" createRuntime
ctl_not_called "  no job is created"
verdict "  no claim is made" [ ! -e "$STATE" ]

# --- templates: the annotation only selects -------------------------------------
run 4 "unknown template: exit 4 (the container is not started)" "$(state c1 1 nosuch)" createRuntime
expect "$T/err" "no template nosuch \\(no file $T/templates/nosuch.json\\)" "  and names the file"
run 4 "a path as the template name: exit 4" "$(state c1 1 ../templates/team-a)" createRuntime
run 4 "empty template name: exit 4" '{"id":"c1","pid":1,"annotations":{"eastwest.io/job":""}}' createRuntime
run 4 "a template that sets cgroups: exit 4" "$(state c1 1 sneaky)" createRuntime
expect "$T/err" '"cgroups" is set for each container by the hook' "  and says why"
run 4 "a world-writable template: exit 4" "$(state c1 1 open)" createRuntime
expect "$T/err" 'writable by group or others' "  and says why"
ctl_not_called "  eastwestctl is never run for a bad template"
run 0 "check prints the job a template gives" '' check team-a
expect "$T/out" '^eastwestctl job add oci-ID cgroup CGROUP qkey 4660 peer 10.100.0.0/24 vlan 100$' \
	"  as eastwestctl words"
run 4 "check of a bad template: exit 4" '' check sneaky
# The documentation's example (copied: a checkout may be group-writable).
EXAMPLES=$(dirname "$0")/../../../Documentation/examples/k8s
cp "$EXAMPLES/templates/team-a.json" "$T/templates/example.json"
chmod 0644 "$T/templates/example.json"
run 0 "the documentation's example template is valid" '' check example

# --- cgroups ---------------------------------------------------------------
# A process that is gone, and one in the root cgroup (this host's, or pid 1's
# in a container), cannot be bound.
sh -c 'exit 0' & gone=$!
wait "$gone"
run 5 "createRuntime for a pid that is gone: exit 5" "$(state c1 "$gone" team-a)" createRuntime
if grep -q '^0::/$' /proc/1/cgroup 2>/dev/null; then
	run 5 "createRuntime for a process in the root cgroup: exit 5" "$(state c1 1 team-a)" createRuntime
	expect "$T/err" 'root cgroup' "  and says why"
else
	ok "createRuntime for a process in the root cgroup # SKIP pid 1 is not in the root cgroup here"
	ok "  and says why # SKIP"
fi
ctl_not_called "  eastwestctl is not run"

# --- poststop --------------------------------------------------------------
run 0 "poststop without a claim (never created, or done): exit 0" "$(state c1)" poststop
ctl_not_called "  eastwestctl is not run"
verdict "  the state dir is not created by poststop" [ ! -e "$STATE" ]

claim() { mkdir -p "$STATE" && chmod 0700 "$STATE" && printf '%s\n' "$2" >"$STATE/$1"; }

claim oci-c1 c1
FAKE_JOBS='[{"id":1,"name":"oci-c1"},{"id":2,"name":"other"}]' \
	run 0 "poststop of a container with a job: exit 0" "$(state c1)" poststop
expect "$LOG" '^job del oci-c1$' "  deletes its job"
verdict "  and drops the claim" [ ! -e "$STATE/oci-c1" ]
FAKE_JOBS='[{"id":1,"name":"oci-c1"}]' \
	run 0 "poststop again: exit 0 (idempotent)" "$(state c1)" poststop
ctl_not_called "  and does nothing"

# The start of c1x failed on the name c1x... holds; its poststop must leave it.
claim oci-0123456789ab 0123456789abcd
FAKE_JOBS='[{"id":1,"name":"oci-0123456789ab"}]' \
	run 0 "poststop of a container whose job name another holds: exit 0" \
	"$(state 0123456789abXX)" poststop
ctl_not_called "  the other container's job is left alone"
verdict "  and so is its claim" [ -e "$STATE/oci-0123456789ab" ]
rm -f "$STATE/oci-0123456789ab"

# Container abc.addr's claim is no address record of container abc.
claim oci-abc abc
claim oci-abc.addr abc.addr
FAKE_JOBS='[{"name":"oci-abc"},{"name":"oci-abc.addr"}]' \
	run 0 "poststop of abc while a container abc.addr runs: exit 0" "$(state abc)" poststop
expect "$LOG" '^job del oci-abc$' "  deletes abc's job"
verdict "  and drops abc's claim" [ ! -e "$STATE/oci-abc" ]
verdict "  and leaves abc.addr's" [ -e "$STATE/oci-abc.addr" ]
FAKE_JOBS='[{"name":"oci-abc.addr"}]' \
	run 0 "poststop of abc.addr: exit 0" "$(state abc.addr)" poststop
expect "$LOG" '^job del oci-abc.addr$' "  deletes its job"
verdict "  and drops its claim" [ ! -e "$STATE/oci-abc.addr" ]

claim oci-c2 c2
FAKE_JOBS='[{"id":1,"name":"other"}]' \
	run 0 "poststop when the job is gone already: exit 0" "$(state c2)" poststop
if grep -q '^job del' "$LOG"; then not_ok "  no job del"; else ok "  no job del"; fi
verdict "  the claim is dropped" [ ! -e "$STATE/oci-c2" ]

claim oci-c3 c3
FAKE_RC_SHOW=4 run 0 "poststop with the module unloaded: exit 0 (it took the jobs)" "$(state c3)" poststop
verdict "  the claim is dropped" [ ! -e "$STATE/oci-c3" ]

claim oci-c4 c4
FAKE_JOBS='[{"name":"oci-c4"}]' FAKE_RC_DEL=1 \
	run 6 "poststop when job del fails: exit 6" "$(state c4)" poststop
verdict "  the claim is kept for a retry" [ -e "$STATE/oci-c4" ]
FAKE_JOBS='[{"name":"oci-c4"}]' run 0 "  the retry succeeds" "$(state c4)" poststop
claim oci-c8 c8
FAKE_JOBS='[{"name":"oci-c8"}]' FAKE_RC_DEL=5 \
	run 0 "poststop when the job went between list and del (exit 5): exit 0" "$(state c8)" poststop
verdict "  the claim is dropped" [ ! -e "$STATE/oci-c8" ]
FAKE_JOBS='not json' claim oci-c5 c5
FAKE_JOBS='not json' run 6 "poststop with an unreadable job list: exit 6" "$(state c5)" poststop
rm -f "$STATE/oci-c5"

claim oci-c6 c6
EW_CTL=relative/ctl run 6 "EW_CTL must be absolute: exit 6" "$(state c6)" poststop
expect "$T/err" 'EW_CTL=relative/ctl is not an absolute path' "  and says so"
EW_CTL=$T/nonexistent run 6 "EW_CTL that does not exist: exit 6" "$(state c6)" poststop
rm -f "$STATE/oci-c6"

claim oci-c7 c7
chmod 0777 "$STATE"
run 7 "poststop with a state dir others can write: exit 7" "$(state c7)" poststop
ctl_not_called "  eastwestctl is not run"
chmod 0700 "$STATE"

echo "1..$n"
echo "# cli: $((n - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
