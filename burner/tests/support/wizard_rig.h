/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wizard_rig.h — test-only: the rig the wizard's sessions run on (burner/tests/test_wizard_*.c).
 *
 * Each session test gets a fresh rig (WIZARD_TEST: rig_setup and rig_teardown): a folder of
 * its own under /tmp holding the stick's data folder, an empty firmware library and a board
 * table in which the HP board maps to the stock one. The test puts ConnectX cards in its
 * slots (in-process cxsim cards holding what mkfs2 makes), images in the library, sets the
 * wizard's options in r->o (a job, yes=1, an upload command...) and runs whole sessions of
 * wizard_run() through its public API: the user's answers come from a string, the screen
 * goes into r->out. The wizard sees the cards on a test bus, slot i at 0000:0i:00.0, opened
 * as device_open() opens a card (traced, so the wizard's traces record them too).
 *
 * What the wizard left (history, bundles, reports, job records) and what the cards hold
 * after are checked with wizard_checks.h; the upload command's stand-in is wizard_upload.h.
 * Everything the rig allocates for a test (cards, kept flash copies, the screen) is freed by
 * rig_teardown, so a test that fails halfway leaks nothing. */
#ifndef CX_TEST_WIZARD_RIG_H
#define CX_TEST_WIZARD_RIG_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "cxsim.h"
#include "ops/backup.h"
#include "rescue/menu.h"
#include "rescue/session.h"
#include "rescue/wizard.h"

/* ---- the cards and images the sessions use ---- */

#define HP_PSID "HP_0280210019"
#define STOCK_PSID "MT_1090120019"   /* mkfs2's default ConnectX-3 PSID */
#define HP_SUBSYS_VENDOR 0x103c
#define HP_SUBSYS_DEVICE 0x18d6      /* library/boards.txt: 661685-001 */
#define SMALL "--ddr 2 --ddr-size 0x1000"
#define HP_OPTS "--chip cx3 --psid " HP_PSID " --fw 2.40.5030 " SMALL
#define OLD_STOCK_OPTS "--chip cx3 --fw 2.40.5030 " SMALL
#define CX2_OPTS "--chip cx2 --old-guids --guid 0002c90300c0ffe0 " SMALL /* 4 GUIDs, no MACs */
#define FLASH_PART "W25Q80"          /* 1 MiB: every backup reads the whole flash twice */
#define LIB_FLASH " --flash-size 0x100000" /* the .ini of a library image names the flash size */
#define STOCK_IMAGE "--chip cx3 --fw 2.42.5000 " SMALL LIB_FLASH
#define PRO_IMAGE "--chip cx3pro " SMALL LIB_FLASH
#define REAL_TABLE "library/boards.txt"
#define URL "https://example.org/src"

/* The identities of the rig's cards: the HP card (A) and the stock one (B). */
#define G_A 0x0002c90300c0ffe0ull
#define M_A 0x0002c9c0ffe0ull
#define G_B 0x0002c90300b0bbb0ull
#define M_B 0x0002c9b0bbb0ull
/* What a user types from a sticker. */
#define STICKER_G 0x0002c90300123450ull
#define STICKER_G_TYPED "0002C903-00123450"
#define STICKER_M 0x0002c9123450ull
#define STICKER_M_TYPED "00:02:c9:12:34:50"

#define MAX_CARDS 4
#define MAX_KEPT 8

struct rig {
	char root[64];               /* the test's folder */
	char data[128], fw[128], boards[128];
	char stock[256];             /* the library's stock.bin, once add_stock() put it there */
	char lock[128];              /* the session lock, once use_lock() gave it to the wizard */
	struct cxsim_card *cards[MAX_CARDS]; /* slot i: 0000:0(i+1):00.0 */
	int ncards;
	const char *fw_dirs[1];      /* the library's folders: fw */
	struct wizard_opts o;        /* what wizard_run() is given */
	char *out;                   /* the last session's screen */
	size_t outlen;
	void *kept[MAX_KEPT];        /* flash copies and the like, freed by rig_teardown */
	int nkept;
};

/* ---- a test ---- */

int rig_setup(void **state);
int rig_teardown(void **state);

/* One session test in a cmocka table: a fresh rig for it. */
#define WIZARD_TEST(f) cmocka_unit_test_setup_teardown(f, rig_setup, rig_teardown)

/* main()'s run of a table of WIZARD_TESTs; TEST_FILTER='*rom*' runs the tests whose names
 * match, WIZARD_SHOW=1 prints every screen and report. */
#define RUN_WIZARD_TESTS(tests) (rig_filter(), cmocka_run_group_tests(tests, NULL, NULL))
void rig_filter(void);

/* ---- cards in the slots ---- */

/* A ConnectX-3 (FLASH_PART) in the next slot with these subsystem IDs, holding what mkfs2
 * makes from opts with this GUID and MAC (opts NULL: an erased flash, so recovery mode). */
struct cxsim_card *add_card(struct rig *r, const char *opts, uint16_t sv, uint16_t sd, uint64_t guid,
			    uint64_t mac);

/* A card of chip with the model's defaults (its flash part, Mellanox's subsystem IDs) in the
 * next slot, holding what mkfs2 makes from opts (NULL: an erased flash). */
struct cxsim_card *add_chip_card(struct rig *r, enum cxsim_chip chip, const char *opts);

/* A card of p in the next slot, its flash as cxsim_new() leaves it: the test fills it. */
struct cxsim_card *add_params_card(struct rig *r, const struct cxsim_params *p);

/* The HP card: HP_OPTS on HP's subsystem IDs, identity A. */
struct cxsim_card *hp_card(struct rig *r);

/* The HP card, and add_stock(): where most sessions start. */
struct cxsim_card *hp_with_stock(struct rig *r);

/* A Mellanox card with older stock firmware (OLD_STOCK_OPTS), identity B. */
struct cxsim_card *old_stock_card(struct rig *r);

/* Two cards, the HP one (slot 1) and old_stock_card (slot 2), add_stock(), the real board
 * table, yes=1; each card's flash kept as watch_flash() keeps it: *hp_flash card 1's,
 * *stock_flash card 2's (may be NULL), *n their size (both FLASH_PART). */
void two_cards(struct rig *r, const uint8_t **hp_flash, const uint8_t **stock_flash, size_t *n);

/* The rig frees p (malloc'd) at teardown; returns p. */
void *keep(struct rig *r, void *p);

/* A copy of the card's flash as it is now, kept by the rig (its size in *n). */
const uint8_t *keep_flash(struct rig *r, struct cxsim_card *c, size_t *n);

/* keep_flash(), and the card's counters zeroed: what expect_untouched() compares with. */
const uint8_t *watch_flash(struct rig *r, struct cxsim_card *c, size_t *n);

/* The card wiped: it boots into recovery mode. */
void brick(struct cxsim_card *c);

/* ---- the library ---- */

/* An image mkfs2 makes from opts in the library folder as name; its path into path (may be
 * NULL). */
void add_image(struct rig *r, const char *name, const char *opts, char *path, size_t n);

/* The stock image (STOCK_IMAGE: the HP card's cross-flash, the old stock card's update) in
 * the library as stock.bin, its path in r->stock. */
void add_stock(struct rig *r);

/* ---- bundles made outside the wizard ---- */

/* A bundle of card 1 in the wizard's backups folder, made some earlier day. */
void backup_outside(struct rig *r, struct cxsim_card *c, struct backup_result *b);

/* A bundle of card idx (its flash as it is now) in the rig's server/ folder: a PXE server's
 * copy of a node's backup, for job=restore (not the wizard's backups/). */
void server_bundle(struct rig *r, int idx, struct backup_result *b);

/* ---- the session lock (rescue/session.h) ---- */

/* The wizard takes its session lock at r->lock (r->o.lock_path), as every console's does. */
void use_lock(struct rig *r);

/* use_lock(), and another console (ttyS0) holds the lock in other: session_close() it to let
 * go. */
void lock_elsewhere(struct rig *r, struct session *other);

/* ---- a session ---- */

/* One wizard session with these answers (lines); its screen goes into r->out. */
int run(struct rig *r, const char *answers);

/* run(), which must return want. */
void expect_run(struct rig *r, const char *answers, int want);

/* The session's return code was want (the screen is shown when not). */
void expect_rc(const struct rig *r, int got, int want);

/* The screen holds needle (expect_said), or does not (expect_not_said). */
void expect_said(const struct rig *r, const char *needle);
void expect_not_said(const struct rig *r, const char *needle);

/* Where needle first appears on the screen (the test fails without it). */
size_t said_at(const struct rig *r, const char *needle);

/* The screen on stderr, for a failure's message. */
void dump(const struct rig *r);

#endif
