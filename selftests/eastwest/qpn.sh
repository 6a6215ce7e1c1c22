#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 1
# ew-timeout: 600
#
# Unpredictable QP numbers on soft-RoCE, on one node (rxe on lo):
#   - control, without the module: 64 QPs created in a row get consecutive
#     QPNs (the next one is known to anyone who sees one);
#   - with the module: dev show says "qpns random" (text and JSON); 64 QPs
#     created in a row: no two consecutive, not monotonic, spread over the
#     range (span > 2^16 of rxe's 2^20); still after 3200 creates and
#     destroys; a device created with the module loaded, and rdma_rxe
#     unloaded and loaded again under the module, likewise;
#   - ibv_rc_pingpong (rxe0 on lo) and rping (rdma_cm, on rxe1 over a dummy
#     netdev: rdma_cm resolves no route over lo) still connect;
#   - after the module is unloaded: consecutive again;
#   - fail-safe, with the fault build (fault_qpnrand=1: the kprobe cannot
#     be registered; =2: its self-test at load fails): the module loads,
#     the kernel log says why, dev show says "qpns sequential", QPNs are
#     consecutive (the kprobe is not left armed), and the module still
#     judges: job A connects, a process in no job is refused.

. "$(dirname "$0")/../lib.sh"

DEV=rxe0
CG=/sys/fs/cgroup
FAULT_KO=${EW_FAULT_KO:-$EW_SHARED/eastwest-fault.ko}
LOOP=127.0.0.1
DADDR=198.51.100.1
N=64

ew_require_root
ew_require_cmd rdma python3 ibv_rc_pingpong
ew_require_built ctl verbs cgroup

ew_tmp_dir
ew_defer "rmdir $CG/ewA $CG/ewB $CG/ewN"
ew_defer "ew_netdev_del ewd0"
ew_defer "rdma link delete rxe1"
ew_defer "rdma link delete $DEV"
ew_defer "ew_rmmod"
ew_defer "pkill -f ibv_rc_pingpong; pkill -f rping"

# qpns FILE [ROUNDS] [CGROUP]: ew_verbs qpn-list's QPNs of $N QPs into FILE.
qpns() {
	if [ -n "${3:-}" ]; then
		ew_in_cg "$3" "$VERBS" qpn-list "$DEV" "$N" "${2:-1}" >"$1.out"
	else
		"$VERBS" qpn-list "$DEV" "$N" "${2:-1}" >"$1.out"
	fi || return 1
	sed -n 's/^qpn //p' "$1.out" >"$1"
	[ "$(wc -l <"$1")" -eq "$N" ]
}

# judge FILE sequential|random: the QPNs in FILE (creation order) are
# consecutive, or unpredictable (no two consecutive, not monotonic, all
# distinct, spread: span above 2^16).
judge() {
	python3 - "$@" <<'PY'
import sys
q = [int(l, 16) for l in open(sys.argv[1])]
steps = [b - a for a, b in zip(q, q[1:])]
consec = sum(1 for s in steps if s == 1)
mono = all(s > 0 for s in steps) or all(s < 0 for s in steps)
span = max(q) - min(q)
print("# %d QPNs %s ... %s: %d consecutive steps, monotonic %s, span 0x%x, distinct %d"
      % (len(q), " ".join(hex(x) for x in q[:6]), hex(q[-1]), consec, mono,
         span, len(set(q))))
if sys.argv[2] == "sequential":
    sys.exit(0 if consec == len(steps) else 1)
sys.exit(0 if consec == 0 and not mono and span > 1 << 16
         and len(set(q)) == len(q) else 1)
PY
}

# rping_pair: 5 verified rdma_cm pings to $DADDR between two processes in ewB.
rping_pair() {
	ew_in_cg /ewB timeout 60 rping -s -a "$DADDR" -C 5 -v >"$EW_TMP/rping-s" 2>&1 &
	_rs=$!
	sleep 2
	ew_in_cg /ewB timeout 60 rping -c -a "$DADDR" -C 5 -v >"$EW_TMP/rping-c" 2>&1
	_rc=$(ew_rping_status "$EW_TMP/rping-c" $?)
	kill $_rs 2>/dev/null
	wait $_rs 2>/dev/null
	return $_rc
}

ew_plan 36

# rxe1_up: rxe1 on dummy netdev ewd0 ($DADDR), job B allowed $DADDR, and
# dev show says rxe1's QPNs are random.
rxe1_up() {
	ew_dummy_add ewd0 "$DADDR/24" && ew_rxe_add rxe1 ewd0 &&
		"$CTL" job add ewB cgroup /ewB peer "$DADDR" >/dev/null &&
		"$CTL" dev show | grep -q '^dev rxe1 .* qpns random$'
}

# qpns_are FILE sequential|random [ROUNDS] [CGROUP]: make and judge $N QPNs.
qpns_are() {
	qpns "$1" "${3:-1}" "${4:-}" && judge "$1" "$2"
}

# --- control: no module ----------------------------------------------------------
ew_check "eastwest is not loaded (control)" sh -c "! [ -d /sys/module/eastwest ]"
ew_check "$DEV on lo" ew_rxe_add "$DEV" lo
ew_check "without the module: $N QPNs in a row are consecutive (control)" \
	qpns_are "$EW_TMP/before" sequential
judge "$EW_TMP/before" sequential
mkdir -p "$CG/ewA" "$CG/ewB"

# --- with the module ---------------------------------------------------------------
ew_check "eastwest.ko loads" ew_load
ew_check "the kernel log says soft-RoCE QPNs are randomised" \
	sh -c "dmesg | grep -q 'eastwest: soft-RoCE QPNs are randomised'"
ew_check "dev show: $DEV qpns random (text)" \
	sh -c "'$CTL' dev show | grep -q '^dev $DEV .* qpns random\$'"
ew_check "dev show: $DEV qpns random (JSON)" sh -c "'$CTL' -j dev show | python3 -c '
import json, sys
sys.exit(0 if [d[\"qpns\"] for d in json.load(sys.stdin) if d[\"name\"] == \"$DEV\"] == [\"random\"] else 1)'"
ew_check "job A (peer $LOOP)" "$CTL" job add ewA cgroup /ewA peer "$LOOP"
ew_check "with the module: $N QPNs in a row are unpredictable" \
	qpns_are "$EW_TMP/with" random 1 /ewA
judge "$EW_TMP/with" random
ew_check "$((N * 50)) QP creates and destroys all succeed; the last $N QPNs unpredictable" \
	qpns_are "$EW_TMP/churn" random 50 /ewA

# --- real clients ------------------------------------------------------------
IDX=$(ew_wait_gid_index "$DEV" "$LOOP" 20)
ew_check "GID of $LOOP found (index ${IDX:-none})" test -n "$IDX"
ew_pingpong_lo "ibv_rc_pingpong: 20 verified round trips under the module" /ewA "${IDX:-1}"
grep -h "local address" "$EW_TMP/srv" | sed 's/^/# server: /'
# rdma_cm resolves no route over lo (rdma_resolve_route: No such device,
# with or without the module): rping runs on rxe1 over a dummy netdev.
ew_check "rxe1 on a dummy netdev ($DADDR), job B (peer $DADDR); dev show: rxe1 qpns random" \
	rxe1_up
if command -v rping >/dev/null; then
	ew_check "rping (rdma_cm) on rxe1: 5 verified pings under the module" rping_pair
else
	ew_skip_one "rping (rdma_cm): 5 verified pings" "rping (rdmacm-utils) is not installed"
fi
rdma link delete rxe1

# --- devices and rdma_rxe coming and going under the module ---------------------
ew_check "$DEV deleted" ew_rxe_del "$DEV"
ew_check "$DEV created again with the module loaded" ew_rxe_add "$DEV" lo
ew_check "its QPNs are unpredictable" qpns_are "$EW_TMP/readd" random 1 /ewA
ew_check "$DEV deleted, rdma_rxe unloaded" sh -c "
	rdma link delete $DEV && sleep 1 && modprobe -r rdma_rxe && ! [ -d /sys/module/rdma_rxe ]"
ew_check "rdma_rxe loaded again (rdma link add), $DEV on lo" ew_rxe_add "$DEV" lo
ew_check "dev show: qpns random again" \
	sh -c "'$CTL' dev show | grep -q '^dev $DEV .* qpns random\$'"
ew_check "QPNs of the reloaded rdma_rxe are unpredictable" \
	qpns_are "$EW_TMP/reload" random 1 /ewA

# --- unloaded: back to rxe's order -------------------------------------------------
ew_check "eastwest unloads" ew_unload
ew_check "without the module again: consecutive" qpns_are "$EW_TMP/after" sequential
ew_check "$DEV deleted" ew_rxe_del "$DEV"

# --- fail-safe: QPN randomisation that cannot arm --------------------------------
# log_says_sequential: since the mark, the module logged that soft-RoCE QPNs
# stay sequential, and not that they are randomised.
log_says_sequential() {
	ew_dmesg_since_mark >"$EW_TMP/log"
	grep -q 'soft-RoCE QPNs stay sequential' "$EW_TMP/log" &&
		! grep -q 'QPNs are randomised' "$EW_TMP/log" || { cat "$EW_TMP/log" >&2; return 1; }
}

# failsafe STEP WHY: the fault build loaded with fault_qpnrand=STEP; 5 checks.
failsafe() {
	ew_dmesg_mark
	ew_check "fault build, fault_qpnrand=$1 ($2): eastwest.ko loads" \
		ew_insmod "$FAULT_KO" fault_qpnrand="$1"
	ew_check "... the kernel log says QPNs stay sequential" log_says_sequential
	ew_check "... dev show: $DEV qpns sequential" \
		sh -c "'$CTL' dev show | grep -q '^dev $DEV .* qpns sequential\$'"
	"$CTL" job add ewA cgroup /ewA peer "$LOOP" >/dev/null 2>&1
	ew_check "... $N QPNs in a row are consecutive (no kprobe left armed)" \
		qpns_are "$EW_TMP/failsafe$1" sequential 1 /ewA
	ew_expect_rc 13 "... the module still judges: a process in no job is refused" \
		ew_in_cg /ewN "$VERBS" rc-connect "$DEV" "${IDX:-1}" "$LOOP" self
	"$CTL" job del ewA >/dev/null 2>&1
	rmmod eastwest
}
mkdir -p "$CG/ewN"
if [ -f "$FAULT_KO" ]; then
	ew_check "$DEV on lo again" ew_rxe_add "$DEV" lo
	IDX=$(ew_wait_gid_index "$DEV" "$LOOP" 20)
	failsafe 1 "the kprobe cannot be registered"
	failsafe 2 "its self-test fails"
	ew_check "$DEV deleted" ew_rxe_del "$DEV"
else
	# The 12 checks of the fail-safe part.
	for _i in $(seq 12); do
		ew_skip_one "fail-safe check $_i" "no $FAULT_KO (selftests/vm/run builds it)"
	done
fi
ew_done
