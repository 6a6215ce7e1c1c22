#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 1
# ew-timeout: 600
# ew-kernels: 6.12
#
# The YNL spec is true: the kernel's own YNL CLI (tools/net/ynl/cli.py from
# linux-source-6.12), given only Documentation/netlink/specs/eastwest.yaml,
# creates, reads, dumps and deletes jobs, and the family's extack messages
# name the bad attribute. Also: dumps resume across many small messages,
# and writes and job reads are refused without CAP_NET_ADMIN.

. "$(dirname "$0")/../lib.sh"

YNL_DIR=/usr/src/linux-source-6.12/tools/net/ynl
SPEC=$EW_TOP/Documentation/netlink/specs/eastwest.yaml
SCHEMA=/usr/src/linux-source-6.12/Documentation/netlink/genetlink-legacy.yaml
CG=/sys/fs/cgroup

ew_require_root
[ -f "$YNL_DIR/cli.py" ] || ew_skip "YNL CLI not found at $YNL_DIR (scripts/install-deps)"
python3 -c 'import yaml, jsonschema' 2>/dev/null ||
	ew_skip "python3 yaml/jsonschema missing (scripts/install-deps)"
ew_require_built ctl

ew_defer "rmdir $CG/ewy"
ew_defer "ew_rmmod"

ynl() {
	python3 "$YNL_DIR/cli.py" --spec "$SPEC" --schema "$SCHEMA" "$@"
}

# expect_fail_msg DESC ERE ARGS...: ynl ARGS must fail with a message
# matching ERE (the kernel's extack text, which cli.py prints).
expect_fail_msg() {
	_desc=$1
	_re=$2
	shift 2
	if ynl "$@" >"$EW_TMP/out" 2>&1; then
		ew_not_ok "$_desc (succeeded)"
		sed 's/^/# /' "$EW_TMP/out"
	elif grep -qE -- "$_re" "$EW_TMP/out"; then
		ew_ok "$_desc"
	else
		ew_not_ok "$_desc (no message matching '$_re')"
		sed 's/^/# /' "$EW_TMP/out"
	fi
}

# job_has ID KEY VALUE...: job-get of job ID replies KEY VALUE for each pair.
job_has() {
	_id=$1
	shift
	ynl --do job-get --json "{\"id\": $_id}" >"$EW_TMP/job" 2>&1 &&
		python3 - "$EW_TMP/job" "$@" <<'EOF'
import ast, sys
d = ast.literal_eval(open(sys.argv[1]).read())
want = sys.argv[2:]
bad = [k for k, v in zip(want[::2], want[1::2]) if str(d.get(k)) != v]
for k in bad:
    print("# %s: %r" % (k, d.get(k)))
sys.exit(1 if bad else 0)
EOF
}

ew_tmp_dir
mkdir -p "$CG/ewy"

ew_plan 41

ew_check "eastwest.ko loads" ew_load

ew_check "config-get through the YNL CLI" \
	sh -c "python3 '$YNL_DIR/cli.py' --spec '$SPEC' --schema '$SCHEMA' --do config-get | grep -q \"'version'\""
ew_check "job-new with a cgroup and two peers" \
	ynl --do job-new --json '{"name": "ynl-job", "id": 42, "cgroup": [{"path": "/ewy"}], "peer": [{"addr": "00000000000000000000ffffc0000202"}, {"addr": "20010db8000000000000000000000000", "prefix-len": 32}], "qkey": 4660}'
ew_check "job-get by name returns what was set" \
	sh -c "python3 '$YNL_DIR/cli.py' --spec '$SPEC' --schema '$SCHEMA' --do job-get --json '{\"name\": \"ynl-job\"}' | grep -q \"'qkey': 4660\""
ew_check "eastwestctl sees the job made with the YNL CLI" \
	sh -c "'$CTL' -j peer show ynl-job | grep -q '2001:db8::/32'"
ew_check "job-get dump lists it" \
	sh -c "python3 '$YNL_DIR/cli.py' --spec '$SPEC' --schema '$SCHEMA' --dump job-get | grep -q \"'name': 'ynl-job'\""

# Extack: every refusal names what is wrong.
expect_fail_msg "privileged Q_Key refused with its reason" "privileged Q_Key" \
	--do job-new --json '{"name": "bad", "qkey": 2147483649}'
expect_fail_msg "duplicate job name refused" "job ynl-job exists" \
	--do job-new --json '{"name": "ynl-job"}'
expect_fail_msg "missing cgroup refused" "no cgroup v2 /no/such" \
	--do job-new --json '{"name": "bad", "cgroup": [{"path": "/no/such"}]}'
expect_fail_msg "peer with both addr and lid refused" "exactly one of addr and lid" \
	--do peer-add --json '{"job-id": 42, "peer": [{"addr": "00000000000000000000ffffc0000203", "lid": 3}]}'
expect_fail_msg "deleting a peer the job does not have changes nothing" "not a peer of job 42" \
	--do peer-del --json '{"job-id": 42, "peer": [{"addr": "00000000000000000000ffffc0000202"}, {"addr": "00000000000000000000ffffc0000209"}]}'
ew_check "the first peer of that failed request is still there" \
	sh -c "'$CTL' -j peer show ynl-job | grep -q '192.0.2.2'"

# Peer records: address, prefix length, three zero bytes, back to back
# (the CLI sends each string of the list as an attribute of its own).
ew_check "peer-add with peer-recs records (10.9.0.1/32, 10.9.1.0/24)" \
	ynl --do peer-add --json '{"job-id": 42, "peer-recs": ["00000000000000000000ffff0a09000180000000", "00000000000000000000ffff0a09010078000000"]}'
ew_check "eastwestctl sees both record peers" \
	sh -c "'$CTL' peer show ynl-job | grep -qx 10.9.0.1/32 && '$CTL' peer show ynl-job | grep -qx 10.9.1.0/24"
expect_fail_msg "a record with prefix-len 129 refused, its attribute named" \
	"record 0: prefix-len above 128.*bad-attr.*peer-recs" \
	--do peer-add --json '{"job-id": 42, "peer-recs": ["00000000000000000000ffff0a09020180000000", "00000000000000000000ffff0a09020181000000"]}'
ew_check "nothing of that request was added" \
	sh -c "! '$CTL' peer show ynl-job | grep -qx 10.9.2.1/32"
expect_fail_msg "peer-recs of 19 bytes refused" "19 bytes, not a multiple of 20" \
	--do peer-add --json '{"job-id": 42, "peer-recs": ["00000000000000000000ffff0a090201800000"]}'
expect_fail_msg "a record whose padding is not zero refused, its attribute named" \
	"record 0: padding not zero.*bad-attr.*peer-recs" \
	--do peer-add --json '{"job-id": 42, "peer-recs": ["00000000000000000000ffff0a09030180000100"]}'
ew_check "nothing of that request was added" \
	sh -c "! '$CTL' peer show ynl-job | grep -qx 10.9.3.1/32"

# Job names in the tools' grammar only: a job another client named outside
# it could not be named, deleted, saved or restored by eastwestctl.
expect_fail_msg "job-new named with a space refused, the attribute named" \
	"may only contain.*bad-attr.*[.]name|[.]name.*may only contain" \
	--do job-new --json '{"name": "a b"}'
expect_fail_msg "job-new named with a newline refused" "may only contain" \
	--do job-new --json '{"name": "a\nb"}'
expect_fail_msg "job-new named \"id\" refused" "\"id\" is reserved" \
	--do job-new --json '{"name": "id"}'
expect_fail_msg "job-new named \"-x\" refused" "must not start with '-'" \
	--do job-new --json '{"name": "-x"}'
expect_fail_msg "job-set renaming job 42 to \"a/b\" refused" "may only contain" \
	--do job-set --json '{"id": 42, "name": "a/b"}'
ew_check "none of them was made, job 42 keeps its name" sh -c \
	"'$CTL' -j job show | python3 -c 'import json, sys; n = sorted(j[\"name\"] for j in json.load(sys.stdin)); sys.exit(n != [\"ynl-job\"])'"

# The UD/DC opt-ins: 0 or 1, refused otherwise with the attribute named.
ew_check "job-set ud 1 through the YNL CLI" \
	ynl --do job-set --json '{"id": 42, "ud": 1}'
ew_check "job-get reports ud 1, dc 0" job_has 42 ud 1 dc 0
expect_fail_msg "job-new with ud 2 refused, extack naming the attribute" \
	"bad-attr.*[.]ud|[.]ud.*bad-attr" \
	--do job-new --json '{"name": "bad", "ud": 2}'

# psn-run: the run a psn-key was derived for, only with that key, and in the
# orchestrators' grammar; the attribute is named.
expect_fail_msg "job-set psn-run without its psn-key refused" \
	"psn-run comes with the psn-key derived for it" \
	--do job-set --json '{"id": 42, "psn-run": "1796601600.0"}'
expect_fail_msg "job-set psn-run with a blank refused, extack naming the attribute" \
	"bad-attr.*[.]psn-run|[.]psn-run.*bad-attr" \
	--do job-set --json '{"id": 42, "psn-run": "1 2"}'

# psn-key-check: reported with a key, computed from it (ew_kdf.py's value
# for this key), gone with it; never accepted.
ew_check "job-set psn keyed with a psn-key through the YNL CLI" \
	ynl --do job-set --json '{"id": 42, "psn": "keyed", "psn-key": "000102030405060708090a0b0c0d0e0f"}'
ew_check "job-get reports the key's psn-key-check (0xfb1e38ec)" \
	job_has 42 psn-key-check 4213061868
expect_fail_msg "job-set with psn-key-check refused (reported, never accepted)" \
	"psn-key-check|[Uu]nknown attribute|attribute type" \
	--do job-set --json '{"id": 42, "psn-key-check": 1}'
ew_check "job-set psn app: no psn-key-check reported" sh -c "
	python3 '$YNL_DIR/cli.py' --spec '$SPEC' --schema '$SCHEMA' --do job-set --json '{\"id\": 42, \"psn\": \"app\"}' &&
	! python3 '$YNL_DIR/cli.py' --spec '$SPEC' --schema '$SCHEMA' --do job-get --json '{\"id\": 42}' | grep -q psn-key-check"

# A dump of 3000 peers read with a small receive buffer: it must resume
# across many messages and return every peer exactly once.
python3 -c '
for i in range(3000):
    print("10.%d.%d.%d" % (i >> 16, (i >> 8) & 255, i & 255))' >"$EW_TMP/peers"
"$CTL" peer add ynl-job file "$EW_TMP/peers" >/dev/null
ew_check "dump of 3004 peers across small messages is complete" \
	sh -c "python3 '$YNL_DIR/cli.py' --spec '$SPEC' --schema '$SCHEMA' --dump peer-get --json '{\"job-id\": 42}' --dbg-small-recv 4096 2>/dev/null | grep -o \"'addr'\" | wc -l | grep -qx 3004"

# Unprivileged callers may not write, nor read jobs.
unpriv() {
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		python3 "$YNL_DIR/cli.py" --spec "$SPEC" --schema "$SCHEMA" "$@"
}
unpriv --do job-new --json '{"name": "evil"}' >"$EW_TMP/unpriv" 2>&1
ew_check "an unprivileged user cannot create a job (EPERM)" \
	grep -qiE 'operation not permitted|error: -1\b|EPERM' "$EW_TMP/unpriv"
ew_check "and the job was not created" sh -c "! '$CTL' job show evil >/dev/null 2>&1"
unpriv --dump job-get >"$EW_TMP/unpriv" 2>&1
ew_check "an unprivileged user cannot read jobs (EPERM)" \
	grep -qiE 'operation not permitted|error: -1\b|EPERM' "$EW_TMP/unpriv"
ew_check "an unprivileged user can read the global config" \
	sh -c "setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all python3 '$YNL_DIR/cli.py' --spec '$SPEC' --schema '$SCHEMA' --do config-get | grep -q version"

ew_check "job-del" ynl --do job-del --json '{"id": 42}'

# QPN predictability audit: under the module rxe's QPNs are drawn at random
# (qpn.sh shows them sequential without it), and dev-get says so: none of
# the observed QPNs followed the previous one, and qpn-order is random (the
# refused INITs below are observed before they are refused).
ew_rxe_add rxe0 lo
for i in 1 2 3 4; do
	"$EW_TOP/selftests/tools/ew_verbs" rc-connect rxe0 1 127.0.0.1 self >/dev/null 2>&1
done
ynl --dump dev-get >"$EW_TMP/dev" 2>&1
ew_check "dev-get reports 4 observed QPNs, none sequential, qpn-order random" \
	python3 -c '
import ast, sys
txt = open(sys.argv[1]).read()
try:
    devs = ast.literal_eval(txt)
except (ValueError, SyntaxError):
    devs = [ast.literal_eval(l) for l in txt.splitlines() if l.startswith("{")]
if isinstance(devs, dict):
    devs = [devs]
d = [d for d in devs if d["name"] == "rxe0"][0]
print(d["qpn-observed"], d["qpn-sequential"], d.get("qpn-order"))
sys.exit(not (d["qpn-observed"] >= 4 and d["qpn-sequential"] == 0 and
              d.get("qpn-order") == "random"))' "$EW_TMP/dev"
ew_rxe_del rxe0

ew_done
