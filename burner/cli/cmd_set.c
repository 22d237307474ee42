/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_set.c — `sg` and `sv`: patch GUIDs/MACs or the VSD of an image file or a card.
 *
 * The patch is made on a copy in memory, re-parsed and verified, and only then
 * written: over the file (atomically), or, with -d BDF, onto the card after a
 * backup, failsafe or in place for blank GUIDs (ops/setid.h). A refused
 * request leaves the file or the card as it was, byte for byte. A striped
 * dump keeps its image in the slot it was in.
 */
#include <stdlib.h>
#include <string.h>

#include "cli/common.h"
#include "image/patch.h"
#include "ops/progress.h"
#include "ops/setid.h"

static const char *const guid_rows[GUIDS_NGUID] = {"Node  GUID:", "Port1 GUID:", "Port2 GUID:",
						   "Sys.Image GUID:"};
static const char *const mac_rows[GUIDS_NMAC] = {"Port1 MAC:", "Port2 MAC:"};

static void show_guid_changes(const struct fs2_guids *now, const struct guid_request *r, const char *where)
{
	printf("    You are about to change the Guids/Macs on the %s:\n\n", where);
	printf("%-20s%-24s%s\n", "", "New Values", "Current Values");
	for (int i = 0; i < GUIDS_NGUID; i++)
		printf("        %-16s%016llx        %016llx\n", guid_rows[i],
		       (unsigned long long)(r->have_guids ? r->guid[i] : now->guid[i]),
		       (unsigned long long)now->guid[i]);
	for (int i = 0; i < GUIDS_NMAC && now->n >= GUIDS_FULL; i++)
		printf("        %-16s    %012llx            %012llx\n", mac_rows[i],
		       (unsigned long long)(r->have_macs ? r->mac[i] : now->mac[i]),
		       (unsigned long long)now->mac[i]);
	printf("\n");
}

typedef int (*patch_fn)(uint8_t *buf, const struct fs2_image *img, struct cli *c,
			struct cx_status *st);

static int apply(struct cli *c, struct imgfile *f, patch_fn fn, struct cx_status *st)
{
	uint8_t *copy = malloc(f->cont_len);
	int rc;

	if (!copy)
		return cx_fail(st, CX_ENOMEM, "out of memory");
	memcpy(copy, f->cont, f->cont_len);
	rc = fn(copy, &f->img, c, st);
	if (!rc)
		rc = patch_check_result(copy, f->cont_len, st);
	if (!rc) {
		memcpy(f->cont, copy, f->cont_len);
		rc = imgfile_save(f, st);
	}
	free(copy);
	return rc;
}

static int do_sg(uint8_t *buf, const struct fs2_image *img, struct cli *c, struct cx_status *st)
{
	return patch_guids(buf, img, &c->guids, st);
}

static int do_sv(uint8_t *buf, const struct fs2_image *img, struct cli *c, struct cx_status *st)
{
	return patch_vsd(buf, img, c->vsd, st);
}

static void done(struct cli *c, const char *what)
{
	if (c->json) {
		struct json j;
		json_begin(&j, stdout);
		json_str(&j, "updated", what);
		json_str(&j, "file", c->image);
		json_end(&j);
	} else {
		printf("-I- %s updated in %s; checksums recomputed.\n", what, c->image);
	}
}

/* Patches start from an image that verifies; blank GUIDs are what sg may fix. */
static int open_for_patch(struct cli *c, struct imgfile *f, struct cx_status *st)
{
	int rc = cli_open_image(c, f, st);

	if (!rc && (rc = fs2_verdict(&f->img, st)) == CX_EBLANK) {
		cx_status_clear(st);
		rc = CX_OK;
	}
	return rc;
}

/* ---- on a card (-d BDF) ---- */

static const char *result_word(const struct cli *c, const struct setid_result *r)
{
	return r->nothing_to_do ? "nothing-to-do" : c->dry_run ? "dry-run" : "updated";
}

static void card_done(struct cli *c, const char *what, const struct setid_result *r, const struct cli_backup *b)
{
	if (c->json) {
		struct json j;
		json_begin(&j, stdout);
		json_str(&j, "result", result_word(c, r));
		json_str(&j, "updated", what);
		json_str(&j, "device", c->device);
		json_str(&j, "method", r->in_place ? "in-place" : "failsafe-reburn");
		json_int(&j, "start", r->start);
		cli_json_write_end(&j, c, r->bytes_erased, r->bytes_programmed, b);
	} else if (r->nothing_to_do) {
		printf("-I- the card already holds these %s: nothing written\n", what);
	} else if (c->dry_run) {
		printf("-I- dry run: the %s would be %s; nothing written\n", what,
		       r->in_place ? "programmed in place (blank GUIDs, no erase)" : "re-burned failsafe into the other slot");
	} else {
		printf("-I- %s updated on %s %s: %llu bytes erased, %llu programmed.\n"
		       "-I- Power the machine OFF (cold restart) for the card to use them.\n",
		       what, c->device, r->in_place ? "in place" : "by a failsafe re-burn",
		       (unsigned long long)r->bytes_erased, (unsigned long long)r->bytes_programmed);
	}
}

/* sg/sv on a card: the patch of the file path, and its question (ops/setid.h setid_change). */
struct card_change {
	struct cli *c;
	patch_fn fn;
	bool ask;
};

static int card_patch(void *ctx, uint8_t *buf, const struct fs2_image *img, struct cx_status *st)
{
	struct card_change *x = ctx;
	return x->fn(buf, img, x->c, st);
}

static int card_review(void *ctx, const struct dev_image *cur, struct cx_status *st)
{
	struct card_change *x = ctx;

	if (!x->ask || x->c->json)
		return CX_OK;
	if (!cur->img.guids.blank)
		printf("-W- GUIDs are already set, re-burning image with the new GUIDs ...\n");
	show_guid_changes(&cur->img.guids, &x->c->guids, "device");
	return cli_confirm(x->c, " Do you want to continue ?", st);
}

/* Read the card's image, patch a copy as the file path does, ask as the file
 * path asks, back up, write (ops/setid.h). */
static int set_on_card(struct cli *c, patch_fn fn, const char *what, bool ask, struct cx_status *st)
{
	struct device d;
	struct cli_backup b = {.c = c, .d = &d, .action = "writing"};
	struct setid_opts o = {.dry_run = c->dry_run, .in_place = c->in_place,
				 .hooks = {.before_write = cli_backup_first, .before_ctx = &b, .progress = progress_line}};
	struct setid_result r = {0};
	struct card_change x = {c, fn, ask};
	int rc;

	if (c->image)
		return cx_fail(st, CX_EUSAGE, "%s changes either an image file (-i FILE) or a card (-d BDF), not both",
			       c->command);
	rc = device_open(&d, c->sysfs, c->device, c->clear_sem, st);
	if (!rc) {
		rc = setid_change(&d, card_patch, card_review, &x, &o, &r, st);
		c->card_state = card_state_name(r.out.state);
	}
	device_close(&d);
	if (!rc)
		card_done(c, what, &r, &b);
	return rc;
}

/* sg/sv on an image file: patched in memory, checked, written back in place. */
static int set_on_file(struct cli *c, patch_fn fn, const char *what, bool ask, struct cx_status *st)
{
	struct imgfile f;
	int rc = open_for_patch(c, &f, st);

	if (!rc && ask && !c->json) {
		show_guid_changes(&f.img.guids, &c->guids, "image");
		rc = cli_confirm(c, " Do you want to continue ?", st);
	}
	if (!rc)
		rc = apply(c, &f, fn, st);
	if (!rc)
		done(c, what);
	imgfile_close(&f);
	return rc;
}

int cmd_sg(struct cli *c, struct cx_status *st)
{
	if (!c->guids.have_guids && !c->guids.have_macs)
		return cx_fail(st, CX_EUSAGE, "sg needs --guid/--guids and/or --mac/--macs");
	return (c->device ? set_on_card : set_on_file)(c, do_sg, "GUIDs/MACs", true, st);
}

int cmd_sv(struct cli *c, struct cx_status *st)
{
	if (!c->vsd)
		return cx_fail(st, CX_EUSAGE, "sv needs --vsd STRING");
	return (c->device ? set_on_card : set_on_file)(c, do_sv, "VSD", false, st);
}
