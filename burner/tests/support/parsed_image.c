/* SPDX-License-Identifier: GPL-2.0-or-later */
/* parsed_image.c — generated images, parsed. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "mkimage.h"
#include "parsed_image.h"

void mkimage_parsed(const char *opts, struct parsed_image *im)
{
	struct cx_status st = {0};

	im->buf = mkimage(opts, &im->len);
	assert_int_equal(fs2_parse(im->buf, im->len, &im->fs, &st), CX_OK);
}

void parse_ok(const uint8_t *buf, size_t len, struct fs2_image *p, int want_verdict)
{
	struct cx_status s = {0};

	assert_int_equal(fs2_parse(buf, len, p, &s), CX_OK);
	assert_int_equal(fs2_verdict(p, &s), want_verdict);
}
