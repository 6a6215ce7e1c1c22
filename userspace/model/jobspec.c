// SPDX-License-Identifier: GPL-2.0
/*
 * Keyword parsing for "job add", "job set" and the peer lists of "peer add"
 * and "peer del". Everything is checked here, cgroups and interfaces
 * included, before anything is sent: a parse error returns EW_USAGE with
 * its one-line message printed.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ewctl.h"
#include "io/cgroup.h"
#include "io/keys.h"
#include "model/jobspec.h"
#include "model/parse.h"

#define HINT(obj) "(try \"" EW_PROG " " obj " help\")"

/**
 * ew_jobref_parse() - parse "NAME" or "id N" and consume it
 * @argc: remaining argument count
 * @argv: remaining arguments
 * @ref: the job reference
 *
 * Return: EW_OK or EW_USAGE.
 */
int ew_jobref_parse(int *argc, char ***argv, struct ew_jobref *ref)
{
	const char *why;

	memset(ref, 0, sizeof(*ref));
	if (*argc < 1) {
		ew_err("missing job (NAME or \"id N\")");
		return EW_USAGE;
	}
	if (!strcmp((*argv)[0], "id")) {
		if (*argc < 2) {
			ew_err("\"id\" needs a job id");
			return EW_USAGE;
		}
		if (ew_parse_u32((*argv)[1], 1, UINT32_MAX, &ref->id)) {
			ew_err("bad job id \"%s\" (1..4294967295)", (*argv)[1]);
			return EW_USAGE;
		}
		*argc -= 2;
		*argv += 2;
		return EW_OK;
	}
	if (ew_name_check((*argv)[0], &why)) {
		ew_err("bad job name \"%s\": %s", (*argv)[0], why);
		return EW_USAGE;
	}
	strcpy(ref->name, (*argv)[0]);
	*argc -= 1;
	*argv += 1;
	return EW_OK;
}

char *ew_jobref_str(const struct ew_jobref *ref, char *buf, size_t len)
{
	if (ref->id)
		snprintf(buf, len, "id %u", ref->id);
	else
		snprintf(buf, len, "%s", ref->name);
	return buf;
}

static int peer_arg(const char *s, struct ew_peers *peers)
{
	struct ew_peer_addr p;
	const char *why;

	if (ew_peer_parse(s, &p, &why)) {
		ew_err("bad address \"%s\"%s%s", s, why ? ": " : "", why ? why : "");
		return EW_USAGE;
	}
	ew_peers_add(peers, &p);
	return EW_OK;
}

static int lid_arg(const char *s, struct ew_peers *peers)
{
	struct ew_peer_addr p;
	const char *why;

	if (ew_lid_parse(s, &p, &why)) {
		ew_err("bad LID \"%s\"%s%s", s, why ? ": " : "", why ? why : "");
		return EW_USAGE;
	}
	ew_peers_add(peers, &p);
	return EW_OK;
}

static int netdev_arg(const char *kw, const char *s, uint32_t kind,
		      struct ew_job_desc *job)
{
	unsigned int ifindex;

	if (strlen(s) >= IF_NAMESIZE || !(ifindex = if_nametoindex(s))) {
		ew_err("%s \"%s\": no such network interface", kw, s);
		return EW_USAGE;
	}
	ew_job_add_netdev(job, kind, ifindex, s);
	return EW_OK;
}

/* Keywords that take one argument, and which attribute each sets. */
static const struct {
	const char *kw;
	uint32_t attr;
	bool add;	/* allowed in job add */
	bool set;	/* allowed in job set */
	bool list;	/* repeatable */
} keywords[] = {
	{ "id",		EW_JOB_ID,	true,	false,	false },
	{ "name",	EW_JOB_NAME,	false,	true,	false },
	{ "mode",	EW_JOB_MODE,	true,	true,	false },
	{ "encrypt",	EW_JOB_ENCRYPT,	true,	true,	false },
	{ "qkey",	EW_JOB_QKEY,	true,	true,	false },
	{ "cgroup",	EW_JOB_CGROUPS,	true,	true,	true },
	{ "peer",	EW_JOB_PEERS,	true,	true,	true },
	{ "lid",	EW_JOB_PEERS,	true,	true,	true },
	{ "netdev",	EW_JOB_NETDEVS,	true,	true,	true },
	{ "vlan",	EW_JOB_NETDEVS,	true,	true,	true },
	{ "vrf",	EW_JOB_NETDEVS,	true,	true,	true },
	{ "pkey",	EW_JOB_PKEYS,	true,	true,	true },
	{ "ud",		EW_JOB_UD,	true,	true,	false },
	{ "dc",		EW_JOB_DC,	true,	true,	false },
	{ "psn",	EW_JOB_PSN,	true,	true,	false },
	/* Both set the key: one or the other. */
	{ "psn-key",	EW_JOB_PSN_KEY,	true,	true,	false },
	{ "psn-keyfile", EW_JOB_PSN_KEY, true,	true,	false },
	/* Which run of the job psn-keyfile derives the key for. */
	{ "psn-run",	EW_JOB_PSN_RUN,	true,	true,	false },
};

/* "job set" clears these lists with "none" (use "/none" for such a cgroup). */
static bool clearable(const char *kw)
{
	return !strcmp(kw, "cgroup") || !strcmp(kw, "peer") ||
	       !strcmp(kw, "netdev") || !strcmp(kw, "pkey");
}

static int enum_arg(const char *kw, const struct ew_names *names,
		    const char *s, uint32_t *out)
{
	char list[128];

	if (ew_enum_parse(names, s, out)) {
		ew_err("%s \"%s\": expected %s", kw, s,
		       ew_enum_list(names, list, sizeof(list)));
		return EW_USAGE;
	}
	return EW_OK;
}

/**
 * ew_job_derive_psn_key() - the PSN key from the job's psn_keyfile and run
 * @job: a job with psn_keyfile and psn_run set; psn_key is set,
 *	psn_keyfile freed
 * @name: the job's name, the same on every node of the job
 * @why: what went wrong, on failure
 * @why_len: its size
 *
 * Every node of the job derives the same key alone (ew_kdf_psn()), and
 * another run of a job of the same name another key.
 * Return: 0 or a negative errno.
 */
int ew_job_derive_psn_key(struct ew_job_desc *job, const char *name, char *why,
			  size_t why_len)
{
	struct ew_secret s;
	int ret;

	if (!(job->present & EW_JOB_PSN_RUN)) {
		snprintf(why, why_len,
			 "no run of the job to derive the key for (a key of the name alone comes back with the name)");
		return -EINVAL;
	}
	ret = ew_secret_load(job->psn_keyfile, getuid(), &s, why, why_len);
	if (ret)
		return ret;
	ret = ew_kdf_psn(&s, name, job->psn_run, job->psn_key);
	ew_secret_free(&s);
	if (ret) {
		snprintf(why, why_len, "key derivation failed");
		return ret;
	}
	free(job->psn_keyfile);
	job->psn_keyfile = NULL;
	return 0;
}

/*
 * psn-key HEX32, or "-": the key from a line of standard input, out of
 * sight of /proc/PID/cmdline, which every local user can read.
 */
static int psn_key_arg(const char *val, struct ew_job_desc *job)
{
	char line[80];
	int ret;

	if (strcmp(val, "-")) {
		ret = ew_parse_hex(val, job->psn_key, sizeof(job->psn_key));
	} else if (ew_batch_stdin) {
		ew_err("psn-key -: standard input holds the batch's commands");
		return EW_USAGE;
	} else if (!fgets(line, sizeof(line), stdin)) {
		ew_err("psn-key -: no key on standard input");
		return EW_USAGE;
	} else {
		line[strcspn(line, "\r\n")] = '\0';
		ret = ew_parse_hex(line, job->psn_key, sizeof(job->psn_key));
		ew_wipe(line, sizeof(line));
	}
	if (ret) {
		ew_err("bad psn-key: expected %zu hex digits",
		       2 * sizeof(job->psn_key));
		return EW_USAGE;
	}
	return EW_OK;
}

/*
 * psn-keyfile FILE psn-run ID: derive with the job's name (after a rename:
 * the new) and its run; the run goes to the module with the key, which
 * reports it, so that a restore derives the same key again.
 */
static int psn_key_derive(struct ew_job_desc *job, bool set,
			  const struct ew_jobref *ref)
{
	const char *name;
	char why[160];

	if (!job->psn_keyfile) {
		ew_err("psn-run %s: a run is only for psn-keyfile, which derives the job's PSN key for it",
		       job->psn_run);
		return EW_USAGE;
	}
	if (!(job->present & EW_JOB_PSN_RUN)) {
		ew_err("psn-keyfile needs psn-run ID: which run of the job (the orchestrator's, the same on every node); a key of the name alone comes back with the name");
		return EW_USAGE;
	}
	name = (job->present & EW_JOB_NAME) ? job->name :
	       (set && ref->name[0]) ? ref->name : NULL;
	if (!name) {
		ew_err("psn-keyfile needs the job's name (job set NAME ...)");
		return EW_USAGE;
	}
	if (ew_job_derive_psn_key(job, name, why, sizeof(why))) {
		ew_err("psn-keyfile %s: %s", job->psn_keyfile, why);
		return EW_USAGE;
	}
	return EW_OK;
}

static int one_keyword(const char *kw, const char *val, struct ew_job_desc *job)
{
	char path[EASTWEST_CGROUP_PATH_MAX];
	const char *why;
	uint32_t v;
	int ret;

	if (!strcmp(kw, "id")) {
		if (ew_parse_u32(val, 1, UINT32_MAX, &job->id)) {
			ew_err("bad job id \"%s\" (1..4294967295)", val);
			return EW_USAGE;
		}
	} else if (!strcmp(kw, "name")) {
		if (ew_name_check(val, &why)) {
			ew_err("bad job name \"%s\": %s", val, why);
			return EW_USAGE;
		}
		strcpy(job->name, val);
	} else if (!strcmp(kw, "mode")) {
		return enum_arg(kw, &ew_mode_names, val, &job->mode);
	} else if (!strcmp(kw, "encrypt")) {
		return enum_arg(kw, &ew_encrypt_names, val, &job->encrypt);
	} else if (!strcmp(kw, "ud") || !strcmp(kw, "dc")) {
		ret = enum_arg(kw, &ew_on_off_names, val, &v);
		if (!ret)
			*(kw[0] == 'u' ? &job->ud : &job->dc) = v;
		return ret;
	} else if (!strcmp(kw, "psn")) {
		return enum_arg(kw, &ew_psn_names, val, &job->psn);
	} else if (!strcmp(kw, "psn-key")) {
		return psn_key_arg(val, job);
	} else if (!strcmp(kw, "psn-keyfile")) {
		job->psn_keyfile = ew_strdup(val);
	} else if (!strcmp(kw, "psn-run")) {
		if (!ew_run_ok(val)) {
			ew_err("bad psn-run \"%s\": 1..%d of 0-9 A-Z a-z . _ : -",
			       val, EW_RUN_MAX);
			return EW_USAGE;
		}
		strcpy(job->psn_run, val);
	} else if (!strcmp(kw, "qkey")) {
		if (!strcmp(val, "auto")) {
			job->qkey = ew_random_qkey();
		} else if (ew_parse_qkey(val, &job->qkey, &why)) {
			ew_err("bad qkey \"%s\": %s", val, why);
			return EW_USAGE;
		}
	} else if (!strcmp(kw, "cgroup")) {
		ret = ew_cgroup_resolve(val, path, sizeof(path), &why);
		if (ret) {
			ew_err("cgroup \"%s\": %s", val, why);
			return EW_USAGE;
		}
		ew_job_add_cgroup(job, path, 0);
	} else if (!strcmp(kw, "peer")) {
		return peer_arg(val, &job->peers);
	} else if (!strcmp(kw, "lid")) {
		return lid_arg(val, &job->peers);
	} else if (!strcmp(kw, "netdev")) {
		return netdev_arg(kw, val, EW_NETDEV_IFINDEX, job);
	} else if (!strcmp(kw, "vrf")) {
		return netdev_arg(kw, val, EW_NETDEV_VRF, job);
	} else if (!strcmp(kw, "vlan")) {
		if (ew_parse_u32(val, EW_VLAN_MIN, EW_VLAN_MAX, &v)) {
			ew_err("bad vlan \"%s\" (1..4094)", val);
			return EW_USAGE;
		}
		ew_job_add_netdev(job, EW_NETDEV_VLAN, v, NULL);
	} else if (!strcmp(kw, "pkey")) {
		uint16_t pkey;

		if (ew_parse_pkey(val, &pkey, &why)) {
			ew_err("bad pkey \"%s\": %s", val, why);
			return EW_USAGE;
		}
		ew_job_add_pkey(job, pkey);
	}
	return EW_OK;
}

/**
 * ew_jobspec_parse() - parse the arguments of "job add" or "job set"
 * @argc: argument count, after "add" or "set"
 * @argv: the arguments: NAME (add) or NAME|id N (set), then keywords
 * @set: parse "job set" (else "job add")
 * @ref: for set: the job to change
 * @job: the attributes given; job->present says which (for set: which to
 *	replace; a list given as "none" is present and empty)
 *
 * Return: EW_OK, or EW_USAGE with the message printed.
 */
int ew_jobspec_parse(int argc, char *argv[], bool set, struct ew_jobref *ref,
		     struct ew_job_desc *job)
{
	uint32_t none = 0, given = 0;
	const char *why;
	size_t k;
	int ret;

	ew_job_init(job);
	if (set) {
		ret = ew_jobref_parse(&argc, &argv, ref);
		if (ret)
			return ret;
	} else {
		if (argc < 1) {
			ew_err("missing job name " HINT("job"));
			return EW_USAGE;
		}
		if (ew_name_check(argv[0], &why)) {
			ew_err("bad job name \"%s\": %s", argv[0], why);
			return EW_USAGE;
		}
		strcpy(job->name, argv[0]);
		job->present |= EW_JOB_NAME;
		argc--;
		argv++;
	}

	for (; argc > 0; argc -= 2, argv += 2) {
		for (k = 0; k < EW_ARRAY_SIZE(keywords); k++)
			if (!strcmp(argv[0], keywords[k].kw))
				break;
		if (k == EW_ARRAY_SIZE(keywords) ||
		    !(set ? keywords[k].set : keywords[k].add)) {
			ew_err("unknown keyword \"%s\" " HINT("job"), argv[0]);
			goto err;
		}
		if (argc < 2) {
			ew_err("\"%s\" needs an argument " HINT("job"), argv[0]);
			goto err;
		}
		if (!keywords[k].list && (given & keywords[k].attr)) {
			ew_err("\"%s\" is given twice", argv[0]);
			goto err;
		}
		if (set && clearable(argv[0]) && !strcmp(argv[1], "none")) {
			if (given & keywords[k].attr) {
				ew_err("\"%s none\" clears the list: add nothing else to it",
				       argv[0]);
				goto err;
			}
			none |= keywords[k].attr;
		} else {
			if (none & keywords[k].attr) {
				ew_err("a list cleared with \"none\" cannot get \"%s %s\"",
				       argv[0], argv[1]);
				goto err;
			}
			if (one_keyword(argv[0], argv[1], job))
				goto err;
		}
		given |= keywords[k].attr;
	}

	job->present |= given;
	if ((job->psn_keyfile || (job->present & EW_JOB_PSN_RUN)) &&
	    psn_key_derive(job, set, ref))
		goto err;
	if (set && !(given & ~EW_JOB_ID)) {
		ew_err("job set: nothing to change " HINT("job"));
		goto err;
	}
	ew_job_normalize(job);
	return EW_OK;
err:
	ew_job_free(job);
	return EW_USAGE;
}

/**
 * ew_peerlist_parse() - parse the peers of "peer add" or "peer del"
 * @argc: argument count
 * @argv: ADDR[/LEN], lid:N, "lid N" or "file FILE" ("-": standard input)
 * @peers: the peers, appended
 *
 * Return: EW_OK or EW_USAGE.
 */
int ew_peerlist_parse(int argc, char *argv[], struct ew_peers *peers)
{
	int ret;

	if (argc < 1) {
		ew_err("missing peer address " HINT("peer"));
		return EW_USAGE;
	}
	for (; argc > 0; argc--, argv++) {
		if (!strcmp(argv[0], "lid") || !strcmp(argv[0], "file")) {
			if (argc < 2) {
				ew_err("\"%s\" needs an argument " HINT("peer"), argv[0]);
				return EW_USAGE;
			}
			if (argv[0][0] == 'l')
				ret = lid_arg(argv[1], peers);
			else
				ret = ew_peerlist_read(argv[1], peers);
			argc--;
			argv++;
		} else {
			ret = peer_arg(argv[0], peers);
		}
		if (ret)
			return ret;
	}
	return EW_OK;
}

/* A peer file's size limit: 16 million IPv6 prefixes of the longest form. */
#define EW_PEERLIST_MAX (1024UL * 1024 * 1024)

/**
 * ew_peerlist_read() - read peers from a file
 * @file: the file, "-" for standard input
 * @peers: the peers, appended
 *
 * Peers are separated by white space; '#' starts a comment to the end of
 * the line. The file is read whole and split in place: a million-peer file
 * costs one pass, not a library call per line and per token.
 *
 * Return: EW_OK or EW_USAGE.
 */
int ew_peerlist_read(const char *file, struct ew_peers *peers)
{
	unsigned long lineno = 1;
	char *text, *c, *end;
	int ret = EW_OK;
	size_t len;

	ret = ew_read_file(file, EW_PEERLIST_MAX, &text, &len);
	if (ret)
		return ret;
	if (memchr(text, '\0', len)) {
		ew_err("%s: a NUL byte: not a text file", file);
		free(text);
		return EW_USAGE;
	}
	/* Room for the terminator of the last token. */
	text = ew_reallocarray(text, len + 1, 1);
	text[len] = '\0';
	for (c = text, end = text + len; !ret && c < end;) {
		struct ew_peer_addr p;
		const char *why;
		char *tok, delim;

		switch (*c) {
		case '\n':
			lineno++;
			/* fallthrough */
		case ' ':
		case '\t':
		case '\r':
			c++;
			continue;
		case '#':
			c = memchr(c, '\n', (size_t)(end - c));
			if (!c)
				c = end;
			continue;
		}
		/* The separators of the switch above (no strchr() per byte). */
		for (tok = c; c < end && *c != ' ' && *c != '\n' && *c != '\t' &&
			      *c != '\r' && *c != '#'; c++)
			;
		delim = *c;
		*c = '\0';
		if (ew_peer_parse(tok, &p, &why)) {
			ew_err("%s:%lu: bad address \"%s\"%s%s", file, lineno,
			       tok, why ? ": " : "", why ? why : "");
			ret = EW_USAGE;
		} else {
			ew_peers_add(peers, &p);
		}
		*c = delim;
	}
	free(text);
	return ret;
}
