// SPDX-License-Identifier: GPL-2.0
/*
 * ew_nlfuzz - structure-aware fuzzer of the eastwest generic netlink family.
 *
 *   ew_nlfuzz [-s SEED] [-n MESSAGES] [-c CGROUP]... [-j JOB]... [-d DEV]...
 *             [--unpriv] [--check-every N] [--timeout-ms MS] [-v]
 *   ew_nlfuzz -s SEED [...same pools...] --show INDEX
 *   ew_nlfuzz --print-model
 *
 * Sends MESSAGES requests (gen.c: every command, attributes of every policy
 * at plausible, boundary and wrong lengths, types and values, nested
 * garbage, truncations, oversized messages, header and byte mutations) and
 * classifies each answer. Every message is derived from SEED and its index
 * alone, and the pools (-c, -j, -d) are fixed by the command line, so the
 * same command line replays the same run; --show prints one message.
 *
 * Checks: the kernel answers every request (a NOOP ack follows each one);
 * every --check-every messages config-get still answers with the version;
 * with --unpriv, no request of an admin-perm op that reaches the family is
 * ever accepted, and every one whose header passes the family's strict
 * header check is refused with EPERM (or EOPNOTSUPP where the do/dump
 * variant does not exist: the kernels differ in which comes first).
 * As root it also seeds jobs fz0..fz3 (ids 1001..1004) so that requests hit
 * real objects, and flushes the jobs it did not protect (-j) when more than
 * 48 jobs or 30000 peers pile up, then seeds again.
 *
 * Exit: 0 passed, 1 a check failed, 2 usage, 3 no family / socket.
 */
#include <errno.h>
#include <getopt.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <linux/eastwest.h>

#include "../genl.h"
#include "gen.h"
#include "model.h"
#include "wire.h"

#define NF_SEED_JOBS	4
#define NF_SEED_ID	1001
#define NF_VALVE_JOBS	48
#define NF_VALVE_PEERS	30000
#define NF_MAX_ERRNO	134

struct nf_opts {
	uint64_t seed;
	unsigned long messages;
	unsigned long check_every;
	int timeout_ms;
	bool unpriv, verbose, print_model;
	long show;
	const char *protect[NF_POOL_MAX];
	unsigned int n_protect;
};

struct nf_stats {
	unsigned long sent[256], accepted[256], refused[256], silent[256], core[256];
	unsigned long by_errno[256][NF_MAX_ERRNO + 1];
	unsigned long strat_sent[NF_S_COUNT], strat_accepted[NF_S_COUNT];
	unsigned long socket_refused, violations, checks, valves;
};

static struct nf_msg nf_msg;
static struct nf_stats nf_stats;

/* ---- small request builder for the fuzzer's own well-formed requests -- */

static struct nlmsghdr *req_start(char *buf, uint16_t family, uint8_t cmd,
				  uint16_t flags, uint32_t seq)
{
	struct nlmsghdr *nlh = genl_put_request(buf, family, flags, cmd,
						EASTWEST_FAMILY_VERSION);

	nlh->nlmsg_seq = seq;
	return nlh;
}

static uint32_t nf_ctl_seq = 0x80000000u;

/* Send a request of the fuzzer's own; -1 if the kernel did not answer. */
static int own_request(struct nf_sock *s, struct nlmsghdr *nlh,
		       struct nf_result *res, nf_data_cb cb, void *arg, int tmo)
{
	nlh->nlmsg_seq = nf_ctl_seq;
	nf_ctl_seq += 2;
	return nf_exchange(s, nlh, nlh->nlmsg_len, nlh->nlmsg_seq, res, cb, arg, tmo);
}

/* ---- liveness, seeding and the state valve ------------------------------ */

struct config_seen {
	bool version;
	uint32_t jobs, peers;
};

static int config_attr(const struct nlattr *a, void *data)
{
	struct config_seen *c = data;

	switch (mnl_attr_get_type(a)) {
	case EASTWEST_A_CONFIG_VERSION:
		c->version = mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0;
		break;
	case EASTWEST_A_CONFIG_JOB_COUNT:
		if (mnl_attr_validate(a, MNL_TYPE_U32) == 0)
			c->jobs = mnl_attr_get_u32(a);
		break;
	case EASTWEST_A_CONFIG_PEER_COUNT:
		if (mnl_attr_validate(a, MNL_TYPE_U32) == 0)
			c->peers = mnl_attr_get_u32(a);
		break;
	}
	return MNL_CB_OK;
}

static void config_cb(const struct nlmsghdr *nlh, void *arg)
{
	mnl_attr_parse(nlh, sizeof(struct genlmsghdr), config_attr, arg);
}

static int check_config(struct nf_sock *s, const struct nf_opts *o,
			struct config_seen *seen)
{
	char buf[256];
	struct nlmsghdr *nlh = req_start(buf, s->family, EASTWEST_CMD_CONFIG_GET, 0, 0);
	struct nf_result res;

	memset(seen, 0, sizeof(*seen));
	if (own_request(s, nlh, &res, config_cb, seen, o->timeout_ms))
		return -1;
	if (res.error || res.n_data != 1 || !seen->version) {
		fprintf(stderr, "ew_nlfuzz: config-get answered wrongly: error %d, "
			"%u replies, version %s\n", res.error, res.n_data,
			seen->version ? "present" : "missing");
		return -1;
	}
	nf_stats.checks++;
	return 0;
}

static void seed_jobs(struct nf_sock *s, const struct nf_opts *o,
		      const struct nf_pools *p)
{
	static const uint8_t host[16] = { [10] = 0xff, [11] = 0xff, 127, 0, 0, 1 };
	static const uint8_t net[16] = { 0x20, 0x01, 0x0d, 0xb8 };
	char buf[1024];
	unsigned int k;

	for (k = 0; k < NF_SEED_JOBS; k++) {
		struct nlmsghdr *nlh = req_start(buf, s->family, EASTWEST_CMD_JOB_NEW, 0, 0);
		struct nf_result res;
		struct nlattr *nest;

		mnl_attr_put_u32(nlh, EASTWEST_A_JOB_ID, NF_SEED_ID + k);
		mnl_attr_put_strz(nlh, EASTWEST_A_JOB_NAME, p->job_names[k]);
		mnl_attr_put_u32(nlh, EASTWEST_A_JOB_QKEY, 0x1000 + k);
		if (k < p->n_cgroups) {
			nest = mnl_attr_nest_start(nlh, EASTWEST_A_JOB_CGROUP);
			mnl_attr_put_strz(nlh, EASTWEST_A_CGROUP_PATH, p->cgroups[k]);
			mnl_attr_nest_end(nlh, nest);
		}
		nest = mnl_attr_nest_start(nlh, EASTWEST_A_JOB_PEER);
		mnl_attr_put(nlh, EASTWEST_A_PEER_ADDR, 16, host);
		mnl_attr_nest_end(nlh, nest);
		nest = mnl_attr_nest_start(nlh, EASTWEST_A_JOB_PEER);
		mnl_attr_put(nlh, EASTWEST_A_PEER_ADDR, 16, net);
		mnl_attr_put_u8(nlh, EASTWEST_A_PEER_PREFIX_LEN, 64);
		mnl_attr_nest_end(nlh, nest);
		nest = mnl_attr_nest_start(nlh, EASTWEST_A_JOB_PEER);
		mnl_attr_put_u16(nlh, EASTWEST_A_PEER_LID, (uint16_t)(7 + k));
		mnl_attr_nest_end(nlh, nest);
		nest = mnl_attr_nest_start(nlh, EASTWEST_A_JOB_NETDEV);
		mnl_attr_put_u16(nlh, EASTWEST_A_NETDEV_VLAN, (uint16_t)(100 + k));
		mnl_attr_nest_end(nlh, nest);
		mnl_attr_put_u16(nlh, EASTWEST_A_JOB_PKEY, 0xffff);
		if (own_request(s, nlh, &res, NULL, NULL, o->timeout_ms) == 0 &&
		    res.error && res.error != EEXIST && o->verbose)
			fprintf(stderr, "ew_nlfuzz: seeding %s: %s (%s)\n",
				p->job_names[k], strerror(res.error), res.extack);
	}
}

struct job_list {
	uint32_t ids[4096];
	char names[4096][NF_NAME_MAX];
	unsigned int n;
};

static int job_attr(const struct nlattr *a, void *data)
{
	struct job_list *l = data;

	if (l->n >= 4096)
		return MNL_CB_OK;
	if (mnl_attr_get_type(a) == EASTWEST_A_JOB_ID &&
	    mnl_attr_validate(a, MNL_TYPE_U32) == 0)
		l->ids[l->n] = mnl_attr_get_u32(a);
	if (mnl_attr_get_type(a) == EASTWEST_A_JOB_NAME &&
	    mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0)
		snprintf(l->names[l->n], NF_NAME_MAX, "%s", mnl_attr_get_str(a));
	return MNL_CB_OK;
}

static void job_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct job_list *l = arg;

	if (l->n >= 4096)
		return;
	l->ids[l->n] = 0;
	l->names[l->n][0] = 0;
	mnl_attr_parse(nlh, sizeof(struct genlmsghdr), job_attr, l);
	l->n++;
}

/* Delete every job but the protected ones, then seed again. */
static int valve(struct nf_sock *s, const struct nf_opts *o, const struct nf_pools *p)
{
	static struct job_list jobs;
	char buf[256];
	struct nlmsghdr *nlh = req_start(buf, s->family, EASTWEST_CMD_JOB_GET, NLM_F_DUMP, 0);
	struct nf_result res;
	unsigned int i, k;

	jobs.n = 0;
	if (own_request(s, nlh, &res, job_cb, &jobs, o->timeout_ms))
		return -1;
	for (i = 0; i < jobs.n; i++) {
		bool keep = false;

		for (k = 0; k < o->n_protect; k++)
			keep |= !strcmp(jobs.names[i], o->protect[k]);
		if (keep || !jobs.ids[i])
			continue;
		nlh = req_start(buf, s->family, EASTWEST_CMD_JOB_DEL, 0, 0);
		mnl_attr_put_u32(nlh, EASTWEST_A_JOB_ID, jobs.ids[i]);
		if (own_request(s, nlh, &res, NULL, NULL, o->timeout_ms))
			return -1;
	}
	seed_jobs(s, o, p);
	nf_stats.valves++;
	return 0;
}

/* ---- one fuzz message ---------------------------------------------------- */

static const char *errname(int e)
{
	static char buf[16];

	switch (e) {
	case 0: return "0";
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case ENOMEM: return "ENOMEM";
	case EEXIST: return "EEXIST";
	case ENODEV: return "ENODEV";
	case EINVAL: return "EINVAL";
	case ERANGE: return "ERANGE";
	case E2BIG: return "E2BIG";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EMSGSIZE: return "EMSGSIZE";
	case EBUSY: return "EBUSY";
	case EACCES: return "EACCES";
	case ENOBUFS: return "ENOBUFS";
	default:
		snprintf(buf, sizeof(buf), "errno%d", e);
		return buf;
	}
}

static void hexdump(const uint8_t *b, size_t len, FILE *f)
{
	size_t i;

	for (i = 0; i < len; i++)
		fprintf(f, "%s%02x", i % 32 ? (i % 4 ? "" : " ") : (i ? "\n# " : "# "), b[i]);
	fprintf(f, "\n");
}

/* The header as the kernel will read it, for the unprivileged check. */
struct nf_hdr_view {
	bool reaches_family;	/* a frame generic netlink hands to the family */
	bool header_ok;		/* and one genl_header_check() lets through */
	bool dump;
	uint8_t cmd;
};

static struct nf_hdr_view view_header(const struct nf_msg *m, uint16_t family)
{
	struct nf_hdr_view v = { 0 };
	struct nlmsghdr nlh;
	struct genlmsghdr g;
	uint16_t flags;

	if (m->len < NLMSG_HDRLEN + GENL_HDRLEN)
		return v;
	memcpy(&nlh, m->buf, sizeof(nlh));
	memcpy(&g, m->buf + NLMSG_HDRLEN, sizeof(g));
	v.cmd = g.cmd;
	v.dump = (nlh.nlmsg_flags & NLM_F_DUMP) == NLM_F_DUMP;
	v.reaches_family = nlh.nlmsg_type == family &&
			   (nlh.nlmsg_flags & NLM_F_REQUEST) &&
			   nlh.nlmsg_len >= NLMSG_HDRLEN + GENL_HDRLEN &&
			   nlh.nlmsg_len <= m->len;
	/*
	 * The family validates headers strictly (resv_start_op): the reserved
	 * field must be 0 and the flags only REQUEST, ACK, ECHO and the two
	 * bits of DUMP together. Such errors come before the permission check.
	 */
	flags = nlh.nlmsg_flags;
	if (v.dump)
		flags &= ~NLM_F_DUMP;
	v.header_ok = v.reaches_family && !g.reserved &&
		      !(flags & ~(NLM_F_REQUEST | NLM_F_ACK | NLM_F_ECHO));
	return v;
}

/* With --unpriv: "" if the answer is right, else what is wrong. */
static const char *unpriv_violation(const struct nf_hdr_view *v, bool accepted,
				    const struct nf_result *res)
{
	const struct nf_op *op = nf_op_by_cmd(v->cmd);
	bool variant;

	/* Frames that never reach the family (control types, no
	 * NLM_F_REQUEST, truncated) are the netlink core's business. */
	if (!op || !op->admin || !v->reaches_family)
		return "";
	if (accepted)
		return "an admin-perm request was accepted without CAP_NET_ADMIN";
	if (!v->header_ok || res->send_errno || !res->has_error)
		return "";
	variant = v->dump ? op->has_dump : op->has_do;
	if (res->error == EPERM || (!variant && res->error == EOPNOTSUPP))
		return "";
	return "a well-formed admin-perm request was not refused with EPERM";
}

static int fuzz_one(struct nf_sock *s, const struct nf_opts *o,
		    const struct nf_pools *p, unsigned long i)
{
	uint32_t seq = (uint32_t)(2 * i + 2);
	struct nf_rng r;
	struct nf_result res;
	struct nf_hdr_view v;
	bool accepted, refused;
	const char *bad = "";
	int e;

	nf_rng_init(&r, o->seed, i);
	nf_gen(&r, p, s->family, seq, &nf_msg);
	v = view_header(&nf_msg, s->family);
	if (nf_exchange(s, nf_msg.buf, nf_msg.len, seq, &res, NULL, NULL, o->timeout_ms)) {
		fprintf(stderr, "ew_nlfuzz: FAIL: message %lu (%s, cmd %u, %zu bytes) got no answer\n",
			i, nf_strategy_names[nf_msg.strategy], v.cmd, nf_msg.len);
		hexdump(nf_msg.buf, nf_msg.len < 512 ? nf_msg.len : 512, stderr);
		return -1;
	}
	refused = res.send_errno || (res.has_error && res.error) ||
		  (res.dump_done && res.error);
	accepted = !refused && (res.has_error || res.n_data || res.dump_done);
	e = res.send_errno ? res.send_errno : res.error;
	if (e < 0 || e > NF_MAX_ERRNO)
		e = NF_MAX_ERRNO;

	nf_stats.sent[v.cmd]++;
	nf_stats.strat_sent[nf_msg.strategy]++;
	if (res.send_errno)
		nf_stats.socket_refused++;
	if (!v.reaches_family && !res.send_errno) {
		/* Control types, no NLM_F_REQUEST, frames longer than the
		 * datagram: the netlink core acks or drops them. */
		nf_stats.core[v.cmd]++;
	} else if (accepted) {
		nf_stats.accepted[v.cmd]++;
		nf_stats.strat_accepted[nf_msg.strategy]++;
	} else if (refused) {
		nf_stats.refused[v.cmd]++;
		nf_stats.by_errno[v.cmd][e]++;
	} else {
		nf_stats.silent[v.cmd]++;
	}
	if (o->unpriv)
		bad = unpriv_violation(&v, accepted, &res);
	if (o->verbose || *bad)
		fprintf(*bad ? stderr : stdout,
			"# msg %lu %s cmd %u len %zu: %s%s%s%s%s\n", i,
			nf_strategy_names[nf_msg.strategy], v.cmd, nf_msg.len,
			accepted ? "accepted" : refused ? errname(e) : "no answer",
			res.extack[0] ? " (" : "", res.extack, res.extack[0] ? ")" : "",
			*bad ? " <- VIOLATION" : "");
	if (*bad) {
		fprintf(stderr, "ew_nlfuzz: VIOLATION at message %lu: %s\n", i, bad);
		hexdump(nf_msg.buf, nf_msg.len < 512 ? nf_msg.len : 512, stderr);
		nf_stats.violations++;
	}
	return 0;
}

/* ---- report ---------------------------------------------------------------- */

static void report(const struct nf_opts *o, unsigned long done, double secs)
{
	unsigned long acc = 0, ref = 0, sil = 0, core = 0;
	unsigned int c, e, s;

	printf("# %-14s %8s %9s %8s %7s %6s  refusals\n", "op", "sent", "accepted",
	       "refused", "silent", "core");
	for (c = 0; c < 256; c++) {
		const struct nf_op *op = nf_op_by_cmd((uint8_t)c);
		char name[24];
		int shown = 0;

		acc += nf_stats.accepted[c];
		ref += nf_stats.refused[c];
		sil += nf_stats.silent[c];
		core += nf_stats.core[c];
		if (!op)
			continue;
		snprintf(name, sizeof(name), "%s", op->name);
		printf("# %-14s %8lu %9lu %8lu %7lu %6lu ", name, nf_stats.sent[c],
		       nf_stats.accepted[c], nf_stats.refused[c], nf_stats.silent[c],
		       nf_stats.core[c]);
		for (e = 0; e <= NF_MAX_ERRNO && shown < 5; e++)
			if (nf_stats.by_errno[c][e]) {
				printf(" %s:%lu", errname((int)e), nf_stats.by_errno[c][e]);
				shown++;
			}
		printf("\n");
	}
	{
		unsigned long other = 0;

		for (c = 0; c < 256; c++)
			if (!nf_op_by_cmd((uint8_t)c))
				other += nf_stats.sent[c];
		printf("# %-14s %8lu (unknown commands)\n", "other", other);
	}
	printf("# strategy:");
	for (s = 0; s < NF_S_COUNT; s++)
		printf(" %s %lu/%lu", nf_strategy_names[s], nf_stats.strat_accepted[s],
		       nf_stats.strat_sent[s]);
	printf(" (accepted/sent)\n");
	printf("ew_nlfuzz: seed 0x%016llx, %s: %lu messages in %.1f s (%.0f/s): "
	       "%lu accepted, %lu refused (%lu by the socket), %lu unanswered, "
	       "%lu for the netlink core; "
	       "%lu liveness checks, %lu flushes, %lu violations\n",
	       (unsigned long long)o->seed, o->unpriv ? "unprivileged" : "privileged",
	       done, secs, secs > 0 ? done / secs : 0.0, acc, ref,
	       nf_stats.socket_refused, sil, core, nf_stats.checks, nf_stats.valves,
	       nf_stats.violations);
}

/* ---- main ------------------------------------------------------------------ */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ew_nlfuzz [-s SEED] [-n MESSAGES] [-c CGROUP]... [-j JOB]... [-d DEV]...\n"
		"                 [--unpriv] [--check-every N] [--timeout-ms MS] [-v]\n"
		"       ew_nlfuzz -s SEED [pools as above] --show INDEX\n"
		"       ew_nlfuzz --print-model\n");
}

static int parse_ulong(const char *s, unsigned long long *out)
{
	char *end;

	errno = 0;
	*out = strtoull(s, &end, 0);
	return errno || !*s || *end || *s == '-' ? -1 : 0;
}

static int parse_args(int argc, char **argv, struct nf_opts *o, struct nf_pools *p)
{
	static const struct option longopts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "messages", required_argument, NULL, 'n' },
		{ "cgroup", required_argument, NULL, 'c' },
		{ "job", required_argument, NULL, 'j' },
		{ "dev", required_argument, NULL, 'd' },
		{ "unpriv", no_argument, NULL, 'U' },
		{ "check-every", required_argument, NULL, 'C' },
		{ "timeout-ms", required_argument, NULL, 'T' },
		{ "show", required_argument, NULL, 'S' },
		{ "print-model", no_argument, NULL, 'M' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	unsigned long long v;
	struct timespec ts;
	bool seeded = false;
	unsigned int k;
	int c;

	memset(o, 0, sizeof(*o));
	o->messages = 1000;
	o->check_every = 1000;
	o->timeout_ms = 10000;
	o->show = -1;
	while ((c = getopt_long(argc, argv, "s:n:c:j:d:vh", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (parse_ulong(optarg, &v))
				goto bad;
			o->seed = v;
			seeded = true;
			break;
		case 'n':
		case 'C':
		case 'T':
		case 'S':
			if (parse_ulong(optarg, &v) || v > 0x7fffffffULL)
				goto bad;
			if (c == 'n')
				o->messages = v;
			else if (c == 'C')
				o->check_every = v ? v : 1;
			else if (c == 'T')
				o->timeout_ms = v ? (int)v : 1;
			else
				o->show = (long)v;
			break;
		case 'c':
			if (p->n_cgroups >= NF_POOL_MAX)
				goto bad;
			p->cgroups[p->n_cgroups++] = optarg;
			break;
		case 'j':
			if (o->n_protect >= NF_POOL_MAX / 2 || strlen(optarg) >= NF_NAME_MAX)
				goto bad;
			o->protect[o->n_protect++] = optarg;
			break;
		case 'd':
			if (p->n_dev_names >= NF_POOL_MAX || strlen(optarg) >= NF_NAME_MAX)
				goto bad;
			snprintf(p->dev_names[p->n_dev_names++], NF_NAME_MAX, "%s", optarg);
			break;
		case 'U':
			o->unpriv = true;
			break;
		case 'M':
			o->print_model = true;
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			goto bad;
		}
	}
	if (optind != argc)
		goto bad;
	if (!seeded) {
		clock_gettime(CLOCK_REALTIME, &ts);
		o->seed = ((uint64_t)ts.tv_sec << 20) ^ (uint64_t)ts.tv_nsec;
	}
	/* Fixed pools: fz0..fz7 (fz0..fz3 are seeded), the protected jobs,
	 * ids 1..4 (what the first jobs get) and the seeded ids, devices 0..3. */
	for (k = 0; k < 8; k++)
		snprintf(p->job_names[p->n_job_names++], NF_NAME_MAX, "fz%u", k);
	for (k = 0; k < o->n_protect; k++)
		snprintf(p->job_names[p->n_job_names++], NF_NAME_MAX, "%s", o->protect[k]);
	for (k = 0; k < 4; k++) {
		p->job_ids[p->n_job_ids++] = 1 + k;
		p->job_ids[p->n_job_ids++] = NF_SEED_ID + k;
		p->dev_index[p->n_dev_index++] = k;
	}
	if (!p->n_dev_names)
		snprintf(p->dev_names[p->n_dev_names++], NF_NAME_MAX, "rxe0");
	return 0;
bad:
	usage(stderr);
	return -1;
}

int main(int argc, char **argv)
{
	static struct nf_pools pools;
	struct config_seen seen;
	struct timespec t0, t1;
	struct nf_sock s;
	struct nf_opts o;
	unsigned long i;
	int rc = 0;

	if (parse_args(argc, argv, &o, &pools))
		return 2;
	if (o.print_model) {
		nf_print_model();
		return 0;
	}
	if (o.show >= 0) {
		struct nf_rng r;

		/* The family id is the kernel's: 0xffff stands for it here. */
		nf_rng_init(&r, o.seed, (uint64_t)o.show);
		nf_gen(&r, &pools, 0xffff, (uint32_t)(2 * o.show + 2), &nf_msg);
		printf("# message %ld of seed 0x%016llx: %s, %zu bytes\n", o.show,
		       (unsigned long long)o.seed, nf_strategy_names[nf_msg.strategy],
		       nf_msg.len);
		hexdump(nf_msg.buf, nf_msg.len, stdout);
		return 0;
	}

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (nf_open(&s))
		return 3;
	printf("ew_nlfuzz: seed 0x%016llx, %lu messages, %s, family id %u "
	       "(replay: same command line with -s 0x%016llx)\n",
	       (unsigned long long)o.seed, o.messages,
	       o.unpriv ? "unprivileged" : "privileged", s.family,
	       (unsigned long long)o.seed);
	if (!o.unpriv)
		seed_jobs(&s, &o, &pools);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < o.messages; i++) {
		if (fuzz_one(&s, &o, &pools, i)) {
			rc = 1;
			break;
		}
		if ((i + 1) % o.check_every == 0 || i + 1 == o.messages) {
			if (check_config(&s, &o, &seen)) {
				fprintf(stderr, "ew_nlfuzz: FAIL: liveness check after message %lu\n", i);
				rc = 1;
				i++;
				break;
			}
			if (!o.unpriv && (seen.jobs > NF_VALVE_JOBS || seen.peers > NF_VALVE_PEERS) &&
			    valve(&s, &o, &pools)) {
				rc = 1;
				i++;
				break;
			}
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	report(&o, i, (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	if (nf_stats.violations)
		rc = 1;
	nf_close(&s);
	return rc;
}
