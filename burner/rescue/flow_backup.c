/* SPDX-License-Identifier: GPL-2.0-or-later */
/* flow_backup.c — the menu's "Back up all cards to the stick" (flows.h). A backup only reads
 * the card; each goes through the backup step (step_backup.h). */
#include "rescue/flows.h"
#include "rescue/step_backup.h"

int flow_backup_all(struct wizard *w, bool only_missing, struct cx_status *st)
{
	int done = 0, failed = 0, rc = CX_OK;

	if (!w->ncards)
		return cx_fail(st, CX_EABSENT, "no card to back up");
	for (int i = 0; i < w->ncards; i++) {
		struct wizard_card *c = &w->cards[i];
		struct backup_result r;
		struct cx_status one = {0};
		struct device d;
		if (only_missing && c->has_backup)
			continue;
		int crc = wiz_open(w, i, &d, &one);
		if (!crc)
			crc = wiz_backup_card(w, i, &d, "backup of every card", &r, &one);
		device_close(&d);
		if (crc) {
			wiz_say(w, "card %s: backup FAILED: %s", c->ci.pci.bdf, one.msg);
			if (!failed++)
				rc = cx_fail(st, crc, "card %s: %s", c->ci.pci.bdf, one.msg);
		} else {
			wiz_say(w, "card %s: backed up", c->ci.pci.bdf);
			done++;
		}
	}
	wiz_say(w, "Backups: %d written, %d failed.", done, failed);
	return rc;
}
