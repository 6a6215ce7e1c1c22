#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 1
# ew-timeout: 600
#
# Fail-closed (hardening, R5), on one node:
#   - while another module holds the IPMODIFY slot of a function eastwest
#     hooks (selftests/tools/ipmodify_owner, standing in for a livepatch),
#     loading eastwest fails: with the first hooked function taken
#     (ib_modify_qp_with_udata) and with the last one taken
#     (rdma_cm's cma_cm_event_handler, hooked by name after the twelve of
#     the table were armed); the kernel
#     log names the function and the reason, and nothing is left behind: no
#     eastwest hook in ftrace's enabled_functions, no netlink family;
#   - once the owner is gone, eastwest loads and enforces: in enforce mode
#     with the default action deny, an RC connect by a process in no job is
#     refused (EACCES) and counted as no-job; default allow lets the same
#     connect through (so the refusal is the policy's).
#
# ipmodify_owner.ko comes from build/RELEASE/ipmodify_owner/ (make -C
# selftests/tools/ipmodify_owner KDIR=... on the host); if it is not there,
# the test builds it here against /lib/modules/RELEASE/build (the host's
# compiler and headers, seen over 9p), in /tmp: minutes under TCG, hence the
# time limit; with the module built on the host the test takes ~30 s.

. "$(dirname "$0")/../lib.sh"

DEV=rxe0
OWNER_SRC=$EW_TOP/selftests/tools/ipmodify_owner
OWNER_KO=$EW_TOP/build/$(uname -r)/ipmodify_owner/ipmodify_owner.ko
ENABLED=/sys/kernel/tracing/enabled_functions
LOOP=127.0.0.1
FIRST=ib_modify_qp_with_udata
LAST=cma_cm_event_handler
HOOKED="ib_modify_qp_with_udata rdma_create_user_ah ib_create_qp_user ib_destroy_qp_user ib_attach_mcast ib_detach_mcast rdma_restrack_get rdma_restrack_get_byid ib_query_port rdma_connect_ece rdma_listen rdma_accept_ece rdma_reject cma_cm_event_handler"

ew_require_root
ew_require_cmd rdma insmod rmmod
ew_require_built ctl verbs
[ -r "$ENABLED" ] || ew_skip "no $ENABLED (tracefs)"

ew_tmp_dir
ew_defer "rdma link delete $DEV"
ew_defer "ew_rmmod"
ew_defer "rmmod ipmodify_owner"

build_owner() {
	[ -f "$OWNER_KO" ] && return 0
	if ! command -v make >/dev/null || ! command -v gcc >/dev/null; then
		echo "no prebuilt $OWNER_KO and no compiler to build it" >&2
		return 1
	fi
	[ -d "/lib/modules/$(uname -r)/build" ] || {
		echo "no /lib/modules/$(uname -r)/build to build ipmodify_owner" >&2
		return 1
	}
	make -C "$OWNER_SRC" KDIR="/lib/modules/$(uname -r)/build" \
		OUT="$EW_TMP/owner" >"$EW_TMP/build.log" 2>&1 || {
		tail -n 20 "$EW_TMP/build.log" >&2
		return 1
	}
	OWNER_KO=$EW_TMP/owner/ipmodify_owner.ko
}

# hooks_armed: the eastwest hooks ftrace has enabled, one per line.
hooks_armed() {
	for f in $HOOKED; do
		grep -E "^$f " "$ENABLED"
	done | grep -v ipmodify_owner
}

# no_hook_but FUNC: ftrace has enabled nothing of eastwest; FUNC, held by
# the owner, is the only one of the hooked functions with an ops on it.
no_hook_but() {
	_n=0
	for f in $HOOKED; do
		if grep -qE "^$f " "$ENABLED"; then
			[ "$f" = "$1" ] || { echo "$f still has an ftrace ops:" >&2; grep -E "^$f " "$ENABLED" >&2; return 1; }
			_n=$((_n + 1))
		fi
	done
	[ "$_n" -eq 1 ] || { echo "$1 is not held by the owner" >&2; return 1; }
}

family_absent() {
	"$CTL" config show >/dev/null 2>&1
	[ $? -eq 4 ]
}

# refused_with_owner_on FUNC: the load fails while the owner holds FUNC.
refused_with_owner_on() {
	ew_check "ipmodify_owner takes $1" insmod "$OWNER_KO" "func=$1"
	ew_dmesg_mark
	ew_check_not "eastwest does not load while $1 is taken" ew_load
	ew_check "the module is not there" test ! -e /sys/module/eastwest
	ew_check "the kernel log names $1 and the IPMODIFY owner" \
		ew_dmesg_wait "eastwest: cannot hook $1: -16 \\(another IPMODIFY owner"
	ew_check "no eastwest hook is left armed" no_hook_but "$1"
	ew_check "no eastwest netlink family is left" family_absent
	ew_check "ipmodify_owner unloads" rmmod ipmodify_owner
}

ew_plan 23

ew_check "ipmodify_owner.ko is available for $(uname -r)" build_owner
ew_check "$DEV on lo" ew_rxe_add "$DEV" lo
IDX=$(ew_wait_gid_index "$DEV" "$LOOP")

refused_with_owner_on "$FIRST"
refused_with_owner_on "$LAST"
_log=$(ew_dmesg_since_mark 'eastwest:')
ew_diag "kernel log of the last refused load:" "$_log"

# --- without the owner: loads and enforces ------------------------------------
ew_dmesg_mark
ew_check "eastwest loads once the owner is gone" ew_load
ew_check "all fourteen hooks are armed" test "$(hooks_armed | wc -l)" -eq 14
ew_check "mode enforce, default action deny" \
	sh -c "'$CTL' config show | grep -q '^mode enforce default deny'"
ew_expect_rc 13 "a process in no job: RC connect refused (EACCES)" \
	"$VERBS" rc-connect "$DEV" "$IDX" "$LOOP" self
ew_check "counted as denied no-job" test "$(ew_counter - denied-no-job)" -ge 1
"$CTL" config set default allow >/dev/null
ew_expect_rc 0 "with default allow the same connect goes through" \
	"$VERBS" rc-connect "$DEV" "$IDX" "$LOOP" self
"$CTL" config set default deny >/dev/null
ew_check "eastwest unloads" ew_unload

ew_done
