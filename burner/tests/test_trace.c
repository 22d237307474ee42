/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_trace.c — the trace format (dev/trace_fmt.h), its file writer and reader, and
 * the replay access method: every record kind and encoding round-trips; a record cut
 * anywhere reads as incomplete, never as another record; damaged records, files that
 * are not traces, files cut short and a writer killed mid-session; a replay that
 * answers reads and refuses the first write that differs. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dev/trace_read.h"
#include "dev/trace_replay.h"
#include "dev/trace_write.h"
#include "prng.h"

static const struct tr_rec samples[] = {
	{.kind = TR_CFG_READ, .off = 0x5c, .val = 0, .t_us = 0},
	{.kind = TR_CFG_WRITE, .off = 0x58, .val = 0xf0014, .t_us = 1},
	{.kind = TR_CFG_READ, .off = 0x5c, .val = 0xf0014, .t_us = 1},   /* same value as the write: other kind */
	{.kind = TR_CFG_READ, .off = 0x5c, .val = 0xf0014, .t_us = 1},   /* same offset and value */
	{.kind = TR_CFG_READ, .off = 0x00, .val = 0xffffffffu, .failed = true, .t_us = 5},
	{.kind = TR_MEM_READ, .off = 0xffffc, .val = (1u << 21) - 1, .t_us = 5},
	{.kind = TR_MEM_WRITE, .off = 0xf0380, .val = 1u << 21, .t_us = 1ull << 40},
	{.kind = TR_MEM_READ, .off = 0, .val = 0x80000000u, .t_us = (1ull << 40) + 1},
	{.kind = TR_SLEEP, .val = 1000, .t_us = (1ull << 40) + 1},
	{.kind = TR_SLEEP, .val = 1000, .t_us = (1ull << 40) + 1002},
	{.kind = TR_CFG_WRITE, .off = 0xfc, .val = 7, .t_us = (1ull << 40) + 1002},
};
#define NSAMPLES (sizeof(samples) / sizeof(samples[0]))

static void same(const struct tr_rec *a, const struct tr_rec *b)
{
	assert_int_equal(a->kind, b->kind);
	assert_int_equal(a->t_us, b->t_us);
	if (a->kind == TR_NOTE) {
		assert_int_equal(a->note_len, b->note_len);
		assert_memory_equal(a->note, b->note, a->note_len);
		return;
	}
	assert_int_equal(a->val, b->val);
	assert_int_equal(a->failed, b->failed);
	if (tr_is_access(a->kind))
		assert_int_equal(a->off, b->off);
}

/* Every sample, encoded after the ones before it, decodes to itself; and every
 * proper prefix of its bytes is "incomplete" and leaves the state as it was. */
static void test_round_trip_and_every_prefix(void **state)
{
	struct tr_state w = {0}, r = {0};
	uint8_t buf[TR_REC_MAX];
	struct tr_rec got;

	(void)state;
	for (size_t i = 0; i < NSAMPLES; i++) {
		size_t n = tr_encode(&w, &samples[i], buf);
		for (size_t k = 0; k < n; k++) {
			struct tr_state before = r;
			assert_int_equal(tr_decode(&r, buf, k, &got), 0);
			assert_memory_equal(&before, &r, sizeof(r));
		}
		assert_int_equal(tr_decode(&r, buf, n, &got), (int)n);
		same(&samples[i], &got);
	}
	assert_true(tr_encode(&(struct tr_state){0}, &samples[3], buf) <= 8);
}

static void test_notes(void **state)
{
	struct tr_state w = {0}, r = {0};
	uint8_t buf[TR_REC_MAX];
	struct tr_rec n = {.kind = TR_NOTE, .t_us = 3}, got;

	(void)state;
	memset(n.note, 'x', TR_NOTE_MAX);
	n.note_len = TR_NOTE_MAX;
	size_t len = tr_encode(&w, &n, buf);
	assert_int_equal(tr_decode(&r, buf, len, &got), (int)len);
	same(&n, &got);
	assert_int_equal(got.note[TR_NOTE_MAX], '\0');
	/* A longer note is cut to TR_NOTE_MAX, not refused. */
	n.note_len = TR_NOTE_MAX + 50;
	len = tr_encode(&w, &n, buf);
	assert_int_equal(tr_decode(&r, buf, len, &got), (int)len);
	assert_int_equal(got.note_len, TR_NOTE_MAX);
}

static void test_garbage_records(void **state)
{
	static const struct {
		uint8_t b[12];
		size_t n;
	} bad[] = {
		{{0x06}, 1},                                  /* kind 6 */
		{{0x07, 0, 0, 0, 0}, 5},                      /* kind 7 */
		{{0x05, 0x00}, 2},                            /* a note of 0 bytes */
		{{0x05, 0xff, 0x7f}, 3},                      /* a note longer than TR_NOTE_MAX */
		{{0x15, 0x01, 'x'}, 3},                       /* a note with SAME_OFF */
		{{0x14}, 1},                                  /* a sleep with SAME_OFF */
		{{0x60, 0, 0, 0, 0, 0}, 6},                   /* value encoding 3 */
		{{0x80, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, 12}, /* 11-byte varint */
		{{0x20, 0x00, 0xff, 0xff, 0xff, 0xff, 0x1f}, 7},  /* a value above 32 bits */
	};
	struct tr_rec got;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct tr_state s = {0};
		assert_int_equal(tr_decode(&s, bad[i].b, bad[i].n, &got), -1);
	}
}

/* Random records of every kind survive a file: writer, gzip, reader. */
static char *write_random(unsigned nrec, uint32_t seed, bool close_it)
{
	static char path[64];
	struct trace_writer *w;
	struct cx_status st = {0};
	uint32_t rng = seed;

	snprintf(path, sizeof(path), "/tmp/test_trace_%d_%u.trace", (int)getpid(), (unsigned)seed);
	assert_int_equal(trace_writer_open(&w, path, false, &st), CX_OK);
	trace_write_header(w, "cxflash=test\nbdf=0000:01:00.0\n");
	trace_write_note(w, "start");   /* a note flushes: the header is readable from here on */
	for (unsigned i = 0; i < nrec; i++) {
		uint32_t x = prng32(&rng);
		if (x % 97 == 0)
			trace_write_note(w, "note %u", i);
		else if (x % 13 == 0)
			trace_write_sleep(w, x >> 20);
		else
			trace_write_access(w, (enum tr_kind)(x % 4), (x >> 8) & 0xffffc, prng32(&rng) >> (x % 32), false);
	}
	if (close_it)
		assert_int_equal(trace_writer_close(w, &st), CX_OK);
	return path;
}

/* Read path; compare with the records write_random() drew from seed; return how many. */
static unsigned read_back(const char *path, uint32_t seed, bool *complete)
{
	struct trace_reader *r;
	struct cx_status st = {0};
	struct tr_rec got;
	uint32_t rng = seed;
	unsigned i = 0;

	assert_int_equal(trace_reader_open(&r, path, &st), CX_OK);
	assert_string_equal(trace_header(r, "bdf"), "0000:01:00.0");
	assert_null(trace_header(r, "nothing"));
	while (trace_reader_next(r, &got, &st) == 1) {
		if (got.kind == TR_NOTE && (!strcmp(got.note, "end") || !strcmp(got.note, "start")))
			continue;
		uint32_t x = prng32(&rng);
		if (x % 97 == 0) {
			char want[32];
			snprintf(want, sizeof(want), "note %u", i);
			assert_string_equal(got.note, want);
		} else if (x % 13 == 0) {
			assert_int_equal(got.kind, TR_SLEEP);
			assert_int_equal(got.val, x >> 20);
		} else {
			assert_int_equal(got.kind, x % 4);
			assert_int_equal(got.off, (x >> 8) & 0xffffc);
			assert_int_equal(got.val, prng32(&rng) >> (x % 32));
		}
		i++;
	}
	assert_int_equal(st.code, CX_OK);
	*complete = trace_reader_complete(r);
	trace_reader_close(r);
	return i;
}

static void test_file_round_trip(void **state)
{
	bool complete;
	const char *path = write_random(200000, 7, true);

	(void)state;
	assert_int_equal(read_back(path, 7, &complete), 200000);
	assert_true(complete);
	unlink(path);
}

/* A file cut at any length reads as a prefix of its records, never as others. */
static void test_truncated_files(void **state)
{
	char *path = write_random(30000, 11, true);
	FILE *f = fopen(path, "rb");
	static uint8_t data[1 << 20];
	size_t n = fread(data, 1, sizeof(data), f);
	unsigned last = 0;
	bool complete;

	(void)state;
	fclose(f);
	for (size_t cut = n / 37; cut < n; cut += n / 37) {
		f = fopen(path, "wb");
		fwrite(data, 1, cut, f);
		fclose(f);
		unsigned got = read_back(path, 11, &complete);
		if (cut + 16 < n)   /* the last bytes are the gzip trailer, after the end note */
			assert_false(complete);
		assert_true(got >= last);
		last = got;
	}
	assert_true(last > 20000);
	unlink(path);
}

/* A writer killed without closing (a crash): the records up to its last flush are there. */
static void test_prefix_after_a_crash(void **state)
{
	char path[64];
	pid_t pid = fork();
	bool complete;

	(void)state;
	assert_true(pid >= 0);
	if (pid == 0) {
		write_random(50000, 13, false);
		_exit(0);   /* no close, no atexit: what a crash leaves */
	}
	waitpid(pid, NULL, 0);
	snprintf(path, sizeof(path), "/tmp/test_trace_%d_13.trace", (int)pid);
	/* 50000 records are ~150 KiB of records: several TR_FLUSH_BYTES flushes */
	unsigned got = read_back(path, 13, &complete);
	assert_false(complete);
	assert_true(got > 30000 && got < 50000);
	unlink(path);
}

static void expect_open_error(const char *path, const void *bytes, size_t n, const char *words)
{
	struct trace_reader *r = NULL;
	struct cx_status st = {0};
	FILE *f = fopen(path, "wb");

	fwrite(bytes, 1, n, f);
	fclose(f);
	assert_int_equal(trace_reader_open(&r, path, &st), CX_EIMAGE);
	assert_non_null(strstr(st.msg, words));
	unlink(path);
}

static void test_not_traces(void **state)
{
	static const uint8_t gz_garbage[] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 0xde, 0xad, 0xbe, 0xef, 1, 2, 3};
	char path[64];

	(void)state;
	snprintf(path, sizeof(path), "/tmp/test_trace_%d_bad", (int)getpid());
	expect_open_error(path, "", 0, "not a cxflash trace");
	expect_open_error(path, "CXTRACE 2\n\n", 11, "not a cxflash trace");
	expect_open_error(path, "CXTRACE 1\nkey=value\n", 20, "header");
	expect_open_error(path, gz_garbage, sizeof(gz_garbage), "trace");
	uint8_t junk[4096];
	prng_fill(junk, sizeof(junk), 5);
	expect_open_error(path, junk, sizeof(junk), "not a cxflash trace");

	/* An uncompressed trace is read too (zlib passes it through), with damaged records refused. */
	static const char plain[] = "CXTRACE 1\n\n\x06";
	struct trace_reader *r;
	struct cx_status st = {0};
	struct tr_rec got;
	FILE *f = fopen(path, "wb");
	fwrite(plain, 1, sizeof(plain) - 1, f);
	fclose(f);
	assert_int_equal(trace_reader_open(&r, path, &st), CX_OK);
	assert_int_equal(trace_reader_next(r, &got, &st), -1);
	assert_int_equal(st.code, CX_EIMAGE);
	assert_non_null(strstr(st.msg, "record 1"));
	trace_reader_close(r);
	unlink(path);
}

/* A recording made through the recorder, then replayed: reads answered, the first
 * differing write refused, and the finish names it. */
static void test_replay_answers_and_refuses(void **state)
{
	char path[64];
	struct trace_writer *w;
	struct cx_status st = {0};
	struct trace_replay *rp;
	struct pci_card pci;
	struct cfg_dev cfg;
	struct crmem mem;
	uint32_t v;

	(void)state;
	snprintf(path, sizeof(path), "/tmp/test_trace_%d_replay", (int)getpid());
	assert_int_equal(trace_writer_open(&w, path, true, &st), CX_OK);
	trace_write_note(w, "open bdf=0000:02:00.0 device=1003 subsystem=15b3:0050 class=028000 bar0=0");
	trace_write_access(w, TR_CFG_WRITE, 0x58, 0xf0014, false);
	trace_write_access(w, TR_CFG_READ, 0x5c, 0x101f5, false);
	trace_write_sleep(w, 10);
	trace_write_access(w, TR_CFG_WRITE, 0x58, 0xf03fc, false);
	trace_write_note(w, "close");
	assert_int_equal(trace_writer_close(w, &st), CX_OK);

	/* The same accesses: no divergence. */
	assert_int_equal(trace_replay_open(&rp, path, &st), CX_OK);
	assert_int_equal(trace_replay_card(rp, "02:00.0", &pci, &cfg, &mem, &st), CX_OK);
	assert_int_equal(pci.device, 0x1003);
	assert_null(mem.ops);
	assert_int_equal(cfg_write(&cfg, 0x58, 0xf0014), 0);
	assert_int_equal(cfg_read(&cfg, 0x5c, &v), 0);
	assert_int_equal(v, 0x101f5);
	cfg_sleep_us(&cfg, 10);
	assert_int_equal(cfg_write(&cfg, 0x58, 0xf03fc), 0);
	cfg_close(&cfg);
	assert_int_equal(trace_replay_finish(rp, &st), CX_OK);

	/* Another card's BDF: refused. Then a write of another value: refused, named. */
	assert_int_equal(trace_replay_open(&rp, path, &st), CX_OK);
	assert_int_equal(trace_replay_card(rp, "0000:03:00.0", &pci, &cfg, &mem, &st), CX_EUSAGE);
	trace_replay_finish(rp, &(struct cx_status){0});
	cx_status_clear(&st);
	assert_int_equal(trace_replay_open(&rp, path, &st), CX_OK);
	assert_int_equal(trace_replay_card(rp, "0000:02:00.0", &pci, &cfg, &mem, &st), CX_OK);
	assert_int_equal(cfg_write(&cfg, 0x58, 0xf0018), -1);
	assert_int_equal(cfg_read(&cfg, 0x5c, &v), -1);   /* stopped: everything after fails */
	cfg_close(&cfg);
	assert_int_equal(trace_replay_finish(rp, &st), CX_EREPLAY);
	assert_non_null(strstr(st.msg, "access 1 is config write 0x58 = 0x000f0018, the recording has config "
				       "write 0x58 = 0x000f0014"));

	/* A command that stops early is a divergence too, with its own failure. */
	cx_status_clear(&st);
	assert_int_equal(trace_replay_open(&rp, path, &st), CX_OK);
	assert_int_equal(trace_replay_card(rp, "0000:02:00.0", &pci, &cfg, &mem, &st), CX_OK);
	assert_int_equal(cfg_write(&cfg, 0x58, 0xf0014), 0);
	cfg_close(&cfg);
	cx_fail(&st, CX_EFLASH, "it broke");
	assert_int_equal(trace_replay_finish(rp, &st), CX_EREPLAY);
	assert_non_null(strstr(st.msg, "ended after access 1 with: it broke"));
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip_and_every_prefix),
		cmocka_unit_test(test_notes),
		cmocka_unit_test(test_garbage_records),
		cmocka_unit_test(test_file_round_trip),
		cmocka_unit_test(test_truncated_files),
		cmocka_unit_test(test_prefix_after_a_crash),
		cmocka_unit_test(test_not_traces),
		cmocka_unit_test(test_replay_answers_and_refuses),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
