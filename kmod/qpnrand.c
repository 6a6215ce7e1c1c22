// SPDX-License-Identifier: GPL-2.0
/*
 * Unpredictable QP numbers on soft-RoCE.
 *
 * rdma_rxe numbers a QP by its index in the device's QP pool, allocated
 * with xa_alloc_cyclic() from [RXE_MIN_QP_INDEX, RXE_MAX_QP_INDEX] starting
 * at the pool's "next" (one past the last allocation): QPNs follow each
 * other from 0x11, and a process that sees one QPN, or just creates a QP
 * of its own, knows the next ones. No kernel interface chooses them, so a
 * kprobe on the exported __xa_alloc_cyclic() (which xa_alloc_cyclic()
 * calls with the xarray's lock held) moves *next to a random free index of
 * the range when the call comes from rdma_rxe's text with the QP pool's
 * limit. A kprobe, not ftrace: lib/ is built without ftrace's entry calls,
 * so no xarray function is an ftrace site. The xarray takes the first free
 * index at or after *next, wrapping: a drawn index that is taken would give
 * the QP the first free one after it, so a process that holds a run of
 * numbers would have any other process's next QP land just past the run
 * whenever the draw fell in it (the run's share of the range, not one in
 * 2^20), and would see that it did. So a taken index is drawn again, up to
 * EW_QPNRAND_DRAWS times in all (a table so full that every draw is taken
 * falls back to the first free index after the last).
 *
 * Every other __xa_alloc_cyclic() caller in the kernel (the RDMA core's
 * restrack and CM ids, devlink, io_uring, drm, ...) now takes the kprobe
 * (a breakpoint, or a jump once the kprobe is optimised) and one compare
 * of the limit's register. All of them are control-path allocations.
 *
 * Fail-safe: if the hook cannot be armed, or its self-test at load (eight
 * allocations from a private xarray must not be sequential) fails, the
 * module works without it and dev show reports rxe devices' QPNs as
 * sequential (the fault build's fault_qpnrand parameter fails either step,
 * for qpn.sh). Hardware providers number QPs in the device (firmware):
 * reported as provider.
 */

#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>
#include <linux/eastwest.h>

#include "fault.h"
#include "qpnrand.h"

/* rxe_param.h, the same in 6.1 and 6.12 */
#define EW_RXE_MIN_QP_INDEX	16U
#define EW_RXE_MAX_QP_INDEX	BIT(20)

/*
 * struct xa_limit { u32 max; u32 min; } is passed by value in one register
 * (x86-64: eight bytes of integers): max in the low half, min in the high.
 */
#define EW_RXE_QP_LIMIT_REG \
	(((u64)EW_RXE_MIN_QP_INDEX << 32) | EW_RXE_MAX_QP_INDEX)

#define EW_RXE_MODNAME		"rdma_rxe"
#define EW_SELFTEST_ALLOCS	8
#define EW_QPNRAND_DRAWS	32

/*
 * The rdma_rxe module, NULL when it is not loaded (or built in). Set when
 * it comes (module notifier) or when we meet one of its devices (it was
 * loaded before us), cleared when it goes. The handler reads it with
 * preemption disabled: free_module() waits for an RCU grace period before
 * the module's memory goes.
 */
static struct module *ew_rxe_mod;
/* While set, allocations from this module's own text count (self-test). */
static bool ew_qpnrand_testing;
static bool ew_qpnrand_armed;
static bool ew_qpnrand_nb_registered;
static DEFINE_XARRAY_ALLOC(ew_qpnrand_test_xa);

/*
 * The index an rxe QP allocation from @xa starts at: a random one that no
 * QP holds (a reserved NULL entry counts: rxe reserves the index before it
 * stores the QP, and xas_load() returns that zero entry). The fault build's
 * fault_qpn_next stands in for the first draw.
 * Context: the kprobe, @xa's lock held by xa_alloc_cyclic().
 */
static u32 ew_qpnrand_draw(struct xarray *xa)
{
	XA_STATE(xas, xa, 0);
	unsigned int draws;
	u32 r;

	r = ew_fault_qpn_next() ?:
	    get_random_u32_inclusive(EW_RXE_MIN_QP_INDEX, EW_RXE_MAX_QP_INDEX);
	for (draws = 1; draws < EW_QPNRAND_DRAWS; draws++) {
		xas_set(&xas, r);
		if (!xas_load(&xas))
			break;
		r = get_random_u32_inclusive(EW_RXE_MIN_QP_INDEX,
					     EW_RXE_MAX_QP_INDEX);
	}
	return r;
}

static int ew_qpnrand_hook(struct kprobe *p, struct pt_regs *regs)
{
	unsigned long parent_ip;
	struct module *mod;
	bool ours;
	u32 *next;

	/* Every other caller leaves here. */
	if (likely(regs_get_kernel_argument(regs, 3) != EW_RXE_QP_LIMIT_REG))
		return 0;
	/* At the function's entry: the return address is on top of the stack. */
	parent_ip = regs_get_kernel_stack_nth(regs, 0);
	/* Kprobe handlers run with preemption disabled. */
	mod = READ_ONCE(ew_rxe_mod);
	ours = (mod && within_module(parent_ip, mod)) ||
	       (READ_ONCE(ew_qpnrand_testing) &&
		within_module(parent_ip, THIS_MODULE));
	if (ours) {
		next = (u32 *)regs_get_kernel_argument(regs, 4);
		*next = ew_qpnrand_draw((struct xarray *)
					regs_get_kernel_argument(regs, 0));
	}
	return 0;
}

static struct kprobe ew_qpnrand_kp = {
	.addr = (kprobe_opcode_t *)__xa_alloc_cyclic,
	.pre_handler = ew_qpnrand_hook,
};

/*
 * Eight cyclic allocations from a private xarray with rxe's QP limit: with
 * the hook working they are not eight consecutive indices (chance 2^-60).
 * This proves that the handler runs and reads the arguments where this
 * kernel passes them.
 */
static bool ew_qpnrand_selftest(void)
{
	struct xarray *xa = &ew_qpnrand_test_xa;
	u32 id, prev = 0, next = EW_RXE_MIN_QP_INDEX;
	bool sequential = true;
	unsigned int i;
	int ret = 0;

	WRITE_ONCE(ew_qpnrand_testing, true);
	for (i = 0; i < EW_SELFTEST_ALLOCS; i++) {
		ret = xa_alloc_cyclic(xa, &id, xa_mk_value(i),
				      XA_LIMIT(EW_RXE_MIN_QP_INDEX,
					       EW_RXE_MAX_QP_INDEX),
				      &next, GFP_KERNEL);
		if (ret < 0)
			break;
		if (i && id != prev + 1)
			sequential = false;
		prev = id;
	}
	WRITE_ONCE(ew_qpnrand_testing, false);
	xa_destroy(xa);
	return ret >= 0 && !sequential;
}

/*
 * ew_qpnrand_time() - mean ns of @calls cyclic allocations (and erases)
 * from a private xarray with limit @limit
 *
 * For the fault build's cost measurement: with rxe's QP limit the kprobe's
 * rxe path runs (the caller is this module, counted while testing), with
 * another limit the path every other caller in the kernel takes.
 */
static u64 ew_qpnrand_time(struct xa_limit limit, unsigned int calls)
{
	struct xarray *xa = &ew_qpnrand_test_xa;
	u32 id, next = limit.min;
	unsigned int i;
	u64 t0, t;

	WRITE_ONCE(ew_qpnrand_testing, true);
	t0 = ktime_get_ns();
	for (i = 0; i < calls; i++) {
		if (xa_alloc_cyclic(xa, &id, xa_mk_value(0), limit, &next,
				    GFP_KERNEL) < 0)
			break;
		xa_erase(xa, id);
	}
	t = ktime_get_ns() - t0;
	WRITE_ONCE(ew_qpnrand_testing, false);
	xa_destroy(xa);
	return i ? div_u64(t, i) : 0;
}

/* Both paths' mean ns, unarmed; the caller takes them again armed. */
static void ew_qpnrand_cost(unsigned int calls, u64 *other, u64 *rxe)
{
	other[0] = ew_qpnrand_time(xa_limit_32b, calls);
	rxe[0] = ew_qpnrand_time(XA_LIMIT(EW_RXE_MIN_QP_INDEX,
					  EW_RXE_MAX_QP_INDEX), calls);
}

static int ew_qpnrand_module_event(struct notifier_block *nb,
				   unsigned long state, void *data)
{
	struct module *mod = data;

	if (strcmp(mod->name, EW_RXE_MODNAME))
		return NOTIFY_DONE;
	if (state == MODULE_STATE_COMING)
		WRITE_ONCE(ew_rxe_mod, mod);
	else if (state == MODULE_STATE_GOING)
		WRITE_ONCE(ew_rxe_mod, NULL);
	return NOTIFY_OK;
}

static struct notifier_block ew_qpnrand_nb = {
	.notifier_call = ew_qpnrand_module_event,
};

/**
 * ew_qpnrand_dev_add() - learn rdma_rxe's module from one of its devices
 * @ibdev: a device being registered
 *
 * For an rdma_rxe loaded before us (no module notification). Its devices
 * are unregistered in its exit, before it goes (which clears the pointer).
 * Context: process (the registry's ib_client add).
 */
void ew_qpnrand_dev_add(struct ib_device *ibdev)
{
	struct module *owner = ibdev->ops.owner;

	if (ibdev->ops.driver_id == RDMA_DRIVER_RXE && owner &&
	    !strcmp(owner->name, EW_RXE_MODNAME))
		WRITE_ONCE(ew_rxe_mod, owner);
}

/**
 * ew_qpnrand_dev_order() - how @ibdev's QPNs are chosen, for dev show
 * @ibdev: a registered device
 *
 * Return: EASTWEST_QPN_ORDER_RANDOM for an rdma_rxe device with the hook
 * armed, _SEQUENTIAL for one without, _PROVIDER for the others.
 */
u32 ew_qpnrand_dev_order(struct ib_device *ibdev)
{
	if (ibdev->ops.driver_id != RDMA_DRIVER_RXE)
		return EASTWEST_QPN_ORDER_PROVIDER;
	if (READ_ONCE(ew_qpnrand_armed) && ibdev->ops.owner &&
	    READ_ONCE(ew_rxe_mod) == ibdev->ops.owner)
		return EASTWEST_QPN_ORDER_RANDOM;
	return EASTWEST_QPN_ORDER_SEQUENTIAL;
}

static void ew_qpnrand_disarm(void)
{
	unregister_kprobe(&ew_qpnrand_kp);
}

/**
 * ew_qpnrand_init() - arm the hook, or log why soft-RoCE QPNs stay sequential
 *
 * Never fails the load: without the hook the module is what it was.
 */
void ew_qpnrand_init(void)
{
	unsigned int calls = ew_fault_qpnrand_cost();
	u64 other[2], rxe[2];
	int ret;

	ret = register_module_notifier(&ew_qpnrand_nb);
	if (ret)
		goto fail;
	ew_qpnrand_nb_registered = true;
	if (calls)
		ew_qpnrand_cost(calls, &other[0], &rxe[0]);
	ret = ew_fault_qpnrand(EW_FAULT_QPNRAND_ARM) ? -ENOENT :
	      register_kprobe(&ew_qpnrand_kp);
	if (ret)
		goto fail;
	if (!ew_qpnrand_selftest() ||
	    ew_fault_qpnrand(EW_FAULT_QPNRAND_SELFTEST)) {
		ew_qpnrand_disarm();
		ret = -EFAULT;
		pr_warn("QPN randomisation self-test failed\n");
		goto fail;
	}
	WRITE_ONCE(ew_qpnrand_armed, true);
	if (calls) {
		ew_qpnrand_cost(calls, &other[1], &rxe[1]);
		pr_info("qpnrand cost: %u calls, ns per call unarmed/armed: other callers %llu/%llu, rxe's QP limit %llu/%llu\n",
			calls, other[0], other[1], rxe[0], rxe[1]);
	}
	pr_info("soft-RoCE QPNs are randomised\n");
	return;
fail:
	pr_warn("cannot hook __xa_alloc_cyclic: %d: soft-RoCE QPNs stay sequential\n",
		ret);
}

/**
 * ew_qpnrand_exit() - disarm; unregister_kprobe() waits for handlers in flight
 */
void ew_qpnrand_exit(void)
{
	if (ew_qpnrand_armed) {
		WRITE_ONCE(ew_qpnrand_armed, false);
		ew_qpnrand_disarm();
	}
	if (ew_qpnrand_nb_registered) {
		unregister_module_notifier(&ew_qpnrand_nb);
		ew_qpnrand_nb_registered = false;
	}
}
