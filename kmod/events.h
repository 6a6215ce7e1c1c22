/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _EW_EVENTS_H
#define _EW_EVENTS_H

#include <linux/sched.h>
#include <linux/types.h>
#include <rdma/ib_verbs.h>

struct genl_family;

/*
 * A denial (or audited violation), a revocation, a device change or an
 * admission change,
 * captured where it happens, sent later. @cmd: EASTWEST_CMD_*_NTF.
 */
struct ew_event {
	u32 cmd;
	u32 dev_index;
	u32 op;
	u32 reason;
	u32 mode;
	u32 job_id;	/* 0: no job */
	u32 pid;
	u32 uid;	/* real uid, in the initial user namespace */
	char comm[TASK_COMM_LEN];
	u64 cgroup_id;
	char dev_name[IB_DEVICE_NAME_MAX];
	u32 port;
	u32 qpn;
	bool has_qpn, has_dgid, has_dlid, has_dest_qpn;
	u8 dgid[16];
	u16 dlid;
	u32 dest_qpn;
	/* EASTWEST_CMD_ADMISSION_NTF */
	u32 admission;
	bool admission_required;
	/* Set in the ring: the source's entry (-1: none), whether to log. */
	s8 source;
	bool log;
	u32 unlogged;	/* the source's denials not logged before this one */
};

bool ew_event_report(const struct ew_event *ev);
void ew_event_report_wait(const struct ew_event *ev);
const char *ew_reason_name(u32 reason);
void ew_event_dev(u32 cmd, struct ib_device *ibdev);
void ew_event_admission(u32 admission, bool required);
int ew_events_init(const struct genl_family *family);
void ew_events_exit(void);

#endif /* _EW_EVENTS_H */
