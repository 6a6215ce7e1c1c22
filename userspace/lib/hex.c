// SPDX-License-Identifier: GPL-2.0
/*
 * Hexadecimal digits and strings (see ewlib.h).
 */
#include <string.h>

#include "ewlib.h"

int ew_hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int ew_unhex_n(const char *s, size_t n, uint8_t *out, size_t max, size_t *len)
{
	size_t i;

	if (n % 2 || n / 2 > max)
		return -1;
	for (i = 0; i < n / 2; i++) {
		int hi = ew_hexval(s[2 * i]), lo = ew_hexval(s[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return -1;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	*len = n / 2;
	return 0;
}

int ew_unhex(const char *s, uint8_t *out, size_t max, size_t *len)
{
	return ew_unhex_n(s, strlen(s), out, max, len);
}
