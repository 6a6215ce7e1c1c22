// SPDX-License-Identifier: GPL-2.0
/*
 * The eastwest generic netlink family: handlers only. Policies and the ops
 * table are generated from Documentation/netlink/specs/eastwest.yaml into
 * netlink-gen.[ch].
 *
 * Every request is parsed and validated completely before anything changes,
 * and applied under ew_config_lock, so a request that fails leaves nothing
 * half-applied. Every error names the offending attribute in extack.
 *
 * Permissions: every write and every read of jobs and peers (peer lists and
 * cgroup paths describe the cluster) needs CAP_NET_ADMIN in the initial user
 * namespace (GENL_ADMIN_PERM); so does joining the events group. Devices and
 * the global configuration are readable by anyone, like `rdma link`. The
 * family lives in the initial network namespace only.
 */

#include <linux/if_vlan.h>
#include <linux/netdevice.h>
#include <linux/slab.h>
#include <net/l3mdev.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

#include "admission.h"
#include "config.h"
#include "counters-gen.h"
#include "events.h"
#include "fault.h"
#include "job.h"
#include "netlink.h"
#include "nodes.h"
#include "ops.h"
#include "peers.h"
#include "protect.h"
#include "qpnrand.h"
#include "registry.h"

/* A psn-run: the orchestrators' words, alike on every node and in a shell. */
#define EW_PSN_RUN_CHARS \
	"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ._:-"

/* ---- parsing ---------------------------------------------------------- */

static int ew_nl_parse_peer(const struct nlattr *nest, u32 job_id,
			    struct ew_peer_key *key,
			    struct netlink_ext_ack *extack)
{
	struct nlattr *tb[EASTWEST_A_PEER_MAX + 1];
	u8 plen = 128;
	int ret;

	/*
	 * Genetlink validated the whole message against the op's policy,
	 * peer nests included (NLA_POLICY_NESTED): only split this one. A
	 * million peers are not validated twice.
	 */
	ret = nla_parse_nested(tb, EASTWEST_A_PEER_MAX, nest, NULL, extack);
	if (ret)
		return ret;
	if (!!tb[EASTWEST_A_PEER_ADDR] == !!tb[EASTWEST_A_PEER_LID]) {
		NL_SET_ERR_MSG_ATTR(extack, nest,
				    "a peer needs exactly one of addr and lid");
		return -EINVAL;
	}
	if (tb[EASTWEST_A_PEER_LID]) {
		if (tb[EASTWEST_A_PEER_PREFIX_LEN]) {
			NL_SET_ERR_MSG_ATTR(extack, tb[EASTWEST_A_PEER_PREFIX_LEN],
					    "prefix-len applies to addr, not lid");
			return -EINVAL;
		}
		ew_peer_key_lid(key, job_id, nla_get_u16(tb[EASTWEST_A_PEER_LID]));
		return 0;
	}
	if (tb[EASTWEST_A_PEER_PREFIX_LEN])
		plen = nla_get_u8(tb[EASTWEST_A_PEER_PREFIX_LEN]);
	ew_peer_key_gid(key, job_id, nla_data(tb[EASTWEST_A_PEER_ADDR]), plen);
	return 0;
}

/*
 * One record of a peer-recs attribute: the address, its prefix length and
 * zero padding (EASTWEST_PEER_REC_LEN bytes), what a peer nest with addr
 * and prefix-len says, without an attribute header per field.
 */
struct ew_nl_peer_rec {
	u8 addr[16];
	u8 plen;
	u8 pad[3];
};

static_assert(sizeof(struct ew_nl_peer_rec) == EASTWEST_PEER_REC_LEN);

/* The number of records of a peer-recs attribute, or -EINVAL. */
static int ew_nl_peer_recs(const struct nlattr *attr,
			   struct netlink_ext_ack *extack)
{
	int len = nla_len(attr);

	if (!len || len % EASTWEST_PEER_REC_LEN) {
		NL_SET_BAD_ATTR(extack, attr);
		NL_SET_ERR_MSG_FMT_MOD(extack,
				       "peer-recs: %d bytes, not a multiple of %d",
				       len, EASTWEST_PEER_REC_LEN);
		return -EINVAL;
	}
	return len / EASTWEST_PEER_REC_LEN;
}

static int ew_nl_parse_peer_recs(const struct nlattr *attr, u32 job_id,
				 struct ew_peer_key *keys,
				 struct netlink_ext_ack *extack)
{
	const struct ew_nl_peer_rec *rec = nla_data(attr);
	int i, n = nla_len(attr) / EASTWEST_PEER_REC_LEN;

	for (i = 0; i < n; i++, rec++) {
		if (rec->plen > 128 || rec->pad[0] || rec->pad[1] || rec->pad[2]) {
			NL_SET_BAD_ATTR(extack, attr);
			NL_SET_ERR_MSG_FMT_MOD(extack,
					       "peer-recs record %d: %s", i,
					       rec->plen > 128 ? "prefix-len above 128" :
					       "padding not zero");
			return -EINVAL;
		}
		ew_peer_key_gid(&keys[i], job_id, rec->addr, rec->plen);
	}
	return 0;
}

/*
 * Parse every @type attribute (a peer nest) and every @recs_type attribute
 * (peer records) of a message's payload, in their order, into @batch.
 */
static int ew_nl_parse_peers(const struct genl_info *info, int type,
			     int recs_type, u32 job_id,
			     struct ew_peer_batch *batch)
{
	const struct nlattr *attr;
	unsigned int n = 0;
	int rem, ret;

	nlmsg_for_each_attr(attr, info->nlhdr, GENL_HDRLEN, rem) {
		if (nla_type(attr) == type) {
			n++;
		} else if (nla_type(attr) == recs_type) {
			ret = ew_nl_peer_recs(attr, info->extack);
			if (ret < 0)
				return ret;
			n += ret;
		}
	}
	batch->n = 0;
	batch->keys = NULL;
	if (!n)
		return 0;
	batch->keys = kvmalloc_array(n, sizeof(*batch->keys), GFP_KERNEL);
	EW_FAIL_ALLOC(batch->keys, kvfree(batch->keys));
	if (!batch->keys)
		return -ENOMEM;

	nlmsg_for_each_attr(attr, info->nlhdr, GENL_HDRLEN, rem) {
		if (nla_type(attr) == type) {
			ret = ew_nl_parse_peer(attr, job_id,
					       &batch->keys[batch->n],
					       info->extack);
			if (ret)
				goto err;
			batch->n++;
		} else if (nla_type(attr) == recs_type) {
			ret = ew_nl_parse_peer_recs(attr, job_id,
						    &batch->keys[batch->n],
						    info->extack);
			if (ret)
				goto err;
			batch->n += nla_len(attr) / EASTWEST_PEER_REC_LEN;
		}
	}
	return 0;

err:
	kvfree(batch->keys);
	batch->keys = NULL;
	batch->n = 0;
	return ret;
}

static int ew_nl_parse_netdev(const struct nlattr *nest,
			      struct ew_netdev_rule *rule,
			      struct netlink_ext_ack *extack)
{
	struct nlattr *tb[EASTWEST_A_NETDEV_MAX + 1];
	unsigned int present = 0;
	int ret;

	ret = nla_parse_nested(tb, EASTWEST_A_NETDEV_MAX, nest,
			       eastwest_netdev_nl_policy, extack);
	if (ret)
		return ret;
	if (tb[EASTWEST_A_NETDEV_IFINDEX]) {
		rule->kind = EW_NETDEV_IFINDEX;
		rule->value = nla_get_u32(tb[EASTWEST_A_NETDEV_IFINDEX]);
		present++;
	}
	if (tb[EASTWEST_A_NETDEV_VLAN]) {
		rule->kind = EW_NETDEV_VLAN;
		rule->value = nla_get_u16(tb[EASTWEST_A_NETDEV_VLAN]);
		present++;
	}
	if (tb[EASTWEST_A_NETDEV_VRF]) {
		rule->kind = EW_NETDEV_VRF;
		rule->value = nla_get_u32(tb[EASTWEST_A_NETDEV_VRF]);
		present++;
	}
	if (present != 1) {
		NL_SET_ERR_MSG_ATTR(extack, nest,
				    "a netdev needs exactly one of ifindex, vlan and vrf");
		return -EINVAL;
	}
	return 0;
}

/* An optional u32 attribute: if @attr is there, its value in @val, @has set. */
static void ew_nl_opt_u32(const struct nlattr *attr, u32 *val, bool *has)
{
	if (!attr)
		return;
	*val = nla_get_u32(attr);
	*has = true;
}

/* The same for a u8 flag. */
static void ew_nl_opt_flag(const struct nlattr *attr, bool *val, bool *has)
{
	if (!attr)
		return;
	*val = nla_get_u8(attr);
	*has = true;
}

/*
 * Parse the job attributes of a job-new or job-set request into @spec
 * (peers excepted). Resolves cgroup paths; changes nothing.
 */
static int ew_nl_parse_job(struct genl_info *info, struct ew_job_spec *spec)
{
	struct netlink_ext_ack *extack = info->extack;
	struct nlattr **attrs = info->attrs;
	const struct nlattr *attr;
	int rem, ret;

	if (attrs[EASTWEST_A_JOB_ID])
		spec->id = nla_get_u32(attrs[EASTWEST_A_JOB_ID]);
	attr = attrs[EASTWEST_A_JOB_NAME];
	if (attr) {
		const char *why = NULL;

		/* The policy bounds the length and wants a final NUL. */
		if (strnlen(nla_data(attr), nla_len(attr)) + 1 != nla_len(attr))
			why = "job name has a NUL byte inside";
		nla_strscpy(spec->name, attr, sizeof(spec->name));
		why = why ?: ew_job_name_check(spec->name);
		if (why) {
			NL_SET_BAD_ATTR(extack, attr);
			NL_SET_ERR_MSG_FMT_MOD(extack, "%s", why);
			return -EINVAL;
		}
		spec->has_name = true;
	}
	ew_nl_opt_u32(attrs[EASTWEST_A_JOB_MODE], &spec->mode, &spec->has_mode);
	ew_nl_opt_u32(attrs[EASTWEST_A_JOB_ENCRYPT], &spec->encrypt,
		      &spec->has_encrypt);
	if (attrs[EASTWEST_A_JOB_QKEY]) {
		spec->qkey = nla_get_u32(attrs[EASTWEST_A_JOB_QKEY]);
		if (spec->qkey & EW_QKEY_PRIVILEGED) {
			NL_SET_ERR_MSG_ATTR(extack, attrs[EASTWEST_A_JOB_QKEY],
					    "privileged Q_Key (bit 31 set) refused");
			return -EINVAL;
		}
		spec->has_qkey = true;
	}
	/* The policy admits 0 and 1 only (netlink-gen.c). */
	ew_nl_opt_flag(attrs[EASTWEST_A_JOB_UD], &spec->ud, &spec->has_ud);
	ew_nl_opt_flag(attrs[EASTWEST_A_JOB_DC], &spec->dc, &spec->has_dc);
	ew_nl_opt_u32(attrs[EASTWEST_A_JOB_PSN], &spec->psn, &spec->has_psn);
	if (attrs[EASTWEST_A_JOB_PSN_KEY]) {
		__le64 key[2];

		/* SipHash's key is two little-endian words on every host. */
		memcpy(key, nla_data(attrs[EASTWEST_A_JOB_PSN_KEY]), sizeof(key));
		spec->psn_key.key[0] = le64_to_cpu(key[0]);
		spec->psn_key.key[1] = le64_to_cpu(key[1]);
		memzero_explicit(key, sizeof(key));
		spec->has_psn_key = true;
	}
	attr = attrs[EASTWEST_A_JOB_PSN_RUN];
	if (attr) {
		/* The policy bounds the length and wants a final NUL. */
		size_t len = strnlen(nla_data(attr), nla_len(attr));

		nla_strscpy(spec->psn_run, attr, sizeof(spec->psn_run));
		if (!len || len + 1 != nla_len(attr) ||
		    strspn(spec->psn_run, EW_PSN_RUN_CHARS) != len) {
			NL_SET_ERR_MSG_ATTR(extack, attr,
					    "psn-run: 1 to "
					    __stringify(EASTWEST_PSN_RUN_LEN)
					    " of 0-9 A-Z a-z . _ : -");
			return -EINVAL;
		}
		spec->has_psn_run = true;
	}

	nlmsg_for_each_attr(attr, info->nlhdr, GENL_HDRLEN, rem) {
		switch (nla_type(attr)) {
		case EASTWEST_A_JOB_CGROUP: {
			struct nlattr *tb[EASTWEST_A_CGROUP_MAX + 1];

			spec->has_cgroups = true;
			/* An empty nest names no cgroup: it empties the list. */
			if (!nla_len(attr))
				break;
			ret = nla_parse_nested(tb, EASTWEST_A_CGROUP_MAX, attr,
					       eastwest_cgroup_nl_policy, extack);
			if (ret)
				return ret;
			if (!tb[EASTWEST_A_CGROUP_PATH]) {
				NL_SET_ERR_MSG_ATTR(extack, attr,
						    "cgroup needs a path");
				return -EINVAL;
			}
			if (tb[EASTWEST_A_CGROUP_ID]) {
				NL_SET_ERR_MSG_ATTR(extack, tb[EASTWEST_A_CGROUP_ID],
						    "cgroup id is read-only");
				return -EINVAL;
			}
			ret = ew_job_spec_add_cgroup(spec,
						     nla_data(tb[EASTWEST_A_CGROUP_PATH]),
						     extack);
			if (ret) {
				extack->bad_attr = tb[EASTWEST_A_CGROUP_PATH];
				return ret;
			}
			break;
		}
		case EASTWEST_A_JOB_NETDEV:
			spec->has_netdevs = true;
			if (!nla_len(attr))	/* empties the list */
				break;
			if (spec->n_netdevs >= EW_MAX_NETDEVS) {
				NL_SET_ERR_MSG_ATTR(extack, attr,
						    "too many netdevs (max 32)");
				return -E2BIG;
			}
			ret = ew_nl_parse_netdev(attr,
						 &spec->netdevs[spec->n_netdevs],
						 extack);
			if (ret)
				return ret;
			spec->n_netdevs++;
			break;
		case EASTWEST_A_JOB_PKEY:
			spec->has_pkeys = true;
			if (spec->n_pkeys >= EW_MAX_PKEYS) {
				NL_SET_ERR_MSG_ATTR(extack, attr,
						    "too many pkeys (max 32)");
				return -E2BIG;
			}
			/* P_Key 0 is no partition: it empties the list. */
			if (!nla_get_u16(attr))
				break;
			if (!(nla_get_u16(attr) & 0x7fff)) {
				NL_SET_ERR_MSG_ATTR(extack, attr,
						    "invalid P_Key (partition 0)");
				return -EINVAL;
			}
			spec->pkeys[spec->n_pkeys++] = nla_get_u16(attr);
			break;
		}
	}
	return 0;
}

/* The job named by id or name in a request, or an extack error. */
static struct ew_job *ew_nl_job_from_attrs(struct genl_info *info,
					   int id_type, int name_type)
{
	struct nlattr **attrs = info->attrs;
	struct ew_job *job = NULL;

	lockdep_assert_held(&ew_config_lock);

	if (attrs[id_type]) {
		job = ew_job_find(nla_get_u32(attrs[id_type]));
		if (!job)
			NL_SET_ERR_MSG_ATTR(info->extack, attrs[id_type],
					    "no such job id");
		return job;
	}
	if (name_type && attrs[name_type]) {
		job = ew_job_find_by_name(nla_data(attrs[name_type]));
		if (!job)
			NL_SET_ERR_MSG_ATTR(info->extack, attrs[name_type],
					    "no such job name");
		return job;
	}
	if (name_type)
		NL_SET_ERR_MSG_MOD(info->extack, "job id or name required");
	else
		NL_SET_ERR_MSG_MOD(info->extack, "job id required");
	NL_SET_ERR_ATTR_MISS(info->extack, NULL, id_type);
	return NULL;
}

/* ---- replies ---------------------------------------------------------- */

/*
 * Whether the sender of @skb may read what other jobs do: the node-wide
 * counters and peer count, and a device's QPN audit, move with every job's
 * connections (a job at PSN 0, a QP that got the number after another's),
 * so only administrators get them, as they alone get the jobs.
 */
static bool ew_nl_admin(const struct sk_buff *skb)
{
	return netlink_capable(skb, CAP_NET_ADMIN);
}

/*
 * Close @nest, or, if @full (an attribute did not fit), drop it with what
 * it holds: 0 or -EMSGSIZE.
 */
static int ew_nl_nest_close(struct sk_buff *skb, struct nlattr *nest, bool full)
{
	if (full) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

static int ew_nl_put_counters(struct sk_buff *skb, int type,
			      struct ew_counters __percpu *pcpu)
{
	static const int denied_attr[] = EW_REASON_COUNTER_ATTRS;
	struct ew_counters c;
	struct nlattr *nest;
	u64 denied = 0;
	unsigned int r;
	bool full;

	ew_counters_sum(pcpu, &c);
	nest = nla_nest_start(skb, type);
	if (!nest)
		return -EMSGSIZE;
	for (r = EASTWEST_REASON_NO_JOB; r <= EASTWEST_REASON_MAX; r++) {
		denied += c.v[EW_CTR_DENIED_BASE + r];
		if (nla_put_u64_64bit(skb, denied_attr[r],
				      c.v[EW_CTR_DENIED_BASE + r],
				      EASTWEST_A_COUNTERS_PAD))
			return ew_nl_nest_close(skb, nest, true);
	}
	full = nla_put_u64_64bit(skb, EASTWEST_A_COUNTERS_ALLOWED,
				 c.v[EW_CTR_ALLOWED], EASTWEST_A_COUNTERS_PAD) ||
	       nla_put_u64_64bit(skb, EASTWEST_A_COUNTERS_AUDITED,
				 c.v[EW_CTR_AUDITED], EASTWEST_A_COUNTERS_PAD) ||
	       nla_put_u64_64bit(skb, EASTWEST_A_COUNTERS_DENIED, denied,
				 EASTWEST_A_COUNTERS_PAD) ||
	       nla_put_u64_64bit(skb, EASTWEST_A_COUNTERS_PSN_ZERO,
				 c.v[EW_CTR_PSN_ZERO], EASTWEST_A_COUNTERS_PAD) ||
	       nla_put_u64_64bit(skb, EASTWEST_A_COUNTERS_EVENTS_DROPPED,
				 c.v[EW_CTR_EVENTS_DROPPED],
				 EASTWEST_A_COUNTERS_PAD);
	return ew_nl_nest_close(skb, nest, full);
}

static int ew_nl_put_job(struct sk_buff *skb, const struct ew_job *job)
{
	const struct ew_job_policy *pol = ew_job_policy(job);
	const struct ew_binding *b;
	struct nlattr *nest;
	unsigned int i;

	if (nla_put_u32(skb, EASTWEST_A_JOB_ID, job->id) ||
	    nla_put_string(skb, EASTWEST_A_JOB_NAME, job->name) ||
	    nla_put_u32(skb, EASTWEST_A_JOB_MODE, pol->mode) ||
	    nla_put_u32(skb, EASTWEST_A_JOB_ENCRYPT, pol->encrypt) ||
	    nla_put_u32(skb, EASTWEST_A_JOB_QKEY, pol->qkey) ||
	    nla_put_u8(skb, EASTWEST_A_JOB_UD, pol->ud) ||
	    nla_put_u8(skb, EASTWEST_A_JOB_DC, pol->dc) ||
	    nla_put_u32(skb, EASTWEST_A_JOB_PSN, pol->psn) ||
	    (pol->psn_run[0] &&
	     nla_put_string(skb, EASTWEST_A_JOB_PSN_RUN, pol->psn_run)) ||
	    (pol->psn == EASTWEST_PSN_KEYED &&
	     nla_put_u32(skb, EASTWEST_A_JOB_PSN_KEY_CHECK,
			 ew_psn_key_check(&pol->psn_key))) ||
	    nla_put_u32(skb, EASTWEST_A_JOB_PEER_COUNT, job->n_peers) ||
	    nla_put_u32(skb, EASTWEST_A_JOB_QP_COUNT, atomic_read(&job->n_qps)))
		return -EMSGSIZE;

	list_for_each_entry(b, &job->bindings, job_list) {
		nest = nla_nest_start(skb, EASTWEST_A_JOB_CGROUP);
		if (!nest ||
		    nla_put_string(skb, EASTWEST_A_CGROUP_PATH, b->path) ||
		    nla_put_u64_64bit(skb, EASTWEST_A_CGROUP_ID, b->cgid,
				      EASTWEST_A_CGROUP_PAD))
			return -EMSGSIZE;
		nla_nest_end(skb, nest);
	}
	for (i = 0; i < pol->n_netdevs; i++) {
		static const int type[] = {
			[EW_NETDEV_IFINDEX] = EASTWEST_A_NETDEV_IFINDEX,
			[EW_NETDEV_VLAN] = EASTWEST_A_NETDEV_VLAN,
			[EW_NETDEV_VRF] = EASTWEST_A_NETDEV_VRF,
		};
		const struct ew_netdev_rule *r = &pol->netdevs[i];
		int ret;

		nest = nla_nest_start(skb, EASTWEST_A_JOB_NETDEV);
		if (!nest)
			return -EMSGSIZE;
		if (r->kind == EW_NETDEV_VLAN)
			ret = nla_put_u16(skb, type[r->kind], r->value);
		else
			ret = nla_put_u32(skb, type[r->kind], r->value);
		if (ret)
			return ret;
		nla_nest_end(skb, nest);
	}
	for (i = 0; i < pol->n_pkeys; i++)
		if (nla_put_u16(skb, EASTWEST_A_JOB_PKEY, pol->pkeys[i]))
			return -EMSGSIZE;
	return ew_nl_put_counters(skb, EASTWEST_A_JOB_COUNTERS, job->counters);
}

static int ew_nl_put_peer(struct sk_buff *skb, int type,
			  const struct ew_peer_key *key)
{
	struct nlattr *nest = nla_nest_start(skb, type);
	bool full;
	u16 lid;

	if (!nest)
		return -EMSGSIZE;
	if (key->kind == EW_PEER_LID) {
		memcpy(&lid, key->addr, sizeof(lid));
		full = nla_put_u16(skb, EASTWEST_A_PEER_LID, lid);
	} else {
		full = nla_put(skb, EASTWEST_A_PEER_ADDR, sizeof(key->addr),
			       key->addr) ||
		       nla_put_u8(skb, EASTWEST_A_PEER_PREFIX_LEN, key->plen);
	}
	return ew_nl_nest_close(skb, nest, full);
}

/*
 * A message for a reply of @size bytes; NULL out of memory (which the
 * fault build may pretend).
 */
static struct sk_buff *ew_nl_msg_new(size_t size)
{
	struct sk_buff *msg = genlmsg_new(size, GFP_KERNEL);

	EW_FAIL_ALLOC(msg, nlmsg_free(msg));
	return msg;
}

/*
 * A reply to @info of @size bytes with its header written (@hdr), or
 * ERR_PTR(-ENOMEM) or ERR_PTR(-EMSGSIZE) (nothing left to free).
 */
static struct sk_buff *ew_nl_reply_new(struct genl_info *info, size_t size,
				       void **hdr)
{
	struct sk_buff *msg = ew_nl_msg_new(size);

	if (!msg)
		return ERR_PTR(-ENOMEM);
	*hdr = genlmsg_iput(msg, info);
	if (!*hdr) {
		nlmsg_free(msg);
		return ERR_PTR(-EMSGSIZE);
	}
	return msg;
}

/*
 * Finish reply @msg (header @hdr) and send it to @info's requester; if
 * @ret is an error, free it instead and return @ret.
 */
static int ew_nl_reply(struct sk_buff *msg, void *hdr, struct genl_info *info,
		       int ret)
{
	if (ret) {
		nlmsg_free(msg);
		return ret;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

/* The header of one message of a dump of @cmd, or NULL if @skb is full. */
static void *ew_nl_dump_hdr(struct sk_buff *skb, struct netlink_callback *cb,
			    u8 cmd)
{
	return genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			   &ew_genl_family, NLM_F_MULTI, cmd);
}

/*
 * What a dump round that stopped on @ret returns: a full skb ends the
 * round with what it holds (the next round resumes), any other error ends
 * the dump.
 */
static int ew_nl_dump_ret(struct sk_buff *skb, int ret)
{
	if (ret == -EMSGSIZE && skb->len)
		return skb->len;
	return ret ? ret : skb->len;
}

/* ---- jobs ------------------------------------------------------------- */

/*
 * The room a job's message takes: its rules and counters fit
 * NLMSG_GOODSIZE; its cgroup paths come on top (up to
 * EW_MAX_CGROUP_PATHS_LEN).
 */
static size_t ew_nl_job_size(const struct ew_job *job)
{
	const struct ew_binding *b;
	size_t size = NLMSG_GOODSIZE;

	list_for_each_entry(b, &job->bindings, job_list)
		size += nla_total_size(0) + nla_total_size(strlen(b->path) + 1) +
			nla_total_size_64bit(sizeof(u64));
	return size;
}

int eastwest_nl_job_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct ew_job *job;
	struct sk_buff *msg;
	void *hdr;
	int ret;

	mutex_lock(&ew_config_lock);
	job = ew_nl_job_from_attrs(info, EASTWEST_A_JOB_ID, EASTWEST_A_JOB_NAME);
	if (!job) {
		mutex_unlock(&ew_config_lock);
		return -ENOENT;
	}
	msg = ew_nl_reply_new(info, ew_nl_job_size(job), &hdr);
	if (IS_ERR(msg)) {
		mutex_unlock(&ew_config_lock);
		return PTR_ERR(msg);
	}
	ret = ew_nl_put_job(msg, job);
	mutex_unlock(&ew_config_lock);
	return ew_nl_reply(msg, hdr, info, ret);
}

int eastwest_nl_job_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	u32 last_id = cb->args[0];
	struct ew_job *job;
	void *hdr;
	int ret = 0;

	mutex_lock(&ew_config_lock);
	cb->seq = ew_jobs_generation();
	while ((job = ew_job_next(last_id))) {
		hdr = ew_nl_dump_hdr(skb, cb, EASTWEST_CMD_JOB_GET);
		if (!hdr) {
			ret = -EMSGSIZE;
			break;
		}
		genl_dump_check_consistent(cb, hdr);
		ret = ew_nl_put_job(skb, job);
		if (ret) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
		last_id = job->id;
	}
	mutex_unlock(&ew_config_lock);
	cb->args[0] = last_id;

	/* A full skb ends this round; the next one resumes after last_id. */
	return ew_nl_dump_ret(skb, ret);
}

int eastwest_nl_job_new_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct ew_peer_batch peers = {};
	struct ew_job_spec spec;
	struct sk_buff *msg;
	void *hdr = NULL;
	u32 id;
	int ret;

	if (GENL_REQ_ATTR_CHECK(info, EASTWEST_A_JOB_NAME))
		return -EINVAL;

	/*
	 * The reply (the new job's id) is allocated before anything changes:
	 * out of memory here is an error with no job created, never a job
	 * created that the caller was told failed.
	 */
	msg = ew_nl_msg_new(NLMSG_GOODSIZE);
	if (!msg)
		return -ENOMEM;

	ew_job_spec_init(&spec);
	mutex_lock(&ew_config_lock);
	ret = ew_nl_parse_job(info, &spec);
	if (ret)
		goto out_unlock;
	/*
	 * Peers are keyed by job id, so parse them once the id is known: a
	 * requested id now, an allocated one inside ew_job_create() (which
	 * rekeys them).
	 */
	ret = ew_nl_parse_peers(info, EASTWEST_A_JOB_PEER,
				EASTWEST_A_JOB_PEER_RECS, spec.id, &peers);
	if (ret)
		goto out_unlock;
	spec.peers = peers.n ? &peers : NULL;
	ret = ew_op_job_add(&spec, info->extack, &id);
out_unlock:
	mutex_unlock(&ew_config_lock);
	ew_job_spec_release(&spec);
	kvfree(peers.keys);
	if (!ret) {
		hdr = genlmsg_iput(msg, info);
		if (!hdr || nla_put_u32(msg, EASTWEST_A_JOB_ID, id))
			ret = -EMSGSIZE;
	}
	return ew_nl_reply(msg, hdr, info, ret);
}

int eastwest_nl_job_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct ew_job_spec spec;
	struct ew_job *job;
	int ret;

	if (GENL_REQ_ATTR_CHECK(info, EASTWEST_A_JOB_ID))
		return -EINVAL;

	ew_job_spec_init(&spec);
	mutex_lock(&ew_config_lock);
	job = ew_nl_job_from_attrs(info, EASTWEST_A_JOB_ID, 0);
	if (!job) {
		ret = -ENOENT;
		goto out;
	}
	ret = ew_nl_parse_job(info, &spec);
	if (!ret)
		ret = ew_op_job_change(job, &spec, info->extack);
out:
	mutex_unlock(&ew_config_lock);
	ew_job_spec_release(&spec);
	return ret;
}

int eastwest_nl_job_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct ew_job *job;

	mutex_lock(&ew_config_lock);
	job = ew_nl_job_from_attrs(info, EASTWEST_A_JOB_ID, EASTWEST_A_JOB_NAME);
	if (job)
		ew_op_job_delete(job);
	mutex_unlock(&ew_config_lock);
	return job ? 0 : -ENOENT;
}

/* ---- peers ------------------------------------------------------------ */

/* peer-add takes peer nests and records; peer-del's policy has no records. */
static int ew_nl_peers_change(struct genl_info *info, bool add)
{
	int recs = add ? EASTWEST_A_PEER_LIST_PEER_RECS : 0;
	struct ew_peer_batch batch = {};
	unsigned int failed_at = 0;
	struct ew_job *job;
	int ret;

	if (GENL_REQ_ATTR_CHECK(info, EASTWEST_A_PEER_LIST_JOB_ID))
		return -EINVAL;
	if (!(recs && info->attrs[recs]) &&
	    GENL_REQ_ATTR_CHECK(info, EASTWEST_A_PEER_LIST_PEER))
		return -EINVAL;

	mutex_lock(&ew_config_lock);
	job = ew_nl_job_from_attrs(info, EASTWEST_A_PEER_LIST_JOB_ID, 0);
	if (!job) {
		ret = -ENOENT;
		goto out;
	}
	ret = ew_nl_parse_peers(info, EASTWEST_A_PEER_LIST_PEER, recs, job->id,
				&batch);
	if (ret)
		goto out;
	if (add) {
		ret = ew_op_peers_add(job, &batch, &failed_at);
		if (ret == -ENOMEM)
			NL_SET_ERR_MSG_FMT_MOD(info->extack,
					       "peer %u: cannot add: out of memory, nothing added",
					       failed_at);
		else if (ret)
			NL_SET_ERR_MSG_FMT_MOD(info->extack,
					       "peer %u: cannot add (%d), nothing added",
					       failed_at, ret);
	} else {
		ret = ew_op_peers_del(job, &batch, &failed_at);
		if (ret)
			NL_SET_ERR_MSG_FMT_MOD(info->extack,
					       "peer %u: not a peer of job %u, nothing removed",
					       failed_at, job->id);
	}
out:
	mutex_unlock(&ew_config_lock);
	kvfree(batch.keys);
	return ret;
}

int eastwest_nl_peer_add_doit(struct sk_buff *skb, struct genl_info *info)
{
	return ew_nl_peers_change(info, true);
}

int eastwest_nl_peer_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	return ew_nl_peers_change(info, false);
}

int eastwest_nl_peer_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct ew_peer_key key, match;
	struct ew_job *job;
	struct sk_buff *msg;
	bool found = false;
	void *hdr = NULL;
	int ret;

	if (GENL_REQ_ATTR_CHECK(info, EASTWEST_A_PEER_LIST_JOB_ID) ||
	    GENL_REQ_ATTR_CHECK(info, EASTWEST_A_PEER_LIST_PEER))
		return -EINVAL;

	msg = ew_nl_msg_new(NLMSG_GOODSIZE);
	if (!msg)
		return -ENOMEM;

	mutex_lock(&ew_config_lock);
	job = ew_nl_job_from_attrs(info, EASTWEST_A_PEER_LIST_JOB_ID, 0);
	if (!job) {
		ret = -ENOENT;
		goto out_unlock;
	}
	ret = ew_nl_parse_peer(info->attrs[EASTWEST_A_PEER_LIST_PEER], job->id,
			       &key, info->extack);
	if (ret)
		goto out_unlock;
	rcu_read_lock();
	if (key.kind == EW_PEER_LID) {
		found = ew_peer_match_lid(job, *(u16 *)key.addr);
		match = key;
	} else {
		found = ew_peer_match_gid(job, key.addr, &match);
	}
	rcu_read_unlock();
	if (!found) {
		NL_SET_ERR_MSG_ATTR(info->extack,
				    info->attrs[EASTWEST_A_PEER_LIST_PEER],
				    "no peer entry of the job admits this address");
		ret = -ENOENT;
		goto out_unlock;
	}
	hdr = genlmsg_iput(msg, info);
	if (!hdr || nla_put_u32(msg, EASTWEST_A_PEER_LIST_JOB_ID, job->id) ||
	    ew_nl_put_peer(msg, EASTWEST_A_PEER_LIST_PEER, &match))
		ret = -EMSGSIZE;
out_unlock:
	mutex_unlock(&ew_config_lock);
	return ew_nl_reply(msg, hdr, info, ret);
}

/*
 * Where a peer dump stands between rounds (in cb->ctx). Rounds resume after
 * the last key sent (one table lookup, see ew_peer_dump_next()), so a dump
 * of n peers costs O(n). The job's generation detects changes between
 * rounds (NLM_F_DUMP_INTR); a job deleted mid-dump ends it with -ENOENT.
 */
struct ew_nl_peer_dump {
	u32 job_id;
	bool started;	/* @last is valid */
	bool done;	/* the last peer went out */
	unsigned long sent;
	struct ew_peer_key last;
};

int eastwest_nl_peer_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct ew_nl_peer_dump *ctx = (struct ew_nl_peer_dump *)cb->ctx;
	struct nlattr **attrs = genl_info_dump(cb)->attrs;
	const struct ew_peer *peer;
	struct ew_job *job;
	void *hdr;
	int ret = 0;

	BUILD_BUG_ON(sizeof(*ctx) > sizeof(cb->ctx));
	if (!ctx->job_id) {
		if (!attrs[EASTWEST_A_PEER_LIST_JOB_ID]) {
			NL_SET_ERR_MSG_MOD(cb->extack, "peer dump needs a job-id");
			return -EINVAL;
		}
		if (attrs[EASTWEST_A_PEER_LIST_PEER]) {
			NL_SET_ERR_MSG_ATTR(cb->extack,
					    attrs[EASTWEST_A_PEER_LIST_PEER],
					    "peer dump takes no peer");
			return -EINVAL;
		}
		ctx->job_id = nla_get_u32(attrs[EASTWEST_A_PEER_LIST_JOB_ID]);
	}

	mutex_lock(&ew_config_lock);
	job = ew_job_find(ctx->job_id);
	if (!job) {
		mutex_unlock(&ew_config_lock);
		NL_SET_ERR_MSG_MOD(cb->extack, "no such job id");
		return -ENOENT;
	}
	if (ctx->done) {
		mutex_unlock(&ew_config_lock);
		return 0;
	}
	cb->seq = job->generation;
	hdr = ew_nl_dump_hdr(skb, cb, EASTWEST_CMD_PEER_GET);
	if (!hdr) {
		ret = -EMSGSIZE;
		goto out;
	}
	genl_dump_check_consistent(cb, hdr);
	if (nla_put_u32(skb, EASTWEST_A_PEER_LIST_JOB_ID, job->id)) {
		genlmsg_cancel(skb, hdr);
		ret = -EMSGSIZE;
		goto out;
	}
	peer = ew_peer_dump_next(job, ctx->started ? &ctx->last : NULL,
				 ctx->sent);
	for (; peer; peer = peer->next) {
		if (ew_nl_put_peer(skb, EASTWEST_A_PEER_LIST_PEER, &peer->key))
			break;	/* full: more next round */
		ctx->last = peer->key;
		ctx->started = true;
		ctx->sent++;
	}
	ctx->done = !peer;
	genlmsg_end(skb, hdr);
out:
	mutex_unlock(&ew_config_lock);
	return ret ? ret : skb->len;
}

/* ---- devices ---------------------------------------------------------- */

static const u32 ew_gid_types[] = {
	[IB_GID_TYPE_IB] = EASTWEST_GID_TYPE_IB,
	[IB_GID_TYPE_ROCE] = EASTWEST_GID_TYPE_ROCE_V1,
	[IB_GID_TYPE_ROCE_UDP_ENCAP] = EASTWEST_GID_TYPE_ROCE_V2,
};

static int ew_nl_put_macsec(struct sk_buff *skb, const struct ew_protection *prot,
			    int ifindex_type, int offload_type)
{
	if (!(prot->flags & EASTWEST_PROTECTION_MACSEC))
		return 0;
	if (nla_put_u32(skb, ifindex_type, prot->macsec_ifindex) ||
	    nla_put_u32(skb, offload_type, prot->macsec_offload))
		return -EMSGSIZE;
	return 0;
}

static int ew_nl_put_gid(struct sk_buff *skb, const struct ib_gid_attr *attr)
{
	struct net_device *ndev;
	struct nlattr *nest;
	bool full = false;

	nest = nla_nest_start(skb, EASTWEST_A_PORT_GID);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, EASTWEST_A_GID_INDEX, attr->index) ||
	    nla_put(skb, EASTWEST_A_GID_GID, sizeof(attr->gid), attr->gid.raw) ||
	    (attr->gid_type < ARRAY_SIZE(ew_gid_types) &&
	     nla_put_u32(skb, EASTWEST_A_GID_TYPE, ew_gid_types[attr->gid_type])))
		return ew_nl_nest_close(skb, nest, true);

	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(attr);
	if (!IS_ERR(ndev)) {
		u32 vrf = l3mdev_master_ifindex_rcu(ndev);

		struct ew_protection prot = {};

		ew_netdev_protection(attr->device, ndev, &prot);
		if (nla_put_u32(skb, EASTWEST_A_GID_IFINDEX, ndev->ifindex) ||
		    nla_put_string(skb, EASTWEST_A_GID_IFNAME, ndev->name) ||
		    (is_vlan_dev(ndev) &&
		     nla_put_u16(skb, EASTWEST_A_GID_VLAN, vlan_dev_vlan_id(ndev))) ||
		    (vrf && nla_put_u32(skb, EASTWEST_A_GID_VRF, vrf)) ||
		    nla_put_u32(skb, EASTWEST_A_GID_MTU, READ_ONCE(ndev->mtu)) ||
		    nla_put_u32(skb, EASTWEST_A_GID_PROTECTION, prot.flags) ||
		    nla_put_u32(skb, EASTWEST_A_GID_OFFLOAD_CAPS,
				ew_netdev_offload_caps(ndev)) ||
		    ew_nl_put_macsec(skb, &prot, EASTWEST_A_GID_MACSEC_IFINDEX,
				     EASTWEST_A_GID_MACSEC_OFFLOAD))
			full = true;
	}
	rcu_read_unlock();
	return ew_nl_nest_close(skb, nest, full);
}

/*
 * The most one GID entry takes in a message: every attribute
 * ew_nl_put_gid() may put, at its largest.
 */
#define EW_NL_GID_SIZE							\
	(nla_total_size(0) +			/* the nest */		\
	 nla_total_size(sizeof(u32)) +		/* index */		\
	 nla_total_size(sizeof(union ib_gid)) +	/* gid */		\
	 nla_total_size(sizeof(u32)) +		/* type */		\
	 nla_total_size(sizeof(u32)) +		/* ifindex */		\
	 nla_total_size(IFNAMSIZ) +		/* ifname */		\
	 nla_total_size(sizeof(u16)) +		/* vlan */		\
	 nla_total_size(sizeof(u32)) * 7)	/* vrf .. macsec-offload */

/*
 * A port's entries are numbered by one "slot": its GID table's entries
 * first, then its P_Key table's, so that a port too big for one message
 * continues where the last message stopped.
 */
static u32 ew_nl_port_slots(const struct ib_device *ibdev, u32 port)
{
	const struct ib_port_immutable *imm = &ibdev->port_data[port].immutable;

	return imm->gid_tbl_len + imm->pkey_tbl_len;
}

/* Puts slot @i of @port; 1 if the slot is empty, 0 put, -EMSGSIZE full. */
static int ew_nl_put_slot(struct sk_buff *skb, struct ib_device *ibdev,
			  u32 port, u32 i)
{
	u32 ngids = ibdev->port_data[port].immutable.gid_tbl_len;
	const struct ib_gid_attr *attr;
	int ret;
	u16 pkey;

	if (i < ngids) {
		attr = rdma_get_gid_attr(ibdev, port, i);
		if (IS_ERR(attr))
			return 1;
		ret = ew_nl_put_gid(skb, attr);
		rdma_put_gid_attr(attr);
		return ret;
	}
	if (ib_get_cached_pkey(ibdev, port, i - ngids, &pkey) || !pkey)
		return 1;
	return nla_put_u16(skb, EASTWEST_A_PORT_PKEY, pkey) ? -EMSGSIZE : 0;
}

/*
 * ew_nl_put_port() - one port nest: number, link layer, then its slots from
 * *@slot on, as many as fit.
 *
 * An attribute's length is 16 bits: a port with more entries than one
 * nest holds (a full soft-RoCE table) goes on in a new nest of the same
 * port number, even within one message.
 *
 * Return: 0 when the port is complete; 1 when the nest is full and the
 * port goes on in another; -EMSGSIZE when the message is full. On 1 and
 * -EMSGSIZE, *@slot is the first slot not sent. A nest that would carry
 * no slot at all is taken back whole, so that every port nest a message
 * carries holds at least one entry or is the port's complete (possibly
 * empty) record.
 */
static int ew_nl_put_port(struct sk_buff *skb, struct ib_device *ibdev,
			  u32 port, u32 *slot)
{
	u32 i, nslots = ew_nl_port_slots(ibdev, port);
	u32 ll = EASTWEST_LINK_LAYER_UNSPECIFIED;
	struct nlattr *nest;
	bool some = false;
	int ret;

	switch (rdma_port_get_link_layer(ibdev, port)) {
	case IB_LINK_LAYER_INFINIBAND:
		ll = EASTWEST_LINK_LAYER_INFINIBAND;
		break;
	case IB_LINK_LAYER_ETHERNET:
		ll = EASTWEST_LINK_LAYER_ETHERNET;
		break;
	default:
		break;
	}
	nest = nla_nest_start(skb, EASTWEST_A_DEV_PORT);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, EASTWEST_A_PORT_NUM, port) ||
	    nla_put_u32(skb, EASTWEST_A_PORT_LINK_LAYER, ll)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	for (i = *slot; i < nslots; i++) {
		if (skb_tail_pointer(skb) - (unsigned char *)nest >
		    U16_MAX - EW_NL_GID_SIZE) {
			nla_nest_end(skb, nest);
			*slot = i;
			return 1;
		}
		ret = ew_nl_put_slot(skb, ibdev, port, i);
		if (ret < 0) {
			if (!some)
				nla_nest_cancel(skb, nest);
			else
				nla_nest_end(skb, nest);
			*slot = i;
			return ret;
		}
		some |= !ret;
	}
	nla_nest_end(skb, nest);
	*slot = 0;
	return 0;
}

/*
 * The resume point of a device's record: the port and the slot in it. A
 * device whose GIDs do not fit one message (a port holds up to 1024 on
 * soft-RoCE) goes out in several, each with the device's index and name
 * and the port's number and link layer, so that a reader joins them by
 * those.
 */
struct ew_nl_dev_pos {
	u32 port;	/* 0: the device's first port */
	u32 slot;
};

/*
 * ew_nl_put_dev() - the device's attributes and its ports from @pos on.
 *
 * Return: 0 when the device is complete; -EMSGSIZE when the message is
 * full, with @pos where the next message resumes. @pos unchanged means
 * nothing of the device's ports went into this message.
 */
static int ew_nl_put_dev(struct sk_buff *skb, struct ew_dev *dev,
			 struct ew_nl_dev_pos *pos, bool admin)
{
	struct ib_device *ibdev = dev->ibdev;
	u32 port;
	int ret;

	if (nla_put_u32(skb, EASTWEST_A_DEV_INDEX, ibdev->index) ||
	    nla_put_string(skb, EASTWEST_A_DEV_NAME, dev_name(&ibdev->dev)) ||
	    (admin &&
	     (nla_put_u32(skb, EASTWEST_A_DEV_QPN_OBSERVED,
			  atomic_read(&dev->qpn_observed)) ||
	      nla_put_u32(skb, EASTWEST_A_DEV_QPN_SEQUENTIAL,
			  atomic_read(&dev->qpn_sequential)))) ||
	    nla_put_u32(skb, EASTWEST_A_DEV_QPN_ORDER,
			ew_qpnrand_dev_order(ibdev)))
		return -EMSGSIZE;
	rdma_for_each_port(ibdev, port) {
		if (port < pos->port)
			continue;
		pos->port = port;
		do {
			ret = ew_nl_put_port(skb, ibdev, port, &pos->slot);
		} while (ret == 1);
		if (ret)
			return ret;
	}
	pos->port = 0;
	return 0;
}

/*
 * The most the device's record takes in one message: with the GID table
 * entries in use now (@full false), or with every entry (@full true).
 */
static size_t ew_nl_dev_size(const struct ew_dev *dev, bool full)
{
	struct ib_device *ibdev = dev->ibdev;
	size_t size = nla_total_size(sizeof(u32)) * 4 +
		      nla_total_size(strlen(dev_name(&ibdev->dev)) + 1);
	const struct ib_gid_attr *attr;
	u32 port, i, ngids;

	rdma_for_each_port(ibdev, port) {
		const struct ib_port_immutable *imm = &ibdev->port_data[port].immutable;

		ngids = imm->gid_tbl_len;
		for (i = 0; !full && i < imm->gid_tbl_len; i++) {
			attr = rdma_get_gid_attr(ibdev, port, i);
			if (IS_ERR(attr))
				ngids--;
			else
				rdma_put_gid_attr(attr);
		}
		/* A nest's header again for every 64 KiB of entries. */
		size += (1 + ngids * EW_NL_GID_SIZE / (U16_MAX - EW_NL_GID_SIZE)) *
			(nla_total_size(0) + nla_total_size(sizeof(u32)) * 2) +
			ngids * EW_NL_GID_SIZE +
			imm->pkey_tbl_len * nla_total_size(sizeof(u16));
	}
	return size;
}

/*
 * The device a request names by index or by name (the index wins), with
 * the extack pointing at the attribute that names none.
 * Context: holds the registry lock.
 */
static struct ew_dev *ew_nl_find_dev(const struct nlattr *index,
				     const struct nlattr *name,
				     struct netlink_ext_ack *extack)
{
	struct ew_dev *dev;

	if (index)
		dev = ew_registry_find_by_index(nla_get_u32(index));
	else
		dev = ew_registry_find_by_name(nla_data(name));
	if (!dev)
		NL_SET_ERR_MSG_ATTR(extack, index ?: name, "no such RDMA device");
	return dev;
}

int eastwest_nl_dev_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **attrs = info->attrs;
	struct ew_nl_dev_pos pos = {};
	struct sk_buff *msg = NULL;
	struct ew_dev *dev;
	void *hdr = NULL;
	bool full;
	int ret;

	if (!attrs[EASTWEST_A_DEV_INDEX] && !attrs[EASTWEST_A_DEV_NAME]) {
		NL_SET_ERR_MSG_MOD(info->extack, "dev-get needs an index or a name");
		return -EINVAL;
	}
	ew_registry_lock();
	dev = ew_nl_find_dev(attrs[EASTWEST_A_DEV_INDEX], attrs[EASTWEST_A_DEV_NAME],
			     info->extack);
	if (!dev) {
		ret = -ENODEV;
		goto out;
	}
	/*
	 * The reply is one message, sized for the entries in use; if the GID
	 * table grew while it was written, once more for a full table.
	 */
	for (full = false; ; full = true) {
		msg = ew_nl_msg_new(ew_nl_dev_size(dev, full));
		if (!msg) {
			ret = -ENOMEM;
			goto out;
		}
		hdr = genlmsg_iput(msg, info);
		ret = hdr ? ew_nl_put_dev(msg, dev, &pos,
					  ew_nl_admin(skb)) : -EMSGSIZE;
		if (ret != -EMSGSIZE || full)
			break;
		nlmsg_free(msg);
		msg = NULL;
		pos = (struct ew_nl_dev_pos){};
	}
out:
	ew_registry_unlock();
	return ew_nl_reply(msg, hdr, info, ret);
}

/*
 * Devices in order; one that does not fit the rest of a message continues
 * in the next (struct ew_nl_dev_pos). cb->args[0] counts devices sent
 * whole, args[1] and args[2] are the resume point within the next one and
 * args[3] its index, so that a device that went away between two
 * messages is not resumed in the middle of another.
 */
int eastwest_nl_dev_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct ew_nl_dev_pos pos, start;
	struct ew_dev *dev;
	void *hdr;
	int ret = 0;

	ew_registry_lock();
	while ((dev = ew_registry_nth(cb->args[0]))) {
		start.port = cb->args[1];
		start.slot = cb->args[2];
		if (cb->args[3] != dev->ibdev->index)
			start = (struct ew_nl_dev_pos){};
		pos = start;
		hdr = ew_nl_dump_hdr(skb, cb, EASTWEST_CMD_DEV_GET);
		if (!hdr) {
			ret = -EMSGSIZE;
			break;
		}
		ret = ew_nl_put_dev(skb, dev, &pos, ew_nl_admin(cb->skb));
		if (ret == -EMSGSIZE &&
		    (pos.port != start.port || pos.slot != start.slot)) {
			/* Part of the device went out: the rest follows. */
			genlmsg_end(skb, hdr);
			cb->args[1] = pos.port;
			cb->args[2] = pos.slot;
			cb->args[3] = dev->ibdev->index;
			break;
		}
		if (ret) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
		cb->args[0]++;
		cb->args[1] = 0;
		cb->args[2] = 0;
		cb->args[3] = 0;
	}
	ew_registry_unlock();
	return ew_nl_dump_ret(skb, ret);
}

/* ---- path protection --------------------------------------------------- */

int eastwest_nl_path_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **attrs = info->attrs;
	struct ew_protection prot;
	struct ib_device *ibdev;
	u32 port, sgid_index, ifindex;
	struct sk_buff *msg;
	struct ew_dev *dev;
	void *hdr;
	int ret;

	if (!attrs[EASTWEST_A_PATH_DEV_INDEX] && !attrs[EASTWEST_A_PATH_DEV_NAME]) {
		NL_SET_ERR_MSG_MOD(info->extack,
				   "path-get needs dev-index or dev-name");
		return -EINVAL;
	}
	if (GENL_REQ_ATTR_CHECK(info, EASTWEST_A_PATH_SGID_INDEX) ||
	    GENL_REQ_ATTR_CHECK(info, EASTWEST_A_PATH_DGID))
		return -EINVAL;
	port = attrs[EASTWEST_A_PATH_PORT] ?
	       nla_get_u32(attrs[EASTWEST_A_PATH_PORT]) : 1;
	sgid_index = nla_get_u32(attrs[EASTWEST_A_PATH_SGID_INDEX]);

	msg = ew_nl_reply_new(info, NLMSG_GOODSIZE, &hdr);
	if (IS_ERR(msg))
		return PTR_ERR(msg);
	ew_registry_lock();
	dev = ew_nl_find_dev(attrs[EASTWEST_A_PATH_DEV_INDEX],
			     attrs[EASTWEST_A_PATH_DEV_NAME], info->extack);
	if (!dev) {
		ret = -ENODEV;
		goto out;
	}
	ibdev = dev->ibdev;
	if (!rdma_is_port_valid(ibdev, port)) {
		NL_SET_ERR_MSG_ATTR(info->extack, attrs[EASTWEST_A_PATH_PORT],
				    "no such port on this device");
		ret = -EINVAL;
		goto out;
	}
	ret = ew_path_protection(ibdev, port, sgid_index,
				 nla_data(attrs[EASTWEST_A_PATH_DGID]), &prot,
				 &ifindex);
	if (ret == -ENODEV) {
		/* InfiniBand GID: no netdev, nothing here protects it. */
		ret = 0;
	} else if (ret) {
		NL_SET_ERR_MSG_ATTR(info->extack, attrs[EASTWEST_A_PATH_SGID_INDEX],
				    "no GID at this index");
		goto out;
	}
	if (nla_put_u32(msg, EASTWEST_A_PATH_DEV_INDEX, ibdev->index) ||
	    nla_put_string(msg, EASTWEST_A_PATH_DEV_NAME, dev_name(&ibdev->dev)) ||
	    nla_put_u32(msg, EASTWEST_A_PATH_PORT, port) ||
	    nla_put_u32(msg, EASTWEST_A_PATH_SGID_INDEX, sgid_index) ||
	    nla_put(msg, EASTWEST_A_PATH_DGID, 16,
		    nla_data(attrs[EASTWEST_A_PATH_DGID])) ||
	    nla_put_u32(msg, EASTWEST_A_PATH_PROTECTION, prot.flags) ||
	    (ifindex && nla_put_u32(msg, EASTWEST_A_PATH_IFINDEX, ifindex)) ||
	    ew_nl_put_macsec(msg, &prot, EASTWEST_A_PATH_MACSEC_IFINDEX,
			     EASTWEST_A_PATH_MACSEC_OFFLOAD) ||
	    ((prot.flags & EASTWEST_PROTECTION_IPSEC) &&
	     nla_put_u32(msg, EASTWEST_A_PATH_IPSEC_SPI, prot.ipsec_spi)))
		ret = -EMSGSIZE;
out:
	ew_registry_unlock();
	return ew_nl_reply(msg, hdr, info, ret);
}

int eastwest_nl_fabric_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **attrs = info->attrs;
	bool physical;
	u32 ifindex;
	int ret;

	if (GENL_REQ_ATTR_CHECK(info, EASTWEST_A_FABRIC_IFINDEX) ||
	    GENL_REQ_ATTR_CHECK(info, EASTWEST_A_FABRIC_PHYSICAL))
		return -EINVAL;
	ifindex = nla_get_u32(attrs[EASTWEST_A_FABRIC_IFINDEX]);
	physical = nla_get_u8(attrs[EASTWEST_A_FABRIC_PHYSICAL]);
	ret = ew_fabric_set(ifindex, physical, info->extack);
	if (ret == -ENODEV)
		NL_SET_BAD_ATTR(info->extack, attrs[EASTWEST_A_FABRIC_IFINDEX]);
	else if (!ret)
		pr_info_ratelimited("netdev %u %s a dedicated fabric\n", ifindex,
				    physical ? "declared" : "no longer declared");
	return ret;
}

/* ---- other nodes' admission ----------------------------------------------- */

int eastwest_nl_node_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **attrs = info->attrs;
	unsigned int n = 0, revoked = 0;
	u8 (*addrs)[16];
	struct nlattr *a;
	u32 admission;
	int rem, ret;

	if (GENL_REQ_ATTR_CHECK(info, EASTWEST_A_NODE_ADMISSION))
		return -EINVAL;
	admission = nla_get_u32(attrs[EASTWEST_A_NODE_ADMISSION]);
	if (admission == EASTWEST_ADMISSION_UNATTESTED) {
		NL_SET_ERR_MSG_ATTR(info->extack, attrs[EASTWEST_A_NODE_ADMISSION],
				    "other nodes are revoked or admitted, not unattested");
		return -EINVAL;
	}
	nlmsg_for_each_attr(a, info->nlhdr, GENL_HDRLEN, rem)
		if (nla_type(a) == EASTWEST_A_NODE_ADDR)
			n++;
	if (!n) {
		NL_SET_ERR_MSG_MOD(info->extack, "node-set needs at least one addr");
		return -EINVAL;
	}
	if (n > EW_NODES_REVOKED_MAX) {
		NL_SET_ERR_MSG_FMT_MOD(info->extack, "more than %u addresses",
				       EW_NODES_REVOKED_MAX);
		return -E2BIG;
	}
	addrs = kvmalloc_array(n, sizeof(*addrs), GFP_KERNEL);
	EW_FAIL_ALLOC(addrs, kvfree(addrs));
	if (!addrs)
		return -ENOMEM;
	n = 0;
	nlmsg_for_each_attr(a, info->nlhdr, GENL_HDRLEN, rem)
		if (nla_type(a) == EASTWEST_A_NODE_ADDR)
			memcpy(addrs[n++], nla_data(a), 16);

	mutex_lock(&ew_config_lock);
	ret = ew_op_nodes_change(addrs[0], n,
				 admission == EASTWEST_ADMISSION_REVOKED,
				 info->extack, &revoked);
	mutex_unlock(&ew_config_lock);
	kvfree(addrs);
	if (!ret)
		pr_info_ratelimited("%u node address(es) %s%s\n", n,
				    admission == EASTWEST_ADMISSION_REVOKED ?
				    "revoked" : "admitted again",
				    revoked ? ", live QPs to them revoked" : "");
	return ret;
}

/* ---- global configuration ---------------------------------------------- */

int eastwest_nl_config_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct ew_global g;
	struct sk_buff *msg;
	int ret = 0;
	void *hdr;

	if (info->attrs[EASTWEST_A_CONFIG_MODE]) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[EASTWEST_A_CONFIG_MODE],
				    "config-get takes no attributes");
		return -EINVAL;
	}
	/* Every revoked node goes in this one message (nodes.h bounds them). */
	msg = ew_nl_reply_new(info, NLMSG_GOODSIZE + ew_nodes_revoked_size(),
			      &hdr);
	if (IS_ERR(msg))
		return PTR_ERR(msg);
	ew_global_snapshot(&g);
	if (nla_put_u32(msg, EASTWEST_A_CONFIG_MODE, g.mode) ||
	    nla_put_u32(msg, EASTWEST_A_CONFIG_DEFAULT_ACTION, g.default_action) ||
	    nla_put_string(msg, EASTWEST_A_CONFIG_VERSION, EW_VERSION) ||
	    nla_put_u32(msg, EASTWEST_A_CONFIG_JOB_COUNT, ew_jobs_count()) ||
	    (ew_nl_admin(skb) &&
	     (nla_put_u32(msg, EASTWEST_A_CONFIG_PEER_COUNT, ew_peers_total()) ||
	      ew_nl_put_counters(msg, EASTWEST_A_CONFIG_COUNTERS,
				 ew_global_counters()) ||
	      ew_nodes_put_revoked(msg, EASTWEST_A_CONFIG_REVOKED_NODE))) ||
	    ew_fabric_put_physical(msg, EASTWEST_A_CONFIG_PHYSICAL_IFINDEX) ||
	    nla_put_u32(msg, EASTWEST_A_CONFIG_ADMISSION, g.admission) ||
	    nla_put_u8(msg, EASTWEST_A_CONFIG_ADMISSION_REQUIRED,
		       g.admission_required) ||
	    nla_put_u32(msg, EASTWEST_A_CONFIG_ADMISSION_TTL, ew_admission_ttl_left()))
		ret = -EMSGSIZE;
	return ew_nl_reply(msg, hdr, info, ret);
}

int eastwest_nl_config_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **attrs = info->attrs;
	struct ew_admission_change chg = {};

	if (!attrs[EASTWEST_A_CONFIG_MODE] &&
	    !attrs[EASTWEST_A_CONFIG_DEFAULT_ACTION] &&
	    !attrs[EASTWEST_A_CONFIG_ADMISSION] &&
	    !attrs[EASTWEST_A_CONFIG_ADMISSION_REQUIRED]) {
		NL_SET_ERR_MSG_MOD(info->extack,
				   "config-set needs mode, default-action, admission or admission-required");
		return -EINVAL;
	}
	if (attrs[EASTWEST_A_CONFIG_ADMISSION_TTL] &&
	    !(attrs[EASTWEST_A_CONFIG_ADMISSION] &&
	      nla_get_u32(attrs[EASTWEST_A_CONFIG_ADMISSION]) ==
	      EASTWEST_ADMISSION_ADMITTED)) {
		NL_SET_ERR_MSG_ATTR(info->extack, attrs[EASTWEST_A_CONFIG_ADMISSION_TTL],
				    "admission-ttl goes with admission admitted");
		return -EINVAL;
	}
	if (attrs[EASTWEST_A_CONFIG_MODE] || attrs[EASTWEST_A_CONFIG_DEFAULT_ACTION]) {
		unsigned int revoked;
		u32 mode, action;
		bool changed;

		mutex_lock(&ew_config_lock);
		mode = ew_global.mode;
		action = ew_global.default_action;
		if (attrs[EASTWEST_A_CONFIG_MODE])
			mode = nla_get_u32(attrs[EASTWEST_A_CONFIG_MODE]);
		if (attrs[EASTWEST_A_CONFIG_DEFAULT_ACTION])
			action = nla_get_u32(attrs[EASTWEST_A_CONFIG_DEFAULT_ACTION]);
		revoked = ew_op_config_set(mode, action, &changed);
		mutex_unlock(&ew_config_lock);
		if (revoked)
			pr_info("%u QP(s) revoked: enforce mode refuses what audit mode let through\n",
				revoked);
		/*
		 * Only real changes are logged, and at a bounded rate: a root
		 * loop re-sending the same setting (or a fuzzer) must not flood
		 * the log and push the deny lines out of it.
		 */
		if (changed)
			pr_info_ratelimited("mode %s, default action %s\n",
					    mode == EASTWEST_MODE_AUDIT ? "audit" : "enforce",
					    action == EASTWEST_DEFAULT_ACTION_ALLOW ?
					    "allow" : "deny");
	}
	if (attrs[EASTWEST_A_CONFIG_ADMISSION]) {
		chg.has_admission = true;
		chg.admission = nla_get_u32(attrs[EASTWEST_A_CONFIG_ADMISSION]);
	}
	if (attrs[EASTWEST_A_CONFIG_ADMISSION_REQUIRED]) {
		chg.has_required = true;
		chg.required = nla_get_u8(attrs[EASTWEST_A_CONFIG_ADMISSION_REQUIRED]);
	}
	if (attrs[EASTWEST_A_CONFIG_ADMISSION_TTL]) {
		chg.has_ttl = true;
		chg.ttl = nla_get_u32(attrs[EASTWEST_A_CONFIG_ADMISSION_TTL]);
	}
	if (chg.has_admission || chg.has_required)
		ew_admission_change(&chg);
	return 0;
}

/* ---- family ------------------------------------------------------------ */

static const struct genl_multicast_group ew_nl_mcgrps[] = {
	[EASTWEST_NLGRP_EVENTS] = {
		.name = EASTWEST_MCGRP_EVENTS,
		.flags = GENL_MCAST_CAP_NET_ADMIN,
	},
};

struct genl_family ew_genl_family __ro_after_init = {
	.name = EASTWEST_FAMILY_NAME,
	.version = EASTWEST_FAMILY_VERSION,
	.netnsok = false,
	.parallel_ops = false,
	/* Strict validation of every command, header included. */
	.resv_start_op = EASTWEST_CMD_JOB_GET,
	.ops = eastwest_nl_ops,
	.n_ops = ARRAY_SIZE(eastwest_nl_ops),
	.mcgrps = ew_nl_mcgrps,
	.n_mcgrps = ARRAY_SIZE(ew_nl_mcgrps),
	.module = THIS_MODULE,
};

/**
 * ew_netlink_init() - register the family
 */
int ew_netlink_init(void)
{
	return genl_register_family(&ew_genl_family);
}

/**
 * ew_netlink_exit() - unregister the family
 */
void ew_netlink_exit(void)
{
	genl_unregister_family(&ew_genl_family);
}
