/* SPDX-License-Identifier: GPL-2.0-or-later */
/* restore_bundle.h — the checks every restore makes of its bundle and card before it writes (restore.h).
 *
 * Shared by the FS2 restore (restore.c) and the FS3/FS4 one (restore_fs3.c), so a
 * ConnectX-3 and a ConnectX-5 are held to the same rules:
 *
 *   restore_load_flash()   backup_verify() (every SHA-256 of SHA256SUMS), identity.json,
 *                          then flash.bin read once into memory and hashed again: that
 *                          copy is what gets written, so a file changed after the check
 *                          cannot slip in (CX_EIMAGE);
 *   restore_check_card()   the same chip family and revision as identity.json records,
 *                          the same flash size; never overridable (CX_EMISMATCH).
 *
 * Neither touches the card's flash.
 */
#ifndef CX_RESTORE_BUNDLE_H
#define CX_RESTORE_BUNDLE_H

#include <stddef.h>
#include <stdint.h>

#include "ops/backup.h"
#include "ops/device.h"

/* The bundle in dir checked and loaded: id filled, *buf (malloc'd, *len bytes) is flash.bin. */
int restore_load_flash(const char *dir, struct backup_identity *id, uint8_t **buf, size_t *len,
		       struct cx_status *st);

int restore_check_card(const struct device *d, const struct backup_identity *id, size_t len, struct cx_status *st);

#endif
