#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""An RDMA netlink QP dump whose batch another program builds.

  ew_nldeputy.py DEV_INDEX READER...
  ew_nldeputy.py --out DEV_INDEX WRITER...

Opens an RDMA netlink socket with a small receive buffer and fills its
queue with one big message: the kernel's error answer to a device query of
no device, which repeats the query, padded to 3.5 KiB. Then asks for the QP
dump of device DEV_INDEX: the kernel finds the queue full and leaves the
first batch for the next read. Then runs READER with the socket as its
standard input: READER's read takes the big answer, and the kernel builds
the dump's batch in READER's context. Then reads what was queued and prints
READER's output and "lqpns N N ..." (the QP numbers the dump listed).

With --out, the QP dump request is written to a file instead, and WRITER
runs with the file's name as its last argument and the socket as its
standard output: WRITER's write sends the request, and the kernel builds
the first batch in WRITER's context. WRITER reports on standard error.
"""
import os
import tempfile
import socket
import struct
import subprocess
import sys

NETLINK_RDMA, NLDEV, GET, RES_QP_GET = 20, 5, 1, 10
ATTR_DEV_INDEX, ATTR_RES_QP, ATTR_RES_QP_ENTRY, ATTR_RES_LQPN = 1, 19, 20, 21
NLA_TYPE_MASK = 0x3FFF
SOL_NETLINK, NETLINK_NO_ENOBUFS = 270, 5


def lqpns(buf, out):
    off = 0
    while off + 4 <= len(buf):
        ln, typ = struct.unpack_from("=HH", buf, off)
        if ln < 4:
            break
        typ &= NLA_TYPE_MASK
        if typ == ATTR_RES_LQPN and ln == 8:
            out.append(struct.unpack_from("=I", buf, off + 4)[0])
        elif typ in (ATTR_RES_QP, ATTR_RES_QP_ENTRY):
            lqpns(buf[off + 4:off + ln], out)
        off += (ln + 3) & ~3


def main():
    out = sys.argv[1] == "--out"
    args = sys.argv[2:] if out else sys.argv[1:]
    ifindex, reader = int(args[0]), args[1:]
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_RDMA)
    s.bind((0, 0))
    if out:
        body = struct.pack("=HHI", 8, ATTR_DEV_INDEX, ifindex)
        with tempfile.NamedTemporaryFile(delete=False) as f:
            f.write(struct.pack("=IHHII", 16 + len(body),
                                (NLDEV << 10) + RES_QP_GET, 0x1 | 0x300, 1,
                                0) + body)
        os.chmod(f.name, 0o644)
        r = subprocess.run(reader + [f.name], stdout=s.fileno(),
                           stderr=subprocess.PIPE, text=True, check=False)
        os.unlink(f.name)
        print("reader:", r.stderr.strip(), "exit", r.returncode)
        collect(s)
        return
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.setsockopt(SOL_NETLINK, NETLINK_NO_ENOBUFS, 1)
    pad = 3500
    bad = struct.pack("=HHI", 8, ATTR_DEV_INDEX, 0xFFFFFF) + \
        struct.pack("=HH", 4 + pad, 0x3FF0) + bytes(pad)
    s.send(struct.pack("=IHHII", 16 + len(bad), (NLDEV << 10) + GET,
                       0x1, 2, 0) + bad)
    body = struct.pack("=HHI", 8, ATTR_DEV_INDEX, ifindex)
    s.send(struct.pack("=IHHII", 16 + len(body), (NLDEV << 10) + RES_QP_GET,
                       0x1 | 0x300, 1, 0) + body)
    r = subprocess.run(reader, stdin=s.fileno(), stdout=subprocess.PIPE,
                       text=True, check=False)
    print("reader:", r.stdout.strip(), "exit", r.returncode)
    collect(s)


def collect(s):
    """Reads what is queued on @s and prints the QP numbers it lists."""
    found = []
    s.settimeout(2)
    try:
        while True:
            data = s.recv(65536)
            off = 0
            while off + 16 <= len(data):
                ln, typ = struct.unpack_from("=IH", data, off)
                if ln < 16:
                    break
                if typ == (NLDEV << 10) + RES_QP_GET:
                    lqpns(data[off + 16:off + ln], found)
                off += (ln + 3) & ~3
    except socket.timeout:
        pass
    print("lqpns", " ".join(str(q) for q in sorted(set(found))))


if __name__ == "__main__":
    main()
