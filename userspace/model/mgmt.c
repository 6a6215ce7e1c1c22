// SPDX-License-Identifier: GPL-2.0
/*
 * Management-plane ACL: read the configuration, make the nftables ruleset.
 *
 *   { "admin_networks": ["192.0.2.0/24", "2001:db8:100::/56"],
 *     "services": { "ssh": {}, "ipmi": {},
 *                   "verifier": { "networks": ["10.8.0.0/16"] },
 *                   "node-exporter": { "tcp": [9100] } },
 *     "action": "drop" }
 *
 * A known service (the catalogue below) has default ports; "tcp"/"udp"
 * replace them, and a service of the site's own must give them. A service
 * is reachable from its "networks", else from the admin networks.
 *
 * The ruleset is one table, inet eastwest_mgmt, with one input chain whose
 * policy is accept: it drops only traffic to the declared ports from
 * elsewhere, and it leaves every other table alone (an accept here does not
 * override another table's drop, and nothing here accepts what the host's
 * own firewall would refuse to other ports). Loopback and established or
 * related traffic come first, so applying the ACL over SSH keeps the
 * session. The text starts with "table; delete table; table { ... }", which
 * nft runs as one transaction: the old table is replaced atomically, and a
 * ruleset the kernel refuses leaves the old one in place.
 *
 * Like policy_file.c, parsing checks everything and reports the first error with
 * its JSON path ("mgmt.json: services.ssh.tcp[0]: 70000 is out of range").
 */
#include <errno.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "ewctl.h"
#include "io/json_err.h"
#include "model/mgmt.h"

struct catalogue_entry {
	const char *name;
	uint16_t ports[EW_MGMT_N_PROTOS][6];	/* 0-terminated */
};

/*
 * Ports a host itself serves. The UFM list is the UFM Enterprise manual's
 * "Used Ports" appendix without the ports only used over loopback (which
 * the ACL always allows). "verifier" is SSH: eastwest-verifier serve has no
 * listener of its own, nodes reach it through ssh with a forced command
 * (Documentation/attestation.md); declare it, with the node networks, on
 * the verifier host.
 */
static const struct catalogue_entry catalogue[] = {
	{ "ssh",	{ { 22 }, { 0 } } },
	{ "ipmi",	{ { 0 }, { 623 } } },
	{ "redfish",	{ { 443 }, { 0 } } },
	{ "ufm",	{ { 80, 443 }, { 6306, 8005 } } },
	{ "ufm-ha",	{ { 8888 }, { 694 } } },
	{ "verifier",	{ { 22 }, { 0 } } },
};

static const char *const proto_names[EW_MGMT_N_PROTOS] = { "tcp", "udp" };

#define PATH_LEN 128

/* Every known service name, for messages and the manual. */
const char *ew_mgmt_known_services(void)
{
	return "ssh, ipmi, redfish, ufm, ufm-ha, verifier";
}

static const struct catalogue_entry *lookup(const char *name)
{
	size_t i;

	for (i = 0; i < EW_ARRAY_SIZE(catalogue); i++)
		if (!strcmp(catalogue[i].name, name))
			return &catalogue[i];
	return NULL;
}

/* Names go into set names and comments: keep them plain. */
static bool name_ok(const char *s)
{
	size_t len = strlen(s), i;

	if (!len || len > EW_MGMT_NAME_MAX || s[0] < 'a' || s[0] > 'z')
		return false;
	for (i = 1; i < len; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') ||
		      s[i] == '-'))
			return false;
	return true;
}

static int parse_nets(struct ew_json_err *c, const char *path, struct json_object *arr,
		      struct ew_peers *nets)
{
	char p[PATH_LEN + 64];
	size_t i, n;

	if (ew_json_want(c, path, arr, json_type_array, "an array of networks"))
		return -EINVAL;
	n = json_object_array_length(arr);
	if (!n)
		return ew_json_fail(c, path, "empty: give at least one network");
	for (i = 0; i < n; i++) {
		struct json_object *v = json_object_array_get_idx(arr, i);
		const char *why, *s;
		struct ew_peer_addr net;

		snprintf(p, sizeof(p), "%s[%zu]", path, i);
		if (ew_json_string(c, p, v, "a network (a string)", &s))
			return -EINVAL;
		if (!strncmp(s, "lid:", 4))
			return ew_json_fail(c, p, "\"%s\" is an InfiniBand LID, not an IP network", s);
		if (ew_peer_parse(s, &net, &why))
			return ew_json_fail(c, p, "bad network \"%s\"%s%s", s, why ? ": " : "",
					    why ? why : " (expected ADDRESS[/LENGTH], IPv4 or IPv6)");
		ew_peers_add(nets, &net);
	}
	ew_peers_sort_unique(nets);
	return 0;
}

static int port_cmp(const void *a, const void *b)
{
	return (int)*(const uint16_t *)a - (int)*(const uint16_t *)b;
}

static int parse_ports(struct ew_json_err *c, const char *path, struct json_object *arr,
		       struct ew_mgmt_service *s, enum ew_mgmt_proto proto)
{
	char p[PATH_LEN + 64];
	size_t i, n, o;

	if (ew_json_want(c, path, arr, json_type_array, "an array of port numbers"))
		return -EINVAL;
	n = json_object_array_length(arr);
	s->ports[proto] = ew_calloc(n, sizeof(uint16_t));
	for (i = 0; i < n; i++) {
		struct json_object *v = json_object_array_get_idx(arr, i);
		int64_t x;

		snprintf(p, sizeof(p), "%s[%zu]", path, i);
		if (ew_json_want(c, p, v, json_type_int, "a port number (an integer)"))
			return -EINVAL;
		x = json_object_get_int64(v);
		if (x < 1 || x > 65535)
			return ew_json_fail(c, p, "port %s is out of range (1..65535)",
					    json_object_to_json_string(v));
		s->ports[proto][i] = (uint16_t)x;
	}
	qsort(s->ports[proto], n, sizeof(uint16_t), port_cmp);
	for (i = 0, o = 0; i < n; i++)
		if (!o || s->ports[proto][o - 1] != s->ports[proto][i])
			s->ports[proto][o++] = s->ports[proto][i];
	s->n_ports[proto] = o;
	return 0;
}

static void default_ports(struct ew_mgmt_service *s, const struct catalogue_entry *e)
{
	size_t p, n;

	for (p = 0; p < EW_MGMT_N_PROTOS; p++) {
		for (n = 0; n < EW_ARRAY_SIZE(e->ports[p]) && e->ports[p][n]; n++)
			;
		s->ports[p] = ew_calloc(n, sizeof(uint16_t));
		memcpy(s->ports[p], e->ports[p], n * sizeof(uint16_t));
		s->n_ports[p] = n;
	}
}

static int parse_service(struct ew_json_err *c, const char *name, struct json_object *o,
			 struct ew_mgmt_service *s)
{
	const struct catalogue_entry *e = lookup(name);
	bool own_ports = false;
	char path[PATH_LEN];
	size_t p;

	snprintf(path, sizeof(path), "services.%s", name);
	if (!name_ok(name))
		return ew_json_fail(c, path, "bad service name: use 1 to %d of a-z, 0-9 and '-', starting with a letter",
				    EW_MGMT_NAME_MAX);
	snprintf(s->name, sizeof(s->name), "%s", name);
	if (ew_json_want(c, path, o, json_type_object, "an object ({} for the defaults)"))
		return -EINVAL;
	json_object_object_foreach(o, key, v) {
		char kpath[PATH_LEN + 16];

		snprintf(kpath, sizeof(kpath), "%s.%s", path, key);
		if (!strcmp(key, "tcp") || !strcmp(key, "udp")) {
			if (parse_ports(c, kpath, v, s, strcmp(key, "tcp") ? EW_MGMT_UDP :
								   EW_MGMT_TCP))
				return -EINVAL;
			own_ports = true;
		} else if (!strcmp(key, "networks")) {
			if (parse_nets(c, kpath, v, &s->nets))
				return -EINVAL;
		} else {
			return ew_json_fail(c, path, "unknown key \"%s\" (expected tcp, udp, networks)",
					    key);
		}
	}
	if (!own_ports && !e)
		return ew_json_fail(c, path, "unknown service \"%s\" (known: %s; a service of your own needs \"tcp\" or \"udp\" ports)",
				    name, ew_mgmt_known_services());
	if (!own_ports)
		default_ports(s, e);
	for (p = 0; p < EW_MGMT_N_PROTOS; p++)
		if (s->n_ports[p])
			return 0;
	return ew_json_fail(c, path, "no ports");
}

static int parse_services(struct ew_json_err *c, struct json_object *o, struct ew_mgmt *m)
{
	if (ew_json_want(c, "services", o, json_type_object, "an object of services"))
		return -EINVAL;
	if (!json_object_object_length(o))
		return ew_json_fail(c, "services", "no services: nothing to restrict");
	json_object_object_foreach(o, name, v) {
		EW_GROW(m->svcs, m->n_svcs, m->cap_svcs);
		memset(&m->svcs[m->n_svcs], 0, sizeof(m->svcs[0]));
		m->n_svcs++;
		if (parse_service(c, name, v, &m->svcs[m->n_svcs - 1]))
			return -EINVAL;
	}
	return 0;
}

static int parse_action(struct ew_json_err *c, struct json_object *v, struct ew_mgmt *m)
{
	const char *s;

	if (ew_json_string(c, "action", v, "\"drop\" or \"reject\"", &s))
		return -EINVAL;
	if (!strcmp(s, "drop"))
		m->action = EW_MGMT_DROP;
	else if (!strcmp(s, "reject"))
		m->action = EW_MGMT_REJECT;
	else
		return ew_json_fail(c, "action", "\"%s\" is not one of drop, reject", s);
	return 0;
}

static int parse_root(struct ew_json_err *c, struct json_object *root, struct ew_mgmt *m)
{
	struct json_object *v;
	size_t i;

	if (ew_json_want(c, "", root, json_type_object, "an object at the top level"))
		return -EINVAL;
	json_object_object_foreach(root, key, val) {
		(void)val;
		if (strcmp(key, "admin_networks") && strcmp(key, "services") &&
		    strcmp(key, "action") && strcmp(key, "$schema"))
			return ew_json_fail(c, "", "unknown key \"%s\" (expected admin_networks, services, action)",
					    key);
	}
	if (!json_object_object_get_ex(root, "services", &v))
		return ew_json_fail(c, "", "missing \"services\"");
	if (parse_services(c, v, m))
		return -EINVAL;
	if (json_object_object_get_ex(root, "admin_networks", &v)) {
		if (parse_nets(c, "admin_networks", v, &m->admin))
			return -EINVAL;
	} else {
		for (i = 0; i < m->n_svcs; i++)
			if (!m->svcs[i].nets.n)
				return ew_json_fail(c, "", "missing \"admin_networks\" (service \"%s\" has no networks of its own)",
						    m->svcs[i].name);
	}
	if (json_object_object_get_ex(root, "action", &v))
		return parse_action(c, v, m);
	return 0;
}

/**
 * ew_mgmt_parse() - parse and check a management ACL configuration
 * @text: the JSON text (need not be NUL-terminated)
 * @len: its length
 * @fname: the file name, for messages
 * @m: the configuration (free with ew_mgmt_free(), also on error)
 * @err: the message on error: "FILE:LINE:COL: ..." or "FILE: PATH: ..."
 * @errlen: size of @err
 *
 * Return: 0 or -EINVAL.
 */
int ew_mgmt_parse(const char *text, size_t len, const char *fname,
		  struct ew_mgmt *m, char *err, size_t errlen)
{
	struct ew_json_err c = { .fname = fname, .err = err, .errlen = errlen };
	struct json_object *root;
	int ret;

	memset(m, 0, sizeof(*m));
	err[0] = '\0';
	if (ew_json_parse_text(&c, text, len, &root))
		return -EINVAL;
	ret = parse_root(&c, root, m);
	json_object_put(root);
	return ret;
}

void ew_mgmt_free(struct ew_mgmt *m)
{
	size_t i, p;

	for (i = 0; i < m->n_svcs; i++) {
		for (p = 0; p < EW_MGMT_N_PROTOS; p++)
			free(m->svcs[i].ports[p]);
		ew_peers_free(&m->svcs[i].nets);
	}
	free(m->svcs);
	ew_peers_free(&m->admin);
	memset(m, 0, sizeof(*m));
}

/* IPv4 (stored IPv4-mapped, prefix of at least 96 bits) or IPv6. */
static bool is_v4(const struct ew_peer_addr *p)
{
	return ew_addr_is_v4mapped(p->addr) && p->plen >= 96;
}

static size_t count_family(const struct ew_peers *nets, bool v4)
{
	size_t i, n = 0;

	for (i = 0; i < nets->n; i++)
		n += is_v4(&nets->v[i]) == v4;
	return n;
}

/* "admin_v4", or "svc_ufm_ha_v6" for a service's own networks. */
static void set_name(const struct ew_mgmt_service *s, bool v4, char *buf, size_t len)
{
	char *c;

	if (!s) {
		snprintf(buf, len, "admin_%s", v4 ? "v4" : "v6");
		return;
	}
	snprintf(buf, len, "svc_%s_%s", s->name, v4 ? "v4" : "v6");
	for (c = buf; *c; c++)
		if (*c == '-')
			*c = '_';
}

static void write_set(FILE *f, const struct ew_mgmt_service *s,
		      const struct ew_peers *nets, bool v4)
{
	char name[EW_MGMT_NAME_MAX + 16], buf[EW_PEER_STRLEN];
	const char *sep = "";
	size_t i;

	if (!count_family(nets, v4))
		return;
	set_name(s, v4, name, sizeof(name));
	fprintf(f, "\tset %s {\n\t\ttype %s\n\t\tflags interval\n\t\tauto-merge\n"
		"\t\telements = { ", name, v4 ? "ipv4_addr" : "ipv6_addr");
	for (i = 0; i < nets->n; i++) {
		if (is_v4(&nets->v[i]) != v4)
			continue;
		fprintf(f, "%s%s", sep, ew_peer_format(&nets->v[i], buf, sizeof(buf)));
		sep = ", ";
	}
	fprintf(f, " }\n\t}\n");
}

static void write_ports(FILE *f, const uint16_t *ports, size_t n)
{
	size_t i;

	if (n == 1) {
		fprintf(f, "%u", ports[0]);
		return;
	}
	fprintf(f, "{ ");
	for (i = 0; i < n; i++)
		fprintf(f, "%s%u", i ? ", " : "", ports[i]);
	fprintf(f, " }");
}

static void write_accepts(FILE *f, const struct ew_mgmt *m,
			  const struct ew_mgmt_service *s)
{
	const struct ew_mgmt_service *owner = s->nets.n ? s : NULL;
	const struct ew_peers *nets = owner ? &s->nets : &m->admin;
	char name[EW_MGMT_NAME_MAX + 16];
	size_t p, fam;

	for (p = 0; p < EW_MGMT_N_PROTOS; p++) {
		if (!s->n_ports[p])
			continue;
		for (fam = 0; fam < 2; fam++) {
			bool v4 = fam == 0;

			if (!count_family(nets, v4))
				continue;
			set_name(owner, v4, name, sizeof(name));
			fprintf(f, "\t\t%s dport ", proto_names[p]);
			write_ports(f, s->ports[p], s->n_ports[p]);
			fprintf(f, " %s saddr @%s accept comment \"%s\"\n",
				v4 ? "ip" : "ip6", name, s->name);
		}
	}
}

/* The declared ports of @proto, all services together, sorted, unique. */
static size_t managed_ports(const struct ew_mgmt *m, enum ew_mgmt_proto proto,
			    uint16_t **out)
{
	uint16_t *v = NULL;
	size_t i, j, n = 0, o = 0;

	for (i = 0; i < m->n_svcs; i++)
		n += m->svcs[i].n_ports[proto];
	v = ew_calloc(n, sizeof(*v));
	for (i = 0, n = 0; i < m->n_svcs; i++)
		for (j = 0; j < m->svcs[i].n_ports[proto]; j++)
			v[n++] = m->svcs[i].ports[proto][j];
	qsort(v, n, sizeof(*v), port_cmp);
	for (i = 0; i < n; i++)
		if (!o || v[o - 1] != v[i])
			v[o++] = v[i];
	*out = v;
	return o;
}

/**
 * ew_mgmt_write_nft() - write the ruleset, as nft(8) input
 * @m: the configuration
 * @source: where it came from (a comment), or NULL
 * @f: where to write
 *
 * The text is one transaction: it creates the table if it is missing,
 * deletes it and creates it anew with the ACL.
 */
void ew_mgmt_write_nft(const struct ew_mgmt *m, const char *source, FILE *f)
{
	static const char *const reject[EW_MGMT_N_PROTOS] = {
		"reject with tcp reset", "reject",
	};
	size_t i, p, n;

	fprintf(f, "# eastwest management-plane ACL (eastwestctl mgmt)%s%s\n",
		source ? " from " : "", source ? source : "");
	fprintf(f, "# Replaces table " EW_MGMT_FAMILY " " EW_MGMT_TABLE
		" in one transaction; other tables are not touched.\n");
	fprintf(f, "table " EW_MGMT_FAMILY " " EW_MGMT_TABLE "\n"
		"delete table " EW_MGMT_FAMILY " " EW_MGMT_TABLE "\n"
		"table " EW_MGMT_FAMILY " " EW_MGMT_TABLE " {\n");
	write_set(f, NULL, &m->admin, true);
	write_set(f, NULL, &m->admin, false);
	for (i = 0; i < m->n_svcs; i++) {
		write_set(f, &m->svcs[i], &m->svcs[i].nets, true);
		write_set(f, &m->svcs[i], &m->svcs[i].nets, false);
	}
	fprintf(f, "\tchain input {\n"
		"\t\ttype filter hook input priority filter; policy accept;\n"
		"\t\tiif \"lo\" accept comment \"loopback\"\n"
		"\t\tct state established,related accept comment \"open sessions, e.g. the admin's own\"\n");
	for (i = 0; i < m->n_svcs; i++)
		write_accepts(f, m, &m->svcs[i]);
	for (p = 0; p < EW_MGMT_N_PROTOS; p++) {
		uint16_t *ports;

		n = managed_ports(m, p, &ports);
		if (n) {
			fprintf(f, "\t\t%s dport ", proto_names[p]);
			write_ports(f, ports, n);
			fprintf(f, " counter %s comment \"management port, other source\"\n",
				m->action == EW_MGMT_REJECT ? reject[p] : "drop");
		}
		free(ports);
	}
	fprintf(f, "\t}\n}\n");
}

/* Removes the table, and only it; nothing to remove is not an error. */
void ew_mgmt_write_flush(FILE *f)
{
	fprintf(f, "table " EW_MGMT_FAMILY " " EW_MGMT_TABLE "\n"
		"delete table " EW_MGMT_FAMILY " " EW_MGMT_TABLE "\n");
}

static bool net_contains(const struct ew_peer_addr *net, const uint8_t addr[16])
{
	unsigned int full = net->plen / 8, rest = net->plen % 8;

	if (memcmp(net->addr, addr, full))
		return false;
	return !rest || !((net->addr[full] ^ addr[full]) & (0xff << (8 - rest)));
}

static bool nets_contain(const struct ew_peers *nets, const uint8_t addr[16])
{
	size_t i;

	for (i = 0; i < nets->n; i++)
		if (net_contains(&nets->v[i], addr))
			return true;
	return false;
}

/**
 * ew_mgmt_allows() - would the ACL let a new connection in?
 * @m: the configuration
 * @proto: its protocol
 * @port: its destination port
 * @addr: its source address (IPv4-mapped for IPv4)
 * @managed: set to whether the ACL restricts @port at all
 *
 * Return: true if a service declaring @port allows @addr, or @port is not
 * restricted (loopback and established connections are always allowed).
 */
bool ew_mgmt_allows(const struct ew_mgmt *m, enum ew_mgmt_proto proto,
		    uint16_t port, const uint8_t addr[16], bool *managed)
{
	size_t i, j;

	*managed = false;
	for (i = 0; i < m->n_svcs; i++) {
		const struct ew_mgmt_service *s = &m->svcs[i];

		for (j = 0; j < s->n_ports[proto]; j++) {
			if (s->ports[proto][j] != port)
				continue;
			*managed = true;
			if (nets_contain(s->nets.n ? &s->nets : &m->admin, addr))
				return true;
		}
	}
	return !*managed;
}
