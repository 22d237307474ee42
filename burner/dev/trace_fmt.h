/* SPDX-License-Identifier: GPL-2.0-or-later */
/* trace_fmt.h — the records of a cxflash trace (--record FILE, --replay FILE).
 *
 * A trace is every register access cxflash made to a card, in order, so that a
 * session on a real card can be read by people and replayed here (against the
 * model: cxsim replay; against cxflash itself: --replay). docs/traces.md is
 * the user's description; this is the byte layout.
 *
 * The file is one gzip stream (RFC 1952, zlib's gzwrite), flushed with
 * Z_SYNC_FLUSH every TR_FLUSH_BYTES of records, every TR_FLUSH_MS and at every
 * note, so that a crash or a kill leaves a prefix that decompresses (zlib reports
 * "unexpected end of file" after the last flushed record; readers treat that as
 * the end). Decompressed:
 *
 *   "CXTRACE 1\n"                 TR_MAGIC: the format and its version
 *   "key=value\n" ...             the header, one line per key, then
 *   "\n"                          an empty line
 *   record ...                    until the end note (a prefix when cut short)
 *
 * Header keys (written at the first device open): cxflash (version), kernel
 * (uname release), lockdown (/sys/kernel/security/lockdown, or "none"), command
 * (cxflash's argv joined by spaces), access (CXFLASH_ACCESS or "auto"), bdf,
 * vendor, device, subsystem (VVVV:DDDD), class. The chip and the flash part are
 * learned from the accesses themselves, so they come as an "ident" note after
 * the identification (a trace of a card that fails there still has the
 * accesses that failed).
 *
 * A record starts with a tag byte:
 *
 *   bits 2..0  kind (enum tr_kind): 0 config read, 1 config write, 2 BAR0 read,
 *              3 BAR0 write, 4 sleep, 5 note; 6 and 7 are invalid
 *   bit 3      FAILED: the access method reported an error (config only)
 *   bit 4      SAME_OFF: the offset is that of the previous access in the same
 *              space (config, BAR0); no offset field
 *   bits 6..5  the value's encoding: 0 the previous value of this kind (0 at
 *              first), 1 a varint, 2 four bytes little-endian; 3 is invalid
 *   bit 7      TIME: a varint of microseconds since the previous record
 *              follows the tag (absent: 0 µs); their running sum is the time
 *              since the trace began
 *
 * then [time] [offset] [value]: the offset as a zigzag varint of its difference
 * from the previous offset of the same space (both start at 0); the value of a
 * sleep is its duration in µs (a sleep has no offset field, and its FAILED and
 * SAME_OFF bits are 0). Every access is a dword (cfg_ops and crmem_ops have no
 * other width). A note's tag has only its kind and TIME bits; then come [time],
 * a varint length (1..TR_NOTE_MAX) and that many bytes of text, "word key=value
 * ...": "open" (a device open: bdf, device, subsystem, class, bar0 = 1 if a BAR0
 * mapping was offered), "ident" (the open's result code, chip, rev, recovery,
 * flash part, size), "close", "end" (the trace is complete).
 * Varints are LEB128: 7 bits a byte, low first, bit 7 = more; at most 10 bytes.
 *
 * Access numbers, in messages of both replays: 1, 2, ... in file order over
 * config and BAR0 reads and writes; sleeps and notes are not accesses.
 */
#ifndef CX_TRACE_FMT_H
#define CX_TRACE_FMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TR_MAGIC "CXTRACE 1\n"
#define TR_HEADER_MAX 4096       /* bytes of header text a reader accepts */
#define TR_NOTE_MAX 480          /* bytes of one note's text */
#define TR_REC_MAX (1 + 10 + 10 + TR_NOTE_MAX) /* the longest record */
#define TR_FLUSH_BYTES (32u << 10)
#define TR_FLUSH_MS 200u

enum tr_kind { TR_CFG_READ, TR_CFG_WRITE, TR_MEM_READ, TR_MEM_WRITE, TR_SLEEP, TR_NOTE, TR_NKINDS };

struct tr_rec {
	enum tr_kind kind;
	bool failed;
	uint32_t off;            /* accesses: config offset or crspace address */
	uint32_t val;            /* accesses: the value; sleep: µs */
	uint64_t t_us;           /* µs since the trace began */
	size_t note_len;         /* notes: the text, not NUL-terminated in the file */
	char note[TR_NOTE_MAX + 1];
};

/* What the delta encodings refer to: one per writer and per reader, zeroed. */
struct tr_state {
	uint32_t off[2];         /* the previous offset, config and BAR0 */
	uint32_t val[TR_NKINDS]; /* the previous value of each kind */
	uint64_t t_us;
};

static inline bool tr_is_access(enum tr_kind k)
{
	return k <= TR_MEM_WRITE;
}

/* Encode r (r->t_us absolute, not before s->t_us) into out, which has room for
 * TR_REC_MAX bytes; the length. */
size_t tr_encode(struct tr_state *s, const struct tr_rec *r, uint8_t *out);

/* Decode the record at p[0..n) into r: its length; 0 if p holds only part of
 * one (more bytes needed, or a trace cut there); -1 if it is not a record. */
int tr_decode(struct tr_state *s, const uint8_t *p, size_t n, struct tr_rec *r);

/* "config read", "BAR0 write", ... for messages. */
const char *tr_kind_name(enum tr_kind k);

#endif
