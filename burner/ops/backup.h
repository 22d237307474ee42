/* SPDX-License-Identifier: GPL-2.0-or-later */
/* backup.h — backup bundles: a card's whole flash, who the card is, and checksums.
 *
 * backup_card() reads the whole flash twice and refuses to go on unless both
 * reads agree byte for byte. It then writes a bundle folder
 *
 *   DIR/<chip>-<PSID>-<node GUID>-<UTC date-time>/   e.g. cx3-MT_1090120019-0002c90300c0ffe0-20261124T104600Z
 *   DIR/<chip>-recovery-<PCI address>-<UTC date-time>/  a recovery-mode card (no readable identity)
 *   DIR/<chip>-noimage-<PCI address>-<UTC date-time>/   a running card whose flash holds no readable image
 *
 * (<chip> is cx2, cx3 or cx3pro; the PCI address is written with '_' for ':'
 * so the name is valid on FAT; a name already taken gets "-2", "-3", ...)
 * holding
 *
 *   flash.bin      the whole flash, physical layout (as read, both slots)
 *   identity.json  the card: PCI IDs, chip, flash part, and what its image says
 *                  (PSID, FW version, VSD, GUIDs, MACs, ROM), the date, the
 *                  cxflash version and flash.bin's SHA-256
 *   board.ini      the board .ini stored in the image (FW_CONF), when there is one
 *   SHA256SUMS     `sha256sum -c` input covering every other file
 *
 * Everything is written and fsync'd into a hidden temporary folder
 * (DIR/.cxflash-backup-XXXXXX), flash.bin is read back from disk and its
 * SHA-256 compared with the one of the bytes read from the card, the whole
 * folder is checked with backup_verify(), and only then is it renamed to its
 * final name. A bundle under a final name is therefore complete and checked;
 * on any failure the temporary folder is removed and nothing is left.
 *
 * A restore, and the burn (which backs the card up first), use the same
 * functions; backup_verify() and backup_load_identity() read a bundle back.
 * backup_card_reuse() is the backup before a write when a bundle of the card
 * may already hold exactly its flash: it reads the flash once and writes no
 * second copy of the same bytes.
 * (backup.c writes a bundle, backup_verify.c checks one, backup_identity.c
 * reads identity.json with util/json_read, backup_reuse.c compares the card
 * with a bundle.)
 */
#ifndef CX_BACKUP_H
#define CX_BACKUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ops/device.h"
#include "util/sha256.h"

#define BACKUP_FORMAT "cxflash-backup-1" /* identity.json "format"; bumped if the layout changes */
#define BACKUP_FLASH "flash.bin"
#define BACKUP_IDENTITY "identity.json"
#define BACKUP_INI "board.ini"
#define BACKUP_SUMS "SHA256SUMS"
#define BACKUP_PATH_MAX 4096
#define BACKUP_NAME_MAX 128
#define BACKUP_META_MAX (64u << 10) /* ours: identity.json and SHA256SUMS are < 2 KiB */

struct backup_result {
	char path[BACKUP_PATH_MAX];               /* DIR/<name>, the finished bundle */
	char name[BACKUP_NAME_MAX];
	char flash_sha256[SHA256_HEX_LEN + 1];
	uint32_t size;                            /* flash bytes */
	bool recovery;                            /* the card was in recovery mode */
	bool have_image;                          /* identity.json has the image's identity */
	bool have_ini;                            /* board.ini was written */
	bool reused;                              /* backup_card_reuse(): an existing bundle, not a new one */
};

/* Every backup_card*() that succeeds leaves the flash it read with the device
 * (device_keep_flash, ops/device.h): a write under a lock held since, the backup
 * being its before_write, plans from it instead of reading the flash a third time.
 * Outside such a lock it is dropped at once. */

/* Called at each stage ("reading the flash (1 of 2)", ...), e.g. to show progress. */
typedef void (*backup_progress_fn)(void *ctx, const char *stage);

/* Back up the opened card d into a new bundle in dir (created if absent, one
 * level). Takes the flash semaphores for each read, as device_read_flash().
 * Errors: CX_EFLASH when the two reads differ (nothing is written), CX_EIO
 * for anything about dir or the files (nothing is left behind), CX_EINTR,
 * CX_ENOMEM, and whatever reading the flash returns. */
int backup_card(struct device *d, const char *dir, struct backup_result *r, struct cx_status *st);
int backup_card_ex(struct device *d, const char *dir, backup_progress_fn progress, void *ctx,
		   struct backup_result *r, struct cx_status *st);

/* backup_card_ex() with the first of the two reads already made: first holds
 * d->flash.size bytes read from the card (malloc'd; taken over and freed). */
int backup_card_from(struct device *d, const char *dir, uint8_t *first, backup_progress_fn progress, void *ctx,
		     struct backup_result *r, struct cx_status *st);

/* The backup before a write, against prior (a bundle folder, may be NULL): the
 * flash is read once and, when prior verifies (backup_verify), its flash.bin
 * hashes to its identity's flash_sha256, it is of this card as the card shows
 * itself now (PCI address, PCI and subsystem IDs, chip family, recovery mode,
 * flash size) and its flash.bin equals the flash read, byte for byte, nothing
 * is written: r describes prior, with reused set. On any difference, or any
 * failure to read or check prior, that read becomes the first of a new
 * bundle's two (backup_card_from): a backup is never skipped on a doubt.
 * Errors are backup_card_ex()'s. */
int backup_card_reuse(struct device *d, const char *dir, const char *prior, backup_progress_fn progress,
		      void *ctx, struct backup_result *r, struct cx_status *st);

/* Check a bundle: SHA256SUMS well formed, listing flash.bin and identity.json
 * (and board.ini if identity.json names it) and only plain file names; every
 * listed file matches; identity.json is valid and its flash_sha256 and
 * flash_size agree with flash.bin. CX_OK, CX_EIO (a file cannot be read) or
 * CX_EIMAGE (the bundle is damaged or not one), with one line in st. */
int backup_verify(const char *bundle_dir, struct cx_status *st);

/* What identity.json says. Strings are empty and numbers 0 where it has null. */
struct backup_identity {
	char format[32];
	char date[32];                            /* "2026-11-24T10:46:00Z" */
	char cxflash_version[32];
	char bdf[16];
	char family[24];                          /* "ConnectX-3" */
	char chip[40];                            /* "ConnectX-3 A1" */
	unsigned revision;
	uint16_t pci_device, subsys_vendor, subsys_device;
	bool recovery;
	char flash[64];                           /* flash_describe() */
	uint32_t flash_size;
	char flash_sha256[SHA256_HEX_LEN + 1];

	bool have_image;                          /* the fields below come from an image */
	uint32_t image_start;
	unsigned image_slot;
	char fw_version[24];
	char psid[17];
	char vsd[209];
	int guid_entries;
	uint64_t guid[4];                         /* node, port1, port2, sys_image */
	uint64_t mac[2];
	char rom_type[16], rom_version[24];       /* empty if no ROM */
	bool have_ini;                            /* board_ini names the file */
};

/* Read DIR/identity.json back. CX_EIO if it cannot be read, CX_EIMAGE if it
 * is not a valid identity record. Never trusts a length or a type. */
int backup_load_identity(const char *bundle_dir, struct backup_identity *id, struct cx_status *st);

/* The same on text in memory (len bytes, need not be NUL-terminated). */
int backup_parse_identity(const char *text, size_t len, struct backup_identity *id,
			  struct cx_status *st);

#endif
