// SPDX-License-Identifier: GPL-2.0
/*
 * Numbers are decimal or 0x-prefixed hexadecimal, nothing else: no sign, no
 * spaces, no octal (so "010" is ten, not eight).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "ewctl.h"
#include "model/parse.h"

/* Not an enum of the spec: the spelling of u8 flags such as ud and dc. */
static const char *const on_off_names[] = { "off", "on" };

const struct ew_names ew_on_off_names = { on_off_names, EW_ARRAY_SIZE(on_off_names) };

static int digit(char c, unsigned int base)
{
	int d = ew_hexval(c);

	return d >= 0 && (unsigned int)d < base ? d : -1;
}

/**
 * ew_parse_hex() - exactly 2 * @len hexadecimal digits into @len bytes
 * @s: the digits (no prefix, no separators)
 * @out: the bytes; left unspecified on failure
 * @len: their number
 *
 * Return: 0, or -1 if @s is not exactly that.
 */
int ew_parse_hex(const char *s, uint8_t *out, size_t len)
{
	size_t n;

	return ew_unhex(s, out, len, &n) || n != len ? -1 : 0;
}

/**
 * ew_parse_u64() - parse a decimal or 0x-hexadecimal number
 * @s: the text
 * @min: smallest accepted value
 * @max: largest accepted value
 * @out: the value
 *
 * Return: 0, -EINVAL if @s is not a number, -ERANGE if it is out of range.
 */
int ew_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned int base = 10;
	bool range = false;
	uint64_t v = 0;
	int d;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		d = digit(*s, base);
		if (d < 0)
			return -EINVAL;
		if (v > (UINT64_MAX - (uint64_t)d) / base)
			range = true;
		else
			v = v * base + (uint64_t)d;
	}
	if (range || v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int ew_parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *out)
{
	uint64_t v;
	int ret;

	ret = ew_parse_u64(s, min, max, &v);
	if (!ret)
		*out = (uint32_t)v;
	return ret;
}

int ew_enum_parse(const struct ew_names *names, const char *s, uint32_t *out)
{
	size_t i;

	for (i = 0; i < names->n; i++) {
		if (names->names[i] && !strcmp(names->names[i], s)) {
			*out = (uint32_t)i;
			return 0;
		}
	}
	return -EINVAL;
}

/* Values from a newer kernel have no name: they print as "unknown". */
const char *ew_enum_name(const struct ew_names *names, uint32_t v)
{
	if (v < names->n && names->names[v])
		return names->names[v];
	return "unknown";
}

/* "a|b|c", for messages. */
char *ew_enum_list(const struct ew_names *names, char *buf, size_t len)
{
	size_t i, off = 0;

	buf[0] = '\0';
	for (i = 0; i < names->n && off < len; i++) {
		if (!names->names[i])
			continue;
		off += (size_t)snprintf(buf + off, len - off, "%s%s",
					off ? "|" : "", names->names[i]);
	}
	return buf;
}

/* "a,b" for the bits of @v named in @names (bit i: names[i]); "none" if 0. */
char *ew_flags_str(const struct ew_names *names, uint32_t v, char *buf, size_t len)
{
	size_t i, off = 0;

	buf[0] = '\0';
	for (i = 0; i < 32 && off < len; i++) {
		if (!(v & (1U << i)))
			continue;
		if (i < names->n && names->names[i])
			off += (size_t)snprintf(buf + off, len - off, "%s%s",
						off ? "," : "", names->names[i]);
		else
			off += (size_t)snprintf(buf + off, len - off, "%sbit%zu",
						off ? "," : "", i);
	}
	if (!off)
		snprintf(buf, len, "none");
	return buf;
}

/**
 * ew_name_check() - check a job name
 * @s: the name
 * @why: what is wrong with it, on failure
 *
 * Job names are 1..63 characters from [A-Za-z0-9_.:@+=-], not starting with
 * '-' (it would read as an option), and not "id" (it would read as the "id N"
 * job reference).
 *
 * Return: 0 or -EINVAL.
 */
int ew_name_check(const char *s, const char **why)
{
	const char *p;

	if (!*s) {
		*why = "the name is empty";
		return -EINVAL;
	}
	if (strlen(s) > EW_NAME_MAX) {
		*why = "the name is longer than 63 characters";
		return -EINVAL;
	}
	if (s[0] == '-') {
		*why = "the name must not start with '-'";
		return -EINVAL;
	}
	if (!strcmp(s, "id")) {
		*why = "\"id\" is reserved";
		return -EINVAL;
	}
	for (p = s; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("_.:@+=-", *p))
			continue;
		*why = "names may only contain letters, digits and _ . : @ + = -";
		return -EINVAL;
	}
	return 0;
}

/* A P_Key's low 15 bits name the partition; partition 0 is invalid. */
bool ew_pkey_valid(uint32_t v)
{
	return v <= 0xffff && (v & 0x7fff);
}

int ew_parse_pkey(const char *s, uint16_t *out, const char **why)
{
	uint32_t v;

	if (ew_parse_u32(s, 0, 0xffff, &v)) {
		*why = "a P_Key is a number 0x0001..0xffff";
		return -EINVAL;
	}
	if (!ew_pkey_valid(v)) {
		*why = "partition 0 (0x0000, 0x8000) is invalid";
		return -EINVAL;
	}
	*out = (uint16_t)v;
	return 0;
}

int ew_parse_qkey(const char *s, uint32_t *out, const char **why)
{
	uint32_t v;
	int ret;

	ret = ew_parse_u32(s, 0, UINT32_MAX, &v);
	if (ret) {
		*why = ret == -ERANGE ? "a Q_Key is a 32-bit number" :
					"a Q_Key is a number or \"auto\"";
		return -EINVAL;
	}
	if (v > EW_QKEY_MAX) {
		*why = "Q_Keys with bit 31 set are privileged and refused";
		return -ERANGE;
	}
	*out = v;
	return 0;
}

/* A random non-zero Q_Key with bit 31 clear (non-privileged). */
uint32_t ew_random_qkey(void)
{
	uint32_t v = 0;

	while (!v) {
		if (getrandom(&v, sizeof(v), 0) != (ssize_t)sizeof(v)) {
			if (errno == EINTR)
				continue;
			ew_err("getrandom: %s", strerror(errno));
			exit(EW_FAIL);
		}
		v &= EW_QKEY_MAX;
	}
	return v;
}
