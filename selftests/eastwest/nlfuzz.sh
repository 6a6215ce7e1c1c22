#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 1
# ew-timeout: 420
# ew-kernels: 6.12
#
# Netlink fuzzing (hardening, R1): selftests/tools/ew_nlfuzz sends
# structure-aware random and mutated requests (every command, every policy
# attribute at boundary lengths and values, wrong types, nested garbage,
# truncated and oversized messages, header mutations) to the eastwest family,
# as root and as an unprivileged user, with real objects to hit (an rxe
# device, jobs bound to cgroups, peers). Then:
#   - the kernel answered every request and config-get kept answering;
#   - the unprivileged user had no admin-perm request accepted, every
#     well-formed one was refused with EPERM, and nothing changed;
#   - after deleting the jobs, the family's own object counts are zero and a
#     known job add/get/del round trip gives the right answers;
#   - the module has no references left and unloads;
#   - no kmalloc slab cache holds more objects than before the module was
#     loaded (caches shrunk before each count), no kernel splat.
#
# Sizes (defaults: the CI run, 10-30 s of fuzzing under TCG):
#   EW_NLFUZZ_MESSAGES          root messages (default 100000)
#   EW_NLFUZZ_UNPRIV_MESSAGES   unprivileged messages (default: a quarter)
#   EW_NLFUZZ_SEED              seed (default fixed; "random": from the clock)
# The long run (>= 1M messages) is selftests/hardening/nlfuzz-long.sh; see
# Documentation/hardening.md.

. "$(dirname "$0")/../lib.sh"

DEV=rxe0
CG=/sys/fs/cgroup
FUZZ=$EW_TOP/selftests/tools/ew_nlfuzz
SPEC=$EW_TOP/Documentation/netlink/specs/eastwest.yaml

MESSAGES=${EW_NLFUZZ_MESSAGES:-100000}
UNPRIV_MESSAGES=${EW_NLFUZZ_UNPRIV_MESSAGES:-$((MESSAGES / 4))}
SEED=${EW_NLFUZZ_SEED:-0x65617374776573}
[ "$SEED" != random ] || SEED=$(date +%s%N)
# A kmalloc cache that grew by more objects than this, plus what per-CPU
# slabs can hold (two slabs per CPU: counts move by whole slabs), over the
# whole run is reported as a leak.
LEAK_SLACK=${EW_NLFUZZ_LEAK_SLACK:-200}

ew_require_root
ew_require_cmd rdma python3 setpriv
ew_require_built ctl cgroup
[ -x "$FUZZ" ] || ew_skip "ew_nlfuzz is not built (make tools)"
[ -r /proc/slabinfo ] || ew_skip "no /proc/slabinfo"

ew_tmp_dir 755
ew_defer "rmdir $CG/ewfz0 $CG/ewfz1 $CG/ewfz2 $CG/ewfz3 $CG/ewtest"
ew_defer "rdma link delete $DEV"
ew_defer "ew_rmmod"

# Every op of the spec, with its request attributes and their types, in the
# form `ew_nlfuzz --print-model` prints: what the fuzzer generates covers the
# whole ABI, and an op or attribute added later fails here until it does.
model_matches_spec() {
	"$FUZZ" --print-model >"$EW_TMP/model" || return 1
	python3 - "$SPEC" "$EW_TMP/model" <<'EOF'
import sys, yaml
spec = yaml.safe_load(open(sys.argv[1]))
sets = {s["name"]: s["attributes"] for s in spec["attribute-sets"]}
kind = lambda a: a["type"] if a["type"] != "nest" else "nest"
def nested(a):
    inner = ",".join("%s:%s" % (x["name"], x["type"]) for x in sets[a["nested-attributes"]])
    return "(%s:%s)" % (a["nested-attributes"], inner)
want = []
for i, op in enumerate(spec["operations"]["list"], 1):
    req = []
    for mode in ("do", "dump"):
        r = (op.get(mode) or {}).get("request", {}).get("attributes", [])
        req += [x for x in r if x not in req]
    attrs = {a["name"]: a for a in sets[op["attribute-set"]]}
    words = ["op", op["name"], str(op.get("value", i)),
             "admin=%d" % ("admin-perm" in op.get("flags", [])),
             "do=%d" % ("do" in op), "dump=%d" % ("dump" in op)]
    for r in req:
        a = attrs[r]
        words.append("%s:%s%s" % (r, kind(a), nested(a) if a["type"] == "nest" else ""))
    want.append(" ".join(words))
have = [l.strip() for l in open(sys.argv[2]) if l.startswith("op ")]
missing = sorted(set(want) - set(have))
extra = sorted(set(have) - set(want))
for l in missing:
    print("spec has, fuzzer lacks:", l)
for l in extra:
    print("fuzzer has, spec lacks:", l)
sys.exit(1 if missing or extra else 0)
EOF
}

# kmalloc-* active objects (name count per line), after shrinking each cache
# so that per-CPU and partial slabs do not hide or invent objects.
slab_snapshot() {
	sync
	sleep 1
	for s in /sys/kernel/slab/kmalloc-* /sys/kernel/slab/dma-kmalloc-*; do
		[ -w "$s/shrink" ] && echo 1 >"$s/shrink" 2>/dev/null
	done
	awk '$1 ~ /^(dma-)?kmalloc-/ { print $1, $2, $5 }' /proc/slabinfo | sort
}

# slab_deltas BEFORE AFTER: "DELTA CACHE BEFORE->AFTER ALLOWED", largest
# first; ALLOWED = LEAK_SLACK + 2 slabs per CPU.
slab_deltas() {
	_cpus=$(nproc)
	join "$1" "$2" | awk -v slack="$LEAK_SLACK" -v cpus="$_cpus" '
		{ print $4 - $2, $1, $2 "->" $4, slack + 2 * cpus * $3 }' | sort -rn
}

# slab_grown DELTAS: fail (naming them) if a cache gained more than allowed.
slab_grown() {
	awk '$1 > $4 { print "grew:", $1, "objects:", $2, $3, "(allowed", $4 ")"; bad = 1 }
		END { exit bad }' "$1"
}

# config_counts: "JOBS PEERS REVOKED-NODES" from config-get.
config_counts() {
	"$CTL" -j config show | python3 -c '
import json, sys
d = json.load(sys.stdin)
d = d.get("config", d)
print(d["job_count"], d["peer_count"], len(d["revoked_nodes"]))'
}

# Delete every job (the fuzzer leaves whatever it created).
delete_all_jobs() {
	"$CTL" -j job show | python3 -c '
import json, sys
d = json.load(sys.stdin)
for j in (d if isinstance(d, list) else [d]):
    print(j["id"])' >"$EW_TMP/ids" || return 1
	while read -r id; do
		"$CTL" job del id "$id" || return 1
	done <"$EW_TMP/ids"
}

# Admit again every node address the fuzzer revoked.
admit_all_nodes() {
	"$CTL" -j config show | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(" ".join(d.get("config", d)["revoked_nodes"]))' >"$EW_TMP/revoked" || return 1
	[ -s "$EW_TMP/revoked" ] && [ -n "$(cat "$EW_TMP/revoked")" ] || return 0
	# shellcheck disable=SC2046 # one argument per address
	"$CTL" node admit $(cat "$EW_TMP/revoked")
}

round_trip() {
	"$CTL" job add ewrt cgroup /ewtest peer 192.0.2.9 vlan 42 || return 1
	"$CTL" -j job show ewrt >"$EW_TMP/rt.json" || return 1
	python3 - "$EW_TMP/rt.json" <<'EOF' || return 1
import json, sys
j = json.load(open(sys.argv[1]))
j = j[0] if isinstance(j, list) else j
assert j["name"] == "ewrt", j
assert j["cgroups"] == ["/ewtest"], j
assert [n.get("vlan") for n in j["netdevs"]] == [42], j
EOF
	"$CTL" peer get ewrt 192.0.2.9 >/dev/null || return 1
	"$CTL" job del ewrt || return 1
	# Gone: job show exits 5 (no such job: the kernel's ENOENT), not 0.
	"$CTL" job show ewrt >/dev/null 2>&1
	[ $? -eq 5 ]
}

SPLAT='WARNING:|BUG:|Oops|KASAN|UBSAN|Call Trace:|refcount_t:|list_(add|del) corruption|soft lockup|still has objects'

# no_splat: no splat in the kernel log since the last ew_dmesg_mark. The
# fuzzer's accepted config changes are logged (pr_info) and can push the
# mark out of the ring buffer: then everything left came after it. (The VM
# runner also scans the whole serial console for splats.)
# shellcheck disable=SC2154 # ew_dmesg_marker: set by ew_dmesg_mark (lib.sh)
no_splat() {
	if dmesg | grep -qF "$ew_dmesg_marker"; then
		! ew_dmesg_since_mark "$SPLAT"
	else
		! dmesg | grep -E -- "$SPLAT"
	fi
}

# Regression of the first long run: config-get failed with EMSGSIZE (and
# with it eastwestctl show, config show, stats) once more than ~350 node
# addresses were revoked, while node-set accepted 65536. The module now keeps
# at most 2048 and sizes config-get's reply for them.
REVOKED_MAX=2048
revoke_max() {
	# shellcheck disable=SC2046 # one argument per address
	"$CTL" node revoke $(awk -v n="$REVOKED_MAX" \
		'BEGIN { for (i = 0; i < n; i++) printf "10.%d.%d.1\n", i / 256, i % 256 }')
}

revoked_count() {
	"$CTL" -j config show | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(len(d.get("config", d)["revoked_nodes"]))'
}

fuzz_summary() {
	grep -E '^(ew_nlfuzz|# )' "$1" | sed 's/^# /  /' | sed 's/^/# /'
}

# fuzz_passed RC OUT: the fuzzer exited 0; else show why.
fuzz_passed() {
	[ "$1" -eq 0 ] && return 0
	grep -m 20 -E 'VIOLATION|FAIL|no answer|error' "$2"
	return 1
}

ew_plan 23

ew_check "the fuzzer's model covers every op and request attribute of the spec" \
	model_matches_spec

# Objects for the requests to hit: a device, cgroups, a job with peers.
ew_check "$DEV on lo" ew_rxe_add "$DEV" lo
mkdir -p "$CG/ewfz0" "$CG/ewfz1" "$CG/ewfz2" "$CG/ewfz3" "$CG/ewtest"
slab_snapshot >"$EW_TMP/slab.before"
ew_dmesg_mark
ew_check "eastwest.ko loads" ew_load
ew_check "job ewtest with peers and a cgroup" \
	"$CTL" job add ewtest cgroup /ewtest peer 127.0.0.1 peer 192.0.2.0/24 lid 5 pkey 0xffff

POOLS="-c /ewfz0 -c /ewfz1 -c /ewfz2 -c /ewfz3 -c /ewtest -j ewtest -d $DEV"
ew_diag "root: $FUZZ -s $SEED -n $MESSAGES $POOLS"
# shellcheck disable=SC2086 # the pool options
"$FUZZ" -s "$SEED" -n "$MESSAGES" $POOLS >"$EW_TMP/root.out" 2>&1
_rc=$?
fuzz_summary "$EW_TMP/root.out"
ew_check "root: $MESSAGES messages answered, config-get alive throughout" \
	fuzz_passed $_rc "$EW_TMP/root.out"
ew_check "root: no kernel splat" no_splat
ew_dmesg_mark

"$CTL" -j show >"$EW_TMP/before-unpriv.json"
ew_diag "unprivileged: setpriv --reuid=65534 $FUZZ -s $SEED -n $UNPRIV_MESSAGES --unpriv $POOLS"
# shellcheck disable=SC2086
setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
	"$FUZZ" -s "$SEED" -n "$UNPRIV_MESSAGES" --unpriv $POOLS >"$EW_TMP/unpriv.out" 2>&1
_rc=$?
fuzz_summary "$EW_TMP/unpriv.out"
ew_check "unprivileged: $UNPRIV_MESSAGES messages, no admin-perm request accepted, well-formed ones EPERM" \
	fuzz_passed $_rc "$EW_TMP/unpriv.out"
"$CTL" -j show >"$EW_TMP/after-unpriv.json"
ew_check "the unprivileged run changed nothing" \
	cmp -s "$EW_TMP/before-unpriv.json" "$EW_TMP/after-unpriv.json"
ew_check "the unprivileged run really reached the permission check (EPERM counted)" \
	grep -qE '^# job-new +[0-9]+ +0 .*EPERM:[1-9]' "$EW_TMP/unpriv.out"
ew_check "unprivileged: no kernel splat" no_splat

# Clean up what the fuzzer left, then the family must answer as before.
ew_check "every job deleted" delete_all_jobs
ew_check "every revoked node address admitted again" admit_all_nodes
ew_check "the family's own counts are back to zero (jobs, peers, revoked nodes)" \
	test "$(config_counts)" = "0 0 0"
ew_check "known job add/get/del round trip" round_trip
ew_check "regression: $REVOKED_MAX revoked node addresses, the most kept" revoke_max
ew_check "config-get still answers, with every one of them" \
	test "$(revoked_count)" = "$REVOKED_MAX"
ew_check_not "one more revoked address is refused" "$CTL" node revoke 10.99.0.1
ew_check "no references to the module are left" \
	test "$(cat /sys/module/eastwest/refcnt)" = 0
ew_dmesg_mark
ew_check "eastwest unloads" ew_unload
ew_check "unload is logged" ew_dmesg_wait 'eastwest: unloaded'
slab_snapshot >"$EW_TMP/slab.after"
slab_deltas "$EW_TMP/slab.before" "$EW_TMP/slab.after" >"$EW_TMP/slab.deltas"
ew_diag "largest kmalloc changes (objects) from before the load to after the unload:" \
	"$(head -n 5 "$EW_TMP/slab.deltas")"
ew_check "no kmalloc cache grew by more than $LEAK_SLACK objects plus 2 slabs per CPU" \
	slab_grown "$EW_TMP/slab.deltas"
ew_check "$DEV is deleted" ew_rxe_del "$DEV"
ew_check "cleanup and unload: no kernel splat" no_splat

ew_done
