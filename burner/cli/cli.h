/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cli.h — the flint-style command line of cxflash.
 *
 *   cxflash [options] -i FILE <command> [parameters]
 *
 * Options may come before or after the command; flint's single-dash spellings
 * (-guid, -striped_image, ...) are accepted beside the double-dash ones. Every
 * option is a row of one table (options.c: names, value, where it goes, usage
 * line) and every command a row of another (commands.c) with flag bits that say
 * what it needs; the usage text is printed from both, and run_command() applies
 * the bits in one place (CMD_IMAGE_AND_DEVICE: cli_parse). Commands print results on
 * standard output and return a code from util/status.h; the caller prints the
 * error line, if any, and exits with that code.
 */
#ifndef CX_CLI_H
#define CX_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "image/patch.h"
#include "util/status.h"

#define CLI_MAX_PARAMS 48 /* config set takes a NAME=VALUE per setting */
#define CLI_MAX_FIRMWARE 8

struct cli {
	const char *image;          /* -i FILE */
	const char *device;         /* -d BDF */
	const char *output;         /* -o OUT (drom, brom on a file) */
	const char *sysfs;          /* --sysfs DIR (or $CXFLASH_SYSFS): libpci's sysfs.path */
	const char *record;         /* --record FILE: every access to the card (ops/device_trace.h) */
	const char *replay;         /* --replay FILE: the card's accesses answered from FILE */
	bool clear_sem;             /* --clear-semaphore */
	bool direct_running;        /* --risk-fw-hang */
	bool use_image_guids;       /* --use_image_guids (burn) */
	bool use_image_ps;          /* --use_image_ps (burn) */
	bool use_image_rom;         /* --use_image_rom (burn): flint's spelling of --rom image */
	const char *rom;            /* --rom keep|image|none|FILE (burn) */
	bool allow_psid_change;     /* --allow_psid_change (burn) */
	bool unprotect;             /* --unprotect (burn, FS3/FS4 cards) */
	bool allow_rom_change;      /* --allow_rom_change (drom, brom): flint's Product Version gate */
	bool no_backup;             /* --no-backup (burn) */
	bool dry_run;               /* --dry-run (burn) */
	const char *backup_dir;     /* --backup-dir DIR (burn, restore) */
	bool force;                 /* --force (restore: a bundle of another card) */
	bool device_data;           /* --device-data (restore, FS3/FS4: the device area too) */
	bool settings_only;         /* --settings (restore: only the settings of the bundle) */
	const char *identity_from;  /* --identity-from BUNDLE (burn: the identity of a backup) */
	bool nofs;                  /* --nofs (burn: not failsafe, flint's -nofs) */
	bool in_place;              /* --in-place (sg on blank GUIDs: flint's non-failsafe write) */
	bool restore_mfg_ids;       /* --restore-mfg-ids (sg on an FS3/FS4 card: guids_override_en clear) */
	bool striped;               /* --striped_image */
	bool json;                  /* --json */
	bool yes;                   /* -y: no questions */
	struct guid_request guids;  /* --guid/--guids/--mac/--macs */
	const char *vsd;            /* --vsd */
	const char *boards;         /* --boards FILE (library, match): the board table */
	int nfirmware;              /* --firmware DIR (library, match), repeatable */
	const char *firmware[CLI_MAX_FIRMWARE];
	bool expert;                /* --expert (match): an unmapped PSID change is RISKY, not REFUSED */
	bool json_done;            /* the command printed its own JSON, errors included */
	const char *card_state;     /* set by a command that wrote or tried to write the card
				     * (card_state_name): --json's failure object names it */
	const char *command;
	int nparams;
	const char *params[CLI_MAX_PARAMS];
};

/* Command flag bits. */
#define CMD_NEEDS_IMAGE 0x1   /* -i FILE or -d BDF is required */
#define CMD_WRITES_IMAGE 0x2  /* replaces the image file */
#define CMD_JSON 0x4          /* has --json output (without it, --json is refused) */
#define CMD_IMAGE_AND_DEVICE 0x8 /* takes -i IMAGE and -d BDF together (else they are refused) */
#define CMD_WRITES_CARD 0x10  /* with -d BDF (and no -i) writes the card instead of a file */

struct command {
	const char *name;
	int (*run)(struct cli *c, struct cx_status *st);
	unsigned flags;
	int min_params, max_params;
	const char *usage;
	const char *help;
};

extern const struct command cli_commands[];

/* Parse argv into c. Returns CX_OK, or CX_EUSAGE with a message. Sets
 * *want_help for -h/--help/help, *want_version for --version. */
int cli_parse(int argc, char **argv, struct cli *c, bool *want_help, bool *want_version,
	      struct cx_status *st);

int cli_main(int argc, char **argv);
/* The whole usage text: the options, then the commands, then the exit codes. */
void cli_usage(FILE *out);
/* Its options part: one line per row of the option table. */
void cli_usage_options(FILE *out);
/* The row of the command named exactly name, or NULL. */
const struct command *cli_find_command(const char *name);

/* --record / --replay (trace.c): choose one for the whole command, before it runs. */
int cli_trace_begin(const struct cli *c, int argc, char **argv, struct cx_status *st);

/* The commands (cmd_*.c). */
int cmd_verify(struct cli *c, struct cx_status *st);
int cmd_query(struct cli *c, struct cx_status *st);
int cmd_dc(struct cli *c, struct cx_status *st);
int cmd_rrom(struct cli *c, struct cx_status *st);
int cmd_drom(struct cli *c, struct cx_status *st);
int cmd_brom(struct cli *c, struct cx_status *st);
int cmd_extract(struct cli *c, struct cx_status *st);
int cmd_sg(struct cli *c, struct cx_status *st);
int cmd_sv(struct cli *c, struct cx_status *st);
int cmd_list(struct cli *c, struct cx_status *st);
int cmd_probe(struct cli *c, struct cx_status *st);
int cmd_burn(struct cli *c, struct cx_status *st);
int cmd_backup(struct cli *c, struct cx_status *st);
int cmd_restore(struct cli *c, struct cx_status *st);
int cmd_library(struct cli *c, struct cx_status *st);
int cmd_match(struct cli *c, struct cx_status *st);
int cmd_rom(struct cli *c, struct cx_status *st);
int cmd_rescue(struct cli *c, struct cx_status *st);
int cmd_config(struct cli *c, struct cx_status *st);
/* restore --settings BUNDLE (cmd_config.c): the bundle's settings.json put back. */
int cli_config_restore(struct cli *c, struct cx_status *st);

#endif
