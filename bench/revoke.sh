#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 1
# ew-timeout: 2400
#
# Revocation latency (P4): a job with NQPS live (RTR) QPs, all tracked by
# eastwest; the time from "eastwestctl job del" to the last of them in the
# error state (bench/qp_revoke counts the QP-fatal events). ROUNDS rounds.
# Prints "# bench: revoke ..." lines: all_error_ms is that end-to-end time,
# ctl_ms the cost of starting eastwestctl alone (one "job show"), kernel_ms
# the time the kernel spent in the deletion request (function_graph on its
# handler only).
#
# Diagnosis (not for figures: it slows the deletion): EW_BENCH_PROFILE=perf
# samples all CPUs during round 1's deletion (cpu-clock, 1 kHz, no call
# graphs); EW_BENCH_PROFILE=ftrace times the revocation's steps in round 1
# (function_graph on the functions in EW_PROFILE_FUNCS only).

. "$(dirname "$0")/../selftests/lib.sh"

# shellcheck disable=SC1091
[ -f "$EW_TOP/build/bench.env" ] && . "$EW_TOP/build/bench.env"
QPR=$EW_TOP/bench/qp_revoke
CG=/sys/fs/cgroup
TR=/sys/kernel/tracing
EW_PROFILE_FUNCS=${EW_PROFILE_FUNCS:-eastwest_nl_job_del_doit ew_job_delete
ib_modify_qp rxe_modify_qp ib_uverbs_qp_event_handler ew_event_report _printk
__wake_up __cond_resched kmem_cache_free ew_event_worker genlmsg_multicast_allns}
ROUNDS=${EW_BENCH_REVOKE_ROUNDS:-2}
NQPS=${EW_BENCH_QPS:-10000}

ew_require_root
ew_require_built ctl bench/qp_revoke
ew_tmp_dir
ew_defer "rmdir $CG/ewrevoke"
ew_defer "rdma link delete rxe0"
ew_defer "ew_rmmod"

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
	_c0=$(date +%s%N)
	"$CTL" job show victim >/dev/null || return 1
	_c1=$(date +%s%N)
	_prof=
	[ "$round" = 1 ] && _prof=${EW_BENCH_PROFILE:-}
	# A listener on the events group: every revoked QP must reach it.
	"$CTL" -j monitor >"$EW_TMP/events" 2>"$EW_TMP/events.err" &
	_mon=$!
	ew_monitor_wait "$_mon" || return 1
	trace_start "$_prof"
	_t0=$(date +%s%N)
	if [ "$_prof" = perf ]; then
		perf record -q -e cpu-clock -F 1000 -a -o "$EW_TMP/perf.data" -- \
			"$CTL" job del victim || return 1
	else
		"$CTL" job del victim || return 1
	fi
	_t1=$(date +%s%N)
	wait "$_pid"
	_rc=$?
	_k=$(trace_stop "$_prof")
	# The monitor drains what is queued, then stops.
	_n=-1
	until [ "$_n" -eq "$(grep -c '"event":"revoke"' "$EW_TMP/events")" ]; do
		_n=$(grep -c '"event":"revoke"' "$EW_TMP/events")
		sleep 2
	done
	kill "$_mon"
	wait "$_mon" 2>/dev/null
	_lost=$(grep -c 'lost' "$EW_TMP/events.err")
	_dropped=$(dmesg | grep -c 'denial events dropped')
	_done=$(awk '/^all_error_realtime_ns/ { print $2 }' "$EW_TMP/qpr")
	if [ "$_prof" = perf ]; then
		perf report -i "$EW_TMP/perf.data" --stdio --no-children --sort comm,dso,sym \
			--percent-limit 0.5 2>/dev/null | grep -v '^#' | grep -v '^$' |
			head -50 | sed 's/^/# prof: /' >>"$EW_TMP/out"
	fi
	awk -v r="$round" -v n="$NQPS" -v t="$_tracked" -v s="$_setup" \
		-v del=$(((_t1 - _t0) / 1000000)) -v all="${_done:-0}" -v t0="$_t0" \
		-v ctl=$(((_c1 - _c0) / 1000000)) -v k="$_k" -v p="$_prof" \
		-v ev="$_n" -v lost="$_lost" -v dropped="$_dropped" '
		/^fatal_events/ { f = $2; e = $4 }
		END { printf "# bench: revoke round %d qps %d tracked %s setup_s %d del_cmd_ms %d" \
		      " all_error_ms %s fatal %d in_error %d ctl_ms %d kernel_ms %s" \
		      " revoke_events %d monitor_lost %d ring_full_lines %d%s\n",
		      r, n, t, s, del, all ? sprintf("%.1f", (all - t0) / 1e6) : "nan",
		      f, e, ctl, k, ev, lost, dropped, p == "" ? "" : " profiled " p }' \
		"$EW_TMP/qpr" >>"$EW_TMP/out"
	[ "$_rc" -eq 0 ] || return "$_rc"
	# Every revoked QP was reported: as many revoke events as QPs tracked.
	[ "$_n" = "$_tracked" ] || { echo "# $_n revoke events for $_tracked QPs" >&2; return 1; }
}

# trace_start PROFILE: function_graph on the deletion handler alone, or
# (PROFILE ftrace) on every function of EW_PROFILE_FUNCS that exists.
trace_start() {
	[ -w "$TR/current_tracer" ] || return 0
	echo 0 >"$TR/tracing_on"
	echo nop >"$TR/current_tracer"
	: >"$TR/trace"
	if [ "$1" = ftrace ]; then
		: >"$TR/set_ftrace_filter"
		for _f in $EW_PROFILE_FUNCS; do
			echo "$_f" >>"$TR/set_ftrace_filter" 2>/dev/null ||
				echo "# prof: no $_f to trace" >>"$EW_TMP/out"
		done
		echo 0 >"$TR/max_graph_depth"
		echo 65536 >"$TR/buffer_size_kb"
		echo 1 >"$TR/options/funcgraph-tail"
	else
		echo eastwest_nl_job_del_doit >"$TR/set_ftrace_filter"
		echo 1 >"$TR/max_graph_depth"
	fi
	echo function_graph >"$TR/current_tracer"
	echo 1 >"$TR/tracing_on"
}

# trace_stop PROFILE: print the handler's time in ms; with PROFILE ftrace,
# also every traced function's calls and total time ("# prof:" lines, kept
# for the end: ew_check drops a passing step's output).
trace_stop() {
	if ! [ -w "$TR/current_tracer" ]; then
		echo nan
		return 0
	fi
	echo 0 >"$TR/tracing_on"
	# "  0) ! 1234.567 us  |  } /* ib_modify_qp */" or "... us | f();"
	awk '/ us +\|/ {
		d = $0; sub(/ us +\|.*/, "", d); sub(/.*[ !#@*+$-]/, "", d)
		f = $0; sub(/.*\| */, "", f); sub(/^} \/\* /, "", f)
		sub(/ \*\/.*/, "", f); sub(/\(\);.*/, "", f); sub(/\[.*/, "", f)
		gsub(/ /, "", f)
		n[f]++; t[f] += d
	}
	END {
		printf "%.1f\n", t["eastwest_nl_job_del_doit"] / 1000
		if (p == "ftrace")
			for (f in n)
				printf "# prof: %-32s calls %7d total_ms %9.1f avg_us %8.2f\n",
				       f, n[f], t[f] / 1000, t[f] / n[f] >>out
	}' out="$EW_TMP/out" p="$1" "$TR/trace"
	if [ "$1" = ftrace ]; then
		echo 0 >"$TR/options/funcgraph-tail"
		echo 1408 >"$TR/buffer_size_kb"
	fi
	echo nop >"$TR/current_tracer"
	: >"$TR/set_ftrace_filter"
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
