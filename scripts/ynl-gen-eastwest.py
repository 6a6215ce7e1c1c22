#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Generate eastwest's own tables from its YNL spec.

The kernel's ynl-gen-c.py writes the uapi header and the kernel policies;
this writes what the rest of the tree used to copy from the spec by hand:

  userspace/io/nlnames-gen.c         attribute names of every set, and the
                                     set of each command's requests (extack)
  userspace/model/names-gen.[ch]     enum and flag names, counter names and
                                     the counter of each refusal reason
  userspace/model/attrs-gen.h        per set eastwestctl reads, a struct of
                                     the set's scalar attributes, to embed in
                                     the model's structs
  userspace/io/attrs-gen.[ch]        their parsers: ew_<set>_attr_parse()
  selftests/tools/nlfuzz/model-gen.c the fuzzer's model: sets with types,
                                     lengths and ranges, operations
  kmod/counters-gen.h                the counter of each refusal reason, as
                                     an initialiser for the module

Usage: ynl-gen-eastwest.py SPEC OUTDIR   (OUTDIR gets the paths above)
scripts/ynl-regen runs it; do not edit its outputs.
"""
import os
import sys

import yaml

SPEC_PATH = "Documentation/netlink/specs/eastwest.yaml"


def die(msg):
    sys.exit("ynl-gen-eastwest: " + msg)


def c_upper(name):
    return name.upper().replace("-", "_")


def c_lower(name):
    return name.replace("-", "_")


def header(comment_style, what):
    lines = [" Do not edit directly, auto-generated from: ",
             "\t" + SPEC_PATH + " ",
             " by scripts/ynl-gen-eastwest.py (" + what + ") "]
    if comment_style == "//":
        out = ["// SPDX-License-Identifier: GPL-2.0"]
    else:
        out = ["/* SPDX-License-Identifier: GPL-2.0 */"]
    out += ["/*%s*/" % l for l in lines]
    return "\n".join(out) + "\n"


class Spec:
    def __init__(self, path):
        with open(path) as f:
            self.y = yaml.safe_load(f)
        self.prefix = c_upper(self.y["name"])
        self.defs = {d["name"]: d for d in self.y.get("definitions", [])}
        self.sets = {s["name"]: s for s in self.y["attribute-sets"]}
        self.set_order = [s["name"] for s in self.y["attribute-sets"]]
        self.ops = self.y["operations"]["list"]

    # --- definitions
    def const(self, name):
        d = self.defs.get(name)
        if not d or d["type"] != "const":
            die("unknown constant %r" % name)
        return "%s_%s" % (self.prefix, c_upper(name))

    def enum_entries(self, name):
        """[(value, entry name)] of an enum, or [(bit, name)] of flags."""
        d = self.defs[name]
        out = []
        for i, e in enumerate(d["entries"]):
            ename = e["name"] if isinstance(e, dict) else e
            if d["type"] == "flags":
                out.append((i, ename))
            else:
                out.append((d.get("value-start", 0) + i, ename))
        return out

    def enum_const(self, enum, entry):
        d = self.defs[enum]
        pfx = d.get("name-prefix", "%s-%s-" % (self.y["name"], enum))
        return c_upper(pfx + entry)

    # --- attributes
    def attr_const(self, set_name, attr):
        s = self.sets[set_name]
        pfx = s.get("name-prefix", "%s-a-%s-" % (self.y["name"], set_name))
        return c_upper(pfx + attr)

    def attr_max(self, set_name):
        s = self.sets[set_name]
        pfx = s.get("name-prefix", "%s-a-%s-" % (self.y["name"], set_name))
        return c_upper(pfx + "max")

    def attrs(self, set_name):
        return self.sets[set_name]["attributes"]

    def cmd_const(self, op):
        return "%s_CMD_%s" % (self.prefix, c_upper(op["name"]))

    def requests(self, op):
        req = []
        for mode in ("do", "dump"):
            for a in ((op.get(mode) or {}).get("request") or {}).get("attributes", []):
                if a not in req:
                    req.append(a)
        return req

    def nested_order(self, roots):
        """Sets reachable from @roots, each after the sets it nests."""
        out = []

        def visit(name, stack):
            if name in out:
                return
            if name in stack:
                die("attribute set %s nests itself" % name)
            for a in self.attrs(name):
                if a["type"] == "nest":
                    visit(a["nested-attributes"], stack + [name])
            out.append(name)

        for r in roots:
            visit(r, [])
        return out


# ---------------------------------------------------------------------------
# userspace/io/nlnames-gen.c

def gen_nlnames(sp):
    o = [header("//", "attribute names"),
         "#include <stddef.h>", "", "#include <linux/eastwest.h>", "",
         '#include "io/nlnames.h"', "",
         "#define EW_NLN_SET(a) { sizeof(a) / sizeof((a)[0]) - 1, a }", ""]
    req_sets = [op["attribute-set"] for op in sp.ops if "do" in op or "dump" in op]
    for sname in sp.nested_order(req_sets):
        o.append("static const struct ew_attr_desc %s_attrs[] = {" % c_lower(sname))
        for a in sp.attrs(sname):
            if a["type"] == "pad":
                continue
            fields = ['.name = "%s"' % a["name"]]
            if a["type"] == "nest":
                fields.append(".nested = &%s_set" % c_lower(a["nested-attributes"]))
            if a.get("multi-attr"):
                fields.append(".multi = true")
            o.append("\t[%s] = { %s }," % (sp.attr_const(sname, a["name"]), ", ".join(fields)))
        o.append("};")
        o.append("")
        o.append("static const struct ew_attr_set %s_set = EW_NLN_SET(%s_attrs);"
                 % (c_lower(sname), c_lower(sname)))
        o.append("")
    o += ["/* The attribute set of a command's requests (NULL: the command has none). */",
          "const struct ew_attr_set *ew_cmd_attr_set(uint8_t cmd)",
          "{", "\tswitch (cmd) {"]
    by_set = {}
    for op in sp.ops:
        if "do" in op or "dump" in op:
            by_set.setdefault(op["attribute-set"], []).append(op)
    for sname in sp.set_order:
        if sname not in by_set:
            continue
        for op in by_set[sname]:
            o.append("\tcase %s:" % sp.cmd_const(op))
        o.append("\t\treturn &%s_set;" % c_lower(sname))
    o += ["\tdefault:", "\t\treturn NULL;", "\t}", "}"]
    return "\n".join(o) + "\n"


# ---------------------------------------------------------------------------
# userspace/model/names-gen.[ch]

def reason_counters(sp):
    """[(reason const, counter attribute const)]: reason R counts in denied-R."""
    counters = {a["name"] for a in sp.attrs("counters")}
    out = []
    for _, r in sp.enum_entries("reason"):
        c = "denied-" + r
        if c not in counters:
            die("reason %s has no counter %s in the counters set" % (r, c))
        out.append((sp.enum_const("reason", r), sp.attr_const("counters", c)))
    return out


def enum_defs(sp):
    return [d for d in sp.y["definitions"] if d["type"] in ("enum", "flags")]


def gen_names_h(sp):
    o = [header("/*", "enum and counter names"),
         "#ifndef EW_NAMES_GEN_H", "#define EW_NAMES_GEN_H", "",
         "#include <stdint.h>", "", "#include <linux/eastwest.h>", "",
         "struct ew_names;", ""]
    for d in enum_defs(sp):
        note = "\t/* flags, by bit */" if d["type"] == "flags" else ""
        o.append("extern const struct ew_names ew_%s_names;%s" % (c_lower(d["name"]), note))
    o += ["",
          "/* Name of each counters attribute (NULL for pad), '-' written '_'. */",
          "extern const char *const ew_counter_names[%s + 1];" % sp.attr_max("counters"),
          "",
          "/* The counters attribute that counts refusals of each reason. */",
          "extern const uint16_t ew_reason_counter[%s_REASON_MAX + 1];" % sp.prefix,
          "", "#endif /* EW_NAMES_GEN_H */"]
    return "\n".join(o) + "\n"


def gen_names_c(sp):
    o = [header("//", "enum and counter names"),
         "#include <stddef.h>", "",
         '#include "model/names-gen.h"', '#include "model/parse.h"', "",
         "#define EW_NG_NAMES(a) { a, sizeof(a) / sizeof((a)[0]) }", ""]
    for d in enum_defs(sp):
        n = c_lower(d["name"])
        o.append("static const char *const %s_names[] = {" % n)
        for v, e in sp.enum_entries(d["name"]):
            if d["type"] == "flags":
                o.append('\t[%d] = "%s",' % (v, e))
            else:
                o.append('\t[%s] = "%s",' % (sp.enum_const(d["name"], e), e))
        o.append("};")
        o.append("")
    for d in enum_defs(sp):
        n = c_lower(d["name"])
        o.append("const struct ew_names ew_%s_names = EW_NG_NAMES(%s_names);" % (n, n))
    o += ["", "const char *const ew_counter_names[%s + 1] = {" % sp.attr_max("counters")]
    for a in sp.attrs("counters"):
        if a["type"] == "pad":
            continue
        o.append('\t[%s] = "%s",' % (sp.attr_const("counters", a["name"]), c_lower(a["name"])))
    o += ["};", "", "const uint16_t ew_reason_counter[%s_REASON_MAX + 1] = {" % sp.prefix]
    for r, c in reason_counters(sp):
        o.append("\t[%s] = %s," % (r, c))
    o.append("};")
    return "\n".join(o) + "\n"


# ---------------------------------------------------------------------------
# userspace/model/attrs-gen.h, userspace/io/attrs-gen.[ch]

# The sets whose scalar attributes eastwestctl reads through a generated
# parser. The others it reads by hand: peer (an address or a LID, a default
# prefix), netdev (exactly one attribute), counters (an array by type),
# event (eastwestctl monitor's array by type); peer-list, node and fabric
# replies carry no scalars it keeps.
PARSED_SETS = ["cgroup", "job", "config", "dev", "port", "gid", "path"]

# Members held in another type than the spec's, for the model's users.
C_TYPE_OVERRIDE = {("config", "admission-required"): "uint32_t"}

INT_TYPES = {"u8": "uint8_t", "u16": "uint16_t", "u32": "uint32_t", "u64": "uint64_t"}


def read_attrs(sp, sname):
    """The set's scalar, single attributes that replies carry: of a set an
    operation replies with, those its replies list; of a nested set, all."""
    listed, top = set(), False
    for op in sp.ops:
        if op["attribute-set"] != sname:
            continue
        for mode in ("do", "dump"):
            reply = (op.get(mode) or {}).get("reply")
            if reply:
                top = True
                listed.update(reply["attributes"])
    out = []
    for a in sp.attrs(sname):
        if a["type"] not in INT_TYPES and a["type"] not in ("string", "binary"):
            continue
        if a.get("multi-attr") or (top and a["name"] not in listed):
            continue
        if a["type"] == "binary" and "exact-len" not in a.get("checks", {}):
            die("attribute %s.%s: a binary read into a struct needs exact-len"
                % (sname, a["name"]))
        out.append(a)
    if len(sp.attrs(sname)) >= 32:
        die("set %s: more attributes than a present mask holds" % sname)
    return out


def member_decl(sp, sname, a):
    m = c_lower(a["name"])
    ch = a.get("checks", {})
    if (sname, a["name"]) in C_TYPE_OVERRIDE:
        return "%s %s;" % (C_TYPE_OVERRIDE[(sname, a["name"])], m)
    if a["type"] == "u8" and ch.get("max") == 1:
        return "bool %s;" % m
    if a["type"] in INT_TYPES:
        return "%s %s;" % (INT_TYPES[a["type"]], m)
    if a["type"] == "binary":
        return "uint8_t %s[%d];" % (m, ch["exact-len"])
    v = ch.get("max-len")
    if v is None:
        return "char %s[EW_ATTR_STRLEN];" % m
    return "char %s[%s + 1];" % (m, v if isinstance(v, int) else sp.const(v))


def gen_attrs_h(sp):
    o = [header("/*", "attribute structs"),
         "#ifndef EW_ATTRS_GEN_H", "#define EW_ATTRS_GEN_H", "",
         "#include <stdbool.h>", "#include <stdint.h>", "",
         "#include <linux/eastwest.h>", "",
         "/* The bit of attribute type @type in a present mask. */",
         "#define EW_ATTR_BIT(type) (1U << (type))", "",
         "/* The buffer of a string attribute without max-len (longer ones are cut). */",
         "#define EW_ATTR_STRLEN 64", "",
         "/*",
         " * Per set: EW_<SET>_ATTRS, the set's scalar attributes that replies",
         " * carry, as members of a model struct: each by its name ('-' written",
         " * '_'), and all of them as .attrs, the struct ew_<set>_attrs that",
         " * ew_<set>_attr_parse() (io/attrs-gen.h) fills.",
         " */"]
    for sname in PARSED_SETS:
        n, N = c_lower(sname), c_upper(sname)
        o += ["", "#define EW_%s_ATTR_MEMBERS \\" % N]
        o += ["\t%s \\" % member_decl(sp, sname, a) for a in read_attrs(sp, sname)]
        o[-1] = o[-1][:-2]
        o += ["", "struct ew_%s_attrs {" % n, "\tEW_%s_ATTR_MEMBERS" % N, "};", "",
              "#define EW_%s_ATTRS \\" % N, "\tunion { \\",
              "\t\tstruct ew_%s_attrs attrs; \\" % n,
              "\t\tstruct { \\", "\t\t\tEW_%s_ATTR_MEMBERS \\" % N,
              "\t\t}; \\", "\t}"]
    o += ["", "#endif /* EW_ATTRS_GEN_H */"]
    return "\n".join(o) + "\n"


def proto_lines(sname, end):
    """A parser's prototype, its second line aligned under the first's '('."""
    first = "int ew_%s_attr_parse(" % c_lower(sname)
    return [first + "struct ew_%s_attrs *o, uint32_t *present," % c_lower(sname),
            "\t" * (len(first) // 8) + " " * (len(first) % 8) + "const struct nlattr *a)" + end]


def gen_attrs_io_h(sp):
    o = [header("/*", "attribute parsers"),
         "#ifndef EW_IO_ATTRS_GEN_H", "#define EW_IO_ATTRS_GEN_H", "",
         "#include <libmnl/libmnl.h>", "", '#include "model/attrs-gen.h"', "",
         "/*",
         " * ew_<set>_attr_parse() - one attribute of a reply (or nest) of <set>",
         " *",
         " * A scalar attribute of struct ew_<set>_attrs of the right type and size",
         " * is stored in @o and its bit, EW_ATTR_BIT(type), set in @present.",
         " *",
         " * Return: 1 if @a was stored; 0 if it is no member of @o (a list, a nest,",
         " * an attribute the tool does not know), for the caller; -1 if it is one",
         " * but malformed.",
         " */"]
    for sname in PARSED_SETS:
        o += proto_lines(sname, ";")
    o += ["", "#endif /* EW_IO_ATTRS_GEN_H */"]
    return "\n".join(o) + "\n"


def gen_attrs_io_c(sp):
    o = [header("//", "attribute parsers"),
         "#include <stdio.h>", "#include <string.h>", "",
         '#include "io/attrs-gen.h"']
    for sname in PARSED_SETS:
        o += [""] + proto_lines(sname, "")
        o += ["{", "\tunsigned int type = mnl_attr_get_type(a);", "", "\tswitch (type) {"]
        for a in read_attrs(sp, sname):
            m = c_lower(a["name"])
            o.append("\tcase %s:" % sp.attr_const(sname, a["name"]))
            if a["type"] in INT_TYPES:
                o += ["\t\tif (mnl_attr_validate(a, MNL_TYPE_%s) < 0)" % c_upper(a["type"]),
                      "\t\t\treturn -1;",
                      "\t\to->%s = mnl_attr_get_%s(a);" % (m, a["type"])]
            elif a["type"] == "string":
                o += ["\t\tif (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) < 0)",
                      "\t\t\treturn -1;",
                      '\t\tsnprintf(o->%s, sizeof(o->%s), "%%s", mnl_attr_get_str(a));'
                      % (m, m)]
            else:
                o += ["\t\tif (mnl_attr_validate2(a, MNL_TYPE_BINARY, sizeof(o->%s)) < 0)" % m,
                      "\t\t\treturn -1;",
                      "\t\tmemcpy(o->%s, mnl_attr_get_payload(a), sizeof(o->%s));" % (m, m)]
            o.append("\t\tbreak;")
        o += ["\tdefault:", "\t\treturn 0;", "\t}",
              "\t*present |= EW_ATTR_BIT(type);", "\treturn 1;", "}"]
    return "\n".join(o) + "\n"


# ---------------------------------------------------------------------------
# kmod/counters-gen.h

def gen_kmod_counters(sp):
    o = [header("/*", "reason counters"),
         "#ifndef _EW_COUNTERS_GEN_H", "#define _EW_COUNTERS_GEN_H", "",
         "#include <uapi/linux/eastwest.h>", "",
         "/*",
         " * Initialiser of a table, indexed by EASTWEST_REASON_*, of the counters",
         " * attribute (EASTWEST_A_COUNTERS_DENIED_*) that counts each reason.",
         " */",
         "#define EW_REASON_COUNTER_ATTRS { \\"]
    for r, c in reason_counters(sp):
        o.append("\t[%s] = %s, \\" % (r, c))
    o += ["}", "", "#endif /* _EW_COUNTERS_GEN_H */"]
    return "\n".join(o) + "\n"


# ---------------------------------------------------------------------------
# selftests/tools/nlfuzz/model-gen.c

KINDS = {"u8": "NF_U8", "u16": "NF_U16", "u32": "NF_U32", "u64": "NF_U64",
         "string": "NF_STRING", "binary": "NF_BINARY", "nest": "NF_NEST",
         "pad": "NF_PAD"}


def fuzz_checks(sp, a):
    """Length and range fields, as the kernel's generated policy checks them."""
    f = []
    ch = a.get("checks", {})
    for k in ch:
        if k not in ("min", "max", "exact-len", "max-len"):
            die("attribute %s: check %s is not modelled" % (a["name"], k))
    if a["type"] == "string" and "max-len" in ch:
        v = ch["max-len"]
        f.append(".len = %s" % (v if isinstance(v, int) else sp.const(v)))
    if a["type"] == "binary" and "exact-len" in ch:
        f.append(".len = %d" % ch["exact-len"])
    if a["type"] == "binary" and a["name"] == "peer-recs":
        # Records of peer-rec-len bytes, a length the handler checks.
        f.append(".len = %s, .records = true" % sp.const("peer-rec-len"))
    lo, hi = ch.get("min"), ch.get("max")
    if "enum" in a and not a.get("enum-as-flags"):
        # The generated policy bounds an enum by its first and last entry.
        ent = sp.enum_entries(a["enum"])
        if ent[0][0]:
            lo = sp.enum_const(a["enum"], ent[0][1])
        hi = sp.enum_const(a["enum"], ent[-1][1])
    if lo is not None:
        f.append(".has_min = true, .min = %s" % lo)
    if hi is not None:
        f.append(".has_max = true, .max = %s" % hi)
    return f


def gen_fuzz_model(sp):
    o = [header("//", "fuzzer model"),
         "#include <linux/eastwest.h>", "", '#include "model.h"', "",
         "#define NF_SET(var, nm, maxt) \\",
         "\t{ .name = (nm), .max_type = (maxt), "
         ".n = sizeof(var) / sizeof((var)[0]), .attrs = (var) }", ""]
    for sname in sp.nested_order(sp.set_order):
        v = c_lower(sname)
        o.append("static const struct nf_attr %s_attrs[] = {" % v)
        for a in sp.attrs(sname):
            if a["type"] not in KINDS:
                die("attribute %s.%s: type %s is not modelled" % (sname, a["name"], a["type"]))
            f = [".type = %s" % sp.attr_const(sname, a["name"]),
                 '.set = "%s"' % sname, '.name = "%s"' % a["name"],
                 ".kind = %s" % KINDS[a["type"]]]
            f += fuzz_checks(sp, a)
            if a["type"] == "nest":
                f.append(".nest = &nf_set_%s" % c_lower(a["nested-attributes"]))
            if a.get("multi-attr"):
                f.append(".multi = true")
            o.append("\t{ %s }," % ", ".join(f))
        o.append("};")
        o.append('const struct nf_set nf_set_%s = NF_SET(%s_attrs, "%s", %s);'
                 % (v, v, sname, sp.attr_max(sname)))
        o.append("")
    # Requests first, then the notifications (no request side: a request
    # with their cmd is refused), each in spec order.
    ops = [op for op in sp.ops if "do" in op or "dump" in op]
    ops += [op for op in sp.ops if op not in ops]
    o.append("const struct nf_op nf_ops[] = {")
    for op in ops:
        req = sp.requests(op)
        if len(req) > 16:
            die("op %s: more request attributes than NF_MAX_REQ" % op["name"])
        sname = op["attribute-set"]
        o.append('\t{ .cmd = %s, .name = "%s", .admin = %s, .has_do = %s, .has_dump = %s,'
                 % (sp.cmd_const(op), op["name"],
                    "true" if "admin-perm" in op.get("flags", []) else "false",
                    "true" if "do" in op else "false",
                    "true" if "dump" in op else "false"))
        attrs = ", ".join(sp.attr_const(sname, r) for r in req)
        if req:
            o.append("\t  .set = &nf_set_%s, .n_req = %d, .req = { %s } },"
                     % (c_lower(sname), len(req), attrs))
        else:
            o.append("\t  .set = &nf_set_%s, .n_req = 0 }," % c_lower(sname))
    o += ["};", "", "const unsigned int nf_n_ops = sizeof(nf_ops) / sizeof(nf_ops[0]);"]
    return "\n".join(o) + "\n"


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sp = Spec(sys.argv[1])
    out = {
        "userspace/io/nlnames-gen.c": gen_nlnames(sp),
        "userspace/model/names-gen.h": gen_names_h(sp),
        "userspace/model/names-gen.c": gen_names_c(sp),
        "userspace/model/attrs-gen.h": gen_attrs_h(sp),
        "userspace/io/attrs-gen.h": gen_attrs_io_h(sp),
        "userspace/io/attrs-gen.c": gen_attrs_io_c(sp),
        "selftests/tools/nlfuzz/model-gen.c": gen_fuzz_model(sp),
        "kmod/counters-gen.h": gen_kmod_counters(sp),
    }
    for path, text in out.items():
        full = os.path.join(sys.argv[2], path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
