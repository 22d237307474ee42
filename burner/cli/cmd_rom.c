/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_rom.c — `rom list` and `rom extract`: the boot ROMs of the library and the backups.
 *
 *   rom list                       every ROM of every library image and backup bundle,
 *                                  one line each, named N.K (library/rom_index.h)
 *   rom extract SOURCE OUT [TYPE]  write one out. SOURCE: N (a whole ROM section,
 *                                  as rrom writes it) or N.K (one ROM) from rom list,
 *                                  or an image file, a raw flash dump or a backup
 *                                  bundle (its ROM section); TYPE (pxe, uefi, clp...)
 *                                  keeps only that source's first ROM of that type
 *
 * The backups are the bundles in --backup-dir DIR, else in the wizard's data folder:
 * $CXR_DATA/backups, else ./cxrescue/backups.
 */
#include <stdlib.h>
#include <string.h>

#include "cli/common.h"
#include "library/library.h"
#include "library/rom_index.h"
#include "util/fileio.h"

#define DEFAULT_DATA "cxrescue" /* the wizard's data folder without $CXR_DATA (cmd_rescue.c) */

static const char *csum_name(int ok)
{
	return ok > 0 ? "ok" : ok == 0 ? "BAD" : "-";
}

static void list_text(const struct rom_index *ix)
{
	char t[12], ver[24];

	printf("%-5s %-5s %-9s %-5s %-4s %-64s %s\n", "ROM", "type", "version", "devid", "csum", "SHA-256", "from");
	for (size_t i = 0; i < ix->n; i++) {
		const struct rom_source *s = &ix->s[i];
		for (int k = 0; k < s->nroms; k++) {
			const struct rom_info *r = &s->roms[k];
			rom_fmt_version(ver, sizeof(ver), r);
			printf("%zu.%-3d %-5s %-9s %-5u %-4s %-64s %s %s (%s %u.%u.%u)\n", i + 1, k + 1,
			       rom_type_name(r->product, t), ver, r->devid, csum_name(r->csum_ok),
			       s->rom_sha256[k][0] ? s->rom_sha256[k] : "-", s->backup ? "backup" : "library", s->path,
			       s->psid, s->fw_ver[0], s->fw_ver[1], s->fw_ver[2]);
		}
	}
	printf("%zu image%s with a ROM", ix->n, ix->n == 1 ? "" : "s");
	printf(ix->skipped ? ", %u skipped (unreadable, or a bad ROM section)\n" : "\n", ix->skipped);
}

static void list_json(struct cli *c, const struct rom_index *ix)
{
	char t[12], ver[24], name[40];
	struct json j;

	json_begin(&j, stdout);
	json_arr(&j, "roms");
	for (size_t i = 0; i < ix->n; i++)
		for (int k = 0; k < ix->s[i].nroms; k++) {
			const struct rom_source *s = &ix->s[i];
			const struct rom_info *r = &s->roms[k];
			json_obj(&j, NULL);
			snprintf(name, sizeof(name), "%zu.%d", i + 1, k + 1);
			json_str(&j, "rom", name);
			json_str(&j, "type", rom_type_name(r->product, t));
			rom_fmt_version(ver, sizeof(ver), r);
			json_str(&j, "version", ver);
			json_int(&j, "devid", r->devid);
			json_str(&j, "cpu", r->cpu ? rom_cpu_name(r->cpu, t) : NULL);
			json_str(&j, "checksum", r->csum_ok > 0 ? "ok" : r->csum_ok ? NULL : "bad");
			json_int(&j, "size", r->len);
			json_str(&j, "sha256", s->rom_sha256[k][0] ? s->rom_sha256[k] : NULL);
			json_str(&j, "from", s->backup ? "backup" : "library");
			json_str(&j, "path", s->path);
			json_str(&j, "psid", s->psid);
			fmt_fw_version(ver, sizeof(ver), s->fw_ver);
			json_str(&j, "fw_version", ver);
			json_str(&j, "section_sha256", s->sha256);
			json_close(&j);
		}
	json_close(&j);
	json_int(&j, "skipped", ix->skipped);
	json_end(&j);
	c->json_done = true;
}

/* The index of the library (--firmware DIR..., as `library list`) and the backups. */
static int open_index(struct cli *c, struct rom_index *ix, struct cx_status *st)
{
	char dir[BACKUP_PATH_MAX];
	const char *data = getenv("CXR_DATA");
	struct library l;
	int rc = library_open(c->boards, c->firmware, (size_t)c->nfirmware, &l, st);

	if (!rc && !c->backup_dir)
		rc = path_join(dir, sizeof(dir), data && *data ? data : DEFAULT_DATA, "backups", st);
	if (!rc)
		rc = rom_index_scan(ix, &l.m, c->backup_dir ? c->backup_dir : dir, st);
	library_close(&l);
	return rc;
}

static int write_out(struct cli *c, const struct rom_source *s, int k, const uint8_t *p, size_t len,
		     const char *out, struct cx_status *st)
{
	char t[12], ver[24], hex[SHA256_HEX_LEN + 1];
	uint8_t d[SHA256_LEN];
	int rc = file_write(out, p, len, st);

	if (rc)
		return rc;
	sha256(p, len, d);
	sha256_hex(d, hex);
	if (c->json) {
		struct json j;
		json_begin(&j, stdout);
		json_str(&j, "wrote", "rom");
		json_str(&j, "file", out);
		json_int(&j, "size", (long long)len);
		json_str(&j, "sha256", hex);
		json_str(&j, "from", s->path);
		json_arr(&j, "roms");
		for (int i = k < 0 ? 0 : k; i < (k < 0 ? s->nroms : k + 1); i++) {
			json_obj(&j, NULL);
			json_str(&j, "type", rom_type_name(s->roms[i].product, t));
			rom_fmt_version(ver, sizeof(ver), &s->roms[i]);
			json_str(&j, "version", ver);
			json_close(&j);
		}
		json_close(&j);
		json_end(&j);
		c->json_done = true;
		return CX_OK;
	}
	printf("wrote %s: %zu bytes, SHA-256 %s, from %s:", out, len, hex, s->path);
	for (int i = k < 0 ? 0 : k; i < (k < 0 ? s->nroms : k + 1); i++) {
		rom_fmt_version(ver, sizeof(ver), &s->roms[i]);
		printf(" %s %s", rom_type_name(s->roms[i].product, t), ver);
	}
	printf("\n");
	return CX_OK;
}

static int extract(struct cli *c, struct cx_status *st)
{
	const char *src = c->params[1], *out = c->params[2], *type = c->nparams > 3 ? c->params[3] : NULL;
	const struct rom_source *s = NULL;
	const uint8_t *p = NULL;
	struct rom_index ix;
	size_t len = 0;
	int k = -1, rc;

	/* A name as rom list gives it, else a path ("./3" for a file called 3). */
	bool named = strspn(src, "0123456789.") == strlen(src);
	memset(&ix, 0, sizeof(ix));
	rc = named ? open_index(c, &ix, st) : rom_index_add(&ix, src, false, st);
	if (!rc && named)
		rc = rom_index_pick(&ix, src, &s, &k, &p, &len, st);
	else if (!rc)
		s = &ix.s[0], k = -1, p = s->data, len = s->len;
	if (!rc && type && k < 0 && (k = rom_source_find(s, type)) < 0)
		rc = cx_fail(st, CX_EABSENT, "%s has no %s ROM", s->path, type);
	else if (!rc && type)
		p = s->data + s->roms[k].off, len = s->roms[k].len;
	if (!rc)
		rc = write_out(c, s, k, p, len, out, st);
	rom_index_free(&ix);
	return rc;
}

int cmd_rom(struct cli *c, struct cx_status *st)
{
	const char *sub = c->params[0];
	struct rom_index ix;
	int rc;

	if (!strcmp(sub, "extract"))
		return c->nparams < 3 ? cx_fail(st, CX_EUSAGE, "usage: cxflash rom extract SOURCE OUT [TYPE]")
				      : extract(c, st);
	if (strcmp(sub, "list") || c->nparams != 1)
		return cx_fail(st, CX_EUSAGE, "usage: cxflash rom list | rom extract SOURCE OUT [TYPE]");
	if ((rc = open_index(c, &ix, st)))
		return rc;
	if (c->json)
		list_json(c, &ix);
	else
		list_text(&ix);
	rom_index_free(&ix);
	return CX_OK;
}
