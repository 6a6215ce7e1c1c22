// SPDX-License-Identifier: GPL-2.0
/*
 * Revoked nodes: GIDs of other nodes whose admission was withdrawn (a
 * failed attestation, reported by the orchestrator). No job may connect to
 * them, whatever its peers say: revocation must not depend on finding and
 * editing every job (a peer prefix can cover a revoked node).
 *
 * The set is small and changes rarely: a sorted array, replaced whole under
 * ew_config_lock and read under RCU with a binary search. Pure logic, no
 * RDMA calls (KUnit builds it).
 */

#include <linux/bsearch.h>
#include <linux/netlink.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <net/netlink.h>

#include "config.h"
#include "nodes.h"

struct ew_revoked_set {
	struct rcu_head rcu;
	unsigned int n;
	u8 addr[][16];
};

static struct ew_revoked_set __rcu *ew_revoked;

static int ew_addr_cmp(const void *a, const void *b)
{
	return memcmp(a, b, 16);
}

/**
 * ew_node_revoked() - is @gid the address of a revoked node?
 * @gid: 16 bytes, network order
 *
 * Context: RCU read side.
 */
bool ew_node_revoked(const u8 *gid)
{
	const struct ew_revoked_set *set = rcu_dereference(ew_revoked);

	return set && bsearch(gid, set->addr, set->n, 16, ew_addr_cmp);
}

static struct ew_revoked_set *ew_revoked_alloc(unsigned int n)
{
	struct ew_revoked_set *set;

	set = kvzalloc(struct_size(set, addr, n), GFP_KERNEL);
	if (set)
		set->n = n;
	return set;
}

static void ew_revoked_free_rcu(struct rcu_head *rcu)
{
	kvfree(container_of(rcu, struct ew_revoked_set, rcu));
}

/**
 * ew_nodes_change() - revoke addresses, or lift their revocation
 * @addrs: the addresses, @n times 16 bytes
 * @n: how many
 * @revoke: true to revoke, false to lift (addresses not revoked are skipped)
 * @extack: error reporting
 *
 * All or nothing: the new set is built aside and swapped in.
 * Context: holds ew_config_lock; sleeps.
 */
int ew_nodes_change(const u8 *addrs, unsigned int n, bool revoke,
		    struct netlink_ext_ack *extack)
{
	struct ew_revoked_set *old, *set;
	unsigned int i, j, have;

	lockdep_assert_held(&ew_config_lock);
	old = rcu_dereference_protected(ew_revoked,
					lockdep_is_held(&ew_config_lock));
	have = old ? old->n : 0;
	if (revoke && have + n > EW_NODES_REVOKED_MAX) {
		NL_SET_ERR_MSG_FMT_MOD(extack, "more than %u revoked addresses",
				       EW_NODES_REVOKED_MAX);
		return -ENOSPC;
	}

	set = ew_revoked_alloc(revoke ? have + n : have);
	if (!set)
		return -ENOMEM;
	if (have)
		memcpy(set->addr, old->addr, have * 16);
	if (revoke) {
		memcpy(set->addr[have], addrs, n * 16);
		sort(set->addr, have + n, 16, ew_addr_cmp, NULL);
		/* Drop duplicates (revoking twice is not an error). */
		for (i = 0, j = 0; i < have + n; i++)
			if (!j || memcmp(set->addr[j - 1], set->addr[i], 16))
				memmove(set->addr[j++], set->addr[i], 16);
		set->n = j;
	} else {
		for (i = 0; i < n; i++) {
			u8 *hit = bsearch(addrs + i * 16, set->addr, set->n, 16,
					  ew_addr_cmp);

			if (!hit)
				continue;
			memmove(hit, hit + 16,
				(u8 *)set->addr[set->n] - (hit + 16));
			set->n--;
		}
	}
	if (!set->n) {
		kvfree(set);
		set = NULL;
	}
	rcu_assign_pointer(ew_revoked, set);
	if (old)
		call_rcu(&old->rcu, ew_revoked_free_rcu);
	return 0;
}

/**
 * ew_nodes_put_revoked() - put every revoked address
 * @skb: message
 * @attrtype: attribute type of each address
 *
 * Context: takes the RCU read lock.
 */
int ew_nodes_put_revoked(struct sk_buff *skb, int attrtype)
{
	const struct ew_revoked_set *set;
	unsigned int i;
	int ret = 0;

	rcu_read_lock();
	set = rcu_dereference(ew_revoked);
	for (i = 0; set && i < set->n && !ret; i++)
		ret = nla_put(skb, attrtype, 16, set->addr[i]);
	rcu_read_unlock();
	return ret ? -EMSGSIZE : 0;
}

/**
 * ew_nodes_revoked_size() - room ew_nodes_put_revoked() needs in a message
 *
 * Context: the list only changes in node-set, which the genl mutex keeps
 * apart from the config-get that sizes its reply with this.
 */
size_t ew_nodes_revoked_size(void)
{
	const struct ew_revoked_set *set;
	size_t n;

	rcu_read_lock();
	set = rcu_dereference(ew_revoked);
	n = set ? set->n : 0;
	rcu_read_unlock();
	return n * nla_total_size(16);
}

/**
 * ew_nodes_exit() - free the set; no reader may remain
 */
void ew_nodes_exit(void)
{
	kvfree(rcu_dereference_protected(ew_revoked, 1));
	RCU_INIT_POINTER(ew_revoked, NULL);
}
