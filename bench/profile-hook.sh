#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 1
# ew-timeout: 900
#
# Where does the modify hook spend its time? Runs modify_cost (CYCLES
# connection cycles of two RC QPs on rxe over lo) enforcing, the caller in
# a job, with function_graph on ib_modify_qp_with_udata and everything it
# calls, eastwest's hook included, and prints per function the total time
# and calls ("# prof:" lines). Run it with guest time = instructions
# (EW_VM_ICOUNT=0 EW_VM_SMP=1 selftests/vm/run bench/profile-hook.sh) so
# that times are work, not host load. A diagnosis tool for
# Documentation/benchmarks.md, not part of make bench.

. "$(dirname "$0")/../selftests/lib.sh"

COST=$EW_TOP/bench/modify_cost
TR=/sys/kernel/tracing
CG=/sys/fs/cgroup
CYCLES=${EW_PROFILE_CYCLES:-20}

ew_require_root
ew_require_built bench/modify_cost tracefs
ew_tmp_dir
ew_defer "rmdir $CG/ewprof"
ew_defer "rdma link delete rxe0"
ew_defer "ew_rmmod"

# graph LABEL: modify_cost under function_graph (depth 3 below the verb).
graph() {
	echo 0 >"$TR/tracing_on"
	echo nop >"$TR/current_tracer"
	: >"$TR/trace"
	echo ib_modify_qp_with_udata >"$TR/set_graph_function"
	echo 3 >"$TR/max_graph_depth"
	echo 65536 >"$TR/buffer_size_kb"
	echo function_graph >"$TR/current_tracer"
	echo 1 >"$TR/tracing_on"
	ew_in_cg /ewprof "$COST" rxe0 "$GIDX" 127.0.0.1 "$CYCLES" >/dev/null || return 1
	echo 0 >"$TR/tracing_on"
	# "  0)   1.234 us    |      func();" or "} /* func */" closing lines.
	awk -v l="$1" '
		/\|/ {
			line = $0; sub(/^.*\| */, "", line)
			if (match($0, /[0-9.]+ us/)) {
				d = substr($0, RSTART, RLENGTH - 3) + 0
				f = line; gsub(/[{}();]/, "", f); sub(/^\/\* */, "", f); sub(/ *\*\/$/, "", f)
				gsub(/ /, "", f)
				t[f] += d; n[f]++
			}
		}
		END { for (f in t) printf "# prof: %s %s total_us %.1f calls %d per_call_us %.3f\n", l, f, t[f], n[f], t[f] / n[f] }' \
		"$TR/trace" | sort -t' ' -k6,6gr | head -40 >>"$EW_TMP/out"
	echo nop >"$TR/current_tracer"
	: >"$TR/set_graph_function"
}

ew_plan 4
ew_check "rxe0 on lo" ew_rxe_add rxe0 lo
GIDX=$(ew_wait_gid_index rxe0 127.0.0.1) || ew_bail "no RoCE v2 GID for 127.0.0.1"
mkdir -p "$CG/ewprof"
ew_check "module absent: graph" graph absent
ew_check "eastwest.ko loads" ew_load
"$CTL" config set mode enforce >/dev/null
"$CTL" job add prof cgroup /ewprof peer 127.0.0.1 >/dev/null
ew_check "enforcing: graph" graph enforce
cat "$EW_TMP/out"
ew_done
