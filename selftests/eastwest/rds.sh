#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 2
# ew-timeout: 300
# ew-kernels: 6.1
#
# RDS over RDMA, a kernel protocol any user may ask for. An unprivileged
# process opens an AF_RDS socket, picks the InfiniBand transport
# (SO_RDS_TRANSPORT, which loads rds_rdma on demand) and sends to any
# address: the kernel connects its own QPs there with rdma_cm, and no rule
# of the process's job sees it. Node 1 receives on its address (root, in no
# job); on node 0 job A may reach only node 0's own address:
#   1. control: root in no job (default allow) sends over RDS/IB to node
#      1, which receives it; a process in no job that names one of the
#      kernel QPs of that RDS connection in a connect request to node 1
#      (whose connection manager would answer "stale connection" and end
#      the kernel's connection) is refused;
#   2. job A's process (uid 65534) cannot bind an RDS socket over the
#      InfiniBand transport (counted as denied-kernel-ulp of job A,
#      logged); node 1 receives nothing from it;
#   3. default deny: a process in no job is refused the same way;
#   4. eastwest unloaded and loaded again while rds_rdma stays: hooked at
#      its load, job A's process is refused again;
#   5. with rds_tcp loaded too, job A's process binds a socket naming no
#      transport and sends to node 1: RDS asks each transport whether the
#      address is its own (to pick one, and whether the destination is
#      this node), gets TCP, and those questions are not counted as
#      refusals (they are no request for RDMA); in audit mode the socket
#      gets InfiniBand, and that is reported as audited.
# rds_rdma is loaded after eastwest, which hooks it as it comes. Against a
# module that leaves RDS alone (1965ba6), job A's process sent its message
# and node 1 received it; against one that takes the kernel's QPs for no
# job's (3c1352c), the connect naming the kernel's QP was sent; against
# one that counts RDS's transport probes (e293ef1), 5's socket counted a
# denied-kernel-ulp of job A.

. "$(dirname "$0")/../lib.sh"

DEV=rxe0
PORT=18700
# Section 5's sends: a port node 1 does not receive on.
PORT5=18701

ew_require_root
ew_require_nodes 2
ew_require_cmd rdma setpriv python3 modprobe
ew_require_built ctl cgroup selftests/tools/ew_cmmsg
modprobe -n rds_rdma 2>/dev/null || ew_skip "no rds_rdma module"

ew_tmp_dir 755
ew_defer "modprobe -r rds_tcp rds_rdma rds"
ew_defer "rmdir $EW_CG/ewA"
ew_defer "rdma link delete $DEV"
ew_defer "ew_rmmod"
ew_defer "ew_reap_all"

NOBODY=$(ew_nobody_script "$EW_TMP")

# The RDS end points: "recv ADDR PORT SECONDS" prints each message it
# receives; "send FROM TO PORT MSG" binds FROM over the InfiniBand
# transport and sends MSG to TO:PORT, keeping the socket 15 s. Exit 13 if
# a step was refused with EACCES, 12 with another error (its name printed).
cat >"$EW_TMP/rds.py" <<'EOF'
import errno, select, socket, sys, time
SOL_RDS, SO_RDS_TRANSPORT, RDS_TRANS_IB = 276, 8, 0

def step(name, fn, *args):
    try:
        return fn(*args)
    except OSError as e:
        print("%s: %s" % (name, errno.errorcode.get(e.errno, e.errno)), flush=True)
        sys.exit(13 if e.errno == errno.EACCES else 12)

s = step("socket", socket.socket, socket.AF_RDS, socket.SOCK_SEQPACKET, 0)
if sys.argv[1] == "auto":
    # No transport named: RDS picks one at bind.
    step("bind", s.bind, (sys.argv[2], 0))
    print("transport %d" % s.getsockopt(SOL_RDS, SO_RDS_TRANSPORT), flush=True)
    s.setblocking(False)
    try:
        s.sendto(sys.argv[5].encode(), (sys.argv[3], int(sys.argv[4])))
        print("sent", flush=True)
    except OSError as e:
        print("send: %s" % errno.errorcode.get(e.errno, e.errno), flush=True)
    time.sleep(2)
    sys.exit(0)
step("transport", s.setsockopt, SOL_RDS, SO_RDS_TRANSPORT, RDS_TRANS_IB)
if sys.argv[1] == "recv":
    step("bind", s.bind, (sys.argv[2], int(sys.argv[3])))
    print("listening", flush=True)
    end = time.time() + int(sys.argv[4])
    while time.time() < end:
        if select.select([s], [], [], 1)[0]:
            data, addr = s.recvfrom(1024)
            print("received: %s" % data.decode(), flush=True)
else:
    step("bind", s.bind, (sys.argv[2], 0))
    step("send", s.sendto, sys.argv[5].encode(), (sys.argv[3], int(sys.argv[4])))
    print("sent", flush=True)
    # Closing the socket drops what is not sent yet: RDS may still be
    # connecting (rdma_cm, with its retries on a loaded TCG host).
    time.sleep(15)
EOF

# send CGROUP RUNNER OUT MSG: an RDS message from node 0 to node 1.
send() {
	ew_in_cg "$1" $2 python3 "$EW_TMP/rds.py" send "$EW_LOCAL_IP" "$EW_PEER_IP" \
		"$PORT" "$4" >"$3" 2>&1
}

# kernel_qpn: the number of a kernel RC QP of rxe0 (RDS's), as root sees it.
kernel_qpn() {
	rdma -j res show qp link "$DEV/1" | python3 -c '
import json, sys
q = [r["lqpn"] for r in json.load(sys.stdin)
     if r.get("type") == "RC" and "pid" not in r and r["lqpn"] > 1]
print(q[0] if q else "")'
}

# send_auto OUT MSG: job A's socket naming no transport binds node 0's
# address and sends MSG to node 1's PORT5; what it said goes to OUT.
send_auto() {
	ew_in_cg /ewA "$NOBODY" timeout 30 python3 "$EW_TMP/rds.py" auto \
		"$EW_LOCAL_IP" "$EW_PEER_IP" "$PORT5" "$2" >"$1" 2>&1
	ew_diag "5/$(cat "$1")"
}

# ctr_is JOB NAME VALUE: counter NAME of JOB is still VALUE.
ctr_is() {
	_v=$(ew_ctr "$1" "$2")
	[ "$_v" = "$3" ] || { echo "# $2 of $1: $3 before, $_v now" >&2; return 1; }
}

has_kernel_qp() {
	[ -n "$(kernel_qpn)" ]
}

ew_plan $((EW_NODE ? 12 : 28))

ew_load_rxe_eth0
mkdir -p "$EW_CG/ewA"
ew_check "job A (peer: node 0's own address only)" \
	"$CTL" job add ewA cgroup /ewA peer "$EW_LOCAL_IP"
ew_check "default allow" "$CTL" config set default allow
# A user's socket loads rds and rds_rdma on demand; the guest does not.
ew_dmesg_mark
ew_check "rds_rdma loads after eastwest" modprobe rds_rdma
ew_check "eastwest hooked its transport as it came" \
	ew_dmesg_wait "rds_ib_laddr_check hooked: RDS sockets on RDMA are policed"

if [ "$EW_NODE" -eq 1 ]; then
	ew_start_bg "$EW_TMP/recv" / python3 "$EW_TMP/rds.py" recv "$EW_LOCAL_IP" "$PORT" 150
	RPID=$EW_BG_PID
	ew_check "an RDS receiver on $EW_LOCAL_IP:$PORT (InfiniBand transport)" \
		ew_wait_for 30 grep -qx listening "$EW_TMP/recv"
	ew_meet listening 180
	ew_meet sent-1 180
	ew_check "1/it received root's message" \
		ew_wait_for 20 grep -qx "received: from-root" "$EW_TMP/recv"
	ew_meet sent-2 180
	ew_meet sent-3 180
	sleep 5
	ew_reap "$RPID" 10 >/dev/null
	ew_diag "$(cat "$EW_TMP/recv")"
	ew_check "2-4/it received nothing from job A or from no job under default deny" \
		sh -c "! grep -q -e from-job-a -e from-no-job '$EW_TMP/recv'"
else
	ew_meet listening 180
	ew_expect_rc 0 "1/root in no job sends over RDS/IB to node 1" \
		send / "" "$EW_TMP/s1" from-root
	ew_check "1/a kernel RC QP of RDS's connection" ew_wait_for 20 has_kernel_qp
	KQ=$(kernel_qpn)
	ew_diag "1/kernel QP ${KQ:-none}; $(rdma res show qp link "$DEV/1" | tr '\n' ';')"
	ew_expect_rc 13 "1/a process in no job naming it ($KQ) in a connect to node 1 is refused (EACCES)" \
		sh -c "'$NOBODY' '$EW_TOP/selftests/tools/ew_cmmsg' connect-qpn '$EW_PEER_IP' 18799 probe '${KQ:-0}' >'$EW_TMP/k1' 2>&1"
	ew_diag "1/$(cat "$EW_TMP/k1")"
	ew_meet sent-1 180
	before=$(ew_ctr ewA denied-kernel-ulp)
	ew_dmesg_mark
	send /ewA "$NOBODY" "$EW_TMP/s2" from-job-a
	ew_diag "2/$(cat "$EW_TMP/s2")"
	ew_check "2/job A's process cannot bind an RDS socket over InfiniBand" \
		grep -qx "bind: ENOPROTOOPT" "$EW_TMP/s2"
	ew_check "2/counted as denied-kernel-ulp of job A" \
		ew_ctr_grew ewA denied-kernel-ulp "$before"
	ew_check "2/logged" ew_dmesg_wait "denied ulp_bind: "
	ew_meet sent-2 180
	ew_check "3/default deny" "$CTL" config set default deny
	send / "$NOBODY" "$EW_TMP/s3" from-no-job
	ew_diag "3/$(cat "$EW_TMP/s3")"
	ew_check "3/a process in no job cannot either" \
		grep -qx "bind: ENOPROTOOPT" "$EW_TMP/s3"
	ew_meet sent-3 180
	# rds_rdma stays; eastwest comes back and hooks it at its own load.
	ew_check "4/eastwest unloads, rds_rdma stays" ew_unload
	ew_dmesg_mark
	ew_check "4/eastwest loads again" ew_load
	ew_check "4/it hooked rds_rdma's transport at its load" \
		ew_dmesg_wait "rds_ib_laddr_check hooked: RDS sockets on RDMA are policed"
	ew_check "4/job A again" "$CTL" job add ewA cgroup /ewA peer "$EW_LOCAL_IP"
	send /ewA "$NOBODY" "$EW_TMP/s4" from-job-a-again
	ew_check "4/job A's process still cannot bind over InfiniBand" \
		grep -qx "bind: ENOPROTOOPT" "$EW_TMP/s4"
	ew_check "5/rds_tcp loads" modprobe rds_tcp
	before=$(ew_ctr ewA denied-kernel-ulp)
	send_auto "$EW_TMP/s5" from-job-a-tcp
	ew_check "5/job A's socket naming no transport gets TCP (2)" \
		grep -qx "transport 2" "$EW_TMP/s5"
	ew_check "5/RDS's transport probes were not counted as refusals" \
		ctr_is ewA denied-kernel-ulp "$before"
	ew_check "5/job A in audit mode" "$CTL" job set ewA mode audit
	before=$(ew_ctr ewA audited)
	send_auto "$EW_TMP/s5a" from-job-a-audit
	ew_check "5/audit: the socket naming no transport gets InfiniBand (0)" \
		grep -qx "transport 0" "$EW_TMP/s5a"
	ew_check "5/audit: reported as audited (enforce would refuse it)" \
		ew_ctr_grew ewA audited "$before"
fi

ew_reap_all
ew_check "eastwest unloads" ew_unload
ew_check "no oops, warning or leak in the kernel log" sh -c \
	"! dmesg | grep -Eq 'WARNING:|BUG:|Oops|Call Trace:|refcount_t:'"
ew_done
