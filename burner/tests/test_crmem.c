/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_crmem.c — the BAR0 fast path (hw-access.md §2.2) against the card model in process:
 * used when the BAR decodes crspace and agrees with the window, the ordering workaround
 * after writes (§2.2.1), quiet fallback to config cycles when the BAR reads all-ones or
 * disagrees or the card is in recovery mode, CXFLASH_ACCESS=bar0 making that an error,
 * and a whole burn through the BAR booting with the card's identity. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/burn.h"
#include "card_fixture.h"
#include "card_ops.h"
#include "sim_cfg.h"
#include "mkimage.h"

#define CARD_GUID "0002c90300c0ffe0"
#define CARD_MAC "0002c9c0ffe0"
#define CR_FLUSH 0xF0380
#define CR_HW_ID 0xF0014

static struct cxsim_card *card(enum cxsim_chip chip, bool bar, const char *opts)
{
	return card_new(&(struct card_spec){.chip = chip, .image = opts, .bar0_crspace = bar});
}

static int attach(struct device *d, struct cxsim_card *c, struct crmem mem, struct cx_status *st)
{
	struct cfg_dev cfg;
	struct pci_card pci = {.bdf = "0000:01:00.0", .device = cxsim_pci_device_now(c)};

	sim_cfg_attach(&cfg, c, pci.bdf);
	return device_attach_mem(d, cfg, mem, &pci, false, st);
}

/* A BAR that records what it is asked, over the model's. */
struct rec {
	struct crmem inner;
	uint32_t hw_id_override;   /* nonzero: 0xf0014 reads this */
	char log[64][24];
	unsigned n;
};

static void note(struct rec *r, const char *what, uint32_t off)
{
	if (r->n < 64)
		snprintf(r->log[r->n++], sizeof(r->log[0]), "%s %05x", what, off);
}

static uint32_t rec_read(void *ctx, uint32_t off)
{
	struct rec *r = ctx;
	note(r, "r", off);
	if (off == CR_HW_ID && r->hw_id_override)
		return r->hw_id_override;
	return r->inner.ops->read(r->inner.ctx, off);
}

static void rec_write(void *ctx, uint32_t off, uint32_t val)
{
	struct rec *r = ctx;
	note(r, "w", off);
	r->inner.ops->write(r->inner.ctx, off, val);
}

static void rec_close(void *ctx)
{
	(void)ctx;
}

static const struct crmem_ops rec_ops = {.name = "bar0", .read = rec_read, .write = rec_write, .close = rec_close};

static void test_bar_is_used_when_it_decodes_crspace(void **state)
{
	(void)state;
	struct cxsim_card *c = card(CXSIM_CX3, true, "--chip cx3 --ddr 2");
	struct device d;
	struct cx_status st = {0};
	struct dev_image img;

	assert_int_equal(attach(&d, c, sim_crmem(c), &st), CX_OK);
	assert_string_equal(cr_method(&d.chip.cr), "bar0");
	cxsim_counters_reset(c);
	assert_int_equal(device_read_image(&d, &img, &st), CX_OK);
	const struct cxsim_counters *k = cxsim_counters(c);
	assert_true(k->bar0_reads > 1000);
	assert_int_equal(k->cfg_reads + k->cfg_writes, 0);   /* nothing through the window */
	assert_int_equal(k->gw_without_sem, 0);
	devimage_free(&img);
	device_close(&d);
	cxsim_free(c);
}

static void test_read_after_write_flushes(void **state)
{
	(void)state;
	struct cxsim_card *c = card(CXSIM_CX3, true, "--chip cx3 --ddr 2");
	struct rec r = {.inner = sim_crmem(c)};
	struct device d;
	struct cx_status st = {0};
	uint32_t v;

	assert_int_equal(attach(&d, c, (struct crmem){&rec_ops, &r}, &st), CX_OK);
	assert_true(d.chip.cr.flush_wa);
	assert_int_equal(cr_read(&d.chip.cr, CR_HW_ID, &v, &st), CX_OK);  /* settles opening's writes */
	r.n = 0;
	assert_int_equal(cr_read(&d.chip.cr, CR_HW_ID, &v, &st), CX_OK);
	assert_int_equal(r.n, 1);                  /* no write since: no flush */
	r.n = 0;
	assert_int_equal(cr_write(&d.chip.cr, 0xF0000, 0x01000000, &st), CX_OK);
	assert_int_equal(cr_read(&d.chip.cr, CR_HW_ID, &v, &st), CX_OK);
	assert_true(r.n >= 4);
	assert_string_equal(r.log[0], "w f0000");
	assert_string_equal(r.log[1], "w f0380");  /* §2.2.1: write 0, spin until 0, then read */
	assert_string_equal(r.log[2], "r f0380");
	assert_string_equal(r.log[r.n - 1], "r f0014");
	device_close(&d);
	cxsim_free(c);
}

static void test_falls_back_to_config_cycles(void **state)
{
	(void)state;
	struct cx_status st = {0};
	struct device d;

	/* Memory decode off: the BAR reads all-ones. */
	struct cxsim_card *c = card(CXSIM_CX3, false, "--chip cx3 --ddr 2");
	assert_int_equal(attach(&d, c, sim_crmem(c), &st), CX_OK);
	assert_string_equal(cr_method(&d.chip.cr), "config");
	device_close(&d);

	/* A BAR that answers, but not like the window: not trusted. */
	cxsim_free(c);
	c = card(CXSIM_CX3, true, "--chip cx3 --ddr 2");
	struct rec r = {.inner = sim_crmem(c), .hw_id_override = 0x000101F7};
	assert_int_equal(attach(&d, c, (struct crmem){&rec_ops, &r}, &st), CX_OK);
	assert_string_equal(cr_method(&d.chip.cr), "config");
	device_close(&d);
	cxsim_free(c);

	/* Recovery mode: config cycles, as mstflint (§2.1). */
	c = card(CXSIM_CX3, true, NULL);
	assert_false(cxsim_boot_info(c)->booted);
	assert_int_equal(attach(&d, c, sim_crmem(c), &st), CX_OK);
	assert_true(d.chip.recovery);
	assert_string_equal(cr_method(&d.chip.cr), "config");
	device_close(&d);

	/* CXFLASH_ACCESS=bar0 turns the quiet fallback into an error. */
	setenv("CXFLASH_ACCESS", "bar0", 1);
	assert_int_equal(attach(&d, c, sim_crmem(c), &st), CX_ENODEV);
	assert_non_null(strstr(st.msg, "BAR0"));
	device_close(&d);
	unsetenv("CXFLASH_ACCESS");
	cxsim_free(c);
}

static void test_burn_through_bar_keeps_identity(void **state)
{
	(void)state;
	struct cxsim_card *c = card(CXSIM_CX3, true,
				    "--chip cx3 --ddr 3 --fw 2.40.7000 --guid " CARD_GUID " --mac " CARD_MAC);
	struct device d;
	struct cx_status st = {0};

	assert_int_equal(attach(&d, c, sim_crmem(c), &st), CX_OK);
	assert_string_equal(cr_method(&d.chip.cr), "bar0");
	cxsim_counters_reset(c);
	device_burn_ok(&d, "--chip cx3 --ddr 3 --fw 2.42.5000 --seed 3");
	assert_true(cxsim_counters(c)->bar0_writes > 0);
	assert_int_equal(cxsim_counters(c)->gw_without_sem, 0);
	device_close(&d);
	expect_cold_boot(c, 42, 0x0002c90300c0ffe0ull, 0x0002c9c0ffe0ull);
	cxsim_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bar_is_used_when_it_decodes_crspace),
		cmocka_unit_test(test_read_after_write_flushes),
		cmocka_unit_test(test_falls_back_to_config_cycles),
		cmocka_unit_test(test_burn_through_bar_keeps_identity),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
