// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: peer addresses, prefixes and LIDs; numbers, names, P_Keys,
 * Q_Keys; cgroup paths.
 */
#include <arpa/inet.h>
#include <errno.h>

#include "helpers.h"

#include "model/addr.h"
#include "model/parse.h"

static void roundtrip(const char *in, const char *out, uint8_t plen)
{
	char buf[EW_PEER_STRLEN];
	struct ew_peer_addr p, q;
	const char *why;

	assert_int_equal(ew_peer_parse(in, &p, &why), 0);
	assert_int_equal(p.plen, plen);
	assert_string_equal(ew_peer_format(&p, buf, sizeof(buf)), out);
	assert_int_equal(ew_peer_parse(buf, &q, &why), 0);
	assert_int_equal(ew_peer_cmp(&p, &q), 0);
}

static void test_ipv4(void **state)
{
	struct ew_peer_addr p;
	const char *why;

	(void)state;
	roundtrip("192.0.2.1", "192.0.2.1/32", 128);
	roundtrip("192.0.2.1/32", "192.0.2.1/32", 128);
	roundtrip("192.0.2.0/24", "192.0.2.0/24", 120);
	roundtrip("0.0.0.0/0", "0.0.0.0/0", 96);
	roundtrip("255.255.255.255", "255.255.255.255/32", 128);
	roundtrip("10.0.0.0/8", "10.0.0.0/8", 104);
	assert_int_equal(ew_peer_parse("192.0.2.1", &p, &why), 0);
	assert_true(ew_addr_is_v4mapped(p.addr));
	assert_int_equal(p.addr[10], 0xff);
	assert_int_equal(p.addr[15], 1);
	assert_false(p.is_lid);
	assert_true(ew_peer_is_host(&p));
}

/*
 * IPv4 text takes a fast path in ew_peer_parse(): it must agree with
 * inet_pton(AF_INET) on every form, odd octets included (leading zeros,
 * 256, four digits, empty or extra parts, what follows the address).
 */
static void test_ipv4_agrees_with_inet_pton(void **state)
{
	static const char *const octet[] = {
		"0", "1", "9", "10", "99", "100", "199", "249", "255", "256", "299",
		"999", "00", "01", "010", "001", "0255", "1000", "", "x", "-1", "+1",
		" 1", "1 ",
	};
	/* Each valid tail leaves a host address valid; the others never are. */
	static const char *const tail[] = { "", "/32", "/", "/33", ".", "x", ".1", "/3x" };
	size_t a, b, t, f, n = EW_ARRAY_SIZE(octet);

	(void)state;
	for (a = 0; a < n; a++) {
		for (b = 0; b < n; b++) {
			for (f = 0; f < 3; f++) {
				const char *o[3][4] = {
					{ octet[a], octet[b], "0", "255" },
					{ "10", octet[a], octet[b], "1" },
					{ "192", "0", octet[a], octet[b] },
				};
				char addr[64];
				uint8_t want[4];
				bool valid;

				snprintf(addr, sizeof(addr), "%s.%s.%s.%s", o[f][0], o[f][1],
					 o[f][2], o[f][3]);
				for (t = 0; t < EW_ARRAY_SIZE(tail); t++) {
					struct ew_peer_addr p;
					const char *why;
					char s[80];

					snprintf(s, sizeof(s), "%s%s", addr, tail[t]);
					valid = t < 2 && inet_pton(AF_INET, addr, want) == 1;
					if (ew_peer_parse(s, &p, &why) != (valid ? 0 : -EINVAL))
						fail_msg("\"%s\": %s, inet_pton says %s", s,
							 valid ? "refused" : "accepted",
							 valid ? "valid" : "invalid");
					if (valid && (!ew_addr_is_v4mapped(p.addr) ||
						      memcmp(p.addr + 12, want, 4) || p.plen != 128))
						fail_msg("\"%s\": not the address inet_pton gives", s);
				}
			}
		}
	}
}

static void test_ipv6(void **state)
{
	(void)state;
	roundtrip("fe80::1", "fe80::1/128", 128);
	roundtrip("2001:db8::/32", "2001:db8::/32", 32);
	roundtrip("::/0", "::/0", 0);
	roundtrip("2001:db8::1/128", "2001:db8::1/128", 128);
	/* IPv4-mapped, in IPv6 syntax: printed as IPv4 from /96 up. */
	roundtrip("::ffff:192.0.2.1", "192.0.2.1/32", 128);
	roundtrip("::ffff:192.0.2.0/120", "192.0.2.0/24", 120);
	roundtrip("::ffff:0.0.0.0/96", "0.0.0.0/0", 96);
	roundtrip("::ffff:0:0/112", "0.0.0.0/16", 112);
	/* A full GID (RoCE v1 link-local) */
	roundtrip("fe80::b2:ffff:fe00:1", "fe80::b2:ffff:fe00:1/128", 128);
}

static void test_lid(void **state)
{
	char buf[EW_PEER_STRLEN];
	struct ew_peer_addr p;
	const char *why;

	(void)state;
	assert_int_equal(ew_peer_parse("lid:1", &p, &why), 0);
	assert_true(p.is_lid);
	assert_int_equal(p.lid, 1);
	assert_int_equal(ew_peer_parse("lid:0xfffe", &p, &why), 0);
	assert_int_equal(p.lid, 0xfffe);
	assert_string_equal(ew_peer_format(&p, buf, sizeof(buf)), "lid:65534");
	assert_int_equal(ew_lid_parse("65534", &p, &why), 0);
	assert_int_equal(ew_lid_parse("0x10", &p, &why), 0);
	assert_int_equal(p.lid, 16);
	roundtrip("lid:42", "lid:42", 0);

	assert_int_equal(ew_peer_parse("lid:0", &p, &why), -EINVAL);
	assert_non_null(why);
	assert_int_equal(ew_peer_parse("lid:65535", &p, &why), -EINVAL);
	assert_non_null(why);
	assert_int_equal(ew_peer_parse("lid:0xffff", &p, &why), -EINVAL);
	assert_int_equal(ew_peer_parse("lid:", &p, &why), -EINVAL);
	assert_int_equal(ew_peer_parse("lid:abc", &p, &why), -EINVAL);
	assert_int_equal(ew_peer_parse("lid:-1", &p, &why), -EINVAL);
	assert_int_equal(ew_peer_parse("lid:1/16", &p, &why), -EINVAL);
	assert_int_equal(ew_lid_parse("0", &p, &why), -EINVAL);
	assert_int_equal(ew_lid_parse("", &p, &why), -EINVAL);
}

static void test_invalid(void **state)
{
	static const char *const bad[] = {
		"", "10.0.0.300", "1.2.3", "1.2.3.4.5", "a.b.c.d", "10.0.0.1/33",
		"10.0.0.1/", "/24", "10.0.0.1/-1", "10.0.0.1/+8", "10.0.0.1/ 8",
		"10.0.0.1/24/1", "10.0.0.1/1000", "10.0.0.1/x", "fe80::1/129",
		"fe80::1%eth0", "[fe80::1]", "fe80:::1", "gggg::1", " 10.0.0.1",
		"10.0.0.1 ", "10.0.0.5/24", "192.0.2.128/24", "2001:db8::1/32",
		"::1/0", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
		"lid", "lid 5", "LID:5",
	};
	struct ew_peer_addr p;
	const char *why;
	size_t i;

	(void)state;
	for (i = 0; i < EW_ARRAY_SIZE(bad); i++) {
		if (ew_peer_parse(bad[i], &p, &why) != -EINVAL)
			fail_msg("\"%s\" was accepted", bad[i]);
	}
	/* Reasons: prefix out of range, bits beyond the prefix. */
	assert_int_equal(ew_peer_parse("10.0.0.0/33", &p, &why), -EINVAL);
	assert_string_equal(why, "the prefix length of an IPv4 address is 0..32");
	assert_int_equal(ew_peer_parse("fe80::/129", &p, &why), -EINVAL);
	assert_string_equal(why, "the prefix length of an IPv6 address is 0..128");
	assert_int_equal(ew_peer_parse("10.0.0.5/24", &p, &why), -EINVAL);
	assert_string_equal(why, "bits are set beyond the prefix length");
	assert_int_equal(ew_peer_parse("10.0.0.300", &p, &why), -EINVAL);
	assert_null(why);
}

static void test_prefix_boundaries(void **state)
{
	struct ew_peer_addr p;
	const char *why;
	char s[64];
	int len;

	(void)state;
	for (len = 0; len <= 32; len++) {
		snprintf(s, sizeof(s), "0.0.0.0/%d", len);
		assert_int_equal(ew_peer_parse(s, &p, &why), 0);
		assert_int_equal(p.plen, 96 + len);
	}
	for (len = 0; len <= 128; len++) {
		snprintf(s, sizeof(s), "::/%d", len);
		assert_int_equal(ew_peer_parse(s, &p, &why), 0);
		assert_int_equal(p.plen, len);
	}
	assert_int_equal(ew_peer_parse("255.255.255.255/32", &p, &why), 0);
	assert_int_equal(ew_peer_parse("255.255.255.254/31", &p, &why), 0);
	assert_int_equal(ew_peer_parse("255.255.255.255/31", &p, &why), -EINVAL);
	assert_int_equal(ew_peer_parse("128.0.0.0/1", &p, &why), 0);
	assert_int_equal(ew_peer_parse("192.0.0.0/1", &p, &why), -EINVAL);
}

static void test_order(void **state)
{
	struct ew_peer_addr a, b, c, d;
	const char *why;

	(void)state;
	ew_peer_parse("10.0.0.0/8", &a, &why);
	ew_peer_parse("10.0.0.0/16", &b, &why);
	ew_peer_parse("fe80::1", &c, &why);
	ew_peer_parse("lid:1", &d, &why);
	assert_true(ew_peer_cmp(&a, &b) < 0);
	assert_true(ew_peer_cmp(&c, &a) > 0);
	assert_true(ew_peer_cmp(&d, &c) > 0);
	assert_int_equal(ew_peer_cmp(&d, &d), 0);
}

static void test_numbers(void **state)
{
	uint32_t v;
	uint64_t w;

	(void)state;
	assert_int_equal(ew_parse_u32("0", 0, 10, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(ew_parse_u32("010", 0, 100, &v), 0);
	assert_int_equal(v, 10);
	assert_int_equal(ew_parse_u32("0x1F", 0, 100, &v), 0);
	assert_int_equal(v, 31);
	assert_int_equal(ew_parse_u32("4294967295", 0, UINT32_MAX, &v), 0);
	assert_int_equal(v, UINT32_MAX);
	assert_int_equal(ew_parse_u32("4294967296", 0, UINT32_MAX, &v), -ERANGE);
	assert_int_equal(ew_parse_u32("0xffffffff", 0, UINT32_MAX, &v), 0);
	assert_int_equal(ew_parse_u32("0x100000000", 0, UINT32_MAX, &v), -ERANGE);
	assert_int_equal(ew_parse_u32("5", 6, 10, &v), -ERANGE);
	assert_int_equal(ew_parse_u32("11", 6, 10, &v), -ERANGE);
	assert_int_equal(ew_parse_u64("18446744073709551615", 0, UINT64_MAX, &w), 0);
	assert_true(w == UINT64_MAX);
	assert_int_equal(ew_parse_u64("18446744073709551616", 0, UINT64_MAX, &w), -ERANGE);
	assert_int_equal(ew_parse_u64("99999999999999999999999", 0, UINT64_MAX, &w), -ERANGE);
	assert_int_equal(ew_parse_u32("", 0, 10, &v), -EINVAL);
	assert_int_equal(ew_parse_u32("0x", 0, 10, &v), -EINVAL);
	assert_int_equal(ew_parse_u32("-1", 0, 10, &v), -EINVAL);
	assert_int_equal(ew_parse_u32("+1", 0, 10, &v), -EINVAL);
	assert_int_equal(ew_parse_u32(" 1", 0, 10, &v), -EINVAL);
	assert_int_equal(ew_parse_u32("1 ", 0, 10, &v), -EINVAL);
	assert_int_equal(ew_parse_u32("0x0x1", 0, 10, &v), -EINVAL);
	assert_int_equal(ew_parse_u32("1a", 0, 10, &v), -EINVAL);
}

static void test_keys_and_names(void **state)
{
	char name[80];
	const char *why;
	uint16_t pkey;
	uint32_t qkey;
	int i;

	(void)state;
	assert_int_equal(ew_parse_pkey("0x8001", &pkey, &why), 0);
	assert_int_equal(pkey, 0x8001);
	assert_int_equal(ew_parse_pkey("0xffff", &pkey, &why), 0);
	assert_int_equal(ew_parse_pkey("1", &pkey, &why), 0);
	assert_int_equal(ew_parse_pkey("0x7fff", &pkey, &why), 0);
	assert_int_equal(ew_parse_pkey("0", &pkey, &why), -EINVAL);
	assert_int_equal(ew_parse_pkey("0x8000", &pkey, &why), -EINVAL);
	assert_int_equal(ew_parse_pkey("0x10000", &pkey, &why), -EINVAL);
	assert_int_equal(ew_parse_pkey("x", &pkey, &why), -EINVAL);

	assert_int_equal(ew_parse_qkey("0", &qkey, &why), 0);
	assert_int_equal(ew_parse_qkey("0x7fffffff", &qkey, &why), 0);
	assert_int_equal(qkey, 0x7fffffff);
	assert_int_equal(ew_parse_qkey("0x80000000", &qkey, &why), -ERANGE);
	assert_string_equal(why, "Q_Keys with bit 31 set are privileged and refused");
	assert_int_equal(ew_parse_qkey("0xffffffff", &qkey, &why), -ERANGE);
	assert_int_equal(ew_parse_qkey("0x100000000", &qkey, &why), -EINVAL);
	assert_int_equal(ew_parse_qkey("auto", &qkey, &why), -EINVAL);
	for (i = 0; i < 64; i++) {
		qkey = ew_random_qkey();
		assert_true(qkey != 0 && qkey <= 0x7fffffff);
	}

	assert_int_equal(ew_name_check("a", &why), 0);
	assert_int_equal(ew_name_check("job_42.step-1:x@y+z=w", &why), 0);
	memset(name, 'n', 63);
	name[63] = '\0';
	assert_int_equal(ew_name_check(name, &why), 0);
	name[63] = 'n';
	name[64] = '\0';
	assert_int_equal(ew_name_check(name, &why), -EINVAL);
	assert_int_equal(ew_name_check("", &why), -EINVAL);
	assert_int_equal(ew_name_check("id", &why), -EINVAL);
	assert_int_equal(ew_name_check("-a", &why), -EINVAL);
	assert_int_equal(ew_name_check("a b", &why), -EINVAL);
	assert_int_equal(ew_name_check("a/b", &why), -EINVAL);
	assert_int_equal(ew_name_check("a#b", &why), -EINVAL);
}

static void test_cgroup_normalize(void **state)
{
	char out[EASTWEST_CGROUP_PATH_MAX];
	char *longp;
	const char *why;

	(void)state;
	assert_int_equal(ew_cgroup_normalize("/a/b", out, sizeof(out), &why), 0);
	assert_string_equal(out, "/a/b");
	assert_int_equal(ew_cgroup_normalize("a//b/", out, sizeof(out), &why), 0);
	assert_string_equal(out, "/a/b");
	assert_int_equal(ew_cgroup_normalize("/", out, sizeof(out), &why), 0);
	assert_string_equal(out, "/");
	assert_int_equal(ew_cgroup_normalize("///", out, sizeof(out), &why), 0);
	assert_string_equal(out, "/");
	assert_int_equal(ew_cgroup_normalize("/a/.b/..c", out, sizeof(out), &why), 0);
	assert_string_equal(out, "/a/.b/..c");
	assert_int_equal(ew_cgroup_normalize("", out, sizeof(out), &why), -EINVAL);
	assert_int_equal(ew_cgroup_normalize("/a/../b", out, sizeof(out), &why), -EINVAL);
	assert_int_equal(ew_cgroup_normalize("./a", out, sizeof(out), &why), -EINVAL);
	assert_int_equal(ew_cgroup_normalize("a/..", out, sizeof(out), &why), -EINVAL);
	longp = malloc(5000);
	memset(longp, 'a', 4999);
	longp[0] = '/';
	longp[4999] = '\0';
	assert_int_equal(ew_cgroup_normalize(longp, out, sizeof(out), &why), -EINVAL);
	longp[4095] = '\0';
	assert_int_equal(ew_cgroup_normalize(longp, out, sizeof(out), &why), 0);
	longp[4095] = 'a';
	longp[4096] = '\0';
	assert_int_equal(ew_cgroup_normalize(longp, out, sizeof(out), &why), -EINVAL);
	free(longp);
}

static void test_cgroup_resolve(void **state)
{
	char out[EASTWEST_CGROUP_PATH_MAX], in[160];
	const char *why;

	(void)state;
	snprintf(in, sizeof(in), "%s/system.slice/job_42", test_cg_root);
	assert_int_equal(ew_cgroup_resolve(in, out, sizeof(out), &why), 0);
	assert_string_equal(out, "/system.slice/job_42");
	snprintf(in, sizeof(in), "%s/system.slice/job_42/", test_cg_root);
	assert_int_equal(ew_cgroup_resolve(in, out, sizeof(out), &why), 0);
	assert_string_equal(out, "/system.slice/job_42");
	assert_int_equal(ew_cgroup_resolve(test_cg_root, out, sizeof(out), &why), 0);
	assert_string_equal(out, "/");
	assert_int_equal(ew_cgroup_resolve("/system.slice/job_42", out, sizeof(out), &why), 0);
	assert_string_equal(out, "/system.slice/job_42");
	assert_int_equal(ew_cgroup_resolve("system.slice//job_42", out, sizeof(out), &why), 0);
	assert_string_equal(out, "/system.slice/job_42");
	assert_int_equal(ew_cgroup_resolve("/missing", out, sizeof(out), &why), -ENOENT);
	assert_string_equal(why, "no such cgroup");
	assert_int_equal(ew_cgroup_resolve("/file", out, sizeof(out), &why), -ENOENT);
	snprintf(in, sizeof(in), "%s/missing", test_cg_root);
	assert_int_equal(ew_cgroup_resolve(in, out, sizeof(out), &why), -ENOENT);
	assert_int_equal(ew_cgroup_resolve("/x/../y", out, sizeof(out), &why), -EINVAL);

	ew_cgroup_set_mount(NULL);
	assert_int_equal(ew_cgroup_resolve("/x", out, sizeof(out), &why), -ENOENT);
	assert_string_equal(why, "no cgroup2 file system is mounted");
	ew_cgroup_set_mount(test_cg_root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ipv4),
		cmocka_unit_test(test_ipv4_agrees_with_inet_pton),
		cmocka_unit_test(test_ipv6),
		cmocka_unit_test(test_lid),
		cmocka_unit_test(test_invalid),
		cmocka_unit_test(test_prefix_boundaries),
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_keys_and_names),
		cmocka_unit_test(test_cgroup_normalize),
		cmocka_unit_test(test_cgroup_resolve),
	};

	return cmocka_run_group_tests_name("addr", tests, test_cgroup_setup,
					   test_cgroup_teardown);
}
