#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 1
# ew-timeout: 600
# ew-kernels: 6.1
#
# eastwestctl end to end against the real module: every command, its exit
# codes and error messages, batch mode, monitor, the show -j / apply round
# trip (twice = no-op, a bad file changes nothing), an unprivileged caller,
# and a dump of 100k peers across many messages while the job changes.

. "$(dirname "$0")/../lib.sh"

CG=/sys/fs/cgroup

ew_require_root
ew_require_built ctl verbs

ew_tmp_dir
ew_defer "rmdir $CG/ewc1 $CG/ewc2"
ew_defer "rdma link delete rxe0"
ew_defer "ew_rmmod"
ew_defer "pkill -f 'eastwestctl.*monitor'"

# out_has ERE: the last ew_expect_rc output matches ERE.
out_has() {
	grep -qE -- "$1" "$EW_OUT"
}

state() {
	"$CTL" -j show >"$1"
}

ew_plan 62

# Autoload: asking for the family makes the kernel run modprobe for the
# alias net-pf-16-proto-16-family-eastwest (MODULE_ALIAS_GENL_FAMILY). The
# module is not installed in the guest's (read-only) /lib/modules, so a
# stand-in modprobe loads it from the build tree if, and only if, the
# requested alias is one the module declares.
cat >"$EW_TMP/modprobe" <<SH
#!/bin/sh
for a in "\$@"; do alias=\$a; done
echo "\$alias" >>"$EW_TMP/modprobe.log"
modinfo -F alias "$EW_KO" | grep -qx "\$alias" && /sbin/modprobe rdma_cm && exec insmod "$EW_KO"
exec /sbin/modprobe "\$@"
SH
chmod +x "$EW_TMP/modprobe"
old_modprobe=$(cat /proc/sys/kernel/modprobe)
echo "$EW_TMP/modprobe" >/proc/sys/kernel/modprobe
ew_check "asking for the family autoloads the module" \
	sh -c "'$CTL' config show >/dev/null && test -d /sys/module/eastwest"
echo "$old_modprobe" >/proc/sys/kernel/modprobe
ew_check "through its genetlink family alias" \
	grep -qx 'net-pf-16-proto-16-family-eastwest' "$EW_TMP/modprobe.log"
ew_check "rxe0 on lo" ew_rxe_add rxe0 lo
mkdir -p "$CG/ewc1" "$CG/ewc2"

# --- jobs --------------------------------------------------------------------
ew_expect_rc 0 "job add prints the new id" \
	"$CTL" job add c1 cgroup /ewc1 peer 192.0.2.0/24 peer fe80::1 lid 7 vlan 100 pkey 0x8001 qkey auto
ew_check "the id is a number" out_has '^[0-9]+$'
ew_expect_rc 0 "job show -j" "$CTL" -j job show c1
ew_check "job show reports every attribute" \
	sh -c "grep -q '\"/ewc1\"' '$EW_OUT' && grep -q '\"vlan\": *100' '$EW_OUT' && grep -q '0x8001' '$EW_OUT'"
ew_expect_rc 0 "job set replaces the netdev list and mode" \
	"$CTL" job set c1 mode audit netdev lo
ew_check "job show sees the change" \
	sh -c "'$CTL' -j job show c1 | grep -q '\"audit\"' && ! '$CTL' -j job show c1 | grep -q '\"vlan\"'"
ew_expect_rc 0 "job set netdev none empties the list" "$CTL" job set c1 netdev none
ew_check "no netdev left" sh -c "! '$CTL' -j job show c1 | grep -q '\"ifname\"'"
ew_expect_rc 2 "unknown keyword: usage error, nothing sent" "$CTL" job add c2 colour blue
ew_check "the message names the keyword" out_has 'colour'
ew_expect_rc 2 "bad address: usage error" "$CTL" job add c2 peer 10.0.0.300
ew_expect_rc 2 "missing cgroup: usage error" "$CTL" job add c2 cgroup /no/such/cgroup
ew_expect_rc 1 "cgroup of another job: refused by the kernel" "$CTL" job add c2 cgroup /ewc1
ew_check "the kernel's reason is printed" out_has 'already belongs to job'
ew_expect_rc 1 "duplicate name refused" "$CTL" job add c1
ew_check "nothing half-applied: job c2 does not exist" sh -c "! '$CTL' job show c2 >/dev/null 2>&1"

# --- peers ---------------------------------------------------------------------
ew_expect_rc 0 "peer add" "$CTL" peer add c1 198.51.100.7 2001:db8::/32
ew_expect_rc 0 "peer get finds the covering prefix" "$CTL" peer get c1 2001:db8:1::5
ew_check "it names 2001:db8::/32" out_has '2001:db8::/32'
ew_expect_rc 5 "peer get of a stranger: exit 5 (no such entry)" "$CTL" peer get c1 203.0.113.1
ew_expect_rc 5 "peer del of a missing peer: exit 5, nothing removed" \
	"$CTL" peer del c1 198.51.100.7 203.0.113.9
ew_check "198.51.100.7 is still a peer" sh -c "'$CTL' peer show c1 | grep -q 198.51.100.7"
ew_expect_rc 0 "peer del" "$CTL" peer del c1 198.51.100.7

# --- devices, config, stats, monitor ----------------------------------------------
ew_expect_rc 0 "dev show lists rxe0 and its GID" "$CTL" dev show
ew_check "with ::ffff:127.0.0.1 or 127.0.0.1" out_has '127\.0\.0\.1'
ew_expect_rc 0 "config show" "$CTL" -j config show
ew_check "enforce / deny by default" out_has '"default_action": *"deny"'
"$CTL" -j monitor >"$EW_TMP/events" 2>&1 &
MON=$!
ew_check "monitor -j has joined the events group" ew_monitor_wait "$MON"
"$VERBS" rc-connect rxe0 1 127.0.0.1 self >/dev/null 2>&1
ew_check "monitor -j prints the denial as JSON" \
	ew_wait_for 10 grep -q '"reason": *"no-job"' "$EW_TMP/events"
ew_dummy_add ewctl0 198.51.100.50/24
ew_rxe_add rxe9 ewctl0 && ew_rxe_del rxe9
ew_netdev_del ewctl0
ew_check "monitor -j reports a device added and removed" ew_wait_for 10 sh -c "
	grep -q '\"event\": *\"dev-add\".*\"rxe9\"' '$EW_TMP/events' &&
	grep -q '\"event\": *\"dev-del\".*\"rxe9\"' '$EW_TMP/events'"
kill "$MON"
wait "$MON" 2>/dev/null
ew_expect_rc 0 "stats -j" "$CTL" -j stats
ew_check "the no-job denial is counted" \
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(d["global"]["denied_no_job"] < 1)' "$EW_OUT"

# --- batch mode ----------------------------------------------------------------------
printf '# comment\njob add b1 peer 10.1.0.1\njob add b2 peer 10.1.0.300\njob add b3\n' >"$EW_TMP/batch"
ew_expect_rc 7 "batch stops at the bad line, after line 2 changed the node" "$CTL" -b "$EW_TMP/batch"
ew_check "and names line 3 of the file" out_has 'batch:3:|line 3'
ew_check "b1 was added, b3 was not" \
	sh -c "'$CTL' job show b1 >/dev/null && ! '$CTL' job show b3 >/dev/null 2>&1"
"$CTL" job del b1

# --- declarative state -----------------------------------------------------------------
state "$EW_TMP/s1"
ew_expect_rc 0 "apply of show -j output" "$CTL" apply -f "$EW_TMP/s1"
state "$EW_TMP/s2"
ew_check "is a no-op (same state)" cmp -s "$EW_TMP/s1" "$EW_TMP/s2"
cat >"$EW_TMP/p.json" <<'JSON'
{ "config": { "mode": "enforce", "default_action": "deny" },
  "jobs": [ { "id": 77, "name": "p1", "cgroups": ["/ewc2"],
              "peers": ["192.0.2.9/32", "lid:9"], "pkeys": ["0x8002"] } ] }
JSON
ew_expect_rc 0 "apply a new policy" "$CTL" apply -f "$EW_TMP/p.json"
ew_check "only p1 exists now" \
	sh -c "'$CTL' job show p1 >/dev/null && ! '$CTL' job show c1 >/dev/null 2>&1"
ew_expect_rc 0 "apply it again" "$CTL" apply -f "$EW_TMP/p.json"
state "$EW_TMP/s3"
printf '{ "jobs": [ { "name": "bad", "peers": ["10.0.0.300"] } ] }' >"$EW_TMP/bad.json"
ew_expect_rc 2 "a bad file is refused" "$CTL" apply -f "$EW_TMP/bad.json"
ew_check "with the JSON path of the error" out_has 'jobs\[0\]\.peers\[0\]'
printf '{ "jobs": [ \n  { "name": }' >"$EW_TMP/broken.json"
ew_expect_rc 2 "malformed JSON is refused" "$CTL" apply -f "$EW_TMP/broken.json"
state "$EW_TMP/s4"
ew_check "and nothing changed" cmp -s "$EW_TMP/s3" "$EW_TMP/s4"

# --- privileges ----------------------------------------------------------------------
ew_expect_rc 3 "an unprivileged user cannot add a job (exit 3)" \
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$CTL" job add evil

# --- 100k peers: dump across many messages while the job changes --------------------
python3 -c '
for i in range(100000):
    print("10.%d.%d.%d" % (i >> 16, (i >> 8) & 255, i & 255))' >"$EW_TMP/100k"
ew_expect_rc 0 "add 100k peers" "$CTL" peer add p1 file "$EW_TMP/100k"
ew_check "peer show -j returns 100002 peers, no duplicates" sh -c "
	'$CTL' -j peer show p1 | python3 -c '
import json, sys
p = json.load(sys.stdin)[0][\"peers\"]
sys.exit(not (len(p) == 100002 and len(set(p)) == len(p)))'"
# Churn until the dumps are done; dump at least 5 times, and on until one
# met a change (the interval between messages is short, so a given dump
# may not), at most 30 times.
(
	while :; do
		"$CTL" peer add p1 172.31.0.1 >/dev/null 2>&1
		"$CTL" peer del p1 172.31.0.1 >/dev/null 2>&1
	done
) &
CHURN=$!
intr=0
good=0
retried=0
n=0
while [ $n -lt 30 ]; do
	if "$CTL" -j peer show p1 >"$EW_TMP/dump" 2>"$EW_TMP/dump.err"; then
		python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))[0]["peers"]
sys.exit(not (len(p) in (100002, 100003) and len(set(p)) == len(p)))' "$EW_TMP/dump" &&
			good=$((good + 1))
		grep -q 'interrupted, retrying' "$EW_TMP/dump.err" && retried=$((retried + 1))
	elif grep -q 'interrupted' "$EW_TMP/dump.err"; then
		intr=$((intr + 1))
	fi
	n=$((n + 1))
	[ $n -ge 5 ] && [ $((intr + retried)) -ge 1 ] && break
done
kill $CHURN 2>/dev/null
wait $CHURN 2>/dev/null
ew_diag "$n dumps under churn: $good complete and consistent ($retried of them after a retry)," \
	"$intr refused as interrupted after retries"
ew_check "under churn every dump is either a consistent snapshot or refused as interrupted" \
	test $((good + intr)) -eq $n
ew_check "the kernel flagged changes mid-dump (NLM_F_DUMP_INTR seen)" \
	test $((intr + retried)) -ge 1
ew_check "once the churn stops, the dump is complete" sh -c "
	'$CTL' -j peer show p1 | python3 -c '
import json, sys
p = json.load(sys.stdin)[0][\"peers\"]
sys.exit(not (len(p) in (100002, 100003) and len(set(p)) == len(p)))'"

ew_expect_rc 0 "job del" "$CTL" job del p1
ew_expect_rc 5 "job del of a job that is gone: exit 5 (no such job)" "$CTL" job del p1

# A job with long cgroup paths: three of about 3,600 bytes each (a
# Kubernetes pod's paths are a few hundred) must read back, by name and in
# the list; five, more than the 16 KiB a job's paths may take together,
# are refused with that reason and leave nothing.
seg=$(printf '%0200d' 0 | tr 0 d)
deep=/ewlong
for i in $(seq 18); do deep=$deep/$seg; done
# rm_long: remove the deep cgroups again, leaves first.
rm_long() {
	for _i in 1 2 3 4 5; do rmdir "$EW_CG$deep/leaf$_i"; done
	_d=$EW_CG$deep
	while [ "$_d" != "$EW_CG" ]; do rmdir "$_d"; _d=${_d%/*}; done
}
mkdir -p "$EW_CG$deep"
for i in 1 2 3 4 5; do mkdir -p "$EW_CG$deep/leaf$i"; done
ew_defer rm_long
ew_check "a job with three cgroup paths of ${#deep} bytes and more" \
	"$CTL" job add long cgroup "$deep/leaf1" cgroup "$deep/leaf2" cgroup "$deep/leaf3"
ew_check "... job show reads it back, every path" sh -c \
	"'$CTL' -j job show long | grep -o 'leaf[123]' | sort -u | grep -c . | grep -qx 3"
ew_check "... the dump of every job lists it" sh -c "'$CTL' -j job show | grep -q '\"long\"'"
ew_expect_rc 0 "... job del" "$CTL" job del long
"$CTL" job add long5 cgroup "$deep/leaf1" cgroup "$deep/leaf2" cgroup "$deep/leaf3" \
	cgroup "$deep/leaf4" cgroup "$deep/leaf5" >"$EW_TMP/long5" 2>&1
rc=$?
ew_diag "five paths: exit $rc, $(cat "$EW_TMP/long5")"
ew_check "five such paths (more than 16 KiB together): refused, saying why" \
	sh -c "[ $rc -ne 0 ] && grep -q 'take more than 16384 bytes together' '$EW_TMP/long5'"
ew_expect_rc 5 "... and no job long5 is left" "$CTL" job del long5
ew_check "eastwest unloads" ew_unload

ew_done
