/* SPDX-License-Identifier: GPL-2.0-or-later */
/* guard.h — may this image go onto this card? The checks a burn makes before it
 * writes anything (fs2-format.md §3.3, field-notes.md §2.1–2.2), kept free of
 * I/O so each rule is tested by itself.
 *
 * guard_check() fills a verdict: refused (with the one-line reason and a
 * status code), or allowed with the questions the user must answer yes to
 * first (PSID change, same version, downgrade). The caller asks them.
 */
#ifndef CX_GUARD_H
#define CX_GUARD_H

#include <stdbool.h>
#include <stdint.h>

#include "image/fs2.h"

#define GUARD_MAX_QUESTIONS 4

struct guard_card {
	uint16_t hw_id;           /* crspace 0xf0014 bits 15:0 */
	uint8_t rev;              /* bits 23:16 */
	uint32_t flash_size;
	bool recovery;            /* no readable image: PSID/version checks do not apply */
	const struct fs2_image *current; /* the image on the card, or NULL */
};

struct guard_opts {
	bool allow_psid_change;
	bool no_devid_check;      /* flint's -no_devid_check: expert only */
};

struct guard_verdict {
	int code;                 /* CX_OK or why refused (CX_EMISMATCH, ...) */
	char reason[CX_MSG_MAX];
	int nquestions;
	char questions[GUARD_MAX_QUESTIONS][200];
	uint32_t max_image_size;
};

void guard_check(const struct guard_card *card, const struct fs2_image *img, const struct guard_opts *o,
		 struct guard_verdict *v);

/* flint's GetMaxImageSize for FS2 (fs2-format.md §1.5). */
uint32_t guard_max_image_size(const struct fs2_image *img, uint32_t flash_size);

/* -1, 0 or 1 comparing FW versions. */
int guard_cmp_version(const uint16_t a[3], const uint16_t b[3]);

#endif
