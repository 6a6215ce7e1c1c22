// SPDX-License-Identifier: GPL-2.0
/*
 * eastwestctl apply [--dry-run] -f FILE: make the node match a policy file.
 *
 * Everything that can be checked is checked before the first request: the
 * JSON, every value, cgroups and interfaces on this host, and what the
 * kernel would surely refuse. Then the current state is read, diffed
 * (diff.c) and the plan applied step by step; the first refused step stops
 * the run, and the plan from the state then back to the state read before
 * undoes the steps before it. The plan prints as eastwestctl commands (a
 * batch file doing the same), or as JSON with -j.
 *
 * --expect STATE makes it a compare-and-set: STATE is what "show -j" said
 * when the caller built FILE from it, and if the node's jobs or settings
 * are no longer those (a Slurm prolog or an OCI hook made or deleted a
 * job since, an operator changed one), nothing is changed. Without it a
 * job made in between would be deleted as one that FILE does not list,
 * and a change made in between undone.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <linux/eastwest.h>

#include "cmd/subcommands.h"
#include "ewctl.h"
#include "io/ipc.h"
#include "io/lock.h"
#include "io/output.h"
#include "model/diff.h"
#include "model/parse.h"
#include "model/policy_file.h"
#include "model/print.h"

#define EW_POLICY_MAX (256 * 1024 * 1024)

void apply_usage(FILE *f)
{
	fprintf(f,
		"Usage: " EW_PROG " apply [--dry-run] [--expect STATE] -f FILE\n"
		"Makes the node match the policy FILE (\"-\": stdin): creates, changes and\n"
		"deletes jobs and peers. --dry-run (-n) prints the plan and changes nothing.\n"
		"--expect STATE (the output of \"" EW_PROG " -j show\"): change nothing and\n"
		"exit 6 if the node's jobs or settings are no longer those of STATE.\n");
}

/* The list settings of @job that are empty: "job add" leaves them out. */
static uint32_t empty_lists(const struct ew_job_desc *job)
{
	return (job->n_cgroups ? 0 : EW_JOB_CGROUPS) | (job->n_netdevs ? 0 : EW_JOB_NETDEVS) |
	       (job->n_pkeys ? 0 : EW_JOB_PKEYS);
}

/*
 * The settings of @job in @mask: in text in the command line's order, and
 * with a @json_key, as that object in the policy file's order.
 */
static void print_settings(const struct ew_job_desc *job, uint32_t mask, const char *json_key)
{
	static const uint32_t text_order[] = {
		EW_JOB_NAME, EW_JOB_MODE, EW_JOB_ENCRYPT, EW_JOB_QKEY, EW_JOB_UD, EW_JOB_DC,
		EW_JOB_PSN, EW_JOB_PSN_KEY, EW_JOB_PSN_RUN, EW_JOB_CGROUPS, EW_JOB_NETDEVS,
		EW_JOB_PKEYS,
	};
	static const uint32_t json_order[] = {
		EW_JOB_NAME, EW_JOB_MODE, EW_JOB_ENCRYPT, EW_JOB_QKEY, EW_JOB_CGROUPS,
		EW_JOB_NETDEVS, EW_JOB_PKEYS, EW_JOB_UD, EW_JOB_DC, EW_JOB_PSN,
		EW_JOB_PSN_RUN,
	};
	enum ew_to only;
	size_t i;

	only = ew_print_only(EW_TEXT);
	for (i = 0; i < EW_ARRAY_SIZE(text_order); i++)
		if (mask & text_order[i])
			ew_print_job_setting(job, text_order[i]);
	ew_print_only_end(only);
	if (!json_key)
		return;
	only = ew_print_only(EW_JSON);
	ew_open_object(json_key);
	for (i = 0; i < EW_ARRAY_SIZE(json_order); i++)
		if (mask & json_order[i])
			ew_print_job_setting(job, json_order[i]);
	ew_close_object();
	ew_print_only_end(only);
}

/*
 * The step as an eastwestctl command line (a batch file doing the same),
 * or as an element of "plan": {"op": "job-set", "id": 1, "name": "a",
 * "set": {...}}.
 */
static void print_step(const struct ew_step *s)
{
	static const char *const ops[] = {
		[EW_STEP_JOB_DEL] = "job-del",
		[EW_STEP_JOB_SET] = "job-set",
		[EW_STEP_PEER_ADD] = "peer-add",
		[EW_STEP_PEER_DEL] = "peer-del",
		[EW_STEP_JOB_NEW] = "job-add",
		[EW_STEP_CONFIG_SET] = "config-set",
	};
	char buf[EW_PEER_STRLEN];
	enum ew_to only;
	size_t i;

	ew_open_object(NULL);
	ew_print_string(EW_JSON, "op", NULL, ops[s->op]);
	switch (s->op) {
	case EW_STEP_JOB_DEL:
		ew_print_uint(EW_ANY, "id", "job del id %u", s->id);
		ew_print_string(EW_ANY, "name", " # %s", s->name);
		break;
	case EW_STEP_JOB_SET:
		ew_print_uint(EW_ANY, "id", "job set id %u", s->id);
		ew_print_string(EW_JSON, "name", NULL, s->name);
		print_settings(&s->job, s->mask, "set");
		ew_print_text(" # %s", s->name);
		break;
	case EW_STEP_PEER_ADD:
	case EW_STEP_PEER_DEL:
		ew_print_text("peer %s", s->op == EW_STEP_PEER_ADD ? "add" : "del");
		ew_print_uint(EW_ANY, "id", " id %u", s->id);
		ew_print_string(EW_JSON, "name", NULL, s->name);
		ew_print_peers(" %s", &s->peers);
		ew_print_text(" # %s", s->name);
		break;
	case EW_STEP_JOB_NEW:
		only = ew_print_only(EW_JSON);
		ew_print_job("job", s->src, true);
		ew_print_only_end(only);
		ew_print_text("job add %s", s->src->name);
		if (s->src->present & EW_JOB_ID)
			ew_print_text(" id %u", s->src->id);
		print_settings(s->src, s->src->present & ~(EW_JOB_NAME | empty_lists(s->src)), NULL);
		for (i = 0; ew_print_wanted(EW_TEXT) && i < s->src->peers.n; i++)
			ew_print_text(" peer %s", ew_peer_format(&s->src->peers.v[i], buf, sizeof(buf)));
		break;
	case EW_STEP_CONFIG_SET:
		ew_print_text("config set");
		ew_open_object("config");
		if (s->mask & EW_CFG_MODE)
			ew_print_enum(EW_ANY, "mode", " mode %s", &ew_mode_names, s->config.mode);
		if (s->mask & EW_CFG_DEFAULT)
			ew_print_enum(EW_ANY, "default_action", " default %s",
				      &ew_default_action_names, s->config.default_action);
		ew_close_object();
		break;
	}
	ew_print_text("\n");
	ew_close_object();
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
	ew_print_text("%s %zu step%s: jobs %zu added, %zu changed, %zu deleted; peers %zu added, %zu removed%s\n",
		      dry_run ? "would apply" : "applied", plan->n, plan->n == 1 ? "" : "s",
		      n[EW_STEP_JOB_NEW], n[EW_STEP_JOB_SET], n[EW_STEP_JOB_DEL],
		      peers_add, peers_del, n[EW_STEP_CONFIG_SET] ? "; config changed" : "");
}

/* The steps of @plan as an array @key (text: one command a line). */
static void print_steps(const struct ew_plan *plan, const char *key)
{
	size_t i;

	ew_open_array(key);
	for (i = 0; i < plan->n; i++)
		print_step(&plan->steps[i]);
	ew_close_array();
}

static int read_state(struct ewnl *nl, const struct ew_undo *u, struct ew_state *st)
{
	if (u->job)
		return ew_ipc_job_state(nl, u->job, st);
	return ew_ipc_state(nl, st, u->with_peers);
}

/* Whether one of the steps sent touched job @j: by id, or by name if it created it. */
static bool touched(const struct ew_undo *u, const struct ew_job_desc *j)
{
	const struct ew_step *s;
	size_t i;

	for (i = 0; i < u->n; i++) {
		s = &u->plan->steps[i];
		if (s->op == EW_STEP_JOB_NEW ? !strcmp(s->name, j->name) :
		    s->op != EW_STEP_CONFIG_SET && s->id == j->id)
			return true;
	}
	return false;
}

/*
 * Keeps in @st the jobs (and the configuration) that the steps sent
 * touched; the others are left out of the undo, since hooks may create or
 * change them meanwhile. @own: @st's jobs are its own, freed when left out.
 * A linear scan per job: on the failure path only.
 */
static void keep_touched(struct ew_state *st, const struct ew_undo *u, bool own)
{
	bool config = false;
	size_t i, o = 0;

	if (!u->plan)
		return;
	for (i = 0; i < u->n; i++)
		config |= u->plan->steps[i].op == EW_STEP_CONFIG_SET;
	st->has_config &= config;
	for (i = 0; i < st->n_jobs; i++) {
		if (touched(u, &st->jobs[i]))
			st->jobs[o++] = st->jobs[i];
		else if (own)
			ew_job_free(&st->jobs[i]);
	}
	st->n_jobs = o;
}

/* The state now, as much of it as @part (the state before) holds. */
static int read_part(struct ewnl *nl, const struct ew_undo *u, struct ew_state *now)
{
	int ret = read_state(nl, u, now);

	if (!ret)
		keep_touched(now, u, true);
	return ret;
}

/* Whether a step sent before the refused one deleted job @id. */
static bool deleted_by_run(const struct ew_undo *u, uint32_t id)
{
	size_t i;

	for (i = 0; u->plan && i + 1 < u->n; i++)
		if (u->plan->steps[i].op == EW_STEP_JOB_DEL && u->plan->steps[i].id == id)
			return true;
	return false;
}

/*
 * Leaves out of @part (the state to go back to) the jobs gone from @now
 * that no step of the run deleted: another program (a Slurm epilog, an OCI
 * poststop) deleted them meanwhile, and the undo must not bring them back.
 */
static void keep_deleted(struct ew_state *part, const struct ew_state *now,
			 const struct ew_undo *u, const char *what)
{
	const struct ew_job_desc *j;
	size_t i, o = 0;

	for (i = 0; i < part->n_jobs; i++) {
		j = &part->jobs[i];
		if (!ew_state_find_id(now, j->id) && !deleted_by_run(u, j->id)) {
			ew_err("%s: rolling back: job %s (id %u) was deleted meanwhile, not by this run: not created again",
			       what, j->name, j->id);
			continue;
		}
		part->jobs[o++] = *j;
	}
	part->n_jobs = o;
}

/*
 * The touched jobs of @before (by id) whose PSN key @now is another (its
 * check value moved): a key the run sent, which no undo gives back, since
 * the kernel never reports a key. Each is named; returns how many.
 */
static size_t rekeyed_jobs(const struct ew_state *before, const struct ew_state *now,
			   const char *what)
{
	const struct ew_job_desc *b, *j;
	size_t i, k, n = 0;

	for (i = 0; i < before->n_jobs; i++) {
		b = &before->jobs[i];
		if (!(b->present & EW_JOB_PSN_KEY_CHECK))
			continue;
		for (k = 0; k < now->n_jobs; k++) {
			j = &now->jobs[k];
			if (j->id != b->id || !(j->present & EW_JOB_PSN_KEY_CHECK) ||
			    j->psn_key_check == b->psn_key_check)
				continue;
			ew_err("%s: rolling back: job %s keeps the PSN key this run gave it (check value 0x%08x, before 0x%08x): the kernel never reports a key, so the old one cannot be given back",
			       what, j->name, j->psn_key_check, b->psn_key_check);
			n++;
		}
	}
	return n;
}

/**
 * ew_plan_undo() - take the node back to the state read before a plan
 * @nl: the socket
 * @u: the state before, and what was sent
 * @what: what failed, for messages ("apply FILE", "job set a")
 *
 * After a refused step. The undo is the plan from the state now back to
 * the state before (diff.c), of the jobs the steps sent touched: whatever
 * was applied, chunks of a step included. A touched job that is gone
 * although no step deleted it was deleted by another program meanwhile,
 * and is not created again (keep_deleted()). A step that the kernel would
 * surely refuse is not sent: restoring keyed PSNs needs the key, which the
 * kernel never reports, and a key the run changed cannot be given back (the
 * check values the kernel reports tell it, rekeyed_jobs()): either leaves
 * the node not as it was. An undo step refused goes on to the next; then the
 * state is read again, and if it is not as before, the steps that would
 * restore it are printed, as a dry run prints a plan (JSON: {"restore":
 * [...]}). Jobs and settings restored are not QPs restored: a QP that a
 * step (or an undo step) revoked stays revoked, and the messages say so.
 *
 * Return: EW_UNDO_NOTHING if the touched jobs and settings were as before
 * (nothing to undo), EW_UNDO_RESTORED once they are again, else
 * EW_UNDO_LEFT (the state could not be read either).
 */
enum ew_undone ew_plan_undo(struct ewnl *nl, const struct ew_undo *u, const char *what)
{
	const char *whom = u->job ? "the job's settings and peers are" :
				    "the jobs and settings are";
	struct ew_plan undo = { 0 }, left = { 0 };
	struct ew_state part = *u->before, now;
	enum ew_undone ret = EW_UNDO_LEFT;
	size_t i, rekeyed;
	char step[160];
	const char *why;

	part.jobs = ew_calloc(part.n_jobs ? part.n_jobs : 1, sizeof(*part.jobs));
	memcpy(part.jobs, u->before->jobs, part.n_jobs * sizeof(*part.jobs));
	keep_touched(&part, u, false);
	if (read_part(nl, u, &now)) {
		/* job set's job, deleted by another program meanwhile. */
		if (u->job && nl->err.code == ENOENT) {
			ew_err("%s: rolling back: the job was deleted meanwhile, not by this run: nothing is left to roll back",
			       what);
			ret = EW_UNDO_RESTORED;
			goto out;
		}
		ewnl_report(nl, "%s: not rolled back: reading the state", what);
		goto out;
	}
	keep_deleted(&part, &now, u, what);
	rekeyed = rekeyed_jobs(&part, &now, what);
	ew_plan_build(&part, &now, &undo);
	ew_state_free(&now);
	if (!undo.n) {
		ret = rekeyed ? EW_UNDO_LEFT : EW_UNDO_NOTHING;
		goto out;
	}
	for (i = 0; i < undo.n; i++) {
		step_what(&undo.steps[i], step, sizeof(step));
		why = ew_step_refused(&undo.steps[i]);
		if (why)
			ew_err("%s: rolling back: %s: %s, which the kernel never reports",
			       what, step, why);
		else if (ew_ipc_step(nl, &undo.steps[i]))
			ewnl_report(nl, "%s: rolling back: %s", what, step);
	}
	if (read_part(nl, u, &now)) {
		ewnl_report(nl, "%s: not rolled back: %zu step%s sent: reading the state after them",
			    what, undo.n, undo.n == 1 ? "" : "s");
		goto out;
	}
	ew_plan_build(&part, &now, &left);
	ew_state_free(&now);
	if (!left.n && rekeyed) {
		ew_err("%s: rolled back %zu step%s but not the PSN key%s named above; live QPs that the run revoked stay revoked",
		       what, undo.n, undo.n == 1 ? "" : "s", rekeyed == 1 ? "" : "s");
		goto out;
	}
	if (!left.n) {
		ew_err("%s: rolled back %zu step%s: %s as they were; live QPs that the run revoked stay revoked",
		       what, undo.n, undo.n == 1 ? "" : "s", whom);
		ret = EW_UNDO_RESTORED;
		goto out;
	}
	ew_err("%s: not rolled back: %s is not as it was: %zu step%s printed would restore it",
	       what, u->job ? "the job" : "the node", left.n, left.n == 1 ? "" : "s");
	ew_open_object(NULL);
	print_steps(&left, "restore");
	ew_close_object();
out:
	/* The jobs are @u->before's. */
	free(part.jobs);
	ew_plan_free(&undo);
	ew_plan_free(&left);
	return ret;
}

/**
 * ew_undo_exit() - the exit status of a command refused part-way
 * @undone: what ew_plan_undo() found
 * @refused: the exit status of the refused request (ewnl_report())
 *
 * Return: @refused if nothing had changed (its meaning holds: 5, "no such
 * object", changed nothing), EW_FAIL once the undo restored the jobs and
 * settings, EW_PARTIAL when changes stay.
 */
int ew_undo_exit(enum ew_undone undone, int refused)
{
	switch (undone) {
	case EW_UNDO_NOTHING:
		return refused;
	case EW_UNDO_RESTORED:
		return EW_FAIL;
	case EW_UNDO_LEFT:
		break;
	}
	return EW_PARTIAL;
}

/*
 * Runs the plan unless @dry_run, then prints it: JSON {"dry_run", "changes",
 * "plan": [...]}, or in text the steps of a dry run and a summary. A step
 * the kernel would surely refuse fails the plan before the first request.
 * A refused step stops the run, and the steps before it are undone from
 * @have, the state the plan was built from (ew_plan_undo()); the exit
 * status says what is left (ew_undo_exit()).
 */
static int apply_plan(struct ewnl *nl, const struct ew_plan *plan, const struct ew_state *have,
		      bool with_peers, const char *file, bool dry_run)
{
	struct ew_undo undo = { .before = have, .plan = plan, .with_peers = with_peers };
	char what[160], where[PATH_MAX + 16];
	enum ew_to only;
	const char *why;
	size_t i;
	int ret;

	for (i = 0; i < plan->n; i++) {
		why = ew_step_refused(&plan->steps[i]);
		if (why) {
			ew_err("apply %s: %s: %s", file,
			       step_what(&plan->steps[i], what, sizeof(what)), why);
			return EW_USAGE;
		}
	}
	for (i = 0; !dry_run && i < plan->n; i++) {
		if (!ew_ipc_step(nl, &plan->steps[i]))
			continue;
		ret = ewnl_report(nl, "apply %s: step %zu of %zu (%s) failed, %zu applied before it",
				  file, i + 1, plan->n,
				  step_what(&plan->steps[i], what, sizeof(what)), i);
		snprintf(where, sizeof(where), "apply %s", file);
		undo.n = i + 1;
		return ew_undo_exit(ew_plan_undo(nl, &undo, where), ret);
	}
	ew_open_object(NULL);
	ew_print_on_off(EW_JSON, "dry_run", NULL, dry_run);
	ew_print_u64(EW_JSON, "changes", NULL, plan->n);
	if (!plan->n)
		ew_print_text("no changes: the node already matches %s\n", file);
	only = ew_print_only(dry_run ? EW_ANY : EW_JSON);
	print_steps(plan, "plan");
	ew_print_only_end(only);
	if (plan->n)
		print_summary(plan, dry_run);
	ew_close_object();
	return EW_OK;
}

/*
 * A PSN key given by value is as secret as a key file, which must be
 * readable by its owner only: so must a policy file that holds one (every
 * local user could read it otherwise, and with it the job's PSNs).
 * Standard input is the caller's business.
 */
static int psn_keys_private(const char *path, const struct ew_state *st)
{
	struct stat sb;
	size_t i;

	for (i = 0; i < st->n_jobs; i++) {
		if ((st->jobs[i].present & EW_JOB_PSN_KEY) &&
		    !st->jobs[i].psn_keyfile)
			break;
	}
	if (i == st->n_jobs || !strcmp(path, "-"))
		return EW_OK;
	if (stat(path, &sb)) {
		ew_err("%s: %s", path, strerror(errno));
		return EW_USAGE;
	}
	if (sb.st_mode & 077) {
		ew_err("%s: jobs[%zu].psn_key: mode %04o lets other users read the key (want 0600 or stricter, or a psn_keyfile): nothing was changed",
		       path, i, (unsigned int)(sb.st_mode & 07777));
		return EW_USAGE;
	}
	return EW_OK;
}

/*
 * The jobs of "show -j" output @path, by id and name, into @st. Every job
 * must have its id: a policy file written by hand is not a state read.
 */
static int read_expected(const char *path, struct ew_state *st)
{
	char err[1024];
	size_t len, i;
	char *text;
	int ret;

	ret = ew_read_file(path, EW_POLICY_MAX, &text, &len);
	if (ret)
		return ret;
	ret = EW_USAGE;
	if (ew_policy_parse(text, len, path, st, err, sizeof(err))) {
		ew_err("--expect %s", err);
		goto out;
	}
	if (!st->has_jobs) {
		ew_err("--expect %s: no \"jobs\" list (give the output of \"" EW_PROG
		       " -j show\")", path);
		goto out;
	}
	for (i = 0; i < st->n_jobs; i++) {
		size_t k;

		if (!(st->jobs[i].present & EW_JOB_ID)) {
			ew_err("--expect %s: jobs[%zu] (%s) has no id (give the output of \""
			       EW_PROG " -j show\")", path, i, st->jobs[i].name);
			goto out;
		}
		/*
		 * "show -j" names a rule's interface: compare its index, as
		 * the kernel reports it. A name gone since leaves the rule
		 * unresolved: the state did change.
		 */
		ew_job_resolve_netdevs(&st->jobs[i], &k);
		ew_job_normalize(&st->jobs[i]);
	}
	ret = EW_OK;
out:
	free(text);
	return ret;
}

/* "help" after an option ("apply -n help") is the usage too. */
static int apply_run(int argc, char *argv[])
{
	struct ew_state want = { 0 }, have = { 0 }, seen = { 0 };
	const char *file = NULL, *expect = NULL, *name;
	struct ew_plan plan = { 0 };
	bool dry_run = false;
	char err[1024];
	struct ewnl *nl;
	char *text;
	size_t len;
	int ret;

	for (; argc > 0; argc--, argv++) {
		if (!strcmp(argv[0], "--dry-run") || !strcmp(argv[0], "-n")) {
			dry_run = true;
		} else if (!strcmp(argv[0], "-f") || !strcmp(argv[0], "--file") ||
			   !strcmp(argv[0], "--expect")) {
			if (argc < 2) {
				ew_err("\"%s\" needs a file name", argv[0]);
				return EW_USAGE;
			}
			*(!strcmp(argv[0], "--expect") ? &expect : &file) = argv[1];
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

	if (expect && !strcmp(expect, "-") && !strcmp(file, "-")) {
		ew_err("apply: --expect and -f cannot both read standard input");
		return EW_USAGE;
	}
	if (expect) {
		ret = read_expected(expect, &seen);
		if (ret) {
			ew_state_free(&seen);
			return ret;
		}
	}
	ret = ew_read_file(file, EW_POLICY_MAX, &text, &len);
	if (ret) {
		ew_state_free(&seen);
		return ret;
	}
	name = strcmp(file, "-") ? file : "stdin";
	if (ew_policy_parse(text, len, name, &want, err, sizeof(err))) {
		ew_err("%s", err);
		ret = EW_USAGE;
		goto out;
	}
	ret = psn_keys_private(file, &want);
	if (ret)
		goto out;
	file = name;
	if (ew_policy_resolve(&want, file, err, sizeof(err))) {
		ew_err("%s", err);
		ret = EW_USAGE;
		goto out;
	}

	ret = ew_connect(&nl);
	if (ret)
		goto out;
	/* From the state read to the last step (or the undo): see lock.c. */
	if (!dry_run) {
		snprintf(err, sizeof(err), "apply %s", file);
		ret = ew_node_lock_or_say(err);
		if (ret)
			goto out;
	}
	if (ew_ipc_state(nl, &have, want.has_jobs)) {
		ret = ewnl_report(nl, "apply %s: reading the current state", file);
		goto out;
	}
	if (expect && !ew_state_unchanged(&seen, &have)) {
		ew_err("apply %s: the node's jobs or settings changed since %s was read: nothing was changed",
		       file, expect);
		ret = EW_CHANGED;
		goto out;
	}
	ew_plan_build(&want, &have, &plan);
	ret = apply_plan(nl, &plan, &have, want.has_jobs, file, dry_run);
out:
	ew_plan_free(&plan);
	ew_state_free(&want);
	ew_state_free(&have);
	ew_state_free(&seen);
	free(text);
	return ret;
}

int apply_main(int argc, char *argv[])
{
	static const struct ew_cmd cmds[] = {
		{ EW_CMD_ANY,	apply_run },
		{ NULL },
	};

	return ew_exec_cmd("apply", apply_usage, cmds, argc, argv);
}
