/* SPDX-License-Identifier: GPL-2.0-or-later */
/* flows.h — the wizard's parts, shared between its files (rescue/wizard.h is the
 * manual of the whole); nothing outside burner/rescue/ calls these.
 *
 * Every flow returns CX_OK when it did what the user asked (or the user
 * changed their mind before anything was written: nothing to report), else a
 * code with st filled; the menu loop shows st and stays up. A flow that wrote
 * a card successfully sets w->wrote. */
#ifndef CX_RESCUE_FLOWS_H
#define CX_RESCUE_FLOWS_H

#include "image/rom.h"
#include "ops/burn.h"
#include "ops/nv_settings.h"
#include "ops/restore.h"
#include "rescue/pending.h"
#include "rescue/wizard.h"

#define CONFIRM_WORD "FLASH"   /* what a user types before a card is written */

/* inventory.c: read every card again (library verdicts and backup state too). */
int inv_read(struct wizard *w, struct cx_status *st);
void inv_free(struct wizard *w);
/* The inventory screen. */
void inv_show(struct wizard *w);
/* One card's identity line, as the history records it. bdf/chip/psid point into c. */
void inv_history_card(const struct wizard_card *c, struct history_card *h);
/* "0000:01:00.0 ConnectX-3 A1 HP_0280210019 FW 2.40.5030" for menus. */
void inv_label(const struct wizard_card *c, char *out, size_t n);
/* The recommendation, or NULL. */
const struct match_candidate *inv_best(const struct wizard_card *c);
/* The node GUID that tells card c from every other, or 0: no image, blank GUIDs, or a
 * release image's placeholder (ops/placeholder.h) that every card burned so shares. */
uint64_t inv_own_guid(const struct wizard_card *c);

/* inventory.c: the card a job record (pending.h) is about: slot, family, node GUID. */
void wiz_pending_card(const struct wizard_card *c, struct pending *p);

/* wizard.c */
void wiz_load_library(struct wizard *w);
void wiz_scan_backups(struct wizard *w);
/* Let the user pick a card among those for which ok() is true (all when NULL);
 * a single one is picked without a question. CX_EABSENT (with why) when none. */
int wiz_choose_card(struct wizard *w, const char *title, bool (*ok)(const struct wizard_card *),
		    const char *none, int *idx, struct cx_status *st);
/* Take the session lock for an action that writes; false (the user told why) when
 * another console holds it. wiz_give() gives it back. */
bool wiz_take(struct wizard *w);
/* The same without a word, waiting up to about two seconds: for the start-up bookkeeping
 * both consoles' wizards do at once. */
bool wiz_take_quiet(struct wizard *w);
void wiz_give(struct wizard *w);
/* Just before the first write to a card: everything the wizard wrote to the stick is
 * flushed (sync), so that a power cut during the card's write finds nothing of ours
 * half-written on the FAT. A cut there had torn a folder the kernel then refused
 * ("corrupted directory"), leaving the stick read-only at the next boot. */
void wiz_quiesce_stick(struct wizard *w);
/* Print and log one line. */
void wiz_say(struct wizard *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Open card i for work. */
int wiz_open(struct wizard *w, int i, struct device *d, struct cx_status *st);
/* Card i opened as `cxflash config` opens it (config cycles: the bus's open_tools, or open where
 * it has none) and its settings read; device_close(d) after it, whatever it returned. */
int wiz_open_settings(struct wizard *w, int i, struct device *d, struct nv_session *ns, struct nv_state *s,
		      struct cx_status *st);
/* The current UTC time, "2026-11-24T10:46:00Z". */
void wiz_now(char out[32]);
/* probe_first.c: the first time in the session, probe card i (ops/probe.h) and show
 * every failed check and note, before the typed word. Nothing is written. */
void wiz_probe_first(struct wizard *w, int card);
/* A write's record and history line around it (write.c) */

/* flow_backup.c */
int flow_backup_all(struct wizard *w, bool only_missing, struct cx_status *st);
/* Back card i (opened as d) up into the stick's backups; indexed and journalled, and
 * uploaded (wiz_upload_backup) on a PXE boot: CX_EIO when that upload failed. */
int wiz_backup_card(struct wizard *w, int i, struct device *d, const char *why, struct backup_result *r,
		    struct cx_status *st);
/* The backup before a write: wiz_backup_card(), unless the card's flash, read once, equals
 * its newest sound bundle's (ops/backup.h, backup_card_reuse): then that bundle is r (reused
 * set), "not written again" is said, and it is uploaded as a new one would be. */
int wiz_backup_before_write(struct wizard *w, int i, struct device *d, const char *why, struct backup_result *r,
			    struct cx_status *st);

/* upload.c: hand the bundle r to $CXR_UPLOAD (wizard_opts.upload_cmd) and wait; CX_OK
 * when the server holds it, when there is no server, or when upload=optional. */
int wiz_upload_backup(struct wizard *w, const struct backup_result *r, struct cx_status *st);

/* write_job.c: the bookkeeping around every write of the wizard (ops/write_procedure.h).
 * wiz_write_init() starts the job record (pending.h: "writing", the card, now);
 * wiz_write_before() is the write's before_write hook: the backup (why names it
 * in the log), then the record (when record) and "Writing <what> onto <card>";
 * wiz_write_after() is its after hook (step 8), run as the procedure ends, the
 * card still open: the history line from the outcome: on failure the result
 * (interrupted, failed, refused), the record ended unless interrupted, and a
 * line naming the card's state; nothing_to_do: "ok" with nothing; else the
 * record "written" and "ok" with ok_note. wiz_write_end(), after the call and
 * device_close(), ends the trace, and writes the history itself when no run of
 * the procedure did (the card could not be opened, or the op refused before its
 * run: set-ids' checks). wiz_write_wrote() then marks the session for the
 * power-off and reads the cards again. */
struct wiz_write {
	struct wizard *w;
	int card;
	struct device *d;            /* the opened card, for the backup */
	const char *action, *why, *what;
	const char *ok_note;         /* the history message of a success, or NULL */
	const struct history_to *to; /* the history's "to", or NULL */
	const char *nothing;         /* the history message when there was nothing to do */
	bool ended;                  /* wiz_write_after() ran: the history is written */
	bool record;                 /* keep a job record while writing (default true) */
	struct pending job;
	struct backup_result bk;
	bool backed_up, recorded;
	bool traced;                 /* its accesses go to a trace (write_trace.c) */
	char from_fw[24];
};
void wiz_write_init(struct wiz_write *x, struct wizard *w, int card, const char *action, const char *why,
		    const char *what);
int wiz_write_before(void *ctx, struct cx_status *st);
/* What the card ran, for the history (NULL when it had no image); uses x->from_fw. */
const struct history_from *wiz_write_from(struct wiz_write *x, struct history_from *from);
void wiz_write_after(void *ctx, int rc, const struct cx_status *st, const struct write_outcome *out);
/* Returns rc. */
int wiz_write_end(struct wiz_write *x, int rc, const struct cx_status *st, const struct write_outcome *out);
void wiz_write_wrote(struct wiz_write *x);
/* The end of a write that changes only part of the card's image (GUIDs, boot ROM): wiz_write_end()
 * (no "to"), then "card BDF <x->nothing>: nothing written" or "card BDF: OK: <done>" and
 * wiz_write_wrote(). */
int wiz_write_finish(struct wiz_write *x, int rc, const struct cx_status *st, const struct write_outcome *out,
		     bool nothing_to_do, const char *done);

/* write_trace.c: every session that writes a card is recorded (README: Traces) into
 * DATA/traces/<UTC>-<action>-<bdf>.trace, from before the card is opened until after it
 * is closed; a trace that cannot be made is a warning, never a reason not to write. */
void wiz_trace_begin(struct wiz_write *x);
void wiz_trace_end(struct wiz_write *x);

/* flow_write.c: burn a library image onto card i. action names it in the history
 * ("update", "crossflash", "burn", "unbrick"); ident: the identity to put on the
 * card (NULL: keep the card's); identity_note for the pending record ("card",
 * "bundle:...", "sticker:..."). ask: show and ask for the typed word first
 * (false: unattended, already allowed). */
struct write_request {
	int card;
	const struct manifest_entry *e;
	const struct match_candidate *m;     /* its verdict for the card, or NULL */
	const char *action;
	const struct identity_opts *ident;
	const char *identity_note;
	const char *rom;                 /* a job record's boot ROM (pending.h), else NULL */
	bool ask;
	struct backup_result *backup_out; /* the backup made before the write, or NULL */
	bool *backed_up;                 /* set when backup_out was written */
};
int wiz_burn(struct wizard *w, const struct write_request *rq, struct cx_status *st);
/* What wiz_burn gives burn_card()'s rules (ops/guard.h) besides the identity: a PSID
 * change is allowed (it is on the plan the user confirms; burn_card() still asks). The
 * inventory judges the library with it, so that its verdicts promise wiz_burn's burn. */
extern const struct guard_opts wiz_burn_guard;
int flow_update(struct wizard *w, struct cx_status *st);
int flow_burn_file(struct wizard *w, struct cx_status *st);

/* flow_rom.c: the boot ROM of a burn of library image img (len bytes) onto rq's card: the
 * card's, the image's, none, or a job's ROM file (wizard_opts.rom); asked when rq->ask and
 * the two differ (the rule is at the top of flow_rom.c). from/to name them for the plan. */
struct wiz_rom {
	enum rom_pick pick;
	const uint8_t *file;             /* ROM_FILE: the bytes (owned) */
	size_t file_len;
	uint8_t *owned;
	char record[PENDING_PATH_MAX];   /* what a job record says of the choice (pending.h) */
	char from[160], to[200], img_text[160];
	int card_n;
	struct rom_info card_roms[ROM_MAX_IMAGES];
	bool img_uefi;
};
int wiz_rom_plan(struct wizard *w, const struct write_request *rq, const uint8_t *img, size_t len,
		 struct wiz_rom *r, struct cx_status *st);
void wiz_rom_free(struct wiz_rom *r);
/* "CLP 8025, UEFI 14.11.49, PXE 3.4.754", or "none". */
void wiz_roms_text(char *out, size_t n, int nroms, const struct rom_info *roms);
/* The menu's "Boot ROM: remove or replace". */
int flow_boot_rom(struct wizard *w, struct cx_status *st);

/* flow_settings.c: after a cross-flash the user watched, card i's "port type and SR-IOV"
 * screen (a card whose settings cannot be reached: one line; the wizard goes on either
 * way); the menu's "Card settings". */
void wiz_settings_after_crossflash(struct wizard *w, int i);
int flow_settings(struct wizard *w, struct cx_status *st);

/* flow_restore.c */
/* Write the bundle back onto card i; backup_out (may be NULL) gets the backup made first. */
int wiz_restore(struct wizard *w, int i, const char *bundle, const char *action, bool ask,
		struct backup_result *backup_out, struct cx_status *st);
int flow_restore(struct wizard *w, struct cx_status *st);
int flow_unbrick(struct wizard *w, struct cx_status *st);

/* flow_ids.c */
int flow_set_ids(struct wizard *w, struct cx_status *st);

/* poweroff.c: the cold-restart screen. CX_OK: power off now; CX_EDECLINED: back to the menu. */
int flow_power_off(struct wizard *w, bool after_write, struct cx_status *st);
/* At start: settle what the last session left (pending.h). */
void flow_pending(struct wizard *w);

/* verify.c: the item of e[0..n) naming card c by its node GUID, or NULL; then the verdict
 * on c ("ok", "nothing-to-do" when e is NULL and c has an identity, else "failed") and why. */
const struct verify_expect *wiz_verify_find(const struct verify_expect *e, int n, const struct wizard_card *c);
const char *wiz_verify_card(const struct wizard_card *c, const struct verify_expect *e, char *msg, size_t n);

/* job_settings.c: a job's settings= (wizard_opts.settings): split and checked without a card
 * (wiz_settings_parse: the list's code and one line), then on card i (wiz_settings_check:
 * CX_OK, or the plan's refusal, which refuses the whole job; a card whose settings cannot be
 * read is noted in c->rc and c->why), applied after its write (wiz_settings_apply: plan again,
 * apply, read back), and the report's "settings": each name, before and after as mstconfig
 * shows them ("ETH(2)"), null when not read. */
struct wiz_settings {
	char *text;                      /* the list, split in place */
	const char *item[NV_MAX_ASSIGN]; /* "NAME=VALUE" */
	unsigned n;
};
struct wiz_settings_card {
	bool asked, have_before, have_after;
	int rc;                          /* the settings could not be read: the code, and why */
	char why[CX_MSG_MAX];
	unsigned n, changed;             /* items; how many changed */
	char name[NV_MAX_ASSIGN][32];
	unsigned idx[NV_MAX_ASSIGN];     /* rows of nv_settings[] */
	uint32_t before[NV_MAX_ASSIGN], after[NV_MAX_ASSIGN];
};
int wiz_settings_parse(const char *list, struct wiz_settings *s, struct cx_status *st);
void wiz_settings_free(struct wiz_settings *s);
int wiz_settings_check(struct wizard *w, int i, const struct wiz_settings *s, struct wiz_settings_card *c,
		       struct cx_status *st);
int wiz_settings_apply(struct wizard *w, int i, const struct wiz_settings *s, struct wiz_settings_card *c,
		       struct cx_status *st);
void wiz_settings_json(struct json *j, const struct wiz_settings_card *c);

/* unattended.c: the job of w->o.job. CX_OK when every step succeeded. */
int flow_job(struct wizard *w, struct cx_status *st);

/* journal.c-side helpers (write.c): a history line for card i. */
void wiz_history(struct wizard *w, const struct wizard_card *c, const char *action,
		 const struct history_from *from, const struct history_to *to,
		 const struct history_backup *bk, const char *result, const char *message);

#endif
