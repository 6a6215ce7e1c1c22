#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 2
# ew-kernels: 6.1
# ew-timeout: 1200
#
# rdma_cm applications over protected paths, set up as the README says,
# between processes of jobs that require encryption:
#   - control: a job without encryption runs rping and qperf -cm1 over plain
#     eth0; a capture on eth0 holds rping's payload (the text "rdma-ping-"
#     and its alphabet run) and clear RoCE (UDP 4791): the capture would see
#     clear text if there were any;
#   - MACsec: soft-RoCE on eth0 first (path add needs a RoCE netdev), then
#     `eastwestctl path add ... type macsec`, which puts soft-RoCE on the
#     macsec link and registers rxe0 again after it: rdma_cm binds the
#     MACsec address to the rxe device on the macsec link (the one that
#     receives what the link decrypts), not to rxe0, which shows the same GID
#     (the macsec link is an upper device of eth0) but cannot receive it;
#     eth0's own address stays on rxe0; a job with `encrypt macsec` runs
#     rping (data validated) and qperf -cm1 rc_bw/rc_lat over it; the capture
#     on eth0 holds MACsec frames, never the payload, never clear RoCE;
#     path del takes the macsec link's rxe with it and leaves rxe0;
#   - IPsec (ESP transport on eth0): a job with `encrypt ipsec` runs rping
#     and qperf -cm1 between the node addresses; the capture holds ESP,
#     never the payload, never clear RoCE.
# Every node runs the same number of assertions.

. "$(dirname "$0")/../lib.sh"

RPING_PORT=7174
QPERF_PORT=19765
RCOUNT=20
RSIZE=256
SEC_NET=10.91.0
# A test key shared by both nodes (never use a fixed key outside tests).
KEYHEX=c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00

ew_require_root
ew_require_nodes 2
ew_require_cmd rdma ip rping qperf tshark python3 timeout ping
ew_require_built ctl verbs cgroup

ew_sec_addrs "$SEC_NET"
SHARE=$EW_SHARED/$EW_TEST_NAME.d
mkdir -p "$SHARE"

ew_tmp_dir
ew_defer "rmdir $EW_CG/ewcP $EW_CG/ewcM $EW_CG/ewcI"
ew_defer "rdma link delete rxe0"
ew_defer "'$CTL' path del dev eth0"
ew_defer "ew_rmmod"
ew_defer "pkill -x rping; pkill -x qperf; pkill -x tshark"
ew_defer "for e in \$CM_TRACE; do echo 0 >\$TR/events/\$e/enable; done 2>/dev/null"

# marker_count NAME: how often rping's payload shows in the capture: the
# text every ping starts with, plus the run of letters it fills with.
marker_count() {
	python3 -c '
import sys
d = open(sys.argv[1], "rb").read()
print(d.count(b"rdma-ping-") + d.count(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ"))' "$EW_TMP/$1.pcap"
}

# cm_listener_dev ADDR PORT: the RDMA device of the rdma_cm listener bound to
# ADDR:PORT (rdma res show cm_id), empty if there is none.
cm_listener_dev() {
	rdma res show cm_id 2>/dev/null | awk -v a="src-addr $1:$2" '
		index($0, a) && / LISTEN / { split($2, x, "/"); print x[1]; exit }'
}

cm_listening() {
	[ -n "$(cm_listener_dev "$1" "$RPING_PORT")" ]
}

# cm_binds_to ADDR DEV: rdma_cm binds a listener on local ADDR to DEV.
cm_binds_to() {
	rping -s -a "$1" -p 7999 >/dev/null 2>&1 &
	_p=$!
	ew_wait_for 20 sh -c "rdma res show cm_id 2>/dev/null | grep -q 'src-addr $1:7999'"
	_d=$(cm_listener_dev "$1" 7999)
	kill "$_p" 2>/dev/null
	wait "$_p" 2>/dev/null
	echo "rdma_cm bound $1 to '${_d:-nothing}', want '$2'"
	[ "$_d" = "$2" ]
}

# rping_pair NAME CGROUP ADDR: rping with validated data, node 0 serves on
# ADDR (one of its addresses), node 1 connects to it; both in CGROUP.
rping_pair() {
	_n=$1 _cg=$2 _a=$3
	_out=$EW_TMP/$_n.rping
	if [ "$EW_NODE" -eq 0 ]; then
		ew_in_cg_bg "$_cg" timeout 150 rping -s -a "$_a" -p "$RPING_PORT" \
			-C "$RCOUNT" -S "$RSIZE" -V >"$_out" 2>&1
		_pid=$EW_BG_PID
		ew_wait_for 30 cm_listening "$_a" ||
			echo "rping server $_n does not listen"
		echo "server listens on $(cm_listener_dev "$_a" "$RPING_PORT")"
		ew_meet "$_n-listen" 180
		wait "$_pid"
		_rc=$(ew_rping_status "$_out" $?)
	else
		ew_meet "$_n-listen" 180
		ew_in_cg "$_cg" timeout 120 rping -c -a "$_a" -p "$RPING_PORT" \
			-C "$RCOUNT" -S "$RSIZE" -V -v >"$_out" 2>&1
		_rc=$(ew_rping_status "$_out" $?)
		if [ "$_rc" -eq 0 ] &&
		   [ "$(grep -c 'ping data: rdma-ping-' "$_out")" -ne "$RCOUNT" ]; then
			echo "client printed $(grep -c 'ping data: rdma-ping-' "$_out") pings, want $RCOUNT"
			_rc=1
		fi
	fi
	ew_meet "$_n-done" 180
	sed 's/^/  /' "$_out" | tail -n 5
	echo "rping exit $_rc"
	[ "$_rc" -eq 0 ]
}

# qperf_us FILE: the rc_lat latency qperf printed, in microseconds.
qperf_us() {
	awk '$1 == "latency" && $2 == "=" {
		v = $3; u = $4
		if (u == "ns") v /= 1000; else if (u == "ms") v *= 1000; else if (u == "sec") v *= 1000000
		printf "%d\n", v; exit }' "$1"
}

# qperf_kernel_log: the kernel's last words on RDMA, eastwest and XFRM, the
# CM's message counters of rxe0 (which side sent a REJ, which retried) and
# what the CM's tracepoints recorded since the pair $_n began (the reason of
# a REJ).
qperf_kernel_log() {
	dmesg | grep -E 'eastwest|rdma|rxe|xfrm|ib_cm' | tail -n 8 | sed 's/^/kernel: /'
	for _d in /sys/class/infiniband/rxe0/ports/1/cm_*; do
		[ -d "$_d" ] || continue
		printf 'cm: %s:' "${_d##*/}"
		for _f in req mra rej rep rtu dreq drep; do
			printf ' %s %s' "$_f" "$(cat "$_d/$_f" 2>/dev/null)"
		done
		echo
	done
	[ -r "$TR/trace" ] && sed -n "/qperf_pair $_n\$/,\$p" "$TR/trace" |
		tail -n 40 | sed 's/^/trace: /'
}

# no_listener_rej NAME: since pair NAME's last try began, this side's rdma_cm
# reported a connect REJECTED with status 8 (IB_CM_REJ_INVALID_SERVICE_ID:
# the peer's CM had no listener for the port).
no_listener_rej() {
	[ -r "$TR/trace" ] && awk -v m="qperf_pair $1" '
		{ t = $0; sub(/ try [0-9]+$/, "", t) }
		substr(t, length(t) - length(m) + 1) == m { s = 1; r = 0; next }
		s && /cm_event_handler: .* REJECTED \(8\/8\)$/ { r = 1 }
		END { exit !r }' "$TR/trace"
}

# A CM reject leaves no kernel log: ib_cm's tracepoints (system ib_cma) name
# its reason, rdma_cm's the events the applications got. Switching them on
# patches kernel text; each guest of a pair has one vCPU, so TCG's stale
# int3 (testing.md) cannot strike, and it is done once, before any
# connection.
TR=/sys/kernel/tracing
CM_TRACE="ib_cma/icm_send_rej ib_cma/icm_issue_rej ib_cma/icm_staleconn_err
	ib_cma/icm_no_listener_err ib_cma/icm_insert_failed_err
	ib_cma/icm_remote_no_priv_err ib_cma/icm_handler_err
	ib_cma/icm_mad_send_err ib_cma/icm_send_rep_err
	rdma_cma/cm_req_handler rdma_cma/cm_event_handler rdma_cma/cm_event_done
	rdma_cma/cm_id_attach rdma_cma/cm_id_destroy rdma_cma/cm_send_req
	rdma_cma/cm_send_rep"
cm_trace_on() {
	modprobe rdma_ucm 2>/dev/null
	[ -d "$TR/events/rdma_cma" ] || return 0
	for _e in $CM_TRACE; do
		echo 1 >"$TR/events/$_e/enable" 2>/dev/null ||
			echo "no tracepoint $_e"
	done
	echo 1 >"$TR/tracing_on"
}

# qperf_pair NAME CGROUP ADDR [MAX_US]: qperf -cm1 rc_bw and rc_lat (rdma_cm),
# node 0 serves, node 1 connects to ADDR; both in CGROUP; with MAX_US, the
# latency must not exceed it (a connection that only gets through by
# retransmission still "completes", slowly). Node 0 learns the client's
# result through the shared directory. Sets QPERF_US.
qperf_pair() {
	_n=$1 _cg=$2 _a=$3 _max=${4:-}
	_out=$EW_TMP/$_n.qperf
	echo "qperf_pair $_n" >"$TR/trace_marker" 2>/dev/null
	if [ "$EW_NODE" -eq 0 ]; then
		rm -f "$SHARE/$_n.rc"
		# Line-buffered: what the server said survives the kill below.
		ew_in_cg_bg "$_cg" timeout 300 stdbuf -oL qperf -lp "$QPERF_PORT" >"$_out" 2>&1
		_pid=$EW_BG_PID
		ew_wait_listen "$QPERF_PORT" || echo "qperf server $_n does not listen"
		ew_meet "$_n-listen" 180
		ew_meet "$_n-done" 180
		kill "$_pid" 2>/dev/null
		wait "$_pid" 2>/dev/null
		_rc=$(cat "$SHARE/$_n.rc" 2>/dev/null || echo missing)
		cat "$SHARE/$_n.out" 2>/dev/null
		QPERF_US=$(qperf_us "$SHARE/$_n.out")
		# A rejected connect: what the server and this kernel said.
		[ "$_rc" = 0 ] || { sed 's/^/server: /' "$_out"; qperf_kernel_log; }
	else
		ew_meet "$_n-listen" 180
		_try=1
		while :; do
			ew_in_cg "$_cg" timeout 240 qperf -lp "$QPERF_PORT" -cm1 -to 60 -t 3 \
				"$_a" rc_bw rc_lat >"$_out" 2>&1
			_rc=$?
			if [ "$_rc" -eq 0 ] && ! { grep -q 'bw *= *[0-9.]* [KMG]*B/sec' "$_out" &&
						grep -q 'latency *= *[0-9.]* [mnu]*s' "$_out"; }; then
				_rc=1
			fi
			[ "$_rc" = 0 ] && break
			qperf_kernel_log
			# Debian's qperf (0.4.11) tells the client a test's port
			# before its server listens on it (its binary sends the
			# port, then calls rdma_listen(); the CM trace of a failed
			# run: the REQ refused 5 ms before the listener attached),
			# so a quick client's REQ can meet no listener: REJ 8,
			# invalid service ID. That race, and only that, gets
			# more tries (a loaded CI host lost it twice in a row);
			# any other refusal fails the check.
			[ "$_try" -lt 4 ] && no_listener_rej "$_n" || break
			_try=$((_try + 1))
			echo "qperf: the server did not listen yet (REJ 8, invalid service ID): try $_try"
			echo "qperf_pair $_n try $_try" >"$TR/trace_marker" 2>/dev/null
		done
		cp "$_out" "$SHARE/$_n.out"
		echo "$_rc" >"$SHARE/$_n.rc"
		ew_meet "$_n-done" 180
		cat "$_out"
		QPERF_US=$(qperf_us "$_out")
	fi
	# Every pair's CM trace, passed or not, for comparison (artifacts).
	[ -r "$TR/trace" ] && sed -n "/qperf_pair $_n\$/,\$p" "$TR/trace" \
		>"$SHARE/$_n.trace.node$EW_NODE" 2>/dev/null
	echo "qperf client exit $_rc, latency ${QPERF_US:-?} us${_max:+ (at most $_max)}"
	[ "$_rc" = 0 ] && [ -n "$QPERF_US" ] && { [ -z "$_max" ] || [ "$QPERF_US" -le "$_max" ]; }
}

# macsec_rxe_gone: the macsec link's rxe unregisters (asynchronously), rxe0 stays.
macsec_rxe_gone() {
	ew_wait_for 10 test ! -e "/sys/class/infiniband/$MDEV" ||
		echo "$MDEV is still there"
	test ! -e "/sys/class/infiniband/$MDEV" && test -e /sys/class/infiniband/rxe0
}

ew_plan 28

(umask 077 && printf '%s\n' "$KEYHEX" >"$EW_TMP/cluster.key")
KEY=$EW_TMP/cluster.key
mkdir -p "$EW_CG/ewcP" "$EW_CG/ewcM" "$EW_CG/ewcI"
ew_check "eastwest.ko loads" ew_load
cm_trace_on
ew_check "job P: the other node, no encryption required" \
	"$CTL" job add ewcP cgroup /ewcP peer "$EW_PEER_IP"
PEER_MAC=$(ew_peer_mac)
ew_check "soft-RoCE rxe0 on eth0; peer MAC ${PEER_MAC:-unknown}" \
	sh -c "[ -n '$PEER_MAC' ] && rdma link add rxe0 type rxe netdev eth0"
PIDX=$(ew_wait_gid_index rxe0 "$EW_LOCAL_IP")
# Node 0 serves every pair; its address on eth0.
[ "$EW_NODE" -eq 0 ] && PLAIN_SRV=$EW_LOCAL_IP || PLAIN_SRV=$EW_PEER_IP

# --- control: the capture sees clear text ---------------------------------------
ew_meet plain-ready 180
ew_capture_start plain
ew_check "control: job P runs rping over plain eth0, $RCOUNT validated pings" \
	rping_pair plain /ewcP "$PLAIN_SRV"
ew_check "control: job P runs qperf -cm1 rc_bw, rc_lat over plain eth0" \
	qperf_pair plain-q /ewcP "$PLAIN_SRV"
# Protected paths may be slower (software crypto under TCG), not 10x.
MAX_US=$((${QPERF_US:-100000} * 10))
ew_capture_stop
ew_check "control: the capture on eth0 holds rping's payload in clear text ($(marker_count plain))" \
	test "$(marker_count plain)" -gt 0
ew_check "control: and clear RoCE, UDP 4791 ($(ew_frames plain 'udp.port == 4791') frames)" \
	test "$(ew_frames plain 'udp.port == 4791')" -gt 0

# --- MACsec, as the README sets it up -------------------------------------------
ew_check "path add dev eth0 type macsec local $SEC_IP/24" \
	"$CTL" path add dev eth0 type macsec key-file "$KEY" local "$SEC_IP/24" \
		peer "$SEC_PEER" lladdr "$PEER_MAC"
MACSEC_IF=ew-eth0
MDEV=rxe-$MACSEC_IF
# path add registered rxe0 again: its GID table is new.
PIDX=$(ew_wait_gid_index rxe0 "$EW_LOCAL_IP")
ew_check "path add put soft-RoCE $MDEV on $MACSEC_IF, rxe0 stays on eth0" \
	sh -c "grep -qx '$MACSEC_IF' /sys/class/infiniband/$MDEV/parent &&
		grep -qx eth0 /sys/class/infiniband/rxe0/parent"
MIDX=$(ew_wait_gid_index "$MDEV" "$SEC_IP")
ew_check "rdma_cm binds $SEC_IP to $MDEV (on $MACSEC_IF), not to rxe0" \
	cm_binds_to "$SEC_IP" "$MDEV"
ew_check "rdma_cm still binds $EW_LOCAL_IP to rxe0" cm_binds_to "$EW_LOCAL_IP" rxe0
ew_check "job M requires macsec" \
	"$CTL" job add ewcM cgroup /ewcM peer "$SEC_PEER" peer "$EW_PEER_IP" encrypt macsec
ew_expect_rc 13 "job M is refused over the plain GID" \
	ew_in_cg /ewcM "$VERBS" rc-connect rxe0 "$PIDX" "$EW_PEER_IP" self
ew_check "the kernel's path check: $MDEV to the peer is macsec" \
	sh -c "'$CTL' -j path check dev $MDEV sgid-index $MIDX dst $SEC_PEER | grep -q macsec"
ew_meet macsec-ready 180
ew_capture_start macsec
ew_check "job M: rping over MACsec, $RCOUNT validated pings" \
	rping_pair macsec /ewcM "$SEC_NET.1"
ew_check "job M: qperf -cm1 rc_bw, rc_lat over MACsec, latency within 10x plain" \
	qperf_pair macsec-q /ewcM "$SEC_NET.1" "$MAX_US"
ew_capture_stop
ew_check "the capture on eth0 holds MACsec frames ($(ew_frames macsec macsec))" \
	test "$(ew_frames macsec macsec)" -gt 0
ew_check "and never rping's payload ($(marker_count macsec))" \
	test "$(marker_count macsec)" -eq 0
ew_check "and no clear RoCE, UDP 4791 ($(ew_frames macsec 'udp.port == 4791'))" \
	test "$(ew_frames macsec 'udp.port == 4791')" -eq 0
ew_meet macsec-done 180
ew_check "path del dev eth0 removes the MACsec link" \
	sh -c "'$CTL' path del dev eth0 && ! ip link show $MACSEC_IF >/dev/null 2>&1"
ew_check "$MDEV went with it, rxe0 is still there" macsec_rxe_gone
PIDX=$(ew_wait_gid_index rxe0 "$EW_LOCAL_IP")

# --- IPsec: ESP transport on eth0 -----------------------------------------------
ew_check "path add dev eth0 type ipsec" \
	"$CTL" path add dev eth0 type ipsec key-file "$KEY" peer "$EW_PEER_IP"
ew_check "job I requires ipsec" \
	"$CTL" job add ewcI cgroup /ewcI peer "$EW_PEER_IP" encrypt ipsec
ew_meet ipsec-ready 180
ew_capture_start ipsec
ew_check "job I: rping over IPsec, $RCOUNT validated pings" \
	rping_pair ipsec /ewcI "$PLAIN_SRV"
ew_check "job I: qperf -cm1 rc_bw, rc_lat over IPsec, latency within 10x plain" \
	qperf_pair ipsec-q /ewcI "$PLAIN_SRV" "$MAX_US"
ew_capture_stop
ew_check "the capture on eth0 holds ESP ($(ew_frames ipsec esp))" \
	test "$(ew_frames ipsec esp)" -gt 0
ew_check "and never rping's payload ($(marker_count ipsec)) nor clear RoCE ($(ew_frames ipsec 'udp.port == 4791'))" \
	test "$(marker_count ipsec)" -eq 0 -a "$(ew_frames ipsec 'udp.port == 4791')" -eq 0
ew_check "path del dev eth0 removes states and policies" \
	sh -c "'$CTL' path del dev eth0 && ! ip xfrm state | grep -q 'proto esp'"
ew_meet end 180

ew_done
