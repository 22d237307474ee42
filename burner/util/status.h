/* SPDX-License-Identifier: GPL-2.0-or-later */
/* status.h — cxflash exit codes and the one-line error every layer reports.
 *
 * Library code never prints and never exits: a function that fails fills a
 * struct cx_status with a code from the table below and one line of text, and
 * returns the code. Only the command-line front end prints it and exits with
 * it. The codes are the process exit codes documented in docs/cxflash.1 (EXIT STATUS), so they
 * never change meaning once released.
 */
#ifndef CX_STATUS_H
#define CX_STATUS_H

enum cx_code {
	CX_OK = 0,
	CX_EUSAGE = 2,       /* bad command line */
	CX_EIO = 3,          /* a file could not be opened, read or written */
	CX_EIMAGE = 4,       /* the image is malformed or a checksum is wrong */
	CX_EABSENT = 5,      /* the image lacks what the command needs (ROM, .ini, ...) */
	CX_EVALUE = 6,       /* a value given on the command line is invalid */
	CX_EBLANK = 7,       /* the image has blank GUIDs: valid, but not bootable as is */
	CX_EUNSUPPORTED = 8, /* valid request, but not for this image or format */
	CX_ENOMEM = 9,       /* out of memory */
	CX_EDECLINED = 10,   /* the user answered no (or could not be asked) */
	CX_ENODEV = 11,      /* no such card, or it does not answer */
	CX_EPERM = 12,       /* not allowed: run as root, or the kernel locks PCI access */
	CX_EBUSY = 13,       /* a flash semaphore is held by someone else */
	CX_EFLASH = 14,      /* the flash failed: unknown part, timeout, verify mismatch */
	CX_EPROTECTED = 15,  /* the flash is write-protected */
	CX_EINTR = 16,       /* interrupted (SIGINT/SIGTERM) at a safe point */
	CX_EMISMATCH = 17,   /* the image does not fit this card (chip, revision, PSID, size) */
	CX_EREPLAY = 18,     /* --replay: cxflash's accesses differ from the recording */
	CX_EUNSAFE = 19,     /* probe: the card is not safe to write (each reason on a line) */
	CX_ECHECKSUM = 20,   /* an expansion ROM's checksum is wrong: it is not burned
				(FS2 CRCs and other image checksums stay CX_EIMAGE) */
	CX_EFWDOWN = 21,     /* settings: the card's firmware is not started (tools HCR status 4);
				run cxflash on the installed system with mlx4_core loaded */
	CX_ETOOLS = 22,      /* settings: the tools command interface failed (busy, a go bit
				that never clears, a status, a corrupt settings store) */
	CX_ESETTING = 23,    /* settings: a name this card does not have (unknown, or a
				per-port setting of a port the card lacks) */
};

#define CX_MSG_MAX 320

struct cx_status {
	int code;
	char msg[CX_MSG_MAX];
};

/* Record the first failure (later ones do not overwrite it) and return code. */
int cx_fail(struct cx_status *st, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Clear a status before reuse. */
void cx_status_clear(struct cx_status *st);

/* A short name of a code for JSON output, e.g. "bad-image". */
const char *cx_code_name(int code);

#endif
