#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 1
# ew-timeout: 300
#
# rdma_cm messages as a channel. A connect request, an accept and a reject
# carry the caller's private data (up to 56, 196 and 148 bytes) to the
# route's destination on the kernel's GSI QP; they need no QP of the caller
# at all (ew_cmmsg names QP 0x123 that does not exist), so judging QPs
# never sees them. The messages are judged as an address handle would be:
# the route's destination must be a peer of the caller's job, and a process
# in no job under default deny is refused. soft-RoCE on a dummy netdev
# with address S (rdma_cm resolves no route over lo); both ends on this
# node, rxe hands the messages back to itself. Job A's peers exclude S, job
# B's include it; every process runs as uid 65534.
#
#   1. control: job B's connect reaches a listener in no job, whose reject
#      carries its reply back;
#   2. job A's connect to S is refused (EACCES, denied-peer, an event of op
#      cm-message), and the listener receives no request;
#   3. a listener in job A: a connect from no job (default allow) arrives,
#      and job A's reject and accept, which would carry data to L, are
#      refused; the client never sees the reply;
#   4. a listener in job B accepts with its reply: the client receives it;
#   5. UD IDs (SIDR request and reply): job B's request and a reply to it
#      pass; job A's request is refused, and so is a UD listener of job A's
#      accept of a request from no job, while job B's UD listener's passes
#      (SIDR IDs made by a request have no path record: the destination is
#      the request's source address);
#   6. a path the caller sets itself (RDMA_OPTION_IB_PATH): job B's connect
#      to its peer S with the path record of its own route to S passes;
#      with the record of a route to S2, another address of this node and
#      not its peer, it goes to S2's GID: refused (the record's destination
#      is judged, not only the ID's address);
#   7. default deny: a connect from no job is refused.
#
# Against a module that judges only the verbs control path, 2, 3, 5, 6 and
# 7 deliver their data; against one that judged the ID's destination
# address, 6 did.

. "$(dirname "$0")/../lib.sh"

DEV=rxe0
CG=/sys/fs/cgroup
S=10.82.0.1
S2=10.82.0.2
CMMSG=$EW_TOP/selftests/tools/ew_cmmsg

ew_require_root
ew_require_cmd rdma setpriv
ew_require_built ctl cgroup rdma_cm selftests/tools/ew_cmmsg

ew_tmp_dir 755
ew_defer "rmdir $CG/ewA $CG/ewB"
ew_defer "ew_netdev_del ewd0"
ew_defer "rdma link delete $DEV"
ew_defer "ew_unload"
ew_defer "ew_reap_all"

NOBODY=$(ew_nobody_script "$EW_TMP")

# listen CGROUP OUT PORT accept|reject REPLY: a listener in the background
# (its pid in LPID), once it listens; UD IDs with UD=-ud; on LADDR if set
# (0.0.0.0: every address), else on S.
listen() {
	ew_start_bg "$2" "$1" "$NOBODY" "$CMMSG" "listen${UD:-}" "${LADDR:-$S}" "$3" "$4" "$5"
	LPID=$EW_BG_PID
	ew_wait_for 10 grep -qx listening "$2"
}
# connect CGROUP OUT PORT MSG: a connect request carrying MSG; exit status
# ew_cmmsg's.
connect() {
	ew_in_cg "$1" "$NOBODY" "$CMMSG" "connect${UD:-}" "$S" "$3" "$4" >"$2" 2>&1
}
# has FILE LINE: FILE has LINE (what it has goes to the check's output).
has() {
	grep -qx "$2" "$1" || { sed 's/^/# /' "$1" >&2; return 1; }
}
lacks() {
	! grep -q "$2" "$1" || { sed 's/^/# /' "$1" >&2; return 1; }
}

# answer_refused STEP HOW PORT: a listener of job A answers (HOW: accept or
# reject) a request from no job with its reply, which is refused as
# denied-peer; the client never sees the reply. 6 checks.
answer_refused() {
	ew_check "$1/a ${UD:+UD }listener in job A ($2)" \
		listen /ewA "$EW_TMP/l$1$2" "$3" "$2" from-a-listener
	_before=$(ew_ctr ewA denied-peer)
	ew_expect_rc 0 "$1/a request from no job (default allow) is sent" \
		connect / "$EW_TMP/c$1$2" "$3" from-nobody
	ew_reap "$LPID" 20 >/dev/null
	ew_check "$1/job A's listener received it" has "$EW_TMP/l$1$2" "request: from-nobody"
	ew_check "$1/job A's $2 to $S is refused (EACCES)" \
		has "$EW_TMP/l$1$2" "$2: Permission denied"
	ew_check "$1/as denied-peer of job A" ew_ctr_grew ewA denied-peer "$_before"
	ew_check "$1/the client never received job A's reply" \
		lacks "$EW_TMP/c$1$2" "from-a-listener"
}

# answer_passes STEP PORT: a listener of job B (S is its peer) accepts a
# request from no job with its reply, which the client receives. 4 checks.
answer_passes() {
	ew_check "$1/a ${UD:+UD }listener in job B (accept)" \
		listen /ewB "$EW_TMP/l$1b" "$2" accept from-b-listener
	ew_expect_rc 0 "$1/a request from no job is sent" connect / "$EW_TMP/c$1b" "$2" from-nobody
	ew_reap "$LPID" 20 >/dev/null
	ew_check "$1/job B's accept is allowed, the client received its reply" \
		has "$EW_TMP/c$1b" "accepted: from-b-listener"
}

ew_plan 62

ew_check "eastwest.ko loads" ew_load
ew_check "a dummy netdev with $S" ew_dummy_add ewd0 "$S/24"
ew_check "$DEV on it" ew_rxe_add "$DEV" ewd0
mkdir -p "$CG/ewA" "$CG/ewB"
ew_check "job A (peer 192.0.2.0/24: not $S)" \
	"$CTL" job add ewA cgroup /ewA peer 192.0.2.0/24
ew_check "job B (peer $S)" "$CTL" job add ewB cgroup /ewB peer "$S"
ew_check "default allow" "$CTL" config set default allow
AID=$("$CTL" -j job show ewA | python3 -c 'import json, sys
j = json.load(sys.stdin)
print((j[0] if isinstance(j, list) else j)["id"])')

# --- 1. control ------------------------------------------------------------
ew_check "1/a listener in no job" listen / "$EW_TMP/l1" 7301 reject from-listener
ew_expect_rc 0 "1/job B's connect to $S with data is sent" \
	connect /ewB "$EW_TMP/c1" 7301 from-b
ew_reap "$LPID" 20 >/dev/null
ew_check "1/the listener received job B's data" has "$EW_TMP/l1" "request: from-b"
ew_check "1/job B received the listener's reject with its data" \
	has "$EW_TMP/c1" "rejected: from-listener"

# --- 2. job A's connect ------------------------------------------------------
ew_check "2/a listener in no job" listen / "$EW_TMP/l2" 7302 reject from-listener
before_peer=$(ew_ctr ewA denied-peer)
ew_dmesg_mark
ew_expect_rc 13 "2/job A's connect to $S (not its peer) is refused (EACCES)" \
	connect /ewA "$EW_TMP/c2" 7302 from-a
ew_check "2/counted as denied-peer of job A" ew_ctr_grew ewA denied-peer "$before_peer"
ew_check "2/logged as a refused cm_message of job $AID" \
	ew_dmesg_wait "denied cm_message: [^:]*: job $AID "
ew_reap "$LPID" 2 >/dev/null
ew_check "2/the listener received nothing" lacks "$EW_TMP/l2" "request:"

# --- 3. a listener in job A ----------------------------------------------------
answer_refused 3 reject 7303
answer_refused 3 accept 7304

# --- 4. a listener in job B ------------------------------------------------------
answer_passes 4 7305

# --- 5. UD IDs (SIDR) ------------------------------------------------------------
UD=-ud
ew_check "5/a UD listener in no job" listen / "$EW_TMP/l5" 7311 reject from-listener
ew_expect_rc 0 "5/job B's SIDR request is sent" connect /ewB "$EW_TMP/c5" 7311 from-b
ew_reap "$LPID" 20 >/dev/null
ew_check "5/the listener received job B's data" has "$EW_TMP/l5" "request: from-b"
ew_check "5/job B received the listener's reply" has "$EW_TMP/c5" "rejected: from-listener"
ew_check "5/a UD listener in no job" listen / "$EW_TMP/l5b" 7312 reject from-listener
ew_expect_rc 13 "5/job A's SIDR request to $S is refused (EACCES)" \
	connect /ewA "$EW_TMP/c5b" 7312 from-a
ew_reap "$LPID" 2 >/dev/null
ew_check "5/the listener received nothing" lacks "$EW_TMP/l5b" "request:"
answer_refused 5 accept 7313
answer_passes 5 7314
UD=

# --- 6. a path set by the caller --------------------------------------------------
ew_check "6/a second address $S2 on the dummy netdev" ip addr add "$S2/24" dev ewd0
IDX2=$(ew_wait_gid_index "$DEV" "$S2")
ew_check "6/its GID on $DEV (index ${IDX2:-none})" test -n "$IDX2"
LADDR=0.0.0.0
ew_check "6/a listener in no job on every address" listen / "$EW_TMP/l6" 7320 reject from-listener
ew_expect_rc 0 "6/control: job B's connect to its peer $S is sent" \
	connect /ewB "$EW_TMP/c6" 7320 from-b
ew_reap "$LPID" 20 >/dev/null
ew_check "6/control: the listener received it" has "$EW_TMP/l6" "request: from-b"
ew_check "6/a listener in no job on every address" listen / "$EW_TMP/l6a" 7322 reject from-listener
ew_expect_rc 0 "6/control: job B's connect to $S with the path of its own route to $S is sent" \
	ew_in_cg /ewB "$NOBODY" "$CMMSG" connect-via "$S" 7322 from-b-own "$S"
ew_reap "$LPID" 20 >/dev/null
ew_check "6/control: the listener received it" has "$EW_TMP/l6a" "request: from-b-own"
ew_check "6/a listener in no job on every address" listen / "$EW_TMP/l6b" 7321 reject from-listener
_before=$(ew_ctr ewB denied-peer)
ew_expect_rc 13 "6/job B's connect to $S with the path of a route to $S2 (not its peer) is refused (EACCES)" \
	ew_in_cg /ewB "$NOBODY" "$CMMSG" connect-via "$S" 7321 from-b-via "$S2"
ew_check "6/as denied-peer of job B" ew_ctr_grew ewB denied-peer "$_before"
ew_reap "$LPID" 2 >/dev/null
ew_check "6/the listener received nothing" lacks "$EW_TMP/l6b" "request:"
LADDR=

# --- 7. default deny -------------------------------------------------------------
ew_check "7/default deny" "$CTL" config set default deny
ew_expect_rc 13 "7/a connect from no job is refused (EACCES)" \
	connect / "$EW_TMP/c7" 7306 from-nobody

ew_reap_all
ew_check "$DEV deleted" ew_rxe_del "$DEV"
ew_check "eastwest unloads" ew_unload

ew_done
