/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_flash_fw.c — the flash of a ConnectX-4 Lx (FS3) and 5 (FS4) whose firmware RUNS, asked
 * of that firmware (ICMD, MFPA/MFBA/MFBE: hw-access.md §3.14), against the card model in
 * process (sim/core fw_flash.c, access_regs_cx4.c, icmd.c: no code shared with cxflash).
 *
 * The card holds a valid image of the tests' builder and its own device data, and is not
 * strapped (fs3_sim_card.h sc_new_running), so the model's firmware boots and answers. Checked
 * on the model itself: its flash array byte for byte, its counters (no gateway transaction,
 * every ICMD command under its semaphore, nothing unmodelled), its boot ROM after a power
 * cycle. Cases:
 *   - chip_open gives fw_access and the running version (MGIR); flash_open names the part by
 *     MFPA's JEDEC ID; flash_read of odd ranges (across the 256-byte MFBA blocks, the last
 *     bytes of the flash) equals the model's bytes;
 *   - flash_erase + flash_program change exactly the range asked, nothing else;
 *   - refusals: the ICMD go bit never clears (busy), the firmware not started, the ICMD
 *     semaphore held by another agent: chip_open fails and nothing is written; secure
 *     firmware: burn_card refuses before any write;
 *   - a write-protected flash (the firmware's writes ignored): the program's read-back
 *     mismatch is CX_EFLASH, and a whole burn fails with the flash as it was.
 * The power cuts through this path: test_powercut_fw_card.c. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "card_fixture.h"
#include "card_ops.h"
#include "dev/chip.h"
#include "flash/flash.h"
#include "fs3_card.h"
#include "fs3_sim_card.h"
#include "ops/burn.h"
#include "sim_cfg.h"

#define FILL_AT 0x300000u   /* an area outside images and device data the tests fill first */
#define FILL_LEN 0x20000u

struct rig {
	struct cxsim_card *card;
	struct cfg_dev cfg;
	struct chip chip;
	struct flash f;
	struct cx_status st;
	struct f3 img;
};

static bool fs4_of(enum cxsim_chip c)
{
	return c == CXSIM_CX5;
}

/* A running card of chip with its own image (slot 0), FILL_LEN bytes of a pattern at FILL_AT,
 * and the ICMD fault given; counters reset after its boot. */
static struct cxsim_card *running_card(struct rig *r, enum cxsim_chip chip, bool wp, enum cxsim_icmd_fault fault)
{
	struct f3_spec s = f3_defaults(fs4_of(chip));
	size_t n;

	memset(r, 0, sizeof(*r));
	s.psid = fs4_of(chip) ? "HP_0000000008" : "HP_2420110034";
	f3_build(&r->img, &s);
	fc_card_devdata(&r->img, SC_GUID);
	r->card = sc_new_running(chip, wp, NULL, fault);
	assert_non_null(r->card);
	sc_install(r->card, &r->img, 0);
	uint8_t *f = cxsim_flash(r->card, &n);
	for (uint32_t i = 0; i < FILL_LEN; i++)
		f[FILL_AT + i] = (uint8_t)(i * 13 + (i >> 9) + 1);
	cxsim_flash_changed(r->card);
	cxsim_power_cycle(r->card);
	assert_true(cxsim_boot_info(r->card)->booted);
	assert_true(cxsim_fw_running(r->card)); /* not strapped: the firmware runs */
	cxsim_counters_reset(r->card);
	return r->card;
}

static int open_chip(struct rig *r)
{
	sim_cfg_attach(&r->cfg, r->card, CARD_BDF);
	return chip_open(&r->chip, &r->cfg, cxsim_pci_device_now(r->card), 0, &r->st);
}

/* chip_open, the firmware's flash semaphore, flash_open: all through the firmware. */
static void open_rig(struct rig *r, enum cxsim_chip chip, bool wp)
{
	running_card(r, chip, wp, CXSIM_ICMD_OK);
	assert_int_equal(open_chip(r), CX_OK);
	assert_true(r->chip.fw_access);
	assert_false(r->chip.recovery);
	assert_int_equal(chip_lock(&r->chip, &r->st), CX_OK);
	assert_int_equal(flash_open(&r->f, &r->chip, &r->st), CX_OK);
	assert_true(r->f.via_fw);
}

/* What no firmware-path session may do, whatever it did: touch the gateway, send an ICMD
 * command without its semaphore, reach an address the model lacks. */
static void clean_counters(struct cxsim_card *c)
{
	const struct cxsim_counters *k = cxsim_counters(c);

	assert_int_equal(k->gw_cmds, 0);
	assert_int_equal(k->icmd_without_sem, 0);
	assert_int_equal(k->unmodelled, 0);
}

static void close_rig(struct rig *r)
{
	clean_counters(r->card);
	chip_close(&r->chip);
	cxsim_free(r->card);
}

static void check_open_read(enum cxsim_chip chip)
{
	static const struct {
		uint32_t at, len;
	} ranges[] = {{0, 1}, {3, 5}, {0xff, 2}, {0x1fd, 0x207}, {FILL_AT + 0x7b, 0x1001}, {0x1a000 - 7, 0x31}};
	struct rig r;
	char desc[160];
	size_t n;
	uint8_t buf[0x1100];

	open_rig(&r, chip, false);
	const struct cxsim_boot *b = cxsim_boot_info(r.card);
	const struct mgir *mg;
	assert_int_equal(chip_mgir(&r.chip, &mg, &r.st), CX_OK);
	assert_memory_equal(mg->ver, b->fw_ver, sizeof(b->fw_ver));
	assert_string_equal(mg->psid, b->psid);
	assert_int_equal(r.f.size, 16u << 20);
	assert_non_null(strstr(flash_describe(&r.f, desc, sizeof(desc)), "ef 40 18")); /* W25Q128, by MFPA */
	const uint8_t *m = cxsim_flash(r.card, &n);
	for (unsigned i = 0; i < sizeof(ranges) / sizeof(ranges[0]); i++) {
		memset(buf, 0, sizeof(buf));
		assert_int_equal(flash_read(&r.f, ranges[i].at, buf, ranges[i].len, &r.st), CX_OK);
		assert_memory_equal(buf, m + ranges[i].at, ranges[i].len);
	}
	/* The flash's last bytes, and one past: refused before the firmware is asked. */
	assert_int_equal(flash_read(&r.f, (uint32_t)n - 3, buf, 3, &r.st), CX_OK);
	assert_memory_equal(buf, m + n - 3, 3);
	uint64_t cmds = cxsim_counters(r.card)->icmd_cmds;
	assert_int_equal(flash_read(&r.f, (uint32_t)n - 3, buf, 4, &r.st), CX_EVALUE);
	assert_int_equal(cxsim_counters(r.card)->icmd_cmds, cmds);
	assert_int_equal(cxsim_counters(r.card)->bytes_programmed + cxsim_counters(r.card)->erases, 0);
	assert_true(cxsim_counters(r.card)->icmd_reg_access > 0);
	close_rig(&r);
}

static void test_cx4lx_open_read(void **state)
{
	(void)state;
	check_open_read(CXSIM_CX4LX);
}

static void test_cx5_open_read(void **state)
{
	(void)state;
	check_open_read(CXSIM_CX5);
}

/* Erase 64 KiB of the filled area and program 300 bytes at an odd address inside: the whole
 * flash is then the old one with exactly that range changed. */
static void check_erase_program(enum cxsim_chip chip)
{
	struct rig r;
	size_t n;
	uint8_t data[300], got[300];

	open_rig(&r, chip, false);
	uint8_t *want = sc_snapshot(r.card, &n);
	assert_non_null(want);
	for (unsigned i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 7 + 0x21);
	memset(want + FILL_AT + 0x10000, 0xff, 0x10000);
	memcpy(want + FILL_AT + 0x10000 + 0x7d, data, sizeof(data));
	/* and a 4 KiB erase at the end of the first 64 KiB, to see the smaller unit too */
	memset(want + FILL_AT + 0xf000, 0xff, 0x1000);
	assert_int_equal(flash_erase(&r.f, FILL_AT + 0x10000, 0x10000, &r.st), CX_OK);
	assert_int_equal(flash_erase(&r.f, FILL_AT + 0xf000, 0x1000, &r.st), CX_OK);
	assert_int_equal(flash_program(&r.f, FILL_AT + 0x10000 + 0x7d, data, sizeof(data), &r.st), CX_OK);
	assert_int_equal(flash_read(&r.f, FILL_AT + 0x10000 + 0x7d, got, sizeof(got), &r.st), CX_OK);
	assert_memory_equal(got, data, sizeof(data));
	const uint8_t *m = cxsim_flash(r.card, &n);
	for (size_t i = 0; i < n; i++)
		if (m[i] != want[i])
			fail_msg("0x%zx: 0x%02x, expected 0x%02x", i, m[i], want[i]);
	/* the firmware did the writes, the gateway none (close_rig) */
	assert_true(cxsim_counters(r.card)->fw_flash_cmds > 0);
	assert_true(cxsim_counters(r.card)->erases >= 2);
	free(want);
	close_rig(&r);
}

static void test_cx4lx_erase_program(void **state)
{
	(void)state;
	check_erase_program(CXSIM_CX4LX);
}

static void test_cx5_erase_program(void **state)
{
	(void)state;
	check_erase_program(CXSIM_CX5);
}

/* A program without an erase (a write plan's program-only step: the new bits a subset of
 * the old) of single bytes whose dwords' other bytes are not 0xFF: done, and only the bytes
 * asked changed (the firmware's MFBA takes dwords; the 0xFF padding must not be checked
 * against the kept neighbours). */
static void test_program_unerased_bytes(void **state)
{
	static const uint32_t at[] = {FILL_AT + 0x101, FILL_AT + 0x200, FILL_AT + 0x2ff, FILL_AT + 0x3ff};
	struct rig r;
	size_t n;
	(void)state;

	open_rig(&r, CXSIM_CX4LX, false);
	uint8_t *want = sc_snapshot(r.card, &n);
	assert_non_null(want);
	for (unsigned i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		uint8_t b = want[at[i]] & 0x0f; /* programmable over what is there */
		unsigned len = i == 3 ? 2 : 1;  /* and two across a dword and a page boundary */
		uint8_t two[2] = {b, (uint8_t)(want[at[i] + 1] & 0xf0)};
		assert_true(want[at[i] ^ 1] != 0xff);
		memcpy(want + at[i], two, len);
		if (flash_program(&r.f, at[i], two, len, &r.st))
			fail_msg("0x%x: %s", at[i], r.st.msg);
	}
	assert_memory_equal(cxsim_flash(r.card, &n), want, n);
	free(want);
	close_rig(&r);
}

/* A fault of the ICMD interface: the open fails with code, its message naming why_part, and
 * the card's flash and counters show nothing written. ICMD opens as mstflint's does (the
 * semaphore and the mailbox size), so a held semaphore stops chip_open and the others stop
 * the first command, flash_open's MFPA. */
static void check_open_refused(enum cxsim_icmd_fault fault, int code, const char *why_part)
{
	struct rig r;
	size_t n;

	running_card(&r, CXSIM_CX4LX, false, fault);
	uint8_t *before = sc_snapshot(r.card, &n);
	int rc = open_chip(&r);
	if (rc == CX_OK) {
		assert_true(r.chip.fw_access);
		if (!(rc = chip_lock(&r.chip, &r.st)))
			rc = flash_open(&r.f, &r.chip, &r.st);
		chip_unlock(&r.chip);
	}
	if (rc != code || !strstr(r.st.msg, why_part))
		fail_msg("%s: open %d (expected %d): %s", cxsim_icmd_fault_name(fault), rc, code, r.st.msg);
	assert_memory_equal(cxsim_flash(r.card, &n), before, n);
	const struct cxsim_counters *k = cxsim_counters(r.card);
	assert_int_equal(k->fw_flash_cmds + k->bytes_programmed + k->erases, 0);
	clean_counters(r.card);
	cr_close(&r.chip.cr);
	free(before);
	cxsim_free(r.card);
}

static void test_icmd_busy_refused(void **state)
{
	(void)state;
	check_open_refused(CXSIM_ICMD_BUSY, CX_ETOOLS, "never finished command");
}

static void test_not_started_refused(void **state)
{
	(void)state;
	check_open_refused(CXSIM_ICMD_NOT_STARTED, CX_EFWDOWN, "not ready");
}

static void test_sem_held_refused(void **state)
{
	(void)state;
	check_open_refused(CXSIM_ICMD_SEM_HELD, CX_EBUSY, "semaphore");
}

static struct burn_opts cross_opts(void)
{
	return (struct burn_opts){.guard.allow_psid_change = true, .hooks.confirm = confirm_yes};
}

/* The stock file for chip's card (running_card's image is HP's). */
static void stock_file(struct f3 *file, enum cxsim_chip chip)
{
	struct f3_spec s = f3_defaults(fs4_of(chip));

	s.rom = s.ini = true;
	f3_build(file, &s);
}

/* Secure firmware (MGIR): the burn is refused before anything is erased or programmed. */
static void test_secure_fw_burn_refused(void **state)
{
	struct rig r;
	struct f3 file;
	struct burn_opts o = cross_opts();
	struct burn_result res;
	size_t n;
	(void)state;

	running_card(&r, CXSIM_CX4LX, false, CXSIM_ICMD_SECURE_FW);
	stock_file(&file, CXSIM_CX4LX);
	uint8_t *before = sc_snapshot(r.card, &n);
	int rc = run_burn_image(r.card, file.buf, file.len, &o, &res, &r.st);
	if (rc != CX_EUNSUPPORTED || !strstr(r.st.msg, "secure firmware"))
		fail_msg("burn %d: %s", rc, r.st.msg);
	assert_memory_equal(cxsim_flash(r.card, &n), before, n);
	const struct cxsim_counters *k = cxsim_counters(r.card);
	assert_int_equal(k->bytes_programmed + k->erases, 0);
	clean_counters(r.card);
	free(before);
	cxsim_free(r.card);
}

/* A write-protected flash: the firmware's erase and program are ignored by the part, so
 * the read-back after the program differs: CX_EFLASH, the flash as it was. */
static void test_write_protect_readback(void **state)
{
	struct rig r;
	size_t n;
	uint8_t data[64];
	(void)state;

	open_rig(&r, CXSIM_CX4LX, true);
	uint8_t *before = sc_snapshot(r.card, &n);
	memset(data, 0x5a, sizeof(data));
	assert_int_equal(flash_erase(&r.f, FILL_AT, 0x1000, &r.st), CX_OK); /* not seen: no read-back */
	int rc = flash_program(&r.f, FILL_AT + 0x40, data, sizeof(data), &r.st);
	if (rc != CX_EFLASH || !strstr(r.st.msg, "verify failed at 0x300040"))
		fail_msg("program %d: %s", rc, r.st.msg);
	assert_memory_equal(cxsim_flash(r.card, &n), before, n);
	free(before);
	close_rig(&r);
}

/* ... and a whole burn on it: CX_EFLASH, the flash byte for byte as before, the card still
 * booting its own image. */
static void test_write_protect_burn(void **state)
{
	struct rig r;
	struct f3 file;
	struct burn_opts o = cross_opts();
	struct burn_result res;
	size_t n;
	(void)state;

	for (int fs4 = 0; fs4 < 2; fs4++) {
		enum cxsim_chip chip = fs4 ? CXSIM_CX5 : CXSIM_CX4LX;
		running_card(&r, chip, true, CXSIM_ICMD_OK);
		stock_file(&file, chip);
		uint8_t *before = sc_snapshot(r.card, &n);
		int rc = run_burn_image(r.card, file.buf, file.len, &o, &res, &r.st);
		if (rc != CX_EFLASH)
			fail_msg("%s: burn %d: %s", cxsim_chip_name(chip), rc, r.st.msg);
		assert_memory_equal(cxsim_flash(r.card, &n), before, n);
		clean_counters(r.card);
		cxsim_power_cycle(r.card);
		assert_true(cxsim_boot_info(r.card)->booted);
		assert_string_equal(cxsim_boot_info(r.card)->psid, r.img.s.psid);
		free(before);
		cxsim_free(r.card);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cx4lx_open_read),
		cmocka_unit_test(test_cx5_open_read),
		cmocka_unit_test(test_cx4lx_erase_program),
		cmocka_unit_test(test_cx5_erase_program),
		cmocka_unit_test(test_program_unerased_bytes),
		cmocka_unit_test(test_icmd_busy_refused),
		cmocka_unit_test(test_not_started_refused),
		cmocka_unit_test(test_sem_held_refused),
		cmocka_unit_test(test_secure_fw_burn_refused),
		cmocka_unit_test(test_write_protect_readback),
		cmocka_unit_test(test_write_protect_burn),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
