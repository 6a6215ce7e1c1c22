// SPDX-License-Identifier: GPL-2.0
/*
 * A fake eastwest module for the end-to-end tests: the mnl_socket_* calls
 * below replace libmnl's, answer CTRL_CMD_GETFAMILY for "eastwest" and
 * "nlctrl", and implement the family's operations on a struct ew_state with
 * the semantics the kernel documents (Documentation/netlink/specs/
 * eastwest.yaml): extack messages with attribute offsets, dumps split over
 * several datagrams, NLM_F_DUMP_INTR on request, EPERM on request. It
 * also stands in for uname(), sleep() and clock_gettime(), so that what
 * depends on the release or on time does not.
 */
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <linux/eastwest.h>

#include "ewctl.h"
#include "fake_kernel.h"
#include "io/ipc.h"
#include "io/keys.h"
#include "model/diff.h"

#define FAMILY 0x20
#define GRP_EVENTS 7

struct mnl_socket {
	int fd;
};

struct fake fake;

static struct mnl_socket sock = { .fd = -1 };
static int pipefd[2] = { -1, -1 };

/* Replies waiting to be read: one datagram each. */
static struct {
	char buf[65536];
	size_t len;
} q[4096];
static size_t q_head, q_tail;



void fake_reset(void)
{
	ew_state_free(&fake.st);
	memset(&fake, 0, sizeof(fake));
	fake.present = true;
	fake.next_id = 1;
	fake.st.config.present = EW_CFG_MODE | EW_CFG_DEFAULT;
	q_head = q_tail = 0;
	if (pipefd[0] >= 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		pipefd[0] = pipefd[1] = sock.fd = -1;
	}
}

static char *dgram(void)
{
	if (q_tail == EW_ARRAY_SIZE(q))
		abort();
	q[q_tail].len = 0;
	return q[q_tail].buf;
}

static struct nlmsghdr *msg_start(uint16_t type, uint16_t flags, uint32_t seq,
				  uint8_t cmd, bool same_dgram)
{
	struct nlmsghdr *nlh;
	struct genlmsghdr *g;

	if (!same_dgram)
		dgram();
	nlh = mnl_nlmsg_put_header(q[q_tail].buf + q[q_tail].len);
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = flags;
	nlh->nlmsg_seq = seq;
	nlh->nlmsg_pid = 1234;
	if (type >= NLMSG_MIN_TYPE) {
		g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
		g->cmd = cmd;
		g->version = 1;
	}
	return nlh;
}

static void msg_end(struct nlmsghdr *nlh, bool last_in_dgram)
{
	q[q_tail].len += NLMSG_ALIGN(nlh->nlmsg_len);
	if (last_in_dgram) {
		q_tail++;
		/* The socket's fd (a pipe) is readable while replies wait. */
		if (sock.fd >= 0 && write(pipefd[1], "", 1) != 1)
			abort();
	}
}

static void ack(const struct nlmsghdr *req, int err, const char *msg, uint32_t offs,
		int miss)
{
	struct nlmsghdr *nlh = msg_start(NLMSG_ERROR, NLM_F_CAPPED, req->nlmsg_seq,
					 0, false);
	struct nlmsgerr *e = mnl_nlmsg_put_extra_header(nlh, sizeof(*e));

	e->error = -err;
	e->msg = *req;
	if (msg || offs || miss)
		nlh->nlmsg_flags |= NLM_F_ACK_TLVS;
	if (msg)
		mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, msg);
	if (offs)
		mnl_attr_put_u32(nlh, NLMSGERR_ATTR_OFFS, offs);
	if (miss)
		mnl_attr_put_u32(nlh, NLMSGERR_ATTR_MISS_TYPE, (uint32_t)miss);
	msg_end(nlh, true);
}

static void done(const struct nlmsghdr *req)
{
	struct nlmsghdr *nlh = msg_start(NLMSG_DONE, NLM_F_MULTI, req->nlmsg_seq, 0,
					 false);
	int zero = 0;

	memcpy(mnl_nlmsg_put_extra_header(nlh, sizeof(int)), &zero, sizeof(int));
	msg_end(nlh, true);
}

static uint32_t off(const struct nlmsghdr *req, const struct nlattr *a)
{
	return (uint32_t)((const char *)a - (const char *)req);
}

static void getfamily(const struct nlmsghdr *req)
{
	const struct nlattr *a;
	const char *name = "";
	struct nlmsghdr *nlh;
	struct nlattr *grps, *g;

	mnl_attr_for_each(a, req, GENL_HDRLEN)
		if (mnl_attr_get_type(a) == CTRL_ATTR_FAMILY_NAME)
			name = mnl_attr_get_str(a);
	if (!(!strcmp(name, "eastwest") && fake.present) && strcmp(name, "nlctrl")) {
		ack(req, ENOENT, NULL, 0, 0);
		return;
	}
	nlh = msg_start(GENL_ID_CTRL, 0, req->nlmsg_seq, CTRL_CMD_NEWFAMILY, false);
	mnl_attr_put_u16(nlh, CTRL_ATTR_FAMILY_ID, strcmp(name, "nlctrl") ? FAMILY : GENL_ID_CTRL);
	mnl_attr_put_u32(nlh, CTRL_ATTR_VERSION, 1);
	grps = mnl_attr_nest_start(nlh, CTRL_ATTR_MCAST_GROUPS);
	g = mnl_attr_nest_start(nlh, 1);
	mnl_attr_put_strz(nlh, CTRL_ATTR_MCAST_GRP_NAME,
			  strcmp(name, "nlctrl") ? "events" : "notify");
	mnl_attr_put_u32(nlh, CTRL_ATTR_MCAST_GRP_ID, strcmp(name, "nlctrl") ? GRP_EVENTS : 16);
	mnl_attr_nest_end(nlh, g);
	mnl_attr_nest_end(nlh, grps);
	msg_end(nlh, true);
	ack(req, 0, NULL, 0, 0);
}

static void put_counters(struct nlmsghdr *nlh, uint16_t type, uint64_t base)
{
	struct nlattr *n = mnl_attr_nest_start(nlh, type);
	uint16_t i;

	/* Each counter grows by its number every (fake) second slept. */
	for (i = EASTWEST_A_COUNTERS_ALLOWED; i <= EASTWEST_A_COUNTERS_MAX; i++)
		mnl_attr_put_u64(nlh, i, base + i + (uint64_t)fake.slept * i);
	mnl_attr_nest_end(nlh, n);
}

static void put_peer(struct nlmsghdr *nlh, uint16_t type, const struct ew_peer_addr *p)
{
	struct nlattr *n = mnl_attr_nest_start(nlh, type);

	if (p->is_lid) {
		mnl_attr_put_u16(nlh, EASTWEST_A_PEER_LID, p->lid);
	} else {
		mnl_attr_put(nlh, EASTWEST_A_PEER_ADDR, 16, p->addr);
		if (p->plen != 128)
			mnl_attr_put_u8(nlh, EASTWEST_A_PEER_PREFIX_LEN, p->plen);
	}
	mnl_attr_nest_end(nlh, n);
}

static void put_job(struct nlmsghdr *nlh, const struct ew_job_desc *j)
{
	struct nlattr *n;
	size_t i;

	mnl_attr_put_u32(nlh, EASTWEST_A_JOB_ID, j->id);
	mnl_attr_put_strz(nlh, EASTWEST_A_JOB_NAME, j->name);
	mnl_attr_put_u32(nlh, EASTWEST_A_JOB_MODE, j->mode);
	mnl_attr_put_u32(nlh, EASTWEST_A_JOB_ENCRYPT, j->encrypt);
	mnl_attr_put_u32(nlh, EASTWEST_A_JOB_QKEY, j->qkey);
	mnl_attr_put_u8(nlh, EASTWEST_A_JOB_UD, j->ud);
	mnl_attr_put_u8(nlh, EASTWEST_A_JOB_DC, j->dc);
	mnl_attr_put_u32(nlh, EASTWEST_A_JOB_PSN, j->psn);
	if (j->psn == EASTWEST_PSN_KEYED) {
		uint32_t check;

		if (!ew_psn_key_check(j->psn_key, &check))
			mnl_attr_put_u32(nlh, EASTWEST_A_JOB_PSN_KEY_CHECK, check);
	}
	for (i = 0; i < j->n_cgroups; i++) {
		n = mnl_attr_nest_start(nlh, EASTWEST_A_JOB_CGROUP);
		mnl_attr_put_strz(nlh, EASTWEST_A_CGROUP_PATH, j->cgroups[i].path);
		mnl_attr_put_u64(nlh, EASTWEST_A_CGROUP_ID, 1000 + i);
		mnl_attr_nest_end(nlh, n);
	}
	for (i = 0; i < j->n_netdevs; i++) {
		n = mnl_attr_nest_start(nlh, EASTWEST_A_JOB_NETDEV);
		if (j->netdevs[i].kind == EW_NETDEV_VLAN)
			mnl_attr_put_u16(nlh, EASTWEST_A_NETDEV_VLAN, (uint16_t)j->netdevs[i].value);
		else
			mnl_attr_put_u32(nlh, j->netdevs[i].kind == EW_NETDEV_VRF ?
					 EASTWEST_A_NETDEV_VRF : EASTWEST_A_NETDEV_IFINDEX,
					 j->netdevs[i].value);
		mnl_attr_nest_end(nlh, n);
	}
	for (i = 0; i < j->n_pkeys; i++)
		mnl_attr_put_u16(nlh, EASTWEST_A_JOB_PKEY, j->pkeys[i]);
	mnl_attr_put_u32(nlh, EASTWEST_A_JOB_PEER_COUNT, (uint32_t)j->peers.n);
	mnl_attr_put_u32(nlh, EASTWEST_A_JOB_QP_COUNT, 2);
	put_counters(nlh, EASTWEST_A_JOB_COUNTERS, 100 * j->id);
}

/* The records of a peer-recs attribute, appended to @out; -1 if malformed. */
static int parse_peer_recs(const struct nlattr *a, struct ew_peers *out)
{
	const uint8_t *rec = mnl_attr_get_payload(a);
	size_t len = mnl_attr_get_payload_len(a), i;
	struct ew_peer_addr p;

	if (!len || len % EASTWEST_PEER_REC_LEN)
		return -1;
	for (i = 0; i < len; i += EASTWEST_PEER_REC_LEN) {
		memset(&p, 0, sizeof(p));
		memcpy(p.addr, rec + i, 16);
		p.plen = rec[i + 16];
		if (p.plen > 128 || rec[i + 17] || rec[i + 18] || rec[i + 19])
			return -1;
		ew_peers_add(out, &p);
	}
	return (int)(len / EASTWEST_PEER_REC_LEN);
}

/* By id, else by name (eastwestctl itself finds jobs by name in the replies). */
static struct ew_job_desc *find(uint32_t id, const char *name)
{
	size_t i;

	if (id)
		return ew_state_find_id(&fake.st, id);
	for (i = 0; i < fake.st.n_jobs; i++)
		if (!strcmp(fake.st.jobs[i].name, name))
			return &fake.st.jobs[i];
	return NULL;
}

/* The job a request names by its id, else by its name. */
static struct ew_job_desc *find_req(const struct nlmsghdr *req)
{
	const char *name = "";
	const struct nlattr *a;
	uint32_t id = 0;

	mnl_attr_for_each(a, req, GENL_HDRLEN) {
		if (mnl_attr_get_type(a) == EASTWEST_A_JOB_ID)
			id = mnl_attr_get_u32(a);
		if (mnl_attr_get_type(a) == EASTWEST_A_JOB_NAME)
			name = mnl_attr_get_str(a);
	}
	return find(id, name);
}

/* Whether sorted @ps holds @p. */
static bool peers_contain(const struct ew_peers *ps, const struct ew_peer_addr *p)
{
	return ps->n && bsearch(p, ps->v, ps->n, sizeof(*ps->v), ew_peer_cmp);
}

/* job-new / job-set: attributes onto @j (a scratch copy). */
static int apply_job_attrs(const struct nlmsghdr *req, struct ew_job_desc *j, bool set,
			   const char **msg, uint32_t *offs)
{
	bool cg = false, nd = false, pk = false, key = false;
	bool had_key = j->present & EW_JOB_PSN_KEY;
	const struct nlattr *a, *b;
	struct ew_peer_addr p;
	size_t i;

	mnl_attr_for_each(a, req, GENL_HDRLEN) {
		switch (mnl_attr_get_type(a)) {
		case EASTWEST_A_JOB_NAME:
			snprintf(j->name, sizeof(j->name), "%s", mnl_attr_get_str(a));
			break;
		case EASTWEST_A_JOB_MODE:
			j->mode = mnl_attr_get_u32(a);
			break;
		case EASTWEST_A_JOB_ENCRYPT:
			j->encrypt = mnl_attr_get_u32(a);
			break;
		case EASTWEST_A_JOB_QKEY:
			j->qkey = mnl_attr_get_u32(a);
			if (j->qkey & 0x80000000U) {
				*msg = "privileged Q_Key";
				*offs = off(req, a);
				return EINVAL;
			}
			break;
		case EASTWEST_A_JOB_UD:
		case EASTWEST_A_JOB_DC:
			/* The policy's NLA_POLICY_MAX(NLA_U8, 1). */
			if (mnl_attr_get_payload_len(a) != 1 || mnl_attr_get_u8(a) > 1) {
				*msg = "integer out of range";
				*offs = off(req, a);
				return ERANGE;
			}
			if (mnl_attr_get_type(a) == EASTWEST_A_JOB_UD)
				j->ud = mnl_attr_get_u8(a);
			else
				j->dc = mnl_attr_get_u8(a);
			break;
		case EASTWEST_A_JOB_PSN:
			j->psn = mnl_attr_get_u32(a);
			break;
		case EASTWEST_A_JOB_PSN_KEY:
			memcpy(j->psn_key, mnl_attr_get_payload(a), sizeof(j->psn_key));
			key = true;
			break;
		case EASTWEST_A_JOB_CGROUP:
			if (!cg) {
				for (i = 0; i < j->n_cgroups; i++)
					free(j->cgroups[i].path);
				j->n_cgroups = 0;
				cg = true;
			}
			mnl_attr_for_each_nested(b, a)
				if (mnl_attr_get_type(b) == EASTWEST_A_CGROUP_PATH)
					ew_job_add_cgroup(j, mnl_attr_get_str(b), 0);
			break;
		case EASTWEST_A_JOB_NETDEV:
			if (!nd) {
				j->n_netdevs = 0;
				nd = true;
			}
			mnl_attr_for_each_nested(b, a) {
				uint16_t t = mnl_attr_get_type(b);

				ew_job_add_netdev(j, t == EASTWEST_A_NETDEV_VLAN ? EW_NETDEV_VLAN :
						  t == EASTWEST_A_NETDEV_VRF ? EW_NETDEV_VRF :
						  EW_NETDEV_IFINDEX,
						  t == EASTWEST_A_NETDEV_VLAN ? mnl_attr_get_u16(b) :
						  mnl_attr_get_u32(b), NULL);
			}
			break;
		case EASTWEST_A_JOB_PKEY:
			if (!pk) {
				j->n_pkeys = 0;
				pk = true;
			}
			if (mnl_attr_get_u16(a))
				ew_job_add_pkey(j, mnl_attr_get_u16(a));
			break;
		case EASTWEST_A_JOB_PEER:
			if (set || ew_ipc_parse_peer(a, &p)) {
				*msg = "bad peer";
				*offs = off(req, a);
				return EINVAL;
			}
			ew_peers_add(&j->peers, &p);
			break;
		case EASTWEST_A_JOB_PEER_RECS:
			if (set || parse_peer_recs(a, &j->peers) < 0) {
				*msg = "bad peer-recs";
				*offs = off(req, a);
				return EINVAL;
			}
			break;
		}
	}
	/* The module's ew_psn_check(): a key is kept while PSNs are keyed. */
	if (j->psn == EASTWEST_PSN_KEYED && !key && !had_key) {
		*msg = "keyed PSNs need a psn-key";
		return EINVAL;
	}
	if (j->psn == EASTWEST_PSN_APP && key) {
		*msg = "a psn-key needs psn keyed";
		return EINVAL;
	}
	if (j->psn == EASTWEST_PSN_KEYED)
		j->present |= EW_JOB_PSN_KEY;
	else
		j->present &= ~EW_JOB_PSN_KEY;
	ew_job_normalize(j);
	return 0;
}

static int cgroup_conflict(const struct ew_job_desc *j, const char **msg)
{
	size_t i, k, l;

	for (i = 0; i < fake.st.n_jobs; i++) {
		if (fake.st.jobs[i].id == j->id)
			continue;
		for (k = 0; k < j->n_cgroups; k++)
			for (l = 0; l < fake.st.jobs[i].n_cgroups; l++)
				if (!strcmp(j->cgroups[k].path, fake.st.jobs[i].cgroups[l].path)) {
					*msg = "cgroup is bound to another job";
					return EBUSY;
				}
	}
	return 0;
}

static void copy_job(struct ew_job_desc *dst, const struct ew_job_desc *src)
{
	size_t i;

	ew_job_init(dst);
	dst->id = src->id;
	strcpy(dst->name, src->name);
	dst->mode = src->mode;
	dst->encrypt = src->encrypt;
	dst->qkey = src->qkey;
	dst->ud = src->ud;
	dst->dc = src->dc;
	dst->psn = src->psn;
	memcpy(dst->psn_key, src->psn_key, sizeof(dst->psn_key));
	dst->present = src->present & EW_JOB_PSN_KEY;
	for (i = 0; i < src->n_cgroups; i++)
		ew_job_add_cgroup(dst, src->cgroups[i].path, 0);
	for (i = 0; i < src->n_netdevs; i++)
		ew_job_add_netdev(dst, src->netdevs[i].kind, src->netdevs[i].value, NULL);
	for (i = 0; i < src->n_pkeys; i++)
		ew_job_add_pkey(dst, src->pkeys[i]);
	for (i = 0; i < src->peers.n; i++)
		ew_peers_add(&dst->peers, &src->peers.v[i]);
}

static void job_new(const struct nlmsghdr *req)
{
	const struct nlattr *a, *name_attr = NULL;
	const char *msg = NULL;
	struct ew_job_desc j, *slot;
	struct nlmsghdr *nlh;
	uint32_t offs = 0;
	int err;

	ew_job_init(&j);
	mnl_attr_for_each(a, req, GENL_HDRLEN) {
		if (mnl_attr_get_type(a) == EASTWEST_A_JOB_ID)
			j.id = mnl_attr_get_u32(a);
		if (mnl_attr_get_type(a) == EASTWEST_A_JOB_NAME)
			name_attr = a;
	}
	if (!name_attr) {
		ack(req, EINVAL, "missing name", 0, EASTWEST_A_JOB_NAME);
		return;
	}
	if (find(0, mnl_attr_get_str(name_attr))) {
		ack(req, EEXIST, "job name already in use", off(req, name_attr), 0);
		return;
	}
	if (j.id && ew_state_find_id(&fake.st, j.id)) {
		ack(req, EEXIST, "job id already in use", 0, 0);
		return;
	}
	err = apply_job_attrs(req, &j, false, &msg, &offs);
	if (!err)
		err = cgroup_conflict(&j, &msg);
	if (err) {
		ew_job_free(&j);
		ack(req, err, msg, offs, 0);
		return;
	}
	if (!j.id)
		while (ew_state_find_id(&fake.st, j.id = fake.next_id++))
			;
	slot = ew_state_add_job(&fake.st);
	*slot = j;
	nlh = msg_start(FAMILY, 0, req->nlmsg_seq, EASTWEST_CMD_JOB_NEW, false);
	mnl_attr_put_u32(nlh, EASTWEST_A_JOB_ID, slot->id);
	msg_end(nlh, true);
	ack(req, 0, NULL, 0, 0);
}

static void job_set(const struct nlmsghdr *req)
{
	const char *msg = NULL;
	const struct nlattr *a;
	struct ew_job_desc j, *cur;
	uint32_t id = 0, offs = 0;
	int err;

	mnl_attr_for_each(a, req, GENL_HDRLEN)
		if (mnl_attr_get_type(a) == EASTWEST_A_JOB_ID)
			id = mnl_attr_get_u32(a);
	cur = id ? ew_state_find_id(&fake.st, id) : NULL;
	if (!cur) {
		ack(req, ENOENT, "no such job", 0, id ? 0 : EASTWEST_A_JOB_ID);
		return;
	}
	copy_job(&j, cur);
	err = apply_job_attrs(req, &j, true, &msg, &offs);
	if (!err)
		err = cgroup_conflict(&j, &msg);
	if (!err && strcmp(j.name, cur->name) && find(0, j.name)) {
		err = EEXIST;
		msg = "job name already in use";
	}
	if (err) {
		ew_job_free(&j);
		ack(req, err, msg, offs, 0);
		return;
	}
	ew_job_free(cur);
	*cur = j;
	ack(req, 0, NULL, 0, 0);
}

/* Job @id deleted by another program meanwhile (an epilog). */
static void gone(uint32_t id)
{
	struct ew_job_desc *j = find(id, NULL);

	if (!j)
		return;
	ew_job_free(j);
	*j = fake.st.jobs[--fake.st.n_jobs];
}

static void job_del(const struct nlmsghdr *req)
{
	struct ew_job_desc *j = find_req(req);

	if (!j) {
		ack(req, ENOENT, "no such job", 0, 0);
		return;
	}
	ew_job_free(j);
	*j = fake.st.jobs[--fake.st.n_jobs];
	ack(req, 0, NULL, 0, 0);
}

static void job_get(const struct nlmsghdr *req, bool dump)
{
	struct nlmsghdr *nlh;
	struct ew_job_desc *j;
	size_t i;

	if (dump) {
		/* Two jobs per datagram. */
		for (i = 0; i < fake.st.n_jobs; i++) {
			nlh = msg_start(FAMILY, NLM_F_MULTI, req->nlmsg_seq,
					EASTWEST_CMD_JOB_GET, i % 2);
			if (fake.dump_intr)
				nlh->nlmsg_flags |= NLM_F_DUMP_INTR;
			put_job(nlh, &fake.st.jobs[i]);
			msg_end(nlh, i % 2 || i + 1 == fake.st.n_jobs);
		}
		if (fake.dump_intr)
			fake.dump_intr--;
		done(req);
		return;
	}
	j = find_req(req);
	if (!j) {
		ack(req, ENOENT, "no such job", (uint32_t)(NLMSG_HDRLEN + GENL_HDRLEN), 0);
		return;
	}
	nlh = msg_start(FAMILY, 0, req->nlmsg_seq, EASTWEST_CMD_JOB_GET, false);
	put_job(nlh, j);
	msg_end(nlh, true);
	ack(req, 0, NULL, 0, 0);
}

static void peers(const struct nlmsghdr *req, uint8_t cmd, bool dump)
{
	struct ew_peers in = { 0 };
	const struct nlattr *a;
	struct nlmsghdr *nlh;
	struct ew_job_desc *j;
	uint32_t id = 0;
	struct ew_peer_addr p;
	size_t i, n = 0;

	mnl_attr_for_each(a, req, GENL_HDRLEN) {
		if (mnl_attr_get_type(a) == EASTWEST_A_PEER_LIST_JOB_ID)
			id = mnl_attr_get_u32(a);
		if (mnl_attr_get_type(a) == EASTWEST_A_PEER_LIST_PEER) {
			if (ew_ipc_parse_peer(a, &p)) {
				ack(req, EINVAL, "bad peer", off(req, a), 0);
				goto out;
			}
			ew_peers_add(&in, &p);
			n++;
		}
		if (mnl_attr_get_type(a) == EASTWEST_A_PEER_LIST_PEER_RECS) {
			int k = cmd == EASTWEST_CMD_PEER_ADD ? parse_peer_recs(a, &in) : -1;

			if (k < 0) {
				ack(req, EINVAL, "bad peer-recs", off(req, a), 0);
				goto out;
			}
			n += (size_t)k;
		}
	}
	if (n > fake.max_peers)
		fake.max_peers = n;
	j = ew_state_find_id(&fake.st, id);
	if (!j) {
		ack(req, ENOENT, "no such job", 0, id ? 0 : EASTWEST_A_PEER_LIST_JOB_ID);
		goto out;
	}
	if (cmd == EASTWEST_CMD_PEER_GET && dump) {
		/* 300 peers per message, one message per datagram. */
		for (i = 0; i < j->peers.n || !i; i += 300) {
			size_t k;

			nlh = msg_start(FAMILY, NLM_F_MULTI, req->nlmsg_seq, cmd, false);
			if (fake.dump_intr)
				nlh->nlmsg_flags |= NLM_F_DUMP_INTR;
			mnl_attr_put_u32(nlh, EASTWEST_A_PEER_LIST_JOB_ID, id);
			for (k = i; k < i + 300 && k < j->peers.n; k++)
				put_peer(nlh, EASTWEST_A_PEER_LIST_PEER, &j->peers.v[k]);
			msg_end(nlh, true);
			if (!j->peers.n)
				break;
		}
		if (fake.dump_intr)
			fake.dump_intr--;
		done(req);
	} else if (cmd == EASTWEST_CMD_PEER_GET) {
		const struct ew_peer_addr *best = NULL;

		for (i = 0; i < j->peers.n; i++) {
			const struct ew_peer_addr *c = &j->peers.v[i];
			unsigned int b;
			bool match = true;

			if (c->is_lid || in.v[0].is_lid) {
				match = c->is_lid && in.v[0].is_lid && c->lid == in.v[0].lid;
			} else {
				for (b = 0; b < c->plen; b++)
					if ((c->addr[b / 8] ^ in.v[0].addr[b / 8]) & (0x80 >> (b % 8)))
						match = false;
			}
			if (match && (!best || c->plen > best->plen))
				best = c;
		}
		if (!best) {
			ack(req, ENOENT, NULL, 0, 0);
			goto out;
		}
		nlh = msg_start(FAMILY, 0, req->nlmsg_seq, cmd, false);
		mnl_attr_put_u32(nlh, EASTWEST_A_PEER_LIST_JOB_ID, id);
		put_peer(nlh, EASTWEST_A_PEER_LIST_PEER, best);
		msg_end(nlh, true);
		ack(req, 0, NULL, 0, 0);
	} else if (cmd == EASTWEST_CMD_PEER_ADD) {
		/*
		 * A chunk that goes in order after the job's last peer (what
		 * eastwestctl sends of a sorted list) leaves the list sorted
		 * and unique: no pass over the whole list per chunk. For a
		 * million peers in 500 chunks that pass was two thirds of a
		 * host profile of apply against this fake, and not
		 * eastwestctl's time.
		 */
		bool in_order = !j->peers.n || !in.n ||
				ew_peer_cmp(&j->peers.v[j->peers.n - 1], &in.v[0]) < 0;

		for (i = 1; in_order && i < in.n; i++)
			in_order = ew_peer_cmp(&in.v[i - 1], &in.v[i]) < 0;
		for (i = 0; i < in.n; i++)
			ew_peers_add(&j->peers, &in.v[i]);
		if (!in_order)
			ew_peers_sort_unique(&j->peers);
		ack(req, 0, NULL, 0, 0);
	} else {
		/* All or nothing: every peer must exist. */
		i = 0;
		mnl_attr_for_each(a, req, GENL_HDRLEN) {
			if (mnl_attr_get_type(a) != EASTWEST_A_PEER_LIST_PEER)
				continue;
			if (!peers_contain(&j->peers, &in.v[i++])) {
				ack(req, ENOENT, "peer not found", off(req, a), 0);
				goto out;
			}
		}
		ew_peers_sort_unique(&in);
		{
			struct ew_peers keep = { 0 }, add = { 0 };

			ew_peers_diff(&j->peers, &in, &keep, &add);
			ew_peers_free(&j->peers);
			j->peers = keep;
			ew_peers_free(&add);
		}
		ack(req, 0, NULL, 0, 0);
	}
out:
	ew_peers_free(&in);
}

static void config(const struct nlmsghdr *req, bool set)
{
	struct ew_config *c = &fake.st.config;
	const struct nlattr *a;
	struct nlmsghdr *nlh;
	size_t i, npeers = 0;

	if (set) {
		mnl_attr_for_each(a, req, GENL_HDRLEN) {
			if (mnl_attr_get_type(a) == EASTWEST_A_CONFIG_MODE)
				c->mode = mnl_attr_get_u32(a);
			if (mnl_attr_get_type(a) == EASTWEST_A_CONFIG_DEFAULT_ACTION)
				c->default_action = mnl_attr_get_u32(a);
			if (mnl_attr_get_type(a) == EASTWEST_A_CONFIG_ADMISSION)
				c->admission = mnl_attr_get_u32(a);
			if (mnl_attr_get_type(a) == EASTWEST_A_CONFIG_ADMISSION_REQUIRED)
				c->admission_required = mnl_attr_get_u8(a);
			if (mnl_attr_get_type(a) == EASTWEST_A_CONFIG_ADMISSION_TTL)
				c->admission_ttl = mnl_attr_get_u32(a);
		}
		ack(req, 0, NULL, 0, 0);
		return;
	}
	for (i = 0; i < fake.st.n_jobs; i++)
		npeers += fake.st.jobs[i].peers.n;
	nlh = msg_start(FAMILY, 0, req->nlmsg_seq, EASTWEST_CMD_CONFIG_GET, false);
	mnl_attr_put_u32(nlh, EASTWEST_A_CONFIG_MODE, c->mode);
	mnl_attr_put_u32(nlh, EASTWEST_A_CONFIG_DEFAULT_ACTION, c->default_action);
	mnl_attr_put_strz(nlh, EASTWEST_A_CONFIG_VERSION, "0.1.0");
	mnl_attr_put_u32(nlh, EASTWEST_A_CONFIG_JOB_COUNT, (uint32_t)fake.st.n_jobs);
	mnl_attr_put_u32(nlh, EASTWEST_A_CONFIG_PEER_COUNT, (uint32_t)npeers);
	put_counters(nlh, EASTWEST_A_CONFIG_COUNTERS, 0);
	if (fake.full) {
		mnl_attr_put_u32(nlh, EASTWEST_A_CONFIG_ADMISSION, c->admission);
		mnl_attr_put_u8(nlh, EASTWEST_A_CONFIG_ADMISSION_REQUIRED, c->admission_required);
		if (c->admission_ttl)
			mnl_attr_put_u32(nlh, EASTWEST_A_CONFIG_ADMISSION_TTL, c->admission_ttl);
		for (i = 0; i < c->n_revoked; i++)
			mnl_attr_put(nlh, EASTWEST_A_CONFIG_REVOKED_NODE, 16, c->revoked[i]);
		mnl_attr_put_u32(nlh, EASTWEST_A_CONFIG_PHYSICAL_IFINDEX, 1);
	}
	msg_end(nlh, true);
	ack(req, 0, NULL, 0, 0);
}

/* node-set: revoke addresses (kept in the config's list) or admit them again. */
static void node_set(const struct nlmsghdr *req)
{
	struct ew_config *c = &fake.st.config;
	uint32_t admission = EASTWEST_ADMISSION_REVOKED;
	const struct nlattr *a;
	size_t i;

	mnl_attr_for_each(a, req, GENL_HDRLEN)
		if (mnl_attr_get_type(a) == EASTWEST_A_NODE_ADMISSION)
			admission = mnl_attr_get_u32(a);
	mnl_attr_for_each(a, req, GENL_HDRLEN) {
		if (mnl_attr_get_type(a) != EASTWEST_A_NODE_ADDR)
			continue;
		for (i = 0; i < c->n_revoked; i++)
			if (!memcmp(c->revoked[i], mnl_attr_get_payload(a), 16))
				break;
		if (admission == EASTWEST_ADMISSION_REVOKED && i == c->n_revoked) {
			c->revoked = ew_reallocarray(c->revoked, c->n_revoked + 1, 16);
			memcpy(c->revoked[c->n_revoked++], mnl_attr_get_payload(a), 16);
		} else if (admission != EASTWEST_ADMISSION_REVOKED && i < c->n_revoked) {
			memcpy(c->revoked[i], c->revoked[--c->n_revoked], 16);
		}
	}
	ack(req, 0, NULL, 0, 0);
}

/* path-get: protected by MACsec on "lo" (and ESP), or, unless full, not at all. */
static void path_get(const struct nlmsghdr *req)
{
	struct nlmsghdr *nlh;

	nlh = msg_start(FAMILY, 0, req->nlmsg_seq, EASTWEST_CMD_PATH_GET, false);
	if (fake.full) {
		mnl_attr_put_u32(nlh, EASTWEST_A_PATH_PROTECTION,
				 EASTWEST_PROTECTION_MACSEC | EASTWEST_PROTECTION_IPSEC);
		mnl_attr_put_u32(nlh, EASTWEST_A_PATH_IFINDEX, 1);
		mnl_attr_put_u32(nlh, EASTWEST_A_PATH_MACSEC_IFINDEX, 1);
		mnl_attr_put_u32(nlh, EASTWEST_A_PATH_MACSEC_OFFLOAD, EASTWEST_MACSEC_OFFLOAD_MAC);
		mnl_attr_put_u32(nlh, EASTWEST_A_PATH_IPSEC_SPI, 0x1234);
	} else {
		mnl_attr_put_u32(nlh, EASTWEST_A_PATH_PROTECTION, 0);
	}
	msg_end(nlh, true);
	ack(req, 0, NULL, 0, 0);
}

/* One GID entry of dev_dump(): 192.0.2.@last on "lo", VLAN 100. */
static void dev_gid(struct nlmsghdr *nlh, uint32_t index, uint8_t last)
{
	uint8_t gid[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 0 };
	struct nlattr *g;

	gid[15] = last;
	g = mnl_attr_nest_start(nlh, EASTWEST_A_PORT_GID);
	mnl_attr_put_u32(nlh, EASTWEST_A_GID_INDEX, index);
	mnl_attr_put(nlh, EASTWEST_A_GID_GID, 16, gid);
	mnl_attr_put_u32(nlh, EASTWEST_A_GID_TYPE, EASTWEST_GID_TYPE_ROCE_V2);
	mnl_attr_put_u32(nlh, EASTWEST_A_GID_IFINDEX, 1);
	mnl_attr_put_strz(nlh, EASTWEST_A_GID_IFNAME, "lo");
	mnl_attr_put_u16(nlh, EASTWEST_A_GID_VLAN, 100);
	if (fake.full) {
		/* Index 1: on "lo" (ifindex 1) throughout; others: no such ifindex. */
		mnl_attr_put_u32(nlh, EASTWEST_A_GID_VRF, index == 1 ? 1 : 9999);
		mnl_attr_put_u32(nlh, EASTWEST_A_GID_MTU, 1024 * index);
		mnl_attr_put_u32(nlh, EASTWEST_A_GID_PROTECTION, index | 8);
		mnl_attr_put_u32(nlh, EASTWEST_A_GID_MACSEC_IFINDEX, index == 1 ? 1 : 9999);
		mnl_attr_put_u32(nlh, EASTWEST_A_GID_MACSEC_OFFLOAD, index % 3);
		mnl_attr_put_u32(nlh, EASTWEST_A_GID_OFFLOAD_CAPS, index == 1 ? 7 : 0);
	}
	mnl_attr_nest_end(nlh, g);
}

/* A device message's header and its port nest, opened. */
static struct nlattr *dev_msg(const struct nlmsghdr *req, struct nlmsghdr **nlh,
			      uint32_t index, const char *name)
{
	struct nlattr *port;

	*nlh = msg_start(FAMILY, NLM_F_MULTI, req->nlmsg_seq, EASTWEST_CMD_DEV_GET, false);
	mnl_attr_put_u32(*nlh, EASTWEST_A_DEV_INDEX, index);
	mnl_attr_put_strz(*nlh, EASTWEST_A_DEV_NAME, name);
	mnl_attr_put_u32(*nlh, EASTWEST_A_DEV_QPN_OBSERVED, 40);
	mnl_attr_put_u32(*nlh, EASTWEST_A_DEV_QPN_SEQUENTIAL, 39);
	mnl_attr_put_u32(*nlh, EASTWEST_A_DEV_QPN_ORDER, EASTWEST_QPN_ORDER_RANDOM);
	port = mnl_attr_nest_start(*nlh, EASTWEST_A_DEV_PORT);
	mnl_attr_put_u32(*nlh, EASTWEST_A_PORT_NUM, 1);
	mnl_attr_put_u32(*nlh, EASTWEST_A_PORT_LINK_LAYER, EASTWEST_LINK_LAYER_ETHERNET);
	return port;
}

/*
 * As the module sends a device whose GIDs do not fit one message: rxe0's
 * port 1 in two messages (GID 1, then GID 2 and the P_Key), then rxe1.
 */
static void dev_dump(const struct nlmsghdr *req)
{
	struct nlmsghdr *nlh;
	struct nlattr *port;

	port = dev_msg(req, &nlh, 3, "rxe0");
	dev_gid(nlh, 1, 1);
	mnl_attr_nest_end(nlh, port);
	msg_end(nlh, true);
	port = dev_msg(req, &nlh, 3, "rxe0");
	dev_gid(nlh, 2, 2);
	mnl_attr_put_u16(nlh, EASTWEST_A_PORT_PKEY, 0xffff);
	mnl_attr_nest_end(nlh, port);
	msg_end(nlh, true);
	port = dev_msg(req, &nlh, 4, "rxe1");
	dev_gid(nlh, 0, 9);
	mnl_attr_nest_end(nlh, port);
	msg_end(nlh, true);
	done(req);
}

static bool admin(uint8_t cmd)
{
	return cmd != EASTWEST_CMD_DEV_GET && cmd != EASTWEST_CMD_CONFIG_GET &&
	       cmd != EASTWEST_CMD_PATH_GET;
}

/* The requests that change the jobs or the configuration. */
static bool change(uint8_t cmd)
{
	return cmd == EASTWEST_CMD_JOB_NEW || cmd == EASTWEST_CMD_JOB_SET ||
	       cmd == EASTWEST_CMD_JOB_DEL || cmd == EASTWEST_CMD_PEER_ADD ||
	       cmd == EASTWEST_CMD_PEER_DEL || cmd == EASTWEST_CMD_CONFIG_SET;
}

ssize_t mnl_socket_sendto(const struct mnl_socket *nl, const void *buf, size_t len)
{
	const struct nlmsghdr *req = buf;
	const struct genlmsghdr *g = mnl_nlmsg_get_payload(req);
	bool dump = req->nlmsg_flags & NLM_F_DUMP;

	(void)nl;
	if (req->nlmsg_len != len)
		abort();
	if (req->nlmsg_type == GENL_ID_CTRL) {
		getfamily(req);
		return (ssize_t)len;
	}
	if (req->nlmsg_type != FAMILY || !fake.present) {
		ack(req, ENOENT, NULL, 0, 0);
		return (ssize_t)len;
	}
	if (g->cmd <= EASTWEST_CMD_MAX)
		fake.msgs[g->cmd]++;
	if (fake.eperm && admin(g->cmd)) {
		ack(req, EPERM, NULL, 0, 0);
		return (ssize_t)len;
	}
	if (change(g->cmd) && fake.gone_change && fake.changes + 1 == fake.gone_change)
		gone(fake.gone_id);
	if (fake.fail_cmd == g->cmd ||
	    (change(g->cmd) && ++fake.changes == fake.fail_change)) {
		ack(req, fake.fail_errno ? fake.fail_errno : EINVAL, "refused by the test", 0, 0);
		return (ssize_t)len;
	}
	if (change(g->cmd) && fake.signal_change && fake.changes == fake.signal_change)
		raise(SIGTERM);
	switch (g->cmd) {
	case EASTWEST_CMD_JOB_GET:
		job_get(req, dump);
		break;
	case EASTWEST_CMD_JOB_NEW:
		job_new(req);
		break;
	case EASTWEST_CMD_JOB_SET:
		job_set(req);
		break;
	case EASTWEST_CMD_JOB_DEL:
		job_del(req);
		break;
	case EASTWEST_CMD_PEER_ADD:
	case EASTWEST_CMD_PEER_DEL:
	case EASTWEST_CMD_PEER_GET:
		peers(req, g->cmd, dump);
		break;
	case EASTWEST_CMD_DEV_GET:
		dev_dump(req);
		break;
	case EASTWEST_CMD_CONFIG_GET:
	case EASTWEST_CMD_CONFIG_SET:
		config(req, g->cmd == EASTWEST_CMD_CONFIG_SET);
		break;
	case EASTWEST_CMD_NODE_SET:
		node_set(req);
		break;
	case EASTWEST_CMD_PATH_GET:
		path_get(req);
		break;
	default:
		ack(req, EOPNOTSUPP, NULL, 0, 0);
	}
	return (ssize_t)len;
}

ssize_t mnl_socket_recvfrom(const struct mnl_socket *nl, void *buf, size_t len)
{
	char c;

	(void)nl;
	if (fake.sigterm && fake.events == 0 && q_head != q_tail) {
		const struct nlmsghdr *n = (const void *)q[q_head].buf;

		if (n->nlmsg_type == FAMILY && !n->nlmsg_seq)
			raise(SIGTERM);
	}
	if (sock.fd >= 0 && q_head != q_tail && read(pipefd[0], &c, 1) != 1)
		abort();
	if (q_head == q_tail) {
		errno = EAGAIN;
		return -1;
	}
	if (q[q_head].len > len) {
		errno = ENOSPC;
		return -1;
	}
	memcpy(buf, q[q_head].buf, q[q_head].len);
	len = q[q_head].len;
	if (++q_head == q_tail)
		q_head = q_tail = 0;
	return (ssize_t)len;
}

struct mnl_socket *mnl_socket_open(int bus)
{
	(void)bus;
	if (pipefd[0] < 0) {
		if (pipe(pipefd))
			abort();
		sock.fd = pipefd[0];
		/* Replies queued before now have no byte in the pipe. */
		for (size_t i = q_head; i < q_tail; i++)
			if (write(pipefd[1], "", 1) != 1)
				abort();
	}
	return &sock;
}

int mnl_socket_bind(struct mnl_socket *nl, unsigned int groups, pid_t pid)
{
	(void)nl;
	(void)groups;
	(void)pid;
	return 0;
}

unsigned int mnl_socket_get_portid(const struct mnl_socket *nl)
{
	(void)nl;
	return 1234;
}

static void event(uint32_t n)
{
	static const uint8_t gid[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff,
					 198, 51, 100, 9 };
	struct nlmsghdr *nlh;

	nlh = msg_start(FAMILY, 0, 0, EASTWEST_CMD_DENY_NTF, false);
	mnl_attr_put_u32(nlh, EASTWEST_A_EVENT_OP, EASTWEST_OP_MODIFY_QP);
	mnl_attr_put_u32(nlh, EASTWEST_A_EVENT_REASON, EASTWEST_REASON_PEER);
	mnl_attr_put_u32(nlh, EASTWEST_A_EVENT_MODE, n % 2);
	if (n % 2)
		mnl_attr_put_u32(nlh, EASTWEST_A_EVENT_JOB_ID, 3);
	mnl_attr_put_u32(nlh, EASTWEST_A_EVENT_PID, 812 + n);
	mnl_attr_put_u32(nlh, EASTWEST_A_EVENT_UID, 65534);
	mnl_attr_put_strz(nlh, EASTWEST_A_EVENT_COMM, "bad app\n");
	mnl_attr_put_u64(nlh, EASTWEST_A_EVENT_CGROUP_ID, 77);
	mnl_attr_put_strz(nlh, EASTWEST_A_EVENT_DEV_NAME, "rxe0");
	mnl_attr_put_u32(nlh, EASTWEST_A_EVENT_PORT, 1);
	mnl_attr_put_u32(nlh, EASTWEST_A_EVENT_QPN, 17);
	mnl_attr_put(nlh, EASTWEST_A_EVENT_DEST_GID, 16, gid);
	mnl_attr_put_u32(nlh, EASTWEST_A_EVENT_DEST_QPN, 18);
	msg_end(nlh, true);
}

/*
 * After the deny events, with fake.full: a revoke, a deny with a LID and
 * nothing optional, a device added and removed, an admission change.
 */
static void events_full(void)
{
	struct nlmsghdr *nlh;

	nlh = msg_start(FAMILY, 0, 0, EASTWEST_CMD_REVOKE_NTF, false);
	mnl_attr_put_u32(nlh, EASTWEST_A_EVENT_REASON, EASTWEST_REASON_NOT_ADMITTED);
	mnl_attr_put_u32(nlh, EASTWEST_A_EVENT_JOB_ID, 4);
	mnl_attr_put_u32(nlh, EASTWEST_A_EVENT_QPN, 0x51);
	msg_end(nlh, true);
	nlh = msg_start(FAMILY, 0, 0, EASTWEST_CMD_DENY_NTF, false);
	mnl_attr_put_u32(nlh, EASTWEST_A_EVENT_OP, EASTWEST_OP_MODIFY_QP);
	mnl_attr_put_u32(nlh, EASTWEST_A_EVENT_REASON, EASTWEST_REASON_PKEY);
	mnl_attr_put_u16(nlh, EASTWEST_A_EVENT_DEST_LID, 12);
	msg_end(nlh, true);
	nlh = msg_start(FAMILY, 0, 0, EASTWEST_CMD_DEV_ADD_NTF, false);
	mnl_attr_put_u32(nlh, EASTWEST_A_DEV_INDEX, 5);
	mnl_attr_put_strz(nlh, EASTWEST_A_DEV_NAME, "mlx5_0");
	msg_end(nlh, true);
	nlh = msg_start(FAMILY, 0, 0, EASTWEST_CMD_DEV_DEL_NTF, false);
	mnl_attr_put_u32(nlh, EASTWEST_A_DEV_INDEX, 5);
	mnl_attr_put_strz(nlh, EASTWEST_A_DEV_NAME, "mlx5 0");
	msg_end(nlh, true);
	nlh = msg_start(FAMILY, 0, 0, EASTWEST_CMD_ADMISSION_NTF, false);
	mnl_attr_put_u32(nlh, EASTWEST_A_CONFIG_ADMISSION, EASTWEST_ADMISSION_ADMITTED);
	mnl_attr_put_u8(nlh, EASTWEST_A_CONFIG_ADMISSION_REQUIRED, 1);
	msg_end(nlh, true);
}

int mnl_socket_setsockopt(const struct mnl_socket *nl, int type, void *buf,
			  socklen_t len)
{
	struct nlmsghdr *nlh;
	int i;

	(void)nl;
	(void)len;
	if (type != NETLINK_ADD_MEMBERSHIP || *(unsigned int *)buf != GRP_EVENTS)
		return 0;
	for (i = 0; i < fake.events; i++)
		event((uint32_t)i);
	fake.events = 0;
	if (fake.full)
		events_full();
	if (fake.unload) {
		nlh = msg_start(GENL_ID_CTRL, 0, 0, CTRL_CMD_DELFAMILY, false);
		mnl_attr_put_u16(nlh, CTRL_ATTR_FAMILY_ID, FAMILY);
		mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, "eastwest");
		msg_end(nlh, true);
	}
	return 0;
}

int mnl_socket_get_fd(const struct mnl_socket *nl)
{
	return nl->fd;
}

int mnl_socket_close(struct mnl_socket *nl)
{
	(void)nl;
	if (pipefd[0] >= 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		pipefd[0] = pipefd[1] = sock.fd = -1;
	}
	q_head = q_tail = 0;
	return 0;
}

/*
 * A clock that only sleep() moves, and does at once: "stats interval N"
 * takes no time and sees the counters grow at a fixed rate.
 */
unsigned int sleep(unsigned int seconds)
{
	fake.slept += seconds;
	return 0;
}

int clock_gettime(clockid_t clk, struct timespec *ts)
{
	(void)clk;
	ts->tv_sec = 1000 + fake.slept;
	ts->tv_nsec = 0;
	return 0;
}

/* The kernel release path caps reports: the same on every build host. */
int uname(struct utsname *u)
{
	memset(u, 0, sizeof(*u));
	snprintf(u->sysname, sizeof(u->sysname), "Linux");
	snprintf(u->release, sizeof(u->release), "6.8.0-fake");
	return 0;
}
