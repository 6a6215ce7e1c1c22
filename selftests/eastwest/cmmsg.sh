#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 1
# ew-timeout: 360
# ew-kernels: 6.1
#
# rdma_cm messages as a channel. A connect request, an accept and a reject
# carry the caller's private data (up to 56, 196 and 148 bytes) to the
# route's destination on the kernel's GSI QP; they need no configured QP
# of the caller (ew_cmmsg names an RC QP it never configures), so judging
# QPs never sees them. The messages are judged as an address handle would be:
# the route's destination must be a peer of the caller's job, and a process
# in no job under default deny is refused. A connect request to this node
# must reach a listener of the caller's job (a caller in no job under
# default allow: one of no job's), whatever the peers say. soft-RoCE on a
# dummy netdev with addresses S and S2 (rdma_cm resolves no route over
# lo); both ends on this node, rxe hands the messages back to itself. Job
# A's peers are S2, job B's S, jobs C's and D's both (the node's
# addresses, as the Slurm prolog writes them); every process runs as uid
# 65534.
#
#   1. control: job B's connect reaches job B's listener, whose reject
#      carries its reply back;
#   2. job A's connect to S is refused (EACCES, denied-peer, an event of op
#      cm-message), and job A's listener there receives no request;
#   3. a request of job A's sent from S to job A's listener on S2 is
#      refused at the listener (denied-peer, logged as cm_request: its
#      answer would go to S), which receives nothing; one that reached the
#      listener while S was job A's peer cannot be answered once S is not:
#      its reject and accept, which would carry data to S, are refused; the
#      client never sees the reply;
#   4. a listener in job B accepts with its reply: the client receives it;
#   5. UD IDs (SIDR request and reply): the same as 1 to 4;
#   6. a path the caller sets itself (RDMA_OPTION_IB_PATH): job B's connect
#      to its peer S with the path record of its own route to S passes;
#      with the record of a route to S2, not its peer, it goes to S2's GID:
#      refused (the record's destination is judged, not only the ID's
#      address); a record whose source GID is not the ID's own claims
#      another sender, which the listener would judge and answer: job A's
#      request from S (not its peer) claiming S2 (its peer) to its listener
#      on S2 is refused (denied-internal), and the listener receives
#      nothing; job B's record naming its real source S passes;
#   7. two jobs both allowed the node's addresses: job D's connect to a
#      listener of job C, on S or on every address, RC or UD, is refused
#      (denied-foreign-qp, logged) and the listener receives nothing; so
#      is its connect to a listener in no job, or to a port nobody listens
#      on; job C's own connect passes; a process in no job (default allow)
#      is refused onto job C's listener (an event without a job) and
#      reaches one in no job; job C reaches its listener on 127.0.0.1,
#      which rdma_cm takes for every address; job D may not listen on AF_IB
#      (such a listener, restricted to AF_IB, shares job C's port and is
#      given every address's requests), and its listener in a network
#      namespace of its own keeps job C from nothing;
#   8. IPv6: job D's connect to job C's listener on an IPv6 address, or
#      (over IPv4, RC or UD) on ::, which takes both families, is refused;
#      with net.ipv6.bindv6only set, job C's listener on :: takes IPv6
#      only, and job D reaches its own listener on 0.0.0.0 beside it;
#   9. default deny: a connect from no job is refused.
#
# Against a module that judges only the verbs control path, 2, 3, 5, 6, 7,
# 8 and 9 deliver their data; against one that judged the ID's destination
# address, 6 did; against one that judged only the peers, 7 did (85e8a1b,
# 6.12); against the first listener rule (0110d08), job C's connects of
# 7i, 7j and 7k were refused and job D's AF_IB listener was not; against
# the one before it, which ignored afonly (cfda900), so was job D's of 8e.

. "$(dirname "$0")/../lib.sh"

DEV=rxe0
CG=/sys/fs/cgroup
S=10.82.0.1
S2=10.82.0.2
S6=fd00:82::1
S6_GID=fd00:0082:0000:0000:0000:0000:0000:0001
CMMSG=$EW_TOP/selftests/tools/ew_cmmsg

ew_require_root
ew_require_cmd rdma setpriv unshare
ew_require_built ctl cgroup rdma_cm selftests/tools/ew_cmmsg

ew_tmp_dir 755
ew_defer "rmdir $CG/ewA $CG/ewB $CG/ewC $CG/ewD"
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
# connect CGROUP OUT PORT MSG: a connect request carrying MSG to CADDR if
# set, else S, from CFROM if set; exit status ew_cmmsg's.
connect() {
	ew_in_cg "$1" "$NOBODY" "$CMMSG" "connect${UD:-}" "${CADDR:-$S}" "$3" "$4" \
		${CFROM:+"$CFROM"} >"$2" 2>&1
}
# unlisten PID: stop a listener that was to receive nothing (it prints and
# flushes a request at once) without waiting for it to give up.
unlisten() {
	kill "$1" 2>/dev/null
	ew_reap "$1" 10 >/dev/null
}
# has FILE LINE: FILE has LINE (what it has goes to the check's output).
has() {
	grep -qx "$2" "$1" || { sed 's/^/# /' "$1" >&2; return 1; }
}
lacks() {
	! grep -q "$2" "$1" || { sed 's/^/# /' "$1" >&2; return 1; }
}
# job_id NAME: the job's id.
job_id() {
	"$CTL" -j job show "$1" | python3 -c 'import json, sys
j = json.load(sys.stdin)
print((j[0] if isinstance(j, list) else j)["id"])'
}

# request_refused STEP PORT: a request of job A's sent from S reaches job
# A's listener on S2 (job A may reach S2, the listener is job A's), but S,
# where the listener's answer would go, is not job A's peer: the request is
# refused at the listener (denied-peer of job A, logged as cm_request),
# which receives nothing; the client gets no reply from it. 6 checks.
request_refused() {
	LADDR=$S2
	ew_check "$1/a ${UD:+UD }listener in job A on $S2" \
		listen /ewA "$EW_TMP/l$1" "$2" reject from-a-listener
	LADDR=
	_before=$(ew_ctr ewA denied-peer)
	ew_dmesg_mark
	CADDR=$S2 CFROM=$S
	ew_expect_rc 0 "$1/job A's request to $S2 from $S is sent" \
		connect /ewA "$EW_TMP/c$1" "$2" from-a-at-s
	CADDR= CFROM=
	ew_check "$1/as denied-peer of job A" ew_ctr_grew ewA denied-peer "$_before"
	ew_check "$1/logged as a refused cm_request of job $AID" \
		ew_dmesg_wait "denied cm_request: [^:]*: job $AID "
	unlisten "$LPID"
	ew_check "$1/job A's listener received nothing" lacks "$EW_TMP/l$1" "request:"
	ew_check "$1/the client never received a reply from it" \
		lacks "$EW_TMP/c$1" "from-a-listener"
}

# answer_refused STEP HOW PORT: while S is job A's peer, a request of job
# A's sent from S reaches job A's listener on S2; S is then taken from job
# A's peers before the listener answers (HOW: accept or reject) with its
# reply, which would go to S: refused as denied-peer; the client never
# sees the reply. 7 checks.
answer_refused() {
	export EW_CMMSG_HOLD="$EW_TMP/hold$1$2"
	LADDR=$S2
	ew_check "$1/a ${UD:+UD }listener in job A on $S2 ($2, held before answering)" \
		listen /ewA "$EW_TMP/l$1$2" "$3" "$2" from-a-listener
	LADDR=
	unset EW_CMMSG_HOLD
	ew_check "$1/$S is job A's peer for now" "$CTL" peer add ewA "$S"
	CADDR=$S2 CFROM=$S
	ew_start_bg "$EW_TMP/c$1$2" /ewA "$NOBODY" "$CMMSG" "connect${UD:-}" "$S2" "$3" \
		from-a-at-s "$S"
	_cpid=$EW_BG_PID
	CADDR= CFROM=
	ew_check "$1/job A's listener received job A's request from $S" \
		ew_wait_for 10 grep -qx "request: from-a-at-s" "$EW_TMP/l$1$2"
	ew_check "$1/$S is no longer job A's peer" "$CTL" peer del ewA "$S"
	_before=$(ew_ctr ewA denied-peer)
	: >"$EW_TMP/hold$1$2"
	ew_reap "$LPID" 20 >/dev/null
	ew_reap "$_cpid" 20 >/dev/null
	ew_check "$1/job A's $2 to $S is refused (EACCES)" \
		has "$EW_TMP/l$1$2" "$2: Permission denied"
	ew_check "$1/as denied-peer of job A" ew_ctr_grew ewA denied-peer "$_before"
	ew_check "$1/the client never received job A's reply" \
		lacks "$EW_TMP/c$1$2" "from-a-listener"
}

# delivered STEP LCG CCG PORT WHAT [accept]: a listener in LCG (on LADDR or
# S) receives CCG's request and answers it with a reject (or an accept)
# carrying its reply, which CCG receives. 4 checks.
delivered() {
	_how=${6:-reject}
	ew_check "$1/a ${UD:+UD }listener ${LCG_NAME:-in $2} ($_how)" \
		listen "$2" "$EW_TMP/l$1" "$4" "$_how" from-listener
	ew_expect_rc 0 "$1/$5: the request is sent" connect "$3" "$EW_TMP/c$1" "$4" "from-$1"
	ew_reap "$LPID" 20 >/dev/null
	ew_check "$1/the listener received it" has "$EW_TMP/l$1" "request: from-$1"
	ew_check "$1/the client received the listener's $_how with its data" \
		has "$EW_TMP/c$1" "${_how}ed: from-listener"
}

# foreign STEP LCG CCG PORT WHAT: a listener in LCG (on LADDR or S); CCG's
# request to it is refused (EACCES) and the listener receives nothing. 3
# checks.
foreign() {
	ew_check "$1/a ${UD:+UD }listener ${LCG_NAME:-in $2}" \
		listen "$2" "$EW_TMP/l$1" "$4" reject from-listener
	ew_expect_rc 13 "$1/$5: refused (EACCES)" connect "$3" "$EW_TMP/c$1" "$4" "from-$1"
	unlisten "$LPID"
	ew_check "$1/the listener received nothing" lacks "$EW_TMP/l$1" "request:"
}

# c_beside_d STEP PORT: job C's connect to its own listener on S (pid CPID,
# output l$STEP) reaches it, while job D's listener (the last started,
# output l${STEP}d) receives nothing. 3 checks.
c_beside_d() {
	ew_expect_rc 0 "$1/job C's connect to its own listener on $S is sent" \
		connect /ewC "$EW_TMP/c$1" "$2" "from-$1"
	ew_reap "$CPID" 20 >/dev/null
	ew_check "$1/job C's listener received it" has "$EW_TMP/l$1" "request: from-$1"
	unlisten "$EW_BG_PID"
	ew_check "$1/job D's listener received nothing" lacks "$EW_TMP/l${1}d" "request:"
}

ew_plan 158

ew_check "eastwest.ko loads" ew_load
ew_check "a dummy netdev with $S" ew_dummy_add ewd0 "$S/24"
ew_check "$DEV on it" ew_rxe_add "$DEV" ewd0
ew_check "a second address $S2 on the dummy netdev" ip addr add "$S2/24" dev ewd0
IDX2=$(ew_wait_gid_index "$DEV" "$S2")
ew_check "its GID on $DEV (index ${IDX2:-none})" test -n "$IDX2"
mkdir -p "$CG/ewA" "$CG/ewB" "$CG/ewC" "$CG/ewD"
ew_check "job A (peer $S2, not $S)" "$CTL" job add ewA cgroup /ewA peer "$S2"
ew_check "job B (peer $S, not $S2)" "$CTL" job add ewB cgroup /ewB peer "$S"
ew_check "job C (peers $S and $S2: the node's addresses)" \
	"$CTL" job add ewC cgroup /ewC peer "$S" peer "$S2"
ew_check "job D (the same peers)" "$CTL" job add ewD cgroup /ewD peer "$S" peer "$S2"
ew_check "default allow" "$CTL" config set default allow
AID=$(job_id ewA)
DID=$(job_id ewD)

# --- 1. control ------------------------------------------------------------
delivered 1 /ewB /ewB 7301 "job B to job B's listener on $S"

# --- 2. job A's connect ------------------------------------------------------
ew_check "2/a listener in job A on $S" listen /ewA "$EW_TMP/l2" 7302 reject from-listener
before_peer=$(ew_ctr ewA denied-peer)
ew_dmesg_mark
ew_expect_rc 13 "2/job A's connect to $S (not its peer) is refused (EACCES)" \
	connect /ewA "$EW_TMP/c2" 7302 from-a
ew_check "2/counted as denied-peer of job A" ew_ctr_grew ewA denied-peer "$before_peer"
ew_check "2/logged as a refused cm_message of job $AID" \
	ew_dmesg_wait "denied cm_message: [^:]*: job $AID "
unlisten "$LPID"
ew_check "2/the listener received nothing" lacks "$EW_TMP/l2" "request:"

# --- 3. requests to and answers of a listener in job A -----------------------------
request_refused 3 7303
answer_refused 3 reject 7307
answer_refused 3 accept 7304

# --- 4. a listener in job B ------------------------------------------------------
delivered 4 /ewB /ewB 7305 "job B to job B's listener" accept

# --- 5. UD IDs (SIDR) ------------------------------------------------------------
UD=-ud
delivered 5 /ewB /ewB 7311 "job B's SIDR request to job B's UD listener"
ew_check "5/a UD listener in job A on $S" listen /ewA "$EW_TMP/l5b" 7312 reject from-listener
ew_expect_rc 13 "5/job A's SIDR request to $S is refused (EACCES)" \
	connect /ewA "$EW_TMP/c5b" 7312 from-a
unlisten "$LPID"
ew_check "5/the listener received nothing" lacks "$EW_TMP/l5b" "request:"
request_refused 5r 7315
answer_refused 5 accept 7313
delivered 5c /ewB /ewB 7314 "job B's SIDR request to job B's UD listener" accept
UD=

# --- 6. a path set by the caller --------------------------------------------------
LADDR=0.0.0.0
ew_check "6/a listener in job B on every address" listen /ewB "$EW_TMP/l6" 7320 reject from-listener
ew_expect_rc 0 "6/control: job B's connect to its peer $S is sent" \
	connect /ewB "$EW_TMP/c6" 7320 from-b
ew_reap "$LPID" 20 >/dev/null
ew_check "6/control: the listener received it" has "$EW_TMP/l6" "request: from-b"
ew_check "6/a listener in job B on every address" listen /ewB "$EW_TMP/l6a" 7322 reject from-listener
ew_expect_rc 0 "6/control: job B's connect to $S with the path of its own route to $S is sent" \
	ew_in_cg /ewB "$NOBODY" "$CMMSG" connect-via "$S" 7322 from-b-own "$S"
ew_reap "$LPID" 20 >/dev/null
ew_check "6/control: the listener received it" has "$EW_TMP/l6a" "request: from-b-own"
ew_check "6/a listener in job B on every address" listen /ewB "$EW_TMP/l6b" 7321 reject from-listener
_before=$(ew_ctr ewB denied-peer)
ew_expect_rc 13 "6/job B's connect to $S with the path of a route to $S2 (not its peer) is refused (EACCES)" \
	ew_in_cg /ewB "$NOBODY" "$CMMSG" connect-via "$S" 7321 from-b-via "$S2"
ew_check "6/as denied-peer of job B" ew_ctr_grew ewB denied-peer "$_before"
unlisten "$LPID"
ew_check "6/the listener received nothing" lacks "$EW_TMP/l6b" "request:"
ew_check "6/a listener in job B on every address" listen /ewB "$EW_TMP/l6c" 7323 reject from-listener
ew_expect_rc 0 "6/control: job B's connect from $S to $S whose path record names $S as its source is sent" \
	ew_in_cg /ewB "$NOBODY" "$CMMSG" connect-claim "$S" 7323 from-b-claim "$S" "$S"
ew_reap "$LPID" 20 >/dev/null
ew_check "6/control: the listener received it" has "$EW_TMP/l6c" "request: from-b-claim"
LADDR=$S2
ew_check "6/a listener in job A on $S2" listen /ewA "$EW_TMP/l6d" 7324 reject from-a-listener
_before=$(ew_ctr ewA denied-internal)
ew_expect_rc 13 "6/job A's connect from $S to $S2 whose path record claims $S2 (its peer) as its source is refused (EACCES)" \
	ew_in_cg /ewA "$NOBODY" "$CMMSG" connect-claim "$S2" 7324 from-a-claim "$S" "$S2"
ew_check "6/as denied-internal of job A" ew_ctr_grew ewA denied-internal "$_before"
unlisten "$LPID"
ew_check "6/job A's listener received nothing" lacks "$EW_TMP/l6d" "request:"
LADDR=

# --- 7. two jobs both allowed the node's addresses ---------------------------------
_before=$(ew_ctr ewD denied-foreign-qp)
ew_dmesg_mark
foreign 7a /ewC /ewD 7331 "job D's connect to job C's listener on $S"
ew_check "7a/counted as denied-foreign-qp of job D" \
	ew_ctr_grew ewD denied-foreign-qp "$_before"
ew_check "7a/logged as a refused cm_message of job $DID" \
	ew_dmesg_wait "denied cm_message: [^:]*: job $DID "
ew_check "7a/job D received no reply" lacks "$EW_TMP/c7a" "rejected:"
LADDR=0.0.0.0 CADDR=$S2
foreign 7b /ewC /ewD 7332 "job D's connect to $S2, job C's listener on every address"
delivered 7c /ewC /ewC 7333 "control: job C's connect to its own listener on every address"
LADDR= CADDR=
UD=-ud
foreign 7d /ewC /ewD 7334 "job D's SIDR request to job C's UD listener"
UD=
LCG_NAME="in no job"
foreign 7e / /ewD 7335 "job D's connect to a listener in no job"
LCG_NAME=
ew_expect_rc 13 "7f/job D's connect to a port nobody listens on is refused (EACCES)" \
	connect /ewD "$EW_TMP/c7f" 7336 from-7f
_before=$(ew_ctr - denied-foreign-qp)
foreign 7g /ewC / 7337 "a connect from no job (default allow) to job C's listener"
ew_check "7g/counted as denied-foreign-qp of the node" \
	ew_ctr_grew - denied-foreign-qp "$_before"
LCG_NAME="in no job"
delivered 7h / / 7338 "control: from no job to a listener in no job"
LCG_NAME=

LADDR=127.0.0.1
delivered 7i /ewC /ewC 7339 "control: job C's connect to $S, its own listener on 127.0.0.1 (every address, to rdma_cm)"
LADDR=
ew_check "7j/a listener in job C on $S" listen /ewC "$EW_TMP/l7j" 7340 reject from-listener
CPID=$LPID
ew_dmesg_mark
ew_start_bg "$EW_TMP/l7jd" /ewD "$NOBODY" "$CMMSG" listen-ib 7340 reject from-d
ew_check "7j/job D's AF_IB listener on port 7340 (afonly, so beside job C's) is refused (EACCES)" \
	ew_wait_for 10 grep -qx "listen: Permission denied" "$EW_TMP/l7jd"
ew_check "7j/logged as a refused cm_listen of job $DID" \
	ew_dmesg_wait "denied cm_listen: [^:]*: job $DID "
c_beside_d 7j 7340
ew_check "7k/a listener in job C on $S" listen /ewC "$EW_TMP/l7k" 7341 reject from-listener
CPID=$LPID
ew_start_bg "$EW_TMP/l7kd" /ewD unshare -n "$NOBODY" "$CMMSG" listen 0.0.0.0 7341 reject from-d
ew_check "7k/job D listens on every address of a network namespace of its own" \
	ew_wait_for 10 grep -qx listening "$EW_TMP/l7kd"
c_beside_d 7k 7341

# --- 8. IPv6, both families, afonly ------------------------------------------------
ew_check "8/an IPv6 address $S6 on the dummy netdev" ip -6 addr add "$S6/64" dev ewd0 nodad
ew_check "8/its GID on $DEV" ew_wait_for 10 ew_gid_find "$DEV" "$S6_GID" 32
ew_check "8/jobs C and D may reach $S6" sh -c \
	"'$CTL' peer add ewC '$S6' && '$CTL' peer add ewD '$S6'"
LADDR=$S6 CADDR=$S6
foreign 8a /ewC /ewD 7351 "job D's connect to job C's listener on $S6"
delivered 8b /ewC /ewC 7352 "control: job C's connect to its own listener on $S6"
LADDR=:: CADDR=$S
foreign 8c /ewC /ewD 7353 "job D's IPv4 connect to job C's listener on :: (both families)"
UD=-ud
foreign 8d /ewC /ewD 7354 "job D's IPv4 SIDR request to job C's UD listener on ::"
UD=
# With bindv6only, rdma_cm makes an IPv6 listener afonly (an IPv4 one
# always is): job C's listener on :: takes no IPv4 request and shares its
# port with job D's on 0.0.0.0, which alone is asked.
V6ONLY=$(sysctl -n net.ipv6.bindv6only)
ew_defer "sysctl -qw net.ipv6.bindv6only=$V6ONLY"
ew_check "8e/net.ipv6.bindv6only=1" sysctl -qw net.ipv6.bindv6only=1
ew_check "8e/a listener in job C on :: (IPv6 only)" \
	listen /ewC "$EW_TMP/l8ec" 7355 reject from-listener
CPID=$LPID
LADDR=0.0.0.0
delivered 8e /ewD /ewD 7355 "job D's IPv4 connect to its own listener on 0.0.0.0, beside job C's on ::"
unlisten "$CPID"
ew_check "8e/job C's listener on :: received nothing" lacks "$EW_TMP/l8ec" "request:"
LADDR=:: CADDR=$S6
foreign 8f /ewC /ewD 7356 "job D's IPv6 connect to job C's listener on :: (IPv6 only)"
LADDR= CADDR=
ew_check "8/net.ipv6.bindv6only restored" sysctl -qw net.ipv6.bindv6only="$V6ONLY"

# --- 9. default deny -------------------------------------------------------------
ew_check "9/default deny" "$CTL" config set default deny
ew_expect_rc 13 "9/a connect from no job is refused (EACCES)" \
	connect / "$EW_TMP/c9" 7306 from-nobody

ew_reap_all
ew_check "$DEV deleted" ew_rxe_del "$DEV"
ew_check "eastwest unloads" ew_unload

ew_done
