#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Print the one table of `make bench` from the "# bench:" lines.

    report.py MACHINE [--kunit LOG] KERNEL=RESULTS_DIR...

RESULTS_DIR holds the scenarios' outputs (modify.sh.out, which has the
rdma_cm connect rate too, datapath.sh.out, revoke.sh.out, nft.sh.out) of
one kernel; a scenario that did not run (bench/run --nft runs nft.sh
alone) gives no rows.
Ratios are per round (each configuration against the module absent in the
same round), then the median of the rounds, with the min-max spread: under
TCG the machine drifts between rounds, far less within one.
"""
import math
import os
import re
import statistics
import sys


def fields(line):
    """'# bench: KIND a 1 b 2 ...' -> (KIND, [tokens])."""
    toks = line[len("# bench: "):].split()
    return toks[0], toks[1:]


def kv(toks):
    return {toks[i]: toks[i + 1] for i in range(0, len(toks) - 1, 2)}


def num(v):
    """A finite float, else NaN (perftest prints "inf" when its clock fails)."""
    try:
        f = float(v)
    except (TypeError, ValueError):
        return float("nan")
    return f if math.isfinite(f) else float("nan")


def spread(vals, fmt):
    vals = [v for v in vals if v == v]
    if not vals:
        return "n/a"
    med = fmt % statistics.median(vals)
    if len(vals) == 1:
        return "%s (1 run)" % med
    return "%s [%s-%s] (%d)" % (med, fmt % min(vals), fmt % max(vals), len(vals))


def verdict(vals, target, higher_is_better):
    vals = [v for v in vals if v == v]
    if not vals:
        return "not measured"
    med = statistics.median(vals)
    ok = med >= target if higher_is_better else med <= target
    return "met" if ok else "MISSED"


def load(path):
    out = []
    if os.path.exists(path):
        for line in open(path):
            if line.startswith("# bench: "):
                out.append(fields(line.strip()))
    return out


def baseline(table, label):
    """What a configuration is compared with: the module absent with the
    caller where it is then (a job's cgroup for enforce-*, none for audit)."""
    if label.endswith("-remote") and "absent-job-remote" in table:
        return "absent-job-remote"
    if label.startswith("enforce") and "absent-job" in table:
        return "absent-job"
    return "absent"


def cm_rows(lines):
    """P1 rdma_cm connect rate (bench/cm_rate): per round, each configuration's
    connects/s against the module absent; then the absolute figures."""
    cm = {}
    for kind, toks in lines:
        if kind == "cm":
            f = kv(toks[1:])
            cm.setdefault(toks[0], {})[int(f["round"])] = f
    if not cm:
        return [("P1 rdma_cm connect rate", ">= 0.99", "n/a", "not measured")]

    def size(label):
        return int(label.split("-")[1]) if "-" in label else 0

    def ratios(label, key, inverse):
        out = []
        absent = cm.get(baseline(cm, label), {})
        for r, v in cm[label].items():
            a, x = num(absent.get(r, {}).get(key)), num(v.get(key))
            if a and x:
                out.append(a / x if inverse else x / a)
        return out

    rows = []
    labels = sorted((k for k in cm if not k.startswith("absent")),
                    key=lambda k: (k != "audit", size(k)))
    for label in labels:
        base = baseline(cm, label)
        rate = ratios(label, "connects_per_s", False)
        rows.append(("P1 rdma_cm connect rate, %s / %s" % (label, base), ">= 0.99",
                     spread(rate, "%.3f"), verdict(rate, 0.99, True)))
        p25 = ratios(label, "connect_p25_us", True)
        rows.append(("P1 rdma_cm connect time p25, %s / %s" % (base, label), ">= 0.99",
                     spread(p25, "%.3f"), verdict(p25, 0.99, True)))
    for label in [k for k in ("absent", "absent-job") if k in cm] + labels:
        runs = list(cm.get(label, {}).values())

        def col(key, fmt):
            return spread([num(f.get(key)) for f in runs], fmt)

        rows.append(("P1   %s: connects/s; connect p25 / median / p90 us" % label, "",
                     "%s; %s / %s / %s" % (col("connects_per_s", "%.1f"),
                                           col("connect_p25_us", "%.0f"),
                                           col("connect_median_us", "%.0f"),
                                           col("connect_p90_us", "%.0f")), ""))
    return rows


def rows_for(kernel, d):
    rows = []
    # P1: modify cost per round and configuration.
    cost = {}
    metrics = (("modify_median_ns", "modify cycle, median"),
               ("rtr_median_ns", "INIT->RTR (policed), median"),
               ("rtr_p25_ns", "INIT->RTR (policed), p25"),
               ("reset_median_ns", "RTS->RESET, median"))
    for kind, toks in load(os.path.join(d, "modify.sh.out")):
        if kind != "modify":
            continue
        label, rnd = toks[0], int(toks[2])
        f = kv(toks[3:])
        cost.setdefault(label, {})[rnd] = tuple(num(f.get(m)) for m, _ in metrics)

    def size(label):
        return int(label.split("-")[1]) if "-" in label else 0

    for label in sorted((k for k in cost if not k.startswith("absent")),
                        key=lambda k: (k != "audit", size(k))):
        base = baseline(cost, label)
        absent = cost.get(base, {})
        for idx, (_, what) in enumerate(metrics):
            ratios = [absent[r][idx] / v[idx] for r, v in cost[label].items()
                      if r in absent and v[idx]]
            rows.append(("P1 %s / %s: %s" % (label, base, what), ">= 0.99",
                         spread(ratios, "%.3f"), verdict(ratios, 0.99, True)))
        # Under -icount a nanosecond is an instruction: the added work.
        extra = [v[1] - absent[r][1] for r, v in cost[label].items()
                 if r in absent and v[1]]
        target = "<= +800" if label.startswith("enforce") else ""
        rows.append(("P1 %s - %s: INIT->RTR, ns (instructions under -icount)" %
                     (label, base), target, spread(extra, "%+.0f"),
                     verdict(extra, 800, False) if target else ""))
    # Same-node ownership check and keyed PSNs: a local destination with
    # keyed PSNs against a remote one with the application's (the probe of
    # the local-GID set, which every destination pays, is in both).
    # Each against the module absent with the same destination: the core's
    # own work differs between the two addresses.
    def added(label):
        absent = cost.get(baseline(cost, label), {})
        return {r: v[1] - absent[r][1] for r, v in cost.get(label, {}).items()
                if r in absent and v[1]}

    keyed, remote, plain = added("enforce-1-keyed"), added("enforce-1-remote"), added("enforce-1")
    if keyed and remote and "absent-job-remote" in cost:
        extra = [v - remote[r] for r, v in keyed.items() if r in remote]
        rows.append(("P1 ownership check of a local destination + keyed PSN: INIT->RTR, "
                     "(enforce-1-keyed - absent-job) - (enforce-1-remote - absent-job-remote)",
                     "<= +200", spread(extra, "%+.0f"), verdict(extra, 200, False)))
        for what, a, b in (("local destination", plain, remote), ("keyed PSN", keyed, plain)):
            extra = [v - b[r] for r, v in a.items() if r in b]
            rows.append(("P1   of which the %s: INIT->RTR" % what, "",
                         spread(extra, "%+.0f"), ""))
    one = cost.get("enforce-1", {})
    big = [k for k in cost if k.startswith("enforce-") and k != "enforce-1" and
           k.count("-") == 1]
    if one and big:
        top = max(big, key=size)
        for idx, (_, what) in enumerate(metrics):
            ratios = [one[r][idx] / v[idx] for r, v in cost[top].items()
                      if r in one and v[idx]]
            rows.append(("P1 growth, 1 / %d peers: %s" % (size(top), what),
                         ">= 0.99 (flat)", spread(ratios, "%.3f"),
                         verdict(ratios, 0.99, True)))
    if os.path.exists(os.path.join(d, "modify.sh.out")):
        rows += cm_rows(load(os.path.join(d, "modify.sh.out")))

    # P2: data path.
    data = {}
    for kind, toks in load(os.path.join(d, "datapath.sh.out")):
        if kind == "data" and "round" in toks:
            f = kv(toks[1:])
            data.setdefault(toks[0], {})[int(f["round"])] = (num(f.get("bw_MBps")), num(f.get("lat_us")))
    a, e = data.get("absent", {}), data.get("enforce", {})
    bw = [e[r][0] / a[r][0] for r in e if r in a and a[r][0]]
    lat = [a[r][1] / e[r][1] for r in e if r in a and e[r][1]]
    if os.path.exists(os.path.join(d, "datapath.sh.out")):
        rows.append(("P2 ib_write_bw 64K, enforcing / absent", ">= 0.995", spread(bw, "%.3f"),
                     verdict(bw, 0.995, True)))
        rows.append(("P2 ib_send_lat 64B, absent / enforcing", ">= 0.995", spread(lat, "%.3f"),
                     verdict(lat, 0.995, True)))
    # Calls of the hooked functions per message: N and 4N messages traced.
    for kind, toks in load(os.path.join(d, "datapath.sh.out")):
        if kind == "data" and toks[:1] == ["hooks"]:
            n1, h1, p1, n2, h2, p2 = (int(toks[i]) for i in (2, 4, 6, 8, 10, 12))
            per = (h2 - h1) / (n2 - n1)
            rows.append(("P2 hooked-function calls per message (%d vs %d msgs)" % (n1, n2),
                         "0", "%.4f (%d vs %d calls; post_send %d vs %d)" % (per, h1, h2, p1, p2),
                         "met" if h1 == h2 and p2 > p1 else "MISSED"))

    # P3: policy push.
    push, job, rm = [], [], []
    for kind, toks in load(os.path.join(d, "modify.sh.out")):
        if kind == "push":
            push.append(kv(toks[1:]))
        elif kind == "job4096":
            job.append(kv(toks))
        elif kind == "rmmod":
            rm.append(num(kv(toks)["ms"]))
    if push:
        n = int(push[0]["peers"])
        rows.append(("P3 apply %d peers, ms" % n, "<= 1000",
                     spread([num(f.get("ms")) for f in push], "%.0f"),
                     verdict([num(f.get("ms")) for f in push], 1000, False)))
        rows.append(("P3   of which eastwestctl user / kernel (sys) s", "",
                     "%s / %s" % (spread([num(f.get("user_s")) for f in push], "%.2f"),
                                  spread([num(f.get("sys_s")) for f in push], "%.2f")), ""))
        rows.append(("P3   peers/s", ">= 1000000",
                     spread([n * 1000 / num(f.get("ms")) for f in push], "%.0f"),
                     verdict([n * 1000 / num(f.get("ms")) for f in push], 1e6, True)))
        per = [num(f.get("entry_B")) + num(f.get("table_B_per_peer")) for f in push]
        rows.append(("P3 bytes/peer: entry (slab) + table (vmalloc)", "<= 64",
                     spread(per, "%.1f") + " = %s + %s" % (
                         push[0].get("entry_B", "nan"), spread([num(f.get("table_B_per_peer")) for f in push], "%.1f")),
                     verdict(per, 64, False)))
        rows.append(("P3   all kernel memory / peer (jobs included)", "",
                     spread([num(f.get("kmem_B_per_peer")) for f in push], "%.1f"), ""))
    if job:
        rows.append(("P3 one 4096-peer job, kernel ms", "<= 5",
                     spread([num(f.get("kernel_ms")) for f in job], "%.2f"),
                     verdict([num(f.get("kernel_ms")) for f in job], 5, False)))
        rows.append(("P3   same, eastwestctl end to end ms", "",
                     spread([num(f.get("ms")) for f in job], "%.0f"), ""))
    if rm:
        rows.append(("P3 rmmod with the policy loaded, ms", "", spread(rm, "%.0f"), ""))

    # P3 beside the incumbent: the same host addresses as an nftables set
    # (nft -f) and as one job's peers, per round (bench/nft.sh).
    nft = {}
    for kind, toks in load(os.path.join(d, "nft.sh.out")):
        if kind == "nft":
            f = kv(toks[1:])
            nft.setdefault(toks[0], {})[int(f["round"])] = f
    if nft.get("nft"):
        n = int(next(iter(nft["nft"].values()))["peers"])
        for label, what in (("peer-add-file", "peer add JOB file"), ("apply", "apply -f")):
            ratios = [num(v["ms"]) / num(nft[label][r]["ms"])
                      for r, v in nft["nft"].items()
                      if r in nft.get(label, {}) and num(nft[label][r]["ms"])]
            rows.append(("P3 %d addresses: nft -f / %s (time ratio)" % (n, what), ">= 5",
                         spread(ratios, "%.2f"), verdict(ratios, 5, True)))
        rows.append(("P3   nft -f / peer add file / apply -f, ms", "",
                     " / ".join(spread([num(v["ms"]) for v in nft.get(k, {}).values()], "%.0f")
                                for k in ("nft", "peer-add-file", "apply")), ""))

    # P4: revocation.
    rev = [kv(t) for k, t in load(os.path.join(d, "revoke.sh.out")) if k == "revoke"]
    if rev:
        ms = [num(f.get("all_error_ms")) for f in rev]
        rows.append(("P4 job del -> %s QPs in error (tracked %s), ms" % (
            rev[0]["qps"], rev[0]["tracked"]), "<= 1000", spread(ms, "%.0f"),
            verdict(ms, 1000, False)))
        if "kernel_ms" in rev[0]:
            rows.append(("P4   of which in the kernel (job-del handler), ms", "",
                         spread([num(f.get("kernel_ms")) for f in rev], "%.0f"), ""))
        if "revoke_events" in rev[0]:
            rows.append(("P4   revoke events received / QPs", "1",
                         spread([num(f.get("revoke_events")) / num(f.get("tracked"))
                                 for f in rev], "%.3f"),
                         "met" if all(f.get("revoke_events") == f.get("tracked")
                                      for f in rev) else "MISSED"))
    elif os.path.exists(os.path.join(d, "revoke.sh.out")):
        rows.append(("P4 revocation with 10k QPs", "<= 1000", "n/a", "not measured"))
    return [(kernel,) + r for r in rows]


def kunit_rows(path):
    rows = []
    if not path or not os.path.exists(path):
        return rows
    for line in open(path):
        m = re.search(r"ew-bench: peers (\d+) hit_ns (\d+) miss_ns (\d+)", line)
        if m:
            rows.append(("UML", "decision, %s peers: allow / deny ns" % m.group(1),
                         "flat", "%s / %s" % (m.group(2), m.group(3)), ""))
        m = re.search(r"ew-bench: add (\d+) peers ns_per_peer (\d+)", line)
        if m:
            rows.append(("UML", "P3 kernel: add %s peers, ns/peer" % m.group(1),
                         "<= 1000", m.group(2), "met" if int(m.group(2)) <= 1000 else "MISSED"))
        m = re.search(r"ew-bench: job4096 create_us (\d+) delete_us (\d+)", line)
        if m:
            rows.append(("UML", "P3 kernel: one 4096-peer job create / delete us",
                         "<= 5000", "%s / %s" % (m.group(1), m.group(2)),
                         "met" if int(m.group(1)) <= 5000 else "MISSED"))
    return rows


def main():
    args = sys.argv[1:]
    machine = args.pop(0)
    kunit = None
    if args and args[0] == "--kunit":
        kunit = args[1]
        args = args[2:]
    rows = []
    for a in args:
        kernel, d = a.split("=", 1)
        rows += rows_for(kernel, d)
    rows += kunit_rows(kunit)
    w = [max(len(r[i]) for r in rows + [("kernel", "figure", "target", "measured", "")])
         for i in range(5)]
    print("machine: %s" % machine)
    print("measured: median [min-max] (runs); ratios per round against the module absent")
    fmt = "%%-%ds  %%-%ds  %%-%ds  %%-%ds  %%s" % tuple(w[:4])
    print(fmt % ("kernel", "figure", "target", "measured", "verdict"))
    print(fmt % (tuple("-" * x for x in w[:4]) + ("-------",)))
    for r in rows:
        print(fmt % r)


if __name__ == "__main__":
    main()
