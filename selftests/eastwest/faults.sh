#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 1
# ew-timeout: 1800
# ew-kernels: 6.1
#
# Faults on one node (Documentation/hardening.md, R3), each followed by `eastwestctl apply -f`
# of the intended policy and a check that enforcement is back:
#   a. load/unload cycles with a live RC QP of a job held open across the
#      unload: each cycle loads, applies the policy, lets a job process
#      connect, sees an outsider refused (EACCES), holds a live QP, unloads;
#      the kernel log stays clean, the module's refcount is 0 with the QP
#      live, and the slab total does not grow with the cycle count;
#   b. the rxe device is deleted while an RC transfer runs, then added again:
#      the device registry (`dev show`) follows and enforcement resumes;
#   c. the netdev under the rxe device goes down and up under a live QP;
#   d. after each fault `apply` gives back exactly the intended state.
#   e. allocation failures in the module's own paths, with the
#      fault-injection build the VM runner ships as
#      $EW_SHARED/eastwest-fault.ko (see Documentation/hardening.md): module
#      init failing at each step (insmod fails with ENOMEM and leaves no
#      module, family, hook or cache), then each netlink operation failing at
#      each of its points (an error, and the state as before), QP tracking,
#      the device registry (on a device whose registration failed the
#      policy holds, and a connect onto a QP at this node's address that is
#      not the job's is still refused) and event delivery.
#
# Cycles: EW_FAULTS_CYCLES (default 3, the CI size). Environment variables
# do not cross into the guest, so the test also reads an optional file
# $EW_TOP/build/faults.env (e.g. "EW_FAULTS_CYCLES=100"); remove it after a
# long run. ew-timeout above covers 100 cycles under TCG with room for a
# loaded host (~7-9 s a cycle on an idle one; 10 take about 1.5 min there).

# shellcheck source=selftests/lib.sh
. "$(dirname "$0")/../lib.sh"

# shellcheck disable=SC1091 # optional, written by whoever wants a long run
[ -f "$EW_TOP/build/faults.env" ] && . "$EW_TOP/build/faults.env"
CYCLES=${EW_FAULTS_CYCLES:-3}

DEV=rxef
NETDEV=ewf0
ADDR=198.51.100.1
CG=/sys/fs/cgroup

ew_require_root
ew_require_cmd rdma ip genl ibv_rc_pingpong python3
ew_require_built ctl verbs cgroup
case $CYCLES in
'' | *[!0-9]*) ew_bail "EW_FAULTS_CYCLES must be a number, not '$CYCLES'" ;;
esac

ew_tmp_dir
ew_defer "rmdir $CG/ewF $CG/ewG $CG/ewF2 $CG/ewN $CG/ewH"
ew_defer "ew_netdev_del $NETDEV"
ew_defer "rdma link delete $DEV"
ew_defer "ew_rmmod"
ew_defer "pkill -f 'ew_verbs rc-hold $DEV'"
ew_defer "pkill -f 'ibv_rc_pingpong -d $DEV'"

# The intended state: job ewF may reach the test subnet, job ewG only a
# stranger; ewG's processes are the outsiders of every check.
POLICY=$EW_TMP/policy.json
cat >"$POLICY" <<JSON
{ "config": { "mode": "enforce", "default_action": "deny" },
  "jobs": [ { "id": 41, "name": "ewF", "cgroups": ["/ewF"],
              "peers": ["198.51.100.0/24"] },
            { "id": 42, "name": "ewG", "cgroups": ["/ewG"],
              "peers": ["203.0.113.9/32"] } ] }
JSON

# apply_and_compare: apply the policy; the node's state must then equal the
# reference taken after the first apply.
apply_and_compare() {
	"$CTL" apply -f "$POLICY" >/dev/null || return 1
	"$CTL" -j show >"$EW_TMP/state" || return 1
	cmp "$EW_TMP/ref" "$EW_TMP/state"
}

# connect_as CGROUP: one RC QP from CGROUP to ADDR through INIT->RTR.
connect_as() {
	ew_in_cg "$1" "$VERBS" rc-connect "$DEV" "$IDX" "$ADDR" self
}

# enforcement_ok: job ewF connects, ewG is refused with EACCES (13).
enforcement_ok() {
	connect_as /ewF >"$EW_TMP/c" 2>&1 || {
		echo "job ewF was refused:"
		cat "$EW_TMP/c"
		return 1
	}
	connect_as /ewG >"$EW_TMP/c" 2>&1
	_rc=$?
	[ "$_rc" -eq 13 ] && return 0
	echo "outsider (ewG) got exit $_rc, not 13:"
	cat "$EW_TMP/c"
	return 1
}

# hold OUT: a live RC QP of job ewF in RTS, in the background (HOLD_PID).
hold() {
	ew_in_cg_bg /ewF stdbuf -oL "$VERBS" rc-hold "$DEV" "$IDX" "$ADDR" self 120 >"$1" 2>&1
	HOLD_PID=$EW_BG_PID
	ew_wait_for 20 grep -q connected "$1"
}

stop_hold() {
	kill "$HOLD_PID" 2>/dev/null
	wait "$HOLD_PID" 2>/dev/null
	return 0
}

# qp_count JOB: the live QPs the module tracks for JOB.
qp_count() {
	"$CTL" -j job show "$1" | tr -d '\n' | sed -n 's/.*"qp_count": *\([0-9]*\).*/\1/p'
}

dev_listed() {
	"$CTL" dev show | grep -q "^dev $DEV "
}

# no_splat_since_mark: no oops, warning or leaked slab object since the mark.
no_splat_since_mark() {
	! ew_dmesg_since_mark 'WARNING:|BUG:|Oops|Call Trace:|refcount_t:|still has objects'
}

# slab_bytes: bytes in the kmalloc caches (active objects x object size),
# where the module's own allocations go; its two kmem caches (ew_peer,
# ew_qp) are destroyed at each unload, which fails loudly if not empty.
slab_bytes() {
	awk '$1 ~ /^kmalloc-/ { s += $2 * $4 } END { printf "%d\n", s }' /proc/slabinfo
}

# one_cycle N: one load/unload cycle with a live QP; says why on failure.
one_cycle() {
	ew_load || return 1
	apply_and_compare || { echo "cycle $1: apply did not restore the policy"; return 1; }
	enforcement_ok || { echo "cycle $1: enforcement wrong after load"; return 1; }
	hold "$EW_TMP/hold" || { echo "cycle $1: no live QP:"; cat "$EW_TMP/hold"; return 1; }
	_n=$(qp_count ewF)
	[ "$_n" -ge 1 ] || { echo "cycle $1: job ewF tracks $_n QPs, not >= 1"; return 1; }
	# The jobs pin the module (one reference); a live QP takes none.
	_ref=$(cat /sys/module/eastwest/refcnt)
	[ "$_ref" -eq 1 ] || { echo "cycle $1: refcnt $_ref with jobs and a live QP, not 1"; return 1; }
	rmmod eastwest 2>/dev/null && { echo "cycle $1: rmmod went through with jobs"; return 1; }
	ew_jobs_del_all
	_ref=$(cat /sys/module/eastwest/refcnt)
	[ "$_ref" -eq 0 ] || { echo "cycle $1: refcnt $_ref with no job, not 0"; return 1; }
	ew_unload || { echo "cycle $1: unload failed"; return 1; }
	# The QP outlives the module; its owner closes it with no hook left.
	stop_hold
}

if [ -f "${EW_FAULT_KO:-$EW_SHARED/eastwest-fault.ko}" ]; then
	ew_plan 61
else
	ew_plan 30
fi

# --- setup ------------------------------------------------------------------
mkdir -p "$CG/ewF" "$CG/ewG"
ew_check "dummy netdev $NETDEV ($ADDR)" ew_dummy_add "$NETDEV" "$ADDR/24"
ew_check "$DEV on $NETDEV" ew_rxe_add "$DEV" "$NETDEV"
IDX=$(ew_wait_gid_index "$DEV" "$ADDR")
ew_check "GID of $ADDR found (index ${IDX:-none})" test -n "$IDX"
ew_check "eastwest.ko loads" ew_load
ew_check "the policy applies" "$CTL" apply -f "$POLICY"
"$CTL" -j show >"$EW_TMP/ref"
ew_check "enforcement: job connects, outsider refused" enforcement_ok
ew_check "unload" ew_unload

# --- a. load/unload cycles with live QPs --------------------------------------
ew_dmesg_mark
one_cycle 0 >/dev/null 2>&1 # warm-up: first-use allocations are not leaks
slab0=$(slab_bytes)
cp /proc/slabinfo "$EW_TMP/slab0"
t0=$(date +%s)
i=1
fail=
while [ "$i" -le "$CYCLES" ]; do
	if ! one_cycle "$i" >"$EW_TMP/cycle" 2>&1; then
		fail=$i
		break
	fi
	i=$((i + 1))
done
t1=$(date +%s)
slab1=$(slab_bytes)
ew_diag "$CYCLES cycles in $((t1 - t0)) s; kmalloc caches $slab0 -> $slab1 bytes"
if [ -n "$fail" ]; then
	ew_not_ok "$CYCLES load/unload cycles with a live QP (failed in cycle $fail)"
	sed 's/^/#   /' "$EW_TMP/cycle"
	stop_hold
	ew_module_loaded && ew_rmmod
else
	ew_ok "$CYCLES load/unload cycles with a live QP: apply, connect, refuse, unload"
fi
ew_check "no kernel splat during the cycles" no_splat_since_mark
# Growth allowed: 128 KiB of noise (the kmalloc caches are shared with the
# rest of the kernel: rdma_rxe, uverbs, 9p, the shell) plus 512 bytes per
# cycle; a leaked job, binding or policy record per cycle over 100 cycles
# exceeds it. No kmemleak in Debian kernels: this is the coarse substitute.
limit=$((131072 + CYCLES * 512))
growth=$((slab1 - slab0))
if [ "$growth" -gt "$limit" ]; then
	awk 'NR == FNR { if (FNR > 2) a[$1] = $2 * $4; next }
	     FNR > 2 && $2 * $4 - a[$1] > 2048 { print $1, $2 * $4 - a[$1] }' \
		"$EW_TMP/slab0" /proc/slabinfo | sort -k2 -rn | head -n 8 >"$EW_TMP/grew"
	ew_not_ok "slab does not grow with the cycles ($growth bytes > $limit)"
	sed 's/^/#   /' "$EW_TMP/grew"
else
	ew_ok "slab does not grow with the cycles ($growth bytes, limit $limit)"
fi

# --- b. rxe device deleted during an RC transfer, then added again ------------
ew_check "load for the device faults" ew_load
ew_check "apply" apply_and_compare
ew_check "the registry lists $DEV" dev_listed
ew_in_cg_bg /ewF ibv_rc_pingpong -d "$DEV" -g "$IDX" -n 100000000 >"$EW_TMP/srv" 2>&1
SRV=$EW_BG_PID
ew_wait_listen 18515
ew_in_cg_bg /ewF stdbuf -oL ibv_rc_pingpong -d "$DEV" -g "$IDX" -n 100000000 "$ADDR" \
	>"$EW_TMP/cli" 2>&1
CLI=$EW_BG_PID
ew_wait_for 20 grep -q 'remote address' "$EW_TMP/cli"
sleep 1
ew_check "an RC transfer of job ewF runs (2 live QPs)" \
	sh -c "kill -0 $CLI && kill -0 $SRV && test \"\$1\" -ge 2" - "$(qp_count ewF)"
ew_dmesg_mark
# rxe has no disassociate_ucontext: unregistering waits until the users
# close the device, so the delete runs in the background and the transfer's
# processes, which never read async events, are stopped after a while.
rdma link delete "$DEV" >"$EW_TMP/del" 2>&1 &
DEL=$!
sleep 3
kill "$CLI" "$SRV" 2>/dev/null
wait "$CLI" "$SRV" 2>/dev/null
if ew_wait_for 30 sh -c "! kill -0 $DEL 2>/dev/null"; then
	ew_check "the delete completes once the transfer is gone" test ! -e "/sys/class/infiniband/$DEV"
else
	ew_not_ok "the delete completes once the transfer is gone (still blocked after 30 s)"
	ew_diag "rdma: $(cat /proc/"$DEL"/stack 2>/dev/null)"
	for f in /proc/[0-9]*/fd/*; do
		case $(readlink "$f" 2>/dev/null) in
		/dev/infiniband/*) p=${f#/proc/}; p=${p%%/*}
			ew_diag "holds $(readlink "$f"): pid $p $(tr '\0' ' ' <"/proc/$p/cmdline") $(grep '^State' "/proc/$p/status")" ;;
		esac
	done
	ew_bail "rdma link delete $DEV hangs"
fi
wait "$DEL" 2>/dev/null
ew_check "the registry drops $DEV" ew_wait_for 10 sh -c "! \"\$0\" dev show | grep -q '^dev $DEV '" "$CTL"
ew_check "job ewF tracks no QP after the delete" test "$(qp_count ewF)" -eq 0
ew_check "$DEV added again" ew_rxe_add "$DEV" "$NETDEV"
IDX=$(ew_wait_gid_index "$DEV" "$ADDR")
ew_check "the registry lists $DEV again (GID index ${IDX:-none})" \
	sh -c "test -n '$IDX' && ew_wait() { n=50; while ! \"\$0\" dev show | grep -q '^dev $DEV '; do
		n=\$((n - 1)); [ \$n -gt 0 ] || return 1; sleep 0.2; done; }; ew_wait" "$CTL"
ew_check "apply restores the policy after the device fault" apply_and_compare
ew_check "enforcement resumes on the new device" enforcement_ok

# --- c. netdev down/up under a live QP ----------------------------------------
ew_check "a live QP of job ewF" hold "$EW_TMP/hold"
ew_check "$NETDEV down with the QP live" ip link set dev "$NETDEV" down
sleep 1
ew_check "$NETDEV up again" ip link set dev "$NETDEV" up
IDX=$(ew_wait_gid_index "$DEV" "$ADDR" 20)
ew_check "the GID of $ADDR is back (index ${IDX:-none})" test -n "$IDX"
stop_hold
ew_check "apply restores the policy after the netdev fault" apply_and_compare
ew_check "enforcement after down/up" enforcement_ok
ew_check "no kernel splat during the device and netdev faults" no_splat_since_mark
ew_check "unload" ew_unload

# --- e. allocation failures (fault-injection build) --------------------------
# walk CMD...: run CMD with the Nth injection point failing, N = 1, 2,
# ... until CMD's path has no Nth point. Each run that fails must fail whole
# (the state is as before) and report ENOMEM ("memory" or "(-12)"); each
# that succeeds must leave the state CMD gives with no fault, and `apply`
# then brings back the policy. Prints how many points the path has.
walk() {
	"$@" >"$EW_TMP/w" 2>&1 || { echo "$* fails with no fault:"; cat "$EW_TMP/w"; return 1; }
	"$CTL" -j show >"$EW_TMP/after"
	"$CTL" apply -f "$POLICY" >/dev/null || return 1
	_n=1
	while [ "$_n" -le 32 ]; do
		echo "$_n" >"$FP/fault_nth"
		"$@" >"$EW_TMP/w" 2>&1
		_rc=$?
		read -r _left <"$FP/fault_nth"
		echo 0 >"$FP/fault_nth"
		"$CTL" -j show >"$EW_TMP/now"
		if [ "$_rc" -ne 0 ]; then
			[ "$_left" -eq 0 ] || { echo "N=$_n: $* failed with no fault injected:"; cat "$EW_TMP/w"; return 1; }
			grep -qiE 'memory|\(-12\)' "$EW_TMP/w" || { echo "N=$_n: $* did not report out of memory:"; cat "$EW_TMP/w"; return 1; }
			cmp -s "$EW_TMP/ref" "$EW_TMP/now" || { echo "N=$_n: $* failed but changed the state:"; diff "$EW_TMP/ref" "$EW_TMP/now"; return 1; }
			# The state is the reference: nothing to restore.
		else
			cmp -s "$EW_TMP/after" "$EW_TMP/now" || { echo "N=$_n: $* succeeded with a different state:"; diff "$EW_TMP/after" "$EW_TMP/now"; return 1; }
			if [ "$_left" -gt 0 ]; then
				echo "$((_n - 1)) injection points on the path"
				"$CTL" apply -f "$POLICY" >/dev/null
				return 0
			fi
			"$CTL" apply -f "$POLICY" >/dev/null || { echo "N=$_n: apply failed afterwards"; return 1; }
			cmp -s "$EW_TMP/ref" "$(state_now)" || { echo "N=$_n: apply did not restore"; return 1; }
		fi
		_n=$((_n + 1))
	done
	echo "more than 32 injection points on $*?"
	return 1
}

state_now() {
	"$CTL" -j show >"$EW_TMP/now2"
	echo "$EW_TMP/now2"
}

# check_walk DESC CMD...: an assertion over walk, with its count in the line.
check_walk() {
	_d=$1
	shift
	if walk "$@" >"$EW_TMP/walk" 2>&1; then
		ew_ok "$_d: $(tail -n 1 "$EW_TMP/walk"), each failure whole"
	else
		ew_not_ok "$_d"
		sed 's/^/#   /' "$EW_TMP/walk"
	fi
}

FAULT_KO=${EW_FAULT_KO:-$EW_SHARED/eastwest-fault.ko}
FP=/sys/module/eastwest/parameters
ENABLED=/sys/kernel/tracing/enabled_functions
HOOKED_ERE="ib_modify_qp_with_udata|rdma_create_user_ah|ib_create_qp_user|ib_destroy_qp_user|ib_attach_mcast|ib_detach_mcast|rdma_restrack_get|rdma_restrack_get_byid|ib_query_port|rdma_connect_ece|rdma_listen|rdma_accept_ece|rdma_reject|cma_cm_event_handler"

# slab_refs: for each of the module's kmem caches, how many caches share
# the slab cache it lives in. SLUB merges ew_peer and ew_qp into compatible
# caches (/sys/kernel/slab/ew_peer is then a link, left behind after
# unload), where a cache that is never destroyed shows only as one more
# alias; "-" where there is no such entry.
slab_refs() {
	for _c in ew_peer ew_qp; do
		_v=-
		[ -r "/sys/kernel/slab/$_c/aliases" ] && read -r _v <"/sys/kernel/slab/$_c/aliases"
		printf '%s ' "$_v"
	done
}

# nothing_left: no trace of a failed load: no module, no generic netlink
# family, no ftrace ops on a hooked function, no kmem cache (neither a
# slabinfo line of its own nor an alias more than SLAB_REFS, taken with
# the module unloaded).
nothing_left() {
	if ew_module_loaded; then
		echo "the module is there"
		return 1
	fi
	if genl ctrl get name eastwest >"$EW_TMP/genl" 2>&1 ||
		! grep -q 'No such file' "$EW_TMP/genl"; then
		echo "the eastwest family is there:"
		cat "$EW_TMP/genl"
		return 1
	fi
	grep -E "^($HOOKED_ERE) " "$ENABLED"
	case $? in
	0) echo "a hooked function still has an ftrace ops"; return 1 ;;
	1) ;;
	*) echo "cannot read $ENABLED (tracefs)"; return 1 ;;
	esac
	if grep -E '^ew_(peer|qp) ' /proc/slabinfo; then
		echo "a slab cache of the module is left"
		return 1
	fi
	_refs=$(slab_refs)
	[ "$_refs" = "$SLAB_REFS" ] ||
		{ echo "slab aliases of ew_peer ew_qp: $_refs, not $SLAB_REFS"; return 1; }
}

# init_walk: insmod the fault build with fault_nth=N, N = 1, 2, ... (the
# parameter is set before init runs). A load that fails must fail with
# ENOMEM and leave nothing behind. Loads that succeed with a failure
# injected are the device registry's allocations for $DEV (its record, its
# source cache, then its GIDs for the local-destination set), whose failure
# the IB core ignores: they must be consecutive, and each leaves $DEV out of the
# registry; the first (the record's) N is REG_N. The first load with no
# failure injected ends the walk: INIT_POINTS points before it.
init_walk() {
	SLAB_REFS=$(slab_refs)
	REG_N=
	REG_LAST=
	_n=1
	while [ "$_n" -le 32 ]; do
		if ew_insmod "$FAULT_KO" fault_nth="$_n" 2>"$EW_TMP/ins"; then
			read -r _inj <"$FP/fault_injected"
			echo 0 >"$FP/fault_nth"
			_registered=0
			"$CTL" dev show | grep -q "^dev $DEV " && _registered=1
			rmmod eastwest || { echo "N=$_n: rmmod fails"; return 1; }
			if [ "$_inj" -eq 0 ]; then
				INIT_POINTS=$((_n - 1))
				echo "$INIT_POINTS points, the registry's for $DEV N=$REG_N..$REG_LAST; slab aliases $SLAB_REFS"
				[ -n "$REG_N" ] || { echo "no load with the registry record failing"; return 1; }
				return 0
			fi
			[ "$_registered" -eq 0 ] ||
				{ echo "N=$_n: a load with a failure, and $DEV registered"; return 1; }
			[ -z "$REG_N" ] || [ "$REG_LAST" -eq $((_n - 1)) ] ||
				{ echo "N=$_n: a load with a failure after N=$REG_LAST, not next to it"; return 1; }
			REG_N=${REG_N:-$_n}
			REG_LAST=$_n
		else
			grep -q 'Cannot allocate memory' "$EW_TMP/ins" ||
				{ echo "N=$_n: insmod fails, but not with ENOMEM:"; cat "$EW_TMP/ins"; return 1; }
			nothing_left || { echo "N=$_n: the failed load left the above"; return 1; }
		fi
		_n=$((_n + 1))
	done
	echo "more than 32 injection points in module init?"
	return 1
}

# events_unsent: with a listener (eastwestctl monitor), a denial whose event
# finds no memory for its message is lost to the listener only, and counted
# in the kernel log; the next one is delivered. The caller is in no job
# (cgroup ewN), so that its QP is refused at INIT, before any QP tracking
# record: the event's message is the only injection point on the path.
events_unsent() {
	stdbuf -oL "$CTL" monitor >"$EW_TMP/mon" 2>&1 &
	_mon=$!
	_ok=1
	# A first denial, delivered, shows that the monitor listens.
	ew_monitor_wait "$_mon"
	connect_as /ewN >/dev/null 2>&1
	ew_wait_for 10 grep -q ' job none ' "$EW_TMP/mon"
	_n0=$(grep -c ' job none ' "$EW_TMP/mon")
	if [ "$_n0" -eq 0 ]; then
		echo "the monitor got no denial:"
		cat "$EW_TMP/mon"
	else
		_inj=$(cat "$FP/fault_injected")
		echo 1 >"$FP/fault_nth"
		connect_as /ewN >/dev/null 2>&1
		_rc=$?
		# The event worker sends a jiffy later: let it meet the fault.
		ew_wait_for 10 sh -c "test \$(cat '$FP/fault_injected') -gt $_inj"
		echo 0 >"$FP/fault_nth"
		if [ "$_rc" -ne 13 ]; then
			echo "the connect in no job exits $_rc, not 13"
		elif [ "$(cat "$FP/fault_injected")" -ne $((_inj + 1)) ]; then
			echo "no failure injected"
		elif ! ew_dmesg_wait 'eastwest: 1 events not sent to listeners: out of memory'; then
			:
		elif [ "$(grep -c ' job none ' "$EW_TMP/mon")" -ne "$_n0" ]; then
			echo "the monitor got the event whose message failed:"
			cat "$EW_TMP/mon"
		else
			connect_as /ewN >/dev/null 2>&1
			if ew_wait_for 10 sh -c "test \$(grep -c ' job none ' '$EW_TMP/mon') -eq $((_n0 + 1))"; then
				_ok=0
			else
				echo "the next denial did not reach the monitor:"
				cat "$EW_TMP/mon"
			fi
		fi
	fi
	kill "$_mon" 2>/dev/null
	wait "$_mon" 2>/dev/null
	return "$_ok"
}

if [ ! -f "$FAULT_KO" ]; then
	ew_skip_one "allocation failures in the module's own paths" \
		"no fault-injection build at $FAULT_KO: the VM runner does not ship 'make module-fault' yet"
else
	ew_dmesg_mark
	t0=$(date +%s)
	if init_walk >"$EW_TMP/iw" 2>&1; then
		ew_ok "module init: $INIT_POINTS injection points, each failed insmod ENOMEM with nothing left"
	else
		ew_not_ok "module init under injected failures"
		sed 's/^/#   /' "$EW_TMP/iw"
	fi
	ew_diag "init walk: $(cat "$EW_TMP/iw") ($(($(date +%s) - t0)) s)"
	ew_check "a normal load still works" ew_load
	ew_check "unload" ew_unload
	# The IB core ignores a client's failed add(): the device stays
	# unknown to the registry (dev show, QPN audit), while the decisions,
	# which do not depend on it, must still be enforced on it.
	# shellcheck disable=SC2034 # read by ew_load (lib.sh)
	EW_KO=$FAULT_KO
	ew_check "the fault-injection build loads with $DEV's registry record failing" \
		ew_load fault_nth="${REG_N:-0}"
	ew_check "$DEV is not in the registry" sh -c "! '$CTL' dev show | grep -q '^dev $DEV '"
	ew_check "apply" apply_and_compare
	ew_check "the policy still holds on the unregistered device" enforcement_ok
	# Its GIDs are in no set of this node's: found local from its own
	# table, a QP at this node's address is still only the job's own.
	mkdir -p "$CG/ewH"
	ew_check "job ewH, also allowed $ADDR" "$CTL" job add ewH cgroup /ewH peer "$ADDR"
	ew_expect_rc 13 "on it, job ewH's connect to a QP at this node's address that is not its job's is refused" \
		ew_in_cg /ewH "$VERBS" rc-connect "$DEV" "$IDX" "$ADDR" 0xabcde
	ew_check "job ewH deleted" "$CTL" job del ewH
	ew_check "unload" ew_unload
	ew_check "the fault-injection build loads" ew_load
	ew_check "apply" apply_and_compare
	mkdir -p "$CG/ewF2" "$CG/ewN"
	check_walk "job add" "$CTL" job add ewX id 50 cgroup /ewF2 peer 10.9.0.0/16 peer 10.8.0.1
	check_walk "peer add" "$CTL" peer add ewF 10.7.0.1 10.7.0.2
	check_walk "job set" "$CTL" job set ewF qkey 0x2222
	check_walk "peer del (deferred free falls back to synchronize_rcu)" \
		"$CTL" peer del ewF 198.51.100.0/24
	# job add's walk covers the reply of a write; this one that of a read.
	check_walk "config show (reply message)" "$CTL" config show
	ew_check "event delivery: a message that cannot be allocated is counted, the next is sent" \
		events_unsent
	allowed0=$(ew_counter ewF allowed)
	internal0=$(ew_counter ewF denied_internal)
	ew_dmesg_mark
	# A fresh window of the denial log's rate limit (10 lines per 5 s).
	sleep 5
	echo 1 >"$FP/fault_nth"
	connect_as /ewF >"$EW_TMP/c" 2>&1
	rc=$?
	echo 0 >"$FP/fault_nth"
	ew_check "no QP tracking record: the job's connect is refused (exit $rc)" \
		test "$rc" -ne 0 -a "$(cat "$FP/fault_injected")" -ge 1
	ew_check "counted once, as an internal denial (not also as allowed)" \
		test "$(ew_counter ewF denied_internal)" -eq $((internal0 + 1)) \
		-a "$(ew_counter ewF allowed)" -eq "$allowed0"
	ew_check "its log line names the job and the process" \
		ew_dmesg_wait "denied modify_qp: cannot evaluate: job $(ew_job_id ewF) pid [1-9][0-9]* \\(ew_verbs\\)" 10
	ew_check "with memory back, enforcement is right" enforcement_ok
	ew_check "$DEV deleted" ew_rxe_del "$DEV"
	echo 1 >"$FP/fault_nth"
	ew_check "$DEV added while its registry record fails" ew_rxe_add "$DEV" "$NETDEV"
	echo 0 >"$FP/fault_nth"
	IDX=$(ew_wait_gid_index "$DEV" "$ADDR")
	ew_check "$DEV is not in the registry" sh -c "! '$CTL' dev show | grep -q '^dev $DEV '"
	ew_check "the policy still holds on the hot-added unregistered device" enforcement_ok
	ew_rxe_del "$DEV"
	ew_rxe_add "$DEV" "$NETDEV"
	IDX=$(ew_wait_gid_index "$DEV" "$ADDR")
	ew_check "re-added with no fault: listed again" ew_wait_for 10 dev_listed
	ew_check "enforcement right on it" enforcement_ok
	ew_check "apply restores the policy" apply_and_compare
	ew_check "no kernel splat under injected failures" no_splat_since_mark
	ew_check "unload" ew_unload
fi

ew_done
