#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 1
# ew-timeout: 420
# ew-kernels: 6.1
#
# Per-job isolation on one node, configured with eastwestctl only: two jobs
# (cgroups /ewA and /ewB) share one soft-RoCE device on lo. A connection in
# job A works; job B's attempt to inject into it with the victim's GID, QPN
# and PSN (the NeVerMore attack) is refused and reported; so are processes
# in no job, foreign source netdevs (for QPs and address handles), foreign
# Q_Keys, raw packet QPs (of a job, and of root in no job under default
# deny), UD QPs of a job that did not opt in to them (ud off) and address
# handles to strangers. Audit mode allows and counts instead.
# Finally the module is unloaded with live QPs and the device deleted while
# policies reference it.

. "$(dirname "$0")/../lib.sh"

DEV=rxe0
CG=/sys/fs/cgroup
LOOP=127.0.0.1

ew_require_root
ew_require_cmd rdma ip ibv_rc_pingpong
ew_require_built ctl verbs cgroup

ew_defer "rmdir $CG/ewA/sub $CG/ewA $CG/ewB"
ew_defer "rdma link delete $DEV"
ew_defer "ew_rmmod"
ew_defer "ew_netdev_del ewdum0"
ew_defer "pkill -f ibv_rc_pingpong"

# revoked_since_mark N: at least N "revoked qpn" kernel log lines since the mark.
revoked_since_mark() {
	[ "$(ew_dmesg_since_mark 'job [0-9]+: revoked qpn' | wc -l)" -ge "$1" ]
}

ew_tmp_dir

ew_plan 72

ew_check "eastwest.ko loads" ew_load
ew_check "$DEV on lo" ew_rxe_add "$DEV" lo
IDX=$(ew_gid_index "$DEV" "$LOOP")
ew_check "GID of $LOOP found (index ${IDX:-none})" test -n "$IDX"
mkdir -p "$CG/ewA/sub" "$CG/ewB"

# --- fail-closed default --------------------------------------------------
ew_expect_rc 13 "process in no job is refused (enforce, default deny)" \
	"$VERBS" rc-connect "$DEV" "$IDX" "$LOOP" self
ew_check "the refusal is counted as no-job" \
	test "$(ew_counter - denied-no-job)" -ge 1

# --- jobs ------------------------------------------------------------------
ew_check "job A created" "$CTL" job add ewA cgroup /ewA peer "$LOOP"
ew_check "job B created" "$CTL" job add ewB cgroup /ewB peer 198.51.100.9
ew_check "job A shows its cgroup and peer" \
	sh -c "'$CTL' -j job show ewA | grep -q '/ewA' && '$CTL' -j peer show ewA | grep -q '$LOOP'"

# --- a connection inside job A works, data verified ---------------------------
ew_in_cg /ewA ibv_rc_pingpong -d "$DEV" -g "$IDX" -n 20 -c >"$EW_TMP/srv" 2>&1 &
ew_wait_listen 18515
ew_expect_rc 0 "job A connects to itself over RC, 20 verified round trips" \
	ew_in_cg /ewA ibv_rc_pingpong -d "$DEV" -g "$IDX" -n 20 -c "$LOOP"
wait

# A process in a child cgroup of job A is in job A.
ew_in_cg /ewA/sub ibv_rc_pingpong -d "$DEV" -g "$IDX" -n 5 -c >"$EW_TMP/srv" 2>&1 &
ew_wait_listen 18515
ew_expect_rc 0 "a process in a child cgroup of job A connects too" \
	ew_in_cg /ewA ibv_rc_pingpong -d "$DEV" -g "$IDX" -n 5 -c "$LOOP"
wait

# --- NeVerMore: job B injects into job A's live connection -----------------
ew_in_cg /ewA stdbuf -oL ibv_rc_pingpong -d "$DEV" -g "$IDX" -n 1000000 >"$EW_TMP/victim-srv" 2>&1 &
ew_wait_listen 18515
ew_in_cg /ewA stdbuf -oL ibv_rc_pingpong -d "$DEV" -g "$IDX" -n 1000000 "$LOOP" >"$EW_TMP/victim-cli" 2>&1 &
ew_wait_for 20 grep -q 'remote address' "$EW_TMP/victim-cli"
VQPN=$(sed -n 's/.*local address:.*QPN \(0x[0-9a-f]*\), PSN \(0x[0-9a-f]*\).*/\1/p' "$EW_TMP/victim-srv")
VPSN=$(sed -n 's/.*local address:.*QPN \(0x[0-9a-f]*\), PSN \(0x[0-9a-f]*\).*/\2/p' "$EW_TMP/victim-srv")
[ -n "$VQPN" ] && VQPN=$(printf '0x%x' "$VQPN")
ew_diag "victim server QPN $VQPN PSN $VPSN"
before=$(ew_counter ewB denied-peer)
ew_dmesg_mark
ew_expect_rc 13 "job B's INIT->RTR onto the victim's QPN/PSN/GID is refused" \
	ew_in_cg /ewB "$VERBS" rc-connect "$DEV" "$IDX" "$LOOP" "${VQPN:-0x11}" "${VPSN:-0}"
ew_check "counted as denied-peer for job B" \
	test "$(ew_counter ewB denied-peer)" -eq $((before + 1))
ew_check "logged with job, reason and victim QPN" \
	ew_dmesg_wait "denied modify_qp: peer not allowed: job [0-9]+ .*dqpn ${VQPN:-0x11}"
ew_expect_rc 13 "job B cannot create an address handle to job A's GID" \
	ew_in_cg /ewB "$VERBS" create-ah "$DEV" "$IDX" "$LOOP"
before=$(ew_counter ewA denied-foreign-qp)
ew_expect_rc 13 "job A cannot either: a UD address handle to this node names no QP" \
	ew_in_cg /ewA "$VERBS" create-ah "$DEV" "$IDX" "$LOOP"
ew_check "counted as denied-foreign-qp for job A" \
	test "$(ew_counter ewA denied-foreign-qp)" -eq $((before + 1))
pkill -f ibv_rc_pingpong
wait

# --- revocation: removing a peer during traffic kills the live QPs -------------
qp_count() {
	"$CTL" -j job show "$1" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print((d[0] if isinstance(d, list) else d)["qp_count"])'
}
# traffic: job A's ibv_rc_pingpong server and client over $LOOP in the
# background (pids SRV and CLI), once the client has the server's address.
traffic() {
	ew_in_cg /ewA stdbuf -oL ibv_rc_pingpong -d "$DEV" -g "$IDX" -n 1000000 >"$EW_TMP/srv" 2>&1 &
	SRV=$!
	ew_wait_listen 18515
	ew_in_cg /ewA stdbuf -oL ibv_rc_pingpong -d "$DEV" -g "$IDX" -n 1000000 "$LOOP" >"$EW_TMP/cli" 2>&1 &
	CLI=$!
	ew_wait_for 20 grep -q 'remote address' "$EW_TMP/cli"
}
traffic
sleep 1
ew_check "job A tracks its two live QPs" test "$(qp_count ewA)" -eq 2
"$CTL" -j monitor >"$EW_TMP/events" 2>&1 &
MON=$!
ew_monitor_wait "$MON" || ew_bail "eastwestctl monitor did not join the events group"
ew_dmesg_mark
t0=$(date +%s%N)
ew_check "the peer is removed from job A during traffic" "$CTL" peer del ewA "$LOOP"
ew_diag "peer del returned after $(( ($(date +%s%N) - t0) / 1000000 )) ms"
ew_check "both live QPs are revoked" ew_wait_for 5 revoked_since_mark 2
ew_check "traffic stops: the client exits" ew_wait_for 10 sh -c "! kill -0 $CLI 2>/dev/null"
ew_check "traffic stops: the server exits" ew_wait_for 10 sh -c "! kill -0 $SRV 2>/dev/null"
wait $CLI
ew_check "the client saw an error" test $? -ne 0
ew_check "no QP of job A is tracked any more" test "$(qp_count ewA)" -eq 0
ew_check "monitor -j reports both revocations (reason peer)" ew_wait_for 5 sh -c "
	test \$(grep -c '\"event\": *\"revoke\".*\"reason\": *\"peer\"' '$EW_TMP/events') -ge 2"
kill "$MON"
wait "$MON" 2>/dev/null
"$CTL" peer add ewA "$LOOP" >/dev/null

# Deleting the job does the same to all its QPs.
traffic
ew_dmesg_mark
ew_check "job A is deleted during traffic" "$CTL" job del ewA
ew_check "both its live QPs are revoked" ew_wait_for 5 revoked_since_mark 2
ew_check "traffic stops" ew_wait_for 10 sh -c "! kill -0 $CLI 2>/dev/null && ! kill -0 $SRV 2>/dev/null"
wait
"$CTL" job add ewA cgroup /ewA peer "$LOOP" >/dev/null

# --- source netdev microsegmentation ----------------------------------------
ew_dummy_add ewdum0 198.51.100.1/24
ew_check "job B may reach $LOOP, but only from ewdum0" \
	"$CTL" job set ewB peer "$LOOP" netdev ewdum0
ew_expect_rc 13 "job B's QP sourced from lo is refused (src-netdev)" \
	ew_in_cg /ewB "$VERBS" rc-connect "$DEV" "$IDX" "$LOOP" self
ew_check "counted as denied-src-netdev" test "$(ew_counter ewB denied-src-netdev)" -ge 1
ew_expect_rc 13 "job B's address handle sourced from lo is refused too (src-netdev)" \
	ew_in_cg /ewB "$VERBS" create-ah "$DEV" "$IDX" "$LOOP"
ew_check "job B's netdev rule switched to lo" "$CTL" job set ewB netdev lo
ew_expect_rc 0 "now job B's QP from lo may connect" \
	ew_in_cg /ewB "$VERBS" rc-connect "$DEV" "$IDX" "$LOOP" self
# An address handle to this node names no QP: refused as foreign-qp
# whatever its source; the source check now passes.
before=$(ew_counter ewB denied-src-netdev)
before_f=$(ew_counter ewB denied-foreign-qp)
ew_expect_rc 13 "its address handle from lo is refused only as foreign-qp (one to this node names no QP)" \
	ew_in_cg /ewB "$VERBS" create-ah "$DEV" "$IDX" "$LOOP"
ew_check "counted as denied-foreign-qp, not denied-src-netdev" \
	test "$(ew_counter ewB denied-src-netdev)" -eq "$before" -a \
		"$(ew_counter ewB denied-foreign-qp)" -eq $((before_f + 1))

# --- Q_Key and QP type --------------------------------------------------------
# A UD send's destination need not pass the kernel (rxe reads the address
# vector from user memory when the work request names no kernel AH): a job
# creates UD QPs only with the ud opt-in, and then only P_Key and Q_Key
# police them. A process in no job (default deny) may not create one at all.
ew_check "job A gets Q_Key 0x1234" "$CTL" job set ewA qkey 0x1234
before=$(ew_counter ewA denied-qp-type)
ew_dmesg_mark
ew_expect_rc 13 "job A's UD QP is refused at creation without the ud opt-in" \
	ew_in_cg /ewA "$VERBS" ud-qkey "$DEV" 0x1234
ew_check "counted as denied-qp-type for job A" \
	test "$(ew_counter ewA denied-qp-type)" -eq $((before + 1))
ew_check "logged as a create_qp refusal for the QP type" \
	ew_dmesg_wait "denied create_qp: QP type not allowed: job [1-9][0-9]* "
ew_dmesg_mark
ew_expect_rc 13 "a process in no job may not create a UD QP (default deny)" \
	"$VERBS" ud-qkey "$DEV" 0x1234
ew_check "it is refused at creation (no-job), not at its first modify" \
	ew_dmesg_wait "denied create_qp: no job: job 0 "
ew_expect_rc 13 "nor a RAW_PACKET QP, as root with CAP_NET_RAW (default deny)" \
	"$VERBS" raw-qp "$DEV"
ew_check "job A opts in to UD QPs (ud on)" "$CTL" job set ewA ud on
ew_check "job show says ud on dc off" \
	sh -c "'$CTL' job show ewA | grep -q ' ud on dc off'"
ew_check "job show -j says ud true, dc false" sh -c "'$CTL' -j job show ewA | python3 -c '
import json, sys
j = json.load(sys.stdin)[0]
sys.exit(0 if j[\"ud\"] is True and j[\"dc\"] is False else 1)'"
ew_expect_rc 0 "UD QP with the job's Q_Key" ew_in_cg /ewA "$VERBS" ud-qkey "$DEV" 0x1234
ew_expect_rc 13 "UD QP with another Q_Key is refused" \
	ew_in_cg /ewA "$VERBS" ud-qkey "$DEV" 0x1235
ew_expect_rc 13 "UD QP with a privileged Q_Key is refused" \
	ew_in_cg /ewA "$VERBS" ud-qkey "$DEV" 0x80010000
ew_expect_rc 13 "RAW_PACKET QP from a job is refused (ud on)" ew_in_cg /ewA "$VERBS" raw-qp "$DEV"
ew_in_cg /ewA stdbuf -oL "$VERBS" ud-hold "$DEV" 0x1234 60 >"$EW_TMP/ud-hold" 2>&1 &
UDH=$!
ew_check "job A holds a live UD QP (RTS)" ew_wait_for 30 grep -qx ready "$EW_TMP/ud-hold"
ew_check "job A withdraws the opt-in (ud off)" "$CTL" job set ewA ud off
ew_check "ud off revokes job A's live UD QP (QP_FATAL)" \
	ew_wait_for 10 grep -qx revoked "$EW_TMP/ud-hold"
kill $UDH 2>/dev/null
wait $UDH 2>/dev/null
before=$(ew_counter ewA denied-qp-type)
ew_expect_rc 13 "ud off applies to the next UD QP: refused" \
	ew_in_cg /ewA "$VERBS" ud-qkey "$DEV" 0x1234
ew_check "counted as denied-qp-type again" \
	test "$(ew_counter ewA denied-qp-type)" -eq $((before + 1))
ew_check "job A in audit mode" "$CTL" job set ewA mode audit
before=$(ew_counter ewA audited)
ew_expect_rc 0 "audit: job A's UD QP without the opt-in is created" \
	ew_in_cg /ewA "$VERBS" ud-qkey "$DEV" 0x1234
ew_check "audit: counted as audited" \
	test "$(ew_counter ewA audited)" -gt "$before"
ew_check "job A back to enforce" "$CTL" job set ewA mode enforce
ew_check "default action allow" "$CTL" config set default allow
ew_expect_rc 0 "default allow: a process in no job creates a UD QP (not policed)" \
	"$VERBS" ud-qkey "$DEV" 0x1234
ew_check "default action deny again" "$CTL" config set default deny

# --- audit mode ----------------------------------------------------------------
ew_check "global audit mode" "$CTL" config set mode audit
before=$(ew_counter - audited)
ew_expect_rc 0 "audit: a process in no job may connect" \
	"$VERBS" rc-connect "$DEV" "$IDX" "$LOOP" self
ew_check "audit: the violation is counted" test "$(ew_counter - audited)" -gt "$before"
ew_check "back to enforce" "$CTL" config set mode enforce

# --- lifetimes -----------------------------------------------------------------
ew_in_cg /ewA ibv_rc_pingpong -d "$DEV" -g "$IDX" -n 1000000 >"$EW_TMP/srv" 2>&1 &
ew_wait_listen 18515
ew_check "rmmod is refused while job A exists" sh -c "! rmmod eastwest 2>/dev/null && test -d /sys/module/eastwest"
ew_check "unload with a live QP once the jobs are deleted" ew_unload
pkill -f ibv_rc_pingpong
wait
ew_check "reload" ew_load
ew_check "policies are empty after reload" sh -c "test \"\$('$CTL' -j job show)\" = '[]'"
"$CTL" job add ewA cgroup /ewA peer "$LOOP" >/dev/null
ew_check "device deleted while a job's policy exists" ew_rxe_del "$DEV"
ew_check "device added again" ew_rxe_add "$DEV" lo
ew_check "unload" ew_unload

ew_done
