/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cxflash_sim.c — cxflash's whole command line run on a simulated card in process.
 *
 *   cxflash_sim STEM CXFLASH-ARGS...
 *
 * STEM is a card `cxsim create STEM ...` made (STEM.conf, STEM.flash, STEM.nv). The card is
 * loaded as `cxsim serve` loads it (cxsim_load: powered on, booted from its flash), then
 * cli_main() runs `cxflash CXFLASH-ARGS...` on it exactly as the shipped binary does, and the
 * card is saved back into STEM (cxsim_save), so the next run finds it as a cold restart
 * leaves it. The card sits at 0000:01:00.0 (CARD_BDF), the address `cxsim serve` gives the
 * first card; exit status, stdout and stderr are cxflash's.
 *
 * Why: through cxsim's FUSE sysfs a whole-flash read through the VSEC takes minutes (each
 * config access is a system call and a FUSE round trip), so tests that need many of them
 * (tests/test_oracle_restore_fs3.py) run cxflash here, the model called in process, and hand
 * the flash file to unmodified mstflint. Only the two bottom calls of device_open() that
 * reach sysfs are replaced, at link time (-Wl,--wrap, the Makefile's rule): pci_find()
 * answers from the model's PCI IDs (card_pci) and cfg_open_sysfs() gives the model's config
 * space (sim_cfg_attach: its sleeps are model time). Everything above them, device_open()
 * included, is cxflash's own code.
 *
 * After cxflash, one line on stderr starting "cxflash_sim:" says whether the card's firmware
 * ran (so cxflash reached the flash through it, MFBA/MFBE) or it was in recovery mode, the
 * config accesses, gateway transactions, firmware flash commands and flash bytes erased and
 * programmed cxflash caused, and what
 * the model's boot ROM boots from the saved flash after a power cycle. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "card_fixture.h"
#include "cli/cli.h"
#include "dev/cfg.h"
#include "dev/pci_enum.h"
#include "sim_cfg.h"

static struct cxsim_card *card;

/* libpci's lookup of the function (dev/pci_enum.c), answered by the model. */
int __wrap_pci_find(const char *sysfs_root, const char *bdf, struct pci_card *out, struct cx_status *st);
int __wrap_pci_find(const char *sysfs_root, const char *bdf, struct pci_card *out, struct cx_status *st)
{
	(void)sysfs_root;
	if (strcmp(bdf, CARD_BDF) && strcmp(bdf, CARD_BDF + 5))
		return cx_fail(st, CX_ENODEV, "no card at %s (cxflash_sim has one, at %s)", bdf, CARD_BDF);
	if (!card_pci(card, CARD_BDF, out))
		return cx_fail(st, CX_ENODEV, "%s: device ID %04x is not one of ours", CARD_BDF, out->device);
	return CX_OK;
}

/* The sysfs config file (dev/cfg_sysfs.c), replaced by the model's config space. */
int __wrap_cfg_open_sysfs(struct cfg_dev *d, const char *sysfs_root, const char *bdf, struct cx_status *st);
int __wrap_cfg_open_sysfs(struct cfg_dev *d, const char *sysfs_root, const char *bdf, struct cx_status *st)
{
	(void)sysfs_root;
	(void)st;
	sim_cfg_attach(d, card, bdf);
	return CX_OK;
}

/* running: whether the card's firmware ran when cxflash began (cxsim_fw_running). */
static void note(bool running)
{
	const struct cxsim_counters *n = cxsim_counters(card);

	fprintf(stderr, "cxflash_sim: %s; %llu config accesses, %llu flash gateway transactions, %llu MFBA/MFBE "
		"by the firmware, %llu bytes erased, %llu bytes programmed; ", running ? "firmware running" : "recovery mode",
		(unsigned long long)(n->cfg_reads + n->cfg_writes), (unsigned long long)n->gw_cmds,
		(unsigned long long)n->fw_flash_cmds, (unsigned long long)n->bytes_erased,
		(unsigned long long)n->bytes_programmed);
	cxsim_power_cycle(card);
	const struct cxsim_boot *b = cxsim_boot_info(card);
	if (b->booted)
		fprintf(stderr, "after a power cycle the card boots slot %u: FW %u.%u.%u, PSID %s\n", b->slot,
			b->fw_ver[0], b->fw_ver[1], b->fw_ver[2], b->psid);
	else
		fprintf(stderr, "after a power cycle the card boots nothing\n");
}

int main(int argc, char **argv)
{
	char err[256];
	const char *stem = argv[1];

	if (argc < 3) {
		fprintf(stderr, "usage: cxflash_sim STEM CXFLASH-ARGS... (a card of `cxsim create STEM`)\n");
		return 2;
	}
	if (!(card = cxsim_load(stem, err, sizeof(err)))) {
		fprintf(stderr, "cxflash_sim: %s: %s\n", stem, err);
		return 2;
	}
	bool running = cxsim_fw_running(card);
	argv[1] = "cxflash";
	int rc = cli_main(argc - 1, argv + 1);
	fflush(stdout);
	if (cxsim_save(card, stem, err, sizeof(err))) {
		fprintf(stderr, "cxflash_sim: saving %s: %s\n", stem, err);
		rc = 2;
	}
	note(running);
	cxsim_free(card);
	return rc;
}
