/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _EW_ADMISSION_H
#define _EW_ADMISSION_H

#include <linux/types.h>

struct ew_admission_change {
	bool has_admission, has_required, has_ttl;
	u32 admission;		/* enum eastwest_admission */
	bool required;
	u32 ttl;		/* seconds, 0: no lease */
};

void ew_admission_change(const struct ew_admission_change *chg);
u32 ew_admission_ttl_left(void);
void ew_admission_exit(void);

#endif /* _EW_ADMISSION_H */
