#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 1
# ew-timeout: 240
# ew-kernels: 6.1
#
# Random QP control sequences against soft-RoCE and eastwest, judged by
# the driver's own answer (Documentation/threat-model.md A1, A9, A20):
# selftests/tools/ew_qpfuzz, as uid 65534 in job F's cgroup, keeps 8 RC, UC
# and UD QPs and throws random modifies (random target states, attribute
# masks, IBV_QP_CUR_STATE claims, address vectors and alternate paths
# towards allowed and refused destinations, destination QPNs of its own,
# of another job's QPs and at random), AHs, sends, racing threads and
# forked children at them. After every call that succeeded it asks
# ibv_query_qp where the QP can send: only to job F's peers, on this node
# only to its own QPs; a revoked QP stays dead until RESET; no claim, no
# skipped state (ew_qpfuzz.c lists the oracle).
#
# One rxe on a dummy netdev with two addresses, S (job F's peer) and D
# (not), and two off-node addresses with fixed neighbours, P (a peer) and Q
# (not). Job V's pair of RC QPs on S is the victim: its QPNs are among the
# fuzzer's destinations, and it must carry its messages unharmed at the
# end. Rounds, with the root's change before each:
#
#   1  peers S,P, ud on                  plain
#   2  the same                          two racing threads
#   3  the same                          forked children on the same QPs
#   4  P removed and added again, over and over, while the fuzzer runs
#   5  P removed for good                QPs on P revoked
#   6  peer add P, peer del S            QPs on this node revoked
#   7  ud off                            UD QPs revoked
#   8  job del                           in no job: nothing lives
#   9  job F again, peer 10.85.0.0/24     S and D both allowed: on either,
#                                        only its own QPs (not job V's)
#
# EW_QPFUZZ_SEED (default 1) and EW_QPFUZZ_STEPS (steps of rounds 1 and 4;
# the others take half) choose the run.

. "$(dirname "$0")/../lib.sh"

DEV=rxe0
NET=ewfz0
S=10.85.0.1
D=10.85.0.2
P=10.85.0.9
Q=10.85.0.10
CG=/sys/fs/cgroup
FUZZ=$EW_TOP/selftests/tools/ew_qpfuzz
SEED=${EW_QPFUZZ_SEED:-1}
STEPS=${EW_QPFUZZ_STEPS:-12000}
HALF=$((STEPS / 2))

ew_require_root
ew_require_cmd rdma ip mkfifo setpriv
ew_require_built ctl verbs cgroup
[ -x "$FUZZ" ] || ew_skip "ew_qpfuzz is not built (make tools)"

ew_tmp_dir 755
ew_defer "rmdir $CG/ewF $CG/ewV"
ew_defer "ew_netdev_del $NET"
ew_defer "rdma link delete $DEV"
ew_defer "ew_rmmod"
ew_defer "ew_reap_all"
ew_defer kill_bg

NOBODY=$(ew_nobody_script "$EW_TMP")
OUT=$EW_TMP/fuzz
VOUT=$EW_TMP/victim

setup_net() {
	ew_dummy_add "$NET" "$S/24" || return 1
	ip addr add "$D/24" dev "$NET" || return 1
	ip neigh replace "$P" lladdr 02:00:00:00:00:09 dev "$NET" nud permanent &&
		ip neigh replace "$Q" lladdr 02:00:00:00:00:0a dev "$NET" nud permanent
}

# round N ALLOWED UD RACERS FORKS STEPS TIMEOUT DESC: one round, two checks
# (it ended; no violation in it).
round() {
	echo "round $1 $2 $3 $4 $5 $6" >&3
	if ! ew_check "round $1 ($8): $6 steps done" \
		ew_wait_for "$7" grep -q "^round $1 done" "$OUT"; then
		ew_not_ok "round $1: no violation (it did not end)"
		return
	fi
	_l=$(grep "^round $1 done" "$OUT")
	ew_diag "$_l"
	case $_l in
	*" violations 0") ew_ok "round $1: no violation" ;;
	*) ew_not_ok "round $1: no violation"
	   grep "^VIOLATION .*round $1 " "$OUT" | head -n 20 | sed 's/^/# /' ;;
	esac
}

# flap: until $EW_TMP/flap.stop exists, peer del and peer add of P for
# job F (revocations while the fuzzer connects); then P is deleted for good.
flap() {
	_n=0
	while [ ! -e "$EW_TMP/flap.stop" ]; do
		"$CTL" peer del ewF "$P" >/dev/null 2>&1
		sleep 0.1
		"$CTL" peer add ewF "$P" >/dev/null 2>&1
		sleep 0.2
		_n=$((_n + 1))
	done
	"$CTL" peer del ewF "$P" >/dev/null 2>&1
	echo "$_n $?" >"$EW_TMP/flap.count"
}

flapped() {
	read -r _n _rc <"$EW_TMP/flap.count" || return 1
	echo "# $_n flaps, last peer del: exit $_rc"
	ew_diag "P flapped $_n times" >&2
	[ "$_n" -gt 0 ] && [ "$_rc" -eq 0 ]
}

ew_plan 38

ew_check "eastwest.ko loads" ew_load || ew_bail "no module"
ew_check "$NET with $S and $D, neighbours $P and $Q" setup_net || ew_bail "no netdev"
ew_check "$DEV on $NET" ew_rxe_add "$DEV" "$NET" || ew_bail "no rxe device"
SIDX=$(ew_wait_gid_index "$DEV" "$S" 20)
ew_check "GID of $S found (index ${SIDX:-none})" test -n "$SIDX" || ew_bail "no GID"
DIDX=$(ew_wait_gid_index "$DEV" "$D" 20)
ew_check "GID of $D found (index ${DIDX:-none})" test -n "$DIDX" || ew_bail "no GID"
read -r GID0 <"/sys/class/infiniband/$DEV/ports/1/gids/0"
mkdir -p "$CG/ewF" "$CG/ewV"
ew_check "job F: peers $S $P, ud on" "$CTL" job add ewF cgroup /ewF peer "$S" peer "$P" ud on
ew_check "job V (the victim): peer $S" "$CTL" job add ewV cgroup /ewV peer "$S"

mkfifo "$EW_TMP/v.fifo"
exec 4<>"$EW_TMP/v.fifo"
ew_pair_start "$VOUT" "$EW_TMP/v.fifo" /ewV "$DEV" "$SIDX" 20
VPID=$EW_BG_PID
ew_check "job V's pair of RC QPs is connected over $S" \
	ew_wait_for 60 grep -qx connected "$VOUT"
V1=$(ew_pair_field "$VOUT" qp1 qpn)
V2=$(ew_pair_field "$VOUT" qp2 qpn)

ew_start_stepwise "$OUT" /ewF "$NOBODY" "$FUZZ" -d "$DEV" -s "$SEED" \
	-a "$S,$P" -l "$S,$D,$GID0" -x "$Q,127.0.0.1,2001:db8::85" \
	-i "$SIDX,$DIDX" -V "${V1:-0x0},${V2:-0x0}"
FPID=$EW_BG_PID
ew_check "the fuzzer (seed $SEED) has its QPs" ew_wait_for 60 grep -q '^ready' "$OUT"

round 1 "$S,$P" 1 0 0 "$STEPS" 120 "peers S,P"
round 2 "$S,$P" 1 2 0 "$HALF" 90 "two racing threads"
round 3 "$S,$P" 1 0 8 "$HALF" 90 "forked children"
flap &
FLAP=$!
BG_PIDS="$BG_PIDS $FLAP"
round 4 "$S,$P" 1 0 0 "$STEPS" 90 "P flapping"
: >"$EW_TMP/flap.stop"
wait "$FLAP"
ew_check "P was removed and added again during round 4, then removed" \
	flapped
round 5 "$S" 1 0 0 "$HALF" 90 "P removed"
ew_check "peer add ewF $P, peer del ewF $S" \
	sh -c "'$CTL' peer add ewF $P && '$CTL' peer del ewF $S"
round 6 "$P" 1 0 0 "$HALF" 90 "S removed"
ew_check "job set ewF ud off" "$CTL" job set ewF ud off
round 7 "$P" 0 0 0 "$HALF" 90 "ud off"
ew_check "job del ewF" "$CTL" job del ewF
round 8 - 0 0 0 "$HALF" 90 "no job"
ew_check "job F again: peer 10.85.0.0/24 (S, D, P, Q), ud on" \
	"$CTL" job add ewF cgroup /ewF peer 10.85.0.0/24 ud on
round 9 10.85.0.0/24 1 0 4 "$HALF" 90 "both local addresses allowed"

echo end >&3
exec 3>&-
ew_check "the fuzzer exits" ew_reap "$FPID" 60
ew_check "the fuzzer exits 0 (no violation)" test "$EW_REAP_RC" = 0
ew_check "its summary counts no violation" grep -q '^summary: .* violations 0$' "$OUT"
echo go >&4
exec 4>&-
ew_check "job V's QPs carry their 20 messages each way unharmed" \
	ew_wait_for 60 grep -qx 'verified 20 messages each way' "$VOUT"
ew_reap "$VPID" 30 >/dev/null

ew_diag "--- ew_qpfuzz (seed $SEED):"
grep -v -e '^    ' -e '^VIOLATION' "$OUT" | sed 's/^/# /'
grep -e '^VIOLATION' -e '^    ' "$OUT" | head -n 800 | sed 's/^/# /'
ew_diag "--- job V:"
sed 's/^/# /' "$VOUT"

ew_reap_all
ew_check "$DEV deleted" ew_rxe_del "$DEV"
ew_check "eastwest unloads" ew_unload

ew_done
