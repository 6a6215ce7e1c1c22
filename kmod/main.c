// SPDX-License-Identifier: GPL-2.0
/*
 * eastwest: per-job isolation of the RDMA control path.
 *
 * Module init/exit only: subsystems come up in dependency order (state,
 * then the device registry, then the control plane, then the hooks that
 * enforce) and go down in reverse, with error labels named for what they
 * undo. The hooks go last so that nothing is enforced against a policy
 * store that does not exist yet.
 *
 * In the fault-injection build (fault.h) every step may fail before it
 * runs, as if its first allocation had failed: a test walks fault_nth over
 * the steps and checks that each failed load leaves nothing behind.
 */

#include <linux/module.h>
#include <net/genetlink.h>

#include "admission.h"
#include "config.h"
#include "events.h"
#include "fault.h"
#include "hooks.h"
#include "job.h"
#include "netlink.h"
#include "nodes.h"
#include "peers.h"
#include "protect.h"
#include "qpnrand.h"
#include "qptrack.h"
#include "registry.h"

/*
 * Drop what requests created: jobs (with their bindings, policies and
 * peers) and the other nodes' admission. Requests come in as soon as the
 * family is registered, also while a later init step is still to fail.
 */
static void ew_requests_undo(void)
{
	mutex_lock(&ew_config_lock);
	ew_jobs_flush();
	ew_jobs_pin_update();
	mutex_unlock(&ew_config_lock);
	/* Jobs, bindings and policies are freed by RCU callbacks. */
	rcu_barrier();
	ew_nodes_exit();
}

static int __init ew_init(void)
{
	int ret;

	ret = EW_FAIL_CALL(ew_config_init());
	if (ret)
		return ret;
	ret = EW_FAIL_CALL(ew_peers_init());
	if (ret)
		goto err_config;
	ret = EW_FAIL_CALL(ew_qptrack_init());
	if (ret)
		goto err_peers;
	ret = EW_FAIL_CALL(ew_registry_init());
	if (ret)
		goto err_qptrack;
	ret = EW_FAIL_CALL(ew_protect_init());
	if (ret)
		goto err_registry;
	ret = EW_FAIL_CALL(ew_netlink_init());
	if (ret)
		goto err_protect;
	ret = EW_FAIL_CALL(ew_events_init(&ew_genl_family));
	if (ret)
		goto err_netlink;
	ret = EW_FAIL_CALL(ew_hooks_init());
	if (ret)
		goto err_events;
	/* Never fails: without it soft-RoCE QPNs stay sequential (dev show). */
	ew_qpnrand_init();

	pr_info("version %s loaded: mode %s, default action %s\n", EW_VERSION,
		ew_global.mode == EASTWEST_MODE_AUDIT ? "audit" : "enforce",
		ew_global.default_action == EASTWEST_DEFAULT_ACTION_ALLOW ?
		"allow" : "deny");
	return 0;

err_events:
	ew_events_exit();
err_netlink:
	ew_netlink_exit();
	ew_admission_exit();
	ew_requests_undo();
err_protect:
	ew_protect_exit();
err_registry:
	ew_registry_exit();
err_qptrack:
	ew_qptrack_exit();
err_peers:
	ew_peers_exit();
err_config:
	ew_config_exit();
	return ret;
}

/*
 * First what changes other modules' allocations (soft-RoCE QPN
 * randomisation), then whatever could revoke: requests (netlink; unregistering waits for
 * handlers in flight), the admission lease timer, the protection worker,
 * then revokers themselves (a device event may still ask), so that none
 * outlives the destroy hook. Then no more decisions (hooks), no more
 * events, no more devices, and last the QP records, the jobs and their
 * peers: the hooks judge against a policy store that still exists.
 */
static void __exit ew_exit(void)
{
	ew_qpnrand_exit();
	ew_netlink_exit();
	ew_admission_exit();
	ew_protect_exit();
	ew_qptrack_stop();
	ew_hooks_exit();
	ew_events_exit();
	ew_registry_exit();
	ew_qptrack_exit();
	ew_requests_undo();
	ew_peers_exit();
	ew_config_exit();
	pr_info("unloaded\n");
}

module_init(ew_init);
module_exit(ew_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("eastwest developers");
MODULE_DESCRIPTION("Per-job isolation of the RDMA control path");
MODULE_VERSION(EW_VERSION);
MODULE_ALIAS_GENL_FAMILY(EASTWEST_FAMILY_NAME);
