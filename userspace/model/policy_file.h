/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Policy files: the JSON document "apply" reads and "show -j" writes.
 */
#ifndef EW_POLICY_FILE_H
#define EW_POLICY_FILE_H

#include <json-c/json.h>
#include <stddef.h>

#include "model/model.h"

int ew_policy_parse(const char *text, size_t len, const char *fname,
		    struct ew_state *st, char *err, size_t errlen);
int ew_policy_parse_job(struct json_object *obj, const char *path, struct ew_job_desc *job,
			char *err, size_t errlen);
int ew_job_resolve_netdevs(struct ew_job_desc *job, size_t *bad);
int ew_policy_resolve(struct ew_state *st, const char *fname, char *err,
		      size_t errlen);

#endif /* EW_POLICY_FILE_H */
