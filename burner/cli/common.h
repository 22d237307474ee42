/* SPDX-License-Identifier: GPL-2.0-or-later */
/* common.h — helpers the cmd_*.c files share: opening the image, formatting. */
#ifndef CX_CLI_COMMON_H
#define CX_CLI_COMMON_H

#include <stdint.h>
#include <stdio.h>

#include "cli/cli.h"
#include "image/imgfile.h"
#include "ops/backup.h"
#include "ops/burn_rom.h"
#include "ops/write_procedure.h"
#include "ops/identity.h"
#include "util/json.h"

/* Open and parse c->image (honouring --striped_image), or the card's whole image (-d). */
int cli_open_image(struct cli *c, struct imgfile *f, struct cx_status *st);

/* The same, but of a card only what q shows (ops/device.h device_read_image_shown:
 * headers, GUID, IMAGE_INFO, ROM; the other items unread). A file is read whole. */
int cli_open_image_shown(struct cli *c, struct imgfile *f, struct cx_status *st);

/* The identity options of the command line (--guid/--mac, --vsd, --use_image_guids,
 * --use_image_ps), as burn gets them. */
void cli_identity_opts(const struct cli *c, struct identity_opts *o);

/* The ROM choice of --rom / --use_image_rom (ops/burn_rom.h); a FILE is read into *file
 * (the caller frees it). CX_EUSAGE for --rom FILE with --use_image_rom, CX_EIO for a
 * FILE that cannot be read. */
int cli_rom_choice(const struct cli *c, struct rom_choice *r, uint8_t **file, struct cx_status *st);

/* Ask "question (y/n) [n]" on stdout unless -y; CX_EDECLINED on anything but yes. */
int cli_confirm(struct cli *c, const char *question, struct cx_status *st);

/* --json of a command that wrote a file (dc, rrom, ri on FS2 and FS3/FS4 files): what it
 * wrote, where, how many bytes; marks the JSON as printed. */
void cli_json_wrote(struct cli *c, const char *what, const char *path, size_t len);

/* The backup a command that writes a card makes before its first write, as
 * the before_write callback of ops/burn.h and ops/setid.h (ctx: a struct
 * cli_backup). Into --backup-dir (default cxflash-backups); with --no-backup
 * only a warning on stderr that names the action ("burning", ...). */
struct cli_backup {
	struct cli *c;
	struct device *d;
	const char *action;
	struct backup_result r;     /* out: the bundle, when written */
	bool written;               /* out */
};
int cli_backup_first(void *ctx, struct cx_status *st);

/* The hooks of a command that writes a card (ops/write_procedure.h): questions on the
 * terminal (cli_confirm), the backup first (cli_backup_first with b), progress. */
void cli_write_hooks(struct cli *c, struct cli_backup *b, struct write_hooks *h);

/* The keys every card-writing command's --json ends with: bytes erased and
 * programmed, the backup made first (or null), and the card's state. */
void cli_json_write_end(struct json *j, const struct cli *c, uint64_t erased, uint64_t programmed,
			const struct cli_backup *b);

/* What a burn did (burn, and drom/brom on a card, which are burns of the card's
 * image rebuilt): text, or --json with the ROM before and after. */
struct burn_result;
void cli_burn_report(struct cli *c, const struct burn_result *r, const struct cli_backup *b);

/* drom (brom false) or brom ROMFILE on the card -d BDF (ops/rom_card.h). */
int cli_rom_card(struct cli *c, bool brom, struct cx_status *st);

/* The text label column flint uses: 23 characters. */
#define LABEL "%-23s"

/* The ROM lines of q (cmd_query.c), one per ROM under a LABEL-padded label, as mstflint
 * shows them plus devid= and checksum=; and the same as a JSON array named key. */
void cli_print_roms(const char *label, const struct rom_info *r, int n);
void cli_json_roms(struct json *j, const char *key, const struct rom_info *r, int n);

#endif
