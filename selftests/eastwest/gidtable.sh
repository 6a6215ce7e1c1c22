#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 1
# ew-timeout: 300
#
# A full GID table is shown whole and judged right. Per-job addresses give a
# node hundreds of GIDs (soft-RoCE holds 1024 per port, mlx5 255), and one
# device's GIDs are then far more than one netlink message holds: the
# device dump continues a device over as many messages as it needs,
# eastwestctl joins them, and dev-get's single reply is sized to the table.
# With a table filled on a dummy netdev:
#   - `eastwestctl dev show`, text and JSON, lists every GID sysfs lists;
#   - ynl's dev-get dump and dev-get request (YNL's own client) carry every
#     GID index sysfs has, each once;
#   - a job allowed one address connects over the table's last GID, and a
#     job that is not is refused there;
#   - with the addresses gone, dev show lists what is left.

. "$(dirname "$0")/../lib.sh"

DEV=ewgt
NETDEV=ewgt0
CG=/sys/fs/cgroup
SPEC=$EW_TOP/Documentation/netlink/specs/eastwest.yaml
YNL_DIR=/usr/src/linux-source-6.12/tools/net/ynl
SCHEMA=/usr/src/linux-source-6.12/Documentation/netlink/genetlink-legacy.yaml
# The addresses: 10.98.K/32, as many as the table has entries.
NADDR=1100

ew_require_root
ew_require_cmd rdma ip python3
ew_require_built ctl
[ -x "$VERBS" ] || ew_skip "the verbs tools are not built (make -C selftests/tools)"
[ -f "$YNL_DIR/cli.py" ] || ew_skip "YNL CLI not found at $YNL_DIR (scripts/install-deps)"

ew_tmp_dir
ew_defer "rmdir $CG/ewgA $CG/ewgB"
ew_defer "ew_netdev_del $NETDEV"
ew_defer "rdma link delete $DEV"
ew_defer "ew_rmmod"

ynl() {
	python3 "$YNL_DIR/cli.py" --spec "$SPEC" --schema "$SCHEMA" "$@"
}

# sysfs_gids FILE: the indexes of $DEV's used GID entries, one per line.
sysfs_gids() {
	grep -H . /sys/class/infiniband/$DEV/ports/1/gids/* 2>/dev/null |
		grep -v ':0000:0000:0000:0000:0000:0000:0000:0000$' |
		sed 's|.*/gids/\([0-9]*\):.*|\1|' | sort -n >"$1"
}

# gids_left: fewer than 10 GIDs are left in $DEV's table.
gids_left() {
	sysfs_gids "$EW_TMP/sysfs"
	[ "$(wc -l <"$EW_TMP/sysfs")" -lt 10 ]
}

# same_indexes WHAT FILE: FILE (indexes, one per line) equals sysfs's list.
same_indexes() {
	sort -n "$2" >"$2.sorted"
	cmp -s "$EW_TMP/sysfs" "$2.sorted" && return 0
	echo "$1: $(wc -l <"$2.sorted") indexes, sysfs has $(wc -l <"$EW_TMP/sysfs");" \
		"first difference: $(diff "$EW_TMP/sysfs" "$2.sorted" | sed -n 2p)" >&2
	return 1
}

# ctl_json_gids: the GID indexes of $DEV in `eastwestctl -j dev show`.
ctl_json_gids() {
	"$CTL" -j dev show >"$EW_TMP/ctl.json" || return 1
	python3 -c '
import json, sys
devs = [d for d in json.load(open(sys.argv[1])) if d["name"] == sys.argv[2]]
assert len(devs) == 1, "%d entries for the device" % len(devs)
for p in devs[0]["ports"]:
    for g in p["gids"]:
        print(g["index"])
' "$EW_TMP/ctl.json" "$DEV" >"$EW_TMP/ctl.idx" && same_indexes "dev show -j" "$EW_TMP/ctl.idx"
}

# ctl_text_gids: the same from the text output (a "gid INDEX ..." line each).
ctl_text_gids() {
	"$CTL" dev show >"$EW_TMP/ctl.txt" || return 1
	awk -v d="$DEV" '$1 == "dev" { cur = $2 } cur == d && $1 == "gid" { print $2 }' \
		"$EW_TMP/ctl.txt" >"$EW_TMP/ctl.tidx"
	same_indexes "dev show" "$EW_TMP/ctl.tidx"
}

# ynl_gids OPTION...: the GID indexes of $DEV in ynl's output, each counted
# once; a GID index sent twice fails.
ynl_gids() {
	ynl "$@" >"$EW_TMP/ynl.out" 2>&1 || { tail -3 "$EW_TMP/ynl.out" >&2; return 1; }
	python3 -c '
import ast, sys
txt = open(sys.argv[1]).read()
try:
    msgs = ast.literal_eval(txt)
except (ValueError, SyntaxError):
    msgs = [ast.literal_eval(l) for l in txt.splitlines() if l.startswith(("{", "["))]
if isinstance(msgs, dict):
    msgs = [msgs]
seen = []
for m in msgs:
    if m.get("name") != sys.argv[2]:
        continue
    for p in m.get("port", []):
        for g in p.get("gid", []):
            seen.append(g["index"])
dups = len(seen) - len(set(seen))
assert not dups, "%d GID indexes sent twice" % dups
for i in seen:
    print(i)
' "$EW_TMP/ynl.out" "$DEV" >"$EW_TMP/ynl.idx" && same_indexes "ynl $1" "$EW_TMP/ynl.idx"
}

# fill: $NADDR addresses on $NETDEV in one batch (more than the table holds).
fill() {
	_k=1
	: >"$EW_TMP/fill"
	while [ $_k -le $NADDR ]; do
		printf 'addr add 10.98.%d.%d/32 dev %s\n' $((_k / 256)) $((_k % 256)) \
			"$NETDEV" >>"$EW_TMP/fill"
		_k=$((_k + 1))
	done
	ip -b "$EW_TMP/fill" >/dev/null 2>&1
	# The GID cache adds entries from a work queue: wait until it settles.
	_prev=-1
	for _i in $(seq 60); do
		sysfs_gids "$EW_TMP/sysfs"
		_n=$(wc -l <"$EW_TMP/sysfs")
		[ "$_n" = "$_prev" ] && [ "$_n" -gt 1000 ] && return 0
		_prev=$_n
		sleep 1
	done
	echo "the table holds $_n GIDs" >&2
	return 1
}

ew_plan 13

ew_check "eastwest.ko loads" ew_load
ew_check "dummy netdev $NETDEV" ew_dummy_add "$NETDEV" 10.98.0.0/32
ew_check "$DEV on $NETDEV" ew_rxe_add "$DEV" "$NETDEV"
ew_check "$NADDR addresses on $NETDEV fill $DEV's GID table" fill
ew_diag "$(wc -l <"$EW_TMP/sysfs") GIDs in sysfs, the last at index $(tail -1 "$EW_TMP/sysfs")"

ew_check "dev show -j lists every GID sysfs lists" ctl_json_gids
ew_check "dev show (text) lists every GID sysfs lists" ctl_text_gids
ew_check "ynl dev-get dump: every GID once" ynl_gids --dump dev-get
ew_check "ynl dev-get request: every GID in one reply" \
	ynl_gids --do dev-get --json "{\"name\": \"$DEV\"}"

# The table's last entry: its address is the one the jobs aim at.
LAST=$(tail -1 "$EW_TMP/sysfs")
LADDR=$(cat "/sys/class/infiniband/$DEV/ports/1/gids/$LAST" |
	python3 -c 'import sys; h = sys.stdin.read().strip().replace(":", ""); print(".".join(str(int(h[i:i + 2], 16)) for i in range(24, 32, 2)))')
ew_diag "the last GID, index $LAST: $LADDR"
mkdir -p "$CG/ewgA" "$CG/ewgB"
ew_check "job A may reach $LADDR, job B only 10.97.0.1" sh -c "
	'$CTL' job add ewgA cgroup /ewgA peer $LADDR &&
	'$CTL' job add ewgB cgroup /ewgB peer 10.97.0.1"
ew_check "job A connects over GID $LAST" \
	ew_in_cg /ewgA "$VERBS" rc-connect "$DEV" "$LAST" "$LADDR" self
ew_expect_rc 13 "job B is refused there" \
	ew_in_cg /ewgB "$VERBS" rc-connect "$DEV" "$LAST" "$LADDR" self

# The core deletes the GIDs one by one after the flush: sysfs and the
# module are read again together until they agree on what is left.
settled_json_gids() {
	sysfs_gids "$EW_TMP/sysfs" && ctl_json_gids 2>"$EW_TMP/settle.err"
}
ip -4 addr flush dev "$NETDEV"
ew_wait_for 30 gids_left
ew_check "with the addresses gone, dev show -j lists what is left" \
	ew_wait_for 20 settled_json_gids
ew_diag "$(wc -l <"$EW_TMP/sysfs") GIDs left"
[ ! -s "$EW_TMP/settle.err" ] || ew_diag "last difference: $(cat "$EW_TMP/settle.err")"
"$CTL" job del ewgA >/dev/null 2>&1
"$CTL" job del ewgB >/dev/null 2>&1
ew_check "eastwest unloads" ew_unload

ew_done
