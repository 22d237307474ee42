/* SPDX-License-Identifier: GPL-2.0-or-later */
/* options.c — turning argv into a struct cli, and the options part of the usage text.
 *
 * Every option is one row of options[]: its names, the kind of value it takes,
 * where in struct cli that goes, and its line of the usage text. The parser and
 * cli_usage_options() read nothing else, so an option is added in one place. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

enum arg_kind {
	ARG_HELP,    /* no value: *want_help */
	ARG_VERSION, /* no value: *want_version */
	ARG_FLAG,    /* no value: the bool at .off becomes true */
	ARG_WORD,    /* one value that is not an option: the const char * at .off */
	ARG_ANY,     /* one value taken as is: a VSD may legitimately start with '-' */
	ARG_FOLDER,  /* one value appended to c->firmware: repeatable */
	ARG_GUID,    /* one GUID G: G, G+1, G+2, G+3 into the guid_request at .off */
	ARG_GUIDS,   /* GUIDS_NGUID GUIDs */
	ARG_MAC,     /* one MAC M: M, M+1 */
	ARG_MACS,    /* GUIDS_NMAC MACs */
};

struct option_row {
	const char *letter;  /* "-i" beside "--image", or NULL */
	const char *name;    /* as the usage spells it; '-' and '_' are interchangeable (below) */
	enum arg_kind kind;
	size_t off;          /* where in struct cli (ARG_FLAG, ARG_WORD, ARG_ANY, the GUID kinds) */
	const char *value;   /* the value's name in the usage ("FILE"), or NULL */
	const char *help;    /* the usage's text; a '\n' continues it under itself */
};

#define AT(field) offsetof(struct cli, field)

/* In the order of the usage text. */
static const struct option_row options[] = {
	{"i", "image", ARG_WORD, AT(image), "FILE", "the firmware image file to work on"},
	{"d", "device", ARG_WORD, AT(device), "BDF", "the card at PCI address BDF (see 'cxflash list')"},
	{"o", "output", ARG_WORD, AT(output), "OUT", "drom, brom -i FILE: write the new image to OUT (atomically)"},
	{NULL, "sysfs", ARG_WORD, AT(sysfs), "DIR",
	 "find cards under DIR instead of /sys/bus/pci ($CXFLASH_SYSFS)"},
	{NULL, "record", ARG_WORD, AT(record), "FILE",
	 "record every register access to the card into FILE (docs/traces.md)"},
	{NULL, "replay", ARG_WORD, AT(replay), "FILE",
	 "-d BDF: run against the recording FILE instead of a card"},
	{NULL, "clear-semaphore", ARG_FLAG, AT(clear_sem), NULL,
	 "release the card's flash semaphores first (after a killed tool)"},
	{NULL, "risk-fw-hang", ARG_FLAG, AT(direct_running), NULL,
	 "ConnectX-4/4 Lx/5 whose firmware runs: reach the flash directly, not\n"
	 "through the firmware (mstflint's -ocr); that firmware may hang until a power-off"},
	{NULL, "striped_image", ARG_FLAG, AT(striped), NULL,
	 "FILE is a raw flash dump (failsafe, image in either slot)"},
	{NULL, "json", ARG_FLAG, AT(json), NULL, "print one JSON object instead of text"},
	{"y", "yes", ARG_FLAG, AT(yes), NULL, "answer yes to every question"},
	{NULL, "guid", ARG_GUID, AT(guids), "G", "GUIDs G, G+1, G+2, G+3 (sg)"},
	{NULL, "guids", ARG_GUIDS, AT(guids), "G1 G2 G3 G4", "four GUIDs (sg)"},
	{NULL, "mac", ARG_MAC, AT(guids), "M", "MACs M, M+1 (sg)"},
	{NULL, "macs", ARG_MACS, AT(guids), "M1 M2", "two MACs (sg)"},
	{NULL, "vsd", ARG_ANY, AT(vsd), "STRING", "vendor-specific data, at most 208 characters (sv, burn)"},
	{NULL, "use_image_guids", ARG_FLAG, AT(use_image_guids), NULL,
	 "burn: keep the image's GUIDs/MACs instead of the card's"},
	{NULL, "use_image_ps", ARG_FLAG, AT(use_image_ps), NULL, "burn: keep the image's VSD instead of the card's"},
	{NULL, "rom", ARG_WORD, AT(rom), "WHICH",
	 "burn: the ROM of the result: keep (the card's if the image has none:\n"
	 "the default, as flint), image (as it is), none, or a ROM FILE"},
	{NULL, "use_image_rom", ARG_FLAG, AT(use_image_rom), NULL, "burn: --rom image (flint's spelling)"},
	{NULL, "allow_rom_change", ARG_FLAG, AT(allow_rom_change), NULL,
	 "drom, brom: change the ROM of an image with a Product Version (flint's gate)"},
	{NULL, "allow_psid_change", ARG_FLAG, AT(allow_psid_change), NULL,
	 "burn: allow a cross-flash to another PSID (asks first)"},
	{NULL, "unprotect", ARG_FLAG, AT(unprotect), NULL,
	 "burn (ConnectX-4/4 Lx/5): clear a write-protected flash's block-protect bits\n"
	 "for this burn (asks first; then asks whether to put them back, default no)"},
	{NULL, "backup-dir", ARG_WORD, AT(backup_dir), "DIR",
	 "burn, restore, sg/sv -d: where the backup bundle goes (default cxflash-backups)"},
	{NULL, "no-backup", ARG_FLAG, AT(no_backup), NULL,
	 "burn, restore, sg/sv -d: do not back up first (not recommended)"},
	{NULL, "dry-run", ARG_FLAG, AT(dry_run), NULL,
	 "burn, restore, sg/sv/drom/brom -d, config set/reset: check everything, write nothing"},
	{NULL, "identity-from", ARG_WORD, AT(identity_from), "DIR",
	 "burn: GUIDs/MACs/VSD from a backup bundle; match: the PSID and .ini (recovery mode)"},
	{NULL, "nofs", ARG_FLAG, AT(nofs), NULL, "burn: not failsafe, image at the first slot (recovery mode)"},
	{NULL, "force", ARG_FLAG, AT(force), NULL, "restore: accept a bundle made from another card (asks first)"},
	{NULL, "device-data", ARG_FLAG, AT(device_data), NULL,
	 "restore on a ConnectX-4/4 Lx/5: also write the bundle's device data\n"
	 "(GUIDs, MACs, VPD, settings) where it differs (asks first)"},
	{NULL, "settings", ARG_FLAG, AT(settings_only), NULL, "restore: only the card's settings (settings.json)"},
	{NULL, "boards", ARG_WORD, AT(boards), "FILE", "library, match: the board table ($CXFLASH_BOARDS)"},
	{NULL, "firmware", ARG_FOLDER, AT(firmware), "DIR",
	 "library, match: a firmware folder, repeatable ($CXFLASH_FIRMWARE)"},
	{NULL, "expert", ARG_FLAG, AT(expert), NULL,
	 "match: a PSID change the board table does not map is RISKY, not REFUSED"},
	{NULL, "in-place", ARG_FLAG, AT(in_place), NULL,
	 "sg -d on blank GUIDs: program them over the running image\n"
	 "(flint's way, not failsafe; the default re-burns failsafe)"},
	{NULL, "restore-mfg-ids", ARG_FLAG, AT(restore_mfg_ids), NULL,
	 "sg -d on a ConnectX-4/4 Lx/5 whose MFG_INFO has guids override off:\n"
	 "write its factory GUID/MAC into a lost DEV_INFO (only those)"},
	{"h", "help", ARG_HELP, 0, NULL, "this text"},
	{NULL, "version", ARG_VERSION, 0, NULL, "the version"},
};

#define NOPTIONS (sizeof(options) / sizeof(options[0]))
#define USAGE_COLUMN 20   /* the width of "--guids G1 G2 G3 G4 " less one */

/* "-x" and "--x" name the same option; flint users type the single dash. */
static const char *opt_name(const char *a)
{
	if (a[0] != '-' || !a[1])
		return NULL;
	return a[1] == '-' ? a + 2 : a + 1;
}

/* typed is name with every '-' or '_' in it written as sep: flint's spelling
 * (--striped_image) and the dashed one (--striped-image) both, never a mix. */
static bool spelled(const char *typed, const char *name, char sep)
{
	for (; *name; typed++, name++)
		if (*typed != (*name == '-' || *name == '_' ? sep : *name))
			return false;
	return !*typed;
}

static const struct option_row *find_option(const char *o)
{
	for (const struct option_row *r = options; r < options + NOPTIONS; r++)
		if ((r->letter && !strcmp(o, r->letter)) || spelled(o, r->name, '-') || spelled(o, r->name, '_'))
			return r;
	return NULL;
}

struct args {
	int argc;
	char **argv;
	int i;             /* the option being read; its values follow */
	struct cli *c;
	bool *want_help, *want_version;
};

/* The n words after the option exist and are not options themselves. */
static int need(const struct args *a, int n, const char *name, struct cx_status *st)
{
	for (int k = 1; k <= n; k++)
		if (a->i + k >= a->argc || (a->argv[a->i + k][0] == '-' && a->argv[a->i + k][1]))
			return cx_fail(st, CX_EUSAGE, "option --%s needs %d value%s", name, n,
				       n > 1 ? "s" : "");
	return CX_OK;
}

/* --guid G, --guids G1..G4, --mac M, --macs M1 M2: each group once. */
static int take_ids(struct args *a, enum arg_kind kind, const char *o, struct guid_request *g,
		    struct cx_status *st)
{
	bool mac = kind == ARG_MAC || kind == ARG_MACS, one = kind == ARG_GUID || kind == ARG_MAC;
	bool *have = mac ? &g->have_macs : &g->have_guids;
	int n = one ? 1 : mac ? GUIDS_NMAC : GUIDS_NGUID;
	uint64_t base;

	if (need(a, n, o, st))
		return st->code;
	if (*have)
		return cx_fail(st, CX_EUSAGE, "%s given twice", mac ? "MACs" : "GUIDs");
	for (int k = 0; k < n; k++) {
		const char *s = a->argv[++a->i];
		uint64_t *to = one ? &base : mac ? &g->mac[k] : &g->guid[k];
		if (mac ? guids_parse_mac(s, to, st) : guids_parse_guid(s, to, st))
			return st->code;
	}
	if (one && mac)
		patch_expand_mac(base, g->mac);
	else if (one)
		patch_expand_guid(base, g->guid);
	*have = true;
	return CX_OK;
}

/* Option r, typed as o, and its values. */
static int take(struct args *a, const struct option_row *r, const char *o, struct cx_status *st)
{
	struct cli *c = a->c;
	char *at = (char *)c + r->off;

	switch (r->kind) {
	case ARG_HELP:
		*a->want_help = true;
		return CX_OK;
	case ARG_VERSION:
		*a->want_version = true;
		return CX_OK;
	case ARG_FLAG:
		*(bool *)(void *)at = true;
		return CX_OK;
	case ARG_WORD:
		if (need(a, 1, o, st))
			return st->code;
		*(const char **)(void *)at = a->argv[++a->i];
		return CX_OK;
	case ARG_ANY:
		if (a->i + 1 >= a->argc)
			return cx_fail(st, CX_EUSAGE, "option --%s needs a value", o);
		*(const char **)(void *)at = a->argv[++a->i];
		return CX_OK;
	case ARG_FOLDER:
		if (need(a, 1, o, st))
			return st->code;
		if (c->nfirmware == CLI_MAX_FIRMWARE)
			return cx_fail(st, CX_EUSAGE, "at most %d --firmware folders", CLI_MAX_FIRMWARE);
		c->firmware[c->nfirmware++] = a->argv[++a->i];
		return CX_OK;
	case ARG_GUID:
	case ARG_GUIDS:
	case ARG_MAC:
	case ARG_MACS:
		return take_ids(a, r->kind, o, (struct guid_request *)(void *)at, st);
	}
	return CX_OK; /* no default above: a new kind without its case is a compiler warning */
}

/* A word that is not an option: the command, then its parameters. */
static int positional(struct cli *c, const char *word, struct cx_status *st)
{
	if (!c->command)
		c->command = word;
	else if (c->nparams < CLI_MAX_PARAMS)
		c->params[c->nparams++] = word;
	else
		return cx_fail(st, CX_EUSAGE, "too many parameters");
	return CX_OK;
}

/* What no single option can check: the combinations. */
static int check(struct cli *c, bool want_help, struct cx_status *st)
{
	const struct command *cmd = c->command ? cli_find_command(c->command) : NULL;

	if (!c->sysfs)
		c->sysfs = getenv("CXFLASH_SYSFS");
	if (c->image && c->device && !want_help && !(cmd && (cmd->flags & CMD_IMAGE_AND_DEVICE)))
		return cx_fail(st, CX_EUSAGE, "give -i FILE or -d BDF, not both (only burn takes both)");
	if (c->record && c->replay)
		return cx_fail(st, CX_EUSAGE, "give --record or --replay, not both");
	if (c->replay && !c->device && !want_help)
		return cx_fail(st, CX_EUSAGE, "--replay FILE needs -d BDF (the card the recording was made on)");
	if (c->device && c->striped)
		return cx_fail(st, CX_EUSAGE, "--striped_image is for dump files, not for -d");
	if (c->output && !want_help && (c->device || !cmd || (cmd->run != cmd_drom && cmd->run != cmd_brom)))
		return cx_fail(st, CX_EUSAGE, "-o OUT is for drom and brom on a file (-i FILE)");
	return CX_OK;
}

int cli_parse(int argc, char **argv, struct cli *c, bool *want_help, bool *want_version,
	      struct cx_status *st)
{
	struct args a = {.argc = argc, .argv = argv, .c = c, .want_help = want_help,
			 .want_version = want_version};

	memset(c, 0, sizeof(*c));
	*want_help = *want_version = false;
	for (a.i = 1; a.i < argc; a.i++) {
		const char *word = argv[a.i], *o = opt_name(word);
		const struct option_row *r = o ? find_option(o) : NULL;
		if (!o && positional(c, word, st))
			return st->code;
		if (o && !r)
			return cx_fail(st, CX_EUSAGE, "unknown option '%s' (try 'cxflash help')", word);
		if (r && take(&a, r, o, st))
			return st->code;
	}
	if (c->command && !strcmp(c->command, "help"))
		*want_help = true;
	return check(c, *want_help, st);
}

void cli_usage_options(FILE *out)
{
	for (const struct option_row *r = options; r < options + NOPTIONS; r++) {
		char names[64];
		snprintf(names, sizeof(names), "%s%s%s--%s%s%s", r->letter ? "-" : "", r->letter ? r->letter : "",
			 r->letter ? ", " : "", r->name, r->value ? " " : "", r->value ? r->value : "");
		fprintf(out, "  %-*s ", USAGE_COLUMN, names);
		for (const char *h = r->help; *h; h++)
			if (*h == '\n')
				fprintf(out, "\n  %-*s ", USAGE_COLUMN, "");
			else
				fputc(*h, out);
		fputc('\n', out);
	}
}
