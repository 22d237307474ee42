/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ini.c — inflating the FW_CONF section with a size cap. */
#include <stdlib.h>
#include <zlib.h>

#include "image/ini.h"

int ini_inflate(const uint8_t *z, size_t len, char **text, size_t *text_len, struct cx_status *st)
{
	z_stream s = {0};
	char *out = malloc(INI_MAX_TEXT + 1);
	int zr;

	*text = NULL;
	*text_len = 0;
	if (!out)
		return cx_fail(st, CX_ENOMEM, "out of memory");
	if (inflateInit(&s) != Z_OK) {
		free(out);
		return cx_fail(st, CX_ENOMEM, "zlib: cannot initialise");
	}
	s.next_in = (Bytef *)z;
	s.avail_in = (uInt)len;
	s.next_out = (Bytef *)out;
	s.avail_out = INI_MAX_TEXT;
	zr = inflate(&s, Z_FINISH);
	size_t n = s.total_out;
	inflateEnd(&s);
	if (zr == Z_STREAM_END) {
		out[n] = '\0';
		*text = out;
		*text_len = n;
		return CX_OK;
	}
	free(out);
	if (zr == Z_BUF_ERROR && n == INI_MAX_TEXT)
		return cx_fail(st, CX_EIMAGE, "FW Configuration section inflates to more than %u bytes: corrupt",
			       INI_MAX_TEXT);
	return cx_fail(st, CX_EIMAGE, "FW Configuration section is not a valid zlib stream (%s)",
		       s.msg ? s.msg : (zr == Z_BUF_ERROR ? "stream ends early" : "data error"));
}
