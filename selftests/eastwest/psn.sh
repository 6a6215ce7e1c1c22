#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 1
# ew-timeout: 300
# ew-kernels: 6.12
#
# Keyed PSNs (job option psn keyed), on one node with real clients:
#   - the key comes from the cluster's key file, the job's name and its run
#     (psn-keyfile, psn-run); it is never shown, the run is, and the key's
#     check value (psn-key-check: an independent SipHash-2-4 of ew_kdf.py
#     gives the same), which "job keycheck" computes alike from the key
#     file alone, as a restore does to tell the key it derives is the job's;
#   - a pair of RC QPs connected to each other with random PSNs of the
#     application's (ew_verbs rc-pair-hold) gets the PSNs the module
#     computes: `rdma res show qp` (root) shows, for each QP, the receive
#     and send PSN that an independent SipHash-2-4 (ew_kdf.py) gives for
#     the two ends' GIDs and QPNs under the key derived (independently,
#     ew_kdf.py) from the key file, not the application's; and the pair
#     still carries its messages, verified (both ends agree);
#   - a connect that asks for PSN 0 (NCCL, UCX) gets the keyed PSN;
#   - the attack: a job of the same name made again (a requeued Slurm job,
#     a job id handed out again) whose key were that of the earlier run
#     would give the same connection the same PSNs, which the earlier run's
#     owner could have tabulated; its next run's connection gets the PSNs of
#     the next run's key, not the earlier run's;
#   - ibv_rc_pingpong (exchanges its own PSNs) and rping (rdma_cm) work;
#   - psn app: the application's PSNs again;
#   - bad input: keyed without a key, a short or non-hex key, a key with
#     psn app, an unknown mode, a key file without a run, a run without a
#     key file, a bad run: refused, and the job unchanged; a key by value,
#     a rename without a key or psn app forgets the run; the check value
#     follows the key.

. "$(dirname "$0")/../lib.sh"

DEV=rxe0
CG=/sys/fs/cgroup
KDF=$EW_TOP/selftests/tools/ew_kdf.py
LOOP=127.0.0.1

ew_require_root
ew_require_cmd rdma python3 ibv_rc_pingpong mkfifo
ew_require_built ctl verbs cgroup

ew_tmp_dir
ew_defer "rmdir $CG/ewA $CG/ewC"
ew_defer "rdma link delete $DEV"
ew_defer "ew_rmmod"
ew_defer "pkill -f ibv_rc_pingpong; pkill -f rping; pkill -f rc-pair-hold"

# qp_psns LQPN: "RQPN RQ_PSN SQ_PSN" of QP LQPN (decimal) as root sees it.
qp_psns() {
	rdma -j res show qp | python3 -c '
import json, sys
for q in json.load(sys.stdin):
    if q.get("lqpn") == int(sys.argv[1]):
        print(q["rqpn"], q["rq-psn"], q["sq-psn"])' "$1"
}

# keyed FROM_QPN TO_QPN: the PSN of that direction over lo, under $KEY.
keyed() {
	python3 "$KDF" keyed-psn "$KEY" "$LOOP" "$1" "$LOOP" "$2"
}

# psns_keyed LQPN APP_RQ APP_SQ: QP LQPN's PSNs are the keyed ones of its
# connection, and not the application's.
psns_keyed() {
	set -- "$1" "$2" "$3" $(qp_psns "$1")
	[ $# -eq 6 ] || { echo "# QP $1 not found"; return 1; }
	_rq=$(keyed "$4" "$1")
	_sq=$(keyed "$1" "$4")
	echo "# QP $1 -> $4: rq-psn $5 sq-psn $6; keyed $_rq $_sq; application's $(($2)) $(($3))"
	[ "$5" = "$_rq" ] && [ "$6" = "$_sq" ] && [ "$5" != $(($2)) ]
}

# not_keyed LQPN: neither of QP LQPN's PSNs is the keyed one under $KEY.
not_keyed() {
	set -- "$1" $(qp_psns "$1")
	[ $# -eq 4 ] || { echo "# QP $1 not found"; return 1; }
	_rq=$(keyed "$2" "$1")
	_sq=$(keyed "$1" "$2")
	echo "# QP $1: rq-psn $3 sq-psn $4; under this key $_rq $_sq"
	[ "$3" != "$_rq" ] && [ "$4" != "$_sq" ]
}

ew_plan 42

ew_check "eastwest.ko loads" ew_load
ew_check "$DEV on lo" ew_rxe_add "$DEV" lo
IDX=$(ew_wait_gid_index "$DEV" "$LOOP" 20)
ew_check "GID of $LOOP found (index ${IDX:-none})" test -n "$IDX"
mkdir -p "$CG/ewA" "$CG/ewC"

# The cluster's key file; every node derives job A's key from it alone.
KEYFILE=$EW_TMP/cluster.key
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$KEYFILE"
chmod 600 "$KEYFILE"
RUN1=1796601600.0
RUN2=1796605200.1
KEY=$(python3 "$KDF" psn-key "$KEYFILE" ewA "$RUN1")
CHK1=$(python3 "$KDF" psn-key-check "$KEY")
CHK2=$(python3 "$KDF" psn-key-check "$(python3 "$KDF" psn-key "$KEYFILE" ewA "$RUN2")")
ew_check "job A: keyed PSNs, key from the cluster key file, its name and run" \
	"$CTL" job add ewA cgroup /ewA peer "$LOOP" psn keyed psn-keyfile "$KEYFILE" \
	psn-run "$RUN1"
ew_check "job show says psn keyed, the run and the key's check value $CHK1 (text and JSON)" sh -c "
	'$CTL' job show ewA | grep -q ' psn keyed psn-run $RUN1 psn-key-check $CHK1\$' &&
	'$CTL' -j job show ewA |
	grep -q '\"psn\":\"keyed\",\"psn_run\":\"$RUN1\",\"psn_key_check\":$((CHK1))[,}]'"
ew_check "job keycheck gives that value from the key file, the name and the run alone" sh -c "
	[ \"\$('$CTL' job keycheck ewA psn-keyfile '$KEYFILE' psn-run $RUN1)\" = 'job ewA psn-key-check $CHK1' ] &&
	'$CTL' -j job keycheck ewA psn-keyfile '$KEYFILE' psn-run $RUN1 |
	grep -qx '\[{\"name\":\"ewA\",\"psn_key_check\":$((CHK1))}\]'"
ew_check "... and another value for the job's next run" sh -c "
	[ \"\$('$CTL' job keycheck ewA psn-keyfile '$KEYFILE' psn-run $RUN2)\" = 'job ewA psn-key-check $CHK2' ] &&
	[ '$CHK1' != '$CHK2' ]"
ew_expect_rc 2 "job keycheck with a setting other than the key is a usage error" \
	"$CTL" job keycheck ewA mode audit psn-keyfile "$KEYFILE" psn-run "$RUN1"
ew_expect_rc 2 "job keycheck without a key is a usage error" "$CTL" job keycheck ewA
ew_check "the key appears in no output" sh -c "
	! { '$CTL' job show ewA; '$CTL' -j job show ewA; '$CTL' -j stats; } |
	grep -qi '$KEY'"

# --- a pair with the application's random PSNs gets the keyed ones ------------
mkfifo "$EW_TMP/go"
exec 3<>"$EW_TMP/go"
ew_in_cg /ewA "$VERBS" rc-pair-hold "$DEV" "${IDX:-1}" 20 <"$EW_TMP/go" \
	>"$EW_TMP/pair" 2>&1 &
PAIR=$!
ew_check "job A's pair of RC QPs is connected" \
	ew_wait_for 60 grep -qx connected "$EW_TMP/pair"
sed 's/^/# pair: /' "$EW_TMP/pair"
field() { sed -n "s/^$1 .* $2 \(0x[0-9a-f]*\).*/\1/p" "$EW_TMP/pair"; }
Q1=$(($(sed -n 's/^qp1 qpn \(0x[0-9a-f]*\) .*/\1/p' "$EW_TMP/pair")))
Q2=$(($(sed -n 's/^qp2 qpn \(0x[0-9a-f]*\) .*/\1/p' "$EW_TMP/pair")))
ew_check "QP1's PSNs are the keyed ones of QP1<->QP2, not the application's" \
	psns_keyed "$Q1" "$(field qp1 rq-psn)" "$(field qp1 sq-psn)"
ew_check "QP2's likewise" \
	psns_keyed "$Q2" "$(field qp2 rq-psn)" "$(field qp2 sq-psn)"
echo go >&3
wait $PAIR
PAIR_RC=$?
ew_check "both ends agree: 20 messages each way carried and verified" \
	sh -c "[ $PAIR_RC -eq 0 ] && grep -q 'verified 20 messages each way' '$EW_TMP/pair'"
exec 3>&-
tail -n 3 "$EW_TMP/pair" | sed 's/^/# pair: /'

# hold_self OUT DESC: job A's QP connected to itself asking for PSN 0 (as
# NCCL does), held in the background (HOLD), its output in $EW_TMP/OUT;
# checks (DESC) that it connected; its number in HELD.
hold_self() {
	ew_in_cg /ewA "$VERBS" rc-hold "$DEV" "${IDX:-1}" "$LOOP" self 30 \
		>"$EW_TMP/$1" 2>&1 &
	HOLD=$!
	ew_check "$2" ew_wait_for 30 grep -qx connected "$EW_TMP/$1"
	HELD=$(($(sed -n 's/^qpn \(0x[0-9a-f]*\)$/\1/p' "$EW_TMP/$1")))
}
release() {
	kill $HOLD 2>/dev/null
	wait $HOLD 2>/dev/null
}

# --- PSN 0 from the application ------------------------------------------------
hold_self zero "a connect asking for PSN 0 (as NCCL does) is allowed"
ew_check "it got the keyed PSNs, not 0" psns_keyed "$HELD" 0 0
release

# --- the same name again, its next run: the next run's key --------------------
ew_check "job A deleted" "$CTL" job del ewA
ew_check "job A made again under its name, its next run (a requeue)" \
	"$CTL" job add ewA cgroup /ewA peer "$LOOP" psn keyed psn-keyfile "$KEYFILE" \
	psn-run "$RUN2"
OLDKEY=$KEY
KEY=$(python3 "$KDF" psn-key "$KEYFILE" ewA "$RUN2")
hold_self rerun "the next run's connect asking for PSN 0 is allowed"
ew_check "it got the PSNs of the next run's key" psns_keyed "$HELD" 0 0
KEY=$OLDKEY
ew_check "not those the earlier run's key gives the same connection" \
	not_keyed "$HELD"
KEY=$(python3 "$KDF" psn-key "$KEYFILE" ewA "$RUN2")
release

# --- real clients ------------------------------------------------------------
ew_pingpong_lo "ibv_rc_pingpong (exchanges its own PSNs): 20 verified round trips" \
	/ewA "$IDX"
# rping CGROUP: 5 verified rdma_cm pings over lo between two processes in
# CGROUP; the client's output in $EW_TMP/rping-c.
rping_pair() {
	ew_in_cg "$1" timeout 60 rping -s -a "$LOOP" -C 5 -v >"$EW_TMP/rping-s" 2>&1 &
	_rs=$!
	sleep 2
	ew_in_cg "$1" timeout 60 rping -c -a "$LOOP" -C 5 -v >"$EW_TMP/rping-c" 2>&1
	_rc=$(ew_rping_status "$EW_TMP/rping-c" $?)
	kill $_rs 2>/dev/null
	wait $_rs 2>/dev/null
	return $_rc
}
if command -v rping >/dev/null; then
	if rping_pair /ewA; then
		ew_ok "rping (rdma_cm): 5 verified pings"
	else
		# rdma_cm on this bed may not resolve a route over lo at all:
		# the same pings by a job with the application's PSNs tell.
		_keyed=$(tr '\n' ' ' <"$EW_TMP/rping-c")
		"$CTL" job add ewC cgroup /ewC peer "$LOOP" >/dev/null
		if rping_pair /ewC; then
			ew_not_ok "rping (rdma_cm): 5 verified pings" \
				"keyed: $_keyed; with psn app it works"
		else
			ew_skip_one "rping (rdma_cm): 5 verified pings" \
				"rdma_cm over lo fails with psn app too: $(tr '\n' ' ' <"$EW_TMP/rping-c")"
		fi
		"$CTL" job del ewC >/dev/null
	fi
else
	ew_skip_one "rping (rdma_cm): 5 verified pings" "rping (rdmacm-utils) is not installed"
fi

# --- bad input changes nothing ----------------------------------------------------
ew_expect_rc 1 "job C: psn keyed without a key is refused by the kernel" \
	"$CTL" job add ewC cgroup /ewC peer "$LOOP" psn keyed
ew_check "... and job C does not exist" sh -c "! '$CTL' job show ewC >/dev/null 2>&1"
ew_expect_rc 2 "a psn-key of 31 hex digits is a usage error" \
	"$CTL" job add ewC cgroup /ewC psn keyed psn-key 000102030405060708090a0b0c0d0e0
ew_expect_rc 2 "a psn-key with a non-hex digit is a usage error" \
	"$CTL" job add ewC cgroup /ewC psn keyed psn-key 000102030405060708090a0b0c0d0e0g
ew_expect_rc 1 "a psn-key with psn app is refused" \
	"$CTL" job set ewA psn app psn-key 000102030405060708090a0b0c0d0e0f
ew_expect_rc 2 "psn random is a usage error" "$CTL" job set ewA psn random
ew_expect_rc 2 "a key file without a run is a usage error" \
	"$CTL" job set ewA psn-keyfile "$KEYFILE"
ew_expect_rc 2 "a run without a key file is a usage error" \
	"$CTL" job set ewA psn-run "$RUN1"
ew_expect_rc 2 "a run with a blank is a usage error" \
	"$CTL" job set ewA psn-keyfile "$KEYFILE" psn-run "1 2"
ew_check "job A is still keyed, with its run and its key's check value" \
	sh -c "'$CTL' job show ewA | grep -q ' psn keyed psn-run $RUN2 psn-key-check $CHK2\$'"
ew_check "a rename without a new key forgets the run (the key is the old name's)" sh -c "
	'$CTL' job set ewA name ewR &&
	'$CTL' job show ewR | grep -q ' psn keyed psn-key-check $CHK2\$'"
ew_check "a rename with the new name's key keeps its run" sh -c "
	'$CTL' job set ewR name ewA psn-keyfile '$KEYFILE' psn-run $RUN2 &&
	'$CTL' job show ewA | grep -q ' psn keyed psn-run $RUN2 psn-key-check $CHK2\$'"
ew_check "a key by value forgets the run; the check value is the new key's" sh -c "
	'$CTL' job set ewA psn-key 000102030405060708090a0b0c0d0e0f &&
	'$CTL' job show ewA | grep -q ' psn keyed psn-key-check 0xfb1e38ec\$'"

# --- psn app: the application's PSNs again; the key is forgotten --------------
ew_check "job A back to psn app" "$CTL" job set ewA psn app
ew_check_not "... and no check value is reported (text and JSON)" sh -c "
	{ '$CTL' job show ewA; '$CTL' -j job show ewA; } | grep -q 'psn.key.check'"
ew_expect_rc 1 "psn keyed again without a key is refused (the key was forgotten)" \
	"$CTL" job set ewA psn keyed
ew_in_cg /ewA "$VERBS" rc-hold "$DEV" "${IDX:-1}" "$LOOP" self 30 \
	>"$EW_TMP/app" 2>&1 &
HOLD=$!
ew_wait_for 30 grep -qx connected "$EW_TMP/app"
QA=$(($(sed -n 's/^qpn \(0x[0-9a-f]*\)$/\1/p' "$EW_TMP/app")))
ew_check "with psn app a connect keeps the application's PSN 0" \
	sh -c "qp=\$(rdma -j res show qp | python3 -c '
import json, sys
print([q for q in json.load(sys.stdin) if q[\"lqpn\"] == $QA][0][\"rq-psn\"])'); [ \"\$qp\" = 0 ]"
kill $HOLD 2>/dev/null
wait $HOLD 2>/dev/null

ew_check "rxe0 deleted" rdma link delete "$DEV"
ew_check "eastwest unloads" ew_unload
ew_done
