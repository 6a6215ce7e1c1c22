#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 2
# ew-timeout: 300
# ew-kernels: 6.1
#
# Per-job isolation between two nodes joined by a real link (soft-RoCE on
# eth0 of each VM), configured with eastwestctl only. Both nodes get the same
# two jobs: A (cgroup /ewA) may reach the other node, B (cgroup /ewB) only a
# stranger (198.51.100.9). Then:
#   - RC inside job A works both ways (node 0 server, then node 1 server),
#     with the data checked (ibv_rc_pingpong -c);
#   - a job-B client to the other node's job-A server is refused on its own
#     node, in both directions (each node refuses once): rc_pingpong fails at
#     INIT->RTR, ew_verbs rc-connect onto the server's QPN exits 13, the
#     refusal is counted (denied_peer of job B) and logged, and the job-A
#     server on the other end never gets any traffic;
#   - `eastwestctl -j monitor` on the refusing node reports the event
#     (reason peer, job B's id, the other node's address as destination GID);
#   - a process in no job is refused in enforce mode, allowed and counted
#     (audited) in audit mode;
#   - a UD QP of job A with another Q_Key than the job's is refused;
#   - removing the other node from job A during traffic revokes the live QP.
# Every node runs the same number of assertions.

. "$(dirname "$0")/../lib.sh"

DEV=rxe0
PORT=18515
ITERS=20
STRANGER=198.51.100.9

ew_require_root
ew_require_nodes 2
ew_require_cmd rdma ip ss ibv_rc_pingpong python3 timeout
ew_require_built ctl verbs cgroup

ew_tmp_dir
MON_PID=
ew_defer "rmdir $EW_CG/ewA $EW_CG/ewB"
ew_defer "rdma link delete $DEV"
ew_defer "ew_rmmod"
ew_defer 'kill_bg'

# pingpong CGROUP SERVER_IP: an ibv_rc_pingpong client in CGROUP; never
# longer than 60 s.
pingpong() {
	_cg=$1
	shift
	ew_in_cg "$_cg" timeout 60 ibv_rc_pingpong -d "$DEV" -g "$IDX" \
		-p "$PORT" -n "$ITERS" -c "$@"
}

# serve CGROUP: an ibv_rc_pingpong server in CGROUP, in the background; its
# pid in EW_BG_PID.
serve() {
	ew_in_cg_bg "$1" timeout 60 ibv_rc_pingpong -d "$DEV" -g "$IDX" \
		-p "$PORT" -n "$ITERS" -c
}

# serve_listening NAME: serve /ewA, output in $EW_TMP/NAME.srv and pid in
# _pid; once it listens, meet the client's node at barrier NAME-listen.
serve_listening() {
	serve /ewA >"$EW_TMP/$1.srv" 2>&1
	_pid=$EW_BG_PID
	BG_PIDS="$BG_PIDS $_pid"
	ew_wait_listen "$PORT" || ew_diag "server $1 does not listen"
	ew_meet "$1-listen"
}

# show FILE: a command's output as diagnostics.
show() {
	sed 's/^/#   /' "$1"
}

# trips_ok RC OUT ROLE OTHER: one assertion, that job A's ROLE (server or
# client), whose exit status was RC and output OUT, made $ITERS verified
# round trips with OTHER.
trips_ok() {
	if [ "$1" -eq 0 ] && grep -q "^$ITERS iters" "$2"; then
		ew_ok "job A $3 on node $EW_NODE: $ITERS verified round trips with $4"
	else
		ew_not_ok "job A $3 on node $EW_NODE: $ITERS verified round trips (exit $1)"
		show "$2"
	fi
}

# same_job NAME SERVER_NODE: RC between the two nodes inside job A; the
# server runs on SERVER_NODE. One assertion on each node.
same_job() {
	_name=$1
	if [ "$EW_NODE" -eq "$2" ]; then
		serve_listening "$_name"
		wait "$_pid"
		trips_ok $? "$EW_TMP/$_name.srv" server "node $((1 - EW_NODE))"
	else
		ew_meet "$_name-listen"
		pingpong /ewA "$EW_PEER_IP" >"$EW_TMP/$_name.cli" 2>&1
		trips_ok $? "$EW_TMP/$_name.cli" client "node $EW_PEER_IP"
	fi
	ew_meet "$_name-done"
}

# cross_job NAME REFUSING_NODE: a job-B client on REFUSING_NODE tries the job-A
# server of the other node. Four assertions on the refusing node, one on the
# server's.
cross_job() {
	_name=$1
	if [ "$EW_NODE" -ne "$2" ]; then
		serve_listening "$_name"
		ew_meet "$_name-done"
		# The server accepted the TCP exchange and moved its own QP to
		# RTR/RTS (job A may reach the other node), then waits for data
		# that the refused client can never send.
		_alive=0
		kill -0 "$_pid" 2>/dev/null && _alive=1
		kill "$_pid" 2>/dev/null
		wait "$_pid" 2>/dev/null
		if [ "$_alive" -eq 1 ] && ! grep -q 'iters' "$EW_TMP/$_name.srv"; then
			ew_ok "job A server on node $EW_NODE got no RDMA traffic from node $EW_PEER_IP's job-B client"
		else
			ew_not_ok "job A server on node $EW_NODE got no RDMA traffic from job B (alive $_alive)"
			show "$EW_TMP/$_name.srv"
		fi
		return
	fi

	_before=$(ew_counter B denied_peer)
	ew_dmesg_mark
	ew_meet "$_name-listen"
	pingpong /ewB "$EW_PEER_IP" >"$EW_TMP/$_name.cli" 2>&1
	_rc=$?
	if [ "$_rc" -ne 0 ] && grep -q 'Failed to modify QP to RTR' "$EW_TMP/$_name.cli"; then
		ew_ok "job B client on node $EW_NODE -> job A server on $EW_PEER_IP: refused at INIT->RTR"
	else
		ew_not_ok "job B client on node $EW_NODE -> job A server on $EW_PEER_IP: refused (exit $_rc)"
		show "$EW_TMP/$_name.cli"
	fi
	# The server's QPN, as the refused client learnt it.
	_qpn=$(sed -n 's/.*remote address:.*QPN \(0x[0-9a-f]*\),.*/\1/p' "$EW_TMP/$_name.cli")
	ew_diag "job A server QPN ${_qpn:-unknown}"
	ew_expect_rc 13 "job B's ew_verbs rc-connect onto $EW_PEER_IP QPN ${_qpn:-0x11} exits 13 (EACCES)" \
		ew_in_cg /ewB "$VERBS" rc-connect "$DEV" "$IDX" "$EW_PEER_IP" "${_qpn:-0x11}"
	_after=$(ew_counter B denied_peer)
	ew_check "both refusals counted as denied_peer of job B ($_before -> $_after)" \
		test "$_after" -eq $((_before + 2))
	# The log prints QPNs without leading zeros: 0x000015 -> 0x15.
	_qpnx=$(printf '0x%x' "${_qpn:-0x11}")
	ew_check "kernel log: denied modify_qp: peer not allowed: job $BID ... dgid $EW_PEER_IP dqpn $_qpnx" \
		ew_dmesg_wait "eastwest: denied modify_qp: peer not allowed: job $BID .* dgid (::ffff:)?$EW_PEER_IP dqpn $_qpnx( |\$)"
	ew_meet "$_name-done"
}

# monitor_saw FILE: FILE (eastwestctl -j monitor output) has an event of job
# B refused for its peer, destination the other node.
monitor_saw() {
	python3 - "$1" "$BID" "$EW_PEER_IP" <<-'EOF'
	import json, sys
	path, bid, peer = sys.argv[1], int(sys.argv[2]), sys.argv[3]
	for line in open(path):
	    try:
	        ev = json.loads(line)
	    except ValueError:
	        print("not JSON: " + line.rstrip())
	        continue
	    if (ev.get("reason") == "peer" and ev.get("job_id") == bid and
	            ev.get("dest_gid") in (peer, "::ffff:" + peer)):
	        print("event: " + line.rstrip())
	        sys.exit(0)
	print("no event with reason peer, job_id %d, dest_gid %s in:" % (bid, peer))
	sys.stdout.write(open(path).read())
	sys.exit(1)
	EOF
}

ew_plan 31

# --- setup, the same on both nodes (7) ----------------------------------------
ew_load_rxe_eth0
mkdir -p "$EW_CG/ewA" "$EW_CG/ewB"
ew_check "job A: cgroup /ewA, peer $EW_PEER_IP" "$CTL" job add A cgroup /ewA peer "$EW_PEER_IP"
ew_check "job B: cgroup /ewB, peer $STRANGER" "$CTL" job add B cgroup /ewB peer "$STRANGER"
BID=$(ew_job_id B)
ew_diag "job B has id ${BID:-unknown}"
BID=${BID:-0}
ew_check "the policy shows both jobs with their cgroups and peers" sh -c "
	'$CTL' -j job show A | grep -q '/ewA' &&
	'$CTL' -j peer show A | grep -q '$EW_PEER_IP' &&
	'$CTL' -j job show B | grep -q '/ewB' &&
	'$CTL' -j peer show B | grep -q '$STRANGER'"
"$CTL" -j monitor >"$EW_TMP/monitor" 2>"$EW_TMP/monitor.err" &
MON_PID=$!
BG_PIDS="$BG_PIDS $MON_PID"
ew_check "eastwestctl -j monitor runs in the background, in the events group" \
	ew_monitor_wait "$MON_PID"
ew_meet setup

# --- job A talks to itself across the link, both ways (2) ---------------------
same_job a0 0
same_job a1 1

# --- job B may not reach job A on the other node, from either node (5) -------
cross_job x1 1
cross_job x0 0

# --- the monitor saw this node's refusal (2) ---------------------------------
ew_check "monitor -j: reason peer, job B (id $BID), dest_gid $EW_PEER_IP" \
	monitor_saw "$EW_TMP/monitor"
kill "$MON_PID"
wait "$MON_PID" 2>/dev/null
_rc=$?
ew_check "monitor ends cleanly on SIGTERM (exit $_rc)" test "$_rc" -eq 0
[ -s "$EW_TMP/monitor.err" ] && show "$EW_TMP/monitor.err"

# --- no job: default deny; audit mode (7) --------------------------------------
_before=$(ew_counter - denied_no_job)
ew_expect_rc 13 "a process in no job is refused (enforce, default deny)" \
	"$VERBS" rc-connect "$DEV" "$IDX" "$EW_PEER_IP" self
ew_check "counted as denied_no_job" test "$(ew_counter - denied_no_job)" -eq $((_before + 1))
ew_check "config set mode audit" "$CTL" config set mode audit
_before=$(ew_counter - audited)
ew_expect_rc 0 "audit: the process in no job may connect" \
	"$VERBS" rc-connect "$DEV" "$IDX" "$EW_PEER_IP" self
ew_check "audit: counted as audited" test "$(ew_counter - audited)" -gt "$_before"
ew_check "config set mode enforce" "$CTL" config set mode enforce
ew_expect_rc 13 "enforce again: the process in no job is refused" \
	"$VERBS" rc-connect "$DEV" "$IDX" "$EW_PEER_IP" self

# --- Q_Key (3) -------------------------------------------------------------------
ew_check "job set A qkey 0x1234 ud on" "$CTL" job set A qkey 0x1234 ud on
ew_expect_rc 13 "job A's UD QP with Q_Key 0x1235 is refused" \
	ew_in_cg /ewA "$VERBS" ud-qkey "$DEV" 0x1235
ew_expect_rc 0 "job A's UD QP with its Q_Key 0x1234 is allowed" \
	ew_in_cg /ewA "$VERBS" ud-qkey "$DEV" 0x1234

# --- revocation: the orchestrator removes each node from the other's job A
# during traffic (4). Both live QPs go to the error state and both ends of
# the connection stop with an error.
if [ "$EW_NODE" -eq 0 ]; then
	ew_in_cg_bg /ewA timeout 120 stdbuf -oL ibv_rc_pingpong -d "$DEV" -g "$IDX" \
		-p "$PORT" -n 1000000 >"$EW_TMP/rv.out" 2>&1
	_pid=$EW_BG_PID
	BG_PIDS="$BG_PIDS $_pid"
	ew_wait_listen "$PORT" || ew_diag "revocation server does not listen"
	ew_meet rv-listen
else
	ew_meet rv-listen
	ew_in_cg_bg /ewA timeout 120 stdbuf -oL ibv_rc_pingpong -d "$DEV" -g "$IDX" \
		-p "$PORT" -n 1000000 "$EW_PEER_IP" >"$EW_TMP/rv.out" 2>&1
	_pid=$EW_BG_PID
	BG_PIDS="$BG_PIDS $_pid"
fi
ew_check "job A traffic between the nodes runs" \
	ew_wait_for 30 grep -q 'remote address' "$EW_TMP/rv.out"
sleep 2
ew_meet rv-running
ew_dmesg_mark
ew_check "peer $EW_PEER_IP removed from job A during traffic" \
	"$CTL" peer del A "$EW_PEER_IP"
ew_check "the live QP is revoked" ew_dmesg_wait 'job [0-9]+: revoked qpn' 5
ew_check "rc_pingpong stops with an error" sh -c "
	ew_n=0
	while kill -0 $_pid 2>/dev/null && [ \$ew_n -lt 150 ]; do sleep 0.2; ew_n=\$((ew_n + 1)); done
	! kill -0 $_pid 2>/dev/null && ! grep -q '^1000000 iters' '$EW_TMP/rv.out'"
wait "$_pid" 2>/dev/null
ew_meet rv-done

# --- end (1) ---------------------------------------------------------------------
ew_meet end
ew_check "eastwest.ko unloads" ew_unload

ew_done
