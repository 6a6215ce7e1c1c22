#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 1
# ew-tpm: 1
# ew-timeout: 420
# ew-kernels: 6.12
#
# Node attestation end to end, on one node with a real (virtual) TPM 2.0
# (swtpm on QEMU's tpm-tis) and IMA measuring kernel modules (guest-init
# wrote the policy before loading any module; selftests/vm/run):
#   - enroll + credential activation against the verifier (in this guest);
#   - golden manifest captured from this node (manifest from-node), signed;
#   - eastwest and rdma_rxe loaded (measured by IMA), admission required:
#     the gate is closed until "attest watch" gets an admit from "serve";
#   - admitted: a job's RDMA connect is allowed; the path key is released
#     to this TPM and unwrapped to the same bytes;
#   - a module not in the manifest (dummy) is loaded: the next round is
#     denied with unknown-module, the node is revoked, the live QP is
#     revoked, new connects are refused and the key release is refused;
#   - the real IMA binary log, the firmware event log and PCR 10 (from the
#     verified evidence) are left in $EW_SHARED/node0/attest-fixtures for
#     userspace/attest/tests/fixtures/.

. "$(dirname "$0")/../lib.sh"

DEV=rxe0
CG=/sys/fs/cgroup
VERIFIER=$EW_TOP/userspace/attest/eastwest-verifier
LOOP=127.0.0.1
NODE=vmnode

ew_require_root
ew_require_cmd rdma python3 modprobe cmp
ew_require_built ctl verbs cgroup verifier ynl
if [ -e /sys/module/dummy ]; then
	ew_skip "dummy is already loaded (the test loads it as the unlisted module)"
fi

W=$(mktemp -d)
S=$W/verifier
ew_defer "rm -rf $W"
ew_defer "rmdir $CG/ewA"
ew_defer "rdma link delete $DEV"
ew_defer "ew_rmmod"
ew_defer "pkill -f 'ew_verbs rc-hold'"
ew_defer "rmmod dummy"
unset EW_TCTI
export EW_VERIFIER_STATE=$S

# One request through the YNL library with only the spec (selftests/lib.sh).
ynl_do() { ew_ynl_do "$@"; }

config_is() {
	ynl_do config-get '{}' | python3 -c '
import json, sys
v = json.load(sys.stdin).get(sys.argv[1])
sys.exit(0 if str(v) == sys.argv[2] else 1)' "$1" "$2"
}

connect_rc() {
	ew_in_cg /ewA "$VERBS" rc-connect "$DEV" "$IDX" "$LOOP" self
}

# One re-attestation round through the verifier's stdio service.
watch_round() {
	"$CTL" attest watch rounds 1 timeout 120 verifier \
		"$VERIFIER" serve node $NODE manifest "$W/manifest.signed" \
		pubkey "$W/op.pub" state "$S" timeout 120 >"$W/watch.out" 2>&1
}

release_key() {
	"$VERIFIER" release key "$W/path.key" enrollment "$W/node.json" out "$W/key.rel" \
		state "$S" >"$W/release.out" 2>&1
}

# save_fixtures EVIDENCE DIR: the logs and PCR values of verified evidence.
save_fixtures() {
	python3 - "$1" "$2" <<'EOF'
import base64, json, os, struct, sys
ev = json.load(open(sys.argv[1]))
out = sys.argv[2]
os.makedirs(out, exist_ok=True)
for key, name in (("ima_log", "ima.bin"), ("uefi_event_log", "uefi.bin")):
    if key in ev:
        open(os.path.join(out, name), "wb").write(base64.b64decode(ev[key]))
sel = base64.b64decode(ev["quote"]["pcr_selection"])
mask = sel[7] | sel[8] << 8 | sel[9] << 16
pcrs = [i for i in range(24) if mask & (1 << i)]
values = []
for chunk in ev["quote"]["pcr_values"]:
    b = base64.b64decode(chunk)
    (count,) = struct.unpack(">I", b[:4])
    off = 4
    for _ in range(count):
        (size,) = struct.unpack(">H", b[off:off + 2])
        values.append(b[off + 2:off + 2 + size].hex())
        off += 2 + size
report = json.loads(base64.b64decode(ev["report"]))
json.dump({"kernel_release": report.get("kernel_release"),
           "source": "selftests/eastwest/attest.sh, TPM quote of this evidence",
           "pcrs": dict(zip(map(str, pcrs), values))},
          open(os.path.join(out, "pcrs.json"), "w"), indent=1)
print("#", out, "PCR 10", dict(zip(pcrs, values)).get(10))
EOF
}

ew_plan 32

# --- the TPM and IMA -----------------------------------------------------------
ew_check "a TPM: /dev/tpmrm0" test -c /dev/tpmrm0
ew_check "IMA measured a module (policy from guest-init)" \
	grep -Eq ' (/[^ ]*\.ko(\.[a-z]+)?|init_module)( |$)' \
	/sys/kernel/security/ima/ascii_runtime_measurements

# --- enrollment -----------------------------------------------------------------
"$VERIFIER" manifest keygen key "$W/op.key" pub "$W/op.pub" >/dev/null
CA=$EW_SHARED/tpm-ek-ca-node0.pem
ew_check "attest enroll" "$CTL" attest enroll out "$W/enroll.json"
if [ -f "$CA" ]; then
	ew_check "enroll challenge (EK certificate checked against swtpm's CA)" \
		"$VERIFIER" enroll challenge enrollment "$W/enroll.json" out "$W/challenge.json" \
		node $NODE ek-ca "$CA"
else
	ew_check "enroll challenge" "$VERIFIER" enroll challenge \
		enrollment "$W/enroll.json" out "$W/challenge.json" node $NODE
fi
ew_check "attest activate (TPM2_ActivateCredential)" \
	"$CTL" attest activate challenge "$W/challenge.json" out "$W/response.json"
ew_check "enroll confirm: node record" \
	"$VERIFIER" enroll confirm response "$W/response.json" out "$W/node.json"

# --- the fabric, closed ------------------------------------------------------------
# The node report hashes each loaded module's file found through modules.dep;
# eastwest.ko is not installed in this read-only root, so list it the way an
# installed (DKMS) module would be, over a copy of modules.dep.
REL=$(uname -r)
cp "/lib/modules/$REL/modules.dep" "$W/modules.dep"
echo "$EW_KO:" >>"$W/modules.dep"
mount --bind "$W/modules.dep" "/lib/modules/$REL/modules.dep"
ew_defer "umount /lib/modules/$REL/modules.dep"
ew_check "eastwest.ko loads (measured by IMA)" ew_load
ew_check "IMA measured eastwest.ko" grep -q 'eastwest\.ko' \
	/sys/kernel/security/ima/ascii_runtime_measurements
ew_check "$DEV on lo" ew_rxe_add "$DEV" lo
IDX=$(ew_wait_gid_index "$DEV" "$LOOP")
mkdir -p "$CG/ewA"
ew_check "job A (peers 127.0.0.0/8)" "$CTL" job add ewA cgroup /ewA peer 127.0.0.0/8
ew_check "admission required (node unattested)" ynl_do config-set '{"admission-required": 1}'
ew_expect_rc 13 "gate closed: job A's connect is refused before attestation" connect_rc

# --- golden manifest from this node ----------------------------------------------------
N=$("$VERIFIER" nonce)
ew_check "reference quote" "$CTL" attest quote nonce "$N" out "$W/ref.evidence"
ew_check "manifest from-node, signed" sh -c "
	'$VERIFIER' manifest from-node evidence '$W/ref.evidence' serial 1 out '$W/manifest.json' &&
	'$VERIFIER' manifest sign in '$W/manifest.json' key '$W/op.key' out '$W/manifest.signed'"
"$VERIFIER" manifest show in "$W/manifest.signed" pubkey "$W/op.pub" | sed 's/^/# /'
if "$VERIFIER" -j verify evidence "$W/ref.evidence" nonce "$N" enrollment "$W/node.json" \
	manifest "$W/manifest.signed" pubkey "$W/op.pub" state "$W/scratch-state" \
	>"$W/ref.verdict" 2>&1; then
	ew_ok "the reference evidence verifies against its own manifest (logs replayed)"
	save_fixtures "$W/ref.evidence" "$EW_SHARED/node0/attest-fixtures/$(uname -r)"
else
	sed 's/^/# /' "$W/ref.verdict"
	ew_not_ok "the reference evidence verifies against its own manifest (logs replayed)"
fi

# --- admitted -----------------------------------------------------------------------------
ew_check "attest watch: admitted" watch_round
sed 's/^/# /' "$W/watch.out"
ew_check "config-get: admission admitted" config_is admission admitted
ew_expect_rc 0 "admitted: job A connects" connect_rc

head -c 32 /dev/urandom >"$W/path.key"
chmod 0600 "$W/path.key"
ew_check "key released to the admitted node" release_key
sed 's/^/# /' "$W/release.out"
ew_check "attest unwrap (TPM2_ActivateCredential) writes the key" \
	"$CTL" attest unwrap in "$W/key.rel" out "$W/got.key"
ew_check "the unwrapped key has the same bytes" cmp -s "$W/path.key" "$W/got.key"
ew_check "the unwrapped key file is mode 0600" test "$(stat -c %a "$W/got.key")" = 600

ew_in_cg /ewA stdbuf -oL "$VERBS" rc-hold "$DEV" "$IDX" "$LOOP" self 120 \
	>"$W/hold" 2>&1 &
ew_check "a live job-A QP in RTS" ew_wait_for 30 grep -q connected "$W/hold"

# --- an unlisted module -------------------------------------------------------------------
ew_check "modprobe dummy (not in the manifest)" modprobe dummy
ew_check "IMA measured it" sh -c "tail -n 1 /sys/kernel/security/ima/ascii_runtime_measurements |
	grep -Eq 'dummy\\.ko|init_module'"
ew_check_not "attest watch: the next round is not admitted" watch_round
sed 's/^/# /' "$W/watch.out"
ew_check "the round was denied for an unknown module" grep -q 'unknown-module' "$W/watch.out"
ew_check "config-get: admission revoked" config_is admission revoked
ew_check "the live QP is revoked" ew_wait_for 30 grep -q revoked "$W/hold"
ew_expect_rc 13 "revoked: job A's connect is refused" connect_rc
ew_check_not "key release after the deny is refused" release_key
sed 's/^/# /' "$W/release.out"
ew_check "refused because the last verdict is deny (unknown-module)" \
	grep -q 'denied: .*unknown-module' "$W/release.out"

ew_done
