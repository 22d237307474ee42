/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ini_diff.h — reading a board .ini and comparing a card's with a target image's.
 *
 * The board .ini (fs2-format.md §5) is what mlxburn built an image from; its
 * inflated text comes out of the FW_CONF section (image/ini.h). Cross-flashing
 * an OEM card means swapping its .ini for the stock board's, and the keys that
 * describe the hardware (PCI IDs, ports, GPIOs, serdes lanes, flash geometry)
 * are what bricks cards when they differ (field-notes.md §2.2, §2.7).
 *
 * Text format, as mlxburn writes it (fs2-format.md §5) and as users edit it:
 *   ;; comment, also "; comment" and "# comment", alone on a line
 *   [SECTION]
 *   key = value
 * Section and key names compare case-insensitively; the value is the text after
 * the first '=', blanks trimmed. A key before any section belongs to section "".
 * Lines that are none of these are recorded as unparsed, never fatal: a real
 * file must not stop the report. A key given twice in one section keeps its
 * last value (the later line wins, as in a hand-edited file) at the place of
 * its first line. A value keeps any ';' in it ("adapter card; dual-port QSFP" is
 * how Mellanox words board descriptions), so there are no trailing comments.
 * A UTF-8 byte order mark at the start is skipped.
 *
 * ini_compare() pairs the keys of both files (section + key) and classes each
 * pair:
 *   INI_SAME      equal values: numerals compare by value (0x10 == 16, 0x000a == 0xa),
 *                 true/false and yes/no case-insensitively, anything else as trimmed
 *                 text. Where a reading is in doubt the values differ, which can only
 *                 over-report: "010" is text (octal to strtoul), true is not yes (two
 *                 vocabularies; we do not know that firmware tools treat them alike),
 *                 nor 1, and a numeral beyond 64 bits is text;
 *   INI_EXPECTED  differs, and the key is one that names or identifies a board
 *                 rather than describing its hardware: ini_expected_keys[];
 *   INI_RISKY     any other difference, and a key present on one side only.
 * Unknown keys are risky on purpose: a key we have not classed may wire a pin.
 */
#ifndef CX_INI_DIFF_H
#define CX_INI_DIFF_H

#include <stdbool.h>
#include <stddef.h>

#include "util/status.h"

#define INI_DOC_MAX_KEYS 4096   /* ours: a real board .ini has ~300 keys */

struct ini_kv {
	const char *section;    /* as written, without brackets; "" before any section */
	const char *key;
	const char *value;      /* trimmed; may be "" */
	unsigned line;
};

struct ini_doc {
	struct ini_kv *kv;      /* in file order, duplicates resolved (last wins) */
	size_t n;
	unsigned unparsed;      /* lines that were not a comment, section or key */
	unsigned first_unparsed;/* line number of the first of them, 0 if none */
	char *text;             /* a private copy the kv strings point into */
};

/* Parse len bytes of .ini text (need not be NUL-terminated). CX_EIMAGE only
 * when there are more than INI_DOC_MAX_KEYS distinct keys or a NUL byte;
 * CX_ENOMEM. On failure *d is left empty, and ini_doc_free() is safe. */
int ini_doc_parse(const char *text, size_t len, struct ini_doc *d, struct cx_status *st);
void ini_doc_free(struct ini_doc *d);

/* The value of section/key (case-insensitive; section NULL means ""), or NULL. */
const char *ini_doc_get(const struct ini_doc *d, const char *section, const char *key);

enum ini_class { INI_SAME, INI_EXPECTED, INI_RISKY };

struct ini_pair {
	enum ini_class cls;
	const char *section, *key;      /* from whichever side has the key */
	const char *card, *image;       /* the values; NULL where that side lacks the key */
};

struct ini_diff {
	struct ini_pair *pairs;         /* card's keys in file order, then the image's own */
	size_t n;
	size_t nsame, nexpected, nrisky;
};

/* Compare; the pairs point into both docs, which must outlive the diff. */
int ini_compare(const struct ini_doc *card, const struct ini_doc *image, struct ini_diff *out,
		struct cx_status *st);
void ini_diff_free(struct ini_diff *d);

/* INI_EXPECTED if section/key may differ between an OEM board and its stock
 * twin, else INI_RISKY. The list is ini_expected_keys[] in ini_diff.c:
 * [PS_INFO] Name, Description, PRS_name and [ADAPTER] PSID. */
enum ini_class ini_key_class(const char *section, const char *key);

/* Whether two values are equal under the rules above; NULL equals only NULL. */
bool ini_value_equal(const char *a, const char *b);

#endif
