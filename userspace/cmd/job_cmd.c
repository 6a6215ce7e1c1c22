// SPDX-License-Identifier: GPL-2.0
/*
 * eastwestctl job add|set|del|show|keycheck
 */
#include "cmd/subcommands.h"
#include "ewctl.h"
#include "io/ipc.h"
#include "io/keys.h"
#include "io/lock.h"
#include "io/output.h"
#include "model/diff.h"
#include "model/jobspec.h"
#include "model/print.h"

void job_usage(FILE *f)
{
	fprintf(f,
		"Usage: " EW_PROG " job add NAME [id N] [ATTRIBUTES]\n"
		"       " EW_PROG " job set { NAME | id N } [name NEW] [ATTRIBUTES]\n"
		"       " EW_PROG " job del { NAME | id N }\n"
		"       " EW_PROG " job show [ NAME | id N ]\n"
		"       " EW_PROG " job keycheck NAME { psn-key { HEX32 | - } | psn-keyfile FILE psn-run RUN }\n"
		"ATTRIBUTES := [mode { enforce | audit }] [encrypt { none | any | macsec | ipsec }]\n"
		"              [qkey { N | auto }] [cgroup PATH]... [peer ADDR[/LEN]]... [lid N]...\n"
		"              [netdev IFNAME]... [vlan VID]... [vrf IFNAME]... [pkey PKEY]...\n"
		"              [ud { on | off }] [dc { on | off }]\n"
		"              [psn { app | keyed }]\n"
		"              [psn-key { HEX32 | - } | psn-keyfile FILE psn-run RUN]\n"
		"job set replaces each list given; \"cgroup none\", \"peer none\", \"netdev none\"\n"
		"(with vlan and vrf entries) and \"pkey none\" empty it.\n"
		"ud on / dc on let the job create UD / driver (mlx5 DC) QPs, policed by\n"
		"P_Key/Q_Key only: where they send is not judged (default off; EFA needs neither).\n"
		"psn keyed: the module sets every RC/UC/XRC connection's PSNs from the job's key\n"
		"(psn-key, or derived from the key file psn-keyfile, the job's name and its run\n"
		"psn-run, the same on every node; another run of a job of the same name gets\n"
		"another key); the key is never shown, the run is. psn-key - reads it from a\n"
		"line of standard input: a command line is readable by every local user.\n"
		"job keycheck prints the check value of the key given, as \"job show\" prints\n"
		"the job's (psn-key-check): the same value, the same key. It reads no state.\n");
}

static int job_add(int argc, char *argv[])
{
	struct ew_jobref ref;
	struct ew_job_desc job;
	struct ewnl *nl;
	uint32_t id;
	int ret;

	ret = ew_jobspec_parse(argc, argv, false, &ref, &job);
	if (ret)
		return ret;
	ret = ew_connect(&nl);
	if (ret)
		goto out;
	ret = ew_ipc_job_new(nl, &job, &id);
	if (ret) {
		ret = ewnl_report(nl, "job add %s", job.name);
		goto out;
	}
	ew_open_array(NULL);
	ew_open_object(NULL);
	ew_print_uint(EW_ANY, "id", "%u\n", id);
	ew_print_string(EW_JSON, "name", NULL, job.name);
	ew_print_uint(EW_JSON, "qkey", NULL, job.qkey);
	ew_close_object();
	ew_close_array();
out:
	ew_job_free(&job);
	return ret;
}

/*
 * The attributes go in one job-set message, all or nothing. Peers given
 * are replaced around it, narrow before widening: the peers the job
 * loses go first, then the attributes (new cgroups included), then the
 * peers it gains, so that a job never gains cgroups holding peers it is
 * to lose. If a request is refused, the job is taken back to the state
 * read before (ew_plan_undo()): it never keeps a mix of the old and the
 * new settings, nor more peers than either list.
 */
static int job_set(int argc, char *argv[])
{
	struct ew_state before = { 0 };
	struct ew_undo undo = { .before = &before };
	struct ew_peers add = { 0 }, del = { 0 };
	struct ew_jobref ref;
	struct ew_job_desc job;
	struct ewnl *nl;
	char what[80], where[96];
	size_t done;
	uint32_t id;
	int ret;

	ret = ew_jobspec_parse(argc, argv, true, &ref, &job);
	if (ret)
		return ret;
	ew_jobref_str(&ref, what, sizeof(what));
	ret = ew_connect(&nl);
	if (ret)
		goto out;
	snprintf(where, sizeof(where), "job set %s", what);
	ret = ew_node_lock_or_say(where);
	if (ret)
		goto out;
	if (ew_ipc_job_id(nl, &ref, &id) ||
	    ((job.present & EW_JOB_PEERS) && ew_ipc_job_state(nl, id, &before))) {
		ret = ewnl_report(nl, "job set %s", what);
		goto out;
	}
	if (job.present & EW_JOB_PEERS)
		ew_peers_diff(&job.peers, &before.jobs[0].peers, &add, &del);
	if (del.n && ew_ipc_peers(nl, EASTWEST_CMD_PEER_DEL, id, &del, &done)) {
		ret = ewnl_report(nl, "job set %s: peers", what);
		goto undo;
	}
	if ((job.present & EW_JOB_SETTABLE) &&
	    ew_ipc_job_set(nl, id, &job, job.present & EW_JOB_SETTABLE)) {
		ret = ewnl_report(nl, "job set %s", what);
		if (!del.n)
			goto out;
		goto undo;
	}
	if (add.n && ew_ipc_peers(nl, EASTWEST_CMD_PEER_ADD, id, &add, &done)) {
		ret = ewnl_report(nl, "job set %s: peers", what);
		goto undo;
	}
	goto out;
undo:
	snprintf(where, sizeof(where), "job set %s", what);
	undo.job = id;
	ret = ew_undo_exit(ew_plan_undo(nl, &undo, where), ret);
out:
	ew_peers_free(&add);
	ew_peers_free(&del);
	ew_state_free(&before);
	ew_job_free(&job);
	return ret;
}

static int job_del(int argc, char *argv[])
{
	struct ew_jobref ref;
	struct ewnl *nl;
	char what[80];
	int ret;

	ret = ew_jobref_parse(&argc, &argv, &ref);
	if (!ret)
		ret = ew_connect_after(argc, argv, &nl);
	if (ret)
		return ret;
	if (ew_ipc_job_del(nl, &ref))
		return ewnl_report(nl, "job del %s", ew_jobref_str(&ref, what, sizeof(what)));
	return EW_OK;
}

static void print_jobs(const struct ew_job_desc *jobs, size_t n)
{
	size_t i;

	ew_open_array(NULL);
	for (i = 0; i < n; i++)
		ew_print_job(NULL, &jobs[i], false);
	ew_close_array();
}

static int job_show(int argc, char *argv[])
{
	struct ew_state st = { 0 };
	struct ew_job_desc job;
	struct ewnl *nl;
	int ret;

	if (argc > 0) {
		ret = ew_job_of_args("job show", argc, argv, &nl, &job);
		if (ret)
			return ret;
		print_jobs(&job, 1);
		ew_job_free(&job);
		return EW_OK;
	}
	ret = ew_connect(&nl);
	if (ret)
		return ret;
	if (ew_ipc_job_dump(nl, &st)) {
		ret = ewnl_report(nl, "job show");
	} else {
		print_jobs(st.jobs, st.n_jobs);
		ret = EW_OK;
	}
	ew_state_free(&st);
	return ret;
}

/*
 * The check value of a key given as job add takes it (the module reports
 * its job's alike): whoever restores a job derives its key again and
 * compares, without either key being shown. Local: no module needed.
 */
static int job_keycheck(int argc, char *argv[])
{
	const uint32_t allowed = EW_JOB_NAME | EW_JOB_PSN_KEY | EW_JOB_PSN_RUN;
	struct ew_jobref ref;
	struct ew_job_desc job;
	uint32_t check;
	int ret;

	ret = ew_jobspec_parse(argc, argv, false, &ref, &job);
	if (ret)
		return ret;
	ret = EW_USAGE;
	if (job.present & ~allowed) {
		ew_err("job keycheck takes a job's name and its key (psn-key, or psn-keyfile and psn-run), nothing else");
	} else if (!(job.present & EW_JOB_PSN_KEY)) {
		ew_err("job keycheck %s: no key (psn-key, or psn-keyfile and psn-run)",
		       job.name);
	} else if (ew_psn_key_check(job.psn_key, &check)) {
		ew_err("job keycheck %s: the check value could not be computed", job.name);
		ret = EW_FAIL;
	} else {
		ew_open_array(NULL);
		ew_open_object(NULL);
		ew_print_string(EW_ANY, "name", "job %s", job.name);
		ew_print_uint(EW_ANY, "psn_key_check", " psn-key-check 0x%08x\n", check);
		ew_close_object();
		ew_close_array();
		ret = EW_OK;
	}
	ew_job_free(&job);
	return ret;
}

int job_main(int argc, char *argv[])
{
	static const struct ew_cmd cmds[] = {
		{ NULL,		job_show },
		{ "add",	job_add },
		{ "set",	job_set },
		{ "del",	job_del },
		{ "show",	job_show },
		{ "keycheck",	job_keycheck },
		{ NULL },
	};

	return ew_exec_cmd("job", job_usage, cmds, argc, argv);
}
