// SPDX-License-Identifier: GPL-2.0
/*
 * Policy files (Documentation/policy.schema.json):
 *
 *   { "config": { "mode": "enforce", "default_action": "deny" },
 *     "jobs": [ { "id": 1, "name": "a", "mode": "enforce", "encrypt": "none",
 *                 "qkey": 0, "ud": false, "dc": false, "psn": "app",
 *                 "cgroups": ["/x"], "peers": ["192.0.2.2/32"],
 *                 "netdevs": [{"ifname": "eth0"}, {"vlan": 100}],
 *                 "pkeys": ["0x8001"] } ] }
 *
 * A missing "config" or "jobs" leaves that part of the node alone; a
 * missing key inside "config" leaves that setting alone; a missing key
 * inside a job has its default (the file describes the whole job).
 * Read-only keys that "show -j" prints (version, job_count, peer_count,
 * qp_count) are accepted and ignored, so its output is valid input.
 *
 * ew_policy_parse() checks the document's structure and values and reports
 * the first error with its JSON path ("jobs[2].peers[5]: bad address
 * \"10.0.0.300\""), or json-c's error with line and column. It touches
 * nothing outside the text (no file system, no interfaces), which is what
 * the fuzzer runs. ew_policy_resolve() then checks cgroups and interface
 * names against this host.
 */
#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ewctl.h"
#include "io/cgroup.h"
#include "io/json_err.h"
#include "io/keys.h"
#include "model/jobspec.h"
#include "model/parse.h"
#include "model/policy_file.h"

#define PATH_LEN 160

static void mkpath(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* A JSON path; a long key is cut (the path only goes into messages). */
static void mkpath(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

static int get_uint(struct ew_json_err *c, const char *path, struct json_object *v,
		    uint32_t min, uint32_t max, uint32_t *out)
{
	int64_t x;

	if (ew_json_want(c, path, v, json_type_int, "an integer"))
		return -EINVAL;
	x = json_object_get_int64(v);
	/* json-c saturates what does not fit 64 bits: do not print that. */
	if (x == INT64_MAX || json_object_get_uint64(v) == UINT64_MAX)
		return ew_json_fail(c, path, "the number is out of range (%u..%u)", min, max);
	if (x < (int64_t)min || x > (int64_t)max)
		return ew_json_fail(c, path, "%s is out of range (%u..%u)",
				    json_object_to_json_string(v), min, max);
	*out = (uint32_t)x;
	return 0;
}

static int get_enum(struct ew_json_err *c, const char *path, struct json_object *v,
		    const struct ew_names *names, uint32_t *out)
{
	char list[128];
	const char *s;

	if (ew_json_string(c, path, v, "a string", &s))
		return -EINVAL;
	if (ew_enum_parse(names, s, out))
		return ew_json_fail(c, path, "\"%s\" is not one of %s", s,
				    ew_enum_list(names, list, sizeof(list)));
	return 0;
}

static int get_bool(struct ew_json_err *c, const char *path, struct json_object *v,
		    bool *out)
{
	if (ew_json_want(c, path, v, json_type_boolean, "true or false"))
		return -EINVAL;
	*out = json_object_get_boolean(v);
	return 0;
}

static int get_array(struct ew_json_err *c, const char *path, struct json_object *v,
		     size_t *n)
{
	if (ew_json_want(c, path, v, json_type_array, "an array"))
		return -EINVAL;
	*n = json_object_array_length(v);
	return 0;
}

static int parse_config(struct ew_json_err *c, struct json_object *obj, struct ew_config *cfg)
{
	uint32_t ignored;
	const char *s;

	if (ew_json_want(c, "config", obj, json_type_object, "an object"))
		return -EINVAL;
	json_object_object_foreach(obj, key, v) {
		char path[PATH_LEN];
		int ret;

		mkpath(path, sizeof(path), "config.%s", key);
		if (!strcmp(key, "mode")) {
			ret = get_enum(c, path, v, &ew_mode_names, &cfg->mode);
			cfg->present |= EW_CFG_MODE;
		} else if (!strcmp(key, "default_action")) {
			ret = get_enum(c, path, v, &ew_default_action_names, &cfg->default_action);
			cfg->present |= EW_CFG_DEFAULT;
		} else if (!strcmp(key, "version")) {
			ret = ew_json_string(c, path, v, "a string", &s);
		} else if (!strcmp(key, "job_count") || !strcmp(key, "peer_count")) {
			ret = get_uint(c, path, v, 0, UINT32_MAX, &ignored);
		} else {
			ret = ew_json_fail(c, "config", "unknown key \"%s\"", key);
		}
		if (ret)
			return ret;
	}
	return 0;
}

static int parse_netdev(struct ew_json_err *c, const char *path, struct json_object *obj,
			struct ew_job_desc *job)
{
	uint32_t kind = 0, value = 0;
	const char *name = NULL;
	int n = 0;

	if (ew_json_want(c, path, obj, json_type_object, "an object"))
		return -EINVAL;
	json_object_object_foreach(obj, key, v) {
		char sub[PATH_LEN];

		mkpath(sub, sizeof(sub), "%s.%s", path, key);
		if (!strcmp(key, "ifname")) {
			if (ew_json_string(c, sub, v, "a string", &name))
				return -EINVAL;
			kind = EW_NETDEV_IFINDEX;
		} else if (!strcmp(key, "ifindex")) {
			if (get_uint(c, sub, v, 1, UINT32_MAX, &value))
				return -EINVAL;
			kind = EW_NETDEV_IFINDEX;
		} else if (!strcmp(key, "vlan")) {
			if (get_uint(c, sub, v, EW_VLAN_MIN, EW_VLAN_MAX, &value))
				return -EINVAL;
			kind = EW_NETDEV_VLAN;
		} else if (!strcmp(key, "vrf")) {
			if (json_object_is_type(v, json_type_string)) {
				if (ew_json_string(c, sub, v, "a string", &name))
					return -EINVAL;
			} else if (!json_object_is_type(v, json_type_int)) {
				return ew_json_fail(c, sub, "expected a string (VRF name) or an integer (ifindex), got %s",
						    ew_json_type_name(v));
			} else if (get_uint(c, sub, v, 1, UINT32_MAX, &value)) {
				return -EINVAL;
			}
			kind = EW_NETDEV_VRF;
		} else {
			return ew_json_fail(c, path, "unknown key \"%s\"", key);
		}
		n++;
	}
	if (n != 1)
		return ew_json_fail(c, path, "expected exactly one of \"ifname\", \"ifindex\", \"vlan\", \"vrf\"");
	if (name && (!*name || strlen(name) >= IF_NAMESIZE))
		return ew_json_fail(c, path, "bad interface name \"%s\"", name);
	ew_job_add_netdev(job, kind, value, name);
	return 0;
}

static int parse_list(struct ew_json_err *c, const char *path, struct json_object *arr,
		      struct ew_job_desc *job, const char *what)
{
	bool peers = !strcmp(what, "peers");
	const char *why, *s;
	size_t i, n;

	if (get_array(c, path, arr, &n))
		return -EINVAL;
	/* Room for all of them at once, not a doubling every few thousand. */
	if (peers && n > job->peers.cap - job->peers.n) {
		job->peers.cap = job->peers.n + n;
		job->peers.v = ew_reallocarray(job->peers.v, job->peers.cap,
					       sizeof(*job->peers.v));
	}
	for (i = 0; i < n; i++) {
		struct json_object *v = json_object_array_get_idx(arr, i);
		char sub[PATH_LEN];
		struct ew_peer_addr p;
		uint16_t pkey;
		uint32_t x;

		/*
		 * Peers come first and format their path only for an error
		 * message: a large policy has a million of them, and the
		 * formatting cost more than the parse.
		 */
		if (peers && json_object_is_type(v, json_type_string)) {
			s = json_object_get_string(v);
			if (strlen(s) != (size_t)json_object_get_string_len(v) ||
			    ew_peer_parse(s, &p, &why)) {
				mkpath(sub, sizeof(sub), "%s[%zu]", path, i);
				if (ew_json_string(c, sub, v, "a string", &s))
					return -EINVAL;
				return ew_json_fail(c, sub, "bad address \"%s\"%s%s", s,
						    why ? ": " : "", why ? why : "");
			}
			ew_peers_add(&job->peers, &p);
			continue;
		}
		mkpath(sub, sizeof(sub), "%s[%zu]", path, i);
		if (!strcmp(what, "netdevs")) {
			if (parse_netdev(c, sub, v, job))
				return -EINVAL;
			continue;
		}
		if (!strcmp(what, "pkeys") && json_object_is_type(v, json_type_int)) {
			if (get_uint(c, sub, v, 0, 0xffff, &x))
				return -EINVAL;
			if (!ew_pkey_valid(x))
				return ew_json_fail(c, sub, "bad pkey %u: partition 0 is invalid", x);
			ew_job_add_pkey(job, (uint16_t)x);
			continue;
		}
		if (ew_json_string(c, sub, v,
				   !strcmp(what, "pkeys") ? "a string or an integer" : "a string",
				   &s))
			return -EINVAL;
		if (!strcmp(what, "pkeys")) {
			if (ew_parse_pkey(s, &pkey, &why))
				return ew_json_fail(c, sub, "bad pkey \"%s\": %s", s, why);
			ew_job_add_pkey(job, pkey);
		} else {
			if (!*s || strlen(s) > EW_CGROUP_PATH_MAX)
				return ew_json_fail(c, sub, "bad cgroup path");
			ew_job_add_cgroup(job, s, 0);
		}
	}
	return 0;
}

static int parse_job(struct ew_json_err *c, const char *path, struct json_object *obj,
		     struct ew_job_desc *job)
{
	const char *why, *s;
	uint32_t ignored;

	if (ew_json_want(c, path, obj, json_type_object, "an object"))
		return -EINVAL;
	json_object_object_foreach(obj, key, v) {
		char sub[PATH_LEN];
		int ret = 0;

		mkpath(sub, sizeof(sub), "%s.%s", path, key);
		if (!strcmp(key, "id")) {
			ret = get_uint(c, sub, v, 1, UINT32_MAX, &job->id);
			job->present |= EW_JOB_ID;
		} else if (!strcmp(key, "name")) {
			ret = ew_json_string(c, sub, v, "a string", &s);
			if (!ret && ew_name_check(s, &why))
				ret = ew_json_fail(c, sub, "bad job name \"%s\": %s", s, why);
			if (!ret)
				strcpy(job->name, s);
			job->present |= EW_JOB_NAME;
		} else if (!strcmp(key, "mode")) {
			ret = get_enum(c, sub, v, &ew_mode_names, &job->mode);
			job->present |= EW_JOB_MODE;
		} else if (!strcmp(key, "encrypt")) {
			ret = get_enum(c, sub, v, &ew_encrypt_names, &job->encrypt);
			job->present |= EW_JOB_ENCRYPT;
		} else if (!strcmp(key, "qkey")) {
			if (json_object_is_type(v, json_type_string)) {
				ret = ew_json_string(c, sub, v, "a string", &s);
				if (!ret && !strcmp(s, "auto")) {
					job->qkey_auto = true;
					job->qkey = ew_random_qkey();
				} else if (!ret && ew_parse_qkey(s, &job->qkey, &why)) {
					ret = ew_json_fail(c, sub, "bad qkey \"%s\": %s", s, why);
				}
			} else if (json_object_is_type(v, json_type_int) &&
				   json_object_get_int64(v) > EW_QKEY_MAX &&
				   json_object_get_int64(v) <= UINT32_MAX) {
				ret = ew_json_fail(c, sub, "Q_Keys with bit 31 set are privileged and refused");
			} else {
				ret = get_uint(c, sub, v, 0, EW_QKEY_MAX, &job->qkey);
			}
			job->present |= EW_JOB_QKEY;
		} else if (!strcmp(key, "ud")) {
			ret = get_bool(c, sub, v, &job->ud);
			job->present |= EW_JOB_UD;
		} else if (!strcmp(key, "dc")) {
			ret = get_bool(c, sub, v, &job->dc);
			job->present |= EW_JOB_DC;
		} else if (!strcmp(key, "psn")) {
			ret = get_enum(c, sub, v, &ew_psn_names, &job->psn);
			job->present |= EW_JOB_PSN;
		} else if (!strcmp(key, "psn_key")) {
			ret = ew_json_string(c, sub, v, "a string", &s);
			if (!ret && (job->present & EW_JOB_PSN_KEY))
				ret = ew_json_fail(c, sub, "psn_key and psn_keyfile: one or the other");
			if (!ret && ew_parse_hex(s, job->psn_key, sizeof(job->psn_key)))
				ret = ew_json_fail(c, sub, "expected %zu hex digits",
						   2 * sizeof(job->psn_key));
			job->present |= EW_JOB_PSN_KEY;
		} else if (!strcmp(key, "psn_keyfile")) {
			ret = ew_json_string(c, sub, v, "a string", &s);
			if (!ret && (job->present & EW_JOB_PSN_KEY))
				ret = ew_json_fail(c, sub, "psn_key and psn_keyfile: one or the other");
			/* Read by ew_policy_resolve(): parsing touches no file. */
			if (!ret)
				job->psn_keyfile = ew_strdup(s);
			job->present |= EW_JOB_PSN_KEY;
		} else if (!strcmp(key, "psn_run")) {
			ret = ew_json_string(c, sub, v, "a string", &s);
			if (!ret && !ew_run_ok(s))
				ret = ew_json_fail(c, sub, "not a run of a job (1..%d of 0-9 A-Z a-z . _ : -)",
						   EW_RUN_MAX);
			if (!ret)
				strcpy(job->psn_run, s);
			job->present |= EW_JOB_PSN_RUN;
		} else if (!strcmp(key, "psn_key_check")) {
			/* Compared with the key the file gives, once it is known. */
			ret = get_uint(c, sub, v, 0, UINT32_MAX, &job->psn_key_check);
			job->present |= EW_JOB_PSN_KEY_CHECK;
		} else if (!strcmp(key, "cgroups") || !strcmp(key, "peers") ||
			   !strcmp(key, "netdevs") || !strcmp(key, "pkeys")) {
			ret = parse_list(c, sub, v, job, key);
		} else if (!strcmp(key, "peer_count") || !strcmp(key, "qp_count")) {
			ret = get_uint(c, sub, v, 0, UINT32_MAX, &ignored);
		} else {
			ret = ew_json_fail(c, path, "unknown key \"%s\"", key);
		}
		if (ret)
			return ret;
	}
	if (!(job->present & EW_JOB_NAME))
		return ew_json_fail(c, path, "missing \"name\"");
	/*
	 * The kernel refuses a key with application-chosen PSNs, the default
	 * of a job without "psn". Keyed PSNs without a key are left to the
	 * plan: a job the node already has keeps the key it holds ("show -j"
	 * never prints it).
	 */
	if ((job->present & EW_JOB_PSN_KEY) &&
	    (!(job->present & EW_JOB_PSN) || job->psn != EASTWEST_PSN_KEYED)) {
		char sub[PATH_LEN];

		mkpath(sub, sizeof(sub), "%s.%s", path,
		       job->psn_keyfile ? "psn_keyfile" : "psn_key");
		return ew_json_fail(c, sub, "a PSN key needs \"psn\": \"keyed\"");
	}
	/*
	 * A key derived from the cluster's key file is the key of one run; a
	 * run without psn_keyfile is the one the node's key was derived for
	 * ("show -j" prints it), with a key given by value it is refused: a
	 * restore would derive another key from the run.
	 */
	if ((job->present & EW_JOB_PSN_RUN) && (job->present & EW_JOB_PSN_KEY) &&
	    !job->psn_keyfile) {
		char sub[PATH_LEN];

		mkpath(sub, sizeof(sub), "%s.psn_run", path);
		return ew_json_fail(c, sub, "a run is for \"psn_keyfile\", which derives the job's PSN key for it, not for a \"psn_key\"");
	}
	if (job->psn_keyfile && !(job->present & EW_JOB_PSN_RUN)) {
		char sub[PATH_LEN];

		mkpath(sub, sizeof(sub), "%s.psn_keyfile", path);
		return ew_json_fail(c, sub, "needs \"psn_run\": which run of the job (the same on every node); a key of the name alone comes back with the name");
	}
	job->present |= EW_JOB_PEERS;
	ew_job_fill_defaults(job);
	return 0;
}

/**
 * ew_policy_parse_job() - parse and check one job object of a policy
 * @obj: the job's JSON object
 * @path: its JSON path in messages ("jobs[2]", or a name of the caller's)
 * @job: ew_job_init()ed by the caller, filled (ew_job_free() it either way)
 * @err: the message on error, "PATH.KEY: what is wrong"
 * @errlen: size of @err
 *
 * What ew_policy_parse() does for each element of "jobs", for a caller that
 * holds one job of its own (the OCI hook's templates).
 *
 * Return: 0 or -EINVAL.
 */
int ew_policy_parse_job(struct json_object *obj, const char *path, struct ew_job_desc *job,
			char *err, size_t errlen)
{
	struct ew_json_err c = { .fname = NULL, .err = err, .errlen = errlen };

	err[0] = '\0';
	return parse_job(&c, path, obj, job);
}

/*
 * Duplicates among thousands of jobs are found by sorting keys (name or
 * cgroup path, then job index) rather than comparing every pair: a 10k-job
 * policy would otherwise cost 50M comparisons. Each finder reports the pair
 * a pairwise scan in file order would: the smallest later index, with the
 * first earlier one.
 */
struct dup_key {
	const char *str;
	uint32_t id;
	size_t job;
	size_t item;
};

static int dup_key_cmp_str(const void *a, const void *b)
{
	const struct dup_key *x = a, *y = b;
	int r = strcmp(x->str, y->str);

	if (r)
		return r;
	if (x->job != y->job)
		return x->job < y->job ? -1 : 1;
	return (x->item > y->item) - (x->item < y->item);
}

static int dup_key_cmp_id(const void *a, const void *b)
{
	const struct dup_key *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return (x->job > y->job) - (x->job < y->job);
}

/*
 * Sorted keys: in each run of equal keys, the first entry of another job
 * than the run's first is a duplicate. Returns the index of that entry with
 * the smallest (job, item), or n if none; *first gets the run's first.
 */
static size_t first_dup(const struct dup_key *keys, size_t n, bool by_id, size_t *first)
{
	size_t best = n, run = 0, i;

	for (i = 1; i <= n; i++) {
		bool same = i < n && (by_id ? keys[i].id == keys[run].id :
				      !strcmp(keys[i].str, keys[run].str));

		if (same) {
			if (keys[i].job != keys[run].job &&
			    (best == n || keys[i].job < keys[best].job ||
			     (keys[i].job == keys[best].job && keys[i].item < keys[best].item)) &&
			    (i == run + 1 || keys[i - 1].job == keys[run].job)) {
				best = i;
				*first = run;
			}
			continue;
		}
		run = i;
	}
	return best;
}

static bool first_duplicate_name(const struct ew_state *st, size_t *later, size_t *earlier)
{
	struct dup_key *keys = ew_calloc(st->n_jobs ? st->n_jobs : 1, sizeof(*keys));
	size_t i, first = 0, d;

	for (i = 0; i < st->n_jobs; i++)
		keys[i] = (struct dup_key){ .str = st->jobs[i].name, .job = i };
	qsort(keys, st->n_jobs, sizeof(*keys), dup_key_cmp_str);
	d = first_dup(keys, st->n_jobs, false, &first);
	if (d < st->n_jobs) {
		*later = keys[d].job;
		*earlier = keys[first].job;
	}
	free(keys);
	return d < st->n_jobs;
}

static bool first_duplicate_id(const struct ew_state *st, size_t *later, size_t *earlier)
{
	struct dup_key *keys = ew_calloc(st->n_jobs ? st->n_jobs : 1, sizeof(*keys));
	size_t i, n = 0, first = 0, d;
	bool found;

	for (i = 0; i < st->n_jobs; i++)
		if (st->jobs[i].present & EW_JOB_ID)
			keys[n++] = (struct dup_key){ .id = st->jobs[i].id, .job = i };
	qsort(keys, n, sizeof(*keys), dup_key_cmp_id);
	d = first_dup(keys, n, true, &first);
	found = d < n;
	if (found) {
		*later = keys[d].job;
		*earlier = keys[first].job;
	}
	free(keys);
	return found;
}

/* A cgroup bound to two jobs: *job and *item of the later binding. */
static bool first_shared_cgroup(const struct ew_state *st, size_t *job, size_t *item,
				size_t *other)
{
	struct dup_key *keys;
	size_t i, k, n = 0, first = 0, d;
	bool found;

	for (i = 0; i < st->n_jobs; i++)
		n += st->jobs[i].n_cgroups;
	keys = ew_calloc(n ? n : 1, sizeof(*keys));
	n = 0;
	for (i = 0; i < st->n_jobs; i++)
		for (k = 0; k < st->jobs[i].n_cgroups; k++)
			keys[n++] = (struct dup_key){ .str = st->jobs[i].cgroups[k].path,
						      .job = i, .item = k };
	qsort(keys, n, sizeof(*keys), dup_key_cmp_str);
	d = first_dup(keys, n, false, &first);
	found = d < n;
	if (found) {
		*job = keys[d].job;
		*item = keys[d].item;
		*other = keys[first].job;
	}
	free(keys);
	return found;
}

static int parse_jobs(struct ew_json_err *c, struct json_object *arr, struct ew_state *st)
{
	char path0[PATH_LEN];
	size_t i, k = 0, n;

	if (get_array(c, "jobs", arr, &n))
		return -EINVAL;
	for (i = 0; i < n; i++) {
		char path[PATH_LEN];
		struct ew_job_desc *job;

		mkpath(path, sizeof(path), "jobs[%zu]", i);
		job = ew_state_add_job(st);
		if (parse_job(c, path, json_object_array_get_idx(arr, i), job))
			return -EINVAL;
	}
	if (first_duplicate_name(st, &i, &k)) {
		mkpath(path0, sizeof(path0), "jobs[%zu]", i);
		return ew_json_fail(c, path0, "duplicate job name \"%s\" (also jobs[%zu])",
				    st->jobs[i].name, k);
	}
	if (first_duplicate_id(st, &i, &k)) {
		mkpath(path0, sizeof(path0), "jobs[%zu]", i);
		return ew_json_fail(c, path0, "duplicate job id %u (also jobs[%zu])",
				    st->jobs[i].id, k);
	}
	st->has_jobs = true;
	return 0;
}

/**
 * ew_policy_parse() - parse and check a policy document
 * @text: the JSON text (need not be NUL-terminated)
 * @len: its length
 * @fname: the file name, for messages
 * @st: the desired state (free with ew_state_free(), also on error)
 * @err: the message on error: "FILE:LINE:COL: ..." or "FILE: PATH: ..."
 * @errlen: size of @err
 *
 * Return: 0 or -EINVAL.
 */
int ew_policy_parse(const char *text, size_t len, const char *fname,
		    struct ew_state *st, char *err, size_t errlen)
{
	struct ew_json_err c = { .fname = fname, .err = err, .errlen = errlen };
	struct json_object *root;
	const char *s;
	int ret = 0;

	memset(st, 0, sizeof(*st));
	err[0] = '\0';
	if (ew_json_parse_text(&c, text, len, &root))
		return -EINVAL;
	if (ew_json_want(&c, "", root, json_type_object, "an object at the top level")) {
		ret = -EINVAL;
		goto out;
	}
	json_object_object_foreach(root, key, v) {
		if (!strcmp(key, "$schema"))
			ret = ew_json_string(&c, "$schema", v, "a string", &s);
		else if (!strcmp(key, "config"))
			ret = parse_config(&c, v, &st->config);
		else if (!strcmp(key, "jobs"))
			ret = parse_jobs(&c, v, st);
		else
			ret = ew_json_fail(&c, "", "unknown key \"%s\"", key);
		if (ret)
			goto out;
		if (!strcmp(key, "config"))
			st->has_config = true;
	}
out:
	json_object_put(root);
	return ret;
}

/**
 * ew_job_resolve_netdevs() - interface names of a job's netdev rules to
 * ifindexes
 * @job: a parsed job; a rule given by index keeps it
 * @bad: the first rule whose name names no interface, on failure
 *
 * Return: 0, or -ENODEV.
 */
int ew_job_resolve_netdevs(struct ew_job_desc *job, size_t *bad)
{
	size_t k;

	for (k = 0; k < job->n_netdevs; k++) {
		struct ew_netdev *nd = &job->netdevs[k];

		if (!nd->name[0] || nd->value)
			continue;
		nd->value = if_nametoindex(nd->name);
		if (!nd->value) {
			*bad = k;
			return -ENODEV;
		}
	}
	return 0;
}

/*
 * Whether a job's psn_key_check is to be compared with the key the file
 * gives it (by value or derived from psn_keyfile). A check value without a
 * key in the file is the node's job's to keep, and not compared.
 */
static bool psn_key_checked(const struct ew_job_desc *job)
{
	return (job->present & EW_JOB_PSN_KEY_CHECK) &&
	       (job->present & EW_JOB_PSN_KEY);
}

/**
 * ew_policy_resolve() - check a parsed policy against this host
 * @st: the state from ew_policy_parse()
 * @fname: the file name, for messages
 * @err: the message on error
 * @errlen: size of @err
 *
 * Resolves cgroup paths (which must exist) to the form the kernel reports,
 * interface names to ifindexes, refuses a cgroup bound to two jobs, and
 * normalizes every job for the diff.
 *
 * Return: 0 or -EINVAL.
 */
int ew_policy_resolve(struct ew_state *st, const char *fname, char *err,
		      size_t errlen)
{
	struct ew_json_err c = { .fname = fname, .err = err, .errlen = errlen };
	char cg[EASTWEST_CGROUP_PATH_MAX], file[PATH_MAX];
	size_t i, k, j;
	const char *why;
	uint32_t check;

	for (i = 0; i < st->n_jobs; i++) {
		struct ew_job_desc *job = &st->jobs[i];
		char path[PATH_LEN];

		for (k = 0; k < job->n_cgroups; k++) {
			mkpath(path, sizeof(path), "jobs[%zu].cgroups[%zu]", i, k);
			if (ew_cgroup_resolve(job->cgroups[k].path, cg, sizeof(cg), &why))
				return ew_json_fail(&c, path, "cgroup \"%s\": %s",
						    job->cgroups[k].path, why);
			free(job->cgroups[k].path);
			job->cgroups[k].path = ew_strdup(cg);
		}
		file[0] = '\0';
		if (job->psn_keyfile) {
			char reason[128];

			snprintf(file, sizeof(file), "%s", job->psn_keyfile);
			mkpath(path, sizeof(path), "jobs[%zu].psn_keyfile", i);
			if (ew_job_derive_psn_key(job, job->name, reason, sizeof(reason)))
				return ew_json_fail(&c, path, "%s: %s", file, reason);
		}
		mkpath(path, sizeof(path), "jobs[%zu].psn_key_check", i);
		if (psn_key_checked(job) && ew_psn_key_check(job->psn_key, &check))
			return ew_json_fail(&c, path, "the key's check value could not be computed");
		if (psn_key_checked(job) && check != job->psn_key_check) {
			if (file[0])
				return ew_json_fail(&c, path, "0x%08x, but the key %s gives for run %s is 0x%08x's: the key file changed since, or the job's key came from another",
						    job->psn_key_check, file, job->psn_run, check);
			return ew_json_fail(&c, path, "0x%08x, but psn_key is 0x%08x's",
					    job->psn_key_check, check);
		}
		if (ew_job_resolve_netdevs(job, &k)) {
			mkpath(path, sizeof(path), "jobs[%zu].netdevs[%zu]", i, k);
			return ew_json_fail(&c, path, "no such network interface \"%s\"",
					    job->netdevs[k].name);
		}
	}
	/* Resolved paths: two spellings of one cgroup are the same binding. */
	if (first_shared_cgroup(st, &i, &k, &j)) {
		char path[PATH_LEN];

		mkpath(path, sizeof(path), "jobs[%zu].cgroups[%zu]", i, k);
		return ew_json_fail(&c, path, "cgroup %s is also bound to job \"%s\" (jobs[%zu])",
				    st->jobs[i].cgroups[k].path, st->jobs[j].name, j);
	}
	for (i = 0; i < st->n_jobs; i++)
		ew_job_normalize(&st->jobs[i]);
	return 0;
}
