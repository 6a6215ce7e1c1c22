// SPDX-License-Identifier: GPL-2.0
/*
 * eastwestctl attest watch: periodic re-attestation, fail-closed.
 *
 *   attest watch [interval SEC] [timeout SEC] [rounds N] [apply kernel|none]
 *                [pcrs LIST] [tcti SPEC] [verifier COMMAND [ARG...]]
 *
 * Every round runs the verifier COMMAND (no shell; e.g. "ssh -T
 * attest@verifier" whose forced command is "eastwest-verifier serve node
 * NAME ..."), reads "nonce HEX" from it, quotes, writes the evidence to
 * its stdin, closes it and reads the verdict (one JSON line) from its
 * stdout. The node is admitted only if the command exits 0 AND says
 * "decision": "admit"; anything else revokes it: a deny, no answer within
 * the timeout, a command that cannot run, a TPM error or no TPM. The
 * verdict goes to the kernel (config-set admission) every round.
 *
 * Why a command of eastwest-attest and not a separate daemon: the TPM code
 * is already there, the kernel is one eastwestctl command away (kadmit.c),
 * and systemd supplies what a daemon would add (restart, logging, the
 * unit's sandbox). Defaults come from /etc/eastwest/attest.conf ($EW_ATTEST_CONF):
 * "interval = SEC", "timeout = SEC", "verifier = COMMAND ARG...".
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "../ewctl.h"
#include "attest.h"
#include "jsonfile.h"
#include "nodeside.h"
#include "tpm.h"

#define DEFAULT_INTERVAL	60
#define DEFAULT_TIMEOUT		30
#define MAX_ARGS		64
#define VERDICT_MAX		(1U << 20)

struct watch {
	uint64_t interval;
	uint64_t timeout;
	uint64_t rounds;		/* 0: until stopped */
	bool apply_kernel;
	struct ewa_quote_opts q;
	char *argv[MAX_ARGS + 1];	/* the verifier command */
	char *conf_line;		/* owns argv's strings when from attest.conf */
};

struct outcome {
	bool admitted;
	char *why;			/* "check: detail; ..." or what failed */
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static const char *conf_path(void)
{
	const char *p = getenv("EW_ATTEST_CONF");

	return p && *p ? p : EWA_CONF_FILE;
}

/* "KEY = VALUE" from attest.conf: the value's words, malloc'ed; NULL if none. */
static char *conf_get(const char *key)
{
	size_t klen = strlen(key);
	char line[1024], *val = NULL;
	FILE *f = fopen(conf_path(), "re");

	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f)) {
		char *p = line, *end;

		while (*p == ' ' || *p == '\t')
			p++;
		if (strncmp(p, key, klen) || (p[klen] != ' ' && p[klen] != '\t' && p[klen] != '='))
			continue;
		p += klen;
		while (*p == ' ' || *p == '\t' || *p == '=')
			p++;
		end = p + strcspn(p, "#\r\n");
		while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
			end--;
		*end = '\0';
		if (*p) {
			free(val);
			val = ew_strdup(p);
		}
	}
	fclose(f);
	return val;
}

static int parse_u64(const char *key, const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;

	errno = 0;
	*out = strtoull(s, &end, 10);
	if (s[0] < '0' || s[0] > '9' || *end || errno || *out < min || *out > max) {
		ew_err("attest watch: %s \"%s\": expected a number from %llu to %llu", key, s,
		       (unsigned long long)min, (unsigned long long)max);
		return EWA_USAGE;
	}
	return EWA_OK;
}

static int parse_watch(int argc, char *argv[], struct watch *w)
{
	const char *interval = NULL, *timeout = NULL, *rounds = NULL, *apply = NULL;
	const char *pcrs = NULL;
	char *conf;
	int i, n, ret;

	memset(w, 0, sizeof(*w));
	w->apply_kernel = true;
	for (i = 0; i < argc; i += 2) {
		const char **slot = NULL;

		if (!strcmp(argv[i], "verifier")) {
			if (i + 1 >= argc) {
				ew_err("attest watch: \"verifier\" needs a command");
				return EWA_USAGE;
			}
			for (n = 0, i++; i < argc && n < MAX_ARGS; i++)
				w->argv[n++] = argv[i];
			if (i < argc) {
				ew_err("attest watch: more than %d verifier arguments", MAX_ARGS);
				return EWA_USAGE;
			}
			break;
		}
		if (!strcmp(argv[i], "interval"))
			slot = &interval;
		else if (!strcmp(argv[i], "timeout"))
			slot = &timeout;
		else if (!strcmp(argv[i], "rounds"))
			slot = &rounds;
		else if (!strcmp(argv[i], "apply"))
			slot = &apply;
		else if (!strcmp(argv[i], "pcrs"))
			slot = &pcrs;
		else if (!strcmp(argv[i], "tcti"))
			slot = &w->q.tcti;
		if (!slot) {
			ew_err("attest watch: unknown keyword \"%s\" (try \"eastwestctl attest help\")",
			       argv[i]);
			return EWA_USAGE;
		}
		if (i + 1 >= argc) {
			ew_err("attest watch: \"%s\" needs an argument", argv[i]);
			return EWA_USAGE;
		}
		if (*slot) {
			ew_err("attest watch: \"%s\" is given twice", argv[i]);
			return EWA_USAGE;
		}
		*slot = argv[i + 1];
	}

	conf = interval ? NULL : conf_get("interval");
	ret = parse_u64("interval", interval ? interval : conf ? conf : "60", 1, 86400,
			&w->interval);
	free(conf);
	if (ret)
		return ret;
	conf = timeout ? NULL : conf_get("timeout");
	ret = parse_u64("timeout", timeout ? timeout : conf ? conf : "30", 1, 3600, &w->timeout);
	free(conf);
	if (ret)
		return ret;
	if (rounds && parse_u64("rounds", rounds, 1, UINT32_MAX, &w->rounds))
		return EWA_USAGE;
	if (apply && strcmp(apply, "kernel") && strcmp(apply, "none")) {
		ew_err("attest watch: apply \"%s\": expected kernel or none", apply);
		return EWA_USAGE;
	}
	w->apply_kernel = !apply || !strcmp(apply, "kernel");
	if (ewa_parse_pcr_list(pcrs ? pcrs : EWA_DEFAULT_PCRS, &w->q.pcrs)) {
		ew_err("attest watch: pcrs \"%s\": expected PCR[-PCR][,...]", pcrs);
		return EWA_USAGE;
	}
	if (!w->argv[0]) {
		char *save, *word;

		w->conf_line = conf_get("verifier");
		n = 0;
		for (word = w->conf_line ? strtok_r(w->conf_line, " \t", &save) : NULL;
		     word && n < MAX_ARGS; word = strtok_r(NULL, " \t", &save))
			w->argv[n++] = word;
		if (!n) {
			ew_err("attest watch: no verifier command (\"verifier COMMAND ...\", or "
			       "\"verifier = COMMAND ...\" in %s)", conf_path());
			return EWA_USAGE;
		}
	}
	return EWA_OK;
}

static void set_outcome(struct outcome *o, bool admitted, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_outcome(struct outcome *o, bool admitted, const char *fmt, ...)
{
	va_list ap;

	free(o->why);
	o->admitted = admitted;
	va_start(ap, fmt);
	if (vasprintf(&o->why, fmt, ap) < 0)
		o->why = NULL;
	va_end(ap);
}

static int ms_left(const struct timespec *deadline)
{
	struct timespec now;
	long long ms;

	clock_gettime(CLOCK_MONOTONIC, &now);
	ms = (long long)(deadline->tv_sec - now.tv_sec) * 1000 +
	     (deadline->tv_nsec - now.tv_nsec) / 1000000;
	return ms < 0 ? 0 : ms > 3600000 ? 3600000 : (int)ms;
}

/* 0 once @fd is ready for @events; -ETIMEDOUT at the deadline, or -errno. */
static int wait_ready(int fd, short events, const struct timespec *deadline)
{
	struct pollfd p = { .fd = fd, .events = events };
	int left, r;

	do {
		left = ms_left(deadline);
		if (left == 0)
			return -ETIMEDOUT;
		r = poll(&p, 1, left);
	} while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	return r ? 0 : -ETIMEDOUT;
}

/* Reads into @b until @stop_at_newline and a newline came, EOF, or the deadline. */
static int read_until(int fd, struct ew_buf *b, bool stop_at_newline,
		      const struct timespec *deadline)
{
	char chunk[4096];

	for (;;) {
		ssize_t n;
		int ret;

		if (stop_at_newline && b->len && memchr(b->data, '\n', b->len))
			return 0;
		ret = wait_ready(fd, POLLIN, deadline);
		if (ret)
			return ret;
		n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return stop_at_newline ? -EPIPE : 0;
		if (b->len + (size_t)n > VERDICT_MAX)
			return -EFBIG;
		ew_buf_add(b, chunk, (size_t)n);
	}
}

static int write_all(int fd, const char *p, size_t n, const struct timespec *deadline)
{
	while (n) {
		ssize_t w;
		int ret;

		ret = wait_ready(fd, POLLOUT, deadline);
		if (ret)
			return ret;
		w = write(fd, p, n);
		if (w < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (w < 0)
			return -errno;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static pid_t spawn(char *const argv[], int *to_child, int *from_child)
{
	int in[2], out[2];
	pid_t pid;

	if (pipe2(in, O_CLOEXEC))
		return -1;
	if (pipe2(out, O_CLOEXEC)) {
		close(in[0]);
		close(in[1]);
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		close(in[0]);
		close(in[1]);
		close(out[0]);
		close(out[1]);
		return -1;
	}
	if (pid == 0) {
		/* Its own process group: a timeout kills ssh and all it started. */
		setpgid(0, 0);
		signal(SIGPIPE, SIG_DFL);
		if (dup2(in[0], STDIN_FILENO) < 0 || dup2(out[1], STDOUT_FILENO) < 0)
			_exit(127);
		execvp(argv[0], argv);
		fprintf(stderr, "eastwestctl: attest watch: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid);
	close(in[0]);
	close(out[1]);
	*to_child = in[1];
	*from_child = out[0];
	fcntl(*to_child, F_SETFL, O_NONBLOCK);
	fcntl(*from_child, F_SETFL, O_NONBLOCK);
	return pid;
}

/* The child's exit status; after the deadline it is killed (-1). */
static int reap(pid_t pid, const struct timespec *deadline)
{
	int st;

	for (;;) {
		pid_t r = waitpid(pid, &st, WNOHANG);

		if (r == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		if (r < 0 && errno != EINTR)
			return -1;
		if (ms_left(deadline) == 0) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
				;
			return -1;
		}
		usleep(20000);
	}
}

/* The verdict's reasons as "check: detail; ...". */
static char *reasons_text(struct json_object *v)
{
	struct json_object *a, *r;
	struct ew_buf b = { 0 };
	size_t i;

	if (!json_object_object_get_ex(v, "reasons", &a) || !json_object_is_type(a, json_type_array))
		return ew_strdup("");
	for (i = 0; i < json_object_array_length(a); i++) {
		const char *check, *detail;

		r = json_object_array_get_idx(a, i);
		check = ewa_json_str(r, "check");
		detail = ewa_json_str(r, "detail");
		if (i)
			ew_buf_add(&b, "; ", 2);
		ew_buf_add(&b, check ? check : "?", strlen(check ? check : "?"));
		if (detail && *detail) {
			ew_buf_add(&b, ": ", 2);
			ew_buf_add(&b, detail, strlen(detail));
		}
	}
	ew_buf_add(&b, "", 1);
	return (char *)b.data;
}

static void one_round(const struct watch *w, struct outcome *o)
{
	struct ew_buf line = { 0 }, verdict = { 0 };
	struct ewa_evidence ev = { 0 };
	uint8_t nonce[EWA_NONCE_MAX];
	struct timespec deadline;
	struct json_object *v = NULL;
	int to = -1, from = -1, st, r, attempts;
	char why[512], *nl, *text = NULL, *last;
	const char *decision;
	size_t nonce_len;
	pid_t pid;

	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += (time_t)w->timeout;
	pid = spawn(w->argv, &to, &from);
	if (pid < 0) {
		set_outcome(o, false, "verifier: cannot start %s: %s", w->argv[0], strerror(errno));
		return;
	}
	r = read_until(from, &line, true, &deadline);
	if (r) {
		set_outcome(o, false, "verifier: no nonce from \"%s\": %s", w->argv[0],
			    r == -ETIMEDOUT ? "timed out" : r == -EPIPE ? "it closed its output" :
			    strerror(-r));
		goto out;
	}
	nl = memchr(line.data, '\n', line.len);
	*nl = '\0';
	if (strncmp((char *)line.data, "nonce ", 6) ||
	    ewa_parse_nonce((char *)line.data + 6, nonce, &nonce_len)) {
		set_outcome(o, false, "verifier: expected \"nonce HEX\", got \"%.80s\"",
			    (char *)line.data);
		goto out;
	}
	r = ewa_node_evidence(&w->q, nonce, nonce_len, &ev, &attempts, why, sizeof(why));
	if (r < 0) {
		set_outcome(o, false, "TPM error: %s", why);
		goto out;
	}
	/* No TPM: the verifier hears it too (it records the deny); closed either way. */
	text = ewa_evidence_text(&ev);
	r = write_all(to, text, strlen(text), &deadline);
	close(to);
	to = -1;
	if (r && r != -EPIPE) {
		set_outcome(o, false, "verifier: sending the evidence: %s",
			    r == -ETIMEDOUT ? "timed out" : strerror(-r));
		goto out;
	}
	r = read_until(from, &verdict, false, &deadline);
	if (r) {
		set_outcome(o, false, "verifier: no verdict: %s",
			    r == -ETIMEDOUT ? "timed out" : strerror(-r));
		goto out;
	}
	close(from);
	from = -1;
	st = reap(pid, &deadline);
	pid = -1;
	ew_buf_add(&verdict, "", 1);
	/* The last non-empty line is the verdict. */
	last = (char *)verdict.data;
	for (nl = last + strlen(last); nl > last && (nl[-1] == '\n' || nl[-1] == '\r');)
		*--nl = '\0';
	nl = strrchr(last, '\n');
	last = nl ? nl + 1 : last;
	v = ewa_json_parse(last, strlen(last), why, sizeof(why));
	decision = v ? ewa_json_str(v, "decision") : NULL;
	if (!decision) {
		set_outcome(o, false, "verifier: exit %d, no verdict in its answer (%.80s)", st,
			    last);
	} else {
		char *reasons = reasons_text(v);

		if (st == 0 && !strcmp(decision, "admit") && ev.tpm)
			set_outcome(o, true, "verifier admit");
		else if (!ev.tpm)
			set_outcome(o, false, "no TPM on node: %s", ev.no_tpm_reason);
		else
			set_outcome(o, false, "verifier %s (exit %d): %s", decision, st,
				    *reasons ? reasons : "no reason given");
		free(reasons);
	}
out:
	if (to >= 0)
		close(to);
	if (from >= 0)
		close(from);
	if (pid > 0) {
		clock_gettime(CLOCK_MONOTONIC, &deadline);	/* now: kill it */
		reap(pid, &deadline);
	}
	json_object_put(v);
	free(text);
	ewa_evidence_free(&ev);
	ew_buf_free(&line);
	ew_buf_free(&verdict);
}

static void report_round(uint64_t n, const struct outcome *o, bool applied, const char *apply_err)
{
	if (ew_opts.json) {
		struct json_object *j = json_object_new_object();

		json_object_object_add(j, "round", json_object_new_uint64(n));
		ewa_json_add_str(j, "admission", o->admitted ? "admitted" : "revoked");
		ewa_json_add_str(j, "why", o->why ? o->why : "");
		json_object_object_add(j, "applied", json_object_new_boolean(applied));
		if (apply_err)
			ewa_json_add_str(j, "apply_error", apply_err);
		puts(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN |
						    JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(j);
	} else {
		printf("round %llu: %s: %s%s%s\n", (unsigned long long)n,
		       o->admitted ? "admitted" : "revoked", o->why ? o->why : "",
		       apply_err ? "; NOT APPLIED: " : "", apply_err ? apply_err : "");
	}
	fflush(stdout);
}

int ewa_watch_main(int argc, char *argv[])
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct outcome o = { 0 };
	struct watch w;
	uint64_t n;
	int ret;

	ret = parse_watch(argc, argv, &w);
	if (ret) {
		free(w.conf_line);
		return ret;
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (!ew_opts.json)
		printf("attest watch: every %llu s, timeout %llu s, verifier %s, apply %s\n",
		       (unsigned long long)w.interval, (unsigned long long)w.timeout, w.argv[0],
		       w.apply_kernel ? "kernel" : "none");
	for (n = 1; !stop && (!w.rounds || n <= w.rounds); n++) {
		struct timespec start, now;
		char why[512];
		const char *apply_err = NULL;
		bool applied = false;

		clock_gettime(CLOCK_MONOTONIC, &start);
		one_round(&w, &o);
		if (w.apply_kernel) {
			/*
			 * The admission lasts until just after the next round
			 * should have renewed it: a watch that dies or hangs
			 * lets it lapse (fail-closed).
			 */
			uint32_t ttl = (uint32_t)(w.interval + w.timeout + 5);

			if (ewa_kernel_set_admission(o.admitted, ttl, why, sizeof(why)))
				apply_err = why;
			else
				applied = true;
		}
		report_round(n, &o, applied, apply_err);
		if (w.rounds && n == w.rounds)
			break;
		/* Start to start: a slow round does not stretch the interval. */
		for (;;) {
			clock_gettime(CLOCK_MONOTONIC, &now);
			if (stop || now.tv_sec - start.tv_sec >= (time_t)w.interval)
				break;
			usleep(100000);
		}
	}
	ret = o.admitted ? EWA_OK : EWA_FAIL;
	if (stop)
		ret = EWA_OK;	/* stopped: the last verdict stays in force */
	free(o.why);
	free(w.conf_line);
	return ret;
}
