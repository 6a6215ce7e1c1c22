// SPDX-License-Identifier: GPL-2.0
/*
 * The record of the transmit keys this node has sent with.
 *
 * Path keys are derived offline from the key file, the sender's SCI or
 * address pair and the epoch, and every SA starts at packet number 1. The
 * AES-GCM nonce is a function of that packet number (and of the SCI, or of
 * the SSCI and salt, or of the ESP sequence number where the NIC builds the
 * IV), so installing a transmit key a second time repeats (key, nonce)
 * pairs: that gives away the XOR of plaintexts and GHASH's key, hence
 * forgeries. Only the sender can prevent it, and it can do so alone: each
 * sender's nonce space is its own. So before a transmit SA is created its
 * key is recorded here, durably, and a key found here is never installed
 * again. Receive SAs are not recorded: receiving under an old key repeats
 * no nonce.
 *
 * A record is one file in STATE_DIR/tx-keys (0700; files 0600), named by
 * SHA-256("eastwest v1 tx key record" 0x00 || AES key). It depends on the
 * AES key alone, not on how it was derived (key file, SCI, addresses,
 * epoch, cipher): the same key under any nonce sequence starting at 1 is
 * the reuse to prevent, whichever path, link or epoch it comes from. The
 * key is 256 bits of HKDF output, so its hash tells nothing that helps find
 * it, and the label keeps the name apart from any other use of a hash of
 * that key. The file says when and for what the key was recorded, for the
 * operator's message; it holds no key, KI or salt.
 *
 * Creating the file with O_EXCL is the check and the record in one step, so
 * two commands racing for the same key cannot both win. The file and the
 * directory are fsync'ed before the caller goes on to create the SA: after
 * a crash either the record is there, or the SA never was. A record whose
 * SA was then never installed (a later step failed) only costs an epoch.
 * Any state that cannot be read or written is an error: the caller refuses.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "ewctl.h"
#include "io/txkeys.h"

static const char txkey_label[] = "eastwest v1 tx key record";

/* EASTWEST_STATE_DIR, or /var/lib/eastwest. */
const char *ew_state_dir(void)
{
	const char *e = getenv(EW_STATE_DIR_ENV);

	return e && *e ? e : EW_STATE_DIR_DEFAULT;
}

/**
 * ew_txkey_id() - the name under which a transmit key is recorded
 * @key: the AES key (MACsec SAK, ESP key without its salt)
 * @len: its length
 * @id: SHA-256(label 0x00 || key)
 *
 * Return: 0 or -EIO.
 */
int ew_txkey_id(const uint8_t *key, size_t len, uint8_t id[EW_TXKEY_ID_LEN])
{
	unsigned int n = 0;
	EVP_MD_CTX *ctx;
	int ok;

	ctx = EVP_MD_CTX_new();
	if (!ctx)
		return -EIO;
	ok = EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) &&
	     EVP_DigestUpdate(ctx, txkey_label, sizeof(txkey_label)) &&
	     EVP_DigestUpdate(ctx, key, len) &&
	     EVP_DigestFinal_ex(ctx, id, &n) && n == EW_TXKEY_ID_LEN;
	EVP_MD_CTX_free(ctx);
	return ok ? 0 : -EIO;
}

static void id_name(const uint8_t id[EW_TXKEY_ID_LEN], char name[2 * EW_TXKEY_ID_LEN + 1])
{
	size_t i;

	for (i = 0; i < EW_TXKEY_ID_LEN; i++)
		snprintf(name + 2 * i, 3, "%02x", id[i]);
}

/* Owned by us; @strict: no access for others at all, else none to write. */
static int dir_ok(int fd, const char *path, bool strict, char *why, size_t why_len)
{
	struct stat st;

	if (fstat(fd, &st)) {
		snprintf(why, why_len, "%s: %s", path, strerror(errno));
		return -errno;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(why, why_len, "%s: not a directory", path);
		return -ENOTDIR;
	}
	if (st.st_uid != geteuid()) {
		snprintf(why, why_len, "%s: owned by uid %u, not %u", path,
			 (unsigned int)st.st_uid, (unsigned int)geteuid());
		return -EPERM;
	}
	if (st.st_mode & (strict ? 077 : 022)) {
		snprintf(why, why_len, "%s: mode %04o lets others in (want %s)", path,
			 (unsigned int)(st.st_mode & 07777), strict ? "0700" : "no write for others");
		return -EPERM;
	}
	return 0;
}

/*
 * Opens STATE_DIR/tx-keys; with @create makes it (and STATE_DIR) first.
 * Without @create, a missing one is *dfd = -1: nothing recorded yet.
 */
static int open_txdir(bool create, int *dfd, char *why, size_t why_len)
{
	const char *base = ew_state_dir();
	char path[4096];
	bool made = false;
	int bfd, ret;

	*dfd = -1;
	if (base[0] != '/') {
		snprintf(why, why_len, "state directory %s: not an absolute path", base);
		return -EINVAL;
	}
	if (create && mkdir(base, 0700) && errno != EEXIST) {
		snprintf(why, why_len, "%s: %s", base, strerror(errno));
		return -errno;
	}
	bfd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (bfd < 0) {
		ret = -errno;
		if (!create && ret == -ENOENT)
			return 0;
		snprintf(why, why_len, "%s: %s", base, strerror(-ret));
		return ret;
	}
	ret = dir_ok(bfd, base, false, why, why_len);
	if (ret)
		goto out;
	snprintf(path, sizeof(path), "%s/%s", base, EW_TXKEY_SUBDIR);
	if (create) {
		if (!mkdirat(bfd, EW_TXKEY_SUBDIR, 0700))
			made = true;
		else if (errno != EEXIST) {
			ret = -errno;
			snprintf(why, why_len, "%s: %s", path, strerror(-ret));
			goto out;
		}
	}
	*dfd = openat(bfd, EW_TXKEY_SUBDIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (*dfd < 0) {
		ret = -errno;
		if (!create && ret == -ENOENT)
			ret = 0;
		else
			snprintf(why, why_len, "%s: %s", path, strerror(-ret));
		goto out;
	}
	ret = dir_ok(*dfd, path, true, why, why_len);
	/* A new directory's entry must be on disk before any record in it. */
	if (!ret && made && fsync(bfd)) {
		ret = -errno;
		snprintf(why, why_len, "%s: fsync: %s", base, strerror(-ret));
	}
	if (ret) {
		close(*dfd);
		*dfd = -1;
	}
out:
	close(bfd);
	return ret;
}

static void read_prev(int fd, struct ew_txkey_prev *prev)
{
	char buf[256];
	long long t = 0;
	ssize_t n;
	int off = 0;

	memset(prev, 0, sizeof(*prev));
	n = read(fd, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = 0;
	buf[strcspn(buf, "\n")] = 0;
	if (sscanf(buf, "%lld %n", &t, &off) == 1 && off > 0 && t > 0) {
		prev->since = (time_t)t;
		snprintf(prev->what, sizeof(prev->what), "%s", buf + off);
	} else {
		snprintf(prev->what, sizeof(prev->what), "no details recorded");
	}
}

/**
 * ew_txkey_seen() - was this transmit key recorded before?
 * @id: ew_txkey_id() of the key
 * @prev: when and what for, if it was
 * @why: the reason, on an error
 * @why_len: its size
 *
 * Return: 0 (no), 1 (yes: @prev), or -errno: the state cannot be read.
 */
int ew_txkey_seen(const uint8_t id[EW_TXKEY_ID_LEN], struct ew_txkey_prev *prev,
		  char *why, size_t why_len)
{
	char name[2 * EW_TXKEY_ID_LEN + 1];
	int dfd, fd, ret;

	ret = open_txdir(false, &dfd, why, why_len);
	if (ret || dfd < 0)
		return ret;
	id_name(id, name);
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		ret = errno == ENOENT ? 0 : -errno;
		if (ret)
			snprintf(why, why_len, "%s/%s/%s: %s", ew_state_dir(),
				 EW_TXKEY_SUBDIR, name, strerror(-ret));
	} else {
		read_prev(fd, prev);
		close(fd);
		ret = 1;
	}
	close(dfd);
	return ret;
}

/**
 * ew_txkey_record() - record a transmit key, durably, unless it was before
 * @id: ew_txkey_id() of the key
 * @what: what it is for, in the operator's words (no key material)
 * @prev: when and what for, if it was recorded before
 * @why: the reason, on an error
 * @why_len: its size
 *
 * Return: 0 (recorded: the caller may install it), -EEXIST (recorded
 * before: @prev; never install it), or another -errno: the state cannot
 * be written, so the caller must not install it either.
 */
int ew_txkey_record(const uint8_t id[EW_TXKEY_ID_LEN], const char *what,
		    struct ew_txkey_prev *prev, char *why, size_t why_len)
{
	char name[2 * EW_TXKEY_ID_LEN + 1], line[256];
	int dfd, fd, ret = 0, len;

	ret = open_txdir(true, &dfd, why, why_len);
	if (ret)
		return ret;
	id_name(id, name);
	fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		ret = -errno;
		if (ret == -EEXIST) {
			fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
			if (fd >= 0) {
				read_prev(fd, prev);
				close(fd);
			} else {
				memset(prev, 0, sizeof(*prev));
			}
		} else {
			snprintf(why, why_len, "%s/%s/%s: %s", ew_state_dir(),
				 EW_TXKEY_SUBDIR, name, strerror(-ret));
		}
		close(dfd);
		return ret;
	}
	/*
	 * From here on the name exists, so the key counts as used even if what
	 * follows fails: failing leaves a record without a key, never a key
	 * without a record.
	 */
	ew_changes++;
	len = snprintf(line, sizeof(line), "%lld %s\n", (long long)time(NULL), what);
	if (len < 0 || (size_t)len >= sizeof(line))
		len = (int)strlen(line);
	errno = 0;	/* a short write sets none */
	if (fchmod(fd, 0600) || write(fd, line, (size_t)len) != len || fsync(fd) ||
	    fsync(dfd)) {
		ret = errno ? -errno : -EIO;
		snprintf(why, why_len, "%s/%s/%s: %s", ew_state_dir(), EW_TXKEY_SUBDIR,
			 name, strerror(-ret));
	}
	if (close(fd) && !ret) {
		ret = -errno;
		snprintf(why, why_len, "%s/%s/%s: %s", ew_state_dir(), EW_TXKEY_SUBDIR,
			 name, strerror(-ret));
	}
	close(dfd);
	return ret;
}
