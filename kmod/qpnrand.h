/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _EW_QPNRAND_H
#define _EW_QPNRAND_H

#include <rdma/ib_verbs.h>

void ew_qpnrand_init(void);
void ew_qpnrand_exit(void);
void ew_qpnrand_dev_add(struct ib_device *ibdev);
u32 ew_qpnrand_dev_order(struct ib_device *ibdev);

#endif /* _EW_QPNRAND_H */
