#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""peers.py N DIR [nft]: N IPv4 peer addresses from 10.0.0.0 up, written to
DIR as peers.txt (one a line, for `peer add FILE`), policy.json (one job
"bench", id 1, for `apply -f`) and last (the last address); with "nft",
also set.nft (the same addresses as an nftables set, for `nft -f`)."""
import json
import sys

n, d = int(sys.argv[1]), sys.argv[2]
addrs = ["10.%d.%d.%d" % (p >> 16, (p >> 8) & 255, p & 255) for p in range(n)]
with open(d + "/peers.txt", "w") as f:
    f.write("\n".join(addrs) + "\n")
with open(d + "/policy.json", "w") as f:
    json.dump({"jobs": [{"id": 1, "name": "bench", "peers": addrs}]}, f)
with open(d + "/last", "w") as f:
    f.write(addrs[-1] + "\n")
if sys.argv[3:] == ["nft"]:
    with open(d + "/set.nft", "w") as f:
        f.write("table inet ewbench {\n\tset peers {\n\t\ttype ipv4_addr\n\t\telements = {\n")
        f.write(",\n".join("\t\t\t" + a for a in addrs))
        f.write("\n\t\t}\n\t}\n}\n")
