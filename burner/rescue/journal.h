/* SPDX-License-Identifier: GPL-2.0-or-later */
/* journal.h — what the rescue wizard did, written down as it happens.
 *
 * Two records in the data folder ($CXR_DATA: cxrescue/ on the stick, or a RAM
 * folder when there is none):
 *
 *   logs/cxrescue-<UTC date-time>.log   one per session ("-2", "-3", ... when
 *                                        the name is taken), for a human: one
 *                                        "HH:MM:SS text" line (UTC) per event
 *   history.jsonl                       one JSON object per line and per action,
 *                                        for a human and a program; appended,
 *                                        never rewritten
 *
 * A history line is built whole in memory first and then handed to the kernel
 * with a single write() on an O_APPEND descriptor and fsync'd before
 * journal_history() returns: when it returns CX_OK the line is on the stick,
 * and the next step (say, erasing a flash) may start. A power cut during the
 * call leaves the line whole or absent on any file system that does not tear
 * a small write; one that does (FAT can leave a short tail, or NUL bytes) may
 * leave a broken last line. The next append then starts on a fresh line, so a
 * broken line never swallows a good one, and a reader skips lines that do not
 * parse. The log is written a line at a time with write() (no stdio buffer to
 * lose) and fsync'd with each history line and at journal_close().
 *
 * A history line, keys always present, in this order (null where unknown):
 *
 *   {"time":"2026-11-24T10:46:00Z", "action":"update",
 *    "card":{"bdf":"0000:01:00.0","chip":"ConnectX-3 A1","psid":"HP_0280210019",
 *            "node_guid":"0002c90300c0ffe0","macs":["0002c9c0ffe0","0002c9c0ffe1"]},
 *    "from":{"psid":"HP_0280210019","fw":"2.40.5030"},
 *    "to":{"psid":"MT_1090120019","fw":"2.42.5000","file":"...","sha256":"..."},
 *    "backup":{"path":"...","sha256":"..."},
 *    "result":"ok", "message":null, "log":"cxrescue-20261124T104512Z.log"}
 *
 * GUIDs and MACs are hex without "0x", as in a backup's identity.json; "log"
 * names the session's log file in logs/. Strings are escaped by util/json.h,
 * so a message with quotes or newlines stays on its line.
 *
 * Failures: journal_open() says why it cannot start the log (CX_EIO). Later,
 * a log line that cannot be written never stops the caller: journal_log()
 * returns nothing, counts the line in lost_lines and keeps the first error in
 * write_error / error, for the wizard to show at the end (it carries on with
 * what is on the screen). journal_history() returns CX_EIO and records the
 * same. A journal whose open failed, or that is closed, takes every call
 * safely (lines are counted as lost, history is CX_EIO).
 */
#ifndef CX_JOURNAL_H
#define CX_JOURNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "util/status.h"

#define JOURNAL_PATH_MAX 4096
#define JOURNAL_LOGS "logs"
#define JOURNAL_HISTORY "history.jsonl"

struct journal {
	bool open;                          /* false in a zeroed, failed or closed journal */
	int log_fd;
	char log_path[JOURNAL_PATH_MAX];    /* data_dir/logs/cxrescue-....log */
	char history_path[JOURNAL_PATH_MAX];
	time_t (*clock)(time_t *);          /* time(); a test may set its own after journal_open */
	bool log_torn;                      /* the last log write failed, maybe half-way */
	bool write_error;                   /* something did not reach the disk */
	unsigned lost_lines;                /* log lines not written */
	char error[CX_MSG_MAX];             /* the first write failure, one line */
};

/* What the card is. NULL strings and a 0 GUID are written as null. */
struct history_card {
	const char *bdf;                    /* "0000:01:00.0" */
	const char *chip;                   /* "ConnectX-3 A1" */
	const char *psid;                   /* NULL in recovery mode */
	uint64_t node_guid;                 /* 0: not known */
	int nmacs;                          /* 0 (macs is null), 1 or 2 */
	uint64_t mac[2];
};

struct history_from {                   /* what the card ran before */
	const char *psid;
	const char *fw;                     /* "2.40.5030" */
};

struct history_to {                     /* what was (or was to be) written */
	const char *psid;
	const char *fw;
	const char *file;                   /* the image file, or the bundle's flash.bin */
	const char *sha256;                 /* of file */
};

struct history_backup {                 /* the bundle made before writing, or restored from */
	const char *path;
	const char *sha256;                 /* its flash.bin's */
};

struct history_entry {
	const char *action;                 /* "backup", "update", "crossflash", "burn", "restore",
					     * "unbrick", "set-ids", ... */
	struct history_card card;
	const struct history_from *from;    /* NULL: "from":null */
	const struct history_to *to;        /* NULL: "to":null */
	const struct history_backup *backup; /* NULL: "backup":null */
	const char *result;                 /* "ok", "failed", "refused", "declined", "interrupted" */
	const char *message;                /* one line, or NULL */
};

/* Start a session's journal in data_dir: data_dir and data_dir/logs are made
 * if absent, and a new log file named after now (UTC) is created (never an
 * existing one reused). j need not be initialised. CX_EUSAGE for an empty
 * data_dir, CX_EIO with the reason when the folder or the file cannot be made;
 * j is then a closed journal that takes every call safely. */
int journal_open(struct journal *j, const char *data_dir, time_t now, struct cx_status *st);

/* Append "HH:MM:SS text\n" (UTC, j->clock at the call) to the log. Control
 * characters in text become spaces and trailing newlines are dropped, so an
 * event is one line. Never fails the caller: see write_error above. */
void journal_log(struct journal *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Append one history line for e, timed by j->clock, and fsync it (and the log).
 * CX_EIO when it is not on the disk, CX_ENOMEM. */
int journal_history(struct journal *j, const struct history_entry *e, struct cx_status *st);

/* fsync and close the log. A failure is recorded in write_error. Safe to call
 * twice or on a journal that never opened. */
void journal_close(struct journal *j);

#endif
