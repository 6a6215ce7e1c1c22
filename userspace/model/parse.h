/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Parsing and naming of scalars: numbers, enum keywords, job names,
 * P_Keys and Q_Keys.
 */
#ifndef EW_PARSE_H
#define EW_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/eastwest.h>

/* Longest job name: the attribute holds EASTWEST_JOB_NAME_MAX with its NUL. */
#define EW_NAME_MAX		(EASTWEST_JOB_NAME_MAX - 1)
#define EW_QKEY_MAX		0x7fffffffU
#define EW_VLAN_MIN		1
#define EW_VLAN_MAX		4094

struct ew_names {
	const char *const *names;
	size_t n;
};

/* The enums and flag sets of the spec (generated), and on/off. */
#include "model/names-gen.h"

extern const struct ew_names ew_on_off_names;

int ew_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);
int ew_parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *out);
int ew_parse_hex(const char *s, uint8_t *out, size_t len);
int ew_enum_parse(const struct ew_names *names, const char *s, uint32_t *out);
const char *ew_enum_name(const struct ew_names *names, uint32_t v);
char *ew_enum_list(const struct ew_names *names, char *buf, size_t len);
char *ew_flags_str(const struct ew_names *names, uint32_t v, char *buf, size_t len);

int ew_name_check(const char *s, const char **why);
int ew_parse_pkey(const char *s, uint16_t *out, const char **why);
bool ew_pkey_valid(uint32_t v);
int ew_parse_qkey(const char *s, uint32_t *out, const char **why);
uint32_t ew_random_qkey(void);

#endif /* EW_PARSE_H */
