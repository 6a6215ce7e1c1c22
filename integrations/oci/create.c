// SPDX-License-Identifier: GPL-2.0
/*
 * createRuntime: the container's init exists, in its cgroup, and has not run
 * any of the container's code yet. Bind that cgroup to a new job built from
 * the template the annotation names, or fail, and the runtime does not
 * start the container.
 *
 * One job per container ("oci-" and the id's first 12 characters), not one
 * shared job per template: the hook stages map one to one onto "job add" and
 * "job del", so a container's end revokes exactly its own QPs; concurrent
 * hooks never rewrite a shared job's cgroup list (eastwestctl replaces lists
 * whole); no job hits the 64-cgroup limit; and "eastwestctl stats" counts
 * each container apart. See Documentation/containers.md.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addr.h"
#include "cgroup.h"
#include "claim.h"
#include "ctl.h"
#include "hook.h"
#include "ops.h"
#include "state.h"
#include "template.h"

static int claim_error(const struct ewoci_opts *o, const char *job,
		       const char *id, int err, const char *owner)
{
	if (err == -EEXIST)
		ew_err("job name %s is taken by container %s (ids that share their first %d characters?): container %s not started",
			  job, *owner ? owner : "(unknown)", EWOCI_ID_CHARS, id);
	else if (err == -EPERM)
		ew_err("state dir %s is not root's or is writable by others: refusing to use it",
			  o->state_dir);
	else
		ew_err("state dir %s: cannot claim %s: %s", o->state_dir, job, strerror(-err));
	return EWOCI_CLAIM;
}

/*
 * A failed start: the container's address (if it got one) goes, then the
 * claim. An address that cannot be removed keeps its record and the claim:
 * poststop (runtimes run it after a failed createRuntime too), or the next
 * start of the container, removes it. Returns @ret, or the address's
 * failure.
 */
static int undo(const struct ewoci_opts *o, const char *job, int ret)
{
	int err = ewoci_jobaddr_down(o->state_dir, job);

	if (err) {
		ew_err("job %s: its address could not be removed: claim %s/%s kept for poststop",
			  job, o->state_dir, job);
		return err;
	}
	ewoci_claim_drop(o->state_dir, job);
	return ret;
}

int ewoci_create(const struct ewoci_opts *o)
{
	struct ew_strv words = { 0 }, args = { 0 };
	struct ewoci_jobaddr ja = { 0 };
	char job[64], cg[PATH_MAX], owner[1100] = "";
	struct ewoci_state st;
	int ret, status, err;
	size_t i;

	ret = ewoci_state_read(stdin, &st);
	if (ret)
		return ret;
	/* No annotation: no job. The container is then refused RDMA by default-deny. */
	if (!st.template)
		goto out;
	if (st.pid <= 0) {
		ew_err("container %s: the state has no pid (is this hook run at createRuntime?)", st.id);
		ret = EWOCI_BAD_STATE;
		goto out;
	}
	ret = ewoci_template_load_addr(o->templates, st.template, &words, &ja);
	if (ret)
		goto out;
	ret = ewoci_cgroup_of_pid(st.pid, cg, sizeof(cg));
	if (!ret)
		ret = ewoci_cgroup_check_fresh(cg, st.pid);
	if (ret)
		goto out;

	ewoci_job_name(st.id, job, sizeof(job));
	ew_strv_add(&args, "job");
	ew_strv_add(&args, "add");
	ew_strv_add(&args, job);
	ew_strv_add(&args, "cgroup");
	ew_strv_add(&args, cg);
	for (i = 0; i < words.n; i++)
		ew_strv_add(&args, words.v[i]);

	err = ewoci_claim_take(o->state_dir, job, st.id, owner, sizeof(owner));
	if (err == -EEXIST && !strcmp(owner, st.id)) {
		/*
		 * This very container's: left by a poststop that could not
		 * finish (runtimes start a stopped container again under its
		 * id). Finish it first.
		 */
		ew_warn("job %s: removing what an earlier start of container %s left", job, st.id);
		ret = ewoci_teardown(o, job, st.id);
		if (ret) {
			ew_err("container %s not started", st.id);
			goto out;
		}
		err = ewoci_claim_take(o->state_dir, job, st.id, owner, sizeof(owner));
	}
	if (err) {
		ret = claim_error(o, job, st.id, err, owner);
		goto out;
	}
	/* The container's own address, before the job that is bound to it. */
	if (ja.set) {
		ret = ewoci_jobaddr_up(&ja, o->state_dir, job, st.id);
		if (ret) {
			ew_err("container %s not started", st.id);
			ret = undo(o, job, ret);
			goto out;
		}
	}
	status = ewoci_ctl_run(args.v, NULL);
	if (status) {
		ew_err("eastwestctl job add %s (template %s, cgroup %s) failed: exit %d, %s: container %s not started",
			  job, st.template, cg, status, ewoci_ctl_meaning(status), st.id);
		/*
		 * Killed, eastwestctl may have left the job made with part of
		 * its peers (it removes it itself only when it runs to the
		 * end): remove it as poststop would. Otherwise there is none.
		 */
		if (status > 128)
			ret = ewoci_teardown(o, job, st.id);
		else
			ret = undo(o, job, EWOCI_OK);
		if (!ret)
			ret = EWOCI_CTL;
	}
out:
	ew_strv_free(&words);
	ew_strv_free(&args);
	ewoci_state_free(&st);
	return ret;
}

/* "check NAME": what createRuntime would run for template NAME. */
int ewoci_check(const struct ewoci_opts *o, const char *name)
{
	struct ew_strv words = { 0 };
	int ret;
	size_t i;

	struct ewoci_jobaddr ja = { 0 };
	char text[INET6_ADDRSTRLEN];

	ret = ewoci_template_load_addr(o->templates, name, &words, &ja);
	if (!ret) {
		if (ja.set) {
			inet_ntop(AF_INET6, &ja.prefix, text, sizeof(text));
			printf("ip -6 addr add %s/%u+ID48 dev %s nodad\n", text, ja.len, ja.netdev);
		}
		printf("eastwestctl job add %sID cgroup CGROUP", EWOCI_JOB_PREFIX);
		for (i = 0; i < words.n; i++)
			printf(" %s", words.v[i]);
		printf("\n");
	}
	ew_strv_free(&words);
	return ret;
}
