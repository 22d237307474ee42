/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_spi_nor.c — the SPI NOR chip model (spi_nor.c) and its parts table
 * (spi_parts.c), driven byte by byte as the flash gateway drives it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "spi_nor.h"

#define SPI_EWSR 0x50
#define SZ_4K 0x1000u
#define SZ_64K 0x10000u

struct rig {
	struct spi_nor f;
	const struct spi_part *p;
	uint8_t *mem;
	uint64_t now;
};

static struct rig *rig_new(const char *name, uint64_t seed, bool protect)
{
	struct rig *r = calloc(1, sizeof *r);

	assert_non_null(r);
	r->p = spi_part_find(name);
	assert_non_null(r->p);
	r->mem = malloc(r->p->size);
	assert_non_null(r->mem);
	memset(r->mem, 0xFF, r->p->size);
	r->now = 1000; /* not zero, so a busy_start of 0 would be noticed */
	spi_nor_init(&r->f, r->p, r->mem, seed, protect);
	return r;
}

static void rig_free(struct rig *r)
{
	free(r->mem);
	free(r);
}

/* One SPI instruction: select, send out[], clock nin more bytes (MOSI 0) into in[],
 * deselect. The clock does not move. */
static void tx(struct rig *r, const uint8_t *out, size_t nout, uint8_t *in, size_t nin)
{
	spi_nor_select(&r->f, r->now);
	for (size_t i = 0; i < nout; i++)
		assert_int_equal(spi_nor_xfer(&r->f, out[i], r->now), 0xFF);
	for (size_t i = 0; i < nin; i++)
		in[i] = spi_nor_xfer(&r->f, 0x00, r->now);
	spi_nor_deselect(&r->f, r->now);
}

static void op1(struct rig *r, uint8_t op)
{
	tx(r, &op, 1, NULL, 0);
}

static void wren(struct rig *r)
{
	op1(r, SPI_WREN);
}

static uint8_t rdsr(struct rig *r)
{
	uint8_t op = SPI_RDSR, v;

	tx(r, &op, 1, &v, 1);
	return v;
}

static void cmd_addr(uint8_t *b, uint8_t op, uint32_t addr)
{
	b[0] = op;
	b[1] = (uint8_t)(addr >> 16);
	b[2] = (uint8_t)(addr >> 8);
	b[3] = (uint8_t)addr;
}

static void rd(struct rig *r, uint32_t addr, uint8_t *buf, size_t n)
{
	uint8_t b[4];

	cmd_addr(b, SPI_READ, addr);
	tx(r, b, 4, buf, n);
}

static void pp(struct rig *r, uint32_t addr, const uint8_t *data, size_t n)
{
	uint8_t *b = malloc(4 + n);

	assert_non_null(b);
	cmd_addr(b, SPI_PP, addr);
	memcpy(b + 4, data, n);
	tx(r, b, 4 + n, NULL, 0);
	free(b);
}

static void erase(struct rig *r, uint8_t op, uint32_t addr)
{
	uint8_t b[4];

	cmd_addr(b, op, addr);
	tx(r, b, 4, NULL, 0);
}

static void wrsr(struct rig *r, uint8_t v)
{
	uint8_t b[2] = { SPI_WRSR, v };

	tx(r, b, 2, NULL, 0);
}

/* Let the clock run past the operation in flight (by the part's time t). */
static void wait_op(struct rig *r, uint64_t t)
{
	assert_true(rdsr(r) & SPI_SR_WIP);
	r->now += t;
	assert_int_equal(rdsr(r) & (SPI_SR_WIP | SPI_SR_WEL), 0);
}

static bool all_ff(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != 0xFF)
			return false;
	return true;
}

/* Test contents: no 0xFF at the addresses the tests look at next to a region. */
static uint8_t pat(uint32_t i)
{
	return (uint8_t)(i * 7 + (i >> 8) + 3);
}

static void fill_pattern(struct rig *r)
{
	for (uint32_t i = 0; i < r->p->size; i++)
		r->mem[i] = pat(i);
}

/* ---- the table ---- */

static void test_table_selfcheck(void **state)
{
	static const char *const required[] = {
		"M25P80", "M25P16", "M25P32", "W25Q80", "W25Q16", "W25Q32",
		"SST25VF080B", "SST25VF016B", "SST25VF032B",
	};
	(void)state;

	assert_true(spi_nparts >= 9);
	for (size_t i = 0; i < sizeof required / sizeof required[0]; i++) {
		const struct spi_part *p = spi_part_find(required[i]);

		assert_non_null(p);
		assert_string_equal(p->name, required[i]);
	}
	assert_ptr_equal(spi_part_find("w25q16"), spi_part_find("W25Q16"));
	assert_null(spi_part_find("W25Q64"));
	assert_null(spi_part_find(NULL));

	for (unsigned i = 0; i < spi_nparts; i++) {
		const struct spi_part *p = &spi_parts[i];
		unsigned log2size = 0;

		for (unsigned j = 0; j < i; j++)
			assert_int_not_equal(strcmp(p->name, spi_parts[j].name), 0);
		assert_true(p->size >= SZ_64K && (p->size & (p->size - 1)) == 0);
		while ((1u << log2size) < p->size)
			log2size++;
		/* hw-access.md §3.4: size from the density byte, SST through its map. */
		if (p->jedec[0] == 0xBF && p->jedec[1] == 0x25) {
			unsigned m = p->jedec[2] == 0x41 ? 0x15 : p->jedec[2] == 0x4A ? 0x16
				   : p->jedec[2] == 0x8D ? 0x13 : p->jedec[2] == 0x8E ? 0x14 : 0;
			assert_int_equal(m, log2size);
			assert_true(p->byte_program);
			assert_int_equal(p->res_id, p->jedec[2]);
			assert_int_equal(p->sr_power_on & p->sr_bp_mask, p->sr_bp_mask);
		} else {
			assert_int_equal(p->jedec[2], log2size);
			assert_false(p->byte_program);
			/* §3.4 RES fallback: log2 size = signature + 1 */
			assert_int_equal(p->res_id + 1, log2size);
			assert_int_equal(p->sr_power_on, 0);
		}
		assert_int_equal(p->sr_power_on & (SPI_SR_WIP | SPI_SR_WEL), 0);
		assert_int_equal(p->sr_bp_mask & (SPI_SR_WIP | SPI_SR_WEL), 0);
		assert_true(p->erase_64k);
		assert_true(p->t_page_prog > 0);
		assert_true(p->t_erase_64k > 0);
		assert_true(p->t_chip_erase >= p->t_erase_64k);
		assert_int_equal(p->erase_4k, p->t_erase_4k > 0);
		assert_non_null(p->source);
		assert_true(strlen(p->source) > 20);
	}
	/* the M25P parts have no 4 KiB erase; W25Q and SST have */
	assert_false(spi_part_find("M25P16")->erase_4k);
	assert_true(spi_part_find("W25Q16")->erase_4k);
	assert_true(spi_part_find("SST25VF016B")->erase_4k);
}

/* ---- identification ---- */

static void test_rdid_res(void **state)
{
	(void)state;
	for (unsigned i = 0; i < spi_nparts; i++) {
		struct rig *r = rig_new(spi_parts[i].name, 1, false);
		uint8_t op = SPI_RDID, id[4], res[8];
		uint32_t dw;
		unsigned log2size;

		tx(r, &op, 1, id, 4);
		assert_memory_equal(id, r->p->jedec, 3);
		/* as mstflint reads it: a 4-byte window, bits 31:8 */
		dw = (uint32_t)id[0] << 24 | (uint32_t)id[1] << 16 | (uint32_t)id[2] << 8 | id[3];
		assert_int_equal(dw >> 24, r->p->jedec[0]);
		assert_int_equal((dw >> 16) & 0xFF, r->p->jedec[1]);
		assert_int_equal((dw >> 8) & 0xFF, r->p->jedec[2]);
		log2size = 0;
		while ((1u << log2size) < r->p->size)
			log2size++;

		op = SPI_RES;
		if (r->p->byte_program) {
			uint8_t b[4] = { SPI_RES, 0, 0, 0 };

			tx(r, b, 4, res, 4);
			assert_int_equal(res[0], 0xBF);
			assert_int_equal(res[1], r->p->res_id);
			assert_int_equal(res[2], 0xBF);
			assert_int_equal(res[3], r->p->res_id);
			b[3] = 1;
			tx(r, b, 4, res, 2);
			assert_int_equal(res[0], r->p->res_id);
			assert_int_equal(res[1], 0xBF);
		} else {
			tx(r, &op, 1, res, 8);
			/* three dummy bytes (high-Z), then the signature for as long as clocked */
			assert_int_equal(res[0], 0xFF);
			assert_int_equal(res[1], 0xFF);
			assert_int_equal(res[2], 0xFF);
			for (int k = 3; k < 8; k++)
				assert_int_equal(res[k], r->p->res_id);
			assert_int_equal(res[3] + 1, log2size);
		}
		/* identification changes nothing */
		assert_int_equal(r->f.stats.bytes_read, 0);
		assert_false(r->f.changed);
		rig_free(r);
	}
}

/* ---- read ---- */

static void test_read_wraps(void **state)
{
	(void)state;
	for (unsigned i = 0; i < spi_nparts; i++) {
		struct rig *r = rig_new(spi_parts[i].name, 1, false);
		uint32_t sz = r->p->size;
		uint8_t buf[6];

		fill_pattern(r);
		rd(r, 0x1234, buf, 6);
		assert_memory_equal(buf, r->mem + 0x1234, 6);
		rd(r, sz - 2, buf, 5);
		assert_int_equal(buf[0], r->mem[sz - 2]);
		assert_int_equal(buf[1], r->mem[sz - 1]);
		assert_int_equal(buf[2], r->mem[0]);
		assert_int_equal(buf[3], r->mem[1]);
		assert_int_equal(buf[4], r->mem[2]);
		/* address bits above the array are ignored */
		rd(r, 0xFFFFFF, buf, 2);
		assert_int_equal(buf[0], r->mem[sz - 1]);
		assert_int_equal(buf[1], r->mem[0]);
		assert_int_equal(r->f.stats.bytes_read, 13);
		assert_false(r->f.changed);
		/* RDSR repeats while clocked */
		{
			uint8_t op = SPI_RDSR, sr[3];

			wren(r);
			tx(r, &op, 1, sr, 3);
			assert_int_equal(sr[0], r->p->sr_power_on | SPI_SR_WEL);
			assert_int_equal(sr[1], sr[0]);
			assert_int_equal(sr[2], sr[0]);
		}
		rig_free(r);
	}
}

/* ---- program ---- */

static void test_pp_needs_wren(void **state)
{
	struct rig *r = rig_new("W25Q16", 1, false);
	uint8_t d[4] = { 0x12, 0x34, 0x56, 0x78 }, buf[4];
	(void)state;

	pp(r, 0x1000, d, 4);
	assert_int_equal(rdsr(r), 0);   /* nothing started */
	r->now += r->p->t_page_prog;
	rd(r, 0x1000, buf, 4);
	assert_true(all_ff(buf, 4));
	assert_int_equal(r->f.stats.bytes_programmed, 0);

	/* WRDI takes WEL away again */
	wren(r);
	assert_int_equal(rdsr(r), SPI_SR_WEL);
	op1(r, SPI_WRDI);
	assert_int_equal(rdsr(r), 0);
	pp(r, 0x1000, d, 4);
	assert_int_equal(rdsr(r), 0);

	/* WREN sent with an extra byte is not executed */
	{
		uint8_t b[2] = { SPI_WREN, 0 };

		tx(r, b, 2, NULL, 0);
		assert_int_equal(rdsr(r), 0);
	}

	wren(r);
	pp(r, 0x1000, d, 4);
	assert_int_equal(rdsr(r), SPI_SR_WIP | SPI_SR_WEL);
	wait_op(r, r->p->t_page_prog);
	rd(r, 0x1000, buf, 4);
	assert_memory_equal(buf, d, 4);
	assert_int_equal(r->f.stats.bytes_programmed, 4);
	assert_true(r->f.changed);

	/* PP with no data byte is not executed and keeps WEL */
	wren(r);
	{
		uint8_t b[4];

		cmd_addr(b, SPI_PP, 0x2000);
		tx(r, b, 4, NULL, 0);
	}
	assert_int_equal(rdsr(r), SPI_SR_WEL);
	rig_free(r);
}

static void test_program_only_clears_bits(void **state)
{
	(void)state;
	for (unsigned i = 0; i < spi_nparts; i++) {
		struct rig *r = rig_new(spi_parts[i].name, 1, false);
		uint8_t v, buf[1];

		if (r->p->byte_program) {
			wren(r);
			wrsr(r, 0x00);
			r->now += r->p->t_wrsr;
		}
		r->mem[0x300] = 0xF0;
		r->mem[0x301] = 0x5A;
		v = 0x0F;
		wren(r);
		pp(r, 0x300, &v, 1);
		wait_op(r, r->p->t_page_prog);
		rd(r, 0x300, buf, 1);
		assert_int_equal(buf[0], 0x00);
		r->f.changed = false;
		v = 0xFF;
		wren(r);
		pp(r, 0x301, &v, 1);
		wait_op(r, r->p->t_page_prog);
		rd(r, 0x301, buf, 1);
		assert_int_equal(buf[0], 0x5A);
		assert_false(r->f.changed); /* 0xFF over 0x5A changes nothing */
		v = 0xA5;
		wren(r);
		pp(r, 0x301, &v, 1);
		wait_op(r, r->p->t_page_prog);
		rd(r, 0x301, buf, 1);
		assert_int_equal(buf[0], 0x5A & 0xA5);
		assert_true(r->f.changed);
		assert_int_equal(r->f.stats.bytes_programmed, 3);
		rig_free(r);
	}
}

static void test_page_wraps(void **state)
{
	struct rig *r = rig_new("W25Q16", 1, false);
	uint8_t d[300], page[512];
	(void)state;

	for (int i = 0; i < 300; i++)
		d[i] = (uint8_t)(i + 1);
	/* 32 bytes from page offset 0xF0: 16 to the end of the page, 16 wrap to its start */
	wren(r);
	pp(r, 0x10F0, d, 32);
	wait_op(r, r->p->t_page_prog);
	rd(r, 0x1000, page, 512);
	assert_memory_equal(page + 0xF0, d, 16);
	assert_memory_equal(page + 0x00, d + 16, 16);
	assert_true(all_ff(page + 0x10, 0xF0 - 0x10));
	assert_true(all_ff(page + 0x100, 256)); /* the next page is untouched */
	assert_int_equal(r->f.stats.bytes_programmed, 32);

	/* more than 256 bytes: the last 256 are kept (each offset's last byte wins) */
	wren(r);
	pp(r, 0x2000, d, 300);
	wait_op(r, r->p->t_page_prog);
	rd(r, 0x2000, page, 257);
	for (int off = 0; off < 256; off++) {
		int src = off < 300 - 256 ? off + 256 : off;

		assert_int_equal(page[off], d[src]);
	}
	assert_int_equal(page[256], 0xFF);
	assert_int_equal(r->f.stats.bytes_programmed, 32 + 256);
	rig_free(r);
}

/* ---- erase ---- */

static void check_erase(struct rig *r, uint8_t op, uint32_t len, uint64_t t)
{
	uint32_t base = 3 * SZ_64K;     /* a 64 KiB-aligned place in every part */
	uint32_t inside = base + len / 2 + 0x123;

	fill_pattern(r);
	r->f.changed = false;
	wren(r);
	erase(r, op, inside & 0xFFFFFF);
	assert_int_equal(rdsr(r) & (SPI_SR_WIP | SPI_SR_WEL), SPI_SR_WIP | SPI_SR_WEL);
	r->now += t - 1;
	assert_int_equal(rdsr(r) & SPI_SR_WIP, SPI_SR_WIP);
	assert_false(all_ff(r->mem + base, len)); /* not applied before its time */
	r->now += 1;
	assert_int_equal(rdsr(r) & (SPI_SR_WIP | SPI_SR_WEL), 0);
	assert_true(all_ff(r->mem + base, len));
	assert_int_not_equal(r->mem[base - 1], 0xFF);
	assert_int_not_equal(r->mem[base + len], 0xFF);
	assert_int_equal(r->mem[base - 1], pat(base - 1));
	assert_true(r->f.changed);
}

static void test_erase_sizes(void **state)
{
	(void)state;
	for (unsigned i = 0; i < spi_nparts; i++) {
		struct rig *r = rig_new(spi_parts[i].name, 1, false);
		uint64_t erases = 0, bytes = 0;

		if (r->p->byte_program) {
			wren(r);
			wrsr(r, 0x80);
		}
		if (r->p->erase_4k) {
			check_erase(r, SPI_SSE, SZ_4K, r->p->t_erase_4k);
			erases++;
			bytes += SZ_4K;
		} else {
			/* 0x20 is not an instruction of this part: not decoded, WEL kept */
			fill_pattern(r);
			wren(r);
			erase(r, SPI_SSE, 3 * SZ_64K);
			assert_int_equal(rdsr(r) & (SPI_SR_WIP | SPI_SR_WEL), SPI_SR_WEL);
			r->now += 1000000000ull;
			assert_int_equal(r->mem[3 * SZ_64K], pat(3 * SZ_64K));
			op1(r, SPI_WRDI);
		}
		check_erase(r, SPI_SE, SZ_64K, r->p->t_erase_64k);
		erases++;
		bytes += SZ_64K;
		assert_int_equal(r->f.stats.erases, erases);
		assert_int_equal(r->f.stats.bytes_erased, bytes);

		/* 0x52 (32 KiB) is not modelled: not decoded */
		fill_pattern(r);
		wren(r);
		erase(r, SPI_BE32, 0);
		assert_int_equal(rdsr(r) & SPI_SR_WIP, 0);

		/* chip erase, both opcodes */
		for (int k = 0; k < 2; k++) {
			fill_pattern(r);
			wren(r);
			op1(r, k ? 0x60 : SPI_CE);
			r->now += r->p->t_chip_erase - 1;
			assert_int_equal(rdsr(r) & SPI_SR_WIP, SPI_SR_WIP);
			r->now += 1;
			assert_int_equal(rdsr(r) & (SPI_SR_WIP | SPI_SR_WEL), 0);
			assert_true(all_ff(r->mem, r->p->size));
		}
		assert_int_equal(r->f.stats.erases, erases + 2);
		assert_int_equal(r->f.stats.bytes_erased, bytes + 2ull * r->p->size);
		rig_free(r);
	}
}

static void test_erase_needs_wren_and_length(void **state)
{
	struct rig *r = rig_new("W25Q16", 1, false);
	uint8_t b[5];
	(void)state;

	fill_pattern(r);
	erase(r, SPI_SSE, 0x5000);
	assert_int_equal(rdsr(r), 0);
	/* a 3-byte address is one byte short: not executed, WEL kept */
	wren(r);
	cmd_addr(b, SPI_SSE, 0x5000);
	tx(r, b, 3, NULL, 0);
	assert_int_equal(rdsr(r), SPI_SR_WEL);
	/* one byte too many: not executed either */
	b[4] = 0;
	tx(r, b, 5, NULL, 0);
	assert_int_equal(rdsr(r), SPI_SR_WEL);
	r->now += r->p->t_erase_4k;
	assert_false(all_ff(r->mem + 0x5000, SZ_4K));
	assert_int_equal(r->f.stats.erases, 0);
	rig_free(r);
}

/* ---- WIP ---- */

static void test_wip_timing_and_ignored(void **state)
{
	struct rig *r = rig_new("W25Q16", 1, false);
	uint8_t d[16], buf[16], op;
	uint64_t t0;
	(void)state;

	for (int i = 0; i < 16; i++)
		d[i] = (uint8_t)(0x80 + i);
	fill_pattern(r);
	wren(r);
	erase(r, SPI_SSE, 0x8000);
	t0 = r->now;
	assert_int_equal(r->f.busy_start, t0);
	assert_int_equal(r->f.busy_until, t0 + r->p->t_erase_4k);

	r->now = t0 + r->p->t_erase_4k / 2;
	/* READ during WIP: not decoded, reads 0xFF even where the array is not erased */
	rd(r, 0x100, buf, 16);
	assert_true(all_ff(buf, 16));
	assert_int_equal(r->f.stats.bytes_read, 0);
	/* RDID and RES are ignored too */
	op = SPI_RDID;
	tx(r, &op, 1, buf, 3);
	assert_true(all_ff(buf, 3));
	/* WREN + PP during WIP: nothing */
	wren(r);
	pp(r, 0x100, d, 16);
	/* WRSR during WIP: nothing */
	wrsr(r, 0x1C);
	/* WRDI during WIP: nothing (WEL still set by the erase's WREN) */
	op1(r, SPI_WRDI);
	assert_int_equal(rdsr(r), SPI_SR_WIP | SPI_SR_WEL);
	/* a status read held across the end of the operation sees WIP drop */
	spi_nor_select(&r->f, r->now);
	assert_int_equal(spi_nor_xfer(&r->f, SPI_RDSR, r->now), 0xFF);
	assert_int_equal(spi_nor_xfer(&r->f, 0, t0 + r->p->t_erase_4k - 1),
			 SPI_SR_WIP | SPI_SR_WEL);
	assert_int_equal(spi_nor_xfer(&r->f, 0, t0 + r->p->t_erase_4k), 0);
	spi_nor_deselect(&r->f, t0 + r->p->t_erase_4k);
	r->now = t0 + r->p->t_erase_4k;
	assert_true(all_ff(r->mem + 0x8000, SZ_4K));
	/* the PP and WRSR issued during WIP did nothing */
	rd(r, 0x100, buf, 16);
	for (int i = 0; i < 16; i++)
		assert_int_equal(buf[i], pat(0x100 + (uint32_t)i));
	assert_int_equal(r->f.stats.bytes_programmed, 0);
	assert_int_equal(rdsr(r), 0);

	/* PP: WIP for exactly t_page_prog; the effect appears on any later call */
	memset(r->mem, 0xFF, 0x1000);
	wren(r);
	pp(r, 0x40, d, 16);
	t0 = r->now;
	r->now = t0 + r->p->t_page_prog - 1;
	assert_int_equal(rdsr(r), SPI_SR_WIP | SPI_SR_WEL);
	assert_true(all_ff(r->mem + 0x40, 16));
	spi_nor_select(&r->f, t0 + r->p->t_page_prog); /* no RDSR needed */
	assert_memory_equal(r->mem + 0x40, d, 16);
	spi_nor_deselect(&r->f, t0 + r->p->t_page_prog);
	r->now = t0 + r->p->t_page_prog;
	assert_int_equal(rdsr(r), 0);

	/* WRSR: WIP for exactly t_wrsr, new BP bits only afterwards */
	wren(r);
	wrsr(r, 0x04);
	t0 = r->now;
	r->now = t0 + r->p->t_wrsr - 1;
	assert_int_equal(rdsr(r), SPI_SR_WIP | SPI_SR_WEL);
	r->now = t0 + r->p->t_wrsr;
	assert_int_equal(rdsr(r), 0x04);
	rig_free(r);
}

/* ---- WEL ---- */

static void test_wel_cleared(void **state)
{
	struct rig *r = rig_new("M25P16", 1, false);
	uint8_t d = 0;
	(void)state;

	wren(r);
	pp(r, 0, &d, 1);
	wait_op(r, r->p->t_page_prog);
	wren(r);
	erase(r, SPI_SE, 0);
	wait_op(r, r->p->t_erase_64k);
	wren(r);
	wrsr(r, 0x00);
	wait_op(r, r->p->t_wrsr);
	wren(r);
	op1(r, SPI_CE);
	wait_op(r, r->p->t_chip_erase);
	/* refused for protection: WEL cleared too */
	wren(r);
	wrsr(r, 0x1C);
	wait_op(r, r->p->t_wrsr);
	wren(r);
	pp(r, 0, &d, 1);
	assert_int_equal(rdsr(r), 0x1C);
	wren(r);
	erase(r, SPI_SE, 0);
	assert_int_equal(rdsr(r), 0x1C);
	wren(r);
	op1(r, SPI_CE);
	assert_int_equal(rdsr(r), 0x1C);
	rig_free(r);
}

/* ---- block protection ---- */

/* Try a one-byte PP at addr; true if it was carried out. */
/* One byte programmed at addr (parts over 16 MiB: the 4-byte PP, 0x12). */
static bool try_pp(struct rig *r, uint32_t addr)
{
	uint8_t v = 0x00, sr;
	uint8_t b4[6] = {SPI_PP4, (uint8_t)(addr >> 24), (uint8_t)(addr >> 16), (uint8_t)(addr >> 8),
			 (uint8_t)addr, 0x00};

	r->mem[addr] = 0xFF;
	wren(r);
	if (r->p->addr4)
		tx(r, b4, sizeof b4, NULL, 0);
	else
		pp(r, addr, &v, 1);
	sr = rdsr(r);
	assert_int_equal(sr & SPI_SR_WEL, sr & SPI_SR_WIP ? SPI_SR_WEL : 0);
	r->now += r->p->t_page_prog;
	assert_int_equal(rdsr(r) & (SPI_SR_WIP | SPI_SR_WEL), 0);
	return r->mem[addr] == 0x00;
}

static void set_sr(struct rig *r, uint8_t v)
{
	wren(r);
	wrsr(r, v);
	r->now += r->p->t_wrsr;
	assert_int_equal(rdsr(r), v);
}

/* BP = n protects the top unit << (n - 1) bytes, capped: unit 64 KiB, or the part's
 * (W25Q128JV: 256 KiB); BP2:0 or BP3:0 from SR bit 2. */
static void test_block_protect_table(void **state)
{
	(void)state;
	for (unsigned i = 0; i < spi_nparts; i++) {
		struct rig *r = rig_new(spi_parts[i].name, 1, false);
		uint32_t sz = r->p->size, unit = r->p->bp_unit ? r->p->bp_unit : SZ_64K;

		for (unsigned bp = 0; bp <= (unsigned)(r->p->sr_bp_mask >> 2); bp++) {
			uint64_t prot = bp ? (uint64_t)unit << (bp - 1) : 0;
			uint32_t first;

			if (prot > sz)
				prot = sz;
			first = sz - (uint32_t)prot;
			set_sr(r, (uint8_t)(bp << 2));
			assert_false(try_pp(r, sz - 1) != (prot == 0));
			if (prot && prot < sz) {
				assert_false(try_pp(r, first));       /* first protected byte */
				assert_true(try_pp(r, first - 1));    /* last free byte */
			}
			if (prot == sz)
				assert_false(try_pp(r, 0));
		}
		rig_free(r);
	}
}

static void test_block_protect_sst25vf016b(void **state)
{
	/* SST25VF016B "Software Status Register Block Protection" table:
	 * BP2:0 → first protected address (2 MiB part). */
	static const uint32_t first[8] = {
		0x200000, 0x1F0000, 0x1E0000, 0x1C0000, 0x180000, 0x100000, 0, 0,
	};
	struct rig *r = rig_new("SST25VF016B", 1, false);
	(void)state;

	for (unsigned bp = 0; bp < 8; bp++) {
		set_sr(r, (uint8_t)(0x80 | bp << 2));
		if (first[bp] < 0x200000)
			assert_false(try_pp(r, first[bp]));
		if (first[bp] > 0)
			assert_true(try_pp(r, first[bp] - 1));
	}
	rig_free(r);
}

static void test_block_protect_erase(void **state)
{
	struct rig *r = rig_new("W25Q32", 1, false);
	uint32_t sz = r->p->size;
	(void)state;

	set_sr(r, 0x08); /* BP=010: upper 128 KiB */
	fill_pattern(r);
	/* 4 KiB erase inside the protected area: refused, WEL cleared, no WIP */
	wren(r);
	erase(r, SPI_SSE, sz - 0x20000 + 0x3000);
	assert_int_equal(rdsr(r), 0x08);
	r->now += r->p->t_erase_4k;
	assert_false(all_ff(r->mem + sz - 0x20000 + 0x3000, SZ_4K));
	/* 64 KiB erase of the top block: refused */
	wren(r);
	erase(r, SPI_SE, sz - 1);
	assert_int_equal(rdsr(r), 0x08);
	/* just below: allowed */
	wren(r);
	erase(r, SPI_SE, sz - 0x20000 - 1);
	wait_op(r, r->p->t_erase_64k);
	assert_true(all_ff(r->mem + sz - 0x30000, SZ_64K));
	assert_false(all_ff(r->mem + sz - 0x20000, SZ_64K));
	/* chip erase: refused while anything is protected */
	wren(r);
	op1(r, SPI_CE);
	assert_int_equal(rdsr(r), 0x08);
	assert_int_equal(r->f.stats.erases, 1);
	/* WRSR cannot set WIP/WEL, nor the unmodelled TB/SEC bits */
	set_sr(r, 0x00);
	wren(r);
	wrsr(r, 0xFF);
	r->now += r->p->t_wrsr;
	assert_int_equal(rdsr(r), 0x9C);
	/* WRSR without WREN: nothing */
	wrsr(r, 0x00);
	r->now += r->p->t_wrsr;
	assert_int_equal(rdsr(r), 0x9C);
	rig_free(r);
}

static void test_protect_at_init(void **state)
{
	struct rig *r = rig_new("W25Q16", 1, true);
	uint8_t buf[1];
	(void)state;

	assert_int_equal(rdsr(r), 0x1C);
	assert_false(try_pp(r, 0));
	/* the BP bits of ST/Winbond parts are non-volatile: they survive power loss */
	spi_nor_power_loss(&r->f, r->now);
	assert_int_equal(rdsr(r), 0x1C);
	set_sr(r, 0x00);
	spi_nor_power_loss(&r->f, r->now);
	assert_int_equal(rdsr(r), 0x00);
	assert_true(try_pp(r, 0));
	rd(r, 0, buf, 1);
	assert_int_equal(buf[0], 0);
	rig_free(r);
}

/* ---- SST ---- */

static void test_sst(void **state)
{
	struct rig *r = rig_new("SST25VF016B", 1, false);
	uint8_t d[4] = { 0x11, 0x22, 0x33, 0x44 }, buf[4];
	(void)state;

	/* power-on: BP bits set, writes silently ignored */
	assert_int_equal(rdsr(r), 0x1C);
	wren(r);
	pp(r, 0x100, d, 1);
	assert_int_equal(rdsr(r), 0x1C); /* refused, WEL cleared */
	wren(r);
	erase(r, SPI_SSE, 0x0);
	assert_int_equal(rdsr(r), 0x1C);
	assert_true(all_ff(r->mem, 0x1000));

	/* WRSR without WREN or EWSR: nothing */
	wrsr(r, 0x80);
	assert_int_equal(rdsr(r), 0x1C);
	/* EWSR, then something else, then WRSR: must be immediately after, so nothing */
	op1(r, SPI_EWSR);
	assert_int_equal(rdsr(r), 0x1C);
	wrsr(r, 0x80);
	assert_int_equal(rdsr(r), 0x1C);
	/* EWSR immediately followed by WRSR */
	op1(r, SPI_EWSR);
	wrsr(r, 0x00);
	assert_int_equal(rdsr(r), 0x00);
	/* what mstflint does at init: WREN + WRSR 0x80 */
	set_sr(r, 0x1C);
	wren(r);
	wrsr(r, 0x80);
	assert_int_equal(rdsr(r), 0x80);

	/* byte program: only the first data byte, at the address given */
	wren(r);
	pp(r, 0x1FE, d, 4);
	assert_int_equal(rdsr(r), 0x80 | SPI_SR_WIP | SPI_SR_WEL);
	r->now += r->p->t_page_prog - 1;
	assert_int_equal(rdsr(r) & SPI_SR_WIP, SPI_SR_WIP);
	r->now += 1;
	assert_int_equal(rdsr(r), 0x80);
	rd(r, 0x1FE, buf, 4);
	assert_int_equal(buf[0], 0x11);
	assert_int_equal(buf[1], 0xFF);
	assert_int_equal(buf[2], 0xFF);
	assert_int_equal(buf[3], 0xFF);
	assert_int_equal(r->mem[0x100], 0xFF); /* no page wrap either */
	assert_int_equal(r->f.stats.bytes_programmed, 1);

	/* power loss: the volatile BP bits come back set */
	spi_nor_power_loss(&r->f, r->now);
	assert_int_equal(rdsr(r), 0x1C);
	assert_false(r->f.selected);
	rig_free(r);
}

/* ---- power loss ---- */

static void test_power_loss_program(void **state)
{
	struct rig *r = rig_new("W25Q16", 1, false);
	uint8_t d[256], page[256];
	(void)state;

	memset(d, 0x00, sizeof d);
	/* a full page from offset 0x80: wire order is 0x80..0xFF then 0x00..0x7F */
	wren(r);
	pp(r, 0x3080, d, 256);
	r->now = r->f.busy_start + r->p->t_page_prog * 3 / 8;
	spi_nor_power_loss(&r->f, r->now);
	rd(r, 0x3000, page, 256);
	{
		unsigned k = 0;

		/* a strict prefix in wire order */
		while (k < 256 && page[(0x80 + k) & 0xFF] == 0x00)
			k++;
		for (unsigned j = k; j < 256; j++)
			assert_int_equal(page[(0x80 + j) & 0xFF], 0xFF);
		assert_int_equal(k, 256 * 3 / 8);
		assert_int_equal(r->f.stats.bytes_programmed, k);
	}
	assert_true(r->f.changed);
	/* power-on state: idle, not selected, WEL clear, next operation works */
	assert_false(r->f.selected);
	assert_int_equal(r->f.sr, 0);
	assert_int_equal(rdsr(r), 0);
	wren(r);
	pp(r, 0x3000, d, 256);
	wait_op(r, r->p->t_page_prog);
	rd(r, 0x3000, page, 256);
	assert_memory_equal(page, d, 256);

	/* loss at the very start programs nothing; after the end, everything */
	memset(r->mem + 0x4000, 0xFF, 256);
	wren(r);
	pp(r, 0x4000, d, 16);
	spi_nor_power_loss(&r->f, r->now);
	assert_true(all_ff(r->mem + 0x4000, 16));
	wren(r);
	pp(r, 0x4000, d, 16);
	r->now += r->p->t_page_prog;
	spi_nor_power_loss(&r->f, r->now);
	assert_memory_equal(r->mem + 0x4000, d, 16);

	/* power loss while selected, mid-instruction: nothing happens, CS is released */
	wren(r);
	spi_nor_select(&r->f, r->now);
	spi_nor_xfer(&r->f, SPI_PP, r->now);
	spi_nor_power_loss(&r->f, r->now);
	assert_false(r->f.selected);
	assert_int_equal(rdsr(r), 0);
	rig_free(r);
}

static void erase_and_lose(struct rig *r, uint8_t op, uint32_t addr, uint64_t t)
{
	fill_pattern(r);
	r->f.changed = false;
	wren(r);
	erase(r, op, addr);
	assert_int_equal(rdsr(r) & SPI_SR_WIP, SPI_SR_WIP);
	spi_nor_power_loss(&r->f, r->now + t / 2);
	r->now += t / 2;
	assert_int_equal(rdsr(r), r->p->sr_power_on);
	assert_true(r->f.changed);
}

static void test_power_loss_erase(void **state)
{
	struct rig *a = rig_new("W25Q16", 42, false);
	struct rig *b = rig_new("W25Q16", 42, false);
	struct rig *c = rig_new("W25Q16", 43, false);
	uint32_t base = 0x7000;
	unsigned same_ab = 0, same_ac = 0, ff = 0, old = 0;
	(void)state;

	erase_and_lose(a, SPI_SSE, base + 0x456, a->p->t_erase_4k);
	erase_and_lose(b, SPI_SSE, base + 0x456, b->p->t_erase_4k);
	erase_and_lose(c, SPI_SSE, base + 0x456, c->p->t_erase_4k);
	for (uint32_t i = 0; i < SZ_4K; i++) {

		same_ab += a->mem[base + i] == b->mem[base + i];
		same_ac += a->mem[base + i] == c->mem[base + i];
		ff += a->mem[base + i] == 0xFF;
		old += a->mem[base + i] == pat(base + i);
	}
	assert_int_equal(same_ab, SZ_4K);     /* same seed: same bytes */
	assert_true(same_ac < SZ_4K / 16);    /* other seed: different bytes */
	assert_true(ff < SZ_4K / 16);         /* neither erased ... */
	assert_true(old < SZ_4K / 16);        /* ... nor the old contents */
	/* outside the sector: untouched */
	assert_int_equal(a->mem[base - 1], pat(base - 1));
	assert_int_equal(a->mem[base + SZ_4K], pat(base + SZ_4K));
	/* an interrupted erase is not counted as an erase */
	assert_int_equal(a->f.stats.erases, 0);
	assert_int_equal(a->f.stats.bytes_erased, 0);

	/* 64 KiB: the whole block, and a clean erase afterwards works */
	erase_and_lose(a, SPI_SE, 0x20000, a->p->t_erase_64k);
	erase_and_lose(b, SPI_SE, 0x20000, b->p->t_erase_64k);
	assert_memory_equal(a->mem + 0x20000, b->mem + 0x20000, SZ_64K);
	assert_false(all_ff(a->mem + 0x20000, SZ_64K));
	wren(a);
	erase(a, SPI_SE, 0x20000);
	wait_op(a, a->p->t_erase_64k);
	assert_true(all_ff(a->mem + 0x20000, SZ_64K));
	rig_free(a);
	rig_free(b);
	rig_free(c);
}

/* ---- stuck bits (a fault) ---- */

static void test_stuck_bits(void **state)
{
	struct rig *r = rig_new("W25Q16", 9, false);
	struct rig *sst = rig_new("SST25VF016B", 9, false);
	uint8_t d[8], got[8];
	(void)state;

	/* A whole byte stuck at 0xFF: the page program around it works, it stays 0xFF,
	 * and the command looks normal (WIP for tPP, every byte counted). */
	memset(d, 0x5A, sizeof(d));
	spi_nor_set_stuck(&r->f, 0x1234, 0xFF);
	wren(r);
	pp(r, 0x1230, d, 8);
	wait_op(r, r->p->t_page_prog);
	rd(r, 0x1230, got, 8);
	for (int i = 0; i < 8; i++)
		assert_int_equal(got[i], i == 4 ? 0xFF : 0x5A);
	assert_int_equal(r->f.stats.bytes_programmed, 8);

	/* Only the bits of the mask: 0x0F stuck at 1, the high nibble programs. */
	spi_nor_set_stuck(&r->f, 0x1300, 0x0F);
	d[0] = 0x00;
	wren(r);
	pp(r, 0x1300, d, 1);
	wait_op(r, r->p->t_page_prog);
	assert_int_equal(r->mem[0x1300], 0x0F);

	/* Stuck at 0: an erase leaves the mask's bits (and only this byte) as they were. */
	r->mem[0x2000] = 0x00;
	r->mem[0x2001] = 0x00;
	spi_nor_set_stuck(&r->f, 0x2000, 0x81);
	wren(r);
	erase(r, SPI_SSE, 0x2000);
	wait_op(r, r->p->t_erase_4k);
	assert_int_equal(r->mem[0x2000], 0x7E);
	assert_int_equal(r->mem[0x2001], 0xFF);
	assert_true(all_ff(r->mem + 0x2002, SZ_4K - 2));
	/* ... also a 64 KiB erase, and an erase cut by a power loss (the stuck state
	 * survives the power loss, the rest of the sector is undefined). */
	wren(r);
	erase(r, SPI_SE, 0x0000);
	wait_op(r, r->p->t_erase_64k);
	assert_int_equal(r->mem[0x2000], 0x7E);
	for (unsigned i = 0; i < 4; i++) {
		wren(r);
		erase(r, SPI_SSE, 0x2000);
		spi_nor_power_loss(&r->f, r->now + r->p->t_erase_4k / 2);
		assert_int_equal(r->mem[0x2000] & 0x81, 0x00);
	}

	/* Cleared: the byte erases and programs again. */
	spi_nor_set_stuck(&r->f, 0, 0);
	wren(r);
	erase(r, SPI_SSE, 0x2000);
	wait_op(r, r->p->t_erase_4k);
	assert_int_equal(r->mem[0x2000], 0xFF);
	wren(r);
	pp(r, 0x1234, d, 1);
	wait_op(r, r->p->t_page_prog);
	assert_int_equal(r->mem[0x1234], 0x00);

	/* SST byte program: the same (after clearing the power-on BP bits). */
	op1(sst, SPI_EWSR);
	wrsr(sst, 0x00);
	assert_int_equal(rdsr(sst), 0x00);
	spi_nor_set_stuck(&sst->f, 0x40, 0xFF);
	wren(sst);
	pp(sst, 0x40, d + 1, 1);
	wait_op(sst, sst->p->t_page_prog);
	wren(sst);
	pp(sst, 0x41, d + 1, 1);
	wait_op(sst, sst->p->t_page_prog);
	assert_int_equal(sst->mem[0x40], 0xFF);
	assert_int_equal(sst->mem[0x41], 0x5A);
	/* spi_nor_init starts without the fault */
	spi_nor_init(&sst->f, sst->p, sst->mem, 9, false);
	assert_int_equal(sst->f.stuck_mask, 0);
	rig_free(r);
	rig_free(sst);
}

/* ---- stats ---- */

static void test_stats(void **state)
{
	struct rig *r = rig_new("W25Q80", 1, false);
	uint8_t d[20] = { 0 }, buf[100];
	(void)state;

	wren(r);
	pp(r, 0x100, d, 20);
	wait_op(r, r->p->t_page_prog);
	wren(r);
	pp(r, 0x200, d, 20);
	wait_op(r, r->p->t_page_prog);
	pp(r, 0x300, d, 20);                  /* no WREN: not counted */
	rd(r, 0, buf, 100);
	rd(r, 0x1000, buf, 1);
	wren(r);
	erase(r, SPI_SSE, 0x100);
	wait_op(r, r->p->t_erase_4k);
	wren(r);
	erase(r, SPI_SE, 0x10000);
	wait_op(r, r->p->t_erase_64k);
	assert_int_equal(r->f.stats.bytes_programmed, 40);
	assert_int_equal(r->f.stats.bytes_read, 101);
	assert_int_equal(r->f.stats.erases, 2);
	assert_int_equal(r->f.stats.bytes_erased, SZ_4K + SZ_64K);
	/* changed: an erase of blank flash changes nothing */
	r->f.changed = false;
	wren(r);
	erase(r, SPI_SE, 0x10000);
	wait_op(r, r->p->t_erase_64k);
	assert_false(r->f.changed);
	assert_int_equal(r->f.stats.erases, 3);
	rig_free(r);
}

/* ---- the wire itself ---- */

static void test_wire_edges(void **state)
{
	struct rig *r = rig_new("W25Q16", 1, false);
	uint8_t d[4] = { 1, 2, 3, 4 }, b[8];
	(void)state;

	/* bytes clocked while not selected do nothing */
	assert_int_equal(spi_nor_xfer(&r->f, SPI_WREN, r->now), 0xFF);
	spi_nor_deselect(&r->f, r->now);
	assert_int_equal(rdsr(r), 0);
	/* a PP split over several transactions with CS held (select again = continue) */
	wren(r);
	cmd_addr(b, SPI_PP, 0x500);
	spi_nor_select(&r->f, r->now);
	for (int i = 0; i < 4; i++)
		spi_nor_xfer(&r->f, b[i], r->now);
	spi_nor_select(&r->f, r->now);
	for (int i = 0; i < 4; i++)
		spi_nor_xfer(&r->f, d[i], r->now);
	spi_nor_deselect(&r->f, r->now);
	wait_op(r, r->p->t_page_prog);
	assert_memory_equal(r->mem + 0x500, d, 4);
	/* an unknown opcode is ignored and returns high-Z */
	b[0] = 0x5A;
	tx(r, b, 1, b + 1, 4);
	assert_true(all_ff(b + 1, 4));
	/* RDID past the three ID bytes: high-Z */
	b[0] = SPI_RDID;
	tx(r, b, 1, b + 1, 5);
	assert_int_equal(b[4], 0xFF);
	assert_int_equal(b[5], 0xFF);
	rig_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_selfcheck),
		cmocka_unit_test(test_rdid_res),
		cmocka_unit_test(test_read_wraps),
		cmocka_unit_test(test_pp_needs_wren),
		cmocka_unit_test(test_program_only_clears_bits),
		cmocka_unit_test(test_page_wraps),
		cmocka_unit_test(test_erase_sizes),
		cmocka_unit_test(test_erase_needs_wren_and_length),
		cmocka_unit_test(test_wip_timing_and_ignored),
		cmocka_unit_test(test_wel_cleared),
		cmocka_unit_test(test_block_protect_table),
		cmocka_unit_test(test_block_protect_sst25vf016b),
		cmocka_unit_test(test_block_protect_erase),
		cmocka_unit_test(test_protect_at_init),
		cmocka_unit_test(test_sst),
		cmocka_unit_test(test_power_loss_program),
		cmocka_unit_test(test_power_loss_erase),
		cmocka_unit_test(test_stuck_bits),
		cmocka_unit_test(test_stats),
		cmocka_unit_test(test_wire_edges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
