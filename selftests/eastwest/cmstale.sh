#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 1
# ew-timeout: 300
# ew-kernels: 6.1
#
# The QP number a connect or an accept names. ucma passes any number; the
# IB CM of the receiving node looks the sending device's GUID and that
# number up among its live connections and, on a match, answers "stale
# connection" (status 10) and tears the matching connection down. A
# process that names another job's QP number therefore ends that job's
# connection and learns that the number is live: a scan finds every
# connection. Nor may the refusal tell it: if a number no QP has were let
# through, the refusals alone would mark every job's QP in a scan. So a
# job's process must name a QP of its job, and a process in no job one of
# no job's. soft-RoCE on a dummy netdev with address S (rdma_cm resolves
# no route over lo); jobs A and B both allowed S (the node's address, as
# the Slurm prolog writes it); every process runs as uid 65534.
#
#   1. job A's rping client and server, connected by rdma_cm over S;
#   2. control: job B's connect to its own listener naming job B's own QP
#      reaches the listener (its reject, status 28);
#   3. job B's connect naming job A's client QP: refused (EACCES,
#      denied-qp-owner of job B); job A's pings go on; naming a number no
#      QP has: refused the same way (not sent);
#   4. job B's listener accepting job B's request while naming job A's
#      server QP (the answer's stale check runs where the answer arrives):
#      the accept is refused; job A's pings go on; accepting naming a
#      number no QP has: refused the same way;
#   5. default allow: a process in no job naming job A's QP, to a listener
#      in no job: refused; job A's pings go on; naming a number no QP has:
#      refused; naming 1 (the GSI QP's number; the core files GSI QPs
#      under another key, so it is a number no QP has to the check):
#      refused; naming its own QP: sent. (A kernel QP of a live
#      connection, named by a process in no job: rds.sh.)
#   6. a twin device: soft-RoCE takes a device's node GUID from its
#      netdev's MAC, so rxe1 on a second dummy with ewd0's MAC and address
#      S1 has rxe0's GUID and numbers its own QPs (as an rxe on eth0 and
#      one on its MACsec or VLAN link do). Job B's QP on rxe1 gets job A's
#      client QP number (the fault build's fault_qpn_next: what sequential
#      numbering or enough creates give an attacker); job B's connect to
#      its own listener on S1 naming that QP, its own, must be refused
#      (EACCES, denied-qp-owner): the CM would take the request for one
#      from job A's client and end job A's connection; job A's pings go on.
#      So must a process in no job's under default allow. Control: job B's
#      connect from rxe1 naming a QP of its own whose number no twin has
#      reaches its listener (status 28).
#   7. job B in audit mode: its connect naming job A's client QP is refused
#      all the same (qp-owner guards another job's QP; what a stale
#      connection ends, no later enforcement gives back); job A's pings go
#      on.
# Against a module that does not judge the number (90fdc18), 3 prints
# "status: 10" and job A's rping is disconnected; against one that lets a
# number no QP has through (1965ba6), 3, 4 and 5 send it. Against one that
# checks the ID's device only (43c5130), 6's connects are sent; against
# one whose job audit mode lets qp-owner through (27b1df4), 7's is sent.

. "$(dirname "$0")/../lib.sh"

DEV=rxe0
CG=/sys/fs/cgroup
S=10.84.0.1
CMMSG=$EW_TOP/selftests/tools/ew_cmmsg

ew_require_root
ew_require_cmd rdma setpriv rping python3
ew_require_built ctl cgroup rdma_cm selftests/tools/ew_cmmsg
FAULT_KO=${EW_FAULT_KO:-$EW_SHARED/eastwest-fault.ko}
PARAM=/sys/module/eastwest/parameters/fault_qpn_next
[ -f "$FAULT_KO" ] || ew_skip "no $FAULT_KO (selftests/vm/run builds it)"
S1=10.85.0.1
MAC=02:84:00:00:00:01

ew_tmp_dir 755
ew_defer "rmdir $CG/ewA $CG/ewB"
ew_defer "ew_netdev_del ewd1"
ew_defer "ew_netdev_del ewd0"
ew_defer "rdma link delete rxe1"
ew_defer "rdma link delete $DEV"
ew_defer "ew_unload"
ew_defer "ew_reap_all"

NOBODY=$(ew_nobody_script "$EW_TMP")

# qpns_of PID: the numbers of the QPs of process PID (as root sees them).
qpns_of() {
	rdma -j res show qp link "$DEV/1" | python3 -c '
import json, sys
print(" ".join(str(r["lqpn"]) for r in json.load(sys.stdin)
               if str(r.get("pid")) == sys.argv[1] and r["lqpn"] > 1))' "$1"
}

# pings: how many pings job A's rping client has verified so far.
pings() { grep -c 'ping data: ' "$EW_TMP/rc"; }

# a_pings_on: job A's rping client is alive and verifies more pings.
a_pings_on() {
	_n=$(pings)
	ew_wait_for 20 sh -c "[ \$(grep -c 'ping data: ' '$EW_TMP/rc') -gt $_n ]" &&
		! ew_gone "$RPC" && ! grep -qi 'disconnect' "$EW_TMP/rc"
}

# listen CGROUP OUT PORT [ADDR]: a listener on ADDR (default S) that
# rejects the first request, once it listens (its pid in LPID).
listen() {
	ew_start_bg "$2" "$1" "$NOBODY" "$CMMSG" listen "${4:-$S}" "$3" reject from-listener
	LPID=$EW_BG_PID
	ew_wait_for 10 grep -qx listening "$2"
}

# probe CGROUP OUT PORT QPN [ADDR]: a connect to ADDR (default S) naming
# QPN; ew_cmmsg's status.
probe() {
	ew_in_cg "$1" "$NOBODY" "$CMMSG" connect-qpn "${5:-$S}" "$3" probe "$4" >"$2" 2>&1
}

# twin_probe CGROUP OUT PORT QPN: a connect to S1 (from rxe1) naming the
# caller's own QP, which rxe1 numbers QPN.
twin_probe() {
	echo "$(($4))" >"$PARAM" && probe "$1" "$2" "$3" own "$S1"
}

# refused_as_owner SECTION PORT ADDR PROBE QPN WHAT: a listener of job B on
# ADDR:PORT; job B's connect there naming QPN (PROBE /ewB OUT PORT QPN) is
# refused (EACCES), counted as denied-qp-owner of job B, and job A's pings
# go on; 4 checks.
refused_as_owner() {
	ew_check "$1/a listener in job B on $3" listen /ewB "$EW_TMP/l$1" "$2" "$3"
	_before=$(ew_ctr ewB denied-qp-owner)
	ew_expect_rc 13 "$1/$6 is refused (EACCES)" "$4" /ewB "$EW_TMP/c$1" "$2" "$5"
	ew_diag "$1/$(cat "$EW_TMP/c$1")"
	ew_check "$1/counted as denied-qp-owner of job B" \
		ew_ctr_grew ewB denied-qp-owner "$_before"
	ew_check "$1/job A's pings go on" a_pings_on
	unlisten
}

# unlisten: stop listener LPID, which was to receive nothing (it would print
# and flush a request at once), without waiting for it to give up.
unlisten() {
	kill "$LPID" 2>/dev/null
	ew_reap "$LPID" 10 >/dev/null
}

# setup_twin: ewd1 with ewd0's MAC and S1, rxe1 on it.
setup_twin() {
	ew_dummy_add ewd1 "$S1/24" "$MAC" && ew_rxe_add rxe1 ewd1 &&
		[ "$(cat /sys/class/infiniband/rxe1/node_guid)" = \
		  "$(cat /sys/class/infiniband/$DEV/node_guid)" ]
}

# has FILE LINE: FILE has LINE (what it has goes to the check's output).
has() {
	grep -qx "$2" "$1" || { sed 's/^/# /' "$1" >&2; return 1; }
}

ew_plan 54

ew_check "the fault build loads" ew_insmod "$FAULT_KO"
ew_check "a dummy netdev with $S ($MAC)" ew_dummy_add ewd0 "$S/24" "$MAC"
ew_check "$DEV on it" ew_rxe_add "$DEV" ewd0
mkdir -p "$CG/ewA" "$CG/ewB"
ew_check "jobs A and B, both allowed $S" \
	sh -c "'$CTL' job add ewA cgroup /ewA peer $S && '$CTL' job add ewB cgroup /ewB peer $S"

# --- 1. job A's rdma_cm connection ---------------------------------------------
ew_start_bg "$EW_TMP/rs" /ewA "$NOBODY" rping -s -a "$S" -p 7401 -C 1000000
RPS=$EW_BG_PID
sleep 2
ew_start_bg "$EW_TMP/rc" /ewA "$NOBODY" rping -c -a "$S" -p 7401 -C 1000000 -v
RPC=$EW_BG_PID
ew_check "1/job A's rping client verifies pings" ew_wait_for 60 sh -c "[ \$(grep -c 'ping data: ' '$EW_TMP/rc') -ge 3 ]"
QA=$(qpns_of "$RPC")
QS=$(qpns_of "$RPS")
ew_check "1/job A's client QP (${QA:-none}) and server QP (${QS:-none})" \
	sh -c "[ -n '$QA' ] && [ -n '$QS' ] && [ \$(echo $QA | wc -w) -eq 1 ] && [ \$(echo $QS | wc -w) -eq 1 ]"
QA=$(printf 0x%x "${QA:-0}")
QS=$(printf 0x%x "${QS:-0}")

# --- 2. control ------------------------------------------------------------------
ew_check "2/a listener in job B" listen /ewB "$EW_TMP/l2" 7402
ew_expect_rc 0 "2/job B's connect naming its own QP is sent" probe /ewB "$EW_TMP/c2" 7402 own
ew_check "2/its listener rejected it (status 28)" has "$EW_TMP/c2" "status: 28"
ew_reap "$LPID" 10 >/dev/null

# A number no QP of this node has (F), as root sees them all.
F=0x123
ew_check "a number no QP has: $F" sh -c \
	"rdma -j res show qp link '$DEV/1' | python3 -c 'import json, sys; sys.exit(any(r[\"lqpn\"] == $((F)) for r in json.load(sys.stdin)))'"

# --- 3. a connect naming job A's QP, or a number no QP has --------------------------
ew_check "3/a listener in job B" listen /ewB "$EW_TMP/l3" 7403
before=$(ew_ctr ewB denied-qp-owner)
ew_expect_rc 13 "3/job B's connect naming job A's client QP $QA is refused (EACCES)" \
	probe /ewB "$EW_TMP/c3" 7403 "$QA"
ew_diag "3/$(cat "$EW_TMP/c3")"
ew_check "3/counted as denied-qp-owner of job B" ew_ctr_grew ewB denied-qp-owner "$before"
ew_check "3/job A's pings go on" a_pings_on
before=$(ew_ctr ewB denied-qp-owner)
ew_expect_rc 13 "3/job B's connect naming $F, no QP's number, is refused the same way (EACCES)" \
	probe /ewB "$EW_TMP/c3b" 7403 "$F"
ew_diag "3/$(cat "$EW_TMP/c3b")"
ew_check "3/counted as denied-qp-owner of job B" ew_ctr_grew ewB denied-qp-owner "$before"
unlisten
ew_check "3/job B's listener received neither" sh -c "! grep -q '^request' '$EW_TMP/l3'"

# --- 4. an accept naming job A's QP, or a number no QP has -------------------------
# accept_naming N QPN: job B's listener accepts job B's request naming QPN.
accept_naming() {
	ew_start_bg "$EW_TMP/l4$1" /ewB "$NOBODY" "$CMMSG" listen-qpn "$S" "740$1" "$2" from-listener
	LPID=$EW_BG_PID
	ew_wait_for 10 grep -qx listening "$EW_TMP/l4$1" &&
		probe /ewB "$EW_TMP/c4$1" "740$1" own
	_rc=$?
	ew_reap "$LPID" 10 >/dev/null
	return $_rc
}
ew_check "4/job B's connect to its listener that accepts naming job A's server QP $QS is sent" \
	accept_naming 4 "$QS"
ew_check "4/the listener's accept is refused (EACCES)" has "$EW_TMP/l44" "accept: Permission denied"
ew_check "4/job A's pings go on" a_pings_on
ew_check "4/job B's connect to its listener that accepts naming $F is sent" \
	accept_naming 5 "$F"
ew_check "4/that accept is refused the same way (EACCES)" has "$EW_TMP/l45" "accept: Permission denied"

# --- 5. a process in no job --------------------------------------------------------
ew_check "5/default allow" "$CTL" config set default allow
ew_check "5/a listener in no job" listen / "$EW_TMP/l5" 7406
ew_expect_rc 13 "5/a connect in no job naming job A's client QP $QA is refused (EACCES)" \
	probe / "$EW_TMP/c5" 7406 "$QA"
ew_check "5/job A's pings go on" a_pings_on
ew_expect_rc 13 "5/a connect in no job naming $F is refused the same way (EACCES)" \
	probe / "$EW_TMP/c5b" 7406 "$F"
ew_expect_rc 13 "5/a connect in no job naming 1 (the GSI QP's number) is refused the same way (EACCES)" \
	probe / "$EW_TMP/c5k" 7406 1
unlisten
ew_check "5/the listener in no job received none of them" sh -c "! grep -q '^request' '$EW_TMP/l5'"
ew_check "5/a listener in no job" listen / "$EW_TMP/l5c" 7407
ew_expect_rc 0 "5/a connect in no job naming its own QP is sent" \
	probe / "$EW_TMP/c5c" 7407 own
ew_check "5/the listener in no job rejected it (status 28)" has "$EW_TMP/c5c" "status: 28"
ew_reap "$LPID" 10 >/dev/null

# --- 6. a twin device ------------------------------------------------------------
ew_check "6/default deny" "$CTL" config set default deny
ew_check "6/ewd1 with ewd0's MAC and $S1, rxe1 on it: $DEV's node GUID" setup_twin
ew_check "6/job B may reach $S1" "$CTL" peer add ewB "$S1"
I1=$(ew_wait_gid_index rxe1 "$S1" 20)
ew_check "6/GID of $S1 on rxe1 (index ${I1:-none})" test -n "$I1"
T=0x456
ew_check "6/$T is no QP's number" sh -c \
	"rdma -j res show qp | python3 -c 'import json, sys; sys.exit(any(r[\"lqpn\"] == $((T)) for r in json.load(sys.stdin)))'"
ew_check "6/a listener in job B on $S1" listen /ewB "$EW_TMP/l6" 7408 "$S1"
ew_expect_rc 0 "6/control: job B's connect from rxe1 naming its own QP $T is sent" \
	twin_probe /ewB "$EW_TMP/c6" 7408 "$T"
ew_check "6/its listener rejected it (status 28)" has "$EW_TMP/c6" "status: 28"
ew_reap "$LPID" 10 >/dev/null
refused_as_owner 6 7409 "$S1" twin_probe "$QA" \
	"job B's connect from rxe1 naming its own QP numbered $QA, as job A's client QP on $DEV,"
ew_check "6/default allow" "$CTL" config set default allow
ew_check "6/a listener in no job on $S1" listen / "$EW_TMP/l6c" 7410 "$S1"
ew_expect_rc 13 "6/a connect in no job from rxe1 naming its own QP numbered $QS, as job A's server QP, is refused (EACCES)" \
	twin_probe / "$EW_TMP/c6c" 7410 "$QS"
ew_diag "6/$(cat "$EW_TMP/c6c")"
ew_check "6/job A's pings go on" a_pings_on
unlisten

# --- 7. job B in audit mode -------------------------------------------------------
ew_check "7/job B in audit mode" "$CTL" job set ewB mode audit
refused_as_owner 7 7411 "$S" probe "$QA" \
	"job B's connect naming job A's client QP $QA, all the same,"

kill "$RPC" "$RPS" 2>/dev/null
ew_check "no oops, warning or leak in the kernel log" sh -c \
	"! dmesg | grep -Eq 'WARNING:|BUG:|Oops|Call Trace:|refcount_t:'"
ew_done
