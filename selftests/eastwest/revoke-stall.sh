#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 1
# ew-timeout: 420
#
# A process that keeps modify locks busy must not hold up revocation. A
# modify of a user QP runs under the QP's modify lock, which a revoker also
# takes to move the QP to the error state; the locks are hashed by QP, 256
# of them, shared by all jobs. The RDMA core resolves a connect's
# destination under it: an address that nobody answers takes a second. A
# job's process (uid 65534, no capabilities) whose peers include such an
# address (a node that is down) can repeat that connect on many QPs, one
# thread each, and so keep a good share of the locks busy all the time.
#
#   1. job A's process: 96 QPs in INIT, a thread each repeating INIT->RTR
#      towards the silent address (judged, allowed, then a second in the
#      core before it fails), and 32 RC QPs connected to themselves over
#      this node's address. The node's address is removed from job A's
#      peers: `peer del` returns within 5 s and the 32 QPs get QP_FATAL
#      within 5 s, not one lock wait after another for the third of them
#      that share a lock with a busy QP.
#   2. the same threads go on; job B's 32 QPs connect to themselves, none
#      busy: none of job B's connects takes 500 ms or more (its modifies
#      wait for no lock held by job A's; with locks shared by the QPs of a
#      slot, a third of them waited up to a second each). `job del` of job
#      B returns within 5 s and all 32 get QP_FATAL within 5 s.
#   3. job A's threads stop; job A goes.
#
# The silent address sits behind a veth whose far end, in a namespace of
# its own, has no address: ARP requests go out and nothing answers.

. "$(dirname "$0")/../lib.sh"

CG=/sys/fs/cgroup
DEV=ewst
NETDEV=ewst0
NS=ewstall
ADDR=10.97.0.1
SILENT=10.97.0.9
NSTALL=96
NHOLD=32
LIMIT_MS=5000

ew_require_root
ew_require_cmd rdma ip setpriv mkfifo
ew_require_built ctl verbs

ew_tmp_dir 755
ew_defer "rmdir $CG/ewsA $CG/ewsB"
ew_defer "ip netns delete $NS"
ew_defer "ew_netdev_del $NETDEV"
ew_defer "rdma link delete $DEV"
ew_defer "ew_rmmod"
ew_defer "ew_reap_all"

# qp_count JOB: the live QPs the module tracks for JOB.
qp_count() {
	"$CTL" -j job show "$1" | tr -d '\n' | sed -n 's/.*"qp_count": *\([0-9]*\).*/\1/p'
}

# now_ms: the monotonic-enough wall clock in milliseconds.
now_ms() { echo $(($(date +%s%N) / 1000000)); }

# stall_start TAG CGROUP NSTALL NHOLD: ew_verbs rc-stall as uid 65534 in
# CGROUP, NSTALL busy QPs, NHOLD connected; output $EW_TMP/TAG, its go
# lines on fd 3 (ew_start_stepwise), its pid in $pid.
stall_start() {
	ew_start_stepwise "$EW_TMP/$1" "$2" setpriv --reuid=65534 --regid=65534 \
		--clear-groups --inh-caps=-all --bounding-set=-all \
		"$VERBS" rc-stall "$DEV" "$IDX" "$ADDR" "$SILENT" "$3" "$4" 120
	pid=$EW_BG_PID
}

# stall_ms FILE: the milliseconds the first stalling modify took.
stall_ms() { sed -n 's/^stall: .* after \([0-9]*\) ms$/\1/p' "$1"; }

# revoked_within FILE N: "revoked N of N after T ms" with T < LIMIT_MS.
revoked_within() {
	_t=$(sed -n "s/^revoked $2 of $2 after \([0-9]*\) ms$/\1/p" "$1")
	[ -n "$_t" ] && [ "$_t" -lt "$LIMIT_MS" ]
}

# timed_ctl VAR ARGS...: run eastwestctl ARGS, its duration (ms) in VAR.
timed_ctl() {
	_var=$1
	shift
	_t0=$(now_ms)
	"$CTL" "$@" >/dev/null
	_rc=$?
	eval "$_var=\$((\$(now_ms) - _t0))"
	return $_rc
}

ew_plan 21

ew_check "eastwest.ko loads" ew_load
ew_check "veth $NETDEV up, its far end in $NS with no address" \
	sh -c "ip netns add $NS && ip link add $NETDEV type veth peer name ewst1 &&
	       ip link set ewst1 netns $NS && ip -n $NS link set ewst1 up &&
	       ip addr add $ADDR/24 dev $NETDEV && ip link set $NETDEV up"
ew_check "$DEV on $NETDEV" ew_rxe_add "$DEV" "$NETDEV"
IDX=$(ew_wait_gid_index "$DEV" "$ADDR" 20)
ew_check "GID of $ADDR found (index ${IDX:-none})" test -n "$IDX"
mkdir -p "$CG/ewsA" "$CG/ewsB"
ew_check "job A created (peers $ADDR and the silent $SILENT)" \
	"$CTL" job add ewsA cgroup /ewsA peer "$ADDR" peer "$SILENT"

# --- 1. a job keeps locks busy while its own QPs are revoked -------------------

stall_start busy /ewsA "$NSTALL" "$NHOLD"
busy=$pid
ew_check "1: job A's $NHOLD QPs connected and $NSTALL busy, a thread each" \
	ew_wait_for 240 grep -qx ready "$EW_TMP/busy"
ms=$(stall_ms "$EW_TMP/busy")
ew_check "1: a connect towards $SILENT holds its QP's lock for 500 ms or more (${ms:-?} ms)" \
	test "${ms:-0}" -ge 500
echo go >&3
ew_check "1: peer del of $ADDR" timed_ctl took peer del ewsA "$ADDR"
ew_check "1: peer del returned within $LIMIT_MS ms (it took $took ms)" \
	test "$took" -lt "$LIMIT_MS"
ew_check "1: job A's $NHOLD connected QPs got QP_FATAL within $LIMIT_MS ms" \
	ew_wait_for 150 revoked_within "$EW_TMP/busy" "$NHOLD"
echo "# job A: $(grep '^revoked' "$EW_TMP/busy")"
ew_check "1: job A's busy QPs are still allowed (qp_count $NSTALL)" \
	test "$(qp_count ewsA)" = "$NSTALL"
exec 4<&3 3>&-

# --- 2. another job's revocation is not held up --------------------------------

ew_check "2: job B created (peer $ADDR)" "$CTL" job add ewsB cgroup /ewsB peer "$ADDR"
stall_start victim /ewsB 0 "$NHOLD"
victim=$pid
ew_check "2: job B's $NHOLD QPs connected, none busy" \
	ew_wait_for 180 grep -qx ready "$EW_TMP/victim"
ms=$(sed -n 's/^held: .* the slowest in \([0-9]*\) ms$/\1/p' "$EW_TMP/victim")
ew_check "2: job B's slowest connect took less than 500 ms (${ms:-?} ms): no wait for job A's busy QPs" \
	test "${ms:-500}" -lt 500
echo go >&3
ew_check "2: job del of job B" timed_ctl took job del ewsB
ew_check "2: job del returned within $LIMIT_MS ms (it took $took ms)" \
	test "$took" -lt "$LIMIT_MS"
ew_check "2: job B's process exits" ew_reap "$victim" 150
ew_check "2: all $NHOLD of job B's QPs got QP_FATAL within $LIMIT_MS ms" \
	revoked_within "$EW_TMP/victim" "$NHOLD"
echo "# job B: $(grep '^revoked' "$EW_TMP/victim")"
exec 3>&-

# --- 3. the busy job goes -------------------------------------------------------

echo stop >&4
ew_check "3: job A's threads stop" ew_wait_for 60 grep -qx stopped "$EW_TMP/busy"
ew_check "3: job A's process exits" ew_reap "$busy" 60
exec 4>&-
ew_check "3: job del of job A" "$CTL" job del ewsA

ew_done
