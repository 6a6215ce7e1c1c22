/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Attribute names of the eastwest requests, to name the attribute an
 * extack offset points at.
 */
#ifndef EW_NLNAMES_H
#define EW_NLNAMES_H

#include <stdbool.h>
#include <stdint.h>

struct ew_attr_set;

struct ew_attr_desc {
	const char *name;
	const struct ew_attr_set *nested;
	bool multi;
};

struct ew_attr_set {
	unsigned int max;
	const struct ew_attr_desc *attrs;
};

const struct ew_attr_set *ew_cmd_attr_set(uint8_t cmd);
const char *ew_attr_name(const struct ew_attr_set *set, unsigned int type);

#endif /* EW_NLNAMES_H */
