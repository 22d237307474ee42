/* SPDX-License-Identifier: GPL-2.0-or-later */
/* setid_fs3.h — flint's `sg` on a ConnectX-4, 4 Lx or 5 card: its GUIDs and MACs put back
 * from the sticker (or changed), in its DEV_INFO.
 *
 * On these cards the GUIDs and MACs are device data (fs3-format.md §6): a burn never writes
 * them, so a card whose DEV_INFO is blank or damaged (the "GUIDs lost" case: q shows none, v
 * fails, the card may come up in recovery mode) gets them back only here, as a step of its
 * own that shows the old values (or "none/damaged") and the new ones and asks (default no).
 * Recovery mode (the VSEC gateway) and a running card (MFBA/MFBE, flash/fw_access.h) alike:
 * the card is written through device_io.h either way. In the write procedure's order
 * (write_procedure.h):
 *
 *   check   a card running secure firmware is refused (CX_EUNSUPPORTED, as burn_fs3.h); a
 *           write-protected part is refused before the card is read (CX_EPROTECTED: no
 *           --unprotect here, the change is small enough to make after clearing it by hand);
 *           the card is read with its device data (ops/devimage_fs3.h), parsed so that a
 *           lost DEV_INFO is not a structural fault (fs3_parse_dev_lost) and judged by
 *           every CRC but DEV_INFO's (fs3_devinfo_verdict: the image and the other device
 *           sections must be whole, CX_EIMAGE otherwise); image/fs3_devinfo.h plans the new
 *           DEV_INFO (MFG_INFO missing: CX_EIMAGE; guids_override_en clear: CX_EUNSUPPORTED
 *           unless o->restore_mfg_ids; bad values: CX_EVALUE); then o->review (the
 *           front end shows old and new and asks; non-zero refuses).
 *   plan    under the lock, the card read again and planned again from those bytes; the
 *           card's whole DEV_INFO already holding these values: nothing to do. FS3: the
 *           card's image is read whole and its re-burn prepared (image/fs3_burnimg.h) from
 *           a copy of the flash whose ITOC names the new DEV_INFO.
 *   write   ops/devinfo_order.h: the order, and why each step comes where it does.
 *   verify  the card read again strictly (fs3_parse, the query's verdict): one whole
 *           DEV_INFO with the new values, every other device section byte for byte as
 *           before; FS3: the image now at the re-burn's target, alone.
 *
 * The caller's backup (hooks.before_write) runs after the last check and before the first
 * write, as for every write. What a person does not get: a change of num/step (kept from
 * the old DEV_INFO, else MFG_INFO's), --guids/--macs lists (the ConnectX-4 layout has one
 * base each), the VSD (sv).
 */
#ifndef CX_SETID_FS3_H
#define CX_SETID_FS3_H

#include <stdbool.h>

#include "image/fs3_devinfo.h"
#include "ops/device.h"
#include "ops/write_procedure.h"

typedef int setid_fs3_review_fn(void *ctx, const struct fs3_devinfo_plan *p, struct cx_status *st);

struct setid_fs3_opts {
	struct fs3_sg_request rq;
	bool dry_run;
	bool restore_mfg_ids;        /* guids_override_en clear: allow writing MFG_INFO's own values */
	setid_fs3_review_fn *review; /* may be NULL: no question */
	void *review_ctx;
	struct write_hooks hooks;
};

struct setid_fs3_result {
	bool nothing_to_do;
	bool reburned;               /* FS3: the image was burned again, now at start */
	uint32_t start;
	bool old_valid;              /* the card had a whole DEV_INFO */
	uint64_t old_guid, old_mac, guid, mac;
	struct write_outcome out;    /* the card's state, and the bytes erased and programmed */
};

int setid_fs3_card(struct device *d, const struct setid_fs3_opts *o, struct setid_fs3_result *r,
		   struct cx_status *st);

/* What sg would start from, for a front end that asks for the values before anything is
 * written (the wizard): the card checked and read as setid_fs3_card()'s check reads it, and
 * refused with the same words (secure firmware, write protection, no valid image apart from
 * DEV_INFO, no MFG_INFO, no place for a new DEV_INFO); nothing is written. MFG_INFO's own
 * values are what o->restore_mfg_ids accepts when override_en is clear. */
struct setid_fs3_look {
	const char *format;          /* "FS3", "FS4" */
	bool override_en;            /* MFG_INFO's guids_override_en: other values may be set */
	uint64_t mfg_guid, mfg_mac;  /* MFG_INFO's base GUID and MAC (the factory's) */
	bool old_valid;              /* the card has a whole DEV_INFO in use ... */
	uint64_t old_guid, old_mac;  /* ... with these bases */
};
int setid_fs3_look(struct device *d, struct setid_fs3_look *l, struct cx_status *st);

#endif
