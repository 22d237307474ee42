/* SPDX-License-Identifier: GPL-2.0-or-later */
/* backup_index.c — indexing the stick's backup bundles (see backup_index.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rescue/backup_index.h"

void backup_index_free(struct backup_index *ix)
{
	for (int i = 0; i < ix->n; i++)
		free(ix->e[i].path);
	free(ix->e);
	memset(ix, 0, sizeof(*ix));
}

/* Check one bundle and append it, unsorted. */
static int add_one(struct backup_index *ix, const char *dir, const char *name, struct cx_status *st)
{
	struct cx_status vst = {0}, ist = {0};

	if (ix->n >= BACKUP_INDEX_MAX)
		return cx_fail(st, CX_EUNSUPPORTED, "more than %d backups in %s: move some elsewhere",
			       BACKUP_INDEX_MAX, dir ? dir : "the index");
	if (ix->n == ix->cap) {
		int cap = ix->cap ? 2 * ix->cap : 16;
		struct backup_entry *e = realloc(ix->e, (size_t)cap * sizeof(*e));
		if (!e)
			return cx_fail(st, CX_ENOMEM, "out of memory");
		ix->e = e;
		ix->cap = cap;
	}
	struct backup_entry *e = &ix->e[ix->n];
	memset(e, 0, sizeof(*e));
	size_t len = (dir ? strlen(dir) + 1 : 0) + strlen(name) + 1;
	if (!(e->path = malloc(len)))
		return cx_fail(st, CX_ENOMEM, "out of memory");
	if (dir)
		snprintf(e->path, len, "%s/%s", dir, name);
	else
		snprintf(e->path, len, "%s", name);
	for (size_t l = strlen(e->path); l > 1 && e->path[l - 1] == '/'; l--)
		e->path[l - 1] = '\0';
	const char *slash = strrchr(e->path, '/');
	e->name = slash && slash[1] ? slash + 1 : e->path;

	e->verify_code = backup_verify(e->path, &vst);
	/* Out of memory says nothing about the bundle: do not call it damaged. */
	if (e->verify_code == CX_ENOMEM) {
		free(e->path);
		return cx_fail(st, CX_ENOMEM, "out of memory");
	}
	if (e->verify_code)
		snprintf(e->reason, sizeof(e->reason), "%s", vst.msg[0] ? vst.msg : "damaged");
	/* Read even when damaged, so the wizard can say whose bundle it was. */
	e->have_id = backup_load_identity(e->path, &e->id, &ist) == CX_OK;
	if (!e->have_id)
		memset(&e->id, 0, sizeof(e->id));
	ix->n++;
	return CX_OK;
}

static int newest_first(const void *pa, const void *pb)
{
	const struct backup_entry *a = pa, *b = pb;
	int c = strcmp(b->id.date, a->id.date);

	if (!c)
		c = strcmp(b->name, a->name);
	return c ? c : strcmp(b->path, a->path);
}

static void sort(struct backup_index *ix)
{
	if (ix->n > 1)
		qsort(ix->e, (size_t)ix->n, sizeof(ix->e[0]), newest_first);
}

int backup_index_scan(struct backup_index *ix, const char *backups_dir, struct cx_status *st)
{
	struct dirent *de;
	struct stat sb;
	DIR *d;
	int rc = CX_OK;

	memset(ix, 0, sizeof(*ix));
	if (!backups_dir || !backups_dir[0])
		return cx_fail(st, CX_EUSAGE, "no backup folder given");
	if (!(d = opendir(backups_dir))) {
		if (errno == ENOENT)
			return CX_OK;
		if (errno == ENOTDIR)
			return cx_fail(st, CX_EIO, "%s is not a folder", backups_dir);
		return cx_fail(st, CX_EIO, "cannot read %s: %s", backups_dir, strerror(errno));
	}
	for (;;) {
		errno = 0;
		if (!(de = readdir(d))) {
			if (errno)
				rc = cx_fail(st, CX_EIO, "cannot read %s: %s", backups_dir, strerror(errno));
			break;
		}
		if (de->d_name[0] == '.')
			continue;
		/* A bundle is a real folder; lstat-like, so a link cannot lead elsewhere. */
		if (fstatat(dirfd(d), de->d_name, &sb, AT_SYMLINK_NOFOLLOW) || !S_ISDIR(sb.st_mode))
			continue;
		if ((rc = add_one(ix, backups_dir, de->d_name, st)))
			break;
	}
	closedir(d);
	if (rc) {
		backup_index_free(ix);
		return rc;
	}
	sort(ix);
	return CX_OK;
}

int backup_index_add(struct backup_index *ix, const char *bundle_dir, struct cx_status *st)
{
	int rc;

	if (!bundle_dir || !bundle_dir[0])
		return cx_fail(st, CX_EUSAGE, "no bundle given");
	if ((rc = add_one(ix, NULL, bundle_dir, st)))
		return rc;
	sort(ix);
	return CX_OK;
}

static bool real_guid(uint64_t g)
{
	return g != 0 && g != UINT64_MAX;
}

static bool sound_of(const struct backup_entry *e, const char *family)
{
	return e->verify_code == CX_OK && e->have_id && !strcmp(e->id.family, family);
}

static bool guid_of(const struct backup_entry *e, uint64_t guid)
{
	return e->id.have_image && real_guid(guid) && e->id.guid[0] == guid;
}

int backup_index_for_card(const struct backup_index *ix, const char *family, const char *psid,
			  uint64_t node_guid, const struct backup_entry **out, int max)
{
	int k = 0;

	if (!ix || !family || !out || max <= 0)
		return 0;
	if (real_guid(node_guid)) {
		for (int i = 0; i < ix->n && k < max; i++)
			if (sound_of(&ix->e[i], family) && guid_of(&ix->e[i], node_guid))
				out[k++] = &ix->e[i];
		return k;
	}
	/* No identity to go by: the family's bundles, the card's PSID first. */
	bool by_psid = psid && psid[0];
	for (int pass = by_psid ? 0 : 1; pass < 2; pass++)
		for (int i = 0; i < ix->n && k < max; i++) {
			const struct backup_entry *e = &ix->e[i];
			bool same = by_psid && e->id.have_image && !strcmp(e->id.psid, psid);
			if (sound_of(e, family) && (pass == 1 ? !same : same))
				out[k++] = e;
		}
	return k;
}

bool backup_index_has(const struct backup_index *ix, const char *family, uint64_t node_guid)
{
	if (!ix || !family)
		return false;
	for (int i = 0; i < ix->n; i++)
		if (sound_of(&ix->e[i], family) && guid_of(&ix->e[i], node_guid))
			return true;
	return false;
}
