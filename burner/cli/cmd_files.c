/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_files.c — commands that write part of an image out: dc, rrom, extract. */
#include <stdlib.h>
#include <string.h>

#include "cli/common.h"
#include "image/ini.h"
#include "util/fileio.h"

/* Open, parse and insist on a verified image (blank GUIDs are fine here). */
static int open_verified(struct cli *c, struct imgfile *f, struct cx_status *st)
{
	int rc = cli_open_image(c, f, st);

	if (!rc && fs2_verdict(&f->img, st) == CX_EIMAGE)
		rc = CX_EIMAGE;
	return rc;
}

int cmd_dc(struct cli *c, struct cx_status *st)
{
	struct imgfile f;
	char *text = NULL;
	size_t len = 0;
	int rc = open_verified(c, &f, st);

	if (!rc && f.img.fwconf_sect < 0)
		rc = cx_fail(st, CX_EABSENT, "image has no FW Configuration section (no board .ini)");
	if (!rc) {
		const struct fs2_item *s = &f.img.items[f.img.fwconf_sect];
		rc = ini_inflate(f.cont + s->data_off, s->data_len, &text, &len, st);
	}
	if (!rc) {
		if (c->nparams == 1) {
			rc = file_write(c->params[0], (const uint8_t *)text, len, st);
			if (!rc && c->json)
				cli_json_wrote(c, "ini", c->params[0], len);
		} else if (c->json) {
			struct json j;
			json_begin(&j, stdout);
			json_strn(&j, "ini", text, len);
			json_end(&j);
		} else {
			fwrite(text, 1, len, stdout);
		}
	}
	free(text);
	imgfile_close(&f);
	return rc;
}

int cmd_rrom(struct cli *c, struct cx_status *st)
{
	struct imgfile f;
	int rc = open_verified(c, &f, st);

	if (!rc && f.img.rom_sect < 0)
		rc = cx_fail(st, CX_EABSENT, "image has no ROM section");
	if (!rc) {
		const struct fs2_item *s = &f.img.items[f.img.rom_sect];
		rc = file_write(c->params[0], f.cont + s->data_off, s->data_len, st);
		if (!rc && c->json)
			cli_json_wrote(c, "rom", c->params[0], s->data_len);
	}
	imgfile_close(&f);
	return rc;
}

/* The contiguous image of a dump, [0, end of the last section), as flint's ri. */
int cmd_extract(struct cli *c, struct cx_status *st)
{
	struct imgfile f;
	int rc = open_verified(c, &f, st);

	if (!rc && c->image && !strcmp(c->params[0], c->image))
		rc = cx_fail(st, CX_EUSAGE, "extract would overwrite its own input %s", c->image);
	if (!rc) {
		rc = file_write(c->params[0], f.cont, f.img.last_addr, st);
		if (!rc && c->json)
			cli_json_wrote(c, "image", c->params[0], f.img.last_addr);
	}
	imgfile_close(&f);
	return rc;
}
