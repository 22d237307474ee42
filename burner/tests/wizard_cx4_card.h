/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wizard_cx4_card.h — test-only: the ConnectX-4 Lx the wizard's sessions meet
 * (test_wizard_cx4.c in recovery mode, test_wizard_cx4_running.c with its firmware running):
 * an HPE 640SFP28 (PSID HP_2420110034, an FS3 image from the tests' builder, 14.32.1, its own
 * device data) on the rig (wizard_rig.h), the stock MCX4121A-ACAT image (MT_2420110034,
 * 14.32.1010) in the library as stock-cx4lx.bin, the real board table (its stated HPE ->
 * Mellanox row); and the checks of a cross-flash to it, made on the card model (sim/core:
 * its flash, the image its boot ROM finds), which shares no code with cxflash. */
#ifndef CX_TEST_WIZARD_CX4_CARD_H
#define CX_TEST_WIZARD_CX4_CARD_H

#include <stdio.h>
#include <string.h>

#include "fs3_card.h"
#include "fs3_sim_card.h"
#include "wizard_checks.h"
#include "wizard_rig.h"

#define OEM_PSID "HP_2420110034"    /* library/boards.txt: HPE 640SFP28, 817753-B21 */
#define STOCK_FS3_PSID "MT_2420110034" /* its stock target, MCX4121A-ACAT */
#define BDF1 "0000:01:00.0"
#define BASE_GUID "0002c9030011aa00"  /* SC_GUID, in the card's DEV_INFO (fc_card_devdata) */
#define BASE_MAC "0002c9030011"       /* SC_GUID >> 16, the same section's MAC */

/* 128 KiB each: off the stack; one card per test. */
static struct f3 card_img, stock_img;

/* The HPE card, an older OEM image in slot 0, strapped into recovery mode (recovery) or its
 * firmware running with the ICMD fault fault from power-on (CXSIM_ICMD_OK: none; the secure
 * firmware one: CXSIM_ICMD_SECURE_FW); the stock image in the library. The flash as it was is
 * kept in *before (n bytes), the card's counters zeroed. */
static inline struct cxsim_card *hpe_card_mode(struct rig *r, bool recovery, enum cxsim_icmd_fault fault,
					       const uint8_t **before, size_t *n)
{
	struct f3_spec s = f3_defaults(false);
	struct cxsim_params p;
	char path[256];
	FILE *f;

	s.rom = true;
	f3_build(&stock_img, &s);
	s.psid = OEM_PSID;
	s.ver[2] = 1; /* 14.32.1: older than the stock 14.32.1010 */
	f3_build(&card_img, &s);
	fc_card_devdata(&card_img, SC_GUID);
	cxsim_params_default(&p, CXSIM_CX4LX);
	p.recovery = recovery;
	p.icmd_fault = fault;
	struct cxsim_card *c = add_params_card(r, &p);
	sc_install(c, &card_img, 0);
	snprintf(path, sizeof(path), "%s/stock-cx4lx.bin", r->fw);
	assert_non_null(f = fopen(path, "wb"));
	assert_int_equal(fwrite(stock_img.buf, 1, stock_img.len, f), stock_img.len);
	assert_int_equal(fclose(f), 0);
	r->o.boards = REAL_TABLE;
	*before = watch_flash(r, c, n);
	return c;
}

static inline struct cxsim_card *hpe_card(struct rig *r, const uint8_t **before, size_t *n)
{
	return hpe_card_mode(r, true, CXSIM_ICMD_OK, before, n);
}

/* The card now boots the stock image (the model's boot ROM says so, in the other slot), and
 * every device section is byte for byte as before: the same GUIDs, MACs, VSD and settings. */
static inline void expect_stock_devdata_kept(struct cxsim_card *c, const uint8_t *before, size_t n)
{
	const struct cxsim_boot *b = cold_boot(c);
	size_t m;

	assert_int_equal(b->fs, 3);
	assert_string_equal(b->psid, STOCK_FS3_PSID);
	assert_int_equal(b->fw_ver[0], 14);
	assert_int_equal(b->fw_ver[2], 1010);
	assert_int_equal(b->slot, 1);
	assert_null(sc_devdata_diff(&card_img, before, cxsim_flash(c, &m), n));
	assert_int_equal(m, n);
}

/* The one bundle on the stick holds the card's flash as it was before the burn. */
static inline void expect_backup_of(const struct rig *r, const uint8_t *before, size_t n)
{
	int equal = 0;

	assert_int_equal(bundles(r, before, n, &equal), 1);
	assert_int_equal(equal, 1);
}

#endif
