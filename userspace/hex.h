/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One hexadecimal digit's value, for every binary (eastwestctl, the
 * verifier, the tests): a header because the verifier links no libew.
 */
#ifndef EW_HEX_H
#define EW_HEX_H

/* The value of hexadecimal digit @c, or -1. */
static inline int ew_hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

#endif /* EW_HEX_H */
