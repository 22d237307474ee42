/* SPDX-License-Identifier: GPL-2.0-or-later */
/* common.c — helpers shared by the commands. */
#include <string.h>
#include <strings.h>

#include "cli/common.h"
#include "ops/device.h"
#include "util/fileio.h"

/* From a card: read its image (ops/devimage.h), whole or only what q shows, and parse it
 * like a file. */
static int open_from_device(struct cli *c, struct imgfile *f, bool shown, struct cx_status *st)
{
	struct device d;
	struct dev_image di;
	int rc;

	memset(f, 0, sizeof(*f));
	memset(&di, 0, sizeof(di));
	rc = device_open(&d, c->sysfs, c->device, c->clear_sem, st);
	if (!rc && d.chip.recovery)
		rc = cx_fail(st, CX_EIMAGE, "%s is in recovery (livefish) mode: its flash holds no valid image",
			     d.pci.bdf);
	if (!rc)
		rc = shown ? device_read_image_shown(&d, &di, DEVIMAGE_ROM, st) : device_read_image(&d, &di, st);
	device_close(&d);
	if (!rc) {
		rc = imgfile_open_mem(f, di.buf, di.len, false, st);
		f->path = c->device;
		f->start = di.start;
		if (!rc)
			devimage_mark_unread(&di, &f->img);
	}
	devimage_free(&di);
	return rc;
}

int cli_open_image(struct cli *c, struct imgfile *f, struct cx_status *st)
{
	if (c->device)
		return open_from_device(c, f, false, st);
	return imgfile_open(f, c->image, c->striped, st);
}

int cli_open_image_shown(struct cli *c, struct imgfile *f, struct cx_status *st)
{
	if (c->device)
		return open_from_device(c, f, true, st);
	return imgfile_open(f, c->image, c->striped, st);
}

void cli_json_wrote(struct cli *c, const char *what, const char *path, size_t len)
{
	struct json j;

	json_begin(&j, stdout);
	json_str(&j, "wrote", what);
	json_str(&j, "file", path);
	json_int(&j, "size", (long long)len);
	json_end(&j);
	c->json_done = true;
}

void cli_identity_opts(const struct cli *c, struct identity_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->given = c->guids;
	o->vsd = c->vsd;
	o->use_image_guids = c->use_image_guids;
	o->use_image_ps = c->use_image_ps;
}

int cli_rom_choice(const struct cli *c, struct rom_choice *r, uint8_t **file, struct cx_status *st)
{
	static const char *const words[] = {"keep", "image", "none"}; /* enum rom_pick's order */

	memset(r, 0, sizeof(*r));
	*file = NULL;
	r->pick = c->use_image_rom ? ROM_IMAGE : ROM_KEEP;
	if (!c->rom)
		return CX_OK;
	for (int i = 0; i < 3; i++)
		if (!strcmp(c->rom, words[i])) {
			if (c->use_image_rom && i != ROM_IMAGE)
				return cx_fail(st, CX_EUSAGE, "--use_image_rom is --rom image: not with --rom %s", c->rom);
			r->pick = (enum rom_pick)i;
			return CX_OK;
		}
	if (c->use_image_rom)
		return cx_fail(st, CX_EUSAGE, "--use_image_rom is --rom image: not with --rom FILE");
	r->pick = ROM_FILE;
	return file_read(c->rom, IMGFILE_MAX, file, &r->file_len, st) ? st->code : (r->file = *file, CX_OK);
}

int cli_confirm(struct cli *c, const char *question, struct cx_status *st)
{
	char line[32];

	if (c->yes)
		return CX_OK;
	printf("%s (y/n) [n] : ", question);
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return cx_fail(st, CX_EDECLINED, "no answer on standard input: nothing changed (use -y)");
	line[strcspn(line, "\r\n")] = '\0';
	if (strcasecmp(line, "y") && strcasecmp(line, "yes"))
		return cx_fail(st, CX_EDECLINED, "aborted by user: nothing changed");
	return CX_OK;
}
