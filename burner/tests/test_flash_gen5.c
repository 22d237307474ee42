/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_flash_gen5.c — ConnectX-4, 4 Lx and 5 in recovery mode: the 5th-generation gateway
 * lock, the cache replacement, the 16 and 32 MiB parts, the boot address (hw-access.md
 * §3.13), against the card model in process, whose counters share no code with cxflash. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dev/chip.h"
#include "flash/flash.h"
#include "sim_cfg.h"

#define MIB (1024u * 1024u)
#define CACHE_REP_EN 0xF0420u   /* bit 0: the firmware's cache replacement, §3.13 */
#define WARM_RESET 0xF0204u     /* bit 1 set after a boot-address write (mf_set_reset_flash_on_warm_reboot) */

struct rig {
	struct cxsim_card *card;
	struct cfg_dev cfg;
	struct chip chip;
	struct flash f;
	struct cx_status st;
};

static struct cxsim_card *card_of(enum cxsim_chip chip, const char *part, bool wp)
{
	struct cxsim_params p;

	cxsim_params_default(&p, chip);
	if (part)
		snprintf(p.flash_part, sizeof(p.flash_part), "%s", part);
	p.write_protect = wp;
	struct cxsim_card *c = cxsim_new(&p);
	assert_non_null(c);
	return c;
}

/* chip_open on the card's PCI ID now (recovery: no image), the lock, the flash. */
static void open_rig(struct rig *r, struct cxsim_card *card)
{
	memset(r, 0, sizeof(*r));
	r->card = card;
	sim_cfg_attach(&r->cfg, card, "0000:01:00.0");
	assert_int_equal(chip_open(&r->chip, &r->cfg, cxsim_pci_device_now(card), 0, &r->st), CX_OK);
	assert_true(r->chip.recovery);
	assert_int_equal(chip_lock(&r->chip, &r->st), CX_OK);
	assert_int_equal(flash_open(&r->f, &r->chip, &r->st), CX_OK);
}

static const struct cxsim_counters *cnt(struct rig *r)
{
	return cxsim_counters(r->card);
}

static uint32_t cr(struct rig *r, uint32_t addr)
{
	uint32_t v = 0;
	assert_int_equal(cr_read(&r->chip.cr, addr, &v, &r->st), CX_OK);
	return v;
}

static void close_rig(struct rig *r)
{
	/* Every transaction under the gateway's lock, none while the cache replacement was on. */
	assert_int_equal(cnt(r)->gw_without_sem, 0);
	assert_int_equal(cnt(r)->gw_cache_rep_on, 0);
	assert_int_equal(cnt(r)->unmodelled, 0);
	chip_close(&r->chip);
	cxsim_free(r->card);
}

/* Identify, read, erase and program a ConnectX-4 Lx's W25Q128JV, and give the lock back. */
static void test_cx4lx_read_erase_program(void **state)
{
	struct rig r;
	uint8_t want[300], got[300];
	char desc[120];
	(void)state;

	open_rig(&r, card_of(CXSIM_CX4LX, NULL, false));
	assert_int_equal(r.f.size, 16 * MIB);
	assert_non_null(strstr(flash_describe(&r.f, desc, sizeof(desc)), "ef 40 18"));
	assert_int_equal(cr(&r, CACHE_REP_EN) & 1, 0); /* off while we hold the lock */
	for (unsigned i = 0; i < sizeof(want); i++)
		want[i] = (uint8_t)(i * 7 + 1);
	assert_int_equal(flash_erase(&r.f, 0x10000, 0x10000, &r.st), CX_OK);
	assert_int_equal(flash_program(&r.f, 0x10010, want, sizeof(want), &r.st), CX_OK);
	assert_int_equal(flash_read(&r.f, 0x10010, got, sizeof(got), &r.st), CX_OK);
	assert_memory_equal(got, want, sizeof(want));
	size_t n;
	assert_memory_equal(cxsim_flash(r.card, &n) + 0x10010, want, sizeof(want));
	assert_int_equal(cnt(&r)->hw_sem_takes, 0); /* mstflint never takes it in recovery mode */
	chip_unlock(&r.chip);
	assert_int_equal(cr(&r, CACHE_REP_EN) & 1, 1); /* given back */
	/* released: taken again without one of the 1 ms waits between tries */
	uint64_t t0 = cnt(&r)->time_ns;
	assert_int_equal(chip_lock(&r.chip, &r.st), CX_OK);
	assert_true(cnt(&r)->time_ns - t0 < 1000000u);
	close_rig(&r);
}

/* Another agent holds the gateway's lock: CX_EBUSY after mstflint's 1024 tries, nothing sent. */
static void test_lock_held_elsewhere(void **state)
{
	struct rig r;
	struct chip other;
	(void)state;

	open_rig(&r, card_of(CXSIM_CX4, NULL, false));
	uint64_t cmds = cnt(&r)->gw_cmds;
	memset(&other, 0, sizeof(other));
	struct cfg_dev cfg2;
	sim_cfg_attach(&cfg2, r.card, "0000:01:00.0");
	assert_int_equal(chip_open(&other, &cfg2, cxsim_pci_device_now(r.card), 0, &r.st), CX_OK);
	assert_int_equal(chip_lock(&other, &r.st), CX_EBUSY);
	assert_non_null(strstr(r.st.msg, "lock (bit 31 of 0xf0400) is held by someone else"));
	assert_int_equal(cnt(&r)->gw_cmds, cmds);
	cr_close(&other.cr);
	close_rig(&r);
}

/* A 32 MiB part: 3-byte addresses reach its first 16 MiB, as mstflint 4.21's do. */
static void test_32mib_part_reaches_16(void **state)
{
	static const char *parts[] = {"W25Q256JV-IM", "MX25L25645G", "W25Q256JV"};
	char desc[160];
	(void)state;

	for (unsigned i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		struct rig r;
		uint8_t b[16];

		open_rig(&r, card_of(CXSIM_CX5, parts[i], false));
		assert_int_equal(r.f.log2size, 25);
		assert_int_equal(r.f.size, 16 * MIB);
		assert_non_null(strstr(flash_describe(&r.f, desc, sizeof(desc)), "of which the first 16384 KiB"));
		assert_int_equal(flash_read(&r.f, 16 * MIB - 16, b, 16, &r.st), CX_OK);
		assert_int_equal(flash_read(&r.f, 16 * MIB, b, 1, &r.st), CX_EVALUE);
		close_rig(&r);
	}
}

/* Block protection is named before anything is written. */
static void test_write_protected_refused(void **state)
{
	struct rig r;
	bool wp = false;
	(void)state;

	open_rig(&r, card_of(CXSIM_CX4LX, NULL, true));
	assert_int_equal(flash_is_write_protected(&r.f, &wp, &r.st), CX_OK);
	assert_true(wp);
	assert_int_equal(flash_check_writable(&r.f, &r.st), CX_EPROTECTED);
	assert_non_null(strstr(r.st.msg, "write-protected"));
	assert_int_equal(cnt(&r)->erases, 0);
	close_rig(&r);
}

/* The boot address: ConnectX-4 start << 8 at 0xf0000, ConnectX-5 start at 0xf00c0; then
 * 0xf0204 bit 1 (mstflint 4.21 mflash.c mf_update_boot_addr). */
static void test_boot_address_per_chip(void **state)
{
	static const struct {
		enum cxsim_chip chip;
		uint32_t reg, val;
	} t[] = {{CXSIM_CX4, 0xF0000, 0x800000u << 8}, {CXSIM_CX4LX, 0xF0000, 0x800000u << 8},
		 {CXSIM_CX5, 0xF00C0, 0x800000u}};
	(void)state;

	for (unsigned i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct rig r;

		open_rig(&r, card_of(t[i].chip, NULL, false));
		assert_int_equal(chip_set_boot_addr(&r.chip, 0x800000, &r.st), CX_OK);
		assert_int_equal(cr(&r, t[i].reg), t[i].val);
		assert_int_equal(cr(&r, WARM_RESET) >> 1 & 1, 1);
		close_rig(&r);
	}
}

/* The normal PCI ID with a blank flash: the model's firmware never gets ready ("static
 * configuration not done", hw-access.md §3.14), so ICMD is refused before any command and
 * the gateway is not taken behind its back: nothing written. (Cards whose firmware runs:
 * test_flash_fw.c.) */
static void test_running_card_not_ready_refused(void **state)
{
	static const uint16_t pf[] = {0x1013, 0x1015, 0x1017};
	static const enum cxsim_chip chips[] = {CXSIM_CX4, CXSIM_CX4LX, CXSIM_CX5};
	(void)state;

	for (unsigned i = 0; i < 3; i++) {
		struct rig r;

		memset(&r, 0, sizeof(r));
		r.card = card_of(chips[i], NULL, false);
		sim_cfg_attach(&r.cfg, r.card, "0000:01:00.0");
		/* ICMD opens as mstflint's does (the mailbox size); its first command finds it not ready. */
		assert_int_equal(chip_open(&r.chip, &r.cfg, pf[i], 0, &r.st), CX_OK);
		assert_true(r.chip.fw_access);
		assert_int_equal(chip_lock(&r.chip, &r.st), CX_OK);
		assert_int_equal(flash_open(&r.f, &r.chip, &r.st), CX_EFWDOWN);
		assert_non_null(strstr(r.st.msg, "not ready"));
		chip_unlock(&r.chip);
		assert_int_equal(cnt(&r)->cr_writes, 0);
		assert_int_equal(cnt(&r)->gw_cmds, 0);
		cr_close(&r.chip.cr);
		cxsim_free(r.card);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cx4lx_read_erase_program),
		cmocka_unit_test(test_lock_held_elsewhere),
		cmocka_unit_test(test_32mib_part_reaches_16),
		cmocka_unit_test(test_write_protected_refused),
		cmocka_unit_test(test_boot_address_per_chip),
		cmocka_unit_test(test_running_card_not_ready_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
