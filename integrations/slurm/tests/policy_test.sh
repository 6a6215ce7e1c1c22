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

# shellcheck source-path=SCRIPTDIR source=../../../selftests/tap.sh
. "$HERE/../../selftests/tap.sh"

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
*       jobaddr shared mode enforce
gpu     jobaddr shared vlan 100 net v100 encrypt macsec pkey 0xFFFF
ib      jobaddr shared pkey 0x8001 pkey 32769 qkey auto
lab     jobaddr shared netdev eth0 vrf vrf-a vlan 0x10 qkey 0x20 mode audit encrypt any
ucx     jobaddr shared ud on dc off qkey auto
keyed   jobaddr shared psn keyed
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
ok1 jobaddr shared vlan 4094 pkey 0x7fff qkey 2147483647
gpu9 ud yes
gpu10 dc on dc on
gpu11 psn random
gpu12 psn keyed psn app
EOF
policy "every bad line is reported with file and line" gpu "gpu01" 2 \
	"parts:1: bad vlan \"0\" (1..4094)
parts:2: \"vlan\" needs a value
parts:3: unknown setting \"colour\" (jobaddr, netdev, vlan, vrf, pkey, encrypt, mode, qkey, ud, dc, psn, net)
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
# Per-job addresses: the address computation and its errors.

cat >"$T/inv" <<'EOF'
n0  192.0.2.1 jobs:fd00:ee::1:0:0/64 v9=jobs:fd00:9:0:0:0:1::/80
n1  192.0.2.2 jobs:fd00:ee:0:0:0:2:0:0/64 v9=jobs:fd00:9::2:0:0/80
n2  192.0.2.3
EOF
cat >"$T/parts" <<'EOF'
*    jobaddr shared
job  jobaddr eth0.100 mode enforce encrypt none
j9   jobaddr ew9 net v9 psn keyed
EOF
# jpolicy NAME PART NODES SELF JOBID WANT_RC WANT_OUT
jpolicy() {
	rc=0
	awk -v pfile="$T/parts" -v ifile="$T/inv" -v part="$2" -v nodes="$3" \
		-v self="$4" -v jobid="$5" \
		-f "$AWK_PROG" "$T/parts" "$T/inv" >"$T/stdout" 2>"$T/err" || rc=$?
	if [ "$rc" -eq 0 ]; then
		out=$(tr '\n' ' ' <"$T/stdout")
	else
		out=$(sed "s|$T/||" "$T/err")
	fi
	if [ "$rc" = "$6" ] && [ "$out" = "$7" ]; then
		ok "$1"
	else
		not_ok "$1" "exit $rc, wanted $6" "got:  $out" "want: $7"
	fi
}
jpolicy "job address: node prefix + job id; peers are the job's addresses, not the nodes'" \
	job "n0 n1" n0 42 0 \
	"@dev eth0.100 @addr fd00:ee:0:0:0:1:0:2a/64 @gid fd00:00ee:0000:0000:0000:0001:0000:002a netdev eth0.100 mode enforce encrypt none peer fd00:ee:0:0:0:1:0:2a peer fd00:ee:0:0:0:2:0:2a "
jpolicy "job address: every node computes every node's (the other node's view)" \
	job "n0 n1" n1 42 0 \
	"@dev eth0.100 @addr fd00:ee:0:0:0:2:0:2a/64 @gid fd00:00ee:0000:0000:0000:0002:0000:002a netdev eth0.100 mode enforce encrypt none peer fd00:ee:0:0:0:1:0:2a peer fd00:ee:0:0:0:2:0:2a "
jpolicy "job address: a job id above 16 bits fills both low groups" \
	job "n1" n1 4294967295 0 \
	"@dev eth0.100 @addr fd00:ee:0:0:0:2:ffff:ffff/64 @gid fd00:00ee:0000:0000:0000:0002:ffff:ffff netdev eth0.100 mode enforce encrypt none peer fd00:ee:0:0:0:2:ffff:ffff "
jpolicy "job address: 65536 is 1:0" job "n1" n1 65536 0 \
	"@dev eth0.100 @addr fd00:ee:0:0:0:2:1:0/64 @gid fd00:00ee:0000:0000:0000:0002:0001:0000 netdev eth0.100 mode enforce encrypt none peer fd00:ee:0:0:0:2:1:0 "
jpolicy "job address on a net: the NET= job prefixes" j9 "n0 n1" n1 7 0 \
	"@dev ew9 @addr fd00:9:0:0:0:2:0:7/80 @gid fd00:0009:0000:0000:0000:0002:0000:0007 netdev ew9 psn keyed psn-keyfile /etc/eastwest/cluster.key peer fd00:9:0:0:0:1:0:7 peer fd00:9:0:0:0:2:0:7 "
jpolicy "job address: the shared partition keeps the nodes' addresses" other "n0 n1" n0 42 0 \
	"peer 192.0.2.1 peer 192.0.2.2 "
jpolicy "job address: a node without a job prefix: exit 3" job "n0 n2" n0 42 3 \
	"inv:3: node n2 has no job prefix (jobs:PREFIX/LEN) on net (none)"
jpolicy "job address: this node not among the job's nodes: exit 3" job "n1" n0 42 3 \
	"this node (n0) is not one of the job's nodes"
jpolicy "job address: a job id that does not fit 32 bits: exit 3" job "n1" n1 4294967296 3 \
	"job id \"4294967296\" is not a Slurm job id (0..4294967295)"

cat >"$T/inv" <<'EOF'
n0 jobs:fd00:ee::1:0:0/64
n1 jobs:fd00:ee::1:0:0/64
n2 jobs:fd00:ee::2:0:1/64
n3 jobs:fd00:ee::3:0:0/97
n4 jobs:10.0.0.0/8
n5 jobs:fd00:ee::5:0:0
n6 jobs:fd00:ee::6:0:0/64 jobs:fd00:ee::7:0:0/64
EOF
cat >"$T/parts" <<'EOF'
p1 mode enforce
p2 jobaddr eth0 vlan 100
p3 jobaddr eth0 net a net b
p4 jobaddr eth0/1
p5 jobaddr eth0 jobaddr shared
EOF
jpolicy "job address: every bad job prefix and jobaddr line is reported" job "n0" n0 1 2 \
	"parts:1: partition p1 has no jobaddr: \"jobaddr IFNAME\" (each job its own address on IFNAME) or \"jobaddr shared\" (the nodes' addresses)
parts:2: \"vlan\" cannot be combined with \"jobaddr eth0\" (the job's source netdev is eth0)
parts:3: \"jobaddr eth0\" takes at most one net (the job has one address per node)
parts:4: bad jobaddr \"eth0/1\" (an interface name, or shared)
parts:5: \"jobaddr\" is given twice
inv:2: job prefix \"jobs:fd00:ee::1:0:0/64\" of node n1 is node n0's
inv:3: bad job prefix \"jobs:fd00:ee::2:0:1/64\" (its low 32 bits are the job id: must be 0)
inv:4: bad job prefix \"jobs:fd00:ee::3:0:0/97\" (jobs:IPV6/LEN, LEN 1..96)
inv:5: bad job prefix \"jobs:10.0.0.0/8\" (jobs:IPV6/LEN, LEN 1..96)
inv:6: bad job prefix \"jobs:fd00:ee::5:0:0\" (jobs:IPV6/LEN, LEN 1..96)
inv:7: node n6 has two job prefixes on net (none)"

# ----------------------------------------------------------------------------
# The hooks, with stand-ins for eastwestctl and scontrol.

mkdir -p "$T/bin" "$T/etc" "$T/cg/system.slice/n1_slurmstepd.scope"
cat >"$T/etc/inventory" <<'EOF'
n1 192.0.2.1
n2 192.0.2.2 lid:7
EOF
cat >"$T/etc/slurm-partitions" <<'EOF'
*    jobaddr shared mode enforce
gpu  jobaddr shared vlan 100 encrypt any
EOF
# eastwestctl: logs its arguments; "job del" answers as $T/del says (rc and
# message), "job add" as $T/add says, and is killed if $T/add-killed exists.
# The job's SAs are the file $T/sa: "path add" makes it (unless $T/pathadd
# says otherwise), and if $T/pathadd-killed exists kills the prolog, as
# slurmd does at PrologTimeout, after the first SA; "path del" removes it,
# or answers 5 (no SAs) when there is none, unless $T/pathdel says otherwise.
cat >"$T/bin/eastwestctl" <<EOF
#!/bin/sh
echo "\$*" >>"$T/ctl.log"
case "\$1 \$2" in
"job del") f=$T/del ;;
"job add")
	[ ! -f "$T/add-killed" ] || kill -KILL \$\$
	f=$T/add ;;
"path add")
	f=$T/pathadd
	if [ ! -f "\$f" ]; then
		: >"$T/sa"
		[ -f "$T/pathadd-killed" ] || exit 0
		p=\$PPID
		while [ "\$p" -gt 1 ] && ! grep -q slurm-prolog "/proc/\$p/cmdline" 2>/dev/null; do
			p=\$(awk '/^PPid:/ { print \$2 }' "/proc/\$p/status")
		done
		[ "\$p" -le 1 ] || kill -KILL "\$p"
		exit 1
	fi ;;
"path del")
	f=$T/pathdel
	if [ ! -f "\$f" ]; then
		[ -f "$T/sa" ] || { echo "eastwestctl: path del: no IPsec states" >&2; exit 5; }
		rm -f "$T/sa"
		exit 0
	fi ;;
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
# environment (slurmd 23.02's, with the run's start time and restart count;
# plus VARs); its exit code and the stand-in eastwestctl's log (lines
# joined by " | ") must be as wanted.
hook() {
	desc=$1
	want_rc=$2
	want_log=$3
	h=$4
	shift 4
	: >"$T/ctl.log"
	env -i EW_CTL="$T/bin/eastwestctl" EW_CONF_DIR="$T/etc" EW_CGROUP_MOUNT="$T/cg" \
		EW_STATE_DIR="$T/state" EW_SYSFS="$T/sys" EW_GID_TIMEOUT=1 \
		PATH="$T/bin:/usr/bin:/bin" SLURM_JOB_ID=42 SLURMD_NODENAME=n1 \
		SLURM_JOB_PARTITION=gpu SLURM_NODELIST='n[1-2]' SLURM_JOB_NUM_NODES=2 \
		SLURM_JOB_START_TIME=1796601600 SLURM_JOB_RESTART_COUNT=0 \
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


# ----------------------------------------------------------------------------
# The hooks with per-job addresses: stand-ins for ip and rdma, a sysfs copy
# with a netdev eth0, its VLAN eth0.100 and rxe0 on eth0 (a GID table of 8).

cat >"$T/etc/inventory" <<'EOF'
n1 192.0.2.1 jobs:fd00:ee::1:0:0/64
n2 192.0.2.2 jobs:fd00:ee::2:0:0/64
EOF
cat >"$T/etc/slurm-partitions" <<'EOF'
*    jobaddr shared
gpu  jobaddr eth0.100 mode enforce
bad  jobaddr eth9
esp  jobaddr eth0.100 encrypt ipsec
EOF
S=$T/sys
G=$S/class/infiniband/rxe0/ports/1
ZERO=0000:0000:0000:0000:0000:0000:0000:0000
mkdir -p "$S/class/net/eth0" "$S/class/net/eth0.100/lower_eth0" "$G/gids" "$G/gid_attrs/ndevs" \
	"$G/gid_attrs/types"
gids_reset() {
	for i in 0 1 2 3 4 5 6 7; do
		echo "$ZERO" >"$G/gids/$i"
		: >"$G/gid_attrs/ndevs/$i"
		: >"$G/gid_attrs/types/$i"
	done
	# eth0's link-local GIDs (RoCE v1 and v2, as on mlx5).
	for i in 0 1; do
		echo fe80:0000:0000:0000:0000:00ff:fe00:0001 >"$G/gids/$i"
		echo eth0 >"$G/gid_attrs/ndevs/$i"
	done
	echo "IB/RoCE v1" >"$G/gid_attrs/types/0"
	echo "RoCE v2" >"$G/gid_attrs/types/1"
	: >"$T/addrs"
}
# ip: the node's IPv6 addresses are the lines "DEV ADDR/LEN" of $T/addrs;
# "addr add" also fills two GID entries (as the core does: RoCE v1 and v2)
# unless $T/nogid exists, and fails as $T/ipfail says, or, if $T/ipracer
# exists, adds the address as something else would just before and fails
# with "File exists"; "addr del" empties them again.
cat >"$T/bin/ip" <<EOF
#!/bin/sh
echo "ip \$*" >>"$T/ip.log"
exploded() {
	python3 -c 'import ipaddress, sys; print(ipaddress.ip_address(sys.argv[1]).exploded)' "\$1"
}
case "\$*" in
"-o -6 addr show to "*)
	want=\$(exploded "\${6%/*}")
	while read -r dev a; do
		[ "\$(exploded "\${a%/*}")" != "\$want" ] || echo "5: \$dev    inet6 \$a scope global nodad"
	done <"$T/addrs"
	exit 0 ;;
"-6 addr add "*)
	if [ -f "$T/ipfail" ]; then cat "$T/ipfail" >&2; exit 2; fi
	if [ -f "$T/ipracer" ]; then
		echo "\$6 \$4" >>"$T/addrs"
		echo "RTNETLINK answers: File exists" >&2
		exit 2
	fi
	echo "\$6 \$4" >>"$T/addrs"
	[ ! -f "$T/nogid" ] || exit 0
	g=\$(exploded "\${4%/*}")
	n=0
	for i in 0 1 2 3 4 5 6 7; do
		if [ \$n -lt 2 ] && grep -qx "$ZERO" "$G/gids/\$i"; then
			echo "\$g" >"$G/gids/\$i"
			echo "\$6" >"$G/gid_attrs/ndevs/\$i"
			n=\$((n + 1))
		fi
	done
	exit 0 ;;
"-6 addr del "*)
	g=\$(exploded "\${4%/*}")
	grep -v " \$4\\\$" "$T/addrs" >"$T/addrs.new"
	mv "$T/addrs.new" "$T/addrs"
	for i in 0 1 2 3 4 5 6 7; do
		if grep -qx "\$g" "$G/gids/\$i"; then
			echo "$ZERO" >"$G/gids/\$i"
			: >"$G/gid_attrs/ndevs/\$i"
		fi
	done
	exit 0 ;;
esac
exit 1
EOF
cat >"$T/bin/rdma" <<'EOF'
#!/bin/sh
[ "$*" = "link show" ] || exit 1
echo "link rxe0/1 state ACTIVE physical_state LINK_UP netdev eth0"
EOF
chmod 755 "$T/bin/ip" "$T/bin/rdma"

A1=fd00:ee:0:0:0:1:0:2a
GID1=fd00:00ee:0000:0000:0000:0001:0000:002a
JADD="job add slurm-42 cgroup /system.slice/n1_slurmstepd.scope/job_42 netdev eth0.100 mode enforce peer $A1 peer fd00:ee:0:0:0:2:0:2a"

# nothing_left DESC: no address, no GID, no state file, no cgroup remain.
nothing_left() {
	left=
	[ ! -s "$T/addrs" ] || left="$left address: $(cat "$T/addrs");"
	! grep -q fd00 "$G"/gids/* || left="$left GID;"
	[ -z "$(ls -A "$T/state" 2>/dev/null)" ] || left="$left state: $(ls "$T/state");"
	[ ! -d "$JOBCG" ] || left="$left cgroup;"
	if [ -z "$left" ]; then ok "$1: nothing left"; else not_ok "$1: nothing left" "$left"; fi
}
# out_has DESC TEXT: the hook's message says TEXT.
out_has() {
	if grep -qF -- "$2" "$T/out"; then
		ok "$1: says \"$2\""
	else
		not_ok "$1: says \"$2\"" "$(cat "$T/out")"
	fi
}

gids_reset
rm -f "$T/add" "$T/ipfail" "$T/nogid"
printf '5\neastwestctl: job del slurm-42: no such job name\n' >"$T/del"
: >"$T/ip.log"
hook "job address: prolog binds netdev eth0.100, peers are the job's addresses" 0 \
	"job del slurm-42 | $JADD" slurm-prolog
if grep -qx "eth0.100 $A1/64" "$T/addrs" &&
	grep -q "ip -6 addr add $A1/64 dev eth0.100 nodad" "$T/ip.log"; then
	ok "job address: ... $A1/64 is on eth0.100"
else
	not_ok "job address: ... $A1/64 is on eth0.100" "$(cat "$T/addrs" "$T/ip.log")"
fi
if [ "$(grep -lx "$GID1" "$G"/gids/* | wc -l)" -eq 2 ]; then
	ok "job address: ... and its GIDs are in rxe0's table"
else
	not_ok "job address: ... and its GIDs are in rxe0's table"
fi
if [ "$(cat "$T/state/42" 2>/dev/null)" = "eth0.100 $A1/64 $GID1 rxe0/1" ]; then
	ok "job address: ... recorded for the epilog"
else
	not_ok "job address: ... recorded for the epilog" "$(cat "$T/state/42" 2>&1)"
fi
if [ "$(stat -c %a "$T/state")" = 700 ]; then
	ok "job address: ... in a directory only root reads"
else
	not_ok "job address: ... in a directory only root reads" "$(stat -c %a "$T/state")"
fi
printf '0\n' >"$T/del"
hook "job address: epilog removes the address, then the job" 0 "job del slurm-42" slurm-epilog
nothing_left "job address: after the epilog"
printf '5\neastwestctl: job del slurm-42: no such job name\n' >"$T/del"

gids_reset
echo "eth0 $A1/64" >"$T/addrs"
hook "job address: the address is already on the node: exit 8, no job" 8 "job del slurm-42" slurm-prolog
out_has "address collision" "the job's address $A1 is already on eth0 of this node"
: >"$T/addrs"
nothing_left "address collision"

gids_reset
for i in 2 3 4 5 6; do echo "fd00:0000:0000:0000:0000:0000:0000:000$i" >"$G/gids/$i"; done
hook "job address: GID table full: exit 8, no job" 8 "job del slurm-42" slurm-prolog
out_has "GID table full" "the GID table of rxe0/1 is full (7 of 8 entries used, an address takes 2)"
gids_reset
nothing_left "GID table full"

# rxe has RoCE v2 GIDs only: one entry per address, so one free is room.
gids_reset
echo "RoCE v2" >"$G/gid_attrs/types/0"
for i in 2 3 4 5 6; do echo "fd00:0000:0000:0000:0000:0000:0000:000$i" >"$G/gids/$i"; done
hook "job address: one free entry in a RoCE v2-only table is room" 0 "job del slurm-42 | $JADD" slurm-prolog
if [ "$(grep -lx "$GID1" "$G"/gids/* | wc -l)" -eq 1 ]; then
	ok "job address: ... its GID took the last entry"
else
	not_ok "job address: ... its GID took the last entry"
fi
hook "job address: ... epilog" 0 "job del slurm-42" slurm-epilog
gids_reset
nothing_left "RoCE v2-only table"

hook "job address: the partition's netdev is missing: exit 8, no job" 8 "job del slurm-42" \
	slurm-prolog SLURM_JOB_PARTITION=bad
out_has "missing netdev" "the netdev eth9 for the jobs' addresses (jobaddr in $T/etc/slurm-partitions) does not exist on n1"
nothing_left "missing netdev"

mv "$T/bin/rdma" "$T/bin/rdma.off"
hook "job address: no RDMA device below the netdev: exit 8, no job" 8 "job del slurm-42" slurm-prolog
out_has "no RDMA device" "no RDMA device is on eth0.100 or below it"
mv "$T/bin/rdma.off" "$T/bin/rdma"
nothing_left "no RDMA device"

echo "RTNETLINK answers: File exists" >"$T/ipfail"
hook "job address: ip refuses the address: exit 8, no job" 8 "job del slurm-42" slurm-prolog
out_has "ip refuses" "ip -6 addr add $A1/64 dev eth0.100 failed: RTNETLINK answers: File exists"
rm -f "$T/ipfail"
nothing_left "ip refuses"

# Something else adds the address between the check and ip's add: the
# prolog added nothing, so it removes nothing.
: >"$T/ip.log"
: >"$T/ipracer"
hook "job address: added by another meanwhile: exit 8, no job" 8 "job del slurm-42" slurm-prolog
rm -f "$T/ipracer"
if ! grep -q "addr del" "$T/ip.log" && grep -qx "eth0.100 $A1/64" "$T/addrs"; then
	ok "job address: ... and the other's address is left"
else
	not_ok "job address: ... and the other's address is left" "$(cat "$T/addrs" "$T/ip.log")"
fi
if [ ! -e "$T/state/42" ]; then
	ok "job address: ... and no record is left"
else
	not_ok "job address: ... and no record is left" "$(cat "$T/state/42")"
fi
gids_reset

: >"$T/nogid"
hook "job address: its GID never appears: exit 8, no job" 8 "job del slurm-42" slurm-prolog
out_has "GID never appears" "the GID of $A1 did not appear on rxe0/1 within 1s"
rm -f "$T/nogid"
gids_reset
nothing_left "GID never appears"

printf '1\neastwestctl: job add slurm-42: cgroup belongs to job 3\n' >"$T/add"
hook "job address: eastwestctl refuses the job: exit 1" 1 "job del slurm-42 | $JADD" slurm-prolog
rm -f "$T/add"
nothing_left "eastwestctl refuses"

# A requeued job whose epilog failed: its old address is replaced.
mkdir -p "$T/state"
echo "eth0.100 $A1/64 $GID1 rxe0/1" >"$T/state/42"
echo "eth0.100 $A1/64" >"$T/addrs"
hook "job address: a stale address of the same job is replaced" 0 "job del slurm-42 | $JADD" slurm-prolog
if [ "$(grep -c "$A1" "$T/addrs")" -eq 1 ]; then
	ok "job address: ... once"
else
	not_ok "job address: ... once" "$(cat "$T/addrs")"
fi
hook "job address: epilog" 0 "job del slurm-42" slurm-epilog
hook "job address: a second epilog run exits 0" 0 "job del slurm-42" slurm-epilog
nothing_left "job address: after two epilogs"



# ----------------------------------------------------------------------------
# Per-job ESP keys: a partition with "jobaddr IFNAME" and "encrypt ipsec".
# The prolog makes the job's SAs between its own address here and its
# addresses on the other nodes, keyed from the cluster key, the job's name
# and its run (eastwestctl path add ... job NAME run START.RESTARTS); the
# epilog removes exactly them.

A2=fd00:ee:0:0:0:2:0:2a
KEY=$T/etc/cluster.key
RUN=1796601600.0
EADD="path add dev eth0.100 type ipsec key-file $KEY job slurm-42 run $RUN local $A1 peer $A2"
EDEL="path del dev eth0.100 job slurm-42 local $A1"
EJADD="job add slurm-42 cgroup /system.slice/n1_slurmstepd.scope/job_42 netdev eth0.100 encrypt ipsec peer $A1 peer $A2"
# esp_left DESC: no SA and no ESP state file of the job remain.
esp_left() {
	if [ ! -e "$T/state/42.esp" ] && [ ! -e "$T/sa" ]; then
		ok "$1: no ESP state left"
	else
		not_ok "$1: no ESP state left" "$(cat "$T/state/42.esp" 2>&1; ls "$T/sa" 2>&1)"
	fi
}
gids_reset
rm -f "$T/add" "$T/pathadd" "$T/pathdel"
printf '5\neastwestctl: job del slurm-42: no such job name\n' >"$T/del"
(umask 077 && head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$KEY")

hook "per-job ESP: prolog makes the job's SAs to its address on the other node only, then the job" 0 \
	"job del slurm-42 | $EADD | $EJADD" slurm-prolog SLURM_JOB_PARTITION=esp
if [ "$(cat "$T/state/42.esp" 2>/dev/null)" = "eth0.100 $A1 $RUN" ]; then
	ok "per-job ESP: ... recorded for the epilog, with the run"
else
	not_ok "per-job ESP: ... recorded for the epilog, with the run" "$(cat "$T/state/42.esp" 2>&1)"
fi
printf '0\n' >"$T/del"
hook "per-job ESP: epilog removes the address, the job, then exactly the job's SAs" 0 \
	"job del slurm-42 | $EDEL" slurm-epilog
nothing_left "per-job ESP: after the epilog"
esp_left "per-job ESP: after the epilog"
hook "per-job ESP: a second epilog run exits 0 and touches no SA" 0 "job del slurm-42" slurm-epilog
printf '5\neastwestctl: job del slurm-42: no such job name\n' >"$T/del"

# The run: another for a requeued job (the same id, the next restart count,
# a later start); the start time from slurmctld when slurmd (22.05) does not
# give it, in seconds whatever the time zone; no run, no SAs.
EADD2="path add dev eth0.100 type ipsec key-file $KEY job slurm-42 run 1796605200.1 local $A1 peer $A2"
hook "per-job ESP: a requeued job: its SAs are of its second run" 0 \
	"job del slurm-42 | $EADD2 | $EJADD" slurm-prolog SLURM_JOB_PARTITION=esp \
	SLURM_JOB_RESTART_COUNT=1 SLURM_JOB_START_TIME=1796605200
if [ "$(cat "$T/state/42.esp" 2>/dev/null)" = "eth0.100 $A1 1796605200.1" ]; then
	ok "per-job ESP: ... its run recorded"
else
	not_ok "per-job ESP: ... its run recorded" "$(cat "$T/state/42.esp" 2>&1)"
fi
printf '0\n' >"$T/del"
hook "per-job ESP: ... epilog" 0 "job del slurm-42 | $EDEL" slurm-epilog
printf '5\neastwestctl: job del slurm-42: no such job name\n' >"$T/del"
gids_reset
nothing_left "requeued job"

# squeue: prints the start time in seconds only when asked so.
cat >"$T/bin/squeue" <<'SQ'
#!/bin/sh
[ ! -e "$EW_TEST_SQUEUE_FAIL" ] || exit 1
case " $* " in
*" -o %S "*)
	if [ "${SLURM_TIME_FORMAT:-}" = %s ]; then echo 1796608800; else echo 2026-12-07T12:00:00; fi ;;
*) echo "unexpected squeue $*" >&2; exit 1 ;;
esac
SQ
chmod 755 "$T/bin/squeue"
EADD3="path add dev eth0.100 type ipsec key-file $KEY job slurm-42 run 1796608800.0 local $A1 peer $A2"
hook "per-job ESP: slurmd without the start time: from squeue, in seconds" 0 \
	"job del slurm-42 | $EADD3 | $EJADD" slurm-prolog SLURM_JOB_PARTITION=esp \
	SLURM_JOB_START_TIME=
printf '0\n' >"$T/del"
hook "per-job ESP: ... epilog" 0 "job del slurm-42 | $EDEL" slurm-epilog
printf '5\neastwestctl: job del slurm-42: no such job name\n' >"$T/del"
gids_reset
nothing_left "start time from squeue"
hook "per-job ESP: no start time and squeue fails: exit 5, nothing made" 5 "job del slurm-42" \
	slurm-prolog SLURM_JOB_PARTITION=esp SLURM_JOB_START_TIME= EW_TEST_SQUEUE_FAIL=/
out_has "squeue fails" "SLURM_TIME_FORMAT=%s squeue -h -t all -j 42 -o %S failed"
nothing_left "squeue fails"
esp_left "squeue fails"
hook "per-job ESP: a start time that is not seconds: exit 5, nothing made" 5 "job del slurm-42" \
	slurm-prolog SLURM_JOB_PARTITION=esp SLURM_JOB_START_TIME=2026-12-07T12:00:00
out_has "bad start time" "cannot tell the job's start time ('2026-12-07T12:00:00')"
nothing_left "bad start time"
esp_left "bad start time"
hook "per-job ESP: a restart count that is not a number: exit 5, nothing made" 5 "job del slurm-42" \
	slurm-prolog SLURM_JOB_PARTITION=esp SLURM_JOB_RESTART_COUNT=-1
out_has "bad restart count" "SLURM_JOB_RESTART_COUNT is '-1', not a count"
nothing_left "bad restart count"
esp_left "bad restart count"
rm -f "$T/bin/squeue"

hook "per-job ESP: a job on one node has no other node: no SAs" 0 \
	"job del slurm-42 | job add slurm-42 cgroup /system.slice/n1_slurmstepd.scope/job_42 netdev eth0.100 encrypt ipsec peer $A1" \
	slurm-prolog SLURM_JOB_PARTITION=esp SLURM_NODELIST=n1 SLURM_JOB_NUM_NODES=1
esp_left "per-job ESP: one node"
hook "per-job ESP: ... epilog" 0 "job del slurm-42" slurm-epilog
gids_reset
nothing_left "per-job ESP: one node"

mv "$KEY" "$KEY.off"
hook "per-job ESP: no cluster key: exit 9, nothing made" 9 "job del slurm-42" \
	slurm-prolog SLURM_JOB_PARTITION=esp
out_has "no cluster key" "the cluster key $KEY (EW_PSN_KEYFILE) is not readable"
nothing_left "no cluster key"
esp_left "no cluster key"
mv "$KEY.off" "$KEY"

printf '1\neastwestctl: path add: key file %s: mode 0644 is too open\n' "$KEY" >"$T/pathadd"
hook "per-job ESP: eastwestctl refuses the SAs: exit 9, nothing made" 9 \
	"job del slurm-42 | $EADD | $EDEL" slurm-prolog SLURM_JOB_PARTITION=esp
out_has "SAs refused" "eastwestctl path add dev eth0.100 ... job slurm-42 failed (1): eastwestctl: path add: key file"
rm -f "$T/pathadd"
gids_reset
nothing_left "SAs refused"
esp_left "SAs refused"

printf '1\neastwestctl: job add slurm-42: cgroup belongs to job 3\n' >"$T/add"
hook "per-job ESP: job add refused after the SAs: exit 1, the SAs are removed again" 1 \
	"job del slurm-42 | $EADD | $EJADD | $EDEL" slurm-prolog SLURM_JOB_PARTITION=esp
rm -f "$T/add"
gids_reset
nothing_left "job add refused after the SAs"
esp_left "job add refused after the SAs"

hook "per-job ESP: the partition's netdev is missing: exit 8, no SAs" 8 "job del slurm-42" \
	slurm-prolog SLURM_JOB_PARTITION=bad
esp_left "missing netdev"

# The epilog fails (slurmd drains the node) when the job's SAs may remain.
hook "per-job ESP: prolog again" 0 "job del slurm-42 | $EADD | $EJADD" slurm-prolog SLURM_JOB_PARTITION=esp
printf '1\neastwestctl: path del: XFRM: Operation not permitted\n' >"$T/pathdel"
printf '0\n' >"$T/del"
hook "per-job ESP: path del fails: epilog exit 9, the ESP state kept for the next run" 9 \
	"job del slurm-42 | $EDEL" slurm-epilog
if [ -e "$T/state/42.esp" ]; then ok "per-job ESP: ... state kept"; else not_ok "per-job ESP: ... state kept"; fi
printf '5\neastwestctl: path del: dev eth0.100: job slurm-42 has no IPsec states for local %s\n' "$A1" >"$T/pathdel"
printf '5\neastwestctl: job del slurm-42: no such job name\n' >"$T/del"
hook "per-job ESP: SAs already gone is success" 0 "job del slurm-42 | $EDEL" slurm-epilog
rm -f "$T/pathdel" "$T/sa"
gids_reset
nothing_left "per-job ESP: at the end"
esp_left "per-job ESP: at the end"

# slurmd kills the prolog (PrologTimeout) while eastwestctl makes the SAs:
# their record is there already, and the epilog removes them.
: >"$T/pathadd-killed"
hook "per-job ESP: prolog killed during path add" 137 "job del slurm-42 | $EADD" \
	slurm-prolog SLURM_JOB_PARTITION=esp
rm -f "$T/pathadd-killed"
if [ "$(cat "$T/state/42.esp" 2>/dev/null)" = "eth0.100 $A1 $RUN" ] && [ -e "$T/sa" ]; then
	ok "per-job ESP: ... the SA made is recorded for the epilog"
else
	not_ok "per-job ESP: ... the SA made is recorded for the epilog" "$(ls "$T/state" "$T/sa" 2>&1)"
fi
hook "per-job ESP: ... the epilog removes it" 0 "job del slurm-42 | $EDEL" slurm-epilog
gids_reset
nothing_left "prolog killed during path add"
esp_left "prolog killed during path add"

# Killed before eastwestctl made any: the epilog and the next prolog take
# the record of SAs never made as done.
mkdir -p "$T/state"
echo "eth0.100 $A1" >"$T/state/42.esp"
hook "per-job ESP: a record of SAs never made: the prolog goes on" 0 \
	"job del slurm-42 | $EDEL | $EADD | $EJADD" slurm-prolog SLURM_JOB_PARTITION=esp
hook "per-job ESP: ... epilog" 0 "job del slurm-42 | $EDEL" slurm-epilog
gids_reset
nothing_left "record of SAs never made, prolog"
esp_left "record of SAs never made, prolog"
mkdir -p "$T/state"
echo "eth0.100 $A1" >"$T/state/42.esp"
hook "per-job ESP: a record of SAs never made: the epilog exits 0" 0 "job del slurm-42 | $EDEL" slurm-epilog
nothing_left "record of SAs never made, epilog"
esp_left "record of SAs never made, epilog"

# eastwestctl killed during job add (the job made, part of its peers not):
# the prolog deletes the job too.
printf '5\neastwestctl: job del slurm-42: no such job name\n' >"$T/del"
: >"$T/add-killed"
hook "prolog: eastwestctl killed during job add: the job it may have left is deleted" 1 \
	"job del slurm-42 | $EADD | $EJADD | job del slurm-42 | $EDEL" slurm-prolog SLURM_JOB_PARTITION=esp
rm -f "$T/add-killed"
gids_reset
nothing_left "eastwestctl killed during job add"
esp_left "eastwestctl killed during job add"

# ----------------------------------------------------------------------------
# Keyed PSNs: the key is that of the job's run (psn-keyfile ... psn-run
# START.RESTARTS), so that a requeued job, or a job id handed out again,
# does not get an earlier run's key.
echo "keyed jobaddr shared psn keyed" >>"$T/etc/slurm-partitions"
KJADD="job add slurm-42 cgroup /system.slice/n1_slurmstepd.scope/job_42 psn keyed psn-keyfile $KEY peer 192.0.2.1 peer 192.0.2.2"
printf '5\neastwestctl: job del slurm-42: no such job name\n' >"$T/del"
hook "psn keyed: the job's key is of its run" 0 \
	"job del slurm-42 | $KJADD psn-run 1796601600.0" slurm-prolog SLURM_JOB_PARTITION=keyed
hook "psn keyed: ... epilog" 0 "job del slurm-42" slurm-epilog
hook "psn keyed: a requeued job's key is of its second run" 0 \
	"job del slurm-42 | $KJADD psn-run 1796605200.1" slurm-prolog SLURM_JOB_PARTITION=keyed \
	SLURM_JOB_RESTART_COUNT=1 SLURM_JOB_START_TIME=1796605200
hook "psn keyed: ... epilog" 0 "job del slurm-42" slurm-epilog
hook "psn keyed: no run (a bad restart count): no job" 5 "job del slurm-42" \
	slurm-prolog SLURM_JOB_PARTITION=keyed SLURM_JOB_RESTART_COUNT=-1
out_has "psn keyed: bad restart count" "SLURM_JOB_RESTART_COUNT is '-1', not a count"
nothing_left "psn keyed: at the end"
sed -i '$d' "$T/etc/slurm-partitions"

echo "1..$n"
[ "$failed" -eq 0 ]
