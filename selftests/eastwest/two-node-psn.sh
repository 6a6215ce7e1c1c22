#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 2
# ew-timeout: 300
# ew-kernels: 6.1
#
# Injection across nodes into a job that shares its nodes with another job,
# with the application's PSN 0 (NCCL, UCX) and then with keyed PSNs. Both
# nodes run jobs A and B, and both jobs may reach the other node (they
# share the nodes, so each job's peers are the nodes' addresses). Job A's
# connection, one RC QP on each node (ew_verbs rc-peer), uses PSN 0 both
# ways. Job B's process on node 1 knows the QPN of job A's QP on node 0
# (by any means a user has) and sends one SEND to it at PSN 0 from node 1,
# the address job A's QP expects packets from (ew_verbs rc-inject).
#   - psn app: the injection lands in job A's QP (the attack is real: only
#     the PSN could have stopped it);
#   - psn keyed (the key derived on each node from the same cluster key
#     file and the job's name): nothing of job B's lands, and job A's 20
#     messages each way verify on both nodes, and rping (rdma_cm) between
#     the nodes still connects.
# Every node runs the same number of assertions.

. "$(dirname "$0")/../lib.sh"

DEV=rxe0
MESSAGES=20

ew_require_root
ew_require_nodes 2
ew_require_cmd rdma mkfifo timeout rping
ew_require_built ctl verbs cgroup

ew_tmp_dir
X=$EW_SHARED/$EW_TEST_NAME.x
ew_defer "rmdir $EW_CG/ewA $EW_CG/ewB"
ew_defer "rdma link delete $DEV"
ew_defer "ew_rmmod"
ew_defer "pkill -f 'ew_verbs rc-'"

# round NAME: job A's connection across the nodes, job B's injection from
# node 1 into job A's QP on node 0, then job A's transfer. Output of job
# A's end in $EW_TMP/NAME.peer (exit status in $EW_TMP/NAME.rc), of the
# injector (node 1) in $EW_TMP/NAME.inject.
round() {
	_f=$EW_TMP/$1
	rm -f "$_f.fifo"
	mkfifo "$_f.fifo"
	exec 3<>"$_f.fifo"
	ew_in_cg /ewA timeout 120 "$VERBS" rc-peer "$DEV" "$IDX" "$EW_PEER_IP" \
		"$MESSAGES" <"$_f.fifo" >"$_f.peer" 2>&1 &
	_pid=$!
	ew_wait_for 30 grep -q '^qpn ' "$_f.peer"
	sed -n 's/^qpn //p' "$_f.peer" >"$X/$1.qpn.$EW_NODE"
	ew_meet "$1-qpn"
	_far=$(cat "$X/$1.qpn.$((1 - EW_NODE))")
	echo "$_far" >&3
	ew_wait_for 30 grep -qx connected "$_f.peer" ||
		ew_diag "job A's end did not connect: $(tr '\n' ' ' <"$_f.peer")"
	ew_meet "$1-connected"
	if [ "$EW_NODE" -eq 1 ]; then
		# Job B, on the node job A's QP on node 0 expects packets from.
		ew_in_cg /ewB "$VERBS" rc-inject "$DEV" "$IDX" "$EW_PEER_IP" \
			"$_far" 0 >"$_f.inject" 2>&1
		echo "rc $?" >>"$_f.inject"
		sed 's/^/# injector: /' "$_f.inject"
	fi
	ew_meet "$1-injected"
	echo go >&3
	wait "$_pid"
	echo $? >"$_f.rc"
	exec 3>&-
	sed 's/^/# job A: /' "$_f.peer"
	ew_meet "$1-done"
}

# injected NAME: job B's SEND was posted on node 1 (allowed: the peer rule
# lets job B reach node 0).
injected() {
	grep -qx injected "$EW_TMP/$1.inject" && grep -qx 'rc 0' "$EW_TMP/$1.inject"
}

# landed NAME: job A's QP on this node received job B's message.
landed() {
	grep -q "received 'ew_verbs: injected'" "$EW_TMP/$1.peer"
}

# verified NAME: job A's end on this node carried and checked every message.
verified() {
	[ "$(cat "$EW_TMP/$1.rc")" = 0 ] &&
		grep -qx "verified $MESSAGES messages each way" "$EW_TMP/$1.peer"
}

ew_plan 14

# --- setup (6) -------------------------------------------------------------------
ew_load_rxe_eth0
mkdir -p "$EW_CG/ewA" "$EW_CG/ewB"
ew_check "job A: cgroup /ewA, peer $EW_PEER_IP" "$CTL" job add A cgroup /ewA peer "$EW_PEER_IP"
ew_check "job B shares the nodes: cgroup /ewB, peer $EW_PEER_IP" \
	"$CTL" job add B cgroup /ewB peer "$EW_PEER_IP"
# The cluster's key file, the same on both nodes.
if [ "$EW_NODE" -eq 0 ]; then
	mkdir -p "$X"
	head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$X/cluster.key"
fi
ew_meet key
cp "$X/cluster.key" "$EW_TMP/cluster.key"
chmod 600 "$EW_TMP/cluster.key"
ew_check "the cluster key file is on this node" test -s "$EW_TMP/cluster.key"

# --- the application's PSNs (2) -------------------------------------------------
ew_check "job A: psn app" sh -c "'$CTL' job show A | grep -q ' psn app\$'"
round app
if [ "$EW_NODE" -eq 0 ]; then
	ew_check "psn app: job B's injection at PSN 0 from node 1 landed in job A's QP (the attack)" \
		landed app
else
	ew_check "job B's SEND onto node 0's job A QPN was allowed and posted" injected app
fi

# --- keyed PSNs (3) ------------------------------------------------------------
ew_check "job A: psn keyed, its key derived from the cluster key file" \
	"$CTL" job set A psn keyed psn-keyfile "$EW_TMP/cluster.key" psn-run 1796601600.0
round keyed
if [ "$EW_NODE" -eq 0 ]; then
	ew_check "psn keyed: nothing of job B's landed in job A's QP" sh -c "! grep -q injected '$EW_TMP/keyed.peer'"
else
	ew_check "job B's SEND onto node 0's job A QPN was allowed and posted again" injected keyed
fi
ew_check "psn keyed: job A's end on node $EW_NODE verified $MESSAGES messages each way" \
	verified keyed

# rdma_cm under keyed PSNs: each end's module sets the PSNs the CM agreed
# on to the keyed ones, the same on both sides.
if [ "$EW_NODE" -eq 0 ]; then
	ew_in_cg /ewA timeout 60 rping -s -a "$EW_LOCAL_IP" -C 5 -v >"$EW_TMP/rping" 2>&1 &
	_rs=$!
	sleep 2
	ew_meet rping-listen
	ew_meet rping-done
	wait $_rs
	_rc=$(ew_rping_status "$EW_TMP/rping" $?)
	ew_check "psn keyed: the rping server on node 0 answered 5 pings (exit $_rc)" \
		test "$_rc" -eq 0
else
	ew_meet rping-listen
	ew_in_cg /ewA timeout 60 rping -c -a "$EW_PEER_IP" -C 5 -v >"$EW_TMP/rping" 2>&1
	_rc=$(ew_rping_status "$EW_TMP/rping" $?)
	ew_check "psn keyed: rping (rdma_cm) from node 1: 5 verified pings (exit $_rc)" \
		sh -c "cat $EW_TMP/rping; [ $_rc -eq 0 ] &&
			[ \$(grep -c 'ping data: rdma-ping-' $EW_TMP/rping) -eq 5 ]"
	ew_meet rping-done
fi

# --- (2) ---------------------------------------------------------------------------
ew_check "rxe0 deleted" rdma link delete "$DEV"
ew_check "eastwest unloads" ew_unload
ew_done
