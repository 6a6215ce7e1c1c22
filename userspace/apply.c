// SPDX-License-Identifier: GPL-2.0
/*
 * eastwestctl apply [--dry-run] -f FILE: make the node match a policy file.
 *
 * Everything that can be checked is checked before the first request: the
 * JSON, every value, cgroups and interfaces on this host. Then the current
 * state is read, diffed (diff.c) and the plan applied step by step; the
 * first refused step stops the run. The plan prints as eastwestctl commands
 * (a batch file doing the same), or as JSON with -j.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/eastwest.h>

#include "diff.h"
#include "ewctl.h"
#include "ipc.h"
#include "json_out.h"
#include "parse.h"
#include "policy_file.h"
#include "print.h"
#include "subcommands.h"

#define EW_POLICY_MAX (256 * 1024 * 1024)

void apply_usage(FILE *f)
{
	fprintf(f,
		"Usage: " EW_PROG " apply [--dry-run] -f FILE\n"
		"Makes the node match the policy FILE (\"-\": stdin): creates, changes and\n"
		"deletes jobs and peers. --dry-run (-n) prints the plan and changes nothing.\n");
}

static void print_lists(FILE *f, const struct ew_job_desc *job, uint32_t mask, bool set)
{
	char buf[EW_PEER_STRLEN + IF_NAMESIZE];
	size_t i;

	if (mask & EW_JOB_CGROUPS) {
		for (i = 0; i < job->n_cgroups; i++)
			fprintf(f, " cgroup %s", job->cgroups[i].path);
		if (set && !job->n_cgroups)
			fputs(" cgroup none", f);
	}
	if (mask & EW_JOB_NETDEVS) {
		for (i = 0; i < job->n_netdevs; i++)
			fprintf(f, " %s", ew_netdev_str(&job->netdevs[i], buf, sizeof(buf)));
		if (set && !job->n_netdevs)
			fputs(" netdev none", f);
	}
	if (mask & EW_JOB_PKEYS) {
		for (i = 0; i < job->n_pkeys; i++)
			fprintf(f, " pkey 0x%04x", job->pkeys[i]);
		if (set && !job->n_pkeys)
			fputs(" pkey none", f);
	}
}

static void print_scalars(FILE *f, const struct ew_job_desc *job, uint32_t mask)
{
	if (mask & EW_JOB_MODE)
		fprintf(f, " mode %s", ew_enum_name(&ew_mode_names, job->mode));
	if (mask & EW_JOB_ENCRYPT)
		fprintf(f, " encrypt %s", ew_enum_name(&ew_encrypt_names, job->encrypt));
	if (mask & EW_JOB_QKEY)
		fprintf(f, " qkey 0x%x", job->qkey);
	if (mask & EW_JOB_UD)
		fprintf(f, " ud %s", job->ud ? "on" : "off");
	if (mask & EW_JOB_DC)
		fprintf(f, " dc %s", job->dc ? "on" : "off");
	if (mask & EW_JOB_PSN)
		fprintf(f, " psn %s", ew_enum_name(&ew_psn_names, job->psn));
	/* A key is never printed. */
	if (mask & EW_JOB_PSN_KEY)
		fputs(" psn-key (secret)", f);
}

/* The step as an eastwestctl command line. */
static void print_step(FILE *f, const struct ew_step *s)
{
	char buf[EW_PEER_STRLEN];
	size_t i;

	switch (s->op) {
	case EW_STEP_JOB_DEL:
		fprintf(f, "job del id %u # %s", s->id, s->name);
		break;
	case EW_STEP_JOB_SET:
		fprintf(f, "job set id %u", s->id);
		if (s->mask & EW_JOB_NAME)
			fprintf(f, " name %s", s->job.name);
		print_scalars(f, &s->job, s->mask);
		print_lists(f, &s->job, s->mask, true);
		fprintf(f, " # %s", s->name);
		break;
	case EW_STEP_PEER_ADD:
	case EW_STEP_PEER_DEL:
		fprintf(f, "peer %s id %u", s->op == EW_STEP_PEER_ADD ? "add" : "del", s->id);
		for (i = 0; i < s->peers.n; i++)
			fprintf(f, " %s", ew_peer_format(&s->peers.v[i], buf, sizeof(buf)));
		fprintf(f, " # %s", s->name);
		break;
	case EW_STEP_JOB_NEW:
		fprintf(f, "job add %s", s->src->name);
		if (s->src->present & EW_JOB_ID)
			fprintf(f, " id %u", s->src->id);
		print_scalars(f, s->src, s->src->present);
		print_lists(f, s->src, s->src->present, false);
		for (i = 0; i < s->src->peers.n; i++)
			fprintf(f, " peer %s",
				ew_peer_format(&s->src->peers.v[i], buf, sizeof(buf)));
		break;
	case EW_STEP_CONFIG_SET:
		fputs("config set", f);
		if (s->mask & EW_CFG_MODE)
			fprintf(f, " mode %s", ew_enum_name(&ew_mode_names, s->config.mode));
		if (s->mask & EW_CFG_DEFAULT)
			fprintf(f, " default %s",
				ew_enum_name(&ew_default_action_names, s->config.default_action));
		break;
	}
	fputc('\n', f);
}

static struct json_object *json_step(const struct ew_step *s)
{
	static const char *const ops[] = {
		[EW_STEP_JOB_DEL] = "job-del",
		[EW_STEP_JOB_SET] = "job-set",
		[EW_STEP_PEER_ADD] = "peer-add",
		[EW_STEP_PEER_DEL] = "peer-del",
		[EW_STEP_JOB_NEW] = "job-add",
		[EW_STEP_CONFIG_SET] = "config-set",
	};
	struct json_object *o = json_object_new_object(), *v;
	size_t i;

	json_object_object_add(o, "op", json_object_new_string(ops[s->op]));
	if (s->op == EW_STEP_JOB_NEW) {
		json_object_object_add(o, "job", ew_json_job(s->src, EW_JSON_PEERS));
		return o;
	}
	if (s->op == EW_STEP_CONFIG_SET) {
		struct ew_config c = s->config;

		c.present = s->mask;
		json_object_object_add(o, "config", ew_json_config(&c));
		return o;
	}
	json_object_object_add(o, "id", json_object_new_int64(s->id));
	json_object_object_add(o, "name", json_object_new_string(s->name));
	if (s->op == EW_STEP_PEER_ADD || s->op == EW_STEP_PEER_DEL) {
		v = json_object_new_array_ext((int)s->peers.n);
		for (i = 0; i < s->peers.n; i++)
			json_object_array_add(v, ew_json_peer(&s->peers.v[i]));
		json_object_object_add(o, "peers", v);
	} else if (s->op == EW_STEP_JOB_SET) {
		struct json_object *full = ew_json_job(&s->job, 0), *set;
		static const struct {
			uint32_t bit;
			const char *key;
		} keys[] = {
			{ EW_JOB_NAME, "name" }, { EW_JOB_MODE, "mode" },
			{ EW_JOB_ENCRYPT, "encrypt" }, { EW_JOB_QKEY, "qkey" },
			{ EW_JOB_CGROUPS, "cgroups" }, { EW_JOB_NETDEVS, "netdevs" },
			{ EW_JOB_PKEYS, "pkeys" }, { EW_JOB_UD, "ud" },
			{ EW_JOB_DC, "dc" }, { EW_JOB_PSN, "psn" },
		};

		set = json_object_new_object();
		for (i = 0; i < EW_ARRAY_SIZE(keys); i++) {
			if (!(s->mask & keys[i].bit) ||
			    !json_object_object_get_ex(full, keys[i].key, &v))
				continue;
			json_object_object_add(set, keys[i].key, json_object_get(v));
		}
		json_object_put(full);
		json_object_object_add(o, "set", set);
	}
	return o;
}

static int run_step(struct ewnl *nl, const struct ew_step *s)
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

static const char *step_what(const struct ew_step *s, char *buf, size_t len)
{
	switch (s->op) {
	case EW_STEP_JOB_DEL:
		snprintf(buf, len, "job del %s (id %u)", s->name, s->id);
		break;
	case EW_STEP_JOB_SET:
		snprintf(buf, len, "job set %s (id %u)", s->name, s->id);
		break;
	case EW_STEP_PEER_ADD:
	case EW_STEP_PEER_DEL:
		snprintf(buf, len, "peer %s %s (id %u), %zu peers",
			 s->op == EW_STEP_PEER_ADD ? "add" : "del", s->name, s->id,
			 s->peers.n);
		break;
	case EW_STEP_JOB_NEW:
		snprintf(buf, len, "job add %s", s->name);
		break;
	case EW_STEP_CONFIG_SET:
		snprintf(buf, len, "config set");
		break;
	}
	return buf;
}

static void print_summary(const struct ew_plan *plan, bool dry_run)
{
	size_t n[EW_STEP_CONFIG_SET + 1] = { 0 }, peers_add = 0, peers_del = 0, i;

	for (i = 0; i < plan->n; i++) {
		n[plan->steps[i].op]++;
		if (plan->steps[i].op == EW_STEP_PEER_ADD)
			peers_add += plan->steps[i].peers.n;
		else if (plan->steps[i].op == EW_STEP_PEER_DEL)
			peers_del += plan->steps[i].peers.n;
	}
	printf("%s %zu step%s: jobs %zu added, %zu changed, %zu deleted; peers %zu added, %zu removed%s\n",
	       dry_run ? "would apply" : "applied", plan->n, plan->n == 1 ? "" : "s",
	       n[EW_STEP_JOB_NEW], n[EW_STEP_JOB_SET], n[EW_STEP_JOB_DEL],
	       peers_add, peers_del, n[EW_STEP_CONFIG_SET] ? "; config changed" : "");
}

static int apply_plan(struct ewnl *nl, const struct ew_plan *plan, const char *file,
		      bool dry_run)
{
	char what[160];
	size_t i;

	if (ew_opts.json) {
		struct json_object *o = json_object_new_object(), *a;

		json_object_object_add(o, "dry_run", json_object_new_boolean(dry_run));
		json_object_object_add(o, "changes", json_object_new_int64((int64_t)plan->n));
		a = json_object_new_array();
		for (i = 0; i < plan->n; i++)
			json_object_array_add(a, json_step(&plan->steps[i]));
		json_object_object_add(o, "plan", a);
		if (dry_run || !plan->n) {
			ew_json_print(o);
			return EW_OK;
		}
		for (i = 0; i < plan->n; i++) {
			if (run_step(nl, &plan->steps[i])) {
				json_object_put(o);
				goto fail;
			}
		}
		ew_json_print(o);
		return EW_OK;
	}

	if (!plan->n) {
		printf("no changes: the node already matches %s\n", file);
		return EW_OK;
	}
	if (dry_run) {
		for (i = 0; i < plan->n; i++)
			print_step(stdout, &plan->steps[i]);
		print_summary(plan, true);
		return EW_OK;
	}
	for (i = 0; i < plan->n; i++)
		if (run_step(nl, &plan->steps[i]))
			goto fail;
	print_summary(plan, false);
	return EW_OK;
fail:
	return ewnl_report(nl, "apply %s: step %zu of %zu (%s) failed, %zu applied before it",
			   file, i + 1, plan->n,
			   step_what(&plan->steps[i], what, sizeof(what)), i);
}

int apply_main(int argc, char *argv[])
{
	struct ew_state want = { 0 }, have = { 0 };
	struct ew_plan plan = { 0 };
	const char *file = NULL;
	bool dry_run = false;
	char err[1024];
	struct ewnl *nl;
	char *text;
	size_t len;
	int ret;

	for (; argc > 0; argc--, argv++) {
		if (!strcmp(argv[0], "--dry-run") || !strcmp(argv[0], "-n")) {
			dry_run = true;
		} else if (!strcmp(argv[0], "-f") || !strcmp(argv[0], "--file")) {
			if (argc < 2) {
				ew_err("\"%s\" needs a file name", argv[0]);
				return EW_USAGE;
			}
			file = argv[1];
			argc--;
			argv++;
		} else if (!strcmp(argv[0], "help")) {
			return ew_verb_error("apply", argc, argv, apply_usage);
		} else {
			ew_err("unknown argument \"%s\" (try \"" EW_PROG " apply help\")",
			       argv[0]);
			return EW_USAGE;
		}
	}
	if (!file) {
		ew_err("apply: missing -f FILE (try \"" EW_PROG " apply help\")");
		return EW_USAGE;
	}

	ret = ew_read_file(file, EW_POLICY_MAX, &text, &len);
	if (ret)
		return ret;
	if (!strcmp(file, "-"))
		file = "stdin";
	if (ew_policy_parse(text, len, file, &want, err, sizeof(err)) ||
	    ew_policy_resolve(&want, file, err, sizeof(err))) {
		ew_err("%s", err);
		ret = EW_USAGE;
		goto out;
	}

	ret = ew_connect(&nl);
	if (ret)
		goto out;
	if (ew_ipc_state(nl, &have, want.has_jobs)) {
		ret = ewnl_report(nl, "apply %s: reading the current state", file);
		goto out;
	}
	ew_plan_build(&want, &have, &plan);
	ret = apply_plan(nl, &plan, file, dry_run);
out:
	ew_plan_free(&plan);
	ew_state_free(&want);
	ew_state_free(&have);
	free(text);
	return ret;
}
