// SPDX-License-Identifier: GPL-2.0
/*
 * This node's admission: the state the attestation service sets from the
 * verifier's verdict, whether it is required, and its lease.
 *
 * An admission may carry a lease (admission-ttl): unless the service renews
 * it, it lapses to revoked. The service re-attests every interval and renews
 * on every admit, so a service that dies, hangs or loses its verifier closes
 * the fabric by itself instead of leaving the last verdict in force.
 *
 * Closing the gate (required and not admitted, after being open) revokes
 * every tracked QP; every change of state or requirement is logged and
 * announced with admission-ntf.
 */

#include <linux/jiffies.h>
#include <linux/minmax.h>
#include <linux/workqueue.h>

#include "admission.h"
#include "config.h"
#include "events.h"
#include "qptrack.h"

/* The longest lease: a week (ttl is in seconds). */
#define EW_LEASE_MAX_SECS	(7 * 24 * 3600U)

/* Under ew_config_lock: when the lease ends (jiffies), if one is armed. */
static unsigned long ew_lease_end;
static bool ew_lease_armed;
static void ew_lease_expired(struct work_struct *work);
static DECLARE_DELAYED_WORK(ew_lease_work, ew_lease_expired);

static const char *const ew_admission_names[] = {
	[EASTWEST_ADMISSION_UNATTESTED] = "unattested",
	[EASTWEST_ADMISSION_ADMITTED] = "admitted",
	[EASTWEST_ADMISSION_REVOKED] = "revoked",
};

/* Apply a change; returns how many QPs a closing gate revoked. */
static unsigned int ew_admission_apply(const struct ew_admission_change *chg,
				       struct ew_global *before,
				       struct ew_global *after)
{
	lockdep_assert_held(&ew_config_lock);
	ew_global_snapshot(before);
	if (chg->has_admission)
		WRITE_ONCE(ew_global.admission, chg->admission);
	if (chg->has_required)
		WRITE_ONCE(ew_global.admission_required, chg->required);
	ew_global_snapshot(after);

	/* A lease only lives with an admission; any other state ends it. */
	if (after->admission != EASTWEST_ADMISSION_ADMITTED ||
	    (chg->has_admission && !(chg->has_ttl && chg->ttl))) {
		ew_lease_armed = false;
		cancel_delayed_work(&ew_lease_work);
	}
	if (after->admission == EASTWEST_ADMISSION_ADMITTED &&
	    chg->has_ttl && chg->ttl) {
		unsigned long len = msecs_to_jiffies(min(chg->ttl, EW_LEASE_MAX_SECS) *
						     MSEC_PER_SEC);

		ew_lease_end = jiffies + len;
		ew_lease_armed = true;
		mod_delayed_work(system_wq, &ew_lease_work, len);
	}

	if (ew_admission_closed(after) && !ew_admission_closed(before))
		return ew_qp_revalidate_all();
	return 0;
}

static void ew_admission_report(const struct ew_global *before,
				const struct ew_global *after,
				unsigned int revoked, const char *why)
{
	if (before->admission == after->admission &&
	    before->admission_required == after->admission_required)
		return;
	pr_info("node %s%s, admission %s%s\n", ew_admission_names[after->admission],
		why, after->admission_required ? "required" : "not required",
		ew_admission_closed(after) ? ": fabric closed to jobs" : "");
	if (revoked)
		pr_info("%u QP(s) revoked: node not admitted\n", revoked);
	ew_event_admission(after->admission, after->admission_required);
}

/**
 * ew_admission_change() - set this node's admission, requirement or lease
 * @chg: what to change
 *
 * Context: process context, sleeps; takes ew_config_lock.
 */
void ew_admission_change(const struct ew_admission_change *chg)
{
	struct ew_global before, after;
	unsigned int revoked;

	mutex_lock(&ew_config_lock);
	revoked = ew_admission_apply(chg, &before, &after);
	mutex_unlock(&ew_config_lock);
	ew_admission_report(&before, &after, revoked, "");
}

static void ew_lease_expired(struct work_struct *work)
{
	struct ew_admission_change chg = {
		.has_admission = true,
		.admission = EASTWEST_ADMISSION_REVOKED,
	};
	struct ew_global before, after;
	unsigned int revoked = 0;
	bool lapsed = false;

	mutex_lock(&ew_config_lock);
	/* Renewed or ended meanwhile: nothing to do. */
	if (ew_lease_armed && time_after_eq(jiffies, ew_lease_end)) {
		revoked = ew_admission_apply(&chg, &before, &after);
		lapsed = true;
	}
	mutex_unlock(&ew_config_lock);
	if (lapsed)
		ew_admission_report(&before, &after, revoked,
				    " (admission lease lapsed: not renewed)");
}

/**
 * ew_admission_ttl_left() - seconds left of the admission lease, 0 if none
 */
u32 ew_admission_ttl_left(void)
{
	u32 left = 0;

	mutex_lock(&ew_config_lock);
	if (ew_lease_armed && time_before(jiffies, ew_lease_end))
		left = DIV_ROUND_UP(jiffies_to_msecs(ew_lease_end - jiffies), 1000);
	mutex_unlock(&ew_config_lock);
	return left;
}

/**
 * ew_admission_exit() - stop the lease timer; no netlink request may remain
 */
void ew_admission_exit(void)
{
	cancel_delayed_work_sync(&ew_lease_work);
}
