/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_card.c — the card model against hw-access.md: config space, the window,
 * crspace registers, semaphores, the flash gateway bit by bit, power, state files. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "card_image.h" /* burner/tests/support: the tests' one image installer */
#include "cxsim.h"
#include "scratch.h"    /* burner/tests/support: the tests' one rm_rf */

/* Command words derived in hw-access.md §3.2 (the table of examples). */
#define CMD_JEDEC 0x409F2215u
#define CMD_RDSR 0x40052215u
#define CMD_WREN 0x40062004u
#define CMD_SE64 0x40D8200Cu
#define CMD_READ16 0x4003241Du
#define CMD_PP_FIRST_HOLD 0x4002243Cu
#define CMD_PP_CONT_HOLD 0x40002430u
#define CMD_PP_LAST 0x40002410u
#define FLASH_ENABLE (1u << 13)
#define CS_HOLD (1u << 5)
#define BANK1 (1u << 11)
#define BUSY (1u << 30)

static void cr_w(struct cxsim_card *c, uint32_t a, uint32_t v)
{
	cxsim_cfg_write(c, 0x58, a, 4);
	cxsim_cfg_write(c, 0x5c, v, 4);
}

static uint32_t cr_r(struct cxsim_card *c, uint32_t a)
{
	cxsim_cfg_write(c, 0x58, a, 4);
	return cxsim_cfg_read(c, 0x5c, 4);
}

static void gw(struct cxsim_card *c, uint32_t cmd, uint32_t addr, const uint32_t *data)
{
	for (int i = 0; data && i < 4; i++)
		cr_w(c, 0xf0410 + 4 * i, data[i]);
	cr_w(c, 0xf0404, addr);
	cr_w(c, 0xf0400, cmd);
}

static struct cxsim_card *card(enum cxsim_chip chip)
{
	struct cxsim_params p;

	cxsim_params_default(&p, chip);
	struct cxsim_card *c = cxsim_new(&p);
	assert_non_null(c);
	return c;
}

static void test_blank_card_is_in_recovery(void **state)
{
	static const uint16_t ids[] = {0x0191, 0x01f6, 0x01f8}; /* §1.1 livefish IDs */
	(void)state;
	for (int chip = 0; chip < 3; chip++) {
		struct cxsim_card *c = card((enum cxsim_chip)chip);
		assert_int_equal(cxsim_cfg_read(c, 0, 2), 0x15b3);
		assert_int_equal(cxsim_cfg_read(c, 2, 2), ids[chip]);
		assert_int_equal(cxsim_cfg_read(c, 8, 4) >> 8, 0x050000);
		assert_true(cr_r(c, 0x41270) > 0xfff00000u);
		assert_false(cxsim_boot_info(c)->booted);
		cxsim_free(c);
	}
}

static void test_image_boots_with_normal_id(void **state)
{
	(void)state;
	struct cxsim_card *c = card(CXSIM_CX3);
	card_install(c, "--chip cx3 --fw 2.40.7000", 1); /* a generated image (mkfs2) */
	assert_true(cxsim_boot_info(c)->booted);
	assert_int_equal(cxsim_boot_info(c)->slot, 1);
	assert_int_equal(cxsim_cfg_read(c, 2, 2), 0x1003);
	assert_int_equal(cxsim_cfg_read(c, 8, 4) >> 8, 0x028000);
	assert_int_equal(cr_r(c, 0x41270), 0);
	assert_int_equal(cr_r(c, 0x1f064), 2u << 16);
	assert_int_equal(cr_r(c, 0x1f068), 40u << 16 | 7000);
	cxsim_free(c);
}

static void test_cx2_any_pci_id_boots(void **state)
{
	(void)state;
	struct cxsim_params p;
	cxsim_params_default(&p, CXSIM_CX2);
	assert_int_equal(p.pci_device, 0x673c); /* MT26428, hw-access.md §1.1 */
	p.pci_device = 0x6750;                  /* MT26448, EN */
	struct cxsim_card *c = cxsim_new(&p);
	assert_int_equal(cxsim_cfg_read(c, 2, 2), 0x0191);
	card_install(c, "--chip cx2 --old-guids", 0);
	assert_int_equal(cxsim_cfg_read(c, 2, 2), 0x6750);
	assert_int_equal(cxsim_cfg_read(c, 8, 1), 0xB0);
	assert_int_equal(cxsim_boot_info(c)->nguids, 4);
	/* CX2 has no 0xf03a0, but the GPIO semaphore and gateway are the same, §3.11. */
	assert_int_equal(cr_r(c, 0xf03fc), 0);
	gw(c, CMD_JEDEC, 0, NULL);
	assert_int_equal(cr_r(c, 0xf0410) >> 8, 0xEF4015);
	cxsim_free(c);
}

static void test_hw_id_per_chip(void **state)
{
	(void)state;
	struct cxsim_card *c = card(CXSIM_CX2);
	assert_int_equal(cr_r(c, 0xf0014), 0x00b00190);
	cxsim_free(c);
	c = card(CXSIM_CX3);
	assert_int_equal(cr_r(c, 0xf0014), 0x000101f5);
	cxsim_free(c);
	c = card(CXSIM_CX3PRO);
	assert_int_equal(cr_r(c, 0xf0014), 0x000001f7);
	cxsim_free(c);
}

static void test_config_header(void **state)
{
	(void)state;
	struct cxsim_card *c = card(CXSIM_CX3);
	/* Capability walk: no vendor-specific capability (ID 9) anywhere, §2.4. */
	unsigned ptr = cxsim_cfg_read(c, 0x34, 1), seen = 0;
	while (ptr && seen++ < 48) {
		assert_true(ptr >= 0x40 && ptr < 0x100);
		assert_int_not_equal(cxsim_cfg_read(c, ptr, 1), 0x09);
		assert_false(ptr <= 0x5c && ptr + 4 > 0x58);
		ptr = cxsim_cfg_read(c, ptr + 1, 1);
	}
	assert_true(seen >= 2);
	/* BAR0 sizing: 1 MiB. */
	cxsim_cfg_write(c, 0x10, 0xFFFFFFFF, 4);
	assert_int_equal(cxsim_cfg_read(c, 0x10, 4) & ~0xFu, 0xFFF00000u);
	assert_int_equal(cxsim_bar0_read(c, 0xf0014), 0xFFFFFFFFu);
	cxsim_free(c);
}

static void test_window_normal_and_write_only(void **state)
{
	(void)state;
	struct cxsim_params p;
	cxsim_params_default(&p, CXSIM_CX3);
	struct cxsim_card *c = cxsim_new(&p);
	cxsim_cfg_write(c, 0x58, 0xf0014, 4);
	assert_int_equal(cxsim_cfg_read(c, 0x58, 4), 0xf0014);
	cxsim_free(c);

	p.wo_addr_window = true;
	c = cxsim_new(&p);
	cxsim_cfg_write(c, 0x58, 0xf0014, 4);
	assert_int_equal(cxsim_cfg_read(c, 0x58, 4), 0xbadacce5u);
	/* Read: address | 1, then data. */
	cxsim_cfg_write(c, 0x58, 0xf0014 | 1, 4);
	assert_int_equal(cxsim_cfg_read(c, 0x5c, 4), 0x000101f5);
	/* Write: data first, then the address runs it. */
	cxsim_cfg_write(c, 0x5c, 0x01000000, 4);
	cxsim_cfg_write(c, 0x58, 0xf0000, 4);
	cxsim_cfg_write(c, 0x58, 0xf0000 | 1, 4);
	assert_int_equal(cxsim_cfg_read(c, 0x5c, 4), 0x01000000);
	cxsim_free(c);
}

static void test_semaphores_read_to_lock(void **state)
{
	(void)state;
	struct cxsim_card *c = card(CXSIM_CX3);
	assert_int_equal(cr_r(c, 0xf03fc), 0);     /* free: this read takes it */
	assert_int_not_equal(cr_r(c, 0xf03fc), 0); /* now held */
	cr_w(c, 0xf03fc, 0);
	assert_int_equal(cr_r(c, 0xf03fc), 0);
	assert_int_equal(cr_r(c, 0xf03a0), 0);
	assert_int_not_equal(cr_r(c, 0xf03a0), 0);
	cxsim_free(c);

	/* CX2 has no 0xf03a0: unmodelled, reads 0 every time and is counted. */
	c = card(CXSIM_CX2);
	uint64_t before = cxsim_counters(c)->unmodelled;
	assert_int_equal(cr_r(c, 0xf03a0), 0);
	assert_int_equal(cr_r(c, 0xf03a0), 0);
	assert_int_equal(cxsim_counters(c)->unmodelled, before + 2);
	cxsim_free(c);

	/* Held by another agent until someone clears it. */
	struct cxsim_params p;
	cxsim_params_default(&p, CXSIM_CX3);
	p.sem_held_gpio = true;
	c = cxsim_new(&p);
	for (int i = 0; i < 5; i++)
		assert_int_not_equal(cr_r(c, 0xf03fc), 0);
	cr_w(c, 0xf03fc, 0);
	assert_int_equal(cr_r(c, 0xf03fc), 0);
	cxsim_free(c);
}

static void test_gateway_jedec_and_bits(void **state)
{
	(void)state;
	struct cxsim_card *c = card(CXSIM_CX3);
	gw(c, CMD_JEDEC, 0, NULL);
	assert_int_equal(cr_r(c, 0xf0410) >> 8, 0xEF4015); /* W25Q16 */
	assert_int_equal(cr_r(c, 0xf0400) & BUSY, 0);
	/* Without FLASH_ENABLE nothing reaches the flash: the data stay. */
	uint32_t zero[4] = {0};
	gw(c, CMD_JEDEC & ~FLASH_ENABLE, 0, zero);
	assert_int_equal(cr_r(c, 0xf0410), 0);
	/* Bank 1 has no chip. */
	gw(c, CMD_JEDEC | BANK1, 0, zero);
	assert_int_equal(cr_r(c, 0xf0410), 0xFFFFFFFFu);
	/* Written without BUSY the word is only stored. */
	uint64_t n = cxsim_counters(c)->gw_cmds;
	gw(c, CMD_JEDEC & ~BUSY, 0, zero);
	assert_int_equal(cr_r(c, 0xf0410), 0);
	assert_int_equal(cxsim_counters(c)->gw_cmds, n);
	assert_int_equal(cxsim_counters(c)->gw_by_opcode[0x9F], 3); /* all that ran, BUSY set */
	cxsim_free(c);
}

static void read16(struct cxsim_card *c, uint32_t addr, uint8_t out[16])
{
	gw(c, CMD_READ16, addr, NULL);
	for (int i = 0; i < 4; i++) {
		uint32_t d = cr_r(c, 0xf0410 + 4 * i);
		for (int k = 0; k < 4; k++)
			out[4 * i + k] = (uint8_t)(d >> (24 - 8 * k));
	}
}

static void wait_wip(struct cxsim_card *c)
{
	for (int i = 0; i < 100000; i++) {
		gw(c, CMD_RDSR, 0, NULL);
		if (!(cr_r(c, 0xf0410) >> 24 & 1))
			return;
		cxsim_advance(c, 100000);
	}
	fail_msg("WIP never cleared");
}

/* A 256-byte page as §3.8: WREN, first block with CS_HOLD, middles with CS_HOLD, last without. */
static void program_page(struct cxsim_card *c, uint32_t addr, const uint8_t *d, uint32_t hold)
{
	gw(c, CMD_WREN, 0, NULL);
	for (int b = 0; b < 16; b++) {
		uint32_t w[4];
		for (int i = 0; i < 4; i++)
			w[i] = (uint32_t)d[16 * b + 4 * i] << 24 | (uint32_t)d[16 * b + 4 * i + 1] << 16 |
			       (uint32_t)d[16 * b + 4 * i + 2] << 8 | d[16 * b + 4 * i + 3];
		uint32_t cmd = b == 0 ? CMD_PP_FIRST_HOLD : b == 15 ? CMD_PP_LAST : CMD_PP_CONT_HOLD;
		if (b != 0 && b != 15)
			cmd = (cmd & ~CS_HOLD) | hold;
		gw(c, cmd, b == 0 ? addr : 0, w);
	}
	wait_wip(c);
}

static void erase64(struct cxsim_card *c, uint32_t addr)
{
	gw(c, CMD_WREN, 0, NULL);
	gw(c, CMD_SE64, addr, NULL);
	gw(c, CMD_RDSR, 0, NULL);
	assert_int_equal(cr_r(c, 0xf0410) >> 24 & 1, 1); /* WIP right after */
	wait_wip(c);
}

static void test_chained_page_program(void **state)
{
	(void)state;
	struct cxsim_card *c = card(CXSIM_CX3);
	uint8_t page[256], got[16];
	for (int i = 0; i < 256; i++)
		page[i] = (uint8_t)(i * 7 + 3);
	erase64(c, 0x30000);
	program_page(c, 0x30100, page, CS_HOLD);
	for (int b = 0; b < 16; b++) {
		read16(c, 0x30100 + 16 * b, got);
		assert_memory_equal(got, page + 16 * b, 16);
	}
	assert_int_equal(cxsim_counters(c)->bytes_programmed, 256);

	/* Drop CS_HOLD from the middle blocks: the PP ends with the second block,
	 * and the third starts a new SPI command whose "opcode" is a data byte. */
	erase64(c, 0x30000);
	program_page(c, 0x30100, page, 0);
	read16(c, 0x30110, got);
	assert_memory_equal(got, page + 16, 16);
	read16(c, 0x30120, got);
	assert_memory_not_equal(got, page + 32, 16);
	cxsim_free(c);
}

static void test_write_protect_survives_power_cycles(void **state)
{
	(void)state;
	struct cxsim_params p;
	cxsim_params_default(&p, CXSIM_CX3);
	p.write_protect = true;
	struct cxsim_card *c = cxsim_new(&p);
	uint8_t page[256], got[16];
	memset(page, 0x5A, sizeof(page));
	gw(c, CMD_RDSR, 0, NULL);
	assert_int_not_equal(cr_r(c, 0xf0410) >> 24 & 0x1C, 0); /* BP bits set */
	program_page(c, 0x1FFF00, page, CS_HOLD);                 /* top of the array */
	read16(c, 0x1FFF00, got);
	assert_int_equal(got[0], 0xFF);                           /* silently ignored */
	cxsim_power_cycle(c);
	program_page(c, 0x1FFF00, page, CS_HOLD);
	read16(c, 0x1FFF00, got);
	assert_int_equal(got[0], 0xFF);
	/* WREN + WRSR 0 clears the (non-volatile) bits; they stay clear after a power cycle. */
	gw(c, CMD_WREN, 0, NULL);
	uint32_t sr0[4] = {0};
	gw(c, 0x40012014u, 0, sr0);
	cxsim_advance(c, 100000000);
	cxsim_power_cycle(c);
	assert_false(cxsim_get_params(c)->write_protect);
	program_page(c, 0x1FFF00, page, CS_HOLD);
	read16(c, 0x1FFF00, got);
	assert_int_equal(got[0], 0x5A);
	cxsim_free(c);
}

static void test_stuck_busy(void **state)
{
	(void)state;
	struct cxsim_params p;
	cxsim_params_default(&p, CXSIM_CX3);
	p.stuck_busy = true;
	struct cxsim_card *c = cxsim_new(&p);
	uint32_t zero[4] = {0};
	gw(c, CMD_JEDEC, 0, zero);
	for (int i = 0; i < 10; i++)
		assert_int_not_equal(cr_r(c, 0xf0400) & BUSY, 0);
	assert_int_equal(cr_r(c, 0xf0410), 0);
	cxsim_free(c);
}

static void test_power_cut_and_clock(void **state)
{
	(void)state;
	struct cxsim_params p;
	cxsim_params_default(&p, CXSIM_CX3);
	p.power_cut_after = 5;
	struct cxsim_card *c = cxsim_new(&p);
	for (int i = 0; i < 4; i++)
		assert_int_equal(cxsim_cfg_read(c, 0, 2), 0x15b3);
	assert_true(cxsim_powered(c));
	cxsim_cfg_read(c, 0, 2);
	assert_false(cxsim_powered(c));
	assert_int_equal(cxsim_cfg_read(c, 0, 4), 0xFFFFFFFFu);
	assert_int_equal(cxsim_counters(c)->cfg_reads, 5);
	assert_int_equal(cxsim_counters(c)->time_ns, 5 * CXSIM_CFG_ACCESS_NS);
	cxsim_advance(c, 12345);
	assert_int_equal(cxsim_counters(c)->time_ns, 5 * CXSIM_CFG_ACCESS_NS + 12345);
	cxsim_power_cycle(c);
	assert_true(cxsim_powered(c));
	for (int i = 0; i < 20; i++)
		assert_int_equal(cxsim_cfg_read(c, 0, 2), 0x15b3); /* the cut was one-shot */
	cxsim_free(c);
}

static void test_stuck_bits_fault(void **state)
{
	(void)state;
	char dir[] = "/tmp/cxsim-stuck-XXXXXX", stem[64], err[160], path[80];
	assert_non_null(mkdtemp(dir));
	snprintf(stem, sizeof(stem), "%s/card", dir);
	struct cxsim_card *c = card(CXSIM_CX3);
	uint8_t page[256], got[16];
	memset(page, 0x00, sizeof(page));

	/* Set at run time (cxsim_params_mut): the next gateway command sees it. */
	cxsim_params_mut(c)->stuck_addr = 0x30105;
	cxsim_params_mut(c)->stuck_mask = 0xFF;
	program_page(c, 0x30100, page, CS_HOLD);
	read16(c, 0x30100, got);
	for (int i = 0; i < 16; i++)
		assert_int_equal(got[i], i == 5 ? 0xFF : 0x00);
	assert_int_equal(cxsim_counters(c)->bytes_programmed, 256); /* the command looked normal */

	/* Saved and loaded with the card (the load is a power-on): still stuck. */
	assert_int_equal(cxsim_save(c, stem, err, sizeof(err)), 0);
	cxsim_free(c);
	c = cxsim_load(stem, err, sizeof(err));
	assert_non_null(c);
	assert_int_equal(cxsim_get_params(c)->stuck_addr, 0x30105);
	assert_int_equal(cxsim_get_params(c)->stuck_mask, 0xFF);
	erase64(c, 0x30000);
	program_page(c, 0x30100, page, CS_HOLD);
	read16(c, 0x30100, got);
	assert_int_equal(got[4], 0x00);
	assert_int_equal(got[5], 0xFF);
	/* Cleared: the byte programs. */
	cxsim_params_mut(c)->stuck_mask = 0;
	erase64(c, 0x30000);
	program_page(c, 0x30100, page, CS_HOLD);
	read16(c, 0x30100, got);
	assert_int_equal(got[5], 0x00);
	cxsim_free(c);

	/* A value too large for its field is refused, not truncated. */
	snprintf(path, sizeof(path), "%s.conf", stem);
	FILE *f = fopen(path, "a");
	assert_non_null(f);
	fputs("stuck_mask=0x100\n", f);
	fclose(f);
	assert_null(cxsim_load(stem, err, sizeof(err)));
	assert_non_null(strstr(err, "stuck_mask"));
	rm_rf(dir);
}

static void test_state_files_round_trip(void **state)
{
	(void)state;
	char dir[] = "/tmp/cxsim-state-XXXXXX", stem[64], err[160];
	assert_non_null(mkdtemp(dir));
	snprintf(stem, sizeof(stem), "%s/card", dir);
	struct cxsim_params p;
	cxsim_params_default(&p, CXSIM_CX3PRO);
	p.subsys_vendor = 0x103c;
	p.subsys_device = 0x18d6;
	struct cxsim_card *c = cxsim_new(&p);
	card_install(c, "--chip cx3pro", 0);
	assert_int_equal(cxsim_save(c, stem, err, sizeof(err)), 0);
	cxsim_free(c);
	c = cxsim_load(stem, err, sizeof(err));
	assert_non_null(c);
	assert_true(cxsim_boot_info(c)->booted);
	assert_int_equal(cxsim_cfg_read(c, 0x2c, 2), 0x103c);
	assert_int_equal(cxsim_cfg_read(c, 0x2e, 2), 0x18d6);
	assert_int_equal(cxsim_cfg_read(c, 2, 2), 0x1007);
	cxsim_free(c);
	/* A flash file of the wrong size is refused. */
	char path[80];
	snprintf(path, sizeof(path), "%s.flash", stem);
	assert_int_equal(truncate(path, 4096), 0);
	assert_null(cxsim_load(stem, err, sizeof(err)));
	assert_non_null(strstr(err, "not"));
	rm_rf(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_blank_card_is_in_recovery),
		cmocka_unit_test(test_image_boots_with_normal_id),
		cmocka_unit_test(test_hw_id_per_chip),
		cmocka_unit_test(test_cx2_any_pci_id_boots),
		cmocka_unit_test(test_config_header),
		cmocka_unit_test(test_window_normal_and_write_only),
		cmocka_unit_test(test_semaphores_read_to_lock),
		cmocka_unit_test(test_gateway_jedec_and_bits),
		cmocka_unit_test(test_chained_page_program),
		cmocka_unit_test(test_write_protect_survives_power_cycles),
		cmocka_unit_test(test_stuck_busy),
		cmocka_unit_test(test_power_cut_and_clock),
		cmocka_unit_test(test_stuck_bits_fault),
		cmocka_unit_test(test_state_files_round_trip),
	};
	return cmocka_run_group_tests_name("sim_card", tests, NULL, NULL);
}
