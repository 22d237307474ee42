/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rom_index.c — the ROMs of the library's images and of the backups (rom_index.h). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "image/imgfile.h"
#include "library/rom_index.h"
#include "ops/backup.h"
#include "util/fileio.h"

static bool is_dir(const char *path)
{
	struct stat sb;

	return !lstat(path, &sb) && S_ISDIR(sb.st_mode);
}

static int grow(struct rom_index *ix, struct cx_status *st)
{
	if (ix->n < ix->cap)
		return CX_OK;
	if (ix->n >= ROM_INDEX_MAX)
		return cx_fail(st, CX_EUNSUPPORTED, "more than %d images with a ROM", ROM_INDEX_MAX);
	size_t cap = ix->cap ? ix->cap * 2 : 16;
	struct rom_source *s = realloc(ix->s, cap * sizeof(*s));
	if (!s)
		return cx_fail(st, CX_ENOMEM, "out of memory");
	ix->s = s;
	ix->cap = cap;
	return CX_OK;
}

static void hash_hex(const uint8_t *p, size_t n, char hex[SHA256_HEX_LEN + 1])
{
	uint8_t d[SHA256_LEN];

	sha256(p, n, d);
	sha256_hex(d, hex);
}

/* Record f's ROM section as source s (which grow() made room for). */
static int take(struct rom_source *s, const struct imgfile *f, const char *path, bool backup,
		struct cx_status *st)
{
	const struct fs2_item *it = &f->img.items[f->img.rom_sect];

	memset(s, 0, sizeof(*s));
	s->path = strdup(path);
	s->data = malloc(it->data_len ? it->data_len : 1);
	if (!s->path || !s->data) {
		free(s->path);
		free(s->data);
		return cx_fail(st, CX_ENOMEM, "out of memory");
	}
	s->backup = backup;
	s->len = it->data_len;
	memcpy(s->data, f->cont + it->data_off, s->len);
	hash_hex(s->data, s->len, s->sha256);
	snprintf(s->psid, sizeof(s->psid), "%s", f->img.info.psid);
	memcpy(s->fw_ver, f->img.info.fw_ver, sizeof(s->fw_ver));
	s->nroms = f->img.nroms;
	memcpy(s->roms, f->img.roms, sizeof(s->roms));
	for (int i = 0; i < s->nroms; i++) {
		const struct rom_info *r = &s->roms[i];
		if (r->len && r->off <= s->len && r->len <= s->len - r->off)
			hash_hex(s->data + r->off, r->len, s->rom_sha256[i]);
	}
	return CX_OK;
}

int rom_index_add(struct rom_index *ix, const char *path, bool backup, struct cx_status *st)
{
	char flash[BACKUP_PATH_MAX];
	struct imgfile f;
	int rc;

	if (is_dir(path) && (rc = path_join(flash, sizeof(flash), path, BACKUP_FLASH, st)))
		return rc;
	const char *file = is_dir(path) ? flash : path;
	/* A released image starts with the magic; a flash dump (every flash.bin) is striped. */
	rc = imgfile_open(&f, file, false, st);
	if (rc == CX_EIMAGE) {
		imgfile_close(&f);
		rc = imgfile_open(&f, file, true, st);
	}
	if (!rc && f.img.rom_sect < 0)
		rc = cx_fail(st, CX_EABSENT, "%s: no ROM section", path);
	else if (!rc && !f.img.items[f.img.rom_sect].ok)
		rc = cx_fail(st, CX_EIMAGE, "%s: the ROM section's CRC is wrong", path);
	if (!rc && !(rc = grow(ix, st)) && !(rc = take(&ix->s[ix->n], &f, path, backup, st)))
		ix->n++;
	imgfile_close(&f);
	ix->skipped += rc == CX_EIO || rc == CX_EIMAGE || rc == CX_EBLANK;
	return rc;
}

/* rom_index_add() in a scan: an unusable file or one without a ROM is no failure. */
static int add_quiet(struct rom_index *ix, const char *path, bool backup, struct cx_status *st)
{
	struct cx_status one = {0};
	int rc = rom_index_add(ix, path, backup, &one);

	if (rc == CX_ENOMEM || rc == CX_EUNSUPPORTED)
		return cx_fail(st, rc, "%s", one.msg);
	return CX_OK;
}

static int visible(const struct dirent *de)
{
	return de->d_name[0] != '.';
}

static int scan_backups(struct rom_index *ix, const char *dir, struct cx_status *st)
{
	struct dirent **names;
	char path[BACKUP_PATH_MAX];
	int n = scandir(dir, &names, visible, alphasort), rc = CX_OK;

	if (n < 0)
		return errno == ENOENT ? CX_OK : cx_fail(st, CX_EIO, "cannot read %s: %s", dir, strerror(errno));
	for (int i = 0; i < n; i++) {
		if (!rc && !(rc = path_join(path, sizeof(path), dir, names[i]->d_name, st)) && is_dir(path))
			rc = add_quiet(ix, path, true, st);
		free(names[i]);
	}
	free(names);
	return rc;
}

int rom_index_scan(struct rom_index *ix, const struct manifest *m, const char *backups_dir,
		   struct cx_status *st)
{
	int rc = CX_OK;

	memset(ix, 0, sizeof(*ix));
	for (size_t i = 0; m && i < m->n && !rc; i++)
		if (m->e[i].status == CX_OK && m->e[i].nroms)
			rc = add_quiet(ix, m->e[i].path, false, st);
	if (!rc && backups_dir)
		rc = scan_backups(ix, backups_dir, st);
	if (rc)
		rom_index_free(ix);
	return rc;
}

void rom_index_free(struct rom_index *ix)
{
	for (size_t i = 0; i < ix->n; i++) {
		free(ix->s[i].path);
		free(ix->s[i].data);
	}
	free(ix->s);
	memset(ix, 0, sizeof(*ix));
}

int rom_index_pick(const struct rom_index *ix, const char *name, const struct rom_source **src, int *rom,
		   const uint8_t **p, size_t *len, struct cx_status *st)
{
	unsigned long n, k = 0;
	char *end;

	errno = 0;
	n = strtoul(name, &end, 10);
	if (*end == '.' && end[1] >= '1' && end[1] <= '9')
		k = strtoul(end + 1, &end, 10);
	if (errno || *end || name[0] < '1' || name[0] > '9')
		return cx_fail(st, CX_EUSAGE, "'%s' is not a ROM name: N or N.K as `rom list` shows", name);
	if (n > ix->n || k > (unsigned long)ix->s[n - 1].nroms || (k && !ix->s[n - 1].rom_sha256[k - 1][0]))
		return cx_fail(st, CX_EABSENT, "no ROM %s (`cxflash rom list` shows %zu source%s)", name, ix->n,
			       ix->n == 1 ? "" : "s");
	*src = &ix->s[n - 1];
	*rom = (int)k - 1;
	*p = k ? (*src)->data + (*src)->roms[k - 1].off : (*src)->data;
	*len = k ? (*src)->roms[k - 1].len : (*src)->len;
	return CX_OK;
}

int rom_source_find(const struct rom_source *s, const char *type)
{
	char t[12];

	for (int i = 0; i < s->nroms; i++)
		if (s->rom_sha256[i][0] && !strcasecmp(rom_type_name(s->roms[i].product, t), type))
			return i;
	return -1;
}
