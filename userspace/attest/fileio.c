// SPDX-License-Identifier: GPL-2.0
/*
 * Whole-file reads and atomic writes. The verifier's state (last clock of
 * each AK, last manifest serial) must never be seen half written, or a
 * crash would reset the rollback checks.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ewa.h"

int ewa_read_file(const char *path, struct ewa_buf *b)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char chunk[65536];
	ssize_t n;

	b->len = 0;
	if (fd < 0)
		return -errno;
	for (;;) {
		n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (b->len + (size_t)n > EWA_FILE_MAX) {
			close(fd);
			return -EFBIG;
		}
		ewa_buf_add(b, chunk, (size_t)n);
	}
	if (n < 0) {
		n = -errno;
		close(fd);
		return (int)n;
	}
	close(fd);
	ewa_buf_add(b, "", 0);
	return 0;
}

int ewa_write_file(const char *path, const void *p, size_t n, unsigned int mode)
{
	char *tmp = ewa_asprintf("%s.tmpXXXXXX", path);
	const uint8_t *q = p;
	int fd, err = 0;

	fd = mkstemp(tmp);
	if (fd < 0) {
		err = -errno;
		free(tmp);
		return err;
	}
	while (n > 0) {
		ssize_t w = write(fd, q, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			err = -errno;
			break;
		}
		q += w;
		n -= (size_t)w;
	}
	if (!err && fchmod(fd, mode))
		err = -errno;
	if (!err && fsync(fd))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	free(tmp);
	return err;
}

void ewa_utc_now(char *out, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(out, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}
