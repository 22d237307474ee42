/* SPDX-License-Identifier: GPL-2.0-or-later */
/* burn.h — putting a firmware image on a card, failsafe and identity-preserving.
 *
 * burn_card() does, in order (fs2-format.md §3.3, §4.2): parse and verify the
 * image; read the structure, GUID and IMAGE_INFO sections of the card's
 * current image (devimage_read_meta; in recovery mode only for the GUIDs its
 * damaged image may still hold, when none are given);
 * apply the rules of ops/guard.h, the ones `match` applies too (the image fits
 * the card, the PSID, the chunk size, the identity can be decided: ops/identity.h)
 * and ask the questions a PSID change or a downgrade needs, on the image with the
 * expansion ROM burn_opts.rom chose (ops/burn_rom.h: the card's carried in by
 * default, as flint); patch the identity;
 * compare the card's image with the patched one, byte for
 * byte as read from the flash, up to the first difference: if the card
 * already holds exactly that image, nothing is written. Otherwise write it
 * failsafe (ops/failsafe.h) with the diff-aware writer (ops/write_region.h), which
 * verifies every byte it changes, and check what that verify cannot: the
 * card's lowest image is the new one and walks (headers, GUID and IMAGE_INFO)
 * as the image does (burn.c argues why this replaces a whole read-back).
 *
 * The steps run in the write procedure's order (ops/write_procedure.h): the
 * checks and questions, then under the flash semaphores the comparison, the
 * backup (before_write: the caller's job, it knows where bundles go), the
 * write and the check after it; r->out says the card's state on every path.
 */
#ifndef CX_BURN_H
#define CX_BURN_H

#include <stdbool.h>
#include <stdint.h>

#include "ops/burn_rom.h"
#include "ops/write_procedure.h"
#include "ops/device.h"
#include "ops/guard.h"
#include "ops/identity.h"
#include "ops/write_region.h"

struct burn_opts {
	struct identity_opts ident;
	struct guard_opts guard;
	bool dry_run;
	/* The expansion ROM of the result (ops/burn_rom.h): ROM_KEEP (the card's; the
	 * default) unless asked; ROM_IMAGE is flint's -use_image_rom. */
	enum rom_pick rom;
	const uint8_t *rom_file;     /* ROM_FILE: the ROM's bytes (checked by the burn) */
	size_t rom_file_len;
	bool nofs;                   /* not failsafe: the image at the first slot (flint's -nofs) */
	bool unprotect;              /* FS3/FS4 cards: a write-protected flash may be unprotected for the
				      * burn, after a question (burn_fs3.h) */
	/* confirm: the PSID-change, downgrade and --nofs questions; before_write: the
	 * backup, after the checks pass and before the first write; progress; after:
	 * the history (ops/write_procedure.h). Every member may be NULL. */
	struct write_hooks hooks;
};

struct burn_result {
	bool nothing_to_do;
	bool rom_carried;            /* ROM_KEEP changed the image: the card's ROM (or its
				      * having none) replaced what the image file carried */
	/* The card's ROM before (n -1 in recovery mode, where no image is read), the image
	 * file's own and the burned image's, for the front ends' "ROM: from -> to" (dry
	 * runs too). A ROM_FILE
	 * devid mismatch, which flint only warns about, is in rom_warning ("" if none). */
	struct rom_set rom_before, rom_image, rom_after;
	char rom_warning[CX_MSG_MAX];
	uint32_t start;              /* where the image went */
	bool had_image;              /* old_fw and old_psid were read from the card: false in recovery
				      * mode, where burn_card() reads no image (there is none to read) */
	uint16_t old_fw[3], new_fw[3];
	char old_psid[17], new_psid[17];
	uint64_t bytes_erased, bytes_programmed;
	/* Where the burned GUIDs came from (ops/identity.h). ID_SRC_DAMAGED: the card
	 * is in recovery mode and they were read from its damaged image, whose GUID
	 * section's CRC is good; the wizard and `burn` say so. */
	enum identity_source guid_source;
	/* Where the burned VSD came from, in the same words: ID_SRC_DAMAGED is a recovery-mode
	 * card's damaged image, whose IMAGE_INFO section's CRC is good. */
	enum identity_source vsd_source;
	struct write_outcome out;    /* the card's state, what was read, erased, programmed */
};

int burn_card(struct device *d, const uint8_t *img, size_t len, const struct burn_opts *o,
	      struct burn_result *r, struct cx_status *st);

/* What a recovery-mode card's damaged flash still tells of its identity, as burn_card()
 * reads it when given no GUIDs or no VSD: when an image's structure walks, its GUIDs and
 * MACs if its GUID section's CRC is good (have_guids), its VSD if its IMAGE_INFO
 * section's CRC is good and holds one (have_vsd). The wizard offers them before it asks
 * for a backup or the sticker. Reads only; CX_OK with neither when the flash holds no
 * such image. */
struct recovered_id {
	struct fs2_guids guids;
	bool have_guids;
	char vsd[INFO_VSD_LEN + 1];
	bool have_vsd;
};
int burn_recovered(struct device *d, struct recovered_id *out, struct cx_status *st);

/* What the card held before the burn, for both front ends' "before -> after" line:
 * "FW 2.40.5030", or "recovery mode, no readable image" (never a made-up 0.0.0).
 * Returns buf. */
#define BURN_FROM_NONE "recovery mode, no readable image"
const char *burn_from_text(const struct burn_result *r, char *buf, size_t n);

#endif
