/* SPDX-License-Identifier: GPL-2.0-or-later */
/* identity.h — whose GUIDs, MACs and VSD a burned image carries (fs2-format.md §3.3).
 *
 * By default a burn keeps the card's identity: its GUIDs, MACs and VSD are
 * copied into the new image. The user may replace either group (--guid(s),
 * --mac(s), --vsd) or keep the image's own (--use_image_guids,
 * --use_image_ps). A card in recovery mode has no image to read its identity
 * from, so it must be given, unless its damaged image still holds a GUID
 * section whose CRC is good: then those GUIDs and MACs are the card's, as
 * mstflint 3.8 keeps them (hw-access.md §9.2 D6); its VSD is kept the same
 * way when that image's IMAGE_INFO section's CRC is good, as 3.8 keeps it too
 * (§9.2 D13). Whatever the sources, a burn never ends with blank GUIDs or with
 * the image's placeholders on a card that had its own; identity.source says
 * where the GUIDs came from, identity.vsd_source where the VSD came from.
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
	/* A recovery-mode card's own GUIDs and MACs, read from its damaged image
	 * whose GUID section's CRC is good (ops/burn.c does); NULL: none. Taken
	 * like a running card's when none are given. */
	const struct fs2_guids *recovered;
	/* That card's own VSD, read from its damaged image whose IMAGE_INFO section's
	 * CRC is good; NULL: none. Kept like a running card's when no --vsd is given. */
	const char *recovered_vsd;
};

/* Where a burn's GUIDs come from (its MACs come from --mac(s) when given,
 * else from the same place), and where its VSD comes from. */
enum identity_source {
	ID_SRC_CARD,       /* the card's image */
	ID_SRC_GIVEN,      /* --guid(s) or --vsd (or a backup bundle, --identity-from, which fills them) */
	ID_SRC_DAMAGED,    /* a recovery-mode card's damaged image, the section's CRC good */
	ID_SRC_IMAGE,      /* the new image's own (--use_image_guids, --use_image_ps, or a VSD
			    * that could not be kept: none read, or none in the new image) */
};

struct identity {
	uint64_t guid[GUIDS_NGUID];
	uint64_t mac[GUIDS_NMAC];
	bool set_guids;              /* patch the GUID section */
	enum identity_source source;
	char vsd[INFO_VSD_LEN + 1];
	bool set_vsd;
	enum identity_source vsd_source;
};

/* "card", "given", "damaged-image", "image": the JSON word for a source. */
const char *identity_source_name(enum identity_source s);

/* Decide the identity from the card's current image (NULL in recovery mode,
 * where o->recovered and o->recovered_vsd may hold what its damaged image still tells), the new
 * image and the options; refuses with one line when it cannot. */
int identity_decide(const struct fs2_image *current, const struct fs2_image *img,
		    const struct identity_opts *o, struct identity *id, struct cx_status *st);

/* Patch the decided identity into buf (the new image, parsed as img). */
int identity_apply(uint8_t *buf, const struct fs2_image *img, const struct identity *id,
		   struct cx_status *st);

#endif
