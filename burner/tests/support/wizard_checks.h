/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wizard_checks.h — test-only: what a wizard session left, checked (the rig: wizard_rig.h).
 *
 * A session is judged by what happened to the cards (their flash, the model's erase and
 * program counters, what they boot after a cold restart, their settings store) and by what
 * the wizard left in its data folder: history.jsonl, the bundles in backups/, the job
 * records in pending/, the reports in reports/, the traces in traces/. Each expect_ fails
 * the test with what it found (the file or the screen on stderr). */
#ifndef CX_TEST_WIZARD_CHECKS_H
#define CX_TEST_WIZARD_CHECKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rescue/pending.h"
#include "wizard_rig.h"

/* ---- the cards ---- */

/* Nothing was erased or programmed since the counters were zeroed, and the flash is before. */
void expect_untouched(struct cxsim_card *c, const uint8_t *before, size_t n);

/* What the card boots after a cold restart (the test fails when it boots nothing). */
const struct cxsim_boot *cold_boot(struct cxsim_card *c);

/* After a cold restart the card runs FW 2.minor.sub with this PSID, 4 GUIDs from guid and
 * 2 MACs from mac. */
void expect_boots(struct cxsim_card *c, const char *psid, int minor, int sub, uint64_t guid, uint64_t mac);

/* The next-boot value of the setting name in the card's store, or -1 when it holds none. */
long nv_value(const struct cxsim_card *c, const char *name);

/* ---- history.jsonl ---- */

/* want lines of history.jsonl hold every one of the (up to three) needles (b, c may be NULL). */
void expect_history(const struct rig *r, int want, const char *a, const char *b, const char *c);

/* ---- backups/ ---- */

/* How many bundles backups/ holds, and into *equal how many have a flash.bin equal to flash
 * (flash NULL: none compared). */
int bundles(const struct rig *r, const uint8_t *flash, size_t n, int *equal);

/* The name of the one bundle in backups/ into out. */
void only_bundle(const struct rig *r, char *out, size_t n);

/* The bundle's flash.bin equals flash. */
void expect_bundle_flash(const char *bundle, const uint8_t *flash, size_t n);

/* The card's flash equals the bundle's flash.bin. */
void expect_flash_is_bundle(struct cxsim_card *c, const char *bundle);

/* The files in dir (not . and ..; 0 when it cannot be read). */
int count_files(const char *dir);

/* ---- pending/ (rescue/pending.h) ---- */

/* The job records on the stick (pending_list() must succeed): how many in *np; free() them. */
struct pending *records(const struct rig *r, int *np);

/* How many job records are on the stick. */
int pending_count(const struct rig *r);

/* A "writing" record for card 1, as wiz_burn() or wiz_restore() leaves it when the power
 * goes: file is the image (image true: its SHA-256 and the stock image's PSID and FW go in
 * the record) or the bundle; guid 0 keys it by slot; identity as the record says it. */
void pend(struct rig *r, const char *action, uint64_t guid, const char *file, bool image, const char *identity);

/* ---- reports/ ---- */

/* The text of the one report a job wrote in reports/ (a .json file; malloc'd). */
char *report_text(const struct rig *r);

/* The "result" of the report's card at bdf is result. */
void expect_card_result(const char *report, const char *bdf, const char *result);

/* The string value of "key" in the report, looked up after the first `after` (NULL: from
 * the start); fails when it is absent or not a string. */
void report_value(const char *report, const char *after, const char *key, char *out, size_t n);

/* The path of the backup the report names for card bdf ("backup":{"path":...}). */
void report_backup(const char *report, const char *bdf, char *out, size_t n);

/* The reports folder removed (drop_reports), or emptied (clear_reports): report_text() then
 * reads the next session's. */
void drop_reports(const struct rig *r);
void clear_reports(const struct rig *r);

/* ---- traces/ ---- */

/* traces/ holds one trace, of the card at bdf, of this action, complete, with the accesses
 * of a backup and a burn. */
void expect_one_trace(struct rig *r, const char *action, const char *bdf);

#endif
