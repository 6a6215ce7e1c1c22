// SPDX-License-Identifier: GPL-2.0
/*
 * The eastwest operations over netlink.
 *
 * Replies are parsed leniently toward the future (unknown attributes are
 * skipped) and strictly toward malformed data (a known attribute of the
 * wrong size fails the parse with EPROTO).
 */
#include <errno.h>
#include <linux/genetlink.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ewctl.h"
#include "io/attrs-gen.h"
#include "io/cgroup.h"
#include "io/ipc.h"
#include "model/diff.h"
#include "model/parse.h"

static bool ok_u8(const struct nlattr *a)
{
	return !mnl_attr_validate(a, MNL_TYPE_U8);
}

static bool ok_u16(const struct nlattr *a)
{
	return !mnl_attr_validate(a, MNL_TYPE_U16);
}

static bool ok_u32(const struct nlattr *a)
{
	return !mnl_attr_validate(a, MNL_TYPE_U32);
}

static bool ok_u64(const struct nlattr *a)
{
	return !mnl_attr_validate(a, MNL_TYPE_U64);
}

static bool ok_nest(const struct nlattr *a)
{
	return !mnl_attr_validate(a, MNL_TYPE_NESTED);
}

static int proto_err(void)
{
	errno = EPROTO;
	return MNL_CB_ERROR;
}

/* Request building. Every put checks the room left in nl->sbuf. */

static bool put_peer(struct ewnl *nl, struct nlmsghdr *nlh, uint16_t type,
		     const struct ew_peer_addr *p)
{
	struct nlattr *nest;

	nest = mnl_attr_nest_start_check(nlh, nl->slen, type);
	if (!nest)
		return false;
	if (p->is_lid) {
		if (!mnl_attr_put_u16_check(nlh, nl->slen, EASTWEST_A_PEER_LID, p->lid))
			goto cancel;
	} else {
		if (!mnl_attr_put_check(nlh, nl->slen, EASTWEST_A_PEER_ADDR,
					sizeof(p->addr), p->addr) ||
		    !mnl_attr_put_u8_check(nlh, nl->slen, EASTWEST_A_PEER_PREFIX_LEN,
					   p->plen))
			goto cancel;
	}
	mnl_attr_nest_end(nlh, nest);
	return true;
cancel:
	mnl_attr_nest_cancel(nlh, nest);
	return false;
}

/* Records of one peer-recs attribute at most: its length is 16 bits. */
#define EW_PEER_RECS_MAX ((UINT16_MAX - MNL_ATTR_HDRLEN) / EASTWEST_PEER_REC_LEN)

/*
 * Peers @v[0..@n) in their order: runs of addresses as peer records
 * (@recs_type, EASTWEST_PEER_REC_LEN bytes each, a fraction of what the
 * kernel spends on a nest per peer), LIDs as @type nests; every peer as a
 * nest if @recs_type is 0.
 */
static bool put_peers(struct ewnl *nl, struct nlmsghdr *nlh, uint16_t type,
		      uint16_t recs_type, const struct ew_peer_addr *v, size_t n)
{
	size_t i = 0, k, len;
	struct nlattr *a;
	uint8_t *rec;

	while (i < n) {
		if (v[i].is_lid || !recs_type) {
			if (!put_peer(nl, nlh, type, &v[i]))
				return false;
			i++;
			continue;
		}
		for (k = i; k < n && k - i < EW_PEER_RECS_MAX && !v[k].is_lid; k++)
			;
		len = MNL_ATTR_HDRLEN + (k - i) * EASTWEST_PEER_REC_LEN;
		if (nlh->nlmsg_len + MNL_ALIGN(len) > nl->slen)
			return false;
		a = mnl_nlmsg_get_payload_tail(nlh);
		a->nla_type = recs_type;
		a->nla_len = (uint16_t)len;
		rec = mnl_attr_get_payload(a);
		for (; i < k; i++, rec += EASTWEST_PEER_REC_LEN) {
			memcpy(rec, v[i].addr, sizeof(v[i].addr));
			rec[16] = v[i].plen;
			memset(rec + 17, 0, EASTWEST_PEER_REC_LEN - 17);
		}
		nlh->nlmsg_len += MNL_ALIGN(len);
	}
	return true;
}

static bool put_netdev(struct ewnl *nl, struct nlmsghdr *nlh,
		       const struct ew_netdev *nd)
{
	static const uint16_t type[] = {
		[EW_NETDEV_IFINDEX] = EASTWEST_A_NETDEV_IFINDEX,
		[EW_NETDEV_VLAN] = EASTWEST_A_NETDEV_VLAN,
		[EW_NETDEV_VRF] = EASTWEST_A_NETDEV_VRF,
	};
	struct nlattr *nest;
	bool ok;

	nest = mnl_attr_nest_start_check(nlh, nl->slen, EASTWEST_A_JOB_NETDEV);
	if (!nest)
		return false;
	if (nd->kind == EW_NETDEV_VLAN)
		ok = mnl_attr_put_u16_check(nlh, nl->slen, type[nd->kind],
					    (uint16_t)nd->value);
	else
		ok = mnl_attr_put_u32_check(nlh, nl->slen, type[nd->kind], nd->value);
	if (!ok) {
		mnl_attr_nest_cancel(nlh, nest);
		return false;
	}
	mnl_attr_nest_end(nlh, nest);
	return true;
}

static bool put_cgroup(struct ewnl *nl, struct nlmsghdr *nlh, const char *path)
{
	struct nlattr *nest;

	nest = mnl_attr_nest_start_check(nlh, nl->slen, EASTWEST_A_JOB_CGROUP);
	if (!nest)
		return false;
	if (!mnl_attr_put_strz_check(nlh, nl->slen, EASTWEST_A_CGROUP_PATH, path)) {
		mnl_attr_nest_cancel(nlh, nest);
		return false;
	}
	mnl_attr_nest_end(nlh, nest);
	return true;
}

/*
 * job-set replaces a list that is present in the request. An empty list is
 * sent as one empty entry: an empty cgroup or netdev nest, or P_Key 0 (an
 * invalid P_Key), which the kernel reads as "the list is now empty".
 */
static bool put_empty_list(struct ewnl *nl, struct nlmsghdr *nlh, uint16_t type)
{
	struct nlattr *nest;

	if (type == EASTWEST_A_JOB_PKEY)
		return mnl_attr_put_u16_check(nlh, nl->slen, type, 0);
	nest = mnl_attr_nest_start_check(nlh, nl->slen, type);
	if (!nest)
		return false;
	mnl_attr_nest_end(nlh, nest);
	return true;
}

/* The attributes of @job in @mask, and its first @npeers peers. */
static bool put_job(struct ewnl *nl, struct nlmsghdr *nlh, const struct ew_job_desc *job,
		    uint32_t mask, size_t npeers, bool set)
{
	size_t i;

	if ((mask & EW_JOB_NAME) &&
	    !mnl_attr_put_strz_check(nlh, nl->slen, EASTWEST_A_JOB_NAME, job->name))
		return false;
	if ((mask & EW_JOB_MODE) &&
	    !mnl_attr_put_u32_check(nlh, nl->slen, EASTWEST_A_JOB_MODE, job->mode))
		return false;
	if ((mask & EW_JOB_ENCRYPT) &&
	    !mnl_attr_put_u32_check(nlh, nl->slen, EASTWEST_A_JOB_ENCRYPT, job->encrypt))
		return false;
	if ((mask & EW_JOB_QKEY) &&
	    !mnl_attr_put_u32_check(nlh, nl->slen, EASTWEST_A_JOB_QKEY, job->qkey))
		return false;
	if ((mask & EW_JOB_UD) &&
	    !mnl_attr_put_u8_check(nlh, nl->slen, EASTWEST_A_JOB_UD, job->ud))
		return false;
	if ((mask & EW_JOB_DC) &&
	    !mnl_attr_put_u8_check(nlh, nl->slen, EASTWEST_A_JOB_DC, job->dc))
		return false;
	if ((mask & EW_JOB_PSN) &&
	    !mnl_attr_put_u32_check(nlh, nl->slen, EASTWEST_A_JOB_PSN, job->psn))
		return false;
	if ((mask & EW_JOB_PSN_KEY) &&
	    !mnl_attr_put_check(nlh, nl->slen, EASTWEST_A_JOB_PSN_KEY,
				sizeof(job->psn_key), job->psn_key))
		return false;
	if ((mask & EW_JOB_PSN_KEY) && (mask & EW_JOB_PSN_RUN) &&
	    !mnl_attr_put_strz_check(nlh, nl->slen, EASTWEST_A_JOB_PSN_RUN, job->psn_run))
		return false;
	if (mask & EW_JOB_CGROUPS) {
		for (i = 0; i < job->n_cgroups; i++)
			if (!put_cgroup(nl, nlh, job->cgroups[i].path))
				return false;
		if (set && !job->n_cgroups &&
		    !put_empty_list(nl, nlh, EASTWEST_A_JOB_CGROUP))
			return false;
	}
	if (mask & EW_JOB_NETDEVS) {
		for (i = 0; i < job->n_netdevs; i++)
			if (!put_netdev(nl, nlh, &job->netdevs[i]))
				return false;
		if (set && !job->n_netdevs &&
		    !put_empty_list(nl, nlh, EASTWEST_A_JOB_NETDEV))
			return false;
	}
	if (mask & EW_JOB_PKEYS) {
		for (i = 0; i < job->n_pkeys; i++)
			if (!mnl_attr_put_u16_check(nlh, nl->slen, EASTWEST_A_JOB_PKEY,
						    job->pkeys[i]))
				return false;
		if (set && !job->n_pkeys &&
		    !put_empty_list(nl, nlh, EASTWEST_A_JOB_PKEY))
			return false;
	}
	return put_peers(nl, nlh, EASTWEST_A_JOB_PEER, EASTWEST_A_JOB_PEER_RECS,
			 job->peers.v, npeers);
}

static int too_big(struct ewnl *nl)
{
	memset(&nl->err, 0, sizeof(nl->err));
	nl->err.code = EMSGSIZE;
	snprintf(nl->err.msg, sizeof(nl->err.msg), "the request is too large");
	return -EMSGSIZE;
}

/*
 * The peer of @v[0..@n) that the @i-th peer nest of a request carried:
 * with @recs, addresses went in records and only LIDs in nests.
 */
static const struct ew_peer_addr *nest_peer(const struct ew_peer_addr *v, size_t n,
					    size_t i, bool recs)
{
	size_t k;

	if (!recs)
		return i < n ? &v[i] : NULL;
	for (k = 0; k < n; k++)
		if (v[k].is_lid && !i--)
			return &v[k];
	return NULL;
}

/*
 * Replaces the kernel's attribute path in nl->err by the item it names,
 * e.g. "peer 192.0.2.1/32" instead of "peer[3].addr". @recs: the request
 * carried its addresses in peer records (put_peers()).
 */
static void name_item(struct ewnl *nl, const struct ew_job_desc *job, size_t peer_base,
		      const struct ew_peers *peers, bool recs)
{
	size_t i = (size_t)nl->err.top_index;
	const struct ew_peer_addr *p = NULL;
	int t = nl->err.top_type;
	char buf[EW_PEER_STRLEN];

	if (!t || nl->err.attr[0] == 'm')	/* nothing, or "missing ..." */
		return;
	if (peers && t == EASTWEST_A_PEER_LIST_PEER && peer_base < peers->n)
		p = nest_peer(peers->v + peer_base, peers->n - peer_base, i, recs);
	else if (job && t == EASTWEST_A_JOB_PEER)
		p = nest_peer(job->peers.v, job->peers.n, i, recs);
	if (p) {
		snprintf(nl->err.attr, sizeof(nl->err.attr), "peer %s",
			 ew_peer_format(p, buf, sizeof(buf)));
		return;
	}
	if (!job || t == EASTWEST_A_JOB_PEER)
		return;
	if (t == EASTWEST_A_JOB_CGROUP && i < job->n_cgroups)
		snprintf(nl->err.attr, sizeof(nl->err.attr), "cgroup %s",
			 job->cgroups[i].path);
	else if (t == EASTWEST_A_JOB_PKEY && i < job->n_pkeys)
		snprintf(nl->err.attr, sizeof(nl->err.attr), "pkey 0x%04x",
			 job->pkeys[i]);
	else if (t == EASTWEST_A_JOB_NETDEV && i < job->n_netdevs) {
		const struct ew_netdev *nd = &job->netdevs[i];
		static const char *const kw[] = { "netdev", "vlan", "vrf" };

		if (nd->kind != EW_NETDEV_VLAN && nd->name[0])
			snprintf(nl->err.attr, sizeof(nl->err.attr), "%s %s",
				 kw[nd->kind], nd->name);
		else
			snprintf(nl->err.attr, sizeof(nl->err.attr), "%s %u",
				 kw[nd->kind], nd->value);
	}
}

/* Reply parsing. */

int ew_ipc_parse_peer(const struct nlattr *nest, struct ew_peer_addr *p)
{
	const struct nlattr *a;
	bool addr = false;

	memset(p, 0, sizeof(*p));
	p->plen = 128;
	mnl_attr_for_each_nested(a, nest) {
		switch (mnl_attr_get_type(a)) {
		case EASTWEST_A_PEER_ADDR:
			if (mnl_attr_validate2(a, MNL_TYPE_BINARY, sizeof(p->addr)))
				return -1;
			memcpy(p->addr, mnl_attr_get_payload(a), sizeof(p->addr));
			addr = true;
			break;
		case EASTWEST_A_PEER_PREFIX_LEN:
			if (!ok_u8(a) || mnl_attr_get_u8(a) > 128)
				return -1;
			p->plen = mnl_attr_get_u8(a);
			break;
		case EASTWEST_A_PEER_LID:
			if (!ok_u16(a))
				return -1;
			p->lid = mnl_attr_get_u16(a);
			p->is_lid = true;
			break;
		}
	}
	return addr != p->is_lid ? 0 : -1;
}

static int parse_counters(const struct nlattr *nest, struct ew_counter_set *c)
{
	const struct nlattr *a;

	mnl_attr_for_each_nested(a, nest) {
		unsigned int type = mnl_attr_get_type(a);

		if (type == EASTWEST_A_COUNTERS_PAD || type >= EW_N_COUNTERS)
			continue;
		if (!ok_u64(a))
			return -1;
		c->v[type] = mnl_attr_get_u64(a);
	}
	return 0;
}

static int parse_cgroup(const struct nlattr *nest, struct ew_job_desc *job)
{
	char canon[EASTWEST_CGROUP_PATH_MAX];
	struct ew_cgroup_attrs cg = { 0 };
	const struct nlattr *a;
	uint32_t present = 0;
	const char *path, *why;

	mnl_attr_for_each_nested(a, nest)
		if (ew_cgroup_attr_parse(&cg, &present, a) < 0)
			return -1;
	if (!(present & EW_ATTR_BIT(EASTWEST_A_CGROUP_PATH)))
		return -1;
	/* Compare in canonical form, whatever the kernel's spelling. */
	path = ew_cgroup_normalize(cg.path, canon, sizeof(canon), &why) ? cg.path : canon;
	ew_job_add_cgroup(job, path, cg.id);
	return 0;
}

static int parse_netdev(const struct nlattr *nest, struct ew_job_desc *job)
{
	char name[IF_NAMESIZE] = "";
	const struct nlattr *a;

	mnl_attr_for_each_nested(a, nest) {
		switch (mnl_attr_get_type(a)) {
		case EASTWEST_A_NETDEV_IFINDEX:
		case EASTWEST_A_NETDEV_VRF:
			if (!ok_u32(a))
				return -1;
			if (!if_indextoname(mnl_attr_get_u32(a), name))
				name[0] = '\0';
			ew_job_add_netdev(job, mnl_attr_get_type(a) == EASTWEST_A_NETDEV_VRF ?
					  EW_NETDEV_VRF : EW_NETDEV_IFINDEX,
					  mnl_attr_get_u32(a), name);
			return 0;
		case EASTWEST_A_NETDEV_VLAN:
			if (!ok_u16(a))
				return -1;
			ew_job_add_netdev(job, EW_NETDEV_VLAN, mnl_attr_get_u16(a), NULL);
			return 0;
		}
	}
	return -1;
}

static int job_cb(const struct nlmsghdr *nlh, void *data)
{
	struct ew_job_desc *job = data;
	const struct nlattr *a;
	struct ew_peer_addr p;
	int ret;

	mnl_attr_for_each(a, nlh, EWNL_HDRLEN) {
		/* The scalars (and their present bits); lists and nests here. */
		ret = ew_job_attr_parse(&job->attrs, &job->present, a);
		if (ret < 0)
			return proto_err();
		if (ret)
			continue;
		switch (mnl_attr_get_type(a)) {
		case EASTWEST_A_JOB_CGROUP:
			ret = ok_nest(a) ? parse_cgroup(a, job) : -1;
			break;
		case EASTWEST_A_JOB_NETDEV:
			ret = ok_nest(a) ? parse_netdev(a, job) : -1;
			break;
		case EASTWEST_A_JOB_PKEY:
			if (!ok_u16(a))
				return proto_err();
			ew_job_add_pkey(job, mnl_attr_get_u16(a));
			break;
		case EASTWEST_A_JOB_PEER:
			ret = ok_nest(a) ? ew_ipc_parse_peer(a, &p) : -1;
			if (!ret)
				ew_peers_add(&job->peers, &p);
			break;
		case EASTWEST_A_JOB_COUNTERS:
			ret = ok_nest(a) ? parse_counters(a, &job->counters) : -1;
			job->present |= EW_JOB_COUNTERS;
			break;
		}
		if (ret)
			return proto_err();
	}
	if (!(job->present & EW_JOB_ID))
		return proto_err();
	return MNL_CB_OK;
}

/* A job as reported: absent attributes have their default value. */
static void job_finish(struct ew_job_desc *job)
{
	ew_job_fill_defaults(job);
	ew_job_normalize(job);
}

int ew_ipc_job_get(struct ewnl *nl, const struct ew_jobref *ref, struct ew_job_desc *job)
{
	struct nlmsghdr *nlh;
	int ret;

	ew_job_init(job);
	nlh = ewnl_req(nl, EASTWEST_CMD_JOB_GET, 0);
	if (ref->id)
		mnl_attr_put_u32(nlh, EASTWEST_A_JOB_ID, ref->id);
	else
		mnl_attr_put_strz(nlh, EASTWEST_A_JOB_NAME, ref->name);
	ret = ewnl_do(nl, nlh, job_cb, job);
	if (ret) {
		ew_job_free(job);
		return ret;
	}
	if (!(job->present & EW_JOB_ID)) {
		nl->err.code = EPROTO;
		snprintf(nl->err.msg, sizeof(nl->err.msg), "the kernel sent no job");
		return -EPROTO;
	}
	job_finish(job);
	return 0;
}

int ew_ipc_job_id(struct ewnl *nl, const struct ew_jobref *ref, uint32_t *id)
{
	struct ew_job_desc job;
	int ret;

	if (ref->id) {
		*id = ref->id;
		return 0;
	}
	ret = ew_ipc_job_get(nl, ref, &job);
	if (!ret)
		*id = job.id;
	ew_job_free(&job);
	return ret;
}

static int job_dump_cb(const struct nlmsghdr *nlh, void *data)
{
	struct ew_state *st = data;
	struct ew_job_desc *job = ew_state_add_job(st);

	return job_cb(nlh, job);
}

static void state_reset(void *data)
{
	struct ew_state *st = data;
	size_t i;

	for (i = 0; i < st->n_jobs; i++)
		ew_job_free(&st->jobs[i]);
	st->n_jobs = 0;
}

int ew_ipc_job_dump(struct ewnl *nl, struct ew_state *st)
{
	struct nlmsghdr *nlh;
	size_t i;
	int ret;

	nlh = ewnl_req(nl, EASTWEST_CMD_JOB_GET, NLM_F_DUMP);
	ret = ewnl_dump(nl, nlh, job_dump_cb, st, state_reset);
	if (ret)
		return ret;
	for (i = 0; i < st->n_jobs; i++)
		job_finish(&st->jobs[i]);
	st->has_jobs = true;
	return 0;
}

static int id_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *a;
	uint32_t *id = data;

	mnl_attr_for_each(a, nlh, EWNL_HDRLEN) {
		if (mnl_attr_get_type(a) == EASTWEST_A_JOB_ID) {
			if (!ok_u32(a))
				return proto_err();
			*id = mnl_attr_get_u32(a);
		}
	}
	return MNL_CB_OK;
}

/**
 * ew_ipc_job_new() - create a job with all its peers
 * @nl: the socket
 * @job: the job (its present attributes, and all its peers)
 * @id: the job's id, from the kernel
 *
 * The first EW_PEER_CHUNK peers go with job-new, the others follow in
 * peer-add messages. If one of those fails, the job is deleted again, so
 * that the job is created whole or not at all.
 *
 * Return: 0 or a negative errno.
 */
int ew_ipc_job_new(struct ewnl *nl, const struct ew_job_desc *job, uint32_t *id)
{
	size_t first = job->peers.n < EW_PEER_CHUNK ? job->peers.n : EW_PEER_CHUNK;
	struct ew_peers rest = { 0 };
	struct nlmsghdr *nlh;
	struct ewnl_err err;
	size_t done;
	int ret;

	nlh = ewnl_req(nl, EASTWEST_CMD_JOB_NEW, 0);
	if ((job->present & EW_JOB_ID) &&
	    !mnl_attr_put_u32_check(nlh, nl->slen, EASTWEST_A_JOB_ID, job->id))
		return too_big(nl);
	if (!put_job(nl, nlh, job, job->present & EW_JOB_SETTABLE, first, false))
		return too_big(nl);
	*id = 0;
	ret = ewnl_do(nl, nlh, id_cb, id);
	if (ret) {
		name_item(nl, job, 0, NULL, true);
		return ret;
	}
	if (!*id) {
		if (!(job->present & EW_JOB_ID)) {
			nl->err.code = EPROTO;
			snprintf(nl->err.msg, sizeof(nl->err.msg),
				 "the kernel did not reply with the job id");
			return -EPROTO;
		}
		*id = job->id;
	}
	if (first == job->peers.n)
		return 0;

	rest.v = job->peers.v + first;
	rest.n = job->peers.n - first;
	ret = ew_ipc_peers(nl, EASTWEST_CMD_PEER_ADD, *id, &rest, &done);
	if (ret) {
		struct ew_jobref ref = { .id = *id };

		err = nl->err;
		ew_ipc_job_del(nl, &ref);
		nl->err = err;
	}
	return ret;
}

/* Changes the attributes in @mask (of EW_JOB_SETTABLE) of job @id. */
int ew_ipc_job_set(struct ewnl *nl, uint32_t id, const struct ew_job_desc *job,
		   uint32_t mask)
{
	struct nlmsghdr *nlh;
	int ret;

	nlh = ewnl_req(nl, EASTWEST_CMD_JOB_SET, 0);
	mnl_attr_put_u32(nlh, EASTWEST_A_JOB_ID, id);
	if (!put_job(nl, nlh, job, mask & EW_JOB_SETTABLE, 0, true))
		return too_big(nl);
	ret = ewnl_do(nl, nlh, NULL, NULL);
	if (ret)
		name_item(nl, job, 0, NULL, false);
	return ret;
}

/* Deletes a job by id or by name. */
int ew_ipc_job_del(struct ewnl *nl, const struct ew_jobref *ref)
{
	struct nlmsghdr *nlh;

	nlh = ewnl_req(nl, EASTWEST_CMD_JOB_DEL, 0);
	if (ref->id)
		mnl_attr_put_u32(nlh, EASTWEST_A_JOB_ID, ref->id);
	else
		mnl_attr_put_strz(nlh, EASTWEST_A_JOB_NAME, ref->name);
	return ewnl_do(nl, nlh, NULL, NULL);
}

/**
 * ew_ipc_peers() - add or remove peers, EW_PEER_CHUNK per message
 * @nl: the socket
 * @cmd: EASTWEST_CMD_PEER_ADD or EASTWEST_CMD_PEER_DEL
 * @id: the job
 * @peers: the peers
 * @done: how many peers were applied (whole messages) before an error
 *
 * Each message is all or nothing in the kernel; the list as a whole is
 * applied message by message.
 *
 * Return: 0 or a negative errno.
 */
int ew_ipc_peers(struct ewnl *nl, uint8_t cmd, uint32_t id,
		 const struct ew_peers *peers, size_t *done)
{
	struct nlmsghdr *nlh;
	size_t i, end;
	int ret;

	*done = 0;
	for (i = 0; i < peers->n; i = end) {
		end = i + EW_PEER_CHUNK < peers->n ? i + EW_PEER_CHUNK : peers->n;
		nlh = ewnl_req(nl, cmd, 0);
		mnl_attr_put_u32(nlh, EASTWEST_A_PEER_LIST_JOB_ID, id);
		/* peer-del takes nests only, which its errors name one by one. */
		if (!put_peers(nl, nlh, EASTWEST_A_PEER_LIST_PEER,
			       cmd == EASTWEST_CMD_PEER_ADD ? EASTWEST_A_PEER_LIST_PEER_RECS : 0,
			       peers->v + i, end - i))
			return too_big(nl);
		ret = ewnl_do(nl, nlh, NULL, NULL);
		if (ret) {
			name_item(nl, NULL, i, peers, cmd == EASTWEST_CMD_PEER_ADD);
			return ret;
		}
		*done = end;
	}
	return 0;
}

struct peer_dump {
	struct ew_peers *peers;
	struct ew_peer_addr *match;
};

static int peer_list_cb(const struct nlmsghdr *nlh, void *data)
{
	struct peer_dump *pd = data;
	const struct nlattr *a;
	struct ew_peer_addr p;

	mnl_attr_for_each(a, nlh, EWNL_HDRLEN) {
		if (mnl_attr_get_type(a) != EASTWEST_A_PEER_LIST_PEER)
			continue;
		if (!ok_nest(a) || ew_ipc_parse_peer(a, &p))
			return proto_err();
		if (pd->peers)
			ew_peers_add(pd->peers, &p);
		if (pd->match)
			*pd->match = p;
	}
	return MNL_CB_OK;
}

static void peers_reset(void *data)
{
	struct peer_dump *pd = data;

	pd->peers->n = 0;
}

/* The peers of job @id, sorted. */
int ew_ipc_peer_dump(struct ewnl *nl, uint32_t id, struct ew_peers *peers)
{
	struct peer_dump pd = { .peers = peers };
	struct nlmsghdr *nlh;
	int ret;

	nlh = ewnl_req(nl, EASTWEST_CMD_PEER_GET, NLM_F_DUMP);
	mnl_attr_put_u32(nlh, EASTWEST_A_PEER_LIST_JOB_ID, id);
	ret = ewnl_dump(nl, nlh, peer_list_cb, &pd, peers_reset);
	if (!ret)
		ew_peers_sort_unique(peers);
	return ret;
}

/* The peer entry of job @id that admits @addr (-ENOENT if none). */
int ew_ipc_peer_get(struct ewnl *nl, uint32_t id, const struct ew_peer_addr *addr,
		    struct ew_peer_addr *match)
{
	struct peer_dump pd = { .match = match };
	struct nlmsghdr *nlh;
	struct nlattr *nest;
	int ret;

	memset(match, 0, sizeof(*match));
	match->plen = 0xff;
	nlh = ewnl_req(nl, EASTWEST_CMD_PEER_GET, 0);
	mnl_attr_put_u32(nlh, EASTWEST_A_PEER_LIST_JOB_ID, id);
	nest = mnl_attr_nest_start(nlh, EASTWEST_A_PEER_LIST_PEER);
	if (addr->is_lid)
		mnl_attr_put_u16(nlh, EASTWEST_A_PEER_LID, addr->lid);
	else
		mnl_attr_put(nlh, EASTWEST_A_PEER_ADDR, sizeof(addr->addr), addr->addr);
	mnl_attr_nest_end(nlh, nest);
	ret = ewnl_do(nl, nlh, peer_list_cb, &pd);
	if (!ret && match->plen == 0xff) {
		nl->err.code = ENOENT;
		return -ENOENT;
	}
	return ret;
}

/*
 * Makes the peers of job @id exactly @want (sorted): peer-del, then
 * peer-add, so that stopped between the two the job has only the peers
 * both lists have, never both lists.
 */
int ew_ipc_peers_replace(struct ewnl *nl, uint32_t id, struct ew_peers *want)
{
	struct ew_peers have = { 0 }, add = { 0 }, del = { 0 };
	size_t done;
	int ret;

	ret = ew_ipc_peer_dump(nl, id, &have);
	if (ret)
		goto out;
	ew_peers_diff(want, &have, &add, &del);
	ret = ew_ipc_peers(nl, EASTWEST_CMD_PEER_DEL, id, &del, &done);
	if (!ret)
		ret = ew_ipc_peers(nl, EASTWEST_CMD_PEER_ADD, id, &add, &done);
out:
	ew_peers_free(&have);
	ew_peers_free(&add);
	ew_peers_free(&del);
	return ret;
}

static int config_cb(const struct nlmsghdr *nlh, void *data)
{
	struct ew_config *cfg = data;
	const struct nlattr *a;
	int ret;

	mnl_attr_for_each(a, nlh, EWNL_HDRLEN) {
		ret = ew_config_attr_parse(&cfg->attrs, &cfg->present, a);
		if (ret < 0)
			return proto_err();
		if (ret)
			continue;
		switch (mnl_attr_get_type(a)) {
		case EASTWEST_A_CONFIG_COUNTERS:
			if (!ok_nest(a) || parse_counters(a, &cfg->counters))
				return proto_err();
			cfg->present |= EW_CFG_COUNTERS;
			break;
		case EASTWEST_A_CONFIG_REVOKED_NODE: {
			uint8_t (*more)[16];

			if (mnl_attr_get_payload_len(a) != 16)
				return proto_err();
			more = realloc(cfg->revoked, (cfg->n_revoked + 1) * 16);
			if (!more)
				return MNL_CB_ERROR;
			cfg->revoked = more;
			memcpy(cfg->revoked[cfg->n_revoked++], mnl_attr_get_payload(a), 16);
			cfg->present |= EW_CFG_REVOKED_NODES;
			break;
		}
		case EASTWEST_A_CONFIG_PHYSICAL_IFINDEX:
			if (!ok_u32(a))
				return proto_err();
			if (cfg->n_physical < EW_PHYSICAL_MAX)
				cfg->physical[cfg->n_physical++] = mnl_attr_get_u32(a);
			cfg->present |= EW_CFG_PHYSICAL;
			break;
		}
	}
	return MNL_CB_OK;
}

/* On failure nothing is left allocated in *cfg (callers just report). */
int ew_ipc_config_get(struct ewnl *nl, struct ew_config *cfg)
{
	struct nlmsghdr *nlh;
	int ret;

	memset(cfg, 0, sizeof(*cfg));
	nlh = ewnl_req(nl, EASTWEST_CMD_CONFIG_GET, 0);
	ret = ewnl_do(nl, nlh, config_cb, cfg);
	if (ret) {
		free(cfg->revoked);
		cfg->revoked = NULL;
		cfg->n_revoked = 0;
	}
	return ret;
}

int ew_ipc_config_set(struct ewnl *nl, const struct ew_config *cfg, uint32_t mask)
{
	struct nlmsghdr *nlh;

	nlh = ewnl_req(nl, EASTWEST_CMD_CONFIG_SET, 0);
	if (mask & EW_CFG_MODE)
		mnl_attr_put_u32(nlh, EASTWEST_A_CONFIG_MODE, cfg->mode);
	if (mask & EW_CFG_DEFAULT)
		mnl_attr_put_u32(nlh, EASTWEST_A_CONFIG_DEFAULT_ACTION,
				 cfg->default_action);
	if (mask & EW_CFG_ADMISSION)
		mnl_attr_put_u32(nlh, EASTWEST_A_CONFIG_ADMISSION, cfg->admission);
	if (mask & EW_CFG_ADMISSION_REQUIRED)
		mnl_attr_put_u8(nlh, EASTWEST_A_CONFIG_ADMISSION_REQUIRED,
				cfg->admission_required);
	if (mask & EW_CFG_ADMISSION_TTL)
		mnl_attr_put_u32(nlh, EASTWEST_A_CONFIG_ADMISSION_TTL, cfg->admission_ttl);
	return ewnl_do(nl, nlh, NULL, NULL);
}

/* Revoke other nodes' addresses (or lift it): node-set, all or nothing. */
int ew_ipc_node_set(struct ewnl *nl, const uint8_t (*addrs)[16], size_t n,
		    uint32_t admission)
{
	struct nlmsghdr *nlh;
	size_t i;

	nlh = ewnl_req(nl, EASTWEST_CMD_NODE_SET, 0);
	mnl_attr_put_u32(nlh, EASTWEST_A_NODE_ADMISSION, admission);
	for (i = 0; i < n; i++)
		if (!mnl_attr_put_check(nlh, nl->slen, EASTWEST_A_NODE_ADDR, 16,
					addrs[i])) {
			nl->err.code = EMSGSIZE;
			return -EMSGSIZE;
		}
	return ewnl_do(nl, nlh, NULL, NULL);
}

/**
 * ew_ipc_state() - the whole node state
 * @nl: the socket
 * @st: config and jobs (with their peers if @with_peers)
 * @with_peers: also dump every job's peers
 *
 * Each dump is consistent in itself; a job deleted between the job dump
 * and its peer dump is dropped from @st.
 *
 * Return: 0 or a negative errno.
 */
int ew_ipc_state(struct ewnl *nl, struct ew_state *st, bool with_peers)
{
	size_t i, o;
	int ret;

	memset(st, 0, sizeof(*st));
	ret = ew_ipc_config_get(nl, &st->config);
	if (ret)
		return ret;
	st->has_config = true;
	ret = ew_ipc_job_dump(nl, st);
	if (ret || !with_peers)
		return ret;
	for (i = 0, o = 0; i < st->n_jobs; i++) {
		ret = ew_ipc_peer_dump(nl, st->jobs[i].id, &st->jobs[i].peers);
		if (ret == -ENOENT) {
			ew_job_free(&st->jobs[i]);
			continue;
		}
		if (ret)
			return ret;
		st->jobs[i].present |= EW_JOB_PEERS;
		st->jobs[o++] = st->jobs[i];
	}
	st->n_jobs = o;
	return 0;
}

/**
 * ew_ipc_job_state() - one job and its peers, as a state of its own
 * @nl: the socket
 * @id: the job
 * @st: the job alone (has_jobs, no configuration)
 *
 * What "job set" changes: a plan between two such states touches that job
 * only.
 *
 * Return: 0 or a negative errno.
 */
int ew_ipc_job_state(struct ewnl *nl, uint32_t id, struct ew_state *st)
{
	struct ew_jobref ref = { .id = id };
	struct ew_job_desc *job;
	int ret;

	memset(st, 0, sizeof(*st));
	st->has_jobs = true;
	job = ew_state_add_job(st);
	ret = ew_ipc_job_get(nl, &ref, job);
	if (ret) {
		st->n_jobs = 0;
		return ret;
	}
	ret = ew_ipc_peer_dump(nl, id, &job->peers);
	job->present |= EW_JOB_PEERS;
	return ret;
}

/* Runs one step of a plan (diff.h). */
int ew_ipc_step(struct ewnl *nl, const struct ew_step *s)
{
	struct ew_jobref ref = { .id = s->id };
	size_t done;
	uint32_t id;

	switch (s->op) {
	case EW_STEP_JOB_DEL:
		return ew_ipc_job_del(nl, &ref);
	case EW_STEP_JOB_SET:
		return ew_ipc_job_set(nl, s->id, &s->job, s->mask);
	case EW_STEP_PEER_ADD:
		return ew_ipc_peers(nl, EASTWEST_CMD_PEER_ADD, s->id, &s->peers, &done);
	case EW_STEP_PEER_DEL:
		return ew_ipc_peers(nl, EASTWEST_CMD_PEER_DEL, s->id, &s->peers, &done);
	case EW_STEP_JOB_NEW:
		return ew_ipc_job_new(nl, s->src, &id);
	case EW_STEP_CONFIG_SET:
		return ew_ipc_config_set(nl, &s->config, s->mask);
	}
	return -EINVAL;
}

static int parse_gid(const struct nlattr *nest, struct ew_port *port)
{
	const struct nlattr *a;
	struct ew_gid *g;

	EW_GROW(port->gids, port->n_gids, port->cap_gids);
	g = &port->gids[port->n_gids++];
	memset(g, 0, sizeof(*g));
	mnl_attr_for_each_nested(a, nest)
		if (ew_gid_attr_parse(&g->attrs, &g->present, a) < 0)
			return -1;
	return 0;
}

/*
 * A device too big for one dump message comes in several, each with the
 * device's index and its port's number: a message or port nest that
 * continues the last device or port is joined to it.
 */
static bool continues_port(const struct nlattr *nest, const struct ew_dev_desc *dev)
{
	const struct nlattr *a;

	if (!dev->n_ports)
		return false;
	mnl_attr_for_each_nested(a, nest)
		if (mnl_attr_get_type(a) == EASTWEST_A_PORT_NUM && ok_u32(a))
			return mnl_attr_get_u32(a) == dev->ports[dev->n_ports - 1].num;
	return false;
}

static bool continues_dev(const struct nlmsghdr *nlh, const struct ew_devs *devs)
{
	const struct nlattr *a;

	if (!devs->n)
		return false;
	mnl_attr_for_each(a, nlh, EWNL_HDRLEN)
		if (mnl_attr_get_type(a) == EASTWEST_A_DEV_INDEX && ok_u32(a))
			return mnl_attr_get_u32(a) == devs->v[devs->n - 1].index;
	return false;
}

static int parse_port(const struct nlattr *nest, struct ew_dev_desc *dev)
{
	const struct nlattr *a;
	struct ew_port *port;
	int ret;

	if (continues_port(nest, dev)) {
		port = &dev->ports[dev->n_ports - 1];
	} else {
		EW_GROW(dev->ports, dev->n_ports, dev->cap_ports);
		port = &dev->ports[dev->n_ports++];
		memset(port, 0, sizeof(*port));
	}
	mnl_attr_for_each_nested(a, nest) {
		ret = ew_port_attr_parse(&port->attrs, &port->present, a);
		if (ret < 0)
			return -1;
		if (ret)
			continue;
		switch (mnl_attr_get_type(a)) {
		case EASTWEST_A_PORT_GID:
			if (!ok_nest(a) || parse_gid(a, port))
				return -1;
			break;
		case EASTWEST_A_PORT_PKEY:
			if (!ok_u16(a))
				return -1;
			EW_GROW(port->pkeys, port->n_pkeys, port->cap_pkeys);
			port->pkeys[port->n_pkeys++] = mnl_attr_get_u16(a);
			break;
		}
	}
	return 0;
}

static int dev_cb(const struct nlmsghdr *nlh, void *data)
{
	struct ew_devs *devs = data;
	const struct nlattr *a;
	struct ew_dev_desc *dev;
	int ret;

	if (continues_dev(nlh, devs)) {
		dev = &devs->v[devs->n - 1];
	} else {
		EW_GROW(devs->v, devs->n, devs->cap);
		dev = &devs->v[devs->n++];
		memset(dev, 0, sizeof(*dev));
	}
	mnl_attr_for_each(a, nlh, EWNL_HDRLEN) {
		ret = ew_dev_attr_parse(&dev->attrs, &dev->present, a);
		if (ret < 0)
			return proto_err();
		if (!ret && mnl_attr_get_type(a) == EASTWEST_A_DEV_PORT &&
		    (!ok_nest(a) || parse_port(a, dev)))
			return proto_err();
	}
	return MNL_CB_OK;
}

static void devs_reset(void *data)
{
	ew_devs_free(data);
}

int ew_ipc_dev_dump(struct ewnl *nl, struct ew_devs *devs)
{
	struct nlmsghdr *nlh;

	memset(devs, 0, sizeof(*devs));
	nlh = ewnl_req(nl, EASTWEST_CMD_DEV_GET, NLM_F_DUMP);
	return ewnl_dump(nl, nlh, dev_cb, devs, devs_reset);
}

static int path_cb(const struct nlmsghdr *nlh, void *data)
{
	struct ew_path_info *info = data;
	const struct nlattr *a;

	mnl_attr_for_each(a, nlh, EWNL_HDRLEN)
		if (ew_path_attr_parse(&info->attrs, &info->present, a) < 0)
			return proto_err();
	info->has_macsec = info->present & EW_ATTR_BIT(EASTWEST_A_PATH_MACSEC_IFINDEX);
	info->has_spi = info->present & EW_ATTR_BIT(EASTWEST_A_PATH_IPSEC_SPI);
	return MNL_CB_OK;
}

/* path-get: how the kernel sees the path from (dev, port, sgid_index) to dgid. */
int ew_ipc_path_get(struct ewnl *nl, const char *dev, uint32_t port,
		    uint32_t sgid_index, const uint8_t dgid[16],
		    struct ew_path_info *info)
{
	struct nlmsghdr *nlh;

	memset(info, 0, sizeof(*info));
	nlh = ewnl_req(nl, EASTWEST_CMD_PATH_GET, 0);
	mnl_attr_put_strz(nlh, EASTWEST_A_PATH_DEV_NAME, dev);
	mnl_attr_put_u32(nlh, EASTWEST_A_PATH_PORT, port);
	mnl_attr_put_u32(nlh, EASTWEST_A_PATH_SGID_INDEX, sgid_index);
	mnl_attr_put(nlh, EASTWEST_A_PATH_DGID, 16, dgid);
	return ewnl_do(nl, nlh, path_cb, info);
}

/* fabric-set: declare netdev @ifindex a dedicated physical fabric, or withdraw it. */
int ew_ipc_fabric_set(struct ewnl *nl, uint32_t ifindex, bool physical)
{
	struct nlmsghdr *nlh;

	nlh = ewnl_req(nl, EASTWEST_CMD_FABRIC_SET, 0);
	mnl_attr_put_u32(nlh, EASTWEST_A_FABRIC_IFINDEX, ifindex);
	mnl_attr_put_u8(nlh, EASTWEST_A_FABRIC_PHYSICAL, physical);
	return ewnl_do(nl, nlh, NULL, NULL);
}
