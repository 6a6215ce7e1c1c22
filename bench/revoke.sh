#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 1
# ew-timeout: 2400
#
# Revocation latency (P4): a job with NQPS live (RTR) QPs, all tracked by
# eastwest; the time from "eastwestctl job del" to the last of them in the
# error state (bench/qp_revoke counts the QP-fatal events). ROUNDS rounds.
# Prints "# bench: revoke ..." lines.

. "$(dirname "$0")/../selftests/lib.sh"

# shellcheck disable=SC1091
[ -f "$EW_TOP/build/bench.env" ] && . "$EW_TOP/build/bench.env"
CTL=$EW_TOP/userspace/eastwestctl
QPR=$EW_TOP/bench/qp_revoke
CG=/sys/fs/cgroup
ROUNDS=${EW_BENCH_REVOKE_ROUNDS:-2}
NQPS=${EW_BENCH_QPS:-10000}

ew_require_root
[ -x "$CTL" ] || ew_skip "eastwestctl is not built"
[ -x "$QPR" ] || ew_skip "bench/qp_revoke is not built (make -C bench)"
EW_TMP=$(mktemp -d)
ew_defer "rm -rf $EW_TMP"
ew_defer "rmdir $CG/ewrevoke"
ew_defer "rdma link delete rxe0"
ew_defer "rmmod eastwest"

# revoke_round: NQPS QPs in a fresh job, delete the job, time it.
revoke_round() {
	"$CTL" job add victim cgroup /ewrevoke peer 127.0.0.1 >/dev/null || return 1
	ew_in_cg_bg /ewrevoke "$QPR" rxe0 "$GIDX" 127.0.0.1 "$NQPS" 600 >"$EW_TMP/qpr" 2>&1
	_pid=$EW_BG_PID
	_t0=$(date +%s)
	until grep -q '^ready' "$EW_TMP/qpr"; do
		kill -0 "$_pid" 2>/dev/null || { cat "$EW_TMP/qpr" >&2; return 1; }
		sleep 1
	done
	_setup=$(($(date +%s) - _t0))
	_tracked=$("$CTL" -j job show victim | python3 -c 'import json,sys; j=json.load(sys.stdin); j=j[0] if isinstance(j, list) else j; print(j.get("qp_count", j.get("qps", "?")))')
	_t0=$(date +%s%N)
	if [ -n "${EW_BENCH_PROFILE:-}" ]; then
		# Diagnosis only: where the deletion spends its time.
		perf record -q -e cpu-clock -F 2000 -a -g -o "$EW_TMP/perf.data" -- \
			"$CTL" job del victim || return 1
	else
		"$CTL" job del victim || return 1
	fi
	_t1=$(date +%s%N)
	wait "$_pid"
	_rc=$?
	_done=$(awk '/^all_error_realtime_ns/ { print $2 }' "$EW_TMP/qpr")
	if [ -n "${EW_BENCH_PROFILE:-}" ]; then
		perf report -i "$EW_TMP/perf.data" --stdio --no-children --sort comm,sym \
			-g none --percent-limit 1 2>/dev/null | grep -v '^#' | grep -v '^$' |
			head -30 | sed 's/^/# prof: /'
	fi
	awk -v r="$round" -v n="$NQPS" -v t="$_tracked" -v s="$_setup" \
		-v del=$(((_t1 - _t0) / 1000000)) -v all="${_done:-0}" -v t0="$_t0" '
		/^fatal_events/ { f = $2; e = $4 }
		END { printf "# bench: revoke round %d qps %d tracked %s setup_s %d del_cmd_ms %d" \
		      " all_error_ms %s fatal %d in_error %d\n", r, n, t, s, del,
		      all ? sprintf("%.1f", (all - t0) / 1e6) : "nan", f, e }' \
		"$EW_TMP/qpr" >>"$EW_TMP/out"
	return "$_rc"
}

ew_plan $((2 + ROUNDS))
ew_check "rxe0 on lo" ew_rxe_add rxe0 lo
GIDX=$(ew_wait_gid_index rxe0 127.0.0.1) || ew_bail "no RoCE v2 GID for 127.0.0.1"
mkdir -p "$CG/ewrevoke"
ew_check "eastwest.ko loads" ew_load
"$CTL" config set mode enforce >/dev/null
round=1
while [ "$round" -le "$ROUNDS" ]; do
	ew_check "round $round: $NQPS tracked QPs revoked by job del" revoke_round
	round=$((round + 1))
done
cat "$EW_TMP/out"
ew_done
