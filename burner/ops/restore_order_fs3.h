/* SPDX-License-Identifier: GPL-2.0-or-later */
/* restore_order_fs3.h — making an FS3/FS4 flash equal a saved copy, the card bootable and its identity kept
 * at every instant.
 *
 * The flash of a ConnectX-4/4 Lx/5 has two parts that a restore treats apart:
 *
 *  - the device area: every 4 KiB unit holding a byte of a device section (MFG_INFO,
 *    DEV_INFO, NV_DATA, VPD, FW_NV_LOG: FS3 ITOC entries with device_data, FS4 DTOC
 *    entries) as the card's flash (have) or the bundle's (want) lists them, and FS4's
 *    DTOC in the flash's last 4 KiB (fs3-format.md §4.5, §6). A burn never writes it
 *    (§11); a restore writes it only when asked (device_data), after the image area;
 *  - the image area: every other unit, both slots (0 and 1 << log2 slot size, §8) and
 *    whatever lies around them.
 *
 * The image area is written so the card boots a whole image at every instant. The
 * magic (the first 16 bytes of a slot, §1.1) is what the boot ROM and mstflint look for,
 * so each slot is written "signature last": its magic's first dword zeroed first if it
 * has one and will change (a program, §11.2 step 5), every other byte of the slot, then
 * its magic if the bundle has one there. Let W be the bundle's image slot, R the slot the
 * card boots now (the lowest holding a magic, as FS3's FindAllImageStart and the model's
 * boot ROM take it, §11.3):
 *
 *  - R is not W (or the card boots nothing): slot W first, then the boot address set to
 *    W (recovery path only: through the firmware chip_set_boot_addr() writes nothing,
 *    §11.2), then the other slot, its magic zeroed first, which leaves W alone;
 *  - R is W and slot W changes: there is no other whole image while it is rewritten, so
 *    first a copy of the bundle's image goes into the other slot O (body, magic, boot
 *    address O, W's magic zeroed: failsafe_fs3.h's order), the card runs from the copy,
 *    and then the case above with R = O. About twice the image's units in erases and
 *    programs; only the units of O that are not device area are used, and the copy is
 *    refused (CX_EUNSUPPORTED, nothing written) if the bundle's image would reach one.
 *    A power cut after the copy leaves the card booting the bundle's image from O.
 *
 * Every slot image is position-independent (its sections image-relative, the device
 * sections absolute: a burn puts the same bytes in either slot, §11.2), so the copy boots.
 *
 * The device area, when asked, goes after the image area, so a cut before it leaves
 * the old device data whole. Inside it the identity (DEV_INFO, §6.2) is never without a
 * whole copy, old or the bundle's, at a place one of the two TOCs lists:
 *
 *  1. every device unit that holds no DEV_INFO (MFG_INFO, NV_DATA, VPD, the FS4 DTOC...);
 *  2. the DEV_INFO units that hold no valid DEV_INFO of the card now ("spare" units:
 *     FS3 keeps two copies at MFG_INFO - 4 KiB and - 8 KiB, mstflint fs3_ops.cpp
 *     Fs3GetNewSectionAddr; FS4 DEV_INFO1/DEV_INFO2, the DTOC's), each signature last
 *     (its first 16 bytes, the FS4 signature, programmed after the rest);
 *  3. if no unit written in 2 now holds the bundle's valid DEV_INFO (the bundle keeps it
 *     where the card keeps its own) and such a spare exists, the bundle's DEV_INFO is
 *     put into a spare first as a temporary copy, signature last;
 *  4. the units holding the card's valid DEV_INFO, signature last;
 *  5. the temporary copy of 3 set to the bundle's bytes (its signature zeroed first).
 * Between 2 (or 3) and 4 two valid DEV_INFO are on the flash, the old and the bundle's
 * (mstflint's FS4 query says "Two DEV_INFO" then, as it refuses two images between a
 * burn's two magics; §11.3). On FS3 the section CRC of each device entry is kept in the
 * image's ITOC: from the image area's end until step 4 the restored ITOC lists the
 * bundle's DEV_INFO CRC beside the card's old DEV_INFO, whose bytes stay whole.
 *
 * The writes go through struct failsafe_io (failsafe.h), so the order runs against
 * memory and the card model with power cuts (test_powercut_restore_fs3.c).
 */
#ifndef CX_RESTORE_ORDER_FS3_H
#define CX_RESTORE_ORDER_FS3_H

#include <stdbool.h>
#include <stdint.h>

#include "ops/failsafe.h"

#define RFS3_UNIT 0x1000u /* the 4 KiB erase unit device sections are kept in, fs3-format.md §11.1 */

struct rfs3_plan {
	uint32_t size;                /* flash bytes: have and want are this long */
	const uint8_t *have, *want;   /* the flash now (as read) and what it must become */
	bool device_data;             /* write the device area too */
};

enum rfs3_unit { RFS3_IMAGE, RFS3_DEV, RFS3_DEVINFO };

struct rfs3_info {
	bool fs4;
	bool image_differs;           /* a unit of the image area differs */
	bool dev_differs;             /* a unit of the device area differs */
	bool used_copy;               /* the bundle's image went through the other slot first */
	uint32_t slot_size;
	uint32_t boot_start;          /* the bundle's image */
	uint32_t run_start;           /* the card's (UINT32_MAX: none) */
	uint64_t old_guid, new_guid, old_mac, new_mac; /* DEV_INFO base GUID and MAC (0: none valid) */
	bool old_dev_valid, new_dev_valid;
	uint8_t *unit;                /* size / RFS3_UNIT entries, enum rfs3_unit (malloc'd) */
};

/* Parse have and want and say what rfs3_write() will do; writes nothing. CX_EIMAGE when
 * the bundle's flash holds no valid image, CX_EUNSUPPORTED when the two slot sizes differ. */
int rfs3_inspect(const struct rfs3_plan *p, struct rfs3_info *info, struct cx_status *st);

/* Make the image area (and with p->device_data the device area) equal want, in the order
 * above. info is rfs3_inspect()'s. */
int rfs3_write(const struct failsafe_io *io, const struct rfs3_plan *p, const struct rfs3_info *info,
	       struct cx_status *st);

void rfs3_free(struct rfs3_info *info);

#endif
