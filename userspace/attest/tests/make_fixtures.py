#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Test fixtures for the attestation parsers and verifier, computed here
independently of the C code:

  root/              a node's /proc, /sys and /lib/modules (three modules,
                     Secure Boot on in efivars)
  uefi.bin           TCG2 crypto-agile event log (SHA-1 + SHA-256): CRTM,
                     firmware blob, SecureBoot=1, PK/KEK/db/dbx, separators,
                     shim/grub/kernel in PCR 4, grub's command line (8) and
                     kernel (9), MokList (14)
  uefi-sboff.bin     the same with SecureBoot=0
  uefi-late-sb.bin   uefi-sboff.bin plus what root can add after boot: a
                     SecureBoot=1 variable event in PCR 7 (extended from
                     user space: locality 0 may extend PCRs 0-15)
  uefi-late-db.bin   uefi.bin plus a db variable event in PCR 7 holding a
                     certificate the firmware's db lacks
  uefi-twice.bin     SecureBoot measured twice before PCR 7's separator
  uefi-nosep.bin     PCR 7 without a separator
  ima.bin            IMA binary list (ima-ng, ima-sig) under the modules-only
                     policy: boot_aggregate over PCRs 0-9, the three modules
  ima-kinds.bin      one entry of each kind the verifier tells apart (not
                     replayed by any quote)
  ima-renamed.bin    ima.bin plus two module loads whose files have no module
                     name: /var/tmp/evil.bin, and a memfd
  ima-evil.bin       ima-renamed.bin plus an unknown module (a refused load is
                     logged too)
  ima-violation.bin  ima.bin plus a violation record
  expected.json      PCR values after replay, the extends to apply to a TPM
                     in order, and the module hashes

usage: make_fixtures.py OUTDIR
"""
import hashlib
import json
import os
import struct
import sys

RELEASE = "6.1.0-28-amd64"
EFI_GLOBAL = bytes.fromhex("61dfe48bca93d211aa0d00e098032b8c")  # 8be4df61-93ca-11d2-...
EFI_IMAGE_SECURITY = bytes.fromhex("cbb219d73a3d9645a3bcdad00e67656f")  # d719b2cb-... db, dbx
EFI_CERT_X509 = bytes.fromhex("a159c0a5e494a74a87b5ab155c2bf072")
EFI_CERT_SHA256 = bytes.fromhex("2616c4c14c509240aca941f936934328")
SHIM_LOCK = bytes.fromhex("50ab5d6046e00043abb63dd810dd8b23")  # 605dab50-e046-4300-...
EV_SEPARATOR = 0x4
EV_EFI_VARIABLE_DRIVER_CONFIG = 0x80000001
EV_EFI_VARIABLE_AUTHORITY = 0x800000E0
# Stand-ins for the DER of two db certificates (the parser hashes the bytes).
DB_CERTS = [b"fixture certificate A" * 20, b"fixture certificate B" * 30]
# One more, in no firmware's db: what an attacker's db event would add.
EXTRA_CERT = b"certificate the firmware does not trust" * 10


def signature_list(sig_type, entries):
    """EFI_SIGNATURE_LIST with one entry size: owner GUID + data."""
    size = 16 + len(entries[0])
    body = b"".join(bytes(range(16)) + e for e in entries)
    return sig_type + struct.pack("<III", 28 + len(body), 0, size) + body


def db_data(certs=DB_CERTS):
    # One list per certificate (sizes differ), and a list of SHA-256 hashes.
    return b"".join(signature_list(EFI_CERT_X509, [c]) for c in certs) + \
        signature_list(EFI_CERT_SHA256, [sha256(b"an allowed image")])
MODULES = [
    ("ib_core", "kernel/drivers/infiniband/core/ib_core.ko"),
    ("mlx5_core", "kernel/drivers/net/ethernet/mellanox/mlx5/core/mlx5_core.ko"),
    ("nvidia", "updates/dkms/nvidia.ko"),
]


def sha1(b):
    return hashlib.sha1(b).digest()


def sha256(b):
    return hashlib.sha256(b).digest()


class Bank:
    def __init__(self):
        self.pcr = {i: bytes(32) for i in range(24)}
        self.extends = []

    def extend(self, i, digest):
        self.pcr[i] = sha256(self.pcr[i] + digest)
        self.extends.append((i, digest.hex()))


def spec_id_event():
    algs = [(0x0004, 20), (0x000B, 32)]
    body = b"Spec ID Event03\0" + struct.pack("<IBBBB", 0, 0, 2, 0, 2)
    body += struct.pack("<I", len(algs))
    for alg, size in algs:
        body += struct.pack("<HH", alg, size)
    body += b"\0"  # vendorInfoSize
    return struct.pack("<II", 0, 3) + bytes(20) + struct.pack("<I", len(body)) + body


def event2(pcr, etype, data, digest256=None, bank=None):
    d256 = digest256 if digest256 is not None else sha256(data)
    d1 = sha1(data)
    out = struct.pack("<III", pcr, etype, 2)
    out += struct.pack("<H", 0x0004) + d1 + struct.pack("<H", 0x000B) + d256
    out += struct.pack("<I", len(data)) + data
    if bank is not None:
        bank.extend(pcr, d256)
    return out


def uefi_var(name, data, guid=EFI_GLOBAL):
    uname = name.encode("utf-16-le")
    return guid + struct.pack("<QQ", len(name), len(data)) + uname + data


def uefi_log(bank, secure_boot, twice=False, pcr7_separator=True):
    log = spec_id_event()
    log += event2(0, 0x8, "fixture firmware 1.0".encode("utf-16-le"), bank=bank)
    log += event2(0, 0x80000008, struct.pack("<QQ", 0xFF000000, 0x100000),
                  digest256=sha256(b"firmware volume"), bank=bank)
    sb = uefi_var("SecureBoot", bytes([secure_boot]))
    log += event2(7, EV_EFI_VARIABLE_DRIVER_CONFIG, sb, bank=bank)
    for name in ("PK", "KEK"):
        log += event2(7, EV_EFI_VARIABLE_DRIVER_CONFIG,
                      uefi_var(name, sha256(name.encode()) * 3), bank=bank)
    log += event2(7, EV_EFI_VARIABLE_DRIVER_CONFIG, uefi_var("db", db_data(), EFI_IMAGE_SECURITY),
                  bank=bank)
    log += event2(7, EV_EFI_VARIABLE_DRIVER_CONFIG,
                  uefi_var("dbx", sha256(b"dbx") * 3, EFI_IMAGE_SECURITY), bank=bank)
    if twice:
        log += event2(7, EV_EFI_VARIABLE_DRIVER_CONFIG, sb, bank=bank)
    log += event2(4, 0x80000007, b"Calling EFI Application from Boot Option", bank=bank)
    for i in range(0, 8):
        if i != 7 or pcr7_separator:
            log += event2(i, EV_SEPARATOR, b"\0\0\0\0", bank=bank)
    apps = []
    # What the firmware and shim put into PCR 7 after its separator (TCG PC
    # Client PFP; shim's tpm_measure_variable): the db entry that verified
    # shim, shim's SbatLevel, and shim's own certificate that verified grub
    # and the kernel -- all EV_EFI_VARIABLE_AUTHORITY.
    authority = {
        b"shimx64.efi": uefi_var("db", bytes(range(16)) + DB_CERTS[0], EFI_IMAGE_SECURITY),
        b"grubx64.efi": uefi_var("SbatLevel", b"sbat,1,2021030218\n", SHIM_LOCK),
    }
    for app in (b"shimx64.efi", b"grubx64.efi", b"vmlinuz-" + RELEASE.encode()):
        if app in authority:
            log += event2(7, EV_EFI_VARIABLE_AUTHORITY, authority[app], bank=bank)
        if app == b"grubx64.efi":
            log += event2(7, EV_EFI_VARIABLE_AUTHORITY,
                          uefi_var("Shim", b"shim's vendor certificate", SHIM_LOCK), bank=bank)
        authenticode = sha256(b"authenticode of " + app)
        apps.append(authenticode.hex())
        # UEFI_IMAGE_LOAD_EVENT: location, length, link-time address, device path length
        load = struct.pack("<QQQQ", 0x1000, 0x2000, 0, 0)
        log += event2(4, 0x80000003, load, digest256=authenticode, bank=bank)
    log += event2(8, 0xD, b"kernel_cmdline: /vmlinuz-%s root=/dev/sda1 ro\0" % RELEASE.encode(),
                  bank=bank)
    log += event2(9, 0xD, b"/vmlinuz-" + RELEASE.encode() + b"\0",
                  digest256=sha256(b"kernel image bytes"), bank=bank)
    log += event2(14, 0xD, b"MokList\0", bank=bank)
    return log, apps


def ima_field(b):
    return struct.pack("<I", len(b)) + b


def ima_entry(path, file_digest, template="ima-ng", violation=False, bank=None):
    data = ima_field(b"sha256:\0" + file_digest) + ima_field(path.encode() + b"\0")
    if template in ("ima-sig", "ima-buf"):
        data += ima_field(b"")
    if template == "ima-modsig":
        data += ima_field(b"") * 3
    name = template.encode()
    if violation:
        d1 = bytes(20)
        extend = b"\xff" * 32
    else:
        d1 = sha1(data)
        extend = sha256(data)
    if bank is not None:
        bank.extend(10, extend)
    return struct.pack("<I", 10) + d1 + struct.pack("<I", len(name)) + name + \
        struct.pack("<I", len(data)) + data


def write(path, data, mode="wb"):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, mode) as f:
        f.write(data)


def main():
    out = sys.argv[1]
    root = os.path.join(out, "root")
    hostname = open("/proc/sys/kernel/hostname").read().strip()
    write(os.path.join(root, "proc/sys/kernel/hostname"), hostname + "\n", "w")
    write(os.path.join(root, "proc/sys/kernel/osrelease"), RELEASE + "\n", "w")
    write(os.path.join(root, "proc/sys/kernel/random/boot_id"),
          "0f2c1a6e-1111-4222-8333-944455556666\n", "w")
    write(os.path.join(root, "proc/modules"),
          "".join("%s 4096 0 - Live 0x0000000000000000\n" % m for m, _ in MODULES), "w")
    write(os.path.join(root, "lib/modules", RELEASE, "modules.dep"),
          "".join("%s:\n" % p for _, p in MODULES), "w")
    mods = {}
    for name, rel in MODULES:
        body = ("ELF module %s for %s\n" % (name, RELEASE)).encode() * 64
        write(os.path.join(root, "lib/modules", RELEASE, rel), body)
        mods[name] = ("/lib/modules/%s/%s" % (RELEASE, rel), sha256(body))
    write(os.path.join(root, "sys/firmware/efi/efivars",
                       "SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c"), b"\x06\0\0\0\x01")

    bank = Bank()
    log, apps = uefi_log(bank, 1)
    write(os.path.join(out, "uefi.bin"), log)
    sboff_bank = Bank()
    sboff = uefi_log(sboff_bank, 0)[0]
    write(os.path.join(out, "uefi-sboff.bin"), sboff)
    # Root on a node booted with Secure Boot off extends PCR 7 itself and
    # appends the matching event: the replay still matches the TPM.
    late_sb = Bank()
    write(os.path.join(out, "uefi-late-sb.bin"),
          sboff + event2(7, EV_EFI_VARIABLE_DRIVER_CONFIG, uefi_var("SecureBoot", b"\x01"),
                         bank=late_sb))
    late_db = Bank()
    write(os.path.join(out, "uefi-late-db.bin"),
          log + event2(7, EV_EFI_VARIABLE_DRIVER_CONFIG,
                       uefi_var("db", db_data(DB_CERTS + [EXTRA_CERT]), EFI_IMAGE_SECURITY),
                       bank=late_db))
    write(os.path.join(out, "uefi-twice.bin"), uefi_log(Bank(), 1, twice=True)[0])
    write(os.path.join(out, "uefi-nosep.bin"), uefi_log(Bank(), 1, pcr7_separator=False)[0])

    aggregate = sha256(b"".join(bank.pcr[i] for i in range(10)))
    ima = ima_entry("boot_aggregate", aggregate, bank=bank)
    # The documented policy measures module loads only: no executables, no
    # files read (ima-sig is what "ima_template=ima-sig" gives every entry).
    for i, (name, _) in enumerate(MODULES):
        ima += ima_entry(mods[name][0], mods[name][1],
                         template="ima-sig" if i == 0 else "ima-ng", bank=bank)
    expected_pcrs = {str(i): bank.pcr[i].hex() for i in list(range(11)) + [14]}
    base_extends = list(bank.extends)
    write(os.path.join(out, "ima.bin"), ima)

    # finit_module() on any file, or on a memfd: IMA records the file's path
    # (MODULE_CHECK), whatever its name.
    renamed_bank = Bank()
    renamed_bank.pcr = dict(bank.pcr)
    renamed = ima_entry("/var/tmp/evil.bin", sha256(b"a module in a file of another name"),
                        bank=renamed_bank)
    renamed += ima_entry("/memfd:evil (deleted)", sha256(b"a module from a memfd"),
                         template="ima-sig", bank=renamed_bank)
    write(os.path.join(out, "ima-renamed.bin"), ima + renamed)

    evil_digest = sha256(b"an unknown module")
    evil_bank = Bank()
    evil_bank.pcr = dict(renamed_bank.pcr)
    evil = ima_entry("/tmp/evil.ko", evil_digest, bank=evil_bank)
    write(os.path.join(out, "ima-evil.bin"), ima + renamed + evil)
    kinds = ima_entry("boot_aggregate", aggregate)
    kinds += ima_entry("/lib/modules/x.ko", sha256(b"x"))
    kinds += ima_entry("init_module", sha256(b"buffer"), template="ima-buf")
    kinds += ima_entry("kexec-cmdline", sha256(b"cmdline"), template="ima-buf")
    kinds += ima_entry("/var/log/changing", sha256(b"x"), violation=True)
    # A file whose path IMA could not resolve is logged under its bare name.
    kinds += ima_entry("boot_aggregate", sha256(b"a module file named so"))
    kinds += ima_entry("/memfd:m (deleted)", sha256(b"m"), template="ima-modsig")
    write(os.path.join(out, "ima-kinds.bin"), kinds)
    viol_bank = Bank()
    viol_bank.pcr = dict(bank.pcr)
    viol = ima_entry("/var/log/changing", sha256(b"x"), violation=True, bank=viol_bank)
    write(os.path.join(out, "ima-violation.bin"), ima + viol)

    expected = {
        "release": RELEASE,
        "hostname": hostname,
        "pcrs": expected_pcrs,
        "extends": base_extends,
        "renamed_extend": renamed_bank.extends,
        "evil_extend": evil_bank.extends,
        "evil_pcr10": evil_bank.pcr[10].hex(),
        "violation_pcr10": viol_bank.pcr[10].hex(),
        "boot_aggregate": aggregate.hex(),
        "boot_apps": apps,
        "db_certs": [sha256(c).hex() for c in DB_CERTS],
        "extra_db_cert": sha256(EXTRA_CERT).hex(),
        "sboff_extends": sboff_bank.extends,
        "late_sb_extend": late_sb.extends,
        "late_db_extend": late_db.extends,
        "modules": {n: {"path": p, "sha256": d.hex()} for n, (p, d) in mods.items()},
        "ima_entries": 1 + len(MODULES),
    }
    write(os.path.join(out, "expected.json"), json.dumps(expected, indent=1) + "\n", "w")


if __name__ == "__main__":
    main()
