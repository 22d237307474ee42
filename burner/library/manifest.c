/* SPDX-License-Identifier: GPL-2.0-or-later */
/* manifest.c — scanning the library folders: what each .bin is, and whether to trust it. */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dev/chip.h"
#include "image/fs2.h"
#include "image/fs3.h"
#include "image/imgfile.h"
#include "library/manifest_fs3.h"
#include "image/ini.h"
#include "library/ini_diff.h"
#include "library/manifest.h"
#include "util/json.h"
#include "util/sha256.h"

/* The parsed .ini of each entry, index for index: the fact pointers point into
 * these docs' text, which stays put when either array grows. */
struct docs {
	struct ini_doc *d;
	size_t cap;
};

/* ConnectX-2 SW device ids (fs2-format.md §6, mstflint v4.20.1 hwDevData), and the
 * Ethernet-only ones among them (flint's CntxEthOnly). */
static const uint16_t cx2_types[] = {25408, 25418, 26418, 26438, 26428, 25448, 26448,
				     26468, 25458, 26458, 26478, 26488, 4097,  4098};
static const uint16_t cx2_eth_only[] = {25448, 26448, 25458, 26458, 26468, 26478};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static bool in(uint16_t v, const uint16_t *a, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i] == v)
			return true;
	return false;
}

bool manifest_family_of_hw(uint16_t hw_id, enum cx_family *f)
{
	const struct chip_desc *c = chip_by_hw_id(hw_id);

	if (!c)
		return false;
	*f = c->family;
	return true;
}

bool manifest_family_of_devtype(uint16_t dev_type, enum cx_family *f)
{
	/* §6: CX3 4099-4102 and 4104-4112, CX3 Pro 4103 */
	if (in(dev_type, cx2_types, COUNT(cx2_types)))
		*f = CXF_CX2;
	else if (dev_type == 4103)
		*f = CXF_CX3PRO;
	else if (dev_type >= 4099 && dev_type <= 4112)
		*f = CXF_CX3;
	else
		return false;
	return true;
}

/* The .ini's PCI class code as a number, or -1 when absent or not a numeral. */
static long class_code(const struct ini_doc *d)
{
	const char *v = ini_doc_get(d, "HCA", "hca_header_class_code");
	char *end;

	if (!v || !*v)
		return -1;
	errno = 0;
	unsigned long x = strtoul(v, &end, 0);
	if (errno || *end || x > 0xFFFFFF || *v == '-' || *v == '+')
		return -1;
	return (long)x;
}

static enum board_port port_type(uint16_t dev_type, const char *psid, const struct ini_doc *d,
				 const struct board_table *t, char *basis, size_t basis_len)
{
	const struct board *b = t ? boards_by_psid(t, psid) : NULL;
	long cc;

	if (b && b->port != BOARD_PORT_NONE) {
		snprintf(basis, basis_len, "board table: %s is %s (%s:%u)", b->oem_psid, board_port_name(b->port),
			 b->file ? b->file : "boards", b->line);
		return b->port;
	}
	if (in(dev_type, cx2_eth_only, COUNT(cx2_eth_only))) {
		snprintf(basis, basis_len, "device type %u is an Ethernet-only ConnectX-2", dev_type);
		return BOARD_PORT_EN;
	}
	/* The base class and subclass are the top two bytes; the interface byte is free. */
	if (d && (cc = class_code(d)) >= 0) {
		unsigned cls = (unsigned)cc >> 8;
		const char *what = cls == 0x0200 ? "Ethernet controller" : cls == 0x0280 ? "network controller"
				 : cls == 0x0c06 ? "InfiniBand controller" : NULL;
		if (what) {
			snprintf(basis, basis_len, ".ini hca_header_class_code 0x%06lx: %s (inferred)", cc, what);
			return cls == 0x0200 ? BOARD_PORT_EN : BOARD_PORT_VPI;
		}
	}
	snprintf(basis, basis_len, "unknown");
	return BOARD_PORT_NONE;
}

enum board_port manifest_port_type(uint16_t dev_type, const char *psid, const char *ini_text, size_t ini_len,
				   const struct board_table *t, char *basis, size_t basis_len)
{
	struct ini_doc d = {0};
	struct cx_status ignore = {0};
	char tmp[160];

	if (!basis || !basis_len) {
		basis = tmp;
		basis_len = sizeof(tmp);
	}
	/* an .ini that does not parse is no evidence, like none */
	bool have = ini_text && ini_doc_parse(ini_text, ini_len, &d, &ignore) == CX_OK;
	enum board_port p = port_type(dev_type, psid, have ? &d : NULL, t, basis, basis_len);
	ini_doc_free(&d);
	return p;
}

/* ---- one file ---- */

static int grow(struct manifest *m, struct cx_status *st)
{
	struct docs *docs = m->priv;
	size_t cap = docs ? docs->cap : 0;

	if (m->n >= MANIFEST_MAX_FILES)
		return cx_fail(st, CX_EUNSUPPORTED, "more than %d firmware files: split the library", MANIFEST_MAX_FILES);
	if (!docs && !(docs = m->priv = calloc(1, sizeof(*docs))))
		return cx_fail(st, CX_ENOMEM, "out of memory");
	if (m->n < cap)
		return CX_OK;
	cap = cap ? cap * 2 : 16;
	struct manifest_entry *e = realloc(m->e, cap * sizeof(*e));
	if (e)
		m->e = e;
	struct ini_doc *d = realloc(docs->d, cap * sizeof(*d));
	if (d)
		docs->d = d;
	if (!e || !d)
		return cx_fail(st, CX_ENOMEM, "out of memory");
	docs->cap = cap;
	return CX_OK;
}

/* A bad file: recorded, never fatal. The first reason stays. */
static void refuse(struct manifest_entry *e, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void refuse(struct manifest_entry *e, int code, const char *fmt, ...)
{
	va_list ap;

	if (e->status != CX_OK)
		return;
	e->status = code;
	va_start(ap, fmt);
	vsnprintf(e->reason, sizeof(e->reason), fmt, ap);
	va_end(ap);
}

static void read_ini(struct manifest_entry *e, struct ini_doc *d, const struct fs2_image *img)
{
	const struct fs2_item *s = &img->items[img->fwconf_sect];
	struct cx_status st = {0};

	if (ini_inflate(img->buf + s->data_off, s->data_len, &e->ini_text, &e->ini_len, &st) ||
	    ini_doc_parse(e->ini_text, e->ini_len, d, &st)) {
		refuse(e, st.code == CX_ENOMEM ? CX_ENOMEM : CX_EIMAGE, "FW_CONF: %s", st.msg);
		free(e->ini_text);
		e->ini_text = NULL;
		e->ini_len = 0;
		return;
	}
	e->have_ini = true;
	e->ini_name = ini_doc_get(d, "PS_INFO", "Name");
	e->ini_description = ini_doc_get(d, "PS_INFO", "Description");
	e->ini_device_id = ini_doc_get(d, "HCA", "hca_header_device_id");
	e->ini_subsystem_id = ini_doc_get(d, "HCA", "hca_header_subsystem_id");
	e->ini_class_code = ini_doc_get(d, "HCA", "hca_header_class_code");
	e->ini_num_ports = ini_doc_get(d, "IB", "num_of_ports");
	e->ini_flash_size = ini_doc_get(d, "FW", "log_flashdev_size");
}

static void check_pin(struct manifest_entry *e, const struct board_table *t)
{
	const char *want;

	if (!t || !boards_pin(t, e->psid, e->fw_ver, &want, &e->pin_line))
		return;
	if (!strcmp(want, e->sha256)) {
		e->pin = PIN_OK;
		return;
	}
	e->pin = PIN_MISMATCH;
	refuse(e, CX_EMISMATCH, "sha256 %.12s... differs from the one pinned for %s %u.%u.%u (%s:%u): refused",
	       e->sha256, e->psid, e->fw_ver[0], e->fw_ver[1], e->fw_ver[2], t->name ? t->name : "boards",
	       e->pin_line);
}

/* What the parsed image says about itself. */
static void read_facts(struct manifest_entry *e, struct ini_doc *d, const struct fs2_image *img,
		       const struct board_table *t)
{
	const struct fs2_info *in = &img->info;

	memcpy(e->psid, in->psid, sizeof(e->psid));
	memcpy(e->fw_ver, in->fw_ver, sizeof(e->fw_ver));
	e->dev_type = in->dev_type;
	e->nhw_ids = in->nhw_ids < INFO_MAX_HW_IDS ? in->nhw_ids : INFO_MAX_HW_IDS;
	memcpy(e->hw_ids, in->hw_ids, sizeof(e->hw_ids));
	e->have_family = e->nhw_ids ? manifest_family_of_hw((uint16_t)e->hw_ids[0], &e->family)
				    : manifest_family_of_devtype(e->dev_type, &e->family);
	if (!e->have_family && e->nhw_ids)
		e->have_family = manifest_family_of_devtype(e->dev_type, &e->family);
	e->nroms = img->nroms < ROM_MAX_IMAGES ? img->nroms : ROM_MAX_IMAGES;
	memcpy(e->roms, img->roms, sizeof(e->roms));
	if (img->fwconf_sect >= 0)
		read_ini(e, d, img);
	e->port = port_type(e->dev_type, e->psid, e->have_ini ? d : NULL, t, e->port_basis,
			    sizeof(e->port_basis));
	check_pin(e, t);
}

static bool is_fs3(const uint8_t *buf, size_t len)
{
	enum fs3_fmt f = fs3_detect(buf, len);

	return f == FMT_FS3 || f == FMT_FS4;
}

static void hash_file(struct manifest_entry *e, const uint8_t *buf, size_t len)
{
	uint8_t d[SHA256_LEN];

	sha256(buf, len, d);
	sha256_hex(d, e->sha256);
}

int manifest_add_file(struct manifest *m, const char *path, const struct board_table *t,
		      struct cx_status *st)
{
	struct stat sb;
	struct imgfile f;
	struct cx_status fst = {0};

	if (grow(m, st))
		return st->code;
	struct manifest_entry *e = &m->e[m->n];
	struct ini_doc *d = &((struct docs *)m->priv)->d[m->n];
	memset(e, 0, sizeof(*e));
	memset(d, 0, sizeof(*d));
	if (!(e->path = strdup(path)))
		return cx_fail(st, CX_ENOMEM, "out of memory");
	e->name = strrchr(e->path, '/') ? strrchr(e->path, '/') + 1 : e->path;
	m->n++;

	if (stat(path, &sb)) {
		refuse(e, CX_EIO, "%s: %s", path, strerror(errno));
		return CX_OK;
	}
	e->size = (uint64_t)sb.st_size;
	/* Checked before reading: a wrong file (a disk image, say) is refused unread. */
	if (!S_ISREG(sb.st_mode)) {
		refuse(e, CX_EIMAGE, "not a regular file");
		return CX_OK;
	}
	if (e->size > IMGFILE_MAX) {
		refuse(e, CX_EIMAGE, "%llu bytes; a firmware image is at most %u MiB", (unsigned long long)e->size,
		       IMGFILE_MAX >> 20);
		return CX_OK;
	}

	int rc = imgfile_open(&f, path, false, &fst);
	if (f.raw) {
		e->size = f.raw_len; /* what was hashed, should the file have changed since stat() */
		hash_file(e, f.raw, f.raw_len);
	}
	e->format = FMT_FS2;
	if (rc != CX_OK && f.raw && is_fs3(f.raw, f.raw_len)) {
		/* ConnectX-4 and later: its own reader, the same entry (manifest_fs3.h) */
		char why[CX_MSG_MAX];
		rc = manifest_fs3_facts(e, f.raw, f.raw_len, why, sizeof(why));
		if (rc && rc != CX_ENOMEM)
			refuse(e, rc, "%s", why);
		if (rc != CX_ENOMEM) {
			e->port = port_type(0, e->psid, NULL, t, e->port_basis, sizeof(e->port_basis));
			check_pin(e, t);
			rc = CX_OK;
		} else {
			snprintf(fst.msg, sizeof(fst.msg), "%s", why);
		}
	} else if (rc == CX_OK) {
		/* A release carries blank GUIDs on purpose: the burner keeps the card's. */
		struct cx_status vst = {0};
		int v = fs2_verdict(&f.img, &vst);
		if (v && v != CX_EBLANK)
			refuse(e, CX_EIMAGE, "%s", vst.msg);
		read_facts(e, d, &f.img, t);
	} else if (rc != CX_ENOMEM) {
		refuse(e, rc == CX_EIO ? CX_EIO : CX_EIMAGE, "%s", fst.msg);
	}
	imgfile_close(&f);
	if (rc == CX_ENOMEM || e->status == CX_ENOMEM) {
		/* not a fact about the file: the scan fails, and the entry goes */
		cx_fail(st, CX_ENOMEM, "%s: %s", path, rc == CX_ENOMEM ? fst.msg : e->reason);
		free(e->path);
		free(e->ini_text);
		ini_doc_free(d);
		m->n--;
		return CX_ENOMEM;
	}
	return CX_OK;
}

/* ---- folders ---- */

static bool is_bin(const char *name)
{
	size_t n = strlen(name);

	return n > 4 && name[n - 4] == '.' && (name[n - 3] | 0x20) == 'b' && (name[n - 2] | 0x20) == 'i' &&
	       (name[n - 1] | 0x20) == 'n';
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The .bin names of one folder, sorted; a folder that is not there has none. */
static int list_dir(const char *dir, char ***names, size_t *n, struct cx_status *st)
{
	DIR *dp = opendir(dir);
	struct dirent *de;
	size_t cap = 0;

	*names = NULL;
	*n = 0;
	if (!dp) {
		if (errno == ENOENT)
			return CX_OK;
		return cx_fail(st, CX_EIO, "%s: %s", dir, strerror(errno));
	}
	errno = 0;
	while ((de = readdir(dp))) {
		if (!is_bin(de->d_name))
			continue;
		if (*n == cap) {
			size_t ncap = cap ? cap * 2 : 16;
			char **r = realloc(*names, ncap * sizeof(*r));
			if (!r)
				goto nomem;
			*names = r;
			cap = ncap;
		}
		if (!((*names)[*n] = strdup(de->d_name)))
			goto nomem;
		++*n;
		errno = 0;
	}
	if (errno) {
		cx_fail(st, CX_EIO, "%s: %s", dir, strerror(errno));
		goto fail;
	}
	closedir(dp);
	if (*n)
		qsort(*names, *n, sizeof(**names), by_name);
	return CX_OK;
nomem:
	cx_fail(st, CX_ENOMEM, "out of memory");
fail:
	closedir(dp);
	while (*n)
		free((*names)[--*n]);
	free(*names);
	*names = NULL;
	return st->code;
}

/* Whether path is a regular file (through a symlink too); subfolders are never entered. */
static bool regular(const char *path)
{
	struct stat sb;

	return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

int manifest_scan(const char *const *dirs, size_t ndirs, const struct board_table *t, struct manifest *m,
		  struct cx_status *st)
{
	memset(m, 0, sizeof(*m));
	for (size_t i = 0; i < ndirs; i++) {
		char **names;
		size_t n;
		int rc = list_dir(dirs[i], &names, &n, st);

		for (size_t k = 0; k < n; k++) {
			size_t len = strlen(dirs[i]) + strlen(names[k]) + 2;
			char *path = malloc(len);

			if (rc) {
				/* failed already: only the names are left to free */
			} else if (!path) {
				rc = cx_fail(st, CX_ENOMEM, "out of memory");
			} else {
				snprintf(path, len, "%s/%s", dirs[i], names[k]);
				if (regular(path))
					rc = manifest_add_file(m, path, t, st);
			}
			free(path);
			free(names[k]);
		}
		free(names);
		if (rc) {
			manifest_free(m);
			return rc;
		}
	}
	return CX_OK;
}

void manifest_free(struct manifest *m)
{
	struct docs *docs = m->priv;

	for (size_t i = 0; i < m->n; i++) {
		free(m->e[i].path);
		free(m->e[i].ini_text);
		if (docs)
			ini_doc_free(&docs->d[i]);
	}
	if (docs)
		free(docs->d);
	free(docs);
	free(m->e);
	memset(m, 0, sizeof(*m));
}

const struct manifest_entry *manifest_find(const struct manifest *m, const char *which)
{
	if (!which)
		return NULL;
	for (size_t i = 0; i < m->n; i++)
		if (!strcmp(m->e[i].path, which) || !strcmp(m->e[i].name, which))
			return &m->e[i];
	for (size_t i = 0; i < m->n; i++)
		if (m->e[i].status == CX_OK && !strcmp(m->e[i].psid, which))
			return &m->e[i];
	return NULL;
}

/* ---- JSON ---- */

static const char *pin_name(enum manifest_pin p)
{
	return p == PIN_OK ? "ok" : p == PIN_MISMATCH ? "mismatch" : "none";
}

static void json_ver(struct json *j, const char *key, const uint16_t v[3])
{
	char s[24];

	snprintf(s, sizeof(s), "%u.%u.%u", v[0], v[1], v[2]);
	json_str(j, key, s);
}

/* The format, and what only FS3/FS4 files say (null for FS2). */
static void json_fs3(struct json *j, const struct manifest_entry *e)
{
	bool fs3 = e->format == FMT_FS3 || e->format == FMT_FS4;

	json_str(j, "format", e->format == FMT_FS4 ? "FS4" : fs3 ? "FS3" : "FS2");
	if (!fs3) {
		json_null(j, "slot_size");
		json_null(j, "security");
		return;
	}
	json_int(j, "slot_size", 1ll << e->log2_slot);
	json_obj(j, "security");
	json_bool(j, "mcc_en", e->mcc_en);
	json_bool(j, "signed_fw", e->signed_fw);
	json_bool(j, "secure_fw", e->secure_fw);
	json_close(j);
}

static void json_entry(struct json *j, const struct manifest_entry *e)
{
	/* The image's facts mean something only when it parsed; otherwise null. */
	bool parsed = e->status == CX_OK || e->status == CX_EMISMATCH;
	char tmp[16];

	json_obj(j, NULL);
	json_str(j, "path", e->path);
	json_str(j, "name", e->name);
	json_int(j, "size", (long long)e->size);
	json_str(j, "sha256", e->sha256[0] ? e->sha256 : NULL);
	json_str(j, "status", cx_code_name(e->status));
	json_str(j, "reason", e->status ? e->reason : NULL);
	if (!parsed) {
		static const char *const facts[] = {"psid", "fw_version", "dev_type", "family", "hw_ids",
						    "roms", "port", "port_basis", "pin", "ini", "format",
						    "slot_size", "security"};
		for (size_t i = 0; i < COUNT(facts); i++)
			json_null(j, facts[i]);
		json_close(j);
		return;
	}
	json_str(j, "psid", e->psid);
	json_ver(j, "fw_version", e->fw_ver);
	json_int(j, "dev_type", e->dev_type);
	json_str(j, "family", e->have_family ? board_family_name(e->family) : NULL);
	json_arr(j, "hw_ids");
	for (int i = 0; i < e->nhw_ids; i++) {
		json_obj(j, NULL);
		snprintf(tmp, sizeof(tmp), "0x%x", (unsigned)(e->hw_ids[i] & 0xFFFF));
		json_str(j, "hw_id", tmp);
		json_int(j, "rev", e->hw_ids[i] >> 16);
		json_close(j);
	}
	json_close(j);
	json_arr(j, "roms");
	for (int i = 0; i < e->nroms; i++) {
		char t[12];
		json_obj(j, NULL);
		json_str(j, "type", rom_type_name(e->roms[i].product, t));
		json_ver(j, "version", e->roms[i].ver);
		json_close(j);
	}
	json_close(j);
	json_str(j, "port", e->port == BOARD_PORT_NONE ? "unknown" : board_port_name(e->port));
	json_str(j, "port_basis", e->port_basis);
	json_str(j, "pin", pin_name(e->pin));
	json_fs3(j, e);
	if (e->have_ini) {
		json_obj(j, "ini");
		json_str(j, "name", e->ini_name);
		json_str(j, "description", e->ini_description);
		json_str(j, "device_id", e->ini_device_id);
		json_str(j, "subsystem_id", e->ini_subsystem_id);
		json_str(j, "class_code", e->ini_class_code);
		json_str(j, "num_ports", e->ini_num_ports);
		json_str(j, "flash_size", e->ini_flash_size);
		json_close(j);
	} else {
		json_null(j, "ini");
	}
	json_close(j);
}

/* Depth: {files [ {entry hw_ids [ {id} ] } ] } is 5 levels, within JSON_DEPTH. */
_Static_assert(JSON_DEPTH >= 5, "manifest JSON nests 5 levels");

void manifest_write_json(const struct manifest *m, FILE *out)
{
	struct json j;

	json_begin(&j, out);
	json_arr(&j, "files");
	for (size_t i = 0; i < m->n; i++)
		json_entry(&j, &m->e[i]);
	json_close(&j);
	json_end(&j);
}
