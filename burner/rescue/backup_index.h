/* SPDX-License-Identifier: GPL-2.0-or-later */
/* backup_index.h — the backup bundles on the stick, checked and found by card.
 *
 * backup_index_scan() looks at every folder directly in backups_dir (the
 * stick's cxrescue/backups/) whose name does not start with '.': the
 * ".cxflash-backup-XXXXXX" folders of ops/backup.c are backups that never
 * finished, and are left out. Files, symbolic links and deeper folders are not
 * looked at. Each folder is checked with backup_verify() (which hashes every
 * file: a few MiB each) and its identity.json read with backup_load_identity().
 * A folder that fails either is kept in the index with the reason, never
 * dropped, so the wizard can name it; the queries below never return it.
 *
 * Entries are sorted newest first by identity.json's date (an ISO 8601 UTC
 * string, compared as text), then by folder name, last first (a name taken in
 * the same second got "-2"), then by path. Entries without a readable date
 * come last.
 *
 * Finding a card's bundles: a card is known by its chip family (the
 * identity's "family", e.g. "ConnectX-3") and its node GUID, which stay the
 * same across firmware updates and cross-flashes (its PSID does not). A
 * bundle made from a recovery-mode card, or from a flash that held no image,
 * has no GUID and so never matches one; neither does a GUID that is 0 or all
 * ones (blank). A card that shows no identity (recovery mode) is offered every
 * sound bundle of its family, for the user to choose from.
 */
#ifndef CX_BACKUP_INDEX_H
#define CX_BACKUP_INDEX_H

#include <stdbool.h>
#include <stdint.h>

#include "ops/backup.h"
#include "util/status.h"

#define BACKUP_INDEX_MAX 4096 /* bundles in one folder: more is refused, not half-listed */

struct backup_entry {
	char *path;                       /* backups_dir/name */
	const char *name;                 /* the folder's name, inside path */
	bool have_id;                     /* identity.json was read; id is all zero otherwise */
	struct backup_identity id;
	int verify_code;                  /* backup_verify(): CX_OK when sound, else CX_EIMAGE or CX_EIO */
	char reason[CX_MSG_MAX];          /* why it is not sound, one line; "" when it is */
};

struct backup_index {
	struct backup_entry *e;           /* n entries, newest first */
	int n, cap;
};

/* Index backups_dir. ix need not be initialised, and is not freed: free an
 * index before scanning into it again. A folder that does not exist
 * is an empty index. CX_EIO when it cannot be read or is not a folder,
 * CX_EUNSUPPORTED for more than BACKUP_INDEX_MAX bundles, CX_ENOMEM; the index
 * is then empty. Free it with backup_index_free(). */
int backup_index_scan(struct backup_index *ix, const char *backups_dir, struct cx_status *st);

/* Check and index one more bundle, e.g. the one a backup just made, without
 * hashing all the others again. CX_OK even when the bundle is damaged (it is
 * indexed with its reason); CX_EUNSUPPORTED or CX_ENOMEM. */
int backup_index_add(struct backup_index *ix, const char *bundle_dir, struct cx_status *st);

/* The sound bundles of a card, newest first, at most max of them into out;
 * returns how many. family is the card's chip family name ("ConnectX-3"; NULL
 * matches nothing), psid and node_guid what the card shows (NULL and 0 when it
 * shows nothing):
 *
 *   a real node GUID: the bundles of that family with that node GUID, only;
 *   no GUID but a PSID (an image with blank GUIDs): every bundle of the
 *     family, those with that PSID first;
 *   neither (recovery mode): every bundle of the family.
 *
 * The pointers are into ix: valid until it is scanned, added to or freed. */
int backup_index_for_card(const struct backup_index *ix, const char *family, const char *psid,
			  uint64_t node_guid, const struct backup_entry **out, int max);

/* Whether the card with this family and node GUID has a sound bundle: "has
 * this card been backed up yet?". Always false for a GUID of 0 or all ones:
 * such a card cannot be told from another, so it has no backup of its own. */
bool backup_index_has(const struct backup_index *ix, const char *family, uint64_t node_guid);

void backup_index_free(struct backup_index *ix);

#endif
