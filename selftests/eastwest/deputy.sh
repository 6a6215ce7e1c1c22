#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 1
# ew-timeout: 300
#
# A dump of connection identifiers built for its requester, whoever reads
# the socket. A netlink dump's batches are built in the context of the task
# that reads the socket: a process of job B that hands its RDMA netlink
# socket, with a QP dump under way, to a setuid-root program reading its
# standard input once (as sudo -S reads a password) must still get only
# what job B may see. rxe0 on a dummy netdev; job A's QP connected to
# itself, job B's likewise; every job process runs as uid 65534; the
# setuid program is selftests/tools/ew_readonce (one read of one byte of
# its standard input, as a password prompt reads), installed setuid root
# here.
#
#   1. controls: `rdma res show qp` as job B lists B's QP and not A's; as
#      root, both; the stand-in runs with effective uid 0;
#   2. job B's process asks for the QP dump on a socket whose queue it has
#      filled, so the first batch is left for the next read, and runs the
#      setuid program with the socket as its standard input
#      (selftests/tools/ew_nldeputy.py): the batch the program's read built
#      lists job B's QP (the dump ran) and not job A's;
#   3. the same with a program that moves its standard input with
#      sendfile(2) (ew_readonce sendfile), where the socket is the system
#      call's second argument: the batch lists job B's QP and not job A's;
#   4. a program that copies a file to its standard output with sendfile(2)
#      (ew_readonce sendfile-out), given job B's socket as standard output
#      and a file holding the QP dump request: its write sends the request
#      and the kernel builds the first batch for it; the batch lists job
#      B's QP and not job A's;
#   5. a 32-bit program (selftests/tools/ew_readonce32, system calls through
#      the 32-bit entry): its read(), its socketcall(SYS_RECVFROM), whose
#      socket is the first word of its arguments in memory, and its
#      sendfile() into a pipe: each batch lists job B's QP and not job A's.
#
# Against a module whose visibility rule judged only the reading task
# (6d3a936), 2 lists job A's QP (found by an attacker review, by reading);
# against one that looked for the socket in the first argument only
# (e45d6ce), 3 lists it; against one that looked at sendfile()'s input
# only, 4 does; against one that did not decode the 32-bit entry's calls
# (e45d6ce), 5's socketcall and sendfile list it.

. "$(dirname "$0")/../lib.sh"

DEV=rxe0
CG=/sys/fs/cgroup
S=10.79.0.1

ew_require_root
ew_require_cmd rdma ip python3 setpriv
ew_require_built ctl verbs cgroup
for t in ew_readonce ew_readonce32; do
	[ -x "$EW_TOP/selftests/tools/$t" ] || ew_skip "$t is not built (make tools)"
done

ew_tmp_dir 755
ew_defer "rmdir $CG/ewA $CG/ewB"
ew_defer "ew_netdev_del ewd0"
ew_defer "rdma link delete $DEV"
ew_defer "ew_unload"
ew_defer "ew_reap_all"

# As a user logged in: the bounding set full, so that a setuid program it
# runs has root's capabilities.
NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all"
DEPUTY=$EW_TOP/selftests/tools/ew_nldeputy.py

# lqpns_of FILE: the QP numbers `rdma -j res show qp` wrote to FILE.
lqpns_of() {
	python3 -c '
import json, sys
print(" ".join(str(r["lqpn"]) for r in json.load(open(sys.argv[1]))))' "$1"
}

# lists FILE QPN: the list of numbers in FILE has QPN.
lists() {
	grep -Eq "(^| )$2( |\$)" "$1"
}

ew_plan 28

ew_check "eastwest.ko loads" ew_load
ew_check "a dummy netdev with $S" ew_dummy_add ewd0 "$S/24" 02:79:00:00:00:01
ew_check "$DEV on it" ew_rxe_add "$DEV" ewd0
IDX=$(ew_wait_gid_index "$DEV" "$S")
mkdir -p "$CG/ewA" "$CG/ewB"
ew_check "jobs A and B" sh -c \
	"'$CTL' job add ewA cgroup /ewA peer 10.79.0.0/24 &&
	 '$CTL' job add ewB cgroup /ewB peer 10.79.0.0/24"
# The guest's /tmp is nosuid: a tmpfs of the test's own for the program.
mkdir "$EW_TMP/suid"
mount -t tmpfs -o mode=755 ew-suid "$EW_TMP/suid"
ew_defer "umount $EW_TMP/suid"
RO=$EW_TMP/suid/readonce
cp "$EW_TOP/selftests/tools/ew_readonce" "$RO"
chown root:root "$RO"
chmod 4755 "$RO"
RO32=$EW_TMP/suid/readonce32
cp "$EW_TOP/selftests/tools/ew_readonce32" "$RO32"
chown root:root "$RO32"
chmod 4755 "$RO32"
DEVIDX=$(rdma -j dev show "$DEV" | python3 -c 'import json, sys; print(json.load(sys.stdin)[0]["ifindex"])')

ew_start_bg "$EW_TMP/a" /ewA $NOBODY "$VERBS" rc-hold "$DEV" "${IDX:-0}" "$S" self 240
APID=$EW_BG_PID
ew_start_bg "$EW_TMP/b" /ewB $NOBODY "$VERBS" rc-hold "$DEV" "${IDX:-0}" "$S" self 240
BPID=$EW_BG_PID
both_connected() {
	ew_wait_for 60 grep -qx connected "$EW_TMP/a" &&
		ew_wait_for 60 grep -qx connected "$EW_TMP/b"
}
ew_check "job A's QP and job B's QP connected" both_connected
A=$(ew_qpn_of "$DEV" "$APID")
B=$(ew_qpn_of "$DEV" "$BPID")
ew_diag "job A's QP ${A:-none}, job B's QP ${B:-none}"

# --- 1. controls -----------------------------------------------------------------
ew_in_cg /ewB $NOBODY rdma -j res show qp link "$DEV/1" >"$EW_TMP/b.json" 2>&1
lqpns_of "$EW_TMP/b.json" >"$EW_TMP/b.q" 2>/dev/null
ew_check "1/job B's rdma res show qp lists B's QP ${B:-none}" lists "$EW_TMP/b.q" "${B:-x}"
ew_check_not "1/... and not A's ${A:-none}" lists "$EW_TMP/b.q" "${A:-x}"
rdma -j res show qp link "$DEV/1" >"$EW_TMP/root.json" 2>&1
lqpns_of "$EW_TMP/root.json" >"$EW_TMP/root.q" 2>/dev/null
ew_check "1/root's lists both" sh -c "grep -Eq '(^| )${A:-x}( |\$)' '$EW_TMP/root.q' &&
	grep -Eq '(^| )${B:-x}( |\$)' '$EW_TMP/root.q'"
ew_in_cg /ewB $NOBODY "$RO" </dev/null >"$EW_TMP/ro.out" 2>&1
ew_check "1/the setuid stand-in runs with effective uid 0 for uid 65534" \
	grep -q '^euid 0 ' "$EW_TMP/ro.out"

# --- 2. the dump's batch built by the setuid program's read ------------------------
ew_in_cg /ewB $NOBODY python3 "$DEPUTY" "${DEVIDX:-0}" "$RO" \
	>"$EW_TMP/dep.out" 2>&1
sed 's/^/# /' "$EW_TMP/dep.out"
sed -n 's/^lqpns *//p' "$EW_TMP/dep.out" >"$EW_TMP/dep.q"
ew_check "2/the setuid program read the socket as euid 0" \
	grep -q '^reader: euid 0 read [1-9]' "$EW_TMP/dep.out"
ew_check "2/the batch its read built lists job B's QP ${B:-none} (the dump ran)" \
	lists "$EW_TMP/dep.q" "${B:-x}"
ew_check_not "2/... and not job A's QP ${A:-none}" lists "$EW_TMP/dep.q" "${A:-x}"

# --- 3. the same through sendfile(): the socket is its second argument ------------
ew_in_cg /ewB $NOBODY python3 "$DEPUTY" "${DEVIDX:-0}" "$RO" sendfile \
	>"$EW_TMP/dep3.out" 2>&1
sed 's/^/# /' "$EW_TMP/dep3.out"
sed -n 's/^lqpns *//p' "$EW_TMP/dep3.out" >"$EW_TMP/dep3.q"
ew_check "3/the setuid program moved a byte of the socket by sendfile() as euid 0" \
	grep -q '^reader: euid 0 read [1-9]' "$EW_TMP/dep3.out"
ew_check "3/the batch it built lists job B's QP ${B:-none} (the dump ran)" \
	lists "$EW_TMP/dep3.q" "${B:-x}"
ew_check_not "3/... and not job A's QP ${A:-none}" lists "$EW_TMP/dep3.q" "${A:-x}"

# --- 4. a request written by sendfile(): the socket is its first argument ---------
ew_in_cg /ewB $NOBODY python3 "$DEPUTY" --out "${DEVIDX:-0}" "$RO" sendfile-out \
	>"$EW_TMP/dep4.out" 2>&1
sed 's/^/# /' "$EW_TMP/dep4.out"
sed -n 's/^lqpns *//p' "$EW_TMP/dep4.out" >"$EW_TMP/dep4.q"
ew_check "4/the setuid program wrote the request by sendfile() as euid 0" \
	grep -q '^reader: euid 0 read [1-9]' "$EW_TMP/dep4.out"
ew_check "4/the batch built for it lists job B's QP ${B:-none} (the dump ran)" \
	lists "$EW_TMP/dep4.q" "${B:-x}"
ew_check_not "4/... and not job A's QP ${A:-none}" lists "$EW_TMP/dep4.q" "${A:-x}"

# --- 5. a 32-bit program: the socket in memory (socketcall) or second ----------
for mode in read socketcall sendfile; do
	ew_in_cg /ewB $NOBODY python3 "$DEPUTY" "${DEVIDX:-0}" "$RO32" "$mode" \
		>"$EW_TMP/dep5$mode.out" 2>&1
	sed 's/^/# /' "$EW_TMP/dep5$mode.out"
	sed -n 's/^lqpns *//p' "$EW_TMP/dep5$mode.out" >"$EW_TMP/dep5$mode.q"
	ew_check "5/a 32-bit setuid program's $mode took a byte of the socket as euid 0" \
		grep -q '^reader: euid 0 read [1-9]' "$EW_TMP/dep5$mode.out"
	ew_check "5/the batch its $mode built lists job B's QP ${B:-none} (the dump ran)" \
		lists "$EW_TMP/dep5$mode.q" "${B:-x}"
	ew_check_not "5/... and not job A's QP ${A:-none}" lists "$EW_TMP/dep5$mode.q" "${A:-x}"
done

ew_check "no oops, warning or leak in the kernel log" sh -c \
	"! dmesg | grep -Eq 'WARNING:|BUG:|Oops|Call Trace:|refcount_t:'"
ew_done
