// SPDX-License-Identifier: GPL-2.0
/*
 * Which RDMA netlink socket a task's system call works on: the requester
 * of a dump that another task may be resuming.
 */

#include <linux/cgroup.h>
#include <linux/file.h>
#include <linux/net.h>
#include <linux/netlink.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <net/sock.h>
#include <asm/syscall.h>

#include "nlreader.h"

/**
 * DOC: Dumps resumed by another reader - a netlink dump is built in
 * batches: the first when it is asked for (or, if the socket's queue is
 * full then, at the next read), every other one when the socket is read
 * (netlink_recvmsg() runs the dump on while the queue has room). So each
 * batch is built in the context of the task that reads the socket,
 * whoever asked for the dump. A process that hands its socket, with a dump
 * under way, to a privileged program that reads its standard input once (a
 * setuid program reading a password) would have that program's view in
 * the batch: every job's QPs, numbers and PSNs. The kernel guards its own
 * privileged fields with netlink_capable(), which asks the socket's opener
 * as well as the reader, for this reason.
 *
 * So the visibility rule of "Who reads connection identifiers" judges the
 * socket too: while the task's system call works on an RDMA netlink socket
 * (its first argument, as in read(), recvmsg() and sendmsg()), an object
 * must also be visible to the socket: to the job of the cgroup the socket
 * was made in, or to the credentials it was opened with if they held
 * CAP_NET_ADMIN. A system call whose first argument is not such a socket
 * (sendfile(), io_uring) is judged on the task alone.
 */

/**
 * ew_nl_reader_get() - the RDMA netlink socket current's system call is on
 * @r: filled in if there is one
 *
 * Context: any, current a user task in a system call; does not sleep.
 * Return: true if current's system call works on an RDMA netlink socket
 * (then release @r with ew_nl_reader_put()).
 */
bool ew_nl_reader_get(struct ew_nl_reader *r)
{
	unsigned long args[6];
	struct socket *sock;
	struct file *file;
	struct sock *sk;

	if (current->flags & (PF_KTHREAD | PF_IO_WORKER) || !current->files)
		return false;
	syscall_get_arguments(current, task_pt_regs(current), args);
	if (args[0] > INT_MAX)
		return false;
	file = fget_raw((unsigned int)args[0]);
	if (!file)
		return false;
	sock = sock_from_file(file);
	sk = sock ? sock->sk : NULL;
	if (!sk || sk->sk_family != AF_NETLINK ||
	    sk->sk_protocol != NETLINK_RDMA) {
		fput(file);
		return false;
	}
	r->file = file;
	r->cgrp = sock_cgroup_ptr(&sk->sk_cgrp_data);
	return true;
}

void ew_nl_reader_put(struct ew_nl_reader *r)
{
	fput(r->file);
}
