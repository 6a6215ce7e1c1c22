#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 1
# ew-timeout: 420
# ew-kernels: 6.1
#
# The module's side of path protection, on one node. Two soft-RoCE devices:
# ewrxe0 on a plain veth (10.77.0.1), ewrxe1 on an encrypting MACsec link
# over it (10.78.0.1). The MACsec link and the XFRM state/policy are made
# with iproute2 here, as an observer independent of eastwestctl's own `path`
# command (tested in path.sh and two-node-crypto.sh). Checked:
#   - path-get reports what protects each path (macsec, ipsec + SPI,
#     physical) and the dev dump reports it per GID;
#   - a job with `encrypt macsec|ipsec|any` connects only over a path with
#     that protection, else EACCES with reason "unprotected path" (counted,
#     logged), for QP connects and address handles; `encrypt none` is free;
#   - a declared dedicated fabric satisfies `any` (and only while declared);
#   - a bridge sends through any of its ports: with an encrypting MACsec
#     port and a plain one it is no protection (against 010530e path-get
#     said macsec and a job requiring MACsec connected over it); with the
#     MACsec port alone it is;
#   - live QPs are revoked when their path loses its protection: XFRM policy
#     deleted, MACsec switched to integrity only;
#   - bad fabric-set / path-get requests are refused with a message.

. "$(dirname "$0")/../lib.sh"

CG=/sys/fs/cgroup
PLAIN=10.77.0.1
PLAIN_PEER=10.77.0.2
SEC=10.78.0.1
SEC_PEER=10.78.0.2
# Test keys only (AES-256 SAK; rfc4106 = 32-byte key + 4-byte salt).
SAK=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
ESPKEY=0x000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1fa0a1a2a3

ew_require_root
ew_require_cmd rdma ip python3
ew_require_built ctl verbs cgroup ynl

ew_defer "rmdir $CG/ewM $CG/ewI $CG/ewN $CG/ewZ"
ew_defer "ip netns del ewp"
ew_defer "ip link del ewv0"
ew_defer "ip xfrm state flush"
ew_defer "ip xfrm policy flush"
ew_defer "rdma link delete ewrxe0"
ew_defer "rdma link delete ewrxe1"
ew_defer "rdma link delete ewrxe2"
ew_defer "ip link del ewbr0"
ew_defer "ip link del ewv2"
ew_defer "ip link del ewd9"
ew_defer "ew_rmmod"
ew_defer "pkill -f 'ew_verbs rc-hold'"

ew_tmp_dir

# gid_hex IPV4: the IPv4-mapped GID as 32 hex digits.
gid_hex() {
	printf '00000000000000000000ffff%02x%02x%02x%02x' $(echo "$1" | tr . ' ')
}

# protection DEV GID_INDEX DEST: the path's protection, e.g. "macsec" or
# "ipsec", comma separated, empty if none.
protection() {
	ew_ynl_do path-get "{\"dev-name\": \"$1\", \"port\": 1, \"sgid-index\": $2, \"dgid\": \"$(gid_hex "$3")\"}" |
		python3 -c '
import json, sys
print(",".join(json.load(sys.stdin).get("protection", [])))'
}

# dev_gid_field DEV IP FIELD: a field of the GID nest for IP in the dev dump.
dev_gid_field() {
	python3 - "$EW_YNL_DIR" "$EW_YNL_SPEC" "$EW_YNL_SCHEMA" "$1" "$(gid_hex "$2")" "$3" <<'EOF'
import sys
sys.path.insert(0, sys.argv[1])
from lib import YnlFamily
ynl = YnlFamily(sys.argv[2], sys.argv[3])
for dev in ynl.dump("dev-get", {}):
    if dev["name"] != sys.argv[4]:
        continue
    for port in dev.get("port", []):
        for gid in port.get("gid", []):
            if gid["gid"].hex() == sys.argv[5]:
                v = gid.get(sys.argv[6], "")
                print(",".join(sorted(v)) if isinstance(v, set) else v)
                sys.exit(0)
sys.exit(1)
EOF
}

# path_field_is DEV IDX DEST FIELD VALUE: a path-get reply field equals VALUE.
path_field_is() {
	ew_ynl_do path-get "{\"dev-name\": \"$1\", \"port\": 1, \"sgid-index\": $2, \"dgid\": \"$(gid_hex "$3")\"}" |
		python3 -c '
import json, sys
v = json.load(sys.stdin).get(sys.argv[1])
sys.exit(0 if str(v) == sys.argv[2] else 1)' "$4" "$5"
}

config_lists_physical() {
	ew_ynl_do config-get '{}' | python3 -c '
import json, sys
sys.exit(0 if int(sys.argv[1]) in json.load(sys.stdin).get("physical-ifindex", []) else 1)' "$1"
}

xfrm_protect() {
	ip xfrm state add src "$PLAIN" dst "$PLAIN_PEER" proto esp spi 0x1001 \
		reqid 7 mode transport aead 'rfc4106(gcm(aes))' "$ESPKEY" 128 &&
	ip xfrm policy add src "$PLAIN/32" dst "$PLAIN_PEER/32" proto udp dir out \
		tmpl src "$PLAIN" dst "$PLAIN_PEER" proto esp reqid 7 mode transport
}

# The same with GMAC (RFC 4543): ESP that authenticates, and encrypts
# nothing.
xfrm_gmac() {
	ip xfrm state add src "$PLAIN" dst "$PLAIN_PEER" proto esp spi 0x1002 \
		reqid 8 mode transport aead 'rfc4543(gcm(aes))' "$ESPKEY" 128 &&
	ip xfrm policy add src "$PLAIN/32" dst "$PLAIN_PEER/32" proto udp dir out \
		tmpl src "$PLAIN" dst "$PLAIN_PEER" proto esp reqid 8 mode transport
}

xfrm_unprotect() {
	ip xfrm policy flush && ip xfrm state flush
}

# hold JOB DEV IDX DEST OUT: a live RC QP of JOB in RTS, in the background.
hold() {
	ew_in_cg "/$1" stdbuf -oL "$VERBS" rc-hold "$2" "$3" "$4" self 60 >"$5" 2>&1 &
	ew_wait_for 20 grep -q connected "$5"
}

ew_plan 55

ew_check "eastwest.ko loads" ew_load
ip netns add ewp
ip link add ewv0 type veth peer name ewv1
ip link set ewv1 netns ewp
ip -n ewp addr add "$PLAIN_PEER/24" dev ewv1
ip -n ewp link set ewv1 up
ip addr add "$PLAIN/24" dev ewv0
ip link set ewv0 up
ew_check "MACsec link (GCM-AES-256, encrypt on) over the veth" \
	sh -c "ip link add link ewv0 ewsec0 type macsec cipher gcm-aes-256 encrypt on &&
	       ip macsec add ewsec0 tx sa 0 pn 1 on key 01 $SAK &&
	       ip addr add $SEC/24 dev ewsec0 && ip link set ewsec0 up"
# Nobody answers ARP behind the MACsec link: a static neighbour lets the
# RDMA core resolve the destination MAC (connect and address handles).
ip neigh add "$SEC_PEER" lladdr 02:00:00:00:00:02 dev ewsec0 nud permanent
ew_check "ewrxe0 on the plain veth" ew_rxe_add ewrxe0 ewv0
ew_check "ewrxe1 on the MACsec link" ew_rxe_add ewrxe1 ewsec0
P=$(ew_wait_gid_index ewrxe0 "$PLAIN")
S=$(ew_wait_gid_index ewrxe1 "$SEC")
ew_check "GIDs found (plain ${P:-none}, macsec ${S:-none})" test -n "$P" -a -n "$S"
SECIF=$(cat /sys/class/net/ewsec0/ifindex)
VETHIF=$(cat /sys/class/net/ewv0/ifindex)

for j in M I N Z; do mkdir -p "$CG/ew$j"; done
PEERS="peer 10.77.0.0/24 peer 10.78.0.0/24"
ew_check "jobs requiring macsec, ipsec, any and none" sh -c "
	'$CTL' job add ewM cgroup /ewM $PEERS encrypt macsec &&
	'$CTL' job add ewI cgroup /ewI $PEERS encrypt ipsec &&
	'$CTL' job add ewN cgroup /ewN $PEERS encrypt any &&
	'$CTL' job add ewZ cgroup /ewZ $PEERS encrypt none"

# --- what the module sees ------------------------------------------------------
ew_check "path-get: the MACsec path is macsec" \
	test "$(protection ewrxe1 "$S" "$SEC_PEER")" = macsec
ew_check "path-get: the plain path has no protection" \
	test -z "$(protection ewrxe0 "$P" "$PLAIN_PEER")"
ew_check "dev dump: the MACsec GID carries protection macsec" \
	test "$(dev_gid_field ewrxe1 "$SEC" protection)" = macsec
ew_check "dev dump: names the MACsec netdev and its offload (off)" \
	test "$(dev_gid_field ewrxe1 "$SEC" macsec-ifindex)" = "$SECIF" -a \
	     "$(dev_gid_field ewrxe1 "$SEC" macsec-offload)" = off
ew_check "dev dump: the plain GID reports its MTU" \
	test "$(dev_gid_field ewrxe0 "$PLAIN" mtu)" = 1500

# --- encrypt macsec -----------------------------------------------------------
ew_expect_rc 0 "encrypt macsec: connects over the MACsec path" \
	ew_in_cg /ewM "$VERBS" rc-connect ewrxe1 "$S" "$SEC_PEER" self
before=$(ew_counter ewM denied-unprotected-path)
ew_dmesg_mark
ew_expect_rc 13 "encrypt macsec: refused over the plain path" \
	ew_in_cg /ewM "$VERBS" rc-connect ewrxe0 "$P" "$PLAIN_PEER" self
ew_check "counted as denied-unprotected-path" \
	test "$(ew_counter ewM denied-unprotected-path)" -eq $((before + 1))
ew_check "logged with the reason" ew_dmesg_wait "unprotected path: job [0-9]+"
ew_expect_rc 13 "encrypt macsec: no address handle over the plain path" \
	ew_in_cg /ewM "$VERBS" create-ah ewrxe0 "$P" "$PLAIN_PEER"
ew_expect_rc 0 "encrypt macsec: address handle over the MACsec path" \
	ew_in_cg /ewM "$VERBS" create-ah ewrxe1 "$S" "$SEC_PEER"
ew_expect_rc 0 "encrypt none: the plain path is fine" \
	ew_in_cg /ewZ "$VERBS" rc-connect ewrxe0 "$P" "$PLAIN_PEER" self

# --- encrypt ipsec ------------------------------------------------------------
ew_expect_rc 13 "encrypt ipsec: refused without an ESP policy" \
	ew_in_cg /ewI "$VERBS" rc-connect ewrxe0 "$P" "$PLAIN_PEER" self
ew_expect_rc 13 "encrypt ipsec: MACsec is not IPsec" \
	ew_in_cg /ewI "$VERBS" rc-connect ewrxe1 "$S" "$SEC_PEER" self
ew_check "an integrity-only ESP state (GMAC) and its policy added" xfrm_gmac
ew_check "path-get: GMAC encrypts nothing: no protection" \
	test -z "$(protection ewrxe0 "$P" "$PLAIN_PEER")"
ew_expect_rc 13 "encrypt ipsec: refused over the path under GMAC" \
	ew_in_cg /ewI "$VERBS" rc-connect ewrxe0 "$P" "$PLAIN_PEER" self
ew_check "the GMAC state and policy deleted" xfrm_unprotect
ew_check "ESP transport state and port-less UDP policy added" xfrm_protect
ew_check "path-get: the plain path is now ipsec" \
	test "$(protection ewrxe0 "$P" "$PLAIN_PEER")" = ipsec
ew_check "path-get: reports the SPI of the ESP state (0x1001)" \
	path_field_is ewrxe0 "$P" "$PLAIN_PEER" ipsec-spi 4097
ew_expect_rc 0 "encrypt ipsec: connects over the ESP-covered path" \
	ew_in_cg /ewI "$VERBS" rc-connect ewrxe0 "$P" "$PLAIN_PEER" self
ew_expect_rc 0 "encrypt any: so does a job requiring any protection" \
	ew_in_cg /ewN "$VERBS" rc-connect ewrxe0 "$P" "$PLAIN_PEER" self

# --- revocation when protection goes away -------------------------------------
hold ewI ewrxe0 "$P" "$PLAIN_PEER" "$EW_TMP/holdI"
ew_check "a live ipsec-job QP in RTS" grep -q connected "$EW_TMP/holdI"
ew_dmesg_mark
ew_check "the XFRM policy and state are deleted" xfrm_unprotect
ew_check "the live QP is revoked (QP_FATAL)" \
	ew_wait_for 15 grep -q revoked "$EW_TMP/holdI"
ew_check "the revocation is logged as unprotected path" \
	ew_dmesg_wait "job [0-9]+: revoked qpn 0x[0-9a-f]+ on ewrxe0: unprotected path"
ew_expect_rc 13 "encrypt any: refused once the ESP policy is gone" \
	ew_in_cg /ewN "$VERBS" rc-connect ewrxe0 "$P" "$PLAIN_PEER" self

hold ewM ewrxe1 "$S" "$SEC_PEER" "$EW_TMP/holdM"
ew_check "a live macsec-job QP in RTS" grep -q connected "$EW_TMP/holdM"
ip link set ewsec0 type macsec encrypt off
ew_check "MACsec switched to integrity only: the live QP is revoked" \
	ew_wait_for 15 grep -q revoked "$EW_TMP/holdM"
ew_check "path-get: an integrity-only MACsec link is no protection" \
	test -z "$(protection ewrxe1 "$S" "$SEC_PEER")"
ip link set ewsec0 type macsec encrypt on

# --- declared physical fabric ---------------------------------------------------
ew_check "fabric-set declares the veth a dedicated fabric" \
	ew_ynl_do fabric-set "{\"ifindex\": $VETHIF, \"physical\": 1}"
ew_check "path-get: the plain path is now physical" \
	test "$(protection ewrxe0 "$P" "$PLAIN_PEER")" = physical
ew_expect_rc 0 "encrypt any: a declared fabric is enough" \
	ew_in_cg /ewN "$VERBS" rc-connect ewrxe0 "$P" "$PLAIN_PEER" self
ew_expect_rc 13 "encrypt ipsec: a declared fabric is not IPsec" \
	ew_in_cg /ewI "$VERBS" rc-connect ewrxe0 "$P" "$PLAIN_PEER" self
ew_check "config-get lists the declared netdev" config_lists_physical "$VETHIF"
ew_ynl_do fabric-set "{\"ifindex\": $VETHIF, \"physical\": 0}" >/dev/null
ew_expect_rc 13 "withdrawn: encrypt any is refused again" \
	ew_in_cg /ewN "$VERBS" rc-connect ewrxe0 "$P" "$PLAIN_PEER" self

# --- a bridge with an encrypting MACsec port and a plain one ---------------------
BR=10.80.0.1
BR_PEER=10.80.0.2
# The bridge's own MAC: one taken from its ports would change as a port
# leaves, and flush its neighbour entries.
ew_check "bridge ewbr0: ports ewsec2 (MACsec, encrypting, on a veth) and ewd9 (plain)" sh -c "
	ip link add ewv2 type veth peer name ewv3 &&
	ip link add link ewv2 ewsec2 type macsec cipher gcm-aes-256 encrypt on &&
	ip macsec add ewsec2 tx sa 0 pn 1 on key 02 $SAK &&
	ip link add ewd9 type dummy &&
	ip link add ewbr0 address 02:80:00:00:00:01 type bridge &&
	ip link set ewsec2 master ewbr0 && ip link set ewd9 master ewbr0 &&
	for d in ewv2 ewv3 ewsec2 ewd9 ewbr0; do ip link set \$d up || exit 1; done &&
	ip addr add $BR/24 dev ewbr0 &&
	ip neigh add $BR_PEER lladdr 02:00:00:00:00:03 dev ewbr0 nud permanent"
ew_check "ewrxe2 on the bridge" ew_rxe_add ewrxe2 ewbr0
B=$(ew_wait_gid_index ewrxe2 "$BR")
ew_check "its GID found (${B:-none}); job ewM may reach $BR_PEER" sh -c \
	"test -n '$B' && '$CTL' peer add ewM 10.80.0.0/24"
ew_check "path-get: a bridge with a plain port is no protection" \
	test -z "$(protection ewrxe2 "${B:-0}" "$BR_PEER")"
ew_expect_rc 13 "encrypt macsec: refused over the bridge with a plain port" \
	ew_in_cg /ewM "$VERBS" rc-connect ewrxe2 "${B:-0}" "$BR_PEER" self
ew_check "the plain port leaves the bridge" ip link set ewd9 nomaster
ew_check "path-get: the bridge of the MACsec port alone is macsec" \
	test "$(protection ewrxe2 "${B:-0}" "$BR_PEER")" = macsec
ew_expect_rc 0 "encrypt macsec: connects over it" \
	ew_in_cg /ewM "$VERBS" rc-connect ewrxe2 "${B:-0}" "$BR_PEER" self

# --- bad requests --------------------------------------------------------------
ew_check "fabric-set of a missing ifindex is refused, naming it" \
	ew_ynl_refused "no netdev with ifindex 999999" \
	fabric-set '{"ifindex": 999999, "physical": 1}'
ew_check "path-get without a destination GID is refused" \
	ew_ynl_refused "miss|dgid" \
	path-get "{\"dev-name\": \"ewrxe0\", \"sgid-index\": $P}"
ew_check "path-get of an unknown device is refused, naming it" \
	ew_ynl_refused "no such RDMA device" \
	path-get "{\"dev-name\": \"nosuchdev\", \"sgid-index\": 1, \"dgid\": \"$(gid_hex "$PLAIN_PEER")\"}"
ew_check "path-get of an empty GID slot is refused" \
	ew_ynl_refused "no GID at this index" \
	path-get "{\"dev-name\": \"ewrxe0\", \"sgid-index\": 200, \"dgid\": \"$(gid_hex "$PLAIN_PEER")\"}"

ew_done
