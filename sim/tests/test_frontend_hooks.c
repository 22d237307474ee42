/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_frontend_hooks.c — what the QEMU front end needs from the model: BAR0 decoding
 * crspace (params.bar0_crspace, hw-access.md §2.2) and the flash write-through sink
 * (cxsim_set_flash_sink): a shadow copy kept only through the sink's ranges must equal
 * the flash after every erase, program and interrupted operation. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cxsim.h"

/* Command words, hw-access.md §3.2 (as test_card.c). */
#define CMD_JEDEC 0x409F2215u
#define CMD_RDSR 0x40052215u
#define CMD_WREN 0x40062004u
#define CMD_SE64 0x40D8200Cu
#define CMD_SSE4 0x4020200Cu
#define CMD_CE 0x40C72004u
#define CMD_PP_FIRST_HOLD 0x4002243Cu
#define CMD_PP_CONT_HOLD 0x40002430u
#define CMD_PP_LAST 0x40002410u

#define HW_ID 0xf0014
#define BOOT_ADDR 0xf0000
#define SEM_GPIO 0xf03fc

/* ---- crspace through the config window, or through BAR0 ---- */

static bool via_bar;

static void cr_w(struct cxsim_card *c, uint32_t a, uint32_t v)
{
	if (via_bar) {
		cxsim_bar0_write(c, a, v);
		return;
	}
	cxsim_cfg_write(c, 0x58, a, 4);
	cxsim_cfg_write(c, 0x5c, v, 4);
}

static uint32_t cr_r(struct cxsim_card *c, uint32_t a)
{
	if (via_bar)
		return cxsim_bar0_read(c, a);
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

static void wait_wip(struct cxsim_card *c)
{
	for (int i = 0; i < 100000; i++) {
		gw(c, CMD_RDSR, 0, NULL);
		if (!(cr_r(c, 0xf0410) >> 24 & 1))
			return;
		cxsim_advance(c, 1000000);
	}
	fail_msg("WIP never cleared");
}

/* One page program of n bytes (n a multiple of 16, at most 256) starting at addr. */
static void program(struct cxsim_card *c, uint32_t addr, const uint8_t *d, unsigned n, bool wait)
{
	gw(c, CMD_WREN, 0, NULL);
	for (unsigned b = 0; b < n / 16; b++) {
		uint32_t w[4];
		for (int i = 0; i < 4; i++) {
			const uint8_t *p = d + 16 * b + 4 * i;
			w[i] = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
		}
		uint32_t cmd = b == 0 ? CMD_PP_FIRST_HOLD : CMD_PP_CONT_HOLD;
		if (b == n / 16 - 1)
			cmd = b == 0 ? (CMD_PP_FIRST_HOLD & ~(1u << 5)) : CMD_PP_LAST;
		gw(c, cmd, b == 0 ? addr : 0, w);
	}
	if (wait)
		wait_wip(c);
}

static void erase(struct cxsim_card *c, uint32_t cmd, uint32_t addr, bool wait)
{
	gw(c, CMD_WREN, 0, NULL);
	gw(c, cmd, addr, NULL);
	if (wait)
		wait_wip(c);
}

static struct cxsim_card *card(bool bar0)
{
	struct cxsim_params p;

	cxsim_params_default(&p, CXSIM_CX3);
	p.bar0_crspace = bar0;
	struct cxsim_card *c = cxsim_new(&p);
	assert_non_null(c);
	return c;
}

/* ---- BAR0 ---- */

static void test_bar0_off_by_default(void **state)
{
	(void)state;
	via_bar = false;
	struct cxsim_card *c = card(false);
	uint64_t t = cxsim_counters(c)->time_ns, crr = cxsim_counters(c)->cr_reads;

	assert_int_equal(cxsim_bar0_read(c, HW_ID), 0xFFFFFFFFu);
	cxsim_bar0_write(c, BOOT_ADDR, 0x12345600);
	assert_int_equal(cxsim_counters(c)->time_ns, t);          /* no access reached the chip */
	assert_int_equal(cxsim_counters(c)->cr_reads, crr);
	assert_int_equal(cxsim_counters(c)->bar0_reads, 1);
	assert_int_equal(cxsim_counters(c)->bar0_writes, 1);
	assert_int_equal(cr_r(c, BOOT_ADDR), 0);                  /* the write was ignored */
	assert_int_equal(cr_r(c, HW_ID), 0x000101f5);             /* the window still works */
	assert_int_equal(cxsim_bar0_read(c, SEM_GPIO), 0xFFFFFFFFu);
	assert_int_equal(cr_r(c, SEM_GPIO), 0);                   /* BAR read did not take it */
	cxsim_free(c);
}

static void test_bar0_decodes_crspace(void **state)
{
	(void)state;
	via_bar = false;
	struct cxsim_card *c = card(true);
	const struct cxsim_counters *k = cxsim_counters(c);
	uint64_t t = k->time_ns, crr = k->cr_reads, crw = k->cr_writes, cfg = k->cfg_reads;

	assert_int_equal(cxsim_bar0_read(c, HW_ID), 0x000101f5);  /* natural value, §1.2 */
	assert_int_equal(k->time_ns, t + CXSIM_BAR0_ACCESS_NS);
	assert_int_equal(k->cr_reads, crr + 1);
	assert_int_equal(k->cfg_reads, cfg);                      /* not a config access */
	cxsim_bar0_write(c, BOOT_ADDR, 0x01000000);
	assert_int_equal(k->cr_writes, crw + 1);
	assert_int_equal(k->time_ns, t + 2 * CXSIM_BAR0_ACCESS_NS);
	assert_int_equal(cr_r(c, BOOT_ADDR), 0x01000000);         /* same register as the window */
	/* Read-to-lock semaphores behave the same through the BAR, §3.5. */
	assert_int_equal(cxsim_bar0_read(c, SEM_GPIO), 0);
	assert_int_equal(cxsim_bar0_read(c, SEM_GPIO), 1);
	assert_int_equal(cr_r(c, SEM_GPIO), 1);
	cxsim_bar0_write(c, SEM_GPIO, 0);
	assert_int_equal(cr_r(c, SEM_GPIO), 0);
	/* The gateway: a JEDEC ID read entirely through BAR0. */
	via_bar = true;
	gw(c, CMD_JEDEC, 0, NULL);
	assert_int_equal(cxsim_bar0_read(c, 0xf0410) >> 8, 0xEF4015);
	/* Misaligned or outside the 1 MiB BAR: all-ones, no effect. */
	t = k->time_ns;
	assert_int_equal(cxsim_bar0_read(c, HW_ID + 2), 0xFFFFFFFFu);
	assert_int_equal(cxsim_bar0_read(c, CXSIM_BAR0_SIZE), 0xFFFFFFFFu);
	cxsim_bar0_write(c, BOOT_ADDR + 1, 5);
	assert_int_equal(k->time_ns, t);
	assert_int_equal(cxsim_bar0_read(c, BOOT_ADDR), 0x01000000);
	via_bar = false;
	cxsim_free(c);
}

static void test_bar0_counts_towards_power_cut(void **state)
{
	(void)state;
	struct cxsim_params p;
	cxsim_params_default(&p, CXSIM_CX3);
	p.bar0_crspace = true;
	p.power_cut_after = 3;
	struct cxsim_card *c = cxsim_new(&p);
	assert_int_equal(cxsim_bar0_read(c, HW_ID), 0x000101f5);
	assert_int_equal(cxsim_cfg_read(c, 0, 2), 0x15b3);
	assert_true(cxsim_powered(c));
	assert_int_equal(cxsim_bar0_read(c, HW_ID), 0x000101f5);  /* the third access: then the cut */
	assert_false(cxsim_powered(c));
	assert_int_equal(cxsim_bar0_read(c, HW_ID), 0xFFFFFFFFu);
	cxsim_power_cycle(c);
	assert_int_equal(cxsim_bar0_read(c, HW_ID), 0x000101f5);
	cxsim_free(c);
}

/* ---- flash sink ---- */

struct shadow {
	struct cxsim_card *c;
	uint8_t *copy;
	size_t size;
	unsigned calls;
	size_t max_len;
};

static void sink(void *ctx, size_t off, size_t len)
{
	struct shadow *s = ctx;
	size_t size;
	const uint8_t *flash = cxsim_flash(s->c, &size);

	assert_true(off < size && len <= size - off && len > 0);
	memcpy(s->copy + off, flash + off, len);
	s->calls++;
	if (len > s->max_len)
		s->max_len = len;
}

static void check(struct shadow *s, const char *what)
{
	size_t size;
	const uint8_t *flash = cxsim_flash(s->c, &size);

	if (memcmp(s->copy, flash, size)) {
		size_t i = 0;
		while (s->copy[i] == flash[i])
			i++;
		fail_msg("%s: the sink missed a change at 0x%zx (flash 0x%02x, shadow 0x%02x)", what, i,
			 flash[i], s->copy[i]);
	}
}

static void shadow_begin(struct shadow *s, struct cxsim_card *c)
{
	size_t size;
	const uint8_t *flash = cxsim_flash(c, &size);

	memset(s, 0, sizeof(*s));
	s->c = c;
	s->size = size;
	s->copy = malloc(size);
	assert_non_null(s->copy);
	memcpy(s->copy, flash, size);
	cxsim_set_flash_sink(c, sink, s);
}

static void test_sink_sees_every_change(void **state)
{
	(void)state;
	via_bar = false;
	struct cxsim_card *c = card(false);
	struct shadow s;
	uint8_t page[256], zeros[256];
	unsigned calls;

	for (int i = 0; i < 256; i++)
		page[i] = (uint8_t)(i * 13 + 7);
	memset(zeros, 0, sizeof(zeros));
	shadow_begin(&s, c);

	program(c, 0x10000, page, 256, true);
	check(&s, "page program");
	assert_true(s.max_len <= 256);             /* a program reports within its page */
	program(c, 0x10140, page, 64, true);       /* part of a page, mid-page */
	check(&s, "partial page program");
	assert_true(s.max_len <= 256);
	program(c, 0x10000, zeros, 16, true);      /* over programmed bytes: bits AND */
	check(&s, "program without erase");
	calls = s.calls;
	program(c, 0x10000, zeros, 16, true);      /* changes nothing: nothing to report */
	assert_int_equal(s.calls, calls);
	check(&s, "idempotent program");

	erase(c, CMD_SSE4, 0x10000, true);
	check(&s, "4 KiB erase");
	program(c, 0x11000, page, 256, true);
	program(c, 0x2f00, page, 256, true);
	erase(c, CMD_SE64, 0x10000, true);
	check(&s, "64 KiB erase");
	erase(c, CMD_CE, 0, true);
	check(&s, "chip erase");

	/* Through BAR0 with decoding on: the same reports. */
	cxsim_params_mut(c)->bar0_crspace = true;
	via_bar = true;
	program(c, 0x1fff00, page, 256, true);
	check(&s, "page program through BAR0");
	via_bar = false;
	cxsim_params_mut(c)->bar0_crspace = false;

	/* Power lost mid-operation: a partly programmed page, an erase left undefined. */
	program(c, 0x20000, page, 256, false);
	cxsim_advance(c, 100000);                  /* part of the page program time */
	cxsim_power_cycle(c);
	check(&s, "interrupted program");
	erase(c, CMD_SE64, 0x1f0000, false);
	cxsim_advance(c, 1000000);
	cxsim_power_cycle(c);
	check(&s, "interrupted erase");
	/* ... and the sink survives the power cycle. */
	calls = s.calls;
	program(c, 0x30000, page, 256, true);
	assert_true(s.calls > calls);
	check(&s, "after power cycles");

	/* A power cut by fault (power_cut_after) in the middle of an erase. */
	erase(c, CMD_SE64, 0x30000, false);
	cxsim_params_mut(c)->power_cut_after = 1;
	cxsim_advance(c, 2000000);
	cxsim_cfg_read(c, 0, 4);
	assert_false(cxsim_powered(c));
	check(&s, "power-cut fault");
	cxsim_power_cycle(c);

	/* A direct write announced with cxsim_flash_changed: the whole array. */
	size_t size;
	uint8_t *flash = cxsim_flash(c, &size);
	memset(flash + 0x1234, 0x42, 16);
	cxsim_flash_changed(c);
	check(&s, "cxsim_flash_changed");

	/* A clone does not write through to the original's sink. */
	struct cxsim_card *k = cxsim_clone(c);
	assert_non_null(k);
	calls = s.calls;
	program(k, 0x40000, page, 256, true);
	assert_int_equal(s.calls, calls);
	cxsim_free(k);

	/* Removed: no more calls. */
	cxsim_set_flash_sink(c, NULL, NULL);
	program(c, 0x50000, page, 256, true);
	assert_int_equal(s.calls, calls);
	free(s.copy);
	cxsim_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bar0_off_by_default),
		cmocka_unit_test(test_bar0_decodes_crspace),
		cmocka_unit_test(test_bar0_counts_towards_power_cut),
		cmocka_unit_test(test_sink_sees_every_change),
	};
	return cmocka_run_group_tests_name("sim_frontend_hooks", tests, NULL, NULL);
}
