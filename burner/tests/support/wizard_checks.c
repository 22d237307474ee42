/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wizard_checks.c — what a wizard session left: the cards, history, bundles, records, reports. */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "dev/trace_read.h"
#include "scratch.h"
#include "util/fileio.h"
#include "util/sha256.h"
#include "wizard_checks.h"

/* ---- the cards ---------------------------------------------------------------------------- */

void expect_untouched(struct cxsim_card *c, const uint8_t *before, size_t n)
{
	size_t m;

	assert_int_equal(cxsim_counters(c)->erases, 0);
	assert_int_equal(cxsim_counters(c)->bytes_erased, 0);
	assert_int_equal(cxsim_counters(c)->bytes_programmed, 0);
	assert_memory_equal(cxsim_flash(c, &m), before, n);
}

const struct cxsim_boot *cold_boot(struct cxsim_card *c)
{
	cxsim_power_cycle(c);
	const struct cxsim_boot *b = cxsim_boot_info(c);
	if (!b->booted)
		fail_msg("the card does not boot: %s", b->why);
	return b;
}

void expect_boots(struct cxsim_card *c, const char *psid, int minor, int sub, uint64_t guid, uint64_t mac)
{
	const struct cxsim_boot *b = cold_boot(c);

	assert_string_equal(b->psid, psid);
	assert_int_equal(b->fw_ver[0], 2);
	assert_int_equal(b->fw_ver[1], minor);
	assert_int_equal(b->fw_ver[2], sub);
	for (int k = 0; k < 4; k++)
		assert_int_equal(b->guids[k], guid + (uint64_t)k);
	assert_int_equal(b->macs[0], mac);
	assert_int_equal(b->macs[1], mac + 1);
}

long nv_value(const struct cxsim_card *c, const char *name)
{
	struct cxsim_setting v[64];
	size_t n = cxsim_nv_settings(c, v, 64);

	for (size_t k = 0; k < n && k < 64; k++)
		if (!strcmp(v[k].name, name))
			return (long)v[k].value;
	return -1;
}

/* ---- history.jsonl ------------------------------------------------------------------------- */

static char *history(const struct rig *r)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/history.jsonl", r->data);
	return read_text(path);
}

/* history.jsonl lines holding every one of the (up to three) needles. */
static int history_lines(const struct rig *r, const char *a, const char *b, const char *c)
{
	int n = 0;
	char *text = history(r);

	if (!text)
		return 0;
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
		n += strstr(line, a) && (!b || strstr(line, b)) && (!c || strstr(line, c));
	free(text);
	return n;
}

void expect_history(const struct rig *r, int want, const char *a, const char *b, const char *c)
{
	int got = history_lines(r, a, b, c);

	if (got != want) {
		char *text = history(r);
		fprintf(stderr, "---- history.jsonl ----\n%s---- end ----\n", text ? text : "(none)");
		free(text);
		fail_msg("%d history lines with %s %s %s, expected %d", got, a, b ? b : "", c ? c : "", want);
	}
}

/* ---- backups/ ------------------------------------------------------------------------------ */

/* The names in folder data/sub (not . and ..): each passed to each(ctx, dir, name); how many. */
static int each_file(const struct rig *r, const char *sub, void (*each)(void *ctx, const char *dir, const char *name),
		     void *ctx)
{
	char dir[256];
	struct dirent *de;
	DIR *d;
	int count = 0;

	snprintf(dir, sizeof(dir), "%s/%s", r->data, sub);
	if (!(d = opendir(dir)))
		return -1;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.') {
			count++;
			each(ctx, dir, de->d_name);
		}
	closedir(d);
	return count;
}

struct same_flash {
	const uint8_t *flash;
	size_t n;
	int equal;
};

static void count_equal(void *ctx, const char *dir, const char *name)
{
	struct same_flash *s = ctx;
	struct cx_status st = {0};
	char path[600];
	uint8_t *buf;
	size_t len;

	snprintf(path, sizeof(path), "%s/%s/flash.bin", dir, name);
	if (s->flash && file_read(path, 64u << 20, &buf, &len, &st) == CX_OK) {
		s->equal += len == s->n && !memcmp(buf, s->flash, s->n);
		free(buf);
	}
}

int bundles(const struct rig *r, const uint8_t *flash, size_t n, int *equal)
{
	struct same_flash s = {flash, n, 0};
	int count = each_file(r, "backups", count_equal, &s);

	*equal = s.equal;
	return count < 0 ? 0 : count;
}

struct name_out {
	char *out;
	size_t n;
};

static void name_of(void *ctx, const char *dir, const char *name)
{
	struct name_out *o = ctx;

	(void)dir;
	snprintf(o->out, o->n, "%s", name);
}

void only_bundle(const struct rig *r, char *out, size_t n)
{
	struct name_out o = {out, n};

	assert_int_equal(each_file(r, "backups", name_of, &o), 1);
}

void expect_bundle_flash(const char *bundle, const uint8_t *flash, size_t n)
{
	struct cx_status st = {0};
	char path[BACKUP_PATH_MAX + 16];
	uint8_t *buf;
	size_t len;

	snprintf(path, sizeof(path), "%s/flash.bin", bundle);
	assert_int_equal(file_read(path, 64u << 20, &buf, &len, &st), CX_OK);
	assert_int_equal(len, n);
	assert_memory_equal(buf, flash, n);
	free(buf);
}

void expect_flash_is_bundle(struct cxsim_card *c, const char *bundle)
{
	size_t m;
	const uint8_t *now = cxsim_flash(c, &m);

	expect_bundle_flash(bundle, now, m);
}

int count_files(const char *dir)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

/* ---- pending/ ------------------------------------------------------------------------------ */

struct pending *records(const struct rig *r, int *np)
{
	struct pending *v;
	struct cx_status st = {0};

	assert_int_equal(pending_list(r->data, &v, np, &st), CX_OK);
	return v;
}

int pending_count(const struct rig *r)
{
	int np;

	free(records(r, &np));
	return np;
}

void pend(struct rig *r, const char *action, uint64_t guid, const char *file, bool image, const char *identity)
{
	struct pending p = {0};
	struct cx_status st = {0};
	char hex[SHA256_HEX_LEN + 1];
	uint8_t *buf, d[SHA256_LEN];
	size_t len;

	snprintf(p.state, sizeof(p.state), "writing");
	snprintf(p.action, sizeof(p.action), "%s", action);
	snprintf(p.bdf, sizeof(p.bdf), "0000:01:00.0");
	snprintf(p.family, sizeof(p.family), "ConnectX-3");
	if (guid)
		snprintf(p.guid, sizeof(p.guid), "%016llx", (unsigned long long)guid);
	snprintf(p.file, sizeof(p.file), "%s", file);
	if (image) {
		assert_int_equal(file_read(file, 16u << 20, &buf, &len, &st), CX_OK);
		sha256(buf, len, d);
		free(buf);
		snprintf(p.sha256, sizeof(p.sha256), "%s", sha256_hex(d, hex));
		snprintf(p.to_psid, sizeof(p.to_psid), STOCK_PSID);
		snprintf(p.to_fw, sizeof(p.to_fw), "2.42.5000");
	}
	snprintf(p.identity, sizeof(p.identity), "%s", identity);
	snprintf(p.time, sizeof(p.time), "2026-11-24T10:46:00Z");
	assert_int_equal(pending_write(r->data, &p, &st), CX_OK);
}

/* ---- reports/ ------------------------------------------------------------------------------ */

struct json_found {
	char path[600];
	int n;
};

static void json_path(void *ctx, const char *dir, const char *name)
{
	struct json_found *o = ctx;
	size_t len = strlen(name);

	if (len < 5 || strcmp(name + len - 5, ".json"))
		return;
	snprintf(o->path, sizeof(o->path), "%s/%s", dir, name);
	o->n++;
}

char *report_text(const struct rig *r)
{
	struct json_found o = {"", 0};

	assert_true(each_file(r, "reports", json_path, &o) >= 0);
	assert_int_equal(o.n, 1);
	char *text = read_text(o.path);
	assert_non_null(text);
	if (getenv("WIZARD_SHOW"))
		fprintf(stderr, "---- report ----\n%s", text);
	return text;
}

void expect_card_result(const char *report, const char *bdf, const char *result)
{
	char key[64], want[64];

	snprintf(key, sizeof(key), "\"bdf\":\"%s\"", bdf);
	snprintf(want, sizeof(want), "\"result\":\"%s\"", result);
	const char *at = strstr(report, key);
	if (!at)
		fail_msg("the report has no card %s:\n%s", bdf, report);
	const char *res = strstr(at, "\"result\":\"");
	if (!res || strncmp(res, want, strlen(want)))
		fail_msg("card %s: expected %s in the report:\n%s", bdf, want, report);
}

void report_value(const char *report, const char *after, const char *key, char *out, size_t n)
{
	char k[64];
	const char *at = after ? strstr(report, after) : report;

	if (!at)
		fail_msg("the report has no %s:\n%s", after, report);
	snprintf(k, sizeof(k), "\"%s\":\"", key);
	const char *v = strstr(at, k);
	if (!v)
		fail_msg("the report has no string %s after %s:\n%s", key, after ? after : "its start", report);
	v += strlen(k);
	const char *end = strchr(v, '"');
	assert_non_null(end);
	assert_true((size_t)(end - v) < n);
	snprintf(out, n, "%.*s", (int)(end - v), v);
}

void report_backup(const char *report, const char *bdf, char *out, size_t n)
{
	char key[64];

	snprintf(key, sizeof(key), "\"bdf\":\"%s\"", bdf);
	const char *card = strstr(report, key);
	if (!card)
		fail_msg("the report has no card %s:\n%s", bdf, report);
	const char *next = strstr(card + 1, "\"bdf\":\""), *bk = strstr(card, "\"backup\":{");
	if (!bk || (next && bk > next))
		fail_msg("the report names no backup for card %s:\n%s", bdf, report);
	report_value(bk, NULL, "path", out, n);
}

void drop_reports(const struct rig *r)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/reports", r->data);
	rm_rf(path);
}

static void remove_file(void *ctx, const char *dir, const char *name)
{
	char path[600];

	(void)ctx;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_int_equal(unlink(path), 0);
}

void clear_reports(const struct rig *r)
{
	assert_true(each_file(r, "reports", remove_file, NULL) >= 0);
}

/* ---- traces/ ------------------------------------------------------------------------------- */

struct one_trace {
	const char *want; /* the name's tail */
	char path[900];
};

static void trace_named(void *ctx, const char *dir, const char *name)
{
	struct one_trace *t = ctx;

	assert_non_null(strstr(name, t->want));
	snprintf(t->path, sizeof(t->path), "%s/%s", dir, name);
}

void expect_one_trace(struct rig *r, const char *action, const char *bdf)
{
	char want[64];
	struct one_trace one = {want, ""};

	snprintf(want, sizeof(want), "-%s-%s.trace", action, bdf);
	for (char *p = want; *p; p++)
		if (*p == ':')
			*p = '-';
	assert_int_equal(each_file(r, "traces", trace_named, &one), 1);
	struct trace_reader *t;
	struct cx_status st = {0};
	struct tr_rec x;
	unsigned accesses = 0;
	assert_int_equal(trace_reader_open(&t, one.path, &st), CX_OK);
	assert_string_equal(trace_header(t, "bdf"), bdf);
	while (trace_reader_next(t, &x, &st) == 1)
		accesses += tr_is_access(x.kind);
	assert_true(trace_reader_complete(t));
	assert_true(accesses > 1000);   /* the backup and the burn */
	trace_reader_close(t);
}
