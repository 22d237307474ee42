/* SPDX-License-Identifier: GPL-2.0-or-later */
/* job_run.c — the job of the kernel command line, without a question (jobs.h): the cards it
 * chooses, for each its write (job_write.c), check (job_verify.c) or settings
 * (job_settings.c), each card's line on the screen, and the report last (job_report.c).
 *
 * Everything the job refuses is refused before the first card is written: a job that writes
 * without yes=1, a bad expect=, and settings= that a chosen card does not take. A write reads
 * its card again in its place (rescue/inventory.h), so card i stays card i for the whole job;
 * what the cards were before it is kept for the report. */
#include <stdlib.h>
#include <string.h>

#include "rescue/data_area.h"
#include "rescue/inventory.h"
#include "rescue/jobs.h"
#include "rescue/step_rom.h"

/* One run of a job: what it was given besides the cards, and what it did to each. */
struct job {
	int n;                           /* the cards, as w->ncards at the start */
	struct wizard_card *before;      /* the cards as they were: the report says what they ran */
	struct job_outcome *r;           /* what the job did to each (result NULL: not chosen) */
	int target;                      /* job=restore: the one card the bundle fits, else -1 and why */
	char why[CX_MSG_MAX];
	struct backup_identity bundle;   /* job=restore: the bundle's identity.json */
	struct verify_expect expect[WIZARD_MAX_CARDS];
	int nexpect;
	struct job_settings js;          /* settings=, split */
	struct cx_status refused;        /* settings= refused, naming the card (code 0: not) */
	int picked, bad;                 /* cards chosen; of them, not done as asked */
};

static bool writes(enum wizard_job job)
{
	return job == JOB_UPDATE || job == JOB_CROSSFLASH || job == JOB_RESTORE || job == JOB_SETTINGS;
}

static bool chosen(const struct wizard *w, const struct wizard_card *c)
{
	const char *want = w->o.job_card;

	if (!want || !*want || !strcmp(want, "all"))
		return true;
	size_t a = strlen(c->ci.pci.bdf), b = strlen(want);
	return b <= a && !strcmp(c->ci.pci.bdf + a - b, want); /* "01:00.0" names "0000:01:00.0" */
}

/* The boot ROM of card i as the wizard read it last (after the job's write). */
static void rom_after(const struct wizard *w, int i, struct job_outcome *r)
{
	if (w->cards[i].ci.have_image) {
		const struct fs2_image *img = &w->cards[i].ci.f.img;
		wiz_roms_text(r->rom_after, sizeof(r->rom_after), img->rom_sect >= 0 ? img->nroms : 0, img->roms);
	}
}

/* Card c can take a bundle of identity id: its family, and its node GUID or none readable. A
 * ConnectX-4/4 Lx/5 reads its identity (DEV_INFO's base GUID) in recovery mode too. */
static bool fits(const struct wizard_card *c, const struct backup_identity *id)
{
	if (!c->ci.pci.family || strcmp(c->ci.pci.family, id->family))
		return false;
	if (c->fs3) {
		uint64_t own = inv_own_guid(c);
		return !own || own == id->guid[0];
	}
	bool unread = c->ci.recovery || !c->ci.have_image || c->ci.f.img.guids.blank;
	return unread || c->ci.f.img.guids.guid[0] == id->guid[0];
}

/* job=restore: the chosen card the bundle fits. -1 with why when there is none, or more than one. */
static int restore_target(struct wizard *w, struct backup_identity *id_out, char *why, size_t n)
{
	struct backup_identity id;
	struct cx_status st = {0};
	int found = -1, count = 0;

	/* identity.json only: restore_card() checks the whole bundle before it writes. */
	if (backup_load_identity(w->o.bundle, &id, &st)) {
		snprintf(why, n, "%s", st.msg); /* it names the bundle's file */
		return -1;
	}
	*id_out = id;
	if (!id.have_image) {
		snprintf(why, n, "the bundle %s holds no firmware image: it would leave the card in recovery mode",
			 w->o.bundle);
		return -1;
	}
	for (int k = 0; k < w->ncards; k++)
		if (chosen(w, &w->cards[k]) && fits(&w->cards[k], &id))
			found = k, count++;
	if (count == 1)
		return found;
	if (count)
		snprintf(why, n, "%d cards could take the bundle of %s %016llx: name one with cxrescue.card=", count,
			 id.family, (unsigned long long)id.guid[0]);
	else
		snprintf(why, n, "no chosen card takes the bundle of %s %016llx (same family, and its node GUID or "
			 "none readable)", id.family, (unsigned long long)id.guid[0]);
	return -1;
}

/* settings=: every name and value, then on every chosen card, before anything is written.
 * The refusal, naming the card that refuses it, in j->refused (code 0: none). */
static void settings_refusal(struct wizard *w, struct job *j)
{
	struct cx_status *refused = &j->refused;

	if (job_settings_parse(w->o.settings, &j->js, refused))
		return;
	for (int k = 0; k < w->ncards && !refused->code; k++)
		if (chosen(w, &w->cards[k]) && job_settings_check(w, k, &j->js, &j->r[k].set, refused)) {
			char msg[CX_MSG_MAX];
			int code = refused->code;
			snprintf(msg, sizeof(msg), "%s", refused->msg);
			cx_status_clear(refused);
			cx_fail(refused, code, "card %s: %s", w->cards[k].ci.pci.bdf, msg);
		}
}

/* The cards as they are before the job, for its report: the parsed facts only, no buffers. */
static void snapshot(const struct wizard *w, struct wizard_card *before)
{
	for (int i = 0; i < w->ncards; i++) {
		const struct wizard_card *c = &w->cards[i];
		before[i].ci.pci = c->ci.pci;
		snprintf(before[i].ci.chip, sizeof(before[i].ci.chip), "%s", c->ci.chip);
		before[i].ci.oem = c->ci.oem;
		before[i].ci.recovery = c->ci.recovery;
		before[i].ci.have_image = c->ci.have_image;
		if (c->ci.have_image)
			before[i].ci.f.img = c->ci.f.img;
		before[i].fs3 = c->fs3;
		before[i].ci.have_fs3 = c->ci.have_fs3;
		before[i].ci.fs3_ids = c->ci.fs3_ids;
		before[i].ci.fs3_guid = c->ci.fs3_guid;
		before[i].ci.fs3_mac = c->ci.fs3_mac;
		memcpy(before[i].ci.fs3_psid, c->ci.fs3_psid, sizeof(before[i].ci.fs3_psid));
		memcpy(before[i].fw, c->fw, sizeof(before[i].fw));
		memcpy(before[i].running, c->running, sizeof(before[i].running));
	}
}

static void job_free(struct job *j)
{
	if (!j)
		return;
	free(j->before);
	free(j->r);
	job_settings_free(&j->js);
	free(j);
}

/* What the job needs before its first card: the cards as they were, expect= read, the
 * restore's card found, settings= checked. CX_OK with *out, or the job is refused whole. */
static int job_start(struct wizard *w, struct job **out, struct cx_status *st)
{
	size_t n = (size_t)(w->ncards ? w->ncards : 1);
	struct job *j = calloc(1, sizeof(*j));

	*out = NULL;
	if (!j || !(j->before = calloc(n, sizeof(*j->before))) || !(j->r = calloc(n, sizeof(*j->r)))) {
		job_free(j);
		return cx_fail(st, CX_ENOMEM, "out of memory");
	}
	j->n = w->ncards;
	j->target = -1;
	snapshot(w, j->before);
	if (w->o.job == JOB_VERIFY &&
	    !wizard_expect_parse(w->o.expect, j->expect, WIZARD_MAX_CARDS, &j->nexpect, j->why, sizeof(j->why))) {
		int rc = cx_fail(st, CX_EVALUE, "%s; nothing checked", j->why);
		job_free(j);
		return rc;
	}
	if (w->o.job == JOB_RESTORE)
		j->target = restore_target(w, &j->bundle, j->why, sizeof(j->why));
	if (w->o.settings)
		settings_refusal(w, j);
	*out = j;
	return CX_OK;
}

/* The job on chosen card i, into r. */
static void job_card(struct wizard *w, const struct job *j, int i, struct job_outcome *r)
{
	if (w->o.job == JOB_INVENTORY) {
		job_outcome(r, "ok", "inventory only");
	} else if (w->o.job == JOB_SETTINGS) {
		job_outcome(r, "ok", "settings only");
	} else if (w->o.job == JOB_VERIFY) {
		r->expect = job_verify_find(j->expect, j->nexpect, &w->cards[i]);
		r->result = job_verify_card(&w->cards[i], r->expect, r->message, sizeof(r->message));
	} else if (w->o.job == JOB_RESTORE && j->target < 0) {
		job_outcome(r, "refused", "%s", j->why);
	} else if (w->o.job == JOB_RESTORE && j->target != i) {
		job_outcome(r, "nothing-to-do", "not the card of the bundle: left alone");
	} else if (w->o.job == JOB_RESTORE && w->cards[i].no_write) {
		job_outcome(r, "refused", "%s; nothing written", w->cards[i].no_write);
	} else {
		r->bundle = w->o.job == JOB_RESTORE ? &j->bundle : NULL;
		job_write_card(w, i, r);
	}
}

/* settings= on card i after its job went well: applied, or the card fails with why. */
static void settings_after(struct wizard *w, int i, const struct job_settings *js, struct job_outcome *r)
{
	struct cx_status st = {0};
	char was[sizeof(r->message)];
	int rc = job_settings_apply(w, i, js, &r->set, &st);

	snprintf(was, sizeof(was), "%s", r->message);
	if (w->o.job == JOB_SETTINGS)
		was[0] = 0;          /* "settings only" says nothing */
	if (rc)
		job_outcome(r, "failed", "%s%ssettings not set: %s", was, was[0] ? "; " : "", st.msg);
	else if (w->o.job == JOB_SETTINGS)
		job_outcome(r, r->set.changed ? "ok" : "nothing-to-do", "%u of %u settings changed, for the next cold "
			    "boot", r->set.changed, r->set.n);
	else
		job_outcome(r, r->result, "%s; settings set for the next cold boot", was);
}

/* Chosen card i: its job (or the settings' refusal), its settings after it, its line. */
static void run_card(struct wizard *w, struct job *j, int i)
{
	struct job_outcome *r = &j->r[i];

	j->picked++;
	if (j->refused.code)
		job_outcome(r, "refused", "settings=: %s; nothing written", j->refused.msg);
	else
		job_card(w, j, i, r);
	rom_after(w, i, r);
	bool fine = !strcmp(r->result, "ok") || !strcmp(r->result, "nothing-to-do");
	if (fine && j->js.n && !j->refused.code) {
		settings_after(w, i, &j->js, r);
		fine = strcmp(r->result, "failed");
	}
	j->bad += !fine;
	wiz_say(w, "card %s: %s%s%s", w->cards[i].ci.pci.bdf, r->result, r->message[0] ? ": " : "", r->message);
}

int job_run(struct wizard *w, struct cx_status *st)
{
	char started[32], path[JOURNAL_PATH_MAX + 64];
	struct job *j;
	int rc;

	wiz_now(started);
	wiz_say(w, "\n== Unattended job: %s (cards: %s%s%s%s) ==", wizard_job_name(w->o.job),
		w->o.job_card ? w->o.job_card : "all", w->o.yes ? ", yes=1" : "", w->o.allow_risky ? ", allow_risky=1" : "",
		w->o.device_data ? ", device_data=1" : "");
	if (writes(w->o.job) && !w->o.yes)
		return cx_fail(st, CX_EDECLINED, "the %s job writes cards: it needs cxrescue.yes=1 on the kernel "
			       "command line; nothing written", wizard_job_name(w->o.job));
	/* Nobody is there to accept the loss of the backups the writes make first: refused
	 * whole, with no option to force it (data_area.h; docs/wizard.md, "Backups in RAM"). */
	char why[128];
	if (writes(w->o.job) && data_in_ram_only(&w->o))
		return cx_fail(st, CX_EDECLINED, "the %s job writes cards, but %s: their backups would stay in RAM "
			       "and be LOST at power-off; nothing written (boot from a writable cxrescue stick, or "
			       "from scripts/pxe-serve)", wizard_job_name(w->o.job), data_ram_why(&w->o, why, sizeof(why)));
	if ((rc = job_start(w, &j, st)))
		return rc;
	for (int i = 0; i < j->n; i++)
		if (chosen(w, &w->cards[i]))
			run_card(w, j, i);
	if (!j->picked) {
		j->bad++;
		wiz_say(w, "no card matches cxrescue.card=%s", w->o.job_card ? w->o.job_card : "all");
	}
	rc = job_report_write(w, j->before, j->n, j->r, j->bad == 0, started, path, sizeof(path), st);
	if (!rc)
		wiz_say(w, "Report: %s", path);
	if (!rc && j->refused.code)
		rc = cx_fail(st, j->refused.code, "settings=: %s; nothing written", j->refused.msg);
	else if (!rc && j->bad)
		rc = cx_fail(st, CX_EDECLINED, "%d of %d card%s not done as the job asked (see above)", j->bad,
			     j->picked, j->picked == 1 ? "" : "s");
	job_free(j);
	return rc;
}
