/* SPDX-License-Identifier: GPL-2.0-or-later */
/* jobs.h — the unattended jobs (rescue/README.md: the layers): the job of the kernel command
 * line, run without a question. They are siblings of the menu's screens (flows.h): neither
 * calls the other; both write through the write steps below them (step_*.h).
 *
 *   cxrescue.job=inventory    the report only; nothing is written
 *   cxrescue.job=backup       every chosen card backed up to the stick
 *   cxrescue.job=update       each card to the library's newest image of its own PSID
 *   cxrescue.job=crossflash   each card to the library's recommendation (a mapped PSID too)
 *   cxrescue.job=restore      the backup bundle=DIR written back onto the one chosen card it
 *                             fits: its family, and its node GUID or no readable identity
 *                             (recovery mode: the unbrick of a node whose backup the PXE
 *                             server kept); two such cards need cxrescue.card=. A
 *                             ConnectX-4/4 Lx/5 is known by its DEV_INFO base GUID in
 *                             either mode; a bundle whose device data (GUIDs, MACs, VPD,
 *                             settings) differs from the card's is refused, nothing
 *                             written, unless cxrescue.device_data=1
 *   cxrescue.device_data=1    job=restore on a ConnectX-4/4 Lx/5: the bundle's device data is
 *                             written back too when it differs (rescue/step_restore.h)
 *   cxrescue.job=verify       after the cold restart: each card's flash and running FW against
 *                             cxrescue.expect= (what the last write wrote, job_verify.c);
 *                             nothing is written
 *   cxrescue.job=settings     each card's settings=, nothing else written
 *   cxrescue.card=BDF|all     which cards (all by default)
 *   cxrescue.yes=1            needed by update, crossflash, restore and settings: the job may write;
 *                             with the backups in RAM only (data_area.h: no writable cxrescue
 *                             stick, no PXE server) those four are refused whole all the same
 *   cxrescue.allow_risky=1    a RISKY verdict is written too (refused otherwise)
 *   cxrescue.rom=keep|image|none|FILE
 *                             update and crossflash: the boot ROM of the result (step_rom.c):
 *                             the card's, the image's, none, or the ROM file FILE (a bare
 *                             name is in the data folder's firmware/); without it the
 *                             wizard's default (the card's UEFI ROM is kept)
 *   cxrescue.settings=NAME=VALUE,...
 *                             update, crossflash and settings: the card settings of
 *                             `cxflash config set` (LINK_TYPE_P1=ETH,SRIOV_EN=1), set after
 *                             the card's write succeeded or found nothing to write
 *                             (job_settings.c); a bad name or value, or one a chosen card
 *                             does not take, refuses the whole job before anything is
 *                             written (each card checks it against its own generation's
 *                             rows, ops/nv_table.h: a ConnectX-3's, or a running ConnectX-4/
 *                             4 Lx/5's); a card whose settings cannot be read (ConnectX-2,
 *                             recovery mode, firmware not started) is still written, and
 *                             fails the job
 *
 * A card the job refuses (a RISKY target, a card in recovery mode outside a
 * restore, nothing to burn because no image fits) is written nothing and
 * makes the job fail, so the wizard stays up instead of powering off; a card already up to
 * date is fine. A ConnectX-4/4 Lx/5 (wizard.h: wizard_card.fs3), in recovery mode or its
 * firmware running, is not refused by update and crossflash: its FS3/FS4 image is burned, its
 * device data kept; one that runs secure firmware is (wizard_card.no_write). The writes go
 * through the same steps as the menu's (backup first, job record, failsafe burn, history). The report, reports/<UTC>-<job>.json
 * in the data folder, says per card what was done (its boot ROM before and after too),
 * and the settings asked before and after; it is written last. */
#ifndef CX_RESCUE_JOBS_H
#define CX_RESCUE_JOBS_H

#include "ops/backup.h"
#include "ops/nv_settings.h"
#include "rescue/wizard.h"
#include "util/json.h"

/* job_run.c: the job of w->o.job. CX_OK when every step succeeded. */
int job_run(struct wizard *w, struct cx_status *st);

/* --- job_verify.c: job=verify ------------------------------------------------------- */
/* What one card should run after the cold restart. */
struct verify_expect {
	uint64_t guid;               /* the card's node GUID */
	char psid[INFO_PSID_LEN + 1];
	char fw[24];                 /* the FW written, "2.42.5000" */
	char old[24];                /* the FW it ran before the write; "" unknown */
};
/* expect= text (GUID:PSID:FW:OLD[,...]) into e (at most max items, *count of them); false
 * with why. `cxflash rescue` checks it before the wizard starts. */
bool wizard_expect_parse(const char *text, struct verify_expect *e, int max, int *count, char *why, size_t n);
/* The item of e[0..n) naming card c by its node GUID, or NULL; then the verdict on c ("ok",
 * "nothing-to-do" when e is NULL and c has an identity, else "failed") and why. */
const struct verify_expect *job_verify_find(const struct verify_expect *e, int n, const struct wizard_card *c);
const char *job_verify_card(const struct wizard_card *c, const struct verify_expect *e, char *msg, size_t n);

/* --- job_settings.c: a job's settings= (wizard_opts.settings) ---------------------------
 * Split and checked without a card (job_settings_parse: the list's code and one line), then
 * on card i (job_settings_check: CX_OK, or the plan's refusal, which refuses the whole job; a
 * card whose settings cannot be read is noted in c->rc and c->why), applied after its write
 * (job_settings_apply: plan again, apply, read back), and the report's "settings": each name,
 * before and after as mstconfig shows them ("ETH(2)"), null when not read. */
struct job_settings {
	char *text;                      /* the list, split in place */
	const char *item[NV_MAX_ASSIGN]; /* "NAME=VALUE" */
	unsigned n;
};
struct job_settings_card {
	bool asked, have_before, have_after;
	int rc;                          /* the settings could not be read: the code, and why */
	char why[CX_MSG_MAX];
	unsigned n, changed;             /* items; how many changed */
	char name[NV_MAX_ASSIGN][32];
	unsigned idx[NV_MAX_ASSIGN];     /* rows of nv_settings[] */
	uint32_t before[NV_MAX_ASSIGN], after[NV_MAX_ASSIGN];
};
int job_settings_parse(const char *list, struct job_settings *s, struct cx_status *st);
void job_settings_free(struct job_settings *s);
int job_settings_check(struct wizard *w, int i, const struct job_settings *s, struct job_settings_card *c,
		       struct cx_status *st);
int job_settings_apply(struct wizard *w, int i, const struct job_settings *s, struct job_settings_card *c,
		       struct cx_status *st);
void job_settings_json(struct json *j, const struct job_settings_card *c);

/* --- job_report.c: what the job did to one card, and the report ----------------------- */
struct job_outcome {
	const char *result;          /* "ok", "nothing-to-do", "refused", "failed", "skipped"; NULL:
				      * the card was not chosen (not in the report) */
	char message[2 * CX_MSG_MAX]; /* a write's line, then its settings' */
	const struct manifest_entry *to;
	const struct backup_identity *bundle; /* job=restore: what the card is to get */
	const struct verify_expect *expect;   /* job=verify: what the card should run */
	struct backup_result bk;
	bool backed_up;
	enum card_state state;       /* what the card was left in (untouched when nothing ran) */
	char rom_after[200];         /* the card's boot ROM after the job, read again ("" unknown) */
	struct job_settings_card set; /* settings=: before and after */
};
/* r's result and its message. */
void job_outcome(struct job_outcome *r, const char *result, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The report of the job, reports/<UTC>-<job>.json in the data folder, written whole and synced:
 * each chosen card as it was before the job (before[0..n), what it ran and who it is) and its
 * outcome r[i]; ok: every step succeeded. Its path into path. */
int job_report_write(struct wizard *w, const struct wizard_card *before, int n, const struct job_outcome *r,
		     bool ok, const char *started, char *path, size_t pathlen, struct cx_status *st);

/* --- job_write.c: the write of one card -------------------------------------------------- */
/* Card i backed up (job=backup), its bundle restored (job=restore: r->bundle), or burned with
 * the library's image for the job (update: the card's own PSID's newest; crossflash: the
 * recommendation), through the write steps; r says how it went. */
void job_write_card(struct wizard *w, int i, struct job_outcome *r);

#endif
