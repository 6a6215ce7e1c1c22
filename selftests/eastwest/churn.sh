#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 1
# ew-timeout: 300
#
# Hardening R2: policy churn while QPs connect, every decision checked
# against an oracle.
#   - one loop toggles job churn's only peer (127.0.0.1) with peer add/del;
#   - one loop creates and deletes other jobs (with peers and cgroups) as
#     fast as it can, so the job and peer tables change under the readers;
#   - two loops connect RC QPs of job churn to 127.0.0.1 (RESET->RTR, the
#     policed step) and record each outcome with its start and end time.
# The oracle: the peer may be in force from the start of an add to the end
# of the next del, and is surely in force from the end of an add to the
# start of the next del. A connect that succeeded without overlapping a
# "may" window is a wrong allow; one refused inside a "surely" window is a
# wrong deny. Both must be zero, and both outcomes must have been seen.
# Time: EW_CHURN_SECONDS (default 30; also read from $EW_TOP/build/churn.env).

. "$(dirname "$0")/../lib.sh"

DEV=rxe0
CG=/sys/fs/cgroup
CTL=$EW_TOP/userspace/eastwestctl
VERBS=$EW_TOP/selftests/tools/ew_verbs
LOOP=127.0.0.1
# shellcheck disable=SC1091 # optional, for long runs
[ ! -f "$EW_TOP/build/churn.env" ] || . "$EW_TOP/build/churn.env"
SECONDS_TO_RUN=${EW_CHURN_SECONDS:-30}

ew_require_root
ew_require_cmd rdma python3
[ -x "$CTL" ] || ew_skip "eastwestctl is not built (make userspace)"
[ -x "$VERBS" ] || ew_skip "ew_verbs is not built (make tools)"
[ -f "$CG/cgroup.controllers" ] || ew_skip "no cgroup v2 at $CG"

T=$(mktemp -d)
ew_defer "rm -rf $T"
ew_defer "rmdir $CG/ewchurn $CG/ewchurn-other"
ew_defer "rdma link delete $DEV"
ew_defer "rmmod eastwest"

now() { date +%s%N; }

# Toggles the peer until $T/stop exists: "A|D START END RC" per change.
toggle_peer() {
	while [ ! -e "$T/stop" ]; do
		s=$(now); "$CTL" peer add churn "$LOOP" >/dev/null 2>&1; rc=$?; e=$(now)
		echo "A $s $e $rc"
		s=$(now); "$CTL" peer del churn "$LOOP" >/dev/null 2>&1; rc=$?; e=$(now)
		echo "D $s $e $rc"
	done >"$T/changes"
}

# Creates and deletes other jobs: "J N RC" per operation.
churn_jobs() {
	n=0
	while [ ! -e "$T/stop" ]; do
		n=$((n + 1))
		"$CTL" job add "other$((n % 4))" cgroup /ewchurn-other peer 10.$((n % 200)).0.0/16 \
			peer "$LOOP" >/dev/null 2>&1
		echo "J add $?"
		"$CTL" job del "other$((n % 4))" >/dev/null 2>&1
		echo "J del $?"
	done >"$T/jobs"
}

# Connects job churn's QPs: "C START END RC" per attempt.
connect_loop() {
	while [ ! -e "$T/stop" ]; do
		s=$(now)
		ew_in_cg /ewchurn "$VERBS" rc-connect "$DEV" "$IDX" "$LOOP" 0x11 >/dev/null 2>&1
		rc=$?
		e=$(now)
		echo "C $s $e $rc"
	done >"$T/connects.$1"
}

ew_plan 14

ew_check "eastwest.ko loads" ew_load
ew_check "$DEV on lo" ew_rxe_add "$DEV" lo
IDX=$(ew_wait_gid_index "$DEV" "$LOOP")
ew_check "GID of $LOOP found (index ${IDX:-none})" test -n "$IDX"
mkdir -p "$CG/ewchurn" "$CG/ewchurn-other"
ew_check "job churn, no peer yet" "$CTL" job add churn cgroup /ewchurn peer 10.255.0.0/16
ew_expect_rc 13 "before the churn: the connect is refused" \
	ew_in_cg /ewchurn "$VERBS" rc-connect "$DEV" "$IDX" "$LOOP" 0x11

ew_dmesg_mark
toggle_peer &
p1=$!
churn_jobs &
p2=$!
connect_loop 1 &
p3=$!
connect_loop 2 &
p4=$!
sleep "$SECONDS_TO_RUN"
: >"$T/stop"
wait $p1 $p2 $p3 $p4
cat "$T/connects.1" "$T/connects.2" >"$T/connects"

# The oracle.
python3 - "$T/changes" "$T/connects" >"$T/verdict" 2>&1 <<'PY'
import sys
changes = [l.split() for l in open(sys.argv[1])]
conns = [l.split() for l in open(sys.argv[2])]
may, sure = [], []          # windows where the peer may be / surely is in force
bad_changes = 0
add = None
for kind, s, e, rc in changes:
    s, e = int(s), int(e)
    if rc != "0":
        bad_changes += 1
    if kind == "A":
        add = (s, e)
    elif add is not None:
        may.append((add[0], e))
        sure.append((add[1], s))
        add = None
if add is not None:                       # the last add was never undone
    may.append((add[0], 1 << 62))
    sure.append((add[1], 1 << 62))
allowed = refused = other = wrong_allow = wrong_deny = 0
for _, s, e, rc in conns:
    s, e = int(s), int(e)
    if rc == "0":
        allowed += 1
        if not any(a <= e and s <= b for a, b in may):
            wrong_allow += 1
    elif rc == "13":
        refused += 1
        if any(a <= s and e <= b for a, b in sure):
            wrong_deny += 1
    else:
        other += 1
print(f"changes={len(changes)} failed_changes={bad_changes} connects={len(conns)} "
      f"allowed={allowed} refused={refused} other={other} "
      f"wrong_allow={wrong_allow} wrong_deny={wrong_deny}")
PY
verdict=$(cat "$T/verdict")
ew_diag "oracle: $verdict"
ew_diag "job churn: $(grep -c . "$T/jobs") operations, $(grep -vc ' 0$' "$T/jobs") failed"
field() { echo "$verdict" | tr ' ' '\n' | sed -n "s/^$1=//p"; }

ew_check "the oracle ran" test -n "$(field connects)"
ew_check "zero wrong allows ($(field wrong_allow) of $(field allowed) allowed)" \
	test "$(field wrong_allow)" = 0
ew_check "zero wrong denies ($(field wrong_deny) of $(field refused) refused)" \
	test "$(field wrong_deny)" = 0
ew_check "both outcomes seen under churn" \
	test "$(field allowed)" -gt 0 -a "$(field refused)" -gt 0
ew_check "every connect was allowed or refused (no other error)" test "$(field other)" = 0
ew_check "every peer add/del succeeded" test "$(field failed_changes)" = 0
ew_check "every job add/del of the job churn succeeded" sh -c "! grep -qv ' 0\$' '$T/jobs'"
ew_check "only job churn is left" sh -c \
	"test \"\$('$CTL' -j job show | python3 -c 'import json,sys; print(\" \".join(sorted(j[\"name\"] for j in json.load(sys.stdin))))')\" = churn"
no_splat() { ! ew_dmesg_since_mark 'WARNING:|BUG:|Oops|refcount_t|suspicious RCU|list_(add|del) corruption'; }
ew_check "no kernel splat during the churn" no_splat

ew_done
