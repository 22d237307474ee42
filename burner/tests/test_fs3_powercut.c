/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_fs3_powercut.c — power cuts through a failsafe FS3/FS4 burn in memory (fs3-format.md §11.2).
 *
 * The burn is run once to learn its calls, then again from the same flash once per cut: after each
 * call (write or boot address), inside each body write at every 4 KiB unit (the unit left either
 * as it was or erased and not yet programmed), and at every byte of the two magic writes (the new
 * 16 bytes, the old dword zeroed). After each cut the flash must hold an image our reader takes
 * whole (fs3_parse, fs3_verdict on the whole flash, its start a slot; and no magic over anything
 * less than a whole image) with the card's own GUIDs,
 * and every byte of the card's device data as it was. A second burn from the cut state must then
 * finish, except where an FS4 flash holds two images (new magic written, old not yet zeroed): our
 * reader, as mstflint's, refuses to pick one. The counts are printed. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs3_card.h"
#include "ops/failsafe_fs3.h"

#define CARD_GUID 0x0002c9030022bb00ull
#define MAX_CUTS 2048

struct cut {
	int call;
	uint32_t bytes;
	bool erased;
};

static struct f3 file, card;

struct tally {
	int cuts, both, resumed, refused;
};

/* Every cut of the calls in log: see the header comment. */
static int cuts_of(const struct fc_mem *dry, struct cut *c)
{
	int n = 0;

	for (int k = 0; k < dry->nlog; k++) {
		uint32_t phys = dry->log[k].phys, len = dry->log[k].len;
		if (phys == FC_BOOT) {
			c[n++] = (struct cut){k, 0, false};
			continue;
		}
		if (len <= FS3_MAGIC_LEN) {
			for (uint32_t b = 0; b <= len; b++)
				c[n++] = (struct cut){k, b, false};
			continue;
		}
		c[n++] = (struct cut){k, 0, true};
		for (uint32_t u = (phys / FC_UNIT + 1) * FC_UNIT; u < phys + len; u += FC_UNIT) {
			c[n++] = (struct cut){k, u - phys, false};
			c[n++] = (struct cut){k, u - phys, true};
		}
		c[n++] = (struct cut){k, len, false};
		assert_true(n < MAX_CUTS - 64);
	}
	return n;
}

/* After a cut: a whole image in a slot, the card's identity, its device data untouched. */
static void judge(const uint8_t *orig, const uint8_t *flash, size_t n, bool fs4, const struct fs3_burn *b,
		  const struct cut *c, struct tally *t)
{
	struct fs3_image img;
	int nvalid;
	int64_t at = fc_bootable(flash, n, fs4, &nvalid, &img);

	if (at < 0)
		fail_msg("cut at call %d byte 0x%x%s: no bootable image", c->call, c->bytes, c->erased ? " (erased)" : "");
	/* Which of two the card boots is not ours to know: every slot with a magic must be whole. */
	int nmagic = fc_magic(flash, 0, fs4) + fc_magic(flash, fc_slot_size(fs4), fs4);
	if (nvalid != nmagic)
		fail_msg("cut at call %d byte 0x%x: a magic over an image that is not whole", c->call, c->bytes);
	assert_true(at == b->old_start || at == b->target);
	assert_true(img.dev.guids[0].uid == CARD_GUID);
	for (int k = 0; k < b->ndev; k++)
		if (memcmp(orig + b->dev[k].off, flash + b->dev[k].off, b->dev[k].len))
			fail_msg("cut at call %d byte 0x%x: device section 0x%x changed", c->call, c->bytes,
				 b->dev[k].type);
	t->both += nvalid == 2;
}

/* From the cut state, burn again: it must finish and boot the new image (FS4 with two images:
 * refused, as mstflint's reader refuses). */
static void resume(uint8_t *flash, size_t n, bool fs4, struct tally *t)
{
	struct fs3_burn b;
	struct cx_status st = {0};
	struct fc_mem m = fc_mem(flash, n);
	struct failsafe_io io = fc_io(&m);
	struct fs3_image img;
	int nvalid;

	fc_bootable(flash, n, fs4, &nvalid, &img);
	int rc = fs3_burn_prepare(file.buf, file.len, flash, n, NULL, &b, &st);
	if (fs4 && nvalid == 2) {
		assert_int_equal(rc, CX_EIMAGE);
		assert_non_null(strstr(st.msg, "more than one FS4 image"));
		t->refused++;
		return;
	}
	if (rc || failsafe_fs3_burn(&io, &b, NULL, &st))
		fail_msg("second burn after a cut: %s", st.msg);
	assert_int_equal(fc_bootable(flash, n, fs4, &nvalid, &img), b.target);
	assert_int_equal(img.info.fw_ver[2], file.s.ver[2]);
	fs3_burn_free(&b);
	t->resumed++;
}

static void campaign(bool fs4, int slot)
{
	size_t n = fc_flash_size(fs4);
	struct f3_spec s = f3_defaults(fs4);
	struct fs3_burn b;
	struct cx_status st = {0};
	struct tally t = {0};
	static struct cut cuts[MAX_CUTS];

	s.rom = s.ini = true;
	f3_build(&file, &s);
	f3_add(&file, 0x02, 0xa000, 0xf000, F3_IN_ENTRY, false); /* PCI_CODE: 15 units more to cut in */
	f3_write(&file);
	s.psid = "HP_2420110034";
	s.ver[2] = 1;
	f3_build(&card, &s);
	fc_card_devdata(&card, CARD_GUID);
	uint8_t *orig = fc_flash(&card, slot), *flash = malloc(n);
	assert_int_equal(fs3_burn_prepare(file.buf, file.len, orig, n, NULL, &b, &st), CX_OK);

	memcpy(flash, orig, n);
	struct fc_mem dry = fc_mem(flash, n);
	struct failsafe_io io = fc_io(&dry);
	assert_int_equal(failsafe_fs3_burn(&io, &b, NULL, &st), CX_OK);
	int ncut = cuts_of(&dry, cuts);
	for (int i = 0; i < ncut; i++, t.cuts++) {
		memcpy(flash, orig, n);
		struct fc_mem m = fc_mem(flash, n);
		m.cut_call = cuts[i].call;
		m.cut_bytes = cuts[i].bytes;
		m.cut_erased = cuts[i].erased;
		io = fc_io(&m);
		struct cx_status cst = {0};
		assert_int_not_equal(failsafe_fs3_burn(&io, &b, NULL, &cst), CX_OK);
		judge(orig, flash, n, fs4, &b, &cuts[i], &t);
		resume(flash, n, fs4, &t);
	}
	printf("%s slot %d -> %d: %d calls, %d power cuts, each left a bootable image with the card's device data "
	       "(%d with both images whole); %d second burns finished, %d refused (two FS4 images)\n",
	       fs4 ? "FS4" : "FS3", slot, slot ^ 1, dry.nlog, t.cuts, t.both, t.resumed, t.refused);
	assert_true(t.cuts > 60);
	assert_true(t.both > 0);
	fs3_burn_free(&b);
	free(orig);
	free(flash);
}

static void test_fs3_slot0_to_1(void **state) { (void)state; campaign(false, 0); }
static void test_fs3_slot1_to_0(void **state) { (void)state; campaign(false, 1); }
static void test_fs4_slot0_to_1(void **state) { (void)state; campaign(true, 0); }
static void test_fs4_slot1_to_0(void **state) { (void)state; campaign(true, 1); }

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fs3_slot0_to_1),
		cmocka_unit_test(test_fs3_slot1_to_0),
		cmocka_unit_test(test_fs4_slot0_to_1),
		cmocka_unit_test(test_fs4_slot1_to_0),
	};
	return cmocka_run_group_tests_name("fs3_powercut", tests, NULL, NULL);
}
