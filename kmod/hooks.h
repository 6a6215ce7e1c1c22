/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _EW_HOOKS_H
#define _EW_HOOKS_H

struct ib_device;
struct ew_request;

int ew_request_refresh(struct ib_device *dev, struct ew_request *req);
int ew_hooks_init(void);
void ew_hooks_exit(void);

#endif /* _EW_HOOKS_H */
