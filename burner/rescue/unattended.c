/* SPDX-License-Identifier: GPL-2.0-or-later */
/* unattended.c — the job of the kernel command line, without a question (flows.h).
 *
 *   cxrescue.job=inventory    the report only; nothing is written
 *   cxrescue.job=backup       every chosen card backed up to the stick
 *   cxrescue.job=update       each card to the library's newest image of its own PSID
 *   cxrescue.job=crossflash   each card to the library's recommendation (a mapped PSID too)
 *   cxrescue.job=restore      the backup bundle=DIR written back onto the one chosen card it
 *                             fits: its family, and its node GUID or no readable identity
 *                             (recovery mode: the unbrick of a node whose backup the PXE
 *                             server kept); two such cards need cxrescue.card=
 *   cxrescue.job=verify       after the cold restart: each card's flash and running FW against
 *                             cxrescue.expect= (what the last write wrote, verify.c); nothing
 *                             is written
 *   cxrescue.job=settings     each card's settings=, nothing else written
 *   cxrescue.card=BDF|all     which cards (all by default)
 *   cxrescue.yes=1            needed by update, crossflash, restore and settings: the job may write
 *   cxrescue.allow_risky=1    a RISKY verdict is written too (refused otherwise)
 *   cxrescue.rom=keep|image|none|FILE
 *                             update and crossflash: the boot ROM of the result (flow_rom.c):
 *                             the card's, the image's, none, or the ROM file FILE (a bare
 *                             name is in the data folder's firmware/); without it the
 *                             wizard's default (the card's UEFI ROM is kept)
 *   cxrescue.settings=NAME=VALUE,...
 *                             update, crossflash and settings: the card settings of
 *                             `cxflash config set` (LINK_TYPE_P1=ETH,SRIOV_EN=1), set after
 *                             the card's write succeeded or found nothing to write
 *                             (job_settings.c); a bad name or value, or one a chosen card
 *                             does not take, refuses the whole job before anything is
 *                             written; a card whose settings cannot be read (ConnectX-2,
 *                             firmware not started) is still written, and fails the job
 *
 * A card the job refuses (a RISKY target, a card in recovery mode outside a
 * restore, nothing to burn because no image fits) is written nothing and
 * makes the job fail, so the wizard stays up instead of powering off; a card already up to date is
 * fine. The writes go through the same steps as the menu's (backup first,
 * job record, failsafe burn, history). The report, reports/<UTC>-<job>.json
 * in the data folder, says per card what was done (its boot ROM before and after too),
 * and the settings asked before and after; it is written last. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "image/info.h"
#include "rescue/flows.h"
#include "util/fileio.h"
#include "util/json.h"
#include "util/utc.h"

#define REPORTS_DIR "reports"

struct card_outcome {
	const char *result;          /* "ok", "nothing-to-do", "refused", "failed", "skipped" */
	char message[2 * CX_MSG_MAX]; /* a write's line, then its settings' */
	const struct manifest_entry *to;
	const struct backup_identity *bundle; /* job=restore: what the card is to get */
	const struct verify_expect *expect;   /* job=verify: what the card should run */
	struct backup_result bk;
	bool backed_up;
	enum card_state state;       /* what the card was left in (untouched when nothing ran) */
	char rom_after[200];         /* the card's boot ROM after the job, read again ("" unknown) */
	struct wiz_settings_card set; /* settings=: before and after */
};

static bool chosen(const struct wizard *w, const struct wizard_card *c)
{
	const char *want = w->o.job_card;

	if (!want || !*want || !strcmp(want, "all"))
		return true;
	size_t a = strlen(c->ci.pci.bdf), b = strlen(want);
	return b <= a && !strcmp(c->ci.pci.bdf + a - b, want); /* "01:00.0" names "0000:01:00.0" */
}

/* The image the job writes: update stays on the card's PSID, crossflash takes the recommendation. */
static const struct match_candidate *target(const struct wizard *w, const struct wizard_card *c)
{
	if (!c->matched)
		return NULL;
	for (size_t k = 0; k < c->mr.n; k++) {
		const struct match_candidate *m = &c->mr.c[k];
		if (m->verdict == MATCH_REFUSED)
			continue;
		if (w->o.job == JOB_UPDATE && m->rel != REL_SAME_PSID)
			continue;
		return m;
	}
	return NULL;
}

static void outcome(struct card_outcome *r, const char *result, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void outcome(struct card_outcome *r, const char *result, const char *fmt, ...)
{
	va_list ap;

	r->result = result;
	va_start(ap, fmt);
	vsnprintf(r->message, sizeof(r->message), fmt, ap);
	va_end(ap);
}

static void write_one(struct wizard *w, int i, struct card_outcome *r)
{
	struct wizard_card *c = &w->cards[i];
	struct cx_status st = {0};

	if (w->o.job == JOB_RESTORE) {
		w->last_write = (struct write_outcome){0};
		int rc = wiz_restore(w, i, w->o.bundle, c->ci.recovery ? "unbrick" : "restore", false, &r->bk, &st);
		r->state = w->last_write.state;
		r->backed_up = r->bk.path[0] != '\0';
		if (rc)
			outcome(r, "failed", "%s", st.msg);
		else
			outcome(r, "ok", "the backup %s written back and verified", w->o.bundle);
		return;
	}
	if (w->o.job == JOB_BACKUP) {
		struct device d;
		int rc = wiz_open(w, i, &d, &st);
		if (!rc)
			rc = wiz_backup_card(w, i, &d, "the backup job", &r->bk, &st);
		device_close(&d);
		r->backed_up = r->bk.path[0] != '\0'; /* written, if perhaps not uploaded (rc) */
		if (rc)
			outcome(r, "failed", "%s", st.msg);
		else
			outcome(r, "ok", "backed up");
		return;
	}
	if (c->ci.recovery) {
		outcome(r, "refused", "the card is in recovery mode: unbrick it from the wizard's menu");
		return;
	}
	const struct match_candidate *m = target(w, c);
	if (!m) {
		if (w->o.job == JOB_UPDATE && inv_best(c))
			outcome(r, "nothing-to-do", "no image of the card's own PSID in the library (crossflash would take %s)",
				inv_best(c)->e->name);
		else
			outcome(r, "refused", "no library image fits this card");
		return;
	}
	r->to = m->e;
	if (m->rel == REL_SAME_PSID && m->version_cmp <= 0) {
		outcome(r, "nothing-to-do", "the card already runs FW %s; the library's newest for its PSID is %s",
			c->fw, m->e->name);
		return;
	}
	if (m->verdict == MATCH_RISKY && !w->o.allow_risky) {
		outcome(r, "refused", "%s is RISKY for this card (%s); cxrescue.allow_risky=1 writes it anyway",
			m->e->name, m->nreasons ? m->reasons[0] : m->line);
		return;
	}
	struct write_request rq = {.card = i, .e = m->e, .m = m, .ask = false, .backup_out = &r->bk,
				   .backed_up = &r->backed_up,
				   .action = m->rel == REL_CROSS_FLASH ? "crossflash" : "update"};
	w->last_write = (struct write_outcome){0};
	int rc = wiz_burn(w, &rq, &st);
	r->state = w->last_write.state;
	if (rc)
		outcome(r, "failed", "%s", st.msg);
	else
		outcome(r, "ok", "%s written and verified", r->to->name);
}

/* The card at bdf among those the wizard read last (a write reads them again): its index, or -1. */
static int card_at(const struct wizard *w, const char *bdf)
{
	for (int k = 0; k < w->ncards; k++)
		if (!strcmp(w->cards[k].ci.pci.bdf, bdf))
			return k;
	return -1;
}

/* The boot ROM of the card at bdf as the wizard read it last (after the job's write). */
static void rom_after(const struct wizard *w, const char *bdf, struct card_outcome *r)
{
	int k = card_at(w, bdf);

	if (k >= 0 && w->cards[k].ci.have_image) {
		const struct fs2_image *img = &w->cards[k].ci.f.img;
		wiz_roms_text(r->rom_after, sizeof(r->rom_after), img->rom_sect >= 0 ? img->nroms : 0, img->roms);
	}
}

/* job=restore: the chosen card the bundle fits (its family; its node GUID, or none readable).
 * -1 with why when there is none, or more than one. */
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
	for (int k = 0; k < w->ncards; k++) {
		const struct wizard_card *c = &w->cards[k];
		bool unread = c->ci.recovery || !c->ci.have_image || c->ci.f.img.guids.blank;
		if (chosen(w, c) && c->ci.pci.family && !strcmp(c->ci.pci.family, id.family) &&
		    (unread || c->ci.f.img.guids.guid[0] == id.guid[0]))
			found = k, count++;
	}
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

static void report_card(struct json *j, const struct wizard *w, const struct wizard_card *c,
			const struct card_outcome *r)
{
	char hex[20];

	json_obj(j, NULL);
	json_str(j, "bdf", c->ci.pci.bdf);
	json_str(j, "chip", c->ci.chip);
	json_str(j, "oem", c->ci.oem);
	json_bool(j, "recovery", c->ci.recovery);
	json_str(j, "psid", c->ci.have_image ? c->ci.f.img.info.psid : NULL);
	json_str(j, "fw", c->fw[0] ? c->fw : NULL);
	json_str(j, "running", c->running[0] ? c->running : NULL);
	if (c->ci.have_image && !c->ci.f.img.guids.blank) {
		snprintf(hex, sizeof(hex), "%016llx", (unsigned long long)c->ci.f.img.guids.guid[0]);
		json_str(j, "node_guid", hex);
		json_arr(j, "macs");
		for (int k = 0; k < GUIDS_NMAC; k++) {
			snprintf(hex, sizeof(hex), "%012llx", (unsigned long long)c->ci.f.img.guids.mac[k]);
			json_str(j, NULL, hex);
		}
		json_close(j);
	} else {
		json_null(j, "node_guid");
		json_null(j, "macs");
	}
	json_str(j, "result", r->result);
	json_str(j, "message", r->message[0] ? r->message : NULL);
	char rom[200];
	if (c->ci.have_image)
		wiz_roms_text(rom, sizeof(rom), c->ci.f.img.rom_sect >= 0 ? c->ci.f.img.nroms : 0, c->ci.f.img.roms);
	json_str(j, "rom_before", c->ci.have_image ? rom : NULL);
	json_str(j, "rom_after", r->rom_after[0] ? r->rom_after : NULL);
	json_str(j, "card_state", card_state_name(r->state));
	wiz_settings_json(j, &r->set);
	if (r->to) {
		char ver[24];
		fmt_fw_version(ver, sizeof(ver), r->to->fw_ver);
		json_obj(j, "to");
		json_str(j, "file", r->to->path);
		json_str(j, "sha256", r->to->sha256);
		json_str(j, "psid", r->to->psid);
		json_str(j, "fw", ver);
		json_close(j);
	} else if (r->expect) {
		json_obj(j, "to");
		json_null(j, "file");
		json_null(j, "sha256");
		json_str(j, "psid", r->expect->psid);
		json_str(j, "fw", r->expect->fw);
		json_close(j);
	} else if (r->bundle && r->bundle->have_image) {
		json_obj(j, "to");
		json_str(j, "file", w->o.bundle);
		json_str(j, "sha256", r->bundle->flash_sha256);
		json_str(j, "psid", r->bundle->psid);
		json_str(j, "fw", r->bundle->fw_version);
		json_close(j);
	} else {
		json_null(j, "to");
	}
	if (r->backed_up) {
		json_obj(j, "backup");
		json_str(j, "path", r->bk.path);
		json_str(j, "sha256", r->bk.flash_sha256);
		json_close(j);
	} else {
		json_null(j, "backup");
	}
	json_close(j);
}

/* The cards as they were before the job: the report says what they ran and who they are. */
static int write_report(struct wizard *w, const struct wizard_card *before, int n, const struct card_outcome *r,
			bool ok, const char *started, char *path, size_t pathlen, struct cx_status *st)
{
	char dir[JOURNAL_PATH_MAX], stamp[UTC_STAMP_LEN], now[32];
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct json j;
	time_t t = time(NULL);

	if (!f)
		return cx_fail(st, CX_ENOMEM, "out of memory");
	utc_stamp_of(stamp, t, true);
	wiz_now(now);
	json_begin(&j, f);
	json_str(&j, "format", "cxrescue-report-1");
	json_str(&j, "job", wizard_job_name(w->o.job));
	json_str(&j, "card", w->o.job_card ? w->o.job_card : "all");
	json_bool(&j, "yes", w->o.yes);
	json_bool(&j, "allow_risky", w->o.allow_risky);
	json_str(&j, "started", started);
	json_str(&j, "ended", now);
	json_str(&j, "result", ok ? "ok" : "failed");
	if (w->o.settings)
		json_str(&j, "settings", w->o.settings);
	if (w->o.job == JOB_RESTORE)
		json_str(&j, "bundle", strrchr(w->o.bundle, '/') ? strrchr(w->o.bundle, '/') + 1 : w->o.bundle);
	json_str(&j, "log", w->j.open ? strrchr(w->j.log_path, '/') + 1 : NULL);
	json_arr(&j, "cards");
	for (int i = 0; i < n; i++)
		if (r[i].result)
			report_card(&j, w, &before[i], &r[i]);
	json_close(&j);
	json_end(&j);
	fclose(f);
	snprintf(dir, sizeof(dir), "%s/" REPORTS_DIR, w->o.data_dir);
	int rc = mkdir(dir, 0755) && errno != EEXIST ? cx_fail(st, CX_EIO, "cannot make %s: %s", dir, strerror(errno)) : CX_OK;
	if (!rc && (size_t)snprintf(path, pathlen, "%s/%s-%s.json", dir, stamp, wizard_job_name(w->o.job)) >= pathlen)
		rc = cx_fail(st, CX_EIO, "report path too long");
	if (!rc)
		rc = file_replace_synced(path, (const uint8_t *)text, len, st);
	free(text);
	return rc;
}

/* What the job is given besides the card: a restore's target and bundle, a verify's expectations. */
struct job_ctx {
	const char *target, *why;
	struct backup_identity *bundle;
	const struct verify_expect *expect;
	int nexpect;
};

/* The job on one chosen card (w->cards[now], at bdf), into r. */
static void job_card(struct wizard *w, int now, const char *bdf, const struct job_ctx *j, struct card_outcome *r)
{
	if (w->o.job == JOB_INVENTORY) {
		outcome(r, "ok", "inventory only");
	} else if (w->o.job == JOB_SETTINGS) {
		outcome(r, "ok", "settings only");
	} else if (w->o.job == JOB_VERIFY) {
		r->expect = wiz_verify_find(j->expect, j->nexpect, &w->cards[now]);
		r->result = wiz_verify_card(&w->cards[now], r->expect, r->message, sizeof(r->message));
	} else if (w->o.job == JOB_RESTORE && !j->target[0]) {
		outcome(r, "refused", "%s", j->why);
	} else if (w->o.job == JOB_RESTORE && strcmp(j->target, bdf)) {
		outcome(r, "nothing-to-do", "not the card of the bundle: left alone");
	} else {
		r->bundle = w->o.job == JOB_RESTORE ? j->bundle : NULL;
		write_one(w, now, r);
	}
}

/* settings= on the card at bdf after its job went well: applied, or the card fails with why. */
static void settings_after(struct wizard *w, const char *bdf, const struct wiz_settings *js, struct card_outcome *r)
{
	struct cx_status st = {0};
	char was[sizeof(r->message)];
	int k = card_at(w, bdf), rc = k >= 0 ? wiz_settings_apply(w, k, js, &r->set, &st) : CX_ENODEV;

	snprintf(was, sizeof(was), "%s", r->message);
	if (w->o.job == JOB_SETTINGS)
		was[0] = 0;          /* "settings only" says nothing */
	if (rc)
		outcome(r, "failed", "%s%ssettings not set: %s", was, was[0] ? "; " : "",
			rc == CX_ENODEV && !st.msg[0] ? "card gone" : st.msg);
	else if (w->o.job == JOB_SETTINGS)
		outcome(r, r->set.changed ? "ok" : "nothing-to-do", "%u of %u settings changed, for the next cold boot",
			r->set.changed, r->set.n);
	else
		outcome(r, r->result, "%s; settings set for the next cold boot", was);
}

/* settings=: every name and value, then on every chosen card, before anything is written.
 * The refusal, naming the card that refuses it, in *refused (code 0: none). */
static void settings_refusal(struct wizard *w, struct wiz_settings *js, char (*bdfs)[16],
			     struct card_outcome *r, struct cx_status *refused)
{
	if (wiz_settings_parse(w->o.settings, js, refused))
		return;
	for (int k = 0; k < w->ncards && !refused->code; k++)
		if (chosen(w, &w->cards[k]) && wiz_settings_check(w, k, js, &r[k].set, refused)) {
			char msg[CX_MSG_MAX];
			int code = refused->code;
			snprintf(msg, sizeof(msg), "%s", refused->msg);
			cx_status_clear(refused);
			cx_fail(refused, code, "card %s: %s", bdfs[k], msg);
		}
}

int flow_job(struct wizard *w, struct cx_status *st)
{
	char started[32], path[JOURNAL_PATH_MAX + 64];
	int n = w->ncards, picked = 0, bad = 0, rc;

	wiz_now(started);
	wiz_say(w, "\n== Unattended job: %s (cards: %s%s%s) ==", wizard_job_name(w->o.job),
		w->o.job_card ? w->o.job_card : "all", w->o.yes ? ", yes=1" : "", w->o.allow_risky ? ", allow_risky=1" : "");
	if ((w->o.job == JOB_UPDATE || w->o.job == JOB_CROSSFLASH || w->o.job == JOB_RESTORE ||
	     w->o.job == JOB_SETTINGS) && !w->o.yes)
		return cx_fail(st, CX_EDECLINED, "the %s job writes cards: it needs cxrescue.yes=1 on the kernel "
			       "command line; nothing written", wizard_job_name(w->o.job));
	/* The cards are read again after each write: keep what they were for the report. */
	struct wizard_card *before = calloc((size_t)(n ? n : 1), sizeof(*before));
	struct card_outcome *r = calloc((size_t)(n ? n : 1), sizeof(*r));
	char (*bdfs)[16] = calloc((size_t)(n ? n : 1), sizeof(*bdfs));
	if (!before || !r || !bdfs) {
		free(before), free(r), free(bdfs);
		return cx_fail(st, CX_ENOMEM, "out of memory");
	}
	for (int i = 0; i < n; i++) {
		before[i].ci.pci = w->cards[i].ci.pci;
		snprintf(before[i].ci.chip, sizeof(before[i].ci.chip), "%s", w->cards[i].ci.chip);
		before[i].ci.oem = w->cards[i].ci.oem;
		before[i].ci.recovery = w->cards[i].ci.recovery;
		before[i].ci.have_image = w->cards[i].ci.have_image;
		if (w->cards[i].ci.have_image)
			before[i].ci.f.img = w->cards[i].ci.f.img; /* the parsed facts only: no buffers are kept */
		memcpy(before[i].fw, w->cards[i].fw, sizeof(before[i].fw));
		memcpy(before[i].running, w->cards[i].running, sizeof(before[i].running));
		snprintf(bdfs[i], sizeof(bdfs[i]), "%s", w->cards[i].ci.pci.bdf);
	}
	char target[16] = "", why[CX_MSG_MAX] = "";
	struct backup_identity bundle = {0};
	struct verify_expect expect[WIZARD_MAX_CARDS];
	int nexpect = 0;
	if (w->o.job == JOB_VERIFY && !wizard_expect_parse(w->o.expect, expect, WIZARD_MAX_CARDS, &nexpect, why,
							    sizeof(why))) {
		free(before), free(r), free(bdfs);
		return cx_fail(st, CX_EVALUE, "%s; nothing checked", why);
	}
	if (w->o.job == JOB_RESTORE) {
		int t = restore_target(w, &bundle, why, sizeof(why));
		if (t >= 0)
			snprintf(target, sizeof(target), "%s", w->cards[t].ci.pci.bdf);
	}
	struct wiz_settings js = {0};
	struct cx_status refused = {0};
	if (w->o.settings)
		settings_refusal(w, &js, bdfs, r, &refused);
	for (int i = 0; i < n; i++) {
		int now = card_at(w, bdfs[i]);   /* a write reads the cards again: this one by its slot */
		if (now < 0 || !chosen(w, &w->cards[now]))
			continue;
		picked++;
		struct job_ctx jc = {target, why, &bundle, expect, nexpect};
		if (refused.code)
			outcome(&r[i], "refused", "settings=: %s; nothing written", refused.msg);
		else
			job_card(w, now, bdfs[i], &jc, &r[i]);
		rom_after(w, bdfs[i], &r[i]);
		bool fine = !strcmp(r[i].result, "ok") || !strcmp(r[i].result, "nothing-to-do");
		if (fine && js.n && !refused.code) {
			settings_after(w, bdfs[i], &js, &r[i]);
			fine = strcmp(r[i].result, "failed");
		}
		bad += !fine;
		wiz_say(w, "card %s: %s%s%s", bdfs[i], r[i].result, r[i].message[0] ? ": " : "", r[i].message);
	}
	if (!picked) {
		bad++;
		wiz_say(w, "no card matches cxrescue.card=%s", w->o.job_card ? w->o.job_card : "all");
	}
	rc = write_report(w, before, n, r, bad == 0, started, path, sizeof(path), st);
	if (!rc)
		wiz_say(w, "Report: %s", path);
	free(before);
	free(r);
	free(bdfs);
	wiz_settings_free(&js);
	if (rc)
		return rc;
	if (refused.code)
		return cx_fail(st, refused.code, "settings=: %s; nothing written", refused.msg);
	if (bad)
		return cx_fail(st, CX_EDECLINED, "%d of %d card%s not done as the job asked (see above)", bad,
			       picked, picked == 1 ? "" : "s");
	return CX_OK;
}
