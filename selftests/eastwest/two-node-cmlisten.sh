#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 2
# ew-timeout: 600
# ew-kernels: 6.12
#
# A listener that holds a port on another node. A connect request carries
# the sender's QPN, its starting PSN and up to 56 bytes of private data to
# whichever rdma_cm listener holds the destination port there; the sending
# node cannot know whose it is. On the listener's node the request must be
# judged against the listener's job before its owner reads it: the job must
# be allowed the request's source, as it would have to be to answer. Node 0
# sends (job A, allowed both nodes' addresses, uid 65534, ew_cmmsg with an
# unconfigured QP); node 1 listens on every address:
#   1. control: a listener of job A receives job A's request and its
#      reject carries its reply back;
#   2. a listener of job B, which may reach only node 1's own address:
#      the request is refused there (denied-peer of job B, logged as
#      cm_request), the listener receives nothing, and node 0's client gets
#      nothing of its reply;
#   3. the same with UD IDs (a SIDR request);
#   4. default deny: a listener in no job receives nothing (denied-no-job
#      of the node).
# Against the module before the check, 2, 3 and 4 delivered job A's request
# and its data to the other listener (6.12).

. "$(dirname "$0")/../lib.sh"

DEV=rxe0
CMMSG=$EW_TOP/selftests/tools/ew_cmmsg

ew_require_root
ew_require_nodes 2
ew_require_cmd rdma setpriv
ew_require_built ctl cgroup rdma_cm selftests/tools/ew_cmmsg

ew_tmp_dir 755
ew_defer "rmdir $EW_CG/ewA $EW_CG/ewB"
ew_defer "rdma link delete $DEV"
ew_defer "ew_rmmod"
ew_defer "ew_reap_all"

NOBODY=$(ew_nobody_script "$EW_TMP")

# has FILE LINE / lacks FILE TEXT (what FILE has goes to the check's output).
has() {
	grep -qx "$2" "$1" || { sed 's/^/# /' "$1" >&2; return 1; }
}
lacks() {
	! grep -q "$2" "$1" || { sed 's/^/# /' "$1" >&2; return 1; }
}

# send OUT PORT MSG: job A's request carrying MSG to node 1.
send() {
	ew_in_cg /ewA "$NOBODY" "$CMMSG" "connect${UD:-}" "$EW_PEER_IP" "$2" "$3" \
		>"$1" 2>&1
}

# case_run STEP CGROUP PORT WANT: node 1 listens in CGROUP (UD IDs with
# UD=-ud) on every address and answers with a reject carrying its reply;
# node 0's job A sends a request to node 1. WANT delivered: the listener
# receives it and the client its reply (2 checks on node 1, 2 on node 0);
# refused: neither, and node 1 counts CTR of job CJOB (- for the node): 3
# checks on node 1, 2 on node 0.
case_run() {
	if [ "$EW_NODE" -eq 1 ]; then
		_before=$(ew_ctr "$CJOB" "$CTR")
		ew_start_bg "$EW_TMP/l$1" "$2" "$NOBODY" "$CMMSG" "listen${UD:-}" \
			0.0.0.0 "$3" reject "from-listener-$1"
		_lpid=$EW_BG_PID
		ew_check "$1/a ${UD:+UD }listener ${LNAME:-in $2} on every address" \
			ew_wait_for 10 grep -qx listening "$EW_TMP/l$1"
		ew_meet "$1-listen" 180
		ew_meet "$1-sent" 180
		ew_reap "$_lpid" 10 >/dev/null
		if [ "$4" = delivered ]; then
			ew_check "$1/it received job A's request from node 0" \
				has "$EW_TMP/l$1" "request: from-a-$1"
		else
			ew_check "$1/it received nothing" lacks "$EW_TMP/l$1" "request:"
			ew_check "$1/counted as $CTR" ew_ctr_grew "$CJOB" "$CTR" "$_before"
		fi
	else
		ew_meet "$1-listen" 180
		ew_expect_rc 0 "$1/job A's ${UD:+SIDR }request to node 1 is sent" \
			send "$EW_TMP/c$1" "$3" "from-a-$1"
		ew_meet "$1-sent" 180
		if [ "$4" = delivered ]; then
			ew_check "$1/the client received the listener's reply" \
				has "$EW_TMP/c$1" "rejected: from-listener-$1"
		else
			ew_check "$1/the client received nothing of the listener's" \
				lacks "$EW_TMP/c$1" "from-listener-$1"
		fi
	fi
}

ew_plan $((EW_NODE ? 20 : 15))

ew_load_rxe_eth0
mkdir -p "$EW_CG/ewA" "$EW_CG/ewB"
ew_check "job A (peers: both nodes)" \
	"$CTL" job add ewA cgroup /ewA peer "$EW_LOCAL_IP" peer "$EW_PEER_IP"
ew_check "job B (peer: this node's address only)" \
	"$CTL" job add ewB cgroup /ewB peer "$EW_LOCAL_IP"
ew_check "default allow" "$CTL" config set default allow
BID=$("$CTL" -j job show ewB | python3 -c 'import json, sys
j = json.load(sys.stdin)
print((j[0] if isinstance(j, list) else j)["id"])')

case_run 1 /ewA 7401 delivered

[ "$EW_NODE" -eq 1 ] && ew_dmesg_mark
CJOB=ewB CTR=denied-peer
case_run 2 /ewB 7402 refused
if [ "$EW_NODE" -eq 1 ]; then
	ew_check "2/logged as a refused cm_request of job $BID" \
		ew_dmesg_wait "denied cm_request: [^:]*: job $BID "
fi
UD=-ud
case_run 3 /ewB 7403 refused
UD=

if [ "$EW_NODE" -eq 1 ]; then
	ew_check "4/default deny on node 1" "$CTL" config set default deny
fi
CJOB=- CTR=denied-no-job LNAME="in no job"
case_run 4 / 7404 refused
LNAME=

ew_reap_all
ew_check "eastwest unloads" ew_unload

ew_done
