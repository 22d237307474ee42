/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pending.c — job records in pending/ (pending.h). */
#include <dirent.h>
#include <stddef.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dev/chip.h"
#include "rescue/pending.h"
#include "util/fileio.h"

#define RECORD_MAX 16384 /* a record is < 3 KiB; anything bigger is not ours */
#define SUFFIX ".job"

/* The record's keys, in the order they are written; the reader takes the same table. */
#define FIELD(f) {#f, offsetof(struct pending, f), sizeof(((struct pending *)0)->f)}
static const struct {
	const char *key;
	size_t off, size;
} fields[] = {
	FIELD(state), FIELD(action),   FIELD(bdf),	FIELD(family), FIELD(guid), FIELD(file),
	FIELD(sha256), FIELD(to_psid), FIELD(to_fw), FIELD(identity), FIELD(rom),  FIELD(time),
	FIELD(boot_id),
};
#undef FIELD

/* The chip table's slug of a family name; "card" for a name it does not know. */
static const char *slug(const char *family)
{
	const struct chip_desc *c = chip_by_name(family);
	return c ? c->slug : "card";
}

static void name_of(struct pending *p)
{
	char who[20];

	snprintf(who, sizeof(who), "%s", p->guid[0] ? p->guid : p->bdf);
	for (char *c = who; *c; c++)
		if (*c == ':')
			*c = '_';
	snprintf(p->name, sizeof(p->name), "%s-%s" SUFFIX, slug(p->family), who);
}

static int folder(const char *data_dir, char *out, size_t n, struct cx_status *st)
{
	if ((size_t)snprintf(out, n, "%s/" PENDING_DIR, data_dir) >= n)
		return cx_fail(st, CX_EIO, "data folder path too long: %s", data_dir);
	return CX_OK;
}

/* "key=value\n" with the value's line breaks dropped: a record is one line per key. */
static void put(char *buf, size_t n, size_t *at, const char *key, const char *v)
{
	if (*at >= n)
		return;
	int k = snprintf(buf + *at, n - *at, "%s=", key);
	if (k < 0)
		return;
	*at += (size_t)k;
	for (; *v && *at + 2 < n; v++)
		buf[(*at)++] = (*v == '\n' || *v == '\r') ? ' ' : *v;
	if (*at + 1 < n)
		buf[(*at)++] = '\n';
	buf[*at < n ? *at : n - 1] = '\0';
}

int pending_write(const char *data_dir, struct pending *p, struct cx_status *st)
{
	char dir[PENDING_PATH_MAX + 16], path[PENDING_PATH_MAX + 128];
	char buf[RECORD_MAX];
	size_t at = 0;
	int rc;

	if ((rc = folder(data_dir, dir, sizeof(dir), st)))
		return rc;
	if (mkdir(dir, 0755) && errno != EEXIST)
		return cx_fail(st, CX_EIO, "cannot make %s: %s", dir, strerror(errno));
	name_of(p);
	snprintf(path, sizeof(path), "%s/%s", dir, p->name);
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		put(buf, sizeof(buf), &at, fields[i].key, (const char *)p + fields[i].off);
	return file_replace_synced(path, (const uint8_t *)buf, at, st);
}

int pending_remove(const char *data_dir, const struct pending *p, struct cx_status *st)
{
	char dir[PENDING_PATH_MAX + 16], path[PENDING_PATH_MAX + 128];
	int rc;

	if ((rc = folder(data_dir, dir, sizeof(dir), st)))
		return rc;
	snprintf(path, sizeof(path), "%s/%s", dir, p->name);
	if (unlink(path) && errno != ENOENT)
		return cx_fail(st, CX_EIO, "cannot remove %s: %s", path, strerror(errno));
	dir_sync(dir);
	return CX_OK;
}

bool pending_exists(const char *data_dir, const struct pending *p)
{
	char path[PENDING_PATH_MAX + 128];

	snprintf(path, sizeof(path), "%s/" PENDING_DIR "/%s", data_dir, p->name);
	return access(path, F_OK) == 0;
}

static void take(char *dst, size_t n, const char *v)
{
	snprintf(dst, n, "%s", v);
}

static bool parse(char *text, struct pending *p)
{
	memset(p, 0, sizeof(*p));
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		char *eq = strchr(line, '=');
		if (!eq)
			continue;
		*eq = '\0';
		const char *k = line, *v = eq + 1;
		for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
			if (!strcmp(k, fields[i].key))
				take((char *)p + fields[i].off, fields[i].size, v);
	}
	return (!strcmp(p->state, "writing") || !strcmp(p->state, "written") || !strcmp(p->state, "checked")) &&
	       p->action[0] && p->family[0];
}

/* Read and parse one record file; false when it does not read or is not a record. */
static bool read_record(const char *path, struct pending *p)
{
	struct cx_status ignore = {0};
	uint8_t *buf;
	size_t blen;
	bool ok = false;

	if (file_read(path, RECORD_MAX, &buf, &blen, &ignore))
		return false;
	char *text = malloc(blen + 1);
	if (text) {
		memcpy(text, buf, blen);
		text[blen] = '\0';
		ok = parse(text, p);
		free(text);
	}
	free(buf);
	return ok;
}

bool pending_reload(const char *data_dir, struct pending *p)
{
	char path[PENDING_PATH_MAX + 128], name[sizeof(p->name)];

	memcpy(name, p->name, sizeof(name));
	snprintf(path, sizeof(path), "%s/" PENDING_DIR "/%s", data_dir, name);
	bool ok = read_record(path, p);
	memcpy(p->name, name, sizeof(name));
	return ok;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct pending *)a)->name, ((const struct pending *)b)->name);
}

int pending_list(const char *data_dir, struct pending **out, int *n, struct cx_status *st)
{
	char dir[PENDING_PATH_MAX + 16], path[PENDING_PATH_MAX + 384];
	struct pending *v;
	struct dirent *de;
	DIR *d;
	int rc;

	*out = NULL;
	*n = 0;
	if ((rc = folder(data_dir, dir, sizeof(dir), st)))
		return rc;
	if (!(d = opendir(dir)))
		return errno == ENOENT ? CX_OK : cx_fail(st, CX_EIO, "cannot read %s: %s", dir, strerror(errno));
	if (!(v = calloc(PENDING_MAX, sizeof(*v)))) {
		closedir(d);
		return cx_fail(st, CX_ENOMEM, "out of memory");
	}
	while ((de = readdir(d)) && *n < PENDING_MAX) {
		size_t len = strlen(de->d_name);
		if (de->d_name[0] == '.' || len <= strlen(SUFFIX) || len >= sizeof(v->name) ||
		    strcmp(de->d_name + len - strlen(SUFFIX), SUFFIX))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (read_record(path, &v[*n])) {
			memcpy(v[*n].name, de->d_name, len + 1); /* len < sizeof(name): checked above */
			(*n)++;
		}
	}
	closedir(d);
	qsort(v, (size_t)*n, sizeof(*v), by_name);
	*out = v;
	return CX_OK;
}
