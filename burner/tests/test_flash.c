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
#include "card_image.h"
#include "prng.h"
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
	assert_int_equal(chip_open(&r->chip, &r->cfg, cxsim_pci_device_now(card), 0, &r->st), CX_OK);
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

	prng_fill(m, size, seed);
	cxsim_flash_changed(r->card);
	return m;
}

static uint64_t accesses(struct rig *r)
{
	return cnt(r)->cfg_reads + cnt(r)->cfg_writes;
}

/* ---- parts table and ID decoding (§3.4) ---- */

static int check_damaged(unsigned kind, char *msg, size_t len)
{
	struct fl_part t[64];
	unsigned n = fl_nparts;

	memcpy(t, fl_parts, n * sizeof(*t));
	switch (kind) {
	case 0: t[n++] = t[0]; break;                         /* duplicate ID range */
	case 1: t[0].erase_op = 0xD8; break;                  /* 0xD8 with 4 KiB sectors */
	case 2: t[3].init_sr = FL_NO_INIT_SR; break;          /* SST without its WRSR value */
	case 3: t[1].log2_max = 0x1A; break;                  /* 64 MiB: larger than any part */
	case 4: t[3].init_sr = 0x9C; break;                   /* "unprotect" that sets BP bits */
	case 5: t[2].name = ""; break;
	case 6: t[2].vendor = 0xFF; break;
	case 7: t[2].bp_mask = 0; break;
	}
	return fl_parts_selfcheck(t, n, msg, len);
}

static void test_parts_selfcheck(void **state)
{
	static const char *says[] = {"ambiguous", "erase opcode", "SST", "32 MiB", "block-protect",
				     "no name", "absent", "protect bits"};
	char msg[160] = "";
	(void)state;

	assert_true(fl_nparts > 0 && fl_nparts < 60);
	assert_int_equal(fl_parts_selfcheck(fl_parts, fl_nparts, msg, sizeof(msg)), 0);
	/* Each kind of damage is caught, so the pass above means something. */
	for (unsigned k = 0; k < sizeof(says) / sizeof(says[0]); k++) {
		msg[0] = '\0';
		assert_int_equal(check_damaged(k, msg, sizeof(msg)), -1);
		if (!strstr(msg, says[k]))
			fail_msg("damage %u: '%s' lacks '%s'", k, msg, says[k]);
	}
}

static const struct fl_part *jedec_part(uint8_t v, uint8_t t, uint8_t d, enum fl_id_kind want,
					unsigned log2)
{
	const uint8_t id[3] = {v, t, d};
	struct fl_id out;

	assert_int_equal(fl_decode_jedec(id, &out), want);
	if (want != FL_ID_OK)
		return NULL;
	assert_int_equal(out.log2size, log2);
	return fl_part_lookup(&out);
}

static void test_decode_jedec(void **state)
{
	(void)state;
	assert_string_equal(jedec_part(0xEF, 0x40, 0x15, FL_ID_OK, 0x15)->name, "W25QxxBV");
	assert_string_equal(jedec_part(0x20, 0x20, 0x14, FL_ID_OK, 0x14)->name, "M25Pxx");
	assert_string_equal(jedec_part(0x20, 0x20, 0x18, FL_ID_OK, 0x18)->name, "M25Pxx");
	assert_null(jedec_part(0x20, 0x20, 0x19, FL_ID_OK, 0x19));     /* 32 MiB: not legacy */
	assert_null(jedec_part(0x20, 0x20, 0x13, FL_ID_OK, 0x13));     /* 512 KiB: not legacy */
	assert_null(jedec_part(0xEF, 0x70, 0x17, FL_ID_OK, 0x17));     /* W25Qxxx: 16 MiB only */
	assert_string_equal(jedec_part(0xEF, 0x70, 0x18, FL_ID_OK, 0x18)->name, "W25Qxxx");
	/* SST density map, §3.4 step 4. */
	assert_string_equal(jedec_part(0xBF, 0x25, 0x41, FL_ID_OK, 0x15)->name, "SST25VFxx");
	assert_string_equal(jedec_part(0xBF, 0x25, 0x4A, FL_ID_OK, 0x16)->name, "SST25VFxx");
	assert_string_equal(jedec_part(0xBF, 0x25, 0x8E, FL_ID_OK, 0x14)->name, "SST25VFxx");
	assert_null(jedec_part(0xBF, 0x25, 0x8D, FL_ID_OK, 0x13));     /* 512 KiB */
	jedec_part(0xBF, 0x25, 0x15, FL_ID_BAD_SIZE, 0);
	/* Atmel: type = bits 23:21, capacity 20:16 (4..7 → 0x13..0x16), §3.4 step 2. */
	assert_string_equal(jedec_part(0x1F, 0x46, 0x01, FL_ID_OK, 0x15)->name, "AT25DFxxx");
	assert_string_equal(jedec_part(0x1F, 0x47, 0x01, FL_ID_OK, 0x16)->name, "AT25DFxxx");
	jedec_part(0x1F, 0x43, 0x01, FL_ID_BAD_SIZE, 0);
	/* Nothing answered. */
	jedec_part(0xFF, 0xFF, 0xFF, FL_ID_NONE, 0);
	jedec_part(0x00, 0x00, 0x00, FL_ID_NONE, 0);
	assert_null(jedec_part(0xFF, 0x00, 0xFF, FL_ID_OK, 0xFF));
	/* [HEAD]: density 0x20 means 64 MiB. */
	jedec_part(0xEF, 0x40, 0x20, FL_ID_OK, 0x1A);
}

static void test_decode_res(void **state)
{
	struct fl_id id;
	(void)state;

	for (unsigned es = 0x10; es <= 0x16; es++) {
		assert_int_equal(fl_decode_res((uint8_t)es, &id), FL_ID_OK);
		assert_int_equal(id.log2size, es + 1);
		assert_int_equal(id.vendor, 0x20);
		assert_int_equal(id.type, 0x20);
		if (es + 1 >= FL_LOG2_LEGACY_MIN)
			assert_string_equal(fl_part_lookup(&id)->name, "M25Pxx");
		else
			assert_null(fl_part_lookup(&id));
	}
	assert_int_equal(fl_decode_res(0xFF, &id), FL_ID_NONE);
	assert_int_equal(fl_decode_res(0x00, &id), FL_ID_NONE);
	assert_int_equal(fl_decode_res(0x17, &id), FL_ID_UNSUPPORTED);
	assert_int_equal(fl_decode_res(0x0F, &id), FL_ID_UNSUPPORTED);
	assert_int_equal(fl_decode_res(0xBF, &id), FL_ID_UNSUPPORTED);
}

/* ---- identification on the model ---- */

static const struct { const char *part, *family; uint32_t size; uint8_t res; } model_parts[] = {
	{"M25P80", "M25Pxx", 1 * MIB, 0x13},       {"M25P16", "M25Pxx", 2 * MIB, 0x14},
	{"M25P32", "M25Pxx", 4 * MIB, 0x15},       {"W25Q80", "W25QxxBV", 1 * MIB, 0x13},
	{"W25Q16", "W25QxxBV", 2 * MIB, 0x14},     {"W25Q32", "W25QxxBV", 4 * MIB, 0x15},
	{"SST25VF080B", "SST25VFxx", 1 * MIB, 0},  {"SST25VF016B", "SST25VFxx", 2 * MIB, 0},
	{"SST25VF032B", "SST25VFxx", 4 * MIB, 0},
};

static void test_identify_every_part(void **state)
{
	static const uint8_t writes[] = {0x01, 0x02, 0x06, 0x20, 0x52, 0xC7, 0xD8, 0x60};
	(void)state;

	for (unsigned i = 0; i < sizeof(model_parts) / sizeof(model_parts[0]); i++) {
		struct rig r;
		char d[80];

		open_part(&r, model_parts[i].part);
		assert_string_equal(r.f.part->name, model_parts[i].family);
		assert_int_equal(r.f.size, model_parts[i].size);
		assert_false(r.f.by_res);
		flash_describe(&r.f, d, sizeof(d));
		assert_non_null(strstr(d, model_parts[i].family));
		/* flash_open writes nothing to the flash. */
		for (unsigned k = 0; k < sizeof(writes); k++)
			assert_int_equal(cnt(&r)->gw_by_opcode[writes[k]], 0);
		assert_int_equal(cnt(&r)->bytes_programmed + cnt(&r)->erases, 0);
		assert_int_equal(cnt(&r)->gw_by_opcode[0x9F], 1);
		assert_int_equal(cnt(&r)->gw_by_opcode[0xAB], 0); /* RES only when RDID fails */
		done(&r);
	}
}

/* The RES fallback reads the signature where the datasheets put it. */
static void test_res_signature_on_model(void **state)
{
	(void)state;
	for (unsigned i = 0; i < sizeof(model_parts) / sizeof(model_parts[0]); i++) {
		struct rig r;
		struct fl_id id;
		uint8_t es = 0;

		if (!model_parts[i].res)
			continue; /* SST answers RES with its manufacturer/device ID pair */
		open_part(&r, model_parts[i].part);
		assert_int_equal(fl_spi_res(&r.f, &es, &r.st), CX_OK);
		assert_int_equal(es, model_parts[i].res);
		assert_int_equal(fl_decode_res(es, &id), FL_ID_OK);
		assert_int_equal(1u << id.log2size, model_parts[i].size);
		done(&r);
	}
}

/* ---- reading ---- */

static void test_read_whole_flash(void **state)
{
	static const char *parts[] = {"W25Q16", "M25P32", "SST25VF080B"};
	(void)state;

	for (unsigned i = 0; i < 3; i++) {
		struct rig r;
		size_t size;

		open_part(&r, parts[i]);
		uint8_t *m = model_fill(&r, 0xC0FFEE + i);
		uint8_t *buf = malloc(r.f.size);
		assert_non_null(buf);
		assert_int_equal(flash_read(&r.f, 0, buf, r.f.size, &r.st), CX_OK);
		cxsim_flash(r.card, &size);
		assert_int_equal(size, r.f.size);
		assert_memory_equal(buf, m, size);
		assert_int_equal(r.f.stats.bytes_read, size);
		assert_int_equal(cnt(&r)->bytes_read, size);
		free(buf);
		done(&r);
	}
}

static void test_read_unaligned_and_bounds(void **state)
{
	static const uint32_t cases[][2] = {
		{0, 0}, {0, 1}, {1, 1}, {15, 1}, {15, 2}, {3, 13}, {5, 17}, {0x1001, 0x3FF},
		{0x12345, 4097}, {0x1FFFF0, 16}, {0x1FFFFF, 1}, {0x1FFFEB, 0x15}, {7, 256 + 9},
	};
	struct rig r;
	uint8_t buf[8192];
	(void)state;

	open_part(&r, "W25Q16");
	uint8_t *m = model_fill(&r, 77);
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint32_t a = cases[i][0], n = cases[i][1];

		memset(buf, 0x5A, sizeof(buf));
		assert_int_equal(flash_read(&r.f, a, buf, n, &r.st), CX_OK);
		assert_memory_equal(buf, m + a, n);
		assert_int_equal(buf[n], 0x5A); /* nothing written past len */
	}
	/* Beyond the end: refused before any transaction. */
	uint64_t gw = cnt(&r)->gw_cmds;
	assert_int_equal(flash_read(&r.f, 0x1FFFFF, buf, 2, &r.st), CX_EVALUE);
	assert_non_null(strstr(r.st.msg, "beyond the end"));
	cx_status_clear(&r.st);
	assert_int_equal(flash_read(&r.f, 0xFFFFFFF0u, buf, 0x20, &r.st), CX_EVALUE);
	assert_int_equal(cnt(&r)->gw_cmds, gw);
	done(&r);
}

/* ---- write protection (§4.1 item 5, §3.4 step 8) ---- */

static void test_write_protected_refused(void **state)
{
	static const char *parts[] = {"W25Q16", "M25P16"};
	(void)state;

	for (unsigned i = 0; i < 2; i++) {
		struct cxsim_params p = params(parts[i]);
		struct rig r;
		bool wp = false;
		uint8_t data[512];
		size_t size;

		p.write_protect = true;
		open_card(&r, &p);
		uint8_t *m = model_fill(&r, 5);
		uint8_t *before = malloc(r.f.size);
		assert_non_null(before);
		memcpy(before, m, r.f.size);
		assert_int_equal(flash_is_write_protected(&r.f, &wp, &r.st), CX_OK);
		assert_true(wp);
		assert_false(flash_clears_protection(&r.f));
		assert_int_equal(flash_prepare_write(&r.f, &r.st), CX_EPROTECTED);
		assert_non_null(strstr(r.st.msg, "write-protected"));
		assert_non_null(strstr(r.st.msg, "Nothing was erased"));
		cx_status_clear(&r.st);
		assert_int_equal(flash_erase(&r.f, 0, 0x10000, &r.st), CX_EPROTECTED);
		cx_status_clear(&r.st);
		memset(data, 0, sizeof(data));
		assert_int_equal(flash_program(&r.f, 0x100, data, sizeof(data), &r.st), CX_EPROTECTED);
		/* Nothing reached the flash: not even a write enable. */
		assert_int_equal(cnt(&r)->erases, 0);
		assert_int_equal(cnt(&r)->bytes_erased, 0);
		assert_int_equal(cnt(&r)->bytes_programmed, 0);
		assert_int_equal(cnt(&r)->gw_by_opcode[0x06], 0);
		assert_int_equal(cnt(&r)->gw_by_opcode[0x01], 0);
		assert_memory_equal(cxsim_flash(r.card, &size), before, r.f.size);
		free(before);
		done(&r);
	}
}

/* SST powers on protected; flash_prepare_write clears it with WRSR 0x80 (§3.4 step 8). */
static void test_sst_unprotected_by_prepare(void **state)
{
	struct cxsim_params p = params("SST25VF016B");
	struct rig r;
	bool wp = false;
	uint8_t data[40], got[40];
	(void)state;

	p.write_protect = true;
	open_card(&r, &p);
	assert_int_equal(flash_is_write_protected(&r.f, &wp, &r.st), CX_OK);
	assert_true(wp);
	assert_true(flash_clears_protection(&r.f));
	assert_int_equal(flash_prepare_write(&r.f, &r.st), CX_OK);
	assert_int_equal(cnt(&r)->gw_by_opcode[0x01], 1);
	assert_int_equal(flash_is_write_protected(&r.f, &wp, &r.st), CX_OK);
	assert_false(wp);
	assert_int_equal(flash_prepare_write(&r.f, &r.st), CX_OK); /* idempotent */
	assert_int_equal(cnt(&r)->gw_by_opcode[0x01], 1);
	/* The top block is writable now (BP=7 protected all of it before). */
	prng_fill(data, sizeof(data), 9);
	assert_int_equal(flash_erase(&r.f, r.f.size - 0x10000, 0x10000, &r.st), CX_OK);
	assert_int_equal(flash_program(&r.f, r.f.size - 40, data, sizeof(data), &r.st), CX_OK);
	assert_int_equal(flash_read(&r.f, r.f.size - 40, got, sizeof(got), &r.st), CX_OK);
	assert_memory_equal(got, data, sizeof(data));
	done(&r);
}

/* ---- erase ---- */

static void test_erase_64k_w25q16(void **state)
{
	struct rig r;
	uint8_t *blank = malloc(0x10000);
	(void)state;

	assert_non_null(blank);
	memset(blank, 0xFF, 0x10000);
	open_part(&r, "W25Q16");
	uint8_t *m = model_fill(&r, 11);
	uint8_t keep[2] = {m[0xFFFF], m[0x20000]};
	uint64_t t0 = cnt(&r)->time_ns;
	assert_int_equal(flash_erase(&r.f, 0x10000, 0x10000, &r.st), CX_OK);
	uint64_t dt = cnt(&r)->time_ns - t0;
	assert_int_equal(cnt(&r)->gw_by_opcode[0xD8], 1);
	assert_int_equal(cnt(&r)->gw_by_opcode[0x20], 0);
	assert_int_equal(cnt(&r)->erases, 1);
	assert_int_equal(cnt(&r)->bytes_erased, 0x10000);
	assert_int_equal(r.f.stats.bytes_erased, 0x10000);
	assert_memory_equal(m + 0x10000, blank, 0x10000);
	assert_int_equal(m[0xFFFF], keep[0]);
	assert_int_equal(m[0x20000], keep[1]);
	/* WIP polling waits in model time for the datasheet's 150 ms, and not much longer. */
	assert_true(dt >= 150 * MS);
	assert_true(dt < 152 * MS);

	/* 4 KiB: 0x20 and 45 ms. */
	t0 = cnt(&r)->time_ns;
	assert_int_equal(flash_erase(&r.f, 0x3000, 0x1000, &r.st), CX_OK);
	dt = cnt(&r)->time_ns - t0;
	assert_int_equal(cnt(&r)->gw_by_opcode[0x20], 1);
	assert_true(dt >= 45 * MS && dt < 47 * MS);
	assert_memory_equal(m + 0x3000, blank, 0x1000);
	assert_true(m[0x2FFF] != 0xFF || m[0x4000] != 0xFF);

	/* A range: 4 KiB up to the 64 KiB boundary, 64 KiB blocks, 4 KiB after. */
	cxsim_counters_reset(r.card);
	assert_int_equal(flash_erase(&r.f, 0x1E000, 0x23000, &r.st), CX_OK);
	assert_int_equal(cnt(&r)->gw_by_opcode[0x20], 2 + 1);
	assert_int_equal(cnt(&r)->gw_by_opcode[0xD8], 2);
	assert_int_equal(cnt(&r)->bytes_erased, 0x23000);

	/* Misaligned: refused, nothing sent. */
	uint64_t gw = cnt(&r)->gw_cmds;
	assert_int_equal(flash_erase(&r.f, 0x800, 0x1000, &r.st), CX_EVALUE);
	cx_status_clear(&r.st);
	assert_int_equal(flash_erase(&r.f, 0x1F0000, 0x20000, &r.st), CX_EVALUE);
	assert_int_equal(cnt(&r)->gw_cmds, gw);
	free(blank);
	done(&r);
}

static void test_erase_m25p16(void **state)
{
	struct rig r;
	(void)state;

	open_part(&r, "M25P16");
	assert_int_equal(flash_erase_unit(&r.f), 0x10000);
	model_fill(&r, 12);
	uint64_t t0 = cnt(&r)->time_ns;
	assert_int_equal(flash_erase(&r.f, 0x1F0000, 0x10000, &r.st), CX_OK);
	uint64_t dt = cnt(&r)->time_ns - t0;
	assert_int_equal(cnt(&r)->gw_by_opcode[0xD8], 1);
	assert_true(dt >= 600 * MS && dt < 602 * MS);
	/* M25P has no 4 KiB erase (0x20 is not decoded): refused, not sent. */
	assert_int_equal(flash_erase(&r.f, 0x1000, 0x1000, &r.st), CX_EVALUE);
	assert_non_null(strstr(r.st.msg, "64 KiB"));
	assert_int_equal(cnt(&r)->gw_by_opcode[0x20], 0);
	done(&r);
}

/* ---- program ---- */

/* Erase the units covering [a, a+n), program random data, read it back. */
static void roundtrip(const char *part, uint32_t a, uint32_t n, uint32_t seed)
{
	struct rig r;

	open_part(&r, part);
	uint8_t *m = model_fill(&r, seed);
	uint32_t unit = flash_erase_unit(&r.f);
	uint32_t lo = a & ~(unit - 1), hi = (a + n + unit - 1) & ~(unit - 1);
	uint8_t *data = malloc(n), *got = malloc(n), *around = malloc(r.f.size);
	assert_true(data && got && around);
	prng_fill(data, n, seed + 1);
	memcpy(around, m, r.f.size);
	assert_int_equal(flash_erase(&r.f, lo, hi - lo, &r.st), CX_OK);
	assert_int_equal(flash_program(&r.f, a, data, n, &r.st), CX_OK);
	assert_int_equal(flash_read(&r.f, a, got, n, &r.st), CX_OK);
	assert_memory_equal(got, data, n);
	assert_memory_equal(m + a, data, n);
	/* Erased but not programmed: 0xFF; outside the erase: untouched. */
	for (uint32_t i = lo; i < hi; i++)
		if (i < a || i >= a + n)
			assert_int_equal(m[i], 0xFF);
	assert_memory_equal(m, around, lo);
	assert_memory_equal(m + hi, around + hi, r.f.size - hi);
	if (!r.f.part->byte_program)
		assert_int_equal(cnt(&r)->gw_by_opcode[0x02], r.f.stats.pages_programmed);
	free(data);
	free(got);
	free(around);
	done(&r);
}

static void test_roundtrip_unaligned(void **state)
{
	(void)state;
	roundtrip("W25Q16", 0x10003, 70001, 21);
	roundtrip("W25Q16", 0x1FF00F, 0xFF1, 22);     /* to the last byte */
	roundtrip("M25P16", 0x2FFF1, 0x10020, 23);    /* crosses 64 KiB sectors */
	roundtrip("M25P80", 0, 300, 24);
	roundtrip("W25Q32", 0x3A0101, 1, 25);
	roundtrip("SST25VF016B", 0x1234F, 3001, 26);
	roundtrip("SST25VF032B", 0x3F0000, 17, 27);
}

static void test_all_ff_pages_skipped(void **state)
{
	struct rig r;
	uint8_t buf[4096];
	(void)state;

	open_part(&r, "W25Q16"); /* blank flash */
	memset(buf, 0xFF, sizeof(buf));
	assert_int_equal(flash_program(&r.f, 0, buf, sizeof(buf), &r.st), CX_OK);
	assert_int_equal(cnt(&r)->bytes_programmed, 0);
	assert_int_equal(cnt(&r)->gw_by_opcode[0x02], 0);
	assert_int_equal(cnt(&r)->gw_by_opcode[0x06], 0);
	assert_int_equal(r.f.stats.pages_skipped, 16);

	/* Page 0 full, page 1 blank, page 2 one byte: two page programs, 256 + 16 bytes. */
	prng_fill(buf, 256, 3);
	buf[0x280] = 0x00;
	assert_int_equal(flash_program(&r.f, 0, buf, 0x300, &r.st), CX_OK);
	assert_int_equal(cnt(&r)->gw_by_opcode[0x02], 2);
	assert_int_equal(cnt(&r)->bytes_programmed, 256 + 16);
	assert_int_equal(r.f.stats.bytes_programmed, 256 + 16);
	/* A page program is one WREN, then 16-byte pieces chained by CS_HOLD (§3.8). */
	assert_int_equal(cnt(&r)->gw_by_opcode[0x06], 2);
	size_t size;
	assert_memory_equal(cxsim_flash(r.card, &size), buf, 0x300);
	done(&r);
}

static void test_sst_byte_program(void **state)
{
	struct rig r;
	uint8_t data[64], got[64];
	unsigned non_ff = 0;
	(void)state;

	open_part(&r, "SST25VF016B");
	prng_fill(data, sizeof(data), 31);
	for (unsigned i = 0; i < sizeof(data); i += 5)
		data[i] = 0xFF;
	for (unsigned i = 0; i < sizeof(data); i++)
		non_ff += data[i] != 0xFF;
	assert_int_equal(flash_program(&r.f, 0x100F0, data, sizeof(data), &r.st), CX_OK);
	/* One 0x02 per byte, one byte each; WRSR 0x80 once before. */
	assert_int_equal(cnt(&r)->gw_by_opcode[0x02], non_ff);
	assert_int_equal(cnt(&r)->bytes_programmed, non_ff);
	assert_int_equal(cnt(&r)->gw_by_opcode[0x01], 1);
	assert_int_equal(flash_read(&r.f, 0x100F0, got, sizeof(got), &r.st), CX_OK);
	assert_memory_equal(got, data, sizeof(data));
	done(&r);
}

static void test_verify_mismatch(void **state)
{
	struct rig r;
	uint8_t data[32];
	size_t size;
	(void)state;

	open_part(&r, "W25Q16");
	uint8_t *m = cxsim_flash(r.card, &size);
	m[0x5007] = 0x00; /* not erased: programming cannot set bits */
	cxsim_flash_changed(r.card);
	memset(data, 0xA5, sizeof(data));
	assert_int_equal(flash_program(&r.f, 0x5000, data, sizeof(data), &r.st), CX_EFLASH);
	assert_non_null(strstr(r.st.msg, "verify failed at 0x005007"));
	done(&r);
}

static void test_program_bounds(void **state)
{
	struct rig r;
	uint8_t data[32] = {0};
	(void)state;

	open_part(&r, "W25Q16");
	assert_int_equal(flash_program(&r.f, r.f.size - 16, data, sizeof(data), &r.st), CX_EVALUE);
	assert_int_equal(cnt(&r)->gw_by_opcode[0x02] + cnt(&r)->gw_by_opcode[0x06], 0);
	done(&r);
}

/* ---- faults ---- */

static void test_stuck_busy(void **state)
{
	struct cxsim_params p = params("W25Q16");
	struct rig r;
	uint8_t buf[64];
	(void)state;

	/* At open: the first transaction times out. */
	p.stuck_busy = true;
	attach(&r, cxsim_new(&p));
	assert_int_equal(flash_open(&r.f, &r.chip, &r.st), CX_EFLASH);
	assert_non_null(strstr(r.st.msg, "stuck busy"));
	assert_int_equal(r.f.gw.busy_polls, FL_GW_BUSY_POLLS);
	done(&r);

	/* After open: read and erase fail the same way; nothing is erased. */
	open_part(&r, "W25Q16");
	cxsim_params_mut(r.card)->stuck_busy = true;
	assert_int_equal(flash_read(&r.f, 0, buf, sizeof(buf), &r.st), CX_EFLASH);
	cx_status_clear(&r.st);
	assert_int_equal(flash_erase(&r.f, 0, 0x1000, &r.st), CX_EFLASH);
	assert_non_null(strstr(r.st.msg, "stuck busy"));
	assert_int_equal(cnt(&r)->erases, 0);
	done(&r);
}

/* The card stops answering (power cut) in the middle of a read: CX_ENODEV. */
static void test_card_gone(void **state)
{
	struct rig r;
	uint8_t buf[4096];
	(void)state;

	open_part(&r, "W25Q16");
	cxsim_params_mut(r.card)->power_cut_after = accesses(&r) + 100;
	assert_int_equal(flash_read(&r.f, 0, buf, sizeof(buf), &r.st), CX_ENODEV);
	assert_false(cxsim_powered(r.card));
	chip_close(&r.chip);
	cxsim_free(r.card);
}

static void test_wo_addr_window(void **state)
{
	struct cxsim_params p = params("W25Q16");
	struct rig r;
	(void)state;

	p.wo_addr_window = true;
	open_card(&r, &p);
	assert_true(r.chip.cr.wo_addr);
	uint8_t *m = model_fill(&r, 41);
	uint8_t buf[5000], data[3000];
	assert_int_equal(flash_read(&r.f, 0x777, buf, sizeof(buf), &r.st), CX_OK);
	assert_memory_equal(buf, m + 0x777, sizeof(buf));
	prng_fill(data, sizeof(data), 42);
	assert_int_equal(flash_erase(&r.f, 0x40000, 0x1000, &r.st), CX_OK);
	assert_int_equal(flash_program(&r.f, 0x40011, data, sizeof(data), &r.st), CX_OK);
	assert_memory_equal(m + 0x40011, data, sizeof(data));
	done(&r);
}

/* Recovery mode (blank flash, livefish PCI ID) and normal mode work the same. */
static void test_recovery_and_normal_mode(void **state)
{
	(void)state;
	for (int normal = 0; normal < 2; normal++) {
		struct cxsim_params p = params("W25Q16");
		struct cxsim_card *card = cxsim_new(&p);
		struct rig r;
		size_t size;
		uint8_t data[1000];

		assert_non_null(card);
		if (normal)
			card_install(card, "--chip cx3", 0);
		attach(&r, card);
		assert_int_equal(r.chip.recovery, !normal);
		assert_int_equal(flash_open(&r.f, &r.chip, &r.st), CX_OK);
		uint8_t *m = cxsim_flash(card, &size), *buf = malloc(size);
		assert_non_null(buf);
		assert_int_equal(flash_read(&r.f, 0, buf, (uint32_t)size, &r.st), CX_OK);
		assert_memory_equal(buf, m, size);
		prng_fill(data, sizeof(data), 50);
		assert_int_equal(flash_erase(&r.f, 0x1F0000, 0x10000, &r.st), CX_OK);
		assert_int_equal(flash_program(&r.f, 0x1F0100, data, sizeof(data), &r.st), CX_OK);
		assert_memory_equal(m + 0x1F0100, data, sizeof(data));
		free(buf);
		done(&r);
	}
}

/* Raw gateway transactions, as a tool killed mid-command would have left them. */
static void raw_gw(struct rig *r, uint32_t cmd, uint32_t addr, const uint32_t *data)
{
	for (int i = 0; data && i < 4; i++)
		assert_int_equal(cr_write(&r->chip.cr, 0xF0410 + 4 * i, data[i], &r->st), CX_OK);
	assert_int_equal(cr_write(&r->chip.cr, 0xF0404, addr, &r->st), CX_OK);
	assert_int_equal(cr_write(&r->chip.cr, 0xF0400, cmd, &r->st), CX_OK);
}

static void test_chip_select_left_held(void **state)
{
	static const uint32_t words[4] = {0x00112233, 0x44556677, 0x8899AABB, 0xCCDDEEFF};
	static const uint8_t bytes[16] = {0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
					  0x88, 0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF};
	struct cxsim_params p = params("W25Q16");
	struct rig r;
	uint32_t v;
	uint8_t buf[0x100];
	size_t size;
	(void)state;

	/* The hazard exists: after a held PP, a JEDEC read is page data to the chip. */
	attach(&r, cxsim_new(&p));
	raw_gw(&r, RAW_WREN, 0, NULL);
	raw_gw(&r, RAW_PP_FIRST_HOLD, 0x1230, words);
	raw_gw(&r, RAW_JEDEC, 0, NULL);
	assert_int_equal(cr_read(&r.chip.cr, 0xF0410, &v, &r.st), CX_OK);
	assert_int_not_equal(v >> 8, 0xEF4015);
	done(&r);

	/* flash_open ends the held command first, then identifies the part. */
	attach(&r, cxsim_new(&p));
	raw_gw(&r, RAW_WREN, 0, NULL);
	raw_gw(&r, RAW_PP_FIRST_HOLD, 0x1230, words);
	assert_int_equal(flash_open(&r.f, &r.chip, &r.st), CX_OK);
	assert_string_equal(r.f.part->name, "W25QxxBV");
	assert_int_equal(flash_read(&r.f, 0x1200, buf, sizeof(buf), &r.st), CX_OK);
	assert_memory_equal(buf, cxsim_flash(r.card, &size) + 0x1200, sizeof(buf));
	/* The killed tool's 16 bytes were programmed when chip select dropped. */
	assert_memory_equal(buf + 0x30, bytes, 16);
	assert_int_equal(buf[0x2F], 0xFF);
	assert_int_equal(buf[0x40], 0xFF);
	done(&r);
}

/* Transactions started that had no command phase (cxflash's own phase-less word). */
static uint64_t phaseless(struct rig *r)
{
	uint64_t with_opcode = 0;

	for (int i = 0; i < 256; i++)
		with_opcode += cnt(r)->gw_by_opcode[i];
	return cnt(r)->gw_cmds - with_opcode;
}

/* No mstflint sends a command word without phases: flash_open sends one only when
 * the gateway shows a chained command left open (CS_HOLD in its last word). */
static void test_open_sends_no_command_of_its_own(void **state)
{
	static const uint32_t words[4] = {0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF};
	struct cxsim_params p = params("W25Q16");
	struct rig r;
	(void)state;

	/* A clean card, and one whose last transaction ended its command: none. */
	for (int finished = 0; finished < 2; finished++) {
		attach(&r, cxsim_new(&p));
		if (finished)
			raw_gw(&r, RAW_JEDEC, 0, NULL);
		assert_int_equal(flash_open(&r.f, &r.chip, &r.st), CX_OK);
		assert_int_equal(phaseless(&r), 0);
		done(&r);
	}
	/* A page program left with chip select held: exactly one, which ends it. */
	attach(&r, cxsim_new(&p));
	raw_gw(&r, RAW_WREN, 0, NULL);
	raw_gw(&r, RAW_PP_FIRST_HOLD, 0x1230, words);
	assert_int_equal(flash_open(&r.f, &r.chip, &r.st), CX_OK);
	assert_int_equal(phaseless(&r), 1);
	done(&r);
}

/* A command word left with BUSY set (the gateway never finished it): flash_open
 * polls it as gw_wait_ready does and fails, writing nothing to the card. */
static void test_gateway_found_busy(void **state)
{
	struct cxsim_params p = params("W25Q16");
	struct rig r;
	(void)state;

	p.stuck_busy = true;
	attach(&r, cxsim_new(&p));
	raw_gw(&r, RAW_JEDEC, 0, NULL);         /* stays BUSY: the fault */
	cxsim_params_mut(r.card)->stuck_busy = false;
	uint64_t w0 = cnt(&r)->cr_writes;
	assert_int_equal(flash_open(&r.f, &r.chip, &r.st), CX_EFLASH);
	assert_non_null(strstr(r.st.msg, "stuck busy"));
	assert_non_null(strstr(r.st.msg, "0x409f2215"));
	assert_int_equal(r.f.gw.busy_polls, FL_GW_BUSY_POLLS);
	assert_int_equal(cnt(&r)->cr_writes, w0);
	done(&r);
}

/* mstflint's livefish workaround (0xf3834 bits 28:27 = 2) follows 0x41270 on every
 * open, as in every mstflint, not the PCI ID: a card whose firmware is not up
 * but that shows its normal ID gets it; a running card gets no write at all. */
static void test_link_reset_follows_0x41270(void **state)
{
	(void)state;
	for (int booted = 0; booted < 2; booted++) {
		struct cxsim_params p = params("W25Q16");
		struct cxsim_card *card = cxsim_new(&p);
		struct rig r;
		uint32_t v;

		assert_non_null(card);
		if (booted)
			card_install(card, "--chip cx3", 0);
		memset(&r, 0, sizeof(r));
		r.card = card;
		sim_cfg_attach(&r.cfg, card, "0000:01:00.0");
		/* The normal PCI ID whatever the state: only 0x41270 decides. */
		assert_int_equal(chip_open(&r.chip, &r.cfg, 0x1003, 0, &r.st), CX_OK);
		assert_false(r.chip.recovery);
		assert_int_equal(cr_read(&r.chip.cr, 0xF3834, &v, &r.st), CX_OK);
		assert_int_equal(v >> 27 & 3, booted ? 0 : 2);
		if (booted)
			assert_int_equal(cnt(&r)->cr_writes, 0);
		chip_close(&r.chip);
		cxsim_free(card);
	}
}

/* A card of a family cxflash reads the files of but does not work on (dev/chip.h:
 * ConnectX-6 to 6 Lx), or a ConnectX-4 to 5 whose firmware runs but cannot be asked for
 * the flash (no ICMD space: this model has no VSEC): chip_open() names it after reading
 * its HW ID and writes nothing, not even the link-reset workaround a card without running
 * firmware would get; for the latter it names the flag that would write directly. */
static void test_files_only_families_refused(void **state)
{
	static const struct {
		uint16_t hw_id, pci;
		const char *name;
	} cards[] = {
		{0x209, 0x1013, "is a ConnectX-4 whose firmware runs"},
		{0x20B, 0x1015, "is a ConnectX-4 Lx whose firmware runs"},
		{0x20D, 0x1017, "is a ConnectX-5 whose firmware runs"}, {0x212, 0x0212, "is a ConnectX-6 Dx: "},
		{0x212, 0x101D, "is a ConnectX-6 Dx: "}, {0x216, 0x101F, "is a ConnectX-6 Lx: "},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cards) / sizeof(cards[0]); i++) {
		struct cxsim_params p = params("W25Q16");
		struct rig r;

		p.hw_id = cards[i].hw_id;
		r.card = cxsim_new(&p);   /* blank flash: 0x41270 says no firmware runs */
		assert_non_null(r.card);
		memset(&r.chip, 0, sizeof(r.chip));
		r.st = (struct cx_status){0};
		sim_cfg_attach(&r.cfg, r.card, "0000:01:00.0");
		assert_int_equal(chip_open(&r.chip, &r.cfg, cards[i].pci, 0, &r.st), CX_EUNSUPPORTED);
		assert_non_null(strstr(r.st.msg, cards[i].name));
		assert_non_null(strstr(r.st.msg, "nothing was written"));
		assert_true(!strstr(cards[i].name, "firmware runs") || strstr(r.st.msg, "--risk-fw-hang"));
		assert_int_equal(cnt(&r)->cr_writes, 0);
		assert_int_equal(cnt(&r)->gw_cmds, 0);
		cxsim_free(r.card);
	}
}

/* An erase left running by another tool: flash_open waits for it (model time). */
static void test_operation_left_running(void **state)
{
	struct cxsim_params p = params("M25P16");
	struct rig r;
	(void)state;

	attach(&r, cxsim_new(&p));
	raw_gw(&r, RAW_WREN, 0, NULL);
	raw_gw(&r, RAW_SE64, 0x20000, NULL);
	uint64_t t0 = cnt(&r)->time_ns;
	assert_int_equal(flash_open(&r.f, &r.chip, &r.st), CX_OK);
	assert_string_equal(r.f.part->name, "M25Pxx");
	assert_true(cnt(&r)->time_ns - t0 > 590 * MS);
	done(&r);

	/* A chip erase (13 s on M25P16) outlasts the bounded wait: a clear timeout. */
	attach(&r, cxsim_new(&p));
	raw_gw(&r, RAW_WREN, 0, NULL);
	raw_gw(&r, RAW_CHIP_ERASE, 0, NULL);
	assert_int_equal(flash_open(&r.f, &r.chip, &r.st), CX_EFLASH);
	assert_non_null(strstr(r.st.msg, "did not finish"));
	assert_int_equal(r.f.stats.wip_polls, FL_WIP_ERASE_RETRIES);
	done(&r);
}

/* ---- cost: config accesses and model time (reported; budgets asserted) ---- */

static void cost(const char *part, uint64_t t_page_ns, uint64_t t_erase_ns)
{
	struct rig r;
	uint8_t *buf = malloc(MIB);
	uint64_t a0, t0;
	(void)t_erase_ns;

	assert_non_null(buf);
	open_part(&r, part);

	a0 = accesses(&r), t0 = cnt(&r)->time_ns;
	assert_int_equal(flash_read(&r.f, 0, buf, MIB, &r.st), CX_OK);
	uint64_t ra = accesses(&r) - a0, rt = cnt(&r)->time_ns - t0;

	a0 = accesses(&r), t0 = cnt(&r)->time_ns;
	assert_int_equal(flash_erase(&r.f, 0x10000, 0x10000, &r.st), CX_OK);
	uint64_t ea = accesses(&r) - a0, et = cnt(&r)->time_ns - t0;

	prng_fill(buf, 0x10000, 99);
	a0 = accesses(&r), t0 = cnt(&r)->time_ns;
	assert_int_equal(flash_program(&r.f, 0x10000, buf, 0x10000, &r.st), CX_OK);
	uint64_t pa = accesses(&r) - a0, pt = cnt(&r)->time_ns - t0;

	print_message("%-7s read 1 MiB: %llu config accesses, %.1f ms | erase 64 KiB: %llu, %.1f ms | "
		      "program+verify 64 KiB: %llu, %.1f ms\n", part, (unsigned long long)ra, rt / 1e6,
		      (unsigned long long)ea, et / 1e6, (unsigned long long)pa, pt / 1e6);
	/* Read: 14 accesses per 16 bytes (address, command, one BUSY poll, 4 data regs). */
	assert_int_equal(ra, MIB / 16 * 14);
	/* Erase: the datasheet time plus at most one retry delay and a few transactions. */
	assert_true(et >= t_erase_ns && et < t_erase_ns + 1 * MS);
	/* Program: 256 pages, each at least the page time. Per page: WREN 4, 16 blocks x 12,
	 * verify 16 x 14, and RDSR polls 10 µs apart (6 accesses each) while the page programs. */
	assert_true(pt >= 256 * t_page_ns);
	assert_true(pa < 256 * (4 + 16 * 12 + 16 * 14 + 6 * (t_page_ns / 10000 + 1)));
	free(buf);
	done(&r);
}

static void test_cost_report(void **state)
{
	(void)state;
	cost("W25Q16", 400000, 150 * MS);
	cost("M25P16", 640000, 600 * MS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parts_selfcheck),
		cmocka_unit_test(test_decode_jedec),
		cmocka_unit_test(test_decode_res),
		cmocka_unit_test(test_identify_every_part),
		cmocka_unit_test(test_res_signature_on_model),
		cmocka_unit_test(test_read_whole_flash),
		cmocka_unit_test(test_read_unaligned_and_bounds),
		cmocka_unit_test(test_write_protected_refused),
		cmocka_unit_test(test_sst_unprotected_by_prepare),
		cmocka_unit_test(test_erase_64k_w25q16),
		cmocka_unit_test(test_erase_m25p16),
		cmocka_unit_test(test_roundtrip_unaligned),
		cmocka_unit_test(test_all_ff_pages_skipped),
		cmocka_unit_test(test_sst_byte_program),
		cmocka_unit_test(test_verify_mismatch),
		cmocka_unit_test(test_program_bounds),
		cmocka_unit_test(test_stuck_busy),
		cmocka_unit_test(test_card_gone),
		cmocka_unit_test(test_wo_addr_window),
		cmocka_unit_test(test_recovery_and_normal_mode),
		cmocka_unit_test(test_open_sends_no_command_of_its_own),
		cmocka_unit_test(test_gateway_found_busy),
		cmocka_unit_test(test_link_reset_follows_0x41270),
		cmocka_unit_test(test_files_only_families_refused),
		cmocka_unit_test(test_chip_select_left_held),
		cmocka_unit_test(test_operation_left_running),
		cmocka_unit_test(test_cost_report),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
