// SPDX-License-Identifier: GPL-2.0
/*
 * eastwestctl monitor: one line per deny-ntf event (one JSON object per line
 * with -j) until SIGINT or SIGTERM, or until the module is unloaded.
 *
 * The signals are taken through a signalfd polled with the socket, so that
 * one arriving at any moment ends the loop cleanly (exit 0).
 */
#include <errno.h>
#include <linux/genetlink.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <linux/eastwest.h>

#include "addr.h"
#include "ewctl.h"
#include "json_out.h"
#include "parse.h"
#include "subcommands.h"

void monitor_usage(FILE *f)
{
	fprintf(f, "Usage: " EW_PROG " monitor\n"
		"Prints each denied (or, in audit mode, audited) operation until interrupted.\n");
}

struct event {
	uint32_t present;	/* bit n: attribute n was present */
	uint32_t u32[EASTWEST_A_EVENT_MAX + 1];
	uint64_t cgroup_id;
	uint16_t dest_lid;
	uint8_t dest_gid[16];
	char comm[32];
	char dev_name[64];
	bool revoke;		/* a revoke-ntf rather than a deny-ntf */
};

struct mon {
	struct ewnl *nl;
	bool gone;
};

#define HAS(ev, a) ((ev)->present & (1U << (a)))

/* Keeps a line a line: comm and device names come from elsewhere. */
static void sanitize(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x21 || (unsigned char)*s > 0x7e)
			*s = '?';
}

static int parse_event(const struct nlmsghdr *nlh, struct event *ev)
{
	const struct nlattr *a;

	memset(ev, 0, sizeof(*ev));
	mnl_attr_for_each(a, nlh, EWNL_HDRLEN) {
		unsigned int t = mnl_attr_get_type(a);

		if (t > EASTWEST_A_EVENT_MAX)
			continue;
		switch (t) {
		case EASTWEST_A_EVENT_PAD:
			continue;
		case EASTWEST_A_EVENT_COMM:
		case EASTWEST_A_EVENT_DEV_NAME:
			if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING))
				return -1;
			if (t == EASTWEST_A_EVENT_COMM)
				snprintf(ev->comm, sizeof(ev->comm), "%s", mnl_attr_get_str(a));
			else
				snprintf(ev->dev_name, sizeof(ev->dev_name), "%s",
					 mnl_attr_get_str(a));
			break;
		case EASTWEST_A_EVENT_CGROUP_ID:
			if (mnl_attr_validate(a, MNL_TYPE_U64))
				return -1;
			ev->cgroup_id = mnl_attr_get_u64(a);
			break;
		case EASTWEST_A_EVENT_DEST_GID:
			if (mnl_attr_validate2(a, MNL_TYPE_BINARY, sizeof(ev->dest_gid)))
				return -1;
			memcpy(ev->dest_gid, mnl_attr_get_payload(a), sizeof(ev->dest_gid));
			break;
		case EASTWEST_A_EVENT_DEST_LID:
			if (mnl_attr_validate(a, MNL_TYPE_U16))
				return -1;
			ev->dest_lid = mnl_attr_get_u16(a);
			break;
		default:
			if (mnl_attr_validate(a, MNL_TYPE_U32))
				return -1;
			ev->u32[t] = mnl_attr_get_u32(a);
			break;
		}
		ev->present |= 1U << t;
	}
	return 0;
}

static void print_json(const struct event *ev)
{
	static const struct {
		unsigned int attr;
		const char *key;
	} nums[] = {
		{ EASTWEST_A_EVENT_JOB_ID, "job_id" },
		{ EASTWEST_A_EVENT_PID, "pid" },
		{ EASTWEST_A_EVENT_UID, "uid" },
		{ EASTWEST_A_EVENT_PORT, "port" },
		{ EASTWEST_A_EVENT_QPN, "qpn" },
		{ EASTWEST_A_EVENT_DEST_QPN, "dest_qpn" },
	};
	struct json_object *o = json_object_new_object();
	char buf[EW_PEER_STRLEN];
	size_t i;

	json_object_object_add(o, "event", json_object_new_string(
		ev->revoke ? "revoke" : "deny"));
	if (HAS(ev, EASTWEST_A_EVENT_MODE))
		json_object_object_add(o, "mode", json_object_new_string(
			ew_enum_name(&ew_mode_names, ev->u32[EASTWEST_A_EVENT_MODE])));
	if (HAS(ev, EASTWEST_A_EVENT_OP))
		json_object_object_add(o, "op", json_object_new_string(
			ew_enum_name(&ew_op_names, ev->u32[EASTWEST_A_EVENT_OP])));
	if (HAS(ev, EASTWEST_A_EVENT_REASON))
		json_object_object_add(o, "reason", json_object_new_string(
			ew_enum_name(&ew_reason_names, ev->u32[EASTWEST_A_EVENT_REASON])));
	for (i = 0; i < EW_ARRAY_SIZE(nums); i++)
		if (HAS(ev, nums[i].attr))
			json_object_object_add(o, nums[i].key,
					       json_object_new_int64(ev->u32[nums[i].attr]));
	if (HAS(ev, EASTWEST_A_EVENT_COMM))
		json_object_object_add(o, "comm", json_object_new_string(ev->comm));
	if (HAS(ev, EASTWEST_A_EVENT_CGROUP_ID))
		json_object_object_add(o, "cgroup_id", json_object_new_uint64(ev->cgroup_id));
	if (HAS(ev, EASTWEST_A_EVENT_DEV_NAME))
		json_object_object_add(o, "dev_name", json_object_new_string(ev->dev_name));
	if (HAS(ev, EASTWEST_A_EVENT_DEST_GID))
		json_object_object_add(o, "dest_gid", json_object_new_string(
			ew_addr_format(ev->dest_gid, buf, sizeof(buf))));
	if (HAS(ev, EASTWEST_A_EVENT_DEST_LID))
		json_object_object_add(o, "dest_lid", json_object_new_int64(ev->dest_lid));
	ew_json_print(o);
}

/* deny modify-qp reason peer job 3 pid 812 uid 1000 comm app cgroup 77 dev rxe0 ... */
static void print_line(struct event *ev)
{
	char buf[EW_PEER_STRLEN];

	if (ev->revoke)
		printf("revoke reason %s",
		       ew_enum_name(&ew_reason_names, ev->u32[EASTWEST_A_EVENT_REASON]));
	else
		printf("%s %s reason %s",
		       HAS(ev, EASTWEST_A_EVENT_MODE) &&
		       ev->u32[EASTWEST_A_EVENT_MODE] == EASTWEST_MODE_AUDIT ?
		       "audit" : "deny",
		       ew_enum_name(&ew_op_names, ev->u32[EASTWEST_A_EVENT_OP]),
		       ew_enum_name(&ew_reason_names, ev->u32[EASTWEST_A_EVENT_REASON]));
	if (HAS(ev, EASTWEST_A_EVENT_JOB_ID))
		printf(" job %u", ev->u32[EASTWEST_A_EVENT_JOB_ID]);
	else
		printf(" job none");
	if (HAS(ev, EASTWEST_A_EVENT_PID))
		printf(" pid %u", ev->u32[EASTWEST_A_EVENT_PID]);
	if (HAS(ev, EASTWEST_A_EVENT_UID))
		printf(" uid %u", ev->u32[EASTWEST_A_EVENT_UID]);
	if (HAS(ev, EASTWEST_A_EVENT_COMM)) {
		sanitize(ev->comm);
		printf(" comm %s", ev->comm);
	}
	if (HAS(ev, EASTWEST_A_EVENT_CGROUP_ID))
		printf(" cgroup %llu", (unsigned long long)ev->cgroup_id);
	if (HAS(ev, EASTWEST_A_EVENT_DEV_NAME)) {
		sanitize(ev->dev_name);
		printf(" dev %s", ev->dev_name);
	}
	if (HAS(ev, EASTWEST_A_EVENT_PORT))
		printf(" port %u", ev->u32[EASTWEST_A_EVENT_PORT]);
	if (HAS(ev, EASTWEST_A_EVENT_QPN))
		printf(" qpn 0x%x", ev->u32[EASTWEST_A_EVENT_QPN]);
	if (HAS(ev, EASTWEST_A_EVENT_DEST_GID))
		printf(" dest %s", ew_addr_format(ev->dest_gid, buf, sizeof(buf)));
	if (HAS(ev, EASTWEST_A_EVENT_DEST_LID))
		printf(" dest-lid %u", ev->dest_lid);
	if (HAS(ev, EASTWEST_A_EVENT_DEST_QPN))
		printf(" dest-qpn 0x%x", ev->u32[EASTWEST_A_EVENT_DEST_QPN]);
	putchar('\n');
}

/* dev-add rxe0 index 3 / {"event": "dev-add", "dev_name": "rxe0", "index": 3} */
static void print_dev(const struct nlmsghdr *nlh, bool add)
{
	char name[64] = "?";
	const struct nlattr *a;
	uint32_t index = 0;

	mnl_attr_for_each(a, nlh, EWNL_HDRLEN) {
		if (mnl_attr_get_type(a) == EASTWEST_A_DEV_INDEX &&
		    !mnl_attr_validate(a, MNL_TYPE_U32))
			index = mnl_attr_get_u32(a);
		else if (mnl_attr_get_type(a) == EASTWEST_A_DEV_NAME &&
			 !mnl_attr_validate(a, MNL_TYPE_NUL_STRING))
			snprintf(name, sizeof(name), "%s", mnl_attr_get_str(a));
	}
	sanitize(name);
	if (ew_opts.json) {
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "event",
				       json_object_new_string(add ? "dev-add" : "dev-del"));
		json_object_object_add(o, "dev_name", json_object_new_string(name));
		json_object_object_add(o, "index", json_object_new_int64(index));
		ew_json_print(o);
	} else {
		printf("%s %s index %u\n", add ? "dev-add" : "dev-del", name, index);
	}
}

/* This node's admission state or requirement changed. */
static void print_admission(const struct nlmsghdr *nlh)
{
	uint32_t admission = EASTWEST_ADMISSION_UNATTESTED;
	bool required = false;
	const struct nlattr *a;

	mnl_attr_for_each(a, nlh, EWNL_HDRLEN) {
		if (mnl_attr_get_type(a) == EASTWEST_A_CONFIG_ADMISSION &&
		    !mnl_attr_validate(a, MNL_TYPE_U32))
			admission = mnl_attr_get_u32(a);
		else if (mnl_attr_get_type(a) == EASTWEST_A_CONFIG_ADMISSION_REQUIRED &&
			 !mnl_attr_validate(a, MNL_TYPE_U8))
			required = mnl_attr_get_u8(a);
	}
	if (ew_opts.json) {
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "event", json_object_new_string("admission"));
		json_object_object_add(o, "admission", json_object_new_string(
			ew_enum_name(&ew_admission_names, admission)));
		json_object_object_add(o, "admission_required",
				       json_object_new_boolean(required));
		ew_json_print(o);
	} else {
		printf("admission %s required %s\n",
		       ew_enum_name(&ew_admission_names, admission),
		       required ? "on" : "off");
	}
}

/* nlctrl says a family went away: is it ours? */
static bool family_deleted(const struct nlmsghdr *nlh, uint16_t family)
{
	const struct genlmsghdr *genl = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *a;

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*genl) ||
	    genl->cmd != CTRL_CMD_DELFAMILY)
		return false;
	mnl_attr_for_each(a, nlh, EWNL_HDRLEN)
		if (mnl_attr_get_type(a) == CTRL_ATTR_FAMILY_ID &&
		    !mnl_attr_validate(a, MNL_TYPE_U16))
			return mnl_attr_get_u16(a) == family;
	return false;
}

static int event_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct genlmsghdr *genl = mnl_nlmsg_get_payload(nlh);
	struct mon *m = data;
	struct event ev;

	if (nlh->nlmsg_type == GENL_ID_CTRL) {
		if (family_deleted(nlh, m->nl->family))
			m->gone = true;
		return MNL_CB_OK;
	}
	if (nlh->nlmsg_type != m->nl->family ||
	    mnl_nlmsg_get_payload_len(nlh) < sizeof(*genl))
		return MNL_CB_OK;
	if (genl->cmd == EASTWEST_CMD_DEV_ADD_NTF ||
	    genl->cmd == EASTWEST_CMD_DEV_DEL_NTF) {
		print_dev(nlh, genl->cmd == EASTWEST_CMD_DEV_ADD_NTF);
		fflush(stdout);
		return MNL_CB_OK;
	}
	if (genl->cmd == EASTWEST_CMD_ADMISSION_NTF) {
		print_admission(nlh);
		fflush(stdout);
		return MNL_CB_OK;
	}
	if (genl->cmd != EASTWEST_CMD_DENY_NTF &&
	    genl->cmd != EASTWEST_CMD_REVOKE_NTF)
		return MNL_CB_OK;
	if (parse_event(nlh, &ev)) {
		ew_warn("malformed event skipped");
		return MNL_CB_OK;
	}
	ev.revoke = genl->cmd == EASTWEST_CMD_REVOKE_NTF;
	if (ew_opts.json)
		print_json(&ev);
	else
		print_line(&ev);
	fflush(stdout);
	return MNL_CB_OK;
}

int monitor_main(int argc, char *argv[])
{
	struct mon m = { 0 };
	sigset_t mask, old;
	struct pollfd pfd[2];
	int ret, sfd;

	if (argc > 0 && !strcmp(argv[0], "help"))
		return ew_verb_error("monitor", argc, argv, monitor_usage);
	ret = ew_no_more_args(argc, argv);
	if (!ret)
		ret = ew_connect(&m.nl);
	if (ret)
		return ret;
	if (!m.nl->grp_events) {
		ew_err("monitor: the kernel's eastwest family has no \"%s\" group",
		       EASTWEST_MCGRP_EVENTS);
		return EW_FAIL;
	}
	if (ewnl_subscribe(m.nl, m.nl->grp_events))
		return ewnl_report(m.nl, "monitor: cannot subscribe to the events");
	if (m.nl->grp_ctrl)
		ewnl_subscribe(m.nl, m.nl->grp_ctrl);

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigprocmask(SIG_BLOCK, &mask, &old);
	sfd = signalfd(-1, &mask, SFD_CLOEXEC);
	if (sfd < 0) {
		ew_err("signalfd: %s", strerror(errno));
		ret = EW_FAIL;
		goto out;
	}
	pfd[0].fd = mnl_socket_get_fd(m.nl->sock);
	pfd[0].events = POLLIN;
	pfd[1].fd = sfd;
	pfd[1].events = POLLIN;

	ret = EW_OK;
	while (!m.gone) {
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			ew_err("poll: %s", strerror(errno));
			ret = EW_FAIL;
			break;
		}
		if (pfd[1].revents) {
			struct signalfd_siginfo si;

			/* Consume it, or unblocking would deliver it. */
			if (read(sfd, &si, sizeof(si)) < 0)
				ew_warn("signalfd: %s", strerror(errno));
			break;
		}
		if (!(pfd[0].revents & POLLIN))
			continue;
		if (!ewnl_recv_ntf(m.nl, event_cb, &m))
			continue;
		if (m.nl->err.code == ENOBUFS) {
			ew_warn("events were lost (the receive buffer overflowed)");
			continue;
		}
		if (m.nl->err.code == EINTR)
			continue;
		ret = ewnl_report(m.nl, "monitor");
		break;
	}
	if (m.gone) {
		ew_err("monitor: the eastwest module was unloaded");
		ew_disconnect();
		ret = EW_FAIL;
	}
	close(sfd);
out:
	sigprocmask(SIG_SETMASK, &old, NULL);
	return ret;
}
