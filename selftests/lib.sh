# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# selftests/lib.sh - helpers for the eastwest selftests (POSIX sh).
#
# A test sources it first:
#
#   #!/bin/sh
#   # ew-nodes: 1          (2 for a two-node test; see selftests/vm/run)
#   . "$(dirname "$0")/../lib.sh"
#   ew_require_root
#   ew_plan 3
#   ew_check "module loads" ew_load
#   ...
#   ew_done
#
# Tests print TAP on stdout (kselftest style) and exit 0 (pass), 4 (skip) or
# anything else (fail). They normally run inside a VM started by
# selftests/vm/run, whose guest-init sets the environment below; run by hand
# on a test machine, the defaults apply.
#
#   EW_TOP        the repository (default: derived from $0)
#   EW_KO         eastwest.ko for the running kernel: $EW_TOP/build/$(uname -r)/eastwest.ko
#   EW_NODE       this node's index, 0 or 1 (default 0)
#   EW_NODES      how many nodes run this test (default 1)
#   EW_LOCAL_IP   this node's address on the test link (two-node tests)
#   EW_PEER_IP    the other node's address (two-node tests)
#   EW_NETDEV     the test link's interface, eth0 (two-node tests)
#   EW_SHARED     directory shared by both nodes and the host (/run/ew-shared)
#   EW_TEST_NAME  the test's file name, e.g. smoke.sh
#   EW_CG         the cgroup v2 mount (/sys/fs/cgroup)
#
# and sets CTL and VERBS, the tree's eastwestctl and ew_verbs.
#
# Every helper that can fail returns non-zero and says why on stderr, so that
# ew_check can show the reason under a "not ok" line.

EW_TOP=${EW_TOP:-$(cd "$(dirname "$0")/../.." && pwd -P)}
EW_NODE=${EW_NODE:-0}
EW_NODES=${EW_NODES:-1}
EW_SHARED=${EW_SHARED:-/run/ew-shared}
# The runner puts a snapshot of the module in the shared dir (see run_group).
if [ -z "${EW_KO:-}" ] && [ -f "${EW_SHARED:-/nonexistent}/eastwest.ko" ]; then
	EW_KO=$EW_SHARED/eastwest.ko
fi
EW_KO=${EW_KO:-$EW_TOP/build/$(uname -r)/eastwest.ko}
EW_TEST_NAME=${EW_TEST_NAME:-$(basename "$0")}
export EW_TOP EW_KO EW_NODE EW_NODES EW_SHARED EW_TEST_NAME
# The tree's eastwestctl and ew_verbs, as the tests run them (a test of the
# installed package sets CTL after sourcing this file).
CTL=$EW_TOP/userspace/eastwestctl
VERBS=$EW_TOP/selftests/tools/ew_verbs

# Exit codes (kselftest).
EW_PASS=0
EW_FAIL=1
EW_SKIP=4

# TAP state.
ew_num=0
ew_failed=0
ew_planned=

# ----------------------------------------------------------------------------
# TAP

# ew_plan N: print the TAP header and plan (call once, before any result).
ew_plan() {
	echo "TAP version 13"
	echo "1..$1"
	ew_planned=$1
}

# ew_ok DESC: record a passing assertion.
ew_ok() {
	ew_num=$((ew_num + 1))
	echo "ok $ew_num $*"
}

# ew_not_ok DESC: record a failing assertion.
ew_not_ok() {
	ew_num=$((ew_num + 1))
	ew_failed=$((ew_failed + 1))
	echo "not ok $ew_num $*"
}

# ew_skip_one DESC REASON: record a skipped assertion (counts as a pass).
ew_skip_one() {
	ew_num=$((ew_num + 1))
	echo "ok $ew_num $1 # SKIP $2"
}

# ew_diag TEXT...: diagnostics, each line prefixed with "# ".
ew_diag() {
	printf '%s\n' "$*" | sed 's/^/# /'
}

# ew_skip REASON: skip the whole test; exits with 4. Only before any result.
ew_skip() {
	echo "1..0 # SKIP $*"
	exit "$EW_SKIP"
}

# ew_bail REASON: abort the test (fail), e.g. when later steps cannot run.
ew_bail() {
	echo "Bail out! $*"
	exit "$EW_FAIL"
}

# ew_check DESC CMD [ARG...]: run CMD (a command or a shell function, in this
# shell), record ok/not ok by its exit status and return that status. On
# failure CMD's output is shown as diagnostics; on success it is dropped.
ew_check() {
	_ew_desc=$1
	shift
	_ew_out=$(mktemp "${TMPDIR:-/tmp}/ew-check.XXXXXX") || ew_bail "mktemp failed"
	"$@" >"$_ew_out" 2>&1
	_ew_rc=$?
	if [ "$_ew_rc" -eq 0 ]; then
		ew_ok "$_ew_desc"
	else
		ew_not_ok "$_ew_desc"
		ew_diag "command: $* (exit $_ew_rc)"
		[ -s "$_ew_out" ] && sed 's/^/#   /' "$_ew_out"
	fi
	rm -f "$_ew_out"
	return "$_ew_rc"
}

# ew_check_not DESC CMD [ARG...]: like ew_check, but CMD must fail.
ew_check_not() {
	_ew_desc=$1
	shift
	if "$@" >/dev/null 2>&1; then
		ew_not_ok "$_ew_desc"
		ew_diag "command unexpectedly succeeded: $*"
		return 1
	fi
	ew_ok "$_ew_desc"
}

# ew_done: end the test: check the plan, exit 0 if every assertion passed.
ew_done() {
	if [ -z "$ew_planned" ]; then
		echo "1..$ew_num"
	elif [ "$ew_num" -ne "$ew_planned" ]; then
		ew_diag "planned $ew_planned assertions, ran $ew_num"
		exit "$EW_FAIL"
	fi
	[ "$ew_failed" -eq 0 ] || exit "$EW_FAIL"
	exit "$EW_PASS"
}

# ----------------------------------------------------------------------------
# Cleanup: commands run in reverse order when the test exits, however it does.

ew_cleanups=

# ew_defer CMD...: run CMD (a string for eval) at exit, last deferred first.
ew_defer() {
	ew_cleanups="$*
$ew_cleanups"
	trap _ew_run_cleanups EXIT
}

# ew_tmp_dir [MODE]: a scratch directory for the test in EW_TMP, removed at
# exit; MODE (e.g. 755) where unprivileged test processes must read it.
ew_tmp_dir() {
	EW_TMP=$(mktemp -d) || ew_bail "mktemp failed"
	[ -z "${1:-}" ] || chmod "$1" "$EW_TMP" || ew_bail "chmod $1 $EW_TMP failed"
	ew_defer "rm -rf $EW_TMP"
}

# Where eastwestctl records the transmit keys it installed (path add and
# rotate refuse them ever after): a directory of this test's own, so that no
# test is refused a key another test used, none leaves records behind, and
# none reads the host's /var/lib/eastwest (the VM shares the host's root).
if [ -z "${EASTWEST_STATE_DIR:-}" ]; then
	EASTWEST_STATE_DIR=$(mktemp -d "${TMPDIR:-/tmp}/ew-state.XXXXXX") ||
		{ echo "Bail out! mktemp failed"; exit 1; }
	export EASTWEST_STATE_DIR
	ew_cleanups="rm -rf $EASTWEST_STATE_DIR
$ew_cleanups"
	trap _ew_run_cleanups EXIT
fi

_ew_run_cleanups() {
	_ew_status=$?
	trap - EXIT
	printf '%s\n' "$ew_cleanups" | while IFS= read -r _ew_c; do
		[ -n "$_ew_c" ] && eval "$_ew_c" >/dev/null 2>&1
	done
	exit "$_ew_status"
}
trap 'exit 143' TERM
trap 'exit 130' INT

# ----------------------------------------------------------------------------
# Requirements

ew_require_root() {
	[ "$(id -u)" -eq 0 ] || ew_skip "needs root"
}

# ew_require_cmd CMD...: skip unless every CMD is installed.
ew_require_cmd() {
	for _ew_c in "$@"; do
		command -v "$_ew_c" >/dev/null 2>&1 || ew_skip "$_ew_c not installed"
	done
}

# ew_require_built PART...: skip unless each part the test needs is there:
# ctl ($CTL), verbs ($VERBS), cgroup (cgroup v2 at $EW_CG), verifier
# (userspace/attest's eastwest-verifier), ynl (the YNL library, $EW_YNL_DIR),
# tracefs (writable, at /sys/kernel/tracing), rdma_cm (librdmacm's device,
# loading rdma_ucm if need be: no udev in the guest), or DIR/PROGRAM (a
# program built under the tree, e.g. bench/modify_cost).
ew_require_built() {
	for _ew_p in "$@"; do
		case $_ew_p in
		ctl) [ -x "$CTL" ] || ew_skip "eastwestctl is not built (make userspace)" ;;
		verbs) [ -x "$VERBS" ] || ew_skip "ew_verbs is not built (make tools)" ;;
		cgroup) [ -f "$EW_CG/cgroup.controllers" ] ||
			ew_skip "no cgroup v2 at $EW_CG" ;;
		verifier) [ -x "$EW_TOP/userspace/attest/eastwest-verifier" ] ||
			ew_skip "eastwest-verifier is not built (make -C userspace/attest)" ;;
		ynl) [ -f "$EW_YNL_DIR/lib/ynl.py" ] ||
			ew_skip "YNL library not found at $EW_YNL_DIR" ;;
		tracefs) [ -w /sys/kernel/tracing/current_tracer ] ||
			ew_skip "no tracefs at /sys/kernel/tracing" ;;
		rdma_cm) [ -c /dev/infiniband/rdma_cm ] || modprobe rdma_ucm ||
			ew_skip "no rdma_ucm module (/dev/infiniband/rdma_cm)" ;;
		*/*) [ -x "$EW_TOP/$_ew_p" ] ||
			ew_skip "$_ew_p is not built (make -C ${_ew_p%/*})" ;;
		*) ew_bail "ew_require_built: no part '$_ew_p'" ;;
		esac
	done
}

# ew_require_nodes N: skip unless the test runs on N nodes.
ew_require_nodes() {
	[ "$EW_NODES" -eq "$1" ] || ew_skip "needs $1 nodes, have $EW_NODES"
}

# ew_wait_for TIMEOUT CMD...: poll CMD every 0.2 s until it succeeds;
# returns 1 after TIMEOUT seconds.
ew_wait_for() {
	_ew_n=$(($1 * 5))
	shift
	while ! "$@" >/dev/null 2>&1; do
		_ew_n=$((_ew_n - 1))
		[ "$_ew_n" -gt 0 ] || return 1
		sleep 0.2
	done
}

# ew_nl_in_group PID G: process PID has a netlink socket that joined
# netlink group G (1..32). /proc/net/netlink shows a socket's groups 1..32
# as a mask whose bit G-1 is group G.
ew_nl_in_group() {
	for _ew_fd in /proc/"$1"/fd/*; do
		_ew_i=$(readlink "$_ew_fd" 2>/dev/null) || continue
		case $_ew_i in
		socket:\[*\]) _ew_i=${_ew_i#socket:[}; _ew_i=${_ew_i%]} ;;
		*) continue ;;
		esac
		_ew_m=$(awk -v i="$_ew_i" '$2 == 16 && $NF == i { print $4 }' /proc/net/netlink)
		[ -n "$_ew_m" ] && [ $(((0x$_ew_m >> ($2 - 1)) & 1)) -eq 1 ] && return 0
	done
	return 1
}

# ew_monitor_wait PID: wait up to 30 s until process PID (eastwestctl
# monitor, or another listener) has joined the family's "events" group, so
# that no event sent from then on is lost to it. A fixed sleep after
# starting a monitor is not enough on a loaded host, where its start over
# 9p can take seconds. genl gives the group's id; says why when it fails.
ew_monitor_wait() {
	_ew_g=$(genl ctrl get name eastwest 2>/dev/null |
		sed -n 's/.*ID-\(0x[0-9a-fA-F]*\)[[:space:]]*name: events[[:space:]]*$/\1/p')
	if [ -z "$_ew_g" ] || [ $((_ew_g)) -lt 1 ] || [ $((_ew_g)) -gt 32 ]; then
		echo "# the eastwest events group has no id in 1..32: '$_ew_g'" >&2
		return 1
	fi
	ew_wait_for 30 ew_nl_in_group "$1" $((_ew_g)) && return 0
	echo "# process $1 did not join the events group ($_ew_g) within 30 s" >&2
	return 1
}

# ----------------------------------------------------------------------------
# The module

ew_module_loaded() {
	[ -d /sys/module/eastwest ]
}

# ew_insmod KO [PARAM=VALUE...]: insmod a build of eastwest.ko (the bed's,
# the fault build), its dependency first: it hooks rdma_cm's exports, and
# insmod loads no dependencies.
ew_insmod() {
	modprobe rdma_cm || {
		echo "ew_insmod: modprobe rdma_cm failed" >&2
		return 1
	}
	insmod "$@"
}

# ew_load [PARAM=VALUE...]: insmod $EW_KO and check that it is live.
ew_load() {
	if [ ! -f "$EW_KO" ]; then
		echo "ew_load: $EW_KO not found (make module KDIR=...)" >&2
		return 1
	fi
	if ew_module_loaded; then
		echo "ew_load: eastwest is already loaded" >&2
		return 1
	fi
	ew_insmod "$EW_KO" "$@" || {
		echo "ew_load: insmod $EW_KO failed" >&2
		return 1
	}
	_ew_state=$(cat /sys/module/eastwest/initstate 2>/dev/null)
	if [ "$_ew_state" != live ]; then
		echo "ew_load: module state is '${_ew_state:-missing}', not live" >&2
		return 1
	fi
}

# ew_jobs_del_all: delete every job (each deletion revokes the job's QPs).
# While a job exists the module pins itself: rmmod needs this first.
ew_jobs_del_all() {
	ew_module_loaded || return 0
	for _ew_j in $("$EW_TOP/userspace/eastwestctl" -j job show 2>/dev/null |
		python3 -c 'import json, sys
for j in json.load(sys.stdin):
    print(j["id"])'); do
		"$EW_TOP/userspace/eastwestctl" job del id "$_ew_j" >/dev/null 2>&1
	done
}

# ew_rmmod: delete every job, then rmmod eastwest (for cleanups).
ew_rmmod() {
	ew_jobs_del_all
	rmmod eastwest
}

# ew_unload: delete every job, rmmod eastwest and check that it is gone.
ew_unload() {
	if ! ew_module_loaded; then
		echo "ew_unload: eastwest is not loaded" >&2
		return 1
	fi
	ew_jobs_del_all
	rmmod eastwest || {
		echo "ew_unload: rmmod eastwest failed" >&2
		return 1
	}
	if ew_module_loaded; then
		echo "ew_unload: /sys/module/eastwest still exists after rmmod" >&2
		return 1
	fi
}

# ----------------------------------------------------------------------------
# RDMA devices (soft-RoCE)

# ew_rxe_add NAME NETDEV: create rxe device NAME on NETDEV and wait for it.
ew_rxe_add() {
	rdma link add "$1" type rxe netdev "$2" || {
		echo "ew_rxe_add: rdma link add $1 type rxe netdev $2 failed" >&2
		return 1
	}
	ew_wait_for 10 test -e "/sys/class/infiniband/$1" || {
		echo "ew_rxe_add: /sys/class/infiniband/$1 did not appear" >&2
		return 1
	}
}

# ew_rxe_del NAME: delete rxe device NAME and wait until it is gone.
ew_rxe_del() {
	rdma link delete "$1" || {
		echo "ew_rxe_del: rdma link delete $1 failed" >&2
		return 1
	}
	ew_wait_for 10 test ! -e "/sys/class/infiniband/$1" || {
		echo "ew_rxe_del: /sys/class/infiniband/$1 is still there" >&2
		return 1
	}
}

# ew_dummy_add NAME ADDR/PREFIX [MAC]: a dummy netdev with an address (none
# if ADDR is "-") and MAC if given, up: a netdev for a one-node rxe device
# (rxe refuses lo; see smoke.sh).
ew_dummy_add() {
	if [ ! -d /sys/module/dummy ]; then
		modprobe dummy numdummies=0 || return 1
	fi
	ip link add "$1" ${3:+address "$3"} type dummy || return 1
	if [ "$2" != - ]; then
		ip addr add "$2" dev "$1" || return 1
	fi
	ip link set dev "$1" up
}

# ew_netdev_del NAME: delete a netdev (no error if it is already gone).
ew_netdev_del() {
	[ -e "/sys/class/net/$1" ] || return 0
	ip link delete dev "$1"
}

# ----------------------------------------------------------------------------
# Two nodes

# ew_load_rxe_eth0: a two-node test's first three checks: the module
# loads, rxe device $DEV on eth0, its RoCE v2 GID of $EW_LOCAL_IP found;
# sets IDX to that GID's index (1 if there is none).
ew_load_rxe_eth0() {
	ew_check "eastwest.ko loads" ew_load
	ew_check "$DEV on eth0 ($EW_LOCAL_IP)" ew_rxe_add "$DEV" eth0
	IDX=$(ew_wait_gid_index "$DEV" "$EW_LOCAL_IP" 10)
	ew_check "RoCE v2 GID of $EW_LOCAL_IP found (index ${IDX:-none})" test -n "$IDX"
	IDX=${IDX:-1}
}

# ew_load_rxe_lo: a one-node test's first three checks, each fatal: the
# module loads, rxe device $DEV on lo, its GID of $LOOP found; sets IDX to
# that GID's index.
ew_load_rxe_lo() {
	ew_check "eastwest.ko loads" ew_load || ew_bail "no module"
	ew_check "$DEV on lo" ew_rxe_add "$DEV" lo || ew_bail "no rxe device"
	IDX=$(ew_wait_gid_index "$DEV" "$LOOP")
	ew_check "GID of $LOOP found (index ${IDX:-none})" test -n "$IDX" || ew_bail "no GID"
}

# ew_barrier NAME [TIMEOUT]: wait until the other node reached ew_barrier
# NAME too (default timeout 120 s). Names are per test; use each name once.
# Fails at once if the other node's run of this test already ended (it
# failed before the barrier). Returns at once in a one-node run.
ew_barrier() {
	[ "$EW_NODES" -gt 1 ] || return 0
	_ew_dir=$EW_SHARED/barriers
	_ew_peer=$((1 - EW_NODE))
	mkdir -p "$_ew_dir" || return 1
	: >"$_ew_dir/$EW_TEST_NAME.$1.$EW_NODE" || return 1
	_ew_n=$((${2:-120} * 5))
	while [ ! -e "$_ew_dir/$EW_TEST_NAME.$1.$_ew_peer" ]; do
		if [ -e "$EW_SHARED/node$_ew_peer/results/$EW_TEST_NAME.rc" ]; then
			echo "ew_barrier: node $_ew_peer ended the test before barrier $1" >&2
			return 1
		fi
		if [ -e "$EW_SHARED/node$_ew_peer/stopped" ]; then
			echo "ew_barrier: node $_ew_peer's guest has stopped" >&2
			return 1
		fi
		_ew_n=$((_ew_n - 1))
		if [ "$_ew_n" -le 0 ]; then
			echo "ew_barrier: node $_ew_peer never reached barrier $1" >&2
			return 1
		fi
		sleep 0.2
	done
}

# ew_meet NAME [TIMEOUT]: ew_barrier, or give up the whole test (the other
# node's run of it has failed or stopped).
ew_meet() {
	ew_barrier "$@" || ew_bail "barrier $1 failed"
}

# ew_wait_listen PORT [TIMEOUT]: wait until something listens on local TCP
# PORT (default 30 s). A server node waits for its own server this way, then
# meets the client node at a barrier.
ew_wait_listen() {
	if ! ew_wait_for "${2:-30}" _ew_listening "$1"; then
		echo "ew_wait_listen: nothing listens on TCP port $1" >&2
		return 1
	fi
}

_ew_listening() {
	[ -n "$(ss -Htln "sport = :$1" 2>/dev/null)" ]
}

# ew_peer_mac: the MAC address of the other node on eth0 (none if it has no
# neighbour entry even after a ping).
ew_peer_mac() {
	ping -c 1 -W 5 "$EW_PEER_IP" >/dev/null 2>&1
	ip neigh show "$EW_PEER_IP" dev eth0 |
		awk '{ for (i = 1; i < NF; i++) if ($i == "lladdr") { print $(i + 1); exit } }'
}

# ew_sec_addrs NET: ME and PEER, this node's number and the other's (1 or
# 2), and SEC_IP and SEC_PEER, their addresses NET.ME and NET.PEER on a
# protected path (NET: the first three octets of a /24).
ew_sec_addrs() {
	ME=$((EW_NODE + 1))
	PEER=$((2 - EW_NODE))
	# shellcheck disable=SC2034 # for the caller
	SEC_IP=$1.$ME
	# shellcheck disable=SC2034 # for the caller
	SEC_PEER=$1.$PEER
}

# ----------------------------------------------------------------------------
# Kernel log

# ew_dmesg_mark: write a unique marker line into the kernel log; later
# ew_dmesg_since_mark calls look only at lines after it.
ew_dmesg_mark() {
	ew_dmesg_marker="ew-mark: $EW_TEST_NAME $$ $(date +%s%N)"
	echo "$ew_dmesg_marker" >/dev/kmsg || return 1
}

# shellcheck disable=SC2120 # the ERE is optional
# ew_dmesg_since_mark [ERE]: print the kernel log lines after the last mark;
# with ERE, only the matching ones, and return 1 if none match.
ew_dmesg_since_mark() {
	if [ -z "${ew_dmesg_marker:-}" ]; then
		echo "ew_dmesg_since_mark: call ew_dmesg_mark first" >&2
		return 2
	fi
	if [ $# -eq 0 ]; then
		dmesg | awk -v m="$ew_dmesg_marker" 'f; index($0, m) { f = 1 }'
	else
		dmesg | awk -v m="$ew_dmesg_marker" 'f; index($0, m) { f = 1 }' |
			grep -E -- "$1"
	fi
}

# ew_dmesg_wait ERE [TIMEOUT]: wait until a line matching ERE appears after
# the mark (default 10 s).
ew_dmesg_wait() {
	if ! ew_wait_for "${2:-10}" ew_dmesg_since_mark "$1"; then
		echo "ew_dmesg_wait: no kernel log line matching '$1'; since the mark:" >&2
		# shellcheck disable=SC2119 # all lines since the mark
		ew_dmesg_since_mark | tail -n 20 >&2
		return 1
	fi
}

# ----------------------------------------------------------------------------
# Jobs, cgroups and GIDs (two-node tests and the demo)

EW_CG=${EW_CG:-/sys/fs/cgroup}

# ew_nobody_script DIR: write DIR/nobody, which runs its arguments as uid and
# gid 65534 with no capabilities at all (a job's ordinary user), and print
# its path. DIR must be searchable by that user. A file, not a function, so
# that it can be handed to ew_in_cg, ew_start_bg and the like.
ew_nobody_script() {
	cat >"$1/nobody" <<'EOF'
#!/bin/sh
exec setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
	--bounding-set=-all "$@"
EOF
	chmod 755 "$1/nobody"
	echo "$1/nobody"
}

# ew_rping_status OUT RC: the exit status to judge an rping by, from its
# status RC and its output OUT (stdout and stderr). rping of rdmacm-utils
# before rdma-core v58 (Debian 12 has 44.0) fails spuriously: its CM
# thread may read the event channel that main() is destroying once the
# run is over, print "rdma_get_cm_event: ..." and exit(-1) (255) after a
# run that succeeded (rdma-core pull request 1622). That exit, with that
# line and none of rping's error messages, counts as 0; anything else is
# RC as it is. Callers still check the pings they need.
ew_rping_status() {
	if [ "$2" -eq 255 ] && grep -q '^rdma_get_cm_event: ' "$1" &&
	   ! grep -v -e '^rdma_get_cm_event: ' -e 'ping data: ' \
		-e ' DISCONNECT EVENT\.\.\.$' -e '^unhandled event: .*, ignoring$' \
		"$1" | grep -q .; then
		echo "# rping: exit 255 after its run, the CM thread's race (rdma_get_cm_event), counted as 0" >&2
		echo 0
	else
		echo "$2"
	fi
}

# ew_in_cg CGROUP CMD...: run CMD as a member of cgroup CGROUP (a path under
# $EW_CG, e.g. /ewA): a shell joins the cgroup, then execs CMD.
ew_in_cg() {
	_ew_cg=$1
	shift
	sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$EW_CG$_ew_cg" "$@"
}

# ew_in_cg_bg CGROUP CMD...: start CMD in the background as a member of
# CGROUP and set EW_BG_PID to its pid: CMD's own, not a subshell's, so that
# `kill $EW_BG_PID` stops CMD itself and `wait $EW_BG_PID` gives its exit
# status. Redirect the call to redirect CMD's output.
ew_in_cg_bg() {
	_ew_cg=$1
	shift
	sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$EW_CG$_ew_cg" "$@" &
	# shellcheck disable=SC2034 # for the caller
	EW_BG_PID=$!
}

# ew_gid_index DEV IPV4 [MAX]: print the index of DEV port 1's RoCE v2 GID
# for IPV4 (::ffff:IPV4), scanning entries 0..MAX-1 (default 16) with shell
# built-ins only (each exec is slow under TCG).
ew_gid_index() {
	_ew_ifs=$IFS
	IFS=.
	# shellcheck disable=SC2086 # split the address at the dots
	set -- "$1" "$2" "${3:-16}" $2
	IFS=$_ew_ifs
	_ew_hex=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' \
		"$4" "$5" "$6" "$7")
	ew_gid_find "$1" "$_ew_hex" "$3" && return 0
	echo "ew_gid_index: $1 has no RoCE v2 GID for $2 in its first $3 entries" >&2
	return 1
}

# ew_gid_find DEV GID MAX [NETDEV]: print the index of DEV port 1's first
# RoCE v2 entry GID (as sysfs writes it) among entries 0..MAX-1, with netdev
# NETDEV if one is given; fail, silently, if there is none. Shell built-ins
# only, as ew_gid_index.
ew_gid_find() {
	_ew_gf_p=/sys/class/infiniband/$1/ports/1
	_ew_gf_i=0
	while [ "$_ew_gf_i" -lt "$3" ]; do
		_ew_gf_g=''
		read -r _ew_gf_g 2>/dev/null <"$_ew_gf_p/gids/$_ew_gf_i"
		if [ "$_ew_gf_g" = "$2" ]; then
			_ew_gf_n=''
			_ew_gf_t=''
			[ -z "${4:-}" ] || read -r _ew_gf_n 2>/dev/null <"$_ew_gf_p/gid_attrs/ndevs/$_ew_gf_i"
			read -r _ew_gf_t 2>/dev/null <"$_ew_gf_p/gid_attrs/types/$_ew_gf_i"
			if [ "$_ew_gf_n" = "${4:-}" ] && [ "$_ew_gf_t" = "RoCE v2" ]; then
				echo "$_ew_gf_i"
				return 0
			fi
		fi
		_ew_gf_i=$((_ew_gf_i + 1))
	done
	return 1
}

# ew_qpn_of DEV PID: the number of the QP of process PID on port 1 of DEV,
# as root sees them (rdma res show).
ew_qpn_of() {
	rdma -j res show qp link "$1/1" | python3 -c '
import json, sys
for r in json.load(sys.stdin):
    if str(r.get("pid")) == sys.argv[1]:
        print(r["lqpn"])' "$2"
}

# ew_wait_gid_index DEV IPV4 [TIMEOUT]: like ew_gid_index, but wait up to
# TIMEOUT seconds (default 10) for the GID to appear (rxe fills its table
# from the netdev's addresses shortly after the device is created).
ew_wait_gid_index() {
	_ew_n=$((${3:-10} * 5))
	while ! ew_gid_index "$1" "$2" 2>/dev/null; do
		_ew_n=$((_ew_n - 1))
		if [ "$_ew_n" -le 0 ]; then
			ew_gid_index "$1" "$2"
			return 1
		fi
		sleep 0.2
	done
}

# ew_counter JOB|- NAME: a decision counter from `eastwestctl -j stats`, of
# job JOB (by name) or, with "-", of the node ("global"). NAME as in the JSON
# (denied_peer) or with dashes (denied-peer).
ew_counter() {
	"$EW_TOP/userspace/eastwestctl" -j stats | python3 -c '
import json, sys
d = json.load(sys.stdin)
job, name = sys.argv[1], sys.argv[2].replace("-", "_")
if job == "-":
    c = d["global"]
else:
    c = [j for j in d["jobs"] if j["name"] == job][0]["counters"]
print(c[name])' "$1" "$2"
}

# ew_ctr JOB|- NAME: a decision counter (as ew_counter), or "none" if the
# module has no such counter (or no such job).
ew_ctr() {
	ew_counter "$1" "$2" 2>/dev/null || echo none
}

# ew_ctr_grew JOB|- NAME BEFORE [N]: counter NAME rose by at least N (1)
# since it was BEFORE (an ew_ctr value).
ew_ctr_grew() {
	_ew_now=$(ew_ctr "$1" "$2")
	if [ "$_ew_now" = none ]; then
		echo "# this module has no counter $2 (job $1)"
		return 1
	fi
	_ew_b=$3
	[ "$_ew_b" = none ] && _ew_b=0
	[ "$_ew_now" -ge $((_ew_b + ${4:-1})) ] && return 0
	echo "# $2 of $1: $_ew_b before, $_ew_now now (wanted +${4:-1})"
	return 1
}

# ew_expect_rc RC DESC CMD...: CMD must exit with exactly RC (e.g. 13 from
# ew_verbs for EACCES). Its output is kept in $EW_OUT for later checks and
# shown under a "not ok" line.
EW_OUT=${TMPDIR:-/tmp}/ew-out.$$
ew_expect_rc() {
	_ew_want=$1
	_ew_desc=$2
	shift 2
	"$@" >"$EW_OUT" 2>&1
	_ew_rc=$?
	if [ "$_ew_rc" -eq "$_ew_want" ]; then
		ew_ok "$_ew_desc"
	else
		ew_not_ok "$_ew_desc (exit $_ew_rc, wanted $_ew_want)"
		sed 's/^/#   /' "$EW_OUT"
	fi
}

# ew_pingpong_lo DESC CGROUP GID_INDEX: one check DESC, that ibv_rc_pingpong
# on $DEV makes 20 verified round trips over 127.0.0.1 between a server and
# a client in CGROUP, from GID GID_INDEX; each is limited to 60 s (PSNs
# that do not agree make both sides wait forever). The server's output is
# in $EW_TMP/srv.
ew_pingpong_lo() {
	ew_in_cg "$2" timeout 60 ibv_rc_pingpong -d "$DEV" -g "$3" -n 20 -c \
		>"$EW_TMP/srv" 2>&1 &
	_ew_srv=$!
	ew_wait_listen 18515
	ew_expect_rc 0 "$1" \
		ew_in_cg "$2" timeout 60 ibv_rc_pingpong -d "$DEV" -g "$3" -n 20 -c 127.0.0.1
	wait "$_ew_srv"
}

# ew_job_id NAME: the id the module gave job NAME (`eastwestctl -j job show`).
ew_job_id() {
	"$EW_TOP/userspace/eastwestctl" -j job show "$1" | python3 -c '
import json, sys
d = json.load(sys.stdin)
if isinstance(d, list):
    d = [j for j in d if j.get("name") == sys.argv[1]][0]
print(d["id"])' "$1"
}

# The kernel's YNL library (linux-source-6.12) and eastwest's spec.
EW_YNL_DIR=/usr/src/linux-source-6.12/tools/net/ynl
EW_YNL_SPEC=$EW_TOP/Documentation/netlink/specs/eastwest.yaml
EW_YNL_SCHEMA=/usr/src/linux-source-6.12/Documentation/netlink/genetlink-legacy.yaml

# ew_ynl_do OP JSON: one request of the eastwest family through the YNL
# library, with only the spec; prints the reply as JSON (flag sets as sorted
# lists, binary as hex), or "error: ..." and returns 1.
ew_ynl_do() {
	python3 - "$EW_YNL_DIR" "$EW_YNL_SPEC" "$EW_YNL_SCHEMA" "$1" "$2" <<'EOF'
import json, sys
sys.path.insert(0, sys.argv[1])
from lib import YnlFamily, NlError
ynl = YnlFamily(sys.argv[2], sys.argv[3])
try:
    reply = ynl.do(sys.argv[4], json.loads(sys.argv[5]))
except NlError as e:
    print("error:", e)
    sys.exit(1)
def plain(v):
    if isinstance(v, set):
        return sorted(v)
    if isinstance(v, dict):
        return {k: plain(x) for k, x in v.items()}
    if isinstance(v, list):
        return [plain(x) for x in v]
    if isinstance(v, bytes):
        return v.hex()
    return v
print(json.dumps(plain(reply or {})))
EOF
}

# ew_ynl_refused REGEX OP JSON: the request fails with a message matching
# REGEX (the message is shown if it does not).
EW_YNL_OUT=${TMPDIR:-/tmp}/ew-ynl-out.$$
ew_ynl_refused() {
	if ew_ynl_do "$2" "$3" >"$EW_YNL_OUT" 2>&1; then
		echo "# succeeded: $(cat "$EW_YNL_OUT")"
		return 1
	fi
	grep -qE -- "$1" "$EW_YNL_OUT" && return 0
	sed 's/^/# /' "$EW_YNL_OUT"
	return 1
}

# ----------------------------------------------------------------------------
# Captures on the wire (the two-node tests of protected paths)

# ew_capture_start NAME: tshark on eth0 into $EW_TMP/NAME.pcap, in the
# background (EW_CAP_PID, also in BG_PIDS, so that kill_bg stops a capture
# left running); returns once it captures.
ew_capture_start() {
	tshark -q -i eth0 -w "$EW_TMP/$1.pcap" >"$EW_TMP/$1.tshark" 2>&1 &
	EW_CAP_PID=$!
	BG_PIDS="$BG_PIDS $EW_CAP_PID"
	ew_wait_for 15 grep -q "Capturing on" "$EW_TMP/$1.tshark"
}

# ew_capture_stop: end the capture ew_capture_start began (its file complete).
ew_capture_stop() {
	sleep 1
	kill -INT "$EW_CAP_PID" 2>/dev/null
	wait "$EW_CAP_PID" 2>/dev/null
}

# ew_frames NAME FILTER: how many frames of capture NAME match the display
# filter FILTER.
ew_frames() {
	tshark -r "$EW_TMP/$1.pcap" -Y "$2" 2>/dev/null | wc -l
}

# ew_pattern_count NAME: how many 32-byte runs of 0x7b (ibv_rc_pingpong's
# payload) capture NAME holds: the data, readable on the wire.
ew_pattern_count() {
	python3 -c '
import sys
print(open(sys.argv[1], "rb").read().count(b"\x7b" * 32))' "$EW_TMP/$1.pcap"
}

# ----------------------------------------------------------------------------
# Background processes: each one recorded, waited for, or killed

EW_BG_PIDS=

# ew_start_bg OUT CGROUP CMD...: start CMD in CGROUP (below $EW_CG), output
# to OUT, stdin from $EW_BG_STDIN (default /dev/null); sets EW_BG_PID (CMD's
# own pid) and records it for ew_reap_all.
ew_start_bg() {
	# Names of its own: ew_check's _ew_out is live when a checked
	# function starts a process.
	_ew_bg_out=$1
	_ew_bg_cg=$2
	shift 2
	sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$EW_CG$_ew_bg_cg" "$@" \
		<"${EW_BG_STDIN:-/dev/null}" >"$_ew_bg_out" 2>&1 3>&- 4>&- &
	EW_BG_PID=$!
	EW_BG_PIDS="$EW_BG_PIDS $EW_BG_PID"
}

# ew_start_stepwise OUT CGROUP CMD...: ew_start_bg with CMD's stdin a FIFO
# held open on fd 3, where each "go" line lets CMD take its next step
# (ew_verbs rc-stepwise and the like); close fd 3 (exec 3>&-) once done.
ew_start_stepwise() {
	_ew_sw_fifo=$1.fifo
	mkfifo "$_ew_sw_fifo" || return 1
	exec 3<>"$_ew_sw_fifo"
	EW_BG_STDIN=$_ew_sw_fifo
	ew_start_bg "$@"
	EW_BG_STDIN=
}

# ew_pair_start OUT STDIN CGROUP DEV GID_INDEX MESSAGES: ew_verbs
# rc-pair-hold (two RC QPs of one process connected to each other over the
# GID at GID_INDEX, see ew_verbs.c) in CGROUP as uid 65534 with no
# capabilities, in the background, its go line read from STDIN (a FIFO the
# caller holds open); sets EW_BG_PID. It prints "connected" once both QPs
# are up; ew_pair_field reads its QPNs and PSNs.
ew_pair_start() {
	EW_BG_STDIN=$2
	ew_start_bg "$1" "$3" setpriv --reuid=65534 --regid=65534 --clear-groups \
		--inh-caps=-all --bounding-set=-all "$VERBS" rc-pair-hold "$4" "$5" "$6"
	EW_BG_STDIN=
}

# ew_pair_field OUT QP FIELD: field FIELD (qpn, sq-psn, rq-psn) of QP (qp1,
# qp2) in ew_pair_start's output OUT ("qp2 qpn 0x.. sq-psn 0x.. rq-psn 0x..").
ew_pair_field() {
	sed -n "s/^$2 \(.* \)*$3 \(0x[0-9a-f]*\).*/\2/p" "$1"
}

# ew_gone PID: process PID has exited (a zombie counts as exited).
ew_gone() {
	_ew_st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null) || return 0
	case $_ew_st in
	Z* | X* | '') return 0 ;;
	esac
	return 1
}

# ew_reap PID TIMEOUT: wait up to TIMEOUT s for PID to exit, else kill it;
# EW_REAP_RC is its exit status (or "killed"). Fails if it had to be killed.
ew_reap() {
	EW_BG_PIDS=$(echo " $EW_BG_PIDS " | sed "s/ $1 / /")
	if ew_wait_for "$2" ew_gone "$1"; then
		wait "$1"
		EW_REAP_RC=$?
		return 0
	fi
	kill "$1" 2>/dev/null
	wait "$1" 2>/dev/null
	EW_REAP_RC=killed
	echo "# process $1 did not exit within $2 s: killed"
	return 1
}

# BG_PIDS, kill_bg: processes a test started in the background by itself
# (it adds their pids to BG_PIDS), killed by kill_bg (ew_defer kill_bg).
BG_PIDS=
kill_bg() {
	for _p in $BG_PIDS; do
		kill "$_p" 2>/dev/null
	done
}

# ew_reap_all: kill and wait for every process ew_start_bg started.
ew_reap_all() {
	for _ew_p in $EW_BG_PIDS; do
		kill "$_ew_p" 2>/dev/null
		wait "$_ew_p" 2>/dev/null
	done
	EW_BG_PIDS=
}
