/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_wizard.c — rescue/wizard.c end to end: wizard_run() on in-process simulated
 * cards (a test bus), a generated firmware library and board table (or the real
 * library/boards.txt), the user's answers from a string and the screen into memory.
 * Every scenario checks what happened to the card (its flash, the model's erase and
 * program counters, what it boots after a power cycle) and what the wizard left in
 * its data folder (bundles, history.jsonl, pending/, reports/), not only the text:
 *
 *   an HP card backed up and cross-flashed to the stock image, keeping its GUIDs/MACs,
 *     and the next boot's check of that write;
 *   a wrong confirmation word writes nothing;
 *   the read-only probe before the first write: a write-protected flash (and a lockdown
 *     file, on the first screen too) shown before the typed word; declined, nothing written;
 *     a healthy card, nothing shown;
 *   a ConnectX-3 Pro image is listed as REFUSED for a ConnectX-3 and never offered;
 *   a card in recovery mode unbricked from its backup, and from its sticker's values;
 *   the unattended update and crossflash jobs (a RISKY target refused unless allowed);
 *   a write a power cut interrupted, finished at the next start;
 *   GUIDs/MACs set from the menu;
 *   job=restore: a bundle written back onto the one card it fits (its node GUID, or an
 *     unreadable identity), refused for two candidates, for none, for a bundle without image,
 *     without yes=1, and where it would need an answer;
 *   $CXR_UPLOAD: every backup uploaded before the first write, and nothing written when it
 *     did not reach the server (unless upload=optional); after=exit returns the job's code;
 *   the boot ROM: a cross-flash of a card with HP's CLP + UEFI + PXE keeps them by default,
 *     takes the image's or none when asked, asks nothing when they are the same; jobs' rom=
 *     (none, a file) and the report's ROM before and after; the menu's "Boot ROM: remove or
 *     replace" (declined, removed, then HP's set put back from the library);
 *   job=verify: before a cold restart the old firmware runs (said: not cold), after it ok; a
 *     flash that contradicts the write report, a card not written, a bad expect=;
 *   the card's settings (the model's settings interface): the port type and SR-IOV screen after
 *     a cross-flash the user watched only, Enter keeping every value (no settings command that
 *     writes), a change writing exactly the chosen setting, and its refusals (firmware not
 *     started, a one-port card with too many VFs, a wrong word); the menu's "Card settings"
 *     (one NAME=VALUE, a backup first, reset; an unknown name, too many VFs, a ConnectX-2 and
 *     a card in recovery mode refused with nothing sent);
 *   settings= (rescue/job_settings.c): set after a crossflash (exactly the settings' records
 *     written, the next boot has them, the report's before -> after); a bad name, a bad value
 *     or a port one card lacks refuses the whole job with nothing written, flash or settings;
 *     firmware not started: the card is written and fails on its settings; job=settings alone,
 *     and beside a ConnectX-2, which fails with its reason and is sent nothing. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mkimage.h"
#include "dev/trace_read.h"
#include "image/imgfile.h"
#include "ops/backup.h"
#include "ops/device_trace.h"
#include "rescue/pending.h"
#include "rescue/session.h"
#include "rescue/wizard.h"
#include "card_fixture.h"
#include "sim_cfg.h"
#include "util/fileio.h"
#include "util/sha256.h"

#define HP_PSID "HP_0280210019"
#define STOCK_PSID "MT_1090120019"   /* mkfs2's default ConnectX-3 PSID */
#define HP_SUBSYS_VENDOR 0x103c
#define HP_SUBSYS_DEVICE 0x18d6      /* library/boards.txt: 661685-001 */
#define SMALL "--ddr 2 --ddr-size 0x1000"
#define HP_OPTS "--chip cx3 --psid " HP_PSID " --fw 2.40.5030 " SMALL
#define OLD_STOCK_OPTS "--chip cx3 --fw 2.40.5030 " SMALL
#define FLASH_PART "W25Q80"          /* 1 MiB: every backup reads the whole flash twice */
#define LIB_FLASH " --flash-size 0x100000" /* the .ini of a library image names the flash size */
#define STOCK_IMAGE "--chip cx3 --fw 2.42.5000 " SMALL LIB_FLASH
#define PRO_IMAGE "--chip cx3pro " SMALL LIB_FLASH
#define REAL_TABLE "library/boards.txt"
#define URL "https://example.org/src"

#define G_A 0x0002c90300c0ffe0ull
#define M_A 0x0002c9c0ffe0ull
#define G_B 0x0002c90300b0bbb0ull
#define M_B 0x0002c9b0bbb0ull
/* What a user types from a sticker (scenarios 5 and 8). */
#define STICKER_G 0x0002c90300123450ull
#define STICKER_G_TYPED "0002C903-00123450"
#define STICKER_M 0x0002c9123450ull
#define STICKER_M_TYPED "00:02:c9:12:34:50"

#define MAX_CARDS 4

struct rig {
	char root[64];
	char data[128], fw[128], boards[128];
	struct cxsim_card *cards[MAX_CARDS];
	int ncards;
	const char *fw_dirs[1];      /* the library's folders: fw */
	struct wizard_opts o;
	char *out;
	size_t outlen;
};

/* ---- the rig ---------------------------------------------------------------------- */

static const char *build_dir(void)
{
	return getenv("CXR_BUILD") ? getenv("CXR_BUILD") : "build";
}

static void write_text(const char *path, const char *text)
{
	struct cx_status st = {0};

	assert_int_equal(file_write(path, (const uint8_t *)text, strlen(text), &st), CX_OK);
}

/* The HP board maps to the stock one, stated (so the cross-flash is OK, not RISKY). */
static const char *const stated_rows =
	"HP | 649281-B21 | " HP_PSID " | cx3 | 103c:18d6 | MCX354A-FCBT | " STOCK_PSID " | vpi | FDR | stated | " URL
	" | - | -\n"
	"Mellanox | MCX354A-FCBT | " STOCK_PSID " | cx3 | - | MCX354A-FCBT | " STOCK_PSID " | vpi | FDR | stated | "
	URL " | - | -\n";

static int setup(void **state)
{
	struct rig *r = calloc(1, sizeof(*r));

	assert_non_null(r);
	snprintf(r->root, sizeof(r->root), "/tmp/cx-wizard-XXXXXX");
	assert_non_null(mkdtemp(r->root));
	snprintf(r->data, sizeof(r->data), "%s/data", r->root);
	snprintf(r->fw, sizeof(r->fw), "%s/firmware", r->root);
	snprintf(r->boards, sizeof(r->boards), "%s/boards.txt", r->root);
	assert_int_equal(mkdir(r->data, 0755), 0);
	assert_int_equal(mkdir(r->fw, 0755), 0);
	write_text(r->boards, stated_rows);
	r->o.boards = r->boards;
	r->fw_dirs[0] = r->fw;
	r->o.firmware = r->fw_dirs;
	r->o.nfirmware = 1;
	r->o.data_dir = r->data;
	r->o.data_kind = "stick";
	r->o.console = "test";
	*state = r;
	return 0;
}

static int teardown(void **state)
{
	struct rig *r = *state;
	char cmd[128];

	for (int i = 0; i < r->ncards; i++)
		cxsim_free(r->cards[i]);
	free(r->out);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", r->root);
	if (system(cmd))
		return -1;
	free(r);
	return 0;
}

/* A ConnectX-3 in the next slot, holding what mkfs2 makes from opts with this
 * GUID and MAC (opts NULL: an erased flash, so the card is in recovery mode). */
static struct cxsim_card *add_card(struct rig *r, const char *opts, uint16_t sv, uint16_t sd, uint64_t guid,
				   uint64_t mac)
{
	struct cxsim_params p;
	char o[400];

	assert_true(r->ncards < MAX_CARDS);
	cxsim_params_default(&p, CXSIM_CX3);
	snprintf(p.flash_part, sizeof(p.flash_part), FLASH_PART);
	p.subsys_vendor = sv;
	p.subsys_device = sd;
	struct cxsim_card *c = cxsim_new(&p);
	assert_non_null(c);
	if (opts) {
		snprintf(o, sizeof(o), "%s --guid %016llx --mac %012llx", opts, (unsigned long long)guid,
			 (unsigned long long)mac);
		card_install(c, o, 0);
	}
	r->cards[r->ncards++] = c;
	return c;
}

static struct cxsim_card *hp_card(struct rig *r)
{
	return add_card(r, HP_OPTS, HP_SUBSYS_VENDOR, HP_SUBSYS_DEVICE, G_A, M_A);
}

/* An image in the library folder; its path into path (may be NULL). */
static void add_image(struct rig *r, const char *name, const char *opts, char *path, size_t n)
{
	char cmd[1024], p[256];

	snprintf(p, sizeof(p), "%s/%s", r->fw, name);
	snprintf(cmd, sizeof(cmd), "%s/host/mkfs2 -o %s %s >/dev/null", build_dir(), p, opts);
	assert_int_equal(system(cmd), 0);
	if (path)
		snprintf(path, n, "%s", p);
}

static uint8_t *flash_copy(struct cxsim_card *c, size_t *n)
{
	uint8_t *f = cxsim_flash(c, n), *copy = malloc(*n);

	assert_non_null(copy);
	memcpy(copy, f, *n);
	return copy;
}

/* The card wiped: it boots into recovery mode. */
static void brick(struct cxsim_card *c)
{
	size_t n;
	uint8_t *f = cxsim_flash(c, &n);

	memset(f, 0xFF, n);
	cxsim_flash_changed(c);
	cxsim_power_cycle(c);
	assert_false(cxsim_boot_info(c)->booted);
}

/* ---- the bus the wizard sees ------------------------------------------------------ */

static int card_of(const struct rig *r, const char *bdf)
{
	unsigned bus;
	int end = -1;

	if (sscanf(bdf, "0000:%2x:00.0%n", &bus, &end) != 1 || end != (int)strlen(bdf) || bus < 1 ||
	    (int)bus > r->ncards)
		return -1;
	return (int)bus - 1;
}

static int bus_list(void *ctx, struct pci_card *out, int max, int *n, struct cx_status *st)
{
	struct rig *r = ctx;

	*n = 0;
	for (int i = 0; i < r->ncards && *n < max; i++) {
		struct pci_card *p = &out[(*n)++];
		const struct cxsim_params *pp = cxsim_get_params(r->cards[i]);
		memset(p, 0, sizeof(*p));
		snprintf(p->bdf, sizeof(p->bdf), "0000:%02x:00.0", i + 1);
		p->device = cxsim_pci_device_now(r->cards[i]);
		p->subsys_vendor = pp->subsys_vendor;
		p->subsys_device = pp->subsys_device;
		p->class_code = cxsim_class_now(r->cards[i]);
		if (!pci_id_known(p->device, &p->kind, &p->family))
			return cx_fail(st, CX_EABSENT, "card %d shows unknown device %04x", i, p->device);
	}
	return CX_OK;
}

static int bus_open(void *ctx, const struct pci_card *pci, struct device *d, struct cx_status *st)
{
	struct rig *r = ctx;
	struct cfg_dev cfg;
	int i = card_of(r, pci->bdf);

	if (i < 0)
		return cx_fail(st, CX_EABSENT, "no card at %s", pci->bdf);
	sim_cfg_attach(&cfg, r->cards[i], pci->bdf);
	/* As device_open() does: the wizard's traces (write_trace.c) record these cards too. */
	struct crmem mem = {0};
	int rc = device_trace_wrap(pci, &cfg, &mem, st);
	if (rc)
		return rc;
	return device_attach(d, cfg, pci, false, st);
}

/* The data folder's traces/ holds one trace, of the card at bdf, complete, with its accesses. */
static void expect_one_trace(struct rig *r, const char *action, const char *bdf)
{
	char dir[600], path[900], want[64];
	struct dirent *e;
	int n = 0;

	snprintf(dir, sizeof(dir), "%s/traces", r->data);
	snprintf(want, sizeof(want), "-%s-%s.trace", action, bdf);
	for (char *p = want; *p; p++)
		if (*p == ':')
			*p = '-';
	DIR *d = opendir(dir);
	assert_non_null(d);
	while ((e = readdir(d)))
		if (e->d_name[0] != '.') {
			n++;
			assert_non_null(strstr(e->d_name, want));
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		}
	closedir(d);
	assert_int_equal(n, 1);
	struct trace_reader *t;
	struct cx_status st = {0};
	struct tr_rec x;
	unsigned accesses = 0;
	assert_int_equal(trace_reader_open(&t, path, &st), CX_OK);
	assert_string_equal(trace_header(t, "bdf"), bdf);
	while (trace_reader_next(t, &x, &st) == 1)
		accesses += tr_is_access(x.kind);
	assert_true(trace_reader_complete(t));
	assert_true(accesses > 1000);   /* the backup and the burn */
	trace_reader_close(t);
}

/* ---- a session ---------------------------------------------------------------------- */

/* One wizard session with these answers (lines); the screen goes into r->out. */
static int run(struct rig *r, const char *answers)
{
	struct wizard_bus bus = {.list = bus_list, .open = bus_open, .ctx = r};
	size_t len = strlen(answers);
	char *copy = strdup(answers);

	assert_non_null(copy);
	free(r->out);
	r->out = NULL;
	struct prompt p = {0};
	p.in = len ? fmemopen(copy, len, "r") : fopen("/dev/null", "r");
	assert_non_null(p.in);
	p.out = open_memstream(&r->out, &r->outlen);
	assert_non_null(p.out);
	int rc = wizard_run(&p, &bus, &r->o);
	fclose(p.in);
	fclose(p.out);
	free(copy);
	if (getenv("WIZARD_SHOW"))
		fprintf(stderr, "---- wizard (rc %d) ----\n%s---- end ----\n", rc, r->out);
	return rc;
}

static void dump(const struct rig *r)
{
	fprintf(stderr, "---- the wizard's screen ----\n%s---- end ----\n", r->out ? r->out : "(none)");
}

static void expect_said(const struct rig *r, const char *needle)
{
	if (!r->out || !strstr(r->out, needle)) {
		dump(r);
		fail_msg("the wizard did not say \"%s\"", needle);
	}
}

static void expect_not_said(const struct rig *r, const char *needle)
{
	if (r->out && strstr(r->out, needle)) {
		dump(r);
		fail_msg("the wizard said \"%s\"", needle);
	}
}

static void expect_rc(const struct rig *r, int got, int want)
{
	if (got != want) {
		dump(r);
		fail_msg("wizard_run returned %d, expected %d", got, want);
	}
}

/* ---- what the wizard left --------------------------------------------------------- */

static char *slurp(const char *path)
{
	struct cx_status st = {0};
	uint8_t *buf;
	size_t len;

	if (file_read(path, 1u << 24, &buf, &len, &st))
		return NULL;
	char *s = realloc(buf, len + 1);
	assert_non_null(s);
	s[len] = '\0';
	return s;
}

/* history.jsonl lines holding every one of the (up to three) needles. */
static int history_lines(const struct rig *r, const char *a, const char *b, const char *c)
{
	char path[256];
	int n = 0;

	snprintf(path, sizeof(path), "%s/history.jsonl", r->data);
	char *text = slurp(path);
	if (!text)
		return 0;
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
		n += strstr(line, a) && (!b || strstr(line, b)) && (!c || strstr(line, c));
	free(text);
	return n;
}

static void expect_history(const struct rig *r, int want, const char *a, const char *b, const char *c)
{
	int got = history_lines(r, a, b, c);

	if (got != want) {
		char path[256];
		snprintf(path, sizeof(path), "%s/history.jsonl", r->data);
		char *text = slurp(path);
		fprintf(stderr, "---- history.jsonl ----\n%s---- end ----\n", text ? text : "(none)");
		free(text);
		fail_msg("%d history lines with %s %s %s, expected %d", got, a, b ? b : "", c ? c : "", want);
	}
}

/* Bundles in data/backups, and how many have a flash.bin equal to flash. */
static int bundles(const struct rig *r, const uint8_t *flash, size_t n, int *equal)
{
	char dir[256], path[600];
	struct dirent *de;
	DIR *d;
	int count = 0;

	*equal = 0;
	snprintf(dir, sizeof(dir), "%s/backups", r->data);
	if (!(d = opendir(dir)))
		return 0;
	while ((de = readdir(d))) {
		struct cx_status st = {0};
		uint8_t *buf;
		size_t len;
		if (de->d_name[0] == '.')
			continue;
		count++;
		snprintf(path, sizeof(path), "%s/%s/flash.bin", dir, de->d_name);
		if (flash && file_read(path, 64u << 20, &buf, &len, &st) == CX_OK) {
			*equal += len == n && !memcmp(buf, flash, n);
			free(buf);
		}
	}
	closedir(d);
	return count;
}

static int count_files(const char *dir)
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

static void expect_untouched(struct cxsim_card *c, const uint8_t *before, size_t n)
{
	size_t m;

	assert_int_equal(cxsim_counters(c)->erases, 0);
	assert_int_equal(cxsim_counters(c)->bytes_erased, 0);
	assert_int_equal(cxsim_counters(c)->bytes_programmed, 0);
	assert_memory_equal(cxsim_flash(c, &m), before, n);
}

/* What the card boots after a cold restart. */
static const struct cxsim_boot *cold_boot(struct cxsim_card *c)
{
	cxsim_power_cycle(c);
	const struct cxsim_boot *b = cxsim_boot_info(c);
	if (!b->booted)
		fail_msg("the card does not boot: %s", b->why);
	return b;
}

static void expect_boots(struct cxsim_card *c, const char *psid, int minor, int sub, uint64_t guid, uint64_t mac)
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

static char *report_text(const struct rig *r)
{
	char dir[256], path[600] = "";
	struct dirent *de;
	DIR *d;
	int n = 0;

	snprintf(dir, sizeof(dir), "%s/reports", r->data);
	assert_non_null(d = opendir(dir));
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		if (de->d_name[0] == '.' || len < 5 || strcmp(de->d_name + len - 5, ".json"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		n++;
	}
	closedir(d);
	assert_int_equal(n, 1);
	char *text = slurp(path);
	assert_non_null(text);
	if (getenv("WIZARD_SHOW"))
		fprintf(stderr, "---- report ----\n%s", text);
	return text;
}

/* The "result" of the report's card at bdf. */
static void expect_card_result(const char *report, const char *bdf, const char *result)
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

/* ---- 1. back up, then cross-flash an HP card to the stock image --------------------- */

static void test_backup_then_crossflash(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_card(r);
	size_t n;
	int equal;

	add_image(r, "stock.bin", STOCK_IMAGE, NULL, 0);
	uint8_t *orig = flash_copy(c, &n);

	/* 1 back up all, 2 update, the word, Enter: keep the settings, Enter: power off now. */
	int rc = run(r, "1\n2\nFLASH\n\n\n");
	expect_rc(r, rc, CX_OK);
	expect_said(r, "OEM HP");
	expect_said(r, "PSID " HP_PSID "  FW 2.40.5030");
	expect_said(r, "backup on the stick: NONE YET");
	expect_said(r, "library: OK stock.bin");
	expect_said(r, "card 0000:01:00.0: backed up");
	expect_said(r, "== crossflash: card 0000:01:00.0");
	expect_said(r, "the card keeps its own GUIDs and MACs (node GUID 0002c90300c0ffe0)");
	expect_said(r, "OK: FW 2.40.5030 -> 2.42.5000, PSID " HP_PSID " -> " STOCK_PSID);
	expect_said(r, "Power off for a cold restart");
	expect_said(r, "Powering off.");
	expect_said(r, ": not written again");
	expect_not_said(r, "FAILED");

	struct pending *v;
	struct cx_status st = {0};
	int np;

	/* Started again before the cold restart: the card still runs the old FW, and is told so. */
	rc = run(r, "");
	expect_rc(r, rc, CX_EDECLINED);
	expect_said(r, "(running 2.40.5030 until a cold restart)");
	expect_said(r, "WARNING: card 0000:01:00.0 runs FW 2.40.5030, but FW 2.42.5000 was written (crossflash)");
	expect_history(r, 0, "\"action\":\"boot-check\"", "\"result\":\"ok\"", NULL);
	assert_int_equal(pending_list(r->data, &v, &np, &st), CX_OK);
	assert_int_equal(np, 1); /* kept for the next boot */
	free(v);

	/* The card: the stock firmware with its own identity, after a cold restart. */
	expect_boots(c, STOCK_PSID, 42, 5000, G_A, M_A);

	/* One bundle: the menu's backup, which the write then found equal to the card's flash and
	 * took as its own backup (not written again). */
	assert_int_equal(bundles(r, orig, n, &equal), 1);
	assert_int_equal(equal, 1);

	expect_history(r, 1, "\"action\":\"backup\"", "\"result\":\"ok\"", "\"node_guid\":\"0002c90300c0ffe0\"");
	expect_history(r, 1, "\"action\":\"crossflash\"", "\"result\":\"ok\"", "\"psid\":\"" STOCK_PSID "\"");
	expect_history(r, 1, "\"action\":\"crossflash\"", "\"from\":{\"psid\":\"" HP_PSID "\",\"fw\":\"2.40.5030\"}",
		       NULL);

	assert_int_equal(pending_list(r->data, &v, &np, &st), CX_OK);
	assert_int_equal(np, 1);
	assert_string_equal(v[0].state, "written");
	assert_string_equal(v[0].action, "crossflash");
	assert_string_equal(v[0].guid, "0002c90300c0ffe0");
	assert_string_equal(v[0].to_fw, "2.42.5000");
	assert_string_equal(v[0].to_psid, STOCK_PSID);
	free(v);

	/* The next boot: the wizard sees the card run what was written, and settles the record
	 * (checked in this boot: another console's wizard may still tell its user; pending.h). */
	rc = run(r, "");
	expect_rc(r, rc, CX_EDECLINED);
	expect_said(r, "after the cold restart card 0000:01:00.0 runs FW 2.42.5000, as written");
	expect_said(r, "backup on the stick: yes");
	expect_history(r, 1, "\"action\":\"boot-check\"", "\"result\":\"ok\"", NULL);
	assert_int_equal(pending_list(r->data, &v, &np, &st), CX_OK);
	assert_int_equal(np, 1);
	assert_string_equal(v[0].state, "checked");
	free(v);
	/* Told again in the same boot, written down once. */
	rc = run(r, "");
	expect_rc(r, rc, CX_EDECLINED);
	expect_said(r, "after the cold restart card 0000:01:00.0 runs FW 2.42.5000, as written");
	expect_history(r, 1, "\"action\":\"boot-check\"", "\"result\":\"ok\"", NULL);
	free(orig);
}

/* ---- 2. a wrong confirmation word ----------------------------------------------------- */

static void test_wrong_word_writes_nothing(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_card(r);
	size_t n;
	int equal;

	add_image(r, "stock.bin", STOCK_IMAGE, NULL, 0);
	uint8_t *orig = flash_copy(c, &n);
	cxsim_counters_reset(c);

	int rc = run(r, "2\nflash\n");
	expect_rc(r, rc, CX_EDECLINED);
	expect_said(r, "== crossflash: card 0000:01:00.0");
	expect_said(r, "cancelled: nothing written");
	expect_not_said(r, "Power off for a cold restart");
	expect_untouched(c, orig, n);
	assert_int_equal(bundles(r, orig, n, &equal), 0); /* the backup comes after the word */
	expect_history(r, 1, "\"action\":\"crossflash\"", "\"result\":\"declined\"", NULL);
	expect_history(r, 0, "\"result\":\"ok\"", NULL, NULL);
	assert_int_equal(count_files(r->data), 2); /* logs/ and history.jsonl: no pending/ */
	free(orig);
}

/* ---- 2b. the probe before the first write -------------------------------------------- */

/* Where needle first appears on the screen (the test fails without it). */
static size_t said_at(const struct rig *r, const char *needle)
{
	const char *at = r->out ? strstr(r->out, needle) : NULL;

	if (!at) {
		dump(r);
		fail_msg("the wizard did not say \"%s\"", needle);
	}
	return (size_t)(at - r->out);
}

/* A write-protected flash: the probe's finding is on the screen before the typed word,
 * and the user, warned, declines: nothing is written. A lockdown file shows on the first
 * screen. */
static void test_probe_finding_before_the_word(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_card(r);
	char lock[200];
	size_t n;

	add_image(r, "stock.bin", STOCK_IMAGE, NULL, 0);
	cxsim_params_mut(c)->write_protect = true;
	cxsim_power_cycle(c);
	snprintf(lock, sizeof(lock), "%s/lockdown", r->root);
	write_text(lock, "none [integrity] confidentiality\n");
	setenv("CXFLASH_LOCKDOWN_FILE", lock, 1);
	uint8_t *orig = flash_copy(c, &n);
	cxsim_counters_reset(c);

	int rc = run(r, "2\nno\n");
	unsetenv("CXFLASH_LOCKDOWN_FILE");
	expect_rc(r, rc, CX_EDECLINED);
	size_t lockdown = said_at(r, "WARNING: the kernel is locked down: Secure Boot's lockdown (integrity) forbids");
	assert_true(lockdown < said_at(r, "== Mellanox ConnectX cards in this machine ==") + 60);
	size_t checked = said_at(r, "Before writing, card 0000:01:00.0 was checked (read-only); it found:");
	size_t finding = said_at(r, "  PROBLEM protection: status register 0x");
	size_t verdict = said_at(r, "The card is NOT safe to write (2 problems above)");
	size_t word = said_at(r, "Type " "FLASH" " to write the card");
	assert_true(said_at(r, "== crossflash: card 0000:01:00.0") < checked);
	assert_true(checked < finding && finding < verdict && verdict < word);
	said_at(r, "  PROBLEM lockdown: Secure Boot's lockdown (integrity)");
	expect_said(r, "cancelled: nothing written");
	expect_untouched(c, orig, n);
	expect_history(r, 1, "\"action\":\"crossflash\"", "\"result\":\"declined\"", NULL);
	free(orig);
}

/* A healthy card: the probe finds nothing to say, and the session goes on as before. */
static void test_probe_quiet_on_a_healthy_card(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_card(r);
	size_t n;

	add_image(r, "stock.bin", STOCK_IMAGE, NULL, 0);
	uint8_t *orig = flash_copy(c, &n);
	cxsim_counters_reset(c);
	int rc = run(r, "2\nno\n");
	expect_rc(r, rc, CX_EDECLINED);
	said_at(r, "Type " "FLASH" " to write the card");
	expect_not_said(r, "Before writing, card");
	expect_not_said(r, "locked down");
	expect_untouched(c, orig, n);
	free(orig);
}

/* ---- 3. a ConnectX-3 Pro image is refused for a ConnectX-3 ------------------------------ */

static void test_burn_file_lists_refused(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_card(r);
	size_t n;

	add_image(r, "stock.bin", STOCK_IMAGE, NULL, 0);
	add_image(r, "pro.bin", PRO_IMAGE, NULL, 0);
	uint8_t *orig = flash_copy(c, &n);
	cxsim_counters_reset(c);

	/* 3 burn a file; the menu offers stock.bin and "back"; 2 goes back; then the input ends. */
	int rc = run(r, "3\n2\n");
	expect_rc(r, rc, CX_EDECLINED);
	expect_said(r, "  - REFUSED pro.bin: ");
	expect_said(r, "  - OK      stock.bin: ");
	const char *menu = strstr(r->out, "Burn which file?");
	if (!menu) {
		dump(r);
		fail_msg("no file menu");
	}
	assert_non_null(strstr(menu, "  1. "));
	assert_non_null(strstr(menu, "stock.bin (OK)"));
	assert_non_null(strstr(menu, "  2. back to the menu"));
	assert_null(strstr(menu, "pro.bin"));
	expect_said(r, "back to the menu");
	expect_untouched(c, orig, n);
	free(orig);

	/* With only the Pro image in the library there is nothing to offer at all. */
	char path[256];
	snprintf(path, sizeof(path), "%s/stock.bin", r->fw);
	assert_int_equal(unlink(path), 0);
	rc = run(r, "3\n");
	expect_rc(r, rc, CX_EDECLINED);
	expect_said(r, "  - REFUSED pro.bin: ");
	expect_said(r, "no image in the library may go onto card 0000:01:00.0");
	expect_not_said(r, "Burn which file?");
	assert_int_equal(cxsim_counters(c)->erases, 0);
	assert_int_equal(cxsim_counters(c)->bytes_programmed, 0);
}

/* ---- 4. unbrick a card in recovery mode from its backup ------------------------------ */

/* A bundle of card 1 in the wizard's backups folder, made some earlier day. */
static void backup_outside(struct rig *r, struct cxsim_card *c, struct backup_result *b)
{
	struct cx_status st = {0};
	struct device d;
	char backups[256];

	snprintf(backups, sizeof(backups), "%s/backups", r->data);
	const struct cxsim_params *pp = cxsim_get_params(c);
	struct pci_card pci = {.bdf = "0000:01:00.0", .device = cxsim_pci_device_now(c),
			       .subsys_vendor = pp->subsys_vendor, .subsys_device = pp->subsys_device};
	assert_true(pci_id_known(pci.device, &pci.kind, &pci.family));
	assert_int_equal(bus_open(r, &pci, &d, &st), CX_OK);
	assert_int_equal(backup_card(&d, backups, b, &st), CX_OK);
	device_close(&d);
}

static void test_unbrick_from_backup(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_card(r);
	struct backup_result b;
	size_t n;
	int equal;

	add_image(r, "stock.bin", STOCK_IMAGE, NULL, 0);
	uint8_t *orig = flash_copy(c, &n);
	backup_outside(r, c, &b);
	brick(c);
	assert_int_equal(cxsim_pci_device_now(c), 0x1f6);

	/* 5 unbrick, 1 restore a backup, 1 the bundle, the word, Enter: power off now. */
	int rc = run(r, "5\n1\n1\nFLASH\n\n");
	expect_rc(r, rc, CX_OK);
	expect_said(r, "RECOVERY MODE (flash recovery)");
	expect_said(r, b.name);
	expect_said(r, "== unbrick: card 0000:01:00.0");
	expect_said(r, "OK: the backup is on the flash, read back and verified");
	expect_said(r, "REMOVE IT now");
	expect_not_said(r, "FAILED");

	size_t m;
	const uint8_t *now = cxsim_flash(c, &m);
	assert_int_equal(m, n);
	assert_memory_equal(now, orig, n);
	expect_boots(c, HP_PSID, 40, 5030, G_A, M_A);
	assert_int_equal(cxsim_pci_device_now(c), 0x1003);

	/* The old bundle, and the one of the wiped flash made before the restore. */
	assert_int_equal(bundles(r, orig, n, &equal), 2);
	assert_int_equal(equal, 1);
	expect_history(r, 1, "\"action\":\"unbrick\"", "\"result\":\"ok\"", b.name);
	free(orig);
}

/* The other way with a backup: a library image, judged against what the bundle says the
 * card was (the HP board, so the stock image is its cross-flash), with the bundle's GUIDs/MACs. */
static void test_unbrick_image_with_bundle_identity(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_card(r);
	struct backup_result b;

	add_image(r, "stock.bin", STOCK_IMAGE, NULL, 0);
	add_image(r, "pro.bin", PRO_IMAGE, NULL, 0);
	backup_outside(r, c, &b);
	brick(c);

	/* 5 unbrick, 2 image + backup's identity, 1 the bundle, 1 the image, the word, Enter. */
	int rc = run(r, "5\n2\n1\n1\nFLASH\n\n");
	expect_rc(r, rc, CX_OK);
	expect_said(r, "Burn which image?");
	expect_said(r, "  1. stock.bin (OK): " HP_PSID " 2.40.5030 -> " STOCK_PSID " 2.42.5000: cross-flash");
	expect_not_said(r, "pro.bin (");
	expect_said(r, "identity: node GUID 0002c90300c0ffe0");
	expect_said(r, "MACs 0002c9c0ffe0 0002c9c0ffe1");
	expect_said(r, "Power off for a cold restart");
	expect_not_said(r, "FAILED");
	expect_boots(c, STOCK_PSID, 42, 5000, G_A, M_A);
	expect_history(r, 1, "\"action\":\"unbrick\"", "\"result\":\"ok\"", "\"psid\":\"" STOCK_PSID "\"");
}

/* ---- 4b. unbrick keeping the GUIDs a damaged flash still holds ------------------------- */

/* BOOT2's code changed, so its CRC fails (fs2-format.md §1.3): the card comes up in recovery
 * mode, but the GUID section after it is whole. */
#define BOOT2_CODE_BYTE (0x38 + 0x20) /* a byte inside the first BOOT2 (fs2-format.md §1.2, §1.3) */

static void test_unbrick_keeps_the_damaged_flash_guids(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_card(r);
	size_t n;

	add_image(r, "stock.bin", STOCK_IMAGE, NULL, 0);
	cxsim_flash(c, &n)[BOOT2_CODE_BYTE] ^= 0xFF;
	cxsim_flash_changed(c);
	cxsim_power_cycle(c);
	assert_false(cxsim_boot_info(c)->booted);

	/* 5 unbrick, 1 keep the GUIDs the flash holds (offered first), 1 the image, the word, Enter. */
	int rc = run(r, "5\n1\n1\nFLASH\n\n");
	expect_rc(r, rc, CX_OK);
	expect_said(r, "Its flash still holds the GUID section of an image whose CRC is good: node GUID\n"
		       "0002c90300c0ffe0");
	expect_said(r, "  1. Burn a library image, keeping the GUIDs/MACs its flash still holds (node GUID "
		       "0002c90300c0ffe0)");
	expect_said(r, "identity: kept from the card's damaged flash (its GUID section's CRC is good): node GUID "
		       "0002c90300c0ffe0");
	expect_said(r, "its GUIDs and MACs were kept from its damaged flash");
	expect_not_said(r, "sticker shows");
	expect_boots(c, STOCK_PSID, 42, 5000, G_A, M_A);
	expect_history(r, 1, "\"action\":\"unbrick\"", "\"result\":\"ok\"", "\"psid\":\"" STOCK_PSID "\"");
}

/* An erased flash holds no GUIDs: the menu is the usual one, and says they cannot be read. */
static void test_unbrick_erased_flash_offers_no_kept_guids(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_card(r);

	add_image(r, "stock.bin", STOCK_IMAGE, NULL, 0);
	brick(c);
	int rc = run(r, "5\n4\n");
	expect_rc(r, rc, CX_EDECLINED);
	expect_said(r, "Its GUIDs and MACs cannot be read from it.");
	expect_not_said(r, "keeping the GUIDs/MACs its flash still holds");
}

/* ---- 5. unbrick from the sticker ------------------------------------------------------ */

static void test_unbrick_from_sticker(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_card(r);

	add_image(r, "stock.bin", STOCK_IMAGE, NULL, 0);
	brick(c);

	int rc = run(r, "5\n3\n1\n" STICKER_G_TYPED "\n" STICKER_G_TYPED "\n" STICKER_M_TYPED "\n" STICKER_M_TYPED
		     "\nFLASH\n\n");
	expect_rc(r, rc, CX_OK);
	expect_said(r, "Burn which image?");
	expect_said(r, "You typed 0002c90300123450.");
	expect_said(r, "You typed 0002c9123450.");
	expect_said(r, "identity: node GUID 0002c90300123450, port GUIDs 0002c90300123451 0002c90300123452, "
		       "MACs 0002c9123450 0002c9123451");
	/* What the card was: recovery mode, with no version (not "FW 0.0.0000" or "(none)"). */
	expect_said(r, "OK: recovery mode, no readable image -> FW 2.42.5000, PSID " STOCK_PSID ", written");
	expect_not_said(r, "(none)");
	expect_said(r, "Power off for a cold restart");
	expect_not_said(r, "FAILED");
	expect_boots(c, STOCK_PSID, 42, 5000, STICKER_G, STICKER_M);
	expect_history(r, 1, "\"action\":\"unbrick\"", "\"result\":\"ok\"", "\"psid\":\"" STOCK_PSID "\"");

	struct pending *v;
	struct cx_status st = {0};
	int np;
	assert_int_equal(pending_list(r->data, &v, &np, &st), CX_OK);
	assert_int_equal(np, 1);
	assert_string_equal(v[0].state, "written");
	assert_string_equal(v[0].identity, "sticker:0002c90300123450,0002c9123450");
	free(v);
}

/* ---- 6. unattended jobs ------------------------------------------------------------- */

/* Two cards: the HP one (card 1) and a stock one with older FW (card 2); the real table. */
static void two_cards(struct rig *r, uint8_t **hp_flash, size_t *n)
{
	struct cxsim_card *hp = hp_card(r);
	add_card(r, OLD_STOCK_OPTS, 0x15b3, 0x0022, G_B, M_B);
	add_image(r, "stock.bin", STOCK_IMAGE, NULL, 0);
	r->o.boards = REAL_TABLE;
	r->o.yes = true;
	*hp_flash = flash_copy(hp, n);
	for (int i = 0; i < r->ncards; i++)
		cxsim_counters_reset(r->cards[i]);
}

static void test_job_risky_refused(void **state)
{
	struct rig *r = *state;
	uint8_t *hp;
	size_t n;

	two_cards(r, &hp, &n);
	r->o.job = JOB_CROSSFLASH;
	int rc = run(r, "");
	expect_rc(r, rc, CX_EDECLINED); /* the wizard stayed up; then the input ended */
	expect_said(r, "library: RISKY stock.bin");
	expect_said(r, "card 0000:01:00.0: refused: stock.bin is RISKY for this card");
	expect_said(r, "card 0000:02:00.0: ok: stock.bin written and verified");
	expect_said(r, "The job did not complete");
	expect_not_said(r, "Powering off.");
	expect_untouched(r->cards[0], hp, n);
	expect_boots(r->cards[1], STOCK_PSID, 42, 5000, G_B, M_B);
	char *rep = report_text(r);
	assert_non_null(strstr(rep, "\"job\":\"crossflash\""));
	assert_non_null(strstr(rep, "\"allow_risky\":false"));
	expect_card_result(rep, "0000:01:00.0", "refused");
	expect_card_result(rep, "0000:02:00.0", "ok");
	/* The card as it was before the job. */
	assert_non_null(strstr(rep, "\"fw\":\"2.40.5030\""));
	free(rep);
	expect_history(r, 1, "\"action\":\"update\"", "\"result\":\"ok\"", "\"bdf\":\"0000:02:00.0\"");
	expect_history(r, 0, "\"bdf\":\"0000:01:00.0\"", NULL, NULL);
	free(hp);
}

static void test_job_risky_allowed(void **state)
{
	struct rig *r = *state;
	uint8_t *hp;
	size_t n;
	int equal;

	two_cards(r, &hp, &n);
	r->o.job = JOB_CROSSFLASH;
	r->o.allow_risky = true;
	int rc = run(r, "");
	expect_rc(r, rc, CX_OK);
	expect_said(r, "card 0000:01:00.0: ok: stock.bin written and verified");
	expect_said(r, "card 0000:02:00.0: ok: stock.bin written and verified");
	expect_said(r, "The job is done: powering off.");
	expect_not_said(r, "Port type and SR-IOV"); /* a job asks nothing (settings= is the job's) */
	assert_int_equal(cxsim_counters(r->cards[0])->nv_write_cmds, 0);
	expect_boots(r->cards[0], STOCK_PSID, 42, 5000, G_A, M_A);
	expect_boots(r->cards[1], STOCK_PSID, 42, 5000, G_B, M_B);
	char *rep = report_text(r);
	assert_non_null(strstr(rep, "\"result\":\"ok\",\"log\""));
	expect_card_result(rep, "0000:01:00.0", "ok");
	expect_card_result(rep, "0000:02:00.0", "ok");
	free(rep);
	assert_int_equal(bundles(r, hp, n, &equal), 2); /* one per card, before writing */
	assert_int_equal(equal, 1);
	expect_history(r, 1, "\"action\":\"crossflash\"", "\"result\":\"ok\"", "\"bdf\":\"0000:01:00.0\"");
	free(hp);
}

static void test_job_update(void **state)
{
	struct rig *r = *state;
	uint8_t *hp;
	size_t n;

	two_cards(r, &hp, &n);
	r->o.job = JOB_UPDATE;
	int rc = run(r, "");
	expect_rc(r, rc, CX_OK);
	expect_said(r, "card 0000:01:00.0: nothing-to-do: no image of the card's own PSID");
	expect_said(r, "card 0000:02:00.0: ok: stock.bin written and verified");
	expect_untouched(r->cards[0], hp, n);
	expect_boots(r->cards[1], STOCK_PSID, 42, 5000, G_B, M_B);
	expect_one_trace(r, "update", "0000:02:00.0");
	char *rep = report_text(r);
	expect_card_result(rep, "0000:01:00.0", "nothing-to-do");
	expect_card_result(rep, "0000:02:00.0", "ok");
	free(rep);
	free(hp);
}

/* A writing job without yes=1 writes nothing. */
static void test_job_needs_yes(void **state)
{
	struct rig *r = *state;
	uint8_t *hp;
	size_t n, m;

	two_cards(r, &hp, &n);
	uint8_t *stock = flash_copy(r->cards[1], &m);
	r->o.job = JOB_UPDATE;
	r->o.yes = false;
	int rc = run(r, "");
	expect_rc(r, rc, CX_EDECLINED);
	expect_said(r, "it needs cxrescue.yes=1");
	expect_untouched(r->cards[0], hp, n);
	expect_untouched(r->cards[1], stock, m);
	free(stock);
	free(hp);
}

/* A card in recovery mode is never written by a job: unbricking is the menu's. */
static void test_job_refuses_recovery_card(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_card(r);
	size_t n;

	add_image(r, "stock.bin", STOCK_IMAGE, NULL, 0);
	brick(c);
	uint8_t *wiped = flash_copy(c, &n);
	cxsim_counters_reset(c);
	r->o.job = JOB_CROSSFLASH;
	r->o.yes = true;
	r->o.allow_risky = true;
	int rc = run(r, "");
	expect_rc(r, rc, CX_EDECLINED);
	expect_said(r, "card 0000:01:00.0: refused: the card is in recovery mode");
	expect_untouched(c, wiped, n);
	char *rep = report_text(r);
	expect_card_result(rep, "0000:01:00.0", "refused");
	assert_non_null(strstr(rep, "\"recovery\":true"));
	free(rep);
	free(wiped);
}

/* The next-boot value of the setting name in the card's store, or -1 when it holds none. */
static long nv_value(const struct cxsim_card *c, const char *name)
{
	struct cxsim_setting v[64];
	size_t n = cxsim_nv_settings(c, v, 64);

	for (size_t k = 0; k < n && k < 64; k++)
		if (!strcmp(v[k].name, name))
			return (long)v[k].value;
	return -1;
}

/* A crossflash with settings=: the write, then exactly the two port-type records; the report
 * has each setting before and after, as mstconfig prints them. */
static void test_job_settings_after_crossflash(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_card(r);

	add_image(r, "stock.bin", STOCK_IMAGE, NULL, 0);
	cxsim_counters_reset(c);
	r->o.job = JOB_CROSSFLASH;
	r->o.yes = true;
	r->o.settings = "LINK_TYPE_P1=ETH,LINK_TYPE_P2=eth";
	int rc = run(r, "");
	expect_rc(r, rc, CX_OK);
	expect_said(r, "card 0000:01:00.0: ok: stock.bin written and verified; settings set for the next cold boot");
	assert_int_equal(cxsim_counters(c)->nv_write_cmds, 2);   /* one record per port, nothing else */
	assert_int_equal(cxsim_counters(c)->nv_writes, 2);
	assert_int_equal(nv_value(c, "LINK_TYPE_P1"), 2);
	assert_int_equal(nv_value(c, "LINK_TYPE_P2"), 2);
	expect_boots(c, STOCK_PSID, 42, 5000, G_A, M_A);
	assert_int_equal(nv_value(c, "LINK_TYPE_P1"), 2);          /* kept with the card */
	char *rep = report_text(r);
	assert_non_null(strstr(rep, "\"settings\":\"LINK_TYPE_P1=ETH,LINK_TYPE_P2=eth\""));
	assert_non_null(strstr(rep, "\"settings\":[{\"name\":\"LINK_TYPE_P1\",\"before\":\"VPI(3)\",\"after\":"
				    "\"ETH(2)\"},{\"name\":\"LINK_TYPE_P2\",\"before\":\"VPI(3)\",\"after\":\"ETH(2)\"}]"));
	expect_card_result(rep, "0000:01:00.0", "ok");
	free(rep);
	expect_history(r, 1, "\"action\":\"settings\"", "\"result\":\"ok\"",
		       "LINK_TYPE_P1 VPI(3) -> ETH(2), LINK_TYPE_P2 VPI(3) -> ETH(2)");
}

/* A bad settings= refuses the whole job before anything is written: flash and settings. */
static void settings_refused(struct rig *r, const char *settings, const char *why)
{
	uint8_t *hp, *other;
	size_t n, m;

	two_cards(r, &hp, &n);
	other = flash_copy(r->cards[1], &m);
	r->o.job = JOB_CROSSFLASH;
	r->o.allow_risky = true;
	r->o.settings = settings;
	int rc = run(r, "");
	expect_rc(r, rc, CX_EDECLINED);              /* the wizard stayed up; then the input ended */
	expect_said(r, why);
	expect_said(r, "card 0000:02:00.0: refused: settings=: ");
	expect_untouched(r->cards[0], hp, n);
	expect_untouched(r->cards[1], other, m);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(cxsim_counters(r->cards[i])->nv_write_cmds, 0);
		assert_int_equal(cxsim_nv_count(r->cards[i]), 0);
	}
	assert_int_equal(bundles(r, NULL, 0, &rc), 0);  /* not even a backup */
	char *rep = report_text(r);
	expect_card_result(rep, "0000:01:00.0", "refused");
	expect_card_result(rep, "0000:02:00.0", "refused");
	assert_non_null(strstr(rep, why));
	free(rep);
	free(other);
	free(hp);
}

static void test_job_settings_unknown_name(void **state)
{
	settings_refused(*state, "LINK_TYPE_P1=ETH,LINK_SPEED=40G", "unknown setting LINK_SPEED");
}

static void test_job_settings_bad_value(void **state)
{
	settings_refused(*state, "LINK_TYPE_P1=ETHERNET", "LINK_TYPE_P1=ETHERNET: not a value of LINK_TYPE_P1");
}

/* A port the second card lacks: its own check refuses the job, the first card is not written. */
static void test_job_settings_port_a_card_lacks(void **state)
{
	struct rig *r = *state;
	uint8_t *hp, *other;
	size_t n, m;

	two_cards(r, &hp, &n);
	cxsim_params_mut(r->cards[1])->tools.ports = 1;
	other = flash_copy(r->cards[1], &m);
	r->o.allow_risky = true;
	r->o.job = JOB_CROSSFLASH;
	r->o.settings = "LINK_TYPE_P2=ETH";
	int rc = run(r, "");
	expect_rc(r, rc, CX_EDECLINED);
	expect_said(r, "card 0000:01:00.0: refused: settings=: card 0000:02:00.0: LINK_TYPE_P2: this card has "
			 "one port; nothing written");
	expect_untouched(r->cards[0], hp, n);
	expect_untouched(r->cards[1], other, m);
	assert_int_equal(cxsim_counters(r->cards[0])->nv_write_cmds + cxsim_counters(r->cards[1])->nv_write_cmds, 0);
	free(other);
	free(hp);
}

/* Firmware not started (status 4): the card is still written, and fails on its settings. */
static void test_job_settings_firmware_not_started(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_card(r);

	add_image(r, "stock.bin", STOCK_IMAGE, NULL, 0);
	cxsim_params_mut(c)->hcr_fault = CXSIM_HCR_NOT_STARTED;
	cxsim_counters_reset(c);
	r->o.job = JOB_CROSSFLASH;
	r->o.yes = true;
	r->o.settings = "SRIOV_EN=1";
	int rc = run(r, "");
	expect_rc(r, rc, CX_EDECLINED);
	expect_said(r, "card 0000:01:00.0: failed: stock.bin written and verified; settings not set: ");
	expect_said(r, "not started");
	assert_int_equal(cxsim_counters(c)->nv_write_cmds, 0);
	char *rep = report_text(r);
	expect_card_result(rep, "0000:01:00.0", "failed");
	assert_non_null(strstr(rep, "\"card_state\":\"new-image-boots\"")); /* its flash is written */
	assert_non_null(strstr(rep, "{\"name\":\"SRIOV_EN\",\"before\":null,\"after\":null}"));
	free(rep);
	expect_history(r, 1, "\"action\":\"settings\"", "\"result\":\"failed\"", "not started");
	cxsim_params_mut(c)->hcr_fault = CXSIM_HCR_OK;
	expect_boots(c, STOCK_PSID, 42, 5000, G_A, M_A);
}

/* job=settings: no image written, only the SR-IOV record. */
static void test_job_settings_alone(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_card(r);
	size_t n;
	uint8_t *f = flash_copy(c, &n);

	cxsim_counters_reset(c);
	r->o.job = JOB_SETTINGS;
	r->o.yes = true;
	r->o.settings = "SRIOV_EN=True,NUM_OF_VFS=16";
	int rc = run(r, "");
	expect_rc(r, rc, CX_OK);
	expect_said(r, "card 0000:01:00.0: ok: 2 of 2 settings changed, for the next cold boot");
	expect_untouched(c, f, n);
	assert_int_equal(cxsim_counters(c)->nv_write_cmds, 1);
	assert_int_equal(nv_value(c, "SRIOV_EN"), 1);
	assert_int_equal(nv_value(c, "NUM_OF_VFS"), 16);
	char *rep = report_text(r);
	assert_non_null(strstr(rep, "\"job\":\"settings\""));
	assert_non_null(strstr(rep, "{\"name\":\"NUM_OF_VFS\",\"before\":\"8\",\"after\":\"16\"}"));
	assert_non_null(strstr(rep, "\"backup\":null"));
	free(rep);
	free(f);
}

/* job=settings on a ConnectX-2 beside a ConnectX-3: the CX3 gets its settings, the CX2 fails with
 * the reason (it has no settings store) and nothing is sent to it or written; the job fails. */
static void test_job_settings_connectx2(void **state)
{
	struct rig *r = *state;
	struct cxsim_params p;
	size_t n;

	struct cxsim_card *cx3 = hp_card(r);
	cxsim_params_default(&p, CXSIM_CX2);
	struct cxsim_card *cx2 = cxsim_new(&p);
	assert_non_null(cx2);
	card_install(cx2, "--chip cx2 --old-guids --guid 0002c90300c0ffe0 " SMALL, 0);
	r->cards[r->ncards++] = cx2;
	uint8_t *f2 = flash_copy(cx2, &n);
	cxsim_counters_reset(cx2);
	cxsim_counters_reset(cx3);
	r->o.job = JOB_SETTINGS;
	r->o.yes = true;
	r->o.settings = "LINK_TYPE_P1=ETH";
	int rc = run(r, "");
	expect_rc(r, rc, CX_EDECLINED);
	expect_said(r, "card 0000:01:00.0: ok: 1 of 1 settings changed, for the next cold boot");
	expect_said(r, "card 0000:02:00.0: failed: settings not set: 0000:02:00.0: a ConnectX-2 has no "
		       "settings store");
	assert_int_equal(nv_value(cx3, "LINK_TYPE_P1"), 2);
	assert_int_equal(cxsim_counters(cx2)->tools_cmds, 0);
	expect_untouched(cx2, f2, n);
	char *rep = report_text(r);
	expect_card_result(rep, "0000:01:00.0", "ok");
	expect_card_result(rep, "0000:02:00.0", "failed");
	assert_non_null(strstr(rep, "\"result\":\"failed\",\"settings\":\"LINK_TYPE_P1=ETH\""));
	free(rep);
	free(f2);
}

/* ---- 7. a write a power cut interrupted ------------------------------------------------ */

/* A "writing" record for card 1, as wiz_burn() or wiz_restore() leaves it when the power goes:
 * file is the image (its SHA-256 goes in the record) or the bundle; guid 0 keys it by slot. */
static void pend(struct rig *r, const char *action, uint64_t guid, const char *file, bool image,
		 const char *identity)
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

static void test_pending_finished(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_card(r);
	struct cx_status st = {0};
	char image[256];

	add_image(r, "stock.bin", STOCK_IMAGE, image, sizeof(image));
	pend(r, "crossflash", G_A, image, true, "card");

	int rc = run(r, "y\nFLASH\n\n\n");
	expect_rc(r, rc, CX_OK);
	expect_said(r, "The crossflash of card 0000:01:00.0 (started 2026-11-24T10:46:00Z");
	expect_said(r, "was INTERRUPTED");
	expect_said(r, "Finish the job now");
	expect_said(r, "== crossflash: card 0000:01:00.0");
	expect_said(r, "Power off for a cold restart");
	expect_not_said(r, "FAILED");
	expect_not_said(r, "what next?"); /* straight to the power-off screen */
	expect_boots(c, STOCK_PSID, 42, 5000, G_A, M_A);

	struct pending *v;
	int np;
	assert_int_equal(pending_list(r->data, &v, &np, &st), CX_OK);
	assert_int_equal(np, 1);
	assert_string_equal(v[0].state, "written");
	free(v);
	expect_history(r, 1, "\"action\":\"crossflash\"", "\"result\":\"ok\"", NULL);
}

/* The card model raises SIGTERM once the write has programmed something (after the backup). */
static void term_once_writing(void *ctx, struct cxsim_card *card)
{
	bool *sent = ctx;

	if (!*sent && cxsim_counters(card)->bytes_programmed) {
		*sent = true;
		raise(SIGTERM);
	}
}

/* /init's SIGTERM (or Ctrl-C) in the middle of a write: the signal waits while the card is
 * open (util/signals.h), the write stops at its next safe point, and the history says
 * "interrupted" before the signal ends the process at device_close(): the wizard writes it
 * from the write procedure's after hook, inside the run (ops/write_procedure.h, step 8), not
 * after the call returns, which the process does not live to see. The job record stays
 * "writing", so the next start offers to finish the job. */
static void test_signal_during_a_write_leaves_its_history(void **state)
{
	struct rig *r = *state;
	struct cx_status st = {0};
	struct pending *v;
	bool sent = false;
	int np, status;

	hp_card(r);
	add_image(r, "stock.bin", STOCK_IMAGE, NULL, 0);
	sim_cfg_set_hook(term_once_writing, &sent);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(run(r, "2\nFLASH\n\n\n") == CX_OK ? 3 : 4); /* not reached: SIGTERM ends it */
	sim_cfg_set_hook(NULL, NULL);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGTERM);
	expect_history(r, 1, "\"action\":\"crossflash\"", "\"result\":\"interrupted\"", NULL);
	assert_int_equal(pending_list(r->data, &v, &np, &st), CX_OK);
	assert_int_equal(np, 1);
	assert_string_equal(v[0].state, "writing");
	free(v);
}

/* An interrupted unbrick whose job record names its identity as id: the wiped card is
 * written again with the sticker's values (STICKER_G, STICKER_M). */
static void resume_unbrick(struct rig *r, const char *id)
{
	struct cxsim_card *c = hp_card(r);
	char image[256];

	add_image(r, "stock.bin", STOCK_IMAGE, image, sizeof(image));
	brick(c);
	pend(r, "unbrick", 0, image, true, id);
	int rc = run(r, "y\nFLASH\n\n");
	expect_rc(r, rc, CX_OK);
	expect_said(r, "The card is in recovery mode now.");
	expect_said(r, "identity: node GUID 0002c90300123450");
	expect_said(r, "REMOVE IT now");
	expect_not_said(r, "FAILED");
	expect_boots(c, STOCK_PSID, 42, 5000, STICKER_G, STICKER_M);
}

/* An unbrick from the sticker a power cut interrupted: the same values go on the card. */
static void test_pending_sticker_unbrick(void **state)
{
	char id[64];

	snprintf(id, sizeof(id), "sticker:%016llx,%012llx", (unsigned long long)STICKER_G,
		 (unsigned long long)STICKER_M);
	resume_unbrick(*state, id);
}

/* The same with the values an unbrick kept from the damaged flash: the record holds them,
 * since the interrupted burn may have erased the section they came from (here: all of it). */
static void test_pending_damaged_image_unbrick(void **state)
{
	char id[160];

	snprintf(id, sizeof(id), PENDING_DAMAGED_FMT, (unsigned long long)STICKER_G, (unsigned long long)STICKER_G + 1,
		 (unsigned long long)STICKER_G + 2, (unsigned long long)STICKER_G + 3, (unsigned long long)STICKER_M,
		 (unsigned long long)STICKER_M + 1);
	resume_unbrick(*state, id);
}

/* The same with the GUIDs/MACs of a backup. */
static void test_pending_bundle_identity_unbrick(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_card(r);
	struct backup_result b;
	char image[256], id[BACKUP_PATH_MAX + 16];

	add_image(r, "stock.bin", STOCK_IMAGE, image, sizeof(image));
	backup_outside(r, c, &b);
	brick(c);
	snprintf(id, sizeof(id), "bundle:%s", b.path);
	pend(r, "unbrick", 0, image, true, id);

	int rc = run(r, "y\nFLASH\n\n");
	expect_rc(r, rc, CX_OK);
	expect_said(r, "identity: node GUID 0002c90300c0ffe0");
	expect_not_said(r, "FAILED");
	expect_boots(c, STOCK_PSID, 42, 5000, G_A, M_A);
}

/* A restore the power cut interrupted is a restore again, of the same bundle. */
static void test_pending_restore(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_card(r);
	struct backup_result b;
	char id[BACKUP_PATH_MAX + 16];
	size_t n, m;

	add_image(r, "stock.bin", STOCK_IMAGE, NULL, 0);
	uint8_t *orig = flash_copy(c, &n);
	backup_outside(r, c, &b);
	brick(c);
	snprintf(id, sizeof(id), "bundle:%s", b.path);
	pend(r, "unbrick", 0, b.path, false, id);

	int rc = run(r, "y\nFLASH\n\n");
	expect_rc(r, rc, CX_OK);
	expect_said(r, "== unbrick: card 0000:01:00.0");
	expect_said(r, "OK: the backup is on the flash");
	expect_not_said(r, "FAILED");
	const uint8_t *now = cxsim_flash(c, &m);
	assert_int_equal(m, n);
	assert_memory_equal(now, orig, n);
	expect_boots(c, HP_PSID, 40, 5030, G_A, M_A);
	free(orig);
}

/* Another console holds the session lock: this one neither finishes the job nor writes
 * from the menu nor powers off under it. */
static void test_lock_held_elsewhere(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_card(r);
	struct session other;
	struct cx_status st = {0};
	char image[256], lock[128];
	size_t n;

	snprintf(lock, sizeof(lock), "%s/wizard.lock", r->root);
	assert_int_equal(session_open(&other, lock, "ttyS0", &st), CX_OK);
	assert_int_equal(session_take(&other, time(NULL), &st), CX_OK);
	r->o.lock_path = lock;
	add_image(r, "stock.bin", STOCK_IMAGE, image, sizeof(image));
	pend(r, "crossflash", G_A, image, true, "card");
	uint8_t *orig = flash_copy(c, &n);
	cxsim_counters_reset(c);

	int rc = run(r, "y\nFLASH\n\n2\nFLASH\n\n8\n");
	expect_rc(r, rc, CX_EDECLINED);
	expect_said(r, "the wizard is busy on ttyS0");
	expect_not_said(r, "Powering off.");
	expect_untouched(c, orig, n);
	assert_int_equal(bundles(r, NULL, 0, &(int){0}), 0);

	/* Once the other console is done, the job is offered here. */
	session_close(&other);
	rc = run(r, "y\nFLASH\n\n\n");
	expect_rc(r, rc, CX_OK);
	expect_said(r, "was INTERRUPTED");
	expect_boots(c, STOCK_PSID, 42, 5000, G_A, M_A);
	free(orig);
}

/* An unbrick from a backup offers the bundles that hold firmware: a bundle of the wiped
 * flash (every unbrick makes one before writing) would leave the card in recovery mode. */
static void test_unbrick_skips_empty_bundles(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_card(r);
	struct backup_result good, wiped;

	add_image(r, "stock.bin", STOCK_IMAGE, NULL, 0);
	backup_outside(r, c, &good);
	brick(c);
	backup_outside(r, c, &wiped);
	assert_true(wiped.recovery);

	int rc = run(r, "5\n1\n1\nFLASH\n\n");
	expect_rc(r, rc, CX_OK);
	expect_said(r, good.name);
	const char *menu = strstr(r->out, "Which backup?"), *end = menu ? strstr(menu, "back to the menu") : NULL;
	assert_non_null(end);
	const char *w = strstr(menu, wiped.name), *g = strstr(menu, good.name);
	assert_true(!w || w > end); /* not in the menu (a later bundle of the wiped flash starts the same) */
	assert_true(g && g < end);
	expect_boots(c, HP_PSID, 40, 5030, G_A, M_A);
}

/* The backup before a write cannot be made: nothing is written, the wizard stays up. */
static void test_no_backup_no_write(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_card(r);
	char path[256];
	size_t n;

	add_image(r, "stock.bin", STOCK_IMAGE, NULL, 0);
	snprintf(path, sizeof(path), "%s/backups", r->data);
	write_text(path, "not a folder\n");
	uint8_t *orig = flash_copy(c, &n);
	cxsim_counters_reset(c);

	int rc = run(r, "2\nFLASH\n");
	expect_rc(r, rc, CX_EDECLINED);
	expect_said(r, "*** FAILED: ");
	expect_said(r, "*** The wizard stays up; nothing is powered off.");
	expect_not_said(r, "Power off for a cold restart");
	expect_untouched(c, orig, n);
	expect_history(r, 0, "\"result\":\"ok\"", NULL, NULL);
	struct pending *v;
	struct cx_status st = {0};
	int np;
	assert_int_equal(pending_list(r->data, &v, &np, &st), CX_OK);
	assert_int_equal(np, 0);
	free(v);
	free(orig);
}

/* Declined: the record is dropped, nothing is written. */
static void test_pending_declined(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_card(r);
	struct cx_status st = {0};
	char image[256];
	size_t n;

	add_image(r, "stock.bin", STOCK_IMAGE, image, sizeof(image));
	pend(r, "update", G_A, image, true, "card");
	uint8_t *orig = flash_copy(c, &n);
	cxsim_counters_reset(c);

	int rc = run(r, "n\n");
	expect_rc(r, rc, CX_EDECLINED);
	expect_said(r, "Left as it is; the record is dropped");
	expect_untouched(c, orig, n);
	struct pending *v;
	int np;
	assert_int_equal(pending_list(r->data, &v, &np, &st), CX_OK);
	assert_int_equal(np, 0);
	free(v);
	free(orig);
}

/* The card was backed up with its own identity, then burned with --use_image_guids: Set
 * GUIDs/MACs (the default) offers that backup's identity beside the sticker, and puts it back. */
static void test_placeholder_identity_from_a_backup(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_card(r);

	expect_rc(r, run(r, "1\n"), CX_EDECLINED);
	card_install(c, HP_OPTS " --guid 0002c9000100d050 --mac 0002c9000001", 0);
	int rc = run(r, "\n2\nFLASH\n\n");
	expect_rc(r, rc, CX_OK);
	expect_said(r, "NO IDENTITY OF ITS OWN");
	expect_said(r, "backup on the stick: NONE YET"); /* its bundle has its own GUID, not this one */
	expect_said(r, "Where do the GUIDs/MACs come from?");
	expect_said(r, "  1. Type them from the card's sticker\n");
	expect_said(r, "  2. From backup cx3-" HP_PSID "-0002c90300c0ffe0-");
	expect_said(r, "new: GUIDs 0002c90300c0ffe0 0002c90300c0ffe1 0002c90300c0ffe2 0002c90300c0ffe3");
	expect_said(r, "GUIDs/MACs set (node GUID 0002c90300c0ffe0 from backup cx3-");
	expect_not_said(r, "FAILED");
	expect_boots(c, HP_PSID, 40, 5030, G_A, M_A);
}

/* ---- the backup before a write, when the card was just backed up --------------------- */

/* The name of the one bundle in data/backups into out. */
static void only_bundle(const struct rig *r, char *out, size_t n)
{
	char dir[256];
	struct dirent *de;
	DIR *d;
	int found = 0;

	snprintf(dir, sizeof(dir), "%s/backups", r->data);
	assert_non_null(d = opendir(dir));
	while ((de = readdir(d)))
		if (de->d_name[0] != '.') {
			snprintf(out, n, "%s", de->d_name);
			found++;
		}
	closedir(d);
	assert_int_equal(found, 1);
}

/* Backed up in one session, cross-flashed in the next: the write reads the flash once (its
 * model's bytes read: one whole flash, plus the burn's and the inventory's small reads, never
 * the two whole reads of a new bundle), finds it equal to that bundle, says so, and records
 * that bundle as the write's backup; no second bundle. */
static void test_write_reuses_an_identical_backup(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_card(r);
	char name[256], said[400];
	size_t n;
	int equal;

	add_image(r, "stock.bin", STOCK_IMAGE, NULL, 0);
	uint8_t *orig = flash_copy(c, &n);
	expect_rc(r, run(r, "1\n"), CX_EDECLINED);
	only_bundle(r, name, sizeof(name));

	cxsim_counters_reset(c);
	int rc = run(r, "2\nFLASH\n\n\n");
	expect_rc(r, rc, CX_OK);
	uint64_t rd = cxsim_counters(c)->bytes_read;
	if (rd < n || rd >= 2 * n)
		fail_msg("%llu bytes read from a %zu-byte flash: expected one whole read", (unsigned long long)rd, n);
	snprintf(said, sizeof(said), "the card's flash equals backup %s, made at 20", name);
	expect_said(r, said);
	expect_said(r, ": not written again");
	expect_not_said(r, "backup written:");
	expect_boots(c, STOCK_PSID, 42, 5000, G_A, M_A);
	assert_int_equal(bundles(r, orig, n, &equal), 1);
	assert_int_equal(equal, 1);
	expect_history(r, 1, "\"action\":\"crossflash\"", "\"result\":\"ok\"", name);
	free(orig);
}

/* The flash differs from the newest bundle by one byte outside the image: a new bundle of the
 * card as it is, from the comparing read and one more (two whole reads, not three). */
static void test_write_backs_up_a_changed_flash(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_card(r);
	size_t n;
	int equal;

	add_image(r, "stock.bin", STOCK_IMAGE, NULL, 0);
	expect_rc(r, run(r, "1\n"), CX_EDECLINED);
	uint8_t *f = cxsim_flash(c, &n);
	f[n - 1] ^= 0x5a;
	cxsim_flash_changed(c);
	uint8_t *now = flash_copy(c, &n);

	cxsim_counters_reset(c);
	expect_rc(r, run(r, "2\nFLASH\n\n\n"), CX_OK);
	uint64_t rd = cxsim_counters(c)->bytes_read;
	if (rd < 2 * n || rd >= 3 * n)
		fail_msg("%llu bytes read from a %zu-byte flash: expected two whole reads", (unsigned long long)rd, n);
	expect_not_said(r, "not written again");
	expect_said(r, "backup written:");
	assert_int_equal(bundles(r, now, n, &equal), 2);
	assert_int_equal(equal, 1); /* the new one; the first holds the flash before the change */
	free(now);
}

/* The newest bundle no longer verifies (one byte of its flash.bin changed on the stick): it is
 * never taken as the write's backup; a new bundle is written. */
static void test_write_backs_up_over_a_damaged_bundle(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_card(r);
	char name[256], path[600];
	struct cx_status st = {0};
	uint8_t *buf;
	size_t n, len;
	int equal;

	add_image(r, "stock.bin", STOCK_IMAGE, NULL, 0);
	uint8_t *orig = flash_copy(c, &n);
	expect_rc(r, run(r, "1\n"), CX_EDECLINED);
	only_bundle(r, name, sizeof(name));
	snprintf(path, sizeof(path), "%s/backups/%s/flash.bin", r->data, name);
	assert_int_equal(file_read(path, 64u << 20, &buf, &len, &st), CX_OK);
	buf[len / 2] ^= 0x01;
	assert_int_equal(file_write(path, buf, len, &st), CX_OK);
	free(buf);

	expect_rc(r, run(r, "2\nFLASH\n\n\n"), CX_OK);
	expect_not_said(r, "not written again");
	expect_said(r, "backup written:");
	assert_int_equal(bundles(r, orig, n, &equal), 2);
	assert_int_equal(equal, 1); /* the new one */
	free(orig);
}

/* ---- 8. GUIDs/MACs from the menu ------------------------------------------------------ */

static void test_set_ids(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_card(r);
	size_t n;
	int equal;

	add_image(r, "stock.bin", STOCK_IMAGE, NULL, 0);
	uint8_t *orig = flash_copy(c, &n);
	int rc = run(r, "6\n" STICKER_G_TYPED "\n" STICKER_G_TYPED "\n" STICKER_M_TYPED "\n" STICKER_M_TYPED
		     "\nFLASH\n\n");
	expect_rc(r, rc, CX_OK);
	expect_said(r, "Card 0000:01:00.0 now has node GUID 0002c90300c0ffe0, MACs 0002c9c0ffe0 0002c9c0ffe1");
	expect_said(r, "new: GUIDs 0002c90300123450 0002c90300123451 0002c90300123452 0002c90300123453");
	expect_said(r, "GUIDs/MACs set");
	expect_said(r, "Power off for a cold restart");
	expect_not_said(r, "FAILED");
	/* The firmware stays; only the identity changed. */
	expect_boots(c, HP_PSID, 40, 5030, STICKER_G, STICKER_M);
	assert_int_equal(bundles(r, orig, n, &equal), 1);
	assert_int_equal(equal, 1);
	expect_history(r, 1, "\"action\":\"set-ids\"", "\"result\":\"ok\"", "0002c90300123450");
	free(orig);
}

/* A card whose GUIDs are blank gets its identity from the sticker. */
static void test_set_ids_on_blank_guids(void **state)
{
	struct rig *r = *state;
	struct cxsim_params p;

	cxsim_params_default(&p, CXSIM_CX3);
	struct cxsim_card *c = cxsim_new(&p);
	assert_non_null(c);
	card_install(c, "--chip cx3 --fw 2.40.5030 --blank-guids " SMALL, 0);
	r->cards[r->ncards++] = c;
	int rc = run(r, "6\n" STICKER_G_TYPED "\n" STICKER_G_TYPED "\n" STICKER_M_TYPED "\n" STICKER_M_TYPED
		     "\nFLASH\n\n");
	expect_rc(r, rc, CX_OK);
	expect_said(r, "GUIDs/MACs: blank");
	expect_said(r, "GUIDs/MACs set");
	expect_not_said(r, "FAILED");
	expect_boots(c, STOCK_PSID, 40, 5030, STICKER_G, STICKER_M);
}

/* A ConnectX-2 image with 4 GUID entries stores no MACs (they derive from the port GUIDs):
 * the wizard asks for the GUID only, and sets it. */
static void test_set_ids_on_four_guid_image(void **state)
{
	struct rig *r = *state;
	struct cxsim_params p;

	cxsim_params_default(&p, CXSIM_CX2);
	struct cxsim_card *c = cxsim_new(&p);
	assert_non_null(c);
	card_install(c, "--chip cx2 --old-guids --guid 0002c90300c0ffe0 " SMALL, 0);
	r->cards[r->ncards++] = c;
	const struct cxsim_boot *b = cxsim_boot_info(c);
	assert_true(b->booted);
	assert_int_equal(b->nguids, 4);
	int rc = run(r, "6\n" STICKER_G_TYPED "\n" STICKER_G_TYPED "\nFLASH\n\n");
	expect_rc(r, rc, CX_OK);
	expect_said(r, "GUIDs/MACs set");
	expect_not_said(r, "FAILED");
	expect_not_said(r, "port 1 MAC");
	expect_said(r, "MACs  0002c9123451 0002c9123452 (from the port GUIDs");
	b = cold_boot(c);
	assert_int_equal(b->nguids, 4);
	for (int k = 0; k < 4; k++)
		assert_int_equal(b->guids[k], STICKER_G + (uint64_t)k);
	assert_int_equal(b->macs[0], 0x0002c9123451ull); /* the model derives them from the port GUIDs */
	assert_int_equal(b->macs[1], 0x0002c9123452ull);
	expect_history(r, 1, "\"action\":\"set-ids\"", "\"result\":\"ok\"", NULL);
}

/* A stock image burned with --use_image_guids: the card carries the release image's
 * placeholder GUIDs/MACs (ops/placeholder.h). The inventory says it has no identity of its
 * own, the menu's default is Set GUIDs/MACs (Enter alone chooses it, ahead of the backup it
 * has not had), and after the sticker's values the card boots with them and the line is gone. */
#define PLACEHOLDER_G 0x0002c9000100d050ull
#define PLACEHOLDER_M 0x0002c9000001ull

static void test_placeholder_identity_offers_set_ids(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = add_card(r, STOCK_IMAGE, 0x15b3, 0x0022, PLACEHOLDER_G, PLACEHOLDER_M);

	int rc = run(r, "\n" STICKER_G_TYPED "\n" STICKER_G_TYPED "\n" STICKER_M_TYPED "\n" STICKER_M_TYPED
		     "\nFLASH\n\n");
	expect_rc(r, rc, CX_OK);
	expect_said(r, "node GUID 0002c9000100d050  MACs 0002c9000001 0002c9000002\n"
		       "    NO IDENTITY OF ITS OWN: its node GUID is a release image's placeholder (illumos MELLANOX.h");
	expect_said(r, "Next: choose \"Set a card's GUIDs/MACs\"");
	expect_said(r, "  6. Set a card's GUIDs/MACs\n");
	expect_said(r, "Choose 1-10 [6]: ");
	expect_said(r, "Card 0000:01:00.0 now has node GUID 0002c9000100d050");
	expect_said(r, "GUIDs/MACs set");
	expect_not_said(r, "FAILED");
	expect_boots(c, STOCK_PSID, 42, 5000, STICKER_G, STICKER_M);
	expect_history(r, 1, "\"action\":\"set-ids\"", "\"result\":\"ok\"", "0002c90300123450");

	/* Its own identity now: no such line, and the default is no longer Set GUIDs/MACs. */
	rc = run(r, "");
	expect_not_said(r, "NO IDENTITY OF ITS OWN");
	expect_not_said(r, "Choose 1-10 [6]: ");
}

/* A library image of the card's own PSID built with another chunk size (64 KiB, the
 * card's 512 KiB): burn_card() refuses it (ops/guard.h), so the inventory neither
 * recommends nor offers it, and says why (issue 17: it was OK, and the burn refused
 * it after the typed word). */
static void test_chunk_size_mismatch_never_offered(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = add_card(r, OLD_STOCK_OPTS, 0x15b3, 0x0022, G_B, M_B);
	size_t n;

	add_image(r, "chunk64k.bin", STOCK_IMAGE " --chunk-log 0", NULL, 0);
	uint8_t *orig = flash_copy(c, &n);
	cxsim_counters_reset(c);
	int rc = run(r, "2\n3\n");
	expect_rc(r, rc, CX_EDECLINED);
	expect_said(r, "no card has a recommended image");
	expect_said(r, "  - REFUSED chunk64k.bin: ");
	expect_said(r, "the image's chunk size (0x10000) differs from the card's (0x80000)");
	expect_said(r, "no image in the library may go onto card 0000:01:00.0");
	expect_not_said(r, "Type FLASH");
	expect_untouched(c, orig, n);
	free(orig);
}

/* The library cannot be read: the wizard says why, offers no image, and writes nothing. */
static void test_no_library(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_card(r);
	size_t n;

	add_image(r, "stock.bin", STOCK_IMAGE, NULL, 0);
	r->o.boards = "/nonexistent/boards.txt";
	uint8_t *orig = flash_copy(c, &n);
	cxsim_counters_reset(c);
	int rc = run(r, "2\n3\n");
	expect_rc(r, rc, CX_EDECLINED);
	expect_said(r, "library: not available (");
	expect_said(r, "no card has a recommended image");
	expect_said(r, "no card can be judged");
	expect_untouched(c, orig, n);
	free(orig);
}

/* A bundle that fails its check is named, and never offered. */
static void test_damaged_backup_not_offered(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_card(r);
	struct backup_result b;
	char path[BACKUP_PATH_MAX + 32];
	size_t n;

	add_image(r, "stock.bin", STOCK_IMAGE, NULL, 0);
	backup_outside(r, c, &b);
	snprintf(path, sizeof(path), "%s/flash.bin", b.path);
	FILE *f = fopen(path, "r+b");
	assert_non_null(f);
	assert_int_equal(fseek(f, 0x1000, SEEK_SET), 0);
	assert_int_equal(fputc(0x5a, f), 0x5a);
	assert_int_equal(fclose(f), 0);
	brick(c);
	uint8_t *wiped = flash_copy(c, &n);
	cxsim_counters_reset(c);

	int rc = run(r, "5\n1\n");
	expect_rc(r, rc, CX_EDECLINED);
	expect_said(r, "WARNING: the backup ");
	expect_said(r, "is damaged and will not be used");
	expect_said(r, "there is no backup of card 0000:01:00.0");
	expect_not_said(r, "Which backup?");
	expect_untouched(c, wiped, n);
	free(wiped);
}

/* "Burn a file" on a card in recovery mode: its identity cannot be read, so the wizard
 * points at Unbrick before asking for the word (not at cxflash's command-line options). */
static void test_burn_file_on_recovery_card(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_card(r);
	size_t n;

	add_image(r, "stock.bin", STOCK_IMAGE, NULL, 0);
	brick(c);
	uint8_t *wiped = flash_copy(c, &n);
	cxsim_counters_reset(c);
	int rc = run(r, "3\n1\nFLASH\n");
	expect_rc(r, rc, CX_EDECLINED);
	expect_said(r, "is in recovery mode");
	expect_said(r, "Unbrick");
	expect_not_said(r, "Type FLASH");
	expect_not_said(r, "--guid");
	expect_untouched(c, wiped, n);
	free(wiped);
}

/* ---- the menu itself -------------------------------------------------------------- */

/* Without a shell the menu has 8 items, the last one Power off; with a backup missing the
 * default is "Back up all cards". */
static void test_menu_power_off(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_card(r);
	size_t n;

	add_image(r, "stock.bin", STOCK_IMAGE, NULL, 0);
	uint8_t *orig = flash_copy(c, &n);
	cxsim_counters_reset(c);
	int rc = run(r, "11\n10\n");
	expect_rc(r, rc, CX_OK);
	expect_said(r, " 10. Power off\n");
	expect_said(r, "Choose 1-10 [1]: ");
	expect_said(r, "Please type a number from 1 to 10");
	expect_not_said(r, "Shell");
	expect_not_said(r, "Power off for a cold restart"); /* nothing was written */
	expect_said(r, "Powering off.");
	expect_untouched(c, orig, n);
	free(orig);
}

/* Two cards: the card is chosen from a menu; the inventory is read again (9); after the
 * write the user goes back to the menu first, then powers off. The session lock and the
 * prompt mark are used. */
static void test_two_cards_interactive(void **state)
{
	struct rig *r = *state;
	char lock[128], mark[128];
	size_t n;

	snprintf(lock, sizeof(lock), "%s/wizard.lock", r->root);
	snprintf(mark, sizeof(mark), "%s/prompt-mark", r->root);
	r->o.lock_path = lock;
	r->o.prompt_mark = mark;
	struct cxsim_card *hp = hp_card(r);
	struct cxsim_card *stock = add_card(r, OLD_STOCK_OPTS, 0x15b3, 0x0022, G_B, M_B);
	add_image(r, "stock.bin", STOCK_IMAGE, NULL, 0);
	uint8_t *orig = flash_copy(hp, &n);
	cxsim_counters_reset(hp);

	/* 9 list, 2 update, card 2, the word, 2 back to the menu, 10 power off. */
	int rc = run(r, "9\n2\n2\nFLASH\n2\n10\n");
	expect_rc(r, rc, CX_OK);
	expect_said(r, "Which card?");
	expect_said(r, "  1. 0000:01:00.0  ConnectX-3 A1  " HP_PSID "  FW 2.40.5030");
	expect_said(r, "  2. 0000:02:00.0  ConnectX-3 A1  " STOCK_PSID "  FW 2.40.5030");
	expect_said(r, "  3. back to the menu");
	expect_said(r, "== update: card 0000:02:00.0");
	expect_said(r, "Back to the menu (another card first)");
	expect_said(r, "Powering off.");
	expect_not_said(r, "FAILED");
	expect_not_said(r, "busy");
	expect_untouched(hp, orig, n);
	expect_boots(stock, STOCK_PSID, 42, 5000, G_B, M_B);
	assert_int_equal(access(mark, F_OK), 0);
	expect_history(r, 1, "\"action\":\"update\"", "\"result\":\"ok\"", "\"bdf\":\"0000:02:00.0\"");
	free(orig);
}

/* Back up, cross-flash, then restore the backup from the menu: the original flash again. */
static void test_restore_after_crossflash(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_card(r);
	size_t n, m;

	add_image(r, "stock.bin", STOCK_IMAGE, NULL, 0);
	uint8_t *orig = flash_copy(c, &n);
	/* 1 back up, 2 update, the word, Enter: keep the settings, 2 back to the menu, 4 restore,
	 * 1 the newest bundle, the word (the power-off screen came already), 10 power off. */
	int rc = run(r, "1\n2\nFLASH\n\n2\n4\n1\nFLASH\n10\n");
	expect_rc(r, rc, CX_OK);
	expect_said(r, "Restore which backup?");
	expect_said(r, "== restore: card 0000:01:00.0");
	expect_said(r, "OK: the backup is on the flash, read back and verified");
	expect_not_said(r, "FAILED");
	const uint8_t *now = cxsim_flash(c, &m);
	assert_int_equal(m, n);
	assert_memory_equal(now, orig, n);
	expect_boots(c, HP_PSID, 40, 5030, G_A, M_A);
	expect_history(r, 1, "\"action\":\"restore\"", "\"result\":\"ok\"", NULL);
	free(orig);
}

static void test_job_backup_one_card(void **state)
{
	struct rig *r = *state;
	uint8_t *hp;
	size_t n, m;
	int equal;

	two_cards(r, &hp, &n);
	uint8_t *stock = flash_copy(r->cards[1], &m);
	r->o.job = JOB_BACKUP;
	r->o.yes = false;
	r->o.job_card = "02:00.0";
	int rc = run(r, "");
	expect_rc(r, rc, CX_OK);
	expect_said(r, "The job is done: powering off.");
	assert_int_equal(bundles(r, stock, m, &equal), 1);
	assert_int_equal(equal, 1);
	char *rep = report_text(r);
	expect_card_result(rep, "0000:02:00.0", "ok");
	assert_null(strstr(rep, "0000:01:00.0"));
	assert_non_null(strstr(rep, "\"card\":\"02:00.0\""));
	free(rep);
	expect_untouched(r->cards[0], hp, n);
	expect_untouched(r->cards[1], stock, m);
	free(stock);
	free(hp);
}

static void test_job_inventory(void **state)
{
	struct rig *r = *state;
	uint8_t *hp;
	size_t n, m;
	int equal;

	two_cards(r, &hp, &n);
	uint8_t *stock = flash_copy(r->cards[1], &m);
	r->o.job = JOB_INVENTORY;
	int rc = run(r, "");
	expect_rc(r, rc, CX_OK);
	assert_int_equal(bundles(r, NULL, 0, &equal), 0);
	char *rep = report_text(r);
	expect_card_result(rep, "0000:01:00.0", "ok");
	expect_card_result(rep, "0000:02:00.0", "ok");
	assert_non_null(strstr(rep, "\"node_guid\":\"0002c90300c0ffe0\""));
	free(rep);
	expect_untouched(r->cards[0], hp, n);
	expect_untouched(r->cards[1], stock, m);
	free(stock);
	free(hp);
}

/* With a shell the menu has 9 items: 8 is the shell, 9 power off. */
static void test_menu_with_shell(void **state)
{
	struct rig *r = *state;

	hp_card(r);
	r->o.shell = "/bin/true";
	int rc = run(r, "10\n11\n");
	expect_rc(r, rc, CX_OK);
	expect_said(r, " 10. Shell (type exit to come back)\n");
	expect_said(r, " 11. Power off\n");
	expect_said(r, "Powering off.");
}

/* ---- 9. job=restore, $CXR_UPLOAD, after=exit ---------------------------------------- */

/* A bundle of card idx (its flash as it is now) in dir, created if absent: where a PXE
 * server's copy of a node's backup is put for job=restore (not the wizard's backups/). */
static void bundle_of(struct rig *r, int idx, const char *dir, struct backup_result *b)
{
	struct cx_status st = {0};
	struct device d;
	struct cxsim_card *c = r->cards[idx];
	const struct cxsim_params *pp = cxsim_get_params(c);
	struct pci_card pci = {.device = cxsim_pci_device_now(c), .subsys_vendor = pp->subsys_vendor,
			       .subsys_device = pp->subsys_device};

	snprintf(pci.bdf, sizeof(pci.bdf), "0000:%02x:00.0", idx + 1);
	assert_true(pci_id_known(pci.device, &pci.kind, &pci.family));
	assert_int_equal(bus_open(r, &pci, &d, &st), CX_OK);
	assert_int_equal(backup_card(&d, dir, b, &st), CX_OK);
	device_close(&d);
}

static void server_dir(const struct rig *r, char *out, size_t n)
{
	snprintf(out, n, "%s/server", r->root);
}

/* An upload command in the rig's folder, run as `CMD backup BUNDLE`: it appends its
 * arguments to ROOT/upload.args (a line per call), copies the bundle's flash.bin to
 * ROOT/uploaded.bin (what the server got), and exits with status. */
static void upload_script(struct rig *r, int status, char *path, size_t n)
{
	char text[1024];

	snprintf(path, n, "%s/upload-%d", r->root, status);
	snprintf(text, sizeof(text),
		 "#!/bin/sh\n"
		 "printf '%%s\\n' \"$*\" >> '%s/upload.args'\n"
		 "cat \"$2/flash.bin\" > '%s/uploaded.bin' || exit 99\n"
		 "exit %d\n",
		 r->root, r->root, status);
	write_text(path, text);
	assert_int_equal(chmod(path, 0755), 0);
}

/* The upload command's calls so far: the lines of upload.args (its text into out, may be NULL). */
static int upload_calls(const struct rig *r, char *out, size_t n)
{
	char path[128];
	int lines = 0;

	snprintf(path, sizeof(path), "%s/upload.args", r->root);
	char *text = slurp(path);
	if (out)
		snprintf(out, n, "%s", text ? text : "");
	for (char *p = text; p && *p; p++)
		lines += *p == '\n';
	free(text);
	return lines;
}

/* The upload command was called once, as `CMD backup BUNDLE` with this bundle. */
static void expect_upload_of(const struct rig *r, const char *bundle)
{
	char calls[2 * BACKUP_PATH_MAX], want[BACKUP_PATH_MAX + 16];

	assert_int_equal(upload_calls(r, calls, sizeof(calls)), 1);
	snprintf(want, sizeof(want), "backup %s\n", bundle);
	assert_string_equal(calls, want);
}

/* The flash bytes the upload command handed to the server (its last call). */
static void expect_uploaded(const struct rig *r, const uint8_t *flash, size_t n)
{
	struct cx_status st = {0};
	char path[128];
	uint8_t *buf;
	size_t len;

	snprintf(path, sizeof(path), "%s/uploaded.bin", r->root);
	assert_int_equal(file_read(path, 64u << 20, &buf, &len, &st), CX_OK);
	assert_int_equal(len, n);
	assert_memory_equal(buf, flash, n);
	free(buf);
}

/* Watches a card's flash (cxsim_set_flash_sink): how many changes, and how many upload
 * calls had been made when the first one came. */
struct first_write {
	const struct rig *r;
	uint64_t changes;
	int uploads_before;
};

static void on_flash_change(void *ctx, size_t off, size_t len)
{
	struct first_write *f = ctx;

	(void)off, (void)len;
	if (f->changes++ == 0)
		f->uploads_before = upload_calls(f->r, NULL, 0);
}

/* A bundle's flash.bin equals flash. */
static void expect_bundle_flash(const char *bundle, const uint8_t *flash, size_t n)
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

/* The card's flash equals the bundle's flash.bin. */
static void expect_flash_is_bundle(struct cxsim_card *c, const char *bundle)
{
	size_t m;
	const uint8_t *now = cxsim_flash(c, &m);

	expect_bundle_flash(bundle, now, m);
}

/* The string value of "key" in the report, looked up after the first `after` (NULL: from the
 * start); fails when it is absent or not a string. */
static void report_value(const char *report, const char *after, const char *key, char *out, size_t n)
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

/* The path of the backup the report names for card bdf ("backup":{"path":...}). */
static void report_backup(const char *report, const char *bdf, char *out, size_t n)
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

static void drop_reports(const struct rig *r)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s/reports'", r->data);
	assert_int_equal(system(cmd), 0);
}

static int pending_count(const struct rig *r)
{
	struct pending *v;
	struct cx_status st = {0};
	int np;

	assert_int_equal(pending_list(r->data, &v, &np, &st), CX_OK);
	free(v);
	return np;
}

/* The unbrick of a PXE node: the server's copy of its backup (fetched into backups/, as
 * pxe.sh does) written back onto the card in recovery mode, without a question (its identity
 * cannot be read). The backup made first is uploaded before anything is written, and the
 * report names both. */
static void test_job_restore_unbricks_recovery_card(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_card(r);
	struct backup_result b;
	struct first_write fw = {.r = r};
	char upload[128], bk[BACKUP_PATH_MAX], val[BACKUP_PATH_MAX];
	size_t n;
	int equal;

	uint8_t *orig = flash_copy(c, &n);
	backup_outside(r, c, &b);
	brick(c);
	uint8_t *wiped = flash_copy(c, &n);
	cxsim_counters_reset(c);
	cxsim_set_flash_sink(c, on_flash_change, &fw);
	upload_script(r, 0, upload, sizeof(upload));
	r->o.job = JOB_RESTORE;
	r->o.bundle = b.path;
	r->o.yes = true;
	r->o.upload_cmd = upload;

	int rc = run(r, "");
	cxsim_set_flash_sink(c, NULL, NULL);
	expect_rc(r, rc, CX_OK);
	expect_said(r, "card 0000:01:00.0: ok: the backup ");
	expect_said(r, "the server holds the backup");
	expect_said(r, "The job is done: powering off.");
	expect_not_said(r, "not allowed");
	/* The card: the bundle's flash, byte for byte; it boots as the node it was. */
	expect_flash_is_bundle(c, b.path);
	assert_memory_equal(cxsim_flash(c, &(size_t){0}), orig, n);
	assert_true(cxsim_counters(c)->bytes_programmed > 0);
	expect_boots(c, HP_PSID, 40, 5030, G_A, M_A);
	/* The upload came before the first change to the flash, and held the card as it was. */
	assert_true(fw.changes > 0);
	assert_int_equal(fw.uploads_before, 1);
	expect_uploaded(r, wiped, n);

	char *rep = report_text(r);
	report_value(rep, NULL, "job", val, sizeof(val));
	assert_string_equal(val, "restore");
	report_value(rep, NULL, "bundle", val, sizeof(val));
	assert_string_equal(val, b.name);
	report_value(rep, NULL, "result", val, sizeof(val));
	assert_string_equal(val, "ok");
	expect_card_result(rep, "0000:01:00.0", "ok");
	assert_non_null(strstr(rep, "\"recovery\":true"));
	report_backup(rep, "0000:01:00.0", bk, sizeof(bk));
	free(rep);
	/* The backup the report names: made before the write (the wiped flash), in the wizard's
	 * backups, and the one the upload command was given. */
	assert_non_null(strstr(bk, "/data/backups/"));
	expect_bundle_flash(bk, wiped, n);
	expect_upload_of(r, bk);
	assert_int_equal(bundles(r, wiped, n, &equal), 2); /* the node's own, and the one made first */
	assert_int_equal(equal, 1);
	assert_string_not_equal(bk, b.path);
	expect_history(r, 1, "\"action\":\"unbrick\"", "\"result\":\"ok\"", b.name);
	free(wiped);
	free(orig);
}

/* Of two readable cards the bundle goes onto the one with its node GUID (changed firmware,
 * same identity); the other is left alone. after=exit: the wizard returns 0, no menu. */
static void test_job_restore_by_node_guid_after_exit(void **state)
{
	struct rig *r = *state;
	struct backup_result b;
	char server[128], val[BACKUP_PATH_MAX];
	size_t n, m;

	struct cxsim_card *other = add_card(r, OLD_STOCK_OPTS, 0x15b3, 0x0022, G_B, M_B);
	struct cxsim_card *c = hp_card(r);
	server_dir(r, server, sizeof(server));
	bundle_of(r, 1, server, &b);
	char opts[200];
	snprintf(opts, sizeof(opts), OLD_STOCK_OPTS " --guid %016llx --mac %012llx", (unsigned long long)G_A,
		 (unsigned long long)M_A);
	card_install(c, opts, 0); /* the node ran other firmware since */
	uint8_t *changed = flash_copy(c, &n), *keep = flash_copy(other, &m);
	cxsim_counters_reset(c);
	cxsim_counters_reset(other);
	r->o.job = JOB_RESTORE;
	r->o.bundle = b.path;
	r->o.yes = true;
	r->o.exit_after_job = true;

	int rc = run(r, "8\n"); /* the menu's power off, were the menu shown */
	expect_rc(r, rc, CX_OK);
	expect_said(r, "card 0000:01:00.0: nothing-to-do: not the card of the bundle");
	expect_said(r, "card 0000:02:00.0: ok: the backup ");
	expect_said(r, "The job is done.");
	expect_not_said(r, "powering off");
	expect_not_said(r, "Choose 1-");
	expect_not_said(r, "Powering off.");
	assert_true(cxsim_counters(c)->bytes_programmed > 0);
	expect_flash_is_bundle(c, b.path);
	expect_boots(c, HP_PSID, 40, 5030, G_A, M_A);
	expect_untouched(other, keep, m);
	char *rep = report_text(r);
	report_value(rep, NULL, "bundle", val, sizeof(val));
	assert_string_equal(val, b.name);
	expect_card_result(rep, "0000:01:00.0", "nothing-to-do");
	expect_card_result(rep, "0000:02:00.0", "ok");
	report_backup(rep, "0000:02:00.0", val, sizeof(val));
	expect_bundle_flash(val, changed, n);
	free(rep);
	expect_history(r, 1, "\"action\":\"restore\"", "\"result\":\"ok\"", "\"bdf\":\"0000:02:00.0\"");
	free(changed);
	free(keep);
}

/* Two cards in recovery mode could both take the bundle: nothing is written until card=
 * names one; then only that one is written. */
static void test_job_restore_two_candidates_need_card(void **state)
{
	struct rig *r = *state;
	struct backup_result b;
	char server[128];
	size_t n, m;
	int equal;

	struct cxsim_card *c1 = hp_card(r);
	struct cxsim_card *c2 = add_card(r, HP_OPTS, HP_SUBSYS_VENDOR, HP_SUBSYS_DEVICE, G_B, M_B);
	server_dir(r, server, sizeof(server));
	bundle_of(r, 0, server, &b);
	brick(c1);
	brick(c2);
	uint8_t *w1 = flash_copy(c1, &n), *w2 = flash_copy(c2, &m);
	cxsim_counters_reset(c1);
	cxsim_counters_reset(c2);
	r->o.job = JOB_RESTORE;
	r->o.bundle = b.path;
	r->o.yes = true;

	int rc = run(r, "");
	expect_rc(r, rc, CX_EDECLINED); /* the wizard stayed up; then the input ended */
	expect_said(r, "2 cards could take the bundle of ConnectX-3 0002c90300c0ffe0: name one with cxrescue.card=");
	expect_said(r, "The job did not complete");
	expect_untouched(c1, w1, n);
	expect_untouched(c2, w2, m);
	assert_int_equal(bundles(r, NULL, 0, &equal), 0); /* not even a backup */
	assert_int_equal(pending_count(r), 0);
	char *rep = report_text(r);
	expect_card_result(rep, "0000:01:00.0", "refused");
	expect_card_result(rep, "0000:02:00.0", "refused");
	assert_non_null(strstr(rep, "\"result\":\"failed\""));
	free(rep);

	drop_reports(r);
	r->o.job_card = "01:00.0";
	rc = run(r, "");
	expect_rc(r, rc, CX_OK);
	expect_said(r, "card 0000:01:00.0: ok: the backup ");
	expect_flash_is_bundle(c1, b.path);
	expect_boots(c1, HP_PSID, 40, 5030, G_A, M_A);
	expect_untouched(c2, w2, m);
	rep = report_text(r);
	expect_card_result(rep, "0000:01:00.0", "ok");
	assert_null(strstr(rep, "0000:02:00.0"));
	free(rep);
	free(w1);
	free(w2);
}

/* No chosen card fits: a readable ConnectX-3 with another node GUID, a ConnectX-2 in
 * recovery mode (its identity unreadable, but another family). Nothing is written. */
static void test_job_restore_no_card_fits(void **state)
{
	struct rig *r = *state;
	struct cxsim_params p;
	struct backup_result b;
	char server[128], opts[200];
	size_t n, m;
	int equal;

	struct cxsim_card *c1 = hp_card(r);
	server_dir(r, server, sizeof(server));
	bundle_of(r, 0, server, &b);
	snprintf(opts, sizeof(opts), HP_OPTS " --guid %016llx --mac %012llx", (unsigned long long)G_B,
		 (unsigned long long)M_B);
	card_install(c1, opts, 0); /* another card in the slot now */
	cxsim_params_default(&p, CXSIM_CX2);
	struct cxsim_card *c2 = cxsim_new(&p);
	assert_non_null(c2);
	r->cards[r->ncards++] = c2;
	brick(c2);
	assert_int_equal(cxsim_pci_device_now(c2), 0x191);
	uint8_t *f1 = flash_copy(c1, &n), *f2 = flash_copy(c2, &m);
	cxsim_counters_reset(c1);
	cxsim_counters_reset(c2);
	r->o.job = JOB_RESTORE;
	r->o.bundle = b.path;
	r->o.yes = true;

	int rc = run(r, "");
	expect_rc(r, rc, CX_EDECLINED);
	expect_said(r, "no chosen card takes the bundle of ConnectX-3 0002c90300c0ffe0");
	expect_untouched(c1, f1, n);
	expect_untouched(c2, f2, m);
	assert_int_equal(bundles(r, NULL, 0, &equal), 0);
	char *rep = report_text(r);
	expect_card_result(rep, "0000:01:00.0", "refused");
	expect_card_result(rep, "0000:02:00.0", "refused");
	free(rep);
	free(f1);
	free(f2);
}

/* job=restore writes only with yes=1, and never a bundle without a firmware image (the
 * card would stay in recovery mode). */
static void test_job_restore_needs_yes_and_an_image(void **state)
{
	struct rig *r = *state;
	struct backup_result good, empty;
	char server[128], val[BACKUP_NAME_MAX];
	size_t n;
	int equal;

	struct cxsim_card *c = hp_card(r);
	server_dir(r, server, sizeof(server));
	bundle_of(r, 0, server, &good);
	brick(c);
	bundle_of(r, 0, server, &empty);
	assert_false(empty.have_image);
	uint8_t *wiped = flash_copy(c, &n);
	cxsim_counters_reset(c);
	r->o.job = JOB_RESTORE;
	r->o.bundle = good.path;
	r->o.yes = false;

	int rc = run(r, "");
	expect_rc(r, rc, CX_EDECLINED);
	expect_said(r, "the restore job writes cards: it needs cxrescue.yes=1");
	expect_untouched(c, wiped, n);

	r->o.bundle = empty.path;
	r->o.yes = true;
	rc = run(r, "");
	expect_rc(r, rc, CX_EDECLINED);
	expect_said(r, "card 0000:01:00.0: refused: the bundle ");
	expect_said(r, "holds no firmware image");
	expect_untouched(c, wiped, n);
	assert_int_equal(bundles(r, NULL, 0, &equal), 0);
	char *rep = report_text(r);
	expect_card_result(rep, "0000:01:00.0", "refused");
	report_value(rep, NULL, "bundle", val, sizeof(val));
	assert_string_equal(val, empty.name);
	free(rep);
	free(wiped);
}

/* Only the question about an unreadable identity is taken as answered: a bundle whose image
 * is not failsafe still asks, and unattended that is a refusal before anything is written. */
static void test_job_restore_other_questions_refuse(void **state)
{
	struct rig *r = *state;
	struct backup_result b;
	char server[128];
	size_t n;
	int equal;

	struct cxsim_card *c = add_card(r, HP_OPTS " --no-failsafe", HP_SUBSYS_VENDOR, HP_SUBSYS_DEVICE, G_A, M_A);
	server_dir(r, server, sizeof(server));
	bundle_of(r, 0, server, &b);
	assert_true(b.have_image);
	brick(c);
	uint8_t *wiped = flash_copy(c, &n);
	cxsim_counters_reset(c);
	r->o.job = JOB_RESTORE;
	r->o.bundle = b.path;
	r->o.yes = true;

	int rc = run(r, "");
	expect_rc(r, rc, CX_EDECLINED);
	expect_said(r, "card 0000:01:00.0: failed: unattended, not allowed: ");
	expect_said(r, "not failsafe");
	expect_not_said(r, "identity cannot be compared");
	expect_untouched(c, wiped, n);
	assert_int_equal(bundles(r, NULL, 0, &equal), 0); /* refused before the backup */
	assert_int_equal(pending_count(r), 0);
	char *rep = report_text(r);
	expect_card_result(rep, "0000:01:00.0", "failed");
	free(rep);
	free(wiped);
}

/* The backup before a restore did not reach the server: nothing is written; the backup is
 * kept and the report names it. */
static void test_upload_failed_restore_writes_nothing(void **state)
{
	struct rig *r = *state;
	struct backup_result b;
	char server[128], upload[128], bk[BACKUP_PATH_MAX];
	size_t n;
	int equal;

	struct cxsim_card *c = hp_card(r);
	server_dir(r, server, sizeof(server));
	bundle_of(r, 0, server, &b);
	brick(c);
	uint8_t *wiped = flash_copy(c, &n);
	cxsim_counters_reset(c);
	upload_script(r, 1, upload, sizeof(upload));
	r->o.job = JOB_RESTORE;
	r->o.bundle = b.path;
	r->o.yes = true;
	r->o.upload_cmd = upload;

	int rc = run(r, "");
	expect_rc(r, rc, CX_EDECLINED);
	expect_said(r, "did not reach the server (the upload failed with status 1)");
	expect_said(r, "nothing is written to the card");
	expect_not_said(r, "Writing the backup onto");
	expect_untouched(c, wiped, n);
	assert_int_equal(pending_count(r), 0);
	char *rep = report_text(r);
	expect_card_result(rep, "0000:01:00.0", "failed");
	assert_non_null(strstr(rep, "did not reach the server"));
	report_backup(rep, "0000:01:00.0", bk, sizeof(bk));
	free(rep);
	expect_bundle_flash(bk, wiped, n);
	assert_int_equal(bundles(r, wiped, n, &equal), 1);
	assert_int_equal(equal, 1);
	expect_upload_of(r, bk);
	expect_history(r, 0, "\"action\":\"unbrick\"", "\"result\":\"ok\"", NULL);
	free(wiped);
}

/* The same for a burn (job=update), with an upload command that does not exist. */
static void test_upload_missing_command_refuses_burn(void **state)
{
	struct rig *r = *state;
	uint8_t *hp;
	size_t n, m;
	char upload[128], bk[BACKUP_PATH_MAX];
	int equal;

	two_cards(r, &hp, &n);
	uint8_t *stock = flash_copy(r->cards[1], &m);
	snprintf(upload, sizeof(upload), "%s/no-such-upload", r->root);
	r->o.job = JOB_UPDATE;
	r->o.job_card = "02:00.0";
	r->o.upload_cmd = upload;

	int rc = run(r, "");
	expect_rc(r, rc, CX_EDECLINED);
	expect_said(r, "could not be run");
	expect_said(r, "card 0000:02:00.0: failed: ");
	expect_not_said(r, "Writing stock.bin onto");
	expect_untouched(r->cards[1], stock, m);
	expect_untouched(r->cards[0], hp, n);
	assert_int_equal(pending_count(r), 0);
	char *rep = report_text(r);
	expect_card_result(rep, "0000:02:00.0", "failed");
	report_backup(rep, "0000:02:00.0", bk, sizeof(bk));
	free(rep);
	expect_bundle_flash(bk, stock, m);
	assert_int_equal(bundles(r, stock, m, &equal), 1);
	assert_int_equal(equal, 1);
	expect_history(r, 0, "\"action\":\"update\"", "\"result\":\"ok\"", NULL);
	free(stock);
	free(hp);
}

/* A burn waits for the upload: the server got the card's flash as it was, before the first
 * write; the upload command was given the bundle the report names. */
static void test_upload_before_burn(void **state)
{
	struct rig *r = *state;
	uint8_t *hp;
	size_t n, m;
	char upload[128], bk[BACKUP_PATH_MAX];
	struct first_write fw = {.r = r};

	two_cards(r, &hp, &n);
	uint8_t *stock = flash_copy(r->cards[1], &m);
	upload_script(r, 0, upload, sizeof(upload));
	cxsim_set_flash_sink(r->cards[1], on_flash_change, &fw);
	r->o.job = JOB_UPDATE;
	r->o.job_card = "02:00.0";
	r->o.upload_cmd = upload;

	int rc = run(r, "");
	cxsim_set_flash_sink(r->cards[1], NULL, NULL);
	expect_rc(r, rc, CX_OK);
	expect_said(r, "card 0000:02:00.0: ok: stock.bin written and verified");
	expect_boots(r->cards[1], STOCK_PSID, 42, 5000, G_B, M_B);
	assert_true(fw.changes > 0);
	assert_int_equal(fw.uploads_before, 1);
	expect_uploaded(r, stock, m);
	char *rep = report_text(r);
	report_backup(rep, "0000:02:00.0", bk, sizeof(bk));
	free(rep);
	expect_bundle_flash(bk, stock, m);
	expect_upload_of(r, bk);
	expect_untouched(r->cards[0], hp, n);
	free(stock);
	free(hp);
}

/* upload=optional: a failed upload is a WARNING, and the write goes on. */
static void test_upload_optional_goes_on(void **state)
{
	struct rig *r = *state;
	uint8_t *hp;
	size_t n, m;
	char upload[128], bk[BACKUP_PATH_MAX];

	two_cards(r, &hp, &n);
	uint8_t *stock = flash_copy(r->cards[1], &m);
	upload_script(r, 1, upload, sizeof(upload));
	r->o.job = JOB_UPDATE;
	r->o.job_card = "02:00.0";
	r->o.upload_cmd = upload;
	r->o.upload_optional = true;

	int rc = run(r, "");
	expect_rc(r, rc, CX_OK);
	expect_said(r, "WARNING: the backup did not reach the server (the upload failed with status 1); "
		       "upload=optional: going on");
	expect_said(r, "card 0000:02:00.0: ok: stock.bin written and verified");
	expect_boots(r->cards[1], STOCK_PSID, 42, 5000, G_B, M_B);
	char *rep = report_text(r);
	expect_card_result(rep, "0000:02:00.0", "ok");
	report_backup(rep, "0000:02:00.0", bk, sizeof(bk));
	free(rep);
	expect_bundle_flash(bk, stock, m);
	expect_upload_of(r, bk);
	free(stock);
	free(hp);
}

/* From the menu too: the backups are uploaded, and a write whose backup did not reach the
 * server writes nothing. */
static void test_upload_failed_menu_write(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_card(r);
	char upload[128];
	size_t n;
	int equal;

	add_image(r, "stock.bin", STOCK_IMAGE, NULL, 0);
	uint8_t *orig = flash_copy(c, &n);
	cxsim_counters_reset(c);
	upload_script(r, 3, upload, sizeof(upload));
	r->o.upload_cmd = upload;

	/* 1 back up all, 2 update, the word; then the input ends. */
	int rc = run(r, "1\n2\nFLASH\n");
	expect_rc(r, rc, CX_EDECLINED);
	expect_said(r, "card 0000:01:00.0: backup FAILED: the backup ");
	expect_said(r, "the upload failed with status 3");
	expect_said(r, "*** FAILED: ");
	expect_not_said(r, "Power off for a cold restart");
	expect_untouched(c, orig, n);
	/* One bundle, kept if not uploaded; the write found it equal to the card and offered it to
	 * the server again (the second call), which refused it again. */
	assert_int_equal(upload_calls(r, NULL, 0), 2);
	assert_int_equal(bundles(r, orig, n, &equal), 1);
	assert_int_equal(equal, 1);
	assert_int_equal(pending_count(r), 0);
	expect_history(r, 0, "\"action\":\"crossflash\"", "\"result\":\"ok\"", NULL);
	free(orig);
}

/* job=backup with an upload that fails, after=exit: the job's failure code, not the menu;
 * the backup written is in the report. */
static void test_upload_failed_backup_job_after_exit(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_card(r);
	char upload[128], bk[BACKUP_PATH_MAX], val[32];
	size_t n;

	uint8_t *orig = flash_copy(c, &n);
	cxsim_counters_reset(c);
	upload_script(r, 1, upload, sizeof(upload));
	r->o.job = JOB_BACKUP;
	r->o.upload_cmd = upload;
	r->o.exit_after_job = true;

	int rc = run(r, "8\n"); /* the menu's power off, were the menu shown */
	expect_rc(r, rc, CX_EDECLINED);
	expect_said(r, "The job did not complete");
	expect_not_said(r, "Choose 1-");
	expect_not_said(r, "The wizard stays up");
	expect_not_said(r, "Powering off.");
	expect_untouched(c, orig, n);
	char *rep = report_text(r);
	report_value(rep, NULL, "result", val, sizeof(val));
	assert_string_equal(val, "failed");
	expect_card_result(rep, "0000:01:00.0", "failed");
	assert_non_null(strstr(rep, "did not reach the server"));
	report_backup(rep, "0000:01:00.0", bk, sizeof(bk));
	assert_null(strstr(rep, "\"bundle\""));
	free(rep);
	expect_bundle_flash(bk, orig, n);
	assert_int_equal(upload_calls(r, NULL, 0), 1);
	expect_uploaded(r, orig, n);
	free(orig);
}

/* after=exit when the job cannot even run (another console holds the lock): that code. */
static void test_after_exit_lock_busy(void **state)
{
	struct rig *r = *state;
	struct session other;
	struct cx_status st = {0};
	char lock[128];

	hp_card(r);
	snprintf(lock, sizeof(lock), "%s/wizard.lock", r->root);
	assert_int_equal(session_open(&other, lock, "ttyS0", &st), CX_OK);
	assert_int_equal(session_take(&other, time(NULL), &st), CX_OK);
	r->o.lock_path = lock;
	r->o.job = JOB_INVENTORY;
	r->o.exit_after_job = true;

	int rc = run(r, "8\n");
	session_close(&other);
	expect_rc(r, rc, CX_EBUSY);
	expect_said(r, "the job did not run");
	expect_not_said(r, "Choose 1-");
	expect_not_said(r, "Powering off.");
}

/* The upload command must not start with SIGINT, SIGTERM, SIGHUP and SIGQUIT blocked. The
 * wizard defers them while a card is open (util/signals.h), and the upload runs then; a
 * blocked mask survives exec, so the command's own `timeout 120 tftp ...` (BusyBox timeout
 * sends SIGTERM) could never end a stuck transfer, and neither Ctrl-C on the console nor
 * /init's SIGTERM at power-off would reach it. The command is a bash script: bash keeps the
 * mask it was started with, as BusyBox ash does (dash, /bin/sh here, clears it). */
static void test_upload_signals_not_blocked(void **state)
{
	struct rig *r = *state;
	char upload[128], seen[128], text[512];
	const unsigned long long deferred = 1ull << (SIGHUP - 1) | 1ull << (SIGINT - 1) | 1ull << (SIGQUIT - 1) |
					    1ull << (SIGTERM - 1);
	sigset_t now;

	hp_card(r);
	snprintf(upload, sizeof(upload), "%s/upload-mask", r->root);
	snprintf(seen, sizeof(seen), "%s/sigblk", r->root);
	/* Builtins only: a forked sed reads bash's own mask while bash blocks SIGINT, SIGTERM and
	 * SIGCHLD around its fork and wait (seen: SigBlk 0x14002), which is not what we exec'd. */
	snprintf(text, sizeof(text), "#!/usr/bin/env bash\nwhile read -r k v; do [ \"$k\" = SigBlk: ] && "
		 "printf '%%s\\n' \"$v\" > '%s'; done < /proc/$$/status\nexit 0\n", seen);
	write_text(upload, text);
	assert_int_equal(chmod(upload, 0755), 0);
	/* Not blocked here, before the wizard opens a card. */
	assert_int_equal(sigprocmask(SIG_BLOCK, NULL, &now), 0);
	assert_false(sigismember(&now, SIGTERM) || sigismember(&now, SIGINT));
	r->o.job = JOB_BACKUP;
	r->o.upload_cmd = upload;

	int rc = run(r, "");
	expect_rc(r, rc, CX_OK);
	expect_said(r, "the server holds the backup");
	char *mask = slurp(seen);
	assert_non_null(mask);
	unsigned long long m = strtoull(mask, NULL, 16);
	if (m & deferred)
		fail_msg("the upload command started with signals blocked: SigBlk %.16s (SIGHUP, SIGINT, SIGQUIT, "
			 "SIGTERM are 0x4007)", mask);
	free(mask);
}

/* ---- 10. the boot ROM (issue 19) -------------------------------------------------------- */

/* HP's 544+ ROM set (mkfs2 --roms: CLP 8025, UEFI 14.11.49, PXE 3.4.754) on a ConnectX-3. */
#define HP_ROMS " --roms clp:8025,uefi:14.11.49,pxe:3.4.754"
#define HP_ROM_TEXT "CLP 8025, UEFI 14.11.49, PXE 3.4.754"

/* A copy of the ROM section's data of the image in flash (a card's, striped) or in a file
 * (contiguous); NULL with *len 0 when it has none. */
static uint8_t *rom_of(const uint8_t *buf, size_t n, bool striped, size_t *len)
{
	struct imgfile f;
	struct cx_status st = {0};
	uint8_t *out = NULL;

	assert_int_equal(imgfile_open_mem(&f, buf, n, striped, &st), CX_OK);
	*len = 0;
	if (f.img.rom_sect >= 0) {
		const struct fs2_item *it = &f.img.items[f.img.rom_sect];
		assert_non_null(out = malloc(it->data_len));
		memcpy(out, f.cont + it->data_off, it->data_len);
		*len = it->data_len;
	}
	imgfile_close(&f);
	return out;
}

static uint8_t *card_rom(struct cxsim_card *c, size_t *len)
{
	size_t n;
	const uint8_t *f = cxsim_flash(c, &n);

	return rom_of(f, n, true, len);
}

static uint8_t *file_rom(const char *path, size_t *len)
{
	struct cx_status st = {0};
	uint8_t *buf, *rom;
	size_t n;

	assert_int_equal(file_read(path, 1u << 24, &buf, &n, &st), CX_OK);
	rom = rom_of(buf, n, false, len);
	free(buf);
	return rom;
}

static void expect_rom(struct cxsim_card *c, const uint8_t *want, size_t want_len)
{
	size_t len;
	uint8_t *now = card_rom(c, &len);

	assert_int_equal(len, want_len);
	if (want_len)
		assert_memory_equal(now, want, want_len);
	free(now);
}

/* The boot ROM the one job record on the stick names (rescue/pending.h), into out. */
static void record_rom(struct rig *r, char *out, size_t n)
{
	struct pending *v;
	struct cx_status st = {0};
	int np;

	assert_int_equal(pending_list(r->data, &v, &np, &st), CX_OK);
	assert_int_equal(np, 1);
	snprintf(out, n, "%s", v[0].rom);
	free(v);
}

/* Give the one "writing" record on the stick the boot ROM choice rom. */
static void set_record_rom(struct rig *r, const char *rom)
{
	struct pending *v;
	struct cx_status st = {0};
	int np;

	assert_int_equal(pending_list(r->data, &v, &np, &st), CX_OK);
	assert_int_equal(np, 1);
	snprintf(v[0].rom, sizeof(v[0].rom), "%s", rom);
	assert_int_equal(pending_write(r->data, &v[0], &st), CX_OK);
	free(v);
}

/* An HP card with HP's ROMs, the stock image (PXE 3.4.752 only) in the library. */
static struct cxsim_card *hp_rom_card(struct rig *r, uint8_t **rom, size_t *rom_len, char *stock, size_t n)
{
	struct cxsim_card *c = add_card(r, HP_OPTS HP_ROMS, HP_SUBSYS_VENDOR, HP_SUBSYS_DEVICE, G_A, M_A);

	add_image(r, "stock.bin", STOCK_IMAGE, stock, n);
	*rom = card_rom(c, rom_len);
	assert_non_null(*rom);
	return c;
}

/* The cross-flash of an HP card to stock keeps its UEFI ROM by default (Enter). */
static void test_crossflash_keeps_uefi_rom(void **state)
{
	struct rig *r = *state;
	uint8_t *rom;
	size_t len;
	struct cxsim_card *c = hp_rom_card(r, &rom, &len, NULL, 0);

	/* 2 update, Enter: the default ROM choice, the word, Enter: keep the settings, Enter:
	 * power off now. */
	int rc = run(r, "2\n\nFLASH\n\n\n");
	expect_rc(r, rc, CX_OK);
	expect_said(r, "ROM " HP_ROM_TEXT "\n");
	expect_said(r, "The card's boot ROM and the image's differ (the card's has UEFI, the image's has not).");
	expect_said(r, "  1. keep the card's: " HP_ROM_TEXT "\n  2. take the image's: PXE 3.4.752\n"
		       "  3. no boot ROM (PXE/UEFI boot from this card off)\n");
	expect_said(r, "Choose 1-3 [1]: ");
	expect_said(r, "boot ROM: " HP_ROM_TEXT " -> " HP_ROM_TEXT " (the card's)");
	expect_not_said(r, "FAILED");
	expect_boots(c, STOCK_PSID, 42, 5000, G_A, M_A);
	expect_rom(c, rom, len);
	free(rom);
}

/* The image's ROM, or none, when the user says so. */
static void test_crossflash_rom_image_or_none(void **state)
{
	struct rig *r = *state;
	uint8_t *rom, *stock_rom;
	size_t len, stock_len;
	char stock[256];
	struct cxsim_card *c = hp_rom_card(r, &rom, &len, stock, sizeof(stock));

	stock_rom = file_rom(stock, &stock_len);
	expect_rc(r, run(r, "2\n2\nFLASH\n\n\n"), CX_OK);
	expect_said(r, "boot ROM: " HP_ROM_TEXT " -> PXE 3.4.752 (the image's)");
	expect_boots(c, STOCK_PSID, 42, 5000, G_A, M_A);
	expect_rom(c, stock_rom, stock_len);

	free(rom);
	free(stock_rom);
}

static void test_crossflash_rom_none(void **state)
{
	struct rig *r = *state;
	uint8_t *rom;
	size_t len;
	struct cxsim_card *c = hp_rom_card(r, &rom, &len, NULL, 0);

	expect_rc(r, run(r, "2\n3\nFLASH\n\n\n"), CX_OK);
	expect_said(r, "boot ROM: " HP_ROM_TEXT " -> none");
	expect_boots(c, STOCK_PSID, 42, 5000, G_A, M_A);
	expect_rom(c, NULL, 0);
	char rec[PENDING_PATH_MAX];
	record_rom(r, rec, sizeof(rec)); /* the job record keeps the choice for a resumed write */
	assert_string_equal(rec, "none");
	free(rom);
}

/* A cross-flash a power cut interrupted after the user chose "no boot ROM": finishing it
 * takes that choice from the job record and does not ask again. */
static void test_pending_rom_choice_not_asked_again(void **state)
{
	struct rig *r = *state;
	uint8_t *rom;
	size_t len;
	char stock[256];
	struct cxsim_card *c = hp_rom_card(r, &rom, &len, stock, sizeof(stock));

	pend(r, "crossflash", G_A, stock, true, "card");
	set_record_rom(r, "none");
	expect_rc(r, run(r, "y\nFLASH\n\n\n"), CX_OK);
	expect_said(r, "was INTERRUPTED");
	expect_not_said(r, "Boot ROM of the new firmware?");
	expect_said(r, "boot ROM: " HP_ROM_TEXT " -> none");
	expect_boots(c, STOCK_PSID, 42, 5000, G_A, M_A);
	expect_rom(c, NULL, 0);
	free(rom);
}

/* The record's ROM file changed since the write began: refused, nothing written. */
static void test_pending_rom_file_changed(void **state)
{
	struct rig *r = *state;
	uint8_t *rom;
	size_t len, n;
	char stock[256], path[300], rec[PENDING_PATH_MAX];
	struct cxsim_card *c = hp_rom_card(r, &rom, &len, stock, sizeof(stock));
	uint8_t *before = flash_copy(c, &n);

	snprintf(path, sizeof(path), "%s/other.rom", r->data);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(rom, 1, len, f), len);
	fclose(f);
	pend(r, "crossflash", G_A, stock, true, "card");
	snprintf(rec, sizeof(rec), PENDING_ROM_FILE "%064d:%s", 0, path);
	set_record_rom(r, rec);
	cxsim_counters_reset(c);
	int rc = run(r, "y\nFLASH\n\n");
	assert_int_not_equal(rc, CX_OK);
	expect_said(r, "is not the one the interrupted write took");
	expect_untouched(c, before, n);
	free(before);
	free(rom);
}

/* The same ROM on both sides: no question. */
static void test_same_rom_no_question(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = add_card(r, OLD_STOCK_OPTS, 0x15b3, 0x0022, G_B, M_B);
	size_t len;

	add_image(r, "stock.bin", STOCK_IMAGE, NULL, 0);
	uint8_t *rom = card_rom(c, &len);
	expect_rc(r, run(r, "2\nFLASH\n\n"), CX_OK);
	expect_not_said(r, "Boot ROM of the new firmware?");
	expect_said(r, "boot ROM: PXE 3.4.752 -> PXE 3.4.752 (the image's)");
	expect_boots(c, STOCK_PSID, 42, 5000, G_B, M_B);
	free(rom);
}

/* Unattended: no rom= keeps the card's UEFI ROM; the report says the ROM before and after. */
static void test_job_crossflash_rom_default_and_none(void **state)
{
	struct rig *r = *state;
	uint8_t *rom;
	size_t len;
	struct cxsim_card *c = hp_rom_card(r, &rom, &len, NULL, 0);

	r->o.job = JOB_CROSSFLASH;
	r->o.yes = true;
	expect_rc(r, run(r, ""), CX_OK);
	expect_said(r, "boot ROM: " HP_ROM_TEXT " -> " HP_ROM_TEXT " (the card's)");
	expect_boots(c, STOCK_PSID, 42, 5000, G_A, M_A);
	expect_rom(c, rom, len);
	char *rep = report_text(r);
	expect_card_result(rep, "0000:01:00.0", "ok");
	assert_non_null(strstr(rep, "\"rom_before\":\"" HP_ROM_TEXT "\",\"rom_after\":\"" HP_ROM_TEXT "\""));
	free(rep);
	free(rom);
}

static void test_job_rom_none(void **state)
{
	struct rig *r = *state;
	uint8_t *rom;
	size_t len;
	struct cxsim_card *c = hp_rom_card(r, &rom, &len, NULL, 0);

	r->o.job = JOB_CROSSFLASH;
	r->o.yes = true;
	r->o.rom = "none";
	expect_rc(r, run(r, ""), CX_OK);
	expect_said(r, "boot ROM: " HP_ROM_TEXT " -> none");
	expect_boots(c, STOCK_PSID, 42, 5000, G_A, M_A);
	expect_rom(c, NULL, 0);
	char *rep = report_text(r);
	assert_non_null(strstr(rep, "\"rom_before\":\"" HP_ROM_TEXT "\",\"rom_after\":\"none\""));
	free(rep);
	free(rom);
}

/* rom=FILE: a ROM file in the data folder's firmware/ (the stick's, or a PXE server's). */
static void test_job_rom_file(void **state)
{
	struct rig *r = *state;
	uint8_t *rom, *want;
	size_t len, want_len;
	char dir[256], path[300], cmd[700];
	struct cx_status st = {0};
	struct cxsim_card *c = hp_rom_card(r, &rom, &len, NULL, 0);

	snprintf(dir, sizeof(dir), "%s/firmware", r->data);
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(path, sizeof(path), "%s/uefi.rom", dir);
	snprintf(cmd, sizeof(cmd), "%s/host/mkfs2 --rom-only %s --chip cx3 --roms uefi:14.11.50", build_dir(), path);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(file_read(path, 1u << 20, &want, &want_len, &st), CX_OK);
	r->o.job = JOB_CROSSFLASH;
	r->o.yes = true;
	r->o.rom = "uefi.rom";
	expect_rc(r, run(r, ""), CX_OK);
	expect_said(r, "boot ROM: " HP_ROM_TEXT " -> UEFI 14.11.50 (the file uefi.rom)");
	expect_boots(c, STOCK_PSID, 42, 5000, G_A, M_A);
	expect_rom(c, want, want_len);
	char rec[PENDING_PATH_MAX], hex[SHA256_HEX_LEN + 1], want_rec[PENDING_PATH_MAX];
	uint8_t d[SHA256_LEN];
	sha256(want, want_len, d);
	snprintf(want_rec, sizeof(want_rec), PENDING_ROM_FILE "%s:%s", sha256_hex(d, hex), path);
	record_rom(r, rec, sizeof(rec));
	assert_string_equal(rec, want_rec);

	/* A file that is not there: that card refused, nothing written. */
	uint8_t *before = flash_copy(c, &len);
	cxsim_counters_reset(c);
	add_image(r, "stock2.bin", "--chip cx3 --fw 2.42.5100 " SMALL LIB_FLASH, NULL, 0);
	r->o.rom = "missing.rom";
	expect_rc(r, run(r, ""), CX_EDECLINED);
	expect_said(r, "missing.rom");
	expect_untouched(c, before, len);
	free(before);
	free(want);
	free(rom);
}

/* The menu's "Boot ROM: remove or replace": remove, then put HP's ROMs back from the library. */
static void test_menu_boot_rom_remove_and_replace(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = add_card(r, OLD_STOCK_OPTS, 0x15b3, 0x0022, G_B, M_B);
	char hp[256];
	size_t n, len;

	add_image(r, "hp.bin", HP_OPTS HP_ROMS, hp, sizeof(hp));
	uint8_t *orig = flash_copy(c, &n), *hp_rom = file_rom(hp, &len);
	cxsim_counters_reset(c);

	/* 7 boot ROM, the word declined: nothing written. */
	expect_rc(r, run(r, "7\n1\nno\n"), CX_EDECLINED);
	expect_said(r, "Card 0000:01:00.0 (" STOCK_PSID ", FW 2.40.5030) boot ROM: PXE 3.4.752");
	expect_said(r, "  1. Remove it: no boot ROM");
	expect_said(r, "  2. " HP_ROM_TEXT "  (1, library " HP_PSID ", hp.bin)");
	expect_said(r, "  3. CLP 8025 alone  (1.1, library");
	expect_said(r, "  4. UEFI 14.11.49 alone  (1.2, library");
	expect_untouched(c, orig, n);

	/* 7 boot ROM, 1 remove, the word, Enter: power off. */
	expect_rc(r, run(r, "7\n1\nFLASH\n\n"), CX_OK);
	expect_said(r, "boot ROM: PXE 3.4.752 -> none");
	expect_said(r, "The firmware, GUIDs, MACs and VSD stay as they are.");
	expect_said(r, "OK: boot ROM: PXE 3.4.752 -> none, written and verified");
	expect_boots(c, STOCK_PSID, 40, 5030, G_B, M_B);
	expect_rom(c, NULL, 0);
	expect_history(r, 1, "\"action\":\"boot-rom\"", "\"result\":\"ok\"", NULL);

	/* 7 boot ROM, 1: HP's whole set (no Remove row now), the word. */
	expect_rc(r, run(r, "7\n1\nFLASH\n\n"), CX_OK);
	expect_said(r, "boot ROM: none -> " HP_ROM_TEXT);
	expect_boots(c, STOCK_PSID, 40, 5030, G_B, M_B);
	expect_rom(c, hp_rom, len);
	free(orig);
	free(hp_rom);
}

/* ---- 10. job=verify after the cold restart ------------------------------------------- */

/* The reports of the session before: report_text() reads the one of the next session. */
static void clear_reports(const struct rig *r)
{
	char dir[256], path[600];
	struct dirent *de;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/reports", r->data);
	assert_non_null(d = opendir(dir));
	while ((de = readdir(d)))
		if (de->d_name[0] != '.') {
			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			assert_int_equal(unlink(path), 0);
		}
	closedir(d);
}

#define EXPECT_BOTH "0002c90300c0ffe0:" STOCK_PSID ":2.42.5000:2.40.5030,0002c90300b0bbb0:" STOCK_PSID ":2.42.5000:2.40.5030"

/* Both cards cross-flashed; verify before a cold restart says the old firmware runs (not
 * cold), after it says ok; nothing is ever written by verify. */
static void test_job_verify_cold_restart(void **state)
{
	struct rig *r = *state;
	uint8_t *hp;
	size_t n, m;
	char val[200];

	two_cards(r, &hp, &n);
	r->o.job = JOB_CROSSFLASH;
	r->o.allow_risky = true;
	expect_rc(r, run(r, ""), CX_OK);
	clear_reports(r);
	uint8_t *written = flash_copy(r->cards[0], &m);
	for (int i = 0; i < r->ncards; i++)
		cxsim_counters_reset(r->cards[i]);

	r->o.job = JOB_VERIFY;
	r->o.yes = false;
	r->o.allow_risky = false;
	r->o.exit_after_job = true;
	r->o.expect = EXPECT_BOTH;
	int rc = run(r, ""); /* a warm reboot: the cards still run 2.40.5030 */
	expect_rc(r, rc, CX_EDECLINED);
	expect_said(r, "card 0000:01:00.0: failed: running the old firmware 2.40.5030, not the 2.42.5000 on its "
		    "flash: the restart was not cold");
	expect_said(r, "card 0000:02:00.0: failed: running the old firmware 2.40.5030");
	char *rep = report_text(r);
	report_value(rep, NULL, "job", val, sizeof(val));
	assert_string_equal(val, "verify");
	expect_card_result(rep, "0000:01:00.0", "failed");
	report_value(rep, "\"bdf\":\"0000:01:00.0\"", "running", val, sizeof(val));
	assert_string_equal(val, "2.40.5030");
	free(rep);
	for (int i = 0; i < r->ncards; i++)
		assert_int_equal(cxsim_counters(r->cards[i])->bytes_programmed, 0);

	clear_reports(r);
	for (int i = 0; i < r->ncards; i++)
		cxsim_power_cycle(r->cards[i]);
	rc = run(r, "");
	expect_rc(r, rc, CX_OK);
	expect_said(r, "card 0000:01:00.0: ok: running FW 2.42.5000, the one written (" STOCK_PSID ")");
	expect_said(r, "card 0000:02:00.0: ok: running FW 2.42.5000");
	expect_said(r, "The job is done.");
	rep = report_text(r);
	expect_card_result(rep, "0000:01:00.0", "ok");
	expect_card_result(rep, "0000:02:00.0", "ok");
	report_value(rep, "\"bdf\":\"0000:02:00.0\"", "running", val, sizeof(val));
	assert_string_equal(val, "2.42.5000");
	report_value(rep, "\"bdf\":\"0000:02:00.0\"", "psid", val, sizeof(val)); /* the card's, then to's */
	assert_string_equal(val, STOCK_PSID);
	assert_non_null(strstr(rep, "\"to\":{\"file\":null,\"sha256\":null,\"psid\":\"" STOCK_PSID "\",\"fw\":\"2.42.5000\"}"));
	assert_non_null(strstr(rep, "\"result\":\"ok\",\"log\""));
	free(rep);
	expect_untouched(r->cards[0], written, m);
	free(written);
	free(hp);
}

/* A verify report contradicting the write report: the flash is not what was written; a card
 * the write did not name is nothing-to-do; a bad expect= checks nothing and reports nothing. */
static void test_job_verify_contradiction_and_bad_expect(void **state)
{
	struct rig *r = *state;
	uint8_t *hp;
	size_t n;
	char dir[256];

	two_cards(r, &hp, &n);
	r->o.job = JOB_VERIFY;
	r->o.yes = false;
	r->o.exit_after_job = true;
	r->o.expect = "0002c90300b0bbb0:" STOCK_PSID ":2.42.5000:2.40.5030"; /* card 2, never written */
	int rc = run(r, "");
	expect_rc(r, rc, CX_EDECLINED);
	expect_said(r, "card 0000:01:00.0: nothing-to-do: not written by the last job");
	expect_said(r, "card 0000:02:00.0: failed: the flash holds " STOCK_PSID " 2.40.5030, not the " STOCK_PSID
		    " 2.42.5000 the write report says was written");
	char *rep = report_text(r);
	expect_card_result(rep, "0000:01:00.0", "nothing-to-do");
	expect_card_result(rep, "0000:02:00.0", "failed");
	free(rep);
	clear_reports(r);
	expect_untouched(r->cards[0], hp, n);

	static const char *const bad[] = {
		"0002c90300b0bbb0:" STOCK_PSID ":2.42.5000",          /* no OLD */
		"2c90300b0bbb0:" STOCK_PSID ":2.42.5000:-",           /* a short GUID */
		"0002c90300b0bbb0:" STOCK_PSID ":2.42:-",             /* not a FW version */
		"0002c90300b0bbb0:HP_0280210019_TOO_LONG:2.42.5000:-", /* a PSID of 22 letters */
		"0002c90300b0bbb0:A:2.42.5000:-,0002c90300b0bbb0:A:2.42.5000:-",
	};
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		r->o.expect = bad[k];
		rc = run(r, "");
		expect_rc(r, rc, CX_EVALUE);
		expect_said(r, "nothing checked");
		snprintf(dir, sizeof(dir), "%s/reports", r->data);
		DIR *d = opendir(dir);
		assert_non_null(d);
		int files = 0;
		for (struct dirent *de; (de = readdir(d));)
			files += de->d_name[0] != '.';
		closedir(d);
		assert_int_equal(files, 0);
	}
	free(hp);
}

/* ---- the card's settings (rescue/flow_settings.c) ------------------------------------ */

/* The next-boot value of name the card's settings store holds; false when it holds none. */
static bool stored(struct cxsim_card *c, const char *name, uint32_t *v)
{
	struct cxsim_setting s[64];
	size_t n = cxsim_nv_settings(c, s, 64);

	for (size_t i = 0; i < n && i < 64; i++)
		if (!strcmp(s[i].name, name)) {
			*v = s[i].value;
			return true;
		}
	return false;
}

static uint64_t nv_writes(struct cxsim_card *c)
{
	return cxsim_counters(c)->nv_write_cmds;
}

/* After a cross-flash the user watched, the port type and SR-IOV screen shows the next-boot
 * values; Enter keeps them and nothing is sent that writes. An update shows no such screen,
 * nor does an unattended cross-flash. */
static void test_settings_screen_keeps_by_default(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_card(r);
	struct cxsim_card *old = add_card(r, OLD_STOCK_OPTS, 0x15b3, 0x0022, G_B, M_B);

	add_image(r, "stock.bin", STOCK_IMAGE, NULL, 0);
	/* 2 update, card 1 (HP: a cross-flash), the word, Enter: keep, Enter: power off. */
	expect_rc(r, run(r, "2\n1\nFLASH\n\n\n"), CX_OK);
	size_t screen = said_at(r, "== Port type and SR-IOV: card 0000:01:00.0 ==\n"
				   "What the card will boot with (Enter keeps it):\n"
				   "  1. keep these settings\n  2. LINK_TYPE_P1: VPI(3)\n  3. LINK_TYPE_P2: VPI(3)\n"
				   "  4. SRIOV_EN: False(0)\n  5. NUM_OF_VFS: 8\nChoose 1-5 [1]: ");
	assert_true(said_at(r, "OK: FW 2.40.5030 -> 2.42.5000") < screen);
	assert_true(screen < said_at(r, "Power off for a cold restart"));
	expect_said(r, "card 0000:01:00.0: settings kept, nothing written");
	expect_boots(c, STOCK_PSID, 42, 5000, G_A, M_A);
	assert_int_equal(nv_writes(c), 0);
	assert_int_equal(cxsim_nv_count(c), 0);
	expect_history(r, 0, "\"action\":\"settings\"", NULL, NULL);

	/* An update (same PSID) of the other card: no screen. */
	expect_rc(r, run(r, "2\n2\nFLASH\n\n"), CX_OK);
	expect_said(r, "== update: card 0000:02:00.0");
	expect_not_said(r, "Port type and SR-IOV");
	expect_boots(old, STOCK_PSID, 42, 5000, G_B, M_B);
	assert_int_equal(nv_writes(old), 0);
}

/* A change on the screen writes exactly the chosen setting: one record, its other fields at
 * their defaults, the port's other record untouched; the history has it before and after,
 * and the value survives the cold restart. */
static void test_settings_screen_writes_the_choice(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_card(r);
	uint32_t v;

	add_image(r, "stock.bin", STOCK_IMAGE, NULL, 0);
	/* 2 update, the word, 2 LINK_TYPE_P1, 2 ETH, 1 write, the word, Enter: power off. */
	expect_rc(r, run(r, "2\nFLASH\n2\n2\n1\nFLASH\n\n"), CX_OK);
	expect_said(r, "LINK_TYPE_P1:\n  1. IB(1)\n  2. ETH(2)\n  3. VPI(3)\nChoose 1-3 [3]: ");
	expect_said(r, "  1. write these changes\n  2. LINK_TYPE_P1: VPI(3) -> ETH(2)\n  3. LINK_TYPE_P2: VPI(3)\n");
	expect_said(r, "== settings: card 0000:01:00.0 ==\n  LINK_TYPE_P1             VPI(3) -> ETH(2)\n");
	expect_said(r, "card 0000:01:00.0: OK: LINK_TYPE_P1 VPI(3) -> ETH(2). The new values take effect at the next "
		       "cold boot");
	expect_said(r, "Power off for a cold restart");
	expect_not_said(r, "FAILED");
	assert_int_equal(nv_writes(c), 1);
	assert_int_equal(cxsim_nv_count(c), 1);
	assert_true(stored(c, "LINK_TYPE_P1", &v));
	assert_int_equal(v, 2);
	assert_true(stored(c, "PHY_TYPE_P1", &v));
	assert_int_equal(v, 2);             /* the profile's default, as mstconfig writes it */
	assert_false(stored(c, "LINK_TYPE_P2", &v));
	expect_history(r, 1, "\"action\":\"settings\"", "\"result\":\"ok\"",
		       "\"message\":\"LINK_TYPE_P1 VPI(3) -> ETH(2)\"");
	expect_history(r, 1, "\"action\":\"settings\"", "\"node_guid\":\"0002c90300c0ffe0\"", NULL);
	expect_boots(c, STOCK_PSID, 42, 5000, G_A, M_A);
	assert_true(stored(c, "LINK_TYPE_P1", &v)); /* kept with the card over the power cycle */
	assert_int_equal(v, 2);
}

/* What the screen cannot do is one line, nothing is sent that writes, and the wizard goes
 * on to the power-off screen: firmware not started (and how: the installed system), too many
 * VFs on a one-port card (no LINK_TYPE_P2 row), and a wrong word. */
static void test_settings_screen_refusals(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *a = hp_card(r);
	struct cxsim_card *b = add_card(r, HP_OPTS, HP_SUBSYS_VENDOR, HP_SUBSYS_DEVICE, G_B, M_B);

	add_image(r, "stock.bin", STOCK_IMAGE, NULL, 0);
	cxsim_params_mut(a)->hcr_fault = CXSIM_HCR_NOT_STARTED;
	expect_rc(r, run(r, "2\n1\nFLASH\n\n"), CX_OK);
	expect_said(r, "Port type and SR-IOV: 0000:01:00.0: the card's firmware is not started (tools interface "
		       "status 4)");
	expect_said(r, "with mlx4_core loaded (the stick carries it as cxrescue/bin/cxflash) (README: \"Using cxflash "
		       "on your installed system\")\n");
	expect_not_said(r, "== Port type and SR-IOV");
	expect_said(r, "Powering off.");
	expect_boots(a, STOCK_PSID, 42, 5000, G_A, M_A);
	assert_int_equal(nv_writes(a), 0);

	cxsim_params_mut(b)->tools.ports = 1;
	/* 2 update, card 2, the word, 3 SRIOV_EN, 2 True, 4 NUM_OF_VFS, 200, 1 write; Enter: power off. */
	expect_rc(r, run(r, "2\n2\nFLASH\n3\n2\n4\n200\n1\n\n"), CX_OK);
	expect_said(r, "  1. keep these settings\n  2. LINK_TYPE_P1: VPI(3)\n  3. SRIOV_EN: False(0)\n"
		       "  4. NUM_OF_VFS: 8\nChoose 1-4 [1]: ");
	expect_said(r, "NUM_OF_VFS, a number (Enter keeps 8): ");
	expect_said(r, "  3. SRIOV_EN: False(0) -> True(1)\n  4. NUM_OF_VFS: 8 -> 200\n");
	expect_said(r, "Port type and SR-IOV: NUM_OF_VFS=200: this card has at most 127 VFs\n");
	expect_said(r, "Powering off.");
	assert_int_equal(nv_writes(b), 0);
	expect_history(r, 0, "\"action\":\"settings\"", NULL, NULL);
}

/* The typed word is the consent: anything else writes nothing, and the history says so. */
static void test_settings_screen_declined(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_card(r);

	add_image(r, "stock.bin", STOCK_IMAGE, NULL, 0);
	expect_rc(r, run(r, "2\nFLASH\n4\n2\n1\nflash\n\n"), CX_OK);
	expect_said(r, "  SRIOV_EN                 False(0) -> True(1)\n");
	expect_said(r, "Port type and SR-IOV: cancelled: nothing written");
	expect_said(r, "Powering off.");
	assert_int_equal(nv_writes(c), 0);
	expect_history(r, 1, "\"action\":\"settings\"", "\"result\":\"declined\"", NULL);
}

/* The menu's "Card settings": the table with the defaults where they differ; one NAME=VALUE,
 * checked as `config set` checks it (unknown name, too many VFs: one line, nothing sent);
 * a card without a bundle on the stick is backed up first; reset puts every default back. */
static void test_card_settings_menu(void **state)
{
	struct rig *r = *state;
	struct cxsim_card *c = hp_card(r);
	uint32_t v;

	expect_rc(r, run(r, "8\n1\nLINK_TYPE_P2=eth\nFLASH\n"), CX_EDECLINED);
	expect_said(r, "  8. Card settings: port type, SR-IOV, boot options (next boot)\n");
	expect_said(r, "== Card settings: card 0000:01:00.0 (ConnectX-3 A1), for its next boot ==\n"
		       "  SRIOV_EN                 False(0)\n  NUM_OF_VFS               8\n");
	expect_said(r, "  LINK_TYPE_P2             VPI(3)\n");
	expect_said(r, "  1. change one setting (NAME=VALUE)\n  2. reset every setting to its default\n"
		       "  3. back to the menu\nChoose 1-3 [3]: ");
	expect_said(r, "Backing up 0000:01:00.0 (before changing its settings)");
	expect_said(r, "backup written: cx3-" HP_PSID "-0002c90300c0ffe0-");
	expect_said(r, "card 0000:01:00.0: OK: LINK_TYPE_P2 VPI(3) -> ETH(2).");
	expect_not_said(r, "Power off for a cold restart"); /* no firmware written */
	assert_int_equal(nv_writes(c), 1);
	assert_true(stored(c, "LINK_TYPE_P2", &v));
	assert_int_equal(v, 2);
	assert_false(stored(c, "LINK_TYPE_P1", &v));
	assert_int_equal(bundles(r, NULL, 0, &(int){0}), 1);

	/* Refused before anything is sent; the table shows the stored value and its default. */
	cxsim_counters_reset(c);
	expect_rc(r, run(r, "8\n1\nFOO=1\n8\n1\nNUM_OF_VFS=999\n8\n1\nLINK_TYPE_P2\n"), CX_EDECLINED);
	expect_said(r, "  LINK_TYPE_P2             ETH(2)  (default VPI(3))\n");
	expect_said(r, "unknown setting FOO ('cxflash -d BDF config q' lists this card's); nothing written\n");
	expect_said(r, "NUM_OF_VFS=999: this card has at most 127 VFs; nothing written\n");
	expect_said(r, "'LINK_TYPE_P2': a setting is NAME=VALUE (LINK_TYPE_P1=ETH); nothing written\n");
	expect_not_said(r, "FAILED");
	assert_int_equal(nv_writes(c), 0);

	/* Reset: every default back, the bundle on the stick is enough (no second backup). */
	expect_rc(r, run(r, "8\n2\nFLASH\n"), CX_EDECLINED);
	expect_said(r, "== settings: card 0000:01:00.0 ==\n  LINK_TYPE_P2             ETH(2) -> VPI(3)\n");
	expect_said(r, "card 0000:01:00.0: OK: LINK_TYPE_P2 ETH(2) -> VPI(3).");
	assert_int_equal(nv_writes(c), 1);
	assert_int_equal(cxsim_nv_count(c), 0);
	assert_int_equal(bundles(r, NULL, 0, &(int){0}), 1);
	expect_history(r, 2, "\"action\":\"settings\"", "\"result\":\"ok\"", NULL);
	expect_history(r, 1, "\"action\":\"settings\"", "\"message\":\"LINK_TYPE_P2 ETH(2) -> VPI(3)\"", NULL);
}

/* A ConnectX-2 and a card in recovery mode: the reason in one line, no tools command sent. */
static void test_card_settings_refused(void **state)
{
	struct rig *r = *state;
	struct cxsim_params p;

	cxsim_params_default(&p, CXSIM_CX2);
	struct cxsim_card *c2 = cxsim_new(&p);
	assert_non_null(c2);
	card_install(c2, "--chip cx2 --old-guids --guid 0002c90300c0ffe0 " SMALL, 0);
	r->cards[r->ncards++] = c2;
	struct cxsim_card *dead = hp_card(r);
	brick(dead);
	cxsim_counters_reset(c2);
	cxsim_counters_reset(dead);
	expect_rc(r, run(r, "8\n1\n8\n2\n"), CX_EDECLINED);
	expect_said(r, "0000:01:00.0: a ConnectX-2 has no settings store (\"ConnectX-2 is not supported under "
		       "mstconfig\")");
	expect_said(r, "0000:02:00.0: the card is in flash-recovery mode: no firmware runs to keep its settings; "
		       "burn an image first; nothing written\n");
	expect_not_said(r, "FAILED");
	assert_int_equal(cxsim_counters(c2)->tools_cmds, 0);
	assert_int_equal(cxsim_counters(dead)->tools_cmds, 0);
	expect_history(r, 0, "\"action\":\"settings\"", NULL, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_crossflash_keeps_uefi_rom, setup, teardown),
		cmocka_unit_test_setup_teardown(test_crossflash_rom_image_or_none, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pending_rom_choice_not_asked_again, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pending_rom_file_changed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_crossflash_rom_none, setup, teardown),
		cmocka_unit_test_setup_teardown(test_same_rom_no_question, setup, teardown),
		cmocka_unit_test_setup_teardown(test_settings_screen_keeps_by_default, setup, teardown),
		cmocka_unit_test_setup_teardown(test_settings_screen_writes_the_choice, setup, teardown),
		cmocka_unit_test_setup_teardown(test_settings_screen_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_settings_screen_declined, setup, teardown),
		cmocka_unit_test_setup_teardown(test_card_settings_menu, setup, teardown),
		cmocka_unit_test_setup_teardown(test_card_settings_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_job_crossflash_rom_default_and_none, setup, teardown),
		cmocka_unit_test_setup_teardown(test_job_rom_none, setup, teardown),
		cmocka_unit_test_setup_teardown(test_job_rom_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_menu_boot_rom_remove_and_replace, setup, teardown),
		cmocka_unit_test_setup_teardown(test_backup_then_crossflash, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wrong_word_writes_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_probe_finding_before_the_word, setup, teardown),
		cmocka_unit_test_setup_teardown(test_probe_quiet_on_a_healthy_card, setup, teardown),
		cmocka_unit_test_setup_teardown(test_burn_file_lists_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unbrick_from_backup, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unbrick_image_with_bundle_identity, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unbrick_keeps_the_damaged_flash_guids, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unbrick_erased_flash_offers_no_kept_guids, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unbrick_from_sticker, setup, teardown),
		cmocka_unit_test_setup_teardown(test_job_risky_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_job_risky_allowed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_job_update, setup, teardown),
		cmocka_unit_test_setup_teardown(test_job_needs_yes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_job_refuses_recovery_card, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pending_finished, setup, teardown),
		cmocka_unit_test_setup_teardown(test_signal_during_a_write_leaves_its_history, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pending_sticker_unbrick, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pending_damaged_image_unbrick, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pending_bundle_identity_unbrick, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pending_restore, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lock_held_elsewhere, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unbrick_skips_empty_bundles, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_backup_no_write, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pending_declined, setup, teardown),
		cmocka_unit_test_setup_teardown(test_set_ids, setup, teardown),
		cmocka_unit_test_setup_teardown(test_set_ids_on_blank_guids, setup, teardown),
		cmocka_unit_test_setup_teardown(test_set_ids_on_four_guid_image, setup, teardown),
		cmocka_unit_test_setup_teardown(test_placeholder_identity_offers_set_ids, setup, teardown),
		cmocka_unit_test_setup_teardown(test_placeholder_identity_from_a_backup, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_reuses_an_identical_backup, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_backs_up_a_changed_flash, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_backs_up_over_a_damaged_bundle, setup, teardown),
		cmocka_unit_test_setup_teardown(test_burn_file_on_recovery_card, setup, teardown),
		cmocka_unit_test_setup_teardown(test_chunk_size_mismatch_never_offered, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_library, setup, teardown),
		cmocka_unit_test_setup_teardown(test_damaged_backup_not_offered, setup, teardown),
		cmocka_unit_test_setup_teardown(test_menu_power_off, setup, teardown),
		cmocka_unit_test_setup_teardown(test_two_cards_interactive, setup, teardown),
		cmocka_unit_test_setup_teardown(test_restore_after_crossflash, setup, teardown),
		cmocka_unit_test_setup_teardown(test_job_backup_one_card, setup, teardown),
		cmocka_unit_test_setup_teardown(test_job_inventory, setup, teardown),
		cmocka_unit_test_setup_teardown(test_menu_with_shell, setup, teardown),
		cmocka_unit_test_setup_teardown(test_job_restore_unbricks_recovery_card, setup, teardown),
		cmocka_unit_test_setup_teardown(test_job_restore_by_node_guid_after_exit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_job_restore_two_candidates_need_card, setup, teardown),
		cmocka_unit_test_setup_teardown(test_job_restore_no_card_fits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_job_restore_needs_yes_and_an_image, setup, teardown),
		cmocka_unit_test_setup_teardown(test_job_restore_other_questions_refuse, setup, teardown),
		cmocka_unit_test_setup_teardown(test_upload_failed_restore_writes_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_upload_missing_command_refuses_burn, setup, teardown),
		cmocka_unit_test_setup_teardown(test_upload_before_burn, setup, teardown),
		cmocka_unit_test_setup_teardown(test_upload_optional_goes_on, setup, teardown),
		cmocka_unit_test_setup_teardown(test_upload_failed_menu_write, setup, teardown),
		cmocka_unit_test_setup_teardown(test_upload_failed_backup_job_after_exit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_after_exit_lock_busy, setup, teardown),
		cmocka_unit_test_setup_teardown(test_upload_signals_not_blocked, setup, teardown),
		cmocka_unit_test_setup_teardown(test_job_verify_cold_restart, setup, teardown),
		cmocka_unit_test_setup_teardown(test_job_verify_contradiction_and_bad_expect, setup, teardown),
		cmocka_unit_test_setup_teardown(test_job_settings_after_crossflash, setup, teardown),
		cmocka_unit_test_setup_teardown(test_job_settings_unknown_name, setup, teardown),
		cmocka_unit_test_setup_teardown(test_job_settings_bad_value, setup, teardown),
		cmocka_unit_test_setup_teardown(test_job_settings_port_a_card_lacks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_job_settings_firmware_not_started, setup, teardown),
		cmocka_unit_test_setup_teardown(test_job_settings_alone, setup, teardown),
		cmocka_unit_test_setup_teardown(test_job_settings_connectx2, setup, teardown),
	};
	if (getenv("TEST_FILTER")) /* e.g. TEST_FILTER='*rom*': the tests whose names match */
		cmocka_set_test_filter(getenv("TEST_FILTER"));
	return cmocka_run_group_tests(tests, NULL, NULL);
}
