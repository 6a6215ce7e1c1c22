#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 1
# ew-timeout: 3000
#
# Control-path cost (P1) and policy push (P3) of eastwest, in one boot, in
# ROUNDS interleaved rounds so that the drift of a TCG guest hits every
# configuration alike. Each round (odd rounds; even rounds measure the
# module absent last instead of first):
#
#   module absent          -> modify cost, rdma_cm connect rate, each in
#                             no cgroup and in the bench job's cgroup
#   loaded, audit, no job  -> modify cost, rdma_cm connect rate
#   apply 1M-peer policy   -> push time (user/sys), kernel memory per peer
#   enforce, 1M peers      -> modify cost, rdma_cm connect rate; one
#                             4096-peer job added (latency, end to end and in
#                             the kernel)
#   apply 100k, 1k, 1 peer -> modify cost at each size (growth); rdma_cm
#                             connect rate at 1 peer; at 1 peer also to a
#                             remote destination and with keyed PSNs (what
#                             the same-node ownership check and keyed PSNs
#                             cost)
#   rmmod                  -> unload time with the policy loaded
#
# The caller of modify_cost and cm_rate is in job "bench" (cgroup /ewbench,
# peers 127.0.0.1, 127.0.0.2 and CM_ADDR) in every enforce measurement; the other jobs
# only fill the tables. The enforce figures are compared with the module
# absent and the caller in that same cgroup ("absent-job"): a task in a
# non-root cgroup pays for memory-cgroup charging in the verbs path (about
# 270 instructions per INIT->RTR on 6.12), eastwest or not. cm_rate connects over a second rxe device, on a
# dummy netdev: rdma_cm takes 127.0.0.0/8 for "any address" and binds it to
# no netdev, so over RoCE it cannot resolve a route to 127.0.0.1 (ENODEV).
# With the module loaded, every cm_rate run must reach eastwest's hook (the
# counters grow by the policed modifies of its connects), and in enforce an
# outsider's connect (no job) must be refused. Prints "# bench: ..." lines
# for bench/run, and "# hook: ..." lines with those checks' figures.

. "$(dirname "$0")/../selftests/lib.sh"

# bench/run passes its settings here (the guest does not inherit them).
# shellcheck disable=SC1091
[ -f "$EW_TOP/build/bench.env" ] && . "$EW_TOP/build/bench.env"
COST=$EW_TOP/bench/modify_cost
CMR=$EW_TOP/bench/cm_rate
CG=/sys/fs/cgroup
TR=/sys/kernel/tracing
CYCLES=${EW_BENCH_CYCLES:-200}
ROUNDS=${EW_BENCH_ROUNDS:-3}
JOBS=${EW_BENCH_JOBS:-10000}
PEERS_PER_JOB=${EW_BENCH_PEERS_PER_JOB:-100}
CM_CONNECTS=${EW_BENCH_CM_CONNECTS:-200}
CM_PORT=7471
CM_NETDEV=ewcm0
CM_ADDR=198.51.100.77
# Judgements per rdma_cm connect. Policed modifies, three on each side:
# ->INIT in rdma_create_qp, then librdmacm's INIT->INIT (the port and
# P_Key of the resolved route) and ->RTR before connecting or accepting
# (->RTS and the disconnect's ->ERR touch no policed attribute). Three
# connection manager messages: the client's connect request, the server's
# accept, and the client's answer to the reply (librdmacm's rdma_accept()
# with no parameters, which sends the RTU). And the request where it
# reaches the server's listener, judged for the listener's job.
CM_CHECKS=10
# A process in no job has no tracking records: its ->RTS is judged too
# (kmod/qpgate.c), one more per side.
CM_CHECKS_NOJOB=12

ew_require_root
ew_require_cmd python3
ew_require_built ctl bench/modify_cost bench/cm_rate rdma_cm
ew_tmp_dir
ew_defer "rmdir $CG/ewbench"
ew_defer "rdma link delete rxe0"
ew_defer "ip link delete $CM_NETDEV"
ew_defer "rdma link delete rxecm"
ew_defer "ew_rmmod"

# settle: let deferred work (table resizes, frees after a grace period)
# finish before a measurement, so that it does not compete for the vCPUs.
settle() {
	sync
	sleep "${EW_BENCH_SETTLE:-3}"
}

# run_in CGROUP CMD...: CMD in CGROUP, or in this shell's if CGROUP is "".
run_in() {
	_cg=$1
	shift
	if [ -n "$_cg" ]; then
		ew_in_cg "$_cg" "$@"
	else
		"$@"
	fi
}

# bench_line KIND LABEL FILE KEY...: one "# bench: KIND LABEL round R KEY
# VALUE..." line of the KEYs of FILE's "key value" lines.
bench_line() {
	awk -v k="$1" -v l="$2" -v r="$round" -v keys="$*" '
		{ v[$1] = $2 }
		END { printf "# bench: %s %s round %d", k, l, r
		      n = split(keys, ks, " ")
		      for (i = 4; i <= n; i++)
			      printf " %s %s", ks[i], v[ks[i]]
		      printf "\n" }' "$3" >>"$EW_TMP/out"
}

# measure LABEL [CGROUP [DGID]]: one modify_cost run; prints its medians.
# The destination is this node's own address unless DGID says otherwise.
measure() {
	settle
	run_in "${2:-}" "$COST" rxe0 "$GIDX" "${3:-127.0.0.1}" "$CYCLES" \
		>"$EW_TMP/cost" || return 1
	bench_line modify "$1" "$EW_TMP/cost" modify_median_ns rtr_median_ns \
		modify_p25_ns rtr_p25_ns reset_median_ns
}

# cm_dev: the rxe device cm_rate connects over (see above).
cm_dev() {
	ew_dummy_add "$CM_NETDEV" "$CM_ADDR/24" && ew_rxe_add rxecm "$CM_NETDEV"
}

# cm LABEL [CGROUP]: one cm_rate run of CM_CONNECTS connects.
cm() {
	settle
	run_in "${2:-}" "$CMR" "$CM_ADDR" "$CM_PORT" "$CM_CONNECTS" \
		>"$EW_TMP/cm" || return 1
	bench_line cm "$1" "$EW_TMP/cm" connects_per_s connect_p25_us \
		connect_median_us connect_p90_us cycle_median_us
}

# cm_hooked LABEL JOB|- COUNTER [CGROUP]: cm, and the decision counter
# COUNTER (of JOB, or of the node with "-") grew by exactly CM_CHECKS per
# connect (CM_CHECKS_NOJOB for the node's, a caller in no job): every
# policed modify of rdma_cm's QPs went through the hook.
cm_hooked() {
	_want=$CM_CHECKS
	[ "$2" = - ] && _want=$CM_CHECKS_NOJOB
	_c0=$(ew_counter "$2" "$3") || return 1
	cm "$1" "${4:-}" || return 1
	_c1=$(ew_counter "$2" "$3") || return 1
	[ "$2" = - ] && set -- "$1" node "$3"
	echo "# hook: cm $1 round $round: $3 of $2 +$((_c1 - _c0)) for" \
		"$CM_CONNECTS connects (want $((CM_CONNECTS * _want)))" | tee -a "$EW_TMP/out"
	[ $((_c1 - _c0)) -eq $((CM_CONNECTS * _want)) ]
}

# cm_outsider: a connect from outside every job is refused (cm_rate exits
# 13), and counted as one denied-no-job (the client's INIT).
cm_outsider() {
	_c0=$(ew_counter - denied-no-job) || return 1
	"$CMR" "$CM_ADDR" "$CM_PORT" 1 >"$EW_TMP/cm" 2>&1
	_rc=$?
	_c1=$(ew_counter - denied-no-job) || return 1
	sed 's/^/# /' "$EW_TMP/cm"
	echo "# hook: outsider round $round: cm_rate exit $_rc (want 13)," \
		"denied-no-job +$((_c1 - _c0)) (want 1)" | tee -a "$EW_TMP/out"
	[ "$_rc" -eq 13 ] && [ $((_c1 - _c0)) -eq 1 ]
}

# policy FILE JOBS: the bench job plus JOBS filler jobs of PEERS_PER_JOB.
policy() {
	python3 - "$2" "$PEERS_PER_JOB" "$CM_ADDR" >"$1" <<'PY'
import json, sys
jobs, per = int(sys.argv[1]), int(sys.argv[2])
out = [{"id": 1, "name": "bench", "mode": "enforce", "cgroups": ["/ewbench"],
        "peers": ["127.0.0.1", "127.0.0.2", sys.argv[3]]}]
for j in range(jobs):
    out.append({"id": 100 + j, "name": "load%d" % j, "peers": [
        "10.%d.%d.%d" % (p >> 16, (p >> 8) & 255, p & 255)
        for p in range(j * per, (j + 1) * per)]})
json.dump({"jobs": out}, sys.stdout)
PY
}

# Kernel memory in kB: slab, vmalloc (the peer table's buckets), per-CPU.
kmem() { awk '/^(Slab|VmallocUsed|Percpu):/ { s += $2 } END { print s }' /proc/meminfo; }
vmalloc_kb() { awk '/^VmallocUsed:/ { print $2 }' /proc/meminfo; }
# Bytes of slab per peer entry: the ew_peer cache's slab size divided by
# the objects it holds (SLUB may merge the cache with another of the same
# size, so its own object count is not visible; its geometry is).
entry_bytes() {
	_d=/sys/kernel/slab/ew_peer
	[ -r "$_d/order" ] || { echo nan; return; }
	echo $(((4096 << $(cat "$_d/order")) * 10 / $(cat "$_d/objs_per_slab"))) |
		sed 's/\(.\)$/.\1/'
}

# apply_timed LABEL FILE NPEERS: apply a policy; time, user and sys.
apply_timed() {
	sync
	_m0=$(kmem) _v0=$(vmalloc_kb)
	_t0=$(date +%s%N)
	bash -c "{ time -p $CTL apply -f $2 >/dev/null; } 2>$EW_TMP/time" || return 1
	_t1=$(date +%s%N)
	settle
	_m1=$(kmem) _v1=$(vmalloc_kb)
	awk -v l="$1" -v r="$round" -v n="$3" -v ms=$(((_t1 - _t0) / 1000000)) \
		-v m="$((_m1 - _m0))" -v v="$((_v1 - _v0))" -v e="$(entry_bytes)" '
		/^user/ { u = $2 } /^sys/ { s = $2 }
		END { printf "# bench: push %s round %d peers %d ms %d user_s %s sys_s %s" \
		      " kmem_B_per_peer %.1f entry_B %s table_B_per_peer %.1f\n",
		      l, r, n, ms, u, s, m * 1024 / n, e, v * 1024 / n }' \
		"$EW_TMP/time" >>"$EW_TMP/out"
}

# job4096: add one 4096-peer job; end-to-end time of the eastwestctl run
# and the kernel's time in the requests (function_graph on the two
# handlers only: set_ftrace_filter leaves every other function untraced).
job4096() {
	settle
	if [ -w "$TR/current_tracer" ]; then
		echo 0 >"$TR/tracing_on"
		: >"$TR/trace"
		echo 'eastwest_nl_job_new_doit eastwest_nl_peer_add_doit' >"$TR/set_ftrace_filter"
		echo 1 >"$TR/max_graph_depth"
		echo function_graph >"$TR/current_tracer"
		echo 1 >"$TR/tracing_on"
	fi
	_t0=$(date +%s%N)
	"$CTL" -b "$EW_TMP/one" >/dev/null || return 1
	_t1=$(date +%s%N)
	_k=nan
	if [ -w "$TR/current_tracer" ]; then
		echo 0 >"$TR/tracing_on"
		# Durations in us: "  0)  # 1234.567 us  |  eastwest_nl_...();"
		_k=$(grep -o '[0-9.]* us' "$TR/trace" | awk '{ s += $1 } END { printf "%.2f", s / 1000 }')
		echo nop >"$TR/current_tracer"
		: >"$TR/set_ftrace_filter"
	fi
	"$CTL" job del big4096 >/dev/null || return 1
	echo "# bench: job4096 round $round ms $(((_t1 - _t0) / 1000000)) kernel_ms $_k" >>"$EW_TMP/out"
}

# keyed LABEL: measure with the bench job's PSNs keyed, then back to the
# application's.
keyed() {
	"$CTL" job set bench psn keyed psn-key 000102030405060708090a0b0c0d0e0f \
		>/dev/null || return 1
	measure "$1" /ewbench || return 1
	"$CTL" job set bench psn app >/dev/null
}

# shrink LABEL FILE: apply a smaller policy, then measure.
shrink() {
	"$CTL" apply -f "$2" >/dev/null && measure "$1" /ewbench
}

# absent_checks: the round's measurements without the module, the baseline.
absent_checks() {
	ew_check "round $round: module absent" measure absent
	ew_check "round $round: module absent, rdma_cm" cm absent
	ew_check "round $round: module absent, caller in /ewbench" \
		measure absent-job /ewbench
	ew_check "round $round: module absent, caller in /ewbench, a remote destination" \
		measure absent-job-remote /ewbench 127.0.0.2
	ew_check "round $round: module absent, caller in /ewbench, rdma_cm" \
		cm absent-job /ewbench
}

ew_plan $((3 + ROUNDS * 21))

ew_check "rxe0 on lo" ew_rxe_add rxe0 lo
GIDX=$(ew_wait_gid_index rxe0 127.0.0.1) || ew_bail "no RoCE v2 GID for 127.0.0.1"
ew_check "rxecm on dummy $CM_NETDEV ($CM_ADDR), for rdma_cm" cm_dev
ew_wait_gid_index rxecm "$CM_ADDR" >/dev/null || ew_bail "no RoCE v2 GID for $CM_ADDR"
mkdir -p "$CG/ewbench"
npeers=$((JOBS * PEERS_PER_JOB))
policy "$EW_TMP/p-big.json" "$JOBS"
policy "$EW_TMP/p-mid.json" $((JOBS / 10))
policy "$EW_TMP/p-small.json" $((1000 / PEERS_PER_JOB))
policy "$EW_TMP/p-one.json" 0
python3 -c '
print("job add big4096 id 99999 " + " ".join("peer 172.16.%d.%d" % (p >> 8, p & 255) for p in range(4096)))' >"$EW_TMP/one"
ew_check "policies written ($JOBS jobs x $PEERS_PER_JOB peers)" test -s "$EW_TMP/p-big.json"

round=1
while [ "$round" -le "$ROUNDS" ]; do
	# Absent first in odd rounds, last in even ones (see datapath.sh).
	if [ $((round % 2)) -eq 1 ]; then
		absent_checks
	fi
	ew_check "round $round: eastwest.ko loads" ew_load
	"$CTL" config set mode audit >/dev/null
	ew_check "round $round: audit, caller in no job" measure audit
	ew_check "round $round: audit, rdma_cm: each connect audited $CM_CHECKS_NOJOB times" \
		cm_hooked audit - audited
	"$CTL" config set mode enforce >/dev/null
	ew_check "round $round: apply $npeers peers" \
		apply_timed big "$EW_TMP/p-big.json" "$((npeers + 1))"
	ew_check "round $round: enforce, $npeers peers" measure "enforce-$npeers" /ewbench
	ew_check "round $round: enforce, $npeers peers, rdma_cm: each connect allowed $CM_CHECKS times" \
		cm_hooked "enforce-$npeers" bench allowed /ewbench
	ew_check "round $round: enforce, $npeers peers: an outsider's rdma_cm connect is refused" \
		cm_outsider
	ew_check "round $round: one 4096-peer job" job4096
	ew_check "round $round: enforce, $((npeers / 10)) peers" \
		shrink "enforce-$((npeers / 10))" "$EW_TMP/p-mid.json"
	ew_check "round $round: enforce, 1000 peers" \
		shrink enforce-1000 "$EW_TMP/p-small.json"
	ew_check "round $round: enforce, 1 peer" \
		shrink enforce-1 "$EW_TMP/p-one.json"
	# What a local destination's ownership check costs: the same modify
	# to an address of no local GID (127.0.0.2, a peer too), and to this
	# node's with keyed PSNs.
	ew_check "round $round: enforce, 1 peer, a remote destination" \
		measure enforce-1-remote /ewbench 127.0.0.2
	ew_check "round $round: enforce, 1 peer, keyed PSNs" keyed enforce-1-keyed
	ew_check "round $round: enforce, 1 peer, rdma_cm: each connect allowed $CM_CHECKS times" \
		cm_hooked enforce-1 bench allowed /ewbench
	ew_check "round $round: enforce, 1 peer: an outsider's rdma_cm connect is refused" \
		cm_outsider
	_t0=$(date +%s%N)
	ew_check "round $round: eastwest unloads" ew_unload
	echo "# bench: rmmod round $round ms $((($(date +%s%N) - _t0) / 1000000))" >>"$EW_TMP/out"
	if [ $((round % 2)) -eq 0 ]; then
		absent_checks
	fi
	round=$((round + 1))
done
cat "$EW_TMP/out"
ew_done
