/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_setid_fs3_card.c — sg on a ConnectX-4 Lx (FS3) and a ConnectX-5 (FS4) card model, in
 * process, through setid_fs3_card() (ops/setid_fs3.h): a DEV_INFO that is lost (erased) or
 * whole gets the sticker's GUID and MAC; the refusals write nothing; and a power-cut campaign.
 *
 * The cards come from the tests' builder (fs3_builder.h, no code shared with burner/image),
 * laid out as mstflint expects a real card: FS4 with two DEV_INFO places in its DTOC (the
 * spare erased), FS3 with its DEV_INFO 4 KiB below MFG_INFO and the place 8 KiB below free
 * (fs3_ops.cpp Fs3GetNewSectionAddr). What a card holds after a write or a cut is judged by
 * this file's own reader of the builder's layout (judge_fs4, judge_fs3: the signature, the
 * CRC16 by the builder's f3_crc, the GUID), and what it boots by the model's boot ROM.
 *
 * The campaign cuts the power (cxsim_clone + cxsim_power_cycle, as test_powercut_fs3_card.c)
 * at every flash write command as it is sent and every n-th config access from the first
 * one on; at each: the model boots an image; the card holds a whole DEV_INFO in use, with
 * the old GUID or the new one (a lost one: none yet, or the new one), every other device
 * section as before; and for a sample of distinct cut states a second sg from there finishes
 * with the new GUID alone in use. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "card_fixture.h"
#include "fs3_card.h"
#include "fs3_sim_card.h"
#include "ops/setid_fs3.h"
#include "sim_cfg.h"

#define MIN_CUTS 2000
#define NEW_GUID 0x0002c90300beef00ull  /* the sticker's */
#define NEW_MAC 0x0002c9beef00ull
#define MFG_ADDR 0x1a000u               /* the builder's MFG_INFO */
#define DEV_A 0x1b000u                  /* FS4: the builder's DEV_INFO, and its spare: */
#define DEV_B 0x1c000u
#define FS3_DEV 0x19000u                /* FS3: MFG_INFO - 4 KiB, and its second place: */
#define FS3_DEV2 0x18000u               /* MFG_INFO - 8 KiB */
#define DEV_LEN 0x200u
#define IMG_SPAN 0x1a000u

static struct f3 img;

static uint32_t f3_get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t f3_get64(const uint8_t *p)
{
	return (uint64_t)f3_get32(p) << 32 | f3_get32(p + 4);
}

/* The card's image: FS4 with an erased spare DEV_INFO of the same kind (INSECTION, 0x200);
 * FS3 with its DEV_INFO at MFG_INFO - 4 KiB. override: MFG_INFO's guids_override_en. */
static void build(bool fs4, bool override)
{
	struct f3_spec s = f3_defaults(fs4);

	s.override_en = override;
	f3_build(&img, &s);
	fc_card_devdata(&img, SC_GUID);
	if (fs4) {
		for (int i = 0; i < img.n; i++)
			if (img.ents[i].type == 0xe1 && img.ents[i].addr == DEV_B) {
				img.ents[i].size = DEV_LEN;
				img.ents[i].crc = F3_IN_SECTION;
			}
		f3_write(&img);
		memset(img.buf + DEV_B, 0xff, 0x1000);
		f3_write(&img); /* the spare's CRC dword over 0xFF: still no signature */
	} else {
		fc_move(&img, 0xe1, FS3_DEV);
	}
	sc_set_slot_log(&img, 20); /* 1 MiB slots: both in the 4 MiB part */
}

static struct cxsim_card *card(enum cxsim_chip chip, int slot, bool wp)
{
	struct cxsim_card *c = sc_new_part(chip, wp, "W25Q32");

	assert_non_null(c);
	sc_install(c, &img, slot);
	if (chip == CXSIM_CX4LX) /* the builder's image part covers FS3_DEV: put the device data back */
		for (int i = 0; i < img.n; i++)
			if (sc_is_dev(&img.ents[i]))
				memcpy(cxsim_flash(c, &(size_t){0}) + img.ents[i].addr, img.buf + img.ents[i].addr,
				       img.ents[i].size);
	cxsim_flash_changed(c);
	cxsim_power_cycle(c);
	assert_true(cxsim_boot_info(c)->booted);
	return c;
}

static void lose_dev_info(struct cxsim_card *c, bool fs4)
{
	size_t n;
	uint8_t *f = cxsim_flash(c, &n);

	memset(f + (fs4 ? DEV_A : FS3_DEV), 0xff, 0x1000);
	cxsim_flash_changed(c);
	cxsim_power_cycle(c);
}

static int run_sg(struct cxsim_card *c, const struct setid_fs3_opts *o, struct setid_fs3_result *r,
		  struct cx_status *st)
{
	struct device d;

	card_open_listed(&d, c);
	int rc = setid_fs3_card(&d, o, r, st);
	device_close(&d);
	return rc;
}

static struct setid_fs3_opts sticker(void)
{
	return (struct setid_fs3_opts){.rq = {true, true, NEW_GUID, NEW_MAC}};
}

/* ---- the judge: what DEV_INFO a flash holds in use ---- */

struct judged {
	int whole;          /* DEV_INFO in use that are whole */
	int broken;         /* FS4: signed, so taken, but its CRC wrong: never allowed */
	uint64_t guid[2];
};

/* FS4: the DTOC's two places; one with its signature is in use (mstflint's verifyTocEntries
 * and, UNCONFIRMED, the firmware); whole when its in-section CRC holds too. */
static struct judged judge_fs4(const uint8_t *f)
{
	static const uint8_t sig[16] = {0x6d, 0x44, 0x65, 0x76, 0x49, 0x6e, 0x66, 0x6f,
					0x23, 0x42, 0xca, 0xfa, 0xba, 0xca, 0xfe, 0x00};
	struct judged j = {0};
	const uint32_t at[2] = {DEV_A, DEV_B};

	for (int i = 0; i < 2; i++) {
		const uint8_t *d = f + at[i];
		if (memcmp(d, sig, 16))
			continue;
		if ((f3_get32(d + DEV_LEN - 4) & 0xffff) == f3_crc(d, DEV_LEN - 4))
			j.guid[j.whole++] = f3_get64(d + 0x28);
		else
			j.broken++;
	}
	return j;
}

/* FS3: the DEV_INFO entry of the ITOC of the image the model boots; whole when its CRC holds. */
static struct judged judge_fs3(const uint8_t *f, uint32_t start)
{
	struct judged j = {0};
	const uint8_t *e = f + start + F3_ITOC + 32;

	for (; e[0] != 0xff; e += 32) {
		uint32_t d0 = f3_get32(e), d5 = f3_get32(e + 20), d6 = f3_get32(e + 24);
		if (d0 >> 24 != 0xe1)
			continue;
		uint32_t addr = d5 & 0x7ffffffcu, size = d0 & 0xfffffcu;
		if (size == DEV_LEN && (d6 & 0xffff) == f3_crc(f + addr, size))
			j.guid[j.whole++] = f3_get64(f + addr + 0x28);
	}
	return j;
}

static struct judged judge(struct cxsim_card *c, bool fs4)
{
	size_t n;
	const uint8_t *f = cxsim_flash(c, &n);

	return fs4 ? judge_fs4(f) : judge_fs3(f, cxsim_boot_info(c)->start);
}

/* Every device section but DEV_INFO as in before. */
static const char *others_diff(const uint8_t *before, const uint8_t *now, size_t n)
{
	static char why[80];

	for (int i = 0; i < img.n; i++) {
		const struct f3_ent *e = &img.ents[i];
		if (sc_is_dev(e) && e->type != 0xe1 && memcmp(before + e->addr, now + e->addr, e->size)) {
			snprintf(why, sizeof(why), "device section 0x%x at 0x%x changed", e->type, e->addr);
			return why;
		}
	}
	return img.s.fs4 && memcmp(before + n - 0x1000, now + n - 0x1000, 0x1000) ? "the DTOC changed" : NULL;
}

/* ---- what sg does ---- */

static void sg_ok(enum cxsim_chip chip, bool lost, int slot)
{
	bool fs4 = chip == CXSIM_CX5;
	struct setid_fs3_opts o = sticker();
	struct setid_fs3_result r;
	struct cx_status st = {0};
	size_t n;

	build(fs4, true);
	struct cxsim_card *c = card(chip, slot, false);
	if (lost)
		lose_dev_info(c, fs4);
	struct judged j0 = judge(c, fs4);
	assert_int_equal(j0.whole, lost ? 0 : 1);
	uint8_t *before = sc_snapshot(c, &n);
	uint32_t start0 = cxsim_boot_info(c)->start;

	if (run_sg(c, &o, &r, &st))
		fail_msg("sg: %s", st.msg);
	assert_false(r.nothing_to_do);
	assert_int_equal(r.old_valid, !lost);
	if (!lost)
		assert_true(r.old_guid == SC_GUID);
	assert_int_equal(r.reburned, !fs4);
	cxsim_power_cycle(c);
	const struct cxsim_boot *b = cxsim_boot_info(c);
	assert_true(b->booted);
	assert_int_equal(b->nvalid, 1);
	assert_int_equal(b->start, fs4 ? start0 : start0 ^ (1u << 20));
	struct judged j = judge(c, fs4);
	assert_int_equal(j.whole, 1);
	assert_true(j.guid[0] == NEW_GUID);
	const uint8_t *f = cxsim_flash(c, &n);
	const char *why = others_diff(before, f, n);
	if (why)
		fail_msg("%s", why);
	if (fs4 && !lost)
		assert_int_equal(f3_get32(f + DEV_A), 0); /* the old one zeroed, as mstflint does */
	/* The same again: nothing to do, nothing written. */
	uint64_t w0 = cxsim_counters(c)->gw_by_opcode[0x02];
	memset(&r, 0, sizeof(r));
	assert_int_equal(run_sg(c, &o, &r, &st), CX_OK);
	assert_true(r.nothing_to_do);
	assert_int_equal(cxsim_counters(c)->gw_by_opcode[0x02], w0);
	free(before);
	cxsim_free(c);
}

static void test_fs4_lost(void **state) { (void)state; sg_ok(CXSIM_CX5, true, 0); sg_ok(CXSIM_CX5, true, 1); }
static void test_fs4_change(void **state) { (void)state; sg_ok(CXSIM_CX5, false, 0); sg_ok(CXSIM_CX5, false, 1); }
static void test_fs3_lost(void **state) { (void)state; sg_ok(CXSIM_CX4LX, true, 0); sg_ok(CXSIM_CX4LX, true, 1); }
static void test_fs3_change(void **state) { (void)state; sg_ok(CXSIM_CX4LX, false, 0); sg_ok(CXSIM_CX4LX, false, 1); }

/* A refusal: its code, and not one flash write command. */
static void refused(struct cxsim_card *c, const struct setid_fs3_opts *o, int code, const char *words)
{
	struct setid_fs3_result r;
	struct cx_status st = {0};
	size_t n;
	uint8_t *before = sc_snapshot(c, &n);
	const uint64_t *op = cxsim_counters(c)->gw_by_opcode;
	uint64_t w0 = op[0x02] + op[0x20] + op[0xd8];

	int rc = run_sg(c, o, &r, &st);
	if (rc != code || !strstr(st.msg, words))
		fail_msg("expected %d (%s), got %d: %s", code, words, rc, st.msg);
	assert_null(strchr(st.msg, '\n'));
	assert_int_equal(op[0x02] + op[0x20] + op[0xd8], w0);
	assert_memory_equal(before, cxsim_flash(c, &n), n);
	free(before);
}

static void test_refusals(void **state)
{
	struct setid_fs3_opts o = sticker();
	(void)state;

	for (int fs4 = 0; fs4 < 2; fs4++) {
		enum cxsim_chip chip = fs4 ? CXSIM_CX5 : CXSIM_CX4LX;
		build(fs4, false); /* guids_override_en clear */
		struct cxsim_card *c = card(chip, 0, false);
		lose_dev_info(c, fs4);
		refused(c, &o, CX_EUNSUPPORTED, "guids override is not set");
		o.restore_mfg_ids = true;
		refused(c, &o, CX_EVALUE, "factory GUID");
		o.restore_mfg_ids = false;
		cxsim_free(c);

		build(fs4, true);
		c = card(chip, 0, false);
		struct setid_fs3_opts bad = {.rq = {false, true, 0, 0x0102c9000001ull}};
		refused(c, &bad, CX_EVALUE, "multicast");
		bad.rq.mac = 0x1000000000000ull;
		refused(c, &bad, CX_EVALUE, "48 bits");
		bad.rq = (struct fs3_sg_request){true, false, 0, 0};
		refused(c, &bad, CX_EVALUE, "blank");
		/* a damaged MFG_INFO: its CRC fails */
		size_t n;
		uint8_t *f = cxsim_flash(c, &n);
		memset(f + MFG_ADDR, 0xff, 0x1000); /* erased: its CRC fails */
		cxsim_flash_changed(c);
		refused(c, &o, CX_EIMAGE, "MFG_INFO");
		cxsim_free(c);

		c = card(chip, 0, true); /* write-protected */
		lose_dev_info(c, fs4);
		refused(c, &o, CX_EPROTECTED, "");
		cxsim_free(c);
	}
}

/* A card running secure firmware (MGIR): refused as a burn is, before anything is read. */
static void test_secure_fw_refused(void **state)
{
	struct setid_fs3_opts o = sticker();
	(void)state;

	for (int fs4 = 0; fs4 < 2; fs4++) {
		struct cxsim_card *c = sc_new_running(fs4 ? CXSIM_CX5 : CXSIM_CX4LX, false, "W25Q32", CXSIM_ICMD_SECURE_FW);
		build(fs4, true);
		sc_install(c, &img, 0);
		lose_dev_info(c, fs4);
		refused(c, &o, CX_EUNSUPPORTED, "secure firmware");
		cxsim_free(c);
	}
}

/* With guids_override_en clear, --restore-mfg-ids puts MFG_INFO's own GUID/MAC back. */
static void test_restore_mfg_ids(void **state)
{
	(void)state;
	for (int fs4 = 0; fs4 < 2; fs4++) {
		build(fs4, false);
		struct cxsim_card *c = card(fs4 ? CXSIM_CX5 : CXSIM_CX4LX, 0, false);
		lose_dev_info(c, fs4);
		/* fc_card_devdata gave MFG_INFO the card's GUID; its MAC is the builder's */
		struct setid_fs3_opts o = {.rq = {true, true, SC_GUID, 0x98039ba1b2c0ull}, .restore_mfg_ids = true};
		struct setid_fs3_result r;
		struct cx_status st = {0};
		if (run_sg(c, &o, &r, &st))
			fail_msg("sg --restore-mfg-ids: %s", st.msg);
		cxsim_power_cycle(c);
		struct judged j = judge(c, fs4);
		assert_int_equal(j.whole, 1);
		assert_true(j.guid[0] == SC_GUID);
		cxsim_free(c);
	}
}

/* The firmware running (not strapped): the flash through MFBA/MFBE (flash/fw_access.h). */
static void test_running(void **state)
{
	(void)state;
	for (int fs4 = 0; fs4 < 2; fs4++) {
		enum cxsim_chip chip = fs4 ? CXSIM_CX5 : CXSIM_CX4LX;
		struct cxsim_card *c = sc_new_running(chip, false, "W25Q32", CXSIM_ICMD_OK);
		struct setid_fs3_opts o = sticker();
		struct setid_fs3_result r;
		struct cx_status st = {0};
		build(fs4, true);
		sc_install(c, &img, 0);
		if (!fs4) {
			size_t n;
			uint8_t *f = cxsim_flash(c, &n);
			for (int i = 0; i < img.n; i++)
				if (sc_is_dev(&img.ents[i]))
					memcpy(f + img.ents[i].addr, img.buf + img.ents[i].addr, img.ents[i].size);
		}
		lose_dev_info(c, fs4);
		if (run_sg(c, &o, &r, &st))
			fail_msg("sg on a running card: %s", st.msg);
		cxsim_power_cycle(c);
		struct judged j = judge(c, fs4);
		assert_int_equal(j.whole, 1);
		assert_true(j.guid[0] == NEW_GUID);
		assert_true(cxsim_boot_info(c)->booted);
		cxsim_free(c);
	}
}

/* ---- the power-cut campaign ---- */

static uint64_t writes(const struct cxsim_card *c)
{
	const uint64_t *op = cxsim_counters(c)->gw_by_opcode;
	return op[0x20] + op[0xD8] + op[0x21] + op[0xDC] + op[0x52] + op[0xC7] + op[0x60] + op[0x02] + op[0x12];
}

struct camp {
	struct cxsim_card *card;
	bool fs4, lost;
	uint8_t *before;
	size_t n;
	uint64_t every, accesses, w_seen, wcmds, w0;
	uint64_t cuts, old_in_use, new_in_use, none_yet, two, retries;
	uint64_t *seen;
	size_t nseen, capseen;
	char failure[CX_MSG_MAX + 200];
};

static uint64_t fnv(const uint8_t *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

static bool seen_before(struct camp *k, uint64_t h)
{
	for (size_t i = 0; i < k->nseen; i++)
		if (k->seen[i] == h)
			return true;
	if (k->nseen == k->capseen) {
		k->capseen = k->capseen ? 2 * k->capseen : 256;
		k->seen = realloc(k->seen, k->capseen * sizeof(*k->seen));
		assert_non_null(k->seen);
	}
	k->seen[k->nseen++] = h;
	return false;
}

/* sg again from the cut state: the new GUID alone in use, the card booting. */
static void retry(struct camp *k, struct cxsim_card *clone, uint64_t at)
{
	struct setid_fs3_opts o = sticker();
	struct setid_fs3_result r;
	struct cx_status st = {0};

	k->retries++;
	if (run_sg(clone, &o, &r, &st)) {
		snprintf(k->failure, sizeof(k->failure), "cut at access %llu: sg again fails: %s", (unsigned long long)at,
			 st.msg);
		return;
	}
	cxsim_power_cycle(clone);
	struct judged j = judge(clone, k->fs4);
	if (!cxsim_boot_info(clone)->booted || j.whole != 1 || j.guid[0] != NEW_GUID)
		snprintf(k->failure, sizeof(k->failure), "cut at access %llu: after sg again %d whole DEV_INFO in use, "
			 "GUID %llx", (unsigned long long)at, j.whole, (unsigned long long)j.guid[0]);
}

static void cut(struct camp *k, struct cxsim_card *card, bool at_command)
{
	struct cxsim_card *clone = cxsim_clone(card);
	size_t n;

	if (!clone) {
		snprintf(k->failure, sizeof(k->failure), "out of memory");
		return;
	}
	cxsim_power_cycle(clone);
	k->cuts++;
	const struct cxsim_boot *b = cxsim_boot_info(clone);
	const uint8_t *f = cxsim_flash(clone, &n);
	struct judged j = b->booted ? judge(clone, k->fs4) : (struct judged){0};
	const char *why = others_diff(k->before, f, n);
	bool ids_ok = j.whole <= 2 && (j.whole > 0 || k->lost) && !j.broken;
	for (int i = 0; i < j.whole; i++)
		ids_ok &= j.guid[i] == NEW_GUID || (!k->lost && j.guid[i] == SC_GUID);
	if (!b->booted)
		snprintf(k->failure, sizeof(k->failure), "cut at access %llu: the card does not boot: %s",
			 (unsigned long long)k->accesses, b->why);
	else if (!ids_ok)
		snprintf(k->failure, sizeof(k->failure), "cut at access %llu (write %llu): %d whole DEV_INFO in use, "
			 "%d signed and damaged (%llx %llx)", (unsigned long long)k->accesses,
			 (unsigned long long)(k->w_seen - k->w0), j.whole, j.broken,
			 (unsigned long long)j.guid[0], (unsigned long long)j.guid[1]);
	else if (why)
		snprintf(k->failure, sizeof(k->failure), "cut at access %llu: %s", (unsigned long long)k->accesses, why);
	if (!k->failure[0]) {
		k->none_yet += j.whole == 0;
		k->two += j.whole == 2;
		k->old_in_use += j.whole >= 1 && j.guid[0] == SC_GUID && (j.whole == 1 || j.guid[1] == SC_GUID);
		k->new_in_use += j.whole >= 1 && j.guid[j.whole - 1] == NEW_GUID;
		bool near_end = k->w_seen - k->w0 + 8 > k->wcmds;
		static uint64_t inner;
		if (!seen_before(k, fnv(f, n)) && (near_end || at_command || inner++ % 5 == 0))
			retry(k, clone, k->accesses);
	}
	cxsim_free(clone);
}

static void cut_hook(void *ctx, struct cxsim_card *card)
{
	struct camp *k = ctx;

	if (card != k->card || k->failure[0])
		return;
	k->accesses++;
	uint64_t w = writes(card);
	if (w != k->w_seen) {
		k->w_seen = w;
		cut(k, card, true);
	} else if (w != k->w0 && k->accesses % k->every == 0) {
		cut(k, card, false);
	}
}

struct counting {
	struct cxsim_card *card;
	uint64_t w0, accesses;
};

static void count_hook(void *ctx, struct cxsim_card *card)
{
	struct counting *k = ctx;
	k->accesses += card == k->card && writes(card) != k->w0;
}

static struct cxsim_card *campaign_card(enum cxsim_chip chip, bool lost, int slot)
{
	build(chip == CXSIM_CX5, true);
	struct cxsim_card *c = card(chip, slot, false);
	if (lost)
		lose_dev_info(c, chip == CXSIM_CX5);
	return c;
}

static void campaign(enum cxsim_chip chip, bool lost, int slot, uint64_t target, uint64_t *total)
{
	struct setid_fs3_opts o = sticker();
	struct setid_fs3_result r;
	struct cx_status st = {0};
	struct counting cnt = {.card = campaign_card(chip, lost, slot)};

	cnt.w0 = writes(cnt.card);
	sim_cfg_set_hook(count_hook, &cnt);
	assert_int_equal(run_sg(cnt.card, &o, &r, &st), CX_OK);
	sim_cfg_set_hook(NULL, NULL);
	uint64_t wcmds = writes(cnt.card) - cnt.w0;
	cxsim_free(cnt.card);

	struct camp k = {.fs4 = chip == CXSIM_CX5, .lost = lost, .card = campaign_card(chip, lost, slot)};
	k.before = sc_snapshot(k.card, &k.n);
	k.w_seen = k.w0 = writes(k.card);
	k.wcmds = wcmds;
	k.every = cnt.accesses / (target > wcmds ? target - wcmds : 1);
	if (k.every < 1)
		k.every = 1;
	sim_cfg_set_hook(cut_hook, &k);
	int rc = run_sg(k.card, &o, &r, &st);
	sim_cfg_set_hook(NULL, NULL);
	printf("  %s, DEV_INFO %s, image in slot %d: %llu write commands, %llu cuts (every %llu accesses and at "
	       "each command): old GUID in use %llu, new %llu, none yet %llu, two whole %llu; %llu sg again, all "
	       "finished\n", cxsim_chip_name(chip), lost ? "lost" : "whole", slot, (unsigned long long)wcmds,
	       (unsigned long long)k.cuts, (unsigned long long)k.every, (unsigned long long)k.old_in_use,
	       (unsigned long long)k.new_in_use, (unsigned long long)k.none_yet, (unsigned long long)k.two,
	       (unsigned long long)k.retries);
	if (k.failure[0])
		fail_msg("%s: %s", cxsim_chip_name(chip), k.failure);
	if (rc)
		fail_msg("sg itself: %s", st.msg);
	assert_true(k.new_in_use > 0);
	assert_true(lost ? k.none_yet > 0 : k.old_in_use > 0);
	*total += k.cuts;
	free(k.seen);
	free(k.before);
	cxsim_free(k.card);
}

static void chip_campaign(enum cxsim_chip chip)
{
	uint64_t total = 0;

	printf("%s (%s):\n", cxsim_chip_name(chip), chip == CXSIM_CX5 ? "FS4" : "FS3");
	for (int lost = 0; lost < 2; lost++)
		for (int slot = 0; slot < 2; slot++)
			campaign(chip, lost, slot, MIN_CUTS / 4 + 20, &total);
	printf("%s total: %llu cut points, none unbootable, a whole DEV_INFO with the old or the new GUID at each\n",
	       cxsim_chip_name(chip), (unsigned long long)total);
	assert_true(total >= MIN_CUTS);
}

/* The power drops and comes back at once, delay config accesses after the cut_w-th write
 * command of sg was sent; the gateway then stays busy until cxflash gives its command up (as
 * test_powercut_fs3_card.c's brownout). What cxflash then says the card is must be what the
 * model shows: an image that boots (never partly-written: no step of the order breaks it),
 * and the DEV_INFO the judge finds whole. */
struct brownout {
	struct cxsim_card *card;
	uint64_t w0, cut_w, delay, after, reads_at;
	int phase;
};

static void brownout_hook(void *ctx, struct cxsim_card *card)
{
	struct brownout *b = ctx;

	if (card != b->card)
		return;
	if (b->phase == 0 && writes(card) - b->w0 >= b->cut_w && b->after++ >= b->delay) {
		cxsim_power_cycle(card);
		cxsim_params_mut(card)->stuck_busy = true;
		b->reads_at = cxsim_counters(card)->cr_reads;
		b->phase = 1;
	} else if (b->phase == 1 && cxsim_counters(card)->cr_reads - b->reads_at >= 64) {
		cxsim_params_mut(card)->stuck_busy = false;
		b->phase = 2;
	}
}

static void state_campaign(enum cxsim_chip chip)
{
	bool fs4 = chip == CXSIM_CX5;
	unsigned runs = 0, seen[4] = {0};

	for (int lost = 0; lost < 2; lost++) {
		struct cxsim_card *c = campaign_card(chip, lost, 0);
		struct setid_fs3_opts o = sticker();
		struct setid_fs3_result r;
		struct cx_status st = {0};
		uint64_t w0 = writes(c);
		assert_int_equal(run_sg(c, &o, &r, &st), CX_OK);
		uint64_t wcmds = writes(c) - w0;
		cxsim_free(c);
		for (uint64_t w = 1; w <= wcmds; w++)
			for (uint64_t delay = 0; delay <= 40; delay += 40, runs++) {
				struct brownout b = {.card = campaign_card(chip, lost, 0), .cut_w = w, .delay = delay};
				b.w0 = writes(b.card);
				memset(&st, 0, sizeof(st));
				sim_cfg_set_hook(brownout_hook, &b);
				int rc = run_sg(b.card, &o, &r, &st);
				sim_cfg_set_hook(NULL, NULL);
				cxsim_params_mut(b.card)->stuck_busy = false;
				cxsim_power_cycle(b.card);
				struct judged j = judge(b.card, fs4);
				if (b.phase != 2 || rc == CX_OK || !cxsim_boot_info(b.card)->booted ||
				    (r.out.state != CARD_OLD_BOOTS && r.out.state != CARD_NEW_BOOTS) || j.broken ||
				    (!lost && !j.whole))
					fail_msg("%s, DEV_INFO %s, cut %llu accesses after write %llu: sg returned %d, says %s, "
						 "%d whole DEV_INFO: %s", cxsim_chip_name(chip), lost ? "lost" : "whole",
						 (unsigned long long)delay, (unsigned long long)w, rc,
						 card_state_name(r.out.state), j.whole, st.msg);
				seen[r.out.state]++;
				cxsim_free(b.card);
			}
	}
	printf("%s: %u runs of sg cut (power off and on, the command failing): cxflash said old-image-boots %u, "
	       "new-image-boots %u; partly-written 0\n", cxsim_chip_name(chip), runs, seen[CARD_OLD_BOOTS],
	       seen[CARD_NEW_BOOTS]);
}

static void test_fs4_state(void **state) { (void)state; state_campaign(CXSIM_CX5); }
static void test_fs3_state(void **state) { (void)state; state_campaign(CXSIM_CX4LX); }

static void test_fs3_cuts(void **state) { (void)state; chip_campaign(CXSIM_CX4LX); }
static void test_fs4_cuts(void **state) { (void)state; chip_campaign(CXSIM_CX5); }

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fs4_lost),     cmocka_unit_test(test_fs4_change),
		cmocka_unit_test(test_fs3_lost),     cmocka_unit_test(test_fs3_change),
		cmocka_unit_test(test_refusals),     cmocka_unit_test(test_restore_mfg_ids),
		cmocka_unit_test(test_running),      cmocka_unit_test(test_secure_fw_refused),
		cmocka_unit_test(test_fs4_state),    cmocka_unit_test(test_fs3_state),
		cmocka_unit_test(test_fs4_cuts),
		cmocka_unit_test(test_fs3_cuts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
