/* SPDX-License-Identifier: GPL-2.0-or-later */
/* data_area.c — where backups go, said and confirmed (data_area.h). */
#include <stdio.h>
#include <string.h>

#include "rescue/data_area.h"

static bool is(const char *kind, const char *want)
{
	return kind && !strcmp(kind, want);
}

bool data_in_ram_only(const struct wizard_opts *o)
{
	return !o->upload_cmd && (is(o->data_kind, "ram") || is(o->data_kind, "searching"));
}

const char *data_ram_why(const struct wizard_opts *o, char *buf, size_t n)
{
	if (o->data_wp && *o->data_wp)
		snprintf(buf, n, "the cxrescue stick %s is WRITE-PROTECTED", o->data_wp);
	else if (is(o->data_kind, "searching"))
		snprintf(buf, n, "no cxrescue stick was found yet");
	else
		snprintf(buf, n, "no cxrescue stick was found");
	return buf;
}

/* What /init saw instead of a stick (data-area.sh: one device a line, and its verdict). */
static void show_seen(struct wizard *w)
{
	FILE *o = w->out, *f = w->o.data_seen ? fopen(w->o.data_seen, "r") : NULL;
	char line[512];
	int n = 0;

	if (!f)
		return;
	fprintf(o, "What this machine has (backups go only to a FAT labelled CXRESCUE holding "
		   "cxrescue/stick-id.txt):\n");
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (n++ < DATA_SEEN_MAX)
			fprintf(o, "    %s\n", line);
	}
	fclose(f);
	if (!n)
		fprintf(o, "    no disk or partition with a file system\n");
	else if (n > DATA_SEEN_MAX)
		fprintf(o, "    ... and %d more\n", n - DATA_SEEN_MAX);
}

void data_area_show(struct wizard *w)
{
	FILE *o = w->out;
	const struct wizard_opts *op = &w->o;
	char why[128];

	if (is(op->data_kind, "stick")) {
		fprintf(o, "Backups and logs go to the cxrescue stick %s", op->data_dev && *op->data_dev ? op->data_dev
											 : "(device unknown)");
		if (op->data_id && *op->data_id)
			fprintf(o, " (ID %s)", op->data_id);
		fprintf(o, ": %s\n", op->data_dir);
	} else if (op->upload_cmd) {
		fprintf(o, "Backups and logs are kept in RAM (%s) and sent to the PXE server.\n", op->data_dir);
	} else if (data_in_ram_only(op)) {
		fprintf(o, "WARNING: %s: backups and logs stay in RAM (%s) and are LOST at power-off.\n",
			data_ram_why(op, why, sizeof(why)), op->data_dir);
		if (op->data_wp && *op->data_wp)
			fprintf(o, "Unlock its write-protect switch and boot again to keep them on the stick.\n");
		else
			show_seen(w);
	} else {
		fprintf(o, "Backups and logs go to %s\n", op->data_dir);
	}
}

/* A line on the screen and in the log. Not wiz_say(): wizard.c calls the inventory, which
 * calls this file (make check-calls: no loops). */
static void say(struct wizard *w, const char *line)
{
	fprintf(w->out, "%s\n", line);
	fflush(w->out);
	journal_log(&w->j, "%s", line);
}

int wiz_confirm_write(struct wizard *w, const char *action, struct cx_status *st)
{
	char why[128], line[512];
	int rc = prompt_word(&w->p, action, CONFIRM_WORD, st);

	if (rc || !data_in_ram_only(&w->o))
		return rc;
	snprintf(line, sizeof(line), "WARNING: %s: the backup made before this write stays in RAM (%s) and is "
		 "LOST at power-off;\n  without it, what the card holds now cannot be put back later.",
		 data_ram_why(&w->o, why, sizeof(why)), w->o.data_dir);
	say(w, line);
	if ((rc = prompt_word(&w->p, "write with the backup in RAM only", RAM_WORD, st)))
		return rc;
	say(w, "  confirmed with " RAM_WORD ": the backup stays in RAM only");
	return CX_OK;
}
