/* SPDX-License-Identifier: GPL-2.0-or-later */
/* options.c — turning argv into a struct cli. */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

/* "-x" and "--x" name the same option; flint users type the single dash. */
static const char *opt_name(const char *a)
{
	if (a[0] != '-' || !a[1])
		return NULL;
	return a[1] == '-' ? a + 2 : a + 1;
}

static int need(int argc, char **argv, int i, int n, const char *name, struct cx_status *st)
{
	for (int k = 1; k <= n; k++)
		if (i + k >= argc || (argv[i + k][0] == '-' && argv[i + k][1]))
			return cx_fail(st, CX_EUSAGE, "option --%s needs %d value%s", name, n,
				       n > 1 ? "s" : "");
	return CX_OK;
}

static int parse_guid_opts(const char *o, int argc, char **argv, int *i, struct cli *c,
			   struct cx_status *st)
{
	struct guid_request *g = &c->guids;
	uint64_t v;

	if (!strcmp(o, "guid") || !strcmp(o, "mac")) {
		bool mac = o[0] == 'm';
		if (need(argc, argv, *i, 1, o, st))
			return st->code;
		if ((mac ? g->have_macs : g->have_guids))
			return cx_fail(st, CX_EUSAGE, "%s given twice", mac ? "MACs" : "GUIDs");
		const char *s = argv[++*i];
		if (mac) {
			if (guids_parse_mac(s, &v, st))
				return st->code;
			patch_expand_mac(v, g->mac);
			g->have_macs = true;
		} else {
			if (guids_parse_guid(s, &v, st))
				return st->code;
			patch_expand_guid(v, g->guid);
			g->have_guids = true;
		}
		return CX_OK;
	}
	bool mac = !strcmp(o, "macs");
	int n = mac ? GUIDS_NMAC : GUIDS_NGUID;
	if (need(argc, argv, *i, n, o, st))
		return st->code;
	if ((mac ? g->have_macs : g->have_guids))
		return cx_fail(st, CX_EUSAGE, "%s given twice", mac ? "MACs" : "GUIDs");
	for (int k = 0; k < n; k++) {
		const char *s = argv[++*i];
		if (mac ? guids_parse_mac(s, &g->mac[k], st) : guids_parse_guid(s, &g->guid[k], st))
			return st->code;
	}
	if (mac)
		g->have_macs = true;
	else
		g->have_guids = true;
	return CX_OK;
}

int cli_parse(int argc, char **argv, struct cli *c, bool *want_help, bool *want_version,
	      struct cx_status *st)
{
	memset(c, 0, sizeof(*c));
	*want_help = *want_version = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *o = opt_name(a);
		if (!o) {
			if (!c->command)
				c->command = a;
			else if (c->nparams < CLI_MAX_PARAMS)
				c->params[c->nparams++] = a;
			else
				return cx_fail(st, CX_EUSAGE, "too many parameters");
			continue;
		}
		if (!strcmp(o, "h") || !strcmp(o, "help")) {
			*want_help = true;
		} else if (!strcmp(o, "version")) {
			*want_version = true;
		} else if (!strcmp(o, "i") || !strcmp(o, "image")) {
			if (need(argc, argv, i, 1, o, st))
				return st->code;
			c->image = argv[++i];
		} else if (!strcmp(o, "d") || !strcmp(o, "device")) {
			if (need(argc, argv, i, 1, o, st))
				return st->code;
			c->device = argv[++i];
		} else if (!strcmp(o, "sysfs")) {
			if (need(argc, argv, i, 1, o, st))
				return st->code;
			c->sysfs = argv[++i];
		} else if (!strcmp(o, "clear_semaphore") || !strcmp(o, "clear-semaphore")) {
			c->clear_sem = true;
		} else if (!strcmp(o, "use_image_guids") || !strcmp(o, "use-image-guids")) {
			c->use_image_guids = true;
		} else if (!strcmp(o, "use_image_ps") || !strcmp(o, "use-image-ps")) {
			c->use_image_ps = true;
		} else if (!strcmp(o, "use_image_rom") || !strcmp(o, "use-image-rom")) {
			c->use_image_rom = true;
		} else if (!strcmp(o, "allow_psid_change") || !strcmp(o, "allow-psid-change")) {
			c->allow_psid_change = true;
		} else if (!strcmp(o, "no-backup") || !strcmp(o, "no_backup")) {
			c->no_backup = true;
		} else if (!strcmp(o, "dry-run") || !strcmp(o, "dry_run")) {
			c->dry_run = true;
		} else if (!strcmp(o, "backup-dir") || !strcmp(o, "backup_dir")) {
			if (need(argc, argv, i, 1, o, st))
				return st->code;
			c->backup_dir = argv[++i];
		} else if (!strcmp(o, "force")) {
			c->force = true;
		} else if (!strcmp(o, "nofs")) {
			c->nofs = true;
		} else if (!strcmp(o, "in-place") || !strcmp(o, "in_place")) {
			c->in_place = true;
		} else if (!strcmp(o, "identity-from") || !strcmp(o, "identity_from")) {
			if (need(argc, argv, i, 1, o, st))
				return st->code;
			c->identity_from = argv[++i];
		} else if (!strcmp(o, "boards")) {
			if (need(argc, argv, i, 1, o, st))
				return st->code;
			c->boards = argv[++i];
		} else if (!strcmp(o, "firmware")) {
			if (need(argc, argv, i, 1, o, st))
				return st->code;
			if (c->nfirmware == CLI_MAX_FIRMWARE)
				return cx_fail(st, CX_EUSAGE, "at most %d --firmware folders", CLI_MAX_FIRMWARE);
			c->firmware[c->nfirmware++] = argv[++i];
		} else if (!strcmp(o, "expert")) {
			c->expert = true;
		} else if (!strcmp(o, "striped_image") || !strcmp(o, "striped-image")) {
			c->striped = true;
		} else if (!strcmp(o, "json")) {
			c->json = true;
		} else if (!strcmp(o, "y") || !strcmp(o, "yes")) {
			c->yes = true;
		} else if (!strcmp(o, "vsd")) {
			/* A VSD may legitimately start with '-', so take the next word as is. */
			if (i + 1 >= argc)
				return cx_fail(st, CX_EUSAGE, "option --vsd needs a value");
			c->vsd = argv[++i];
		} else if (!strcmp(o, "guid") || !strcmp(o, "guids") || !strcmp(o, "mac") ||
			   !strcmp(o, "macs")) {
			if (parse_guid_opts(o, argc, argv, &i, c, st))
				return st->code;
		} else {
			return cx_fail(st, CX_EUSAGE, "unknown option '%s' (try 'cxflash help')", a);
		}
	}
	if (c->command && !strcmp(c->command, "help"))
		*want_help = true;
	if (!c->sysfs)
		c->sysfs = getenv("CXFLASH_SYSFS");
	if (c->image && c->device && !*want_help && !(c->command && !strcmp(c->command, "burn")))
		return cx_fail(st, CX_EUSAGE, "give -i FILE or -d BDF, not both (only burn takes both)");
	if (c->device && c->striped)
		return cx_fail(st, CX_EUSAGE, "--striped_image is for dump files, not for -d");
	return CX_OK;
}
