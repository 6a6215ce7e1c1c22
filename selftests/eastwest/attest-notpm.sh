#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 1
# ew-timeout: 240
# ew-kernels: 6.1
#
# A node without a TPM stays closed, and says why (fail-closed admission):
# the quote is "no TPM on node: ...", the verifier denies with no-tpm, the
# re-attestation round revokes the node, and with admission required a
# job's connect is refused. Runs in the ordinary VM boot (no "ew-tpm").

. "$(dirname "$0")/../lib.sh"

DEV=rxe0
CG=/sys/fs/cgroup
VERIFIER=$EW_TOP/userspace/attest/eastwest-verifier
LOOP=127.0.0.1

ew_require_root
ew_require_cmd rdma python3
ew_require_built ctl verbs cgroup verifier ynl
[ ! -e /dev/tpmrm0 ] || ew_skip "this node has a TPM (see attest.sh)"

W=$(mktemp -d)
ew_defer "rm -rf $W"
ew_defer "rmdir $CG/ewA"
ew_defer "rdma link delete $DEV"
ew_defer "ew_rmmod"
unset EW_TCTI
export EW_VERIFIER_STATE=$W/verifier

# One request through the YNL library with only the spec (selftests/lib.sh).
ynl_do() { ew_ynl_do "$@"; }

config_is() {
	ynl_do config-get '{}' | python3 -c '
import json, sys
sys.exit(0 if str(json.load(sys.stdin).get(sys.argv[1])) == sys.argv[2] else 1)' "$1" "$2"
}

connect_rc() {
	ew_in_cg /ewA "$VERBS" rc-connect "$DEV" "$IDX" "$LOOP" self
}

ew_plan 12

"$VERIFIER" manifest keygen key "$W/op.key" pub "$W/op.pub" >/dev/null
printf '{"format":"eastwest-manifest","version":1,"serial":1,"require":{"ima":false,"uefi_event_log":false,"secure_boot":false},"kernels":["%s"],"modules":[]}\n' \
	"$(uname -r)" >"$W/manifest.json"
"$VERIFIER" manifest sign in "$W/manifest.json" key "$W/op.key" out "$W/manifest.signed"

ew_check "eastwest.ko loads" ew_load
ew_check "$DEV on lo" ew_rxe_add "$DEV" lo
IDX=$(ew_wait_gid_index "$DEV" "$LOOP")
mkdir -p "$CG/ewA"
ew_check "job A (peers 127.0.0.0/8)" "$CTL" job add ewA cgroup /ewA peer 127.0.0.0/8
ew_check "admission required" ynl_do config-set '{"admission-required": 1}'

N=$("$VERIFIER" nonce)
ew_expect_rc 1 "attest quote fails: no TPM" \
	"$CTL" attest quote nonce "$N" out "$W/ev.json"
ew_check "it says so: \"no TPM on node\"" grep -q 'no TPM on node: /dev/tpmrm0' "$EW_OUT"
ew_check_not "the verifier denies the no-TPM evidence" \
	sh -c "'$VERIFIER' verify evidence '$W/ev.json' nonce $N enrollment '$W/none.json' \
		manifest '$W/manifest.signed' pubkey '$W/op.pub' >'$W/verdict' 2>&1"
sed 's/^/# /' "$W/verdict"
ew_check "with the reason no-tpm: no TPM on node" \
	grep -q 'no-tpm: no TPM on node' "$W/verdict"

ew_check_not "attest watch: the round revokes" \
	sh -c "'$CTL' attest watch rounds 1 timeout 60 verifier '$VERIFIER' serve node vmnode \
		manifest '$W/manifest.signed' pubkey '$W/op.pub' >'$W/watch' 2>&1"
sed 's/^/# /' "$W/watch"
ew_check "revoked: no TPM on node" grep -q 'revoked: no TPM on node' "$W/watch"
ew_check "config-get: admission revoked" config_is admission revoked
ew_expect_rc 13 "the node stays closed: job A's connect is refused" connect_rc

ew_done
