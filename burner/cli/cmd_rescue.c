/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_rescue.c — `rescue`: the wizard (rescue/menu.h) on this terminal.
 *
 *   cxflash rescue [job=inventory|backup|update|crossflash|restore|verify|settings] [card=BDF|all]
 *                  [yes=1] [allow_risky=1] [bundle=DIR] [device_data=1] [upload=required|optional]
 *                  [after=menu|exit] [rom=keep|image|none|FILE] [expect=GUID:PSID:FW:OLD,...]
 *                  [settings=NAME=VALUE,...]
 *
 * The parameters are the kernel command line's cxrescue.* options without the
 * prefix (/init passes them on); bundle= is the backup folder job=restore writes
 * back (device_data=1: a ConnectX-4/4 Lx/5 bundle's device data too, rescue/step_restore.h);
 * expect= what job=verify checks each card against (rescue/job_verify.c); rom= the boot
 * ROM an update or crossflash job burns (rescue/step_rom.c); settings= the card settings
 * an update, crossflash or settings job sets (rescue/job_settings.c); after=exit
 * ends the command when the job is done (status 0: every step
 * succeeded) instead of showing the menu. $CXR_UPLOAD, when set, is the command
 * each backup is handed to (rescue/step_upload.c: the PXE server). The data folder
 * is $CXR_DATA (the rescue image's /init sets it: the stick's cxrescue/), else
 * ./cxrescue; its kind, for the screen's warning about RAM, is $CXR_DATA_KIND, and the
 * stick's device, its ID, a write-protected stick and what /init saw are $CXR_DATA_DEV,
 * $CXR_DATA_ID, $CXR_DATA_WP and $CXR_DATA_SEEN (rescue/data_area.h).
 * Consoles share the session lock $CXR_LOCK, by default /run/cxrescue/wizard.lock
 * when /run/cxrescue exists. Exit 0 means: power off now. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/common.h"
#include "rescue/jobs.h"
#include "rescue/menu.h"
#include "util/signals.h"

#define DEFAULT_DATA "cxrescue"
#define DEFAULT_LOCK_DIR "/run/cxrescue"
#define DEFAULT_LOCK DEFAULT_LOCK_DIR "/wizard.lock"
#define SHELL_PATH "/bin/sh"

static bool flag(const char *v)
{
	return !strcmp(v, "1") || !strcmp(v, "yes");
}

/* "0000:01:00.0" or "01:00.0". */
static bool bdf_syntax(const char *s)
{
	unsigned dom, bus, dev, fn;
	int end = -1;

	if (sscanf(s, "%4x:%2x:%2x.%1u%n", &dom, &bus, &dev, &fn, &end) == 4 && end == (int)strlen(s) &&
	    strlen(s) == 12)
		return dev < 32 && fn < 8;
	end = -1;
	if (sscanf(s, "%2x:%2x.%1u%n", &bus, &dev, &fn, &end) == 3 && end == (int)strlen(s) && strlen(s) == 7)
		return dev < 32 && fn < 8;
	return false;
}

static int parse(struct cli *c, struct wizard_opts *o, struct cx_status *st)
{
	for (int i = 0; i < c->nparams; i++) {
		const char *p = c->params[i], *eq = strchr(p, '=');
		if (!eq)
			return cx_fail(st, CX_EUSAGE, "rescue takes key=value parameters, not '%s'", p);
		const char *v = eq + 1;
		size_t k = (size_t)(eq - p);
		if (k == 3 && !strncmp(p, "job", k)) {
			if (!wizard_job_parse(v, &o->job))
				return cx_fail(st, CX_EVALUE, "unknown job '%s' (inventory, backup, update, crossflash, "
					       "restore, verify, settings)", v);
		} else if (k == 4 && !strncmp(p, "card", k)) {
			o->job_card = v;
		} else if (k == 3 && !strncmp(p, "yes", k)) {
			o->yes = flag(v);
		} else if (k == 11 && !strncmp(p, "allow_risky", k)) {
			o->allow_risky = flag(v);
		} else if (k == 11 && !strncmp(p, "device_data", k)) {
			o->device_data = flag(v);
		} else if (k == 3 && !strncmp(p, "rom", k)) {
			if (!*v)
				return cx_fail(st, CX_EVALUE, "rom=: keep, image, none or a ROM file");
			o->rom = v;
		} else if (k == 8 && !strncmp(p, "settings", k)) {
			o->settings = v;
		} else if (k == 6 && !strncmp(p, "expect", k)) {
			o->expect = v;
		} else if (k == 6 && !strncmp(p, "bundle", k)) {
			o->bundle = v;
		} else if (k == 6 && !strncmp(p, "upload", k)) {
			if (strcmp(v, "required") && strcmp(v, "optional"))
				return cx_fail(st, CX_EVALUE, "upload=%s: required or optional", v);
			o->upload_optional = !strcmp(v, "optional");
		} else if (k == 5 && !strncmp(p, "after", k)) {
			if (strcmp(v, "menu") && strcmp(v, "exit"))
				return cx_fail(st, CX_EVALUE, "after=%s: menu or exit", v);
			o->exit_after_job = !strcmp(v, "exit");
		} else {
			return cx_fail(st, CX_EUSAGE, "unknown rescue parameter '%s'", p);
		}
	}
	if (o->job == JOB_RESTORE && (!o->bundle || !*o->bundle))
		return cx_fail(st, CX_EUSAGE, "job=restore needs bundle=DIR, the backup to write back");
	if (o->rom && o->job != JOB_UPDATE && o->job != JOB_CROSSFLASH)
		return cx_fail(st, CX_EUSAGE, "rom= goes with job=update or job=crossflash only");
	if (o->job == JOB_SETTINGS ? !o->settings || !*o->settings
				   : o->settings && o->job != JOB_UPDATE && o->job != JOB_CROSSFLASH)
		return cx_fail(st, CX_EUSAGE, "settings=NAME=VALUE,... goes with job=update, crossflash or settings "
			       "(which needs it)");
	if (o->expect && o->job != JOB_VERIFY)
		return cx_fail(st, CX_EUSAGE, "expect= goes with job=verify only");
	if (o->job == JOB_VERIFY) {
		struct verify_expect e[WIZARD_MAX_CARDS];
		char why[CX_MSG_MAX];
		int n;
		if (!wizard_expect_parse(o->expect, e, WIZARD_MAX_CARDS, &n, why, sizeof(why)))
			return cx_fail(st, CX_EVALUE, "%s", why);
	}
	if (o->bundle && o->job != JOB_RESTORE)
		return cx_fail(st, CX_EUSAGE, "bundle= goes with job=restore only");
	if (o->device_data && o->job != JOB_RESTORE)
		return cx_fail(st, CX_EUSAGE, "device_data= goes with job=restore only");
	if (o->job_card && strcmp(o->job_card, "all") && !bdf_syntax(o->job_card))
		return cx_fail(st, CX_EVALUE, "card=%s is not a PCI address (0000:01:00.0 or 01:00.0) or 'all'",
			       o->job_card);
	return CX_OK;
}

int cmd_rescue(struct cli *c, struct cx_status *st)
{
	struct wizard_opts o = {0};
	struct prompt p = {.in = stdin, .out = stdout};
	const char *sysfs = c->sysfs;
	int rc;

	if ((rc = parse(c, &o, st)))
		return rc;
	o.data_dir = getenv("CXR_DATA") && *getenv("CXR_DATA") ? getenv("CXR_DATA") : DEFAULT_DATA;
	o.data_kind = getenv("CXR_DATA_KIND");
	o.data_dev = getenv("CXR_DATA_DEV");
	o.data_id = getenv("CXR_DATA_ID");
	o.data_wp = getenv("CXR_DATA_WP");
	o.data_seen = getenv("CXR_DATA_SEEN");
	o.lock_path = getenv("CXR_LOCK");
	o.machine = getenv("CXR_MACHINE") && *getenv("CXR_MACHINE") ? getenv("CXR_MACHINE") : NULL;
	if (!o.lock_path && access(DEFAULT_LOCK_DIR, W_OK) == 0)
		o.lock_path = DEFAULT_LOCK;
	const char *tty = ttyname(STDIN_FILENO);
	o.console = tty ? (strrchr(tty, '/') ? strrchr(tty, '/') + 1 : tty) : "stdin";
	o.prompt_mark = getenv("CXR_PROMPT_MARK");
	o.upload_cmd = getenv("CXR_UPLOAD") && *getenv("CXR_UPLOAD") ? getenv("CXR_UPLOAD") : NULL;
	o.shell = access(SHELL_PATH, X_OK) == 0 ? SHELL_PATH : NULL;
	o.boards = c->boards;
	o.firmware = c->firmware;
	o.nfirmware = (size_t)c->nfirmware;
	struct wizard_bus bus = wizard_pci_bus(&sysfs);
	/* cli_main() defers SIGINT/SIGTERM for a whole command; the wizard waits at prompts
	 * for hours, and /init ends it with SIGTERM at power-off: deferred only while a card
	 * is open (device_open/close defer them again), as in any other command. */
	sig_defer_end();
	rc = wizard_run(&p, &bus, &o);
	sig_defer_begin();
	if (rc && o.exit_after_job && o.job != JOB_NONE)
		return cx_fail(st, rc, "the %s job did not complete (see above)", wizard_job_name(o.job));
	if (rc == CX_EDECLINED)
		return cx_fail(st, CX_EDECLINED, "the console's input ended");
	if (rc)
		return cx_fail(st, rc, "the wizard could not start");
	return CX_OK;
}
