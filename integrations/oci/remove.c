// SPDX-License-Identifier: GPL-2.0
/*
 * poststop: delete the job this container's createRuntime created, which
 * moves its remaining QPs to the error state, and drop the claim. Runtimes
 * may run poststop more than once, and also after a failed createRuntime:
 * without a claim naming this container there is nothing to do. A failed
 * createRuntime that may have left a job tears down the same way.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "addr.h"
#include "claim.h"
#include "ctl.h"
#include "hook.h"
#include "ops.h"
#include "state.h"

/* Is job @name in the output of "eastwestctl -j job show"? -1: unreadable. */
static int job_listed(const char *text, const char *name)
{
	struct json_object *root, *job, *o;
	int found = 0;
	size_t i, n;

	root = json_tokener_parse(text);
	if (!root || !json_object_is_type(root, json_type_array)) {
		json_object_put(root);
		return -1;
	}
	n = json_object_array_length(root);
	for (i = 0; i < n && !found; i++) {
		job = json_object_array_get_idx(root, i);
		if (json_object_object_get_ex(job, "name", &o) &&
		    json_object_is_type(o, json_type_string) &&
		    !strcmp(json_object_get_string(o), name))
			found = 1;
	}
	json_object_put(root);
	return found;
}

static int drop(const struct ewoci_opts *o, const char *job)
{
	int err = ewoci_claim_drop(o->state_dir, job);

	if (err) {
		ew_err("cannot remove the claim %s/%s: %s", o->state_dir, job, strerror(-err));
		return EWOCI_CLAIM;
	}
	return EWOCI_OK;
}

/**
 * ewoci_teardown() - remove what createRuntime made for job @job
 * @o: the hook's options
 * @job: the job name
 * @id: the container whose claim it is (for messages)
 *
 * The container's address first (if it had one): its GIDs go and the
 * module revokes every QP still using them. Then the job, then the claim.
 * Whatever cannot be removed keeps the claim and the records, so that
 * poststop run again finishes it.
 *
 * Return: EWOCI_OK, or the exit code of what failed (message printed).
 */
int ewoci_teardown(const struct ewoci_opts *o, const char *job, const char *id)
{
	char *show[] = { "-j", "job", "show", NULL };
	char *del[] = { "job", "del", NULL, NULL };
	char *text = NULL;
	int ret, status, listed;

	ret = ewoci_jobaddr_down(o->state_dir, job);
	if (ret)
		return ret;

	status = ewoci_ctl_run(show, &text);
	if (status == EWCTL_NOTAVAIL) {
		/* Module unloaded: it took every job with it. */
		ew_warn("eastwest is not available: job %s is gone with it", job);
		ret = drop(o, job);
		goto out;
	}
	listed = status ? -1 : job_listed(text, job);
	if (listed < 0) {
		ew_err("cannot list the jobs (eastwestctl exit %d, %s): job %s of container %s kept",
			  status, status ? ewoci_ctl_meaning(status) : "unreadable output", job, id);
		ret = EWOCI_CTL;
		goto out;
	}
	if (listed) {
		del[2] = (char *)job;
		status = ewoci_ctl_run(del, NULL);
		/* Deleted by someone else since it was listed: gone is done. */
		if (status && status != EWCTL_NOENT) {
			ew_err("eastwestctl job del %s failed: exit %d, %s: claim kept, run poststop again",
				  job, status, ewoci_ctl_meaning(status));
			ret = EWOCI_CTL;
			goto out;
		}
	}
	ret = drop(o, job);
out:
	free(text);
	return ret;
}

int ewoci_remove(const struct ewoci_opts *o)
{
	char job[64], owner[1100];
	struct ewoci_state st;
	int ret, err;

	ret = ewoci_state_read(stdin, &st);
	if (ret)
		return ret;
	ewoci_job_name(st.id, job, sizeof(job));

	err = ewoci_claim_owner(o->state_dir, job, owner, sizeof(owner));
	if (err == -ENOENT)
		goto out;	/* never created, or removed already */
	if (err) {
		ew_err("cannot read the claim %s/%s: %s", o->state_dir, job,
			  err == -EPERM ? "the state dir is not root's or is writable by others" :
			  strerror(-err));
		ret = EWOCI_CLAIM;
		goto out;
	}
	if (strcmp(owner, st.id)) {
		/* The start of this container failed on a name held by another. */
		ew_warn("job %s belongs to container %s, not %s: leaving it", job, owner, st.id);
		goto out;
	}
	ret = ewoci_teardown(o, job, st.id);
out:
	ewoci_state_free(&st);
	return ret;
}
