/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _EW_HOOKS_H
#define _EW_HOOKS_H

int ew_hooks_init(void);
void ew_hooks_exit(void);

#endif /* _EW_HOOKS_H */
