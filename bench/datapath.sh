#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 1
# ew-timeout: 1500
#
# Data-path cost (P2): ib_write_bw bandwidth and ib_send_lat latency over
# soft-RoCE on lo (server and client in this one guest), with the module
# absent and enforcing (both processes in job "bench", peer 127.0.0.1), in
# ROUNDS interleaved rounds (ABBA order). eastwest does no per-packet work,
# so the ratio measures the noise of the machine. Prints "# bench: data ..."
# lines.

. "$(dirname "$0")/../selftests/lib.sh"

# shellcheck disable=SC1091
[ -f "$EW_TOP/build/bench.env" ] && . "$EW_TOP/build/bench.env"
CG=/sys/fs/cgroup
ROUNDS=${EW_BENCH_DATA_ROUNDS:-4}
BW_ITERS=${EW_BENCH_BW_ITERS:-300}
LAT_ITERS=${EW_BENCH_LAT_ITERS:-300}

ew_require_root
ew_require_cmd ib_write_bw ib_send_lat timeout
ew_require_built ctl
ew_tmp_dir
ew_defer "rmdir $CG/ewbench"
ew_defer "rdma link delete rxe0"
ew_defer "ew_rmmod"

# pair NAME TOOL ARGS...: server and client of one perftest run, both in
# /ewbench; the client's output in $EW_TMP/NAME.
pair() {
	_name=$1
	shift
	ew_in_cg_bg /ewbench timeout 600 "$@" -d rxe0 -x "$GIDX" >"$EW_TMP/$_name.srv" 2>&1
	_srv=$EW_BG_PID
	ew_wait_listen 18515 || { kill "$_srv"; return 1; }
	ew_in_cg /ewbench timeout 600 "$@" -d rxe0 -x "$GIDX" 127.0.0.1 >"$EW_TMP/$_name" 2>&1
	_rc=$?
	wait "$_srv" || _rc=1
	[ "$_rc" -eq 0 ] || sed 's/^/# /' "$EW_TMP/$_name" "$EW_TMP/$_name.srv"
	return "$_rc"
}

# measure CONFIG: one bandwidth and one latency run.
measure() {
	pair "bw-$1-$round" ib_write_bw -s 65536 -n "$BW_ITERS" -F || return 1
	pair "lat-$1-$round" ib_send_lat -s 64 -n "$LAT_ITERS" -F || return 1
	bw=$(awk '$1 == 65536 && NF >= 5 { print $4 }' "$EW_TMP/bw-$1-$round" | tail -n 1)
	lat=$(awk '$1 == 64 && NF >= 6 { print $6 }' "$EW_TMP/lat-$1-$round" | tail -n 1)
	echo "# bench: data $1 round $round bw_MBps ${bw:-nan} lat_us ${lat:-nan}" >>"$EW_TMP/out"
	[ -n "$bw" ] && [ -n "$lat" ]
}

# hooked_calls ITERS: run ib_write_bw for ITERS messages (enforcing) with
# the function tracer on every kernel function eastwest hooks (read from
# enabled_functions) and on ib_uverbs_post_send, the data path's entry.
# Prints "HOOKED_CALLS POST_SEND_CALLS".
TR=/sys/kernel/tracing
hooked_calls() {
	_fns=$(awk '/\[eastwest\]/ { print $1 }' "$TR/enabled_functions" | sort -u)
	[ -n "$_fns" ] || return 1
	echo 0 >"$TR/tracing_on"
	echo "$_fns ib_uverbs_post_send" | tr ' ' '\n' >"$TR/set_ftrace_filter"
	echo 16384 >"$TR/buffer_size_kb"
	echo function >"$TR/current_tracer"
	: >"$TR/trace"
	echo 1 >"$TR/tracing_on"
	pair "hooks-$1" ib_write_bw -s 65536 -n "$1" -F
	_rc=$?
	echo 0 >"$TR/tracing_on"
	# Count before switching the tracer: that empties the buffer.
	_h=0
	for _f in $_fns; do
		_h=$((_h + $(grep -c " $_f <-" "$TR/trace" || :)))
	done
	_p=$(grep -c ' ib_uverbs_post_send <-' "$TR/trace" || :)
	echo nop >"$TR/current_tracer"
	: >"$TR/set_ftrace_filter"
	: >"$TR/trace"
	echo "$_h $_p"
	return "$_rc"
}

# Zero per-message work, counted: the hooked functions are called as often
# for ITERS messages as for 4 x ITERS (only connection setup calls them),
# while the data path's entry point scales with the messages.
hooks_per_message() {
	_n=$BW_ITERS
	_a=$(hooked_calls "$_n") || return 1
	_b=$(hooked_calls $((_n * 4))) || return 1
	set -- $_a $_b
	echo "# bench: data hooks iters $_n hooked_calls $1 post_send_calls $2" \
		"iters $((_n * 4)) hooked_calls $3 post_send_calls $4" >>"$EW_TMP/out"
	ew_diag "hooked functions: $(awk '/\[eastwest\]/ { print $1 }' "$TR/enabled_functions" | sort -u | tr '\n' ' ')"
	ew_diag "$_n messages: $1 hooked calls, $2 post_send; $((_n * 4)): $3 hooked calls, $4 post_send"
	# The tracer saw the data path (post_send grows with the messages)
	# and the hooked functions did not grow at all.
	[ "$4" -gt "$2" ] && [ "$1" -eq "$3" ] && [ "$1" -gt 0 ]
}

ew_plan $((1 + ROUNDS * 4 + 3))
ew_check "rxe0 on lo" ew_rxe_add rxe0 lo
GIDX=$(ew_wait_gid_index rxe0 127.0.0.1) || ew_bail "no RoCE v2 GID for 127.0.0.1"
mkdir -p "$CG/ewbench"
# Odd rounds measure absent first, even rounds last (ABBA), so that a
# steady drift of the host does not favour either configuration.
round=1
while [ "$round" -le "$ROUNDS" ]; do
	[ $((round % 2)) -eq 0 ] || ew_check "round $round: module absent" measure absent
	ew_check "round $round: eastwest.ko loads" ew_load
	"$CTL" config set mode enforce >/dev/null
	"$CTL" job add bench cgroup /ewbench peer 127.0.0.1 >/dev/null
	ew_check "round $round: enforcing, both ends in the job" measure enforce
	ew_check "round $round: eastwest unloads" ew_unload
	[ $((round % 2)) -eq 1 ] || ew_check "round $round: module absent" measure absent
	round=$((round + 1))
done
# Counted once, enforcing: how often eastwest's hooks run per message.
ew_check "eastwest.ko loads (hook count)" ew_load
"$CTL" config set mode enforce >/dev/null
"$CTL" job add bench cgroup /ewbench peer 127.0.0.1 >/dev/null
if [ -r "$TR/enabled_functions" ]; then
	ew_check "hooked functions run per connection, never per message" hooks_per_message
else
	ew_skip_one "hooked functions per message" "no tracefs at $TR"
fi
ew_check "eastwest unloads (hook count)" ew_unload
cat "$EW_TMP/out"
ew_done
