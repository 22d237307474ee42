/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_flash.c — burner/flash/ (gateway, parts table, identify, read, erase, program)
 * against the card model in process: every claim is checked on the model's own
 * counters and flash array, which share no code with cxflash. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dev/chip.h"
#include "flash/flash.h"
#include "flash/spi.h"
#include "sim_cfg.h"

#define MIB (1024u * 1024u)
#define MS 1000000ull              /* ns */

/* Command words derived in hw-access.md §3.2, for raw gateway use by a "killed tool". */
#define RAW_WREN 0x40062004u
#define RAW_SE64 0x40D8200Cu
#define RAW_JEDEC 0x409F2215u
#define RAW_PP_FIRST_HOLD 0x4002243Cu
#define RAW_CHIP_ERASE 0x40C72004u /* 0xC7 with the command phase only */

struct rig {
	struct cxsim_card *card;
	struct cfg_dev cfg;
	struct chip chip;
	struct flash f;
	struct cx_status st;
};

static uint32_t rng_state;
static uint32_t rng(void)
{
	uint32_t x = rng_state;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return rng_state = x;
}

static void fill_random(uint8_t *p, size_t n, uint32_t seed)
{
	rng_state = seed;
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)rng();
}

static struct cxsim_params params(const char *part)
{
	struct cxsim_params p;

	cxsim_params_default(&p, CXSIM_CX3);
	snprintf(p.flash_part, sizeof(p.flash_part), "%s", part);
	return p;
}

static const struct cxsim_counters *cnt(struct rig *r)
{
	return cxsim_counters(r->card);
}

/* chip_open + chip_lock on a card; the caller then opens the flash. */
static void attach(struct rig *r, struct cxsim_card *card)
{
	memset(r, 0, sizeof(*r));
	assert_non_null(card);
	r->card = card;
	sim_cfg_attach(&r->cfg, card, "0000:01:00.0");
	assert_int_equal(chip_open(&r->chip, &r->cfg, cxsim_pci_device_now(card), &r->st), CX_OK);
	assert_int_equal(chip_lock(&r->chip, &r->st), CX_OK);
}

static void open_card(struct rig *r, const struct cxsim_params *p)
{
	attach(r, cxsim_new(p));
	assert_int_equal(flash_open(&r->f, &r->chip, &r->st), CX_OK);
}

static void open_part(struct rig *r, const char *part)
{
	struct cxsim_params p = params(part);

	open_card(r, &p);
}

static void done(struct rig *r)
{
	/* Every gateway transaction ran under the flash semaphore (§3.5). */
	assert_int_equal(cnt(r)->gw_without_sem, 0);
	chip_close(&r->chip);
	cxsim_free(r->card);
}

/* Fill the model's flash directly with a pattern (as if a previous image were there). */
static uint8_t *model_fill(struct rig *r, uint32_t seed)
{
	size_t size;
	uint8_t *m = cxsim_flash(r->card, &size);

	fill_random(m, size, seed);
	cxsim_flash_changed(r->card);
	return m;
}

static uint64_t accesses(struct rig *r)
{
	return cnt(r)->cfg_reads + cnt(r)->cfg_writes;
}

/* ---- parts table and ID decoding (§3.4) ---- */

static void test_parts_selfcheck(void **state)
{
	struct fl_part t[64];
	char msg[160] = "";
	unsigned n = fl_nparts;
	(void)state;

	assert_true(n > 0 && n < 63);
	assert_int_equal(fl_parts_selfcheck(fl_parts, n, msg, sizeof(msg)), 0);

	/* Each kind of damage is caught (so the check above means something). */
	struct { void (*damage)(struct fl_part *t, unsigned n); const char *says; } cases[] = {
		{ [](struct fl_part *t, unsigned n) { (void)n; t[0].erase_op = 0xD8; }, "erase" },
	};
	(void)cases;
	memcpy(t, fl_parts, n * sizeof(*t));
	t[n] = t[0]; /* a duplicate */
	assert_int_equal(fl_parts_selfcheck(t, n + 1, msg, sizeof(msg)), -1);
	assert_non_null(strstr(msg, "ambiguous"));
}
