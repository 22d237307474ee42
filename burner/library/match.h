/* SPDX-License-Identifier: GPL-2.0-or-later */
/* match.h — which library image should this card get, and why.
 *
 * Cross-flashing an OEM card is where people brick cards (field-notes.md §2.1,
 * §2.2, §2.7); match_card() decides for every image of the manifest, so that
 * nobody has to guess a PSID. Each candidate gets a verdict:
 *
 *   REFUSED  the burn must not happen: the file is not a sound image or its
 *            pinned hash differs; a rule of the burn refuses it (ops/guard.h,
 *            the same rules applied to the same facts: checksums, bytes after
 *            the last section, chip family, revision or device type, size,
 *            chunk size, and with the burn's options the PSID and the
 *            identity), the burn's code and reason in burn_code and reasons[];
 *            or nothing ties the card's PSID to the image's (neither the same
 *            PSID nor a board-table mapping) — unless the user asked for
 *            expert mode, where that last one is only RISKY.
 *   RISKY    it may work, but something is known to be able to break the card;
 *            every such thing is a reason: the board table's mapping is an
 *            inference, the port type changes (EN-only firmware on a VPI card
 *            or the reverse), the card's PSID or .ini cannot be read, or the
 *            .ini risk report (library/ini_diff.h) finds a hardware key that
 *            differs between the card's board .ini and the image's.
 *   OK       none of the above.
 *
 * The burn's rules see the image as the burn would write it: with the expansion
 * ROM match_opts.rom chooses, by the burn's own rule (ops/burn_rom.h: by default
 * the card's carried into an image that has none), so the size rule counts it. A verdict of OK or RISKY is therefore never followed
 * by a refusal of burn_card() given the options of match_opts.burn.
 *
 * The .ini report counts on a cross-flash (another PSID). On the card's own
 * PSID the image carries its board's vendor .ini; differences are still listed
 * but do not make the verdict.
 *
 * Candidates are ranked: verdict (OK, RISKY, REFUSED), then the card's own PSID
 * before a mapped cross-flash before anything else, then the newest FW
 * version, then the file name. The first one, if it is not REFUSED, is the
 * recommendation.
 */
#ifndef CX_MATCH_H
#define CX_MATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "image/fs2.h"
#include "library/boards.h"
#include "library/ini_diff.h"
#include "library/manifest.h"
#include "ops/burn_rom.h"
#include "ops/guard.h"
#include "util/status.h"

#define MATCH_MAX_REASONS 8
#define MATCH_REASON_LEN CX_MSG_MAX /* a burn's reason, whole */
#define MATCH_LINE_LEN 400

/* What is known about the card. */
struct match_card {
	uint16_t hw_id;                 /* crspace 0xf0014 bits 15:0 */
	uint8_t rev;                    /* bits 23:16 */
	uint32_t flash_size;
	bool recovery;                  /* livefish: no image to read */
	const struct fs2_image *current;/* the card's whole image (its ROM bytes too), or NULL */
	const char *psid;               /* the card's PSID: current's, or from a backup; NULL if unknown */
	bool have_fw;
	uint16_t fw_ver[3];             /* the FW on the card (from current or a backup) */
	uint16_t dev_type;              /* current's tag 3, 0 if unknown */
	const char *ini_text;           /* the card's board .ini (FW_CONF or a backup's), or NULL */
	size_t ini_len;
	uint32_t pci_class;             /* 24-bit PCI class code, 0 if unknown */
	bool secure_fw;                 /* its FS3/FS4 firmware says secure_fw (fs3-format.md §5) */
	uint16_t subsys_vendor, subsys_device; /* 0 if unknown */
};

struct match_opts {
	bool expert;                    /* an unmapped PSID change is RISKY, not REFUSED */
	/* The options the burn will get. NULL: a PSID change allowed (the board
	 * table judges it here; the burn asks) and the identity not judged (whoever
	 * burns gives what the card needs). */
	const struct guard_opts *burn;
	/* The ROM the burn will be given (burn_opts.rom, ops/burn_rom.h): the plan applies
	 * the burn's own rule. ROM_KEEP when zeroed. */
	struct rom_choice rom;
};

enum match_verdict { MATCH_OK, MATCH_RISKY, MATCH_REFUSED };
enum match_relation { REL_SAME_PSID, REL_CROSS_FLASH, REL_UNRELATED, REL_UNKNOWN };

struct match_candidate {
	const struct manifest_entry *e;
	enum match_verdict verdict;
	enum match_relation rel;
	const struct board *via;        /* the row that maps the card to it (cross-flash) */
	int version_cmp;                /* image vs card: 1 upgrade, 0 same, -1 downgrade; 2 unknown */
	char line[MATCH_LINE_LEN];      /* the one-line summary a person reads first */
	int nreasons;                   /* why RISKY or REFUSED, most serious first */
	char reasons[MATCH_MAX_REASONS][MATCH_REASON_LEN];
	enum match_verdict reason_v[MATCH_MAX_REASONS]; /* what each reason makes the verdict */
	int burn_code;                  /* the code burn_card() would refuse it with (its reason is
					 * in reasons[]), CX_OK when the burn's rules let it pass */
	enum guard_rule burn_rule;      /* the rule of ops/guard.h that refuses, GUARD_NRULES if none */
	bool have_diff;                 /* both .ini files read and compared */
	struct ini_doc image_ini;
	struct ini_diff diff;
};

struct match_result {
	struct match_candidate *c;      /* ranked */
	size_t n;
	int best;                       /* index of the recommendation, -1 if none */
	const struct board *card_row;   /* the board table's row of the card's PSID */
	enum board_port card_port;
	char card_port_basis[160];
	bool have_card_ini;
	struct ini_doc card_ini;
};

/* Judge every entry of m for card. t may be NULL (no mappings: only the card's
 * own PSID can be OK). Fails only on memory; a bad image is a REFUSED candidate. */
int match_card(const struct match_card *card, const struct manifest *m, const struct board_table *t,
	       const struct match_opts *o, struct match_result *r, struct cx_status *st);
void match_free(struct match_result *r);

/* "OK", "RISKY", "REFUSED". */
const char *match_verdict_name(enum match_verdict v);
/* "same PSID", "cross-flash", "unrelated PSID", "card PSID unknown". */
const char *match_relation_name(enum match_relation r);

#endif
