#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Independent implementation of eastwest's path key derivation, version 1
(Documentation/admin-guide.md, "Path key derivation"), with Python's hmac
only. selftests/eastwest/path.sh configures the far end of a test link with
iproute2 and these values: if they work against eastwestctl's SAs, both
implementations agree bit for bit.

  ew_kdf.py macsec KEYFILE SCI_HEX EPOCH     -> "SAK_HEX KI_HEX SALT_HEX SSCI_HEX"
  ew_kdf.py esp KEYFILE SRC DST EPOCH        -> "KEYSALT_HEX SPI_HEX"
  ew_kdf.py psn-key KEYFILE JOB RUN          -> "KEY_HEX" (the PSN key of one run
                                                of a job: from its secret)
  ew_kdf.py job-esp KEYFILE JOB RUN SRC DST EPOCH
                                             -> "KEYSALT_HEX SPI_HEX" (an SA of one
                                                run of a job: from its secret)

and of the kernel's keyed PSNs (SipHash-2-4, kmod/policy.c ew_keyed_psn()):

  ew_kdf.py keyed-psn KEY_HEX FROM_ADDR FROM_QPN TO_ADDR TO_QPN -> "PSN"

and of a PSN key's check value (the spec's psn-key-check):

  ew_kdf.py psn-key-check KEY_HEX -> "0xCHECK"
"""
import hashlib
import hmac
import ipaddress
import string
import sys

SALT = b"eastwest-kdf-v1"


def hkdf(ikm, salt, info, length):
    prk = hmac.new(salt or b"\0" * 32, ikm, hashlib.sha256).digest()
    out, t, i = b"", b"", 1
    while len(out) < length:
        t = hmac.new(prk, t + info + bytes([i]), hashlib.sha256).digest()
        out += t
        i += 1
    return out[:length]


M64 = (1 << 64) - 1


def siphash24(key, msg):
    def rotl(x, b):
        return ((x << b) | (x >> (64 - b))) & M64

    k0, k1 = int.from_bytes(key[:8], "little"), int.from_bytes(key[8:], "little")
    v = [k0 ^ 0x736F6D6570736575, k1 ^ 0x646F72616E646F6D,
         k0 ^ 0x6C7967656E657261, k1 ^ 0x7465646279746573]

    def rounds(n):
        for _ in range(n):
            v[0] = (v[0] + v[1]) & M64; v[1] = rotl(v[1], 13) ^ v[0]; v[0] = rotl(v[0], 32)
            v[2] = (v[2] + v[3]) & M64; v[3] = rotl(v[3], 16) ^ v[2]
            v[0] = (v[0] + v[3]) & M64; v[3] = rotl(v[3], 21) ^ v[0]
            v[2] = (v[2] + v[1]) & M64; v[1] = rotl(v[1], 17) ^ v[2]; v[2] = rotl(v[2], 32)

    tail = len(msg) // 8 * 8
    words = [int.from_bytes(msg[i:i + 8], "little") for i in range(0, tail, 8)]
    words.append(int.from_bytes(msg[tail:] + b"\0" * (8 - len(msg) + tail), "little")
                 | (len(msg) & 0xFF) << 56)
    for m in words:
        v[3] ^= m
        rounds(2)
        v[0] ^= m
    v[2] ^= 0xFF
    rounds(4)
    return v[0] ^ v[1] ^ v[2] ^ v[3]


def secret(path):
    data = open(path, "rb").read()
    body = data[:-1] if data.endswith(b"\n") else data
    body = body[:-1] if body.endswith(b"\r") else body
    if body and all(chr(c) in string.hexdigits for c in body):
        return bytes.fromhex(body.decode())
    return data


def addr16(text):
    a = ipaddress.ip_address(text)
    if a.version == 4:
        return b"\0" * 10 + b"\xff\xff" + a.packed
    return a.packed


def main(argv):
    if argv[1] == "macsec":
        s, sci, epoch = secret(argv[2]), bytes.fromhex(argv[3]), int(argv[4])
        okm = hkdf(s, SALT, b"eastwest v1 macsec sa\0" + sci + epoch.to_bytes(4, "big"), 64)
        print(okm[:32].hex(), okm[32:48].hex(), okm[48:60].hex(), okm[60:64].hex())
    elif argv[1] == "esp":
        s, src, dst, epoch = secret(argv[2]), addr16(argv[3]), addr16(argv[4]), int(argv[5])
        okm = hkdf(s, SALT, b"eastwest v1 esp sa\0" + src + dst + epoch.to_bytes(4, "big"), 40)
        spi = int.from_bytes(okm[36:40], "big")
        spi = spi if spi >= 0x100 else spi + 0x100
        print(okm[:36].hex(), "0x%08x" % spi)
    elif argv[1] == "job-esp":
        s = hkdf(secret(argv[2]), SALT, b"eastwest v1 job run secret\0" + argv[3].encode() +
                 b"\0" + argv[4].encode(), 32)
        src, dst, epoch = addr16(argv[5]), addr16(argv[6]), int(argv[7])
        okm = hkdf(s, SALT, b"eastwest v1 esp sa\0" + src + dst + epoch.to_bytes(4, "big"), 40)
        spi = int.from_bytes(okm[36:40], "big")
        spi = spi if spi >= 0x100 else spi + 0x100
        print(okm[:36].hex(), "0x%08x" % spi)
    elif argv[1] == "psn-key":
        job = argv[3].encode()
        s = hkdf(secret(argv[2]), SALT, b"eastwest v1 job run secret\0" + job +
                 b"\0" + argv[4].encode(), 32)
        print(hkdf(s, SALT, b"eastwest v1 psn key\0" + job, 16).hex())
    elif argv[1] == "keyed-psn":
        key = bytes.fromhex(argv[2])
        msg = addr16(argv[3]) + addr16(argv[5]) + \
            int(argv[4], 0).to_bytes(4, "big") + int(argv[6], 0).to_bytes(4, "big")
        print(siphash24(key, msg) & 0xFFFFFF)
    elif argv[1] == "psn-key-check":
        print("0x%08x" % (siphash24(bytes.fromhex(argv[2]), b"eastwest psn key check")
                          & 0xFFFFFFFF))
    else:
        sys.exit("usage: ew_kdf.py macsec|esp|job-esp|psn-key|keyed-psn|psn-key-check ...")


if __name__ == "__main__":
    main(sys.argv)
