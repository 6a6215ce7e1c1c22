#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Independent implementation of eastwest's path key derivation, version 1
(Documentation/admin-guide.md, "Path key derivation"), with Python's hmac
only. selftests/eastwest/path.sh configures the far end of a test link with
iproute2 and these values: if they work against eastwestctl's SAs, both
implementations agree bit for bit.

  ew_kdf.py macsec KEYFILE SCI_HEX EPOCH     -> "SAK_HEX KI_HEX SALT_HEX SSCI_HEX"
  ew_kdf.py esp KEYFILE SRC DST EPOCH        -> "KEYSALT_HEX SPI_HEX"
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
    else:
        sys.exit("usage: ew_kdf.py macsec|esp ...")


if __name__ == "__main__":
    main(sys.argv)
