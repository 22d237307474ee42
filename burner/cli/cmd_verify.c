/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_verify.c — `v`: check every structure rule and checksum, one line per item like flint. */
#include <string.h>

#include "cli/common.h"

static const char *item_name(const struct fs2_item *it, char tmp[24])
{
	if (it->kind == FS2_ITEM_BOOT2)
		return "BOOT2";
	if (it->kind == FS2_ITEM_FULL)
		return "Full Image";
	return fs2_sect_name(it->type, tmp);
}

static const char *item_result(const struct fs2_item *it)
{
	return it->blank ? "BLANK CRC" : it->ok ? "OK" : "wrong CRC";
}

/* flint prints the full-image line only when it checks that CRC (tag 11), fs2-format.md §2.3. */
static bool shown(const struct fs2_image *img, const struct fs2_item *it)
{
	return it->kind != FS2_ITEM_FULL || img->has_full_crc;
}

static void print_text(const struct imgfile *f)
{
	const struct fs2_image *img = &f->img;
	char tmp[24];

	if (img->failsafe)
		printf("\n     FS2 failsafe image. Start address: 0x%x. Chunk size 0x%x:\n\n"
		       "     NOTE: The addresses below are contiguous logical addresses. Physical addresses on\n"
		       "           flash may be different, based on the image start address and chunk size\n\n",
		       f->start, 1u << img->log2chunk);
	else
		printf("\n     FS2 non failsafe image:\n\n");
	for (int i = 0; i < img->nitems; i++) {
		const struct fs2_item *it = &img->items[i];
		if (!shown(img, it))
			continue;
		printf("     /0x%08x-0x%08x (0x%06x)/ (%s)", it->off, it->off + it->len - 1, it->len,
		       item_name(it, tmp));
		if (it->blank)
			printf(" - BLANK CRC (0xffff)\n");
		else if (it->ok)
			printf(" - OK\n");
		else
			printf(" /0x%08x/ - wrong CRC (exp:0x%x, act:0x%x)\n", it->off, it->crc_calc,
			       it->crc_stored);
	}
}

static void print_json(const struct imgfile *f, int rc, const struct cx_status *st)
{
	const struct fs2_image *img = &f->img;
	struct json j;
	char tmp[24];

	json_begin(&j, stdout);
	json_str(&j, "image_type", "FS2");
	json_bool(&j, "striped", f->striped);
	json_int(&j, "start", f->start);
	json_bool(&j, "failsafe", img->failsafe);
	json_int(&j, "chunk_size", 1ll << img->log2chunk);
	json_arr(&j, "items");
	for (int i = 0; i < img->nitems; i++) {
		const struct fs2_item *it = &img->items[i];
		if (!shown(img, it))
			continue;
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
	json_str(&j, "verdict", rc ? "failed" : "ok");
	if (rc) { /* the keys of every --json failure (commands.c json_failure), and the report */
		json_str(&j, "error", st->msg);
		json_str(&j, "code", cx_code_name(rc));
		json_int(&j, "exit_code", rc);
		json_null(&j, "card_state");
	}
	json_end(&j);
}

int cmd_verify(struct cli *c, struct cx_status *st)
{
	struct imgfile f;

	if (c->nparams == 1) /* FS3/FS4 files never get here (cmd_fs3.c) */
		return cx_fail(st, CX_EUSAGE, "v %s: an FS2 image has no ITOC (showitoc is for FS3/FS4 images)",
			       c->params[0]);
	int rc = cli_open_image(c, &f, st);

	/* A file that could not be read has nothing to show; a parse that
	 * stopped part-way still shows what it checked before the fault. */
	if (rc != CX_EIO && rc != CX_ENOMEM && f.cont && (rc == CX_OK || f.img.nitems > 0)) {
		if (!rc)
			rc = fs2_verdict(&f.img, st);
		if (c->json) {
			print_json(&f, rc, st);
			c->json_done = true;
		} else {
			print_text(&f);
			if (!rc)
				printf("\n-I- FW image verification succeeded. Image is bootable.\n\n");
		}
	}
	if (rc && st->msg[0] && !strstr(st->msg, "verification failed")) {
		char msg[CX_MSG_MAX];
		snprintf(msg, sizeof(msg), "%s", st->msg);
		snprintf(st->msg, sizeof(st->msg), "FW image verification failed: %.*s", CX_MSG_MAX - 40, msg);
	}
	imgfile_close(&f);
	return rc;
}
