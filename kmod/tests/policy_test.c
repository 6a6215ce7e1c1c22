// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suites for eastwest's decision engine, peer tables and job store.
 * Table-driven: every allow/deny reason, prefix matching, P_Key membership,
 * Q_Key rules, audit vs enforce and the default action.
 */

#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <asm/unaligned.h>
#include <rdma/ib_verbs.h>

#include "config.h"
#include "job.h"
#include "nodes.h"
#include "peers.h"
#include "policy.h"
#include "test_util.h"

static const u8 gid_net24[16] = V4(192, 0, 2, 0);
static const u8 gid_in24[16] = V4(192, 0, 2, 77);
static const u8 gid_out24[16] = V4(192, 0, 3, 1);
static const u8 gid_host[16] = { 0xfe, 0x80, [15] = 1 };
static const u8 gid_host_other[16] = { 0xfe, 0x80, [15] = 2 };
static const u8 gid_db8[16] = { 0x20, 0x01, 0x0d, 0xb8 };
static const u8 gid_db8_in[16] = { 0x20, 0x01, 0x0d, 0xb8, 0xff, [15] = 9 };
static const u8 gid_db9[16] = { 0x20, 0x01, 0x0d, 0xb9 };

#define EW_TEST_JOB_ID	7
#define EW_TEST_QKEY	0x1234
#define EW_TEST_IFINDEX	3
#define EW_TEST_VLAN	100

/*
 * KUNIT_ARRAY_PARAM() @name over the array @name##_cases of struct
 * @name##_case, each case named by its desc member (the 6.1 KUnit has no
 * KUNIT_ARRAY_PARAM_DESC()).
 */
#define EW_CASES_PARAM(name)						\
	static void name##_case_desc(const struct name##_case *c, char *desc) \
	{								\
		strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);		\
	}								\
	KUNIT_ARRAY_PARAM(name, name##_cases, name##_case_desc)

/* A zeroed job policy, freed with the test. */
static struct ew_job_policy *ew_test_policy_new(struct kunit *test)
{
	struct ew_job_policy *pol = kunit_kzalloc(test, sizeof(*pol), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, pol);
	return pol;
}

/* A fresh job spec that names the job @name. */
static void ew_test_spec_init_named(struct ew_job_spec *spec, const char *name)
{
	ew_job_spec_init(spec);
	spec->has_name = true;
	strscpy(spec->name, name, sizeof(spec->name));
}

/* ---- P_Key membership -------------------------------------------------- */

struct ew_pkey_case {
	const char *desc;
	u16 grants[2];
	u16 n;
	u16 pkey;
	bool allowed;
};

static const struct ew_pkey_case ew_pkey_cases[] = {
	{ "no grants: unrestricted", {}, 0, 0x8001, true },
	{ "full grant, full entry", { 0x8001 }, 1, 0x8001, true },
	{ "full grant, limited entry", { 0x8001 }, 1, 0x0001, true },
	{ "limited grant, limited entry", { 0x0001 }, 1, 0x0001, true },
	{ "limited grant refuses full entry", { 0x0001 }, 1, 0x8001, false },
	{ "other partition", { 0x8001 }, 1, 0x8002, false },
	{ "second grant matches", { 0x8001, 0x8005 }, 2, 0x0005, true },
	{ "invalid P_Key 0x0000", { 0x8001 }, 1, 0x0000, false },
	{ "invalid P_Key 0x8000", { 0x8001 }, 1, 0x8000, false },
	{ "default P_Key needs a grant", { 0x8001 }, 1, 0xffff, false },
	{ "default P_Key granted", { 0xffff }, 1, 0xffff, true },
};

EW_CASES_PARAM(ew_pkey);

static void ew_test_pkey(struct kunit *test)
{
	const struct ew_pkey_case *c = test->param_value;
	struct ew_job_policy *pol = ew_test_policy_new(test);

	pol->n_pkeys = c->n;
	memcpy(pol->pkeys, c->grants, sizeof(c->grants));
	KUNIT_EXPECT_EQ(test, ew_pkey_allowed(pol, c->pkey), c->allowed);
}

/* ---- source netdev ----------------------------------------------------- */

struct ew_src_case {
	const char *desc;
	struct ew_netdev_rule rules[2];
	u16 n;
	struct ew_src src;
	bool allowed;
};

static const struct ew_src_case ew_src_cases[] = {
	{ "no rules: unrestricted", {}, 0, { .ifindex = 9 }, true },
	{ "ifindex match", { { EW_NETDEV_IFINDEX, 3 } }, 1, { .ifindex = 3 }, true },
	{ "ifindex mismatch", { { EW_NETDEV_IFINDEX, 3 } }, 1, { .ifindex = 4 }, false },
	{ "vlan match", { { EW_NETDEV_VLAN, 100 } }, 1,
	  { .ifindex = 8, .vlan = 100 }, true },
	{ "vlan mismatch", { { EW_NETDEV_VLAN, 100 } }, 1,
	  { .ifindex = 8, .vlan = 200 }, false },
	{ "vlan rule, untagged netdev", { { EW_NETDEV_VLAN, 100 } }, 1,
	  { .ifindex = 8 }, false },
	{ "vrf match", { { EW_NETDEV_VRF, 12 } }, 1,
	  { .ifindex = 8, .vrf = 12 }, true },
	{ "vrf rule, netdev in no vrf", { { EW_NETDEV_VRF, 12 } }, 1,
	  { .ifindex = 12 }, false },
	{ "second rule matches", { { EW_NETDEV_VLAN, 5 }, { EW_NETDEV_IFINDEX, 2 } },
	  2, { .ifindex = 2 }, true },
};

EW_CASES_PARAM(ew_src);

static void ew_test_src(struct kunit *test)
{
	const struct ew_src_case *c = test->param_value;
	struct ew_job_policy *pol = ew_test_policy_new(test);

	pol->n_netdevs = c->n;
	memcpy(pol->netdevs, c->rules, sizeof(c->rules));
	KUNIT_EXPECT_EQ(test, ew_src_allowed(pol, &c->src), c->allowed);
}

/* ---- decisions against a real job ------------------------------------- */

/* The test job: peers 192.0.2.0/24, fe80::1, 2001:db8::/32 and LID 5. */
static struct ew_job *ew_test_job_create(struct kunit *test, u32 mode)
{
	struct ew_peer_key keys[4];
	struct ew_peer_batch batch = { .keys = keys, .n = ARRAY_SIZE(keys) };
	struct ew_job_spec spec;
	struct ew_job *job;
	u32 id;
	int ret;

	ew_peer_key_gid(&keys[0], EW_TEST_JOB_ID, gid_net24, 96 + 24);
	ew_peer_key_gid(&keys[1], EW_TEST_JOB_ID, gid_host, 128);
	ew_peer_key_gid(&keys[2], EW_TEST_JOB_ID, gid_db8, 32);
	ew_peer_key_lid(&keys[3], EW_TEST_JOB_ID, 5);

	ew_test_spec_init_named(&spec, "kunit");
	spec.id = EW_TEST_JOB_ID;
	spec.has_mode = true;
	spec.mode = mode;
	spec.has_qkey = true;
	spec.qkey = EW_TEST_QKEY;
	spec.has_netdevs = true;
	spec.n_netdevs = 2;
	spec.netdevs[0] = (struct ew_netdev_rule){ EW_NETDEV_IFINDEX, EW_TEST_IFINDEX };
	spec.netdevs[1] = (struct ew_netdev_rule){ EW_NETDEV_VLAN, EW_TEST_VLAN };
	spec.has_pkeys = true;
	spec.n_pkeys = 1;
	spec.pkeys[0] = 0x8001;
	spec.peers = &batch;

	mutex_lock(&ew_config_lock);
	ret = ew_job_create(&spec, NULL, &id);
	job = ret ? NULL : ew_job_find(id);
	mutex_unlock(&ew_config_lock);
	ew_job_spec_release(&spec);
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_ASSERT_EQ(test, id, (u32)EW_TEST_JOB_ID);
	KUNIT_ASSERT_NOT_NULL(test, job);
	KUNIT_EXPECT_EQ(test, job->n_peers, 4u);
	return job;
}

static void ew_test_job_delete(struct ew_job *job)
{
	mutex_lock(&ew_config_lock);
	ew_job_delete(job);
	mutex_unlock(&ew_config_lock);
}

struct ew_decide_case {
	const char *desc;
	struct ew_request req;
	u32 reason;
};

#define PATH_LID(lid) { .dlid = lid }
#define G(...) { __VA_ARGS__ }

static const struct ew_decide_case ew_decide_cases[] = {
	{ "connect to a /24 member", MODIFY(.n_paths = 1,
	  .paths = { PATH_GID(V4(192, 0, 2, 77), 3, 0) }), 0 },
	{ "connect to the /24 network address", MODIFY(.n_paths = 1,
	  .paths = { PATH_GID(V4(192, 0, 2, 0), 3, 0) }), 0 },
	{ "connect outside the /24", MODIFY(.n_paths = 1,
	  .paths = { PATH_GID(V4(192, 0, 3, 1), 3, 0) }), EASTWEST_REASON_PEER },
	{ "connect to the /128 host", MODIFY(.n_paths = 1,
	  .paths = { PATH_GID(G(0xfe, 0x80, [15] = 1), 3, 0) }), 0 },
	{ "connect next to the /128 host", MODIFY(.n_paths = 1,
	  .paths = { PATH_GID(G(0xfe, 0x80, [15] = 2), 3, 0) }),
	  EASTWEST_REASON_PEER },
	{ "connect inside 2001:db8::/32", MODIFY(.n_paths = 1,
	  .paths = { PATH_GID(G(0x20, 0x01, 0x0d, 0xb8, 0xff, [15] = 9), 3, 0) }), 0 },
	{ "connect to 2001:db9::", MODIFY(.n_paths = 1,
	  .paths = { PATH_GID(G(0x20, 0x01, 0x0d, 0xb9), 3, 0) }),
	  EASTWEST_REASON_PEER },
	{ "source via allowed VLAN", MODIFY(.n_paths = 1,
	  .paths = { PATH_GID(V4(192, 0, 2, 1), 44, 100) }), 0 },
	{ "source netdev not the job's", MODIFY(.n_paths = 1,
	  .paths = { PATH_GID(V4(192, 0, 2, 1), 4, 0) }),
	  EASTWEST_REASON_SRC_NETDEV },
	{ "path without netdev under netdev rules", MODIFY(.n_paths = 1,
	  .paths = { { .has_grh = true, .dgid = V4(192, 0, 2, 1) } }),
	  EASTWEST_REASON_SRC_NETDEV },
	{ "alternate path to a stranger", MODIFY(.n_paths = 2,
	  .paths = { PATH_GID(V4(192, 0, 2, 1), 3, 0),
		     PATH_GID(V4(10, 9, 9, 9), 3, 0) }), EASTWEST_REASON_PEER },
	{ "IB LID peer", MODIFY(.n_paths = 1, .paths = { PATH_LID(5) }),
	  EASTWEST_REASON_SRC_NETDEV },
	{ "granted P_Key", MODIFY(.has_pkey = true, .pkey = 0x8001), 0 },
	{ "foreign P_Key", MODIFY(.has_pkey = true, .pkey = 0x8002),
	  EASTWEST_REASON_PKEY },
	{ "foreign alternate P_Key", MODIFY(.has_pkey = true, .pkey = 0x8001,
	  .has_alt_pkey = true, .alt_pkey = 0x7fff), EASTWEST_REASON_PKEY },
	{ "the job's Q_Key", MODIFY(.has_qkey = true, .qkey = EW_TEST_QKEY), 0 },
	{ "another Q_Key", MODIFY(.has_qkey = true, .qkey = 0x1235),
	  EASTWEST_REASON_QKEY },
	{ "privileged Q_Key", MODIFY(.has_qkey = true, .qkey = 0x80010000),
	  EASTWEST_REASON_QKEY },
	{ "raw packet QP", { .op = EASTWEST_OP_CREATE_QP, .has_qp_type = true,
	  .qp_type = IB_QPT_RAW_PACKET, .driver_id = RDMA_DRIVER_RXE },
	  EASTWEST_REASON_QP_TYPE },
	{ "UD QP without the ud setting", { .op = EASTWEST_OP_CREATE_QP,
	  .has_qp_type = true, .qp_type = IB_QPT_UD,
	  .driver_id = RDMA_DRIVER_RXE }, EASTWEST_REASON_QP_TYPE },
	{ "RC QP (judged at its modifies)", { .op = EASTWEST_OP_CREATE_QP,
	  .has_qp_type = true, .qp_type = IB_QPT_RC,
	  .driver_id = RDMA_DRIVER_RXE }, 0 },
	{ "nothing policed", MODIFY(.n_paths = 0), 0 },
};

EW_CASES_PARAM(ew_decide);

static void ew_test_decide(struct kunit *test)
{
	const struct ew_decide_case *c = test->param_value;
	struct ew_global enforce = { EASTWEST_MODE_ENFORCE,
				     EASTWEST_DEFAULT_ACTION_DENY };
	struct ew_global audit = { EASTWEST_MODE_AUDIT,
				   EASTWEST_DEFAULT_ACTION_DENY };
	struct ew_job *job = ew_test_job_create(test, EASTWEST_MODE_ENFORCE);
	struct ew_verdict v;

	rcu_read_lock();
	v = ew_decide(&enforce, job, ew_job_policy(job), &c->req);
	KUNIT_EXPECT_EQ(test, v.reason, c->reason);
	KUNIT_EXPECT_EQ(test, v.deny, c->reason != 0);

	/* Audit reports the same reason but never denies. */
	v = ew_decide(&audit, job, ew_job_policy(job), &c->req);
	KUNIT_EXPECT_EQ(test, v.reason, c->reason);
	KUNIT_EXPECT_FALSE(test, v.deny);
	rcu_read_unlock();

	ew_test_job_delete(job);
}

/* The LID case above is refused by the netdev rule; without one it passes. */
static void ew_test_lid_peer(struct kunit *test)
{
	struct ew_job *job = ew_test_job_create(test, EASTWEST_MODE_ENFORCE);

	rcu_read_lock();
	KUNIT_EXPECT_TRUE(test, ew_peer_match_lid(job, 5));
	KUNIT_EXPECT_FALSE(test, ew_peer_match_lid(job, 6));
	rcu_read_unlock();
	ew_test_job_delete(job);
}

static void ew_test_job_audit_mode(struct kunit *test)
{
	struct ew_global enforce = { EASTWEST_MODE_ENFORCE,
				     EASTWEST_DEFAULT_ACTION_DENY };
	struct ew_request req = MODIFY(.n_paths = 1,
		.paths = { PATH_GID(V4(192, 0, 3, 1), 3, 0) });
	struct ew_job *job = ew_test_job_create(test, EASTWEST_MODE_AUDIT);
	struct ew_verdict v;

	rcu_read_lock();
	v = ew_decide(&enforce, job, ew_job_policy(job), &req);
	rcu_read_unlock();
	KUNIT_EXPECT_EQ(test, v.reason, (u32)EASTWEST_REASON_PEER);
	KUNIT_EXPECT_FALSE(test, v.deny);
	ew_test_job_delete(job);
}

static void ew_test_default_action(struct kunit *test)
{
	struct ew_request req = MODIFY(.n_paths = 1,
		.paths = { PATH_GID(V4(192, 0, 2, 1), 3, 0) });
	struct ew_global g = { EASTWEST_MODE_ENFORCE, EASTWEST_DEFAULT_ACTION_DENY };
	struct ew_verdict v;

	v = ew_decide(&g, NULL, NULL, &req);
	KUNIT_EXPECT_EQ(test, v.reason, (u32)EASTWEST_REASON_NO_JOB);
	KUNIT_EXPECT_TRUE(test, v.deny);

	g.mode = EASTWEST_MODE_AUDIT;
	v = ew_decide(&g, NULL, NULL, &req);
	KUNIT_EXPECT_EQ(test, v.reason, (u32)EASTWEST_REASON_NO_JOB);
	KUNIT_EXPECT_FALSE(test, v.deny);

	g.mode = EASTWEST_MODE_ENFORCE;
	g.default_action = EASTWEST_DEFAULT_ACTION_ALLOW;
	v = ew_decide(&g, NULL, NULL, &req);
	KUNIT_EXPECT_EQ(test, v.reason, 0u);
	KUNIT_EXPECT_FALSE(test, v.deny);
}

/* ---- peer table: all-or-nothing changes --------------------------------- */

static void ew_test_peer_del_atomic(struct kunit *test)
{
	struct ew_job *job = ew_test_job_create(test, EASTWEST_MODE_ENFORCE);
	struct ew_peer_key keys[2];
	struct ew_peer_batch batch = { .keys = keys, .n = 2 };
	unsigned int failed_at = 99;
	struct ew_peer_key match;
	int ret;

	ew_peer_key_gid(&keys[0], job->id, gid_host, 128);
	ew_peer_key_gid(&keys[1], job->id, gid_host_other, 128);

	mutex_lock(&ew_config_lock);
	ret = ew_peers_del(job, &batch, &failed_at);
	mutex_unlock(&ew_config_lock);
	KUNIT_EXPECT_EQ(test, ret, -ENOENT);
	KUNIT_EXPECT_EQ(test, failed_at, 1u);
	KUNIT_EXPECT_EQ(test, job->n_peers, 4u);

	rcu_read_lock();
	KUNIT_EXPECT_TRUE(test, ew_peer_match_gid(job, gid_host, &match));
	rcu_read_unlock();
	KUNIT_EXPECT_EQ(test, match.plen, 128);

	batch.n = 1;
	mutex_lock(&ew_config_lock);
	ret = ew_peers_del(job, &batch, &failed_at);
	mutex_unlock(&ew_config_lock);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, job->n_peers, 3u);
	rcu_read_lock();
	KUNIT_EXPECT_FALSE(test, ew_peer_match_gid(job, gid_host, NULL));
	rcu_read_unlock();
	ew_test_job_delete(job);
}

static void ew_test_peer_add_idempotent(struct kunit *test)
{
	struct ew_job *job = ew_test_job_create(test, EASTWEST_MODE_ENFORCE);
	unsigned long before = ew_peers_total();
	struct ew_peer_key keys[3];
	struct ew_peer_batch batch = { .keys = keys, .n = 3 };
	unsigned int failed_at;
	struct ew_peer_key match;
	int ret;

	/* An existing entry, a new /16 and the same /16 again. */
	ew_peer_key_gid(&keys[0], job->id, gid_host, 128);
	ew_peer_key_gid(&keys[1], job->id, gid_db9, 16);
	ew_peer_key_gid(&keys[2], job->id, gid_db9, 16);
	mutex_lock(&ew_config_lock);
	ret = ew_peers_add(job, &batch, &failed_at);
	mutex_unlock(&ew_config_lock);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, job->n_peers, 5u);
	KUNIT_EXPECT_EQ(test, ew_peers_total(), before + 1);

	/* 2001:db8:ff::9 is in both 2001:db8::/32 and 2001::/16: longest wins. */
	rcu_read_lock();
	KUNIT_EXPECT_TRUE(test, ew_peer_match_gid(job, gid_db8_in, &match));
	rcu_read_unlock();
	KUNIT_EXPECT_EQ(test, match.plen, 32);
	ew_test_job_delete(job);
	KUNIT_EXPECT_EQ(test, ew_peers_total(), before - 4);
}

/* Peers of one job never admit addresses for another. */
static void ew_test_peer_job_scoped(struct kunit *test)
{
	struct ew_job *job = ew_test_job_create(test, EASTWEST_MODE_ENFORCE);
	struct ew_job other = { .id = EW_TEST_JOB_ID + 1 };

	bitmap_copy(other.plen_gid, job->plen_gid, EW_NUM_PLENS);
	other.n_lids = 1;
	rcu_read_lock();
	KUNIT_EXPECT_TRUE(test, ew_peer_match_gid(job, gid_in24, NULL));
	KUNIT_EXPECT_FALSE(test, ew_peer_match_gid(&other, gid_in24, NULL));
	KUNIT_EXPECT_FALSE(test, ew_peer_match_gid(job, gid_out24, NULL));
	KUNIT_EXPECT_FALSE(test, ew_peer_match_lid(&other, 5));
	rcu_read_unlock();
	ew_test_job_delete(job);
}

/*
 * Prefixes of every length class that masks differently (none, within the
 * first word, its last bit, the second word, the whole address): the last
 * bit inside a prefix decides a match, the first bit after it does not.
 */
static void ew_test_peer_prefix_bits(struct kunit *test)
{
	static const u8 plens[] = { 0, 1, 7, 8, 23, 63, 64, 65, 100, 127, 128 };
	static const u8 base[16] = { 0xfd, 0x5a, 0xa5, 0x5a, 0xa5, 0x5a, 0xa5,
				     0x5a, 0xa5, 0x5a, 0xa5, 0x5a, 0xa5, 0x5a,
				     0xa5, 0x5a };
	struct ew_job_spec spec;
	struct ew_peer_key key;
	struct ew_peer_batch batch = { .keys = &key, .n = 1 };
	struct ew_job *job;
	unsigned int i;
	u8 gid[16];
	u32 id;
	int ret;

	for (i = 0; i < ARRAY_SIZE(plens); i++) {
		u8 plen = plens[i];

		ew_peer_key_gid(&key, EW_TEST_JOB_ID, base, plen);
		ew_test_spec_init_named(&spec, "kunit-prefix");
		spec.id = EW_TEST_JOB_ID;
		spec.peers = &batch;
		mutex_lock(&ew_config_lock);
		ret = ew_job_create(&spec, NULL, &id);
		mutex_unlock(&ew_config_lock);
		KUNIT_ASSERT_EQ(test, ret, 0);
		job = ew_job_find(id);
		KUNIT_ASSERT_NOT_NULL(test, job);

		rcu_read_lock();
		KUNIT_EXPECT_TRUE_MSG(test, ew_peer_match_gid(job, base, NULL),
				      "/%u: the base address", plen);
		if (plen) {
			memcpy(gid, base, sizeof(gid));
			gid[(plen - 1) / 8] ^= 0x80 >> ((plen - 1) % 8);
			KUNIT_EXPECT_FALSE_MSG(test,
					       ew_peer_match_gid(job, gid, NULL),
					       "/%u: its last bit flipped", plen);
		}
		if (plen < 128) {
			memcpy(gid, base, sizeof(gid));
			gid[plen / 8] ^= 0x80 >> (plen % 8);
			KUNIT_EXPECT_TRUE_MSG(test,
					      ew_peer_match_gid(job, gid, NULL),
					      "/%u: the next bit flipped", plen);
			memset(gid + DIV_ROUND_UP(plen, 8), 0xff,
			       16 - DIV_ROUND_UP(plen, 8));
			KUNIT_EXPECT_TRUE_MSG(test,
					      ew_peer_match_gid(job, gid, NULL),
					      "/%u: every later byte set", plen);
		}
		rcu_read_unlock();
		ew_test_job_delete(job);
	}
}

/* ---- job store ---------------------------------------------------------- */

static void ew_test_job_names_and_ids(struct kunit *test)
{
	struct ew_job *job = ew_test_job_create(test, EASTWEST_MODE_ENFORCE);
	struct ew_job_spec spec;
	u32 id = 0;
	int ret;

	ew_test_spec_init_named(&spec, "kunit");
	mutex_lock(&ew_config_lock);
	ret = ew_job_create(&spec, NULL, &id);
	KUNIT_EXPECT_EQ(test, ret, -EEXIST);

	strscpy(spec.name, "kunit-2", sizeof(spec.name));
	spec.id = EW_TEST_JOB_ID;
	ret = ew_job_create(&spec, NULL, &id);
	KUNIT_EXPECT_EQ(test, ret, -EEXIST);

	/* No id: the module picks a free one. */
	spec.id = 0;
	ret = ew_job_create(&spec, NULL, &id);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_NE(test, id, (u32)EW_TEST_JOB_ID);
	KUNIT_EXPECT_PTR_EQ(test, ew_job_find_by_name("kunit-2"), ew_job_find(id));
	KUNIT_EXPECT_EQ(test, ew_jobs_count(), 2u);
	ew_job_delete(ew_job_find(id));
	mutex_unlock(&ew_config_lock);
	ew_job_spec_release(&spec);
	ew_test_job_delete(job);
	KUNIT_EXPECT_EQ(test, ew_jobs_count(), 0u);
}

/* Deleting from the middle keeps the order; appends land after the tail. */
static void ew_test_peer_list_order(struct kunit *test)
{
	struct ew_job *job = ew_test_job_create(test, EASTWEST_MODE_ENFORCE);
	struct ew_peer_key key, want[4];
	struct ew_peer_batch batch = { .keys = &key, .n = 1 };
	const struct ew_peer *peer;
	unsigned int failed_at, n = 0;
	int ret;

	/* Created with 192.0.2.0/24, fe80::1, 2001:db8::/32, LID 5. */
	ew_peer_key_gid(&key, job->id, gid_host, 128);
	mutex_lock(&ew_config_lock);
	ret = ew_peers_del(job, &batch, &failed_at);
	KUNIT_EXPECT_EQ(test, ret, 0);
	ew_peer_key_lid(&key, job->id, 5);
	ret = ew_peers_del(job, &batch, &failed_at);
	KUNIT_EXPECT_EQ(test, ret, 0);
	ew_peer_key_gid(&key, job->id, gid_db9, 16);
	ret = ew_peers_add(job, &batch, &failed_at);
	KUNIT_EXPECT_EQ(test, ret, 0);

	ew_peer_key_gid(&want[0], job->id, gid_net24, 96 + 24);
	ew_peer_key_gid(&want[1], job->id, gid_db8, 32);
	ew_peer_key_gid(&want[2], job->id, gid_db9, 16);
	for (peer = job->peers.first; peer; peer = peer->next) {
		KUNIT_ASSERT_LT(test, n, 3u);
		KUNIT_EXPECT_EQ(test, memcmp(&peer->key, &want[n], sizeof(key)), 0);
		n++;
	}
	KUNIT_EXPECT_EQ(test, n, 3u);
	KUNIT_EXPECT_PTR_EQ(test, (const struct ew_peer *)job->peers.last,
			    ew_peer_dump_next(job, &want[1], 0));

	/* Dumps resume after the last key; a removed one falls back to a count. */
	KUNIT_EXPECT_PTR_EQ(test, ew_peer_dump_next(job, NULL, 0),
			    (const struct ew_peer *)job->peers.first);
	KUNIT_EXPECT_NULL(test, ew_peer_dump_next(job, &want[2], 3));
	ew_peer_key_gid(&key, job->id, gid_host, 128);
	KUNIT_EXPECT_PTR_EQ(test, ew_peer_dump_next(job, &key, 2),
			    (const struct ew_peer *)job->peers.last);
	mutex_unlock(&ew_config_lock);
	ew_test_job_delete(job);
}

/* Renamed jobs are found by their new name only; ids come back in order. */
static void ew_test_job_rename_and_order(struct kunit *test)
{
	struct ew_job *job = ew_test_job_create(test, EASTWEST_MODE_ENFORCE);
	struct ew_job_spec spec;
	u32 id = 0;
	int ret;

	ew_test_spec_init_named(&spec, "kunit-renamed");
	mutex_lock(&ew_config_lock);
	ret = ew_job_change(job, &spec, NULL);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_NULL(test, ew_job_find_by_name("kunit"));
	KUNIT_EXPECT_PTR_EQ(test, ew_job_find_by_name("kunit-renamed"), job);

	strscpy(spec.name, "kunit-low", sizeof(spec.name));
	spec.id = 3;
	ret = ew_job_create(&spec, NULL, &id);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, ew_job_next(0)->id, 3u);
	KUNIT_EXPECT_PTR_EQ(test, ew_job_next(3), job);
	KUNIT_EXPECT_NULL(test, ew_job_next(EW_TEST_JOB_ID));
	ew_job_delete(ew_job_find(3));
	mutex_unlock(&ew_config_lock);
	ew_job_spec_release(&spec);
	ew_test_job_delete(job);
}

static void ew_test_job_change_swaps_policy(struct kunit *test)
{
	struct ew_job *job = ew_test_job_create(test, EASTWEST_MODE_ENFORCE);
	/* Only compared, never dereferenced: no RCU read side needed. */
	struct ew_job_policy *before = rcu_access_pointer(job->policy);
	struct ew_job_spec spec;
	int ret;

	ew_job_spec_init(&spec);
	spec.has_qkey = true;
	spec.qkey = 0x42;
	mutex_lock(&ew_config_lock);
	ret = ew_job_change(job, &spec, NULL);
	mutex_unlock(&ew_config_lock);
	KUNIT_EXPECT_EQ(test, ret, 0);

	rcu_read_lock();
	KUNIT_EXPECT_PTR_NE(test, ew_job_policy(job), before);
	KUNIT_EXPECT_EQ(test, ew_job_policy(job)->qkey, 0x42u);
	/* Untouched attributes carry over. */
	KUNIT_EXPECT_EQ(test, ew_job_policy(job)->n_pkeys, 1);
	KUNIT_EXPECT_EQ(test, ew_job_policy(job)->n_netdevs, 2);
	rcu_read_unlock();
	ew_test_job_delete(job);
}

/* ---- which rdma_cm listeners take a connect request -------------------- */

#define EW_TEST_LOOPBACK	0xff	/* 127.0.0.1 or ::1 */
#define EW_TEST_ZERONET		0xfe	/* 0.0.0.7 (IPv4 only) */
#define EW_TEST_LOOPBACK2	0xfd	/* 127.1.2.3 (IPv4 only) */

/*
 * An address of @family: 0 every address, EW_TEST_LOOPBACK, EW_TEST_LOOPBACK2
 * or EW_TEST_ZERONET, else @last as the last byte of a unicast address.
 */
static void ew_test_sockaddr(struct sockaddr_storage *ss, sa_family_t family,
			     u8 last)
{
	struct in6_addr *a6 = &((struct sockaddr_in6 *)ss)->sin6_addr;
	__be32 *a4 = &((struct sockaddr_in *)ss)->sin_addr.s_addr;

	memset(ss, 0, sizeof(*ss));
	ss->ss_family = family;
	if (!last)
		return;
	if (family == AF_INET)
		*a4 = htonl(last == EW_TEST_LOOPBACK ? 0x7f000001 :
			    last == EW_TEST_LOOPBACK2 ? 0x7f010203 :
			    last == EW_TEST_ZERONET ? 7 : 0x0a520000 | last);
	if (family == AF_INET6) {
		a6->s6_addr[0] = last == EW_TEST_LOOPBACK ? 0 : 0xfd;
		a6->s6_addr[15] = last == EW_TEST_LOOPBACK ? 1 : last;
	}
}

/*
 * Every listener family, bound to every address or to one, with and
 * without afonly, against requests of each family to that address and to
 * another: rdma_cm's cma_match_private_data() as a table.
 */
static void ew_test_cm_listen_addr(struct kunit *test)
{
	static const struct {
		sa_family_t lfam;
		u8 laddr;	/* 0: every address */
		bool afonly;
		sa_family_t dfam;
		u8 daddr;
		bool takes;
	} cases[] = {
		{ AF_INET, 1, true, AF_INET, 1, true },
		{ AF_INET, 1, true, AF_INET, 2, false },
		{ AF_INET, 1, false, AF_INET, 2, false },
		{ AF_INET, 1, true, AF_INET6, 1, false },
		{ AF_INET, 0, true, AF_INET, 2, true },
		{ AF_INET, 0, true, AF_INET6, 2, false },
		{ AF_INET, 0, false, AF_INET6, 2, true },
		{ AF_INET6, 1, true, AF_INET6, 1, true },
		{ AF_INET6, 1, false, AF_INET6, 2, false },
		{ AF_INET6, 1, false, AF_INET, 1, false },
		{ AF_INET6, 0, true, AF_INET6, 3, true },
		{ AF_INET6, 0, true, AF_INET, 3, false },
		/* [::] without IPV6_V6ONLY takes IPv4 requests too. */
		{ AF_INET6, 0, false, AF_INET, 3, true },
		{ AF_IB, 1, true, AF_INET, 2, true },
		{ AF_IB, 0, false, AF_INET6, 2, true },
		/* rdma_cm takes loopback addresses for every address ... */
		{ AF_INET, EW_TEST_LOOPBACK, true, AF_INET, 2, true },
		{ AF_INET, EW_TEST_LOOPBACK2, true, AF_INET, 2, true },
		{ AF_INET, EW_TEST_LOOPBACK, true, AF_INET6, 2, false },
		/* ... but of 0/8 only 0.0.0.0 (ipv4_is_zeronet()). */
		{ AF_INET, EW_TEST_ZERONET, true, AF_INET, 2, false },
		{ AF_INET6, EW_TEST_LOOPBACK, true, AF_INET6, 2, true },
		{ AF_INET6, EW_TEST_LOOPBACK, false, AF_INET, 2, true },
		{ AF_INET6, EW_TEST_LOOPBACK, true, AF_INET, 2, false },
	};
	struct sockaddr_storage l, d;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		ew_test_sockaddr(&l, cases[i].lfam, cases[i].laddr);
		ew_test_sockaddr(&d, cases[i].dfam, cases[i].daddr);
		KUNIT_EXPECT_EQ_MSG(test,
				    ew_cm_listen_addr_takes((struct sockaddr *)&l,
							    cases[i].afonly,
							    (struct sockaddr *)&d),
				    cases[i].takes, "case %u", i);
	}
}

/* ---- path protection against an encrypt requirement ------------------ */

#define PROT_M	EASTWEST_PROTECTION_MACSEC
#define PROT_I	EASTWEST_PROTECTION_IPSEC
#define PROT_P	EASTWEST_PROTECTION_PHYSICAL

/* Every requirement against every combination of protections. */
static void ew_test_encrypt_satisfied(struct kunit *test)
{
	u32 prot;

	for (prot = 0; prot <= (PROT_M | PROT_I | PROT_P); prot++) {
		KUNIT_EXPECT_TRUE(test, ew_encrypt_satisfied(EASTWEST_ENCRYPT_NONE, prot));
		KUNIT_EXPECT_EQ(test, ew_encrypt_satisfied(EASTWEST_ENCRYPT_ANY, prot),
				prot != 0);
		KUNIT_EXPECT_EQ(test, ew_encrypt_satisfied(EASTWEST_ENCRYPT_MACSEC, prot),
				!!(prot & PROT_M));
		KUNIT_EXPECT_EQ(test, ew_encrypt_satisfied(EASTWEST_ENCRYPT_IPSEC, prot),
				!!(prot & PROT_I));
		/* A requirement this module does not know is never met. */
		KUNIT_EXPECT_FALSE(test, ew_encrypt_satisfied(EASTWEST_ENCRYPT_IPSEC + 1,
							      prot));
	}
}

#define PATH_PROT(gid, prot) { .has_grh = true, .dgid = gid, .has_src = true, \
	.src = { .ifindex = 3 }, .has_protection = true, .protection = prot }

static void ew_test_encrypt_decide(struct kunit *test)
{
	static const struct {
		u32 encrypt;
		struct ew_path path;
		u32 reason;
	} cases[] = {
		{ EASTWEST_ENCRYPT_MACSEC, PATH_PROT(V4(192, 0, 2, 9), PROT_M), 0 },
		{ EASTWEST_ENCRYPT_MACSEC, PATH_PROT(V4(192, 0, 2, 9), PROT_I),
		  EASTWEST_REASON_UNPROTECTED_PATH },
		{ EASTWEST_ENCRYPT_IPSEC, PATH_PROT(V4(192, 0, 2, 9), PROT_I), 0 },
		{ EASTWEST_ENCRYPT_ANY, PATH_PROT(V4(192, 0, 2, 9), PROT_P), 0 },
		{ EASTWEST_ENCRYPT_ANY, PATH_PROT(V4(192, 0, 2, 9), 0),
		  EASTWEST_REASON_UNPROTECTED_PATH },
		/* Not evaluated counts as unprotected. */
		{ EASTWEST_ENCRYPT_ANY, PATH_GID(V4(192, 0, 2, 9), 3, 0),
		  EASTWEST_REASON_UNPROTECTED_PATH },
		{ EASTWEST_ENCRYPT_NONE, PATH_GID(V4(192, 0, 2, 9), 3, 0), 0 },
		/* The peer rule is checked first: a stranger is a peer denial. */
		{ EASTWEST_ENCRYPT_MACSEC, PATH_PROT(V4(10, 0, 0, 1), PROT_M),
		  EASTWEST_REASON_PEER },
	};
	struct ew_job *job = ew_test_job_create(test, EASTWEST_MODE_ENFORCE);
	struct ew_job_spec spec;
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct ew_request req = { .op = EASTWEST_OP_MODIFY_QP,
					  .n_paths = 1, .has_av = true };

		ew_job_spec_init(&spec);
		spec.has_encrypt = true;
		spec.encrypt = cases[i].encrypt;
		mutex_lock(&ew_config_lock);
		ret = ew_job_change(job, &spec, NULL);
		mutex_unlock(&ew_config_lock);
		ew_job_spec_release(&spec);
		KUNIT_ASSERT_EQ(test, ret, 0);

		req.paths[0] = cases[i].path;
		rcu_read_lock();
		KUNIT_EXPECT_EQ_MSG(test, ew_policy_check(job, ew_job_policy(job), &req),
				    cases[i].reason, "case %u", i);
		rcu_read_unlock();
	}
	ew_test_job_delete(job);
}

/* ---- node admission ------------------------------------------------------ */

static void ew_test_admission_gate(struct kunit *test)
{
	static const struct {
		u32 mode, admission;
		bool required;
		u32 reason;
		bool deny;
	} cases[] = {
		{ EASTWEST_MODE_ENFORCE, EASTWEST_ADMISSION_UNATTESTED, false, 0, false },
		{ EASTWEST_MODE_ENFORCE, EASTWEST_ADMISSION_UNATTESTED, true,
		  EASTWEST_REASON_NOT_ADMITTED, true },
		{ EASTWEST_MODE_ENFORCE, EASTWEST_ADMISSION_ADMITTED, true, 0, false },
		{ EASTWEST_MODE_ENFORCE, EASTWEST_ADMISSION_REVOKED, true,
		  EASTWEST_REASON_NOT_ADMITTED, true },
		{ EASTWEST_MODE_ENFORCE, EASTWEST_ADMISSION_REVOKED, false, 0, false },
		/* Audit reports the closed gate but lets the job through. */
		{ EASTWEST_MODE_AUDIT, EASTWEST_ADMISSION_REVOKED, true,
		  EASTWEST_REASON_NOT_ADMITTED, false },
	};
	struct ew_request req = MODIFY(.n_paths = 1,
		.paths = { PATH_GID(V4(192, 0, 2, 1), 3, 0) });
	struct ew_job *job = ew_test_job_create(test, EASTWEST_MODE_ENFORCE);
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct ew_global g = {
			.mode = cases[i].mode,
			.default_action = EASTWEST_DEFAULT_ACTION_DENY,
			.admission = cases[i].admission,
			.admission_required = cases[i].required,
		};
		struct ew_verdict v;

		rcu_read_lock();
		v = ew_decide(&g, job, ew_job_policy(job), &req);
		rcu_read_unlock();
		KUNIT_EXPECT_EQ_MSG(test, v.reason, cases[i].reason, "case %u", i);
		KUNIT_EXPECT_EQ_MSG(test, v.deny, cases[i].deny, "case %u", i);
	}
	ew_test_job_delete(job);
}

static void ew_test_revoked_nodes(struct kunit *test)
{
	static const u8 revoke[][16] = {
		V4(192, 0, 2, 77), V4(192, 0, 2, 5), V4(192, 0, 2, 77),
		G(0x20, 0x01, 0x0d, 0xb8, [15] = 7),
	};
	static const u8 lift[][16] = { V4(192, 0, 2, 77), V4(10, 1, 1, 1) };
	struct ew_request req = MODIFY(.n_paths = 1,
		.paths = { PATH_GID(V4(192, 0, 2, 77), 3, 0) });
	struct ew_job *job = ew_test_job_create(test, EASTWEST_MODE_ENFORCE);
	int ret;

	mutex_lock(&ew_config_lock);
	ret = ew_nodes_change(revoke[0], ARRAY_SIZE(revoke), true, NULL);
	mutex_unlock(&ew_config_lock);
	KUNIT_ASSERT_EQ(test, ret, 0);

	rcu_read_lock();
	KUNIT_EXPECT_TRUE(test, ew_node_revoked(revoke[0]));
	KUNIT_EXPECT_TRUE(test, ew_node_revoked(revoke[1]));
	KUNIT_EXPECT_TRUE(test, ew_node_revoked(revoke[3]));
	KUNIT_EXPECT_FALSE(test, ew_node_revoked(lift[1]));
	/* Inside the job's 192.0.2.0/24 peer, yet refused. */
	KUNIT_EXPECT_EQ(test, ew_policy_check(job, ew_job_policy(job), &req),
			(u32)EASTWEST_REASON_NOT_ADMITTED);
	rcu_read_unlock();

	/* Lifting also skips an address that was never revoked. */
	mutex_lock(&ew_config_lock);
	ret = ew_nodes_change(lift[0], ARRAY_SIZE(lift), false, NULL);
	mutex_unlock(&ew_config_lock);
	KUNIT_ASSERT_EQ(test, ret, 0);
	rcu_read_lock();
	KUNIT_EXPECT_FALSE(test, ew_node_revoked(revoke[0]));
	KUNIT_EXPECT_TRUE(test, ew_node_revoked(revoke[1]));
	KUNIT_EXPECT_EQ(test, ew_policy_check(job, ew_job_policy(job), &req), 0u);
	rcu_read_unlock();

	mutex_lock(&ew_config_lock);
	ret = ew_nodes_change(revoke[0], ARRAY_SIZE(revoke), false, NULL);
	mutex_unlock(&ew_config_lock);
	KUNIT_EXPECT_EQ(test, ret, 0);
	rcu_read_lock();
	KUNIT_EXPECT_FALSE(test, ew_node_revoked(revoke[1]));
	KUNIT_EXPECT_FALSE(test, ew_node_revoked(revoke[3]));
	rcu_read_unlock();
	ew_test_job_delete(job);
}

/*
 * Keyed PSNs: both ends of a connection compute the same PSN for each
 * direction alone, and the values are SipHash-2-4's (a reference
 * implementation in Python gave them for key 00..0f: a node running
 * another build must agree).
 */
static void ew_test_keyed_psn(struct kunit *test)
{
	siphash_key_t key = { { 0x0706050403020100ULL, 0x0f0e0d0c0b0a0908ULL } };
	siphash_key_t other = key;
	u8 a[16] = { [10] = 0xff, [11] = 0xff, 192, 0, 2, 1 };
	u8 b[16] = { [10] = 0xff, [11] = 0xff, 192, 0, 2, 2 };
	u32 a_to_b = ew_keyed_psn(&key, a, 0x11, b, 0x12);
	u32 b_to_a = ew_keyed_psn(&key, b, 0x12, a, 0x11);

	KUNIT_EXPECT_EQ(test, a_to_b, 0x4c3db5);
	KUNIT_EXPECT_EQ(test, b_to_a, 0xced5f5);
	/* Each value and each key changes it; PSNs are 24 bits. */
	KUNIT_EXPECT_NE(test, ew_keyed_psn(&key, a, 0x13, b, 0x12), a_to_b);
	KUNIT_EXPECT_NE(test, ew_keyed_psn(&key, a, 0x11, b, 0x13), a_to_b);
	KUNIT_EXPECT_NE(test, ew_keyed_psn(&key, b, 0x11, b, 0x12), a_to_b);
	other.key[1] ^= 1;
	KUNIT_EXPECT_NE(test, ew_keyed_psn(&other, a, 0x11, b, 0x12), a_to_b);
	KUNIT_EXPECT_EQ(test, a_to_b & ~0xffffffU, 0U);
	/* The key's check value (selftests/tools/ew_kdf.py psn-key-check). */
	KUNIT_EXPECT_EQ(test, ew_psn_key_check(&key), 0xfb1e38ecU);
	KUNIT_EXPECT_NE(test, ew_psn_key_check(&other), 0xfb1e38ecU);
}

/* The keyed PSN as siphash() of its 40 bytes, as first written. */
static u32 ew_test_psn_ref(const siphash_key_t *key, const u8 *from_gid,
			   u32 from_qpn, const u8 *to_gid, u32 to_qpn)
{
	struct {
		u8 from_gid[16];
		u8 to_gid[16];
		__be32 from_qpn;
		__be32 to_qpn;
	} __aligned(SIPHASH_ALIGNMENT) in;

	memcpy(in.from_gid, from_gid, sizeof(in.from_gid));
	memcpy(in.to_gid, to_gid, sizeof(in.to_gid));
	in.from_qpn = cpu_to_be32(from_qpn);
	in.to_qpn = cpu_to_be32(to_qpn);
	return siphash(&in, sizeof(in), key) & 0xffffff;
}

/*
 * ew_keyed_psn() is siphash() written out for 40 bytes: the same PSN for
 * random keys and ends, GIDs at every alignment, and the edge QPNs.
 */
static void ew_test_keyed_psn_is_siphash(struct kunit *test)
{
	static const u32 qpns[] = { 0, 1, 0x11, 0xffffff, 0x1000000,
				    0x80000000, 0xffffffff };
	u8 buf[2 * 16 + 8];
	siphash_key_t key;
	unsigned int i, j;

	for (i = 0; i < 2000; i++) {
		unsigned int off = i % 8;
		const u8 *from = buf + off, *to = buf + off + 16;
		u32 qa, qb;

		get_random_bytes(&key, sizeof(key));
		get_random_bytes(buf, sizeof(buf));
		qa = i < 64 ? qpns[i % ARRAY_SIZE(qpns)] : get_random_u32();
		qb = i < 64 ? qpns[i / ARRAY_SIZE(qpns) % ARRAY_SIZE(qpns)] :
			      get_random_u32();
		KUNIT_ASSERT_EQ(test, ew_keyed_psn(&key, from, qa, to, qb),
				ew_test_psn_ref(&key, from, qa, to, qb));
	}
	/* All-zero and all-ones inputs and keys. */
	for (j = 0; j < 2; j++) {
		memset(&key, j ? 0xff : 0, sizeof(key));
		memset(buf, j ? 0xff : 0, sizeof(buf));
		KUNIT_EXPECT_EQ(test,
				ew_keyed_psn(&key, buf, j ? ~0U : 0, buf + 16,
					     j ? ~0U : 0),
				ew_test_psn_ref(&key, buf, j ? ~0U : 0, buf + 16,
						j ? ~0U : 0));
	}
}

/* Job names: the tools' grammar, nothing they could not name again. */
static void ew_test_job_name_grammar(struct kunit *test)
{
	static const char * const good[] = {
		"a", "slurm-4242", "oci-3f4e5d6c7b8a", "job_42.step-1:x@y+z=w", "ID",
	};
	static const char * const bad[] = {
		"", "a b", "a\nb", "-x", "id", "a/b", "tab\tx", "\xc3\xa9",
		"caf\xe9", "\xc0\xc9",	/* Latin-1 letters to the kernel's isalnum() */
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(good); i++)
		KUNIT_EXPECT_NULL_MSG(test, ew_job_name_check(good[i]), "%s", good[i]);
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		KUNIT_EXPECT_NOT_NULL_MSG(test, ew_job_name_check(bad[i]), "%s", bad[i]);
}

static struct kunit_case ew_policy_cases[] = {
	KUNIT_CASE_PARAM(ew_test_pkey, ew_pkey_gen_params),
	KUNIT_CASE_PARAM(ew_test_src, ew_src_gen_params),
	KUNIT_CASE_PARAM(ew_test_decide, ew_decide_gen_params),
	KUNIT_CASE(ew_test_lid_peer),
	KUNIT_CASE(ew_test_job_audit_mode),
	KUNIT_CASE(ew_test_default_action),
	KUNIT_CASE(ew_test_peer_del_atomic),
	KUNIT_CASE(ew_test_peer_add_idempotent),
	KUNIT_CASE(ew_test_peer_job_scoped),
	KUNIT_CASE(ew_test_peer_prefix_bits),
	KUNIT_CASE(ew_test_job_names_and_ids),
	KUNIT_CASE(ew_test_job_name_grammar),
	KUNIT_CASE(ew_test_peer_list_order),
	KUNIT_CASE(ew_test_job_rename_and_order),
	KUNIT_CASE(ew_test_job_change_swaps_policy),
	KUNIT_CASE(ew_test_cm_listen_addr),
	KUNIT_CASE(ew_test_encrypt_satisfied),
	KUNIT_CASE(ew_test_encrypt_decide),
	KUNIT_CASE(ew_test_keyed_psn),
	KUNIT_CASE(ew_test_keyed_psn_is_siphash),
	KUNIT_CASE(ew_test_admission_gate),
	KUNIT_CASE(ew_test_revoked_nodes),
	{}
};

static struct kunit_suite ew_policy_suite = {
	.name = "eastwest-policy",
	.suite_init = ew_suite_init,
	.suite_exit = ew_suite_exit,
	.test_cases = ew_policy_cases,
};

/* ---- decision microbenchmark ------------------------------------------ */

/*
 * ns per ew_decide() for a connect the job allows (a /128 hit among the
 * filler) and one it refuses (a miss: every prefix length of the job is
 * probed), with 1 to 1M peer entries of other jobs in the table. Prints
 * "ew-bench: peers N hit_ns X miss_ns Y" (median of 5 batches); it fails
 * only if a decision is wrong. bench/run reports the figures.
 */
#define EW_BENCH_ITERS	20000
#define EW_BENCH_BATCHES	5

static u64 ew_bench_batch(const struct ew_global *g, const struct ew_job *job,
			  const struct ew_request *req, u32 want, bool *wrong)
{
	struct ew_verdict v;
	u64 t0;
	int i;

	rcu_read_lock();
	t0 = ktime_get_ns();
	for (i = 0; i < EW_BENCH_ITERS; i++) {
		v = ew_decide(g, job, ew_job_policy(job), req);
		if (v.reason != want)
			*wrong = true;
	}
	t0 = ktime_get_ns() - t0;
	rcu_read_unlock();
	return t0 / EW_BENCH_ITERS;
}

static int ew_bench_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static u64 ew_bench_median(const struct ew_global *g, const struct ew_job *job,
			   const struct ew_request *req, u32 want, bool *wrong)
{
	u64 ns[EW_BENCH_BATCHES];
	int i;

	for (i = 0; i < EW_BENCH_BATCHES; i++)
		ns[i] = ew_bench_batch(g, job, req, want, wrong);
	sort(ns, EW_BENCH_BATCHES, sizeof(ns[0]), ew_bench_cmp, NULL);
	return ns[EW_BENCH_BATCHES / 2];
}

/* Fill the table up to @total entries with /128 peers of job @filler. */
static int ew_bench_fill(struct ew_job *filler, unsigned long *have,
			 unsigned long total)
{
	struct ew_peer_batch batch;
	unsigned int failed_at, i;
	u8 gid[16] = { 0x20, 0x01, 0x0d, 0xb8, 0x42 };
	int ret;

	while (*have < total) {
		batch.n = min_t(unsigned long, total - *have, 65536);
		batch.keys = kvmalloc_array(batch.n, sizeof(*batch.keys), GFP_KERNEL);
		if (!batch.keys)
			return -ENOMEM;
		for (i = 0; i < batch.n; i++) {
			put_unaligned_be32(*have + i, &gid[12]);
			ew_peer_key_gid(&batch.keys[i], filler->id, gid, 128);
		}
		mutex_lock(&ew_config_lock);
		ret = ew_peers_add(filler, &batch, &failed_at);
		mutex_unlock(&ew_config_lock);
		kvfree(batch.keys);
		if (ret)
			return ret;
		*have += batch.n;
	}
	return 0;
}

#define EW_BENCH_ROUNDS	3
#define EW_BENCH_SIZES	4

static u64 ew_bench_mid(u64 *v)
{
	sort(v, EW_BENCH_ROUNDS, sizeof(*v), ew_bench_cmp, NULL);
	return v[EW_BENCH_ROUNDS / 2];
}

static void ew_bench_decide(struct kunit *test)
{
	static const unsigned long sizes[EW_BENCH_SIZES] = { 0, 1000, 100000, 1000000 };
	struct ew_global g = { EASTWEST_MODE_ENFORCE, EASTWEST_DEFAULT_ACTION_DENY };
	struct ew_request hit = MODIFY(.n_paths = 1,
		.paths = { PATH_GID(V4(192, 0, 2, 77), 3, 0) });
	struct ew_request miss = MODIFY(.n_paths = 1,
		.paths = { PATH_GID(V4(192, 0, 3, 1), 3, 0) });
	struct ew_job *job = ew_test_job_create(test, EASTWEST_MODE_ENFORCE);
	u64 add[EW_BENCH_SIZES][EW_BENCH_ROUNDS] = {};
	u64 h[EW_BENCH_SIZES][EW_BENCH_ROUNDS] = {};
	u64 m[EW_BENCH_SIZES][EW_BENCH_ROUNDS] = {};
	unsigned int i, r, done = EW_BENCH_SIZES;
	struct ew_job_spec spec;
	struct ew_job *filler;
	unsigned long have;
	bool wrong = false;
	u32 id;
	int ret;

	/* Whole rounds (fill 1 -> 1M, then empty), median per size. */
	for (r = 0; r < EW_BENCH_ROUNDS; r++) {
		ew_test_spec_init_named(&spec, "kunit-filler");
		mutex_lock(&ew_config_lock);
		ret = ew_job_create(&spec, NULL, &id);
		filler = ret ? NULL : ew_job_find(id);
		mutex_unlock(&ew_config_lock);
		KUNIT_ASSERT_EQ(test, ret, 0);
		have = 0;
		for (i = 0; i < done; i++) {
			unsigned long before = have;
			u64 t0 = ktime_get_ns();

			ret = ew_bench_fill(filler, &have, sizes[i]);
			if (ret) {
				kunit_info(test, "ew-bench: peers %lu: cannot fill (%d)\n",
					   sizes[i], ret);
				done = i;
				break;
			}
			if (have > before)
				add[i][r] = (ktime_get_ns() - t0) / (have - before);
			h[i][r] = ew_bench_median(&g, job, &hit, 0, &wrong);
			m[i][r] = ew_bench_median(&g, job, &miss,
						  EASTWEST_REASON_PEER, &wrong);
		}
		mutex_lock(&ew_config_lock);
		ew_job_delete(filler);
		mutex_unlock(&ew_config_lock);
		/* Let the emptied table shrink before the next round times it. */
		msleep(500);
	}
	for (i = 0; i < done; i++) {
		if (i)
			kunit_info(test, "ew-bench: add %lu peers ns_per_peer %llu\n",
				   sizes[i] - sizes[i - 1], ew_bench_mid(add[i]));
		kunit_info(test, "ew-bench: peers %lu hit_ns %llu miss_ns %llu\n",
			   sizes[i] + job->n_peers, ew_bench_mid(h[i]),
			   ew_bench_mid(m[i]));
	}
	KUNIT_EXPECT_FALSE(test, wrong);
	ew_test_job_delete(job);
}

/* One 4096-peer job created and deleted: the kernel's share of P3. */
static void ew_bench_job4096(struct kunit *test)
{
	struct ew_peer_batch batch = { .n = 4096 };
	u8 gid[16] = { 0x20, 0x01, 0x0d, 0xb8, 0x43 };
	u64 ns[EW_BENCH_BATCHES], del[EW_BENCH_BATCHES], t0;
	struct ew_job_spec spec;
	unsigned int i, r;
	u32 id;
	int ret;

	batch.keys = kunit_kcalloc(test, batch.n, sizeof(*batch.keys), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, batch.keys);
	for (r = 0; r < EW_BENCH_BATCHES; r++) {
		for (i = 0; i < batch.n; i++) {
			put_unaligned_be32(i, &gid[12]);
			ew_peer_key_gid(&batch.keys[i], 0, gid, 128);
		}
		ew_test_spec_init_named(&spec, "kunit-4096");
		spec.peers = &batch;
		mutex_lock(&ew_config_lock);
		t0 = ktime_get_ns();
		ret = ew_job_create(&spec, NULL, &id);
		ns[r] = ktime_get_ns() - t0;
		KUNIT_ASSERT_EQ(test, ret, 0);
		KUNIT_EXPECT_EQ(test, ew_job_find(id)->n_peers, 4096u);
		t0 = ktime_get_ns();
		ew_job_delete(ew_job_find(id));
		del[r] = ktime_get_ns() - t0;
		mutex_unlock(&ew_config_lock);
		ew_job_spec_release(&spec);
	}
	sort(ns, EW_BENCH_BATCHES, sizeof(ns[0]), ew_bench_cmp, NULL);
	sort(del, EW_BENCH_BATCHES, sizeof(del[0]), ew_bench_cmp, NULL);
	kunit_info(test, "ew-bench: job4096 create_us %llu delete_us %llu\n",
		   ns[EW_BENCH_BATCHES / 2] / 1000, del[EW_BENCH_BATCHES / 2] / 1000);
}

static struct kunit_case ew_bench_cases[] = {
	KUNIT_CASE(ew_bench_decide),
	KUNIT_CASE(ew_bench_job4096),
	{}
};

static struct kunit_suite ew_bench_suite = {
	.name = "eastwest-bench",
	.suite_init = ew_suite_init,
	.suite_exit = ew_suite_exit,
	.test_cases = ew_bench_cases,
};

kunit_test_suites(&ew_policy_suite, &ew_bench_suite);

MODULE_LICENSE("GPL");
