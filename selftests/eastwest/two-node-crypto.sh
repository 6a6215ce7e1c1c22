#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 2
# ew-kernels: 6.12
# ew-timeout: 1200
#
# Encrypted RDMA between two nodes, set up with `eastwestctl path` only
# (`path add ... rxe rxem` binds soft-RoCE on the MACsec netdev):
#   - control: plain RoCE on eth0; a capture on eth0 shows the payload
#     pattern ibv_rc_pingpong writes (runs of 0x7b bytes) in clear text;
#   - MACsec (GCM-AES-XPN-256, the default; keys derived from a shared key
#     file): rc_pingpong
#     (data checked) and ib_write_bw complete over the macsec netdev; the
#     capture on eth0 shows MACsec frames and never the pattern;
#   - a job with `encrypt macsec` is refused over the plain GID and connects
#     over the MACsec one; the kernel's path check agrees;
#   - key rotation (stages rx, tx, retire on both nodes) during a long
#     transfer: it completes with every buffer checked and no frame dropped
#     by MACsec validation;
#   - a wrong key on one side: no delivery, MACsec counts invalid frames,
#     nothing crashes;
#   - MACsec with GCM-AES-256 (cipher gcm-aes-256) carries checked RDMA too;
#   - IPsec (ESP transport, rfc4106): the same traffic over eth0 is ESP on the
#     wire, never the pattern; a job with `encrypt ipsec` connects and
#     ib_write_bw completes.
# Every node runs the same number of assertions.

. "$(dirname "$0")/../lib.sh"

PORT=18515
ITERS=20
SIZE=4096
SEC_NET=10.90.0
# A test key shared by both nodes (never use a fixed key outside tests).
KEYHEX=5ee5c0de5ee5c0de5ee5c0de5ee5c0de5ee5c0de5ee5c0de5ee5c0de5ee5c0de
WRONGHEX=0badc0de0badc0de0badc0de0badc0de0badc0de0badc0de0badc0de0badc0de

ew_require_root
ew_require_nodes 2
ew_require_cmd rdma ip ibv_rc_pingpong ib_write_bw tshark python3 timeout ping
ew_require_built ctl verbs cgroup

ew_sec_addrs "$SEC_NET"

ew_tmp_dir
ew_defer "rmdir $EW_CG/ewM $EW_CG/ewI $EW_CG/ewP"
ew_defer "rdma link delete rxe0"
ew_defer "rdma link delete rxem"
ew_defer "'$CTL' path del dev eth0"
ew_defer "ew_rmmod"
ew_defer "pkill -f ibv_rc_pingpong; pkill -f ib_write_bw; pkill tshark"

show() {
	sed 's/^/#   /' "$1"
}

# keyfile NAME HEX: a key file with strict permissions.
keyfile() {
	(umask 077 && printf '%s\n' "$2" >"$EW_TMP/$1")
	echo "$EW_TMP/$1"
}

# pingpong_pair NAME DEV GID_INDEX CGROUP: ibv_rc_pingpong with data checks
# between the nodes (node 0 serves), at most PP_TIMEOUT seconds. The TCP
# exchange of QPNs and GIDs goes over eth0; the RDMA traffic over the GID.
# Sets PP_RC and PP_OUT.
PP_TIMEOUT=120
pingpong_pair() {
	_n=$1 _dev=$2 _idx=$3 _cg=$4
	PP_OUT=$EW_TMP/$_n.pp
	if [ "$EW_NODE" -eq 0 ]; then
		ew_in_cg_bg "$_cg" timeout "$PP_TIMEOUT" ibv_rc_pingpong -d "$_dev" -g "$_idx" \
			-p "$PORT" -n "$ITERS" -s "$SIZE" -c >"$PP_OUT" 2>&1
		_pid=$EW_BG_PID
		ew_wait_listen "$PORT" || ew_diag "server $_n does not listen"
		ew_meet "$_n-listen"
		wait "$_pid"
		PP_RC=$?
	else
		ew_meet "$_n-listen"
		ew_in_cg "$_cg" timeout "$PP_TIMEOUT" ibv_rc_pingpong -d "$_dev" -g "$_idx" \
			-p "$PORT" -n "$ITERS" -s "$SIZE" -c "$EW_PEER_IP" >"$PP_OUT" 2>&1
		PP_RC=$?
	fi
	ew_meet "$_n-done"
	[ "$PP_RC" -eq 0 ] && grep -q "^$ITERS iters" "$PP_OUT"
}

# write_bw NAME DEV GID_INDEX [CGROUP]: ib_write_bw between the nodes (node 0
# serves), in CGROUP (default /ewM).
write_bw() {
	_n=$1 _dev=$2 _idx=$3 _wcg=${4:-/ewM}
	if [ "$EW_NODE" -eq 0 ]; then
		ew_in_cg_bg "$_wcg" timeout 180 ib_write_bw -d "$_dev" -x "$_idx" \
			-s 65536 -n 200 -F --report_gbits >"$EW_TMP/$_n.bw" 2>&1
		_pid=$EW_BG_PID
		ew_wait_listen 18515 || ew_diag "ib_write_bw $_n does not listen"
		ew_meet "$_n-listen"
		wait "$_pid"
		_rc=$?
	else
		ew_meet "$_n-listen"
		ew_in_cg "$_wcg" timeout 180 ib_write_bw -d "$_dev" -x "$_idx" \
			-s 65536 -n 200 -F --report_gbits "$EW_PEER_IP" >"$EW_TMP/$_n.bw" 2>&1
		_rc=$?
	fi
	ew_meet "$_n-done"
	[ "$_rc" -eq 0 ] && grep -qE '^ *65536 +200 ' "$EW_TMP/$_n.bw"
}

# macsec_rx_counter NAME: a receive counter summed over the RX SCs/SAs of
# the eastwest MACsec netdev (ip -s macsec show).
macsec_rx_counter() {
	ip -s macsec show "$MACSEC_IF" | python3 -c '
import re, sys
text = sys.stdin.read()
# ip -s prints a header line of counter names followed by a line of values.
total = 0
lines = text.splitlines()
for i, line in enumerate(lines):
    names = [n for n in line.split() if n != "stats:"]
    if sys.argv[1] in names and i + 1 < len(lines):
        vals = lines[i + 1].split()
        if len(vals) == len(names):
            total += int(vals[names.index(sys.argv[1])])
print(total)' "$1"
}

ew_plan 40

KEY=$(keyfile cluster.key "$KEYHEX")
WRONG=$(keyfile wrong.key "$WRONGHEX")
mkdir -p "$EW_CG/ewM" "$EW_CG/ewI" "$EW_CG/ewP"
ew_check "eastwest.ko loads" ew_load
ew_check "job P: the other node, no encryption required" \
	"$CTL" job add ewP cgroup /ewP peer "$EW_PEER_IP"
PEER_MAC=$(ew_peer_mac)
ew_check "rxe0 on eth0; peer MAC ${PEER_MAC:-unknown}" \
	sh -c "[ -n '$PEER_MAC' ] && rdma link add rxe0 type rxe netdev eth0"
PIDX=$(ew_wait_gid_index rxe0 "$EW_LOCAL_IP")

# --- control: clear text on the wire ---------------------------------------------
ew_capture_start plain
ew_check "control: job P (no encryption) runs rc_pingpong over plain eth0" \
	pingpong_pair plain rxe0 "$PIDX" /ewP
ew_capture_stop
ew_check "control: the capture on eth0 shows the payload pattern in clear text ($(ew_pattern_count plain) runs)" \
	test "$(ew_pattern_count plain)" -gt 0

# --- MACsec ------------------------------------------------------------------------
ew_check "path add type macsec (GCM-AES-XPN-256 by default, one RX SC for the peer)" \
	"$CTL" path add dev eth0 type macsec key-file "$KEY" local "$SEC_IP/24" \
		peer "$SEC_PEER" lladdr "$PEER_MAC" rxe rxem
MACSEC_IF=$("$CTL" -j path show dev eth0 | python3 -c '
import json, sys
d = json.load(sys.stdin)
d = d[0] if isinstance(d, list) else d
print(d.get("macsec", {}).get("ifname", "") if isinstance(d.get("macsec"), dict) else d.get("macsec_ifname", ""))' 2>/dev/null)
[ -n "$MACSEC_IF" ] || MACSEC_IF=$(ip -o link show type macsec | awk -F': ' '{print $2; exit}' | cut -d@ -f1)
ew_check "the kernel has an encrypting MACsec link ${MACSEC_IF:-?} over eth0, GCM-AES-XPN-256" \
	sh -c "ip -d link show '$MACSEC_IF' | grep -q 'encrypt on' &&
		ip -d link show '$MACSEC_IF' | grep -qi 'cipher.*GCM-AES-XPN-256'"
# A permanent neighbour for the peer's MACsec address: with a wrong key ARP
# cannot resolve it, and rxe (6.12) frees a QP whose packets still wait in
# an unresolved neighbour queue, then crashes when the queue is dropped
# (rxe_skb_tx_dtor from neigh_invalidate). Not eastwest's bug; avoided here.
ip neigh replace "$SEC_PEER" lladdr "$PEER_MAC" dev "$MACSEC_IF" nud permanent
ew_check "path add bound rxem on the MACsec netdev" \
	grep -qx "$MACSEC_IF" /sys/class/infiniband/rxem/parent
MIDX=$(ew_wait_gid_index rxem "$SEC_IP")
# path add registered rxe0 again (behind rxem): its GID table is new.
PIDX=$(ew_wait_gid_index rxe0 "$EW_LOCAL_IP")
ew_check "the kernel's path check: rxem to the peer is macsec" \
	sh -c "'$CTL' -j path check dev rxem sgid-index $MIDX dst $SEC_PEER | grep -q macsec"
ew_check "job M requires macsec" \
	"$CTL" job add ewM cgroup /ewM peer "$EW_PEER_IP" peer "$SEC_PEER" encrypt macsec
ew_expect_rc 13 "job M is refused over the plain GID" \
	ew_in_cg /ewM "$VERBS" rc-connect rxe0 "$PIDX" "$EW_PEER_IP" self
ew_meet macsec-ready
ew_capture_start macsec
ew_check "job M: rc_pingpong over MACsec, $ITERS checked round trips" \
	pingpong_pair macsec rxem "$MIDX" /ewM
ew_capture_stop
ew_check "the capture on eth0 holds MACsec frames ($(ew_frames macsec macsec))" \
	test "$(ew_frames macsec macsec)" -gt 0
ew_check "and never the payload pattern" test "$(ew_pattern_count macsec)" -eq 0
ew_check "no RoCE (UDP 4791) in clear text on eth0" \
	test "$(ew_frames macsec 'udp.port == 4791')" -eq 0
ew_check "job M: ib_write_bw over MACsec completes" write_bw macsec-bw rxem "$MIDX"

# --- rotation during a long transfer ----------------------------------------------
before_bad=$(macsec_rx_counter InPktsNotValid)
ITERS_SAVED=$ITERS
ITERS=400
if [ "$EW_NODE" -eq 0 ]; then
	ew_in_cg_bg /ewM timeout 300 ibv_rc_pingpong -d rxem -g "$MIDX" -p "$PORT" \
		-n "$ITERS" -s "$SIZE" -c >"$EW_TMP/rot.pp" 2>&1
	ROT_PID=$EW_BG_PID
	ew_wait_listen "$PORT"
	ew_meet rot-listen
else
	ew_meet rot-listen
	ew_in_cg_bg /ewM timeout 300 ibv_rc_pingpong -d rxem -g "$MIDX" -p "$PORT" \
		-n "$ITERS" -s "$SIZE" -c "$EW_PEER_IP" >"$EW_TMP/rot.pp" 2>&1
	ROT_PID=$EW_BG_PID
fi
sleep 3
ew_check "rotate epoch 1, stage rx (next receive SA installed)" \
	"$CTL" path rotate dev eth0 key-file "$KEY" epoch 1 stage rx
ew_meet rot-rx
ew_check "rotate epoch 1, stage tx (sending with the new SA)" \
	"$CTL" path rotate dev eth0 key-file "$KEY" epoch 1 stage tx
ew_meet rot-tx
sleep 2
ew_check "rotate epoch 1, stage retire (old SAs removed)" \
	"$CTL" path rotate dev eth0 key-file "$KEY" epoch 1 stage retire
ew_check "the MACsec link now encodes with AN 1" \
	sh -c "ip macsec show '$MACSEC_IF' | grep -q 'TXSC: [0-9a-f]* on SA 1'"
wait "$ROT_PID"
rot_rc=$?
ew_check "the transfer across the rotation completed, every buffer checked" \
	sh -c "[ $rot_rc -eq 0 ] && grep -q '^$ITERS iters' '$EW_TMP/rot.pp'"
ew_check "no frame failed MACsec validation during the rotation" \
	test "$(macsec_rx_counter InPktsNotValid)" -eq "$before_bad"
ew_meet rot-done
ITERS=$ITERS_SAVED

# --- wrong key on one side --------------------------------------------------------
# Node 1 rotates to epoch 2 with another key; node 0 with the right one.
if [ "$EW_NODE" -eq 1 ]; then K2=$WRONG; else K2=$KEY; fi
ew_check "rotate to epoch 2 (node 1 with a wrong key)" \
	"$CTL" path rotate dev eth0 key-file "$K2" epoch 2 stage all
ew_meet wrong-key
bad0=$(macsec_rx_counter InPktsNotValid)
PP_TIMEOUT=40
ew_check_not "wrong key: rc_pingpong gets nothing through (RC gives up)" \
	pingpong_pair wrongkey rxem "$MIDX" /ewM
PP_TIMEOUT=120
ping -c 3 -W 1 "$SEC_PEER" >/dev/null 2>&1
ew_check "wrong key: MACsec counts invalid frames ($(macsec_rx_counter InPktsNotValid) > $bad0)" \
	test "$(macsec_rx_counter InPktsNotValid)" -gt "$bad0"
ew_check "wrong key: no ping gets through the MACsec link" \
	sh -c "! ping -c 2 -W 1 '$SEC_PEER' >/dev/null 2>&1"
ew_meet wrong-key-done

# --- MACsec with 32-bit packet numbers ---------------------------------------------
rdma link delete rxem
ew_check "path del removes the MACsec link" \
	sh -c "'$CTL' path del dev eth0 && ! ip link show '$MACSEC_IF' >/dev/null 2>&1"
# A new epoch: this node sent with epochs 0 to 2 already, and the SAK does
# not depend on the cipher, so re-adding at any of them is refused.
ew_check "path add type macsec cipher gcm-aes-256 at a new epoch" \
	"$CTL" path add dev eth0 type macsec cipher gcm-aes-256 key-file "$KEY" epoch 3 \
		local "$SEC_IP/24" peer "$SEC_PEER" lladdr "$PEER_MAC" rxe rxem
ip neigh replace "$SEC_PEER" lladdr "$PEER_MAC" dev "$MACSEC_IF" nud permanent
ew_check "the kernel's MACsec link uses GCM-AES-256" \
	sh -c "ip -d link show '$MACSEC_IF' | grep -qi 'cipher.*GCM-AES-256'"
MIDX=$(ew_wait_gid_index rxem "$SEC_IP")
ew_meet xpn-ready
ew_check "job M: rc_pingpong over MACsec GCM-AES-256, $ITERS checked round trips" \
	pingpong_pair xpn rxem "$MIDX" /ewM
rdma link delete rxem
ew_check "path del removes the GCM-AES-256 link" "$CTL" path del dev eth0
PIDX=$(ew_wait_gid_index rxe0 "$EW_LOCAL_IP")

# --- IPsec -------------------------------------------------------------------------
ew_check "path add type ipsec (ESP transport, rfc4106)" \
	"$CTL" path add dev eth0 type ipsec key-file "$KEY" peer "$EW_PEER_IP"
ew_check "the kernel has ESP states and policies for the peer" \
	sh -c "ip xfrm state | grep -q 'proto esp' && ip xfrm policy | grep -q 'dst $EW_PEER_IP'"
ew_check "the kernel's path check: rxe0 to the peer is ipsec" \
	sh -c "'$CTL' -j path check dev rxe0 sgid-index $PIDX dst $EW_PEER_IP | grep -q ipsec"
ew_check "job I requires ipsec" \
	"$CTL" job add ewI cgroup /ewI peer "$EW_PEER_IP" encrypt ipsec
ew_meet ipsec-ready
ew_capture_start ipsec
ew_check "job I: rc_pingpong over IPsec, $ITERS checked round trips" \
	pingpong_pair ipsec rxe0 "$PIDX" /ewI
ew_capture_stop
ew_check "the capture on eth0 holds ESP packets ($(ew_frames ipsec esp))" \
	test "$(ew_frames ipsec esp)" -gt 0
ew_check "and never the payload pattern nor clear-text RoCE" \
	test "$(ew_pattern_count ipsec)" -eq 0 -a "$(ew_frames ipsec 'udp.port == 4791')" -eq 0
ew_check "job I: ib_write_bw over IPsec completes" write_bw ipsec-bw rxe0 "$PIDX" /ewI
ew_check "path del removes states and policies" \
	sh -c "'$CTL' path del dev eth0 && ! ip xfrm state | grep -q 'proto esp'"
ew_meet end

ew_done
