/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_setid_card.c — sg and sv on a card (ops/setid.h) against the card model in process:
 * failsafe re-burns in both slot directions on a CX3 (W25Q16) and a CX3 Pro (M25P16) that
 * boot the new identity with everything else unchanged; blank GUIDs programmed in place with
 * no erase, or re-burned when a CRC would need one; refusals that write nothing. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image/patch.h"
#include "ops/setid.h"
#include "card_fixture.h"
#include "mkimage.h"

#define OLD_GUID 0x0002c90300c0ffe0ull
#define OLD_MAC 0x0002c9c0ffe0ull
#define NEW_GUID 0x0002c90300abc120ull
#define NEW_MAC 0x0002c9abc120ull
#define IMG "--ddr 3 --fw 2.40.7000 --psid MT_1090120019"

/* A card with an image made by mkfs2 from opts, installed as a dump in slot 'slot'. The
 * other slot holds an older image whose signature a previous burn cleared, so a re-burn
 * has to erase its way in. */
static struct cxsim_card *card(enum cxsim_chip chip, const char *part, const char *opts, int slot)
{
	char older[100];

	snprintf(older, sizeof(older), "--chip %s --ddr 2 --fw 2.10.100 --seed 9", chip == CXSIM_CX3 ? "cx3" : "cx3pro");
	struct cxsim_card *c =
		card_new(&(struct card_spec){.chip = chip, .part = part, .image = opts, .slot = slot, .older = older});

	assert_true(cxsim_boot_info(c)->booted);
	assert_int_equal(cxsim_boot_info(c)->slot, slot);
	return c;
}

struct backup_spy {
	int calls;
	uint64_t erases_then, programmed_then; /* the model's counters when it ran */
	struct cxsim_card *c;
	int rc;
};

static int spy(void *ctx, struct cx_status *st)
{
	struct backup_spy *b = ctx;
	b->calls++;
	b->erases_then = cxsim_counters(b->c)->erases;
	b->programmed_then = cxsim_counters(b->c)->bytes_programmed;
	return b->rc ? cx_fail(st, b->rc, "backup failed (test)") : CX_OK;
}

enum what { SG, SV };

struct change {
	enum what what;
	uint64_t guid, mac;    /* SG: the new bases; 0 = only MACs / only GUIDs */
	const char *vsd;       /* SV */
};

static int patch(uint8_t *buf, const struct fs2_image *img, const struct change *ch, struct cx_status *st)
{
	struct guid_request r = {0};

	if (ch->what == SV)
		return patch_vsd(buf, img, ch->vsd, st);
	if ((r.have_guids = ch->guid != 0))
		patch_expand_guid(ch->guid, r.guid);
	if ((r.have_macs = ch->mac != 0))
		patch_expand_mac(ch->mac, r.mac);
	return patch_guids(buf, img, &r, st);
}

/* What cxflash sg/sv -d does below the CLI: read, patch, write. */
static int set_id(struct cxsim_card *c, const struct change *ch, struct setid_opts *o, struct setid_result *r,
		  struct cx_status *st)
{
	struct device d;
	struct dev_image cur;
	uint8_t *want = NULL;

	card_open(&d, c);
	int rc = setid_read(&d, &cur, st);
	if (!rc) {
		want = malloc(cur.len);
		assert_non_null(want);
		memcpy(want, cur.buf, cur.len);
		rc = patch(want, &cur.img, ch, st);
	}
	if (!rc)
		rc = setid_write(&d, &cur, want, o, r, st);
	device_close(&d);
	devimage_free(&cur);
	free(want);
	return rc;
}

/* The boot ROM's view of everything but the identity. */
struct boot_rest {
	uint16_t fw_ver[3];
	char psid[17];
	uint16_t dev_type;
};

static struct boot_rest rest_of(const struct cxsim_boot *b)
{
	struct boot_rest r;
	memcpy(r.fw_ver, b->fw_ver, sizeof(r.fw_ver));
	memcpy(r.psid, b->psid, sizeof(r.psid));
	r.dev_type = b->dev_type;
	return r;
}

static void failsafe_case(enum cxsim_chip chip, const char *part, int slot, const struct change *ch)
{
	char opts[300];
	snprintf(opts, sizeof(opts), "--chip %s " IMG " --guid %016llx --mac %012llx --vsd OLD-VSD",
		 chip == CXSIM_CX3 ? "cx3" : "cx3pro", (unsigned long long)OLD_GUID, (unsigned long long)OLD_MAC);
	struct cxsim_card *c = card(chip, part, opts, slot);
	struct boot_rest before = rest_of(cxsim_boot_info(c));
	struct backup_spy b = {.c = c};
	struct setid_opts o = {.hooks.before_write = spy, .hooks.before_ctx = &b};
	struct setid_result r;
	struct cx_status st = {0};

	cxsim_counters_reset(c);
	assert_int_equal(set_id(c, ch, &o, &r, &st), CX_OK);
	assert_false(r.in_place);
	assert_int_equal(r.start, slot ? 0 : 0x80000);
	assert_true(r.bytes_erased > 0);
	assert_int_equal(b.calls, 1);
	assert_int_equal(b.erases_then, 0);        /* the backup ran before the first write */
	assert_int_equal(b.programmed_then, 0);
	assert_int_equal(cxsim_counters(c)->gw_without_sem, 0);

	cxsim_power_cycle(c);
	const struct cxsim_boot *a = cxsim_boot_info(c);
	struct boot_rest after = rest_of(a);
	assert_true(a->booted);
	assert_int_equal(a->slot, 1 - slot);
	assert_int_equal(a->nvalid, 1);
	assert_memory_equal(&before, &after, sizeof(before)); /* FW, PSID, device: unchanged */
	assert_string_equal(a->psid, "MT_1090120019");
	if (ch->what == SG) {
		assert_int_equal(a->guids[0], ch->guid ? ch->guid : OLD_GUID);
		assert_int_equal(a->guids[3], (ch->guid ? ch->guid : OLD_GUID) + 3);
		assert_int_equal(a->macs[0], ch->mac ? ch->mac : OLD_MAC);
		assert_int_equal(a->macs[1], (ch->mac ? ch->mac : OLD_MAC) + 1);
		assert_string_equal(a->vsd, "OLD-VSD");
	} else {
		assert_string_equal(a->vsd, ch->vsd);
		assert_int_equal(a->guids[0], OLD_GUID);
		assert_int_equal(a->macs[1], OLD_MAC + 1);
	}

	/* The same values again: nothing written, no backup. */
	cxsim_counters_reset(c);
	b.calls = 0;
	assert_int_equal(set_id(c, ch, &o, &r, &st), CX_OK);
	assert_true(r.nothing_to_do);
	assert_int_equal(b.calls, 0);
	assert_int_equal(cxsim_counters(c)->erases, 0);
	assert_int_equal(cxsim_counters(c)->bytes_programmed, 0);
	cxsim_free(c);
}

static void test_sg_cx3_w25q_slot0_to_1(void **state)
{
	(void)state;
	struct change ch = {SG, NEW_GUID, NEW_MAC, NULL};
	failsafe_case(CXSIM_CX3, "W25Q16", 0, &ch);
}

static void test_sg_cx3pro_m25p_slot1_to_0_macs_only(void **state)
{
	(void)state;
	struct change ch = {SG, 0, NEW_MAC, NULL};
	failsafe_case(CXSIM_CX3PRO, "M25P16", 1, &ch);
}

static void test_sg_cx3pro_m25p_slot0_to_1(void **state)
{
	(void)state;
	struct change ch = {SG, NEW_GUID, NEW_MAC, NULL};
	failsafe_case(CXSIM_CX3PRO, "M25P16", 0, &ch);
}

static void test_sv_cx3_w25q_slot1_to_0(void **state)
{
	(void)state;
	struct change ch = {SV, 0, 0, "NEW VSD, set by sv"};
	failsafe_case(CXSIM_CX3, "W25Q16", 1, &ch);
}

static void test_sv_cx3pro_m25p_slot0_to_1(void **state)
{
	(void)state;
	struct change ch = {SV, 0, 0, ""};
	failsafe_case(CXSIM_CX3PRO, "M25P16", 0, &ch);
}

/* Blank GUIDs: 0xFF becomes the values in place, no erase, the slot stays. */
static void test_sg_blank_guids_in_place(void **state)
{
	(void)state;
	const char *parts[] = {"W25Q16", "M25P16"};
	for (int i = 0; i < 2; i++) {
		struct cxsim_card *c = card(i ? CXSIM_CX3PRO : CXSIM_CX3, parts[i],
					    i ? "--chip cx3pro " IMG " --blank-guids" : "--chip cx3 " IMG " --blank-guids", i);
		assert_int_equal(cxsim_boot_info(c)->guids[0], UINT64_MAX);
		struct boot_rest before = rest_of(cxsim_boot_info(c));
		size_t fsize;
		const uint8_t *flash = cxsim_flash(c, &fsize);
		uint8_t *old = malloc(fsize);
		assert_non_null(old);
		memcpy(old, flash, fsize);
		struct backup_spy b = {.c = c};
		struct setid_opts o = {.hooks.before_write = spy, .hooks.before_ctx = &b, .in_place = true};
		struct setid_result r;
		struct cx_status st = {0};
		struct change ch = {SG, NEW_GUID, NEW_MAC, NULL};

		/* A dry run decides the same and writes nothing. */
		o.dry_run = true;
		cxsim_counters_reset(c);
		assert_int_equal(set_id(c, &ch, &o, &r, &st), CX_OK);
		assert_true(r.in_place);
		assert_int_equal(b.calls, 0);
		assert_int_equal(cxsim_counters(c)->bytes_programmed, 0);

		o.dry_run = false;
		cxsim_counters_reset(c);
		assert_int_equal(set_id(c, &ch, &o, &r, &st), CX_OK);
		assert_true(r.in_place);
		assert_int_equal(r.start, (uint32_t)i * 0x80000);
		assert_int_equal(b.calls, 1);
		assert_int_equal(cxsim_counters(c)->erases, 0);
		assert_int_equal(cxsim_counters(c)->bytes_erased, 0);
		assert_true(cxsim_counters(c)->bytes_programmed > 0);
		assert_true(cxsim_counters(c)->bytes_programmed <= 512); /* the GUID section and 0x20 only */
		/* Only bits 1 -> 0, and only inside the running slot's first chunk. */
		const uint8_t *now = cxsim_flash(c, &fsize);
		size_t changed = 0;
		for (size_t a = 0; a < fsize; a++) {
			assert_int_equal(now[a] & old[a], now[a]);
			if (now[a] != old[a]) {
				assert_true(a >= (size_t)i * 0x80000 && a < (size_t)i * 0x80000 + 0x80000);
				changed++;
			}
		}
		assert_true(changed > 0);
		free(old);

		cxsim_power_cycle(c);
		const struct cxsim_boot *a = cxsim_boot_info(c);
		struct boot_rest after = rest_of(a);
		assert_true(a->booted);
		assert_int_equal(a->slot, i);
		assert_memory_equal(&before, &after, sizeof(before));
		assert_int_equal(a->guids[0], NEW_GUID);
		assert_int_equal(a->guids[2], NEW_GUID + 2);
		assert_int_equal(a->macs[1], NEW_MAC + 1);

		/* sg on it again is an ordinary failsafe re-burn now. */
		ch.guid = OLD_GUID;
		ch.mac = OLD_MAC;
		assert_int_equal(set_id(c, &ch, &o, &r, &st), CX_OK);
		assert_false(r.in_place);
		cxsim_power_cycle(c);
		assert_int_equal(cxsim_boot_info(c)->guids[0], OLD_GUID);
		assert_int_equal(cxsim_boot_info(c)->slot, 1 - i);
		cxsim_free(c);
	}
}

/* Without --in-place, blank GUIDs go through the failsafe re-burn like any others: the
 * in-place write is not failsafe (test_powercut.c), so it is only done when asked. */
static void test_sg_blank_guids_failsafe_by_default(void **state)
{
	(void)state;
	struct cxsim_card *c = card(CXSIM_CX3, "W25Q16", "--chip cx3 " IMG " --blank-guids", 0);
	struct setid_opts o = {0};
	struct setid_result r;
	struct cx_status st = {0};
	struct change ch = {SG, NEW_GUID, NEW_MAC, NULL};

	cxsim_counters_reset(c);
	assert_int_equal(set_id(c, &ch, &o, &r, &st), CX_OK);
	assert_false(r.in_place);
	assert_true(cxsim_counters(c)->bytes_programmed > 4096); /* a whole image, not a GUID section */
	cxsim_power_cycle(c);
	assert_int_equal(cxsim_boot_info(c)->guids[0], NEW_GUID);
	assert_int_not_equal(cxsim_boot_info(c)->slot, 0);
	cxsim_free(c);
}

/* Blank GUIDs under a real full-image CRC (the boot ROM takes either, bootrom.h): the new
 * CRC needs bits 0 -> 1 there, so no in-place write; a failsafe re-burn instead. */
static void test_sg_blank_guids_with_a_crc_that_needs_an_erase(void **state)
{
	(void)state;
	struct cxsim_card *c = card(CXSIM_CX3, "W25Q16", "--chip cx3 " IMG " --blank-guids", 0);
	size_t len, fsize;
	uint8_t *img = mkimage("--chip cx3 " IMG " --blank-guids", &len);
	uint8_t *flash = cxsim_flash(c, &fsize);
	uint16_t crc = fs2_full_crc(img, len);
	flash[0x22] = (uint8_t)(crc >> 8);
	flash[0x23] = (uint8_t)crc;
	cxsim_flash_changed(c);
	cxsim_power_cycle(c);
	assert_true(cxsim_boot_info(c)->booted);

	/* The premise: the patched CRC is not reachable by programming alone. */
	struct change ch = {SG, NEW_GUID, NEW_MAC, NULL};
	struct fs2_image *pi = malloc(sizeof(*pi));
	struct cx_status st = {0};
	assert_non_null(pi);
	memcpy(img + 0x22, flash + 0x22, 2);
	assert_int_equal(fs2_parse(img, len, pi, &st), CX_OK);
	assert_int_equal(patch(img, pi, &ch, &st), CX_OK);
	uint16_t patched = (uint16_t)(img[0x22] << 8 | img[0x23]);
	assert_int_not_equal(patched & crc, patched);
	free(pi);
	free(img);

	struct setid_opts o = {0};
	struct setid_result r;
	cxsim_counters_reset(c);
	assert_int_equal(set_id(c, &ch, &o, &r, &st), CX_OK);
	assert_false(r.in_place);
	assert_int_equal(r.start, 0x80000);
	assert_true(cxsim_counters(c)->erases > 0);
	cxsim_power_cycle(c);
	assert_int_equal(cxsim_boot_info(c)->slot, 1);
	assert_int_equal(cxsim_boot_info(c)->guids[0], NEW_GUID);
	assert_int_equal(cxsim_boot_info(c)->macs[0], NEW_MAC);
	cxsim_free(c);
}

static void assert_untouched(struct cxsim_card *c)
{
	assert_int_equal(cxsim_counters(c)->erases, 0);
	assert_int_equal(cxsim_counters(c)->bytes_programmed, 0);
}

static void test_refusals_write_nothing(void **state)
{
	(void)state;
	struct setid_opts o = {0};
	struct setid_result r;
	struct cx_status st = {0};

	/* Recovery mode: no identity to change; burn is the way. */
	struct cxsim_params p;
	cxsim_params_default(&p, CXSIM_CX3);
	struct cxsim_card *c = cxsim_new(&p);
	assert_int_equal(cxsim_pci_device_now(c), 0x01f6); /* HW ID + 1: recovery */
	assert_false(cxsim_boot_info(c)->booted);
	struct change ch = {SG, NEW_GUID, NEW_MAC, NULL};
	cxsim_counters_reset(c);
	assert_int_equal(set_id(c, &ch, &o, &r, &st), CX_EUNSUPPORTED);
	assert_non_null(strstr(st.msg, "recovery"));
	assert_non_null(strstr(st.msg, "burn"));
	assert_non_null(strstr(st.msg, "--guid"));
	assert_untouched(c);
	cxsim_free(c);

	/* sv on blank GUIDs: they come first. */
	c = card(CXSIM_CX3, "W25Q16", "--chip cx3 " IMG " --blank-guids", 0);
	struct change sv = {SV, 0, 0, "V"};
	cx_status_clear(&st);
	cxsim_counters_reset(c);
	assert_int_equal(set_id(c, &sv, &o, &r, &st), CX_EBLANK);
	assert_non_null(strstr(st.msg, "sg"));
	/* sg on blank GUIDs with only one group would leave the other blank. */
	struct change half = {SG, NEW_GUID, 0, NULL};
	cx_status_clear(&st);
	assert_int_equal(set_id(c, &half, &o, &r, &st), CX_EVALUE);
	assert_untouched(c);
	cxsim_free(c);

	/* A new image that changes more than the identity, or a backup that fails. */
	c = card(CXSIM_CX3, "W25Q16", "--chip cx3 " IMG " --guid 0002c90300c0ffe0 --mac 0002c9c0ffe0", 0);
	struct device d;
	struct dev_image cur;
	card_open(&d, c);
	cx_status_clear(&st);
	assert_int_equal(setid_read(&d, &cur, &st), CX_OK);
	uint8_t *want = malloc(cur.len);
	assert_non_null(want);
	memcpy(want, cur.buf, cur.len);
	assert_int_equal(patch(want, &cur.img, &sv, &st), CX_OK);
	want[cur.img.items[cur.img.info_sect].data_off] ^= 1; /* a tag header, not the VSD */
	struct fs2_image *pi = malloc(sizeof(*pi));
	assert_non_null(pi);
	assert_int_equal(fs2_parse(want, cur.len, pi, &st), CX_OK);
	patch_section_crc(want, &pi->items[pi->info_sect]);
	patch_full_crc(want, pi);
	free(pi);
	cxsim_counters_reset(c);
	assert_int_equal(setid_write(&d, &cur, want, &o, &r, &st), CX_EVALUE);
	assert_non_null(strstr(st.msg, "outside"));
	assert_untouched(c);

	memcpy(want, cur.buf, cur.len);
	assert_int_equal(patch(want, &cur.img, &sv, &st), CX_OK);
	struct backup_spy b = {.c = c, .rc = CX_EIO};
	o.hooks.before_write = spy;
	o.hooks.before_ctx = &b;
	cx_status_clear(&st);
	assert_int_equal(setid_write(&d, &cur, want, &o, &r, &st), CX_EIO);
	assert_int_equal(b.calls, 1);
	assert_untouched(c);

	/* A dry run of a re-burn writes nothing and calls no backup. */
	b.calls = 0;
	o.dry_run = true;
	cx_status_clear(&st);
	assert_int_equal(setid_write(&d, &cur, want, &o, &r, &st), CX_OK);
	assert_false(r.in_place);
	assert_int_equal(r.start, 0x80000);
	assert_int_equal(b.calls, 0);
	assert_untouched(c);
	device_close(&d);
	devimage_free(&cur);
	free(want);
	cxsim_power_cycle(c);
	assert_int_equal(cxsim_boot_info(c)->slot, 0);
	assert_string_not_equal(cxsim_boot_info(c)->vsd, "V");
	cxsim_free(c);
}

/* A write-protected part is refused before the backup (which would read the whole flash
 * for nothing), in place and by the re-burn alike, and nothing is written. */
static void test_write_protected_refused_before_backup(void **state)
{
	(void)state;
	const char *opts[] = {"--chip cx3 " IMG " --blank-guids",
			      "--chip cx3 " IMG " --guid 0002c90300c0ffe0 --mac 0002c9c0ffe0"};
	for (int i = 0; i < 2; i++) {
		struct cxsim_card *c = card(CXSIM_CX3, "W25Q16", opts[i], 0);
		cxsim_params_mut(c)->write_protect = true;
		cxsim_power_cycle(c);
		struct backup_spy b = {.c = c};
		struct setid_opts o = {.hooks.before_write = spy, .hooks.before_ctx = &b};
		struct setid_result r;
		struct cx_status st = {0};
		struct change ch = {SG, NEW_GUID, NEW_MAC, NULL};
		cxsim_counters_reset(c);
		assert_int_equal(set_id(c, &ch, &o, &r, &st), CX_EPROTECTED);
		assert_int_equal(b.calls, 0);
		assert_untouched(c);
		o.dry_run = true; /* a dry run says so too */
		cx_status_clear(&st);
		assert_int_equal(set_id(c, &ch, &o, &r, &st), CX_EPROTECTED);
		cxsim_free(c);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sg_cx3_w25q_slot0_to_1),
		cmocka_unit_test(test_sg_cx3pro_m25p_slot1_to_0_macs_only),
		cmocka_unit_test(test_sg_cx3pro_m25p_slot0_to_1),
		cmocka_unit_test(test_sv_cx3_w25q_slot1_to_0),
		cmocka_unit_test(test_sv_cx3pro_m25p_slot0_to_1),
		cmocka_unit_test(test_sg_blank_guids_in_place),
		cmocka_unit_test(test_sg_blank_guids_failsafe_by_default),
		cmocka_unit_test(test_sg_blank_guids_with_a_crc_that_needs_an_erase),
		cmocka_unit_test(test_refusals_write_nothing),
		cmocka_unit_test(test_write_protected_refused_before_backup),
	};
	return cmocka_run_group_tests_name("setid_card", tests, NULL, NULL);
}
