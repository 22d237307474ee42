/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ini.h — the board .ini inside an image (FW_CONF section, fs2-format.md §1.4, §5).
 *
 * mlxburn stores the .ini it built the image from as a zlib stream, padded to
 * a dword. ini_inflate() expands it with a hard output cap, so a corrupt or
 * hostile stream cannot exhaust memory.
 */
#ifndef CX_INI_H
#define CX_INI_H

#include <stddef.h>
#include <stdint.h>

#include "util/status.h"

#define INI_MAX_TEXT (1u << 20) /* ours: real .ini files are ~10 KiB */

/* Inflate len bytes of zlib data into a malloc'd, NUL-terminated *text. */
int ini_inflate(const uint8_t *z, size_t len, char **text, size_t *text_len, struct cx_status *st);

#endif
