/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the netlink test tools (ew_churn, ew_nlfuzz) share: the socket
 * options older headers lack, the header of a generic netlink request, and
 * the family id read from nlctrl's answer to CTRL_CMD_GETFAMILY.
 */
#ifndef EW_TOOLS_GENL_H
#define EW_TOOLS_GENL_H

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <stdint.h>

#ifndef NETLINK_EXT_ACK
#define NETLINK_EXT_ACK 11
#endif
#ifndef NETLINK_CAP_ACK
#define NETLINK_CAP_ACK 10
#endif

/* An acked request (plus @flags) of command @cmd of family @type, in @buf. */
static inline struct nlmsghdr *genl_put_request(void *buf, uint16_t type, uint16_t flags,
						uint8_t cmd, uint8_t version)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *g;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = version;
	return nlh;
}

static inline int genl_family_id_attr_cb(const struct nlattr *a, void *data)
{
	if (mnl_attr_get_type(a) == CTRL_ATTR_FAMILY_ID &&
	    mnl_attr_validate(a, MNL_TYPE_U16) == 0)
		*(uint16_t *)data = mnl_attr_get_u16(a);
	return MNL_CB_OK;
}

/* For mnl_cb_run(): the family id of a CTRL_CMD_GETFAMILY reply, into the
 * uint16_t at @data (left alone if the reply has none). */
static inline int genl_family_id_cb(const struct nlmsghdr *nlh, void *data)
{
	return mnl_attr_parse(nlh, GENL_HDRLEN, genl_family_id_attr_cb, data);
}

#endif /* EW_TOOLS_GENL_H */
