// SPDX-License-Identifier: GPL-2.0
/*
 * A container's own address: this node's prefix from the template (a /LEN
 * with LEN <= 80 whose low 48 bits are zero) and the 48 bits of the 12 hex
 * digits of its job name, added to the template's netdev with "ip" (the
 * hook talks to no kernel interface itself: eastwestctl and ip do). The
 * RDMA core then gives it GIDs on every RoCE port below that netdev; the
 * job's source-netdev rule is that netdev.
 *
 * Before adding it: the netdev must exist, an RDMA port must be on it or
 * below it, that port's GID table must have room for one entry per GID
 * type it has (RoCE v1 and v2 on mlx5, v2 only on rxe), and the address
 * must not be on the node already. The address
 * is recorded in STATE_DIR/JOB@addr before it is added, so that poststop,
 * or a failing createRuntime, removes exactly what was made. If "ip addr
 * add" fails, nothing was added (ip adds atomically): whatever address is
 * there then is another's, and only the record goes.
 *
 * EW_SYSFS (default /sys) is where sysfs is read and EW_GID_TIMEOUT how
 * long to wait for a GID, for the unit tests.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "addr.h"
#include "hook.h"

#define DEFAULT_PATH	"/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
#define ZERO_GID	"0000:0000:0000:0000:0000:0000:0000:0000"
#define MAX_PORTS	16

/* snprintf() into a path buffer; false if it did not fit. */
static bool __attribute__((format(printf, 3, 4)))
pathf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return n >= 0 && (size_t)n < len;
}

/* EW_GID_TIMEOUT (seconds) overrides EWOCI_GID_TIMEOUT, for the unit tests. */
static int gid_timeout(void)
{
	const char *s = getenv("EW_GID_TIMEOUT");

	return s && *s >= '0' && *s <= '9' ? atoi(s) : EWOCI_GID_TIMEOUT;
}

static const char *sysfs(void)
{
	const char *s = getenv("EW_SYSFS");

	return s && *s ? s : "/sys";
}

/**
 * ewoci_jobaddr_prefix() - parse a template's "prefix": "IPV6/LEN"
 * @text: the value
 * @ja: its prefix and len are set
 * @why: what is wrong, on failure
 * @whylen: size of @why
 *
 * Return: 0 or -EINVAL.
 */
int ewoci_jobaddr_prefix(const char *text, struct ewoci_jobaddr *ja,
			 char *why, size_t whylen)
{
	char buf[INET6_ADDRSTRLEN + 8], *slash, *end;
	unsigned long len;
	int i;

	if (strlen(text) >= sizeof(buf))
		return ew_bad(why, whylen, "\"jobaddr\".prefix must be IPV6/LEN");
	strcpy(buf, text);
	slash = strchr(buf, '/');
	if (!slash)
		return ew_bad(why, whylen, "\"jobaddr\".prefix must be IPV6/LEN");
	*slash = '\0';
	errno = 0;
	len = strtoul(slash + 1, &end, 10);
	if (inet_pton(AF_INET6, buf, &ja->prefix) != 1 || errno || *end ||
	    end == slash + 1 || len < 1 || len > 128 - EWOCI_ADDR_ID_BITS)
		return ew_bad(why, whylen, "\"jobaddr\".prefix must be IPV6/LEN with LEN 1..%d",
				 128 - EWOCI_ADDR_ID_BITS);
	for (i = 16 - EWOCI_ADDR_ID_BITS / 8; i < 16; i++)
		if (ja->prefix.s6_addr[i])
			return ew_bad(why, whylen, "\"jobaddr\".prefix: its low %d bits are the container's: they must be 0",
					 EWOCI_ADDR_ID_BITS);
	ja->len = (unsigned int)len;
	return 0;
}

/**
 * ewoci_jobaddr_of() - the container's address
 * @ja: the template's prefix
 * @id: the container id (its first 12 characters are the job name's)
 * @out: the address
 *
 * Only lower case: the job name (and so the claim, which serialises the
 * hooks of one name) is the id's characters as they are, and "AB" and
 * "ab" would give two names one address. Runtimes make lower-case ids.
 *
 * Return: 0, or -EINVAL if the id does not start with 12 lower-case hex
 * digits.
 */
int ewoci_jobaddr_of(const struct ewoci_jobaddr *ja, const char *id,
		     struct in6_addr *out)
{
	const size_t bytes = EWOCI_ADDR_ID_BITS / 8;
	size_t i, n;

	*out = ja->prefix;
	for (i = 0; i < 2 * bytes; i++)
		if (!((id[i] >= '0' && id[i] <= '9') || (id[i] >= 'a' && id[i] <= 'f')))
			return -EINVAL;
	if (ew_unhex_n(id, 2 * bytes, out->s6_addr + 16 - bytes, bytes, &n))
		return -EINVAL;
	return 0;
}

/* The address as sysfs writes a GID: eight groups of four hex digits. */
void ewoci_gid_text(const struct in6_addr *a, char *out, size_t len)
{
	const unsigned char *b = a->s6_addr;

	snprintf(out, len, "%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x",
		 b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9],
		 b[10], b[11], b[12], b[13], b[14], b[15]);
}

/* Run "ip ARGS..."; its output (stdout and stderr) in @out (NUL-terminated). */
static int run_ip(char *const args[], char *out, size_t outlen)
{
	struct ew_strv argv = { 0 };
	int fds[2], status;
	size_t n = 0;
	ssize_t r;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC)) {
		snprintf(out, outlen, "pipe: %s", strerror(errno));
		return -1;
	}
	/* Nothing buffered may be written twice: ew_err() in the child flushes stdout. */
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		snprintf(out, outlen, "fork: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (!pid) {
		size_t i;
		int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

		if (null_fd >= 0)
			dup2(null_fd, STDIN_FILENO);
		dup2(fds[1], STDOUT_FILENO);
		dup2(fds[1], STDERR_FILENO);
		ew_strv_add(&argv, "ip");
		for (i = 0; args[i]; i++)
			ew_strv_add(&argv, args[i]);
		if (!getenv("PATH") || !*getenv("PATH"))
			setenv("PATH", DEFAULT_PATH, 1);
		execvp("ip", argv.v);
		fprintf(stderr, "cannot run ip: %s", strerror(errno));
		_exit(127);
	}
	close(fds[1]);
	while (n + 1 < outlen) {
		r = read(fds[0], out + n, outlen - 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	out[n] = '\0';
	/* Drain what does not fit, so that ip never blocks on a full pipe. */
	{
		char sink[256];

		while ((r = read(fds[0], sink, sizeof(sink))) > 0 || (r < 0 && errno == EINTR))
			;
	}
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			return -1;
	}
	while (n && out[n - 1] == '\n')
		out[--n] = '\0';
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The netdev the node has @addr on ("" if none); status 0, or -1 if ip failed. */
static int addr_owner(const struct in6_addr *addr, char *owner, size_t len)
{
	char text[INET6_ADDRSTRLEN + 8], out[4096], dev[64];
	char *args[] = { "-o", "-6", "addr", "show", "to", text, NULL };

	inet_ntop(AF_INET6, addr, text, sizeof(text));
	strcat(text, "/128");
	owner[0] = '\0';
	if (run_ip(args, out, sizeof(out)))
		return -1;
	/* "5: eth0.100    inet6 fd00::1/64 scope global ..." */
	if (sscanf(out, "%*d: %63s", dev) == 1) {
		dev[strcspn(dev, "@")] = '\0';
		snprintf(owner, len, "%s", dev);
	}
	return 0;
}

static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	int ret = -1;

	buf[0] = '\0';
	if (!f)
		return -1;
	if (fgets(buf, (int)len, f)) {
		buf[strcspn(buf, "\n")] = '\0';
		ret = 0;
	}
	fclose(f);
	return ret;
}

/* Is @name @netdev or one of its lower devices (the parent of a VLAN)? */
static bool netdev_or_lower(const char *netdev, const char *name)
{
	char path[PATH_MAX];
	struct stat st;

	if (!strcmp(netdev, name))
		return true;
	return pathf(path, sizeof(path), "%s/class/net/%s/lower_%s", sysfs(), netdev, name) &&
	       !lstat(path, &st);
}

struct port {
	char path[PATH_MAX];	/* .../class/infiniband/DEV/ports/N */
	char name[128];		/* DEV/N */
};

/*
 * The RDMA ports whose GID table the address lands in: those with a GID on
 * @netdev or on a lower device of it (RoCE ports have their netdev's
 * link-local GIDs). Returns how many, up to MAX_PORTS.
 */
static int ports_of(const char *netdev, struct port *ports)
{
	char base[PATH_MAX], pdir[PATH_MAX], ndevs[PATH_MAX], file[PATH_MAX], val[64];
	struct dirent *d, *p, *g;
	DIR *dd, *pd, *gd;
	int n = 0;

	if (!pathf(base, sizeof(base), "%s/class/infiniband", sysfs()))
		return 0;
	dd = opendir(base);
	if (!dd)
		return 0;
	while ((d = readdir(dd)) && n < MAX_PORTS) {
		if (d->d_name[0] == '.')
			continue;
		if (!pathf(pdir, sizeof(pdir), "%s/%s/ports", base, d->d_name))
			continue;
		pd = opendir(pdir);
		if (!pd)
			continue;
		while ((p = readdir(pd)) && n < MAX_PORTS) {
			bool found = false;

			if (p->d_name[0] == '.')
				continue;
			if (!pathf(ndevs, sizeof(ndevs), "%s/%s/gid_attrs/ndevs", pdir, p->d_name))
				continue;
			gd = opendir(ndevs);
			if (!gd)
				continue;
			while (!found && (g = readdir(gd))) {
				if (g->d_name[0] == '.')
					continue;
				if (pathf(file, sizeof(file), "%s/%s", ndevs, g->d_name) &&
				    !read_line(file, val, sizeof(val)) && *val &&
				    netdev_or_lower(netdev, val))
					found = true;
			}
			closedir(gd);
			if (found &&
			    pathf(ports[n].path, sizeof(ports[n].path), "%s/%s", pdir, p->d_name) &&
			    pathf(ports[n].name, sizeof(ports[n].name), "%s/%s", d->d_name, p->d_name))
				n++;
		}
		closedir(pd);
	}
	closedir(dd);
	return n;
}

/*
 * Scan a port's GID table: @used and @size entries, @per the entries an
 * address takes (one per GID type in use: RoCE v1 and v2 on mlx5, v2 only
 * on rxe); and whether @gid is there with @netdev as its netdev (@gid
 * NULL: not looked for).
 */
static bool gid_scan(const struct port *pt, const char *gid, const char *netdev,
		     int *used, int *size, int *per)
{
	char dir[PATH_MAX], file[PATH_MAX], val[64], tval[32], types[4][32];
	bool found = false;
	struct dirent *e;
	int ntypes = 0, t;
	DIR *d;

	*used = 0;
	*size = 0;
	*per = 1;
	if (!pathf(dir, sizeof(dir), "%s/gids", pt->path))
		return false;
	d = opendir(dir);
	if (!d)
		return false;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		(*size)++;
		/* Empty entries read as the zero GID, or fail to read. */
		if (!pathf(file, sizeof(file), "%s/%s", dir, e->d_name) ||
		    read_line(file, val, sizeof(val)) || !strcmp(val, ZERO_GID))
			continue;
		(*used)++;
		if (pathf(file, sizeof(file), "%s/gid_attrs/types/%s", pt->path, e->d_name) &&
		    !read_line(file, tval, sizeof(tval)) && *tval) {
			for (t = 0; t < ntypes && strcmp(types[t], tval); t++)
				;
			if (t == ntypes && ntypes < 4)
				snprintf(types[ntypes++], sizeof(types[0]), "%s", tval);
		}
		if (gid && !strcmp(val, gid)) {
			if (pathf(file, sizeof(file), "%s/gid_attrs/ndevs/%s", pt->path, e->d_name) &&
			    !read_line(file, val, sizeof(val)) && !strcmp(val, netdev))
				found = true;
		}
	}
	closedir(d);
	if (ntypes)
		*per = ntypes;
	return found;
}

/* Wait until @gid is (@present) or is not in every port's table. */
static bool gid_wait(const struct port *ports, int n, const char *gid,
		     const char *netdev, bool present)
{
	const struct timespec tick = { 0, 200 * 1000 * 1000 };
	int i, tries, used, size, per;
	bool all;

	for (tries = 0; tries <= gid_timeout() * 5; tries++) {
		all = true;
		for (i = 0; i < n; i++)
			if (gid_scan(&ports[i], gid, netdev, &used, &size, &per) != present)
				all = false;
		if (all)
			return true;
		nanosleep(&tick, NULL);
	}
	return false;
}

static bool state_path(const char *state_dir, const char *job, char *path, size_t len)
{
	return pathf(path, len, "%s/%s" EWOCI_ADDR_SUFFIX, state_dir, job);
}

/*
 * Hooks before the '@' kept the record as STATE_DIR/JOB.addr, a name that
 * is also the claim of the container whose id is JOB's and ".addr". The
 * addresses they made are still found there, but only a file that reads
 * as a record ("NETDEV ADDR/LEN") is one: a claim holds an id, which has
 * no blank.
 */
static bool old_record(const char *state_dir, const char *job, char *path, size_t len)
{
	char line[256], netdev[32], text[INET6_ADDRSTRLEN + 8];
	struct stat st;

	return pathf(path, len, "%s/%s.addr", state_dir, job) &&
	       !lstat(path, &st) && S_ISREG(st.st_mode) &&
	       !read_line(path, line, sizeof(line)) &&
	       sscanf(line, "%31s %53s", netdev, text) == 2;
}

/* Remove the address of state file @path; 0 if it is gone. */
static int addr_remove(const char *path, const char *job)
{
	char line[256], netdev[32], text[INET6_ADDRSTRLEN + 8], owner[64], out[1024];
	char *args[] = { "-6", "addr", "del", text, "dev", netdev, NULL };
	struct port ports[MAX_PORTS];
	char gid[64], *slash;
	struct in6_addr a;
	int n;

	if (read_line(path, line, sizeof(line)) ||
	    sscanf(line, "%31s %53s", netdev, text) != 2 ||
	    !(slash = strchr(text, '/'))) {
		ew_err("job %s: unreadable address record %s", job, path);
		return EWOCI_ADDR;
	}
	*slash = '\0';
	if (inet_pton(AF_INET6, text, &a) != 1) {
		ew_err("job %s: bad address in %s", job, path);
		return EWOCI_ADDR;
	}
	*slash = '/';
	if (addr_owner(&a, owner, sizeof(owner))) {
		ew_err("job %s: ip cannot list the node's addresses", job);
		return EWOCI_ADDR;
	}
	if (!strcmp(owner, netdev)) {
		run_ip(args, out, sizeof(out));
		if (addr_owner(&a, owner, sizeof(owner)) || !strcmp(owner, netdev)) {
			ew_err("job %s: ip -6 addr del %s dev %s failed: %s", job, text, netdev, out);
			return EWOCI_ADDR;
		}
	}
	/* Its GIDs go shortly after; the module revokes the QPs that used them. */
	ewoci_gid_text(&a, gid, sizeof(gid));
	n = ports_of(netdev, ports);
	if (!gid_wait(ports, n, gid, netdev, false))
		ew_warn("job %s: the GID of %s is still there after %ds", job, text, gid_timeout());
	if (unlink(path) && errno != ENOENT) {
		ew_err("job %s: cannot remove %s: %s", job, path, strerror(errno));
		return EWOCI_ADDR;
	}
	return EWOCI_OK;
}

/**
 * ewoci_jobaddr_up() - give the container its address
 * @ja: the template's jobaddr
 * @state_dir: where the record goes (the claims' dir, already checked)
 * @job: the job name
 * @id: the container id
 *
 * Return: EWOCI_OK, or EWOCI_ADDR with the reason printed and nothing left
 * but, if the address could not be removed again, its record (for
 * ewoci_jobaddr_down()).
 */
int ewoci_jobaddr_up(const struct ewoci_jobaddr *ja, const char *state_dir,
		     const char *job, const char *id)
{
	char text[INET6_ADDRSTRLEN + 8], owner[64], out[1024], gid[64], path[PATH_MAX];
	char *args[] = { "-6", "addr", "add", text, "dev", (char *)ja->netdev, "nodad", NULL };
	struct port ports[MAX_PORTS];
	int i, n, used, size, per, fd;
	struct in6_addr a;
	struct stat st;
	FILE *f;

	if (ewoci_jobaddr_of(ja, id, &a)) {
		ew_err("container %s: the id does not start with %d lower-case hex digits: no address",
			  id, EWOCI_ID_CHARS);
		return EWOCI_ADDR;
	}
	inet_ntop(AF_INET6, &a, text, sizeof(text));
	ewoci_gid_text(&a, gid, sizeof(gid));
	if (!pathf(path, sizeof(path), "%s/class/net/%s", sysfs(), ja->netdev) || stat(path, &st)) {
		ew_err("job %s: the template's netdev %s (jobaddr) does not exist on this node",
			  job, ja->netdev);
		return EWOCI_ADDR;
	}
	n = ports_of(ja->netdev, ports);
	if (!n) {
		ew_err("job %s: no RDMA port has %s or a device below it: the address would have no GID",
			  job, ja->netdev);
		return EWOCI_ADDR;
	}
	/* The address takes one entry per GID type of each table. */
	for (i = 0; i < n; i++) {
		gid_scan(&ports[i], NULL, NULL, &used, &size, &per);
		if (size - used < per) {
			ew_err("job %s: the GID table of %s is full (%d of %d entries used, an address takes %d): no room for %s",
				  job, ports[i].name, used, size, per, text);
			return EWOCI_ADDR;
		}
	}
	if (addr_owner(&a, owner, sizeof(owner))) {
		ew_err("job %s: ip cannot list the node's addresses", job);
		return EWOCI_ADDR;
	}
	if (*owner) {
		ew_err("job %s: the container's address %s is already on %s of this node: not taking it",
			  job, text, owner);
		return EWOCI_ADDR;
	}

	/* The record first: whoever cleans up finds the address. */
	if (!state_path(state_dir, job, path, sizeof(path))) {
		ew_err("job %s: state dir path too long", job);
		return EWOCI_ADDR;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		ew_err("job %s: cannot create %s: %s", job, path, strerror(errno));
		return EWOCI_ADDR;
	}
	f = fdopen(fd, "w");
	if (!f || fprintf(f, "%s %s/%u\n", ja->netdev, text, ja->len) < 0 || fclose(f)) {
		if (!f)
			close(fd);
		unlink(path);
		ew_err("job %s: cannot write %s", job, path);
		return EWOCI_ADDR;
	}
	snprintf(text + strlen(text), sizeof(text) - strlen(text), "/%u", ja->len);
	if (run_ip(args, out, sizeof(out))) {
		/*
		 * Nothing was added: an address there now is another's (a
		 * hook of the same address that added it since the check).
		 * It stays; only the record goes.
		 */
		if (strstr(out, "File exists"))
			ew_err("job %s: %s was put on the node by someone else meanwhile: not taking it, and leaving it",
				  job, text);
		else
			ew_err("job %s: ip -6 addr add %s dev %s failed: %s", job, text, ja->netdev, out);
		if (unlink(path))
			ew_warn("job %s: cannot remove %s: %s", job, path, strerror(errno));
		return EWOCI_ADDR;
	}
	if (!gid_wait(ports, n, gid, ja->netdev, true)) {
		ew_err("job %s: the GID of %s did not appear within %ds (GID table full?)",
			  job, text, gid_timeout());
		addr_remove(path, job);
		return EWOCI_ADDR;
	}
	return EWOCI_OK;
}

/**
 * ewoci_jobaddr_down() - remove the address createRuntime gave job @job
 * @state_dir: the claims' dir
 * @job: the job name
 *
 * Return: EWOCI_OK (also when it had none), or EWOCI_ADDR with the reason
 * printed and the record kept for a retry.
 */
int ewoci_jobaddr_down(const char *state_dir, const char *job)
{
	char path[PATH_MAX];
	struct stat st;

	if (!state_path(state_dir, job, path, sizeof(path))) {
		ew_err("job %s: state dir path too long", job);
		return EWOCI_ADDR;
	}
	if (lstat(path, &st)) {
		if (old_record(state_dir, job, path, sizeof(path)))
			return addr_remove(path, job);
		return EWOCI_OK;
	}
	/*
	 * Empty: the hook was stopped between creating the record and writing
	 * it, so before the address was added (the record comes first).
	 */
	if (S_ISREG(st.st_mode) && !st.st_size) {
		if (unlink(path) && errno != ENOENT) {
			ew_err("job %s: cannot remove %s: %s", job, path, strerror(errno));
			return EWOCI_ADDR;
		}
		return EWOCI_OK;
	}
	return addr_remove(path, job);
}
