/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The node lock: one eastwestctl at a time changes the node.
 */
#ifndef EW_LOCK_H
#define EW_LOCK_H

#define EW_LOCK_PATH "/run/eastwest/ctl.lock"
#define EW_LOCK_WAIT 30		/* seconds */

#include <stdbool.h>
#include <stddef.h>

int ew_node_lock(char *why, size_t len);
int ew_node_lock_or_say(const char *what);
void ew_node_unlock(void);
bool ew_node_locked(void);

#endif /* EW_LOCK_H */
