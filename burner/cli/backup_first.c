/* SPDX-License-Identifier: GPL-2.0-or-later */
/* backup_first.c — what every command that writes a card shares: the backup first (design.md), the end of its --json. */
#include "cli/common.h"
#include "ops/progress.h"

#define DEFAULT_BACKUP_DIR "cxflash-backups"

int cli_backup_first(void *ctx, struct cx_status *st)
{
	struct cli_backup *b = ctx;

	if (b->c->no_backup) {
		fprintf(stderr, "-W- --no-backup: %s WITHOUT a backup of the card's flash\n", b->action);
		return CX_OK;
	}
	int rc = backup_card(b->d, b->c->backup_dir ? b->c->backup_dir : DEFAULT_BACKUP_DIR, &b->r, st);
	if (!rc) {
		b->written = true;
		if (!b->c->json)
			printf("-I- backup written to %s\n", b->r.path);
	}
	return rc;
}

void cli_json_write_end(struct json *j, const struct cli *c, uint64_t erased, uint64_t programmed,
			const struct cli_backup *b)
{
	json_int(j, "bytes_erased", (long long)erased);
	json_int(j, "bytes_programmed", (long long)programmed);
	json_str(j, "backup", b->written ? b->r.path : NULL);
	json_str(j, "card_state", c->card_state);
	json_end(j);
}

static int confirm(void *ctx, const char *question, struct cx_status *st)
{
	return cli_confirm(ctx, question, st);
}

void cli_write_hooks(struct cli *c, struct cli_backup *b, struct write_hooks *h)
{
	h->confirm = confirm;
	h->confirm_ctx = c;
	h->before_write = cli_backup_first;
	h->before_ctx = b;
	h->progress = progress_line;
}
