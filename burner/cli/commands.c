/* SPDX-License-Identifier: GPL-2.0-or-later */
/* commands.c — the command table, the usage text, and the one place the command flags
 * are applied: run_command(), and CMD_IMAGE_AND_DEVICE in cli_parse() (options.c), which
 * refuses -i with -d before the command is looked for. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/fs3cli.h"
#include "dev/lockdown.h"
#include "ops/card_state.h"
#include "ops/device_trace.h"
#include "util/json.h"
#include "util/signals.h"
#include "util/version.h"

/* Exact names only, plus explicit aliases: a mistyped prefix must never pick
 * a command that writes. */
const struct command cli_commands[] = {
	{"burn", cmd_burn, CMD_IMAGE_AND_DEVICE | CMD_JSON, 0, 0, "burn",
	 "-d BDF -i IMAGE: back up the card, then burn failsafe keeping its GUIDs/MACs/VSD"},
	{"list", cmd_list, CMD_JSON, 0, 0, "list",
	 "every ConnectX-2/3/3 Pro card: slot, chip, IDs, OEM, PSID, FW, GUIDs/MACs, ROM, recovery"},
	{"probe", cmd_probe, CMD_JSON, 0, 0, "probe",
	 "-d BDF only: read-only checks (IDs, semaphores, flash, two reads, image, FW, lockdown); "
	 "safe to write or why not"},
	{"v", cmd_verify, CMD_NEEDS_IMAGE | CMD_JSON, 0, 1, "v [showitoc]",
	 "verify every checksum and structure rule of the image; showitoc (FS3/FS4) dumps each ITOC/DTOC entry"},
	{"verify", cmd_verify, CMD_NEEDS_IMAGE | CMD_JSON, 0, 1, "verify [showitoc]", "same as v"},
	{"q", cmd_query, CMD_NEEDS_IMAGE | CMD_JSON, 0, 1, "q [full]",
	 "show versions, device, GUIDs/MACs, VSD and PSID; 'full' adds layout details"},
	{"query", cmd_query, CMD_NEEDS_IMAGE | CMD_JSON, 0, 1, "query [full]", "same as q"},
	{"dc", cmd_dc, CMD_NEEDS_IMAGE | CMD_JSON, 0, 1, "dc [FILE]",
	 "write the board .ini stored in the image (to standard output without FILE)"},
	{"rrom", cmd_rrom, CMD_NEEDS_IMAGE | CMD_JSON, 1, 1, "rrom FILE",
	 "write the expansion ROM (PXE/UEFI) to FILE"},
	{"drom", cmd_drom, CMD_NEEDS_IMAGE | CMD_WRITES_IMAGE | CMD_WRITES_CARD | CMD_JSON, 0, 0, "drom -o OUT",
	 "write the image without its expansion ROM to OUT (flint's drom, on a file); -d BDF: on the card "
	 "(backup, failsafe re-burn)"},
	{"brom", cmd_brom, CMD_NEEDS_IMAGE | CMD_WRITES_IMAGE | CMD_WRITES_CARD | CMD_JSON, 1, 1, "brom ROMFILE -o OUT",
	 "write the image with ROMFILE as its expansion ROM to OUT (flint's brom, on a file); -d BDF: on the card"},
	{"extract", cmd_extract, CMD_NEEDS_IMAGE | CMD_JSON, 1, 1, "extract FILE",
	 "write the contiguous image of a raw flash dump (--striped_image) to FILE"},
	{"ri", cmd_extract, CMD_NEEDS_IMAGE | CMD_JSON, 1, 1, "ri FILE", "same as extract"},
	{"sg", cmd_sg, CMD_NEEDS_IMAGE | CMD_WRITES_IMAGE | CMD_WRITES_CARD | CMD_JSON, 0, 0,
	 "sg --guid G | --guids G1 G2 G3 G4 [--mac M | --macs M1 M2]",
	 "set GUIDs and/or MACs in the image file and fix its CRCs; -d BDF: on the card (backup, failsafe "
	 "re-burn; in place if blank)"},
	{"sv", cmd_sv, CMD_NEEDS_IMAGE | CMD_WRITES_IMAGE | CMD_WRITES_CARD | CMD_JSON, 0, 0, "sv --vsd STRING",
	 "set the vendor-specific data string and fix the CRCs; -d BDF: on the card (backup, failsafe re-burn)"},
	{"backup", cmd_backup, CMD_NEEDS_IMAGE | CMD_JSON, 1, 1, "backup DIR",
	 "-d BDF only: read the whole flash twice, write a checked bundle into DIR"},
	{"restore", cmd_restore, CMD_NEEDS_IMAGE | CMD_JSON, 1, 1, "restore BUNDLE",
	 "-d BDF only: write a backup bundle back, checked before and after"},
	{"library", cmd_library, CMD_JSON, 1, CLI_MAX_PARAMS, "library list|check [DIR...] | show FILE|PSID",
	 "the firmware library: its images, what each is, whether each is sound and as pinned"},
	{"rom", cmd_rom, CMD_JSON, 1, 4, "rom list | extract SOURCE OUT [TYPE]",
	 "the boot ROMs of the library's images and the backups; write one out (N.K, an image, a bundle)"},
	{"match", cmd_match, CMD_NEEDS_IMAGE | CMD_JSON, 0, 0, "match [--expert]",
	 "-d BDF (or -i the card's image): every library image ranked OK / RISKY / REFUSED, with reasons"},
	{"config", cmd_config, CMD_JSON, 1, CLI_MAX_PARAMS, "config q [NAME...] | set NAME=VALUE... | reset",
	 "-d BDF only: the card's settings (port type, SR-IOV, BAR size, boot ROM, WoL) as mstconfig shows and "
	 "sets them, for the next boot"},
	{"rescue", cmd_rescue, 0, 0, CLI_MAX_PARAMS, "rescue [job=J] [card=BDF|all] [yes=1] [KEY=VALUE...]",
	 "the rescue wizard on this terminal (the rescue image starts it); job= runs unattended, "
	 "with allow_risky=, rom=, settings=, bundle=, device_data=, expect=, upload=, after="},
	{NULL, NULL, 0, 0, 0, NULL, NULL},
};

void cli_usage(FILE *out)
{
	fprintf(out, "usage: cxflash [options] -i FILE <command> [parameters]\n\noptions:\n");
	cli_usage_options(out);
	fprintf(out, "\ncommands:\n");
	for (const struct command *c = cli_commands; c->name; c++)
		fprintf(out, "  %-58s %s\n", c->usage, c->help);
	fprintf(out, "\nExit codes: 0 ok, 2 usage, 3 I/O, 4 bad image, 5 absent, 6 bad value,\n"
		     "7 blank GUIDs, 8 unsupported, 9 out of memory, 19 probe: not safe to write,\n"
		     "20 bad ROM checksum, 21 firmware not started, 22 tools interface failed,\n"
		     "23 unknown setting (every code: the manual's EXIT STATUS).\n"
		     "\nThe manual: man cxflash (on the rescue image), docs/cxflash.1 in the source.\n");
}

const struct command *cli_find_command(const char *name)
{
	for (const struct command *c = cli_commands; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

static int run_command(const struct command *cmd, struct cli *c, struct cx_status *st)
{
	if (c->nparams < cmd->min_params || c->nparams > cmd->max_params)
		return cx_fail(st, CX_EUSAGE, "usage: cxflash -i FILE %s", cmd->usage);
	if ((cmd->flags & CMD_NEEDS_IMAGE) && !c->image && !c->device)
		return cx_fail(st, CX_EUSAGE, "%s needs an image: cxflash -i FILE %s (or -d BDF)", cmd->name,
			       cmd->usage);
	if (c->json && !(cmd->flags & CMD_JSON))
		return cx_fail(st, CX_EUSAGE, "%s has no --json output", cmd->name);
	if ((cmd->flags & CMD_WRITES_IMAGE) && c->device && !(cmd->flags & CMD_WRITES_CARD))
		return cx_fail(st, CX_EUNSUPPORTED, "%s on a card comes with the burn support; use it on a file",
			       cmd->name);
	/* An FS3/FS4 file (ConnectX-4 and later) is read, or refused, by cli/cmd_fs3.c. */
	bool fs3;
	int rc = cli_fs3_dispatch(cmd, c, &fs3, st);
	if (fs3)
		return rc;
	return cmd->run(c, st);
}

/* A command that printed its result but could not deliver it (a full disk, a
 * closed pipe) has failed. */
static int flush_stdout(struct cx_status *st)
{
	if (fflush(stdout) || ferror(stdout))
		return cx_fail(st, CX_EIO, "cannot write to standard output");
	return CX_OK;
}

/* --json: a failure is one object on stdout too, so a script reads the outcome
 * from the same place as a success (the line on stderr stays, for people). A
 * command that printed its own JSON, errors included, has said it already. The
 * card's state: what the write procedure set (ops/card_state.h), "untouched"
 * for any other command on a card, null for a file. */
static void json_failure(const struct cli *c, int rc, const struct cx_status *st)
{
	struct json j;

	if (!c->json || c->json_done)
		return;
	json_begin(&j, stdout);
	json_str(&j, "error", st->msg[0] ? st->msg : cx_code_name(rc));
	json_str(&j, "code", cx_code_name(rc));
	json_int(&j, "exit_code", rc);
	json_str(&j, "card_state", c->card_state ? c->card_state : c->device ? card_state_name(CARD_UNTOUCHED) : NULL);
	json_end(&j);
}

int cli_main(int argc, char **argv)
{
	struct cli c;
	struct cx_status st = {0};
	bool help, version;
	int rc = cli_parse(argc, argv, &c, &help, &version, &st);

	if (!rc && help) {
		cli_usage(stdout);
		return flush_stdout(&st) ? (fprintf(stderr, "cxflash: %s\n", st.msg), st.code) : 0;
	}
	if (!rc && version) {
		printf("cxflash %s\n", CXFLASH_VERSION);
		return 0;
	}
	if (!rc && !c.command)
		rc = cx_fail(&st, CX_EUSAGE, "no command given (try 'cxflash help')");
	if (!rc)
		chip_allow_direct_running(c.direct_running);
	const struct command *cmd = rc ? NULL : cli_find_command(c.command);
	if (!rc && !cmd)
		rc = cx_fail(&st, CX_EUSAGE, "unknown command '%s' (try 'cxflash help')", c.command);
	/* Signals stay deferred until the verdict is out: a Ctrl-C that stopped a
	 * write at a safe point must not kill us before we say where it stopped. */
	sig_defer_begin();
	if (!rc)
		rc = cli_trace_begin(&c, argc, argv, &st);
	if (!rc)
		rc = run_command(cmd, &c, &st);
	rc = device_trace_end(rc, &st);
	if (!rc)
		rc = flush_stdout(&st);
	if (rc == CX_EPERM)
		lockdown_explain(&st, c.device);
	if (rc) {
		json_failure(&c, rc, &st);
		fflush(stdout);
		fprintf(stderr, "cxflash: %s\n", st.msg[0] ? st.msg : cx_code_name(rc));
	}
	sig_defer_end();
	return rc;
}
