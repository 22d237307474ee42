/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_devimage_fs3.c — what ops/devimage_fs3.c reads of a ConnectX-4 Lx (FS3) and a ConnectX-5
 * (FS4) card model, in recovery mode (the gateway's 16-byte reads) and with its firmware running
 * (MFBA's 256-byte blocks), through device_attach: q reads about what its parse looks at, as
 * mstflint's quick query does (fs3-format.md §10, §12), and sees the same image as a parse of
 * the whole flash; v still reads everything it checks, a burn every device section.
 *
 * The bytes read are the model's own count (cxsim_counters: what the flash sent), not the
 * reader's. The bound is the sum of the ranges the parse needs, each rounded out to whole read
 * blocks: the first 64 bytes at each candidate start, the FS4 pointers, tools area, BOOT2's size,
 * hashes table, every TOC's header and entries with its end marker, the sections a quick query
 * reads (an FS4 DEV_INFO without its signature up to that signature; a burn reads it whole). Reading whole 4 KiB units, as the reader once did, is several times that bound. */
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
#include "ops/devimage_fs3.h"

#define PROBES 5          /* 0 and 1 << 20..23 on a 16 MiB flash (devimage_fs3.c) */
#define PROBE_LEN 64
#define TOC_ROW 32        /* a TOC header or entry, fs3-format.md §3 */
#define BOOT2_HEAD 8      /* BOOT2's first two dwords: its size, §2.1 */

struct chipcase {
	enum cxsim_chip chip;
	bool fs4;
	uint32_t hw_id;
};

static const struct chipcase cx4lx = {CXSIM_CX4LX, false, 0x20b};
static const struct chipcase cx5 = {CXSIM_CX5, true, 0x20d};

static struct f3 img;

struct rig {
	struct cxsim_card *c;
	struct device d;
	uint8_t *flash;   /* the model's flash, a copy */
	size_t n;
	struct fs3_image ref; /* the whole flash parsed, as a dump is */
};

static void rig_open(struct rig *r, const struct chipcase *k, bool running)
{
	struct f3_spec s = f3_defaults(k->fs4);
	struct cx_status st = {0};

	memset(r, 0, sizeof(*r));
	s.hw_id = k->hw_id;
	s.rom = s.ini = true;
	s.hashes = k->fs4;
	s.psid = "HP_2420110034";
	f3_build(&img, &s);
	/* The FS4 spare DEV_INFO holds something (the builder's is erased, 0xFF like an unread byte),
	 * but not the signature: a read that left it out would differ from the card. */
	for (int i = 0; i < img.n; i++)
		if (img.ents[i].type == 0xe1 && img.ents[i].size != 0x200)
			for (uint32_t j = 0; j < img.ents[i].size; j++)
				img.buf[img.ents[i].addr + j] = (uint8_t)(j * 7 + 1);
	fc_card_devdata(&img, SC_GUID);
	r->c = running ? sc_new_running(k->chip, false, NULL, CXSIM_ICMD_OK) : sc_new(k->chip, false);
	assert_non_null(r->c);
	sc_install(r->c, &img, 0);
	assert_true(cxsim_boot_info(r->c)->booted);
	card_open_listed(&r->d, r->c);
	assert_int_equal(r->d.chip.fw_access, running);
	r->flash = sc_snapshot(r->c, &r->n);
	assert_non_null(r->flash);
	if (fs3_parse(r->flash, r->n, &r->ref, &st) || fs3_verdict(&r->ref, &st))
		fail_msg("the model's flash as a dump: %s", st.msg);
}

static void rig_close(struct rig *r)
{
	device_close(&r->d);
	cxsim_free(r->c);
	free(r->flash);
}

/* [off, off + len) rounded out to whole blocks of blk bytes. */
static uint64_t blocks(uint64_t off, uint64_t len, uint32_t blk)
{
	uint64_t a = off / blk * blk, e = (off + len + blk - 1) / blk * blk;

	return e - a;
}

/* What the parse of a quick query needs, rounded out to read blocks (see the top). */
static uint64_t query_bound(const struct fs3_image *f, uint32_t blk)
{
	uint64_t sum = (uint64_t)PROBES * blocks(0, PROBE_LEN, blk);
	int ndtoc = f->nentries - f->nitoc;

	/* An FS4 DEV_INFO without its signature (the spare) is read up to its signature only. */
	for (int i = 0; i < f->nentries; i++) {
		bool item = false;
		for (int j = 0; j < f->nitems; j++)
			item |= f->items[j].entry == i;
		if (!item && f->entries[i].type == 0xe1)
			sum += blocks(f->entries[i].data_off, 16, blk);
	}
	for (int i = 0; i < f->nitems; i++) {
		const struct fs3_item *it = &f->items[i];
		switch (it->kind) {
		case FS3_ITEM_BOOT2:
			sum += blocks(it->off, BOOT2_HEAD, blk);
			break;
		case FS3_ITEM_TOC_HEADER: /* the header, its entries and the end marker */
			sum += blocks(it->off, TOC_ROW * (2 + (uint64_t)(it->type == 0xfe ? ndtoc : f->nitoc)), blk);
			break;
		case FS3_ITEM_SECTION:
			if (it->entry < 0 || fs3_query_reads(it->type))
				sum += blocks(it->off, it->len, blk);
			break;
		default: /* FS4 pointers (one item each), tools area, hashes table */
			sum += blocks(it->off, it->len, blk);
			break;
		}
	}
	return sum;
}

/* The query read saw what a dump's parse sees: the same image, the same identity. */
static void same_as_dump(const struct fs3_image *q, const struct fs3_image *ref)
{
	struct cx_status st = {0};

	if (fs3_verdict_query(q, &st))
		fail_msg("q's verdict: %s", st.msg);
	assert_int_equal(q->start, ref->start);
	assert_int_equal(q->nentries, ref->nentries);
	assert_int_equal(q->nitoc, ref->nitoc);
	assert_true(q->info.present && q->mfg.present && q->dev.present);
	assert_string_equal(q->info.psid, ref->info.psid);
	assert_memory_equal(q->info.fw_ver, ref->info.fw_ver, sizeof(q->info.fw_ver));
	assert_string_equal(q->mfg.psid, ref->mfg.psid);
	assert_true(q->dev.guids[0].uid == ref->dev.guids[0].uid && q->dev.guids[0].uid == SC_GUID);
	assert_true(q->dev.macs[0].uid == ref->dev.macs[0].uid);
	assert_int_equal(q->nroms, ref->nroms);
	assert_true(q->nroms > 0);
	assert_int_equal(q->security_version, ref->security_version);
}

static void query_reads_what_it_parses(const struct chipcase *k, bool running)
{
	struct rig r;
	struct devfs3 q;
	struct cx_status st = {0};
	uint32_t blk = running ? 256 : 16;

	rig_open(&r, k, running);
	uint64_t before = cxsim_counters(r.c)->bytes_read;
	if (device_read_fs3_query(&r.d, &q, &st))
		fail_msg("q: %s", st.msg);
	uint64_t read = cxsim_counters(r.c)->bytes_read - before, bound = query_bound(&r.ref, blk);
	same_as_dump(&q.img, &r.ref);
	/* Each TOC's entries were read to the real end marker, never taken from an unread 0xFF. */
	assert_memory_equal(q.flash + r.ref.itoc_off, r.flash + r.ref.itoc_off, TOC_ROW * (2 + (size_t)r.ref.nitoc));
	print_message("%s %s: q read %llu bytes, the parse needs %llu in %u-byte blocks\n", k->fs4 ? "FS4" : "FS3",
		      running ? "running" : "recovery", (unsigned long long)read, (unsigned long long)bound, blk);
	assert_true(read > 0);
	assert_true(read <= bound);
	assert_int_equal(q.bytes_read, read);
	devfs3_free(&q);
	rig_close(&r);
}

/* v reads all it checks: every item as a dump's parse has it, BOOT2 and every section whole. */
static void verify_reads_all_it_checks(const struct chipcase *k, bool running)
{
	struct rig r;
	struct devfs3 v;
	struct cx_status st = {0};

	rig_open(&r, k, running);
	if (device_read_fs3(&r.d, &v, &st) || fs3_verdict(&v.img, &st))
		fail_msg("v: %s", st.msg);
	assert_int_equal(v.img.nitems, r.ref.nitems);
	for (int i = 0; i < r.ref.nitems; i++) {
		const struct fs3_item *a = &v.img.items[i], *b = &r.ref.items[i];
		assert_int_equal(a->off, b->off);
		assert_int_equal(a->len, b->len);
		assert_memory_equal(v.flash + a->off, r.flash + a->off, a->len);
	}
	devfs3_free(&v);
	rig_close(&r);
}

/* A burn's read: the query's, and every device section whole, the FS4 spare DEV_INFO too (the
 * burn compares each one after it wrote). */
static void burn_reads_the_device_data(const struct chipcase *k, bool running)
{
	struct rig r;
	struct devfs3 b;
	struct cx_status st = {0};
	int ndev = 0;

	rig_open(&r, k, running);
	if (device_read_fs3_burn(&r.d, &b, &st))
		fail_msg("burn's read: %s", st.msg);
	same_as_dump(&b.img, &r.ref);
	for (int i = 0; i < r.ref.nentries; i++) {
		const struct fs3_entry *e = &r.ref.entries[i];
		if (!e->device_data && !e->in_dtoc)
			continue;
		ndev++;
		assert_memory_equal(b.flash + e->data_off, r.flash + e->data_off, e->size);
	}
	assert_true(ndev >= 2);
	devfs3_free(&b);
	rig_close(&r);
}

static void test_burn_fs3(void **s)
{
	(void)s;
	burn_reads_the_device_data(&cx4lx, false);
}

static void test_burn_fs4(void **s)
{
	(void)s;
	burn_reads_the_device_data(&cx5, true);
}

static void test_query_fs3_recovery(void **s)
{
	(void)s;
	query_reads_what_it_parses(&cx4lx, false);
}

static void test_query_fs4_recovery(void **s)
{
	(void)s;
	query_reads_what_it_parses(&cx5, false);
}

static void test_query_fs3_running(void **s)
{
	(void)s;
	query_reads_what_it_parses(&cx4lx, true);
}

static void test_query_fs4_running(void **s)
{
	(void)s;
	query_reads_what_it_parses(&cx5, true);
}

static void test_verify_fs3(void **s)
{
	(void)s;
	verify_reads_all_it_checks(&cx4lx, false);
}

static void test_verify_fs4(void **s)
{
	(void)s;
	verify_reads_all_it_checks(&cx5, true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_query_fs3_recovery), cmocka_unit_test(test_query_fs4_recovery),
		cmocka_unit_test(test_query_fs3_running),  cmocka_unit_test(test_query_fs4_running),
		cmocka_unit_test(test_verify_fs3),         cmocka_unit_test(test_verify_fs4),
		cmocka_unit_test(test_burn_fs3),           cmocka_unit_test(test_burn_fs4),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
