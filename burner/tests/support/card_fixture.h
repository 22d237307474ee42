/* SPDX-License-Identifier: GPL-2.0-or-later */
/* card_fixture.h — test-only: a simulated card in process, holding what mkfs2 makes,
 * opened as cxflash opens a card.
 *
 * A test describes the card (chip, flash part, the image in which slot, an older
 * image beside it), gets a cxsim card that has booted what its flash holds, and
 * opens it as a struct device over the model's config space (sim_cfg.h) at one
 * fixed address. The test owns the card: cxsim_free() it when done; device_close()
 * each device it opened. A setup that fails (mkfs2's dump is not the flash's size,
 * the card does not open) fails the running test through cmocka; outside a test
 * (bench_burn) it ends the process. */
#ifndef CX_TEST_CARD_FIXTURE_H
#define CX_TEST_CARD_FIXTURE_H

#include <stdbool.h>

#include "card_image.h" /* card_install(): another image on a fixture card */
#include "cxsim.h"
#include "ops/device.h"

#define CARD_BDF "0000:01:00.0" /* where every fixture card sits */

struct card_spec {
	enum cxsim_chip chip;
	const char *part;   /* flash part (sim/core/spi_parts.c); NULL: the model's default */
	const char *image;  /* mkfs2 options without --dump and --flash-size; NULL: blank flash */
	int slot;           /* the image's slot (mkfs2 --dump) */
	/* NULL, or mkfs2 options (as image) of an older image in the other slot whose
	 * signature a burn has since cleared (its first dword zeroed, as ops/failsafe.c
	 * does): a card burned before, so a failsafe write must erase its way in. */
	const char *older;
	bool write_protect; /* the flash's status register protects it (cxsim_params) */
	bool bar0_crspace;  /* BAR0 decodes crspace, as with the QEMU device (cxsim_params) */
};

/* A new card as s says; with an image it has been power-cycled, so it boots what
 * its flash holds (whether it did is for the test to check: cxsim_boot_info). */
struct cxsim_card *card_new(const struct card_spec *s);

/* Open the card at CARD_BDF as device_attach() does (bar0: device_attach_mem()
 * with the model's BAR0 to try); returns its code, st says why. */
int card_attach(struct device *d, struct cxsim_card *card, bool bar0, struct cx_status *st);

/* card_attach() through config space that must succeed. */
void card_open(struct device *d, struct cxsim_card *card);

/* The card as the kernel lists it at bdf: its device ID now (recovery mode shows another),
 * its subsystem IDs and class, kind and family from the chip table; whether the table
 * knows the device ID. */
bool card_pci(struct cxsim_card *card, const char *bdf, struct pci_card *pci);

/* card_open() with the whole view card_pci() gives at CARD_BDF (subsystem IDs, family: what
 * a backup records), as `cxflash -d` opens a listed card; it must succeed. */
void card_open_listed(struct device *d, struct cxsim_card *card);

#endif
