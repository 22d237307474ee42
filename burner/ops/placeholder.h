/* SPDX-License-Identifier: GPL-2.0-or-later */
/* placeholder.h — is a card's identity its own, or a release image's placeholder?
 *
 * A released firmware .bin carries placeholder GUIDs and MACs, meant to be
 * replaced at burn time (fs2-format.md §3.1). A stock image burned with
 * flint's --use_image_guids keeps them, and so does every card burned that
 * way: on a network they all have the same MACs. Such a card has no identity
 * of its own, however sound its image is; its real values are on its sticker
 * or in a backup made before that burn.
 *
 * placeholder_find() looks each GUID entry and each MAC of an image's GUID
 * section up in a table of the placeholder values known, each with where it
 * is documented; `list`, the wizard's inventory and `probe` call it. A blank
 * section (all ones) is not a placeholder (fs2_guids.blank says that one).
 */
#ifndef CX_OPS_PLACEHOLDER_H
#define CX_OPS_PLACEHOLDER_H

#include <stdint.h>

#include "image/guids.h"

enum placeholder_kind { PLACEHOLDER_GUID, PLACEHOLDER_MAC };

struct placeholder_id {
	enum placeholder_kind kind;
	uint64_t value;             /* a GUID (64 bits) or a MAC (its low 48 bits) */
	const char *what;           /* "node GUID", "port 1 MAC", ... as the source names it */
	const char *source;         /* where this value is documented */
};

/* The first table row one of g's GUIDs or MACs equals, or NULL: the card's
 * identity is its own (or blank, or g is NULL). */
const struct placeholder_id *placeholder_find(const struct fs2_guids *g);

/* The table itself (n rows), for the tests and a front end's help text. */
const struct placeholder_id *placeholder_table(int *n);

#endif
