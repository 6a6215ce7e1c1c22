#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 1
# ew-timeout: 420
# ew-kernels: 6.12
#
# Crypto offload paths on a NIC that offloads: netdevsim, built out of tree
# from linux-source-6.12 (make netdevsim; selftests/vm/run does it) into
# build/RELEASE/netdevsim/, with its MACsec offload (macsec.c: macsec_ops,
# NETIF_F_HW_MACSEC) and its ESP crypto offload (ipsec.c: xfrmdev_ops,
# NETIF_F_HW_ESP). netdevsim only pretends to encrypt: this checks the
# control path (what eastwestctl sets up, what the module counts), not the
# wire. Soft-RoCE sits on the netdevsim netdev (rxe0) and on the offloaded
# MACsec link over it (rxem); connects go to this node's own addresses.
# Checked:
#   - `path caps` reports the MACsec and ESP crypto offloads, auto picks
#     MACsec offload mac; `path add type auto` makes an offloaded link;
#   - the module reports the path protected by macsec offload mac, a job
#     requiring macsec connects over it; encrypt switched off on the
#     offloaded link: refused; the kernel refuses to switch the offload
#     off on a link with SAs (busy), so the link stays offload mac;
#   - the MACsec link above the netdevsim netdev does not protect rxe0's
#     GID on the netdev itself: refused;
#   - ESP: eastwestctl's `type ipsec offload crypto` (AES-256) is refused by
#     netdevsim (it offloads 128-bit keys only), nothing left behind; an ESP
#     state with a 128-bit key offloaded to the netdev (iproute2) makes the
#     path ipsec for a job requiring ipsec; the state removed: refused;
#   - the netdevsim device deleted: its RDMA devices and the path go away,
#     the held QP with them, and nothing connects.
# 6.1 is left out: the 6.12 netdevsim does not build against 6.1's headers
# (net/page_pool/helpers.h, linux/ptp_mock.h) and 6.1's has no macsec.c.

. "$(dirname "$0")/../lib.sh"

CG=/sys/fs/cgroup
NSIM_KO=$EW_TOP/build/$(uname -r)/netdevsim/netdevsim.ko
NSIM_ID=77
N=ewnsim0		# the netdevsim netdev, 10.79.0.1
MS=ew-$N		# the MACsec link eastwestctl makes on it, 10.80.0.1
PEER_MAC=02:00:00:00:00:79
# Test key only: rfc4106 with a 128-bit key + 4-byte salt (netdevsim's limit).
ESPKEY=0x000102030405060708090a0b0c0d0e0fa0a1a2a3

ew_require_root
ew_require_cmd rdma ip jq python3
ew_require_built ctl verbs cgroup
[ -f "$NSIM_KO" ] || ew_skip "no $NSIM_KO (make netdevsim KDIR=...: built from linux-source-6.12, for 6.12 only)"
ew_require_built ynl
[ -e /sys/module/rdma_rxe ] || modprobe rdma_rxe 2>/dev/null || ew_skip "no rdma_rxe"
modprobe macsec 2>/dev/null
[ ! -e /sys/module/eastwest ] || ew_bail "eastwest is already loaded"

T=$(mktemp -d)
ew_defer "rm -rf $T"
ew_defer "rmmod netdevsim"
ew_defer "echo $NSIM_ID > /sys/bus/netdevsim/del_device"
ew_defer "ew_rmmod"
ew_defer "rmdir $CG/ewM $CG/ewI"
ew_defer "ip xfrm state flush; ip xfrm policy flush"
ew_defer "rdma link delete rxem"
ew_defer "rdma link delete rxe0"
ew_defer "pkill -f 'ew_verbs rc-hold rxem'"

gid_hex() {
	printf '00000000000000000000ffff%02x%02x%02x%02x' $(echo "$1" | tr . ' ')
}
# path_get DEV IDX DEST JQ: jq test on the module's path-get reply.
path_get() {
	ew_ynl_do path-get "{\"dev-name\": \"$1\", \"port\": 1, \"sgid-index\": $2, \"dgid\": \"$(gid_hex "$3")\"}" >"$T/pg" &&
		jq -e "$4" "$T/pg" || { cat "$T/pg"; return 1; }
}
out_has() { grep -qE -- "$1" "$EW_OUT"; }
xfrm_none() { test -z "$(ip xfrm state)" && test -z "$(ip xfrm policy)"; }

echo "TAP version 13"

# --- netdevsim -------------------------------------------------------------------
modprobe psample 2>/dev/null
ew_check "netdevsim.ko (built from linux-source-6.12) loads" insmod "$NSIM_KO" ||
	ew_bail "cannot load $NSIM_KO"
echo "$NSIM_ID 1" >/sys/bus/netdevsim/new_device
ew_wait_for 10 sh -c "ls /sys/bus/netdevsim/devices/netdevsim$NSIM_ID/net/ 2>/dev/null | grep -q ."
NSIM_DEV=$(ls /sys/bus/netdevsim/devices/netdevsim$NSIM_ID/net/ 2>/dev/null | head -n 1)
ew_check "netdevsim device $NSIM_ID has a netdev (${NSIM_DEV:-none})" test -n "$NSIM_DEV" ||
	ew_bail "no netdevsim netdev"
ip link set "$NSIM_DEV" name $N
ip addr add 10.79.0.1/24 dev $N && ip link set $N up
ip neigh add 10.79.0.2 lladdr $PEER_MAC dev $N nud permanent
ethtool -k $N 2>/dev/null | grep -E 'macsec-hw-offload|esp-hw-offload' | sed 's/^/# ethtool: /'

ew_check "eastwest.ko loads" ew_load || ew_bail "cannot load eastwest"
ew_check "rxe0 on $N" ew_rxe_add rxe0 $N
P=$(ew_wait_gid_index rxe0 10.79.0.1)
ew_check "rxe0's GID for 10.79.0.1 (${P:-none})" test -n "$P"

# --- caps ----------------------------------------------------------------------------
ew_expect_rc 0 "path caps -j dev $N" "$CTL" -j path caps dev $N
cp "$EW_OUT" "$T/caps"
ew_check "caps: offload-caps macsec and esp-crypto (no esp-packet: netdevsim has no policy offload)" \
	jq -e '(.offload_caps | index("macsec")) != null and (.offload_caps | index("esp-crypto")) != null and (.offload_caps | index("esp-packet")) == null' "$T/caps"
ew_check "caps: auto picks macsec, offload mac" \
	jq -e '.auto.type == "macsec" and .auto.offload == "mac"' "$T/caps"
ew_expect_rc 0 "path caps (text)" "$CTL" path caps dev $N
ew_check "text: auto macsec offload mac because the NIC offloads MACsec" \
	out_has '^auto: macsec offload mac: the NIC offloads MACsec'

# --- ESP crypto offload with eastwestctl's own SAs -------------------------------
KEY=$T/key
printf '%s\n' 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f >"$KEY"
chmod 600 "$KEY"
"$CTL" path add dev $N type ipsec offload crypto key-file "$KEY" peer 10.79.0.2 >"$T/ipsec" 2>&1
rc=$?
sed 's/^/# ipsec offload crypto: /' "$T/ipsec"
ew_check "ipsec offload crypto (AES-256) refused by netdevsim, exit $rc" test "$rc" -ne 0
ew_check "nothing left behind (no xfrm state or policy)" xfrm_none

# --- MACsec offload, chosen by auto ----------------------------------------------
ew_expect_rc 0 "path add type auto" \
	"$CTL" path add dev $N type auto key-file "$KEY" local 10.80.0.1/24 peer 10.79.0.2 \
		lladdr $PEER_MAC rxe rxem
ew_check "auto: macsec, offload mac" out_has '^auto: macsec, offload mac'
ew_check "ip: $MS is offloaded (offload mac), encrypt on" \
	sh -c "ip -d link show $MS | grep -q 'offload mac' && ip -d link show $MS | grep -q 'encrypt on'"
ip neigh add 10.80.0.2 lladdr $PEER_MAC dev $MS nud permanent
S=$(ew_wait_gid_index rxem 10.80.0.1)
ew_check "rxem on $MS has the GID for 10.80.0.1 (${S:-none})" test -n "$S"
ew_check "module: the path is protected by macsec, offload mac, on $MS" \
	path_get rxem "$S" 10.80.0.2 "((.protection | index(\"macsec\")) != null) and .[\"macsec-offload\"] == \"mac\" and .[\"macsec-ifindex\"] == $(cat /sys/class/net/$MS/ifindex)"
ew_expect_rc 0 "path check: protected, offload mac" "$CTL" path check dev rxem sgid-index "$S" dst 10.80.0.2
ew_check "says protected by macsec offload mac" out_has "protected by macsec.* offload mac"

mkdir -p "$CG/ewM" "$CG/ewI"
ew_check "jobs requiring macsec and ipsec" sh -c "
	'$CTL' job add ewM cgroup /ewM peer 10.79.0.0/24 peer 10.80.0.0/24 encrypt macsec &&
	'$CTL' job add ewI cgroup /ewI peer 10.79.0.0/24 peer 10.80.0.0/24 encrypt ipsec"
ew_expect_rc 0 "encrypt macsec: connects over the offloaded MACsec path" \
	ew_in_cg /ewM "$VERBS" rc-connect rxem "$S" 10.80.0.2 self
ew_expect_rc 13 "encrypt macsec: rxe0 on the netdevsim netdev under the link is refused" \
	ew_in_cg /ewM "$VERBS" rc-connect rxe0 "$P" 10.79.0.2 self

ip link set $MS type macsec encrypt off
ew_expect_rc 13 "encrypt off on the offloaded link: refused" \
	ew_in_cg /ewM "$VERBS" rc-connect rxem "$S" 10.80.0.2 self
ip link set $MS type macsec encrypt on
ew_expect_rc 0 "encrypt on again: connects" \
	ew_in_cg /ewM "$VERBS" rc-connect rxem "$S" 10.80.0.2 self

# The offload cannot be taken off a configured link: 6.12's
# macsec_update_offload() refuses while the link is up and, down, while it
# has SAs (macsec_is_configured). Only deleting the link or the device ends
# it (below).
ip link set $MS down
ip macsec offload $MS off >"$T/off" 2>&1
rc=$?
ip link set $MS up
sed 's/^/# ip macsec offload off: /' "$T/off"
ew_check "offload off on the configured link (down, SAs installed) is refused: busy" \
	sh -c "test $rc -ne 0 && grep -qi busy '$T/off'"
ip neigh replace 10.80.0.2 lladdr $PEER_MAC dev $MS nud permanent
S=$(ew_wait_gid_index rxem 10.80.0.1)
ew_check "module: still macsec, offload mac" \
	path_get rxem "${S:-0}" 10.80.0.2 "((.protection | index(\"macsec\")) != null) and .[\"macsec-offload\"] == \"mac\""
ew_expect_rc 0 "encrypt macsec: connects again after the link came back up" \
	ew_in_cg /ewM "$VERBS" rc-connect rxem "${S:-0}" 10.80.0.2 self

# --- ESP crypto offload state (iproute2, 128-bit key) -----------------------------
ew_expect_rc 13 "encrypt ipsec: refused on rxe0 without ESP" \
	ew_in_cg /ewI "$VERBS" rc-connect rxe0 "$P" 10.79.0.2 self
ew_check "ESP state offloaded to $N (dir out) and a port-less UDP policy" sh -c "
	ip xfrm state add src 10.79.0.1 dst 10.79.0.2 proto esp spi 0x2001 reqid 9 mode transport \
		aead 'rfc4106(gcm(aes))' $ESPKEY 128 offload dev $N dir out &&
	ip xfrm policy add src 10.79.0.1/32 dst 10.79.0.2/32 proto udp dir out \
		tmpl src 10.79.0.1 dst 10.79.0.2 proto esp reqid 9 mode transport"
ip -d xfrm state | grep -i offload | sed 's/^/# ip xfrm: /'
ew_check "ip: the state is crypto-offloaded to $N" sh -c "ip -d xfrm state | grep -q 'crypto offload parameters: dev $N dir out'"
ew_check "module: rxe0's path is ipsec, spi 0x2001" \
	path_get rxe0 "$P" 10.79.0.2 '((.protection | index("ipsec")) != null) and .["ipsec-spi"] == 8193'
ew_expect_rc 0 "encrypt ipsec: connects over the offloaded ESP state" \
	ew_in_cg /ewI "$VERBS" rc-connect rxe0 "$P" 10.79.0.2 self
ip xfrm state flush
ew_expect_rc 13 "the offloaded state removed (policy kept): refused" \
	ew_in_cg /ewI "$VERBS" rc-connect rxe0 "$P" 10.79.0.2 self
ip xfrm policy flush

# --- the device deleted ------------------------------------------------------------
ew_in_cg /ewM stdbuf -oL "$VERBS" rc-hold rxem "${S:-0}" 10.80.0.2 self 60 >"$T/hold" 2>&1 &
ew_check "a live encrypt-macsec QP on rxem" ew_wait_for 20 grep -q connected "$T/hold"
echo "$NSIM_ID" >/sys/bus/netdevsim/del_device
ew_check "netdevsim device deleted: $N, $MS, rxe0 and rxem gone" ew_wait_for 20 sh -c "
	! test -e /sys/class/net/$N && ! test -e /sys/class/net/$MS &&
	! test -e /sys/class/infiniband/rxem && ! test -e /sys/class/infiniband/rxe0"
ew_check_not "nothing connects over the deleted path" \
	ew_in_cg /ewM "$VERBS" rc-connect rxem "${S:-0}" 10.80.0.2 self
ew_check "eastwestctl: $N no longer exists" sh -c "! '$CTL' path caps dev $N"

ew_check "module unloads" ew_unload
ew_done
