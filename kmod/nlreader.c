// SPDX-License-Identifier: GPL-2.0
/*
 * Which RDMA netlink socket a task's system call works on: the requester
 * of a dump that another task may be resuming.
 */

#include <linux/cgroup.h>
#include <linux/compat.h>
#include <linux/file.h>
#include <linux/net.h>
#include <linux/netlink.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/uaccess.h>
#include <net/sock.h>
#include <asm/syscall.h>
#include <asm/unistd.h>

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
 * socket too: while the task's system call works on an RDMA netlink socket,
 * reading it or writing a request to it, an object must also be visible to
 * the socket: to the job of the cgroup the socket was made in, or to the
 * credentials it was opened with if they held CAP_NET_ADMIN. The sockets a
 * system call works on are its first argument (read(), recvmsg(),
 * sendmsg(), ...), both ends of sendfile() (arguments 0 and 1) and of
 * splice() (0 and 2), and the first word of the arguments a 32-bit task
 * passes to socketcall(). io_uring and AIO read a socket in the
 * submitter's context (io_uring at the exit of any system call) or in
 * workers: judged on the task alone.
 */

/*
 * The file descriptors current's system call @nr with arguments @args works
 * on: up to EW_NL_READERS_MAX, in @fds. Returns how many.
 */
static unsigned int ew_syscall_fds(long nr, const unsigned long *args,
				   unsigned long *fds)
{
	fds[0] = args[0];
#ifdef CONFIG_IA32_EMULATION
	if (in_ia32_syscall()) {
		u32 word;

		switch (nr) {
		case __NR_ia32_socketcall:
			/* Every call's socket is its first word (a u32). */
			if (copy_from_user_nofault(&word, compat_ptr(args[1]),
						   sizeof(word)))
				return 0;
			fds[0] = word;
			return 1;
		case __NR_ia32_sendfile:
		case __NR_ia32_sendfile64:
			fds[1] = args[1];
			return 2;
		case __NR_ia32_splice:
			fds[1] = args[2];
			return 2;
		}
		return 1;
	}
#endif
#ifdef __X32_SYSCALL_BIT
	nr &= ~__X32_SYSCALL_BIT;
#endif
	switch (nr) {
	case __NR_sendfile:
		fds[1] = args[1];
		return 2;
	case __NR_splice:
		fds[1] = args[2];
		return 2;
	}
	return 1;
}

/* @fd as an RDMA netlink socket, held in @r; false if it is none. */
static bool ew_nl_reader_of(unsigned long fd, struct ew_nl_reader *r)
{
	struct socket *sock;
	struct file *file;
	struct sock *sk;

	if (fd > INT_MAX)
		return false;
	file = fget_raw((unsigned int)fd);
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

/**
 * ew_nl_readers_get() - the RDMA netlink sockets current's system call is on
 * @r: filled in, one per socket
 *
 * Context: any, current a user task in a system call; does not sleep.
 * Return: how many of @r were filled (release each with ew_nl_reader_put()).
 */
unsigned int ew_nl_readers_get(struct ew_nl_reader r[EW_NL_READERS_MAX])
{
	struct pt_regs *regs = task_pt_regs(current);
	unsigned long args[6], fds[EW_NL_READERS_MAX];
	unsigned int i, nfds, n = 0;

	if (current->flags & (PF_KTHREAD | PF_IO_WORKER) || !current->files)
		return 0;
	syscall_get_arguments(current, regs, args);
	nfds = ew_syscall_fds(syscall_get_nr(current, regs), args, fds);
	for (i = 0; i < nfds; i++)
		if (ew_nl_reader_of(fds[i], &r[n]))
			n++;
	return n;
}

void ew_nl_reader_put(struct ew_nl_reader *r)
{
	fput(r->file);
}
