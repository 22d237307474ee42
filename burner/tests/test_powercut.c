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
#include "mkimage.h"

#define CARD_GUID 0x0002c90300c0ffe0ull
#define CARD_MAC 0x0002c9c0ffe0ull
#define CUT_EVERY 2000 /* config accesses between cut points */

struct campaign {
	uint64_t accesses, cuts, booted_old, booted_new;
	uint16_t old_minor, new_minor;
	char failure[CX_MSG_MAX + 200];
};

static uint8_t *gen(const char *opts, size_t *len)
{
	return mkimage(opts, len);
}

struct mem {
	const uint8_t *flash;
	size_t size;
};

static int mem_read(void *ctx, uint32_t addr, uint8_t *buf, uint32_t len, struct cx_status *st)
{
	struct mem *m = ctx;

	if ((uint64_t)addr + len > m->size)
		return cx_fail(st, CX_EFLASH, "past the flash");
	memcpy(buf, m->flash + addr, len);
	return CX_OK;
}

/* Stricter than the model's boot ROM (which skips a bad image for a good one,
 * UNCONFIRMED on silicon): the lowest image with a signature must be whole,
 * as flint reads it. */
static const char *lowest_image_is_whole(struct cxsim_card *clone, uint16_t *minor)
{
	static char why[CX_MSG_MAX + 80];
	struct mem m;
	struct dev_image d;
	struct cx_status st = {0};

	m.flash = cxsim_flash(clone, &m.size);
	if (devimage_read(&d, mem_read, &m, (uint32_t)m.size, 10, &st)) {
		snprintf(why, sizeof(why), "%s", st.msg);
		devimage_free(&d);
		return why;
	}
	if (d.parse_rc || fs2_verdict(&d.img, &st)) {
		snprintf(why, sizeof(why), "lowest image at 0x%x is broken: %s", d.start,
			 d.parse_rc ? d.parse_msg : st.msg);
		devimage_free(&d);
		return why;
	}
	*minor = d.img.info.fw_ver[1];
	devimage_free(&d);
	return NULL;
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
	uint16_t minor = 0;
	const char *why = lowest_image_is_whole(clone, &minor);
	k->cuts++;
	if (why)
		snprintf(k->failure, sizeof(k->failure), "cut at access %llu: %s", (unsigned long long)k->accesses, why);
	else if (minor != b->fw_ver[1])
		snprintf(k->failure, sizeof(k->failure), "cut at access %llu: flint would read FW minor %u, "
			 "the boot ROM boots %u", (unsigned long long)k->accesses, minor, b->fw_ver[1]);
	else if (!b->booted)
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

static void campaign(const char *part, int slot)
{
	struct cxsim_params p;
	size_t fsize, len;
	char opts[300];

	cxsim_params_default(&p, CXSIM_CX3);
	snprintf(p.flash_part, sizeof(p.flash_part), "%s", part);
	struct cxsim_card *c = cxsim_new(&p);
	uint8_t *flash = cxsim_flash(c, &fsize);
	snprintf(opts, sizeof(opts), "--chip cx3 --ddr 60 --ddr-size 0x4000 --fw 2.40.7000 "
		 "--guid %016llx --mac %012llx --dump %d --flash-size %zu",
		 (unsigned long long)CARD_GUID, (unsigned long long)CARD_MAC, slot, fsize);
	uint8_t *d = gen(opts, &len);
	memcpy(flash, d, len);
	free(d);
	/* The other slot holds an older image whose signature a previous burn cleared,
	 * as on a card that has been burned before: the new image must erase its way in. */
	snprintf(opts, sizeof(opts), "--chip cx3 --ddr 60 --ddr-size 0x4000 --fw 2.10.100 --seed 9 "
		 "--dump %d --flash-size %zu", 1 - slot, fsize);
	d = gen(opts, &len);
	size_t other = (size_t)(1 - slot) * 0x80000;
	for (size_t chunk = other; chunk < fsize; chunk += 0x100000)
		memcpy(flash + chunk, d + chunk, 0x80000);
	memset(flash + other, 0, 4);
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
	printf("%s, slot %d -> %d: %llu config accesses, %llu cut points: %llu booted the old FW, %llu the new\n", part, slot, 1 - slot,
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
	campaign("W25Q16", 0); /* slot 0 -> 1 */
}

static void test_powercut_m25p(void **state)
{
	(void)state;
	campaign("M25P16", 1); /* slot 1 -> 0: the new image is the lower one */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_powercut_w25q),
		cmocka_unit_test(test_powercut_m25p),
	};
	return cmocka_run_group_tests_name("powercut", tests, NULL, NULL);
}
