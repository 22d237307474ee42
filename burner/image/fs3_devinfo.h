/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fs3_devinfo.h — a new DEV_INFO for `sg` on an FS3/FS4 card: its bytes and where it goes
 * (fs3-format.md §6.2, §6.7).
 *
 * DEV_INFO is the one device section kept failsafe: two places for it, the card uses one,
 * a change is written whole into the other and only then made the one used. Given the
 * card's flash (a whole-flash buffer as ops/devimage_fs3.h reads it, parsed with
 * fs3_parse_dev_lost() so that a card whose DEV_INFO is lost can be read at all) and the
 * base GUID and MAC to set, fs3_devinfo_plan() decides:
 *
 *   - the MFG_INFO must be there, whole (its CRC right) and of the ConnectX-4 layout
 *     (major 1, §6.1): it is the factory's record the new DEV_INFO is built against, and
 *     on FS3 the only fixed point the two DEV_INFO places are found from. Missing or
 *     damaged: CX_EIMAGE. Its guids_override_en clear: CX_EUNSUPPORTED with mstflint's
 *     words, unless allow_no_override (see below);
 *   - the DEV_INFO the card uses now ("old"): FS4, the DTOC entry of type DEV_INFO whose
 *     signature and in-section CRC are right; FS3, the ITOC's DEV_INFO entry when its CRC
 *     is right. None such: old_valid is false (lost or damaged);
 *   - the target, where the new one goes: FS4, the other DEV_INFO entry of the DTOC (at
 *     least two must be listed, as fs4_ops.cpp UpdateSection requires); FS3, of MFG_INFO's
 *     address minus 4 KiB and minus 8 KiB the one the ITOC entry does not name
 *     (Fs3GetNewSectionAddr; an entry naming neither is refused as mstflint refuses it);
 *   - the bytes: the old DEV_INFO when it is valid, its GUID and MAC values replaced (its
 *     allocation sizes, steps and VSD kept); else a fresh one: the signature, version 2.0,
 *     MFG_INFO's allocation sizes and steps with the given values, an empty VSD. A value
 *     not given is the old DEV_INFO's, else MFG_INFO's. FS4 carries its CRC in its own last
 *     dword (the DTOC entry's kind must be INSECTION, else CX_EUNSUPPORTED: the DTOC
 *     would have to change); FS3 in the ITOC entry (crc);
 *   - FS4: kill[] lists the first dword of every other DEV_INFO that carries a signature
 *     (normally the old one), to be zeroed once the new one is whole.
 *
 * allow_no_override: with guids_override_en clear the firmware takes the card's GUIDs and
 * MACs from MFG_INFO, not DEV_INFO (UNCONFIRMED on silicon: that is what the bit's name
 * and mstflint's refusal say, fs3-format.md §6.7), so mstflint refuses sg. A card whose
 * DEV_INFO is lost still fails mstflint's verify (FS4: "No DEV_INFO") and may come up in
 * recovery mode; writing a DEV_INFO that carries MFG_INFO's own values puts it back
 * without changing who the card is. So allow_no_override permits only that: the values
 * given must be MFG_INFO's, else CX_EVALUE.
 *
 * Nothing here touches a card. fs3_devinfo_repoint() makes an FS3 ITOC name the target.
 */
#ifndef CX_FS3_DEVINFO_H
#define CX_FS3_DEVINFO_H

#include <stdbool.h>
#include <stdint.h>

#include "image/fs3.h"
#include "util/status.h"

#define FS3_DEVINFO_MAX 0x1000     /* a DEV_INFO fills at most its 4 KiB sector (ours: a bound) */
#define FS3_DEVINFO_SIG_LEN 16     /* CheckDevInfoSignature: 4 dwords, written last (fs3-format.md §6.7) */
#define FS3_DEVINFO_KILL_LEN 4     /* the old one's first dword zeroed (fs4_ops.cpp UpdateSection) */

struct fs3_sg_request {
	bool have_guid, have_mac;
	uint64_t guid, mac;       /* the bases, as printed on the sticker */
};

struct fs3_devinfo_plan {
	enum fs3_fmt fmt;
	bool old_valid;           /* the card has a DEV_INFO it uses, whole */
	uint32_t old_addr;        /* its address (physical), or the FS3 entry's when damaged */
	uint64_t old_guid, old_mac;
	int entry;                /* FS3: the ITOC entry to repoint; FS4: the target's DTOC entry */
	uint32_t target, len;     /* where the new one goes (physical) and its size */
	uint8_t data[FS3_DEVINFO_MAX];
	uint16_t crc;             /* FS3: the section CRC for the ITOC entry */
	uint64_t guid, mac;       /* the new bases */
	bool fresh;               /* built from MFG_INFO: nothing of the old one was readable */
	bool same;                /* the old one holds these values already: nothing to do */
	uint32_t kill[FS3_MAX_TOCS];
	int nkill;
	uint32_t mfg_addr;
};

int fs3_devinfo_plan(const struct fs3_image *img, const struct fs3_sg_request *rq, bool allow_no_override,
		     struct fs3_devinfo_plan *p, struct cx_status *st);

/* FS3: rewrite, in buf (the whole flash img was parsed from, a copy the caller may change),
 * the ITOC's DEV_INFO entry to name p->target with p->crc, its entry CRC recomputed, and put
 * p->data at p->target: the flash as it will be once the card's image is burned again. */
int fs3_devinfo_repoint(uint8_t *buf, size_t len, const struct fs3_image *img, const struct fs3_devinfo_plan *p,
			struct cx_status *st);

/* The verdict sg reads a card by: fs3_verdict_query()'s (the TOCs, the sections a query reads,
 * as mstflint's UpdateSection queries first), or with whole fs3_verdict()'s (every item: what
 * a write's report of the card after a failure judges by, ops/write_procedure.c), DEV_INFO
 * sections excepted (what sg fixes: a card whose DEV_INFO is lost still boots). */
int fs3_devinfo_verdict(const struct fs3_image *img, bool whole, struct cx_status *st);

#endif
