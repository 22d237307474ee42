/* SPDX-License-Identifier: GPL-2.0-or-later */
/* job_report.c — what an unattended job did, card by card, and its report (jobs.h): the JSON
 * file reports/<UTC>-<job>.json in the data folder, written last, whole (on a PXE boot /init
 * uploads it to the server). */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "image/info.h"
#include "rescue/inventory.h"
#include "rescue/jobs.h"
#include "rescue/step_rom.h"
#include "util/fileio.h"
#include "util/utc.h"

#define REPORTS_DIR "reports"

void job_outcome(struct job_outcome *r, const char *result, const char *fmt, ...)
{
	va_list ap;

	r->result = result;
	va_start(ap, fmt);
	vsnprintf(r->message, sizeof(r->message), fmt, ap);
	va_end(ap);
}

static void report_card(struct json *j, const struct wizard *w, const struct wizard_card *c,
			const struct job_outcome *r)
{
	char hex[20];

	json_obj(j, NULL);
	json_str(j, "bdf", c->ci.pci.bdf);
	json_str(j, "chip", c->ci.chip);
	json_str(j, "oem", c->ci.oem);
	json_bool(j, "recovery", c->ci.recovery);
	json_str(j, "psid", inv_psid(c));
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
	} else if (inv_own_guid(c) && c->ci.have_fs3) {
		/* FS3/FS4: the device data's base GUID and base MAC */
		snprintf(hex, sizeof(hex), "%016llx", (unsigned long long)c->ci.fs3_guid);
		json_str(j, "node_guid", hex);
		json_arr(j, "macs");
		snprintf(hex, sizeof(hex), "%012llx", (unsigned long long)c->ci.fs3_mac);
		json_str(j, NULL, hex);
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
	job_settings_json(j, &r->set);
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

int job_report_write(struct wizard *w, const struct wizard_card *before, int n, const struct job_outcome *r,
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
	json_str(&j, "machine", w->o.machine);   /* which server: its DMI names, or null */
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
