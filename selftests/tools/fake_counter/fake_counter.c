// SPDX-License-Identifier: GPL-2.0
/*
 * fake_counter: a test module that binds QPs to a per-QP statistics
 * counter the way the RDMA core's auto mode does on a device with counter
 * support (mlx5: `rdma statistic qp set link DEV/1 auto type on`, every
 * user's RC QPs on one shared counter). rxe has no counter operations, so
 * selftests/eastwest/counters.sh uses this module to put a counter on rxe
 * and checks who can read the QP numbers that `rdma statistic qp show`
 * lists for it: the core's dump walks the QP table itself to list them.
 *
 *   insmod fake_counter.ko dev=rxe0 qpns=0x11,0x12 [per_pid=1]
 *
 * per_pid=1 makes it a counter of auto mode by process (mask pid), which
 * the core binds only QPs of one task to: give it QPs of one process.
 * The counter gets the task of the first QP, as alloc_and_bind() does.
 * Its reference count is never let down to zero: the core would call the
 * device's counter_dealloc, which rxe has not. Unload before the device
 * goes; a QP destroyed while bound only drops one reference.
 */

#include <linux/kref.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_counter.h>
#include <rdma/restrack.h>

#include "restrack_priv.h"

#define FC_ID		0xe57
#define FC_MAX_QPNS	8

static char *dev = "rxe0";
module_param(dev, charp, 0444);
MODULE_PARM_DESC(dev, "the RDMA device");

static unsigned int qpns[FC_MAX_QPNS];
static int n_qpns;
module_param_array(qpns, uint, &n_qpns, 0444);
MODULE_PARM_DESC(qpns, "the QPs to bind, by number");

static bool per_pid;
module_param(per_pid, bool, 0444);
MODULE_PARM_DESC(per_pid, "auto mode by process (else by QP type)");

static const struct rdma_stat_desc fc_descs[] = {
	{ .name = "fake_packets" },
};

static struct ib_device *fc_dev;
static struct rdma_counter *fc_counter;

/* Set (or clear) QP @qpn's counter; the QP is found as root finds it. */
static int fc_bind(u32 qpn, bool bind)
{
	struct rdma_restrack_entry *res;
	struct ib_qp *qp;

	res = rdma_restrack_get_byid(fc_dev, RDMA_RESTRACK_QP, qpn);
	if (IS_ERR(res))
		return PTR_ERR(res);
	qp = container_of(res, struct ib_qp, res);
	if (bind) {
		if (!fc_counter->res.task && !fc_counter->res.kern_name)
			rdma_restrack_parent_name(&fc_counter->res, res);
		qp->counter = fc_counter;
	} else if (qp->counter == fc_counter) {
		qp->counter = NULL;
	}
	rdma_restrack_put(res);
	return 0;
}

static int __init fc_init(void)
{
	int i, ret;

	fc_dev = ib_device_get_by_name(dev, RDMA_DRIVER_UNKNOWN);
	if (!fc_dev)
		return -ENODEV;
	ret = -ENOMEM;
	fc_counter = kzalloc(sizeof(*fc_counter), GFP_KERNEL);
	if (!fc_counter)
		goto err_dev;
	fc_counter->device = fc_dev;
	fc_counter->port = 1;
	fc_counter->id = FC_ID;
	fc_counter->mode.mode = RDMA_COUNTER_MODE_AUTO;
	fc_counter->mode.mask = per_pid ? RDMA_COUNTER_MASK_PID :
					  RDMA_COUNTER_MASK_QP_TYPE;
	fc_counter->mode.param.qp_type = IB_QPT_RC;
	kref_init(&fc_counter->kref);
	refcount_set(&fc_counter->kref.refcount, 1 << 20);
	mutex_init(&fc_counter->lock);
	fc_counter->stats = rdma_alloc_hw_stats_struct(fc_descs,
						       ARRAY_SIZE(fc_descs),
						       0);
	if (!fc_counter->stats)
		goto err_free;
	rdma_restrack_new(&fc_counter->res, RDMA_RESTRACK_COUNTER);
	for (i = 0; i < n_qpns; i++) {
		ret = fc_bind(qpns[i], true);
		if (ret) {
			pr_err("fake_counter: qpn 0x%x: %d\n", qpns[i], ret);
			goto err_unbind;
		}
	}
	rdma_restrack_add(&fc_counter->res);
	pr_info("fake_counter: counter %u on %s/1 with %d QP(s)\n", FC_ID, dev,
		n_qpns);
	return 0;

err_unbind:
	while (i--)
		fc_bind(qpns[i], false);
	/* Not added: this only drops the task reference. */
	rdma_restrack_del(&fc_counter->res);
	rdma_free_hw_stats_struct(fc_counter->stats);
err_free:
	kfree(fc_counter);
err_dev:
	ib_device_put(fc_dev);
	return ret;
}

static void __exit fc_exit(void)
{
	int i;

	rdma_restrack_del(&fc_counter->res);
	for (i = 0; i < n_qpns; i++)
		fc_bind(qpns[i], false);
	rdma_free_hw_stats_struct(fc_counter->stats);
	kfree(fc_counter);
	ib_device_put(fc_dev);
}

module_init(fc_init);
module_exit(fc_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("eastwest test: a per-QP counter on a device without counter support");
