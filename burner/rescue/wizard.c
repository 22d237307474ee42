/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wizard.c — the session and its main menu (wizard.h). */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rescue/flows.h"
#include "util/utc.h"
#include "util/version.h"

/* --- the machine's bus ------------------------------------------------------------- */
static int pci_list(void *ctx, struct pci_card *out, int max, int *n, struct cx_status *st)
{
	return pci_enum(*(const char **)ctx, out, max, n, st);
}

static int pci_open(void *ctx, const struct pci_card *pci, struct device *d, struct cx_status *st)
{
	return device_open(d, *(const char **)ctx, pci->bdf, false, st);
}

static int pci_open_tools(void *ctx, const struct pci_card *pci, struct device *d, struct cx_status *st)
{
	return device_open_tools(d, *(const char **)ctx, pci->bdf, st);
}

struct wizard_bus wizard_pci_bus(const char **sysfs_root)
{
	return (struct wizard_bus){.list = pci_list, .open = pci_open, .open_tools = pci_open_tools, .ctx = (void *)sysfs_root};
}

/* --- jobs -------------------------------------------------------------------------- */
static const char *const job_names[] = {"", "inventory", "backup", "update", "crossflash", "restore", "verify", "settings"};

bool wizard_job_parse(const char *s, enum wizard_job *job)
{
	for (int i = JOB_INVENTORY; i <= JOB_LAST; i++)
		if (s && !strcmp(s, job_names[i])) {
			*job = (enum wizard_job)i;
			return true;
		}
	return false;
}

const char *wizard_job_name(enum wizard_job job)
{
	return job >= JOB_NONE && job <= JOB_LAST ? job_names[job] : "?";
}

/* --- helpers the flows share ------------------------------------------------------- */
void wiz_say(struct wizard *w, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fprintf(w->out, "%s\n", line);
	fflush(w->out);
	journal_log(&w->j, "%s", line);
}

void wiz_quiesce_stick(struct wizard *w)
{
	(void)w;
	sync();
}

void wiz_now(char out[32])
{
	utc_stamp_of(out, time(NULL), false);
}

int wiz_open(struct wizard *w, int i, struct device *d, struct cx_status *st)
{
	memset(d, 0, sizeof(*d)); /* device_close() is safe on it whatever the open did */
	return w->bus.open(w->bus.ctx, &w->cards[i].ci.pci, d, st);
}

int wiz_open_settings(struct wizard *w, int i, struct device *d, struct nv_session *ns, struct nv_state *s,
		      struct cx_status *st)
{
	int rc;

	memset(d, 0, sizeof(*d));
	rc = w->bus.open_tools ? w->bus.open_tools(w->bus.ctx, &w->cards[i].ci.pci, d, st) : wiz_open(w, i, d, st);
	if (!rc && !(rc = nv_open(ns, d, st)))
		rc = nv_read(ns, s, st);
	return rc;
}

void wiz_load_library(struct wizard *w)
{
	struct cx_status st = {0};

	if (w->have_lib)
		library_close(&w->lib);
	memset(&w->lib, 0, sizeof(w->lib));
	w->have_lib = library_open(w->o.boards, w->o.firmware, w->o.nfirmware, &w->lib, &st) == CX_OK;
	snprintf(w->lib_error, sizeof(w->lib_error), "%s", w->have_lib ? "" : st.msg);
	if (!w->have_lib)
		journal_log(&w->j, "library: %s", st.msg);
	else if (w->lib.own_error[0])
		journal_log(&w->j, "library: %s", w->lib.own_error);
}

void wiz_scan_backups(struct wizard *w)
{
	struct cx_status st = {0};

	backup_index_free(&w->ix);
	if (backup_index_scan(&w->ix, w->backups_dir, &st))
		wiz_say(w, "WARNING: the backups in %s cannot be read: %s", w->backups_dir, st.msg);
	for (int i = 0; i < w->ix.n; i++)
		if (w->ix.e[i].verify_code != CX_OK)
			wiz_say(w, "WARNING: the backup %s is damaged and will not be used: %s", w->ix.e[i].name,
				w->ix.e[i].reason);
}

int wiz_choose_card(struct wizard *w, const char *title, bool (*ok)(const struct wizard_card *),
		    const char *none, int *idx, struct cx_status *st)
{
	const char *items[WIZARD_MAX_CARDS + 1];
	char labels[WIZARD_MAX_CARDS][160];
	int map[WIZARD_MAX_CARDS], n = 0, choice, rc;

	for (int i = 0; i < w->ncards; i++) {
		if (ok && !ok(&w->cards[i]))
			continue;
		inv_label(&w->cards[i], labels[n], sizeof(labels[n]));
		items[n] = labels[n];
		map[n++] = i;
	}
	if (!n)
		return cx_fail(st, CX_EABSENT, "%s", none);
	if (n == 1) {
		*idx = map[0];
		return CX_OK;
	}
	items[n] = "back to the menu";
	if ((rc = prompt_menu(&w->p, title, items, n + 1, 0, &choice, st)))
		return rc;
	if (choice == n)
		return cx_fail(st, CX_EDECLINED, "back to the menu");
	*idx = map[choice];
	return CX_OK;
}

void wiz_history(struct wizard *w, const struct wizard_card *c, const char *action,
		 const struct history_from *from, const struct history_to *to,
		 const struct history_backup *bk, const char *result, const char *message)
{
	struct history_entry e = {.action = action, .from = from, .to = to, .backup = bk, .result = result,
				  .message = message};
	struct cx_status st = {0};

	inv_history_card(c, &e.card);
	if (journal_history(&w->j, &e, &st))
		fprintf(w->out, "WARNING: the history line was not written: %s\n", st.msg);
}

bool wiz_take(struct wizard *w)
{
	struct cx_status st = {0};

	if (!w->o.lock_path || session_take(&w->s, time(NULL), &st) == CX_OK)
		return true;
	fprintf(w->out, "%s: wait until it is done there, then choose again.\n", st.msg);
	return false;
}

#define QUIET_TRIES 20          /* ours: 20 x 100 ms, longer than any start-up bookkeeping */
#define QUIET_WAIT_NS 100000000L

bool wiz_take_quiet(struct wizard *w)
{
	struct timespec ts = {0, QUIET_WAIT_NS};

	for (int i = 0; i < QUIET_TRIES; i++) {
		struct cx_status st = {0};
		if (!w->o.lock_path || session_take(&w->s, time(NULL), &st) == CX_OK)
			return true;
		nanosleep(&ts, NULL);
	}
	return false;
}

void wiz_give(struct wizard *w)
{
	session_give(&w->s);
}

/* --- the main menu ----------------------------------------------------------------- */
#define WIZ_POWER_OFF 1          /* the session is over: power off now (not a CX_ code) */

static bool needs_backup(const struct wizard *w)
{
	for (int i = 0; i < w->ncards; i++)
		if (w->cards[i].ci.have_image && !w->cards[i].has_backup)
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
		if (m && !w->cards[i].ci.recovery && (m->rel == REL_CROSS_FLASH || m->version_cmp > 0))
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
	int (*run)(struct wizard *w, struct cx_status *st); /* a flow's code (flows.h) */
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
		rc = flow_job(w, &st);
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
	flow_pending(w);
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
