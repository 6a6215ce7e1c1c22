#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 2
# ew-timeout: 600
#
# The demo scenario (scripts/demo boots it on two VM nodes with
# `selftests/vm/run --keep-artifacts selftests/demo/fabric.sh`): a small
# secured RDMA fabric, told step by step.
#
# Both nodes load eastwest.ko (enforce, default deny), put soft-RoCE on eth0
# and load the same policy: job "jobA" (cgroup /jobA) may reach the other
# node; job "jobB" (cgroup /jobB) only its own peers elsewhere (198.51.100.0/24).
# Node 0 runs a jobA RDMA server; node 1 connects to it from jobA (allowed,
# captured on the wire: clear text), from jobB (denied) and from no job
# (denied). Then both nodes protect the link with MACsec (eastwestctl path),
# jobA is made to require it: over the clear-text netdev jobA is refused,
# over the MACsec netdev it works and the wire shows only ciphertext.
#
# Output: what a person should see. "@@STEP ID TITLE" lines open a step;
# scripts/demo prints each step of both nodes together, in order. Every
# expectation is also a TAP line, so that a step that did not behave as
# shown fails the run (and scripts/demo exits non-zero).

. "$(dirname "$0")/../lib.sh"

DEV=rxe0
CTL=$EW_TOP/userspace/eastwestctl
VERBS=$EW_TOP/selftests/tools/ew_verbs
PORT=18515
ITERS=10
SERVER_NODE=0
JOB_B_PEERS=198.51.100.0/24

ew_require_root
ew_require_nodes 2
ew_require_cmd rdma ip ss ibv_rc_pingpong timeout tshark python3 ping
ew_require_built ctl verbs cgroup

ew_tmp_dir
ew_defer "rmdir $EW_CG/jobA $EW_CG/jobB"
ew_defer "rdma link delete $DEV"
ew_defer "rdma link delete rxem"
ew_defer "'$EW_TOP/userspace/eastwestctl' path del dev eth0"
ew_defer "ew_rmmod"
ew_defer 'kill_bg'

PATH=$EW_TOP/userspace:$EW_TOP/selftests/tools:$PATH
if [ "$EW_NODE" -eq "$SERVER_NODE" ]; then
	ROLE=server
else
	ROLE=client
fi

# step ID TITLE: open a step.
step() {
	echo "@@STEP $1 $2"
}

# say TEXT: a line of explanation.
say() {
	echo "$*"
}

# indent FILE: a command's output, indented.
indent() {
	sed 's/^/    /' "$1"
}

# run WANT SHOWN CMD...: print "$ SHOWN", run CMD, print its output; WANT is
# the exit status expected: a number, or "fail" (any non-zero). Sets RC.
run() {
	_want=$1
	_shown=$2
	shift 2
	echo "  \$ $_shown"
	"$@" >"$EW_TMP/out" 2>&1
	RC=$?
	indent "$EW_TMP/out"
	[ "$RC" -eq 0 ] || echo "    (exit status $RC)"
	case $_want in
	fail) [ "$RC" -ne 0 ] ;;
	*) [ "$RC" -eq "$_want" ] ;;
	esac
}

# expect DESC CMD...: an expectation of the demo (a TAP line).
expect() {
	_desc=$1
	shift
	if "$@"; then
		ew_ok "$_desc"
	else
		ew_not_ok "$_desc"
	fi
}

barrier() {
	ew_barrier "$1" || ew_bail "the other node did not reach step $1"
}

pingpong() {
	_cg=$1
	shift
	if [ "$_cg" = - ]; then
		timeout 60 stdbuf -oL ibv_rc_pingpong -d "$DEV" -g "$IDX" \
			-p "$PORT" -n "$ITERS" -c "$@"
	else
		ew_in_cg "$_cg" timeout 60 stdbuf -oL ibv_rc_pingpong -d "$DEV" \
			-g "$IDX" -p "$PORT" -n "$ITERS" -c "$@"
	fi
}

# klog_has N: eastwest logged at least N denials since the last mark.
klog_has() {
	[ "$(ew_dmesg_since_mark 'eastwest: (denied|audit)' | wc -l)" -ge "$1" ]
}

# kernel_log N: eastwest's kernel log lines since the last mark, once there
# are N of them (the module logs from a work item: give it up to 10 s).
kernel_log() {
	ew_wait_for 10 klog_has "$1"
	ew_dmesg_since_mark 'eastwest: (denied|audit)' | sed 's/^\[[^]]*\] *//'
}

# attempt ID TITLE CGROUP|- EXPLANATION [LOG-REASON ERROR]: node 0 serves in
# jobA, node 1 connects from CGROUP (- = no job). A denied attempt must fail
# with ERROR (ibv_rc_pingpong's message) and be logged by node 1's kernel
# with LOG-REASON; it leaves the server waiting, which is then stopped.
attempt() {
	_id=$1
	_title=$2
	_cg=$3
	_text=$4
	step "$_id" "$_title"
	ew_dmesg_mark
	if [ "$ROLE" = server ]; then
		say "node 0 ($EW_LOCAL_IP): an RDMA server of jobA waits for a connection."
		ew_in_cg_bg /jobA timeout 60 stdbuf -oL ibv_rc_pingpong -d "$DEV" \
			-g "$IDX" -p "$PORT" -n "$ITERS" -c >"$EW_TMP/$_id.srv" 2>&1
		_pid=$EW_BG_PID
		BG_PIDS="$BG_PIDS $_pid"
		ew_wait_listen "$PORT" || say "(the server does not listen)"
		barrier "$_id-listen"
		barrier "$_id-done"
		if [ "$_cg" = /jobA ]; then
			wait "$_pid"
			_rc=$?
		else
			_rc=running
			kill -0 "$_pid" 2>/dev/null || _rc=ended
			kill "$_pid" 2>/dev/null
			wait "$_pid" 2>/dev/null
		fi
		echo "  \$ ibv_rc_pingpong -d $DEV -g $IDX -n $ITERS -c        # in jobA"
		indent "$EW_TMP/$_id.srv"
		if [ "$_cg" = /jobA ]; then
			_ok=0
			[ "$_rc" -eq 0 ] && grep -q "^$ITERS iters" "$EW_TMP/$_id.srv" && _ok=1
			expect "jobA's server exchanged $ITERS verified messages with node 1" \
				test "$_ok" -eq 1
		else
			if grep -q 'remote address' "$EW_TMP/$_id.srv"; then
				say "    (exchanged addresses, then waited for data that never came: stopped by the demo)"
			else
				say "    (no client ever got as far as the exchange: stopped by the demo)"
			fi
			_ok=0
			[ "$_rc" = running ] && ! grep -q iters "$EW_TMP/$_id.srv" && _ok=1
			expect "jobA's server received nothing" test "$_ok" -eq 1
			# Node 0 let its own side connect: jobA may reach node 1.
			say "  kernel log of node 0:"
			ew_dmesg_since_mark 'eastwest: (denied|audit)' >"$EW_TMP/klog"
			if [ -s "$EW_TMP/klog" ]; then
				indent "$EW_TMP/klog"
			else
				say "    (nothing from eastwest: jobA's server may reach node 1)"
			fi
			expect "node 0 denied nothing" test ! -s "$EW_TMP/klog"
		fi
		return
	fi

	say "node 1 ($EW_LOCAL_IP): $_text"
	barrier "$_id-listen"
	if [ "$_cg" = - ]; then
		_where="# in no job"
	else
		_where="# in ${_cg#/}"
	fi
	if [ "$_cg" = /jobA ]; then
		ew_capture_start plain
		run 0 "ibv_rc_pingpong -d $DEV -g $IDX -n $ITERS -c $EW_PEER_IP   $_where" \
			pingpong "$_cg" "$EW_PEER_IP"
		expect "jobA's client exchanged $ITERS verified messages with node 0" \
			grep -q "^$ITERS iters" "$EW_TMP/out"
		ew_capture_stop
		_pat=$(ew_pattern_count plain)
		say "  A capture on eth0 during the exchange (tshark): $(ew_frames plain 'udp.port == 4791') RoCE"
		say "  packets in clear text; the payload is readable ($_pat runs of its 0x7b bytes)."
		expect "the clear-text payload is visible on the wire" test "$_pat" -gt 0
	else
		run fail "ibv_rc_pingpong -d $DEV -g $IDX -n $ITERS -c $EW_PEER_IP   $_where" \
			pingpong "$_cg" "$EW_PEER_IP"
		expect "the connection is refused ($6)" grep -q "$6" "$EW_TMP/out"
		_n=1
		if [ "$_cg" != - ]; then
			# The NeVerMore attacker: it needs no exchange, only the
			# victim's GID and QPN (here as rc_pingpong learnt them).
			_qpn=$(sed -n 's/.*remote address:.*QPN \(0x[0-9a-f]*\),.*/\1/p' "$EW_TMP/out")
			say "  The same connect from a bare verbs program that knows the server's QPN:"
			run 13 "ew_verbs rc-connect $DEV $IDX $EW_PEER_IP ${_qpn:-0x11}   $_where" \
				ew_in_cg "$_cg" "$VERBS" rc-connect "$DEV" "$IDX" "$EW_PEER_IP" "${_qpn:-0x11}"
			expect "ibv_modify_qp(RTR) fails with EACCES (Permission denied)" \
				grep -q 'Permission denied' "$EW_TMP/out"
			_n=2
		fi
		say "  kernel log of node 1:"
		kernel_log "$_n" >"$EW_TMP/klog"
		indent "$EW_TMP/klog"
		expect "the kernel logged: eastwest: denied modify_qp: $5" \
			grep -q "eastwest: denied modify_qp: $5" "$EW_TMP/klog"
	fi
	barrier "$_id-done"
}

if [ "$ROLE" = server ]; then
	ew_plan 17
else
	ew_plan 20
fi

# --- 1. the policy ---------------------------------------------------------------
step policy "The policy each node loaded"
ew_load >"$EW_TMP/out" 2>&1
expect "eastwest.ko loaded" test $? -eq 0
ew_rxe_add "$DEV" eth0 >>"$EW_TMP/out" 2>&1 &&
	IDX=$(ew_wait_gid_index "$DEV" "$EW_LOCAL_IP" 10 2>>"$EW_TMP/out")
expect "soft-RoCE device $DEV on eth0 ($EW_LOCAL_IP), GID index ${IDX:-none}" test -n "$IDX"
[ -n "$IDX" ] || ew_bail "no RDMA device: $(cat "$EW_TMP/out")"
mkdir -p "$EW_CG/jobA" "$EW_CG/jobB"
say "node $EW_NODE ($EW_LOCAL_IP): eastwest.ko loaded (enforce mode, default deny); soft-RoCE $DEV on eth0."
say "Job A may talk to the other node; job B only to its own peers ($JOB_B_PEERS)."
run 0 "eastwestctl job add jobA cgroup /jobA peer $EW_PEER_IP      # prints the job's id" \
	eastwestctl job add jobA cgroup /jobA peer "$EW_PEER_IP" &&
	run 0 "eastwestctl job add jobB cgroup /jobB peer $JOB_B_PEERS" \
		eastwestctl job add jobB cgroup /jobB peer "$JOB_B_PEERS"
expect "jobs jobA and jobB created" test $? -eq 0
run 0 "eastwestctl job show" eastwestctl job show
run 0 "eastwestctl peer show jobA" eastwestctl peer show jobA
run 0 "eastwestctl peer show jobB" eastwestctl peer show jobB
run 0 "eastwestctl -j show      # the same, as a policy file for 'eastwestctl apply -f'" \
	eastwestctl -j show
# The events, from now on.
eastwestctl monitor >"$EW_TMP/monitor" 2>&1 &
MON_PID=$!
BG_PIDS="$BG_PIDS $MON_PID"
expect "eastwestctl monitor has joined the events group" ew_monitor_wait "$MON_PID"
barrier policy

# --- 2.-4. connections -------------------------------------------------------------
attempt allowed "Same job: jobA on node 1 connects to jobA on node 0 -> allowed" /jobA \
	"a process of jobA connects to node 0's server over RC; $ITERS messages, data checked."
attempt cross-job "Cross job: jobB on node 1 connects to jobA on node 0 -> denied" /jobB \
	"a process of jobB tries the same connection; node 0 is not a peer of jobB." \
	"peer not allowed" "Failed to modify QP to RTR"
attempt no-job "No job: a process outside every job connects to jobA on node 0 -> denied" - \
	"a process in no job (root cgroup) tries the same connection: default deny." \
	"no job" "Failed to modify QP to INIT"

# --- 5. counters -------------------------------------------------------------------
step stats "Decision counters"
run 0 "eastwestctl stats" eastwestctl stats
expect "eastwestctl stats" test "$RC" -eq 0

# --- 6. events ---------------------------------------------------------------------
step events "Events seen by eastwestctl monitor (running since the policy was loaded)"
sleep 1
kill "$MON_PID" 2>/dev/null
wait "$MON_PID" 2>/dev/null
echo "  \$ eastwestctl monitor"
if [ -s "$EW_TMP/monitor" ]; then
	indent "$EW_TMP/monitor"
else
	say "    (no events)"
fi
if [ "$ROLE" = client ]; then
	_ok=0
	grep -q "^deny modify-qp reason peer job [0-9]* .* dest $EW_PEER_IP " "$EW_TMP/monitor" &&
		grep -q "^deny modify-qp reason no-job job none " "$EW_TMP/monitor" && _ok=1
	expect "monitor: jobB's connects (reason peer) and the no-job one (reason no-job)" \
		test "$_ok" -eq 1
else
	expect "monitor: nothing was denied on node 0" test ! -s "$EW_TMP/monitor"
fi

# --- 7. encryption: MACsec, required by the job ----------------------------------------
step macsec "Encrypted east-west traffic: jobA now requires MACsec"
ew_sec_addrs 10.90.0
# One cluster key for both nodes: node 0 makes it, the shared test-bed
# directory carries it (in production: the orchestrator, or attest's key
# release). Never on a command line, never printed.
if [ "$ROLE" = server ]; then
	(umask 077 && head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$EW_SHARED/demo.key.tmp" &&
		mv "$EW_SHARED/demo.key.tmp" "$EW_SHARED/demo.key")
fi
barrier demo-key
(umask 077 && cp "$EW_SHARED/demo.key" "$EW_TMP/cluster.key")
PEER_MAC=$(ew_peer_mac)
say "Both nodes: a MACsec link over eth0 (GCM-AES-256, keys derived from a 0600 cluster key"
say "file), soft-RoCE bound on it (path add does that, ahead of rxe0 for rdma_cm), and jobA"
say "told to require MACsec."
run 0 "eastwestctl path add dev eth0 type macsec key-file cluster.key local $SEC_IP/24 peer $SEC_PEER lladdr $PEER_MAC rxe rxem" \
	eastwestctl path add dev eth0 type macsec key-file "$EW_TMP/cluster.key" \
		local "$SEC_IP/24" peer "$SEC_PEER" lladdr "$PEER_MAC" rxe rxem
expect "MACsec path ew-eth0 set up" test "$RC" -eq 0
# path add registered rxe0 again (behind rxem): its GID table is new.
IDX=$(ew_wait_gid_index "$DEV" "$EW_LOCAL_IP" 10 2>/dev/null)
MIDX=$(ew_wait_gid_index rxem "$SEC_IP" 10 2>/dev/null)
expect "soft-RoCE rxem on the MACsec link ($SEC_IP), GID index ${MIDX:-none}" test -n "$MIDX"
run 0 "eastwestctl job set jobA encrypt macsec" eastwestctl job set jobA encrypt macsec
run 0 "eastwestctl peer add jobA $SEC_PEER" eastwestctl peer add jobA "$SEC_PEER"
run 0 "eastwestctl path check dev rxem sgid-index $MIDX dst $SEC_PEER" \
	eastwestctl path check dev rxem sgid-index "$MIDX" dst "$SEC_PEER"
expect "the kernel sees the MACsec path as protected" test "$RC" -eq 0
barrier macsec-ready

# jobA over the clear-text eth0: refused. The server moves its QP to RTR
# first (once it has the client's address), so node 0 is the one refusing.
ew_dmesg_mark
if [ "$ROLE" = server ]; then
	say "jobA's server over the clear-text eth0 (rxe0), as before:"
	ew_in_cg_bg /jobA timeout 30 ibv_rc_pingpong -d "$DEV" -g "$IDX" -p "$PORT" \
		-n "$ITERS" -c >"$EW_TMP/clear.srv" 2>&1
	_pid=$EW_BG_PID
	BG_PIDS="$BG_PIDS $_pid"
	ew_wait_listen "$PORT"
	barrier clear-listen
	wait "$_pid"
	barrier clear-done
	echo "  \$ ibv_rc_pingpong -d $DEV -g $IDX -n $ITERS -c        # in jobA"
	indent "$EW_TMP/clear.srv"
	say "  kernel log of node 0:"
	kernel_log 1 >"$EW_TMP/klog"
	indent "$EW_TMP/klog"
	expect "refused: eastwest: denied modify_qp: unprotected path" \
		grep -q "eastwest: denied modify_qp: unprotected path" "$EW_TMP/klog"
else
	barrier clear-listen
	say "jobA over the clear-text eth0 (rxe0), as before:"
	run fail "ibv_rc_pingpong -d $DEV -g $IDX -n $ITERS -c $EW_PEER_IP   # in jobA" \
		pingpong /jobA "$EW_PEER_IP"
	barrier clear-done
	say "  (node 0 refused its side: see its kernel log)"
	expect "the clear-text connection failed" test "$RC" -ne 0
fi

# jobA over MACsec: works; the wire shows MACsec frames only.
if [ "$ROLE" = server ]; then
	ew_in_cg_bg /jobA timeout 60 stdbuf -oL ibv_rc_pingpong -d rxem -g "$MIDX" \
		-p "$PORT" -n "$ITERS" -c >"$EW_TMP/sec.srv" 2>&1
	_pid=$EW_BG_PID
	BG_PIDS="$BG_PIDS $_pid"
	ew_wait_listen "$PORT"
	barrier sec-listen
	wait "$_pid"
	_rc=$?
	barrier sec-done
	expect "jobA's server exchanged $ITERS verified messages over MACsec" \
		sh -c "[ $_rc -eq 0 ] && grep -q '^$ITERS iters' '$EW_TMP/sec.srv'"
else
	barrier sec-listen
	say "jobA over the MACsec link (rxem), with tshark capturing on eth0 below it:"
	ew_capture_start sec
	run 0 "ibv_rc_pingpong -d rxem -g $MIDX -n $ITERS -c $EW_PEER_IP   # in jobA" \
		ew_in_cg /jobA timeout 60 stdbuf -oL ibv_rc_pingpong -d rxem -g "$MIDX" \
			-p "$PORT" -n "$ITERS" -c "$EW_PEER_IP"
	ew_capture_stop
	barrier sec-done
	expect "jobA's client exchanged $ITERS verified messages over MACsec" \
		grep -q "^$ITERS iters" "$EW_TMP/out"
	_m=$(ew_frames sec macsec)
	_r=$(ew_frames sec 'udp.port == 4791')
	_pat=$(ew_pattern_count sec)
	say "  The capture on eth0: $_m MACsec frames, $_r RoCE packets in clear text, the"
	say "  payload's bytes found $_pat times."
	expect "on the wire: MACsec only, no clear-text RoCE, no payload" \
		test "$_m" -gt 0 -a "$_r" -eq 0 -a "$_pat" -eq 0
fi
run 0 "eastwestctl path show" eastwestctl path show

# --- 8. teardown ---------------------------------------------------------------------
step end "Teardown"
barrier end
ew_unload >/dev/null 2>&1
expect "eastwest.ko unloaded" test $? -eq 0

ew_done
