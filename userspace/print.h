/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Human-readable output: "keyword value" pairs, as the command line takes
 * them, one object per line and its lists indented below it.
 */
#ifndef EW_PRINT_H
#define EW_PRINT_H

#include <stdbool.h>

#include "model.h"

char *ew_netdev_str(const struct ew_netdev *nd, char *buf, size_t len);
void ew_print_job(const struct ew_job_desc *job, bool peers);
void ew_print_config(const struct ew_config *cfg);
void ew_print_counters(const struct ew_counter_set *c);
void ew_print_dev(const struct ew_dev_desc *dev);

#endif /* EW_PRINT_H */
