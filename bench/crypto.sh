#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 2
# ew-timeout: 1800
#
# Data-path cost of path protection, side by side in one pair of boots:
# ib_write_bw bandwidth and ib_send_lat latency between the two nodes over
# plain RoCE, over MACsec and over IPsec, as set up by `eastwestctl path`,
# in interleaved rounds (plain, macsec, ipsec, plain, ...) so that drift of
# the machine hits every configuration alike. Also what `path caps` (the
# `auto` chooser) picks here. Node 0 serves; node 1 measures and prints
# "# bench: crypto CONFIG bw_MBps N lat_us N" lines. Run it with
# bench/run --crypto.

. "$(dirname "$0")/../selftests/lib.sh"

# shellcheck disable=SC1091
[ -f "$EW_TOP/build/bench.env" ] && . "$EW_TOP/build/bench.env"
ROUNDS=${EW_BENCH_CRYPTO_ROUNDS:-2}
BW_ITERS=${EW_BENCH_BW_ITERS:-300}
LAT_ITERS=${EW_BENCH_LAT_ITERS:-300}
SEC_NET=10.91.0
KEYHEX=be9cbe9cbe9cbe9cbe9cbe9cbe9cbe9cbe9cbe9cbe9cbe9cbe9cbe9cbe9cbe9c

ew_require_root
ew_require_nodes 2
ew_require_cmd rdma ip ib_write_bw ib_send_lat python3 timeout ping
ew_require_built ctl

ew_tmp_dir
ew_defer "rdma link delete rxe0"
ew_defer "rdma link delete rxem"
ew_defer "'$CTL' path del dev eth0"
ew_defer "ew_rmmod"

ME=$((EW_NODE + 1))
PEER=$((2 - EW_NODE))
barrier() {
	ew_barrier "$1" || ew_bail "barrier $1 failed"
}

# perf TOOL DEV GID_INDEX NAME ARGS...: one perftest run between the nodes;
# node 1's output in $EW_TMP/NAME.
perf() {
	_tool=$1 _dev=$2 _idx=$3 _name=$4
	shift 4
	if [ "$EW_NODE" -eq 0 ]; then
		timeout 600 "$_tool" -d "$_dev" -x "$_idx" "$@" >"$EW_TMP/$_name" 2>&1 &
		_pid=$!
		ew_wait_listen 18515
		barrier "$_name-listen"
		wait "$_pid"
	else
		barrier "$_name-listen"
		timeout 600 "$_tool" -d "$_dev" -x "$_idx" "$@" "$EW_PEER_IP" >"$EW_TMP/$_name" 2>&1
	fi
	barrier "$_name-done"
}

# measure CONFIG DEV GID_INDEX ROUND: bandwidth (MB/s) and latency (us).
measure() {
	perf ib_write_bw "$2" "$3" "bw-$1-$4" -s 65536 -n "$BW_ITERS" -F
	perf ib_send_lat "$2" "$3" "lat-$1-$4" -s 64 -n "$LAT_ITERS" -F
	[ "$EW_NODE" -eq 1 ] || return 0
	bw=$(awk '$1 == 65536 && NF >= 5 { print $4 }' "$EW_TMP/bw-$1-$4" | tail -n 1)
	lat=$(awk '$1 == 64 && NF >= 6 { print $6 }' "$EW_TMP/lat-$1-$4" | tail -n 1)
	echo "# bench: crypto $1 round $4 bw_MBps ${bw:-nan} lat_us ${lat:-nan}"
	[ -n "$bw" ] || sed 's/^/# /' "$EW_TMP/bw-$1-$4"
	[ -n "$lat" ] || sed 's/^/# /' "$EW_TMP/lat-$1-$4"
	[ -n "$bw" ] && [ -n "$lat" ]
}

ew_plan 4
(umask 077 && printf '%s\n' "$KEYHEX" >"$EW_TMP/key")
ew_check "eastwest.ko loads" ew_load
"$CTL" config set default allow >/dev/null
PEER_MAC=$(ew_peer_mac)
ew_rxe_add rxe0 eth0
PIDX=$(ew_wait_gid_index rxe0 "$EW_LOCAL_IP")
"$CTL" path caps dev eth0 >"$EW_TMP/caps" 2>&1
sed 's/^/# caps: /' "$EW_TMP/caps"

# MACsec link, bound to its own soft-RoCE device; IPsec toggled per round
# (it covers eth0 itself, so plain rounds must run without it).
# path add puts rxem on the macsec link and registers rxe0 again behind it.
ew_check "MACsec path and rxem" \
	"$CTL" path add dev eth0 type macsec key-file "$EW_TMP/key" \
		local "$SEC_NET.$ME/24" peer "$SEC_NET.$PEER" lladdr "$PEER_MAC" rxe rxem
MIDX=$(ew_wait_gid_index rxem "$SEC_NET.$ME")
PIDX=$(ew_wait_gid_index rxe0 "$EW_LOCAL_IP")
ipsec_on() {
	"$CTL" path add dev eth0 type ipsec key-file "$EW_TMP/key" peer "$EW_PEER_IP" >/dev/null
}
ipsec_off() {
	ip xfrm policy flush && ip xfrm state flush
}

ok=1
r=1
while [ "$r" -le "$ROUNDS" ]; do
	measure plain rxe0 "$PIDX" "$r" || ok=0
	measure macsec rxem "$MIDX" "$r" || ok=0
	ipsec_on || ok=0
	barrier "ipsec-on-$r"
	measure ipsec rxe0 "$PIDX" "$r" || ok=0
	ipsec_off
	barrier "ipsec-off-$r"
	r=$((r + 1))
done
ew_check "every round measured bandwidth and latency (node 1)" test "$ok" -eq 1
ew_check "caps printed" test -s "$EW_TMP/caps"
ew_done
