/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_backup.c — ops/backup against the card model in process: the bundle's files
 * and contents (flash.bin is the model's own flash array, identity.json says what
 * mkfs2 was told, SHA256SUMS passes backup_verify and coreutils' sha256sum -c), a
 * recovery-mode card and a card with a blank flash, two reads that differ (a byte
 * flipped in the model between or during the reads), folders that cannot be
 * written and a disk that fills up (nothing left behind), damaged bundles, and the
 * identity.json reader on hostile text. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "card_fixture.h"
#include "image/ini.h"
#include "ops/backup.h"
#include "prng.h"
#include "scratch.h"
#include "sim_cfg.h"
#include "util/fileio.h"
#include "util/json.h"

#define BDF "0000:01:00.0"
#define KIB 1024u
#define MIB (1024u * 1024u)

/* Names in dir (without . and ..), sorted, joined by ' '; returns how many. */
static int listing(const char *dir, char *out, size_t n)
{
	struct dirent **ents;
	int k = scandir(dir, &ents, NULL, alphasort), count = 0;

	out[0] = '\0';
	if (k < 0)
		return -1;
	for (int i = 0; i < k; i++) {
		if (strcmp(ents[i]->d_name, ".") && strcmp(ents[i]->d_name, "..")) {
			size_t l = strlen(out);
			snprintf(out + l, n - l, "%s%s", count ? " " : "", ents[i]->d_name);
			count++;
		}
		free(ents[i]);
	}
	free(ents);
	return count;
}

static uint8_t *slurp(const char *dir, const char *name, size_t *len)
{
	char path[2 * BACKUP_PATH_MAX];
	struct cx_status st = {0};
	uint8_t *buf;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (file_read(path, 64 * MIB, &buf, len, &st))
		fail_msg("%s", st.msg);
	/* NUL-terminated, so text files can be searched as strings */
	uint8_t *text = malloc(*len + 1);
	assert_non_null(text);
	memcpy(text, buf, *len);
	text[*len] = '\0';
	free(buf);
	return text;
}

/* ---- cards ---- */

struct rig {
	struct cxsim_card *card;
	struct cfg_dev cfg;
	struct device d;
	struct cx_status st;
	struct backup_result r;
	char tmp[64];     /* the test's folder */
	char dir[128];    /* DIR given to backup_card: tmp/backups */
};

static void attach_with(struct rig *g, struct cfg_dev cfg)
{
	struct pci_card pci;

	assert_true(card_pci(g->card, BDF, &pci));
	if (device_attach(&g->d, cfg, &pci, false, &g->st))
		fail_msg("device_attach: %s", g->st.msg);
}

/* A card of chip with flash part; image: mkfs2 options (the image in slot), or NULL for a
 * blank flash. */
static void rig_open(struct rig *g, enum cxsim_chip chip, const char *part, const char *image, int slot)
{
	memset(g, 0, sizeof(*g));
	g->card = card_new(&(struct card_spec){.chip = chip, .part = part, .image = image, .slot = slot});
	scratch_dir(g->tmp, sizeof(g->tmp), "backup");
	snprintf(g->dir, sizeof(g->dir), "%s/backups", g->tmp);
	sim_cfg_attach(&g->cfg, g->card, BDF);
	attach_with(g, g->cfg);
}

static void rig_close(struct rig *g)
{
	/* Every gateway transaction ran under the flash semaphore, and nothing was written. */
	assert_int_equal(cxsim_counters(g->card)->gw_without_sem, 0);
	assert_int_equal(cxsim_counters(g->card)->bytes_programmed, 0);
	assert_int_equal(cxsim_counters(g->card)->erases, 0);
	device_close(&g->d);
	cxsim_free(g->card);
	rm_rf(g->tmp);
}

static void backup_ok(struct rig *g)
{
	cx_status_clear(&g->st);
	if (backup_card(&g->d, g->dir, &g->r, &g->st))
		fail_msg("backup_card: %s", g->st.msg);
}

/* The bundle is the model's flash, its files are the expected ones, and both
 * backup_verify() and sha256sum -c accept it. */
static void check_bundle(struct rig *g, const char *files, struct backup_identity *id)
{
	char names[512], cmd[2 * BACKUP_PATH_MAX], hex[SHA256_HEX_LEN + 1];
	uint8_t dg[SHA256_LEN];
	size_t size, len;
	uint8_t *model = cxsim_flash(g->card, &size);

	/* The bundle folder has the mode mkdir would give it (not mkdtemp's 0700). */
	struct stat sb;
	mode_t mask = umask(0);
	umask(mask);
	assert_int_equal(stat(g->r.path, &sb), 0);
	assert_int_equal(sb.st_mode & 0777, 0755 & ~mask);
	/* DIR holds the bundle and nothing else (no temporary folder). */
	assert_int_equal(listing(g->dir, names, sizeof(names)), 1);
	assert_string_equal(names, g->r.name);
	assert_true(listing(g->r.path, names, sizeof(names)) > 0);
	assert_string_equal(names, files);

	uint8_t *flash = slurp(g->r.path, BACKUP_FLASH, &len);
	assert_int_equal(len, size);
	assert_int_equal(g->r.size, size);
	assert_memory_equal(flash, model, size);
	free(flash);
	sha256(model, size, dg);
	assert_string_equal(g->r.flash_sha256, sha256_hex(dg, hex));

	struct cx_status st = {0};
	if (backup_verify(g->r.path, &st))
		fail_msg("backup_verify: %s", st.msg);
	snprintf(cmd, sizeof(cmd), "cd '%s' && sha256sum -c --quiet --strict SHA256SUMS", g->r.path);
	assert_int_equal(system(cmd), 0);
	if (backup_load_identity(g->r.path, id, &st))
		fail_msg("backup_load_identity: %s", st.msg);
	assert_string_equal(id->format, BACKUP_FORMAT);
	assert_string_equal(id->flash_sha256, g->r.flash_sha256);
	assert_int_equal(id->flash_size, size);
	assert_string_equal(id->bdf, BDF);
	assert_int_equal(id->pci_device, cxsim_pci_device_now(g->card));
	assert_int_equal(id->subsys_vendor, cxsim_get_params(g->card)->subsys_vendor);
	assert_int_equal(id->subsys_device, cxsim_get_params(g->card)->subsys_device);
	assert_int_equal(id->revision, cxsim_get_params(g->card)->hw_rev);

	/* The folder's date-time is identity.json's date. */
	char stamp[20];
	assert_int_equal(strlen(id->date), 20);
	snprintf(stamp, sizeof(stamp), "%.4s%.2s%.2sT%.2s%.2s%.2sZ", id->date, id->date + 5, id->date + 8,
		 id->date + 11, id->date + 14, id->date + 17);
	assert_non_null(strstr(g->r.name, stamp));
	/* The flash was read twice, whole. */
	assert_true(cxsim_counters(g->card)->bytes_read >= 2 * (uint64_t)size);
}

static const char *expect_name_prefix(const char *name, const char *prefix)
{
	size_t l = strlen(prefix);

	if (strncmp(name, prefix, l))
		fail_msg("bundle name %s does not start with %s", name, prefix);
	/* YYYYMMDDTHHMMSSZ */
	const char *s = name + l;
	assert_int_equal(strlen(s), 16);
	for (int i = 0; i < 16; i++)
		assert_true(i == 8 ? s[i] == 'T' : i == 15 ? s[i] == 'Z' : (s[i] >= '0' && s[i] <= '9'));
	return s;
}

/* ---- bundles of cards with an image ---- */

static const char INI_TEXT[] = "[PS_INFO]\nName = MCX354A-FCBT\nDescription = test card\n"
			       "[ADAPTER]\nPSID = CX_0000000042\n";

static void test_bundle_of_a_card(void **state)
{
	static const struct {
		enum cxsim_chip chip;
		const char *part, *opts, *family, *chip_label, *slug;
		int slot;
		uint32_t start;
		int entries;
	} cards[] = {
		{CXSIM_CX3, "W25Q80", "--chip cx3 --ddr 2 --ddr-size 0x1000", "ConnectX-3", "ConnectX-3 A1", "cx3", 1,
		 0x80000, 6},
		{CXSIM_CX3PRO, "M25P16", "--chip cx3pro --ddr 2 --ddr-size 0x1000 --no-rom", "ConnectX-3 Pro",
		 "ConnectX-3 Pro A0", "cx3pro", 0, 0, 6},
		{CXSIM_CX2, "SST25VF016B", "--chip cx2 --old-guids --ddr 2 --ddr-size 0x1000", "ConnectX-2",
		 "ConnectX-2 B0", "cx2", 1, 0x80000, 4},
	};
	char ini_path[] = "/tmp/cx-backup-ini-XXXXXX";
	int fd = mkstemp(ini_path);
	(void)state;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, INI_TEXT, strlen(INI_TEXT)), (ssize_t)strlen(INI_TEXT));
	close(fd);
	for (unsigned i = 0; i < sizeof(cards) / sizeof(cards[0]); i++) {
		char opts[600], prefix[80];
		struct rig g;
		struct backup_identity id;

		snprintf(opts, sizeof(opts), "%s --psid CX_0000000042 --guid 0002c90300c0ffe0 --mac 0002c9c0ffe0 "
			 "--vsd 'rescued \"card\" \\ %u' --fw 2.42.5100 --ini %s", cards[i].opts, i, ini_path);
		rig_open(&g, cards[i].chip, cards[i].part, opts, cards[i].slot);
		assert_false(g.d.chip.recovery);
		backup_ok(&g);
		snprintf(prefix, sizeof(prefix), "%s-CX_0000000042-0002c90300c0ffe0-", cards[i].slug);
		expect_name_prefix(g.r.name, prefix);
		assert_true(g.r.have_image && g.r.have_ini && !g.r.recovery);
		check_bundle(&g, "SHA256SUMS board.ini flash.bin identity.json settings.json", &id);

		assert_string_equal(id.family, cards[i].family);
		assert_string_equal(id.chip, cards[i].chip_label);
		assert_false(id.recovery);
		assert_true(id.have_image);
		assert_int_equal(id.image_start, cards[i].start);
		assert_int_equal(id.image_slot, cards[i].start ? 1 : 0);
		assert_string_equal(id.psid, "CX_0000000042");
		assert_string_equal(id.fw_version, "2.42.5100");
		char vsd[64];
		snprintf(vsd, sizeof(vsd), "rescued \"card\" \\ %u", i);
		assert_string_equal(id.vsd, vsd);
		assert_int_equal(id.guid_entries, cards[i].entries);
		for (int k = 0; k < 4; k++)
			assert_int_equal(id.guid[k], 0x0002c90300c0ffe0ull + (uint64_t)k);
		if (cards[i].entries == 6) {
			assert_int_equal(id.mac[0], 0x0002c9c0ffe0ull);
			assert_int_equal(id.mac[1], 0x0002c9c0ffe1ull);
		} else { /* derived from the port GUIDs: bytes 0,1,2,5,6,7 */
			assert_int_equal(id.mac[0], 0x0002c9c0ffe1ull);
			assert_int_equal(id.mac[1], 0x0002c9c0ffe2ull);
		}
		if (cards[i].chip == CXSIM_CX3PRO) {
			assert_string_equal(id.rom_type, "");
		} else {
			assert_string_equal(id.rom_type, "PXE");
			assert_string_equal(id.rom_version, "3.4.752");
		}
		assert_true(id.have_ini);
		assert_non_null(strstr(id.flash, "KiB"));

		size_t len;
		uint8_t *ini = slurp(g.r.path, BACKUP_INI, &len);
		assert_int_equal(len, strlen(INI_TEXT));
		assert_memory_equal(ini, INI_TEXT, len);
		free(ini);
		rig_close(&g);
	}
	unlink(ini_path);
}

/* The identity agrees with what the model's own boot ROM found on the flash. */
static void test_identity_agrees_with_the_model(void **state)
{
	struct rig g;
	struct backup_identity id;
	(void)state;

	rig_open(&g, CXSIM_CX3, "W25Q16", "--chip cx3 --no-fw-conf --guid 0002c903001234a0", 0);
	backup_ok(&g);
	check_bundle(&g, "SHA256SUMS flash.bin identity.json settings.json", &id);
	const struct cxsim_boot *b = cxsim_boot_info(g.card);
	assert_true(b->booted);
	assert_string_equal(id.psid, b->psid);
	assert_string_equal(id.vsd, b->vsd);
	assert_int_equal(id.image_start, b->start);
	assert_int_equal(id.guid_entries, b->nguids);
	for (int k = 0; k < 4; k++)
		assert_int_equal(id.guid[k], b->guids[k]);
	assert_int_equal(id.mac[0], b->macs[0]);
	assert_int_equal(id.mac[1], b->macs[1]);
	char fw[24];
	snprintf(fw, sizeof(fw), "%d.%d.%04d", b->fw_ver[0], b->fw_ver[1], b->fw_ver[2]);
	assert_string_equal(id.fw_version, fw);
	assert_false(id.have_ini);
	assert_false(g.r.have_ini);
	rig_close(&g);
}

/* ---- cards without a readable identity ---- */

static void test_recovery_card(void **state)
{
	struct rig g;
	struct backup_identity id;
	uint8_t ff[4096];
	(void)state;

	rig_open(&g, CXSIM_CX3PRO, "W25Q80", NULL, 0);
	assert_true(g.d.chip.recovery);
	backup_ok(&g);
	expect_name_prefix(g.r.name, "cx3pro-recovery-0000_01_00.0-");
	assert_true(g.r.recovery && !g.r.have_image && !g.r.have_ini);
	check_bundle(&g, "SHA256SUMS flash.bin identity.json settings.json", &id);
	assert_true(id.recovery);
	assert_false(id.have_image);
	assert_string_equal(id.psid, "");
	assert_int_equal(id.guid[0], 0);
	assert_string_equal(id.chip, "ConnectX-3 Pro A0");
	assert_int_equal(id.pci_device, 0x1F8); /* recovery ID = HW ID + 1 */
	size_t len;
	uint8_t *flash = slurp(g.r.path, BACKUP_FLASH, &len);
	memset(ff, 0xFF, sizeof(ff));
	assert_memory_equal(flash, ff, sizeof(ff));
	free(flash);
	rig_close(&g);
}

/* A card that booted, whose flash was then erased behind its back: no image to name it by. */
static void test_running_card_with_blank_flash(void **state)
{
	struct rig g;
	struct backup_identity id;
	size_t size;
	char text[4096];
	(void)state;

	rig_open(&g, CXSIM_CX3, "W25Q80", "--chip cx3", 0);
	uint8_t *m = cxsim_flash(g.card, &size);
	memset(m, 0xFF, size);
	cxsim_flash_changed(g.card);
	backup_ok(&g);
	expect_name_prefix(g.r.name, "cx3-noimage-0000_01_00.0-");
	check_bundle(&g, "SHA256SUMS flash.bin identity.json settings.json", &id);
	assert_false(id.recovery);
	assert_false(id.have_image);
	size_t len;
	uint8_t *j = slurp(g.r.path, BACKUP_IDENTITY, &len);
	assert_true(len < sizeof(text));
	memcpy(text, j, len);
	text[len] = '\0';
	free(j);
	assert_non_null(strstr(text, "\"image_verdict\":\"no-image\""));
	assert_non_null(strstr(text, "\"image_error\":\"no firmware image"));
	rig_close(&g);
}

/* ---- the two reads ---- */

/* A config-space method that passes every access to the model, and once the model
 * has read `at` flash bytes flips one byte of its flash: a link or a flash that
 * does not return the same data twice. */
struct flaky {
	struct cfg_dev inner;
	struct cxsim_card *card;
	uint64_t at;
	uint32_t addr;
	bool flipped;
};

static int flaky_read(void *ctx, unsigned off, uint32_t *val)
{
	struct flaky *f = ctx;
	int rc = cfg_read(&f->inner, off, val);

	if (!f->flipped && cxsim_counters(f->card)->bytes_read >= f->at) {
		size_t size;
		cxsim_flash(f->card, &size)[f->addr] ^= 0x5A;
		cxsim_flash_changed(f->card);
		f->flipped = true;
	}
	return rc;
}

static int flaky_write(void *ctx, unsigned off, uint32_t val)
{
	return cfg_write(&((struct flaky *)ctx)->inner, off, val);
}

static void flaky_sleep(void *ctx, unsigned us)
{
	cfg_sleep_us(&((struct flaky *)ctx)->inner, us);
}

static void flaky_close(void *ctx)
{
	(void)ctx;
}

static const struct cfg_ops flaky_ops = {"flaky", flaky_read, flaky_write, flaky_sleep, flaky_close, NULL, NULL};

static void test_reads_differ(void **state)
{
	/* Flip a byte the first read has passed (halfway through it), and one the second
	 * read has not reached yet (halfway through that). */
	static const struct {
		uint64_t at_half; /* at = baseline + at_half * size / 2 */
		uint32_t addr;     /* 0: the last byte */
	} cases[] = {{1, 0x100}, {3, 0}};
	(void)state;

	for (unsigned i = 0; i < 2; i++) {
		struct rig g;
		struct flaky f;
		char names[256], want[40];
		size_t size;

		memset(&g, 0, sizeof(g));
		g.card = card_new(&(struct card_spec){.chip = CXSIM_CX3, .part = "W25Q80", .image = "--chip cx3"});
		cxsim_flash(g.card, &size);
		scratch_dir(g.tmp, sizeof(g.tmp), "backup");
		snprintf(g.dir, sizeof(g.dir), "%s/backups", g.tmp);
		sim_cfg_attach(&f.inner, g.card, BDF);
		f.card = g.card;
		f.flipped = false;
		f.addr = cases[i].addr ? cases[i].addr : (uint32_t)size - 1;
		f.at = UINT64_MAX;
		attach_with(&g, (struct cfg_dev){&flaky_ops, &f, BDF});
		f.at = cxsim_counters(g.card)->bytes_read + cases[i].at_half * size / 2;

		assert_int_equal(backup_card(&g.d, g.dir, &g.r, &g.st), CX_EFLASH);
		assert_true(f.flipped);
		snprintf(want, sizeof(want), "differ at 0x%x ", f.addr);
		if (!strstr(g.st.msg, want) || !strstr(g.st.msg, "no backup written"))
			fail_msg("'%s' lacks '%s'", g.st.msg, want);
		assert_string_equal(g.r.path, "");
		/* DIR was made (it is checked before the minutes of reading), but holds nothing. */
		assert_int_equal(listing(g.dir, names, sizeof(names)), 0);
		rig_close(&g);
	}
}

/* ---- folders that cannot be written ---- */

static void test_unwritable_dir(void **state)
{
	struct rig g;
	char path[200], names[256];
	(void)state;

	rig_open(&g, CXSIM_CX3, "W25Q80", "--chip cx3", 0);
	uint64_t read0 = cxsim_counters(g.card)->bytes_read;

	/* DIR is a file; DIR's parent is a file; DIR's parent does not exist: refused
	 * before the flash is read. */
	snprintf(path, sizeof(path), "%s/file", g.tmp);
	spit(g.tmp, "file", "x", 1);
	assert_int_equal(backup_card(&g.d, path, &g.r, &g.st), CX_EIO);
	assert_non_null(strstr(g.st.msg, "not a folder"));
	cx_status_clear(&g.st);
	snprintf(path, sizeof(path), "%s/file/sub", g.tmp);
	assert_int_equal(backup_card(&g.d, path, &g.r, &g.st), CX_EIO);
	cx_status_clear(&g.st);
	snprintf(path, sizeof(path), "%s/no/such/folder", g.tmp);
	assert_int_equal(backup_card(&g.d, path, &g.r, &g.st), CX_EIO);
	cx_status_clear(&g.st);
	assert_int_equal(backup_card(&g.d, "", &g.r, &g.st), CX_EUSAGE);
	cx_status_clear(&g.st);
	assert_int_equal(cxsim_counters(g.card)->bytes_read, read0);
	assert_int_equal(listing(g.tmp, names, sizeof(names)), 1);

	/* A folder without write permission (root ignores permissions: then /proc stands in). */
	const char *ro = "/proc";
	if (geteuid() != 0) {
		snprintf(path, sizeof(path), "%s/ro", g.tmp);
		assert_int_equal(mkdir(path, 0555), 0);
		ro = path;
	}
	assert_int_equal(backup_card(&g.d, ro, &g.r, &g.st), CX_EIO);
	assert_non_null(strstr(g.st.msg, "cannot create"));
	cx_status_clear(&g.st);
	assert_int_equal(cxsim_counters(g.card)->bytes_read, read0);

	/* The disk fills up while flash.bin is written (a file size limit stands in for
	 * it, for root too): CX_EIO, and the half-written bundle is gone. */
	struct rlimit old, lim;
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim = old;
	lim.rlim_cur = 256 * KIB;
	signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	int rc = backup_card(&g.d, g.dir, &g.r, &g.st);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, SIG_DFL);
	assert_int_equal(rc, CX_EIO);
	if (!strstr(g.st.msg, "cannot write") || !strstr(g.st.msg, BACKUP_FLASH))
		fail_msg("%s", g.st.msg);
	assert_true(cxsim_counters(g.card)->bytes_read > read0); /* this one got as far as writing */
	assert_string_equal(g.r.path, "");
	assert_int_equal(listing(g.dir, names, sizeof(names)), 0);
	rig_close(&g);
}

/* Two backups of the same card, one right after the other: two bundles, both good. */
static void test_two_backups(void **state)
{
	struct rig g;
	struct backup_identity id;
	char first[BACKUP_NAME_MAX], names[512];
	(void)state;

	rig_open(&g, CXSIM_CX3, "W25Q80", "--chip cx3", 0);
	backup_ok(&g);
	snprintf(first, sizeof(first), "%s", g.r.name);
	backup_ok(&g);
	assert_string_not_equal(first, g.r.name);
	assert_int_equal(listing(g.dir, names, sizeof(names)), 2);
	struct cx_status st = {0};
	char path[2 * BACKUP_PATH_MAX];
	snprintf(path, sizeof(path), "%s/%s", g.dir, first);
	assert_int_equal(backup_verify(path, &st), CX_OK);
	assert_int_equal(backup_verify(g.r.path, &st), CX_OK);
	assert_int_equal(backup_load_identity(path, &id, &st), CX_OK);
	assert_string_equal(id.flash_sha256, g.r.flash_sha256);
	rig_close(&g);
}

/* backup_card_reuse(): a bundle equal to the card is taken after one read of the flash;
 * anything else makes a new bundle, the comparing read being the first of its two. */
static void reuse(struct rig *g, const char *prior, bool want_reused, uint64_t want_reads, int want_bundles)
{
	char names[1024];
	size_t size;

	cxsim_flash(g->card, &size);
	cxsim_counters_reset(g->card);
	cx_status_clear(&g->st);
	if (backup_card_reuse(&g->d, g->dir, prior, NULL, NULL, &g->r, &g->st))
		fail_msg("backup_card_reuse: %s", g->st.msg);
	assert_int_equal(g->r.reused, want_reused);
	assert_int_equal(cxsim_counters(g->card)->bytes_read, want_reads * size);
	assert_int_equal(listing(g->dir, names, sizeof(names)), want_bundles);
	assert_int_equal(backup_verify(g->r.path, &g->st), CX_OK);
}

static void test_reuse_an_identical_bundle(void **state)
{
	struct rig g;
	char first[BACKUP_PATH_MAX], sha[SHA256_HEX_LEN + 1];
	size_t size, len;
	(void)state;

	rig_open(&g, CXSIM_CX3, "W25Q80", "--chip cx3", 0);
	backup_ok(&g);
	snprintf(first, sizeof(first), "%s", g.r.path);
	snprintf(sha, sizeof(sha), "%s", g.r.flash_sha256);

	reuse(&g, first, true, 1, 1);                    /* the same flash: one read, that bundle */
	assert_string_equal(g.r.path, first);
	assert_string_equal(g.r.flash_sha256, sha);
	assert_int_equal(g.r.size, 1 * MIB);
	assert_true(g.r.have_image);

	reuse(&g, NULL, false, 2, 2);                    /* no bundle to compare with: a backup */

	/* The card now shows itself at another PCI address: not that bundle's card. */
	snprintf(g.d.pci.bdf, sizeof(g.d.pci.bdf), "0000:02:00.0");
	reuse(&g, first, false, 2, 3);
	snprintf(g.d.pci.bdf, sizeof(g.d.pci.bdf), BDF);

	/* One byte of the flash differs: the comparing read and one more. */
	uint8_t *f = cxsim_flash(g.card, &size);
	f[size - 1] ^= 0x5a;
	cxsim_flash_changed(g.card);
	reuse(&g, first, false, 2, 4);
	f[size - 1] ^= 0x5a;
	cxsim_flash_changed(g.card);

	/* The bundle's flash.bin changed on the disk: it does not verify, never taken. */
	uint8_t *bin = slurp(first, "flash.bin", &len);
	bin[len / 3] ^= 0x01;
	spit(first, "flash.bin", bin, len);
	free(bin);
	reuse(&g, first, false, 2, 5);
	assert_int_not_equal(backup_verify(first, &g.st), CX_OK);
	rig_close(&g);
}

/* ---- damaged bundles ---- */

static int verify_fails(const char *dir, int code, const char *says)
{
	struct cx_status st = {0};
	int rc = backup_verify(dir, &st);

	if (rc != code || !strstr(st.msg, says))
		fail_msg("backup_verify: %d '%s', expected %d '%s'", rc, st.msg, code, says);
	return rc;
}

static void test_damaged_bundles(void **state)
{
	struct rig g;
	char cmd[2 * BACKUP_PATH_MAX], *p;
	size_t flen, slen, ilen;
	(void)state;

	rig_open(&g, CXSIM_CX3, "W25Q80", "--chip cx3", 0);
	backup_ok(&g);
	const char *b = g.r.path;
	uint8_t *flash = slurp(b, BACKUP_FLASH, &flen);
	char *sums = (char *)slurp(b, BACKUP_SUMS, &slen);
	char *idj = (char *)slurp(b, BACKUP_IDENTITY, &ilen);

	/* One flipped bit of flash.bin: we and sha256sum both see it. */
	flash[flen / 3] ^= 0x10;
	spit(b, BACKUP_FLASH, flash, flen);
	verify_fails(b, CX_EIMAGE, "flash.bin does not match");
	snprintf(cmd, sizeof(cmd), "cd '%s' && sha256sum -c --quiet --strict SHA256SUMS >/dev/null 2>&1", b);
	assert_int_not_equal(system(cmd), 0);
	flash[flen / 3] ^= 0x10;
	spit(b, BACKUP_FLASH, flash, flen);
	assert_int_equal(backup_verify(b, &g.st), CX_OK);

	/* flash.bin cut short. */
	spit(b, BACKUP_FLASH, flash, flen - 16);
	verify_fails(b, CX_EIMAGE, "does not match");
	spit(b, BACKUP_FLASH, flash, flen);

	/* identity.json edited: its line in SHA256SUMS no longer matches. */
	char was = idj[ilen / 2];
	idj[ilen / 2] = was == 'x' ? 'y' : 'x';
	spit(b, BACKUP_IDENTITY, idj, ilen);
	verify_fails(b, CX_EIMAGE, "identity.json does not match");
	idj[ilen / 2] = was;
	spit(b, BACKUP_IDENTITY, idj, ilen);

	/* Missing files. */
	char path[2 * BACKUP_PATH_MAX];
	snprintf(path, sizeof(path), "%s/%s", b, BACKUP_FLASH);
	assert_int_equal(unlink(path), 0);
	verify_fails(b, CX_EIO, "cannot open");
	spit(b, BACKUP_FLASH, flash, flen);
	snprintf(path, sizeof(path), "%s/%s", b, BACKUP_SUMS);
	assert_int_equal(unlink(path), 0);
	verify_fails(b, CX_EIO, "cannot open");

	/* SHA256SUMS that is not what we write. */
	static const char *const bad_sums[] = {
		"",                                                            /* lists nothing */
		"0123  flash.bin\n",                                           /* short checksum */
		"not a checksum line at all, but quite long enough to be one, really it is...\n",
	};
	for (unsigned i = 0; i < sizeof(bad_sums) / sizeof(bad_sums[0]); i++) {
		spit(b, BACKUP_SUMS, bad_sums[i], strlen(bad_sums[i]));
		verify_fails(b, CX_EIMAGE, BACKUP_SUMS);
	}
	/* Path traversal, a listed SHA256SUMS, a duplicate, upper-case hex, no final newline. */
	char line[512];
	static const char *const bad_names[] = {"../../etc/passwd", "/etc/passwd", ".hidden", "SHA256SUMS",
						"flash.bin", "a b"};
	for (unsigned i = 0; i < sizeof(bad_names) / sizeof(bad_names[0]); i++) {
		/* the good lines, then one with a well-formed checksum and a bad name */
		snprintf(line, sizeof(line), "%.*s%.64s  %s\n", (int)slen, sums, sums, bad_names[i]);
		spit(b, BACKUP_SUMS, line, strlen(line));
		verify_fails(b, CX_EIMAGE, "line");
	}
	char *upper = strdup(sums);
	for (p = upper; *p && *p != ' '; p++)
		if (*p >= 'a' && *p <= 'f')
			*p = (char)(*p - 'a' + 'A');
	spit(b, BACKUP_SUMS, upper, slen);
	verify_fails(b, CX_EIMAGE, "lowercase");
	free(upper);
	spit(b, BACKUP_SUMS, sums, slen - 1);
	verify_fails(b, CX_EIMAGE, "newline");

	/* SHA256SUMS without identity.json's line: not a bundle. */
	p = strstr(sums, "  identity.json\n");
	assert_non_null(p);
	char *cut = strdup(sums);
	size_t line_start = (size_t)(p - sums) - 64;
	memmove(cut + line_start, cut + line_start + 64 + strlen("  identity.json\n"),
		slen - line_start - 64 - strlen("  identity.json\n") + 1);
	spit(b, BACKUP_SUMS, cut, strlen(cut));
	verify_fails(b, CX_EIMAGE, "does not list");
	free(cut);

	/* identity.json that disagrees with flash.bin, with SHA256SUMS made to match it. */
	char *id2 = strdup(idj);
	char *h = strstr(id2, "\"flash_sha256\":\"");
	assert_non_null(h);
	h += strlen("\"flash_sha256\":\"");
	*h = *h == '0' ? '1' : '0';
	spit(b, BACKUP_IDENTITY, id2, ilen);
	uint8_t dg[SHA256_LEN];
	char hex[SHA256_HEX_LEN + 1], *s2 = strdup(sums);
	sha256(id2, ilen, dg);
	memcpy(strstr(s2, "  identity.json\n") - 64, sha256_hex(dg, hex), 64);
	spit(b, BACKUP_SUMS, s2, slen);
	verify_fails(b, CX_EIMAGE, "does not describe");
	free(id2);
	free(s2);

	/* Put it back: good again (so each failure above was that damage). */
	spit(b, BACKUP_IDENTITY, idj, ilen);
	spit(b, BACKUP_SUMS, sums, slen);
	assert_int_equal(backup_verify(b, &g.st), CX_OK);
	free(flash);
	free(sums);
	free(idj);
	rig_close(&g);
}

/* ---- the identity.json reader ---- */

static const char GOOD[] =
	"{\"format\":\"cxflash-backup-1\",\"date\":\"2026-11-24T10:46:00Z\",\"cxflash_version\":\"0.1.0\","
	"\"bdf\":\"0000:01:00.0\",\"family\":\"ConnectX-3\",\"chip\":\"ConnectX-3 A1\",\"revision\":1,"
	"\"pci_device\":\"1003\",\"subsys_vendor\":\"15b3\",\"subsys_device\":\"0050\",\"recovery\":false,"
	"\"flash\":\"W25QxxBV, 1024 KiB (JEDEC ef 40 14)\",\"flash_size\":1048576,"
	"\"flash_sha256\":\"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\","
	"\"image_start\":524288,\"image_slot\":1,\"image_failsafe\":true,\"image_size\":40000,"
	"\"image_verdict\":\"ok\",\"image_error\":null,\"fw_version\":\"2.42.5000\",\"psid\":\"MT_1090120019\","
	"\"vsd\":\"a \\\"b\\\" \\\\ \\u00e9\\n\",\"guid_entries\":6,\"guids_blank\":false,"
	"\"guids\":{\"node\":\"0002c90300c0ffe0\",\"port1\":\"0002c90300c0ffe1\",\"port2\":\"0002c90300c0ffe2\","
	"\"sys_image\":\"0002c90300c0ffe3\"},\"macs\":{\"port1\":\"0002c9c0ffe0\",\"port2\":\"0002c9c0ffe1\"},"
	"\"macs_derived\":false,\"rom\":{\"type\":\"PXE\",\"version\":\"3.4.752\"},\"board_ini\":\"board.ini\","
	"\"board_ini_error\":null,\"future\":[1,{\"x\":[]},\"y\"]}\n";

static int parse(const char *text, size_t len, struct backup_identity *id, struct cx_status *st)
{
	cx_status_clear(st);
	return backup_parse_identity(text, len, id, st);
}

static void test_identity_reader(void **state)
{
	struct backup_identity id;
	struct cx_status st = {0};
	(void)state;

	if (parse(GOOD, strlen(GOOD), &id, &st))
		fail_msg("%s", st.msg);
	assert_true(id.have_image && id.have_ini && !id.recovery);
	assert_string_equal(id.psid, "MT_1090120019");
	assert_string_equal(id.vsd, "a \"b\" \\ \xe9\n");
	assert_int_equal(id.guid[3], 0x0002c90300c0ffe3ull);
	assert_int_equal(id.mac[1], 0x0002c9c0ffe1ull);
	assert_int_equal(id.flash_size, MIB);
	assert_int_equal(id.image_start, 0x80000);
	assert_int_equal(id.subsys_device, 0x50);
	assert_string_equal(id.rom_version, "3.4.752");

	/* Each of these edits of GOOD is refused with CX_EIMAGE. */
	static const struct {
		const char *from, *to;
	} bad[] = {
		{"\"format\":\"cxflash-backup-1\"", "\"format\":\"cxflash-backup-9\""},
		{"\"format\":\"cxflash-backup-1\",", ""},
		{"\"flash_size\":1048576", "\"flash_size\":4294967296"},
		{"\"flash_size\":1048576", "\"flash_size\":-1"},
		{"\"flash_size\":1048576", "\"flash_size\":1.5"},
		{"\"flash_size\":1048576", "\"flash_size\":0"},
		{"\"flash_size\":1048576", "\"flash_size\":\"1048576\""},
		{"\"flash_size\":1048576", "\"flash_size\":null"},
		{"\"flash_size\":1048576", "\"flash_size\":01"},
		{"\"recovery\":false", "\"recovery\":0"},
		{"\"recovery\":false", "\"recovery\":fals"},
		{"0123456789abcdef\",\"image_start", "0123456789abcdeF\",\"image_start"},
		{"0123456789abcdef\",\"image_start", "0123456789abcde\",\"image_start"},
		{"\"node\":\"0002c90300c0ffe0\"", "\"node\":\"10002c90300c0ffe0\""},
		{"\"node\":\"0002c90300c0ffe0\"", "\"node\":\"0002c90300c0ffeg\""},
		{"\"node\":\"0002c90300c0ffe0\"", "\"node\":2"},
		{"\"port1\":\"0002c9c0ffe0\"", "\"port1\":\"10002c9c0ffe0\""},
		{"\"pci_device\":\"1003\"", "\"pci_device\":\"11003\""},
		{"\"psid\":\"MT_1090120019\"", "\"psid\":\"MT_10901200190000\""},
		{"\"psid\":\"MT_1090120019\"", "\"psid\":null"},
		{"\"image_slot\":1", "\"image_slot\":2"},
		{"\"image_start\":524288", "\"image_start\":1048576"},
		{"\"board_ini\":\"board.ini\"", "\"board_ini\":\"../x\""},
		{"\"chip\":\"ConnectX-3 A1\"", "\"chip\":\"ConnectX-3 \\u0000A1\""},
		{"\"chip\":\"ConnectX-3 A1\"", "\"chip\":\"ConnectX-3 \\uzzzzA1\""},
		{"\"chip\":\"ConnectX-3 A1\"", "\"chip\":\"ConnectX-3 \\qA1\""},
		{"\"chip\":\"ConnectX-3 A1\"", "\"chip\":\"ConnectX-3 \tA1\""},
		{"\"chip\":\"ConnectX-3 A1\"", "\"chip\":\"ConnectX-3 A1 and a name far too long for the field\""},
		{"\"chip\":", "\"chip\" "},
		{"\"chip\":", "chip:"},
		{",\"chip\"", "\"chip\""},
		{"\"future\":[1,{\"x\":[]},\"y\"]}", "\"future\":[1,{\"x\":[]},\"y\"]"},
		{"\"future\":[1,{\"x\":[]},\"y\"]}", "\"future\":[1,{\"x\":[]},\"y\"}}"},
		{"\"future\":[1,{\"x\":[]},\"y\"]}", "\"future\":[1,{\"x\":[[[[[[[[[[]]]]]]]]]]},\"y\"]}"},
		{"\"future\":[1,{\"x\":[]},\"y\"]}", "\"future\":[1,{\"x\":[]},\"y\"]}{}"},
		{"\"future\":[1,{\"x\":[]},\"y\"]}", "\"future\":[1,{\"x\":[]},\"y\",]}"},
		{"\"future\":[1,{\"x\":[]},\"y\"]}", "\"future\":[1,{\"x\":[]},\"y\"],}"},
		{"\"future\":[1,{\"x\":[]},\"y\"]}", "\"future\":+1}"},
		{"\"future\":[1,{\"x\":[]},\"y\"]}", "\"future\":1e}"},
		{"\"future\":[1,{\"x\":[]},\"y\"]}", "\"future\":nul}"},
	};
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char text[4096];
		const char *at = strstr(GOOD, bad[i].from);
		assert_non_null(at);
		size_t pre = (size_t)(at - GOOD);
		snprintf(text, sizeof(text), "%.*s%s%s", (int)pre, GOOD, bad[i].to, at + strlen(bad[i].from));
		if (parse(text, strlen(text), &id, &st) != CX_EIMAGE)
			fail_msg("edit %u (%s -> %s) was accepted", i, bad[i].from, bad[i].to);
		assert_non_null(strstr(st.msg, BACKUP_IDENTITY));
	}
	/* Whole-text oddities. */
	static const char *const odd[] = {"", " ", "[]", "{", "}", "{}", "null", "\"x\"", "{\"a\":}", "{\"a\" 1}"};
	for (unsigned i = 0; i < sizeof(odd) / sizeof(odd[0]); i++)
		assert_int_equal(parse(odd[i], strlen(odd[i]), &id, &st), CX_EIMAGE);

	/* Very deep nesting is refused, not recursed into. */
	size_t deep = 100000;
	char *d = malloc(deep + 1);
	assert_non_null(d);
	memcpy(d, "{\"a\":", 5);
	memset(d + 5, '[', deep - 5);
	assert_int_equal(parse(d, deep, &id, &st), CX_EIMAGE);
	assert_non_null(strstr(st.msg, "deep"));
	free(d);

	/* Every prefix of GOOD (but the whole) is refused; none crashes. */
	for (size_t n = 0; n + 1 < strlen(GOOD); n++)
		if (parse(GOOD, n, &id, &st) != CX_EIMAGE)
			fail_msg("prefix of %zu bytes accepted", n);

	/* Random damage: whatever the answer, no crash, and an accepted record is sane. */
	uint32_t x = 12345;
	char text[sizeof(GOOD)];
	for (int round = 0; round < 20000; round++) {
		memcpy(text, GOOD, sizeof(GOOD));
		for (int k = 0; k < 1 + round % 4; k++) {
			prng32(&x);
			text[x % (sizeof(GOOD) - 1)] = (char)(x >> 8);
		}
		if (parse(text, sizeof(GOOD) - 1, &id, &st) == CX_OK) {
			assert_int_equal(strlen(id.flash_sha256), SHA256_HEX_LEN);
			assert_true(id.flash_size > 0);
			assert_true(strlen(id.psid) <= 16 && strlen(id.vsd) <= 208);
		} else {
			assert_int_equal(st.code, CX_EIMAGE);
		}
	}
}

/* identity.json's writer (util/json.c) and reader agree on every byte a VSD may hold. */
static void test_writer_reader_round_trip(void **state)
{
	char *text = NULL, vsd[209];
	size_t len = 0;
	struct backup_identity id;
	struct cx_status st = {0};
	(void)state;

	for (int base = 1; base < 256; base += 208) {
		for (int i = 0; i < 208; i++)
			vsd[i] = (char)(base + i > 255 ? 1 + (base + i) % 255 : base + i);
		vsd[208] = '\0';
		FILE *f = open_memstream(&text, &len);
		struct json j;
		json_begin(&j, f);
		json_str(&j, "format", BACKUP_FORMAT);
		json_str(&j, "date", "2026-01-01T00:00:00Z");
		json_str(&j, "bdf", BDF);
		json_str(&j, "family", "ConnectX-3");
		json_str(&j, "chip", "ConnectX-3 A1");
		json_bool(&j, "recovery", true);
		json_int(&j, "flash_size", 2 * MIB);
		json_str(&j, "flash_sha256", "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff");
		json_str(&j, "vsd", vsd);
		json_end(&j);
		fclose(f);
		if (parse(text, len, &id, &st))
			fail_msg("%s", st.msg);
		assert_string_equal(id.vsd, vsd);
		assert_true(id.recovery);
		assert_false(id.have_image);
		free(text);
		text = NULL;
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bundle_of_a_card),
		cmocka_unit_test(test_identity_agrees_with_the_model),
		cmocka_unit_test(test_recovery_card),
		cmocka_unit_test(test_running_card_with_blank_flash),
		cmocka_unit_test(test_reads_differ),
		cmocka_unit_test(test_unwritable_dir),
		cmocka_unit_test(test_two_backups),
		cmocka_unit_test(test_reuse_an_identical_bundle),
		cmocka_unit_test(test_damaged_bundles),
		cmocka_unit_test(test_identity_reader),
		cmocka_unit_test(test_writer_reader_round_trip),
	};
	return cmocka_run_group_tests_name("backup", tests, NULL, NULL);
}
