// SPDX-License-Identifier: GPL-2.0
/*
 * Generic netlink transport for the eastwest family.
 *
 * libmnl, chosen once for the whole tool: it is what iproute2 and ethtool
 * use, it is small (socket, message and attribute helpers, no object model
 * or caching to work around), and the YNL spec maps one to one onto its
 * attribute calls. libnl-genl would bring a second object model and its own
 * error translation between the kernel's extack and the user.
 *
 * The socket asks for extended acks (NETLINK_EXT_ACK) without the echoed
 * request (NETLINK_CAP_ACK): every error carries the kernel's message and,
 * often, the offset of the bad attribute, which is mapped back onto the
 * request kept in sbuf to name it ("peer[3].prefix-len").
 *
 * One request is in flight at a time. Replies are matched by sequence
 * number; anything else (a leftover of an earlier request) is skipped.
 * Dumps are read to NLMSG_DONE; a dump the kernel flags NLM_F_DUMP_INTR
 * (the state changed under it) is read to its end, then retried from
 * scratch, up to three times.
 */
#include <errno.h>
#include <linux/genetlink.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <linux/eastwest.h>

#include "ewctl.h"
#include "io/lock.h"
#include "io/nl.h"
#include "io/nlnames.h"

#define EWNL_SBUF	(256 * 1024)	/* largest request */
#define EWNL_RBUF	(64 * 1024)	/* more than a dump skb (32 KiB) */
#define EWNL_SOCKBUF	(4 * 1024 * 1024)
#define EWNL_DUMP_RETRIES 3

#ifndef NETLINK_EXT_ACK
#define NETLINK_EXT_ACK 11
#endif
#ifndef NETLINK_GET_STRICT_CHK
#define NETLINK_GET_STRICT_CHK 12
#endif

struct faminfo {
	uint16_t id;
	uint32_t version;
	const char *group;	/* the multicast group wanted */
	uint32_t group_id;
};

static int set_err(struct ewnl *nl, int err)
{
	memset(&nl->err, 0, sizeof(nl->err));
	nl->err.code = err;
	return -err;
}

/*
 * Names the attribute at offset @target of the request, walking the
 * attributes in [@start, @start + @len) of set @set, and nested sets.
 */
static bool describe(struct ewnl *nl, const struct ew_attr_set *set,
		     const void *start, size_t len, uint32_t target,
		     char *buf, size_t blen, bool top)
{
	const struct nlmsghdr *req = (const void *)nl->sbuf;
	unsigned int count[64] = { 0 };
	const struct nlattr *attr;

	mnl_attr_for_each_payload(start, len) {
		const struct nlattr *a = attr;
		unsigned int type = mnl_attr_get_type(a);
		uint32_t off = (uint32_t)((const char *)a - (const char *)req);
		const struct ew_attr_set *sub = NULL;
		const char *name = ew_attr_name(set, type);
		unsigned int idx = type < 64 ? count[type]++ : 0;
		char here[48];

		if (target < off || target >= off + a->nla_len)
			continue;
		if (set && type <= set->max)
			sub = set->attrs[type].nested;
		if (name && set->attrs[type].multi)
			snprintf(here, sizeof(here), "%s[%u]", name, idx);
		else if (name)
			snprintf(here, sizeof(here), "%s", name);
		else
			snprintf(here, sizeof(here), "attribute %u", type);
		if (top) {
			nl->err.top_type = (int)type;
			nl->err.top_index = (int)idx;
		}
		snprintf(buf, blen, "%s%s", top ? "attribute " : ".", here);
		if (target > off && sub) {
			size_t used = strlen(buf);

			describe(nl, sub, mnl_attr_get_payload(a),
				 mnl_attr_get_payload_len(a), target,
				 buf + used, blen - used, false);
		}
		return true;
	}
	return false;
}

static void describe_offset(struct ewnl *nl, uint32_t off, char *buf, size_t len)
{
	const struct nlmsghdr *req = (const void *)nl->sbuf;
	size_t hdr = NLMSG_HDRLEN + EWNL_HDRLEN;

	buf[0] = '\0';
	if (off < hdr || off >= req->nlmsg_len)
		return;
	describe(nl, ew_cmd_attr_set(nl->cmd), (const char *)req + hdr,
		 req->nlmsg_len - hdr, off, buf, len, true);
}

/* Nested set of the attribute at request offset @off, NULL for top level. */
static const struct ew_attr_set *nest_set_at(struct ewnl *nl, uint32_t off)
{
	const struct nlmsghdr *req = (const void *)nl->sbuf;
	const struct ew_attr_set *set = ew_cmd_attr_set(nl->cmd);
	size_t hdr = NLMSG_HDRLEN + EWNL_HDRLEN;
	const struct nlattr *a;

	if (off < hdr || off >= req->nlmsg_len)
		return NULL;
	mnl_attr_for_each(a, req, EWNL_HDRLEN) {
		unsigned int type = mnl_attr_get_type(a);

		if ((uint32_t)((const char *)a - (const char *)req) == off)
			return set && type <= set->max ? set->attrs[type].nested : NULL;
	}
	return NULL;
}

static void parse_ext_ack(struct ewnl *nl, const struct nlmsghdr *nlh,
			  size_t off, bool is_req_seq)
{
	const struct nlattr *a;
	uint32_t miss_nest = 0;
	bool has_miss = false;
	uint32_t miss = 0;

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	if (NLMSG_HDRLEN + MNL_ALIGN(off) > nlh->nlmsg_len)
		return;
	mnl_attr_for_each(a, nlh, off) {
		if (mnl_attr_type_valid(a, NLMSGERR_ATTR_MAX) < 0)
			continue;
		switch (mnl_attr_get_type(a)) {
		case NLMSGERR_ATTR_MSG:
			if (!mnl_attr_validate(a, MNL_TYPE_NUL_STRING))
				snprintf(nl->err.msg, sizeof(nl->err.msg), "%s",
					 mnl_attr_get_str(a));
			break;
		case NLMSGERR_ATTR_OFFS:
			if (!mnl_attr_validate(a, MNL_TYPE_U32) && is_req_seq)
				describe_offset(nl, mnl_attr_get_u32(a), nl->err.attr,
						sizeof(nl->err.attr));
			break;
		case NLMSGERR_ATTR_MISS_TYPE:
			if (!mnl_attr_validate(a, MNL_TYPE_U32)) {
				miss = mnl_attr_get_u32(a);
				has_miss = true;
			}
			break;
		case NLMSGERR_ATTR_MISS_NEST:
			if (!mnl_attr_validate(a, MNL_TYPE_U32))
				miss_nest = mnl_attr_get_u32(a);
			break;
		}
	}
	if (has_miss && is_req_seq) {
		const struct ew_attr_set *set = ew_cmd_attr_set(nl->cmd);
		const char *name;

		if (miss_nest)
			set = nest_set_at(nl, miss_nest);
		name = ew_attr_name(set, miss);
		if (name)
			snprintf(nl->err.attr, sizeof(nl->err.attr),
				 "missing attribute %s", name);
		else
			snprintf(nl->err.attr, sizeof(nl->err.attr),
				 "missing attribute %u", miss);
	}
}

/*
 * Reads the replies to request @seq until its ack (a do) or NLMSG_DONE (a
 * dump). Data messages of type @type go to @cb; after a callback error the
 * rest is still read, so that nothing is left in the socket.
 */
static int run(struct ewnl *nl, uint32_t seq, uint16_t type, bool dump,
	       ewnl_cb cb, void *data, bool *intr)
{
	int cb_err = 0;

	memset(&nl->err, 0, sizeof(nl->err));
	for (;;) {
		const struct nlmsghdr *nlh;
		ssize_t n;
		int len;

		n = mnl_socket_recvfrom(nl->sock, nl->rbuf, nl->rlen);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return set_err(nl, errno);
		}
		len = (int)n;
		for (nlh = (const void *)nl->rbuf; mnl_nlmsg_ok(nlh, len);
		     nlh = mnl_nlmsg_next(nlh, &len)) {
			if (nlh->nlmsg_seq != seq ||
			    (nlh->nlmsg_pid && nlh->nlmsg_pid != nl->portid))
				continue;

			if (nlh->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
				size_t off = sizeof(*e);

				if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*e)))
					return set_err(nl, EBADMSG);
				if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
					off += e->msg.nlmsg_len - sizeof(e->msg);
				parse_ext_ack(nl, nlh, off, true);
				if (e->error) {
					nl->err.code = -e->error;
					return e->error;
				}
				if (nl->err.msg[0])
					ew_warn("%s", nl->err.msg);
				if (dump)
					continue;
				nl->err.code = -cb_err;
				return cb_err;
			}
			if (nlh->nlmsg_type == NLMSG_DONE) {
				int err = 0;

				if (!dump)
					continue;
				if (mnl_nlmsg_get_payload_len(nlh) >= sizeof(int))
					memcpy(&err, mnl_nlmsg_get_payload(nlh), sizeof(int));
				parse_ext_ack(nl, nlh, sizeof(int), true);
				if (err) {
					nl->err.code = err < 0 ? -err : err;
					return -nl->err.code;
				}
				nl->err.code = -cb_err;
				return cb_err;
			}
			if (nlh->nlmsg_type == NLMSG_OVERRUN)
				return set_err(nl, EOVERFLOW);
			if (nlh->nlmsg_type < NLMSG_MIN_TYPE)
				continue;
			if (nlh->nlmsg_flags & NLM_F_DUMP_INTR)
				*intr = true;
			if (nlh->nlmsg_type != type || !cb || cb_err)
				continue;
			errno = 0;
			if (cb(nlh, data) < MNL_CB_OK)
				cb_err = -(errno ? errno : EPROTO);
		}
	}
}

/* Whether @req, of the eastwest family, changes the node. */
static bool changes_node(const struct ewnl *nl, const struct nlmsghdr *req)
{
	if (req->nlmsg_type != nl->family || (req->nlmsg_flags & NLM_F_DUMP))
		return false;
	switch (nl->cmd) {
	case EASTWEST_CMD_JOB_NEW:
	case EASTWEST_CMD_JOB_SET:
	case EASTWEST_CMD_JOB_DEL:
	case EASTWEST_CMD_PEER_ADD:
	case EASTWEST_CMD_PEER_DEL:
	case EASTWEST_CMD_CONFIG_SET:
	case EASTWEST_CMD_FABRIC_SET:
	case EASTWEST_CMD_NODE_SET:
		return true;
	}
	return false;
}

static int send_req(struct ewnl *nl, struct nlmsghdr *req)
{
	req->nlmsg_seq = ++nl->seq;
	if (mnl_socket_sendto(nl->sock, req, req->nlmsg_len) < 0)
		return set_err(nl, errno);
	return 0;
}

/**
 * ewnl_req() - start a request of the eastwest family
 * @nl: the socket
 * @cmd: EASTWEST_CMD_*
 * @flags: NLM_F_DUMP, or 0 for a do (acked)
 *
 * The message is built in nl->sbuf (nl->slen bytes): use the libmnl _check
 * helpers with that size for anything that could be large.
 *
 * Return: the message header.
 */
struct nlmsghdr *ewnl_req(struct ewnl *nl, uint8_t cmd, uint16_t flags)
{
	struct genlmsghdr *genl;
	struct nlmsghdr *nlh;

	nlh = mnl_nlmsg_put_header(nl->sbuf);
	nlh->nlmsg_type = nl->family;
	nlh->nlmsg_flags = NLM_F_REQUEST | (flags ? flags : NLM_F_ACK);
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = cmd;
	genl->version = EASTWEST_FAMILY_VERSION;
	nl->cmd = cmd;
	return nlh;
}

/**
 * ewnl_genl_req() - start a request of another generic netlink family
 * @nl: a socket from ewnl_open_family() for that family
 * @cmd: the family's command
 * @version: the family's version
 * @flags: NLM_F_DUMP, or 0 for a do (acked)
 *
 * Errors name attributes by number: the eastwest names do not apply.
 *
 * Return: the message header.
 */
struct nlmsghdr *ewnl_genl_req(struct ewnl *nl, uint8_t cmd, uint8_t version,
			       uint16_t flags)
{
	struct nlmsghdr *nlh = ewnl_req(nl, cmd, flags);
	struct genlmsghdr *genl = mnl_nlmsg_get_payload(nlh);

	genl->version = version;
	nl->cmd = 0;
	return nlh;
}

/**
 * ewnl_do() - send a request and read its reply (if any) and ack
 * @nl: the socket
 * @req: the request, from ewnl_req()
 * @cb: called for each reply message, may be NULL
 * @data: passed to @cb
 *
 * Return: 0 or a negative errno; nl->err tells what the kernel said.
 */
int ewnl_do(struct ewnl *nl, struct nlmsghdr *req, ewnl_cb cb, void *data)
{
	bool intr = false;
	int ret;

	/*
	 * A change takes the node lock if the command did not (one that
	 * reads the state it changes takes it before reading).
	 */
	if (changes_node(nl, req) && !ew_node_locked()) {
		char why[sizeof(nl->err.msg)];

		if (ew_node_lock(why, sizeof(why))) {
			set_err(nl, EWOULDBLOCK);
			snprintf(nl->err.msg, sizeof(nl->err.msg), "%s", why);
			return -EWOULDBLOCK;
		}
	}
	ret = send_req(nl, req);
	if (ret)
		return ret;
	ret = run(nl, req->nlmsg_seq, nl->family, false, cb, data, &intr);
	if (!ret && changes_node(nl, req))
		ew_changes++;
	return ret;
}

/**
 * ewnl_dump() - run a dump to its end, retrying if it was interrupted
 * @nl: the socket
 * @req: the request, from ewnl_req(..., NLM_F_DUMP)
 * @cb: called for each reply message
 * @data: passed to @cb
 * @reset: called before a retry, to drop what @cb collected (may be NULL)
 *
 * Return: 0 or a negative errno.
 */
int ewnl_dump(struct ewnl *nl, struct nlmsghdr *req, ewnl_cb cb, void *data,
	      void (*reset)(void *data))
{
	int attempt, ret;

	for (attempt = 0;; attempt++) {
		bool intr = false;

		ret = send_req(nl, req);
		if (ret)
			return ret;
		ret = run(nl, req->nlmsg_seq, nl->family, true, cb, data, &intr);
		if (ret || !intr)
			return ret;
		if (attempt == EWNL_DUMP_RETRIES) {
			set_err(nl, EAGAIN);
			snprintf(nl->err.msg, sizeof(nl->err.msg),
				 "dump was interrupted %d times: the state keeps changing, try again",
				 attempt + 1);
			return -EAGAIN;
		}
		ew_warn("dump was interrupted, retrying");
		if (reset)
			reset(data);
	}
}

/* Exit code for a failed request. */
int ewnl_exit_code(int err)
{
	if (err < 0)
		err = -err;
	if (err == EPERM)
		return EW_PERM;
	/* Scripts (Slurm epilog, OCI poststop) tell "already gone" apart. */
	if (err == ENOENT)
		return EW_NOENT;
	return EW_FAIL;
}

/**
 * ewnl_report() - print the error of the last request, as one line
 * @nl: the socket
 * @fmt: what was being done, e.g. "job add a"
 *
 * Prints "eastwestctl: WHAT: MESSAGE (ATTRIBUTE)", with the kernel's extack
 * message if it sent one, else the errno's text.
 *
 * Return: the exit code (EW_PERM for EPERM, EW_NOENT for ENOENT, else
 * EW_FAIL).
 */
int ewnl_report(struct ewnl *nl, const char *fmt, ...)
{
	const char *msg = nl->err.msg[0] ? nl->err.msg : strerror(nl->err.code);
	const char *hint = "";
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (nl->err.code == EPERM && !nl->err.msg[0])
		hint = " (CAP_NET_ADMIN is needed)";
	if (nl->err.attr[0])
		ew_err("%s: %s%s (%s)", what, msg, hint, nl->err.attr);
	else
		ew_err("%s: %s%s", what, msg, hint);
	return ewnl_exit_code(nl->err.code);
}

static int mcgrp_cb(const struct nlattr *grp, struct faminfo *fi)
{
	const char *name = NULL;
	const struct nlattr *a;
	uint32_t id = 0;

	mnl_attr_for_each_nested(a, grp) {
		if (mnl_attr_get_type(a) == CTRL_ATTR_MCAST_GRP_NAME &&
		    !mnl_attr_validate(a, MNL_TYPE_NUL_STRING))
			name = mnl_attr_get_str(a);
		else if (mnl_attr_get_type(a) == CTRL_ATTR_MCAST_GRP_ID &&
			 !mnl_attr_validate(a, MNL_TYPE_U32))
			id = mnl_attr_get_u32(a);
	}
	if (name && fi->group && !strcmp(name, fi->group))
		fi->group_id = id;
	return MNL_CB_OK;
}

static int family_cb(const struct nlmsghdr *nlh, void *data)
{
	struct faminfo *fi = data;
	const struct nlattr *a, *g;

	mnl_attr_for_each(a, nlh, EWNL_HDRLEN) {
		switch (mnl_attr_get_type(a)) {
		case CTRL_ATTR_FAMILY_ID:
			if (!mnl_attr_validate(a, MNL_TYPE_U16))
				fi->id = mnl_attr_get_u16(a);
			break;
		case CTRL_ATTR_VERSION:
			if (!mnl_attr_validate(a, MNL_TYPE_U32))
				fi->version = mnl_attr_get_u32(a);
			break;
		case CTRL_ATTR_MCAST_GROUPS:
			mnl_attr_for_each_nested(g, a)
				mcgrp_cb(g, fi);
			break;
		}
	}
	return MNL_CB_OK;
}

/* CTRL_CMD_GETFAMILY: the kernel autoloads the module of a known name. */
static int get_family(struct ewnl *nl, const char *name, struct faminfo *fi)
{
	struct genlmsghdr *genl;
	struct nlmsghdr *nlh;
	bool intr = false;
	int ret;

	nlh = mnl_nlmsg_put_header(nl->sbuf);
	nlh->nlmsg_type = GENL_ID_CTRL;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = CTRL_CMD_GETFAMILY;
	genl->version = 1;
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, name);
	nl->cmd = 0;

	ret = send_req(nl, nlh);
	if (ret)
		return ret;
	ret = run(nl, nlh->nlmsg_seq, GENL_ID_CTRL, false, family_cb, fi, &intr);
	if (!ret && !fi->id)
		return set_err(nl, ENOENT);
	return ret;
}

static void set_buf(struct ewnl *nl, int opt, int force_opt, int size)
{
	if (setsockopt(mnl_socket_get_fd(nl->sock), SOL_SOCKET, force_opt,
		       &size, sizeof(size)))
		setsockopt(mnl_socket_get_fd(nl->sock), SOL_SOCKET, opt,
			   &size, sizeof(size));
}

/**
 * ewnl_open_family() - open a socket and resolve a generic netlink family
 * @nlp: the new socket
 * @name: the family ("eastwest"; the unit tests use "nlctrl")
 *
 * Return: EW_OK, EW_NOTAVAIL if the family does not exist (the module is
 * not loaded and could not be), or EW_FAIL; the error is printed.
 */
int ewnl_open_family(struct ewnl **nlp, const char *name)
{
	struct faminfo fi = { .group = EASTWEST_MCGRP_EVENTS };
	struct faminfo ctrl = { .group = "notify" };
	struct ewnl *nl;
	int one = 1;
	int ret;

	nl = ew_calloc(1, sizeof(*nl));
	nl->slen = EWNL_SBUF;
	nl->sbuf = ew_calloc(1, nl->slen);
	nl->rlen = EWNL_RBUF;
	nl->rbuf = ew_malloc(nl->rlen);
	nl->seq = (uint32_t)time(NULL);

	nl->sock = mnl_socket_open(NETLINK_GENERIC);
	if (!nl->sock) {
		ew_err("cannot open a generic netlink socket: %s", strerror(errno));
		ret = EW_FAIL;
		goto err;
	}
	/* Old kernels lack some of these: errors are harmless. */
	mnl_socket_setsockopt(nl->sock, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(nl->sock, NETLINK_CAP_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(nl->sock, NETLINK_GET_STRICT_CHK, &one, sizeof(one));
	/* Peer chunks are ~64 KiB; the default wmem may be smaller. */
	set_buf(nl, SO_SNDBUF, SO_SNDBUFFORCE, EWNL_SOCKBUF);
	set_buf(nl, SO_RCVBUF, SO_RCVBUFFORCE, EWNL_SOCKBUF);

	if (mnl_socket_bind(nl->sock, 0, MNL_SOCKET_AUTOPID) < 0) {
		ew_err("cannot bind a generic netlink socket: %s", strerror(errno));
		ret = EW_FAIL;
		goto err;
	}
	nl->portid = mnl_socket_get_portid(nl->sock);

	ret = get_family(nl, name, &fi);
	if (ret == -ENOENT && !strcmp(name, EASTWEST_FAMILY_NAME)) {
		ew_err("eastwest is not available: no generic netlink family \"%s\" (is the eastwest module loaded?)",
		       name);
		ret = EW_NOTAVAIL;
		goto err;
	}
	if (ret == -ENOENT) {
		ew_err("no generic netlink family \"%s\" (its kernel module is not loaded)",
		       name);
		ret = EW_NOTAVAIL;
		goto err;
	}
	if (ret) {
		ret = ewnl_report(nl, "cannot resolve the %s family", name);
		goto err;
	}
	nl->family = fi.id;
	nl->version = fi.version;
	nl->grp_events = fi.group_id;
	if (!strcmp(name, EASTWEST_FAMILY_NAME) && fi.version < EASTWEST_FAMILY_VERSION)
		ew_warn("the kernel's eastwest family is version %u, this tool speaks %u",
			fi.version, EASTWEST_FAMILY_VERSION);
	if (!get_family(nl, "nlctrl", &ctrl))
		nl->grp_ctrl = ctrl.group_id;
	*nlp = nl;
	return EW_OK;
err:
	ewnl_close(nl);
	return ret;
}

/* Opens a socket for the eastwest family (see ewnl_open_family()). */
int ewnl_open(struct ewnl **nlp)
{
	return ewnl_open_family(nlp, EASTWEST_FAMILY_NAME);
}

void ewnl_close(struct ewnl *nl)
{
	if (!nl)
		return;
	if (nl->sock)
		mnl_socket_close(nl->sock);
	free(nl->sbuf);
	free(nl->rbuf);
	free(nl);
}

int ewnl_subscribe(struct ewnl *nl, uint32_t group)
{
	if (mnl_socket_setsockopt(nl->sock, NETLINK_ADD_MEMBERSHIP, &group,
				  sizeof(group)) < 0)
		return set_err(nl, errno);
	return 0;
}

/**
 * ewnl_recv_ntf() - read one datagram of notifications
 * @nl: the socket, subscribed to groups
 * @cb: called for each message (any family: check nlmsg_type)
 * @data: passed to @cb
 *
 * Return: 0, -ENOBUFS if notifications were lost (the socket is still
 * usable), or another negative errno.
 */
int ewnl_recv_ntf(struct ewnl *nl, ewnl_cb cb, void *data)
{
	const struct nlmsghdr *nlh;
	ssize_t n;
	int len;

	n = mnl_socket_recvfrom(nl->sock, nl->rbuf, nl->rlen);
	if (n < 0)
		return set_err(nl, errno);
	len = (int)n;
	for (nlh = (const void *)nl->rbuf; mnl_nlmsg_ok(nlh, len);
	     nlh = mnl_nlmsg_next(nlh, &len)) {
		if (nlh->nlmsg_type < NLMSG_MIN_TYPE)
			continue;
		if (cb(nlh, data) < MNL_CB_OK)
			return set_err(nl, errno ? errno : EPROTO);
	}
	return 0;
}
