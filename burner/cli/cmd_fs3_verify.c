/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_fs3_verify.c — `v [showitoc]` on an FS3/FS4 file: one line per item as mstflint 4.21
 * prints them (Fs3Operations::DumpFs3CRCCheck, FwOperations::CheckAndPrintCrcRes), and with
 * showitoc every ITOC/DTOC entry dumped field by field before its line (fs3-format.md §3). */
#include <string.h>

#include "cli/common.h"
#include "cli/fs3cli.h"

static const char *item_name(const struct fs3_item *it, char tmp[24])
{
	const char *n;

	if (it->kind == FS3_ITEM_BOOT2)
		return "BOOT2";
	if ((n = fs3_sect_name(it->type)))
		return n;
	snprintf(tmp, 24, "UNKNOWN:0x%x", it->type); /* DumpFs3CRCCheck's unknown type */
	return tmp;
}

static const char *item_result(const struct fs3_item *it)
{
	return it->crc == FS3_CRC_NONE && it->kind == FS3_ITEM_SECTION && it->entry >= 0 ? "CRC IGNORED"
	       : it->ok ? "OK" : "wrong CRC";
}

static void print_line(const struct fs3_item *it, bool ignored)
{
	char tmp[24];

	printf("     /0x%08x-0x%08x (0x%06x)/ (%s)", it->off, it->off + it->len - 1, it->len, item_name(it, tmp));
	if (ignored || !strcmp(item_result(it), "CRC IGNORED"))
		printf(" - CRC IGNORED\n");
	else if (it->ok)
		printf(" - OK\n");
	else
		printf(" /0x%08x/ - wrong CRC (exp:0x%x, act:0x%x)\n", it->off, it->crc_calc, it->crc_stored);
}

/* cibfw_itoc_entry_print / image_layout_itoc_entry_print: sizes and addresses in dwords. */
static void dump_entry(const struct fs3_image *img, const struct fs3_entry *e)
{
	bool fs3 = img->fmt->relative_bit;

	printf("======== %s ========\n", fs3 ? "cibfw_itoc_entry" : "image_layout_itoc_entry");
	printf("%-20s : 0x%x\n%-20s : 0x%x\n", "size", e->size / 4, "type", e->type);
	printf("%-20s : 0x%x\n%-20s : 0x%x\n", "param0", e->param0, "cache_line_crc", e->cache_line_crc);
	printf("%-20s : 0x%x\n%-20s : 0x%08x\n", "zipped_image", e->zipped, "param1", e->param1);
	if (!fs3)
		printf("%-20s : 0x%x\n", "version", e->version);
	printf("%-20s : 0x%x\n", "flash_addr", e->flash_addr / 4);
	if (fs3)
		printf("%-20s : 0x%x\n", "relative_addr", e->relative);
	printf("%-20s : 0x%x\n", "section_crc", e->section_crc);
	if (fs3)
		printf("%-20s : 0x%x\n%-20s : 0x%x\n", "no_crc", e->no_crc, "device_data", e->device_data);
	else
		printf("%-20s : 0x%x\n%-20s : 0x%x\n", "crc", e->crc_field, "encrypted_section", e->encrypted);
	printf("%-20s : 0x%x\n", "itoc_entry_crc", e->entry_crc);
	struct fs3_item line = {.kind = FS3_ITEM_SECTION, .type = e->type, .off = e->data_off, .len = e->size};
	print_line(&line, true);
}

static void print_text(const struct fs3_image *img, bool showitoc)
{
	printf("\n%s failsafe image\n\n", img->fmt->name);
	for (int i = 0; i < img->nitems; i++) {
		const struct fs3_item *it = &img->items[i];
		if (showitoc && it->kind == FS3_ITEM_SECTION && it->entry >= 0)
			continue;
		print_line(it, false);
		if (showitoc && it->kind == FS3_ITEM_TOC_HEADER)
			for (int k = 0; k < img->nentries; k++)
				if (img->entries[k].in_dtoc == (it->type == 0xfe))
					dump_entry(img, &img->entries[k]);
	}
}

static void json_entries(struct json *j, const struct fs3_image *img)
{
	char tmp[24];

	json_arr(j, "toc_entries");
	for (int k = 0; k < img->nentries; k++) {
		const struct fs3_entry *e = &img->entries[k];
		struct fs3_item it = {.kind = FS3_ITEM_SECTION, .type = e->type};
		json_obj(j, NULL);
		json_str(j, "toc", e->in_dtoc ? "DTOC" : "ITOC");
		json_str(j, "name", item_name(&it, tmp));
		json_int(j, "type", e->type);
		json_int(j, "start", e->data_off);
		json_int(j, "size", e->size);
		json_int(j, "param0", e->param0);
		json_int(j, "param1", e->param1);
		json_int(j, "section_crc", e->section_crc);
		json_str(j, "crc_kind", !img->fmt->crc_kind_field ? (e->no_crc ? "none" : "in_entry")
				       : e->crc_field == 0 ? "in_entry" : e->crc_field == 2 ? "in_section" : "none");
		json_bool(j, "device_data", e->in_dtoc || e->device_data);
		json_int(j, "entry_crc", e->entry_crc);
		json_close(j);
	}
	json_close(j);
}

static void print_json(const struct fs3_image *img, bool showitoc, int rc, const struct cx_status *st)
{
	struct json j;
	char tmp[24];

	json_begin(&j, stdout);
	json_str(&j, "image_type", img->fmt->name);
	json_int(&j, "start", img->start);
	json_bool(&j, "failsafe", true);
	json_int(&j, "slot_size", img->log2_slot < 32 ? 1ll << img->log2_slot : 0);
	json_arr(&j, "items");
	for (int i = 0; i < img->nitems; i++) {
		const struct fs3_item *it = &img->items[i];
		json_obj(&j, NULL);
		json_str(&j, "name", item_name(it, tmp));
		json_int(&j, "start", it->off);
		json_int(&j, "size", it->len);
		json_str(&j, "result", item_result(it));
		json_int(&j, "crc_stored", it->crc_stored);
		json_int(&j, "crc_computed", it->crc_calc);
		json_close(&j);
	}
	json_close(&j);
	if (showitoc)
		json_entries(&j, img);
	json_str(&j, "verdict", rc ? "failed" : "ok");
	if (rc) { /* the keys of every --json failure (commands.c json_failure) */
		json_str(&j, "error", st->msg);
		json_str(&j, "code", cx_code_name(rc));
		json_int(&j, "exit_code", rc);
		json_null(&j, "card_state");
	}
	json_end(&j);
}

/* showitoc does not check the sections' CRCs (mstflint reads none of them then), only the
 * structures around them: pointers, tools area, BOOT2, hashes table, TOC headers. */
static int showitoc_verdict(const struct fs3_image *img, struct cx_status *st)
{
	char tmp[24];

	for (int i = 0; i < img->nitems; i++) {
		const struct fs3_item *it = &img->items[i];
		if (!it->ok && !(it->kind == FS3_ITEM_SECTION && it->entry >= 0))
			return cx_fail(st, CX_EIMAGE, "%s at 0x%x: wrong CRC (exp:0x%x, act:0x%x)",
				       item_name(it, tmp), it->off, it->crc_calc, it->crc_stored);
	}
	return CX_OK;
}

int cli_fs3_verify(struct cli *c, struct fs3_file *f, int rc, struct cx_status *st)
{
	bool showitoc = c->nparams == 1;

	if (showitoc && strcmp(c->params[0], "showitoc"))
		return cx_fail(st, CX_EUSAGE, "unknown parameter '%s' for v: only 'showitoc'", c->params[0]);
	/* A parse that stopped part-way still shows what it checked before the fault. */
	if (f->img.fmt && (rc == CX_OK || f->img.nitems > 0)) {
		if (!rc)
			rc = showitoc ? showitoc_verdict(&f->img, st) : fs3_verdict(&f->img, st);
		if (c->json) {
			print_json(&f->img, showitoc, rc, st);
			c->json_done = true;
		} else {
			print_text(&f->img, showitoc);
			if (!rc)
				printf("\n-I- FW image verification succeeded. Image is bootable.\n\n");
		}
	}
	if (rc && st->msg[0] && !strstr(st->msg, "verification failed")) {
		char msg[CX_MSG_MAX];
		snprintf(msg, sizeof(msg), "%s", st->msg);
		snprintf(st->msg, sizeof(st->msg), "FW image verification failed: %.*s", CX_MSG_MAX - 40, msg);
	}
	return rc;
}
