/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_gen5.c — the ConnectX-4 / 4 Lx / 5 model in recovery mode, register by register:
 * the recovery identity, the 5th-generation gateway's lock (bit 31 of 0xf0400, read to
 * lock, written 0 to free) and cache-replacement registers as mstflint 4.21 uses them
 * (mflash.c is4_flash_lock, check_cache_replacement_guard, disable_cache_replacement),
 * the HW semaphore and boot-address register per chip, a 32 MiB part's 4-byte
 * instructions and EN4B mode, and W25Q128JV block protection (BP = 1: top 256 KiB). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "cxsim.h"

#define GW_CMD 0xF0400
#define GW_ADDR 0xF0404
#define GW_DATA0 0xF0410
#define GW_GUARD_OFF 0xF0408
#define GW_GUARD_CMD 0xF040C
#define GW_CACHE_REP 0xF0420
#define LOCK (1u << 31)
#define BUSY (1u << 30)
#define READ_OP (1u << 0)
#define CMD_PHASE (1u << 2)
#define ADDR_PHASE (1u << 3)
#define DATA_PHASE (1u << 4)
#define MSIZE(n) ((uint32_t)(n) << 8)   /* 2^n bytes */
#define ADDR4 (1u << 14)
#define OP(o) ((uint32_t)(o) << 16)
#define MIB (1024u * 1024u)

static struct cxsim_card *card(enum cxsim_chip chip, const char *part)
{
	struct cxsim_params p;

	cxsim_params_default(&p, chip);
	if (part)
		strcpy(p.flash_part, part);
	struct cxsim_card *c = cxsim_new(&p);
	assert_non_null(c);
	return c;
}

static void cr_write(struct cxsim_card *c, uint32_t a, uint32_t v)
{
	cxsim_cfg_write(c, 0x58, a, 4);
	cxsim_cfg_write(c, 0x5c, v, 4);
}

static uint32_t cr_read(struct cxsim_card *c, uint32_t a)
{
	cxsim_cfg_write(c, 0x58, a, 4);
	return cxsim_cfg_read(c, 0x5c, 4);
}

/* One gateway transaction as mstflint's cntx_exec_cmd makes it (lock bit kept). */
static uint32_t gw(struct cxsim_card *c, uint32_t cmd, uint32_t addr, uint32_t data)
{
	cr_write(c, GW_ADDR, addr);
	cr_write(c, GW_DATA0, data);
	cr_write(c, GW_CMD, cmd | LOCK | BUSY);
	assert_false(cr_read(c, GW_CMD) & BUSY);
	return cr_read(c, GW_DATA0);
}

static void wait_wip(struct cxsim_card *c)
{
	for (int i = 0; i < 100000 && (gw(c, READ_OP | CMD_PHASE | DATA_PHASE | OP(0x05), 0, 0) >> 24) & 1; i++)
		cxsim_advance(c, 100000);
}

static void test_recovery_identity(void **state)
{
	static const struct { enum cxsim_chip chip; uint16_t id; uint32_t boot, sem; } k[] = {
		{CXSIM_CX4, 0x209, 0xF0000, 0xE250C}, {CXSIM_CX4LX, 0x20B, 0xF0000, 0xE250C},
		{CXSIM_CX5, 0x20D, 0xF00C0, 0xE74E0},
	};
	(void)state;
	for (unsigned i = 0; i < 3; i++) {
		struct cxsim_card *c = card(k[i].chip, NULL);

		assert_int_equal(cxsim_cfg_read(c, 2, 2), k[i].id);
		assert_int_equal(cxsim_cfg_read(c, 8, 4) >> 8, 0x050000);
		assert_int_equal(cr_read(c, 0xF0014) & 0xFFFF, k[i].id);
		assert_int_equal(cr_read(c, k[i].sem), 0);        /* free: now ours */
		assert_int_equal(cr_read(c, k[i].sem), 1);
		cr_write(c, k[i].sem, 0);
		assert_int_equal(cr_read(c, k[i].sem), 0);
		cr_write(c, k[i].boot, 0x1234);
		assert_int_equal(cr_read(c, k[i].boot), 0x1234);
		assert_int_equal(cxsim_counters(c)->unmodelled, 0);
		assert_int_equal(cxsim_counters(c)->hw_sem_takes, 2);
		cxsim_free(c);
	}
}

static void test_lock_and_cache_replacement(void **state)
{
	struct cxsim_card *c = card(CXSIM_CX4LX, NULL);

	(void)state;
	assert_int_equal(cr_read(c, GW_GUARD_OFF), 0);
	assert_int_equal(cr_read(c, GW_GUARD_CMD), 0);
	assert_int_equal(cr_read(c, GW_CACHE_REP), 1);
	assert_false(cr_read(c, GW_CMD) & LOCK);               /* free: taken by this read */
	assert_true(cr_read(c, GW_CMD) & LOCK);
	cr_write(c, GW_CACHE_REP, 0);
	uint32_t id = gw(c, READ_OP | CMD_PHASE | DATA_PHASE | MSIZE(2) | OP(0x9F), 0, 0);
	assert_int_equal(id >> 8, 0xEF4018);                   /* W25Q128JV, no FLASH_ENABLE */
	assert_true(cr_read(c, GW_CMD) & LOCK);                /* the command kept the lock */
	cr_write(c, GW_CACHE_REP, 1);
	cr_write(c, GW_CMD, 0);                                /* release */
	assert_false(cr_read(c, GW_CMD) & LOCK);
	assert_int_equal(cxsim_counters(c)->gw_without_sem, 0);
	assert_int_equal(cxsim_counters(c)->gw_cache_rep_on, 0);
	cr_write(c, GW_CMD, 0);
	cr_write(c, GW_CMD, BUSY | CMD_PHASE | OP(0x04));       /* without the lock, cache on */
	assert_int_equal(cxsim_counters(c)->gw_without_sem, 1);
	assert_int_equal(cxsim_counters(c)->gw_cache_rep_on, 1);
	cxsim_free(c);
}

static void program(struct cxsim_card *c, uint8_t op, uint32_t extra, uint32_t addr, uint32_t v)
{
	gw(c, CMD_PHASE | OP(0x06), 0, 0);
	gw(c, CMD_PHASE | ADDR_PHASE | DATA_PHASE | MSIZE(2) | OP(op) | extra, addr, v);
	wait_wip(c);
}

static uint32_t readw(struct cxsim_card *c, uint8_t op, uint32_t extra, uint32_t addr)
{
	return gw(c, READ_OP | CMD_PHASE | ADDR_PHASE | DATA_PHASE | MSIZE(2) | OP(op) | extra, addr, 0);
}

static void test_four_byte_addressing(void **state)
{
	struct cxsim_card *c = card(CXSIM_CX5, "W25Q256JV-IM");
	size_t size;
	uint8_t *f = cxsim_flash(c, &size);

	(void)state;
	assert_int_equal(size, 32 * MIB);
	program(c, 0x12, ADDR4, 16 * MIB + 0x10, 0xA1B2C3D4);  /* 4-byte page program */
	assert_int_equal(f[16 * MIB + 0x10], 0xA1);
	assert_int_equal(f[0x10], 0xFF);                        /* not the lower 16 MiB */
	assert_int_equal(readw(c, 0x13, ADDR4, 16 * MIB + 0x10), 0xA1B2C3D4);
	assert_int_equal(readw(c, 0x03, 0, 16 * MIB + 0x10), 0xFFFFFFFF); /* 3 bytes: 0x000010 */
	gw(c, CMD_PHASE | OP(0xB7), 0, 0);                      /* EN4B */
	assert_int_equal(readw(c, 0x03, ADDR4, 16 * MIB + 0x10), 0xA1B2C3D4);
	gw(c, CMD_PHASE | OP(0xE9), 0, 0);                      /* EX4B */
	program(c, 0x02, 0, 0x20, 0x11223344);
	assert_int_equal(f[0x20], 0x11);
	cxsim_free(c);
}

static void test_w25q128_block_protect(void **state)
{
	struct cxsim_card *c = card(CXSIM_CX4, NULL);
	size_t size;
	uint8_t *f = cxsim_flash(c, &size);
	uint32_t top = 16 * MIB - 256 * 1024;

	(void)state;
	gw(c, CMD_PHASE | OP(0x06), 0, 0);
	gw(c, CMD_PHASE | DATA_PHASE | OP(0x01), 0, 0x04000000);  /* WRSR: BP = 1 */
	wait_wip(c);
	program(c, 0x02, 0, top - 4, 0x01020304);              /* below: written */
	program(c, 0x02, 0, top, 0x05060708);                  /* top 256 KiB: refused */
	assert_int_equal(f[top - 4], 0x01);
	assert_int_equal(f[top], 0xFF);
	cxsim_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_recovery_identity),
		cmocka_unit_test(test_lock_and_cache_replacement),
		cmocka_unit_test(test_four_byte_addressing),
		cmocka_unit_test(test_w25q128_block_protect),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
