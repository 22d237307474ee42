/* SPDX-License-Identifier: GPL-2.0-or-later */
/* menu.c — the session (menu.h): the start, what the last session left, the job or the main
 * menu until the user picks power off. It is the top of rescue/: it calls the screens
 * (flows.h) and the jobs (jobs.h), and nothing below calls it. */
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rescue/flows.h"
#include "rescue/inventory.h"
#include "rescue/jobs.h"
#include "rescue/menu.h"
#include "util/version.h"

/* --- the main menu ----------------------------------------------------------------- */
#define WIZ_POWER_OFF 1          /* the session is over: power off now (not a CX_ code) */

static bool needs_backup(const struct wizard *w)
{
	for (int i = 0; i < w->ncards; i++)
		if ((w->cards[i].ci.have_image || w->cards[i].ci.have_fs3) && !w->cards[i].has_backup)
			return true;
	return false;
}

/* A card with a release image's placeholder GUIDs/MACs (ops/placeholder.h): it needs its own
 * before anything else, even its backup (Set GUIDs/MACs backs it up first anyway). */
static bool needs_identity(const struct wizard *w)
{
	for (int i = 0; i < w->ncards; i++)
		if (w->cards[i].placeholder && !w->cards[i].ci.recovery)
			return true;
	return false;
}

/* A card the library would take somewhere new: a newer version, or a cross-flash. */
static bool has_upgrade(const struct wizard *w)
{
	for (int i = 0; i < w->ncards; i++) {
		const struct match_candidate *m = inv_best(&w->cards[i]);
		if (m && (!w->cards[i].ci.recovery || w->cards[i].ci.have_fs3) && !w->cards[i].no_write &&
		    (m->rel == REL_CROSS_FLASH || m->version_cmp > 0))
			return true;
	}
	return false;
}

static void run_shell(struct wizard *w)
{
	fflush(w->out);
	pid_t pid = fork();
	if (pid == 0) {
		execl(w->o.shell, w->o.shell, "-l", (char *)NULL);
		_exit(127);
	}
	if (pid > 0) {
		int status;
		while (waitpid(pid, &status, 0) < 0)
			;
	}
	journal_log(&w->j, "shell: back in the menu");
}

static void report(struct wizard *w, int rc, const struct cx_status *st, const char *what)
{
	if (rc == CX_OK) {
		w->failed = false;
		return;
	}
	if (rc == CX_EDECLINED || rc == CX_EABSENT) {
		wiz_say(w, "%s", st->msg);
		return;
	}
	w->failed = true;
	snprintf(w->last_error, sizeof(w->last_error), "%s: %s", what, st->msg);
	fprintf(w->out, "\n*** FAILED: %s\n", w->last_error);
	journal_log(&w->j, "FAILED: %s", w->last_error);
	if (w->j.open)
		fprintf(w->out, "*** The log of this session: %s\n", w->j.log_path);
	fprintf(w->out, "*** The wizard stays up; nothing is powered off.\n");
}

/* The uptime at the first menu, for the boot-time figures (the first console to get there). */
static void mark_prompt(struct wizard *w)
{
	char up[64] = "";
	FILE *f;

	if (!w->o.prompt_mark || access(w->o.prompt_mark, F_OK) == 0 || !(f = fopen("/proc/uptime", "r")))
		return;
	if (fscanf(f, "%63s", up) != 1)
		up[0] = '\0';
	fclose(f);
	if (up[0] && (f = fopen(w->o.prompt_mark, "w"))) {
		fprintf(f, "%s\n", up);
		fclose(f);
	}
	w->o.prompt_mark = NULL;
}

#define MENU_WRITES 0x1      /* writes a card: runs under the session lock, its outcome is reported,
			      * and the session's first write goes on to the power-off screen */
#define MENU_POWERS_OFF 0x2  /* under the session lock too (never power off under another console's
			      * write); the session ends when it returns CX_OK */
#define MENU_NEEDS_SHELL 0x4 /* shown only with a shell (wizard_opts.shell) */
#define MENU_URGENT 0x8      /* its suggest() goes before every other row's */

/* One choice of the menu. The default is the first shown row whose suggest() holds (an
 * urgent row's first): the next sensible step, a card's own GUIDs/MACs while it has a
 * placeholder's, a backup while a card has none, then the recommended update while nothing
 * was written, the list again after a failure, else power off. */
struct menu_entry {
	const char *label;
	int (*run)(struct wizard *w, struct cx_status *st); /* a screen's code (flows.h) */
	unsigned flags;
	bool (*suggest)(const struct wizard *w);            /* NULL: never the default */
};

static int menu_backup(struct wizard *w, struct cx_status *st)
{
	return flow_backup_all(w, false, st);
}

static int menu_list(struct wizard *w, struct cx_status *st)
{
	wiz_load_library(w);
	wiz_scan_backups(w);
	inv_read(w, st);   /* what went wrong is on the inventory screen */
	inv_show(w);
	return CX_OK;
}

static int menu_shell(struct wizard *w, struct cx_status *st)
{
	(void)st;
	run_shell(w);
	return CX_OK;
}

static int menu_power_off(struct wizard *w, struct cx_status *st)
{
	return flow_power_off(w, false, st);
}

static bool can_update(const struct wizard *w)
{
	return !w->wrote && has_upgrade(w);
}

static bool has_failed(const struct wizard *w)
{
	return w->failed;
}

static bool always(const struct wizard *w)
{
	(void)w;
	return true;
}

/* In the order shown; the numbers are the positions among the rows shown. */
static const struct menu_entry menu[] = {
	{"Back up all cards to the stick", menu_backup, MENU_WRITES, needs_backup},
	{"Update / cross-flash a card to the library's recommended image", flow_update, MENU_WRITES, can_update},
	{"Burn a firmware file (cxrescue/firmware/ on the stick, or the image's library)", flow_burn_file,
	 MENU_WRITES, NULL},
	{"Restore a backup", flow_restore, MENU_WRITES, NULL},
	{"Unbrick a card in recovery mode", flow_unbrick, MENU_WRITES, NULL},
	{"Set a card's GUIDs/MACs", flow_set_ids, MENU_WRITES | MENU_URGENT, needs_identity},
	{"Boot ROM: remove or replace (PXE/UEFI)", flow_boot_rom, MENU_WRITES, NULL},
	{"Card settings: port type, SR-IOV, boot options (next boot)", flow_settings, MENU_WRITES, NULL},
	{"List the cards again", menu_list, 0, has_failed},
	{"Shell (type exit to come back)", menu_shell, MENU_NEEDS_SHELL, NULL},
	{"Power off", menu_power_off, MENU_POWERS_OFF, always},
};

#define MENU_N (int)(sizeof(menu) / sizeof(menu[0]))

/* Run the chosen row as its flags say: CX_OK to go on, WIZ_POWER_OFF, CX_EDECLINED when the
 * console is gone. */
static int menu_do(struct wizard *w, const struct menu_entry *e)
{
	struct cx_status st = {0};
	bool wrote_before = w->wrote;

	journal_log(&w->j, "menu: %s", e->label);
	if ((e->flags & (MENU_WRITES | MENU_POWERS_OFF)) && !wiz_take(w))
		return CX_OK;
	int rc = e->run(w, &st);
	if (e->flags & MENU_POWERS_OFF)
		return rc == CX_OK ? WIZ_POWER_OFF : (session_give(&w->s), CX_OK);
	if (!(e->flags & MENU_WRITES))
		return CX_OK;
	session_give(&w->s);
	report(w, rc, &st, e->label);
	if (w->p.closed)
		return CX_EDECLINED;
	if (rc == CX_OK && w->wrote && !wrote_before && wiz_take(w)) {
		cx_status_clear(&st);
		if (flow_power_off(w, true, &st) == CX_OK)
			return WIZ_POWER_OFF;
		session_give(&w->s);
	}
	return CX_OK;
}

/* One pass of the menu: CX_OK to go on, WIZ_POWER_OFF, CX_EDECLINED when the console is gone. */
static int menu_once(struct wizard *w)
{
	const char *items[MENU_N];
	const struct menu_entry *shown[MENU_N];
	int n = 0, def = -1, urgent = -1, choice;
	struct cx_status st = {0};

	for (const struct menu_entry *e = menu; e < menu + MENU_N; e++) {
		if ((e->flags & MENU_NEEDS_SHELL) && !w->o.shell)
			continue;
		bool s = e->suggest && e->suggest(w);
		if (def < 0 && s)
			def = n;
		if (urgent < 0 && s && (e->flags & MENU_URGENT))
			urgent = n;
		items[n] = e->label;
		shown[n++] = e;
	}
	if (urgent >= 0)
		def = urgent;
	fprintf(w->out, "\n");
	mark_prompt(w);
	if (prompt_menu(&w->p, "== cxrescue: what next? ==", items, n, def < 0 ? 0 : def, &choice, &st)) {
		if (w->p.closed)
			return CX_EDECLINED;
		fprintf(w->out, "%s\n", st.msg);
		return CX_OK;
	}
	return menu_do(w, shown[choice]);
}

static void banner(struct wizard *w)
{
	fprintf(w->out, "\ncxrescue %s - ConnectX-2 / ConnectX-3 / ConnectX-3 Pro rescue wizard\n", CXFLASH_VERSION);
	fprintf(w->out, "Type the number of a choice and press Enter. Nothing is written to a card until you\n"
			"type the word " CONFIRM_WORD " for it, and every card is backed up to the stick first.\n");
}

/* Steps 1 and 2 of wizard.h: the journal, the session lock, then the library, the backups
 * and the inventory screen. */
static void start(struct wizard *w)
{
	const struct wizard_opts *o = &w->o;
	struct cx_status st = {0};

	banner(w);
	if (journal_open(&w->j, o->data_dir, time(NULL), &st))
		fprintf(w->out, "WARNING: no log will be kept: %s\n", st.msg);
	journal_log(&w->j, "cxrescue %s started on %s", CXFLASH_VERSION, o->console ? o->console : "?");
	if (o->machine)
		journal_log(&w->j, "machine: %s", o->machine);
	cx_status_clear(&st);
	if (o->lock_path && session_open(&w->s, o->lock_path, o->console ? o->console : "console", &st)) {
		fprintf(w->out, "WARNING: %s\n", st.msg);
		w->o.lock_path = NULL;
	}
	fprintf(w->out, "Reading the firmware library, the backups and the cards...\n");
	fflush(w->out);
	wiz_load_library(w);
	wiz_scan_backups(w);
	cx_status_clear(&st);
	inv_read(w, &st);
	inv_show(w);
}

/* Step 4: the unattended job. WIZ_POWER_OFF when every step succeeded; when one failed,
 * CX_OK (the menu, with the error), or with exit_after_job the job's code. */
static int run_job(struct wizard *w)
{
	struct cx_status st = {0};
	int rc;

	if (!wiz_take(w)) {
		rc = cx_fail(&st, CX_EBUSY, "another console's wizard holds the session lock; the job did not run");
	} else {
		rc = job_run(w, &st);
		session_give(&w->s);
	}
	if (rc == CX_OK) {
		wiz_say(w, w->o.exit_after_job ? "The job is done." : "The job is done: powering off.");
		return WIZ_POWER_OFF;
	}
	w->failed = true;
	snprintf(w->last_error, sizeof(w->last_error), "the unattended job: %s", st.msg);
	wiz_say(w, "\n*** The job did not complete: %s", st.msg);
	if (w->j.open)
		fprintf(w->out, "*** The log of this session: %s\n", w->j.log_path);
	if (w->o.exit_after_job)
		return st.code != CX_OK && st.code != WIZ_POWER_OFF ? st.code : CX_EIO;
	wiz_say(w, "*** The wizard stays up; nothing is powered off.");
	return CX_OK;
}

int wizard_run(struct prompt *p, const struct wizard_bus *bus, const struct wizard_opts *o)
{
	struct wizard *w = calloc(1, sizeof(*w));
	struct cx_status st = {0};
	int rc = CX_OK;

	if (!w)
		return CX_ENOMEM;
	w->p = *p;
	w->out = p->out;
	w->bus = *bus;
	w->o = *o;
	w->s.fd = -1;
	snprintf(w->backups_dir, sizeof(w->backups_dir), "%s/backups", o->data_dir);
	start(w);
	/* Every console's wizard starts here at boot and tells its user what the last session
	 * left; settling a record (and finishing a job, which writes) takes the session lock
	 * inside, and happens once (pending.h). */
	flow_resume(w);
	if (w->wrote && o->job == JOB_NONE && wiz_take(w)) {
		if (flow_power_off(w, true, &st) == CX_OK)
			rc = WIZ_POWER_OFF;
		else
			session_give(&w->s);
	}
	if (rc == CX_OK && o->job != JOB_NONE)
		rc = run_job(w);
	while (rc == CX_OK)
		rc = menu_once(w);
	if (rc == WIZ_POWER_OFF)
		journal_log(&w->j, "powering off");
	journal_close(&w->j);
	session_close(&w->s);
	inv_free(w);
	backup_index_free(&w->ix);
	if (w->have_lib)
		library_close(&w->lib);
	free(w);
	return rc == WIZ_POWER_OFF ? CX_OK : rc;
}
