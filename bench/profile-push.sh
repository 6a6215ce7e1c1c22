#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 1
# ew-timeout: 1500
#
# Where does a policy push spend its time? Pushes JOBS jobs of PEERS_PER_JOB
# peers with eastwestctl under perf (cpu-clock, all CPUs, call graphs) and
# prints user/sys/real time and the top of the kernel and user profile.
# With EW_BENCH_ONEJOB_PEERS=N instead: one job of N host addresses, pushed
# by "peer add JOB file FILE" and by "apply -f" (the pushes bench/nft.sh
# compares with nft -f), each under perf.
# A diagnosis tool for Documentation/benchmarks.md, not part of make bench.

. "$(dirname "$0")/../selftests/lib.sh"

# reload_module: delete the jobs (they pin the module), rmmod, insmod.
reload_module() {
	ew_rmmod && ew_insmod "$EW_KO"
}

# shellcheck disable=SC1091
[ -f "$EW_TOP/build/bench.env" ] && . "$EW_TOP/build/bench.env"
JOBS=${EW_BENCH_JOBS:-2000}
PEERS_PER_JOB=${EW_BENCH_PEERS_PER_JOB:-100}

ew_require_root
ew_require_cmd perf
ew_tmp_dir
ew_defer "ew_rmmod"

ONEJOB=${EW_BENCH_ONEJOB_PEERS:-0}
if [ "$ONEJOB" -gt 0 ]; then
	ew_plan 4
else
	ew_plan 6
fi
ew_check "eastwest.ko loads" ew_load
python3 - "$JOBS" "$PEERS_PER_JOB" >"$EW_TMP/batch" <<'PY'
import sys
jobs, per = int(sys.argv[1]), int(sys.argv[2])
for j in range(jobs):
    peers = " ".join("peer 10.%d.%d.%d" % (p >> 16, (p >> 8) & 255, p & 255)
                     for p in range(j * per, (j + 1) * per))
    print("job add load%d id %d %s" % (j, 100 + j, peers))
PY
cd "$EW_TMP" || ew_bail "cannot enter $EW_TMP"
# prof TAG DATA: the profile's top by command/object/symbol, and who calls
# the hottest kernel symbols.
prof() {
	perf report -i "$2" --stdio --no-children --sort comm,dso,sym -g none \
		--percent-limit 0.7 2>/dev/null | grep -v '^#' | grep -v '^$' | head -45 |
		sed "s/^/# $1: /"
	perf report -i "$2" --stdio --no-children --comm eastwestctl --sort sym \
		-g caller,2,callee,function,percent --percent-limit 3 2>/dev/null |
		grep -v '^#' | grep -v '^$' | head -80 | sed "s/^/# $1-graph: /"
}
if [ "$ONEJOB" -gt 0 ]; then
	python3 "$EW_TOP/bench/peers.py" "$ONEJOB" "$EW_TMP"
	"$CTL" job add bench id 1 >/dev/null
	ew_check "peer add file, $ONEJOB peers, under perf" perf record -q -e cpu-clock -F 2000 -a -g \
		-o "$EW_TMP/perf3.data" -- \
		bash -c "{ time $CTL peer add bench file $EW_TMP/peers.txt >/dev/null; } 2>$EW_TMP/time"
	sed "s/^/# time peer-add-file: /" "$EW_TMP/time"
	prof prof-file "$EW_TMP/perf3.data"
	ew_check "reload" reload_module
	ew_check "apply -f, one job of $ONEJOB peers, under perf" perf record -q -e cpu-clock -F 2000 -a -g \
		-o "$EW_TMP/perf4.data" -- \
		bash -c "{ time $CTL apply -f $EW_TMP/policy.json >/dev/null; } 2>$EW_TMP/time"
	sed "s/^/# time apply-onejob: /" "$EW_TMP/time"
	prof prof-apply1 "$EW_TMP/perf4.data"
	ew_done
	exit 0
fi
ew_check "push with -b under perf" perf record -q -e cpu-clock -F 2000 -a -g -o "$EW_TMP/perf.data" -- \
	bash -c "{ time $CTL -b $EW_TMP/batch >/dev/null; } 2>$EW_TMP/time"
sed "s/^/# time push-b: /" "$EW_TMP/time"
prof prof-b "$EW_TMP/perf.data"
ew_check "reload" reload_module
python3 - "$JOBS" "$PEERS_PER_JOB" >"$EW_TMP/policy.json" <<'PY'
import json, sys
jobs, per = int(sys.argv[1]), int(sys.argv[2])
print(json.dumps({"jobs": [{"id": 100 + j, "name": "load%d" % j, "peers": [
    "10.%d.%d.%d" % (p >> 16, (p >> 8) & 255, p & 255)
    for p in range(j * per, (j + 1) * per)]} for j in range(jobs)]}))
PY
ew_check "push with apply under perf" perf record -q -e cpu-clock -F 2000 -a -g -o "$EW_TMP/perf1.data" -- \
	bash -c "{ time $CTL apply -f $EW_TMP/policy.json >/dev/null; } 2>$EW_TMP/time"
sed "s/^/# time push-apply: /" "$EW_TMP/time"
prof prof-apply "$EW_TMP/perf1.data"
ew_check "reload" reload_module
python3 -c '
print("job add big4096 id 99999 " + " ".join("peer 172.16.%d.%d" % (p >> 8, p & 255) for p in range(4096)))' >"$EW_TMP/one"
ew_check "one 4096-peer job under perf" perf record -q -e cpu-clock -F 5000 -a -g -o "$EW_TMP/perf2.data" -- \
	bash -c "{ time $CTL -b $EW_TMP/one >/dev/null; } 2>$EW_TMP/time"
sed "s/^/# time job4096: /" "$EW_TMP/time"
prof prof4096 "$EW_TMP/perf2.data"
ew_done
