#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 1
# ew-timeout: 1500
# ew-kernels: 6.12
# ew-tcg: single
#
# Unloading under load. CYCLES rounds of: the module loaded and a job made;
# two processes of the job with QPS RC QPs each (thousands tracked) that
# keep resetting and reconnecting them, destroying and recreating them and
# moving them to ERR (ew_verbs qp-storm); the job deleted while they run
# (every QP revoked); rmmod while they go on (retried while a modify in
# flight holds the module: the hook takes a module reference before it
# redirects); the module loaded again and the job made again under them.
# The storms must end cleanly, the module must leave no record behind, and
# the kernel log must stay free of oopses, warnings and leaks (the runner
# checks the log as well).

. "$(dirname "$0")/../lib.sh"

DEV=rxe0
CG=/sys/fs/cgroup
LOOP=127.0.0.1
CYCLES=${EW_STRESS_CYCLES:-4}
QPS=${EW_STRESS_QPS:-1500}
STORM_SECONDS=${EW_STRESS_SECONDS:-40}

ew_require_root
ew_require_cmd rdma insmod rmmod
ew_require_built ctl verbs

ew_tmp_dir
ew_defer "rmdir $CG/ewS"
ew_defer "rdma link delete $DEV"
ew_defer "ew_rmmod"
ew_defer "pkill -f 'ew_verbs qp-storm'"

# qp_count: the live QPs the module tracks for job stress.
qp_count() {
	"$CTL" -j job show stress | tr -d '\n' |
		sed -n 's/.*"qp_count": *\([0-9]*\).*/\1/p'
}

# rmmod_retried: rmmod, again while EBUSY (a modify in flight holds the
# module) for at most 30 s.
rmmod_retried() {
	_n=0
	while ! rmmod eastwest 2>"$EW_TMP/rmmod"; do
		_n=$((_n + 1))
		[ "$_n" -lt 150 ] || { cat "$EW_TMP/rmmod"; return 1; }
		sleep 0.2
	done
	echo "rmmod after $_n retries"
	! ew_module_loaded
}

# tracked_at_least N
tracked_at_least() {
	[ "$(qp_count)" -ge "$1" ]
}

no_splat() {
	! ew_dmesg_since_mark 'WARNING:|BUG:|Oops|Call Trace:|refcount_t:|still has objects'
}

ew_plan $((2 + CYCLES * 9 + 1))

ew_check "$DEV on lo" ew_rxe_add "$DEV" lo
IDX=$(ew_wait_gid_index "$DEV" "$LOOP")
ew_check "GID of $LOOP found (index ${IDX:-none})" test -n "$IDX"
mkdir -p "$CG/ewS"
ew_dmesg_mark

c=1
while [ "$c" -le "$CYCLES" ]; do
	ew_module_loaded || ew_load >/dev/null 2>&1
	"$CTL" job add stress cgroup /ewS peer "$LOOP" >/dev/null 2>&1
	for s in 1 2; do
		ew_in_cg_bg /ewS stdbuf -oL "$VERBS" qp-storm "$DEV" "$IDX" "$LOOP" \
			"$QPS" "$STORM_SECONDS" >"$EW_TMP/storm$s" 2>&1
		eval "STORM$s=\$EW_BG_PID"
	done
	ew_check "cycle $c: two storms of $QPS QPs each are connected" \
		ew_wait_for 300 sh -c "grep -q ready '$EW_TMP/storm1' && grep -q ready '$EW_TMP/storm2'"
	ew_check "cycle $c: job stress tracks at least $QPS QPs ($(qp_count))" \
		tracked_at_least "$QPS"
	ew_check "cycle $c: the job is deleted under the storms" "$CTL" job del stress
	ew_check "cycle $c: rmmod under the storms" rmmod_retried
	sleep 1
	ew_check "cycle $c: loaded again under the storms" ew_load
	ew_check "cycle $c: the job is made again" \
		"$CTL" job add stress cgroup /ewS peer "$LOOP"
	for s in 1 2; do
		eval "pid=\$STORM$s"
		wait "$pid"
		eval "RC$s=\$?"
	done
	ew_diag "cycle $c: $(grep -h '^storm:' "$EW_TMP/storm1" "$EW_TMP/storm2" | tr '\n' ' ')"
	ew_check "cycle $c: both storms ended cleanly (exit $RC1 $RC2)" \
		test "$RC1" = 0 -a "$RC2" = 0
	ew_check "cycle $c: their QPs are gone, and so are their records" \
		test "$(qp_count)" = 0
	ew_check "cycle $c: the job is deleted, the module unloads" ew_unload
	c=$((c + 1))
done
ew_check "no oops, warning or leak in the kernel log" no_splat

ew_done
