/* SPDX-License-Identifier: GPL-2.0-or-later */
/* restore_fs3.h — a backup bundle written back onto its ConnectX-4, 4 Lx or 5 card (FS3/FS4).
 *
 * restore_card() (restore.h) hands a card whose chip row says FS3 or FS4 here, with the same
 * options and result, so both front ends restore these cards with the calls, questions,
 * backup and progress they already give a ConnectX-3. In the write procedure's order
 * (write_procedure.h):
 *
 *   check   secure firmware refused (CX_EUNSUPPORTED, as burn_fs3.h); a write-protected
 *           flash refused (CX_EPROTECTED) before the bundle is read; the bundle
 *           (restore_bundle.h: hashes, same family, revision, flash size); the card's
 *           identity, its DEV_INFO base GUID and MAC (fs3-format.md §6.2), must be the
 *           bundle's (identity.json): another card is refused (CX_EMISMATCH) unless force,
 *           and then asked; a card whose DEV_INFO cannot be read ("GUIDs lost", a damaged
 *           image) is asked about, as restore.h does for FS2.
 *   plan    under the lock, the whole flash read once and compared with the bundle
 *           (restore_order_fs3.h rfs3_inspect): equal, nothing to do. If the device area
 *           (MFG_INFO, DEV_INFO, NV_DATA, VPD, the FS4 DTOC) differs, it is written only
 *           with device_data (cxflash --device-data), after its own question naming what
 *           changes (base GUID and MAC before -> after, or "the other device sections":
 *           through confirm_device_data when the front end gives one, the wizard's own
 *           question); without it the restore is refused (CX_EDECLINED, naming
 *           device_data_how; device_data_differs tells this refusal from the others): a
 *           restore of the image slots alone over other device data would leave an FS3
 *           card whose ITOC lists device CRCs its device sections do not have (§11.2
 *           step 2), and a silent change of a card's GUIDs is never wanted.
 *   write   restore_order_fs3.h through the card (device_io.h, planned from the one read):
 *           only the units that differ are erased, programmed and read back.
 *   verify  as restore.c: the per-unit read-back proves the flash is the bundle (or, with
 *           the device area left alone, the bundle's image area and the card's device
 *           area, both equal, since the plan found them equal).
 */
#ifndef CX_RESTORE_FS3_H
#define CX_RESTORE_FS3_H

#include "ops/restore.h"

int restore_fs3_card(struct device *d, const char *bundle_dir, const struct restore_opts *o,
		     struct restore_result *r, struct cx_status *st);

#endif
