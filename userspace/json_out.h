/* SPDX-License-Identifier: GPL-2.0 */
/*
 * JSON output (-j): the structures of model.h as json-c objects.
 */
#ifndef EW_JSON_OUT_H
#define EW_JSON_OUT_H

#include <json-c/json.h>

#include "model.h"
#include "parse.h"

enum {
	EW_JSON_PEERS	 = 1U << 0,	/* the peer list */
	EW_JSON_COUNTS	 = 1U << 1,	/* peer_count, qp_count */
	EW_JSON_COUNTERS = 1U << 2,	/* counters */
};

struct json_object *ew_json_peer(const struct ew_peer_addr *p);
struct json_object *ew_json_netdev(const struct ew_netdev *nd);
struct json_object *ew_json_counters(const struct ew_counter_set *c);
struct json_object *ew_json_job(const struct ew_job_desc *job, unsigned int flags);
struct json_object *ew_json_config(const struct ew_config *cfg);
struct json_object *ew_json_config_status(const struct ew_config *cfg);
struct json_object *ew_json_state(const struct ew_state *st);
struct json_object *ew_json_pkey(uint16_t pkey);
struct json_object *ew_json_flags(const struct ew_names *names, uint32_t v);
const char *ew_json_string(struct json_object *o);
int ew_json_print(struct json_object *o);

#endif /* EW_JSON_OUT_H */
