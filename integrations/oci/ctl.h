/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Running eastwestctl: the hook never talks netlink itself.
 */
#ifndef EWOCI_CTL_H
#define EWOCI_CTL_H

#include "../../userspace/lib/ewlib.h"

/* eastwestctl's exit codes (eastwestctl(8), EXIT STATUS). */
#define EWCTL_FAIL	1
#define EWCTL_USAGE	2
#define EWCTL_PERM	3
#define EWCTL_NOTAVAIL	4
#define EWCTL_NOENT	5
/* Ours: it could not be run at all. */
#define EWCTL_NOT_FOUND	EW_RUN_NOT_FOUND

int ewoci_ctl_run(char *const args[], char **out);
const char *ewoci_ctl_meaning(int status);

#endif /* EWOCI_CTL_H */
