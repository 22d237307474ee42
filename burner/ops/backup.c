/* SPDX-License-Identifier: GPL-2.0-or-later */
/* backup.c — writing a bundle (see backup.h); backup_verify.c checks one and
 * backup_identity.c reads its identity.json back. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "image/ini.h"
#include "ops/backup.h"
#include "ops/backup_facts.h"
#include "ops/nv_bundle.h"
#include "util/fileio.h"
#include "util/json.h"
#include "util/utc.h"
#include "util/version.h"


#define NAME_TRIES 100           /* "-2" ... "-99" when a name is taken */

/* ---- small file helpers ---- */

/* Create dir/name (it must not exist), write it and flush it to the disk. */
static int put_file(const char *dir, const char *name, const void *buf, size_t len, struct cx_status *st)
{
	char path[BACKUP_PATH_MAX];
	int fd;

	if (path_join(path, sizeof(path), dir, name, st))
		return st->code;
	if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644)) < 0)
		return cx_fail(st, CX_EIO, "cannot create %s: %s", path, strerror(errno));
	if (fd_write_all(fd, buf, len) || fsync(fd)) {
		int e = errno;
		close(fd);
		return cx_fail(st, CX_EIO, "cannot write %s: %s", path, strerror(e));
	}
	if (close(fd))
		return cx_fail(st, CX_EIO, "cannot write %s: %s", path, strerror(errno));
	return CX_OK;
}

/* fsync a folder so a rename or a new entry in it survives a power cut. File
 * systems that cannot sync a folder say EINVAL; there is nothing more to do. */
static int sync_dir(const char *dir, struct cx_status *st)
{
	if (dir_sync(dir))
		return cx_fail(st, CX_EIO, "cannot flush %s to the disk: %s", dir, strerror(errno));
	return CX_OK;
}


/* ---- the identity record ---- */

static const char *const guid_key[4] = {"node", "port1", "port2", "sys_image"};
static const char *const mac_key[2] = {"port1", "port2"};


/* What the dump says, for identity.json and the name. */
struct found {
	struct backup_facts x;      /* ops/backup_facts.h: from the FS2 or the FS3/FS4 reader */
	char *ini;                  /* inflated board .ini, or NULL */
	size_t ini_len;
	char ini_error[CX_MSG_MAX];
	char *nv;                   /* settings.json (ops/nv_bundle.h) */
	size_t nv_len;
};

/* Find and parse the image in the dump; failures are recorded, not returned:
 * a card whose image is damaged is the one that most needs a backup. */
static int inspect(const struct device *d, const uint8_t *flash, struct found *f, struct cx_status *st)
{
	struct cx_status ist = {0};
	const uint8_t *ini = NULL;
	size_t ini_len = 0;

	memset(f, 0, sizeof(*f));
	int rc = d->chip.desc->format == CHIP_FW_FS2
			 ? backup_facts_fs2(flash, d->flash.size, d->chip.desc->start_positions, &f->x, &ini, &ini_len)
			 : backup_facts_fs3(flash, d->flash.size, &f->x, &ini, &ini_len);
	if (rc == CX_ENOMEM)
		return cx_fail(st, CX_ENOMEM, "out of memory");
	if (ini && ini_inflate(ini, ini_len, &f->ini, &f->ini_len, &ist)) {
		if (ist.code == CX_ENOMEM)
			rc = cx_fail(st, CX_ENOMEM, "out of memory");
		snprintf(f->ini_error, sizeof(f->ini_error), "%s", ist.msg);
		f->ini = NULL;
	}
	backup_facts_release(&f->x);
	return rc == CX_ENOMEM ? rc : CX_OK;
}

static void found_free(struct found *f)
{
	backup_facts_free(&f->x);
	free(f->ini);
	free(f->nv);
	f->ini = f->nv = NULL;
}

/* name: filled and NUL-terminated; returns false if it did not fit. */
static bool bundle_name(const struct device *d, const struct found *f, const struct tm *t, char *name,
			size_t n)
{
	char who[64], stamp[UTC_STAMP_LEN];
	size_t k = 0;

	utc_stamp(stamp, t, true);
	if (!d->chip.recovery && f->x.have_image) {
		/* PSIDs are [A-Z0-9_]; anything else (a hostile image) becomes '_'. */
		const char *p = f->x.psid;
		for (; *p && k < 16; p++)
			who[k++] = ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
				    (*p >= '0' && *p <= '9') || *p == '_') ? *p : '_';
		if (!k)
			k = (size_t)snprintf(who, sizeof(who), "nopsid");
		snprintf(who + k, sizeof(who) - k, "-%016llx", (unsigned long long)f->x.guid[0]);
	} else {
		k = (size_t)snprintf(who, sizeof(who), "%s-", d->chip.recovery ? "recovery" : "noimage");
		for (const char *p = d->pci.bdf; *p && k + 1 < sizeof(who); p++)
			who[k++] = *p == ':' ? '_' : *p;
		who[k] = '\0';
	}
	return (size_t)snprintf(name, n, "%s-%s-%s", d->chip.desc->slug, who, stamp) < n;
}

/* identity.json's first part: the card, its flash and the dump's hash. */
static void json_card(struct json *j, const struct device *d, const char *date, const char *flash_hex)
{
	char buf[96];

	json_str(j, "format", BACKUP_FORMAT);
	json_str(j, "date", date);
	json_str(j, "cxflash_version", CXFLASH_VERSION);
	json_str(j, "bdf", d->pci.bdf);
	json_str(j, "family", d->chip.desc->name);
	json_str(j, "chip", chip_label(&d->chip, buf, sizeof(buf)));
	json_int(j, "revision", d->chip.rev);
	json_hex(j, "pci_device", d->pci.device, 4);
	json_hex(j, "subsys_vendor", d->pci.subsys_vendor, 4);
	json_hex(j, "subsys_device", d->pci.subsys_device, 4);
	json_bool(j, "recovery", d->chip.recovery);
	json_str(j, "flash", flash_describe(&d->flash, buf, sizeof(buf)));
	json_int(j, "flash_size", d->flash.size);
	json_str(j, "flash_sha256", flash_hex);
}

/* Who the image says the card is: FW, PSID, VSD, GUIDs, MACs (null without an image). */
static void json_identity(struct json *j, const struct backup_facts *x)
{
	static const char *const none[] = {"fw_version", "psid", "vsd", "guid_entries", "guids_blank",
					   "guids", "macs", "macs_derived"};

	if (!x->have_image) {
		for (unsigned i = 0; i < sizeof(none) / sizeof(none[0]); i++)
			json_null(j, none[i]);
		return;
	}
	json_str(j, "fw_version", x->fw_version[0] ? x->fw_version : NULL);
	json_str(j, "psid", x->psid);
	json_str(j, "vsd", x->vsd);
	json_int(j, "guid_entries", x->guid_entries);
	json_bool(j, "guids_blank", x->guids_blank);
	json_obj(j, "guids");
	for (int i = 0; i < 4; i++)
		json_hex(j, guid_key[i], x->guid[i], 16);
	json_close(j);
	json_obj(j, "macs");
	/* A MAC is the entry's low 48 bits: a blank entry is 64 bits of ones, which would
	 * print as 16 digits and fail the bundle's own check (no backup of a blank card). */
	for (int i = 0; i < 2; i++)
		json_hex(j, mac_key[i], x->mac[i] & 0xFFFFFFFFFFFFull, 12);
	json_close(j);
	json_bool(j, "macs_derived", x->macs_derived);
}

/* Where the image lies, its verdict, its first ROM and the board .ini. */
static void json_image(struct json *j, const struct found *f)
{
	const struct backup_facts *x = &f->x;

	if (x->have_image) {
		json_int(j, "image_start", x->start);
		json_int(j, "image_slot", x->slot);
		json_bool(j, "image_failsafe", x->failsafe);
		json_int(j, "image_size", (long long)x->size);
	} else {
		json_null(j, "image_start");
		json_null(j, "image_slot");
		json_null(j, "image_failsafe");
		json_null(j, "image_size");
	}
	json_str(j, "image_format", x->format);
	json_str(j, "image_verdict", x->have_image ? cx_code_name(x->verdict) : "no-image");
	json_str(j, "image_error", x->error[0] ? x->error : NULL);
	json_identity(j, x);
	if (x->rom_type[0]) {
		json_obj(j, "rom");
		json_str(j, "type", x->rom_type);
		json_str(j, "version", x->rom_version);
		json_close(j);
	} else {
		json_null(j, "rom");
	}
	json_str(j, "board_ini", f->ini ? BACKUP_INI : NULL);
	json_str(j, "board_ini_error", f->ini_error[0] ? f->ini_error : NULL);
}

static int identity_json(const struct device *d, const struct found *f, const char *date,
			 const char *flash_hex, char **text, size_t *len, struct cx_status *st)
{
	struct json j;
	FILE *out = open_memstream(text, len);

	if (!out)
		return cx_fail(st, CX_ENOMEM, "out of memory");
	json_begin(&j, out);
	json_card(&j, d, date, flash_hex);
	json_image(&j, f);
	json_end(&j);
	if (fclose(out) || !*text) {
		free(*text);
		*text = NULL;
		return cx_fail(st, CX_ENOMEM, "out of memory");
	}
	return CX_OK;
}

/* ---- writing a bundle ---- */

struct tmpdir {
	char path[BACKUP_PATH_MAX];
	bool made;
};

static const char *const bundle_files[] = {BACKUP_FLASH, BACKUP_IDENTITY, BACKUP_INI, BACKUP_SETTINGS, BACKUP_SUMS};

/* Remove what we may have created in the temporary folder, then the folder. */
static void tmp_remove(struct tmpdir *t)
{
	char p[BACKUP_PATH_MAX];

	if (!t->made)
		return;
	for (unsigned i = 0; i < sizeof(bundle_files) / sizeof(bundle_files[0]); i++)
		if ((size_t)snprintf(p, sizeof(p), "%s/%s", t->path, bundle_files[i]) < sizeof(p))
			unlink(p);
	rmdir(t->path);
	t->made = false;
}

static int tmp_make(struct tmpdir *t, const char *dir, struct cx_status *st)
{
	t->made = false;
	if ((size_t)snprintf(t->path, sizeof(t->path), "%s/.cxflash-backup-XXXXXX", dir) >= sizeof(t->path))
		return cx_fail(st, CX_EIO, "path too long: %s", dir);
	if (!mkdtemp(t->path))
		return cx_fail(st, CX_EIO, "cannot create a folder in %s: %s", dir, strerror(errno));
	t->made = true;
	/* mkdtemp makes it 0700; a bundle is as readable as any folder mkdir would make. */
	mode_t mask = umask(0);
	umask(mask);
	if (chmod(t->path, 0755 & ~mask))
		return cx_fail(st, CX_EIO, "cannot set the mode of %s: %s", t->path, strerror(errno));
	return CX_OK;
}

/* dir must be a folder we can create in; made if absent (one level). */
static int check_dir(const char *dir, struct cx_status *st)
{
	struct stat sb;
	struct tmpdir t;

	if (!dir || !dir[0])
		return cx_fail(st, CX_EUSAGE, "no folder given for the backup");
	if (stat(dir, &sb)) {
		if (errno != ENOENT || mkdir(dir, 0755))
			return cx_fail(st, CX_EIO, "cannot create %s: %s", dir, strerror(errno));
	} else if (!S_ISDIR(sb.st_mode)) {
		return cx_fail(st, CX_EIO, "%s is not a folder", dir);
	}
	/* Prove it before spending minutes reading the flash. */
	if (tmp_make(&t, dir, st))
		return st->code;
	tmp_remove(&t);
	return CX_OK;
}

/* "sha256  name\n" lines, as sha256sum writes them. */
static void sums_add(char *sums, size_t n, const char *hex, const char *name)
{
	size_t k = strlen(sums);

	snprintf(sums + k, n - k, "%s  %s\n", hex, name);
}

/* Rename the finished folder to name, or name-2, name-3, ... if taken. */
static int publish(struct tmpdir *t, const char *dir, struct backup_result *r, struct cx_status *st)
{
	char base[BACKUP_NAME_MAX];
	struct stat sb;

	snprintf(base, sizeof(base), "%s", r->name);
	for (int i = 1; i < NAME_TRIES; i++) {
		if (i > 1 && (size_t)snprintf(r->name, sizeof(r->name), "%s-%d", base, i) >= sizeof(r->name))
			break;
		if (path_join(r->path, sizeof(r->path), dir, r->name, st))
			return st->code;
		if (lstat(r->path, &sb) == 0)
			continue;
		if (rename(t->path, r->path) == 0) {
			t->made = false;
			return sync_dir(dir, st);
		}
		if (errno != EEXIST && errno != ENOTEMPTY && errno != ENOTDIR)
			return cx_fail(st, CX_EIO, "cannot rename %s to %s: %s", t->path, r->path, strerror(errno));
	}
	return cx_fail(st, CX_EIO, "%s/%s and %d more names are taken", dir, base, NAME_TRIES - 2);
}

static int write_bundle(const struct device *d, const uint8_t *flash, const struct found *f,
			const char *dir, struct tmpdir *t, struct backup_result *r, struct cx_status *st)
{
	char date[UTC_STAMP_LEN], sums[1024] = "", hex[SHA256_HEX_LEN + 1], *idj = NULL;
	uint8_t dg[SHA256_LEN];
	size_t idlen = 0;
	time_t now = time(NULL);
	struct tm tm;
	int rc;

	gmtime_r(&now, &tm);
	utc_stamp(date, &tm, false);
	if (!bundle_name(d, f, &tm, r->name, sizeof(r->name)))
		return cx_fail(st, CX_EIO, "bundle name too long");
	if ((rc = tmp_make(t, dir, st)))
		return rc;

	sha256(flash, d->flash.size, dg);
	sha256_hex(dg, r->flash_sha256);
	if ((rc = put_file(t->path, BACKUP_FLASH, flash, d->flash.size, st)))
		return rc;
	sums_add(sums, sizeof(sums), r->flash_sha256, BACKUP_FLASH);

	if ((rc = identity_json(d, f, date, r->flash_sha256, &idj, &idlen, st)))
		return rc;
	rc = put_file(t->path, BACKUP_IDENTITY, idj, idlen, st);
	sha256(idj, idlen, dg);
	free(idj);
	if (rc)
		return rc;
	sums_add(sums, sizeof(sums), sha256_hex(dg, hex), BACKUP_IDENTITY);

	if (f->ini) {
		if ((rc = put_file(t->path, BACKUP_INI, f->ini, f->ini_len, st)))
			return rc;
		sha256(f->ini, f->ini_len, dg);
		sums_add(sums, sizeof(sums), sha256_hex(dg, hex), BACKUP_INI);
	}
	if ((rc = put_file(t->path, BACKUP_SETTINGS, f->nv, f->nv_len, st)))
		return rc;
	sha256(f->nv, f->nv_len, dg);
	sums_add(sums, sizeof(sums), sha256_hex(dg, hex), BACKUP_SETTINGS);
	if ((rc = put_file(t->path, BACKUP_SUMS, sums, strlen(sums), st)) || (rc = sync_dir(t->path, st)))
		return rc;

	/* What is on the disk is what came off the card. */
	char path[BACKUP_PATH_MAX];
	uint64_t size;
	if ((rc = path_join(path, sizeof(path), t->path, BACKUP_FLASH, st)) ||
	    (rc = file_sha256(path, dg, &size, st)))
		return rc;
	if (size != d->flash.size || strcmp(sha256_hex(dg, hex), r->flash_sha256))
		return cx_fail(st, CX_EIO, "%s read back from the disk differs from the flash read "
			       "(sha256 %s, expected %s): no backup written", path, hex, r->flash_sha256);
	if ((rc = backup_verify(t->path, st))) {
		struct cx_status tmp = *st;
		cx_status_clear(st);
		return cx_fail(st, CX_EIO, "the bundle written fails its own check: %s", tmp.msg);
	}
	r->have_ini = f->ini != NULL;
	return publish(t, dir, r, st);
}

static uint32_t first_difference(const uint8_t *a, const uint8_t *b, uint32_t len)
{
	uint32_t i = 0;

	while (i < len && a[i] == b[i])
		i++;
	return i;
}

int backup_card_from(struct device *d, const char *dir, uint8_t *first, backup_progress_fn progress, void *ctx,
		     struct backup_result *r, struct cx_status *st)
{
	uint8_t *a = first, *b = NULL;
	struct found f;
	struct tmpdir t = {.made = false};
	int rc;

	memset(r, 0, sizeof(*r));
	memset(&f, 0, sizeof(f));
	if (!d->have_flash) {
		free(a);
		return cx_fail(st, CX_ENODEV, "the card's flash is not open");
	}
	if ((rc = check_dir(dir, st))) {
		free(a);
		return rc;
	}
	r->size = d->flash.size;
	r->recovery = d->chip.recovery;

	if (!a && progress)
		progress(ctx, "reading the flash (1 of 2)");
	if (!a && (rc = device_read_flash(d, &a, st)))
		goto out;
	if (progress)
		progress(ctx, "reading the flash again (2 of 2)");
	if ((rc = device_read_flash(d, &b, st)))
		goto out;
	uint32_t at = first_difference(a, b, d->flash.size);
	if (at < d->flash.size) {
		rc = cx_fail(st, CX_EFLASH, "two reads of the flash differ at 0x%x (0x%02x, then 0x%02x): the card or "
			     "its link is unreliable; no backup written", at, a[at], b[at]);
		goto out;
	}
	free(b);
	b = NULL;

	if ((rc = inspect(d, a, &f, st)) || (rc = nv_bundle_json(d, &f.nv, &f.nv_len, st)))
		goto out;
	r->have_image = f.x.have_image;
	if (progress)
		progress(ctx, "writing and checking the bundle");
	rc = write_bundle(d, a, &f, dir, &t, r, st);
	if (!rc) {
		device_keep_flash(d, a); /* two reads agreed: a write under the caller's lock plans from it */
		a = NULL;
	}
out:
	tmp_remove(&t);
	found_free(&f);
	free(a);
	free(b);
	if (rc)
		r->path[0] = r->name[0] = '\0';
	return rc;
}

int backup_card_ex(struct device *d, const char *dir, backup_progress_fn progress, void *ctx,
		   struct backup_result *r, struct cx_status *st)
{
	return backup_card_from(d, dir, NULL, progress, ctx, r, st);
}

int backup_card(struct device *d, const char *dir, struct backup_result *r, struct cx_status *st)
{
	return backup_card_ex(d, dir, NULL, NULL, r, st);
}
