// SPDX-License-Identifier: GPL-2.0
/*
 * Soft-RoCE links for `path add` (see path.c): the messages `rdma link add
 * NAME type rxe netdev DEV` and `rdma link delete NAME` send (iproute2's
 * rdma/link.c), on a libmnl socket of the RDMA netlink family.
 *
 * An rxe device is recognised by its sysfs attribute "parent" (the netdev
 * it is bound to), which only rxe has (rxe_verbs.c, 6.1 and 6.12).
 */
#include <dirent.h>
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ewctl.h"
#include "io/rxe.h"

#ifndef NETLINK_EXT_ACK
#define NETLINK_EXT_ACK 11
#endif

#define SYS_IB "/sys/class/infiniband"
#define REQ_SIZE 512		/* the largest request: three short strings */
#define RECV_SIZE 32768	/* one read of replies (libmnl wants 8 KiB or more) */

static char ext_msg[256];

const char *ew_rxe_err(void)
{
	return ext_msg;
}

/* Reads the first line of @path into @buf; false if there is none. */
static bool read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	bool ok;

	if (!f)
		return false;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = '\0';
	return ok;
}

int ew_rxe_on(const char *netdev, struct ew_rxe_list *l)
{
	char path[512], parent[64];
	struct dirent *de;
	DIR *d;

	memset(l, 0, sizeof(*l));
	d = opendir(SYS_IB);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || strlen(de->d_name) >= EW_RXE_NAME_MAX)
			continue;
		snprintf(path, sizeof(path), SYS_IB "/%s/parent", de->d_name);
		if (!read_line(path, parent, sizeof(parent)) || strcmp(parent, netdev) != 0)
			continue;
		EW_GROW(l->name, l->n, l->cap);
		snprintf(l->name[l->n++], EW_RXE_NAME_MAX, "%s", de->d_name);
	}
	closedir(d);
	return 0;
}

void ew_rxe_list_free(struct ew_rxe_list *l)
{
	free(l->name);
	memset(l, 0, sizeof(*l));
}

/* The kernel's extended ack text of an error message, into ext_msg. */
static void parse_ext_ack(const struct nlmsghdr *nlh)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	unsigned int off = sizeof(*e);
	const struct nlattr *a;

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - sizeof(e->msg);
	if (NLMSG_HDRLEN + MNL_ALIGN(off) > nlh->nlmsg_len)
		return;
	mnl_attr_for_each(a, nlh, off) {
		if (mnl_attr_get_type(a) == NLMSGERR_ATTR_MSG &&
		    !mnl_attr_validate(a, MNL_TYPE_NUL_STRING))
			snprintf(ext_msg, sizeof(ext_msg), "%s", mnl_attr_get_str(a));
	}
}

static int error_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);

	(void)data;
	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*e))) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	parse_ext_ack(nlh);
	if (e->error) {
		errno = -e->error;
		return MNL_CB_ERROR;
	}
	return MNL_CB_STOP;
}

static int done_cb(const struct nlmsghdr *nlh, void *data)
{
	(void)nlh;
	(void)data;
	return MNL_CB_STOP;
}

/*
 * Sends @nlh on a new RDMA netlink socket; runs @cb on every reply. With
 * a control array, libmnl leaves every control message to it: NLMSG_DONE
 * ends a dump, NLMSG_ERROR carries the ack or the error.
 */
static int talk(struct nlmsghdr *nlh, mnl_cb_t cb, void *data)
{
	static mnl_cb_t ctl[NLMSG_MIN_TYPE] = {
		[NLMSG_ERROR] = error_cb,
		[NLMSG_DONE] = done_cb,
	};
	static char buf[RECV_SIZE];
	struct mnl_socket *nl;
	unsigned int seq, portid;
	int one = 1, ret;
	ssize_t n;

	ext_msg[0] = '\0';
	nl = mnl_socket_open(NETLINK_RDMA);
	if (!nl)
		return -errno;
	mnl_socket_setsockopt(nl, NETLINK_EXT_ACK, &one, sizeof(one));
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		ret = -errno;
		goto out;
	}
	portid = mnl_socket_get_portid(nl);
	seq = (unsigned int)time(NULL);
	nlh->nlmsg_seq = seq;
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0) {
		ret = -errno;
		goto out;
	}
	do {
		n = mnl_socket_recvfrom(nl, buf, sizeof(buf));
		if (n < 0) {
			ret = -errno;
			goto out;
		}
		ret = mnl_cb_run2(buf, (size_t)n, seq, portid, cb, data, ctl,
				  NLMSG_MIN_TYPE);
	} while (ret > MNL_CB_STOP);
	ret = ret < 0 ? -errno : 0;
out:
	mnl_socket_close(nl);
	return ret;
}

static struct nlmsghdr *req(char *buf, uint8_t cmd, uint16_t flags)
{
	struct nlmsghdr *nlh;

	memset(buf, 0, REQ_SIZE);
	nlh = mnl_nlmsg_put_header(buf);

	nlh->nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd);
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	return nlh;
}

struct find {
	const char *name;
	uint32_t index;
	bool found;
};

static int find_cb(const struct nlmsghdr *nlh, void *data)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX] = { NULL };
	struct find *f = data;
	const struct nlattr *a;

	mnl_attr_for_each(a, nlh, 0) {
		uint16_t t = mnl_attr_get_type(a);

		if (t < RDMA_NLDEV_ATTR_MAX)
			tb[t] = (struct nlattr *)a;
	}
	if (!tb[RDMA_NLDEV_ATTR_DEV_INDEX] || !tb[RDMA_NLDEV_ATTR_DEV_NAME] ||
	    mnl_attr_validate(tb[RDMA_NLDEV_ATTR_DEV_INDEX], MNL_TYPE_U32) ||
	    mnl_attr_validate(tb[RDMA_NLDEV_ATTR_DEV_NAME], MNL_TYPE_NUL_STRING))
		return MNL_CB_OK;
	if (!strcmp(mnl_attr_get_str(tb[RDMA_NLDEV_ATTR_DEV_NAME]), f->name)) {
		f->index = mnl_attr_get_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX]);
		f->found = true;
	}
	return MNL_CB_OK;
}

/* Polls for @name in sysfs to be there (@want) or gone, up to 10 s. */
static int wait_sysfs(const char *name, bool want)
{
	char path[512];
	int i;

	snprintf(path, sizeof(path), SYS_IB "/%s", name);
	for (i = 0; i < 200; i++) {
		if ((access(path, F_OK) == 0) == want)
			return 0;
		usleep(50000);
	}
	return -ETIMEDOUT;
}

int ew_rxe_wait_gid(const char *name, const char *netdev)
{
	char path[512], nd[64];
	int i, k;

	for (i = 0; i < 200; i++) {
		for (k = 0; k < 16; k++) {
			snprintf(path, sizeof(path), SYS_IB "/%s/ports/1/gid_attrs/ndevs/%d",
				 name, k);
			if (read_line(path, nd, sizeof(nd)) && !strcmp(nd, netdev))
				return 0;
		}
		usleep(50000);
	}
	return -ETIMEDOUT;
}

int ew_rxe_add(const char *name, const char *netdev)
{
	char buf[REQ_SIZE];
	/*
	 * No NLM_F_CREATE | NLM_F_EXCL: RDMA netlink takes any request with
	 * a bit of NLM_F_DUMP (NLM_F_EXCL is NLM_F_MATCH) for a dump.
	 */
	struct nlmsghdr *nlh = req(buf, RDMA_NLDEV_CMD_NEWLINK, NLM_F_ACK);
	int ret;

	mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_DEV_NAME, name);
	mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_LINK_TYPE, "rxe");
	mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_NDEV_NAME, netdev);
	ret = talk(nlh, NULL, NULL);
	if (ret)
		return ret;
	ew_changes++;
	return wait_sysfs(name, true);
}

int ew_rxe_del(const char *name)
{
	char buf[REQ_SIZE];
	struct find f = { .name = name };
	struct nlmsghdr *nlh;
	int ret;

	nlh = req(buf, RDMA_NLDEV_CMD_GET, NLM_F_DUMP);
	ret = talk(nlh, find_cb, &f);
	if (ret)
		return ret;
	if (!f.found)
		return -ENODEV;
	nlh = req(buf, RDMA_NLDEV_CMD_DELLINK, NLM_F_ACK);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, f.index);
	ret = talk(nlh, NULL, NULL);
	if (ret)
		return ret;
	ew_changes++;
	return wait_sysfs(name, false);
}
