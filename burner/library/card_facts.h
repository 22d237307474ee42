/* SPDX-License-Identifier: GPL-2.0-or-later */
/* card_facts.h — what match_card() is told about a card, from what was read.
 *
 * `match` and the wizard's inventory both judge the library for a card; this
 * is the one place that turns what was read (ops/cardinfo.h: the card; an
 * image file; a backup bundle for a card in recovery mode) into the facts of
 * library/match.h. The facts point into what they were made from: keep the
 * cardinfo or image alive while they are used.
 */
#ifndef CX_CARD_FACTS_H
#define CX_CARD_FACTS_H

#include <stddef.h>

#include "image/fs3.h"
#include "image/info.h"
#include "library/match.h"
#include "ops/cardinfo.h"

struct card_facts {
	struct match_card mc;
	char psid[INFO_PSID_LEN + 1];
	char *ini;                  /* malloc'd .ini (an image file's or a backup's), or NULL */
	size_t ini_len;
	const char *ini_source;     /* "the flash", "the image file", "the backup" */
	const char *identity_note;  /* the bundle the PSID came from, when not the flash */
};

/* The facts of an opened and described card (borrows ci); of a ConnectX-4/4 Lx/5, its FS3/FS4
 * image's PSID, version and secure_fw, as q reads them (cardinfo.h: have_fs3). */
void card_facts_from_info(struct card_facts *k, const struct cardinfo *ci);

/* The PSID, version and .ini of the card's image (borrows img). */
void card_facts_from_image(struct card_facts *k, const struct fs2_image *img);

/* The same from an FS3/FS4 image (ConnectX-4 and later, fs3-format.md §5): its first
 * supported HW ID, IMAGE_INFO's PSID and version (what flint compares for a PSID change),
 * and whether its firmware is secure. The flash size is not set: a file does not say it. */
void card_facts_from_fs3(struct card_facts *k, const struct fs3_image *img);

/* A card without a readable image: its PSID, version and .ini from its backup
 * (checked whole first). bundle must outlive k. CX_EABSENT when the bundle
 * has no identity either; backup_verify's errors. */
int card_facts_from_bundle(struct card_facts *k, const char *bundle, struct cx_status *st);

void card_facts_free(struct card_facts *k);

#endif
