/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_fs3_burn.c — a failsafe FS3/FS4 burn against a flash in memory (fs3-format.md §11):
 * slot 0 to 1 and back for both formats, the card's device data (GUIDs, MACs, VSD, NV data,
 * VPD) byte for byte the same after, across a PSID change; the file's own device sections
 * never written; and each refusal (too big, wrong format, device data missing or damaged,
 * HW ID, an inconsistent device entry) writing nothing. The power cuts: test_fs3_powercut.c. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs3_burn_check.h"
#include "fs3_card.h"
#include "ops/failsafe_fs3.h"

#define CARD_GUID 0x0002c9030011aa00ull

static struct f3 file, card;

static void make(bool fs4, const char *card_psid)
{
	struct f3_spec s = f3_defaults(fs4);

	s.rom = true;
	s.ini = true;
	f3_build(&file, &s);
	s.psid = card_psid;
	s.ver[2] = 1; /* an older firmware on the card */
	f3_build(&card, &s);
	fc_card_devdata(&card, CARD_GUID);
}

static const struct fs3_card_id *id_of(bool fs4)
{
	static const struct fs3_card_id cx4lx = {0x20b, 0}, cx5 = {0x20d, 0};
	return fs4 ? &cx5 : &cx4lx;
}

/* Prepare and burn; on a refusal nothing may have been written. */
static int burn(uint8_t *flash, bool fs4, const struct fs3_card_id *id, struct fs3_burn *b, struct fc_mem *m,
		struct cx_status *st)
{
	size_t n = fc_flash_size(fs4);
	uint8_t *before = malloc(n);
	struct failsafe_io io = fc_io(m);
	int rc;

	memcpy(before, flash, n);
	*m = fc_mem(flash, n);
	rc = fs3_burn_prepare(file.buf, file.len, flash, n, id, b, st);
	if (!rc)
		rc = failsafe_fs3_burn(&io, b, NULL, st);
	else
		assert_memory_equal(before, flash, n);
	if (rc)
		assert_int_equal(m->calls, 0);
	free(before);
	return rc;
}

/* Every device section of the card is where it was, byte for byte; so is the FS4 DTOC. */
static void device_data_unchanged(const uint8_t *before, const uint8_t *after, const struct fs3_burn *b)
{
	assert_true(b->ndev >= (b->fmt == FMT_FS4 ? 6 : 4));
	for (int k = 0; k < b->ndev; k++)
		assert_memory_equal(before + b->dev[k].off, after + b->dev[k].off, b->dev[k].len);
}

static void roundtrip(bool fs4, int slot)
{
	size_t n = fc_flash_size(fs4);
	uint32_t s = fc_slot_size(fs4), old = (uint32_t)slot * s, target = old ^ s;
	struct fs3_burn b;
	struct fc_mem m;
	struct cx_status st = {0};
	struct fs3_image img;
	int nvalid;

	make(fs4, "HP_2420110034");
	uint8_t *flash = fc_flash(&card, slot), *before = malloc(n);
	memcpy(before, flash, n);
	assert_int_equal(fc_bootable(flash, n, fs4, &nvalid, &img), old);
	int rc = burn(flash, fs4, id_of(fs4), &b, &m, &st);
	if (rc)
		fail_msg("%s", st.msg);
	assert_int_equal(b.target, target);
	assert_int_equal(b.old_start, old);
	assert_true(b.psid_change);
	assert_int_equal(b.replaced, fs4 ? 0 : 4); /* MFG_INFO, DEV_INFO, NV_DATA, VPD_R0 */
	assert_int_equal(m.boot, target);
	/* Written: the extents in the target slot, and the old magic's first dword, nothing else. */
	assert_memory_equal(flash + old, "\0\0\0\0", 4);
	for (int i = 0; i < b.next; i++)
		assert_memory_equal(flash + target + b.ext[i].off, b.slot + b.ext[i].off, b.ext[i].len);
	for (size_t i = 0; i < n; i++)
		if (flash[i] != before[i] && !(i >= target && i < target + b.len) && !(i >= old && i < old + 4))
			fail_msg("byte 0x%zx changed outside the target slot", i);
	device_data_unchanged(before, flash, &b);
	assert_int_equal(fs3_burn_check(&b, flash, n, &st), CX_OK);
	flash[target + b.ext[b.next - 1].off] ^= 1;
	assert_int_equal(fs3_burn_check(&b, flash, n, &st), CX_EFLASH);
	flash[target + b.ext[b.next - 1].off] ^= 1;
	/* The card boots the new firmware with its own identity. */
	assert_int_equal(fc_bootable(flash, n, fs4, &nvalid, &img), target);
	assert_int_equal(nvalid, 1);
	assert_string_equal(img.info.psid, file.s.psid);
	assert_string_equal(img.mfg.psid, "HP_2420110034");
	assert_true(img.dev.guids[0].uid == CARD_GUID);
	assert_true(img.dev.macs[0].uid == (CARD_GUID >> 16));
	assert_string_equal(img.dev.vsd, "card vsd");
	assert_int_equal(img.info.fw_ver[2], file.s.ver[2]);
	fs3_burn_free(&b);
	free(before);
	free(flash);
}

static void test_fs3_slot0_to_1(void **state) { (void)state; roundtrip(false, 0); }
static void test_fs3_slot1_to_0(void **state) { (void)state; roundtrip(false, 1); }
static void test_fs4_slot0_to_1(void **state) { (void)state; roundtrip(true, 0); }
static void test_fs4_slot1_to_0(void **state) { (void)state; roundtrip(true, 1); }

/* FS3: the new ITOC lists the card's device sections where the card has them, not where the
 * file had its own: the card's NV_DATA moved, and the file's device bytes written nowhere. */
static void test_fs3_itoc_takes_the_cards_entries(void **state)
{
	(void)state;
	size_t n = fc_flash_size(false);
	struct fs3_burn b;
	struct fc_mem m;
	struct cx_status st = {0};
	struct fs3_image img;
	int nvalid;

	make(false, "MT_2420110034");
	fc_move(&card, 0xe6, 0x1c000);
	uint8_t *flash = fc_flash(&card, 1);
	assert_int_equal(burn(flash, false, NULL, &b, &m, &st), CX_OK);
	assert_false(b.psid_change);
	assert_int_equal(fc_bootable(flash, n, false, &nvalid, &img), 0);
	bool nv = false;
	for (int i = 0; i < img.nitoc; i++)
		if (img.entries[i].type == 0xe6)
			nv = img.entries[i].flash_addr == 0x1c000 && img.entries[i].device_data;
	assert_true(nv);
	/* The file's DEV_INFO (its GUID) is nowhere on the flash. */
	for (size_t i = 0; i + 0x200 <= n; i += 0x1000)
		assert_true(memcmp(flash + i, file.buf + 0x1b000, 0x200) != 0);
	fs3_burn_free(&b);
	free(flash);
}

static void refused(bool fs4, int slot, uint8_t *flash, const struct fs3_card_id *id, int code, const char *words)
{
	struct fs3_burn b;
	struct fc_mem m;
	struct cx_status st = {0};

	(void)slot;
	assert_int_equal(burn(flash, fs4, id, &b, &m, &st), code);
	if (!strstr(st.msg, words))
		fail_msg("\"%s\" lacks \"%s\"", st.msg, words);
	assert_null(b.slot);
	free(flash);
}

static void test_refuses_too_big(void **state)
{
	(void)state;
	/* FS3: the card's NV_DATA low in slot 0's span; the new image would run over it. */
	make(false, "MT_2420110034");
	fc_move(&card, 0xe6, 0x7020);
	refused(false, 1, fc_flash(&card, 1), NULL, CX_EMISMATCH, "Size of image data (0x");
	/* FS4 has no such check (CheckFs4ImgSize looks at the slot); ours catches it. */
	make(true, "MT_0000000008");
	fc_move(&card, 0xe6, 0x7020);
	refused(true, 1, fc_flash(&card, 1), NULL, CX_EMISMATCH, "overwrite the card's device section NV_DATA");
}

static void test_refuses_wrong_format(void **state)
{
	(void)state;
	make(true, "MT_0000000008");
	struct f3_spec s = f3_defaults(false);
	f3_build(&card, &s); /* an FS3 card, an FS4 file */
	refused(false, 0, fc_flash(&card, 0), NULL, CX_EMISMATCH, "FW image type is not compatible with device (FS3)");
}

static void test_refuses_hw_id(void **state)
{
	(void)state;
	static const struct fs3_card_id cx4 = {0x209, 0}, cx4lx_b0 = {0x20b, 1};
	make(false, "MT_2420110034");
	refused(false, 0, fc_flash(&card, 0), &cx4, CX_EMISMATCH, "Device/Image mismatch");
	refused(false, 0, fc_flash(&card, 0), &cx4lx_b0, CX_EMISMATCH, "Device/Image mismatch");
}

static void test_refuses_missing_device_data(void **state)
{
	(void)state;
	size_t n = fc_flash_size(true);
	uint8_t *f;

	/* FS3: the card's DEV_INFO damaged (one byte of its VSD). */
	make(false, "MT_2420110034");
	f = fc_flash(&card, 1);
	f[0x1b000 + 0x70] ^= 1;
	refused(false, 1, f, NULL, CX_EIMAGE, "device data is damaged");
	/* FS4: the DTOC erased: no device data at all. */
	make(true, "MT_0000000008");
	f = fc_flash(&card, 0);
	memset(f + n - 0x1000, 0xff, 0x1000);
	refused(true, 0, f, NULL, CX_EIMAGE, "device data is missing");
	/* A blank flash. */
	f = fc_flash(&card, 0);
	memset(f, 0xff, n);
	refused(true, 0, f, NULL, CX_EIMAGE, "separate step");
}

static void test_refuses_inconsistent_entry(void **state)
{
	(void)state;
	make(false, "MT_2420110034");
	for (int i = 0; i < card.n; i++)
		if (card.ents[i].type == 0xe1)
			card.ents[i].crc = F3_NONE;
	f3_write(&card);
	refused(false, 0, fc_flash(&card, 0), NULL, CX_EMISMATCH,
		"An inconsistency was found in DEV_INFO section attributes. no_crc ITOC attribute differs");
}

/* FS3: a device section in the file's ITOC that the card lacks: mstflint keeps the file's entry,
 * and the new image would not verify; refused. */
static void test_refuses_unmatched_device_entry(void **state)
{
	(void)state;
	make(false, "MT_2420110034");
	assert_int_equal(card.ents[card.n - 1].type, 0xe3);
	card.n--; /* no VPD_R0 */
	f3_write(&card);
	refused(false, 0, fc_flash(&card, 0), NULL, CX_EMISMATCH, "device section the card lacks (VPD_R0");
}

/* FS4: a file of a newer flash layout than the card's DTOC would have mstflint move the device
 * sections first (AlignDeviceSections); refused. */
static void test_refuses_device_realignment(void **state)
{
	(void)state;
	make(true, "MT_0000000008");
	file.buf[F4_ITOC + 16] = 1; /* flash_layout_version 1, the card's DTOC 0 */
	f3_put32(file.buf + F4_ITOC + 28, f3_crc(file.buf + F4_ITOC, 28));
	refused(true, 0, fc_flash(&card, 0), NULL, CX_EUNSUPPORTED, "AlignDeviceSections");
}

/* The writer's own guard: a plan changed to reach the device data writes nothing. */
static void test_writer_refuses_device_data(void **state)
{
	(void)state;
	size_t n = fc_flash_size(false);
	struct fs3_burn b;
	struct fc_mem m;
	struct cx_status st = {0};

	make(false, "MT_2420110034");
	uint8_t *flash = fc_flash(&card, 1);
	m = fc_mem(flash, n);
	struct failsafe_io io = fc_io(&m);
	assert_int_equal(fs3_burn_prepare(file.buf, file.len, flash, n, NULL, &b, &st), CX_OK);
	b.ext[b.next - 1].off = 0x1a000 - 0x100; /* target is slot 0: onto MFG_INFO */
	b.ext[b.next - 1].len = 0x200;
	b.len = 0x1a100;
	uint8_t *big = realloc(b.slot, b.len);
	assert_non_null(big);
	b.slot = big;
	assert_int_equal(failsafe_fs3_burn(&io, &b, NULL, &st), CX_EFLASH);
	assert_true(m.nlog < b.next);
	for (int i = 0; i < m.nlog; i++)
		assert_true(m.log[i].phys + m.log[i].len <= 0x1a000);
	fs3_burn_free(&b);
	free(flash);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fs3_slot0_to_1),
		cmocka_unit_test(test_fs3_slot1_to_0),
		cmocka_unit_test(test_fs4_slot0_to_1),
		cmocka_unit_test(test_fs4_slot1_to_0),
		cmocka_unit_test(test_fs3_itoc_takes_the_cards_entries),
		cmocka_unit_test(test_refuses_too_big),
		cmocka_unit_test(test_refuses_wrong_format),
		cmocka_unit_test(test_refuses_hw_id),
		cmocka_unit_test(test_refuses_missing_device_data),
		cmocka_unit_test(test_refuses_inconsistent_entry),
		cmocka_unit_test(test_refuses_unmatched_device_entry),
		cmocka_unit_test(test_refuses_device_realignment),
		cmocka_unit_test(test_writer_refuses_device_data),
	};
	return cmocka_run_group_tests_name("fs3_burn", tests, NULL, NULL);
}
