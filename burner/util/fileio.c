/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fileio.c — whole-file reads and hashes, atomic replacement. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/fileio.h"

int file_read(const char *path, size_t max, uint8_t **buf, size_t *len, struct cx_status *st)
{
	struct stat sb;
	int fd = open(path, O_RDONLY);

	*buf = NULL;
	*len = 0;
	if (fd < 0)
		return cx_fail(st, CX_EIO, "cannot open %s: %s", path, strerror(errno));
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
		close(fd);
		return cx_fail(st, CX_EIO, "%s is not a regular file", path);
	}
	if ((uint64_t)sb.st_size > max) {
		close(fd);
		return cx_fail(st, CX_EIO, "%s is %lld bytes: larger than any flash (%zu bytes)", path,
			       (long long)sb.st_size, max);
	}
	size_t n = (size_t)sb.st_size;
	uint8_t *p = malloc(n ? n : 1);
	if (!p) {
		close(fd);
		return cx_fail(st, CX_ENOMEM, "out of memory reading %s", path);
	}
	size_t got = 0;
	while (got < n) {
		ssize_t r = read(fd, p + got, n - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			int e = r < 0 ? errno : EIO;
			free(p);
			close(fd);
			return cx_fail(st, CX_EIO, "cannot read %s: %s", path, strerror(e));
		}
		got += (size_t)r;
	}
	close(fd);
	*buf = p;
	*len = n;
	return CX_OK;
}

#define HASH_PIECE (64u << 10) /* bytes hashed per read() */

int file_sha256(const char *path, uint8_t digest[SHA256_LEN], uint64_t *size, struct cx_status *st)
{
	struct sha256 s;
	struct stat sb;
	uint8_t *buf;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return cx_fail(st, CX_EIO, "cannot open %s: %s", path, strerror(errno));
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
		close(fd);
		return cx_fail(st, CX_EIO, "%s is not a regular file", path);
	}
	if (!(buf = malloc(HASH_PIECE))) {
		close(fd);
		return cx_fail(st, CX_ENOMEM, "out of memory");
	}
	sha256_init(&s);
	*size = 0;
	for (;;) {
		ssize_t r = read(fd, buf, HASH_PIECE);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			free(buf);
			close(fd);
			return cx_fail(st, CX_EIO, "cannot read %s: %s", path, strerror(e));
		}
		if (r == 0)
			break;
		sha256_update(&s, buf, (size_t)r);
		*size += (uint64_t)r;
	}
	sha256_final(&s, digest);
	free(buf);
	close(fd);
	return CX_OK;
}

int path_join(char *out, size_t n, const char *dir, const char *name, struct cx_status *st)
{
	if ((size_t)snprintf(out, n, "%s/%s", dir, name) >= n)
		return cx_fail(st, CX_EIO, "path too long: %s/%s", dir, name);
	return CX_OK;
}

int fd_write_all(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t w = write(fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (w == 0)
				errno = EIO;
			return -1;
		}
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

int dir_sync(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	int rc = fsync(fd) && errno != EINVAL && errno != ENOTSUP ? -1 : 0;
	int e = errno;
	close(fd);
	errno = e;
	return rc;
}

int file_replace(const char *path, const uint8_t *buf, size_t len, struct cx_status *st)
{
	char tmp[4096];
	struct stat sb;
	mode_t mode = 0644;

	if (stat(path, &sb) == 0)
		mode = sb.st_mode & 07777;
	if (snprintf(tmp, sizeof(tmp), "%s.cxflash-new", path) >= (int)sizeof(tmp))
		return cx_fail(st, CX_EIO, "path too long: %s", path);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, mode);
	if (fd < 0)
		return cx_fail(st, CX_EIO, "cannot create %s: %s", tmp, strerror(errno));
	if (fd_write_all(fd, buf, len) || fsync(fd)) {
		int e = errno;
		close(fd);
		unlink(tmp);
		return cx_fail(st, CX_EIO, "cannot write %s: %s", tmp, strerror(e));
	}
	if (close(fd) || rename(tmp, path)) {
		int e = errno;
		unlink(tmp);
		return cx_fail(st, CX_EIO, "cannot replace %s: %s", path, strerror(e));
	}
	return CX_OK;
}

int file_replace_synced(const char *path, const uint8_t *buf, size_t len, struct cx_status *st)
{
	char dir[4096];
	int rc = file_replace(path, buf, len, st);

	if (rc)
		return rc;
	/* FAT writes a renamed file's directory entry (its first cluster and size) with the
	 * file's own metadata: the folder's fsync alone left only the temporary name on the
	 * stick after a power cut (qemu-tests/test_wizard.py, the power-cut scenario). */
	int fd = open(path, O_RDONLY);
	if (fd < 0 || fsync(fd)) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		return cx_fail(st, CX_EIO, "cannot flush %s: %s", path, strerror(e));
	}
	close(fd);
	snprintf(dir, sizeof(dir), "%s", path);
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	if (dir_sync(slash ? (dir[0] ? dir : "/") : "."))
		return cx_fail(st, CX_EIO, "cannot flush the folder of %s: %s", path, strerror(errno));
	return CX_OK;
}

int file_write(const char *path, const uint8_t *buf, size_t len, struct cx_status *st)
{
	int out = strcmp(path, "-") == 0;
	int fd = out ? STDOUT_FILENO : open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0)
		return cx_fail(st, CX_EIO, "cannot create %s: %s", path, strerror(errno));
	if (fd_write_all(fd, buf, len)) {
		int e = errno;
		if (!out)
			close(fd);
		return cx_fail(st, CX_EIO, "cannot write %s: %s", path, strerror(e));
	}
	if (!out && close(fd))
		return cx_fail(st, CX_EIO, "cannot write %s: %s", path, strerror(errno));
	return CX_OK;
}
