/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_burn.c — burn_card() against the card model in process: failsafe slot switches
 * with the card's identity kept, nothing written when nothing changes, refusals that
 * write nothing, a recovery burn with a given identity; and the cost of a ~1 MiB burn. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ops/burn.h"
#include "sim_cfg.h"
#include "mkimage.h"

#define CARD_GUID "0002c90300c0ffe0"
#define CARD_MAC "0002c9c0ffe0"

static uint8_t *gen(const char *opts, size_t *len)
{
	return mkimage(opts, len);
}

/* A card holding an image (as a dump in slot 'slot') made from opts, or blank. */
static struct cxsim_card *card(enum cxsim_chip chip, const char *part, const char *opts, int slot)
{
	struct cxsim_params p;
	char o[400];
	size_t fsize, len;

	cxsim_params_default(&p, chip);
	snprintf(p.flash_part, sizeof(p.flash_part), "%s", part);
	struct cxsim_card *c = cxsim_new(&p);
	uint8_t *flash = cxsim_flash(c, &fsize);
	if (opts) {
		snprintf(o, sizeof(o), "%s --dump %d --flash-size %zu", opts, slot, fsize);
		uint8_t *d = gen(o, &len);
		assert_int_equal(len, fsize);
		memcpy(flash, d, len);
		free(d);
		cxsim_flash_changed(c);
		cxsim_power_cycle(c);
	}
	return c;
}

static void open_dev(struct device *d, struct cxsim_card *c)
{
	struct cfg_dev cfg;
	struct pci_card pci = {.bdf = "0000:01:00.0", .device = cxsim_pci_device_now(c)};
	struct cx_status st = {0};

	sim_cfg_attach(&cfg, c, pci.bdf);
	assert_int_equal(device_attach(d, cfg, &pci, false, &st), CX_OK);
}

static int yes(void *ctx, const char *q, struct cx_status *st)
{
	(void)st;
	(*(int *)ctx)++;
	(void)q;
	return CX_OK;
}

static int run_burn(struct cxsim_card *c, const char *img_opts, struct burn_opts *o, struct burn_result *r,
		    struct cx_status *st)
{
	struct device d;
	size_t len;
	uint8_t *img = gen(img_opts, &len);

	open_dev(&d, c);
	int rc = burn_card(&d, img, len, o, r, st);
	device_close(&d);
	free(img);
	return rc;
}

static void test_burn_switches_slots_and_keeps_identity(void **state)
{
	(void)state;
	struct cxsim_card *c = card(CXSIM_CX3, "W25Q16",
				    "--chip cx3 --ddr 3 --fw 2.40.7000 --guid " CARD_GUID " --mac " CARD_MAC " --vsd MINE", 0);
	struct burn_opts o = {0};
	struct burn_result r;
	struct cx_status st = {0};

	assert_int_equal(run_burn(c, "--chip cx3 --ddr 3 --fw 2.42.5000 --seed 3", &o, &r, &st), CX_OK);
	assert_int_equal(r.start, 0x80000);
	cxsim_power_cycle(c);
	const struct cxsim_boot *b = cxsim_boot_info(c);
	assert_true(b->booted);
	assert_int_equal(b->slot, 1);
	assert_int_equal(b->fw_ver[1], 42);
	assert_int_equal(b->guids[0], 0x0002c90300c0ffe0ull);
	assert_int_equal(b->macs[1], 0x0002c9c0ffe1ull);
	assert_string_equal(b->vsd, "MINE");
	assert_int_equal(b->nvalid, 1);

	/* The same again: nothing to write, no erase, no program. */
	cxsim_counters_reset(c);
	int asked = 0;
	o.confirm = yes;
	o.confirm_ctx = &asked;
	assert_int_equal(run_burn(c, "--chip cx3 --ddr 3 --fw 2.42.5000 --seed 3", &o, &r, &st), CX_OK);
	assert_true(r.nothing_to_do);
	assert_int_equal(asked, 1); /* "already has firmware ... burn it again?" */
	assert_int_equal(cxsim_counters(c)->erases, 0);
	assert_int_equal(cxsim_counters(c)->bytes_programmed, 0);

	/* Back to slot 0 with an older image: asks, then goes. */
	assert_int_equal(run_burn(c, "--chip cx3 --ddr 2 --fw 2.40.7000", &o, &r, &st), CX_OK);
	assert_int_equal(r.start, 0);
	cxsim_power_cycle(c);
	assert_int_equal(cxsim_boot_info(c)->slot, 0);
	assert_int_equal(cxsim_boot_info(c)->guids[0], 0x0002c90300c0ffe0ull);
	assert_int_equal(cxsim_counters(c)->gw_without_sem, 0);
	cxsim_free(c);
}

static void test_refusals_write_nothing(void **state)
{
	(void)state;
	struct cxsim_card *c = card(CXSIM_CX3, "W25Q16", "--chip cx3 --ddr 2 --psid HP_0280210019", 0);
	struct burn_opts o = {0};
	struct burn_result r;
	struct cx_status st = {0};

	cxsim_counters_reset(c);
	assert_int_equal(run_burn(c, "--chip cx3pro --ddr 2 --psid HP_0280210019", &o, &r, &st), CX_EMISMATCH);
	cx_status_clear(&st);
	assert_int_equal(run_burn(c, "--chip cx3 --rev 0 --ddr 2 --psid HP_0280210019", &o, &r, &st), CX_EMISMATCH);
	cx_status_clear(&st);
	assert_int_equal(run_burn(c, "--chip cx3 --ddr 2 --fw 2.42.5000", &o, &r, &st), CX_EMISMATCH);
	assert_non_null(strstr(st.msg, "PSID"));
	cx_status_clear(&st);
	/* Allowed, but the question is not answered: declined. */
	o.guard.allow_psid_change = true;
	assert_int_equal(run_burn(c, "--chip cx3 --ddr 2 --fw 2.42.5000", &o, &r, &st), CX_EDECLINED);
	assert_int_equal(cxsim_counters(c)->erases, 0);
	assert_int_equal(cxsim_counters(c)->bytes_programmed, 0);
	/* Answered: cross-flashed to the stock PSID, identity kept. */
	int asked = 0;
	o.confirm = yes;
	o.confirm_ctx = &asked;
	cx_status_clear(&st);
	assert_int_equal(run_burn(c, "--chip cx3 --ddr 2 --fw 2.42.5000", &o, &r, &st), CX_OK);
	cxsim_power_cycle(c);
	assert_string_equal(cxsim_boot_info(c)->psid, "MT_1090120019");
	cxsim_free(c);
}

static void test_recovery_burn_with_given_identity(void **state)
{
	(void)state;
	struct cxsim_card *c = card(CXSIM_CX3PRO, "M25P16", NULL, 0);
	struct burn_opts o = {0};
	struct burn_result r;
	struct cx_status st = {0};

	assert_int_equal(cxsim_pci_device_now(c), 0x01f8);
	assert_int_equal(run_burn(c, "--chip cx3pro --ddr 2", &o, &r, &st), CX_EVALUE); /* no identity */
	assert_non_null(strstr(st.msg, "recovery"));
	o.ident.given.have_guids = o.ident.given.have_macs = true;
	patch_expand_guid(0x0002c90300123400ull, o.ident.given.guid);
	patch_expand_mac(0x0002c9123400ull, o.ident.given.mac);
	cx_status_clear(&st);
	assert_int_equal(run_burn(c, "--chip cx3pro --ddr 2", &o, &r, &st), CX_OK);
	cxsim_power_cycle(c);
	assert_int_equal(cxsim_pci_device_now(c), 0x1007);
	assert_int_equal(cxsim_boot_info(c)->guids[2], 0x0002c90300123402ull);
	assert_int_equal(cxsim_boot_info(c)->macs[0], 0x0002c9123400ull);
	cxsim_free(c);
}

/* Printed, not asserted: the numbers for the note (make bench will carry them later). */
static void test_cost_of_a_1mib_burn(void **state)
{
	(void)state;
	const char *parts[] = {"W25Q16", "M25P16"};
	for (int i = 0; i < 2; i++) {
		struct cxsim_card *c = card(CXSIM_CX3, parts[i], "--chip cx3 --ddr 60 --ddr-size 0x4000 --fw 2.40.7000", 0);
		struct burn_opts o = {0};
		struct burn_result r;
		struct cx_status st = {0};
		cxsim_counters_reset(c);
		uint64_t t0 = cxsim_counters(c)->time_ns;
		assert_int_equal(run_burn(c, "--chip cx3 --ddr 60 --ddr-size 0x4000 --fw 2.42.5000 --seed 2", &o, &r, &st),
				 CX_OK);
		const struct cxsim_counters *k = cxsim_counters(c);
		printf("burn 0.96 MiB on %s: modelled %.2f s, config accesses %llu, erased %llu, programmed %llu\n",
		       parts[i], (double)(k->time_ns - t0) / 1e9, (unsigned long long)(k->cfg_reads + k->cfg_writes),
		       (unsigned long long)k->bytes_erased, (unsigned long long)k->bytes_programmed);
		cxsim_power_cycle(c);
		assert_int_equal(cxsim_boot_info(c)->fw_ver[1], 42);
		cxsim_free(c);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_burn_switches_slots_and_keeps_identity),
		cmocka_unit_test(test_refusals_write_nothing),
		cmocka_unit_test(test_recovery_burn_with_given_identity),
		cmocka_unit_test(test_cost_of_a_1mib_burn),
	};
	return cmocka_run_group_tests_name("burn", tests, NULL, NULL);
}
