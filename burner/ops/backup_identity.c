/* SPDX-License-Identifier: GPL-2.0-or-later */
/* backup_identity.c — reading a bundle's identity.json back (see backup.h): which
 * field goes where, what each may hold and which must be there. util/json_read
 * reads the JSON; backup.c writes the record. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "ops/backup.h"
#include "util/fileio.h"
#include "util/json_read.h"

enum {
	SEEN_FORMAT = 1u << 0, SEEN_DATE = 1u << 1, SEEN_BDF = 1u << 2, SEEN_CHIP = 1u << 3,
	SEEN_FAMILY = 1u << 4, SEEN_RECOVERY = 1u << 5, SEEN_SIZE = 1u << 6, SEEN_SHA = 1u << 7,
	SEEN_START = 1u << 8, SEEN_FW = 1u << 9, SEEN_PSID = 1u << 10, SEEN_GUIDS = 1u << 11,
	SEEN_MACS = 1u << 12, SEEN_VSD = 1u << 13, SEEN_SLOT = 1u << 14,
	SEEN_REQUIRED = SEEN_FORMAT | SEEN_DATE | SEEN_BDF | SEEN_CHIP | SEEN_FAMILY | SEEN_RECOVERY |
			SEEN_SIZE | SEEN_SHA,
	SEEN_IMAGE = SEEN_START | SEEN_SLOT | SEEN_FW | SEEN_PSID | SEEN_VSD,
};

/* A field: where it goes in struct backup_identity and which SEEN_* bit it sets.
 * A repeated key overwrites; null leaves what is there. */
struct field {
	const char *path;
	size_t off, size;
	unsigned seen;
	uint64_t max;       /* numbers: the largest; hex strings: the most digits */
	const char *want;   /* hex strings: what the message calls them */
};

#define AT(m) offsetof(struct backup_identity, m), sizeof(((struct backup_identity *)0)->m)

static const struct field str_fields[] = {
	{"format", AT(format), SEEN_FORMAT, 0, NULL}, {"date", AT(date), SEEN_DATE, 0, NULL},
	{"cxflash_version", AT(cxflash_version), 0, 0, NULL}, {"bdf", AT(bdf), SEEN_BDF, 0, NULL},
	{"family", AT(family), SEEN_FAMILY, 0, NULL}, {"chip", AT(chip), SEEN_CHIP, 0, NULL},
	{"flash", AT(flash), 0, 0, NULL}, {"flash_sha256", AT(flash_sha256), SEEN_SHA, 0, NULL},
	{"fw_version", AT(fw_version), SEEN_FW, 0, NULL}, {"psid", AT(psid), SEEN_PSID, 0, NULL},
	{"vsd", AT(vsd), SEEN_VSD, 0, NULL}, {"rom.type", AT(rom_type), 0, 0, NULL},
	{"rom.version", AT(rom_version), 0, 0, NULL},
};

/* Hex strings, as json_hex() writes them; never null. */
#define GUID "a GUID (hex string)"
#define MAC "a MAC (hex string)"
#define ID16 "a 16-bit hex string"
static const struct field hex_fields[] = {
	{"guids.node", AT(guid[0]), SEEN_GUIDS, 16, GUID}, {"guids.port1", AT(guid[1]), 0, 16, GUID},
	{"guids.port2", AT(guid[2]), 0, 16, GUID}, {"guids.sys_image", AT(guid[3]), 0, 16, GUID},
	{"macs.port1", AT(mac[0]), SEEN_MACS, 12, MAC}, {"macs.port2", AT(mac[1]), 0, 12, MAC},
	{"pci_device", AT(pci_device), 0, 4, ID16}, {"subsys_vendor", AT(subsys_vendor), 0, 4, ID16},
	{"subsys_device", AT(subsys_device), 0, 4, ID16},
};

/* Whole numbers; null leaves 0, but flash_size must be a number. */
static const struct field int_fields[] = {
	{"revision", AT(revision), 0, 255, NULL}, {"flash_size", AT(flash_size), SEEN_SIZE, UINT32_MAX, NULL},
	{"image_start", AT(image_start), SEEN_START, UINT32_MAX, NULL},
	{"image_slot", AT(image_slot), SEEN_SLOT, 1, NULL}, {"guid_entries", AT(guid_entries), 0, 32, NULL},
};

struct gather {
	struct backup_identity *id;
	unsigned seen;          /* SEEN_* bits */
};

static int bad(struct cx_status *st, const char *what)
{
	return cx_fail(st, CX_EIMAGE, "%s: %s", BACKUP_IDENTITY, what);
}

static int bad_field(struct cx_status *st, const char *path, const char *want)
{
	return cx_fail(st, CX_EIMAGE, "%s: '%s' is not %s", BACKUP_IDENTITY, path, want);
}

static const struct field *find(const struct field *t, size_t n, const char *path)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(t[i].path, path))
			return &t[i];
	return NULL;
}

/* v (at most f->max, checked) into a field of 2, 4 or 8 bytes. */
static void store(struct gather *g, const struct field *f, uint64_t v)
{
	char *at = (char *)g->id + f->off;
	uint16_t v16 = (uint16_t)v;
	uint32_t v32 = (uint32_t)v;

	if (f->size == sizeof(v16))
		memcpy(at, &v16, sizeof(v16));
	else if (f->size == sizeof(v32))
		memcpy(at, &v32, sizeof(v32)); /* unsigned or int: the value fits both */
	else
		memcpy(at, &v, sizeof(v));
	g->seen |= f->seen;
}

/* recovery and board_ini, the two fields of their own kind. */
static int other_field(struct gather *g, const char *path, enum json_kind k, const char *v, struct cx_status *st)
{
	if (!strcmp(path, "recovery")) {
		if (k != JSON_BOOL)
			return bad_field(st, path, "true or false");
		g->id->recovery = !strcmp(v, "true");
		g->seen |= SEEN_RECOVERY;
	} else if (!strcmp(path, "board_ini") && k != JSON_NULL) {
		if (k != JSON_STRING || strcmp(v, BACKUP_INI))
			return bad_field(st, path, "null or \"" BACKUP_INI "\"");
		g->id->have_ini = true;
	}
	return CX_OK; /* unknown paths are ignored: a later format may add fields */
}

/* One scalar at path (json_read's callback). */
static int field(void *ctx, const char *path, enum json_kind k, const char *v, struct cx_status *st)
{
	struct gather *g = ctx;
	const struct field *f;
	uint64_t x;

	if ((f = find(str_fields, sizeof(str_fields) / sizeof(str_fields[0]), path))) {
		if (k == JSON_NULL)
			return CX_OK;
		if (k != JSON_STRING)
			return bad_field(st, path, "a string");
		if (strlen(v) >= f->size)
			return bad_field(st, path, "of a sensible length");
		memcpy((char *)g->id + f->off, v, strlen(v) + 1);
		g->seen |= f->seen;
		return CX_OK;
	}
	if ((f = find(hex_fields, sizeof(hex_fields) / sizeof(hex_fields[0]), path))) {
		if (k != JSON_STRING || !json_read_hex(v, (unsigned)f->max, &x))
			return bad_field(st, path, f->want);
		store(g, f, x);
		return CX_OK;
	}
	if ((f = find(int_fields, sizeof(int_fields) / sizeof(int_fields[0]), path))) {
		if (k == JSON_NULL && f->seen != SEEN_SIZE)
			return CX_OK;
		if (k != JSON_NUMBER || !json_read_uint(v, f->max, &x))
			return bad_field(st, path, "a whole number in range");
		store(g, f, x);
		return CX_OK;
	}
	return other_field(g, path, k, v, st);
}

/* The record as a whole: required fields, and the image's all or none. */
static int check_record(const struct gather *g, struct backup_identity *id, struct cx_status *st)
{
	if ((g->seen & SEEN_REQUIRED) != SEEN_REQUIRED)
		return bad(st, "a required field (format, date, bdf, family, chip, recovery, flash_size, "
			       "flash_sha256) is missing");
	if (strcmp(id->format, BACKUP_FORMAT))
		return bad(st, "not a " BACKUP_FORMAT " record");
	if (strlen(id->flash_sha256) != SHA256_HEX_LEN ||
	    strspn(id->flash_sha256, "0123456789abcdef") != SHA256_HEX_LEN)
		return bad(st, "flash_sha256 is not 64 lowercase hex digits");
	if (!id->flash_size)
		return bad(st, "flash_size is 0");
	if (g->seen & SEEN_START) {
		if ((g->seen & (SEEN_IMAGE | SEEN_GUIDS | SEEN_MACS)) != (SEEN_IMAGE | SEEN_GUIDS | SEEN_MACS))
			return bad(st, "image fields are incomplete (image_slot, fw_version, psid, vsd, guids, macs)");
		if (id->image_start >= id->flash_size)
			return bad(st, "image_start is outside the flash");
		id->have_image = true;
	} else if (g->seen & (SEEN_PSID | SEEN_GUIDS | SEEN_MACS | SEEN_FW)) {
		return bad(st, "image fields without image_start");
	}
	return CX_OK;
}

int backup_parse_identity(const char *text, size_t len, struct backup_identity *id, struct cx_status *st)
{
	struct gather g = {id, 0};

	memset(id, 0, sizeof(*id));
	if (json_read(text, len, BACKUP_IDENTITY, field, &g, st))
		return st->code;
	return check_record(&g, id, st);
}

int backup_load_identity(const char *bundle_dir, struct backup_identity *id, struct cx_status *st)
{
	char path[BACKUP_PATH_MAX];
	uint8_t *buf;
	size_t len;
	int rc;

	memset(id, 0, sizeof(*id));
	if ((rc = path_join(path, sizeof(path), bundle_dir, BACKUP_IDENTITY, st)) ||
	    (rc = file_read(path, BACKUP_META_MAX, &buf, &len, st)))
		return rc;
	rc = backup_parse_identity((const char *)buf, len, id, st);
	free(buf);
	return rc;
}
