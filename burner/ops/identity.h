/* SPDX-License-Identifier: GPL-2.0-or-later */
/* identity.h — whose GUIDs, MACs and VSD a burned image carries (fs2-format.md §3.3).
 *
 * By default a burn keeps the card's identity: its GUIDs, MACs and VSD are
 * copied into the new image. The user may replace either group (--guid(s),
 * --mac(s), --vsd) or keep the image's own (--use_image_guids,
 * --use_image_ps). A card in recovery mode has no readable identity, so it
 * must be given. Whatever the sources, a burn never ends with blank GUIDs
 * or with the image's placeholders on a card that had its own.
 */
#ifndef CX_IDENTITY_H
#define CX_IDENTITY_H

#include <stdbool.h>

#include "image/fs2.h"
#include "image/patch.h"

struct identity_opts {
	struct guid_request given;   /* --guid(s)/--mac(s) */
	const char *vsd;             /* --vsd */
	bool use_image_guids, use_image_ps;
};

struct identity {
	uint64_t guid[GUIDS_NGUID];
	uint64_t mac[GUIDS_NMAC];
	bool set_guids;              /* patch the GUID section */
	char vsd[INFO_VSD_LEN + 1];
	bool set_vsd;
};

/* Decide the identity from the card's current image (NULL in recovery mode),
 * the new image and the options; refuses with one line when it cannot. */
int identity_decide(const struct fs2_image *current, const struct fs2_image *img,
		    const struct identity_opts *o, struct identity *id, struct cx_status *st);

/* Patch the decided identity into buf (the new image, parsed as img). */
int identity_apply(uint8_t *buf, const struct fs2_image *img, const struct identity *id,
		   struct cx_status *st);

#endif
