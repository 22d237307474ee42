/* SPDX-License-Identifier: GPL-2.0-or-later */
/* flow_power_off.c — the cold-restart screen (flows.h): the menu's "Power off", and the
 * screen after a session's first write.
 *
 * These cards load new firmware only at a cold start: a reboot keeps the old
 * one running (field-notes.md §2.8), and a card unbricked through its
 * flash-not-present jumper stays in recovery mode until the jumper is off
 * (§2.4). So the wizard powers off, never reboots, and says what to do next. */
#include "rescue/flows.h"

int flow_power_off(struct wizard *w, bool after_write, struct cx_status *st)
{
	FILE *o = w->out;

	if (w->wrote) {
		fprintf(o, "\n== Power off for a cold restart ==\n"
			   "The new firmware runs only after a COLD restart: this machine now powers off (a reboot\n"
			   "would keep the old firmware running). Then:\n"
			   "  1. unplug the machine's power cord(s) and wait 10 seconds;\n");
		if (w->wrote_recovery)
			fprintf(o, "  2. if you set the card's flash-not-present jumper, REMOVE IT now;\n"
				   "  3. plug in and power on.\n");
		else
			fprintf(o, "  2. plug in and power on.\n");
		fprintf(o, "Boot this stick again to see each card run its new firmware: the wizard checks it\n"
			   "and writes the result to the history.\n");
	}
	if (w->failed)
		fprintf(o, "Note: the last action failed (%s).\n", w->last_error);
	if (after_write) {
		static const char *const items[] = {"Power off now", "Back to the menu (another card first)"};
		int choice;
		if (prompt_menu(&w->p, NULL, items, 2, 0, &choice, st) || choice == 1)
			return CX_EDECLINED;
	}
	/* A board whose ACPI power-off does nothing stays on, and Linux can say nothing after
	 * the call (rootfs/.../power-off.sh, docs/rescue-image.md): this is the last word. */
	fprintf(o, "Powering off. If this machine is still on 30 seconds from now, it did not power off:\n"
		   "switch it off at its power switch or pull its power cord(s) for a cold restart.\n");
	fflush(o);
	return CX_OK;
}
