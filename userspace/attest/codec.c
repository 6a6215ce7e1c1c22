// SPDX-License-Identifier: GPL-2.0
/*
 * Hex, base64 (RFC 4648, strict), SHA-256 and UTC timestamps. Evidence,
 * enrollment and manifest files carry binary TPM structures as base64
 * inside JSON.
 */
#include <string.h>
#include <time.h>

#include <openssl/evp.h>

#include "ewa.h"

char *ewa_hex(const uint8_t *p, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = digits[p[i] >> 4];
		out[2 * i + 1] = digits[p[i] & 15];
	}
	out[2 * n] = '\0';
	return out;
}

char *ewa_hex_dup(const uint8_t *p, size_t n)
{
	return ewa_hex(p, n, ew_malloc(2 * n + 1));
}

static const char b64[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *ewa_base64(const uint8_t *p, size_t n)
{
	char *out = ew_malloc((n + 2) / 3 * 4 + 1), *o = out;
	size_t i;

	for (i = 0; i + 2 < n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];

		*o++ = b64[v >> 18];
		*o++ = b64[(v >> 12) & 63];
		*o++ = b64[(v >> 6) & 63];
		*o++ = b64[v & 63];
	}
	if (i < n) {
		uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0);

		*o++ = b64[v >> 18];
		*o++ = b64[(v >> 12) & 63];
		*o++ = i + 1 < n ? b64[(v >> 6) & 63] : '=';
		*o++ = '=';
	}
	*o = '\0';
	return out;
}

/* A table, not strchr(): IMA logs in evidence run to megabytes. */
static int b64val(char c)
{
	static signed char table[256];
	static bool ready;
	int i;

	if (!ready) {
		memset(table, -1, sizeof(table));
		for (i = 0; i < 64; i++)
			table[(unsigned char)b64[i]] = (signed char)i;
		ready = true;
	}
	return table[(unsigned char)c];
}

int ewa_unbase64(const char *s, uint8_t **out, size_t *len)
{
	size_t n = strlen(s), i, o = 0;
	uint8_t *buf;

	if (n % 4)
		return -1;
	buf = ew_malloc(n / 4 * 3 + 1);
	for (i = 0; i < n; i += 4) {
		int a = b64val(s[i]), b = b64val(s[i + 1]);
		int c = b64val(s[i + 2]), d = b64val(s[i + 3]);
		bool last = i + 4 == n;

		if (a < 0 || b < 0)
			goto bad;
		if (c < 0 && !(last && s[i + 2] == '=' && s[i + 3] == '='))
			goto bad;
		if (d < 0 && !(last && s[i + 3] == '='))
			goto bad;
		buf[o++] = (uint8_t)(a << 2 | b >> 4);
		if (c >= 0)
			buf[o++] = (uint8_t)((b & 15) << 4 | c >> 2);
		if (c >= 0 && d >= 0)
			buf[o++] = (uint8_t)((c & 3) << 6 | d);
	}
	*out = buf;
	*len = o;
	return 0;
bad:
	free(buf);
	return -1;
}

/*
 * The replays hash every log entry twice: fetch SHA-256 once, not on every
 * call (OpenSSL 3's implicit fetch is a locked lookup). Single-threaded tools.
 */
void ewa_sha256(const void *p, size_t n, uint8_t out[EWA_SHA256_LEN])
{
	static EVP_MD *sha256;
	unsigned int len = EWA_SHA256_LEN;

	if (!sha256)
		sha256 = EVP_MD_fetch(NULL, "SHA256", NULL);
	if (!sha256 || !EVP_Digest(p, n, out, &len, sha256, NULL))
		memset(out, 0, EWA_SHA256_LEN);
}

void ewa_utc_now(char *out, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(out, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}
