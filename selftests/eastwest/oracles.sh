#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 1
# ew-timeout: 240
#
# What shared counters tell a process outside a job about the job's QPs.
# soft-RoCE looks a packet's destination QP up before its Q_Key and counts
# a Q_Key violation only for the number of a live UD QP, and any user
# reads the port's counter (ibv_query_port()): one datagram with a wrong
# Q_Key per number, the counter read around it, finds every job's UD QPs.
# eastwest's node-wide decision counters and peer count (config-get) and
# a device's QPN audit (dev-get) move with other jobs' connections. rxe on
# lo; job A (ud on) holds a UD QP; under default allow a process in no job
# (uid 65534), whose address handles to this node are not judged, probes.
#
#   1. job A's UD QP in RTS (its number QA, read as root), and a number no
#      QP has (F);
#   2. the prober's datagram to QA with a wrong Q_Key: the counter it
#      reads does not move (0 -> 0), though root's rises by one (the
#      datagram was counted: the probe works);
#   3. its datagram to F: the counter it reads does not move either, and
#      root's does not rise;
#   4. root's own query still gives the counters; job A's UD QP is alive;
#   5. uid 65534 reads the configuration without the node's counters,
#      peer count and revoked nodes, and the device without its QPN audit;
#      root reads all.
# Against a module that leaves them to everyone (1965ba6), the prober read
# the counter rise by one for QA and not for F, and uid 65534 read the
# counters, the peer count and the audit.

. "$(dirname "$0")/../lib.sh"

DEV=rxe0
CG=/sys/fs/cgroup
LOOP=127.0.0.1

ew_require_root
ew_require_cmd rdma python3 setpriv
ew_require_built ctl verbs cgroup

ew_tmp_dir 755
ew_defer "rmdir $CG/ewA"
ew_defer "rdma link delete $DEV"
ew_defer "ew_unload"
ew_defer "ew_reap_all"

NOBODY=$(ew_nobody_script "$EW_TMP")

# root_viol: port 1's Q_Key violation counter, as root reads it.
root_viol() {
	"$VERBS" port-counters "$DEV" | sed -n 's/^qkey-viol \([0-9]*\) .*/\1/p'
}

# has FILE LINE: FILE has LINE (what it has goes to the check's output).
has() {
	grep -qx "$2" "$1" || { sed 's/^/# /' "$1" >&2; return 1; }
}

ew_plan 20

ew_load_rxe_lo
mkdir -p "$CG/ewA"
ew_check "job A (peer $LOOP, ud on)" "$CTL" job add ewA cgroup /ewA peer "$LOOP" ud on

# --- 1. job A's UD QP ------------------------------------------------------------------
ew_start_bg "$EW_TMP/a" /ewA "$NOBODY" "$VERBS" ud-hold "$DEV" 0x1234 200
APID=$EW_BG_PID
ew_check "1/job A's UD QP is in RTS" ew_wait_for 20 grep -qx ready "$EW_TMP/a"
QA=$(rdma -j res show qp link "$DEV/1" | python3 -c '
import json, sys
print(" ".join(hex(r["lqpn"]) for r in json.load(sys.stdin)
               if str(r.get("pid")) == sys.argv[1]))' "$APID")
F=0x123
ew_check "1/its number (${QA:-none}) and $F, a number no QP has" sh -c \
	"[ -n '$QA' ] && [ \$(echo $QA | wc -w) -eq 1 ] && rdma -j res show qp link '$DEV/1' | python3 -c 'import json, sys; sys.exit(any(r[\"lqpn\"] == $((F)) for r in json.load(sys.stdin)))'"

# --- 2, 3. the probes --------------------------------------------------------------------
ew_check "default allow" "$CTL" config set default allow
R0=$(root_viol)
ew_check "2/a process in no job sends a datagram with a wrong Q_Key to $QA" \
	sh -c "'$NOBODY' '$VERBS' ud-probe '$DEV' '$IDX' '$LOOP' 0x7777 '$QA' >'$EW_TMP/p2' 2>&1"
R1=$(root_viol)
ew_diag "2/$(cat "$EW_TMP/p2"); root: $R0 -> $R1"
ew_check "2/root's counter rose by one (the datagram was dropped for its Q_Key)" \
	test "$R1" -eq $((R0 + 1))
ew_check "2/the counter the prober reads did not move" has "$EW_TMP/p2" "qpn $QA: qkey-viol 0 -> 0"
ew_check "3/the same process sends one to $F" \
	sh -c "'$NOBODY' '$VERBS' ud-probe '$DEV' '$IDX' '$LOOP' 0x7777 '$F' >'$EW_TMP/p3' 2>&1"
R2=$(root_viol)
ew_diag "3/$(cat "$EW_TMP/p3"); root: $R1 -> $R2"
ew_check "3/the counter the prober reads did not move, nor root's" sh -c \
	"grep -qx 'qpn $F: qkey-viol 0 -> 0' '$EW_TMP/p3' && [ '$R2' -eq '$R1' ]"

# --- 4. root, job A ---------------------------------------------------------------------
ew_check "4/root reads the counter ($R2)" test "${R2:-0}" -gt 0
ew_check "4/job A's UD QP is alive" kill -0 "$APID"

# --- 5. eastwest's own counters -----------------------------------------------------------
YNL_DIR=/usr/src/linux-source-6.12/tools/net/ynl
SPEC=$EW_TOP/Documentation/netlink/specs/eastwest.yaml
SCHEMA=/usr/src/linux-source-6.12/Documentation/netlink/genetlink-legacy.yaml
ew_check "5/a node revoked (192.0.2.77)" "$CTL" node revoke 192.0.2.77
"$NOBODY" "$CTL" node show >"$EW_TMP/n-nobody" 2>&1
"$CTL" node show >"$EW_TMP/n-root" 2>&1
ew_check "5/uid 65534's node show lists no revoked node; root's does" sh -c \
	"! grep -q 192.0.2.77 '$EW_TMP/n-nobody' && grep -q '192.0.2.77 revoked' '$EW_TMP/n-root'"
ew_diag "5/uid 65534: $(cat "$EW_TMP/n-nobody")"
"$NOBODY" "$CTL" -j config show >"$EW_TMP/c-nobody" 2>&1
"$CTL" -j config show >"$EW_TMP/c-root" 2>&1
ew_check "5/uid 65534's config show has no peer count; root's has" sh -c \
	"grep -q '\"version\"' '$EW_TMP/c-nobody' && ! grep -q peer_count '$EW_TMP/c-nobody' && grep -q '\"peer_count\"' '$EW_TMP/c-root'"
ew_diag "5/uid 65534: $(cat "$EW_TMP/c-nobody")"
if [ -f "$YNL_DIR/cli.py" ]; then
	"$NOBODY" python3 "$YNL_DIR/cli.py" --spec "$SPEC" --schema "$SCHEMA" \
		--do config-get >"$EW_TMP/y-nobody" 2>&1
	python3 "$YNL_DIR/cli.py" --spec "$SPEC" --schema "$SCHEMA" \
		--do config-get >"$EW_TMP/y-root" 2>&1
	ew_check "5/uid 65534's config-get has no counters or revoked nodes; root's has" sh -c \
		"grep -q version '$EW_TMP/y-nobody' && ! grep -Eq 'counters|revoked-node' '$EW_TMP/y-nobody' &&
		 grep -q \"'counters'\" '$EW_TMP/y-root' && grep -q \"'revoked-node'\" '$EW_TMP/y-root'"
else
	ew_skip_one "5/uid 65534's config-get has no counters or revoked nodes" "no YNL CLI"
fi
"$NOBODY" "$CTL" -j dev show >"$EW_TMP/d-nobody" 2>&1
"$CTL" -j dev show >"$EW_TMP/d-root" 2>&1
ew_check "5/uid 65534's dev show has no QPN audit; root's has" sh -c \
	"grep -q '\"qpns\"' '$EW_TMP/d-nobody' && ! grep -q qpn_observed '$EW_TMP/d-nobody' && grep -q '\"qpn_observed\"' '$EW_TMP/d-root'"

kill "$APID" 2>/dev/null
ew_check "no oops, warning or leak in the kernel log" sh -c \
	"! dmesg | grep -Eq 'WARNING:|BUG:|Oops|Call Trace:|refcount_t:'"
ew_done
