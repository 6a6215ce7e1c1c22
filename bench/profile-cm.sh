#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 1
# ew-timeout: 1800
#
# Where does an rdma_cm connect spend its time with eastwest enforcing?
# Runs cm_rate (CONNECTS connects over a second rxe device on a dummy
# netdev, as bench/modify.sh does) three times, the module loaded:
# audit with the caller in no cgroup ("audit"), audit with the caller in
# cgroup /ewprof that no job claims ("auditcg": the memory-cgroup cost of
# a non-root caller, eastwest's no-job path), and enforcing with /ewprof
# the cgroup of job "prof" ("enforce"). Each run is under function_graph
# with set_ftrace_filter on eastwest's functions, the RDMA modules'
# (ib_core, ib_uverbs, rdma_cm, rdma_ucm, rdma_rxe) and a few core
# allocation, RCU and cgroup-charge functions, and the script prints per
# function and run the inclusive time and calls ("# prof:" lines, sorted by
# time) and cm_rate's own figures ("# cm:" lines). Run it with guest time =
# instructions (EW_VM_ICOUNT=0 EW_VM_SMP=1 selftests/vm/run --kernel 6.12
# bench/profile-cm.sh) so that times are work, not host load; the tracer
# inflates every traced call alike, so compare runs, not absolute times.
# A diagnosis tool for Documentation/benchmarks.md, not part of make bench.

. "$(dirname "$0")/../selftests/lib.sh"

CMR=$EW_TOP/bench/cm_rate
TR=/sys/kernel/tracing
CG=/sys/fs/cgroup
CONNECTS=${EW_PROFILE_CONNECTS:-20}
CM_PORT=7471
CM_NETDEV=ewcm0
CM_ADDR=198.51.100.77

ew_require_root
ew_require_built ctl bench/cm_rate tracefs rdma_cm
ew_tmp_dir
ew_defer "rmdir $CG/ewprof"
ew_defer "ip link delete $CM_NETDEV"
ew_defer "rdma link delete rxecm"
ew_defer "ew_rmmod"

cm_dev() {
	ew_dummy_add "$CM_NETDEV" "$CM_ADDR/24" && ew_rxe_add rxecm "$CM_NETDEV"
}

# filter: the traced functions (the modules must be loaded).
filter() {
	: >"$TR/set_ftrace_filter"
	for m in eastwest ib_core ib_uverbs rdma_cm rdma_ucm rdma_rxe iw_cm; do
		[ -d "/sys/module/$m" ] || continue
		echo ":mod:$m" >>"$TR/set_ftrace_filter" || return 1
	done
	for f in __kmalloc kmalloc_trace __kmalloc_cache_noprof __kmalloc_noprof \
		kmem_cache_alloc kmem_cache_alloc_noprof kfree kmem_cache_free \
		call_rcu queue_rcu_work synchronize_rcu synchronize_rcu_expedited \
		rcu_barrier flush_work flush_workqueue __flush_workqueue \
		obj_cgroup_charge __memcg_kmem_charge_page __mem_cgroup_charge \
		vmalloc_user __vmalloc_node_range __vmalloc_node_range_noprof \
		vfree schedule msleep usleep_range_state; do
		echo "$f" >>"$TR/set_ftrace_filter" 2>/dev/null || :
	done
	echo "# filter: $(wc -l <"$TR/set_ftrace_filter") functions"
}

# graph LABEL [CGROUP]: cm_rate under function_graph.
graph() {
	echo 0 >"$TR/tracing_on"
	echo nop >"$TR/current_tracer"
	: >"$TR/trace"
	filter >/dev/null || return 1
	: >"$TR/set_graph_function"
	echo 0 >"$TR/max_graph_depth"
	echo 1 >"$TR/options/funcgraph-tail"
	echo 131072 >"$TR/buffer_size_kb"
	sync
	sleep 3
	echo function_graph >"$TR/current_tracer"
	echo 1 >"$TR/tracing_on"
	if [ -n "${2:-}" ]; then
		ew_in_cg "$2" "$CMR" "$CM_ADDR" "$CM_PORT" "$CONNECTS"
	else
		"$CMR" "$CM_ADDR" "$CM_PORT" "$CONNECTS"
	fi >"$EW_TMP/cm" || { echo 0 >"$TR/tracing_on"; return 1; }
	echo 0 >"$TR/tracing_on"
	sed "s/^/# cm: $1 /" "$EW_TMP/cm" >>"$EW_TMP/out"
	grep -H . "$TR"/per_cpu/cpu*/stats | grep -E "overrun|dropped" |
		sed "s/^/# stats: $1 /" >>"$EW_TMP/out"
	# "  0)   1.234 us    |  func();" leaf lines and "} /* func */" closing
	# lines (funcgraph-tail) carry a duration.
	awk -v l="$1" -v n="$CONNECTS" '
		/\|/ {
			line = $0; sub(/^[^|]*\| */, "", line)
			if (match($0, /[0-9.]+ us/)) {
				d = substr($0, RSTART, RLENGTH - 3) + 0
				f = line; gsub(/[{}();]/, "", f); sub(/^\/\* */, "", f); sub(/ *\*\/$/, "", f)
				gsub(/ /, "", f)
				if (f == "") next
				t[f] += d; c[f]++
			}
		}
		END { for (f in t) printf "# prof: %s %s total_us %.1f calls %d per_connect_us %.2f calls_per_connect %.2f\n", l, f, t[f], c[f], t[f] / n, c[f] / n }' \
		"$TR/trace" | sort -t' ' -k6,6gr | head -150 >>"$EW_TMP/out"
	echo nop >"$TR/current_tracer"
	: >"$TR/set_ftrace_filter"
}

ew_plan 5
ew_check "rxecm on dummy $CM_NETDEV ($CM_ADDR)" cm_dev
mkdir -p "$CG/ewprof"
ew_check "eastwest.ko loads" ew_load
"$CTL" config set mode audit >/dev/null
ew_check "audit, caller in no cgroup: graph" graph audit
ew_check "audit, caller in /ewprof (no job): graph" graph auditcg /ewprof
"$CTL" config set mode enforce >/dev/null
"$CTL" job add prof cgroup /ewprof peer 127.0.0.1 peer "$CM_ADDR" >/dev/null
ew_check "enforcing, caller in job prof: graph" graph enforce /ewprof
cat "$EW_TMP/out"
ew_done
