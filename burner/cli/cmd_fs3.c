/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_fs3.c — an FS3/FS4 file: which command runs, which is refused and why (fs3cli.h). */
#include <stdlib.h>
#include <string.h>

#include "cli/common.h"
#include "cli/fs3cli.h"
#include "image/ini.h"
#include "util/fileio.h"

static int need_verified(const struct fs3_file *f, int rc, struct cx_status *st)
{
	return rc ? rc : fs3_verdict(&f->img, st);
}

static int write_section(struct cli *c, const struct fs3_file *f, int entry, const char *what,
			 struct cx_status *st)
{
	const struct fs3_entry *e = &f->img.entries[entry];
	int rc = file_write(c->params[0], fs3_entry_data(&f->img, e), e->size, st);

	if (!rc && c->json)
		cli_json_wrote(c, what, c->params[0], e->size);
	return rc;
}

/* dc: the DBG_FW_INI section is a zlib stream, as in FS2 (fs3-format.md §6.6). */
static int fs3_dc(struct cli *c, const struct fs3_file *f, struct cx_status *st)
{
	const struct fs3_entry *e;
	char *text = NULL;
	size_t len = 0;
	int rc;

	if (f->img.ini_entry < 0)
		return cx_fail(st, CX_EABSENT, "image has no DBG_FW_INI section (no board .ini)");
	e = &f->img.entries[f->img.ini_entry];
	if ((rc = ini_inflate(fs3_entry_data(&f->img, e), e->size, &text, &len, st)))
		return rc;
	if (c->nparams == 1) {
		rc = file_write(c->params[0], (const uint8_t *)text, len, st);
		if (!rc && c->json)
			cli_json_wrote(c, "ini", c->params[0], len);
	} else if (c->json) {
		struct json j;
		json_begin(&j, stdout);
		json_strn(&j, "ini", text, len);
		json_end(&j);
		c->json_done = true;
	} else {
		fwrite(text, 1, len, stdout);
	}
	free(text);
	return rc;
}

/* ri: what mstflint's ri writes (FwReadData, fs3-format.md §8): FS3 up to the end of the
 * last section, device data included; FS4 the whole file (its DTOC is at the end). */
static int fs3_ri(struct cli *c, const struct fs3_file *f, struct cx_status *st)
{
	const struct fs3_image *img = &f->img;
	size_t end = f->len;

	if (c->image && !strcmp(c->params[0], c->image))
		return cx_fail(st, CX_EUSAGE, "ri would overwrite its own input %s", c->image);
	if (!img->fmt->dtoc) {
		end = 0;
		for (int i = 0; i < img->nitems; i++)
			if (img->items[i].off + (size_t)img->items[i].len > end)
				end = img->items[i].off + (size_t)img->items[i].len;
	}
	int rc = file_write(c->params[0], img->buf, end, st);
	if (!rc && c->json)
		cli_json_wrote(c, "image", c->params[0], end);
	return rc;
}

static bool is_signed(const struct fs3_image *img)
{
	return img->info.signed_fw || img->info.secure_fw || strcmp(cli_fs3_security(img), "N/A");
}

/* sg, sv, drom, brom: the gates (fs3-format.md §7), one line each. */
static int refuse_edit(const char *name, const struct fs3_file *f, struct cx_status *st)
{
	const struct fs3_image *img = &f->img;
	const char *fmt = img->fmt->name;

	if (!strcmp(name, "sg") && !img->mfg.guids_override_en)
		return cx_fail(st, CX_EUNSUPPORTED, "sg: guids override is not set, cannot set device guids "
			       "(%s MFG_INFO guids_override_en is 0); a card's GUIDs/MACs are its device data "
			       "(DEV_INFO), outside the image, and a burn keeps them", fmt);
	if (!strcmp(name, "sg") || !strcmp(name, "sv"))
		return cx_fail(st, CX_EUNSUPPORTED, "%s: the %s of an %s image %s the card's device data "
			       "(DEV_INFO), outside the image and kept by a burn: not set in a file", name,
			       name[1] == 'g' ? "GUIDs/MACs" : "VSD", fmt, name[1] == 'g' ? "are" : "is");
	if (is_signed(img))
		return cx_fail(st, CX_EUNSUPPORTED, "%s: this %s image is signed and ROM_CODE is in the signed "
			       "region: changing it would need re-signing with NVIDIA's key; burn, unmodified, "
			       "the released image that carries the ROM you want", name, fmt);
	return cx_fail(st, CX_EUNSUPPORTED, "%s: changing the ROM of an %s image is not supported "
		       "(this family is read-only until card support lands)", name, fmt);
}

static int run(const struct command *cmd, struct cli *c, struct fs3_file *f, int rc, struct cx_status *st)
{
	const char *n = cmd->name;

	if (!strcmp(n, "v") || !strcmp(n, "verify"))
		return cli_fs3_verify(c, f, rc, st);
	if (rc)
		return rc;
	if (!strcmp(n, "q") || !strcmp(n, "query"))
		return cli_fs3_query(c, f, st);
	if (!strcmp(n, "sg") || !strcmp(n, "sv") || !strcmp(n, "drom") || !strcmp(n, "brom"))
		return refuse_edit(n, f, st);
	if ((rc = need_verified(f, rc, st)))
		return rc;
	if (!strcmp(n, "dc"))
		return fs3_dc(c, f, st);
	if (!strcmp(n, "rrom"))
		return f->img.rom_entry < 0 ? cx_fail(st, CX_EABSENT, "image has no ROM_CODE section")
					    : write_section(c, f, f->img.rom_entry, "rom", st);
	if (!strcmp(n, "ri") || !strcmp(n, "extract"))
		return fs3_ri(c, f, st);
	return cx_fail(st, CX_EUNSUPPORTED, "%s: %s images (ConnectX-4 and later) are read-only until card "
		       "support lands", n, f->img.fmt->name);
}

int cli_fs3_run(const struct command *cmd, struct cli *c, struct fs3_file *f, int parse_rc, struct cx_status *st)
{
	return run(cmd, c, f, parse_rc, st);
}

int cli_fs3_dispatch(const struct command *cmd, struct cli *c, bool *handled, struct cx_status *st)
{
	struct fs3_file f;
	struct cx_status ignore = {0};
	int rc = CX_OK;

	*handled = false;
	if (c->device && cli_fs3_card_dispatch(cmd, c, handled, &rc, st))
		return rc;
	/* match reads an FS3/FS4 file itself: the card it came from (cmd_match.c). */
	if (!c->image || !strcmp(cmd->name, "match"))
		return CX_OK;
	memset(&f, 0, sizeof(f));
	/* A file that cannot be read goes on to the FS2 code, which says why as it always has. */
	if (file_read(c->image, IMGFILE_MAX, &f.buf, &f.len, &ignore))
		return CX_OK;
	enum fs3_fmt fmt = fs3_detect(f.buf, f.len);
	if (fmt == FMT_FS3 || fmt == FMT_FS4) {
		*handled = true;
		if (c->device)
			rc = cx_fail(st, CX_EUNSUPPORTED, "%s: %s images (ConnectX-4 and later) are read-only until "
				     "card support lands", cmd->name, fmt == FMT_FS3 ? "FS3" : "FS4");
		else
			rc = run(cmd, c, &f, fs3_parse(f.buf, f.len, &f.img, st), st);
	}
	free(f.buf);
	return *handled ? rc : CX_OK;
}
