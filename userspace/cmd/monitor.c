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

#include "cmd/subcommands.h"
#include "ewctl.h"
#include "io/output.h"
#include "model/addr.h"
#include "model/parse.h"

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

/*
 * deny modify-qp reason peer job 3 pid 812 uid 1000 comm app cgroup 77 dev rxe0 ...
 * {"event": "deny", "mode": "enforce", "op": "modify-qp", "reason": "peer", ...}
 * The text form has the mode in its first word and every name made
 * printable; the JSON one has the QP numbers before the names.
 */
static void print_event(struct event *ev)
{
	bool audit = HAS(ev, EASTWEST_A_EVENT_MODE) &&
		     ev->u32[EASTWEST_A_EVENT_MODE] == EASTWEST_MODE_AUDIT;
	char buf[EW_PEER_STRLEN];

	ew_open_object(NULL);
	ew_print_string(EW_JSON, "event", NULL, ev->revoke ? "revoke" : "deny");
	ew_print_text("%s", ev->revoke ? "revoke" : audit ? "audit" : "deny");
	if (HAS(ev, EASTWEST_A_EVENT_MODE))
		ew_print_enum(EW_JSON, "mode", NULL, &ew_mode_names, ev->u32[EASTWEST_A_EVENT_MODE]);
	ew_print_enum(ew_when(!ev->revoke, HAS(ev, EASTWEST_A_EVENT_OP)), "op", " %s",
		      &ew_op_names, ev->u32[EASTWEST_A_EVENT_OP]);
	ew_print_enum(ew_when(true, HAS(ev, EASTWEST_A_EVENT_REASON)), "reason", " reason %s",
		      &ew_reason_names, ev->u32[EASTWEST_A_EVENT_REASON]);
	if (HAS(ev, EASTWEST_A_EVENT_JOB_ID))
		ew_print_uint(EW_ANY, "job_id", " job %u", ev->u32[EASTWEST_A_EVENT_JOB_ID]);
	else
		ew_print_text(" job none");
	if (HAS(ev, EASTWEST_A_EVENT_PID))
		ew_print_uint(EW_ANY, "pid", " pid %u", ev->u32[EASTWEST_A_EVENT_PID]);
	if (HAS(ev, EASTWEST_A_EVENT_UID))
		ew_print_uint(EW_ANY, "uid", " uid %u", ev->u32[EASTWEST_A_EVENT_UID]);
	if (HAS(ev, EASTWEST_A_EVENT_PORT))
		ew_print_uint(EW_JSON, "port", NULL, ev->u32[EASTWEST_A_EVENT_PORT]);
	if (HAS(ev, EASTWEST_A_EVENT_QPN))
		ew_print_uint(EW_JSON, "qpn", NULL, ev->u32[EASTWEST_A_EVENT_QPN]);
	if (HAS(ev, EASTWEST_A_EVENT_DEST_QPN))
		ew_print_uint(EW_JSON, "dest_qpn", NULL, ev->u32[EASTWEST_A_EVENT_DEST_QPN]);
	if (HAS(ev, EASTWEST_A_EVENT_COMM)) {
		ew_print_string(EW_JSON, "comm", NULL, ev->comm);
		sanitize(ev->comm);
		ew_print_text(" comm %s", ev->comm);
	}
	if (HAS(ev, EASTWEST_A_EVENT_CGROUP_ID))
		ew_print_u64(EW_ANY, "cgroup_id", " cgroup %llu", ev->cgroup_id);
	if (HAS(ev, EASTWEST_A_EVENT_DEV_NAME)) {
		ew_print_string(EW_JSON, "dev_name", NULL, ev->dev_name);
		sanitize(ev->dev_name);
		ew_print_text(" dev %s", ev->dev_name);
	}
	if (HAS(ev, EASTWEST_A_EVENT_PORT))
		ew_print_text(" port %u", ev->u32[EASTWEST_A_EVENT_PORT]);
	if (HAS(ev, EASTWEST_A_EVENT_QPN))
		ew_print_text(" qpn 0x%x", ev->u32[EASTWEST_A_EVENT_QPN]);
	if (HAS(ev, EASTWEST_A_EVENT_DEST_GID))
		ew_print_string(EW_ANY, "dest_gid", " dest %s",
				ew_addr_format(ev->dest_gid, buf, sizeof(buf)));
	if (HAS(ev, EASTWEST_A_EVENT_DEST_LID))
		ew_print_uint(EW_ANY, "dest_lid", " dest-lid %u", ev->dest_lid);
	if (HAS(ev, EASTWEST_A_EVENT_DEST_QPN))
		ew_print_text(" dest-qpn 0x%x", ev->u32[EASTWEST_A_EVENT_DEST_QPN]);
	ew_print_text("\n");
	ew_close_object();
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
	ew_open_object(NULL);
	ew_print_string(EW_ANY, "event", "%s", add ? "dev-add" : "dev-del");
	ew_print_string(EW_ANY, "dev_name", " %s", name);
	ew_print_uint(EW_ANY, "index", " index %u\n", index);
	ew_close_object();
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
	ew_open_object(NULL);
	ew_print_string(EW_JSON, "event", NULL, "admission");
	ew_print_enum(EW_ANY, "admission", "admission %s", &ew_admission_names, admission);
	ew_print_on_off(EW_ANY, "admission_required", " required %s\n", required);
	ew_close_object();
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
	print_event(&ev);
	fflush(stdout);
	return MNL_CB_OK;
}

static int monitor_run(int argc, char *argv[])
{
	struct mon m = { 0 };
	sigset_t mask, old;
	struct pollfd pfd[2];
	int ret, sfd;

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

int monitor_main(int argc, char *argv[])
{
	static const struct ew_cmd cmds[] = {
		{ EW_CMD_ANY,	monitor_run },
		{ NULL },
	};

	return ew_exec_cmd("monitor", monitor_usage, cmds, argc, argv);
}
