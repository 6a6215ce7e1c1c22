# SPDX-License-Identifier: GPL-2.0
#
# slurm-policy.awk - the eastwestctl attributes of one Slurm job on one node,
# from the partition file and the node inventory (Documentation/slurm.md).
#
#   awk -v pfile=PARTITIONS -v ifile=INVENTORY -v part=PARTITION \
#       -v nodes="NODE NODE..." -v self=NODE -v jobid=N \
#       -f slurm-policy.awk PARTITIONS INVENTORY
#
# On success it prints the attributes for "eastwestctl job add NAME ...", one
# word per line ("netdev", "ib0", "peer", "192.0.2.7", ...). Every value
# printed has been checked here, so the caller can split the output at
# newlines without quoting worries.
#
# A partition with "jobaddr IFNAME" gives each job its own address on every
# node: the node's "jobs:PREFIX/LEN" from the inventory with the job id in
# its low 32 bits. Then the output starts with three lines for the prolog,
# "@dev IFNAME", "@addr ADDR/LEN" (this node's, self) and "@gid GID" (the
# same address as the GID table in sysfs writes it), followed by "netdev
# IFNAME", the partition's settings and one "peer ADDR" per node of the job:
# the job's addresses, not the nodes'. A partition with "jobaddr shared"
# keeps the nodes' addresses: the partition's settings, then one "peer ADDR"
# or "lid N" per address of every node of the job, each address once.
#
# Errors go to stderr. Exit status: 2 a file is malformed (every bad line is
# reported as FILE:LINE: ..., and nothing is printed); 3 the job cannot be
# described (its partition has no entry, a node is not in the inventory or
# has no address on the partition's networks).
#
# POSIX awk only (Debian's default awk is mawk): no regexp intervals, no
# length(array), no strtonum.

function fail(file, line, msg) {
	printf "%s:%d: %s\n", file, line, msg > "/dev/stderr"
	nerr++
}

# A decimal or 0x-hexadecimal number of at most 10 characters, or -1.
function num(s,    v, i, c) {
	if (s ~ /^[0-9]+$/ && length(s) <= 10)
		return s + 0
	if (s !~ /^0[xX][0-9A-Fa-f]+$/ || length(s) > 10)
		return -1
	v = 0
	for (i = 3; i <= length(s); i++) {
		c = index("0123456789abcdef", tolower(substr(s, i, 1))) - 1
		v = v * 16 + c
	}
	return v
}

function is_ipv4(s,    f, n, i) {
	n = split(s, f, ".")
	if (n != 4 || s ~ /\.$/)
		return 0
	for (i = 1; i <= 4; i++)
		if (f[i] !~ /^[0-9]+$/ || length(f[i]) > 3 || f[i] + 0 > 255)
			return 0
	return 1
}

function is_hex16(g) {
	return g ~ /^[0-9A-Fa-f]+$/ && length(g) <= 4
}

# IPv6 text form (RFC 4291 2.2), which is also how GIDs are written: eight
# groups, or fewer around one "::"; the last group may be a dotted quad.
function is_ipv6(s,    dbl, head, tail, h, t, nh, nt, i, groups) {
	if (s !~ /^[0-9A-Fa-f:.]+$/ || s !~ /:/)
		return 0
	dbl = index(s, "::")
	if (dbl) {
		head = substr(s, 1, dbl - 1)
		tail = substr(s, dbl + 2)
		if (index(tail, "::"))
			return 0
	} else {
		head = s
		tail = ""
	}
	nh = head == "" ? 0 : split(head, h, ":")
	nt = tail == "" ? 0 : split(tail, t, ":")
	groups = 0
	for (i = 1; i <= nh; i++) {
		if (!dbl && i == nh && h[i] ~ /\./) {
			if (!is_ipv4(h[i]))
				return 0
			groups += 2
		} else if (is_hex16(h[i])) {
			groups++
		} else {
			return 0
		}
	}
	for (i = 1; i <= nt; i++) {
		if (i == nt && t[i] ~ /\./) {
			if (!is_ipv4(t[i]))
				return 0
			groups += 2
		} else if (is_hex16(t[i])) {
			groups++
		} else {
			return 0
		}
	}
	if (dbl)
		return groups >= 1 && groups <= 7
	return groups == 8
}

# expand6(S, G): the eight 16-bit groups of IPv6 address S (is_ipv6 holds)
# into G[1..8], as numbers.
function expand6(s, g,    dbl, head, tail, h, t, nh, nt, i, k, q, parts, np) {
	dbl = index(s, "::")
	if (dbl) {
		head = substr(s, 1, dbl - 1)
		tail = substr(s, dbl + 2)
	} else {
		head = s
		tail = ""
	}
	np = 0
	nh = head == "" ? 0 : split(head, h, ":")
	nt = tail == "" ? 0 : split(tail, t, ":")
	for (i = 1; i <= nh; i++) {
		if (h[i] ~ /\./) {
			split(h[i], q, ".")
			parts[++np] = q[1] * 256 + q[2]
			parts[++np] = q[3] * 256 + q[4]
		} else {
			parts[++np] = num("0x" h[i])
		}
	}
	k = 0
	for (i = 1; i <= np; i++)
		g[++k] = parts[i]
	np = 0
	for (i = 1; i <= nt; i++) {
		if (t[i] ~ /\./) {
			split(t[i], q, ".")
			parts[++np] = q[1] * 256 + q[2]
			parts[++np] = q[3] * 256 + q[4]
		} else {
			parts[++np] = num("0x" t[i])
		}
	}
	while (k < 8 - np)
		g[++k] = 0
	for (i = 1; i <= np; i++)
		g[++k] = parts[i]
}

function is_name(s) {
	return s ~ /^[A-Za-z0-9_.-]+$/
}

function is_ifname(s) {
	return s ~ /^[A-Za-z0-9_.-]+$/ && length(s) <= 15
}

# One line of the partition file: PARTITION [KEYWORD VALUE]...
function partition_line(    name, i, k, v, n, out, nets, once, jdev, srcrule, nl) {
	name = $1
	if (name != "*" && !is_name(name)) {
		fail(FILENAME, FNR, "bad partition name \"" name "\"")
		return
	}
	if (name in pline) {
		fail(FILENAME, FNR, "partition " name " is already set on line " pline[name])
		return
	}
	pline[name] = FNR
	out = ""
	nets = ""
	for (i = 2; i <= NF; i += 2) {
		k = $i
		v = $(i + 1)
		if (i == NF) {
			fail(FILENAME, FNR, "\"" k "\" needs a value")
			return
		}
		if (k == "encrypt" || k == "mode" || k == "qkey" || k == "ud" ||
		    k == "dc" || k == "psn" || k == "jobaddr") {
			if (index(once, " " k " ")) {
				fail(FILENAME, FNR, "\"" k "\" is given twice")
				return
			}
			once = once " " k " "
		}
		if (k == "netdev" || k == "vrf") {
			if (!is_ifname(v)) {
				fail(FILENAME, FNR, "bad " k " \"" v "\" (an interface name)")
				return
			}
			srcrule = k
		} else if (k == "jobaddr") {
			# The netdev that carries the jobs' addresses, or "shared":
			# the jobs use the nodes' addresses (what the inventory lists).
			if (v != "shared" && !is_ifname(v)) {
				fail(FILENAME, FNR, "bad jobaddr \"" v "\" (an interface name, or shared)")
				return
			}
			jdev = v
			continue
		} else if (k == "vlan") {
			srcrule = k
			n = num(v)
			if (n < 1 || n > 4094) {
				fail(FILENAME, FNR, "bad vlan \"" v "\" (1..4094)")
				return
			}
			v = n
		} else if (k == "pkey") {
			n = num(v)
			if (n < 1 || n > 65535 || n % 32768 == 0) {
				fail(FILENAME, FNR, "bad pkey \"" v "\" (0x0001..0xffff, not 0x8000)")
				return
			}
			v = sprintf("0x%04x", n)
		} else if (k == "encrypt") {
			if (v !~ /^(none|any|macsec|ipsec)$/) {
				fail(FILENAME, FNR, "bad encrypt \"" v "\" (none, any, macsec or ipsec)")
				return
			}
		} else if (k == "mode") {
			if (v !~ /^(enforce|audit)$/) {
				fail(FILENAME, FNR, "bad mode \"" v "\" (enforce or audit)")
				return
			}
		} else if (k == "qkey") {
			if (v != "auto") {
				n = num(v)
				if (n < 0 || n > 2147483647) {
					fail(FILENAME, FNR, "bad qkey \"" v "\" (auto, or 0..0x7fffffff)")
					return
				}
				v = n
			}
		} else if (k == "ud" || k == "dc") {
			if (v != "on" && v != "off") {
				fail(FILENAME, FNR, "bad " k " \"" v "\" (on or off)")
				return
			}
		} else if (k == "psn") {
			if (v != "app" && v != "keyed") {
				fail(FILENAME, FNR, "bad psn \"" v "\" (app or keyed)")
				return
			}
			# Every node derives the job's key from the cluster key file.
			if (v == "keyed") {
				out = out "psn\nkeyed\npsn-keyfile\n" \
				      (psnkeyfile != "" ? psnkeyfile : "/etc/eastwest/cluster.key") "\n"
				continue
			}
		} else if (k == "net") {
			if (!is_name(v)) {
				fail(FILENAME, FNR, "bad net \"" v "\" (letters, digits, . _ -)")
				return
			}
			nets = nets " " v
			continue
		} else {
			fail(FILENAME, FNR, "unknown setting \"" k "\" (jobaddr, netdev, vlan, " \
			     "vrf, pkey, encrypt, mode, qkey, ud, dc, psn, net)")
			return
		}
		out = out k "\n" v "\n"
	}
	# Per-job or shared addresses is a choice the administrator makes.
	if (jdev == "") {
		fail(FILENAME, FNR, "partition " name " has no jobaddr: \"jobaddr IFNAME\" " \
		     "(each job its own address on IFNAME) or \"jobaddr shared\" (the nodes' addresses)")
		return
	}
	if (jdev != "shared") {
		# The job's source netdev is the one that carries its address.
		if (srcrule != "") {
			fail(FILENAME, FNR, "\"" srcrule "\" cannot be combined with " \
			     "\"jobaddr " jdev "\" (the job's source netdev is " jdev ")")
			return
		}
		if (split(nets, nl, " ") > 1) {
			fail(FILENAME, FNR, "\"jobaddr " jdev "\" takes at most one net " \
			     "(the job has one address per node)")
			return
		}
	}
	pargs[name] = out
	pnets[name] = nets
	pjob[name] = jdev
}

# A node's prefix for per-job addresses, "jobs:PREFIX/LEN": the job id goes
# into the low 32 bits, so LEN is at most 96 and those bits are zero. LEN is
# the on-link prefix the address is added with: the prefixes of all nodes of
# one net share it. Two nodes with one prefix would give two jobs one
# address: refused.
function jobs_prefix(host, net, tok, orig,    slash, a, len, g, key) {
	slash = index(tok, "/")
	a = slash ? substr(tok, 1, slash - 1) : tok
	len = slash ? substr(tok, slash + 1) : ""
	if (!is_ipv6(a) || a ~ /\./ || len !~ /^[0-9]+$/ || len + 0 < 1 || len + 0 > 96) {
		fail(FILENAME, FNR, "bad job prefix \"" orig "\" (jobs:IPV6/LEN, LEN 1..96)")
		return 0
	}
	expand6(a, g)
	if (g[7] || g[8]) {
		fail(FILENAME, FNR, "bad job prefix \"" orig "\" (its low 32 bits are the job id: must be 0)")
		return 0
	}
	if ((host, net) in jpfx) {
		fail(FILENAME, FNR, "node " host " has two job prefixes on net " \
		     (net == "" ? "(none)" : net))
		return 0
	}
	key = net SUBSEP g[1] ":" g[2] ":" g[3] ":" g[4] ":" g[5] ":" g[6]
	if (key in jpfxowner) {
		fail(FILENAME, FNR, "job prefix \"" orig "\" of node " host \
		     " is node " jpfxowner[key] "'s")
		return 0
	}
	jpfxowner[key] = host
	jpfx[host, net] = g[1] " " g[2] " " g[3] " " g[4] " " g[5] " " g[6]
	jlen[host, net] = len + 0
	if (!((host, net) in addrs) && !((host, net) in jseen))
		hostnets[host] = hostnets[host] " " (net == "" ? "(none)" : net)
	jseen[host, net] = 1
	return 1
}

# jobaddr(HOST, NET, FMT): the job's address on HOST, its groups printed
# with FMT ("%x" for eastwestctl and ip, "%04x" for the GID in sysfs).
function jobaddr(host, net, fmt,    g, s, i) {
	split(jpfx[host, net], g, " ")
	g[7] = int(jobid / 65536)
	g[8] = jobid % 65536
	s = ""
	for (i = 1; i <= 8; i++)
		s = s (i > 1 ? ":" : "") sprintf(fmt, g[i])
	return s
}

# One line of the inventory: NODE [NET=]ADDRESS...
function inventory_line(    host, i, tok, net, addr, eq, n) {
	host = $1
	if (!is_name(host)) {
		fail(FILENAME, FNR, "bad node name \"" host "\"")
		return
	}
	if (host in iline) {
		fail(FILENAME, FNR, "node " host " is already listed on line " iline[host])
		return
	}
	iline[host] = FNR
	if (NF < 2) {
		fail(FILENAME, FNR, "node " host " has no address")
		return
	}
	for (i = 2; i <= NF; i++) {
		tok = $i
		net = ""
		eq = index(tok, "=")
		if (eq) {
			net = substr(tok, 1, eq - 1)
			tok = substr(tok, eq + 1)
			if (!is_name(net)) {
				fail(FILENAME, FNR, "bad net name in \"" $i "\"")
				return
			}
		}
		if (tok ~ /^jobs:/) {
			if (!jobs_prefix(host, net, substr(tok, 6), $i))
				return
			continue
		}
		if (tok ~ /^lid:/) {
			n = num(substr(tok, 5))
			if (n < 1 || n > 65534) {
				fail(FILENAME, FNR, "bad LID in \"" $i "\" (lid:1..lid:65534)")
				return
			}
			addr = "lid\n" n
		} else if (is_ipv4(tok) || is_ipv6(tok)) {
			addr = "peer\n" tok
		} else {
			fail(FILENAME, FNR, "bad address \"" $i "\" (an IPv4 or IPv6 " \
			     "address, a GID, or lid:N, each optionally NET=...)")
			return
		}
		if (!((host, net) in addrs) && !((host, net) in jseen))
			hostnets[host] = hostnets[host] " " (net == "" ? "(none)" : net)
		addrs[host, net] = addrs[host, net] addr "\n"
	}
}

# The policy of a job with its own addresses (partition P, net NET): the
# prolog's "@" lines, then the attributes. Returns the exit status.
function job_policy(p, jnet,    i, h, bad, peers, me) {
	if (jobid !~ /^[0-9]+$/ || length(jobid) > 10 || jobid + 0 > 4294967295) {
		printf "job id \"%s\" is not a Slurm job id (0..4294967295)\n", jobid > "/dev/stderr"
		return 3
	}
	bad = 0
	peers = ""
	for (i = 1; i <= nn; i++) {
		h = node[i]
		if (!(h in iline)) {
			printf "%s: node %s is not in the inventory\n", ifile, h > "/dev/stderr"
			bad = 1
		} else if (!((h, jnet) in jpfx)) {
			printf "%s:%d: node %s has no job prefix (jobs:PREFIX/LEN) on net %s\n",
			       ifile, iline[h], h, jnet == "" ? "(none)" : jnet > "/dev/stderr"
			bad = 1
		} else if (!((h, jnet) in jpeer)) {
			jpeer[h, jnet] = 1
			peers = peers "peer\n" jobaddr(h, jnet, "%x") "\n"
		}
		if (h == self)
			me = 1
	}
	if (bad)
		return 3
	if (!me) {
		printf "this node (%s) is not one of the job's nodes\n", self > "/dev/stderr"
		return 3
	}
	printf "@dev\n%s\n@addr\n%s/%d\n@gid\n%s\n", pjob[p],
	       jobaddr(self, jnet, "%x"), jlen[self, jnet], jobaddr(self, jnet, "%04x")
	printf "netdev\n%s\n%s%s", pjob[p], pargs[p], peers
	return 0
}

{
	sub(/#.*/, "")
	if (NF == 0)
		next
	if (FILENAME == pfile)
		partition_line()
	else if (FILENAME == ifile)
		inventory_line()
}

END {
	if (nerr)
		exit 2
	p = part
	if (!(p in pline)) {
		if (!("*" in pline)) {
			printf "%s: partition %s has no line and there is no \"*\" line\n",
			       pfile, part > "/dev/stderr"
			exit 3
		}
		p = "*"
	}
	nn = split(nodes, node, " ")
	if (nn == 0) {
		print "the job has no nodes" > "/dev/stderr"
		exit 3
	}
	nw = split(pnets[p], net, " ")
	if (nw == 0) {
		net[1] = ""
		nw = 1
	}
	if (pjob[p] != "shared")
		exit job_policy(p, net[1])
	peers = ""
	bad = 0
	for (i = 1; i <= nn; i++) {
		h = node[i]
		if (!(h in iline)) {
			printf "%s: node %s is not in the inventory\n", ifile, h > "/dev/stderr"
			bad = 1
			continue
		}
		for (j = 1; j <= nw; j++) {
			if (!((h, net[j]) in addrs)) {
				printf "%s:%d: node %s has no address on net %s (its nets:%s)\n",
				       ifile, iline[h], h, net[j] == "" ? "(none)" : net[j],
				       hostnets[h] > "/dev/stderr"
				bad = 1
				continue
			}
			na = split(addrs[h, net[j]], a, "\n")
			for (k = 1; k + 1 <= na; k += 2) {
				if ((a[k], a[k + 1]) in seen)
					continue
				seen[a[k], a[k + 1]] = 1
				peers = peers a[k] "\n" a[k + 1] "\n"
			}
		}
	}
	if (bad)
		exit 3
	printf "%s%s", pargs[p], peers
}
