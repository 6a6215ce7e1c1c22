/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading an untrusted binary measurement log (imalog.c, eventlog.c): a
 * cursor that never moves past the end of the data, little-endian
 * integers, and the array of parsed entries growing without aborting (a
 * log too large for memory is refused, like any other bad log).
 */
#ifndef EWA_LOGREAD_H
#define EWA_LOGREAD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ewa_cursor {
	const uint8_t *p;
	size_t left;
};

/* The next @n bytes in *@out; -1 (and nothing taken) if fewer are left. */
static inline int ewa_take(struct ewa_cursor *c, size_t n, const uint8_t **out)
{
	if (n > c->left)
		return -1;
	*out = c->p;
	c->p += n;
	c->left -= n;
	return 0;
}

static inline uint16_t ewa_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t ewa_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline uint64_t ewa_le64(const uint8_t *p)
{
	return (uint64_t)ewa_le32(p) | (uint64_t)ewa_le32(p + 4) << 32;
}

static inline int ewa_take_u32(struct ewa_cursor *c, uint32_t *v)
{
	const uint8_t *p;

	if (ewa_take(c, 4, &p))
		return -1;
	*v = ewa_le32(p);
	return 0;
}

/*
 * Room for entry @n of a log's array of @size-byte entries with room for
 * *@cap (64 at first, then twice as many), entry @n zeroed: the array,
 * maybe moved. NULL, with the reason in @why, when the log already has
 * @max entries (@what names them) or memory runs out; the old array is
 * then still valid and owned by the caller.
 */
static inline void *ewa_log_add(void *arr, size_t n, size_t *cap, size_t size,
				unsigned int max, const char *what, char *why, size_t whylen)
{
	size_t want;
	void *v = arr;

	if (n == max) {
		snprintf(why, whylen, "more than %u %s", max, what);
		return NULL;
	}
	if (n >= *cap) {
		want = *cap ? 2 * *cap : 64;
		v = realloc(arr, want * size);
		if (!v) {
			snprintf(why, whylen, "out of memory");
			return NULL;
		}
		*cap = want;
	}
	memset((uint8_t *)v + n * size, 0, size);
	return v;
}

#endif /* EWA_LOGREAD_H */
