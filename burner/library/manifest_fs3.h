/* SPDX-License-Identifier: GPL-2.0-or-later */
/* manifest_fs3.h — what an FS3/FS4 firmware file (ConnectX-4 and later) says about itself,
 * for the library (manifest.h).
 *
 * manifest_add_file() reads every file as FS2 first; a file whose own magic says FS3 or
 * FS4 (image/fs3.h fs3_detect) comes here with its bytes instead. manifest_fs3_facts()
 * parses and verifies it (fs3_parse, fs3_verdict: every CRC, as `v` does) and fills the
 * entry's facts from its IMAGE_INFO (fs3-format.md §5): PSID, FW version, the supported
 * HW IDs and the chip family the first one names, the ROMs of its ROM_CODE section, the
 * format, the slot size and the security flags match judges by (library/match.h). An
 * FS3/FS4 image carries no board .ini (FW_CONF is FS2's), so none is read.
 */
#ifndef CX_MANIFEST_FS3_H
#define CX_MANIFEST_FS3_H

#include <stddef.h>
#include <stdint.h>

#include "library/manifest.h"

/* CX_OK with e's facts filled, or CX_EIMAGE with one line in why (n bytes): not a sound
 * image. Only what the format does not say is left as it was. */
int manifest_fs3_facts(struct manifest_entry *e, const uint8_t *buf, size_t len, char *why, size_t n);

#endif
