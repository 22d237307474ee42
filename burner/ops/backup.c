/* SPDX-License-Identifier: GPL-2.0-or-later */
/* backup.c — writing, checking and reading backup bundles (see backup.h). */
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
#include "util/fileio.h"
#include "util/json.h"
#include "util/version.h"


#define HASH_PIECE (64u << 10)   /* bytes hashed per read() when checking a file */
#define SUMS_MAX_FILES 16        /* ours: a bundle has 3 or 4 files */
#define FILE_NAME_MAX 64
#define NAME_TRIES 100           /* "-2" ... "-99" when a name is taken */

/* ---- small file helpers ---- */

static int join(char *out, size_t n, const char *dir, const char *name, struct cx_status *st)
{
	if ((size_t)snprintf(out, n, "%s/%s", dir, name) >= n)
		return cx_fail(st, CX_EIO, "path too long: %s/%s", dir, name);
	return CX_OK;
}

/* Create dir/name (it must not exist), write it and flush it to the disk. */
static int put_file(const char *dir, const char *name, const void *buf, size_t len, struct cx_status *st)
{
	char path[BACKUP_PATH_MAX];
	int fd;

	if (join(path, sizeof(path), dir, name, st))
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

/* SHA-256 of a whole file, read in pieces; *size = its length. */
static int hash_file(const char *path, uint8_t d[SHA256_LEN], uint64_t *size, struct cx_status *st)
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
	sha256_final(&s, d);
	free(buf);
	close(fd);
	return CX_OK;
}

/* ---- the identity record ---- */

static const char *const guid_key[4] = {"node", "port1", "port2", "sys_image"};
static const char *const mac_key[2] = {"port1", "port2"};


/* What the dump says, for identity.json and the name. */
struct found {
	struct dev_image di;
	bool have_image;            /* located and parsed */
	int verdict;                /* fs2_verdict() of the parsed image */
	char image_error[CX_MSG_MAX];
	char *ini;                  /* inflated FW_CONF, or NULL */
	size_t ini_len;
	char ini_error[CX_MSG_MAX];
};

struct mem_flash {
	const uint8_t *buf;
	uint32_t size;
};

static int mem_read(void *ctx, uint32_t addr, uint8_t *buf, uint32_t len, struct cx_status *st)
{
	const struct mem_flash *m = ctx;

	if (addr > m->size || len > m->size - addr)
		return cx_fail(st, CX_EIMAGE, "read of 0x%x bytes at 0x%x is outside the flash", len, addr);
	memcpy(buf, m->buf + addr, len);
	return CX_OK;
}

/* Find and parse the image in the dump; failures are recorded, not returned:
 * a card whose image is damaged is the one that most needs a backup. */
static int inspect(const struct device *d, const uint8_t *flash, struct found *f, struct cx_status *st)
{
	struct mem_flash m = {flash, d->flash.size};
	struct cx_status ist = {0};

	memset(f, 0, sizeof(*f));
	int rc = devimage_read(&f->di, mem_read, &m, d->flash.size, d->chip.desc->start_positions, &ist);
	if (rc == CX_ENOMEM)
		return cx_fail(st, CX_ENOMEM, "out of memory");
	if (rc) {
		snprintf(f->image_error, sizeof(f->image_error), "%s", ist.msg);
		return CX_OK;
	}
	if (f->di.parse_rc) {
		snprintf(f->image_error, sizeof(f->image_error), "%s", f->di.parse_msg);
		return CX_OK;
	}
	f->have_image = true;
	cx_status_clear(&ist);
	f->verdict = fs2_verdict(&f->di.img, &ist);
	if (f->verdict)
		snprintf(f->image_error, sizeof(f->image_error), "%s", ist.msg);
	if (f->di.img.fwconf_sect >= 0) {
		const struct fs2_item *s = &f->di.img.items[f->di.img.fwconf_sect];
		cx_status_clear(&ist);
		if (ini_inflate(f->di.buf + s->data_off, s->data_len, &f->ini, &f->ini_len, &ist)) {
			if (ist.code == CX_ENOMEM)
				return cx_fail(st, CX_ENOMEM, "out of memory");
			snprintf(f->ini_error, sizeof(f->ini_error), "%s", ist.msg);
			f->ini = NULL;
		}
	}
	return CX_OK;
}

static void found_free(struct found *f)
{
	devimage_free(&f->di);
	free(f->ini);
	f->ini = NULL;
}

/* name: filled and NUL-terminated; returns false if it did not fit. */
static bool bundle_name(const struct device *d, const struct found *f, const struct tm *t, char *name,
			size_t n)
{
	char who[64], stamp[24];
	size_t k = 0;

	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", t);
	if (!d->chip.recovery && f->have_image) {
		/* PSIDs are [A-Z0-9_]; anything else (a hostile image) becomes '_'. */
		const char *p = f->di.img.info.psid;
		for (; *p && k < 16; p++)
			who[k++] = ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
				    (*p >= '0' && *p <= '9') || *p == '_') ? *p : '_';
		if (!k)
			k = (size_t)snprintf(who, sizeof(who), "nopsid");
		snprintf(who + k, sizeof(who) - k, "-%016llx", (unsigned long long)f->di.img.guids.guid[0]);
	} else {
		k = (size_t)snprintf(who, sizeof(who), "%s-", d->chip.recovery ? "recovery" : "noimage");
		for (const char *p = d->pci.bdf; *p && k + 1 < sizeof(who); p++)
			who[k++] = *p == ':' ? '_' : *p;
		who[k] = '\0';
	}
	return (size_t)snprintf(name, n, "%s-%s-%s", d->chip.desc->slug, who, stamp) < n;
}

static int identity_json(const struct device *d, const struct found *f, const char *date,
			 const char *flash_hex, char **text, size_t *len, struct cx_status *st)
{
	char buf[64];
	struct json j;
	FILE *out = open_memstream(text, len);

	if (!out)
		return cx_fail(st, CX_ENOMEM, "out of memory");
	json_begin(&j, out);
	json_str(&j, "format", BACKUP_FORMAT);
	json_str(&j, "date", date);
	json_str(&j, "cxflash_version", CXFLASH_VERSION);
	json_str(&j, "bdf", d->pci.bdf);
	json_str(&j, "family", d->chip.desc->name);
	json_str(&j, "chip", chip_label(&d->chip, buf, sizeof(buf)));
	json_int(&j, "revision", d->chip.rev);
	json_hex(&j, "pci_device", d->pci.device, 4);
	json_hex(&j, "subsys_vendor", d->pci.subsys_vendor, 4);
	json_hex(&j, "subsys_device", d->pci.subsys_device, 4);
	json_bool(&j, "recovery", d->chip.recovery);
	json_str(&j, "flash", flash_describe(&d->flash, buf, sizeof(buf)));
	json_int(&j, "flash_size", d->flash.size);
	json_str(&j, "flash_sha256", flash_hex);

	const struct fs2_image *img = f->have_image ? &f->di.img : NULL;
	if (img) {
		json_int(&j, "image_start", f->di.start);
		json_int(&j, "image_slot", f->di.slot);
		json_bool(&j, "image_failsafe", f->di.failsafe);
		json_int(&j, "image_size", (long long)f->di.len);
	} else {
		json_null(&j, "image_start");
		json_null(&j, "image_slot");
		json_null(&j, "image_failsafe");
		json_null(&j, "image_size");
	}
	json_str(&j, "image_verdict", img ? cx_code_name(f->verdict) : "no-image");
	json_str(&j, "image_error", f->image_error[0] ? f->image_error : NULL);
	if (img) {
		fmt_fw_version(buf, sizeof(buf), img->info.fw_ver);
		json_str(&j, "fw_version", img->info.have[TAG_FW_VERSION] ? buf : NULL);
		json_str(&j, "psid", img->info.psid);
		json_str(&j, "vsd", img->info.vsd);
		json_int(&j, "guid_entries", img->guids.n);
		json_bool(&j, "guids_blank", img->guids.blank);
		json_obj(&j, "guids");
		for (int i = 0; i < 4; i++)
			json_hex(&j, guid_key[i], img->guids.guid[i], 16);
		json_close(&j);
		json_obj(&j, "macs");
		/* A MAC is the entry's low 48 bits: a blank entry is 64 bits of ones, which would
		 * print as 16 digits and fail the bundle's own check (no backup of a blank card). */
		for (int i = 0; i < 2; i++)
			json_hex(&j, mac_key[i], img->guids.mac[i] & 0xFFFFFFFFFFFFull, 12);
		json_close(&j);
		json_bool(&j, "macs_derived", img->guids.macs_derived);
	} else {
		static const char *const none[] = {"fw_version", "psid", "vsd", "guid_entries", "guids_blank",
						   "guids", "macs", "macs_derived"};
		for (unsigned i = 0; i < sizeof(none) / sizeof(none[0]); i++)
			json_null(&j, none[i]);
	}
	if (img && img->nroms > 0) {
		char t[12];
		snprintf(buf, sizeof(buf), "%d.%d.%d", img->roms[0].ver[0], img->roms[0].ver[1], img->roms[0].ver[2]);
		json_obj(&j, "rom");
		json_str(&j, "type", rom_type_name(img->roms[0].product, t));
		json_str(&j, "version", buf);
		json_close(&j);
	} else {
		json_null(&j, "rom");
	}
	json_str(&j, "board_ini", f->ini ? BACKUP_INI : NULL);
	json_str(&j, "board_ini_error", f->ini_error[0] ? f->ini_error : NULL);
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

static const char *const bundle_files[] = {BACKUP_FLASH, BACKUP_IDENTITY, BACKUP_INI, BACKUP_SUMS};

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
		if (join(r->path, sizeof(r->path), dir, r->name, st))
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
	char date[32], sums[1024] = "", hex[SHA256_HEX_LEN + 1], *idj = NULL;
	uint8_t dg[SHA256_LEN];
	size_t idlen = 0;
	time_t now = time(NULL);
	struct tm tm;
	int rc;

	gmtime_r(&now, &tm);
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", &tm);
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
	if ((rc = put_file(t->path, BACKUP_SUMS, sums, strlen(sums), st)) || (rc = sync_dir(t->path, st)))
		return rc;

	/* What is on the disk is what came off the card. */
	char path[BACKUP_PATH_MAX];
	uint64_t size;
	if ((rc = join(path, sizeof(path), t->path, BACKUP_FLASH, st)) || (rc = hash_file(path, dg, &size, st)))
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

int backup_card_ex(struct device *d, const char *dir, backup_progress_fn progress, void *ctx,
		   struct backup_result *r, struct cx_status *st)
{
	uint8_t *a = NULL, *b = NULL;
	struct found f;
	struct tmpdir t = {.made = false};
	int rc;

	memset(r, 0, sizeof(*r));
	memset(&f, 0, sizeof(f));
	if (!d->have_flash)
		return cx_fail(st, CX_ENODEV, "the card's flash is not open");
	if ((rc = check_dir(dir, st)))
		return rc;
	r->size = d->flash.size;
	r->recovery = d->chip.recovery;

	if (progress)
		progress(ctx, "reading the flash (1 of 2)");
	if ((rc = device_read_flash(d, &a, st)))
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

	if ((rc = inspect(d, a, &f, st)))
		goto out;
	r->have_image = f.have_image;
	if (progress)
		progress(ctx, "writing and checking the bundle");
	rc = write_bundle(d, a, &f, dir, &t, r, st);
out:
	tmp_remove(&t);
	found_free(&f);
	free(a);
	free(b);
	if (rc)
		r->path[0] = r->name[0] = '\0';
	return rc;
}

int backup_card(struct device *d, const char *dir, struct backup_result *r, struct cx_status *st)
{
	return backup_card_ex(d, dir, NULL, NULL, r, st);
}

/* ---- reading identity.json back: a small, strict JSON reader ---- */

enum jkind { J_STR, J_NUM, J_BOOL, J_NULL, J_OBJ, J_ARR };

#define J_DEPTH 8
#define J_PATH_MAX 96
#define J_STR_MAX 512 /* decoded bytes; the longest field, the VSD, is 208 */

struct jr {
	const char *p, *end;
	struct backup_identity *id;
	unsigned seen;          /* SEEN_* bits */
	struct cx_status *st;
};

static int jfail(struct jr *j, const char *what)
{
	return cx_fail(j->st, CX_EIMAGE, "%s: %s", BACKUP_IDENTITY, what);
}

static void jws(struct jr *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* A string at j->p (the opening quote) into out[cap]. \u00XX gives byte XX, as
 * util/json.c writes bytes outside printable ASCII; larger code points UTF-8. */
static int jstring(struct jr *j, char *out, size_t cap, size_t *outlen)
{
	size_t n = 0;

	j->p++;
	for (;;) {
		if (j->p >= j->end)
			return jfail(j, "unterminated string");
		unsigned char c = (unsigned char)*j->p++;
		unsigned v;
		if (c == '"')
			break;
		if (c < 0x20)
			return jfail(j, "control character in a string");
		if (c == '\\') {
			if (j->p >= j->end)
				return jfail(j, "unterminated string");
			switch (*j->p++) {
			case '"': v = '"'; break;
			case '\\': v = '\\'; break;
			case '/': v = '/'; break;
			case 'b': v = '\b'; break;
			case 'f': v = '\f'; break;
			case 'n': v = '\n'; break;
			case 'r': v = '\r'; break;
			case 't': v = '\t'; break;
			case 'u':
				if (j->end - j->p < 4)
					return jfail(j, "bad \\u escape");
				v = 0;
				for (int i = 0; i < 4; i++) {
					int h = hexval(j->p[i]);
					if (h < 0)
						return jfail(j, "bad \\u escape");
					v = v << 4 | (unsigned)h;
				}
				j->p += 4;
				if (v == 0)
					return jfail(j, "NUL in a string");
				break;
			default:
				return jfail(j, "bad escape in a string");
			}
		} else {
			v = c; /* a raw byte, UTF-8 or not */
		}
		unsigned char enc[3];
		size_t k = 0;
		if (v < 0x100) {
			enc[k++] = (unsigned char)v;
		} else if (v < 0x800) {
			enc[k++] = (unsigned char)(0xC0 | v >> 6);
			enc[k++] = (unsigned char)(0x80 | (v & 0x3F));
		} else {
			enc[k++] = (unsigned char)(0xE0 | v >> 12);
			enc[k++] = (unsigned char)(0x80 | ((v >> 6) & 0x3F));
			enc[k++] = (unsigned char)(0x80 | (v & 0x3F));
		}
		if (n + k >= cap)
			return jfail(j, "string too long");
		memcpy(out + n, enc, k);
		n += k;
	}
	out[n] = '\0';
	*outlen = n;
	return CX_OK;
}

/* A number per RFC 8259's grammar, copied into out. */
static int jnumber(struct jr *j, char *out, size_t cap)
{
	const char *s = j->p;

	if (j->p < j->end && *j->p == '-')
		j->p++;
	if (j->p >= j->end || *j->p < '0' || *j->p > '9')
		return jfail(j, "bad number");
	if (*j->p == '0')
		j->p++;
	else
		while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
			j->p++;
	if (j->p < j->end && *j->p == '.') {
		j->p++;
		if (j->p >= j->end || *j->p < '0' || *j->p > '9')
			return jfail(j, "bad number");
		while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
			j->p++;
	}
	if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
		j->p++;
		if (j->p < j->end && (*j->p == '+' || *j->p == '-'))
			j->p++;
		if (j->p >= j->end || *j->p < '0' || *j->p > '9')
			return jfail(j, "bad number");
		while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
			j->p++;
	}
	if ((size_t)(j->p - s) >= cap)
		return jfail(j, "number too long");
	memcpy(out, s, (size_t)(j->p - s));
	out[j->p - s] = '\0';
	return CX_OK;
}

/* ---- identity fields ---- */

enum {
	SEEN_FORMAT = 1u << 0, SEEN_DATE = 1u << 1, SEEN_BDF = 1u << 2, SEEN_CHIP = 1u << 3,
	SEEN_FAMILY = 1u << 4, SEEN_RECOVERY = 1u << 5, SEEN_SIZE = 1u << 6, SEEN_SHA = 1u << 7,
	SEEN_START = 1u << 8, SEEN_FW = 1u << 9, SEEN_PSID = 1u << 10, SEEN_GUIDS = 1u << 11,
	SEEN_MACS = 1u << 12, SEEN_VSD = 1u << 13, SEEN_SLOT = 1u << 14,
	SEEN_REQUIRED = SEEN_FORMAT | SEEN_DATE | SEEN_BDF | SEEN_CHIP | SEEN_FAMILY | SEEN_RECOVERY |
			SEEN_SIZE | SEEN_SHA,
	SEEN_IMAGE = SEEN_START | SEEN_SLOT | SEEN_FW | SEEN_PSID | SEEN_VSD,
};

struct field_str {
	const char *path;
	size_t off, size;
	unsigned seen;
};

#define FS(p, m, s) {p, offsetof(struct backup_identity, m), sizeof(((struct backup_identity *)0)->m), s}
static const struct field_str str_fields[] = {
	FS("format", format, SEEN_FORMAT), FS("date", date, SEEN_DATE),
	FS("cxflash_version", cxflash_version, 0), FS("bdf", bdf, SEEN_BDF), FS("family", family, SEEN_FAMILY),
	FS("chip", chip, SEEN_CHIP), FS("flash", flash, 0), FS("flash_sha256", flash_sha256, SEEN_SHA),
	FS("fw_version", fw_version, SEEN_FW), FS("psid", psid, SEEN_PSID), FS("vsd", vsd, SEEN_VSD),
	FS("rom.type", rom_type, 0), FS("rom.version", rom_version, 0),
};

/* Up to maxdigits hex digits, nothing else. */
static bool parse_hex(const char *s, unsigned maxdigits, uint64_t *v)
{
	size_t n = strlen(s);

	if (!n || n > maxdigits)
		return false;
	*v = 0;
	for (size_t i = 0; i < n; i++) {
		int h = hexval(s[i]);
		if (h < 0)
			return false;
		*v = *v << 4 | (uint64_t)h;
	}
	return true;
}

/* A non-negative integer no larger than max. */
static bool parse_uint(const char *s, uint64_t max, uint64_t *v)
{
	*v = 0;
	if (!*s)
		return false;
	for (; *s; s++) {
		uint64_t digit = (uint64_t)(*s - '0');
		if (*s < '0' || *s > '9' || digit > max || *v > (max - digit) / 10)
			return false;
		*v = *v * 10 + (uint64_t)(*s - '0');
	}
	return true;
}

static int bad_field(struct jr *j, const char *path, const char *want)
{
	char m[160];

	snprintf(m, sizeof(m), "'%s' is not %s", path, want);
	return jfail(j, m);
}

/* One scalar (or a null object) at path. Unknown paths are ignored. */
static int field(struct jr *j, const char *path, enum jkind k, const char *v)
{
	struct backup_identity *id = j->id;
	uint64_t x;

	for (unsigned i = 0; i < sizeof(str_fields) / sizeof(str_fields[0]); i++) {
		const struct field_str *f = &str_fields[i];
		if (strcmp(path, f->path))
			continue;
		if (k == J_NULL)
			return CX_OK;
		if (k != J_STR)
			return bad_field(j, path, "a string");
		if (strlen(v) >= f->size)
			return bad_field(j, path, "of a sensible length");
		memcpy((char *)id + f->off, v, strlen(v) + 1);
		j->seen |= f->seen;
		return CX_OK;
	}
	for (int i = 0; i < 4; i++) {
		char p[24];
		snprintf(p, sizeof(p), "guids.%s", guid_key[i]);
		if (strcmp(path, p))
			continue;
		if (k != J_STR || !parse_hex(v, 16, &id->guid[i]))
			return bad_field(j, path, "a GUID (hex string)");
		j->seen |= i == 0 ? SEEN_GUIDS : 0;
		return CX_OK;
	}
	for (int i = 0; i < 2; i++) {
		char p[24];
		snprintf(p, sizeof(p), "macs.%s", mac_key[i]);
		if (strcmp(path, p))
			continue;
		if (k != J_STR || !parse_hex(v, 12, &id->mac[i]))
			return bad_field(j, path, "a MAC (hex string)");
		j->seen |= i == 0 ? SEEN_MACS : 0;
		return CX_OK;
	}
	if (!strcmp(path, "pci_device") || !strcmp(path, "subsys_vendor") || !strcmp(path, "subsys_device")) {
		if (k != J_STR || !parse_hex(v, 4, &x))
			return bad_field(j, path, "a 16-bit hex string");
		*(path[0] == 'p' ? &id->pci_device : path[7] == 'v' ? &id->subsys_vendor : &id->subsys_device) =
			(uint16_t)x;
		return CX_OK;
	}
	if (!strcmp(path, "recovery")) {
		if (k != J_BOOL)
			return bad_field(j, path, "true or false");
		id->recovery = !strcmp(v, "true");
		j->seen |= SEEN_RECOVERY;
		return CX_OK;
	}
	if (!strcmp(path, "board_ini")) {
		if (k == J_NULL)
			return CX_OK;
		if (k != J_STR || strcmp(v, BACKUP_INI))
			return bad_field(j, path, "null or \"" BACKUP_INI "\"");
		id->have_ini = true;
		return CX_OK;
	}
	static const struct {
		const char *path;
		uint64_t max;
		unsigned seen;
	} ints[] = {{"revision", 255, 0}, {"flash_size", UINT32_MAX, SEEN_SIZE}, {"image_start", UINT32_MAX, SEEN_START},
		    {"image_slot", 1, SEEN_SLOT}, {"guid_entries", 32, 0}};
	for (unsigned i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) {
		if (strcmp(path, ints[i].path))
			continue;
		if (k == J_NULL && ints[i].seen != SEEN_SIZE)
			return CX_OK;
		if (k != J_NUM || !parse_uint(v, ints[i].max, &x))
			return bad_field(j, path, "a whole number in range");
		switch (i) {
		case 0: id->revision = (unsigned)x; break;
		case 1: id->flash_size = (uint32_t)x; break;
		case 2: id->image_start = (uint32_t)x; break;
		case 3: id->image_slot = (unsigned)x; break;
		default: id->guid_entries = (int)x; break;
		}
		j->seen |= ints[i].seen;
		return CX_OK;
	}
	return CX_OK;
}

static int jvalue(struct jr *j, const char *path, int depth)
{
	char buf[J_STR_MAX];
	size_t n;

	jws(j);
	if (j->p >= j->end)
		return jfail(j, "ends too early");
	char c = *j->p;
	if (c == '{' || c == '[') {
		if (depth >= J_DEPTH)
			return jfail(j, "nested too deep");
		char close = c == '{' ? '}' : ']';
		j->p++;
		jws(j);
		if (j->p < j->end && *j->p == close) {
			j->p++;
			return CX_OK;
		}
		for (;;) {
			char child[J_PATH_MAX];
			jws(j);
			if (c == '{') {
				if (j->p >= j->end || *j->p != '"')
					return jfail(j, "expected a key");
				if (jstring(j, buf, 64, &n))
					return j->st->code;
				if ((size_t)snprintf(child, sizeof(child), "%s%s%s", path, *path ? "." : "", buf) >=
				    sizeof(child))
					return jfail(j, "key path too long");
				jws(j);
				if (j->p >= j->end || *j->p != ':')
					return jfail(j, "expected ':'");
				j->p++;
			} else {
				/* Arrays are allowed but nothing in them is a field. */
				snprintf(child, sizeof(child), "[]");
			}
			if (jvalue(j, child, depth + 1))
				return j->st->code;
			jws(j);
			if (j->p < j->end && *j->p == ',') {
				j->p++;
				continue;
			}
			if (j->p < j->end && *j->p == close) {
				j->p++;
				return CX_OK;
			}
			return jfail(j, c == '{' ? "expected ',' or '}'" : "expected ',' or ']'");
		}
	}
	if (c == '"') {
		if (jstring(j, buf, sizeof(buf), &n))
			return j->st->code;
		if (strlen(buf) != n)
			return jfail(j, "NUL in a string");
		return field(j, path, J_STR, buf);
	}
	static const struct {
		const char *word;
		enum jkind k;
	} words[] = {{"true", J_BOOL}, {"false", J_BOOL}, {"null", J_NULL}};
	for (unsigned i = 0; i < 3; i++) {
		size_t l = strlen(words[i].word);
		if ((size_t)(j->end - j->p) >= l && !memcmp(j->p, words[i].word, l)) {
			j->p += l;
			return field(j, path, words[i].k, words[i].word);
		}
	}
	if (c == '-' || (c >= '0' && c <= '9')) {
		if (jnumber(j, buf, 64))
			return j->st->code;
		return field(j, path, J_NUM, buf);
	}
	return jfail(j, "unexpected character");
}

int backup_parse_identity(const char *text, size_t len, struct backup_identity *id, struct cx_status *st)
{
	struct jr j = {text, text + len, id, 0, st};

	memset(id, 0, sizeof(*id));
	jws(&j);
	if (j.p >= j.end || *j.p != '{')
		return jfail(&j, "not a JSON object");
	if (jvalue(&j, "", 0))
		return st->code;
	jws(&j);
	if (j.p != j.end)
		return jfail(&j, "text after the object");
	if ((j.seen & SEEN_REQUIRED) != SEEN_REQUIRED)
		return jfail(&j, "a required field (format, date, bdf, family, chip, recovery, flash_size, "
				 "flash_sha256) is missing");
	if (strcmp(id->format, BACKUP_FORMAT))
		return jfail(&j, "not a " BACKUP_FORMAT " record");
	if (strlen(id->flash_sha256) != SHA256_HEX_LEN ||
	    strspn(id->flash_sha256, "0123456789abcdef") != SHA256_HEX_LEN)
		return jfail(&j, "flash_sha256 is not 64 lowercase hex digits");
	if (!id->flash_size)
		return jfail(&j, "flash_size is 0");
	if (j.seen & SEEN_START) {
		if ((j.seen & (SEEN_IMAGE | SEEN_GUIDS | SEEN_MACS)) != (SEEN_IMAGE | SEEN_GUIDS | SEEN_MACS))
			return jfail(&j, "image fields are incomplete (image_slot, fw_version, psid, vsd, guids, macs)");
		if (id->image_start >= id->flash_size)
			return jfail(&j, "image_start is outside the flash");
		id->have_image = true;
	} else if (j.seen & (SEEN_PSID | SEEN_GUIDS | SEEN_MACS | SEEN_FW)) {
		return jfail(&j, "image fields without image_start");
	}
	return CX_OK;
}

int backup_load_identity(const char *bundle_dir, struct backup_identity *id, struct cx_status *st)
{
	char path[BACKUP_PATH_MAX];
	uint8_t *buf;
	size_t len;
	int rc;

	memset(id, 0, sizeof(*id));
	if ((rc = join(path, sizeof(path), bundle_dir, BACKUP_IDENTITY, st)) ||
	    (rc = file_read(path, BACKUP_META_MAX, &buf, &len, st)))
		return rc;
	rc = backup_parse_identity((const char *)buf, len, id, st);
	free(buf);
	return rc;
}

/* ---- checking a bundle ---- */

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

	if ((rc = join(path, sizeof(path), bundle_dir, BACKUP_SUMS, st)) ||
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
		if ((rc = join(path, sizeof(path), bundle_dir, sums[i].name, st)) ||
		    (rc = hash_file(path, dg, &size, st)))
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
