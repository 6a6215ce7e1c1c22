#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# tests/policy_test.sh - host-side tests of the Slurm hooks, no Slurm and no
# kernel module needed (run by "make check"):
#   - slurm-policy.awk: what it makes of good files, and that every kind of
#     bad line is reported with its file and line number;
#   - slurm-prolog and slurm-epilog driven with a Slurm-like environment, a
#     stand-in eastwestctl that logs its arguments and answers as told, a
#     stand-in "scontrol show hostnames" and a directory as the cgroup mount:
#     the exact eastwestctl command line, exit codes, cleanup on failure.
# The real thing (slurmctld, slurmd, the module, RDMA) is tested in the VM by
# selftests/eastwest/slurm.sh.
#
# TAP on stdout; exit 0 if every case passed.

set -u
HERE=$(cd "$(dirname "$0")/.." && pwd -P)
AWK_PROG=$HERE/slurm-policy.awk
T=$(mktemp -d "${TMPDIR:-/tmp}/ew-slurm-test.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT

n=0
failed=0
ok() {
	n=$((n + 1))
	echo "ok $n $1"
}
not_ok() {
	n=$((n + 1))
	failed=$((failed + 1))
	echo "not ok $n $1"
	shift
	printf '%s\n' "$@" | sed 's/^/#   /'
}

# policy NAME PART NODES WANT_RC WANT_OUT: run the awk program on $T/parts
# and $T/inv; stdout (newlines as blanks) or stderr must equal WANT_OUT.
policy() {
	rc=0
	awk -v pfile="$T/parts" -v ifile="$T/inv" -v part="$2" -v nodes="$3" \
		-f "$AWK_PROG" "$T/parts" "$T/inv" >"$T/stdout" 2>"$T/err" || rc=$?
	if [ "$rc" -eq 0 ]; then
		out=$(tr '\n' ' ' <"$T/stdout")
	else
		out=$(sed "s|$T/||" "$T/err")
		[ ! -s "$T/stdout" ] || out="$out (and printed: $(cat "$T/stdout"))"
	fi
	if [ "$rc" = "$4" ] && [ "$out" = "$5" ]; then
		ok "$1"
	else
		not_ok "$1" "exit $rc, wanted $4" "got:  $out" "want: $5"
	fi
}

cat >"$T/inv" <<'EOF'
# node   addresses
gpu01  10.0.0.1 v100=10.100.0.1 fe80::1   # trailing comment
gpu02  10.0.0.2 v100=10.100.0.2
ib01   fe80::2:c903:a:1234 lid:17 lid:0x12
ib02   ::ffff:10.0.0.9 lid:19
EOF
cat >"$T/parts" <<'EOF'
*       mode enforce
gpu     vlan 100 net v100 encrypt macsec pkey 0xFFFF
ib      pkey 0x8001 pkey 32769 qkey auto
lab     netdev eth0 vrf vrf-a vlan 0x10 qkey 0x20 mode audit encrypt any
ucx     ud on dc off qkey auto
keyed   psn keyed
EOF

policy "partition with a net: the nodes' tagged addresses" gpu "gpu01 gpu02" 0 \
	"vlan 100 encrypt macsec pkey 0xffff peer 10.100.0.1 peer 10.100.0.2 "
policy "InfiniBand partition: GIDs and LIDs, P_Keys normalised" ib "ib01 ib02" 0 \
	"pkey 0x8001 pkey 0x8001 qkey auto peer fe80::2:c903:a:1234 lid 17 lid 18 peer ::ffff:10.0.0.9 lid 19 "
policy "partition without a line: the \"*\" line, untagged addresses" other "gpu01" 0 \
	"mode enforce peer 10.0.0.1 peer fe80::1 "
policy "numbers are passed on in decimal" lab "gpu02" 0 \
	"netdev eth0 vrf vrf-a vlan 16 qkey 32 mode audit encrypt any peer 10.0.0.2 "
policy "ud and dc are passed on" ucx "gpu02" 0 \
	"ud on dc off qkey auto peer 10.0.0.2 "
policy "psn keyed: the key derived from the cluster key file" keyed "gpu02" 0 \
	"psn keyed psn-keyfile /etc/eastwest/cluster.key peer 10.0.0.2 "
policy "an address listed twice is a peer once" other "gpu01 gpu01" 0 \
	"mode enforce peer 10.0.0.1 peer fe80::1 "
policy "a node missing from the inventory" gpu "gpu01 gpu09" 3 \
	"inv: node gpu09 is not in the inventory"
policy "a node without an address on the partition's net" gpu "ib01" 3 \
	"inv:4: node ib01 has no address on net v100 (its nets: (none))"
policy "an empty node list" gpu "" 3 "the job has no nodes"

sed -i '/^\*/d' "$T/parts"
policy "a partition without a line and no \"*\" line" other "gpu01" 3 \
	"parts: partition other has no line and there is no \"*\" line"

cat >"$T/inv" <<'EOF'
gpu01 10.0.0.1
gpu01 10.0.0.3
gpu03 10.0.0.256
gpu04 1::2::3
gpu05 lid:0
gpu06
gpu07 10.0.0.0/24
gpu08 fe80::1:2:3:4:5:6:7:8
gpu09 1:2:3:4:5:6:7:8 ::ffff:10.1.2.3 2001:db8:: x_1=10.0.0.9
gpu10 :1::2
bad/name 1.2.3.4
gpu11 bad+net=10.0.0.11
gpu12 lid:65535
EOF
cat >"$T/parts" <<'EOF'
gpu vlan 0
gpu2 vlan
gpu3 colour blue
gpu4 encrypt rot13
gpu5 pkey 0x8000
gpu6 mode enforce mode audit
gpu6 qkey 0x80000000
gpu7 netdev this_is_a_very_long_name
gpu8 net a/b
ok1 vlan 4094 pkey 0x7fff qkey 2147483647
gpu9 ud yes
gpu10 dc on dc on
gpu11 psn random
gpu12 psn keyed psn app
EOF
policy "every bad line is reported with file and line" gpu "gpu01" 2 \
	"parts:1: bad vlan \"0\" (1..4094)
parts:2: \"vlan\" needs a value
parts:3: unknown setting \"colour\" (netdev, vlan, vrf, pkey, encrypt, mode, qkey, ud, dc, psn, net)
parts:4: bad encrypt \"rot13\" (none, any, macsec or ipsec)
parts:5: bad pkey \"0x8000\" (0x0001..0xffff, not 0x8000)
parts:6: \"mode\" is given twice
parts:7: partition gpu6 is already set on line 6
parts:8: bad netdev \"this_is_a_very_long_name\" (an interface name)
parts:9: bad net \"a/b\" (letters, digits, . _ -)
parts:11: bad ud \"yes\" (on or off)
parts:12: \"dc\" is given twice
parts:13: bad psn \"random\" (app or keyed)
parts:14: \"psn\" is given twice
inv:2: node gpu01 is already listed on line 1
inv:3: bad address \"10.0.0.256\" (an IPv4 or IPv6 address, a GID, or lid:N, each optionally NET=...)
inv:4: bad address \"1::2::3\" (an IPv4 or IPv6 address, a GID, or lid:N, each optionally NET=...)
inv:5: bad LID in \"lid:0\" (lid:1..lid:65534)
inv:6: node gpu06 has no address
inv:7: bad address \"10.0.0.0/24\" (an IPv4 or IPv6 address, a GID, or lid:N, each optionally NET=...)
inv:8: bad address \"fe80::1:2:3:4:5:6:7:8\" (an IPv4 or IPv6 address, a GID, or lid:N, each optionally NET=...)
inv:10: bad address \":1::2\" (an IPv4 or IPv6 address, a GID, or lid:N, each optionally NET=...)
inv:11: bad node name \"bad/name\"
inv:12: bad net name in \"bad+net=10.0.0.11\"
inv:13: bad LID in \"lid:65535\" (lid:1..lid:65534)"

# ----------------------------------------------------------------------------
# The hooks, with stand-ins for eastwestctl and scontrol.

mkdir -p "$T/bin" "$T/etc" "$T/cg/system.slice/n1_slurmstepd.scope"
cat >"$T/etc/inventory" <<'EOF'
n1 192.0.2.1
n2 192.0.2.2 lid:7
EOF
cat >"$T/etc/slurm-partitions" <<'EOF'
*    mode enforce
gpu  vlan 100 encrypt any
EOF
# eastwestctl: logs its arguments; "job del" answers as $T/del says (rc and
# message), "job add" as $T/add says.
cat >"$T/bin/eastwestctl" <<EOF
#!/bin/sh
echo "\$*" >>"$T/ctl.log"
case "\$1 \$2" in
"job del") f=$T/del ;;
"job add") f=$T/add ;;
*) exit 0 ;;
esac
[ -f "\$f" ] || exit 0
sed 1d "\$f" >&2
exit "\$(head -n 1 "\$f")"
EOF
# scontrol show hostnames n[1-2] -> n1 n2 (only the form used here).
cat >"$T/bin/scontrol" <<'EOF'
#!/bin/sh
[ "$1 $2" = "show hostnames" ] || exit 1
case $3 in
'n[1-2]') printf 'n1\nn2\n' ;;
*) echo "$3" ;;
esac
EOF
chmod 755 "$T/bin/eastwestctl" "$T/bin/scontrol"

# hook NAME WANT_RC WANT_LOG HOOK [VAR=VALUE...]: run HOOK in a slurmd-like
# environment (plus VARs); its exit code and the stand-in eastwestctl's
# log (lines joined by " | ") must be as wanted.
hook() {
	desc=$1
	want_rc=$2
	want_log=$3
	h=$4
	shift 4
	: >"$T/ctl.log"
	env -i EW_CTL="$T/bin/eastwestctl" EW_CONF_DIR="$T/etc" EW_CGROUP_MOUNT="$T/cg" \
		PATH="$T/bin:/usr/bin:/bin" SLURM_JOB_ID=42 SLURMD_NODENAME=n1 \
		SLURM_JOB_PARTITION=gpu SLURM_NODELIST='n[1-2]' SLURM_JOB_NUM_NODES=2 \
		"$@" "$HERE/$h" >"$T/out" 2>&1
	rc=$?
	log=$(sed ':a;N;$!ba;s/\n/ | /g' "$T/ctl.log")
	if [ "$rc" = "$want_rc" ] && [ "$log" = "$want_log" ]; then
		ok "$desc"
	else
		not_ok "$desc" "exit $rc, wanted $want_rc" "log:  $log" "want: $want_log" \
			"output: $(cat "$T/out")"
	fi
}

JOBCG=$T/cg/system.slice/n1_slurmstepd.scope/job_42
ADD="job add slurm-42 cgroup /system.slice/n1_slurmstepd.scope/job_42 vlan 100 encrypt any peer 192.0.2.1 peer 192.0.2.2 lid 7"

printf '5\neastwestctl: job del slurm-42: no such job name\n' >"$T/del"
hook "prolog: the job is added with cgroup, partition settings and peers" 0 \
	"job del slurm-42 | $ADD" slurm-prolog
if [ -d "$JOBCG" ]; then ok "prolog: it created the job's cgroup"; else not_ok "prolog: it created the job's cgroup"; fi
hook "prolog: a cgroup that exists already is used as it is" 0 \
	"job del slurm-42 | $ADD" slurm-prolog
rmdir "$JOBCG"

printf '0\n' >"$T/del"
hook "prolog: a stale job of the same name is replaced" 0 \
	"job del slurm-42 | $ADD" slurm-prolog
rmdir "$JOBCG"

printf '4\neastwestctl: the eastwest family is not available\n' >"$T/del"
hook "prolog: eastwest not loaded: exit 4, nothing added" 4 "job del slurm-42" slurm-prolog
printf '5\neastwestctl: job del slurm-42: no such job name\n' >"$T/del"

printf '1\neastwestctl: job add slurm-42: cgroup belongs to job 3\n' >"$T/add"
hook "prolog: eastwestctl refuses: exit 1" 1 "job del slurm-42 | $ADD" slurm-prolog
if [ ! -d "$JOBCG" ]; then ok "prolog: ... and the cgroup it made is removed"; else not_ok "prolog: ... and the cgroup it made is removed"; fi
printf '4\neastwestctl: not available\n' >"$T/add"
hook "prolog: eastwest gone at job add: exit 4" 4 "job del slurm-42 | $ADD" slurm-prolog
rm -f "$T/add"

hook "prolog: node missing from the inventory: exit 3, eastwestctl not run" 3 "" \
	slurm-prolog SLURM_NODELIST=n9 SLURM_JOB_NUM_NODES=1
hook "prolog: node count differs from SLURM_JOB_NUM_NODES: exit 5" 5 "" \
	slurm-prolog SLURM_JOB_NUM_NODES=3
hook "prolog: no SLURM_JOB_ID: exit 5" 5 "" slurm-prolog SLURM_JOB_ID=
hook "prolog: a job id that is not a number: exit 5" 5 "" slurm-prolog SLURM_JOB_ID=../x
hook "prolog: EW_CTL not executable: exit 7" 7 "" slurm-prolog EW_CTL=/nonexistent
hook "prolog: no Slurm cgroup/v2 scope: exit 6, eastwestctl not run" 6 "" \
	slurm-prolog SLURMD_NODENAME=n2 SLURM_NODELIST=n2 SLURM_JOB_NUM_NODES=1
hook "prolog: no partition file: exit 2" 2 "" slurm-prolog EW_CONF_DIR="$T/none"
echo "gpu9 vlan 5000" >>"$T/etc/slurm-partitions"
hook "prolog: a bad partition line: exit 2" 2 "" slurm-prolog
if grep -q 'slurm-partitions:3: bad vlan' "$T/out"; then
	ok "prolog: ... the message names file and line"
else
	not_ok "prolog: ... the message names file and line" "$(cat "$T/out")"
fi
sed -i '$d' "$T/etc/slurm-partitions"

hook "epilog: deletes the job" 0 "job del slurm-42" slurm-epilog
printf '5\neastwestctl: job del slurm-42: no such job name\n' >"$T/del"
mkdir "$JOBCG"
hook "epilog: a job already gone is success" 0 "job del slurm-42" slurm-epilog
if [ ! -d "$JOBCG" ]; then ok "epilog: ... and it removed the empty job cgroup"; else not_ok "epilog: ... and it removed the empty job cgroup"; fi
printf '4\neastwestctl: not available\n' >"$T/del"
hook "epilog: eastwest not loaded is success" 0 "job del slurm-42" slurm-epilog
printf '3\neastwestctl: job del slurm-42: Operation not permitted\n' >"$T/del"
hook "epilog: any other failure: exit 1 (slurmd drains the node)" 1 "job del slurm-42" slurm-epilog

echo "1..$n"
[ "$failed" -eq 0 ]
