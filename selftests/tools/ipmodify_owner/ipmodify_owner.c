// SPDX-License-Identifier: GPL-2.0
/*
 * ipmodify_owner: a test module that takes the one IPMODIFY slot of a kernel
 * function, as a livepatch or another security module would, so that
 * selftests/eastwest/failclosed.sh can check that eastwest then refuses to
 * load, with none of its hooks left armed.
 *
 *   insmod ipmodify_owner.ko [func=ib_modify_qp_with_udata]
 *
 * The handler does nothing: the function runs unchanged.
 */

#include <linux/ftrace.h>
#include <linux/module.h>
#include <linux/string.h>

static char *func = "ib_modify_qp_with_udata";
module_param(func, charp, 0444);
MODULE_PARM_DESC(func, "the function whose IPMODIFY slot to take");

static void notrace ipmo_handler(unsigned long ip, unsigned long parent_ip,
				 struct ftrace_ops *ops,
				 struct ftrace_regs *fregs)
{
}

static struct ftrace_ops ipmo_ops = {
	.func = ipmo_handler,
	.flags = FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY,
};

static int __init ipmo_init(void)
{
	char name[KSYM_NAME_LEN];
	int ret;

	/* ftrace_set_filter() wants a writable buffer. */
	if (strscpy(name, func, sizeof(name)) < 0)
		return -ENAMETOOLONG;
	ret = ftrace_set_filter(&ipmo_ops, name, strlen(name), 1);
	if (ret) {
		pr_err("ipmodify_owner: no traceable function %s: %d\n", func, ret);
		return ret;
	}
	ret = register_ftrace_function(&ipmo_ops);
	if (ret) {
		pr_err("ipmodify_owner: cannot take %s: %d\n", func, ret);
		ftrace_free_filter(&ipmo_ops);
		return ret;
	}
	pr_info("ipmodify_owner: holding the IPMODIFY slot of %s\n", func);
	return 0;
}

static void __exit ipmo_exit(void)
{
	unregister_ftrace_function(&ipmo_ops);
	ftrace_free_filter(&ipmo_ops);
	pr_info("ipmodify_owner: released %s\n", func);
}

module_init(ipmo_init);
module_exit(ipmo_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("eastwest test: hold an ftrace IPMODIFY slot");
