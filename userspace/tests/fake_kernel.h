/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A user-space stand-in for the eastwest module, behind libmnl's socket
 * calls (defined by the test binary, so they take the place of libmnl's).
 */
#ifndef EW_FAKE_KERNEL_H
#define EW_FAKE_KERNEL_H

#include <stdbool.h>

#include "model/model.h"

struct fake {
	bool present;		/* the family exists */
	bool eperm;		/* admin ops fail with EPERM */
	int dump_intr;		/* flag this many dumps NLM_F_DUMP_INTR */
	int fail_cmd;		/* refuse this command with EINVAL */
	int fail_change;	/* refuse the Nth change (from 1), once */
	int fail_errno;		/* with this errno (0: EINVAL) */
	int gone_change;	/* when the Nth change arrives, first delete */
	uint32_t gone_id;	/* this job (another program's job del) */
	int changes;		/* changes asked for (refused ones too) */
	int signal_change;	/* raise SIGTERM when the Nth change arrives */
	int events;		/* deny-ntf events sent on subscription */
	bool unload;		/* then a CTRL_CMD_DELFAMILY */
	bool sigterm;		/* raise SIGTERM when the events are read */
	bool full;		/* also the optional attributes and every kind of event */
	unsigned int slept;	/* seconds sleep() was asked for */
	int msgs[EASTWEST_CMD_MAX + 1];	/* requests per command */
	size_t max_peers;	/* most peers seen in one message */
	struct ew_state st;
	uint32_t next_id;
};

extern struct fake fake;

void fake_reset(void);

#endif /* EW_FAKE_KERNEL_H */
