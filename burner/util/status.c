/* SPDX-License-Identifier: GPL-2.0-or-later */
/* status.c — recording the first failure of an operation. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/status.h"

int cx_fail(struct cx_status *st, int code, const char *fmt, ...)
{
	va_list ap;

	if (!st || st->code != CX_OK)
		return st ? st->code : code;
	st->code = code;
	va_start(ap, fmt);
	vsnprintf(st->msg, sizeof(st->msg), fmt, ap);
	va_end(ap);
	return code;
}

void cx_status_clear(struct cx_status *st)
{
	st->code = CX_OK;
	st->msg[0] = '\0';
}

const char *cx_code_name(int code)
{
	switch (code) {
	case CX_OK: return "ok";
	case CX_EUSAGE: return "usage";
	case CX_EIO: return "io";
	case CX_EIMAGE: return "bad-image";
	case CX_EABSENT: return "absent";
	case CX_EVALUE: return "bad-value";
	case CX_EBLANK: return "blank-guids";
	case CX_EUNSUPPORTED: return "unsupported";
	case CX_ENOMEM: return "no-memory";
	case CX_EDECLINED: return "declined";
	case CX_ENODEV: return "no-device";
	case CX_EPERM: return "permission";
	case CX_EBUSY: return "busy";
	case CX_EFLASH: return "flash";
	case CX_EPROTECTED: return "write-protected";
	case CX_EINTR: return "interrupted";
	case CX_EMISMATCH: return "mismatch";
	case CX_EREPLAY: return "replay-differs";
	case CX_EUNSAFE: return "not-safe";
	case CX_ECHECKSUM: return "bad-rom-checksum";
	case CX_EFWDOWN: return "firmware-not-started";
	case CX_ETOOLS: return "tools-interface";
	case CX_ESETTING: return "unknown-setting";
	}
	return "unknown";
}
