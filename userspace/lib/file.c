// SPDX-License-Identifier: GPL-2.0
/*
 * Whole-file reads and atomic writes (see ewlib.h). State a crash must not
 * leave half written (the verifier's rollback clocks, keys, the metrics
 * file node_exporter reads) goes through ew_write_atomic().
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ewlib.h"

int ew_read_stream(FILE *f, size_t max, struct ew_buf *b)
{
	char chunk[65536];
	size_t n;

	b->len = 0;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		if (b->len + n > max)
			return -EFBIG;
		ew_buf_add(b, chunk, n);
	}
	if (ferror(f))
		return errno ? -errno : -EIO;
	ew_buf_add(b, "", 0);
	return 0;
}

int ew_read_path(const char *path, size_t max, struct ew_buf *b)
{
	FILE *f = fopen(path, "re");
	int ret;

	b->len = 0;
	if (!f)
		return -errno;
	errno = 0;
	ret = ew_read_stream(f, max, b);
	fclose(f);
	return ret;
}

int ew_write_atomic(const char *path, unsigned int mode, ew_fill_fn fill, const void *arg,
		    const char *who)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	int dirlen = slash ? (int)(slash - path) : 1;
	char *tmp;
	int fd, ret;
	FILE *f;

	tmp = ew_asprintf("%.*s/.%s.XXXXXX", dirlen, slash ? path : ".", base);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		if (who)
			ew_err("%s: cannot create %s: %s", who, tmp, strerror(-ret));
		free(tmp);
		return ret;
	}
	f = fchmod(fd, mode) ? NULL : fdopen(fd, "w");
	if (!f) {
		ret = -errno;
		if (who)
			ew_err("%s: %s: %s", who, tmp, strerror(-ret));
		close(fd);
		goto err;
	}
	errno = 0;
	if (fill(f, arg)) {
		fclose(f);
		ret = -EIO;
		goto err;
	}
	if (fflush(f) || ferror(f) || fsync(fileno(f))) {
		ret = errno ? -errno : -EIO;
		if (who)
			ew_err("%s: writing %s: %s", who, tmp, strerror(-ret));
		fclose(f);
		goto err;
	}
	if (fclose(f)) {
		ret = -errno;
		if (who)
			ew_err("%s: writing %s: %s", who, tmp, strerror(-ret));
		goto err;
	}
	if (rename(tmp, path)) {
		ret = -errno;
		if (who)
			ew_err("%s: renaming %s to %s: %s", who, tmp, path, strerror(-ret));
		goto err;
	}
	free(tmp);
	return 0;
err:
	unlink(tmp);
	free(tmp);
	return ret;
}

struct bytes {
	const void *p;
	size_t n;
};

static int put_bytes(FILE *f, const void *arg)
{
	const struct bytes *b = arg;

	/* A short write leaves the stream's error set, which the caller checks. */
	fwrite(b->p, 1, b->n, f);
	return 0;
}

int ew_write_file(const char *path, const void *p, size_t n, unsigned int mode)
{
	struct bytes b = { p, n };

	return ew_write_atomic(path, mode, put_bytes, &b, NULL);
}
