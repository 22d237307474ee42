/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wizard.c — the state of a session and the helpers every part of the wizard shares
 * (wizard.h). The session itself, the menu loop, is menu.c. */
#include <stdarg.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rescue/inventory.h"
#include "rescue/wizard.h"
#include "util/utc.h"

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

/* --- helpers the steps, screens and jobs share ------------------------------------------------------- */
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
		if (w->cards[i].not_worked_on || (ok && !ok(&w->cards[i])))
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
