/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_image.c — libFuzzer target over everything cxflash does with an untrusted image:
 * locating it (contiguous and striped), parsing, verifying, reading the GUIDs,
 * tags and ROM records, inflating the .ini, reading and comparing it,
 * patching a copy, judging the input as a ROM file, and drom/brom on the image; and the
 * FS3/FS4 reader: detection, parse, verdict, the .ini inflated. */
#include <stdlib.h>
#include <string.h>

#include "image/fs3.h"
#include "image/imgfile.h"
#include "image/ini.h"
#include "image/patch.h"
#include "image/rom_edit.h"
#include "library/ini_diff.h"

/* drom, then brom of the image's own ROM data (or of a tiny one). */
static void rom_edits(const struct imgfile *f)
{
	static const uint8_t tiny[4] = {0x55, 0xAA, 1, 0};
	const struct fs2_item *r = f->img.rom_sect >= 0 ? &f->img.items[f->img.rom_sect] : NULL;
	struct cx_status st = {0};
	uint8_t *out = NULL;
	size_t out_len;

	if (rom_remove(f->cont, f->img.last_addr, &out, &out_len, &st) == CX_OK)
		free(out);
	cx_status_clear(&st);
	if (rom_replace(f->cont, f->img.last_addr, r && r->data_len ? f->cont + r->data_off : tiny,
			r && r->data_len ? r->data_len : sizeof(tiny), &out, &out_len, &st) == CX_OK)
		free(out);
}

static void exercise(const uint8_t *data, size_t size, bool striped)
{
	struct imgfile f;
	struct cx_status st = {0};

	if (imgfile_open_mem(&f, data, size, striped, &st) == CX_OK) {
		fs2_verdict(&f.img, &st);
		if (f.img.fwconf_sect >= 0) {
			const struct fs2_item *s = &f.img.items[f.img.fwconf_sect];
			char *text;
			size_t len;
			if (ini_inflate(f.cont + s->data_off, s->data_len, &text, &len, &st) == CX_OK) {
				struct ini_doc doc;
				struct ini_diff diff;
				cx_status_clear(&st);
				if (ini_doc_parse(text, len, &doc, &st) == CX_OK &&
				    ini_compare(&doc, &doc, &diff, &st) == CX_OK)
					ini_diff_free(&diff);
				ini_doc_free(&doc);
				free(text);
			}
		}
		struct guid_request req = {.have_guids = true, .have_macs = true};
		patch_expand_guid(0x0002c9030000aa00ull, req.guid);
		patch_expand_mac(0x0002c900aa00ull, req.mac);
		cx_status_clear(&st);
		patch_guids(f.cont, &f.img, &req, &st);
		cx_status_clear(&st);
		patch_vsd(f.cont, &f.img, "fuzz", &st);
		rom_edits(&f);
	}
	imgfile_close(&f);
}

/* The FS3/FS4 reader on the same bytes (fs3.h): it must bound every pointer itself. */
static void exercise_fs3(const uint8_t *data, size_t size)
{
	static struct fs3_image img; /* large: not on the fuzzer's stack */
	struct cx_status st = {0};

	(void)fs3_detect(data, size);
	if (fs3_parse(data, size, &img, &st) != CX_OK)
		return;
	cx_status_clear(&st);
	fs3_verdict(&img, &st);
	if (img.ini_entry >= 0) {
		const struct fs3_entry *e = &img.entries[img.ini_entry];
		char *text;
		size_t len;
		if (ini_inflate(fs3_entry_data(&img, e), e->size, &text, &len, &st) == CX_OK)
			free(text);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cx_status st = {0};

	rom_file_check(data, size, NULL, &st);
	exercise(data, size, false);
	exercise(data, size, true);
	exercise_fs3(data, size);
	return 0;
}
