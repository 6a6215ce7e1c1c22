// SPDX-License-Identifier: GPL-2.0
/*
 * Allocation-failure injection, only in the EW_FAULT_INJECT=1 build (see
 * fault.h). Two module parameters, root-only:
 *
 *   fault_nth       write N > 0: the Nth injection point reached from now
 *                   fails, once; 0 disarms. Reads the calls still to go.
 *                   Given to insmod, it is set before ew_init() runs, so
 *                   N counts from the first point of the module's init.
 *   fault_injected  how many failures were injected since load.
 *   fault_modify_delay_ms
 *                   write MS > 0: every allowed modify that sets an address
 *                   vector sleeps MS milliseconds between its decision and
 *                   the driver's modify (ew_fault_delay()), so that a test
 *                   can land a narrowing policy change inside that window.
 *   fault_modify_held
 *                   how many modifies are sleeping there right now.
 *   fault_sweep_delay_ms, fault_sweep_held
 *                   likewise for the sweep of connected QPs without
 *                   records (ew_fault_sweep_delay()): it sleeps with the
 *                   QP's modify lock held, after it found the QP connected
 *                   and before it moves it to the error state, so that a
 *                   test can show the owner's modifies wait for it.
 *   fault_destroy_delay_ms, fault_destroy_held
 *                   likewise for a user QP's destroy (ew_fault_destroy_delay()):
 *                   it sleeps with the QP's modify lock held, after the core
 *                   freed the QP and before its record is dropped, so that a
 *                   test can land a revocation pass in that window.
 *   fault_rebuild_delay_ms, fault_rebuild_held
 *                   likewise for the rebuild of the source tables after a
 *                   netdev event made them stale (ew_fault_rebuild_delay()),
 *                   so that a test can send events while they are stale.
 *
 * A test walks N = 1, 2, ... over one operation: each run fails at the next
 * site on its path, until an N larger than the path leaves the countdown
 * armed and the operation succeeds.
 */

#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/sysfs.h>

#include "fault.h"

static atomic_t ew_fault_countdown = ATOMIC_INIT(0);
static atomic_t ew_fault_injected = ATOMIC_INIT(0);

static int ew_fault_nth_set(const char *val, const struct kernel_param *kp)
{
	unsigned int n;
	int ret;

	ret = kstrtouint(val, 0, &n);
	if (ret)
		return ret;
	if (n > INT_MAX)
		return -ERANGE;
	atomic_set(&ew_fault_countdown, n);
	return 0;
}

static int ew_fault_nth_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&ew_fault_countdown));
}

static const struct kernel_param_ops ew_fault_nth_ops = {
	.set = ew_fault_nth_set,
	.get = ew_fault_nth_get,
};
module_param_cb(fault_nth, &ew_fault_nth_ops, NULL, 0600);
MODULE_PARM_DESC(fault_nth, "fail the Nth allocation point from now (test build only)");

static int ew_fault_injected_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&ew_fault_injected));
}

static const struct kernel_param_ops ew_fault_injected_ops = {
	.get = ew_fault_injected_get,
};
module_param_cb(fault_injected, &ew_fault_injected_ops, NULL, 0400);
MODULE_PARM_DESC(fault_injected, "failures injected since load (test build only)");

/*
 * A hold point: a test sets how long the code sleeps there (0: not at all)
 * and reads how many calls are sleeping there now.
 */
struct ew_fault_hold {
	unsigned int ms;
	atomic_t held;
};

static struct ew_fault_hold ew_fault_modify_hold;
static struct ew_fault_hold ew_fault_sweep_hold;
static struct ew_fault_hold ew_fault_destroy_hold;
static struct ew_fault_hold ew_fault_rebuild_hold;

static int ew_fault_held_get(char *buf, const struct kernel_param *kp)
{
	const struct ew_fault_hold *hold = kp->arg;

	return sysfs_emit(buf, "%d\n", atomic_read(&hold->held));
}

static const struct kernel_param_ops ew_fault_held_ops = {
	.get = ew_fault_held_get,
};

/* How long each hold point sleeps (ms, 0: not at all)... */
module_param_named(fault_modify_delay_ms, ew_fault_modify_hold.ms, uint, 0600);
MODULE_PARM_DESC(fault_modify_delay_ms,
		 "sleep between a modify's decision and its commit (test build only)");
module_param_named(fault_sweep_delay_ms, ew_fault_sweep_hold.ms, uint, 0600);
MODULE_PARM_DESC(fault_sweep_delay_ms,
		 "sleep in the sweep of QPs without records, under the QP's modify lock (test build only)");
module_param_named(fault_destroy_delay_ms, ew_fault_destroy_hold.ms, uint, 0600);
MODULE_PARM_DESC(fault_destroy_delay_ms,
		 "sleep after a QP's destroy, before its record goes (test build only)");
module_param_named(fault_rebuild_delay_ms, ew_fault_rebuild_hold.ms, uint, 0600);
MODULE_PARM_DESC(fault_rebuild_delay_ms,
		 "sleep before the stale source tables are rebuilt (test build only)");

/* ...and how many calls sleep there now. */
module_param_cb(fault_modify_held, &ew_fault_held_ops, &ew_fault_modify_hold, 0400);
MODULE_PARM_DESC(fault_modify_held, "modifies held by fault_modify_delay_ms now (test build only)");
module_param_cb(fault_sweep_held, &ew_fault_held_ops, &ew_fault_sweep_hold, 0400);
MODULE_PARM_DESC(fault_sweep_held, "sweeps held by fault_sweep_delay_ms now (test build only)");
module_param_cb(fault_destroy_held, &ew_fault_held_ops, &ew_fault_destroy_hold, 0400);
MODULE_PARM_DESC(fault_destroy_held, "destroys held by fault_destroy_delay_ms now (test build only)");
module_param_cb(fault_rebuild_held, &ew_fault_held_ops, &ew_fault_rebuild_hold, 0400);
MODULE_PARM_DESC(fault_rebuild_held, "rebuilds held by fault_rebuild_delay_ms now (test build only)");

static void ew_fault_hold(struct ew_fault_hold *hold)
{
	unsigned int ms = READ_ONCE(hold->ms);

	if (!ms)
		return;
	atomic_inc(&hold->held);
	msleep(ms);
	atomic_dec(&hold->held);
}

/**
 * ew_fault_delay() - widen the window between a decision and its commit
 *
 * Context: process context, may sleep.
 */
void ew_fault_delay(void)
{
	ew_fault_hold(&ew_fault_modify_hold);
}

/**
 * ew_fault_sweep_delay() - hold the sweep of QPs without records, with the
 * QP's modify lock, once it has found the QP connected
 *
 * Context: process context, may sleep.
 */
void ew_fault_sweep_delay(void)
{
	ew_fault_hold(&ew_fault_sweep_hold);
}

/**
 * ew_fault_destroy_delay() - hold a user QP's destroy, with the QP's modify
 * lock, once the core has freed the QP
 *
 * Context: process context, may sleep.
 */
void ew_fault_destroy_delay(void)
{
	ew_fault_hold(&ew_fault_destroy_hold);
}

/**
 * ew_fault_rebuild_delay() - keep the source tables stale a while longer
 *
 * Context: the rebuild's work item, may sleep.
 */
void ew_fault_rebuild_delay(void)
{
	ew_fault_hold(&ew_fault_rebuild_hold);
}

/**
 * ew_should_fail() - whether this injection point fails
 *
 * Context: any (atomic included).
 * Return: true once, when the armed countdown reaches zero.
 */
bool ew_should_fail(void)
{
	/* 1 -> 0 fails; 0 (disarmed) is left alone. */
	if (atomic_dec_if_positive(&ew_fault_countdown) != 0)
		return false;
	atomic_inc(&ew_fault_injected);
	return true;
}

static unsigned int ew_fault_qpnrand_step;
module_param_named(fault_qpnrand, ew_fault_qpnrand_step, uint, 0400);
MODULE_PARM_DESC(fault_qpnrand,
		 "at load, fail QPN randomisation's kprobe (1) or self-test (2) (test build only)");

/**
 * ew_fault_qpnrand() - whether this step of QPN randomisation is to fail
 * @step: the step
 *
 * Context: module init.
 */
bool ew_fault_qpnrand(enum ew_fault_qpnrand_step step)
{
	return ew_fault_qpnrand_step == step;
}

static unsigned int ew_fault_qpnrand_calls;
module_param_named(fault_qpnrand_cost, ew_fault_qpnrand_calls, uint, 0400);
MODULE_PARM_DESC(fault_qpnrand_cost,
		 "at load, time this many xa_alloc_cyclic() calls before and after arming QPN randomisation (test build only)");

/**
 * ew_fault_qpnrand_cost() - how many calls the load-time cost measurement makes
 *
 * Return: 0 when none is asked for.
 */
unsigned int ew_fault_qpnrand_cost(void)
{
	return ew_fault_qpnrand_calls;
}

/*
 * The index the next soft-RoCE QP gets instead of a random one, once: a
 * test's stand-in for the QPN reuse that sequential numbering (hardware) or
 * 2^20 tries would give an attacker. It stands for the first draw only: an
 * index a QP holds is drawn again like any taken draw (qpnrand.c).
 */
static atomic_t ew_fault_qpn_next_val = ATOMIC_INIT(0);

static int ew_fault_qpn_next_set(const char *val, const struct kernel_param *kp)
{
	unsigned int qpn;
	int ret;

	ret = kstrtouint(val, 0, &qpn);
	if (ret)
		return ret;
	/* rxe's QP indices; 0 clears. */
	if (qpn && (qpn < 16 || qpn > BIT(20)))
		return -ERANGE;
	atomic_set(&ew_fault_qpn_next_val, qpn);
	return 0;
}

static int ew_fault_qpn_next_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%u\n",
			  (unsigned int)atomic_read(&ew_fault_qpn_next_val));
}

static const struct kernel_param_ops ew_fault_qpn_next_ops = {
	.set = ew_fault_qpn_next_set,
	.get = ew_fault_qpn_next_get,
};
module_param_cb(fault_qpn_next, &ew_fault_qpn_next_ops, NULL, 0600);
MODULE_PARM_DESC(fault_qpn_next,
		 "give the next soft-RoCE QP this index, if free, instead of a random one, once (test build only)");

/**
 * ew_fault_qpn_next() - the index asked for the next QP, consumed; 0 if none
 *
 * Context: the QPN randomisation kprobe (atomic).
 */
u32 ew_fault_qpn_next(void)
{
	return atomic_xchg(&ew_fault_qpn_next_val, 0);
}
