// SPDX-License-Identifier: GPL-2.0
/*
 * qp_opener: a test module that holds a QP open the way ib_open_qp() does
 * for each process that opens an XRC target QP by number: it raises the
 * QP's usecnt, and ib_destroy_qp_user() refuses (-EBUSY) to destroy a QP
 * others hold open. rxe has no XRC, so selftests/eastwest/gate.sh uses
 * this module to make a job's destroy fail after it reached the core, and
 * checks that the QP stays tracked and can still be revoked.
 *
 *   insmod qp_opener.ko dev=rxe0 qpn=0x11
 *
 * Unload it before the QP's process exits: the destroy at exit cannot be
 * refused (uverbs warns and leaks the QP).
 */

#include <linux/module.h>
#include <rdma/ib_verbs.h>
#include <rdma/restrack.h>

static char *dev = "rxe0";
module_param(dev, charp, 0444);
MODULE_PARM_DESC(dev, "the RDMA device");

static unsigned int qpn;
module_param(qpn, uint, 0444);
MODULE_PARM_DESC(qpn, "the QP to hold open, by number");

static struct ib_device *qo_dev;
static struct ib_qp *qo_qp;

static int __init qo_init(void)
{
	struct rdma_restrack_entry *res;

	qo_dev = ib_device_get_by_name(dev, RDMA_DRIVER_UNKNOWN);
	if (!qo_dev)
		return -ENODEV;
	/* Found as root finds it; held by its restrack reference. */
	res = rdma_restrack_get_byid(qo_dev, RDMA_RESTRACK_QP, qpn);
	if (IS_ERR(res)) {
		ib_device_put(qo_dev);
		return PTR_ERR(res);
	}
	qo_qp = container_of(res, struct ib_qp, res);
	atomic_inc(&qo_qp->usecnt);
	pr_info("qp_opener: qpn 0x%x on %s held open\n", qpn, dev);
	return 0;
}

static void __exit qo_exit(void)
{
	atomic_dec(&qo_qp->usecnt);
	rdma_restrack_put(&qo_qp->res);
	ib_device_put(qo_dev);
}

module_init(qo_init);
module_exit(qo_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("eastwest test: a QP held open as ib_open_qp() holds one");
