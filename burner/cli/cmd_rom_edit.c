/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_rom_edit.c — `-i FILE drom -o OUT` and `-i FILE brom ROMFILE -o OUT`: flint's ROM removal
 * and replacement, which flint does on a card only, on an image file (image/rom_edit.h has
 * the rules, the gates and the exit codes). The input is never changed; OUT is written
 * through a temporary file renamed over it, so it is the old OUT or the whole new image.
 *
 * The room rule needs a flash size, and a file has no card: a raw dump's own size
 * (--striped_image), else the board .ini's [FW] log_flashdev_size (the flash the image
 * was built for), else only the format's limit. The output is always contiguous. A ROM for another device id is warned about on stderr ("-W- ...", and
 * "warning" in --json) and the image is written: a file is not a card, the input stays. */
#include <stdlib.h>
#include <string.h>

#include "cli/common.h"
#include "image/ini.h"
#include "image/rom_edit.h"
#include "image/rom_insert.h"
#include "library/ini_diff.h"
#include "util/fileio.h"

#define LOG_FLASH_MIN 16 /* 64 KiB: the smallest flash a .ini could name and we believe */
#define LOG_FLASH_MAX 25 /* 32 MiB: FS2_MAX_IMAGE */

/* The flash the image was made for (above). */
static uint32_t image_flash_size(const struct imgfile *f)
{
	uint32_t size = FS2_MAX_IMAGE;
	struct cx_status st = {0};
	struct ini_doc d = {0};
	char *text = NULL;
	size_t len;

	if (f->striped)
		return (uint32_t)f->raw_len;
	if (f->img.fwconf_sect < 0)
		return size;
	const struct fs2_item *s = &f->img.items[f->img.fwconf_sect];
	if (!ini_inflate(f->cont + s->data_off, s->data_len, &text, &len, &st) &&
	    !ini_doc_parse(text, len, &d, &st)) {
		const char *v = ini_doc_get(&d, "FW", "log_flashdev_size");
		long n = v ? strtol(v, NULL, 0) : 0;
		if (n >= LOG_FLASH_MIN && n <= LOG_FLASH_MAX)
			size = 1u << n;
	}
	ini_doc_free(&d);
	free(text);
	return size;
}

/* The input: -o given, the image sound (blank GUIDs are fine, as for sg). */
static int open_input(struct cli *c, struct imgfile *f, struct cx_status *st)
{
	memset(f, 0, sizeof(*f));
	if (!c->output)
		return cx_fail(st, CX_EUSAGE, "%s on a file needs -o OUT: the input is not changed", c->command);
	int rc = cli_open_image(c, f, st);
	if (!rc && fs2_verdict(&f->img, st) == CX_EIMAGE)
		rc = CX_EIMAGE;
	return rc;
}

/* The new image (out, len; taken over): it fits, then OUT is replaced, then we say so. */
static int finish(struct cli *c, const struct imgfile *f, uint8_t *out, size_t len, const char *warn,
		  struct cx_status *st)
{
	struct fs2_image *p = malloc(sizeof(*p));
	int rc = p ? CX_OK : cx_fail(st, CX_ENOMEM, "out of memory");

	if (!rc)
		rc = fs2_parse(out, len, p, st);
	if (!rc)
		rc = rom_fits(p, len, image_flash_size(f), st);
	if (!rc)
		rc = file_replace(c->output, out, len, st);
	if (!rc && warn[0])
		fprintf(stderr, "%s\n", warn);
	if (!rc && c->json) {
		struct json j;
		json_begin(&j, stdout);
		json_str(&j, "wrote", "image");
		json_str(&j, "file", c->output);
		json_int(&j, "size", (long long)len);
		cli_json_roms(&j, "roms", p->roms, p->rom_sect >= 0 ? p->nroms : 0);
		json_str(&j, "warning", warn[0] ? warn : NULL);
		json_end(&j);
		c->json_done = true;
	} else if (!rc) {
		if (p->rom_sect >= 0)
			cli_print_roms("New ROM info:", p->roms, p->nroms);
		printf("-I- Wrote %s: 0x%zx bytes (the input is unchanged)\n", c->output, len);
	}
	free(p);
	free(out);
	return rc;
}

int cmd_drom(struct cli *c, struct cx_status *st)
{
	if (c->device) /* on the card (cmd_rom_card.c) */
		return cli_rom_card(c, false, st);
	struct imgfile f;
	uint8_t *out = NULL;
	size_t len = 0;
	const uint8_t *rom;
	size_t rom_len;
	int rc = open_input(c, &f, st);

	if (!rc)
		rc = rom_sect_data(&f.img, &rom, &rom_len, st);
	if (!rc)
		rc = rom_change_allowed(&f.img, c->allow_rom_change, st);
	if (!rc)
		rc = rom_remove(f.cont, f.img.last_addr, &out, &len, st);
	if (!rc) {
		if (!c->json)
			cli_print_roms("Removed ROM info:", f.img.roms, f.img.nroms);
		rc = finish(c, &f, out, len, "", st);
	}
	imgfile_close(&f);
	return rc;
}

int cmd_brom(struct cli *c, struct cx_status *st)
{
	if (c->device)
		return cli_rom_card(c, true, st);
	struct imgfile f;
	struct cx_status check = {0};
	uint8_t *rom = NULL, *out = NULL;
	size_t rom_len = 0, len = 0;
	int rc = open_input(c, &f, st);

	if (!rc)
		rc = file_read(c->params[0], FS2_MAX_IMAGE, &rom, &rom_len, st);
	if (!rc && (rc = rom_file_check(rom, rom_len, &f.img, &check)))
		cx_fail(st, rc, "%s: %s", c->params[0], check.msg);
	if (!rc)
		rc = rom_change_allowed(&f.img, c->allow_rom_change, st);
	if (!rc)
		rc = rom_replace(f.cont, f.img.last_addr, rom, rom_len, &out, &len, st);
	if (!rc) {
		if (!c->json && f.img.rom_sect >= 0)
			cli_print_roms("Current ROM info:", f.img.roms, f.img.nroms);
		rc = finish(c, &f, out, len, check.msg, st);
	}
	free(rom);
	imgfile_close(&f);
	return rc;
}
