#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 2
# ew-timeout: 1200
# ew-kernels: 6.12
#
# Per-job ESP keys. Two nodes, soft-RoCE rxe0 on eth0 of each VM, the
# partition's VLAN 100 netdev ewv100 on it, a partition "jobaddr ewv100
# encrypt ipsec" and one cluster key file (the same bytes on both nodes).
# The real slurm-prolog and slurm-epilog run as slurmd would run them for
# two jobs A and B on both nodes. Then:
#   - bad input fails the prolog and leaves nothing (no address, GID, state,
#     cgroup, eastwest job, ESP state or policy): no cluster key, a key file
#     others may read (eastwestctl refuses it), a missing jobaddr netdev;
#   - each job has exactly its own SAs, between its address here and its
#     address on the other node, one each way, with the SPI and key an
#     independent implementation (selftests/tools/ew_kdf.py job-esp)
#     derives from the cluster key, the job's name and its run (start time
#     and restart count, from slurmd's environment; the prolog's state file
#     says which): A's and B's SPIs and keys differ, and neither job has an
#     SA with the other's addresses;
#   - A's verified RDMA traffic (ibv_rc_pingpong) between A's addresses is
#     ESP on the wire: a capture on eth0 holds ESP and never the payload
#     pattern or clear RoCE (UDP 4791);
#   - rotating A's key (path rotate ... job slurm-A, rx, tx, retire on both
#     nodes) gives A's SAs the epoch-1 SPIs and leaves B's byte for byte;
#     A's traffic works after it;
#   - B's epilog removes exactly B's SAs and policies: A's stay as they
#     were and A's connection still works, encrypted;
#   - job A requeued (its epilog, then its prolog again with the next
#     restart count and a later start time, as slurmd runs it): its new SAs
#     have other SPIs and keys than the first run's on both directions, so
#     nothing of the first run's traffic replays into the second and no
#     AES-GCM key meets its sequence numbers again; its traffic works;
#   - A's epilog leaves no SA or policy of eastwest's at all.
# Every node runs the same assertions.

. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../slurm-lib.sh"

slurm_bed_vars
KDF=$EW_TOP/selftests/tools/ew_kdf.py

ew_require_root
ew_require_nodes 2
ew_require_cmd rdma ip ibv_rc_pingpong python3 timeout scontrol tshark
ew_require_built ctl cgroup

T=$(mktemp -d)
# The captures (ew_capture_start) go to EW_TMP.
EW_TMP=$T
ew_defer "rm -rf $T"
ew_defer "ew_netdev_del $VLAN"
ew_defer "rdma link delete $DEV"
ew_defer "ip xfrm policy flush; ip xfrm state flush"
ew_defer "ew_rmmod"
ew_defer 'kill_bg'
ew_defer "rmdir $EW_CG/system.slice/${ME}_slurmstepd.scope/job_* $EW_CG/system.slice/${ME}_slurmstepd.scope $EW_CG/system.slice"

# xfrm_of ADDR: the ESP states and policies that name ADDR.
xfrm_of() {
	{ ip xfrm state; ip xfrm policy; } | grep -c -- "$1"
}

# nothing_left JOBID: no address, GID, state file, cgroup, eastwest job, ESP
# state or policy of job JOBID on this node.
nothing_left() {
	_a=$(addr "$EW_NODE" "$1")
	_p=$(addr $((1 - EW_NODE)) "$1")
	_left=
	[ -z "$(ip -o -6 addr show to "$_a/128")" ] || _left="$_left address $_a;"
	[ "$(gid_count "$_a")" -eq 0 ] || _left="$_left its GID;"
	[ -z "$(ls "$T/state/$1"* 2>/dev/null)" ] || _left="$_left state file;"
	[ ! -d "$EW_CG$(cgroup_of "$1")" ] || _left="$_left cgroup;"
	! "$CTL" job show "slurm-$1" >/dev/null 2>&1 || _left="$_left eastwest job slurm-$1;"
	[ "$(xfrm_of "$_a")" -eq 0 ] && [ "$(xfrm_of "$_p")" -eq 0 ] || _left="$_left XFRM state;"
	[ -z "$_left" ] || {
		echo "left:$_left" >&2
		ip xfrm state >&2
		return 1
	}
}

# sa SRC DST: "SPI KEY" of the ESP state from SRC to DST ("" if none; the
# number of states on the second line).
sa() {
	ip xfrm state list src "$1" dst "$2" proto esp |
		awk '/proto esp spi/ { spi = $4; n++ } /aead/ { key = $3 }
			END { print spi " " key; print n + 0 }'
}

# run_of JOB: the run the prolog keyed the job's SAs with (its state file's
# third word).
run_of() {
	awk '{ print $3 }' "$T/state/$1.esp" 2>/dev/null
}

# want_sa JOB SRC DST EPOCH: "SPI KEY" as ew_kdf.py derives it for the job's
# run (the key as ip xfrm prints it: 0x and the 36 bytes of key and salt).
want_sa() {
	python3 "$KDF" job-esp "$KEY" "slurm-$1" "$(run_of "$1")" "$2" "$3" "$4" |
		awk '{ print $2 " 0x" $1 }'
}

# check_sas DESC JOB EPOCH: the job's two SAs on this node are exactly the
# derived ones, one each way.
check_sas() {
	_a=$(addr "$EW_NODE" "$2")
	_p=$(addr $((1 - EW_NODE)) "$2")
	_out=$(sa "$_a" "$_p")
	_in=$(sa "$_p" "$_a")
	_wo=$(want_sa "$2" "$_a" "$_p" "$3")
	_wi=$(want_sa "$2" "$_p" "$_a" "$3")
	if [ "$_out" = "$_wo
1" ] && [ "$_in" = "$_wi
1" ]; then
		ew_ok "$1: out ${_wo%% *}, in ${_wi%% *} (epoch $3, from the cluster key, slurm-$2 and run $(run_of "$2"))"
	else
		ew_not_ok "$1"
		ew_diag "out: $(echo "$_out" | tr '\n' ' ') want $_wo"
		ew_diag "in:  $(echo "$_in" | tr '\n' ' ') want $_wi"
		ip xfrm state | sed 's/^/#   /'
	fi
}

# pingpong NAME JOBID: the job's ibv_rc_pingpong between the nodes over its
# addresses (node 0 serves), with a capture on eth0; status 0 when every
# round trip completed and was verified.
pingpong() {
	_name=$1
	_j=$2
	ew_capture_start "$_name"
	job_pingpong "$_name" "$_j" 0
	_rc=$?
	barrier "$_name-done"
	ew_capture_stop
	[ "$_rc" -eq 0 ] && grep -q "^$ITERS iters" "$T/$_name.pp" || {
		show "$T/$_name.pp"
		return 1
	}
}

# encrypted NAME: the capture holds ESP, never the payload or clear RoCE.
encrypted() {
	_e=$(ew_frames "$1" esp)
	_r=$(ew_frames "$1" 'udp.port == 4791')
	_p=$(ew_pattern_count "$1")
	ew_diag "$1: $_e ESP frames, $_r clear RoCE frames, $_p payload runs"
	[ "$_e" -gt 0 ] && [ "$_r" -eq 0 ] && [ "$_p" -eq 0 ]
}

# rotate JOB STAGE: one stage of the job's key rotation to epoch 1.
rotate() {
	"$CTL" path rotate dev "$VLAN" key-file "$KEY" epoch 1 stage "$2" \
		job "slurm-$1" run "$(run_of "$1")" local "$(addr "$EW_NODE" "$1")" \
		>"$T/rotate.out" 2>&1 || {
		show "$T/rotate.out"
		return 1
	}
}

ew_plan 47

# --- setup (4: slurm_bed's 3) ------------------------------------------------------------------
slurm_bed
cat >"$T/etc/slurm-partitions" <<EOF
*       jobaddr $VLAN mode enforce encrypt ipsec
nodev   jobaddr ewv999 encrypt ipsec
EOF
# The cluster key: the same 32 bytes on both nodes.
KEY=$T/etc/cluster.key
(umask 077 && printf '%s\n' 00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff >"$KEY")
ew_check "no ESP state or policy before the jobs" \
	sh -c "[ -z \"\$(ip xfrm state)\" ] && ! ip xfrm policy | grep -q fd00:ee"

# --- bad input: nothing half made (9) ---------------------------------------------
expect_hook 9 "no cluster key: prolog fails" prolog 201 '*' EW_PSN_KEYFILE="$T/none.key"
ew_check "... it says the cluster key is not readable" says "is not readable: the job's ESP keys derive from it"
ew_check "... nothing left" nothing_left 201
cp "$KEY" "$T/loose.key"
chmod 0644 "$T/loose.key"
expect_hook 9 "a cluster key others may read: eastwestctl refuses it, prolog fails" \
	prolog 202 '*' EW_PSN_KEYFILE="$T/loose.key"
ew_check "... it names the file's mode" says "mode 0644 is too open"
ew_check "... nothing left (address, GID, cgroup, SAs)" nothing_left 202
expect_hook 8 "missing jobaddr netdev: prolog fails" prolog 203 nodev
ew_check "... it names the netdev" says "the netdev ewv999 for the jobs' addresses"
ew_check "... nothing left" nothing_left 203
barrier errors

# --- jobs A and B on both nodes (8) -------------------------------------------------
jobs_ab_prolog
check_sas "job A's SAs: $AA <-> $PA, keyed from A's secret" "$JA" 0
check_sas "job B's SAs: $AB <-> $PB, keyed from B's secret" "$JB" 0
SA_A=$(sa "$AA" "$PA")
SA_B=$(sa "$AB" "$PB")
ew_check "A's and B's SPIs and keys differ (${SA_A%% *} vs ${SA_B%% *})" \
	sh -c "[ \"${SA_A%% *}\" != \"${SA_B%% *}\" ] &&
		[ \"$(echo "$SA_A" | head -n 1 | cut -d' ' -f2)\" != \"$(echo "$SA_B" | head -n 1 | cut -d' ' -f2)\" ]"
ew_check "no SA joins one job's address to the other's" \
	sh -c "[ \"\$(ip xfrm state list src $AA dst $PB | grep -c spi)\" -eq 0 ] &&
		[ \"\$(ip xfrm state list src $AB dst $PA | grep -c spi)\" -eq 0 ] &&
		[ \"\$(ip xfrm state | grep -c 'proto esp')\" -eq 4 ]"
ew_check "each job's ESP policies are for its own pair only (out $AA -> $PA, out $AB -> $PB)" \
	sh -c "ip xfrm policy list src $AA dst $PA dir out | grep -q 'proto esp' &&
		ip xfrm policy list src $AB dst $PB dir out | grep -q 'proto esp' &&
		! ip xfrm policy list src $AA dst $PB dir out | grep -q 'proto esp'"
ew_check "eastwestctl path show lists both jobs' states on $VLAN" \
	sh -c "'$CTL' path show dev $VLAN | grep -c 'spi 0x' | grep -qx 4"
barrier jobs-up

# --- A's traffic is ESP on the wire (2) ------------------------------------------
ew_check "job A: $ITERS verified round trips over its addresses" pingpong a1 "$JA"
ew_check "... ESP on the wire: no payload, no clear RoCE" encrypted a1

# --- rotate A's key: B untouched (6) -------------------------------------------------
B_BEFORE=$(ip xfrm state list src "$AB" dst "$PB"; ip xfrm state list src "$PB" dst "$AB")
ew_check "rotate A, stage rx" rotate "$JA" rx
barrier rot-rx
ew_check "rotate A, stage tx" rotate "$JA" tx
barrier rot-tx
ew_check "rotate A, stage retire" rotate "$JA" retire
barrier rot-retire
check_sas "job A's SAs after rotation: the epoch-1 ones only" "$JA" 1
B_AFTER=$(ip xfrm state list src "$AB" dst "$PB"; ip xfrm state list src "$PB" dst "$AB")
ew_check "job B's SAs are byte for byte as before A's rotation" test "$B_BEFORE" = "$B_AFTER"
ew_check "job A after rotation: $ITERS verified round trips" pingpong a2 "$JA"

# --- B's epilog: A's SAs and connection stay (5) -------------------------------------
A_BEFORE=$(ip xfrm state list src "$AA" dst "$PA"; ip xfrm state list src "$PA" dst "$AA")
expect_hook 0 "epilog job B" epilog "$JB" '*'
rmdir "$EW_CG$(cgroup_of "$JB")" 2>/dev/null
ew_check "... nothing of job B left, its SAs and policies included" nothing_left "$JB"
A_AFTER=$(ip xfrm state list src "$AA" dst "$PA"; ip xfrm state list src "$PA" dst "$AA")
ew_check "job A's SAs are as before B's epilog" test "$A_BEFORE" = "$A_AFTER"
barrier b-gone
ew_check "job A after B's epilog: $ITERS verified round trips" pingpong a3 "$JA"
ew_check "... still ESP on the wire" encrypted a3

# --- job A requeued: a new run, new keys (9) ----------------------------------------
# The same job id, its next run: Slurm's requeue (which the job's owner may
# ask for) keeps the id, and so the name and the addresses. What the first
# run sent must not be accepted by the second, nor its keys used again from
# sequence number 1.
RUN1=$(run_of "$JA")
OUT1=$(sa "$AA" "$PA" | head -n 1)
IN1=$(sa "$PA" "$AA" | head -n 1)
expect_hook 0 "epilog job A (requeued)" epilog "$JA" '*'
rmdir "$EW_CG$(cgroup_of "$JA")" 2>/dev/null
ew_check "... nothing of job A's first run left" nothing_left "$JA"
barrier requeue-epilog
expect_hook 0 "prolog of job A's second run (restart count 1, started later)" \
	prolog "$JA" '*' SLURM_JOB_RESTART_COUNT=1 SLURM_JOB_START_TIME=1796605200
ew_check "... its run differs from the first's ($RUN1 -> $(run_of "$JA"))" \
	sh -c "[ -n '$RUN1' ] && [ -n '$(run_of "$JA")' ] && [ '$RUN1' != '$(run_of "$JA")' ]"
OUT2=$(sa "$AA" "$PA" | head -n 1)
IN2=$(sa "$PA" "$AA" | head -n 1)
ew_diag "out: run 1 ${OUT1%% *}, run 2 ${OUT2%% *}; in: run 1 ${IN1%% *}, run 2 ${IN2%% *}"
ew_check "the second run's outbound SA has another SPI and key than the first's" \
	sh -c "[ -n '${OUT2%% *}' ] && [ '${OUT1%% *}' != '${OUT2%% *}' ] &&
		[ '${OUT1#* }' != '${OUT2#* }' ]"
ew_check "... and so has its inbound SA" \
	sh -c "[ -n '${IN2%% *}' ] && [ '${IN1%% *}' != '${IN2%% *}' ] &&
		[ '${IN1#* }' != '${IN2#* }' ]"
check_sas "job A's second run's SAs: from its own run" "$JA" 0
barrier requeue-prolog
ew_check "job A's second run: $ITERS verified round trips" pingpong a4 "$JA"
ew_check "... ESP on the wire" encrypted a4

# --- A's epilog (3) -----------------------------------------------------------------
expect_hook 0 "epilog job A" epilog "$JA" '*'
rmdir "$EW_CG$(cgroup_of "$JA")" 2>/dev/null
ew_check "... nothing of job A left" nothing_left "$JA"
ew_check "no eastwest ESP state or policy is left on the node" \
	sh -c "[ -z \"\$(ip xfrm state)\" ] && ! ip xfrm policy | grep -q fd00:ee"
barrier end

ew_check "eastwest unloads" ew_unload
ew_done
