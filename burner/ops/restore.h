/* SPDX-License-Identifier: GPL-2.0-or-later */
/* restore.h — writing a backup bundle (backup.h) back onto its card.
 *
 * restore_card() checks everything before it writes anything:
 *  1. the bundle: backup_verify() (every SHA-256 in SHA256SUMS), then
 *     flash.bin is read once into memory and hashed again, and that copy is
 *     what gets written, so a file changed after the check cannot slip in;
 *  2. the card: same chip family and revision as identity.json records, same
 *     flash size — never overridable (the flash holds chip-specific code);
 *  3. the identity: the card's node GUID and first MAC, read from its image,
 *     must be the bundle's. A different card is refused (CX_EMISMATCH) unless
 *     force is set, and then the user is asked. A card whose identity cannot
 *     be read (recovery mode, no image, blank GUIDs) is not refused: the user
 *     is asked, since restoring such a card is what bundles are for;
 *  4. under the flash semaphores, held from here to the end of the write
 *     (ops/write_procedure.h), the card's whole flash is read once; if it already
 *     equals the bundle, nothing is written.
 * Then before_write (the caller's backup of the card as it is now), the
 * write (ops/restore_order.h: in an order that keeps a whole image on the card at
 * every instant), planned from that one read (write_region_known), so only
 * the erase units that differ are erased, programmed and read back. That
 * per-unit verify proves the whole flash equals the bundle (restore.c
 * argues it), so flash_sha256 is the bundle's without a third read.
 *
 * A card of an FS3/FS4 family (ConnectX-4, 4 Lx, 5) goes to restore_fs3_card()
 * (restore_fs3.h): the same checks, its identity read from DEV_INFO, its own order, and
 * its device data written only when asked (device_data).
 */
#ifndef CX_RESTORE_H
#define CX_RESTORE_H

#include <stdbool.h>
#include <stdint.h>

#include "ops/backup.h"
#include "ops/write_procedure.h"
#include "ops/device.h"
#include "ops/restore_order.h"
#include "ops/write_region.h"

struct restore_opts {
	bool force;                 /* accept a bundle of another card (asks) */
	bool dry_run;               /* check and plan only */
	bool device_data;           /* FS3/FS4: write the bundle's device data (GUIDs, MACs, VPD, settings)
				     * when it differs from the card's (asks; restore_fs3.h) */
	bool unread_identity_ok;    /* a card whose identity cannot be read takes the bundle without
				     * a question (an unattended job that named its bundle) */
	/* FS3/FS4 with device_data: the device data's own question (base GUID and MAC before ->
	 * after) goes to this hook, with hooks.confirm_ctx, instead of hooks.confirm: a front end
	 * that took the plan with one confirmation still asks it apart (the wizard: default no).
	 * NULL: hooks.confirm, like every other question. */
	int (*confirm_device_data)(void *ctx, const char *question, struct cx_status *st);
	/* FS3/FS4 without device_data: how the refusal says the device data is asked for
	 * ("cxrescue.device_data=1"); NULL: "--device-data (asks)", cxflash's option. */
	const char *device_data_how;
	/* confirm: the questions above; before_write: the backup of the card as it is
	 * now; progress; after: the history (ops/write_procedure.h). Each may be NULL. */
	struct write_hooks hooks;
};

struct restore_result {
	struct backup_identity id;  /* the bundle's identity.json */
	struct rewrite_info plan;
	bool nothing_to_do;         /* the flash already equals the bundle */
	bool identity_checked;      /* the card's GUID/MAC were read and matched */
	bool device_data_written;   /* FS3/FS4: the device area was written too (restore_fs3.h) */
	bool device_data_differs;   /* FS3/FS4: the plan found the bundle's device data other than
				     * the card's (written only with device_data, after its question) */
	uint64_t bytes_erased, bytes_programmed;
	char flash_sha256[SHA256_HEX_LEN + 1]; /* of the flash as proven after the write */
	struct write_outcome out;   /* the card's state, what was read, erased, programmed */
};

int restore_card(struct device *d, const char *bundle_dir, const struct restore_opts *o,
		 struct restore_result *r, struct cx_status *st);

#endif
