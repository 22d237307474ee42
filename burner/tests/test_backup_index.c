/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_backup_index.c — rescue/backup_index on real bundles: hand-made ones in
 * ops/backup.c's exact format (several cards, two bundles of one card, a
 * blank-GUID card, a recovery-mode card, the same GUID in another family,
 * damaged bundles kept with their reason and never offered, an unfinished
 * ".cxflash-backup-" folder, files and links that are not bundles), bundles
 * that backup_card() makes from the card model, a missing folder, names taken
 * in the same second, adding one bundle, and the bound on the count. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ops/backup.h"
#include "rescue/backup_index.h"
#include "card_fixture.h"
#include "sim_cfg.h"
#include "scratch.h"
#include "util/json.h"

#define CX3 "ConnectX-3"
#define CX3PRO "ConnectX-3 Pro"
#define GA 0x0002c90300c0ffe0ull
#define GB 0x0002c90300b0bbb0ull
#define GNONE 0x0002c90300dddd00ull /* a card with no bundle */

/* ---- hand-made bundles ---- */

struct spec {
	const char *name;     /* the folder */
	const char *family;
	const char *date;
	const char *psid;     /* NULL: no image (a recovery-mode card) */
	uint64_t guid;        /* node GUID; the ports follow it */
};

static void hex_of(const void *buf, size_t len, char hex[SHA256_HEX_LEN + 1])
{
	uint8_t d[SHA256_LEN];

	sha256(buf, len, d);
	sha256_hex(d, hex);
}

/* identity.json as ops/backup.c's identity_json() writes it. */
static char *identity_text(const struct spec *s, const char *flash_hex, size_t *len)
{
	char *text = NULL;
	char chip[48];
	struct json j;
	FILE *out = open_memstream(&text, len);

	assert_non_null(out);
	snprintf(chip, sizeof(chip), "%s A%d", s->family, strcmp(s->family, CX3) ? 0 : 1);
	json_begin(&j, out);
	json_str(&j, "format", BACKUP_FORMAT);
	json_str(&j, "date", s->date);
	json_str(&j, "cxflash_version", "0.1.0");
	json_str(&j, "bdf", "0000:01:00.0");
	json_str(&j, "family", s->family);
	json_str(&j, "chip", chip);
	json_int(&j, "revision", strcmp(s->family, CX3) ? 0 : 1);
	json_hex(&j, "pci_device", s->psid ? 0x1003 : 0x1006, 4);
	json_hex(&j, "subsys_vendor", 0x15b3, 4);
	json_hex(&j, "subsys_device", 0x0050, 4);
	json_bool(&j, "recovery", !s->psid);
	json_str(&j, "flash", "W25QxxBV, 4 KiB (JEDEC ef 40 14)");
	json_int(&j, "flash_size", 4096);
	json_str(&j, "flash_sha256", flash_hex);
	if (s->psid) {
		json_int(&j, "image_start", 0);
		json_int(&j, "image_slot", 0);
		json_bool(&j, "image_failsafe", true);
		json_int(&j, "image_size", 2048);
		json_str(&j, "image_verdict", "ok");
		json_null(&j, "image_error");
		json_str(&j, "fw_version", "2.42.5000");
		json_str(&j, "psid", s->psid);
		json_str(&j, "vsd", "");
		json_int(&j, "guid_entries", 6);
		json_bool(&j, "guids_blank", s->guid == UINT64_MAX);
		json_obj(&j, "guids");
		json_hex(&j, "node", s->guid, 16);
		json_hex(&j, "port1", s->guid + 1, 16);
		json_hex(&j, "port2", s->guid + 2, 16);
		json_hex(&j, "sys_image", s->guid + 3, 16);
		json_close(&j);
		json_obj(&j, "macs");
		json_hex(&j, "port1", (s->guid & 0xffffff) | 0x0002c9000000ull, 12);
		json_hex(&j, "port2", (s->guid & 0xffffff) | 0x0002c9000001ull, 12);
		json_close(&j);
		json_bool(&j, "macs_derived", false);
		json_obj(&j, "rom");
		json_str(&j, "type", "PXE");
		json_str(&j, "version", "3.4.752");
		json_close(&j);
		json_str(&j, "board_ini", BACKUP_INI);
	} else {
		json_null(&j, "image_start");
		json_null(&j, "image_slot");
		json_null(&j, "image_failsafe");
		json_null(&j, "image_size");
		json_str(&j, "image_verdict", "no-image");
		json_str(&j, "image_error", "no image found at any start position");
		static const char *const none[] = {"fw_version", "psid", "vsd", "guid_entries", "guids_blank",
						   "guids", "macs", "macs_derived", "rom", "board_ini"};
		for (unsigned i = 0; i < sizeof(none) / sizeof(none[0]); i++)
			json_null(&j, none[i]);
	}
	json_null(&j, "board_ini_error");
	json_end(&j);
	assert_int_equal(fclose(out), 0);
	return text;
}

/* dir/s->name: flash.bin (4 KiB, different for each name), identity.json,
 * board.ini when there is an image, SHA256SUMS; backup_verify() accepts it. */
static void make_bundle(const char *dir, const struct spec *s)
{
	char path[2 * BACKUP_PATH_MAX], hex[SHA256_HEX_LEN + 1], sums[1024];
	uint8_t flash[4096];
	size_t ilen;
	static const char INI[] = "[PS_INFO]\nName = MCX354A-FCBT\n";

	snprintf(path, sizeof(path), "%s/%s", dir, s->name);
	assert_int_equal(mkdir(path, 0755), 0);
	for (size_t i = 0; i < sizeof(flash); i++)
		flash[i] = (uint8_t)(i * 7 + (uint8_t)s->name[i % strlen(s->name)]);
	spit(path, BACKUP_FLASH, flash, sizeof(flash));
	hex_of(flash, sizeof(flash), hex);
	int k = snprintf(sums, sizeof(sums), "%s  %s\n", hex, BACKUP_FLASH);

	char *idj = identity_text(s, hex, &ilen);
	spit(path, BACKUP_IDENTITY, idj, ilen);
	hex_of(idj, ilen, hex);
	free(idj);
	k += snprintf(sums + k, sizeof(sums) - (size_t)k, "%s  %s\n", hex, BACKUP_IDENTITY);
	if (s->psid) {
		spit(path, BACKUP_INI, INI, strlen(INI));
		hex_of(INI, strlen(INI), hex);
		k += snprintf(sums + k, sizeof(sums) - (size_t)k, "%s  %s\n", hex, BACKUP_INI);
	}
	spit(path, BACKUP_SUMS, sums, (size_t)k);

	struct cx_status st = {0};
	if (backup_verify(path, &st))
		fail_msg("hand-made bundle %s: %s", s->name, st.msg);
}

static const struct backup_entry *find(const struct backup_index *ix, const char *name)
{
	for (int i = 0; i < ix->n; i++)
		if (!strcmp(ix->e[i].name, name))
			return &ix->e[i];
	fail_msg("%s is not in the index", name);
	return NULL;
}

/* The names of out[0..n), joined by ' '. */
static const char *names(const struct backup_entry **out, int n)
{
	static char buf[1024];

	buf[0] = '\0';
	for (int i = 0; i < n; i++) {
		size_t l = strlen(buf);
		snprintf(buf + l, sizeof(buf) - l, "%s%s", i ? " " : "", out[i]->name);
	}
	return buf;
}

static const char *index_names(const struct backup_index *ix)
{
	static const struct backup_entry *all[64];

	assert_true(ix->n <= 64);
	for (int i = 0; i < ix->n; i++)
		all[i] = &ix->e[i];
	return names(all, ix->n);
}

/* ---- the stick of a user with a few cards ---- */

static const struct spec STICK[] = {
	{"cx3-HP_0280210019-0002c90300c0ffe0-20261120T080000Z", CX3, "2026-11-20T08:00:00Z", "HP_0280210019", GA},
	{"cx3-MT_1090120019-0002c90300c0ffe0-20261124T104600Z", CX3, "2026-11-24T10:46:00Z", "MT_1090120019", GA},
	{"cx3-MT_1090120019-0002c90300b0bbb0-20261122T120000Z", CX3, "2026-11-22T12:00:00Z", "MT_1090120019", GB},
	/* The same GUID on a card of another family (a copied identity). */
	{"cx3pro-MT_1090111023-0002c90300c0ffe0-20261121T090000Z", CX3PRO, "2026-11-21T09:00:00Z",
	 "MT_1090111023", GA},
	{"cx3-recovery-0000_02_00.0-20261123T070000Z", CX3, "2026-11-23T07:00:00Z", NULL, 0},
	{"cx3pro-recovery-0000_03_00.0-20261119T070000Z", CX3PRO, "2026-11-19T07:00:00Z", NULL, 0},
	{"cx3-MT_1090120019-ffffffffffffffff-20261118T070000Z", CX3, "2026-11-18T07:00:00Z", "MT_1090120019",
	 UINT64_MAX},
	/* Damaged below (flash.bin tampered with): the newest of card A. */
	{"cx3-MT_1090120019-0002c90300c0ffe0-20261125T100000Z", CX3, "2026-11-25T10:00:00Z", "MT_1090120019", GA},
};
#define A_OLD STICK[0].name
#define A_NEW STICK[1].name
#define B STICK[2].name
#define PRO_A STICK[3].name
#define REC STICK[4].name
#define PRO_REC STICK[5].name
#define BLANK STICK[6].name
#define A_BAD STICK[7].name

static void make_stick(char *tmp, size_t n, char *dir, size_t dn)
{
	char path[2 * BACKUP_PATH_MAX];

	scratch_dir(tmp, n, "bindex");
	snprintf(dir, dn, "%s/backups", tmp);
	assert_int_equal(mkdir(dir, 0755), 0);
	for (unsigned i = 0; i < sizeof(STICK) / sizeof(STICK[0]); i++)
		make_bundle(dir, &STICK[i]);
	/* One flipped byte of the newest bundle of card A. */
	snprintf(path, sizeof(path), "%s/%s/%s", dir, A_BAD, BACKUP_FLASH);
	FILE *f = fopen(path, "r+b");
	assert_non_null(f);
	assert_int_equal(fseek(f, 100, SEEK_SET), 0);
	assert_int_equal(fputc(0x5a, f), 0x5a);
	assert_int_equal(fclose(f), 0);

	/* An unfinished backup of card A, newer than all: complete, but hidden. */
	struct spec tmpb = {".cxflash-backup-a1B2c3", CX3, "2026-11-30T00:00:00Z", "MT_1090120019", GA};
	make_bundle(dir, &tmpb);
	/* Not bundles: a file, and a link to a bundle. */
	spit(dir, "README.txt", "mine\n", 5);
	snprintf(path, sizeof(path), "%s/link-to-a", dir);
	assert_int_equal(symlink(A_NEW, path), 0);
}

static void test_a_stick_of_bundles(void **state)
{
	struct backup_index ix;
	struct cx_status st = {0};
	const struct backup_entry *out[16];
	char tmp[64], dir[128];
	(void)state;

	make_stick(tmp, sizeof(tmp), dir, sizeof(dir));
	if (backup_index_scan(&ix, dir, &st))
		fail_msg("backup_index_scan: %s", st.msg);

	/* Every folder but the dot one, newest first; the damaged one kept. */
	char want[1024];
	snprintf(want, sizeof(want), "%s %s %s %s %s %s %s %s", A_BAD, A_NEW, REC, B, PRO_A, A_OLD, PRO_REC, BLANK);
	assert_string_equal(index_names(&ix), want);

	const struct backup_entry *bad = find(&ix, A_BAD);
	assert_int_equal(bad->verify_code, CX_EIMAGE);
	if (!strstr(bad->reason, "flash.bin does not match") || !strstr(bad->reason, A_BAD))
		fail_msg("%s", bad->reason);
	assert_true(bad->have_id); /* whose it was can still be said */
	assert_int_equal(bad->id.guid[0], GA);

	const struct backup_entry *a = find(&ix, A_NEW);
	assert_int_equal(a->verify_code, CX_OK);
	assert_string_equal(a->reason, "");
	assert_true(a->have_id && a->id.have_image);
	assert_string_equal(a->id.psid, "MT_1090120019");
	snprintf(want, sizeof(want), "%s/%s", dir, A_NEW);
	assert_string_equal(a->path, want);
	const struct backup_entry *rec = find(&ix, REC);
	assert_true(rec->verify_code == CX_OK && rec->id.recovery && !rec->id.have_image);

	/* Card A (now cross-flashed: its PSID changed, its GUID did not): its two
	 * sound bundles, newest first; not the damaged one, not the Pro card's. */
	int n = backup_index_for_card(&ix, CX3, "MT_1090120019", GA, out, 16);
	snprintf(want, sizeof(want), "%s %s", A_NEW, A_OLD);
	assert_string_equal(names(out, n), want);
	assert_int_equal(backup_index_for_card(&ix, CX3, NULL, GA, out, 1), 1);
	assert_string_equal(out[0]->name, A_NEW);
	n = backup_index_for_card(&ix, CX3, "MT_1090120019", GB, out, 16);
	assert_string_equal(names(out, n), B);
	n = backup_index_for_card(&ix, CX3PRO, NULL, GA, out, 16);
	assert_string_equal(names(out, n), PRO_A);
	assert_int_equal(backup_index_for_card(&ix, CX3, "MT_1090120019", GNONE, out, 16), 0);
	assert_int_equal(backup_index_for_card(&ix, "ConnectX-2", NULL, GA, out, 16), 0);

	assert_true(backup_index_has(&ix, CX3, GA));
	assert_true(backup_index_has(&ix, CX3, GB));
	assert_true(backup_index_has(&ix, CX3PRO, GA));
	assert_false(backup_index_has(&ix, CX3PRO, GB));
	assert_false(backup_index_has(&ix, CX3, GNONE));
	assert_false(backup_index_has(&ix, "ConnectX-2", GA));
	/* No GUID, or a blank one, is nobody's: the blank-GUID bundle and the
	 * recovery bundles never make such a card "backed up". */
	assert_false(backup_index_has(&ix, CX3, 0));
	assert_false(backup_index_has(&ix, CX3, UINT64_MAX));
	assert_false(backup_index_has(&ix, NULL, GA));
	assert_false(backup_index_has(NULL, CX3, GA));

	/* A recovery-mode card: every sound bundle of its family, newest first. */
	n = backup_index_for_card(&ix, CX3, NULL, 0, out, 16);
	snprintf(want, sizeof(want), "%s %s %s %s %s", A_NEW, REC, B, A_OLD, BLANK);
	assert_string_equal(names(out, n), want);
	n = backup_index_for_card(&ix, CX3PRO, "", 0, out, 16);
	snprintf(want, sizeof(want), "%s %s", PRO_A, PRO_REC);
	assert_string_equal(names(out, n), want);
	assert_int_equal(backup_index_for_card(&ix, CX3, NULL, 0, out, 2), 2);
	/* An image with blank GUIDs: the family's bundles, those of its PSID first. */
	n = backup_index_for_card(&ix, CX3, "HP_0280210019", UINT64_MAX, out, 16);
	snprintf(want, sizeof(want), "%s %s %s %s %s", A_OLD, A_NEW, REC, B, BLANK);
	assert_string_equal(names(out, n), want);
	n = backup_index_for_card(&ix, CX3, "MT_1090120019", 0, out, 16);
	snprintf(want, sizeof(want), "%s %s %s %s %s", A_NEW, B, BLANK, REC, A_OLD);
	assert_string_equal(names(out, n), want);

	/* Nonsense asks for nothing. */
	assert_int_equal(backup_index_for_card(&ix, NULL, NULL, 0, out, 16), 0);
	assert_int_equal(backup_index_for_card(&ix, CX3, NULL, GA, out, 0), 0);
	assert_int_equal(backup_index_for_card(&ix, CX3, NULL, GA, NULL, 16), 0);
	assert_int_equal(backup_index_for_card(NULL, CX3, NULL, GA, out, 16), 0);

	backup_index_free(&ix);
	assert_int_equal(ix.n, 0);
	backup_index_free(&ix);
	rm_rf(tmp);
}

/* Damage of every kind is kept, with its reason, and never offered. */
static void test_damaged_bundles(void **state)
{
	struct backup_index ix;
	struct cx_status st = {0};
	const struct backup_entry *out[16];
	char tmp[64], dir[128], path[2 * BACKUP_PATH_MAX];
	(void)state;

	scratch_dir(tmp, sizeof(tmp), "bindex");
	snprintf(dir, sizeof(dir), "%s/backups", tmp);
	assert_int_equal(mkdir(dir, 0755), 0);
	struct spec s[] = {
		{"no-sums", CX3, "2026-11-20T08:00:00Z", "MT_1090120019", GA},
		{"bad-identity", CX3, "2026-11-21T08:00:00Z", "MT_1090120019", GA},
		{"tampered-ini", CX3, "2026-11-22T08:00:00Z", "MT_1090120019", GA},
		{"good", CX3, "2026-11-19T08:00:00Z", "MT_1090120019", GA},
	};
	for (unsigned i = 0; i < sizeof(s) / sizeof(s[0]); i++)
		make_bundle(dir, &s[i]);
	snprintf(path, sizeof(path), "%s/no-sums/%s", dir, BACKUP_SUMS);
	assert_int_equal(unlink(path), 0);
	snprintf(path, sizeof(path), "%s/bad-identity", dir);
	spit(path, BACKUP_IDENTITY, "{\"format\":", 10);
	snprintf(path, sizeof(path), "%s/tampered-ini", dir);
	spit(path, BACKUP_INI, "[HCA]\n", 6);
	snprintf(path, sizeof(path), "%s/empty", dir);
	assert_int_equal(mkdir(path, 0755), 0);

	assert_int_equal(backup_index_scan(&ix, dir, &st), CX_OK);
	/* By date; those without a readable identity last (by name, last first). */
	assert_string_equal(index_names(&ix), "tampered-ini no-sums good empty bad-identity");
	const struct backup_entry *e = find(&ix, "no-sums");
	assert_int_equal(e->verify_code, CX_EIO);
	assert_non_null(strstr(e->reason, "SHA256SUMS"));
	assert_true(e->have_id);
	e = find(&ix, "bad-identity");
	assert_int_equal(e->verify_code, CX_EIMAGE);
	assert_non_null(strstr(e->reason, "identity.json"));
	assert_false(e->have_id);
	assert_string_equal(e->id.date, "");
	assert_int_equal(e->id.guid[0], 0);
	e = find(&ix, "tampered-ini");
	assert_int_equal(e->verify_code, CX_EIMAGE);
	assert_non_null(strstr(e->reason, "board.ini does not match"));
	e = find(&ix, "empty");
	assert_int_equal(e->verify_code, CX_EIO);
	assert_true(e->reason[0] != '\0');

	assert_int_equal(backup_index_for_card(&ix, CX3, NULL, GA, out, 16), 1);
	assert_string_equal(out[0]->name, "good");
	assert_int_equal(backup_index_for_card(&ix, CX3, NULL, 0, out, 16), 1);
	backup_index_free(&ix);

	/* With the good one gone, the card has no backup. */
	snprintf(path, sizeof(path), "%s/good", dir);
	rm_rf(path);
	assert_int_equal(backup_index_scan(&ix, dir, &st), CX_OK);
	assert_int_equal(ix.n, 4);
	assert_false(backup_index_has(&ix, CX3, GA));
	assert_int_equal(backup_index_for_card(&ix, CX3, NULL, 0, out, 16), 0);
	backup_index_free(&ix);
	rm_rf(tmp);
}

/* Two backups in the same second: "-2" is the later one. Adding a bundle keeps the order. */
static void test_same_second_and_add(void **state)
{
	struct backup_index ix;
	struct cx_status st = {0};
	const struct backup_entry *out[8];
	char tmp[64], dir[128], other[128], path[2 * BACKUP_PATH_MAX];
	(void)state;

	scratch_dir(tmp, sizeof(tmp), "bindex");
	snprintf(dir, sizeof(dir), "%s/backups", tmp);
	snprintf(other, sizeof(other), "%s/elsewhere", tmp);
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(mkdir(other, 0755), 0);
	struct spec s[] = {
		{"cx3-MT_1090120019-0002c90300c0ffe0-20261124T104600Z", CX3, "2026-11-24T10:46:00Z", "MT_1090120019", GA},
		{"cx3-MT_1090120019-0002c90300c0ffe0-20261124T104600Z-2", CX3, "2026-11-24T10:46:00Z", "MT_1090120019", GA},
		{"cx3-MT_1090120019-0002c90300c0ffe0-20261124T104600Z-3", CX3, "2026-11-24T10:46:00Z", "MT_1090120019", GA},
	};
	for (unsigned i = 0; i < 3; i++)
		make_bundle(dir, &s[i]);
	assert_int_equal(backup_index_scan(&ix, dir, &st), CX_OK);
	int n = backup_index_for_card(&ix, CX3, NULL, GA, out, 8);
	char want[512];
	snprintf(want, sizeof(want), "%s %s %s", s[2].name, s[1].name, s[0].name);
	assert_string_equal(names(out, n), want);

	/* A new backup, indexed without a scan; and an older one from elsewhere. */
	struct spec newer = {"cx3-MT_1090120019-0002c90300c0ffe0-20261124T110000Z", CX3, "2026-11-24T11:00:00Z",
			     "MT_1090120019", GA};
	struct spec older = {"old-b", CX3, "2025-01-01T00:00:00Z", "MT_1090120019", GB};
	make_bundle(dir, &newer);
	make_bundle(other, &older);
	assert_false(backup_index_has(&ix, CX3, GB));
	snprintf(path, sizeof(path), "%s/%s", dir, newer.name);
	assert_int_equal(backup_index_add(&ix, path, &st), CX_OK);
	snprintf(path, sizeof(path), "%s/old-b//", other); /* trailing slashes as a shell completes them */
	assert_int_equal(backup_index_add(&ix, path, &st), CX_OK);
	assert_int_equal(ix.n, 5);
	assert_string_equal(ix.e[0].name, newer.name);
	assert_string_equal(ix.e[4].name, "old-b");
	snprintf(path, sizeof(path), "%s/old-b", other);
	assert_string_equal(ix.e[4].path, path);
	assert_true(backup_index_has(&ix, CX3, GB));
	/* Something that is not a bundle is indexed as damaged, not refused. */
	assert_int_equal(backup_index_add(&ix, "/nonexistent/bundle", &st), CX_OK);
	assert_int_equal(ix.n, 6);
	assert_int_equal(find(&ix, "bundle")->verify_code, CX_EIO);
	assert_int_equal(backup_index_add(&ix, "", &st), CX_EUSAGE);
	cx_status_clear(&st);
	backup_index_free(&ix);

	/* add on a fresh (zeroed) index works too. */
	memset(&ix, 0, sizeof(ix));
	snprintf(path, sizeof(path), "%s/old-b", other);
	assert_int_equal(backup_index_add(&ix, path, &st), CX_OK);
	assert_int_equal(ix.n, 1);
	backup_index_free(&ix);
	rm_rf(tmp);
}

static void test_missing_and_unusable_folders(void **state)
{
	struct backup_index ix;
	struct cx_status st = {0};
	const struct backup_entry *out[4];
	char tmp[64], path[128];
	(void)state;

	scratch_dir(tmp, sizeof(tmp), "bindex");
	snprintf(path, sizeof(path), "%s/no-backups-yet", tmp);
	assert_int_equal(backup_index_scan(&ix, path, &st), CX_OK);
	assert_int_equal(ix.n, 0);
	assert_int_equal(backup_index_for_card(&ix, CX3, NULL, 0, out, 4), 0);
	assert_false(backup_index_has(&ix, CX3, GA));
	backup_index_free(&ix);

	/* An empty folder. */
	assert_int_equal(backup_index_scan(&ix, tmp, &st), CX_OK);
	assert_int_equal(ix.n, 0);
	backup_index_free(&ix);

	snprintf(path, sizeof(path), "%s/file", tmp);
	spit(tmp, "file", "x", 1);
	assert_int_equal(backup_index_scan(&ix, path, &st), CX_EIO);
	assert_non_null(strstr(st.msg, "not a folder"));
	assert_int_equal(ix.n, 0);
	cx_status_clear(&st);
	snprintf(path, sizeof(path), "%s/file/backups", tmp);
	assert_int_equal(backup_index_scan(&ix, path, &st), CX_EIO);
	cx_status_clear(&st);
	assert_int_equal(backup_index_scan(&ix, "", &st), CX_EUSAGE);
	cx_status_clear(&st);
	assert_int_equal(backup_index_scan(&ix, NULL, &st), CX_EUSAGE);
	cx_status_clear(&st);
	if (geteuid() != 0) {
		snprintf(path, sizeof(path), "%s/locked", tmp);
		assert_int_equal(mkdir(path, 0), 0);
		assert_int_equal(backup_index_scan(&ix, path, &st), CX_EIO);
		assert_non_null(strstr(st.msg, "cannot read"));
		cx_status_clear(&st);
	}
	rm_rf(tmp);
}

/* More folders than the bound: refused with a clear message, not a partial list. */
static void test_too_many(void **state)
{
	struct backup_index ix;
	struct cx_status st = {0};
	char tmp[64], dir[128], path[256];
	(void)state;

	scratch_dir(tmp, sizeof(tmp), "bindex");
	snprintf(dir, sizeof(dir), "%s/backups", tmp);
	assert_int_equal(mkdir(dir, 0755), 0);
	for (int i = 0; i <= BACKUP_INDEX_MAX; i++) {
		snprintf(path, sizeof(path), "%s/b%05d", dir, i);
		assert_int_equal(mkdir(path, 0755), 0);
	}
	assert_int_equal(backup_index_scan(&ix, dir, &st), CX_EUNSUPPORTED);
	assert_non_null(strstr(st.msg, "more than 4096 backups"));
	assert_int_equal(ix.n, 0);
	assert_null(ix.e);
	backup_index_free(&ix);

	/* Exactly the bound is fine. */
	cx_status_clear(&st);
	snprintf(path, sizeof(path), "%s/b%05d", dir, 0);
	assert_int_equal(rmdir(path), 0);
	assert_int_equal(backup_index_scan(&ix, dir, &st), CX_OK);
	assert_int_equal(ix.n, BACKUP_INDEX_MAX);
	assert_int_equal(backup_index_add(&ix, path, &st), CX_EUNSUPPORTED);
	backup_index_free(&ix);
	rm_rf(tmp);
}

/* ---- bundles backup_card() makes ---- */

static void backup_of(struct cxsim_card *card, const char *dir, struct backup_result *r)
{
	struct device d;
	struct cx_status st = {0};

	card_open_listed(&d, card);
	if (backup_card(&d, dir, r, &st))
		fail_msg("backup_card: %s", st.msg);
	device_close(&d);
}

static void test_bundles_from_backup_card(void **state)
{
	struct backup_index ix;
	struct cx_status st = {0};
	struct cxsim_params p;
	struct backup_result r1, r2, rr;
	const struct backup_entry *out[8];
	char tmp[64], dir[128];
	(void)state;

	scratch_dir(tmp, sizeof(tmp), "bindex");
	snprintf(dir, sizeof(dir), "%s/backups", tmp);

	cxsim_params_default(&p, CXSIM_CX3);
	snprintf(p.flash_part, sizeof(p.flash_part), "W25Q16");
	struct cxsim_card *card = cxsim_new(&p);
	assert_non_null(card);
	card_install(card, "--chip cx3 --no-fw-conf --psid HP_0280210019 --guid 0002c903001234a0", 0);
	backup_of(card, dir, &r1);
	backup_of(card, dir, &r2);
	cxsim_free(card);

	cxsim_params_default(&p, CXSIM_CX3PRO);
	snprintf(p.flash_part, sizeof(p.flash_part), "W25Q80");
	assert_non_null(card = cxsim_new(&p)); /* blank flash: recovery mode */
	backup_of(card, dir, &rr);
	assert_true(rr.recovery);
	cxsim_free(card);

	assert_int_equal(backup_index_scan(&ix, dir, &st), CX_OK);
	assert_int_equal(ix.n, 3);
	for (int i = 0; i < ix.n; i++)
		if (ix.e[i].verify_code)
			fail_msg("%s: %s", ix.e[i].name, ix.e[i].reason);
	assert_true(backup_index_has(&ix, CX3, 0x0002c903001234a0ull));
	assert_false(backup_index_has(&ix, CX3PRO, 0x0002c903001234a0ull));
	int n = backup_index_for_card(&ix, CX3, NULL, 0x0002c903001234a0ull, out, 8);
	assert_int_equal(n, 2);
	/* Same second or not, the second backup comes first. */
	assert_string_equal(out[0]->name, r2.name);
	assert_string_equal(out[1]->name, r1.name);
	assert_string_equal(out[0]->path, r2.path);
	assert_string_equal(out[0]->id.psid, "HP_0280210019");
	assert_string_equal(out[0]->id.flash_sha256, r2.flash_sha256);
	n = backup_index_for_card(&ix, CX3PRO, NULL, 0, out, 8);
	assert_int_equal(n, 1);
	assert_string_equal(out[0]->name, rr.name);
	assert_true(out[0]->id.recovery && !out[0]->id.have_image);
	backup_index_free(&ix);
	rm_rf(tmp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_stick_of_bundles),
		cmocka_unit_test(test_damaged_bundles),
		cmocka_unit_test(test_same_second_and_add),
		cmocka_unit_test(test_missing_and_unusable_folders),
		cmocka_unit_test(test_too_many),
		cmocka_unit_test(test_bundles_from_backup_card),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
