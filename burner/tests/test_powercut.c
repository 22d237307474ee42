/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_powercut.c — power cut at every k-th config access of a write to a card.
 *
 * The write runs against the card model in process, once on a copy to count
 * its config accesses and choose k (about 2,200 cut points, whatever a faster
 * writer has made of the write), then for real; after every k-th
 * config access the card is cloned and the clone power-cycled, which is what
 * cutting the power at that instant does (the model applies the half-done
 * page program or erase). Each clone must come up in normal mode, booting
 * the state before the write or the one after it, and the lowest image with
 * a signature must be whole and say the same as what boots (flint reads that
 * one). The writes: a ~1 MiB burn (old or new FW, the card's identity either
 * way), alone and after the backup it then plans from (the default path), and sg and sv on a card whose GUIDs are set (old or new GUIDs/MACs,
 * old or new VSD, same FW), each in one slot direction; and drom and brom of a
 * ~1 MiB image (ops/rom_card.h), where the card must also boot with the old ROM or
 * the new one, byte for byte (its SHA-256), never a mix: the image the model boots is
 * the one flint reads, and its ROM is compared.
 *
 * sg on blank GUIDs programs them in place, as flint does, which is not
 * failsafe (ops/setid.h): that campaign cuts at every access and pins down
 * what a cut can leave: the blank card, the new GUIDs, or recovery mode
 * (never a card that boots other GUIDs), the modelled length of the unsafe
 * window, and the way back from recovery mode (burn with the GUIDs). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "image/rom_insert.h"
#include "ops/backup.h"
#include "ops/burn.h"
#include "ops/rom_card.h"
#include "ops/setid.h"
#include "card_fixture.h"
#include "flint_view.h"
#include "sim_cfg.h"
#include "mkimage.h"

#define CARD_GUID 0x0002c90300c0ffe0ull
#define CARD_MAC 0x0002c9c0ffe0ull
#define NEW_GUID 0x0002c90300abc120ull
#define NEW_MAC 0x0002c9abc120ull
#define NEW_VSD "set by sv during a power-cut campaign"
#define MIN_CUTS 2000
#define TARGET_CUTS 2200 /* cut points aimed at: MIN_CUTS and a margin */
#define ROM_MIN_CUTS 800 /* each of drom and brom: 1,600 at least between them */
#define ROM_TARGET_CUTS 880

/* What a card boots, as far as these campaigns tell states apart. */
struct state {
	uint16_t minor;
	uint64_t guid, mac;
	char vsd[209];
	uint32_t rom_len;        /* the ROM it boots with (compared in drom/brom campaigns) */
	uint64_t rom_hash;
};

struct campaign {
	uint64_t every;          /* config accesses between cut points (campaign() sets it) */
	uint64_t accesses, cuts, booted[2];
	uint64_t writing;        /* cut points after the write's first erase or program */
	uint64_t base_writes;    /* the card's erases + bytes programmed before the write */
	bool rom;                /* drom/brom: the ROM tells the states apart */
	struct state want[2];    /* [0] before the write, [1] after it */
	char failure[CX_MSG_MAX + 200];
};

static struct state state_of_boot(const struct cxsim_boot *b)
{
	struct state s = {.minor = b->fw_ver[1], .guid = b->guids[0], .mac = b->macs[0]};
	memcpy(s.vsd, b->vsd, sizeof(s.vsd));
	return s;
}

static bool same(const struct state *a, const struct state *b)
{
	return a->minor == b->minor && a->guid == b->guid && a->mac == b->mac && !strcmp(a->vsd, b->vsd) &&
	       a->rom_len == b->rom_len && a->rom_hash == b->rom_hash;
}

static const char *describe(const struct state *s)
{
	static char out[2][420];
	static int k;
	k ^= 1;
	snprintf(out[k], sizeof(out[k]), "FW minor %u, GUID %016llx, MAC %012llx, VSD '%s', ROM %u bytes %016llx",
		 s->minor, (unsigned long long)s->guid, (unsigned long long)s->mac, s->vsd, s->rom_len,
		 (unsigned long long)s->rom_hash);
	return out[k];
}

/* Stricter than the model's boot ROM: the lowest signed image must be whole, as flint
 * reads it (support/flint_view.h), and say the same as what the card boots. */
static const char *lowest_image_is_whole(struct cxsim_card *clone, struct state *s, uint32_t *start, bool rom)
{
	struct flint_view v;
	const char *why = flint_view_lowest_whole(clone, &v);

	memset(s, 0, sizeof(*s));
	if (!why) {
		s->minor = v.minor;
		s->guid = v.guid;
		s->mac = v.mac;
		memcpy(s->vsd, v.vsd, sizeof(s->vsd));
		s->rom_len = rom ? v.rom_len : 0;
		s->rom_hash = rom ? v.rom_hash : 0;
		*start = v.start;
	}
	return why;
}

/* What the card boots, the ROM too when the campaign compares it: the model does not
 * parse ROMs, so they are read from the image it boots, which must be flint's. */
static struct state booted_state(struct cxsim_card *c, bool rom)
{
	struct state s = state_of_boot(cxsim_boot_info(c)), f;
	uint32_t start = UINT32_MAX;

	if (rom && !lowest_image_is_whole(c, &f, &start, true) && start == cxsim_boot_info(c)->start) {
		s.rom_len = f.rom_len;
		s.rom_hash = f.rom_hash;
	}
	return s;
}

static void cut_here(void *ctx, struct cxsim_card *card)
{
	struct campaign *k = ctx;

	if (++k->accesses % k->every || k->failure[0])
		return;
	struct cxsim_card *clone = cxsim_clone(card);
	if (!clone) {
		snprintf(k->failure, sizeof(k->failure), "out of memory");
		return;
	}
	cxsim_power_cycle(clone);
	const struct cxsim_boot *b = cxsim_boot_info(clone);
	struct state flint, boots = state_of_boot(b);
	uint32_t start = 0;
	const char *why = lowest_image_is_whole(clone, &flint, &start, k->rom);
	unsigned long long at = (unsigned long long)k->accesses;
	k->cuts++;
	k->writing += cxsim_counters(card)->erases + cxsim_counters(card)->bytes_programmed > k->base_writes;
	/* The ROM the card boots with: the one of flint's image, once that is the booted one. */
	boots.rom_len = flint.rom_len;
	boots.rom_hash = flint.rom_hash;
	if (why)
		snprintf(k->failure, sizeof(k->failure), "cut at access %llu: %s", at, why);
	else if (!b->booted)
		snprintf(k->failure, sizeof(k->failure), "cut at access %llu: card in recovery mode (%s)", at, b->why);
	else if (k->rom && start != b->start)
		snprintf(k->failure, sizeof(k->failure), "cut at access %llu: the card boots the image at 0x%x, flint "
			 "reads the one at 0x%x", at, b->start, start);
	else if (!same(&flint, &boots))
		snprintf(k->failure, sizeof(k->failure), "cut at access %llu: flint would read %s, the boot ROM boots %s",
			 at, describe(&flint), describe(&boots));
	else if (same(&boots, &k->want[0]))
		k->booted[0]++;
	else if (same(&boots, &k->want[1]))
		k->booted[1]++;
	else
		snprintf(k->failure, sizeof(k->failure), "cut at access %llu: boots %s; neither the old %s nor the new %s",
			 at, describe(&boots), describe(&k->want[0]), describe(&k->want[1]));
	cxsim_free(clone);
}

/* A CX3 with part 'part' whose image (opts) is in slot 'slot'; the other slot holds an
 * older image whose signature a previous burn cleared, as on a card that has been
 * burned before: the new image must erase its way in. */
static struct cxsim_card *card(const char *part, const char *opts, int slot)
{
	char o[300];

	snprintf(o, sizeof(o), "%s --guid %016llx --mac %012llx", opts, (unsigned long long)CARD_GUID,
		 (unsigned long long)CARD_MAC);
	struct cxsim_card *c = card_new(&(struct card_spec){.chip = CXSIM_CX3, .part = part, .image = o, .slot = slot,
		.older = "--chip cx3 --ddr 60 --ddr-size 0x4000 --fw 2.10.100 --seed 9"});

	assert_true(cxsim_boot_info(c)->booted);
	return c;
}

/* After the write: the card itself boots the new state, and the cut points saw both. */
static void report(const char *what, struct cxsim_card *c, struct campaign *k)
{
	printf("%s: %llu config accesses, %llu cut points (every %llu), %llu of them while erasing and programming: "
	       "%llu booted the old state, %llu the new\n",
	       what, (unsigned long long)k->accesses, (unsigned long long)k->cuts, (unsigned long long)k->every,
	       (unsigned long long)k->writing, (unsigned long long)k->booted[0], (unsigned long long)k->booted[1]);
	if (k->failure[0])
		fail_msg("%s: %s", what, k->failure);
	assert_true(k->cuts >= (k->rom ? ROM_MIN_CUTS : MIN_CUTS));
	assert_true(k->booted[0] > 0 && k->booted[1] > 0);
	assert_true(cxsim_counters(c)->erases > 0); /* the campaign covered cuts during erases */
	cxsim_power_cycle(c);
	struct state now = booted_state(c, k->rom);
	if (!same(&now, &k->want[1]))
		fail_msg("%s: after the write the card boots %s, not %s", what, describe(&now), describe(&k->want[1]));
}

enum kind { BURN, BACKUP_BURN, SG, SV, DROM, BROM };

static const char *const kind_name[] = {"burn", "backup + burn", "sg", "sv", "drom", "brom"};

/* The default path's backup (cxflash burn without --no-backup): the burn then plans
 * from the backup's read (ops/burn.c write). */
struct backup_first {
	struct device *dev;
	char dir[64];
};

static int backup_first(void *ctx, struct cx_status *st)
{
	struct backup_first *x = ctx;
	struct backup_result r;

	return backup_card(x->dev, x->dir, &r, st);
}

/* What cxflash -d drom / brom ROMFILE --allow_rom_change does; brom puts the three ROMs of
 * HP's 544+ (CLP, UEFI, PXE: 56 KiB) in place of the card's 8 KiB PXE ROM. */
static int rom_write(struct device *dev, enum kind kind, void (*hook)(void *ctx, struct cxsim_card *card),
		     void *ctx, struct state *want, struct cx_status *st)
{
	struct rom_card_opts o = {.allow_rom_change = true};
	struct burn_result r;
	struct fs2_image *img = malloc(sizeof(*img));
	uint8_t *roms = NULL;
	size_t len;
	int rc;

	assert_non_null(img);
	want->rom_len = 0;
	want->rom_hash = 0;
	if (kind == BROM) {
		roms = mkimage("--chip cx3 --ddr 2 --ddr-size 0x1000 --roms hp544", &len);
		assert_int_equal(fs2_parse(roms, len, img, st), CX_OK);
		assert_int_equal(rom_sect_data(img, &o.rom, &o.rom_len, st), CX_OK);
		want->rom_len = (uint32_t)o.rom_len;
		want->rom_hash = flint_view_rom_hash(o.rom, o.rom_len);
	}
	sim_cfg_set_hook(hook, ctx);
	rc = rom_card(dev, &o, &r, st);
	sim_cfg_set_hook(NULL, NULL);
	free(roms);
	free(img);
	return rc;
}

/* Run the write of this kind on c, with hook(ctx, c) called after every config
 * access of the write itself; *want receives the state it leads to. */
static void run_write(struct cxsim_card *c, enum kind kind, void (*hook)(void *ctx, struct cxsim_card *card),
		      void *ctx, struct state *want)
{
	struct device dev;
	struct cx_status st = {0};
	int rc;

	*want = booted_state(c, kind >= DROM);
	card_open(&dev, c);
	if (kind >= DROM) {
		rc = rom_write(&dev, kind, hook, ctx, want, &st);
	} else if (kind == BURN || kind == BACKUP_BURN) {
		size_t len;
		uint8_t *img = mkimage("--chip cx3 --ddr 60 --ddr-size 0x4000 --fw 2.42.5000 --seed 2", &len);
		struct burn_opts o = {0};
		struct burn_result r;
		struct backup_first b = {.dev = &dev, .dir = "/tmp/cxtest-powercut-XXXXXX"};
		if (kind == BACKUP_BURN) {
			assert_non_null(mkdtemp(b.dir));
			o.hooks.before_write = backup_first;
			o.hooks.before_ctx = &b;
		}
		want->minor = 42;
		sim_cfg_set_hook(hook, ctx);
		rc = burn_card(&dev, img, len, &o, &r, &st);
		sim_cfg_set_hook(NULL, NULL);
		if (kind == BACKUP_BURN) {
			char cmd[96];
			snprintf(cmd, sizeof(cmd), "rm -rf %s", b.dir);
			assert_int_equal(system(cmd), 0);
			if (!rc)
				assert_true(r.out.backed_up);
		}
		free(img);
	} else {
		/* What cxflash -d sg/sv does: read, the same patch as on a file, write. */
		struct dev_image cur;
		struct setid_opts o = {0};
		struct setid_result r;
		assert_int_equal(setid_read(&dev, &cur, &st), CX_OK);
		assert_false(cur.img.guids.blank);
		uint8_t *img = malloc(cur.len);
		assert_non_null(img);
		memcpy(img, cur.buf, cur.len);
		if (kind == SG) {
			struct guid_request g = {.have_guids = true, .have_macs = true};
			patch_expand_guid(NEW_GUID, g.guid);
			patch_expand_mac(NEW_MAC, g.mac);
			assert_int_equal(patch_guids(img, &cur.img, &g, &st), CX_OK);
			want->guid = NEW_GUID;
			want->mac = NEW_MAC;
		} else {
			assert_int_equal(patch_vsd(img, &cur.img, NEW_VSD, &st), CX_OK);
			snprintf(want->vsd, sizeof(want->vsd), "%s", NEW_VSD);
		}
		sim_cfg_set_hook(hook, ctx);
		rc = setid_write(&dev, &cur, img, &o, &r, &st);
		sim_cfg_set_hook(NULL, NULL);
		if (!rc)
			assert_false(r.in_place);
		devimage_free(&cur);
		free(img);
	}
	device_close(&dev);
	if (rc)
		fail_msg("%s: %s", kind_name[kind], st.msg);
}

static void count(void *ctx, struct cxsim_card *card)
{
	(void)card;
	++*(uint64_t *)ctx;
}

/* The write, cut TARGET_CUTS times at even intervals. The model is
 * deterministic, so a first run on a clone counts the accesses the write
 * makes, whatever a faster writer has made of it since. */
static void campaign(enum kind kind, const char *part, const char *opts, int slot)
{
	struct cxsim_card *c = card(part, opts, slot);
	struct cxsim_card *dry = cxsim_clone(c);
	struct campaign k = {0};
	uint64_t n = 0;
	char what[80];

	uint64_t target = (k.rom = kind >= DROM) ? ROM_TARGET_CUTS : TARGET_CUTS;

	assert_non_null(dry);
	run_write(dry, kind, count, &n, &k.want[1]);
	cxsim_free(dry);
	k.every = n / target ? n / target : 1;
	k.want[0] = booted_state(c, k.rom);
	k.base_writes = cxsim_counters(c)->erases + cxsim_counters(c)->bytes_programmed;
	run_write(c, kind, cut_here, &k, &k.want[1]);
	snprintf(what, sizeof(what), "%s on %s, slot %d -> %d", kind_name[kind], part, slot, 1 - slot);
	report(what, c, &k);
	cxsim_free(c);
}

/* In-place sg on blank GUIDs, cut at every config access. */
struct in_place_cuts {
	uint64_t accesses, blank, set, recovery, other;
	uint64_t t_first, t_last;          /* model time of the first and last cut into recovery */
	struct cxsim_card *first_recovery; /* a clone kept to bring back */
};

static void cut_in_place(void *ctx, struct cxsim_card *card)
{
	struct in_place_cuts *k = ctx;
	struct cxsim_card *clone = cxsim_clone(card);

	k->accesses++;
	if (!clone) {
		k->other++;
		return;
	}
	cxsim_power_cycle(clone);
	const struct cxsim_boot *b = cxsim_boot_info(clone);
	if (!b->booted) {
		uint64_t t = cxsim_counters(card)->time_ns;
		k->t_first = k->recovery++ ? k->t_first : t;
		k->t_last = t;
		if (!k->first_recovery) {
			k->first_recovery = clone;
			return;
		}
	} else if (b->guids[0] == UINT64_MAX && b->guids[1] == UINT64_MAX && b->guids[3] == UINT64_MAX) {
		k->blank++;
	} else if (b->guids[0] == NEW_GUID && b->guids[3] == NEW_GUID + 3 && b->macs[1] == NEW_MAC + 1) {
		k->set++;
	} else {
		k->other++;
	}
	cxsim_free(clone);
}

static void test_powercut_sg_blank_in_place(void **state)
{
	(void)state;
	struct cxsim_card *c = card_new(&(struct card_spec){.chip = CXSIM_CX3, .image = "--chip cx3 --ddr 3 --blank-guids"});
	size_t len;

	struct in_place_cuts k = {0};
	struct device dev;
	struct dev_image cur;
	struct setid_opts so = {.in_place = true};
	struct setid_result r;
	struct cx_status st = {0};
	struct guid_request g = {.have_guids = true, .have_macs = true};
	patch_expand_guid(NEW_GUID, g.guid);
	patch_expand_mac(NEW_MAC, g.mac);
	card_open(&dev, c);
	assert_int_equal(setid_read(&dev, &cur, &st), CX_OK);
	uint8_t *want = malloc(cur.len);
	assert_non_null(want);
	memcpy(want, cur.buf, cur.len);
	assert_int_equal(patch_guids(want, &cur.img, &g, &st), CX_OK);
	sim_cfg_set_hook(cut_in_place, &k);
	int rc = setid_write(&dev, &cur, want, &so, &r, &st);
	sim_cfg_set_hook(NULL, NULL);
	device_close(&dev);
	devimage_free(&cur);
	free(want);
	assert_int_equal(rc, CX_OK);
	assert_true(r.in_place);
	printf("sg in place on blank GUIDs (W25Q16): %llu cut points (every access): %llu boot blank, %llu the new "
	       "GUIDs, %llu recovery mode (a window of %.2f ms modelled), %llu other\n",
	       (unsigned long long)k.accesses, (unsigned long long)k.blank, (unsigned long long)k.set,
	       (unsigned long long)k.recovery, (double)(k.t_last - k.t_first) / 1e6, (unsigned long long)k.other);
	assert_int_equal(k.other, 0);
	assert_true(k.blank > 0 && k.set > 0);
	assert_true(k.t_last - k.t_first < 5000000); /* a few page programs, not an erase */
	assert_int_equal(cxsim_counters(c)->erases, 0);
	cxsim_free(c);

	/* The way back from a cut inside the window: sg refuses, burn with the GUIDs restores. */
	assert_non_null(k.first_recovery);
	struct cxsim_card *x = k.first_recovery;
	uint8_t *d = mkimage("--chip cx3 --ddr 3", &len);
	struct burn_opts bo = {.ident.given = g};
	struct burn_result br;
	card_open(&dev, x);
	assert_int_equal(setid_read(&dev, &cur, &st), CX_EUNSUPPORTED);
	cx_status_clear(&st);
	assert_int_equal(burn_card(&dev, d, len, &bo, &br, &st), CX_OK);
	device_close(&dev);
	free(d);
	cxsim_power_cycle(x);
	assert_true(cxsim_boot_info(x)->booted);
	assert_int_equal(cxsim_boot_info(x)->guids[0], NEW_GUID);
	cxsim_free(x);
}

/* ~0.96 MiB for the burn; ~0.23 MiB for sg/sv keeps each of their cut points cheap. */
#define BURN_CARD "--chip cx3 --ddr 60 --ddr-size 0x4000 --fw 2.40.7000"
#define SETID_CARD "--chip cx3 --ddr 14 --ddr-size 0x4000 --fw 2.40.7000 --vsd OLD"

static void test_powercut_w25q(void **state)
{
	(void)state;
	campaign(BURN, "W25Q16", BURN_CARD, 0); /* slot 0 -> 1 */
}

static void test_powercut_m25p(void **state)
{
	(void)state;
	campaign(BURN, "M25P16", BURN_CARD, 1); /* slot 1 -> 0: the new image is the lower one */
}

/* The default path: the backup, then a burn planned from the backup's read, over the
 * older image's erased-in-part slot. */
static void test_powercut_backup_burn(void **state)
{
	(void)state;
	campaign(BACKUP_BURN, "W25Q16", BURN_CARD, 1); /* slot 1 -> 0 */
}

static void test_powercut_sg(void **state)
{
	(void)state;
	campaign(SG, "W25Q16", SETID_CARD, 1); /* slot 1 -> 0 */
}

static void test_powercut_sv(void **state)
{
	(void)state;
	campaign(SV, "M25P16", SETID_CARD, 0); /* slot 0 -> 1 */
}

/* ~0.96 MiB with its 8 KiB ROM; with HP's 56 KiB of ROMs it still fits half the flash. */
#define ROM_CARD "--chip cx3 --ddr 58 --ddr-size 0x4000 --fw 2.40.7000"

static void test_powercut_drom(void **state)
{
	(void)state;
	campaign(DROM, "W25Q16", ROM_CARD, 0); /* slot 0 -> 1 */
}

static void test_powercut_brom(void **state)
{
	(void)state;
	campaign(BROM, "M25P16", ROM_CARD, 1); /* slot 1 -> 0 */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_powercut_w25q),
		cmocka_unit_test(test_powercut_m25p),
		cmocka_unit_test(test_powercut_backup_burn),
		cmocka_unit_test(test_powercut_sg),
		cmocka_unit_test(test_powercut_sv),
		cmocka_unit_test(test_powercut_sg_blank_in_place),
		cmocka_unit_test(test_powercut_drom),
		cmocka_unit_test(test_powercut_brom),
	};
	return cmocka_run_group_tests_name("powercut", tests, NULL, NULL);
}
