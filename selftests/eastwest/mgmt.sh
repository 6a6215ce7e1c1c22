#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 1
# ew-kernels: 6.1
# ew-timeout: 400
#
# Management-plane ACL and metrics, for real, on one node:
#   - eastwestctl mgmt apply puts table inet eastwest_mgmt in the kernel
#     (libnftables); from a network namespace behind a veth pair, an
#     address inside the admin prefixes reaches a TCP listener on port 22
#     (IPv4 and IPv6), an address outside does not; loopback still does, a
#     port the ACL does not declare is untouched, and an admin session open
#     across a narrowing apply keeps working;
#   - apply run from an SSH session the new ACL would lock out is refused;
#     a bad configuration (prefix, port, service) exits 2 and leaves the
#     ruleset as it was, and so does --dry-run of another one; mgmt flush
#     removes our table and nothing else (another table survives);
#   - with the module loaded, a denied connect shows up as a non-zero
#     eastwest_denied_total{reason="no-job"} in stats prometheus, and
#     "out FILE" replaces FILE atomically (eastwest_up 0 once the module is
#     gone).
#
# Every exec is slow under TCG: one Python agent per network namespace does
# all the connecting (see net.py below).

# shellcheck disable=SC2317 # the functions run through ew_check
. "$(dirname "$0")/../lib.sh"

NS=ewmgmt
HOST4=10.77.0.1
HOST6=fd77::1
IN4=10.77.0.2
IN6=fd77::2
OUT4=10.77.0.100
OUT6=fd77::100

ew_require_root
ew_require_cmd nft ip python3 rdma jq
ew_require_built ctl verbs

ew_tmp_dir
ew_defer "ip netns del $NS"
ew_defer "ip link del ewm0"
ew_defer "nft delete table inet ewtest_other"
ew_defer "'$CTL' mgmt flush"
ew_defer "ew_rmmod"
ew_defer "rdma link delete rxe0"

# net.py DIR [PORT...]: echo servers on PORTs (dual stack), and an agent
# that runs the request in DIR/req and answers in DIR/resp:
#   probe SRC,DST,PORT...  one line "SRC DST PORT open|closed" each (SRC "-":
#                          any; 2 s to connect and echo)
#   hold SRC DST PORT      open a connection and keep it: "held" or "failed"
#   check                  does the held connection still echo: alive|dead
cat >"$EW_TMP/net.py" <<'EOF'
import os, socket, sys, threading, time

def echo(conn):
    with conn:
        while True:
            data = conn.recv(64)
            if not data:
                return
            conn.sendall(data)

def serve(port):
    s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    s.bind(("::", port))
    s.listen(16)
    while True:
        c, _ = s.accept()
        threading.Thread(target=echo, args=(c,), daemon=True).start()

def connect(src, dst, port, timeout):
    s = socket.socket(socket.AF_INET6 if ":" in dst else socket.AF_INET)
    s.settimeout(timeout)
    if src != "-":
        s.bind((src, 0))
    s.connect((dst, port))
    return s

def talks(s):
    s.sendall(b"ping\n")
    return s.recv(64) == b"ping\n"

def probe(spec):
    src, dst, port = spec.split(",")
    try:
        with connect(src, dst, int(port), 2) as s:
            ok = talks(s)
    except OSError:
        ok = False
    return "%s %s %s %s" % (src, dst, port, "open" if ok else "closed")

held = []

def run(words):
    if words[0] == "probe":
        return [probe(w) for w in words[1:]]
    if words[0] == "hold":
        try:
            s = connect(words[1], words[2], int(words[3]), 5)
            held.append(s)
            return ["held" if talks(s) else "failed"]
        except OSError:
            return ["failed"]
    if words[0] == "check":
        try:
            return ["alive" if held and talks(held[0]) else "dead"]
        except OSError:
            return ["dead"]
    return ["bad request"]

d = sys.argv[1]
for p in sys.argv[2:]:
    threading.Thread(target=serve, args=(int(p),), daemon=True).start()
open(os.path.join(d, "ready"), "w").close()
req, resp = os.path.join(d, "req"), os.path.join(d, "resp")
while True:
    try:
        text = open(req).read()
    except FileNotFoundError:
        text = ""
    if not text.endswith("\nEND\n"):
        time.sleep(0.05)
        continue
    os.unlink(req)
    out = run(text.split("\n")[0].split())
    with open(resp + ".tmp", "w") as f:
        f.write("".join(line + "\n" for line in out))
    os.rename(resp + ".tmp", resp)
EOF

# ask DIR REQUEST...: have the agent of DIR run REQUEST; its answer is
# then in DIR/resp.
ask() {
	_d=$1
	shift
	rm -f "$_d/resp"
	printf '%s\nEND\n' "$*" >"$_d/req"
	ew_wait_for 60 test -e "$_d/resp"
}

# is STATE SRC DST PORT: the last probe saw that.
is() {
	grep -qx -- "$2 $3 $4 $1" "$EW_TMP/ns/resp" "$EW_TMP/root/resp"
}

# ruleset: our table, without counters (they move with every probe).
ruleset() {
	nft -s list table inet eastwest_mgmt
}

no_table() {
	! nft list table inet eastwest_mgmt >/dev/null 2>&1
}

other_table() {
	nft list table inet ewtest_other >/dev/null
}

ready() {
	[ -e "$EW_TMP/root/ready" ] && [ -e "$EW_TMP/ns/ready" ] &&
		[ -n "$(ss -Htln 'sport = :22')" ]
}

ew_plan 50

# --- the network: this host and, behind a veth pair, one namespace that
# has an address inside the admin prefixes and one outside -----------------
ip netns add "$NS" || ew_bail "ip netns add $NS"
ip link add ewm0 type veth peer name ewm1 || ew_bail "ip link add veth"
ip link set ewm1 netns "$NS"
ip addr add "$HOST4/24" dev ewm0
ip -6 addr add "$HOST6/64" dev ewm0 nodad
ip link set ewm0 up
ip netns exec "$NS" sh -e -c "
	ip link set lo up
	ip addr add $IN4/24 dev ewm1
	ip addr add $OUT4/24 dev ewm1
	ip -6 addr add $IN6/64 dev ewm1 nodad
	ip -6 addr add $OUT6/64 dev ewm1 nodad
	ip link set ewm1 up" || ew_bail "namespace addresses"
mkdir "$EW_TMP/root" "$EW_TMP/ns"
python3 "$EW_TMP/net.py" "$EW_TMP/root" 22 2222 &
ew_defer "kill $!"
ip netns exec "$NS" python3 "$EW_TMP/net.py" "$EW_TMP/ns" &
ew_defer "kill $!"
ew_check "a TCP listener on port 22 (and 2222), agents ready" ew_wait_for 60 ready

# Someone else's table: mgmt must never touch it.
nft -f - <<'EOF' || ew_bail "nft: the other table"
table inet ewtest_other {
	chain input {
		type filter hook input priority 10; policy accept;
		counter
	}
}
EOF

cat >"$EW_TMP/mgmt.json" <<EOF
{ "admin_networks": ["10.77.0.0/30", "fd77::/126"],
  "services": { "ssh": {}, "ipmi": {} } }
EOF
cat >"$EW_TMP/wide.json" <<EOF
{ "admin_networks": ["10.77.0.0/24", "fd77::/64"], "services": { "ssh": {} } }
EOF

ask "$EW_TMP/ns" probe "$OUT4,$HOST4,22"
ew_check "before the ACL, an outside address reaches port 22" is open "$OUT4" "$HOST4" 22

# --- generate, check, apply -----------------------------------------------------
ew_expect_rc 0 "mgmt generate prints the ruleset" "$CTL" mgmt generate -f "$EW_TMP/mgmt.json"
ew_check "with the admin prefixes and the SSH rule" sh -c "
	grep -q 'elements = { 10.77.0.0/30 }' '$EW_OUT' &&
	grep -q 'tcp dport 22 ip saddr @admin_v4 accept' '$EW_OUT'"
ew_expect_rc 0 "mgmt apply --dry-run: the kernel checks it" \
	"$CTL" mgmt apply --dry-run -f "$EW_TMP/mgmt.json"
ew_check "generate and --dry-run applied nothing" no_table

# A first ACL that still lets the whole /24 in; an admin session from
# $OUT4 opens under it. Narrowing the ACL (the atomic replacement below)
# must not cut that session: conntrack follows it, established comes first.
ew_expect_rc 0 "mgmt apply of a wide ACL" env -u SSH_CONNECTION "$CTL" mgmt apply -f "$EW_TMP/wide.json"
ask "$EW_TMP/ns" hold "$OUT4" "$HOST4" 22
ew_check "an admin session from $OUT4 is open" grep -qx held "$EW_TMP/ns/resp"

# Run from that session, apply would lock its client out: refused.
ruleset >"$EW_TMP/wide"
ew_expect_rc 2 "apply from an SSH session the ACL would close: refused (exit 2)" \
	env SSH_CONNECTION="$OUT4 40022 $HOST4 22" "$CTL" mgmt apply -f "$EW_TMP/mgmt.json"
ew_check "it says why and names --force" grep -q "comes from $OUT4.*--force" "$EW_OUT"
ew_check "and nothing changed" sh -c "nft -s list table inet eastwest_mgmt | cmp -s - '$EW_TMP/wide'"

ew_expect_rc 0 "mgmt apply (narrow: /30)" env -u SSH_CONNECTION "$CTL" mgmt apply -f "$EW_TMP/mgmt.json"
ew_expect_rc 0 "mgmt show" "$CTL" mgmt show
ew_check "lists our chain" grep -q 'ip saddr @admin_v4 accept' "$EW_OUT"

ask "$EW_TMP/ns" probe "$IN4,$HOST4,22" "$OUT4,$HOST4,22" "$IN6,$HOST6,22" "$OUT6,$HOST6,22" \
	"$OUT4,$HOST4,2222"
ask "$EW_TMP/root" probe "-,127.0.0.1,22" "-,::1,22"
ew_diag "$(cat "$EW_TMP/ns/resp" "$EW_TMP/root/resp")"
ew_check "IPv4 inside the admin prefix reaches port 22" is open "$IN4" "$HOST4" 22
ew_check "IPv4 outside does not" is closed "$OUT4" "$HOST4" 22
ew_check "IPv6 inside the admin prefix reaches port 22" is open "$IN6" "$HOST6" 22
ew_check "IPv6 outside does not" is closed "$OUT6" "$HOST6" 22
ew_check "port 2222 (not declared) is untouched" is open "$OUT4" "$HOST4" 2222
ew_check "loopback IPv4 reaches port 22" is open - 127.0.0.1 22
ew_check "loopback IPv6 reaches port 22" is open - ::1 22
ew_check "the drop rule counted the refused SYNs" \
	sh -c "nft list table inet eastwest_mgmt | grep -Eq 'counter packets [1-9].* drop'"
ask "$EW_TMP/ns" check
ew_check "the admin session open across the apply still works" grep -qx alive "$EW_TMP/ns/resp"
ew_check "the other table is untouched" other_table

# --- bad input: exit 2, nothing changed ----------------------------------------------
ruleset >"$EW_TMP/before"
printf '{ "admin_networks": ["10.77.0.0/33"], "services": { "ssh": {} } }' >"$EW_TMP/bad1.json"
printf '{ "admin_networks": ["10.77.0.0/30"], "services": { "web": { "tcp": [65536] } } }' >"$EW_TMP/bad2.json"
printf '{ "admin_networks": ["10.77.0.0/30"], "services": { "telnet": {} } }' >"$EW_TMP/bad3.json"
printf '{ "admin_networks": ["0.0.0.0/0", "::/0"], "services": { "ssh": {} } }' >"$EW_TMP/open.json"
ew_expect_rc 2 "bad prefix: exit 2" "$CTL" mgmt apply -f "$EW_TMP/bad1.json"
ew_check "the message names it" grep -q 'admin_networks\[0\]: bad network "10.77.0.0/33"' "$EW_OUT"
ew_expect_rc 2 "bad port: exit 2" "$CTL" mgmt apply -f "$EW_TMP/bad2.json"
ew_check "the message names it" grep -q 'services.web.tcp\[0\]: port 65536 is out of range' "$EW_OUT"
ew_expect_rc 2 "unknown service: exit 2" "$CTL" mgmt apply -f "$EW_TMP/bad3.json"
ew_check "the message names it" grep -q 'unknown service "telnet"' "$EW_OUT"
ew_expect_rc 0 "--dry-run of another good file" "$CTL" mgmt apply -n -f "$EW_TMP/open.json"
ew_check "the ruleset is exactly as before" sh -c "nft -s list table inet eastwest_mgmt | cmp -s - '$EW_TMP/before'"
ask "$EW_TMP/ns" probe "$OUT4,$HOST4,22"
ew_check "and still closes port 22 to outsiders" is closed "$OUT4" "$HOST4" 22

# --- flush -----------------------------------------------------------------------------
ew_expect_rc 0 "mgmt flush" "$CTL" mgmt flush
ew_check "our table is gone" no_table
ew_check "the other table is still there" other_table
ew_expect_rc 0 "a second flush is a no-op" "$CTL" mgmt flush
ask "$EW_TMP/ns" probe "$OUT4,$HOST4,22"
ew_check "outsiders reach port 22 again" is open "$OUT4" "$HOST4" 22

# --- metrics -----------------------------------------------------------------------------
ew_check "module loads" ew_load
ew_check "rxe0 on lo" ew_rxe_add rxe0 lo
# No job, default deny: refused (EACCES).
"$VERBS" rc-connect rxe0 1 127.0.0.1 self >/dev/null 2>&1
ew_expect_rc 0 "stats prometheus" "$CTL" stats prometheus
ew_check "counts the no-job denial, with HELP and TYPE lines" sh -c "
	grep -Eq '^eastwest_denied_total\{reason=\"no-job\"\} [1-9][0-9]*$' '$EW_OUT' &&
	grep -qx '# TYPE eastwest_denied_total counter' '$EW_OUT' &&
	grep -qx 'eastwest_up 1' '$EW_OUT'"
mkdir "$EW_TMP/prom"
ew_expect_rc 0 "stats prometheus out FILE" \
	"$CTL" stats prometheus out "$EW_TMP/prom/eastwest.prom"
ew_check "FILE holds the counter, mode 644, no temporary file left" sh -c "
	grep -Eq '^eastwest_denied_total\{reason=\"no-job\"\} [1-9]' '$EW_TMP/prom/eastwest.prom' &&
	[ \$(stat -c %a '$EW_TMP/prom/eastwest.prom') = 644 ] &&
	[ \$(ls -A '$EW_TMP/prom' | wc -l) -eq 1 ]"
ew_expect_rc 0 "stats (summary)" "$CTL" stats
ew_check "shows the node and the denial" sh -c "
	grep -q '^mode enforce default deny' '$EW_OUT' &&
	grep -Eq 'denied: no-job [1-9]' '$EW_OUT'"
ew_expect_rc 0 "-j stats interval 1" "$CTL" -j stats interval 1
ew_check "has the counters, the config and the rates" jq -e \
	'.global.denied_no_job >= 1 and .config.mode == "enforce" and
	 .global_rates.denied >= 0 and .interval > 0.5' "$EW_OUT"
ew_rxe_del rxe0 >/dev/null 2>&1
ew_unload >/dev/null 2>&1
# The family lookup would load an installed (DKMS) module: not this time.
old_modprobe=$(cat /proc/sys/kernel/modprobe)
ew_defer "echo '$old_modprobe' >/proc/sys/kernel/modprobe"
echo /bin/false >/proc/sys/kernel/modprobe
ew_expect_rc 4 "without the module: exit 4" \
	"$CTL" stats prometheus out "$EW_TMP/prom/eastwest.prom"
echo "$old_modprobe" >/proc/sys/kernel/modprobe
ew_check "and FILE says eastwest_up 0" grep -qx 'eastwest_up 0' "$EW_TMP/prom/eastwest.prom"

ew_done
