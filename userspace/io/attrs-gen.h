/* SPDX-License-Identifier: GPL-2.0 */
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/eastwest.yaml */
/* by scripts/ynl-gen-eastwest.py (attribute parsers) */

#ifndef EW_IO_ATTRS_GEN_H
#define EW_IO_ATTRS_GEN_H

#include <libmnl/libmnl.h>

#include "model/attrs-gen.h"

/*
 * ew_<set>_attr_parse() - one attribute of a reply (or nest) of <set>
 *
 * A scalar attribute of struct ew_<set>_attrs of the right type and size
 * is stored in @o and its bit, EW_ATTR_BIT(type), set in @present.
 *
 * Return: 1 if @a was stored; 0 if it is no member of @o (a list, a nest,
 * an attribute the tool does not know), for the caller; -1 if it is one
 * but malformed.
 */
int ew_cgroup_attr_parse(struct ew_cgroup_attrs *o, uint32_t *present,
			 const struct nlattr *a);
int ew_job_attr_parse(struct ew_job_attrs *o, uint32_t *present,
		      const struct nlattr *a);
int ew_config_attr_parse(struct ew_config_attrs *o, uint32_t *present,
			 const struct nlattr *a);
int ew_dev_attr_parse(struct ew_dev_attrs *o, uint32_t *present,
		      const struct nlattr *a);
int ew_port_attr_parse(struct ew_port_attrs *o, uint32_t *present,
		       const struct nlattr *a);
int ew_gid_attr_parse(struct ew_gid_attrs *o, uint32_t *present,
		      const struct nlattr *a);
int ew_path_attr_parse(struct ew_path_attrs *o, uint32_t *present,
		       const struct nlattr *a);

#endif /* EW_IO_ATTRS_GEN_H */
