/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_powercut.c — power cut at every k-th config access of a ~1 MiB burn.
 *
 * The burn runs once against the card model in process; after every k-th
 * config access the card is cloned and the clone power-cycled, which is what
 * cutting the power at that instant does (the model applies the half-done
 * page program or erase). Each clone must come up in normal mode, booting
 * the old or the new firmware, with the card's GUIDs and MACs. */
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

#define CARD_GUID 0x0002c90300c0ffe0ull
#define CARD_MAC 0x0002c9c0ffe0ull
#define CUT_EVERY 2000 /* config accesses between cut points */

struct campaign {
	uint64_t accesses, cuts, booted_old, booted_new;
	uint16_t old_minor, new_minor;
	char failure[400];
};

static uint8_t *gen(const char *opts, size_t *len)
{
	char cmd[600], path[] = "/tmp/cx-cut-XXXXXX";
	const char *b = getenv("CXR_BUILD") ? getenv("CXR_BUILD") : "build";
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	close(fd);
	snprintf(cmd, sizeof(cmd), "%s/host/mkfs2 -o %s %s", b, path, opts);
	assert_int_equal(system(cmd), 0);
	FILE *f = fopen(path, "rb");
	fseek(f, 0, SEEK_END);
	*len = (size_t)ftell(f);
	rewind(f);
	uint8_t *p = malloc(*len);
	assert_int_equal(fread(p, 1, *len, f), *len);
	fclose(f);
	unlink(path);
	return p;
}

static void cut_here(void *ctx, struct cxsim_card *card)
{
	struct campaign *k = ctx;

	if (++k->accesses % CUT_EVERY || k->failure[0])
		return;
	struct cxsim_card *clone = cxsim_clone(card);
	if (!clone) {
		snprintf(k->failure, sizeof(k->failure), "out of memory");
		return;
	}
	cxsim_power_cycle(clone);
	const struct cxsim_boot *b = cxsim_boot_info(clone);
	k->cuts++;
	if (!b->booted)
		snprintf(k->failure, sizeof(k->failure), "cut at access %llu: card in recovery mode (%s)",
			 (unsigned long long)k->accesses, b->why);
	else if (b->guids[0] != CARD_GUID || b->macs[0] != CARD_MAC)
		snprintf(k->failure, sizeof(k->failure), "cut at access %llu: identity lost (GUID %016llx)",
			 (unsigned long long)k->accesses, (unsigned long long)b->guids[0]);
	else if (b->fw_ver[1] == k->old_minor)
		k->booted_old++;
	else if (b->fw_ver[1] == k->new_minor)
		k->booted_new++;
	else
		snprintf(k->failure, sizeof(k->failure), "cut at access %llu: boots FW minor %u",
			 (unsigned long long)k->accesses, b->fw_ver[1]);
	cxsim_free(clone);
}

static void campaign(const char *part)
{
	struct cxsim_params p;
	size_t fsize, len;
	char opts[300];

	cxsim_params_default(&p, CXSIM_CX3);
	snprintf(p.flash_part, sizeof(p.flash_part), "%s", part);
	struct cxsim_card *c = cxsim_new(&p);
	uint8_t *flash = cxsim_flash(c, &fsize);
	snprintf(opts, sizeof(opts), "--chip cx3 --ddr 60 --ddr-size 0x4000 --fw 2.40.7000 "
		 "--guid %016llx --mac %012llx --dump 0 --flash-size %zu",
		 (unsigned long long)CARD_GUID, (unsigned long long)CARD_MAC, fsize);
	uint8_t *d = gen(opts, &len);
	memcpy(flash, d, len);
	free(d);
	/* Slot 1 holds an older image whose signature a previous burn cleared, as on
	 * a card that has been burned before: the new image must erase its way in. */
	snprintf(opts, sizeof(opts), "--chip cx3 --ddr 60 --ddr-size 0x4000 --fw 2.10.100 --seed 9 "
		 "--dump 1 --flash-size %zu", fsize);
	d = gen(opts, &len);
	for (size_t chunk = 0x80000; chunk < fsize; chunk += 0x100000)
		memcpy(flash + chunk, d + chunk, 0x80000);
	memset(flash + 0x80000, 0, 4);
	free(d);
	cxsim_flash_changed(c);
	cxsim_power_cycle(c);
	uint8_t *img = gen("--chip cx3 --ddr 60 --ddr-size 0x4000 --fw 2.42.5000 --seed 2", &len);

	struct campaign k = {.old_minor = 40, .new_minor = 42};
	struct cfg_dev cfg;
	struct pci_card pci = {.bdf = "0000:01:00.0", .device = cxsim_pci_device_now(c)};
	struct device dev;
	struct burn_opts o = {0};
	struct burn_result r;
	struct cx_status st = {0};

	sim_cfg_attach(&cfg, c, pci.bdf);
	assert_int_equal(device_attach(&dev, cfg, &pci, false, &st), CX_OK);
	sim_cfg_set_hook(cut_here, &k);
	int rc = burn_card(&dev, img, len, &o, &r, &st);
	sim_cfg_set_hook(NULL, NULL);
	device_close(&dev);
	assert_int_equal(rc, CX_OK);
	printf("%s: %llu config accesses, %llu cut points: %llu booted the old FW, %llu the new\n", part,
	       (unsigned long long)k.accesses, (unsigned long long)k.cuts, (unsigned long long)k.booted_old,
	       (unsigned long long)k.booted_new);
	if (k.failure[0])
		fail_msg("%s: %s", part, k.failure);
	assert_true(k.cuts >= 2000);
	assert_true(k.booted_old > 0 && k.booted_new > 0);
	assert_true(cxsim_counters(c)->erases > 0); /* the campaign covered cuts during erases */
	free(img);
	cxsim_free(c);
}

static void test_powercut_w25q(void **state)
{
	(void)state;
	campaign("W25Q16");
}

static void test_powercut_m25p(void **state)
{
	(void)state;
	campaign("M25P16");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_powercut_w25q),
		cmocka_unit_test(test_powercut_m25p),
	};
	return cmocka_run_group_tests_name("powercut", tests, NULL, NULL);
}
