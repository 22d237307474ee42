/* SPDX-License-Identifier: GPL-2.0-or-later */
/* boards.h — the board table, library/boards.txt: which board an OEM PSID belongs
 * to and the stock board it corresponds to, with the source that says so.
 *
 * The file is plain text, one board per line, thirteen fields separated by '|'
 * (written " | "; spaces around a field are not part of it):
 *
 *   oem | oem_parts | oem_psid | family | subsys | stock_part | stock_psid | port |
 *   speed | basis | source | notes | pins
 *
 *   oem         the vendor (Dell, HP, IBM, Oracle, Sun, Mellanox, ...) or "unknown"
 *   oem_parts   the vendor's part numbers, comma-separated, or "-"
 *   oem_psid    the PSID the board's firmware carries: required, 1..16 of A-Z 0-9 _
 *               (16 = the PSID field of IMAGE_INFO tag 4, fs2-format.md §3.2); one
 *               row per PSID
 *   family      cx2, cx3 or cx3pro (the chip table's slugs, dev/chip.h)
 *   subsys      PCI subsystem vendor:device, "103c:18d6" (lower-case hex), or "-"
 *   stock_part  the stock board it corresponds to, or "-" when no source states one
 *   stock_psid  that board's PSID, or "-"; never without a stock_part. A stock
 *               board's own row names itself here.
 *   port        en, vpi, ib or "-"
 *   speed       free text ("40GbE", "FDR"), or "-"
 *   basis       stated (a source states the row) or inferred (notes say from what)
 *   source      one or more http:// or https:// URLs, separated by spaces: required
 *   notes       free text, or "-"; required when basis is inferred
 *   pins        "-", or one or more X.Y.Z=SHA256 separated by single spaces: the
 *               released image with this row's PSID and FW version X.Y.Z (three
 *               decimal numbers, each at most 65535, as IMAGE_INFO tag 1 holds
 *               them) has exactly this SHA-256 (64 lower-case hex digits). One pin
 *               per version. A library file with that PSID and version and any
 *               other hash is refused (library/manifest.h): a pin turns "a file
 *               that parses" into "the file the vendor released". It needs a
 *               source stating the hash, cited in source.
 *
 * A line whose first non-blank character is '#' is a comment; blank lines are
 * skipped. A row is printable ASCII and never contains '|' inside a field;
 * comments may hold any text but NUL. CRLF line ends and a last line without
 * a newline are accepted.
 *
 * boards_load() checks every row and stops at the first bad one with one line,
 * "FILE:LINE: what is wrong" (CX_EIMAGE, the code of any malformed file), and
 * then holds no rows. The loaded strings live in the table until boards_free().
 */
#ifndef CX_BOARDS_H
#define CX_BOARDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dev/chip.h"
#include "image/info.h"
#include "util/sha256.h"
#include "util/status.h"

#define BOARD_PSID_MAX INFO_PSID_LEN  /* the PSID an image carries, fs2-format.md §3.2 tag 4 */
#define BOARDS_MAX_FILE (1u << 20)    /* ours: the table is a few KiB */
#define BOARDS_MAX_LINE 4096          /* ours: bytes in one line, end of line excluded */
#define BOARDS_MAX_ROWS 10000         /* ours */
#define BOARDS_NFIELDS 13

enum board_port { BOARD_PORT_NONE, BOARD_PORT_EN, BOARD_PORT_VPI, BOARD_PORT_IB };
enum board_basis { BOARD_STATED, BOARD_INFERRED };

/* One row. Optional text fields written "-" are NULL here. */
struct board {
	unsigned line;                /* where it was read */
	const char *file;             /* the table's name, for messages (FILE:LINE) */
	bool own;                     /* from the user's own table (library/library.h), which
				       * no source shipped with cxrescue vouches for */
	const char *oem;
	const char *oem_parts;        /* comma-separated, or NULL */
	const char *oem_psid;
	enum cx_family family;
	bool has_subsys;
	uint16_t subsys_vendor, subsys_device;
	const char *stock_part;       /* or NULL */
	const char *stock_psid;       /* or NULL */
	enum board_port port;
	const char *speed;            /* or NULL */
	enum board_basis basis;
	const char *source;           /* one or more URLs separated by single spaces */
	const char *notes;            /* or NULL */
	const char *pins;             /* as written, or NULL; parsed into the table's pins */
};

/* One pin of the pins field, NUL-terminated for the lookup's caller. */
struct board_pin {
	size_t row;                   /* index into the table's rows */
	uint16_t ver[3];
	char sha256[SHA256_HEX_LEN + 1]; /* lower-case hex */
};

struct board_table {
	struct board *rows;
	size_t n;
	struct board_pin *pins;       /* every row's pins, in file order */
	size_t npins;
	char *text;                   /* the file's text, split in place; rows point into it */
	char *name;                   /* the file's name as given, for messages (FILE:LINE) */
	/* Looked up after this one's rows (the user's own table after the shipped one), by
	 * boards_by_psid(), boards_by_subsys() and boards_pin(); NULL: none. */
	const struct board_table *next;
};

/* Parse the whole file at path into t (which is overwritten, not freed). */
int boards_load(const char *path, struct board_table *t, struct cx_status *st);

/* The same on len bytes already in memory; name stands for the file in messages. */
int boards_parse(const char *name, const char *text, size_t len, struct board_table *t,
		 struct cx_status *st);

/* Release what a load kept; t is then empty. Safe on an empty or failed table. */
void boards_free(struct board_table *t);

/* The row of this PSID (exact, case-sensitive) in t or the tables chained after it, or
 * NULL. */
const struct board *boards_by_psid(const struct board_table *t, const char *psid);

/* The first row after `after` (NULL: from the start) with this PCI subsystem, in t
 * and the tables chained after it, or NULL. Several rows may share one: one OEM part can carry more than one PSID. */
const struct board *boards_by_subsys(const struct board_table *t, uint16_t vendor, uint16_t device,
				     const struct board *after);

/* Whether the row of psid pins FW version ver: 1 with *sha_hex_out (64 lower-case
 * hex digits, NUL-terminated, valid until boards_free()) and *line_out (the row's
 * line), else 0 and nothing written. Either out pointer may be NULL. */
int boards_pin(const struct board_table *t, const char *psid, const uint16_t ver[3], const char **sha_hex_out,
	       unsigned *line_out);

/* Whether part is one of the row's oem_parts (exact). */
bool board_has_part(const struct board *b, const char *part);

/* "cx2", "en", "stated", ...: the words the file uses ("-" for BOARD_PORT_NONE);
 * a family's word is its slug in the chip table. */
const char *board_family_name(enum cx_family f);
const char *board_port_name(enum board_port p);
const char *board_basis_name(enum board_basis b);

#endif
