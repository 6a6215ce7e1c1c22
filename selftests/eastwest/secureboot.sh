#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ew-nodes: 1
# ew-tpm: 1
# ew-uefi: secureboot
# ew-kernels: 6.1
# ew-timeout: 240
#
# Measured boot through real firmware (selftests/vm/run, "ew-uefi"): OVMF
# with Secure Boot and the Microsoft-enrolled variables, Debian's signed
# shim, grub and kernel from an ESP image, swtpm as the TPM. The test runs
# twice, in two boots of the same image and TPM ($EW_SHARED/uefi-mode):
#
# secureboot: the kernel is locked down; enroll; a quote of PCRs 0-7 with
#   the firmware's event log; a manifest from this node whose expected db
#   is the Microsoft UEFI CA 2011 certificate taken from the OVMF variable
#   store (not from the node); the verifier replays the log, sees
#   SecureBoot = 1 and that certificate in the measured db, and admits a
#   fresh quote. Attacks: a manifest expecting a certificate the db lacks
#   is refused (secure-boot-db). Enrollment, manifest and verifier state
#   are left in $EW_SHARED/node0/uefi-carry for the second boot.
# off: the same image on firmware without Secure Boot (empty variables):
#   the verifier refuses the node with secure-boot-off; the log edited to
#   say SecureBoot = 1 is refused (its data no longer hashes to the
#   measured digest), and with the digest recomputed too (the replay no
#   longer matches the quoted PCR 7).

. "$(dirname "$0")/../lib.sh"

VERIFIER=$EW_TOP/userspace/attest/eastwest-verifier
VARS_MS=/usr/share/OVMF/OVMF_VARS_4M.ms.fd
LOG=/sys/kernel/security/tpm0/binary_bios_measurements
NODE=sbnode

ew_require_root
ew_require_cmd python3 openssl
ew_require_built ctl verifier
MODE=$(cat "$EW_SHARED/uefi-mode" 2>/dev/null) ||
	ew_skip "no \$EW_SHARED/uefi-mode: run through selftests/vm/run (ew-uefi)"

W=$(mktemp -d)
ew_defer "rm -rf $W"
unset EW_TCTI

# verify EVIDENCE NONCE OUT [MANIFEST]: the verifier's JSON verdict in OUT
# (its replay and rollback memory: STATE, default the carried one).
verify() {
	"$VERIFIER" -j verify evidence "$1" nonce "$2" enrollment "$C/node.json" \
		manifest "${4:-$C/manifest.signed}" pubkey "$C/op.pub" state "${STATE:-$C/state}" \
		>"$3" 2>"$3.err"
}

# verdict_has FILE CHECK: the verdict denies with reason CHECK.
verdict_has() {
	python3 -c '
import json, sys
v = json.load(open(sys.argv[1]))
sys.exit(0 if v["decision"] == "deny" and
         any(r["check"] == sys.argv[2] for r in v["reasons"]) else 1)' "$1" "$2"
}

# show FILE: the verdict's decision and reasons as diagnostics.
show() {
	python3 -c '
import json, sys
v = json.load(open(sys.argv[1]))
print("# %s: secure_boot %s, db_certs %s, uefi_events %s" % (v["decision"],
      v["secure_boot"], v.get("db_certs"), v["uefi_events"]))
for r in v["reasons"]:
    print("#   %s: %s" % (r["check"], r["detail"]))' "$1" || sed 's/^/# /' "$1" "$1.err"
}

# quote OUT: a fresh nonce in OUT.nonce, the evidence (PCRs 0-7 quoted,
# with the UEFI event log and the IMA log) in OUT.
quote() {
	"$VERIFIER" nonce >"$1.nonce" &&
		"$CTL" attest quote nonce "$(cat "$1.nonce")" out "$1" >/dev/null
}

# ms_uefi_ca VARSFILE: SHA-256 (hex) of the DER of the Microsoft UEFI CA
# 2011 certificate in the db of an OVMF variable store: the X.509
# EFI_SIGNATURE_LISTs found in the file, each certificate checked by name.
ms_uefi_ca() {
	python3 - "$1" "$W/vars-cert" <<'EOF'
import struct, sys
data = open(sys.argv[1], "rb").read()
x509 = bytes.fromhex("a159c0a5e494a74a87b5ab155c2bf072")
n, at = 0, data.find(x509)
while at >= 0:
    lsize, hsize, ssize = struct.unpack_from("<III", data, at + 16)
    off = at + 28 + hsize
    if at + lsize > len(data):
        lsize = 0
    while lsize >= 28 and off + ssize <= at + lsize and ssize > 16:
        open("%s.%d.der" % (sys.argv[2], n), "wb").write(data[off + 16:off + ssize])
        n += 1
        off += ssize
    at = data.find(x509, at + 16)
print("# %d X.509 certificates in %s" % (n, sys.argv[1]), file=sys.stderr)
EOF
	for f in "$W"/vars-cert.*.der; do
		if openssl x509 -inform DER -in "$f" -noout -subject 2>/dev/null |
			grep -q 'CN *= *Microsoft Corporation UEFI CA 2011'; then
			sha256sum "$f" | cut -d' ' -f1
			return 0
		fi
	done
	return 1
}

# edit_log IN OUT FIXDIGEST: the evidence with its UEFI log's SecureBoot
# value set to 1; FIXDIGEST=1 also recomputes that event's SHA-256 digest.
edit_log() {
	python3 - "$1" "$2" "$3" <<'EOF'
import base64, hashlib, json, struct, sys
ev = json.load(open(sys.argv[1]))
log = bytearray(base64.b64decode(ev["uefi_event_log"]))
sizes = {0x04: 20, 0x0b: 32, 0x0c: 48, 0x0d: 64, 0x12: 32}
# The Spec ID event (SHA-1 layout), then TCG_PCR_EVENT2 records.
(size,) = struct.unpack_from("<I", log, 28)
off, done = 32 + size, False
name = "SecureBoot".encode("utf-16-le")
while off < len(log) and not done:
    pcr, typ, count = struct.unpack_from("<III", log, off)
    p, digests = off + 12, {}
    for _ in range(count):
        (alg,) = struct.unpack_from("<H", log, p)
        digests[alg] = p + 2
        p += 2 + sizes[alg]
    (dlen,) = struct.unpack_from("<I", log, p)
    data = p + 4
    if pcr == 7 and typ == 0x80000001 and log[data + 32:data + 52] == name:
        log[data + 52] = 1
        if sys.argv[3] == "1":
            d = hashlib.sha256(log[data:data + dlen]).digest()
            log[digests[0x0b]:digests[0x0b] + 32] = d
        done = True
    off = data + dlen
assert done, "no SecureBoot event"
ev["uefi_event_log"] = base64.b64encode(bytes(log)).decode()
json.dump(ev, open(sys.argv[2], "w"))
EOF
}

C0=$EW_SHARED/uefi-carry
if [ "$MODE" = off ] && [ ! -s "$C0/manifest.signed" ]; then
	ew_skip "the Secure Boot boot (reported before this one) left no enrollment or manifest"
fi

case $MODE in
secureboot) ew_plan 14 ;;
off) ew_plan 8 ;;
*) ew_skip "unknown uefi-mode '$MODE'" ;;
esac

ew_check "a TPM: /dev/tpmrm0" test -c /dev/tpmrm0
# securityfs reports size 0: read it.
ew_check "the firmware's event log: $LOG" sh -c "test \$(head -c 64 $LOG | wc -c) -eq 64"
dmesg | grep -E 'secureboot:|Secure boot|locked down' | sed 's/^/# /'

if [ "$MODE" = secureboot ]; then
	C=$EW_SHARED/node0/uefi-carry
	mkdir -p "$C"
	export EW_VERIFIER_STATE="$C/state"
	ew_check "the kernel is locked down (integrity): Secure Boot is on" \
		grep -q '\[integrity\]' /sys/kernel/security/lockdown
	# Lockdown enforces module signatures: the bed's unsigned build of
	# eastwest.ko is refused (operators sign it, e.g. DKMS with a MOK).
	# (Its dependency first, Debian's signed rdma_cm: the refusal below is
	# the signature's, not a missing symbol's.)
	modprobe rdma_cm
	insmod "$EW_KO" >"$W/insmod.out" 2>&1
	rc=$?
	sed 's/^/# /' "$W/insmod.out"
	ew_check "lockdown refuses the unsigned eastwest.ko" test "$rc" -ne 0

	"$VERIFIER" manifest keygen key "$W/op.key" pub "$C/op.pub" >/dev/null
	ew_check "enroll (EK certificate checked against swtpm's CA)" sh -c "
		'$CTL' attest enroll out '$W/enroll.json' >/dev/null &&
		'$VERIFIER' enroll challenge enrollment '$W/enroll.json' out '$W/challenge.json' \
			node $NODE ek-ca '$EW_SHARED/tpm-ek-ca-node0.pem' >/dev/null &&
		'$CTL' attest activate challenge '$W/challenge.json' out '$W/response.json' \
			>/dev/null &&
		'$VERIFIER' enroll confirm response '$W/response.json' out '$C/node.json' >/dev/null"

	ew_check "reference quote with the UEFI event log" quote "$W/ref.ev"
	ew_check "the evidence carries the event log" python3 -c '
import json, sys
sys.exit(0 if json.load(open(sys.argv[1])).get("uefi_event_log") else 1)' "$W/ref.ev"

	CA=$(ms_uefi_ca "$VARS_MS")
	ew_check "the Microsoft UEFI CA 2011 certificate in $VARS_MS's db" test -n "$CA"
	echo "# expected db certificate (SHA-256 of its DER): $CA"
	"$VERIFIER" manifest from-node evidence "$W/ref.ev" serial 1 out "$W/captured.json" \
		>/dev/null
	# The expected db is the firmware vendor's, not what this node says.
	ew_check "manifest: the node's boot chain, the expected db from the variable store" \
		python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))
print("# captured from the node: secure_boot %s, %d boot digests, db %d certificates" %
      (m["require"]["secure_boot"], len(m["boot_digests"]), len(m.get("secure_boot_db", []))))
assert m["require"]["secure_boot"] is True
m["secure_boot_db"] = [sys.argv[3]]
json.dump(m, open(sys.argv[2], "w"), indent=1)' "$W/captured.json" "$W/manifest.json" "$CA"
	"$VERIFIER" manifest sign in "$W/manifest.json" key "$W/op.key" \
		out "$C/manifest.signed" >/dev/null

	ew_check "fresh quote" quote "$W/q1.ev"
	verify "$W/q1.ev" "$(cat "$W/q1.ev.nonce")" "$W/q1.verdict"
	show "$W/q1.verdict"
	ew_check "admitted: SecureBoot on, the expected db" python3 -c '
import json, sys
v = json.load(open(sys.argv[1]))
sys.exit(0 if v["decision"] == "admit" and v["secure_boot"] == "on" and v["db_certs"] >= 1
         else 1)' "$W/q1.verdict"

	# Attack: a db without the operator's expected certificate.
	openssl req -x509 -newkey rsa:2048 -nodes -keyout "$W/other.key" -subj "/CN=not in db" \
		-days 1 -outform DER -out "$W/other.der" 2>/dev/null
	python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))
m["serial"] = 2
m["secure_boot_db"] = [sys.argv[3]]
json.dump(m, open(sys.argv[2], "w"))' "$W/manifest.json" "$W/other.json" \
		"$(sha256sum "$W/other.der" | cut -d' ' -f1)"
	"$VERIFIER" manifest sign in "$W/other.json" key "$W/op.key" out "$W/other.signed" \
		>/dev/null
	ew_check "fresh quote" quote "$W/q2.ev"
	verify "$W/q2.ev" "$(cat "$W/q2.ev.nonce")" "$W/q2.verdict" "$W/other.signed"
	show "$W/q2.verdict"
	ew_check "a manifest expecting a certificate the db lacks: refused (secure-boot-db)" \
		verdict_has "$W/q2.verdict" secure-boot-db
	ew_check "carried to the Secure-Boot-off boot" test -s "$C/manifest.signed"
	# Kept in the run's artifacts, to judge again on the host.
	cp "$W/q1.ev" "$W/q1.ev.nonce" "$W/q2.ev" "$W/q2.ev.nonce" "$W/other.signed" "$C/"
	ew_done
fi

# --- the same image and TPM, Secure Boot off --------------------------------
C=$W/carry
cp -r "$C0" "$C"
export EW_VERIFIER_STATE="$C/state"

ew_check "the kernel is not locked down" grep -q '\[none\]' /sys/kernel/security/lockdown
ew_check "quote (the same TPM and AK)" quote "$W/off.ev"
N=$(cat "$W/off.ev.nonce")
cp -r "$C/state" "$C/state0"
verify "$W/off.ev" "$N" "$W/off.verdict"
show "$W/off.verdict"
ew_check "refused: secure-boot-off" verdict_has "$W/off.verdict" secure-boot-off

# The edited copies are the same quote: judge each with a fresh copy of
# the state from before the refusal above, or the quote's clock would be
# refused as a replay before the log is read.
edit_log "$W/off.ev" "$W/edit1.ev" 0
cp -r "$C/state0" "$W/state1"
STATE=$W/state1 verify "$W/edit1.ev" "$N" "$W/edit1.verdict"
show "$W/edit1.verdict"
ew_check "log edited to SecureBoot = 1: refused (uefi-log-invalid)" \
	verdict_has "$W/edit1.verdict" uefi-log-invalid

edit_log "$W/off.ev" "$W/edit2.ev" 1
cp -r "$C/state0" "$W/state2"
STATE=$W/state2 verify "$W/edit2.ev" "$N" "$W/edit2.verdict"
show "$W/edit2.verdict"
ew_check "... and its digest recomputed: refused (uefi-replay-mismatch)" \
	verdict_has "$W/edit2.verdict" uefi-replay-mismatch
ew_check_not "... and not admitted" python3 -c '
import json, sys
sys.exit(0 if json.load(open(sys.argv[1]))["decision"] == "admit" else 1)' "$W/edit2.verdict"
mkdir -p "$EW_SHARED/node0/uefi-off"
cp "$W/off.ev" "$W/off.ev.nonce" "$W/edit1.ev" "$W/edit2.ev" "$EW_SHARED/node0/uefi-off/"
ew_done
