#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 1
# ew-timeout: 300
# ew-kernels: 6.1
#
# iWARP devices. The core's iWARP connection manager connects a QP from
# the number the caller hands rdma_connect() or rdma_accept() (no owner
# check), and the device moves it to RTS itself: no modify of the QP
# carries its destination, so nothing eastwest judges ever sees where it
# goes, and any process could connect a job's QP by its number. A job's
# process may therefore not have a QP on an iWARP device at all. The
# device here is soft-iWARP (siw, built out of tree by selftests/vm/run:
# Debian does not ship it) on a dummy netdev with address S. ew_iwconn
# creates its QP with plain ibv_create_qp(), never modifies it, and hands
# it to rdma_connect() by number; its server, in no job, accepts likewise
# and prints what it receives. Job processes run as uid 65534.
#
#   1. control, default allow: a client in no job sends to the server over
#      siw, and rping works (the device works; eastwest is not in the way);
#   2. job A, whose peers do not include S, connects to S and sends: its QP
#      on the iWARP device is refused (EACCES at creation, reason iwarp,
#      counted, logged), and the server receives nothing;
#   3. job B, whose peers include S: refused likewise (an allowed peer does
#      not help: the connection would still be made unseen);
#   4. job A's rping: refused the same way, with the same reason;
#   5. job B's rdma_connect on siw0 naming a QP by number, with no QP of
#      its own (ew_cmmsg): refused as a message (cm-message, reason
#      iwarp), so a job cannot hand another process's QP to the iWARP
#      connection manager either;
#   6. default deny: a client in no job is refused (no-job).
#
# Against a module that judges only the verbs control path, 2 and 3 send
# their message to S, 5 too, and 4 is refused for a state claim (rping's
# librdmacm modifies its QP, which the state gate refuses), counted and
# logged as qp-state, not as iwarp.

. "$(dirname "$0")/../lib.sh"

CG=/sys/fs/cgroup
SIW_KO=$EW_TOP/build/$(uname -r)/siw/siw.ko
IWCONN=$EW_TOP/selftests/tools/ew_iwconn
CMMSG=$EW_TOP/selftests/tools/ew_cmmsg
S=10.81.0.1
PORT=7170

ew_require_root
ew_require_cmd rdma ip rping setpriv modinfo
ew_require_built ctl cgroup rdma_cm selftests/tools/ew_iwconn selftests/tools/ew_cmmsg
[ -f "$SIW_KO" ] || ew_skip "no $SIW_KO (selftests/vm/run builds it)"

ew_tmp_dir 755
ew_defer "rmdir $CG/ewA $CG/ewB"
ew_defer "rmmod siw"
ew_defer "ew_netdev_del d0"
ew_defer "rdma link delete siw0"
ew_defer "ew_unload"
ew_defer "pkill -x rping; pkill -x ew_iwconn"

NOBODY=$(ew_nobody_script "$EW_TMP")

# siw.ko, built out of tree, is not known to modprobe: its dependencies
# (ib_core, libcrc32c, ...) are loaded first by name.
setup_siw() {
	# shellcheck disable=SC2046 # one module name per word
	modprobe -a $(modinfo -F depends "$SIW_KO" | tr , ' ') &&
		insmod "$SIW_KO" && ew_dummy_add d0 "$S/32" &&
		rdma link add siw0 type siw netdev d0
}
is_rnic() { rdma dev show siw0 | grep -q 'node_type rnic'; }

# run CGROUP CMD...: CMD as uid 65534 in CGROUP ("" for no job).
run() {
	_cg=$1
	shift
	if [ -n "$_cg" ]; then
		ew_in_cg "$_cg" "$NOBODY" "$@"
	else
		"$NOBODY" "$@"
	fi
}

# next_port: a port no listener of an earlier case may still hold (siw
# tears its listening socket down after the server process has gone).
next_port() { PORT=$((PORT + 1)); }

# send CGROUP OUT MSG: ew_iwconn's server (root, no job) and its client in
# CGROUP sending MSG; the client's status is returned, its output in OUT,
# the server's in OUT.server.
send() {
	next_port
	"$IWCONN" server "$S" "$PORT" >"$2.server" 2>&1 &
	_srv=$!
	ew_wait_for 20 grep -qx listening "$2.server"
	run "$1" timeout 60 "$IWCONN" client "$S" "$PORT" "$3" >"$2" 2>&1
	_rc=$?
	ew_wait_for 10 grep -q '^received: ' "$2.server"
	kill "$_srv" 2>/dev/null
	wait "$_srv" 2>/dev/null
	sed 's/^/# client: /' "$2"
	sed 's/^/# server: /' "$2.server"
	return "$_rc"
}
delivered() { send "$@" && grep -qx "received: $3" "$2.server"; }
refused() {
	send "$@"
	test $? = 13 && grep -qx 'qp created: Permission denied' "$2" &&
		! grep -q '^received: ' "$2.server"
}

# ping CGROUP OUT: rping's server (root, no job) and its client in CGROUP,
# 3 verified pings; returns the client's status, its output in OUT.
ping() {
	next_port
	rping -s -a "$S" -p "$PORT" -C 3 -v >"$2.server" 2>&1 &
	_srv=$!
	ew_wait_listen "$PORT" 20
	run "$1" timeout 60 rping -c -a "$S" -p "$PORT" -C 3 -v >"$2" 2>&1
	_rc=$(ew_rping_status "$2" $?)
	kill "$_srv" 2>/dev/null
	wait "$_srv" 2>/dev/null
	sed 's/^/# client: /' "$2"
	return "$_rc"
}
pings() { ping "$@" && test "$(grep -c 'ping data: ' "$2")" = 3; }
no_ping() { ! ping "$@" && ! grep -q 'ping data: ' "$2"; }

load_allow() { ew_insmod "$EW_KO" && "$CTL" config set default allow; }

ew_plan 17

ew_check "eastwest loads; default action allow" load_allow
ew_check "siw loads; siw0 on d0 ($S)" setup_siw
ew_check "siw0 is an iWARP device" is_rnic
mkdir -p "$CG/ewA" "$CG/ewB"
ew_check "job A (peers 10.81.0.99) and job B (peers $S)" sh -c \
	"'$CTL' job add ewA cgroup /ewA peer 10.81.0.99 && '$CTL' job add ewB cgroup /ewB peer $S"

# 1. Control: siw carries rdma_cm traffic here.
ew_check "1/a client in no job: its QP, handed over by number, delivers to the server" \
	delivered "" "$EW_TMP/c1" from-nobody
ew_check "1/rping between processes in no job: 3 verified pings" pings "" "$EW_TMP/r1"

# 2. Job A, S not among its peers.
A0=$(ew_ctr ewA denied-iwarp)
B0=$(ew_ctr ewB denied-iwarp)
ew_dmesg_mark
ew_check "2/job A's QP on siw0, to $S (not its peer): refused (EACCES), nothing delivered" \
	refused /ewA "$EW_TMP/c2" from-job-a
ew_check "2/job A: counter denied-iwarp rose" ew_ctr_grew ewA denied-iwarp "$A0"
ew_check "2/the kernel log names the reason" ew_dmesg_wait "QP on an iWARP device"

# 3. Job B, S among its peers: still refused.
ew_check "3/job B's QP on siw0, to $S (its peer): refused (EACCES), nothing delivered" \
	refused /ewB "$EW_TMP/c3" from-job-b
ew_check "3/job B: counter denied-iwarp rose" ew_ctr_grew ewB denied-iwarp "$B0"

# 4. rping (librdmacm makes the QP) by job A: the same refusal.
A1=$(ew_ctr ewA denied-iwarp)
ew_check "4/job A's rping to $S: no ping" no_ping /ewA "$EW_TMP/r4"
ew_check "4/job A: counter denied-iwarp rose" ew_ctr_grew ewA denied-iwarp "$A1"

# 5. A job's rdma_cm connect naming a QP by number, without one of its own.
B1=$(ew_ctr ewB denied-iwarp)
next_port
ew_expect_rc 13 "5/job B's rdma_connect on siw0 naming QP 0x123 (no QP of its own): refused (EACCES)" \
	run /ewB timeout 60 "$CMMSG" connect-qpn "$S" "$PORT" from-job-b 0x123
ew_check "5/job B: counter denied-iwarp rose" ew_ctr_grew ewB denied-iwarp "$B1"

# 6. Default deny: a process in no job.
"$CTL" config set default deny
ew_check "6/default deny: a client in no job is refused (EACCES), nothing delivered" \
	refused "" "$EW_TMP/c5" from-nobody-deny

ew_check "no oops, warning or leak in the kernel log" sh -c \
	"! dmesg | grep -Eq 'WARNING:|BUG:|Oops|Call Trace:|refcount_t:'"

ew_done
