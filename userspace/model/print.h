/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The structures of model.h through output.h: text in the command line's
 * own words, or JSON. A node's "show -j" is a valid policy file (see
 * policy_file.c), so the JSON is what policy_file.c reads.
 */
#ifndef EW_PRINT_H
#define EW_PRINT_H

#include <stdbool.h>

#include "model/model.h"

void ew_print_peers(const char *fmt, const struct ew_peers *peers);
void ew_print_job_setting(const struct ew_job_desc *job, uint32_t bit);
void ew_print_job(const char *key, const struct ew_job_desc *job, bool peers);
void ew_print_job_counts(const struct ew_job_desc *job);
void ew_print_config(const char *key, const struct ew_config *cfg, bool status);
void ew_print_counters(const char *key, const struct ew_counter_set *c);
void ew_print_dev(const struct ew_dev_desc *dev);
void ew_print_state(const struct ew_state *st);

#endif /* EW_PRINT_H */
