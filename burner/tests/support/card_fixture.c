/* SPDX-License-Identifier: GPL-2.0-or-later */
/* card_fixture.c — simulated cards set up from mkfs2 dumps and opened as devices. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "card_fixture.h"
#include "sim_cfg.h"

#define SLOT_CHUNK 0x80000u /* mkfs2's chunk size: slot s is every other 512 KiB from s * 512 KiB */
#define INVALIDATE_LEN 4    /* what a burn zeroes of an old image's signature (ops/failsafe.c) */

/* The other slot's chunks from an older image, its signature cleared. */
static void put_older(struct cxsim_card *card, const char *opts, int slot)
{
	size_t fsize, other = (size_t)(1 - slot) * SLOT_CHUNK;
	uint8_t *flash = cxsim_flash(card, &fsize), *d = card_dump(card, opts, 1 - slot);

	for (size_t a = other; a < fsize; a += 2 * SLOT_CHUNK)
		memcpy(flash + a, d + a, SLOT_CHUNK);
	memset(flash + other, 0, INVALIDATE_LEN);
	free(d);
}

struct cxsim_card *card_new(const struct card_spec *s)
{
	struct cxsim_params p;
	struct cxsim_card *c;

	cxsim_params_default(&p, s->chip);
	if (s->part)
		snprintf(p.flash_part, sizeof(p.flash_part), "%s", s->part);
	p.write_protect = s->write_protect;
	p.bar0_crspace = s->bar0_crspace;
	assert_non_null(c = cxsim_new(&p));
	if (!s->image)
		return c;
	size_t fsize;
	uint8_t *flash = cxsim_flash(c, &fsize), *d = card_dump(c, s->image, s->slot);

	memcpy(flash, d, fsize);
	free(d);
	if (s->older)
		put_older(c, s->older, s->slot);
	cxsim_flash_changed(c);
	cxsim_power_cycle(c); /* it boots what its flash now holds */
	return c;
}

int card_attach(struct device *d, struct cxsim_card *card, bool bar0, struct cx_status *st)
{
	struct cfg_dev cfg;
	struct pci_card pci = {.bdf = CARD_BDF, .device = cxsim_pci_device_now(card)};

	sim_cfg_attach(&cfg, card, pci.bdf);
	if (bar0)
		return device_attach_mem(d, cfg, sim_crmem(card), &pci, false, st);
	return device_attach(d, cfg, &pci, false, st);
}

void card_open(struct device *d, struct cxsim_card *card)
{
	struct cx_status st = {0};

	assert_int_equal(card_attach(d, card, false, &st), CX_OK);
}

bool card_pci(struct cxsim_card *card, const char *bdf, struct pci_card *pci)
{
	const struct cxsim_params *p = cxsim_get_params(card);

	memset(pci, 0, sizeof(*pci));
	snprintf(pci->bdf, sizeof(pci->bdf), "%s", bdf);
	pci->device = cxsim_pci_device_now(card);
	pci->subsys_vendor = p->subsys_vendor;
	pci->subsys_device = p->subsys_device;
	pci->class_code = cxsim_class_now(card);
	return pci_id_known(pci->device, &pci->kind, &pci->family);
}

void card_open_listed(struct device *d, struct cxsim_card *card)
{
	struct cfg_dev cfg;
	struct pci_card pci;
	struct cx_status st = {0};

	assert_true(card_pci(card, CARD_BDF, &pci));
	sim_cfg_attach(&cfg, card, pci.bdf);
	if (device_attach(d, cfg, &pci, false, &st))
		fail_msg("device_attach: %s", st.msg);
}
