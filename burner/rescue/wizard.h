/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wizard.h — `cxflash rescue`: the front end the rescue image starts on every console.
 *
 * A session goes:
 *
 *   1. the journal (rescue/journal.h) opens in the data folder, the firmware
 *      library and the stick's backups (rescue/backup_index.h) are read;
 *   2. the inventory screen (every card: slot, model, OEM, PSID, FW,
 *      GUIDs/MACs, recovery state, backup state, and the library's
 *      recommendation in one line);
 *   3. what the last session left (rescue/pending.h): a write a power cut
 *      interrupted is offered again; a write that finished is checked against
 *      the FW the card now runs (the cold restart happened, or not);
 *   4. with a job (unattended mode, wizard_opts.job) the job runs without a
 *      question and the wizard powers off when every step succeeded;
 *   5. otherwise the main menu, until the user picks power off.
 *
 * Every action that writes a card runs the same steps (flows.h): show what
 * will happen and, the first time in a session, what the read-only probe
 * (ops/probe.h) found unexpected on the card; ask for the typed word, back the card up to the stick, note
 * the job as pending, write with progress, journal the result, and after a
 * success go to the power-off screen, which explains the cold restart.
 * After a failure the wizard stays up with the error and the log's path.
 *
 * wizard_run() returns 0 when the machine should power off now (the caller,
 * /init through cxrescue-front, does it), CX_EDECLINED when the console's
 * input ended (/init starts the wizard again), or another code when the
 * wizard could not start at all. With exit_after_job (PXE: /init uploads the
 * report, then powers off or starts the wizard) it returns after the job:
 * 0 when every step succeeded, else the job's failure code.
 *
 * With upload_cmd (PXE: the node's server), every backup is handed to it at
 * once, and a write waits for it: a backup that did not reach the server
 * means nothing is written, unless upload_optional.
 */
#ifndef CX_RESCUE_WIZARD_H
#define CX_RESCUE_WIZARD_H

#include <stdbool.h>
#include <stdio.h>

#include "ops/write_procedure.h"
#include "library/card_facts.h"
#include "library/library.h"
#include "library/match.h"
#include "ops/cardinfo.h"
#include "ops/placeholder.h"
#include "rescue/backup_index.h"
#include "rescue/journal.h"
#include "rescue/prompt.h"
#include "rescue/session.h"

#define WIZARD_MAX_CARDS PCI_ENUM_MAX

/* How cards are found and opened: the machine's PCI bus by default; the unit
 * tests give in-process simulated cards. */
struct wizard_bus {
	int (*list)(void *ctx, struct pci_card *out, int max, int *n, struct cx_status *st);
	int (*open)(void *ctx, const struct pci_card *pci, struct device *d, struct cx_status *st);
	/* for the card's settings (ops/nv_settings.h: config cycles); NULL: open */
	int (*open_tools)(void *ctx, const struct pci_card *pci, struct device *d, struct cx_status *st);
	void *ctx;
};

/* The unattended jobs (the kernel command line's cxrescue.job=). */
enum wizard_job { JOB_NONE, JOB_INVENTORY, JOB_BACKUP, JOB_UPDATE, JOB_CROSSFLASH, JOB_RESTORE, JOB_VERIFY,
		  JOB_SETTINGS };
#define JOB_LAST JOB_SETTINGS

/* job=verify: what one card should run after the cold restart (rescue/verify.c). */
struct verify_expect {
	uint64_t guid;               /* the card's node GUID */
	char psid[INFO_PSID_LEN + 1];
	char fw[24];                 /* the FW written, "2.42.5000" */
	char old[24];                /* the FW it ran before the write; "" unknown */
};

struct wizard_opts {
	const char *data_dir;        /* $CXR_DATA: firmware/, backups/, logs/, history.jsonl */
	const char *data_kind;       /* "stick", "fat", "ram", "searching" (data-area.sh); NULL: unknown */
	const char *lock_path;       /* the session lock (rescue/session.h); NULL: none */
	const char *console;         /* this console's name, for the lock's label */
	enum wizard_job job;
	bool yes;                    /* cxrescue.yes=1: the job may write without a question */
	const char *job_card;        /* cxrescue.card=: a BDF, or NULL / "all" */
	bool allow_risky;            /* cxrescue.allow_risky=1 */
	const char *rom;             /* cxrescue.rom=keep|image|none|FILE (update, crossflash: the boot
				      * ROM of the result, rescue/flow_rom.c); NULL: the wizard's rule */
	const char *shell;           /* the shell the menu starts ("/bin/sh"); NULL: no shell choice */
	const char *prompt_mark;     /* a file that gets the uptime at the first menu, if absent (boot-time figures) */
	const char *bundle;          /* job=restore: the backup bundle (folder) to write back */
	const char *expect;          /* job=verify: GUID:PSID:FW:OLD[,...] (rescue/verify.c) */
	const char *settings;        /* NAME=VALUE,...: set after an update's or crossflash's write,
				      * or alone with job=settings (rescue/job_settings.c) */
	bool exit_after_job;         /* after=exit: the job's outcome is the exit status, no menu (PXE) */
	const char *upload_cmd;      /* $CXR_UPLOAD: run as `CMD backup BUNDLE` after each backup
				      * (rescue/upload.c); NULL: backups stay in the data folder only */
	bool upload_optional;        /* upload=optional: a write goes on when that upload failed */
	const char *boards;          /* the board table the user named (--boards), or NULL */
	const char *const *firmware; /* the firmware folders the user named (--firmware), nfirmware */
	size_t nfirmware;            /* 0: the default folders (library/library.h) */
};

/* One card as the wizard knows it, read again after every write. */
struct wizard_card {
	struct cardinfo ci;
	struct card_facts k;
	struct match_result mr;
	bool matched;                /* mr holds the library's verdicts */
	char fw[24];                 /* the FW on its flash ("2.40.5030"), or "" */
	char running[24];            /* the FW it runs now, or "" */
	bool has_backup;             /* a sound bundle of this card is on the stick */
	const struct placeholder_id *placeholder; /* its GUIDs/MACs are a release image's, not its own */
};

struct wizard {
	struct prompt p;
	FILE *out;
	struct wizard_bus bus;
	struct wizard_opts o;
	struct journal j;
	struct session s;
	struct library lib;
	bool have_lib;
	char lib_error[CX_MSG_MAX];
	struct backup_index ix;
	char backups_dir[JOURNAL_PATH_MAX];
	struct wizard_card *cards;   /* ncards */
	int ncards;
	char list_error[CX_MSG_MAX]; /* the bus could not be listed */
	char backed_up[WIZARD_MAX_CARDS][16]; /* slots backed up in this session (a card with blank
					       * GUIDs has no identity the index could find) */
	int nbacked_up;
	char probed[WIZARD_MAX_CARDS][16]; /* slots probed in this session (rescue/probe_first.c) */
	int nprobed;
	bool wrote;                  /* a write succeeded: power off for the cold restart */
	struct write_outcome last_write; /* the newest write's outcome (ops/write_procedure.h): its card's state */
	bool wrote_recovery;         /* ... to a card that was in recovery mode (the jumper) */
	bool failed;                 /* the last action failed */
	char last_error[2 * CX_MSG_MAX]; /* what failed: the action, then its one line */
};

/* The bus of this machine (libpci on sysfs_root, NULL for /sys/bus/pci). */
struct wizard_bus wizard_pci_bus(const char **sysfs_root);

/* Run a session on p (in/out). Returns as described at the top. */
int wizard_run(struct prompt *p, const struct wizard_bus *bus, const struct wizard_opts *o);

/* "inventory", "backup", "update", "crossflash", "restore", "verify", "settings" -> the job; false if none. */
bool wizard_job_parse(const char *s, enum wizard_job *job);
const char *wizard_job_name(enum wizard_job job);
/* job=verify's expect= text into e (at most max items, *count of them); false with why. */
bool wizard_expect_parse(const char *text, struct verify_expect *e, int max, int *count, char *why, size_t n);

#endif
