// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the peer address parser. Whatever it accepts must
 * print and parse back to the same peer (the round trip "show -j" and
 * "apply" rely on).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ewctl.h"
#include "model/addr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char buf[EW_PEER_STRLEN];
	struct ew_peer_addr p, q;
	const char *why;
	char *s;

	if (size > 256)
		return 0;
	s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if (!ew_peer_parse(s, &p, &why)) {
		ew_peer_format(&p, buf, sizeof(buf));
		if (ew_peer_parse(buf, &q, &why) || ew_peer_cmp(&p, &q))
			abort();
	}
	free(s);
	return 0;
}
