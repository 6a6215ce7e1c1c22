#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 1
# ew-timeout: 600
# ew-kernels: 6.1
#
# Hardening R2: policy churn while QPs connect, every decision checked
# against an oracle. selftests/tools/ew_churn does it in one process (its
# header says how), in job churn's cgroup:
#   - a thread toggles job churn's only peer (127.0.0.1) with peer add/del,
#     holding each state a random 0..300 us (so that decisions also fall
#     entirely inside one state, not only across changes);
#   - a thread creates and deletes jobs churn-other0..3 (cgroups of their
#     own, each with 127.0.0.1 and random /16 peers) as fast as it can, so
#     the job and peer tables change under the readers;
#   - three threads connect RC QPs of job churn to 127.0.0.1 (INIT->RTR, the
#     policed step) and one creates address handles to it, each outcome
#     recorded with its start and end time.
# The oracle: the peer may be in force from the start of an add to the end
# of the next del, and is surely in force from the end of an add to the
# start of the next del. A decision that succeeded without overlapping a
# "may" window is a wrong allow; one refused inside a "surely" window is a
# wrong deny. Both must be zero, and both outcomes must have been seen.
# And right after each peer delete returned, no QP whose connect was
# allowed (and that was not reset since) may still be connected: a connect
# in flight across the delete is revoked too.
# Afterwards: only job churn is left, with its one peer and no QP; kmalloc
# caches are back near where they were; no splat; the module unloads.
# Time: EW_CHURN_SECONDS (default 30; also read from $EW_TOP/build/churn.env),
# at most 480: the rest of the test takes about a minute of the guest's 600 s.

. "$(dirname "$0")/../lib.sh"

DEV=rxe0
CG=/sys/fs/cgroup
CHURN=$EW_TOP/selftests/tools/ew_churn
LOOP=127.0.0.1
OTHERS="ewchurn-other0 ewchurn-other1 ewchurn-other2 ewchurn-other3"
# kmalloc objects a cache may gain over the run, plus 2 slabs per CPU.
LEAK_SLACK=200
# shellcheck disable=SC1091 # optional, for long runs
[ ! -f "$EW_TOP/build/churn.env" ] || . "$EW_TOP/build/churn.env"
SECONDS_TO_RUN=${EW_CHURN_SECONDS:-30}
case $SECONDS_TO_RUN in
'' | *[!0-9]*) ew_bail "EW_CHURN_SECONDS must be a number of seconds: $SECONDS_TO_RUN" ;;
esac
if [ "$SECONDS_TO_RUN" -lt 1 ] || [ "$SECONDS_TO_RUN" -gt 480 ]; then
	ew_bail "EW_CHURN_SECONDS must be 1..480 (the test's limit is 600 s): $SECONDS_TO_RUN"
fi

ew_require_root
ew_require_cmd rdma python3
ew_require_built ctl verbs cgroup
[ -x "$CHURN" ] || ew_skip "ew_churn is not built (make tools)"
[ -r /proc/slabinfo ] || ew_skip "no /proc/slabinfo"

T=$(mktemp -d)
ew_defer "rm -rf $T"
ew_defer "rmdir $CG/ewchurn $(for o in $OTHERS; do printf '%s ' "$CG/$o"; done)"
ew_defer "rdma link delete $DEV"
ew_defer "ew_rmmod"

# kmalloc-* active objects (name count objects-per-slab), after shrinking
# each cache so that per-CPU and partial slabs do not hide or invent any.
slab_once() {
	for s in /sys/kernel/slab/kmalloc-*; do
		[ -w "$s/shrink" ] && echo 1 >"$s/shrink" 2>/dev/null
	done
	awk '$1 ~ /^kmalloc-/ { print $1, $2, $5 }' /proc/slabinfo | sort
}

# slab_snapshot: slab_once once the counts have settled: objects freed by
# RCU callbacks (kfree_rcu() batches, deferred by seconds under TCG) are
# not leaks. Two equal snapshots a second apart, or the last of 15.
slab_snapshot() {
	sync
	_prev=$(slab_once)
	_i=0
	while [ "$_i" -lt 15 ]; do
		sleep 1
		_cur=$(slab_once)
		[ "$_cur" = "$_prev" ] && break
		_prev=$_cur
		_i=$((_i + 1))
	done
	echo "$_prev"
}

# slab_grown BEFORE AFTER: fail, naming them, if caches gained more than
# LEAK_SLACK objects plus 2 slabs per CPU.
slab_grown() {
	join "$1" "$2" | awk -v slack="$LEAK_SLACK" -v cpus="$(nproc)" '
		$4 - $2 > slack + 2 * cpus * $3 {
			print "grew:", $1, $2 "->" $4; bad = 1 }
		END { exit bad }'
}

# field NAME: the number after NAME in ew_churn's summary line.
field() {
	sed -n 's/^ew_churn: decisions /decisions /p' "$T/out" | tr ' ' '\n' |
		sed -n "/^$1\$/{n;p;}" | tr -d '/s'
}

# state_left: "JOBS PEERS QPS": jobs and peers of the node, QPs of job churn.
state_left() {
	"$CTL" -j job show | python3 -c '
import json, sys
jobs = json.load(sys.stdin)
jobs = jobs if isinstance(jobs, list) else [jobs]
print(" ".join(sorted(j["name"] for j in jobs)),
      sum(j["peer_count"] for j in jobs),
      sum(j["qp_count"] for j in jobs))'
}

ew_plan 17

ew_check "eastwest.ko loads" ew_load
ew_check "$DEV on lo" ew_rxe_add "$DEV" lo
IDX=$(ew_wait_gid_index "$DEV" "$LOOP")
ew_check "GID of $LOOP found (index ${IDX:-none})" test -n "$IDX"
for o in ewchurn $OTHERS; do
	mkdir -p "$CG/$o"
done
ew_check "job churn, no peer yet" "$CTL" job add churn cgroup /ewchurn peer 10.255.0.0/16
ew_expect_rc 13 "before the churn: the connect is refused" \
	ew_in_cg /ewchurn "$VERBS" rc-connect "$DEV" "$IDX" "$LOOP" self

slab_snapshot >"$T/slab.before"
ew_dmesg_mark
set --
for o in $OTHERS; do
	set -- "$@" -o "/$o"
done
rc=0
ew_in_cg /ewchurn "$CHURN" -d "$DEV" -g "$IDX" -j churn -p "$LOOP" -l "$@" \
	-t "$SECONDS_TO_RUN" -q 3 -a 1 -w 300 >"$T/out" 2>&1 || rc=$?
while read -r line; do
	ew_diag "$line"
done <"$T/out"

ew_check "ew_churn ran $SECONDS_TO_RUN s and judged $(field decisions) decisions ($(field rate)/s)" \
	test -n "$(field decisions)"
ew_check "zero wrong allows ($(field wrong_allow) of $(field allowed) allowed)" \
	test "$(field wrong_allow)" = 0
ew_check "zero wrong denies ($(field wrong_deny) of $(field refused) refused)" \
	test "$(field wrong_deny)" = 0
ew_check "no QP left connected after a peer delete returned ($(field left_connected) found)" \
	test "$(field left_connected)" = 0
ew_check "both outcomes seen under churn" \
	test "$(field allowed)" -gt 0 -a "$(field refused)" -gt 0
ew_check "every decision was allowed or refused (no other error)" test "$(field other)" = 0
ew_check "ew_churn passed (every peer change and job operation succeeded; exit $rc)" \
	test "$rc" = 0
ew_check "only job churn is left, with its one peer and no QP" \
	test "$(state_left)" = "churn 1 0"
slab_snapshot >"$T/slab.after"
ew_check "no kmalloc cache grew by more than $LEAK_SLACK objects plus 2 slabs per CPU" \
	slab_grown "$T/slab.before" "$T/slab.after"
no_splat() { ! ew_dmesg_since_mark 'WARNING:|BUG:|Oops|refcount_t|suspicious RCU|list_(add|del) corruption'; }
ew_check "no kernel splat during the churn" no_splat
ew_expect_rc 13 "after the churn: the connect is refused again" \
	ew_in_cg /ewchurn "$VERBS" rc-connect "$DEV" "$IDX" "$LOOP" self
ew_check "the module unloads" ew_unload

ew_done
