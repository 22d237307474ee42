/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pending.h — a write the wizard started, remembered on the stick until it is settled.
 *
 * Before the first byte goes to a card the wizard writes a job record,
 * pending/<card>.job in the data folder, saying what it is about to do
 * (state "writing"); when the write succeeds the record becomes "written";
 * when it fails cleanly (nothing or a whole image left, the failsafe writers'
 * promise) the record is removed. So at the next boot:
 *
 *   "writing"  the machine lost power, or was switched off, during the write:
 *              the card holds its old image or the new one (failsafe), and the
 *              wizard offers to finish the job with the same file;
 *   "written"  the write finished and the machine was powered off: the card
 *              now runs what it loaded at power-on, and the wizard checks
 *              that this is the FW that was written (field-notes.md §2.8)
 *              and records the result in the history; the record becomes
 *   "checked"  with this boot's id, so that the other console's wizard, which
 *              reads the records a moment later, still tells its user; a
 *              "checked" record of an earlier boot is removed.
 *
 * Every console's wizard reads the records and tells its user; the one that
 * settles a record (history line, removal, finishing the job) does it under
 * the session lock and checks pending_exists() (or, to finish a job,
 * pending_reload() and the state) first, so it happens once. A "writing"
 * record found while another console holds the lock may be that console's
 * write, running now: it is not offered (flow_resume.c).
 *
 * A record is "key=value" lines, written to a temporary file, fsync'd and
 * renamed over the old one, then the folder is flushed: it is whole or absent.
 * <card> is "<family slug>-<node GUID>" for a card that has one, else
 * "<family slug>-<PCI address>" ('_' for ':', for FAT).
 */
#ifndef CX_RESCUE_PENDING_H
#define CX_RESCUE_PENDING_H

#include <stdbool.h>

#include "util/sha256.h"
#include "util/status.h"

#define PENDING_DIR "pending"
#define PENDING_MAX 64        /* records looked at; more are left for later */
#define PENDING_PATH_MAX 1024

/* The identity of an unbrick that kept what the card's damaged flash held: the values
 * themselves, since an interrupted burn may have erased the section they came from. */
#define PENDING_DAMAGED_FMT "damaged-image:%016llx,%016llx,%016llx,%016llx,%012llx,%012llx"

/* A boot ROM taken from a file: the resumed write takes it again only if its bytes are
 * the same. */
#define PENDING_ROM_FILE "file:"  /* then 64 hex digits, ':', the path */

struct pending {
	char state[16];                 /* "writing", "written", "checked" */
	char action[16];                /* the history action: "update", "crossflash", "burn", "restore", ... */
	char bdf[16];
	char family[24];                /* "ConnectX-3" */
	char guid[17];                  /* the card's node GUID as hex, "" when it has none */
	char file[PENDING_PATH_MAX];    /* the image, or the bundle restored */
	char sha256[SHA256_HEX_LEN + 1];/* of the image file, or the bundle's flash.bin */
	char to_psid[17], to_fw[24];    /* "" for a restore */
	char identity[PENDING_PATH_MAX];/* "card", "bundle:PATH", "sticker:GUID,MAC" or
					 * PENDING_DAMAGED_FMT's 4 GUIDs and 2 MACs */
	char rom[PENDING_PATH_MAX];     /* the boot ROM chosen: "keep", "image", "none" or
					 * PENDING_ROM_FILE's SHA-256 and path; "" in a record
					 * of an older cxflash (the question is asked again) */
	char time[32];                  /* when it started, UTC */
	char boot_id[40];               /* "checked": the boot it was checked in (/proc/sys/kernel/random/boot_id) */
	char name[96];                  /* the record's file name (set by the calls below) */
};

/* Write (or replace) p's record in data_dir/pending/. CX_EIO with the reason. */
int pending_write(const char *data_dir, struct pending *p, struct cx_status *st);

/* Remove p's record; a record already gone is fine. CX_EIO. */
int pending_remove(const char *data_dir, const struct pending *p, struct cx_status *st);

/* Whether p's record is still there (another console may have settled it). */
bool pending_exists(const char *data_dir, const struct pending *p);

/* Read p's record (by p->name) again into p; false when it is gone or unreadable. */
bool pending_reload(const char *data_dir, struct pending *p);

/* Every record in data_dir/pending/ (malloc'd array, *n of them, in name
 * order); a folder that is absent is none. A record that does not read is
 * skipped. CX_EIO, CX_ENOMEM. */
int pending_list(const char *data_dir, struct pending **out, int *n, struct cx_status *st);

#endif
