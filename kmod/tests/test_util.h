/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What eastwest's KUnit suites share: the module state every suite sets up
 * and tears down, and shorthands for requests.
 */
#ifndef _EW_TEST_UTIL_H
#define _EW_TEST_UTIL_H

#include <kunit/test.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>

#include "config.h"
#include "job.h"
#include "nodes.h"
#include "peers.h"

/* An IPv4 address as an IPv4-mapped GID. */
#define V4(a, b, c, d) { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, a, b, c, d }

/* A RoCE path to @gid from the netdev @ifidx (VLAN @vl, 0: none). */
#define PATH_GID(gid, ifidx, vl) { .has_grh = true, .dgid = gid, \
	.has_src = true, .src = { .ifindex = ifidx, .vlan = vl } }
#define MODIFY(...) { .op = EASTWEST_OP_MODIFY_QP, __VA_ARGS__ }

/* The module's tables, as module init creates them. */
static inline int ew_suite_init(struct kunit_suite *suite)
{
	int ret = ew_config_init();

	if (ret)
		return ret;
	ret = ew_peers_init();
	if (ret)
		ew_config_exit();
	return ret;
}

/* Everything a suite left behind, freed as module exit frees it. */
static inline void ew_suite_exit(struct kunit_suite *suite)
{
	mutex_lock(&ew_config_lock);
	ew_jobs_flush();
	mutex_unlock(&ew_config_lock);
	rcu_barrier();
	ew_nodes_exit();
	ew_peers_exit();
	ew_config_exit();
}

#endif /* _EW_TEST_UTIL_H */
