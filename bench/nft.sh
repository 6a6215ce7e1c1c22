#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 1
# ew-timeout: 6000
#
# The incumbent, side by side: the same PEERS host addresses loaded as an
# nftables set (nft -f, a table with one ipv4_addr set) and as the peers of
# one eastwest job, by "eastwestctl peer add JOB file FILE" and by
# "eastwestctl apply -f POLICY", in one boot, in ROUNDS interleaved rounds
# (the order of the three rotates each round, so that the drift of a TCG
# guest hits every tool alike). Each load starts from nothing (no table, no
# job) and is checked afterwards: the set holds the last address, the job
# counts PEERS peers. Prints a "# bench: nft ..." line for bench/run as
# soon as each load is measured (after its ok line).

. "$(dirname "$0")/../selftests/lib.sh"

# shellcheck disable=SC1091
[ -f "$EW_TOP/build/bench.env" ] && . "$EW_TOP/build/bench.env"
PEERS=${EW_BENCH_NFT_PEERS:-1000000}
ROUNDS=${EW_BENCH_NFT_ROUNDS:-${EW_BENCH_ROUNDS:-3}}

ew_require_root
ew_require_cmd nft
ew_require_cmd python3
ew_require_built ctl
ew_tmp_dir
ew_defer "nft delete table inet ewbench 2>/dev/null"
ew_defer "ew_rmmod"

# The same PEERS addresses, 10.0.0.0 up, in the three formats.
python3 "$EW_TOP/bench/peers.py" "$PEERS" "$EW_TMP" nft
LAST=$(cat "$EW_TMP/last")

# timed KIND CMD...: run CMD, append "# bench: nft KIND round R ms T".
timed() {
	_k=$1
	shift
	sync
	_t0=$(date +%s%N)
	"$@" >"$EW_TMP/cmd.out" 2>&1 || { cat "$EW_TMP/cmd.out" >&2; return 1; }
	_t1=$(date +%s%N)
	echo "# bench: nft $_k round $round peers $PEERS ms $(((_t1 - _t0) / 1000000))" >>"$EW_TMP/out"
}

# job_peers: the peer count of job "bench", as the kernel reports it.
job_peers() {
	"$CTL" -j job show bench | python3 -c 'import json, sys
print(json.load(sys.stdin)[0]["peer_count"])'
}

run_nft() {
	timed nft nft -f "$EW_TMP/set.nft" || return 1
	nft get element inet ewbench peers "{ $LAST }" >/dev/null || return 1
	nft delete table inet ewbench
}

run_file() {
	"$CTL" job add bench id 1 >/dev/null || return 1
	timed peer-add-file "$CTL" peer add bench file "$EW_TMP/peers.txt" || return 1
	[ "$(job_peers)" = "$PEERS" ] || { echo "job bench: $(job_peers) peers, want $PEERS" >&2; return 1; }
	"$CTL" peer get bench "$LAST" >/dev/null || return 1
	"$CTL" job del bench >/dev/null
}

run_apply() {
	timed apply "$CTL" apply -f "$EW_TMP/policy.json" || return 1
	[ "$(job_peers)" = "$PEERS" ] || { echo "job bench: $(job_peers) peers, want $PEERS" >&2; return 1; }
	"$CTL" peer get bench "$LAST" >/dev/null || return 1
	"$CTL" job del bench >/dev/null
}

# nft_ready: load nf_tables before the first measurement (eastwest.ko is
# loaded before it too): a table made and deleted.
nft_ready() {
	nft add table inet ewbench && nft delete table inet ewbench
}

ew_plan $((3 + ROUNDS * 3))
ew_check "$PEERS addresses written" test -s "$EW_TMP/set.nft"
ew_check "eastwest.ko loads" ew_load
ew_check "nf_tables loads" nft_ready
round=1
while [ "$round" -le "$ROUNDS" ]; do
	case $((round % 3)) in
	1) order="nft file apply" ;;
	2) order="file apply nft" ;;
	0) order="apply nft file" ;;
	esac
	for t in $order; do
		sleep "${EW_BENCH_SETTLE:-3}"
		case $t in
		nft) ew_check "round $round: nft -f, a set of $PEERS addresses" run_nft ;;
		file) ew_check "round $round: peer add bench file ($PEERS addresses)" run_file ;;
		apply) ew_check "round $round: apply -f, one job of $PEERS peers" run_apply ;;
		esac
		# Printed at once: a run cut short keeps the loads it measured.
		cat "$EW_TMP/out" 2>/dev/null
		rm -f "$EW_TMP/out"
	done
	round=$((round + 1))
done
ew_done
