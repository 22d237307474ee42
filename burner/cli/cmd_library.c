/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_library.c — `library list|show|check`: what the firmware folders hold.
 *
 *   library list  [DIR...]       one line per image file
 *   library show  FILE|PSID      everything known about one image, and which
 *                                boards the table maps to it
 *   library check [DIR...]       every file a sound, unpinned-or-matching image
 *                                and the table well formed; the exit code says
 *                                whether anything was wrong
 */
#include <string.h>

#include "cli/common.h"
#include "library/library.h"

static const char *pin_name(enum manifest_pin p)
{
	return p == PIN_OK ? "pinned, matches" : p == PIN_MISMATCH ? "pinned, DIFFERS" : "not pinned";
}

static void fmt_ver(char *out, size_t n, const uint16_t v[3])
{
	snprintf(out, n, "%u.%u.%u", v[0], v[1], v[2]);
}

static void fmt_rom(char *out, size_t n, const struct manifest_entry *e)
{
	char t[12];

	if (!e->nroms) {
		snprintf(out, n, "-");
		return;
	}
	const struct rom_info *r = &e->roms[0];
	snprintf(out, n, "%s %u.%u.%u%s", rom_type_name(r->product, t), r->ver[0], r->ver[1], r->ver[2],
		 e->nroms > 1 ? " +" : "");
}

static const char *family_label(const struct manifest_entry *e)
{
	return e->have_family ? board_family_name(e->family) : "?";
}

static void print_header(const struct library *l)
{
	printf("board table: %s\n", l->boards_path ? l->boards_path : "none");
	if (l->own_path)
		printf("your board table: %s (%zu row%s)\n", l->own_path, l->own.n, l->own.n == 1 ? "" : "s");
	if (l->own_error[0])
		fprintf(stderr, "-W- %s\n", l->own_error);
	printf("folders:");
	for (size_t i = 0; i < l->ndirs; i++)
		printf(" %s", l->dirs[i]);
	printf("\n");
}

static void list_text(const struct library *l)
{
	char ver[24], rom[32];

	print_header(l);
	if (!l->m.n) {
		printf("no firmware images (drop released .bin files into a folder above)\n");
		return;
	}
	printf("%-32s %-16s %-6s %-4s %-12s %-14s %-4s %s\n", "file", "PSID", "chip", "rev", "FW", "ROM", "port",
	       "status");
	for (size_t i = 0; i < l->m.n; i++) {
		const struct manifest_entry *e = &l->m.e[i];
		if (e->status == CX_EIMAGE) {
			printf("%-32s BAD: %s\n", e->name, e->reason);
			continue;
		}
		fmt_ver(ver, sizeof(ver), e->fw_ver);
		fmt_rom(rom, sizeof(rom), e);
		char rev[8] = "?";
		if (e->nhw_ids)
			snprintf(rev, sizeof(rev), "%u", e->hw_ids[0] >> 16);
		printf("%-32s %-16s %-6s %-4s %-12s %-14s %-4s %s\n", e->name, e->psid, family_label(e), rev, ver, rom,
		       board_port_name(e->port), e->status == CX_OK ? (e->pin == PIN_OK ? "ok, hash pinned" : "ok") :
		       "REFUSED: pinned hash differs");
	}
}

static void json_library(struct json *j, const struct library *l)
{
	json_str(j, "boards", l->boards_path);
	json_str(j, "own_boards", l->own_path);
	json_str(j, "own_boards_error", l->own_error[0] ? l->own_error : NULL);
	json_arr(j, "folders");
	for (size_t i = 0; i < l->ndirs; i++)
		json_str(j, NULL, l->dirs[i]);
	json_close(j);
}

static int cmd_list_images(struct cli *c, struct library *l)
{
	if (!c->json) {
		list_text(l);
		return CX_OK;
	}
	manifest_write_json(&l->m, stdout);
	return CX_OK;
}

static void show_rows_mapping_to(const struct library *l, const char *psid)
{
	int n = 0;

	if (!l->table)
		return;
	for (size_t i = 0; i < l->t.n; i++) {
		const struct board *b = &l->t.rows[i];
		if (!b->stock_psid || strcmp(b->stock_psid, psid) || !strcmp(b->oem_psid, psid))
			continue;
		if (!n++)
			printf("Boards the table maps to this image's PSID:\n");
		printf("  %s %s (%s)%s  line %u\n", b->oem, b->oem_parts ? b->oem_parts : "-", b->oem_psid,
		       b->basis == BOARD_INFERRED ? " inferred" : "", b->line);
	}
	if (!n)
		printf("No OEM board in the table maps to %s.\n", psid);
}

static void show_text(const struct library *l, const struct manifest_entry *e)
{
	char ver[24], t[12];

	printf(LABEL "%s\n", "File:", e->path);
	printf(LABEL "%llu bytes\n", "Size:", (unsigned long long)e->size);
	printf(LABEL "%s\n", "SHA-256:", e->sha256);
	if (e->status == CX_EIMAGE) {
		printf(LABEL "BAD: %s\n", "Status:", e->reason);
		return;
	}
	printf(LABEL "%s\n", "Status:", e->status == CX_OK ? "usable" : e->reason);
	printf(LABEL "%s\n", "Hash:", pin_name(e->pin));
	printf(LABEL "%s\n", "PSID:", e->psid);
	fmt_ver(ver, sizeof(ver), e->fw_ver);
	printf(LABEL "%s\n", "FW Version:", ver);
	printf(LABEL "%u\n", "Device type:", e->dev_type);
	printf(LABEL "%s\n", "Chip family:", family_label(e));
	printf(LABEL, "HW IDs (tag 10):");
	for (int i = 0; i < e->nhw_ids; i++)
		printf("%s0x%x rev %u", i ? ", " : "", e->hw_ids[i] & 0xFFFF, e->hw_ids[i] >> 16);
	printf("%s\n", e->nhw_ids ? "" : "none (the device type decides)");
	for (int i = 0; i < e->nroms; i++)
		printf(LABEL "%s %u.%u.%u\n", i ? "" : "ROM:", rom_type_name(e->roms[i].product, t), e->roms[i].ver[0],
		       e->roms[i].ver[1], e->roms[i].ver[2]);
	if (!e->nroms)
		printf(LABEL "none\n", "ROM:");
	printf(LABEL "%s (%s)\n", "Port type:", e->port == BOARD_PORT_NONE ? "unknown" : board_port_name(e->port),
	       e->port_basis);
	if (e->have_ini) {
		printf(LABEL "%s\n", "Board .ini Name:", e->ini_name ? e->ini_name : "-");
		printf(LABEL "%s\n", ".ini Description:", e->ini_description ? e->ini_description : "-");
		printf(LABEL "%s / %s\n", ".ini device/subsys:", e->ini_device_id ? e->ini_device_id : "-",
		       e->ini_subsystem_id ? e->ini_subsystem_id : "-");
		printf(LABEL "%s\n", ".ini class code:", e->ini_class_code ? e->ini_class_code : "-");
		printf(LABEL "%s\n", ".ini ports:", e->ini_num_ports ? e->ini_num_ports : "-");
		printf(LABEL "%s\n", ".ini flash (log2):", e->ini_flash_size ? e->ini_flash_size : "-");
	} else {
		printf(LABEL "none: a cross-flash to this image cannot be checked\n", "Board .ini:");
	}
	const struct board *b = l->table ? boards_by_psid(l->table, e->psid) : NULL;
	if (b)
		printf(LABEL "%s %s, %s, %s (line %u)\n", "Board table:", b->oem, b->oem_parts ? b->oem_parts : "-",
		       b->speed ? b->speed : "-", board_basis_name(b->basis), b->line);
	else
		printf(LABEL "no row for %s\n", "Board table:", e->psid);
	show_rows_mapping_to(l, e->psid);
}

static int cmd_show(struct cli *c, struct library *l, const char *which, struct cx_status *st)
{
	const struct manifest_entry *e = manifest_find(&l->m, which);

	if (!e)
		return cx_fail(st, CX_EABSENT, "no image '%s' in the library (folders: %s%s)", which, l->dirs[0],
			       l->ndirs > 1 ? ", ..." : "");
	if (c->json) {
		/* One entry: the manifest's own JSON of a one-entry view. */
		struct manifest one = {.e = (struct manifest_entry *)e, .n = 1};
		manifest_write_json(&one, stdout);
		return CX_OK;
	}
	show_text(l, e);
	return CX_OK;
}

static int cmd_check(struct cli *c, struct library *l, struct cx_status *st)
{
	size_t bad = 0, refused = 0;
	struct json j;

	for (size_t i = 0; i < l->m.n; i++) {
		const struct manifest_entry *e = &l->m.e[i];
		if (e->status == CX_EIMAGE)
			bad++;
		else if (e->status != CX_OK)
			refused++;
		if (e->status && !c->json)
			printf("%s: %s\n", e->path, e->reason);
	}
	if (c->json) {
		json_begin(&j, stdout);
		json_library(&j, l);
		json_int(&j, "images", (long long)l->m.n);
		json_int(&j, "usable", (long long)(l->m.n - bad - refused));
		json_int(&j, "bad", (long long)bad);
		json_int(&j, "refused", (long long)refused);
		json_arr(&j, "problems");
		for (size_t i = 0; i < l->m.n; i++)
			if (l->m.e[i].status) {
				json_obj(&j, NULL);
				json_str(&j, "path", l->m.e[i].path);
				json_str(&j, "status", cx_code_name(l->m.e[i].status));
				json_str(&j, "reason", l->m.e[i].reason);
				json_close(&j);
			}
		json_close(&j);
		json_end(&j);
		c->json_done = true;
	} else {
		printf("%zu image%s: %zu usable, %zu not sound, %zu refused (pinned hash differs); board table %s\n",
		       l->m.n, l->m.n == 1 ? "" : "s", l->m.n - bad - refused, bad, refused,
		       l->boards_path ? "well formed" : "absent");
	}
	if (bad)
		return cx_fail(st, CX_EIMAGE, "%zu file%s in the library %s not a sound image", bad, bad == 1 ? "" : "s",
			       bad == 1 ? "is" : "are");
	if (refused)
		return cx_fail(st, CX_EMISMATCH, "%zu image%s refused: the SHA-256 differs from the pinned one",
			       refused, refused == 1 ? "" : "s");
	return CX_OK;
}

int cmd_library(struct cli *c, struct cx_status *st)
{
	const char *sub = c->params[0];
	struct library l;
	int rc;

	if (strcmp(sub, "list") && strcmp(sub, "show") && strcmp(sub, "check"))
		return cx_fail(st, CX_EUSAGE, "unknown library command '%s' (list, show, check)", sub);
	if (!strcmp(sub, "show") && c->nparams != 2)
		return cx_fail(st, CX_EUSAGE, "usage: cxflash library show FILE|PSID");
	bool own_dirs = strcmp(sub, "show") && c->nparams > 1;
	const char *const *dirs = own_dirs ? c->params + 1 : c->firmware;
	rc = library_open(c->boards, dirs, own_dirs ? (size_t)c->nparams - 1 : (size_t)c->nfirmware, &l, st);
	if (!rc) {
		if (!strcmp(sub, "list"))
			rc = cmd_list_images(c, &l);
		else if (!strcmp(sub, "show"))
			rc = cmd_show(c, &l, c->params[1], st);
		else
			rc = cmd_check(c, &l, st);
	}
	library_close(&l);
	return rc;
}
