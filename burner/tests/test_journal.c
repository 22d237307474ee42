/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_journal.c — rescue/journal: log file names and their "-2" suffixes, log
 * lines under an injected clock (control characters, long lines), history lines
 * that Python's json module reads back field for field (nulls, escaped quotes and
 * newlines), appends that never rewrite what is there (and a broken last line
 * left by a power cut), folders that cannot be written, and a disk that fills up
 * later (remembered, not fatal). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rescue/journal.h"
#include "util/fileio.h"
#include "scratch.h"

#define T0 1795517160 /* 2026-11-24T10:46:00Z */

/* The whole file as a NUL-terminated string ("" if absent). */
static char *slurp(const char *path)
{
	struct cx_status st = {0};
	uint8_t *buf;
	size_t len;

	if (file_read(path, 1u << 20, &buf, &len, &st)) {
		char *empty = calloc(1, 1);
		assert_non_null(empty);
		return empty;
	}
	char *s = malloc(len + 1);
	assert_non_null(s);
	memcpy(s, buf, len);
	s[len] = '\0';
	free(buf);
	return s;
}

static void append_raw(const char *path, const char *text)
{
	FILE *f = fopen(path, "ab");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

static time_t fake_now = T0;

static time_t fake_clock(time_t *t)
{
	if (t)
		*t = fake_now;
	return fake_now;
}

/* Each line of path read by Python's json module and written back with sorted
 * keys, or "BAD <line>" when it does not parse. */
static char *python_lines(const char *path)
{
	char cmd[1024], *out = NULL;
	size_t cap = 0, len = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd),
		 "/usr/bin/python3 -c '\n"
		 "import json, sys\n"
		 "for l in open(sys.argv[1], \"rb\").read().split(b\"\\n\")[:-1]:\n"
		 "    try:\n"
		 "        print(json.dumps(json.loads(l), sort_keys=True, separators=(\",\", \":\")))\n"
		 "    except ValueError:\n"
		 "        print(\"BAD\", l.decode(\"latin-1\").encode(\"unicode_escape\").decode())\n"
		 "' '%s'",
		 path);
	assert_non_null(p = popen(cmd, "r"));
	for (;;) {
		if (len + 4096 > cap) {
			cap = 2 * cap + 4096;
			assert_non_null(out = realloc(out, cap));
		}
		size_t r = fread(out + len, 1, cap - len - 1, p);
		if (!r)
			break;
		len += r;
	}
	out[len] = '\0';
	assert_int_equal(pclose(p), 0);
	return out;
}

/* ---- names ---- */

static void test_names_and_suffixes(void **state)
{
	struct journal j[3];
	struct cx_status st = {0};
	char tmp[64], data[128], want[256];
	struct stat sb;
	(void)state;

	scratch_dir(tmp, sizeof(tmp), "journal");
	snprintf(data, sizeof(data), "%s/cxrescue", tmp); /* absent: made, with logs/ */
	for (int i = 0; i < 3; i++) {
		if (journal_open(&j[i], data, T0, &st))
			fail_msg("journal_open: %s", st.msg);
		assert_true(j[i].open);
		assert_false(j[i].write_error);
	}
	snprintf(want, sizeof(want), "%s/logs/cxrescue-20261124T104600Z.log", data);
	assert_string_equal(j[0].log_path, want);
	snprintf(want, sizeof(want), "%s/logs/cxrescue-20261124T104600Z-2.log", data);
	assert_string_equal(j[1].log_path, want);
	snprintf(want, sizeof(want), "%s/logs/cxrescue-20261124T104600Z-3.log", data);
	assert_string_equal(j[2].log_path, want);
	snprintf(want, sizeof(want), "%s/history.jsonl", data);
	assert_string_equal(j[0].history_path, want);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(stat(j[i].log_path, &sb), 0);
		assert_true(S_ISREG(sb.st_mode) && sb.st_size == 0);
		journal_close(&j[i]);
		journal_close(&j[i]); /* twice is harmless */
		assert_false(j[i].write_error);
	}
	/* Opening writes no history: the file appears with the first action. */
	assert_int_not_equal(stat(want, &sb), 0);

	/* Another second, another name; an existing logs/ is used as it is. */
	assert_int_equal(journal_open(&j[0], data, T0 + 3600 * 24 * 40 + 1, &st), CX_OK);
	snprintf(want, sizeof(want), "%s/logs/cxrescue-20270103T104601Z.log", data);
	assert_string_equal(j[0].log_path, want);
	journal_close(&j[0]);
	rm_rf(tmp);
}

/* ---- log lines ---- */

static void test_log_lines(void **state)
{
	struct journal j;
	struct cx_status st = {0};
	char tmp[64], big[1500], want[4096];
	(void)state;

	scratch_dir(tmp, sizeof(tmp), "journal");
	assert_int_equal(journal_open(&j, tmp, T0, &st), CX_OK);
	j.clock = fake_clock;
	fake_now = T0 + 5;
	journal_log(&j, "wizard started, %d card%s", 2, "s");
	fake_now = T0 + 3600 + 61;
	journal_log(&j, "card %s: %s\n", "0000:01:00.0", "backed up"); /* a habitual newline */
	journal_log(&j, "two\nlines\r\tand an \033[2J escape%c", 0);
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	fake_now = T0 + 86400 - 1;
	journal_log(&j, "%s", big); /* longer than the stack buffer */
	journal_log(&j, "%s", "");
	journal_close(&j);
	assert_false(j.write_error);
	assert_int_equal(j.lost_lines, 0);

	char *log = slurp(j.log_path);
	snprintf(want, sizeof(want),
		 "10:46:05 wizard started, 2 cards\n"
		 "11:47:01 card 0000:01:00.0: backed up\n"
		 "11:47:01 two lines  and an  [2J escape \n"
		 "10:45:59 %s\n"
		 "10:45:59 \n",
		 big);
	assert_string_equal(log, want);
	free(log);
	rm_rf(tmp);
}

/* ---- history lines ---- */

static const struct history_from FROM = {"HP_0280210019", "2.40.5030"};
static const struct history_to TO = {"MT_1090120019", "2.42.5000", "/mnt/cxrescue/firmware/fw-ConnectX3.bin",
				      "8f434346648f6b96df89dda901c5176b10a6d83961dd3c1ac88b59b2dc327aa4"};
static const struct history_backup BACKUP = {
	"/mnt/cxrescue/backups/cx3-HP_0280210019-0002c90300c0ffe0-20261124T104600Z",
	"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"};

static struct history_entry full_entry(void)
{
	struct history_entry e = {
		.action = "crossflash",
		.card = {"0000:01:00.0", "ConnectX-3 A1", "HP_0280210019", 0x0002c90300c0ffe0ull, 2,
			 {0x0002c9c0ffe0ull, 0x0002c9c0ffe1ull}},
		.from = &FROM,
		.to = &TO,
		.backup = &BACKUP,
		.result = "ok",
		.message = NULL,
	};
	return e;
}

static void test_history_fields(void **state)
{
	struct journal j;
	struct cx_status st = {0};
	char tmp[64], want[4096];
	(void)state;

	scratch_dir(tmp, sizeof(tmp), "journal");
	assert_int_equal(journal_open(&j, tmp, T0, &st), CX_OK);
	j.clock = fake_clock;
	fake_now = T0 + 75;

	struct history_entry e = full_entry();
	assert_int_equal(journal_history(&j, &e, &st), CX_OK);

	/* A recovery-mode card: no PSID, GUID or MACs, nothing before, no backup. */
	struct history_to to = {NULL, NULL, NULL, NULL};
	struct history_entry r = {
		.action = "unbrick",
		.card = {"0000:02:00.0", "ConnectX-3 Pro A0", NULL, 0, 0, {0, 0}},
		.to = &to,
		.result = "refused",
		.message = "the card's \"flash\" is absent;\nset the jumper\\FNP \x01 then retry",
	};
	fake_now = T0 + 86400;
	assert_int_equal(journal_history(&j, &r, &st), CX_OK);

	/* Every string NULL (a careless caller): still one valid line. One MAC. */
	struct history_entry n = {.card = {.nmacs = 1, .mac = {0x1ull}}};
	assert_int_equal(journal_history(&j, &n, &st), CX_OK);
	/* An out-of-range MAC count is clamped, not read past the array. */
	n.card.nmacs = 1000;
	n.action = "set-ids";
	assert_int_equal(journal_history(&j, &n, &st), CX_OK);
	assert_int_equal(journal_history(&j, NULL, &st), CX_EUSAGE);
	cx_status_clear(&st);
	journal_close(&j);
	assert_false(j.write_error);

	char *text = slurp(j.history_path);
	int lines = 0;
	for (char *p = text; *p; p++)
		lines += *p == '\n';
	assert_int_equal(lines, 4);
	assert_int_equal(text[strlen(text) - 1], '\n');
	free(text);

	char *got = python_lines(j.history_path);
	snprintf(want, sizeof(want),
		 "{\"action\":\"crossflash\",\"backup\":{\"path\":\"%s\",\"sha256\":\"%s\"},"
		 "\"card\":{\"bdf\":\"0000:01:00.0\",\"chip\":\"ConnectX-3 A1\",\"macs\":[\"0002c9c0ffe0\","
		 "\"0002c9c0ffe1\"],\"node_guid\":\"0002c90300c0ffe0\",\"psid\":\"HP_0280210019\"},"
		 "\"from\":{\"fw\":\"2.40.5030\",\"psid\":\"HP_0280210019\"},"
		 "\"log\":\"cxrescue-20261124T104600Z.log\",\"message\":null,\"result\":\"ok\","
		 "\"time\":\"2026-11-24T10:47:15Z\","
		 "\"to\":{\"file\":\"%s\",\"fw\":\"2.42.5000\",\"psid\":\"MT_1090120019\",\"sha256\":\"%s\"}}\n"
		 "{\"action\":\"unbrick\",\"backup\":null,\"card\":{\"bdf\":\"0000:02:00.0\","
		 "\"chip\":\"ConnectX-3 Pro A0\",\"macs\":null,\"node_guid\":null,\"psid\":null},\"from\":null,"
		 "\"log\":\"cxrescue-20261124T104600Z.log\","
		 "\"message\":\"the card's \\\"flash\\\" is absent;\\nset the jumper\\\\FNP \\u0001 then retry\","
		 "\"result\":\"refused\",\"time\":\"2026-11-25T10:46:00Z\","
		 "\"to\":{\"file\":null,\"fw\":null,\"psid\":null,\"sha256\":null}}\n"
		 "{\"action\":null,\"backup\":null,\"card\":{\"bdf\":null,\"chip\":null,\"macs\":[\"000000000001\"],"
		 "\"node_guid\":null,\"psid\":null},\"from\":null,\"log\":\"cxrescue-20261124T104600Z.log\","
		 "\"message\":null,\"result\":null,\"time\":\"2026-11-25T10:46:00Z\",\"to\":null}\n"
		 "{\"action\":\"set-ids\",\"backup\":null,\"card\":{\"bdf\":null,\"chip\":null,\"macs\":"
		 "[\"000000000001\",\"000000000000\"],\"node_guid\":null,\"psid\":null},\"from\":null,"
		 "\"log\":\"cxrescue-20261124T104600Z.log\",\"message\":null,\"result\":null,"
		 "\"time\":\"2026-11-25T10:46:00Z\",\"to\":null}\n",
		 BACKUP.path, BACKUP.sha256, TO.file, TO.sha256);
	assert_string_equal(got, want);
	free(got);
	rm_rf(tmp);
}

/* Keys in the documented order (journal.h), straight from the file. */
static void test_history_key_order(void **state)
{
	struct journal j;
	struct cx_status st = {0};
	char tmp[64];
	(void)state;

	scratch_dir(tmp, sizeof(tmp), "journal");
	assert_int_equal(journal_open(&j, tmp, T0, &st), CX_OK);
	struct history_entry e = full_entry();
	assert_int_equal(journal_history(&j, &e, &st), CX_OK);
	journal_close(&j);
	char *text = slurp(j.history_path);
	static const char *const keys[] = {"{\"time\":", ",\"action\":", ",\"card\":{\"bdf\":", ",\"chip\":",
					   ",\"psid\":", ",\"node_guid\":", ",\"macs\":", "},\"from\":",
					   ",\"to\":", ",\"backup\":", ",\"result\":", ",\"message\":",
					   ",\"log\":"};
	const char *p = text;
	for (unsigned i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const char *k = strstr(p, keys[i]);
		if (!k)
			fail_msg("key %s missing or out of order in %s", keys[i], text);
		p = k + strlen(keys[i]);
	}
	free(text);
	rm_rf(tmp);
}

/* ---- appends ---- */

static void test_appends_never_rewrite(void **state)
{
	struct journal j;
	struct cx_status st = {0};
	char tmp[64];
	(void)state;

	scratch_dir(tmp, sizeof(tmp), "journal");
	assert_int_equal(journal_open(&j, tmp, T0, &st), CX_OK);
	struct history_entry e = full_entry();
	assert_int_equal(journal_history(&j, &e, &st), CX_OK);
	char *first = slurp(j.history_path);
	journal_close(&j);

	/* The next session appends to the same history. */
	assert_int_equal(journal_open(&j, tmp, T0 + 600, &st), CX_OK);
	e.action = "backup";
	assert_int_equal(journal_history(&j, &e, &st), CX_OK);
	char *second = slurp(j.history_path);
	assert_true(strlen(second) > strlen(first));
	assert_memory_equal(second, first, strlen(first));

	/* A power cut left half a line: the next one starts on a fresh line, and
	 * neither what was there nor the new line is lost. */
	append_raw(j.history_path, "{\"time\":\"2026-11-24T10:5");
	e.action = "restore";
	assert_int_equal(journal_history(&j, &e, &st), CX_OK);
	/* ... or NUL bytes, as FAT leaves when it grew the file but not its data. */
	FILE *f = fopen(j.history_path, "ab");
	assert_non_null(f);
	assert_int_equal(fwrite("\0\0\0\0", 1, 4, f), 4);
	fclose(f);
	e.action = "burn";
	assert_int_equal(journal_history(&j, &e, &st), CX_OK);
	journal_close(&j);
	assert_false(j.write_error);

	char *third = slurp(j.history_path);
	assert_memory_equal(third, second, strlen(second));
	free(third);
	char *got = python_lines(j.history_path);
	const char *p = got;
	static const char *const want[] = {"crossflash", "backup", NULL, "restore", NULL, "burn"};
	for (unsigned i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const char *nl = strchr(p, '\n');
		assert_non_null(nl);
		if (!want[i]) {
			assert_memory_equal(p, "BAD ", 4);
		} else {
			char k[64];
			snprintf(k, sizeof(k), "{\"action\":\"%s\",", want[i]);
			assert_memory_equal(p, k, strlen(k));
		}
		p = nl + 1;
	}
	assert_string_equal(p, "");
	free(got);
	free(first);
	free(second);
	rm_rf(tmp);
}

/* ---- failures ---- */

static void test_cannot_open(void **state)
{
	struct journal j;
	struct cx_status st = {0};
	char tmp[64], path[128];
	(void)state;

	scratch_dir(tmp, sizeof(tmp), "journal");

	/* A folder we cannot write in (root ignores permissions: /proc stands in). */
	const char *ro = "/proc";
	if (geteuid() != 0) {
		snprintf(path, sizeof(path), "%s/ro", tmp);
		assert_int_equal(mkdir(path, 0555), 0);
		ro = path;
	}
	assert_int_equal(journal_open(&j, ro, T0, &st), CX_EIO);
	if (!strstr(st.msg, "cannot create") || !strstr(st.msg, "/logs"))
		fail_msg("%s", st.msg);
	assert_false(j.open);
	assert_true(j.write_error);
	assert_string_equal(j.error, st.msg);

	/* The closed journal takes every call. */
	journal_log(&j, "lost %d", 1);
	journal_log(&j, "lost %d", 2);
	assert_int_equal(j.lost_lines, 2);
	struct history_entry e = full_entry();
	struct cx_status hst = {0};
	assert_int_equal(journal_history(&j, &e, &hst), CX_EIO);
	assert_non_null(strstr(hst.msg, "not open"));
	journal_close(&j);
	cx_status_clear(&st);

	/* data_dir is a file; logs/ is a file; no data_dir at all. */
	snprintf(path, sizeof(path), "%s/file", tmp);
	append_raw(path, "x");
	assert_int_equal(journal_open(&j, path, T0, &st), CX_EIO);
	assert_non_null(strstr(st.msg, "not a folder"));
	cx_status_clear(&st);
	snprintf(path, sizeof(path), "%s/d", tmp);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/d/logs", tmp);
	append_raw(path, "x");
	snprintf(path, sizeof(path), "%s/d", tmp);
	assert_int_equal(journal_open(&j, path, T0, &st), CX_EIO);
	if (!strstr(st.msg, "/d/logs is not a folder"))
		fail_msg("%s", st.msg);
	cx_status_clear(&st);
	assert_int_equal(journal_open(&j, "", T0, &st), CX_EUSAGE);
	cx_status_clear(&st);
	assert_int_equal(journal_open(&j, NULL, T0, &st), CX_EUSAGE);
	cx_status_clear(&st);

	/* A path too long to hold. */
	char *longp = malloc(JOURNAL_PATH_MAX + 10);
	assert_non_null(longp);
	memset(longp, 'a', JOURNAL_PATH_MAX + 9);
	longp[0] = '/';
	longp[JOURNAL_PATH_MAX + 9] = '\0';
	assert_int_equal(journal_open(&j, longp, T0, &st), CX_EIO);
	assert_non_null(strstr(st.msg, "too long"));
	cx_status_clear(&st);
	free(longp);

	/* A zeroed journal that never opened. */
	memset(&j, 0, sizeof(j));
	journal_log(&j, "nowhere");
	assert_int_equal(j.lost_lines, 1);
	assert_int_equal(journal_history(&j, &e, &st), CX_EIO);
	journal_close(&j);
	rm_rf(tmp);
}

/* The stick fills up in the middle of a session (a file size limit stands in for
 * it, for root too): remembered, counted, and the wizard carries on. */
static void test_write_error_later(void **state)
{
	struct journal j;
	struct cx_status st = {0};
	struct rlimit old, lim;
	struct stat sb;
	char tmp[64];
	(void)state;

	scratch_dir(tmp, sizeof(tmp), "journal");
	assert_int_equal(journal_open(&j, tmp, T0, &st), CX_OK);
	j.clock = fake_clock;
	fake_now = T0;
	journal_log(&j, "before the disk fills");
	struct history_entry e = full_entry();
	assert_int_equal(journal_history(&j, &e, &st), CX_OK);
	assert_int_equal(stat(j.history_path, &sb), 0);

	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim = old;
	lim.rlim_cur = (rlim_t)sb.st_size + 40; /* room for part of a line only */
	signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	for (int i = 0; i < 10; i++)
		journal_log(&j, "line %d of a session whose stick is full ..............................", i);
	int rc = journal_history(&j, &e, &st);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, SIG_DFL);

	assert_true(j.write_error);
	assert_true(j.lost_lines > 0 && j.lost_lines < 10);
	if (!strstr(j.error, "cannot write") || !strstr(j.error, ".log"))
		fail_msg("%s", j.error);
	assert_int_equal(rc, CX_EIO);
	assert_non_null(strstr(st.msg, "history.jsonl"));
	cx_status_clear(&st);

	/* Room again: the journal goes on, the first error stays the one reported. */
	char first_error[CX_MSG_MAX];
	snprintf(first_error, sizeof(first_error), "%s", j.error);
	unsigned lost = j.lost_lines;
	journal_log(&j, "after");
	e.action = "backup";
	assert_int_equal(journal_history(&j, &e, &st), CX_OK);
	assert_int_equal(j.lost_lines, lost);
	assert_string_equal(j.error, first_error);
	journal_close(&j);

	/* The torn history line stands alone; the good ones parse. */
	char *got = python_lines(j.history_path);
	const char *second = strchr(got, '\n') + 1;
	assert_memory_equal(got, "{\"action\":\"crossflash\",", 23);
	assert_memory_equal(second, "BAD {\"time\":", 12);
	const char *third = strchr(second, '\n') + 1;
	assert_memory_equal(third, "{\"action\":\"backup\",", 19);
	free(got);
	char *log = slurp(j.log_path);
	assert_non_null(strstr(log, "10:46:00 before the disk fills\n"));
	assert_non_null(strstr(log, "\n10:46:00 after\n"));
	free(log);
	rm_rf(tmp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_and_suffixes),
		cmocka_unit_test(test_log_lines),
		cmocka_unit_test(test_history_fields),
		cmocka_unit_test(test_history_key_order),
		cmocka_unit_test(test_appends_never_rewrite),
		cmocka_unit_test(test_cannot_open),
		cmocka_unit_test(test_write_error_later),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
