// SPDX-License-Identifier: GPL-2.0
/*
 * Denial, revocation and device reports. The hooks may run in atomic
 * context and must neither
 * allocate nor sleep, so they copy the event into a fixed ring; a work item
 * logs it (rate-limited) and multicasts it to the netlink "events" group.
 * When the ring is full new events are dropped and counted, never blocked on.
 * An event that finds no memory for its message is lost to the listeners
 * only (a denial is still logged); the worker counts and reports those too.
 *
 * DOC: Fair shares of the ring and of the log
 *
 * A refusal costs its caller one failed system call, so any process can
 * make thousands a second. With one ring and one log budget for all, a
 * process that floods refusals of its own kept every other denial out of
 * the kernel log (10 lines per 5 s, used up in a millisecond) and could
 * fill the ring, hiding another job's refusal, or its own real attempt
 * made from a second identity; and however fair the ring, a listener's
 * socket overflowed with the flood's reports and lost the others. So each
 * source of denials, a job or a user in no job, has shares of its own: at
 * most EW_EVENT_SHARE reports in the ring, and half the room denials have
 * left (EW_EVENT_RESERVE slots are kept for the control plane's events),
 * EW_EVENT_RATE a second through it, and EW_LOG_BURST log lines per
 * EW_LOG_INTERVAL. Connect requests refused at a source's listeners, which
 * others send, have shares apart. What a source sends past them is
 * dropped (the ring) or kept out of the log, and counted against it (the
 * events-dropped counter, and its next logged line says how many were not
 * logged); the decision counters are exact whatever is dropped. Sources
 * are kept in a small table under the ring's lock, looked up only on the
 * denial path; when it is full, the sources past it share its last entry
 * (the shares then bound that group together). Revocations, devices and
 * admission changes come from the control plane and are not shared out.
 */

#include <linux/jiffies.h>
#include <linux/ratelimit.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <net/genetlink.h>

#include "events.h"
#include "fault.h"
#include "netlink-gen.h"

#define EW_EVENT_RING	256
/* Kept for revocations, devices and admission changes. */
#define EW_EVENT_RESERVE	32
/* A source's reports in the ring at most (and half the room left). */
#define EW_EVENT_SHARE	(EW_EVENT_RING / 8)
/* A source's reports a second: what a listener's socket takes from many. */
#define EW_EVENT_RATE	256
/* Sources told apart; the last entry is shared by any past them. */
#define EW_EVENT_SOURCES	32
#define EW_LOG_BURST	10
#define EW_LOG_INTERVAL	(5 * HZ)

/* So many uses per interval: when the current one began, how many so far. */
struct ew_event_budget {
	unsigned long start;
	unsigned int used;
};

/*
 * One source of denials: a job (@key its id) or a user in no job (@key
 * bit 32 set, the uid below). @queued: its reports in the ring; an entry
 * with none may be taken for another source. @rate: its reports let
 * through this second; @log: its lines logged this interval. @unlogged:
 * its denials not logged (dropped or over budget) since its last line.
 */
struct ew_event_source {
	u64 key;
	unsigned int queued;
	struct ew_event_budget rate;
	struct ew_event_budget log;
	unsigned int unlogged;
};

static struct ew_event ew_event_ring[EW_EVENT_RING];
static unsigned int ew_event_head, ew_event_tail;
static unsigned long ew_events_dropped;
static struct ew_event_source ew_event_sources[EW_EVENT_SOURCES];
static DEFINE_SPINLOCK(ew_event_lock);
/*
 * Delayed by a jiffy while the ring is less than half full: a burst of
 * reports (an audit-mode job connecting hundreds of QPs) then costs one
 * worker run, not a context switch per report.
 */
static struct delayed_work ew_event_work;
static bool ew_events_live;
/* The family whose "events" group hears them, given at init. */
static const struct genl_family *ew_event_family;

static const char *const ew_reason_names[] = {
	[EASTWEST_REASON_NO_JOB] = "no job",
	[EASTWEST_REASON_PEER] = "peer not allowed",
	[EASTWEST_REASON_SRC_NETDEV] = "source netdev not allowed",
	[EASTWEST_REASON_PKEY] = "P_Key not allowed",
	[EASTWEST_REASON_QKEY] = "Q_Key not allowed",
	[EASTWEST_REASON_QP_TYPE] = "QP type not allowed",
	[EASTWEST_REASON_UNPROTECTED_PATH] = "unprotected path",
	[EASTWEST_REASON_NOT_ADMITTED] = "node not admitted",
	[EASTWEST_REASON_INTERNAL] = "cannot evaluate",
	[EASTWEST_REASON_DEVX] = "DEVX context not allowed",
	[EASTWEST_REASON_QP_STATE] = "QP state claim or skipped INIT",
	[EASTWEST_REASON_REVOKED] = "QP was revoked",
	[EASTWEST_REASON_QP_OWNER] = "QP of another job",
	[EASTWEST_REASON_FOREIGN_QP] = "local QP or listener of another job",
	[EASTWEST_REASON_IWARP] = "QP on an iWARP device",
	[EASTWEST_REASON_KERNEL_ULP] = "kernel protocol over RDMA",
};

static const char *const ew_op_names[] = {
	[EASTWEST_OP_MODIFY_QP] = "modify_qp",
	[EASTWEST_OP_CREATE_AH] = "create_ah",
	[EASTWEST_OP_CREATE_QP] = "create_qp",
	[EASTWEST_OP_DEVX_CONTEXT] = "devx_context",
	[EASTWEST_OP_REVOKE] = "revoke",
	[EASTWEST_OP_ATTACH_MCAST] = "attach_mcast",
	[EASTWEST_OP_CM_MESSAGE] = "cm_message",
	[EASTWEST_OP_CM_LISTEN] = "cm_listen",
	[EASTWEST_OP_CM_REQUEST] = "cm_request",
	[EASTWEST_OP_ULP_BIND] = "ulp_bind",
};

/**
 * ew_event_dev() - report a device that appeared or went away
 * @cmd: EASTWEST_CMD_DEV_ADD_NTF or EASTWEST_CMD_DEV_DEL_NTF
 * @ibdev: the device
 */
void ew_event_dev(u32 cmd, struct ib_device *ibdev)
{
	struct ew_event ev = { .cmd = cmd, .dev_index = ibdev->index };

	strscpy(ev.dev_name, dev_name(&ibdev->dev), sizeof(ev.dev_name));
	ew_event_report(&ev);
}

/**
 * ew_event_admission() - report this node's admission state or requirement
 * @admission: enum eastwest_admission
 * @required: whether admission is required
 */
void ew_event_admission(u32 admission, bool required)
{
	struct ew_event ev = {
		.cmd = EASTWEST_CMD_ADMISSION_NTF,
		.admission = admission,
		.admission_required = required,
	};

	ew_event_report(&ev);
}

#define EW_SOURCE_NO_JOB	BIT_ULL(32)
#define EW_SOURCE_REQUESTS	BIT_ULL(33)

static u64 ew_event_source_key(const struct ew_event *ev)
{
	u64 key = ev->job_id ? ev->job_id : EW_SOURCE_NO_JOB | ev->uid;

	/*
	 * A connect request refused at a listener is reported as the
	 * listener's owner's, but whoever reaches the listener sends it, from
	 * this node or another: such refusals have shares of their own, so
	 * that they cannot use up the owner's.
	 */
	if (ev->op == EASTWEST_OP_CM_REQUEST)
		key |= EW_SOURCE_REQUESTS;
	return key;
}

/*
 * The entry of @ev's source: its own, a free one or one with no report in
 * the ring (the one whose log interval began first), else the last one.
 * Context: ew_event_lock held.
 */
static struct ew_event_source *ew_event_source_of(const struct ew_event *ev)
{
	u64 key = ew_event_source_key(ev);
	struct ew_event_source *src, *take = NULL;

	for (src = ew_event_sources; src < ew_event_sources + EW_EVENT_SOURCES; src++) {
		if (src->key == key)
			return src;
		if (src->queued)
			continue;
		if (!src->key) {
			if (!take || take->key)
				take = src;
		} else if (!take ||
			   (take->key && time_before(src->log.start, take->log.start))) {
			take = src;
		}
	}
	if (!take)
		return &ew_event_sources[EW_EVENT_SOURCES - 1];
	*take = (struct ew_event_source) {
		.key = key,
		.rate.start = jiffies - HZ,
		.log.start = jiffies - EW_LOG_INTERVAL,
	};
	return take;
}

/* Whether @b allows one more use of at most @max per @interval; takes it. */
static bool ew_event_budget_take(struct ew_event_budget *b,
				 unsigned long interval, unsigned int max)
{
	if (time_after_eq(jiffies, b->start + interval)) {
		b->start = jiffies;
		b->used = 0;
	}
	if (b->used >= max)
		return false;
	b->used++;
	return true;
}

/*
 * Whether @src may put one more report in the ring, @used slots of which
 * are taken: fewer than EW_EVENT_SHARE there and than half the room that
 * denials have left (so that however many sources flood, a newcomer finds
 * room), and fewer than EW_EVENT_RATE this second. Context: ew_event_lock
 * held.
 */
static bool ew_event_source_pass(struct ew_event_source *src,
				 unsigned int used)
{
	unsigned int room = EW_EVENT_RING - EW_EVENT_RESERVE;

	room = used < room ? room - used : 0;
	if (src->queued >= EW_EVENT_SHARE || src->queued >= DIV_ROUND_UP(room, 2))
		return false;
	return ew_event_budget_take(&src->rate, HZ, EW_EVENT_RATE);
}

/**
 * ew_event_report() - queue a report
 * @ev: the event (copied)
 *
 * A denial counts against its source's shares (see "Fair shares" above).
 *
 * Context: any (the ftrace hooks, possibly atomic).
 * Return: false if it was dropped.
 */
bool ew_event_report(const struct ew_event *ev)
{
	struct ew_event_source *src = NULL;
	struct ew_event *slot;
	unsigned long flags;
	unsigned int used;

	spin_lock_irqsave(&ew_event_lock, flags);
	used = ew_event_head - ew_event_tail;
	if (ev->cmd == EASTWEST_CMD_DENY_NTF) {
		src = ew_event_source_of(ev);
		if (used < EW_EVENT_RING && !ew_event_source_pass(src, used))
			used = EW_EVENT_RING;	/* over its share: dropped */
	}
	if (used < EW_EVENT_RING) {
		slot = &ew_event_ring[ew_event_head % EW_EVENT_RING];
		*slot = *ev;
		slot->source = src ? src - ew_event_sources : -1;
		if (src) {
			src->queued++;
			slot->log = ew_event_budget_take(&src->log,
							 EW_LOG_INTERVAL,
							 EW_LOG_BURST);
			if (slot->log) {
				slot->unlogged = src->unlogged;
				src->unlogged = 0;
			} else {
				src->unlogged++;
			}
		}
		ew_event_head++;
		/*
		 * Scheduled under the lock that ew_events_exit() takes to
		 * stop: no work is queued after its cancel.
		 */
		/* Half full: drain now, before reports are dropped. */
		if (ew_events_live && used + 1 >= EW_EVENT_RING / 2)
			mod_delayed_work(system_wq, &ew_event_work, 0);
		else if (ew_events_live)
			schedule_delayed_work(&ew_event_work, 1);
	} else {
		ew_events_dropped++;
		if (src)
			src->unlogged++;
	}
	spin_unlock_irqrestore(&ew_event_lock, flags);
	return used < EW_EVENT_RING;
}

/**
 * ew_event_report_wait() - queue a report from process context, waiting for
 * room in the ring rather than dropping it
 * @ev: the event (copied)
 *
 * A revocation reports thousands of QPs in a row, faster than the worker
 * drains the ring; each of them must reach the listeners. Once the ring is
 * half full the caller waits for the worker. Denials reported by the hooks
 * at the same moment may still fill it: those are dropped and counted, as
 * always.
 *
 * Context: process context, may sleep. The worker takes no lock of ours but
 * the ring's, so any caller's locks are safe to hold.
 */
void ew_event_report_wait(const struct ew_event *ev)
{
	unsigned int used;

	might_sleep();
	spin_lock_irq(&ew_event_lock);
	used = ew_event_head - ew_event_tail;
	spin_unlock_irq(&ew_event_lock);
	if (used >= EW_EVENT_RING / 2 && READ_ONCE(ew_events_live))
		flush_delayed_work(&ew_event_work);
	ew_event_report(ev);
}

/**
 * ew_reason_name() - the log text of an enum eastwest_reason
 * @reason: the reason
 */
const char *ew_reason_name(u32 reason)
{
	if (reason >= ARRAY_SIZE(ew_reason_names) || !ew_reason_names[reason])
		return "unknown reason";
	return ew_reason_names[reason];
}

static void ew_event_log(const struct ew_event *ev)
{
	const char *verdict = ev->mode == EASTWEST_MODE_AUDIT ?
			      "audit: would deny" : "denied";

	if (ev->cmd != EASTWEST_CMD_DENY_NTF || !ev->log)
		return;	/* revocations and devices log where they happen */

	if (ev->unlogged && ev->op == EASTWEST_OP_CM_REQUEST)
		pr_warn("job %u: %u requests refused at its listeners not logged (over their share)\n",
			ev->job_id, ev->unlogged);
	else if (ev->unlogged && ev->job_id)
		pr_warn("job %u: %u denials not logged (over its share)\n",
			ev->job_id, ev->unlogged);
	else if (ev->unlogged)
		pr_warn("uid %u in no job: %u denials not logged (over its share)\n",
			ev->uid, ev->unlogged);
	if (ev->has_dgid)
		pr_warn("%s %s: %s: job %u pid %u (%s) uid %u cgroup %llu dev %s port %u qpn 0x%x dgid %pI6c dqpn 0x%x\n",
			verdict, ew_op_names[ev->op], ew_reason_names[ev->reason],
			ev->job_id, ev->pid, ev->comm, ev->uid, ev->cgroup_id,
			ev->dev_name, ev->port, ev->qpn, ev->dgid,
			ev->dest_qpn);
	else
		pr_warn("%s %s: %s: job %u pid %u (%s) uid %u cgroup %llu dev %s port %u qpn 0x%x\n",
			verdict, ew_op_names[ev->op], ew_reason_names[ev->reason],
			ev->job_id, ev->pid, ev->comm, ev->uid, ev->cgroup_id,
			ev->dev_name, ev->port, ev->qpn);
}

static int ew_event_fill_dev(struct sk_buff *skb, const struct ew_event *ev)
{
	if (nla_put_u32(skb, EASTWEST_A_DEV_INDEX, ev->dev_index) ||
	    nla_put_string(skb, EASTWEST_A_DEV_NAME, ev->dev_name))
		return -EMSGSIZE;
	return 0;
}

/* The destination of a revoke or deny event: its GID or its LID, if known. */
static int ew_event_fill_dest(struct sk_buff *skb, const struct ew_event *ev)
{
	if (ev->has_dgid &&
	    nla_put(skb, EASTWEST_A_EVENT_DEST_GID, sizeof(ev->dgid), ev->dgid))
		return -EMSGSIZE;
	if (ev->has_dlid && nla_put_u16(skb, EASTWEST_A_EVENT_DEST_LID, ev->dlid))
		return -EMSGSIZE;
	return 0;
}

static int ew_event_fill_revoke(struct sk_buff *skb, const struct ew_event *ev)
{
	if (nla_put_u32(skb, EASTWEST_A_EVENT_OP, ev->op) ||
	    nla_put_u32(skb, EASTWEST_A_EVENT_REASON, ev->reason) ||
	    nla_put_u32(skb, EASTWEST_A_EVENT_JOB_ID, ev->job_id) ||
	    nla_put_string(skb, EASTWEST_A_EVENT_DEV_NAME, ev->dev_name) ||
	    nla_put_u32(skb, EASTWEST_A_EVENT_QPN, ev->qpn))
		return -EMSGSIZE;
	return ew_event_fill_dest(skb, ev);
}

static int ew_event_fill(struct sk_buff *skb, const struct ew_event *ev)
{
	if (ev->cmd == EASTWEST_CMD_ADMISSION_NTF)
		return nla_put_u32(skb, EASTWEST_A_CONFIG_ADMISSION, ev->admission) ||
		       nla_put_u8(skb, EASTWEST_A_CONFIG_ADMISSION_REQUIRED,
				  ev->admission_required) ? -EMSGSIZE : 0;
	if (ev->cmd == EASTWEST_CMD_DEV_ADD_NTF || ev->cmd == EASTWEST_CMD_DEV_DEL_NTF)
		return ew_event_fill_dev(skb, ev);
	if (ev->cmd == EASTWEST_CMD_REVOKE_NTF)
		return ew_event_fill_revoke(skb, ev);
	if (nla_put_u32(skb, EASTWEST_A_EVENT_OP, ev->op) ||
	    nla_put_u32(skb, EASTWEST_A_EVENT_REASON, ev->reason) ||
	    nla_put_u32(skb, EASTWEST_A_EVENT_MODE, ev->mode) ||
	    (ev->job_id && nla_put_u32(skb, EASTWEST_A_EVENT_JOB_ID, ev->job_id)) ||
	    nla_put_u32(skb, EASTWEST_A_EVENT_PID, ev->pid) ||
	    nla_put_u32(skb, EASTWEST_A_EVENT_UID, ev->uid) ||
	    nla_put_string(skb, EASTWEST_A_EVENT_COMM, ev->comm) ||
	    nla_put_u64_64bit(skb, EASTWEST_A_EVENT_CGROUP_ID, ev->cgroup_id,
			      EASTWEST_A_EVENT_PAD) ||
	    nla_put_string(skb, EASTWEST_A_EVENT_DEV_NAME, ev->dev_name) ||
	    nla_put_u32(skb, EASTWEST_A_EVENT_PORT, ev->port))
		return -EMSGSIZE;
	if (ev->has_qpn && nla_put_u32(skb, EASTWEST_A_EVENT_QPN, ev->qpn))
		return -EMSGSIZE;
	if (ew_event_fill_dest(skb, ev))
		return -EMSGSIZE;
	if (ev->has_dest_qpn &&
	    nla_put_u32(skb, EASTWEST_A_EVENT_DEST_QPN, ev->dest_qpn))
		return -EMSGSIZE;
	return 0;
}

/*
 * Room for the largest event, a denial with every attribute (nine u32s,
 * the comm, the cgroup id, the device name, a GID and a LID): a message of
 * a page each would let a listener's socket hold a quarter as many.
 */
static size_t ew_event_size(void)
{
	return 9 * nla_total_size(sizeof(u32)) +
	       nla_total_size(TASK_COMM_LEN) +
	       nla_total_size_64bit(sizeof(u64)) +
	       nla_total_size(IB_DEVICE_NAME_MAX) +
	       nla_total_size(16) + nla_total_size(sizeof(u16));
}

/* Return: false if there was no memory for the message. */
static bool ew_event_send(const struct ew_event *ev)
{
	struct sk_buff *skb;
	void *hdr;

	if (!genl_has_listeners(ew_event_family, &init_net, EASTWEST_NLGRP_EVENTS))
		return true;
	skb = genlmsg_new(ew_event_size(), GFP_KERNEL);
	EW_FAIL_ALLOC(skb, nlmsg_free(skb));
	if (!skb)
		return false;
	hdr = genlmsg_put(skb, 0, 0, ew_event_family, 0, ev->cmd);
	if (WARN_ON_ONCE(!hdr || ew_event_fill(skb, ev))) {
		nlmsg_free(skb);
		return true;
	}
	genlmsg_end(skb, hdr);
	/* A listener with a full socket sees ENOBUFS there, as for any group. */
	genlmsg_multicast(ew_event_family, skb, 0, EASTWEST_NLGRP_EVENTS,
			  GFP_KERNEL);
	return true;
}

static void ew_event_worker(struct work_struct *work)
{
	unsigned long dropped, unsent = 0;
	struct ew_event ev;

	for (;;) {
		spin_lock_irq(&ew_event_lock);
		if (ew_event_tail == ew_event_head) {
			dropped = ew_events_dropped;
			ew_events_dropped = 0;
			spin_unlock_irq(&ew_event_lock);
			break;
		}
		ev = ew_event_ring[ew_event_tail % EW_EVENT_RING];
		ew_event_tail++;
		if (ev.source >= 0)
			ew_event_sources[ev.source].queued--;
		spin_unlock_irq(&ew_event_lock);

		ew_event_log(&ev);
		if (!ew_event_send(&ev))
			unsent++;
		cond_resched();
	}
	if (dropped)
		pr_warn_ratelimited("%lu denial events dropped (ring full or over a source's share)\n",
				    dropped);
	if (unsent)
		pr_warn_ratelimited("%lu events not sent to listeners: out of memory\n",
				    unsent);
}

/**
 * ew_events_init() - start delivering events
 * @family: the registered family whose "events" group they go to
 */
int ew_events_init(const struct genl_family *family)
{
	ew_event_family = family;
	INIT_DELAYED_WORK(&ew_event_work, ew_event_worker);
	WRITE_ONCE(ew_events_live, true);
	/* Devices registered before us queued their events already. */
	schedule_delayed_work(&ew_event_work, 0);
	return 0;
}

/**
 * ew_events_exit() - stop; the hooks must already be gone
 */
void ew_events_exit(void)
{
	unsigned long flags;

	spin_lock_irqsave(&ew_event_lock, flags);
	WRITE_ONCE(ew_events_live, false);
	spin_unlock_irqrestore(&ew_event_lock, flags);
	cancel_delayed_work_sync(&ew_event_work);
}
