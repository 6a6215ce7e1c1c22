#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 1
# ew-timeout: 300
#
# iWARP devices. The core's iWARP connection manager connects a QP from
# the number the caller hands rdma_connect() or rdma_accept() (no owner
# check), and the device moves it to RTS itself: no modify of the QP
# carries its destination, so nothing eastwest judges ever sees where it
# goes, and any process could connect a job's QP by its number. A job's
# process may therefore not have a QP on an iWARP device at all. The
# device here is soft-iWARP (siw, built out of tree by selftests/vm/run:
# Debian does not ship it) on a dummy netdev with address S; rping
# (rdma_cm) is the client. Job processes run as uid 65534.
#
#   1. control, default allow: two processes in no job ping each other
#      over siw (the device works; nothing of eastwest is in the way);
#   2. job A, whose peers do not include S, pings S: its QP on the iWARP
#      device is refused (EACCES at QP creation, reason iwarp, counted,
#      logged), and nothing connects;
#   3. job B, whose peers include S: refused likewise (an allowed peer does
#      not help: the connection would still be made unseen);
#   4. default deny: a process in no job is refused (no-job).
#
# Against a module that judges only the verbs control path, 2 and 3
# connect and ping: job A reaches S, which its peers do not allow.

. "$(dirname "$0")/../lib.sh"

CG=/sys/fs/cgroup
SIW_KO=$EW_TOP/build/$(uname -r)/siw/siw.ko
S=10.81.0.1
PORT=7174

ew_require_root
ew_require_cmd rdma ip rping setpriv
ew_require_built ctl cgroup
[ -f "$SIW_KO" ] || ew_skip "no $SIW_KO (selftests/vm/run builds it)"

ew_tmp_dir 755
ew_defer "rmdir $CG/ewA $CG/ewB"
ew_defer "rmmod siw"
ew_defer "ew_netdev_del d0"
ew_defer "rdma link delete siw0"
ew_defer "ew_unload"
ew_defer "pkill -x rping"

NOBODY=$(ew_nobody_script "$EW_TMP")

setup_siw() {
	modprobe ib_core && insmod "$SIW_KO" && ew_dummy_add d0 "$S/32" &&
		rdma link add siw0 type siw netdev d0
}

# ping CGROUP OUT: an rping server in no job (default allow: unpoliced,
# or refused under deny) and a client as uid 65534 in CGROUP ("" for no
# job), 3 verified pings; returns the client's status, its output in OUT.
ping() {
	rping -s -a "$S" -p "$PORT" -C 3 -v >"$2.server" 2>&1 &
	_srv=$!
	ew_wait_listen "$PORT" 20
	if [ -n "$1" ]; then
		ew_in_cg "$1" "$NOBODY" timeout 60 rping -c -a "$S" -p "$PORT" -C 3 -v >"$2" 2>&1
	else
		"$NOBODY" timeout 60 rping -c -a "$S" -p "$PORT" -C 3 -v >"$2" 2>&1
	fi
	_rc=$(ew_rping_status "$2" $?)
	kill "$_srv" 2>/dev/null
	wait "$_srv" 2>/dev/null
	sed 's/^/# client: /' "$2"
	return "$_rc"
}
pings() { ping "$@" && test "$(grep -c 'ping data: ' "$2")" = 3; }
refused() { ! ping "$@" && ! grep -q 'ping data: ' "$2"; }
is_rnic() { rdma dev show siw0 | grep -q 'node_type rnic'; }

ew_plan 12

ew_check "eastwest loads; default action allow" \
	sh -c "insmod '$EW_KO' && '$CTL' config set default allow"
ew_check "siw loads; siw0 on d0 ($S)" setup_siw
ew_check "siw0 is an iWARP device" is_rnic
mkdir -p "$CG/ewA" "$CG/ewB"
ew_check "job A (peers 10.81.0.99) and job B (peers $S)" sh -c \
	"'$CTL' job add ewA cgroup /ewA peer 10.81.0.99 && '$CTL' job add ewB cgroup /ewB peer $S"

# 1. Control: siw carries rdma_cm traffic here.
ew_check "1/two processes in no job: 3 verified pings over siw0" pings "" "$EW_TMP/c1"

# 2. Job A, S not among its peers.
A0=$(ew_ctr ewA denied-iwarp)
B0=$(ew_ctr ewB denied-iwarp)
ew_dmesg_mark
ew_check "2/job A's rping to $S (not its peer): refused, no ping" refused /ewA "$EW_TMP/c2"
ew_check "2/job A: counter denied-iwarp rose" ew_ctr_grew ewA denied-iwarp "$A0"
ew_check "2/the kernel log names the reason" ew_dmesg_wait "QP on an iWARP device"

# 3. Job B, S among its peers: still refused.
ew_check "3/job B's rping to $S (its peer): refused, no ping" refused /ewB "$EW_TMP/c3"
ew_check "3/job B: counter denied-iwarp rose" ew_ctr_grew ewB denied-iwarp "$B0"

# 4. Default deny: a process in no job.
"$CTL" config set default deny
ew_check "4/default deny: a process in no job is refused, no ping" refused "" "$EW_TMP/c4"

ew_check "no oops, warning or leak in the kernel log" sh -c \
	"! dmesg | grep -Eq 'WARNING:|BUG:|Oops|Call Trace:|refcount_t:'"

ew_done
