// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: the management-plane ACL -- the nft ruleset made from a
 * configuration (exact text), every kind of bad input with its message,
 * and the check behind the SSH lockout warning.
 */
#include <arpa/inet.h>

#include "helpers.h"

#include "model/mgmt.h"

static int parse(const char *text, struct ew_mgmt *m, char *err, size_t len)
{
	return ew_mgmt_parse(text, strlen(text), "m.json", m, err, len);
}

/* The ruleset of @text, which must parse (malloc'd). */
static char *generate(const char *text)
{
	struct test_out o;
	struct ew_mgmt m;
	char err[1024];

	if (parse(text, &m, err, sizeof(err)))
		fail_msg("refused: %s", err);
	ew_mgmt_write_nft(&m, "m.json", test_out_open(&o));
	ew_mgmt_free(&m);
	return test_out_close(&o);
}

/* @text must fail with exactly @msg. */
static void expect(const char *text, const char *msg)
{
	struct ew_mgmt m;
	char err[1024];

	if (!parse(text, &m, err, sizeof(err)))
		fail_msg("accepted: %s", text);
	ew_mgmt_free(&m);
	if (strcmp(err, msg))
		fail_msg("\n   got: %s\nwanted: %s", err, msg);
}

/* How every ruleset generated from m.json starts. */
#define RULESET_START \
	"# eastwest management-plane ACL (eastwestctl mgmt) from m.json\n" \
	"# Replaces table inet eastwest_mgmt in one transaction; other tables are not touched.\n" \
	"table inet eastwest_mgmt\n" \
	"delete table inet eastwest_mgmt\n" \
	"table inet eastwest_mgmt {\n"

static void test_ruleset(void **state)
{
	char *nft;

	(void)state;
	nft = generate("{ \"admin_networks\": [\"192.0.2.0/24\", \"2001:db8:100::/56\","
		       "                      \"10.0.0.0/8\", \"192.0.2.0/24\"],"
		       "  \"services\": { \"ssh\": {}, \"ipmi\": {},"
		       "    \"verifier\": { \"networks\": [\"10.8.0.0/16\"] },"
		       "    \"node-exporter\": { \"tcp\": [9100, 9100, 9101], \"udp\": [] } } }");
	assert_string_equal(nft,
		RULESET_START
		"\tset admin_v4 {\n"
		"\t\ttype ipv4_addr\n"
		"\t\tflags interval\n"
		"\t\tauto-merge\n"
		"\t\telements = { 10.0.0.0/8, 192.0.2.0/24 }\n"
		"\t}\n"
		"\tset admin_v6 {\n"
		"\t\ttype ipv6_addr\n"
		"\t\tflags interval\n"
		"\t\tauto-merge\n"
		"\t\telements = { 2001:db8:100::/56 }\n"
		"\t}\n"
		"\tset svc_verifier_v4 {\n"
		"\t\ttype ipv4_addr\n"
		"\t\tflags interval\n"
		"\t\tauto-merge\n"
		"\t\telements = { 10.8.0.0/16 }\n"
		"\t}\n"
		"\tchain input {\n"
		"\t\ttype filter hook input priority filter; policy accept;\n"
		"\t\tiif \"lo\" accept comment \"loopback\"\n"
		"\t\tct state established,related accept comment \"open sessions, e.g. the admin's own\"\n"
		"\t\ttcp dport 22 ip saddr @admin_v4 accept comment \"ssh\"\n"
		"\t\ttcp dport 22 ip6 saddr @admin_v6 accept comment \"ssh\"\n"
		"\t\tudp dport 623 ip saddr @admin_v4 accept comment \"ipmi\"\n"
		"\t\tudp dport 623 ip6 saddr @admin_v6 accept comment \"ipmi\"\n"
		"\t\ttcp dport 22 ip saddr @svc_verifier_v4 accept comment \"verifier\"\n"
		"\t\ttcp dport { 9100, 9101 } ip saddr @admin_v4 accept comment \"node-exporter\"\n"
		"\t\ttcp dport { 9100, 9101 } ip6 saddr @admin_v6 accept comment \"node-exporter\"\n"
		"\t\ttcp dport { 22, 9100, 9101 } counter drop comment \"management port, other source\"\n"
		"\t\tudp dport 623 counter drop comment \"management port, other source\"\n"
		"\t}\n"
		"}\n");
	free(nft);
}

/* reject, a service with its own (IPv6-only) networks and changed ports. */
static void test_reject_own_networks(void **state)
{
	char *nft;

	(void)state;
	nft = generate("{ \"services\": { \"ufm-ha\": { \"networks\": [\"fd00::7\"] },"
		       "                \"ssh\": { \"tcp\": [2222], \"networks\": [\"0.0.0.0/0\"] } },"
		       "  \"action\": \"reject\" }");
	assert_string_equal(nft,
		RULESET_START
		"\tset svc_ufm_ha_v6 {\n"
		"\t\ttype ipv6_addr\n"
		"\t\tflags interval\n"
		"\t\tauto-merge\n"
		"\t\telements = { fd00::7/128 }\n"
		"\t}\n"
		"\tset svc_ssh_v4 {\n"
		"\t\ttype ipv4_addr\n"
		"\t\tflags interval\n"
		"\t\tauto-merge\n"
		"\t\telements = { 0.0.0.0/0 }\n"
		"\t}\n"
		"\tchain input {\n"
		"\t\ttype filter hook input priority filter; policy accept;\n"
		"\t\tiif \"lo\" accept comment \"loopback\"\n"
		"\t\tct state established,related accept comment \"open sessions, e.g. the admin's own\"\n"
		"\t\ttcp dport 8888 ip6 saddr @svc_ufm_ha_v6 accept comment \"ufm-ha\"\n"
		"\t\tudp dport 694 ip6 saddr @svc_ufm_ha_v6 accept comment \"ufm-ha\"\n"
		"\t\ttcp dport 2222 ip saddr @svc_ssh_v4 accept comment \"ssh\"\n"
		"\t\ttcp dport { 2222, 8888 } counter reject with tcp reset comment \"management port, other source\"\n"
		"\t\tudp dport 694 counter reject comment \"management port, other source\"\n"
		"\t}\n"
		"}\n");
	free(nft);
}

static void test_flush(void **state)
{
	struct test_out o;
	char *buf;

	(void)state;
	ew_mgmt_write_flush(test_out_open(&o));
	buf = test_out_close(&o);
	assert_string_equal(buf, "table inet eastwest_mgmt\ndelete table inet eastwest_mgmt\n");
	free(buf);
}

#define NETS "\"admin_networks\": [\"10.0.0.0/8\"]"

static void test_errors(void **state)
{
	(void)state;
	expect("{ \"admin_networks\": [\"10.0.0.300/8\"], \"services\": { \"ssh\": {} } }",
	       "m.json: admin_networks[0]: bad network \"10.0.0.300/8\" (expected ADDRESS[/LENGTH], IPv4 or IPv6)");
	expect("{ \"admin_networks\": [\"10.0.0.0/8\", \"10.0.0.1/8\"], \"services\": { \"ssh\": {} } }",
	       "m.json: admin_networks[1]: bad network \"10.0.0.1/8\": bits are set beyond the prefix length");
	expect("{ \"admin_networks\": [\"2001:db8::/129\"], \"services\": { \"ssh\": {} } }",
	       "m.json: admin_networks[0]: bad network \"2001:db8::/129\": the prefix length of an IPv6 address is 0..128");
	expect("{ \"admin_networks\": [\"lid:4\"], \"services\": { \"ssh\": {} } }",
	       "m.json: admin_networks[0]: \"lid:4\" is an InfiniBand LID, not an IP network");
	expect("{ \"admin_networks\": [], \"services\": { \"ssh\": {} } }",
	       "m.json: admin_networks: empty: give at least one network");
	expect("{ \"admin_networks\": [10], \"services\": { \"ssh\": {} } }",
	       "m.json: admin_networks[0]: expected a network (a string), got an integer");
	expect("{ \"admin_networks\": \"10.0.0.0/8\", \"services\": { \"ssh\": {} } }",
	       "m.json: admin_networks: expected an array of networks, got a string");
	expect("{ " NETS ", \"services\": { \"shh\": {} } }",
	       "m.json: services.shh: unknown service \"shh\" (known: ssh, ipmi, redfish, ufm, ufm-ha, verifier; a service of your own needs \"tcp\" or \"udp\" ports)");
	expect("{ " NETS ", \"services\": { \"web\": { \"tcp\": [65536] } } }",
	       "m.json: services.web.tcp[0]: port 65536 is out of range (1..65535)");
	expect("{ " NETS ", \"services\": { \"web\": { \"udp\": [1, 0] } } }",
	       "m.json: services.web.udp[1]: port 0 is out of range (1..65535)");
	expect("{ " NETS ", \"services\": { \"web\": { \"tcp\": [\"80\"] } } }",
	       "m.json: services.web.tcp[0]: expected a port number (an integer), got a string");
	expect("{ " NETS ", \"services\": { \"ssh\": { \"tcp\": [] } } }",
	       "m.json: services.ssh: no ports");
	expect("{ " NETS ", \"services\": { \"ssh\": { \"networks\": [\"x\"] } } }",
	       "m.json: services.ssh.networks[0]: bad network \"x\" (expected ADDRESS[/LENGTH], IPv4 or IPv6)");
	expect("{ " NETS ", \"services\": { \"ssh\": { \"ports\": [22] } } }",
	       "m.json: services.ssh: unknown key \"ports\" (expected tcp, udp, networks)");
	expect("{ " NETS ", \"services\": { \"ssh\": true } }",
	       "m.json: services.ssh: expected an object ({} for the defaults), got a boolean");
	expect("{ " NETS ", \"services\": { \"SSH\": {} } }",
	       "m.json: services.SSH: bad service name: use 1 to 32 of a-z, 0-9 and '-', starting with a letter");
	expect("{ " NETS ", \"services\": {} }",
	       "m.json: services: no services: nothing to restrict");
	expect("{ " NETS " }", "m.json: missing \"services\"");
	expect("{ \"services\": { \"ssh\": {} } }",
	       "m.json: missing \"admin_networks\" (service \"ssh\" has no networks of its own)");
	expect("{ " NETS ", \"services\": { \"ssh\": {} }, \"action\": \"log\" }",
	       "m.json: action: \"log\" is not one of drop, reject");
	expect("{ " NETS ", \"services\": { \"ssh\": {} }, \"admin\": 1 }",
	       "m.json: unknown key \"admin\" (expected admin_networks, services, action)");
	expect("{ \"admin_networks\": [\"10.0.0.0/8\\u0000 0.0.0.0/0\"], \"services\": { \"ssh\": {} } }",
	       "m.json: admin_networks[0]: the string holds a NUL character (\\u0000)");
	expect("{ " NETS ", \"services\": { \"ssh\": {} }, \"action\": \"drop\\u0000\" }",
	       "m.json: action: the string holds a NUL character (\\u0000)");
	expect("[]", "m.json: expected an object at the top level, got an array");
	expect("{ " NETS ",\n \"services\": {", "m.json:2:15: unexpected end of input");
	expect("{ " NETS ", \"services\": { \"ssh\": {} } }\n}",
	       "m.json:2:1: unexpected character");
	expect("{ 'services': {} }", "m.json:1:3: unexpected character");
	/* json-c would keep the last: here, SSH from anywhere. */
	expect("{ " NETS ", \"services\": { \"ssh\": {} },\n  \"admin_networks\": [\"0.0.0.0/0\"] }",
	       "m.json:2:3: duplicate key \"admin_networks\"");
	expect("{ " NETS ", \"services\": { \"ssh\": { \"networks\": [\"10.1.0.0/16\"], "
	       "\"network\\u0073\": [\"0.0.0.0/0\"] } } }",
	       "m.json:1:89: duplicate key \"networks\"");
}

static void addr4(const char *s, uint8_t a[16])
{
	memset(a, 0, 16);
	a[10] = a[11] = 0xff;
	assert_int_equal(inet_pton(AF_INET, s, a + 12), 1);
}

static void test_allows(void **state)
{
	struct ew_mgmt m;
	char err[256];
	uint8_t a[16];
	bool managed;

	(void)state;
	assert_int_equal(parse("{ \"admin_networks\": [\"192.0.2.0/25\", \"2001:db8::/32\"],"
			       "  \"services\": { \"ssh\": {},"
			       "    \"verifier\": { \"networks\": [\"10.8.0.0/16\"] } } }",
			       &m, err, sizeof(err)), 0);
	addr4("192.0.2.127", a);
	assert_true(ew_mgmt_allows(&m, EW_MGMT_TCP, 22, a, &managed));
	assert_true(managed);
	addr4("192.0.2.128", a);
	assert_false(ew_mgmt_allows(&m, EW_MGMT_TCP, 22, a, &managed));
	assert_true(managed);
	/* Port 22 is also the verifier's: its networks count too. */
	addr4("10.8.255.1", a);
	assert_true(ew_mgmt_allows(&m, EW_MGMT_TCP, 22, a, &managed));
	/* Ports the ACL does not declare are not restricted. */
	addr4("203.0.113.1", a);
	assert_true(ew_mgmt_allows(&m, EW_MGMT_TCP, 2222, a, &managed));
	assert_false(managed);
	assert_true(ew_mgmt_allows(&m, EW_MGMT_UDP, 22, a, &managed));
	assert_false(managed);
	assert_int_equal(inet_pton(AF_INET6, "2001:db8:ffff::1", a), 1);
	assert_true(ew_mgmt_allows(&m, EW_MGMT_TCP, 22, a, &managed));
	assert_int_equal(inet_pton(AF_INET6, "2001:db9::1", a), 1);
	assert_false(ew_mgmt_allows(&m, EW_MGMT_TCP, 22, a, &managed));
	ew_mgmt_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ruleset),
		cmocka_unit_test(test_reject_own_networks),
		cmocka_unit_test(test_flush),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_allows),
	};

	ew_quiet = true;
	return cmocka_run_group_tests_name("mgmt", tests, NULL, NULL);
}
