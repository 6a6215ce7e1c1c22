#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 1
# ew-timeout: 600
#
# Co-located jobs on ONE node. Jobs A (/ewA) and B (/ewB) share a soft-RoCE
# device on lo and may both reach 127.0.0.1: exactly what a Slurm prolog
# writes, since a job's peers are all of its nodes, this one included. So
# the peer rule alone cannot tell job A's QPs from job B's on this node.
# Every job process runs as uid 65534 (nobody, no capabilities).
#
#   1. another job's QP on the same host: job A's victim, a pair of RC QPs
#      connected to each other and waiting (ew_verbs rc-pair-hold), is read
#      from `rdma res show qp` (QPN, expected PSN); job B's process then
#      connects an RC QP onto it (must be refused with EACCES, counted as
#      denied-foreign-qp of job B, reported as a deny event with reason
#      foreign-qp and logged), injects a SEND into it (refused too), and
#      aims a UD address handle at this node (refused: an AH cannot name a
#      QP). Job A's transfer must then complete and verify. Controls: job B
#      onto its own QP on this host and job A onto its own QP are allowed; a
#      process in no job is refused as before; in audit mode job B's
#      connect is allowed and counted. Under default allow a process in no
#      job is not policed, yet it may not connect onto a job's QP on this
#      node either, nor onto a number no QP has yet (it may become a
#      job's), while its own QPs in no job still connect to each other;
#      nor re-aim a QP connected to itself at job A's QP by a modify of the
#      destination QPN alone (ew_verbs rc-retarget: no state named, which
#      the state table forbids but rxe of 6.12 applied; on 38527fe it
#      passed there and injected; 6.1's rxe refused it with EINVAL).
#   2. connection identifiers are not readable by other jobs: uid 65534 in
#      job B, or in no job, must see none of job A's QPs (text and JSON, and
#      not by asking for A's lqpn), CQs, PDs, MRs (and cm_ids: rping); job
#      A's own process still sees its QPs, root sees everything.
#
# Against a module without the co-location fix, the attack checks print
# "not ok" (expected) while the setup and control checks pass.

. "$(dirname "$0")/../lib.sh"

DEV=rxe0
CG=/sys/fs/cgroup
LOOP=127.0.0.1
MESSAGES=20

ew_require_root
ew_require_cmd rdma ip python3 setpriv mkfifo unshare
ew_require_built ctl verbs cgroup

ew_tmp_dir 755
ew_defer "rmdir $CG/ewA $CG/ewB"
ew_defer "rdma link delete $DEV"
ew_defer "ew_rmmod"
ew_defer "ew_reap_all"

# $NOBODY CMD...: run CMD as uid/gid 65534 with no capabilities at all (a
# job's ordinary user); combine with ew_in_cg / ew_start_bg for the cgroup.
NOBODY=$(ew_nobody_script "$EW_TMP")

# --- background processes: every one is recorded and reaped (as gate.sh) --


# --- helpers ---------------------------------------------------------------

# The resources of `rdma -j res show KIND` (stdin): "ids KIND PID" prints
# the ids (lqpn, cqn, pdn, mrn, cm-idn) of those whose pid is PID; "none
# KIND IDS PIDS" prints those with one of the (comma-separated) ids or
# pids and fails if there is any.
cat >"$EW_TMP/res.py" <<'EOF'
import json, sys
key = {"qp": "lqpn", "cq": "cqn", "pd": "pdn", "mr": "mrn", "cm_id": "cm-idn"}
what, kind = sys.argv[1], sys.argv[2]
text = sys.stdin.read().strip()
res = json.loads(text) if text else []
if isinstance(res, dict):
    res = [res]
if what == "ids":
    print(" ".join(str(r[key[kind]]) for r in res
                   if str(r.get("pid")) == sys.argv[3] and key[kind] in r))
    sys.exit(0)
ids = set(sys.argv[3].split(",")) - {""}
pids = set(sys.argv[4].split(",")) - {""}
hits = [r for r in res if str(r.get(key[kind])) in ids or str(r.get("pid")) in pids]
for r in hits:
    print("# visible:", json.dumps(r))
sys.exit(1 if hits else 0)
EOF

# The nldev doit of RES_QP_GET for one lqpn (what `rdma res show qp link
# DEV/1 lqpn N` sends first): "qp_doit.py IFINDEX LQPN" prints "found" and
# exits 0 if the kernel returned the QP, else "error ERRNO" and exits 1.
cat >"$EW_TMP/qp_doit.py" <<'EOF'
import errno, os, socket, struct, sys
NETLINK_RDMA, NLDEV, RES_QP_GET = 20, 5, 10
DEV_INDEX, PORT_INDEX, RES_LQPN = 1, 3, 21
def u32(t, v):
    return struct.pack("=HHI", 8, t, v)
body = u32(DEV_INDEX, int(sys.argv[1])) + u32(PORT_INDEX, 1) + u32(RES_LQPN, int(sys.argv[2]))
msg = struct.pack("=IHHII", 16 + len(body), (NLDEV << 10) + RES_QP_GET, 1 | 4, 1, 0) + body
s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_RDMA)
s.send(msg)
found = False
while True:
    data = s.recv(65536)
    off = 0
    while off + 16 <= len(data):
        ln, typ, _, _, _ = struct.unpack_from("=IHHII", data, off)
        if typ == 2:  # NLMSG_ERROR: the ACK, or the error
            err = -struct.unpack_from("=i", data, off + 16)[0]
            if found and err == 0:
                print("found")
                sys.exit(0)
            print("error", errno.errorcode.get(err, err) if err else "none: no QP in the reply")
            sys.exit(1)
        found = True
        off += (ln + 3) & ~3
EOF

# res_none WHO CG KIND IDS PIDS: `rdma -j res show KIND` run by uid 65534 in
# CG works and lists no resource with one of IDS or PIDS (comma-separated).
res_none() {
	_f=$EW_TMP/res-$1-$3
	if ! ew_in_cg "$2" "$NOBODY" rdma -j res show "$3" >"$_f" 2>&1; then
		echo "# rdma -j res show $3 failed:"
		sed 's/^/#   /' "$_f"
		return 1
	fi
	python3 "$EW_TMP/res.py" none "$3" "$4" "$5" <"$_f"
}

# res_none_cq_pd_mr WHO CG: res_none for job A's CQs, PDs and MRs.
res_none_cq_pd_mr() {
	res_none "$1" "$2" cq "$A_CQ_IDS" "$APID" &&
		res_none "$1" "$2" pd "$A_PD_IDS" "$APID" &&
		res_none "$1" "$2" mr "$A_MR_IDS" "$APID"
}

# text_none FILE: FILE (text output of `rdma res show qp`) names no lqpn of
# job A's and no pid of job A's.
text_none() {
	if grep -E "lqpn ($Q1|$Q2)( |\$)|pid $APID( |\$)" "$1"; then
		return 1
	fi
}

# rdma_root KIND: `rdma -j res show KIND` as root (who sees everything).
rdma_root() {
	rdma -j res show "$1"
}

# nobody_unprivileged: $NOBODY in job B's cgroup is uid 65534 with no
# permitted or effective capability.
nobody_unprivileged() {
	_s=$(ew_in_cg /ewB "$NOBODY" grep -E '^(Uid|CapPrm|CapEff):' /proc/self/status)
	echo "$_s"
	echo "$_s" | grep -q '^Uid:[[:space:]]*65534[[:space:]]' || return 1
	! echo "$_s" | grep -E '^Cap(Prm|Eff):' | grep -qv '0000000000000000'
}

# qp_doit WHO CG LQPN: the nldev QP query for LQPN, run by WHO (root or
# nobody) in CG; prints its answer ("found" or "error ERRNO").
qp_doit() {
	if [ "$1" = root ]; then
		ew_in_cg "$2" python3 "$EW_TMP/qp_doit.py" "$IFINDEX" "$3" 2>&1
	else
		ew_in_cg "$2" "$NOBODY" python3 "$EW_TMP/qp_doit.py" "$IFINDEX" "$3" 2>&1
	fi
}

# qp_doit_refused CG LQPN: uid 65534's query for LQPN is answered with an
# error (ENOENT or the like), not with the QP.
qp_doit_refused() {
	_o=$(qp_doit nobody "$1" "$2")
	echo "# nldev RES_QP_GET for lqpn $2 as uid 65534 in ${1}: $_o"
	case $_o in
	error\ E*) return 0 ;;
	esac
	return 1
}

# root_sees_all: root's dumps had job A's two QPs and at least one CQ, PD
# and MR of its; root's query for A's QP2 returns it.
root_sees_all() {
	_o=$(qp_doit root / "$Q2")
	echo "# CQs ${A_CQ_IDS:-none} PDs ${A_PD_IDS:-none} MRs ${A_MR_IDS:-none}; query for lqpn $Q2: $_o"
	[ -n "$A_CQ_IDS" ] && [ -n "$A_PD_IDS" ] && [ -n "$A_MR_IDS" ] &&
		grep -q "\"lqpn\":$Q1," "$EW_TMP/root-qp" &&
		grep -q "\"lqpn\":$Q2," "$EW_TMP/root-qp" && [ "$_o" = found ]
}

# deny_event_seen REASON JOB DQPN [UID]: `eastwestctl -j monitor` reported
# a denial with REASON of job JOB (id) towards DQPN (decimal), by a process
# of real uid UID if given.
deny_event_seen() {
	python3 -c '
import json, sys
for line in open(sys.argv[1]):
    try:
        e = json.loads(line)
    except ValueError:
        continue
    if (e.get("event") == "deny" and e.get("reason") == sys.argv[2] and
            str(e.get("job_id")) == sys.argv[3] and str(e.get("dest_qpn")) == sys.argv[4] and
            (len(sys.argv) < 6 or str(e.get("uid")) == sys.argv[5])):
        sys.exit(0)
sys.exit(1)' "$EW_TMP/events" "$@"
}

# visible FILE IDS: print the entries of `rdma -j res show` output FILE
# with one of IDS (comma-separated lqpns) as diagnostics.
visible() {
	python3 -c '
import json, sys
try:
    res = json.load(open(sys.argv[1]))
except ValueError:
    print("#   (no JSON) " + open(sys.argv[1]).read().strip())
    sys.exit(0)
for r in res:
    if str(r.get("lqpn")) in sys.argv[2].split(","):
        print("#   visible:", json.dumps(r))' "$1" "$2"
}

ew_plan 48

# --- setup -----------------------------------------------------------------

ew_check "eastwest.ko loads (enforce, default deny)" ew_load
ew_check "$DEV on lo" ew_rxe_add "$DEV" lo
IDX=$(ew_wait_gid_index "$DEV" "$LOOP" 20)
ew_check "GID of $LOOP found (index ${IDX:-none})" test -n "$IDX"
mkdir -p "$CG/ewA" "$CG/ewB"
ew_check "job A created (peer $LOOP)" "$CTL" job add ewA cgroup /ewA peer "$LOOP"
ew_check "job B created (peer $LOOP)" "$CTL" job add ewB cgroup /ewB peer "$LOOP"
BID=$(ew_job_id ewB)
IFINDEX=$(rdma -j dev show "$DEV" | python3 -c 'import json, sys; print(json.load(sys.stdin)[0]["ifindex"])')
ew_check "uid 65534 in job B's cgroup has no capability (CapPrm, CapEff 0)" \
	nobody_unprivileged
ew_diag "ifindex of $DEV: ${IFINDEX:-none}; job B's id: ${BID:-none}"

# Job A's victim: a pair of RC QPs, connected to each other, waiting.
mkfifo "$EW_TMP/fifo-a" "$EW_TMP/fifo-b" "$EW_TMP/fifo-n"
exec 3<>"$EW_TMP/fifo-a"
exec 4<>"$EW_TMP/fifo-b"
exec 5<>"$EW_TMP/fifo-n"
ew_pair_start "$EW_TMP/victim" "$EW_TMP/fifo-a" /ewA "$DEV" "${IDX:-1}" "$MESSAGES"
APID=$EW_BG_PID
ew_check "job A's victim (uid 65534, pid $APID): two RC QPs connected to each other" \
	ew_wait_for 60 grep -qx connected "$EW_TMP/victim"
sed 's/^/# victim: /' "$EW_TMP/victim"
V1=$(ew_pair_field "$EW_TMP/victim" qp1 qpn)
V2=$(ew_pair_field "$EW_TMP/victim" qp2 qpn)
V2RQ=$(ew_pair_field "$EW_TMP/victim" qp2 rq-psn)
V1RQ=$(ew_pair_field "$EW_TMP/victim" qp1 rq-psn)
Q1=$((${V1:-0}))
Q2=$((${V2:-0}))

# What root (CAP_NET_ADMIN) reads of job A: the attacker's reconnaissance.
rdma_root qp >"$EW_TMP/root-qp"
PSN2=$(python3 -c '
import json, sys
for r in json.load(open(sys.argv[1])):
    if str(r.get("lqpn")) == sys.argv[2]:
        print(r.get("rq-psn", ""))' "$EW_TMP/root-qp" "$Q2")
ew_diag "root: rdma res show qp: $(rdma res show qp | grep -E "lqpn ($Q1|$Q2) ")"
ew_check "root reads job A's QPN $V2 and its expected PSN (${PSN2:-none}) from rdma res show qp" \
	test -n "$PSN2" -a "$((${PSN2:-0}))" -eq "$((${V2RQ:-0}))"
A_QP_IDS=$Q1,$Q2
A_CQ_IDS=$(rdma_root cq | python3 "$EW_TMP/res.py" ids cq "$APID" | tr ' ' ,)
A_PD_IDS=$(rdma_root pd | python3 "$EW_TMP/res.py" ids pd "$APID" | tr ' ' ,)
A_MR_IDS=$(rdma_root mr | python3 "$EW_TMP/res.py" ids mr "$APID" | tr ' ' ,)
ew_diag "job A's objects (as root sees them): QPs $A_QP_IDS CQs ${A_CQ_IDS:-none} PDs ${A_PD_IDS:-none} MRs ${A_MR_IDS:-none}"

# What uid 65534 in job B reads today (diagnostics; section 2 asserts).
ew_in_cg /ewB "$NOBODY" rdma res show qp >"$EW_TMP/b-qp" 2>&1
ew_diag "uid 65534 in job B: rdma res show qp (exit $?):"
sed 's/^/#   /' "$EW_TMP/b-qp"
ew_in_cg /ewB "$NOBODY" rdma res show mr >"$EW_TMP/b-mr-text" 2>&1
ew_diag "uid 65534 in job B: rdma res show mr:"
sed 's/^/#   /' "$EW_TMP/b-mr-text"
ew_diag "root: rdma res show mr: $(rdma res show mr pid "$APID")"
ew_in_cg /ewB unshare -pf "$NOBODY" rdma -j res show qp >"$EW_TMP/b-qp-pidns" 2>&1
ew_diag "uid 65534 in job B, in a new PID namespace: rdma -j res show qp:"
visible "$EW_TMP/b-qp-pidns" "$A_QP_IDS"

# --- 2. connection identifiers are not readable by other jobs -----------------

ew_check "2/job B: rdma res show qp lists no lqpn ($Q1, $Q2) and no pid ($APID) of job A" \
	text_none "$EW_TMP/b-qp"
ew_check "2/job B: rdma -j res show qp lists none of job A's QPs" \
	res_none b /ewB qp "$A_QP_IDS" "$APID"
ew_in_cg /ewB "$NOBODY" rdma res show qp link "$DEV/1" lqpn "$Q2" >"$EW_TMP/b-lqpn" 2>&1
ew_check "2/job B: rdma res show qp link $DEV/1 lqpn $Q2 prints nothing of job A's QP" \
	text_none "$EW_TMP/b-lqpn"
ew_check "2/job B: the nldev QP query (doit) for lqpn $Q2 fails (ENOENT-like)" \
	qp_doit_refused /ewB "$Q2"
if command -v rping >/dev/null 2>&1; then
	ew_start_bg "$EW_TMP/rping-srv" /ewA "$NOBODY" rping -s -a "$LOOP" -C 1000000 -v
	RPS=$EW_BG_PID
	sleep 2
	ew_start_bg "$EW_TMP/rping-cli" /ewA "$NOBODY" rping -c -a "$LOOP" -C 1000000 -d
	RPC=$EW_BG_PID
	ew_wait_for 20 sh -c "rdma -j res show cm_id | grep -q '\"pid\":$RPC'"
	A_CM_IDS=$(rdma_root cm_id | python3 "$EW_TMP/res.py" ids cm_id "$RPS" | tr ' ' ,)
	ew_check "2/job B: rdma res show cm_id lists none of job A's cm_ids (${A_CM_IDS:-none})" \
		res_none b /ewB cm_id "$A_CM_IDS" "$RPS,$RPC"
	ew_reap "$RPC" 1 >/dev/null
	ew_reap "$RPS" 1 >/dev/null
else
	ew_skip_one "2/job B: rdma res show cm_id lists none of job A's cm_ids" \
		"rping (rdmacm-utils) is not installed: job A has no cm_id to look for"
fi
ew_check "2/job B: rdma res show cq lists none of job A's CQs (${A_CQ_IDS:-none})" \
	res_none b /ewB cq "$A_CQ_IDS" "$APID"
ew_check "2/job B: rdma res show pd lists none of job A's PDs (${A_PD_IDS:-none})" \
	res_none b /ewB pd "$A_PD_IDS" "$APID"
ew_check "2/job B: rdma res show mr lists none of job A's MRs (${A_MR_IDS:-none})" \
	res_none b /ewB mr "$A_MR_IDS" "$APID"
ew_check "2/no job: uid 65534 in the root cgroup sees none of job A's QPs" \
	res_none nojob / qp "$A_QP_IDS" "$APID"
ew_check "2/no job: nor job A's CQs, PDs or MRs" res_none_cq_pd_mr nojob /
ew_in_cg /ewA "$NOBODY" rdma res show qp >"$EW_TMP/a-qp" 2>&1
ew_check "2/job A: uid 65534 in job A still sees both of its QPs" \
	sh -c "grep -qE 'lqpn $Q1 ' '$EW_TMP/a-qp' && grep -qE 'lqpn $Q2 ' '$EW_TMP/a-qp'"
ew_check "2/root: uid 0 (CAP_NET_ADMIN) sees job A's QPs (dump and query), CQs, PDs and MRs" \
	root_sees_all

# --- 1. another job's QP on the same host ------------------------------------

"$CTL" -j monitor >"$EW_TMP/events" 2>&1 &
MON=$!
EW_BG_PIDS="$EW_BG_PIDS $MON"
ew_monitor_wait "$MON" || ew_bail "eastwestctl monitor did not join the events group"

before=$(ew_ctr ewB denied-foreign-qp)
ew_dmesg_mark
ew_expect_rc 13 "1/job B: RC connect onto job A's QPN $V2 with its PSN ${PSN2:-none} is refused (EACCES)" \
	ew_in_cg /ewB "$NOBODY" "$VERBS" rc-connect "$DEV" "${IDX:-1}" "$LOOP" "${V2:-0x11}" "${PSN2:-0}"
ew_check "1/job B: counter denied-foreign-qp of job B rose" \
	ew_ctr_grew ewB denied-foreign-qp "$before"
ew_check "1/job B: a deny event (reason foreign-qp, job $BID, dest_qpn $Q2) is reported" \
	ew_wait_for 5 deny_event_seen foreign-qp "$BID" "$Q2"
ew_check "1/job B: the denial is logged with job $BID and dqpn $V2" \
	ew_dmesg_wait "denied modify_qp: [^:]*: job $BID pid [0-9]+ .*dqpn ${V2:-0x11}\$"
ew_check "1/job B: its deny event names the caller's uid 65534" \
	ew_wait_for 5 deny_event_seen foreign-qp "$BID" "$Q2" 65534
ew_check "1/job B: so does its log line" \
	ew_dmesg_wait "denied modify_qp: [^:]*: job $BID pid [0-9]+ \\([^)]*\\) uid 65534 cgroup .*dqpn ${V2:-0x11}\$"
ew_expect_rc 13 "1/job B: a UD address handle to this node's GID ($LOOP) is refused (EACCES)" \
	ew_in_cg /ewB "$NOBODY" "$VERBS" create-ah "$DEV" "${IDX:-1}" "$LOOP"

# Job B's own pair of QPs: connecting onto those stays allowed.
ew_pair_start "$EW_TMP/own-b" "$EW_TMP/fifo-b" /ewB "$DEV" "${IDX:-1}" 1
BPID=$EW_BG_PID
ew_wait_for 60 grep -qx connected "$EW_TMP/own-b"
B1=$(ew_pair_field "$EW_TMP/own-b" qp1 qpn)
B1RQ=$(ew_pair_field "$EW_TMP/own-b" qp1 rq-psn)
ew_expect_rc 0 "1/job B: RC connect onto job B's own QPN ${B1:-none} on this host is allowed" \
	ew_in_cg /ewB "$NOBODY" "$VERBS" rc-connect "$DEV" "${IDX:-1}" "$LOOP" "${B1:-0x11}" "${B1RQ:-0}"
echo go >&4
ew_reap "$BPID" 60 >/dev/null
ew_expect_rc 0 "1/job A: RC connect onto job A's own QPN $V1 is allowed" \
	ew_in_cg /ewA "$NOBODY" "$VERBS" rc-connect "$DEV" "${IDX:-1}" "$LOOP" "${V1:-0x11}" "${V1RQ:-0}"
ew_expect_rc 13 "1/no job: uid 65534 in no job is refused onto job A's QPN (default deny)" \
	ew_in_cg / "$NOBODY" "$VERBS" rc-connect "$DEV" "${IDX:-1}" "$LOOP" "${V2:-0x11}" "${PSN2:-0}"

# Default allow: a process in no job is not policed, but job A's QP stays
# out of its reach; its own QPs (in no job) still connect to each other.
ew_check "1/default allow" "$CTL" config set default allow
ew_expect_rc 13 "1/no job, default allow: uid 65534 in no job is refused onto job A's QPN $V2" \
	ew_in_cg / "$NOBODY" "$VERBS" rc-connect "$DEV" "${IDX:-1}" "$LOOP" "${V2:-0x11}" "${PSN2:-0}"
# (The event of a caller in no job has no job_id.)
ew_check "1/no job, default allow: a deny event (reason foreign-qp, no job, dest_qpn $Q2) is reported" \
	ew_wait_for 5 deny_event_seen foreign-qp None "$Q2" 65534
ew_expect_rc 13 "1/no job, default allow: a SEND injected into job A's QPN $V2 is refused (EACCES)" \
	ew_in_cg / "$NOBODY" "$VERBS" rc-inject "$DEV" "${IDX:-1}" "$LOOP" "${V2:-0x11}" "${PSN2:-0}"
ew_expect_rc 13 "1/no job, default allow: its QP connected to itself, re-aimed at job A's QPN $V2 by DEST_QPN alone, is refused (EACCES)" \
	ew_in_cg / "$NOBODY" "$VERBS" rc-retarget "$DEV" "${IDX:-1}" "$LOOP" "${V2:-0x11}" "${PSN2:-0}"
ew_expect_rc 13 "1/no job, default allow: onto a QPN no QP has (0xfffff0) is refused" \
	ew_in_cg / "$NOBODY" "$VERBS" rc-connect "$DEV" "${IDX:-1}" "$LOOP" 0xfffff0 0
ew_pair_start "$EW_TMP/own-n" "$EW_TMP/fifo-n" / "$DEV" "${IDX:-1}" 1
NPID=$EW_BG_PID
ew_check "1/no job, default allow: its own pair of QPs in no job connects" \
	ew_wait_for 60 grep -qx connected "$EW_TMP/own-n"
N1=$(ew_pair_field "$EW_TMP/own-n" qp1 qpn)
N1RQ=$(ew_pair_field "$EW_TMP/own-n" qp1 rq-psn)
ew_expect_rc 0 "1/no job, default allow: onto its own QPN ${N1:-none} in no job is allowed" \
	ew_in_cg / "$NOBODY" "$VERBS" rc-connect "$DEV" "${IDX:-1}" "$LOOP" "${N1:-0x11}" "${N1RQ:-0}"
echo go >&5
ew_reap "$NPID" 60 >/dev/null
ew_check "1/default deny again" "$CTL" config set default deny

# Audit mode (job B's own): allowed, but counted.
ew_check "1/audit: job B in audit mode" "$CTL" job set ewB mode audit
before=$(ew_ctr ewB audited)
ew_expect_rc 0 "1/audit: job B's connect onto job A's QPN is allowed" \
	ew_in_cg /ewB "$NOBODY" "$VERBS" rc-connect "$DEV" "${IDX:-1}" "$LOOP" "${V2:-0x11}" "${PSN2:-0}"
ew_check "1/audit: and counted (audited of job B rose)" ew_ctr_grew ewB audited "$before"
ew_check "1/audit: job B back to enforce" "$CTL" job set ewB mode enforce

# The injection itself: a SEND with the PSN job A's QP expects next.
PSN2=$(rdma_root qp | python3 -c '
import json, sys
for r in json.load(sys.stdin):
    if str(r.get("lqpn")) == sys.argv[1]:
        print(r.get("rq-psn", ""))' "$Q2")
ew_expect_rc 13 "1/job B: a SEND injected into job A's QPN $V2 at PSN ${PSN2:-none} is refused (EACCES)" \
	ew_in_cg /ewB "$NOBODY" "$VERBS" rc-inject "$DEV" "${IDX:-1}" "$LOOP" "${V2:-0x11}" "${PSN2:-0}"
ew_expect_rc 13 "1/job B: its QP connected to itself, re-aimed at job A's QPN $V2 by DEST_QPN alone, is refused (EACCES)" \
	ew_in_cg /ewB "$NOBODY" "$VERBS" rc-retarget "$DEV" "${IDX:-1}" "$LOOP" "${V2:-0x11}" "${PSN2:-0}"
echo go >&3
exec 3>&- 4>&- 5>&-
ew_reap "$APID" 90 >/dev/null
ew_check "1/job A: its transfer completes and verifies ($MESSAGES messages each way)" \
	sh -c "test '$EW_REAP_RC' = 0 && grep -qx 'verified $MESSAGES messages each way' '$EW_TMP/victim'"
sed 's/^/# victim: /' "$EW_TMP/victim"

kill "$MON" 2>/dev/null
wait "$MON" 2>/dev/null
ew_diag "events:"
sed 's/^/#   /' "$EW_TMP/events"

# --- teardown -------------------------------------------------------------------

ew_reap_all
ew_check "$DEV deleted" ew_rxe_del "$DEV"
ew_check "eastwest unloads" ew_unload

ew_done
