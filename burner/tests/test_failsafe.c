/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_failsafe.c — the burn order against a flash in memory: the new image lands in the
 * other slot and the old one is invalidated; and an interruption after any number of
 * written bytes leaves a card with one complete, valid image (old or new). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ops/devimage.h"
#include "ops/failsafe.h"
#include "mkimage.h"

#define FLASH (2u << 20)

struct mem {
	uint8_t *flash;
	int64_t budget;     /* bytes that may still be written; <0: unlimited */
	uint32_t boot_addr;
	bool dead;
};

static int mem_write(void *ctx, uint32_t phys, const uint8_t *want, uint32_t len, struct cx_status *st)
{
	struct mem *m = ctx;

	for (uint32_t i = 0; i < len; i++) {
		if (m->budget == 0) {
			m->dead = true;
			return cx_fail(st, CX_ENODEV, "power cut");
		}
		m->flash[phys + i] = want[i];
		if (m->budget > 0)
			m->budget--;
	}
	return CX_OK;
}

static int mem_read(void *ctx, uint32_t phys, uint8_t *buf, uint32_t len, struct cx_status *st)
{
	struct mem *m = ctx;

	(void)st;
	memcpy(buf, m->flash + phys, len);
	return CX_OK;
}

static int mem_boot(void *ctx, uint32_t start, struct cx_status *st)
{
	(void)st;
	((struct mem *)ctx)->boot_addr = start << 8;
	return CX_OK;
}

static uint8_t *gen(const char *opts, size_t *len)
{
	return mkimage(opts, len);
}

/* What a boot ROM would find: the lowest valid image, as devimage reads it. */
static bool boots(uint8_t *flash, const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
	struct mem m = {flash, -1, 0, false};
	struct dev_image d;
	struct cx_status st = {0};
	bool ok = devimage_read(&d, mem_read, &m, FLASH, 10, &st) == CX_OK && d.parse_rc == CX_OK &&
		  fs2_verdict(&d.img, &st) == CX_OK &&
		  ((d.len == alen && !memcmp(d.buf, a, alen)) || (d.len == blen && !memcmp(d.buf, b, blen)));
	devimage_free(&d);
	return ok;
}

static void test_slot0_to_slot1_and_back(void **state)
{
	(void)state;
	size_t dl, ol, nl;
	uint8_t *flash = gen("--chip cx3 --ddr 2 --dump 0", &dl);
	uint8_t *old = gen("--chip cx3 --ddr 2", &ol);
	uint8_t *new = gen("--chip cx3 --ddr 3 --fw 2.42.5100 --seed 5", &nl);
	struct mem m = {flash, -1, 0, false};
	struct failsafe_io io = {mem_write, mem_read, mem_boot, NULL, &m};
	struct failsafe_plan p = {FLASH, 19, true, true, 0, 10, false};
	struct cx_status st = {0};
	uint32_t start;

	assert_int_equal(dl, FLASH);
	assert_int_equal(failsafe_burn(&io, &p, new, (uint32_t)nl, &start, &st), CX_OK);
	assert_int_equal(start, 0x80000);
	assert_int_equal(m.boot_addr, 0x80000u << 8);
	assert_memory_equal(flash, "\0\0\0\0", 4); /* old magic gone */
	assert_true(boots(flash, new, nl, new, nl));
	/* And back: now the card runs slot 1, so slot 0 is written. */
	p.current_start = 0x80000;
	assert_int_equal(failsafe_burn(&io, &p, old, (uint32_t)ol, &start, &st), CX_OK);
	assert_int_equal(start, 0);
	assert_true(boots(flash, old, ol, old, ol));
	assert_memory_equal(flash + 0x80000, "\0\0\0\0", 4);
	free(flash);
	free(old);
	free(new);
}

static void test_interrupted_anywhere_still_boots(void **state)
{
	(void)state;
	size_t dl, ol, nl;
	uint8_t *orig = gen("--chip cx3 --ddr 2 --dump 1", &dl);
	uint8_t *old = gen("--chip cx3 --ddr 2", &ol);
	uint8_t *new = gen("--chip cx3 --ddr 2 --fw 2.42.5100 --seed 5", &nl);
	uint8_t *flash = malloc(FLASH);
	struct failsafe_plan p = {FLASH, 19, true, true, 0x80000, 10, false};
	int64_t total = (int64_t)nl + 16 + 4, tried = 0;

	/* Cut after every k-th byte written, across the whole burn. */
	for (int64_t cut = 0; cut <= total; cut += 37, tried++) {
		memcpy(flash, orig, FLASH);
		struct mem m = {flash, cut, 0, false};
		struct failsafe_io io = {mem_write, mem_read, mem_boot, NULL, &m};
		struct cx_status st = {0};
		uint32_t start;
		failsafe_burn(&io, &p, new, (uint32_t)nl, &start, &st);
		if (!boots(flash, old, ol, new, nl))
			fail_msg("no bootable image after a cut at byte %lld of %lld", (long long)cut,
				 (long long)total);
	}
	assert_true(tried > 300);
	free(orig);
	free(flash);
	free(old);
	free(new);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slot0_to_slot1_and_back),
		cmocka_unit_test(test_interrupted_anywhere_still_boots),
	};
	return cmocka_run_group_tests_name("failsafe", tests, NULL, NULL);
}
