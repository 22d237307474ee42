/* SPDX-License-Identifier: GPL-2.0-or-later */
/* parsed_image.h — test-only: images mkfs2 makes (mkimage.h), parsed by burner/image. */
#ifndef CX_TEST_PARSED_IMAGE_H
#define CX_TEST_PARSED_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "image/fs2.h"

/* An image file's bytes (malloc'd) and what fs2_parse() found in them. */
struct parsed_image {
	uint8_t *buf;
	size_t len;
	struct fs2_image fs;
};

/* What mkfs2 makes from opts, which fs2_parse() must accept. */
void mkimage_parsed(const char *opts, struct parsed_image *im);

/* fs2_parse() of buf[0..len) into *p must succeed, and fs2_verdict() give want_verdict
 * (CX_OK, or CX_EBLANK for an image without identity). */
void parse_ok(const uint8_t *buf, size_t len, struct fs2_image *p, int want_verdict);

#endif
