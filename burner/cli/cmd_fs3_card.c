/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_fs3_card.c — -d BDF on a ConnectX-4, 4 Lx or 5 card: its FS3/FS4 image, read from
 * its flash (ops/devimage_fs3.h), goes through the same commands as a file (cmd_fs3.c). */
#include <stdlib.h>
#include <string.h>

#include "cli/common.h"
#include "cli/fs3cli.h"
#include "dev/pci_enum.h"
#include "ops/device.h"
#include "ops/device_trace.h"

/* The commands that run as on any card: the bundle (ops/backup_facts.h) and the probe know the
 * format, the settings (ops/nv_settings.h) their generation. */
static const char *const same[] = {"backup", "probe", "config", "restore", NULL};

/* The commands that read a card's image, as they read a file. */
static const char *const reads[] = {"q", "query", "v", "verify", "ri", "extract", "dc", "rrom", NULL};

static bool one_of(const char *name, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(name, *list))
			return true;
	return false;
}

/* The card's family from its PCI ID (sysfs, or a replay's header: no config access);
 * NULL if not one of ours. */
static const struct chip_desc *family_of(struct cli *c)
{
	struct pci_card pci;
	struct cx_status ignore = {0};
	const struct pci_id *row;

	if (device_trace_replaying() ? !device_trace_device(&pci.device)
				     : pci_find(c->sysfs, c->device, &pci, &ignore) != CX_OK)
		return NULL;
	return (row = pci_id_row(pci.device)) ? chip_by_family(row->family) : NULL;
}

static int read_card(const struct command *cmd, struct cli *c, struct cx_status *st)
{
	struct device d;
	struct devfs3 img;
	struct fs3_file f;
	int rc;

	memset(&img, 0, sizeof(img));
	if ((rc = device_open(&d, c->sysfs, c->device, c->clear_sem, st))) {
		device_close(&d);
		return rc;
	}
	bool q = !strcmp(cmd->name, "q") || !strcmp(cmd->name, "query");
	rc = q ? device_read_fs3_query(&d, &img, st) : device_read_fs3(&d, &img, st);
	memset(&f, 0, sizeof(f));
	/* q on a running card: what runs, as mstflint asks MGIR for it. */
	if (q && !rc && d.chip.fw_access)
		rc = chip_running_fw(&d.chip, f.running, st);
	f.have_running = q && !rc && d.chip.fw_access;
	device_close(&d);
	if (rc && rc != CX_EIMAGE) {
		devfs3_free(&img);
		return rc;
	}
	if (!img.img.fmt) {
		rc = cx_fail(st, CX_EIMAGE, "%s: the %s's flash holds no valid %s image (%s)", c->device,
			     d.chip.desc->name, d.chip.desc->format == CHIP_FW_FS4 ? "FS4" : "FS3", st->msg);
	} else {
		f.buf = img.flash;
		f.len = img.size;
		f.img = img.img;
		rc = cli_fs3_run(cmd, c, &f, rc, st);
	}
	devfs3_free(&img);
	return rc;
}

bool cli_fs3_card_dispatch(const struct command *cmd, struct cli *c, bool *handled, int *rc, struct cx_status *st)
{
	const struct chip_desc *fam = family_of(c);

	if (!fam || fam->format == CHIP_FW_FS2)
		return false;
	*handled = true;
	if (c->image && !strcmp(cmd->name, "burn"))
		*rc = cmd->run(c, st);   /* burn_card() hands the card to ops/burn_fs3.c */
	else if (c->image)
		*rc = cx_fail(st, CX_EUNSUPPORTED, "%s with a file on a %s card is not supported yet; nothing was "
			      "written", cmd->name, fam->name);
	else if (!strcmp(cmd->name, "sg"))
		*rc = cli_fs3_sg(c, st); /* the GUIDs/MACs into its DEV_INFO */
	else if (one_of(cmd->name, reads))
		*rc = read_card(cmd, c, st);
	else if (one_of(cmd->name, same))
		*rc = cmd->run(c, st);   /* restore: ops/restore_fs3.h; restore --settings: the settings, as config */
	else
		*rc = cx_fail(st, CX_EUNSUPPORTED, "%s on a %s card is not supported yet (q, v, ri, dc, rrom, "
			      "probe, backup, burn, sg, config and restore are); nothing was written", cmd->name, fam->name);
	return true;
}
