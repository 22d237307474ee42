/* SPDX-License-Identifier: GPL-2.0-or-later */
/* guard.h — may this image go onto this card? Every rule a burn applies before
 * it writes anything (fs2-format.md §3.3, field-notes.md §2.1–2.2), kept free
 * of I/O so that the burn (ops/burn.h, from the card it reads) and `match`
 * (library/match.h, from what it was told of the card) apply the same ones:
 * a verdict of OK or RISKY is never followed by a refusal of the burn.
 *
 * The rules, in the order they apply (the first that refuses decides):
 *
 *   verify     the image parses and its checksums hold (blank GUIDs are fine:
 *              the burn sets them)
 *   trailing   the file holds nothing after the image's last section
 *   chip       the image is for the card's chip family and revision (tag 10),
 *              or its device type (tag 3) names the family
 *   size       it fits the card's flash (guard_max_image_size)
 *   PSID       the card's PSID, or a PSID change allowed (--allow_psid_change)
 *   chunk      a failsafe image onto a failsafe image: the same chunk size
 *   identity   the GUIDs, MACs and VSD it will carry can be decided
 *              (ops/identity.h); judged only when the identity options are known
 *
 * The first two look at the file by itself (guard_check_file); the rest at the
 * image as it will be written, after the card's expansion ROM was carried into
 * it (image/rom_insert.h), on the card (guard_check). The card's PSID, version
 * and chunk size come from its image: a card in recovery mode has none, and
 * those rules do not apply to it.
 *
 * An allowed burn may still come with questions the user must answer yes to
 * first (a PSID change, the same version again, a downgrade). The caller asks.
 */
#ifndef CX_GUARD_H
#define CX_GUARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "image/fs2.h"
#include "ops/identity.h"

#define GUARD_MAX_QUESTIONS 4

enum guard_rule {
	GUARD_VERIFY,
	GUARD_TRAILING,
	GUARD_CHIP,
	GUARD_SIZE,
	GUARD_PSID,
	GUARD_CHUNK,
	GUARD_IDENTITY,
	GUARD_NRULES
};

struct guard_card {
	uint16_t hw_id;           /* crspace 0xf0014 bits 15:0 */
	uint8_t rev;              /* bits 23:16 */
	uint32_t flash_size;
	bool recovery;            /* no readable image: PSID/version checks do not apply */
	const struct fs2_image *current; /* the image on the card, or NULL */
};

/* What the burn is given. */
struct guard_opts {
	bool allow_psid_change;
	bool no_devid_check;      /* flint's -no_devid_check: expert only */
	/* The identity options the burn gets; NULL: not known here (whoever burns
	 * gives the identity), and the identity rule is not judged. burn_card()
	 * sets it to its burn_opts.ident. */
	const struct identity_opts *ident;
};

struct guard_verdict {
	int code;                 /* CX_OK or why refused (CX_EMISMATCH, ...) */
	enum guard_rule rule;     /* the rule that refused; GUARD_NRULES when none did */
	char reason[CX_MSG_MAX];
	int nquestions;
	char questions[GUARD_MAX_QUESTIONS][200];
	uint32_t max_image_size;
	struct identity id;       /* decided when the identity rule was judged and passed */
};

/* The file by itself (len bytes at buf): verify, trailing. img receives the
 * parse (valid when v->code is CX_OK). */
void guard_check_file(const uint8_t *buf, size_t len, struct fs2_image *img, struct guard_verdict *v);

/* The image (as it will be written) on the card: chip to identity, and the
 * questions. */
void guard_check(const struct guard_card *card, const struct fs2_image *img, const struct guard_opts *o,
		 struct guard_verdict *v);

/* "verify", "trailing", "chip", "size", "PSID", "chunk", "identity". */
const char *guard_rule_name(enum guard_rule r);

/* flint's GetMaxImageSize for FS2 (fs2-format.md §1.5). */
uint32_t guard_max_image_size(const struct fs2_image *img, uint32_t flash_size);

/* -1, 0 or 1 comparing FW versions. */
int guard_cmp_version(const uint16_t a[3], const uint16_t b[3]);

#endif
