/* SPDX-License-Identifier: GPL-2.0-or-later */
/* backup_verify.c — checking a bundle (see backup.h): SHA256SUMS read as
 * `sha256sum -c` would, every file it lists hashed again, and identity.json
 * agreeing with flash.bin. */
#include <stdlib.h>
#include <string.h>

#include "ops/backup.h"
#include "util/fileio.h"

#define SUMS_MAX_FILES 16        /* ours: a bundle has 3 or 4 files */
#define FILE_NAME_MAX 64

struct sum {
	char hex[SHA256_HEX_LEN + 1];
	char name[FILE_NAME_MAX + 1];
};

static int sums_fail(struct cx_status *st, const char *dir, int line, const char *what)
{
	return cx_fail(st, CX_EIMAGE, "%s/%s line %d: %s", dir, BACKUP_SUMS, line, what);
}

/* Parse SHA256SUMS: "<64 hex>  name" or "<64 hex> *name" lines; plain names only. */
static int sums_parse(const char *dir, const char *text, size_t len, struct sum *s, int *n,
		      struct cx_status *st)
{
	const char *p = text, *end = text + len;
	int line = 0;

	*n = 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			return sums_fail(st, dir, line + 1, "no newline at the end");
		size_t l = (size_t)(nl - p);
		line++;
		if (*n >= SUMS_MAX_FILES)
			return sums_fail(st, dir, line, "too many files listed");
		if (l < SHA256_HEX_LEN + 3 || (p[SHA256_HEX_LEN] != ' ') ||
		    (p[SHA256_HEX_LEN + 1] != ' ' && p[SHA256_HEX_LEN + 1] != '*'))
			return sums_fail(st, dir, line, "not '<sha256>  <file>'");
		for (int i = 0; i < SHA256_HEX_LEN; i++)
			if (!p[i] || !strchr("0123456789abcdef", p[i]))
				return sums_fail(st, dir, line, "the checksum is not 64 lowercase hex digits");
		const char *name = p + SHA256_HEX_LEN + 2;
		size_t nl_len = l - SHA256_HEX_LEN - 2;
		if (nl_len > FILE_NAME_MAX || name[0] == '.')
			return sums_fail(st, dir, line, "not a plain file name");
		for (size_t i = 0; i < nl_len; i++) {
			char c = name[i];
			if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
			      c == '_' || c == '-'))
				return sums_fail(st, dir, line, "not a plain file name");
		}
		memcpy(s[*n].hex, p, SHA256_HEX_LEN);
		s[*n].hex[SHA256_HEX_LEN] = '\0';
		memcpy(s[*n].name, name, nl_len);
		s[*n].name[nl_len] = '\0';
		if (!strcmp(s[*n].name, BACKUP_SUMS))
			return sums_fail(st, dir, line, BACKUP_SUMS " cannot list itself");
		for (int k = 0; k < *n; k++)
			if (!strcmp(s[k].name, s[*n].name))
				return sums_fail(st, dir, line, "a file listed twice");
		(*n)++;
		p = nl + 1;
	}
	return CX_OK;
}

static const struct sum *sums_find(const struct sum *s, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(s[i].name, name))
			return &s[i];
	return NULL;
}

int backup_verify(const char *bundle_dir, struct cx_status *st)
{
	char path[BACKUP_PATH_MAX], hex[SHA256_HEX_LEN + 1];
	struct sum sums[SUMS_MAX_FILES];
	struct backup_identity id;
	uint64_t flash_len = 0;
	uint8_t *text, dg[SHA256_LEN];
	size_t len;
	int n, rc;

	if ((rc = path_join(path, sizeof(path), bundle_dir, BACKUP_SUMS, st)) ||
	    (rc = file_read(path, BACKUP_META_MAX, &text, &len, st)))
		return rc;
	rc = sums_parse(bundle_dir, (const char *)text, len, sums, &n, st);
	free(text);
	if (rc)
		return rc;
	if (!sums_find(sums, n, BACKUP_FLASH) || !sums_find(sums, n, BACKUP_IDENTITY))
		return cx_fail(st, CX_EIMAGE, "%s/%s does not list %s and %s: not a backup bundle", bundle_dir,
			       BACKUP_SUMS, BACKUP_FLASH, BACKUP_IDENTITY);
	for (int i = 0; i < n; i++) {
		uint64_t size;
		if ((rc = path_join(path, sizeof(path), bundle_dir, sums[i].name, st)) ||
		    (rc = file_sha256(path, dg, &size, st)))
			return rc;
		if (strcmp(sha256_hex(dg, hex), sums[i].hex))
			return cx_fail(st, CX_EIMAGE, "%s does not match its SHA-256 in %s (%s, listed %s): the bundle "
				       "is damaged", path, BACKUP_SUMS, hex, sums[i].hex);
		if (!strcmp(sums[i].name, BACKUP_FLASH))
			flash_len = size;
	}
	if ((rc = backup_load_identity(bundle_dir, &id, st)))
		return rc;
	if (strcmp(id.flash_sha256, sums_find(sums, n, BACKUP_FLASH)->hex) || flash_len != id.flash_size)
		return cx_fail(st, CX_EIMAGE, "%s/%s does not describe its %s (sha256 or size differ)", bundle_dir,
			       BACKUP_IDENTITY, BACKUP_FLASH);
	if (id.have_ini && !sums_find(sums, n, BACKUP_INI))
		return cx_fail(st, CX_EIMAGE, "%s/%s does not list %s", bundle_dir, BACKUP_SUMS, BACKUP_INI);
	return CX_OK;
}
