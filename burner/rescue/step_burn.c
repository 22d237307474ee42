/* SPDX-License-Identifier: GPL-2.0-or-later */
/* step_burn.c — a write step: a library image onto a card (step_burn.h), for the menu's
 * update, cross-flash, burn a file and the burn half of an unbrick, for the resume of an
 * interrupted burn, and for the update and crossflash jobs.
 *
 * The order is the promise of the wizard: show from -> to, the verdict and
 * every risk; the typed word; then, once burn_card()'s own checks passed, a
 * backup of the card's whole flash to the stick and the job record
 * (pending.h); the failsafe burn with progress; the history line; and the
 * card read again, so the menu shows what it now holds. What follows a burn
 * on the screen (the port type and SR-IOV screen after a cross-flash) is the
 * caller's: this step opens no screen. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "image/imgfile.h"
#include "image/info.h"
#include "image/rom.h"
#include "ops/progress.h"
#include "rescue/data_area.h"
#include "rescue/inventory.h"
#include "rescue/step_burn.h"
#include "rescue/step_probe.h"
#include "rescue/step_record.h"
#include "rescue/step_rom.h"
#include "util/fileio.h"

struct burn_ctx {
	struct wiz_write x;          /* first: the before_write hook's ctx is this struct */
	const struct write_request *rq;
};

static void show_plan(struct wizard *w, const struct write_request *rq)
{
	const struct wizard_card *c = &w->cards[rq->card];
	const struct manifest_entry *e = rq->e;
	const struct match_candidate *m = rq->m;
	char from_rom[160], to_rom[160], ver[24];
	FILE *o = w->out;

	fprintf(o, "\n== %s: card %s (%s) ==\n", rq->action, c->ci.pci.bdf, c->ci.chip);
	if (c->ci.have_fs3) {
		fprintf(o, "  from: PSID %-16s FW %-12s (%s image; %s)\n", c->ci.fs3_psid, c->fw, c->ci.fs3_format,
			c->ci.recovery ? "recovery mode: no firmware runs" : "through its running firmware");
	} else if (c->ci.have_image) {
		const struct fs2_image *img = &c->ci.f.img;
		wiz_roms_text(from_rom, sizeof(from_rom), img->nroms, img->roms);
		fprintf(o, "  from: PSID %-16s FW %-12s ROM %s\n", img->info.psid, c->fw, from_rom);
	} else {
		fprintf(o, "  from: %s\n", c->ci.recovery ? "recovery mode: no firmware runs" : "no readable firmware");
	}
	wiz_roms_text(to_rom, sizeof(to_rom), e->nroms, e->roms);
	fmt_fw_version(ver, sizeof(ver), e->fw_ver);
	fprintf(o, "  to:   PSID %-16s FW %-12s ROM %s\n", e->psid, ver, to_rom);
	fprintf(o, "  file: %s\n        SHA-256 %s\n", e->path, e->sha256);
	if (m) {
		fprintf(o, "  verdict: %s (%s)\n", match_verdict_name(m->verdict), match_relation_name(m->rel));
		for (int i = 0; i < m->nreasons; i++)
			fprintf(o, "    - %s: %s\n", match_verdict_name(m->reason_v[i]), m->reasons[i]);
		if (m->have_diff) {
			const struct ini_diff *d = &m->diff;
			fprintf(o, "  board .ini: %zu identical, %zu expected to differ, %zu risky\n", d->nsame,
				d->nexpected, d->nrisky);
			for (size_t i = 0; i < d->n; i++)
				if (d->pairs[i].cls == INI_RISKY)
					fprintf(o, "    - risky: [%s] %s: card %s, image %s\n", d->pairs[i].section,
						d->pairs[i].key, d->pairs[i].card ? d->pairs[i].card : "(absent)",
						d->pairs[i].image ? d->pairs[i].image : "(absent)");
		}
	}
	const struct identity_opts *id = rq->ident;
	if (id && id->given.have_guids)
		fprintf(o, "  identity: node GUID %016llx, port GUIDs %016llx %016llx%s", (unsigned long long)id->given.guid[0],
			(unsigned long long)id->given.guid[1], (unsigned long long)id->given.guid[2],
			id->given.have_macs ? "" : "\n");
	if (id && id->given.have_macs)
		fprintf(o, ", MACs %012llx %012llx\n", (unsigned long long)id->given.mac[0],
			(unsigned long long)id->given.mac[1]);
	if (id && !id->given.have_guids && id->recovered)
		fprintf(o, "  identity: kept from the card's damaged flash (its GUID section's CRC is good): node GUID "
			"%016llx, MACs %012llx %012llx\n", (unsigned long long)id->recovered->guid[0],
			(unsigned long long)id->recovered->mac[0], (unsigned long long)id->recovered->mac[1]);
	if (!id && c->ci.have_fs3 && c->ci.fs3_ids)
		fprintf(o, "  identity: the card keeps its own GUIDs and MACs (base GUID %016llx, base MAC %012llx):\n"
			"    they are its device data (DEV_INFO), which an FS3/FS4 burn never writes\n",
			(unsigned long long)c->ci.fs3_guid, (unsigned long long)c->ci.fs3_mac);
	if (!id && c->ci.have_image && !c->ci.f.img.guids.blank)
		fprintf(o, "  identity: the card keeps its own GUIDs and MACs (node GUID %016llx)\n",
			(unsigned long long)c->ci.f.img.guids.guid[0]);
	fprintf(o, "  A backup of the card's whole flash goes to the stick before anything is written.\n");
	fprintf(o, "  The burn is failsafe: a power cut leaves the old or the new firmware, never none.\n");
}

/* burn_card()'s questions (a PSID change, a downgrade, the same version again)
 * were on the plan the user confirmed with the typed word: they are logged and
 * taken as answered. Unattended, only a crossflash job takes a PSID change. */
static int confirm(void *ctx, const char *question, struct cx_status *st)
{
	struct burn_ctx *b = ctx;

	if (b->rq->ask) {
		wiz_say(b->x.w, "  confirmed with %s: %s", CONFIRM_WORD, question);
		return CX_OK;
	}
	if (b->x.w->o.job == JOB_CROSSFLASH && strstr(question, "PSID")) {
		wiz_say(b->x.w, "  the crossflash job allows it: %s", question);
		return CX_OK;
	}
	return cx_fail(st, CX_EDECLINED, "unattended, not allowed: %s", question);
}

/* After the checks, before the first write: the backup, then the job record. */
static int before_write(void *ctx, struct cx_status *st)
{
	struct burn_ctx *b = ctx;
	int rc = wiz_write_before(&b->x, st);

	/* Written, if perhaps not uploaded (rc): the report still names it. */
	if (b->x.backed_up && b->rq->backup_out)
		*b->rq->backup_out = b->x.bk;
	if (b->x.backed_up && b->rq->backed_up)
		*b->rq->backed_up = true;
	return rc;
}

/* The file as the library saw it: same bytes, same SHA-256, or nothing is written. */
static int read_checked(const struct manifest_entry *e, uint8_t **img, size_t *len, struct cx_status *st)
{
	uint8_t d[SHA256_LEN];
	char hex[SHA256_HEX_LEN + 1];
	int rc;

	if ((rc = file_read(e->path, IMGFILE_MAX, img, len, st)))
		return rc;
	sha256(*img, *len, d);
	if (strcmp(sha256_hex(d, hex), e->sha256)) {
		free(*img);
		*img = NULL;
		return cx_fail(st, CX_EIMAGE, "%s changed since the library read it (SHA-256 now %s): nothing written",
			       e->path, hex);
	}
	return CX_OK;
}

/* What the wizard refuses before the word, and the file read as the library saw it. */
static int before_word(struct wizard *w, const struct write_request *rq, uint8_t **img, size_t *len,
		       struct cx_status *st)
{
	const struct wizard_card *c = &w->cards[rq->card];

	if (rq->m && rq->m->verdict == MATCH_REFUSED)
		return cx_fail(st, CX_EMISMATCH, "%s is refused for this card: %s", rq->e->name,
			       rq->m->nreasons ? rq->m->reasons[0] : rq->m->line);
	/* burn_card() would refuse these after the word (and after the backup), or name
	 * cxflash's options: say them first. */
	if (c->no_write)
		return cx_fail(st, CX_EUNSUPPORTED, "card %s (%s): %s; nothing written", c->ci.pci.bdf, c->ci.chip,
			       c->no_write);
	if (c->fs3 && rq->ident)
		return cx_fail(st, CX_EUNSUPPORTED, "card %s (%s): its GUIDs and MACs are its device data, which a burn "
			       "keeps and never writes: none can be given to it", c->ci.pci.bdf, c->ci.chip);
	if (c->fs3 && !c->ci.have_fs3)
		return cx_fail(st, CX_EUNSUPPORTED, "card %s (%s): its flash holds no valid image (%s); a burn keeps the "
			       "card's device data, which must be there; restoring one of the card's backups puts it back",
			       c->ci.pci.bdf, c->ci.chip, c->ci.image_error);
	if (c->ci.recovery && !c->fs3 && !rq->ident)
		return cx_fail(st, CX_EABSENT, "card %s is in recovery mode: its GUIDs and MACs cannot be read from "
			       "it; choose \"Unbrick\", which takes them from a backup or the sticker", c->ci.pci.bdf);
	return read_checked(rq->e, img, len, st);
}

/* The job record names what goes onto the card. */
static void describe_job(struct pending *job, const struct write_request *rq, const char *to_fw,
			 const struct wiz_rom *rom)
{
	snprintf(job->rom, sizeof(job->rom), "%s", rom->record);
	snprintf(job->file, sizeof(job->file), "%s", rq->e->path);
	snprintf(job->sha256, sizeof(job->sha256), "%s", rq->e->sha256);
	snprintf(job->to_psid, sizeof(job->to_psid), "%s", rq->e->psid);
	snprintf(job->to_fw, sizeof(job->to_fw), "%s", to_fw);
	snprintf(job->identity, sizeof(job->identity), "%s", rq->identity_note ? rq->identity_note : "card");
}

static void say_done(struct wizard *w, struct burn_ctx *b, const struct burn_result *r, const char *to_fw)
{
	const struct wizard_card *c = &w->cards[b->rq->card];

	if (r->nothing_to_do) {
		wiz_say(w, "card %s: it already holds this image (FW %s, PSID %s): nothing written", c->ci.pci.bdf,
			to_fw, r->new_psid);
		return;
	}
	char from[48], change[160];
	/* "FW 2.40.5030 -> 2.42.5000, PSID A -> B"; a card in recovery mode had neither. */
	burn_from_text(r, from, sizeof(from));
	if (r->had_image)
		snprintf(change, sizeof(change), "%s -> %s, PSID %s -> %s", from, to_fw, r->old_psid, r->new_psid);
	else
		snprintf(change, sizeof(change), "%s -> FW %s, PSID %s", from, to_fw, r->new_psid);
	wiz_say(w, "card %s: OK: %s, written and verified (%llu bytes erased, %llu programmed)", c->ci.pci.bdf,
		change, (unsigned long long)r->bytes_erased, (unsigned long long)r->bytes_programmed);
	if (r->rom_carried)
		wiz_say(w, r->rom_before.len ? "  the card's expansion ROM was carried into the new image"
					     : "  the image's expansion ROM was left out: the card had none");
	if (r->guid_source == ID_SRC_DAMAGED)
		wiz_say(w, "  its GUIDs and MACs were kept from its damaged flash (the GUID section's CRC was good)");
	if (r->vsd_source == ID_SRC_DAMAGED)
		wiz_say(w, "  its VSD was kept from its damaged flash (the IMAGE_INFO section's CRC was good)");
	wiz_write_wrote(&b->x);
}

int wiz_burn(struct wizard *w, const struct write_request *rq, struct cx_status *st)
{
	struct wizard_card *c = &w->cards[rq->card];
	struct burn_ctx b = {.rq = rq};
	struct burn_opts o = {0};
	struct burn_result r = {0};
	struct device d;
	uint8_t *img = NULL;
	size_t len;
	char to_fw[24];
	int rc;

	if ((rc = before_word(w, rq, &img, &len, st)))
		return rc;
	if (rq->ask)
		show_plan(w, rq);
	struct wiz_rom rom;
	if ((rc = wiz_rom_plan(w, rq->card, rq->rom, rq->ask, img, len, &rom, st))) {
		free(img);
		wiz_rom_free(&rom);
		return rc;
	}
	wiz_say(w, "  boot ROM: %s -> %s", rom.from, rom.to);
	if (rq->ask) {
		wiz_probe_first(w, rq->card);
		if ((rc = wiz_confirm_write(w, "write the card", st))) {
			free(img);
			wiz_rom_free(&rom);
			wiz_history(w, c, rq->action, NULL, NULL, NULL, "declined", st->msg);
			return rc;
		}
	}
	fmt_fw_version(to_fw, sizeof(to_fw), rq->e->fw_ver);
	struct history_to to = {.psid = rq->e->psid, .fw = to_fw, .file = rq->e->path, .sha256 = rq->e->sha256};
	wiz_write_init(&b.x, w, rq->card, rq->action, "before writing", rq->e->name);
	b.x.to = &to;
	b.x.nothing = "nothing to do: the card already holds this image";
	describe_job(&b.x.job, rq, to_fw, &rom);
	if (rq->ident)
		o.ident = *rq->ident;
	o.guard = wiz_burn_guard; /* shown on the plan; burn_card() still asks (confirm) */
	o.rom = rom.pick;
	o.rom_file = rom.file;
	o.rom_file_len = rom.file_len;
	o.hooks.confirm = confirm;
	o.hooks.confirm_ctx = &b;
	o.hooks.before_write = before_write;
	o.hooks.before_ctx = &b;
	o.hooks.progress = progress_line;
	o.hooks.after = wiz_write_after;
	o.hooks.after_ctx = &b.x;
	b.x.d = &d;
	rc = wiz_open(w, rq->card, &d, st);
	if (!rc)
		rc = burn_card(&d, img, len, &o, &r, st);
	device_close(&d);
	free(img);
	wiz_rom_free(&rom);
	if ((rc = wiz_write_end(&b.x, rc, st, &r.out)))
		return rc;
	say_done(w, &b, &r, to_fw);
	return CX_OK;
}
