/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _EW_NLREADER_H
#define _EW_NLREADER_H

#include <linux/types.h>

struct cgroup;
struct file;

/**
 * struct ew_nl_reader - the RDMA netlink socket a task's system call works on
 * @file: the socket's file, held until ew_nl_reader_put()
 * @cgrp: the cgroup the socket was made in (valid while @file is held)
 *
 * Whether it was opened with a capability: file_ns_capable() on @file.
 */
struct ew_nl_reader {
	struct file *file;
	struct cgroup *cgrp;
};

/* sendfile() and splice() work on two. */
#define EW_NL_READERS_MAX	2

unsigned int ew_nl_readers_get(struct ew_nl_reader r[EW_NL_READERS_MAX]);
void ew_nl_reader_put(struct ew_nl_reader *r);

#endif /* _EW_NLREADER_H */
