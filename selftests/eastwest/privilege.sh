#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 1
# ew-timeout: 300
# ew-kernels: 6.12
#
# Privilege and bypass (hardening, R4), on one node:
#   - every operation the spec marks admin-perm (the list is read from the
#     YNL spec itself) is refused to an unprivileged user and to a fake root
#     in a new user namespace (EPERM), and the family is not visible at all
#     from another network namespace; nothing changed afterwards;
#   - ftrace cannot be switched off under the module (kernel.ftrace_enabled
#     is refused while the PERMANENT hooks are registered) and enforcement
#     still works after the attempt;
#   - a job's process stays in its job through new user, network and
#     cgroup namespaces, and an unprivileged one cannot move itself out of
#     the job's cgroup: its connects to strangers are still refused.

. "$(dirname "$0")/../lib.sh"

DEV=rxe0
CG=/sys/fs/cgroup
YNL_DIR=/usr/src/linux-source-6.12/tools/net/ynl
SPEC=$EW_TOP/Documentation/netlink/specs/eastwest.yaml
SCHEMA=/usr/src/linux-source-6.12/Documentation/netlink/genetlink-legacy.yaml
LOOP=127.0.0.1
STRANGER=198.51.100.7

ew_require_root
ew_require_cmd rdma python3 setpriv unshare sysctl
ew_require_built ctl verbs cgroup ynl

ew_defer "rmdir $CG/ewA"
ew_defer "rdma link delete $DEV"
ew_defer "ew_rmmod"

ew_tmp_dir 755

# The probe: every admin-perm op of the spec, sent with a plausible request;
# prints "OP errno" per op (0 = accepted).
cat >"$EW_TMP/probe.py" <<'EOF'
import errno, sys, yaml
sys.path.insert(0, sys.argv[1])
from lib import YnlFamily, NlError
spec = yaml.safe_load(open(sys.argv[2]))
requests = {
    "job-get": {"id": 1},
    "job-new": {"name": "evil", "cgroup": [{"path": "/"}]},
    "job-set": {"id": 1, "mode": "audit"},
    "job-del": {"id": 1},
    "peer-add": {"job-id": 1, "peer": [{"addr": bytes(16), "prefix-len": 128}]},
    "peer-del": {"job-id": 1, "peer": [{"addr": bytes(16), "prefix-len": 128}]},
    "peer-get": {"job-id": 1, "peer": [{"addr": bytes(16)}]},
    "config-set": {"mode": "audit"},
    "fabric-set": {"ifindex": 1, "physical": 1},
    "node-set": {"addr": [bytes(16)], "admission": "revoked"},
    "path-get": {"dev-index": 1, "port": 1, "sgid-index": 0, "dgid": bytes(16)},
}
try:
    ynl = YnlFamily(sys.argv[2], sys.argv[3])
except Exception as e:
    print("family-unavailable", type(e).__name__)
    sys.exit(0)
for op in spec["operations"]["list"]:
    if "admin-perm" not in op.get("flags", []) or "do" not in op:
        continue
    name = op["name"]
    try:
        ynl.do(name, requests.get(name, {}))
        print(name, 0)
    except NlError as e:
        print(name, e.nl_msg.error)
    except Exception as e:
        print(name, "error", type(e).__name__, e)
EOF

probe() {
	python3 "$EW_TMP/probe.py" "$YNL_DIR" "$SPEC" "$SCHEMA"
}

# all_eperm FILE: every op in FILE was refused with EPERM (-1).
all_eperm() {
	[ -s "$1" ] || return 1
	! grep -qvE '^[a-z-]+ -1$' "$1"
}

ew_plan 16

ew_check "eastwest.ko loads" ew_load
ew_check "$DEV on lo" ew_rxe_add "$DEV" lo
IDX=$(ew_wait_gid_index "$DEV" "$LOOP")
mkdir -p "$CG/ewA"
ew_check "job A (peer $LOOP only)" "$CTL" job add ewA cgroup /ewA peer "$LOOP"
"$CTL" -j show >"$EW_TMP/before.json"
ADMIN_OPS=$(python3 -c '
import sys, yaml
s = yaml.safe_load(open(sys.argv[1]))
print(" ".join(o["name"] for o in s["operations"]["list"]
               if "admin-perm" in o.get("flags", []) and "do" in o))' "$SPEC")
ew_diag "admin-perm ops in the spec: $ADMIN_OPS"

# --- writes without CAP_NET_ADMIN in the initial user namespace -------------------
setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
	python3 "$EW_TMP/probe.py" "$YNL_DIR" "$SPEC" "$SCHEMA" >"$EW_TMP/unpriv" 2>&1
ew_check "unprivileged user: every admin-perm op ($(wc -l <"$EW_TMP/unpriv")) refused with EPERM" \
	all_eperm "$EW_TMP/unpriv"
sed 's/^/# unpriv: /' "$EW_TMP/unpriv"
ew_check "the probe covered every admin-perm op of the spec" \
	test "$(wc -l <"$EW_TMP/unpriv")" -eq "$(echo "$ADMIN_OPS" | wc -w)"
unshare -Ur python3 "$EW_TMP/probe.py" "$YNL_DIR" "$SPEC" "$SCHEMA" >"$EW_TMP/userns" 2>&1
ew_check "fake root in a user namespace: every admin-perm op refused with EPERM" \
	all_eperm "$EW_TMP/userns"
sed 's/^/# userns: /' "$EW_TMP/userns"
unshare -Urn python3 "$EW_TMP/probe.py" "$YNL_DIR" "$SPEC" "$SCHEMA" >"$EW_TMP/netns" 2>&1
ew_check "fake root in user+net namespaces: the family is not even visible" \
	grep -q '^family-unavailable' "$EW_TMP/netns"
sed 's/^/# netns: /' "$EW_TMP/netns"
ew_check "eastwestctl as a fake root is refused too (exit 3)" \
	sh -c "unshare -Ur '$CTL' job add evil2 cgroup / peer 10.0.0.1 >/dev/null 2>&1; [ \$? -eq 3 ]"
"$CTL" -j show >"$EW_TMP/after.json"
ew_check "nothing changed" cmp -s "$EW_TMP/before.json" "$EW_TMP/after.json"

# --- ftrace cannot be switched off under the module ------------------------------
ew_check_not "sysctl kernel.ftrace_enabled=0 is refused" sysctl -w kernel.ftrace_enabled=0
ew_check "ftrace is still enabled" test "$(sysctl -n kernel.ftrace_enabled)" = 1
ew_expect_rc 13 "and job A's connect to a stranger is still refused" \
	ew_in_cg /ewA "$VERBS" rc-connect "$DEV" "$IDX" "$STRANGER" self

# --- a job's process cannot leave its job ---------------------------------------
ew_expect_rc 13 "in new user+net namespaces, still job A: stranger refused" \
	ew_in_cg /ewA unshare -Urn "$VERBS" rc-connect "$DEV" "$IDX" "$STRANGER" self
ew_expect_rc 13 "in a new cgroup namespace, still job A: stranger refused" \
	ew_in_cg /ewA unshare -C "$VERBS" rc-connect "$DEV" "$IDX" "$STRANGER" self
ew_check_not "an unprivileged job process cannot move itself to the root cgroup" \
	ew_in_cg /ewA setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		sh -c "echo \$\$ > $CG/cgroup.procs"
ew_expect_rc 0 "job A still reaches its own peer" \
	ew_in_cg /ewA "$VERBS" rc-connect "$DEV" "$IDX" "$LOOP" self

ew_done
