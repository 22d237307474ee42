/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wizard.h — the state of a wizard session (rescue/README.md: the layers): what the user
 * asked (wizard_opts), how cards are found (wizard_bus), the cards as last read (wizard_card,
 * rescue/inventory.h), and the helpers every write step, screen and job shares: a line said
 * and logged, a card opened, a card chosen, the session lock, a history line.
 *
 * Below it are only the records (prompt.h, journal.h, pending.h, session.h, backup_index.h);
 * the write steps (step_*.h), the menu's screens (flows.h), the unattended jobs (jobs.h) and
 * the session itself (menu.h: wizard_run) are above it. */
#ifndef CX_RESCUE_WIZARD_H
#define CX_RESCUE_WIZARD_H

#include <stdbool.h>
#include <stdio.h>

#include "ops/write_procedure.h"
#include "library/card_facts.h"
#include "library/library.h"
#include "library/match.h"
#include "ops/cardinfo.h"
#include "ops/nv_settings.h"
#include "ops/placeholder.h"
#include "rescue/backup_index.h"
#include "rescue/journal.h"
#include "rescue/prompt.h"
#include "rescue/session.h"

#define WIZARD_MAX_CARDS PCI_ENUM_MAX
#define CONFIRM_WORD "FLASH"   /* what a user types before a card is written */

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

struct wizard_opts {
	const char *data_dir;        /* $CXR_DATA: firmware/, backups/, logs/, history.jsonl */
	const char *data_kind;       /* "stick", "ram", "searching" (data-area.sh); NULL: unknown */
	const char *data_dev;        /* $CXR_DATA_DEV: the stick's partition, or NULL */
	const char *data_id;         /* $CXR_DATA_ID: the stick's ID (its marker), or NULL */
	const char *data_wp;         /* $CXR_DATA_WP: the cxrescue stick found write-protected, or NULL */
	const char *data_seen;       /* $CXR_DATA_SEEN: the devices /init looked at, one a line, or NULL */
	const char *machine;         /* $CXR_MACHINE: the server's DMI vendor, product and BIOS (/init),
				      * for the log and the job reports; NULL: unknown */
	const char *lock_path;       /* the session lock (rescue/session.h); NULL: none */
	const char *console;         /* this console's name, for the lock's label */
	enum wizard_job job;
	bool yes;                    /* cxrescue.yes=1: the job may write without a question */
	const char *job_card;        /* cxrescue.card=: a BDF, or NULL / "all" */
	bool allow_risky;            /* cxrescue.allow_risky=1 */
	bool device_data;            /* cxrescue.device_data=1: job=restore writes a ConnectX-4/4 Lx/5
				      * bundle's device data (GUIDs, MACs, VPD, settings) when it differs
				      * from the card's (refused otherwise) */
	const char *rom;             /* cxrescue.rom=keep|image|none|FILE (update, crossflash: the boot
				      * ROM of the result, rescue/step_rom.c); NULL: the wizard's rule */
	const char *shell;           /* the shell the menu starts ("/bin/sh"); NULL: no shell choice */
	const char *prompt_mark;     /* a file that gets the uptime at the first menu, if absent (boot-time figures) */
	const char *bundle;          /* job=restore: the backup bundle (folder) to write back */
	const char *expect;          /* job=verify: GUID:PSID:FW:OLD[,...] (rescue/job_verify.c) */
	const char *settings;        /* NAME=VALUE,...: set after an update's or crossflash's write,
				      * or alone with job=settings (rescue/job_settings.c) */
	bool exit_after_job;         /* after=exit: the job's outcome is the exit status, no menu (PXE) */
	const char *upload_cmd;      /* $CXR_UPLOAD: run as `CMD backup BUNDLE` after each backup
				      * (rescue/step_upload.c); NULL: backups stay in the data folder only */
	bool upload_optional;        /* upload=optional: a write goes on when that upload failed */
	const char *boards;          /* the board table the user named (--boards), or NULL */
	const char *const *firmware; /* the firmware folders the user named (--firmware), nfirmware */
	size_t nfirmware;            /* 0: the default folders (library/library.h) */
};

/* One card as the wizard knows it: read with every other at the start and when the user lists
 * the cards again, and alone, in its place, after a write to it (rescue/inventory.h). */
struct wizard_card {
	struct cardinfo ci;
	struct card_facts k;
	struct match_result mr;
	bool matched;                /* mr holds the library's verdicts */
	char fw[24];                 /* the FW on its flash ("2.40.5030"), or "" */
	char running[24];            /* the FW it runs now, or "" */
	bool has_backup;             /* a sound bundle of this card is on the stick */
	const struct placeholder_id *placeholder; /* its GUIDs/MACs are a release image's, not its own */
	/* A family cxflash does not work on (ConnectX-4 and later, dev/chip.h): the chip
	 * table's reason, else NULL. Such a card is shown, never opened or offered. */
	const char *not_worked_on;
	/* A ConnectX-4/4 Lx/5 (dev/chip.h), in recovery mode (ci.recovery) or its firmware running,
	 * its FS3/FS4 image read as q reads it (ci.have_fs3, ci.fs3_*; running: ci.running from
	 * MGIR). Offered the burns (update, cross-flash, burn a file; unbrick in recovery mode): its
	 * GUIDs/MACs are its device data, which a burn never writes, so it is never given any; they
	 * are set on their own (flow_ids_fs3.c), in either mode, even with no valid image read (a
	 * lost DEV_INFO). Its settings once its firmware runs; its backups restored in either mode
	 * (step_restore.h: device data only after its own question). The boot ROM is not offered
	 * (inventory.h: inv_say_not_yet). */
	bool fs3;
	/* Why nothing that writes is offered for it though it is read (a running ConnectX-4/4
	 * Lx/5 with secure firmware), else NULL. A backup is still made. */
	const char *no_write;
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
	char probed[WIZARD_MAX_CARDS][16]; /* slots probed in this session (rescue/step_probe.c) */
	int nprobed;
	bool wrote;                  /* a write succeeded: power off for the cold restart */
	struct write_outcome last_write; /* the newest write's outcome (ops/write_procedure.h): its card's state */
	bool wrote_recovery;         /* ... to a card that was in recovery mode (the jumper) */
	bool failed;                 /* the last action failed */
	char last_error[2 * CX_MSG_MAX]; /* what failed: the action, then its one line */
};

/* The bus of this machine (libpci on sysfs_root, NULL for /sys/bus/pci). */
struct wizard_bus wizard_pci_bus(const char **sysfs_root);

/* "inventory", "backup", "update", "crossflash", "restore", "verify", "settings" -> the job; false if none. */
bool wizard_job_parse(const char *s, enum wizard_job *job);
const char *wizard_job_name(enum wizard_job job);

/* The firmware library read again (wizard_opts.boards, .firmware); a library that cannot be
 * read leaves have_lib false and why in lib_error. */
void wiz_load_library(struct wizard *w);
/* The stick's backups indexed again (backup_index.h); a damaged bundle is said, not used. */
void wiz_scan_backups(struct wizard *w);
/* Let the user pick a card among those for which ok() is true (all when NULL);
 * a single one is picked without a question. CX_EABSENT (with why) when none. */
int wiz_choose_card(struct wizard *w, const char *title, bool (*ok)(const struct wizard_card *),
		    const char *none, int *idx, struct cx_status *st);
/* Take the session lock for an action that writes; false (the user told why) when
 * another console holds it. wiz_give() gives it back. */
bool wiz_take(struct wizard *w);
/* The same without a word, waiting up to about two seconds: for the start-up bookkeeping
 * both consoles' wizards do at once. */
bool wiz_take_quiet(struct wizard *w);
void wiz_give(struct wizard *w);
/* Just before the first write to a card: everything the wizard wrote to the stick is
 * flushed (sync), so that a power cut during the card's write finds nothing of ours
 * half-written on the FAT. A cut there had torn a folder the kernel then refused
 * ("corrupted directory"), leaving the stick read-only at the next boot. */
void wiz_quiesce_stick(struct wizard *w);
/* Print and log one line. */
void wiz_say(struct wizard *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Open card i for work. */
int wiz_open(struct wizard *w, int i, struct device *d, struct cx_status *st);
/* Card i opened as `cxflash config` opens it (config cycles: the bus's open_tools, or open where
 * it has none) and its settings read; device_close(d) after it, whatever it returned. */
int wiz_open_settings(struct wizard *w, int i, struct device *d, struct nv_session *ns, struct nv_state *s,
		      struct cx_status *st);
/* The current UTC time, "2026-11-24T10:46:00Z". */
void wiz_now(char out[32]);
/* A history line (journal.h) for card c; a line that cannot be written is a warning. */
void wiz_history(struct wizard *w, const struct wizard_card *c, const char *action,
		 const struct history_from *from, const struct history_to *to,
		 const struct history_backup *bk, const char *result, const char *message);

#endif
