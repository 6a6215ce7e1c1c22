// SPDX-License-Identifier: GPL-2.0
/*
 * Names of the request attributes, to name the attribute an extack offset
 * points at. The tables (nlnames-gen.c) are generated from
 * Documentation/netlink/specs/eastwest.yaml by scripts/ynl-regen.
 */
#include <stddef.h>

#include "io/nlnames.h"

const char *ew_attr_name(const struct ew_attr_set *set, unsigned int type)
{
	if (set && type <= set->max && set->attrs[type].name)
		return set->attrs[type].name;
	return NULL;
}
